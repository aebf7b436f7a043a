#!/usr/bin/env bash
# Flash and static RAM of the MCU driver + runtime (no kernels) on a
# Cortex-M55 (docs/embedded.md):
#
#   tools/bench_m55_size.sh [BUILD_PREFIX]     (default build-m55-size)
#
# Cross-builds (cmake/arm-none-eabi.cmake) at -O2 (Release) and -Os
# (MinSizeRel), then reports for each:
#   - linked: what libethosu_driver.a, libnpurt.a and the part of
#     libnpuc_ethosu.a they use (the COP1 parser) put into a minimal
#     firmware that loads and runs a model through the driver's MMIO backend
#     (bench/m55_size_probe.c, kernels stubbed out), per object file, read
#     from its link map (--gc-sections drops what is not called);
#   - archives: arm-none-eabi-size totals of the two libraries (every
#     function, an upper bound).
# Targets: driver + runtime under 8 KiB flash and 512 B static RAM. A
# benchmark: it prints figures and exits 0 even when a target is missed
# (1 only when it cannot build).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-build-m55-size}
if ! command -v arm-none-eabi-gcc >/dev/null 2>&1; then
  echo "bench_m55_size: arm-none-eabi-gcc not found (bash tools/setup.sh installs it)" >&2
  exit 1
fi
flash_target=8192
ram_target=512

# Sums the input sections of a GNU ld map per "archive(member)": prints
# "archive member code rodata data bss". Plain awk (no gawk extensions).
mapsum() {
  awk '
    function hex(s,   i, v) {
      v = 0; s = tolower(s); sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return v
    }
    function add(   key, lib, obj) {
      if (!match(file, /[^\/]*\.a\(.*\)$/)) return
      key = substr(file, RSTART, RLENGTH)
      lib = key; sub(/\(.*$/, "", lib)
      obj = key; sub(/^[^(]*\(/, "", obj); sub(/\)$/, "", obj); sub(/\.c\.obj$/, "", obj)
      key = lib " " obj
      if (sec ~ /^\.(text|ARM\.(exidx|extab))/) code[key] += size
      else if (sec ~ /^\.rodata/) ro[key] += size
      else if (sec ~ /^\.data/) rw[key] += size
      else if (sec ~ /^\.bss/ || sec == "COMMON") zi[key] += size
      else return
      seen[key] = 1
    }
    /^Linker script and memory map/ { on = 1; next }
    !on { next }
    /^ \.[^ ]+/ || /^ COMMON/ {
      sec = $1
      if (NF >= 4 && $2 ~ /^0x/) { size = hex($3); file = $4; add(); sec = "" }
      next
    }
    sec != "" && /^ +0x[0-9a-fA-F]+ +0x[0-9a-fA-F]+ / { size = hex($2); file = $3; add(); sec = ""; next }
    { sec = "" }
    END { for (k in seen) print k, code[k] + 0, ro[k] + 0, rw[k] + 0, zi[k] + 0 }' "$1" | sort
}

verdict() { if [ "$1" -lt "$2" ]; then echo "within"; else echo "OVER"; fi; }

report() {   # report BUILD_TYPE LABEL [ERROR_TEXT]
  local type=$1 label=$2 text=${3:-ON} build=$prefix-$1-${3:-ON}
  cmake --no-warn-unused-cli -S . -B "$build" -G Ninja \
        -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DCMAKE_BUILD_TYPE="$type" \
        -DNPUC_ERROR_TEXT="$text" >/dev/null
  cmake --build "$build" -j 2 >/dev/null
  echo "== $label ($type, arm-none-eabi-gcc $(arm-none-eabi-gcc -dumpversion), $(
        grep -m1 '^TARGET_CPU:' "$build/CMakeCache.txt" | cut -d= -f2))"
  if [ ! -f "$build/m55_size_probe.map" ]; then
    echo "  (no size probe: src/runtime or src/driver missing)"
  else
    echo "  linked into a minimal firmware (bench/m55_size_probe.c):"
    local rows flash ram
    rows=$(mapsum "$build/m55_size_probe.map" | grep -E '^lib(ethosu_driver|npurt|npuc_ethosu)\.a ' || true)
    sched=$(grep -v npurt_model <<<"$rows")
    awk '{ printf "    %-18s %-22s code %5d  rodata %5d  data %3d  bss %4d\n", $1, $2, $3, $4, $5, $6 }' <<<"$rows"
    awk '{ c += $3; r += $4; d += $5; b += $6 }
         END { printf "    %-41s code %5d  rodata %5d  data %3d  bss %4d\n", "driver + runtime", c, r, d, b }' <<<"$rows"
    read -r flash ram < <(awk '{ f += $3 + $4 + $5; r += $5 + $6 } END { print f + 0, r + 0 }' <<<"$rows")
    echo "    flash (code + rodata + data) $flash B; static RAM (data + bss) $ram B"
    read -r flash ram < <(awk '{ f += $3 + $4 + $5; r += $5 + $6 } END { print f + 0, r + 0 }' <<<"$sched")
    echo "    driver + scheduler (all but the model loader npurt_model): flash $flash B:" \
         "$(verdict "$flash" $flash_target) the target of < $flash_target B; static RAM $ram B:" \
         "$(verdict "$ram" $ram_target) < $ram_target B"
  fi
  if [ -f "$build/m55_size_probe_reloc.map" ]; then
    local rrows
    rrows=$(mapsum "$build/m55_size_probe_reloc.map" | grep -E '^libnpurt\.a (npurt_reloc|npurt_sha|npurt_ed25519) ' || true)
    echo "  loadable-model install on top (bench/m55_size_probe.c with PROBE_RELOC: install with a"
    echo "  signature check, COPY + CLEAR):"
    awk '{ printf "    %-18s %-22s code %5d  rodata %5d  data %3d  bss %4d\n", $1, $2, $3, $4, $5, $6 }' <<<"$rrows"
    awk '{ f += $3 + $4 + $5; r += $5 + $6 } END { printf "    loader + SHA-256 + Ed25519: flash %d B, static RAM %d B\n", f, r }' <<<"$rrows"
  fi
  local lib t d b
  echo "  archives (all functions):"
  for lib in libethosu_driver.a libnpurt.a libnpuc_ethosu.a; do
    [ -f "$build/$lib" ] || continue
    read -r t d b < <(arm-none-eabi-size "$build/$lib" |
                      awk 'NR > 1 { t += $1; d += $2; b += $3 } END { print t + 0, d + 0, b + 0 }')
    printf "    %-20s text %6d  data %4d  bss %4d\n" "$lib" "$t" "$d" "$b"
  done
}

echo "MCU driver + runtime size (kernels excluded)"
report Release "-O2"
report MinSizeRel "-Os"
report MinSizeRel "-Os, error texts off (-DNPUC_ERROR_TEXT=OFF)" OFF
