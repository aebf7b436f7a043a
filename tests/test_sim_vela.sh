#!/usr/bin/env bash
# Virtual NPU against the reference interpreter on real Vela output:
#  - person_detect_vela.tflite (Ethos-U55-256) gives exactly the bytes of
#    person_detect.tflite for person.bmp, no_person.bmp and seeds 1..200
#    (1..20 under a sanitizer, NPUC_SANITIZED=1: the release build compares
#    all 200);
#  - every model in ../shared/models/vela/{u55-128,u65-256} gives exactly the
#    bytes of its original in ../shared/models/tflm for seeds 1..3.
# On a mismatch the script prints both outputs and the tensors of the
# original model are dumped (--dump-tensors) for inspection.
set -u
npuc=${NPUC_BIN:?}
S=${NPUC_SHARED:?}/models
if [ ! -f "$S/tflm/person_detect_vela.tflite" ] || [ ! -d "$S/vela" ]; then
  echo "SKIP: $S not found"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
runs=0

. "$(dirname "$0")/lib_compare.sh"

m=$S/tflm
for img in person no_person; do
  compare "$m/person_detect_vela.tflite" "$m/person_detect.tflite" "person_detect $img.bmp" --input "$m/$img.bmp" &&
    echo "person_detect_vela $img.bmp: identical"
done
ok=0
nseeds=200
if [ "${NPUC_SANITIZED:-0}" = 1 ]; then
  nseeds=20
fi
for seed in $(seq 1 "$nseeds"); do
  compare "$m/person_detect_vela.tflite" "$m/person_detect.tflite" "person_detect seed $seed" \
    --random-input --seed "$seed" && ok=$((ok+1))
done
echo "person_detect_vela: $ok/$nseeds random inputs identical"

for cfg in u55-128 u65-256; do
  n=0; same=0
  while IFS= read -r v; do
    rel=${v#"$S/vela/$cfg/"}
    orig=$m/${rel%_vela.tflite}.tflite
    n=$((n+1))
    args=$(shape_args "$orig") || { echo "FAIL: inspect $orig"; fails=$((fails+1)); continue; }
    good=1
    for seed in 1 2 3; do
      # shellcheck disable=SC2086
      compare "$v" "$orig" "$cfg/$rel seed $seed" $args --random-input --seed "$seed" || { good=0; break; }
    done
    same=$((same+good))
  done < <(find "$S/vela/$cfg" -name '*_vela.tflite' | sort)
  echo "vela/$cfg: $same/$n models identical to their originals (3 random inputs each)"
done

[ $fails -eq 0 ] && echo "all Vela outputs identical"
exit $(( fails > 125 ? 125 : fails ))
