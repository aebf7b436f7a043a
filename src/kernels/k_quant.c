/* QUANTIZE (float -> integer, integer -> integer requantization) and
 * DEQUANTIZE reference kernels. */
#include "k_activation.h"

#include <math.h>

void k_requant_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                       int32_t output_zero_point, k_requant_params *p)
{
    /* TFLite Micro: both scales widened to double before dividing. */
    double effective = (double)input_scale / (double)output_scale;
    k_quantize_multiplier(effective, &p->mult, &p->shift);
    p->input_zero_point = input_zero_point;
    p->output_zero_point = output_zero_point;
}

/* out = clamp(mbqm(in - izp) + ozp). The subtraction and addition wrap in
 * 32 bits (only reachable with int32 data near the limits, where TFLite's
 * arithmetic overflows). */
#define K_REQUANT_BODY(QMIN, QMAX)                                                     \
    do {                                                                               \
        if (!p || n < 0 || p->shift > 31 || p->shift < -31) return K_E_INVALID;       \
        const uint32_t izp = (uint32_t)p->input_zero_point;                            \
        const uint32_t ozp = (uint32_t)p->output_zero_point;                           \
        const int32_t m = p->mult, s = p->shift;                                       \
        for (int32_t i = 0; i < n; i++) {                                              \
            int32_t x = (int32_t)((uint32_t)(int32_t)input[i] - izp);                  \
            int32_t v = (int32_t)((uint32_t)k_mbqm(x, m, s) + ozp);                    \
            v = v < (QMIN) ? (QMIN) : v;                                               \
            v = v > (QMAX) ? (QMAX) : v;                                               \
            output[i] = v;                                                             \
        }                                                                              \
        return K_OK;                                                                   \
    } while (0)

int k_requant_s8_s8(const k_requant_params *p, const int8_t *input, int8_t *output, int32_t n)
{
    K_REQUANT_BODY(INT8_MIN, INT8_MAX);
}

int k_requant_s8_u8(const k_requant_params *p, const int8_t *input, uint8_t *output, int32_t n)
{
    K_REQUANT_BODY(0, (int32_t)UINT8_MAX);
}

int k_requant_u8_s8(const k_requant_params *p, const uint8_t *input, int8_t *output, int32_t n)
{
    K_REQUANT_BODY(INT8_MIN, INT8_MAX);
}

int k_requant_s8_s16(const k_requant_params *p, const int8_t *input, int16_t *output, int32_t n)
{
    K_REQUANT_BODY(INT16_MIN, INT16_MAX);
}

int k_requant_s8_s32(const k_requant_params *p, const int8_t *input, int32_t *output, int32_t n)
{
    K_REQUANT_BODY(INT32_MIN, INT32_MAX);
}

int k_requant_s16_s8(const k_requant_params *p, const int16_t *input, int8_t *output, int32_t n)
{
    K_REQUANT_BODY(INT8_MIN, INT8_MAX);
}

int k_requant_s16_s16(const k_requant_params *p, const int16_t *input, int16_t *output,
                      int32_t n)
{
    K_REQUANT_BODY(INT16_MIN, INT16_MAX);
}

int k_requant_s16_s32(const k_requant_params *p, const int16_t *input, int32_t *output,
                      int32_t n)
{
    K_REQUANT_BODY(INT32_MIN, INT32_MAX);
}

int k_requant_s32_s8(const k_requant_params *p, const int32_t *input, int8_t *output, int32_t n)
{
    K_REQUANT_BODY(INT8_MIN, INT8_MAX);
}

int k_requant_s32_s16(const k_requant_params *p, const int32_t *input, int16_t *output,
                      int32_t n)
{
    K_REQUANT_BODY(INT16_MIN, INT16_MAX);
}

/* round(in / scale) in float, as int64; NaN maps below any range (to the
 * type minimum after clamping), infinities and huge values saturate. */
static inline int64_t quantize_round(float x, float scale)
{
    const float r = roundf(x / scale);
    if (r != r) return INT64_MIN / 2;
    if (r >= 2147483648.0f) return INT32_MAX;
    if (r < -2147483648.0f) return INT32_MIN;
    return (int64_t)(int32_t)r;
}

/* The QUANTIZE kernels (K_REQUANT_BODY above, K_QUANTIZE_BODY below) read
 * element i before they write element i, in increasing i: the output may
 * start at the input's first byte when its elements are no wider (the
 * compiler writes a CPU QUANTIZE over its input so, cc_alloc.c
 * cpu_inplace_pairs). Keep that order. */
#define K_QUANTIZE_BODY(QMIN, QMAX)                                      \
    do {                                                                 \
        if (n < 0) return K_E_INVALID;                                   \
        for (int32_t i = 0; i < n; i++) {                                \
            int64_t v = quantize_round(input[i], scale) + zp;            \
            v = v < (QMIN) ? (QMIN) : v;                                 \
            v = v > (QMAX) ? (QMAX) : v;                                 \
            output[i] = v;                                               \
        }                                                                \
        return K_OK;                                                     \
    } while (0)

int k_quantize_f32_s8(const float *input, int8_t *output, int32_t n, float scale, int32_t zp)
{
    K_QUANTIZE_BODY(INT8_MIN, INT8_MAX);
}

int k_quantize_f32_u8(const float *input, uint8_t *output, int32_t n, float scale, int32_t zp)
{
    K_QUANTIZE_BODY(0, UINT8_MAX);
}

int k_quantize_f32_s16(const float *input, int16_t *output, int32_t n, float scale, int32_t zp)
{
    K_QUANTIZE_BODY(INT16_MIN, INT16_MAX);
}

#define K_DEQUANTIZE_BODY()                                                    \
    do {                                                                       \
        if (n < 0) return K_E_INVALID;                                         \
        const double s = (double)scale;                                        \
        for (int32_t i = 0; i < n; i++)                                        \
            output[i] = (float)(s * (double)((int32_t)input[i] - zp));         \
        return K_OK;                                                           \
    } while (0)

int k_dequantize_s8_f32(const int8_t *input, float *output, int32_t n, float scale, int32_t zp)
{
    K_DEQUANTIZE_BODY();
}

int k_dequantize_u8_f32(const uint8_t *input, float *output, int32_t n, float scale, int32_t zp)
{
    K_DEQUANTIZE_BODY();
}

int k_dequantize_s16_f32(const int16_t *input, float *output, int32_t n, float scale, int32_t zp)
{
    K_DEQUANTIZE_BODY();
}
