/* Interpreter bindings of the weighted ops: CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED, TRANSPOSE_CONV, SVDF. prepare() validates the tensors and
 * computes the kernel parameters with TFLite Micro's float/double math
 * (kernel_util.cc PopulateConvolutionQuantizationParams and friends). */
#include "interp_ops.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers ---- */

static int check_rank(const graph_tensor *t, const char *what, int32_t rank, npuc_err *err)
{
    if (t->rank != rank)
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' must have rank %d, has rank %d", what,
                         interp_tname(t), rank, t->rank);
    return NPUC_OK;
}

/* Every dimension positive: the size arithmetic (channel groups, depth
 * multipliers, output sizes) divides by them. */
static int check_nonempty(const graph_tensor *t, const char *what, npuc_err *err)
{
    for (int32_t i = 0; i < t->rank; i++)
        if (t->shape[i] <= 0)
            return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' has an empty dimension %d (size %d)", what,
                             interp_tname(t), (int)i, (int)t->shape[i]);
    return NPUC_OK;
}

/* Per-tensor scale / zero point (first entry). */
static int qparams(const graph_tensor *t, const char *what, float *scale, int32_t *zp, npuc_err *err)
{
    if (t->q.n < 1 || !t->q.scale || !t->q.zero_point)
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' (%s) has no quantization parameters",
                         what, interp_tname(t), interp_dt(t));
    if (!(t->q.scale[0] > 0.0f) || !isnormal(t->q.scale[0]))
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' has invalid scale %g", what, interp_tname(t),
                         (double)t->q.scale[0]);
    *scale = t->q.scale[0];
    *zp = (int32_t)t->q.zero_point[0];
    return NPUC_OK;
}

static int check_zp_range(const graph_tensor *t, const char *what, int32_t zp, npuc_err *err)
{
    if (t->dtype == GRAPH_I8 && (zp < -128 || zp > 127))
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' zero point %d is out of int8 range", what,
                         interp_tname(t), (int)zp);
    if (t->dtype == GRAPH_I16 && zp != 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s tensor '%s' is int16 with zero point %d (int16 needs zero point 0)", what,
                         interp_tname(t), (int)zp);
    return NPUC_OK;
}

static int check_act(int32_t act, npuc_err *err)
{
    if (act != TFL_ACT_NONE && act != TFL_ACT_RELU && act != TFL_ACT_RELU_N1_TO_1 && act != TFL_ACT_RELU6)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "fused activation %s is not supported",
                         tfl_activation_name(act));
    return NPUC_OK;
}


static void act_range_q(int32_t act, const graph_tensor *out, float scale, int32_t zp, int32_t *lo,
                        int32_t *hi)
{
    int32_t qmin = out->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    int32_t qmax = out->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    k_activation_range_q(act, scale, zp, qmin, qmax, lo, hi);
}

/* The 64-bit accumulator requantization (int16x8, TFLite's
 * MultiplyByQuantizedMultiplier(int64_t, ...)) shifts right by 15 - shift:
 * an effective scale of 2^14 or more (shift > 14) has no defined result in
 * TFLite and is rejected. */
static int check_mult64(bool wide_acc, const char *what, const graph_tensor *w, int32_t c, double eff,
                        int32_t shift, npuc_err *err)
{
    if (wide_acc && shift > 14)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s tensor '%s' channel %d: effective scale %g (input scale * %s scale / output "
                         "scale) is too large for the int16 kernels (must be < 2^14)",
                         what, interp_tname(w), (int)c, eff, what);
    return NPUC_OK;
}

/* Per-channel multipliers as PopulateConvolutionQuantizationParams:
 * effective = double(input_scale) * double(filter_scale[c]) / double(output_scale),
 * a per-tensor filter scale being broadcast. The filter must be symmetric
 * (TFLite Micro's per-channel kernels ignore the filter zero point). */
static int conv_multipliers(interp_node *n, const graph_tensor *filter, int32_t axis, int32_t channels,
                            float in_scale, float out_scale, bool wide_acc, const int32_t **mult,
                            const int32_t **shift, npuc_err *err)
{
    int rc;
    const graph_quant *q = &filter->q;
    if (q->n < 1 || !q->scale || !q->zero_point)
        return npuc_errf(err, NPUC_E_INVALID, "filter tensor '%s' (%s) has no quantization parameters",
                         interp_tname(filter), interp_dt(filter));
    if (q->n != 1 && q->n != channels)
        return npuc_errf(err, NPUC_E_INVALID,
                         "filter tensor '%s' has %d scales; expected 1 or %d (one per output channel)",
                         interp_tname(filter), (int)q->n, (int)channels);
    if (q->n > 1 && q->axis != axis)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "filter tensor '%s' is quantized along dimension %d; expected %d", interp_tname(filter),
                         (int)q->axis, (int)axis);
    for (int32_t c = 0; c < q->n; c++) {
        if (q->zero_point[c] != 0)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "filter tensor '%s' has zero point %lld at channel %d (weights must be "
                             "symmetric)",
                             interp_tname(filter), (long long)q->zero_point[c], (int)c);
        if (!(q->scale[c] >= 0.0f) || !isfinite(q->scale[c]) || (q->scale[c] != 0.0f && !isnormal(q->scale[c])))
            return npuc_errf(err, NPUC_E_INVALID, "filter tensor '%s' has invalid scale %g at channel %d",
                             interp_tname(filter), (double)q->scale[c], (int)c);
    }
    int32_t *m = interp_node_alloc(n, sizeof(int32_t) * (size_t)channels);
    int32_t *s = interp_node_alloc(n, sizeof(int32_t) * (size_t)channels);
    if (!m || !s) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t c = 0; c < channels; c++) {
        float fs = q->n > 1 ? q->scale[c] : q->scale[0];
        double eff = (double)in_scale * (double)fs / (double)out_scale;
        k_quantize_multiplier(eff, &m[c], &s[c]);
        if ((rc = check_mult64(wide_acc, "filter", filter, c, eff, s[c], err))) return rc;
    }
    *mult = m;
    *shift = s;
    return NPUC_OK;
}

static int check_bias(const graph_tensor *bias, int32_t channels, npuc_err *err)
{
    if (!bias) return NPUC_OK;
    if ((int64_t)graph_tensor_elems(bias) != channels)
        return npuc_errf(err, NPUC_E_INVALID, "bias tensor '%s' has %lld elements; expected %d",
                         interp_tname(bias), (long long)graph_tensor_elems(bias), (int)channels);
    if (bias->dtype == GRAPH_I64) {
        /* 64-bit accumulators must stay inside TFLite's |acc| < 2^47 range;
         * bounding the bias at 2^48 also keeps the sums from overflowing */
        if (!bias->data)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "int64 bias tensor '%s' must be constant", interp_tname(bias));
        const int64_t *b = bias->data;
        for (int32_t i = 0; i < channels; i++)
            if (b[i] > ((int64_t)1 << 48) || b[i] < -((int64_t)1 << 48))
                return npuc_errf(err, NPUC_E_INVALID, "bias tensor '%s' value [%d] = %lld exceeds the int16x8 range (|bias| <= 2^48)",
                                 interp_tname(bias), (int)i, (long long)b[i]);
    }
    return NPUC_OK;
}

static int check_padding(int32_t padding, npuc_err *err)
{
    if (padding != TFL_PAD_SAME && padding != TFL_PAD_VALID)
        return npuc_errf(err, NPUC_E_INVALID, "unknown padding %d", (int)padding);
    return NPUC_OK;
}

/* The output must have the computed shape want[0..rank). */
static int check_out_shape(const graph_tensor *out, const int32_t *want, int32_t rank, npuc_err *err)
{
    bool same = out->rank == rank;
    for (int32_t i = 0; same && i < rank; i++) same = out->shape[i] == want[i];
    if (same) return NPUC_OK;
    char a[128], b[128];
    return npuc_errf(err, NPUC_E_INVALID, "output tensor '%s' has shape %s; the op computes %s", interp_tname(out),
                     interp_shape_str(out->shape, out->rank, b, sizeof b), interp_shape_str(want, rank, a, sizeof a));
}

/* Spatial output size and padding as TFLite's ComputePaddingHeightWidth. */
static int conv_spatial(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                        const char *dim, int32_t *out, int32_t *pad, npuc_err *err)
{
    if (stride <= 0 || dilation <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "stride_%s %d / dilation_%s %d must be positive", dim,
                         (int)stride, dim, (int)dilation);
    int64_t eff = (int64_t)(filter - 1) * dilation + 1;
    if (eff > ((int64_t)1 << 30))
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s: filter %d with dilation_%s %d spans %lld elements (at most 2^30)",
                         dim, (int)filter, dim, (int)dilation, (long long)eff);
    int64_t o = padding == TFL_PAD_SAME ? ((int64_t)in + stride - 1) / stride
                                        : ((int64_t)in + stride - eff) / stride;
    if (o <= 0 || o > INT32_MAX)
        return npuc_errf(err, NPUC_E_INVALID,
                         "%s: input size %d with filter %d (dilation %d) and stride %d gives no output",
                         dim, (int)in, (int)filter, (int)dilation, (int)stride);
    *out = (int32_t)o;
    *pad = k_pad_before(padding, in, filter, stride, dilation, *out, NULL);
    return NPUC_OK;
}

/* ---- CONV_2D and DEPTHWISE_CONV_2D ---- */

enum { V_F32, V_S8, V_S16_B64, V_S16_B32 };

typedef struct conv_node {
    k_conv_params p;
    int variant;
} conv_node;

/* int16x8 bias types an op accepts besides int64. */
enum { B16_OK_I32 = 1, B16_OK_I16 = 2 };

/* Type combination of a weighted op (CONV_2D, DEPTHWISE_CONV_2D,
 * TRANSPOSE_CONV, FULLY_CONNECTED) -> kernel variant. `wname` names the
 * weights in messages; `b16` says which int16x8 bias types besides int64 the
 * op takes (an int16 bias runs the int64 variant, widened at eval). */
static int conv_types(interp_node *n, const graph_tensor *in, const graph_tensor *filter,
                      const graph_tensor *bias, const graph_tensor *out, const char *wname, unsigned b16,
                      int *variant, npuc_err *err)
{
    if (in->dtype != out->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input %s with output %s is not supported (types must match)", interp_dt(in), interp_dt(out));
    if (in->dtype == GRAPH_F32) {
        if (filter->dtype != GRAPH_F32 || (bias && bias->dtype != GRAPH_F32))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input float32 with %s %s%s%s is not supported (hybrid models)", wname,
                             interp_dt(filter), bias ? ", bias " : "", bias ? interp_dt(bias) : "");
        *variant = V_F32;
        return NPUC_OK;
    }
    if (in->dtype == GRAPH_I8) {
        if (filter->dtype != GRAPH_I8)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "input int8 with %s %s is not supported", wname,
                             interp_dt(filter));
        if (bias && bias->dtype != GRAPH_I32)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input int8 with bias %s is not supported (bias must be int32)", interp_dt(bias));
        *variant = V_S8;
        return NPUC_OK;
    }
    if (in->dtype == GRAPH_I16) {
        if (filter->dtype != GRAPH_I8)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input int16 with %s %s is not supported (%s must be int8)", wname, interp_dt(filter), wname);
        if (bias && bias->dtype == GRAPH_I64) {
            *variant = V_S16_B64;
        } else if (bias && bias->dtype == GRAPH_I32 && (b16 & B16_OK_I32)) {
            *variant = V_S16_B32;
        } else if (bias && bias->dtype == GRAPH_I16 && (b16 & B16_OK_I16)) {
            *variant = V_S16_B64;
        } else if (bias) {
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input int16 with bias %s is not supported (bias must be int64%s%s)", interp_dt(bias),
                             (b16 & B16_OK_I32) ? " or int32" : "", (b16 & B16_OK_I16) ? " or int16" : "");
        } else {
            /* No bias: TFLite Micro picks the accumulator from
             * quantized_bias_type (int32 accumulator only when INT32). */
            *variant = ((b16 & B16_OK_I32) && n->op->opt.quantized_bias_type == TFL_INT32) ? V_S16_B32
                                                                                           : V_S16_B64;
        }
        return NPUC_OK;
    }
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "input %s is not supported", interp_dt(in));
}

/* Quantization part shared by CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV. */
static int conv_quant(interp_node *n, conv_node *c, const graph_tensor *in, const graph_tensor *filter,
                      const graph_tensor *out, int32_t axis, int32_t act, npuc_err *err)
{
    if (c->variant == V_F32) {
        k_activation_range_f(act, &c->p.act_min_f, &c->p.act_max_f);
        return NPUC_OK;
    }
    float in_scale = 0.0f, out_scale = 0.0f;
    int32_t in_zp = 0, out_zp = 0;
    int rc;
    if ((rc = qparams(in, "input", &in_scale, &in_zp, err))) return rc;
    if ((rc = qparams(out, "output", &out_scale, &out_zp, err))) return rc;
    if ((rc = check_zp_range(in, "input", in_zp, err))) return rc;
    if ((rc = check_zp_range(out, "output", out_zp, err))) return rc;
    if ((rc = conv_multipliers(n, filter, axis, c->p.out_c, in_scale, out_scale, c->variant == V_S16_B64,
                               &c->p.out_mult,
                               &c->p.out_shift, err)))
        return rc;
    c->p.input_offset = -in_zp;
    c->p.output_offset = out_zp;
    act_range_q(act, out, out_scale, out_zp, &c->p.act_min, &c->p.act_max);
    return NPUC_OK;
}

/* A node blob of a weighted kind: a head struct of head_size bytes, then,
 * for the integer kinds, the per-channel multipliers and shifts (their
 * offsets come back in *mult_off / *shift_off, 0 otherwise). The caller
 * writes the head. NULL when out of memory. */
static uint8_t *channel_blob(interp_node *n, uint32_t kind, size_t head_size, bool integer, int32_t out_c,
                             const int32_t *mult, const int32_t *shift, uint32_t *mult_off, uint32_t *shift_off)
{
    const uint32_t head = k_op_align(head_size);
    const size_t arr = integer ? (size_t)out_c * sizeof(int32_t) : 0;
    uint8_t *blob = interp_node_blob(n, kind, integer ? head + 2 * arr : head_size);
    *mult_off = *shift_off = 0;
    if (blob && integer) {
        *mult_off = head;
        *shift_off = head + (uint32_t)arr;
        memcpy(blob + *mult_off, mult, arr);
        memcpy(blob + *shift_off, shift, arr);
    }
    return blob;
}

/* The node's blob for a conv-like kind (k_op_conv_blob, then the
 * per-channel multipliers and shifts of the integer kinds). */
static int conv_emit(interp_node *n, uint32_t kind, const conv_node *c, npuc_err *err)
{
    const k_conv_params *p = &c->p;
    uint32_t mo, so;
    uint8_t *blob = channel_blob(n, kind, sizeof(k_op_conv_blob), c->variant != V_F32, p->out_c, p->out_mult,
                                 p->out_shift, &mo, &so);
    if (!blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    k_op_conv_blob b = {
        .batches = p->batches, .in_h = p->in_h, .in_w = p->in_w, .in_c = p->in_c, .out_h = p->out_h,
        .out_w = p->out_w, .out_c = p->out_c, .filter_h = p->filter_h, .filter_w = p->filter_w,
        .filter_c = p->filter_c, .stride_h = p->stride_h, .stride_w = p->stride_w, .dilation_h = p->dilation_h,
        .dilation_w = p->dilation_w, .pad_h = p->pad_h, .pad_w = p->pad_w, .depth_multiplier = p->depth_multiplier,
        .input_offset = p->input_offset, .output_offset = p->output_offset, .act_min = p->act_min,
        .act_max = p->act_max, .act_min_f = p->act_min_f, .act_max_f = p->act_max_f,
        .mult_off = mo, .shift_off = so};
    memcpy(blob, &b, sizeof b);
    return NPUC_OK;
}

static int prepare_conv(interp_node *n, npuc_err *err)
{
    int rc;
    if ((rc = interp_check_counts(n, 2, 3, 1, err))) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *filter = interp_node_in_t(n, 1);
    const graph_tensor *bias = interp_node_in_t(n, 2), *out = interp_node_out_t(n, 0);
    const tfl_options *o = &n->op->opt;
    conv_node cn = {0}, *c = &cn;
    if ((rc = conv_types(n, in, filter, bias, out, "filter", B16_OK_I32, &c->variant, err))) return rc;
    if ((rc = check_rank(in, "input", 4, err)) || (rc = check_rank(filter, "filter", 4, err)) ||
        (rc = check_rank(out, "output", 4, err)))
        return rc;
    if ((rc = check_nonempty(in, "input", err)) || (rc = check_nonempty(filter, "filter", err))) return rc;
    if ((rc = check_padding(o->padding, err)) || (rc = check_act(o->activation, err))) return rc;
    k_conv_params *p = &c->p;
    p->batches = in->shape[0];
    p->in_h = in->shape[1];
    p->in_w = in->shape[2];
    p->in_c = in->shape[3];
    p->out_c = filter->shape[0];
    p->filter_h = filter->shape[1];
    p->filter_w = filter->shape[2];
    p->filter_c = filter->shape[3];
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    p->dilation_h = o->dilation_h;
    p->dilation_w = o->dilation_w;
    p->depth_multiplier = 1;
    if (p->filter_c <= 0 || p->in_c % p->filter_c != 0)
        return npuc_errf(err, NPUC_E_INVALID,
                         "input has %d channels, not a multiple of the filter's %d input channels",
                         (int)p->in_c, (int)p->filter_c);
    int32_t groups = p->in_c / p->filter_c;
    if (p->out_c <= 0 || p->out_c % groups != 0)
        return npuc_errf(err, NPUC_E_INVALID, "%d output channels cannot be split into %d groups",
                         (int)p->out_c, (int)groups);
    if ((rc = conv_spatial(o->padding, p->in_h, p->filter_h, p->stride_h, p->dilation_h, "h", &p->out_h,
                           &p->pad_h, err)) ||
        (rc = conv_spatial(o->padding, p->in_w, p->filter_w, p->stride_w, p->dilation_w, "w", &p->out_w,
                           &p->pad_w, err)))
        return rc;
    int32_t want[4] = {p->batches, p->out_h, p->out_w, p->out_c};
    if ((rc = check_out_shape(out, want, 4, err))) return rc;
    if ((rc = check_bias(bias, p->out_c, err))) return rc;
    if ((rc = conv_quant(n, c, in, filter, out, 0, o->activation, err))) return rc;
    static const uint32_t kinds[] = {[V_F32] = K_OP_CONV_F32, [V_S8] = K_OP_CONV_S8, [V_S16_B64] = K_OP_CONV_S16,
                                     [V_S16_B32] = K_OP_CONV_S16_B32};
    return conv_emit(n, kinds[c->variant], c, err);
}

static int prepare_dwconv(interp_node *n, npuc_err *err)
{
    int rc;
    if ((rc = interp_check_counts(n, 2, 3, 1, err))) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *filter = interp_node_in_t(n, 1);
    const graph_tensor *bias = interp_node_in_t(n, 2), *out = interp_node_out_t(n, 0);
    const tfl_options *o = &n->op->opt;
    conv_node cn = {0}, *c = &cn;
    /* TFLite Micro's int16 depthwise kernel only takes an int64 bias. */
    if ((rc = conv_types(n, in, filter, bias, out, "filter", 0, &c->variant, err))) return rc;
    if ((rc = check_rank(in, "input", 4, err)) || (rc = check_rank(filter, "filter", 4, err)) ||
        (rc = check_rank(out, "output", 4, err)))
        return rc;
    if ((rc = check_nonempty(in, "input", err)) || (rc = check_nonempty(filter, "filter", err))) return rc;
    if ((rc = check_padding(o->padding, err)) || (rc = check_act(o->activation, err))) return rc;
    k_conv_params *p = &c->p;
    p->batches = in->shape[0];
    p->in_h = in->shape[1];
    p->in_w = in->shape[2];
    p->in_c = in->shape[3];
    if (filter->shape[0] != 1)
        return npuc_errf(err, NPUC_E_INVALID, "filter tensor '%s' dimension 0 is %d; expected 1",
                         interp_tname(filter), (int)filter->shape[0]);
    p->filter_h = filter->shape[1];
    p->filter_w = filter->shape[2];
    p->out_c = filter->shape[3];
    p->filter_c = 1;
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    p->dilation_h = o->dilation_h;
    p->dilation_w = o->dilation_w;
    if (p->in_c <= 0 || p->out_c % p->in_c != 0)
        return npuc_errf(err, NPUC_E_INVALID,
                         "filter has %d output channels, not a multiple of the %d input channels",
                         (int)p->out_c, (int)p->in_c);
    p->depth_multiplier = p->out_c / p->in_c;
    if (o->depth_multiplier != p->depth_multiplier)
        return npuc_errf(err, NPUC_E_INVALID,
                         "depth_multiplier option is %d but the filter implies %d (%d / %d channels)",
                         (int)o->depth_multiplier, (int)p->depth_multiplier, (int)p->out_c,
                         (int)p->in_c);
    if ((rc = conv_spatial(o->padding, p->in_h, p->filter_h, p->stride_h, p->dilation_h, "h", &p->out_h,
                           &p->pad_h, err)) ||
        (rc = conv_spatial(o->padding, p->in_w, p->filter_w, p->stride_w, p->dilation_w, "w", &p->out_w,
                           &p->pad_w, err)))
        return rc;
    int32_t want[4] = {p->batches, p->out_h, p->out_w, p->out_c};
    if ((rc = check_out_shape(out, want, 4, err))) return rc;
    if ((rc = check_bias(bias, p->out_c, err))) return rc;
    if ((rc = conv_quant(n, c, in, filter, out, 3, o->activation, err))) return rc;
    const uint32_t kind = c->variant == V_F32 ? K_OP_DWCONV_F32 : c->variant == V_S8 ? K_OP_DWCONV_S8 : K_OP_DWCONV_S16;
    return conv_emit(n, kind, c, err);
}

/* ---- TRANSPOSE_CONV: inputs (output_shape, weights, input[, bias]) ---- */

static int prepare_tconv(interp_node *n, npuc_err *err)
{
    int rc;
    if ((rc = interp_check_counts(n, 3, 4, 1, err))) return rc;
    const graph_tensor *oshape = interp_node_in_t(n, 0), *filter = interp_node_in_t(n, 1);
    const graph_tensor *in = interp_node_in_t(n, 2), *bias = interp_node_in_t(n, 3);
    const graph_tensor *out = interp_node_out_t(n, 0);
    const tfl_options *o = &n->op->opt;
    conv_node cn = {0}, *c = &cn;
    if (oshape->dtype != GRAPH_I32 || oshape->rank != 1 || oshape->shape[0] != 4)
        return npuc_errf(err, NPUC_E_INVALID,
                         "output_shape tensor '%s' must be int32 with 4 elements (is %s, rank %d)",
                         interp_tname(oshape), interp_dt(oshape), (int)oshape->rank);
    if ((rc = conv_types(n, in, filter, bias, out, "filter", B16_OK_I16, &c->variant, err))) return rc;
    /* An int16 bias is widened to int64 at eval (as TFLite Micro). */
    const bool bias_i16 = c->variant == V_S16_B64 && bias && bias->dtype == GRAPH_I16;
    if ((rc = check_rank(in, "input", 4, err)) || (rc = check_rank(filter, "filter", 4, err)) ||
        (rc = check_rank(out, "output", 4, err)))
        return rc;
    if ((rc = check_nonempty(in, "input", err)) || (rc = check_nonempty(filter, "filter", err)) ||
        (rc = check_nonempty(out, "output", err)))
        return rc;
    if ((rc = check_padding(o->padding, err)) || (rc = check_act(o->activation, err))) return rc;
    if (o->stride_h <= 0 || o->stride_w <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "strides %d x %d must be positive", (int)o->stride_h,
                         (int)o->stride_w);
    k_conv_params *p = &c->p;
    p->batches = in->shape[0];
    p->in_h = in->shape[1];
    p->in_w = in->shape[2];
    p->in_c = in->shape[3];
    p->out_c = filter->shape[0];
    p->filter_h = filter->shape[1];
    p->filter_w = filter->shape[2];
    p->filter_c = filter->shape[3];
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    p->dilation_h = p->dilation_w = 1;
    p->depth_multiplier = 1;
    if (p->filter_c != p->in_c)
        return npuc_errf(err, NPUC_E_INVALID, "filter tensor '%s' has %d input channels; input has %d",
                         interp_tname(filter), (int)p->filter_c, (int)p->in_c);
    if (out->shape[0] != p->batches || out->shape[3] != p->out_c) {
        int32_t want[4] = {p->batches, out->shape[1], out->shape[2], p->out_c};
        return check_out_shape(out, want, 4, err);
    }
    p->out_h = out->shape[1];
    p->out_w = out->shape[2];
    /* The scatter computes in * stride - pad + filter tap in int32. */
    if ((int64_t)(p->in_h - 1) * p->stride_h + p->filter_h > ((int64_t)1 << 30) ||
        (int64_t)(p->in_w - 1) * p->stride_w + p->filter_w > ((int64_t)1 << 30))
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input %dx%d with strides %d x %d and filter %dx%d spans more than 2^30 output positions",
                         (int)p->in_h, (int)p->in_w, (int)p->stride_h, (int)p->stride_w, (int)p->filter_h,
                         (int)p->filter_w);
    if (oshape->data) {
        const int32_t *s = oshape->data;
        if ((rc = check_out_shape(out, s, 4, err))) return rc;
    }
    /* Padding as TFLite Micro: ComputePaddingHeightWidth on the *output*
     * size (dilation 1); a failing size computation leaves padding 0. */
    int32_t pads[2] = {0, 0};
    const int32_t sizes[2] = {p->out_h, p->out_w}, fs[2] = {p->filter_h, p->filter_w},
                  st[2] = {p->stride_h, p->stride_w};
    int64_t u[2];
    for (int i = 0; i < 2; i++)
        u[i] = o->padding == TFL_PAD_SAME ? ((int64_t)sizes[i] + st[i] - 1) / st[i]
                                          : ((int64_t)sizes[i] + st[i] - fs[i]) / st[i];
    if (u[0] >= 0 && u[1] >= 0)
        for (int i = 0; i < 2; i++)
            pads[i] = k_pad_before(o->padding, sizes[i], fs[i], st[i], 1, (int32_t)u[i], NULL);
    p->pad_h = pads[0];
    p->pad_w = pads[1];
    if ((rc = check_bias(bias, p->out_c, err))) return rc;
    if ((rc = conv_quant(n, c, in, filter, out, 0, o->activation, err))) return rc;
    size_t n_out = graph_tensor_elems(out);
    const size_t acc_bytes = c->variant == V_S8 ? n_out * sizeof(int32_t)
                           : c->variant == V_S16_B64 ? n_out * sizeof(int64_t) : 0;
    n->scratch_size = acc_bytes + (bias_i16 ? (size_t)p->out_c * sizeof(int64_t) : 0);
    const uint32_t kind = c->variant == V_F32 ? K_OP_TCONV_F32
                          : c->variant == V_S8 ? K_OP_TCONV_S8
                          : bias_i16 ? K_OP_TCONV_S16_B16 : K_OP_TCONV_S16;
    return conv_emit(n, kind, c, err);
}

/* ---- FULLY_CONNECTED ---- */

typedef struct fc_node {
    k_fc_params p;
    int variant;
} fc_node;

/* The node's blob: k_op_fc_blob, then the integer kinds' multipliers and
 * shifts. */
static int fc_emit(interp_node *n, const fc_node *f, npuc_err *err)
{
    const k_fc_params *p = &f->p;
    static const uint32_t kinds[] = {[V_F32] = K_OP_FC_F32, [V_S8] = K_OP_FC_S8, [V_S16_B64] = K_OP_FC_S16,
                                     [V_S16_B32] = K_OP_FC_S16_B32};
    uint32_t mo, so;
    uint8_t *blob = channel_blob(n, kinds[f->variant], sizeof(k_op_fc_blob), f->variant != V_F32, p->out_c,
                                 p->out_mult, p->out_shift, &mo, &so);
    if (!blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    k_op_fc_blob b = {.batches = p->batches, .accum_depth = p->accum_depth, .out_c = p->out_c,
                      .input_offset = p->input_offset, .filter_offset = p->filter_offset,
                      .output_offset = p->output_offset, .act_min = p->act_min, .act_max = p->act_max,
                      .act_min_f = p->act_min_f, .act_max_f = p->act_max_f, .mult_off = mo, .shift_off = so};
    memcpy(blob, &b, sizeof b);
    return NPUC_OK;
}

static int prepare_fc(interp_node *n, npuc_err *err)
{
    int rc;
    if ((rc = interp_check_counts(n, 2, 3, 1, err))) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *w = interp_node_in_t(n, 1);
    const graph_tensor *bias = interp_node_in_t(n, 2), *out = interp_node_out_t(n, 0);
    const tfl_options *o = &n->op->opt;
    if (o->weights_format != 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "weights_format %d (shuffled weights) is not supported; only DEFAULT",
                         (int)o->weights_format);
    if (o->asymmetric_quantize_inputs && in->dtype == GRAPH_F32 && w->dtype != GRAPH_F32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "hybrid (asymmetric_quantize_inputs) is not supported");
    if ((rc = check_act(o->activation, err))) return rc;
    fc_node fn = {0}, *f = &fn;
    if ((rc = conv_types(n, in, w, bias, out, "weights", B16_OK_I32, &f->variant, err))) return rc;
    if (w->rank != 2)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "weights tensor '%s' must have rank 2, has rank %d",
                         interp_tname(w), (int)w->rank);
    k_fc_params *p = &f->p;
    p->out_c = w->shape[0];
    p->accum_depth = w->shape[1];
    if (p->out_c <= 0 || p->accum_depth <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "weights tensor '%s' has an empty dimension", interp_tname(w));
    size_t in_elems = graph_tensor_elems(in);
    if (in_elems % (size_t)p->accum_depth != 0)
        return npuc_errf(err, NPUC_E_INVALID,
                         "input tensor '%s' has %zu elements, not a multiple of the weights' depth %d",
                         interp_tname(in), in_elems, (int)p->accum_depth);
    p->batches = (int32_t)(in_elems / (size_t)p->accum_depth);
    /* Output shape as TFLite: keep_num_dims keeps the input's leading dims. */
    int32_t want[GRAPH_MAX_RANK];
    int32_t wrank;
    if (o->keep_num_dims) {
        if (in->rank < 1 || in->shape[in->rank - 1] != p->accum_depth)
            return npuc_errf(err, NPUC_E_INVALID,
                             "keep_num_dims: input's last dimension must equal the weights' depth %d",
                             (int)p->accum_depth);
        wrank = in->rank;
        for (int32_t i = 0; i < wrank; i++) want[i] = in->shape[i];
        want[wrank - 1] = p->out_c;
    } else {
        wrank = 2;
        want[0] = p->batches;
        want[1] = p->out_c;
    }
    if ((rc = check_out_shape(out, want, wrank, err))) return rc;
    if ((rc = check_bias(bias, p->out_c, err))) return rc;
    if (f->variant == V_F32) {
        k_activation_range_f(o->activation, &p->act_min_f, &p->act_max_f);
        return fc_emit(n, f, err);
    }
    float in_scale = 0.0f, out_scale = 0.0f;
    int32_t in_zp = 0, out_zp = 0;
    if ((rc = qparams(in, "input", &in_scale, &in_zp, err)) ||
        (rc = qparams(out, "output", &out_scale, &out_zp, err)))
        return rc;
    if ((rc = check_zp_range(in, "input", in_zp, err)) || (rc = check_zp_range(out, "output", out_zp, err)))
        return rc;
    const graph_quant *q = &w->q;
    if (q->n < 1 || !q->scale || !q->zero_point)
        return npuc_errf(err, NPUC_E_INVALID, "weights tensor '%s' has no quantization parameters",
                         interp_tname(w));
    for (int32_t c = 0; c < q->n; c++)
        if (!(q->scale[c] >= 0.0f) || !isfinite(q->scale[c]) || (q->scale[c] != 0.0f && !isnormal(q->scale[c])))
            return npuc_errf(err, NPUC_E_INVALID, "weights tensor '%s' has invalid scale %g at channel %d",
                             interp_tname(w), (double)q->scale[c], (int)c);
    int32_t *m = interp_node_alloc(n, sizeof(int32_t) * (size_t)p->out_c);
    int32_t *s = interp_node_alloc(n, sizeof(int32_t) * (size_t)p->out_c);
    if (!m || !s) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (q->n > 1) {
        /* Per-channel (TFLite Micro FullyConnectedPerChannel): symmetric weights,
         * the filter zero point is not applied. */
        if (q->n != p->out_c || q->axis != 0)
            return npuc_errf(err, NPUC_E_INVALID,
                             "weights tensor '%s' has %d scales along dimension %d; expected %d along 0",
                             interp_tname(w), (int)q->n, (int)q->axis, (int)p->out_c);
        for (int32_t c = 0; c < p->out_c; c++) {
            if (q->zero_point[c] != 0)
                return npuc_errf(err, NPUC_E_UNSUPPORTED,
                                 "weights tensor '%s' has zero point %lld at channel %d (per-channel "
                                 "weights must be symmetric)",
                                 interp_tname(w), (long long)q->zero_point[c], (int)c);
            double eff = (double)in_scale * (double)q->scale[c] / (double)out_scale;
            k_quantize_multiplier(eff, &m[c], &s[c]);
            if ((rc = check_mult64(f->variant == V_S16_B64, "weights", w, c, eff, s[c], err))) return rc;
        }
        p->filter_offset = 0;
    } else {
        /* Per-tensor: GetQuantizedConvolutionMultipler, the scale product
         * taken in float, then widened. */
        float prod = in_scale * q->scale[0];
        double real = (double)prod / (double)out_scale;
        if (bias && bias->q.n >= 1 && bias->q.scale) {
            double ips = (double)in_scale * (double)q->scale[0];
            double diff = fabs(ips - (double)bias->q.scale[0]);
            if (diff / (double)out_scale > 0.02)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "bias tensor '%s' scale %g differs from input scale * weights scale %g",
                                 interp_tname(bias), (double)bias->q.scale[0], ips);
        }
        int32_t mm, ss;
        k_quantize_multiplier(real, &mm, &ss);
        if ((rc = check_mult64(f->variant == V_S16_B64, "weights", w, 0, real, ss, err))) return rc;
        for (int32_t c = 0; c < p->out_c; c++) {
            m[c] = mm;
            s[c] = ss;
        }
        int64_t wzp = q->zero_point[0];
        if (wzp < -128 || wzp > 127)
            return npuc_errf(err, NPUC_E_INVALID, "weights tensor '%s' zero point %lld is out of range",
                             interp_tname(w), (long long)wzp);
        /* TFLite Micro applies a per-tensor weights zero point (legacy). */
        p->filter_offset = (int32_t)-wzp;
    }
    p->out_mult = m;
    p->out_shift = s;
    p->input_offset = -in_zp;
    p->output_offset = out_zp;
    act_range_q(o->activation, out, out_scale, out_zp, &p->act_min, &p->act_max);
    return fc_emit(n, f, err);
}

/* ---- SVDF: inputs (input, weights_feature, weights_time, bias?, state) ---- */

enum { SV_F32, SV_S8_T16, SV_S8_T8 };

typedef struct svdf_node {
    k_svdf_params p;
    int variant;
} svdf_node;

static int svdf_emit(interp_node *n, const svdf_node *s, npuc_err *err)
{
    static const uint32_t kinds[] = {[SV_F32] = K_OP_SVDF_F32, [SV_S8_T16] = K_OP_SVDF_S8,
                                     [SV_S8_T8] = K_OP_SVDF_S8_T8};
    k_op_svdf_blob *b = interp_node_blob(n, kinds[s->variant], sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->p = s->p;
    return NPUC_OK;
}

static int prepare_svdf(interp_node *n, npuc_err *err)
{
    int rc;
    /* Five inputs; the bias (3) may be absent (-1). */
    if ((rc = interp_check_counts(n, 3, 5, 1, err))) return rc;
    if (n->op->n_in != 5)
        return npuc_errf(err, NPUC_E_INVALID, "expected 5 inputs, got %d", n->op->n_in);
    if (!interp_node_in_t(n, 4))
        return npuc_errf(err, NPUC_E_INVALID, "required input 4 (activation state) is missing");
    const graph_tensor *in = interp_node_in_t(n, 0), *wf = interp_node_in_t(n, 1);
    const graph_tensor *wt = interp_node_in_t(n, 2), *bias = interp_node_in_t(n, 3);
    const graph_tensor *st = interp_node_in_t(n, 4), *out = interp_node_out_t(n, 0);
    const tfl_options *o = &n->op->opt;
    svdf_node sn = {0}, *s = &sn;
    k_svdf_params *p = &s->p;
    if ((rc = check_rank(in, "input", 2, err)) || (rc = check_rank(wf, "weights_feature", 2, err)) ||
        (rc = check_rank(wt, "weights_time", 2, err)) || (rc = check_rank(st, "state", 2, err)) ||
        (rc = check_rank(out, "output", 2, err)))
        return rc;
    if (!st->is_variable)
        return npuc_errf(err, NPUC_E_INVALID, "state tensor '%s' must be a variable tensor", interp_tname(st));
    p->rank = o->rank;
    p->batches = in->shape[0];
    p->input_size = in->shape[1];
    p->filters = wf->shape[0];
    p->memory = wt->shape[1];
    p->activation = o->activation;
    if (p->rank <= 0 || p->filters <= 0 || p->filters % p->rank != 0)
        return npuc_errf(err, NPUC_E_INVALID, "rank %d does not divide the %d filters", (int)p->rank,
                         (int)p->filters);
    int32_t units = p->filters / p->rank;
    if (wf->shape[1] != p->input_size)
        return npuc_errf(err, NPUC_E_INVALID, "weights_feature has depth %d; input has %d",
                         (int)wf->shape[1], (int)p->input_size);
    if (wt->shape[0] != p->filters || p->memory <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "weights_time shape [%d,%d] does not match %d filters",
                         (int)wt->shape[0], (int)wt->shape[1], (int)p->filters);
    if ((rc = check_nonempty(in, "input", err)) || (rc = check_nonempty(wf, "weights_feature", err)))
        return rc;
    if (st->shape[0] != p->batches || (int64_t)st->shape[1] != (int64_t)p->memory * p->filters)
        return npuc_errf(err, NPUC_E_INVALID, "state tensor '%s' has shape [%d,%d]; expected [%d,%lld]",
                         interp_tname(st), (int)st->shape[0], (int)st->shape[1], (int)p->batches,
                         (long long)((int64_t)p->memory * p->filters));
    int32_t want[2] = {p->batches, units};
    if ((rc = check_out_shape(out, want, 2, err))) return rc;
    if ((rc = check_bias(bias, units, err))) return rc;
    if (in->dtype == GRAPH_F32) {
        if (wf->dtype != GRAPH_F32 || wt->dtype != GRAPH_F32 || st->dtype != GRAPH_F32 ||
            out->dtype != GRAPH_F32 || (bias && bias->dtype != GRAPH_F32))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input float32 with weights_feature %s, weights_time %s, state %s, output "
                             "%s is not supported (all must be float32)",
                             interp_dt(wf), interp_dt(wt), interp_dt(st), interp_dt(out));
        if (o->activation < TFL_ACT_NONE || o->activation > TFL_ACT_SIGN_BIT)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "fused activation %d is not supported",
                             (int)o->activation);
        s->variant = SV_F32;
        n->scratch_size = (size_t)p->batches * p->filters * sizeof(float);
        return svdf_emit(n, s, err);
    }
    if (in->dtype != GRAPH_I8)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input %s is not supported (int8 or float32)", interp_dt(in));
    if (wf->dtype != GRAPH_I8)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input int8 with weights_feature %s is not supported",
                         interp_dt(wf));
    if (wt->dtype == GRAPH_I16 && st->dtype == GRAPH_I16)
        s->variant = SV_S8_T16;
    else if (wt->dtype == GRAPH_I8 && st->dtype == GRAPH_I8)
        s->variant = SV_S8_T8;
    else
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input int8 with weights_time %s and state %s is not supported (both int16 or "
                         "both int8)",
                         interp_dt(wt), interp_dt(st));
    if (bias && bias->dtype != GRAPH_I32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input int8 with bias %s is not supported (int32)",
                         interp_dt(bias));
    if (out->dtype != GRAPH_I8)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input int8 with output %s is not supported", interp_dt(out));
    float in_s = 0.0f, wf_s = 0.0f, wt_s = 0.0f, st_s = 0.0f, out_s = 0.0f;
    int32_t in_zp = 0, wf_zp = 0, wt_zp = 0, st_zp = 0, out_zp = 0;
    if ((rc = qparams(in, "input", &in_s, &in_zp, err)) ||
        (rc = qparams(wf, "weights_feature", &wf_s, &wf_zp, err)) ||
        (rc = qparams(wt, "weights_time", &wt_s, &wt_zp, err)) ||
        (rc = qparams(st, "state", &st_s, &st_zp, err)) || (rc = qparams(out, "output", &out_s, &out_zp, err)))
        return rc;
    if ((rc = check_zp_range(in, "input", in_zp, err)) || (rc = check_zp_range(out, "output", out_zp, err)))
        return rc;
    const int32_t st_lo = st->dtype == GRAPH_I8 ? INT8_MIN : INT16_MIN, st_hi = st->dtype == GRAPH_I8 ? INT8_MAX : INT16_MAX;
    if (st_zp < st_lo || st_zp > st_hi)
        return npuc_errf(err, NPUC_E_INVALID, "state tensor '%s' zero point %d is out of the %s range", interp_tname(st),
                         (int)st_zp, interp_dt(st));
    /* TFLite Micro PrepareSvdf: the scale ratios are computed in float and
     * then widened to double. */
    const float e1 = in_s * wf_s / st_s;
    const float e2 = st_s * wt_s / out_s;
    if (bias && bias->q.n >= 1 && bias->q.scale) {
        const float prod = st_s * wt_s;
        if (!(fabs((double)bias->q.scale[0] - (double)prod) < 1e-5))
            return npuc_errf(err, NPUC_E_INVALID,
                             "bias tensor '%s' scale %g differs from state scale * weights_time scale %g",
                             interp_tname(bias), (double)bias->q.scale[0], (double)prod);
    }
    k_quantize_multiplier((double)e1, &p->mult1, &p->shift1);
    k_quantize_multiplier((double)e2, &p->mult2, &p->shift2);
    p->input_zp = in_zp;
    p->state_zp = st_zp;
    p->output_zp = out_zp;
    n->scratch_size = ((size_t)p->batches * p->filters + (size_t)p->batches * units) * sizeof(int32_t);
    return svdf_emit(n, s, err);
}

static const interp_op_impl conv_ops[] = {
    {TFL_OP_CONV_2D, prepare_conv, NULL},
    {TFL_OP_DEPTHWISE_CONV_2D, prepare_dwconv, NULL},
    {TFL_OP_FULLY_CONNECTED, prepare_fc, NULL},
    {TFL_OP_TRANSPOSE_CONV, prepare_tconv, NULL},
    {TFL_OP_SVDF, prepare_svdf, NULL},
};

INTERP_OPS_TABLE(interp_ops_conv, conv_ops)
