/* Interpreter bindings of the reduce family: reductions and matrix products:
 * ARG_MAX, ARG_MIN, REDUCE_MAX, REDUCE_MIN, SUM, CUMSUM, L2_POOL_2D,
 * BATCH_MATMUL. Checks and parameters follow TFLite Micro (arg_min_max.cc,
 * reduce.cc / reduce_common.cc, cumsum.cc, l2_pool_2d.cc, batch_matmul.cc);
 * docs/kernels-reduce.md lists where npuc is stricter (checks TFLite Micro
 * leaves to debug asserts or to eval time are made at prepare). */
#include "interp_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- shared checks ------------------------------------------------------------ */

static int check_rank(const graph_tensor *t, const char *what, int32_t lo, int32_t hi, npuc_err *err)
{
    if (t->rank < lo || t->rank > hi)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' has rank %d; ranks %d..%d are supported", what, interp_tname(t),
                         t->rank, lo, hi);
    for (int32_t i = 0; i < t->rank; i++)
        if (t->shape[i] < 0 || t->shape[i] > K_OP_MAX_DIM)
            return npuc_errf(err, NPUC_E_INVALID, "%s '%s' has invalid dimension %d", what, interp_tname(t), t->shape[i]);
    return NPUC_OK;
}

static int unsupported_type(const graph_tensor *t, const char *what, const char *op, const char *types,
                            npuc_err *err)
{
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' has type %s; TFLite Micro's %s supports %s", what, interp_tname(t),
                     graph_dtype_name(t->dtype), op, types);
}

static int check_same_type(const graph_tensor *out, const graph_tensor *in, npuc_err *err)
{
    if (out->dtype != in->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "output '%s' type %s differs from input type %s", interp_tname(out),
                         graph_dtype_name(out->dtype), graph_dtype_name(in->dtype));
    return NPUC_OK;
}

/* The axis input: int32 (TFLite Micro rejects int64 axes). */
static int check_axis_tensor(const graph_tensor *ax, npuc_err *err)
{
    if (ax->dtype != GRAPH_I32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "axis tensor '%s' has type %s; TFLite Micro supports int32 only",
                         interp_tname(ax), graph_dtype_name(ax->dtype));
    if (ax->rank > 1)
        return npuc_errf(err, NPUC_E_INVALID, "axis tensor '%s' must be a scalar or 1-d (rank %d)", interp_tname(ax),
                         ax->rank);
    return NPUC_OK;
}

static int axis_value(const graph_tensor *ax, const graph_tensor *in, int32_t v, int32_t *out, npuc_err *err)
{
    int64_t a = v < 0 ? (int64_t)v + in->rank : v;
    if (a < 0 || a >= in->rank)
        return npuc_errf(err, NPUC_E_INVALID, "axis %d (tensor '%s') is out of range for the rank-%d input '%s'", v,
                         interp_tname(ax), in->rank, interp_tname(in));
    *out = (int32_t)a;
    return NPUC_OK;
}

static void to_dims(const graph_tensor *t, k_dims *d)
{
    memset(d, 0, sizeof *d);
    interp_dims(t, d);
}

/* ---- ARG_MAX / ARG_MIN -------------------------------------------------------- */

/* The output shape for axis a: the input's without dim a. */
static bool arg_shape_ok(const graph_tensor *in, const graph_tensor *out, int32_t a)
{
    if (out->rank != in->rank - 1) return false;
    for (int32_t i = 0, j = 0; i < in->rank; i++)
        if (i != a && in->shape[i] != out->shape[j++]) return false;
    return true;
}

static int arg_prepare(interp_node *n, bool is_max, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const char *op = is_max ? "ARG_MAX" : "ARG_MIN";
    const graph_tensor *in = interp_node_in_t(n, 0), *ax = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if (in->dtype != GRAPH_F32 && in->dtype != GRAPH_I8)
        return unsupported_type(in, "input", op, "float32 and int8", err);
    if ((rc = check_axis_tensor(ax, err))) return rc;
    if (out->dtype != GRAPH_I32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "output '%s' has type %s; TFLite Micro's %s supports int32 only",
                         interp_tname(out), graph_dtype_name(out->dtype), op);
    if ((rc = check_rank(in, "input", 1, K_MAX_DIMS, err)) || (rc = check_rank(out, "output", 0, K_MAX_DIMS, err)))
        return rc;
    const size_t n_axis = graph_tensor_elems(ax);
    if (n_axis < 1) return npuc_errf(err, NPUC_E_INVALID, "axis tensor '%s' is empty", interp_tname(ax));
    k_op_arg_blob b;
    memset(&b, 0, sizeof b);
    to_dims(in, &b.din);
    b.out_count = (int32_t)graph_tensor_elems(out);
    char s1[96], s2[96];
    interp_shape_str(in->shape, in->rank, s1, sizeof s1);
    interp_shape_str(out->shape, out->rank, s2, sizeof s2);
    if (ax->data) {
        if ((rc = axis_value(ax, in, ((const int32_t *)ax->data)[0], &b.axis, err))) return rc;
        if (!arg_shape_ok(in, out, b.axis))
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s; input %s reduced over axis %d needs %d dims",
                             interp_tname(out), s2, s1, b.axis, in->rank - 1);
        if (in->shape[b.axis] == 0 && b.out_count > 0)
            return npuc_errf(err, NPUC_E_INVALID, "input '%s' is empty along axis %d", interp_tname(in), b.axis);
    } else {
        /* The axis is read at run time; some axis must give the output shape. */
        if (n_axis > K_REDUCE_MAX_AXIS_ELEMS)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "non-constant axis tensor '%s' has %zu elements (at most %d)",
                             interp_tname(ax), n_axis, K_REDUCE_MAX_AXIS_ELEMS);
        bool any = false;
        for (int32_t a = 0; a < in->rank; a++) any = any || arg_shape_ok(in, out, a);
        if (!any)
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s: no axis of input %s gives it", interp_tname(out),
                             s2, s1);
        b.axis_dynamic = 1;
        b.n_axis = (int32_t)n_axis;
    }
    const uint32_t kind = in->dtype == GRAPH_F32 ? (is_max ? K_OP_ARG_MAX_F32 : K_OP_ARG_MIN_F32)
                                                 : (is_max ? K_OP_ARG_MAX_S8 : K_OP_ARG_MIN_S8);
    k_op_arg_blob *p = interp_node_blob(n, kind, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

static int argmax_prepare(interp_node *n, npuc_err *err) { return arg_prepare(n, true, err); }
static int argmin_prepare(interp_node *n, npuc_err *err) { return arg_prepare(n, false, err); }

/* ---- REDUCE_MAX / REDUCE_MIN / SUM ----------------------------------------------- */

enum { R_MAX, R_MIN, R_SUM };

static int reduce_prepare(interp_node *n, int which, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const char *op = which == R_MAX ? "REDUCE_MAX" : which == R_MIN ? "REDUCE_MIN" : "SUM";
    const graph_tensor *in = interp_node_in_t(n, 0), *ax = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    const bool sum = which == R_SUM;
    if (in->dtype != GRAPH_F32 && in->dtype != GRAPH_I8 && !(sum && in->dtype == GRAPH_I16))
        return unsupported_type(in, "input", op, sum ? "float32, int8 and int16" : "float32 and int8", err);
    if ((rc = check_same_type(out, in, err))) return rc;
    if ((rc = check_axis_tensor(ax, err))) return rc;
    if ((rc = check_rank(in, "input", 0, K_MAX_DIMS, err)) || (rc = check_rank(out, "output", 0, K_MAX_DIMS, err)))
        return rc;
    k_op_reduce_blob b;
    memset(&b, 0, sizeof b);
    to_dims(in, &b.din);
    b.out_count = (int32_t)graph_tensor_elems(out);
    const size_t n_axis = graph_tensor_elems(ax);
    if (ax->data) {
        const int32_t *axis = ax->data;
        bool red[K_MAX_DIMS] = {false};
        for (size_t i = 0; i < n_axis && in->rank > 0; i++) {
            int32_t a = 0;
            if ((rc = axis_value(ax, in, axis[i], &a, err))) return rc;
            if (!red[a]) b.axis[b.n_axis++] = a;
            red[a] = true;
        }
        /* The shape TFLite gives the output (keep_dims: reduced dims 1). */
        int32_t want[K_MAX_DIMS], wr = 0;
        size_t want_count = 1;
        for (int32_t i = 0; i < in->rank; i++) {
            if (!red[i]) {
                want[wr++] = in->shape[i];
                want_count *= (size_t)in->shape[i];
            } else if (n->op->opt.keep_dims) {
                want[wr++] = 1;
            }
        }
        bool same = wr == out->rank;
        for (int32_t i = 0; same && i < wr; i++) same = want[i] == out->shape[i];
        if (!same) {
            char s1[96], s2[96];
            interp_shape_str(out->shape, out->rank, s1, sizeof s1);
            interp_shape_str(want, wr, s2, sizeof s2);
            return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, expected %s (keep_dims %s)", interp_tname(out), s1,
                             s2, n->op->opt.keep_dims ? "true" : "false");
        }
        (void)want_count;
    } else {
        if (n_axis > K_REDUCE_MAX_AXIS_ELEMS)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "non-constant axis tensor '%s' has %zu elements (at most %d)",
                             interp_tname(ax), n_axis, K_REDUCE_MAX_AXIS_ELEMS);
        b.axis_dynamic = 1;
        b.n_axis = (int32_t)n_axis;
    }
    uint32_t kind;
    if (in->dtype == GRAPH_F32) {
        kind = which == R_MAX ? K_OP_REDUCE_MAX_F32 : which == R_MIN ? K_OP_REDUCE_MIN_F32 : K_OP_SUM_F32;
    } else {
        if ((rc = interp_check_quant(in, "input", "outside", err)) || (rc = interp_check_quant(out, "output", "outside", err))) return rc;
        if (!sum) {
            /* TFLite Micro (at eval): same scale and zero point in and out. */
            if ((double)in->q.scale[0] != (double)out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0])
                return npuc_errf(err, NPUC_E_UNSUPPORTED,
                                 "%s int8 needs the same quantization for input '%s' (%g, %lld) and output '%s' (%g, "
                                 "%lld) (TFLite Micro)",
                                 op, interp_tname(in), (double)in->q.scale[0], (long long)in->q.zero_point[0], interp_tname(out),
                                 (double)out->q.scale[0], (long long)out->q.zero_point[0]);
            kind = which == R_MAX ? K_OP_REDUCE_MAX_S8 : K_OP_REDUCE_MIN_S8;
        } else {
            const double real = (double)in->q.scale[0] / (double)out->q.scale[0];
            k_quantize_multiplier(real, &b.mult, &b.shift);
            if (b.shift < -31 || b.shift > 30)
                return npuc_errf(err, NPUC_E_UNSUPPORTED, "SUM rescale factor %g (input '%s' / output '%s') is out of range",
                                 real, interp_tname(in), interp_tname(out));
            b.in_zp = (int32_t)in->q.zero_point[0];
            b.out_zp = (int32_t)out->q.zero_point[0];
            kind = in->dtype == GRAPH_I8 ? K_OP_SUM_S8 : K_OP_SUM_S16;
        }
    }
    k_op_reduce_blob *p = interp_node_blob(n, kind, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

static int rmax_prepare(interp_node *n, npuc_err *err) { return reduce_prepare(n, R_MAX, err); }
static int rmin_prepare(interp_node *n, npuc_err *err) { return reduce_prepare(n, R_MIN, err); }
static int sum_prepare(interp_node *n, npuc_err *err) { return reduce_prepare(n, R_SUM, err); }

/* ---- CUMSUM ---------------------------------------------------------------------- */

static int cumsum_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *ax = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if (in->dtype != GRAPH_F32 && in->dtype != GRAPH_I8)
        return unsupported_type(in, "input", "CUMSUM", "float32 and int8", err);
    if ((rc = check_axis_tensor(ax, err))) return rc;
    if (graph_tensor_elems(ax) != 1)
        return npuc_errf(err, NPUC_E_INVALID, "axis tensor '%s' must hold one value (has %zu)", interp_tname(ax),
                         graph_tensor_elems(ax));
    if ((rc = check_same_type(out, in, err))) return rc;
    if ((rc = check_rank(in, "input", 1, K_MAX_DIMS, err))) return rc;
    bool same = out->rank == in->rank;
    for (int32_t i = 0; same && i < in->rank; i++) same = out->shape[i] == in->shape[i];
    if (!same) {
        char s1[96], s2[96];
        interp_shape_str(out->shape, out->rank, s1, sizeof s1);
        interp_shape_str(in->shape, in->rank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, input '%s' %s: they must match", interp_tname(out), s1,
                         interp_tname(in), s2);
    }
    k_op_cumsum_blob b;
    memset(&b, 0, sizeof b);
    to_dims(in, &b.din);
    if (ax->data) {
        if ((rc = axis_value(ax, in, ((const int32_t *)ax->data)[0], &b.axis, err))) return rc;
    } else {
        b.axis_dynamic = 1;
    }
    b.exclusive = n->op->opt.exclusive ? 1 : 0;
    b.reverse = n->op->opt.reverse ? 1 : 0;
    uint32_t kind = K_OP_CUMSUM_F32;
    if (in->dtype == GRAPH_I8) {
        if ((rc = interp_check_quant(in, "input", "outside", err)) || (rc = interp_check_quant(out, "output", "outside", err))) return rc;
        /* TFLite Micro's 8-bit general rescale: inputs scaled by 1/2 after a
         * left shift of 20, outputs by 2 * in_scale / (2^20 * out_scale). */
        b.left_shift = 20;
        b.in_offset = -(int32_t)in->q.zero_point[0];
        b.out_zp = (int32_t)out->q.zero_point[0];
        const double twice_max = 2.0 * (double)in->q.scale[0];
        const double real_in = (double)in->q.scale[0] / twice_max;
        const double real_out = twice_max / ((double)(1 << b.left_shift) * (double)out->q.scale[0]);
        if (!(real_out < 1.0))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "CUMSUM output rescale %g (input '%s' scale / output '%s' scale too large) must be below 1",
                             real_out, interp_tname(in), interp_tname(out));
        k_quantize_multiplier_lt1(real_in, &b.in_mult, &b.in_shift);
        k_quantize_multiplier_lt1(real_out, &b.out_mult, &b.out_shift);
        if (b.in_shift < -31 || b.in_shift > 0 || b.out_shift < -31 || b.out_shift > 0)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "CUMSUM rescale factor %g is out of range", real_out);
        kind = K_OP_CUMSUM_S8;
    }
    k_op_cumsum_blob *p = interp_node_blob(n, kind, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- L2_POOL_2D --------------------------------------------------------------------- */

static int l2pool_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if ((rc = check_rank(in, "input", 4, 4, err)) || (rc = check_rank(out, "output", 4, 4, err))) return rc;
    if ((rc = check_same_type(out, in, err))) return rc;
    if (in->dtype != GRAPH_F32) return unsupported_type(in, "input", "L2_POOL_2D", "float32 only", err);
    const tfl_options *o = &n->op->opt;
    if (o->stride_h < 1 || o->stride_w < 1 || o->filter_h < 1 || o->filter_w < 1 || o->stride_h > K_OP_MAX_DIM ||
        o->stride_w > K_OP_MAX_DIM || o->filter_h > K_OP_MAX_DIM || o->filter_w > K_OP_MAX_DIM)
        return npuc_errf(err, NPUC_E_INVALID, "invalid filter %dx%d or stride %dx%d", o->filter_h, o->filter_w,
                         o->stride_h, o->stride_w);
    if (o->padding != TFL_PAD_SAME && o->padding != TFL_PAD_VALID)
        return npuc_errf(err, NPUC_E_INVALID, "unknown padding %d", o->padding);
    const int32_t pad = o->padding == TFL_PAD_SAME ? K_PAD_SAME : K_PAD_VALID;
    k_op_l2pool_blob b;
    memset(&b, 0, sizeof b);
    b.batch = in->shape[0];
    b.in_h = in->shape[1];
    b.in_w = in->shape[2];
    b.depth = in->shape[3];
    b.filter_h = o->filter_h;
    b.filter_w = o->filter_w;
    b.stride_h = o->stride_h;
    b.stride_w = o->stride_w;
    b.out_h = k_out_size(pad, b.in_h, b.filter_h, b.stride_h, 1);
    b.out_w = k_out_size(pad, b.in_w, b.filter_w, b.stride_w, 1);
    if (b.out_h < 0) b.out_h = 0;
    if (b.out_w < 0) b.out_w = 0;
    b.pad_h = k_pad_before(pad, b.in_h, b.filter_h, b.stride_h, 1, b.out_h, NULL);
    b.pad_w = k_pad_before(pad, b.in_w, b.filter_w, b.stride_w, 1, b.out_w, NULL);
    const int32_t want[4] = {b.batch, b.out_h, b.out_w, b.depth};
    bool same = true;
    for (int32_t i = 0; i < 4; i++) same = same && out->shape[i] == want[i];
    if (!same) {
        char s1[96], s2[96];
        interp_shape_str(out->shape, 4, s1, sizeof s1);
        interp_shape_str(want, 4, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, expected %s", interp_tname(out), s1, s2);
    }
    k_activation_range_f(o->activation, &b.act_min, &b.act_max);
    k_op_l2pool_blob *p = interp_node_blob(n, K_OP_L2_POOL_F32, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- BATCH_MATMUL ------------------------------------------------------------------- */

static int bmm_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *l = interp_node_in_t(n, 0), *r = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    const char *types = "float32, int8 and int16";
    if (l->dtype != GRAPH_F32 && l->dtype != GRAPH_I8 && l->dtype != GRAPH_I16)
        return unsupported_type(l, "lhs", "BATCH_MATMUL", types, err);
    if (r->dtype != GRAPH_F32 && r->dtype != GRAPH_I8 && r->dtype != GRAPH_I16)
        return unsupported_type(r, "rhs", "BATCH_MATMUL", types, err);
    if (l->dtype != r->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "lhs '%s' (%s) and rhs '%s' (%s) differ in type (TFLite Micro has no hybrid BATCH_MATMUL)",
                         interp_tname(l), graph_dtype_name(l->dtype), interp_tname(r), graph_dtype_name(r->dtype));
    if ((rc = check_same_type(out, l, err))) return rc;
    if ((rc = check_rank(l, "lhs", 2, 5, err)) || (rc = check_rank(r, "rhs", 2, 5, err)) ||
        (rc = check_rank(out, "output", 0, K_MAX_DIMS, err)))
        return rc;
    const bool adj_x = n->op->opt.adj_x, adj_y = n->op->opt.adj_y;
    const int32_t lr = l->rank, rr = r->rank, orank = lr > rr ? lr : rr;
    int32_t want[5];
    size_t want_count = 1;
    for (int32_t i = 0; i < orank - 2; i++) {
        const int32_t li = lr - orank + i, ri = rr - orank + i;
        const int32_t ld = li >= 0 ? l->shape[li] : 1, rd = ri >= 0 ? r->shape[ri] : 1;
        if (ld != rd && ld != 1 && rd != 1)
            return npuc_errf(err, NPUC_E_INVALID, "batch dims of lhs '%s' (%d) and rhs '%s' (%d) do not broadcast",
                             interp_tname(l), ld, interp_tname(r), rd);
        want[i] = ld == 1 ? rd : ld;
    }
    const int32_t A = adj_x ? l->shape[lr - 1] : l->shape[lr - 2], K = adj_x ? l->shape[lr - 2] : l->shape[lr - 1];
    const int32_t Kr = adj_y ? r->shape[rr - 1] : r->shape[rr - 2], C = adj_y ? r->shape[rr - 2] : r->shape[rr - 1];
    if (K != Kr)
        return npuc_errf(err, NPUC_E_INVALID, "lhs '%s' depth %d (adj_x %d) differs from rhs '%s' depth %d (adj_y %d)",
                         interp_tname(l), K, adj_x, interp_tname(r), Kr, adj_y);
    want[orank - 2] = A;
    want[orank - 1] = C;
    for (int32_t i = 0; i < orank; i++) want_count *= (size_t)want[i];
    /* TFLite Micro rewrites the output dims and requires the same element
     * count and a rank of at least the result's. */
    if (graph_tensor_elems(out) != want_count || out->rank < orank) {
        char s1[96], s2[96];
        interp_shape_str(out->shape, out->rank, s1, sizeof s1);
        interp_shape_str(want, orank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, expected %s", interp_tname(out), s1, s2);
    }
    if (want_count > INT32_MAX) return npuc_errf(err, NPUC_E_UNSUPPORTED, "output '%s' is too large", interp_tname(out));
    k_op_bmm_blob b;
    memset(&b, 0, sizeof b);
    to_dims(l, &b.lhs);
    to_dims(r, &b.rhs);
    b.adj_x = adj_x;
    b.adj_y = adj_y;
    b.out_count = (int32_t)want_count;
    uint32_t kind = K_OP_BATCH_MATMUL_F32;
    if (l->dtype != GRAPH_F32) {
        if ((rc = interp_check_quant(l, "lhs", "outside", err)) || (rc = interp_check_quant(r, "rhs", "outside", err)) ||
            (rc = interp_check_quant(out, "output", "outside", err)))
            return rc;
        b.lhs_zp = (int32_t)l->q.zero_point[0];
        b.rhs_zp = (int32_t)r->q.zero_point[0];
        b.out_zp = (int32_t)out->q.zero_point[0];
        if (l->dtype == GRAPH_I16 && (b.lhs_zp || b.rhs_zp || b.out_zp))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "int16 BATCH_MATMUL needs zero points 0 (lhs '%s' %d, rhs '%s' %d, output '%s' %d)",
                             interp_tname(l), b.lhs_zp, interp_tname(r), b.rhs_zp, interp_tname(out), b.out_zp);
        /* GetQuantizedConvolutionMultipler: the scale product in float. */
        const float prod = l->q.scale[0] * r->q.scale[0];
        const double real = (double)prod / (double)out->q.scale[0];
        k_quantize_multiplier(real, &b.mult, &b.shift);
        const bool s16 = l->dtype == GRAPH_I16;
        if (s16 ? (b.shift < -47 || b.shift > 14) : (b.shift < -31 || b.shift > 30))
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "BATCH_MATMUL rescale factor %g is out of range", real);
        kind = s16 ? K_OP_BATCH_MATMUL_S16 : K_OP_BATCH_MATMUL_S8;
    }
    k_op_bmm_blob *p = interp_node_blob(n, kind, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- table --------------------------------------------------------------------------- */

static const interp_op_impl impls[] = {
    {TFL_OP_ARG_MAX, argmax_prepare, NULL},
    {TFL_OP_ARG_MIN, argmin_prepare, NULL},
    {TFL_OP_REDUCE_MAX, rmax_prepare, NULL},
    {TFL_OP_REDUCE_MIN, rmin_prepare, NULL},
    {TFL_OP_SUM, sum_prepare, NULL},
    {TFL_OP_CUMSUM, cumsum_prepare, NULL},
    {TFL_OP_L2_POOL_2D, l2pool_prepare, NULL},
    {TFL_OP_BATCH_MATMUL, bmm_prepare, NULL},
};

INTERP_OPS_TABLE(interp_ops_reduce, impls)
