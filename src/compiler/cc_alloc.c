/* cc_alloc: places every buffer at an offset in its pool (the arena, or
 * the fast scratch when the system has one: NPU-internal buffers and the
 * graph tensors only one command stream touches) so that buffers of
 * one pool whose live ranges overlap never share bytes. Greedy by size (largest first),
 * each at the lowest 16-byte aligned offset that fits between buffers
 * already placed and live at the same time, the strategy TFLite Micro's
 * greedy planner uses too. */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN 16u

static int by_size_desc(const void *a, const void *b, void *ctx)
{
    const cc_buf *bufs = ctx;
    const cc_buf *x = &bufs[*(const int32_t *)a], *y = &bufs[*(const int32_t *)b];
    if (x->size != y->size) return x->size < y->size ? 1 : -1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return *(const int32_t *)a - *(const int32_t *)b;
}

/* qsort has no context argument; a small insertion-merge sort will do for
 * the buffer counts of real models, but use a simple stable merge sort. */
static void sort_idx(int32_t *idx, int32_t *tmp, int32_t n, const cc_buf *bufs)
{
    if (n < 2) return;
    int32_t h = n / 2;
    sort_idx(idx, tmp, h, bufs);
    sort_idx(idx + h, tmp, n - h, bufs);
    int32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = by_size_desc(&idx[j], &idx[i], (void *)bufs) < 0 ? idx[j++] : idx[i++];
    while (i < h) tmp[k++] = idx[i++];
    while (j < n) tmp[k++] = idx[j++];
    memcpy(idx, tmp, sizeof *idx * (size_t)n);
}

typedef struct span { uint64_t lo, hi; } span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

int32_t cc_op_steps(const cc_model *m, int32_t op)
{
    const cc_op_info *oi = &m->ops[op];
    /* a cascade's steps all belong to its first op */
    if (oi->cascade >= 0) return oi->cascade == op ? oi->cascade_ops : 0;
    return oi->npu && oi->n_eu > 1 ? oi->n_eu : 1;
}

int32_t cc_step_op(const cc_model *m, int32_t step)
{
    int32_t n_ops = m->g->n_ops;
    if (step < 0 || n_ops <= 0) return 0;
    for (int32_t i = 0, t = 0; i < n_ops; i++) {
        t += cc_op_steps(m, i);
        if (step < t) return i;
    }
    return n_ops - 1;
}

/* Places the buffers of one pool (idx: all buffers, largest first); returns
 * the pool's peak, 16-byte aligned. Buffers of other pools are ignored. */
static uint64_t place(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, span *sp)
{
    uint64_t peak = 0;
    for (int32_t i = 0; i < n; i++) {
        cc_buf *x = &m->bufs[idx[i]];
        if (x->pool != pool) continue;
        int32_t ns = 0;
        for (int32_t j = 0; j < i; j++) {
            const cc_buf *y = &m->bufs[idx[j]];
            if (y->pool == pool && y->first <= x->last && x->first <= y->last && y->size)
                sp[ns++] = (span){(uint64_t)y->offset, (uint64_t)y->offset + y->size};
        }
        qsort(sp, (size_t)ns, sizeof *sp, cmp_span);
        uint64_t off = 0;
        for (int32_t j = 0; j < ns; j++) {
            if (off + x->size <= sp[j].lo) break;
            if (sp[j].hi > off) off = (sp[j].hi + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
        }
        x->offset = (int64_t)off;
        if (off + x->size > peak) peak = off + x->size;
    }
    return (peak + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
}

/* Whether the system has a fast scratch pool apart from the arena. */
static bool has_fast_pool(const target_desc *s)
{
    return s->fast_pool >= 0 && s->fast_pool < s->n_pools && s->fast_pool != s->act_pool;
}

/* Buffers the fast scratch may hold: every temp (an NPU op's internal
 * buffer), and the buffers of graph tensors that only NPU ops of one HW
 * epoch write and read (so neither the CPU nor another command stream ever
 * sees them): not graph inputs, outputs or state. */
static void fast_candidates(const cc_model *m, bool *ok)
{
    const graph *g = m->g;
    int32_t n = m->n_bufs;
    /* epoch of the ops touching each buffer: -2 none yet, -1 not one HW epoch */
    int32_t *ep = malloc(sizeof *ep * (size_t)(n ? n : 1));
    if (!ep) {
        for (int32_t b = 0; b < n; b++) ok[b] = m->bufs[b].temp;
        return;
    }
    for (int32_t b = 0; b < n; b++) ep[b] = -2;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        const cc_op_info *oi = &m->ops[i];
        int32_t e = oi->npu && oi->epoch >= 0 && m->epochs[oi->epoch].kind == CC_EPOCH_HW ? oi->epoch : -1;
        for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            if (t < 0 || m->buf_of[t] < 0) continue;
            int32_t b = m->buf_of[t];
            ep[b] = ep[b] == -2 || ep[b] == e ? e : -1;
        }
    }
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (m->buf_of[g->inputs[i]] >= 0) ep[m->buf_of[g->inputs[i]]] = -1;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (m->buf_of[g->outputs[i]] >= 0) ep[m->buf_of[g->outputs[i]]] = -1;
    for (int32_t t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].is_variable && m->buf_of[t] >= 0) ep[m->buf_of[t]] = -1;
    for (int32_t b = 0; b < n; b++) ok[b] = m->bufs[b].temp || ep[b] >= 0;
    free(ep);
}

/* NPU traffic per byte of each buffer (bytes the NPU ops write to and read
 * from it, as their feature maps; a weight copy is written by its DMA and
 * read by its op): the fast pool's priority. */
static void fast_density(const cc_model *m, double *d)
{
    int32_t n = m->n_bufs;
    for (int32_t b = 0; b < n; b++) d[b] = 0;
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        const cc_epoch *e = &m->epochs[ei];
        if (e->kind != CC_EPOCH_HW) continue;
        for (int32_t k = 0; k < e->n_eu; k++) {
            const eu_op *o = &e->ops[k];
            const eu_fm *f[3] = {&o->ifm, o->ifm2_tensor ? &o->ifm2 : NULL, &o->ofm};
            for (int32_t j = 0; j < 3; j++)
                if (f[j] && f[j]->buf >= 0 && f[j]->buf < n)
                    d[f[j]->buf] += (double)f[j]->h * f[j]->w * f[j]->c * (f[j]->bits / 8u);
            if (o->wbuf >= 0 && o->wbuf < n) d[o->wbuf] += 2.0 * (double)m->bufs[o->wbuf].size;
        }
    }
    for (int32_t b = 0; b < n; b++) d[b] = m->bufs[b].size ? d[b] / (double)m->bufs[b].size : 0;
}

/* Chooses each buffer's pool and places both. Every candidate of the fast
 * pool (fast_candidates) that fits it on its own starts there; while the
 * fast pool overflows, of the buffers in it that overlap in time one that
 * ends past its end, the one with the least NPU traffic per byte (then the
 * largest) moves back to the arena. */
static int place_pools(cc_model *m, npuc_err *err)
{
    int32_t n = m->n_bufs;
    size_t nn = (size_t)(n ? n : 1);
    int32_t *idx = malloc(sizeof *idx * nn * 2);
    span *sp = malloc(sizeof *sp * nn);
    bool *ok = malloc(sizeof *ok * nn);
    double *dens = malloc(sizeof *dens * nn);
    if (!idx || !sp || !ok || !dens) {
        free(idx);
        free(sp);
        free(ok);
        free(dens);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < n; i++) idx[i] = i;
    sort_idx(idx, idx + n, n, m->bufs);
    const target_desc *s = &m->opt.sys;
    bool fast = has_fast_pool(s);
    uint64_t cap = fast ? s->pools[s->fast_pool].size : 0;
    if (fast) {
        fast_candidates(m, ok);
        fast_density(m, dens);
    }
    for (int32_t i = 0; i < n; i++) {
        cc_buf *x = &m->bufs[i];
        x->pool = fast && ok[i] && x->size && (!cap || x->size <= cap) ? CC_IN_FAST : CC_IN_ARENA;
    }
    m->fast_size = 0;
    if (fast) {
        for (;;) {
            m->fast_size = place(m, idx, n, CC_IN_FAST, sp);
            if (!cap || m->fast_size <= cap) break;
            /* the buffers past the end and those live beside them */
            int32_t worst = -1;
            for (int32_t i = 0; i < n; i++) {
                const cc_buf *x = &m->bufs[i];
                if (x->pool != CC_IN_FAST) continue;
                bool involved = (uint64_t)x->offset + x->size > cap;
                for (int32_t j = 0; j < n && !involved; j++) {
                    const cc_buf *y = &m->bufs[j];
                    involved = y->pool == CC_IN_FAST && (uint64_t)y->offset + y->size > cap &&
                               y->first <= x->last && x->first <= y->last;
                }
                if (!involved) continue;
                if (worst < 0 || dens[i] < dens[worst] ||
                    (dens[i] == dens[worst] && x->size > m->bufs[worst].size))
                    worst = i;
            }
            if (worst < 0) break;
            m->bufs[worst].pool = CC_IN_ARENA;
        }
    }
    m->arena_size = place(m, idx, n, CC_IN_ARENA, sp);
    free(idx);
    free(sp);
    free(ok);
    free(dens);
    return NPUC_OK;
}

int cc_allocate(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    /* A timeline with one step per NPU op (at least one per graph op):
     * graph op i spans steps t0[i]..t1[i]. Live ranges run from the step
     * that first writes a buffer to the last step that reads it; graph
     * inputs live from the start, outputs to the end. An NPU op may reuse
     * the bytes of an input of the previous op: the command stream then
     * keeps the two from overlapping (BLOCKDEP 0, eu_gen.c). */
    int32_t *t0 = malloc(sizeof(int32_t) * ((size_t)g->n_ops + 1));
    int32_t *t1 = malloc(sizeof(int32_t) * ((size_t)g->n_ops + 1));
    if (!t0 || !t1) {
        free(t0);
        free(t1);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    int32_t t = 0;
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t n = cc_op_steps(m, i);
        t0[i] = t;
        t1[i] = t + n - 1;
        t += n;
    }
    int32_t t_end = t;
    /* the members of a cascade run interleaved: each spans all its steps */
    for (int32_t i = 0; i < g->n_ops; i++)
        if (m->ops[i].cascade >= 0) {
            t0[i] = t0[m->ops[i].cascade];
            t1[i] = t1[m->ops[i].cascade];
        }
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        if (x->temp && x->epoch >= 0) {
            /* NPU-op granular: steps of the two NPU ops of its epoch */
            const cc_epoch *e = &m->epochs[x->epoch];
            int32_t a = e->ops[x->eu_first].src_op, z = e->ops[x->eu_last].src_op;
            if (m->ops[a].cascade >= 0) a = m->ops[a].cascade;
            if (m->ops[z].cascade >= 0) z = m->ops[z].cascade;
            x->first = t0[a] + (x->eu_first - m->ops[a].first_eu);
            x->last = t0[z] + (x->eu_last - m->ops[z].first_eu);
            continue;
        }
        if (x->temp) {
            /* live over its whole op */
            int32_t op = x->op;
            x->first = t0[op];
            x->last = t1[op];
            continue;
        }
        x->first = INT32_MAX;
        x->last = -1;
    }
    for (int32_t i = 0; i < g->n_inputs; i++) {
        int32_t b = m->buf_of[g->inputs[i]];
        if (b >= 0) m->bufs[b].first = -1;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_in; k++) {
            int32_t ti = op->in[k];
            if (ti < 0 || m->buf_of[ti] < 0) continue;
            cc_buf *b = &m->bufs[m->buf_of[ti]];
            if (t1[i] > b->last) b->last = t1[i];
            if (t0[i] < b->first) b->first = t0[i];   /* read before written: a state tensor */
        }
        for (int32_t k = 0; k < op->n_out; k++) {
            int32_t ti = op->out[k];
            if (ti < 0 || m->buf_of[ti] < 0) continue;
            cc_buf *b = &m->bufs[m->buf_of[ti]];
            if (t0[i] < b->first) b->first = t0[i];
            if (t1[i] > b->last) b->last = t1[i];
        }
    }
    for (int32_t ti = 0; ti < g->n_tensors; ti++)
        if (g->tensors[ti].is_variable && m->buf_of[ti] >= 0) {
            m->bufs[m->buf_of[ti]].first = -1;
            m->bufs[m->buf_of[ti]].last = t_end + 1;
        }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        int32_t b = m->buf_of[g->outputs[i]];
        if (b >= 0) m->bufs[b].last = t_end + 1;
    }
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        if (x->first == INT32_MAX) x->first = x->last < 0 ? 0 : x->last;
        if (x->last < x->first) x->last = x->first;
    }
    free(t0);
    free(t1);

    int rc = place_pools(m, err);
    if (rc) return rc;
    const target_desc *s = &m->opt.sys;
    if (s->act_pool >= 0 && s->act_pool < s->n_pools) {
        const target_pool *p = &s->pools[s->act_pool];
        if (p->size && m->arena_size > p->size)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "the model needs %llu bytes of activations, pool '%s' has %llu",
                             (unsigned long long)m->arena_size, p->name,
                             (unsigned long long)p->size);
    }
    if (m->fast_size) {
        const target_pool *p = &s->pools[s->fast_pool];
        if (p->size && m->fast_size > p->size)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "the fast scratch needs %llu bytes, fast pool '%s' has %llu",
                             (unsigned long long)m->fast_size, p->name,
                             (unsigned long long)p->size);
    }
    return NPUC_OK;
}
