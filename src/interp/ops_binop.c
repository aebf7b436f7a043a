/* Interpreter bindings of the binop family: binary ops beyond ADD/SUB/MUL/MIN/MAX: DIV, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE, comparisons, LOGICAL_AND/OR, PRELU, SELECT_V2, ADD_N.
 *
 * Types and parameters follow TFLite Micro's kernels (div.cc, floor_div.cc,
 * floor_mod.cc, squared_difference.cc, comparisons.cc, logical.cc,
 * prelu_common.cc, select.cc, add_n.cc), including where its multipliers
 * are computed in float rather than double. docs/kernels-binop.md. */
#include "interp_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_rank(const graph_tensor *t, npuc_err *err)
{
    if (t->rank > K_MAX_DIMS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor '%s' has rank %d; at most %d dims are supported", interp_tname(t),
                         t->rank, K_MAX_DIMS);
    return NPUC_OK;
}

/* Per-tensor quantization of a, b and (when not NULL) c. */
static int check_quants(const graph_tensor *a, const graph_tensor *b, const graph_tensor *c, npuc_err *err)
{
    int rc;
    if ((rc = interp_check_quant(a, "tensor", "out of", err)) || (rc = interp_check_quant(b, "tensor", "out of", err)))
        return rc;
    return c ? interp_check_quant(c, "tensor", "out of", err) : NPUC_OK;
}

static int type_error(const char *op, const graph_tensor *t, const char *supported, npuc_err *err)
{
    return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s does not support %s tensor '%s' (TFLite Micro supports %s)", op,
                     graph_dtype_name(t->dtype), interp_tname(t), supported);
}

static int same_type(const graph_tensor *a, const graph_tensor *b, npuc_err *err)
{
    if (a->dtype != b->dtype)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor '%s' is %s but '%s' is %s (types must match)", interp_tname(a),
                         graph_dtype_name(a->dtype), interp_tname(b), graph_dtype_name(b->dtype));
    return NPUC_OK;
}

/* Fills d[0..n_in) and dout; the output must be the broadcast of the
 * inputs. TFLite Micro broadcasts only up to max_rank dims (4 for its
 * *4DSlow kernels); inputs of identical shapes run flat at any rank
 * (same_any_rank) where its kernel has that path. */
static int shapes(interp_node *n, int32_t n_in, k_dims *d, k_dims *dout, int32_t max_rank, bool same_any_rank,
                  npuc_err *err)
{
    int rc;
    for (int32_t i = 0; i < n_in; i++) {
        const graph_tensor *t = interp_node_in_t(n, i);
        if ((rc = check_rank(t, err))) return rc;
        interp_dims(t, &d[i]);
    }
    const graph_tensor *o = interp_node_out_t(n, 0);
    if ((rc = check_rank(o, err))) return rc;
    interp_dims(o, dout);
    k_dims want = d[0], next;
    char s1[96], s2[96];
    bool same = true;
    for (int32_t i = 1; i < n_in; i++) {
        same = same && interp_dims_equal(&d[0], &d[i]);
        if (k_broadcast_shape(&want, &d[i], &next) != K_OK) {
            interp_shape_str(want.d, want.rank, s1, sizeof s1);
            interp_shape_str(d[i].d, d[i].rank, s2, sizeof s2);
            return npuc_errf(err, NPUC_E_INVALID, "input shapes %s and %s (input %d) cannot be broadcast together", s1,
                             s2, i);
        }
        want = next;
    }
    if (!interp_dims_equal(&want, dout)) {
        interp_shape_str(want.d, want.rank, s1, sizeof s1);
        interp_shape_str(dout->d, dout->rank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s but the broadcast of the inputs is %s",
                         interp_tname(o), s2, s1);
    }
    if (!(same && same_any_rank) && dout->rank > max_rank)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "broadcasting rank-%d shapes is not supported (TFLite Micro broadcasts at most %d dims)",
                         dout->rank, max_rank);
    return NPUC_OK;
}

/* The two inputs' and the output's geometry of a binary op into p. */
static int binary_shapes(interp_node *n, k_op_binop_blob *p, int32_t max_rank, bool same_any_rank, npuc_err *err)
{
    k_dims d[2];
    int rc = shapes(n, 2, d, &p->dout, max_rank, same_any_rank, err);
    if (rc) return rc;
    p->d1 = d[0];
    p->d2 = d[1];
    p->n_in = 2;
    return NPUC_OK;
}

static int check_act(int32_t act, npuc_err *err)
{
    if (act < TFL_ACT_NONE || act > TFL_ACT_RELU6)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "fused activation %d is not supported", act);
    return NPUC_OK;
}

static int unquantized(const graph_tensor *t, npuc_err *err)
{
    if (t->q.n != 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "quantized %s tensor '%s' is not supported (only plain %s)",
                         graph_dtype_name(t->dtype), interp_tname(t), graph_dtype_name(t->dtype));
    return NPUC_OK;
}

static k_op_binop_blob *emit(interp_node *n, uint32_t kind, const k_op_binop_blob *p, npuc_err *err)
{
    k_op_binop_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) {
        npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        return NULL;
    }
    *b = *p;
    return b;
}

#define EMIT(n, kind, p, err) (emit((n), (kind), (p), (err)) ? NPUC_OK : NPUC_E_NOMEM)

/* QuantizeMultiplierSmallerThanOneExp: TFLite Micro checks 0 < real < 1. */
static int mult_lt1(double real, int32_t *m, int32_t *s, const char *what, npuc_err *err)
{
    if (!(real > 0.0 && real < 1.0))
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s %g must be in (0, 1) (TFLite Micro's limit)", what, real);
    k_quantize_multiplier_lt1(real, m, s);
    if (*s > 0 || *s < -31) return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s %g is out of range", what, real);
    return NPUC_OK;
}

static int mult_any(double real, int32_t *m, int32_t *s, const char *what, npuc_err *err)
{
    k_quantize_multiplier(real, m, s);
    if (*s < -31 || *s > 30) return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s %g is out of range", what, real);
    return NPUC_OK;
}

/* ---- DIV ----------------------------------------------------------------------------- */

static int div_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if ((rc = same_type(a, b, err)) || (rc = same_type(a, o, err))) return rc;
    /* div.h broadcasts through BroadcastBinaryOpSimple (up to 8 dims). */
    if ((rc = binary_shapes(n, &p, K_MAX_DIMS, true, err))) return rc;
    const int32_t act = n->op->opt.activation;
    if ((rc = check_act(act, err))) return rc;
    switch (a->dtype) {
    case GRAPH_F32:
        k_activation_range_f(act, &p.act_min_f, &p.act_max_f);
        return EMIT(n, K_OP_DIV_F32, &p, err);
    case GRAPH_I32:
        if ((rc = unquantized(a, err)) || (rc = unquantized(b, err))) return rc;
        p.act_min = act == TFL_ACT_RELU || act == TFL_ACT_RELU6 ? 0 : act == TFL_ACT_RELU_N1_TO_1 ? -1 : INT32_MIN;
        p.act_max = act == TFL_ACT_RELU6 ? 6 : act == TFL_ACT_RELU_N1_TO_1 ? 1 : INT32_MAX;
        return EMIT(n, K_OP_DIV_S32, &p, err);
    case GRAPH_I8: {
        if ((rc = check_quants(a, b, o, err))) return rc;
        /* div.cc: the ratio is formed in float, then widened. */
        const float r = a->q.scale[0] / (b->q.scale[0] * o->q.scale[0]);
        k_quantize_multiplier((double)r, &p.out_mult, &p.out_shift);
        if (p.out_shift < -31 || p.out_shift > 31)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "DIV rescale factor %g is out of range", (double)r);
        p.in1_offset = -(int32_t)a->q.zero_point[0];
        p.in2_offset = -(int32_t)b->q.zero_point[0];
        p.out_offset = (int32_t)o->q.zero_point[0];
        k_activation_range_q(act, o->q.scale[0], p.out_offset, INT8_MIN, INT8_MAX, &p.act_min, &p.act_max);
        return EMIT(n, K_OP_DIV_S8, &p, err);
    }
    default: return type_error("DIV", a, "float32, int32, int8", err);
    }
}

/* ---- FLOOR_DIV / FLOOR_MOD -------------------------------------------------------------- */

static int floor_prepare(interp_node *n, bool is_mod, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if ((rc = same_type(a, b, err)) || (rc = same_type(a, o, err))) return rc;
    /* int32: TFLite's forms, which TFLite Micro lacks (docs/kernels-binop.md). */
    if (a->dtype != GRAPH_F32 && a->dtype != GRAPH_I32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "%s does not support %s tensor '%s' (float32, as TFLite Micro, and int32, as TFLite)",
                         is_mod ? "FLOOR_MOD" : "FLOOR_DIV", graph_dtype_name(a->dtype), interp_tname(a));
    if ((rc = binary_shapes(n, &p, 4, true, err))) return rc;
    if (a->dtype == GRAPH_I32) return EMIT(n, is_mod ? K_OP_FLOOR_MOD_S32 : K_OP_FLOOR_DIV_S32, &p, err);
    return EMIT(n, is_mod ? K_OP_FLOOR_MOD_F32 : K_OP_FLOOR_DIV_F32, &p, err);
}

static int floor_div_prepare(interp_node *n, npuc_err *err) { return floor_prepare(n, false, err); }
static int floor_mod_prepare(interp_node *n, npuc_err *err) { return floor_prepare(n, true, err); }

/* ---- SQUARED_DIFFERENCE ------------------------------------------------------------------ */

static int sqdiff_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if ((rc = same_type(a, b, err)) || (rc = same_type(a, o, err))) return rc;
    if ((rc = binary_shapes(n, &p, 4, true, err))) return rc;
    switch (a->dtype) {
    case GRAPH_F32: return EMIT(n, K_OP_SQDIFF_F32, &p, err);
    case GRAPH_I32: return EMIT(n, K_OP_SQDIFF_S32, &p, err);
    case GRAPH_I8:
    case GRAPH_I16: {
        const bool s16 = a->dtype == GRAPH_I16;
        if ((rc = check_quants(a, b, o, err))) return rc;
        if (s16 && (a->q.zero_point[0] || b->q.zero_point[0] || o->q.zero_point[0]))
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "int16 SQUARED_DIFFERENCE needs zero points 0 (got %lld, %lld, %lld)",
                             (long long)a->q.zero_point[0], (long long)b->q.zero_point[0],
                             (long long)o->q.zero_point[0]);
        p.left_shift = s16 ? 0 : 7;
        p.in1_offset = -(int32_t)a->q.zero_point[0];
        p.in2_offset = -(int32_t)b->q.zero_point[0];
        p.out_offset = (int32_t)o->q.zero_point[0];
        const float s1 = a->q.scale[0], s2 = b->q.scale[0];
        const double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
        /* squared_difference.cc: (1 << 2 * left_shift) * output scale in float. */
        const float den = (float)(1 << (2 * p.left_shift)) * o->q.scale[0];
        if ((rc = mult_lt1((double)s1 / twice_max, &p.in1_mult, &p.in1_shift, "input 1 rescale", err)) ||
            (rc = mult_lt1((double)s2 / twice_max, &p.in2_mult, &p.in2_shift, "input 2 rescale", err)) ||
            (rc = mult_any(twice_max * twice_max / (double)den, &p.out_mult, &p.out_shift, "output rescale", err)))
            return rc;
        p.act_min = s16 ? INT16_MIN : INT8_MIN;
        p.act_max = s16 ? INT16_MAX : INT8_MAX;
        return EMIT(n, s16 ? K_OP_SQDIFF_S16 : K_OP_SQDIFF_S8, &p, err);
    }
    default: return type_error("SQUARED_DIFFERENCE", a, "float32, int32, int8, int16", err);
    }
}

/* ---- comparisons ------------------------------------------------------------------------- */

static const char *cmp_name(int32_t c)
{
    static const char *names[] = {"EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL"};
    return names[c];
}

static int cmp_prepare(interp_node *n, int32_t cmp, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if ((rc = same_type(a, b, err))) return rc;
    if (o->dtype != GRAPH_BOOL)
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' must be bool (is %s)", interp_tname(o), graph_dtype_name(o->dtype));
    if ((rc = binary_shapes(n, &p, 4, true, err))) return rc;
    p.cmp = cmp;
    const bool eq = cmp == K_CMP_EQ || cmp == K_CMP_NE;
    const char *supported = eq ? "bool, float32, int32, int64, int8"
                               : cmp == K_CMP_GT ? "float32, int32, int64, int8, int16" : "float32, int32, int64, int8";
    switch (a->dtype) {
    case GRAPH_BOOL:
        if (!eq) return type_error(cmp_name(cmp), a, supported, err);
        return EMIT(n, K_OP_CMP_BOOL, &p, err);
    case GRAPH_F32: return EMIT(n, K_OP_CMP_F32, &p, err);
    case GRAPH_I32: return EMIT(n, K_OP_CMP_S32, &p, err);
    case GRAPH_I64: return EMIT(n, K_OP_CMP_S64, &p, err);
    case GRAPH_I16:
        if (cmp != K_CMP_GT) return type_error(cmp_name(cmp), a, supported, err);
        /* fall through */
    case GRAPH_I8: {
        if ((rc = check_quants(a, b, NULL, err))) return rc;
        /* comparisons.cc: left shift 8, each side scaled by its own scale. */
        p.left_shift = 8;
        p.in1_offset = -(int32_t)a->q.zero_point[0];
        p.in2_offset = -(int32_t)b->q.zero_point[0];
        if ((rc = mult_lt1((double)a->q.scale[0], &p.in1_mult, &p.in1_shift, "input 1 scale", err)) ||
            (rc = mult_lt1((double)b->q.scale[0], &p.in2_mult, &p.in2_shift, "input 2 scale", err)))
            return rc;
        return EMIT(n, a->dtype == GRAPH_I8 ? K_OP_CMP_S8 : K_OP_CMP_S16, &p, err);
    }
    default: return type_error(cmp_name(cmp), a, supported, err);
    }
}

static int equal_prepare(interp_node *n, npuc_err *err) { return cmp_prepare(n, K_CMP_EQ, err); }
static int not_equal_prepare(interp_node *n, npuc_err *err) { return cmp_prepare(n, K_CMP_NE, err); }
static int greater_prepare(interp_node *n, npuc_err *err) { return cmp_prepare(n, K_CMP_GT, err); }
static int greater_equal_prepare(interp_node *n, npuc_err *err) { return cmp_prepare(n, K_CMP_GE, err); }
static int less_prepare(interp_node *n, npuc_err *err) { return cmp_prepare(n, K_CMP_LT, err); }
static int less_equal_prepare(interp_node *n, npuc_err *err) { return cmp_prepare(n, K_CMP_LE, err); }

/* ---- LOGICAL_AND / LOGICAL_OR ---------------------------------------------------------- */

static int logical_prepare(interp_node *n, bool is_or, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *b = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    for (int32_t i = 0; i < 3; i++) {
        const graph_tensor *t = i == 0 ? a : i == 1 ? b : o;
        if (t->dtype != GRAPH_BOOL) return type_error(is_or ? "LOGICAL_OR" : "LOGICAL_AND", t, "bool only", err);
    }
    if ((rc = binary_shapes(n, &p, 4, true, err))) return rc;
    return EMIT(n, is_or ? K_OP_LOGICAL_OR : K_OP_LOGICAL_AND, &p, err);
}

static int logical_and_prepare(interp_node *n, npuc_err *err) { return logical_prepare(n, false, err); }
static int logical_or_prepare(interp_node *n, npuc_err *err) { return logical_prepare(n, true, err); }

/* ---- PRELU ------------------------------------------------------------------------------- */

static int prelu_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    if (rc) return rc;
    const graph_tensor *in = interp_node_in_t(n, 0), *al = interp_node_in_t(n, 1), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if ((rc = same_type(in, o, err))) return rc;
    /* prelu_common.cc: float always goes through 4-d views (even equal
     * shapes); int8/int16 through BroadcastBinaryOpSimple (up to 8 dims). */
    if ((rc = binary_shapes(n, &p, in->dtype == GRAPH_F32 ? 4 : K_MAX_DIMS, false, err))) return rc;
    switch (in->dtype) {
    case GRAPH_F32:
        if ((rc = same_type(in, al, err))) return rc;
        return EMIT(n, K_OP_PRELU_F32, &p, err);
    case GRAPH_I8:
    case GRAPH_I16: {
        if (al->dtype != GRAPH_I8)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "alpha '%s' must be int8 for %s input (is %s)", interp_tname(al),
                             graph_dtype_name(in->dtype), graph_dtype_name(al->dtype));
        if ((rc = check_quants(in, al, o, err))) return rc;
        const double si = in->q.scale[0], sa = al->q.scale[0], so = o->q.scale[0];
        if ((rc = mult_any(si / so, &p.out_mult, &p.out_shift, "PRELU positive rescale", err)) ||
            (rc = mult_any(si * sa / so, &p.out_mult2, &p.out_shift2, "PRELU negative rescale", err)))
            return rc;
        p.in1_offset = -(int32_t)in->q.zero_point[0];
        p.in2_offset = -(int32_t)al->q.zero_point[0];
        p.out_offset = (int32_t)o->q.zero_point[0];
        const bool s16 = in->dtype == GRAPH_I16;
        p.act_min = s16 ? INT16_MIN : INT8_MIN;
        p.act_max = s16 ? INT16_MAX : INT8_MAX;
        return EMIT(n, s16 ? K_OP_PRELU_S16 : K_OP_PRELU_S8, &p, err);
    }
    default: return type_error("PRELU", in, "float32, int8, int16 (int8 alpha)", err);
    }
}

/* ---- SELECT_V2 --------------------------------------------------------------------------- */

static int select_prepare(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 3, 3, 1, err);
    if (rc) return rc;
    const graph_tensor *c = interp_node_in_t(n, 0), *x = interp_node_in_t(n, 1), *y = interp_node_in_t(n, 2);
    const graph_tensor *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if (c->dtype != GRAPH_BOOL)
        return npuc_errf(err, NPUC_E_INVALID, "condition '%s' must be bool (is %s)", interp_tname(c), graph_dtype_name(c->dtype));
    if ((rc = same_type(x, y, err)) || (rc = same_type(x, o, err))) return rc;
    uint32_t kind;
    switch (x->dtype) {
    case GRAPH_F32: kind = K_OP_SELECT_X32; break;
    case GRAPH_I8: kind = K_OP_SELECT_X8; break;
    case GRAPH_I16: kind = K_OP_SELECT_X16; break;
    default: return type_error("SELECT_V2", x, "float32, int8, int16", err);
    }
    p.n_in = 3;
    /* select.cc: four one-element tensors are a scalar select, whatever
     * their shapes. */
    if (graph_tensor_elems(c) == 1 && graph_tensor_elems(x) == 1 && graph_tensor_elems(y) == 1 &&
        graph_tensor_elems(o) == 1) {
        if ((rc = check_rank(o, err))) return rc;
        return EMIT(n, kind, &p, err);   /* all shapes rank 0 */
    }
    k_dims d[3];
    /* select.h: BroadcastSelect5DSlow handles up to 8 dims. */
    if ((rc = shapes(n, 3, d, &p.dout, K_MAX_DIMS, true, err))) return rc;
    p.d1 = d[0];
    p.d2 = d[1];
    p.d3 = d[2];
    return EMIT(n, kind, &p, err);
}

/* ---- ADD_N -------------------------------------------------------------------------------- */

static int add_n_prepare(interp_node *n, npuc_err *err)
{
    const int32_t n_in = n->op->n_in;
    if (n_in < 2) return npuc_errf(err, NPUC_E_INVALID, "ADD_N needs at least 2 inputs, got %d", n_in);
    if (n_in > 1024) return npuc_errf(err, NPUC_E_UNSUPPORTED, "ADD_N with %d inputs is not supported (at most 1024)", n_in);
    int rc = interp_check_counts(n, n_in, n_in, 1, err);
    if (rc) return rc;
    const graph_tensor *a = interp_node_in_t(n, 0), *o = interp_node_out_t(n, 0);
    k_op_binop_blob p = {0};
    if ((rc = check_rank(a, err)) || (rc = check_rank(o, err)) || (rc = same_type(a, o, err))) return rc;
    interp_dims(a, &p.d1);
    interp_dims(o, &p.dout);
    for (int32_t i = 1; i < n_in; i++) {
        const graph_tensor *t = interp_node_in_t(n, i);
        k_dims dt;
        if ((rc = check_rank(t, err)) || (rc = same_type(a, t, err))) return rc;
        interp_dims(t, &dt);
        if (!interp_dims_equal(&dt, &p.d1)) {
            char s1[96], s2[96];
            interp_shape_str(dt.d, dt.rank, s1, sizeof s1);
            interp_shape_str(p.d1.d, p.d1.rank, s2, sizeof s2);
            return npuc_errf(err, NPUC_E_INVALID, "input %d '%s' has shape %s, input 0 has %s (ADD_N does not broadcast)",
                             i, interp_tname(t), s1, s2);
        }
    }
    if (!interp_dims_equal(&p.d1, &p.dout)) {
        char s1[96], s2[96];
        interp_shape_str(p.dout.d, p.dout.rank, s1, sizeof s1);
        interp_shape_str(p.d1.d, p.d1.rank, s2, sizeof s2);
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has shape %s, the inputs %s", interp_tname(o), s1, s2);
    }
    p.n_in = n_in;
    switch (a->dtype) {
    case GRAPH_F32: return EMIT(n, K_OP_ADD_N_F32, &p, err);
    case GRAPH_I8: {
        if ((rc = interp_check_quant(o, "tensor", "out of", err))) return rc;
        for (int32_t i = 0; i < n_in; i++) {
            const graph_tensor *t = interp_node_in_t(n, i);
            if ((rc = interp_check_quant(t, "tensor", "out of", err))) return rc;
            if (t->q.scale[0] != a->q.scale[0] || t->q.zero_point[0] != a->q.zero_point[0])
                return npuc_errf(err, NPUC_E_UNSUPPORTED,
                                 "int8 ADD_N inputs must share one quantization ('%s' has scale %g zero point %lld, "
                                 "'%s' scale %g zero point %lld)",
                                 interp_tname(t), (double)t->q.scale[0], (long long)t->q.zero_point[0], interp_tname(a),
                                 (double)a->q.scale[0], (long long)a->q.zero_point[0]);
        }
        p.left_shift = 20;
        p.in1_offset = -(int32_t)a->q.zero_point[0];
        p.out_offset = (int32_t)o->q.zero_point[0];
        const double twice = 2 * (double)a->q.scale[0];
        if ((rc = mult_lt1((double)a->q.scale[0] / twice, &p.in1_mult, &p.in1_shift, "input rescale", err)) ||
            (rc = mult_lt1(twice / ((1 << 20) * (double)o->q.scale[0]), &p.out_mult, &p.out_shift, "output rescale",
                           err)))
            return rc;
        p.act_min = INT8_MIN;
        p.act_max = INT8_MAX;
        return EMIT(n, K_OP_ADD_N_S8, &p, err);
    }
    default: return type_error("ADD_N", a, "float32, int8", err);
    }
}

/* ---- table --------------------------------------------------------------------------------- */

static const interp_op_impl impls[] = {
    {TFL_OP_DIV, div_prepare, NULL},
    {TFL_OP_FLOOR_DIV, floor_div_prepare, NULL},
    {TFL_OP_FLOOR_MOD, floor_mod_prepare, NULL},
    {TFL_OP_SQUARED_DIFFERENCE, sqdiff_prepare, NULL},
    {TFL_OP_EQUAL, equal_prepare, NULL},
    {TFL_OP_NOT_EQUAL, not_equal_prepare, NULL},
    {TFL_OP_GREATER, greater_prepare, NULL},
    {TFL_OP_GREATER_EQUAL, greater_equal_prepare, NULL},
    {TFL_OP_LESS, less_prepare, NULL},
    {TFL_OP_LESS_EQUAL, less_equal_prepare, NULL},
    {TFL_OP_LOGICAL_AND, logical_and_prepare, NULL},
    {TFL_OP_LOGICAL_OR, logical_or_prepare, NULL},
    {TFL_OP_PRELU, prelu_prepare, NULL},
    {TFL_OP_SELECT_V2, select_prepare, NULL},
    {TFL_OP_ADD_N, add_n_prepare, NULL},
};

INTERP_OPS_TABLE(interp_ops_binop, impls)
