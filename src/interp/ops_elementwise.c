/* Interpreter bindings: AVERAGE_POOL_2D, MAX_POOL_2D, ADD, SUB, MUL,
 * MINIMUM, MAXIMUM, MEAN. Parameter preparation follows TFLite Micro
 * (add_common.cc, sub_common.cc, mul_common.cc, pooling_common.cc,
 * reduce_common.cc); where TFLite and TFLite Micro differ it is noted. */
#include "interp_ops.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- shared checks ----------------------------------------------------------- */

static const char *act_name(int32_t act)
{
    switch (act) {
    case TFL_ACT_NONE: return "NONE";
    case TFL_ACT_RELU: return "RELU";
    case TFL_ACT_RELU_N1_TO_1: return "RELU_N1_TO_1";
    case TFL_ACT_RELU6: return "RELU6";
    case TFL_ACT_TANH: return "TANH";
    case TFL_ACT_SIGN_BIT: return "SIGN_BIT";
    }
    return "unknown";
}

static int check_rank(const graph_tensor *t, const char *what, npuc_err *err)
{
    if (t->rank > K_MAX_DIMS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' has rank %d; at most %d dims are supported", what,
                         interp_tname(t), t->rank, K_MAX_DIMS);
    return NPUC_OK;
}

static bool is_quant_type(graph_dtype d) { return d == GRAPH_I8 || d == GRAPH_I16; }

static int check_act(int32_t act, npuc_err *err)
{
    if (act < TFL_ACT_NONE || act > TFL_ACT_RELU6)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "fused activation %s is not supported", act_name(act));
    return NPUC_OK;
}

static void act_range_q(int32_t act, const graph_tensor *out, int32_t *lo, int32_t *hi)
{
    int32_t qmin = out->dtype == GRAPH_I8 ? INT8_MIN : INT16_MIN;
    int32_t qmax = out->dtype == GRAPH_I8 ? INT8_MAX : INT16_MAX;
    k_activation_range_q(act, out->q.scale[0], (int32_t)out->q.zero_point[0], qmin, qmax, lo, hi);
}

/* TFLite CalculateActivationRange<float> (shared with the other kernels). */
static void act_range_f(int32_t act, k_act_f32 *a) { k_activation_range_f(act, &a->min, &a->max); }

/* TFLite CalculateActivationRange<int32_t>. */
static void act_range_i32(int32_t act, k_act_s32 *a)
{
    a->min = INT32_MIN;
    a->max = INT32_MAX;
    if (act == TFL_ACT_RELU) {
        a->min = 0;
    } else if (act == TFL_ACT_RELU6) {
        a->min = 0;
        a->max = 6;
    } else if (act == TFL_ACT_RELU_N1_TO_1) {
        a->min = -1;
        a->max = 1;
    }
}

/* ---- binary elementwise ops ------------------------------------------------------ */

typedef struct ew_params {
    uint32_t kind;
    k_dims d1, d2, dout;
    k_add_params add;
    k_add_pot_params pot;
    k_mul_params mul;
    k_act_f32 actf;
    k_act_s32 acti;
} ew_params;

/* Common checks for two-input ops: counts, ranks, same dtypes, broadcast
 * output shape. Fills the dims. */
static int binary_common(interp_node *n, ew_params *p, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    if ((rc = check_rank(a, "input 1", err)) || (rc = check_rank(b, "input 2", err)) ||
        (rc = check_rank(o, "output", err)))
        return rc;
    if (a->dtype != b->dtype || a->dtype != o->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "mixed types are not supported (input 1 %s, input 2 %s, output %s)",
                         graph_dtype_name(a->dtype), graph_dtype_name(b->dtype), graph_dtype_name(o->dtype));
    interp_dims(a, &p->d1);
    interp_dims(b, &p->d2);
    interp_dims(o, &p->dout);
    k_dims want;
    char s1[96], s2[96];
    if (k_broadcast_shape(&p->d1, &p->d2, &want) != K_OK) {
        interp_shape_str(a->shape, a->rank, s1, sizeof s1);
        interp_shape_str(b->shape, b->rank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "input shapes %s and %s cannot be broadcast together", s1, s2);
    }
    bool same = want.rank == p->dout.rank;
    for (int32_t i = 0; same && i < want.rank; i++) same = want.d[i] == p->dout.d[i];
    if (!same) {
        interp_shape_str(want.d, want.rank, s1, sizeof s1);
        interp_shape_str(o->shape, o->rank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s but the broadcast of the inputs is %s", interp_tname(o),
                         s2, s1);
    }
    if (is_quant_type(a->dtype)) {
        if ((rc = interp_check_quant(a, "input 1", "out of", err)) || (rc = interp_check_quant(b, "input 2", "out of", err)) ||
            (rc = interp_check_quant(o, "output", "out of", err)))
            return rc;
    }
    return NPUC_OK;
}

static int unsupported_type(const graph_tensor *t, const char *op, npuc_err *err)
{
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s with %s tensors is not supported (input '%s')", op,
                     graph_dtype_name(t->dtype), interp_tname(t));
}

static int int32_unquantized(interp_node *n, npuc_err *err)
{
    for (int32_t i = 0; i < 3; i++) {
        const graph_tensor *t = i < 2 ? interp_node_in_t(n, i) : interp_node_out_t(n, 0);
        if (t->q.n != 0)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "quantized int32 tensor '%s' is not supported (only plain int32)",
                             interp_tname(t));
    }
    return NPUC_OK;
}

/* TFLite CheckedLog2: log2 in float, rounded; power of two when the
 * fractional part is below 1e-3. */
static bool checked_log2(float x, int32_t *out)
{
    const float l = logf(x) * (1.0f / logf(2.0f));
    const float r = roundf(l);
    *out = (int32_t)r;
    return fabsf(l - r) < 1e-3f;
}

/* General quantized ADD/SUB parameters, computed in double from the float
 * scales as TFLite's add.cc / sub.cc and TFLite Micro's add_common.cc do.
 * Deviation: TFLite Micro's sub_common.cc computes twice_max_input_scale and
 * the three ratios in float and only then widens them to double; that
 * changes the last multiplier bit for some scales and disagrees with the
 * seanet SUB goldens (3 of 5 models differ by 1 LSB), which match the double
 * computation. npuc uses double for both ADD and SUB. */
static int addsub_general(const graph_tensor *a, const graph_tensor *b, const graph_tensor *o, int32_t act,
                          k_add_params *p, npuc_err *err)
{
    const float s1 = a->q.scale[0], s2 = b->q.scale[0], so = o->q.scale[0];
    p->left_shift = o->dtype == GRAPH_I16 ? 15 : 20;
    p->in1_offset = -(int32_t)a->q.zero_point[0];
    p->in2_offset = -(int32_t)b->q.zero_point[0];
    p->out_offset = (int32_t)o->q.zero_point[0];
    const double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
    const double r1 = (double)s1 / twice_max;
    const double r2 = (double)s2 / twice_max;
    const double ro = twice_max / ((double)(1 << p->left_shift) * (double)so);
    /* QuantizeMultiplierSmallerThanOneExp: each ratio must be in (0, 1). */
    const double r[3] = {r1, r2, ro};
    int32_t *m[3] = {&p->in1_mult, &p->in2_mult, &p->out_mult};
    int32_t *s[3] = {&p->in1_shift, &p->in2_shift, &p->out_shift};
    for (int i = 0; i < 3; i++) {
        if (!(r[i] > 0.0 && r[i] < 1.0))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "rescale factor %g is outside (0, 1) (output scale %g is too small for input scales %g, %g)",
                             r[i], (double)so, (double)s1, (double)s2);
        k_quantize_multiplier(r[i], m[i], s[i]);
        if (*s[i] > 0)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "rescale factor %g does not give a right shift", r[i]);
    }
    act_range_q(act, o, &p->act_min, &p->act_max);
    return NPUC_OK;
}

static int addsub_prepare(interp_node *n, ew_params *p, bool is_sub, npuc_err *err)
{
    int rc = binary_common(n, p, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    const int32_t act = n->op->opt.activation;
    if ((rc = check_act(act, err))) return rc;
    const char *opname = is_sub ? "SUB" : "ADD";
    switch (a->dtype) {
    case GRAPH_F32:
        p->kind = is_sub ? K_OP_SUB_F32 : K_OP_ADD_F32;
        act_range_f(act, &p->actf);
        return NPUC_OK;
    case GRAPH_I32:
        if ((rc = int32_unquantized(n, err))) return rc;
        p->kind = is_sub ? K_OP_SUB_S32 : K_OP_ADD_S32;
        /* TFLite Micro applies the fused activation to int32 SUB but not to
         * int32 ADD (add.cc clamps to the full int32 range; TFLite applies
         * it). */
        if (is_sub) {
            act_range_i32(act, &p->acti);
        } else {
            p->acti.min = INT32_MIN;
            p->acti.max = INT32_MAX;
        }
        return NPUC_OK;
    case GRAPH_I8:
        p->kind = is_sub ? K_OP_SUB_S8 : K_OP_ADD_S8;
        return addsub_general(a, b, o, act, &p->add, err);
    case GRAPH_I16: {
        /* TFLite (add.cc / sub.cc) takes the power-of-two path when the
         * pot_scale_int16 option is set and all three scales are powers of
         * two; otherwise the general path with left_shift 15. TFLite Micro
         * always takes the general path. npuc follows TFLite's choice; the
         * seanet ADD/SUB scales are not powers of two, so both agree there. */
        int32_t l1 = 0, l2 = 0, lo = 0;
        bool pot = n->op->opt.pot_scale_int16 && checked_log2(a->q.scale[0], &l1) &&
                   checked_log2(b->q.scale[0], &l2) && checked_log2(o->q.scale[0], &lo);
        if (!pot) {
            p->kind = is_sub ? K_OP_SUB_S16 : K_OP_ADD_S16;
            return addsub_general(a, b, o, act, &p->add, err);
        }
        if (a->q.zero_point[0] != 0 || b->q.zero_point[0] != 0 || o->q.zero_point[0] != 0)
            return npuc_errf(err, NPUC_E_INVALID, "int16 %s with power-of-two scales needs zero points 0 (got %lld, %lld, %lld)",
                             opname, (long long)a->q.zero_point[0], (long long)b->q.zero_point[0],
                             (long long)o->q.zero_point[0]);
        p->pot.in1_shift = l1 - lo;
        p->pot.in2_shift = l2 - lo;
        if (!(p->pot.in1_shift == 0 || p->pot.in2_shift == 0) || p->pot.in1_shift > 0 || p->pot.in2_shift > 0 ||
            p->pot.in1_shift < -31 || p->pot.in2_shift < -31)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "int16 %s power-of-two path needs one input at the output scale and the other at a "
                             "smaller scale (shifts %d, %d)",
                             opname, p->pot.in1_shift, p->pot.in2_shift);
        /* TFLite's pot ADD has no broadcasting variant (it reads the inputs
         * as equal-sized); npuc broadcasts them the natural way. */
        p->kind = is_sub ? K_OP_SUB_S16_POT : K_OP_ADD_S16_POT;
        act_range_q(act, o, &p->pot.act_min, &p->pot.act_max);
        return NPUC_OK;
    }
    default: return unsupported_type(a, opname, err);
    }
}

/* The node's blob (k_op_binary_blob) after a successful prepare. */
static int binary_emit(interp_node *n, int rc, const ew_params *p, npuc_err *err)
{
    if (rc) return rc;
    k_op_binary_blob *b = interp_node_blob(n, p->kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->d1 = p->d1;
    b->d2 = p->d2;
    b->dout = p->dout;
    switch (p->kind) {
    case K_OP_ADD_S8: case K_OP_ADD_S16: case K_OP_SUB_S8: case K_OP_SUB_S16: b->p.add = p->add; break;
    case K_OP_ADD_S16_POT: case K_OP_SUB_S16_POT: b->p.pot = p->pot; break;
    case K_OP_MUL_S8: case K_OP_MUL_S16: b->p.mul = p->mul; break;
    case K_OP_ADD_F32: case K_OP_SUB_F32: case K_OP_MUL_F32: b->p.act_f32 = p->actf; break;
    case K_OP_ADD_S32: case K_OP_SUB_S32: case K_OP_MUL_S32: b->p.act_s32 = p->acti; break;
    default: break;
    }
    return NPUC_OK;
}

static int add_prepare(interp_node *n, npuc_err *err)
{
    ew_params p = {0};
    return binary_emit(n, addsub_prepare(n, &p, false, err), &p, err);
}

static int sub_prepare(interp_node *n, npuc_err *err)
{
    ew_params p = {0};
    return binary_emit(n, addsub_prepare(n, &p, true, err), &p, err);
}

static int mul_compute(interp_node *n, ew_params *p, npuc_err *err)
{
    int rc = binary_common(n, p, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    const int32_t act = n->op->opt.activation;
    if ((rc = check_act(act, err))) return rc;
    switch (a->dtype) {
    case GRAPH_F32:
        p->kind = K_OP_MUL_F32;
        act_range_f(act, &p->actf);
        return NPUC_OK;
    case GRAPH_I32:
        if ((rc = int32_unquantized(n, err))) return rc;
        p->kind = K_OP_MUL_S32;
        act_range_i32(act, &p->acti);
        return NPUC_OK;
    case GRAPH_I8:
    case GRAPH_I16: {
        if (a->dtype == GRAPH_I16 && (a->q.zero_point[0] || b->q.zero_point[0] || o->q.zero_point[0]))
            return npuc_errf(err, NPUC_E_INVALID, "int16 MUL needs zero points 0 (got %lld, %lld, %lld)",
                             (long long)a->q.zero_point[0], (long long)b->q.zero_point[0],
                             (long long)o->q.zero_point[0]);
        p->kind = a->dtype == GRAPH_I8 ? K_OP_MUL_S8 : K_OP_MUL_S16;
        const double real = (double)a->q.scale[0] * (double)b->q.scale[0] / (double)o->q.scale[0];
        k_quantize_multiplier(real, &p->mul.out_mult, &p->mul.out_shift);
        if (p->mul.out_shift < -31 || p->mul.out_shift > 30)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "MUL rescale factor %g is out of range", real);
        p->mul.in1_offset = -(int32_t)a->q.zero_point[0];
        p->mul.in2_offset = -(int32_t)b->q.zero_point[0];
        p->mul.out_offset = (int32_t)o->q.zero_point[0];
        act_range_q(act, o, &p->mul.act_min, &p->mul.act_max);
        return NPUC_OK;
    }
    default: return unsupported_type(a, "MUL", err);
    }
}

/* MAXIMUM / MINIMUM compare raw values (TFLite does not requantize; the
 * converter gives inputs and output the same quantization). */
static int minmax_prepare(interp_node *n, ew_params *p, bool is_max, npuc_err *err)
{
    int rc = binary_common(n, p, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0);
    switch (a->dtype) {
    case GRAPH_I8: p->kind = is_max ? K_OP_MAXIMUM_S8 : K_OP_MINIMUM_S8; return NPUC_OK;
    case GRAPH_I16: p->kind = is_max ? K_OP_MAXIMUM_S16 : K_OP_MINIMUM_S16; return NPUC_OK;
    case GRAPH_I32: p->kind = is_max ? K_OP_MAXIMUM_S32 : K_OP_MINIMUM_S32; return NPUC_OK;
    case GRAPH_F32: p->kind = is_max ? K_OP_MAXIMUM_F32 : K_OP_MINIMUM_F32; return NPUC_OK;
    default: return unsupported_type(a, is_max ? "MAXIMUM" : "MINIMUM", err);
    }
}

static int mul_prepare(interp_node *n, npuc_err *err)
{
    ew_params p = {0};
    return binary_emit(n, mul_compute(n, &p, err), &p, err);
}

static int max_prepare(interp_node *n, npuc_err *err)
{
    ew_params p = {0};
    return binary_emit(n, minmax_prepare(n, &p, true, err), &p, err);
}

static int min_prepare(interp_node *n, npuc_err *err)
{
    ew_params p = {0};
    return binary_emit(n, minmax_prepare(n, &p, false, err), &p, err);
}

/* ---- pooling ------------------------------------------------------------------ */

typedef struct pool_params {
    graph_dtype dtype;
    bool is_max;
    k_pool_params k;
    k_dims din, dout;
} pool_params;

static int pool_compute(interp_node *n, pool_params *p, bool is_max, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    const char *opname = is_max ? "MAX_POOL_2D" : "AVERAGE_POOL_2D";
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16 && in->dtype != GRAPH_F32)
        return unsupported_type(in, opname, err);
    if (out->dtype != in->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "output type %s differs from input type %s",
                         graph_dtype_name(out->dtype), graph_dtype_name(in->dtype));
    if (in->rank != 4 || out->rank != 4)
        return npuc_errf(err, NPUC_E_INVALID, "input and output must be 4-d NHWC (ranks %d, %d)", in->rank, out->rank);
    const tfl_options *o = &n->op->opt;
    if (o->stride_h <= 0 || o->stride_w <= 0 || o->filter_h <= 0 || o->filter_w <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "invalid stride %dx%d or filter %dx%d", o->stride_h, o->stride_w,
                         o->filter_h, o->filter_w);
    if (o->padding != TFL_PAD_SAME && o->padding != TFL_PAD_VALID)
        return npuc_errf(err, NPUC_E_INVALID, "unknown padding %d", o->padding);
    if ((rc = check_act(o->activation, err))) return rc;
    const int32_t pad = o->padding == TFL_PAD_SAME ? K_PAD_SAME : K_PAD_VALID;
    const int32_t oh = k_out_size(pad, in->shape[1], o->filter_h, o->stride_h, 1);
    const int32_t ow = k_out_size(pad, in->shape[2], o->filter_w, o->stride_w, 1);
    if (oh <= 0 || ow <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "filter %dx%d does not fit the %dx%d input with VALID padding", o->filter_h,
                         o->filter_w, in->shape[1], in->shape[2]);
    if (out->shape[0] != in->shape[0] || out->shape[1] != oh || out->shape[2] != ow || out->shape[3] != in->shape[3]) {
        char s1[96];
        interp_shape_str(out->shape, out->rank, s1, sizeof s1);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, expected [%d,%d,%d,%d]", interp_tname(out), s1,
                         in->shape[0], oh, ow, in->shape[3]);
    }
    p->dtype = in->dtype;
    p->is_max = is_max;
    memset(&p->k, 0, sizeof p->k);
    p->k.stride_h = o->stride_h;
    p->k.stride_w = o->stride_w;
    p->k.filter_h = o->filter_h;
    p->k.filter_w = o->filter_w;
    p->k.pad_h = k_pad_before(pad, in->shape[1], o->filter_h, o->stride_h, 1, oh, NULL);
    p->k.pad_w = k_pad_before(pad, in->shape[2], o->filter_w, o->stride_w, 1, ow, NULL);
    interp_dims(in, &p->din);
    interp_dims(out, &p->dout);
    if (is_quant_type(in->dtype)) {
        if ((rc = interp_check_quant(in, "input", "out of", err)) || (rc = interp_check_quant(out, "output", "out of", err))) return rc;
        /* pooling_common.cc: input and output quantization must match. */
        if (fabs((double)in->q.scale[0] - (double)out->q.scale[0]) > 1.0e-6 ||
            in->q.zero_point[0] != out->q.zero_point[0])
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input and output quantization differ (scale %g vs %g, zero point %lld vs %lld)",
                             (double)in->q.scale[0], (double)out->q.scale[0], (long long)in->q.zero_point[0],
                             (long long)out->q.zero_point[0]);
        act_range_q(o->activation, out, &p->k.act_min, &p->k.act_max);
    } else {
        k_act_f32 a;
        act_range_f(o->activation, &a);
        p->k.act_min_f = a.min;
        p->k.act_max_f = a.max;
    }
    return NPUC_OK;
}

static int pool_prepare(interp_node *n, bool is_max, npuc_err *err)
{
    pool_params p;
    memset(&p, 0, sizeof p);
    int rc = pool_compute(n, &p, is_max, err);
    if (rc) return rc;
    const uint32_t kind = p.dtype == GRAPH_I8    ? (is_max ? K_OP_MAXPOOL_S8 : K_OP_AVGPOOL_S8)
                          : p.dtype == GRAPH_I16 ? (is_max ? K_OP_MAXPOOL_S16 : K_OP_AVGPOOL_S16)
                                                 : (is_max ? K_OP_MAXPOOL_F32 : K_OP_AVGPOOL_F32);
    k_op_pool_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->p = p.k;
    b->din = p.din;
    b->dout = p.dout;
    return NPUC_OK;
}

static int avgpool_prepare(interp_node *n, npuc_err *err) { return pool_prepare(n, false, err); }
static int maxpool_prepare(interp_node *n, npuc_err *err) { return pool_prepare(n, true, err); }

/* ---- MEAN ----------------------------------------------------------------------- */

typedef struct mean_params {
    graph_dtype dtype;
    k_mean_params k;
    k_dims din;
} mean_params;

static int mean_compute(interp_node *n, mean_params *p, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *ax = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if ((rc = check_rank(in, "input", err)) || (rc = check_rank(out, "output", err))) return rc;
    if (in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16 && in->dtype != GRAPH_F32)
        return unsupported_type(in, "MEAN", err);
    if (out->dtype != in->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "output type %s differs from input type %s",
                         graph_dtype_name(out->dtype), graph_dtype_name(in->dtype));
    if (ax->dtype != GRAPH_I32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "axis tensor '%s' must be int32 (is %s)", interp_tname(ax),
                         graph_dtype_name(ax->dtype));
    if (!ax->data)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "axis tensor '%s' must be constant", interp_tname(ax));
    if (ax->rank > 1)
        return npuc_errf(err, NPUC_E_INVALID, "axis tensor '%s' must be a scalar or 1-d (rank %d)", interp_tname(ax), ax->rank);
    const size_t n_axis = graph_tensor_elems(ax);
    const int32_t *axis = ax->data;
    memset(&p->k, 0, sizeof p->k);
    for (size_t i = 0; i < n_axis; i++) {
        int32_t a = axis[i] < 0 ? axis[i] + in->rank : axis[i];
        if (in->rank > 0 && (a < 0 || a >= in->rank))
            return npuc_errf(err, NPUC_E_INVALID, "axis %d is out of range for the rank-%d input", axis[i], in->rank);
    }
    interp_dims(in, &p->din);
    if (k_mean_resolve_axes(p->din.rank, axis, (int32_t)n_axis, p->k.axis, &p->k.n_axis) != K_OK)
        return npuc_errf(err, NPUC_E_INVALID, "invalid reduction axes");
    k_dims want;
    if (k_mean_out_dims(&p->din, &p->k, n->op->opt.keep_dims, &want) != K_OK)
        return npuc_errf(err, NPUC_E_INVALID, "invalid reduction axes");
    bool same = want.rank == out->rank;
    for (int32_t i = 0; same && i < want.rank; i++) same = want.d[i] == out->shape[i];
    if (!same) {
        char s1[96], s2[96];
        interp_shape_str(out->shape, out->rank, s1, sizeof s1);
        interp_shape_str(want.d, want.rank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, expected %s (keep_dims %s)", interp_tname(out), s1, s2,
                         n->op->opt.keep_dims ? "true" : "false");
    }
    p->dtype = in->dtype;
    if (is_quant_type(in->dtype)) {
        if ((rc = interp_check_quant(in, "input", "out of", err)) || (rc = interp_check_quant(out, "output", "out of", err))) return rc;
        const double real = (double)in->q.scale[0] / (double)out->q.scale[0];
        k_quantize_multiplier(real, &p->k.mult, &p->k.shift);
        if (p->k.shift < -31 || p->k.shift > 30)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "MEAN rescale factor %g is out of range", real);
        p->k.in_zp = (int32_t)in->q.zero_point[0];
        p->k.out_zp = (int32_t)out->q.zero_point[0];
    }
    return NPUC_OK;
}

static int mean_prepare(interp_node *n, npuc_err *err)
{
    mean_params p;
    memset(&p, 0, sizeof p);
    int rc = mean_compute(n, &p, err);
    if (rc) return rc;
    const uint32_t kind = p.dtype == GRAPH_I8 ? K_OP_MEAN_S8 : p.dtype == GRAPH_I16 ? K_OP_MEAN_S16 : K_OP_MEAN_F32;
    k_op_mean_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->p = p.k;
    b->din = p.din;
    return NPUC_OK;
}

/* ---- table ----------------------------------------------------------------------- */

static const interp_op_impl ops[] = {
    {TFL_OP_AVERAGE_POOL_2D, avgpool_prepare, NULL},
    {TFL_OP_MAX_POOL_2D, maxpool_prepare, NULL},
    {TFL_OP_ADD, add_prepare, NULL},
    {TFL_OP_SUB, sub_prepare, NULL},
    {TFL_OP_MUL, mul_prepare, NULL},
    {TFL_OP_MAXIMUM, max_prepare, NULL},
    {TFL_OP_MINIMUM, min_prepare, NULL},
    {TFL_OP_MEAN, mean_prepare, NULL},
};

INTERP_OPS_TABLE(interp_ops_elementwise, ops)
