/* MAX_POOL_2D, AVERAGE_POOL_2D, CONV_2D and DEPTHWISE_CONV_2D (VALID)
 * with strides above 3 on the NPU (lower_conv.c: lower_wide_stride, bands
 * sharing one weight stream; pools:
 * src/compiler/lower/lower_pool.c: a pool whose output has one row or
 * column along such an axis takes stride 1; others become one NPU op per
 * output row / column band over the slice of the input it reads).
 * Single-op graphs with random shapes, kernels, strides (mostly above 3),
 * padding, fused activations and quantization, int8 and int16, plus the
 * global-pool form of the armkws ds_cnn models (kernel = stride = input),
 * are compiled for a random Ethos-U variant (cc_compile ->
 * emit_tflite_model -> tfl_write -> tfl_read -> graph_import), the command
 * streams checked for hazards (cc_hazard.h), run with the ethos-u op on
 * the virtual NPU and compared byte for byte with the reference
 * interpreter on the source graph over uniform inputs and the extremes.
 * Edge cases assert the placement. Then convolutions over shallow inputs
 * (1..4 channels) with a horizontal stride of 2 or 3, whose IFM columns
 * fold into channels (lower_conv.c: fold_columns): at least 200 folded,
 * and three fixed forms that must fold.
 *
 * Environment: NPUC_ST_CONFIGS (random configurations, default 500),
 * NPUC_ST_SEED (first seed, default 1), NPUC_ST_VERBOSE (print the reason
 * of every configuration left on the CPU). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_test_npu.h"
#include "cc_hazard.h"

typedef struct cfg {
    int kind;                     /* 0 pool, 1 CONV_2D, 2 DEPTHWISE_CONV_2D */
    int32_t oc, dy, dx;           /* convs: output depth, dilation */
    uint64_t wseed;               /* convs: weights, bias, scales */
    bool is_max;
    graph_dtype dt;
    int32_t h, w, ch;
    int32_t fh, fw, sy, sx;
    int32_t padding, act;
    float scale;
    int64_t zp;
    eu_variant variant;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    if (c->kind) {
        snprintf(buf, size, "%s %s %dx%dx%d -> %d kernel %dx%d stride %dx%d dilation %dx%d %s act %d zp %lld wseed %llu %s",
                 c->kind == 1 ? "CONV_2D" : "DEPTHWISE_CONV_2D", graph_dtype_name(c->dt), c->h, c->w, c->ch, c->oc,
                 c->fh, c->fw, c->sy, c->sx, c->dy, c->dx,
                 c->padding == TFL_PAD_SAME ? "SAME" : "VALID", c->act, (long long)c->zp, (unsigned long long)c->wseed,
                 target_variant_name(c->variant));
        return;
    }
    snprintf(buf, size, "%s %s %dx%dx%d kernel %dx%d stride %dx%d %s act %d scale %.6g zp %lld %s",
             c->is_max ? "MAX_POOL" : "AVERAGE_POOL", graph_dtype_name(c->dt), c->h, c->w, c->ch, c->fh, c->fw, c->sy,
             c->sx, c->padding == TFL_PAD_SAME ? "SAME" : "VALID", c->act, (double)c->scale, (long long)c->zp,
             target_variant_name(c->variant));
}

static int32_t out_extent(int32_t padding, int32_t in, int32_t k, int32_t s)
{
    return padding == TFL_PAD_SAME ? (in + s - 1) / s : (in - k + s) / s;
}

static graph *build_conv(const cfg *c);

static graph *build_graph(const cfg *c)
{
    if (c->kind) return build_conv(c);
    graph *g = graph_new("stride");
    if (!g) return NULL;
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.filter_h = c->fh;
    opt.filter_w = c->fw;
    opt.stride_h = c->sy;
    opt.stride_w = c->sx;
    opt.padding = c->padding;
    opt.activation = c->act;
    int32_t ishape[4] = {1, c->h, c->w, c->ch};
    int32_t oshape[4] = {1, out_extent(c->padding, c->h, c->fh, c->sy), out_extent(c->padding, c->w, c->fw, c->sx),
                         c->ch};
    int32_t ti = graph_add_tensor(g, "x", c->dt, 4, ishape, NULL);
    int32_t to = graph_add_tensor(g, "y", c->dt, 4, oshape, NULL);
    bool ok = ti >= 0 && to >= 0 && !graph_set_quant(g, ti, 1, &c->scale, &c->zp, 0) &&
              !graph_set_quant(g, to, 1, &c->scale, &c->zp, 0) &&
              graph_add_op(g, c->is_max ? TFL_OP_MAX_POOL_2D : TFL_OP_AVERAGE_POOL_2D, &opt, 1, &ti, 1, &to) >= 0;
    if (!ok || graph_set_io(g, 1, &ti, 1, &to)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

typedef struct stats {
    int configs, npu, cpu, draws, failed, rejected, split, folded, phased;
    long long outs, inner;        /* output values compared, not at a type limit */
} stats;

/* What the callbacks of one configuration share. */
typedef struct run_ctx {
    cc_pat_ctx p;        /* first: the fill and diff callbacks' */
    const cfg *c;
    stats *st;
} run_ctx;

static void seen_draw(void *user, const cc_twin *t, int32_t k, size_t size)
{
    run_ctx *x = user;
    size_t es = graph_dtype_size(x->c->dt);
    const void *o = interp_output(t->ref, k, &size);
    for (size_t i = 0; i < size / es; i++) {
        int32_t v = es == 1 ? ((const int8_t *)o)[i] : ((const int16_t *)o)[i];
        x->st->outs++;
        x->st->inner += es == 1 ? v > -128 && v < 127 : v > -32768 && v < 32767;
    }
}

/* On the NPU: count a split op, check the command streams for hazards. */
static bool check_model(void *user, const cc_model *cm)
{
    run_ctx *x = user;
    if (cm->ops[0].n_eu > 1) x->st->split++;
    /* IFM columns folded into channels (lower_conv.c: fold_columns): the
     * CONV reads its input as W/f columns of f*C channels */
    bool folded = false, phased = false;
    for (int32_t e = 0; e < cm->n_epochs; e++)
        for (int32_t k = 0; k < cm->epochs[e].n_eu; k++) {
            const eu_op *o = &cm->epochs[e].ops[k];
            if (o->kind != SIM_K_CONV || o->ifm.c <= (uint32_t)x->c->ch || o->ifm.w >= (uint32_t)x->c->w) continue;
            folded = true;
            /* a phase writes every f-th output column */
            if (o->ofm.sx > (uint64_t)o->ofm.c * (o->ofm.bits / 8u)) phased = true;
        }
    if (folded) x->st->folded++;
    if (phased) x->st->phased++;
    return cc_hazard_model(cm, x->c->variant, x->p.cs);
}

/* Compiles and checks one configuration. expect_npu: 1 on the NPU, 0 on
 * the CPU (with `why` in the reason when given), -1 either. */
static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, int n_draws, stats *st)
{
    char cs[300];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    run_ctx x = {{c->dt, cs, seed, 0}, c, st};
    cc_draws d = {.n_draws = n_draws, .seed = seed, .fill = cc_fill_patterns, .diff = cc_diff_elements, .seen = seen_draw,
                  .user = &x, .runs = &st->draws, .npu_runs = CC_RUNS_ONE};
    int placed;
    st->configs++;
    int res = cc_check_single_op(cs, src, c->variant, (cc_options){0}, expect_npu, why, "NPUC_ST_VERBOSE",
                                 check_model, &d, &placed);
    if (placed >= 0) placed ? st->npu++ : st->cpu++;
    if (res == CC_SINGLE_REJECTED) st->rejected++;
    bool ok = cc_single_ok(res, expect_npu);
    if (!ok) st->failed++;
    graph_free(src);
    return ok;
}

static void base(cfg *c, bool is_max, graph_dtype dt, int32_t h, int32_t w, int32_t ch, int32_t fh, int32_t fw,
                 int32_t sy, int32_t sx, int32_t padding)
{
    memset(c, 0, sizeof *c);
    c->is_max = is_max;
    c->dt = dt;
    c->h = h;
    c->w = w;
    c->ch = ch;
    c->fh = fh;
    c->fw = fw;
    c->sy = sy;
    c->sx = sx;
    c->padding = padding;
    c->act = TFL_ACT_NONE;
    c->scale = 0.05f;
    c->zp = dt == GRAPH_I8 ? -3 : 0;
    c->variant = EU_U55_128;
}

/* A stride: above 3 two times in three. */
static int32_t rnd_stride(npuc_rng *r)
{
    return (int32_t)(npuc_rng_range(r, 0, 2) ? npuc_rng_range(r, 4, 9) : npuc_rng_range(r, 1, 3));
}

static void random_cfg(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->is_max = npuc_rng_range(r, 0, 1);
    c->dt = npuc_rng_range(r, 0, 2) ? GRAPH_I8 : GRAPH_I16;
    c->ch = (int32_t)(npuc_rng_range(r, 0, 3) ? npuc_rng_range(r, 1, 20) : npuc_rng_range(r, 20, 70));
    int form = (int)npuc_rng_range(r, 0, 3);
    if (form == 0) {
        /* global: kernel = input, stride = kernel or random (one output) */
        c->h = (int32_t)npuc_rng_range(r, 1, 30);
        c->w = (int32_t)npuc_rng_range(r, 1, 30);
        c->fh = c->h;
        c->fw = c->w;
        c->sy = npuc_rng_range(r, 0, 1) ? c->h : rnd_stride(r);
        c->sx = npuc_rng_range(r, 0, 1) ? c->w : rnd_stride(r);
        c->padding = npuc_rng_range(r, 0, 1) ? TFL_PAD_VALID : TFL_PAD_SAME;
    } else {
        c->h = (int32_t)npuc_rng_range(r, 1, form == 3 ? 60 : 24);
        c->w = (int32_t)npuc_rng_range(r, 1, form == 3 ? 60 : 24);
        c->sy = rnd_stride(r);
        c->sx = rnd_stride(r);
        c->padding = npuc_rng_range(r, 0, 1) ? TFL_PAD_VALID : TFL_PAD_SAME;
        int32_t kmax = form == 2 ? 10 : 6;
        c->fh = (int32_t)npuc_rng_range(r, 1, kmax);
        c->fw = (int32_t)npuc_rng_range(r, 1, kmax);
        if (c->padding == TFL_PAD_VALID) {
            if (c->fh > c->h) c->fh = c->h;
            if (c->fw > c->w) c->fw = c->w;
        }
    }
    static const int32_t acts[4] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
    c->act = acts[npuc_rng_range(r, 0, 3)];
    c->scale = (float)(0.001 * pow(2.0, npuc_rng_unit(r) * 8));
    c->zp = c->dt == GRAPH_I8 ? npuc_rng_range(r, -128, 127) : 0;
    c->variant = variants[npuc_rng_range(r, 0, 5)];
}


/* A CONV_2D / DEPTHWISE_CONV_2D (multiplier 1 or oc / ch) with VALID
 * padding, per-channel int8 weights, bias int32 (int8) / int64 (int16). */
static graph *build_conv(const cfg *c)
{
    graph *g = graph_new("stride_conv");
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, c->wseed);
    int32_t effh = (c->fh - 1) * c->dy + 1, effw = (c->fw - 1) * c->dx + 1;
    int32_t oh = (c->h - effh) / c->sy + 1, ow = (c->w - effw) / c->sx + 1;
    if (c->padding == TFL_PAD_SAME) {
        oh = (c->h + c->sy - 1) / c->sy;
        ow = (c->w + c->sx - 1) / c->sx;
    }
    bool dw = c->kind == 2;
    int32_t ishape[4] = {1, c->h, c->w, c->ch}, oshape[4] = {1, oh, ow, c->oc};
    int32_t wshape[4] = {dw ? 1 : c->oc, c->fh, c->fw, dw ? c->oc : c->ch};
    float si = c->scale;
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.padding = c->padding == TFL_PAD_SAME ? TFL_PAD_SAME : TFL_PAD_VALID;
    opt.stride_h = c->sy;
    opt.stride_w = c->sx;
    opt.dilation_h = c->dy;
    opt.dilation_w = c->dx;
    opt.depth_multiplier = dw ? c->oc / c->ch : 0;
    opt.activation = c->act;
    int32_t ti = graph_add_tensor(g, "x", c->dt, 4, ishape, NULL);
    int32_t to = ti >= 0 ? cc_rand_conv(g, &r, ti, si, c->dt, dw, wshape, oshape, &opt, "y") : -1;
    if (to < 0 || graph_set_quant(g, ti, 1, &si, &c->zp, 0) || graph_set_io(g, 1, &ti, 1, &to)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static void random_conv(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->kind = (int)npuc_rng_range(r, 1, 2);
    c->padding = TFL_PAD_VALID;
    c->dt = npuc_rng_range(r, 0, 2) ? GRAPH_I8 : GRAPH_I16;
    c->ch = (int32_t)npuc_rng_range(r, 1, 24);
    c->oc = c->kind == 2 ? c->ch * (c->ch <= 8 && !npuc_rng_range(r, 0, 3) ? 2 : 1) : (int32_t)npuc_rng_range(r, 1, 40);
    c->fh = (int32_t)npuc_rng_range(r, 1, 6);
    c->fw = (int32_t)npuc_rng_range(r, 1, 6);
    c->dy = (int32_t)npuc_rng_range(r, 1, 4) == 1 ? 2 : 1;
    c->dx = (int32_t)npuc_rng_range(r, 1, 4) == 1 ? 2 : 1;
    c->sy = rnd_stride(r);
    c->sx = rnd_stride(r);
    int32_t effh = (c->fh - 1) * c->dy + 1, effw = (c->fw - 1) * c->dx + 1;
    c->h = effh + (int32_t)npuc_rng_range(r, 0, 30);
    c->w = effw + (int32_t)npuc_rng_range(r, 0, 30);
    static const int32_t acts[4] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
    c->act = acts[npuc_rng_range(r, 0, 3)];
    c->scale = (float)(0.01 * pow(2.0, npuc_rng_unit(r) * 4));
    c->zp = c->dt == GRAPH_I8 ? npuc_rng_range(r, -128, 127) : 0;
    c->wseed = npuc_rng_range(r, 1, 1000000);
    c->variant = variants[npuc_rng_range(r, 0, 5)];
}

/* A convolution over a shallow input (1..4 channels) with a horizontal
 * stride of 2 or 3 on a width it divides, or of 1 on a width some f with
 * f * C <= 8 divides, SAME or VALID: the forms whose IFM columns fold into
 * channels (lower_conv.c: fold_columns; stride 1 one op per phase). */
static void random_fold(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->kind = npuc_rng_range(r, 0, 3) ? 1 : 2;
    c->padding = npuc_rng_range(r, 0, 1) ? TFL_PAD_VALID : TFL_PAD_SAME;
    c->dt = npuc_rng_range(r, 0, 7) ? GRAPH_I8 : GRAPH_I16;
    /* stride 1 (one op per phase of f columns) two times in five */
    c->sx = npuc_rng_range(r, 0, 4) < 2 ? 1 : (int32_t)npuc_rng_range(r, 2, 3);
    /* mostly a depth the fold takes (f * C <= 8) */
    c->ch = (int32_t)npuc_rng_range(r, 1, c->sx == 3 && npuc_rng_range(r, 0, 4) ? 2 : 4);
    int32_t fmax = c->sx > 1 ? c->sx : 8 / c->ch, f = c->sx > 1 ? c->sx : (int32_t)npuc_rng_range(r, 2, fmax);
    if (c->kind == 2) {
        /* depthwise: input depth 1 (a CONV) or a multiplier on up to 4 */
        if (npuc_rng_range(r, 0, 1)) c->ch = 1;
        c->oc = c->ch * (int32_t)npuc_rng_range(r, c->ch == 1 ? 1 : 2, 8);
    } else {
        c->oc = (int32_t)npuc_rng_range(r, 1, 40);
    }
    /* phases add zero taps: their weights stay small (FOLD_EXTRA_WEIGHTS) */
    if (c->sx == 1 && c->oc > 8) c->oc = c->kind == 2 ? c->ch * 2 : (int32_t)npuc_rng_range(r, 1, 8);
    c->fh = (int32_t)npuc_rng_range(r, 1, 7);
    c->fw = (int32_t)npuc_rng_range(r, npuc_rng_range(r, 0, 4) ? 3 : 1, 7);
    c->dy = npuc_rng_range(r, 1, 4) == 1 ? 2 : 1;
    c->dx = npuc_rng_range(r, 1, 10) == 1 ? 2 : 1;
    c->sy = (int32_t)npuc_rng_range(r, 1, 3);
    int32_t effh = (c->fh - 1) * c->dy + 1, effw = (c->fw - 1) * c->dx + 1;
    c->h = effh + (int32_t)npuc_rng_range(r, 0, 24);
    c->w = f * (((effw + f - 1) / f) + (int32_t)npuc_rng_range(r, 0, 16));
    if (npuc_rng_range(r, 0, 9) == 0) c->w += 1;   /* a width the stride does not divide */
    static const int32_t acts[4] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
    c->act = acts[npuc_rng_range(r, 0, 3)];
    c->scale = (float)(0.01 * pow(2.0, npuc_rng_unit(r) * 4));
    c->zp = c->dt == GRAPH_I8 ? npuc_rng_range(r, -128, 127) : 0;
    c->wseed = npuc_rng_range(r, 1, 1000000);
    /* Ethos-U55 (an SRAM arena: the fold is taken there) nine times in ten */
    c->variant = npuc_rng_range(r, 0, 9) ? variants[npuc_rng_range(r, 0, 3)] : variants[npuc_rng_range(r, 4, 5)];
}

int main(void)
{
    long n = env_long("NPUC_ST_CONFIGS", 500);
    uint64_t seed0 = (uint64_t)env_long("NPUC_ST_SEED", 1);
    stats st = {0};
    int big_npu = 0;
    for (long i = 0; i < n; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, seed0 + (uint64_t)i);
        cfg c;
        random_cfg(&r, &c);
        int before = st.npu;
        CHECK(run_config(&c, seed0 + (uint64_t)i, -1, NULL, 6, &st));
        if (st.npu > before && (c.sx > 3 || c.sy > 3)) big_npu++;
    }
    int rnd_npu = st.npu, rnd_split = st.split;
    cfg c;
    /* the armkws ds_cnn pool: 5x25 over 5x25 (stride 5x25), and its
     * neighbours; int8 and int16, max and average, every variant */
    for (int v = 0; v < 6; v++) {
        base(&c, v & 1, v & 2 ? GRAPH_I16 : GRAPH_I8, 5, 25, 64, 5, 25, 5, 25, TFL_PAD_VALID);
        c.variant = variants[v];
        CHECK(run_config(&c, 10 + (uint64_t)v, 1, NULL, 6, &st));
    }
    /* the ResNet-style 7x7 global pool with stride 7, one band of rows
     * each (stride 4, VALID and SAME), one op per output (both axes) */
    base(&c, false, GRAPH_I8, 7, 7, 32, 7, 7, 7, 7, TFL_PAD_VALID);
    CHECK(run_config(&c, 20, 1, NULL, 6, &st));
    base(&c, false, GRAPH_I8, 17, 9, 8, 2, 3, 4, 1, TFL_PAD_VALID);
    CHECK(run_config(&c, 21, 1, NULL, 6, &st));
    base(&c, false, GRAPH_I8, 17, 9, 8, 3, 3, 5, 2, TFL_PAD_SAME);
    CHECK(run_config(&c, 22, 1, NULL, 6, &st));
    base(&c, true, GRAPH_I16, 13, 14, 5, 4, 5, 6, 7, TFL_PAD_SAME);
    CHECK(run_config(&c, 23, 1, NULL, 6, &st));
    /* on the CPU with the reason: too many bands, an unprovable int16
     * average, a padded average over more than 8x8 */
    base(&c, true, GRAPH_I8, 40, 40, 3, 2, 2, 4, 4, TFL_PAD_VALID);
    CHECK(run_config(&c, 30, 0, "split into at most", 2, &st));
    base(&c, false, GRAPH_I16, 5, 25, 4, 5, 25, 5, 25, TFL_PAD_VALID);
    c.variant = EU_U65_256;
    CHECK(run_config(&c, 31, 1, NULL, 4, &st));
    base(&c, false, GRAPH_I8, 20, 20, 3, 10, 10, 10, 10, TFL_PAD_SAME);
    CHECK(run_config(&c, 32, 1, NULL, 4, &st));
    base(&c, false, GRAPH_I8, 21, 21, 3, 10, 10, 10, 10, TFL_PAD_SAME);
    CHECK(run_config(&c, 33, 0, "NPU limit 8x8", 2, &st));
    printf("POOL stride: %d configs (%ld random: %d on the NPU, %d with a stride above 3, %d split), %d on the "
           "NPU, %d on the CPU, %d rejected by the reference, %d draws, %d failed\n",
           st.configs, n, rnd_npu, big_npu, rnd_split, st.npu, st.cpu, st.rejected, st.draws, st.failed);
    CHECK(big_npu >= 200 || n < 500);

    /* convolutions with strides above 3, VALID */
    stats cs = {0};
    int cbig = 0;
    for (long i = 0; i < n; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, seed0 + 7000003u + (uint64_t)i);
        random_conv(&r, &c);
        int before = cs.npu;
        CHECK(run_config(&c, seed0 + (uint64_t)i, -1, NULL, 6, &cs));
        if (cs.npu > before && (c.sx > 3 || c.sy > 3)) cbig++;
    }
    int crnd_npu = cs.npu, crnd_split = cs.split;
    /* one output per axis, bands of rows, of columns, both; SAME stays */
    static const int32_t cc[][8] = {
        /* kind, h, w, ch, oc, k, s, dt16 */
        {1, 8, 8, 3, 16, 8, 8, 0}, {1, 16, 16, 3, 8, 4, 4, 0}, {2, 20, 9, 16, 16, 3, 5, 1}, {1, 12, 30, 5, 70, 2, 6, 1},
        {1, 9, 40, 32, 64, 3, 4, 0}, /* weights in output-channel chunks */
    };
    for (size_t i = 0; i < sizeof cc / sizeof cc[0]; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, 500 + i);
        random_conv(&r, &c);
        c.kind = cc[i][0];
        c.h = cc[i][1];
        c.w = cc[i][2];
        c.ch = cc[i][3];
        c.oc = cc[i][4];
        c.fh = c.fw = cc[i][5];
        c.sy = c.sx = cc[i][6];
        c.dy = c.dx = 1;
        c.dt = cc[i][7] ? GRAPH_I16 : GRAPH_I8;
        if (c.dt == GRAPH_I16) c.zp = 0;
        c.variant = variants[i % 6];
        CHECK(run_config(&c, 600 + i, 1, NULL, 6, &cs));
    }
    /* SAME with a stride above 3 stays on the CPU, with the reason */
    c.padding = TFL_PAD_SAME;
    CHECK(run_config(&c, 700, 0, "SAME padding", 2, &cs));
    printf("CONV stride: %d configs (%ld random: %d on the NPU, %d with a stride above 3, %d split), %d on the "
           "NPU, %d on the CPU, %d rejected by the reference, %d draws, %d failed; %.0f%% of the outputs inside the type's range\n",
           cs.configs, n, crnd_npu, cbig, crnd_split, cs.npu, cs.cpu, cs.rejected, cs.draws, cs.failed, 100.0 * (double)cs.inner / (double)(cs.outs ? cs.outs : 1));
    CHECK(cbig >= 200 || n < 500);

    /* shallow inputs with a horizontal stride of 2 or 3: folded columns */
    stats fs = {0};
    long nf = n + n / 5;
    for (long i = 0; i < nf; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, seed0 + 9000011u + (uint64_t)i);
        random_fold(&r, &c);
        CHECK(run_config(&c, seed0 + 300 + (uint64_t)i, -1, NULL, 6, &fs));
    }
    /* person_detect's first conv (Vela's own form, docs/ethos-u.md 5.2), a
     * 3-channel image at stride 2, a depthwise at stride 3 and a stride-1
     * conv in phases, on the NPU and folded */
    int fold0 = fs.folded;
    static const int32_t fc[][9] = {
        /* kind, h, w, ch, oc, k, s, padding SAME, variant */
        {1, 96, 96, 1, 8, 3, 2, 1, 2}, {1, 40, 48, 3, 32, 3, 2, 1, 3}, {2, 24, 30, 1, 8, 3, 3, 0, 0},
        {1, 48, 48, 1, 2, 3, 1, 1, 2}, /* tflm_id_model's first conv, in phases */
    };
    for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, 800 + i);
        random_fold(&r, &c);
        c.kind = fc[i][0];
        c.h = fc[i][1];
        c.w = fc[i][2];
        c.ch = fc[i][3];
        c.oc = fc[i][4];
        c.fh = c.fw = fc[i][5];
        c.sy = c.sx = fc[i][6];
        c.dy = c.dx = 1;
        c.padding = fc[i][7] ? TFL_PAD_SAME : TFL_PAD_VALID;
        c.dt = GRAPH_I8;
        c.variant = variants[fc[i][8]];
        CHECK(run_config(&c, 900 + i, 1, NULL, 6, &fs));
    }
    CHECK(fs.folded - fold0 == (int)(sizeof fc / sizeof fc[0]));
    printf("CONV folded columns: %d configs (%ld random), %d on the NPU, %d folded (%d in phases), %d on the CPU, "
           "%d rejected by the reference, %d draws, %d failed\n",
           fs.configs, nf, fs.npu, fs.folded, fs.phased, fs.cpu, fs.rejected, fs.draws, fs.failed);
    CHECK(fs.folded >= 200 || n < 500);
    CHECK(fs.phased >= 50 || n < 500);
    TEST_MAIN_END();
}
