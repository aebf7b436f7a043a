#!/usr/bin/env bash
# Vela 5.1's command streams on the virtual NPU against TensorFlow Lite
# Micro: every ../shared/models/zoo/vela51/{u55-128,u65-256}/MODEL_vela.tflite
# whose original model has goldens (golden/MANIFEST.tsv status "ok") runs
# with `npuc run` on golden/MODEL.s{1,2}.in.bin (all inputs concatenated,
# split here by the inputs' sizes) and must give exactly the bytes of
# golden/MODEL.s{1,2}.out.bin. The Basic-LSTM models (no goldens: TFLite
# Micro cannot run them) are compared with the reference interpreter.
#
# Explained exceptions (listed, not failures; the run itself must succeed):
#   tflm_retinaface  the outputs differ from TFLite Micro's because Vela
#                    5.1's stream is wrong: in ethos-u op 1 it fuses a PAD
#                    into the LeakyReLU's per-channel LUT pools without
#                    giving them the padded strides, so the next operation
#                    reads a layout nobody wrote, 2,056 bytes of it stale
#                    from an earlier layer (docs/sim.md, "Vela 5.1 zoo
#                    streams"). The byte counts below are pinned: a change
#                    in them means the simulator changed.
set -u
npuc=${NPUC_BIN:?}
Z=${NPUC_SHARED:?}/models/zoo
if [ ! -d "$Z/vela51" ] || [ ! -f "$Z/golden/MANIFEST.tsv" ]; then
  echo "SKIP: $Z/vela51 or its goldens not found"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# explained CONFIG MODEL DIFFERING_BYTES: whether the difference is the
# explained one (seed 1, the first golden compared)
explained() {
  case "$1/$2" in
    u55-128/tflm_retinaface) [ "$3" -eq 41243 ] ;;
    u65-256/tflm_retinaface) [ "$3" -eq 41525 ] ;;
    *) return 1 ;;
  esac
}

# --input FILE per model input, cut from the concatenated golden input
split_inputs() {   # split_inputs MODEL IN.BIN -> prints the --input args
  local model=$1 in=$2 sizes off=0 k=0 n
  sizes=$("$npuc" inspect "$model" | sed -n '/^inputs:/,/^outputs:/p' | grep -o '[0-9]* bytes' | awk '{print $1}') ||
    return 1
  for n in $sizes; do
    tail -c +$((off + 1)) "$in" | head -c "$n" > "$tmp/in$k.bin"
    printf -- '--input %s ' "$tmp/in$k.bin"
    off=$((off + n)); k=$((k + 1))
  done
  [ "$off" -eq "$(stat -c %s "$in")" ] || return 1
}

models=$(awk -F'\t' 'NR > 1 && $4 == "ok" {print $1}' "$Z/golden/MANIFEST.tsv" | sort -u)
for cfg in u55-128 u65-256; do
  n=0; same=0; exc=""
  for m in $models; do
    v=$Z/vela51/$cfg/${m}_vela.tflite
    [ -f "$v" ] || continue
    n=$((n + 1))
    good=1
    for s in 1 2; do
      in=$Z/golden/$m.s$s.in.bin out=$Z/golden/$m.s$s.out.bin
      [ -f "$in" ] && [ -f "$out" ] || continue
      if ! args=$(split_inputs "$v" "$in"); then
        echo "FAIL: $cfg/$m: golden input does not split into the model's inputs"; fails=$((fails + 1)); good=0; break
      fi
      # shellcheck disable=SC2086
      if ! "$npuc" run "$v" $args --quiet --output "$tmp/o.bin" 2> "$tmp/err.txt"; then
        echo "FAIL: $cfg/$m seed $s: $(head -c 400 "$tmp/err.txt")"; fails=$((fails + 1)); good=0; break
      fi
      if ! cmp -s "$tmp/o.bin" "$out"; then
        d=$(cmp -l "$tmp/o.bin" "$out" 2>/dev/null | wc -l)
        if [ "$s" -eq 1 ] && explained "$cfg" "$m" "$d"; then
          exc="$exc $m($d bytes)"
        else
          echo "FAIL: $cfg/$m seed $s: $d of $(stat -c %s "$out") output bytes differ from TFLite Micro"
          fails=$((fails + 1))
        fi
        good=0; break
      fi
    done
    same=$((same + good))
  done
  echo "vela51/$cfg: $same/$n models give TFLite Micro's bytes on both goldens${exc:+; explained exceptions:$exc}"
done
# Models without goldens (TFLite Micro cannot run them) that npuc's
# reference kernels run whole, checked against the reference interpreter on
# the original model, seeds 1 and 2: the Basic-LSTM keyword spotters, whose
# Vela 5.1 streams use the shared arena (an ethos-u operator without outputs
# whose results a later one reads from the arena, docs/ethos-u.md 10.1), and
# coral_movenet_lightning_ptq (a uint8 input TFLite Micro's CAST refuses;
# int32 FLOOR_DIVs, TFLite's form, docs/kernels-binop.md),
# tflm_audio_preprocessor_int8 (the signal library, which the shared
# TFLite Micro build did not register) and
# coral_posenet_mnv1_075_353_481_int8_decoder (Coral's PosenetDecoderOp;
# docs/kernels-custom.md).
whole="armkws_basic_lstm_s_int8 armkws_basic_lstm_l_int8 coral_movenet_lightning_ptq tflm_audio_preprocessor_int8"
whole="$whole coral_posenet_mnv1_075_353_481_int8_decoder"
# The reference runs once per model and seed; both configs' files are
# checked against it. PoseNet's decoder finds no pose in random images, so
# one seed of it is enough (the decoder itself: tests/test_k_posenet.c).
for m in $whole; do
  seeds="1 2"
  [ "$m" = coral_posenet_mnv1_075_353_481_int8_decoder ] && seeds=1
  for s in $seeds; do
    have=0
    for cfg in u55-128 u65-256; do
      v=$Z/vela51/$cfg/${m}_vela.tflite
      [ -f "$v" ] || continue
      if [ $have -eq 0 ]; then
        if ! "$npuc" run "$Z/$m.tflite" --random-input --seed $s --quiet --output "$tmp/b.bin" 2> "$tmp/err.txt"; then
          echo "FAIL: $m seed $s (reference): $(head -c 400 "$tmp/err.txt")"; fails=$((fails + 1)); break
        fi
        have=1
      fi
      if ! "$npuc" run "$v" --random-input --seed $s --quiet --output "$tmp/a.bin" 2> "$tmp/err.txt"; then
        echo "FAIL: $cfg/$m seed $s: $(head -c 400 "$tmp/err.txt")"; fails=$((fails + 1)); continue
      fi
      cmp -s "$tmp/a.bin" "$tmp/b.bin" || { echo "FAIL: $cfg/$m seed $s: differs from the reference interpreter"; fails=$((fails + 1)); }
    done
  done
done

# The rest (TensorFlow Lite Micro cannot run the model, and npuc's
# reference kernels not its CPU ops either: the legacy uint8 models): every
# Vela stream must still run on the virtual NPU, the other ops skipped
# (--npu-only).
ran=0
for cfg in u55-128 u65-256; do
  for v in "$Z"/vela51/$cfg/*_vela.tflite; do
    m=$(basename "$v" _vela.tflite)
    case " $(echo $models) $whole " in *" $m "*) continue ;; esac
    if ! "$npuc" run "$v" --npu-only --random-input --quiet 2> "$tmp/err.txt"; then
      echo "FAIL: $cfg/$m (--npu-only): $(head -c 400 "$tmp/err.txt")"; fails=$((fails + 1))
    else
      ran=$((ran + 1))
    fi
  done
done
echo "vela51: $ran streams of models without goldens run with --npu-only"

[ $fails -eq 0 ] && echo "all Vela 5.1 streams run; those with goldens give their bytes, every difference an explained exception"
exit $(( fails > 125 ? 125 : fails ))
