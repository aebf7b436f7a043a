# rooms.cmake: the layering of docs/design.md, enforced by the include path.
#
# Every room (a folder of src/) is built with an include directory that holds
# only links to itself and to the rooms it may use; no room has src/ on its
# path, and no source includes another room by a relative "../" path
# (tests/test_layering.sh checks that). Including a header of a room above
# yours therefore fails to compile.
#
#   npuc_room(<target> <room> [USES <room>...])
#
# gives <target> (a library built from src/<room>) the include directory
# ${CMAKE_BINARY_DIR}/rooms/<room>, with links <room> and each USES room. The
# directory is PUBLIC: a user of the library also sees what the library may
# see (the rooms are a strict order, so that never reaches upwards).
function(npuc_room target room)
  cmake_parse_arguments(R "" "" "USES" ${ARGN})
  set(dir ${CMAKE_BINARY_DIR}/rooms/${room})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  foreach(r ${room} ${R_USES})
    if(NOT IS_DIRECTORY ${CMAKE_SOURCE_DIR}/src/${r})
      message(FATAL_ERROR "npuc_room(${target}): no room src/${r}")
    endif()
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${r} ${dir}/${r} SYMBOLIC)
  endforeach()
  target_include_directories(${target} PUBLIC ${dir} ${CMAKE_SOURCE_DIR}/include)
endfunction()
