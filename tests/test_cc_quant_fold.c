/* uint8 QUANTIZE at a model's boundary folded into the NPU op beside it
 * (src/compiler/lower/lower_quantize.c, lower_lut.c cc_fuse_u8):
 *
 *   input:  uint8 x -> QUANTIZE -> int8 (x - 128, the same real values)
 *           [-> PAD folded into the conv] -> CONV_2D / DEPTHWISE_CONV_2D:
 *           the QUANTIZE has no NPU op and the conv reads the uint8 bytes
 *           (IFM unsigned, zero point 128 higher);
 *   output: an op -> int8 -> QUANTIZE -> uint8 (+ 128): the QUANTIZE has
 *           no NPU op and the op's output stage writes uint8 (OFM
 *           unsigned, zero point and clamp 128 higher).
 *
 * Random graphs uint8 input -> QUANTIZE -> (PAD) -> conv -> (QUANTIZE ->
 * uint8) with random shapes (shallow images among them, where the conv's
 * columns or rows fold into channels), kernels, strides 1..3, SAME and
 * VALID, fused activations, quantization, every Ethos-U variant; a fifth
 * of the QUANTIZEs change the scale (no fold: their own NPU op). Each is
 * compiled, its streams checked for hazards (cc_hazard.h), run on the
 * virtual NPU over six input patterns (random bytes, 0, 255, both, the
 * zero point, every byte) and compared byte for byte with the reference
 * interpreter; where the conv is on the NPU each shifting QUANTIZE must
 * have folded (reported: folded_into / fused_into the conv), each other
 * one must be its own NPU op. At least 200 must
 * fold at the input and 200 at the output. Fixed forms: the model zoo's
 * MobileNet V2 input (224x224x3, zero point 127, stride 2) and PoseNet's
 * (353x481x3, zero point 128, PAD then a VALID conv at stride 2) on every
 * variant, and PoseNet's first output (two convs concatenated, then
 * uint8: the concatenation's copies write uint8); and the zoo's PoseNet
 * without its decoder (a CPU custom op the reference does not run) on an
 * ethos-u55-128 and an ethos-u65-256.
 *
 * Environment: NPUC_QF_CONFIGS (random configurations, default 400),
 * NPUC_QF_SEED (first seed, default 1). */
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
    int32_t h, w, ch, oc;
    int32_t fh, fw, sy, sx;
    int32_t padding, act;
    bool dw, pad;             /* a PAD before the conv */
    int32_t pads[4];          /* top, bottom, left, right */
    bool in_shift, out_q, out_shift;
    float scale;              /* the input's */
    int64_t zp;               /* the input's (uint8) */
    uint64_t wseed;
    eu_variant variant;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    snprintf(buf, size,
             "u8 %dx%dx%d zp %lld -> QUANTIZE(%s)%s -> %s -> %d kernel %dx%d stride %dx%d %s act %d%s%s wseed %llu %s",
             c->h, c->w, c->ch, (long long)c->zp, c->in_shift ? "shift" : "rescale", c->pad ? " -> PAD" : "",
             c->dw ? "DEPTHWISE_CONV_2D" : "CONV_2D", c->oc, c->fh, c->fw, c->sy, c->sx,
             c->padding == TFL_PAD_SAME ? "SAME" : "VALID", c->act,
             c->out_q ? " -> QUANTIZE" : "", c->out_q ? (c->out_shift ? "(shift)" : "(rescale)") : "",
             (unsigned long long)c->wseed, target_variant_name(c->variant));
}

static int32_t out_extent(int32_t padding, int32_t in, int32_t k, int32_t s)
{
    return padding == TFL_PAD_SAME ? (in + s - 1) / s : (in - k + s) / s;
}

/* Op indices of the graph build_graph makes. */
typedef struct layout {
    int32_t q_in, pad, conv, q_out;
} layout;

static graph *build_graph(const cfg *c, layout *lo)
{
    graph *g = graph_new("quant_fold");
    if (!g) return NULL;
    tfl_options none;
    memset(&none, 0, sizeof none);
    int32_t ishape[4] = {1, c->h, c->w, c->ch};
    int32_t x = graph_add_tensor(g, "x", GRAPH_U8, 4, ishape, NULL);
    int32_t q = graph_add_tensor(g, "q", GRAPH_I8, 4, ishape, NULL);
    float qs = c->in_shift ? c->scale : c->scale * 1.5f;
    int64_t qz = c->in_shift ? c->zp - 128 : (c->zp - 128) / 2;
    if (x < 0 || q < 0 || graph_set_quant(g, x, 1, &c->scale, &c->zp, 0) || graph_set_quant(g, q, 1, &qs, &qz, 0))
        goto fail;
    lo->q_in = graph_add_op(g, TFL_OP_QUANTIZE, &none, 1, &x, 1, &q);
    if (lo->q_in < 0) goto fail;
    int32_t t = q, h = c->h, w = c->w;
    lo->pad = -1;
    if (c->pad) {
        int32_t pv[8] = {0, 0, c->pads[0], c->pads[1], c->pads[2], c->pads[3], 0, 0}, ps[2] = {4, 2};
        h += c->pads[0] + c->pads[1];
        w += c->pads[2] + c->pads[3];
        int32_t pshape[4] = {1, h, w, c->ch};
        int32_t p = graph_add_tensor(g, "paddings", GRAPH_I32, 2, ps, pv);
        int32_t y = graph_add_tensor(g, "p", GRAPH_I8, 4, pshape, NULL);
        int32_t ins[2] = {q, p};
        if (p < 0 || y < 0 || graph_set_quant(g, y, 1, &qs, &qz, 0)) goto fail;
        lo->pad = graph_add_op(g, TFL_OP_PAD, &none, 2, ins, 1, &y);
        if (lo->pad < 0) goto fail;
        t = y;
    }
    npuc_rng r;
    npuc_rng_seed(&r, c->wseed);
    int32_t oshape[4] = {1, out_extent(c->padding, h, c->fh, c->sy), out_extent(c->padding, w, c->fw, c->sx), c->oc};
    int32_t wshape[4] = {c->dw ? 1 : c->oc, c->fh, c->fw, c->dw ? c->oc : c->ch};
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.padding = c->padding;
    opt.stride_h = c->sy;
    opt.stride_w = c->sx;
    opt.dilation_h = opt.dilation_w = 1;
    opt.depth_multiplier = c->dw ? c->oc / c->ch : 0;
    opt.activation = c->act;
    int32_t y = cc_rand_conv(g, &r, t, qs, GRAPH_I8, c->dw, wshape, oshape, &opt, "y");
    if (y < 0) goto fail;
    lo->conv = g->tensors[y].producer >= 0 ? g->tensors[y].producer : g->n_ops - 1;
    int32_t out = y;
    lo->q_out = -1;
    if (c->out_q) {
        float ys = g->tensors[y].q.scale[0], us = c->out_shift ? ys : ys * 0.75f;
        int64_t yz = g->tensors[y].q.zero_point[0], uz = c->out_shift ? yz + 128 : 40;
        out = graph_add_tensor(g, "u", GRAPH_U8, 4, oshape, NULL);
        if (out < 0 || graph_set_quant(g, out, 1, &us, &uz, 0)) goto fail;
        lo->q_out = graph_add_op(g, TFL_OP_QUANTIZE, &none, 1, &y, 1, &out);
        if (lo->q_out < 0) goto fail;
    }
    if (graph_set_io(g, 1, &x, 1, &out)) goto fail;
    return g;
fail:
    graph_free(g);
    return NULL;
}

typedef struct stats {
    int configs, conv_npu, conv_cpu, in_folded, out_folded, in_own, out_own, draws, failed;
} stats;

typedef struct run_ctx {
    const cfg *c;
    const char *cs;
    const layout *lo;
    uint64_t seed;
    stats *st;
    bool conv_npu;
} run_ctx;

/* Draw d: random bytes, 0, 255, both at random, the zero point, every
 * byte value (then random again). */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    run_ctx *x = user;
    (void)k;
    for (size_t i = 0; i < n; i++) {
        uint8_t v;
        switch (d) {
        case 1: v = 0; break;
        case 2: v = 255; break;
        case 3: v = npuc_rng_range(r, 0, 1) ? 255 : 0; break;
        case 4: v = (uint8_t)x->c->zp; break;
        case 5: v = (uint8_t)(i * 167 + 11); break;
        default: v = (uint8_t)npuc_rng_next(r); break;
        }
        buf[i] = v;
    }
}

static void diff_draw(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t at)
{
    run_ctx *x = user;
    size_t n;
    const uint8_t *oa = interp_output(t->ref, k, &n), *ob = interp_output(t->npu, k, &n);
    (void)in;
    fprintf(stderr, "FAIL %s, seed %llu, draw %d: output byte %zu: reference %u, NPU %u\n", x->cs,
            (unsigned long long)x->seed, d, at, oa[at], ob[at]);
}

/* Whether QUANTIZE q went the way its scales say: folded (no NPU op; at
 * the output, fused into the conv) where it shifts by 128 beside a conv on
 * the NPU, else its own NPU op. */
static bool check_q(const run_ctx *x, const cc_model *cm, int32_t q, bool shift, bool out)
{
    const cc_op_info *i = &cm->ops[q];
    /* at the input, through a PAD only where that folds into the conv */
    if (!out && x->lo->pad >= 0 && cm->ops[x->lo->pad].n_eu > 0) shift = false;
    bool folded = i->npu && i->n_eu == 0 && (out ? i->fused_into == x->lo->conv : i->folded_into == x->lo->conv);
    bool own = i->npu && i->n_eu > 0 && i->fused_into < 0;
    if (shift && x->conv_npu ? !folded : !own) {
        fprintf(stderr, "FAIL %s: %s QUANTIZE: npu %d, %d NPU ops, fused into %d (expected %s)\n", x->cs,
                out ? "output" : "input", i->npu, i->n_eu, i->fused_into,
                shift && x->conv_npu ? "folded" : "its own NPU op");
        return false;
    }
    if (folded && !out && x->lo->pad >= 0 && cm->ops[x->lo->pad].folded_into != x->lo->conv) {
        fprintf(stderr, "FAIL %s: the PAD is not reported folded into the conv\n", x->cs);
        return false;
    }
    if (folded) out ? x->st->out_folded++ : x->st->in_folded++;
    else out ? x->st->out_own++ : x->st->in_own++;
    return true;
}

static bool check_model(void *user, const cc_model *cm)
{
    run_ctx *x = user;
    x->conv_npu = cm->ops[x->lo->conv].npu;
    x->conv_npu ? x->st->conv_npu++ : x->st->conv_cpu++;
    if (!check_q(x, cm, x->lo->q_in, x->c->in_shift, false)) return false;
    if (x->lo->q_out >= 0 && !check_q(x, cm, x->lo->q_out, x->c->out_shift, true)) return false;
    /* the folded conv reads the uint8 bytes, the fused one writes uint8 */
    if (x->conv_npu) {
        const cc_epoch *e = &cm->epochs[cm->ops[x->lo->conv].epoch];
        bool reads_u8 = false, writes_u8 = false;
        for (int32_t k = 0; k < e->n_eu; k++) {
            if (e->ops[k].src_op != x->lo->conv) continue;
            reads_u8 |= !e->ops[k].ifm.is_signed;
            writes_u8 |= !e->ops[k].ofm.is_signed;
        }
        bool want_in = cm->ops[x->lo->q_in].n_eu == 0, want_out = x->lo->q_out >= 0 && x->c->out_shift;
        if (reads_u8 != want_in || writes_u8 != want_out) {
            fprintf(stderr, "FAIL %s: the conv's NPU ops read uint8 %d, write uint8 %d\n", x->cs, reads_u8,
                    writes_u8);
            return false;
        }
    }
    return cc_hazard_model(cm, x->c->variant, x->cs);
}

static bool run_config(const cfg *c, uint64_t seed, bool want_npu, stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    layout lo;
    graph *src = build_graph(c, &lo);
    run_ctx x = {c, cs, &lo, seed, st, false};
    st->configs++;
    bool ok = false;
    cc_model *cm = NULL;
    if (!cc_check_compile(cs, src, c->variant, (cc_options){0}, &cm)) goto out;
    if (!check_model(&x, cm)) goto out;
    if (want_npu && !x.conv_npu) {
        fprintf(stderr, "FAIL %s: the conv is on the CPU: %s\n", cs, cm->ops[lo.conv].why);
        goto out;
    }
    cc_draws d = {.n_draws = 7, .seed = seed, .fill = fill_draw, .diff = diff_draw, .user = &x,
                  .runs = &st->draws, .npu_runs = CC_RUNS_SOME};
    ok = cc_check_draws(cs, src, cm, c->variant, &d);
out:
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

static void random_cfg(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dw = npuc_rng_range(r, 0, 4) == 0;
    c->ch = npuc_rng_range(r, 0, 2) ? (int32_t)npuc_rng_range(r, 1, 4) : (int32_t)npuc_rng_range(r, 5, 40);
    c->oc = c->dw ? c->ch * (int32_t)npuc_rng_range(r, 1, 2) : (int32_t)npuc_rng_range(r, 1, 40);
    c->sy = (int32_t)npuc_rng_range(r, 1, 3);
    c->sx = (int32_t)npuc_rng_range(r, 1, 3);
    c->fh = (int32_t)npuc_rng_range(r, 1, 5);
    c->fw = (int32_t)npuc_rng_range(r, 1, 5);
    c->padding = npuc_rng_range(r, 0, 1) ? TFL_PAD_SAME : TFL_PAD_VALID;
    c->h = c->fh + (int32_t)npuc_rng_range(r, 0, 30);
    c->w = c->fw + (int32_t)npuc_rng_range(r, 0, 30);
    c->pad = npuc_rng_range(r, 0, 3) == 0;
    for (int i = 0; i < 4; i++) c->pads[i] = (int32_t)npuc_rng_range(r, 0, 2);
    static const int32_t acts[4] = {TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU6, TFL_ACT_RELU_N1_TO_1};
    c->act = acts[npuc_rng_range(r, 0, 3)];
    c->in_shift = npuc_rng_range(r, 0, 4) != 0;
    c->out_q = npuc_rng_range(r, 0, 4) != 0;
    c->out_shift = npuc_rng_range(r, 0, 4) != 0;
    c->scale = (float)(0.004 * pow(2.0, npuc_rng_unit(r) * 4));
    c->zp = npuc_rng_range(r, 0, 255);
    c->wseed = npuc_rng_range(r, 1, 1000000);
    c->variant = variants[npuc_rng_range(r, 0, 5)];
}

/* PoseNet's first output: two convs concatenated (a raw copy each, one
 * quantization) then turned to uint8: the copies write uint8 (zero point
 * and clamp + 128) and the concatenation stays out of place. The input's
 * QUANTIZE, read by both convs, stays its own NPU op. */
static bool concat_case(eu_variant v, stats *st)
{
    char cs[200];
    snprintf(cs, sizeof cs, "u8 -> QUANTIZE -> 2 CONV_2D -> CONCATENATION -> QUANTIZE -> u8, %s",
             target_variant_name(v));
    graph *g = graph_new("quant_fold_concat");
    bool ok = false;
    cc_model *cm = NULL;
    tfl_options none;
    memset(&none, 0, sizeof none);
    float s = 0.0078125f, so = 0.05f;
    int64_t z = 128, zq = 0, zo = -10, zu = 118;
    int32_t ishape[4] = {1, 9, 11, 3}, oshape[4] = {1, 9, 11, 8}, cshape[4] = {1, 9, 11, 16};
    int32_t wshape[4] = {8, 3, 3, 3};
    int32_t x = g ? graph_add_tensor(g, "x", GRAPH_U8, 4, ishape, NULL) : -1;
    int32_t q = g ? graph_add_tensor(g, "q", GRAPH_I8, 4, ishape, NULL) : -1;
    if (x < 0 || q < 0 || graph_set_quant(g, x, 1, &s, &z, 0) || graph_set_quant(g, q, 1, &s, &zq, 0) ||
        graph_add_op(g, TFL_OP_QUANTIZE, &none, 1, &x, 1, &q) < 0)
        goto out;
    tfl_options co;
    memset(&co, 0, sizeof co);
    co.padding = TFL_PAD_SAME;
    co.stride_h = co.stride_w = co.dilation_h = co.dilation_w = 1;
    npuc_rng r;
    npuc_rng_seed(&r, 31);
    int32_t a = cc_rand_conv(g, &r, q, s, GRAPH_I8, false, wshape, oshape, &co, "a");
    int32_t b = a >= 0 ? cc_rand_conv(g, &r, q, s, GRAPH_I8, false, wshape, oshape, &co, "b") : -1;
    if (b < 0 || graph_set_quant(g, a, 1, &so, &zo, 0) || graph_set_quant(g, b, 1, &so, &zo, 0)) goto out;
    int32_t c = graph_add_tensor(g, "c", GRAPH_I8, 4, cshape, NULL), u = graph_add_tensor(g, "u", GRAPH_U8, 4, cshape, NULL);
    tfl_options cat;
    memset(&cat, 0, sizeof cat);
    cat.axis = 3;
    int32_t ab[2] = {a, b};
    if (c < 0 || u < 0 || graph_set_quant(g, c, 1, &so, &zo, 0) || graph_set_quant(g, u, 1, &so, &zu, 0) ||
        graph_add_op(g, TFL_OP_CONCATENATION, &cat, 2, ab, 1, &c) < 0 ||
        graph_add_op(g, TFL_OP_QUANTIZE, &none, 1, &c, 1, &u) < 0 || graph_set_io(g, 1, &x, 1, &u))
        goto out;
    if (!cc_check_compile(cs, g, v, (cc_options){0}, &cm)) goto out;
    int32_t n = cm->g->n_ops, qo = n - 1, ci = n - 2;
    if (cm->g->ops[qo].opcode != TFL_OP_QUANTIZE || cm->g->ops[ci].opcode != TFL_OP_CONCATENATION ||
        !cm->ops[ci].npu || cm->ops[qo].fused_into != ci || cm->ops[0].n_eu != 1) {
        /* the input's QUANTIZE has two readers: its own NPU op */
        fprintf(stderr, "FAIL %s: input QUANTIZE %d NPU ops (1 expected), output fused into %d\n", cs,
                cm->ops[0].n_eu, cm->ops[qo].fused_into);
        goto out;
    }
    if (!cc_hazard_model(cm, v, cs)) goto out;
    cfg fc;
    memset(&fc, 0, sizeof fc);
    fc.zp = z;
    layout lo = {0, -1, 1, qo};
    run_ctx x2 = {&fc, cs, &lo, 41, st, true};
    cc_draws d = {.n_draws = 7, .seed = 41, .fill = fill_draw, .diff = diff_draw, .user = &x2,
                  .runs = &st->draws, .npu_runs = CC_RUNS_SOME};
    ok = cc_check_draws(cs, g, cm, v, &d);
out:
    if (!g) fprintf(stderr, "FAIL %s: graph build\n", cs);
    if (!ok) st->failed++;
    st->configs++;
    cc_model_free(cm);
    graph_free(g);
    return ok;
}

/* The zoo's PoseNet without its decoder (a CPU custom op the reference
 * does not run: its three inputs become the outputs): the input's
 * QUANTIZE and PAD folded into the first conv, the three uint8 outputs
 * fused into their producers, bit-exact with the reference. 1 pass, 0
 * skipped (no shared folder), -1 failure (printed). */
static int posenet_case(eu_variant v, stats *st)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    int got = cc_load_shared("models/zoo/coral_posenet_mnv1_075_353_481_int8_decoder.tflite", &tm, &g);
    char cs[120];
    snprintf(cs, sizeof cs, "posenet without its decoder, %s", target_variant_name(v));
    cc_model *cm = NULL;
    int res = -1;
    if (got <= 0) {
        res = got;
        goto out;
    }
    const graph_op *d = &g->ops[g->n_ops - 1];
    int32_t outs[8], n = 0;
    for (int32_t k = 0; k < d->n_in && n < 8; k++)
        if (d->in[k] >= 0 && !g->tensors[d->in[k]].data) outs[n++] = d->in[k];
    g->n_ops--;
    for (int32_t t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].producer >= g->n_ops) g->tensors[t].producer = -1;
    if (n != 3 || graph_set_io(g, g->n_inputs, g->inputs, n, outs)) {
        fprintf(stderr, "FAIL %s: not the decoder's three inputs\n", cs);
        goto out;
    }
    if (!cc_check_compile(cs, g, v, (cc_options){0}, &cm)) goto out;
    int32_t fused = 0;
    for (int32_t i = 0; i < cm->g->n_ops; i++) fused += cm->g->ops[i].opcode == TFL_OP_QUANTIZE && cm->ops[i].fused_into >= 0;
    if (cm->ops[0].folded_into != 2 || cm->ops[1].folded_into != 2 || fused != 3) {
        fprintf(stderr, "FAIL %s: QUANTIZE folded into %d, PAD into %d, %d uint8 outputs fused\n", cs,
                cm->ops[0].folded_into, cm->ops[1].folded_into, (int)fused);
        goto out;
    }
    cc_draws dr = {.n_draws = 1, .seed = 5, .fill = cc_fill_bytes, .runs = &st->draws, .npu_runs = CC_RUNS_ONE};
    if (cc_check_draws(cs, g, cm, v, &dr)) res = 1;
out:
    if (res < 0) st->failed++;
    if (res >= 0) st->configs += res;
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
    return res;
}

int main(void)
{
    long n = env_long("NPUC_QF_CONFIGS", 400);
    uint64_t seed0 = (uint64_t)env_long("NPUC_QF_SEED", 1);
    stats st = {0};
    for (long i = 0; i < n; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, seed0 * 1000003u + 77u + (uint64_t)i);
        cfg c;
        random_cfg(&r, &c);
        CHECK(run_config(&c, seed0 + (uint64_t)i, false, &st));
    }
    int rnd_in = st.in_folded, rnd_out = st.out_folded;
    /* the model zoo's image inputs, on every variant */
    for (int v = 0; v < 6; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        /* MobileNet V2: 224x224x3 zero point 127, 3x3 stride 2 SAME,
         * RELU6, 32 channels (smaller here: the test runs the reference) */
        c.h = 64;
        c.w = 64;
        c.ch = 3;
        c.oc = 32;
        c.fh = c.fw = 3;
        c.sy = c.sx = 2;
        c.padding = TFL_PAD_SAME;
        c.act = TFL_ACT_RELU6;
        c.in_shift = true;
        c.scale = 0.0078431377f;
        c.zp = 127;
        c.wseed = 11;
        c.variant = variants[v];
        CHECK(run_config(&c, 900 + (uint64_t)v, true, &st));
        /* PoseNet: zero point 128, a PAD then a VALID 3x3 conv at stride
         * 2, and its outputs turned to uint8 for the CPU's decoder */
        c.zp = 128;
        c.scale = 0.0078125f;
        c.h = 41;
        c.w = 57;
        c.pad = true;
        c.pads[0] = 0;
        c.pads[1] = 1;
        c.pads[2] = 0;
        c.pads[3] = 1;
        c.padding = TFL_PAD_VALID;
        c.out_q = c.out_shift = true;
        c.act = TFL_ACT_NONE;
        c.oc = 24;
        c.wseed = 12;
        CHECK(run_config(&c, 910 + (uint64_t)v, true, &st));
    }
    for (int v = 0; v < 6; v++) CHECK(concat_case(variants[v], &st));
    CHECK(posenet_case(EU_U55_128, &st) >= 0);
    CHECK(posenet_case(EU_U65_256, &st) >= 0);
    printf("uint8 QUANTIZE folds: %d configs (%ld random: %d folded at the input, %d at the output), conv on the NPU "
           "%d / CPU %d, own NPU op %d (input) / %d (output), %d draws, %d failed\n",
           st.configs, n, rnd_in, rnd_out, st.conv_npu, st.conv_cpu, st.in_own, st.out_own, st.draws, st.failed);
    CHECK(rnd_in >= 200 || n < 400);
    CHECK(rnd_out >= 200 || n < 400);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
