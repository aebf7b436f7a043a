/* Prepared ops: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED,
 * SVDF. */
#include "k_op_internal.h"

/* Element sizes of a weighted kind: input/output, weights, bias. */
typedef struct wsizes {
    uint32_t act, w, bias;
    bool integer;      /* quantized kernel (multipliers in the blob) */
    bool mbqm;         /* 32-bit requantization (k_mbqm: shift >= -31) */
    int32_t qmin, qmax;
} wsizes;

static void sizes_of(uint32_t kind, wsizes *s)
{
    switch (kind) {
    case K_OP_CONV_S8:
    case K_OP_DWCONV_S8:
    case K_OP_TCONV_S8:
    case K_OP_FC_S8: *s = (wsizes){1, 1, 4, true, true, INT8_MIN, INT8_MAX}; break;
    case K_OP_CONV_S16:
    case K_OP_DWCONV_S16:
    case K_OP_TCONV_S16:
    case K_OP_FC_S16: *s = (wsizes){2, 1, 8, true, false, INT16_MIN, INT16_MAX}; break;
    case K_OP_TCONV_S16_B16: *s = (wsizes){2, 1, 2, true, false, INT16_MIN, INT16_MAX}; break;
    case K_OP_CONV_S16_B32:
    case K_OP_FC_S16_B32: *s = (wsizes){2, 1, 4, true, true, INT16_MIN, INT16_MAX}; break;
    default: *s = (wsizes){4, 4, 4, false, false, 0, 0}; break;
    }
}

/* Per-channel multipliers and shifts of an integer kind. */
static int multipliers(const uint8_t *blob, uint32_t size, uint32_t mult_off, uint32_t shift_off, int32_t n,
                       const wsizes *s, const int32_t **mult, const int32_t **shift)
{
    *mult = k_op_array(blob, size, mult_off, (uint64_t)n, 4);
    *shift = k_op_array(blob, size, shift_off, (uint64_t)n, 4);
    if (!*mult || !*shift) return K_E_INVALID;
    /* k_mbqm shifts right by -shift (at most 31); k_mbqm64 clamps itself. */
    if (s->mbqm)
        for (int32_t c = 0; c < n; c++) {
            int32_t v;
            memcpy(&v, *shift + c, 4);
            if (v < -31) return K_E_INVALID;
        }
    return K_OK;
}

/* ---- CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV ------------------------------ */

int k_op_run_conv(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_conv_blob b;
    K_OP_LOAD(b, blob, size);
    const bool dw = kind == K_OP_DWCONV_S8 || kind == K_OP_DWCONV_S16 || kind == K_OP_DWCONV_F32;
    const bool tc = kind == K_OP_TCONV_S8 || kind == K_OP_TCONV_S16 || kind == K_OP_TCONV_S16_B16 ||
                    kind == K_OP_TCONV_F32;
    wsizes s;
    sizes_of(kind, &s);
    /* Geometry: every size positive, and the kernels' int32 position
     * arithmetic (o * stride - pad, then up to + size + dilation) inside
     * int32. */
    if (!k_op_dim(b.batches, 1) || !k_op_dim(b.in_h, 1) || !k_op_dim(b.in_w, 1) || !k_op_dim(b.in_c, 1) ||
        !k_op_dim(b.out_h, 1) || !k_op_dim(b.out_w, 1) || !k_op_dim(b.out_c, 1) || !k_op_dim(b.filter_h, 1) ||
        !k_op_dim(b.filter_w, 1) || b.stride_h < 1 || b.stride_w < 1 || b.pad_h < 0 || b.pad_w < 0)
        return K_E_INVALID;
    if (tc) {
        /* scatter: input position * stride - pad, output window */
        if ((int64_t)(b.in_h - 1) * b.stride_h > INT32_MAX || (int64_t)(b.in_w - 1) * b.stride_w > INT32_MAX ||
            (int64_t)b.out_h + b.pad_h + 1 > INT32_MAX || (int64_t)b.out_w + b.pad_w + 1 > INT32_MAX)
            return K_E_INVALID;
    } else {
        if (b.dilation_h < 1 || b.dilation_w < 1 || (int64_t)(b.out_h - 1) * b.stride_h > INT32_MAX ||
            (int64_t)(b.out_w - 1) * b.stride_w > INT32_MAX ||
            (int64_t)b.in_h + b.pad_h + b.dilation_h > INT32_MAX ||
            (int64_t)b.in_w + b.pad_w + b.dilation_w > INT32_MAX)
            return K_E_INVALID;
    }
    uint64_t n_filter;
    if (dw) {
        if (!k_op_dim(b.depth_multiplier, 1) || (int64_t)b.in_c * b.depth_multiplier != b.out_c) return K_E_INVALID;
        n_filter = k_op_mul(k_op_mul((uint64_t)b.filter_h, (uint64_t)b.filter_w), (uint64_t)b.out_c);
    } else if (tc) {
        n_filter = k_op_mul(k_op_mul((uint64_t)b.out_c, (uint64_t)b.filter_h),
                            k_op_mul((uint64_t)b.filter_w, (uint64_t)b.in_c));
    } else {
        if (!k_op_dim(b.filter_c, 1) || b.in_c % b.filter_c != 0 || b.out_c % (b.in_c / b.filter_c) != 0)
            return K_E_INVALID;
        n_filter = k_op_mul(k_op_mul((uint64_t)b.out_c, (uint64_t)b.filter_h),
                            k_op_mul((uint64_t)b.filter_w, (uint64_t)b.filter_c));
    }
    const uint64_t n_in = k_op_mul(k_op_mul((uint64_t)b.batches, (uint64_t)b.in_h),
                                   k_op_mul((uint64_t)b.in_w, (uint64_t)b.in_c));
    const uint64_t n_out = k_op_mul(k_op_mul((uint64_t)b.batches, (uint64_t)b.out_h),
                                    k_op_mul((uint64_t)b.out_w, (uint64_t)b.out_c));
    if (n_in > INT32_MAX || n_out > INT32_MAX || n_filter > INT32_MAX) return K_E_INVALID;
    k_conv_params p = {
        .batches = b.batches, .in_h = b.in_h, .in_w = b.in_w, .in_c = b.in_c, .out_h = b.out_h, .out_w = b.out_w,
        .out_c = b.out_c, .filter_h = b.filter_h, .filter_w = b.filter_w, .filter_c = b.filter_c,
        .stride_h = b.stride_h, .stride_w = b.stride_w, .dilation_h = b.dilation_h, .dilation_w = b.dilation_w,
        .pad_h = b.pad_h, .pad_w = b.pad_w, .depth_multiplier = b.depth_multiplier,
        .input_offset = b.input_offset, .output_offset = b.output_offset, .act_min = b.act_min,
        .act_max = b.act_max, .act_min_f = b.act_min_f, .act_max_f = b.act_max_f};
    if (tc) p.dilation_h = p.dilation_w = 1;
    if (s.integer) {
        if (!k_op_offset_ok(b.input_offset, 256) || !k_op_offset_ok(b.output_offset, 65536)) return K_E_INVALID;
        if (!k_op_in_range(b.act_min, s.qmin, s.qmax) || !k_op_in_range(b.act_max, s.qmin, s.qmax))
            return K_E_INVALID;
        int rc = multipliers(blob, size, b.mult_off, b.shift_off, b.out_c, &s, &p.out_mult, &p.out_shift);
        if (rc) return rc;
    }
    if (!io) return K_OK;

    /* Tensors: CONV_2D / DEPTHWISE_CONV_2D (input, filter, bias?),
     * TRANSPOSE_CONV (output_shape?, filter, input, bias?). */
    const int32_t i_in = tc ? 2 : 0, i_bias = tc ? 3 : 2;
    void *in, *filter, *bias, *out, *oshape;
    int rc;
    if ((rc = k_op_in(io, i_in, n_in * s.act, s.act, &in)) || (rc = k_op_in(io, 1, n_filter * s.w, s.w, &filter)) ||
        (rc = k_op_in_opt(io, i_bias, (uint64_t)b.out_c * s.bias, s.bias, &bias)) ||
        (rc = k_op_out(io, 0, n_out * s.act, s.act, &out)))
        return rc;
    if (tc) {
        /* A present output_shape input must agree with the prepared shape. */
        if ((rc = k_op_in_opt(io, 0, 16, 4, &oshape))) return rc;
        if (oshape) {
            const int32_t want[4] = {b.batches, b.out_h, b.out_w, b.out_c};
            if (memcmp(oshape, want, sizeof want) != 0) return K_E_INVALID;
        }
        void *scratch;
        switch (kind) {
        case K_OP_TCONV_S8:
            if ((rc = k_op_scratch(io, n_out * 4, 4, &scratch))) return rc;
            return k_tconv_s8(&p, in, filter, bias, out, scratch);
        case K_OP_TCONV_S16: {
            if ((rc = k_op_scratch(io, n_out * 8, 8, &scratch))) return rc;
            return k_tconv_s16(&p, in, filter, bias, out, scratch);
        }
        case K_OP_TCONV_S16_B16: {
            /* int16 bias widened to int64 after the accumulators (as TFLite
             * Micro). */
            if ((rc = k_op_scratch(io, n_out * 8 + (uint64_t)b.out_c * 8, 8, &scratch))) return rc;
            const int64_t *b64 = NULL;
            if (bias) {
                int64_t *wide = (int64_t *)scratch + n_out;
                const int16_t *b16 = bias;
                for (int32_t c = 0; c < b.out_c; c++) wide[c] = b16[c];
                b64 = wide;
            }
            return k_tconv_s16(&p, in, filter, b64, out, scratch);
        }
        default: return k_tconv_f32(&p, in, filter, bias, out);
        }
    }
    switch (kind) {
    case K_OP_CONV_S8: return k_conv_s8(&p, in, filter, bias, out);
    case K_OP_CONV_S16: return k_conv_s16(&p, in, filter, bias, out);
    case K_OP_CONV_S16_B32: return k_conv_s16_b32(&p, in, filter, bias, out);
    case K_OP_CONV_F32: return k_conv_f32(&p, in, filter, bias, out);
    case K_OP_DWCONV_S8: return k_dwconv_s8(&p, in, filter, bias, out);
    case K_OP_DWCONV_S16: return k_dwconv_s16(&p, in, filter, bias, out);
    default: return k_dwconv_f32(&p, in, filter, bias, out);
    }
}

/* ---- FULLY_CONNECTED ------------------------------------------------------------ */

int k_op_run_fc(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_fc_blob b;
    K_OP_LOAD(b, blob, size);
    wsizes s;
    sizes_of(kind, &s);
    if (!k_op_dim(b.batches, 0) || !k_op_dim(b.accum_depth, 1) || !k_op_dim(b.out_c, 1)) return K_E_INVALID;
    const uint64_t n_in = k_op_mul((uint64_t)b.batches, (uint64_t)b.accum_depth);
    const uint64_t n_w = k_op_mul((uint64_t)b.out_c, (uint64_t)b.accum_depth);
    const uint64_t n_out = k_op_mul((uint64_t)b.batches, (uint64_t)b.out_c);
    if (n_in > INT32_MAX || n_w > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    k_fc_params p = {.batches = b.batches, .accum_depth = b.accum_depth, .out_c = b.out_c,
                     .input_offset = b.input_offset, .filter_offset = b.filter_offset,
                     .output_offset = b.output_offset, .act_min = b.act_min, .act_max = b.act_max,
                     .act_min_f = b.act_min_f, .act_max_f = b.act_max_f};
    if (s.integer) {
        /* (weight + filter_offset) * (input + input_offset) stays in int32. */
        const int32_t in_lim = s.act == 1 ? 256 : 65536;
        if (!k_op_offset_ok(b.input_offset, in_lim) || !k_op_offset_ok(b.filter_offset, 256) ||
            !k_op_offset_ok(b.output_offset, 65536))
            return K_E_INVALID;
        if (!k_op_in_range(b.act_min, s.qmin, s.qmax) || !k_op_in_range(b.act_max, s.qmin, s.qmax))
            return K_E_INVALID;
        int rc = multipliers(blob, size, b.mult_off, b.shift_off, b.out_c, &s, &p.out_mult, &p.out_shift);
        if (rc) return rc;
    }
    if (!io) return K_OK;
    void *in, *w, *bias, *out;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * s.act, s.act, &in)) || (rc = k_op_in(io, 1, n_w * s.w, s.w, &w)) ||
        (rc = k_op_in_opt(io, 2, (uint64_t)b.out_c * s.bias, s.bias, &bias)) ||
        (rc = k_op_out(io, 0, n_out * s.act, s.act, &out)))
        return rc;
    switch (kind) {
    case K_OP_FC_S8: return k_fc_s8(&p, in, w, bias, out);
    case K_OP_FC_S16: return k_fc_s16(&p, in, w, bias, out);
    case K_OP_FC_S16_B32: return k_fc_s16_b32(&p, in, w, bias, out);
    default: return k_fc_f32(&p, in, w, bias, out);
    }
}

/* ---- SVDF ----------------------------------------------------------------------- */

int k_op_run_svdf(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_svdf_blob b;
    K_OP_LOAD(b, blob, size);
    const k_svdf_params *p = &b.p;
    if (!k_op_dim(p->batches, 1) || !k_op_dim(p->input_size, 1) || !k_op_dim(p->filters, 1) ||
        !k_op_dim(p->rank, 1) || !k_op_dim(p->memory, 1) || p->filters % p->rank != 0)
        return K_E_INVALID;
    const uint64_t units = (uint64_t)(p->filters / p->rank);
    const uint64_t n_in = k_op_mul((uint64_t)p->batches, (uint64_t)p->input_size);
    const uint64_t n_wf = k_op_mul((uint64_t)p->filters, (uint64_t)p->input_size);
    const uint64_t n_wt = k_op_mul((uint64_t)p->filters, (uint64_t)p->memory);
    const uint64_t n_state = k_op_mul((uint64_t)p->batches, n_wt);
    const uint64_t n_bf = k_op_mul((uint64_t)p->batches, (uint64_t)p->filters);
    const uint64_t n_out = k_op_mul((uint64_t)p->batches, units);
    if (n_in > INT32_MAX || n_wf > INT32_MAX || n_state > INT32_MAX || n_bf > INT32_MAX) return K_E_INVALID;
    const bool f32 = kind == K_OP_SVDF_F32;
    const uint32_t st = kind == K_OP_SVDF_S8 ? 2 : kind == K_OP_SVDF_S8_T8 ? 1 : 4;
    if (!f32) {
        const int32_t lo = st == 2 ? INT16_MIN : INT8_MIN, hi = st == 2 ? INT16_MAX : INT8_MAX;
        if (!k_op_in_range(p->input_zp, INT8_MIN, INT8_MAX) || !k_op_in_range(p->output_zp, INT8_MIN, INT8_MAX) ||
            !k_op_in_range(p->state_zp, lo, hi) || p->shift1 < -31 || p->shift2 < -31)
            return K_E_INVALID;
    }
    if (!io) return K_OK;
    const uint32_t es = f32 ? 4 : 1;
    const uint64_t n_scratch = f32 ? n_bf * 4 : (n_bf + n_out) * 4;
    void *in, *wf, *wt, *bias, *state, *out, *scratch;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * es, es, &in)) || (rc = k_op_in(io, 1, n_wf * es, es, &wf)) ||
        (rc = k_op_in(io, 2, n_wt * st, st, &wt)) || (rc = k_op_in_opt(io, 3, units * 4, 4, &bias)) ||
        (rc = k_op_in(io, 4, n_state * st, st, &state)) || (rc = k_op_out(io, 0, n_out * es, es, &out)) ||
        (rc = k_op_scratch(io, n_scratch, 4, &scratch)))
        return rc;
    switch (kind) {
    case K_OP_SVDF_S8: return k_svdf_s8(p, in, wf, wt, bias, state, out, scratch);
    case K_OP_SVDF_S8_T8: return k_svdf_s8_t8(p, in, wf, wt, bias, state, out, scratch);
    default: return k_svdf_f32(p, in, wf, wt, bias, state, out, scratch);
    }
}
