/* cc_layout: chooses the storage format of every arena buffer. Vela keeps
 * intermediate feature maps in NHCWB16 (docs/ethos-u.md 4.2): 16-channel bricks
 * make the NPU's memory bursts long, which the cycle model (and hardware)
 * rewards. A buffer may be stored that way only when nothing but NPU ops
 * that address whole tensors or 16-aligned channel slices touch it: not a
 * graph input or output, not read or written by a CPU op, not shared by two
 * HW epochs (the custom ops pass NHWC tensors), not aliased by a
 * view (the input of an activation fused into its producer is none), not
 * used by a multi-op lowering that reinterprets its shape. With
 * --optimise size only tensors whose depth is a multiple of 16 (no padding
 * channels) are stored as bricks. */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

/* Whether an NHWC feature map becomes NHCWB16 by the strides set below:
 * it addresses its buffer's tensor from byte 0 with that tensor's own row
 * and pixel strides (a channel slice at most). The slices of a
 * concatenation written in place at byte offsets (rows, columns) do not. */
static bool brick_view(const cc_model *m, const eu_fm *f)
{
    const cc_buf *x = &m->bufs[f->buf];
    if (x->tensor < 0) return false;
    const graph_tensor *t = &m->g->tensors[x->tensor];
    if (t->rank < 2) return false;
    uint64_t es = f->bits / 8u, W = (uint64_t)t->shape[t->rank - 2], C = (uint64_t)t->shape[t->rank - 1];
    uint64_t fw = f->full_w ? f->full_w : f->w, fc = f->full_c ? f->full_c : f->c;
    return !f->off && !f->tile_h && fw == W && fc == C && f->sc == es && f->sx == C * es && f->sy == W * C * es;
}

/* Whether tensor t is the output of a PAD folded into the next conv's
 * padding (lower_pad.c): no NPU ops, the output sharing the input's buffer
 * (pad_op[t]: the first PAD in op order with output t, -1 none). */
static bool folded_pad_out(const cc_model *m, const int32_t *pad_op, int32_t t)
{
    int32_t i = pad_op[t];
    if (i < 0) return false;
    const graph_op *op = &m->g->ops[i];
    return m->ops[i].npu && m->ops[i].n_eu == 0 && m->buf_of[t] >= 0 && m->buf_of[t] == m->buf_of[op->in[0]];
}

static void mark(const cc_model *m, uint8_t *no, const eu_fm *f, bool flex)
{
    if (f->buf < 0) return;
    if (!flex || f->bits > 16 || f->c0 % 16 || !brick_view(m, f)) no[f->buf] = 1;
}

int cc_layout(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    uint8_t *no = calloc((size_t)m->n_bufs + 1, 1);
    int32_t *owners = calloc((size_t)m->n_bufs + 1, sizeof *owners);
    if (!no || !owners) {
        free(no);
        free(owners);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    for (int32_t b = 0; b < m->n_bufs; b++)
        if (m->bufs[b].temp) no[b] = 1;
    /* tensors that are the input of an activation fused into its producer */
    uint8_t *fused = calloc((size_t)g->n_tensors + 1, 1);
    if (!fused) {
        free(no);
        free(owners);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < g->n_ops; i++)
        if (m->ops[i].fused_into >= 0 && g->ops[i].n_in >= 1 && g->ops[i].in[0] >= 0) fused[g->ops[i].in[0]] = 1;
    /* per tensor: the concatenation it is a slice of, the PAD making it
     * (one pass over the ops each, not one per tensor) */
    int32_t *cat = malloc(sizeof *cat * ((size_t)g->n_tensors + 1));
    int32_t *pad_op = malloc(sizeof *pad_op * ((size_t)g->n_tensors + 1));
    if (!cat || !pad_op) {
        free(cat);
        free(pad_op);
        free(fused);
        free(no);
        free(owners);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    cc_concat_slice_index(m, cat);
    for (int32_t t = 0; t < g->n_tensors; t++) pad_op[t] = -1;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if ((op->opcode != TFL_OP_PAD && op->opcode != TFL_OP_PADV2) || op->n_out != 1 || op->out[0] < 0 ||
            op->n_in < 1 || op->in[0] < 0 || pad_op[op->out[0]] >= 0)
            continue;
        pad_op[op->out[0]] = i;
    }
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (m->buf_of[g->inputs[i]] >= 0) no[m->buf_of[g->inputs[i]]] = 1;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (m->buf_of[g->outputs[i]] >= 0) no[m->buf_of[g->outputs[i]]] = 1;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        int32_t b = m->buf_of[t];
        if (b < 0) continue;
        if (g->tensors[t].rank != 4 && g->tensors[t].rank != 3) no[b] = 1;
        /* a tensor written in place into a slice of a concatenation's
         * output is not a view (its feature maps address the output) */
        if (cat[t] >= 0) continue;
        /* a PAD folded into the padding of the conv that reads it: its
         * output names the input's buffer, which that conv addresses as
         * the input (no op addresses the output's shape) */
        if (folded_pad_out(m, pad_op, t)) continue;
        /* the input of an activation fused into its producer (lower_lut.c)
         * is no view: it is never written as itself, the producer's ops
         * write the activation's output into the buffer. Bricks there only
         * without padding channels: a 2- or 8-channel map would take 8 or 2
         * times the bytes it took as NHWC */
        if (fused[t]) {
            if (g->tensors[t].rank > 0 && g->tensors[t].shape[g->tensors[t].rank - 1] % 16) no[b] = 1;
            continue;
        }
        if (++owners[b] > 1) no[b] = 1;   /* a view shares it */
        /* optimising for size: no padding channels */
        if (m->opt.optimise == CC_OPT_SIZE && g->tensors[t].rank > 0 &&
            g->tensors[t].shape[g->tensors[t].rank - 1] % 16)
            no[b] = 1;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        if (m->ops[i].npu) continue;
        const graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0 && m->buf_of[op->in[k]] >= 0) no[m->buf_of[op->in[k]]] = 1;
        for (int32_t k = 0; k < op->n_out; k++)
            if (op->out[k] >= 0 && m->buf_of[op->out[k]] >= 0) no[m->buf_of[op->out[k]]] = 1;
    }
    /* a buffer two HW epochs share crosses a custom-op boundary, where the
     * TFLite tensor (NHWC, its own size) carries it: keep NHWC */
    int32_t *epoch_of = owners;   /* reused: epoch + 1 of the first user */
    memset(epoch_of, 0, sizeof *epoch_of * ((size_t)m->n_bufs + 1));
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        const cc_epoch *e = &m->epochs[ei];
        for (int32_t k = 0; k < e->n_eu; k++) {
            const eu_op *o = &e->ops[k];
            const eu_fm *fms[3] = {&o->ifm, o->ifm2_tensor ? &o->ifm2 : NULL, &o->ofm};
            for (int i = 0; i < 3; i++) {
                if (!fms[i] || fms[i]->buf < 0) continue;
                int32_t b = fms[i]->buf;
                if (epoch_of[b] && epoch_of[b] != ei + 1) no[b] = 1;
                epoch_of[b] = ei + 1;
            }
        }
    }
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        const cc_epoch *e = &m->epochs[ei];
        for (int32_t k = 0; k < e->n_eu; k++) {
            const eu_op *o = &e->ops[k];
            mark(m, no, &o->ifm, o->flex);
            mark(m, no, &o->ofm, o->flex);
            if (o->ifm2_tensor) mark(m, no, &o->ifm2, o->flex);
            /* broadcast operands keep NHWC (their shape differs) */
            if (o->ifm2_tensor && (o->bcast_h || o->bcast_w || o->bcast_c)) mark(m, no, &o->ifm2, false);
        }
    }
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        x->brick = !no[b];
        if (!x->brick || x->tensor < 0) continue;
        const graph_tensor *t = &g->tensors[x->tensor];
        uint64_t c = (uint64_t)t->shape[t->rank - 1];
        x->size = x->size / c * ((c + 15) / 16 * 16);
    }
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        cc_epoch *e = &m->epochs[ei];
        for (int32_t k = 0; k < e->n_eu; k++) {
            eu_op *o = &e->ops[k];
            eu_fm *fms[3] = {&o->ifm, &o->ifm2, &o->ofm};
            for (int i = 0; i < 3; i++) {
                eu_fm *f = fms[i];
                if (f->buf < 0 || (i == 1 && !o->ifm2_tensor) || !m->bufs[f->buf].brick) continue;
                uint64_t es = f->bits / 8u;
                uint64_t fw = f->full_w ? f->full_w : f->w, fc = f->full_c ? f->full_c : f->c;
                f->format = 1;
                f->sx = 16 * es;
                f->sc = 16 * es * fw;
                f->sy = es * fw * ((fc + 15) / 16 * 16);
            }
        }
    }
    free(no);
    free(owners);
    free(fused);
    free(cat);
    free(pad_op);
    return NPUC_OK;
}
