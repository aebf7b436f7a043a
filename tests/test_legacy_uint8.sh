#!/usr/bin/env bash
# Legacy uint8 models (TFLite 1.x, asymmetric uint8 throughout): run,
# validate and compile fail with one line naming the first uint8 op and
# suggesting int8 re-quantization, exit 1, no output files. uint8
# QUANTIZE/DEQUANTIZE at an int8 model's boundaries (Coral *_ptq) still run.
set -u
npuc=${NPUC_BIN:?}
zoo=${NPUC_SHARED:?}/models/zoo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# one_line CODE PATTERN -- command...: exit CODE, exactly one output line matching PATTERN
one_line() {
  local code=$1 pat=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  [ "$rc" = "$code" ] || { fail "'$*' exited $rc, expected $code"; echo "$out" | head -3; return; }
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { fail "'$*' printed more than one line:"; echo "$out" | head -5; }
  grep -qE -- "$pat" <<<"$out" || { fail "'$*' output lacks /$pat/:"; echo "$out" | head -3; }
}
want="op 0 \(CONV_2D\): tensor 0 \('[^']*input'\) is asymmetric uint8, a legacy TFLite 1.x quantized model .*re-quantize it to int8 \(int8 post-training quantization\)"
n=0
for m in coral_mobilenet_v1_025_128_quant_uint8 coral_deeplabv3_mnv2_dm05_pascal_quant_uint8; do
  f=$zoo/$m.tflite
  [ -f "$f" ] || { echo "skip: $f not found"; continue; }
  n=$((n+1))
  one_line 1 "^npuc: error: $want" -- "$npuc" run "$f" --random-input --output "$tmp/out.bin"
  [ -e "$tmp/out.bin" ] && fail "run left $tmp/out.bin"
  one_line 1 "^npuc: error: .*$want" -- "$npuc" validate "$f" --random 1 --json "$tmp/r.json"
  [ -e "$tmp/r.json" ] && fail "validate left a report"
  one_line 1 "^npuc: error: .*$want" -- "$npuc" compile "$f" -o "$tmp/c" --quiet
  [ -e "$tmp/c" ] && [ -n "$(ls -A "$tmp/c")" ] && fail "compile left files in $tmp/c"
  rm -rf "$tmp/c"
  # inspect still reads it
  "$npuc" inspect "$f" >/dev/null 2>&1 || fail "inspect $m"
done
# int8 models with uint8 boundary conversions are not legacy
f=$zoo/coral_tf2_mobilenet_v2_1_0_224_ptq.tflite
if [ -f "$f" ]; then
  "$npuc" run "$f" --random-input --quiet || fail "run $f"
  "$npuc" validate "$f" --random 1 >/dev/null || fail "validate $f"
fi
echo "$n legacy models checked, $fails failure(s)"
[ $fails = 0 ]
