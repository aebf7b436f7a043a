#!/bin/bash
# The rooms' layering (docs/design.md) as the build enforces it: no source
# of src/ reaches another room by a relative path, and each room's compile
# command sees only the rooms it links (cmake/rooms.cmake): including a
# header of a room above fails, one below compiles.
set -u
src=${NPUC_SRC:?}; build=${NPUC_BUILD:?}
fail=0
bad=$(grep -rn '#include "\.\./' "$src/src" || true)
if [ -n "$bad" ]; then
    echo "FAIL: relative includes between rooms:"; echo "$bad"; fail=1
fi
probe=$(mktemp -d); trap 'rm -rf "$probe"' EXIT
# the include flags of a room: from the compile command of one of its files
flags_of() {   # target room-folder
    ninja -C "$build" -t commands "$1" 2>/dev/null | grep -m1 " -c [^ ]*/src/$2/" |
        grep -o -- '-I[^ ]*\|-isystem [^ ]*' | tr '\n' ' '
}
check() {      # target room header expect(ok|fail)
    local fl; fl=$(flags_of "$1" "$2")
    if [ -z "$fl" ]; then echo "FAIL: no compile command for $1 ($2)"; fail=1; return; fi
    printf '#include "%s"\nint layering_probe(void);\nint layering_probe(void) { return 0; }\n' "$3" > "$probe/p.c"
    if cc -std=c11 -D_POSIX_C_SOURCE=200809L $fl -fsyntax-only "$probe/p.c" 2>/dev/null; then got=ok; else got=fail; fi
    if [ "$got" != "$4" ]; then echo "FAIL: room $2 including $3: expected $4, got $got"; fail=1; fi
}
#     target          room      header                   expect
check npuc_ethosu     ethosu    util/util.h              fail
check npuc_kernels    kernels   util/util.h              fail
check npuc_sim        sim       ethosu/eu_cmd.h          ok
check npuc_sim        sim       interp/interp.h          fail
check npuc_sim        sim       graph/graph.h            fail
check npuc_interp     interp    sim/sim.h                ok
check npuc_interp     interp    compiler/cc.h            fail
check npuc_target     target    sim/sim.h                ok
check npuc_target     target    compiler/cc.h            fail
check npuc_compiler   compiler  target/target.h          ok
check npuc_compiler   compiler  emit/emit.h              fail
check npuc_compiler   compiler  api/api.h                fail
check npuc_emit       emit      compiler/cc.h            ok
check npuc_emit       emit      driver/ethosu_device.h   fail
check ethosu_driver   driver    ethosu/eu_regs.h         ok
check ethosu_driver   driver    sim/sim.h                fail
check npurt           runtime   kernels/k_op.h           ok
check npurt           runtime   compiler/cc.h            fail
check npurt           runtime   graph/graph.h            fail
check npuc_api        api       runtime/npurt_int.h      ok
check npuc_api        api       validate/validate.h      fail
check npuc_validate   validate  api/api.h                ok
check npuc_validate   validate  cli/cli.h                fail
[ $fail = 0 ] && echo "layering checks passed"
exit $fail
