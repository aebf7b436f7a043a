/* cc_fold: constant folding, the compiler's first pass. An op whose inputs
 * are all constants (or, for SHAPE, whose input has a static shape: every
 * shape is static once imported) is evaluated once with the reference
 * interpreter on a one-op graph; its outputs become constant tensors and
 * the op leaves the deployed model, as Vela does. Chains fold in one
 * forward sweep (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE ...), because a
 * folded output counts as a constant for the ops after it.
 *
 * Never folded: ops the interpreter cannot prepare or run (they stay as
 * they are), CUSTOM ops, control flow and resource-variable ops, ops writing a state tensor or a model output (the
 * deployed model must still write every output, so the last op of a
 * constant chain that feeds an output stays), and ops whose outputs exceed
 * CC_FOLD_MAX_BYTES (a folded constant costs flash).
 *
 * The result is bit-exact by construction: the interpreter is the oracle
 * the deployed model is checked against. */
#include "cc.h"
#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CC_FOLD_MAX_BYTES (256u * 1024u)

static bool is_output(const graph *g, int32_t t)
{
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t) return true;
    return false;
}

/* Adds a copy of g's tensor t to the one-op graph h, with data (NULL: an
 * activation). */
static int32_t copy_tensor(graph *h, const graph_tensor *x, const void *data, size_t nbytes)
{
    bool fixed = graph_dtype_fixed(x->dtype);
    int32_t t = graph_add_tensor(h, x->name, x->dtype, x->rank, x->shape, fixed ? data : NULL);
    if (t < 0) return -1;
    if (data && !fixed) {
        h->tensors[t].data = npuc_arena_memdup(&h->arena, data, nbytes ? nbytes : 1);
        h->tensors[t].nbytes = nbytes;
        if (!h->tensors[t].data) return -1;
    }
    if (x->q.n > 0 && graph_set_quant(h, t, x->q.n, x->q.scale, x->q.zero_point, x->q.axis)) return -1;
    return t;
}

/* Version, custom code and options of src on dst; dst->index = the
 * source op's position (cc_op_of_source). */
static int copy_op_extras(graph *h, graph_op *dst, const graph_op *src, int32_t src_pos)
{
    dst->version = src->version;
    dst->index = src_pos;
    if (src->custom_code && !(dst->custom_code = npuc_arena_strdup(&h->arena, src->custom_code))) return -1;
    if (src->n_custom_options) {
        dst->custom_options = npuc_arena_memdup(&h->arena, src->custom_options, src->n_custom_options);
        if (!dst->custom_options) return -1;
        dst->n_custom_options = src->n_custom_options;
    }
    return 0;
}

/* Evaluates op i of g with every input taken from cdata (SHAPE: its input
 * may be an activation, whose values it does not read). Fills out[k] with
 * malloc'd bytes of each output. Returns false when the op does not fold. */
static bool eval_op(const graph *g, const graph_op *op, const void *const *cdata, const size_t *cbytes, void **out)
{
    graph *h = graph_new("fold");
    if (!h) return false;
    bool ok = true;
    int32_t *in = calloc((size_t)op->n_in + 1, sizeof *in), *on = calloc((size_t)op->n_out + 1, sizeof *on);
    int32_t hin[8], n_hin = 0;
    ok = in && on;
    for (int32_t k = 0; ok && k < op->n_in; k++) {
        int32_t t = op->in[k];
        if (t < 0) {
            in[k] = -1;
            continue;
        }
        const graph_tensor *x = &g->tensors[t];
        in[k] = copy_tensor(h, x, cdata[t], cbytes[t]);
        ok = in[k] >= 0;
        if (ok && !cdata[t]) {
            ok = n_hin < 8;
            if (ok) hin[n_hin++] = in[k];
        }
    }
    for (int32_t k = 0; ok && k < op->n_out; k++) {
        on[k] = copy_tensor(h, &g->tensors[op->out[k]], NULL, 0);
        ok = on[k] >= 0;
    }
    int32_t o = ok ? graph_add_op(h, op->opcode, &op->opt, op->n_in, in, op->n_out, on) : -1;
    ok = o >= 0 && copy_op_extras(h, &h->ops[o], op, op->index) == 0 &&
         graph_set_io(h, n_hin, n_hin ? hin : (const int32_t[]){0}, op->n_out, on) == 0;
    interp *ip = NULL;
    npuc_err e = {0};
    if (ok) ok = interp_create(h, NULL, &ip, &e) == NPUC_OK;
    for (int32_t k = 0; ok && k < n_hin; k++) {
        /* values SHAPE does not read: zeros */
        size_t n = h->tensors[hin[k]].nbytes;
        void *z = calloc(1, n ? n : 1);
        ok = z && interp_set_input(ip, k, z, n, &e) == NPUC_OK;
        free(z);
    }
    if (ok) ok = interp_invoke(ip, &e) == NPUC_OK;
    for (int32_t k = 0; ok && k < op->n_out; k++) {
        size_t n = 0;
        const void *d = interp_output(ip, k, &n);
        out[k] = malloc(n ? n : 1);
        ok = d && out[k];
        if (ok) memcpy(out[k], d, n);
    }
    if (!ok)
        for (int32_t k = 0; k < op->n_out; k++) {
            free(out[k]);
            out[k] = NULL;
        }
    interp_free(ip);
    free(in);
    free(on);
    graph_free(h);
    return ok;
}

/* Whether op may fold: every present input a constant (SHAPE: any
 * non-state tensor), outputs neither state nor model outputs nor too big. */
static bool foldable(const graph *g, const graph_op *op, const void *const *cdata)
{
    if (op->opcode == TFL_OP_CUSTOM || op->n_in < 1 || op->n_out < 1) return false;
    /* resource variables and the subgraphs IF / WHILE run are state the
     * one-op evaluation does not see (an ASSIGN_VARIABLE in a branch) */
    if (graph_op_uses_model(op->opcode)) return false;
    int32_t present = 0;
    for (int32_t k = 0; k < op->n_in; k++) {
        int32_t t = op->in[k];
        if (t < 0) continue;
        present++;
        const graph_tensor *x = &g->tensors[t];
        if (x->is_variable) return false;
        if (!cdata[t] && !(op->opcode == TFL_OP_SHAPE && k == 0)) return false;
    }
    if (!present) return false;
    size_t bytes = 0;
    for (int32_t k = 0; k < op->n_out; k++) {
        int32_t t = op->out[k];
        if (t < 0) return false;
        const graph_tensor *x = &g->tensors[t];
        if (x->is_variable || is_output(g, t) || !graph_dtype_fixed(x->dtype)) return false;
        bytes += x->nbytes;
    }
    return bytes <= CC_FOLD_MAX_BYTES;
}

/* The graph without the folded ops: tensors still referenced (by a kept op
 * or as model inputs/outputs) in their original order; folded outputs carry
 * their values. */
static int rebuild(const graph *g, const bool *folded, const void *const *cdata, const size_t *cbytes, graph **out,
                   npuc_err *err)
{
    graph *h = graph_new(g->name);
    int32_t *map = calloc((size_t)g->n_tensors + 1, sizeof *map);
    bool *used = calloc((size_t)g->n_tensors + 1, sizeof *used);
    int32_t *io = calloc((size_t)(g->n_inputs + g->n_outputs) + 1, sizeof *io);
    int rc = NPUC_OK;
    if (!h || !map || !used || !io) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        if (folded[i]) continue;
        const graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0) used[op->in[k]] = true;
        for (int32_t k = 0; k < op->n_out; k++)
            if (op->out[k] >= 0) used[op->out[k]] = true;
    }
    for (int32_t i = 0; i < g->n_inputs; i++) used[g->inputs[i]] = true;
    for (int32_t i = 0; i < g->n_outputs; i++) used[g->outputs[i]] = true;
    for (int32_t t = 0; t < g->n_tensors && !rc; t++) {
        map[t] = -1;
        if (!used[t]) continue;
        const graph_tensor *x = &g->tensors[t];
        /* constants keep their bytes; folded outputs get theirs; state
         * tensors keep their initial value */
        const void *d = x->data ? x->data : (x->is_variable ? NULL : cdata[t]);
        map[t] = copy_tensor(h, x, d, x->data ? x->nbytes : cbytes[t]);
        if (map[t] < 0) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            break;
        }
        graph_tensor *y = &h->tensors[map[t]];
        if (x->is_variable) {
            y->is_variable = true;
            if (x->data && !(y->data = npuc_arena_memdup(&h->arena, x->data, x->nbytes ? x->nbytes : 1)))
                rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        }
        y->arena_offset = y->data && !y->is_variable ? -1 : x->arena_offset;
    }
    for (int32_t i = 0; i < g->n_ops && !rc; i++) {
        if (folded[i]) continue;
        const graph_op *op = &g->ops[i];
        int32_t *in = calloc((size_t)op->n_in + 1, sizeof *in), *on = calloc((size_t)op->n_out + 1, sizeof *on);
        if (!in || !on) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (int32_t k = 0; !rc && k < op->n_in; k++) in[k] = op->in[k] < 0 ? -1 : map[op->in[k]];
        for (int32_t k = 0; !rc && k < op->n_out; k++) on[k] = op->out[k] < 0 ? -1 : map[op->out[k]];
        int32_t o = rc ? -1 : graph_add_op(h, op->opcode, &op->opt, op->n_in, in, op->n_out, on);
        if (!rc && (o < 0 || copy_op_extras(h, &h->ops[o], op, i))) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        free(in);
        free(on);
    }
    for (int32_t i = 0; i < g->n_inputs && !rc; i++) io[i] = map[g->inputs[i]];
    for (int32_t i = 0; i < g->n_outputs && !rc; i++) io[g->n_inputs + i] = map[g->outputs[i]];
    if (!rc && graph_set_io(h, g->n_inputs, io, g->n_outputs, io + g->n_inputs))
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
done:
    free(map);
    free(used);
    free(io);
    if (rc) {
        graph_free(h);
        return rc;
    }
    *out = h;
    return NPUC_OK;
}

int cc_fold(const graph *g, graph **out, cc_folded **list, int32_t *n_list, npuc_err *err)
{
    *out = NULL;
    *list = NULL;
    *n_list = 0;
    const void **cdata = calloc((size_t)g->n_tensors + 1, sizeof *cdata);
    size_t *cbytes = calloc((size_t)g->n_tensors + 1, sizeof *cbytes);
    bool *owned = calloc((size_t)g->n_tensors + 1, sizeof *owned);
    bool *folded = calloc((size_t)g->n_ops + 1, sizeof *folded);
    cc_folded *fl = calloc((size_t)g->n_ops + 1, sizeof *fl);
    void **vals = NULL;
    int rc = NPUC_OK;
    int32_t nf = 0;
    if (!cdata || !cbytes || !owned || !folded || !fl) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t t = 0; t < g->n_tensors; t++) {
        const graph_tensor *x = &g->tensors[t];
        if (x->data && !x->is_variable) {
            cdata[t] = x->data;
            cbytes[t] = x->nbytes;
        }
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (!foldable(g, op, cdata)) continue;
        vals = calloc((size_t)op->n_out + 1, sizeof *vals);
        if (!vals) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            goto done;
        }
        if (eval_op(g, op, cdata, cbytes, vals)) {
            for (int32_t k = 0; k < op->n_out; k++) {
                int32_t t = op->out[k];
                cdata[t] = vals[k];
                cbytes[t] = g->tensors[t].nbytes;
                owned[t] = true;
            }
            folded[i] = true;
            fl[nf].op = i;
            fl[nf].opcode = op->opcode;
            snprintf(fl[nf].op_name, sizeof fl[nf].op_name, "%s", graph_op_name(op));
            fl[nf].tensor = op->out[0];
            snprintf(fl[nf].tensor_name, sizeof fl[nf].tensor_name, "%s", g->tensors[op->out[0]].name);
            fl[nf].n_out = op->n_out;
            nf++;
        }
        free(vals);
        vals = NULL;
    }
    if (nf) rc = rebuild(g, folded, cdata, cbytes, out, err);
done:
    if (cdata && owned)
        for (int32_t t = 0; t < g->n_tensors; t++)
            if (owned[t]) free((void *)cdata[t]);
    free(cdata);
    free(cbytes);
    free(owned);
    free(folded);
    if (rc || !nf) {
        free(fl);
    } else {
        *list = fl;
        *n_list = nf;
    }
    return rc;
}
