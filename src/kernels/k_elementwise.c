/* Binary elementwise kernels with broadcasting: ADD, SUB, MUL, MAXIMUM,
 * MINIMUM. Integer semantics follow the TFLite Micro reference kernels. */
#include "k_elementwise.h"

/* ---- broadcast iteration ---------------------------------------------------
 * The output is walked row by row. Dims of extent 1 are dropped and adjacent
 * dims in which each input has the same broadcast state (read fully or held)
 * are merged, so the innermost row is as long as possible and each input's
 * innermost stride is 0 (held) or 1 (read). Outer dims use an odometer. */
typedef struct bcast {
    int32_t nd;                  /* collapsed dims; [0] is the innermost */
    int32_t ext[K_MAX_DIMS];
    size_t sa[K_MAX_DIMS];       /* element strides of input 1 (0 = held) */
    size_t sb[K_MAX_DIMS];       /* element strides of input 2 */
    int32_t idx[K_MAX_DIMS];
    size_t ia, ib, io;           /* current row start offsets */
    bool empty;
} bcast;

static int32_t dim_aligned(const k_dims *d, int32_t rank, int32_t i)
{
    int32_t j = i - (rank - d->rank);
    return j >= 0 ? d->d[j] : 1;
}

int k_broadcast_shape(const k_dims *d1, const k_dims *d2, k_dims *out)
{
    if (!d1 || !d2 || !out) return K_E_INVALID;
    if (d1->rank < 0 || d2->rank < 0 || d1->rank > K_MAX_DIMS || d2->rank > K_MAX_DIMS)
        return K_E_INVALID;
    int32_t r = d1->rank > d2->rank ? d1->rank : d2->rank;
    out->rank = r;
    for (int32_t i = 0; i < r; i++) {
        int32_t a = dim_aligned(d1, r, i), b = dim_aligned(d2, r, i);
        if (a < 0 || b < 0) return K_E_INVALID;
        if (a == b || b == 1) {
            out->d[i] = a;
        } else if (a == 1) {
            out->d[i] = b;
        } else {
            return K_E_INVALID;
        }
    }
    return K_OK;
}

static int bcast_init(bcast *bc, const k_dims *d1, const k_dims *d2, const k_dims *dout)
{
    k_dims want;
    if (!dout || k_broadcast_shape(d1, d2, &want) != K_OK) return K_E_INVALID;
    if (dout->rank != want.rank) return K_E_INVALID;
    for (int32_t i = 0; i < want.rank; i++)
        if (dout->d[i] != want.d[i]) return K_E_INVALID;

    bc->nd = 0;
    bc->empty = false;
    bc->ia = bc->ib = bc->io = 0;
    size_t acc_a = 1, acc_b = 1;
    int last_fa = -1, last_fb = -1;
    for (int32_t i = want.rank - 1; i >= 0; i--) {
        int32_t a = dim_aligned(d1, want.rank, i), b = dim_aligned(d2, want.rank, i);
        int32_t o = want.d[i];
        if (o == 0) {
            bc->empty = true;
            return K_OK;
        }
        if (o == 1) continue;
        int fa = (a == o), fb = (b == o);
        if (bc->nd > 0 && fa == last_fa && fb == last_fb) {
            bc->ext[bc->nd - 1] *= o;
        } else {
            bc->ext[bc->nd] = o;
            bc->sa[bc->nd] = fa ? acc_a : 0;
            bc->sb[bc->nd] = fb ? acc_b : 0;
            bc->nd++;
            last_fa = fa;
            last_fb = fb;
        }
        acc_a *= (size_t)a;
        acc_b *= (size_t)b;
    }
    if (bc->nd == 0) {
        bc->nd = 1;
        bc->ext[0] = 1;
        bc->sa[0] = bc->sb[0] = 0;
    }
    for (int32_t i = 0; i < bc->nd; i++) bc->idx[i] = 0;
    return K_OK;
}

/* Moves to the next output row; false after the last one. */
static bool bcast_next(bcast *bc)
{
    bc->io += (size_t)bc->ext[0];
    for (int32_t d = 1; d < bc->nd; d++) {
        bc->idx[d]++;
        bc->ia += bc->sa[d];
        bc->ib += bc->sb[d];
        if (bc->idx[d] < bc->ext[d]) return true;
        bc->ia -= bc->sa[d] * (size_t)bc->ext[d];
        bc->ib -= bc->sb[d] * (size_t)bc->ext[d];
        bc->idx[d] = 0;
    }
    return false;
}

/* Defines a public kernel FN that runs ROW over every output row. */
#define K_BINARY_KERNEL(SC, FN, T, PT, ROW)                                               \
    SC int FN(const PT *p, const k_dims *d1, const T *in1, const k_dims *d2, const T *in2,     \
           const k_dims *dout, T *out)                                                    \
    {                                                                                     \
        bcast bc;                                                                         \
        if (!p || bcast_init(&bc, d1, d2, dout) != K_OK) return K_E_INVALID;              \
        if (bc.empty) return K_OK;                                                        \
        if (!in1 || !in2 || !out) return K_E_INVALID;                                     \
        do {                                                                              \
            ROW(p, in1 + bc.ia, bc.sa[0], in2 + bc.ib, bc.sb[0], out + bc.io, bc.ext[0]); \
        } while (bcast_next(&bc));                                                        \
        return K_OK;                                                                      \
    }

/* ---- quantized ADD / SUB (general path) ------------------------------------ */

/* One input's contribution: offset, shift left, scale (shift <= 0). */
static inline int32_t addq_scale(int32_t v, int32_t offset, int32_t left_shift, int32_t m,
                                 int32_t shift)
{
    int32_t shifted = (int32_t)((uint32_t)(v + offset) << left_shift);
    return k_mbqm_lt1(shifted, m, shift);
}

static inline int32_t addq_finish(const k_add_params *p, int32_t raw)
{
    return k_add_clamp_i32(k_mbqm_lt1(raw, p->out_mult, p->out_shift), p->out_offset, p->act_min, p->act_max);
}

/* The scaled inputs' sum or difference wraps like TFLite's int32 arithmetic
 * in practice (only reachable with zero points far from TFLite's). */
#define ADDQ_WRAP(a, OP, b) ((int32_t)((uint32_t)(a) OP (uint32_t)(b)))

#define ADDQ_ROW(NAME, T, OP)                                                               \
    static void NAME(const k_add_params *p, const T *a, size_t sa, const T *b, size_t sb,   \
                     T *o, int32_t n)                                                       \
    {                                                                                       \
        const int32_t ls = p->left_shift;                                                   \
        if (sa == 0) {                                                                      \
            const int32_t xa = addq_scale(a[0], p->in1_offset, ls, p->in1_mult, p->in1_shift); \
            for (int32_t i = 0; i < n; i++) {                                               \
                int32_t xb = addq_scale(b[i * sb], p->in2_offset, ls, p->in2_mult, p->in2_shift); \
                o[i] = (T)addq_finish(p, ADDQ_WRAP(xa, OP, xb));                                       \
            }                                                                               \
        } else if (sb == 0) {                                                               \
            const int32_t xb = addq_scale(b[0], p->in2_offset, ls, p->in2_mult, p->in2_shift); \
            for (int32_t i = 0; i < n; i++) {                                               \
                int32_t xa = addq_scale(a[i], p->in1_offset, ls, p->in1_mult, p->in1_shift); \
                o[i] = (T)addq_finish(p, ADDQ_WRAP(xa, OP, xb));                                       \
            }                                                                               \
        } else {                                                                            \
            for (int32_t i = 0; i < n; i++) {                                               \
                int32_t xa = addq_scale(a[i], p->in1_offset, ls, p->in1_mult, p->in1_shift); \
                int32_t xb = addq_scale(b[i], p->in2_offset, ls, p->in2_mult, p->in2_shift); \
                o[i] = (T)addq_finish(p, ADDQ_WRAP(xa, OP, xb));                                       \
            }                                                                               \
        }                                                                                   \
    }

ADDQ_ROW(add_row_s8, int8_t, +)
ADDQ_ROW(add_row_s16, int16_t, +)
ADDQ_ROW(sub_row_s8, int8_t, -)
ADDQ_ROW(sub_row_s16, int16_t, -)

static bool addq_params_ok(const k_add_params *p)
{
    return p && p->left_shift >= 0 && p->left_shift <= 24 && p->in1_shift <= 0 &&
           p->in1_shift >= -31 && p->in2_shift <= 0 && p->in2_shift >= -31 &&
           p->out_shift <= 0 && p->out_shift >= -31 && p->act_min <= p->act_max;
}

#define K_BINARY_KERNEL_CHECKED(FN, T, PT, ROW, CHECK)                                     \
    K_BINARY_KERNEL(static, FN##_run, T, PT, ROW)                                         \
    int FN(const PT *p, const k_dims *d1, const T *in1, const k_dims *d2, const T *in2,     \
           const k_dims *dout, T *out)                                                    \
    {                                                                                     \
        if (!CHECK(p)) return K_E_INVALID;                                                \
        return FN##_run(p, d1, in1, d2, in2, dout, out);                                  \
    }

K_BINARY_KERNEL_CHECKED(k_add_s8, int8_t, k_add_params, add_row_s8, addq_params_ok)
K_BINARY_KERNEL_CHECKED(k_add_s16, int16_t, k_add_params, add_row_s16, addq_params_ok)
K_BINARY_KERNEL_CHECKED(k_sub_s8, int8_t, k_add_params, sub_row_s8, addq_params_ok)
K_BINARY_KERNEL_CHECKED(k_sub_s16, int16_t, k_add_params, sub_row_s16, addq_params_ok)

/* ---- int16 ADD / SUB, power-of-two scales ---------------------------------- */

/* gemmlowp RoundingDivideByPOT evaluated in int16 arithmetic, as TFLite does
 * for this path: for exponents >= 16 the int16 mask degenerates to all ones
 * and the result is 1 for x >= 0 and -1 for x < 0. */
static inline int32_t rdpot_s16(int32_t x, int32_t exponent)
{
    if (exponent >= 16) return x >= 0 ? 1 : -1;
    return k_rdpot(x, exponent);
}

#define ADDPOT_ROW(NAME, OP)                                                                 \
    static void NAME(const k_add_pot_params *p, const int16_t *a, size_t sa, const int16_t *b, \
                     size_t sb, int16_t *o, int32_t n)                                       \
    {                                                                                        \
        const int32_t ea = -p->in1_shift, eb = -p->in2_shift;                                \
        for (int32_t i = 0; i < n; i++) {                                                    \
            int32_t r = rdpot_s16(a[i * sa], ea) OP rdpot_s16(b[i * sb], eb);                \
            o[i] = (int16_t)k_clamp_i32(r, p->act_min, p->act_max);                          \
        }                                                                                    \
    }

ADDPOT_ROW(add_row_s16_pot, +)
ADDPOT_ROW(sub_row_s16_pot, -)

static bool pot_params_ok(const k_add_pot_params *p)
{
    return p && p->in1_shift <= 0 && p->in2_shift <= 0 && p->in1_shift >= -31 &&
           p->in2_shift >= -31 && (p->in1_shift == 0 || p->in2_shift == 0) &&
           p->act_min <= p->act_max && p->act_min >= INT16_MIN && p->act_max <= INT16_MAX;
}

K_BINARY_KERNEL_CHECKED(k_add_s16_pot, int16_t, k_add_pot_params, add_row_s16_pot, pot_params_ok)
K_BINARY_KERNEL_CHECKED(k_sub_s16_pot, int16_t, k_add_pot_params, sub_row_s16_pot, pot_params_ok)

/* ---- float and int32 ADD / SUB / MUL --------------------------------------- */

/* TFLite's ActivationFunctionWithMinMax: min(max(x, lo), hi) with std::max /
 * std::min comparison order (a NaN input stays NaN). */
static inline float act_f32(float x, float lo, float hi)
{
    x = (x < lo) ? lo : x;
    return (hi < x) ? hi : x;
}

#define FLOAT_ROW(NAME, EXPR)                                                                \
    static void NAME(const k_act_f32 *p, const float *a, size_t sa, const float *b, size_t sb, \
                     float *o, int32_t n)                                                    \
    {                                                                                        \
        const float lo = p->min, hi = p->max;                                                \
        for (int32_t i = 0; i < n; i++) {                                                    \
            const float x = a[i * sa], y = b[i * sb];                                        \
            o[i] = act_f32(EXPR, lo, hi);                                                    \
        }                                                                                    \
    }

FLOAT_ROW(add_row_f32, x + y)
FLOAT_ROW(sub_row_f32, x - y)
FLOAT_ROW(mul_row_f32, x * y)

K_BINARY_KERNEL(, k_add_f32, float, k_act_f32, add_row_f32)
K_BINARY_KERNEL(, k_sub_f32, float, k_act_f32, sub_row_f32)
K_BINARY_KERNEL(, k_mul_f32, float, k_act_f32, mul_row_f32)

/* int32 arithmetic wraps (two's complement), as TFLite's WrappingAdd/Mul. */
#define S32_ROW(NAME, EXPR)                                                                  \
    static void NAME(const k_act_s32 *p, const int32_t *a, size_t sa, const int32_t *b,      \
                     size_t sb, int32_t *o, int32_t n)                                       \
    {                                                                                        \
        const int32_t lo = p->min, hi = p->max;                                              \
        for (int32_t i = 0; i < n; i++) {                                                    \
            const uint32_t x = (uint32_t)a[i * sa], y = (uint32_t)b[i * sb];                 \
            o[i] = k_clamp_i32((int32_t)(EXPR), lo, hi);                                     \
        }                                                                                    \
    }

S32_ROW(add_row_s32, x + y)
S32_ROW(sub_row_s32, x - y)
S32_ROW(mul_row_s32, x * y)

K_BINARY_KERNEL(, k_add_s32, int32_t, k_act_s32, add_row_s32)
K_BINARY_KERNEL(, k_sub_s32, int32_t, k_act_s32, sub_row_s32)
K_BINARY_KERNEL(, k_mul_s32, int32_t, k_act_s32, mul_row_s32)

/* ---- quantized MUL ---------------------------------------------------------- */

#define MULQ_ROW(NAME, T)                                                                    \
    static void NAME(const k_mul_params *p, const T *a, size_t sa, const T *b, size_t sb,    \
                     T *o, int32_t n)                                                        \
    {                                                                                        \
        const int32_t oa = p->in1_offset, ob = p->in2_offset;                                \
        const int32_t m = p->out_mult, s = p->out_shift, oo = p->out_offset;                 \
        for (int32_t i = 0; i < n; i++) {                                                    \
            const int32_t x = a[i * sa] + oa, y = b[i * sb] + ob;                            \
            o[i] = (T)k_add_clamp_i32(k_mbqm((int32_t)((int64_t)x * y), m, s), oo, p->act_min, p->act_max); \
        }                                                                                    \
    }

MULQ_ROW(mul_row_s8, int8_t)
MULQ_ROW(mul_row_s16, int16_t)

static bool mulq_params_ok(const k_mul_params *p)
{
    return p && p->out_shift >= -31 && p->out_shift <= 30 && p->act_min <= p->act_max;
}

K_BINARY_KERNEL_CHECKED(k_mul_s8, int8_t, k_mul_params, mul_row_s8, mulq_params_ok)
K_BINARY_KERNEL_CHECKED(k_mul_s16, int16_t, k_mul_params, mul_row_s16, mulq_params_ok)

/* ---- MAXIMUM / MINIMUM ------------------------------------------------------- */

/* TFLite: max = a > b ? a : b, min = a < b ? a : b (operand order matters
 * for NaN). */
#define MINMAX_ROW(NAME, T, CMP)                                                             \
    static void NAME(const void *p, const T *a, size_t sa, const T *b, size_t sb, T *o,      \
                     int32_t n)                                                              \
    {                                                                                        \
        (void)p;                                                                             \
        for (int32_t i = 0; i < n; i++) {                                                    \
            const T x = a[i * sa], y = b[i * sb];                                            \
            o[i] = (x CMP y) ? x : y;                                                        \
        }                                                                                    \
    }

MINMAX_ROW(max_row_s8, int8_t, >)
MINMAX_ROW(max_row_s16, int16_t, >)
MINMAX_ROW(max_row_s32, int32_t, >)
MINMAX_ROW(max_row_f32, float, >)
MINMAX_ROW(min_row_s8, int8_t, <)
MINMAX_ROW(min_row_s16, int16_t, <)
MINMAX_ROW(min_row_s32, int32_t, <)
MINMAX_ROW(min_row_f32, float, <)

#define MINMAX_KERNEL(FN, T, ROW)                                                            \
    K_BINARY_KERNEL(static, FN##_run, T, void, ROW)                                           \
    int FN(const k_dims *d1, const T *in1, const k_dims *d2, const T *in2, const k_dims *dout, \
           T *out)                                                                           \
    {                                                                                        \
        static const int32_t unused = 0;                                                     \
        return FN##_run(&unused, d1, in1, d2, in2, dout, out);                               \
    }

MINMAX_KERNEL(k_maximum_s8, int8_t, max_row_s8)
MINMAX_KERNEL(k_maximum_s16, int16_t, max_row_s16)
MINMAX_KERNEL(k_maximum_s32, int32_t, max_row_s32)
MINMAX_KERNEL(k_maximum_f32, float, max_row_f32)
MINMAX_KERNEL(k_minimum_s8, int8_t, min_row_s8)
MINMAX_KERNEL(k_minimum_s16, int16_t, min_row_s16)
MINMAX_KERNEL(k_minimum_s32, int32_t, min_row_s32)
MINMAX_KERNEL(k_minimum_f32, float, min_row_f32)
