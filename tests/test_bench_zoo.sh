#!/usr/bin/env bash
# bench_zoo smoke test: on one small model it exits 0 and prints its table
# header and summary; a missing shared folder or an unmatched filter gives a
# clear message and exit 1. No assertion on the figures (a benchmark).
set -u
build=${NPUC_BUILD:?}
shared=${NPUC_SHARED:-}
bench=$build/bench_zoo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
[ -x "$bench" ] || { echo "FAIL: $bench not built"; exit 1; }

"$bench" --models /nonexistent "$tmp/none" > "$tmp/out.txt" 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "missing shared folder: exit status not 1"
grep -q "shared folder .* not found" "$tmp/err.txt" || fail "missing shared folder: $(cat "$tmp/err.txt")"

if [ -z "$shared" ] || [ ! -f "$shared/models/zoo/vela51/figures.tsv" ]; then
  echo "skip: no shared folder with models/zoo/vela51/figures.tsv"
  exit $((fails > 0))
fi
mkdir -p "$tmp/partial/models"
"$bench" "$tmp/partial" > "$tmp/out.txt" 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "missing figures.tsv: exit status not 1"
grep -q "figures.tsv" "$tmp/err.txt" || fail "missing figures.tsv: $(cat "$tmp/err.txt")"

"$bench" --models no_such_model "$shared" > "$tmp/out.txt" 2> "$tmp/err.txt"
[ $? -eq 1 ] || fail "unmatched filter: exit status not 1"
grep -q "no model matches" "$tmp/err.txt" || fail "unmatched filter: $(cat "$tmp/err.txt")"

# the environment variable, one model, one config
NPUC_SHARED=$shared "$bench" --models hello_world_int8 --configs u65-256 > "$tmp/out.txt" 2> "$tmp/err.txt"
[ $? -eq 0 ] || fail "hello_world_int8: exit status not 0: $(cat "$tmp/err.txt")"
grep -q "^ethos-u65-256 .*cycles .*SRAM KiB .*flash KiB .*compile .*NPU ops .*CPU ops" "$tmp/out.txt" ||
  fail "no table header: $(cat "$tmp/out.txt")"
grep -q "^hello_world_int8 " "$tmp/out.txt" || fail "no hello_world_int8 row"
grep -q "npuc failed" "$tmp/out.txt" && fail "hello_world_int8 failed: $(cat "$tmp/out.txt")"
grep -q "median" "$tmp/out.txt" || fail "no summary"
grep -q "ethos-u55" "$tmp/out.txt" && fail "--configs u65-256 also ran a U55 config"

[ $fails -eq 0 ] && echo "bench_zoo smoke test passed"
exit $((fails > 0))
