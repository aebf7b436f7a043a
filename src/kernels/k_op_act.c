/* Prepared ops: RELU family, LEAKY_RELU, HARD_SWISH, LOGISTIC, TANH, SOFTMAX,
 * QUANTIZE, DEQUANTIZE. */
#include "k_op_internal.h"

/* Input and output element sizes of a unary kind. */
static void io_sizes(uint32_t kind, uint32_t *ies, uint32_t *oes)
{
    uint32_t i = 4, o = 4;
    switch (kind) {
    case K_OP_RELU_S8: case K_OP_LEAKY_RELU_S8: case K_OP_HARD_SWISH_S8: case K_OP_LOGISTIC_S8: case K_OP_TANH_S8:
    case K_OP_SOFTMAX_S8: case K_OP_REQUANT_S8_S8: case K_OP_REQUANT_S8_U8: case K_OP_REQUANT_U8_S8:
        i = 1; o = 1; break;
    case K_OP_RELU_S16: case K_OP_LEAKY_RELU_S16: case K_OP_LOGISTIC_S16: case K_OP_TANH_S16: case K_OP_SOFTMAX_S16:
    case K_OP_REQUANT_S16_S16:
        i = 2; o = 2; break;
    case K_OP_SOFTMAX_S8_S16: case K_OP_REQUANT_S8_S16: i = 1; o = 2; break;
    case K_OP_REQUANT_S8_S32: i = 1; o = 4; break;
    case K_OP_REQUANT_S16_S8: i = 2; o = 1; break;
    case K_OP_REQUANT_S16_S32: i = 2; o = 4; break;
    case K_OP_REQUANT_S32_S8: i = 4; o = 1; break;
    case K_OP_REQUANT_S32_S16: i = 4; o = 2; break;
    case K_OP_QUANTIZE_F32_S8: case K_OP_QUANTIZE_F32_U8: i = 4; o = 1; break;
    case K_OP_QUANTIZE_F32_S16: i = 4; o = 2; break;
    case K_OP_DEQUANTIZE_S8_F32: case K_OP_DEQUANTIZE_U8_F32: i = 1; o = 4; break;
    case K_OP_DEQUANTIZE_S16_F32: i = 2; o = 4; break;
    default: break;
    }
    *ies = i;
    *oes = o;
}

static bool zp_ok(int32_t zp, uint32_t es) { return es == 1 ? k_op_in_range(zp, -128, 255) : k_op_in_range(zp, INT16_MIN, INT16_MAX); }

/* Parameter checks of the integer kinds (the ranges their kernels compute
 * without overflow). */
static int check(uint32_t kind, const k_op_unary_blob *b, uint32_t ies, uint32_t oes)
{
    const int32_t qmin = oes == 1 ? INT8_MIN : INT16_MIN, qmax = oes == 1 ? INT8_MAX : INT16_MAX;
    switch (kind) {
    case K_OP_RELU_S8: case K_OP_RELU_S16: {
        const k_relu_params *p = &b->p.relu;
        if (!zp_ok(p->input_zero_point, ies) || !zp_ok(p->output_zero_point, oes) || p->shift < -31 ||
            !k_op_in_range(p->act_min, qmin, qmax) || !k_op_in_range(p->act_max, qmin, qmax))
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_LEAKY_RELU_S8: case K_OP_LEAKY_RELU_S16: {
        const k_leaky_relu_params *p = &b->p.leaky;
        if (!zp_ok(p->input_zero_point, ies) || !zp_ok(p->output_zero_point, oes) || p->shift_alpha < -31 ||
            p->shift_identity < -31 || p->mult_alpha == INT32_MIN)
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_HARD_SWISH_S8: {
        const k_op_hard_swish *p = &b->p.hswish;
        if (!zp_ok(p->input_zero_point, 1) || !zp_ok(p->output_zero_point, 1) ||
            !k_op_in_range(p->reluish_mult, INT16_MIN, INT16_MAX) ||
            !k_op_in_range(p->output_mult, INT16_MIN, INT16_MAX) || !k_op_in_range(p->reluish_shift, -31, 31) ||
            !k_op_in_range(p->output_shift, -31, 0))
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_LOGISTIC_S8: case K_OP_TANH_S8: {
        const k_sigmoid_s8_params *p = &b->p.sig8;
        if (!zp_ok(p->input_zero_point, 1) || !k_op_in_range(p->input_left_shift, -31, 31) ||
            p->input_range_radius < 0)
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_LOGISTIC_S16: case K_OP_TANH_S16: {
        /* input * multiplier + rounding stays in int32. */
        const k_sigmoid_s16_params *p = &b->p.sig16;
        if (!k_op_in_range(p->input_left_shift, 0, 31) || !k_op_in_range(p->input_multiplier, 0, INT16_MAX) ||
            (p->input_multiplier == 0 && p->input_left_shift > 13))
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_SOFTMAX_S8: case K_OP_SOFTMAX_S8_S16:
        if (!k_op_in_range(b->p.sm8.input_left_shift, 0, 30)) return K_E_INVALID;
        return K_OK;
    case K_OP_SOFTMAX_S16:
        if (!k_op_in_range(b->p.sm16.input_left_shift, -31, 31)) return K_E_INVALID;
        return K_OK;
    case K_OP_REQUANT_S8_S8: case K_OP_REQUANT_S8_U8: case K_OP_REQUANT_U8_S8: case K_OP_REQUANT_S8_S16:
    case K_OP_REQUANT_S8_S32: case K_OP_REQUANT_S16_S8: case K_OP_REQUANT_S16_S16: case K_OP_REQUANT_S16_S32:
    case K_OP_REQUANT_S32_S8: case K_OP_REQUANT_S32_S16:
        if (!k_op_in_range(b->p.req.shift, -31, 31)) return K_E_INVALID;
        return K_OK;
    case K_OP_DEQUANTIZE_S8_F32: case K_OP_DEQUANTIZE_U8_F32: case K_OP_DEQUANTIZE_S16_F32:
        if (!zp_ok(b->zp, ies)) return K_E_INVALID;
        return K_OK;
    default: return K_OK;
    }
}

int k_op_run_unary(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_unary_blob b;
    K_OP_LOAD(b, blob, size);
    uint32_t ies, oes;
    io_sizes(kind, &ies, &oes);
    if (b.n < 0) return K_E_INVALID;
    const bool softmax = kind == K_OP_SOFTMAX_S8 || kind == K_OP_SOFTMAX_S8_S16 || kind == K_OP_SOFTMAX_S16 ||
                         kind == K_OP_SOFTMAX_F32;
    if (softmax && !k_op_rows_ok(b.outer, b.depth, b.n)) return K_E_INVALID;
    int rc = check(kind, &b, ies, oes);
    if (rc) return rc;
    k_softmax_s16_params sm16 = {0};
    if (kind == K_OP_SOFTMAX_S16) {
        const int16_t *lut = k_op_array(blob, size, b.lut_off, 2 * K_SOFTMAX_LUT_SIZE, 2);
        if (!lut) return K_E_INVALID;
        sm16.input_multiplier = b.p.sm16.input_multiplier;
        sm16.input_left_shift = b.p.sm16.input_left_shift;
        sm16.exp_lut = lut;
        sm16.one_over_one_plus_x_lut = lut + K_SOFTMAX_LUT_SIZE;
    }
    if (!io) return K_OK;
    void *in, *out;
    if ((rc = k_op_in(io, 0, (uint64_t)b.n * ies, ies, &in)) || (rc = k_op_out(io, 0, (uint64_t)b.n * oes, oes, &out)))
        return rc;
    const int32_t n = b.n;
    switch (kind) {
    case K_OP_RELU_S8: return k_relu_s8(&b.p.relu, in, out, n);
    case K_OP_RELU_S16: return k_relu_s16(&b.p.relu, in, out, n);
    case K_OP_RELU_F32: return k_relu_f32(in, out, n, b.lo, b.hi);
    case K_OP_LEAKY_RELU_S8: return k_leaky_relu_s8(&b.p.leaky, in, out, n);
    case K_OP_LEAKY_RELU_S16: return k_leaky_relu_s16(&b.p.leaky, in, out, n);
    case K_OP_LEAKY_RELU_F32: return k_leaky_relu_f32(b.alpha, in, out, n);
    case K_OP_HARD_SWISH_S8: {
        const k_hard_swish_params hp = {.input_zero_point = b.p.hswish.input_zero_point,
                                        .output_zero_point = b.p.hswish.output_zero_point,
                                        .reluish_mult = (int16_t)b.p.hswish.reluish_mult,
                                        .reluish_shift = b.p.hswish.reluish_shift,
                                        .output_mult = (int16_t)b.p.hswish.output_mult,
                                        .output_shift = b.p.hswish.output_shift};
        return k_hard_swish_s8(&hp, in, out, n);
    }
    case K_OP_HARD_SWISH_F32: return k_hard_swish_f32(in, out, n);
    case K_OP_LOGISTIC_S8: return k_logistic_s8(&b.p.sig8, in, out, n);
    case K_OP_LOGISTIC_S16: return k_logistic_s16(&b.p.sig16, in, out, n);
    case K_OP_LOGISTIC_F32: return k_logistic_f32(in, out, n);
    case K_OP_TANH_S8: return k_tanh_s8(&b.p.sig8, in, out, n);
    case K_OP_TANH_S16: return k_tanh_s16(&b.p.sig16, in, out, n);
    case K_OP_TANH_F32: return k_tanh_f32(in, out, n);
    case K_OP_SOFTMAX_S8: return k_softmax_s8(&b.p.sm8, in, out, b.outer, b.depth);
    case K_OP_SOFTMAX_S8_S16: return k_softmax_s8_s16(&b.p.sm8, in, out, b.outer, b.depth);
    case K_OP_SOFTMAX_S16: return k_softmax_s16(&sm16, in, out, b.outer, b.depth);
    case K_OP_SOFTMAX_F32: return k_softmax_f32(b.beta, in, out, b.outer, b.depth);
    case K_OP_QUANTIZE_F32_S8: return k_quantize_f32_s8(in, out, n, b.scale, b.zp);
    case K_OP_QUANTIZE_F32_U8: return k_quantize_f32_u8(in, out, n, b.scale, b.zp);
    case K_OP_QUANTIZE_F32_S16: return k_quantize_f32_s16(in, out, n, b.scale, b.zp);
    case K_OP_REQUANT_S8_S8: return k_requant_s8_s8(&b.p.req, in, out, n);
    case K_OP_REQUANT_S8_U8: return k_requant_s8_u8(&b.p.req, in, out, n);
    case K_OP_REQUANT_U8_S8: return k_requant_u8_s8(&b.p.req, in, out, n);
    case K_OP_REQUANT_S8_S16: return k_requant_s8_s16(&b.p.req, in, out, n);
    case K_OP_REQUANT_S8_S32: return k_requant_s8_s32(&b.p.req, in, out, n);
    case K_OP_REQUANT_S16_S8: return k_requant_s16_s8(&b.p.req, in, out, n);
    case K_OP_REQUANT_S16_S16: return k_requant_s16_s16(&b.p.req, in, out, n);
    case K_OP_REQUANT_S16_S32: return k_requant_s16_s32(&b.p.req, in, out, n);
    case K_OP_REQUANT_S32_S8: return k_requant_s32_s8(&b.p.req, in, out, n);
    case K_OP_REQUANT_S32_S16: return k_requant_s32_s16(&b.p.req, in, out, n);
    case K_OP_DEQUANTIZE_S8_F32: return k_dequantize_s8_f32(in, out, n, b.scale, b.zp);
    case K_OP_DEQUANTIZE_U8_F32: return k_dequantize_u8_f32(in, out, n, b.scale, b.zp);
    default: return k_dequantize_s16_f32(in, out, n, b.scale, b.zp);
    }
}
