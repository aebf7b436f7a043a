/* cc_sched: the schedule as a value (cc.h: the parts it holds). Taken from a
 * model, kept, copied, compared and applied back: the one way the passes
 * save the schedule they start a trial from and restore it when the trial
 * does not pay (cc_concat.c, cc_cascade.c, cc_prefetch.c). The in-place
 * concatenations and the cascades are held as choices (CC_SCHED_CONCAT,
 * CC_SCHED_CASCADE); applied alone they are applied to the program by
 * cc_concat_apply and cc_cascade_apply. */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

/* memcpy / memcmp of n bytes that may be 0 (with pointers that may then
 * be NULL: an epoch without ops, a model without buffers). */
static void copy_n(void *dst, const void *src, size_t n)
{
    if (n) memcpy(dst, src, n);
}

static int cmp_n(const void *a, const void *b, size_t n) { return n ? memcmp(a, b, n) : 0; }

/* Room for n elements of `elem` bytes at *p (holding *cap), its contents
 * not kept (they are written next); false: out of memory (*p freed). */
static bool room(void **p, int32_t *cap, int32_t n, size_t elem)
{
    if (n <= *cap && *p) return true;
    int32_t c = n > 0 ? n : 1;
    free(*p);
    *p = malloc(elem * (size_t)c);
    *cap = *p ? c : 0;
    return *p != NULL;
}

void cc_sched_free(cc_sched *s)
{
    if (!s) return;
    if (!s->parts && !s->place && !s->bufs && !s->n_eu && !s->wbuf && !s->blk && !s->eu && !s->ops && !s->buf_of &&
        !s->concat_in && !s->cascade_in)
        return;   /* holds nothing */
    free(s->place);
    free(s->bufs);
    free(s->n_eu);
    free(s->wbuf);
    free(s->blk);
    free(s->eu);
    free(s->ops);
    free(s->buf_of);
    free(s->concat_in);
    free(s->cascade_in);
    memset(s, 0, sizeof *s);
}

/* Room in s for the shapes it is about to hold (n_bufs, n_epochs, n_eu_all,
 * n_ops, n_tensors set), for its parts. */
static bool make_room(cc_sched *s)
{
    unsigned p = s->parts;
    bool ok = true;
    if (p & CC_SCHED_PLACE) ok = room((void **)&s->place, &s->cap_place, s->n_bufs, sizeof *s->place);
    if (ok && (p & CC_SCHED_BUFS)) ok = room((void **)&s->bufs, &s->cap_bufs, s->n_bufs, sizeof *s->bufs);
    if (ok && (p & (CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM)))
        ok = room((void **)&s->n_eu, &s->cap_n_eu, s->n_epochs, sizeof *s->n_eu);
    if (ok && (p & CC_SCHED_WEIGHTS))
        ok = room((void **)&s->wbuf, &s->cap_wbuf, s->n_eu_all, sizeof *s->wbuf) &&
             room((void **)&s->blk, &s->cap_blk, s->n_eu_all, sizeof *s->blk);
    if (ok && (p & CC_SCHED_PROGRAM))
        ok = room((void **)&s->eu, &s->cap_eu, s->n_eu_all, sizeof *s->eu) &&
             room((void **)&s->ops, &s->cap_ops, s->n_ops, sizeof *s->ops) &&
             room((void **)&s->buf_of, &s->cap_buf_of, s->n_tensors, sizeof *s->buf_of);
    if (ok && (p & CC_SCHED_CONCAT))
        ok = room((void **)&s->concat_in, &s->cap_concat_in, s->n_concat_in, sizeof *s->concat_in);
    if (ok && (p & CC_SCHED_CASCADE))
        ok = room((void **)&s->cascade_in, &s->cap_cascade_in, s->n_cascade_in, sizeof *s->cascade_in);
    return ok;
}

int cc_sched_take(const cc_model *m, unsigned parts, cc_sched *s, npuc_err *err)
{
    return cc_sched_take_epoch(m, parts, -1, s, err);
}

int cc_sched_take_epoch(const cc_model *m, unsigned parts, int32_t epoch, cc_sched *s, npuc_err *err)
{
    if (parts & CC_SCHED_PROGRAM) parts |= CC_SCHED_BUFS | CC_SCHED_CONCAT | CC_SCHED_CASCADE;
    if (parts & CC_SCHED_BUFS) parts &= ~(unsigned)CC_SCHED_PLACE;
    s->parts = parts;
    s->g = m->g;
    s->n_ops = m->g->n_ops;
    s->n_tensors = m->g->n_tensors;
    s->n_epochs = m->n_epochs;
    s->n_bufs = m->n_bufs;
    s->n_concat_in = parts & CC_SCHED_CONCAT ? m->n_concat_in : 0;
    s->n_cascade_in = parts & CC_SCHED_CASCADE ? m->n_cascade_in : 0;
    s->n_eu_all = 0;
    for (int32_t i = 0; (parts & (CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM)) && i < m->n_epochs; i++)
        if (m->epochs[i].kind == CC_EPOCH_HW && (epoch < 0 || i == epoch)) s->n_eu_all += m->epochs[i].n_eu;
    if (!make_room(s)) {
        cc_sched_free(s);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    if (parts & CC_SCHED_PLACE) {
        const cc_buf *restrict x = m->bufs;
        cc_sched_place *restrict y = s->place;
        for (int32_t b = 0; b < m->n_bufs; b++) {
            y[b].offset = x[b].offset;
            y[b].eu_first = x[b].eu_first;
            y[b].first = x[b].first;
            y[b].over = x[b].over;
            y[b].pool = x[b].pool;
        }
    }
    if (parts & CC_SCHED_BUFS) copy_n(s->bufs, m->bufs, sizeof *s->bufs * (size_t)m->n_bufs);
    if (parts & (CC_SCHED_PLACE | CC_SCHED_BUFS)) {
        s->arena_size = m->arena_size;
        s->fast_size = m->fast_size;
    }
    if (parts & (CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM)) {
        size_t j = 0;
        for (int32_t i = 0; i < m->n_epochs; i++) {
            const cc_epoch *e = &m->epochs[i];
            bool held = epoch < 0 || i == epoch;
            int32_t n = e->kind == CC_EPOCH_HW && held ? e->n_eu : 0;
            s->n_eu[i] = held ? n : -1;
            if (parts & CC_SCHED_PROGRAM) copy_n(s->eu + j, e->ops, sizeof *e->ops * (size_t)n);
            if (parts & CC_SCHED_WEIGHTS)
                for (int32_t k = 0; k < n; k++) {
                    s->wbuf[j + (size_t)k] = e->ops[k].wbuf;
                    s->blk[j + (size_t)k] = e->ops[k].blk;
                }
            j += (size_t)n;
        }
    }
    if (parts & CC_SCHED_PROGRAM) {
        copy_n(s->ops, m->ops, sizeof *s->ops * (size_t)s->n_ops);
        copy_n(s->buf_of, m->buf_of, sizeof *s->buf_of * (size_t)s->n_tensors);
    }
    if (s->n_concat_in) memcpy(s->concat_in, m->concat_in, sizeof *s->concat_in * (size_t)s->n_concat_in);
    if (s->n_cascade_in) memcpy(s->cascade_in, m->cascade_in, sizeof *s->cascade_in * (size_t)s->n_cascade_in);
    return NPUC_OK;
}

int cc_sched_copy(cc_sched *dst, const cc_sched *src, npuc_err *err)
{
    if (dst == src) return NPUC_OK;
    dst->parts = src->parts;
    dst->g = src->g;
    dst->n_ops = src->n_ops;
    dst->n_tensors = src->n_tensors;
    dst->n_epochs = src->n_epochs;
    dst->n_bufs = src->n_bufs;
    dst->n_eu_all = src->n_eu_all;
    dst->n_concat_in = src->n_concat_in;
    dst->n_cascade_in = src->n_cascade_in;
    dst->arena_size = src->arena_size;
    dst->fast_size = src->fast_size;
    if (!make_room(dst)) {
        cc_sched_free(dst);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    unsigned p = src->parts;
    if (p & CC_SCHED_PLACE) copy_n(dst->place, src->place, sizeof *src->place * (size_t)src->n_bufs);
    if (p & CC_SCHED_BUFS) copy_n(dst->bufs, src->bufs, sizeof *src->bufs * (size_t)src->n_bufs);
    if (p & (CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM))
        copy_n(dst->n_eu, src->n_eu, sizeof *src->n_eu * (size_t)src->n_epochs);
    if (p & CC_SCHED_WEIGHTS) {
        copy_n(dst->wbuf, src->wbuf, sizeof *src->wbuf * (size_t)src->n_eu_all);
        copy_n(dst->blk, src->blk, sizeof *src->blk * (size_t)src->n_eu_all);
    }
    if (p & CC_SCHED_PROGRAM) {
        copy_n(dst->eu, src->eu, sizeof *src->eu * (size_t)src->n_eu_all);
        copy_n(dst->ops, src->ops, sizeof *src->ops * (size_t)src->n_ops);
        copy_n(dst->buf_of, src->buf_of, sizeof *src->buf_of * (size_t)src->n_tensors);
    }
    if ((p & CC_SCHED_CONCAT) && src->n_concat_in)
        memcpy(dst->concat_in, src->concat_in, sizeof *src->concat_in * (size_t)src->n_concat_in);
    if ((p & CC_SCHED_CASCADE) && src->n_cascade_in)
        memcpy(dst->cascade_in, src->cascade_in, sizeof *src->cascade_in * (size_t)src->n_cascade_in);
    return NPUC_OK;
}

int cc_sched_apply(cc_model *m, const cc_sched *s, npuc_err *err)
{
    unsigned p = s->parts;
    if (!p) return npuc_errf(err, NPUC_E_INVALID, "internal: an empty schedule applied");
    if (s->g != m->g || s->n_ops != m->g->n_ops || s->n_tensors != m->g->n_tensors || s->n_epochs != m->n_epochs)
        return npuc_errf(err, NPUC_E_INVALID, "internal: a schedule applied to another program");
    /* (choices alone name no buffer) A schedule that holds every buffer
     * and what names them drops the buffers made since: the program's
     * (PROGRAM), or the weight copies' (BUFS with WEIGHTS: no tensor and
     * no op of an epoch it does not hold may name one, checked below) */
    bool drops = (p & CC_SCHED_PROGRAM) || ((p & CC_SCHED_BUFS) && (p & CC_SCHED_WEIGHTS));
    if ((p & (CC_SCHED_PLACE | CC_SCHED_BUFS | CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM)) &&
        (drops ? s->n_bufs > m->n_bufs : s->n_bufs != m->n_bufs))
        return npuc_errf(err, NPUC_E_INVALID,
                         "internal: a schedule of %d buffers applied to a model with %d", (int)s->n_bufs,
                         (int)m->n_bufs);
    if (drops && !(p & CC_SCHED_PROGRAM) && s->n_bufs < m->n_bufs) {
        for (int32_t t = 0; t < m->g->n_tensors; t++)
            if (m->buf_of[t] >= s->n_bufs)
                return npuc_errf(err, NPUC_E_INVALID,
                                 "internal: a schedule of %d buffers would drop buffer %d of tensor %d",
                                 (int)s->n_bufs, (int)m->buf_of[t], (int)t);
        for (int32_t i = 0; i < m->n_epochs; i++)
            for (int32_t k = 0; m->epochs[i].kind == CC_EPOCH_HW && s->n_eu[i] < 0 && k < m->epochs[i].n_eu; k++)
                if (m->epochs[i].ops[k].wbuf >= s->n_bufs)
                    return npuc_errf(err, NPUC_E_INVALID,
                                     "internal: a schedule of %d buffers would drop the weight copy of NPU op %d "
                                     "of epoch %d, which it does not hold",
                                     (int)s->n_bufs, (int)k, (int)i);
    }
    for (int32_t i = 0; (p & (CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM)) && i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW && s->n_eu[i] > 0)
            return npuc_errf(err, NPUC_E_INVALID, "internal: a schedule applied to another program");
        if ((p & CC_SCHED_WEIGHTS) && !(p & CC_SCHED_PROGRAM) && e->kind == CC_EPOCH_HW && s->n_eu[i] >= 0 &&
            e->n_eu != s->n_eu[i])
            return npuc_errf(err, NPUC_E_INVALID,
                             "internal: a schedule of %d NPU ops in epoch %d applied to one of %d",
                             (int)s->n_eu[i], (int)i, (int)e->n_eu);
    }
    /* the choices alone extend the model's own: those must be a prefix */
    bool ext_cat = (p & CC_SCHED_CONCAT) && !(p & CC_SCHED_PROGRAM);
    bool ext_cas = (p & CC_SCHED_CASCADE) && !(p & CC_SCHED_PROGRAM);
    if (ext_cat && (m->n_concat_in > s->n_concat_in ||
                    (m->n_concat_in &&
                     memcmp(m->concat_in, s->concat_in, sizeof *s->concat_in * (size_t)m->n_concat_in))))
        return npuc_errf(err, NPUC_E_INVALID,
                         "internal: concatenation choices applied to a program with others applied");
    if (ext_cas && (m->n_cascade_in > s->n_cascade_in ||
                    (m->n_cascade_in &&
                     memcmp(m->cascade_in, s->cascade_in, sizeof *s->cascade_in * (size_t)m->n_cascade_in))))
        return npuc_errf(err, NPUC_E_INVALID, "internal: cascade choices applied to a program with others applied");
    if (ext_cat && m->n_cascade_in && s->n_concat_in > m->n_concat_in)
        return npuc_errf(err, NPUC_E_INVALID, "internal: concatenation choices applied to a cascaded program");
    if (p & CC_SCHED_PROGRAM) {
        /* room first, so that a failure leaves m as it was */
        if (s->n_concat_in > m->cap_concat_in) {
            cc_concat_in *q = realloc(m->concat_in, sizeof *q * (size_t)s->n_concat_in);
            if (!q) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            m->concat_in = q;
            m->cap_concat_in = s->n_concat_in;
        }
        if (s->n_cascade_in > m->cap_cascade_in) {
            cc_cascade_in *q = realloc(m->cascade_in, sizeof *q * (size_t)s->n_cascade_in);
            if (!q) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            m->cascade_in = q;
            m->cap_cascade_in = s->n_cascade_in;
        }
        for (int32_t i = 0; i < m->n_epochs; i++) {
            cc_epoch *e = &m->epochs[i];
            if (e->kind != CC_EPOCH_HW || s->n_eu[i] <= e->cap_eu) continue;   /* (-1: not held) */
            eu_op *q = realloc(e->ops, sizeof *q * (size_t)s->n_eu[i]);
            if (!q) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            e->ops = q;
            e->cap_eu = s->n_eu[i];
        }
        size_t j = 0;
        for (int32_t i = 0; i < m->n_epochs; i++) {
            cc_epoch *e = &m->epochs[i];
            if (e->kind != CC_EPOCH_HW || s->n_eu[i] < 0) continue;
            copy_n(e->ops, s->eu + j, sizeof *e->ops * (size_t)s->n_eu[i]);
            e->n_eu = s->n_eu[i];
            j += (size_t)s->n_eu[i];
        }
        copy_n(m->ops, s->ops, sizeof *m->ops * (size_t)s->n_ops);
        copy_n(m->buf_of, s->buf_of, sizeof *m->buf_of * (size_t)s->n_tensors);
        m->n_bufs = s->n_bufs;   /* the buffers made since (rolling buffers) go */
        if (s->n_concat_in) memcpy(m->concat_in, s->concat_in, sizeof *s->concat_in * (size_t)s->n_concat_in);
        m->n_concat_in = s->n_concat_in;
        if (s->n_cascade_in)
            memcpy(m->cascade_in, s->cascade_in, sizeof *s->cascade_in * (size_t)s->n_cascade_in);
        m->n_cascade_in = s->n_cascade_in;
    }
    if (p & CC_SCHED_BUFS) {
        copy_n(m->bufs, s->bufs, sizeof *m->bufs * (size_t)s->n_bufs);
        m->n_bufs = s->n_bufs;   /* (drops: the weight copies made since go) */
    } else if (p & CC_SCHED_PLACE) {
        cc_buf *restrict x = m->bufs;
        const cc_sched_place *restrict y = s->place;
        for (int32_t b = 0; b < s->n_bufs; b++) {
            x[b].eu_first = y[b].eu_first;
            x[b].first = y[b].first;
            x[b].offset = y[b].offset;
            x[b].over = y[b].over;
            x[b].pool = y[b].pool;
        }
    }
    if (p & (CC_SCHED_PLACE | CC_SCHED_BUFS)) {
        m->arena_size = s->arena_size;
        m->fast_size = s->fast_size;
    }
    if ((p & CC_SCHED_WEIGHTS) && !(p & CC_SCHED_PROGRAM)) {
        size_t j = 0;
        for (int32_t i = 0; i < m->n_epochs; i++) {
            cc_epoch *e = &m->epochs[i];
            if (s->n_eu[i] < 0) continue;
            for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++, j++) {
                e->ops[k].wbuf = s->wbuf[j];
                e->ops[k].blk = s->blk[j];
            }
        }
    }
    int rc = NPUC_OK;
    if (ext_cat && s->n_concat_in > m->n_concat_in)
        rc = cc_concat_apply(m, s->concat_in + m->n_concat_in, s->n_concat_in - m->n_concat_in, err);
    if (!rc && ext_cas && s->n_cascade_in > m->n_cascade_in)
        rc = cc_cascade_apply(m, s->cascade_in + m->n_cascade_in, s->n_cascade_in - m->n_cascade_in, err);
    return rc;
}

/* ------------------------------------------------------------ comparing */

static bool place_eq(const cc_sched_place *a, const cc_sched_place *b)
{
    return a->eu_first == b->eu_first && a->first == b->first && a->offset == b->offset && a->pool == b->pool &&
           a->over == b->over;
}

static bool buf_eq(const cc_buf *a, const cc_buf *b)
{
    return a->eu_first == b->eu_first && a->first == b->first && a->offset == b->offset && a->pool == b->pool &&
           a->size == b->size && a->last == b->last && a->tensor == b->tensor &&
           a->temp == b->temp && a->brick == b->brick && a->wcopy == b->wcopy && a->reload == b->reload &&
           a->epoch == b->epoch && a->eu_last == b->eu_last && a->op == b->op && a->over == b->over;
}

static bool blk_eq(const eu_block *a, const eu_block *b)
{
    return a->w == b->w && a->h == b->h && a->d == b->d && a->ifm_ib_end == b->ifm_ib_end &&
           a->ifm2_ib_start == b->ifm2_ib_start && a->ab_start == b->ab_start && a->acc_format == b->acc_format &&
           a->lut_start_bank == b->lut_start_bank;
}

static bool fm_eq(const eu_fm *a, const eu_fm *b)
{
    return a->buf == b->buf && a->off == b->off && a->h == b->h && a->w == b->w && a->c == b->c && a->c0 == b->c0 &&
           a->full_w == b->full_w && a->full_c == b->full_c && a->sx == b->sx && a->sy == b->sy && a->sc == b->sc &&
           a->bits == b->bits && a->is_signed == b->is_signed && a->format == b->format && a->zp == b->zp &&
           a->tile_h == b->tile_h && a->tile_off2 == b->tile_off2;
}

static bool op_eq(const eu_op *a, const eu_op *b)
{
    return a->kind == b->kind && a->mode == b->mode && fm_eq(&a->ifm, &b->ifm) && fm_eq(&a->ifm2, &b->ifm2) &&
           fm_eq(&a->ofm, &b->ofm) && a->ifm2_tensor == b->ifm2_tensor && a->ifm2_scalar == b->ifm2_scalar &&
           a->scalar == b->scalar && a->bcast_h == b->bcast_h && a->bcast_w == b->bcast_w &&
           a->bcast_c == b->bcast_c && a->reversed == b->reversed && a->kh == b->kh && a->kw == b->kw &&
           a->stride_x == b->stride_x && a->stride_y == b->stride_y && a->dil_x == b->dil_x &&
           a->dil_y == b->dil_y && a->pad_t == b->pad_t && a->pad_l == b->pad_l && a->pad_b == b->pad_b &&
           a->pad_r == b->pad_r && a->upscale == b->upscale && a->pkf == b->pkf && a->w_off == b->w_off &&
           a->w_len == b->w_len && a->s_off == b->s_off && a->s_len == b->s_len && a->dual == b->dual &&
           a->w1_off == b->w1_off && a->w1_len == b->w1_len && a->s1_off == b->s1_off && a->s1_len == b->s1_len &&
           a->wbuf == b->wbuf && a->ofm_scale_mode == b->ofm_scale_mode && a->ofm_scale == b->ofm_scale &&
           a->ofm_shift == b->ofm_shift && a->round == b->round && a->has_opab == b->has_opab &&
           a->ifm_scale_mode == b->ifm_scale_mode && a->opa_scale == b->opa_scale &&
           a->opa_shift == b->opa_shift && a->opb_scale == b->opb_scale && a->act_min == b->act_min &&
           a->act_max == b->act_max && a->act_func == b->act_func && a->act_clip == b->act_clip &&
           a->lut == b->lut && blk_eq(&a->blk, &b->blk) && a->src_op == b->src_op && a->cycles == b->cycles &&
           a->dma_cycles == b->dma_cycles && a->flex == b->flex;
}

static bool info_eq(const cc_op_info *a, const cc_op_info *b)
{
    return a->npu == b->npu && !strcmp(a->why, b->why) && a->epoch == b->epoch && a->first_eu == b->first_eu &&
           a->n_eu == b->n_eu && a->cascade == b->cascade && a->cascade_ops == b->cascade_ops &&
           a->fused_into == b->fused_into && a->macs == b->macs && a->cycles == b->cycles &&
           !memcmp(a->bytes_read, b->bytes_read, sizeof a->bytes_read) &&
           !memcmp(a->bytes_written, b->bytes_written, sizeof a->bytes_written);
}

bool cc_sched_equal(const cc_sched *a, const cc_sched *b)
{
    unsigned p = a->parts;
    if (p != b->parts || a->g != b->g || a->n_ops != b->n_ops || a->n_tensors != b->n_tensors ||
        a->n_epochs != b->n_epochs || a->n_bufs != b->n_bufs)
        return false;
    if (p & (CC_SCHED_PLACE | CC_SCHED_BUFS)) {
        if (a->arena_size != b->arena_size || a->fast_size != b->fast_size) return false;
        for (int32_t i = 0; i < a->n_bufs; i++)
            if ((p & CC_SCHED_BUFS) ? !buf_eq(&a->bufs[i], &b->bufs[i]) : !place_eq(&a->place[i], &b->place[i]))
                return false;
    }
    if (p & (CC_SCHED_WEIGHTS | CC_SCHED_PROGRAM)) {
        if (a->n_eu_all != b->n_eu_all || cmp_n(a->n_eu, b->n_eu, sizeof *a->n_eu * (size_t)a->n_epochs))
            return false;
    }
    if (p & CC_SCHED_WEIGHTS)
        for (int32_t j = 0; j < a->n_eu_all; j++)
            if (a->wbuf[j] != b->wbuf[j] || !blk_eq(&a->blk[j], &b->blk[j])) return false;
    if (p & CC_SCHED_PROGRAM) {
        for (int32_t j = 0; j < a->n_eu_all; j++)
            if (!op_eq(&a->eu[j], &b->eu[j])) return false;
        for (int32_t i = 0; i < a->n_ops; i++)
            if (!info_eq(&a->ops[i], &b->ops[i])) return false;
        if (cmp_n(a->buf_of, b->buf_of, sizeof *a->buf_of * (size_t)a->n_tensors)) return false;
    }
    if ((p & CC_SCHED_CONCAT) &&
        (a->n_concat_in != b->n_concat_in ||
         (a->n_concat_in && memcmp(a->concat_in, b->concat_in, sizeof *a->concat_in * (size_t)a->n_concat_in))))
        return false;
    if ((p & CC_SCHED_CASCADE) &&
        (a->n_cascade_in != b->n_cascade_in ||
         (a->n_cascade_in &&
          memcmp(a->cascade_in, b->cascade_in, sizeof *a->cascade_in * (size_t)a->n_cascade_in))))
        return false;
    return true;
}

bool cc_sched_matches(const cc_model *m, const cc_sched *s)
{
    cc_sched now = {0};
    npuc_err e = {0};
    bool eq = cc_sched_take(m, s->parts, &now, &e) == NPUC_OK && cc_sched_equal(&now, s);
    cc_sched_free(&now);
    return eq;
}
