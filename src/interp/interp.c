/* Reference interpreter: op lookup, memory planning, invoke. */
#include "interp_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN 16u

struct interp {
    const graph *g;
    interp_options opt;
    npuc_arena arena;
    interp_node *nodes;
    const interp_op_impl **impls;
    size_t *offset;          /* per tensor: offset in act (activations) or state (variables) */
    uint8_t *act;
    size_t act_size;
    uint8_t *state;          /* variable tensors */
    size_t state_size;
    uint8_t *scratch;
    size_t scratch_size;
    uint8_t *persist;
    size_t persist_size;
    bool not_ready;          /* the last invoke ended early (K_OP_NOT_READY) */
    uint8_t *vars;           /* resource variables (graph_model), zeroed at create and reset */
    size_t vars_size;
};

/* Marker for CUSTOM ops run by interp_options.custom_eval. */
static const interp_op_impl custom_impl = {TFL_OP_CUSTOM, NULL, NULL};

/* The implementation of an op: by builtin code, and for CUSTOM ops by
 * custom code. */
static const interp_op_impl *find_impl(const graph_op *op)
{
    const interp_op_impl *(*groups[])(int32_t *) = {
        interp_ops_conv,  interp_ops_elementwise, interp_ops_activation, interp_ops_shape,  interp_ops_math,
        interp_ops_binop, interp_ops_gather,      interp_ops_reduce,     interp_ops_lstm,   interp_ops_custom,
        interp_ops_signal, interp_ops_control};
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        int32_t n = 0;
        const interp_op_impl *t = groups[gi](&n);
        for (int32_t i = 0; i < n; i++) {
            if (t[i].opcode != op->opcode) continue;
            if (op->opcode != TFL_OP_CUSTOM) return &t[i];
            if (t[i].custom_code && op->custom_code && strcmp(t[i].custom_code, op->custom_code) == 0) return &t[i];
        }
    }
    return NULL;
}

/* ---- accessors used by op implementations ---- */

const void *interp_tensor_data(const interp *ip, int32_t tensor)
{
    if (tensor < 0 || tensor >= ip->g->n_tensors) return NULL;
    const graph_tensor *t = &ip->g->tensors[tensor];
    if (t->is_variable) return ip->state + ip->offset[tensor];
    if (t->data) return t->data;
    return ip->act + ip->offset[tensor];
}

void *interp_tensor_mut(interp *ip, int32_t tensor)
{
    if (tensor < 0 || tensor >= ip->g->n_tensors) return NULL;
    const graph_tensor *t = &ip->g->tensors[tensor];
    if (t->is_variable) return ip->state + ip->offset[tensor];
    if (t->data) return NULL;
    return ip->act + ip->offset[tensor];
}

void *interp_node_alloc(interp_node *n, size_t size) { return npuc_arena_calloc(n->arena, 1, size ? size : 1); }

void *interp_node_blob(interp_node *n, uint32_t kind, size_t size)
{
    if (size >= UINT32_MAX) return NULL;
    void *b = npuc_arena_calloc(n->arena, 1, size ? size : 1);
    if (!b) return NULL;
    n->kind = kind;
    n->params = b;
    n->params_size = (uint32_t)size;
    return b;
}

void interp_dims(const graph_tensor *t, k_dims *d)
{
    d->rank = t->rank > K_MAX_DIMS ? K_MAX_DIMS : t->rank;
    for (int32_t i = 0; i < K_MAX_DIMS; i++) d->d[i] = i < d->rank ? t->shape[i] : 1;
}

const graph *interp_graph(const interp *ip) { return ip->g; }
size_t interp_arena_size(const interp *ip) { return ip->act_size; }
size_t interp_scratch_size(const interp *ip) { return ip->scratch_size + ip->persist_size + ip->state_size; }

/* ---- memory planning ---- */

typedef struct live {
    int32_t tensor;
    int32_t first, last;
    size_t size;
} live;

static int cmp_live(const void *a, const void *b)
{
    const live *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    return x->tensor - y->tensor;
}

static size_t align_up(size_t v) { return (v + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

static int plan(interp *ip, npuc_err *err)
{
    const graph *g = ip->g;
    live *lv = calloc((size_t)g->n_tensors + 1, sizeof(live));
    size_t *placed_off = calloc((size_t)g->n_tensors + 1, sizeof(size_t));
    if (!lv || !placed_off) {
        free(lv);
        free(placed_off);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    int32_t n = 0;
    size_t state = 0;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        const graph_tensor *gt = &g->tensors[t];
        if (gt->is_variable) {
            ip->offset[t] = state;
            state += align_up(gt->nbytes);
            continue;
        }
        if (gt->data) continue;
        int32_t first = INT32_MAX, last = -1, first_custom = INT32_MAX;
        if (gt->producer >= 0) first = gt->producer;
        for (int32_t i = 0; i < g->n_inputs; i++)
            if (g->inputs[i] == t) first = -1;
        for (int32_t o = 0; o < g->n_ops; o++) {
            const graph_op *op = &g->ops[o];
            for (int32_t k = 0; k < op->n_in; k++)
                if (op->in[k] == t) {
                    last = o > last ? o : last;
                    if (op->opcode == TFL_OP_CUSTOM && o < first_custom) first_custom = o;
                }
        }
        /* never written but read by CUSTOM ops (Vela's ethos-u scratch):
         * working memory they share, live from the first to the last */
        if (first == INT32_MAX) first = first_custom;
        for (int32_t i = 0; i < g->n_outputs; i++)
            if (g->outputs[i] == t) last = g->n_ops;
        if (first == INT32_MAX) continue; /* never written and not an input: unused */
        if (last < first) last = first;   /* written but never read */
        lv[n++] = (live){t, first, last, align_up(gt->nbytes ? gt->nbytes : 1)};
    }
    qsort(lv, (size_t)n, sizeof(live), cmp_live);
    size_t total = 0;
    for (int32_t i = 0; i < n; i++) {
        size_t off = 0;
        if (ip->opt.keep_all) {
            off = total;
        } else {
            /* lowest offset that does not overlap an already placed tensor
             * whose live range intersects this one */
            bool moved = true;
            while (moved) {
                moved = false;
                for (int32_t j = 0; j < i; j++) {
                    if (lv[j].last < lv[i].first || lv[i].last < lv[j].first) continue;
                    size_t a = placed_off[j], b = placed_off[j] + lv[j].size;
                    if (off < b && a < off + lv[i].size) {
                        off = b;
                        moved = true;
                    }
                }
            }
        }
        placed_off[i] = off;
        ip->offset[lv[i].tensor] = off;
        if (off + lv[i].size > total) total = off + lv[i].size;
    }
    free(lv);
    free(placed_off);
    ip->act_size = total;
    ip->state_size = state;
    return NPUC_OK;
}

/* ---- lifecycle ---- */

/* The blob a prepare built must be one the kernels accept: checked once
 * here, so that only tensor problems can fail at invoke. */
static int check_blob(const interp_node *n, npuc_err *err)
{
    if (!n->params || k_op_validate(n->kind, n->params, n->params_size) != K_OK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "the op's parameters are outside the range the kernels support (kind %s)",
                         k_op_name(n->kind) ? k_op_name(n->kind) : "unknown");
    return NPUC_OK;
}

/* The node's k_op_io: its tensors (inputs in op order, absent ones NULL),
 * the shared scratch buffer and its persistent slice. */
static int node_io(interp *ip, interp_node *n, void *persistent, npuc_err *err)
{
    const graph_op *op = n->op;
    void **in = npuc_arena_calloc(&ip->arena, (size_t)op->n_in + 1, sizeof(void *));
    uint32_t *in_size = npuc_arena_calloc(&ip->arena, (size_t)op->n_in + 1, sizeof(uint32_t));
    void **out = npuc_arena_calloc(&ip->arena, (size_t)op->n_out + 1, sizeof(void *));
    uint32_t *out_size = npuc_arena_calloc(&ip->arena, (size_t)op->n_out + 1, sizeof(uint32_t));
    if (!in || !in_size || !out || !out_size) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        const bool is_in = k < op->n_in;
        const int32_t t = is_in ? op->in[k] : op->out[k - op->n_in];
        if (t < 0 || t >= ip->g->n_tensors) continue;
        const graph_tensor *gt = &ip->g->tensors[t];
        if (gt->nbytes > UINT32_MAX)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "op %d (%s): tensor '%s' has %zu bytes (at most 4 GiB)",
                             n->op_index, graph_op_name(op), gt->name ? gt->name : "?", gt->nbytes);
        void *data = (void *)interp_tensor_data(ip, t);
        if (is_in) {
            in[k] = data;
            in_size[k] = (uint32_t)gt->nbytes;
        } else {
            out[k - op->n_in] = data;
            out_size[k - op->n_in] = (uint32_t)gt->nbytes;
        }
    }
    n->io = (k_op_io){.in = in, .in_size = in_size, .n_in = op->n_in, .out = out, .out_size = out_size,
                      .n_out = op->n_out, .scratch = ip->scratch, .scratch_size = (uint32_t)ip->scratch_size,
                      .persistent = persistent, .persistent_size = (uint32_t)n->persistent_size,
                      .vars = ip->vars_size ? ip->vars : NULL, .vars_size = (uint32_t)ip->vars_size};
    return NPUC_OK;
}

bool interp_dtype_runs(graph_dtype t)
{
    switch (t) {
    case GRAPH_F32: case GRAPH_I32: case GRAPH_U8: case GRAPH_I64: case GRAPH_BOOL: case GRAPH_I16: case GRAPH_I8:
    case GRAPH_U32: case GRAPH_U16: case GRAPH_U64:
        return true;
    case GRAPH_F16: case GRAPH_F64: case GRAPH_C64: case GRAPH_C128: case GRAPH_I4:
    case GRAPH_STRING: case GRAPH_RESOURCE: case GRAPH_VARIANT:
        return false;
    }
    return false;
}

/* An op reading or writing a type the kernels do not compute: refused
 * before its prepare (which may not expect such types). The message names
 * the first such tensor; the caller prefixes the op. */
static int check_dtypes(const graph *g, const graph_op *op, npuc_err *err)
{
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        const int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (t < 0 || t >= g->n_tensors) continue;
        const graph_tensor *gt = &g->tensors[t];
        /* resource ids: only the variable and control ops handle them */
        if (gt->dtype == GRAPH_RESOURCE && graph_op_uses_model(op->opcode)) continue;
        if (!interp_dtype_runs(gt->dtype))
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s %d is tensor %d ('%s') of type %s, which the reference kernels do not run",
                             k < op->n_in ? "input" : "output", k < op->n_in ? k : k - op->n_in, t,
                             gt->name ? gt->name : "", graph_dtype_name(gt->dtype));
    }
    return NPUC_OK;
}

int32_t interp_legacy_uint8_tensor(const graph *g, const graph_op *op)
{
    switch (op->opcode) {
    case TFL_OP_QUANTIZE: case TFL_OP_DEQUANTIZE: case TFL_OP_CAST: case TFL_OP_CUSTOM: return -1;
    default: break;
    }
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        const int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (t < 0 || t >= g->n_tensors) continue;
        const graph_tensor *gt = &g->tensors[t];
        if (gt->dtype == GRAPH_U8 && gt->q.n >= 1) return t;
    }
    return -1;
}

int interp_check_legacy_uint8(const graph *g, bool (*only)(const void *user, int32_t op), const void *user,
                              npuc_err *err)
{
    for (int32_t i = 0; i < g->n_ops; i++) {
        if (only && !only(user, i)) continue;
        const graph_op *op = &g->ops[i];
        const int32_t t = interp_legacy_uint8_tensor(g, op);
        /* uint8 data movement (CONCATENATION, PAD, RESHAPE, ...) runs */
        if (t < 0 || interp_op_supported(g, op, NULL, 0)) continue;
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "op %d (%s): tensor %d ('%s') is asymmetric uint8, a legacy TFLite 1.x quantized model that "
                         "npuc and TFLite Micro do not run; re-quantize it to int8 (int8 post-training quantization)",
                         i, graph_op_name(op), t, g->tensors[t].name ? g->tensors[t].name : "");
    }
    return NPUC_OK;
}

/* Prepares op alone: the status, its scratch in *scratch, the message in why. */
static int prepare_alone(const graph *g, const graph_op *op, size_t *scratch, bool *in_place, char *why,
                         size_t why_size)
{
    const interp_op_impl *impl = find_impl(op);
    if (!impl) {
        if (why) snprintf(why, why_size, "operator %s is not implemented by the reference kernels", graph_op_name(op));
        return NPUC_E_UNSUPPORTED;
    }
    npuc_arena a;
    npuc_arena_init(&a);
    interp_node node = {.g = g, .op = op, .op_index = op->index, .arena = &a};
    npuc_err e = {0};
    int rc = check_dtypes(g, op, &e);
    if (!rc) rc = impl->prepare(&node, &e);
    if (!rc) rc = check_blob(&node, &e);
    if (rc && why) snprintf(why, why_size, "%s", e.msg);
    if (scratch) *scratch = rc ? 0 : node.scratch_size;
    if (in_place) *in_place = !rc && k_op_in_place(node.kind, node.params, node.params_size);
    npuc_arena_free(&a);
    return rc;
}

void interp_infer_shapes(graph *g)
{
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (op->opcode != TFL_OP_CUSTOM) continue;
        for (int32_t k = 0; k < op->n_out; k++) {
            graph_tensor *t = op->out[k] >= 0 ? &g->tensors[op->out[k]] : NULL;
            int32_t rank = 0, shape[GRAPH_MAX_RANK] = {0};
            if (!t || t->rank != 0 || t->data || !interp_custom_out_shape(op, k, &rank, shape)) continue;
            if (rank < 1 || rank > GRAPH_MAX_RANK) continue;
            t->rank = rank;
            memcpy(t->shape, shape, sizeof shape[0] * (size_t)rank);
            t->nbytes = graph_dtype_nbytes(t->dtype, graph_tensor_elems(t));
        }
    }
}

bool interp_op_supported(const graph *g, const graph_op *op, char *why, size_t why_size)
{
    return prepare_alone(g, op, NULL, NULL, why, why_size) == NPUC_OK;
}

size_t interp_op_scratch(const graph *g, const graph_op *op)
{
    size_t s = 0;
    prepare_alone(g, op, &s, NULL, NULL, 0);
    return s;
}

bool interp_op_in_place(const graph *g, const graph_op *op)
{
    bool in_place = false;
    prepare_alone(g, op, NULL, &in_place, NULL, 0);
    return in_place;
}

void interp_free(interp *ip)
{
    if (!ip) return;
    free(ip->act);
    free(ip->state);
    free(ip->scratch);
    free(ip->persist);
    free(ip->vars);
    npuc_arena_free(&ip->arena);
    free(ip);
}

void interp_reset_state(interp *ip)
{
    const graph *g = ip->g;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        const graph_tensor *gt = &g->tensors[t];
        if (!gt->is_variable) continue;
        /* TFLite Micro's ResetVariableTensors: int8 tensors start at their
         * zero point (real 0), everything else at 0 bytes. */
        int fill = 0;
        if (gt->dtype == GRAPH_I8 && gt->q.n >= 1 && gt->q.zero_point) fill = (int)(int8_t)gt->q.zero_point[0];
        if (gt->data) memcpy(ip->state + ip->offset[t], gt->data, gt->nbytes);
        else memset(ip->state + ip->offset[t], fill, gt->nbytes);
    }
    if (ip->persist_size) memset(ip->persist, 0, ip->persist_size);
    /* resource variables start again at their fill value (TFLite Micro's
     * ResetAll), CALL_ONCE runs again (its flag is in persist) */
    if (ip->vars_size) memset(ip->vars, 0, ip->vars_size);
}

/* custom_any: the ops custom_eval does not take (for the legacy uint8 check). */
static bool not_custom(const void *user, int32_t op)
{
    const interp *ip = user;
    return !ip->opt.custom_accept(ip->opt.custom_user, &ip->g->ops[op]);
}

int interp_create(const graph *g, const interp_options *opt, interp **out, npuc_err *err)
{
    *out = NULL;
    interp *ip = calloc(1, sizeof *ip);
    if (!ip) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    npuc_arena_init(&ip->arena);
    ip->g = g;
    if (opt) ip->opt = *opt;
    int rc = NPUC_OK;
    ip->nodes = npuc_arena_calloc(&ip->arena, (size_t)g->n_ops + 1, sizeof(interp_node));
    ip->impls = npuc_arena_calloc(&ip->arena, (size_t)g->n_ops + 1, sizeof(*ip->impls));
    ip->offset = npuc_arena_calloc(&ip->arena, (size_t)g->n_tensors + 1, sizeof(size_t));
    if (!ip->nodes || !ip->impls || !ip->offset) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (!rc) rc = interp_check_legacy_uint8(g, ip->opt.custom_any && ip->opt.custom_accept ? not_custom : NULL, ip, err);
    size_t persist = 0;
    for (int32_t i = 0; i < g->n_ops && !rc; i++) {
        const graph_op *op = &g->ops[i];
        interp_node *n = &ip->nodes[i];
        *n = (interp_node){.g = g, .op = op, .op_index = i, .arena = &ip->arena};
        const interp_op_impl *impl = find_impl(op);
        bool any = ip->opt.custom_any && ip->opt.custom_accept;
        if ((op->opcode == TFL_OP_CUSTOM || any) && ip->opt.custom_eval &&
            (!ip->opt.custom_accept || ip->opt.custom_accept(ip->opt.custom_user, op))) {
            ip->impls[i] = &custom_impl;
            continue;
        }
        if (!impl) {
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "op %d (%s): operator is not supported by the reference interpreter",
                           i, graph_op_name(op));
            break;
        }
        ip->impls[i] = impl;
        rc = check_dtypes(g, op, err);
        if (!rc) rc = impl->prepare(n, err);
        if (!rc) rc = check_blob(n, err);
        if (rc) {
            npuc_err_prefix(err, "op %d (%s)", i, graph_op_name(op));
            break;
        }
        if (n->scratch_size > UINT32_MAX / 2 || n->persistent_size > UINT32_MAX / 2) {
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "op %d (%s): scratch or persistent state beyond 2 GiB", i,
                           graph_op_name(op));
            break;
        }
        if (n->scratch_size > ip->scratch_size) ip->scratch_size = align_up(n->scratch_size);
        persist += align_up(n->persistent_size);
    }
    if (!rc) rc = plan(ip, err);
    const graph_model *gm = graph_model_of(g);
    ip->vars_size = gm ? gm->vars_size : 0;
    if (!rc && ip->vars_size > UINT32_MAX / 2)
        rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "resource variables of %zu bytes (at most 2 GiB)", ip->vars_size);
    if (!rc && ip->vars_size && !(ip->vars = calloc(1, ip->vars_size)))
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (!rc) {
        ip->persist_size = persist;
        ip->act = calloc(1, ip->act_size ? ip->act_size : 1);
        ip->state = calloc(1, ip->state_size ? ip->state_size : 1);
        ip->scratch = calloc(1, ip->scratch_size ? ip->scratch_size : 1);
        ip->persist = calloc(1, persist ? persist : 1);
        if (!ip->act || !ip->state || !ip->scratch || !ip->persist) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    size_t p = 0;
    for (int32_t i = 0; i < g->n_ops && !rc; i++) {
        interp_node *n = &ip->nodes[i];
        if (ip->impls[i] == &custom_impl) continue;
        rc = node_io(ip, n, n->persistent_size ? ip->persist + p : NULL, err);
        p += align_up(n->persistent_size);
    }
    if (rc) {
        interp_free(ip);
        return rc;
    }
    interp_reset_state(ip);
    *out = ip;
    return NPUC_OK;
}

int interp_set_input(interp *ip, int32_t input_index, const void *data, size_t size, npuc_err *err)
{
    const graph *g = ip->g;
    if (input_index < 0 || input_index >= g->n_inputs)
        return npuc_errf(err, NPUC_E_USAGE, "input index %d is out of range (model has %d inputs)", input_index,
                         g->n_inputs);
    const graph_tensor *t = &g->tensors[g->inputs[input_index]];
    if (size != t->nbytes)
        return npuc_errf(err, NPUC_E_INVALID, "input %d ('%s'): got %zu bytes, expected %zu (%s)", input_index, t->name,
                         size, t->nbytes, graph_dtype_name(t->dtype));
    memcpy((void *)interp_tensor_data(ip, g->inputs[input_index]), data, size);
    return NPUC_OK;
}

int interp_invoke(interp *ip, npuc_err *err)
{
    const graph *g = ip->g;
    ip->not_ready = false;
    for (int32_t i = 0; i < g->n_ops; i++) {
        interp_node *n = &ip->nodes[i];
        int rc;
        if (ip->impls[i] == &custom_impl) {
            rc = ip->opt.custom_eval(ip->opt.custom_user, ip, n->op, err);
        } else {
            const int krc = k_op_run(n->kind, n->params, n->params_size, &n->io);
            if (krc == K_OP_NOT_READY) { /* the op ran and ends this invocation */
                ip->not_ready = true;
                if (ip->opt.on_op_done) ip->opt.on_op_done(ip->opt.user, ip, i);
                return NPUC_OK;
            }
            rc = krc == K_OK ? NPUC_OK
                 : krc == K_E_UNSUPPORTED
                     ? npuc_errf(err, NPUC_E_UNSUPPORTED, "kernel %s reported values it cannot compute",
                                 k_op_name(n->kind))
                     : npuc_errf(err, NPUC_E_RUNTIME, "kernel %s rejected its parameters or tensor sizes",
                                 k_op_name(n->kind));
        }
        if (rc) return npuc_err_prefix(err, "op %d (%s)", i, graph_op_name(n->op));
        if (ip->opt.on_op_done) ip->opt.on_op_done(ip->opt.user, ip, i);
    }
    return NPUC_OK;
}

bool interp_not_ready(const interp *ip) { return ip && ip->not_ready; }

const void *interp_output(const interp *ip, int32_t output_index, size_t *size)
{
    const graph *g = ip->g;
    if (output_index < 0 || output_index >= g->n_outputs) return NULL;
    const graph_tensor *t = &g->tensors[g->outputs[output_index]];
    if (size) *size = t->nbytes;
    return interp_tensor_data(ip, g->outputs[output_index]);
}

int interp_op_prepared(const interp *ip, int32_t op_index, uint32_t *kind, const void **params,
                       uint32_t *params_size, uint32_t *scratch_size, uint32_t *persistent_size)
{
    if (!ip || op_index < 0 || op_index >= ip->g->n_ops) return NPUC_E_USAGE;
    const interp_node *n = &ip->nodes[op_index];
    if (ip->impls[op_index] == &custom_impl || !n->params) return NPUC_E_UNSUPPORTED;
    if (kind) *kind = n->kind;
    if (params) *params = n->params;
    if (params_size) *params_size = n->params_size;
    if (scratch_size) *scratch_size = (uint32_t)n->scratch_size;
    if (persistent_size) *persistent_size = (uint32_t)n->persistent_size;
    return NPUC_OK;
}

size_t interp_vars_size(const interp *ip) { return ip ? ip->vars_size : 0; }

bool interp_tensor_slot(const interp *ip, int32_t tensor, size_t *offset)
{
    if (tensor < 0 || tensor >= ip->g->n_tensors) return false;
    const graph_tensor *t = &ip->g->tensors[tensor];
    if (t->is_variable || t->data) return false;
    *offset = ip->offset[tensor];
    return true;
}

size_t interp_scratch_bytes(const interp *ip) { return ip->scratch_size; }
