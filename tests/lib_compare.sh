# Shared by the shell tests that compare a model run on the virtual NPU with
# its original on the reference interpreter (sourced, not run). Needs $npuc
# and $tmp; counts failures in $fails and comparisons in $runs.

le32() {   # little-endian int32 bytes of $1
  local v=$(( $1 & 0xFFFFFFFF ))
  printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $(((v >> 8) & 255)))\\x$(printf %02x $(((v >> 16) & 255)))\\x$(printf %02x $(((v >> 24) & 255)))"
}

# Models whose first input is a TRANSPOSE_CONV output_shape (int32 [4]) get
# the output tensor's real shape there instead of random values.
shape_args() {
  local model=$1 info shape
  info=$("$npuc" inspect "$model") || return 1
  if ! grep -A1 '^inputs:' <<<"$info" | grep -q "int32 \[4\]"; then return 0; fi
  shape=$(grep -A1 '^outputs:' <<<"$info" | tail -1 | grep -o '\[[0-9,]*\]' | tail -1 | tr -d '[]' | tr ',' ' ')
  : > "$tmp/shape.bin"
  for d in $shape; do le32 "$d" >> "$tmp/shape.bin"; done
  echo "--input $tmp/shape.bin"
}

compare() {   # compare NPU_MODEL ORIGINAL LABEL RUN-ARGS...
  local npu=$1 orig=$2 label=$3; shift 3
  runs=$((runs+1))
  if ! "$npuc" run "$npu" "$@" --quiet --output "$tmp/a.bin" 2> "$tmp/err.txt"; then
    echo "FAIL: $label: virtual NPU run failed: $(cat "$tmp/err.txt")"; fails=$((fails+1)); return 1
  fi
  if ! "$npuc" run "$orig" "$@" --quiet --output "$tmp/b.bin" 2> "$tmp/err.txt"; then
    echo "FAIL: $label: reference run failed: $(cat "$tmp/err.txt")"; fails=$((fails+1)); return 1
  fi
  if ! cmp -s "$tmp/a.bin" "$tmp/b.bin"; then
    echo "FAIL: $label: outputs differ"
    echo "  virtual NPU: $(od -An -t x1 "$tmp/a.bin" | head -3 | tr -s ' ')"
    echo "  reference:   $(od -An -t x1 "$tmp/b.bin" | head -3 | tr -s ' ')"
    fails=$((fails+1)); return 1
  fi
  return 0
}
