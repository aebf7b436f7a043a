/* What the compiler's differential tests (tests/test_cc_*.c) share: the six
 * variants, an integer from the environment, the interpreter hooks that
 * run a compiled model's `ethos-u` ops on one virtual NPU, and the harness
 * (cc_check_compile, cc_check_placement, cc_check_draws and for a
 * single-op graph cc_check_single_op: compile, placement, both sides over
 * input draws compared byte for byte; the input patterns). Header-only:
 * each test is one translation unit. */
#ifndef NPUC_CC_TEST_NPU_H
#define NPUC_CC_TEST_NPU_H

#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/interp/interp_ethosu.h"
#include "../src/sim/sim.h"
#include "../src/tflite/tflite.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
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

/* The harness of a differential test: one configuration (described by
 * `cs` in every FAIL line) compiled, then run on both sides over n_draws
 * input draws with every output compared byte for byte. */

/* Fills input k (n bytes) for draw d from r. */
typedef void (*cc_fill_fn)(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n);
/* Prints why output k of draw d differs (first differing byte `at`);
 * `in` holds the last input filled. */
typedef void (*cc_diff_fn)(void *user, const cc_twin *t, int draw, int32_t k, const uint8_t *in, size_t at);
/* Called for each output k (size bytes) that matched. */
typedef void (*cc_seen_fn)(void *user, const cc_twin *t, int32_t k, size_t size);

/* cc_draws.npu_runs: no check, one ethos-u op run per draw, at least one */
enum { CC_RUNS_ANY, CC_RUNS_ONE, CC_RUNS_SOME };

typedef struct cc_draws {
    int n_draws;
    uint64_t seed;        /* of the draws' generator */
    cc_fill_fn fill;      /* required */
    cc_diff_fn diff;      /* NULL: "output k differs at byte at of size" */
    cc_seen_fn seen;      /* optional */
    void *user;
    int *runs;            /* optional: +1 per draw both sides ran */
    int npu_runs;         /* CC_RUNS_*: what to check of the NPU runs */
} cc_draws;

/* Compiles src for v with opt; prints the failure. */
static inline bool cc_check_compile(const char *cs, const graph *src, eu_variant v, cc_options opt, cc_model **cm)
{
    npuc_err e = {0};
    if (!src) {
        fprintf(stderr, "FAIL %s: graph build\n", cs);
        return false;
    }
    if (cc_compile_for(src, v, opt, cm, &e)) {
        fprintf(stderr, "FAIL %s: compile: %s\n", cs, e.msg);
        return false;
    }
    return true;
}

/* Runs cm (on the virtual NPU of v) and src (on the reference) over the
 * draws of d; false (printed) on the first failure or difference. */
static inline bool cc_check_draws(const char *cs, const graph *src, const cc_model *cm, eu_variant v,
                                  const cc_draws *d)
{
    npuc_err e = {0};
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    uint8_t *in = NULL;
    bool ok = false;
    const char *stage;
    if (cc_twin_open(&tw, src, cm, v, &stage, &e)) {
        fprintf(stderr, "FAIL %s: %s: %s\n", cs, stage, e.msg);
        goto out;
    }
    npuc_rng rng;
    npuc_rng_seed(&rng, d->seed);
    for (int draw = 0; draw < d->n_draws; draw++) {
        const char *side = "set input";
        bool bad = false;
        for (int32_t k = 0; k < src->n_inputs && !bad; k++) {
            const graph_tensor *ti = &src->tensors[src->inputs[k]];
            free(in);
            in = malloc(ti->nbytes + 1);
            if (!in) {
                fprintf(stderr, "FAIL %s: out of memory\n", cs);
                goto out;
            }
            d->fill(d->user, &rng, draw, k, in, ti->nbytes);
            bad = cc_twin_set_input(&tw, k, in, ti->nbytes, &e) != 0;
        }
        if (bad || cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s, seed %llu, draw %d: %s: %s\n", cs, (unsigned long long)d->seed, draw, side,
                    e.msg);
            goto out;
        }
        if (d->runs) (*d->runs)++;
        for (int32_t k = 0; k < src->n_outputs; k++) {
            size_t at, size;
            if (!cc_twin_same(&tw, k, &at, &size)) {
                if (d->diff) d->diff(d->user, &tw, draw, k, in, at);
                else
                    fprintf(stderr, "FAIL %s, seed %llu, draw %d: output %d differs at byte %zu of %zu\n", cs,
                            (unsigned long long)d->seed, draw, (int)k, at, size);
                goto out;
            }
            if (d->seen) d->seen(d->user, &tw, k, size);
        }
    }
    if ((d->npu_runs == CC_RUNS_ONE && tw.nc.n_runs != d->n_draws) ||
        (d->npu_runs == CC_RUNS_SOME && tw.nc.n_runs < d->n_draws)) {
        fprintf(stderr, "FAIL %s: %d NPU runs for %d draws\n", cs, tw.nc.n_runs, d->n_draws);
        goto out;
    }
    ok = true;
out:
    free(in);
    cc_twin_close(&tw);
    return ok;
}

/* A chain of single-input ops of one shape from one input (the int16
 * activations, QUANTIZE), and what the compiler must do with each op. */
enum { CC_X_ANY, CC_X_NPU, CC_X_CPU };

#define CC_MAX_CHAIN 5

typedef struct cc_chain_op {
    int32_t opcode;
    float alpha;              /* LEAKY_RELU */
    graph_dtype out_dt;
    float os;
    int64_t ozp;
    int expect;               /* CC_X_* */
    int n_eu;                 /* CC_X_NPU: NPU ops (0: any) */
    const char *why;          /* CC_X_CPU: part of the reason (NULL: the reference's message) */
} cc_chain_op;

typedef struct cc_chain {
    graph_dtype in_dt;
    float is;
    int64_t izp;
    int32_t shape[4];
    int n;
    cc_chain_op ops[CC_MAX_CHAIN];
    int streams;              /* > 0: the HW epochs the model must have */
    eu_variant variant;
    cc_optimise optimise;
} cc_chain;

static inline void cc_chain_str(const cc_chain *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s [%d,%d,%d,%d] scale %.9g zp %lld", graph_dtype_name(c->in_dt),
                                c->shape[0], c->shape[1], c->shape[2], c->shape[3], (double)c->is,
                                (long long)c->izp);
    for (int i = 0; i < c->n && o < size; i++) {
        const cc_chain_op *p = &c->ops[i];
        o += (size_t)snprintf(buf + o, size - o, " -> %s", tfl_builtin_name(p->opcode));
        if (p->opcode == TFL_OP_LEAKY_RELU && o < size) o += (size_t)snprintf(buf + o, size - o, "(%.9g)", (double)p->alpha);
        if (o < size)
            o += (size_t)snprintf(buf + o, size - o, " %s scale %.9g zp %lld", graph_dtype_name(p->out_dt),
                                  (double)p->os, (long long)p->ozp);
    }
    if (o < size) snprintf(buf + o, size - o, ", %s%s", target_variant_name(c->variant),
                           c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static inline graph *cc_chain_graph(const cc_chain *c, const char *name)
{
    graph *g = graph_new(name);
    if (!g) return NULL;
    int32_t prev = graph_add_tensor(g, "x", c->in_dt, 4, c->shape, NULL);
    int32_t first = prev;
    bool ok = prev >= 0 && !graph_set_quant(g, prev, 1, &c->is, &c->izp, 0);
    for (int i = 0; ok && i < c->n; i++) {
        const cc_chain_op *p = &c->ops[i];
        char tname[16];
        snprintf(tname, sizeof tname, "y%d", i);
        int32_t t = graph_add_tensor(g, tname, p->out_dt, 4, c->shape, NULL);
        tfl_options opt;
        memset(&opt, 0, sizeof opt);
        opt.alpha = p->alpha;
        ok = t >= 0 && !graph_set_quant(g, t, 1, &p->os, &p->ozp, 0) &&
             graph_add_op(g, p->opcode, &opt, 1, &prev, 1, &t) >= 0;
        prev = t;
    }
    if (!ok || graph_set_io(g, 1, &first, 1, &prev)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* 1 when op i's first NPU op is the copy of its input into a temp that a
 * U65's fast pool holds (lower.c, stage_input: the op's IFM is a graph
 * input in the DRAM arena), else 0: the NPU ops of the op's own form are
 * the others. */
static inline int cc_staged_copies(const cc_model *cm, int32_t i)
{
    const cc_op_info *info = &cm->ops[i];
    if (!info->npu || info->n_eu < 2 || info->epoch < 0) return 0;
    const eu_op *o = &cm->epochs[info->epoch].ops[info->first_eu];
    const graph_op *op = &cm->g->ops[i];
    if (op->n_in < 1 || op->in[0] < 0 || o->ifm.buf < 0 || o->ifm.buf != cm->buf_of[op->in[0]]) return 0;
    if (o->ofm.buf < 0 || !cm->bufs[o->ofm.buf].temp || o->wbuf >= 0 || !cc_fast_bytes(&cm->opt)) return 0;
    /* a raw copy of the whole buffer's bytes */
    uint64_t n = cm->bufs[o->ifm.buf].size;
    return (o->kind == SIM_K_POOL || o->kind == SIM_K_ELEMENTWISE) && cm->bufs[o->ofm.buf].size == n &&
           o->ifm.bits == 8 && o->ofm.bits == 8 && !o->ifm.zp && !o->ofm.zp && !o->ifm.off && !o->ofm.off &&
           o->ifm.h == o->ofm.h && o->ifm.w == o->ofm.w && o->ifm.c == o->ofm.c &&
           (uint64_t)o->ofm.h * o->ofm.w * o->ofm.c == n;
}

/* Checks the placement of every op of chain c compiled into cm (counted in
 * *n_npu / *n_cpu; *any_npu: whether one is on the NPU): an op expected on
 * the NPU is there, in want_eu(p, info) NPU ops when that is not 0 (NULL:
 * p->n_eu), one expected on the CPU stays there with p->why in its reason
 * (NULL: the reference must reject it, with its message); c->streams > 0:
 * the model is that many command streams and nothing else. */
static inline bool cc_chain_check(const char *cs, const graph *src, const cc_model *cm, const cc_chain *c,
                                  int (*want_eu)(const cc_chain_op *p, const cc_op_info *info), int *n_npu,
                                  int *n_cpu, bool *any_npu)
{
    *any_npu = false;
    for (int i = 0; i < c->n; i++) {
        const cc_chain_op *p = &c->ops[i];
        const cc_op_info *info = &cm->ops[i];
        info->npu ? (*n_npu)++ : (*n_cpu)++;
        *any_npu = *any_npu || info->npu;
        if (p->expect == CC_X_NPU && !info->npu) {
            fprintf(stderr, "FAIL %s: op %d expected on the NPU, got CPU: %s\n", cs, i, info->why);
            return false;
        }
        int want = want_eu ? want_eu(p, info) : p->n_eu;
        int got = info->n_eu - cc_staged_copies(cm, i);
        if (p->expect != CC_X_CPU && info->npu && want && got != want) {
            fprintf(stderr, "FAIL %s: op %d: %d NPU ops, expected %d\n", cs, i, got, want);
            return false;
        }
        if (p->expect == CC_X_CPU) {
            char why[160];
            if (p->why) {
                snprintf(why, sizeof why, "%s", p->why);
            } else if (interp_op_supported(src, &src->ops[i], why, sizeof why)) {
                fprintf(stderr, "FAIL %s: op %d: the reference accepts it\n", cs, i);
                return false;
            }
            if (info->npu || !strstr(info->why, why)) {
                fprintf(stderr, "FAIL %s: op %d expected on the CPU with \"%s\", got %s%s\n", cs, i, why,
                        info->npu ? "NPU" : "CPU: ", info->npu ? "" : info->why);
                return false;
            }
        }
    }
    if (c->streams > 0) {
        int hw = 0;
        for (int32_t k = 0; k < cm->n_epochs; k++) hw += cm->epochs[k].kind == CC_EPOCH_HW;
        if (hw != c->streams || cm->n_epochs != c->streams) {
            fprintf(stderr, "FAIL %s: %d epochs, %d of them HW; expected %d command streams and nothing else\n",
                    cs, cm->n_epochs, hw, c->streams);
            return false;
        }
    }
    return true;
}

/* Builds chain c (graph `name`), compiles it, checks it (cc_chain_check)
 * and when an op is on the NPU runs the draws of d; cs describes c. */
static inline bool cc_run_chain(const cc_chain *c, const char *name, const char *cs,
                                int (*want_eu)(const cc_chain_op *p, const cc_op_info *info), int *n_npu,
                                int *n_cpu, const cc_draws *d)
{
    graph *src = cc_chain_graph(c, name);
    cc_model *cm = NULL;
    bool ok = false, any_npu = false;
    if (cc_check_compile(cs, src, c->variant, (cc_options){.optimise = c->optimise}, &cm) &&
        cc_chain_check(cs, src, cm, c, want_eu, n_npu, n_cpu, &any_npu))
        ok = !any_npu || cc_check_draws(cs, src, cm, c->variant, d);
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

/* Fills n values of a 1-byte (int8 / uint8) or int16 tensor: every value
 * of the type once (as far as n holds them), in a random order, then
 * random values. */
static inline void cc_fill_every_value(npuc_rng *r, graph_dtype dt, void *buf, size_t n)
{
    bool wide = dt == GRAPH_I16;
    size_t nv = wide ? 65536 : 256;
    for (size_t i = 0; i < n; i++) {
        int64_t v = i < nv ? (int64_t)i - (int64_t)nv / 2 : npuc_rng_range(r, -(int64_t)nv / 2, (int64_t)nv / 2 - 1);
        if (wide) ((int16_t *)buf)[i] = (int16_t)v;
        else ((uint8_t *)buf)[i] = (uint8_t)(int8_t)v;
    }
    size_t m = n < nv ? n : nv;
    for (size_t i = m; i > 1; i--) {
        size_t j = (size_t)npuc_rng_range(r, 0, (int64_t)i - 1);
        if (wide) {
            int16_t t = ((int16_t *)buf)[i - 1];
            ((int16_t *)buf)[i - 1] = ((int16_t *)buf)[j];
            ((int16_t *)buf)[j] = t;
        } else {
            uint8_t t = ((uint8_t *)buf)[i - 1];
            ((uint8_t *)buf)[i - 1] = ((uint8_t *)buf)[j];
            ((uint8_t *)buf)[j] = t;
        }
    }
}

/* Input patterns of an int8 / int16 tensor of n values: 0 uniform, 1 the
 * lowest value, 2 the highest, 3 either extreme at random, 4 one random
 * constant, 5 (and above) near one random value (ties of the rounding). */
static inline void cc_fill_pattern(npuc_rng *r, int pattern, graph_dtype dt, void *buf, size_t n)
{
    int64_t lo = dt == GRAPH_I8 ? -128 : -32768, hi = dt == GRAPH_I8 ? 127 : 32767;
    int64_t base = npuc_rng_range(r, lo, hi);
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        switch (pattern) {
        case 0: v = npuc_rng_range(r, lo, hi); break;
        case 1: v = lo; break;
        case 2: v = hi; break;
        case 3: v = npuc_rng_range(r, 0, 1) ? lo : hi; break;
        case 4: v = base; break;
        default: {
            v = base + npuc_rng_range(r, -2, 2);
            v = v < lo ? lo : v > hi ? hi : v;
            break;
        }
        }
        if (dt == GRAPH_I8) ((int8_t *)buf)[i] = (int8_t)v;
        else ((int16_t *)buf)[i] = (int16_t)v;
    }
}

/* cc_draws.user of cc_fill_patterns / cc_diff_elements (or the first
 * member of a larger one): the tensors' type, and for the FAIL line the
 * configuration, the seed and the draw's pattern. */
typedef struct cc_pat_ctx {
    graph_dtype dt;
    const char *cs;
    uint64_t seed;
    int pat;
} cc_pat_ctx;

/* Draw d: pattern d for the first six, then a random one. */
static inline void cc_fill_patterns(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    cc_pat_ctx *x = user;
    (void)k;
    x->pat = d < 6 ? d : (int)npuc_rng_range(r, 0, 5);
    cc_fill_pattern(r, x->pat, x->dt, buf, n / graph_dtype_size(x->dt));
}

/* Prints the first int8 / int16 element of output k that differs. */
static inline void cc_diff_elements(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t at)
{
    cc_pat_ctx *x = user;
    size_t size, es = graph_dtype_size(x->dt);
    (void)in;
    const uint8_t *oa = interp_output(t->ref, k, &size), *ob = interp_output(t->npu, k, &size);
    at -= at % es;
    long long va = es == 1 ? (int8_t)oa[at] : ((const int16_t *)oa)[at / 2];
    long long vb = es == 1 ? (int8_t)ob[at] : ((const int16_t *)ob)[at / 2];
    fprintf(stderr, "FAIL %s, seed %llu, draw %d (pattern %d): element %zu reference %lld, NPU %lld\n", x->cs,
            (unsigned long long)x->seed, d, x->pat, at / es, va, vb);
}

/* Op 0 of cm: on the NPU (expect_npu 1), on the CPU with a reason that
 * holds `why` when given (0), or either (-1); an op on the CPU always has
 * a reason, printed when verbose_env is set in the environment. */
static inline bool cc_check_placement(const char *cs, const cc_model *cm, int expect_npu, const char *why,
                                      const char *verbose_env)
{
    const cc_op_info *o = &cm->ops[0];
    if (expect_npu >= 0 && o->npu != (expect_npu == 1)) {
        fprintf(stderr, "FAIL %s: expected on the %s, got %s%s\n", cs, expect_npu ? "NPU" : "CPU",
                o->npu ? "NPU" : "CPU: ", o->npu ? "" : o->why);
        return false;
    }
    if (o->npu) return true;
    if (!o->why[0]) {
        fprintf(stderr, "FAIL %s: CPU without a reason\n", cs);
        return false;
    }
    if (verbose_env && getenv(verbose_env)) printf("CPU %s: %s\n", cs, o->why);
    if (why && !strstr(o->why, why)) {
        fprintf(stderr, "FAIL %s: reason \"%s\", expected \"%s\"\n", cs, o->why, why);
        return false;
    }
    return true;
}

/* Where a single-op configuration ended. */
enum { CC_SINGLE_FAIL, CC_SINGLE_REJECTED, CC_SINGLE_CPU, CC_SINGLE_NPU };

/* Whether that end passes: a rejected one only when expect_npu < 0. */
static inline bool cc_single_ok(int res, int expect_npu)
{
    return res == CC_SINGLE_REJECTED ? expect_npu < 0 : res != CC_SINGLE_FAIL;
}

/* A single-op graph: the reference must accept op 0 (else REJECTED,
 * printed as a failure unless expect_npu < 0), then it is compiled for v with opt and
 * op 0 must be on the NPU (expect_npu 1), on the CPU with a reason that
 * holds `why` when given (0), or either (-1); check (optional) sees the
 * compiled model before the draws run (on the NPU only); *placed
 * (optional) is op 0's placement once compiled (1 NPU, 0 CPU), else -1;
 * the reason of each op left on the CPU is printed when verbose_env is
 * set in the environment. */
typedef bool (*cc_model_fn)(void *user, const cc_model *cm);

static inline int cc_check_single_op(const char *cs, const graph *src, eu_variant v, cc_options opt, int expect_npu,
                                     const char *why, const char *verbose_env, cc_model_fn check,
                                     const cc_draws *d, int *placed)
{
    if (placed) *placed = -1;
    char rwhy[160];
    cc_model *cm = NULL;
    int res = CC_SINGLE_FAIL;
    if (!src) {
        fprintf(stderr, "FAIL %s: graph build\n", cs);
        return res;
    }
    if (!interp_op_supported(src, &src->ops[0], rwhy, sizeof rwhy)) {
        if (expect_npu >= 0) fprintf(stderr, "FAIL %s: the reference rejects it: %s\n", cs, rwhy);
        return CC_SINGLE_REJECTED;
    }
    if (!cc_check_compile(cs, src, v, opt, &cm)) return res;
    if (placed) *placed = cm->ops[0].npu;
    if (!cc_check_placement(cs, cm, expect_npu, why, verbose_env)) goto out;
    if (!cm->ops[0].npu) {
        res = CC_SINGLE_CPU;
        goto out;
    }
    if (check && !check(d->user, cm)) goto out;
    if (cc_check_draws(cs, src, cm, v, d)) res = CC_SINGLE_NPU;
out:
    cc_model_free(cm);
    return res;
}

/* Random bytes for every input of every draw (a cc_draws fill). */
static inline void cc_fill_bytes(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)draw;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_next(r);
}

/* The shared model at `rel` (below the shared folder, test.h t_shared)
 * read and imported: 1 with *tm and *g set (the caller frees both), 0 when
 * the shared folder is absent (printed as a skip), -1 on an error (printed;
 * *tm may be set). */
static inline int cc_load_shared(const char *rel, tfl_model **tm, graph **g)
{
    char buf[1024];
    *tm = NULL;
    *g = NULL;
    const char *path = t_shared(rel, buf, sizeof buf);
    if (!path) {
        printf("skip %s: the shared folder is absent\n", rel);
        return 0;
    }
    npuc_err err = {0};
    if (tfl_read_file(path, tm, &err) || graph_import(*tm, g, &err)) {
        fprintf(stderr, "FAIL %s: %s\n", rel, err.msg);
        return -1;
    }
    return 1;
}

/* The shared model at `rel` read, imported (cc_load_shared) and compiled
 * for v with the options opt (cc_check_compile): true with *tm, *g and *cm
 * set; false when absent or on an error (CHECKed; what is set the caller
 * frees: cc_model_free, graph_free and tfl_model_free take NULL). */
static inline bool cc_compile_shared_with(const char *rel, eu_variant v, cc_options opt, tfl_model **tm,
                                          graph **g, cc_model **cm)
{
    *cm = NULL;
    int loaded = cc_load_shared(rel, tm, g);
    if (!loaded) return false;
    CHECK(loaded > 0);
    return *g && cc_check_compile(rel, *g, v, opt, cm);
}

/* cc_compile_shared_with the default options. */
static inline bool cc_compile_shared(const char *rel, eu_variant v, tfl_model **tm, graph **g, cc_model **cm)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    return cc_compile_shared_with(rel, v, opt, tm, g, cm);
}

/* Adds to g a random CONV_2D / DEPTHWISE_CONV_2D (dw) with the options opt
 * reading tensor ti (scale si, type dt) into a new tensor NAME of oshape:
 * int8 weights of wshape in [-127, 127] with per-channel scales, bias int32
 * (int8) / int64 (int16) about the spread of the sums, an output scale
 * about their spread and (int8) a random zero point; the constants are
 * NAME_w and NAME_b. Draws from r in that order. Returns the output
 * tensor, -1 on failure. */
static inline int32_t cc_rand_conv(graph *g, npuc_rng *r, int32_t ti, float si, graph_dtype dt, bool dw,
                                   const int32_t wshape[4], const int32_t oshape[4], const tfl_options *opt,
                                   const char *name)
{
    int32_t oc = oshape[3], bshape = oc;
    int32_t k = wshape[1] * wshape[2] * (dw ? 1 : wshape[3]);
    size_t nw = (size_t)oc * (size_t)k;
    int8_t *w = malloc(nw + 1);
    int64_t *b64 = malloc(sizeof *b64 * (size_t)oc);
    int32_t *b32 = malloc(sizeof *b32 * (size_t)oc);
    float *ws = malloc(sizeof *ws * (size_t)oc), *bs = malloc(sizeof *bs * (size_t)oc);
    int64_t *zp0 = calloc((size_t)oc, sizeof *zp0);
    int32_t to = -1;
    if (!w || !b64 || !b32 || !ws || !bs || !zp0) goto out;
    for (size_t i = 0; i < nw; i++) w[i] = (int8_t)npuc_rng_range(r, -127, 127);
    for (int32_t o = 0; o < oc; o++) {
        ws[o] = (float)(0.002 * pow(2.0, npuc_rng_unit(r) * 4));
        bs[o] = si * ws[o];
        double range = (dt == GRAPH_I16 ? 200000.0 : 2000.0) * sqrt((double)k);
        b64[o] = (int64_t)((npuc_rng_unit(r) * 2 - 1) * range);
        b32[o] = (int32_t)b64[o];
    }
    float so = (float)((double)si * (double)ws[0] * sqrt((double)k) * (dt == GRAPH_I16 ? 60.0 : 20.0) *
                       pow(2.0, npuc_rng_unit(r) * 2 - 1));
    char nm[64];
    snprintf(nm, sizeof nm, "%s_w", name);
    int32_t tw = graph_add_tensor(g, nm, GRAPH_I8, 4, wshape, w);
    snprintf(nm, sizeof nm, "%s_b", name);
    int32_t tb = graph_add_tensor(g, nm, dt == GRAPH_I16 ? GRAPH_I64 : GRAPH_I32, 1, &bshape,
                                  dt == GRAPH_I16 ? (const void *)b64 : (const void *)b32);
    int32_t t = graph_add_tensor(g, name, dt, 4, oshape, NULL);
    int64_t zo = dt == GRAPH_I8 ? npuc_rng_range(r, -100, 100) : 0;
    int32_t ins[3] = {ti, tw, tb};
    if (tw >= 0 && tb >= 0 && t >= 0 && !graph_set_quant(g, tw, oc, ws, zp0, dw ? 3 : 0) &&
        !graph_set_quant(g, tb, oc, bs, zp0, 0) && !graph_set_quant(g, t, 1, &so, &zo, 0) &&
        graph_add_op(g, dw ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D, opt, 3, ins, 1, &t) >= 0)
        to = t;
out:
    free(w);
    free(b64);
    free(b32);
    free(ws);
    free(bs);
    free(zp0);
    return to;
}

#endif
