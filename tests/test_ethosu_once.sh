#!/usr/bin/env bash
# The Ethos-U hardware facts are defined once, in src/ethosu (docs/design.md):
# outside it no code (src, include, examples, bench, fuzz, tools, the tests'
# stream assembler) may
#   - spell the COP1 magic 0x31504F43,
#   - define a register offset or a command code with a number (an enum
#     member or #define named like a register or a command, = 0x...),
#   - switch on a command code or register by its number (case 0x10F:),
#   - give a PMU event its number ([ETHOSU_PMU_CYCLE] = 0x11),
#   - keep its own table of command codes ({0x10F, ...}).
# Names that only alias src/ethosu's (#define SIM_IFM_REGION EU_SET_IFM_REGION)
# are fine. Fails with the offending lines.
set -u
src=${NPUC_SRC:?}
cd "$src" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }

files=$(find src include examples bench fuzz tools -name '*.[ch]' -not -path 'src/ethosu/*' 2>/dev/null | sort)
files="$files tests/sim_asm.h"
[ -f src/ethosu/eu_regs.h ] && [ -f src/ethosu/eu_cmd.h ] && [ -f src/ethosu/eu_cop1.h ] ||
  { echo "FAIL: src/ethosu/eu_regs.h, eu_cmd.h or eu_cop1.h missing"; exit 1; }

# search PATTERN WHAT: grep -E over the files, every hit is a failure
search() {
  local hits
  hits=$(grep -nEi -- "$1" $files || true)
  if [ -n "$hits" ]; then
    fail "$2 outside src/ethosu:"
    echo "$hits" | sed 's/^/    /'
  fi
}

# the magic, in any spelling of its hex
search '0x31504f43' "the COP1 magic"
grep -q '0x31504F43' src/ethosu/eu_cop1.h || fail "src/ethosu/eu_cop1.h does not define the COP1 magic"

# register names from eu_regs.h, command names from eu_cmd.h
regs=$(sed -nE 's/^ *EU_REG_([A-Z0-9_]+) = 0x[0-9A-Fa-f]+.*/\1/p' src/ethosu/eu_regs.h | sort -u)
cmds=$(grep -oE 'EU_(OP|SET)_[A-Z0-9_]+ = 0x[0-9A-Fa-f]+' src/ethosu/eu_cmd.h | sed -E 's/^EU_(OP|SET)_//; s/ = .*//' | sort -u)
[ "$(echo "$regs" | wc -w)" -ge 25 ] || fail "could not read the register names from eu_regs.h"
[ "$(echo "$cmds" | wc -w)" -ge 90 ] || fail "could not read the command names from eu_cmd.h"
reg_alt=$(echo $regs | tr ' ' '|')
cmd_alt=$(echo $cmds | tr ' ' '|')
num='(0x[0-9a-f]+|[0-9]+u?)\b'
search "\b[a-z0-9_]*reg_($reg_alt)\s*=\s*$num" "a register offset defined"
search "#define\s+[a-z0-9_]*reg_($reg_alt)\s+\(?$num" "a register offset defined"
search "\b[a-z0-9_]*_($cmd_alt)\s*=\s*0x[0-9a-f]{3,4}\b" "a command code defined"
search "#define\s+[a-z0-9_]*_($cmd_alt)\s+\(?0x[0-9a-f]{3,4}\b" "a command code defined"
# numeric case labels and code tables in the rooms that read streams/registers
files_save=$files
files=$(echo "$files_save" | tr ' ' '\n' | grep -E '^(src/(driver|sim|runtime|compiler/ethosu)|tests/sim_asm.h)')
search 'case 0x[0-9a-f]{3,4}u?:' "a command code or register switched on by number"
search '\{ *0x[0-9a-f]{3,4}u?, *[a-z_]+, *"npu_' "a table of command codes"
files=$files_save
search '\[ethosu_pmu_[a-z0-9_]+\] *= *0x' "a PMU event number defined"

[ "$fails" -eq 0 ] && echo "ok: register offsets, command codes, PMU events and the COP1 magic are defined only in src/ethosu"
exit $((fails > 0))
