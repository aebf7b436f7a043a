/* Fixed-point transcendental functions on int32 raw values, with the exact
 * arithmetic (rounding, saturation, evaluation order) of the gemmlowp
 * fixed-point library that TFLite's integer LOGISTIC, TANH and SOFTMAX
 * kernels use. A value in "Qm" has m integer bits and 31 - m fraction bits.
 *
 * Signed additions that gemmlowp leaves to the hardware (two's complement
 * wrap) are done in unsigned arithmetic here so they are defined in C. */
#include "k_activation.h"

static inline int32_t wneg(int32_t a)
{
    return (int32_t)(0u - (uint32_t)a);
}

/* Changes a value from Q(src) to Q(dst): saturating left shift when gaining
 * fraction bits, rounding right shift when losing them. */
static inline int32_t rescale(int32_t x, int src, int dst)
{
    int e = src - dst;
    if (e > 0) return k_sat_shl(x, e);
    if (e < 0) return k_rdpot(x, -e);
    return x;
}

/* exp(a) for a in [-1/4, 0), Q0 in and out: a fourth-order Taylor expansion
 * around -1/8. */
static int32_t exp_quarter_interval(int32_t a)
{
    const int32_t exp_minus_one_eighth = 1895147668; /* exp(-1/8) in Q0 */
    const int32_t one_third = 715827883;             /* 1/3 in Q0 */
    int32_t x = k_wrap_add32(a, 1 << 28);            /* a + 1/8 */
    int32_t x2 = k_srdhm(x, x);
    int32_t x3 = k_srdhm(x2, x);
    int32_t x4 = k_srdhm(x2, x2);
    int32_t x4_quarter = k_rdpot(x4, 2);
    /* (x^4/4 + x^3) / 3 + x^2, halved: x^4/24 + x^3/6 + x^2/2 */
    int32_t poly = k_rdpot(k_wrap_add32(k_srdhm(k_wrap_add32(x4_quarter, x3), one_third), x2), 1);
    return k_wrap_add32(exp_minus_one_eighth, k_srdhm(exp_minus_one_eighth, k_wrap_add32(x, poly)));
}

int32_t k_fx_exp_on_negative_values(int32_t a, int ibits)
{
    /* exp(-2^k) in Q0 for k = -2 .. 4. */
    static const int32_t factor[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};
    const int fbits = 31 - ibits;
    const int32_t quarter = (int32_t)1 << (fbits - 2);
    /* Split a = r + m with r in [-1/4, 0) and m a non-positive multiple of
     * 1/4; exp(a) = exp(r) * prod exp(-2^k) over the bits of -m. */
    int32_t r = k_wrap_sub32(a & (quarter - 1), quarter);
    int32_t result = exp_quarter_interval(rescale(r, ibits, 0));
    int32_t rest = k_wrap_sub32(r, a);
    for (int k = -2; k <= 4; k++) {
        if (ibits > k) {
            int bit = fbits + k;
            if (rest & (int32_t)(1u << bit)) result = k_srdhm(result, factor[k + 2]);
        }
    }
    if (ibits > 5) {
        /* below -32 the result is 0 */
        int32_t clamp = -((int32_t)1 << (36 - ibits));
        if (a < clamp) result = 0;
    }
    if (a == 0) result = INT32_MAX;
    return result;
}

/* Newton-Raphson iterations for 1 / half_den, half_den = (1 + a) / 2 in Q0;
 * the result is in Q2. */
static int32_t reciprocal_newton(int32_t half_den)
{
    const int32_t c48_17 = 1515870810;      /* 48/17 in Q2 */
    const int32_t cneg32_17 = -1010580540;  /* -32/17 in Q2 */
    const int32_t one_q2 = 1 << 29;
    int32_t x = k_wrap_add32(c48_17, k_srdhm(half_den, cneg32_17));
    for (int i = 0; i < 3; i++) {
        int32_t hd_x = k_srdhm(half_den, x);                 /* Q2 */
        int32_t err = k_wrap_sub32(one_q2, hd_x);            /* Q2 */
        x = k_wrap_add32(x, rescale(k_srdhm(x, err), 4, 2)); /* Q4 -> Q2 */
    }
    return x;
}

/* (a + 1) / 2 rounded half away from zero, in 64-bit. */
static inline int32_t half_sum_with_one(int32_t a)
{
    int64_t sum = (int64_t)a + (int64_t)INT32_MAX;
    int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2);
}

int32_t k_fx_one_over_one_plus_x(int32_t a)
{
    int32_t x = reciprocal_newton(half_sum_with_one(a));
    /* x approximates 2 / (1 + a) in Q2, i.e. 1 / (1 + a) in Q1. */
    return rescale(x, 1, 0);
}

/* (1 - a) / (1 + a) for a in (0, 1), Q0. */
static int32_t one_minus_x_over_one_plus_x(int32_t a)
{
    int32_t x = reciprocal_newton(half_sum_with_one(a));
    return rescale(k_wrap_sub32(x, 1 << 29), 2, 0);
}

int32_t k_fx_tanh(int32_t a, int ibits)
{
    if (a == 0) return 0;
    bool negative = a < 0;
    int32_t n = negative ? a : wneg(a);          /* -|a| */
    /* -tanh(n) = (1 - exp(2n)) / (1 + exp(2n)); 2n is n read in Q(ibits+1). */
    int32_t t = one_minus_x_over_one_plus_x(k_fx_exp_on_negative_values(n, ibits + 1));
    return negative ? wneg(t) : t;
}

int32_t k_fx_logistic(int32_t a, int ibits)
{
    if (a == 0) return 1 << 30;
    bool positive = a > 0;
    int32_t abs_a = positive ? a : wneg(a);
    int32_t pos = k_fx_one_over_one_plus_x(k_fx_exp_on_negative_values(wneg(abs_a), ibits));
    return positive ? pos : k_wrap_sub32(INT32_MAX, pos);
}
