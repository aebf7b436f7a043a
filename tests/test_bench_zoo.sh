#!/usr/bin/env bash
# bench_zoo smoke test: on one small model it exits 0 and prints its table
# header and summary; a missing shared folder or an unmatched filter gives a
# clear message and exit 1; Vela's cycles are priced from Vela's file
# wherever there is one and marked '*' (bench_zoo and bench_sched equal),
# figures.tsv's standing in only where there is none (u55-256);
# flash is also compared with Vela's command streams added from its file.
# No assertion on the figures (a benchmark).
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

# Vela's cycles priced here: tflm_mnist_lstm_int8 (figures.tsv: no
# cycles_on_npuc_sim) gets them from Vela's u55-128 file, marked '*' with
# the legend, and counted in the median; bench_sched equal the same
vela=$shared/models/zoo/vela51/u55-128/tflm_mnist_lstm_int8_vela.tflite
if [ -f "$vela" ]; then
  "$bench" --models tflm_mnist_lstm_int8 --configs u55-128 --runs 1 "$shared" > "$tmp/out.txt" 2> "$tmp/err.txt"
  [ $? -eq 0 ] || fail "tflm_mnist_lstm_int8: exit status not 0: $(cat "$tmp/err.txt")"
  grep -q "^\* Vela's stream priced by this run on npuc's cycle model, as npuc's" "$tmp/out.txt" ||
    fail "no '*' legend line: $(cat "$tmp/out.txt")"
  grep -Eq "^tflm_mnist_lstm_int8 +\| +[0-9]+ +[0-9]+\* +[0-9.]+ \|" "$tmp/out.txt" ||
    fail "tflm_mnist_lstm_int8: no Vela cycles marked '*' with a ratio: $(grep '^tflm_mnist' "$tmp/out.txt")"
  grep -Eq "^  cycles +median +[0-9.]+ over +1 models \(1 with Vela's cycles priced here, \*\)" "$tmp/out.txt" ||
    fail "tflm_mnist_lstm_int8: the priced ratio is not in the cycles median: $(grep 'cycles ' "$tmp/out.txt")"
  # flash with Vela's command streams added (its file): a ratio and a median
  grep -Eq "^  flash\+cs +median +[0-9.]+ over +1 models" "$tmp/out.txt" ||
    fail "tflm_mnist_lstm_int8: no flash+cs median: $(grep 'flash' "$tmp/out.txt")"
  sched=$build/bench_sched
  if [ -x "$sched" ]; then
    "$sched" equal --models tflm_mnist_lstm_int8 --configs u55-128 "$shared" > "$tmp/sched.txt" 2> "$tmp/err.txt"
    [ $? -eq 0 ] || fail "bench_sched equal: exit status not 0: $(cat "$tmp/err.txt")"
    grep -Eq "^tflm_mnist_lstm_int8 .* [0-9]+\* +[0-9.]+$" "$tmp/sched.txt" ||
      fail "bench_sched equal: no Vela cycles marked '*': $(cat "$tmp/sched.txt")"
    grep -q "median cycles npuc/Vela [0-9.]* over 1 models (1 with Vela's cycles priced here" "$tmp/sched.txt" ||
      fail "bench_sched equal: the priced ratio is not in the median: $(cat "$tmp/sched.txt")"
  fi
  # figures.tsv has person_detect's cycles, priced on an earlier cycle
  # model: where Vela's file is there (u55-128) this run prices it, where
  # it is not (u55-256) figures.tsv's stand, unmarked
  "$bench" --models person_detect --configs u55-128,u55-256 --runs 1 "$shared" > "$tmp/pd.txt" 2> "$tmp/err.txt"
  [ $? -eq 0 ] || fail "person_detect: exit status not 0: $(cat "$tmp/err.txt")"
  [ "$(grep -Ec "^person_detect +\| +[0-9]+ +[0-9]+\* +[0-9.]+ \|" "$tmp/pd.txt")" = 1 ] ||
    fail "person_detect: Vela's cycles not priced once (u55-128 only): $(grep '^person_detect' "$tmp/pd.txt")"
  [ "$(grep -Ec "^person_detect +\| +[0-9]+ +[0-9]+ +[0-9.]+ \|" "$tmp/pd.txt")" = 1 ] ||
    fail "person_detect: u55-256 not from figures.tsv: $(grep '^person_detect' "$tmp/pd.txt")"
else
  echo "skip: no Vela file $vela"
fi

[ $fails -eq 0 ] && echo "bench_zoo smoke test passed"
exit $((fails > 0))
