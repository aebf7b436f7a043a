/* cc_fold: constant folding, the compiler's first pass. An op whose inputs
 * are all constants (or, for SHAPE, whose input has a static shape: every
 * shape is static once imported) is evaluated once with the reference
 * interpreter on a one-op graph; its outputs become constant tensors and
 * the op leaves the deployed model, as Vela does. Chains fold in one
 * forward sweep (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE ...), because a
 * folded output counts as a constant for the ops after it.
 *
 * Never folded: ops the interpreter cannot prepare or run (they stay as
 * they are), CUSTOM ops, control flow and resource-variable ops (CALL_ONCE
 * has its own step, cc_fold_once at the end of this file), ops writing a state tensor or a model output (the
 * deployed model must still write every output, so the last op of a
 * constant chain that feeds an output stays), and ops whose outputs exceed
 * CC_FOLD_MAX_BYTES (a folded constant costs flash).
 *
 * The result is bit-exact by construction: the interpreter is the oracle
 * the deployed model is checked against. */
#include "cc.h"
#include "interp/interp.h"
#include "kernels/k_op.h"

#include <stdarg.h>
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
 * their values (cdata NULL: none). The kept ops come in the order `order`
 * (NULL: g's); each keeps its source op index. */
static int rebuild(const graph *g, const bool *folded, const int32_t *order, const void *const *cdata,
                   const size_t *cbytes, graph **out, npuc_err *err)
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
        if (folded && folded[i]) continue;
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
        const void *d = x->data ? x->data : (x->is_variable || !cdata ? NULL : cdata[t]);
        map[t] = copy_tensor(h, x, d, x->data ? x->nbytes : cdata ? cbytes[t] : 0);
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
    for (int32_t j = 0; j < g->n_ops && !rc; j++) {
        int32_t i = order ? order[j] : j;
        if (folded && folded[i]) continue;
        const graph_op *op = &g->ops[i];
        int32_t *in = calloc((size_t)op->n_in + 1, sizeof *in), *on = calloc((size_t)op->n_out + 1, sizeof *on);
        if (!in || !on) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (int32_t k = 0; !rc && k < op->n_in; k++) in[k] = op->in[k] < 0 ? -1 : map[op->in[k]];
        for (int32_t k = 0; !rc && k < op->n_out; k++) on[k] = op->out[k] < 0 ? -1 : map[op->out[k]];
        int32_t o = rc ? -1 : graph_add_op(h, op->opcode, &op->opt, op->n_in, in, op->n_out, on);
        if (!rc && (o < 0 || copy_op_extras(h, &h->ops[o], op, order ? op->index : i)))
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
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
    if (nf) rc = rebuild(g, folded, NULL, cdata, cbytes, out, err);
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

int cc_graph_reorder(const graph *g, const int32_t *order, graph **out, npuc_err *err)
{
    *out = NULL;
    return rebuild(g, NULL, order, NULL, NULL, out, err);
}

/* ---- CALL_ONCE initialisers (issue 18 item 4) ----
 *
 * A CALL_ONCE of subgraph 0 whose init subgraph is a pure function of
 * constants (no inputs, every op input a constant or computed inside, only
 * VAR_HANDLE, ASSIGN_VARIABLE, READ_VARIABLE of a variable it assigned
 * itself before, and ops the reference kernels run), and which runs before
 * any other op that touches the variables, leaves the same variable area
 * behind on every first invocation: the area after its prepared kernel ran
 * once on a zeroed area. The npuc runtime outputs start the area at those
 * bytes (and return to them on reset) instead of running it. */

/* Sets o's reason; false. */
__attribute__((format(printf, 2, 3))) static bool once_why(cc_once *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why, sizeof o->why, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether init subgraph si is a pure function of constants; fills o's
 * variables (resource ids it assigns) or o->why. */
static bool once_pure(const graph_model *gm, int32_t si, cc_once *o)
{
    if (si < 1 || si >= gm->n_subgraphs) return once_why(o, "init subgraph %d is not one of the model's subgraphs", si);
    const graph *c = gm->sub[si];
    if (c->n_inputs || c->n_outputs) return once_why(o, "init subgraph %d has inputs or outputs", si);
    int32_t *res_of = calloc((size_t)c->n_tensors + 1, sizeof *res_of);  /* VAR_HANDLE output -> id + 1 */
    bool *made = calloc((size_t)c->n_tensors + 1, sizeof *made);
    bool *assigned = calloc((size_t)gm->n_res + 1, sizeof *assigned);
    bool ok = res_of && made && assigned;
    if (!ok) once_why(o, "out of memory");
    for (int32_t t = 0; ok && t < c->n_tensors; t++)
        if (c->tensors[t].is_variable)
            ok = once_why(o, "init subgraph %d: tensor %d ('%s') is a variable tensor", si, t, c->tensors[t].name);
    for (int32_t i = 0; ok && i < c->n_ops; i++) {
        const graph_op *op = &c->ops[i];
        const int32_t code = op->opcode;
        if (code == TFL_OP_CUSTOM || code == TFL_OP_IF || code == TFL_OP_WHILE || code == TFL_OP_CALL_ONCE) {
            ok = once_why(o, "init subgraph %d: op %d (%s) is not folded at compile time", si, i, graph_op_name(op));
            break;
        }
        for (int32_t k = 0; ok && k < op->n_in; k++) {
            const int32_t t = op->in[k];
            if (t >= 0 && !c->tensors[t].data && !made[t])
                ok = once_why(o, "init subgraph %d: input %d of op %d (%s) is neither a constant nor computed inside",
                              si, k, i, graph_op_name(op));
        }
        if (!ok) break;
        if (code == TFL_OP_VAR_HANDLE) {
            const int32_t id = graph_resource_find(gm, op->opt.container, op->opt.shared_name);
            if (id < 0 || op->n_out != 1 || op->out[0] < 0) {
                ok = once_why(o, "init subgraph %d: op %d (VAR_HANDLE) names no variable of the model", si, i);
                break;
            }
            res_of[op->out[0]] = id + 1;
        } else if (code == TFL_OP_READ_VARIABLE || code == TFL_OP_ASSIGN_VARIABLE) {
            const int32_t id = op->n_in >= 1 && op->in[0] >= 0 ? res_of[op->in[0]] - 1 : -1;
            if (id < 0 || id >= gm->n_res) {
                ok = once_why(o, "init subgraph %d: op %d (%s) takes a resource that no VAR_HANDLE of the subgraph "
                              "makes", si, i, graph_op_name(op));
                break;
            }
            if (code == TFL_OP_READ_VARIABLE && !assigned[id]) {
                ok = once_why(o, "init subgraph %d: op %d (READ_VARIABLE) reads variable '%s', which it did not "
                              "assign itself", si, i, gm->res[id].shared_name ? gm->res[id].shared_name : "");
                break;
            }
            if (code == TFL_OP_ASSIGN_VARIABLE && !assigned[id]) {
                assigned[id] = true;
                if (o->n_vars < (int32_t)(sizeof o->vars / sizeof o->vars[0])) o->vars[o->n_vars] = id;
                o->n_vars++;
                o->bytes += gm->res[id].nbytes;
            }
        } else if (!interp_op_supported(c, op, NULL, 0)) {
            ok = once_why(o, "init subgraph %d: op %d (%s) is not run by the reference kernels", si, i,
                          graph_op_name(op));
            break;
        }
        for (int32_t k = 0; k < op->n_out; k++)
            if (op->out[k] >= 0) made[op->out[k]] = true;
    }
    if (ok && !o->n_vars) ok = once_why(o, "init subgraph %d assigns no variable", si);
    free(res_of);
    free(made);
    free(assigned);
    if (!ok) {
        o->n_vars = 0;
        o->bytes = 0;
    }
    return ok;
}

/* Runs CALL_ONCE op (of g) with its prepared kernel on the variable area
 * vars (vars_size bytes, 8-aligned). */
static bool once_run(const graph_op *op, uint8_t *vars, size_t vars_size, cc_once *o)
{
    graph *h = graph_new("call_once");
    interp *ip = NULL;
    npuc_err e = {0};
    uint32_t kind = 0, psize = 0, scratch = 0, persist = 0;
    const void *params = NULL;
    void *sbuf = NULL, *pbuf = NULL;
    bool ok = h && graph_add_op(h, op->opcode, &op->opt, 0, NULL, 0, NULL) >= 0 &&
              graph_set_io(h, 0, (const int32_t[]){0}, 0, (const int32_t[]){0}) == 0;
    if (!ok) once_why(o, "out of memory");
    if (ok && interp_create(h, NULL, &ip, &e) != NPUC_OK) ok = once_why(o, "the reference kernels cannot prepare it: %.120s", e.msg);
    if (ok && interp_vars_size(ip) != vars_size) ok = once_why(o, "internal: variable area of %zu bytes, not %zu", interp_vars_size(ip), vars_size);
    if (ok && interp_op_prepared(ip, 0, &kind, &params, &psize, &scratch, &persist) != NPUC_OK)
        ok = once_why(o, "no prepared kernel");
    if (ok) {
        sbuf = calloc(1, (size_t)scratch + 16);
        pbuf = calloc(1, (size_t)persist + 16);
        if (!sbuf || !pbuf) ok = once_why(o, "out of memory");
    }
    if (ok) {
        k_op_io io;
        memset(&io, 0, sizeof io);
        io.scratch = sbuf;
        io.scratch_size = scratch;
        io.persistent = pbuf;
        io.persistent_size = persist;
        io.vars = vars;
        io.vars_size = (uint32_t)vars_size;
        int k = k_op_run(kind, params, psize, &io);
        if (k != K_OK) ok = once_why(o, "the init subgraph failed at compile time (kernel status %d)", k);
    }
    free(sbuf);
    free(pbuf);
    interp_free(ip);
    graph_free(h);
    return ok;
}

/* Why op i of m->g (a model op touching variables) keeps a later CALL_ONCE:
 * NULL when it does not (VAR_HANDLE only names a variable; a folded
 * CALL_ONCE's effect is in the image, in order). */
static bool once_blocks(const cc_model *m, int32_t i)
{
    const graph_op *op = &m->g->ops[i];
    if (!graph_op_uses_model(op->opcode) || op->opcode == TFL_OP_VAR_HANDLE) return false;
    return !(op->opcode == TFL_OP_CALL_ONCE && cc_once_folded(m, i));
}

const cc_once *cc_once_folded(const cc_model *m, int32_t op)
{
    for (int32_t k = 0; k < m->n_once; k++)
        if (m->once[k].op == op && m->once[k].folded) return &m->once[k];
    return NULL;
}

int cc_fold_once(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    int32_t n = 0;
    for (int32_t i = 0; i < g->n_ops; i++) n += g->ops[i].opcode == TFL_OP_CALL_ONCE;
    if (!n) return NPUC_OK;
    const graph_model *gm = graph_model_of(g);
    m->once = calloc((size_t)n, sizeof *m->once);
    uint8_t *vars = gm && gm->vars_size ? calloc(1, gm->vars_size + 8) : NULL;
    if (!m->once || (gm && gm->vars_size && !vars)) return free(vars), npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    /* epoch order: the order the runtime runs the CPU ops in */
    int32_t any = 0;
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        const cc_epoch *e = &m->epochs[ei];
        if (e->kind != CC_EPOCH_SW) continue;
        const int32_t i = e->first_op;
        const graph_op *op = &g->ops[i];
        if (op->opcode != TFL_OP_CALL_ONCE) continue;
        cc_once *o = &m->once[m->n_once++];
        o->op = i;
        o->src_op = m->folded_g ? op->index : i;
        o->init_subgraph = op->opt.init_subgraph;
        if (!gm || !vars) {
            once_why(o, "the model has no resource variables");
            continue;
        }
        if (!once_pure(gm, o->init_subgraph, o)) continue;
        /* nothing before it (in the runtime's order and in the graph's)
         * may have touched a variable */
        int32_t before = -1;
        for (int32_t ej = 0; ej < ei && before < 0; ej++)
            if (m->epochs[ej].kind == CC_EPOCH_SW && once_blocks(m, m->epochs[ej].first_op)) before = m->epochs[ej].first_op;
        for (int32_t j = 0; j < i && before < 0; j++)
            if (once_blocks(m, j)) before = j;
        if (before >= 0) {
            once_why(o, "op %d (%s) runs before it and uses resource variables",
                     m->folded_g ? g->ops[before].index : before, graph_op_name(&g->ops[before]));
            o->n_vars = 0;
            o->bytes = 0;
            continue;
        }
        uint8_t *keep = malloc(gm->vars_size + 8);
        if (!keep) return free(vars), npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        memcpy(keep, vars, gm->vars_size);
        if (!once_run(op, vars, gm->vars_size, o)) {
            memcpy(vars, keep, gm->vars_size);  /* a failed run leaves nothing behind */
            o->n_vars = 0;
            o->bytes = 0;
        } else {
            o->folded = true;
            any++;
        }
        free(keep);
    }
    /* a CALL_ONCE without a CPU epoch of its own (none today) stays as it is */
    for (int32_t i = 0; i < g->n_ops && m->n_once < n; i++) {
        if (g->ops[i].opcode != TFL_OP_CALL_ONCE) continue;
        bool seen = false;
        for (int32_t k = 0; k < m->n_once; k++) seen |= m->once[k].op == i;
        if (seen) continue;
        cc_once *o = &m->once[m->n_once++];
        o->op = i;
        o->src_op = m->folded_g ? g->ops[i].index : i;
        o->init_subgraph = g->ops[i].opt.init_subgraph;
        once_why(o, "it has no CPU epoch");
    }
    if (any) {
        m->vars_init = vars;
        m->vars_init_size = gm->vars_size;
    } else {
        free(vars);
    }
    return NPUC_OK;
}
