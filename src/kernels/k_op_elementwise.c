/* Prepared ops: AVERAGE_POOL_2D, MAX_POOL_2D, ADD, SUB, MUL, MAXIMUM,
 * MINIMUM, MEAN. */
#include "k_op_internal.h"

/* Element size and quantized range of a kind's type suffix. */
static void type_of(uint32_t kind, uint32_t *es, int32_t *qmin, int32_t *qmax)
{
    switch (kind) {
    case K_OP_AVGPOOL_S8: case K_OP_MAXPOOL_S8: case K_OP_ADD_S8: case K_OP_SUB_S8: case K_OP_MUL_S8:
    case K_OP_MAXIMUM_S8: case K_OP_MINIMUM_S8: case K_OP_MEAN_S8:
        *es = 1; *qmin = INT8_MIN; *qmax = INT8_MAX; return;
    case K_OP_AVGPOOL_S16: case K_OP_MAXPOOL_S16: case K_OP_ADD_S16: case K_OP_ADD_S16_POT: case K_OP_SUB_S16:
    case K_OP_SUB_S16_POT: case K_OP_MUL_S16: case K_OP_MAXIMUM_S16: case K_OP_MINIMUM_S16: case K_OP_MEAN_S16:
        *es = 2; *qmin = INT16_MIN; *qmax = INT16_MAX; return;
    default:
        *es = 4; *qmin = INT32_MIN; *qmax = INT32_MAX; return;
    }
}

static bool act_ok(int32_t lo, int32_t hi, int32_t qmin, int32_t qmax)
{
    return k_op_in_range(lo, qmin, qmax) && k_op_in_range(hi, qmin, qmax) && lo <= hi;
}

/* ---- pooling ---------------------------------------------------------------------- */

int k_op_run_pool(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_pool_blob b;
    K_OP_LOAD(b, blob, size);
    uint32_t es;
    int32_t qmin, qmax;
    type_of(kind, &es, &qmin, &qmax);
    const k_pool_params *p = &b.p;
    if (b.din.rank != 4 || b.dout.rank != 4) return K_E_INVALID;
    const uint64_t n_in = k_op_dims_count(&b.din, 4), n_out = k_op_dims_count(&b.dout, 4);
    if (n_in > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    if (b.din.d[0] != b.dout.d[0] || b.din.d[3] != b.dout.d[3]) return K_E_INVALID;
    /* Window origins o * stride - pad and in - origin stay inside int32. */
    if (p->stride_h < 1 || p->stride_w < 1 || p->filter_h < 1 || p->filter_w < 1 || p->pad_h < 0 || p->pad_w < 0)
        return K_E_INVALID;
    if ((int64_t)(b.dout.d[1] - 1) * p->stride_h > INT32_MAX || (int64_t)(b.dout.d[2] - 1) * p->stride_w > INT32_MAX ||
        (int64_t)b.din.d[1] + p->pad_h > INT32_MAX || (int64_t)b.din.d[2] + p->pad_w > INT32_MAX)
        return K_E_INVALID;
    /* The averaging count (window area inside the input) is an int32. */
    const int64_t wh = p->filter_h < b.din.d[1] ? p->filter_h : b.din.d[1];
    const int64_t ww = p->filter_w < b.din.d[2] ? p->filter_w : b.din.d[2];
    if (wh * ww > INT32_MAX) return K_E_INVALID;
    if (es != 4 && !act_ok(p->act_min, p->act_max, qmin, qmax)) return K_E_INVALID;
    if (!io) return K_OK;
    void *in, *out;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * es, es, &in)) || (rc = k_op_out(io, 0, n_out * es, es, &out))) return rc;
    switch (kind) {
    case K_OP_AVGPOOL_S8: return k_avgpool_s8(p, &b.din, in, &b.dout, out);
    case K_OP_AVGPOOL_S16: return k_avgpool_s16(p, &b.din, in, &b.dout, out);
    case K_OP_AVGPOOL_F32: return k_avgpool_f32(p, &b.din, in, &b.dout, out);
    case K_OP_MAXPOOL_S8: return k_maxpool_s8(p, &b.din, in, &b.dout, out);
    case K_OP_MAXPOOL_S16: return k_maxpool_s16(p, &b.din, in, &b.dout, out);
    default: return k_maxpool_f32(p, &b.din, in, &b.dout, out);
    }
}

/* ---- binary elementwise ops ------------------------------------------------------- */

int k_op_run_binary(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_binary_blob b;
    K_OP_LOAD(b, blob, size);
    uint32_t es;
    int32_t qmin, qmax;
    type_of(kind, &es, &qmin, &qmax);
    const uint64_t n1 = k_op_dims_count(&b.d1, K_MAX_DIMS), n2 = k_op_dims_count(&b.d2, K_MAX_DIMS);
    const uint64_t n_out = k_op_dims_count(&b.dout, K_MAX_DIMS);
    if (n1 > INT32_MAX || n2 > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    k_dims want;
    if (k_broadcast_shape(&b.d1, &b.d2, &want) != K_OK || want.rank != b.dout.rank) return K_E_INVALID;
    for (int32_t i = 0; i < want.rank; i++)
        if (want.d[i] != b.dout.d[i]) return K_E_INVALID;
    switch (kind) {
    case K_OP_ADD_S8: case K_OP_ADD_S16: case K_OP_SUB_S8: case K_OP_SUB_S16: {
        const k_add_params *a = &b.p.add;
        const int32_t lim = es == 1 ? 256 : 65536;
        if (!k_op_offset_ok(a->in1_offset, lim) || !k_op_offset_ok(a->in2_offset, lim) || !k_op_offset_ok(a->out_offset, 65536) ||
            !k_op_in_range(a->left_shift, 0, 24) || !k_op_in_range(a->in1_shift, -31, 0) ||
            !k_op_in_range(a->in2_shift, -31, 0) || !k_op_in_range(a->out_shift, -31, 0) ||
            !act_ok(a->act_min, a->act_max, qmin, qmax))
            return K_E_INVALID;
        break;
    }
    case K_OP_ADD_S16_POT: case K_OP_SUB_S16_POT: {
        const k_add_pot_params *a = &b.p.pot;
        if (!k_op_in_range(a->in1_shift, -31, 0) || !k_op_in_range(a->in2_shift, -31, 0) ||
            (a->in1_shift != 0 && a->in2_shift != 0) || !act_ok(a->act_min, a->act_max, qmin, qmax))
            return K_E_INVALID;
        break;
    }
    case K_OP_MUL_S8: case K_OP_MUL_S16: {
        const k_mul_params *m = &b.p.mul;
        if (!k_op_offset_ok(m->in1_offset, 65536) || !k_op_offset_ok(m->in2_offset, 65536) ||
            !k_op_offset_ok(m->out_offset, 65536) || !k_op_in_range(m->out_shift, -31, 30) ||
            !act_ok(m->act_min, m->act_max, qmin, qmax))
            return K_E_INVALID;
        break;
    }
    default: break;
    }
    if (!io) return K_OK;
    void *in1, *in2, *out;
    int rc;
    if ((rc = k_op_in(io, 0, n1 * es, es, &in1)) || (rc = k_op_in(io, 1, n2 * es, es, &in2)) ||
        (rc = k_op_out(io, 0, n_out * es, es, &out)))
        return rc;
    const k_dims *d1 = &b.d1, *d2 = &b.d2, *dout = &b.dout;
    switch (kind) {
    case K_OP_ADD_S8: return k_add_s8(&b.p.add, d1, in1, d2, in2, dout, out);
    case K_OP_ADD_S16: return k_add_s16(&b.p.add, d1, in1, d2, in2, dout, out);
    case K_OP_ADD_S16_POT: return k_add_s16_pot(&b.p.pot, d1, in1, d2, in2, dout, out);
    case K_OP_ADD_S32: return k_add_s32(&b.p.act_s32, d1, in1, d2, in2, dout, out);
    case K_OP_ADD_F32: return k_add_f32(&b.p.act_f32, d1, in1, d2, in2, dout, out);
    case K_OP_SUB_S8: return k_sub_s8(&b.p.add, d1, in1, d2, in2, dout, out);
    case K_OP_SUB_S16: return k_sub_s16(&b.p.add, d1, in1, d2, in2, dout, out);
    case K_OP_SUB_S16_POT: return k_sub_s16_pot(&b.p.pot, d1, in1, d2, in2, dout, out);
    case K_OP_SUB_S32: return k_sub_s32(&b.p.act_s32, d1, in1, d2, in2, dout, out);
    case K_OP_SUB_F32: return k_sub_f32(&b.p.act_f32, d1, in1, d2, in2, dout, out);
    case K_OP_MUL_S8: return k_mul_s8(&b.p.mul, d1, in1, d2, in2, dout, out);
    case K_OP_MUL_S16: return k_mul_s16(&b.p.mul, d1, in1, d2, in2, dout, out);
    case K_OP_MUL_S32: return k_mul_s32(&b.p.act_s32, d1, in1, d2, in2, dout, out);
    case K_OP_MUL_F32: return k_mul_f32(&b.p.act_f32, d1, in1, d2, in2, dout, out);
    case K_OP_MAXIMUM_S8: return k_maximum_s8(d1, in1, d2, in2, dout, out);
    case K_OP_MAXIMUM_S16: return k_maximum_s16(d1, in1, d2, in2, dout, out);
    case K_OP_MAXIMUM_S32: return k_maximum_s32(d1, in1, d2, in2, dout, out);
    case K_OP_MAXIMUM_F32: return k_maximum_f32(d1, in1, d2, in2, dout, out);
    case K_OP_MINIMUM_S8: return k_minimum_s8(d1, in1, d2, in2, dout, out);
    case K_OP_MINIMUM_S16: return k_minimum_s16(d1, in1, d2, in2, dout, out);
    case K_OP_MINIMUM_S32: return k_minimum_s32(d1, in1, d2, in2, dout, out);
    default: return k_minimum_f32(d1, in1, d2, in2, dout, out);
    }
}

/* ---- MEAN ----------------------------------------------------------------------------- */

int k_op_run_mean(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_mean_blob b;
    K_OP_LOAD(b, blob, size);
    uint32_t es;
    int32_t qmin, qmax;
    type_of(kind, &es, &qmin, &qmax);
    const k_mean_params *p = &b.p;
    const uint64_t n_in = k_op_dims_count(&b.din, K_MAX_DIMS);
    if (n_in > INT32_MAX || !k_op_in_range(p->n_axis, 0, K_MAX_DIMS)) return K_E_INVALID;
    /* Axes resolved: in range, no duplicates (a scalar ignores them). */
    bool red[K_MAX_DIMS] = {false};
    for (int32_t i = 0; i < p->n_axis && b.din.rank > 0; i++) {
        const int32_t a = p->axis[i];
        if (a < 0 || a >= b.din.rank || red[a]) return K_E_INVALID;
        red[a] = true;
    }
    uint64_t n_out = 1;
    for (int32_t i = 0; i < b.din.rank; i++)
        if (!red[i]) n_out = k_op_mul(n_out, (uint64_t)b.din.d[i]);
    if (es != 4 && (!k_op_in_range(p->shift, -31, 30) || p->mult < 0 || !k_op_in_range(p->in_zp, qmin, qmax) ||
                    !k_op_in_range(p->out_zp, qmin, qmax)))
        return K_E_INVALID;
    if (!io) return K_OK;
    void *in, *out;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * es, es, &in)) || (rc = k_op_out(io, 0, n_out * es, es, &out))) return rc;
    switch (kind) {
    case K_OP_MEAN_S8: return k_mean_s8(p, &b.din, in, out);
    case K_OP_MEAN_S16: return k_mean_s16(p, &b.din, in, out);
    default: return k_mean_f32(p, &b.din, in, out);
    }
}
