/* genmodel: random valid quantized models (see genmodel.h, docs/genmodel.md).
 *
 * Every op is generated so that TFLite's Prepare checks hold:
 *  - conv-like ops: int8 weights in [-127, 127], symmetric per-channel scales
 *    (FULLY_CONNECTED: per-tensor), bias scale = input_scale * weight_scale
 *    with zero point 0, bias int32 (int8) or int64 (int16x8);
 *  - int16x8: every int16 activation has zero point 0;
 *  - ops that do not requantize (pooling, pad, reshape, strided slice,
 *    concatenation, minimum/maximum) keep the input quantization exactly;
 *  - LOGISTIC / TANH / SOFTMAX outputs use TFLite's fixed scales;
 *  - output sizes follow TFLite's ComputeOutSize (same formula as
 *    k_out_size in src/kernels/k_common.h).
 * Output scales are derived from the input scales so that values mostly stay
 * in range (a model that saturates everywhere tests little). */
#include "genmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MACS (1 << 21)      /* per op: keeps a reference run in milliseconds */
#define MAX_FLAT 1024           /* largest flattened FULLY_CONNECTED input / rank-2 reshape */
#define MAX_INPUTS 4

enum { GEN_OK = 0, GEN_SKIP = -1 };

static const int32_t all_ops[] = {
    TFL_OP_CONV_2D, TFL_OP_DEPTHWISE_CONV_2D, TFL_OP_FULLY_CONNECTED, TFL_OP_AVERAGE_POOL_2D, TFL_OP_MAX_POOL_2D,
    TFL_OP_ADD, TFL_OP_SUB, TFL_OP_MUL, TFL_OP_MINIMUM, TFL_OP_MAXIMUM, TFL_OP_RELU, TFL_OP_RELU6,
    TFL_OP_LEAKY_RELU, TFL_OP_LOGISTIC, TFL_OP_TANH, TFL_OP_SOFTMAX, TFL_OP_RESHAPE, TFL_OP_CONCATENATION,
    TFL_OP_PAD, TFL_OP_MEAN, TFL_OP_STRIDED_SLICE, TFL_OP_TRANSPOSE_CONV, TFL_OP_QUANTIZE, TFL_OP_HARD_SWISH,
};

const int32_t *genmodel_ops(int32_t *n)
{
    *n = (int32_t)(sizeof all_ops / sizeof all_ops[0]);
    return all_ops;
}

void genmodel_config_default(genmodel_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_dim = 32;
}

typedef struct shp {
    int32_t rank;
    int32_t d[4];
} shp;

typedef struct gen {
    graph *g;
    npuc_rng r;
    bool i16;
    graph_dtype act;        /* activation dtype */
    int32_t max_dim;
    int32_t cur;            /* tensor the chain continues from */
    int32_t inputs[MAX_INPUTS];
    int32_t n_inputs;
    int rc;                 /* sticky error (out of memory) */
} gen;

/* ---- random numbers ---- */

static int32_t rnd(gen *s, int32_t lo, int32_t hi) { return (int32_t)npuc_rng_range(&s->r, lo, hi); }
static double unif(gen *s, double lo, double hi) { return lo + (hi - lo) * npuc_rng_unit(&s->r); }
static bool chance(gen *s, double p) { return npuc_rng_unit(&s->r) < p; }
static int32_t min_i(int32_t a, int32_t b) { return a < b ? a : b; }

static double sqrt_d(double x)
{
    if (x <= 0) return 0;
    double y = x > 1 ? x : 1;
    for (int i = 0; i < 60; i++) y = 0.5 * (y + x / y);
    return y;
}

/* m * 2^e with m uniform in [1, 2). */
static float pow2_scale(gen *s, int32_t emin, int32_t emax)
{
    int32_t e = rnd(s, emin, emax);
    double v = unif(s, 1.0, 2.0);
    for (; e < 0; e++) v *= 0.5;
    for (; e > 0; e--) v *= 2.0;
    return (float)v;
}

/* ---- shapes ---- */

static shp shape_of(const gen *s, int32_t t)
{
    shp r = {0, {1, 1, 1, 1}};
    const graph_tensor *x = &s->g->tensors[t];
    r.rank = x->rank;
    for (int32_t i = 0; i < x->rank && i < 4; i++) r.d[i] = x->shape[i];
    return r;
}

static int32_t elems(const shp *a)
{
    int32_t n = 1;
    for (int32_t i = 0; i < a->rank; i++) n *= a->d[i];
    return n;
}

static bool same_shape(const shp *a, const shp *b)
{
    if (a->rank != b->rank) return false;
    for (int32_t i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i]) return false;
    return true;
}

/* TFLite ComputeOutSize (k_out_size). */
static int32_t out_size(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation)
{
    int32_t eff = (filter - 1) * dilation + 1;
    if (stride <= 0) return 0;
    if (padding == TFL_PAD_SAME) return (in + stride - 1) / stride;
    return (in + stride - eff) / stride;
}

/* ---- tensors ---- */

static int32_t add_tensor(gen *s, const char *kind, graph_dtype dt, const shp *sh, const void *data)
{
    char name[64];
    snprintf(name, sizeof name, "%s_%d", kind, s->g->n_tensors);
    int32_t t = graph_add_tensor(s->g, name, dt, sh->rank, sh->d, data);
    if (t < 0) s->rc = NPUC_E_NOMEM;
    return t;
}

static void set_q(gen *s, int32_t t, int32_t n, const float *scale, const int64_t *zp, int32_t axis)
{
    if (t >= 0 && graph_set_quant(s->g, t, n, scale, zp, axis)) s->rc = NPUC_E_NOMEM;
}

static float q_scale(const gen *s, int32_t t) { return s->g->tensors[t].q.scale[0]; }
static int64_t q_zp(const gen *s, int32_t t) { return s->g->tensors[t].q.zero_point[0]; }

/* An activation tensor with per-tensor quantization. */
static int32_t act_tensor(gen *s, const char *kind, const shp *sh, float scale, int64_t zp, const void *data)
{
    int32_t t = add_tensor(s, kind, s->act, sh, data);
    set_q(s, t, 1, &scale, &zp, 0);
    return t;
}

/* Random zero point for an activation (0 in int16x8). */
static int64_t rand_zp(gen *s) { return s->i16 ? 0 : rnd(s, -128, 127); }

/* Random activation scale for a fresh tensor. */
static float rand_act_scale(gen *s) { return s->i16 ? pow2_scale(s, -14, -10) : pow2_scale(s, -8, -4); }

/* Random activation data (constants and broadcast operands). */
static void *rand_act_data(gen *s, int32_t n, void *buf)
{
    if (s->i16) {
        int16_t *p = buf;
        for (int32_t i = 0; i < n; i++) p[i] = (int16_t)rnd(s, -20000, 20000);
    } else {
        int8_t *p = buf;
        for (int32_t i = 0; i < n; i++) p[i] = (int8_t)rnd(s, -128, 127);
    }
    return buf;
}

static int32_t const_act(gen *s, const char *kind, const shp *sh, float scale, int64_t zp)
{
    int32_t n = elems(sh);
    int16_t *buf = malloc((size_t)n * sizeof *buf);
    if (!buf) {
        s->rc = NPUC_E_NOMEM;
        return -1;
    }
    int32_t t = act_tensor(s, kind, sh, scale, zp, rand_act_data(s, n, buf));
    free(buf);
    return t;
}

static int32_t const_i32(gen *s, const char *kind, int32_t rank, const int32_t *dims, const int32_t *data)
{
    shp sh = {rank, {1, 1, 1, 1}};
    for (int32_t i = 0; i < rank; i++) sh.d[i] = dims[i];
    return add_tensor(s, kind, GRAPH_I32, &sh, data);
}

/* int8 weights; axis >= 0: per-channel along axis with n_ch scales, else
 * per-tensor. Scales written to w_scale (n_ch entries, all equal if per-tensor). */
static int32_t weights(gen *s, const shp *sh, int32_t axis, int32_t n_ch, int32_t k, float *w_scale)
{
    int32_t n = elems(sh);
    int8_t *buf = malloc((size_t)n);
    if (!buf) {
        s->rc = NPUC_E_NOMEM;
        return -1;
    }
    for (int32_t i = 0; i < n; i++) buf[i] = (int8_t)rnd(s, -127, 127);
    /* real weights of about 1/sqrt(k): the output scale then stays near the input's */
    float base = (float)(unif(s, 0.5, 2.0) / (127.0 * sqrt_d(k)));
    int64_t zp[32];
    for (int32_t c = 0; c < n_ch; c++) {
        w_scale[c] = axis >= 0 ? (float)(base * unif(s, 0.5, 1.5)) : base;
        zp[c] = 0;
    }
    int32_t t = add_tensor(s, "weights", GRAPH_I8, sh, buf);
    free(buf);
    set_q(s, t, axis >= 0 ? n_ch : 1, w_scale, zp, axis >= 0 ? axis : 0);
    return t;
}

static int32_t bias(gen *s, int32_t n, float in_scale, const float *w_scale, bool per_channel, int32_t k)
{
    int64_t data[32];
    float sc[32];
    int64_t zp[32];
    double range = (s->i16 ? 200000.0 : 2000.0) * sqrt_d(k);
    for (int32_t i = 0; i < n; i++) {
        int64_t v = (int64_t)unif(s, -range, range);
        data[i] = v;
        sc[i] = in_scale * w_scale[i];
        zp[i] = 0;
    }
    shp sh = {1, {n, 1, 1, 1}};
    int32_t t;
    if (s->i16) {
        t = add_tensor(s, "bias", GRAPH_I64, &sh, data);
    } else {
        int32_t d32[32];
        for (int32_t i = 0; i < n; i++) d32[i] = (int32_t)data[i];
        t = add_tensor(s, "bias", GRAPH_I32, &sh, d32);
    }
    set_q(s, t, per_channel ? n : 1, sc, zp, 0);
    return t;
}

/* Keeps a derived activation scale in a realistic range (chains of ops
 * would otherwise drift; TFLite's LOGISTIC/TANH int8 need scale < 16). */
static float fit_scale(const gen *s, double v)
{
    double lo = s->i16 ? 1.0 / (1 << 18) : 1.0 / (1 << 10), hi = s->i16 ? 1.0 / 64 : 0.5;
    return (float)(v < lo ? lo : (v > hi ? hi : v));
}

/* Output scale of a conv-like op with k accumulated products per output:
 * about the accumulator's spread, so values stay mostly in range. */
static float conv_out_scale(gen *s, float in_scale, float w_scale, int32_t k)
{
    return fit_scale(s, in_scale * w_scale * 140.0 * sqrt_d(k) * unif(s, 0.5, 2.0));
}

static int8_t rand_fused_act(gen *s)
{
    int32_t v = rnd(s, 0, 9);
    if (v < 4) return TFL_ACT_NONE;
    if (v < 6) return TFL_ACT_RELU;
    if (v < 8) return TFL_ACT_RELU6;
    return TFL_ACT_RELU_N1_TO_1;
}

/* Op versions in the range TFLite's converter uses for these types. */
static int32_t op_version(const gen *s, int32_t code)
{
    int32_t v8 = 2, v16 = 3;
    switch (code) {
    case TFL_OP_CONV_2D: v8 = 3; v16 = 4; break;
    case TFL_OP_DEPTHWISE_CONV_2D: v8 = 3; v16 = 5; break;
    case TFL_OP_FULLY_CONNECTED: v8 = 4; v16 = 7; break;
    case TFL_OP_TRANSPOSE_CONV: v8 = 3; v16 = 3; break;
    case TFL_OP_RESHAPE: v8 = 1; v16 = 1; break;
    case TFL_OP_HARD_SWISH: v8 = 1; v16 = 1; break;
    case TFL_OP_MUL: v8 = 2; v16 = 4; break;
    case TFL_OP_QUANTIZE: v8 = 2; v16 = 3; break;
    default: break;
    }
    return s->i16 ? v16 : v8;
}

static int emit(gen *s, int32_t code, const tfl_options *o, int32_t n_in, const int32_t *in, int32_t out)
{
    if (s->rc) return s->rc;
    for (int32_t i = 0; i < n_in; i++)
        if (in[i] < 0) return s->rc = NPUC_E_NOMEM;
    if (out < 0) return s->rc = NPUC_E_NOMEM;
    int32_t k = graph_add_op(s->g, code, o, n_in, in, 1, &out);
    if (k < 0) return s->rc = NPUC_E_NOMEM;
    s->g->ops[k].version = op_version(s, code);
    s->cur = out;
    return GEN_OK;
}

static tfl_options defopts(void)
{
    tfl_options o;
    tfl_options_default(&o);
    return o;
}

/* A random [1, h, w, c] with h*w*c == e and every dim <= max_dim; false if none. */
static bool factor4(gen *s, int32_t e, shp *out)
{
    int32_t count = 0;
    for (int pass = 0; pass < 2; pass++) {
        int32_t pick = pass ? rnd(s, 0, count - 1) : -1, k = 0;
        for (int32_t c = 1; c <= s->max_dim && c <= e; c++) {
            if (e % c) continue;
            for (int32_t h = 1; h <= s->max_dim && h <= e / c; h++) {
                if ((e / c) % h || e / c / h > s->max_dim) continue;
                if (pass && k == pick) {
                    *out = (shp){4, {1, h, e / c / h, c}};
                    return true;
                }
                k++;
            }
        }
        count = k;
        if (!count) return false;
    }
    return false;
}

static int32_t emit_reshape(gen *s, int32_t x, const shp *to)
{
    int32_t dims = to->rank;
    int32_t shape_t = const_i32(s, "shape", 1, &dims, to->d);
    tfl_options o = defopts();
    o.n_new_shape = to->rank;
    o.has_new_shape = true;
    /* graph_add_op copies the options struct but not the arrays it points to */
    o.new_shape = npuc_arena_memdup(&s->g->arena, to->d, (size_t)to->rank * sizeof(int32_t));
    if (!o.new_shape) s->rc = NPUC_E_NOMEM;
    int32_t y = act_tensor(s, "reshape", to, q_scale(s, x), q_zp(s, x), NULL);
    int32_t in[2] = {x, shape_t};
    int rc = emit(s, TFL_OP_RESHAPE, &o, 2, in, y);
    return rc ? -1 : y;
}

/* Makes x rank 4 (inserting a RESHAPE); -1 if it cannot. */
static int32_t to4(gen *s, int32_t x)
{
    shp a = shape_of(s, x);
    if (a.rank == 4) return x;
    shp b;
    if (!factor4(s, elems(&a), &b)) return -1;
    return emit_reshape(s, x, &b);
}

/* ---- ops ---- */

static int g_conv(gen *s, int32_t x, bool pointwise, int32_t max_cout, const int64_t *force_zp,
                  const float *force_scale)
{
    if ((x = to4(s, x)) < 0) return GEN_SKIP;
    shp a = shape_of(s, x);
    int32_t H = a.d[1], W = a.d[2], C = a.d[3];
    for (int tries = 0; tries < 20; tries++) {
        int32_t kh = pointwise ? 1 : rnd(s, 1, 5), kw = pointwise ? 1 : rnd(s, 1, 5);
        int32_t sh = pointwise ? 1 : rnd(s, 1, 3), sw = pointwise ? 1 : rnd(s, 1, 3);
        int32_t dh = pointwise ? 1 : rnd(s, 1, 2), dw = pointwise ? 1 : rnd(s, 1, 2);
        int8_t pad = chance(s, 0.5) ? TFL_PAD_SAME : TFL_PAD_VALID;
        int32_t oh = out_size(pad, H, kh, sh, dh), ow = out_size(pad, W, kw, sw, dw);
        if (oh < 1 || ow < 1) continue;
        int32_t cout = rnd(s, 1, min_i(max_cout, 24));
        if ((int64_t)oh * ow * cout * kh * kw * C > MAX_MACS) continue;
        float ws[32];
        shp wsh = {4, {cout, kh, kw, C}};
        int32_t w = weights(s, &wsh, 0, cout, kh * kw * C, ws);
        float in_s = q_scale(s, x);
        int32_t b = bias(s, cout, in_s, ws, true, kh * kw * C);
        shp osh = {4, {1, oh, ow, cout}};
        float os = force_scale ? *force_scale : conv_out_scale(s, in_s, ws[0], kh * kw * C);
        int32_t y = act_tensor(s, "conv", &osh, os, force_zp ? *force_zp : rand_zp(s), NULL);
        tfl_options o = defopts();
        o.padding = pad;
        o.stride_h = sh;
        o.stride_w = sw;
        o.dilation_h = dh;
        o.dilation_w = dw;
        o.activation = force_scale ? TFL_ACT_NONE : rand_fused_act(s);
        int32_t in[3] = {x, w, b};
        return emit(s, TFL_OP_CONV_2D, &o, 3, in, y);
    }
    return GEN_SKIP;
}

static int g_dwconv(gen *s, int32_t x)
{
    if ((x = to4(s, x)) < 0) return GEN_SKIP;
    shp a = shape_of(s, x);
    int32_t H = a.d[1], W = a.d[2], C = a.d[3];
    for (int tries = 0; tries < 20; tries++) {
        int32_t kh = rnd(s, 1, 5), kw = rnd(s, 1, 5), sh = rnd(s, 1, 3), sw = rnd(s, 1, 3);
        int32_t dh = rnd(s, 1, 2), dw = rnd(s, 1, 2);
        int32_t dm = (C * 2 <= s->max_dim && chance(s, 0.3)) ? 2 : 1;
        int8_t pad = chance(s, 0.5) ? TFL_PAD_SAME : TFL_PAD_VALID;
        int32_t oh = out_size(pad, H, kh, sh, dh), ow = out_size(pad, W, kw, sw, dw);
        if (oh < 1 || ow < 1) continue;
        int32_t cout = C * dm;
        float ws[32];
        shp wsh = {4, {1, kh, kw, cout}};
        int32_t w = weights(s, &wsh, 3, cout, kh * kw, ws);
        float in_s = q_scale(s, x);
        int32_t b = bias(s, cout, in_s, ws, true, kh * kw);
        shp osh = {4, {1, oh, ow, cout}};
        int32_t y = act_tensor(s, "dwconv", &osh, conv_out_scale(s, in_s, ws[0], kh * kw), rand_zp(s), NULL);
        tfl_options o = defopts();
        o.padding = pad;
        o.stride_h = sh;
        o.stride_w = sw;
        o.dilation_h = dh;
        o.dilation_w = dw;
        o.depth_multiplier = dm;
        o.activation = rand_fused_act(s);
        int32_t in[3] = {x, w, b};
        return emit(s, TFL_OP_DEPTHWISE_CONV_2D, &o, 3, in, y);
    }
    return GEN_SKIP;
}

static int g_fc(gen *s, int32_t x, const int64_t *force_zp, const float *force_scale)
{
    shp a = shape_of(s, x);
    int32_t in_f;
    shp osh;
    bool keep = false;
    int32_t units = rnd(s, 1, min_i(s->max_dim, 32));
    if (a.rank == 4 && (chance(s, 0.5) || elems(&a) > MAX_FLAT)) {
        in_f = a.d[3];  /* per pixel, keep_num_dims */
        keep = true;
        osh = (shp){4, {1, a.d[1], a.d[2], units}};
    } else {
        in_f = a.d[a.rank - 1];
        int32_t batch = elems(&a) / in_f;
        if (a.rank == 4) {
            in_f = elems(&a);
            batch = 1;
        }
        if (in_f > MAX_FLAT || batch > s->max_dim) return GEN_SKIP;
        osh = (shp){2, {batch, units, 1, 1}};
    }
    if ((int64_t)elems(&osh) * in_f > MAX_MACS) return GEN_SKIP;
    float ws[32];
    shp wsh = {2, {units, in_f, 1, 1}};
    int32_t w = weights(s, &wsh, -1, units, in_f, ws);
    float in_s = q_scale(s, x);
    int32_t b = bias(s, units, in_s, ws, false, in_f);
    float os = force_scale ? *force_scale : conv_out_scale(s, in_s, ws[0], in_f);
    int32_t y = act_tensor(s, "fc", &osh, os, force_zp ? *force_zp : rand_zp(s), NULL);
    tfl_options o = defopts();
    o.keep_num_dims = keep;
    o.activation = force_scale ? TFL_ACT_NONE : rand_fused_act(s);
    int32_t in[3] = {x, w, b};
    return emit(s, TFL_OP_FULLY_CONNECTED, &o, 3, in, y);
}

static int g_pool(gen *s, int32_t x, int32_t code)
{
    if ((x = to4(s, x)) < 0) return GEN_SKIP;
    shp a = shape_of(s, x);
    for (int tries = 0; tries < 20; tries++) {
        int32_t fh = rnd(s, 1, 3), fw = rnd(s, 1, 3), sh = rnd(s, 1, 3), sw = rnd(s, 1, 3);
        int8_t pad = chance(s, 0.5) ? TFL_PAD_SAME : TFL_PAD_VALID;
        int32_t oh = out_size(pad, a.d[1], fh, sh, 1), ow = out_size(pad, a.d[2], fw, sw, 1);
        if (oh < 1 || ow < 1) continue;
        shp osh = {4, {1, oh, ow, a.d[3]}};
        int32_t y = act_tensor(s, "pool", &osh, q_scale(s, x), q_zp(s, x), NULL);
        tfl_options o = defopts();
        o.padding = pad;
        o.stride_h = sh;
        o.stride_w = sw;
        o.filter_h = fh;
        o.filter_w = fw;
        int32_t v = rnd(s, 0, 5);
        o.activation = v < 4 ? TFL_ACT_NONE : (v == 4 ? TFL_ACT_RELU : TFL_ACT_RELU6);
        return emit(s, code, &o, 1, &x, y);
    }
    return GEN_SKIP;
}

/* An earlier activation tensor (not x) with shape sh, optionally with the
 * same quantization as x; -1 if none. */
static int32_t find_join(gen *s, int32_t x, const shp *sh, bool same_quant)
{
    int32_t cand[64], n = 0;
    for (int32_t t = 0; t < s->g->n_tensors && n < 64; t++) {
        const graph_tensor *gt = &s->g->tensors[t];
        if (t == x || gt->data || gt->dtype != s->act || gt->q.n != 1) continue;
        bool live = gt->producer >= 0;
        for (int32_t i = 0; i < s->n_inputs; i++) live |= s->inputs[i] == t;
        if (!live) continue;
        shp b = shape_of(s, t);
        if (!same_shape(&b, sh)) continue;
        if (same_quant && (gt->q.scale[0] != q_scale(s, x) || gt->q.zero_point[0] != q_zp(s, x))) continue;
        cand[n++] = t;
    }
    return n ? cand[rnd(s, 0, n - 1)] : -1;
}

/* Second operand of a binary op: a join, a new model input, or a constant
 * of the same shape or broadcast along all but the last dim. */
static int32_t second_operand(gen *s, int32_t x, bool same_quant)
{
    shp a = shape_of(s, x);
    if (chance(s, 0.4)) {
        int32_t j = find_join(s, x, &a, same_quant);
        if (j >= 0) return j;
    }
    float sc = same_quant ? q_scale(s, x) : fit_scale(s, q_scale(s, x) * unif(s, 0.5, 2.0));
    int64_t zp = same_quant ? q_zp(s, x) : rand_zp(s);
    if (!same_quant && s->n_inputs < MAX_INPUTS && chance(s, 0.15)) {
        int32_t t = act_tensor(s, "input", &a, sc, zp, NULL);
        if (t >= 0) s->inputs[s->n_inputs++] = t;
        return t;
    }
    shp b = a;
    if (chance(s, 0.4))
        for (int32_t i = 0; i < b.rank - 1; i++) b.d[i] = 1;
    return const_act(s, "const", &b, sc, zp);
}

static int g_binary(gen *s, int32_t x, int32_t code)
{
    bool minmax = code == TFL_OP_MINIMUM || code == TFL_OP_MAXIMUM;
    int32_t y2 = second_operand(s, x, minmax);
    if (y2 < 0) return s->rc ? s->rc : GEN_SKIP;
    shp a = shape_of(s, x);
    float s1 = q_scale(s, x), s2 = q_scale(s, y2);
    float os;
    int64_t ozp;
    if (minmax) {
        os = s1;
        ozp = q_zp(s, x);
    } else {
        if (code == TFL_OP_MUL) os = fit_scale(s, s1 * s2 * (s->i16 ? 8000.0 : 64.0) * unif(s, 0.5, 2.0));
        else os = fit_scale(s, (s1 > s2 ? s1 : s2) * unif(s, 1.0, 2.5));
        ozp = rand_zp(s);
    }
    int32_t y = act_tensor(s, "binary", &a, os, ozp, NULL);
    tfl_options o = defopts();
    if (!minmax) {
        int32_t v = rnd(s, 0, 5);
        o.activation = v < 4 ? TFL_ACT_NONE : (v == 4 ? TFL_ACT_RELU : TFL_ACT_RELU6);
    }
    if (s->i16 && (code == TFL_OP_ADD || code == TFL_OP_SUB)) o.pot_scale_int16 = false;
    int32_t in[2] = {x, y2};
    shp b = shape_of(s, y2);
    if (same_shape(&a, &b) && chance(s, 0.3)) {
        /* both full size: either order (a broadcast operand stays second) */
        in[0] = y2;
        in[1] = x;
    }
    return emit(s, code, &o, 2, in, y);
}

/* Unary ops that requantize freely. */
static int g_unary(gen *s, int32_t x, int32_t code)
{
    shp a = shape_of(s, x);
    float in_s = q_scale(s, x);
    float os = fit_scale(s, in_s * unif(s, 0.5, 1.5));
    int64_t zp = rand_zp(s);
    tfl_options o = defopts();
    switch (code) {
    case TFL_OP_LOGISTIC:
        os = s->i16 ? 1.0f / 32768 : 1.0f / 256;
        zp = s->i16 ? 0 : -128;
        break;
    case TFL_OP_TANH:
        os = s->i16 ? 1.0f / 32768 : 1.0f / 128;
        zp = 0;
        break;
    case TFL_OP_SOFTMAX:
        os = s->i16 ? 1.0f / 32768 : 1.0f / 256;
        zp = s->i16 ? 0 : -128;
        o.beta = 1.0f;
        break;
    case TFL_OP_LEAKY_RELU: o.alpha = (float)unif(s, 0.01, 0.5); break;
    case TFL_OP_QUANTIZE: os = fit_scale(s, in_s * unif(s, 0.5, 2.0)); break;
    default: break;
    }
    int32_t y = act_tensor(s, "act", &a, os, zp, NULL);
    return emit(s, code, &o, 1, &x, y);
}

static int g_reshape(gen *s, int32_t x)
{
    shp a = shape_of(s, x);
    int32_t e = elems(&a);
    shp b;
    if (a.rank == 4 && e <= MAX_FLAT && chance(s, 0.4)) b = (shp){2, {1, e, 1, 1}};
    else if (!factor4(s, e, &b)) return GEN_SKIP;
    return emit_reshape(s, x, &b) < 0 ? (s->rc ? s->rc : GEN_SKIP) : GEN_OK;
}

static int g_concat(gen *s, int32_t x)
{
    shp a = shape_of(s, x);
    int32_t axis = a.rank - 1;
    if (a.rank == 4 && chance(s, 0.3)) axis = rnd(s, 1, 2);
    int32_t n_more = chance(s, 0.3) ? 2 : 1;
    int32_t in[3] = {x, -1, -1};
    int32_t total = a.d[axis];
    float sc = q_scale(s, x);
    int64_t zp = q_zp(s, x);
    for (int32_t k = 1; k <= n_more; k++) {
        int32_t room = s->max_dim - total;
        if (room < 1) return GEN_SKIP;
        int32_t v = rnd(s, 0, 9), t = -1;
        if (v < 2 && a.d[axis] <= room) {
            t = x; /* the same tensor twice */
        } else if (v < 5 && axis == a.rank - 1 && a.rank == 4) {
            /* a side branch: 1x1 conv from x with x's quantization */
            int32_t keep_cur = s->cur;
            int rc = g_conv(s, x, true, room, &zp, &sc);
            if (rc > 0) return rc;
            if (rc == GEN_OK) t = s->cur;
            s->cur = keep_cur;
        } else if (v < 7) {
            shp want = a;
            want.d[axis] = rnd(s, 1, room);
            t = find_join(s, x, &want, true);
        }
        if (t < 0) {
            shp want = a;
            want.d[axis] = rnd(s, 1, min_i(room, 8));
            t = const_act(s, "const", &want, sc, zp);
            if (t < 0) return s->rc ? s->rc : GEN_SKIP;
        }
        in[k] = t;
        total += shape_of(s, t).d[axis];
    }
    shp osh = a;
    osh.d[axis] = total;
    int32_t y = act_tensor(s, "concat", &osh, sc, zp, NULL);
    tfl_options o = defopts();
    o.axis = axis;
    if (chance(s, 0.5)) {
        /* rotate inputs so x is not always first */
        int32_t t0 = in[0];
        for (int32_t k = 0; k < n_more; k++) in[k] = in[k + 1];
        in[n_more] = t0;
    }
    return emit(s, TFL_OP_CONCATENATION, &o, 1 + n_more, in, y);
}

static int g_pad(gen *s, int32_t x)
{
    if ((x = to4(s, x)) < 0) return GEN_SKIP;
    shp a = shape_of(s, x);
    int32_t p[8] = {0};
    shp osh = a;
    for (int32_t d = 1; d < 4; d++) {
        int32_t m = d == 3 ? 1 : 2;
        if (d == 3 && !chance(s, 0.3)) m = 0;
        for (int tries = 0; tries < 4; tries++) {
            p[2 * d] = rnd(s, 0, m);
            p[2 * d + 1] = rnd(s, 0, m);
            if (a.d[d] + p[2 * d] + p[2 * d + 1] <= s->max_dim) break;
            p[2 * d] = p[2 * d + 1] = 0;
        }
        osh.d[d] = a.d[d] + p[2 * d] + p[2 * d + 1];
    }
    int32_t pd[2] = {4, 2};
    int32_t pt = const_i32(s, "paddings", 2, pd, p);
    int32_t y = act_tensor(s, "pad", &osh, q_scale(s, x), q_zp(s, x), NULL);
    tfl_options o = defopts();
    int32_t in[2] = {x, pt};
    return emit(s, TFL_OP_PAD, &o, 2, in, y);
}

static int g_mean(gen *s, int32_t x)
{
    if ((x = to4(s, x)) < 0) return GEN_SKIP;
    shp a = shape_of(s, x);
    int32_t axes[2] = {1, 2}, n_ax = 2;
    int32_t v = rnd(s, 0, 3);
    bool keep = chance(s, 0.6);
    if (v == 2) {
        axes[0] = 1;
        n_ax = 1;
        keep = true;
    } else if (v == 3) {
        axes[0] = 2;
        n_ax = 1;
        keep = true;
    }
    shp osh = a;
    for (int32_t i = 0; i < n_ax; i++) osh.d[axes[i]] = 1;
    if (!keep) osh = (shp){2, {1, a.d[3], 1, 1}};
    int32_t at = const_i32(s, "axis", 1, &n_ax, axes);
    int32_t y = act_tensor(s, "mean", &osh, fit_scale(s, q_scale(s, x) * unif(s, 0.5, 1.5)), rand_zp(s), NULL);
    tfl_options o = defopts();
    o.keep_dims = keep;
    int32_t in[2] = {x, at};
    return emit(s, TFL_OP_MEAN, &o, 2, in, y);
}

static int g_slice(gen *s, int32_t x)
{
    shp a = shape_of(s, x);
    int32_t r = a.rank;
    int32_t begin[4], end[4], stride[4];
    int32_t bm = 0, em = 0;
    shp osh = a;
    for (int32_t d = 0; d < r; d++) {
        int32_t n = a.d[d];
        if (d == 0) {
            begin[d] = 0;
            end[d] = n;
            stride[d] = 1;
        } else {
            stride[d] = n > 1 ? rnd(s, 1, 2) : 1;
            begin[d] = rnd(s, 0, n - 1);
            end[d] = rnd(s, begin[d] + 1, n);
            if (chance(s, 0.2)) bm |= 1 << d;
            if (chance(s, 0.2)) em |= 1 << d;
        }
        int32_t b = (bm >> d & 1) ? 0 : begin[d];
        int32_t e = (em >> d & 1) ? n : end[d];
        osh.d[d] = (e - b + stride[d] - 1) / stride[d];
    }
    int32_t bt = const_i32(s, "begin", 1, &r, begin);
    int32_t et = const_i32(s, "end", 1, &r, end);
    int32_t st = const_i32(s, "strides", 1, &r, stride);
    int32_t y = act_tensor(s, "slice", &osh, q_scale(s, x), q_zp(s, x), NULL);
    tfl_options o = defopts();
    o.begin_mask = bm;
    o.end_mask = em;
    int32_t in[4] = {x, bt, et, st};
    return emit(s, TFL_OP_STRIDED_SLICE, &o, 4, in, y);
}

static int g_tconv(gen *s, int32_t x)
{
    if ((x = to4(s, x)) < 0) return GEN_SKIP;
    shp a = shape_of(s, x);
    int32_t H = a.d[1], W = a.d[2], C = a.d[3];
    for (int tries = 0; tries < 20; tries++) {
        int32_t kh = rnd(s, 1, 4), kw = rnd(s, 1, 4), sh = rnd(s, 1, 2), sw = rnd(s, 1, 2);
        int8_t pad = chance(s, 0.5) ? TFL_PAD_SAME : TFL_PAD_VALID;
        int32_t oh = pad == TFL_PAD_SAME ? H * sh : (H - 1) * sh + kh;
        int32_t ow = pad == TFL_PAD_SAME ? W * sw : (W - 1) * sw + kw;
        if (oh > s->max_dim || ow > s->max_dim) continue;
        /* the op derives its padding from the output shape: it must map back */
        if (out_size(pad, oh, kh, sh, 1) != H || out_size(pad, ow, kw, sw, 1) != W) continue;
        int32_t cout = rnd(s, 1, min_i(s->max_dim, 16));
        if ((int64_t)H * W * C * kh * kw * cout > MAX_MACS) continue;
        int32_t os_dims[4] = {1, oh, ow, cout};
        int32_t four = 4;
        int32_t ost = const_i32(s, "output_shape", 1, &four, os_dims);
        float ws[32];
        shp wsh = {4, {cout, kh, kw, C}};
        int32_t w = weights(s, &wsh, 0, cout, kh * kw * C, ws);
        float in_s = q_scale(s, x);
        int32_t k = kh * kw * C / (sh * sw);
        if (k < 1) k = 1;
        int32_t b = bias(s, cout, in_s, ws, true, k);
        shp osh = {4, {1, oh, ow, cout}};
        int32_t y = act_tensor(s, "tconv", &osh, conv_out_scale(s, in_s, ws[0], k), rand_zp(s), NULL);
        tfl_options o = defopts();
        o.padding = pad;
        o.stride_h = sh;
        o.stride_w = sw;
        int32_t in[4] = {ost, w, x, b};
        return emit(s, TFL_OP_TRANSPOSE_CONV, &o, 4, in, y);
    }
    return GEN_SKIP;
}

static int gen_op(gen *s, int32_t code, int32_t x)
{
    switch (code) {
    case TFL_OP_CONV_2D: return g_conv(s, x, false, s->max_dim, NULL, NULL);
    case TFL_OP_DEPTHWISE_CONV_2D: return g_dwconv(s, x);
    case TFL_OP_FULLY_CONNECTED: return g_fc(s, x, NULL, NULL);
    case TFL_OP_AVERAGE_POOL_2D:
    case TFL_OP_MAX_POOL_2D: return g_pool(s, x, code);
    case TFL_OP_ADD:
    case TFL_OP_SUB:
    case TFL_OP_MUL:
    case TFL_OP_MINIMUM:
    case TFL_OP_MAXIMUM: return g_binary(s, x, code);
    case TFL_OP_RELU:
    case TFL_OP_RELU6:
    case TFL_OP_LEAKY_RELU:
    case TFL_OP_LOGISTIC:
    case TFL_OP_TANH:
    case TFL_OP_SOFTMAX:
    case TFL_OP_QUANTIZE: return g_unary(s, x, code);
    case TFL_OP_HARD_SWISH: return s->i16 ? GEN_SKIP : g_unary(s, x, code);
    case TFL_OP_RESHAPE: return g_reshape(s, x);
    case TFL_OP_CONCATENATION: return g_concat(s, x);
    case TFL_OP_PAD: return g_pad(s, x);
    case TFL_OP_MEAN: return g_mean(s, x);
    case TFL_OP_STRIDED_SLICE: return g_slice(s, x);
    case TFL_OP_TRANSPOSE_CONV: return g_tconv(s, x);
    default: return GEN_SKIP;
    }
}

/* The tensor the next op reads: usually the chain's head, sometimes an
 * earlier activation (which makes a branch). */
static int32_t pick_input(gen *s)
{
    if (!chance(s, 0.2)) return s->cur;
    int32_t cand[256], n = 0;
    for (int32_t t = 0; t < s->g->n_tensors && n < 256; t++) {
        const graph_tensor *gt = &s->g->tensors[t];
        if (gt->data || gt->dtype != s->act || gt->q.n != 1) continue;
        bool is_in = false;
        for (int32_t i = 0; i < s->n_inputs; i++) is_in |= s->inputs[i] == t;
        if (gt->producer >= 0 || is_in) cand[n++] = t;
    }
    return n ? cand[rnd(s, 0, n - 1)] : s->cur;
}

int genmodel_build(uint64_t seed, const genmodel_config *cfg_in, graph **out, npuc_err *err)
{
    *out = NULL;
    genmodel_config cfg;
    if (cfg_in) cfg = *cfg_in;
    else genmodel_config_default(&cfg);
    if (cfg.max_dim == 0) cfg.max_dim = 32;
    if (cfg.max_dim < 4 || cfg.max_dim > 32)
        return npuc_errf(err, NPUC_E_USAGE, "genmodel: max_dim %d is outside [4, 32]", cfg.max_dim);
    if (cfg.n_ops < 0 || cfg.n_ops > 1000)
        return npuc_errf(err, NPUC_E_USAGE, "genmodel: op count %d is outside [0, 1000]", cfg.n_ops);
    if (cfg.n_only < 0 || (cfg.n_only > 0 && !cfg.only))
        return npuc_errf(err, NPUC_E_USAGE, "genmodel: op list has count %d but no entries", cfg.n_only);

    /* the candidate op list */
    int32_t ops[64], n_ops = 0;
    const int32_t *src = cfg.only ? cfg.only : all_ops;
    int32_t n_src = cfg.only ? cfg.n_only : (int32_t)(sizeof all_ops / sizeof all_ops[0]);
    for (int32_t i = 0; i < n_src && n_ops < 64; i++) {
        bool known = false;
        for (size_t k = 0; k < sizeof all_ops / sizeof all_ops[0]; k++) known |= all_ops[k] == src[i];
        if (!known)
            return npuc_errf(err, NPUC_E_USAGE, "genmodel: cannot generate op %s (%d)", tfl_builtin_name(src[i]), src[i]);
        if (cfg.int16 && src[i] == TFL_OP_HARD_SWISH) continue;
        ops[n_ops++] = src[i];
    }
    if (n_ops == 0) return npuc_errf(err, NPUC_E_USAGE, "genmodel: no op to generate%s", cfg.int16 ? " in int16x8" : "");

    char name[64];
    snprintf(name, sizeof name, "genmodel-%llu-%s", (unsigned long long)seed, cfg.int16 ? "int16" : "int8");
    gen st = {0};
    gen *s = &st;
    s->g = graph_new(name);
    if (!s->g) return npuc_errf(err, NPUC_E_NOMEM, "genmodel: out of memory");
    npuc_rng_seed(&s->r, seed * 2 + (cfg.int16 ? 1 : 0));
    s->i16 = cfg.int16;
    s->act = cfg.int16 ? GRAPH_I16 : GRAPH_I8;
    s->max_dim = cfg.max_dim;
    int32_t target = cfg.n_ops ? cfg.n_ops : rnd(s, 3, 12);

    /* model input */
    shp ish;
    if (chance(s, 0.1)) /* a vector that a RESHAPE can always turn into [1, h, w, c] */
        ish = (shp){2, {1, rnd(s, 1, min_i(8, s->max_dim)) * rnd(s, 1, min_i(8, s->max_dim)), 1, 1}};
    else ish = (shp){4, {1, rnd(s, 1, min_i(16, s->max_dim)), rnd(s, 1, min_i(16, s->max_dim)), rnd(s, 1, min_i(16, s->max_dim))}};
    int32_t x0 = act_tensor(s, "input", &ish, rand_act_scale(s), rand_zp(s), NULL);
    s->inputs[s->n_inputs++] = x0;
    s->cur = x0;

    int32_t made = 0;
    for (int32_t i = 0; i < target && !s->rc; i++) {
        int rc = GEN_SKIP;
        for (int tries = 0; tries < 30 && rc == GEN_SKIP && !s->rc; tries++) {
            int32_t code = ops[rnd(s, 0, n_ops - 1)];
            rc = gen_op(s, code, pick_input(s));
        }
        if (rc > 0) break;
        if (rc == GEN_OK) made++;
    }
    if (s->rc) {
        graph_free(s->g);
        return npuc_errf(err, s->rc, "genmodel: seed %llu: out of memory", (unsigned long long)seed);
    }
    if (s->g->n_ops == 0 || made == 0) {
        graph_free(s->g);
        return npuc_errf(err, NPUC_E_USAGE, "genmodel: seed %llu: none of the requested ops applies",
                         (unsigned long long)seed);
    }

    /* outputs: the chain's head and every activation nobody reads */
    graph *g = s->g;
    bool *read = calloc((size_t)g->n_tensors, sizeof(bool));
    int32_t *outs = calloc((size_t)g->n_tensors, sizeof(int32_t));
    if (!read || !outs) {
        free(read);
        free(outs);
        graph_free(g);
        return npuc_errf(err, NPUC_E_NOMEM, "genmodel: out of memory");
    }
    for (int32_t i = 0; i < g->n_ops; i++)
        for (int32_t k = 0; k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] >= 0) read[g->ops[i].in[k]] = true;
    int32_t n_out = 0;
    outs[n_out++] = s->cur;
    for (int32_t t = 0; t < g->n_tensors; t++)
        if (t != s->cur && g->tensors[t].producer >= 0 && !read[t]) outs[n_out++] = t;
    /* inputs nobody reads (cannot happen today) are dropped */
    int32_t ins[MAX_INPUTS], n_in = 0;
    for (int32_t i = 0; i < s->n_inputs; i++)
        if (read[s->inputs[i]]) ins[n_in++] = s->inputs[i];
    int rc = graph_set_io(g, n_in, ins, n_out, outs);
    free(read);
    free(outs);
    if (rc) {
        graph_free(g);
        return npuc_errf(err, NPUC_E_NOMEM, "genmodel: out of memory");
    }
    *out = g;
    return NPUC_OK;
}

/* ---- UNIDIRECTIONAL_SEQUENCE_LSTM ---- */

/* Gate weights [S][D] with a per-tensor scale giving gate pre-activations
 * of about `spread` (real units) for inputs of scale in_scale; a tenth of
 * the gates get a scale far off (saturating gates, large rescales). */
static int32_t lstm_weights(gen *s, int32_t S, int32_t D, float in_scale, float *w_scale)
{
    shp sh = {2, {S, D, 1, 1}};
    int8_t *buf = malloc((size_t)S * (size_t)D);
    if (!buf) {
        s->rc = NPUC_E_NOMEM;
        return -1;
    }
    for (int32_t i = 0; i < S * D; i++) buf[i] = (int8_t)rnd(s, -127, 127);
    double spread = chance(s, 0.1) ? unif(s, 0.01, 60.0) : unif(s, 0.5, 6.0);
    *w_scale = (float)(spread / ((double)in_scale * 127.0 * 64.0 * sqrt_d(D)));
    int64_t zp = 0;
    int32_t t = add_tensor(s, "lstm_w", GRAPH_I8, &sh, buf);
    free(buf);
    set_q(s, t, 1, w_scale, &zp, 0);
    return t;
}

static int32_t lstm_bias(gen *s, int32_t S, float in_scale, float w_scale)
{
    shp sh = {1, {S, 1, 1, 1}};
    float sc = in_scale * w_scale;
    int64_t zp = 0;
    double range = unif(s, 0.0, 3.0) / (double)sc;
    if (range > 1e9) range = 1e9;
    int32_t t;
    if (s->i16) {
        int64_t *d = malloc(sizeof *d * (size_t)S);
        if (!d) return s->rc = NPUC_E_NOMEM, -1;
        for (int32_t i = 0; i < S; i++) d[i] = (int64_t)unif(s, -range, range);
        t = add_tensor(s, "lstm_b", GRAPH_I64, &sh, d);
        free(d);
    } else {
        int32_t *d = malloc(sizeof *d * (size_t)S);
        if (!d) return s->rc = NPUC_E_NOMEM, -1;
        for (int32_t i = 0; i < S; i++) d[i] = (int32_t)unif(s, -range, range);
        t = add_tensor(s, "lstm_b", GRAPH_I32, &sh, d);
        free(d);
    }
    set_q(s, t, 1, &sc, &zp, 0);
    return t;
}

int genmodel_lstm(uint64_t seed, const genmodel_lstm_config *cfg_in, graph **out, npuc_err *err)
{
    *out = NULL;
    genmodel_lstm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (cfg_in) cfg = *cfg_in;
    int32_t mb = cfg.max_batch ? cfg.max_batch : 3, mt = cfg.max_steps ? cfg.max_steps : 8;
    int32_t mi = cfg.max_input ? cfg.max_input : 48, mu = cfg.max_units ? cfg.max_units : 48;
    if (mb < 1 || mt < 1 || mi < 1 || mu < 1 || mb > 64 || mt > 1024 || mi > 4096 || mu > 4096)
        return npuc_errf(err, NPUC_E_USAGE, "genmodel: LSTM limits %d/%d/%d/%d outside [1, 64/1024/4096/4096]", mb, mt,
                         mi, mu);
    char name[64];
    snprintf(name, sizeof name, "genmodel-lstm-%llu-%s", (unsigned long long)seed, cfg.int16 ? "int16" : "int8");
    gen st = {0};
    gen *s = &st;
    s->g = graph_new(name);
    if (!s->g) return npuc_errf(err, NPUC_E_NOMEM, "genmodel: out of memory");
    npuc_rng_seed(&s->r, seed * 2 + (cfg.int16 ? 1 : 0) + 0x15730000ull);
    s->i16 = cfg.int16;
    s->act = cfg.int16 ? GRAPH_I16 : GRAPH_I8;
    /* small sizes most of the time, the limits now and then */
    const int32_t B = rnd(s, 1, mb), T = rnd(s, 1, mt);
    const int32_t I = chance(s, 0.7) ? rnd(s, 1, mi < 16 ? mi : 16) : rnd(s, 1, mi);
    const int32_t S = chance(s, 0.7) ? rnd(s, 1, mu < 16 ? mu : 16) : rnd(s, 1, mu);
    const bool tm = chance(s, 0.3);
    const float xs = s->i16 ? pow2_scale(s, -14, -8) : pow2_scale(s, -8, -1);
    const int64_t xzp = rand_zp(s);
    const float hs = s->i16 ? pow2_scale(s, -15, -10) : pow2_scale(s, -9, -5);
    const int64_t hzp = rand_zp(s);
    shp xsh = {3, {tm ? T : B, tm ? B : T, I, 1}}, ysh = {3, {tm ? T : B, tm ? B : T, S, 1}};
    shp hsh = {2, {B, S, 1, 1}};
    int32_t ins[24];
    for (int i = 0; i < 24; i++) ins[i] = -1;
    ins[0] = act_tensor(s, "input", &xsh, xs, xzp, NULL);
    for (int gte = 0; gte < 4; gte++) {
        float ws, rs;
        ins[1 + gte] = lstm_weights(s, S, I, xs, &ws);
        ins[5 + gte] = lstm_weights(s, S, S, hs, &rs);
        ins[12 + gte] = lstm_bias(s, S, xs, ws);
    }
    ins[18] = act_tensor(s, "hidden_state", &hsh, hs, hzp, NULL);
    int32_t ctype_e = rnd(s, -15, -9);
    float cs = 1.0f;
    for (int32_t e = ctype_e; e < 0; e++) cs *= 0.5f;
    int64_t czp = 0;
    ins[19] = add_tensor(s, "cell_state", GRAPH_I16, &hsh, NULL);
    set_q(s, ins[19], 1, &cs, &czp, 0);
    int32_t y = act_tensor(s, "output", &ysh, hs, hzp, NULL);
    tfl_options o = defopts();
    o.activation = TFL_ACT_TANH;
    o.time_major = tm;
    o.cell_clip = chance(s, 0.4) ? (float)unif(s, 0.25, 10.0) : 0.0f;
    if (!s->rc) {
        s->g->tensors[ins[18]].is_variable = true;
        s->g->tensors[ins[19]].is_variable = true;
        int32_t k = graph_add_op(s->g, TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, &o, 24, ins, 1, &y);
        if (k < 0) s->rc = NPUC_E_NOMEM;
        else s->g->ops[k].version = 1;
    }
    if (!s->rc && graph_set_io(s->g, 1, &ins[0], 1, &y)) s->rc = NPUC_E_NOMEM;
    if (s->rc) {
        graph_free(s->g);
        return npuc_errf(err, s->rc, "genmodel: seed %llu: out of memory", (unsigned long long)seed);
    }
    *out = s->g;
    return NPUC_OK;
}
