#!/usr/bin/env bash
# Real models from ../shared/models on the reference interpreter.
set -u
npuc=${NPUC_BIN:?}
m=${NPUC_SHARED:?}/models/tflm
if [ ! -f "$m/person_detect.tflite" ]; then echo "SKIP: $m not found"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# person detection: output [no_person, person]; TFLM feeds the BMP pixel bytes
# top row first into the int8 input unchanged.
for img in person no_person; do
  out=$("$npuc" run "$m/person_detect.tflite" --input "$m/$img.bmp" --output "$tmp/$img.out") || { echo "FAIL: run $img"; fails=$((fails+1)); continue; }
  no=$(od -An -t d1 -j 0 -N 1 "$tmp/$img.out" | tr -d ' ')
  yes=$(od -An -t d1 -j 1 -N 1 "$tmp/$img.out" | tr -d ' ')
  echo "$img.bmp: person score $yes, no-person score $no"
  if [ "$img" = person ] && [ "$yes" -le "$no" ]; then echo "FAIL: person.bmp not detected"; fails=$((fails+1)); fi
  if [ "$img" = no_person ] && [ "$no" -le "$yes" ]; then echo "FAIL: no_person.bmp detected as person"; fails=$((fails+1)); fi
done

for f in hello_world_int8 micro_speech_quantized keyword_scrambled_8bit simple_add_model person_detect; do
  if "$npuc" run "$m/$f.tflite" --random-input --seed 1 > "$tmp/o.txt" 2>&1; then
    echo "$f: ok ($(head -1 "$tmp/o.txt"))"
  else
    echo "FAIL: $f:"; cat "$tmp/o.txt"; fails=$((fails+1))
  fi
done

# Vela's compiled model is recognised and its ethos-u op is listed.
"$npuc" inspect "$m/person_detect_vela.tflite" > "$tmp/v.txt" || { echo "FAIL: inspect vela model"; fails=$((fails+1)); }
grep -q "ethos-u" "$tmp/v.txt" || { echo "FAIL: ethos-u op not listed"; fails=$((fails+1)); }

[ $fails -eq 0 ] && echo "model checks passed"
exit $fails
