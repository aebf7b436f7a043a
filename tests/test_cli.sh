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

# the target options: the same grammar in every command
expect 2 "--npu: unknown NPU 'ethos-u99'" -- "$npuc" run "$tmp/m.tflite" --random-input --npu ethos-u99
expect 2 "--accelerator-config needs a value" -- "$npuc" run "$tmp/m.tflite" --accelerator-config
expect 2 "unknown system config 'Bogus'" -- "$npuc" validate "$tmp/m.tflite" --system-config Bogus
expect 2 "give the memory mode once" -- "$npuc" run "$tmp/m.tflite" --random-input \
  --system-config Ethos_U55_Deep_Embedded:Sram_Only --memory-mode Shared_Sram
expect 1 "nosuch.ini" -- "$npuc" run "$tmp/m.tflite" --random-input --config "$tmp/nosuch.ini"
expect 0 "--config FILE.ini" -- "$npuc" run --help
expect 0 "compiled for" -- "$npuc" validate --help

# The recorded target: every compiled form carries the system it was
# compiled for; run and validate replay it, flags override it.
pd=${NPUC_SHARED:-/nonexistent}/models/tflm/person_detect.tflite
if [ -f "$pd" ]; then
  r=$tmp/rec
  "$npuc" compile "$pd" --target ethos-u55-128 --system-config Ethos_U55_Deep_Embedded:Sram_Only -o "$r" \
    --output-format all --quiet || { echo "FAIL: compile for a non-default system"; fails=$((fails+1)); }
  grep -q '"npuc_target":1,"name":"Ethos_U55_Deep_Embedded:Sram_Only","target":"ethos-u55-128"' "$r/person_detect.nprt" ||
    { echo "FAIL: no target record in the .nprt"; fails=$((fails+1)); }
  grep -q '"npuc_target":1,"name":"Ethos_U55_Deep_Embedded:Sram_Only"' "$r/person_detect_npu.tflite" ||
    { echo "FAIL: no target record in the _npu.tflite"; fails=$((fails+1)); }
  expect 0 "target: Ethos_U55_Deep_Embedded:Sram_Only on ethos-u55-128" -- "$npuc" inspect "$r/person_detect_npu.tflite"
  expect 0 "target: Ethos_U55_Deep_Embedded:Sram_Only on ethos-u55-128" -- "$npuc" inspect "$r/person_detect_rel.bin"
  # the runtime forms: the NPU's cycles are the compiler's estimate only on the system compiled for
  for f in person_detect.nprt person_detect_rel.bin; do
    expect 0 "total: NPU ([0-9]+) cycles \(compiler estimate \1\)" -- "$npuc" run "$r/$f" --random-input --profile
    out=$("$npuc" run "$r/$f" --random-input --profile --system-config Ethos_U55_High_End_Embedded 2>&1)
    grep -qE "total: NPU ([0-9]+) cycles \(compiler estimate \1\)" <<<"$out" &&
      { echo "FAIL: $f: --system-config does not override the record"; fails=$((fails+1)); }
    # the --target flag alone keeps the recorded system
    expect 0 "total: NPU ([0-9]+) cycles \(compiler estimate \1\)" -- "$npuc" run "$r/$f" --random-input --profile \
      --npu ethos-u55-128
  done
  cyc=$("$npuc" run "$r/person_detect.nprt" --random-input --profile | grep -oE 'total: NPU [0-9]+' | grep -oE '[0-9]+$')
  # the TFLite form replays the same system: the same cycles
  expect 0 "total: $cyc NPU cycles" -- "$npuc" run "$r/person_detect_npu.tflite" --random-input --profile --quiet
  expect 0 "total: $cyc NPU cycles" -- "$npuc" run "$r/person_detect_npu.tflite" --random-input --profile --quiet \
    --system-config Ethos_U55_Deep_Embedded --memory-mode Sram_Only
  expect 0 "Ethos_U55_Deep_Embedded, 200 MHz" -- "$npuc" validate "$pd" --compiled "$r/person_detect.nprt"
  expect 0 "NPU $cyc cycles \(compiler estimate $cyc\)" -- "$npuc" validate "$pd" --compiled "$r/person_detect_rel.bin"
  out=$("$npuc" validate "$pd" --compiled "$r/person_detect.nprt" --json "$tmp/v.json" 2>&1)
  grep -q '"op_detail": true' "$tmp/v.json" || { echo "FAIL: validate of the record lacks per-op detail"; fails=$((fails+1)); }
  expect 0 "Ethos_U55_High_End_Embedded, 500 MHz" -- "$npuc" validate "$pd" --compiled "$r/person_detect.nprt" \
    --system-config Ethos_U55_High_End_Embedded --target ethos-u55-128
  # A model compiled for the U65 default (Dedicated_Sram), run on Ethos_U65_Embedded (flash on AXI1):
  # both forms take the system's default mode (Shared_Sram) and agree; with the impossible mode
  # both fail with the same message.
  "$npuc" compile "$pd" --target ethos-u65-256 -o "$tmp/u65" --output-format all --quiet ||
    { echo "FAIL: compile for ethos-u65-256"; fails=$((fails+1)); }
  a=$("$npuc" run "$tmp/u65/person_detect.nprt" --random-input --profile --system-config Ethos_U65_Embedded 2>&1); ra=$?
  b=$("$npuc" run "$tmp/u65/person_detect_npu.tflite" --random-input --profile --system-config Ethos_U65_Embedded 2>&1); rb=$?
  ca=$(grep -oE 'total: NPU [0-9]+' <<<"$a" | grep -oE '[0-9]+$'); cb=$(grep -oE 'total: [0-9]+ NPU' <<<"$b" | grep -oE '[0-9]+')
  if [ "$ra" != 0 ] || [ "$rb" != 0 ] || [ -z "$ca" ] || [ "$ca" != "$cb" ]; then
    echo "FAIL: U65 on Ethos_U65_Embedded: .nprt exit $ra ($ca cycles), _npu.tflite exit $rb ($cb cycles)"
    echo "$a" | tail -2; echo "$b" | tail -2; fails=$((fails+1))
  fi
  for f in person_detect.nprt person_detect_npu.tflite; do
    expect 2 "'Ethos_U65_Embedded:Dedicated_Sram' is not a built-in system: Dedicated_Sram keeps the tensor arena in DRAM" -- \
      "$npuc" run "$tmp/u65/$f" --random-input --system-config Ethos_U65_Embedded:Dedicated_Sram
  done
  # a damaged record is a clear error, not a silent default (the TFLite
  # form: the container's checksum would catch it first)
  cp "$r/person_detect_npu.tflite" "$tmp/bad_rec.tflite"
  pos=$(grep -obUaP '"npuc_target":1' "$tmp/bad_rec.tflite" | head -1 | cut -d: -f1)
  printf '9' | dd of="$tmp/bad_rec.tflite" bs=1 seek=$((pos + 14)) conv=notrunc 2>/dev/null
  expect 1 "bad_rec.tflite: target record:1:16: npuc_target: record version 9 is not supported" -- \
    "$npuc" run "$tmp/bad_rec.tflite" --random-input
fi

if [ $fails -ne 0 ]; then echo "$fails CLI checks failed"; exit 1; fi
echo "CLI checks passed"
