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
    if (x->n_outputs == 0 && !is_ethosu(op))
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

int graph_import(const tfl_model *m, graph **out, npuc_err *err)
{
    *out = NULL;
    if (m->n_subgraphs < 1) return npuc_errf(err, NPUC_E_INVALID, "model has no subgraphs");
    const tfl_subgraph *sg = &m->subgraphs[0];
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
    if (!rc && sg->n_outputs == 0) rc = npuc_errf(err, NPUC_E_INVALID, "subgraph 0 has no outputs");
    if (!rc) rc = graph_set_io(g, sg->n_inputs, sg->inputs ? sg->inputs : (const int32_t[]){0}, sg->n_outputs,
                               sg->outputs);
    if (!rc) {
        for (int32_t i = 0; i < g->n_inputs && !rc; i++)
            if (g->tensors[g->inputs[i]].data)
                rc = npuc_errf(err, NPUC_E_INVALID, "model input %d (tensor %d '%s') is a constant", i, g->inputs[i],
                               g->tensors[g->inputs[i]].name);
    }
    if (!rc) rc = check_order(g, err);
    if (!rc) rc = import_offline_offsets(g, m, err);
    if (rc) {
        graph_free(g);
        return rc;
    }
    *out = g;
    return NPUC_OK;
}
