/* Convolutions over shallow inputs whose IFM rows fold into channels
 * (lower_conv.c: fold_rows, lower_folded_rows): raw copies regroup the
 * input rows f at a time into a temp of ceil(H / f) rows of f*C channels
 * (the last row's missing blocks take the zero point from flash), and the
 * CONV reads that temp at vertical stride sy / f (and where a horizontal
 * stride g divides, the temp's columns g at a time, as fold_columns does).
 * Single-op graphs with
 * random shapes (heights the stride does not divide among them), kernels,
 * vertical strides 2 and 3 (horizontal mostly 1, where the columns cannot
 * fold), SAME and VALID, dilated columns, fused activations and
 * quantization, int8 and int16, are compiled for a random Ethos-U variant,
 * the streams checked for hazards (cc_hazard.h), run on the virtual NPU
 * and compared byte for byte with the reference interpreter; at least 200
 * must fold their rows. Fixed forms: the armkws DS-CNNs' first conv (10x4
 * at stride 2x1 over 49x10x1) must fold on every variant, on an Ethos-U65
 * (a DRAM arena beside a fast pool) by elementwise copies; the same conv
 * followed by its depthwise, compiled with every cascade, must run as a
 * cascade headed by the folded CONV with its copies before the bands
 * (cc_cascade.c: prologue_temp), and agree with the reference.
 *
 * Environment: NPUC_RF_CONFIGS (random configurations, default 700),
 * NPUC_RF_SEED (first seed, default 1), NPUC_RF_VERBOSE (print the reason
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
    bool dw;                      /* DEPTHWISE_CONV_2D over one channel (a CONV on the NPU) */
    int32_t h, w, ch, oc;
    int32_t fh, fw, sy, sx, dx;
    int32_t padding, act;
    graph_dtype dt;
    float scale;
    int64_t zp;
    uint64_t wseed;
    eu_variant variant;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s %dx%dx%d -> %d kernel %dx%d stride %dx%d dilation 1x%d %s act %d zp %lld wseed %llu %s",
             c->dw ? "DEPTHWISE_CONV_2D" : "CONV_2D", graph_dtype_name(c->dt), c->h, c->w, c->ch, c->oc, c->fh, c->fw,
             c->sy, c->sx, c->dx, c->padding == TFL_PAD_SAME ? "SAME" : "VALID", c->act, (long long)c->zp,
             (unsigned long long)c->wseed, target_variant_name(c->variant));
}

static int32_t out_extent(const cfg *c, int32_t in, int32_t k, int32_t s, int32_t d)
{
    int32_t eff = (k - 1) * d + 1;
    return c->padding == TFL_PAD_SAME ? (in + s - 1) / s : (in - eff + s) / s;
}

/* Adds the conv of c reading tensor ti to g: per-channel int8 weights,
 * bias int32 (int8) / int64 (int16), an output scale about the spread of
 * the sums. Returns the output tensor, -1 on failure. */
static int32_t add_conv(graph *g, const cfg *c, int32_t ti, float si, const char *name)
{
    npuc_rng r;
    npuc_rng_seed(&r, c->wseed);
    int32_t oh = out_extent(c, c->h, c->fh, c->sy, 1), ow = out_extent(c, c->w, c->fw, c->sx, c->dx);
    int32_t oshape[4] = {1, oh, ow, c->oc};
    int32_t wshape[4] = {c->dw ? 1 : c->oc, c->fh, c->fw, c->dw ? c->oc : c->ch};
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.padding = c->padding;
    opt.stride_h = c->sy;
    opt.stride_w = c->sx;
    opt.dilation_h = 1;
    opt.dilation_w = c->dx;
    opt.depth_multiplier = c->dw ? c->oc / c->ch : 0;
    opt.activation = c->act;
    return cc_rand_conv(g, &r, ti, si, c->dt, c->dw, wshape, oshape, &opt, name);
}

static graph *build_conv(const cfg *c)
{
    graph *g = graph_new("rowfold");
    if (!g) return NULL;
    int32_t ishape[4] = {1, c->h, c->w, c->ch};
    int32_t ti = graph_add_tensor(g, "x", c->dt, 4, ishape, NULL);
    if (ti < 0 || graph_set_quant(g, ti, 1, &c->scale, &c->zp, 0)) goto fail;
    int32_t to = add_conv(g, c, ti, c->scale, "y");
    if (to < 0 || graph_set_io(g, 1, &ti, 1, &to)) goto fail;
    return g;
fail:
    graph_free(g);
    return NULL;
}

/* The NPU op of a row-folded conv: a CONV reading a temp of fewer rows
 * than the input with f*C channels, written by raw copies of its own
 * graph op before it. */
static bool row_folded(const cc_model *cm, const cfg *c, int32_t op)
{
    for (int32_t e = 0; e < cm->n_epochs; e++)
        for (int32_t k = 1; k < cm->epochs[e].n_eu; k++) {
            const eu_op *o = &cm->epochs[e].ops[k];
            if (o->src_op != op || o->kind != SIM_K_CONV || o->ifm.buf < 0 || !cm->bufs[o->ifm.buf].temp) continue;
            if (o->ifm.c <= (uint32_t)c->ch || o->ifm.w > (uint32_t)c->w || o->ifm.h >= (uint32_t)c->h) continue;
            const eu_op *x = &cm->epochs[e].ops[k - 1];
            if (x->src_op == op && (x->kind == SIM_K_POOL || x->kind == SIM_K_ELEMENTWISE) &&
                x->ofm.buf == o->ifm.buf)
                return true;
        }
    return false;
}

typedef struct stats {
    int configs, npu, cpu, draws, failed, rejected, folded, phantom, ew, cols;
} stats;

typedef struct run_ctx {
    cc_pat_ctx p;        /* first: the fill and diff callbacks' */
    const cfg *c;
    stats *st;
    bool folded, cols;
} run_ctx;

static bool check_model(void *user, const cc_model *cm)
{
    run_ctx *x = user;
    x->folded = row_folded(cm, x->c, 0);
    if (x->folded) {
        x->st->folded++;
        x->st->phantom += x->c->h % x->c->sy != 0;
        /* with the arena in DRAM beside a fast pool: elementwise copies */
        const cc_epoch *e = &cm->epochs[cm->ops[0].epoch];
        x->st->ew += e->ops[cm->ops[0].first_eu].kind == SIM_K_ELEMENTWISE;
        /* the temp's columns folded too: the CONV reads fewer columns */
        const eu_op *last = &e->ops[cm->ops[0].first_eu + cm->ops[0].n_eu - 1];
        x->cols = last->kind == SIM_K_CONV && last->ifm.w < (uint32_t)x->c->w;
        x->st->cols += x->cols;
    }
    return cc_hazard_model(cm, x->c->variant, x->p.cs);
}

/* expect_fold: 1 the rows must fold (and the op be on the NPU), -1 either. */
static bool run_config(const cfg *c, uint64_t seed, int expect_fold, stats *st)
{
    char cs[300];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_conv(c);
    run_ctx x = {{c->dt, cs, seed, 0}, c, st, false, false};
    cc_draws d = {.n_draws = 6, .seed = seed, .fill = cc_fill_patterns, .diff = cc_diff_elements,
                  .user = &x, .runs = &st->draws, .npu_runs = CC_RUNS_ONE};
    int placed;
    st->configs++;
    int res = cc_check_single_op(cs, src, c->variant, (cc_options){0}, expect_fold > 0 ? 1 : -1, NULL,
                                 "NPUC_RF_VERBOSE", check_model, &d, &placed);
    if (placed >= 0) placed ? st->npu++ : st->cpu++;
    if (res == CC_SINGLE_REJECTED) st->rejected++;
    bool ok = cc_single_ok(res, expect_fold > 0 ? 1 : -1);
    if (ok && expect_fold > 0 && !x.folded) {
        fprintf(stderr, "FAIL %s: the rows did not fold\n", cs);
        ok = false;
    }
    if (!ok) st->failed++;
    graph_free(src);
    return ok;
}

static void random_cfg(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dw = npuc_rng_range(r, 0, 4) == 0;
    c->ch = c->dw || npuc_rng_range(r, 0, 1) ? 1 : (int32_t)npuc_rng_range(r, 1, npuc_rng_range(r, 0, 2) ? 2 : 4);
    c->oc = (int32_t)npuc_rng_range(r, npuc_rng_range(r, 0, 5) ? 8 : 1, c->dw ? 24 : 40);
    c->sy = npuc_rng_range(r, 0, 3) ? 2 : 3;
    c->sx = npuc_rng_range(r, 0, 2) ? 1 : npuc_rng_range(r, 0, 3) ? 2 : 3;
    c->fh = (int32_t)npuc_rng_range(r, npuc_rng_range(r, 0, 5) ? 4 : 1, 10);
    c->fw = (int32_t)npuc_rng_range(r, c->sx > 1 && npuc_rng_range(r, 0, 3) ? 3 : 1, 5);
    c->dx = npuc_rng_range(r, 0, 7) ? 1 : 2;
    c->padding = npuc_rng_range(r, 0, 2) ? TFL_PAD_SAME : TFL_PAD_VALID;
    c->h = c->fh + (int32_t)npuc_rng_range(r, 0, 40);
    c->w = (c->fw - 1) * c->dx + 1 + (int32_t)npuc_rng_range(r, 0, 16);
    if (c->sx > 1 && npuc_rng_range(r, 0, 3)) c->w += (c->sx - c->w % c->sx) % c->sx;   /* columns that fold */
    static const int32_t acts[4] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
    c->act = acts[npuc_rng_range(r, 0, 3)];
    c->dt = npuc_rng_range(r, 0, 9) ? GRAPH_I8 : GRAPH_I16;
    c->scale = (float)(0.01 * pow(2.0, npuc_rng_unit(r) * 4));
    c->zp = c->dt == GRAPH_I8 ? npuc_rng_range(r, -128, 127) : 0;
    c->wseed = npuc_rng_range(r, 1, 1000000);
    /* Ethos-U55 (an SRAM arena: the fold is taken there) nine times in ten */
    c->variant = npuc_rng_range(r, 0, 9) ? variants[npuc_rng_range(r, 0, 3)] : variants[npuc_rng_range(r, 4, 5)];
}

/* The armkws DS-CNNs' first conv: 10x4 at stride 2x1, SAME, over 49x10x1. */
static void ds_cnn_cfg(cfg *c, int32_t oc, eu_variant v)
{
    memset(c, 0, sizeof *c);
    c->h = 49;
    c->w = 10;
    c->ch = 1;
    c->oc = oc;
    c->fh = 10;
    c->fw = 4;
    c->sy = 2;
    c->sx = 1;
    c->dx = 1;
    c->padding = TFL_PAD_SAME;
    c->act = TFL_ACT_RELU;
    c->dt = GRAPH_I8;
    c->scale = 0.05f;
    c->zp = 17;
    c->wseed = 4242 + (uint64_t)oc;
    c->variant = v;
}

/* The DS-CNN's first conv and its 3x3 depthwise at stride 2 (SAME), with
 * every cascade: the conv heads a cascade, its copies before the bands. */
static bool cascade_case(eu_variant v)
{
    cfg c, d;
    ds_cnn_cfg(&c, 32, v);
    char cs[300];
    snprintf(cs, sizeof cs, "DS-CNN conv + depthwise, cascade all, %s", target_variant_name(v));
    graph *g = graph_new("rowfold_cascade");
    bool ok = false;
    cc_model *cm = NULL;
    int32_t ishape[4] = {1, c.h, c.w, c.ch};
    int32_t ti = g ? graph_add_tensor(g, "x", c.dt, 4, ishape, NULL) : -1;
    if (ti < 0 || graph_set_quant(g, ti, 1, &c.scale, &c.zp, 0)) goto out;
    int32_t t1 = add_conv(g, &c, ti, c.scale, "y1");
    if (t1 < 0) goto out;
    d = c;
    d.dw = true;
    d.h = g->tensors[t1].shape[1];
    d.w = g->tensors[t1].shape[2];
    d.ch = d.oc = c.oc;
    d.fh = d.fw = 3;
    d.sy = d.sx = 2;
    d.wseed = 777;
    int32_t t2 = add_conv(g, &d, t1, g->tensors[t1].q.scale[0], "y2");
    if (t2 < 0 || graph_set_io(g, 1, &ti, 1, &t2)) goto out;
    cc_options opt = {0};
    opt.cascade = CC_CASCADE_ALL;
    if (!cc_check_compile(cs, g, v, opt, &cm)) goto out;
    const cc_op_info *h = &cm->ops[0];
    const cc_epoch *e = h->epoch >= 0 ? &cm->epochs[h->epoch] : NULL;
    if (!e || !h->npu || h->cascade != 0 || cm->ops[1].cascade != 0 || h->cascade_ops < 4 ||
        e->ops[h->first_eu].kind == SIM_K_CONV || !row_folded(cm, &c, 0)) {
        fprintf(stderr, "FAIL %s: not a cascade headed by the folded conv and its copies\n", cs);
        goto out;
    }
    if (!cc_hazard_model(cm, v, cs)) goto out;
    stats st = {0};
    run_ctx x = {{c.dt, cs, 91, 0}, &c, &st, false, false};
    cc_draws dr = {.n_draws = 8, .seed = 91, .fill = cc_fill_patterns, .diff = cc_diff_elements, .user = &x,
                   .npu_runs = CC_RUNS_ONE};
    ok = cc_check_draws(cs, g, cm, v, &dr);
out:
    if (!g) fprintf(stderr, "FAIL %s: graph build\n", cs);
    cc_model_free(cm);
    graph_free(g);
    return ok;
}

int main(void)
{
    long n = env_long("NPUC_RF_CONFIGS", 700);
    uint64_t seed0 = (uint64_t)env_long("NPUC_RF_SEED", 1);
    stats st = {0};
    for (long i = 0; i < n; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, seed0 + 5000011u + (uint64_t)i);
        cfg c;
        random_cfg(&r, &c);
        CHECK(run_config(&c, seed0 + (uint64_t)i, -1, &st));
    }
    int rnd_folded = st.folded, rnd_cols = st.cols;
    /* the DS-CNN conv folds on every Ethos-U55 (depths of ds_cnn_s, _m, _l) */
    static const int32_t depths[3] = {64, 172, 276};
    for (int v = 0; v < 4; v++) {
        cfg c;
        ds_cnn_cfg(&c, depths[v % 3], variants[v]);
        CHECK(run_config(&c, 40 + (uint64_t)v, 1, &st));
    }
    /* ds_cnn_s's (stride 2x2): rows and columns, two by two */
    int cols0 = st.cols;
    for (int v = 0; v < 4; v++) {
        cfg c;
        ds_cnn_cfg(&c, 64, variants[v]);
        c.sx = 2;
        CHECK(run_config(&c, 60 + (uint64_t)v, 1, &st));
    }
    CHECK(st.cols - cols0 == 4);
    /* and on an Ethos-U65 (a DRAM arena beside a fast pool), by
     * elementwise copies (the input is not staged as well) */
    int ew0 = st.ew;
    for (int v = 4; v < 6; v++) {
        cfg c;
        ds_cnn_cfg(&c, 172, variants[v]);
        CHECK(run_config(&c, 50 + (uint64_t)v, 1, &st));
    }
    CHECK(st.ew - ew0 == 2);
    printf("CONV folded rows: %d configs (%ld random: %d folded, %d columns too), %d on the NPU, %d folded (%d with "
           "zero-point rows), %d on the CPU, %d rejected by the reference, %d draws, %d failed\n",
           st.configs, n, rnd_folded, rnd_cols, st.npu, st.folded, st.phantom, st.cpu, st.rejected, st.draws,
           st.failed);
    CHECK(rnd_folded >= 200 || n < 700);
    CHECK(st.phantom >= 50 || n < 700);
    CHECK(rnd_cols >= 20 || n < 700);
    for (int v = 0; v < 4; v++) CHECK(cascade_case(variants[v]));
    TEST_MAIN_END();
}
