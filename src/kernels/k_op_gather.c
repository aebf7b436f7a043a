/* Prepared ops of the gather family (k_op_gather.h): SHAPE, FILL,
 * BROADCAST_TO, BROADCAST_ARGS, TILE, GATHER, GATHER_ND, EMBEDDING_LOOKUP,
 * REVERSE_V2, MIRROR_PAD, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND,
 * SPACE_TO_BATCH_ND.
 *
 * Every runner checks its blob completely (io == NULL: validation only),
 * then the byte sizes and alignment of the tensors it touches, then reads
 * the run-time integer operands (indices, axes, shapes, paddings) and checks
 * each value before using it: a bad value gives K_E_INVALID, never an access
 * outside a tensor. */
#include "k_op_internal.h"

_Static_assert(sizeof(k_op_shape_blob) == 4 * (1 + K_OP_GATHER_MAX_RANK), "k_op_shape_blob layout");
_Static_assert(sizeof(k_op_fill_blob) == 4 * (2 + K_OP_GATHER_MAX_RANK), "k_op_fill_blob layout");
_Static_assert(sizeof(k_op_bcast_to_blob) == 4 * (2 + 2 * K_MAX_DIMS), "k_op_bcast_to_blob layout");
_Static_assert(sizeof(k_op_bcast_args_blob) == 8, "k_op_bcast_args_blob layout");
_Static_assert(sizeof(k_op_gather_blob) == 20, "k_op_gather_blob layout");
_Static_assert(sizeof(k_op_gather_nd_blob) == 4 * (4 + 2 * K_OP_GATHER_ND_MAX), "k_op_gather_nd_blob layout");
_Static_assert(sizeof(k_op_embedding_blob) == 16, "k_op_embedding_blob layout");
_Static_assert(sizeof(k_op_reverse_blob) == 4 * (2 + K_MAX_DIMS), "k_op_reverse_blob layout");
_Static_assert(sizeof(k_op_mirror_pad_blob) == 4 * (3 + 2 * K_MAX_DIMS), "k_op_mirror_pad_blob layout");
_Static_assert(sizeof(k_op_d2s_blob) == 20, "k_op_d2s_blob layout");
_Static_assert(sizeof(k_op_s2b_blob) == 40, "k_op_s2b_blob layout");

/* ---- helpers ------------------------------------------------------------------------ */

static uint32_t width_of(uint32_t kind)
{
    switch (kind) {
    case K_OP_FILL_X8: case K_OP_BROADCAST_TO_X8: case K_OP_TILE_X8: case K_OP_GATHER_X8: case K_OP_GATHER_ND_X8:
    case K_OP_EMBEDDING_LOOKUP_X8: case K_OP_REVERSE_X8: case K_OP_MIRROR_PAD_X8: case K_OP_DEPTH_TO_SPACE_X8:
    case K_OP_SPACE_TO_DEPTH_X8: case K_OP_BATCH_TO_SPACE_X8: case K_OP_SPACE_TO_BATCH_X8:
        return 1;
    case K_OP_BROADCAST_TO_X16: case K_OP_TILE_X16: case K_OP_REVERSE_X16:
        return 2;
    case K_OP_BROADCAST_TO_X64: case K_OP_TILE_X64: case K_OP_REVERSE_X64: case K_OP_BROADCAST_ARGS_I64:
        return 8;
    default: return 4;
    }
}

static bool int_width_ok(int32_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* Element i of a signed integer tensor of w bytes per element. */
static int64_t ld_int(const void *p, uint32_t w, uint64_t i)
{
    const uint8_t *b = (const uint8_t *)p + i * w;
    switch (w) {
    case 1: { int8_t v; memcpy(&v, b, 1); return v; }
    case 2: { int16_t v; memcpy(&v, b, 2); return v; }
    case 4: { int32_t v; memcpy(&v, b, 4); return v; }
    default: { int64_t v; memcpy(&v, b, 8); return v; }
    }
}

/* Input / output i holding `bytes` (an empty one may be absent). */
static int in_t(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p)
{
    return bytes ? k_op_in(io, i, bytes, align, p) : k_op_in_opt(io, i, 0, align, p);
}

static int out_t(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p)
{
    if (bytes) return k_op_out(io, i, bytes, align, p);
    *p = NULL;
    return K_OK;
}

static void copy_elem(uint8_t *dst, const uint8_t *src, uint32_t es)
{
    switch (es) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* Element count of rank dims, each in [0, K_OP_MAX_DIM]; K_OP_SAT + 1 when
 * a dim is out of range or the walk too long (k_op_work_ok). */
static uint64_t dims_count(const int32_t *d, int32_t rank)
{
    uint64_t n = 1, ext = 1;
    for (int32_t i = 0; i < rank; i++) {
        if (!k_op_dim(d[i], 0)) return K_OP_SAT + 1;
        n = k_op_mul(n, (uint64_t)d[i]);
        ext = k_op_ext(ext, d[i]);
    }
    return (n <= INT32_MAX && k_op_work_ok(n, ext)) ? n : K_OP_SAT + 1;
}

/* Walks the count elements of an output of shape odims (rank <= K_MAX_DIMS)
 * in order; output element (o_0, .., o_r-1) takes input element
 * sum(m(o_d) * st[d]) with m(o) = o % mod[d] when mod[d] > 0, else o. The
 * caller has checked that every such offset lies inside the input. */
static void walk(int32_t rank, const int32_t *odims, const int32_t *mod, const int64_t *st, const uint8_t *in,
                 uint8_t *out, uint32_t es, uint64_t count)
{
    int32_t idx[K_MAX_DIMS] = {0};
    for (uint64_t n = 0; n < count; n++) {
        int64_t off = 0;
        for (int32_t d = 0; d < rank; d++) off += (int64_t)(mod[d] > 0 ? idx[d] % mod[d] : idx[d]) * st[d];
        copy_elem(out + n * es, in + (uint64_t)off * es, es);
        for (int32_t d = rank - 1; d >= 0; d--) {
            if (++idx[d] < odims[d]) break;
            idx[d] = 0;
        }
    }
}

/* Row-major strides of a shape, in elements. */
static void strides_of(const int32_t *dims, int32_t rank, int64_t *st)
{
    int64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= dims[d];
    }
}

/* ---- SHAPE -------------------------------------------------------------------------- */

static int run_shape(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_shape_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_in_range(b.n, 0, K_OP_GATHER_MAX_RANK)) return K_E_INVALID;
    if (!io) return K_OK;
    void *out;
    int rc = out_t(io, 0, (uint64_t)b.n * 4u, 4, &out);
    if (rc) return rc;
    if (b.n) memcpy(out, b.v, (size_t)b.n * 4u);
    return K_OK;
}

/* ---- FILL ------------------------------------------------------------------------------ */

static int run_fill(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_fill_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    if (!k_op_in_range(b.rank, 0, K_OP_GATHER_MAX_RANK) || !int_width_ok(b.dims_width)) return K_E_INVALID;
    const uint64_t n = dims_count(b.dims, b.rank);
    if (n > INT32_MAX) return K_E_INVALID;
    if (!io) return K_OK;
    void *dims, *val, *out;
    int rc;
    if ((rc = in_t(io, 0, (uint64_t)b.rank * (uint32_t)b.dims_width, (uint32_t)b.dims_width, &dims)) ||
        (rc = k_op_in(io, 1, es, es, &val)) || (rc = out_t(io, 0, n * es, es, &out)))
        return rc;
    /* the dims input may be computed: it must give the static shape */
    for (int32_t i = 0; i < b.rank; i++)
        if (ld_int(dims, (uint32_t)b.dims_width, (uint64_t)i) != b.dims[i]) return K_E_INVALID;
    for (uint64_t i = 0; i < n; i++) copy_elem((uint8_t *)out + i * es, val, es);
    return K_OK;
}

/* ---- BROADCAST_TO / TILE ----------------------------------------------------------------- */

static int run_bcast_tile(uint32_t kind, bool tile, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_bcast_to_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    if (!k_op_in_range(b.rank, 0, K_MAX_DIMS) || !int_width_ok(b.shape_width)) return K_E_INVALID;
    const uint64_t n_in = dims_count(b.in_dims, b.rank), n_out = dims_count(b.out_dims, b.rank);
    if (n_in > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    for (int32_t d = 0; d < b.rank; d++) {
        if (tile) {
            /* out = in * multiple: an empty input gives an empty output */
            if (b.in_dims[d] == 0 ? b.out_dims[d] != 0 : b.out_dims[d] % b.in_dims[d] != 0) return K_E_INVALID;
        } else if (b.in_dims[d] != 1 && b.in_dims[d] != b.out_dims[d]) {
            return K_E_INVALID;
        }
    }
    if (!io) return K_OK;
    void *in, *shp, *out;
    int rc;
    if ((rc = in_t(io, 0, n_out ? n_in * es : 0, es, &in)) ||
        (rc = in_t(io, 1, (uint64_t)b.rank * (uint32_t)b.shape_width, (uint32_t)b.shape_width, &shp)) ||
        (rc = out_t(io, 0, n_out * es, es, &out)))
        return rc;
    for (int32_t d = 0; d < b.rank; d++) {
        const int64_t v = ld_int(shp, (uint32_t)b.shape_width, (uint64_t)d);
        if (tile) {
            if (v < 0 || (int64_t)b.in_dims[d] * v != b.out_dims[d]) return K_E_INVALID;
        } else if (v != b.out_dims[d]) {
            return K_E_INVALID;
        }
    }
    if (!n_out) return K_OK;
    int64_t st[K_MAX_DIMS];
    int32_t mod[K_MAX_DIMS];
    strides_of(b.in_dims, b.rank, st);
    for (int32_t d = 0; d < b.rank; d++) {
        mod[d] = tile ? b.in_dims[d] : 0;
        if (!tile && b.in_dims[d] == 1) st[d] = 0;
    }
    walk(b.rank, b.out_dims, mod, st, in, out, es, n_out);
    return K_OK;
}

/* ---- BROADCAST_ARGS ------------------------------------------------------------------------ */

static int run_bcast_args(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_bcast_args_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    if (!k_op_dim(b.n1, 0) || !k_op_dim(b.n2, 0)) return K_E_INVALID;
    if (!io) return K_OK;
    const int32_t n = b.n1 > b.n2 ? b.n1 : b.n2;
    void *s1, *s2, *out;
    int rc;
    if ((rc = in_t(io, 0, (uint64_t)b.n1 * es, es, &s1)) || (rc = in_t(io, 1, (uint64_t)b.n2 * es, es, &s2)) ||
        (rc = out_t(io, 0, (uint64_t)n * es, es, &out)))
        return rc;
    for (int32_t i = 0; i < n; i++) {
        /* right-aligned; missing dims are 1. TFLite Micro compares and
         * stores the dims as int (32 bits), also for int64 shapes. */
        const int32_t k1 = b.n1 - 1 - i, k2 = b.n2 - 1 - i;
        const int32_t a = k1 >= 0 ? (int32_t)(uint32_t)(uint64_t)ld_int(s1, es, (uint64_t)k1) : 1;
        const int32_t c = k2 >= 0 ? (int32_t)(uint32_t)(uint64_t)ld_int(s2, es, (uint64_t)k2) : 1;
        int32_t r;
        if (a == 1) r = c;
        else if (c == 1 || a == c) r = a;
        else return K_E_INVALID;
        uint8_t *dst = (uint8_t *)out + (uint64_t)(n - 1 - i) * es;
        if (es == 4) memcpy(dst, &r, 4);
        else {
            const int64_t r64 = r;
            memcpy(dst, &r64, 8);
        }
    }
    return K_OK;
}

/* ---- GATHER ---------------------------------------------------------------------------------- */

static int run_gather(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_gather_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    const int32_t pd[4] = {b.batch, b.outer, b.axis_size, b.inner};
    const int32_t od[4] = {b.batch, b.outer, b.coord, b.inner};
    const int32_t id[2] = {b.batch, b.coord};
    const uint64_t n_par = dims_count(pd, 4), n_out = dims_count(od, 4), n_idx = dims_count(id, 2);
    if (n_par > INT32_MAX || n_out > INT32_MAX || n_idx > INT32_MAX) return K_E_INVALID;
    if (!io) return K_OK;
    void *par, *idx, *out;
    int rc;
    if ((rc = in_t(io, 0, n_out ? n_par * es : 0, es, &par)) || (rc = in_t(io, 1, n_idx * 4u, 4, &idx)) ||
        (rc = out_t(io, 0, n_out * es, es, &out)))
        return rc;
    if (!n_out) return K_OK;
    const int32_t *ix = idx;
    for (uint64_t i = 0; i < n_idx; i++)
        if (ix[i] < 0 || ix[i] >= b.axis_size) return K_E_INVALID;
    const size_t row = (size_t)b.inner * es;
    uint8_t *o = out;
    for (int32_t bt = 0; bt < b.batch; bt++)
        for (int32_t ou = 0; ou < b.outer; ou++) {
            const uint8_t *src = (const uint8_t *)par + ((uint64_t)bt * (uint32_t)b.outer + (uint32_t)ou) *
                                                            (uint32_t)b.axis_size * row;
            for (int32_t c = 0; c < b.coord; c++) {
                memcpy(o, src + (size_t)ix[(uint64_t)bt * (uint32_t)b.coord + (uint32_t)c] * row, row);
                o += row;
            }
        }
    return K_OK;
}

/* ---- GATHER_ND -------------------------------------------------------------------------------- */

static int run_gather_nd(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_gather_nd_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    if (!k_op_in_range(b.nd, 0, K_OP_GATHER_ND_MAX) || !k_op_dim(b.n_slices, 0) || !k_op_dim(b.slice_size, 0) ||
        !k_op_dim(b.params_count, 0))
        return K_E_INVALID;
    /* the farthest element any in-range index reaches lies inside params */
    int64_t last = b.slice_size;
    bool empty = false;
    for (int32_t j = 0; j < b.nd; j++) {
        if (!k_op_dim(b.dims[j], 0) || !k_op_dim(b.stride[j], 0)) return K_E_INVALID;
        if (b.dims[j] == 0) empty = true;
        else last += (int64_t)(b.dims[j] - 1) * b.stride[j];
    }
    if (!empty && b.slice_size > 0 && last > b.params_count) return K_E_INVALID;
    const int32_t od[2] = {b.n_slices, b.slice_size};
    const int32_t id[2] = {b.n_slices, b.nd};
    const uint64_t n_out = dims_count(od, 2), n_idx = dims_count(id, 2);
    if (n_out > INT32_MAX || n_idx > INT32_MAX) return K_E_INVALID;
    if (!io) return K_OK;
    void *par, *idx, *out;
    int rc;
    if ((rc = in_t(io, 0, n_out ? (uint64_t)b.params_count * es : 0, es, &par)) ||
        (rc = in_t(io, 1, n_idx * 4u, 4, &idx)) || (rc = out_t(io, 0, n_out * es, es, &out)))
        return rc;
    if (!n_out) return K_OK;
    const int32_t *ix = idx;
    for (uint64_t i = 0; i < n_idx; i++)
        if (ix[i] < 0 || ix[i] >= b.dims[i % (uint32_t)b.nd]) return K_E_INVALID;
    const size_t row = (size_t)b.slice_size * es;
    for (int32_t s = 0; s < b.n_slices; s++) {
        int64_t from = 0;
        for (int32_t j = 0; j < b.nd; j++) from += (int64_t)ix[(int64_t)s * b.nd + j] * b.stride[j];
        memcpy((uint8_t *)out + (size_t)s * row, (const uint8_t *)par + (size_t)from * es, row);
    }
    return K_OK;
}

/* ---- EMBEDDING_LOOKUP ------------------------------------------------------------------------- */

static int run_embedding(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_embedding_blob b;
    K_OP_LOAD(b, blob, size);
    const bool hybrid = kind == K_OP_EMBEDDING_LOOKUP_S8_F32;
    const uint32_t es_in = hybrid ? 1 : width_of(kind), es_out = hybrid ? 4 : es_in;
    const int32_t td[2] = {b.rows, b.cols}, od[2] = {b.n_ids, b.cols};
    const uint64_t n_tab = dims_count(td, 2), n_out = dims_count(od, 2);
    if (!k_op_dim(b.n_ids, 0) || n_tab > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    if (!io) return K_OK;
    void *ids, *tab, *out;
    int rc;
    if ((rc = in_t(io, 0, (uint64_t)b.n_ids * 4u, 4, &ids)) || (rc = in_t(io, 1, n_tab * es_in, es_in, &tab)) ||
        (rc = out_t(io, 0, n_out * es_out, es_out, &out)))
        return rc;
    const int32_t *id = ids;
    for (int32_t i = 0; i < b.n_ids; i++)
        if (id[i] < 0 || id[i] >= b.rows) return K_E_INVALID;
    if (!n_out) return K_OK;
    for (int32_t i = 0; i < b.n_ids; i++) {
        if (hybrid) {
            const int8_t *src = (const int8_t *)tab + (size_t)id[i] * (uint32_t)b.cols;
            float *dst = (float *)out + (size_t)i * (uint32_t)b.cols;
            for (int32_t c = 0; c < b.cols; c++) dst[c] = (float)src[c] * b.scale;
        } else {
            const size_t row = (size_t)b.cols * es_in;
            memcpy((uint8_t *)out + (size_t)i * row, (const uint8_t *)tab + (size_t)id[i] * row, row);
        }
    }
    return K_OK;
}

/* ---- REVERSE_V2 --------------------------------------------------------------------------------- */

static int run_reverse(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_reverse_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    if (!k_op_in_range(b.rank, 0, K_MAX_DIMS) || !k_op_in_range(b.n_axes, 0, b.rank)) return K_E_INVALID;
    const uint64_t n = dims_count(b.dims, b.rank);
    if (n > INT32_MAX) return K_E_INVALID;
    if (!io) return K_OK;
    void *in, *ax, *out;
    int rc;
    if ((rc = in_t(io, 0, n * es, es, &in)) || (rc = in_t(io, 1, (uint64_t)b.n_axes * 4u, 4, &ax)) ||
        (rc = out_t(io, 0, n * es, es, &out)))
        return rc;
    int32_t a[K_MAX_DIMS];
    for (int32_t i = 0; i < b.n_axes; i++) {
        int32_t v = ((const int32_t *)ax)[i];
        if (v < 0) v += b.rank;
        if (v < 0 || v >= b.rank) return K_E_INVALID;
        int32_t k = i;
        for (; k > 0 && a[k - 1] > v; k--) a[k] = a[k - 1];
        a[k] = v;
    }
    /* TFLite Micro reverses contiguous axes only (a repeated axis is not
     * contiguous either) */
    for (int32_t i = 1; i < b.n_axes; i++)
        if (a[i] != a[i - 1] + 1) return K_E_INVALID;
    if (!n) return K_OK;
    if (b.n_axes == 0) {
        memmove(out, in, (size_t)(n * es));
        return K_OK;
    }
    uint64_t outer = 1, mid = 1, inner = 1;
    for (int32_t d = 0; d < b.rank; d++) {
        if (d < a[0]) outer *= (uint32_t)b.dims[d];
        else if (d <= a[b.n_axes - 1]) mid *= (uint32_t)b.dims[d];
        else inner *= (uint32_t)b.dims[d];
    }
    const size_t row = (size_t)(inner * es);
    for (uint64_t o = 0; o < outer; o++)
        for (uint64_t m = 0; m < mid; m++)
            memcpy((uint8_t *)out + (size_t)((o * mid + m) * row),
                   (const uint8_t *)in + (size_t)((o * mid + (mid - 1 - m)) * row), row);
    return K_OK;
}

/* ---- MIRROR_PAD ---------------------------------------------------------------------------------- */

int64_t k_mirror_index(int64_t p, int64_t before, int64_t n, int64_t offset)
{
    int64_t r;
    if (p < before) {
        const int64_t orig = before + offset - 1;
        const int64_t lim = orig - offset;
        r = orig - (p < lim ? p : lim);
    } else {
        p -= before;
        if (p >= n) {
            p -= n;
            const int64_t orig = n - (1 + offset);
            r = orig - (p < orig ? p : orig);
        } else {
            r = p;
        }
    }
    return (r >= 0 && r < n) ? r : -1;
}

static int run_mirror_pad(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_mirror_pad_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    if (!k_op_in_range(b.rank, 0, K_MAX_DIMS) || !k_op_in_range(b.offset, 0, 1) ||
        (b.pad_width != 4 && b.pad_width != 8))
        return K_E_INVALID;
    const uint64_t n_in = dims_count(b.in_dims, b.rank), n_out = dims_count(b.out_dims, b.rank);
    if (n_in > INT32_MAX || n_out > INT32_MAX) return K_E_INVALID;
    if (!io) return K_OK;
    void *in, *pads, *out;
    int rc;
    if ((rc = in_t(io, 0, n_out ? n_in * es : 0, es, &in)) ||
        (rc = in_t(io, 1, (uint64_t)b.rank * 2u * (uint32_t)b.pad_width, (uint32_t)b.pad_width, &pads)) ||
        (rc = out_t(io, 0, n_out * es, es, &out)))
        return rc;
    int64_t before[K_MAX_DIMS];
    for (int32_t d = 0; d < b.rank; d++) {
        const int64_t lo = ld_int(pads, (uint32_t)b.pad_width, 2u * (uint32_t)d);
        const int64_t hi = ld_int(pads, (uint32_t)b.pad_width, 2u * (uint32_t)d + 1u);
        if (lo < 0 || hi < 0 || lo > K_OP_MAX_DIM || hi > K_OP_MAX_DIM || b.in_dims[d] + lo + hi != b.out_dims[d])
            return K_E_INVALID;
        before[d] = lo;
        /* the first and last output positions are the extremes of the map */
        if (b.out_dims[d] > 0 && (k_mirror_index(0, lo, b.in_dims[d], b.offset) < 0 ||
                                  k_mirror_index(b.out_dims[d] - 1, lo, b.in_dims[d], b.offset) < 0))
            return K_E_INVALID;
    }
    if (!n_out) return K_OK;
    int64_t st[K_MAX_DIMS];
    strides_of(b.in_dims, b.rank, st);
    int32_t idx[K_MAX_DIMS] = {0};
    for (uint64_t i = 0; i < n_out; i++) {
        int64_t off = 0;
        for (int32_t d = 0; d < b.rank; d++) {
            const int64_t r = k_mirror_index(idx[d], before[d], b.in_dims[d], b.offset);
            if (r < 0) return K_E_INVALID;
            off += r * st[d];
        }
        copy_elem((uint8_t *)out + i * es, (const uint8_t *)in + (uint64_t)off * es, es);
        for (int32_t d = b.rank - 1; d >= 0; d--) {
            if (++idx[d] < b.out_dims[d]) break;
            idx[d] = 0;
        }
    }
    return K_OK;
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ------------------------------------------------------------- */

static int run_d2s(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_d2s_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    const bool d2s = kind == K_OP_DEPTH_TO_SPACE_X8 || kind == K_OP_DEPTH_TO_SPACE_X32;
    const int32_t id[4] = {b.batch, b.height, b.width, b.depth};
    const uint64_t n = dims_count(id, 4);
    if (n > INT32_MAX || !k_op_dim(b.block, 1)) return K_E_INVALID;
    const int64_t bs = b.block;
    if (d2s ? b.depth % (bs * bs) != 0 : (b.height % bs != 0 || b.width % bs != 0)) return K_E_INVALID;
    if (!io) return K_OK;
    void *in, *out;
    int rc;
    if ((rc = in_t(io, 0, n * es, es, &in)) || (rc = out_t(io, 0, n * es, es, &out))) return rc;
    if (!n) return K_OK;
    /* the output viewed as 6 dims, each with its input stride */
    const int64_t W = b.width, C = b.depth, H = b.height;
    int32_t od[6];
    int64_t st[6];
    if (d2s) {
        const int64_t co = C / (bs * bs);
        /* [B, H, bs_h, W, bs_w, C/bs^2] */
        const int32_t v[6] = {b.batch, b.height, b.block, b.width, b.block, (int32_t)co};
        const int64_t s[6] = {H * W * C, W * C, bs * co, C, co, 1};
        memcpy(od, v, sizeof od);
        memcpy(st, s, sizeof st);
    } else {
        /* [B, H/bs, W/bs, bs_h, bs_w, C] */
        const int32_t v[6] = {b.batch, (int32_t)(H / bs), (int32_t)(W / bs), b.block, b.block, b.depth};
        const int64_t s[6] = {H * W * C, bs * W * C, bs * C, W * C, C, 1};
        memcpy(od, v, sizeof od);
        memcpy(st, s, sizeof st);
    }
    const int32_t mod[6] = {0};
    walk(6, od, mod, st, in, out, es, n);
    return K_OK;
}

/* ---- BATCH_TO_SPACE_ND / SPACE_TO_BATCH_ND ------------------------------------------------------- */

static int run_s2b(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_s2b_blob b;
    K_OP_LOAD(b, blob, size);
    const uint32_t es = width_of(kind);
    const bool b2s = kind == K_OP_BATCH_TO_SPACE_X8 || kind == K_OP_BATCH_TO_SPACE_X32;
    if (!k_op_in_range(b.rank, 3, 4) || !k_op_in_range(b.pad_value, -128, 255)) return K_E_INVALID;
    if (b.rank == 3 && (b.in_dims[2] != 1 || b.out_dims[2] != 1)) return K_E_INVALID;
    const uint64_t n_in = dims_count(b.in_dims, 4), n_out = dims_count(b.out_dims, 4);
    if (n_in > INT32_MAX || n_out > INT32_MAX || b.in_dims[3] != b.out_dims[3]) return K_E_INVALID;
    if (!io) return K_OK;
    const int32_t ns = b.rank - 2;
    void *in, *blk, *crp, *out;
    int rc;
    if ((rc = in_t(io, 0, n_in * es, es, &in)) || (rc = k_op_in(io, 1, (uint64_t)ns * 4u, 4, &blk)) ||
        (rc = k_op_in(io, 2, (uint64_t)ns * 8u, 4, &crp)) || (rc = out_t(io, 0, n_out * es, es, &out)))
        return rc;
    const int32_t *bk = blk, *cr = crp;
    int64_t bh = bk[0], bw = ns == 2 ? bk[1] : 1;
    int64_t top = cr[0], bottom = cr[1], left = ns == 2 ? cr[2] : 0, right = ns == 2 ? cr[3] : 0;
    if (bh < 1 || bw < 1 || bh > K_OP_MAX_DIM || bw > K_OP_MAX_DIM || top < 0 || bottom < 0 || left < 0 ||
        right < 0)
        return K_E_INVALID;
    const int32_t *I = b.in_dims, *O = b.out_dims;
    const int64_t depth = I[3];
    if (b2s) {
        if ((int64_t)O[0] * bh * bw != I[0] || (int64_t)I[1] * bh - top - bottom != O[1] ||
            (int64_t)I[2] * bw - left - right != O[2])
            return K_E_INVALID;
        if (!n_out) return K_OK;
        for (int64_t ib0 = 0; ib0 < I[0]; ib0++) {
            const int64_t ob = ib0 % O[0], so = ib0 / O[0];
            for (int64_t ih = 0; ih < I[1]; ih++) {
                const int64_t oh = ih * bh + so / bw - top;
                if (oh < 0 || oh >= O[1]) continue;
                for (int64_t iw = 0; iw < I[2]; iw++) {
                    const int64_t ow = iw * bw + so % bw - left;
                    if (ow < 0 || ow >= O[2]) continue;
                    memcpy((uint8_t *)out + (size_t)(((ob * O[1] + oh) * O[2] + ow) * depth * es),
                           (const uint8_t *)in + (size_t)(((ib0 * I[1] + ih) * I[2] + iw) * depth * es),
                           (size_t)(depth * es));
                }
            }
        }
    } else {
        if ((int64_t)I[0] * bh * bw != O[0] || (int64_t)O[1] * bh != I[1] + top + bottom ||
            (int64_t)O[2] * bw != I[2] + left + right)
            return K_E_INVALID;
        if (!n_out) return K_OK;
        for (int64_t ob = 0; ob < O[0]; ob++) {
            const int64_t ib0 = ob % I[0], sw = (ob / I[0]) % bw, sh = (ob / I[0]) / bw;
            for (int64_t oh = 0; oh < O[1]; oh++)
                for (int64_t ow = 0; ow < O[2]; ow++) {
                    uint8_t *dst = (uint8_t *)out + (size_t)(((ob * O[1] + oh) * O[2] + ow) * depth * es);
                    const int64_t h = oh * bh + sh - top, w = ow * bw + sw - left;
                    if (h < 0 || h >= I[1] || w < 0 || w >= I[2])
                        memset(dst, b.pad_value & 0xff, (size_t)(depth * es));
                    else
                        memcpy(dst, (const uint8_t *)in + (size_t)(((ib0 * I[1] + h) * I[2] + w) * depth * es),
                               (size_t)(depth * es));
                }
        }
    }
    return K_OK;
}

/* ---- dispatch -------------------------------------------------------------------------------------- */

int k_op_run_gather(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    switch (kind) {
    case K_OP_SHAPE_I32: return run_shape(blob, size, io);
    case K_OP_FILL_X8: case K_OP_FILL_X32: return run_fill(kind, blob, size, io);
    case K_OP_BROADCAST_TO_X8: case K_OP_BROADCAST_TO_X16: case K_OP_BROADCAST_TO_X32: case K_OP_BROADCAST_TO_X64:
        return run_bcast_tile(kind, false, blob, size, io);
    case K_OP_TILE_X8: case K_OP_TILE_X16: case K_OP_TILE_X32: case K_OP_TILE_X64:
        return run_bcast_tile(kind, true, blob, size, io);
    case K_OP_BROADCAST_ARGS_I32: case K_OP_BROADCAST_ARGS_I64: return run_bcast_args(kind, blob, size, io);
    case K_OP_GATHER_X8: case K_OP_GATHER_X32: return run_gather(kind, blob, size, io);
    case K_OP_GATHER_ND_X8: case K_OP_GATHER_ND_X32: return run_gather_nd(kind, blob, size, io);
    case K_OP_EMBEDDING_LOOKUP_X8: case K_OP_EMBEDDING_LOOKUP_X32: case K_OP_EMBEDDING_LOOKUP_S8_F32:
        return run_embedding(kind, blob, size, io);
    case K_OP_REVERSE_X8: case K_OP_REVERSE_X16: case K_OP_REVERSE_X32: case K_OP_REVERSE_X64:
        return run_reverse(kind, blob, size, io);
    case K_OP_MIRROR_PAD_X8: case K_OP_MIRROR_PAD_X32: return run_mirror_pad(kind, blob, size, io);
    case K_OP_DEPTH_TO_SPACE_X8: case K_OP_DEPTH_TO_SPACE_X32: case K_OP_SPACE_TO_DEPTH_X8:
    case K_OP_SPACE_TO_DEPTH_X32:
        return run_d2s(kind, blob, size, io);
    case K_OP_BATCH_TO_SPACE_X8: case K_OP_BATCH_TO_SPACE_X32: case K_OP_SPACE_TO_BATCH_X8:
    case K_OP_SPACE_TO_BATCH_X32:
        return run_s2b(kind, blob, size, io);
    default: return K_E_INVALID;
    }
}
