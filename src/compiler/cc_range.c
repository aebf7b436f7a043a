/* cc_range: compile-time value ranges of integer tensors (cc_range.h). */
#include "cc_range.h"

#include <string.h>

static const cc_range UNKNOWN = {INT64_MIN, INT64_MAX};

bool cc_range_of_dtype(graph_dtype d, cc_range *r)
{
    switch (d) {
    case GRAPH_BOOL: *r = (cc_range){0, 1}; return true;
    case GRAPH_I8: *r = (cc_range){INT8_MIN, INT8_MAX}; return true;
    case GRAPH_U8: *r = (cc_range){0, UINT8_MAX}; return true;
    case GRAPH_I16: *r = (cc_range){INT16_MIN, INT16_MAX}; return true;
    case GRAPH_U16: *r = (cc_range){0, UINT16_MAX}; return true;
    case GRAPH_I32: *r = (cc_range){INT32_MIN, INT32_MAX}; return true;
    case GRAPH_U32: *r = (cc_range){0, UINT32_MAX}; return true;
    default: *r = UNKNOWN; return false;
    }
}

static int64_t elem_at(const graph_tensor *t, size_t i)
{
    switch (t->dtype) {
    case GRAPH_BOOL:
    case GRAPH_U8: return ((const uint8_t *)t->data)[i];
    case GRAPH_I8: return ((const int8_t *)t->data)[i];
    case GRAPH_I16: return ((const int16_t *)t->data)[i];
    case GRAPH_U16: return ((const uint16_t *)t->data)[i];
    case GRAPH_I32: return ((const int32_t *)t->data)[i];
    default: return ((const uint32_t *)t->data)[i];   /* GRAPH_U32 */
    }
}

/* A constant's min / max (its dtype's range when empty or of another type). */
static cc_range const_range(const graph_tensor *t)
{
    cc_range r;
    if (!cc_range_of_dtype(t->dtype, &r)) return r;
    size_t n = graph_tensor_elems(t);
    if (!n || t->nbytes < n * graph_dtype_size(t->dtype)) return r;
    r.lo = INT64_MAX;
    r.hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t v = elem_at(t, i);
        if (v < r.lo) r.lo = v;
        if (v > r.hi) r.hi = v;
    }
    return r;
}

static cc_range join(cc_range a, cc_range b)
{
    return (cc_range){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t m = a < b ? a : b;
    m = m < c ? m : c;
    return m < d ? m : d;
}

static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

/* x / d rounded toward zero and toward -inf (d > 0): both non-decreasing
 * in x, so the ends of x's interval bound them. */
static int64_t div_lo(int64_t x, int64_t d)
{
    int64_t q = x / d;
    return (x % d != 0 && x < 0) ? q - 1 : q;    /* floor <= trunc */
}

static int64_t div_hi(int64_t x, int64_t d) { return x / d; }   /* trunc >= floor */

/* A constant int32 divisor whose elements are all positive: its interval. */
static bool positive_divisor(const graph_tensor *t, cc_range *r)
{
    if (!t->data || t->dtype != GRAPH_I32) return false;
    *r = const_range(t);
    return r->lo > 0 && r->hi <= INT32_MAX;
}

/* TFLite's CalculateActivationRange<int32_t>. */
static cc_range act_clamp(int32_t act)
{
    switch (act) {
    case TFL_ACT_RELU: return (cc_range){0, INT32_MAX};
    case TFL_ACT_RELU6: return (cc_range){0, 6};
    case TFL_ACT_RELU_N1_TO_1: return (cc_range){-1, 1};
    default: return (cc_range){INT32_MIN, INT32_MAX};
    }
}

bool cc_range_binary(int32_t opcode, cc_range x, cc_range y, cc_range *out)
{
    switch (opcode) {
    case TFL_OP_ADD: *out = (cc_range){x.lo + y.lo, x.hi + y.hi}; return true;
    case TFL_OP_SUB: *out = (cc_range){x.lo - y.hi, x.hi - y.lo}; return true;
    case TFL_OP_MUL:
        *out = (cc_range){min4(x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi),
                          max4(x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi)};
        return true;
    case TFL_OP_MINIMUM:
        *out = (cc_range){x.lo < y.lo ? x.lo : y.lo, x.hi < y.hi ? x.hi : y.hi};
        return true;
    case TFL_OP_MAXIMUM:
        *out = (cc_range){x.lo > y.lo ? x.lo : y.lo, x.hi > y.hi ? x.hi : y.hi};
        return true;
    default: return false;
    }
}

static bool plain_i32(const graph_tensor *t) { return t->dtype == GRAPH_I32 && t->q.n == 0; }

/* A constant's entry not worked out yet (cc_range_analyse_lazy): no
 * constant's interval is this one (a constant with elements has lo <= hi,
 * one without its type's range). */
static const cc_range PENDING = {INT64_MAX, INT64_MIN};

static bool pending(const cc_range *x) { return x->lo == PENDING.lo && x->hi == PENDING.hi; }

/* r[t], a constant's worked out now when it was pending. */
static const cc_range *at(const graph *g, cc_range *r, int32_t t)
{
    if (pending(&r[t])) r[t] = const_range(&g->tensors[t]);
    return &r[t];
}

#define R(t) (*at(g, r, (t)))

/* The exact result interval of an int32 binary op before any wrap or clamp;
 * false when the op is not modelled. */
static bool arith(const graph *g, const graph_op *op, cc_range *r, cc_range *out)
{
    if (op->n_in < 2 || op->n_out < 1 || op->in[0] < 0 || op->in[1] < 0) return false;
    const graph_tensor *a = &g->tensors[op->in[0]], *b = &g->tensors[op->in[1]];
    if (!plain_i32(a) || !plain_i32(b) || !plain_i32(&g->tensors[op->out[0]])) return false;
    cc_range x = R(op->in[0]), y = R(op->in[1]), d;
    switch (op->opcode) {
    case TFL_OP_DIV:
    case TFL_OP_FLOOR_DIV:
        if (!positive_divisor(b, &d)) return false;
        *out = (cc_range){min4(div_lo(x.lo, d.lo), div_lo(x.lo, d.hi), div_lo(x.hi, d.lo), div_lo(x.hi, d.hi)),
                          max4(div_hi(x.lo, d.lo), div_hi(x.lo, d.hi), div_hi(x.hi, d.lo), div_hi(x.hi, d.hi))};
        return true;
    default: return cc_range_binary(op->opcode, x, y, out);
    }
}

/* The interval of output k of op before it is fitted to the output type;
 * false: not modelled (the type's range). */
static bool op_range(const graph *g, const graph_op *op, int32_t k, cc_range *r, cc_range *out)
{
    int32_t i0 = op->n_in > 0 ? op->in[0] : -1;
    if (i0 < 0) return false;
    const graph_tensor *in = &g->tensors[i0];
    switch (op->opcode) {
    case TFL_OP_CAST:
        *out = R(i0);
        return out->lo != INT64_MIN || out->hi != INT64_MAX;
    case TFL_OP_ARG_MAX:
    case TFL_OP_ARG_MIN: {
        if (op->n_in < 2 || op->in[1] < 0 || in->rank < 1) return false;
        const graph_tensor *ax = &g->tensors[op->in[1]];
        int64_t ext = 0;
        if (ax->data && ax->dtype == GRAPH_I32 && graph_tensor_elems(ax) >= 1) {
            int32_t a = ((const int32_t *)ax->data)[0];
            if (a < 0) a += in->rank;
            if (a < 0 || a >= in->rank) return false;
            ext = in->shape[a];
        } else {
            for (int32_t d = 0; d < in->rank; d++) ext = in->shape[d] > ext ? in->shape[d] : ext;
        }
        if (ext < 1) return false;
        *out = (cc_range){0, ext - 1};
        return true;
    }
    case TFL_OP_SHAPE:
        *out = (cc_range){0, 0};
        for (int32_t d = 0; d < in->rank; d++) {
            if (!d || in->shape[d] < out->lo) out->lo = in->shape[d];
            if (!d || in->shape[d] > out->hi) out->hi = in->shape[d];
        }
        return true;
    case TFL_OP_ADD:
    case TFL_OP_SUB:
    case TFL_OP_MUL:
    case TFL_OP_MINIMUM:
    case TFL_OP_MAXIMUM:
    case TFL_OP_DIV:
    case TFL_OP_FLOOR_DIV: {
        cc_range v;
        if (!arith(g, op, r, &v)) return false;
        /* a result past int32 wraps (TFLite's int32 arithmetic): any value */
        if (v.lo < INT32_MIN || v.hi > INT32_MAX) v = (cc_range){INT32_MIN, INT32_MAX};
        if (op->opcode == TFL_OP_SUB || op->opcode == TFL_OP_MUL) {
            /* the fused clamp (TFLite Micro applies none to int32 ADD) */
            cc_range c = act_clamp(op->opt.activation);
            v.lo = v.lo < c.lo ? c.lo : v.lo > c.hi ? c.hi : v.lo;
            v.hi = v.hi < c.lo ? c.lo : v.hi > c.hi ? c.hi : v.hi;
        }
        *out = v;
        return true;
    }
    case TFL_OP_NEG:
        if (!plain_i32(in)) return false;
        *out = (cc_range){-R(i0).hi, -R(i0).lo};
        return true;
    case TFL_OP_ABS:
        if (!plain_i32(in)) return false;
        if (R(i0).lo >= 0) *out = R(i0);
        else if (R(i0).hi <= 0) *out = (cc_range){-R(i0).hi, -R(i0).lo};
        else *out = (cc_range){0, -R(i0).lo > R(i0).hi ? -R(i0).lo : R(i0).hi};
        return true;
    /* views and data movement: the values of input 0 */
    case TFL_OP_RESHAPE: case TFL_OP_SQUEEZE: case TFL_OP_EXPAND_DIMS: case TFL_OP_STRIDED_SLICE:
    case TFL_OP_SLICE: case TFL_OP_TRANSPOSE: case TFL_OP_GATHER: case TFL_OP_GATHER_ND: case TFL_OP_TILE:
    case TFL_OP_REVERSE_V2: case TFL_OP_BROADCAST_TO: case TFL_OP_UNPACK: case TFL_OP_SPLIT_V:
    case TFL_OP_MIRROR_PAD:
        if (in->dtype != g->tensors[op->out[k]].dtype) return false;
        *out = R(i0);
        return true;
    case TFL_OP_SPLIT:   /* (axis, value) */
        if (op->n_in < 2 || op->in[1] < 0 || g->tensors[op->in[1]].dtype != g->tensors[op->out[k]].dtype)
            return false;
        *out = R(op->in[1]);
        return true;
    case TFL_OP_PAD:
    case TFL_OP_PADV2: {
        if (in->dtype != g->tensors[op->out[k]].dtype || in->q.n) return false;
        cc_range pad = {0, 0};
        if (op->opcode == TFL_OP_PADV2) {
            if (op->n_in < 3 || op->in[2] < 0) return false;
            pad = R(op->in[2]);
        }
        *out = join(R(i0), pad);
        return true;
    }
    case TFL_OP_CONCATENATION:
    case TFL_OP_PACK:
        *out = R(i0);
        for (int32_t i = 0; i < op->n_in; i++) {
            if (op->in[i] < 0 || g->tensors[op->in[i]].dtype != g->tensors[op->out[k]].dtype) return false;
            *out = join(*out, R(op->in[i]));
        }
        return true;
    default: return false;
    }
}

cc_range cc_range_at(const graph *g, const cc_range *r, int32_t t)
{
    return pending(&r[t]) ? const_range(&g->tensors[t]) : r[t];
}

void cc_range_analyse_lazy(const graph *g, cc_range *r)
{
    for (int32_t t = 0; t < g->n_tensors; t++) {
        const graph_tensor *gt = &g->tensors[t];
        if (gt->data) r[t] = PENDING;
        else cc_range_of_dtype(gt->dtype, &r[t]);
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_out; k++) {
            int32_t t = op->out[k];
            if (t < 0 || g->tensors[t].data) continue;
            cc_range ty, v;
            if (!cc_range_of_dtype(g->tensors[t].dtype, &ty)) continue;
            if (g->tensors[t].is_variable) continue;
            if (!op_range(g, op, k, r, &v)) continue;   /* (constants read worked out there) */
            /* a value outside the type wraps (CAST) or saturates: any value */
            if (v.lo >= ty.lo && v.hi <= ty.hi && v.lo <= v.hi) r[t] = v;
        }
    }
}

void cc_range_analyse(const graph *g, cc_range *r)
{
    cc_range_analyse_lazy(g, r);
    for (int32_t t = 0; t < g->n_tensors; t++)
        if (pending(&r[t])) r[t] = const_range(&g->tensors[t]);
}
