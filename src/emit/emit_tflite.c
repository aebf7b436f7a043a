/* emit_tflite: the compiled model as a TFLite file in the layout Vela uses
 * (docs/ethos-u.md 10), so it runs with TFLite Micro + Arm's driver on silicon
 * and with `npuc run` on the virtual NPU. Metadata: Vela's
 * OfflineMemoryAllocation, and "npuc_target", the target the model was
 * compiled for (docs/system-config.md), which `npuc run` replays. */
#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tmap {
    graph *out;
    const cc_model *m;
    int32_t *map;             /* source tensor -> output tensor, -1 = not yet */
} tmap;

static int32_t copy_tensor(tmap *t, int32_t src)
{
    if (src < 0) return -1;
    if (t->map[src] >= 0) return t->map[src];
    const graph_tensor *x = &t->m->g->tensors[src];
    int32_t k = graph_add_tensor(t->out, x->name ? x->name : "", x->dtype, x->rank, x->shape,
                                 x->data);
    if (k < 0) return -2;
    if (x->q.n > 0 &&
        graph_set_quant(t->out, k, x->q.n, x->q.scale, x->q.zero_point, x->q.axis))
        return -2;
    t->out->tensors[k].is_variable = x->is_variable;
    int32_t b = t->m->buf_of[src];
    /* a variable in the state pool: -1, TFLite Micro keeps it in its own
     * persistent area (it does so with every variable tensor) */
    t->out->tensors[k].arena_offset =
        (!x->data && b >= 0 && t->m->bufs[b].pool != CC_IN_STATE) ? t->m->bufs[b].offset : -1;
    t->map[src] = k;
    return k;
}

static int32_t byte_tensor(graph *g, const char *name, const void *data, uint64_t size)
{
    int32_t shape[1] = {(int32_t)(size ? size : 16)};
    static const uint8_t zeros[16];
    int32_t k = graph_add_tensor(g, name, GRAPH_U8, 1, shape, data ? (size ? data : zeros) : NULL);
    return k;
}

/* Appends a metadata entry with its own buffer to an exported model. */
static int add_metadata(tfl_model *tm, const char *key, const void *data, size_t size, npuc_err *err)
{
    npuc_arena *a = &tm->arena;
    tfl_buffer *nb = npuc_arena_calloc(a, (size_t)tm->n_buffers + 1, sizeof *nb);
    tfl_metadata *md = npuc_arena_calloc(a, (size_t)tm->n_metadata + 1, sizeof *md);
    char *name = npuc_arena_strdup(a, key);
    if (!nb || !md || !name) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (tm->n_buffers) memcpy(nb, tm->buffers, sizeof *nb * (size_t)tm->n_buffers);
    nb[tm->n_buffers].data = (uint8_t *)data;
    nb[tm->n_buffers].size = size;
    if (tm->n_metadata) memcpy(md, tm->metadata, sizeof *md * (size_t)tm->n_metadata);
    md[tm->n_metadata].name = name;
    md[tm->n_metadata].buffer = (uint32_t)tm->n_buffers;
    tm->buffers = nb;
    tm->n_buffers++;
    tm->metadata = md;
    tm->n_metadata++;
    return NPUC_OK;
}

/* The target record (docs/system-config.md) as the metadata entry
 * "npuc_target": the JSON text, without a NUL. */
static int add_target_record(tfl_model *tm, const cc_model *m, npuc_err *err)
{
    char *text;
    size_t len;
    int rc = target_record_write(&m->opt.sys, &text, &len, err);
    if (rc) return rc;
    void *copy = npuc_arena_memdup(&tm->arena, text, len);
    free(text);
    if (!copy) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    return add_metadata(tm, TARGET_RECORD_METADATA, copy, len, err);
}

/* Appends the OfflineMemoryAllocation metadata buffer to an exported model. */
static int add_offline_alloc(tfl_model *tm, const graph *g, npuc_err *err)
{
    npuc_arena *a = &tm->arena;
    size_t words = 3 + (size_t)g->n_tensors;
    int32_t *w = npuc_arena_alloc(a, words * 4);
    if (!w) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    w[0] = 0;
    w[1] = 1;
    w[2] = g->n_tensors;
    for (int32_t i = 0; i < g->n_tensors; i++)
        w[3 + i] = (int32_t)g->tensors[i].arena_offset;
    /* little-endian words */
    uint8_t *bytes = (uint8_t *)w;
    for (size_t i = 0; i < words; i++) {
        uint32_t v = (uint32_t)w[i];
        bytes[4 * i] = (uint8_t)v;
        bytes[4 * i + 1] = (uint8_t)(v >> 8);
        bytes[4 * i + 2] = (uint8_t)(v >> 16);
        bytes[4 * i + 3] = (uint8_t)(v >> 24);
    }
    return add_metadata(tm, "OfflineMemoryAllocation", bytes, words * 4, err);
}

int emit_tflite_model(const cc_model *m, tfl_model **out, npuc_err *err)
{
    *out = NULL;
    const graph *g = m->g;
    tmap t;
    t.m = m;
    t.out = graph_new(g->name ? g->name : "model");
    t.map = malloc(sizeof(int32_t) * ((size_t)g->n_tensors + 1));
    int rc = NPUC_OK;
    int32_t *ins = NULL, *outs = NULL;
    /* each epoch's flash tensor (epochs sharing one flash share it) */
    int32_t *flash_t = malloc(sizeof(int32_t) * ((size_t)m->n_epochs + 1));
    if (!t.out || !t.map || !flash_t) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < g->n_tensors; i++) t.map[i] = -1;
    /* graph inputs first, so they keep low indices */
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (copy_tensor(&t, g->inputs[i]) == -2) goto oom;
    int32_t scratch = -1, scratch_fast = -1;
    bool any_hw = false;
    for (int32_t i = 0; i < m->n_epochs; i++) any_hw |= m->epochs[i].kind == CC_EPOCH_HW;
    if (any_hw) {
        scratch = byte_tensor(t.out, "npuc_scratch", NULL, m->arena_size);
        /* region 2: the fast scratch pool's peak. TFLite Micro's driver
         * replaces it by the fast memory given to ethosu_init; without one
         * it lives in the TFLM arena, after the scratch so that the two
         * never alias. Unused (no fast pool): 16 bytes at 0, as before. */
        scratch_fast = byte_tensor(t.out, "npuc_scratch_fast", NULL, m->fast_size ? m->fast_size : 16);
        if (scratch < 0 || scratch_fast < 0) goto oom;
        t.out->tensors[scratch].arena_offset = 0;
        t.out->tensors[scratch_fast].arena_offset =
            m->fast_size ? (int64_t)(m->arena_size ? (m->arena_size + 15) / 16 * 16 : 16) : 0;
    }
    int32_t cap = 16;
    for (int32_t i = 0; i < g->n_ops; i++) cap += g->ops[i].n_in + g->ops[i].n_out;
    ins = malloc(sizeof(int32_t) * (size_t)cap);
    outs = malloc(sizeof(int32_t) * (size_t)cap);
    if (!ins || !outs) goto oom;
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        const cc_epoch *e = &m->epochs[ei];
        if (e->kind == CC_EPOCH_SW) {
            const graph_op *op = &g->ops[e->first_op];
            for (int32_t k = 0; k < op->n_in; k++)
                if ((ins[k] = copy_tensor(&t, op->in[k])) == -2) goto oom;
            for (int32_t k = 0; k < op->n_out; k++)
                if ((outs[k] = copy_tensor(&t, op->out[k])) == -2) goto oom;
            int32_t oi = graph_add_op(t.out, op->opcode, &op->opt, op->n_in, ins, op->n_out, outs);
            if (oi < 0) goto oom;
            graph_op *no = &t.out->ops[oi];
            no->version = op->version;
            if (op->custom_code && !(no->custom_code = npuc_arena_strdup(&t.out->arena, op->custom_code)))
                goto oom;
            if (op->n_custom_options) {
                no->custom_options = npuc_arena_memdup(&t.out->arena, op->custom_options,
                                                       op->n_custom_options);
                if (!no->custom_options) goto oom;
                no->n_custom_options = op->n_custom_options;
            }
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "npuc_command_stream_%d", ei);
        int32_t cmd = byte_tensor(t.out, name, e->payload, e->payload_size);
        snprintf(name, sizeof name, "npuc_flash_%d", ei);
        int32_t flash = e->flash_shared > 0 && e->flash_shared - 1 < ei
                            ? flash_t[e->flash_shared - 1]
                            : byte_tensor(t.out, name, e->flash ? e->flash : (const uint8_t *)"", e->flash_size);
        flash_t[ei] = flash;
        if (cmd < 0 || flash < 0) goto oom;
        int32_t n = 0;
        ins[n++] = cmd;
        ins[n++] = flash;
        ins[n++] = scratch;
        ins[n++] = scratch_fast;
        for (int32_t k = 0; k < e->n_inputs; k++)
            if ((ins[n++] = copy_tensor(&t, e->inputs[k])) == -2) goto oom;
        for (int32_t k = 0; k < e->n_outputs; k++)
            if ((outs[k] = copy_tensor(&t, e->outputs[k])) == -2) goto oom;
        int32_t oi = graph_add_op(t.out, TFL_OP_CUSTOM, NULL, n, ins, e->n_outputs, outs);
        if (oi < 0) goto oom;
        graph_op *no = &t.out->ops[oi];
        static const uint8_t co_type_ethosu[3] = {1, 4, 1};
        no->custom_code = npuc_arena_strdup(&t.out->arena, "ethos-u");
        no->custom_options = npuc_arena_memdup(&t.out->arena, co_type_ethosu, 3);
        if (!no->custom_code || !no->custom_options) goto oom;
        no->n_custom_options = 3;
    }
    for (int32_t i = 0; i < g->n_inputs; i++) ins[i] = t.map[g->inputs[i]];
    for (int32_t i = 0; i < g->n_outputs; i++)
        if ((outs[i] = copy_tensor(&t, g->outputs[i])) == -2) goto oom;
    if (graph_set_io(t.out, g->n_inputs, ins, g->n_outputs, outs)) goto oom;
    tfl_model *tm = NULL;
    if ((rc = graph_export(t.out, &tm, err))) goto done;
    if ((any_hw && (rc = add_offline_alloc(tm, t.out, err))) || (rc = add_target_record(tm, m, err))) {
        tfl_model_free(tm);
        goto done;
    }
    *out = tm;
    goto done;
oom:
    rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory building the output model");
done:
    free(ins);
    free(outs);
    free(flash_t);
    free(t.map);
    if (t.out) graph_free(t.out);
    return rc;
}

int emit_tflite_file(const cc_model *m, const char *path, npuc_err *err)
{
    tfl_model *tm = NULL;
    int rc = emit_tflite_model(m, &tm, err);
    if (rc) return rc;
    rc = tfl_write_file(tm, path, err);
    tfl_model_free(tm);
    return rc;
}
