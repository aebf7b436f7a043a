# The MCU build: included by the top-level CMakeLists when cross compiling
# (cmake/arm-none-eabi.cmake). Builds only what runs on the microcontroller:
#
#   libnpuc_ethosu.a     src/ethosu/*.c: the Ethos-U hardware facts (register map,
#                        command table, variants, COP1) the others use
#   libethosu_driver.a   src/driver/*.c + the MMIO device backend
#   libnpurt.a           src/runtime/*.c + src/crypto/*.c: compiled-model loader,
#                        loadable-model install (SHA-256, Ed25519), epoch scheduler
#   libnpurt_kernels.a   src/kernels/*.c: the CPU kernels of SW epochs
#   examples/qemu-m55    the bare-metal example for QEMU mps3-an547
#
# plus ctest checks on those libraries. See docs/embedded.md.

# NPU configuration ------------------------------------------------------------
set(NPUC_NPU_CONFIGS ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256
                     ethos-u65-256 ethos-u65-512)
set(ETHOSU_TARGET_NPU_CONFIG "ethos-u55-128" CACHE STRING
    "Ethos-U NPU the firmware drives (${NPUC_NPU_CONFIGS})")
set_property(CACHE ETHOSU_TARGET_NPU_CONFIG PROPERTY STRINGS ${NPUC_NPU_CONFIGS})
if(NOT ETHOSU_TARGET_NPU_CONFIG IN_LIST NPUC_NPU_CONFIGS)
  message(FATAL_ERROR "ETHOSU_TARGET_NPU_CONFIG='${ETHOSU_TARGET_NPU_CONFIG}' is not one of: "
                      "${NPUC_NPU_CONFIGS}")
endif()
string(REGEX MATCH "^ethos-(u55|u65)-([0-9]+)$" _m "${ETHOSU_TARGET_NPU_CONFIG}")
set(ETHOSU_ARCH ${CMAKE_MATCH_1})
set(ETHOSU_MACS ${CMAKE_MATCH_2})
string(TOUPPER "ETHOS${ETHOSU_ARCH}" _arch_def)    # ETHOSU55 / ETHOSU65
# Every MCU source sees: ETHOSU55 or ETHOSU65, ETHOSU_MACS=128 and the
# name as a string, ETHOSU_TARGET_NPU_CONFIG="ethos-u55-128".
add_compile_definitions(${_arch_def} ETHOSU_MACS=${ETHOSU_MACS}
                        ETHOSU_TARGET_NPU_CONFIG="${ETHOSU_TARGET_NPU_CONFIG}")
option(NPUC_ERROR_TEXT "Keep the driver's log texts and the runtime's error texts in flash" ON)
if(NOT NPUC_ERROR_TEXT)
  add_compile_definitions(NPURT_ERROR_TEXT=0 ETHOSU_LOG_TEXT=0)
endif()
message(STATUS "npuc MCU build: ${TARGET_CPU}, ${ETHOSU_TARGET_NPU_CONFIG}")

find_program(NPUC_NM NAMES ${CMAKE_NM} arm-none-eabi-nm)
find_program(NPUC_SIZE NAMES ${CMAKE_SIZE} arm-none-eabi-size)

# Product libraries: freestanding, no heap -------------------------------------
# Each sees only its own room and what it links (cmake/rooms.cmake), as in the
# host build.
include(${CMAKE_SOURCE_DIR}/cmake/rooms.cmake)
set(NPUC_MCU_LIBS "")

file(GLOB MCU_ETHOSU_SRC CONFIGURE_DEPENDS src/ethosu/*.c)
add_library(npuc_ethosu STATIC ${MCU_ETHOSU_SRC})
npuc_room(npuc_ethosu ethosu)
target_compile_options(npuc_ethosu PRIVATE -ffreestanding)
list(APPEND NPUC_MCU_LIBS npuc_ethosu)

file(GLOB MCU_KERNELS_SRC CONFIGURE_DEPENDS src/kernels/*.c)
add_library(npurt_kernels STATIC ${MCU_KERNELS_SRC})
npuc_room(npurt_kernels kernels)
target_compile_options(npurt_kernels PRIVATE -ffreestanding)
list(APPEND NPUC_MCU_LIBS npurt_kernels)

file(GLOB MCU_DRIVER_SRC CONFIGURE_DEPENDS src/driver/*.c)
file(GLOB MCU_DRIVER_MMIO_SRC CONFIGURE_DEPENDS src/driver/device_mmio/*.c
                                                src/driver/device/mmio/*.c)
if(MCU_DRIVER_SRC)
  # The driver proper, without a device backend: the example links it with
  # the virtual NPU's backend instead of MMIO.
  add_library(ethosu_driver_core OBJECT ${MCU_DRIVER_SRC})
  npuc_room(ethosu_driver_core driver)
  target_compile_options(ethosu_driver_core PRIVATE -ffreestanding)
  target_link_libraries(ethosu_driver_core PUBLIC npuc_ethosu)
  add_library(ethosu_driver STATIC $<TARGET_OBJECTS:ethosu_driver_core> ${MCU_DRIVER_MMIO_SRC})
  npuc_room(ethosu_driver driver)
  target_compile_options(ethosu_driver PRIVATE -ffreestanding)
  target_link_libraries(ethosu_driver PUBLIC npuc_ethosu)
  list(APPEND NPUC_MCU_LIBS ethosu_driver)
endif()

file(GLOB MCU_RUNTIME_SRC CONFIGURE_DEPENDS src/runtime/*.c src/crypto/*.c)
if(MCU_RUNTIME_SRC)
  add_library(npurt STATIC ${MCU_RUNTIME_SRC})
  npuc_room(npurt runtime)
  npuc_room(npurt crypto)
  target_compile_options(npurt PRIVATE -ffreestanding)
  # the full kernel table only weakly: a firmware links the kernels its
  # model's table (ID_kernels) names (docs/embedded.md)
  target_compile_definitions(npurt PRIVATE NPURT_KERNELS_WEAK=1)
  target_link_libraries(npurt PUBLIC npurt_kernels npuc_ethosu)
  list(APPEND NPUC_MCU_LIBS npurt)
endif()

# The virtual NPU for the example firmware -------------------------------------
# Test equipment, not product code: the simulator (the whole room: it knows
# nothing of graphs or the interpreter) and what it needs from util, hosted
# on newlib (malloc allowed), plus the driver's host device backend built
# without threads (the NPU runs inside the CMD register write and calls the
# driver's IRQ handler directly).
file(GLOB VNPU_SIM_SRC CONFIGURE_DEPENDS src/sim/*.c)
file(GLOB VNPU_DEVICE_SRC CONFIGURE_DEPENDS src/driver/host/*.c)
add_library(ethosu_vnpu STATIC ${VNPU_SIM_SRC} src/util/util.c ${VNPU_DEVICE_SRC})
npuc_room(ethosu_vnpu sim)
npuc_room(ethosu_vnpu util)
npuc_room(ethosu_vnpu driver)
target_compile_definitions(ethosu_vnpu PRIVATE ETHOSU_HOST_THREADS=0)
# The simulator formats uint32_t with %u/%x in its messages; uint32_t is
# unsigned long on arm-none-eabi (same size, so harmless here).
target_compile_options(ethosu_vnpu PRIVATE -Wno-format)
target_link_libraries(ethosu_vnpu PUBLIC npurt_kernels npuc_ethosu)

# Checks (ctest in the MCU build dir) ------------------------------------------
enable_testing()
foreach(lib ${NPUC_MCU_LIBS})
  add_test(NAME no_heap_${lib}
           COMMAND ${CMAKE_COMMAND} -DNM=${NPUC_NM} -DLIB=$<TARGET_FILE:${lib}>
                   -P ${CMAKE_SOURCE_DIR}/cmake/check_no_heap.cmake)
endforeach()

add_subdirectory(examples/qemu-m55)

# Size probe for tools/bench_m55_size.sh: a minimal firmware with runtime +
# driver (MMIO backend), kernels stubbed out; linked, never run.
if(TARGET npurt AND TARGET ethosu_driver)
  add_executable(m55_size_probe bench/m55_size_probe.c)
  set_target_properties(m55_size_probe PROPERTIES SUFFIX ".elf")
  target_compile_options(m55_size_probe PRIVATE -ffreestanding)
  target_link_options(m55_size_probe PRIVATE
    -nostartfiles -T${CMAKE_SOURCE_DIR}/examples/qemu-m55/mps3_an547.ld -Wl,--gc-sections
    -Wl,-Map=${CMAKE_BINARY_DIR}/m55_size_probe.map)
  target_link_libraries(m55_size_probe PRIVATE npurt ethosu_driver c gcc)
  # the same with a loadable model installed instead (loader, SHA-256, Ed25519)
  add_executable(m55_size_probe_reloc bench/m55_size_probe.c)
  set_target_properties(m55_size_probe_reloc PROPERTIES SUFFIX ".elf")
  target_compile_definitions(m55_size_probe_reloc PRIVATE PROBE_RELOC=1)
  target_compile_options(m55_size_probe_reloc PRIVATE -ffreestanding)
  target_link_options(m55_size_probe_reloc PRIVATE
    -nostartfiles -T${CMAKE_SOURCE_DIR}/examples/qemu-m55/mps3_an547.ld -Wl,--gc-sections
    -Wl,-Map=${CMAKE_BINARY_DIR}/m55_size_probe_reloc.map)
  target_link_libraries(m55_size_probe_reloc PRIVATE npurt ethosu_driver c gcc)
endif()
