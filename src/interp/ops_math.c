/* Interpreter bindings of the math family: elementwise math and type ops: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, ELU, CAST, ZEROS_LIKE, LOGICAL_NOT, L2_NORMALIZATION, LOG_SOFTMAX.
 * prepare() accepts what TFLite Micro's Prepare/Eval accept (types,
 * quantization) and computes the parameters with TFLite's float/double
 * math (docs/kernels-math.md). */
#include "interp_ops.h"

#include <math.h>
#include <string.h>

static int check_same_shape(const graph_tensor *in, const graph_tensor *out, npuc_err *err)
{
    bool same = in->rank == out->rank;
    for (int32_t i = 0; same && i < in->rank; i++) same = in->shape[i] == out->shape[i];
    if (!same)
        return npuc_errf(err, NPUC_E_INVALID,
                         "output tensor '%s' (rank %d) does not have the shape of input tensor '%s' (rank %d)",
                         interp_tname(out), (int)out->rank, interp_tname(in), (int)in->rank);
    return NPUC_OK;
}

static int check_same_type(const char *op, const graph_tensor *in, const graph_tensor *out, npuc_err *err)
{
    if (in->dtype != out->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s with input '%s' %s and output '%s' %s is not supported (types must match)", op,
                         interp_tname(in), interp_dt(in), interp_tname(out), interp_dt(out));
    return NPUC_OK;
}

static int unsupported_type(const char *op, const graph_tensor *t, const char *supported, npuc_err *err)
{
    return npuc_errf(err, NPUC_E_UNSUPPORTED,
                     "%s is not supported for %s tensors (input '%s'); TFLite Micro supports: %s", op, interp_dt(t),
                     interp_tname(t), supported);
}

/* Allocates the node's blob (plus `extra` bytes of arrays) and stores b. */
static int emit(interp_node *n, uint32_t kind, k_op_math_blob *b, const void *extra, uint32_t extra_size,
                npuc_err *err)
{
    const uint32_t head = k_op_align(sizeof(k_op_math_blob));
    if (extra_size) b->lut_off = head;
    uint8_t *blob = interp_node_blob(n, kind, extra_size ? head + extra_size : sizeof(k_op_math_blob));
    if (!blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    memcpy(blob, b, sizeof *b);
    if (extra_size) memcpy(blob + head, extra, extra_size);
    return NPUC_OK;
}

/* Common start: io, same type, same shape; b->n set. */
static int start(interp_node *n, const char *op, const graph_tensor **in, const graph_tensor **out,
                 k_op_math_blob *b, npuc_err *err)
{
    int rc = interp_check_unary_io(n, in, out, err);
    if (rc) return rc;
    if ((rc = check_same_type(op, *in, *out, err))) return rc;
    if ((rc = check_same_shape(*in, *out, err))) return rc;
    memset(b, 0, sizeof *b);
    b->n = (int32_t)graph_tensor_elems(*in);
    return NPUC_OK;
}

/* ---- float-only ops ---- */

static int float_op(interp_node *n, const char *op, uint32_t kind, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, op, &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype != GRAPH_F32) return unsupported_type(op, in, "float32", err);
    return emit(n, kind, &b, NULL, 0, err);
}

#define FLOAT_OP(fn, NAME, KIND) \
    static int fn(interp_node *n, npuc_err *err) { return float_op(n, NAME, KIND, err); }
FLOAT_OP(neg_prepare, "NEG", K_OP_NEG_F32)
FLOAT_OP(ceil_prepare, "CEIL", K_OP_CEIL_F32)
FLOAT_OP(floor_prepare, "FLOOR", K_OP_FLOOR_F32)
FLOAT_OP(round_prepare, "ROUND", K_OP_ROUND_F32)
FLOAT_OP(sqrt_prepare, "SQRT", K_OP_SQRT_F32)
FLOAT_OP(square_prepare, "SQUARE", K_OP_SQUARE_F32)
FLOAT_OP(exp_prepare, "EXP", K_OP_EXP_F32)
FLOAT_OP(log_prepare, "LOG", K_OP_LOG_F32)
FLOAT_OP(sin_prepare, "SIN", K_OP_SIN_F32)
FLOAT_OP(cos_prepare, "COS", K_OP_COS_F32)
#undef FLOAT_OP

/* ---- ABS, RSQRT ---- */

/* Quantized int8/int16 ABS or RSQRT: both tensors quantized, int16 zero
 * points 0 (TFLite Micro's PrepareAbsRsqrt). */
static int abs_rsqrt_q(const char *op, const graph_tensor *in, const graph_tensor *out, float *is, float *os,
                       k_op_math_blob *b, npuc_err *err)
{
    int rc;
    if ((rc = interp_qparams(in, "input", is, &b->in_zp, err))) return rc;
    if ((rc = interp_qparams(out, "output", os, &b->out_zp, err))) return rc;
    if (in->dtype == GRAPH_I16 && (b->in_zp != 0 || b->out_zp != 0))
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s int16 needs zero points 0 (input '%s' has %d, output '%s' has %d)", op, interp_tname(in),
                         (int)b->in_zp, interp_tname(out), (int)b->out_zp);
    return NPUC_OK;
}

static int abs_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "ABS", &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype == GRAPH_F32) return emit(n, K_OP_ABS_F32, &b, NULL, 0, err);
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16) return unsupported_type("ABS", in, "float32, int8, int16", err);
    /* int16 without quantization is a plain integer abs. */
    if (in->dtype == GRAPH_I16 && in->q.n == 0) return emit(n, K_OP_ABS_S16_RAW, &b, NULL, 0, err);
    float is, os;
    if ((rc = abs_rsqrt_q("ABS", in, out, &is, &os, &b, err))) return rc;
    b.rescale = is != os;
    if (b.rescale) {
        k_quantize_multiplier((double)is / (double)os, &b.mult, &b.shift);
        if (b.shift > 31)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "input scale %g / output scale %g is too large to requantize",
                             (double)is, (double)os);
    }
    return emit(n, in->dtype == GRAPH_I8 ? K_OP_ABS_S8 : K_OP_ABS_S16, &b, NULL, 0, err);
}

static int rsqrt_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "RSQRT", &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype == GRAPH_F32) return emit(n, K_OP_RSQRT_F32, &b, NULL, 0, err);
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16)
        return unsupported_type("RSQRT", in, "float32, int8, int16 (quantized)", err);
    if (in->q.n == 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "RSQRT %s needs a quantized input; input '%s' has no quantization",
                         interp_dt(in), interp_tname(in));
    float is, os;
    if ((rc = abs_rsqrt_q("RSQRT", in, out, &is, &os, &b, err))) return rc;
    k_quantize_multiplier(1.0 / (sqrt((double)is) * (double)os), &b.mult, &b.shift);
    if (b.shift < -11 || b.shift > 51)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "RSQRT scales (input %g, output %g) are out of the supported range",
                         (double)is, (double)os);
    return emit(n, in->dtype == GRAPH_I8 ? K_OP_RSQRT_S8 : K_OP_RSQRT_S16, &b, NULL, 0, err);
}

/* ---- ELU ---- */

static int elu_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "ELU", &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype == GRAPH_F32) return emit(n, K_OP_ELU_F32, &b, NULL, 0, err);
    if (in->dtype != GRAPH_I8) return unsupported_type("ELU", in, "float32, int8", err);
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    int8_t lut[256];
    k_elu_s8_lut(is, izp, os, ozp, lut);
    return emit(n, K_OP_ELU_S8, &b, lut, sizeof lut, err);
}

/* ---- CAST ---- */

static int32_t cast_type(graph_dtype d, bool output)
{
    switch (d) {
    case GRAPH_I8: return K_MATH_T_S8;
    case GRAPH_U8: return K_MATH_T_U8;
    case GRAPH_I16: return K_MATH_T_S16;
    case GRAPH_I32: return K_MATH_T_S32;
    case GRAPH_U32: return K_MATH_T_U32;
    case GRAPH_F32: return K_MATH_T_F32;
    case GRAPH_BOOL: return output ? 0 : K_MATH_T_BOOL;
    default: return 0;
    }
}

static int cast_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    int rc = interp_check_unary_io(n, &in, &out, err);
    if (rc) return rc;
    if (graph_tensor_elems(in) != graph_tensor_elems(out))
        return npuc_errf(err, NPUC_E_INVALID, "output tensor '%s' has %zu elements but input tensor '%s' has %zu",
                         interp_tname(out), graph_tensor_elems(out), interp_tname(in), graph_tensor_elems(in));
    k_op_math_blob b;
    memset(&b, 0, sizeof b);
    b.n = (int32_t)graph_tensor_elems(in);
    b.src_type = cast_type(in->dtype, false);
    b.dst_type = cast_type(out->dtype, true);
    if (!b.src_type)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "CAST from %s (input '%s') is not supported; npuc casts from int8, uint8, int16, int32, "
                         "uint32, float32, bool",
                         interp_dt(in), interp_tname(in));
    if (!b.dst_type)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "CAST to %s (output '%s') is not supported; npuc casts to int8, uint8, int16, int32, "
                         "uint32, float32",
                         interp_dt(out), interp_tname(out));
    return emit(n, K_OP_CAST, &b, NULL, 0, err);
}

/* ---- ZEROS_LIKE, LOGICAL_NOT ---- */

static int zeros_like_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "ZEROS_LIKE", &in, &out, &b, err);
    if (rc) return rc;
    switch (in->dtype) {
    case GRAPH_I8: return emit(n, K_OP_ZEROS_X8, &b, NULL, 0, err);
    case GRAPH_I32: case GRAPH_F32: return emit(n, K_OP_ZEROS_X32, &b, NULL, 0, err);
    case GRAPH_I64: return emit(n, K_OP_ZEROS_X64, &b, NULL, 0, err);
    default: return unsupported_type("ZEROS_LIKE", in, "int64, int32, int8, float32", err);
    }
}

static int logical_not_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "LOGICAL_NOT", &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype != GRAPH_BOOL) return unsupported_type("LOGICAL_NOT", in, "bool", err);
    return emit(n, K_OP_LOGICAL_NOT_B8, &b, NULL, 0, err);
}

/* ---- L2_NORMALIZATION, LOG_SOFTMAX: rows over the last dimension ---- */

static int rows(const char *op, const graph_tensor *in, k_op_math_blob *b, npuc_err *err)
{
    if (in->rank < 1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s needs an input of rank >= 1 (input '%s' is a scalar)", op,
                         interp_tname(in));
    int64_t outer = 1;
    for (int32_t i = 0; i + 1 < in->rank; i++) outer *= in->shape[i];
    b->outer = (int32_t)outer;
    b->depth = in->shape[in->rank - 1];
    return NPUC_OK;
}

static int l2norm_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "L2_NORMALIZATION", &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype != GRAPH_F32 && in->dtype != GRAPH_I8)
        return unsupported_type("L2_NORMALIZATION", in, "float32, int8", err);
    if (in->rank > 4)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "L2_NORMALIZATION input '%s' has rank %d; TFLite Micro allows <= 4",
                         interp_tname(in), (int)in->rank);
    if (n->op->opt.activation != 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "L2_NORMALIZATION with a fused activation (%d) is not supported (TFLite Micro: NONE only)",
                         (int)n->op->opt.activation);
    if ((rc = rows("L2_NORMALIZATION", in, &b, err))) return rc;
    if (in->dtype == GRAPH_F32) return emit(n, K_OP_L2NORM_F32, &b, NULL, 0, err);
    /* The int8 output is always in Q(1/128, 0); TFLite Micro does not check
     * the output tensor's parameters, neither do we. */
    float is;
    if ((rc = interp_qparams(in, "input", &is, &b.in_zp, err))) return rc;
    return emit(n, K_OP_L2NORM_S8, &b, NULL, 0, err);
}

static int log_softmax_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = NULL, *out = NULL;
    k_op_math_blob b;
    int rc = start(n, "LOG_SOFTMAX", &in, &out, &b, err);
    if (rc) return rc;
    if (in->dtype != GRAPH_F32 && in->dtype != GRAPH_I8) return unsupported_type("LOG_SOFTMAX", in, "float32, int8", err);
    if ((rc = rows("LOG_SOFTMAX", in, &b, err))) return rc;
    if (in->dtype == GRAPH_F32) return emit(n, K_OP_LOG_SOFTMAX_F32, &b, NULL, 0, err);
    float is, os;
    int32_t izp, ozp;
    if ((rc = interp_qparams(in, "input", &is, &izp, err))) return rc;
    if ((rc = interp_qparams(out, "output", &os, &ozp, err))) return rc;
    if (os != 16.0f / 256.0f || ozp != 127)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "LOG_SOFTMAX int8 output '%s' must be quantized with scale 16/256 and zero point 127 "
                         "(has %g, %d)",
                         interp_tname(out), (double)os, (int)ozp);
    if (k_log_softmax_s8_prepare(is, &b))
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "LOG_SOFTMAX input '%s' scale %g is out of the supported range",
                         interp_tname(in), (double)is);
    return emit(n, K_OP_LOG_SOFTMAX_S8, &b, NULL, 0, err);
}

static const interp_op_impl impls[] = {
    {TFL_OP_ABS, abs_prepare, NULL},
    {TFL_OP_NEG, neg_prepare, NULL},
    {TFL_OP_CEIL, ceil_prepare, NULL},
    {TFL_OP_FLOOR, floor_prepare, NULL},
    {TFL_OP_ROUND, round_prepare, NULL},
    {TFL_OP_SQRT, sqrt_prepare, NULL},
    {TFL_OP_RSQRT, rsqrt_prepare, NULL},
    {TFL_OP_SQUARE, square_prepare, NULL},
    {TFL_OP_EXP, exp_prepare, NULL},
    {TFL_OP_LOG, log_prepare, NULL},
    {TFL_OP_SIN, sin_prepare, NULL},
    {TFL_OP_COS, cos_prepare, NULL},
    {TFL_OP_ELU, elu_prepare, NULL},
    {TFL_OP_CAST, cast_prepare, NULL},
    {TFL_OP_ZEROS_LIKE, zeros_like_prepare, NULL},
    {TFL_OP_LOGICAL_NOT, logical_not_prepare, NULL},
    {TFL_OP_L2_NORMALIZATION, l2norm_prepare, NULL},
    {TFL_OP_LOG_SOFTMAX, log_softmax_prepare, NULL},
};

INTERP_OPS_TABLE(interp_ops_math, impls)
