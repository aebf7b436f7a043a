/* Fixed-point helpers of the math family: TFLite's inverse square root
 * multiplier (GetInvSqrtQuantizedMultiplierExp, used by RSQRT and
 * L2_NORMALIZATION int8) and gemmlowp's log(x) for x >= 1 (LOG_SOFTMAX
 * int8), with gemmlowp's rounding, saturation and evaluation order. Signed
 * additions that gemmlowp leaves to the hardware wrap (done unsigned). */
#include "k_op_math.h"
#include "k_activation.h"

static int32_t sat_add(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a + b;
    return s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : (int32_t)s);
}

static int32_t sat_sub(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a - b;
    return s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : (int32_t)s);
}

/* gemmlowp RoundingHalfSum: (a + b + sign) / 2, toward zero. */
static int32_t rounding_half_sum(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a + b;
    return (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

void k_inv_sqrt_multiplier(int32_t input, int32_t *mult, int32_t *shift)
{
    if (input <= 1) {
        /* 0 and 1 (and, defined here, negative sums) give the largest
         * multiplier, as TFLite. */
        *mult = INT32_MAX;
        *shift = 0;
        return;
    }
    int32_t s = 11;
    while (input >= (1 << 29)) {
        input /= 4;
        s++;
    }
    const int max_left_shift_bits = k_clz32((uint32_t)input) - 1;
    const int pairs = max_left_shift_bits / 2 - 1;
    s -= pairs;
    input = (int32_t)((uint32_t)input << (2 * pairs));
    /* Newton-Raphson for 1/sqrt in Q3.28 starting at 1, five steps. */
    const int32_t x_in = input >> 1;
    const int32_t half_in = k_rdpot(x_in, 1);
    const int32_t three_halves = (1 << 28) + (1 << 27);
    int32_t x = 1 << 28;
    for (int i = 0; i < 5; i++) {
        const int32_t x3 = k_sat_shl(k_srdhm(k_srdhm(x, x), x), 6);
        x = k_sat_shl(k_wrap_sub32(k_srdhm(three_halves, x), k_srdhm(half_in, x3)), 3);
    }
    x = k_srdhm(x, 1518500250); /* sqrt(2) / 2 in Q0.31 */
    if (s < 0) {
        x = (int32_t)((uint32_t)x << -s);
        s = 0;
    }
    *mult = x;
    *shift = -s; /* TFLite's kReverseShift: a right shift as a negative left shift */
}

int32_t k_fx_log_q12_to_q5(int32_t x)
{
    enum { IN_BITS = 12, ACC_BITS = 6 };
    const int32_t log_2 = 1488522236;
    const int32_t sqrt_sqrt_half = 1805811301;
    const int32_t sqrt_half = 1518500250;
    const int32_t one_quarter = 536870912;
    const int32_t alpha_n = 117049297;
    const int32_t alpha_d = 127690142;
    const int32_t alpha_i = 1057819769;
    const int32_t alpha_f = 638450708;
    const int32_t shifted_quarter = k_rdpot(one_quarter, ACC_BITS); /* Q0 -> Q6 */

    /* z_a: x read as Q0; normalise it into [1/2, 1). */
    const int za_headroom_plus_1 = k_clz32((uint32_t)x);
    const int32_t r_a_tmp = k_sat_shl(x, za_headroom_plus_1 - 1);
    const int32_t r_a = k_sat_shl(k_srdhm(r_a_tmp, sqrt_half), 1);
    const int32_t za_pow2_adj = sat_add(k_sat_shl(IN_BITS - za_headroom_plus_1, 31 - ACC_BITS), shifted_quarter);

    /* z_b: the same premultiplied by sqrt(1/2). */
    const int32_t z_b = k_srdhm(x, sqrt_half);
    const int zb_headroom = k_clz32((uint32_t)z_b) - 1;
    const int32_t r_b = k_sat_shl(x, zb_headroom);
    const int32_t zb_pow2_adj = sat_sub(k_sat_shl(IN_BITS - zb_headroom, 31 - ACC_BITS), shifted_quarter);

    const int32_t r = r_a < r_b ? r_a : r_b;
    const int32_t z_pow2_adj = za_pow2_adj > zb_pow2_adj ? za_pow2_adj : zb_pow2_adj;

    const int32_t p = rounding_half_sum(r, sqrt_sqrt_half);
    int32_t q = k_wrap_sub32(r, sqrt_sqrt_half);
    q = k_wrap_add32(q, q);
    const int32_t common_sq = k_srdhm(q, q);
    const int32_t num = k_wrap_add32(k_srdhm(q, r), k_srdhm(k_srdhm(q, common_sq), alpha_n));
    const int32_t denom_minus_one = k_wrap_add32(
        k_srdhm(p, k_wrap_add32(k_wrap_add32(alpha_i, q), k_srdhm(alpha_d, common_sq))), k_srdhm(alpha_f, q));
    const int32_t recip_denom = k_fx_one_over_one_plus_x(denom_minus_one);
    const int32_t num_scaled = k_rdpot(num, ACC_BITS); /* Q0 -> Q6 */
    const int32_t sum = k_wrap_add32(k_srdhm(z_pow2_adj, log_2), k_srdhm(num_scaled, recip_denom));
    return k_sat_shl(sum, 1); /* Q6 -> Q5 */
}
