/* Prepared ops of the binop family (k_op_binop.h). */
#include "k_op_internal.h"

_Static_assert(sizeof(k_op_binop_blob) == 4 * (4 * 7 + 18), "k_op_binop_blob layout");

/* Most inputs ADD_N takes (a blob limit, far above any real model). */
#define K_BINOP_MAX_N 1024

typedef struct kind_types {
    uint32_t es[3];   /* element size of inputs 1..3 (ADD_N: every input) */
    uint32_t eo;      /* element size of the output */
    int32_t n_in;     /* inputs: 2, 3, or 0 = n_in from the blob (ADD_N) */
    int32_t qmin, qmax; /* integer clamp limits (0, 0: no clamp fields) */
} kind_types;

static bool types_of(uint32_t kind, kind_types *t)
{
    const kind_types none = {{0, 0, 0}, 0, 2, 0, 0};
    *t = none;
    switch (kind) {
    case K_OP_DIV_F32: case K_OP_FLOOR_DIV_F32: case K_OP_FLOOR_MOD_F32: case K_OP_SQDIFF_F32: case K_OP_PRELU_F32:
        t->es[0] = t->es[1] = t->eo = 4; return true;
    case K_OP_DIV_S32:
        t->es[0] = t->es[1] = t->eo = 4; t->qmin = INT32_MIN; t->qmax = INT32_MAX; return true;
    case K_OP_SQDIFF_S32: case K_OP_FLOOR_DIV_S32: case K_OP_FLOOR_MOD_S32:
        t->es[0] = t->es[1] = t->eo = 4; return true;
    case K_OP_DIV_S8: case K_OP_SQDIFF_S8: case K_OP_PRELU_S8:
        t->es[0] = t->es[1] = t->eo = 1; t->qmin = INT8_MIN; t->qmax = INT8_MAX; return true;
    case K_OP_SQDIFF_S16:
        t->es[0] = t->es[1] = t->eo = 2; t->qmin = INT16_MIN; t->qmax = INT16_MAX; return true;
    case K_OP_PRELU_S16:
        t->es[0] = 2; t->es[1] = 1; t->eo = 2; t->qmin = INT16_MIN; t->qmax = INT16_MAX; return true;
    case K_OP_CMP_BOOL: case K_OP_CMP_S8: case K_OP_LOGICAL_AND: case K_OP_LOGICAL_OR:
        t->es[0] = t->es[1] = t->eo = 1; return true;
    case K_OP_CMP_S16: t->es[0] = t->es[1] = 2; t->eo = 1; return true;
    case K_OP_CMP_F32: case K_OP_CMP_S32: t->es[0] = t->es[1] = 4; t->eo = 1; return true;
    case K_OP_CMP_S64: t->es[0] = t->es[1] = 8; t->eo = 1; return true;
    case K_OP_SELECT_X8: t->es[0] = 1; t->es[1] = t->es[2] = t->eo = 1; t->n_in = 3; return true;
    case K_OP_SELECT_X16: t->es[0] = 1; t->es[1] = t->es[2] = t->eo = 2; t->n_in = 3; return true;
    case K_OP_SELECT_X32: t->es[0] = 1; t->es[1] = t->es[2] = t->eo = 4; t->n_in = 3; return true;
    case K_OP_ADD_N_F32: t->es[0] = t->eo = 4; t->n_in = 0; return true;
    case K_OP_ADD_N_S8: t->es[0] = t->eo = 1; t->n_in = 0; t->qmin = INT8_MIN; t->qmax = INT8_MAX; return true;
    default: return false;
    }
}

static bool same_dims(const k_dims *a, const k_dims *b)
{
    if (a->rank != b->rank) return false;
    for (int32_t i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i]) return false;
    return true;
}

/* dout is the broadcast of the n input shapes. */
static bool bcast_ok(const k_dims *const *in, int32_t n, const k_dims *dout)
{
    k_dims acc = *in[0], next;
    for (int32_t k = 1; k < n; k++) {
        if (k_broadcast_shape(&acc, in[k], &next) != K_OK) return false;
        acc = next;
    }
    return same_dims(&acc, dout);
}

static bool mult_ok(int32_t m) { return m >= 0; }

static bool params_ok(uint32_t kind, const k_op_binop_blob *b, const kind_types *t)
{
    if (t->qmin != t->qmax &&
        (!k_op_in_range(b->act_min, t->qmin, t->qmax) || !k_op_in_range(b->act_max, t->qmin, t->qmax) ||
         b->act_min > b->act_max))
        return false;
    switch (kind) {
    case K_OP_DIV_S8:
        return k_op_offset_ok(b->in1_offset, 256) && k_op_offset_ok(b->in2_offset, 256) && k_op_offset_ok(b->out_offset, 256) &&
               mult_ok(b->out_mult) && k_op_in_range(b->out_shift, -31, 31);
    case K_OP_SQDIFF_S8: case K_OP_SQDIFF_S16: case K_OP_CMP_S8: case K_OP_CMP_S16: {
        /* Offsets and shift keep (offset + code) << left_shift inside int32. */
        const int32_t lim = (kind == K_OP_SQDIFF_S8 || kind == K_OP_CMP_S8) ? 256 : 65536;
        const int32_t max_ls = (kind == K_OP_SQDIFF_S8 || kind == K_OP_CMP_S8) ? 22 : 14;
        if (!k_op_offset_ok(b->in1_offset, lim) || !k_op_offset_ok(b->in2_offset, lim) || !k_op_in_range(b->left_shift, 0, max_ls) ||
            !mult_ok(b->in1_mult) || !mult_ok(b->in2_mult) || !k_op_in_range(b->in1_shift, -31, 0) ||
            !k_op_in_range(b->in2_shift, -31, 0))
            return false;
        if (kind == K_OP_CMP_S8 || kind == K_OP_CMP_S16) return k_op_in_range(b->cmp, K_CMP_EQ, K_CMP_LE);
        return k_op_offset_ok(b->out_offset, 65536) && mult_ok(b->out_mult) && k_op_in_range(b->out_shift, -31, 30);
    }
    case K_OP_CMP_BOOL: return k_op_in_range(b->cmp, K_CMP_EQ, K_CMP_NE);
    case K_OP_CMP_F32: case K_OP_CMP_S32: case K_OP_CMP_S64: return k_op_in_range(b->cmp, K_CMP_EQ, K_CMP_LE);
    case K_OP_PRELU_S8: case K_OP_PRELU_S16:
        return k_op_offset_ok(b->in1_offset, 65536) && k_op_offset_ok(b->in2_offset, 256) && k_op_offset_ok(b->out_offset, 65536) &&
               mult_ok(b->out_mult) && mult_ok(b->out_mult2) && k_op_in_range(b->out_shift, -31, 30) &&
               k_op_in_range(b->out_shift2, -31, 30);
    case K_OP_ADD_N_S8:
        return k_op_offset_ok(b->in1_offset, 256) && k_op_offset_ok(b->out_offset, 256) && k_op_in_range(b->left_shift, 0, 22) &&
               mult_ok(b->in1_mult) && mult_ok(b->out_mult) && k_op_in_range(b->in1_shift, -31, 0) &&
               k_op_in_range(b->out_shift, -31, 0);
    default: return true;
    }
}

int k_op_run_binop(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_binop_blob b;
    K_OP_LOAD(b, blob, size);
    kind_types t;
    if (!types_of(kind, &t)) return K_E_INVALID;
    const int32_t n_in = t.n_in ? t.n_in : b.n_in;
    if (b.n_in != n_in || n_in < 1 || n_in > K_BINOP_MAX_N) return K_E_INVALID;
    if (t.n_in == 0 && kind != K_OP_ADD_N_F32 && kind != K_OP_ADD_N_S8) return K_E_INVALID;
    const uint64_t n_out = k_op_dims_count(&b.dout, K_MAX_DIMS);
    if (n_out > INT32_MAX) return K_E_INVALID;
    const k_dims *ds[3] = {&b.d1, &b.d2, &b.d3};
    uint64_t n[3] = {n_out, n_out, n_out};
    if (t.n_in) {
        for (int32_t k = 0; k < n_in; k++) {
            n[k] = k_op_dims_count(ds[k], K_MAX_DIMS);
            if (n[k] > INT32_MAX) return K_E_INVALID;
        }
        if (!bcast_ok(ds, n_in, &b.dout)) return K_E_INVALID;
    }
    if (!params_ok(kind, &b, &t)) return K_E_INVALID;
    if (!io) return K_OK;

    int rc;
    for (int32_t k = 0; k < n_in; k++) {
        const uint32_t es = t.n_in ? t.es[k] : t.es[0];
        void *ptr;
        if ((rc = k_op_in(io, k, (t.n_in ? n[k] : n_out) * es, es, &ptr))) return rc;
    }
    void *out;
    if ((rc = k_op_out(io, 0, n_out * t.eo, t.eo, &out))) return rc;
    /* io->in[0..n_in) are now checked (present, sized, aligned). */
    return k_binop_eval(kind, &b, (const void *const *)io->in, out);
}
