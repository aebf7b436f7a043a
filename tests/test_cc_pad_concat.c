/* PAD / PADV2 and CONCATENATION on the NPU (src/compiler/cc_pad.c,
 * cc_concat.c). Small graphs are built, compiled for an Ethos-U variant
 * (cc_compile -> emit_tflite_model -> tfl_write -> tfl_read -> graph_import,
 * as a user gets them), run with the ethos-u ops on the virtual NPU and
 * compared byte for byte with the reference interpreter on random inputs.
 * Each case also states where its ops must run (NPU, CPU with a reason) and
 * whether a PAD is folded into the convolution after it (no NPU ops).
 *
 *   - random PADs: int8 / int16, rank 1..4, pads of 0..3 on every dim
 *     (batch and channel included), several batches, PAD and PADV2,
 *     graph-input and constant inputs, pads far beyond the NPU's padding
 *     limits;
 *   - PAD -> CONV_2D / DEPTHWISE_CONV_2D: random kernels, strides,
 *     dilations, SAME / VALID; folded exactly when the rules say so, and
 *     the arena shrinks; not folded when the value is not the zero point,
 *     the output is read elsewhere, channels are padded, the sum exceeds the
 *     NPU's limits or the conv stays on the CPU;
 *   - random CONCATENATIONs: int8 / int16, rank 1..4, every axis (negative
 *     too), 1..8 inputs that are graph inputs, constants, outputs of NPU ops
 *     and of CPU ops, int8 inputs with other quantizations (rescaling LUT);
 *   - CPU fallbacks with their reasons.
 *
 * Environment: NPUC_PADCAT_CONFIGS (random configurations per family,
 * default 150), NPUC_PADCAT_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

/* ------------------------------------------------------------ harness */

/* What a case expects of graph op i. */
enum { X_ANY = 0, X_NPU, X_CPU, X_FOLD, X_NOFOLD };
typedef struct expect {
    int where[16];            /* per op: X_* */
    const char *why[16];      /* X_CPU: a substring of the reason */
} expect;

typedef struct stats {
    int cases, failed, folded, npu_ops, cpu_ops;
} stats;

static uint64_t g_seed;

/* Compiles g for variant v, checks placements and runs `draws` random
 * inputs through both. Returns the arena size (0 on failure). */
static uint64_t run_case(const char *name, graph *g, eu_variant v, cc_optimise optim, const expect *x, int draws,
                         stats *st)
{
    npuc_err e;
    memset(&e, 0, sizeof e);
    cc_model *cm = NULL;
    uint8_t *in = NULL;
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    uint64_t arena = 0;
    bool ok = false;
    st->cases++;
    if (!g) {
        fprintf(stderr, "FAIL %s: graph build\n", name);
        goto out;
    }
    /* constant inputs here test the NPU forms of PAD and CONCATENATION: no folding */
    if (cc_compile_for(g, v, (cc_options){.optimise = optim, .no_fold = true}, &cm, &e)) {
        fprintf(stderr, "FAIL %s (%s): compile: %s\n", name, target_variant_name(v), e.msg);
        goto out;
    }
    bool any_npu = false;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const cc_op_info *oi = &cm->ops[i];
        oi->npu ? st->npu_ops++ : st->cpu_ops++;
        any_npu |= oi->npu;
        bool folded = oi->npu && oi->n_eu == 0 &&
                      (g->ops[i].opcode == TFL_OP_PAD || g->ops[i].opcode == TFL_OP_PADV2);
        st->folded += folded;
        int w = i < 16 ? x->where[i] : X_ANY;
        const char *bad = NULL;
        if (w == X_NPU && (!oi->npu || folded)) bad = "expected on the NPU with ops";
        if (w == X_CPU && oi->npu) bad = "expected on the CPU";
        if (w == X_CPU && !oi->npu && x->why[i] && !strstr(oi->why, x->why[i])) bad = "unexpected CPU reason";
        if (w == X_FOLD && !folded) bad = "expected folded into the next op";
        if (w == X_NOFOLD && (!oi->npu || folded)) bad = "expected on the NPU, not folded";
        if (bad) {
            fprintf(stderr, "FAIL %s (%s), seed %llu: op %d (%s): %s; got %s (%d NPU ops)%s%s\n", name,
                    target_variant_name(v), (unsigned long long)g_seed, i, graph_op_name(&g->ops[i]), bad,
                    oi->npu ? "NPU" : "CPU", oi->n_eu, oi->npu ? "" : ": ", oi->npu ? "" : oi->why);
            goto out;
        }
    }
    arena = cm->arena_size;
    if (!any_npu) {
        ok = true;
        goto out;
    }
    const char *stage;
    if (cc_twin_open(&tw, g, cm, v, &stage, &e)) {
        fprintf(stderr, "FAIL %s: %s: %s\n", name, stage, e.msg);
        goto out;
    }
    npuc_rng rng;
    npuc_rng_seed(&rng, g_seed * 7919u + 13u);
    for (int d = 0; d < draws; d++) {
        for (int32_t k = 0; k < g->n_inputs; k++) {
            const graph_tensor *ti = &g->tensors[g->inputs[k]];
            free(in);
            in = malloc(ti->nbytes + 1);
            if (!in) goto out;
            for (size_t b = 0; b < ti->nbytes; b++) in[b] = (uint8_t)npuc_rng_next(&rng);
            if (cc_twin_set_input(&tw, k, in, ti->nbytes, &e)) {
                fprintf(stderr, "FAIL %s: set input: %s\n", name, e.msg);
                goto out;
            }
        }
        const char *side;
        if (cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s (%s): %s: %s\n", name, target_variant_name(v), side, e.msg);
            goto out;
        }
        for (int32_t k = 0; k < g->n_outputs; k++) {
            size_t at, na;
            if (!cc_twin_same(&tw, k, &at, &na)) {
                fprintf(stderr, "FAIL %s (%s), seed %llu, draw %d: output %d differs at byte %zu of %zu\n", name,
                        target_variant_name(v), (unsigned long long)g_seed, d, k, at, na);
                goto out;
            }
        }
    }
    ok = true;
out:
    if (!ok) st->failed++;
    CHECK(ok);
    free(in);
    cc_twin_close(&tw);
    cc_model_free(cm);
    return ok ? (arena ? arena : 1) : 0;
}

/* ------------------------------------------------------------ builders */

static int32_t act(graph *g, const char *name, graph_dtype dt, int32_t rank, const int32_t *shape, float scale,
                   int64_t zp)
{
    int32_t t = graph_add_tensor(g, name, dt, rank, shape, NULL);
    if (t >= 0 && graph_set_quant(g, t, 1, &scale, &zp, 0)) return -1;
    return t;
}

static int32_t cnst(graph *g, const char *name, graph_dtype dt, int32_t rank, const int32_t *shape, float scale,
                    int64_t zp, npuc_rng *r)
{
    size_t n = 1;
    for (int32_t i = 0; i < rank; i++) n *= (size_t)shape[i];
    size_t es = graph_dtype_size(dt);
    uint8_t *d = malloc(n * es + 1);
    if (!d) return -1;
    for (size_t i = 0; i < n * es; i++) d[i] = (uint8_t)npuc_rng_next(r);
    int32_t t = graph_add_tensor(g, name, dt, rank, shape, d);
    free(d);
    if (t >= 0 && graph_set_quant(g, t, 1, &scale, &zp, 0)) return -1;
    return t;
}

static int32_t i32_const(graph *g, const char *name, int32_t rank, const int32_t *shape, const int32_t *v)
{
    return graph_add_tensor(g, name, GRAPH_I32, rank, shape, v);
}

static tfl_options defopt(void)
{
    tfl_options o;
    memset(&o, 0, sizeof o);
    return o;
}

static int rnd(npuc_rng *r, int lo, int hi) { return (int)npuc_rng_range(r, lo, hi); }

/* --------------------------------------------------------------- PAD */

typedef struct pad_cfg {
    graph_dtype dt;
    int32_t rank, shape[4], pads[8];
    bool v2, const_in, v2_zp;
    int64_t zp;
    int32_t value;
} pad_cfg;

/* x -> PAD -> y; returns the graph (PAD is op 0). */
static graph *pad_graph(const pad_cfg *c, npuc_rng *r)
{
    graph *g = graph_new("pad");
    if (!g) return NULL;
    float sc = 0.05f;
    int32_t x = c->const_in ? cnst(g, "x", c->dt, c->rank, c->shape, sc, c->zp, r)
                            : act(g, "x", c->dt, c->rank, c->shape, sc, c->zp);
    int32_t oshape[4];
    for (int32_t d = 0; d < c->rank; d++) oshape[d] = c->shape[d] + c->pads[2 * d] + c->pads[2 * d + 1];
    int32_t y = act(g, "y", c->dt, c->rank, oshape, sc, c->zp);
    int32_t ps[2] = {c->rank, 2};
    int32_t p = i32_const(g, "paddings", 2, ps, c->pads);
    int32_t ins[3] = {x, p, -1};
    int n_in = 2;
    if (c->v2) {
        int32_t one = 1;
        int16_t v16 = (int16_t)c->value;
        int8_t v8 = (int8_t)c->value;
        ins[2] = graph_add_tensor(g, "value", c->dt, 1, &one, c->dt == GRAPH_I8 ? (const void *)&v8 : (const void *)&v16);
        if (ins[2] < 0 || graph_set_quant(g, ins[2], 1, &sc, &c->zp, 0)) goto fail;
        n_in = 3;
    }
    tfl_options o = defopt();
    if (x < 0 || y < 0 || p < 0 || graph_add_op(g, c->v2 ? TFL_OP_PADV2 : TFL_OP_PAD, &o, n_in, ins, 1, &y) < 0)
        goto fail;
    /* a constant input: the graph input feeds an ADD with it so that the
     * graph has an input */
    if (c->const_in) {
        int32_t z = act(g, "z", c->dt, c->rank, oshape, sc, c->zp);
        int32_t s = act(g, "s", c->dt, c->rank, oshape, sc, c->zp);
        int32_t mi[2] = {y, z};
        if (z < 0 || s < 0 || graph_add_op(g, TFL_OP_MAXIMUM, &o, 2, mi, 1, &s) < 0 || graph_set_io(g, 1, &z, 1, &s))
            goto fail;
    } else if (graph_set_io(g, 1, &x, 1, &y)) {
        goto fail;
    }
    return g;
fail:
    graph_free(g);
    return NULL;
}

static void random_pads(npuc_rng *r, stats *st, int nconf)
{
    for (int k = 0; k < nconf; k++) {
        g_seed++;
        pad_cfg c;
        memset(&c, 0, sizeof c);
        c.dt = rnd(r, 0, 1) ? GRAPH_I16 : GRAPH_I8;
        c.rank = rnd(r, 1, 4);
        for (int32_t d = 0; d < c.rank; d++) {
            c.shape[d] = rnd(r, 1, 9);
            int m = rnd(r, 0, 3);
            c.pads[2 * d] = rnd(r, 0, m);
            c.pads[2 * d + 1] = rnd(r, 0, m);
        }
        if (c.rank == 4 && rnd(r, 0, 2)) {
            /* mostly one batch, unpadded */
            c.shape[0] = 1;
            c.pads[0] = c.pads[1] = 0;
        }
        c.zp = c.dt == GRAPH_I8 ? rnd(r, -128, 127) : 0;
        c.v2 = rnd(r, 0, 2) == 0;
        c.value = c.dt == GRAPH_I8 ? rnd(r, -128, 127) : rnd(r, -32768, 32767);
        c.const_in = rnd(r, 0, 5) == 0;
        graph *g = pad_graph(&c, r);
        expect x;
        memset(&x, 0, sizeof x);
        x.where[0] = X_NPU;
        char name[96];
        snprintf(name, sizeof name, "PAD%s %s rank %d%s", c.v2 ? "V2" : "", graph_dtype_name(c.dt), c.rank,
                 c.const_in ? " const" : "");
        run_case(name, g, variants[k % 6], k % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, &x, 3, st);
        graph_free(g);
    }
}

/* Fixed PAD cases: zero pads, large pads, many batches. */
static void pad_edges(npuc_rng *r, stats *st)
{
    static const struct {
        int32_t rank, shape[4], pads[8];
        graph_dtype dt;
    } cs[] = {
        {4, {1, 3, 4, 5}, {0, 0, 0, 0, 0, 0, 0, 0}, GRAPH_I8},          /* identity */
        {4, {1, 2, 3, 4}, {0, 0, 200, 150, 0, 0, 0, 0}, GRAPH_I8},      /* far beyond 127/128 */
        {4, {1, 2, 3, 4}, {0, 0, 0, 0, 300, 129, 0, 0}, GRAPH_I16},
        {4, {1, 2, 3, 20}, {0, 0, 1, 1, 1, 1, 16, 5}, GRAPH_I8},        /* channel pads, brick-aligned */
        {4, {1, 2, 3, 16}, {0, 0, 0, 0, 0, 0, 16, 16}, GRAPH_I8},       /* channels only */
        {4, {3, 2, 3, 4}, {2, 1, 1, 2, 1, 0, 0, 1}, GRAPH_I8},          /* batches, padded */
        {4, {5, 2, 3, 4}, {1, 1, 0, 0, 2, 2, 0, 0}, GRAPH_I16},         /* batches folded into rows */
        {1, {300}, {5, 70}, GRAPH_I16},
        {2, {7, 9}, {3, 0, 0, 4}, GRAPH_I8},
        {3, {2, 3, 4}, {1, 1, 1, 1, 1, 1}, GRAPH_I16},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        for (int v2 = 0; v2 < 2; v2++) {
            g_seed++;
            pad_cfg c;
            memset(&c, 0, sizeof c);
            c.dt = cs[i].dt;
            c.rank = cs[i].rank;
            memcpy(c.shape, cs[i].shape, sizeof c.shape);
            memcpy(c.pads, cs[i].pads, sizeof c.pads);
            c.zp = c.dt == GRAPH_I8 ? -7 : 0;
            c.v2 = v2;
            c.value = c.dt == GRAPH_I8 ? 99 : -12345;
            graph *g = pad_graph(&c, r);
            expect x;
            memset(&x, 0, sizeof x);
            x.where[0] = X_NPU;
            char name[64];
            snprintf(name, sizeof name, "PAD edge case %zu%s", i, v2 ? " (V2)" : "");
            run_case(name, g, variants[(i + (size_t)v2) % 6], CC_OPT_PERFORMANCE, &x, 2, st);
            graph_free(g);
        }
    }
}

/* ---------------------------------------------------- PAD -> convolution */

typedef struct fold_cfg {
    graph_dtype dt;
    int32_t H, W, C, OC, kh, kw, sx, sy, dx, dy;
    int32_t pads[8];
    bool dw, same, v2, v2_other, out_too, relu;
    int64_t zp;
    int mult;                 /* depthwise multiplier */
} fold_cfg;

static int32_t conv_out(int32_t in, int32_t k, int32_t s, int32_t d, bool same)
{
    int32_t eff = (k - 1) * d + 1;
    return same ? (in + s - 1) / s : (in - eff) / s + 1;
}

/* x -> PAD -> CONV_2D / DEPTHWISE_CONV_2D -> y (ops 0, 1) */
static graph *fold_graph(const fold_cfg *c, npuc_rng *r)
{
    graph *g = graph_new("padconv");
    if (!g) return NULL;
    float sx = 0.04f, sw = 0.02f, so = 0.1f;
    int32_t xs[4] = {1, c->H, c->W, c->C};
    int32_t PH = c->H + c->pads[2] + c->pads[3], PW = c->W + c->pads[4] + c->pads[5], PC = c->C + c->pads[6] + c->pads[7];
    int32_t ps_[4] = {1, PH, PW, PC};
    int32_t OH = conv_out(PH, c->kh, c->sy, c->dy, c->same), OW = conv_out(PW, c->kw, c->sx, c->dx, c->same);
    int32_t OC = c->dw ? PC * c->mult : c->OC;
    int32_t ys[4] = {1, OH, OW, OC};
    int32_t x = act(g, "x", c->dt, 4, xs, sx, c->zp);
    int32_t p = act(g, "padded", c->dt, 4, ps_, sx, c->zp);
    int32_t y = act(g, "y", c->dt, 4, ys, so, c->dt == GRAPH_I8 ? 3 : 0);
    int32_t pshape[2] = {4, 2};
    int32_t pp = i32_const(g, "paddings", 2, pshape, c->pads);
    int32_t ws[4] = {c->dw ? 1 : OC, c->kh, c->kw, c->dw ? OC : PC};
    int32_t w = cnst(g, "w", GRAPH_I8, 4, ws, sw, 0, r);
    int32_t nb = OC;
    int32_t bias = -1;
    if (c->dt == GRAPH_I8) {
        int32_t *b = malloc(sizeof *b * (size_t)OC);
        if (!b) goto fail;
        for (int32_t i = 0; i < OC; i++) b[i] = rnd(r, -2000, 2000);
        bias = graph_add_tensor(g, "b", GRAPH_I32, 1, &nb, b);
        free(b);
    } else {
        int64_t *b = malloc(sizeof *b * (size_t)OC);
        if (!b) goto fail;
        for (int32_t i = 0; i < OC; i++) b[i] = rnd(r, -20000, 20000);
        bias = graph_add_tensor(g, "b", GRAPH_I64, 1, &nb, b);
        free(b);
    }
    float bsc = sx * sw;
    int64_t bzp = 0;
    if (x < 0 || p < 0 || y < 0 || pp < 0 || w < 0 || bias < 0 || graph_set_quant(g, bias, 1, &bsc, &bzp, 0)) goto fail;
    int32_t pin[3] = {x, pp, -1};
    tfl_options o = defopt();
    if (c->v2) {
        int32_t one = 1;
        int8_t v8 = (int8_t)(c->v2_other ? c->zp + 1 : c->zp);
        int16_t v16 = (int16_t)(c->v2_other ? 1 : 0);
        pin[2] = graph_add_tensor(g, "value", c->dt, 1, &one, c->dt == GRAPH_I8 ? (const void *)&v8 : (const void *)&v16);
        if (pin[2] < 0 || graph_set_quant(g, pin[2], 1, &sx, &c->zp, 0)) goto fail;
    }
    if (graph_add_op(g, c->v2 ? TFL_OP_PADV2 : TFL_OP_PAD, &o, c->v2 ? 3 : 2, pin, 1, &p) < 0) goto fail;
    tfl_options co = defopt();
    co.padding = c->same ? TFL_PAD_SAME : TFL_PAD_VALID;
    co.stride_w = c->sx;
    co.stride_h = c->sy;
    co.dilation_w = c->dx;
    co.dilation_h = c->dy;
    co.depth_multiplier = c->mult;
    co.activation = c->relu ? TFL_ACT_RELU : TFL_ACT_NONE;
    int32_t cin[3] = {p, w, bias};
    if (graph_add_op(g, c->dw ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D, &co, 3, cin, 1, &y) < 0) goto fail;
    int32_t outs[2] = {y, p};
    if (graph_set_io(g, 1, &x, c->out_too ? 2 : 1, outs)) goto fail;
    return g;
fail:
    graph_free(g);
    return NULL;
}

/* Whether the rules fold this configuration (assuming the conv is on the
 * NPU): spatial pads, value = zero point, summed padding within limits. */
static bool fold_expected(const fold_cfg *c)
{
    if (c->pads[6] || c->pads[7] || c->out_too || (c->v2 && c->v2_other)) return false;
    if (c->dw && c->mult > 1 && c->C + c->pads[6] + c->pads[7] > 64) return false;
    int32_t PH = c->H + c->pads[2] + c->pads[3], PW = c->W + c->pads[4] + c->pads[5];
    int32_t OH = conv_out(PH, c->kh, c->sy, c->dy, c->same), OW = conv_out(PW, c->kw, c->sx, c->dx, c->same);
    int32_t eh = (c->kh - 1) * c->dy + 1, ew = (c->kw - 1) * c->dx + 1;
    int32_t th = (OH - 1) * c->sy + eh - PH, tw = (OW - 1) * c->sx + ew - PW;
    int32_t pt = c->same && th > 0 ? th / 2 : 0, pl = c->same && tw > 0 ? tw / 2 : 0;
    int32_t ft = pt + c->pads[2], fl = pl + c->pads[4];
    int32_t fb = (OH - 1) * c->sy + eh - ft - c->H, fr = (OW - 1) * c->sx + ew - fl - c->W;
    if (fb < 0) fb = 0;
    if (fr < 0) fr = 0;
    if (ft > 127 || fl > 127 || fb > 128 || fr > 128) return false;
    if ((OH - 1) * c->sy + eh - ft - fb < 1 || (OW - 1) * c->sx + ew - fl - fr < 1) return false;
    return true;
}

static void random_folds(npuc_rng *r, stats *st, int nconf)
{
    int folded0 = st->folded, expected = 0;
    for (int k = 0; k < nconf; k++) {
        g_seed++;
        fold_cfg c;
        memset(&c, 0, sizeof c);
        c.dt = rnd(r, 0, 2) == 0 ? GRAPH_I16 : GRAPH_I8;
        c.H = rnd(r, 1, 12);
        c.W = rnd(r, 1, 12);
        c.C = rnd(r, 1, 20);
        c.OC = rnd(r, 1, 24);
        c.kh = rnd(r, 1, 5);
        c.kw = rnd(r, 1, 5);
        c.sx = rnd(r, 1, 3);
        c.sy = rnd(r, 1, 3);
        c.dx = rnd(r, 0, 3) ? 1 : 2;
        c.dy = rnd(r, 0, 3) ? 1 : 2;
        c.dw = rnd(r, 0, 1);
        c.mult = c.dw && rnd(r, 0, 4) == 0 ? 2 : 1;
        if (c.dw && c.mult > 1 && rnd(r, 0, 1)) c.C = 1;
        c.same = rnd(r, 0, 1);
        c.relu = rnd(r, 0, 3) == 0;
        for (int d = 1; d <= 2; d++) {
            int m = rnd(r, 0, 4) == 0 ? 140 : 3;
            c.pads[2 * d] = rnd(r, 0, m);
            c.pads[2 * d + 1] = rnd(r, 0, m);
        }
        if (rnd(r, 0, 7) == 0) c.pads[6 + rnd(r, 0, 1)] = rnd(r, 1, 2);
        c.zp = c.dt == GRAPH_I8 ? rnd(r, -128, 127) : 0;
        c.v2 = rnd(r, 0, 3) == 0;
        c.v2_other = c.v2 && rnd(r, 0, 1);
        c.out_too = rnd(r, 0, 9) == 0;
        int32_t PH = c.H + c.pads[2] + c.pads[3], PW = c.W + c.pads[4] + c.pads[5];
        if ((c.kh - 1) * c.dy + 1 > PH || (c.kw - 1) * c.dx + 1 > PW) c.same = true;
        graph *g = fold_graph(&c, r);
        expect x;
        memset(&x, 0, sizeof x);
        /* a multiplier above 1 runs as a dense conv up to 64 input channels */
        bool conv_cpu = c.dw && c.mult > 1 && c.C + c.pads[6] + c.pads[7] > 64;
        bool f = fold_expected(&c);
        x.where[0] = f ? X_FOLD : X_NOFOLD;
        x.where[1] = conv_cpu ? X_CPU : X_NPU;
        expected += f;
        char name[128];
        snprintf(name, sizeof name, "PAD%s -> %s %s %dx%dx%d k%dx%d s%dx%d d%dx%d %s pads %d,%d,%d,%d,%d,%d",
                 c.v2 ? "V2" : "", c.dw ? "DW" : "CONV", graph_dtype_name(c.dt), c.H, c.W, c.C, c.kh, c.kw, c.sy, c.sx,
                 c.dy, c.dx, c.same ? "SAME" : "VALID", c.pads[2], c.pads[3], c.pads[4], c.pads[5], c.pads[6],
                 c.pads[7]);
        run_case(name, g, variants[k % 6], k % 4 == 1 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, &x, 3, st);
        graph_free(g);
    }
    printf("PAD -> conv: %d of %d configurations folded (%d expected)\n", st->folded - folded0, nconf, expected);
    CHECK(expected > nconf / 4);
}

/* A fold on a realistic layer, and the arena it saves. */
static void fold_saving(npuc_rng *r, stats *st)
{
    fold_cfg c;
    memset(&c, 0, sizeof c);
    c.dt = GRAPH_I8;
    c.H = c.W = 48;
    c.C = 16;
    c.OC = 32;
    c.kh = c.kw = 3;
    c.sx = c.sy = 2;
    c.dx = c.dy = 1;
    c.pads[2] = c.pads[4] = 0;
    c.pads[3] = c.pads[5] = 1;
    c.zp = -128;
    g_seed++;
    graph *g = fold_graph(&c, r);
    expect x;
    memset(&x, 0, sizeof x);
    x.where[0] = X_FOLD;
    x.where[1] = X_NPU;
    uint64_t a_fold = run_case("PAD -> CONV 48x48x16 folded", g, EU_U55_256, CC_OPT_PERFORMANCE, &x, 2, st);
    graph_free(g);
    /* the same with PADV2 at another value: not folded */
    c.v2 = c.v2_other = true;
    g = fold_graph(&c, r);
    x.where[0] = X_NOFOLD;
    uint64_t a_pad = run_case("PADV2 -> CONV 48x48x16 not folded", g, EU_U55_256, CC_OPT_PERFORMANCE, &x, 2, st);
    graph_free(g);
    printf("PAD -> CONV 48x48x16 (pad bottom/right 1, 3x3/2): arena %llu bytes folded, %llu standalone\n",
           (unsigned long long)a_fold, (unsigned long long)a_pad);
    CHECK(a_fold > 0 && a_pad > a_fold);
}

/* ------------------------------------------------------- CONCATENATION */

enum { SRC_INPUT, SRC_CONST, SRC_NPU, SRC_CPU };

static void random_concats(npuc_rng *r, stats *st, int nconf)
{
    for (int k = 0; k < nconf; k++) {
        g_seed++;
        graph_dtype dt = rnd(r, 0, 1) ? GRAPH_I16 : GRAPH_I8;
        int32_t rank = rnd(r, 1, 4);
        int32_t shape[4];
        for (int32_t d = 0; d < rank; d++) shape[d] = rnd(r, 1, 7);
        if (rank == 4 && rnd(r, 0, 2)) shape[0] = 1;
        int32_t axis = rnd(r, 0, rank - 1);
        int32_t n = rnd(r, 1, 8);
        float osc = 0.05f;
        int64_t ozp = dt == GRAPH_I8 ? rnd(r, -20, 20) : 0;
        graph *g = graph_new("concat");
        int32_t ins[8], gin[8], n_gin = 0, total = 0;
        expect x;
        memset(&x, 0, sizeof x);
        int32_t n_ops = 0;
        bool ok = g != NULL;
        for (int32_t i = 0; i < n && ok; i++) {
            int32_t s[4];
            memcpy(s, shape, sizeof s);
            s[axis] = rnd(r, 1, 6);
            total += s[axis];
            float sc = osc;
            int64_t zp = ozp;
            if (dt == GRAPH_I8 && rnd(r, 0, 3) == 0) {
                sc = osc * (float)(0.25 + npuc_rng_unit(r) * 3.0);
                zp = rnd(r, -128, 127);
            }
            int src = rnd(r, 0, 3);
            if (src == SRC_NPU && rank == 4 && s[0] != 1) src = SRC_INPUT;
            char nm[16];
            snprintf(nm, sizeof nm, "in%d", i);
            if (src == SRC_CONST) {
                ins[i] = cnst(g, nm, dt, rank, s, sc, zp, r);
                ok = ins[i] >= 0;
                continue;
            }
            int32_t t = act(g, nm, dt, rank, s, sc, zp);
            ok = t >= 0;
            gin[n_gin++] = t;
            if (src == SRC_INPUT || !ok) {
                ins[i] = t;
                continue;
            }
            snprintf(nm, sizeof nm, "mid%d", i);
            int32_t m = act(g, nm, dt, rank, s, sc, zp);
            tfl_options o = defopt();
            if (src == SRC_NPU) {
                int32_t mi[2] = {t, t};
                ok = m >= 0 && graph_add_op(g, TFL_OP_MAXIMUM, &o, 2, mi, 1, &m) >= 0;
                x.where[n_ops++] = X_NPU;
            } else {
                /* a BROADCAST_TO its own shape: a copy with no NPU
                 * form (an identity TRANSPOSE, a one-way SPLIT and a TILE
                 * by 1 now run on the NPU) */
                int32_t nr = rank;
                int32_t pt = i32_const(g, "shape", 1, &nr, s);
                int32_t ti[2] = {t, pt};
                ok = m >= 0 && pt >= 0 && graph_add_op(g, TFL_OP_BROADCAST_TO, &o, 2, ti, 1, &m) >= 0;
                x.where[n_ops] = X_CPU;
                x.why[n_ops++] = "no NPU form";
            }
            ins[i] = m;
        }
        if (ok && n_gin == 0) {
            /* every input constant: the graph input joins through MAXIMUM */
            ok = false;
        }
        int32_t os[4];
        memcpy(os, shape, sizeof os);
        os[axis] = total;
        int32_t y = ok ? act(g, "y", dt, rank, os, osc, ozp) : -1;
        tfl_options co = defopt();
        co.axis = rnd(r, 0, 1) ? axis : axis - rank;
        ok = ok && y >= 0 && graph_add_op(g, TFL_OP_CONCATENATION, &co, n, ins, 1, &y) >= 0 &&
             !graph_set_io(g, n_gin, gin, 1, &y);
        if (!ok) {
            graph_free(g);
            g_seed--;
            k--;
            continue;
        }
        x.where[n_ops] = X_NPU;
        char name[96];
        snprintf(name, sizeof name, "CONCATENATION %s rank %d axis %d, %d inputs", graph_dtype_name(dt), rank,
                 co.axis, n);
        run_case(name, g, variants[k % 6], k % 4 == 2 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, &x, 3, st);
        graph_free(g);
    }
}

/* ------------------------------------------------------------ CPU cases */

static void cpu_cases(npuc_rng *r, stats *st)
{
    expect x;
    /* float32 PAD */
    {
        g_seed++;
        graph *g = graph_new("padf");
        int32_t s[4] = {1, 2, 2, 3}, os[4] = {1, 4, 2, 3}, ps[2] = {4, 2}, pv[8] = {0, 0, 1, 1, 0, 0, 0, 0};
        int32_t a = graph_add_tensor(g, "x", GRAPH_F32, 4, s, NULL), y = graph_add_tensor(g, "y", GRAPH_F32, 4, os, NULL);
        int32_t p = i32_const(g, "p", 2, ps, pv);
        int32_t in[2] = {a, p};
        tfl_options o = defopt();
        graph_add_op(g, TFL_OP_PAD, &o, 2, in, 1, &y);
        graph_set_io(g, 1, &a, 1, &y);
        memset(&x, 0, sizeof x);
        x.where[0] = X_CPU;
        x.why[0] = "tensors (the NPU form copies int8 or int16)";
        run_case("PAD float32", g, EU_U55_128, CC_OPT_PERFORMANCE, &x, 1, st);
        graph_free(g);
    }
    /* rank 5 PAD and CONCATENATION */
    {
        g_seed++;
        graph *g = graph_new("pad5");
        int32_t s[5] = {1, 2, 2, 3, 2}, os[5] = {1, 2, 4, 3, 2}, ps[2] = {5, 2};
        int32_t pv[10] = {0, 0, 0, 0, 1, 1, 0, 0, 0, 0};
        int32_t a = act(g, "x", GRAPH_I8, 5, s, 0.1f, 0), y = act(g, "y", GRAPH_I8, 5, os, 0.1f, 0);
        int32_t p = i32_const(g, "p", 2, ps, pv);
        int32_t in[2] = {a, p};
        tfl_options o = defopt();
        graph_add_op(g, TFL_OP_PAD, &o, 2, in, 1, &y);
        int32_t z = act(g, "z", GRAPH_I8, 5, os, 0.1f, 0);
        int32_t ci[2] = {y, y};
        int32_t cs[5] = {1, 2, 4, 6, 2};
        int32_t cy = act(g, "cat", GRAPH_I8, 5, cs, 0.1f, 0);
        tfl_options co = defopt();
        co.axis = 3;
        graph_add_op(g, TFL_OP_CONCATENATION, &co, 2, ci, 1, &cy);
        (void)z;
        graph_set_io(g, 1, &a, 1, &cy);
        memset(&x, 0, sizeof x);
        x.where[0] = X_CPU;
        x.why[0] = "rank 5";
        x.where[1] = X_CPU;
        x.why[1] = "rank 5";
        run_case("PAD / CONCATENATION rank 5", g, EU_U65_256, CC_OPT_PERFORMANCE, &x, 2, st);
        graph_free(g);
    }
    /* paddings from a graph input; PADV2 value from a graph input */
    {
        g_seed++;
        graph *g = graph_new("padvar");
        int32_t s[4] = {1, 2, 2, 3}, os[4] = {1, 4, 2, 3}, ps[2] = {4, 2}, one = 1;
        int32_t a = act(g, "x", GRAPH_I8, 4, s, 0.1f, 2), y = act(g, "y", GRAPH_I8, 4, os, 0.1f, 2);
        int32_t pv[8] = {0, 0, 1, 1, 0, 0, 0, 0};
        int32_t p = i32_const(g, "p", 2, ps, pv);
        int32_t v = act(g, "v", GRAPH_I8, 1, &one, 0.1f, 2);
        int32_t in[3] = {a, p, v};
        tfl_options o = defopt();
        graph_add_op(g, TFL_OP_PADV2, &o, 3, in, 1, &y);
        int32_t io[2] = {a, v};
        graph_set_io(g, 2, io, 1, &y);
        memset(&x, 0, sizeof x);
        x.where[0] = X_CPU;
        x.why[0] = "pad value is not a constant";
        run_case("PADV2 with a variable value", g, EU_U55_64, CC_OPT_PERFORMANCE, &x, 2, st);
        graph_free(g);
    }
    /* int16 CONCATENATION with a non-zero zero point: the reference rejects */
    {
        g_seed++;
        graph *g = graph_new("cat16");
        int32_t s[2] = {3, 4}, os[2] = {3, 8};
        int32_t a = act(g, "a", GRAPH_I16, 2, s, 0.1f, 0), b = act(g, "b", GRAPH_I16, 2, s, 0.1f, 5);
        int32_t y = act(g, "y", GRAPH_I16, 2, os, 0.1f, 0);
        int32_t in[2] = {a, b};
        tfl_options o = defopt();
        o.axis = -1;
        graph_add_op(g, TFL_OP_CONCATENATION, &o, 2, in, 1, &y);
        graph_set_io(g, 2, in, 1, &y);
        memset(&x, 0, sizeof x);
        x.where[0] = X_CPU;
        x.why[0] = "the reference rejects it";
        uint64_t ok = 0;
        npuc_err e;
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        cc_model *cm = NULL;
        if (!target_default(EU_U55_256, &opt.sys, &e) && !cc_compile(g, &opt, &cm, &e)) {
            ok = !cm->ops[0].npu && strstr(cm->ops[0].why, "the reference rejects it") != NULL;
            if (!ok) fprintf(stderr, "FAIL int16 concat zp: %s\n", cm->ops[0].why);
        }
        CHECK(ok);
        cc_model_free(cm);
        graph_free(g);
    }
    (void)r;
}

/* Channel-slice forms whose output is an intermediate of NPU ops only:
 * with 16-aligned slices it may be stored NHCWB16. x -> MAXIMUM -> a;
 * PAD a (channels 16 + 16) -> p; CONCATENATION(p, a, const) on channels
 * -> c; MAXIMUM(c, c) -> y. */
static void brick_cases(npuc_rng *r, stats *st)
{
    for (int k = 0; k < 12; k++) {
        g_seed++;
        graph_dtype dt = k % 2 ? GRAPH_I16 : GRAPH_I8;
        int32_t C = 16 * (1 + k % 3), H = 3 + k % 4, W = 5 - k % 3;
        graph *g = graph_new("brick");
        float sc = 0.1f;
        int64_t zp = dt == GRAPH_I8 ? -3 : 0;
        int32_t s[4] = {1, H, W, C}, ps[4] = {1, H, W, C + 32}, cs[4] = {1, H, W, 2 * C + 32 + 16}, ks[4] = {1, H, W, 16};
        int32_t x = act(g, "x", dt, 4, s, sc, zp), a = act(g, "a", dt, 4, s, sc, zp);
        int32_t p = act(g, "p", dt, 4, ps, sc, zp), cc = act(g, "c", dt, 4, cs, sc, zp);
        int32_t y = act(g, "y", dt, 4, cs, sc, zp), kc = cnst(g, "k", dt, 4, ks, sc, zp, r);
        int32_t pshape[2] = {4, 2}, pv[8] = {0, 0, 0, 0, 0, 0, 16, 16};
        int32_t pp = i32_const(g, "paddings", 2, pshape, pv);
        tfl_options o = defopt(), co = defopt();
        co.axis = -1;
        int32_t mi[2] = {x, x}, pi[2] = {a, pp}, ci[3] = {p, a, kc}, yi[2] = {cc, cc};
        bool ok = graph_add_op(g, TFL_OP_MAXIMUM, &o, 2, mi, 1, &a) >= 0 &&
                  graph_add_op(g, TFL_OP_PAD, &o, 2, pi, 1, &p) >= 0 &&
                  graph_add_op(g, TFL_OP_CONCATENATION, &co, 3, ci, 1, &cc) >= 0 &&
                  graph_add_op(g, TFL_OP_MAXIMUM, &o, 2, yi, 1, &y) >= 0 && !graph_set_io(g, 1, &x, 1, &y);
        expect xp;
        memset(&xp, 0, sizeof xp);
        for (int i = 0; i < 4; i++) xp.where[i] = X_NPU;
        run_case(ok ? "channel slices (NHCWB16)" : "brick graph build", ok ? g : NULL, variants[k % 6],
                 k % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, &xp, 3, st);
        /* the intermediates are bricks (the layout pass allows it) */
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        npuc_err e;
        cc_model *cm = NULL;
        if (ok && !target_default(variants[k % 6], &opt.sys, &e) && !cc_compile(g, &opt, &cm, &e)) {
            CHECK(cm->bufs[cm->buf_of[p]].brick);
            CHECK(cm->bufs[cm->buf_of[cc]].brick);
        }
        cc_model_free(cm);
        graph_free(g);
    }
}

int main(void)
{
    long nconf = env_long("NPUC_PADCAT_CONFIGS", 150);
    g_seed = (uint64_t)env_long("NPUC_PADCAT_SEED", 1) * 100000u;
    npuc_rng r;
    npuc_rng_seed(&r, g_seed);
    stats st;
    memset(&st, 0, sizeof st);
    pad_edges(&r, &st);
    random_pads(&r, &st, (int)nconf);
    random_folds(&r, &st, (int)nconf);
    fold_saving(&r, &st);
    random_concats(&r, &st, (int)nconf);
    brick_cases(&r, &st);
    cpu_cases(&r, &st);
    printf("%d cases (%d failed): %d ops on the NPU, %d on the CPU, %d PADs folded\n", st.cases, st.failed,
           st.npu_ops, st.cpu_ops, st.folded);
    TEST_MAIN_END();
}
