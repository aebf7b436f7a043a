#!/usr/bin/env bash
# The embedded build end to end (docs/embedded.md): for a few models and NPU
# configurations, tools/build_m55_example.sh compiles the model to C with
# the host npuc, cross-builds the Cortex-M55 firmware (runtime + driver +
# kernels, NPU epochs on the virtual NPU built into the firmware) and runs
# it on QEMU mps3-an547. The output bytes it prints must equal, byte for
# byte, the host's `npuc run` of the original TFLite model (reference
# interpreter) and of the compiled model (host runtime), on the input bytes
# the firmware printed. Also: the MCU libraries' no-heap checks (ctest of
# the cross build), and a firmware whose NPU does not match the model fails
# with a message and a non-zero exit status.
#
# Needs arm-none-eabi-gcc (+ newlib) and qemu-system-arm (tools/setup.sh
# installs them). Without them the test fails, unless NPUC_SKIP_QEMU=1.
set -u
npuc=${NPUC_BIN:?}
src=${NPUC_SRC:?}
S=${NPUC_SHARED:?}/models/tflm

missing=()
for t in arm-none-eabi-gcc qemu-system-arm; do
  command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
if command -v arm-none-eabi-gcc >/dev/null 2>&1 &&
   ! arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -print-file-name=libc.a | grep -q /; then
  missing+=("newlib for arm-none-eabi")
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${NPUC_SKIP_QEMU:-0}" = 1 ]; then
    echo "SKIP: ${missing[*]} not installed (NPUC_SKIP_QEMU=1)"; exit 0
  fi
  echo "FAIL: ${missing[*]} not installed: run 'bash tools/setup.sh' (installs gcc-arm-none-eabi," \
       "libnewlib-arm-none-eabi and qemu-system-arm), or set NPUC_SKIP_QEMU=1 to skip this test"
  exit 1
fi
if [ ! -f "$S/keyword_scrambled_8bit.tflite" ]; then
  echo "SKIP: $S not found"; exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
runs=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

# Writes the bytes the firmware printed after "WHAT K: N bytes" lines into
# $2/WHAT_K.bin (one file per block).
extract() {   # extract LOG DIR
  awk -v dir="$2" '
    /^(input|output) [0-9]+: [0-9]+ bytes$/ { name = $1 "_" substr($2, 1, length($2) - 1); next }
    name != "" && /^[0-9a-f]+$/ { hex[name] = hex[name] $0; next }
    { name = "" }
    END { for (n in hex) print n, hex[n] > (dir "/blocks.txt") }' "$1"
  [ -f "$2/blocks.txt" ] || return 1
  local n h
  while read -r n h; do
    printf "$(sed 's/../\\x&/g' <<<"$h")" > "$2/$n.bin"
  done < "$2/blocks.txt"
}

hexof() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# case MODEL TARGET: build, run on QEMU, compare with the host.
run_case() {
  local model=$1 target=$2 name out log
  name=$(basename "$model" .tflite)
  out=$tmp/$name-$target
  log=$out.log
  mkdir -p "$out"
  runs=$((runs+1))
  local rc=0
  bash "$src/tools/build_m55_example.sh" --npuc "$npuc" --build "$out/build" \
       --target "$target" --timeout 600 "$model" > "$log" 2> "$out.err" || rc=$?
  if [ $rc -ne 0 ]; then
    fail "$name $target: build or firmware failed (exit $rc)"
    sed 's/^/    /' "$log" | tail -20; sed 's/^/    /' "$out.err" | tail -20
    return
  fi
  grep -qx ok "$log" || { fail "$name $target: firmware did not print ok"; return; }
  if ! ctest --test-dir "$out/build" > "$out.ctest" 2>&1; then
    fail "$name $target: MCU library checks failed"; sed 's/^/    /' "$out.ctest" | tail -20
  fi
  mkdir -p "$out/io"
  extract "$log" "$out/io" || { fail "$name $target: no input/output bytes in the firmware output"; return; }
  local args=() k=0
  while [ -f "$out/io/input_$k.bin" ]; do args+=(--input "$out/io/input_$k.bin"); k=$((k+1)); done
  [ $k -gt 0 ] || { fail "$name $target: the firmware printed no input"; return; }
  local fw="" k2=0
  while [ -f "$out/io/output_$k2.bin" ]; do fw=$fw$(hexof "$out/io/output_$k2.bin"); k2=$((k2+1)); done
  [ -n "$fw" ] || { fail "$name $target: the firmware printed no output"; return; }

  local nprt=$out/build/model/$name.nprt ref host
  if ! "$npuc" run "$model" "${args[@]}" --quiet --output "$out/ref.bin" 2> "$out/err.txt"; then
    fail "$name $target: npuc run (reference) failed: $(cat "$out/err.txt")"; return
  fi
  ref=$(hexof "$out/ref.bin")
  if [ "$fw" != "$ref" ]; then
    fail "$name $target: firmware output differs from the reference interpreter"
    echo "    firmware:  ${fw:0:96}"; echo "    reference: ${ref:0:96}"
  fi
  if [ -f "$nprt" ]; then
    if ! "$npuc" run "$nprt" "${args[@]}" --quiet --output "$out/host.bin" 2> "$out/err.txt"; then
      fail "$name $target: npuc run (compiled model) failed: $(cat "$out/err.txt")"; return
    fi
    host=$(hexof "$out/host.bin")
    [ "$fw" = "$host" ] || fail "$name $target: firmware output differs from the host runtime"
  fi
  # the loadable image of the same model, installed from memory by the firmware
  local mode
  for mode in XIP COPY; do
    grep -q "^reloc $mode: [0-9]* output bytes identical to the built-in model" "$log" ||
      fail "$name $target: no identical outputs from the loadable model installed in $mode mode"
  done
  local epochs
  epochs=$(grep -c '^epoch ' "$log")
  echo "ok: $name on $target: $k input(s), $(( ${#fw} / 2 )) output bytes identical ($epochs epochs:" \
       "$(grep -c '^epoch [0-9]* HW' "$log") NPU, $(grep -c '^epoch [0-9]* \(SW\|HYB\)' "$log") CPU);" \
       "loadable image installed in XIP and COPY mode, same outputs)"
}

# NPU and CPU epochs (SVDF on the CPU, its state in the state pool).
run_case "$S/keyword_scrambled_8bit.tflite" ethos-u55-128
# Depthwise conv, FC and softmax on an Ethos-U65.
run_case "$S/micro_speech_quantized.tflite" ethos-u65-256
# A whole MobileNet on the NPU.
run_case "$S/person_detect.tflite" ethos-u55-64
# An int16 PAD (three NPU ops: the inner copy and two fills).
if [ -f "$S/seanet/pad/pad0.tflite" ]; then
  run_case "$S/seanet/pad/pad0.tflite" ethos-u55-256
fi

# A model compiled for another NPU than the firmware drives: the driver
# refuses it, the firmware says so and exits 1.
runs=$((runs+1))
bad=$tmp/mismatch
if bash "$src/tools/build_m55_example.sh" --npuc "$npuc" --build "$bad" --target ethos-u55-256 \
     --cmake-arg -DETHOSU_TARGET_NPU_CONFIG=ethos-u55-128 --timeout 600 \
     "$S/micro_speech_quantized.tflite" > "$bad.log" 2> "$bad.err"; then
  fail "mismatched NPU: the firmware exited 0"
else
  rc=$?
  if [ $rc -ne 1 ]; then
    fail "mismatched NPU: exit status $rc, want 1"; tail -5 "$bad.err"
  elif ! grep -q '^error: .*epoch' "$bad.log"; then
    fail "mismatched NPU: no error line naming the epoch"; sed 's/^/    /' "$bad.log" | tail -5
  else
    echo "ok: mismatched NPU: exit 1, $(grep '^error:' "$bad.log" | head -1)"
  fi
fi

echo "$runs cases, $fails failures"
[ $fails -eq 0 ]
