#include "graph.h"

#include <stdlib.h>
#include <string.h>

size_t graph_dtype_size(graph_dtype t)
{
    switch (t) {
    case GRAPH_F32: return 4;
    case GRAPH_I32: return 4;
    case GRAPH_U8: return 1;
    case GRAPH_I64: return 8;
    case GRAPH_BOOL: return 1;
    case GRAPH_I16: return 2;
    case GRAPH_I8: return 1;
    case GRAPH_U32: return 4;
    case GRAPH_U16: return 2;
    case GRAPH_F16: return 2;
    case GRAPH_F64: return 8;
    case GRAPH_U64: return 8;
    case GRAPH_C64: return 8;
    case GRAPH_C128: return 16;
    case GRAPH_I4: return 0;
    case GRAPH_RESOURCE: return 4; /* an int32 resource id, as TFLite Micro stores it */
    case GRAPH_STRING: case GRAPH_VARIANT: return 0;
    }
    return 0;
}

size_t graph_dtype_nbytes(graph_dtype t, size_t elems)
{
    if (t == GRAPH_I4) return elems / 2 + (elems & 1);
    return elems * graph_dtype_size(t);
}

bool graph_dtype_fixed(graph_dtype t) { return t != GRAPH_STRING && t != GRAPH_VARIANT; }

bool graph_dtype_valid(int t)
{
    switch (t) {
    case TFL_FLOAT32: case TFL_FLOAT16: case TFL_INT32: case TFL_UINT8: case TFL_INT64: case TFL_STRING:
    case TFL_BOOL: case TFL_INT16: case TFL_COMPLEX64: case TFL_INT8: case TFL_FLOAT64: case TFL_COMPLEX128:
    case TFL_UINT64: case TFL_RESOURCE: case TFL_VARIANT: case TFL_UINT32: case TFL_UINT16: case TFL_INT4:
        return true;
    default: return false;
    }
}

const char *graph_dtype_name(graph_dtype t)
{
    switch (t) {
    case GRAPH_F32: return "float32";
    case GRAPH_I32: return "int32";
    case GRAPH_U8: return "uint8";
    case GRAPH_I64: return "int64";
    case GRAPH_BOOL: return "bool";
    case GRAPH_I16: return "int16";
    case GRAPH_I8: return "int8";
    case GRAPH_U32: return "uint32";
    case GRAPH_U16: return "uint16";
    case GRAPH_F16: return "float16";
    case GRAPH_F64: return "float64";
    case GRAPH_U64: return "uint64";
    case GRAPH_C64: return "complex64";
    case GRAPH_C128: return "complex128";
    case GRAPH_I4: return "int4";
    case GRAPH_STRING: return "string";
    case GRAPH_RESOURCE: return "resource";
    case GRAPH_VARIANT: return "variant";
    }
    return "?";
}

float graph_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31u, m = h & 1023u, bits;
    if (e == 31) bits = sign | 0x7f800000u | (m << 13);
    else if (e) bits = sign | ((e + 112u) << 23) | (m << 13);
    else if (!m) bits = sign;
    else {
        /* subnormal: normalise */
        e = 113;
        while (!(m & 1024u)) { m <<= 1; e--; }
        bits = sign | (e << 23) | ((m & 1023u) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t graph_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t e = (x >> 23) & 255u, m = x & 0x7fffffu;
    if (e == 255) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
    int32_t he = (int32_t)e - 112;
    if (he >= 31) return (uint16_t)(sign | 0x7c00u);
    if (he <= 0) {
        if (he < -10) return sign;
        m |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - he), r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = ((uint32_t)he << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) r++;
    return (uint16_t)(sign | r);   /* a carry into the exponent is correct (up to inf) */
}

size_t graph_tensor_elems(const graph_tensor *t)
{
    size_t n = 1;
    for (int32_t i = 0; i < t->rank; i++) n *= (size_t)t->shape[i];
    return n;
}

const char *graph_op_name(const graph_op *op)
{
    if (op->opcode == TFL_OP_CUSTOM && op->custom_code) return op->custom_code;
    return tfl_builtin_name(op->opcode);
}

graph *graph_new(const char *name)
{
    graph *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    npuc_arena_init(&g->arena);
    g->name = npuc_arena_strdup(&g->arena, name ? name : "");
    if (!g->name) {
        free(g);
        return NULL;
    }
    return g;
}

void graph_free(graph *g)
{
    if (!g) return;
    if (g->model) /* the owner: the other subgraphs go with it */
        for (int32_t i = 1; i < g->model->n_subgraphs; i++)
            if (g->model->sub[i] != g) graph_free(g->model->sub[i]);
    npuc_arena_free(&g->arena);
    free(g);
}

/* Growable arrays live in the arena: on growth the old block is abandoned
 * (fine for builder use; sizes double so waste stays bounded). */
static void *grow(npuc_arena *a, void *old, int32_t n, int32_t *cap, size_t elem)
{
    if (n < *cap) return old;
    int32_t nc = *cap ? *cap * 2 : 16;
    void *p = npuc_arena_calloc(a, (size_t)nc, elem);
    if (!p) return NULL;
    if (old) memcpy(p, old, (size_t)n * elem);
    *cap = nc;
    return p;
}

int32_t graph_add_tensor(graph *g, const char *name, graph_dtype dtype, int32_t rank,
                         const int32_t *shape, const void *data)
{
    if (rank < 0 || rank > GRAPH_MAX_RANK) return -1;
    graph_tensor *t = grow(&g->arena, g->tensors, g->n_tensors, &g->cap_tensors, sizeof *t);
    if (!t) return -1;
    g->tensors = t;
    graph_tensor *nt = &t[g->n_tensors];
    memset(nt, 0, sizeof *nt);
    nt->name = npuc_arena_strdup(&g->arena, name ? name : "");
    nt->dtype = dtype;
    nt->rank = rank;
    for (int32_t i = 0; i < rank; i++) nt->shape[i] = shape[i];
    nt->producer = -1;
    nt->arena_offset = -1;
    nt->nbytes = graph_dtype_nbytes(dtype, graph_tensor_elems(nt));
    if (data) {
        nt->data = npuc_arena_memdup(&g->arena, data, nt->nbytes);
        if (!nt->data) return -1;
    }
    if (!nt->name) return -1;
    return g->n_tensors++;
}

int graph_set_quant(graph *g, int32_t tensor, int32_t n, const float *scale,
                    const int64_t *zero_point, int32_t axis)
{
    if (tensor < 0 || tensor >= g->n_tensors || n < 0) return NPUC_E_USAGE;
    graph_tensor *t = &g->tensors[tensor];
    t->q.n = n;
    t->q.axis = axis;
    t->q.scale = n ? npuc_arena_memdup(&g->arena, scale, (size_t)n * sizeof(float)) : NULL;
    t->q.zero_point = n ? npuc_arena_memdup(&g->arena, zero_point, (size_t)n * sizeof(int64_t)) : NULL;
    if (n && (!t->q.scale || !t->q.zero_point)) return NPUC_E_NOMEM;
    return NPUC_OK;
}

int32_t graph_add_op(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in,
                     const int32_t *in, int32_t n_out, const int32_t *out)
{
    graph_op *ops = grow(&g->arena, g->ops, g->n_ops, &g->cap_ops, sizeof *ops);
    if (!ops) return -1;
    g->ops = ops;
    graph_op *op = &ops[g->n_ops];
    memset(op, 0, sizeof *op);
    op->opcode = opcode;
    op->version = 1;
    if (opt) op->opt = *opt;
    else tfl_options_default(&op->opt);
    op->n_in = n_in;
    op->n_out = n_out;
    op->in = npuc_arena_memdup(&g->arena, in, (size_t)n_in * sizeof(int32_t));
    op->out = npuc_arena_memdup(&g->arena, out, (size_t)n_out * sizeof(int32_t));
    if (!op->in || !op->out) return -1;
    op->index = g->n_ops;
    for (int32_t i = 0; i < n_out; i++)
        if (out[i] >= 0 && out[i] < g->n_tensors) g->tensors[out[i]].producer = g->n_ops;
    return g->n_ops++;
}

int graph_set_io(graph *g, int32_t n_in, const int32_t *in, int32_t n_out, const int32_t *out)
{
    g->inputs = npuc_arena_memdup(&g->arena, in, (size_t)n_in * sizeof(int32_t));
    g->outputs = npuc_arena_memdup(&g->arena, out, (size_t)n_out * sizeof(int32_t));
    if (!g->inputs || !g->outputs) return NPUC_E_NOMEM;
    g->n_inputs = n_in;
    g->n_outputs = n_out;
    return NPUC_OK;
}

uint64_t graph_op_macs(const graph *g, const graph_op *op)
{
    const graph_tensor *out = op->n_out > 0 && op->out[0] >= 0 ? &g->tensors[op->out[0]] : NULL;
    const graph_tensor *w = op->n_in > 1 && op->in[1] >= 0 ? &g->tensors[op->in[1]] : NULL;
    if (!out) return 0;
    uint64_t oe = graph_tensor_elems(out);
    switch (op->opcode) {
    case TFL_OP_CONV_2D: /* weights [O, KH, KW, I] */
        if (!w || w->rank != 4) return 0;
        return oe * (uint64_t)w->shape[1] * (uint64_t)w->shape[2] * (uint64_t)w->shape[3];
    case TFL_OP_DEPTHWISE_CONV_2D: /* weights [1, KH, KW, O] */
        if (!w || w->rank != 4) return 0;
        return oe * (uint64_t)w->shape[1] * (uint64_t)w->shape[2];
    case TFL_OP_FULLY_CONNECTED: /* weights [O, I] */
        if (!w || w->rank != 2) return 0;
        return oe * (uint64_t)w->shape[1];
    case TFL_OP_TRANSPOSE_CONV: { /* inputs: output_shape, weights [O, KH, KW, I], input */
        const graph_tensor *tw = op->n_in > 1 && op->in[1] >= 0 ? &g->tensors[op->in[1]] : NULL;
        const graph_tensor *in = op->n_in > 2 && op->in[2] >= 0 ? &g->tensors[op->in[2]] : NULL;
        if (!tw || !in || tw->rank != 4) return 0;
        return graph_tensor_elems(in) * (uint64_t)tw->shape[0] * (uint64_t)tw->shape[1] * (uint64_t)tw->shape[2];
    }
    case TFL_OP_SVDF: { /* weights_feature [units*rank, input_size] */
        if (!w || w->rank != 2) return 0;
        const graph_tensor *wt = op->n_in > 2 && op->in[2] >= 0 ? &g->tensors[op->in[2]] : NULL;
        uint64_t m = (uint64_t)w->shape[0] * (uint64_t)w->shape[1];
        if (wt && wt->rank == 2) m += (uint64_t)wt->shape[0] * (uint64_t)wt->shape[1];
        return m;
    }
    default: return 0;
    }
}

bool graph_op_uses_model(int32_t opcode)
{
    switch (opcode) {
    case TFL_OP_IF: case TFL_OP_WHILE: case TFL_OP_CALL_ONCE: case TFL_OP_VAR_HANDLE: case TFL_OP_READ_VARIABLE:
    case TFL_OP_ASSIGN_VARIABLE:
        return true;
    default: return false;
    }
}

const graph_model *graph_model_of(const graph *g)
{
    if (!g) return NULL;
    if (g->model) return g->model;
    for (int32_t i = 0; i < g->n_ops; i++)
        if (g->ops[i].opt.graph_model) return g->ops[i].opt.graph_model;
    return NULL;
}

int32_t graph_resource_find(const graph_model *gm, const char *container, const char *shared_name)
{
    if (!gm || !shared_name) return -1;
    for (int32_t i = 0; i < gm->n_res; i++) {
        const graph_resource *r = &gm->res[i];
        if ((container == NULL || (r->container && strcmp(container, r->container) == 0)) &&
            strcmp(shared_name, r->shared_name) == 0)
            return i;
    }
    return -1;
}
