/* kernels: common types and TFLite fixed-point primitives. Freestanding C11:
 * no malloc, no stdio; only <stdint.h>, <stddef.h>, <stdbool.h>, <string.h>
 * (memcpy/memset) and <math.h> (float kernels and parameter preparation). */
#ifndef NPUC_K_COMMON_H
#define NPUC_K_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#define K_MAX_DIMS 6

/* Kernel status codes. */
enum { K_OK = 0, K_E_INVALID = 1, K_E_UNSUPPORTED = 2 };
/* k_op_run result besides K_OK / K_E_* (CIRCULAR_BUFFER off its period): the
 * op ran (its state advanced, its output is written) and the rest of the
 * graph must not run in this invocation; not an error. Far from the K_E_*
 * codes so that new error codes cannot collide with it. */
#define K_OP_NOT_READY 100

/* Fused activation, as TFLite's ActivationFunctionType. */
enum { K_ACT_NONE = 0, K_ACT_RELU = 1, K_ACT_RELU_N1_TO_1 = 2, K_ACT_RELU6 = 3 };

/* Padding scheme, as TFLite's Padding. */
enum { K_PAD_SAME = 0, K_PAD_VALID = 1 };

/* An N-d shape, NHWC for 4-d feature maps. */
typedef struct k_dims {
    int32_t rank;
    int32_t d[K_MAX_DIMS];
} k_dims;

static inline int32_t k_dims_count(const k_dims *s)
{
    int32_t n = 1;
    for (int32_t i = 0; i < s->rank; i++) n *= s->d[i];
    return n;
}

/* 4-d view helper: pads a shape of rank <= 4 with leading 1s. */
static inline void k_dims_to4(const k_dims *s, int32_t out[4])
{
    int32_t pad = 4 - s->rank;
    for (int32_t i = 0; i < 4; i++) out[i] = (i < pad) ? 1 : s->d[i - pad];
}

/* A requantization multiplier in TFLite form: real = m * 2^(shift - 31),
 * m in [2^30, 2^31) or 0; shift > 0 shifts left. */
typedef struct k_qmul {
    int32_t m;
    int32_t shift;
} k_qmul;

/* TFLite's QuantizeMultiplier (frexp-based, round half away from zero). */
void k_quantize_multiplier(double real, int32_t *m, int32_t *shift);
/* As above for multipliers < 1 (QuantizeMultiplierSmallerThanOneExp). */
void k_quantize_multiplier_lt1(double real, int32_t *m, int32_t *shift);
/* TFLite's PreprocessSoftmaxScaling / input multiplier helpers may be added
 * by the kernels that need them. */

/* gemmlowp SaturatingRoundingDoublingHighMul. */
static inline int32_t k_srdhm(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN) return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* gemmlowp RoundingDivideByPOT: round half away from zero. */
static inline int32_t k_rdpot(int32_t x, int32_t exponent)
{
    int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* TFLite MultiplyByQuantizedMultiplier (double-rounding form). */
static inline int32_t k_mbqm(int32_t x, int32_t m, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0;
    int32_t right = shift > 0 ? 0 : -shift;
    /* x * 2^left wraps modulo 2^32 like TFLite's x * (1 << left); a shift of
     * 32 or more leaves no bits (TFLite: undefined behaviour). */
    uint32_t xs = left < 32 ? (uint32_t)x << left : 0u;
    return k_rdpot(k_srdhm((int32_t)xs, m), right);
}

/* gemmlowp/TFLite MultiplyByQuantizedMultiplierSmallerThanOneExp: shift <= 0
 * (a right shift), no left shift. */
static inline int32_t k_mbqm_lt1(int32_t x, int32_t m, int32_t shift)
{
    return k_rdpot(k_srdhm(x, m), -shift);
}

/* Leading zero bits of x (32 for 0), as gemmlowp's CountLeadingZeros. */
static inline int k_clz32(uint32_t x)
{
    if (x == 0) return 32;
    int n = 0;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* x * 2^e saturated to the int32 range (gemmlowp SaturatingRoundingMultiplyByPOT
 * with a non-negative exponent): e <= 0 gives x, e above 31 counts as 31. */
static inline int32_t k_sat_shl(int32_t x, int e)
{
    if (e <= 0) return x;
    if (e > 31) e = 31;
    int32_t limit = (int32_t)((1u << (31 - e)) - 1u);
    if (x > limit) return INT32_MAX;
    if (x < -limit) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* TFLite MultiplyByQuantizedMultiplier for 64-bit accumulators (int16x8). */
static inline int32_t k_mbqm64(int64_t x, int32_t m, int32_t shift)
{
    /* TFLite requires |x| < 2^47 (asserted in debug builds); saturate so
     * that out-of-range accumulators stay defined instead of overflowing. */
    const int64_t lim = (int64_t)1 << 47;
    if (x >= lim) x = lim - 1;
    if (x < -lim) x = -lim;
    int32_t reduced = (m < 0x7FFF0000) ? ((m + (1 << 15)) >> 16) : 0x7FFF;
    /* TFLite needs 1 <= 15 - shift <= 62 (else its shifts are undefined);
     * the interpreter rejects such multipliers, this keeps the kernel
     * defined for direct callers without changing any defined result. */
    if (shift > 14) shift = 14;
    if (shift < -47) shift = -47;
    int32_t total_shift = 15 - shift;
    int64_t round = (int64_t)1 << (total_shift - 1);
    int64_t r = x * (int64_t)reduced + round;
    return (int32_t)(r >> total_shift);
}

/* zero_point + (int32_t)roundf(q) as TFLite's Quantize(), with the float ->
 * int conversion saturated at +-2^30 (undefined in TFLite; every caller then
 * clamps to an 8/16-bit range, so no defined result changes). */
static inline int32_t k_q_sat(int32_t zero_point, float q)
{
    float r = roundf(q);
    if (!(r > -1073741824.0f)) r = -1073741824.0f; /* also NaN */
    if (r > 1073741824.0f) r = 1073741824.0f;
    int64_t v = (int64_t)zero_point + (int64_t)r;
    return v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : (int32_t)v);
}

/* Accumulation that wraps (two's complement) instead of overflowing: the
 * same value as TFLite's int32 sums whenever those are defined, and defined
 * for hostile weights/biases (e.g. bias INT32_MAX). */
static inline int32_t k_wrap_add32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t k_wrap_sub32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
#define K_ACC_ADD(ACC_T, acc, v)                                                              \
    ((acc) = _Generic((acc), float: (ACC_T)((acc) + (v)),                                     \
                      default: (ACC_T)((uint64_t)(int64_t)(acc) + (uint64_t)(int64_t)(v))))

static inline int32_t k_clamp_i32(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* a + b clamped with max(., lo) then min(., hi), the sum taken in 64 bits:
 * TFLite's int32 sum and clamp whenever that sum is defined, and defined
 * for any operands (e.g. a requantized accumulator near INT32_MAX from
 * hostile weights or biases, plus the output zero point). */
static inline int32_t k_add_clamp_i32(int32_t a, int32_t b, int32_t lo, int32_t hi)
{
    int64_t v = (int64_t)a + (int64_t)b;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (int32_t)v;
}

/* 64-bit accumulator + bias, wrapping instead of overflowing (a hostile
 * int64 bias); the 64-bit requantization saturates what follows. */
static inline int64_t k_wrap_add64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* Activation range for a quantized output (TFLite CalculateActivationRangeQuantized):
 * qmin/qmax are the dtype limits. */
void k_activation_range_q(int32_t act, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                          int32_t *act_min, int32_t *act_max);
/* Float activation range (CalculateActivationRange). */
void k_activation_range_f(int32_t act, float *act_min, float *act_max);

/* Output size for a spatial dim (TFLite ComputeOutSize) and padding
 * (ComputePaddingWithOffset). */
int32_t k_out_size(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation);
int32_t k_pad_before(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                     int32_t out, int32_t *offset);

#endif
