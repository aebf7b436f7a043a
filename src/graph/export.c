/* graph -> TFLite model: subgraph 0 and the others of its graph_model, buffer 0 empty (as TFLite requires),
 * one buffer per constant tensor, a deduplicated operator-code table. */
#include "graph.h"

#include <string.h>

static void *dup_arr(npuc_arena *a, const void *p, size_t n, size_t elem)
{
    /* non-NULL even for n = 0: a present (possibly empty) vector */
    void *d = npuc_arena_calloc(a, n ? n : 1, elem);
    if (d && n) memcpy(d, p, n * elem);
    return d;
}

static bool same_str(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

static int export_tensor(tfl_model *m, const graph_tensor *t, int32_t i, uint32_t buffer, tfl_tensor *x, npuc_err *err)
{
    npuc_arena *a = &m->arena;
    x->name = npuc_arena_strdup(a, t->name ? t->name : "");
    x->shape = dup_arr(a, t->shape, (size_t)t->rank, sizeof(int32_t));
    if (!x->name || !x->shape) goto oom;
    x->rank = t->rank;
    x->has_shape = true;
    x->type = (int8_t)t->dtype;
    x->buffer = buffer;
    x->is_variable = t->is_variable;
    if (t->q.n > 0) {
        x->quant.present = true;
        x->quant.scale = dup_arr(a, t->q.scale, (size_t)t->q.n, sizeof(float));
        x->quant.zero_point = dup_arr(a, t->q.zero_point, (size_t)t->q.n, sizeof(int64_t));
        if (!x->quant.scale || !x->quant.zero_point) goto oom;
        x->quant.n_scale = t->q.n;
        x->quant.n_zero_point = t->q.n;
        x->quant.quantized_dimension = t->q.n > 1 ? t->q.axis : 0;
    }
    return NPUC_OK;
oom:
    return npuc_errf(err, NPUC_E_NOMEM, "out of memory exporting tensor %d (%s)", i, t->name ? t->name : "");
}

/* Index of the opcode entry for op, added if new; -1 on out of memory. */
static int32_t opcode_index(tfl_model *m, const graph_op *op)
{
    for (int32_t i = 0; i < m->n_opcodes; i++) {
        const tfl_opcode *c = &m->opcodes[i];
        if (c->builtin_code == op->opcode && c->version == op->version && same_str(c->custom_code, op->custom_code))
            return i;
    }
    tfl_opcode *c = &m->opcodes[m->n_opcodes];
    c->builtin_code = op->opcode;
    c->deprecated_builtin_code = (int8_t)(op->opcode < 127 ? op->opcode : 127);
    c->version = op->version;
    if (op->custom_code) {
        c->custom_code = npuc_arena_strdup(&m->arena, op->custom_code);
        if (!c->custom_code) return -1;
    }
    return m->n_opcodes++;
}

static int export_op(tfl_model *m, const graph *g, int32_t i, tfl_operator *x, npuc_err *err)
{
    const graph_op *op = &g->ops[i];
    npuc_arena *a = &m->arena;
    int32_t oc = opcode_index(m, op);
    if (oc < 0) goto oom;
    x->opcode_index = (uint32_t)oc;
    x->inputs = dup_arr(a, op->in, (size_t)op->n_in, sizeof(int32_t));
    x->outputs = dup_arr(a, op->out, (size_t)op->n_out, sizeof(int32_t));
    if (!x->inputs || !x->outputs) goto oom;
    x->n_inputs = op->n_in;
    x->n_outputs = op->n_out;
    int type = tfl_builtin_options_type(op->opcode);
    x->options_known = true;
    x->options_type = (uint8_t)(type < 0 ? TFL_OPT_NONE : type);
    if (type < 0) {
        tfl_options_default(&x->options);
    } else {
        x->options = op->opt;
        x->options.graph_model = NULL;
        x->options.container = op->opt.container ? npuc_arena_strdup(a, op->opt.container) : NULL;
        x->options.shared_name = op->opt.shared_name ? npuc_arena_strdup(a, op->opt.shared_name) : NULL;
        if ((op->opt.container && !x->options.container) || (op->opt.shared_name && !x->options.shared_name))
            goto oom;
        if (op->opt.has_new_shape) {
            x->options.new_shape = dup_arr(a, op->opt.new_shape, (size_t)op->opt.n_new_shape, sizeof(int32_t));
            if (!x->options.new_shape) goto oom;
        } else {
            x->options.new_shape = NULL;
            x->options.n_new_shape = 0;
        }
        if (op->opt.has_squeeze_dims) {
            x->options.squeeze_dims = dup_arr(a, op->opt.squeeze_dims, (size_t)op->opt.n_squeeze_dims, sizeof(int32_t));
            if (!x->options.squeeze_dims) goto oom;
        } else {
            x->options.squeeze_dims = NULL;
            x->options.n_squeeze_dims = 0;
        }
    }
    if (op->custom_options) {
        x->custom_options = dup_arr(a, op->custom_options, op->n_custom_options, 1);
        if (!x->custom_options) goto oom;
        x->n_custom_options = op->n_custom_options;
        x->has_custom_options = true;
    }
    return NPUC_OK;
oom:
    return npuc_errf(err, NPUC_E_NOMEM, "out of memory exporting op %d (%s)", i, graph_op_name(op));
}

/* Subgraph s of m from g: its tensors (constants get new buffers), ops and io. */
static int export_subgraph(tfl_model *m, const graph *g, tfl_subgraph *s, npuc_err *err)
{
    npuc_arena *a = &m->arena;
    int rc = NPUC_OK;
    if (g->name && g->name[0] && !(s->name = npuc_arena_strdup(a, g->name))) goto oom;
    s->tensors = npuc_arena_calloc(a, (size_t)g->n_tensors + 1, sizeof(tfl_tensor));
    if (!s->tensors) goto oom;
    s->n_tensors = g->n_tensors;
    for (int32_t i = 0; i < g->n_tensors && !rc; i++) {
        const graph_tensor *t = &g->tensors[i];
        uint32_t buffer = 0;
        if (t->data) {
            tfl_buffer *b = &m->buffers[m->n_buffers];
            if (t->nbytes) {
                b->data = npuc_arena_memdup(a, t->data, t->nbytes);
                if (!b->data) goto oom;
                b->size = t->nbytes;
            }
            buffer = (uint32_t)m->n_buffers++;
        }
        rc = export_tensor(m, t, i, buffer, &s->tensors[i], err);
    }
    s->operators = npuc_arena_calloc(a, (size_t)g->n_ops + 1, sizeof(tfl_operator));
    if (!s->operators) goto oom;
    s->n_operators = g->n_ops;
    for (int32_t i = 0; i < g->n_ops && !rc; i++) rc = export_op(m, g, i, &s->operators[i], err);
    s->inputs = dup_arr(a, g->inputs, (size_t)g->n_inputs, sizeof(int32_t));
    s->outputs = dup_arr(a, g->outputs, (size_t)g->n_outputs, sizeof(int32_t));
    if (!s->inputs || !s->outputs) goto oom;
    s->n_inputs = g->n_inputs;
    s->n_outputs = g->n_outputs;
    return rc;
oom:
    return npuc_errf(err, NPUC_E_NOMEM, "out of memory exporting graph %s", g->name ? g->name : "");
}

int graph_export(const graph *g, tfl_model **out, npuc_err *err)
{
    *out = NULL;
    tfl_model *m = tfl_model_new();
    if (!m) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    npuc_arena *a = &m->arena;
    int rc = NPUC_OK;
    /* subgraph 0 is g itself (a compiler pass may have rebuilt it); the
     * others come from its model, in their order, so that the subgraph
     * indices in IF / WHILE / CALL_ONCE options stay valid */
    const graph_model *gm = graph_model_of(g);
    const int32_t n_sub = gm ? gm->n_subgraphs : 1;
    int32_t n_const = 0, n_ops = 0;
    for (int32_t s = 0; s < n_sub; s++) {
        const graph *x = s == 0 ? g : gm->sub[s];
        n_ops += x->n_ops;
        for (int32_t i = 0; i < x->n_tensors; i++)
            if (x->tensors[i].data) n_const++;
    }
    m->buffers = npuc_arena_calloc(a, (size_t)n_const + 1, sizeof(tfl_buffer));
    m->subgraphs = npuc_arena_calloc(a, (size_t)n_sub, sizeof(tfl_subgraph));
    m->opcodes = npuc_arena_calloc(a, (size_t)n_ops + 1, sizeof(tfl_opcode));
    if (!m->buffers || !m->subgraphs || !m->opcodes) {
        tfl_model_free(m);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory exporting graph %s", g->name ? g->name : "");
    }
    m->n_buffers = 1; /* buffer 0: empty */
    m->n_subgraphs = n_sub;
    for (int32_t s = 0; s < n_sub && !rc; s++) rc = export_subgraph(m, s == 0 ? g : gm->sub[s], &m->subgraphs[s], err);
    if (rc) {
        tfl_model_free(m);
        return rc;
    }
    *out = m;
    return NPUC_OK;
}
