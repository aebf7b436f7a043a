/* Prepared ops of the reduce family (k_op_reduce.h): ARG_MAX, ARG_MIN,
 * REDUCE_MAX, REDUCE_MIN, SUM, CUMSUM, L2_POOL_2D, BATCH_MATMUL, with
 * TFLite Micro's reference semantics (docs/kernels-reduce.md). */
#include "k_op_internal.h"

#include <float.h>

_Static_assert(sizeof(k_op_arg_blob) == 4 * 11, "k_op_arg_blob: 4-byte fields only");
_Static_assert(sizeof(k_op_reduce_blob) == 4 * 20, "k_op_reduce_blob: 4-byte fields only");
_Static_assert(sizeof(k_op_cumsum_blob) == 4 * 18, "k_op_cumsum_blob: 4-byte fields only");
_Static_assert(sizeof(k_op_l2pool_blob) == 4 * 14, "k_op_l2pool_blob: 4-byte fields only");
_Static_assert(sizeof(k_op_bmm_blob) == 4 * 22, "k_op_bmm_blob: 4-byte fields only");

/* ---- shared ------------------------------------------------------------------------ */

/* An axis value (negative counts from the end) resolved against rank:
 * false when outside [-rank, rank). */
static bool resolve_one(int32_t a, int32_t rank, int32_t *out)
{
    int64_t r = a < 0 ? (int64_t)a + rank : a;
    if (r < 0 || r >= rank) return false;
    *out = (int32_t)r;
    return true;
}

/* Odometer over a set of dims with strides (elements), row-major. */
typedef struct odo {
    int32_t n;
    int32_t ext[K_MAX_DIMS];
    size_t str[K_MAX_DIMS];
    int32_t idx[K_MAX_DIMS];
    size_t off;
} odo;

static void odo_reset(odo *o)
{
    for (int32_t i = 0; i < o->n; i++) o->idx[i] = 0;
    o->off = 0;
}

/* Advances; false after the last position (the offset is back at 0). */
static bool odo_next(odo *o)
{
    for (int32_t d = o->n - 1; d >= 0; d--) {
        o->off += o->str[d];
        if (++o->idx[d] < o->ext[d]) return true;
        o->off -= o->str[d] * (size_t)o->ext[d];
        o->idx[d] = 0;
    }
    return false;
}

/* Kept dims (outer, output order) and reduced dims (inner) of a reduction. */
typedef struct rplan {
    odo kept, red;
    uint64_t n_out;   /* product of the kept dims */
    int64_t count;    /* product of the reduced dims */
    bool empty;       /* some input dim is 0 */
} rplan;

static void rplan_make(const k_dims *din, const int32_t *axis, int32_t n_axis, rplan *p)
{
    bool red[K_MAX_DIMS] = {false};
    for (int32_t i = 0; i < n_axis; i++) red[axis[i]] = true;
    size_t str[K_MAX_DIMS];
    size_t s = 1;
    for (int32_t i = din->rank - 1; i >= 0; i--) {
        str[i] = s;
        s *= (size_t)din->d[i];
    }
    p->kept.n = p->red.n = 0;
    p->n_out = 1;
    p->count = 1;
    p->empty = false;
    for (int32_t i = 0; i < din->rank; i++) {
        if (din->d[i] == 0) p->empty = true;
        odo *o = red[i] ? &p->red : &p->kept;
        o->ext[o->n] = din->d[i];
        o->str[o->n++] = str[i];
        if (red[i])
            p->count *= din->d[i];
        else
            p->n_out *= (uint64_t)din->d[i];
    }
    odo_reset(&p->kept);
    odo_reset(&p->red);
}

/* Reads a non-constant axis tensor (n int32 values) from io->in[1]. */
static int dyn_axis(const k_op_io *io, int32_t n, const int32_t **axis)
{
    void *p;
    int rc = k_op_in(io, 1, (uint64_t)n * 4u, 4, &p);
    *axis = p;
    return rc;
}

/* ---- ARG_MAX / ARG_MIN ---------------------------------------------------------------- */

/* candidate replaces current (TFLite's comparators; floats NaN-aware). */
static inline bool arg_better_f(float cand, float cur, bool is_max)
{
    if (isnan(cand)) return false;
    if (isnan(cur)) return true;
    return is_max ? cand > cur : cand < cur;
}

static int run_arg(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_arg_blob b;
    K_OP_LOAD(b, blob, size);
    const uint64_t n_in = k_op_dims_count(&b.din, K_MAX_DIMS);
    if (n_in > INT32_MAX || b.din.rank < 1) return K_E_INVALID;
    if (!k_op_in_range(b.axis_dynamic, 0, 1) || !k_op_in_range(b.out_count, 0, INT32_MAX)) return K_E_INVALID;
    if (b.axis_dynamic) {
        if (!k_op_in_range(b.n_axis, 1, K_REDUCE_MAX_AXIS_ELEMS)) return K_E_INVALID;
    } else if (!k_op_in_range(b.axis, 0, b.din.rank - 1)) {
        return K_E_INVALID;
    }
    const bool f32 = kind == K_OP_ARG_MAX_F32 || kind == K_OP_ARG_MIN_F32;
    const bool is_max = kind == K_OP_ARG_MAX_F32 || kind == K_OP_ARG_MAX_S8;
    const uint32_t es = f32 ? 4u : 1u;
    if (!io) return K_OK;
    void *in, *outp;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * es, es, &in)) || (rc = k_op_out(io, 0, (uint64_t)b.out_count * 4u, 4, &outp)))
        return rc;
    int32_t axis = b.axis;
    if (b.axis_dynamic) {
        const int32_t *ap;
        if ((rc = dyn_axis(io, b.n_axis, &ap))) return rc;
        if (!resolve_one(ap[0], b.din.rank, &axis)) return K_E_INVALID;
    }
    uint64_t outer = 1, inner = 1;
    for (int32_t i = 0; i < axis; i++) outer *= (uint64_t)b.din.d[i];
    for (int32_t i = axis + 1; i < b.din.rank; i++) inner *= (uint64_t)b.din.d[i];
    const size_t depth = (size_t)b.din.d[axis];
    /* TFLite Micro writes outer * inner indices into the output as given. */
    if (outer * inner > (uint64_t)b.out_count) return K_E_INVALID;
    if (depth == 0 && outer * inner > 0) return K_E_INVALID; /* nothing to compare */
    int32_t *out = outp;
    for (size_t o = 0; o < outer; o++) {
        for (size_t i = 0; i < inner; i++) {
            const size_t base = o * depth * inner + i;
            int32_t best_i = 0;
            if (f32) {
                const float *x = in;
                float best = x[base];
                for (size_t d = 1; d < depth; d++) {
                    const float v = x[base + d * inner];
                    if (arg_better_f(v, best, is_max)) {
                        best = v;
                        best_i = (int32_t)d;
                    }
                }
            } else {
                const int8_t *x = in;
                int8_t best = x[base];
                for (size_t d = 1; d < depth; d++) {
                    const int8_t v = x[base + d * inner];
                    if (is_max ? v > best : v < best) {
                        best = v;
                        best_i = (int32_t)d;
                    }
                }
            }
            out[o * inner + i] = best_i;
        }
    }
    return K_OK;
}

/* ---- REDUCE_MAX / REDUCE_MIN / SUM -------------------------------------------------- */

static int run_reduce(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_reduce_blob b;
    K_OP_LOAD(b, blob, size);
    const uint64_t n_in = k_op_dims_count(&b.din, K_MAX_DIMS);
    if (n_in > INT32_MAX) return K_E_INVALID;
    if (!k_op_in_range(b.axis_dynamic, 0, 1) || !k_op_in_range(b.out_count, 0, INT32_MAX)) return K_E_INVALID;
    if (b.axis_dynamic) {
        if (!k_op_in_range(b.n_axis, 0, K_REDUCE_MAX_AXIS_ELEMS)) return K_E_INVALID;
    } else {
        /* Resolved: unique, in range (none for a scalar input). */
        if (!k_op_in_range(b.n_axis, 0, b.din.rank)) return K_E_INVALID;
        for (int32_t i = 0; i < b.n_axis; i++) {
            if (!k_op_in_range(b.axis[i], 0, b.din.rank - 1)) return K_E_INVALID;
            for (int32_t j = 0; j < i; j++)
                if (b.axis[j] == b.axis[i]) return K_E_INVALID;
        }
    }
    uint32_t es;
    switch (kind) {
    case K_OP_REDUCE_MAX_S8: case K_OP_REDUCE_MIN_S8: case K_OP_SUM_S8: es = 1; break;
    case K_OP_SUM_S16: es = 2; break;
    default: es = 4; break;
    }
    const bool qsum = kind == K_OP_SUM_S8 || kind == K_OP_SUM_S16;
    const int32_t qmin = es == 1 ? INT8_MIN : INT16_MIN, qmax = es == 1 ? INT8_MAX : INT16_MAX;
    if (qsum && (b.mult < 0 || !k_op_in_range(b.shift, -31, 30) || !k_op_in_range(b.in_zp, qmin, qmax) ||
                 !k_op_in_range(b.out_zp, qmin, qmax)))
        return K_E_INVALID;
    if (!io) return K_OK;
    void *in, *outp;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * es, es, &in)) || (rc = k_op_out(io, 0, (uint64_t)b.out_count * es, es, &outp)))
        return rc;
    const size_t n_out_t = (size_t)b.out_count;
    /* An input with an empty dim: every output is the initial value (the
     * reducer's identity; SUM int: 0), before the axes are looked at. */
    bool empty = false;
    for (int32_t i = 0; i < b.din.rank; i++) empty = empty || b.din.d[i] == 0;
    int32_t axes[K_MAX_DIMS], n_axes = b.n_axis;
    if (b.axis_dynamic && !empty) {
        const int32_t *ap;
        if ((rc = dyn_axis(io, b.n_axis, &ap))) return rc;
        /* TFLite's ResolveAxis, as MEAN's (k_elementwise.h) */
        if (k_mean_resolve_axes(b.din.rank, ap, b.n_axis, axes, &n_axes)) return K_E_INVALID;
    } else if (!b.axis_dynamic) {
        for (int32_t i = 0; i < n_axes; i++) axes[i] = b.axis[i];
    } else {
        n_axes = 0;
    }
    rplan pl;
    rplan_make(&b.din, axes, n_axes, &pl);
    /* TFLite Micro writes the reduced values at offsets given by the input
     * dims and axes; the output tensor must hold them. */
    const size_t n_red = empty ? 0 : (size_t)pl.n_out;
    if (!empty && pl.n_out > (uint64_t)b.out_count) return K_E_INVALID;

#define REDUCE_LOOP(T, ACC_T, INIT, STEP, STORE)                        \
    do {                                                                \
        const T *x = in;                                                \
        T *y = outp;                                                    \
        for (size_t o = 0; o < n_red; o++) {                            \
            ACC_T acc = (INIT);                                         \
            const size_t base = pl.kept.off;                            \
            do {                                                        \
                const T v = x[base + pl.red.off];                       \
                STEP;                                                   \
            } while (odo_next(&pl.red));                                \
            y[o] = STORE;                                               \
            odo_next(&pl.kept);                                         \
        }                                                               \
        for (size_t o = n_red; o < n_out_t; o++) {                      \
            ACC_T acc = (INIT);                                         \
            y[o] = STORE;                                               \
        }                                                               \
    } while (0)

    switch (kind) {
    case K_OP_REDUCE_MAX_F32: REDUCE_LOOP(float, float, -FLT_MAX, acc = v > acc ? v : acc, acc); break;
    case K_OP_REDUCE_MIN_F32: REDUCE_LOOP(float, float, FLT_MAX, acc = v < acc ? v : acc, acc); break;
    case K_OP_REDUCE_MAX_S8: REDUCE_LOOP(int8_t, int8_t, INT8_MIN, acc = v > acc ? v : acc, acc); break;
    case K_OP_REDUCE_MIN_S8: REDUCE_LOOP(int8_t, int8_t, INT8_MAX, acc = v < acc ? v : acc, acc); break;
    case K_OP_SUM_F32: REDUCE_LOOP(float, float, 0.0f, acc = v + acc, acc); break;
    default: {
        /* TFLite Micro's QuantizedMeanOrSum (compute_sum): int32 sums (wrapping
         * here), minus in_zp * count, rescaled, + out_zp, saturated. An input
         * with an empty dim gives zeros. */
        if (empty) {
            memset(outp, 0, n_out_t * es);
            return K_OK;
        }
        const int64_t zp_total = (int64_t)b.in_zp * pl.count;
#define QSUM_STORE (k_add_clamp_i32(k_mbqm((int32_t)(uint32_t)((uint64_t)(int64_t)(int32_t)acc - (uint64_t)zp_total), \
                                           b.mult, b.shift), b.out_zp, qmin, qmax))
        if (kind == K_OP_SUM_S8)
            REDUCE_LOOP(int8_t, uint32_t, 0u, acc += (uint32_t)(int32_t)v, (int8_t)QSUM_STORE);
        else
            REDUCE_LOOP(int16_t, uint32_t, 0u, acc += (uint32_t)(int32_t)v, (int16_t)QSUM_STORE);
#undef QSUM_STORE
        break;
    }
    }
#undef REDUCE_LOOP
    return K_OK;
}

/* ---- CUMSUM ----------------------------------------------------------------------------- */

static int run_cumsum(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_cumsum_blob b;
    K_OP_LOAD(b, blob, size);
    const uint64_t n = k_op_dims_count(&b.din, K_MAX_DIMS);
    if (n > INT32_MAX || b.din.rank < 1) return K_E_INVALID;
    if (!k_op_in_range(b.axis_dynamic, 0, 1) || !k_op_in_range(b.exclusive, 0, 1) || !k_op_in_range(b.reverse, 0, 1))
        return K_E_INVALID;
    if (!b.axis_dynamic && !k_op_in_range(b.axis, 0, b.din.rank - 1)) return K_E_INVALID;
    const bool s8 = kind == K_OP_CUMSUM_S8;
    if (s8 && (!k_op_in_range(b.in_offset, -INT8_MAX, -INT8_MIN) || !k_op_in_range(b.out_zp, INT8_MIN, INT8_MAX) ||
               !k_op_in_range(b.left_shift, 0, 23) || b.in_mult < 0 || b.out_mult < 0 ||
               !k_op_in_range(b.in_shift, -31, 0) || !k_op_in_range(b.out_shift, -31, 0)))
        return K_E_INVALID;
    const uint32_t es = s8 ? 1u : 4u;
    if (!io) return K_OK;
    void *in, *outp;
    int rc;
    if ((rc = k_op_in(io, 0, n * es, es, &in)) || (rc = k_op_out(io, 0, n * es, es, &outp))) return rc;
    int32_t axis = b.axis;
    if (b.axis_dynamic) {
        const int32_t *ap;
        if ((rc = dyn_axis(io, 1, &ap))) return rc;
        if (!resolve_one(ap[0], b.din.rank, &axis)) return K_E_INVALID;
    }
    size_t outer = 1, inner = 1;
    for (int32_t i = 0; i < axis; i++) outer *= (size_t)b.din.d[i];
    for (int32_t i = axis + 1; i < b.din.rank; i++) inner *= (size_t)b.din.d[i];
    const size_t depth = (size_t)b.din.d[axis];
    /* The accumulator's start: 0 (float); int8: the rescaled input offset,
     * as TFLite Micro (one extra -zp * scale in every sum). */
    int32_t acc0 = 0;
    if (s8) acc0 = k_mbqm((int32_t)((uint32_t)b.in_offset << b.left_shift), b.in_mult, b.in_shift);
    for (size_t o = 0; o < outer; o++) {
        for (size_t i = 0; i < inner; i++) {
            const size_t base = o * depth * inner + i;
            float facc = 0.0f;
            uint32_t qacc = (uint32_t)acc0;
            for (size_t d = 0; d < depth; d++) {
                const size_t idx = base + (b.reverse ? depth - 1 - d : d) * inner;
                if (!s8) {
                    const float v = ((const float *)in)[idx];
                    float r;
                    if (b.exclusive) {
                        r = facc;
                        facc = facc + v;
                    } else {
                        facc = facc + v;
                        r = facc;
                    }
                    ((float *)outp)[idx] = r;
                } else {
                    const int32_t yv = b.in_offset + ((const int8_t *)in)[idx];
                    const int32_t scaled = k_mbqm((int32_t)((uint32_t)yv << b.left_shift), b.in_mult, b.in_shift);
                    uint32_t r;
                    if (b.exclusive) {
                        r = qacc;
                        qacc += (uint32_t)scaled;
                    } else {
                        qacc += (uint32_t)scaled;
                        r = qacc;
                    }
                    ((int8_t *)outp)[idx] =
                        (int8_t)k_add_clamp_i32(k_mbqm((int32_t)r, b.out_mult, b.out_shift), b.out_zp, INT8_MIN, INT8_MAX);
                }
            }
        }
    }
    return K_OK;
}

/* ---- L2_POOL_2D ------------------------------------------------------------------------ */

static int run_l2pool(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_l2pool_blob b;
    K_OP_LOAD(b, blob, size);
    const k_dims din = {4, {b.batch, b.in_h, b.in_w, b.depth, 0, 0}};
    const k_dims dout = {4, {b.batch, b.out_h, b.out_w, b.depth, 0, 0}};
    const uint64_t n_in = k_op_dims_count(&din, 4), n_out = k_op_dims_count(&dout, 4);
    if (n_in > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    if (!k_op_dim(b.filter_h, 1) || !k_op_dim(b.filter_w, 1) || !k_op_dim(b.stride_h, 1) || !k_op_dim(b.stride_w, 1) ||
        !k_op_dim(b.pad_h, 0) || !k_op_dim(b.pad_w, 0))
        return K_E_INVALID;
    if ((int64_t)b.out_h * b.stride_h > INT32_MAX || (int64_t)b.out_w * b.stride_w > INT32_MAX) return K_E_INVALID;
    if (!(b.act_min <= b.act_max)) return K_E_INVALID;
    if (!io) return K_OK;
    void *inp, *outp;
    int rc;
    if ((rc = k_op_in(io, 0, n_in * 4u, 4, &inp)) || (rc = k_op_out(io, 0, n_out * 4u, 4, &outp))) return rc;
    const float *in = inp;
    float *out = outp;
    size_t oi = 0;
    for (int32_t n = 0; n < b.batch; n++)
        for (int32_t oy = 0; oy < b.out_h; oy++)
            for (int32_t ox = 0; ox < b.out_w; ox++)
                for (int32_t c = 0; c < b.depth; c++) {
                    const int32_t x0 = ox * b.stride_w - b.pad_w, y0 = oy * b.stride_h - b.pad_h;
                    const int32_t fx0 = x0 < 0 ? -x0 : 0, fy0 = y0 < 0 ? -y0 : 0;
                    const int32_t fx1 = b.filter_w < b.in_w - x0 ? b.filter_w : b.in_w - x0;
                    const int32_t fy1 = b.filter_h < b.in_h - y0 ? b.filter_h : b.in_h - y0;
                    float sum = 0.0f;
                    int32_t count = 0;
                    for (int32_t fy = fy0; fy < fy1; fy++)
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            const size_t idx =
                                (((size_t)n * (size_t)b.in_h + (size_t)(y0 + fy)) * (size_t)b.in_w + (size_t)(x0 + fx)) *
                                    (size_t)b.depth + (size_t)c;
                            const float v = in[idx];
                            const float sq = v * v;
                            sum += sq;
                            count++;
                        }
                    float r = sqrtf(sum / (float)count);
                    r = r < b.act_min ? b.act_min : r;
                    r = b.act_max < r ? b.act_max : r;
                    out[oi++] = r;
                }
    return K_OK;
}

/* ---- BATCH_MATMUL ---------------------------------------------------------------------- */

static int run_bmm(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_bmm_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_in_range(b.lhs.rank, 2, 5) || !k_op_in_range(b.rhs.rank, 2, 5)) return K_E_INVALID;
    const uint64_t n_l = k_op_dims_count(&b.lhs, 5), n_r = k_op_dims_count(&b.rhs, 5);
    if (n_l > INT32_MAX || n_r > INT32_MAX) return K_E_INVALID;
    if (!k_op_in_range(b.adj_x, 0, 1) || !k_op_in_range(b.adj_y, 0, 1) || !k_op_in_range(b.out_count, 0, INT32_MAX))
        return K_E_INVALID;
    const int32_t lr = b.lhs.rank, rr = b.rhs.rank;
    const int32_t A = b.adj_x ? b.lhs.d[lr - 1] : b.lhs.d[lr - 2];
    const int32_t K = b.adj_x ? b.lhs.d[lr - 2] : b.lhs.d[lr - 1];
    const int32_t Kr = b.adj_y ? b.rhs.d[rr - 1] : b.rhs.d[rr - 2];
    const int32_t C = b.adj_y ? b.rhs.d[rr - 2] : b.rhs.d[rr - 1];
    if (K != Kr) return K_E_INVALID;
    /* Batch dims, right-aligned to 3 (ranks up to 5). */
    int32_t bl[3], br[3], bo[3];
    for (int32_t i = 0; i < 3; i++) {
        const int32_t li = lr - 5 + i, ri = rr - 5 + i;
        bl[i] = li >= 0 ? b.lhs.d[li] : 1;
        br[i] = ri >= 0 ? b.rhs.d[ri] : 1;
        if (bl[i] != br[i] && bl[i] != 1 && br[i] != 1) return K_E_INVALID;
        bo[i] = bl[i] == 1 ? br[i] : bl[i];
    }
    uint64_t n_o = (uint64_t)A * (uint64_t)C;
    for (int32_t i = 0; i < 3; i++) n_o = k_op_mul(n_o, (uint64_t)bo[i]);
    if (n_o != (uint64_t)b.out_count) return K_E_INVALID;
    uint32_t es = 4;
    int32_t qmin = 0, qmax = 0;
    if (kind == K_OP_BATCH_MATMUL_S8) {
        es = 1; qmin = INT8_MIN; qmax = INT8_MAX;
    } else if (kind == K_OP_BATCH_MATMUL_S16) {
        es = 2; qmin = INT16_MIN; qmax = INT16_MAX;
    }
    if (es != 4) {
        if (b.mult < 0 || !k_op_in_range(b.lhs_zp, qmin, qmax) || !k_op_in_range(b.rhs_zp, qmin, qmax) ||
            !k_op_in_range(b.out_zp, qmin, qmax))
            return K_E_INVALID;
        if (es == 1 && !k_op_in_range(b.shift, -31, 30)) return K_E_INVALID;
        if (es == 2 && (!k_op_in_range(b.shift, -47, 14) || b.lhs_zp || b.rhs_zp || b.out_zp)) return K_E_INVALID;
    }
    if (!io) return K_OK;
    void *lp, *rp, *op;
    int rc;
    if ((rc = k_op_in(io, 0, n_l * es, es, &lp)) || (rc = k_op_in(io, 1, n_r * es, es, &rp)) ||
        (rc = k_op_out(io, 0, n_o * es, es, &op)))
        return rc;
    if (n_o == 0) return K_OK;
    /* Batch strides (elements); a size-1 dim broadcasts (stride 0). */
    size_t sl[3], sr[3];
    size_t ml = (size_t)A * (size_t)K, mr = (size_t)K * (size_t)C;
    for (int32_t i = 2; i >= 0; i--) {
        sl[i] = bl[i] == 1 ? 0 : ml;
        sr[i] = br[i] == 1 ? 0 : mr;
        ml *= (size_t)bl[i];
        mr *= (size_t)br[i];
    }
    /* Element strides of L[a][k] and R[k][c]. */
    const size_t la = b.adj_x ? 1 : (size_t)K, lk = b.adj_x ? (size_t)A : 1;
    const size_t rk = b.adj_y ? 1 : (size_t)C, rc_ = b.adj_y ? (size_t)K : 1;
    size_t oi = 0;
    for (int32_t b0 = 0; b0 < bo[0]; b0++)
        for (int32_t b1 = 0; b1 < bo[1]; b1++)
            for (int32_t b2 = 0; b2 < bo[2]; b2++) {
                const size_t lo = (size_t)b0 * sl[0] + (size_t)b1 * sl[1] + (size_t)b2 * sl[2];
                const size_t ro = (size_t)b0 * sr[0] + (size_t)b1 * sr[1] + (size_t)b2 * sr[2];
                for (int32_t a = 0; a < A; a++)
                    for (int32_t c = 0; c < C; c++) {
                        const size_t l0 = lo + (size_t)a * la, r0 = ro + (size_t)c * rc_;
                        if (es == 4) {
                            const float *L = lp, *R = rp;
                            float t = 0.0f;
                            for (int32_t k = 0; k < K; k++) {
                                const float prod = R[r0 + (size_t)k * rk] * L[l0 + (size_t)k * lk];
                                t += prod;
                            }
                            ((float *)op)[oi++] = t;
                        } else if (es == 1) {
                            const int8_t *L = lp, *R = rp;
                            uint32_t t = 0;
                            for (int32_t k = 0; k < K; k++)
                                t += (uint32_t)(((int32_t)R[r0 + (size_t)k * rk] - b.rhs_zp) *
                                                ((int32_t)L[l0 + (size_t)k * lk] - b.lhs_zp));
                            ((int8_t *)op)[oi++] =
                                (int8_t)k_add_clamp_i32(k_mbqm((int32_t)t, b.mult, b.shift), b.out_zp, qmin, qmax);
                        } else {
                            const int16_t *L = lp, *R = rp;
                            int64_t t = 0;
                            for (int32_t k = 0; k < K; k++)
                                t = k_wrap_add64(t, (int64_t)R[r0 + (size_t)k * rk] * (int64_t)L[l0 + (size_t)k * lk]);
                            ((int16_t *)op)[oi++] =
                                (int16_t)k_add_clamp_i32(k_mbqm64(t, b.mult, b.shift), b.out_zp, qmin, qmax);
                        }
                    }
            }
    return K_OK;
}

/* ---- dispatch ---------------------------------------------------------------------------- */

int k_op_run_reduce(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    switch (kind) {
    case K_OP_ARG_MAX_F32: case K_OP_ARG_MAX_S8: case K_OP_ARG_MIN_F32: case K_OP_ARG_MIN_S8:
        return run_arg(kind, blob, size, io);
    case K_OP_REDUCE_MAX_F32: case K_OP_REDUCE_MAX_S8: case K_OP_REDUCE_MIN_F32: case K_OP_REDUCE_MIN_S8:
    case K_OP_SUM_F32: case K_OP_SUM_S8: case K_OP_SUM_S16:
        return run_reduce(kind, blob, size, io);
    case K_OP_CUMSUM_F32: case K_OP_CUMSUM_S8:
        return run_cumsum(kind, blob, size, io);
    case K_OP_L2_POOL_F32:
        return run_l2pool(blob, size, io);
    case K_OP_BATCH_MATMUL_F32: case K_OP_BATCH_MATMUL_S8: case K_OP_BATCH_MATMUL_S16:
        return run_bmm(kind, blob, size, io);
    default:
        return K_E_INVALID;
    }
}
