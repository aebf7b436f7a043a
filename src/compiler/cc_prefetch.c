/* cc_prefetch: starts weight DMAs earlier than the op before their user,
 * where the DMA channel would otherwise sit idle.
 *
 * A weight copy normally lives from the op before its user (its DMA runs
 * while that op computes) to the user. On a flash-bound tail (person_detect:
 * 8-9 KB of weights per 2k-cycle conv), every cycle the DMA channel idles
 * earlier, while compute-bound ops run, is a cycle lost at the end. This
 * pass replays the stream's timeline with each op's and each DMA's cycles
 * from the last estimate (one kernel pipeline, at most two kernel ops
 * issued ahead, a DMA queue of the variant's depth: 1 on U55, 2 on U65,
 * docs/ethos-u.md 8.2) and issues each DMA, in the order of its users, at the
 * first point of the stream where (a) the DMA channel is free or will be
 * before the command stream could issue its next kernel op anyway (a DMA
 * start on a full queue stalls the stream, so an earlier start would delay
 * compute), and (b) the copy finds room at every step from there to its
 * user. The DMA is then emitted after that op (eu_gen.c: dma_after), its
 * buffer's live range starts there (cc_allocate).
 *
 * Room comes from one of three plans: "in place" (holes of the present
 * placement under its peak: the peak does not grow) or "placed" under the
 * peak plus half, then all, of the headroom (cc_options.prefetch_headroom):
 * the pools are placed without the weight copies, then each copy is placed
 * as its DMA is planned. Each plan is generated and estimated, and the
 * search's rule picks (cc_sched_pick, over the plans as they come): within
 * 1 / CC_CYCLE_SLACK of the fewest cycles, the fewest bytes. The plan
 * without prefetch stays unless a plan beats it by that rule: a plan that
 * takes more SRAM saves more than that share of the cycles. */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

/* The allocation step of NPU op k of epoch e (as cc_allocate numbers them). */
static int32_t eu_step(const cc_model *m, const cc_epoch *e, int32_t k, const int32_t *t0)
{
    int32_t a = e->ops[k].src_op;
    if (m->ops[a].cascade >= 0) a = m->ops[a].cascade;
    return t0[a] + (k - m->ops[a].first_eu);
}

/* A placed buffer in its pool's list (pf_ctx.ord): what find_room reads
 * of it, kept with it so that a walk reads the list alone. */
typedef struct ord_rec {
    int64_t offset;
    uint64_t end;             /* offset + size */
    int32_t first, last, b;
    uint8_t pool;
} ord_rec;

typedef struct pf_ctx {
    cc_model *m;
    uint64_t limit[2];        /* per pool: the offset a copy may not cross */
    int32_t *t0;              /* first step of each graph op */
    cc_span *sp;              /* scratch */
    /* placed planning: every weight copy is placed anew as its DMA is
     * planned (offset -1 until then) */
    bool placed;
    /* a copy moved to after op i takes room from op i-1's step on, not op
     * i's: op i-1 may still run when the DMA starts, and a graph op with no
     * NPU op (a folded PAD, a view) between the two ends the live ranges
     * of op i-1's operands before op i's step. A copy over them makes the
     * stream wait for op i-1 before the DMA (eu_gen.c: KERNEL_WAIT), which
     * the replay does not see: the DMAs after it start later than planned
     * and, with a queue of 1, hold the stream */
    bool busy;
    /* the buffers by their live ranges during plan_all (tl_ok false: find
     * them by a scan) and find_room's list of those near a range */
    cc_timeline tl;
    bool tl_ok;
    int32_t *near;
    /* find_room's last answer (memo: whether it holds): for buffer
     * memo_self from step memo_a, under memo_lim at memo_off, the buffers
     * in the way last living to memo_last at the earliest. A later start
     * up to memo_last meets the same buffers, so the same answer, while
     * nothing has moved (plan_epoch clears memo when it moves a buffer) */
    bool memo;
    int32_t memo_self, memo_a, memo_last;
    uint64_t memo_lim;
    int64_t memo_off, memo_res;
    /* with the memo, the buffers in the way it found as spans in c->sp,
     * sorted by offset, memo_n of them, each buffer's last step in
     * sp_last (NULL: not kept). A later start (plan_epoch tries the same
     * copy at each op while it finds no room) meets those of them still
     * live then: the list is filtered, not gathered and sorted again */
    int32_t *sp_last;
    size_t memo_n;
    /* during plan_all (ord_ok; needs sp_last): the placed buffers (size,
     * offset >= 0) of each pool (index pool ? 1 : 0) by offset. Where a
     * pool holds few
     * buffers against those near a range, find_room walks its list in
     * order instead of gathering the near ones and sorting them (the
     * same buffers, in the same order but for equal offsets, which no
     * answer depends on) */
    struct ord_rec *ord[2];
    int32_t ord_n[2];
    bool ord_ok;
} pf_ctx;

/* A pool's list is walked when it holds at most this many buffers, or
 * fewer than ORD_NEAR times those the timeline finds near a range. */
#define ORD_WALK 512
#define ORD_NEAR 8

static int64_t room_among(pf_ctx *c, const cc_buf *x, size_t ns, uint64_t lim, bool sorted);

/* The lowest 16-aligned offset where buffer `self` fits in its pool from
 * step a to its last step without touching a buffer live then, below the
 * pool's limit; its present offset when that is free. -1: none. */
static int64_t find_room(pf_ctx *c, int32_t self, int32_t a)
{
    const cc_model *m = c->m;
    const cc_buf *x = &m->bufs[self];
    size_t ns = 0;
    uint64_t lim = c->limit[x->pool ? 1 : 0];
    bool same = c->memo && c->memo_self == self && c->memo_lim == lim && c->memo_off == x->offset && a >= c->memo_a;
    if (same && a <= c->memo_last) return c->memo_res;
    int32_t in_way_last = INT32_MAX;
    int64_t res;
    if (same && c->sp_last) {
        /* those of the last answer's buffers still live at a, in order */
        for (size_t j = 0; j < c->memo_n; j++) {
            if (c->sp_last[j] < a) continue;
            c->sp[ns] = c->sp[j];
            c->sp_last[ns] = c->sp_last[j];
            ns++;
            if (c->sp_last[j] < in_way_last) in_way_last = c->sp_last[j];
        }
        res = room_among(c, x, ns, lim, true);
    } else {
        /* the buffers live near a..last (the index lists every buffer in
         * the blocks of its range), else all of them; or the pool's list
         * in offset order, when short against those */
        int pi = x->pool ? 1 : 0;
        int32_t nn = -1;
        bool walk = c->ord_ok && (c->ord_n[pi] <= ORD_WALK || !c->tl_ok);
        if (!walk && c->tl_ok) {
            nn = cc_tl_query(&c->tl, a, x->last, c->near);
            walk = c->ord_ok && c->ord_n[pi] < ORD_NEAR * (int64_t)nn;
        }
        if (walk) {
            const ord_rec *o = c->ord[pi];
            for (int32_t j = 0, n = c->ord_n[pi]; j < n; j++) {
                if (o[j].last < a || o[j].first > x->last || o[j].b == self || o[j].pool != x->pool) continue;
                c->sp[ns] = (cc_span){(uint64_t)o[j].offset, o[j].end};
                c->sp_last[ns] = o[j].last;
                ns++;
                if (o[j].last < in_way_last) in_way_last = o[j].last;
            }
            res = room_among(c, x, ns, lim, true);
            goto keep;
        }
        if (nn < 0) nn = c->tl_ok ? cc_tl_query(&c->tl, a, x->last, c->near) : m->n_bufs;
        for (int32_t j = 0; j < nn; j++) {
            int32_t b = c->tl_ok ? c->near[j] : j;
            const cc_buf *y = &m->bufs[b];
            if (b == self || !y->size || y->offset < 0 || y->pool != x->pool || y->last < a || y->first > x->last)
                continue;
            /* kept: the buffer's index in hi while sorted by offset */
            c->sp[ns] = (cc_span){(uint64_t)y->offset, c->sp_last ? (uint64_t)b : (uint64_t)y->offset + y->size};
            ns++;
            if (y->last < in_way_last) in_way_last = y->last;
        }
        if (c->sp_last) {
            cc_sort_spans(c->sp, ns);
            for (size_t j = 0; j < ns; j++) {
                const cc_buf *y = &m->bufs[c->sp[j].hi];
                c->sp[j].hi = (uint64_t)y->offset + y->size;
                c->sp_last[j] = y->last;
            }
        }
        res = room_among(c, x, ns, lim, c->sp_last != NULL);
    }
keep:
    c->memo_n = ns;
    c->memo = true;
    c->memo_self = self;
    c->memo_a = a;
    c->memo_last = in_way_last;
    c->memo_lim = lim;
    c->memo_off = x->offset;
    c->memo_res = res;
    return res;
}

/* find_room's answer among the ns spans c->sp in the way (sorted by
 * offset when `sorted`; the order of equal offsets does not matter). */
static int64_t room_among(pf_ctx *c, const cc_buf *x, size_t ns, uint64_t lim, bool sorted)
{
    bool here = x->offset >= 0 && (uint64_t)x->offset + x->size <= lim;
    for (size_t i = 0; i < ns && here; i++)
        if (c->sp[i].lo < (uint64_t)x->offset + x->size && (uint64_t)x->offset < c->sp[i].hi) here = false;
    if (here) return x->offset;
    if (!sorted) cc_sort_spans(c->sp, ns);
    if (c->placed && x->pool == CC_IN_ARENA && lim < UINT64_MAX / 4) {
        /* placed plan: the highest hole under the limit, so that copies
         * stack down from the limit in the order they are loaded and leave
         * the low offsets, where the feature maps are, whole */
        int64_t best = -1;
        uint64_t lo = 0;
        for (size_t i = 0; i <= ns; i++) {
            uint64_t hi = i < ns ? c->sp[i].lo : lim;
            if (hi > lim) hi = lim;
            if (hi >= lo + x->size) {
                uint64_t o = (hi - x->size) & ~(uint64_t)15;
                if (o >= lo && (int64_t)o > best) best = (int64_t)o;
            }
            if (i < ns) {
                uint64_t e = (c->sp[i].hi + 15) & ~(uint64_t)15;
                if (e > lo) lo = e;
            }
        }
        return best;
    }
    uint64_t off = 0;
    for (size_t i = 0; i < ns; i++) {
        if (off + x->size <= c->sp[i].lo) break;
        if (c->sp[i].hi > off) off = (c->sp[i].hi + 15) & ~(uint64_t)15;
    }
    return off + x->size <= lim ? (int64_t)off : -1;
}

/* Where in list o (n buffers by offset) the first buffer at an offset
 * above `off` is (above_or_at: at off or above). */
static int32_t ord_find(const ord_rec *o, int32_t n, int64_t off, bool above_or_at)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int64_t y = o[mid].offset;
        if (above_or_at ? y < off : y <= off) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Buffer b's offset set to off, its pool's list (ord) kept in order (a
 * buffer's size and pool do not change during plan_all; its first and
 * last steps are set before it moves). */
static void set_offset(pf_ctx *c, int32_t b, int64_t off)
{
    cc_buf *x = &c->m->bufs[b];
    if (c->ord_ok && x->size) {
        int pi = x->pool ? 1 : 0;
        ord_rec *o = c->ord[pi];
        int32_t n = c->ord_n[pi], at = -1;
        if (x->offset >= 0) {
            /* its place in the list: among those at its offset */
            at = ord_find(o, n, x->offset, true);
            while (at < n && o[at].b != b) at++;
            if (at == n) at = -1;
        }
        ord_rec r = {off, (uint64_t)off + x->size, x->first, x->last, b, x->pool};
        /* its new place: after the last one at an offset up to off (as if
         * taken out first); only the records in between shift */
        int32_t to = off >= 0 ? ord_find(o, n, off, false) : -1;
        if (at >= 0 && to >= 0) {
            if (at < to) {
                memmove(&o[at], &o[at + 1], sizeof *o * (size_t)(to - 1 - at));
                o[to - 1] = r;
            } else {
                memmove(&o[to + 1], &o[to], sizeof *o * (size_t)(at - to));
                o[to] = r;
            }
        } else if (at >= 0) {
            memmove(&o[at], &o[at + 1], sizeof *o * (size_t)(n - at - 1));
            n--;
        } else if (to >= 0) {
            memmove(&o[to + 1], &o[to], sizeof *o * (size_t)(n - to));
            o[to] = r;
            n++;
        }
        c->ord_n[pi] = n;
    }
    x->offset = off;
}

/* The pools' lists of placed buffers by offset (plan_all's start). */
static void ord_build(pf_ctx *c)
{
    const cc_model *m = c->m;
    c->ord_ok = c->ord[0] && c->ord[1] && c->sp_last;
    if (!c->ord_ok) return;
    for (int pi = 0; pi < 2; pi++) {
        size_t n = 0;
        for (int32_t b = 0; b < m->n_bufs; b++) {
            const cc_buf *x = &m->bufs[b];
            if (x->size && x->offset >= 0 && x->pool != CC_IN_STATE && (x->pool ? 1 : 0) == pi)
                c->sp[n++] = (cc_span){(uint64_t)x->offset, (uint64_t)b};
        }
        cc_sort_spans(c->sp, n);
        for (size_t j = 0; j < n; j++) {
            const cc_buf *x = &m->bufs[c->sp[j].hi];
            c->ord[pi][j] = (ord_rec){x->offset, (uint64_t)x->offset + x->size, x->first, x->last,
                                      (int32_t)c->sp[j].hi, x->pool};
        }
        c->ord_n[pi] = (int32_t)n;
    }
}

/* The stream as plan_epoch and replay_waits replay it: the command
 * stream's position in time, the ends of the last two DMAs (newest in [1])
 * and of the last two kernel ops, and the DMA queue's depth (1 on U55, 2
 * on U65). */
typedef struct pf_line {
    uint64_t t_cmd, dend[2], kend_1, kend_2;
    unsigned qdepth;
} pf_line;

/* When the DMA queue has room: the stream is held until its oldest DMA
 * ends when it is full. */
static uint64_t line_dma_free(const pf_line *l) { return l->dend[l->qdepth == 1 ? 1 : 0]; }

/* A DMA of `cycles` issued at the stream's position, after the DMAs
 * before it; returns its end. */
static uint64_t line_dma(pf_line *l, uint64_t cycles)
{
    uint64_t oldest = line_dma_free(l);
    if (oldest > l->t_cmd) l->t_cmd = oldest;
    uint64_t start = l->t_cmd > l->dend[1] ? l->t_cmd : l->dend[1];
    l->dend[0] = l->dend[1];
    l->dend[1] = start + cycles;
    return l->dend[1];
}

/* The next kernel op, of `cycles`, its weights ready at `ready`: two kernel
 * ops in flight at most; returns how long it waits for its weights. */
static uint64_t line_kernel(pf_line *l, uint64_t ready, uint64_t cycles)
{
    if (l->kend_2 > l->t_cmd) l->t_cmd = l->kend_2;
    uint64_t could = l->t_cmd > l->kend_1 ? l->t_cmd : l->kend_1;
    if (ready > l->t_cmd) l->t_cmd = ready;
    uint64_t start = l->t_cmd > l->kend_1 ? l->t_cmd : l->kend_1;
    l->kend_2 = l->kend_1;
    l->kend_1 = start + cycles;
    return ready > could ? ready - could : 0;
}

/* Plans one epoch: sets eu_first of the weight copies it moves. */
static void plan_epoch(pf_ctx *c, cc_epoch *e)
{
    cc_model *m = c->m;
    int32_t n = e->n_eu;
    pf_line l = {.qdepth = eu_variant_is_u65(m->opt.sys.variant) ? 2 : 1};
    uint64_t *wready = calloc((size_t)n + 1, sizeof *wready);
    bool *issued = calloc((size_t)n + 1, sizeof *issued);
    /* per op: whether it loads its copy (its first user), and the next op using
     * the same copy (-1 none), found once for the epoch */
    bool *loader = calloc((size_t)n + 1, sizeof *loader);
    int32_t *next_user = malloc(sizeof *next_user * ((size_t)n + 1));
    int32_t *first_of = malloc(sizeof *first_of * ((size_t)m->n_bufs + 1));
    if (!wready || !issued || !loader || !next_user || !first_of) {
        free(wready);
        free(issued);
        free(loader);
        free(next_user);
        free(first_of);
        return;   /* no plan: the streams stay as they are */
    }
    for (int32_t b = 0; b < m->n_bufs; b++) first_of[b] = -1;
    for (int32_t k = n - 1; k >= 0; k--) {
        int32_t w = e->ops[k].wbuf;
        next_user[k] = w >= 0 ? first_of[w] : -1;
        if (w >= 0) first_of[w] = k;
    }
    for (int32_t k = 0; k < n; k++) loader[k] = e->ops[k].wbuf >= 0 && first_of[e->ops[k].wbuf] == k;
    free(first_of);
    int32_t next = 0;   /* first op whose weights are not yet issued */
    for (int32_t i = -1; i < n; i++) {
        /* the stream is just past op i: start DMAs */
        for (;;) {
            while (next < n && (issued[next] || !loader[next])) next++;
            if (next >= n) break;
            int32_t k = next;
            cc_buf *b = &m->bufs[e->ops[k].wbuf];
            /* its usual place (after the op before its first user) */
            bool mandatory = i >= b->eu_first || (b->eu_first >= k && i == k - 1);
            if (!mandatory) {
                if (i < 0) break;
                /* (a) the channel is idle before the stream could issue
                 * op i+1 (op i-1 done). (When it is busy up to then with
                 * op i+1's own weights, the stream waits for those anyway
                 * and a DMA issued after op i+1 starts just as early.) */
                uint64_t limit = l.t_cmd > l.kend_2 ? l.t_cmd : l.kend_2;
                uint64_t free_at = line_dma_free(&l);
                if (free_at >= limit) break;
                /* (b) the copy finds room from op i to its user, in the
                 * memory plan as it is, under the pool's peak */
                int32_t from = eu_step(m, e, c->busy && i > 0 ? i - 1 : i, c->t0);
                int64_t off = find_room(c, e->ops[k].wbuf, from);
                if (off < 0) break;
                b->eu_first = i;
                if (c->tl_ok && from < b->first) c->tl_ok = cc_tl_add(&c->tl, e->ops[k].wbuf, from, b->first);
                b->first = from;
                set_offset(c, e->ops[k].wbuf, off);
                c->memo = false;
            } else if (b->offset < 0) {
                /* placed where it is due: under the limit if it can be,
                 * else wherever it fits */
                int64_t off = find_room(c, e->ops[k].wbuf, b->first);
                if (off < 0) {
                    uint64_t keep = c->limit[b->pool ? 1 : 0];
                    c->limit[b->pool ? 1 : 0] = UINT64_MAX / 2;
                    off = find_room(c, e->ops[k].wbuf, b->first);
                    c->limit[b->pool ? 1 : 0] = keep;
                }
                set_offset(c, e->ops[k].wbuf, off);
                c->memo = false;
            }
            wready[k] = line_dma(&l, e->ops[k].dma_cycles);
            issued[k] = true;
            /* the other users of the copy (cascade bands) */
            for (int32_t j = next_user[k]; j >= 0; j = next_user[j]) wready[j] = wready[k], issued[j] = true;
        }
        if (i + 1 >= n) break;
        /* issue op i+1: two kernel ops in flight at most; its DMA done */
        line_kernel(&l, wready[i + 1], e->ops[i + 1].cycles);
    }
    free(wready);
    free(issued);
    free(loader);
    free(next_user);
}

/* The schedules a prefetch starts from, plans and picks are cc_sched
 * values (cc_sched.c) of the CC_SCHED_PLACE part: every buffer's place and
 * the step its live range starts at (a weight copy's DMA issue point), and
 * the pools' peaks. */

/* Whether a DMA issue point (eu_first) of the model differs from sv's. */
static bool moved(const cc_model *m, const cc_sched *sv)
{
    for (int32_t b = 0; b < m->n_bufs; b++)
        if (sv->place[b].eu_first != m->bufs[b].eu_first) return true;
    return false;
}

static void plan_all(pf_ctx *c)
{
    const cc_model *m = c->m;
    c->memo = false;
    c->tl_ok = c->near && cc_tl_init(&c->tl, m);
    for (int32_t b = 0; b < m->n_bufs && c->tl_ok; b++)
        if (m->bufs[b].size) c->tl_ok = cc_tl_add(&c->tl, b, m->bufs[b].first, m->bufs[b].last);
    ord_build(c);
    for (int32_t i = 0; i < c->m->n_epochs; i++)
        if (c->m->epochs[i].kind == CC_EPOCH_HW) plan_epoch(c, &c->m->epochs[i]);
    cc_tl_free(&c->tl);
    c->tl_ok = false;
    c->ord_ok = false;
}

/* The peaks of both pools as placed. */
static void tops(const cc_model *m, uint64_t top[2])
{
    top[0] = top[1] = 0;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        uint64_t end = (uint64_t)x->offset + x->size;
        if (x->size && x->pool != CC_IN_STATE && end > top[x->pool ? 1 : 0]) top[x->pool ? 1 : 0] = end;
    }
    for (int p = 0; p < 2; p++) top[p] = (top[p] + 15) & ~(uint64_t)15;
}

/* Placed plan: from `bare` (the pools placed without the weight copies,
 * copies unplaced, the pools' peaks as in sv), each copy is placed as its
 * DMA is planned, under lim[]. *ok: whether every copy found a place
 * within the pools' sizes (else the model is as in `sv`). */
/* The arena's weight copies a placed plan stacked down from its limit,
 * moved down together as far as every one stays clear of the other
 * buffers below it while both are live: the copies keep their places
 * among themselves and above what they were above, so the streams only
 * change in addresses, and the arena's peak drops by the gap the limit
 * left (armkws_cnn_l ethos-u55-128: the same cycles in 4.5 KiB less). */
static void slide_copies(cc_model *m)
{
    bool any = false;
    for (int32_t b = 0; b < m->n_bufs && !any; b++) {
        const cc_buf *x = &m->bufs[b];
        any = x->wcopy && x->size && x->pool == CC_IN_ARENA && x->offset >= 0;
    }
    if (!any) return;
    /* the other arena buffers by their live ranges: each copy meets only
     * those live beside it (none, or out of memory: the plan stays) */
    cc_timeline tl;
    int32_t *near = malloc(sizeof *near * ((size_t)m->n_bufs + 1));
    if (!near || !cc_tl_init(&tl, m)) {
        free(near);
        return;
    }
    bool ok = true;
    for (int32_t o = 0; o < m->n_bufs && ok; o++) {
        const cc_buf *y = &m->bufs[o];
        if (!y->wcopy && y->size && y->pool == CC_IN_ARENA && y->offset >= 0) ok = cc_tl_add(&tl, o, y->first, y->last);
    }
    uint64_t delta = ok ? UINT64_MAX : 0;
    for (int32_t b = 0; b < m->n_bufs && delta; b++) {
        const cc_buf *x = &m->bufs[b];
        if (!x->wcopy || !x->size || x->pool != CC_IN_ARENA || x->offset < 0) continue;
        if ((uint64_t)x->offset < delta) delta = (uint64_t)x->offset;
        int32_t nn = cc_tl_query(&tl, x->first, x->last, near);
        for (int32_t j = 0; j < nn && delta; j++) {
            const cc_buf *y = &m->bufs[near[j]];
            if (y->last < x->first || x->last < y->first) continue;
            uint64_t end = (uint64_t)y->offset + y->size;
            if (y->offset >= x->offset + (int64_t)x->size) continue;   /* above it */
            if (end > (uint64_t)x->offset) {
                delta = 0;   /* beside it: the plan placed it so, keep it */
                break;
            }
            if ((uint64_t)x->offset - end < delta) delta = (uint64_t)x->offset - end;
        }
    }
    cc_tl_free(&tl);
    free(near);
    delta &= ~(uint64_t)15;
    if (!delta || delta == UINT64_MAX) return;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        if (x->wcopy && x->size && x->pool == CC_IN_ARENA && x->offset >= 0) x->offset -= (int64_t)delta;
    }
}

static int plan_placed(pf_ctx *c, const cc_sched *sv, const cc_sched *bare, const uint64_t lim[2],
                       uint64_t fast_cap, bool *ok_out, npuc_err *err)
{
    cc_model *m = c->m;
    *ok_out = false;
    int rc = cc_sched_apply(m, bare, err);
    if (rc) return rc;
    c->placed = true;
    c->limit[0] = lim[0];
    c->limit[1] = lim[1];
    plan_all(c);
    c->placed = false;
    bool ok = true;
    for (int32_t b = 0; b < m->n_bufs && ok; b++) ok = !m->bufs[b].size || m->bufs[b].offset >= 0;
    if (ok) {
        uint64_t top[2];
        slide_copies(m);
        tops(m, top);
        m->arena_size = top[0];
        m->fast_size = top[1];
        ok = !fast_cap || top[1] <= fast_cap;
        const target_desc *s = &m->opt.sys;
        if (ok && s->act_pool >= 0 && s->act_pool < s->n_pools && s->pools[s->act_pool].size)
            ok = top[0] <= s->pools[s->act_pool].size;
    }
    *ok_out = ok;
    return ok ? NPUC_OK : cc_sched_apply(m, sv, err);
}

/* The pools placed without the weight copies (which keep their pools and
 * get offset -1) into *bare, with sv's pools' peaks; the model is then as
 * in sv again. *ok false when that placement fails. */
static int place_bare(cc_model *m, const cc_sched *sv, cc_sched *bare, bool *ok_out, npuc_err *err)
{
    *ok_out = false;
    uint64_t *size = malloc(sizeof *size * ((size_t)m->n_bufs + 1));
    if (!size) return NPUC_OK;   /* no placed plans */
    for (int32_t b = 0; b < m->n_bufs; b++) {
        size[b] = m->bufs[b].size;
        if (m->bufs[b].wcopy) m->bufs[b].size = 0;
    }
    npuc_err e2 = {0};
    bool ok = cc_allocate(m, &e2) == NPUC_OK;
    for (int32_t b = 0; b < m->n_bufs; b++) m->bufs[b].size = size[b];
    free(size);
    int rc = ok ? cc_sched_take(m, CC_SCHED_PLACE, bare, err) : NPUC_OK;
    if (!rc && ok) {
        for (int32_t b = 0; b < m->n_bufs; b++)
            if (m->bufs[b].wcopy) {
                bare->place[b].offset = -1;
                bare->place[b].pool = sv->place[b].pool;
            }
        bare->arena_size = sv->arena_size;
        bare->fast_size = sv->fast_size;
    }
    int rc2 = cc_sched_apply(m, sv, err);
    *ok_out = ok && !rc && !rc2;
    return rc ? rc : rc2;
}

/* A whole plan (every buffer's range and place, the pools' peaks) and
 * the cycles it gave. */
typedef struct pf_state {
    cc_sched s;
    uint64_t cycles;
} pf_state;

static int snap(const cc_model *m, pf_state *st, npuc_err *err)
{
    st->cycles = m->npu_cycles;
    return cc_sched_take(m, CC_SCHED_PLACE, &st->s, err);
}

/* ------------------------------------------------ plans picked before */

/* A cc_prefetch is a function of the model's state when it starts: every
 * buffer, the NPU ops' weight copies and blocks (and the cycles the
 * streams generated from them give), the pools' peaks, the headroom and
 * the SRAM limit (cc_place_weights' trials come back to states they had
 * before: a busy polish redoes its first plans, a trial its drops). Its
 * pick is kept by that state: the same state picks the same plan again
 * without planning, and a search that also weighs the busy plans starts
 * from the three others' pick (cc_prefetch keeps the first of equals, so
 * the pick over the six plans is the pick over that one and the busy
 * three). */
typedef struct pf_memo_ent {
    uint64_t *key;
    size_t n_key;
    bool busy;          /* the pick over the six plans (else the first three) */
    bool orig;          /* no plan beat the state it started from */
    pf_state best;
    uint64_t fewest;    /* the fewest cycles of the plans weighed */
} pf_memo_ent;

#define PF_MEMO_KEEP 8

struct cc_pfmemo {
    pf_memo_ent e[PF_MEMO_KEEP];
    int next;
};

struct cc_pfmemo *cc_pfmemo_new(void) { return calloc(1, sizeof(struct cc_pfmemo)); }

static void pf_ent_free(pf_memo_ent *x)
{
    free(x->key);
    cc_sched_free(&x->best.s);
    memset(x, 0, sizeof *x);
}

void cc_pfmemo_free(struct cc_pfmemo *c)
{
    if (!c) return;
    for (int i = 0; i < PF_MEMO_KEEP; i++) pf_ent_free(&c->e[i]);
    free(c);
}

/* The state cc_prefetch starts from, field by field (no padding); NULL
 * when out of memory. */
static uint64_t *pf_key(const cc_model *m, size_t *n_key)
{
    size_t n = 8 + 6 * (size_t)m->n_bufs;
    for (int32_t i = 0; i < m->n_epochs; i++)
        if (m->epochs[i].kind == CC_EPOCH_HW) n += 2 + 5 * (size_t)m->epochs[i].n_eu;
    uint64_t *key = malloc(sizeof *key * n), *p = key;
    if (!key) return NULL;
#define U32(x) ((uint64_t)(uint32_t)(x))
    *p++ = U32(m->n_bufs) | U32(m->n_epochs) << 32;
    *p++ = m->arena_size;
    *p++ = m->fast_size;
    *p++ = m->npu_cycles;
    *p++ = U32(m->opt.prefetch_headroom);
    *p++ = m->opt.sram_limit;
    *p++ = U32(m->opt.optimise);
    *p++ = 0;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        *p++ = x->size;
        *p++ = U32(x->first) | U32(x->last) << 32;
        *p++ = (uint64_t)x->offset;
        *p++ = (uint64_t)x->pool | (uint64_t)x->temp << 8 | (uint64_t)x->brick << 16 | (uint64_t)x->wcopy << 24 |
               U32(x->tensor) << 32;
        *p++ = U32(x->epoch) | U32(x->eu_first) << 32;
        *p++ = U32(x->eu_last) | U32(x->op) << 32;
    }
    for (int32_t i = 0; i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW) continue;
        *p++ = U32(i) | U32(e->n_eu) << 32;
        *p++ = e->cycles;
        for (int32_t k = 0; k < e->n_eu; k++) {
            const eu_op *o = &e->ops[k];
            const eu_block *bl = &o->blk;
            *p++ = U32(o->wbuf) | U32(bl->w) << 32;
            *p++ = U32(bl->h) | U32(bl->d) << 32;
            *p++ = (uint64_t)bl->ifm_ib_end | (uint64_t)bl->ifm2_ib_start << 8 | (uint64_t)bl->ab_start << 16 |
                   (uint64_t)bl->acc_format << 24 | (uint64_t)bl->lut_start_bank << 32;
            *p++ = o->cycles;
            *p++ = o->dma_cycles;
        }
    }
#undef U32
    *n_key = (size_t)(p - key);
    return key;
}

/* The entry for `key` whose plans were the six (busy) or the first three;
 * NULL none. */
static const pf_memo_ent *pf_find(const struct cc_pfmemo *c, const uint64_t *key, size_t n_key, bool busy)
{
    for (int i = 0; c && key && i < PF_MEMO_KEEP; i++) {
        const pf_memo_ent *x = &c->e[i];
        if (x->key && x->busy == busy && x->n_key == n_key && !memcmp(x->key, key, sizeof *key * n_key)) return x;
    }
    return NULL;
}

/* Keeps the pick `best` (orig: the state started from) for `key`;
 * nothing when out of memory. */
static void pf_keep(cc_model *m, const uint64_t *key, size_t n_key, bool busy, bool orig, const pf_state *best,
                    uint64_t fewest)
{
    struct cc_pfmemo *c = m->pfmemo;
    if (!c || !key || pf_find(c, key, n_key, busy)) return;
    pf_memo_ent x = {0};
    npuc_err e2 = {0};
    x.key = malloc(sizeof *key * n_key);
    if (!x.key || cc_sched_copy(&x.best.s, &best->s, &e2)) {
        pf_ent_free(&x);
        return;
    }
    memcpy(x.key, key, sizeof *key * n_key);
    x.n_key = n_key;
    x.busy = busy;
    x.orig = orig;
    x.best.cycles = best->cycles;
    x.fewest = fewest;
    pf_ent_free(&c->e[c->next]);
    c->e[c->next] = x;
    c->next = (c->next + 1) % PF_MEMO_KEEP;
}

int cc_prefetch(cc_model *m, npuc_err *err)
{
    if (m->opt.optimise != CC_OPT_PERFORMANCE) return NPUC_OK;
    const graph *g = m->g;
    bool any = false;
    for (int32_t i = 0; i < m->n_epochs && !any; i++)
        for (int32_t k = 0; m->epochs[i].kind == CC_EPOCH_HW && k < m->epochs[i].n_eu; k++)
            if (m->epochs[i].ops[k].wbuf >= 0 && k > 0) any = true;
    if (!any) return NPUC_OK;
    /* the same state picks the same plan (plans picked before) */
    size_t n_key = 0;
    uint64_t *key = m->pfmemo ? pf_key(m, &n_key) : NULL;
    bool busy = m->opt.prefetch_busy;
    const pf_memo_ent *hit = pf_find(m->pfmemo, key, n_key, busy);
    if (hit) {
        free(key);
        if (hit->orig) return NPUC_OK;   /* the model stays as it is */
        int rc = cc_sched_apply(m, &hit->best.s, err);
        return rc ? rc : cc_generate_all(m, err);
    }
    /* with the busy plans: the first three's pick, when known */
    const pf_memo_ent *part = busy ? pf_find(m->pfmemo, key, n_key, false) : NULL;

    pf_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.t0 = malloc(sizeof(int32_t) * ((size_t)g->n_ops + 1));
    c.sp = malloc(sizeof *c.sp * ((size_t)m->n_bufs + 1));
    c.near = malloc(sizeof *c.near * ((size_t)m->n_bufs + 1));   /* NULL: scans */
    c.sp_last = malloc(sizeof *c.sp_last * ((size_t)m->n_bufs + 1));   /* NULL: not kept */
    for (int pi = 0; pi < 2; pi++) c.ord[pi] = malloc(sizeof *c.ord[pi] * ((size_t)m->n_bufs + 1));   /* NULL: none */
    pf_state orig = {0}, best = {0};
    uint64_t fewest = 0;   /* the fewest cycles of the plans weighed (orig's first) */
    cc_sched bare = {0};
    int rc = NPUC_OK;
    if (!c.t0 || !c.sp) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto out;
    }
    for (int32_t i = 0, steps = 0; i < g->n_ops; i++) {
        c.t0[i] = steps;
        steps += cc_op_steps(m, i);
    }
    if ((rc = snap(m, &orig, err)) || (rc = snap(m, &best, err))) goto out;
    fewest = best.cycles;
    uint64_t lim_sram = m->opt.sram_limit, sram0 = cc_sram_bytes(m);
    uint64_t fast_cap = cc_fast_bytes(&m->opt);
    bool fast_pool = fast_cap != 0;
    uint64_t lim[2];
    /* the arena may grow by the headroom: half of it, then all of it */
    int32_t pct = m->opt.prefetch_headroom ? m->opt.prefetch_headroom : CC_HEADROOM_DEFAULT;
    /* so may the fast pool, within its size */
    lim[1] = m->fast_size;
    if (fast_pool) {
        uint64_t f0 = orig.s.fast_size;
        uint64_t f = pct > 0 ? (f0 + f0 * (uint64_t)pct / 100u) & ~(uint64_t)15 : f0;
        lim[1] = f < fast_cap ? f : fast_cap;
    }
    uint64_t arena0 = orig.s.arena_size;
    uint64_t room = pct > 0 ? (arena0 * (uint64_t)pct / 100u) & ~(uint64_t)15 : 0;
    /* an arena cache size on an arena that is the SRAM, the headroom left
     * to the compiler: two more plans let the arena grow to that size (the
     * fewest cycles that fit, as --arena-cache-size promises); the
     * headroom's own plans stay, so a limit never costs cycles */
    uint64_t room_lim = 0;
    if (!fast_pool && lim_sram > arena0 && m->opt.prefetch_headroom == 0 &&
        ((lim_sram - arena0) & ~(uint64_t)15) > room)
        room_lim = (lim_sram - arena0) & ~(uint64_t)15;
    if (room || room_lim) {
        bool ok;
        if ((rc = place_bare(m, &orig.s, &bare, &ok, err))) goto out;
        if (!ok) room = room_lim = 0;
    }
    bool last_is_best = true;   /* the model as generated last is `best` */
    bool best_orig = true;      /* `best` is `orig` */
    /* per group: the headroom's half and whole, the fixed plan, then the
     * limit's half and whole; a second group (prefetch_busy) the same
     * keeping moved copies clear of the op before their DMA (pf_ctx.busy) */
    int per = room_lim ? 5 : 3;
    int j0 = 0;
    if (part) {
        /* the streams are orig's: unless that is the pick, they are not best's */
        if ((rc = cc_sched_copy(&best.s, &part->best.s, err))) goto out;
        best.cycles = part->best.cycles;
        fewest = part->fewest;
        last_is_best = best_orig = part->orig;
        j0 = per;
    }
    int n_plans = busy ? 2 * per : per;
    for (int j = j0; j < n_plans && !rc; j++) {
        if (j == per) pf_keep(m, key, n_key, false, best_orig, &best, fewest);
        bool ok;
        int q = j % per;
        c.busy = j >= per;
        if (q != 2) {
            /* placed plans under the arena's peak plus part of the room */
            uint64_t r = q < 2 ? room : room_lim;
            if (!r) continue;
            lim[0] = arena0 + (r / 2u * (uint64_t)(q % 3 + 1) & ~(uint64_t)15);
            if ((rc = plan_placed(&c, &orig.s, &bare, lim, fast_pool ? lim[1] : 0, &ok, err))) break;
        } else {
            /* the fixed plan: copies move only into holes of the present
             * placement, under its peak */
            c.limit[0] = arena0;
            c.limit[1] = lim[1];
            plan_all(&c);
            ok = moved(m, &orig.s);
            if (ok) {
                uint64_t top[2];
                tops(m, top);
                if (top[0] > m->arena_size) m->arena_size = top[0];
                if (top[1] > m->fast_size) m->fast_size = top[1];
            }
        }
        if (!ok) continue;
        rc = cc_generate_all(m, err);
        if (rc) break;
        /* never over the SRAM limit (--arena-cache-size) when without it
         * the model was under; else the search's rule (cc_sched_pick)
         * over the plans as they come: within 1 / CC_CYCLE_SLACK of the
         * fewest cycles seen, the least SRAM (a plan that puts `best` out
         * of that band takes its place) */
        if (lim_sram && cc_sram_bytes(m) > lim_sram && sram0 <= lim_sram) {
            last_is_best = false;
        } else {
            uint64_t sz = m->arena_size + m->fast_size, bsz = best.s.arena_size + best.s.fast_size;
            uint64_t cy = m->npu_cycles, bcy = best.cycles;
            if (cy < fewest) fewest = cy;
            uint64_t band = fewest + fewest / CC_CYCLE_SLACK;
            last_is_best = bcy > band || (cy <= band && (sz < bsz || (sz == bsz && cy < bcy)));
        }
        if (last_is_best) {
            if ((rc = snap(m, &best, err))) break;
            best_orig = false;
        }
        rc = cc_sched_apply(m, &orig.s, err);
    }
    if (!rc) {
        pf_keep(m, key, n_key, busy, best_orig, &best, fewest);
        rc = cc_sched_apply(m, &best.s, err);
        if (!rc && !last_is_best) rc = cc_generate_all(m, err);
    }
out:
    free(key);
    free(c.t0);
    free(c.sp);
    free(c.near);
    free(c.sp_last);
    free(c.ord[0]);
    free(c.ord[1]);
    cc_sched_free(&orig.s);
    cc_sched_free(&best.s);
    cc_sched_free(&bare);
    return rc;
}

/* ------------------------------------------------ weights where they pay */

/* Whether op k of e reads each byte of its weights once: one OFM block
 * covers its whole OFM plane (the weight stream is fetched once per OFM
 * block position) and no other op (a cascade band) shares its copy. */
static bool read_once(const cc_epoch *e, int32_t k, const int32_t *users)
{
    const eu_op *o = &e->ops[k];
    if (o->wbuf < 0 || !o->blk.w || !o->blk.h || o->blk.w < o->ofm.w || o->blk.h < o->ofm.h) return false;
    return users[o->wbuf] == 1;
}

/* users[b]: how many ops of epoch e use weight copy b (entries of the
 * other buffers left as they are: those of e's copies are set here) */
static void count_users(const cc_epoch *e, int32_t *users)
{
    for (int32_t k = 0; k < e->n_eu; k++)
        if (e->ops[k].wbuf >= 0) users[e->ops[k].wbuf] = 0;
    for (int32_t k = 0; k < e->n_eu; k++)
        if (e->ops[k].wbuf >= 0) users[e->ops[k].wbuf]++;
}

/* A weight copy that may be dropped. */
typedef struct pw_cand { int32_t epoch, op, wbuf; } pw_cand;

/* The model as placed and estimated: its schedule (every buffer, the
 * pools' peaks, each op's weight copy and block: a cc_sched), the cycles
 * (per epoch too). */
typedef struct pw_state {
    cc_sched s;
    uint64_t cycles;
    uint64_t *ecycles;
} pw_state;

static int pw_snap(const cc_model *m, pw_state *st, npuc_err *err)
{
    st->cycles = m->npu_cycles;
    for (int32_t i = 0; i < m->n_epochs; i++) st->ecycles[i] = m->epochs[i].cycles;
    return cc_sched_take(m, CC_SCHED_BUFS | CC_SCHED_WEIGHTS, &st->s, err);
}

/* From `bare` (placed, not prefetched), the candidates of the epochs in
 * `drop` read their weights from flash: placed, generated, prefetched
 * anew. An allocation failure leaves the model as in `bare` (rc 0, *ok
 * false). */
static int pw_trial(cc_model *m, const pw_state *bare, const pw_cand *cand, int32_t nc, const bool *drop,
                    bool *ok, npuc_err *err)
{
    *ok = false;
    int rc = cc_sched_apply(m, &bare->s, err);
    if (rc) return rc;
    for (int32_t i = 0; i < nc; i++) {
        if (!drop[cand[i].epoch]) continue;
        m->bufs[cand[i].wbuf].size = 0;
        m->epochs[cand[i].epoch].ops[cand[i].op].wbuf = -1;
    }
    npuc_err e2 = {0};
    *ok = cc_allocate(m, &e2) == NPUC_OK;
    if (!*ok) return cc_sched_apply(m, &bare->s, err);
    rc = cc_generate_all(m, err);
    if (!rc) rc = cc_prefetch(m, err);
    return rc;
}

static bool pw_better(const cc_model *m, const pw_state *st)
{
    return m->npu_cycles < st->cycles ||
           (m->npu_cycles == st->cycles && m->arena_size + m->fast_size < st->s.arena_size + st->s.fast_size);
}

/* The cycles each op of e waits for its copy's DMA (lost[k]), replaying
 * the stream as generated (each DMA issued after op eu_first of its copy,
 * or the op before its first user) with the cycles of the last estimate,
 * as plan_epoch does. False: out of memory (lost untouched). */
static bool replay_waits(const cc_model *m, const cc_epoch *e, uint64_t *lost)
{
    int32_t n = e->n_eu;
    uint64_t *wready = calloc((size_t)n + 1, sizeof *wready);
    int32_t *first_of = malloc(sizeof *first_of * ((size_t)m->n_bufs + 1));
    int32_t *next_user = malloc(sizeof *next_user * ((size_t)n + 1));   /* the next op using the same copy */
    if (!wready || !first_of || !next_user) {
        free(wready);
        free(first_of);
        free(next_user);
        return false;
    }
    for (int32_t b = 0; b < m->n_bufs; b++) first_of[b] = -1;
    for (int32_t k = n - 1; k >= 0; k--) {
        int32_t w = e->ops[k].wbuf;
        next_user[k] = w >= 0 ? first_of[w] : -1;
        if (w >= 0) first_of[w] = k;
    }
    pf_line l = {.qdepth = eu_variant_is_u65(m->opt.sys.variant) ? 2 : 1};
    int32_t next = 0;
    for (int32_t i = -1; i < n; i++) {
        for (; next < n; next++) {
            int32_t w = e->ops[next].wbuf;
            if (w < 0 || first_of[w] != next) continue;
            int32_t at = m->bufs[w].eu_first < next - 1 ? m->bufs[w].eu_first : next - 1;
            if (at > i) break;
            wready[next] = line_dma(&l, e->ops[next].dma_cycles);
            for (int32_t j = next_user[next]; j >= 0; j = next_user[j]) wready[j] = wready[next];
        }
        if (i + 1 >= n) break;
        lost[i + 1] = line_kernel(&l, wready[i + 1], e->ops[i + 1].cycles);
    }
    free(wready);
    free(first_of);
    free(next_user);
    return true;
}

/* The region an op's feature map buffer b is in (1 the arena, 2 the fast
 * pool). */
static uint8_t fm_region(const cc_model *m, int32_t b)
{
    return b >= 0 && b < m->n_bufs && m->bufs[b].pool == CC_IN_FAST ? 2 : 1;
}

/* Whether read-once op k of e, as estimated last, would be faster reading
 * its weights from the params than waiting lost cycles for its copy's DMA
 * and then running from the copy. */
static void stream_op(const cc_model *m, eu_op *o);

static bool dma_bound(const cc_model *m, const cc_epoch *e, int32_t k, uint64_t lost)
{
    const eu_op *o = &e->ops[k];
    eu_op so = *o;   /* as it would stream: stream_op's block */
    stream_op(m, &so);
    uint64_t stream = cc_op_cycles_at(m, &so, fm_region(m, o->ifm.buf), 1, fm_region(m, o->ofm.buf), 0);
    return lost + o->cycles > stream;
}

/* Rounds of drop_waiting. */
#define PW_BOUND_ROUNDS 4

/* Sets bound[i] for each candidate whose op, as estimated last, waits for
 * its copy's DMA longer than streaming would cost (dma_bound); returns how
 * many it newly set. */
static int32_t mark_bound(const cc_model *m, const pw_cand *cand, int32_t nc, bool *bound)
{
    int32_t max_eu = 0, n_new = 0;
    for (int32_t i = 0; i < m->n_epochs; i++)
        if (m->epochs[i].n_eu > max_eu) max_eu = m->epochs[i].n_eu;
    uint64_t *lost = calloc((size_t)max_eu + 1, sizeof *lost);
    if (!lost) return 0;
    for (int32_t i = 0, ep = -1; i < nc; i++) {
        const cc_epoch *e = &m->epochs[cand[i].epoch];
        if (cand[i].epoch != ep) {
            memset(lost, 0, sizeof *lost * ((size_t)max_eu + 1));
            ep = replay_waits(m, e, lost) ? cand[i].epoch : -1;
            if (ep < 0) continue;
        }
        if (!bound[i] && e->ops[cand[i].op].wbuf >= 0 && dma_bound(m, e, cand[i].op, lost[cand[i].op])) {
            bound[i] = true;
            n_new++;
        }
    }
    free(lost);
    return n_new;
}

static int place_inner(cc_model *m, npuc_err *err)
{
    if (m->opt.optimise != CC_OPT_PERFORMANCE) return cc_prefetch(m, err);
    int32_t nc = 0;
    /* per epoch, the users of each weight copy (once, not per op) */
    int32_t *users = malloc(sizeof *users * ((size_t)m->n_bufs + 1));
    if (!users) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < m->n_epochs; i++) {
        if (m->epochs[i].kind != CC_EPOCH_HW) continue;
        count_users(&m->epochs[i], users);
        for (int32_t k = 0; k < m->epochs[i].n_eu; k++) nc += read_once(&m->epochs[i], k, users);
    }
    if (!nc) {
        free(users);
        return cc_prefetch(m, err);
    }
    pw_cand *cand = malloc(sizeof *cand * (size_t)nc);
    pw_state bare = {0}, with = {0};
    bool *drop = calloc((size_t)m->n_epochs + 1, sizeof *drop);
    bare.ecycles = malloc(sizeof(uint64_t) * ((size_t)m->n_epochs + 1));
    with.ecycles = malloc(sizeof(uint64_t) * ((size_t)m->n_epochs + 1));
    int rc = NPUC_OK;
    if (!cand || !drop || !bare.ecycles || !with.ecycles) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    nc = 0;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        if (m->epochs[i].kind != CC_EPOCH_HW) continue;
        count_users(&m->epochs[i], users);
        for (int32_t k = 0; k < m->epochs[i].n_eu; k++)
            if (read_once(&m->epochs[i], k, users)) {
                cand[nc++] = (pw_cand){i, k, m->epochs[i].ops[k].wbuf};
                drop[i] = true;
            }
    }
    /* the copies as the lowering made them, prefetched */
    if ((rc = pw_snap(m, &bare, err)) || (rc = cc_prefetch(m, err)) || (rc = pw_snap(m, &with, err))) goto done;
    /* every read-once op reading from flash; if that loses cycles, only
     * in the epochs that did not lose */
    bool ok;
    if ((rc = pw_trial(m, &bare, cand, nc, drop, &ok, err))) goto done;
    if (ok && !pw_better(m, &with)) {
        bool some = false, all = true;
        for (int32_t i = 0; i < m->n_epochs; i++) {
            if (!drop[i]) continue;
            drop[i] = m->epochs[i].cycles <= with.ecycles[i];
            some |= drop[i];
            all &= drop[i];
        }
        ok = some && !all;
        if (ok && (rc = pw_trial(m, &bare, cand, nc, drop, &ok, err))) goto done;
        ok = ok && pw_better(m, &with);
    }
    if (!ok) {
        /* no gain: the copies stay as they were */
        if (!(rc = cc_sched_apply(m, &with.s, err))) rc = cc_generate_all(m, err);
    }
done:
    free(users);
    free(cand);
    free(drop);
    cc_sched_free(&bare.s);
    cc_sched_free(&with.s);
    free(bare.ecycles);
    free(with.ecycles);
    return rc;
}

/* ------------------------------------------------ under an SRAM limit */

/* The largest weight copy live where the SRAM pools (those cc_sram_bytes
 * counts) hold the most bytes; -1 none. */
static int32_t copy_at_peak(const cc_model *m)
{
    bool arena = cc_arena_is_sram(&m->opt);
    int32_t last = 0;
    for (int32_t b = 0; b < m->n_bufs; b++)
        if (m->bufs[b].size && m->bufs[b].last > last) last = m->bufs[b].last;
    uint64_t *live = calloc((size_t)last + 2, sizeof *live);
    if (!live) return -1;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (!x->size || x->pool == CC_IN_STATE || (x->pool == CC_IN_ARENA && !arena)) continue;
        for (int32_t t = x->first < 0 ? 0 : x->first; t <= x->last; t++) live[t] += x->size;
    }
    int32_t step = 0;
    for (int32_t t = 1; t <= last; t++)
        if (live[t] > live[step]) step = t;
    free(live);
    int32_t best = -1;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (!x->wcopy || !x->size || (x->pool == CC_IN_ARENA && !arena)) continue;
        if (x->first > step || x->last < step) continue;
        if (best < 0 || x->size > m->bufs[best].size) best = b;
    }
    return best;
}

/* The search's points and the schedule each trial starts from are
 * cc_sched values (cc_sched.c) of these parts: every buffer (sizes: the
 * copies dropped; live ranges, places), the pools' peaks, and each NPU
 * op's weight copy and block (what a trial changes; the streams follow
 * from them, cc_generate_all). */
#define FIT_SCHED (CC_SCHED_BUFS | CC_SCHED_WEIGHTS)

/* Op o streams its weights from flash from now on: a block that reads
 * them as few times as it can (same depth: the stream is encoded for it). */
static void stream_op(const cc_model *m, eu_op *o)
{
    o->wbuf = -1;
    eu_block_req r;
    cc_block_req(m->opt.sys.variant, o, &r);
    r.ifm_format = o->ifm.format;
    r.ofm_format = o->ofm.format;
    r.fixed_d = o->blk.d;
    r.weight_cost = cc_weight_cost(&m->opt);
    eu_block b;
    npuc_err e2 = {0};
    if (cc_block_choose_kept(m, &r, &b, &e2) == NPUC_OK) o->blk = b;
}

/* ------------------------------------------------ copies loaded per use */

/* A copy that ops of several graph ops share (one SRAM copy of weights the
 * ops of a stream share, lower_weights.c: an unrolled LSTM's steps) holds
 * its bytes from its first user to its last. The other way to keep those
 * ops reading SRAM: a copy per graph op (its users, the bands of a cascade
 * together), each filled by its own DMA from the one shared stream and
 * live only from the op where that DMA starts to its last user. Each such
 * copy is made once, here, as a buffer of no size (cc_buf.reload); a
 * trial of the search turns it on ("splits" the shared copy): the ops then
 * use it instead of the shared one, which gets no size. Its DMA starts
 * early enough that the ops before its first user, at their last
 * estimated cycles, cover it (never before the previous group's last
 * user: two copies of the same bytes are never both held), so the fast
 * pool's choice (cc_alloc.c, fp_gain) can weigh what it costs there. */
typedef struct rl_map {
    int32_t *of_op;           /* [n_eu] per NPU op (epoch order, as cc_sched's
                                 weights): its copy loaded per use, -1 none */
    int32_t *src;             /* [n_bufs] per buffer: the shared copy it stands for, -1 none */
    bool any;
} rl_map;

static void rl_free(rl_map *r)
{
    free(r->of_op);
    free(r->src);
    memset(r, 0, sizeof *r);
}

/* Cycles of a DMA of `bytes` from the params into the pool weight copies
 * go to. */
static uint64_t rl_dma_cycles(const cc_model *m, uint64_t bytes)
{
    sim_op_info r;
    memset(&r, 0, sizeof r);
    r.kind = SIM_K_DMA;
    r.dma_src_region = 0;
    r.dma_dst_region = cc_fast_bytes(&m->opt) ? 2 : 1;
    r.dma_bytes = bytes;
    return sim_perf_estimate(m->opt.sys.variant, &m->opt.sys.sim, &r, 1);
}

/* Makes the copies loaded per use of every shared copy whose users belong
 * to two graph ops or more. Out of memory: none (r->any false). */
static void rl_make(cc_model *m, size_t n_eu, rl_map *r)
{
    memset(r, 0, sizeof *r);
    int32_t nb0 = m->n_bufs;
    int32_t *groups = calloc((size_t)nb0 + 1, sizeof *groups);
    int32_t *last_src = malloc(sizeof *last_src * ((size_t)nb0 + 1));
    int32_t *last_user = malloc(sizeof *last_user * ((size_t)nb0 + 1));
    int32_t *cur = malloc(sizeof *cur * ((size_t)nb0 + 1));
    r->of_op = malloc(sizeof *r->of_op * (n_eu + 1));
    bool ok = groups && last_src && last_user && cur && r->of_op;
    size_t j0 = 0;
    for (int32_t ei = 0; ei < m->n_epochs && ok; ei++) {
        cc_epoch *e = &m->epochs[ei];
        if (e->kind != CC_EPOCH_HW) continue;
        for (int32_t k = 0; k < e->n_eu; k++) {
            int32_t w = e->ops[k].wbuf;
            r->of_op[j0 + (size_t)k] = -1;
            if (w >= 0 && w < nb0) groups[w] = 0, last_src[w] = -1;
        }
        for (int32_t k = 0; k < e->n_eu; k++) {
            int32_t w = e->ops[k].wbuf;
            if (w < 0 || w >= nb0 || !m->bufs[w].wcopy || !m->bufs[w].size) continue;
            if (e->ops[k].src_op != last_src[w]) groups[w]++;
            last_src[w] = e->ops[k].src_op;
        }
        for (int32_t k = 0; k < e->n_eu; k++) {
            int32_t w = e->ops[k].wbuf;
            if (w >= 0 && w < nb0) last_src[w] = -1, last_user[w] = -1, cur[w] = -1;
        }
        for (int32_t k = 0; k < e->n_eu && ok; k++) {
            int32_t w = e->ops[k].wbuf;
            if (w < 0 || w >= nb0 || groups[w] < 2 || !m->bufs[w].wcopy || !m->bufs[w].size) continue;
            if (e->ops[k].src_op != last_src[w]) {
                /* a new group: its copy, its DMA started where the ops
                 * before cover it */
                if (m->n_bufs == m->cap_bufs) {
                    int32_t cap = m->cap_bufs ? 2 * m->cap_bufs : 16;
                    cc_buf *nbufs = realloc(m->bufs, sizeof *nbufs * (size_t)cap);
                    if (!nbufs) {
                        ok = false;
                        break;
                    }
                    m->bufs = nbufs;
                    m->cap_bufs = cap;
                }
                uint64_t dma = rl_dma_cycles(m, m->bufs[w].size), covered = 0;
                int32_t from = k > 0 ? k - 1 : 0;
                while (from > last_user[w] + 1 && from > 0 && (covered += e->ops[from].cycles) < dma) from--;
                cc_buf *x = &m->bufs[m->n_bufs];
                memset(x, 0, sizeof *x);
                x->offset = -1;   /* first, last: cc_allocate's (no size: none) */
                x->tensor = -1;
                x->temp = x->wcopy = x->reload = true;
                x->epoch = ei;
                x->eu_first = from;
                x->eu_last = k;
                x->op = e->ops[k].src_op;
                cur[w] = m->n_bufs++;
                last_src[w] = e->ops[k].src_op;
            }
            m->bufs[cur[w]].eu_last = k;
            last_user[w] = k;
            r->of_op[j0 + (size_t)k] = cur[w];
            r->any = true;
        }
        j0 += (size_t)e->n_eu;
    }
    if (ok && r->any) {
        r->src = malloc(sizeof *r->src * ((size_t)m->n_bufs + 1));
        ok = r->src != NULL;
        for (int32_t b = 0; ok && b < m->n_bufs; b++) r->src[b] = -1;
        j0 = 0;
        for (int32_t ei = 0; ok && ei < m->n_epochs; ei++) {
            const cc_epoch *e = &m->epochs[ei];
            if (e->kind != CC_EPOCH_HW) continue;
            for (int32_t k = 0; k < e->n_eu; k++)
                if (r->of_op[j0 + (size_t)k] >= 0) r->src[r->of_op[j0 + (size_t)k]] = e->ops[k].wbuf;
            j0 += (size_t)e->n_eu;
        }
    }
    if (!ok || !r->any) {
        /* nothing to weigh: the buffers made stay unused (no size) */
        rl_free(r);
    }
    free(groups);
    free(last_src);
    free(last_user);
    free(cur);
}

/* The ops of the shared copies split[] names use their copies loaded per
 * use (sizes from bufs0); the shared copies get no size. */
static void rl_apply(cc_model *m, const rl_map *r, const cc_buf *bufs0, const bool *split)
{
    size_t j = 0;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++, j++) {
            int32_t x = r->of_op[j], w = e->ops[k].wbuf;
            if (x < 0 || w < 0 || r->src[x] != w || !split[w]) continue;
            e->ops[k].wbuf = x;
            m->bufs[x].size = bufs0[w].size;
            m->bufs[w].size = 0;
        }
    }
}

/* Whether a weight copy in the arena reads no faster than the params
 * memory (cc.c, drop_slow_copies). */
static bool arena_slow(const cc_model *m)
{
    const sim_system *s = &m->opt.sys.sim;
    const sim_memory *pm = &s->axi[s->region_port[0] & 1], *am = &s->axi[s->region_port[1] & 1];
    return pm->clock_scale * pm->width_bytes >= am->clock_scale * am->width_bytes;
}

/* Removes the weight copies gone[] names: their ops stream from flash.
 * With rl and split (else NULL): the shared copies split[] names are
 * loaded per use (rl_apply); a copy loaded per use that the placement
 * leaves in an arena no faster than the params is dropped (its op
 * streams) and the pools placed again. */
static void fit_apply(cc_model *m, const cc_sched *start, const bool *gone, const rl_map *rl, const bool *split,
                      bool *ok)
{
    npuc_err e2 = {0};
    *ok = cc_sched_apply(m, start, &e2) == NPUC_OK;
    if (!*ok) return;
    const cc_buf *bufs0 = start->bufs;
    for (int32_t b = 0; b < m->n_bufs; b++)
        if (gone[b]) m->bufs[b].size = 0;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++)
            if (e->ops[k].wbuf >= 0 && gone[e->ops[k].wbuf]) stream_op(m, &e->ops[k]);
    }
    if (rl && !rl->any) rl = NULL;
    if (rl && split) rl_apply(m, rl, bufs0, split);
    *ok = cc_allocate(m, &e2) == NPUC_OK;
    if (!*ok || !rl || !split || !arena_slow(m)) return;
    bool any = false;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
            int32_t w = e->ops[k].wbuf;
            if (w < 0 || !m->bufs[w].reload || m->bufs[w].pool != CC_IN_ARENA) continue;
            m->bufs[w].size = 0;
            stream_op(m, &e->ops[k]);
            any = true;
        }
    }
    if (any) *ok = cc_allocate(m, &e2) == NPUC_OK;
}

/* At most this many copies are dropped one by one per trajectory (each
 * drop is a trial: placed, generated, prefetched), and at most
 * FIT_OP_BUDGET / (NPU ops) (at least 4): a trial costs about its NPU ops. */
#define FIT_MAX_DROPS 16
/* The headroom-less trajectory's point of the least SRAM weighed after the
 * pick (its waiting copies dropped) is among its points within 1 /
 * FIT_LEAN_SLACK of the trajectory's fewest cycles. */
#define FIT_LEAN_SLACK 10u
#define FIT_OP_BUDGET 4000

/* Keeps the model's schedule as point p (nothing when out of memory:
 * p->parts 0). */
static void point_keep(const cc_model *m, cc_sched *p)
{
    npuc_err e2 = {0};
    cc_sched_take(m, FIT_SCHED, p, &e2);
}

/* point_keep into *slot, made on first use (NULL when out of memory). */
static void slot_keep(const cc_model *m, cc_sched **slot)
{
    if (!*slot) *slot = calloc(1, sizeof **slot);
    if (*slot) point_keep(m, *slot);
}

/* The schedule picked, its read-once copies (read_once) whose ops wait for
 * their DMA longer than streaming would cost (mark_bound) dropped: the ops
 * stream their weights from the params, the model placed, generated and
 * prefetched again, and once more for those the ops then wait for, up to
 * PW_BOUND_ROUNDS times; kept with fewer NPU cycles and no more SRAM. A
 * run of DMA-bound copies (tflm_id_model's last FULLY_CONNECTED chunks on
 * ethos-u65-256: each 8.5 KB DMA takes 2,780 cycles for a 1,605-cycle op)
 * in an epoch whose other copies pay is what place_inner's whole-epoch
 * drop leaves. Not during the search: its points and trajectories stay. */
static int drop_waiting(cc_model *m, size_t n_eu, npuc_err *err)
{
    int32_t nc = 0;
    int32_t *users = malloc(sizeof *users * ((size_t)m->n_bufs + 1));
    pw_cand *cand = malloc(sizeof *cand * (n_eu + 1));
    bool *bound = calloc(n_eu + 1, sizeof *bound), *best_bound = calloc(n_eu + 1, sizeof *best_bound);
    cc_sched was = {0};
    int rc = NPUC_OK;
    if (!users || !cand || !bound || !best_bound) goto out;   /* no polish */
    for (int32_t i = 0; i < m->n_epochs; i++) {
        if (m->epochs[i].kind != CC_EPOCH_HW) continue;
        count_users(&m->epochs[i], users);
        for (int32_t k = 0; k < m->epochs[i].n_eu; k++) {
            int32_t w = m->epochs[i].ops[k].wbuf;
            if (w >= 0 && users[w] == 1) cand[nc++] = (pw_cand){i, k, w};
        }
    }
    if (!nc || !mark_bound(m, cand, nc, bound)) goto out;
    point_keep(m, &was);
    if (!was.parts) goto out;
    uint64_t best_cycles = m->npu_cycles, best_sram = cc_sram_bytes(m);
    bool any = false, last_best = false;
    for (int r = 0; r < PW_BOUND_ROUNDS; r++) {
        if ((rc = cc_sched_apply(m, &was, err))) goto out;
        for (int32_t i = 0; i < nc; i++) {
            if (!bound[i]) continue;
            m->bufs[cand[i].wbuf].size = 0;
            stream_op(m, &m->epochs[cand[i].epoch].ops[cand[i].op]);
        }
        npuc_err e2 = {0};
        last_best = false;
        if (cc_allocate(m, &e2) != NPUC_OK) break;
        if ((rc = cc_generate_all(m, err)) || (rc = cc_prefetch(m, err))) goto out;
        uint64_t sram = cc_sram_bytes(m);
        last_best = m->npu_cycles < best_cycles && sram <= best_sram;
        if (!last_best) break;
        any = true;
        best_cycles = m->npu_cycles;
        best_sram = sram;
        memcpy(best_bound, bound, sizeof *bound * (size_t)nc);
        if (!mark_bound(m, cand, nc, bound)) break;
    }
    if (last_best) goto out;
    /* back to the best: the picked schedule, or the best round again */
    if ((rc = cc_sched_apply(m, &was, err))) goto out;
    if (!any) {
        rc = cc_generate_all(m, err);
        goto out;
    }
    for (int32_t i = 0; i < nc; i++) {
        if (!best_bound[i]) continue;
        m->bufs[cand[i].wbuf].size = 0;
        stream_op(m, &m->epochs[cand[i].epoch].ops[cand[i].op]);
    }
    npuc_err e3 = {0};
    if (cc_allocate(m, &e3) != NPUC_OK) {
        rc = npuc_errf(err, NPUC_E_INVALID, "internal: a weight schedule placed before no longer fits");
        goto out;
    }
    if (!(rc = cc_generate_all(m, err))) rc = cc_prefetch(m, err);
out:
    cc_sched_free(&was);
    free(users);
    free(cand);
    free(bound);
    free(best_bound);
    return rc;
}

/* Points per trajectory: its first placement and one per drop; then, per
 * trajectory, one per drop that would have taken a shared copy (rl_map):
 * that copy loaded per use instead, the drops before it kept. */
enum { FIT_P = FIT_MAX_DROPS + 1, FIT_POINTS = 2 * FIT_P + 2 * FIT_MAX_DROPS };

/* cc_sched_pick_within (band 1 / slack) over the points that exist; their
 * index, -1 none. */
static int32_t pick_within(const cc_sched_point *pt, const bool *have, int32_t n, uint64_t limit, uint64_t slack)
{
    cc_sched_point p[FIT_POINTS];
    int32_t idx[FIT_POINTS], m = 0;
    for (int32_t i = 0; i < n && m < (int32_t)(sizeof p / sizeof p[0]); i++)
        if (have[i]) {
            p[m] = pt[i];
            idx[m++] = i;
        }
    return m ? idx[cc_sched_pick_within(p, m, limit, slack)] : -1;
}

/* The search's rule (cc_sched_pick) over the points that exist. */
static int32_t pick_of(const cc_sched_point *pt, const bool *have, int32_t n, uint64_t limit)
{
    return pick_within(pt, have, n, limit, CC_CYCLE_SLACK);
}

/* The NPU ops that stream their weights and scale records from the params
 * (no copy of their constants). */
static int32_t streaming_ops(const cc_model *m)
{
    int32_t n = 0;
    for (int32_t i = 0; i < m->n_epochs; i++)
        for (int32_t k = 0; m->epochs[i].kind == CC_EPOCH_HW && k < m->epochs[i].n_eu; k++)
            n += m->epochs[i].ops[k].wbuf < 0 && m->epochs[i].ops[k].s_len > 0;
    return n;
}

/* The model's figures as the passes after this one will leave them: with
 * a fast pool apart from the arena, cc_reblock_placed and cc_scale_copies
 * run on it (an op that streams its weights gets a copy of its scale
 * records there, where that pays), and it is then put back as it was;
 * else its own. */
static int later_figures(cc_model *m, cc_sched_point *out, npuc_err *err)
{
    *out = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
    if (!cc_fast_bytes(&m->opt)) return NPUC_OK;
    /* what the two passes choose: blocks and weight copies (WEIGHTS),
     * the scale-record copies' buffers and the pool's peak (BUFS); applied
     * back, the copies made go */
    cc_sched keep = {0};
    int rc = cc_sched_take(m, CC_SCHED_WEIGHTS | CC_SCHED_BUFS, &keep, err);
    if (!rc && cc_reblock_placed(m)) rc = cc_generate_all(m, err);
    if (!rc) rc = cc_scale_copies(m, err);
    if (!rc) *out = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
    if (!rc) rc = cc_sched_apply(m, &keep, err);
    if (!rc) rc = cc_generate_all(m, err);
    cc_sched_free(&keep);
    return rc;
}

/* gone[] (nb entries) as point `pick` had it: trajectory t's first
 * placement's drops and its first k drops in order; a split point's split
 * copy in *split_of (else -1). */
static void point_gone(int32_t pick, const bool *gone0, size_t nb, int32_t order[2][FIT_MAX_DROPS],
                       const int32_t *sp_t, const int32_t *sp_k, const int32_t *sp_x, bool *gone,
                       int32_t *split_of)
{
    int32_t t, k;
    *split_of = -1;
    if (pick >= 2 * FIT_P) {
        int32_t q = pick - 2 * FIT_P;
        t = sp_t[q];
        k = sp_k[q];
        *split_of = sp_x[q];
    } else {
        t = pick / FIT_P;
        k = pick % FIT_P;
    }
    memcpy(gone, gone0 + (size_t)t * nb, sizeof *gone * nb);
    for (int32_t j = 0; j < k; j++) gone[order[t][j]] = true;
    if (!k && *split_of < 0) memset(gone, 0, sizeof *gone * nb);
}

/* What placing one of cc_place_weights' points again takes (point_gone,
 * fit_apply). */
typedef struct fit_pts {
    const cc_sched *start;
    const bool *gone0;
    size_t nb;
    int32_t (*order)[FIT_MAX_DROPS];
    const int32_t *sp_t, *sp_k, *sp_x;
    bool *gone, *split;
    const rl_map *rl;
} fit_pts;

/* Point p, which the model is at, placed again with its prefetch also
 * weighing the plans that keep moved copies clear of the op before their
 * DMA (pf_ctx.busy); kept with fewer cycles and no more SRAM, else the
 * model goes back to p as it was. */
static int polish_point(cc_model *m, const fit_pts *f, int32_t p, npuc_err *err)
{
    cc_sched was = {0};
    point_keep(m, &was);
    uint64_t was_cycles = m->npu_cycles, was_sram = cc_sram_bytes(m);
    bool first = p < 2 * FIT_P && p % FIT_P == 0;
    int32_t split_of = -1;
    point_gone(p, f->gone0, f->nb, f->order, f->sp_t, f->sp_k, f->sp_x, f->gone, &split_of);
    if (split_of >= 0) f->split[split_of] = true;
    bool ok = was.parts != 0;
    if (ok) fit_apply(m, f->start, f->gone, f->rl, f->split, &ok);
    if (split_of >= 0) f->split[split_of] = false;
    int rc = NPUC_OK;
    if (ok) {
        m->opt.prefetch_busy = true;
        rc = cc_generate_all(m, err);
        if (!rc) rc = (first ? place_inner : cc_prefetch)(m, err);
        m->opt.prefetch_busy = false;
    }
    if (!rc && was.parts && !(ok && m->npu_cycles < was_cycles && cc_sram_bytes(m) <= was_sram) &&
        !(rc = cc_sched_apply(m, &was, err)))
        rc = cc_generate_all(m, err);
    cc_sched_free(&was);
    return rc;
}

int cc_place_weights(cc_model *m, npuc_err *err)
{
    if (m->opt.optimise != CC_OPT_PERFORMANCE) return place_inner(m, err);
    uint64_t limit = m->opt.sram_limit;
    size_t n_eu = 0;
    for (int32_t i = 0; i < m->n_epochs; i++)
        if (m->epochs[i].kind == CC_EPOCH_HW) n_eu += (size_t)m->epochs[i].n_eu;
    /* the copies loaded per use the search may weigh (buffers of no size
     * until then), under a limit only: without one the rule would take
     * them for a little less SRAM at a few more cycles and a DMA per use
     * in the command stream (armkws_basic_lstm_l_int8 ethos-u65-256:
     * -1.3 KiB of fast pool, +0.3% cycles, +90 KB of commands) */
    rl_map rl = {0};
    if (m->opt.weight_search && limit) rl_make(m, n_eu, &rl);
    size_t nb = (size_t)m->n_bufs + 1;
    cc_sched start = {0};   /* the schedule every trial starts from */
    bool *gone = calloc(nb, sizeof *gone);
    bool *gone0 = calloc(2 * nb, sizeof *gone0);   /* per trajectory: the first placement's drops */
    bool *split = calloc(nb, sizeof *split);
    /* Two trajectories when the caller left the headroom to the compiler:
     * with the default prefetch headroom and with none (less prefetch
     * leaves other copies at the peak). Point i < 2 FIT_P is trajectory
     * i / FIT_P after i % FIT_P drops; from 2 FIT_P on the split points
     * (sp_t, sp_k, sp_x: trajectory, drops kept, copy loaded per use) */
    enum { P = FIT_P };
    /* each point's schedule (but the first's: it was not placed from
     * `start` as the others): the one picked comes back from there instead
     * of from a second trial (a trial is a function of `start`, the copies
     * gone and the headroom, so it would give the same) */
    cc_sched *kept[FIT_POINTS];   /* NULL: not kept (slot_keep) */
    memset(kept, 0, sizeof kept);
    int32_t order[2][FIT_MAX_DROPS];
    int32_t sp_t[2 * FIT_MAX_DROPS], sp_k[2 * FIT_MAX_DROPS], sp_x[2 * FIT_MAX_DROPS], n_sp = 0;
    cc_sched_point pt[FIT_POINTS];
    bool have[FIT_POINTS];
    memset(have, 0, sizeof have);
    int32_t hr[2] = {m->opt.prefetch_headroom, -1};
    int32_t n_traj = m->opt.weight_search && m->opt.prefetch_headroom == 0 ? 2 : 1;
    const fit_pts fp = {&start, gone0, nb, order, sp_t, sp_k, sp_x, gone, split, &rl};
    int rc = NPUC_OK;
    if (!gone || !gone0 || !split) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = cc_sched_take(m, FIT_SCHED, &start, err))) goto done;
    /* the trials place the same buffers and ops again (each trajectory
     * starts from `start`, and drops the same copies) */
    cc_alloc_memo(m, true);
    /* The weight copies live at the SRAM peak go one by one, largest
     * first (their ops stream their weights from flash, with blocks that
     * re-read them least): each step is a schedule, and the one the
     * search's rule prefers (cc_sched_pick: under the limit, the fewest
     * cycles, within CC_CYCLE_SLACK of them the least SRAM) stays. A
     * shared copy about to go is also weighed loaded per use (the drops
     * before it kept): one more point, off the trajectory. */
    int32_t cur = -1;   /* the point the model is at, -1 none */
    bool drops = false;
    for (int32_t t = 0; t < n_traj; t++) {
        m->opt.prefetch_headroom = hr[t];
        if (t > 0) {
            bool ok;
            memset(gone, 0, sizeof *gone * nb);
            fit_apply(m, &start, gone, NULL, NULL, &ok);
            cur = -1;
            if (!ok) break;
            if ((rc = cc_generate_all(m, err))) goto done;
        }
        if ((rc = place_inner(m, err))) goto done;
        cur = t * P;
        if (t > 0) slot_keep(m, &kept[cur]);
        pt[cur] = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
        have[cur] = true;
        /* the copies the first placement dropped (read once) stay dropped */
        for (int32_t b = 0; b < m->n_bufs; b++) gone[b] = start.bufs[b].wcopy && start.bufs[b].size && !m->bufs[b].size;
        memcpy(gone0 + (size_t)t * nb, gone, sizeof *gone * nb);
        /* only both first placements, unless one of them is fast */
        drops |= !m->opt.weight_headrooms || m->npu_cycles < m->opt.drop_cycles;
        int32_t stale = 0, last_pick = -1;
        int32_t max_k = (int32_t)(FIT_OP_BUDGET / (n_eu + 1));
        if (max_k < 4) max_k = 4;
        if (max_k > FIT_MAX_DROPS) max_k = FIT_MAX_DROPS;
        for (int32_t k = 1; k <= max_k && m->opt.weight_search && drops; k++) {
            int32_t x = copy_at_peak(m);
            if (x < 0) break;
            bool ok;
            bool shared = false;
            for (int32_t b = 0; rl.any && b < m->n_bufs && !shared; b++) shared = rl.src[b] == x;
            if (shared && n_sp < 2 * FIT_MAX_DROPS) {
                /* x loaded per use, the drops so far kept */
                split[x] = true;
                fit_apply(m, &start, gone, &rl, split, &ok);
                split[x] = false;
                cur = -1;
                if (ok) {
                    if ((rc = cc_generate_all(m, err)) || (rc = cc_prefetch(m, err))) goto done;
                    int32_t q = 2 * P + n_sp;
                    cur = q;
                    slot_keep(m, &kept[q]);
                    if (kept[q] && kept[q]->parts) {
                        pt[q] = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
                        have[q] = true;
                        sp_t[n_sp] = t;
                        sp_k[n_sp] = k - 1;
                        sp_x[n_sp] = x;
                        n_sp++;
                    }
                }
            }
            gone[x] = true;
            order[t][k - 1] = x;
            fit_apply(m, &start, gone, NULL, NULL, &ok);
            cur = -1;
            if (!ok) break;
            if ((rc = cc_generate_all(m, err)) || (rc = cc_prefetch(m, err))) goto done;
            cur = t * P + k;
            pt[cur] = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
            have[cur] = true;
            slot_keep(m, &kept[cur]);
            /* four steps that do not change the pick (among the
             * trajectories' points) end the trajectory */
            int32_t p = pick_of(pt, have, 2 * P, limit);
            stale = p == last_pick ? stale + 1 : 0;
            last_pick = p;
            if (stale >= 4) break;
        }
    }
    int32_t pick = pick_of(pt, have, FIT_POINTS, limit);
    int32_t split_of = -1;
    if (pick >= 0 && pick != cur && kept[pick] && kept[pick]->parts) {
        /* back to the point as its trial left it */
        m->opt.prefetch_headroom = hr[pick >= 2 * P ? sp_t[pick - 2 * P] : pick / P];
        if (!(rc = cc_sched_apply(m, kept[pick], err))) rc = cc_generate_all(m, err);
    } else if (pick >= 0 && pick != cur) {
        /* again: that trajectory's headroom and first drops (a split
         * point is always kept) */
        int32_t t = pick / P, k = pick % P;
        m->opt.prefetch_headroom = hr[t];
        point_gone(pick, gone0, nb, order, sp_t, sp_k, sp_x, gone, &split_of);
        bool ok;
        fit_apply(m, &start, gone, NULL, NULL, &ok);
        if (!ok) {
            rc = npuc_errf(err, NPUC_E_INVALID, "internal: a weight schedule placed before no longer fits");
            goto done;
        }
        if ((rc = cc_generate_all(m, err)) || (rc = (k ? cc_prefetch : place_inner)(m, err))) goto done;
    }
    /* the pick before the polish below (drop_waiting weighs both) */
    bool waits = !rc && pick >= 0 && (m->opt.weight_search || m->opt.weight_headrooms) &&
                 !m->opt.no_drop_waiting;
    cc_sched pre = {0};
    int32_t pre_hr = m->opt.prefetch_headroom;
    if (waits) point_keep(m, &pre);
    if (pick >= 0 && m->opt.weight_search && !m->opt.weight_headrooms && !limit && !m->opt.no_prefetch_polish) {
        /* The point picked, placed again with its prefetch also weighing
         * the plans that keep moved copies clear of the op before their
         * DMA (pf_ctx.busy); kept with fewer cycles and no more SRAM. Not
         * during the search: a point that gets faster can end its
         * trajectory before the drops that gave the pick (person_detect). */
        m->opt.prefetch_headroom = hr[pick >= 2 * P ? sp_t[pick - 2 * P] : pick / P];
        rc = polish_point(m, &fp, pick, err);
    }
    if (waits && !rc) {
        /* the copies the ops wait for dropped, from the polished pick and
         * (where the polish moved it) from the pick before it: the
         * polish's prefetch plans can leave other copies waiting, and a
         * limit at the default's SRAM, which skips the polish, must not
         * beat the default */
        bool moved_by_polish = pre.parts && memcmp(pre.bufs, m->bufs, sizeof *m->bufs * (size_t)m->n_bufs);
        rc = drop_waiting(m, n_eu, err);
        if (!rc && moved_by_polish) {
            cc_sched one = {0};
            point_keep(m, &one);
            cc_sched_point two[2] = {{m->npu_cycles, cc_sram_bytes(m)}, {0, 0}};
            int32_t one_hr = m->opt.prefetch_headroom;
            m->opt.prefetch_headroom = pre_hr;
            if (!(rc = cc_sched_apply(m, &pre, err)) && !(rc = cc_generate_all(m, err)))
                rc = drop_waiting(m, n_eu, err);
            two[1] = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
            if (!rc && one.parts && cc_sched_pick(two, 2, limit) != 1) {
                m->opt.prefetch_headroom = one_hr;
                if (!(rc = cc_sched_apply(m, &one, err))) rc = cc_generate_all(m, err);
            }
            cc_sched_free(&one);
        }
    }
    if (waits && !rc) {
        /* two points of the other trajectory (no prefetch beyond the op
         * before), their copies the ops wait for dropped as the pick's;
         * the search's rule picks between each and the model:
         * - its own pick, polished as the pick is: streaming those ops
         *   can beat the picked point's early DMAs (person_detect
         *   ethos-u55-128: 287k cycles in 41,472 B against the pick's
         *   298k in 46,672 B);
         * - its point of the least SRAM (FIT_LEAN_SLACK), where that has
         *   fewer bytes than the model: the drops that free the most
         *   bytes can leave ops waiting for fewer copies, and streaming
         *   those can end below points that were faster before
         *   (person_detect ethos-u55-256: 287k -> 242k cycles in
         *   41,472 B, against the pick's 252k in 45,904 B).
         * With a fast pool, where the point takes less SRAM but more ops
         * stream, both sides are weighed again as the passes after this
         * one leave them (later_figures): an op that streams may get a
         * copy of its scale records there, which the points do not count
         * (coral_keras_lstm_mnist_ptq ethos-u65-256: the lean point,
         * 32,149 cycles as the search saw it, ends at 30,081 in 9,440 B
         * of fast pool, the pick at 30,708 in 11,792 B). */
        int32_t alt[2], n_alt = 0;
        if (n_traj == 2 && (alt[n_alt] = pick_of(pt + P, have + P, P, limit)) >= 0) alt[n_alt++] += P;
        int32_t n_pick = n_alt;
        if (n_traj == 2 && (alt[n_alt] = pick_within(pt + P, have + P, P, limit, FIT_LEAN_SLACK)) >= 0)
            alt[n_alt++] += P;
        for (int32_t a = 0; a < n_alt && !rc; a++) {
            int32_t q = alt[a];
            bool seen = q == pick;
            for (int32_t b = 0; b < a; b++) seen |= alt[b] == q;
            /* (the drops never add bytes) */
            if (seen || !kept[q] || !kept[q]->parts || (a >= n_pick && pt[q].sram >= cc_sram_bytes(m))) continue;
            cc_sched one = {0};
            point_keep(m, &one);
            cc_sched_point two[2] = {{m->npu_cycles, cc_sram_bytes(m)}, {0, 0}};
            int32_t streaming0 = streaming_ops(m);
            int32_t one_hr = m->opt.prefetch_headroom;
            m->opt.prefetch_headroom = hr[q / P];
            if (!(rc = cc_sched_apply(m, kept[q], err)) && !(rc = cc_generate_all(m, err)) &&
                m->opt.weight_search && !m->opt.weight_headrooms && !limit && !m->opt.no_prefetch_polish && a < n_pick)
                rc = polish_point(m, &fp, q, err);
            if (!rc) rc = drop_waiting(m, n_eu, err);
            two[1] = (cc_sched_point){m->npu_cycles, cc_sram_bytes(m)};
            bool take = !rc && one.parts && cc_sched_pick(two, 2, limit) == 1;
            if (!rc && one.parts && !take && cc_fast_bytes(&m->opt) && two[1].sram < two[0].sram &&
                streaming_ops(m) > streaming0) {
                /* less SRAM, more ops streaming (each may get a copy of
                 * its scale records): both weighed as the passes after
                 * this one leave them */
                cc_sched other = {0};
                point_keep(m, &other);
                int32_t other_hr = m->opt.prefetch_headroom;
                cc_sched_point later[2];
                rc = later_figures(m, &later[1], err);
                m->opt.prefetch_headroom = one_hr;
                if (!rc && !(rc = cc_sched_apply(m, &one, err)) && !(rc = cc_generate_all(m, err)))
                    rc = later_figures(m, &later[0], err);
                if (!rc && other.parts && cc_sched_pick(later, 2, limit) == 1) {
                    m->opt.prefetch_headroom = other_hr;
                    if (!(rc = cc_sched_apply(m, &other, err))) rc = cc_generate_all(m, err);
                }
                take = true;   /* the model is at the one kept */
                cc_sched_free(&other);
            }
            if (!rc && one.parts && !take) {
                m->opt.prefetch_headroom = one_hr;
                if (!(rc = cc_sched_apply(m, &one, err))) rc = cc_generate_all(m, err);
            }
            cc_sched_free(&one);
        }
    }
    cc_sched_free(&pre);
    if (!rc) {
        /* the fastest point the search met (under the limit), which its
         * rule's slack may have traded for less SRAM: what the 32 KiB
         * chunks of an arena that is the SRAM are weighed against (cc.c) */
        cc_sched_point f = {m->npu_cycles, cc_sram_bytes(m)};
        for (int32_t i = 0; i < FIT_POINTS; i++)
            if (have[i] && (!limit || pt[i].sram <= limit) &&
                (pt[i].cycles < f.cycles || (pt[i].cycles == f.cycles && pt[i].sram < f.sram)))
                f = pt[i];
        m->fastest_cycles = f.cycles;
        m->fastest_sram = f.sram;
    }
done:
    cc_alloc_memo(m, false);
    for (int32_t i = 0; i < FIT_POINTS; i++) {
        cc_sched_free(kept[i]);
        free(kept[i]);
    }
    rl_free(&rl);
    cc_sched_free(&start);
    free(gone);
    free(gone0);
    free(split);
    return rc;
}
