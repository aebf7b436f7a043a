/* Interpreter bindings of the gather family: shape and gathering data movement: SHAPE, FILL, BROADCAST_TO, BROADCAST_ARGS, TILE, GATHER, GATHER_ND, EMBEDDING_LOOKUP, REVERSE_V2, MIRROR_PAD, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND.
 *
 * Types are TFLite Micro's (docs/kernels-gather.md lists them); the types
 * it rejects are rejected here with a message that says so. Shapes are
 * static: index, axis, shape, multiples, padding and crop tensors may be
 * computed at run time, so the kernels read them at run time and check
 * every value (k_op_gather.h); when they are constant, prepare checks them
 * too, for a clear message. Differences from TFLite Micro (see the doc):
 * - FILL dims and BROADCAST_TO shape may be non-constant (TFLite Micro
 *   requires constants): the kernel checks at run time that they give the
 *   static output shape. Real models need this (SHAPE -> ... -> FILL).
 * - GATHER_ND and MIRROR_PAD check their indices / paddings (TFLite Micro
 *   reads out of bounds for bad ones).
 * - SPACE_TO_BATCH_ND int8 pads with the output zero point (TFLite; TFLite
 *   Micro pads with an uninitialised value, 0 in practice: the same for the
 *   usual zero point 0). */
#include "interp_ops.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------------- */

/* The op accepts `t` only in the listed types (TFLite Micro's). */
static int check_dtype_in(const graph_tensor *t, const char *what, const graph_dtype *ok, int32_t n_ok,
                          const char *tflm_types, npuc_err *err)
{
    for (int32_t i = 0; i < n_ok; i++)
        if (t->dtype == ok[i]) return NPUC_OK;
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' of type %s is not supported (TFLite Micro supports %s)", what,
                     interp_tname(t), graph_dtype_name(t->dtype), tflm_types);
}

static int check_rank(const graph_tensor *t, const char *what, int32_t lo, int32_t hi, npuc_err *err)
{
    if (t->rank >= lo && t->rank <= hi) return NPUC_OK;
    if (lo == hi) return npuc_errf(err, NPUC_E_INVALID, "%s '%s' must have rank %d, not %d", what, interp_tname(t), lo, t->rank);
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' has rank %d; supported: %d to %d", what, interp_tname(t), t->rank, lo,
                     hi);
}

static int too_large(const graph_tensor *t, npuc_err *err)
{
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor '%s' is too large", interp_tname(t));
}

#define BLOB(type, kind)                                                         \
    type *b = interp_node_blob(n, (kind), sizeof(type));                         \
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory")

static const graph_dtype any_dtypes[] = {GRAPH_F32, GRAPH_I32, GRAPH_U8,  GRAPH_I64, GRAPH_BOOL,
                                         GRAPH_I16, GRAPH_I8,  GRAPH_U32, GRAPH_U16};
static const graph_dtype f32_i8[] = {GRAPH_F32, GRAPH_I8};

static uint32_t kind_by_width(size_t w, uint32_t k8, uint32_t k16, uint32_t k32, uint32_t k64)
{
    return w == 1 ? k8 : w == 2 ? k16 : w == 4 ? k32 : k64;
}

/* ---- SHAPE ------------------------------------------------------------------------ */

static int shape_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if (out->dtype != GRAPH_I32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "output '%s' of type %s is not supported (TFLite Micro's SHAPE writes int32 only)",
                         interp_tname(out), graph_dtype_name(out->dtype));
    if (in->rank > K_OP_GATHER_MAX_RANK) return check_rank(in, "input", 0, K_OP_GATHER_MAX_RANK, err);
    const int32_t want[1] = {in->rank};
    if ((rc = interp_check_out_shape(out, want, 1, err))) return rc;
    BLOB(k_op_shape_blob, K_OP_SHAPE_I32);
    b->n = in->rank;
    for (int32_t i = 0; i < in->rank; i++) b->v[i] = in->shape[i];
    return NPUC_OK;
}

/* ---- FILL ---------------------------------------------------------------------------- */

static int fill_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *dims = interp_node_in_t(n, 0), *val = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    static const graph_dtype vt[] = {GRAPH_F32, GRAPH_I32, GRAPH_I8};
    static const graph_dtype dt[] = {GRAPH_I8, GRAPH_I16, GRAPH_I32, GRAPH_I64};
    if ((rc = check_dtype_in(val, "value", vt, 3, "float32, int32, int8", err)) ||
        (rc = interp_check_same_dtype(val, "value", out, "output", err)) ||
        (rc = check_dtype_in(dims, "dims", dt, 4, "int8, int16, int32, int64 dims", err)) ||
        (rc = check_rank(val, "value", 0, 0, err)) || (rc = check_rank(dims, "dims", 1, 1, err)) ||
        (rc = check_rank(out, "output", 0, K_OP_GATHER_MAX_RANK, err)))
        return rc;
    if (dims->shape[0] != out->rank)
        return npuc_errf(err, NPUC_E_INVALID, "dims '%s' has %d values but output '%s' has rank %d", interp_tname(dims),
                         dims->shape[0], interp_tname(out), out->rank);
    if (dims->data)
        for (int32_t i = 0; i < out->rank; i++)
            if (interp_const_int(dims, (size_t)i) != out->shape[i]) {
                char a[128];
                return npuc_errf(err, NPUC_E_INVALID, "dims '%s' value %lld at %d does not match output '%s' %s",
                                 interp_tname(dims), (long long)interp_const_int(dims, (size_t)i), i, interp_tname(out),
                                 interp_shape_str(out->shape, out->rank, a, sizeof a));
            }
    const size_t w = graph_dtype_size(out->dtype);
    BLOB(k_op_fill_blob, w == 1 ? K_OP_FILL_X8 : K_OP_FILL_X32);
    b->rank = out->rank;
    for (int32_t i = 0; i < out->rank; i++) b->dims[i] = out->shape[i];
    b->dims_width = (int32_t)graph_dtype_size(dims->dtype);
    return NPUC_OK;
}

/* ---- BROADCAST_TO and TILE ------------------------------------------------------------- */

static int bcast_tile_prepare(interp_node *n, bool tile, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *shp = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    const char *what = tile ? "multiples" : "shape";
    static const graph_dtype st[] = {GRAPH_I32, GRAPH_I64};
    /* BROADCAST_TO: TFLite Micro supports up to 5 dims */
    const int32_t max_rank = tile ? K_MAX_DIMS : 5;
    if ((rc = check_dtype_in(in, "input", any_dtypes, 9, "any fixed-size type", err)) ||
        (rc = interp_check_same_dtype(in, "input", out, "output", err)) ||
        (rc = check_dtype_in(shp, what, st, 2, "int32, int64", err)) || (rc = check_rank(shp, what, 1, 1, err)) ||
        (rc = check_rank(out, "output", tile ? 0 : 1, max_rank, err)))
        return rc;
    if (shp->shape[0] != out->rank)
        return npuc_errf(err, NPUC_E_INVALID, "%s '%s' has %d values but output '%s' has rank %d", what, interp_tname(shp),
                         shp->shape[0], interp_tname(out), out->rank);
    if (tile ? in->rank != out->rank : in->rank > out->rank)
        return npuc_errf(err, NPUC_E_INVALID, "input '%s' of rank %d cannot give output '%s' of rank %d", interp_tname(in),
                         in->rank, interp_tname(out), out->rank);
    const int32_t r = out->rank, ext = r - in->rank;
    int32_t id[K_MAX_DIMS];
    char a[128], c[128];
    for (int32_t i = 0; i < r; i++) {
        id[i] = i < ext ? 1 : in->shape[i - ext];
        const bool ok = tile ? (id[i] == 0 ? out->shape[i] == 0 : out->shape[i] % id[i] == 0)
                             : (id[i] == 1 || id[i] == out->shape[i]);
        if (!ok)
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' %s cannot be %s from input '%s' %s", interp_tname(out),
                             interp_shape_str(out->shape, r, a, sizeof a), tile ? "tiled" : "broadcast", interp_tname(in),
                             interp_shape_str(in->shape, in->rank, c, sizeof c));
        if (shp->data) {
            const int64_t v = interp_const_int(shp, (size_t)i);
            if (tile ? (int64_t)id[i] * v != out->shape[i] || v < 0 : v != out->shape[i])
                return npuc_errf(err, NPUC_E_INVALID, "%s '%s' value %lld at %d does not give output '%s' %s", what,
                                 interp_tname(shp), (long long)v, i, interp_tname(out), interp_shape_str(out->shape, r, a, sizeof a));
        }
    }
    if (graph_tensor_elems(out) > INT32_MAX) return too_large(out, err);
    const size_t w = graph_dtype_size(in->dtype);
    const uint32_t kind = tile ? kind_by_width(w, K_OP_TILE_X8, K_OP_TILE_X16, K_OP_TILE_X32, K_OP_TILE_X64)
                               : kind_by_width(w, K_OP_BROADCAST_TO_X8, K_OP_BROADCAST_TO_X16,
                                               K_OP_BROADCAST_TO_X32, K_OP_BROADCAST_TO_X64);
    BLOB(k_op_bcast_to_blob, kind);
    b->rank = r;
    for (int32_t i = 0; i < r; i++) {
        b->in_dims[i] = id[i];
        b->out_dims[i] = out->shape[i];
    }
    b->shape_width = (int32_t)graph_dtype_size(shp->dtype);
    return NPUC_OK;
}

static int broadcast_to_prepare(interp_node *n, npuc_err *err) { return bcast_tile_prepare(n, false, err); }
static int tile_prepare(interp_node *n, npuc_err *err) { return bcast_tile_prepare(n, true, err); }

/* ---- BROADCAST_ARGS ---------------------------------------------------------------------- */

static int broadcast_args_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *s1 = interp_node_in_t(n, 0), *s2 = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    static const graph_dtype st[] = {GRAPH_I32, GRAPH_I64};
    if ((rc = check_dtype_in(s1, "shape1", st, 2, "int32, int64", err)) ||
        (rc = interp_check_same_dtype(s1, "shape1", s2, "shape2", err)) ||
        (rc = interp_check_same_dtype(s1, "shape1", out, "output", err)) || (rc = check_rank(s1, "shape1", 1, 1, err)) ||
        (rc = check_rank(s2, "shape2", 1, 1, err)))
        return rc;
    const int32_t want[1] = {s1->shape[0] > s2->shape[0] ? s1->shape[0] : s2->shape[0]};
    if ((rc = interp_check_out_shape(out, want, 1, err))) return rc;
    BLOB(k_op_bcast_args_blob, s1->dtype == GRAPH_I32 ? K_OP_BROADCAST_ARGS_I32 : K_OP_BROADCAST_ARGS_I64);
    b->n1 = s1->shape[0];
    b->n2 = s2->shape[0];
    return NPUC_OK;
}

/* ---- GATHER --------------------------------------------------------------------------------- */

/* GATHER and GATHER_ND: params (float32 or int8), int32 indices, and an
 * output of the params' type. */
static int gather_io(interp_node *n, const graph_tensor **par, const graph_tensor **idx, const graph_tensor **out,
                     npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    *par = interp_node_in_t(n, 0);
    *idx = interp_node_in_t(n, 1);
    *out = interp_node_out_t(n, 0);
    static const graph_dtype it[] = {GRAPH_I32};
    if ((rc = check_dtype_in(*par, "params", f32_i8, 2, "float32, int8", err)) ||
        (rc = interp_check_same_dtype(*par, "params", *out, "output", err)) ||
        (rc = check_dtype_in(*idx, "indices", it, 1, "int32 indices", err)))
        return rc;
    return NPUC_OK;
}

static int gather_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *par, *idx, *out;
    int rc = gather_io(n, &par, &idx, &out, err);
    if (rc) return rc;
    const int32_t pr = par->rank, ir = idx->rank;
    int32_t axis = n->op->opt.axis, bd = n->op->opt.batch_dims;
    if (axis < 0) axis += pr;
    if (axis < 0 || axis >= pr)
        return npuc_errf(err, NPUC_E_INVALID, "axis %d is out of range for params '%s' of rank %d", n->op->opt.axis,
                         interp_tname(par), pr);
    if (bd < 0) bd += ir;
    if (bd < 0 || bd >= pr || bd > ir || bd > axis)
        return npuc_errf(err, NPUC_E_INVALID,
                         "batch_dims %d is invalid for params '%s' of rank %d, indices of rank %d and axis %d",
                         n->op->opt.batch_dims, interp_tname(par), pr, ir, axis);
    for (int32_t i = 0; i < bd; i++)
        if (par->shape[i] != idx->shape[i])
            return npuc_errf(err, NPUC_E_INVALID, "batch dim %d: params '%s' has %d but indices '%s' has %d", i,
                             interp_tname(par), par->shape[i], interp_tname(idx), idx->shape[i]);
    int32_t shp[GRAPH_MAX_RANK + GRAPH_MAX_RANK], r = 0;
    for (int32_t i = 0; i < axis; i++) shp[r++] = par->shape[i];
    for (int32_t i = bd; i < ir; i++) shp[r++] = idx->shape[i];
    for (int32_t i = axis + 1; i < pr; i++) shp[r++] = par->shape[i];
    if (r > GRAPH_MAX_RANK) return npuc_errf(err, NPUC_E_UNSUPPORTED, "output rank %d exceeds %d", r, GRAPH_MAX_RANK);
    if ((rc = interp_check_out_shape(out, shp, r, err))) return rc;
    if (graph_tensor_elems(par) > INT32_MAX || graph_tensor_elems(out) > INT32_MAX ||
        graph_tensor_elems(idx) > INT32_MAX)
        return too_large(par, err);
    BLOB(k_op_gather_blob, par->dtype == GRAPH_I8 ? K_OP_GATHER_X8 : K_OP_GATHER_X32);
    b->batch = (int32_t)interp_prod(par->shape, 0, bd);
    b->outer = (int32_t)interp_prod(par->shape, bd, axis);
    b->axis_size = par->shape[axis];
    b->inner = (int32_t)interp_prod(par->shape, axis + 1, pr);
    b->coord = (int32_t)interp_prod(idx->shape, bd, ir);
    return NPUC_OK;
}

/* ---- GATHER_ND ------------------------------------------------------------------------------- */

static int gather_nd_prepare(interp_node *n, npuc_err *err)
{
    const graph_tensor *par, *idx, *out;
    int rc = gather_io(n, &par, &idx, &out, err);
    if (rc) return rc;
    if ((rc = check_rank(par, "params", 1, GRAPH_MAX_RANK, err)) ||
        (rc = check_rank(idx, "indices", 1, GRAPH_MAX_RANK, err)))
        return rc;
    const int32_t pr = par->rank, ir = idx->rank, nd = idx->shape[ir - 1];
    if (nd > pr)
        return npuc_errf(err, NPUC_E_INVALID, "indices '%s' index %d dims of params '%s' of rank %d", interp_tname(idx), nd,
                         interp_tname(par), pr);
    if (nd > K_OP_GATHER_ND_MAX)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "indices '%s' have %d components, at most %d supported", interp_tname(idx),
                         nd, K_OP_GATHER_ND_MAX);
    int32_t shp[2 * GRAPH_MAX_RANK], r = 0;
    for (int32_t i = 0; i < ir - 1; i++) shp[r++] = idx->shape[i];
    for (int32_t i = nd; i < pr; i++) shp[r++] = par->shape[i];
    if ((rc = interp_check_out_shape(out, shp, r, err))) return rc;
    if (graph_tensor_elems(par) > INT32_MAX || graph_tensor_elems(out) > INT32_MAX ||
        graph_tensor_elems(idx) > INT32_MAX)
        return too_large(par, err);
    BLOB(k_op_gather_nd_blob, par->dtype == GRAPH_I8 ? K_OP_GATHER_ND_X8 : K_OP_GATHER_ND_X32);
    b->n_slices = (int32_t)interp_prod(idx->shape, 0, ir - 1);
    b->nd = nd;
    b->slice_size = (int32_t)interp_prod(par->shape, nd, pr);
    b->params_count = (int32_t)graph_tensor_elems(par);
    for (int32_t j = 0; j < nd; j++) {
        b->dims[j] = par->shape[j];
        b->stride[j] = (int32_t)interp_prod(par->shape, j + 1, pr);
    }
    return NPUC_OK;
}

/* ---- EMBEDDING_LOOKUP ------------------------------------------------------------------------- */

static int embedding_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *ids = interp_node_in_t(n, 0), *val = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    static const graph_dtype it[] = {GRAPH_I32};
    if ((rc = check_dtype_in(ids, "ids", it, 1, "int32 ids", err)) || (rc = check_rank(ids, "ids", 1, 1, err)) ||
        (rc = check_dtype_in(val, "value", f32_i8, 2, "float32, int8", err)) ||
        (rc = check_rank(val, "value", 2, GRAPH_MAX_RANK, err)))
        return rc;
    const bool hybrid = val->dtype == GRAPH_I8 && out->dtype == GRAPH_F32;
    if (!hybrid && (rc = interp_check_same_dtype(val, "value", out, "output", err))) return rc;
    int32_t shp[GRAPH_MAX_RANK];
    memcpy(shp, val->shape, sizeof(int32_t) * (size_t)val->rank);
    shp[0] = ids->shape[0];
    if ((rc = interp_check_out_shape(out, shp, val->rank, err))) return rc;
    if (graph_tensor_elems(val) > INT32_MAX || graph_tensor_elems(out) > INT32_MAX) return too_large(val, err);
    float scale = 0.0f;
    if (hybrid) {
        if (val->q.n != 1)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "int8 value '%s' needs per-tensor quantization to be "
                             "dequantized", interp_tname(val));
        if (val->q.zero_point[0] != 0)
            return npuc_errf(err, NPUC_E_INVALID, "int8 value '%s' has zero point %lld; TFLite Micro requires 0",
                             interp_tname(val), (long long)val->q.zero_point[0]);
        scale = val->q.scale[0];
    }
    BLOB(k_op_embedding_blob, hybrid                      ? K_OP_EMBEDDING_LOOKUP_S8_F32
                              : val->dtype == GRAPH_I8 ? K_OP_EMBEDDING_LOOKUP_X8
                                                       : K_OP_EMBEDDING_LOOKUP_X32);
    b->n_ids = ids->shape[0];
    b->rows = val->shape[0];
    b->cols = (int32_t)interp_prod(val->shape, 1, val->rank);
    b->scale = scale;
    return NPUC_OK;
}

/* ---- REVERSE_V2 --------------------------------------------------------------------------------- */

static int reverse_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *ax = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    static const graph_dtype t[] = {GRAPH_I32, GRAPH_F32, GRAPH_U8, GRAPH_I8, GRAPH_I16, GRAPH_I64, GRAPH_BOOL};
    static const graph_dtype at[] = {GRAPH_I32};
    if ((rc = check_dtype_in(in, "input", t, 7, "int32, float32, uint8, int8, int16, int64, bool", err)) ||
        (rc = interp_check_same_dtype(in, "input", out, "output", err)) ||
        (rc = check_dtype_in(ax, "axis", at, 1, "int32 axes", err)) || (rc = check_rank(ax, "axis", 1, 1, err)) ||
        (rc = check_rank(in, "input", 0, K_MAX_DIMS, err)))
        return rc;
    if ((rc = interp_check_out_shape(out, in->shape, in->rank, err))) return rc;
    if (ax->shape[0] > in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis '%s' has %d values, more than the rank %d of input '%s'",
                         interp_tname(ax), ax->shape[0], in->rank, interp_tname(in));
    if (ax->data) {
        int32_t a[K_MAX_DIMS];
        for (int32_t i = 0; i < ax->shape[0]; i++) {
            int64_t v = interp_const_int(ax, (size_t)i);
            if (v < 0) v += in->rank;
            if (v < 0 || v >= in->rank)
                return npuc_errf(err, NPUC_E_INVALID, "axis %lld is out of range for input '%s' of rank %d",
                                 (long long)interp_const_int(ax, (size_t)i), interp_tname(in), in->rank);
            int32_t k = i;
            for (; k > 0 && a[k - 1] > v; k--) a[k] = a[k - 1];
            a[k] = (int32_t)v;
        }
        for (int32_t i = 1; i < ax->shape[0]; i++)
            if (a[i] != a[i - 1] + 1)
                return npuc_errf(err, NPUC_E_UNSUPPORTED,
                                 "axes '%s' are not distinct and contiguous (TFLite Micro reverses contiguous axes "
                                 "only)", interp_tname(ax));
    }
    if (graph_tensor_elems(in) > INT32_MAX) return too_large(in, err);
    const size_t w = graph_dtype_size(in->dtype);
    BLOB(k_op_reverse_blob, kind_by_width(w, K_OP_REVERSE_X8, K_OP_REVERSE_X16, K_OP_REVERSE_X32, K_OP_REVERSE_X64));
    b->rank = in->rank;
    for (int32_t i = 0; i < in->rank; i++) b->dims[i] = in->shape[i];
    b->n_axes = ax->shape[0];
    return NPUC_OK;
}

/* ---- MIRROR_PAD ----------------------------------------------------------------------------------- */

static int mirror_pad_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *pads = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    static const graph_dtype pt[] = {GRAPH_I32, GRAPH_I64};
    if ((rc = check_dtype_in(in, "input", f32_i8, 2, "float32, int8", err)) ||
        (rc = interp_check_same_dtype(in, "input", out, "output", err)) ||
        (rc = check_dtype_in(pads, "paddings", pt, 2, "int32, int64", err)) ||
        (rc = check_rank(pads, "paddings", 2, 2, err)) || (rc = check_rank(in, "input", 0, K_MAX_DIMS, err)))
        return rc;
    if (pads->shape[0] != in->rank || pads->shape[1] != 2)
        return npuc_errf(err, NPUC_E_INVALID, "paddings '%s' must have shape [%d,2] for input '%s'", interp_tname(pads),
                         in->rank, interp_tname(in));
    if (out->rank != in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has rank %d but input '%s' has rank %d", interp_tname(out),
                         out->rank, interp_tname(in), in->rank);
    const int32_t mode = n->op->opt.mirror_mode;
    if (mode != 0 && mode != 1) return npuc_errf(err, NPUC_E_INVALID, "mirror pad mode %d is unknown", mode);
    const int32_t offset = mode == 0 ? 1 : 0; /* REFLECT skips the edge */
    if (pads->data) {
        int32_t shp[K_MAX_DIMS];
        for (int32_t d = 0; d < in->rank; d++) {
            const int64_t lo = interp_const_int(pads, 2 * (size_t)d), hi = interp_const_int(pads, 2 * (size_t)d + 1);
            const int64_t lim = (int64_t)in->shape[d] - offset;
            /* TFLite Micro clamps a long right padding but reads out of
             * bounds for a long left one */
            if (lo < 0 || hi < 0 || lo > lim || (hi > 0 && in->shape[d] == 0))
                return npuc_errf(err, NPUC_E_INVALID, "paddings [%lld,%lld] of dim %d are out of range for %s mode "
                                 "and size %d", (long long)lo, (long long)hi, d, mode ? "SYMMETRIC" : "REFLECT",
                                 in->shape[d]);
            shp[d] = (int32_t)(in->shape[d] + lo + hi);
        }
        if ((rc = interp_check_out_shape(out, shp, in->rank, err))) return rc;
    }
    if (graph_tensor_elems(out) > INT32_MAX) return too_large(out, err);
    BLOB(k_op_mirror_pad_blob, in->dtype == GRAPH_I8 ? K_OP_MIRROR_PAD_X8 : K_OP_MIRROR_PAD_X32);
    b->rank = in->rank;
    for (int32_t i = 0; i < in->rank; i++) {
        b->in_dims[i] = in->shape[i];
        b->out_dims[i] = out->shape[i];
    }
    b->offset = offset;
    b->pad_width = (int32_t)graph_dtype_size(pads->dtype);
    return NPUC_OK;
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ------------------------------------------------------------ */

static int d2s_prepare(interp_node *n, bool d2s, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if ((rc = check_dtype_in(in, "input", f32_i8, 2, "float32, int8", err)) ||
        (rc = interp_check_same_dtype(in, "input", out, "output", err)) || (rc = check_rank(in, "input", 4, 4, err)))
        return rc;
    const int32_t bs = n->op->opt.block_size;
    if (bs < 1) return npuc_errf(err, NPUC_E_INVALID, "block_size %d must be at least 1", bs);
    const int32_t *s = in->shape;
    int32_t shp[4];
    if (d2s) {
        if (s[3] % ((int64_t)bs * bs) != 0)
            return npuc_errf(err, NPUC_E_INVALID, "depth %d of input '%s' is not a multiple of block_size^2 = %lld",
                             s[3], interp_tname(in), (long long)bs * bs);
        if ((int64_t)s[1] * bs > INT32_MAX || (int64_t)s[2] * bs > INT32_MAX) return too_large(in, err);
        shp[0] = s[0], shp[1] = s[1] * bs, shp[2] = s[2] * bs, shp[3] = (int32_t)(s[3] / ((int64_t)bs * bs));
    } else {
        if (s[1] % bs || s[2] % bs)
            return npuc_errf(err, NPUC_E_INVALID, "height %d and width %d of input '%s' must be multiples of "
                             "block_size %d", s[1], s[2], interp_tname(in), bs);
        if ((int64_t)s[3] * bs * bs > INT32_MAX) return too_large(in, err);
        shp[0] = s[0], shp[1] = s[1] / bs, shp[2] = s[2] / bs, shp[3] = s[3] * bs * bs;
    }
    if ((rc = interp_check_out_shape(out, shp, 4, err))) return rc;
    if (graph_tensor_elems(in) > INT32_MAX) return too_large(in, err);
    const bool x8 = in->dtype == GRAPH_I8;
    BLOB(k_op_d2s_blob, d2s ? (x8 ? K_OP_DEPTH_TO_SPACE_X8 : K_OP_DEPTH_TO_SPACE_X32)
                            : (x8 ? K_OP_SPACE_TO_DEPTH_X8 : K_OP_SPACE_TO_DEPTH_X32));
    b->batch = s[0], b->height = s[1], b->width = s[2], b->depth = s[3], b->block = bs;
    return NPUC_OK;
}

static int depth_to_space_prepare(interp_node *n, npuc_err *err) { return d2s_prepare(n, true, err); }
static int space_to_depth_prepare(interp_node *n, npuc_err *err) { return d2s_prepare(n, false, err); }

/* ---- BATCH_TO_SPACE_ND / SPACE_TO_BATCH_ND --------------------------------------------------------- */

static void dims4(const graph_tensor *t, int32_t d[4])
{
    d[0] = t->shape[0], d[1] = t->shape[1];
    d[2] = t->rank == 4 ? t->shape[2] : 1;
    d[3] = t->shape[t->rank - 1];
}

static int s2b_prepare(interp_node *n, bool b2s, npuc_err *err)
{
    int rc = interp_check_counts(n, 3, 3, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *blk = interp_node_in_t(n, 1), *cr = interp_node_in_t(n, 2);
    const graph_tensor *out = interp_node_out_t(n, 0);
    const char *cw = b2s ? "crops" : "paddings";
    static const graph_dtype it[] = {GRAPH_I32};
    if ((rc = check_dtype_in(in, "input", f32_i8, 2, "float32, int8", err)) ||
        (rc = interp_check_same_dtype(in, "input", out, "output", err)) || (rc = check_rank(in, "input", 3, 4, err)) ||
        (rc = check_rank(out, "output", in->rank, in->rank, err)) ||
        (rc = check_dtype_in(blk, "block_shape", it, 1, "int32 block_shape", err)) ||
        (rc = check_dtype_in(cr, cw, it, 1, "int32", err)) || (rc = check_rank(blk, "block_shape", 1, 1, err)) ||
        (rc = check_rank(cr, cw, 2, 2, err)))
        return rc;
    const int32_t ns = in->rank - 2;
    if (blk->shape[0] != ns || cr->shape[0] != ns || cr->shape[1] != 2)
        return npuc_errf(err, NPUC_E_INVALID, "block_shape '%s' must have %d values and %s '%s' shape [%d,2]",
                         interp_tname(blk), ns, cw, interp_tname(cr), ns);
    int32_t I[4], O[4];
    dims4(in, I);
    dims4(out, O);
    if (I[3] != O[3])
        return npuc_errf(err, NPUC_E_INVALID, "input '%s' depth %d differs from output '%s' depth %d", interp_tname(in), I[3],
                         interp_tname(out), O[3]);
    if (blk->data && cr->data) {
        int64_t bs[2] = {1, 1}, c[4] = {0, 0, 0, 0};
        for (int32_t i = 0; i < ns; i++) {
            bs[i] = interp_const_int(blk, (size_t)i);
            c[2 * i] = interp_const_int(cr, 2 * (size_t)i), c[2 * i + 1] = interp_const_int(cr, 2 * (size_t)i + 1);
            if (bs[i] < 1 || c[2 * i] < 0 || c[2 * i + 1] < 0)
                return npuc_errf(err, NPUC_E_INVALID, "block_shape '%s' must be >= 1 and %s '%s' >= 0", interp_tname(blk), cw,
                                 interp_tname(cr));
        }
        int64_t want[4];
        if (b2s) {
            if (I[0] % (bs[0] * bs[1]))
                return npuc_errf(err, NPUC_E_INVALID, "batch %d of input '%s' is not a multiple of the block size "
                                 "%lld", I[0], interp_tname(in), (long long)(bs[0] * bs[1]));
            want[0] = I[0] / (bs[0] * bs[1]);
            want[1] = I[1] * bs[0] - c[0] - c[1];
            want[2] = I[2] * bs[1] - c[2] - c[3];
        } else {
            const int64_t h = I[1] + c[0] + c[1], w = I[2] + c[2] + c[3];
            if (h % bs[0] || w % bs[1])
                return npuc_errf(err, NPUC_E_INVALID, "padded spatial dims of input '%s' are not multiples of the "
                                 "block shape", interp_tname(in));
            want[0] = I[0] * bs[0] * bs[1];
            want[1] = h / bs[0];
            want[2] = w / bs[1];
        }
        if (want[0] != O[0] || want[1] != O[1] || want[2] != O[2]) {
            char a[128];
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' %s does not match the block shape and %s '%s'",
                             interp_tname(out), interp_shape_str(out->shape, out->rank, a, sizeof a), cw, interp_tname(cr));
        }
    }
    if (graph_tensor_elems(in) > INT32_MAX || graph_tensor_elems(out) > INT32_MAX) return too_large(in, err);
    const bool x8 = in->dtype == GRAPH_I8;
    BLOB(k_op_s2b_blob, b2s ? (x8 ? K_OP_BATCH_TO_SPACE_X8 : K_OP_BATCH_TO_SPACE_X32)
                            : (x8 ? K_OP_SPACE_TO_BATCH_X8 : K_OP_SPACE_TO_BATCH_X32));
    b->rank = in->rank;
    memcpy(b->in_dims, I, sizeof I);
    memcpy(b->out_dims, O, sizeof O);
    b->pad_value = 0;
    if (x8 && out->q.n > 0) {
        const int64_t zp = out->q.zero_point[0];
        if (zp < -128 || zp > 127)
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' zero point %lld is out of int8 range", interp_tname(out),
                             (long long)zp);
        b->pad_value = (int32_t)zp;
    }
    return NPUC_OK;
}

static int batch_to_space_prepare(interp_node *n, npuc_err *err) { return s2b_prepare(n, true, err); }
static int space_to_batch_prepare(interp_node *n, npuc_err *err) { return s2b_prepare(n, false, err); }

static const interp_op_impl impls[] = {
    {TFL_OP_SHAPE, shape_prepare, NULL},
    {TFL_OP_FILL, fill_prepare, NULL},
    {TFL_OP_BROADCAST_TO, broadcast_to_prepare, NULL},
    {TFL_OP_BROADCAST_ARGS, broadcast_args_prepare, NULL},
    {TFL_OP_TILE, tile_prepare, NULL},
    {TFL_OP_GATHER, gather_prepare, NULL},
    {TFL_OP_GATHER_ND, gather_nd_prepare, NULL},
    {TFL_OP_EMBEDDING_LOOKUP, embedding_prepare, NULL},
    {TFL_OP_REVERSE_V2, reverse_prepare, NULL},
    {TFL_OP_MIRROR_PAD, mirror_pad_prepare, NULL},
    {TFL_OP_DEPTH_TO_SPACE, depth_to_space_prepare, NULL},
    {TFL_OP_SPACE_TO_DEPTH, space_to_depth_prepare, NULL},
    {TFL_OP_BATCH_TO_SPACE_ND, batch_to_space_prepare, NULL},
    {TFL_OP_SPACE_TO_BATCH_ND, space_to_batch_prepare, NULL},
};

INTERP_OPS_TABLE(interp_ops_gather, impls)
