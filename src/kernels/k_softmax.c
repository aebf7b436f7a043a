/* SOFTMAX reference kernels: int8 -> int8 / int16 (gemmlowp fixed point, as
 * TFLite's reference), int16 -> int16 (TFLite's exp and 1/(1+x) tables),
 * float32. Rows are the last dimension. */
#include "k_activation.h"

#include <math.h>

/* ---- parameter preparation ---------------------------------------------- */

int k_softmax_s8_prepare(float input_scale, float beta, k_softmax_s8_params *p)
{
    /* Scaled differences are Q5.26 (5 integer bits). The real multiplier
     * beta * scale * 2^26 is capped at 2^31 - 1 (TFLite's
     * PreprocessSoftmaxScaling, double-rounding build). */
    const int diff_integer_bits = 5;
    double real = (double)beta * (double)input_scale * (double)(1 << (31 - diff_integer_bits));
    const double cap = (double)((1ll << 31) - 1);
    if (real > cap) real = cap;
    /* TFLite requires a multiplier > 1 (QuantizeMultiplierGreaterThanOne). */
    if (!(real > 1.0)) return K_E_UNSUPPORTED;
    k_quantize_multiplier(real, &p->input_multiplier, &p->input_left_shift);
    /* A left shift of 31 or more overflows TFLite's x * (1 << shift). */
    if (p->input_left_shift < 0 || p->input_left_shift > 30) return K_E_UNSUPPORTED;
    /* diff_min = -floor(31 * 2^26 / 2^left_shift) (CalculateInputRadius). */
    double radius = floor(ldexp((double)((1 << diff_integer_bits) - 1),
                                31 - diff_integer_bits - p->input_left_shift));
    p->diff_min = -(int32_t)radius;
    return K_OK;
}

int k_softmax_s16_prepare(float input_scale, float beta, k_softmax_s16_params *p)
{
    /* Input differences are scaled so that [-65535, 0] covers [-10, 0]. */
    double real = (double)input_scale * (double)beta / (10.0 / 65535.0);
    k_quantize_multiplier(real, &p->input_multiplier, &p->input_left_shift);
    if (p->input_left_shift > 31) return K_E_UNSUPPORTED;
    p->exp_lut = NULL;
    p->one_over_one_plus_x_lut = NULL;
    return K_OK;
}

/* TFLite's int16 table generator (LUTPopulate<int16_t> with float math):
 * 512 samples of f on [in_min, in_max] plus the end point, each biased by
 * half the midpoint interpolation error, on the output scale
 * [out_min, out_max] mapped to 65536 steps. */
static float lut_exp(float x)
{
    return expf(x);
}

static float lut_recip(float x)
{
    return 1.0f / (1.0f + x);
}

static void lut_populate_s16(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                             float (*f)(float), int16_t *lut)
{
    const float in_min = in_scale * (float)(INT16_MIN - in_zp);
    const float in_max = in_scale * (float)(INT16_MAX - in_zp);
    const float out_min = out_scale * (float)(INT16_MIN - out_zp);
    const float out_max = out_scale * (float)(INT16_MAX - out_zp);
    const int steps = 512;
    const float step = (in_max - in_min) / (float)steps;
    const float half_step = step / 2.0f;
    const float inv = 65536.0f / (out_max - out_min);
    const float tmin = (float)INT16_MIN, tmax = (float)INT16_MAX;
    for (int i = 0; i < steps; i++) {
        const float x = in_min + (float)i * step;
        const float v = f(x);
        const float v_mid = f(x + half_step);
        const float v_next = f(in_min + (float)(i + 1) * step);
        const float sample = roundf(v * inv);
        const float mid_interp = roundf((v_next * inv + roundf(v * inv)) / 2.0f);
        const float mid_exact = roundf(v_mid * inv);
        const float bias = roundf((mid_interp - mid_exact) / 2.0f);
        float q = sample - bias;
        q = (q < tmin) ? tmin : q;   /* std::max(q, tmin) */
        q = (tmax < q) ? tmax : q;   /* std::min(q, tmax) */
        lut[i] = (int16_t)q;
    }
    float q = roundf(f(in_max) * inv);
    q = (q < tmin) ? tmin : q;
    q = (tmax < q) ? tmax : q;
    lut[steps] = (int16_t)q;
}

void k_softmax_s16_luts(int16_t exp_lut[K_SOFTMAX_LUT_SIZE],
                        int16_t one_over_one_plus_x_lut[K_SOFTMAX_LUT_SIZE])
{
    const int32_t range = INT16_MAX - INT16_MIN; /* 65535 */
    /* exp on [-10, 0]: input zero point 32767 puts 0.0 at the top. */
    lut_populate_s16(10.0f / (float)range, INT16_MAX, 2.0f / (float)range, 0, lut_exp, exp_lut);
    /* 1/(1+x) on [0, 1]: input zero point -32768 puts 0.0 at the bottom. */
    lut_populate_s16(1.0f / (float)range, INT16_MIN, 2.0f / (float)range, 0, lut_recip,
                     one_over_one_plus_x_lut);
}

/* TFLite's interpolating lookup in a 513-entry int16 table: the top 9 bits
 * select the entry, the low 7 interpolate towards the next one. */
static inline int16_t lut_lookup_s16(int16_t v, const int16_t *lut)
{
    const uint16_t idx = (uint16_t)(256 + (v >> 7));
    const int32_t frac = v & 0x7F;
    const int16_t base = lut[idx];
    const int16_t slope = (int16_t)(uint16_t)((uint16_t)lut[idx + 1] - (uint16_t)base);
    const int32_t delta = ((int32_t)slope * frac + 64) >> 7;
    return (int16_t)(uint16_t)((uint32_t)(int32_t)base + (uint32_t)delta);
}

/* ---- int8 input ------------------------------------------------------------ */

/* gemmlowp's RoundingDivideByPOT, also for exponents 32..35. TFLite shifts
 * a 32-bit value by the exponent, undefined in C past 31 (int8 output once
 * a row's exp sum reaches 2^28, e.g. 512 equal values); npuc takes the
 * exactly rounded quotient there, which is 0 for the non-negative values
 * softmax divides (docs/kernels.md). */
static int32_t rdpot_wide(int32_t x, int exponent)
{
    if (exponent <= 31) return k_rdpot(x, exponent);
    int64_t mask = ((int64_t)1 << exponent) - 1;
    int64_t rem = (int64_t)x & mask;
    int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (int32_t)(((int64_t)x >> exponent) + (rem > threshold ? 1 : 0));
}

/* One row for an int8 input; out_bits 8 or 16 selects the output type
 * (written through out8 or out16). */
static int softmax_s8_row(const k_softmax_s8_params *p, const int8_t *in, int8_t *out8,
                          int16_t *out16, int32_t depth)
{
    const int32_t mult = p->input_multiplier, lshift = p->input_left_shift;
    const int32_t diff_min = p->diff_min;
    int32_t max_v = INT8_MIN;
    for (int32_t c = 0; c < depth; c++)
        if (in[c] > max_v) max_v = in[c];

    /* Sum of exp(diff) in Q12.19. */
    int32_t sum = 0;
    for (int32_t c = 0; c < depth; c++) {
        int32_t diff = (int32_t)in[c] - max_v;
        if (diff >= diff_min) {
            int32_t scaled = k_srdhm((int32_t)((uint32_t)diff << lshift), mult); /* Q5.26 */
            int32_t e = k_fx_exp_on_negative_values(scaled, 5);                 /* Q0.31 */
            sum = (int32_t)((uint32_t)sum + (uint32_t)k_rdpot(e, 12));
        }
    }

    /* 1 / sum as a Q0.31 mantissa and a power of two (GetReciprocal). */
    const int headroom_plus_one = k_clz32((uint32_t)sum);
    const int bits_over_unit = 12 - headroom_plus_one;
    const int32_t sum_minus_one =
        (int32_t)(((uint32_t)sum << (headroom_plus_one & 31)) - (1u << 31));
    const int32_t scale = k_fx_one_over_one_plus_x(sum_minus_one);
    const int out_bits = out8 ? 8 : 16;
    const int exponent = bits_over_unit + 31 - out_bits;
    /* headroom 0: the 32-bit sum wrapped (depth > 4095) */
    if (headroom_plus_one == 0 || headroom_plus_one >= 32 || exponent < 0) return K_E_UNSUPPORTED;
    const int32_t qmin = out8 ? INT8_MIN : INT16_MIN;
    const int32_t qmax = out8 ? INT8_MAX : INT16_MAX;

    for (int32_t c = 0; c < depth; c++) {
        int32_t diff = (int32_t)in[c] - max_v;
        int32_t v = qmin;
        if (diff >= diff_min) {
            int32_t scaled = k_srdhm((int32_t)((uint32_t)diff << lshift), mult);
            int32_t e = k_fx_exp_on_negative_values(scaled, 5);
            v = rdpot_wide(k_srdhm(scale, e), exponent) + qmin;
            v = v > qmax ? qmax : (v < qmin ? qmin : v);
        }
        if (out8)
            out8[c] = (int8_t)v;
        else
            out16[c] = (int16_t)v;
    }
    return K_OK;
}

static int check_s8_params(const k_softmax_s8_params *p, int32_t outer, int32_t depth)
{
    if (!p || outer < 0 || depth < 0) return K_E_INVALID;
    if (p->input_left_shift < 0 || p->input_left_shift > 30) return K_E_INVALID;
    return K_OK;
}

int k_softmax_s8(const k_softmax_s8_params *p, const int8_t *input, int8_t *output,
                 int32_t outer, int32_t depth)
{
    int rc = check_s8_params(p, outer, depth);
    for (int32_t i = 0; !rc && i < outer; i++)
        rc = softmax_s8_row(p, input + (size_t)i * depth, output + (size_t)i * depth, NULL, depth);
    return rc;
}

int k_softmax_s8_s16(const k_softmax_s8_params *p, const int8_t *input, int16_t *output,
                     int32_t outer, int32_t depth)
{
    int rc = check_s8_params(p, outer, depth);
    for (int32_t i = 0; !rc && i < outer; i++)
        rc = softmax_s8_row(p, input + (size_t)i * depth, NULL, output + (size_t)i * depth, depth);
    return rc;
}

/* ---- int16 ----------------------------------------------------------------- */

int k_softmax_s16(const k_softmax_s16_params *p, const int16_t *input, int16_t *output,
                  int32_t outer, int32_t depth)
{
    if (!p || !p->exp_lut || !p->one_over_one_plus_x_lut || outer < 0 || depth < 0 ||
        p->input_left_shift > 31 || p->input_left_shift < -31)
        return K_E_INVALID;
    const int32_t mult = p->input_multiplier, shift = p->input_left_shift;
    for (int32_t i = 0; i < outer; i++) {
        const int16_t *in = input + (size_t)i * depth;
        int16_t *out = output + (size_t)i * depth;
        int32_t max_v = INT16_MIN;
        for (int32_t c = 0; c < depth; c++)
            if (in[c] > max_v) max_v = in[c];

        /* exp(diff) in Q0.15, kept in the output row; sum in Q16.15. */
        int64_t sum = 0;
        for (int32_t c = 0; c < depth; c++) {
            int32_t scaled = k_mbqm((int32_t)in[c] - max_v, mult, shift);
            /* [-65535, 0] -> [-32768, 32767]; 64 bits for any multiplier */
            int64_t sym = (int64_t)scaled + 32767;
            sym = sym < INT16_MIN ? INT16_MIN : (sym > INT16_MAX ? INT16_MAX : sym);
            out[c] = lut_lookup_s16((int16_t)sym, p->exp_lut);
            sum += out[c];
        }
        if (sum <= 0 || sum > INT32_MAX) return K_E_UNSUPPORTED;

        /* Normalise the sum to [1, 2) in Q1.14 steps, look up 1/(1+x) with
         * x = sum - 1 recentred to [-32768, 32767]. */
        const int headroom_plus_one = k_clz32((uint32_t)sum);
        int32_t shifted = (int32_t)(((sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
        int32_t sym = shifted - ((1 << 15) + (1 << 16));
        sym = sym < INT16_MIN ? INT16_MIN : (sym > INT16_MAX ? INT16_MAX : sym);
        const int16_t recip = lut_lookup_s16((int16_t)sym, p->one_over_one_plus_x_lut);

        const int right_shift = 31 - headroom_plus_one;
        /* right_shift is 0 only for a sum of 1, which the exp LUT of a real
         * model cannot give (exp(0) alone is ~32767); no rounding then */
        const int64_t round = right_shift > 0 ? (int64_t)1 << (right_shift - 1) : 0;
        for (int32_t c = 0; c < depth; c++) {
            int32_t r = (int32_t)(((int64_t)out[c] * (int64_t)recip + round) >> right_shift);
            out[c] = (int16_t)(r < 0 ? 0 : (r > INT16_MAX ? INT16_MAX : r));
        }
    }
    return K_OK;
}

/* ---- float32 --------------------------------------------------------------- */

int k_softmax_f32(float beta, const float *input, float *output, int32_t outer, int32_t depth)
{
    if (outer < 0 || depth < 0) return K_E_INVALID;
    for (int32_t i = 0; i < outer; i++) {
        const float *in = input + (size_t)i * depth;
        float *out = output + (size_t)i * depth;
        float max_v = -3.40282347e+38f; /* lowest float */
        for (int32_t c = 0; c < depth; c++)
            max_v = (max_v < in[c]) ? in[c] : max_v;
        float sum = 0.0f;
        for (int32_t c = 0; c < depth; c++) {
            const float e = expf((in[c] - max_v) * beta);
            out[c] = e;
            sum += e;
        }
        for (int32_t c = 0; c < depth; c++) out[c] = out[c] / sum;
    }
    return K_OK;
}
