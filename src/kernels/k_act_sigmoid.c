/* LOGISTIC and TANH reference kernels (int8 via gemmlowp fixed point, int16
 * via TFLite's interpolated sigmoid table, float32). */
#include "k_activation.h"

#include <math.h>

/* sigmoid(i / 24) in unsigned Q0.16 for i = 0..255 (65535 standing for 1.0).
 * These are the exact values TFLite's int16 LOGISTIC / TANH interpolate
 * between (tanh(x) = 2 * sigmoid(2x) - 1); they differ from plain rounding of
 * the formula by one unit in a few entries, so bit-exactness needs the same
 * numbers. */
static const uint16_t k_sigmoid_q16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535,
};

bool k_checked_log2(float x, int32_t *log2)
{
    /* float arithmetic throughout, as TFLite: log(x) * (1 / log(2)). */
    const float l = logf(x) * (1.0f / logf(2.0f));
    const float r = roundf(l);
    *log2 = (int32_t)r;
    return fabsf(l - r) < 1e-3f;
}

void k_sigmoid_s8_prepare(float input_scale, int32_t input_zero_point, k_sigmoid_s8_params *p)
{
    /* Input rescaled to Q4.27: real multiplier = scale * 2^27, split with
     * frexp (no QuantizeMultiplier clamping). */
    const int input_integer_bits = 4;
    double real = (double)input_scale * (double)(1 << (31 - input_integer_bits));
    int e = 0;
    double q = frexp(real, &e);
    int64_t qf = (int64_t)round(q * (double)(1ll << 31));
    p->input_zero_point = input_zero_point;
    p->input_multiplier = (int32_t)(uint32_t)(uint64_t)qf; /* 2^31 wraps like TFLite's cast */
    p->input_left_shift = e;
    /* Largest |input| that stays below the Q4 range: floor(15 * 2^27 / 2^e). */
    double radius = ldexp((double)((1 << input_integer_bits) - 1), 31 - input_integer_bits - e);
    radius = floor(radius);
    p->input_range_radius = radius >= 2147483647.0 ? INT32_MAX : (int32_t)radius;
}

int k_sigmoid_s16_prepare(float input_scale, bool is_tanh, k_sigmoid_s16_params *p)
{
    const int input_integer_bits = 3;
    int32_t log2 = 0;
    bool pot = k_checked_log2(input_scale, &log2);
    p->input_left_shift = (15 - input_integer_bits) + log2;
    if (is_tanh)
        pot = pot && (p->input_left_shift == 0 || p->input_left_shift == 1);
    else
        pot = pot && p->input_left_shift == 0;
    if (pot) {
        p->input_multiplier = 0;
        return K_OK;
    }
    /* General scale: bring the input to scale 1/(3 * 4096) with a 15-bit
     * multiplier and a right shift. */
    double m = (double)input_scale * 4096.0 * 3.0;
    int32_t shift = 0;
    while (m <= 32767.0 / 2.0 && shift <= 30) {
        shift++;
        m = m * 2.0;
    }
    p->input_left_shift = shift;
    if (!(m <= 32767.0)) {
        p->input_multiplier = INT32_MAX;
        return K_E_UNSUPPORTED;
    }
    p->input_multiplier = (int32_t)m;
    return K_OK;
}

static int check_s8(const k_sigmoid_s8_params *p, int32_t n)
{
    if (!p || n < 0 || p->input_left_shift > 31 || p->input_left_shift < -31) return K_E_INVALID;
    return K_OK;
}

int k_logistic_s8(const k_sigmoid_s8_params *p, const int8_t *input, int8_t *output, int32_t n)
{
    int rc = check_s8(p, n);
    if (rc) return rc;
    const int32_t zp = p->input_zero_point, radius = p->input_range_radius;
    const int32_t m = p->input_multiplier, s = p->input_left_shift;
    for (int32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)input[i] - zp;
        if (x <= -radius) {
            output[i] = INT8_MIN;
        } else if (x >= radius) {
            output[i] = INT8_MAX;
        } else {
            int32_t y = k_fx_logistic(k_mbqm(x, m, s), 4);
            /* Q0.31 -> 1/256 steps, output zero point -128 */
            int32_t v = k_rdpot(y, 23) - 128;
            v = v < INT8_MIN ? INT8_MIN : (v > INT8_MAX ? INT8_MAX : v);
            output[i] = (int8_t)v;
        }
    }
    return K_OK;
}

int k_tanh_s8(const k_sigmoid_s8_params *p, const int8_t *input, int8_t *output, int32_t n)
{
    int rc = check_s8(p, n);
    if (rc) return rc;
    const int32_t zp = p->input_zero_point, radius = p->input_range_radius;
    const int32_t m = p->input_multiplier, s = p->input_left_shift;
    for (int32_t i = 0; i < n; i++) {
        int32_t x = (int32_t)input[i] - zp;
        if (x <= -radius) {
            output[i] = INT8_MIN;
        } else if (x >= radius) {
            output[i] = INT8_MAX;
        } else {
            int32_t y = k_fx_tanh(k_mbqm(x, m, s), 4);
            /* Q0.31 -> 1/128 steps, output zero point 0 */
            int32_t v = k_rdpot(y, 24);
            v = v < INT8_MIN ? INT8_MIN : (v > INT8_MAX ? INT8_MAX : v);
            output[i] = (int8_t)v;
        }
    }
    return K_OK;
}

/* Effective 16-bit input multiplier and right shift (a power-of-two scale
 * uses 3 * 2^left_shift with no shift). */
static int s16_mult(const k_sigmoid_s16_params *p, int32_t *m, int32_t *s)
{
    *m = p->input_multiplier;
    *s = p->input_left_shift;
    if (*s < 0 || *s > 31) return K_E_INVALID;
    if (*m == 0) {
        if (*s > 13) return K_E_INVALID;
        *m = 3 << *s;
        *s = 0;
    }
    if (*m < 0 || *m > 65535) return K_E_INVALID;
    return K_OK;
}

int16_t k_logistic_s16_value(int32_t x)
{
    /* x: the input in units of 1/12288 (= 1/(3 * 2^12)); the table
     * spacing 1/24 is 2^9 units. */
    uint32_t ax = x < 0 ? (uint32_t)0 - (uint32_t)x : (uint32_t)x;
    uint32_t idx = ax >> 9;
    uint32_t r;
    if (idx >= 255) {
        r = (uint32_t)0x7FFF << 10;
    } else {
        uint32_t a = k_sigmoid_q16[idx], b = k_sigmoid_q16[idx + 1];
        r = (a << 9) + (ax & 0x1FFu) * (b - a);
    }
    /* sigmoid(-x) = 1 - sigmoid(x); back to Q0.15 with rounding. */
    r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
    return (int16_t)(r >> 10);
}

int16_t k_tanh_s16_value(int32_t x)
{
    /* tanh(x) uses sigmoid(2x): 2^8 units per table entry. */
    uint32_t ax = x < 0 ? (uint32_t)0 - (uint32_t)x : (uint32_t)x;
    uint32_t idx = ax >> 8;
    int32_t r;
    if (idx >= 255) {
        r = (int32_t)(0xFFFFu << 8);
    } else {
        uint32_t a = k_sigmoid_q16[idx], b = k_sigmoid_q16[idx + 1];
        r = (int32_t)((a << 8) + (ax & 0xFFu) * (b - a));
    }
    /* tanh(x) = 2 * sigmoid(2x) - 1, odd; back to Q0.15 with rounding. */
    r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    return (int16_t)(r >> 8);
}

int k_logistic_s16(const k_sigmoid_s16_params *p, const int16_t *input, int16_t *output,
                   int32_t n)
{
    int32_t m, s;
    if (!p || n < 0 || s16_mult(p, &m, &s)) return K_E_INVALID;
    const int32_t round = s > 0 ? (int32_t)1 << (s - 1) : 0;
    for (int32_t i = 0; i < n; i++)
        output[i] = k_logistic_s16_value(((int32_t)input[i] * m + round) >> s);
    return K_OK;
}

int k_tanh_s16(const k_sigmoid_s16_params *p, const int16_t *input, int16_t *output, int32_t n)
{
    int32_t m, s;
    if (!p || n < 0 || s16_mult(p, &m, &s)) return K_E_INVALID;
    const int32_t round = s > 0 ? (int32_t)1 << (s - 1) : 0;
    for (int32_t i = 0; i < n; i++)
        output[i] = k_tanh_s16_value(((int32_t)input[i] * m + round) >> s);
    return K_OK;
}

int k_logistic_f32(const float *input, float *output, int32_t n)
{
    if (n < 0) return K_E_INVALID;
    /* TFLite's cut-offs: above, the result rounds to 1; below, 1/(1+e^-x)
     * is replaced by e^x. */
    const float upper = 16.619047164916992188f;
    const float lower = -9.0f;
    for (int32_t i = 0; i < n; i++) {
        const float x = input[i];
        float r;
        if (x > upper)
            r = 1.0f;
        else if (x < lower)
            r = expf(x);
        else
            r = 1.0f / (1.0f + expf(-x));
        output[i] = r;
    }
    return K_OK;
}

int k_tanh_f32(const float *input, float *output, int32_t n)
{
    if (n < 0) return K_E_INVALID;
    for (int32_t i = 0; i < n; i++) output[i] = tanhf(input[i]);
    return K_OK;
}
