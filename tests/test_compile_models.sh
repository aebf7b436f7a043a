#!/usr/bin/env bash
# The compiler end to end on every real model: `npuc compile` each model in
# ../shared/models/tflm (and the seanet int16x8 cases) for every Ethos-U
# variant, run the result (NPU epochs on the virtual NPU, CPU epochs on the
# reference kernels) and compare its output bytes with the original model on
# the reference interpreter: they must be identical.
# person_detect must also run entirely on the NPU.
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

le32() {
  local v=$(( $1 & 0xFFFFFFFF ))
  printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $(((v >> 8) & 255)))\\x$(printf %02x $(((v >> 16) & 255)))\\x$(printf %02x $(((v >> 24) & 255)))"
}

# TRANSPOSE_CONV models take their output shape as an int32 [4] input.
shape_args() {
  local model=$1 info shape
  info=$("$npuc" inspect "$model") || return 1
  if ! grep -A1 '^inputs:' <<<"$info" | grep -q "int32 \[4\]"; then return 0; fi
  shape=$(grep -A1 '^outputs:' <<<"$info" | tail -1 | grep -o '\[[0-9,]*\]' | tail -1 | tr -d '[]' | tr ',' ' ')
  : > "$tmp/shape.bin"
  for d in $shape; do le32 "$d" >> "$tmp/shape.bin"; done
  echo "--input $tmp/shape.bin"
}

compare() {   # compare COMPILED ORIGINAL LABEL RUN-ARGS...
  local comp=$1 orig=$2 label=$3; shift 3
  runs=$((runs+1))
  if ! "$npuc" run "$comp" "$@" --quiet --output "$tmp/a.bin" 2> "$tmp/err.txt"; then
    echo "FAIL: $label: compiled model run failed: $(cat "$tmp/err.txt")"; fails=$((fails+1)); return 1
  fi
  if ! "$npuc" run "$orig" "$@" --quiet --output "$tmp/b.bin" 2> "$tmp/err.txt"; then
    echo "FAIL: $label: reference run failed: $(cat "$tmp/err.txt")"; fails=$((fails+1)); return 1
  fi
  if ! cmp -s "$tmp/a.bin" "$tmp/b.bin"; then
    echo "FAIL: $label: outputs differ"
    echo "  compiled:  $(od -An -t x1 "$tmp/a.bin" | head -3 | tr -s ' ')"
    echo "  reference: $(od -An -t x1 "$tmp/b.bin" | head -3 | tr -s ' ')"
    fails=$((fails+1)); return 1
  fi
}

models=()
for f in "$S"/tflm/*.tflite "$S"/tflm/seanet/*/*.tflite; do
  case "$f" in *_vela.tflite) continue ;; esac
  models+=("$f")
done
targets="ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256 ethos-u65-256 ethos-u65-512"

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
    for seed in 1 2 3; do
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
