#!/usr/bin/env bash
# The fast scratch pool (region 2): on an Ethos-U65 with Dedicated_Sram the
# compiler puts its NPU-internal buffers (weight copies, rolling buffers,
# kernel scratch) and the graph tensors that only one command stream touches
# in the SRAM fast pool; the DRAM arena keeps what the CPU or another epoch
# sees (graph inputs and outputs, epoch inputs and outputs). Every output
# must still equal the reference interpreter's: the TFLite output through
# `npuc run`, the .nprt and the _rel.bin through the runtime, and `npuc
# validate`. A fast pool too small for anything keeps everything in the
# arena; a small one keeps there the buffers that save the fewest cycles
# per byte (cc_alloc.c; test_cc_fastpool_gain checks the choice itself);
# U55 Shared_Sram has no fast pool and does not change.
set -u
npuc=${NPUC_BIN:?}
src=${NPUC_SRC:?}
S=${NPUC_SHARED:-}/models/tflm
if [ ! -f "$S/person_detect.tflite" ]; then
  echo "SKIP: $S not found"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
runs=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
. "$(dirname "$0")/lib_compare.sh"

# total KEY of a compile report
total() { sed -n "s/^ *\"$2\": \([0-9]*\),\{0,1\}$/\1/p" "$1" | head -1; }

# A copy of the U65 example system with the fast pool limited to $1 bytes.
small_pool() {
  sed "s/\"size\": \"384KiB\"/\"size\": $1/" "$src/configs/u65-dram-example.json" > "$tmp/fast_$1.json"
  grep -q "\"size\": $1," "$tmp/fast_$1.json" || fail "could not make a $1-byte fast pool config"
  echo "$tmp/fast_$1.json"
}

# check_runs DIR NAME ORIGINAL LABEL: every output format bit-exact
check_runs() {
  local d=$1 name=$2 orig=$3 label=$4 f
  for seed in 1 2; do
    compare "$d/${name}_npu.tflite" "$orig" "$label tflite seed $seed" --random-input --seed "$seed"
    for f in "$d/$name.nprt" "$d/${name}_rel.bin"; do
      compare "$f" "$orig" "$label $(basename "$f") seed $seed" --random-input --seed "$seed"
    done
  done
}

tiny=$(small_pool 1)
small=$(small_pool 4096)
for m in person_detect micro_speech_quantized; do
  f=$S/$m.tflite
  for t in ethos-u65-256 ethos-u65-512; do
    d=$tmp/$m-$t
    "$npuc" compile "$f" --target "$t" -o "$d" --output-format all > "$tmp/sum.txt" 2> "$tmp/err.txt" ||
      { fail "$m $t: compile: $(cat "$tmp/err.txt")"; continue; }
    rep=$d/${m}_report.json
    fast=$(total "$rep" peak_fast_bytes)
    arena=$(total "$rep" peak_sram_bytes)
    [ "${fast:-0}" -gt 0 ] || fail "$m $t: nothing in the fast pool ($fast)"
    grep -q "Total fast scratch used .* in pool 'sram'" "$tmp/sum.txt" || fail "$m $t: no fast scratch line in the summary"
    grep -q "\"name\": \"sram\"" "$rep" || fail "$m $t: report lists no sram pool"
    # the temps leave the arena: with no room in the fast pool it is what it
    # was before the fast pool was used (weight copies, which only pay in
    # the fast SRAM, are then not made); person_detect's cascade rolling
    # buffers move, micro_speech has only weight copies
    "$npuc" compile "$f" --target "$t" --system-config "$tiny" -o "$d-tiny" --output-format all --quiet 2> "$tmp/err.txt" ||
      { fail "$m $t tiny fast pool: compile: $(cat "$tmp/err.txt")"; continue; }
    rep0=$d-tiny/${m}_report.json
    [ "$(total "$rep0" peak_fast_bytes)" = 0 ] || fail "$m $t: a 1-byte fast pool holds $(total "$rep0" peak_fast_bytes) bytes"
    arena0=$(total "$rep0" peak_sram_bytes)
    [ "${arena:-0}" -le "${arena0:-0}" ] || fail "$m $t: arena $arena with the fast pool, $arena0 without"
    [ "$m" != person_detect ] || [ "${arena:-0}" -lt "${arena0:-0}" ] || fail "$m $t: arena not smaller ($arena, $arena0)"
    echo "$m $t: arena $arena B + fast $fast B (no fast pool: arena $arena0 B)"
    # all of person_detect runs in one command stream: its arena holds only
    # the input image (the 2-byte output reuses its bytes), every
    # intermediate is in the fast pool
    if [ "$m" = person_detect ]; then
      [ "$arena" = 9216 ] || fail "$m $t: arena $arena B, not just the 9216-byte input"
      grep -q '"pool": "sram"' "$rep" || fail "$m $t: no tensor of the report is in the sram pool"
    fi
    check_runs "$d" "$m" "$f" "$m $t"
    check_runs "$d-tiny" "$m" "$f" "$m $t tiny"
    "$npuc" validate "$f" --target "$t" --random 2 > "$tmp/v.txt" 2>&1 || fail "$m $t validate: $(cat "$tmp/v.txt")"
    grep -q "PASS: bit-exact" "$tmp/v.txt" || fail "$m $t validate not bit-exact: $(cat "$tmp/v.txt")"
    grep -q "fast scratch sram $fast B" "$tmp/v.txt" || fail "$m $t validate: no fast pool of $fast B: $(grep memory: "$tmp/v.txt")"
    "$npuc" validate "$f" --target "$t" --system-config "$tiny" --random 1 > "$tmp/v.txt" 2>&1 ||
      fail "$m $t tiny validate: $(cat "$tmp/v.txt")"
    grep -q "PASS: bit-exact" "$tmp/v.txt" || fail "$m $t tiny validate not bit-exact"
  done
done

# a fast pool smaller than the temps: the largest stay in the arena, the
# rest fit within the pool's size
f=$S/person_detect.tflite
"$npuc" compile "$f" --target ethos-u65-256 --system-config "$small" -o "$tmp/small" --output-format all --quiet ||
  fail "person_detect 4 KiB fast pool: compile"
fs=$(total "$tmp/small/person_detect_report.json" peak_fast_bytes)
[ "${fs:-0}" -gt 0 ] && [ "${fs:-0}" -le 4096 ] || fail "4 KiB fast pool holds $fs bytes"
check_runs "$tmp/small" person_detect "$f" "person_detect 4 KiB fast pool"
"$npuc" validate "$f" --target ethos-u65-256 --system-config "$small" --random 1 > "$tmp/v.txt" 2>&1 &&
  grep -q "PASS: bit-exact" "$tmp/v.txt" || fail "4 KiB fast pool validate: $(cat "$tmp/v.txt")"

# a fast pool smaller than person_detect's feature maps (72.66 KiB live at
# once, 25.5 KiB when cascaded): some graph tensors stay in the arena, the
# pool is full to at most its size, and --optimise size cascades to cut the
# sum of the two pools
mid=$(small_pool 20000)
"$npuc" compile "$f" --target ethos-u65-256 --system-config "$mid" -o "$tmp/mid" --output-format all --quiet ||
  fail "person_detect 20000-byte fast pool: compile"
fm=$(total "$tmp/mid/person_detect_report.json" peak_fast_bytes)
am=$(total "$tmp/mid/person_detect_report.json" peak_sram_bytes)
[ "${fm:-0}" -gt 4096 ] && [ "${fm:-0}" -le 20000 ] || fail "20000-byte fast pool holds $fm bytes"
[ "${am:-0}" -gt 9216 ] || fail "20000-byte fast pool: arena $am B holds no spilled tensor"
check_runs "$tmp/mid" person_detect "$f" "person_detect 20000-byte fast pool"
"$npuc" compile "$f" --target ethos-u65-256 --optimise size -o "$tmp/size" --output-format all --quiet ||
  fail "person_detect --optimise size: compile"
fz=$(total "$tmp/size/person_detect_report.json" peak_fast_bytes)
fp=$(total "$tmp/person_detect-ethos-u65-256/person_detect_report.json" peak_fast_bytes)
[ "${fz:-0}" -gt 0 ] && [ "${fz:-0}" -lt "${fp:-0}" ] || fail "--optimise size: fast pool $fz B, not below $fp B"
check_runs "$tmp/size" person_detect "$f" "person_detect u65 --optimise size"

# U55 Shared_Sram: no fast pool
"$npuc" compile "$f" --target ethos-u55-256 -o "$tmp/u55" --output-format all > "$tmp/sum.txt" || fail "u55 compile"
[ "$(total "$tmp/u55/person_detect_report.json" peak_fast_bytes)" = 0 ] || fail "u55 uses a fast pool"
grep -q "fast scratch" "$tmp/sum.txt" && fail "u55 summary shows a fast pool"
grep -q " fast " "$tmp/u55/person_detect_rel.json" 2>/dev/null && fail "u55 reloc model has a fast pool"
check_runs "$tmp/u55" person_detect "$f" "person_detect u55"

# the runtime refuses to run a model with a fast pool without fast memory:
# the C API test covers it (test_runtime); here the CLI path gives it one
echo "$runs comparisons, $fails failures"
[ "$fails" -eq 0 ]
