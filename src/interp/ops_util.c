/* Helpers shared by the op group files (ops_*.c): tensor names and shapes
 * in messages, input/output count checks, dtype and quantization checks,
 * constant tensor reads. Declared in interp_ops.h. */
#include "interp_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *interp_tname(const graph_tensor *t) { return (t->name && t->name[0]) ? t->name : "?"; }

const char *interp_dt(const graph_tensor *t) { return graph_dtype_name(t->dtype); }

const char *interp_shape_str(const int32_t *d, int32_t rank, char *buf, size_t size)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, size - n, "[");
    for (int32_t i = 0; i < rank && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, i ? ",%d" : "%d", (int)d[i]);
    if (n < size) snprintf(buf + n, size - n, "]");
    return buf;
}

int interp_check_out_shape(const graph_tensor *o, const int32_t *d, int32_t rank, npuc_err *err)
{
    bool same = o->rank == rank;
    for (int32_t i = 0; same && i < rank; i++) same = o->shape[i] == d[i];
    if (same) return NPUC_OK;
    char a[128], b[128];
    return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s but the op computes %s", interp_tname(o),
                     interp_shape_str(o->shape, o->rank, a, sizeof a), interp_shape_str(d, rank, b, sizeof b));
}

int interp_check_counts(const interp_node *n, int32_t min_in, int32_t max_in, int32_t n_out, npuc_err *err)
{
    if (n->op->n_in < min_in || n->op->n_in > max_in) {
        if (min_in == max_in)
            return npuc_errf(err, NPUC_E_INVALID, "expected %d input%s, got %d", min_in, min_in == 1 ? "" : "s",
                             n->op->n_in);
        return npuc_errf(err, NPUC_E_INVALID, "expected %d to %d inputs, got %d", min_in, max_in, n->op->n_in);
    }
    if (n_out >= 0 && n->op->n_out != n_out)
        return npuc_errf(err, NPUC_E_INVALID, "expected %d output%s, got %d", n_out, n_out == 1 ? "" : "s",
                         n->op->n_out);
    for (int32_t i = 0; i < min_in; i++)
        if (!interp_node_in_t(n, i)) return npuc_errf(err, NPUC_E_INVALID, "input %d is missing", i);
    for (int32_t i = 0; i < n->op->n_out; i++)
        if (!interp_node_out_t(n, i)) return npuc_errf(err, NPUC_E_INVALID, "output %d is missing", i);
    return NPUC_OK;
}

int interp_check_unary_io(const interp_node *n, const graph_tensor **in, const graph_tensor **out, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    if (rc) return rc;
    *in = interp_node_in_t(n, 0);
    *out = interp_node_out_t(n, 0);
    if (graph_tensor_elems(*in) > (size_t)INT32_MAX)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input tensor '%s' has too many elements", interp_tname(*in));
    return NPUC_OK;
}

int interp_check_same_dtype(const graph_tensor *a, const char *what_a, const graph_tensor *b, const char *what_b,
                            npuc_err *err)
{
    if (a->dtype == b->dtype) return NPUC_OK;
    return npuc_errf(err, NPUC_E_INVALID, "%s '%s' is %s but %s '%s' is %s", what_a, interp_tname(a), interp_dt(a),
                     what_b, interp_tname(b), interp_dt(b));
}

float interp_q_scale(const graph_tensor *t) { return t->q.n > 0 ? t->q.scale[0] : 0.0f; }

int32_t interp_q_zp(const graph_tensor *t) { return t->q.n > 0 ? (int32_t)t->q.zero_point[0] : 0; }

void interp_type_range(graph_dtype d, int64_t *lo, int64_t *hi)
{
    switch (d) {
    case GRAPH_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case GRAPH_U8: *lo = 0; *hi = UINT8_MAX; break;
    case GRAPH_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
    }
}

int interp_qparams(const graph_tensor *t, const char *what, float *scale, int32_t *zp, npuc_err *err)
{
    if (t->q.n < 1 || !t->q.scale || !t->q.zero_point)
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' (%s) has no quantization parameters", what,
                         interp_tname(t), interp_dt(t));
    if (t->q.n > 1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s tensor '%s' has per-channel quantization (%d scales); only per-tensor is supported",
                         what, interp_tname(t), (int)t->q.n);
    if (!(t->q.scale[0] > 0.0f) || !isnormal(t->q.scale[0]))
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' has invalid scale %g", what, interp_tname(t),
                         (double)t->q.scale[0]);
    int64_t lo, hi;
    interp_type_range(t->dtype, &lo, &hi);
    if (t->q.zero_point[0] < lo || t->q.zero_point[0] > hi)
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' zero point %lld is out of %s range", what,
                         interp_tname(t), (long long)t->q.zero_point[0], interp_dt(t));
    *scale = t->q.scale[0];
    *zp = (int32_t)t->q.zero_point[0];
    return NPUC_OK;
}

int interp_check_quant(const graph_tensor *t, const char *what, const char *outside, npuc_err *err)
{
    if (t->q.n != 1)
        return npuc_errf(err, t->q.n == 0 ? NPUC_E_INVALID : NPUC_E_UNSUPPORTED,
                         "%s '%s' (%s) must have per-tensor quantization (has %d scales)", what, interp_tname(t),
                         interp_dt(t), t->q.n);
    const float s = t->q.scale[0];
    if (!(s > 0.0f) || !isnormal(s))
        return npuc_errf(err, NPUC_E_INVALID, "%s '%s' has invalid scale %g", what, interp_tname(t), (double)s);
    const int64_t zp = t->q.zero_point[0];
    const int64_t lo = t->dtype == GRAPH_I8 ? INT8_MIN : INT16_MIN, hi = t->dtype == GRAPH_I8 ? INT8_MAX : INT16_MAX;
    if (zp < lo || zp > hi)
        return npuc_errf(err, NPUC_E_INVALID, "%s '%s' zero point %lld is %s the %s range", what, interp_tname(t),
                         (long long)zp, outside, interp_dt(t));
    return NPUC_OK;
}

int64_t interp_const_int(const graph_tensor *t, size_t i)
{
    const uint8_t *p = (const uint8_t *)t->data;
    switch (t->dtype) {
    case GRAPH_I8: { int8_t v; memcpy(&v, p + i, 1); return v; }
    case GRAPH_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case GRAPH_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    default: { int64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

int interp_read_const_ints(const graph_tensor *t, const char *what, int64_t *v, int32_t max, int32_t *count,
                           npuc_err *err)
{
    if (!t->data)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "non-constant %s tensor '%s' is not supported", what,
                         interp_tname(t));
    if (t->dtype != GRAPH_I32 && t->dtype != GRAPH_I64)
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' must be int32 or int64, not %s", what, interp_tname(t),
                         interp_dt(t));
    size_t ne = graph_tensor_elems(t);
    if (ne > (size_t)max)
        return npuc_errf(err, NPUC_E_INVALID, "%s tensor '%s' has %zu values, at most %d allowed", what,
                         interp_tname(t), ne, max);
    for (size_t i = 0; i < ne; i++) v[i] = interp_const_int(t, i);
    *count = (int32_t)ne;
    return NPUC_OK;
}

int64_t interp_prod(const int32_t *d, int32_t from, int32_t to)
{
    int64_t p = 1;
    for (int32_t i = from; i < to; i++) p *= d[i];
    return p;
}

bool interp_dims_equal(const k_dims *a, const k_dims *b)
{
    if (a->rank != b->rank) return false;
    for (int32_t i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i]) return false;
    return true;
}
