/* What the compiler's differential tests (tests/test_cc_*.c) share: the six
 * variants, an integer from the environment, and the interpreter hooks that
 * run a compiled model's `ethos-u` ops on one virtual NPU. Header-only: each
 * test is one translation unit. */
#ifndef NPUC_CC_TEST_NPU_H
#define NPUC_CC_TEST_NPU_H

#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/interp/interp_ethosu.h"
#include "../src/sim/sim.h"

#include <stdlib.h>
#include <string.h>

static const eu_variant variants[6] = {EU_U55_32, EU_U55_64, EU_U55_128,
                                        EU_U55_256, EU_U65_256, EU_U65_512};

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
    eu_variant variant;
    int n_runs;
} npu_ctx;

static bool accept_ethosu(void *user, const graph_op *op)
{
    (void)user;
    return interp_is_ethosu_op(op);
}

static int eval_ethosu(void *user, interp *ip, const graph_op *op, npuc_err *err)
{
    npu_ctx *r = user;
    int rc;
    if (!r->npu) {
        sim_system sys;
        target_default_sim(r->variant, &sys);
        if ((rc = sim_npu_create(r->variant, &sys, &r->npu, err))) return rc;
    }
    rc = interp_run_ethosu(r->npu, ip, op, err);
    if (rc) return rc;
    r->n_runs++;
    return NPUC_OK;
}

/* A compiled model as a user gets it (emitted as TFLite, written, read
 * back, imported) beside its source: `ref` runs the source graph on the
 * reference kernels, `npu` the compiled graph with its ethos-u ops on the
 * virtual NPU of nc.variant. It must not move once opened (the compiled
 * interpreter keeps &nc). */
typedef struct cc_twin {
    graph *cg;
    interp *ref, *npu;
    npu_ctx nc;
} cc_twin;

/* Fills *t (zero it first); on failure *stage names the step that failed
 * ("emit / read back" or "interp_create") and err says why. */
static int cc_twin_open(cc_twin *t, const graph *src, const cc_model *cm, eu_variant v, const char **stage,
                        npuc_err *err)
{
    tfl_model *tm = NULL, *rt = NULL;
    uint8_t *bytes = NULL;
    size_t nbytes = 0;
    t->nc.variant = v;
    *stage = "emit / read back";
    int rc = emit_tflite_model(cm, &tm, err);
    if (!rc) rc = tfl_write(tm, &bytes, &nbytes, err);
    if (!rc) rc = tfl_read(bytes, nbytes, &rt, err);
    if (!rc) rc = graph_import(rt, &t->cg, err);
    /* the imported graph owns copies of what it needs */
    tfl_model_free(tm);
    tfl_model_free(rt);
    free(bytes);
    if (rc) return rc;
    *stage = "interp_create";
    interp_options ro = {0};
    interp_options no = {.custom_accept = accept_ethosu, .custom_eval = eval_ethosu, .custom_user = &t->nc};
    rc = interp_create(src, &ro, &t->ref, err);
    if (!rc) rc = interp_create(t->cg, &no, &t->npu, err);
    return rc;
}

static void cc_twin_close(cc_twin *t)
{
    interp_free(t->ref);
    interp_free(t->npu);
    sim_npu_free(t->nc.npu);
    graph_free(t->cg);
    memset(t, 0, sizeof *t);
}

/* Compiles g for variant v (its default system) with the rest of opt. */
static inline int cc_compile_for(const graph *g, eu_variant v, cc_options opt, cc_model **cm, npuc_err *err)
{
    int rc = target_default(v, &opt.sys, err);
    return rc ? rc : cc_compile(g, &opt, cm, err);
}

/* Sets input k of both interpreters. */
static inline int cc_twin_set_input(cc_twin *t, int32_t k, const void *in, size_t n, npuc_err *err)
{
    int rc = interp_set_input(t->ref, k, in, n, err);
    return rc ? rc : interp_set_input(t->npu, k, in, n, err);
}

/* Runs the reference, then the compiled model; *side names the one that
 * failed. */
static inline int cc_twin_invoke(cc_twin *t, const char **side, npuc_err *err)
{
    *side = "reference run";
    int rc = interp_invoke(t->ref, err);
    if (rc) return rc;
    *side = "compiled run";
    return interp_invoke(t->npu, err);
}

/* Whether output k of the two is byte-identical; if not, *at is the first
 * byte that differs (or the shorter size) and *size the reference's size. */
static inline bool cc_twin_same(const cc_twin *t, int32_t k, size_t *at, size_t *size)
{
    size_t na = 0, nb = 0;
    const uint8_t *a = interp_output(t->ref, k, &na), *b = interp_output(t->npu, k, &nb);
    *size = na;
    *at = 0;
    if (a && b && na == nb && !memcmp(a, b, na)) return true;
    while (a && b && *at < na && *at < nb && a[*at] == b[*at]) (*at)++;
    return false;
}

#endif
