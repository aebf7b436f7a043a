/* Interpreter bindings of the activation group: RELU, RELU6, RELU_N1_TO_1,
 * LEAKY_RELU, HARD_SWISH, LOGISTIC, TANH, SOFTMAX, QUANTIZE, DEQUANTIZE.
 * prepare() validates the tensors as TFLite Micro's Prepare functions do and
 * computes the kernel parameters with the kernels' *_prepare helpers (which
 * reproduce TFLite's float/double parameter math). */
#include "interp_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a prepare computes; act_emit turns it into the node's blob
 * (k_op_unary_blob). */
typedef struct act_node {
    uint32_t kind;            /* K_OP_* */
    int32_t n;              /* elements */
    int32_t outer, depth;   /* softmax rows */
    float lo, hi;           /* float relu range */
    float alpha, beta;      /* leaky relu, softmax */
    float scale;            /* quantize / dequantize */
    int32_t zp;
    k_relu_params relu;
    k_leaky_relu_params leaky;
    k_hard_swish_params hswish;
    k_sigmoid_s8_params sig8;
    k_sigmoid_s16_params sig16;
    k_softmax_s8_params sm8;
    k_softmax_s16_params sm16;
    k_requant_params req;
} act_node;

/* ---- helpers ---- */

/* Elementwise ops: the output shape is the input shape. */
static int check_same_shape(const graph_tensor *in, const graph_tensor *out, npuc_err *err)
{
    bool same = in->rank == out->rank;
    for (int32_t i = 0; same && i < in->rank; i++) same = in->shape[i] == out->shape[i];
    if (!same) {
        char a[96], b[96];
        interp_shape_str(out->shape, out->rank, a, sizeof a);
        interp_shape_str(in->shape, in->rank, b, sizeof b);
        return npuc_errf(err, NPUC_E_INVALID,
                         "output tensor '%s' has shape %s but the op produces %s (the input shape)",
                         interp_tname(out), a, b);
    }
    return NPUC_OK;
}

static int check_same_type(const graph_tensor *in, const graph_tensor *out, const char *op,
                           npuc_err *err)
{
    if (in->dtype != out->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s with input %s and output %s is not supported (types must match)", op,
                         interp_dt(in), interp_dt(out));
    return NPUC_OK;
}

static int need_zp(const graph_tensor *t, const char *what, int32_t zp, int32_t want, npuc_err *err)
{
    if (zp != want)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s tensor '%s' (%s) has zero point %d; expected %d",
                         what, interp_tname(t), interp_dt(t), (int)zp, (int)want);
    return NPUC_OK;
}

/* The act_node of a prepare, kept in n->params until act_emit replaces it
 * with the blob. */
static act_node *new_params(interp_node *n, npuc_err *err)
{
    act_node *a = interp_node_alloc(n, sizeof(act_node));
    if (!a) {
        npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        return NULL;
    }
    memset(a, 0, sizeof *a);
    a->n = (int32_t)graph_tensor_elems(interp_node_in_t(n, 0));
    n->params = a;
    return a;
}

/* Common start of the elementwise same-type ops: io, type, shape, params. */
static int prepare_unary(interp_node *n, const char *op, const graph_tensor **in,
                         const graph_tensor **out, act_node **a, npuc_err *err)
{
    int rc = interp_check_unary_io(n, in, out, err);
    if (rc) return rc;
    if ((rc = check_same_type(*in, *out, op, err))) return rc;
    if ((rc = check_same_shape(*in, *out, err))) return rc;
    *a = new_params(n, err);
    return *a ? NPUC_OK : NPUC_E_NOMEM;
}

static int unsupported_type(const char *op, const graph_tensor *t, const char *supported,
                            npuc_err *err)
{
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s is not supported for %s tensors (input '%s'); "
                     "supported: %s", op, interp_dt(t), interp_tname(t), supported);
}

/* ---- RELU, RELU6, RELU_N1_TO_1 ---- */

/* TFLite Micro has no RELU_N1_TO_1 and runs RELU6 without requantizing
 * (it clamps in the input's quantization and fails to prepare when 6.0 is
 * not representable). We follow TFLite: all three requantize input ->
 * output and clamp to the quantized range, which gives the same bytes as
 * TFLite Micro's RELU6 whenever input and output quantization agree.
 * i16: whether the op takes int16 (TFLite's RELU_0_TO_1 does not). */
static int relu_prepare_range(interp_node *n, const char *op, float lo, float hi, bool i16, npuc_err *err)
{
    const graph_tensor *in, *out;
    act_node *a;
    int rc = prepare_unary(n, op, &in, &out, &a, err);
    if (rc) return rc;
    a->lo = lo;
    a->hi = hi;
    if (in->dtype == GRAPH_F32) {
        a->kind = K_OP_RELU_F32;
        return NPUC_OK;
    }
    if (in->dtype != GRAPH_I8 && (in->dtype != GRAPH_I16 || !i16))
        return unsupported_type(op, in, i16 ? "float32, int8, int16" : "float32, int8", err);
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    if (in->dtype == GRAPH_I16) {
        if ((rc = need_zp(in, "input", izp, 0, err))) return rc;
        if ((rc = need_zp(out, "output", ozp, 0, err))) return rc;
    }
    int64_t qmin, qmax;
    interp_type_range(out->dtype, &qmin, &qmax);
    k_relu_prepare(is, izp, os, ozp, lo, hi, (int32_t)qmin, (int32_t)qmax, &a->relu);
    if (a->relu.shift > 31)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input scale %g / output scale %g is too large to requantize", (double)is,
                         (double)os);
    a->kind = in->dtype == GRAPH_I8 ? K_OP_RELU_S8 : K_OP_RELU_S16;
    return NPUC_OK;
}

static int relu_prepare(interp_node *n, npuc_err *err)
{
    return relu_prepare_range(n, "RELU", 0.0f, INFINITY, true, err);
}

static int relu6_prepare(interp_node *n, npuc_err *err)
{
    return relu_prepare_range(n, "RELU6", 0.0f, 6.0f, true, err);
}

static int relu1_prepare(interp_node *n, npuc_err *err)
{
    return relu_prepare_range(n, "RELU_N1_TO_1", -1.0f, 1.0f, true, err);
}

/* RELU_0_TO_1: TFLite Micro has none either; TFLite's kernel is RELU_N1_TO_1's
 * requantize-and-clamp with the range 0..1, for float32 and int8 only */
static int relu01_prepare(interp_node *n, npuc_err *err)
{
    return relu_prepare_range(n, "RELU_0_TO_1", 0.0f, 1.0f, false, err);
}

/* ---- LEAKY_RELU ---- */

static int leaky_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in, *out;
    act_node *a;
    int rc = prepare_unary(n, "LEAKY_RELU", &in, &out, &a, err);
    if (rc) return rc;
    a->alpha = n->op->opt.alpha;
    if (in->dtype == GRAPH_F32) {
        a->kind = K_OP_LEAKY_RELU_F32;
        return NPUC_OK;
    }
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16)
        return unsupported_type("LEAKY_RELU", in, "float32, int8, int16", err);
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    if (!isfinite(a->alpha))
        return npuc_errf(err, NPUC_E_INVALID, "alpha %g is not finite", (double)a->alpha);
    k_leaky_relu_prepare(is, izp, os, ozp, a->alpha, &a->leaky);
    if (a->leaky.mult_alpha == INT32_MIN)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "alpha %g gives an unrepresentable multiplier",
                         (double)a->alpha);
    a->kind = in->dtype == GRAPH_I8 ? K_OP_LEAKY_RELU_S8 : K_OP_LEAKY_RELU_S16;
    return NPUC_OK;
}

/* ---- HARD_SWISH ---- */

static int hswish_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in, *out;
    act_node *a;
    int rc = prepare_unary(n, "HARD_SWISH", &in, &out, &a, err);
    if (rc) return rc;
    if (in->dtype == GRAPH_F32) {
        a->kind = K_OP_HARD_SWISH_F32;
        return NPUC_OK;
    }
    if (in->dtype != GRAPH_I8) return unsupported_type("HARD_SWISH", in, "float32, int8", err);
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    if (k_hard_swish_prepare(is, izp, os, ozp, &a->hswish) != K_OK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input scale %g / output scale %g: the output multiplier needs a left "
                         "shift (TFLite requires input_scale / 128 < output_scale)",
                         (double)is, (double)os);
    a->kind = K_OP_HARD_SWISH_S8;
    return NPUC_OK;
}

/* ---- LOGISTIC, TANH ---- */

static int sigmoid_prepare(interp_node *n, bool is_tanh, npuc_err *err)
{
    const char *op = is_tanh ? "TANH" : "LOGISTIC";
    const graph_tensor *in, *out;
    act_node *a;
    int rc = prepare_unary(n, op, &in, &out, &a, err);
    if (rc) return rc;
    if (in->dtype == GRAPH_F32) {
        a->kind = is_tanh ? K_OP_TANH_F32 : K_OP_LOGISTIC_F32;
        return NPUC_OK;
    }
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16)
        return unsupported_type(op, in, "float32, int8, int16", err);
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    if (in->dtype == GRAPH_I8) {
        /* The kernels produce scale 1/256 zero point -128 (LOGISTIC) and
         * scale 1/128 zero point 0 (TANH). TFLite Micro checks only
         * LOGISTIC's output zero point (TFLite also checks the scales and
         * TANH's zero point); we follow TFLite Micro. */
        if (!is_tanh && (rc = need_zp(out, "output", ozp, -128, err))) return rc;
        k_sigmoid_s8_prepare(is, izp, &a->sig8);
        a->kind = is_tanh ? K_OP_TANH_S8 : K_OP_LOGISTIC_S8;
        return NPUC_OK;
    }
    if ((rc = need_zp(in, "input", izp, 0, err))) return rc;
    if ((rc = need_zp(out, "output", ozp, 0, err))) return rc;
    int32_t l2 = 0;
    if (!k_checked_log2(os, &l2) || l2 != -15)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "output tensor '%s' scale %g is not supported (int16 %s needs 2^-15)",
                         interp_tname(out), (double)os, op);
    if (k_sigmoid_s16_prepare(is, is_tanh, &a->sig16) != K_OK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input tensor '%s' scale %g is too large for int16 %s (at most ~2.67)",
                         interp_tname(in), (double)is, op);
    a->kind = is_tanh ? K_OP_TANH_S16 : K_OP_LOGISTIC_S16;
    return NPUC_OK;
}

static int logistic_prepare(interp_node *n, npuc_err *err) { return sigmoid_prepare(n, false, err); }

static int tanh_prepare(interp_node *n, npuc_err *err) { return sigmoid_prepare(n, true, err); }

/* ---- SOFTMAX ---- */

static bool near_f(float a, float b, float eps)
{
    float d = a > b ? a - b : b - a;
    return !(d > eps);
}

static int softmax_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in, *out;
    int rc = interp_check_unary_io(n, &in, &out, err);
    if (rc) return rc;
    if (in->rank < 1)
        return npuc_errf(err, NPUC_E_INVALID, "input tensor '%s' must have rank >= 1", interp_tname(in));
    if ((rc = check_same_shape(in, out, err))) return rc;
    act_node *a = new_params(n, err);
    if (!a) return NPUC_E_NOMEM;
    a->beta = n->op->opt.beta;
    a->depth = in->shape[in->rank - 1];
    a->outer = a->depth ? a->n / a->depth : 0;
    if (in->dtype == GRAPH_F32 && out->dtype == GRAPH_F32) {
        a->kind = K_OP_SOFTMAX_F32;
        return NPUC_OK;
    }
    bool ok = (in->dtype == GRAPH_I8 && (out->dtype == GRAPH_I8 || out->dtype == GRAPH_I16)) ||
              (in->dtype == GRAPH_I16 && out->dtype == GRAPH_I16);
    if (!ok)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "SOFTMAX with input %s and output %s is not supported (supported: "
                         "float32->float32, int8->int8, int8->int16, int16->int16)",
                         interp_dt(in), interp_dt(out));
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    if (!isfinite(a->beta))
        return npuc_errf(err, NPUC_E_INVALID, "beta %g is not finite", (double)a->beta);
    if (in->dtype == GRAPH_I16) {
        if ((rc = need_zp(in, "input", izp, 0, err))) return rc;
        if ((rc = need_zp(out, "output", ozp, 0, err))) return rc;
        if (!near_f(os, 1.0f / 32768, 0.001f * 1.0f / 32768))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "output tensor '%s' scale %g is not supported (int16 SOFTMAX needs "
                             "1/32768)", interp_tname(out), (double)os);
        if (k_softmax_s16_prepare(is, a->beta, &a->sm16) != K_OK)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input scale %g with beta %g is out of the supported range",
                             (double)is, (double)a->beta);
        int16_t *luts = interp_node_alloc(n, 2 * K_SOFTMAX_LUT_SIZE * sizeof(int16_t));
        if (!luts) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        k_softmax_s16_luts(luts, luts + K_SOFTMAX_LUT_SIZE);
        a->sm16.exp_lut = luts;
        a->sm16.one_over_one_plus_x_lut = luts + K_SOFTMAX_LUT_SIZE;
        a->kind = K_OP_SOFTMAX_S16;
        return NPUC_OK;
    }
    if (out->dtype == GRAPH_I16) {
        if ((rc = need_zp(out, "output", ozp, -32768, err))) return rc;
        if (!near_f(os, 1.0f / 65536, 0.001f * 1.0f / 65536))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "output tensor '%s' scale %g is not supported (int8->int16 SOFTMAX "
                             "needs 1/65536)", interp_tname(out), (double)os);
    } else {
        if ((rc = need_zp(out, "output", ozp, -128, err))) return rc;
        if (os != 1.0f / 256)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "output tensor '%s' scale %g is not supported (int8 SOFTMAX needs "
                             "1/256)", interp_tname(out), (double)os);
    }
    if (k_softmax_s8_prepare(is, a->beta, &a->sm8) != K_OK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input scale %g with beta %g is out of the supported range (beta * scale "
                         "must be in (2^-26, 32))", (double)is, (double)a->beta);
    a->kind = out->dtype == GRAPH_I8 ? K_OP_SOFTMAX_S8 : K_OP_SOFTMAX_S8_S16;
    return NPUC_OK;
}

/* ---- QUANTIZE, DEQUANTIZE ---- */

static int quantize_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in, *out;
    int rc = interp_check_unary_io(n, &in, &out, err);
    if (rc) return rc;
    if ((rc = check_same_shape(in, out, err))) return rc;
    act_node *a = new_params(n, err);
    if (!a) return NPUC_E_NOMEM;
    float os;
    int32_t ozp;
    if (in->dtype == GRAPH_F32) {
        if (out->dtype != GRAPH_I8 && out->dtype != GRAPH_U8 && out->dtype != GRAPH_I16)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "QUANTIZE from float32 to %s is not supported (supported outputs: "
                             "int8, uint8, int16)", interp_dt(out));
        if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
        a->scale = os;
        a->zp = ozp;
        a->kind = out->dtype == GRAPH_I8 ? K_OP_QUANTIZE_F32_S8
                  : out->dtype == GRAPH_U8 ? K_OP_QUANTIZE_F32_U8 : K_OP_QUANTIZE_F32_S16;
        return NPUC_OK;
    }
    static const struct { graph_dtype in, out; uint32_t kind; } combos[] = {
        {GRAPH_I8, GRAPH_I8, K_OP_REQUANT_S8_S8},     {GRAPH_I8, GRAPH_U8, K_OP_REQUANT_S8_U8},
        {GRAPH_U8, GRAPH_I8, K_OP_REQUANT_U8_S8},     {GRAPH_I8, GRAPH_I16, K_OP_REQUANT_S8_S16},
        {GRAPH_I8, GRAPH_I32, K_OP_REQUANT_S8_S32},   {GRAPH_I16, GRAPH_I8, K_OP_REQUANT_S16_S8},
        {GRAPH_I16, GRAPH_I16, K_OP_REQUANT_S16_S16}, {GRAPH_I16, GRAPH_I32, K_OP_REQUANT_S16_S32},
        {GRAPH_I32, GRAPH_I8, K_OP_REQUANT_S32_S8},   {GRAPH_I32, GRAPH_I16, K_OP_REQUANT_S32_S16},
    };
    uint32_t kind = K_OP_NONE;
    for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++)
        if (combos[i].in == in->dtype && combos[i].out == out->dtype) kind = combos[i].kind;
    if (kind == K_OP_NONE)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "QUANTIZE from %s to %s is not supported (supported: float32->int8/uint8/"
                         "int16, int8->int8/uint8/int16/int32, uint8->int8, int16->int8/int16/"
                         "int32, int32->int8/int16)", interp_dt(in), interp_dt(out));
    float is;
    int32_t izp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    k_requant_prepare(is, izp, os, ozp, &a->req);
    if (a->req.shift > 31)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input scale %g / output scale %g is too large to requantize", (double)is,
                         (double)os);
    a->kind = kind;
    return NPUC_OK;
}

static int dequantize_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in, *out;
    int rc = interp_check_unary_io(n, &in, &out, err);
    if (rc) return rc;
    if ((rc = check_same_shape(in, out, err))) return rc;
    if (out->dtype != GRAPH_F32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "DEQUANTIZE to %s is not supported (output must be float32)", interp_dt(out));
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_U8 && in->dtype != GRAPH_I16)
        return unsupported_type("DEQUANTIZE", in, "int8, uint8, int16", err);
    act_node *a = new_params(n, err);
    if (!a) return NPUC_E_NOMEM;
    if ((rc = interp_qparams(in, "input", &a->scale, &a->zp, err))) return rc;
    a->kind = in->dtype == GRAPH_I8 ? K_OP_DEQUANTIZE_S8_F32 : in->dtype == GRAPH_U8 ? K_OP_DEQUANTIZE_U8_F32 : K_OP_DEQUANTIZE_S16_F32;
    return NPUC_OK;
}

/* ---- the blob ---- */

static int act_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const act_node *a = n->params;
    const uint32_t head = k_op_align(sizeof(k_op_unary_blob));
    const size_t luts = a->kind == K_OP_SOFTMAX_S16 ? 2 * K_SOFTMAX_LUT_SIZE * sizeof(int16_t) : 0;
    uint8_t *blob = interp_node_blob(n, a->kind, luts ? head + luts : sizeof(k_op_unary_blob));
    if (!blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    k_op_unary_blob b = {.n = a->n, .outer = a->outer, .depth = a->depth, .lo = a->lo, .hi = a->hi,
                         .alpha = a->alpha, .beta = a->beta, .scale = a->scale, .zp = a->zp};
    switch (a->kind) {
    case K_OP_RELU_S8: case K_OP_RELU_S16: b.p.relu = a->relu; break;
    case K_OP_LEAKY_RELU_S8: case K_OP_LEAKY_RELU_S16: b.p.leaky = a->leaky; break;
    case K_OP_HARD_SWISH_S8:
        b.p.hswish = (k_op_hard_swish){.input_zero_point = a->hswish.input_zero_point,
                                       .output_zero_point = a->hswish.output_zero_point,
                                       .reluish_mult = a->hswish.reluish_mult,
                                       .reluish_shift = a->hswish.reluish_shift,
                                       .output_mult = a->hswish.output_mult,
                                       .output_shift = a->hswish.output_shift};
        break;
    case K_OP_LOGISTIC_S8: case K_OP_TANH_S8: b.p.sig8 = a->sig8; break;
    case K_OP_LOGISTIC_S16: case K_OP_TANH_S16: b.p.sig16 = a->sig16; break;
    case K_OP_SOFTMAX_S8: case K_OP_SOFTMAX_S8_S16: b.p.sm8 = a->sm8; break;
    case K_OP_SOFTMAX_S16:
        b.p.sm16.input_multiplier = a->sm16.input_multiplier;
        b.p.sm16.input_left_shift = a->sm16.input_left_shift;
        b.lut_off = head;
        memcpy(blob + head, a->sm16.exp_lut, K_SOFTMAX_LUT_SIZE * sizeof(int16_t));
        memcpy(blob + head + K_SOFTMAX_LUT_SIZE * sizeof(int16_t), a->sm16.one_over_one_plus_x_lut,
               K_SOFTMAX_LUT_SIZE * sizeof(int16_t));
        break;
    case K_OP_REQUANT_S8_S8: case K_OP_REQUANT_S8_U8: case K_OP_REQUANT_U8_S8: case K_OP_REQUANT_S8_S16:
    case K_OP_REQUANT_S8_S32: case K_OP_REQUANT_S16_S8: case K_OP_REQUANT_S16_S16: case K_OP_REQUANT_S16_S32:
    case K_OP_REQUANT_S32_S8: case K_OP_REQUANT_S32_S16:
        b.p.req = a->req;
        break;
    default: break;
    }
    memcpy(blob, &b, sizeof b);
    return NPUC_OK;
}

#define ACT_OP(name)                                                                     \
    static int name##_op(interp_node *n, npuc_err *err) { return act_emit(n, name##_prepare(n, err), err); }
ACT_OP(relu)
ACT_OP(relu6)
ACT_OP(relu1)
ACT_OP(relu01)
ACT_OP(leaky)
ACT_OP(hswish)
ACT_OP(logistic)
ACT_OP(tanh)
ACT_OP(softmax)
ACT_OP(quantize)
ACT_OP(dequantize)
#undef ACT_OP

static const interp_op_impl table[] = {
    {TFL_OP_RELU, relu_op, NULL},
    {TFL_OP_RELU6, relu6_op, NULL},
    {TFL_OP_RELU_N1_TO_1, relu1_op, NULL},
    {TFL_OP_RELU_0_TO_1, relu01_op, NULL},
    {TFL_OP_LEAKY_RELU, leaky_op, NULL},
    {TFL_OP_HARD_SWISH, hswish_op, NULL},
    {TFL_OP_LOGISTIC, logistic_op, NULL},
    {TFL_OP_TANH, tanh_op, NULL},
    {TFL_OP_SOFTMAX, softmax_op, NULL},
    {TFL_OP_QUANTIZE, quantize_op, NULL},
    {TFL_OP_DEQUANTIZE, dequantize_op, NULL},
};

INTERP_OPS_TABLE(interp_ops_activation, table)
