/* kernels: activations (RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH,
 * LOGISTIC, TANH), SOFTMAX and (de)quantization (QUANTIZE, DEQUANTIZE).
 *
 * Integer results follow TFLite Micro's reference kernels bit for bit (the
 * gemmlowp fixed-point math they use is re-implemented in k_act_fixed.c).
 * Every kernel works on a flat array of n elements (softmax: outer rows of
 * `depth` elements, the last dimension). The *_prepare functions compute the
 * kernel parameters from the tensors' float scales with the float/double
 * arithmetic TFLite uses; they return K_E_UNSUPPORTED for parameter ranges
 * TFLite rejects (or leaves undefined).
 *
 * Multipliers are in TFLite form: real = mult * 2^(shift - 31), shift > 0
 * shifts left. */
#ifndef NPUC_K_ACTIVATION_H
#define NPUC_K_ACTIVATION_H

#include "k_common.h"

/* ---- gemmlowp-style fixed point (int32 raw values) ---------------------- */

/* exp(x) for x <= 0 given in Q(ibits).(31-ibits); result in Q0.31
 * (gemmlowp exp_on_negative_values). 0 <= ibits <= 30. */
int32_t k_fx_exp_on_negative_values(int32_t x, int ibits);
/* 1 / (1 + x) for x in [0, 1) in Q0.31; result in Q0.31
 * (gemmlowp one_over_one_plus_x_for_x_in_0_1). */
int32_t k_fx_one_over_one_plus_x(int32_t x);
/* logistic(x) / tanh(x) for x in Q(ibits).(31-ibits); result Q0.31. */
int32_t k_fx_logistic(int32_t x, int ibits);
int32_t k_fx_tanh(int32_t x, int ibits);

/* ---- RELU, RELU6, RELU_N1_TO_1 ------------------------------------------ */

/* out = clamp(output_zero_point + mbqm(in - input_zero_point), act_min, act_max)
 * (TFLite ReluX / TFLite Micro ReluQuantized). */
typedef struct k_relu_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t mult, shift;        /* input_scale / output_scale */
    int32_t act_min, act_max;   /* quantized output range */
} k_relu_params;

/* lo / hi: the op's real range (RELU 0..+inf, RELU6 0..6, RELU_N1_TO_1 -1..1);
 * qmin / qmax: the output type's limits. */
void k_relu_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                    int32_t output_zero_point, float lo, float hi, int32_t qmin, int32_t qmax,
                    k_relu_params *p);
int k_relu_s8(const k_relu_params *p, const int8_t *input, int8_t *output, int32_t n);
int k_relu_s16(const k_relu_params *p, const int16_t *input, int16_t *output, int32_t n);
/* out = in > hi ? hi : (in < lo ? lo : in); NaN passes through. */
int k_relu_f32(const float *input, float *output, int32_t n, float lo, float hi);

/* ---- LEAKY_RELU ---------------------------------------------------------- */

typedef struct k_leaky_relu_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t mult_identity, shift_identity;   /* input_scale / output_scale */
    int32_t mult_alpha, shift_alpha;         /* input_scale * alpha / output_scale */
} k_leaky_relu_params;

void k_leaky_relu_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                          int32_t output_zero_point, float alpha, k_leaky_relu_params *p);
int k_leaky_relu_s8(const k_leaky_relu_params *p, const int8_t *input, int8_t *output, int32_t n);
int k_leaky_relu_s16(const k_leaky_relu_params *p, const int16_t *input, int16_t *output,
                     int32_t n);
int k_leaky_relu_f32(float alpha, const float *input, float *output, int32_t n);

/* ---- HARD_SWISH (TFLite's 16-bit fixed-point reference) ------------------ */

typedef struct k_hard_swish_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int16_t reluish_mult;        /* Q0.15 */
    int32_t reluish_shift;       /* exponent, either sign */
    int16_t output_mult;         /* Q0.15 */
    int32_t output_shift;        /* exponent, <= 0 */
} k_hard_swish_params;

/* K_E_UNSUPPORTED when the output multiplier would need a left shift
 * (TFLite requires output_multiplier_exponent <= 0). */
int k_hard_swish_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                         int32_t output_zero_point, k_hard_swish_params *p);
int k_hard_swish_s8(const k_hard_swish_params *p, const int8_t *input, int8_t *output, int32_t n);
int k_hard_swish_f32(const float *input, float *output, int32_t n);

/* ---- LOGISTIC, TANH ------------------------------------------------------ */

/* int8: input rescaled to Q4.27, gemmlowp logistic/tanh, output fixed at
 * scale 1/256 zero point -128 (logistic) or 1/128 zero point 0 (tanh). */
typedef struct k_sigmoid_s8_params {
    int32_t input_zero_point;
    int32_t input_range_radius;
    int32_t input_multiplier;
    int32_t input_left_shift;
} k_sigmoid_s8_params;

/* int16: zero points 0, output scale 2^-15; interpolated 256-entry table.
 * input_multiplier == 0 means a power-of-two input scale. */
typedef struct k_sigmoid_s16_params {
    int32_t input_multiplier;
    int32_t input_left_shift;
} k_sigmoid_s16_params;

/* Same preparation for LOGISTIC and TANH int8. */
void k_sigmoid_s8_prepare(float input_scale, int32_t input_zero_point, k_sigmoid_s8_params *p);
/* is_tanh selects TANH's power-of-two rule (left shift 0 or 1) over
 * LOGISTIC's (left shift 0). */
/* K_E_UNSUPPORTED when the derived 16-bit multiplier exceeds 32767
 * (input scale above ~2.67). */
int k_sigmoid_s16_prepare(float input_scale, bool is_tanh, k_sigmoid_s16_params *p);
/* TFLite's CheckedLog2: true when x is within 1e-3 (in log2) of a power of
 * two; *log2 gets the rounded exponent. */
bool k_checked_log2(float x, int32_t *log2);

int k_logistic_s8(const k_sigmoid_s8_params *p, const int8_t *input, int8_t *output, int32_t n);
int k_logistic_s16(const k_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                   int32_t n);
int k_logistic_f32(const float *input, float *output, int32_t n);
int k_tanh_s8(const k_sigmoid_s8_params *p, const int8_t *input, int8_t *output, int32_t n);
int k_tanh_s16(const k_sigmoid_s16_params *p, const int16_t *input, int16_t *output, int32_t n);
/* One element of the int16 functions above, on the already scaled input
 * x (units of 1/12288: 1.0 = 0x3000), Q0.15 result. The virtual NPU's
 * built-in TANH/SIGMOID use these too. */
int16_t k_logistic_s16_value(int32_t x);
int16_t k_tanh_s16_value(int32_t x);
int k_tanh_f32(const float *input, float *output, int32_t n);

/* ---- SOFTMAX ------------------------------------------------------------- */

/* int8 input (int8 output: scale 1/256, zero point -128; int16 output:
 * scale 1/65536, zero point -32768). */
typedef struct k_softmax_s8_params {
    int32_t input_multiplier;
    int32_t input_left_shift;
    int32_t diff_min;
} k_softmax_s8_params;

/* int16 input and output (zero points 0, output scale 1/32768). The two
 * 513-entry tables are filled by k_softmax_s16_luts. */
#define K_SOFTMAX_LUT_SIZE 513
typedef struct k_softmax_s16_params {
    int32_t input_multiplier;
    int32_t input_left_shift;
    const int16_t *exp_lut;
    const int16_t *one_over_one_plus_x_lut;
} k_softmax_s16_params;

/* K_E_UNSUPPORTED when beta * input_scale needs a left shift beyond 30. */
int k_softmax_s8_prepare(float input_scale, float beta, k_softmax_s8_params *p);
int k_softmax_s16_prepare(float input_scale, float beta, k_softmax_s16_params *p);
/* TFLite's LUTPopulate<int16_t> tables: exp(x) on [-10, 0] and 1/(1+x) on [0, 1]. */
void k_softmax_s16_luts(int16_t exp_lut[K_SOFTMAX_LUT_SIZE],
                        int16_t one_over_one_plus_x_lut[K_SOFTMAX_LUT_SIZE]);

int k_softmax_s8(const k_softmax_s8_params *p, const int8_t *input, int8_t *output,
                 int32_t outer, int32_t depth);
int k_softmax_s8_s16(const k_softmax_s8_params *p, const int8_t *input, int16_t *output,
                     int32_t outer, int32_t depth);
int k_softmax_s16(const k_softmax_s16_params *p, const int16_t *input, int16_t *output,
                  int32_t outer, int32_t depth);
int k_softmax_f32(float beta, const float *input, float *output, int32_t outer, int32_t depth);

/* ---- QUANTIZE, DEQUANTIZE ------------------------------------------------ */

/* Requantization between integer types (TFLite Requantize):
 * out = clamp(mbqm(in - input_zero_point) + output_zero_point). */
typedef struct k_requant_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t mult, shift;   /* (double)input_scale / (double)output_scale */
} k_requant_params;

void k_requant_prepare(float input_scale, int32_t input_zero_point, float output_scale,
                       int32_t output_zero_point, k_requant_params *p);
int k_requant_s8_s8(const k_requant_params *p, const int8_t *input, int8_t *output, int32_t n);
int k_requant_s8_u8(const k_requant_params *p, const int8_t *input, uint8_t *output, int32_t n);
int k_requant_u8_s8(const k_requant_params *p, const uint8_t *input, int8_t *output, int32_t n);
int k_requant_s8_s16(const k_requant_params *p, const int8_t *input, int16_t *output, int32_t n);
int k_requant_s8_s32(const k_requant_params *p, const int8_t *input, int32_t *output, int32_t n);
int k_requant_s16_s8(const k_requant_params *p, const int16_t *input, int8_t *output, int32_t n);
int k_requant_s16_s16(const k_requant_params *p, const int16_t *input, int16_t *output,
                      int32_t n);
int k_requant_s16_s32(const k_requant_params *p, const int16_t *input, int32_t *output,
                      int32_t n);
int k_requant_s32_s8(const k_requant_params *p, const int32_t *input, int8_t *output, int32_t n);
int k_requant_s32_s16(const k_requant_params *p, const int32_t *input, int16_t *output,
                      int32_t n);

/* float -> integer (TFLite AffineQuantize): out = clamp(round(in / scale) + zp),
 * division and rounding in float. Values whose rounded quotient is outside the
 * int32 range (and NaN) saturate (TFLite: undefined). */
int k_quantize_f32_s8(const float *input, int8_t *output, int32_t n, float scale, int32_t zp);
int k_quantize_f32_u8(const float *input, uint8_t *output, int32_t n, float scale, int32_t zp);
int k_quantize_f32_s16(const float *input, int16_t *output, int32_t n, float scale, int32_t zp);

/* integer -> float (TFLite Dequantize): out = (float)((double)scale * (in - zp)). */
int k_dequantize_s8_f32(const int8_t *input, float *output, int32_t n, float scale, int32_t zp);
int k_dequantize_u8_f32(const uint8_t *input, float *output, int32_t n, float scale, int32_t zp);
int k_dequantize_s16_f32(const int16_t *input, float *output, int32_t n, float scale, int32_t zp);

#endif
