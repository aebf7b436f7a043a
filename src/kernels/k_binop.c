/* Kernels of the binop family (k_op_binop.h): DIV, FLOOR_DIV, FLOOR_MOD,
 * SQUARED_DIFFERENCE, comparisons, LOGICAL_AND/OR, PRELU, SELECT_V2, ADD_N,
 * with TFLite Micro's reference semantics. Freestanding. Parameters are
 * validated by k_op_run_binop before they get here. */
#include "k_op_binop.h"
#include "k_activation.h"

/* ---- broadcast walk ----------------------------------------------------------
 * The output is walked in row-major order, row by row (innermost dim); each
 * input has an element stride per output dim, 0 where it is broadcast. */
typedef struct bwalk {
    int32_t rank;
    int32_t ext[K_MAX_DIMS];
    size_t st[3][K_MAX_DIMS];
    int32_t idx[K_MAX_DIMS];
    size_t off[3];
    int32_t n;
} bwalk;

/* false when the output is empty. */
static bool bw_init(bwalk *w, const k_dims *out, const k_dims *const *in, int32_t n)
{
    const int32_t r = out->rank > 0 ? out->rank : 1;
    w->rank = r;
    w->n = n;
    for (int32_t i = 0; i < r; i++) {
        w->ext[i] = out->rank > 0 ? out->d[i] : 1;
        if (w->ext[i] == 0) return false;
        w->idx[i] = 0;
    }
    for (int32_t k = 0; k < n; k++) {
        size_t acc = 1;
        w->off[k] = 0;
        for (int32_t i = r - 1; i >= 0; i--) {
            const int32_t j = i - (r - in[k]->rank);
            const int32_t d = j >= 0 ? in[k]->d[j] : 1;
            w->st[k][i] = d == 1 ? 0 : acc;
            acc *= (size_t)d;
        }
    }
    return true;
}

/* Advances to the next row; false after the last. */
static bool bw_next(bwalk *w)
{
    for (int32_t i = w->rank - 2; i >= 0; i--) {
        w->idx[i]++;
        for (int32_t k = 0; k < w->n; k++) w->off[k] += w->st[k][i];
        if (w->idx[i] < w->ext[i]) return true;
        for (int32_t k = 0; k < w->n; k++) w->off[k] -= w->st[k][i] * (size_t)w->ext[i];
        w->idx[i] = 0;
    }
    return false;
}

/* Defines NAME running BODY for every output element with x = input 1,
 * y = input 2 (and z = input 3 when N is 3) and o pointing at the output
 * element. BODY may return an error. */
#define BW_KERNEL(NAME, N, TA, TB, TC, TO, BODY)                                             \
    static int NAME(const k_op_binop_blob *p, const void *const *in, void *out)              \
    {                                                                                        \
        const TA *A = in[0];                                                                 \
        const TB *B = in[1];                                                                 \
        const TC *C = (N) > 2 ? (const TC *)in[2] : (const TC *)in[1];                       \
        TO *O = out;                                                                         \
        const k_dims *ds[3] = {&p->d1, &p->d2, &p->d3};                                      \
        bwalk w;                                                                             \
        if (!bw_init(&w, &p->dout, ds, (N))) return K_OK;                                    \
        const int32_t last = w.rank - 1, n = w.ext[last];                                    \
        const size_t sa = w.st[0][last], sb = w.st[1][last], sc = (N) > 2 ? w.st[2][last] : 0; \
        size_t io = 0;                                                                       \
        do {                                                                                 \
            for (int32_t i = 0; i < n; i++) {                                                \
                const TA x = A[w.off[0] + (size_t)i * sa];                                   \
                const TB y = B[w.off[1] + (size_t)i * sb];                                   \
                const TC z = C[((N) > 2 ? w.off[2] : 0) + (size_t)i * sc];                   \
                TO *o = &O[io + (size_t)i];                                                  \
                (void)z;                                                                     \
                BODY                                                                         \
            }                                                                                \
            io += (size_t)n;                                                                 \
        } while (bw_next(&w));                                                               \
        (void)p;                                                                             \
        return K_OK;                                                                         \
    }

/* TFLite's ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi). */
static inline float act_f(float x, float lo, float hi)
{
    x = (x < lo) ? lo : x;
    return (hi < x) ? hi : x;
}

static inline int32_t wmul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static inline int32_t shl(int32_t a, int32_t s) { return (int32_t)((uint32_t)a << s); }

/* ---- DIV ------------------------------------------------------------------------ */

BW_KERNEL(div_f32, 2, float, float, float, float, { *o = act_f(x / y, p->act_min_f, p->act_max_f); })

BW_KERNEL(div_s32, 2, int32_t, int32_t, int32_t, int32_t, {
    if (y == 0) return K_E_UNSUPPORTED;
    /* INT32_MIN / -1 overflows in TFLite; it wraps here. */
    const int32_t q = (y == -1) ? (int32_t)(0u - (uint32_t)x) : x / y;
    *o = k_clamp_i32(q, p->act_min, p->act_max);
})

/* Leading redundant sign bits (GCC's __builtin_clrsb, 31 for 0 and -1). */
static int32_t cls32(int32_t x)
{
    uint32_t v = x < 0 ? ~(uint32_t)x : (uint32_t)x;
    int32_t n = 0;
    if (v == 0) return 31;
    while (!(v & 0x80000000u)) {
        v <<= 1;
        n++;
    }
    return n - 1;
}

/* TFLite's quantized DivElementwise for one pair of int8 codes. */
static int div_q(const k_op_binop_blob *p, int32_t a, int32_t b, int32_t *res)
{
    int32_t v1 = p->in1_offset + a, v2 = p->in2_offset + b;
    if (v2 == 0) return K_E_UNSUPPORTED;
    if (v2 < 0) {
        v1 = -v1;
        v2 = -v2;
    }
    /* GetReciprocal(v2, 31): 1 / (1 + x) of the normalized divisor. */
    const int32_t hp1 = k_clz32((uint32_t)v2);
    const int32_t recip_shift = 31 - hp1;
    const int32_t sum_minus_one = (int32_t)(((uint32_t)v2 << hp1) - 0x80000000u);
    const int32_t inv = k_fx_one_over_one_plus_x(sum_minus_one);
    const int32_t headroom = cls32(v1);
    const int32_t unscaled = k_srdhm(shl(v1, headroom), inv);
    const int32_t total_shift = p->out_shift - recip_shift - headroom;
    /* gemmlowp's RoundingDivideByPOT asserts an exponent in [0, 31]. */
    if (total_shift > 0 || total_shift < -31) return K_E_UNSUPPORTED;
    *res = k_add_clamp_i32(k_mbqm_lt1(unscaled, p->out_mult, total_shift), p->out_offset, p->act_min, p->act_max);
    return K_OK;
}

BW_KERNEL(div_s8, 2, int8_t, int8_t, int8_t, int8_t, {
    int32_t r;
    int rc = div_q(p, x, y, &r);
    if (rc) return rc;
    *o = (int8_t)r;
})

/* ---- FLOOR_DIV / FLOOR_MOD (float) ------------------------------------------------ */

BW_KERNEL(floor_div_f32, 2, float, float, float, float, { *o = (float)floor((double)x / (double)y); })

BW_KERNEL(floor_mod_f32, 2, float, float, float, float, {
    const float t = fmodf(x, y);
    *o = (t != 0.0f && ((y < 0.0f) != (t < 0.0f))) ? t + y : t;
})

/* ---- FLOOR_DIV / FLOOR_MOD (int32) ------------------------------------------------- */

/* TFLite (not TFLite Micro) has these: FLOOR_DIV takes floor(double(x) /
 * double(y)), which for int32 operands is the exact floored quotient (a
 * quotient that is not whole lies at least 1/|y| from the next integer, far
 * more than the double's rounding), so it is computed here in integers.
 * INT32_MIN / -1 (2^31, which no int32 holds) wraps to INT32_MIN, as DIV's
 * int32 form does; its FLOOR_MOD is 0. The zero divisor is refused before
 * any element is computed (k_binop_eval). */
static inline int32_t floor_div_i32(int32_t x, int32_t y)
{
    if (x == INT32_MIN && y == -1) return INT32_MIN;
    const int32_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

static inline int32_t floor_mod_i32(int32_t x, int32_t y)
{
    if (y == -1) return 0;
    const int32_t t = x % y;
    return (t != 0 && ((y < 0) != (t < 0))) ? t + y : t;
}

BW_KERNEL(floor_div_s32, 2, int32_t, int32_t, int32_t, int32_t, { *o = floor_div_i32(x, y); })
BW_KERNEL(floor_mod_s32, 2, int32_t, int32_t, int32_t, int32_t, { *o = floor_mod_i32(x, y); })

/* ---- SQUARED_DIFFERENCE ------------------------------------------------------------ */

BW_KERNEL(sqdiff_f32, 2, float, float, float, float, {
    const float d = x - y;
    *o = d * d;
})

BW_KERNEL(sqdiff_s32, 2, int32_t, int32_t, int32_t, int32_t, {
    const int32_t d = k_wrap_sub32(x, y);
    *o = wmul(d, d);
})

static inline int32_t sqdiff_q(const k_op_binop_blob *p, int32_t a, int32_t b)
{
    const int32_t s1 = k_mbqm_lt1(shl(p->in1_offset + a, p->left_shift), p->in1_mult, p->in1_shift);
    const int32_t s2 = k_mbqm_lt1(shl(p->in2_offset + b, p->left_shift), p->in2_mult, p->in2_shift);
    const int32_t d = k_wrap_sub32(s1, s2);
    return k_add_clamp_i32(k_mbqm(wmul(d, d), p->out_mult, p->out_shift), p->out_offset, p->act_min, p->act_max);
}

BW_KERNEL(sqdiff_s8, 2, int8_t, int8_t, int8_t, int8_t, { *o = (int8_t)sqdiff_q(p, x, y); })
BW_KERNEL(sqdiff_s16, 2, int16_t, int16_t, int16_t, int16_t, { *o = (int16_t)sqdiff_q(p, x, y); })

/* ---- comparisons ------------------------------------------------------------------ */

#define CMP_EVAL(c, a, b)                                                                    \
    ((c) == K_CMP_EQ ? (a) == (b) : (c) == K_CMP_NE ? (a) != (b) : (c) == K_CMP_GT ? (a) > (b) \
     : (c) == K_CMP_GE ? (a) >= (b) : (c) == K_CMP_LT ? (a) < (b) : (a) <= (b))

BW_KERNEL(cmp_bool, 2, uint8_t, uint8_t, uint8_t, uint8_t, { *o = (uint8_t)CMP_EVAL(p->cmp, x != 0, y != 0); })
BW_KERNEL(cmp_f32, 2, float, float, float, uint8_t, { *o = (uint8_t)CMP_EVAL(p->cmp, x, y); })
BW_KERNEL(cmp_s32, 2, int32_t, int32_t, int32_t, uint8_t, { *o = (uint8_t)CMP_EVAL(p->cmp, x, y); })
BW_KERNEL(cmp_s64, 2, int64_t, int64_t, int64_t, uint8_t, { *o = (uint8_t)CMP_EVAL(p->cmp, x, y); })

/* TFLite's ComparisonWithScaling: both sides offset, shifted left and
 * rescaled by their own multiplier before the comparison. */
static inline int32_t cmp_scale(int32_t v, int32_t offset, int32_t ls, int32_t m, int32_t s)
{
    return k_mbqm_lt1(shl(offset + v, ls), m, s);
}

#define CMP_Q_BODY                                                                           \
    {                                                                                        \
        const int32_t a = cmp_scale(x, p->in1_offset, p->left_shift, p->in1_mult, p->in1_shift); \
        const int32_t b = cmp_scale(y, p->in2_offset, p->left_shift, p->in2_mult, p->in2_shift); \
        *o = (uint8_t)CMP_EVAL(p->cmp, a, b);                                                \
    }

BW_KERNEL(cmp_s8, 2, int8_t, int8_t, int8_t, uint8_t, CMP_Q_BODY)
BW_KERNEL(cmp_s16, 2, int16_t, int16_t, int16_t, uint8_t, CMP_Q_BODY)

/* ---- LOGICAL_AND / LOGICAL_OR ------------------------------------------------------- */

BW_KERNEL(logical_and, 2, uint8_t, uint8_t, uint8_t, uint8_t, { *o = (uint8_t)(x != 0 && y != 0); })
BW_KERNEL(logical_or, 2, uint8_t, uint8_t, uint8_t, uint8_t, { *o = (uint8_t)(x != 0 || y != 0); })

/* ---- PRELU -------------------------------------------------------------------------- */

BW_KERNEL(prelu_f32, 2, float, float, float, float, { *o = x >= 0.0f ? x : x * y; })

static inline int32_t prelu_q(const k_op_binop_blob *p, int32_t a, int32_t alpha)
{
    const int32_t v = p->in1_offset + a;
    int32_t r;
    if (v >= 0) {
        r = k_mbqm(v, p->out_mult, p->out_shift);
    } else {
        r = k_mbqm(wmul(v, p->in2_offset + alpha), p->out_mult2, p->out_shift2);
    }
    return k_add_clamp_i32(r, p->out_offset, p->act_min, p->act_max);
}

BW_KERNEL(prelu_s8, 2, int8_t, int8_t, int8_t, int8_t, { *o = (int8_t)prelu_q(p, x, y); })
BW_KERNEL(prelu_s16, 2, int16_t, int8_t, int8_t, int16_t, { *o = (int16_t)prelu_q(p, x, y); })

/* ---- SELECT_V2 ---------------------------------------------------------------------- */

BW_KERNEL(select_x8, 3, uint8_t, uint8_t, uint8_t, uint8_t, { *o = x ? y : z; })
BW_KERNEL(select_x16, 3, uint8_t, uint16_t, uint16_t, uint16_t, { *o = x ? y : z; })
BW_KERNEL(select_x32, 3, uint8_t, uint32_t, uint32_t, uint32_t, { *o = x ? y : z; })

/* ---- ADD_N -------------------------------------------------------------------------- */

static int add_n_f32(const k_op_binop_blob *p, const void *const *in, void *out)
{
    const int32_t n = k_dims_count(&p->dout);
    float *o = out;
    for (int32_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int32_t j = 0; j < p->n_in; j++) acc += ((const float *)in[j])[i];
        o[i] = acc;
    }
    return K_OK;
}

/* TFLite Micro's accumulator starts at the scaled input offset (the
 * "x = 0" of its reference code is input1_offset), i.e. one extra -zp. */
static int add_n_s8(const k_op_binop_blob *p, const void *const *in, void *out)
{
    const int32_t n = k_dims_count(&p->dout);
    int8_t *o = out;
    const int32_t init = k_mbqm_lt1(shl(p->in1_offset, p->left_shift), p->in1_mult, p->in1_shift);
    for (int32_t i = 0; i < n; i++) {
        int32_t acc = init;
        for (int32_t j = 0; j < p->n_in; j++) {
            const int32_t v = p->in1_offset + ((const int8_t *)in[j])[i];
            acc = k_wrap_add32(acc, k_mbqm_lt1(shl(v, p->left_shift), p->in1_mult, p->in1_shift));
        }
        o[i] = (int8_t)k_add_clamp_i32(k_mbqm_lt1(acc, p->out_mult, p->out_shift), p->out_offset, p->act_min,
                                       p->act_max);
    }
    return K_OK;
}

/* ---- dispatch ------------------------------------------------------------------------ */

int k_binop_eval(uint32_t kind, const k_op_binop_blob *p, const void *const *in, void *out)
{
    switch (kind) {
    case K_OP_DIV_F32: return div_f32(p, in, out);
    case K_OP_DIV_S32: return div_s32(p, in, out);
    case K_OP_DIV_S8: return div_s8(p, in, out);
    case K_OP_FLOOR_DIV_F32:
    case K_OP_FLOOR_MOD_F32: {
        if (kind == K_OP_FLOOR_DIV_F32) {
            /* TFLite Micro rejects any zero divisor before computing. */
            const int32_t nd = k_dims_count(&p->d2);
            for (int32_t i = 0; i < nd; i++)
                if (((const float *)in[1])[i] == 0.0f) return K_E_UNSUPPORTED;
            return floor_div_f32(p, in, out);
        }
        return floor_mod_f32(p, in, out);
    }
    case K_OP_FLOOR_DIV_S32:
    case K_OP_FLOOR_MOD_S32: {
        /* TFLite checks every divisor before computing. */
        const int32_t nd = k_dims_count(&p->d2);
        for (int32_t i = 0; i < nd; i++)
            if (((const int32_t *)in[1])[i] == 0) return K_E_UNSUPPORTED;
        return kind == K_OP_FLOOR_DIV_S32 ? floor_div_s32(p, in, out) : floor_mod_s32(p, in, out);
    }
    case K_OP_SQDIFF_F32: return sqdiff_f32(p, in, out);
    case K_OP_SQDIFF_S32: return sqdiff_s32(p, in, out);
    case K_OP_SQDIFF_S8: return sqdiff_s8(p, in, out);
    case K_OP_SQDIFF_S16: return sqdiff_s16(p, in, out);
    case K_OP_CMP_BOOL: return cmp_bool(p, in, out);
    case K_OP_CMP_F32: return cmp_f32(p, in, out);
    case K_OP_CMP_S32: return cmp_s32(p, in, out);
    case K_OP_CMP_S64: return cmp_s64(p, in, out);
    case K_OP_CMP_S8: return cmp_s8(p, in, out);
    case K_OP_CMP_S16: return cmp_s16(p, in, out);
    case K_OP_LOGICAL_AND: return logical_and(p, in, out);
    case K_OP_LOGICAL_OR: return logical_or(p, in, out);
    case K_OP_PRELU_F32: return prelu_f32(p, in, out);
    case K_OP_PRELU_S8: return prelu_s8(p, in, out);
    case K_OP_PRELU_S16: return prelu_s16(p, in, out);
    case K_OP_SELECT_X8: return select_x8(p, in, out);
    case K_OP_SELECT_X16: return select_x16(p, in, out);
    case K_OP_SELECT_X32: return select_x32(p, in, out);
    case K_OP_ADD_N_F32: return add_n_f32(p, in, out);
    case K_OP_ADD_N_S8: return add_n_s8(p, in, out);
    default: return K_E_INVALID;
    }
}
