#!/usr/bin/env bash
# The README's demo: run Vela's Ethos-U55 build of the person-detection
# network on the virtual NPU (through its register interface, with the cycle
# profile), run the original int8 network on the reference interpreter, and
# check that both give the same bytes and the right class for the two TFLite
# Micro test images.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${NPUC_SHARED:-$here/../shared}
npuc="$build/npuc"
models="$shared/models/tflm"

if [ ! -f "$models/person_detect.tflite" ]; then
  echo "demo: $models/person_detect.tflite not found; using a generated model instead"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$build/genmodel" --seed 7 -o "$tmp/gen.tflite"
  "$npuc" inspect "$tmp/gen.tflite" | tail -n 6
  "$npuc" run "$tmp/gen.tflite" --random-input --seed 1
  exit 0
fi

echo "== npuc inspect person_detect.tflite (totals)"
"$npuc" inspect "$models/person_detect.tflite" | sed -n '/^totals:/,$p'
echo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== npuc run person_detect_vela.tflite --profile (virtual Ethos-U55-256; first and last rows)"
"$npuc" run "$models/person_detect_vela.tflite" --input "$models/person.bmp" --profile --quiet > "$tmp/prof.txt"
head -n 6 "$tmp/prof.txt"; echo "  ..."; tail -n 3 "$tmp/prof.txt"
echo
fail=0
for img in person no_person; do
  echo "== $img.bmp: virtual NPU (person_detect_vela) vs reference interpreter (person_detect)"
  out=$("$npuc" run "$models/person_detect_vela.tflite" --input "$models/$img.bmp" --output "$tmp/npu.bin")
  echo "$out" | sed 's/^/   npu: /'
  "$npuc" run "$models/person_detect.tflite" --input "$models/$img.bmp" --output "$tmp/ref.bin" | sed 's/^/   ref: /'
  if cmp -s "$tmp/npu.bin" "$tmp/ref.bin"; then echo "   -> identical bytes"; else echo "   -> OUTPUTS DIFFER"; fail=1; fi
  # output 0 holds [no_person, person] as int8
  read -r no yes < <(echo "$out" | awk '/values:/ {print $2, $3; exit}')
  if [ "$img" = person ] && [ "$yes" -gt "$no" ]; then echo "   -> person (score $yes > $no): correct"
  elif [ "$img" = no_person ] && [ "$no" -gt "$yes" ]; then echo "   -> no person (score $no > $yes): correct"
  else echo "   -> WRONG class"; fail=1; fi
  echo
done
exit $fail
