#!/usr/bin/env bash
# The compiler end to end on every real model: `npuc compile` each model in
# ../shared/models/tflm (and the seanet int16x8 cases) for every Ethos-U
# variant, run the result (NPU epochs on the virtual NPU, CPU epochs on the
# reference kernels) and compare its output bytes with the original model on
# the reference interpreter: they must be identical.
# person_detect must also run entirely on the NPU. Under a sanitizer
# (NPUC_SANITIZED=1) each model and variant runs one random input instead
# of three: the release build compares the bytes of all three.
set -u
npuc=${NPUC_BIN:?}
S=${NPUC_SHARED:?}/models
if [ ! -f "$S/tflm/person_detect.tflite" ]; then
  echo "SKIP: $S not found"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
runs=0

. "$(dirname "$0")/lib_compare.sh"

models=()
for f in "$S"/tflm/*.tflite "$S"/tflm/seanet/*/*.tflite; do
  case "$f" in *_vela.tflite) continue ;; esac
  models+=("$f")
done
targets="ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256 ethos-u65-256 ethos-u65-512"
seeds="1 2 3"
if [ "${NPUC_SANITIZED:-0}" = 1 ]; then
  seeds="1"
  echo "sanitizer build: 1 random input per model and variant instead of 3"
fi

for t in $targets; do
  nmodels=0
  for f in "${models[@]}"; do
    name=$(basename "$f" .tflite)
    out=$tmp/$t
    if ! "$npuc" compile "$f" --target "$t" -o "$out" --quiet 2> "$tmp/err.txt"; then
      echo "FAIL: $name $t: compile failed: $(cat "$tmp/err.txt")"; fails=$((fails+1)); continue
    fi
    comp=$out/${name}_npu.tflite
    for need in "$comp" "$out/${name}_report.json" "$out/${name}_report.csv"; do
      [ -s "$need" ] || { echo "FAIL: $name $t: $need missing"; fails=$((fails+1)); }
    done
    extra=$(shape_args "$f")
    for seed in $seeds; do
      # shellcheck disable=SC2086
      compare "$comp" "$f" "$name $t seed $seed" --random-input --seed "$seed" $extra || break
    done
    nmodels=$((nmodels+1))
  done
  echo "$t: $nmodels models compiled and compared"
done

# person_detect: every op on the NPU, real images
pd=$S/tflm/person_detect.tflite
"$npuc" compile "$pd" --target ethos-u55-256 -o "$tmp/pd" > "$tmp/pd.txt" || { echo "FAIL: person_detect compile"; fails=$((fails+1)); }
if ! grep -q "CPU operators *0 " "$tmp/pd.txt"; then
  echo "FAIL: person_detect has CPU operators:"; cat "$tmp/pd.txt"; fails=$((fails+1))
fi
for img in person no_person; do
  compare "$tmp/pd/person_detect_npu.tflite" "$pd" "person_detect $img.bmp" --input "$S/tflm/$img.bmp"
done

echo "$runs comparisons, $fails failures"
[ "$fails" -eq 0 ]
