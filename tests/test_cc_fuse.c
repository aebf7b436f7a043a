/* Activations fused into the output stage of their producer's NPU ops
 * (lower/lower_lut.c, fuse_clamp / fuse_lut). Two-op graphs
 *
 *   x -> CONV_2D | DEPTHWISE_CONV_2D | FULLY_CONNECTED | AVERAGE_POOL_2D
 *        | MAX_POOL_2D | ADD | MUL (own fused NONE / RELU / RELU6 /
 *        RELU_N1_TO_1)
 *     -> t -> LEAKY_RELU | LOGISTIC | TANH | HARD_SWISH | RELU | RELU6
 *        | RELU_N1_TO_1 | QUANTIZE | MINIMUM / MAXIMUM by a constant scalar
 *        of t's type and quantization (clip_by_value) -> y
 *
 * int8 (three in four) and int16x8, random shapes and quantizations (half
 * the RELU-family / QUANTIZE cases keep t's quantization: a pure clamp;
 * MINIMUM / MAXIMUM always do, their constant drawn from the type's middle
 * half or at its ends),
 * over the six Ethos-U variants, are compiled (cc_compile ->
 * emit_tflite_model -> tfl_write -> tfl_read -> graph_import, as a user gets
 * them), run with the ethos-u op on the virtual NPU and compared byte for
 * byte with the reference interpreter on the source graph (one draw with
 * every byte value, two random draws). Where t is also a graph output (one
 * config in eight) the activation must stay apart. Otherwise an int8
 * activation, and an int16 one that keeps the quantization and is a clamp,
 * must be fused (cc_op_info.fused_into, no NPU op of its own, the
 * producer's ops writing y: through the LUT, or with the clamp alone and no
 * LUT for a pure clamp); a conv + LEAKY_RELU with one output-channel chunk
 * must be ONE NPU op. One config in three (not FC) adds y -> MAX_POOL_2D ->
 * z and compiles with --cascade all, so that fused producers head cascades.
 *
 * Environment: NPUC_FUSE_CONFIGS (default 400), NPUC_FUSE_SEED (default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

enum { P_CONV, P_DW, P_FC, P_AVG, P_MAX, P_ADD, P_MUL, P_COUNT };
static const char *const pname[P_COUNT] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D",
                                           "MAX_POOL_2D", "ADD", "MUL"};
static const int32_t acts[] = {TFL_OP_LEAKY_RELU, TFL_OP_LOGISTIC, TFL_OP_TANH,         TFL_OP_HARD_SWISH,
                               TFL_OP_RELU,       TFL_OP_RELU6,    TFL_OP_RELU_N1_TO_1, TFL_OP_QUANTIZE,
                               TFL_OP_RELU_0_TO_1, TFL_OP_MINIMUM, TFL_OP_MAXIMUM};
#define N_ACTS ((int)(sizeof acts / sizeof acts[0]))

typedef struct fz_cfg {
    int prod, act_i;
    int32_t H, W, C, OC, k, s;
    int own_act;              /* producer's fused activation */
    bool t_out;               /* t is a graph output too */
    bool tail;                /* y -> MAX_POOL_2D 2x2 -> z, compiled with --cascade all */
    float alpha;
    bool wide;                /* int16x8 */
    bool same_q;              /* y takes t's quantization (RELU family, QUANTIZE) */
    eu_variant variant;
    uint64_t seed;
} fz_cfg;

static void cfg_str(const fz_cfg *c, char *buf, size_t size)
{
    graph_op a = {.opcode = acts[c->act_i]};
    snprintf(buf, size, "%s %s (act %d) [1,%d,%d,%d] OC %d k %d s %d -> %s (alpha %g)%s%s on %s seed %llu",
             c->wide ? "int16" : "int8", pname[c->prod], c->own_act, c->H, c->W, c->C, c->OC, c->k, c->s,
             graph_op_name(&a), (double)c->alpha, c->same_q ? ", same quantization" : "",
             c->t_out ? ", t a graph output" : c->tail ? ", then a pool, cascade all" : "", eu_variant_name(c->variant), (unsigned long long)c->seed);
}

static float rscale(npuc_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)npuc_rng_range(r, 0, 1000) / 1000.0f;
}

static bool qset(graph *g, int32_t t, float s, int64_t zp) { return t >= 0 && !graph_set_quant(g, t, 1, &s, &zp, 0); }

/* x -> producer -> t -> activation -> y; *act_op the activation's op index. */
static graph *build_graph(const fz_cfg *c, int32_t *act_op)
{
    graph *g = graph_new("fuse");
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, c->seed * 7919 + 5);
    bool fc = c->prod == P_FC, wide = c->wide;
    graph_dtype dt = wide ? GRAPH_I16 : GRAPH_I8;
    float xs = rscale(&r, 0.01f, 0.1f) / (wide ? 256 : 1);
    int64_t xzp = wide ? 0 : npuc_rng_range(&r, -30, 30);
    int32_t xsh4[4] = {1, c->H, c->W, c->C}, xsh2[2] = {1, c->C};
    int32_t tx = graph_add_tensor(g, "x", dt, fc ? 2 : 4, fc ? xsh2 : xsh4, NULL);
    bool ok = qset(g, tx, xs, xzp);
    /* producer output */
    int32_t OH = c->H, OW = c->W, OC = c->C;
    if (c->prod == P_CONV || c->prod == P_DW || c->prod == P_AVG || c->prod == P_MAX) {
        OH = (c->H - c->k) / c->s + 1;
        OW = (c->W - c->k) / c->s + 1;
    }
    if (c->prod == P_CONV || c->prod == P_FC) OC = c->OC;
    int32_t tsh4[4] = {1, OH, OW, OC}, tsh2[2] = {1, OC};
    float ts = c->prod == P_MAX ? xs : rscale(&r, 0.02f, 0.3f) / (wide ? 256 : 1);
    int64_t tzp = c->prod == P_MAX || wide ? xzp : npuc_rng_range(&r, -60, 60);
    if (c->prod == P_AVG) {
        ts = xs;
        tzp = xzp;
    }
    int32_t tt = graph_add_tensor(g, "t", dt, fc ? 2 : 4, fc ? tsh2 : tsh4, NULL);
    ok = ok && qset(g, tt, ts, tzp);
    tfl_options o;
    memset(&o, 0, sizeof o);
    o.activation = (int8_t)c->own_act;
    o.padding = TFL_PAD_VALID;
    o.stride_h = o.stride_w = c->s;
    o.dilation_h = o.dilation_w = 1;
    o.depth_multiplier = 1;
    o.filter_h = o.filter_w = c->k;
    o.pot_scale_int16 = false;
    int32_t ins[3] = {tx, -1, -1}, n_in = 1, code = 0;
    if (c->prod == P_CONV || c->prod == P_DW || c->prod == P_FC) {
        int32_t I = c->C, O = c->prod == P_DW ? c->C : c->OC, kk = fc ? 1 : c->k;
        size_t nw = (size_t)O * kk * kk * (c->prod == P_DW ? 1 : I);
        int8_t *wd = malloc(nw);
        float *ws = malloc(sizeof(float) * (size_t)O), *bs = malloc(sizeof(float) * (size_t)O);
        int64_t *wz = calloc((size_t)O, sizeof(int64_t));
        int64_t *bd = malloc(sizeof(int64_t) * (size_t)O);
        ok = ok && wd && ws && bs && wz && bd;
        if (ok) {
            for (size_t i = 0; i < nw; i++) wd[i] = (int8_t)npuc_rng_range(&r, -127, 127);
            float w0 = rscale(&r, 0.001f, 0.02f);
            for (int32_t q = 0; q < O; q++) {
                ws[q] = fc ? w0 : rscale(&r, 0.001f, 0.02f);
                bs[q] = xs * ws[q];
                if (wide) bd[q] = npuc_rng_range(&r, -20000, 20000);
                else ((int32_t *)bd)[q] = (int32_t)npuc_rng_range(&r, -2000, 2000);
            }
            int32_t wsh4[4] = {O, kk, kk, I}, wdw[4] = {1, kk, kk, O}, wfc[2] = {O, I};
            int32_t tw = graph_add_tensor(g, "w", GRAPH_I8, fc ? 2 : 4, c->prod == P_DW ? wdw : fc ? wfc : wsh4, wd);
            int32_t tb = graph_add_tensor(g, "b", wide ? GRAPH_I64 : GRAPH_I32, 1, &O, bd);
            ok = tw >= 0 && tb >= 0 && !graph_set_quant(g, tw, fc ? 1 : O, ws, wz, c->prod == P_DW ? 3 : 0) &&
                 !graph_set_quant(g, tb, fc ? 1 : O, bs, wz, 0);
            ins[1] = tw;
            ins[2] = tb;
            n_in = 3;
        }
        free(wd);
        free(ws);
        free(bs);
        free(wz);
        free(bd);
        code = c->prod == P_CONV ? TFL_OP_CONV_2D : c->prod == P_DW ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_FULLY_CONNECTED;
    } else if (c->prod == P_AVG || c->prod == P_MAX) {
        code = c->prod == P_AVG ? TFL_OP_AVERAGE_POOL_2D : TFL_OP_MAX_POOL_2D;
    } else {
        /* a second model input of x's shape */
        int32_t x2 = graph_add_tensor(g, "x2", dt, 4, xsh4, NULL);
        ok = ok && qset(g, x2, rscale(&r, 0.01f, 0.1f) / (wide ? 256 : 1), wide ? 0 : npuc_rng_range(&r, -30, 30));
        ins[1] = x2;
        n_in = 2;
        code = c->prod == P_ADD ? TFL_OP_ADD : TFL_OP_MUL;
    }
    ok = ok && graph_add_op(g, code, &o, n_in, ins, 1, &tt) >= 0;
    /* activation */
    int32_t ac = acts[c->act_i];
    float ys = rscale(&r, 0.01f, 0.2f) / (wide ? 256 : 1);
    int64_t yzp = wide ? 0 : npuc_rng_range(&r, -60, 60);
    if (ac == TFL_OP_LOGISTIC || ac == TFL_OP_TANH) {
        ys = wide ? 1.0f / 32768 : ac == TFL_OP_LOGISTIC ? 1.0f / 256 : 1.0f / 128;
        yzp = wide || ac == TFL_OP_TANH ? 0 : -128;
    }
    if (c->same_q) {
        ys = ts;
        yzp = tzp;
    }
    int32_t ty = graph_add_tensor(g, "y", dt, fc ? 2 : 4, fc ? tsh2 : tsh4, NULL);
    ok = ok && qset(g, ty, ys, yzp);
    tfl_options ao;
    memset(&ao, 0, sizeof ao);
    ao.alpha = c->alpha;
    int32_t act_in[2] = {tt, -1}, n_act_in = 1;
    if (ac == TFL_OP_MINIMUM || ac == TFL_OP_MAXIMUM) {
        /* a constant scalar of t's type (the type's middle half, its ends at times) */
        int32_t one[1] = {1}, lim = wide ? 32767 : 127, kv = (int32_t)npuc_rng_range(&r, 0, (uint32_t)lim) - lim / 2;
        if (npuc_rng_range(&r, 0, 4) == 0) kv = npuc_rng_range(&r, 0, 1) ? lim : -lim - 1;
        int8_t k8 = (int8_t)kv;
        int16_t k16 = (int16_t)kv;
        int32_t tk = graph_add_tensor(g, "k", dt, 0, one, wide ? (const void *)&k16 : (const void *)&k8);
        ok = ok && qset(g, tk, ts, tzp);
        act_in[1] = tk;
        n_act_in = 2;
    }
    ok = ok && (*act_op = graph_add_op(g, ac, &ao, n_act_in, act_in, 1, &ty)) >= 0;
    int32_t gin[2] = {tx, ins[1]}, gout[2] = {ty, tt};
    if (ok && c->tail) {
        /* z = MAX_POOL_2D 2x2 (stride 1, SAME) of y: the pair can head a cascade */
        int32_t tz = graph_add_tensor(g, "z", dt, fc ? 2 : 4, fc ? tsh2 : tsh4, NULL);
        tfl_options po;
        memset(&po, 0, sizeof po);
        po.padding = TFL_PAD_SAME;
        po.stride_h = po.stride_w = 1;
        po.filter_h = po.filter_w = 2;
        ok = !fc && qset(g, tz, ys, yzp) && graph_add_op(g, TFL_OP_MAX_POOL_2D, &po, 1, &ty, 1, &tz) >= 0;
        gout[0] = tz;
    }
    if (!ok || graph_set_io(g, n_in == 2 ? 2 : 1, gin, c->t_out ? 2 : 1, gout)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

typedef struct stats { int configs, fused, clamps, unfused, failed, draws, one_op, wide, cascaded; } stats;

/* draw 0: every byte value (int8: every value; int16: both bytes vary) */
static void fill(npuc_rng *r, uint8_t *d, size_t n, int draw)
{
    for (size_t i = 0; i < n; i++) d[i] = draw == 0 ? (uint8_t)((i * 167 + 13) & 255) : (uint8_t)npuc_rng_range(r, 0, 255);
}

/* The activation keeps the quantization and is a clamp (or nothing). */
static bool clamp_act(const fz_cfg *c)
{
    int32_t a = acts[c->act_i];
    return c->same_q && (a == TFL_OP_RELU || a == TFL_OP_RELU6 || a == TFL_OP_RELU_N1_TO_1 || a == TFL_OP_RELU_0_TO_1 ||
                         a == TFL_OP_QUANTIZE || a == TFL_OP_MINIMUM || a == TFL_OP_MAXIMUM);
}

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)k;
    fill(r, buf, n, d);
}

static bool run_config(const fz_cfg *c, stats *st)
{
    char cs[256];
    cfg_str(c, cs, sizeof cs);
    int32_t ai = -1;
    graph *src = build_graph(c, &ai);
    cc_model *cm = NULL;
    bool ok = false;
    st->configs++;
    st->wide += c->wide;
    if (!cc_check_compile(cs, src, c->variant,
                          (cc_options){.cascade = c->tail ? CC_CASCADE_ALL : CC_CASCADE_AUTO}, &cm))
        goto out;
    const cc_op_info *pi = &cm->ops[ai - 1], *acti = &cm->ops[ai];
    if (!pi->npu || !acti->npu) {
        fprintf(stderr, "FAIL %s: on the CPU: %s / %s\n", cs, pi->npu ? "" : pi->why, acti->npu ? "" : acti->why);
        goto out;
    }
    if (c->t_out) {
        if (acti->fused_into >= 0 || acti->n_eu == 0) {
            fprintf(stderr, "FAIL %s: fused although t is a graph output\n", cs);
            goto out;
        }
        st->unfused++;
    } else if (c->wide && !clamp_act(c)) {
        /* int16: only clamps fuse; another activation may turn out one */
        if (acti->fused_into < 0) st->unfused++;
    } else {
        if (acti->fused_into != ai - 1 || acti->n_eu != 0) {
            fprintf(stderr, "FAIL %s: not fused (fused_into %d, %d NPU ops)\n", cs, acti->fused_into, acti->n_eu);
            goto out;
        }
        const cc_epoch *ep = &cm->epochs[pi->epoch];
        int32_t by = cm->buf_of[src->ops[ai].out[0]], n_lut = 0;
        for (int32_t k = 0; k < ep->n_eu; k++) {
            const eu_op *o = &ep->ops[k];
            if (o->ofm.buf != by) continue;
            if (o->src_op != ai - 1 || (clamp_act(c) ? o->lut >= 0 || o->act_func : o->lut >= 0 && o->act_func < 16)) {
                fprintf(stderr, "FAIL %s: NPU op %d writes y with LUT %d, function %u\n", cs, k, o->lut, o->act_func);
                goto out;
            }
            n_lut += o->lut >= 0;
        }
        if (!n_lut && !clamp_act(c) && !c->own_act) {
            fprintf(stderr, "FAIL %s: no NPU op applies a LUT\n", cs);
            goto out;
        }
        st->clamps += !n_lut;
        /* one output-channel chunk: one NPU op for the pair */
        if (c->prod == P_CONV && acts[c->act_i] == TFL_OP_LEAKY_RELU && pi->n_eu == 1) {
            if (!c->tail && ep->n_eu != 1) {
                fprintf(stderr, "FAIL %s: conv + LEAKY_RELU is %d NPU ops\n", cs, ep->n_eu);
                goto out;
            }
            st->one_op++;
        }
        st->fused++;
    }
    st->cascaded += pi->cascade >= 0;
    cc_draws d = {.n_draws = 3, .seed = c->seed, .fill = fill_draw, .runs = &st->draws};
    ok = cc_check_draws(cs, src, cm, c->variant, &d);
out:
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

int main(void)
{
    long n_cfg = env_long("NPUC_FUSE_CONFIGS", 400), seed0 = env_long("NPUC_FUSE_SEED", 1);
    stats st = {0};
    for (long k = 0; k < n_cfg; k++) {
        npuc_rng r;
        npuc_rng_seed(&r, (uint64_t)(seed0 + k) * 2654435761u + 17);
        fz_cfg c;
        memset(&c, 0, sizeof c);
        c.seed = (uint64_t)(seed0 + k);
        c.prod = (int)(k % P_COUNT);
        c.act_i = (int)((k / P_COUNT) % N_ACTS);
        c.variant = variants[k % 6];
        c.H = (int32_t)npuc_rng_range(&r, 1, 12);
        c.W = (int32_t)npuc_rng_range(&r, 1, 12);
        c.C = (int32_t)npuc_rng_range(&r, 1, 24);
        c.OC = (int32_t)npuc_rng_range(&r, 1, 24);
        c.k = (int32_t)npuc_rng_range(&r, 1, 3);
        if (c.k > c.H) c.k = c.H;
        if (c.k > c.W) c.k = c.W;
        c.s = (int32_t)npuc_rng_range(&r, 1, 2);
        if (c.prod == P_FC) c.C = (int32_t)npuc_rng_range(&r, 1, 64);
        static const int own[] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
        c.own_act = own[npuc_rng_range(&r, 0, 3)];
        if (c.prod == P_MUL && c.own_act == TFL_ACT_RELU_N1_TO_1) c.own_act = TFL_ACT_NONE;
        c.t_out = npuc_rng_range(&r, 0, 7) == 0;
        c.tail = !c.t_out && c.prod != P_FC && npuc_rng_range(&r, 0, 2) == 0;
        c.wide = npuc_rng_range(&r, 0, 3) == 0;
        if (c.wide && (acts[c.act_i] == TFL_OP_HARD_SWISH || acts[c.act_i] == TFL_OP_RELU_0_TO_1))
            c.wide = false;   /* no int16 reference kernel */
        if (c.wide && c.prod == P_MUL) c.prod = P_ADD;
        int32_t a = acts[c.act_i];
        c.same_q = ((a == TFL_OP_RELU || a == TFL_OP_RELU6 || a == TFL_OP_RELU_N1_TO_1 || a == TFL_OP_RELU_0_TO_1 ||
                     a == TFL_OP_QUANTIZE) &&
                    npuc_rng_range(&r, 0, 1) == 0) ||
                   a == TFL_OP_MINIMUM || a == TFL_OP_MAXIMUM;
        c.alpha = rscale(&r, 0.01f, 0.9f);
        if (npuc_rng_range(&r, 0, 4) == 0) c.alpha = rscale(&r, 1.1f, 3.0f);
        run_config(&c, &st);
    }
    printf("%d configs (%d int16): %d fused (%d as a clamp, %d conv + LEAKY_RELU as one NPU op), %d kept "
           "apart, %d producers in a cascade, %d draws compared, %d failed\n",
           st.configs, st.wide, st.fused, st.clamps, st.one_op, st.unfused, st.cascaded, st.draws, st.failed);
    CHECK_EQ_INT(st.failed, 0);
    CHECK(st.fused >= st.configs / 2);
    CHECK(st.one_op > 0);
    CHECK(st.clamps > 0);
    CHECK(st.cascaded > 0);
    return t_failures ? 1 : 0;
}
