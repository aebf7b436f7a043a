/* Prepared ops of the math family (k_op_math.h): elementwise math, CAST,
 * ZEROS_LIKE, LOGICAL_NOT, L2_NORMALIZATION, LOG_SOFTMAX, with TFLite
 * Micro's reference semantics (docs/kernels-math.md). */
#include "k_op_internal.h"
#include "k_activation.h"

#include <float.h>
#include <math.h>

_Static_assert(sizeof(k_op_math_blob) == 4 * 14, "k_op_math_blob layout");

/* ---- parameter preparation (host) ---------------------------------------- */

void k_elu_s8_lut(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t lut[256])
{
    const float inverse_scale = 1.0f / out_scale;
    for (int32_t v = -128; v <= 127; v++) {
        const float x = in_scale * (float)(v - in_zp);
        const float y = x < 0.0f ? expf(x) - 1.0f : x;
        /* round(y / out_scale) + zero point in float, then to int32; the
         * float is clamped first so that the conversion stays defined. */
        float q = roundf(y * inverse_scale) + (float)out_zp;
        int32_t r;
        if (!(q > -128.0f)) r = -128; /* also NaN */
        else if (q > 127.0f) r = 127;
        else r = (int32_t)q;
        lut[(uint8_t)(int8_t)v] = (int8_t)r;
    }
}

int k_log_softmax_s8_prepare(float input_scale, k_op_math_blob *b)
{
    k_softmax_s8_params sp;
    int rc = k_softmax_s8_prepare(input_scale, 1.0f, &sp);
    if (rc) return rc;
    b->mult = sp.input_multiplier;
    b->shift = sp.input_left_shift;
    b->diff_min = sp.diff_min;
    /* The reverse of the input scaling: 2^(31 - shift) / multiplier, which
     * TFLite requires to be below 1 (QuantizeMultiplierSmallerThanOneExp). */
    const double rev = (double)(1 << (31 - sp.input_left_shift)) / (double)sp.input_multiplier;
    if (!(rev < 1.0) || !(rev > 0.0)) return K_E_UNSUPPORTED;
    k_quantize_multiplier(rev, &b->rev_mult, &b->rev_shift);
    if (b->rev_shift < -31 || b->rev_shift > 0) return K_E_UNSUPPORTED;
    return K_OK;
}

/* ---- kernels ---------------------------------------------------------------- */

static float round_half_even(float v)
{
    const float f = floorf(v);
    const float d = v - f;
    /* d == 0.5 only for |v| < 2^23, where f converts exactly. */
    if (d < 0.5f || (d == 0.5f && ((int32_t)f % 2) == 0)) return f;
    return f + 1.0f;
}

static int math_f32(uint32_t kind, const float *in, float *out, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        const float x = in[i];
        float y;
        switch (kind) {
        case K_OP_ABS_F32: y = fabsf(x); break;
        case K_OP_NEG_F32: y = -x; break;
        case K_OP_CEIL_F32: y = ceilf(x); break;
        case K_OP_FLOOR_F32: y = floorf(x); break;
        case K_OP_ROUND_F32: y = round_half_even(x); break;
        case K_OP_SQRT_F32: y = sqrtf(x); break;
        case K_OP_RSQRT_F32: y = 1.0f / sqrtf(x); break;
        case K_OP_SQUARE_F32: y = x * x; break;
        case K_OP_EXP_F32: y = expf(x); break;
        case K_OP_LOG_F32: y = logf(x); break;
        case K_OP_SIN_F32: y = sinf(x); break;
        case K_OP_COS_F32: y = cosf(x); break;
        default: /* K_OP_ELU_F32 */ y = x < 0.0f ? expm1f(x) : x; break;
        }
        out[i] = y;
    }
    return K_OK;
}

/* |x - in_zp| (rescaled when the scales differ) + out_zp, clamped. */
static int32_t abs_q(const k_op_math_blob *b, int32_t x, int32_t qmin, int32_t qmax)
{
    int32_t v = x - b->in_zp;
    v = v < 0 ? -v : v;
    if (b->rescale) v = k_mbqm(v, b->mult, b->shift);
    return k_add_clamp_i32(v, b->out_zp, qmin, qmax);
}

/* 1/sqrt(x - in_zp) requantized (TFLite Micro's RsqrtEvalQuantized): the
 * inverse square root as a multiplier applied to 1 << 20, then the scale
 * multiplier with the 20 bits taken back. x == in_zp gives qmax; x < in_zp
 * is an error, as in TFLite Micro. */
static int rsqrt_q(const k_op_math_blob *b, int32_t x, int32_t qmin, int32_t qmax, int32_t *out)
{
    const int32_t shift20 = 20;
    const int32_t v = x - b->in_zp;
    if (v < 0) return K_E_UNSUPPORTED;
    if (v == 0) {
        *out = qmax;
        return K_OK;
    }
    int32_t m, s;
    k_inv_sqrt_multiplier(v, &m, &s);
    const int32_t data = k_mbqm(1, m, s + shift20);
    *out = k_add_clamp_i32(k_mbqm(data, b->mult, b->shift - shift20), b->out_zp, qmin, qmax);
    return K_OK;
}

/* ABS or RSQRT over n int8 or int16 codes (the kind says which), stopping
 * at the first error (RSQRT of a negative value). */
static int map_q(uint32_t kind, const k_op_math_blob *b, const void *in, void *out, int32_t n)
{
    const bool s16 = kind == K_OP_ABS_S16 || kind == K_OP_RSQRT_S16;
    const bool rsqrt = kind == K_OP_RSQRT_S8 || kind == K_OP_RSQRT_S16;
    const int32_t qmin = s16 ? INT16_MIN : INT8_MIN, qmax = s16 ? INT16_MAX : INT8_MAX;
    for (int32_t i = 0; i < n; i++) {
        const int32_t x = s16 ? ((const int16_t *)in)[i] : ((const int8_t *)in)[i];
        int32_t v;
        if (!rsqrt) {
            v = abs_q(b, x, qmin, qmax);
        } else {
            const int rc = rsqrt_q(b, x, qmin, qmax, &v);
            if (rc) return rc;
        }
        if (s16)
            ((int16_t *)out)[i] = (int16_t)v;
        else
            ((int8_t *)out)[i] = (int8_t)v;
    }
    return K_OK;
}

/* Float -> integer conversions that C leaves undefined out of range give
 * what x86-64 (TFLite Micro's reference host) gives: cvttss2si's
 * "integer indefinite" value. */
static int32_t f32_to_i32(float f)
{
    if (!(f > -2147483904.0f && f < 2147483648.0f)) return INT32_MIN;
    return (int32_t)f;
}

static uint32_t f32_to_u32(float f)
{
    /* GCC converts through a signed 64-bit conversion. */
    if (!(f > -9223373136366403584.0f && f < 9223372036854775808.0f)) return 0u;
    return (uint32_t)(uint64_t)(int64_t)f;
}

/* Reads element i before it writes element i, in increasing i: the output
 * may start at the input's first byte when its elements are no wider
 * (k_op_cast_in_place; the compiler writes a CPU CAST over its input so,
 * cc_alloc.c cpu_inplace_pairs). Keep that order. */
static int cast_run(const k_op_math_blob *b, const void *in, void *out, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        int64_t iv = 0;
        float fv = 0.0f;
        const bool src_float = b->src_type == K_MATH_T_F32;
        switch (b->src_type) {
        case K_MATH_T_S8: iv = ((const int8_t *)in)[i]; break;
        case K_MATH_T_S16: iv = ((const int16_t *)in)[i]; break;
        case K_MATH_T_S32: iv = ((const int32_t *)in)[i]; break;
        case K_MATH_T_U32: iv = ((const uint32_t *)in)[i]; break;
        case K_MATH_T_BOOL: iv = ((const uint8_t *)in)[i] != 0; break;
        case K_MATH_T_U8: iv = ((const uint8_t *)in)[i]; break;
        default: fv = ((const float *)in)[i]; break;
        }
        switch (b->dst_type) {
        case K_MATH_T_S8:
            ((int8_t *)out)[i] = (int8_t)(uint8_t)(src_float ? (uint32_t)f32_to_i32(fv) : (uint32_t)(uint64_t)iv);
            break;
        case K_MATH_T_S16:
            ((int16_t *)out)[i] = (int16_t)(uint16_t)(src_float ? (uint32_t)f32_to_i32(fv) : (uint32_t)(uint64_t)iv);
            break;
        case K_MATH_T_S32:
            ((int32_t *)out)[i] = src_float ? f32_to_i32(fv) : (int32_t)(uint32_t)(uint64_t)iv;
            break;
        case K_MATH_T_U32: ((uint32_t *)out)[i] = src_float ? f32_to_u32(fv) : (uint32_t)(uint64_t)iv; break;
        case K_MATH_T_U8:
            ((uint8_t *)out)[i] = (uint8_t)(src_float ? (uint32_t)f32_to_i32(fv) : (uint32_t)(uint64_t)iv);
            break;
        default: /* F32: integers round to nearest, like (float)int32 / (float)uint32 */
            ((float *)out)[i] = src_float ? fv : (float)iv;
            break;
        }
    }
    return K_OK;
}

static void l2norm_f32(const float *in, float *out, int32_t outer, int32_t depth)
{
    const float epsilon = 1e-6f;
    for (int32_t r = 0; r < outer; r++) {
        const float *x = in + (size_t)r * (size_t)depth;
        float *y = out + (size_t)r * (size_t)depth;
        float sq = 0.0f;
        for (int32_t c = 0; c < depth; c++) sq += x[c] * x[c];
        float norm = sqrtf(sq);
        if (norm < epsilon) norm = epsilon; /* std::max(norm, epsilon) */
        for (int32_t c = 0; c < depth; c++) y[c] = x[c] / norm;
    }
}

static void l2norm_s8(int32_t in_zp, const int8_t *in, int8_t *out, int32_t outer, int32_t depth)
{
    const int32_t out_shift = 7; /* output in Q0.7: scale 1/128 */
    for (int32_t r = 0; r < outer; r++) {
        const int8_t *x = in + (size_t)r * (size_t)depth;
        int8_t *y = out + (size_t)r * (size_t)depth;
        uint32_t acc = 0; /* wraps where TFLite's int32 sum would overflow (depth > 33025) */
        for (int32_t c = 0; c < depth; c++) {
            const int32_t v = x[c] - in_zp;
            acc += (uint32_t)(v * v);
        }
        int32_t m, s;
        k_inv_sqrt_multiplier((int32_t)acc, &m, &s);
        for (int32_t c = 0; c < depth; c++) {
            const int32_t v = k_mbqm(x[c] - in_zp, m, s + out_shift);
            y[c] = (int8_t)k_clamp_i32(v, INT8_MIN, INT8_MAX);
        }
    }
}

static void log_softmax_f32(const float *in, float *out, int32_t outer, int32_t depth)
{
    for (int32_t r = 0; r < outer; r++) {
        const float *x = in + (size_t)r * (size_t)depth;
        float *y = out + (size_t)r * (size_t)depth;
        float max = -FLT_MAX;
        for (int32_t c = 0; c < depth; c++) max = (max < x[c]) ? x[c] : max; /* std::max */
        float sum = 0.0f;
        for (int32_t c = 0; c < depth; c++) sum += expf(x[c] - max);
        const float log_sum = logf(sum);
        for (int32_t c = 0; c < depth; c++) y[c] = x[c] - max - log_sum;
    }
}

static void log_softmax_s8(const k_op_math_blob *b, const int8_t *in, int8_t *out, int32_t outer, int32_t depth)
{
    for (int32_t r = 0; r < outer; r++) {
        const int8_t *x = in + (size_t)r * (size_t)depth;
        int8_t *y = out + (size_t)r * (size_t)depth;
        int32_t max = INT8_MIN;
        for (int32_t c = 0; c < depth; c++) max = x[c] > max ? x[c] : max;
        /* Sum of exp(diff) in Q12.19; diffs scaled to Q5.26. */
        uint32_t sum = 0;
        for (int32_t c = 0; c < depth; c++) {
            const int32_t diff = x[c] - max;
            if (diff >= b->diff_min) {
                const int32_t d5 = k_mbqm(diff, b->mult, b->shift);
                sum += (uint32_t)k_rdpot(k_fx_exp_on_negative_values(d5, 5), 12);
            }
        }
        const int32_t log_sum = k_fx_log_q12_to_q5((int32_t)sum);
        const int32_t shifted = (int32_t)((uint32_t)log_sum + 0x80000000u);
        int32_t adjusted_min = k_mbqm(shifted, b->rev_mult, b->rev_shift);
        if (adjusted_min < b->diff_min - 1) adjusted_min = b->diff_min - 1;
        for (int32_t c = 0; c < depth; c++) {
            const int32_t diff = x[c] - max;
            if (diff > adjusted_min) {
                const int32_t d5 = k_mbqm(diff, b->mult, b->shift);
                const int32_t v = k_rdpot((int32_t)((uint32_t)d5 - (uint32_t)log_sum), 31 - 5 - 4);
                y[c] = (int8_t)k_clamp_i32(v + INT8_MAX, INT8_MIN, INT8_MAX);
            } else {
                y[c] = INT8_MIN;
            }
        }
    }
}

/* ---- dispatch ----------------------------------------------------------------- */

static uint32_t type_size(int32_t t)
{
    switch (t) {
    case K_MATH_T_S8: case K_MATH_T_BOOL: case K_MATH_T_U8: return 1;
    case K_MATH_T_S16: return 2;
    case K_MATH_T_S32: case K_MATH_T_U32: case K_MATH_T_F32: return 4;
    default: return 0;
    }
}

int k_op_cast_in_place(const void *params, uint32_t params_size)
{
    k_op_math_blob b;
    if (!params || params_size < sizeof b) return 0;
    memcpy(&b, params, sizeof b);
    uint32_t i = type_size(b.src_type), o = type_size(b.dst_type);
    return i && o && o <= i;
}

/* Input and output element sizes; 0 for a kind outside the family. */
static void io_sizes(uint32_t kind, const k_op_math_blob *b, uint32_t *ies, uint32_t *oes)
{
    uint32_t i = 4, o = 4;
    switch (kind) {
    case K_OP_ABS_S8: case K_OP_RSQRT_S8: case K_OP_ELU_S8: case K_OP_ZEROS_X8: case K_OP_LOGICAL_NOT_B8:
    case K_OP_L2NORM_S8: case K_OP_LOG_SOFTMAX_S8:
        i = o = 1;
        break;
    case K_OP_ABS_S16: case K_OP_ABS_S16_RAW: case K_OP_RSQRT_S16: i = o = 2; break;
    case K_OP_ZEROS_X64: i = o = 8; break;
    case K_OP_CAST:
        i = type_size(b->src_type);
        o = type_size(b->dst_type);
        break;
    default:
        if (kind < K_OP_MATH_FIRST || kind > K_OP_LOG_SOFTMAX_S8) i = o = 0;
        break;
    }
    *ies = i;
    *oes = o;
}

static bool row_kind(uint32_t kind)
{
    return kind == K_OP_L2NORM_F32 || kind == K_OP_L2NORM_S8 || kind == K_OP_LOG_SOFTMAX_F32 ||
           kind == K_OP_LOG_SOFTMAX_S8;
}

static int check(uint32_t kind, const k_op_math_blob *b)
{
    switch (kind) {
    case K_OP_ABS_S8: case K_OP_ABS_S16: {
        const int32_t lo = kind == K_OP_ABS_S8 ? INT8_MIN : INT16_MIN, hi = kind == K_OP_ABS_S8 ? INT8_MAX : INT16_MAX;
        if (!k_op_in_range(b->in_zp, lo, hi) || !k_op_in_range(b->out_zp, lo, hi) || !k_op_in_range(b->rescale, 0, 1) ||
            (b->rescale && !k_op_in_range(b->shift, -31, 31)))
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_RSQRT_S8: case K_OP_RSQRT_S16: {
        const int32_t lo = kind == K_OP_RSQRT_S8 ? INT8_MIN : INT16_MIN, hi = kind == K_OP_RSQRT_S8 ? INT8_MAX : INT16_MAX;
        /* shift - 20 is a rounding right shift of at most 31 bits. */
        if (!k_op_in_range(b->in_zp, lo, hi) || !k_op_in_range(b->out_zp, lo, hi) || !k_op_in_range(b->shift, -11, 51))
            return K_E_INVALID;
        return K_OK;
    }
    case K_OP_L2NORM_S8:
        return k_op_in_range(b->in_zp, INT8_MIN, INT8_MAX) ? K_OK : K_E_INVALID;
    case K_OP_LOG_SOFTMAX_S8:
        /* Scaled diffs stay <= 0 (multiplier >= 0), the left shift below 31,
         * diff_min <= 0 so diff_min - 1 does not overflow. */
        if (b->mult < 0 || !k_op_in_range(b->shift, 0, 30) || !k_op_in_range(b->rev_shift, -31, 31) ||
            !k_op_in_range(b->diff_min, -INT32_MAX, 0))
            return K_E_INVALID;
        return K_OK;
    case K_OP_CAST:
        if (!type_size(b->src_type) || !type_size(b->dst_type) || b->dst_type == K_MATH_T_BOOL) return K_E_INVALID;
        return K_OK;
    default: return K_OK;
    }
}

int k_op_run_math(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_math_blob b;
    K_OP_LOAD(b, blob, size);
    uint32_t ies, oes;
    io_sizes(kind, &b, &ies, &oes);
    if (!ies || !oes || b.n < 0) return K_E_INVALID;
    if (row_kind(kind) && !k_op_rows_ok(b.outer, b.depth, b.n)) return K_E_INVALID;
    int rc = check(kind, &b);
    if (rc) return rc;
    const int8_t *lut = NULL;
    if (kind == K_OP_ELU_S8 && !(lut = k_op_array(blob, size, b.lut_off, 256, 1))) return K_E_INVALID;
    if (!io) return K_OK;

    void *in = NULL, *out;
    const bool zeros = kind == K_OP_ZEROS_X8 || kind == K_OP_ZEROS_X32 || kind == K_OP_ZEROS_X64;
    if ((!zeros && (rc = k_op_in(io, 0, (uint64_t)b.n * ies, ies, &in))) ||
        (rc = k_op_out(io, 0, (uint64_t)b.n * oes, oes, &out)))
        return rc;
    const int32_t n = b.n;
    switch (kind) {
    case K_OP_ABS_S8: case K_OP_ABS_S16: case K_OP_RSQRT_S8: case K_OP_RSQRT_S16: return map_q(kind, &b, in, out, n);
    case K_OP_ABS_S16_RAW: {
        /* std::abs on the promoted int, stored back: |-32768| wraps to -32768. */
        const int16_t *x = in;
        int16_t *y = out;
        for (int32_t i = 0; i < n; i++) y[i] = x[i] == INT16_MIN ? INT16_MIN : (int16_t)(x[i] < 0 ? -x[i] : x[i]);
        return K_OK;
    }
    case K_OP_ELU_S8: {
        const int8_t *x = in;
        int8_t *y = out;
        for (int32_t i = 0; i < n; i++) y[i] = lut[(uint8_t)x[i]];
        return K_OK;
    }
    case K_OP_CAST: return cast_run(&b, in, out, n);
    case K_OP_ZEROS_X8: case K_OP_ZEROS_X32: case K_OP_ZEROS_X64:
        if (n) memset(out, 0, (size_t)n * oes);
        return K_OK;
    case K_OP_LOGICAL_NOT_B8: {
        const uint8_t *x = in;
        uint8_t *y = out;
        for (int32_t i = 0; i < n; i++) y[i] = x[i] == 0;
        return K_OK;
    }
    case K_OP_L2NORM_F32: l2norm_f32(in, out, b.outer, b.depth); return K_OK;
    case K_OP_L2NORM_S8: l2norm_s8(b.in_zp, in, out, b.outer, b.depth); return K_OK;
    case K_OP_LOG_SOFTMAX_F32: log_softmax_f32(in, out, b.outer, b.depth); return K_OK;
    case K_OP_LOG_SOFTMAX_S8: log_softmax_s8(&b, in, out, b.outer, b.depth); return K_OK;
    default: return math_f32(kind, in, out, n);
    }
}
