#!/usr/bin/env bash
# Cascading (src/compiler/cc_cascade.c): chains of CONV / DEPTHWISE / POOL
# ops run band by band through rolling buffers.
#
# 1. Generated chains of those ops (tools/genmodel through the compiler's
#    differential test, --cascade all so every chain is cascaded; int8 and
#    int16x8, all six variants, sizes 8..32, strides, dilations, padding,
#    NHWC and NHCWB16 intermediates, wrapping rolling buffers), run on the
#    virtual NPU against the reference interpreter: identical bytes, and
#    enough cascades that the test means something; again with PAD ops
#    folded into the convs (on an Ethos-U65 a chain runs through them).
# 2. person_detect with --cascade auto / all / off on two variants through
#    `npuc validate`: bit-exact; auto cascades its 48x48 layers.
#    --prefetch-headroom 0 / 20 / 100: bit-exact, the arena within the
#    headroom's share of the plan without it, never slower.
# 3. A bad --cascade or --prefetch-headroom value: usage error, no output.
set -u
npuc=${NPUC_BIN:?}
build=${NPUC_BUILD:-$(dirname "$npuc")}
shared=${NPUC_SHARED:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

# gen NAME OPS MAXDIM FIRST COUNT MIN [BANDS]: COUNT generated chains of
# OPS (--cascade all) run against the reference; at least MIN cascades
gen() {
  local name=$1 ops=$2 dim=$3 first=$4 count=$5 min=$6 bands=${7:-0} log=$tmp/gm_$RANDOM.txt rc n
  NPUC_GENMODEL_ONLY=$ops NPUC_GENMODEL_CASCADE=all NPUC_GENMODEL_MAXDIM=$dim NPUC_GENMODEL_BANDS=$bands \
  NPUC_GENMODEL_FIRST=$first NPUC_GENMODEL_COUNT=$count "$build/test_compile_genmodel" > "$log" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { fail "generated chains, $name (exit $rc)"; tail -40 "$log"; }
  n=$(sed -n 's/^cascades: \([0-9]*\),.*/\1/p' "$log")
  echo "$name: $(grep -o '[0-9]* models' "$log" | head -1), ${n:-0} cascades"
  [ "${n:-0}" -ge "$min" ] || fail "$name: only ${n:-0} cascades"
}

for dim in 8 16 32; do
  gen "max dim $dim" CONV_2D,DEPTHWISE_CONV_2D,MAX_POOL_2D,AVERAGE_POOL_2D "$dim" $((dim * 1000)) \
    "${NPUC_CASCADE_COUNT:-200}" 40
done

# 1b. Chains with PAD ops folded into the next conv's padding: a folded
#    PAD is a view between two chain members and the chain runs through it
#    (600 models, every variant in turn).
gen "with PAD" CONV_2D,DEPTHWISE_CONV_2D,PAD 16 77000 "${NPUC_CASCADE_COUNT_PAD:-600}" 100

# 1c. The same chains cut into finer bands (CC_CASCADE_BANDS_FINE, which
#    the schedule search weighs; test_cc_cascade_fine.c) and into two
#    (200 models each, every variant in turn).
for b in 10 2; do
  gen "$b bands" CONV_2D,DEPTHWISE_CONV_2D,PAD 16 78000 "${NPUC_CASCADE_COUNT_BANDS:-200}" 40 "$b"
done

pd=$shared/models/tflm/person_detect.tflite
if [ -n "$shared" ] && [ -f "$pd" ]; then
  for t in ethos-u55-256 ethos-u65-512; do
    for c in auto all off; do
      "$npuc" validate "$pd" --target "$t" --cascade "$c" --random 3 > "$tmp/v.txt" 2>&1 ||
        fail "person_detect $t --cascade $c: $(cat "$tmp/v.txt")"
      grep -q ": bit-exact" "$tmp/v.txt" || fail "person_detect $t --cascade $c not bit-exact"
    done
  done
  "$npuc" compile "$pd" -o "$tmp/pd" > "$tmp/sum.txt" || fail "compile person_detect"
  grep -q "Cascades *1 (4 operators" "$tmp/sum.txt" || fail "auto did not cascade the 48x48 layers: $(cat "$tmp/sum.txt")"
  "$npuc" compile "$pd" --cascade off -o "$tmp/pd_off" > "$tmp/sum_off.txt" || fail "compile --cascade off"
  grep -q "Cascades" "$tmp/sum_off.txt" && fail "--cascade off cascaded"
  grep -q '"cascade": 0' "$tmp/pd/person_detect_report.json" || fail "report has no cascade field"
  # weight prefetch headroom: the default (20) and 100 keep the arena within
  # their share of the plan that may not grow (0), are no slower, and every
  # setting runs bit-exact (totals come first in the report); each under a
  # limit none reaches, so each is its headroom's fastest schedule (without
  # a limit the lean step may trade cycles for SRAM, docs/compiler.md)
  tot() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -1; }
  for h in 0 20 100; do
    "$npuc" compile "$pd" --prefetch-headroom "$h" --arena-cache-size 16M -o "$tmp/h$h" --quiet ||
      fail "compile --prefetch-headroom $h"
    "$npuc" validate "$pd" --prefetch-headroom "$h" --random 2 > "$tmp/vh.txt" 2>&1 ||
      fail "validate --prefetch-headroom $h: $(cat "$tmp/vh.txt")"
    grep -q ": bit-exact" "$tmp/vh.txt" || fail "--prefetch-headroom $h not bit-exact"
  done
  r0=$tmp/h0/person_detect_report.json
  s0=$(tot "$r0" peak_sram_bytes); c0=$(tot "$r0" npu_cycles)
  for h in 20 100; do
    r=$tmp/h$h/person_detect_report.json
    s=$(tot "$r" peak_sram_bytes); c=$(tot "$r" npu_cycles)
    [ "$s" -le $((s0 + s0 * h / 100)) ] || fail "headroom $h: $s B of SRAM > $s0 + $h%"
    [ "$c" -le "$c0" ] || fail "headroom $h: $c cycles, slower than $c0 without it"
    echo "prefetch headroom $h%: $c cycles at $s B (0%: $c0 cycles at $s0 B)"
  done
else
  echo "skip person_detect: ../shared/models not present"
fi

"$build/genmodel" --seed 5 --ops 3 -o "$tmp/m.tflite" || fail "genmodel"
"$npuc" compile "$tmp/m.tflite" --cascade sometimes -o "$tmp/bad" > /dev/null 2> "$tmp/err.txt"
rc=$?
[ "$rc" -eq 2 ] || fail "--cascade sometimes: exit $rc, expected 2"
grep -q "unknown --cascade 'sometimes' (auto, all or off)" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
[ -e "$tmp/bad" ] && fail "--cascade sometimes left $tmp/bad"
for v in x -5 1001 ""; do
  "$npuc" compile "$tmp/m.tflite" --prefetch-headroom "$v" -o "$tmp/bad" > /dev/null 2> "$tmp/err.txt"
  rc=$?
  [ "$rc" -eq 2 ] || fail "--prefetch-headroom '$v': exit $rc, expected 2"
  grep -q "needs a percentage from 0 to 1000, not '$v'" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
  [ -e "$tmp/bad" ] && fail "--prefetch-headroom '$v' left $tmp/bad"
done

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cascade tests passed"
