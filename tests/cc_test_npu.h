/* What the compiler's differential tests (tests/test_cc_*.c) share: the six
 * variants, an integer from the environment, and the interpreter hooks that
 * run a compiled model's `ethos-u` ops on one virtual NPU. Header-only: each
 * test is one translation unit. */
#ifndef NPUC_CC_TEST_NPU_H
#define NPUC_CC_TEST_NPU_H

#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdlib.h>

static const sim_variant variants[6] = {SIM_U55_32, SIM_U55_64, SIM_U55_128,
                                        SIM_U55_256, SIM_U65_256, SIM_U65_512};

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    long x = strtol(v, &end, 0);
    return *end ? def : x;
}

/* interp_options.custom_user: the NPU (created on first use) and its runs */
typedef struct npu_ctx {
    sim_npu *npu;
    sim_variant variant;
    int n_runs;
} npu_ctx;

static bool accept_ethosu(void *user, const graph_op *op)
{
    (void)user;
    return sim_is_ethosu_op(op);
}

static int eval_ethosu(void *user, interp *ip, const graph_op *op, npuc_err *err)
{
    npu_ctx *r = user;
    int rc;
    if (!r->npu) {
        sim_system sys;
        sim_system_default(r->variant, &sys);
        if ((rc = sim_npu_create(r->variant, &sys, &r->npu, err))) return rc;
    }
    rc = sim_run_ethosu_interp(r->npu, ip, op, err);
    if (rc) return rc;
    r->n_runs++;
    return NPUC_OK;
}

#endif
