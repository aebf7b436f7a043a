/* Interpreter bindings for the data movement and resampling ops: RESHAPE,
 * SQUEEZE, EXPAND_DIMS, CONCATENATION, PACK, UNPACK, SPLIT, SPLIT_V, PAD,
 * PADV2, SLICE, STRIDED_SLICE, TRANSPOSE, RESIZE_NEAREST_NEIGHBOR,
 * RESIZE_BILINEAR.
 *
 * Where TFLite and TFLite Micro differ, comments say so. Summary:
 * - CONCATENATION: both reject fused activations and int8 inputs whose
 *   quantization differs from the output's; TFLite rescales uint8 inputs.
 *   npuc accepts a fused activation on float32 (clamp) and rescales int8 and
 *   uint8 inputs with TFLite's (float) ConcatenationWithScaling math.
 * - PAD int16 without a constant value: TFLite Micro pads with 0, TFLite
 *   with the output zero point; we follow TFLite Micro (they agree for the
 *   usual zero point 0).
 * - RESIZE_BILINEAR int16: not in TFLite Micro; TFLite uses the integer
 *   formulation, as we do.
 * - STRIDED_SLICE: TFLite Micro ignores ellipsis/new_axis masks and offset;
 *   we follow TFLite, which implements them. */
#include "interp_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------- */

#define SHAPE_MAX_INPUTS 1024

static bool is_quant_dtype(graph_dtype d) { return d == GRAPH_I8 || d == GRAPH_U8 || d == GRAPH_I16; }

/* Per-tensor quantization required for quantized types (when present). */
static int check_per_tensor(const graph_tensor *t, npuc_err *err)
{
    if (t->q.n > 1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor '%s' has per-axis quantization (%d scales), "
                         "which this op does not support", interp_tname(t), t->q.n);
    return NPUC_OK;
}

/* Input/output quantization must be identical (TFLite's checks for ops that
 * cannot rescale). */
static int check_same_quant(const graph_tensor *a, const char *what_a, const graph_tensor *b, const char *what_b,
                            npuc_err *err)
{
    if (!is_quant_dtype(a->dtype)) return NPUC_OK;
    if (interp_q_zp(a) == interp_q_zp(b) && interp_q_scale(a) == interp_q_scale(b)) return NPUC_OK;
    return npuc_errf(err, NPUC_E_INVALID,
                     "%s '%s' (scale %g, zero point %d) and %s '%s' (scale %g, zero point %d) must have the "
                     "same quantization: this op does not rescale",
                     what_a, interp_tname(a), (double)interp_q_scale(a), interp_q_zp(a), what_b, interp_tname(b), (double)interp_q_scale(b), interp_q_zp(b));
}

/* Element width class for the data movement kernels: 1, 2 or 4 bytes. */
static int elem_width(const graph_tensor *t, const char *opname, npuc_err *err)
{
    switch (t->dtype) {
    case GRAPH_I8:
    case GRAPH_U8:
    case GRAPH_BOOL: return 1;
    case GRAPH_I16: return 2;
    case GRAPH_I32:
    case GRAPH_F32: return 4;
    default: break;
    }
    npuc_errf(err, NPUC_E_UNSUPPORTED, "%s with %s tensor '%s' is not supported", opname, graph_dtype_name(t->dtype),
              interp_tname(t));
    return 0;
}

static int to_i32(int64_t v, const char *what, const graph_tensor *t, int32_t *out, npuc_err *err)
{
    if (v < INT32_MIN || v > INT32_MAX)
        return npuc_errf(err, NPUC_E_INVALID, "%s value %lld in '%s' does not fit in int32", what, (long long)v,
                         interp_tname(t));
    *out = (int32_t)v;
    return NPUC_OK;
}

/* ---- RESHAPE / SQUEEZE / EXPAND_DIMS: copies ------------------------------- */

typedef struct copy_params {
    size_t nbytes;
} copy_params;

static int copy_finish(interp_node *n, const graph_tensor *in, const graph_tensor *out, npuc_err *err)
{
    if (in->nbytes != out->nbytes)
        return npuc_errf(err, NPUC_E_INVALID, "input '%s' has %zu bytes but output '%s' has %zu", interp_tname(in),
                         in->nbytes, interp_tname(out), out->nbytes);
    copy_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->nbytes = in->nbytes;
    n->params = p;
    return NPUC_OK;
}

/* Blob emitters: each op's prepare leaves its parameters in n->params; the
 * emitter replaces them with the kind's blob. */
static int copy_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const copy_params *p = n->params;
    if (p->nbytes > UINT32_MAX) return npuc_errf(err, NPUC_E_UNSUPPORTED, "%zu bytes are too many to copy", p->nbytes);
    k_op_copy_blob *b = interp_node_blob(n, K_OP_COPY, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->nbytes = (uint32_t)p->nbytes;
    return NPUC_OK;
}

static int reshape_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    const graph_tensor *st = interp_node_in_t(n, 1);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;

    /* TFLite takes the new shape from the shape tensor when it is a 1-D
     * int32 tensor, else from ReshapeOptions.new_shape (a legacy [0] meaning
     * a scalar). Without either (or with a non-constant shape tensor) the
     * output tensor's shape is the new shape, as in TFLite Micro. */
    int32_t shp[GRAPH_MAX_RANK];
    int32_t rank = -1;
    if (st && st->rank == 1 && st->dtype == GRAPH_I32) {
        if (st->data) {
            int64_t v[GRAPH_MAX_RANK];
            if ((rc = interp_read_const_ints(st, "shape", v, GRAPH_MAX_RANK, &rank, err))) return rc;
            for (int32_t i = 0; i < rank; i++) shp[i] = (int32_t)v[i];
        }
    } else if (n->op->opt.has_new_shape) {
        if (n->op->opt.n_new_shape > GRAPH_MAX_RANK)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "new_shape has %d dims, at most %d supported",
                             n->op->opt.n_new_shape, GRAPH_MAX_RANK);
        rank = n->op->opt.n_new_shape;
        for (int32_t i = 0; i < rank; i++) shp[i] = n->op->opt.new_shape[i];
        if (rank == 1 && shp[0] == 0) rank = 0;
    }
    if (rank >= 0) {
        int64_t in_elems = (int64_t)graph_tensor_elems(in), known = 1;
        int32_t stretch = -1;
        for (int32_t i = 0; i < rank; i++) {
            if (shp[i] == -1) {
                if (stretch >= 0) return npuc_errf(err, NPUC_E_INVALID, "new shape has more than one -1");
                stretch = i;
            } else if (shp[i] < 0) {
                return npuc_errf(err, NPUC_E_INVALID, "new shape has a negative dim %d", shp[i]);
            } else {
                if (shp[i] > 0 && known > ((int64_t)1 << 40) / shp[i])
                    return npuc_errf(err, NPUC_E_INVALID, "new shape is too large (dim %d is %d)", i, shp[i]);
                known *= shp[i];
            }
        }
        if (stretch >= 0) {
            if (known == 0 && in_elems != 0)
                return npuc_errf(err, NPUC_E_INVALID, "cannot infer the -1 dim of a shape with a zero dim");
            shp[stretch] = known == 0 ? 0 : (int32_t)(in_elems / known);
            known *= shp[stretch];
        }
        if (known != in_elems) {
            char a[128], b[128];
            return npuc_errf(err, NPUC_E_INVALID, "cannot reshape input '%s' %s (%lld elements) to %s", interp_tname(in),
                             interp_shape_str(in->shape, in->rank, a, sizeof a), (long long)in_elems,
                             interp_shape_str(shp, rank, b, sizeof b));
        }
        if ((rc = interp_check_out_shape(out, shp, rank, err))) return rc;
    }
    return copy_finish(n, in, out, err);
}

static int squeeze_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    bool sq[GRAPH_MAX_RANK] = {false};
    const tfl_options *o = &n->op->opt;
    if (o->n_squeeze_dims == 0) {
        for (int32_t i = 0; i < in->rank; i++) sq[i] = in->shape[i] == 1;
    } else {
        for (int32_t k = 0; k < o->n_squeeze_dims; k++) {
            int32_t a = o->squeeze_dims[k];
            int32_t c = a < 0 ? a + in->rank : a;
            if (c < 0 || c >= in->rank)
                return npuc_errf(err, NPUC_E_INVALID, "squeeze dim %d is out of range for input '%s' of rank %d", a,
                                 interp_tname(in), in->rank);
            if (in->shape[c] != 1)
                return npuc_errf(err, NPUC_E_INVALID, "cannot squeeze dim %d of input '%s': its size is %d, not 1", a,
                                 interp_tname(in), in->shape[c]);
            sq[c] = true;
        }
    }
    int32_t shp[GRAPH_MAX_RANK], r = 0;
    for (int32_t i = 0; i < in->rank; i++)
        if (!sq[i]) shp[r++] = in->shape[i];
    if ((rc = interp_check_out_shape(out, shp, r, err))) return rc;
    return copy_finish(n, in, out, err);
}

static int expand_dims_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *ax = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    int64_t v[1];
    int32_t cnt = 0;
    if ((rc = interp_read_const_ints(ax, "axis", v, 1, &cnt, err))) return rc;
    if (cnt != 1) return npuc_errf(err, NPUC_E_INVALID, "axis tensor '%s' must hold one value", interp_tname(ax));
    int64_t a = v[0] < 0 ? v[0] + in->rank + 1 : v[0];
    if (a < 0 || a > in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis %lld is out of range for input '%s' of rank %d", (long long)v[0],
                         interp_tname(in), in->rank);
    if (in->rank + 1 > GRAPH_MAX_RANK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "output rank %d exceeds %d", in->rank + 1, GRAPH_MAX_RANK);
    int32_t shp[GRAPH_MAX_RANK], r = 0;
    for (int32_t i = 0; i <= in->rank; i++) shp[r++] = i == a ? 1 : in->shape[i < a ? i : i - 1];
    if ((rc = interp_check_out_shape(out, shp, r, err))) return rc;
    return copy_finish(n, in, out, err);
}

/* ---- CONCATENATION / PACK --------------------------------------------------- */

enum { CAT_COPY = 0, CAT_F32 = 1, CAT_REQ_S8 = 2, CAT_REQ_U8 = 3 };

typedef struct concat_params {
    int mode;
    int width;
    k_concat_q_params q; /* q.c is the layout */
    float act_min, act_max;
} concat_params;

static concat_params *concat_alloc(interp_node *n, int32_t count)
{
    concat_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return NULL;
    p->q.c.n = count;
    p->q.c.axis_len = interp_node_alloc(n, sizeof(int32_t) * (size_t)count);
    if (!p->q.c.axis_len) return NULL;
    n->params = p;
    return p;
}

static int concat_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, SHAPE_MAX_INPUTS, 1, err);
    if (rc) return rc;
    const int32_t ni = n->op->n_in;
    const graph_tensor *in0 = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    for (int32_t i = 0; i < ni; i++)
        if (!interp_node_in_t(n, i)) return npuc_errf(err, NPUC_E_INVALID, "input %d is missing", i);
    if ((rc = interp_check_same_dtype(in0, "input 0", out, "output", err))) return rc;
    const int32_t rank = in0->rank;
    int32_t axis = n->op->opt.axis;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis %d is out of range for inputs of rank %d", n->op->opt.axis, rank);
    int32_t shp[GRAPH_MAX_RANK];
    memcpy(shp, in0->shape, sizeof(int32_t) * (size_t)rank);
    shp[axis] = 0;
    for (int32_t i = 0; i < ni; i++) {
        const graph_tensor *t = interp_node_in_t(n, i);
        char what[32];
        snprintf(what, sizeof what, "input %d", i);
        if ((rc = interp_check_same_dtype(t, what, out, "output", err))) return rc;
        if (t->rank != rank)
            return npuc_errf(err, NPUC_E_INVALID, "input %d '%s' has rank %d but input 0 has rank %d", i, interp_tname(t),
                             t->rank, rank);
        for (int32_t d = 0; d < rank; d++)
            if (d != axis && t->shape[d] != in0->shape[d]) {
                char a[128], b[128];
                return npuc_errf(err, NPUC_E_INVALID, "input %d '%s' %s does not match input 0 %s outside axis %d", i,
                                 interp_tname(t), interp_shape_str(t->shape, rank, a, sizeof a),
                                 interp_shape_str(in0->shape, rank, b, sizeof b), axis);
            }
        if (t->shape[axis] > INT32_MAX - shp[axis])
            return npuc_errf(err, NPUC_E_INVALID, "concatenated dim %d overflows int32 at input %d", axis, i);
        shp[axis] += t->shape[axis];
    }
    if ((rc = interp_check_out_shape(out, shp, rank, err))) return rc;

    const int act = n->op->opt.activation;
    if (act != TFL_ACT_NONE && act != TFL_ACT_RELU && act != TFL_ACT_RELU6 && act != TFL_ACT_RELU_N1_TO_1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "fused activation %s is not supported",
                         tfl_activation_name(act));
    if (act != TFL_ACT_NONE && out->dtype != GRAPH_F32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "fused activation %s on %s CONCATENATION is not supported (TFLite supports no fused "
                         "activation on CONCATENATION)", tfl_activation_name(act), graph_dtype_name(out->dtype));

    int width = elem_width(out, "CONCATENATION", err);
    if (!width) return NPUC_E_UNSUPPORTED;
    concat_params *p = concat_alloc(n, ni);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    p->q.c.outer = (int32_t)interp_prod(shp, 0, axis);
    p->q.c.inner = (int32_t)interp_prod(shp, axis + 1, rank);
    for (int32_t i = 0; i < ni; i++) ((int32_t *)p->q.c.axis_len)[i] = interp_node_in_t(n, i)->shape[axis];
    p->mode = CAT_COPY;

    if (out->dtype == GRAPH_F32) {
        p->mode = CAT_F32;
        k_activation_range_f(act, &p->act_min, &p->act_max);
    } else if (out->dtype == GRAPH_I8 || out->dtype == GRAPH_U8) {
        /* TFLite rescales uint8 inputs (ConcatenationWithScaling) and requires
         * int8 inputs to match the output; TFLite Micro requires it for int8
         * too. npuc rescales both the TFLite way. */
        if ((rc = check_per_tensor(out, err))) return rc;
        bool same = true;
        float *sc = interp_node_alloc(n, sizeof(float) * (size_t)ni);
        int32_t *zp = interp_node_alloc(n, sizeof(int32_t) * (size_t)ni);
        if (!sc || !zp) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (int32_t i = 0; i < ni; i++) {
            const graph_tensor *t = interp_node_in_t(n, i);
            if ((rc = check_per_tensor(t, err))) return rc;
            sc[i] = interp_q_scale(t);
            zp[i] = interp_q_zp(t);
            if (sc[i] != interp_q_scale(out) || zp[i] != interp_q_zp(out)) same = false;
        }
        if (!same) {
            if (!(interp_q_scale(out) > 0.0f) || !isnormal(interp_q_scale(out)))
                return npuc_errf(err, NPUC_E_INVALID, "output '%s' needs a positive scale to rescale inputs (has %g)",
                                 interp_tname(out), (double)interp_q_scale(out));
            for (int32_t i = 0; i < ni; i++)
                if (!(sc[i] > 0.0f) || !isnormal(sc[i]))
                    return npuc_errf(err, NPUC_E_INVALID, "input %d '%s' has invalid scale %g", i,
                                     interp_tname(interp_node_in_t(n, i)), (double)sc[i]);
            p->mode = out->dtype == GRAPH_I8 ? CAT_REQ_S8 : CAT_REQ_U8;
            p->q.in_scale = sc;
            p->q.in_zp = zp;
            p->q.out_scale = interp_q_scale(out);
            p->q.out_zp = interp_q_zp(out);
        }
    } else if (out->dtype == GRAPH_I16) {
        /* TFLite and TFLite Micro: int16 inputs and output must have zero
         * point 0; scales are not checked (values are copied). */
        for (int32_t i = 0; i <= ni; i++) {
            const graph_tensor *t = i < ni ? interp_node_in_t(n, i) : out;
            if (interp_q_zp(t) != 0)
                return npuc_errf(err, NPUC_E_INVALID, "int16 %s '%s' has zero point %d; int16 CONCATENATION "
                                 "needs zero point 0", i < ni ? "input" : "output", interp_tname(t), interp_q_zp(t));
        }
    }
    return NPUC_OK;
}

static int concat_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const concat_params *p = n->params;
    const bool requant = p->mode == CAT_REQ_S8 || p->mode == CAT_REQ_U8;
    const uint32_t head = k_op_align(sizeof(k_op_concat_blob));
    const size_t arr = (size_t)p->q.c.n * sizeof(int32_t);
    static const uint32_t copy_kinds[5] = {0, K_OP_CONCAT_X8, K_OP_CONCAT_X16, 0, K_OP_CONCAT_X32};
    const uint32_t kind = p->mode == CAT_F32      ? K_OP_CONCAT_F32
                          : p->mode == CAT_REQ_S8 ? K_OP_CONCAT_REQUANT_S8
                          : p->mode == CAT_REQ_U8 ? K_OP_CONCAT_REQUANT_U8
                                                  : copy_kinds[p->width];
    uint8_t *blob = interp_node_blob(n, kind, head + arr * (requant ? 3 : 1));
    if (!blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    k_op_concat_blob b = {.n = p->q.c.n, .outer = p->q.c.outer, .inner = p->q.c.inner, .axis_len_off = head,
                          .act_min = p->act_min, .act_max = p->act_max, .out_scale = p->q.out_scale,
                          .out_zp = p->q.out_zp};
    memcpy(blob + head, p->q.c.axis_len, arr);
    if (requant) {
        b.in_scale_off = head + (uint32_t)arr;
        b.in_zp_off = head + 2 * (uint32_t)arr;
        memcpy(blob + b.in_scale_off, p->q.in_scale, arr);
        memcpy(blob + b.in_zp_off, p->q.in_zp, arr);
    }
    memcpy(blob, &b, sizeof b);
    return NPUC_OK;
}

static int pack_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, SHAPE_MAX_INPUTS, 1, err);
    if (rc) return rc;
    const int32_t ni = n->op->n_in;
    if (n->op->opt.num != ni)
        return npuc_errf(err, NPUC_E_INVALID, "values_count is %d but the op has %d inputs", n->op->opt.num, ni);
    const graph_tensor *in0 = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    const int32_t rank = in0->rank;
    int32_t axis = n->op->opt.axis;
    if (axis < 0) axis += rank + 1;
    if (axis < 0 || axis > rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis %d is out of range for inputs of rank %d", n->op->opt.axis, rank);
    if (rank + 1 > GRAPH_MAX_RANK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "output rank %d exceeds %d", rank + 1, GRAPH_MAX_RANK);
    for (int32_t i = 0; i < ni; i++) {
        const graph_tensor *t = interp_node_in_t(n, i);
        if (!t) return npuc_errf(err, NPUC_E_INVALID, "input %d is missing", i);
        char what[32];
        snprintf(what, sizeof what, "input %d", i);
        if ((rc = interp_check_same_dtype(t, what, out, "output", err))) return rc;
        bool same = t->rank == rank;
        for (int32_t d = 0; same && d < rank; d++) same = t->shape[d] == in0->shape[d];
        if (!same) {
            char a[128], b[128];
            return npuc_errf(err, NPUC_E_INVALID, "input %d '%s' %s differs from input 0 %s", i, interp_tname(t),
                             interp_shape_str(t->shape, t->rank, a, sizeof a), interp_shape_str(in0->shape, rank, b, sizeof b));
        }
        /* TFLite: packed quantized tensors must share the output's quantization. */
        if ((rc = check_same_quant(t, what, out, "output", err))) return rc;
    }
    int32_t shp[GRAPH_MAX_RANK];
    for (int32_t i = 0, j = 0; i <= rank; i++) shp[i] = i == axis ? ni : in0->shape[j++];
    if ((rc = interp_check_out_shape(out, shp, rank + 1, err))) return rc;
    int width = elem_width(out, "PACK", err);
    if (!width) return NPUC_E_UNSUPPORTED;
    concat_params *p = concat_alloc(n, ni);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->mode = CAT_COPY;
    p->width = width;
    p->q.c.outer = (int32_t)interp_prod(in0->shape, 0, axis);
    p->q.c.inner = (int32_t)interp_prod(in0->shape, axis, rank);
    for (int32_t i = 0; i < ni; i++) ((int32_t *)p->q.c.axis_len)[i] = 1;
    return NPUC_OK;
}

/* ---- SPLIT / SPLIT_V / UNPACK ------------------------------------------------ */

typedef struct split_params {
    int width;
    int32_t in_index; /* which op input holds the data */
    k_split_params s;
} split_params;

static split_params *split_alloc(interp_node *n, int32_t count)
{
    split_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return NULL;
    p->s.n = count;
    p->s.axis_len = interp_node_alloc(n, sizeof(int32_t) * (size_t)count);
    if (!p->s.axis_len) return NULL;
    n->params = p;
    return p;
}

static int read_axis(const graph_tensor *t, int32_t rank, int32_t *axis, npuc_err *err)
{
    int64_t v[1];
    int32_t cnt = 0;
    int rc = interp_read_const_ints(t, "axis", v, 1, &cnt, err);
    if (rc) return rc;
    if (cnt != 1) return npuc_errf(err, NPUC_E_INVALID, "axis tensor '%s' must hold one value", interp_tname(t));
    int64_t a = v[0] < 0 ? v[0] + rank : v[0];
    if (a < 0 || a >= rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis %lld is out of range for rank %d", (long long)v[0], rank);
    *axis = (int32_t)a;
    return NPUC_OK;
}

/* Shared tail: checks each output against the input with axis_len[i] along
 * the axis, fills the layout. */
static int split_finish(interp_node *n, const graph_tensor *in, int32_t axis, const int32_t *lens, bool drop_axis,
                        int32_t in_index, const char *opname, npuc_err *err)
{
    const int32_t no = n->op->n_out;
    int rc;
    for (int32_t i = 0; i < no; i++) {
        const graph_tensor *o = interp_node_out_t(n, i);
        char what[32];
        snprintf(what, sizeof what, "output %d", i);
        if ((rc = interp_check_same_dtype(in, "input", o, what, err))) return rc;
        int32_t shp[GRAPH_MAX_RANK], r = 0;
        for (int32_t d = 0; d < in->rank; d++) {
            if (d == axis) {
                if (!drop_axis) shp[r++] = lens[i];
            } else {
                shp[r++] = in->shape[d];
            }
        }
        if ((rc = interp_check_out_shape(o, shp, r, err))) return npuc_err_prefix(err, "output %d", i);
    }
    int width = elem_width(in, opname, err);
    if (!width) return NPUC_E_UNSUPPORTED;
    split_params *p = split_alloc(n, no);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    p->in_index = in_index;
    p->s.outer = (int32_t)interp_prod(in->shape, 0, axis);
    p->s.inner = (int32_t)interp_prod(in->shape, axis + 1, in->rank);
    for (int32_t i = 0; i < no; i++) ((int32_t *)p->s.axis_len)[i] = lens[i];
    return NPUC_OK;
}

static int split_prepare(interp_node *n, npuc_err *err)
{
    /* SPLIT: input 0 is the axis, input 1 the data. */
    int rc = interp_check_counts(n, 2, 2, -1, err);
    if (rc) return rc;
    const graph_tensor *ax = interp_node_in_t(n, 0), *in = interp_node_in_t(n, 1);
    const int32_t no = n->op->n_out;
    if (no < 1 || no > SHAPE_MAX_INPUTS) return npuc_errf(err, NPUC_E_INVALID, "bad output count %d", no);
    if (n->op->opt.num != no)
        return npuc_errf(err, NPUC_E_INVALID, "num_splits is %d but the op has %d outputs", n->op->opt.num, no);
    int32_t axis;
    if ((rc = read_axis(ax, in->rank, &axis, err))) return rc;
    if (in->shape[axis] % no != 0)
        return npuc_errf(err, NPUC_E_INVALID, "dim %d of input '%s' (size %d) does not split into %d equal parts",
                         axis, interp_tname(in), in->shape[axis], no);
    int32_t *lens = interp_node_alloc(n, sizeof(int32_t) * (size_t)no);
    if (!lens) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < no; i++) lens[i] = in->shape[axis] / no;
    return split_finish(n, in, axis, lens, false, 1, "SPLIT", err);
}

static int split_v_prepare(interp_node *n, npuc_err *err)
{
    /* SPLIT_V: input 0 data, input 1 size_splits, input 2 axis. */
    int rc = interp_check_counts(n, 3, 3, -1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *sz = interp_node_in_t(n, 1), *ax = interp_node_in_t(n, 2);
    const int32_t no = n->op->n_out;
    if (no < 1 || no > SHAPE_MAX_INPUTS) return npuc_errf(err, NPUC_E_INVALID, "bad output count %d", no);
    if (n->op->opt.num != 0 && n->op->opt.num != no)
        return npuc_errf(err, NPUC_E_INVALID, "num_splits is %d but the op has %d outputs", n->op->opt.num, no);
    int32_t axis;
    if ((rc = read_axis(ax, in->rank, &axis, err))) return rc;
    int64_t *v = interp_node_alloc(n, sizeof(int64_t) * (size_t)no);
    int32_t *lens = interp_node_alloc(n, sizeof(int32_t) * (size_t)no);
    if (!v || !lens) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t cnt = 0;
    if ((rc = interp_read_const_ints(sz, "size_splits", v, no, &cnt, err))) return rc;
    if (cnt != no)
        return npuc_errf(err, NPUC_E_INVALID, "size_splits '%s' has %d values for %d outputs", interp_tname(sz), cnt, no);
    int32_t minus = -1;
    int64_t sum = 0;
    for (int32_t i = 0; i < no; i++) {
        if (v[i] == -1) {
            if (minus >= 0) return npuc_errf(err, NPUC_E_INVALID, "size_splits has more than one -1");
            minus = i;
        } else if (v[i] < 0) {
            return npuc_errf(err, NPUC_E_INVALID, "size_splits has a negative size %lld", (long long)v[i]);
        } else if (v[i] > in->shape[axis]) {
            return npuc_errf(err, NPUC_E_INVALID, "size_splits value %lld exceeds dim %d (size %d)", (long long)v[i],
                             axis, in->shape[axis]);
        } else {
            sum += v[i];
        }
    }
    if (minus >= 0) {
        if (sum > in->shape[axis])
            return npuc_errf(err, NPUC_E_INVALID, "size_splits sum %lld exceeds dim %d (size %d)", (long long)sum,
                             axis, in->shape[axis]);
        v[minus] = in->shape[axis] - sum;
    } else if (sum != in->shape[axis]) {
        return npuc_errf(err, NPUC_E_INVALID, "size_splits sum %lld does not match dim %d (size %d)", (long long)sum,
                         axis, in->shape[axis]);
    }
    for (int32_t i = 0; i < no; i++) lens[i] = (int32_t)v[i];
    return split_finish(n, in, axis, lens, false, 0, "SPLIT_V", err);
}

static int unpack_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, -1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0);
    const int32_t no = n->op->n_out;
    if (no != n->op->opt.num)
        return npuc_errf(err, NPUC_E_INVALID, "num is %d but the op has %d outputs", n->op->opt.num, no);
    int32_t axis = n->op->opt.axis;
    if (axis < 0) axis += in->rank;
    if (axis < 0 || axis >= in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis %d is out of range for input of rank %d", n->op->opt.axis,
                         in->rank);
    if (in->shape[axis] != no)
        return npuc_errf(err, NPUC_E_INVALID, "dim %d of input '%s' is %d but num is %d", axis, interp_tname(in),
                         in->shape[axis], no);
    for (int32_t i = 0; i < no; i++) {
        const graph_tensor *o = interp_node_out_t(n, i);
        char what[32];
        snprintf(what, sizeof what, "output %d", i);
        /* TFLite: unpacked quantized tensors keep the input's quantization. */
        if (o && (rc = check_same_quant(o, what, in, "input", err))) return rc;
    }
    int32_t *lens = interp_node_alloc(n, sizeof(int32_t) * (size_t)(no ? no : 1));
    if (!lens) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < no; i++) lens[i] = 1;
    return split_finish(n, in, axis, lens, true, 0, "UNPACK", err);
}

static int split_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const split_params *p = n->params;
    const uint32_t head = k_op_align(sizeof(k_op_concat_blob));
    const size_t arr = (size_t)p->s.n * sizeof(int32_t);
    const uint32_t kind = p->width == 1 ? K_OP_SPLIT_X8 : p->width == 2 ? K_OP_SPLIT_X16 : K_OP_SPLIT_X32;
    uint8_t *blob = interp_node_blob(n, kind, head + arr);
    if (!blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    const k_op_concat_blob b = {.n = p->s.n, .outer = p->s.outer, .inner = p->s.inner,
                                .data_index = p->in_index, .axis_len_off = head};
    memcpy(blob + head, p->s.axis_len, arr);
    memcpy(blob, &b, sizeof b);
    return NPUC_OK;
}

/* ---- PAD / PADV2 ------------------------------------------------------------ */

#define PAD_MAX_DIMS 5 /* TFLite's PadKernelMaxDimensionCount */

typedef struct pad_params {
    int width;
    k_pad_params k;
    bool value_from_tensor; /* PADV2 constant value (input 2) */
    uint8_t value[4];       /* pad element when not from the tensor */
} pad_params;

static int pad_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 3, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *pd = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    const graph_tensor *cv = interp_node_in_t(n, 2);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    if (in->rank > PAD_MAX_DIMS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input '%s' has rank %d; PAD supports up to %d dims", interp_tname(in),
                         in->rank, PAD_MAX_DIMS);
    if (pd->rank != 2 || pd->shape[0] != in->rank || pd->shape[1] != 2) {
        char a[128];
        return npuc_errf(err, NPUC_E_INVALID, "paddings '%s' has shape %s; expected [%d,2]", interp_tname(pd),
                         interp_shape_str(pd->shape, pd->rank, a, sizeof a), in->rank);
    }
    int64_t v[2 * PAD_MAX_DIMS];
    int32_t cnt = 0;
    if ((rc = interp_read_const_ints(pd, "paddings", v, 2 * PAD_MAX_DIMS, &cnt, err))) return rc;
    int width = elem_width(in, n->op->opcode == TFL_OP_PADV2 ? "PADV2" : "PAD", err);
    if (!width) return NPUC_E_UNSUPPORTED;
    pad_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    p->k.rank = in->rank;
    int32_t shp[PAD_MAX_DIMS];
    for (int32_t d = 0; d < in->rank; d++) {
        if ((rc = to_i32(v[2 * d], "padding", pd, &p->k.before[d], err))) return rc;
        if ((rc = to_i32(v[2 * d + 1], "padding", pd, &p->k.after[d], err))) return rc;
        if (p->k.before[d] < 0 || p->k.after[d] < 0)
            return npuc_errf(err, NPUC_E_INVALID, "paddings '%s' has a negative value for dim %d", interp_tname(pd), d);
        p->k.in_dims[d] = in->shape[d];
        int64_t o = (int64_t)in->shape[d] + p->k.before[d] + p->k.after[d];
        if (o > INT32_MAX) return npuc_errf(err, NPUC_E_INVALID, "padded dim %d overflows", d);
        shp[d] = (int32_t)o;
    }
    if ((rc = interp_check_out_shape(out, shp, in->rank, err))) return rc;

    memset(p->value, 0, sizeof p->value);
    if (cv) {
        if ((rc = interp_check_same_dtype(cv, "constant value", in, "input", err))) return rc;
        if (graph_tensor_elems(cv) != 1)
            return npuc_errf(err, NPUC_E_INVALID, "constant value '%s' must be a single value, has %zu", interp_tname(cv),
                             graph_tensor_elems(cv));
        /* TFLite: a quantized pad value must be in the output's quantization
         * (TFLite Micro checks this for int8 only). */
        if ((in->dtype == GRAPH_I8 || in->dtype == GRAPH_U8 || (in->dtype == GRAPH_I16 && in->q.n > 0)) &&
            (interp_q_zp(cv) != interp_q_zp(out) || interp_q_scale(cv) != interp_q_scale(out)))
            return npuc_errf(err, NPUC_E_INVALID,
                             "constant value '%s' (scale %g, zero point %d) must have the quantization of output "
                             "'%s' (scale %g, zero point %d)",
                             interp_tname(cv), (double)interp_q_scale(cv), interp_q_zp(cv), interp_tname(out), (double)interp_q_scale(out), interp_q_zp(out));
        p->value_from_tensor = true;
    } else if (in->dtype == GRAPH_I8 || in->dtype == GRAPH_U8) {
        /* Quantized PAD pads with the output zero point, which must be
         * representable. */
        int32_t zp = interp_q_zp(out);
        int32_t lo = in->dtype == GRAPH_I8 ? -128 : 0, hi = in->dtype == GRAPH_I8 ? 127 : 255;
        if (zp < lo || zp > hi)
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' zero point %d is outside the %s range", interp_tname(out), zp,
                             graph_dtype_name(out->dtype));
        p->value[0] = (uint8_t)zp;
    }
    /* int16 without a constant: TFLite Micro pads with 0 (TFLite with the
     * output zero point); int32/float32/bool: 0. value[] is already zero. */
    n->params = p;
    return NPUC_OK;
}

static int pad_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const pad_params *p = n->params;
    const uint32_t kind = p->width == 1 ? K_OP_PAD_X8 : p->width == 2 ? K_OP_PAD_X16 : K_OP_PAD_X32;
    k_op_pad_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->p = p->k;
    b->value_index = p->value_from_tensor ? 2 : -1;
    memcpy(b->value, p->value, sizeof b->value);
    return NPUC_OK;
}

/* ---- SLICE / STRIDED_SLICE ---------------------------------------------------- */

#define SLICE_MAX_DIMS 5

typedef struct slice_params {
    int width;
    k_slice_params k;
} slice_params;

static int slice_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 3, 3, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *bt = interp_node_in_t(n, 1), *st = interp_node_in_t(n, 2);
    const graph_tensor *out = interp_node_out_t(n, 0);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    if (in->rank > SLICE_MAX_DIMS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input '%s' has rank %d; SLICE supports up to %d dims", interp_tname(in),
                         in->rank, SLICE_MAX_DIMS);
    if (bt->dtype != st->dtype)
        return npuc_errf(err, NPUC_E_INVALID, "begin '%s' (%s) and size '%s' (%s) must have the same type",
                         interp_tname(bt), graph_dtype_name(bt->dtype), interp_tname(st), graph_dtype_name(st->dtype));
    int64_t b[SLICE_MAX_DIMS], s[SLICE_MAX_DIMS];
    int32_t nb = 0, ns = 0;
    if ((rc = interp_read_const_ints(bt, "begin", b, SLICE_MAX_DIMS, &nb, err))) return rc;
    if ((rc = interp_read_const_ints(st, "size", s, SLICE_MAX_DIMS, &ns, err))) return rc;
    if (nb != in->rank || ns != in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "begin and size must have %d values (input rank), have %d and %d",
                         in->rank, nb, ns);
    int width = elem_width(in, "SLICE", err);
    if (!width) return NPUC_E_UNSUPPORTED;
    slice_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    p->k.rank = in->rank;
    int32_t shp[SLICE_MAX_DIMS];
    for (int32_t d = 0; d < in->rank; d++) {
        int64_t dim = in->shape[d];
        int64_t size = s[d] == -1 ? dim - b[d] : s[d];
        if (b[d] < 0 || b[d] > dim || size < 0 || size > dim - b[d])
            return npuc_errf(err, NPUC_E_INVALID, "slice begin %lld size %lld is out of range for dim %d (size %lld)",
                             (long long)b[d], (long long)s[d], d, (long long)dim);
        p->k.in_dims[d] = (int32_t)dim;
        p->k.start[d] = (int32_t)b[d];
        p->k.stop[d] = (int32_t)(b[d] + size);
        p->k.stride[d] = 1;
        shp[d] = (int32_t)size;
    }
    if ((rc = interp_check_out_shape(out, shp, in->rank, err))) return rc;
    n->params = p;
    return NPUC_OK;
}

static int strided_slice_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 4, 4, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    const graph_tensor *bt = interp_node_in_t(n, 1), *et = interp_node_in_t(n, 2), *st = interp_node_in_t(n, 3);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    if (in->rank > SLICE_MAX_DIMS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input '%s' has rank %d; STRIDED_SLICE supports up to %d dims",
                         interp_tname(in), in->rank, SLICE_MAX_DIMS);
    const graph_tensor *ix[3] = {bt, et, st};
    const char *nm[3] = {"begin", "end", "strides"};
    int64_t v[3][32];
    int32_t cnt[3];
    for (int k = 0; k < 3; k++) {
        if (ix[k]->dtype != GRAPH_I32)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s tensor '%s' is %s; only int32 is supported", nm[k],
                             interp_tname(ix[k]), graph_dtype_name(ix[k]->dtype));
        if (ix[k]->rank != 1)
            return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' must be 1-D", nm[k], interp_tname(ix[k]));
        if ((rc = interp_read_const_ints(ix[k], nm[k], v[k], 32, &cnt[k], err))) return rc;
    }
    if (cnt[0] != cnt[1] || cnt[0] != cnt[2])
        return npuc_errf(err, NPUC_E_INVALID, "begin, end and strides have %d, %d and %d values", cnt[0], cnt[1],
                         cnt[2]);
    int32_t b[32], e[32], s[32];
    for (int32_t i = 0; i < cnt[0]; i++) {
        b[i] = (int32_t)v[0][i];
        e[i] = (int32_t)v[1][i];
        s[i] = (int32_t)v[2][i];
        if (s[i] == 0) return npuc_errf(err, NPUC_E_INVALID, "stride %d is zero", i);
    }
    const tfl_options *o = &n->op->opt;
    k_strided_slice_spec spec = {.n = cnt[0], .begin = b, .end = e, .strides = s, .begin_mask = o->begin_mask,
                                 .end_mask = o->end_mask, .ellipsis_mask = o->ellipsis_mask,
                                 .new_axis_mask = o->new_axis_mask, .shrink_axis_mask = o->shrink_axis_mask,
                                 .offset = o->offset};
    k_dims din;
    din.rank = in->rank;
    for (int32_t i = 0; i < in->rank; i++) din.d[i] = in->shape[i];
    int width = elem_width(in, "STRIDED_SLICE", err);
    if (!width) return NPUC_E_UNSUPPORTED;
    slice_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    k_dims dout;
    if (k_strided_slice_resolve(&din, &spec, &p->k, &dout) != K_OK)
        return npuc_errf(err, NPUC_E_INVALID,
                         "invalid strided slice (more than %d dims with new axes, or a shrunk axis index out of "
                         "range; masks begin %d end %d ellipsis %d new_axis %d shrink %d)",
                         SLICE_MAX_DIMS, o->begin_mask, o->end_mask, o->ellipsis_mask, o->new_axis_mask,
                         o->shrink_axis_mask);
    if ((rc = interp_check_out_shape(out, dout.d, dout.rank, err))) return rc;
    n->params = p;
    return NPUC_OK;
}

static int slice_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const slice_params *p = n->params;
    const uint32_t kind = p->width == 1 ? K_OP_SLICE_X8 : p->width == 2 ? K_OP_SLICE_X16 : K_OP_SLICE_X32;
    k_op_slice_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->p = p->k;
    return NPUC_OK;
}

/* ---- TRANSPOSE ------------------------------------------------------------------ */

typedef struct transpose_params {
    int width;
    k_transpose_params k;
} transpose_params;

static int transpose_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *pt = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    if (in->rank > K_MAX_DIMS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input '%s' has rank %d; TRANSPOSE supports up to %d dims",
                         interp_tname(in), in->rank, K_MAX_DIMS);
    int64_t v[K_MAX_DIMS];
    int32_t cnt = 0;
    if ((rc = interp_read_const_ints(pt, "perm", v, K_MAX_DIMS, &cnt, err))) return rc;
    if (pt->rank != 1 || cnt != in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "perm '%s' must be 1-D with %d values, has %d", interp_tname(pt), in->rank,
                         cnt);
    int width = elem_width(in, "TRANSPOSE", err);
    if (!width) return NPUC_E_UNSUPPORTED;
    transpose_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    p->k.rank = in->rank;
    int32_t shp[K_MAX_DIMS];
    uint32_t seen = 0;
    for (int32_t i = 0; i < in->rank; i++) {
        if (v[i] < 0 || v[i] >= in->rank || (seen >> v[i] & 1u))
            return npuc_errf(err, NPUC_E_INVALID, "perm '%s' is not a permutation of 0..%d (value %lld at %d)",
                             interp_tname(pt), in->rank - 1, (long long)v[i], i);
        seen |= 1u << v[i];
        p->k.perm[i] = (int32_t)v[i];
        p->k.in_dims[i] = in->shape[i];
        shp[i] = in->shape[v[i]];
    }
    if ((rc = interp_check_out_shape(out, shp, in->rank, err))) return rc;
    n->params = p;
    return NPUC_OK;
}

static int transpose_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const transpose_params *p = n->params;
    const uint32_t kind = p->width == 1 ? K_OP_TRANSPOSE_X8 : p->width == 2 ? K_OP_TRANSPOSE_X16 : K_OP_TRANSPOSE_X32;
    k_op_transpose_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->p = p->k;
    return NPUC_OK;
}

/* ---- RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR ------------------------------------ */

typedef struct resize_params {
    int width;
    graph_dtype dtype;
    k_resize_params k;
} resize_params;

static int resize_prepare(interp_node *n, npuc_err *err)
{
    const bool bilinear = n->op->opcode == TFL_OP_RESIZE_BILINEAR;
    const char *opname = bilinear ? "RESIZE_BILINEAR" : "RESIZE_NEAREST_NEIGHBOR";
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *sz = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if ((rc = interp_check_same_dtype(in, "input", out, "output", err))) return rc;
    if (in->rank != 4)
        return npuc_errf(err, NPUC_E_INVALID, "input '%s' must be 4-D (NHWC), has rank %d", interp_tname(in), in->rank);
    if (sz->dtype != GRAPH_I32 || sz->rank != 1 || sz->shape[0] != 2)
        return npuc_errf(err, NPUC_E_INVALID, "size tensor '%s' must be int32 with 2 values", interp_tname(sz));
    int64_t v[2];
    int32_t cnt = 0;
    if ((rc = interp_read_const_ints(sz, "size", v, 2, &cnt, err))) return rc;
    if (v[0] <= 0 || v[1] <= 0 || v[0] > INT32_MAX || v[1] > INT32_MAX)
        return npuc_errf(err, NPUC_E_INVALID, "size %lldx%lld must be positive", (long long)v[0], (long long)v[1]);
    const tfl_options *o = &n->op->opt;
    if (o->align_corners && o->half_pixel_centers)
        return npuc_errf(err, NPUC_E_INVALID, "half_pixel_centers and align_corners cannot both be set");
    if (in->shape[1] <= 0 || in->shape[2] <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "input '%s' has an empty spatial dim", interp_tname(in));
    /* TFLite computes source positions in float: beyond 2^24 they are
     * inexact and can round past int32. */
    if (in->shape[1] > (1 << 24) || in->shape[2] > (1 << 24) || v[0] > (1 << 24) || v[1] > (1 << 24))
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input '%s' %dx%d or size %lldx%lld exceeds 2^24", interp_tname(in),
                         in->shape[1], in->shape[2], (long long)v[0], (long long)v[1]);
    int32_t shp[4] = {in->shape[0], (int32_t)v[0], (int32_t)v[1], in->shape[3]};
    if ((rc = interp_check_out_shape(out, shp, 4, err))) return rc;
    int width = 0;
    if (bilinear) {
        if (in->dtype != GRAPH_F32 && in->dtype != GRAPH_I8 && in->dtype != GRAPH_I16)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s with %s input '%s' is not supported (float32, int8, int16)",
                             opname, graph_dtype_name(in->dtype), interp_tname(in));
    } else {
        width = elem_width(in, opname, err);
        if (!width) return NPUC_E_UNSUPPORTED;
    }
    resize_params *p = interp_node_alloc(n, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    p->width = width;
    p->dtype = in->dtype;
    p->k = (k_resize_params){.batches = in->shape[0], .in_h = in->shape[1], .in_w = in->shape[2],
                             .depth = in->shape[3], .out_h = (int32_t)v[0], .out_w = (int32_t)v[1],
                             .align_corners = o->align_corners, .half_pixel_centers = o->half_pixel_centers};
    n->params = p;
    return NPUC_OK;
}

static int resize_emit(interp_node *n, int rc, npuc_err *err)
{
    if (rc) return rc;
    const resize_params *p = n->params;
    uint32_t kind;
    if (n->op->opcode == TFL_OP_RESIZE_BILINEAR)
        kind = p->dtype == GRAPH_I8    ? K_OP_RESIZE_BILINEAR_S8
               : p->dtype == GRAPH_I16 ? K_OP_RESIZE_BILINEAR_S16
                                       : K_OP_RESIZE_BILINEAR_F32;
    else
        kind = p->width == 1 ? K_OP_RESIZE_NEAREST_X8 : p->width == 2 ? K_OP_RESIZE_NEAREST_X16 : K_OP_RESIZE_NEAREST_X32;
    k_op_resize_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *b = (k_op_resize_blob){.batches = p->k.batches, .in_h = p->k.in_h, .in_w = p->k.in_w, .depth = p->k.depth,
                            .out_h = p->k.out_h, .out_w = p->k.out_w, .align_corners = p->k.align_corners,
                            .half_pixel_centers = p->k.half_pixel_centers};
    return NPUC_OK;
}

/* ---- table ---------------------------------------------------------------------- */

static int reshape_op(interp_node *n, npuc_err *err) { return copy_emit(n, reshape_prepare(n, err), err); }
static int squeeze_op(interp_node *n, npuc_err *err) { return copy_emit(n, squeeze_prepare(n, err), err); }
static int expand_dims_op(interp_node *n, npuc_err *err) { return copy_emit(n, expand_dims_prepare(n, err), err); }
static int concat_op(interp_node *n, npuc_err *err) { return concat_emit(n, concat_prepare(n, err), err); }
static int pack_op(interp_node *n, npuc_err *err) { return concat_emit(n, pack_prepare(n, err), err); }
static int split_op(interp_node *n, npuc_err *err) { return split_emit(n, split_prepare(n, err), err); }
static int split_v_op(interp_node *n, npuc_err *err) { return split_emit(n, split_v_prepare(n, err), err); }
static int unpack_op(interp_node *n, npuc_err *err) { return split_emit(n, unpack_prepare(n, err), err); }
static int pad_op(interp_node *n, npuc_err *err) { return pad_emit(n, pad_prepare(n, err), err); }
static int slice_op(interp_node *n, npuc_err *err) { return slice_emit(n, slice_prepare(n, err), err); }
static int strided_slice_op(interp_node *n, npuc_err *err) { return slice_emit(n, strided_slice_prepare(n, err), err); }
static int transpose_op(interp_node *n, npuc_err *err) { return transpose_emit(n, transpose_prepare(n, err), err); }
static int resize_op(interp_node *n, npuc_err *err) { return resize_emit(n, resize_prepare(n, err), err); }

static const interp_op_impl shape_ops[] = {
    {TFL_OP_RESHAPE, reshape_op, NULL},
    {TFL_OP_SQUEEZE, squeeze_op, NULL},
    {TFL_OP_EXPAND_DIMS, expand_dims_op, NULL},
    {TFL_OP_CONCATENATION, concat_op, NULL},
    {TFL_OP_PACK, pack_op, NULL},
    {TFL_OP_SPLIT, split_op, NULL},
    {TFL_OP_SPLIT_V, split_v_op, NULL},
    {TFL_OP_UNPACK, unpack_op, NULL},
    {TFL_OP_PAD, pad_op, NULL},
    {TFL_OP_PADV2, pad_op, NULL},
    {TFL_OP_SLICE, slice_op, NULL},
    {TFL_OP_STRIDED_SLICE, strided_slice_op, NULL},
    {TFL_OP_TRANSPOSE, transpose_op, NULL},
    {TFL_OP_RESIZE_NEAREST_NEIGHBOR, resize_op, NULL},
    {TFL_OP_RESIZE_BILINEAR, resize_op, NULL},
};

INTERP_OPS_TABLE(interp_ops_shape, shape_ops)
