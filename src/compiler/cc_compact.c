/* cc_compact: the last placement of a compile. The allocator places each
 * pool's buffers largest first, each at the lowest offset clear of those
 * placed before it and live beside it (cc_alloc.c). That rule is fast and
 * usually tight, but it leaves a small buffer that lives long for last, so
 * it lands on top of the bigger ones that come and go under it
 * (tflm_audio_preprocessor_int8: a 4-byte scale live over eight ops put the
 * arena's top at 2,896 bytes where 2,128 hold everything). The search weighs
 * its schedules on that placement; this pass then places the picked
 * schedule's buffers again, in other orders, and keeps a placement only
 * where it makes a pool smaller:
 *
 *   - the buffers that must share bytes stay together: a buffer written
 *     over its input (an in-place elementwise op, a CPU op over its
 *     input) sits at that input's offset, and the two live back to back or
 *     overlap; every run of buffers at one offset whose live ranges touch
 *     or overlap is placed as one block (its largest size, over the union
 *     of their ranges), which keeps each such pair as it was;
 *   - the orders tried: the blocks by their present offsets, lowest first
 *     (never worse than the placement the search left: each block then
 *     fits at or below where it was), and the allocator's own (largest
 *     first); from the lower of the two, one at a time, a block on top of
 *     the best placement so far moved to the front of the order (placed
 *     first, it takes the lowest bytes), kept when the pool's top comes
 *     down; up to COMPACT_TRIES blocks from the top are tried per round,
 *     and the rounds stop when none of them helps or after
 *     COMPACT_PLACEMENTS placements in all (each costs about what one of
 *     the search's placements does: at most 2.5% of a zoo model's
 *     compile); a pool already as low as the bytes live at one step allow
 *     is left alone;
 *   - under an SRAM limit the pick is still over (the compile would fail),
 *     the climb goes on longer (COMPACT_OVER placements, COMPACT_TRIES_OVER
 *     blocks per round) while the pool is over what the limit leaves it,
 *     or over the bytes live at one step where the limit leaves less (the
 *     compile fails: its error then names the least the climb found), and
 *     a lower placement is kept whatever its cycles
 *     (armkws_basic_lstm_l_int8 at 4,544 B: 4,560 -> 4,544; under a limit
 *     it cannot meet, the error names 4,544 where it named 4,560);
 *   - the live ranges are the schedule's own (a weight copy's range starts
 *     at its DMA, cc_prefetch.c), so any placement that keeps buffers live
 *     at the same step apart is as valid as the first one.
 *
 * Only the addresses change: the streams are generated again, and the new
 * placement is kept only if the cycle model gives no more cycles (an NPU
 * op that reuses bytes of the op before it waits for it, eu_gen.c, so the
 * overlaps the new addresses make can move a few cycles either way). */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

#define COMPACT_ALIGN 16u
#define COMPACT_TRIES 8        /* blocks from the top tried per round */
#define COMPACT_PLACEMENTS 12  /* placements tried per pool */
#define COMPACT_OVER 400       /* ... and COMPACT_TRIES_OVER per round
                                  while the pool is over its goal (the
                                  SRAM limit: the compile fails otherwise) */
#define COMPACT_TRIES_OVER 64

static uint64_t align16(uint64_t v) { return (v + COMPACT_ALIGN - 1) & ~(uint64_t)(COMPACT_ALIGN - 1); }

/* Whether a pool of top bytes is over its goal (0: none). */
static bool over_goal(uint64_t goal, uint64_t top) { return goal && top > goal; }

/* The placements a climb at top may take in all. */
static int32_t climb_budget(uint64_t goal, uint64_t top)
{
    return over_goal(goal, top) ? COMPACT_OVER : COMPACT_PLACEMENTS;
}

/* Union-find over buffer indices. */
static int32_t uf_root(int32_t *par, int32_t b)
{
    while (par[b] != b) {
        par[b] = par[par[b]];
        b = par[b];
    }
    return b;
}

typedef struct cm_key { int64_t off; int32_t first, b; } cm_key;

/* A live range's start (+bytes) or end (-bytes) on the step line. */
typedef struct cm_ev { int32_t step; int64_t bytes; } cm_ev;

static int cm_by_step(const void *pa, const void *pb)
{
    const cm_ev *a = pa, *b = pb;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;   /* ends first */
}

/* The most bytes the blocks in ord hold at one step (16-byte aligned
 * sizes): no placement's top is lower. 0: out of memory. */
static uint64_t blocks_floor(const cc_model *m, const int32_t *ord, int32_t n)
{
    cm_ev *ev = malloc(sizeof *ev * (2 * (size_t)n + 1));
    if (!ev) return 0;
    for (int32_t i = 0; i < n; i++) {
        const cc_buf *x = &m->bufs[ord[i]];
        int64_t sz = (int64_t)align16(x->size);
        ev[2 * i] = (cm_ev){x->first, sz};
        ev[2 * i + 1] = (cm_ev){x->last + 1, -sz};
    }
    qsort(ev, 2 * (size_t)n, sizeof *ev, cm_by_step);
    int64_t cur = 0, most = 0;
    for (int32_t i = 0; i < 2 * n; i++) {
        cur += ev[i].bytes;
        if (cur > most) most = cur;
    }
    free(ev);
    return (uint64_t)most;
}

static int cm_by_off(const void *pa, const void *pb)
{
    const cm_key *a = pa, *b = pb;
    if (a->off != b->off) return a->off < b->off ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* The allocator's order: larger first, then the one live first, then by
 * index. */
typedef struct cm_size { uint64_t size; int32_t first, b; } cm_size;

static int cm_by_size(const void *pa, const void *pb)
{
    const cm_size *x = pa, *y = pb;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->b < y->b ? -1 : x->b > y->b;
}

/* The top of the blocks in ord (their present offsets), 16-aligned. */
static uint64_t blocks_top(const cc_model *m, const int32_t *ord, int32_t n)
{
    uint64_t top = 0;
    for (int32_t i = 0; i < n; i++) {
        const cc_buf *x = &m->bufs[ord[i]];
        if ((uint64_t)x->offset + x->size > top) top = (uint64_t)x->offset + x->size;
    }
    return align16(top);
}

/* Places pool p's buffers again where that takes fewer bytes; *size: the
 * pool's size (lowered when kept). The climb takes up to COMPACT_PLACEMENTS
 * placements, up to COMPACT_OVER while the pool's best is above goal (0:
 * none; a goal below the most bytes live at one step counts as that). *moved: whether any offset changed. False: out of memory (the
 * placement left as it was). */
static bool compact_pool(cc_model *m, uint8_t p, uint64_t goal, uint64_t *size, bool *moved)
{
    const int32_t nb = m->n_bufs;
    *moved = false;
    int32_t n = 0;
    for (int32_t b = 0; b < nb; b++) n += m->bufs[b].pool == p && m->bufs[b].size && m->bufs[b].offset >= 0;
    if (n < 2) return true;
    size_t nn = (size_t)nb + 1;
    int32_t *par = malloc(sizeof *par * nn);
    cm_key *key = malloc(sizeof *key * (size_t)n);
    int32_t *ord = malloc(sizeof *ord * (size_t)n), *best = malloc(sizeof *best * (size_t)n);
    int32_t *tmp = malloc(sizeof *tmp * (size_t)n);
    cc_buf *saved = malloc(sizeof *saved * nn);
    int64_t *best_off = malloc(sizeof *best_off * nn);
    bool ok = par && key && ord && best && tmp && saved && best_off;
    if (!ok) goto out;
    memcpy(saved, m->bufs, sizeof *saved * (size_t)nb);
    /* the blocks: runs at one offset whose live ranges touch or overlap */
    int32_t k = 0;
    for (int32_t b = 0; b < nb; b++) {
        par[b] = b;
        const cc_buf *x = &m->bufs[b];
        if (x->pool == p && x->size && x->offset >= 0) key[k++] = (cm_key){x->offset, x->first, b};
    }
    qsort(key, (size_t)n, sizeof *key, cm_by_off);
    for (int32_t i = 0, run = 0; i < n; i++) {
        if (i == 0 || key[i].off != key[run].off) {
            run = i;
            continue;
        }
        /* the run's reach: the latest last step of those joined so far */
        int32_t r = uf_root(par, key[run].b);
        if (key[i].first <= m->bufs[r].last + 1) {
            cc_buf *x = &m->bufs[key[i].b], *y = &m->bufs[r];
            par[key[i].b] = r;
            if (x->size > y->size) y->size = x->size;
            if (x->last > y->last) y->last = x->last;
            if (x->first < y->first) y->first = x->first;
        } else {
            run = i;
        }
    }
    int32_t nr = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t b = key[i].b;
        cc_buf *x = &m->bufs[b];
        x->over = 0;   /* a block keeps its pairs together itself */
        if (uf_root(par, b) == b) ord[nr++] = b;
        else x->pool = 0xFF;   /* placed with its block */
    }
    const uint64_t before = *size;
    /* the present placement's top, as the blocks hold it (a pool sized
     * for more than its buffers, e.g. by an earlier pass, is left alone) */
    uint64_t now = blocks_top(m, ord, nr);
    uint64_t best_top = now;
    bool have = false;
    int32_t used = 0;   /* placements so far */
    /* nothing to gain where the blocks are as low as their bytes live at
     * one step allow */
    uint64_t live_most = blocks_floor(m, ord, nr);
    if (now != before || now <= live_most) goto restore;
    /* a goal below the floor is out of reach (the compile fails): the
     * longer climb goes for the floor, so that the error names the least
     * this pool was placed in, not the first placement's top */
    if (goal && goal < live_most) goal = live_most;
    cm_size *sk = malloc(sizeof *sk * (size_t)nr);
    if (!sk) {
        ok = false;
        goto restore;
    }
    /* two orders to start from: the blocks by their present offsets, lowest
     * first (each then fits at or below where it is: the buffers placed
     * before it only moved down, so it is never worse than the placement
     * the search left, prefetch's moved copies included), and the
     * allocator's own (larger first); the climb starts from the lower */
    for (int32_t i = 0; i < nr; i++) {
        const cc_buf *x = &m->bufs[ord[i]];
        /* lowest offset first: the key sorted larger first is its complement */
        sk[i] = (cm_size){UINT64_MAX - (uint64_t)x->offset, x->first, ord[i]};
    }
    qsort(sk, (size_t)nr, sizeof *sk, cm_by_size);
    for (int32_t i = 0; i < nr; i++) tmp[i] = sk[i].b;
    for (int32_t i = 0; i < nr; i++) sk[i] = (cm_size){m->bufs[ord[i]].size, m->bufs[ord[i]].first, ord[i]};
    qsort(sk, (size_t)nr, sizeof *sk, cm_by_size);
    for (int32_t i = 0; i < nr; i++) ord[i] = sk[i].b;
    free(sk);
    uint64_t top_now = cc_place_pool(m, tmp, nr, p, false);
    uint64_t top = cc_place_pool(m, ord, nr, p, false);
    used += 2;
    if (top == UINT64_MAX || top_now == UINT64_MAX) {
        ok = false;
        goto restore;
    }
    if (top_now <= top) {
        memcpy(ord, tmp, sizeof *ord * (size_t)nr);
        top = cc_place_pool(m, ord, nr, p, false);   /* its placement again, in m->bufs */
        used++;
    }
    memcpy(best, ord, sizeof *best * (size_t)nr);
    uint64_t cur = top;   /* the top of `best`'s placement */
    if (top < best_top) {
        best_top = top;
        have = true;
        for (int32_t i = 0; i < nr; i++) best_off[best[i]] = m->bufs[best[i]].offset;
    }
    /* rounds: the blocks on top of best's placement, highest first, each
     * moved to the front in turn */
    for (bool better = true; better && used < climb_budget(goal, cur);) {
        better = false;
        /* best's placement is the one in m->bufs here */
        int32_t cand[COMPACT_TRIES_OVER], nc = 0;
        const int32_t tries = over_goal(goal, cur) ? COMPACT_TRIES_OVER : COMPACT_TRIES;
        for (int32_t t = 0; t < tries; t++) {
            int32_t hi = -1;
            uint64_t hv = 0;
            for (int32_t i = 1; i < nr; i++) {   /* the first is at the front already */
                int32_t b = best[i];
                uint64_t e = (uint64_t)m->bufs[b].offset + m->bufs[b].size;
                bool taken = false;
                for (int32_t j = 0; j < nc && !taken; j++) taken = cand[j] == i;
                if (!taken && (hi < 0 || e > hv)) hi = i, hv = e;
            }
            if (hi < 0) break;
            cand[nc++] = hi;
        }
        for (int32_t c = 0; c < nc && !better && used < climb_budget(goal, cur); c++) {
            int32_t at = cand[c];
            tmp[0] = best[at];
            memcpy(tmp + 1, best, sizeof *tmp * (size_t)at);
            memcpy(tmp + 1 + at, best + at + 1, sizeof *tmp * (size_t)(nr - at - 1));
            top = cc_place_pool(m, tmp, nr, p, false);
            used++;
            if (top == UINT64_MAX) {
                ok = false;
                goto restore;
            }
            if (top < cur) {
                memcpy(best, tmp, sizeof *best * (size_t)nr);
                cur = top;
                better = true;
                if (top < best_top) {
                    best_top = top;
                    have = true;
                    for (int32_t i = 0; i < nr; i++) best_off[best[i]] = m->bufs[best[i]].offset;
                }
            }
        }
        if (!better) break;
        /* back to best's placement for the next round's tops (it is in
         * m->bufs: the last placement kept was best's) */
    }
restore:
    for (int32_t b = 0; b < nb; b++) {
        cc_buf *x = &m->bufs[b];
        int64_t off = saved[b].offset;
        if (ok && have && x->pool != 0xFF && saved[b].pool == p && saved[b].size && saved[b].offset >= 0 &&
            uf_root(par, b) == b)
            off = best_off[b];
        *x = saved[b];
        x->offset = off;
    }
    if (ok && have) {
        for (int32_t i = 0; i < n; i++) {
            int32_t b = key[i].b, r = uf_root(par, b);
            m->bufs[b].offset = m->bufs[r].offset;
        }
        for (int32_t b = 0; b < nb && !*moved; b++) *moved = m->bufs[b].offset != saved[b].offset;
        *size = best_top;
    }
out:
    free(par);
    free(key);
    free(ord);
    free(best);
    free(tmp);
    free(saved);
    free(best_off);
    return ok;
}

/* The bytes of the HW epochs' command streams (COP1 payloads). */
static uint64_t stream_bytes(const cc_model *m)
{
    uint64_t n = 0;
    for (int32_t i = 0; i < m->n_epochs; i++)
        if (m->epochs[i].kind == CC_EPOCH_HW) n += m->epochs[i].payload_size;
    return n;
}

int cc_compact(cc_model *m, uint64_t limit, npuc_err *err)
{
    if (m->opt.no_compact || m->n_bufs < 2) return NPUC_OK;
    const int32_t nb = m->n_bufs;
    int64_t *off0 = malloc(sizeof *off0 * ((size_t)nb + 1));
    if (!off0) return NPUC_OK;   /* the placement stays as it is */
    for (int32_t b = 0; b < nb; b++) off0[b] = m->bufs[b].offset;
    const uint64_t arena0 = m->arena_size, fast0 = m->fast_size, cycles0 = m->npu_cycles;
    bool moved_a = false, moved_f = false;
    uint64_t arena = arena0, fast = fast0;
    /* under an SRAM limit, the goal of each pool that counts (cc_sram_bytes):
     * what the limit leaves beside the other */
    const bool sram = cc_arena_is_sram(&m->opt);
    const bool over0 = limit && cc_sram_bytes(m) > limit;
    uint64_t goal_a = over0 && sram ? (limit > fast0 ? limit - fast0 : 1) : 0;
    if (!compact_pool(m, CC_IN_ARENA, goal_a, &arena, &moved_a)) {
        for (int32_t b = 0; b < nb; b++) m->bufs[b].offset = off0[b];
        free(off0);
        return NPUC_OK;
    }
    uint64_t in_sram = sram ? arena : 0;
    uint64_t goal_f = over0 ? (limit > in_sram ? limit - in_sram : 1) : 0;
    if (fast0 && !compact_pool(m, CC_IN_FAST, goal_f, &fast, &moved_f)) {
        for (int32_t b = 0; b < nb; b++) m->bufs[b].offset = off0[b];
        free(off0);
        return NPUC_OK;
    }
    if (!moved_a && !moved_f) {
        free(off0);
        return NPUC_OK;
    }
    m->arena_size = arena;
    m->fast_size = fast;
    const uint64_t streams0 = stream_bytes(m);
    int rc = cc_generate_all(m, err);
    /* under a limit the model was over, a lower placement stays whatever
     * its cycles: it brings the model under (the first one fails the
     * compile), or the compile fails naming the least SRAM it found */
    if (!rc && m->npu_cycles > cycles0 && !over0) {
        /* the new overlaps cost cycles: the first placement stays */
        for (int32_t b = 0; b < nb; b++) m->bufs[b].offset = off0[b];
        m->arena_size = arena0;
        m->fast_size = fast0;
        rc = cc_generate_all(m, err);
    }
    /* new addresses repeat other register values: the streams' bytes, in
     * the model's flash, as they now are */
    if (!rc) {
        const uint64_t streams = stream_bytes(m);
        m->stream_size = m->stream_size - streams0 + streams;
        m->flash_size = m->flash_size - streams0 + streams;
    }
    free(off0);
    return rc;
}
