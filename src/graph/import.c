/* TFLite model -> graph, with validation. Errors name the tensor or op. */
#include "graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void zp_range(graph_dtype t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case GRAPH_I8: *lo = -128; *hi = 127; break;
    case GRAPH_U8: *lo = 0; *hi = 255; break;
    case GRAPH_I16: *lo = -32768; *hi = 32767; break;
    case GRAPH_U16: *lo = 0; *hi = 65535; break;
    case GRAPH_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

static int import_tensor(graph *g, const tfl_model *m, const tfl_subgraph *sg, int32_t i, npuc_err *err)
{
    const tfl_tensor *x = &sg->tensors[i];
    graph_tensor *t = &g->tensors[i];
    t->name = npuc_arena_strdup(&g->arena, x->name ? x->name : "");
    if (!t->name) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    t->producer = -1;
    t->arena_offset = -1;
    t->is_variable = x->is_variable;
    if (!graph_dtype_valid(x->type))
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d ('%s'): type %s (%d) is not a TFLite tensor type", i, t->name,
                         tfl_type_name(x->type), x->type);
    t->dtype = (graph_dtype)x->type;
    if (x->has_sparsity)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d ('%s'): sparse tensors are not supported", i, t->name);
    if (x->rank > GRAPH_MAX_RANK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d ('%s'): rank %d exceeds the maximum of %d", i, t->name,
                         x->rank, GRAPH_MAX_RANK);
    t->rank = x->rank;
    size_t elems = 1, extent = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (x->shape[d] < 0)
            return npuc_errf(err, NPUC_E_INVALID, "tensor %d ('%s'): dimension %d is negative (%d)", i, t->name, d,
                             x->shape[d]);
        t->shape[d] = x->shape[d];
        /* The product of the non-zero dims is bounded too: a zero dim must not
         * let the others grow so large that partial products (outer/inner
         * sizes in the ops) overflow. */
        if (!npuc_mul_size(elems, (size_t)x->shape[d], &elems) ||
            !npuc_mul_size(extent, x->shape[d] ? (size_t)x->shape[d] : 1u, &extent) || extent > ((size_t)1 << 40))
            return npuc_errf(err, NPUC_E_INVALID, "tensor %d ('%s'): shape is too large", i, t->name);
    }
    t->nbytes = graph_dtype_nbytes(t->dtype, elems);

    /* constant data */
    if (x->buffer != 0 && x->buffer < (uint32_t)m->n_buffers) {
        const tfl_buffer *b = &m->buffers[x->buffer];
        if (b->size) {
            if (x->is_variable) {
                /* initial value of a state tensor: allowed, must match */
            }
            if (!graph_dtype_fixed(t->dtype)) t->nbytes = b->size; /* raw bytes (e.g. TFLite's string layout) */
            else if (b->size != t->nbytes)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "tensor %d ('%s'): buffer %u holds %zu bytes but shape and type %s need %zu", i, t->name,
                                 x->buffer, b->size, graph_dtype_name(t->dtype), t->nbytes);
            t->data = npuc_arena_memdup(&g->arena, b->data, b->size);
            if (!t->data) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        }
    } else if (x->buffer >= (uint32_t)m->n_buffers && x->buffer != 0) {
        return npuc_errf(err, NPUC_E_INVALID, "tensor %d ('%s'): buffer index %u is out of range (%d buffers)", i,
                         t->name, x->buffer, m->n_buffers);
    }

    /* quantization */
    const tfl_quant *q = &x->quant;
    if (q->present && q->details_type != 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d ('%s'): custom quantization details are not supported", i,
                         t->name);
    if (q->present && q->n_scale > 0) {
        int32_t n = q->n_scale;
        if (q->n_zero_point != n && !(q->n_zero_point == 1 && n > 1))
            return npuc_errf(err, NPUC_E_INVALID,
                             "tensor %d ('%s'): quantization has %d scales but %d zero points", i, t->name, n,
                             q->n_zero_point);
        int32_t qdim = q->quantized_dimension;
        /* Some converters leave quantized_dimension 3 on rank-1 bias tensors;
         * TFLite ignores it there, so take the only axis that fits. */
        if (n > 1 && (qdim < 0 || qdim >= t->rank) && t->rank >= 1 && t->shape[t->rank - 1] == n) qdim = t->rank - 1;
        if (n > 1) {
            if (qdim < 0 || qdim >= t->rank)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "tensor %d ('%s'): quantized_dimension %d is outside the tensor's rank %d", i, t->name,
                                 q->quantized_dimension, t->rank);
            if (t->shape[qdim] != n)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "tensor %d ('%s'): %d per-axis scales but dimension %d has size %d", i, t->name, n,
                                 qdim, t->shape[qdim]);
        }
        int64_t lo, hi;
        zp_range(t->dtype, &lo, &hi);
        float *sc = npuc_arena_calloc(&g->arena, (size_t)n, sizeof(float));
        int64_t *zp = npuc_arena_calloc(&g->arena, (size_t)n, sizeof(int64_t));
        if (!sc || !zp) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (int32_t k = 0; k < n; k++) {
            float s = q->scale[k];
            if (!(s >= 0.0f) || isinf(s))
                return npuc_errf(err, NPUC_E_INVALID, "tensor %d ('%s'): quantization scale[%d] = %g is not valid", i,
                                 t->name, k, (double)s);
            int64_t z = q->n_zero_point ? q->zero_point[q->n_zero_point == 1 ? 0 : k] : 0;
            if (z < lo || z > hi)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "tensor %d ('%s'): zero point %lld is outside the range of %s", i, t->name,
                                 (long long)z, graph_dtype_name(t->dtype));
            sc[k] = s;
            zp[k] = z;
        }
        t->q.n = n;
        t->q.scale = sc;
        t->q.zero_point = zp;
        t->q.axis = n > 1 ? qdim : 0;
    }
    return NPUC_OK;
}

static int check_index_list(const int32_t *v, int32_t n, int32_t n_tensors, bool allow_absent, const char *what,
                            npuc_err *err)
{
    for (int32_t i = 0; i < n; i++) {
        if (v[i] == -1 && allow_absent) continue;
        if (v[i] < 0 || v[i] >= n_tensors)
            return npuc_errf(err, NPUC_E_INVALID, "%s[%d] = %d is not a valid tensor index (%d tensors)", what, i, v[i],
                             n_tensors);
    }
    return NPUC_OK;
}

/* A Vela "ethos-u" operator: its tensors live in one arena that all such
 * operators share (docs/ethos-u.md 10). */
static bool is_ethosu(const graph_op *op)
{
    return op->opcode == TFL_OP_CUSTOM && op->custom_code && !strcmp(op->custom_code, "ethos-u");
}

static int import_op(graph *g, const tfl_model *m, const tfl_subgraph *sg, int32_t i, npuc_err *err)
{
    const tfl_operator *x = &sg->operators[i];
    graph_op *op = &g->ops[i];
    const tfl_opcode *oc = &m->opcodes[x->opcode_index];
    op->index = i;
    op->opcode = tfl_opcode_builtin(oc);
    op->version = oc->version;
    const char *name = tfl_builtin_name(op->opcode);
    if (op->opcode < 0 || strcmp(name, "UNKNOWN") == 0)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "op %d: builtin operator code %d is not a known TFLite operator", i,
                         op->opcode);
    if (oc->custom_code) {
        op->custom_code = npuc_arena_strdup(&g->arena, oc->custom_code);
        if (!op->custom_code) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    if (op->opcode == TFL_OP_CUSTOM && !op->custom_code)
        return npuc_errf(err, NPUC_E_INVALID, "op %d: CUSTOM operator without a custom_code", i);
    if (x->options_type != 0) {
        int want = tfl_builtin_options_type(op->opcode);
        if (want >= 0 && want != x->options_type)
            return npuc_errf(err, NPUC_E_INVALID, "op %d (%s): builtin options of type %d, expected type %d", i, name,
                             x->options_type, want);
    }
    op->opt = x->options;
    if (op->opt.new_shape) {
        op->opt.new_shape = npuc_arena_memdup(&g->arena, op->opt.new_shape, (size_t)op->opt.n_new_shape * 4);
        if (!op->opt.new_shape) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    if (op->opt.squeeze_dims) {
        op->opt.squeeze_dims = npuc_arena_memdup(&g->arena, op->opt.squeeze_dims, (size_t)op->opt.n_squeeze_dims * 4);
        if (!op->opt.squeeze_dims) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    op->opt.graph_model = NULL;
    if (op->opt.container && !(op->opt.container = npuc_arena_strdup(&g->arena, op->opt.container)))
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (op->opt.shared_name && !(op->opt.shared_name = npuc_arena_strdup(&g->arena, op->opt.shared_name)))
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (x->has_custom_options) {
        op->custom_options = npuc_arena_memdup(&g->arena, x->custom_options, x->n_custom_options);
        if (!op->custom_options) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        op->n_custom_options = x->n_custom_options;
    }
    char what[64];
    snprintf(what, sizeof what, "op %d (%s) inputs", i, name);
    int rc = check_index_list(x->inputs, x->n_inputs, sg->n_tensors, true, what, err);
    if (rc) return rc;
    snprintf(what, sizeof what, "op %d (%s) outputs", i, name);
    if ((rc = check_index_list(x->outputs, x->n_outputs, sg->n_tensors, false, what, err))) return rc;
    /* Vela's ethos-u operators may list no outputs: their results stay in
     * the shared arena for a later ethos-u operator (docs/ethos-u.md 10) */
    if (x->n_outputs == 0 && !is_ethosu(op) && op->opcode != TFL_OP_CALL_ONCE && op->opcode != TFL_OP_ASSIGN_VARIABLE)
        return npuc_errf(err, NPUC_E_INVALID, "op %d (%s) has no outputs", i, name);
    op->n_in = x->n_inputs;
    op->n_out = x->n_outputs;
    op->in = npuc_arena_memdup(&g->arena, x->inputs, (size_t)x->n_inputs * 4);
    op->out = npuc_arena_memdup(&g->arena, x->outputs, (size_t)x->n_outputs * 4);
    if (!op->in || !op->out) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    return NPUC_OK;
}

/* Every tensor an op reads must be a constant, a variable, a graph input or
 * written by an earlier op; every tensor is written at most once. */
static int check_order(graph *g, npuc_err *err)
{
    bool *ready = calloc((size_t)g->n_tensors + 1, sizeof(bool));
    if (!ready) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    for (int32_t i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].data || g->tensors[i].is_variable) ready[i] = true;
    for (int32_t i = 0; i < g->n_inputs; i++) ready[g->inputs[i]] = true;
    for (int32_t i = 0; i < g->n_ops && !rc; i++) {
        graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_in && !rc; k++) {
            int32_t t = op->in[k];
            /* custom ops (e.g. Vela's ethos-u) take scratch tensors that
             * nobody writes before them: working memory, not data */
            if (t >= 0 && !ready[t] && op->opcode != TFL_OP_CUSTOM)
                rc = npuc_errf(err, NPUC_E_INVALID,
                               "op %d (%s) input %d reads tensor %d ('%s'), which is neither a constant, a model input "
                               "nor written by an earlier op",
                               i, graph_op_name(op), k, t, g->tensors[t].name);
        }
        for (int32_t k = 0; k < op->n_out && !rc; k++) {
            int32_t t = op->out[k];
            graph_tensor *gt = &g->tensors[t];
            if (gt->data)
                rc = npuc_errf(err, NPUC_E_INVALID, "op %d (%s) output %d writes constant tensor %d ('%s')", i,
                               graph_op_name(op), k, t, gt->name);
            else if (gt->producer >= 0 && !(is_ethosu(op) && is_ethosu(&g->ops[gt->producer])))
                rc = npuc_errf(err, NPUC_E_INVALID,
                               "op %d (%s) output %d writes tensor %d ('%s'), already written by op %d", i,
                               graph_op_name(op), k, t, gt->name, gt->producer);
            else if (gt->producer < 0) {
                /* a second ethos-u writer fills another part of the tensor
                 * in the shared arena; the first stays its producer */
                gt->producer = i;
                ready[t] = true;
            }
        }
    }
    for (int32_t i = 0; i < g->n_outputs && !rc; i++)
        if (!ready[g->outputs[i]])
            rc = npuc_errf(err, NPUC_E_INVALID, "model output %d (tensor %d '%s') is never written", i, g->outputs[i],
                           g->tensors[g->outputs[i]].name);
    free(ready);
    return rc;
}

/* Metadata "OfflineMemoryAllocation": int32 words [version 0, subgraph
 * count, tensor count, one arena offset per tensor (-1 = planned online)];
 * the offsets of subgraph 0 come first. */
static int import_offline_offsets(graph *g, const tfl_model *m, npuc_err *err)
{
    for (int32_t i = 0; i < m->n_metadata; i++) {
        const tfl_metadata *md = &m->metadata[i];
        if (!md->name || strcmp(md->name, "OfflineMemoryAllocation")) continue;
        if (md->buffer >= (uint32_t)m->n_buffers)
            return npuc_errf(err, NPUC_E_INVALID, "metadata %d (OfflineMemoryAllocation): buffer %u out of range", i,
                             md->buffer);
        const tfl_buffer *b = &m->buffers[md->buffer];
        const uint8_t *d = b->data;
        if (!d || b->size < 12 || b->size % 4)
            return npuc_errf(err, NPUC_E_INVALID,
                             "metadata %d (OfflineMemoryAllocation): %zu bytes, expected a header of 3 int32 words "
                             "and one word per tensor", i, b->size);
        int32_t w[3];
        for (int k = 0; k < 3; k++)
            w[k] = (int32_t)((uint32_t)d[4 * k] | (uint32_t)d[4 * k + 1] << 8 | (uint32_t)d[4 * k + 2] << 16 |
                             (uint32_t)d[4 * k + 3] << 24);
        if (w[0] != 0)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "metadata %d (OfflineMemoryAllocation): version %d, expected 0",
                             i, w[0]);
        size_t n = (b->size - 12) / 4;
        if (w[2] < g->n_tensors || (size_t)w[2] != n)
            return npuc_errf(err, NPUC_E_INVALID,
                             "metadata %d (OfflineMemoryAllocation): %d offsets for %zu words, subgraph 0 has %d "
                             "tensors", i, w[2], n, g->n_tensors);
        for (int32_t t = 0; t < g->n_tensors; t++) {
            const uint8_t *q = d + 12 + 4 * (size_t)t;
            int32_t off = (int32_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                                    (uint32_t)q[3] << 24);
            if (off < -1)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "metadata %d (OfflineMemoryAllocation): tensor %d has offset %d", i, t, off);
            g->tensors[t].arena_offset = off;
        }
    }
    return NPUC_OK;
}

static int import_subgraph(const tfl_model *m, int32_t si, graph **out, npuc_err *err)
{
    *out = NULL;
    const tfl_subgraph *sg = &m->subgraphs[si];
    graph *g = graph_new(sg->name ? sg->name : "");
    if (!g) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    g->tensors = npuc_arena_calloc(&g->arena, (size_t)sg->n_tensors + 1, sizeof(graph_tensor));
    g->ops = npuc_arena_calloc(&g->arena, (size_t)sg->n_operators + 1, sizeof(graph_op));
    if (!g->tensors || !g->ops) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    g->n_tensors = sg->n_tensors;
    g->n_ops = sg->n_operators;
    g->cap_tensors = sg->n_tensors + 1;
    g->cap_ops = sg->n_operators + 1;
    for (int32_t i = 0; i < sg->n_tensors && !rc; i++) rc = import_tensor(g, m, sg, i, err);
    for (int32_t i = 0; i < sg->n_operators && !rc; i++) rc = import_op(g, m, sg, i, err);
    if (!rc) rc = check_index_list(sg->inputs, sg->n_inputs, sg->n_tensors, false, "subgraph inputs", err);
    if (!rc) rc = check_index_list(sg->outputs, sg->n_outputs, sg->n_tensors, false, "subgraph outputs", err);
    /* subgraph 0 must produce something; a CALL_ONCE initialiser may not */
    if (!rc && sg->n_outputs == 0 && si == 0) rc = npuc_errf(err, NPUC_E_INVALID, "subgraph 0 has no outputs");
    if (!rc) rc = graph_set_io(g, sg->n_inputs, sg->inputs ? sg->inputs : (const int32_t[]){0}, sg->n_outputs,
                               sg->outputs ? sg->outputs : (const int32_t[]){0});
    if (!rc) {
        for (int32_t i = 0; i < g->n_inputs && !rc; i++)
            if (g->tensors[g->inputs[i]].data)
                rc = npuc_errf(err, NPUC_E_INVALID, "model input %d (tensor %d '%s') is a constant", i, g->inputs[i],
                               g->tensors[g->inputs[i]].name);
    }
    if (!rc) rc = check_order(g, err);
    if (!rc && si == 0) rc = import_offline_offsets(g, m, err);
    if (rc) {
        if (si > 0) npuc_err_prefix(err, "subgraph %d", si);
        graph_free(g);
        return rc;
    }
    *out = g;
    return NPUC_OK;
}

/* ---- several subgraphs and resource variables ---- */

static const char *sg_what(char *buf, size_t n, int32_t s, int32_t i, const graph_op *op)
{
    snprintf(buf, n, "op %d (%s) of subgraph %d", i, graph_op_name(op), s);
    return buf;
}

/* The subgraphs an op calls: IF then/else, WHILE cond/body, CALL_ONCE init. */
static int32_t callees(const graph_op *op, int32_t idx[2], const char *names[2])
{
    switch (op->opcode) {
    case TFL_OP_IF:
        idx[0] = op->opt.then_subgraph, names[0] = "then_subgraph_index";
        idx[1] = op->opt.else_subgraph, names[1] = "else_subgraph_index";
        return 2;
    case TFL_OP_WHILE:
        idx[0] = op->opt.cond_subgraph, names[0] = "cond_subgraph_index";
        idx[1] = op->opt.body_subgraph, names[1] = "body_subgraph_index";
        return 2;
    case TFL_OP_CALL_ONCE: idx[0] = op->opt.init_subgraph, names[0] = "init_subgraph_index"; return 1;
    default: return 0;
    }
}

/* Tensor list a[0..n) against the subgraph's list b[0..n): same types and byte sizes. */
static int match_tensors(const graph *ga, const int32_t *a, const graph *gb, const int32_t *b, int32_t n,
                         const char *what_a, const char *what_b, int32_t sb, const char *who, npuc_err *err)
{
    for (int32_t k = 0; k < n; k++) {
        const graph_tensor *x = &ga->tensors[a[k]], *y = &gb->tensors[b[k]];
        if (x->dtype != y->dtype || x->nbytes != y->nbytes)
            return npuc_errf(err, NPUC_E_INVALID,
                             "%s: %s %d ('%s', %s, %zu bytes) does not match %s %d of subgraph %d ('%s', %s, %zu bytes)",
                             who, what_a, k, x->name, graph_dtype_name(x->dtype), x->nbytes, what_b, k, sb, y->name,
                             graph_dtype_name(y->dtype), y->nbytes);
    }
    return NPUC_OK;
}

static int check_count(int32_t got, int32_t want, const char *who, const char *what, int32_t sb, const char *sbwhat,
                       npuc_err *err)
{
    if (got == want) return NPUC_OK;
    return npuc_errf(err, NPUC_E_INVALID, "%s: %d %s, but subgraph %d has %d %s", who, got, what, sb, want, sbwhat);
}

static bool bool_scalar(const graph_tensor *t) { return t->dtype == GRAPH_BOOL && graph_tensor_elems(t) == 1; }

static int check_signature(const graph_model *gm, int32_t s, int32_t i, npuc_err *err)
{
    const graph *g = gm->sub[s];
    const graph_op *op = &g->ops[i];
    char who[96];
    sg_what(who, sizeof who, s, i, op);
    int32_t idx[2];
    const char *names[2];
    callees(op, idx, names); /* indices checked by check_indices */
    int rc = NPUC_OK;
    if (op->opcode == TFL_OP_IF) {
        if (op->n_in < 1 || op->in[0] < 0)
            return npuc_errf(err, NPUC_E_INVALID, "%s: needs the condition as input 0", who);
        if (!bool_scalar(&g->tensors[op->in[0]]))
            return npuc_errf(err, NPUC_E_INVALID, "%s: the condition (tensor %d '%s') must be one bool, not %s", who,
                             op->in[0], g->tensors[op->in[0]].name, graph_dtype_name(g->tensors[op->in[0]].dtype));
        for (int32_t k = 1; k < op->n_in; k++)
            if (op->in[k] < 0) return npuc_errf(err, NPUC_E_INVALID, "%s: input %d is absent", who, k);
        for (int32_t b = 0; b < 2 && !rc; b++) {
            const graph *c = gm->sub[idx[b]];
            rc = check_count(op->n_in - 1, c->n_inputs, who, "inputs after the condition", idx[b], "inputs", err);
            if (!rc && c->n_outputs != 0)
                rc = check_count(op->n_out, c->n_outputs, who, "outputs", idx[b], "outputs", err);
            if (!rc) rc = match_tensors(g, op->in + 1, c, c->inputs, c->n_inputs, "input", "input", idx[b], who, err);
            if (!rc && c->n_outputs)
                rc = match_tensors(g, op->out, c, c->outputs, c->n_outputs, "output", "output", idx[b], who, err);
        }
    } else if (op->opcode == TFL_OP_WHILE) {
        const graph *c = gm->sub[idx[0]], *b = gm->sub[idx[1]];
        for (int32_t k = 0; k < op->n_in; k++)
            if (op->in[k] < 0) return npuc_errf(err, NPUC_E_INVALID, "%s: input %d is absent", who, k);
        if (op->n_in != op->n_out)
            return npuc_errf(err, NPUC_E_INVALID, "%s: %d inputs but %d outputs (the loop variables are both)", who,
                             op->n_in, op->n_out);
        rc = check_count(op->n_in, c->n_inputs, who, "inputs", idx[0], "inputs (cond)", err);
        if (!rc) rc = check_count(op->n_in, b->n_inputs, who, "inputs", idx[1], "inputs (body)", err);
        if (!rc) rc = check_count(op->n_out, b->n_outputs, who, "outputs", idx[1], "outputs (body)", err);
        if (!rc) rc = match_tensors(g, op->in, c, c->inputs, op->n_in, "input", "input", idx[0], who, err);
        if (!rc) rc = match_tensors(g, op->in, b, b->inputs, op->n_in, "input", "input", idx[1], who, err);
        if (!rc) rc = match_tensors(g, op->out, b, b->outputs, op->n_out, "output", "output", idx[1], who, err);
        if (!rc) rc = match_tensors(g, op->in, g, op->out, op->n_in, "input", "output", s, who, err);
        if (!rc && (c->n_outputs < 1 || !bool_scalar(&c->tensors[c->outputs[0]])))
            rc = npuc_errf(err, NPUC_E_INVALID, "%s: the cond subgraph %d must output one bool first, not %s", who,
                           idx[0], c->n_outputs < 1 ? "nothing" : graph_dtype_name(c->tensors[c->outputs[0]].dtype));
    } else if (op->opcode == TFL_OP_CALL_ONCE) {
        if (op->n_in != 0 || op->n_out != 0)
            return npuc_errf(err, NPUC_E_INVALID, "%s: has %d inputs and %d outputs, expected none", who, op->n_in,
                             op->n_out);
    }
    return rc;
}

static int check_indices(const graph_model *gm, int32_t s, int32_t i, npuc_err *err)
{
    const graph_op *op = &gm->sub[s]->ops[i];
    int32_t idx[2];
    const char *names[2];
    const int32_t n = callees(op, idx, names);
    char who[96];
    for (int32_t k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= gm->n_subgraphs)
            return npuc_errf(err, NPUC_E_INVALID, "%s: %s %d is not a subgraph of the model (it has %d)",
                             sg_what(who, sizeof who, s, i, op), names[k], idx[k], gm->n_subgraphs);
    return NPUC_OK;
}

/* 0 unvisited, 1 on the current path, 2 done. */
static int check_cycles(const graph_model *gm, int32_t s, uint8_t *mark, int32_t depth, npuc_err *err)
{
    if (mark[s] == 2) return NPUC_OK;
    mark[s] = 1;
    const graph *g = gm->sub[s];
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t idx[2];
        const char *names[2];
        const int32_t n = callees(&g->ops[i], idx, names);
        for (int32_t k = 0; k < n; k++) {
            char who[96];
            if (mark[idx[k]] == 1)
                return npuc_errf(err, NPUC_E_INVALID, "%s: calls subgraph %d, which is running already (recursion)",
                                 sg_what(who, sizeof who, s, i, &g->ops[i]), idx[k]);
            if (depth >= 8) /* the kernels' K_CTL_MAX_DEPTH */
                return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s: subgraph calls nested more than 8 deep",
                                 sg_what(who, sizeof who, s, i, &g->ops[i]));
            int rc = check_cycles(gm, idx[k], mark, depth + 1, err);
            if (rc) return rc;
        }
    }
    mark[s] = 2;
    return NPUC_OK;
}

/* The resource id of a READ/ASSIGN input when a VAR_HANDLE of the same
 * subgraph wrote it, else -1. */
static int32_t static_resource(const graph_model *gm, const graph *g, const graph_op *op)
{
    if (op->n_in < 1 || op->in[0] < 0) return -1;
    const int32_t p = g->tensors[op->in[0]].producer;
    if (p < 0 || g->ops[p].opcode != TFL_OP_VAR_HANDLE) return -1;
    return graph_resource_find(gm, g->ops[p].opt.container, g->ops[p].opt.shared_name);
}

static int resources(graph *owner, graph_model *gm, npuc_err *err)
{
    int32_t cap = 0;
    for (int32_t s = 0; s < gm->n_subgraphs; s++)
        for (int32_t i = 0; i < gm->sub[s]->n_ops; i++) cap += gm->sub[s]->ops[i].opcode == TFL_OP_VAR_HANDLE;
    gm->res = npuc_arena_calloc(&owner->arena, (size_t)cap + 1, sizeof(graph_resource));
    if (!gm->res) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    char who[96];
    /* ids in TFLite Micro's prepare order, storage fixed by assignments */
    for (int32_t s = 0; s < gm->n_subgraphs; s++) {
        const graph *g = gm->sub[s];
        for (int32_t i = 0; i < g->n_ops; i++) {
            const graph_op *op = &g->ops[i];
            if (op->opcode == TFL_OP_VAR_HANDLE) {
                if (!op->opt.shared_name)
                    return npuc_errf(err, NPUC_E_INVALID, "%s: VarHandleOptions.shared_name is missing",
                                     sg_what(who, sizeof who, s, i, op));
                if (op->n_in != 0 || op->n_out != 1 || g->tensors[op->out[0]].nbytes != 4)
                    return npuc_errf(err, NPUC_E_INVALID,
                                     "%s: expects no inputs and one resource (or int32) scalar output",
                                     sg_what(who, sizeof who, s, i, op));
                if (graph_resource_find(gm, op->opt.container, op->opt.shared_name) >= 0) continue;
                graph_resource *r = &gm->res[gm->n_res++];
                r->container = op->opt.container;
                r->shared_name = op->opt.shared_name;
                continue;
            }
            if (op->opcode != TFL_OP_ASSIGN_VARIABLE && op->opcode != TFL_OP_READ_VARIABLE) continue;
            const bool assign = op->opcode == TFL_OP_ASSIGN_VARIABLE;
            if (op->n_in != (assign ? 2 : 1) || op->n_out != (assign ? 0 : 1) || op->in[0] < 0 ||
                (assign && op->in[1] < 0) || g->tensors[op->in[0]].nbytes != 4)
                return npuc_errf(err, NPUC_E_INVALID, "%s: expects %s", sg_what(who, sizeof who, s, i, op),
                                 assign ? "a resource and a value as inputs, and no outputs"
                                        : "a resource as input and one output");
            const int32_t id = static_resource(gm, g, op);
            if (id < 0 || !assign) continue;
            const graph_tensor *v = &g->tensors[op->in[1]];
            graph_resource *r = &gm->res[id];
            if (!r->assigned) {
                r->assigned = true;
                r->dtype = v->dtype;
                r->rank = v->rank;
                memcpy(r->shape, v->shape, sizeof r->shape);
                r->nbytes = v->nbytes;
                /* TFLite Micro fills a new variable with the value
                 * tensor's zero point, truncated to int8 */
                r->fill = v->q.n >= 1 && v->q.zero_point ? (int32_t)(int8_t)v->q.zero_point[0] : 0;
            } else if (r->nbytes != v->nbytes || r->dtype != v->dtype) {
                return npuc_errf(err, NPUC_E_INVALID,
                                 "%s: assigns %zu bytes of %s to resource variable '%s', which holds %zu bytes of %s",
                                 sg_what(who, sizeof who, s, i, op), v->nbytes, graph_dtype_name(v->dtype),
                                 r->shared_name, r->nbytes, graph_dtype_name(r->dtype));
            }
        }
    }
    for (int32_t s = 0; s < gm->n_subgraphs; s++) {
        const graph *g = gm->sub[s];
        for (int32_t i = 0; i < g->n_ops; i++) {
            const graph_op *op = &g->ops[i];
            if (op->opcode != TFL_OP_READ_VARIABLE) continue;
            const int32_t id = static_resource(gm, g, op);
            if (id < 0) continue;
            const graph_resource *r = &gm->res[id];
            const graph_tensor *o = &g->tensors[op->out[0]];
            if (!r->assigned)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "%s: reads resource variable '%s', which no ASSIGN_VARIABLE of the model assigns",
                                 sg_what(who, sizeof who, s, i, op), r->shared_name);
            if (r->nbytes != o->nbytes || r->dtype != o->dtype)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "%s: reads %zu bytes of %s from resource variable '%s', which holds %zu bytes of %s",
                                 sg_what(who, sizeof who, s, i, op), o->nbytes, graph_dtype_name(o->dtype),
                                 r->shared_name, r->nbytes, graph_dtype_name(r->dtype));
        }
    }
    size_t off = 0;
    for (int32_t k = 0; k < gm->n_res; k++) {
        gm->res[k].area_off = off;
        off += GRAPH_VAR_HEADER + ((gm->res[k].nbytes + 7u) & ~(size_t)7u);
    }
    gm->vars_size = off;
    return NPUC_OK;
}

static bool model_needed(graph *const *subs, int32_t n)
{
    if (n > 1) return true;
    for (int32_t i = 0; i < subs[0]->n_ops; i++)
        if (graph_op_uses_model(subs[0]->ops[i].opcode)) return true;
    return false;
}

int graph_model_attach(graph **subs, int32_t n, npuc_err *err)
{
    if (n < 1 || !subs[0]) return npuc_errf(err, NPUC_E_USAGE, "no subgraph 0");
    graph *owner = subs[0];
    graph_model *gm = npuc_arena_calloc(&owner->arena, 1, sizeof *gm);
    graph **sub = npuc_arena_calloc(&owner->arena, (size_t)n, sizeof *sub);
    uint8_t *mark = calloc((size_t)n, 1);
    if (!gm || !sub || !mark) {
        free(mark);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    memcpy(sub, subs, (size_t)n * sizeof *sub);
    gm->n_subgraphs = n;
    gm->sub = sub;
    owner->model = gm; /* owns subs[1..n) from here on, also on failure */
    int rc = NPUC_OK;
    for (int32_t s = 0; s < n && !rc; s++)
        for (int32_t i = 0; i < sub[s]->n_ops && !rc; i++) rc = check_indices(gm, s, i, err);
    for (int32_t s = 0; s < n && !rc; s++) rc = check_cycles(gm, s, mark, 0, err);
    free(mark);
    for (int32_t s = 0; s < n && !rc; s++)
        for (int32_t i = 0; i < sub[s]->n_ops && !rc; i++) rc = check_signature(gm, s, i, err);
    if (!rc) rc = resources(owner, gm, err);
    for (int32_t s = 0; s < n && !rc; s++)
        for (int32_t i = 0; i < sub[s]->n_ops; i++)
            if (graph_op_uses_model(sub[s]->ops[i].opcode)) sub[s]->ops[i].opt.graph_model = gm;
    return rc;
}

int graph_import(const tfl_model *m, graph **out, npuc_err *err)
{
    *out = NULL;
    if (m->n_subgraphs < 1) return npuc_errf(err, NPUC_E_INVALID, "model has no subgraphs");
    graph **subs = calloc((size_t)m->n_subgraphs, sizeof *subs);
    if (!subs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    for (int32_t s = 0; s < m->n_subgraphs && !rc; s++) rc = import_subgraph(m, s, &subs[s], err);
    if (!rc && model_needed(subs, m->n_subgraphs)) {
        rc = graph_model_attach(subs, m->n_subgraphs, err);
        if (rc) {
            graph_free(subs[0]); /* and, as their owner, the others */
            free(subs);
            return rc;
        }
    }
    if (rc) {
        for (int32_t s = 0; s < m->n_subgraphs; s++) graph_free(subs[s]);
        free(subs);
        return rc;
    }
    *out = subs[0];
    free(subs);
    return NPUC_OK;
}
