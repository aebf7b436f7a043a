/* TRANSPOSE_CONV on the NPU (src/compiler/cc_tconv.c). Single-op graphs
 *
 *   int8 / int16 [1, H, W, C] -> TRANSPOSE_CONV(output_shape, weights OHWI
 *   per-channel, bias int32 / int64 / int16 or none) -> [1, OH, OW, OC]
 *
 * over random strides (1..4 per axis, mixed), SAME and VALID, kernels 1..7,
 * odd and even input sizes, every output size TFLite's converter produces
 * for the input plus larger and smaller ones the op also accepts, depths
 * 1..40, fused activations, zero points and Ethos-U variants, are compiled
 * (cc_compile -> emit_tflite_model -> tfl_write -> tfl_read ->
 * graph_import), run with the ethos-u op on the virtual NPU and compared
 * byte for byte with the reference interpreter on the source graph, on
 * random and extreme inputs. Strides 1x1 / 2x2 (or any stride on an axis
 * with one input pixel) must be one NPU op; other strides up to 16 output
 * phases must run on the NPU as one op per phase; the rest must stay on
 * the CPU with the reason checked. Also chains of two transpose convs.
 *
 * Environment: NPUC_TCONV_CONFIGS (random configurations, default 400),
 * NPUC_TCONV_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_test_npu.h"

/* ------------------------------------------------------------ configs */

enum { B_NONE, B_32, B_64, B_16 };

typedef struct tc_cfg {
    int32_t batch, H, W, C, OH, OW, OC, kh, kw, sh, sw;
    int8_t padding, act;
    graph_dtype dt;
    int bias;                 /* B_* */
    int32_t in_zp, out_zp;
    float in_scale, out_scale, w_scale;
    int64_t bias_max;         /* |bias| drawn up to this */
    bool big_bias;            /* one bias at the accumulator's limit */
    eu_variant variant;
    cc_optimise optimise;
    bool chain;               /* a second transpose conv (stride 1, k 3, SAME) after it */
    uint64_t seed;
} tc_cfg;

static void cfg_str(const tc_cfg *c, char *buf, size_t size)
{
    static const char *const bn[] = {"none", "int32", "int64", "int16"};
    snprintf(buf, size,
             "%s [%d,%d,%d,%d] -> [%d,%d,%d] k %dx%d s %dx%d %s act %d bias %s zp %d/%d %s %s%s seed %llu",
             graph_dtype_name(c->dt), c->batch, c->H, c->W, c->C, c->OH, c->OW, c->OC, c->kh, c->kw, c->sh, c->sw,
             c->padding == TFL_PAD_SAME ? "SAME" : "VALID", c->act, bn[c->bias], c->in_zp, c->out_zp,
             target_variant_name(c->variant), c->optimise == CC_OPT_SIZE ? "size" : "perf",
             c->chain ? " chain" : "", (unsigned long long)c->seed);
}

/* Adds weights, bias and the op reading `x` ([1,H,W,C]) into `y`. */
static bool add_tconv(graph *g, const tc_cfg *c, npuc_rng *r, int32_t x, int32_t y, int32_t H, int32_t W,
                      int32_t C, int32_t OH, int32_t OW, int32_t OC, int32_t kh, int32_t kw, int32_t sh,
                      int32_t sw, int8_t padding, int8_t act, const char *tag)
{
    char name[64];
    int32_t os[4] = {c->batch, OH, OW, OC}, four = 4;
    snprintf(name, sizeof name, "%s_shape", tag);
    int32_t ts = graph_add_tensor(g, name, GRAPH_I32, 1, &four, os);
    size_t nw = (size_t)OC * kh * kw * C;
    int8_t *wd = malloc(nw);
    float *ws = malloc(sizeof(float) * (size_t)OC);
    int64_t *wz = calloc((size_t)OC, sizeof(int64_t));
    void *bd = malloc(8 * (size_t)OC);
    bool ok = wd && ws && wz && bd && ts >= 0;
    if (ok) {
        /* weights: mostly uniform, some channels sparse or at the extremes */
        for (int32_t o = 0; o < OC; o++) {
            int kind = (int)npuc_rng_range(r, 0, 5);
            for (size_t i = 0; i < nw / (size_t)OC; i++) {
                int8_t v = (int8_t)npuc_rng_range(r, -127, 127);
                if (kind == 4 && npuc_rng_range(r, 0, 3)) v = 0;
                if (kind == 5) v = npuc_rng_range(r, 0, 1) ? 127 : -127;
                wd[(size_t)o * (nw / (size_t)OC) + i] = v;
            }
            ws[o] = c->w_scale * (float)(0.5 + npuc_rng_unit(r));
        }
        int32_t kshape[4] = {OC, kh, kw, C};
        snprintf(name, sizeof name, "%s_w", tag);
        int32_t tw = graph_add_tensor(g, name, GRAPH_I8, 4, kshape, wd);
        ok = tw >= 0 && !graph_set_quant(g, tw, OC, ws, wz, 0);
        int32_t tb = -1;
        if (ok && c->bias != B_NONE) {
            graph_dtype bt = c->bias == B_32 ? GRAPH_I32 : c->bias == B_64 ? GRAPH_I64 : GRAPH_I16;
            for (int32_t o = 0; o < OC; o++) {
                int64_t v = npuc_rng_range(r, -c->bias_max, c->bias_max);
                if (bt == GRAPH_I32) ((int32_t *)bd)[o] = (int32_t)v;
                else if (bt == GRAPH_I64) ((int64_t *)bd)[o] = v;
                else ((int16_t *)bd)[o] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
            }
            if (c->big_bias) {
                if (bt == GRAPH_I32) ((int32_t *)bd)[OC - 1] = INT32_MAX - 1000;
                else if (bt == GRAPH_I64) ((int64_t *)bd)[OC - 1] = ((int64_t)1 << 39) - 1000;
            }
            float *bs = malloc(sizeof(float) * (size_t)OC);
            ok = bs != NULL;
            if (ok) {
                for (int32_t o = 0; o < OC; o++) bs[o] = c->in_scale * ws[o];
                snprintf(name, sizeof name, "%s_b", tag);
                tb = graph_add_tensor(g, name, bt, 1, &OC, bd);
                ok = tb >= 0 && !graph_set_quant(g, tb, OC, bs, wz, 0);
            }
            free(bs);
        }
        tfl_options o;
        memset(&o, 0, sizeof o);
        o.padding = padding;
        o.stride_h = sh;
        o.stride_w = sw;
        o.activation = act;
        int32_t ins[4] = {ts, tw, x, tb};
        ok = ok && graph_add_op(g, TFL_OP_TRANSPOSE_CONV, &o, tb >= 0 ? 4 : 3, ins, 1, &y) >= 0;
    }
    free(wd);
    free(ws);
    free(wz);
    free(bd);
    (void)H;
    (void)W;
    return ok;
}

static graph *build_graph(const tc_cfg *c)
{
    graph *g = graph_new("tconv");
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, c->seed * 7919 + 17);
    int32_t ish[4] = {c->batch, c->H, c->W, c->C}, osh[4] = {c->batch, c->OH, c->OW, c->OC};
    int64_t izp = c->in_zp, ozp = c->out_zp;
    int32_t ti = graph_add_tensor(g, "x", c->dt, 4, ish, NULL);
    int32_t to = graph_add_tensor(g, "y", c->dt, 4, osh, NULL);
    bool ok = ti >= 0 && to >= 0 && !graph_set_quant(g, ti, 1, &c->in_scale, &izp, 0) &&
              !graph_set_quant(g, to, 1, &c->out_scale, &ozp, 0) &&
              add_tconv(g, c, &r, ti, to, c->H, c->W, c->C, c->OH, c->OW, c->OC, c->kh, c->kw, c->sh, c->sw,
                        c->padding, c->act, "t0");
    int32_t last = to;
    if (ok && c->chain) {
        int32_t t2 = graph_add_tensor(g, "y2", c->dt, 4, osh, NULL);
        tc_cfg c2 = *c;
        c2.in_scale = c->out_scale;
        ok = t2 >= 0 && !graph_set_quant(g, t2, 1, &c->out_scale, &ozp, 0) &&
             add_tconv(g, &c2, &r, to, t2, c->OH, c->OW, c->OC, c->OH, c->OW, c->OC, 3, 3, 1, 1, TFL_PAD_SAME,
                       TFL_ACT_NONE, "t1");
        last = t2;
    }
    if (!ok || graph_set_io(g, 1, &ti, 1, &last)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

typedef struct stats {
    int configs, npu, cpu, draws, failed, npu_ops;
    long long elems, clamped;   /* outputs compared, at the type's ends */
} stats;

typedef struct run_ctx {
    const tc_cfg *c;
    const char *cs;
    stats *st;
} run_ctx;

/* uniform; all minimum; all maximum; checkerboard of the extremes; sparse;
 * then uniform */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *in, size_t nbytes)
{
    const tc_cfg *c = ((run_ctx *)user)->c;
    bool wide = c->dt == GRAPH_I16;
    int64_t lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
    size_t n = nbytes / graph_dtype_size(c->dt);
    (void)k;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        switch (d) {
        case 1: v = lo; break;
        case 2: v = hi; break;
        case 3: v = (i / (size_t)c->C) % 2 ? lo : hi; break;
        case 4: v = npuc_rng_range(r, 0, 7) ? (wide ? 0 : c->in_zp) : npuc_rng_range(r, lo, hi); break;
        default: v = npuc_rng_range(r, lo, hi); break;
        }
        if (wide) ((int16_t *)in)[i] = (int16_t)v;
        else ((int8_t *)in)[i] = (int8_t)v;
    }
}

static void diff_draw(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t at)
{
    run_ctx *x = user;
    const tc_cfg *c = x->c;
    size_t na, nb, es = graph_dtype_size(c->dt);
    const void *oa = interp_output(t->ref, k, &na), *ob = interp_output(t->npu, k, &nb);
    (void)in;
    at -= at % es;
    long long va = es == 1 ? ((const int8_t *)oa)[at] : ((const int16_t *)oa)[at / 2];
    long long vb = es == 1 ? ((const int8_t *)ob)[at] : ((const int16_t *)ob)[at / 2];
    size_t idx = at / es;
    size_t ch = idx % (size_t)c->OC, px = idx / (size_t)c->OC;
    fprintf(stderr, "FAIL %s, draw %d: element %zu (y %zu x %zu c %zu) reference %lld, NPU %lld\n", x->cs, d, idx,
            px / (size_t)c->OW, px % (size_t)c->OW, ch, va, vb);
}

/* outputs compared, and those at the type's ends */
static void seen_draw(void *user, const cc_twin *t, int32_t k, size_t size)
{
    run_ctx *x = user;
    bool wide = x->c->dt == GRAPH_I16;
    const void *o = interp_output(t->ref, k, &size);
    for (size_t i = 0; i < size / graph_dtype_size(x->c->dt); i++) {
        int32_t v = wide ? ((const int16_t *)o)[i] : ((const int8_t *)o)[i];
        x->st->elems++;
        x->st->clamped += wide ? v == -32768 || v == 32767 : v == -128 || v == 127;
    }
}

/* Compiles and checks one configuration. expect_npu: 1 must be on the NPU,
 * 0 must stay on the CPU with `reason` in the reason, -1 either. */
static bool run_config(const tc_cfg *c, int expect_npu, const char *reason, int n_draws, stats *st)
{
    char cs[300];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    cc_model *cm = NULL;
    bool ok = false;
    st->configs++;
    if (!cc_check_compile(cs, src, c->variant, (cc_options){.optimise = c->optimise}, &cm)) goto out;
    bool npu = cm->ops[0].npu;
    npu ? st->npu++ : st->cpu++;
    if (npu) st->npu_ops += cm->ops[0].n_eu;
    if (!cc_check_placement(cs, cm, expect_npu, reason, NULL)) goto out;
    run_ctx x = {c, cs, st};
    cc_draws d = {.n_draws = n_draws, .seed = c->seed, .fill = fill_draw, .diff = diff_draw, .seen = seen_draw,
                  .user = &x, .runs = &st->draws, .npu_runs = CC_RUNS_SOME};
    ok = !npu || cc_check_draws(cs, src, cm, c->variant, &d);
out:
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

/* Output extents of one axis TFLite's converter gives for input n
 * (ComputeOutSize(out) == n): SAME (n-1)s+1 .. ns, VALID (n-1)s+k ..
 * (n-1)s+k+s-1. */
static int32_t draw_out(npuc_rng *r, int8_t padding, int32_t n, int32_t k, int32_t s, int mode)
{
    int32_t lo = padding == TFL_PAD_SAME ? (n - 1) * s + 1 : (n - 1) * s + k;
    int32_t hi = padding == TFL_PAD_SAME ? n * s : (n - 1) * s + k + s - 1;
    switch (mode) {
    case 0: return padding == TFL_PAD_SAME ? n * s : (n - 1) * s + k;   /* what converters emit */
    case 1: return (int32_t)npuc_rng_range(r, lo, hi);
    default: {
        /* any size the op accepts: smaller, or larger than the input covers */
        int32_t v = (int32_t)npuc_rng_range(r, 1, hi + 2 * s + 3);
        return v;
    }
    }
}

/* Whether the NPU form covers these strides (the rule of cc_tconv.c: one
 * op for 1x1 / 2x2, where an axis with one input pixel takes either; else
 * one op per output phase, up to 16). */
static bool strides_ok(const tc_cfg *c)
{
    int32_t sh = c->H == 1 ? 0 : c->sh, sw = c->W == 1 ? 0 : c->sw;
    int32_t up = sh ? sh : sw ? sw : 1;
    bool phases = (sh && sh != up) || (sw && sw != up) || up > 2;
    return !phases || c->sh * c->sw <= 16;
}

static void random_cfg(npuc_rng *r, tc_cfg *c, uint64_t seed, int vi)
{
    memset(c, 0, sizeof *c);
    c->seed = seed;
    c->batch = 1;
    c->dt = npuc_rng_range(r, 0, 2) ? GRAPH_I8 : GRAPH_I16;
    int sk = (int)npuc_rng_range(r, 0, 9);
    /* strides: mostly 1 and 2, sometimes 3 and 4, mixed */
    c->sh = sk < 4 ? 2 : sk < 6 ? 1 : (int32_t)npuc_rng_range(r, 1, 4);
    c->sw = sk < 4 ? 2 : sk < 6 ? 1 : (int32_t)npuc_rng_range(r, 1, 4);
    c->kh = (int32_t)npuc_rng_range(r, 1, 7);
    c->kw = npuc_rng_range(r, 0, 2) ? c->kh : (int32_t)npuc_rng_range(r, 1, 7);
    c->H = (int32_t)npuc_rng_range(r, 1, 9);
    c->W = (int32_t)npuc_rng_range(r, 1, 9);
    if (!npuc_rng_range(r, 0, 7)) c->H = 1;   /* 1-d (audio) shapes */
    c->C = (int32_t)(npuc_rng_range(r, 0, 3) ? npuc_rng_range(r, 1, 16) : npuc_rng_range(r, 17, 40));
    c->OC = (int32_t)(npuc_rng_range(r, 0, 3) ? npuc_rng_range(r, 1, 16) : npuc_rng_range(r, 17, 40));
    c->padding = npuc_rng_range(r, 0, 1) ? TFL_PAD_SAME : TFL_PAD_VALID;
    int mode = (int)npuc_rng_range(r, 0, 5);
    mode = mode < 2 ? 0 : mode < 4 ? 1 : 2;
    c->OH = draw_out(r, c->padding, c->H, c->kh, c->sh, mode);
    c->OW = draw_out(r, c->padding, c->W, c->kw, c->sw, mode);
    static const int8_t acts[] = {TFL_ACT_NONE, TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
    c->act = acts[npuc_rng_range(r, 0, 4)];
    int b = (int)npuc_rng_range(r, 0, 5);
    if (c->dt == GRAPH_I8) c->bias = b == 0 ? B_NONE : B_32;
    else c->bias = b == 0 ? B_NONE : b == 1 ? B_16 : B_64;
    c->in_zp = c->dt == GRAPH_I8 ? (int32_t)npuc_rng_range(r, -128, 127) : 0;
    c->out_zp = c->dt == GRAPH_I8 ? (int32_t)npuc_rng_range(r, -128, 127) : 0;
    c->in_scale = (float)(0.001 + 0.05 * npuc_rng_unit(r));
    if (c->dt == GRAPH_I16) c->in_scale /= 256;
    c->w_scale = (float)(0.002 + 0.02 * npuc_rng_unit(r));
    /* output scale: the typical sum over the taps of one output lands in
     * the output range, scaled by a random factor */
    double taps = (double)c->kh * c->kw * c->C / ((double)c->sh * c->sw);
    if (taps < 1) taps = 1;
    double xr = c->dt == GRAPH_I8 ? 128 : 32768;
    double typ = xr * 64 * sqrt(taps) * c->in_scale * c->w_scale;
    double f = exp(npuc_rng_unit(r) * 4 - 2);
    c->out_scale = (float)(typ * f / (c->dt == GRAPH_I8 ? 64 : 16384));
    c->bias_max = (int64_t)(typ / (c->in_scale * c->w_scale) * 2) + 1;
    c->variant = variants[vi % 6];
    c->optimise = npuc_rng_range(r, 0, 3) ? CC_OPT_PERFORMANCE : CC_OPT_SIZE;
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_TCONV_CONFIGS", 400);
    long first = env_long("NPUC_TCONV_SEED", 1);
    npuc_rng r;
    npuc_rng_seed(&r, 4242);
    int vi = 0;
    tc_cfg c;

    /* the converter's shapes over strides 1/2, both paddings, kernels
     * 1..7, odd and even sizes, both types */
    for (int t = 0; t < 2; t++)
        for (int32_t s = 1; s <= 2; s++)
            for (int32_t k = 1; k <= 7; k++)
                for (int pad = 0; pad < 2; pad++) {
                    random_cfg(&r, &c, (uint64_t)(100 + t * 100 + s * 30 + k * 2 + pad), vi++);
                    c.dt = t ? GRAPH_I16 : GRAPH_I8;
                    if (t) c.in_zp = c.out_zp = 0;
                    if (t && c.bias == B_32) c.bias = B_64;
                    if (!t && c.bias != B_NONE) c.bias = B_32;
                    c.sh = c.sw = s;
                    c.kh = c.kw = k;
                    c.H = 3 + k % 3;
                    c.W = 4 + pad;
                    c.padding = pad ? TFL_PAD_SAME : TFL_PAD_VALID;
                    c.OH = draw_out(&r, c.padding, c.H, k, s, 0);
                    c.OW = draw_out(&r, c.padding, c.W, k, s, 0);
                    run_config(&c, 1, NULL, 6, &st);
                }

    /* random configurations */
    for (long i = 0; i < n_random; i++) {
        random_cfg(&r, &c, (uint64_t)(first + i), vi++);
        int expect = strides_ok(&c) && c.OH <= 100 && c.OW <= 100 ? 1 : -1;
        if (!strides_ok(&c)) expect = 0;
        run_config(&c, expect, expect == 0 ? "stride" : NULL, i % 10 == 0 ? 6 : 4, &st);
    }

    /* chains of two transpose convs in one epoch */
    for (int i = 0; i < 12; i++) {
        random_cfg(&r, &c, (uint64_t)(5000 + i), vi++);
        c.sh = c.sw = 1 + i % 2;
        c.OH = draw_out(&r, c.padding, c.H, c.kh, c.sh, 0);
        c.OW = draw_out(&r, c.padding, c.W, c.kw, c.sw, 0);
        c.act = TFL_ACT_NONE;
        c.chain = true;
        run_config(&c, 1, NULL, 4, &st);
    }

    /* what stays on the CPU, and why */
    random_cfg(&r, &c, 6001, vi++);
    c.sh = 5;
    c.sw = 4;
    c.H = c.W = 3;
    c.OH = draw_out(&r, c.padding, c.H, c.kh, c.sh, 0);
    c.OW = draw_out(&r, c.padding, c.W, c.kw, c.sw, 0);
    run_config(&c, 0, "stride 4x5", 2, &st);

    random_cfg(&r, &c, 6002, vi++);   /* output far past what the input covers */
    c.sh = c.sw = 2;
    c.H = 2;
    c.OH = 300;
    run_config(&c, 0, "padding", 2, &st);

    random_cfg(&r, &c, 6003, vi++);   /* the same with phases */
    c.sh = 3;
    c.sw = 1;
    c.H = 2;
    c.OH = 500;
    run_config(&c, 0, "padding", 2, &st);

    random_cfg(&r, &c, 6004, vi++);   /* int8 sum + bias could pass 32 bits */
    c.dt = GRAPH_I8;
    c.bias = B_32;
    c.big_bias = true;
    c.in_zp = c.out_zp = 0;
    run_config(&c, 0, "accumulator", 2, &st);

    random_cfg(&r, &c, 6005, vi++);   /* int16 sum + bias could pass 40 bits */
    c.dt = GRAPH_I16;
    c.bias = B_64;
    c.big_bias = true;
    c.in_zp = c.out_zp = 0;
    run_config(&c, 0, "accumulator", 2, &st);

    random_cfg(&r, &c, 6006, vi++);   /* batch 2 */
    c.batch = 2;
    run_config(&c, 0, "batch 2", 2, &st);

    random_cfg(&r, &c, 6007, vi++);   /* int16 with an int32 bias: the reference rejects it */
    c.dt = GRAPH_I16;
    c.in_zp = c.out_zp = 0;
    c.bias = B_32;
    run_config(&c, 0, "bias", 0, &st);

    /* the other way round: large outputs that still fit the padding */
    random_cfg(&r, &c, 6008, vi++);
    c.sh = c.sw = 2;
    c.H = 2;
    c.W = 3;
    c.OH = 2 * 2 + 120;
    c.OW = 9;
    run_config(&c, 1, NULL, 3, &st);
    random_cfg(&r, &c, 6009, vi++);
    c.sh = 3;
    c.sw = 2;
    c.H = 2;
    c.W = 2;
    c.OH = 1;
    c.OW = 1;
    run_config(&c, 1, NULL, 3, &st);

    printf("tconv: %d configs (%d NPU with %d NPU ops, %d CPU), %d draws, %lld outputs (%.1f%% at the type's "
           "ends), %d failed\n", st.configs, st.npu, st.npu_ops, st.cpu, st.draws, st.elems,
           st.elems ? 100.0 * (double)st.clamped / (double)st.elems : 0.0, st.failed);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
