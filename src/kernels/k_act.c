/* RELU / RELU6 / RELU_N1_TO_1, LEAKY_RELU and HARD_SWISH reference kernels. */
#include "k_activation.h"

#include <math.h>

/* ---- RELU family --------------------------------------------------------- */

void k_relu_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                    int32_t output_zero_point, float lo, float hi, int32_t qmin, int32_t qmax,
                    k_relu_params *p)
{
    /* TFLite: the ratio is formed in float, then widened. */
    double real = (double)(input_scale / output_scale);
    k_quantize_multiplier(real, &p->mult, &p->shift);
    p->input_zero_point = input_zero_point;
    p->output_zero_point = output_zero_point;
    int32_t lo_q = k_q_sat(output_zero_point, lo / output_scale);
    p->act_min = lo_q > qmin ? lo_q : qmin;
    if (isinf(hi) && hi > 0) {
        p->act_max = qmax;
    } else {
        int32_t hi_q = k_q_sat(output_zero_point, hi / output_scale);
        p->act_max = hi_q < qmax ? hi_q : qmax;
    }
}

#define K_RELU_BODY()                                                             \
    do {                                                                          \
        const int32_t izp = p->input_zero_point, ozp = p->output_zero_point;      \
        const int32_t m = p->mult, s = p->shift, lo = p->act_min, hi = p->act_max; \
        for (int32_t i = 0; i < n; i++) {                                         \
            output[i] = k_add_clamp_i32(ozp, k_mbqm((int32_t)input[i] - izp, m, s), lo, hi); \
        }                                                                         \
    } while (0)

int k_relu_s8(const k_relu_params *p, const int8_t *input, int8_t *output, int32_t n)
{
    if (!p || n < 0 || p->act_min < INT8_MIN || p->act_max > INT8_MAX) return K_E_INVALID;
    K_RELU_BODY();
    return K_OK;
}

int k_relu_s16(const k_relu_params *p, const int16_t *input, int16_t *output, int32_t n)
{
    if (!p || n < 0 || p->act_min < INT16_MIN || p->act_max > INT16_MAX) return K_E_INVALID;
    K_RELU_BODY();
    return K_OK;
}

int k_relu_f32(const float *input, float *output, int32_t n, float lo, float hi)
{
    if (n < 0) return K_E_INVALID;
    for (int32_t i = 0; i < n; i++) {
        float v = input[i];
        output[i] = v > hi ? hi : (v < lo ? lo : v);
    }
    return K_OK;
}

/* ---- LEAKY_RELU ---------------------------------------------------------- */

void k_leaky_relu_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                          int32_t output_zero_point, float alpha, k_leaky_relu_params *p)
{
    p->input_zero_point = input_zero_point;
    p->output_zero_point = output_zero_point;
    /* Both ratios are formed in float (left to right), then widened. */
    float alpha_ratio = input_scale * alpha / output_scale;
    float identity_ratio = input_scale / output_scale;
    k_quantize_multiplier((double)alpha_ratio, &p->mult_alpha, &p->shift_alpha);
    k_quantize_multiplier((double)identity_ratio, &p->mult_identity, &p->shift_identity);
}

/* A negative alpha gives a negative multiplier: the magnitude is applied and
 * the product negated (TFLite's QuantizeLeakyRelu). */
#define K_LEAKY_BODY(QMIN, QMAX)                                                  \
    do {                                                                          \
        const int32_t izp = p->input_zero_point, ozp = p->output_zero_point;      \
        const bool neg_alpha = p->mult_alpha < 0;                                 \
        const int32_t ma = neg_alpha ? (int32_t)(0u - (uint32_t)p->mult_alpha)    \
                                     : p->mult_alpha;                             \
        const int32_t sa = p->shift_alpha;                                        \
        const int32_t mi = p->mult_identity, si = p->shift_identity;              \
        for (int32_t i = 0; i < n; i++) {                                         \
            int32_t x = (int32_t)input[i] - izp;                                  \
            int64_t v;                                                            \
            if (x >= 0) {                                                         \
                v = (int64_t)ozp + k_mbqm(x, mi, si);                             \
            } else {                                                              \
                int64_t a = k_mbqm(x, ma, sa);                                    \
                v = (int64_t)ozp + (neg_alpha ? -a : a);                          \
            }                                                                     \
            v = v < (QMIN) ? (QMIN) : v;                                          \
            v = v > (QMAX) ? (QMAX) : v;                                          \
            output[i] = (int32_t)v;                                               \
        }                                                                         \
    } while (0)

int k_leaky_relu_s8(const k_leaky_relu_params *p, const int8_t *input, int8_t *output, int32_t n)
{
    if (!p || n < 0) return K_E_INVALID;
    K_LEAKY_BODY(INT8_MIN, INT8_MAX);
    return K_OK;
}

int k_leaky_relu_s16(const k_leaky_relu_params *p, const int16_t *input, int16_t *output,
                     int32_t n)
{
    if (!p || n < 0) return K_E_INVALID;
    K_LEAKY_BODY(INT16_MIN, INT16_MAX);
    return K_OK;
}

int k_leaky_relu_f32(float alpha, const float *input, float *output, int32_t n)
{
    if (n < 0) return K_E_INVALID;
    for (int32_t i = 0; i < n; i++) {
        float v = input[i];
        output[i] = v > 0 ? v : v * alpha;
    }
    return K_OK;
}

/* ---- HARD_SWISH ---------------------------------------------------------- */

/* 16-bit helpers with gemmlowp's int16 semantics. Results that gemmlowp
 * narrows to int16 are wrapped the same way (two's complement). */
static inline int16_t wrap16(int32_t v)
{
    /* the low 16 bits, in unsigned arithmetic (v + 32768 overflows for v
     * near INT32_MAX) */
    int32_t lo = (int32_t)((uint32_t)v & 0xFFFFu);
    return (int16_t)(lo >= 32768 ? lo - 65536 : lo);
}

/* Rounding doubling high multiply, Q0.15. */
static inline int16_t srdhm16(int16_t a, int16_t b)
{
    if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
    int32_t ab = (int32_t)a * (int32_t)b;
    int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return wrap16((ab + nudge) / (1 << 15));
}

/* Doubling high multiply rounding toward zero (SQDMULH). */
static inline int16_t sdhm16(int16_t a, int16_t b)
{
    if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
    int32_t ab = (int32_t)a * (int32_t)b;
    return wrap16(ab / (1 << 15));
}

/* Rounding divide by 2^e on int16 values. The mask is narrowed to 16 bits
 * like gemmlowp's, which matters only for e >= 16. */
static inline int16_t rdpot16(int16_t x, int e)
{
    int16_t mask = wrap16((int32_t)(((int64_t)1 << e) - 1));
    int16_t rem = (int16_t)(x & mask);
    int16_t threshold = wrap16((mask >> 1) + (x < 0 ? 1 : 0));
    return wrap16((x >> e) + (rem > threshold ? 1 : 0));
}

static inline int16_t sat_shl16(int16_t v, int amount)
{
    int64_t r = (int64_t)v * ((int64_t)1 << amount);
    if (r > INT16_MAX) r = INT16_MAX;
    if (r < INT16_MIN) r = INT16_MIN;
    return (int16_t)r;
}

/* TFLite's DownScaleInt32ToInt16Multiplier. */
static int16_t downscale_mult16(int32_t m)
{
    if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
    return (int16_t)((m + (1 << 15)) >> 16);
}

int k_hard_swish_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                         int32_t output_zero_point, k_hard_swish_params *p)
{
    const float hires_input_scale = (1.0f / 128.0f) * input_scale;
    const float reluish_scale = 3.0f / 32768.0f;
    int32_t m, s;
    p->input_zero_point = input_zero_point;
    p->output_zero_point = output_zero_point;
    k_quantize_multiplier((double)(hires_input_scale / output_scale), &m, &s);
    p->output_mult = downscale_mult16(m);
    p->output_shift = s;
    k_quantize_multiplier((double)(hires_input_scale / reluish_scale), &m, &s);
    p->reluish_mult = downscale_mult16(m);
    p->reluish_shift = s;
    return p->output_shift <= 0 ? K_OK : K_E_UNSUPPORTED;
}

int k_hard_swish_s8(const k_hard_swish_params *p, const int8_t *input, int8_t *output, int32_t n)
{
    if (!p || n < 0 || p->output_shift > 0 || p->output_shift < -31 || p->reluish_shift > 31 ||
        p->reluish_shift < -31)
        return K_E_INVALID;
    const int32_t izp = p->input_zero_point, ozp = p->output_zero_point;
    const int16_t om = p->output_mult, rm = p->reluish_mult;
    const int32_t rs = p->reluish_shift, os = -p->output_shift;
    for (int32_t i = 0; i < n; i++) {
        /* Input on a 2^7 finer scale to use the 16 bits. */
        int16_t x = wrap16(((int32_t)input[i] - izp) * 128);
        /* x times the output multiplier, before the final right shift. */
        int16_t x_out = srdhm16(x, om);
        /* "reluish" factor: x rescaled so that 3.0 maps to 2^15 (saturating),
         * then moved from [-1, 1] to [0, 1]. */
        int16_t r = x;
        if (rs > 0) r = sat_shl16(r, rs - 1);
        r = srdhm16(r, rm);
        if (rs > 0) r = sat_shl16(r, 1);
        if (rs < 0) r = rdpot16(r, -rs);
        r = (int16_t)(((int32_t)r + (1 << 15)) >> 1);
        int16_t y = sdhm16(r, x_out);
        y = rdpot16(y, os);
        y = wrap16((int32_t)y + ozp);
        int32_t v = y;
        v = v > INT8_MAX ? INT8_MAX : v;
        v = v < INT8_MIN ? INT8_MIN : v;
        output[i] = (int8_t)v;
    }
    return K_OK;
}

int k_hard_swish_f32(const float *input, float *output, int32_t n)
{
    if (n < 0) return K_E_INVALID;
    for (int32_t i = 0; i < n; i++) {
        const float x = input[i];
        /* min(6, max(0, x + 3)) with std::min/max's comparison order. */
        float t = x + 3.0f;
        t = (0.0f < t) ? t : 0.0f;
        t = (t < 6.0f) ? t : 6.0f;
        output[i] = x * t / 6.0f;
    }
    return K_OK;
}
