#!/usr/bin/env bash
# CLI contract: exit codes (0 ok, 1 model/input error, 2 usage error), clear
# error messages, no partial output files on failure.
set -u
npuc=${NPUC_BIN:?}
build=${NPUC_BUILD:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# expect CODE PATTERN -- command...
expect() {
  local code=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" != "$code" ]; then echo "FAIL: '$*' exited $rc, expected $code"; echo "$out" | head -5; fails=$((fails+1)); return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then echo "FAIL: '$*' output lacks /$pat/:"; echo "$out" | head -5; fails=$((fails+1)); fi
}

"$build/genmodel" --seed 3 -o "$tmp/m.tflite" >/dev/null || { echo "FAIL: genmodel"; exit 1; }

# usage errors -> 2
expect 2 "usage: npuc" -- "$npuc"
expect 2 "unknown command 'frobnicate'" -- "$npuc" frobnicate
expect 2 "unknown option '--bogus'" -- "$npuc" run "$tmp/m.tflite" --bogus
expect 2 "no model given" -- "$npuc" run
expect 2 "no model given" -- "$npuc" inspect
expect 2 "--seed: 'abc' is not a number" -- "$npuc" run "$tmp/m.tflite" --random-input --seed abc
expect 2 "--input needs a value" -- "$npuc" run "$tmp/m.tflite" --input
expect 2 "input.*but 0 --input given" -- "$npuc" run "$tmp/m.tflite"
# help -> 0
expect 0 "usage: npuc run" -- "$npuc" run --help
expect 0 "usage: npuc inspect" -- "$npuc" inspect --help
expect 0 "commands:" -- "$npuc" help
expect 0 "" -- "$npuc" inspect "$tmp/m.tflite"
expect 0 "output 0" -- "$npuc" run "$tmp/m.tflite" --random-input --seed 5

# model errors -> 1
expect 1 "cannot open" -- "$npuc" run "$tmp/missing.tflite" --random-input
printf 'hello world, not a model' > "$tmp/bad_magic.tflite"
expect 1 "expected \"TFL3\"" -- "$npuc" inspect "$tmp/bad_magic.tflite"
head -c 5 "$tmp/m.tflite" > "$tmp/tiny.tflite"
expect 1 "too short" -- "$npuc" inspect "$tmp/tiny.tflite"
size=$(stat -c %s "$tmp/m.tflite")
head -c $((size / 2)) "$tmp/m.tflite" > "$tmp/trunc.tflite"
expect 1 "malformed TFLite file: offset 0x" -- "$npuc" inspect "$tmp/trunc.tflite"
# every truncation point gives an error, never a crash
crash=0
for ((n = 0; n < size; n += 7)); do
  head -c $n "$tmp/m.tflite" > "$tmp/t.tflite"
  "$npuc" inspect "$tmp/t.tflite" >/dev/null 2>&1; rc=$?
  if [ $rc -ne 1 ]; then echo "FAIL: truncation at $n exited $rc"; crash=1; break; fi
done
[ $crash = 0 ] || fails=$((fails+1))

# input errors -> 1, and no partial output
printf 'xyz' > "$tmp/short.bin"
expect 1 "short.bin: 3 bytes, but input tensor" -- "$npuc" run "$tmp/m.tflite" --input "$tmp/short.bin" --output "$tmp/out.bin"
[ -e "$tmp/out.bin" ] && { echo "FAIL: partial output left behind"; fails=$((fails+1)); }
printf '\x93NUMPY\x01\x00\x10\x00{"descr": "<f8"}' > "$tmp/bad.npy"
expect 1 "bad.npy" -- "$npuc" run "$tmp/m.tflite" --input "$tmp/bad.npy"

# outputs: --output holds exactly the outputs' bytes; --dump-tensors writes an index
expect 0 "" -- "$npuc" run "$tmp/m.tflite" --random-input --seed 9 --output "$tmp/o1.bin" --dump-tensors "$tmp/dump"
[ -s "$tmp/o1.bin" ] || { echo "FAIL: no --output file"; fails=$((fails+1)); }
[ -f "$tmp/dump/tensors.txt" ] || { echo "FAIL: no dump index"; fails=$((fails+1)); }
# deterministic for a seed
"$npuc" run "$tmp/m.tflite" --random-input --seed 9 --output "$tmp/o2.bin" --quiet
cmp -s "$tmp/o1.bin" "$tmp/o2.bin" || { echo "FAIL: same seed gave different outputs"; fails=$((fails+1)); }
# dump into a non-empty directory is refused
expect 1 "not empty" -- "$npuc" run "$tmp/m.tflite" --random-input --dump-tensors "$tmp/dump"

# virtual NPU options
expect 2 "unknown NPU 'ethos-u99'" -- "$npuc" run "$tmp/m.tflite" --random-input --npu ethos-u99
expect 2 "--npu needs a value" -- "$npuc" run "$tmp/m.tflite" --npu
expect 2 "unknown system config 'Bogus'" -- "$npuc" run "$tmp/m.tflite" --random-input --system-config Bogus
expect 2 "unknown memory mode 'Nope'" -- "$npuc" run "$tmp/m.tflite" --random-input --memory-mode Nope
vela=${NPUC_SHARED:-/nonexistent}/models/tflm/person_detect_vela.tflite
if [ -f "$vela" ]; then
  expect 0 "NPU_OP_CONV" -- "$npuc" run "$vela" --random-input --trace --quiet
  n=$("$npuc" run "$vela" --random-input --trace --quiet | grep -c ' cmd[01] ')
  [ "$n" = 1393 ] || { echo "FAIL: --trace printed $n commands, expected 1393"; fails=$((fails+1)); }
  expect 0 "total: [0-9]+ NPU cycles \(PMU cycle counter [0-9]+\)" -- "$npuc" run "$vela" --random-input --profile --quiet
  expect 0 "ethos-u op 0 on U55-256: 142 NPU operations" -- "$npuc" run "$vela" --random-input --profile --quiet
  # a model compiled for U55-256 does not run on a U55-128, as with the driver
  expect 1 "compiled for CONFIG 0x00003008, but the NPU is U55-128" -- "$npuc" run "$vela" --random-input --npu ethos-u55-128
  expect 0 "Ethos_U55_Deep_Embedded|NPU cycles" -- "$npuc" run "$vela" --random-input --profile --system-config Ethos_U55_Deep_Embedded --quiet
  # an illegal command in the stream: error with its byte offset, no output file
  cp "$vela" "$tmp/bad_vela.tflite"
  pos=$(grep -obUaP 'COP1' "$tmp/bad_vela.tflite" | head -1 | cut -d: -f1)
  # the stream starts 32 bytes into the payload; command 2 (byte 8) becomes opcode 0x004
  printf '\x04\x00\x00\x00' | dd of="$tmp/bad_vela.tflite" bs=1 seek=$((pos + 32 + 4)) conv=notrunc 2>/dev/null
  expect 1 "command stream byte 0x0004: .*unknown" -- "$npuc" run "$tmp/bad_vela.tflite" --random-input --output "$tmp/npu_out.bin"
  [ -e "$tmp/npu_out.bin" ] && { echo "FAIL: partial output after an NPU fault"; fails=$((fails+1)); }
fi

if [ $fails -ne 0 ]; then echo "$fails CLI checks failed"; exit 1; fi
echo "CLI checks passed"
