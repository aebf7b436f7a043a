#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time (the budget, in seconds, is
# split evenly between the targets): fuzz_tflite seeded from ../shared/models
# (when present) and generated models, fuzz_sim from a few valid-op seeds,
# fuzz_json from the example system files in configs/, fuzz_k_op from the
# prepared ops of those models (written by test_k_op), fuzz_reloc from
# loadable model files (written by test_reloc_mutate).
# Inputs in fuzz/regress/TARGET/ (each once found a bug) are replayed first.
# Fails on any crash, leak, hang or sanitizer report.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-30}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${NPUC_SHARED:-$here/../shared}

targets=()
for t in "$build"/fuzz_*; do
  [ -x "$t" ] && targets+=("$(basename "$t")")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets in $build"
  exit 1
fi
per=$(( seconds / ${#targets[@]} ))
[ "$per" -ge 1 ] || per=1

# fuzz_tflite: TFLite models
corpus=$build/fuzz-corpus
mkdir -p "$corpus"
if [ -d "$shared/models" ]; then
  find "$shared/models" -name '*.tflite' -size -400k | while read -r f; do
    cp -f "$f" "$corpus/$(echo "$f" | sha1sum | cut -c1-16).tflite"
  done
else
  echo "fuzz: $shared/models not found; seeding from generated models only"
fi
if [ -x "$build/genmodel" ]; then
  for s in 1 2 3 4 5 6 7 8; do "$build/genmodel" --seed $s -o "$corpus/gen$s.tflite" >/dev/null 2>&1 || true; done
  # several subgraphs and resource variables
  for k in counter if while; do "$build/genmodel" --control $k --seed 0 -o "$corpus/gen-$k.tflite" >/dev/null 2>&1 || true; done
fi

# fuzz_sim: byte 0 variant, byte 1 flags (skeleton kind, STOP, mode), the
# rest zeros (one-byte windows, base pointers at the skeleton's arena): every
# seed is a valid operation on every variant (see fuzz/fuzz_sim.c)
corpus_sim=$build/fuzz-corpus-sim
mkdir -p "$corpus_sim"
for v in 0 1 2 3 4 5; do
  for f in 08 88 89 01 11 02 12 22 82 9a 03 13 23 33 43 53 63 73 83 93 8b; do
    printf "\\x0$v\\x$f\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00" \
      > "$corpus_sim/seed-$v-$f"
  done
done

# fuzz_k_op: prepared CPU ops; seeds are the ops of the shared and generated
# models as test_k_op sees them (kind, blob, tensor sizes, data)
corpus_k_op=$build/fuzz-corpus-k-op
mkdir -p "$corpus_k_op"
if [ -x "$build/test_k_op" ]; then
  NPUC_SHARED="$shared" NPUC_K_OP_CORPUS="$corpus_k_op" "$build/test_k_op" >/dev/null 2>&1 || true
fi
if [ -x "$build/test_control" ]; then   # the state and control kinds
  NPUC_K_OP_CORPUS="$corpus_k_op" NPUC_CONTROL_SEEDS=0 "$build/test_control" >/dev/null 2>&1 || true
fi

# fuzz_reloc: loadable model files (single, split, signed) behind a mode
# byte, as test_reloc_mutate writes them (see fuzz/fuzz_reloc.c)
corpus_reloc=$build/fuzz-corpus-reloc
mkdir -p "$corpus_reloc"
if [ -x "$build/test_reloc_mutate" ]; then
  NPUC_SHARED="$shared" NPUC_RELOC_CORPUS="$corpus_reloc" "$build/test_reloc_mutate" >/dev/null 2>&1 || true
fi

# fuzz_json: JSON memory-pool files
corpus_json=$build/fuzz-corpus-json
mkdir -p "$corpus_json"
cp -f "$here"/configs/*.json "$corpus_json"/ 2>/dev/null || true

status=0
# inputs that once found a bug (fuzz/regress/TARGET/): each runs once first
for name in "${targets[@]}"; do
  reg=$here/fuzz/regress/$name
  [ -d "$reg" ] || continue
  if ! (cd "$build" && "./$name" "$reg"/* >"fuzz-$name-regress.log" 2>&1); then
    status=1
    echo "fuzz: $name FAILED on a regression input (fuzz/regress/$name)"
    tail -n 40 "$build/fuzz-$name-regress.log"
  else
    echo "fuzz: $name: $(ls "$reg" | wc -l) regression input(s) pass"
  fi
done

for name in "${targets[@]}"; do
  case $name in
    fuzz_sim) dir=fuzz-corpus-sim; max_len=4096 ;;
    fuzz_json) dir=fuzz-corpus-json; max_len=16384 ;;
    fuzz_k_op) dir=fuzz-corpus-k-op; max_len=65536 ;;
    fuzz_reloc) dir=fuzz-corpus-reloc; max_len=300000 ;;
    *) dir=fuzz-corpus; max_len=400000 ;;
  esac
  echo "fuzz: $name for ${per}s"
  log=$build/fuzz-$name.log
  if (cd "$build" && "./$name" "$dir" -max_total_time="$per" -timeout=10 \
      -rss_limit_mb=2048 -max_len=$max_len -print_final_stats=1 \
      -artifact_prefix="fuzz-artifact-$name-") >"$log" 2>&1; then
    tail -n 6 "$log"
  else
    # a finding: show the whole report (sanitizer trace, crash input) and
    # keep the artifact in the build folder for replay
    status=1
    echo "fuzz: $name FAILED; report follows (full log: $log)"
    grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|DONE)' "$log" | tail -n 80
    for a in "$build"/fuzz-artifact-"$name"-*; do
      [ -f "$a" ] && { echo "fuzz: artifact $a"; od -A d -t x1 "$a" | head -n 8; }
    done
  fi
done
exit $status
