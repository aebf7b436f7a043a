#!/usr/bin/env bash
# Builds and runs the QEMU Cortex-M55 example (examples/qemu-m55,
# docs/embedded.md):
#   1. builds the host npuc (unless --npuc is given),
#   2. compiles MODEL to C and to a loadable image (npuc compile --output-format all),
#   3. configures and builds the firmware with cmake/arm-none-eabi.cmake,
#   4. runs it on QEMU mps3-an547 under `timeout` (unless --no-run).
# The firmware's semihosting output goes to stdout; the script exits with
# the firmware's exit status (124 if QEMU timed out).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat <<EOF
usage: tools/build_m55_example.sh [options] [MODEL.tflite]

MODEL defaults to ../shared/models/tflm/keyword_scrambled_8bit.tflite
(NPU epochs plus CPU epochs with state).

options:
  --npuc PATH        host npuc to compile with (default: build it in --host-build)
  --host-build DIR   host build folder (default: build-emb-host)
  --build DIR        cross build folder (default: build-m55)
  --target NPU       ethos-u55-32/64/128/256, ethos-u65-256/512 (default ethos-u55-128)
  --cpu CPU          -mcpu for the firmware (default cortex-m55)
  --cmake-arg ARG    extra argument for the cross configure (repeatable)
  --timeout SEC      QEMU time limit (default 300)
  --no-run           build only
  -h, --help         this text
EOF
}

npuc="" host_build=$src/build-emb-host build=$src/build-m55
target=ethos-u55-128 cpu=cortex-m55 timeout_s=300 run=1 model="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --npuc) npuc=$2; shift 2 ;;
    --host-build) host_build=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --cmake-arg) extra+=("$2"); shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --no-run) run=0; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "build_m55_example: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [ -z "$model" ] || { echo "build_m55_example: more than one model" >&2; exit 2; }
       model=$1; shift ;;
  esac
done
[ -n "$model" ] || model=$src/../shared/models/tflm/keyword_scrambled_8bit.tflite
[ -f "$model" ] || { echo "build_m55_example: model '$model' not found" >&2; exit 2; }

missing=()
for t in arm-none-eabi-gcc qemu-system-arm cmake ninja; do
  command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
if command -v arm-none-eabi-gcc >/dev/null 2>&1 &&
   ! arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -print-file-name=libc.a | grep -q /; then
  missing+=("newlib for arm-none-eabi")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "build_m55_example: missing ${missing[*]}: run 'bash tools/setup.sh'" \
       "(installs gcc-arm-none-eabi, libnewlib-arm-none-eabi, qemu-system-arm)" >&2
  exit 2
fi

log() { echo "[build_m55_example] $*" >&2; }
if [ -z "$npuc" ]; then
  log "host npuc in $host_build"
  cmake -S "$src" -B "$host_build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$host_build" -j 2 --target npuc >/dev/null
  npuc=$host_build/npuc
fi

name=$(basename "$model" .tflite)
mkdir -p "$build"
modeldir=$build/model
rm -rf "$modeldir"
log "npuc compile $name for $target"
"$npuc" compile "$model" --target "$target" --output-format all -o "$modeldir" --quiet
model_c=$(ls "$modeldir"/*_model.c 2>/dev/null | head -1)
[ -n "$model_c" ] || { echo "build_m55_example: npuc wrote no C model in $modeldir" >&2; exit 1; }
# the same model as a runtime-loadable image, installed by the firmware
model_rel=$(ls "$modeldir"/*_rel.bin 2>/dev/null | head -1)
[ -n "$model_rel" ] || { echo "build_m55_example: npuc wrote no loadable model in $modeldir" >&2; exit 1; }

log "firmware in $build ($cpu, $target)"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/cmake/arm-none-eabi.cmake" \
      -DCMAKE_BUILD_TYPE=Release -DTARGET_CPU="$cpu" -DETHOSU_TARGET_NPU_CONFIG="$target" \
      -DNPUC_EXAMPLE_MODEL_C="$model_c" -DNPUC_EXAMPLE_RELOC_BIN="$model_rel" "${extra[@]}" >/dev/null
if ! cmake --build "$build" -j 2 > "$build/build.log" 2>&1; then
  cat "$build/build.log" >&2
  echo "build_m55_example: the firmware build failed" >&2
  exit 1
fi
elf=$build/examples/qemu-m55/qemu_m55_example.elf

[ "$run" = 1 ] || { log "built $elf"; exit 0; }
log "qemu-system-arm -M mps3-an547 -kernel $elf"
set +e
timeout "$timeout_s" qemu-system-arm -M mps3-an547 -display none -serial none -monitor none \
  -chardev stdio,id=sh0 -semihosting-config enable=on,target=native,chardev=sh0 \
  -kernel "$elf" </dev/null
rc=$?
set -e
[ $rc -ne 124 ] || echo "build_m55_example: QEMU timed out after ${timeout_s}s" >&2
exit $rc
