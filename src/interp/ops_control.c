/* State and control ops (k_op_control.h, docs/kernels-control.md):
 * VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE with the model's resource
 * variables (graph_model), and CALL_ONCE, IF, WHILE, whose subgraphs are
 * prepared by an interpreter of their own and stored in the op's blob as
 * programs, so that the runtime's CPU epochs run them with the same
 * k_op_run as the interpreter. */
#include "interp_ops.h"

#include <stdlib.h>
#include <string.h>

static const graph_model *model_of(const interp_node *n, npuc_err *err)
{
    const graph_model *gm = n->op->opt.graph_model;
    if (!gm) npuc_errf(err, NPUC_E_INVALID, "the op is not part of a model with subgraphs and resource variables "
                                          "(graph_import or graph_model_attach sets that up)");
    return gm;
}

/* ---- resource variables ---- */

static int prep_var_handle(interp_node *n, npuc_err *err)
{
    const graph_model *gm = model_of(n, err);
    if (!gm) return NPUC_E_INVALID;
    if (n->op->n_in != 0 || n->op->n_out != 1 || interp_node_out_t(n, 0)->nbytes != 4)
        return npuc_errf(err, NPUC_E_INVALID, "expects no inputs and one resource scalar output");
    const int32_t id = graph_resource_find(gm, n->op->opt.container, n->op->opt.shared_name);
    if (id < 0)
        return npuc_errf(err, NPUC_E_INVALID, "resource '%s' is not one of the model's variables",
                         n->op->opt.shared_name ? n->op->opt.shared_name : "");
    k_op_var_handle_blob *b = interp_node_blob(n, K_OP_VAR_HANDLE, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->id = id;
    return NPUC_OK;
}

static int prep_var(interp_node *n, npuc_err *err)
{
    const graph_model *gm = model_of(n, err);
    if (!gm) return NPUC_E_INVALID;
    const bool assign = n->op->opcode == TFL_OP_ASSIGN_VARIABLE;
    int rc = interp_check_counts(n, assign ? 2 : 1, assign ? 2 : 1, assign ? 0 : 1, err);
    if (rc) return rc;
    if (interp_node_in_t(n, 0)->nbytes != 4)
        return npuc_errf(err, NPUC_E_INVALID, "input 0 must be one resource id");
    const size_t hdr = k_op_align(sizeof(k_op_var_blob));
    k_op_var_blob *b = interp_node_blob(n, assign ? K_OP_ASSIGN_VARIABLE : K_OP_READ_VARIABLE,
                                        hdr + (size_t)gm->n_res * sizeof(k_op_var_entry));
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    b->n_vars = gm->n_res;
    b->vars_off = (uint32_t)hdr;
    k_op_var_entry *e = (k_op_var_entry *)(void *)((uint8_t *)b + hdr);
    for (int32_t i = 0; i < gm->n_res; i++) {
        const graph_resource *r = &gm->res[i];
        if (r->area_off > UINT32_MAX / 2 || r->nbytes > UINT32_MAX / 2)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "resource variable '%s' is too large", r->shared_name);
        e[i] = (k_op_var_entry){(uint32_t)r->area_off, r->assigned ? (uint32_t)r->nbytes : 0u, r->fill};
    }
    return NPUC_OK;
}

/* ---- programs ---- */

#define CTL_MAX_BLOB (16u << 20)

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} buf;

/* Appends size bytes (zeroed when data is NULL) at an 8-aligned offset. */
static size_t put(buf *b, const void *data, size_t size)
{
    size_t at = (b->n + 7u) & ~(size_t)7u;
    if (at + size > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < at + size) cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return 0;
        }
        memset(q + b->cap, 0, cap - b->cap);
        b->p = q;
        b->cap = cap;
    }
    if (data && size) memcpy(b->p + at, data, size);
    b->n = at + size;
    return at;
}

typedef struct prog_sizes {
    size_t tensor_bytes, op_scratch, persist; /* persist: next free offset (starts at 8) */
} prog_sizes;

/* Subgraph si prepared by an interpreter of its own, appended to b as a
 * program; returns its offset in *off. */
static int build_prog(const graph_model *gm, int32_t si, buf *b, prog_sizes *ps, size_t *off, npuc_err *err)
{
    const graph *c = gm->sub[si];
    interp *ip = NULL;
    int rc = interp_create(c, NULL, &ip, err);
    if (rc) return npuc_err_prefix(err, "subgraph %d", si);
    for (int32_t t = 0; t < c->n_tensors && !rc; t++)
        if (c->tensors[t].is_variable)
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "subgraph %d: tensor %d ('%s') is a variable tensor, which npuc "
                           "runs only in subgraph 0", si, t, c->tensors[t].name);
    if (rc) goto done;
    if (interp_arena_size(ip) > ps->tensor_bytes) ps->tensor_bytes = (interp_arena_size(ip) + 7u) & ~(size_t)7u;
    if (interp_scratch_bytes(ip) > ps->op_scratch) ps->op_scratch = interp_scratch_bytes(ip);
    *off = put(b, NULL, sizeof(k_op_prog));
    k_op_prog pg = {c->n_tensors, c->n_ops, c->n_inputs, c->n_outputs, 0, 0, 0, 0};
    pg.tensors_off = (uint32_t)put(b, NULL, (size_t)c->n_tensors * sizeof(k_op_prog_tensor));
    pg.ops_off = (uint32_t)put(b, NULL, (size_t)c->n_ops * sizeof(k_op_prog_op));
    pg.inputs_off = (uint32_t)put(b, c->inputs, (size_t)c->n_inputs * 4);
    pg.outputs_off = (uint32_t)put(b, c->outputs, (size_t)c->n_outputs * 4);
    for (int32_t t = 0; t < c->n_tensors && !b->oom; t++) {
        const graph_tensor *x = &c->tensors[t];
        k_op_prog_tensor y = {K_PROG_ABSENT, 0, (uint32_t)x->nbytes};
        size_t so;
        if (x->data) {
            y.where = K_PROG_CONST;
            y.off = (uint32_t)put(b, x->data, x->nbytes);
        } else if (interp_tensor_slot(ip, t, &so)) {
            y.where = K_PROG_SLOT;
            y.off = (uint32_t)so;
        }
        if (!b->oom) memcpy(b->p + pg.tensors_off + (size_t)t * sizeof y, &y, sizeof y);
    }
    for (int32_t i = 0; i < c->n_ops && !rc && !b->oom; i++) {
        const graph_op *op = &c->ops[i];
        uint32_t kind, psize, ssize, persist;
        const void *params;
        if (op->n_in + op->n_out > K_CTL_MAX_OPERANDS) {
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "subgraph %d: op %d (%s) has more than %d operands", si, i,
                           graph_op_name(op), K_CTL_MAX_OPERANDS);
            break;
        }
        if (interp_op_prepared(ip, i, &kind, &params, &psize, &ssize, &persist) != NPUC_OK) {
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "subgraph %d: op %d (%s) has no prepared kernel", si, i,
                           graph_op_name(op));
            break;
        }
        k_op_prog_op o = {kind, 0, psize, op->n_in, op->n_out, 0, ssize, 0, persist};
        o.params_off = (uint32_t)put(b, params, psize);
        int32_t operands[K_CTL_MAX_OPERANDS];
        for (int32_t k = 0; k < op->n_in; k++) operands[k] = op->in[k];
        for (int32_t k = 0; k < op->n_out; k++) operands[op->n_in + k] = op->out[k];
        o.operands_off = (uint32_t)put(b, operands, (size_t)(op->n_in + op->n_out) * 4);
        if (persist) {
            o.persist_off = (uint32_t)ps->persist;
            ps->persist += ((size_t)persist + 7u) & ~(size_t)7u;
        }
        if (!b->oom) memcpy(b->p + pg.ops_off + (size_t)i * sizeof o, &o, sizeof o);
    }
    if (!rc && !b->oom) memcpy(b->p + *off, &pg, sizeof pg);
    if (!rc && b->oom) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
done:
    interp_free(ip);
    return rc;
}

static int prep_control(interp_node *n, npuc_err *err)
{
    const graph_model *gm = model_of(n, err);
    if (!gm) return NPUC_E_INVALID;
    const graph_op *op = n->op;
    int32_t prog[2], np = 2;
    uint32_t kind;
    switch (op->opcode) {
    case TFL_OP_IF:
        prog[0] = op->opt.then_subgraph, prog[1] = op->opt.else_subgraph, kind = K_OP_IF;
        break;
    case TFL_OP_WHILE:
        prog[0] = op->opt.cond_subgraph, prog[1] = op->opt.body_subgraph, kind = K_OP_WHILE;
        break;
    default: prog[0] = op->opt.init_subgraph, np = 1, kind = K_OP_CALL_ONCE; break;
    }
    for (int32_t p = 0; p < np; p++)
        if (prog[p] < 1 || prog[p] >= gm->n_subgraphs)
            return npuc_errf(err, NPUC_E_INVALID, "subgraph index %d is not one of the model's subgraphs 1..%d",
                             prog[p], gm->n_subgraphs - 1);
    /* the signature (counts, types, sizes) was checked by graph_model_attach */
    if (op->opcode == TFL_OP_IF) {
        const graph_tensor *cond = interp_node_in_t(n, 0);
        if (!cond || cond->dtype != GRAPH_BOOL || graph_tensor_elems(cond) != 1)
            return npuc_errf(err, NPUC_E_INVALID, "input 0 (the condition) must be one bool");
    }
    for (int32_t k = 0; k < op->n_in; k++)
        if (op->in[k] < 0) return npuc_errf(err, NPUC_E_INVALID, "input %d is absent", k);
    buf b = {0};
    prog_sizes ps = {0, 0, 8};
    size_t off[2] = {0, 0};
    put(&b, NULL, sizeof(k_op_ctl_blob));
    int rc = NPUC_OK;
    for (int32_t p = 0; p < np && !rc; p++) rc = build_prog(gm, prog[p], &b, &ps, &off[p], err);
    const size_t scratch = ps.tensor_bytes + ps.op_scratch;
    /* nested calls copy a subgraph into every op that calls it: bounded, so
     * that a model whose subgraphs call each other many times over fails
     * early instead of growing without end */
    if (!rc && b.n > CTL_MAX_BLOB)
        rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "the subgraphs it runs (nested calls included) need more than %u MiB "
                       "of prepared parameters", CTL_MAX_BLOB >> 20);
    if (!rc && (scratch > UINT32_MAX / 2 || ps.persist > UINT32_MAX / 2))
        rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "the subgraphs need more than 2 GiB of memory");
    if (!rc) {
        k_op_ctl_blob c = {np, {(uint32_t)off[0], (uint32_t)off[1]}, (uint32_t)ps.tensor_bytes, (uint32_t)scratch,
                           (uint32_t)ps.persist, (uint32_t)gm->vars_size};
        memcpy(b.p, &c, sizeof c);
        void *blob = interp_node_blob(n, kind, b.n);
        if (!blob) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        else memcpy(blob, b.p, b.n);
        n->scratch_size = scratch;
        n->persistent_size = ps.persist;
    }
    free(b.p);
    return rc;
}

static const interp_op_impl table[] = {
    {TFL_OP_VAR_HANDLE, prep_var_handle, NULL},  {TFL_OP_READ_VARIABLE, prep_var, NULL},
    {TFL_OP_ASSIGN_VARIABLE, prep_var, NULL},    {TFL_OP_CALL_ONCE, prep_control, NULL},
    {TFL_OP_IF, prep_control, NULL},             {TFL_OP_WHILE, prep_control, NULL},
};

INTERP_OPS_TABLE(interp_ops_control, table)
