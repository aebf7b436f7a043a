#!/usr/bin/env bash
# npuc compile on the command line: outputs and their names, every option,
# and bad input of each kind: a clear message naming the problem, the right
# exit status (2 usage, 1 model/config), and no output files at all.
set -u
npuc=${NPUC_BIN:?}
src=${NPUC_SRC:?}
build=${NPUC_BUILD:-$(dirname "$npuc")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

# expect STATUS PATTERN CMD... : exit status and a message on stderr
expect() {
  local want=$1 pat=$2; shift 2
  "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "'$*': exit $rc, expected $want ($(cat "$tmp/err.txt"))"
  grep -q -- "$pat" "$tmp/err.txt" || fail "'$*': stderr lacks '$pat': $(cat "$tmp/err.txt")"
}
empty_dir() { [ ! -e "$1" ] || [ -z "$(ls -A "$1")" ] || fail "$1 is not empty: $(ls "$1")"; }

model=$tmp/m.tflite
"$build/genmodel" --seed 3 --ops 4 -o "$model" || { echo "genmodel failed"; exit 1; }

# a good compile: the default format and the reports
"$npuc" compile "$model" -o "$tmp/good" > "$tmp/sum.txt" || fail "compile failed"
for f in m_npu.tflite m_report.json m_report.csv; do [ -s "$tmp/good/$f" ] || fail "missing $f"; done
grep -q "Network summary" "$tmp/sum.txt" || fail "no summary on stdout"
grep -q '"totals"' "$tmp/good/m_report.json" || fail "report has no totals"
head -1 "$tmp/good/m_report.csv" | grep -q '^index,op,runs_on' || fail "CSV header"
"$npuc" compile "$model" -o "$tmp/q" --quiet > "$tmp/quiet.txt" || fail "--quiet compile failed"
[ -s "$tmp/quiet.txt" ] && fail "--quiet printed something"
"$npuc" compile "$model" -o "$tmp/v" --verbose | grep -q "op   0" || fail "--verbose lists no ops"
for t in ethos-u55-32 ethos-u55-64 ethos-u55-128 ethos-u55-256 ethos-u65-256 ethos-u65-512; do
  "$npuc" compile "$model" --target "$t" -o "$tmp/t_$t" --quiet || fail "target $t"
done
"$npuc" compile "$model" --target ethos-u55-128 --system-config Ethos_U55_Deep_Embedded:Sram_Only -o "$tmp/s1" --quiet ||
  fail "built-in system config"
"$npuc" compile "$model" --target ethos-u55-128 --system-config "$src/configs/corstone-300-u55.json" -o "$tmp/s2" --quiet ||
  fail "JSON system config"
"$npuc" compile "$model" --optimise size -o "$tmp/sz" --quiet || fail "--optimise size"
"$npuc" help compile | grep -q "usage: npuc compile" || fail "help compile"

# usage errors: exit 2, nothing written
expect 2 "unknown target" "$npuc" compile "$model" --target ethos-u99 -o "$tmp/e1"; empty_dir "$tmp/e1"
expect 2 "no output folder" "$npuc" compile "$model"
expect 2 "no model given" "$npuc" compile -o "$tmp/e2"; empty_dir "$tmp/e2"
expect 2 "unknown --output-format" "$npuc" compile "$model" --output-format pdf -o "$tmp/e3"; empty_dir "$tmp/e3"
expect 2 "unknown --optimise" "$npuc" compile "$model" --optimise speed -o "$tmp/e4"; empty_dir "$tmp/e4"
expect 2 "unknown option" "$npuc" compile "$model" --frobnicate -o "$tmp/e5"; empty_dir "$tmp/e5"
expect 2 "needs a value" "$npuc" compile "$model" -o

# model / config errors: exit 1, named, nothing written
expect 1 "nope.tflite" "$npuc" compile "$tmp/nope.tflite" -o "$tmp/e6"; empty_dir "$tmp/e6"
head -c 100 "$model" > "$tmp/trunc.tflite"
expect 1 "trunc.tflite" "$npuc" compile "$tmp/trunc.tflite" -o "$tmp/e7"; empty_dir "$tmp/e7"
expect 2 "Ethos_U99" "$npuc" compile "$model" --system-config Ethos_U99 -o "$tmp/e8"; empty_dir "$tmp/e8"
expect 1 "ethos-u65" "$npuc" compile "$model" --target ethos-u55-128 --system-config "$src/configs/u65-dram-example.json" -o "$tmp/e9"
empty_dir "$tmp/e9"
# an SRAM pool too small for the model's activations
sed -e 's/"size": "2MiB"/"size": "64B"/' "$src/configs/corstone-300-u55.json" > "$tmp/tiny.json"
expect 1 "activations" "$npuc" compile "$model" --system-config "$tmp/tiny.json" -o "$tmp/e10"; empty_dir "$tmp/e10"
# runtime forms: C sources and the .nprt binary hold the same bytes, and the
# binary runs on the runtime with the reference's bytes
"$npuc" compile "$model" --output-format all -o "$tmp/all" --quiet || fail "--output-format all"
for f in m_npu.tflite m_model.c m_model.h m.nprt m_rel.bin m_rel.json m_report.json m_report.csv; do
  [ -s "$tmp/all/$f" ] || fail "format all: missing $f"
done
"$npuc" compile "$model" --output-format c -o "$tmp/c" --quiet || fail "--output-format c"
[ "$(ls "$tmp/c" | sort | tr '\n' ' ')" = "m_model.c m_model.h m_report.csv m_report.json " ] || fail "format c files: $(ls "$tmp/c")"
grep -q 'const uint8_t m_model\[' "$tmp/c/m_model.c" || fail "C source lacks the model array"
grep -q '#define m_MODEL_SIZE' "$tmp/c/m_model.h" || fail "C header lacks the size"
# the C array's bytes are the .nprt file's bytes
printf "$(grep -o '0x[0-9a-f][0-9a-f]' "$tmp/c/m_model.c" | sed 's/^0x/\\x/' | tr -d '\n')" > "$tmp/from_c.bin"
cmp -s "$tmp/from_c.bin" "$tmp/all/m.nprt" || fail "C array differs from the .nprt bytes"
"$npuc" run "$tmp/all/m.nprt" --random-input --seed 4 --output "$tmp/rt.bin" --quiet || fail "run .nprt"
"$npuc" run "$model" --random-input --seed 4 --output "$tmp/ref.bin" --quiet || fail "run reference"
cmp -s "$tmp/rt.bin" "$tmp/ref.bin" || fail "runtime output differs from the reference"
"$npuc" run "$tmp/all/m.nprt" --random-input --poll --profile > "$tmp/prof.txt" || fail "run .nprt --poll --profile"
grep -q "^total: NPU" "$tmp/prof.txt" || fail "no runtime profile"
# a corrupt or truncated .nprt: exit 1, the problem named
cp "$tmp/all/m.nprt" "$tmp/bad.nprt"
printf '\x01' | dd of="$tmp/bad.nprt" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 1 "checksum" "$npuc" run "$tmp/bad.nprt" --random-input
head -c 200 "$tmp/all/m.nprt" > "$tmp/short.nprt"
expect 1 "header size field" "$npuc" run "$tmp/short.nprt" --random-input
expect 2 "tflite models only" "$npuc" run "$tmp/all/m.nprt" --random-input --dump-tensors "$tmp/d"
expect 2 "compiled models (.nprt) only" "$npuc" run "$model" --random-input --poll
expect 2 "--npu-only works on TFLite models only" "$npuc" run "$tmp/all/m.nprt" --random-input --npu-only
# runtime-loadable models (docs/reloc.md): single, split, signed; every
# install mode gives the reference's bytes
"$npuc" compile "$model" --output-format reloc -o "$tmp/rel" > "$tmp/rel.txt" || fail "--output-format reloc"
[ "$(ls "$tmp/rel" | sort | tr '\n' ' ')" = "m_rel.bin m_rel.json m_report.csv m_report.json " ] || fail "format reloc files: $(ls "$tmp/rel")"
grep -q "exec RAM, XIP mode" "$tmp/rel.txt" || fail "no memory layout table"
grep -q '"relocations": [1-9]' "$tmp/rel/m_rel.json" || fail "JSON lacks the relocation count"
for mode in "" "--install copy" "--install copy --clear" "--clear"; do
  "$npuc" run "$tmp/rel/m_rel.bin" --random-input --seed 4 --output "$tmp/rel.out" --quiet $mode || fail "run _rel.bin $mode"
  cmp -s "$tmp/rel.out" "$tmp/ref.bin" || fail "_rel.bin ($mode) output differs from the reference"
done
"$npuc" run "$tmp/rel/m_rel.bin" --random-input | grep -q "installed XIP mode: [0-9]* bytes of exec RAM, [0-9]* relocations" ||
  fail "run _rel.bin: no install line"
head -c 32 /dev/zero | tr '\0' '\7' > "$tmp/key.seed"
"$npuc" compile "$model" --output-format reloc --split --sign-key "$tmp/key.seed" -o "$tmp/split" --quiet || fail "reloc --split --sign-key"
[ -s "$tmp/split/m_params.bin" ] || fail "--split wrote no params file"
pub=$(sed -n 's/.*"public_key": "\([0-9a-f]*\)".*/\1/p' "$tmp/split/m_rel.json")
[ ${#pub} -eq 64 ] || fail "signed: no public key in the JSON"
printf "$(sed 's/../\\x&/g' <<<"$pub")" > "$tmp/key.pub"
for mode in "" "--install copy"; do
  "$npuc" run "$tmp/split/m_rel.bin" --random-input --seed 4 --public-key "$tmp/key.pub" --output "$tmp/rel.out" --quiet $mode ||
    fail "run split signed $mode"
  cmp -s "$tmp/rel.out" "$tmp/ref.bin" || fail "split ($mode) output differs from the reference"
done
cp "$tmp/split/m_params.bin" "$tmp/moved_params.bin"
"$npuc" run "$tmp/split/m_rel.bin" --random-input --params "$tmp/moved_params.bin" --quiet || fail "run split --params"
# bad loadable models and options: exit 1 or 2, the problem named
expect 2 "reloc only" "$npuc" compile "$model" --split -o "$tmp/e11"; empty_dir "$tmp/e11"
expect 2 "reloc only" "$npuc" compile "$model" --output-format bin --sign-key "$tmp/key.seed" -o "$tmp/e12"; empty_dir "$tmp/e12"
head -c 31 "$tmp/key.seed" > "$tmp/short.seed"
expect 1 "32 bytes" "$npuc" compile "$model" --output-format reloc --sign-key "$tmp/short.seed" -o "$tmp/e13"; empty_dir "$tmp/e13"
expect 1 "not signed" "$npuc" run "$tmp/rel/m_rel.bin" --random-input --public-key "$tmp/key.pub"
head -c 32 /dev/zero | tr '\0' '\3' > "$tmp/other.pub"
expect 1 "signature does not verify" "$npuc" run "$tmp/split/m_rel.bin" --random-input --public-key "$tmp/other.pub"
cp "$tmp/rel/m_rel.bin" "$tmp/bad_rel.bin"
printf '\x01' | dd of="$tmp/bad_rel.bin" bs=1 seek=600 conv=notrunc 2>/dev/null
expect 1 "SHA-256 digest mismatch" "$npuc" run "$tmp/bad_rel.bin" --random-input
"$npuc" inspect "$tmp/rel/m_rel.bin" | grep -q "SHA-256 digest: ok" || fail "inspect _rel.bin"
expect 1 "SHA-256 digest mismatch" "$npuc" inspect "$tmp/bad_rel.bin"
head -c 300 "$tmp/rel/m_rel.bin" > "$tmp/short_rel.bin"
expect 1 "truncated" "$npuc" run "$tmp/short_rel.bin" --random-input
expect 1 "truncated" "$npuc" inspect "$tmp/short_rel.bin"
printf '\x01' | dd of="$tmp/moved_params.bin" bs=1 seek=10 conv=notrunc 2>/dev/null
expect 1 "params file SHA-256 mismatch" "$npuc" run "$tmp/split/m_rel.bin" --random-input --params "$tmp/moved_params.bin"
expect 1 "params file" "$npuc" run "$tmp/split/m_rel.bin" --random-input --params "$tmp/nope.bin"
expect 2 "not split" "$npuc" run "$tmp/rel/m_rel.bin" --random-input --params "$tmp/split/m_params.bin"
expect 2 "unknown mode" "$npuc" run "$tmp/rel/m_rel.bin" --random-input --install flash
expect 2 "loadable models" "$npuc" run "$model" --random-input --install copy
expect 2 "loadable models" "$npuc" run "$tmp/all/m.nprt" --random-input --clear
# the output path is a file
: > "$tmp/afile"
expect 1 "not a folder" "$npuc" compile "$model" -o "$tmp/afile"

# Vela's spellings: --accelerator-config, --output-dir, --optimise Performance|Size
same_dirs() {   # the same files with the same bytes (reports: but their compile time)
  local a=$1 b=$2 f
  [ "$(ls "$a")" = "$(ls "$b")" ] || { fail "$a and $b hold other files"; return; }
  for f in $(ls "$a"); do
    case $f in
      *_report.json) cmp -s <(grep -v compile_time_s "$a/$f") <(grep -v compile_time_s "$b/$f") || fail "$f differs ($a, $b)";;
      *) cmp -s "$a/$f" "$b/$f" || fail "$f differs ($a, $b)";;
    esac
  done
}
"$npuc" compile "$model" --target ethos-u65-256 -o "$tmp/np" --output-format all --quiet || fail "u65 compile"
"$npuc" compile "$model" --accelerator-config ethos-u65-256 --output-dir "$tmp/vp" --output-format all --quiet \
  --optimise Performance || fail "Vela's spellings"
same_dirs "$tmp/np" "$tmp/vp"
"$npuc" compile "$model" --optimise SIZE -o "$tmp/vsz" --quiet || fail "--optimise SIZE"
same_dirs "$tmp/sz" "$tmp/vsz"
expect 2 "--accelerator-config: unknown target 'ethos-u85-256'" "$npuc" compile "$model" --accelerator-config ethos-u85-256 \
  -o "$tmp/e14"
empty_dir "$tmp/e14"

# Vela's configuration file: Arm's vela.ini gives exactly the built-in systems
ini=${NPUC_SHARED:-/nonexistent}/oracle/vela.ini
pd=${NPUC_SHARED:-/nonexistent}/models/tflm/person_detect.tflite
if [ -f "$ini" ] && [ -f "$pd" ]; then
  "$npuc" compile "$pd" -o "$tmp/pd_def" --output-format all --quiet || fail "person_detect default"
  "$npuc" compile "$pd" --config "$ini" --system-config Ethos_U55_High_End_Embedded --memory-mode Shared_Sram \
    -o "$tmp/pd_ini" --output-format all --quiet || fail "person_detect with vela.ini"
  same_dirs "$tmp/pd_def" "$tmp/pd_ini"
  "$npuc" compile "$pd" --target ethos-u65-512 -o "$tmp/pd65" --quiet || fail "person_detect u65"
  "$npuc" compile "$pd" --accelerator-config ethos-u65-512 --config "$ini" --system-config Ethos_U65_High_End \
    --output-dir "$tmp/pd65_ini" --quiet || fail "person_detect u65 with vela.ini"
  same_dirs "$tmp/pd65" "$tmp/pd65_ini"
  # SYSTEM:MODE with --config, and a memory mode only the file has
  "$npuc" compile "$model" --target ethos-u65-256 --config "$ini" --system-config Ethos_U65_Mid_End:Dedicated_Sram_256KB \
    -o "$tmp/ini256" --quiet || fail "vela.ini Dedicated_Sram_256KB"
  expect 2 "no section \[Memory_Mode.Nope\]" "$npuc" compile "$model" --config "$ini" --memory-mode Nope -o "$tmp/e15"
  empty_dir "$tmp/e15"
  expect 2 "is for an Ethos-U85" "$npuc" compile "$model" --config "$ini" --system-config Ethos_U85_SYS_DRAM_Low -o "$tmp/e16"
  empty_dir "$tmp/e16"
  # a malformed file: the error names the file, the line and the key
  sed -e 's/^Sram_burst_length=32$/Sram_burst_length=thirty-two/' "$ini" > "$tmp/bad.ini"
  line=$(grep -n 'thirty-two' "$tmp/bad.ini" | head -1 | cut -d: -f1)
  expect 1 "bad.ini:$line: \[System_Config.Ethos_U55_Deep_Embedded\] Sram_burst_length: expected a whole number" \
    "$npuc" compile "$model" --config "$tmp/bad.ini" -o "$tmp/e17"
  empty_dir "$tmp/e17"
  printf '[Memory_Mode.A]\ninherit=Memory_Mode.B\n[Memory_Mode.B]\ninherit=Memory_Mode.A\n' > "$tmp/loop.ini"
  expect 1 "loop.ini:2: \[Memory_Mode.A\] inherit: inheritance loop" "$npuc" compile "$model" --config "$tmp/loop.ini" \
    -o "$tmp/e18"
  empty_dir "$tmp/e18"
fi
expect 2 "is a Vela configuration file: give it with --config" "$npuc" compile "$model" --system-config "$tmp/loop.ini" \
  -o "$tmp/e19"

echo "$fails failures"
[ "$fails" -eq 0 ]
