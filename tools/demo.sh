#!/usr/bin/env bash
# The README's demo, the main job end to end: compile the int8
# person-detection network for an Ethos-U55-256 with `npuc compile`, run the
# compiled model on the virtual NPU (through its register interface, with the
# cycle profile), run the original on the reference interpreter, and check
# that both give the same bytes and the right class for the two TFLite Micro
# test images. The compiled model also runs in its runtime form (.nprt)
# through the npuc runtime and the ethos-u driver API, as firmware would.
# For comparison, Vela's own build of the network runs on the same virtual
# NPU and cycle model. Finally `npuc validate` checks the runtime form on
# both images and writes its HTML report to BUILD/demo/.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${NPUC_SHARED:-$here/../shared}
npuc="$build/npuc"
models="$shared/models/tflm"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$models/person_detect.tflite" ]; then
  echo "demo: $models/person_detect.tflite not found; using a generated model instead"
  "$build/genmodel" --seed 7 -o "$tmp/gen.tflite"
  "$npuc" compile "$tmp/gen.tflite" --target ethos-u55-256 -o "$tmp/out"
  "$npuc" run "$tmp/out/gen_npu.tflite" --random-input --seed 1 --output "$tmp/npu.bin"
  "$npuc" run "$tmp/gen.tflite" --random-input --seed 1 --output "$tmp/ref.bin"
  cmp "$tmp/npu.bin" "$tmp/ref.bin" && echo "-> identical bytes"
  exit 0
fi

echo "== npuc compile person_detect.tflite --target ethos-u55-256 --output-format all"
"$npuc" compile "$models/person_detect.tflite" --target ethos-u55-256 --output-format all -o "$tmp/out"
compiled="$tmp/out/person_detect_npu.tflite"
nprt="$tmp/out/person_detect.nprt"
echo
echo "== npuc run person_detect.nprt --profile (npuc runtime -> ethos-u driver -> virtual NPU)"
"$npuc" run "$nprt" --input "$models/person.bmp" --profile | tail -n 4
echo
echo "== npuc run person_detect_npu.tflite --profile (virtual Ethos-U55-256; first and last rows)"
"$npuc" run "$compiled" --input "$models/person.bmp" --profile --quiet > "$tmp/prof.txt"
head -n 6 "$tmp/prof.txt"; echo "  ..."; tail -n 3 "$tmp/prof.txt"
if [ -f "$models/person_detect_vela.tflite" ]; then
  "$npuc" run "$models/person_detect_vela.tflite" --input "$models/person.bmp" --profile --quiet > "$tmp/vela.txt"
  echo "  Vela's build of the same network, same cycle model: $(grep -o 'total: [0-9]* NPU cycles' "$tmp/vela.txt" | head -1)"
fi
echo
fail=0
for img in person no_person; do
  echo "== $img.bmp: virtual NPU (npuc-compiled) vs reference interpreter (original)"
  out=$("$npuc" run "$compiled" --input "$models/$img.bmp" --output "$tmp/npu.bin")
  echo "$out" | sed 's/^/   npu: /'
  "$npuc" run "$models/person_detect.tflite" --input "$models/$img.bmp" --output "$tmp/ref.bin" | sed 's/^/   ref: /'
  "$npuc" run "$nprt" --input "$models/$img.bmp" --output "$tmp/rt.bin" --quiet
  if cmp -s "$tmp/npu.bin" "$tmp/ref.bin" && cmp -s "$tmp/rt.bin" "$tmp/ref.bin"; then
    echo "   -> identical bytes (TFLite form on the virtual NPU, runtime form through driver + runtime, reference)"
  else echo "   -> OUTPUTS DIFFER"; fail=1; fi
  # output 0 holds [no_person, person] as int8
  read -r no yes < <(echo "$out" | awk '/values:/ {print $2, $3; exit}')
  if [ "$img" = person ] && [ "$yes" -gt "$no" ]; then echo "   -> person (score $yes > $no): correct"
  elif [ "$img" = no_person ] && [ "$no" -gt "$yes" ]; then echo "   -> no person (score $no > $yes): correct"
  else echo "   -> WRONG class"; fail=1; fi
  echo
done
echo "== npuc validate person_detect.tflite (both images; deployed runtime form vs reference, profile, HTML report)"
mkdir -p "$build/demo"
vin=$tmp/validate-inputs
mkdir -p "$vin"
cp "$models/no_person.bmp" "$vin/0_no_person.bmp"
cp "$models/person.bmp" "$vin/1_person.bmp"
if "$npuc" validate "$models/person_detect.tflite" --target ethos-u55-256 --inputs "$vin" \
     --report "$build/demo/person_detect_report.html" --json "$build/demo/person_detect_report.json"; then
  echo "   -> report: $build/demo/person_detect_report.html (open it in a browser)"
else
  echo "   -> validation FAILED"; fail=1
fi
exit $fail
