/* cc_alloc: places every buffer at an offset in its pool (the arena, or
 * the fast scratch when the system has one: of the NPU-internal buffers and
 * the graph tensors only one command stream touches, those that save the
 * most cycles per byte on the cycle model, choose_fast) so that buffers of
 * one pool whose live ranges overlap never share bytes. Greedy by size (largest first),
 * each at the lowest 16-byte aligned offset that fits between buffers
 * already placed and live at the same time, the strategy TFLite Micro's
 * greedy planner uses too. Then, where it lowers the arena's peak, an
 * elementwise op's OFM takes the bytes of an IFM it reads last, and a CPU
 * op's output (QUANTIZE, CAST, SignalEnergy) the first bytes of its input
 * (in place; inplace_pairs, cpu_inplace_pairs, place_inplace). */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN 16u

/* The order buffers are placed in: larger first, then the one written
 * first, then by index (a total order, so any sort gives the same). */
typedef struct size_key { uint64_t size; int32_t first, idx; } size_key;

static inline bool key_before(const size_key *x, const size_key *y)
{
    if (x->size != y->size) return x->size > y->size;
    if (x->first != y->first) return x->first < y->first;
    return x->idx < y->idx;
}

/* idx[0..n) := the buffers in that order (a merge sort of runs of 16
 * sorted by insertion, on keys copied out of the buffers); false when out
 * of memory. */
static bool sort_idx(int32_t *idx, int32_t n, const cc_buf *bufs)
{
    if (n < 1) return true;
    size_key *a = malloc(sizeof *a * (size_t)n * 2), *t = a ? a + n : NULL;
    if (!a) return false;
    for (int32_t i = 0; i < n; i++) a[i] = (size_key){bufs[i].size, bufs[i].first, i};
    enum { RUN = 16 };
    for (int32_t r = 0; r < n; r += RUN) {
        int32_t end = r + RUN < n ? r + RUN : n;
        for (int32_t i = r + 1; i < end; i++) {
            size_key x = a[i];
            int32_t j = i;
            for (; j > r && key_before(&x, &a[j - 1]); j--) a[j] = a[j - 1];
            a[j] = x;
        }
    }
    for (int32_t w = RUN; w < n; w *= 2) {
        for (int32_t lo = 0; lo < n; lo += 2 * w) {
            int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) t[k++] = key_before(&a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid) t[k++] = a[i++];
            while (j < hi) t[k++] = a[j++];
        }
        size_key *x = a;
        a = t;
        t = x;
    }
    for (int32_t i = 0; i < n; i++) idx[i] = a[i].idx;
    free(a < t ? a : t);
    return true;
}

typedef cc_span span;

static void swap_span(span *a, span *b)
{
    span t = *a;
    *a = *b;
    *b = t;
}

/* cc_sort_spans by an LSD radix sort on the bytes of lo that vary (ties
 * in any order: the callers take them so); false when out of memory. */
#define RADIX_STACK 256
static bool radix_spans(span *a, size_t n)
{
    span stack[RADIX_STACK], *tmp = n <= RADIX_STACK ? stack : malloc(sizeof *tmp * n);
    if (!tmp) return false;
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        any |= a[i].lo;
        all &= a[i].lo;
    }
    uint64_t vary = any & ~all;   /* the bits that differ somewhere */
    span *src = a, *dst = tmp;
    /* the bits from the lowest to the highest that varies, in as few
     * digits of at most 8 bits as cover them, of equal width (offsets
     * vary in 17 bits from bit 4: three digits of 6 bits, whose counts
     * are cheaper to clear and sum than 256 per digit) */
    unsigned lo_bit = 0, hi_bit = 63;
    while (lo_bit < 63 && !((vary >> lo_bit) & 1)) lo_bit++;
    while (hi_bit > 0 && !((vary >> hi_bit) & 1)) hi_bit--;
    unsigned bits = vary ? hi_bit - lo_bit + 1 : 0, passes = (bits + 7) / 8;
    unsigned width = passes ? (bits + passes - 1) / passes : 0;
    uint64_t dmask = ((uint64_t)1 << width) - 1;
    for (unsigned p = 0, sh = lo_bit; p < passes; p++, sh += width) {
        uint32_t cnt[256];
        memset(cnt, 0, sizeof *cnt * (size_t)(dmask + 1));
        for (size_t i = 0; i < n; i++) cnt[(src[i].lo >> sh) & dmask]++;
        uint32_t at = 0;
        for (unsigned d = 0; d <= dmask; d++) {
            uint32_t c = cnt[d];
            cnt[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++) dst[cnt[(src[i].lo >> sh) & dmask]++] = src[i];
        span *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, sizeof *a * n);
    if (tmp != stack) free(tmp);
    return true;
}

void cc_sort_spans(span *a, size_t n)
{
    /* past a few dozen spans a radix sort (the placement passes sort
     * hundreds at a time, an LSTM's thousands) */
    if (n > 48 && radix_spans(a, n)) return;
    /* quicksort, median of three, the smaller side first and the larger
     * by iteration (log n deep); insertion sort below 16 */
    while (n > 16) {
        size_t mid = n / 2;
        if (a[mid].lo < a[0].lo) swap_span(&a[mid], &a[0]);
        if (a[n - 1].lo < a[0].lo) swap_span(&a[n - 1], &a[0]);
        if (a[n - 1].lo < a[mid].lo) swap_span(&a[n - 1], &a[mid]);
        uint64_t pivot = a[mid].lo;
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i].lo < pivot) i++;
            while (a[j].lo > pivot) j--;
            if (i >= j) break;
            swap_span(&a[i], &a[j]);
            i++;
            j--;
        }
        /* [0, j] <= pivot <= [j + 1, n) */
        size_t left = j + 1;
        if (left < n - left) {
            cc_sort_spans(a, left);
            a += left;
            n -= left;
        } else {
            cc_sort_spans(a + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        span x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].lo > x.lo) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
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

/* ------------------------------------------------ timeline index */

#define TL_BLOCK 32

static int32_t tl_block(int32_t step) { return step < 0 ? 0 : step / TL_BLOCK; }

/* The blocks steps a..b touch (either may come first), clamped. */
static bool tl_span(const cc_timeline *t, int32_t a, int32_t b, int32_t *k0, int32_t *k1)
{
    *k0 = tl_block(a < b ? a : b);
    *k1 = tl_block(a < b ? b : a);
    if (*k1 >= t->n_blocks) *k1 = t->n_blocks - 1;
    return *k0 <= *k1;
}

bool cc_tl_init(cc_timeline *t, const cc_model *m)
{
    memset(t, 0, sizeof *t);
    int32_t last = 0;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        if (m->bufs[b].last > last) last = m->bufs[b].last;
        if (m->bufs[b].first > last) last = m->bufs[b].first;
    }
    t->n_blocks = tl_block(last) + 1;
    t->head = malloc(sizeof *t->head * (size_t)t->n_blocks * 2);
    t->seen = calloc((size_t)m->n_bufs + 1, sizeof *t->seen);
    if (!t->head || !t->seen) return false;
    t->cross = t->head + t->n_blocks;
    for (int32_t k = 0; k < 2 * t->n_blocks; k++) t->head[k] = -1;
    return true;
}

void cc_tl_free(cc_timeline *t)
{
    free(t->head);
    free(t->ent_buf);
    free(t->ent_next);
    free(t->seen);
    memset(t, 0, sizeof *t);
}

/* One entry for b at the head of list *head. */
static bool tl_push(cc_timeline *t, int32_t *head, int32_t b)
{
    if (t->n_ent == t->cap_ent) {
        int32_t cap = t->cap_ent ? 2 * t->cap_ent : 256;
        int32_t *a = realloc(t->ent_buf, sizeof *a * (size_t)cap);
        if (!a) return false;
        t->ent_buf = a;
        a = realloc(t->ent_next, sizeof *a * (size_t)cap);
        if (!a) return false;
        t->ent_next = a;
        t->cap_ent = cap;
    }
    t->ent_buf[t->n_ent] = b;
    t->ent_next[t->n_ent] = *head;
    *head = t->n_ent++;
    return true;
}

bool cc_tl_add(cc_timeline *t, int32_t b, int32_t first, int32_t last)
{
    int32_t k0, k1;
    if (!tl_span(t, first, last, &k0, &k1)) return true;
    if (!tl_push(t, &t->head[k0], b)) return false;
    for (int32_t k = k0 + 1; k <= k1; k++)
        if (!tl_push(t, &t->cross[k], b)) return false;
    return true;
}

int32_t cc_tl_query(cc_timeline *t, int32_t first, int32_t last, int32_t *out)
{
    int32_t k0, k1, n = 0;
    if (!tl_span(t, first, last, &k0, &k1)) return 0;
    t->stamp++;
    /* those whose blocks run into k0 from before it, then those whose
     * blocks start in k0..k1: each entry met once, none walked in vain */
    for (int32_t k = k0 - 1; k <= k1; k++)
        for (int32_t e = k < k0 ? t->cross[k0] : t->head[k]; e >= 0; e = t->ent_next[e]) {
            int32_t b = t->ent_buf[e];
            if (t->seen[b] == t->stamp) continue;   /* added more than once */
            t->seen[b] = t->stamp;
            out[n++] = b;
        }
    return n;
}

/* The lowest ALIGN-aligned offset from `from` (aligned) where size bytes
 * fit between the ns spans sp (taken in any order; sorted here). */
static uint64_t lowest_fit_from(span *sp, int32_t ns, uint64_t size, uint64_t from)
{
    cc_sort_spans(sp, (size_t)ns);
    uint64_t off = from;
    for (int32_t j = 0; j < ns; j++) {
        if (off + size <= sp[j].lo) break;
        if (sp[j].hi > off) off = (sp[j].hi + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
    }
    return off;
}

static uint64_t lowest_fit(span *sp, int32_t ns, uint64_t size) { return lowest_fit_from(sp, ns, size, 0); }

/* The offset for x among the spans sp of the buffers placed and live
 * beside it (without the buffer it writes over, if any): a buffer written
 * over its input (cc_buf.over) takes that input's offset where it fits
 * there, else the lowest offset clear of the input's bytes too (never a
 * part of them: the input is read while it is written). The input is
 * placed before it (larger, or as large and live first). */
static uint64_t fit_over(const cc_model *m, const cc_buf *x, uint8_t pool, span *sp, int32_t ns)
{
    const cc_buf *a = x->over > 0 ? &m->bufs[x->over - 1] : NULL;
    if (!a || a->pool != pool || a->offset < 0) return lowest_fit(sp, ns, x->size);
    uint64_t lo = (uint64_t)a->offset, hi = lo + x->size;
    bool clear = true;
    for (int32_t j = 0; j < ns && clear; j++) clear = sp[j].hi <= lo || hi <= sp[j].lo;
    if (clear) return lo;
    sp[ns++] = (span){lo, lo + a->size};
    return lowest_fit(sp, ns, x->size);
}

/* Places the buffers of one pool (idx: all buffers, largest first); returns
 * the pool's peak, 16-byte aligned. Buffers of other pools are ignored.
 * Each placement looks only at the buffers placed before it that the
 * timeline index lists near its range (not at every buffer placed before
 * it: thousands on an unrolled LSTM). */
static uint64_t place_scan(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, span *sp);

/* ------------------------------------------------ placements seen before */

/* What place() reads of one buffer (in the order it places them). */
typedef struct pm_rec { int32_t b, first, last, over; uint64_t size; } pm_rec;

/* One placement: its inputs (the pool's buffers in order) and results. */
typedef struct pm_entry {
    uint64_t hash, peak;
    int32_t n;                /* records */
    pm_rec *key;              /* [n] */
    int64_t *off;             /* [n] the offsets place() gave */
} pm_entry;

#define PM_CAP 16

/* The placements of a model's passes (the search places the same live
 * ranges again and again: cc_cascade, cc_place_weights' trials and
 * cc_prefetch): place() is a function of what its records hold. */
typedef struct pm_memo {
    pm_entry e[PM_CAP];
    int32_t n, next;          /* entries; the one to replace when full */
} pm_memo;

static void pm_free(pm_memo *pm)
{
    for (int32_t i = 0; i < pm->n; i++) {
        free(pm->e[i].key);
        free(pm->e[i].off);
    }
    memset(pm, 0, sizeof *pm);
}

/* The records of pool's buffers in idx's order (NULL: out of memory). */
static pm_rec *pm_key(const cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, int32_t *nk, uint64_t *h)
{
    pm_rec *k = malloc(sizeof *k * ((size_t)n + 1));
    if (!k) return NULL;
    int32_t j = 0;
    for (int32_t i = 0; i < n; i++) {
        const cc_buf *x = &m->bufs[idx[i]];
        if (x->pool != pool) continue;
        k[j++] = (pm_rec){idx[i], x->first, x->last, x->over, x->size};
    }
    *nk = j;
    *h = npuc_hash(NPUC_HASH_INIT + pool, k, sizeof *k * (size_t)j);
    return k;
}

static uint64_t place_index(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, span *sp);
static pm_memo *cc_costs_memo(struct cc_costs *c);

static uint64_t place(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, span *sp)
{
    pm_memo *pm = m->costs ? cc_costs_memo(m->costs) : NULL;
    int32_t nk = 0;
    uint64_t h = 0;
    pm_rec *key = pm ? pm_key(m, idx, n, pool, &nk, &h) : NULL;
    if (!key) return place_index(m, idx, n, pool, sp);
    for (int32_t i = 0; i < pm->n; i++) {
        const pm_entry *x = &pm->e[i];
        if (x->hash != h || x->n != nk || memcmp(x->key, key, sizeof *key * (size_t)nk)) continue;
        for (int32_t j = 0; j < nk; j++) m->bufs[key[j].b].offset = x->off[j];
        free(key);
        return x->peak;
    }
    uint64_t peak = place_index(m, idx, n, pool, sp);
    int64_t *off = malloc(sizeof *off * ((size_t)nk + 1));
    if (!off) {
        free(key);
        return peak;
    }
    for (int32_t j = 0; j < nk; j++) off[j] = m->bufs[key[j].b].offset;
    pm_entry *x = &pm->e[pm->n < PM_CAP ? pm->n++ : pm->next];
    if (x->key) {
        free(x->key);
        free(x->off);
        pm->next = (pm->next + 1) % PM_CAP;
    }
    *x = (pm_entry){h, peak, nk, key, off};
    return peak;
}

/* The placement index: the buffers place_index has placed, by live range
 * in blocks of steps as the timeline index lists them (each once: in the
 * block its range starts in, and as running into each later block of it),
 * with their bytes; and per block how far up from offset 0 the bytes of
 * those listed there leave no aligned offset free. A buffer that spans a
 * whole block meets every buffer listed in it, so it can go no lower than
 * that block's run: on an unrolled LSTM the step outputs that live to the
 * end meet hundreds of buffers packed solid below them, and only those
 * above the highest such run are in its way. */
#define PL_PEND 8

/* a buffer's listing in a block: its bytes and steps, the next entry */
typedef struct pl_ent { uint64_t lo, hi; int32_t first, last, b, next; } pl_ent;

typedef struct pl_block {
    int32_t start, cross;     /* first entry of the buffers starting in the
                                 block, of those running into it; -1 none */
    uint64_t start_top, cross_top;   /* the highest end of their bytes */
    uint64_t solid;           /* every aligned offset below is in the bytes
                                 of a buffer listed in the block (ALIGN) */
    int32_t n_pend;
    span pend[PL_PEND];       /* spans above `solid` by offset (the lowest
                                 few), taken into the run when it reaches
                                 them; one let go only leaves it shorter */
} pl_block;

typedef struct pl_index {
    int32_t n_blocks;
    int32_t step0;            /* the earliest step of any buffer, where
                                 block 0 starts */
    pl_block *blk;
    pl_ent *ent;
    int32_t n_ent, cap_ent;
} pl_index;

static bool pl_init(pl_index *t, const cc_model *m)
{
    memset(t, 0, sizeof *t);
    int32_t last = 0;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (x->last > last) last = x->last;
        if (x->first > last) last = x->first;
        if (x->first < t->step0) t->step0 = x->first;
        if (x->last < t->step0) t->step0 = x->last;
    }
    t->n_blocks = (last - t->step0) / TL_BLOCK + 1;
    t->blk = malloc(sizeof *t->blk * (size_t)t->n_blocks);
    if (!t->blk) return false;
    for (int32_t k = 0; k < t->n_blocks; k++) t->blk[k] = (pl_block){.start = -1, .cross = -1};
    return true;
}

static void pl_free(pl_index *t)
{
    free(t->blk);
    free(t->ent);
    memset(t, 0, sizeof *t);
}

static bool pl_push(pl_index *t, int32_t *head, int32_t b, const cc_buf *x)
{
    if (t->n_ent == t->cap_ent) {
        int32_t cap = t->cap_ent ? 2 * t->cap_ent : 1024;
        pl_ent *a = realloc(t->ent, sizeof *a * (size_t)cap);
        if (!a) return false;
        t->ent = a;
        t->cap_ent = cap;
    }
    t->ent[t->n_ent] = (pl_ent){(uint64_t)x->offset, (uint64_t)x->offset + x->size, x->first, x->last, b, *head};
    *head = t->n_ent++;
    return true;
}

static uint64_t align_up(uint64_t v) { return (v + ALIGN - 1) & ~(uint64_t)(ALIGN - 1); }

/* Block k's run with the bytes [lo, hi) of a buffer listed in it: an
 * aligned offset from `solid` up to below align_up(hi) lies in [lo, hi)
 * when lo <= solid. */
static void pl_solid(pl_block *k, uint64_t lo, uint64_t hi)
{
    if (lo > k->solid) {
        int32_t j = k->n_pend;
        if (j == PL_PEND) {
            if (k->pend[j - 1].lo <= lo) return;
            j--;
        } else {
            k->n_pend++;
        }
        for (; j > 0 && k->pend[j - 1].lo > lo; j--) k->pend[j] = k->pend[j - 1];
        k->pend[j] = (span){lo, hi};
        return;
    }
    if (align_up(hi) > k->solid) k->solid = align_up(hi);
    int32_t j = 0;
    for (; j < k->n_pend && k->pend[j].lo <= k->solid; j++)
        if (align_up(k->pend[j].hi) > k->solid) k->solid = align_up(k->pend[j].hi);
    if (j) {
        k->n_pend -= j;
        memmove(k->pend, k->pend + j, sizeof *k->pend * (size_t)k->n_pend);
    }
}

static int32_t pl_block_of(const pl_index *t, int32_t step)
{
    return step <= t->step0 ? 0 : (step - t->step0) / TL_BLOCK;
}

/* The blocks steps a..b touch (either may come first), clamped. */
static bool pl_span(const pl_index *t, int32_t a, int32_t b, int32_t *k0, int32_t *k1)
{
    *k0 = pl_block_of(t, a < b ? a : b);
    *k1 = pl_block_of(t, a < b ? b : a);
    if (*k1 >= t->n_blocks) *k1 = t->n_blocks - 1;
    return *k0 <= *k1;
}

static bool pl_add(pl_index *t, int32_t b, const cc_buf *x)
{
    int32_t k0, k1;
    if (!pl_span(t, x->first, x->last, &k0, &k1)) return true;
    uint64_t lo = (uint64_t)x->offset, hi = lo + x->size;
    for (int32_t k = k0; k <= k1; k++) {
        pl_block *bk = &t->blk[k];
        if (!pl_push(t, k == k0 ? &bk->start : &bk->cross, b, x)) return false;
        uint64_t *top = k == k0 ? &bk->start_top : &bk->cross_top;
        if (hi > *top) *top = hi;
        /* (a range the wrong way round meets only the ranges that span
         * it: no run) */
        if (x->first <= x->last) pl_solid(bk, lo, hi);
    }
    return true;
}

/* The highest run of the blocks x's range covers whole: no offset below
 * it is free for x (0: none). */
static uint64_t pl_floor(const pl_index *t, const cc_buf *x)
{
    int32_t ka = x->first <= t->step0 ? 0 : (x->first - t->step0 + TL_BLOCK - 1) / TL_BLOCK;
    int32_t kb = (x->last - t->step0 + 1) / TL_BLOCK - 1;
    if (kb >= t->n_blocks) kb = t->n_blocks - 1;
    uint64_t f = 0;
    for (int32_t k = ka; k <= kb; k++)
        if (t->blk[k].solid > f) f = t->blk[k].solid;
    return f;
}

static uint64_t place_index(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, span *sp)
{
    pl_index t;
    if (!pl_init(&t, m)) {
        pl_free(&t);
        return place_scan(m, idx, n, pool, sp);
    }
    uint64_t peak = 0;
    for (int32_t i = 0; i < n; i++) {
        cc_buf *x = &m->bufs[idx[i]];
        if (x->pool != pool) continue;
        /* the placed buffers of this pool live at the same time: the
         * lowest offset that fits depends only on which they are, and
         * only those reaching above the floor can be in its way (a buffer
         * written over its input, or of no bytes, takes no floor) */
        uint64_t floor = x->over || !x->size ? 0 : pl_floor(&t, x);
        int32_t ns = 0, k0, k1;
        bool any = pl_span(&t, x->first, x->last, &k0, &k1);
        for (int32_t k = k0 - 1; any && k <= k1; k++) {
            /* a list whose buffers all end below the floor is passed by */
            const pl_block *bk = &t.blk[k < k0 ? k0 : k];
            if ((k < k0 ? bk->cross_top : bk->start_top) <= floor) continue;
            for (int32_t e = k < k0 ? bk->cross : bk->start; e >= 0; e = t.ent[e].next) {
                const pl_ent *y = &t.ent[e];
                if (y->hi > floor && y->first <= x->last && x->first <= y->last && y->b != x->over - 1)
                    sp[ns++] = (span){y->lo, y->hi};
            }
        }
        uint64_t off = floor ? lowest_fit_from(sp, ns, x->size, floor) : fit_over(m, x, pool, sp, ns);
        x->offset = (int64_t)off;
        if (off + x->size > peak) peak = off + x->size;
        if (x->size && !pl_add(&t, idx[i], x)) {
            /* out of memory: all again, by a scan */
            pl_free(&t);
            return place_scan(m, idx, n, pool, sp);
        }
    }
    pl_free(&t);
    return (peak + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
}

uint64_t cc_place_pool(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, bool plain)
{
    span *sp = malloc(sizeof *sp * ((size_t)m->n_bufs + 1));
    if (!sp) return UINT64_MAX;
    uint64_t peak = plain ? place_scan(m, idx, n, pool, sp) : place_index(m, idx, n, pool, sp);
    free(sp);
    return peak;
}

/* place() by scanning every buffer placed before (the fallback). */
static uint64_t place_scan(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, span *sp)
{
    uint64_t peak = 0;
    for (int32_t i = 0; i < n; i++) {
        cc_buf *x = &m->bufs[idx[i]];
        if (x->pool != pool) continue;
        int32_t ns = 0;
        for (int32_t j = 0; j < i; j++) {
            const cc_buf *y = &m->bufs[idx[j]];
            if (y->pool == pool && y->first <= x->last && x->first <= y->last && y->size && idx[j] != x->over - 1)
                sp[ns++] = (span){(uint64_t)y->offset, (uint64_t)y->offset + y->size};
        }
        uint64_t off = fit_over(m, x, pool, sp, ns);
        x->offset = (int64_t)off;
        if (off + x->size > peak) peak = off + x->size;
    }
    return (peak + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
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

/* ------------------------------------------------ fast pool: cycles saved */

/* The cycle model's record of NPU op o: what the virtual NPU reads from the
 * registers eu_gen.c programs for it (sim_op_info_from_state), with every
 * operand in region 1; the caller sets the regions. */
static void op_record(const eu_op *o, sim_op_info *r)
{
    memset(r, 0, sizeof *r);
    r->kind = o->kind;
    r->mode = o->mode;
    r->dma_src_region = r->dma_dst_region = 0xFF;
    r->ofm_w = o->ofm.w ? o->ofm.w : 1;
    r->ofm_h = o->ofm.h ? o->ofm.h : 1;
    r->ofm_d = o->ofm.c ? o->ofm.c : 1;
    r->ifm_bits = o->ifm.bits ? o->ifm.bits : 8;
    r->ofm_bits = o->ofm.bits ? o->ofm.bits : 8;
    r->ifm_format = o->ifm.format;
    r->ofm_format = o->ofm.format;
    r->act_func = o->act_func;
    r->acc_bits = o->blk.acc_format ? 40 : 32;
    r->blk_w = o->blk.w;
    r->blk_h = o->blk.h;
    r->blk_d = o->blk.d;
    if (o->kind == SIM_K_ELEMENTWISE) {
        r->kernel_w = r->kernel_h = r->stride_x = r->stride_y = 1;
        r->ifm_w = r->ofm_w;
        r->ifm_h = r->ofm_h;
        r->ifm_d = r->ofm_d;
        r->ifm2_bits = o->ifm2.bits ? o->ifm2.bits : r->ifm_bits;
        if (o->ifm2_tensor) {
            r->ifm2_tensor = true;
            r->ifm2_broadcast = o->bcast_h || o->bcast_w || o->bcast_c;
            r->ifm2_bytes = sim_fm_bytes(o->bcast_w ? 1 : r->ofm_w, o->bcast_h ? 1 : r->ofm_h,
                                     o->bcast_c ? 1 : r->ofm_d, r->ifm2_bits, o->ifm2.format);
        }
    } else {
        unsigned dx = o->dil_x ? o->dil_x : 1, dy = o->dil_y ? o->dil_y : 1;
        uint32_t kw = o->kw ? o->kw : 1, kh = o->kh ? o->kh : 1;
        r->kernel_w = kw;
        r->kernel_h = kh;
        r->stride_x = o->stride_x ? o->stride_x : 1;
        r->stride_y = o->stride_y ? o->stride_y : 1;
        r->upscale = o->upscale;
        r->ifm_w = sim_ifm_extent(r->ofm_w, r->stride_x, (kw - 1) * dx + 1, o->pad_l, o->pad_r, o->upscale);
        r->ifm_h = sim_ifm_extent(r->ofm_h, r->stride_y, (kh - 1) * dy + 1, o->pad_t, o->pad_b, o->upscale);
        r->ifm_d = o->ifm.c ? o->ifm.c : 1;
    }
    r->ifm_bytes = sim_fm_bytes(r->ifm_w, r->ifm_h, r->ifm_d, r->ifm_bits, r->ifm_format);
    r->ofm_bytes = sim_fm_bytes(r->ofm_w, r->ofm_h, r->ofm_d, r->ofm_bits, r->ofm_format);
    if (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) {
        r->weight_bytes = o->w_len + o->w1_len;
        r->scale_bytes = o->s_len + o->s1_len;
    }
    r->ifm_region = r->ifm2_region = r->ofm_region = r->weight_region = r->scale_region = 1;
}

/* One NPU op as the fast pool choice sees it: its record and the buffers
 * of its operands (-1: none, or a constant). */
typedef struct fp_op {
    sim_op_info rec;
    int32_t buf[4];           /* IFM, IFM2, OFM, weight copy */
    uint64_t cost;            /* cycles with the present choice */
    int32_t prev;             /* the NPU op before it in its stream, -1 none */
    int32_t k;                /* its index in its epoch */
    bool one_block;           /* its OFM plane is one block: a weight stream
                                 is fetched once */
    uint64_t *memo;           /* [FP_MEMO] its cycles + 1 per region choice
                                 (0: not costed yet; NULL: no memo) */
    uint64_t *spare;          /* [FP_MEMO] fp_spare + 1, the same way */
    bool split;               /* its weight copy holds the scale records
                                 alone (w_regions) */
    int32_t nxw;              /* the weight copy of the NPU op after it in
                                 its stream, -1 none */
} fp_op;

typedef struct fp_ctx {
    const cc_model *m;
    fp_op *ops; int32_t n_ops;
    int32_t *first, *list;    /* ops of buffer b: list[first[b] .. first[b + 1]) */
    uint8_t *in_fast;         /* present choice per buffer (set by fp_set) */
    uint8_t *code;            /* [n_ops] the memo column of each op's regions
                                 under in_fast (fp_col), kept by fp_set */
    uint8_t *dlt;             /* [per list entry] what the column of op
                                 list[j] gains when buffer b (of whose range
                                 j is) moves into the fast pool */
    uint64_t *nowv;           /* scratch: a buffer's ops' costs with it in
                                 (fp_gain_at; NULL: none) */
    uint8_t wcopy_else;       /* region of a weight copy left out of the fast
                                 pool: 0 (dropped, read from the params) or 1 */
    uint64_t *memo;           /* the context's own [n_ops][FP_MEMO] rows of
                                 fp_op.memo where the model keeps none
                                 (NULL: the model's, or none at all) */
    uint64_t *dma_memo;       /* [n_bufs] fp_dma + 1 (0: not yet; NULL: none) */
    uint64_t *spare_memo;     /* the same for fp_op.spare */
    bool spare_hide;          /* fp_gain lets the params port's idle time
                                 of the ops before a copy read once hide
                                 its DMA (choose_fast's last phase) */
} fp_ctx;

/* The region choices of an op's four operands (each 0..2). */
#define FP_MEMO 81

/* ------------------------------------------------ lone op prices */

typedef struct cost_entry {
    sim_op_info rec;          /* the record as priced (all its bytes) */
    uint64_t cycles;
} cost_entry;

/* One whole allocation (cc_alloc_memo): its inputs and every buffer and
 * both peaks as it left them. */
typedef struct am_entry {
    uint64_t hash;
    uint8_t *key; size_t key_size;
    cc_buf *bufs;
    uint64_t arena, fast;
    uint64_t placed;          /* cc_costs.placed, valid with placed_ok */
    bool placed_ok;
} am_entry;

#define AM_CAP 8

struct cc_costs {
    cost_entry *e;            /* [ix.n], capacity cap */
    int32_t cap;
    npuc_hindex ix;           /* the records' hashes */
    pm_memo place;            /* placements (place()) */
    /* the fast pool choice's per-op costs (fp_op.memo, .spare), one row
     * per record seen (with fp_op.split): an op's costs hold for every
     * placement whose op has the same record, wherever it is in the
     * streams (a search's placements differ in a few ops, a cascade
     * shifts the ops after it) */
    sim_op_info *fp_rec;      /* [fp_n] the rows' records */
    uint8_t *fp_split;        /* [fp_n] */
    uint64_t *fp_memo;        /* [fp_cap][FP_MEMO] */
    uint64_t *fp_spare;       /* [fp_cap][FP_MEMO] */
    int32_t fp_n, fp_cap;
    npuc_hindex fp_ix;        /* the rows' records' hashes */
    int32_t *fp_pos;          /* [fp_npos] the row of each op of the last
                                 choice (looked at first) */
    int32_t fp_npos, fp_pos_cap;
    /* the cycles of a weight copy's DMA by its size (fp_dma): an open
     * table of dma_cap (a power of two) slots, size and cycles + 1 (0:
     * empty) */
    uint64_t *dma_size, *dma_cyc;
    int32_t dma_n, dma_cap;
    bool am_on;               /* cc_alloc_memo */
    /* cc_placed_cycles of the last allocation, from its choice of the fast
     * pool (cc_allocated_cycles); placed_ok false: not known */
    uint64_t placed;
    bool placed_ok;
    am_entry am[AM_CAP];
    int32_t am_next;          /* the entry to fill next */
};

static void am_free(struct cc_costs *c)
{
    for (int32_t i = 0; i < AM_CAP; i++) {
        free(c->am[i].key);
        free(c->am[i].bufs);
    }
    memset(c->am, 0, sizeof c->am);
    c->am_next = 0;
}

struct cc_costs *cc_costs_new(void) { return calloc(1, sizeof(struct cc_costs)); }

void cc_costs_free(struct cc_costs *c)
{
    if (!c) return;
    free(c->e);
    npuc_hindex_free(&c->ix);
    pm_free(&c->place);
    free(c->fp_rec);
    free(c->fp_split);
    free(c->fp_memo);
    free(c->fp_spare);
    npuc_hindex_free(&c->fp_ix);
    free(c->fp_pos);
    free(c->dma_size);
    free(c->dma_cyc);
    am_free(c);
    free(c);
}

void cc_alloc_memo(cc_model *m, bool on)
{
    if (!m->costs) return;
    am_free(m->costs);
    m->costs->am_on = on;
}

/* What cc_allocate reads that cc_place_weights' trials change: per buffer
 * all but its outputs (first, last, offset, pool), per NPU op its weight
 * copy and block. NULL: out of memory. */
static uint8_t *am_key(const cc_model *m, size_t *size)
{
    size_t per_buf = sizeof(uint64_t) + 6 * sizeof(int32_t);
    size_t per_op = sizeof(int32_t) + 3 * sizeof(uint32_t) + 5;
    size_t n = 2 * sizeof(int32_t) + per_buf * (size_t)m->n_bufs;
    for (int32_t i = 0; i < m->n_epochs; i++)
        n += sizeof(int32_t) + (m->epochs[i].kind == CC_EPOCH_HW ? per_op * (size_t)m->epochs[i].n_eu : 0);
    uint8_t *k = malloc(n), *p = k;
    if (!k) return NULL;
    int32_t head[2] = {m->n_bufs, m->n_epochs};
    memcpy(p, head, sizeof head);
    p += sizeof head;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        int32_t v[6] = {x->tensor, x->epoch, x->eu_first, x->eu_last, x->op,
                        x->temp | x->brick << 1 | x->wcopy << 2 | x->reload << 3};
        memcpy(p, &x->size, sizeof x->size);
        p += sizeof x->size;
        memcpy(p, v, sizeof v);
        p += sizeof v;
    }
    for (int32_t i = 0; i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        int32_t ne = e->kind == CC_EPOCH_HW ? e->n_eu : -1;
        memcpy(p, &ne, sizeof ne);
        p += sizeof ne;
        for (int32_t j = 0; j < ne; j++) {
            const eu_op *o = &e->ops[j];
            uint32_t v[4] = {(uint32_t)o->wbuf, o->blk.w, o->blk.h, o->blk.d};
            uint8_t f[5] = {o->blk.ifm_ib_end, o->blk.ifm2_ib_start, o->blk.ab_start, o->blk.acc_format,
                            o->blk.lut_start_bank};
            memcpy(p, v, sizeof v);
            p += sizeof v;
            memcpy(p, f, sizeof f);
            p += sizeof f;
        }
    }
    *size = n;
    return k;
}

static pm_memo *cc_costs_memo(struct cc_costs *c) { return &c->place; }

static inline uint64_t rec_mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* A hash of record r for price()'s cache from the fields that tell the
 * records a model prices apart (a match compares all the bytes). */
static uint64_t rec_hash(const sim_op_info *r)
{
    uint64_t h = (uint64_t)r->kind | (uint64_t)r->mode << 8 | (uint64_t)r->ifm_region << 16 |
                 (uint64_t)r->ifm2_region << 24 | (uint64_t)r->ofm_region << 32 |
                 (uint64_t)r->weight_region << 40 | (uint64_t)r->scale_region << 48 | (uint64_t)r->act_func << 56;
    h = rec_mix(NPUC_HASH_INIT, h);
    h = rec_mix(h, (uint64_t)r->ofm_w << 40 ^ (uint64_t)r->ofm_h << 20 ^ r->ofm_d);
    h = rec_mix(h, (uint64_t)r->ifm_w << 40 ^ (uint64_t)r->ifm_h << 20 ^ r->ifm_d);
    h = rec_mix(h, (uint64_t)r->blk_w << 40 ^ (uint64_t)r->blk_h << 20 ^ r->blk_d);
    h = rec_mix(h, (uint64_t)r->kernel_w << 40 ^ (uint64_t)r->kernel_h << 20 ^ (uint64_t)r->stride_x << 8 ^
                       r->stride_y);
    h = rec_mix(h, r->weight_bytes ^ r->scale_bytes << 32 ^ r->ifm2_bytes << 16);
    return h;
}

/* The cycle model's price of lone record r (the model's variant and
 * system), from the cache when the same bytes were priced before. */
static uint64_t price(const cc_model *m, const sim_op_info *r)
{
    struct cc_costs *c = m->costs;
    uint64_t h = 0;
    if (c) {
        h = rec_hash(r);
        for (int32_t i = npuc_hindex_first(&c->ix, h); i >= 0; i = npuc_hindex_next(&c->ix, i))
            if (!memcmp(&c->e[i].rec, r, sizeof *r)) return c->e[i].cycles;
    }
    sim_op_info x = *r;
    uint64_t cyc = sim_perf_estimate(m->opt.sys.variant, &m->opt.sys.sim, &x, 1);
    if (!c) return cyc;
    if (c->ix.n == c->cap) {
        int32_t cap = c->cap ? 2 * c->cap : 256;
        cost_entry *e = realloc(c->e, sizeof *e * (size_t)cap);
        if (!e) return cyc;
        c->e = e;
        c->cap = cap;
    }
    int32_t k = c->ix.n;
    if (!npuc_hindex_add(&c->ix, h)) return cyc;   /* only not cached */
    memcpy(&c->e[k].rec, r, sizeof *r);
    c->e[k].cycles = cyc;
    return cyc;
}

/* The regions of record r's weight stream and scale records when the op's
 * constants are in region reg through buffer b (-1: none): a copy of the
 * scale records alone (cc_scale_copies) leaves the stream in the params. */
static void w_regions(const cc_model *m, int32_t b, uint8_t reg, sim_op_info *r)
{
    r->weight_region = r->scale_region = reg;
    if (b >= 0 && b < m->n_bufs && m->bufs[b].wcopy && r->weight_bytes &&
        m->bufs[b].size == ((r->scale_bytes + 15) & ~(uint64_t)15))
        r->weight_region = 0;
}

uint64_t cc_op_cycles_at(const cc_model *m, const eu_op *o, uint8_t ifm_r, uint8_t ifm2_r, uint8_t ofm_r,
                         uint8_t w_r)
{
    sim_op_info r;
    op_record(o, &r);
    r.ifm_region = ifm_r;
    r.ifm2_region = ifm2_r;
    r.ofm_region = ofm_r;
    w_regions(m, o->wbuf, w_r, &r);
    return price(m, &r);
}

/* The memo column of the regions of an op's four operands (IFM, IFM2,
 * OFM, weights: each 0..2, weighed 1, 3, 9, 27). */
static const uint8_t fp_weight[4] = {1, 3, 9, 27};

/* fp_cost_col where the memo does not hold the cost (memo: its place, NULL
 * none). */
static uint64_t fp_price_col(const fp_ctx *c, int32_t i, unsigned col, uint64_t *memo)
{
    const fp_op *f = &c->ops[i];
    sim_op_info r = f->rec;   /* copied only when priced */
    r.ifm_region = (uint8_t)(col % 3);
    r.ifm2_region = (uint8_t)(col / 3 % 3);
    r.ofm_region = (uint8_t)(col / 9 % 3);
    w_regions(c->m, f->buf[3], (uint8_t)(col / 27 % 3), &r);
    uint64_t cyc = price(c->m, &r);
    if (memo) *memo = cyc + 1;
    return cyc;
}

/* Cycles of op i alone (the cycle model's max of compute and memory) with
 * its operands in the regions of memo column col. */
static inline uint64_t fp_cost_col(const fp_ctx *c, int32_t i, unsigned col)
{
    /* an op alone costs the same for the same regions: each choice is
     * costed once (the choice search asks again and again) */
    uint64_t *memo = c->ops[i].memo ? c->ops[i].memo + col : NULL;
    if (memo && *memo) return *memo - 1;
    return fp_price_col(c, i, col, memo);
}

/* The memo column of op i's operands where in_fast puts them (flip: a
 * buffer taken as in the fast pool as well, -1 none); fp_init's start for
 * the columns fp_set keeps. */
static unsigned fp_col(const fp_ctx *c, int32_t i, int32_t flip)
{
    const fp_op *f = &c->ops[i];
    unsigned col = 0;
    for (int k = 0; k < 4; k++) {
        int32_t b = f->buf[k];
        bool fast = b >= 0 && (b == flip || c->in_fast[b]);
        unsigned reg = b < 0 ? 0 : fast ? 2 : k == 3 ? c->wcopy_else : 1;
        col += fp_weight[k] * reg;
    }
    return col;
}

/* Cycles of op i alone with its operands where the present choice puts
 * them. */
static inline uint64_t fp_cost(const fp_ctx *c, int32_t i) { return fp_cost_col(c, i, c->code[i]); }

/* Cycles of op list[j] alone with buffer b (of whose range j is) in the
 * fast pool as well. */
static inline uint64_t fp_cost_with(const fp_ctx *c, int32_t j, int32_t b)
{
    int32_t i = c->list[j];
    return fp_cost_col(c, i, c->code[i] + (c->in_fast[b] ? 0u : c->dlt[j]));
}

/* Buffer b into the fast pool (v 1) or out (0): the columns of its ops
 * follow (their costs are the caller's). */
static void fp_set(fp_ctx *c, int32_t b, uint8_t v)
{
    if (c->in_fast[b] == v) return;
    for (int32_t j = c->first[b]; j < c->first[b + 1]; j++)
        c->code[c->list[j]] = (uint8_t)(v ? c->code[c->list[j]] + c->dlt[j] : c->code[c->list[j]] - c->dlt[j]);
    c->in_fast[b] = v;
}

/* Refreshes the costs of buffer b's ops. */
static void fp_recost(fp_ctx *c, int32_t b)
{
    for (int32_t j = c->first[b]; j < c->first[b + 1]; j++) c->ops[c->list[j]].cost = fp_cost(c, c->list[j]);
}

/* The slot of DMA size `size` in k's table (its own or the empty one
 * where it goes). */
static int32_t dma_slot(const struct cc_costs *k, uint64_t size)
{
    uint32_t mask = (uint32_t)k->dma_cap - 1, at = (uint32_t)(size * 0x9E3779B97F4A7C15ull >> 40) & mask;
    while (k->dma_cyc[at] && k->dma_size[at] != size) at = (at + 1) & mask;
    return (int32_t)at;
}

/* Records the cycles of a DMA of `size` bytes in k's table (a table that
 * cannot grow just stays as it is). */
static void dma_keep(struct cc_costs *k, uint64_t size, uint64_t cyc)
{
    if (2 * (k->dma_n + 1) > k->dma_cap) {
        int32_t cap = k->dma_cap ? 2 * k->dma_cap : 256;
        uint64_t *ns = calloc((size_t)cap, sizeof *ns), *nc = calloc((size_t)cap, sizeof *nc);
        if (!ns || !nc) {
            free(ns);
            free(nc);
            return;
        }
        struct cc_costs t = *k;
        k->dma_size = ns;
        k->dma_cyc = nc;
        k->dma_cap = cap;
        for (int32_t i = 0; i < t.dma_cap; i++)
            if (t.dma_cyc[i]) {
                int32_t at = dma_slot(k, t.dma_size[i]);
                k->dma_size[at] = t.dma_size[i];
                k->dma_cyc[at] = t.dma_cyc[i];
            }
        free(t.dma_size);
        free(t.dma_cyc);
    }
    int32_t at = dma_slot(k, size);
    if (!k->dma_cyc[at]) k->dma_n++;
    k->dma_size[at] = size;
    k->dma_cyc[at] = cyc + 1;
}

/* Cycles of the DMA that fills weight copy b from the params (region 0):
 * a function of its size (the model's variant and system). */
static uint64_t fp_dma(const fp_ctx *c, int32_t b)
{
    if (c->dma_memo && c->dma_memo[b]) return c->dma_memo[b] - 1;
    struct cc_costs *k = c->m->costs;
    uint64_t size = c->m->bufs[b].size, cyc;
    int32_t at = k && k->dma_cap ? dma_slot(k, size) : -1;
    if (at >= 0 && k->dma_cyc[at]) {
        cyc = k->dma_cyc[at] - 1;
    } else {
        sim_op_info r;
        memset(&r, 0, sizeof r);
        r.kind = SIM_K_DMA;
        r.dma_src_region = 0;
        r.dma_dst_region = 2;
        r.dma_bytes = size;
        cyc = sim_perf_estimate(c->m->opt.sys.variant, &c->m->opt.sys.sim, &r, 1);
        if (k) dma_keep(k, size, cyc);
    }
    if (c->dma_memo) c->dma_memo[b] = cyc + 1;
    return cyc;
}

/* The least share of the model's cycles (the sum of its ops' alone) a
 * weight copy read once must save per pool's worth of bytes it adds above
 * the fast pool's peak (choose_fast's last phase). */
#define FP_ONCE_RATE 0.015

/* Cycles of op i, with its operands where the present choice puts them,
 * in which the port of the params (region 0, a weight DMA's source) moves
 * none of the op's own bytes: what a DMA from the params may use while op i
 * runs without taking bandwidth the op needs. The cycle model lets a DMA
 * and a kernel op share a port for free (sim.md, Timeline); the choice
 * does not count on it. */
static uint64_t fp_spare(const fp_ctx *c, int32_t i)
{
    const fp_op *f = &c->ops[i];
    unsigned col = c->code[i];
    uint64_t *memo = f->spare ? f->spare + col : NULL;
    if (memo && *memo) return *memo - 1;
    const cc_model *m = c->m;
    const sim_system *s = &m->opt.sys.sim;
    int p = s->region_port[0] & 1;
    const sim_memory *pm = &s->axi[p];
    unsigned axi = eu_variant_get(m->opt.sys.variant)->axi_bits / 8u;
    unsigned w = pm->width_bytes && pm->width_bytes < axi ? pm->width_bytes : axi;
    double bw = (double)w * (pm->clock_scale > 0 ? pm->clock_scale : 1.0);
    sim_op_info r = f->rec;
    r.ifm_region = (uint8_t)(col % 3);
    r.ifm2_region = (uint8_t)(col / 3 % 3);
    r.ofm_region = (uint8_t)(col / 9 % 3);
    w_regions(c->m, f->buf[3], (uint8_t)(col / 27 % 3), &r);
    uint64_t cyc = sim_perf_estimate(m->opt.sys.variant, s, &r, 1);
    double busy = bw > 0 ? (double)(r.axi_read[p] + r.axi_write[p]) / bw : (double)cyc;
    uint64_t spare = busy >= (double)cyc ? 0 : cyc - (uint64_t)(busy + 0.5);
    if (memo) *memo = spare + 1;
    return spare;
}

/* Cycles saved by moving buffer b into the fast pool, given the present
 * choice for every other buffer: what its ops gain (each costed alone), less
 * for a weight copy its DMA, as far as it is not hidden. The DMA runs while
 * the NPU op before the copy's user runs (eu_gen.c issues it as that op
 * starts), so the copy speeding up that op shows more of the next copy's
 * DMA. A copy read once (one user whose OFM plane is one block) only moves
 * the bytes the op would read itself: it must win back its whole DMA, which
 * it seldom does (the scale records' latency from DRAM can), else the op
 * streams its weights (overlapping that DMA with earlier ops is for the
 * prefetch pass, cc_prefetch.c). */
static int64_t fp_gain_at(const fp_ctx *c, int32_t b, int64_t *own, uint64_t *now_out)
{
    int64_t g = 0, g_ops = 0;
    /* b's ops, each once, in stream order */
    int32_t j0 = c->first[b], j1 = c->first[b + 1];
    int32_t i0 = j1 > j0 ? c->list[j0] : -1, users = j1 - j0;
    for (int32_t j = j0; j < j1; j++) {
        int32_t i = c->list[j];
        uint64_t now_u = fp_cost_with(c, j, b);
        if (now_out) now_out[j - j0] = now_u;
        int64_t was = (int64_t)c->ops[i].cost, now = (int64_t)now_u;
        g_ops += was - now;
        int32_t wb = c->ops[i].nxw;
        if (wb >= 0 && wb != b && c->in_fast[wb]) {
            int64_t dma = (int64_t)fp_dma(c, wb);
            int64_t e0 = dma > was ? dma - was : 0, e1 = dma > now ? dma - now : 0;
            g -= e1 - e0;
        }
    }
    g += g_ops;
    if (own) *own = g_ops;
    const cc_buf *x = &c->m->bufs[b];
    if (x->wcopy && i0 >= 0) {
        int64_t dma = (int64_t)fp_dma(c, b);
        int32_t p = c->ops[i0].prev;
        bool once = users == 1 && c->ops[i0].one_block;
        int64_t hidden = p >= 0 && !once ? (int64_t)c->ops[p].cost : 0;
        if (once && !x->reload && c->spare_hide) {
            /* the prefetch pass may start its DMA ops before its user:
             * the ops right before it hide it where they leave the
             * params' port idle, back to one that keeps the port busy
             * or has a copy of its own in the pool (whose DMA holds the
             * channel and the port before it) */
            for (int32_t j = p; j >= 0 && hidden < dma; j = c->ops[j].prev) {
                int32_t w = c->ops[j].buf[3];
                if (w >= 0 && w != b && c->in_fast[w]) break;
                uint64_t idle = fp_spare(c, j);
                if (!idle) break;
                hidden += (int64_t)idle;
            }
        }
        if (x->reload) {
            /* a copy loaded per use (cc_place_weights) starts its DMA as
             * op eu_first starts: the ops from there to its first user
             * hide it, read once or not (the search weighs the copy
             * against the resident one and against streaming) */
            hidden = 0;
            for (int32_t j = i0 - (c->ops[i0].k - x->eu_first); j < i0; j++)
                if (j >= 0) hidden += (int64_t)c->ops[j].cost;
        }
        if (dma > hidden) g -= dma - hidden;
    }
    return g;
}

static int64_t fp_gain(const fp_ctx *c, int32_t b) { return fp_gain_at(c, b, NULL, NULL); }

/* The most rows the model keeps (beside a choice's own ops): past that
 * they all go and the choice starts them again. */
#define FP_ROWS_MORE 1024

/* Grows k's rows to hold n. */
static bool fp_rows_grow(struct cc_costs *k, int32_t n)
{
    if (n <= k->fp_cap) return true;
    int32_t cap = k->fp_cap ? k->fp_cap : 256;
    while (cap < n) cap *= 2;
    sim_op_info *r = realloc(k->fp_rec, sizeof *r * (size_t)cap);
    if (r) k->fp_rec = r;
    uint8_t *sp = realloc(k->fp_split, (size_t)cap);
    if (sp) k->fp_split = sp;
    uint64_t *x = realloc(k->fp_memo, sizeof *x * FP_MEMO * (size_t)cap);
    if (x) k->fp_memo = x;
    uint64_t *y = realloc(k->fp_spare, sizeof *y * FP_MEMO * (size_t)cap);
    if (y) k->fp_spare = y;
    if (!r || !sp || !x || !y) return false;
    k->fp_cap = cap;
    return true;
}

/* Points c's ops at the model's kept cost and spare-cycle rows for their
 * records (both are functions of the record, its split and the regions
 * alone): the row of the op at the same place in the last choice when it
 * has the same record, else the row of that record, else a new one;
 * false: none (no cache, or out of memory). */
static bool fp_memo_keep(struct cc_costs *k, fp_ctx *c)
{
    if (!k) return false;
    int32_t n = c->n_ops;
    if (k->fp_n > 2 * n + FP_ROWS_MORE) {
        /* too many kept: start again */
        k->fp_n = 0;
        k->fp_npos = 0;
        npuc_hindex_free(&k->fp_ix);
    }
    if (!fp_rows_grow(k, k->fp_n + n)) return false;
    if (n > k->fp_pos_cap) {
        int32_t *p = realloc(k->fp_pos, sizeof *p * ((size_t)n + 1));
        if (!p) return false;
        k->fp_pos = p;
        k->fp_pos_cap = n;
    }
    for (int32_t i = 0; i < n; i++) {
        const fp_op *f = &c->ops[i];
        int32_t r = i < k->fp_npos ? k->fp_pos[i] : -1;
        if (r < 0 || r >= k->fp_n || k->fp_split[r] != f->split || memcmp(&k->fp_rec[r], &f->rec, sizeof f->rec)) {
            uint64_t h = npuc_hash(NPUC_HASH_INIT + f->split, &f->rec, sizeof f->rec);
            r = -1;
            for (int32_t x = npuc_hindex_first(&k->fp_ix, h); x >= 0 && r < 0; x = npuc_hindex_next(&k->fp_ix, x))
                if (k->fp_split[x] == f->split && !memcmp(&k->fp_rec[x], &f->rec, sizeof f->rec)) r = x;
            if (r < 0) {
                r = k->fp_n;
                if (!npuc_hindex_add(&k->fp_ix, h)) {
                    /* the index and the rows part: start again */
                    k->fp_n = 0;
                    k->fp_npos = 0;
                    npuc_hindex_free(&k->fp_ix);
                    return false;
                }
                k->fp_n++;
                k->fp_rec[r] = f->rec;
                k->fp_split[r] = f->split;
                memset(&k->fp_memo[(size_t)r * FP_MEMO], 0, sizeof *k->fp_memo * FP_MEMO);
                memset(&k->fp_spare[(size_t)r * FP_MEMO], 0, sizeof *k->fp_spare * FP_MEMO);
            }
        }
        k->fp_pos[i] = r;
    }
    k->fp_npos = n;
    for (int32_t i = 0; i < n; i++) {
        c->ops[i].memo = &k->fp_memo[(size_t)k->fp_pos[i] * FP_MEMO];
        c->ops[i].spare = &k->fp_spare[(size_t)k->fp_pos[i] * FP_MEMO];
    }
    return true;
}

/* Builds the op records and the buffer -> ops index. */
static int fp_init(fp_ctx *c, const cc_model *m, uint8_t *in_fast)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->in_fast = in_fast;
    const sim_system *s = &m->opt.sys.sim;
    const sim_memory *pm = &s->axi[s->region_port[0] & 1], *am = &s->axi[s->region_port[1] & 1];
    /* cc.c drop_slow_copies: a copy in an arena no faster than the params is dropped */
    c->wcopy_else = pm->clock_scale * pm->width_bytes < am->clock_scale * am->width_bytes ? 1 : 0;

    int32_t n = 0, nb = m->n_bufs;
    for (int32_t ei = 0; ei < m->n_epochs; ei++)
        if (m->epochs[ei].kind == CC_EPOCH_HW) n += m->epochs[ei].n_eu;
    c->ops = malloc(sizeof *c->ops * ((size_t)n + 1));   /* every field set below */
    c->first = calloc((size_t)nb + 2, sizeof *c->first);
    c->list = malloc(sizeof *c->list * ((size_t)n * 4 + 1));
    c->dlt = malloc((size_t)n * 4 + 1);
    c->code = malloc((size_t)n + 1);
    if (!c->ops || !c->first || !c->list || !c->dlt || !c->code) return NPUC_E_NOMEM;
    for (int32_t ei = 0; ei < m->n_epochs; ei++) {
        const cc_epoch *e = &m->epochs[ei];
        if (e->kind != CC_EPOCH_HW) continue;
        for (int32_t k = 0; k < e->n_eu; k++) {
            const eu_op *o = &e->ops[k];
            fp_op *f = &c->ops[c->n_ops++];
            op_record(o, &f->rec);
            f->prev = k > 0 ? c->n_ops - 2 : -1;
            f->k = k;
            f->one_block = o->blk.w >= o->ofm.w && o->blk.h >= o->ofm.h;
            f->buf[0] = o->ifm.buf;
            f->buf[1] = o->kind == SIM_K_ELEMENTWISE && o->ifm2_tensor ? o->ifm2.buf : -1;
            f->buf[2] = o->ofm.buf;
            f->buf[3] = (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) ? o->wbuf : -1;
            for (int j = 0; j < 4; j++) {
                if (f->buf[j] >= nb) f->buf[j] = -1;
                /* count each buffer once per op */
                for (int i = 0; i < j && f->buf[j] >= 0; i++)
                    if (f->buf[i] == f->buf[j]) f->buf[j] = -1 - 1 - f->buf[j];
            }
        }
    }
    /* an operand repeated within one op was stored as -2 - b: restore it
     * for the regions, index the op once */
    for (int32_t i = 0; i < c->n_ops; i++)
        for (int j = 0; j < 4; j++)
            if (c->ops[i].buf[j] >= 0) c->first[c->ops[i].buf[j] + 1]++;
    for (int32_t b = 0; b < nb; b++) c->first[b + 1] += c->first[b];
    int32_t *at = malloc(sizeof *at * ((size_t)nb + 1));
    if (!at) return NPUC_E_NOMEM;
    memcpy(at, c->first, sizeof *at * (size_t)nb);
    for (int32_t i = 0; i < c->n_ops; i++)
        for (int j = 0; j < 4; j++) {
            int32_t b = c->ops[i].buf[j];
            if (b >= 0) c->list[at[b]++] = i;
            else if (b <= -2) c->ops[i].buf[j] = -2 - b;
        }
    free(at);
    /* each entry's column step (every slot of the op that names the
     * buffer: out of the pool 1, or wcopy_else for the weights, in 2) and
     * each op's column */
    for (int32_t b = 0; b < nb; b++)
        for (int32_t j = c->first[b]; j < c->first[b + 1]; j++) {
            const fp_op *f = &c->ops[c->list[j]];
            unsigned d = 0;
            for (int k = 0; k < 4; k++)
                if (f->buf[k] == b) d += fp_weight[k] * (2u - (k == 3 ? c->wcopy_else : 1u));
            c->dlt[j] = (uint8_t)d;
        }
    for (int32_t i = 0; i < c->n_ops; i++) c->code[i] = (uint8_t)fp_col(c, i, -1);
    for (int32_t i = 0; i < c->n_ops; i++) {
        fp_op *f = &c->ops[i];
        int32_t w = f->buf[3];
        f->split = w >= 0 && w < nb && m->bufs[w].wcopy && f->rec.weight_bytes &&
                   m->bufs[w].size == ((f->rec.scale_bytes + 15) & ~(uint64_t)15);
    }
    /* without memory for the memos every cost is worked out each time */
    if (!fp_memo_keep(m->costs, c)) {
        c->memo = calloc((size_t)c->n_ops * FP_MEMO + 1, sizeof *c->memo);
        c->spare_memo = calloc((size_t)c->n_ops * FP_MEMO + 1, sizeof *c->spare_memo);
        for (int32_t i = 0; i < c->n_ops; i++) {
            c->ops[i].memo = c->memo ? &c->memo[(size_t)i * FP_MEMO] : NULL;
            c->ops[i].spare = c->spare_memo ? &c->spare_memo[(size_t)i * FP_MEMO] : NULL;
        }
    }
    c->dma_memo = calloc((size_t)nb + 1, sizeof *c->dma_memo);
    for (int32_t i = 0; i < c->n_ops; i++) {
        c->ops[i].cost = fp_cost(c, i);
        c->ops[i].nxw = i + 1 < c->n_ops && c->ops[i + 1].prev == i ? c->ops[i + 1].buf[3] : -1;
    }
    int32_t most = 0;
    for (int32_t b = 0; b < nb; b++)
        if (c->first[b + 1] - c->first[b] > most) most = c->first[b + 1] - c->first[b];
    c->nowv = malloc(sizeof *c->nowv * ((size_t)most + 1));
    return NPUC_OK;
}

static void fp_free(fp_ctx *c)
{
    free(c->memo);
    free(c->spare_memo);
    free(c->dma_memo);
    free(c->ops);
    free(c->first);
    free(c->list);
    free(c->dlt);
    free(c->code);
    free(c->nowv);
}

uint64_t cc_placed_cycles(const cc_model *m)
{
    size_t nn = (size_t)(m->n_bufs ? m->n_bufs : 1);
    uint8_t *in_fast = calloc(nn, 1);
    if (!in_fast) return 0;
    for (int32_t b = 0; b < m->n_bufs; b++) in_fast[b] = m->bufs[b].pool == CC_IN_FAST;
    fp_ctx c;
    uint64_t sum = 0;
    if (fp_init(&c, m, in_fast) == NPUC_OK)
        for (int32_t i = 0; i < c.n_ops; i++) sum += c.ops[i].cost;
    fp_free(&c);
    free(in_fast);
    return sum;
}

/* A max-heap of (cycles saved per byte, buffer). */
typedef struct fp_item { double d; int32_t b; } fp_item;

static void heap_push(fp_item *h, int32_t *n, fp_item x)
{
    int32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].d < x.d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static fp_item heap_pop(fp_item *h, int32_t *n)
{
    fp_item top = h[0], x = h[--*n];
    int32_t i = 0;
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, big = i;
        double bd = x.d;
        if (l < *n && h[l].d > bd) big = l, bd = h[l].d;
        if (r < *n && h[r].d > bd) big = r;
        if (big == i) break;
        h[i] = h[big];
        i = big;
    }
    if (*n) h[i] = x;
    return top;
}

/* The lowest 16-byte aligned offset where buffer b fits beside the buffers
 * of `set` (n of them) that are live at the same time. */
typedef struct ff_index {
    cc_timeline tl;           /* the chosen buffers by live range */
    bool ok;                  /* false: scan `set` instead */
    int32_t *near;
    const uint8_t *in_fast;   /* the chosen set (with the index) */
} ff_index;

static uint64_t first_fit(const cc_model *m, const int32_t *set, int32_t n, int32_t b, span *sp, ff_index *fi)
{
    const cc_buf *x = &m->bufs[b];
    int32_t ns = 0;
    /* the index lists each chosen buffer in the blocks of its range (and
     * may list some no longer chosen) */
    if (fi->ok) n = cc_tl_query(&fi->tl, x->first, x->last, fi->near);
    for (int32_t j = 0; j < n; j++) {
        if (fi->ok && !fi->in_fast[fi->near[j]]) continue;
        const cc_buf *y = &m->bufs[fi->ok ? fi->near[j] : set[j]];
        if (y->first <= x->last && x->first <= y->last && y->size)
            sp[ns++] = (span){(uint64_t)y->offset, (uint64_t)y->offset + y->size};
    }
    cc_sort_spans(sp, (size_t)ns);
    uint64_t off = 0;
    for (int32_t j = 0; j < ns; j++) {
        if (off + x->size <= sp[j].lo) break;
        if (sp[j].hi > off) off = (sp[j].hi + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
    }
    return off;
}

/* Takes out of the fast pool, the latest first, every buffer of
 * chosen[0 .. n_check) that saves no cycles given the others (one chosen
 * early may save nothing once others joined it: its op became
 * compute-bound, or its traffic is better on the other port beside
 * theirs; a feature map whose own ops get no faster in sum); returns the
 * new count (the order of the rest kept). */
static int32_t prune(cc_model *m, fp_ctx *c, int32_t *chosen, int32_t nc, int32_t n_check)
{
    for (int32_t k = n_check - 1; k >= 0; k--) {
        int32_t b = chosen[k];
        fp_set(c, b, 0);
        fp_recost(c, b);
        /* a feature map must also make its own ops faster in sum
         * (cc_placed_cycles falls): one that slows one of them down more
         * than it speeds another up gains on the model only by hiding
         * more of the next weight DMA behind the slower op
         * (tflm_custom_model_rf_keras ethos-u65-256 with 32 KiB chunks) */
        int64_t own = 0;   /* what its ops gain in sum */
        if (fp_gain_at(c, b, &own, c->nowv) > 0 && (m->bufs[b].wcopy || own > 0)) {
            /* back in: its ops cost what they did with it (fp_gain_at) */
            fp_set(c, b, 1);
            if (c->nowv) {
                for (int32_t j = c->first[b]; j < c->first[b + 1]; j++)
                    c->ops[c->list[j]].cost = c->nowv[j - c->first[b]];
            } else {
                fp_recost(c, b);
            }
            continue;
        }
        m->bufs[b].pool = CC_IN_ARENA;
        memmove(chosen + k, chosen + k + 1, sizeof *chosen * (size_t)(nc - k - 1));
        nc--;
    }
    return nc;
}

/* How evict_for makes room: window (else every chosen buffer live beside
 * the newcomer goes out, if they save less in sum); narrowed: a window
 * kept some that the whole set would have put out. */
typedef struct fp_evict { bool window, narrowed; } fp_evict;

/* When buffer b (saving g) finds no room within the pool (cap bytes): of
 * the chosen buffers live at the same time as b (each one's saving worked
 * out given the others, as prune does), those in the window of b's size
 * whose savings sum to the least (windows start at 0 and at the end of
 * each of them) go back to the arena if together they save less than g,
 * so that b may take their bytes; the others live beside b keep their
 * places (a long-lived small buffer elsewhere in the pool need not make
 * way). Their ops are costed again and they go back on the heap (each may
 * fit beside b later). `gain` and `sp` hold n_bufs entries (scratch). Returns
 * whether any went out. */
static bool evict_for(cc_model *m, fp_ctx *c, int32_t *chosen, int32_t *nc, int32_t b, int64_t g, uint64_t cap,
                      fp_item *heap, int32_t *nh, int64_t *gain, span *sp, fp_evict *ev)
{
    const cc_buf *x = &m->bufs[b];
    int32_t nl = 0;
    int64_t total = 0;
    for (int32_t k = 0; k < *nc; k++) {
        int32_t y = chosen[k];
        const cc_buf *z = &m->bufs[y];
        if (z->first > x->last || x->first > z->last) continue;
        fp_set(c, y, 0);
        fp_recost(c, y);
        int64_t gy = fp_gain(c, y);
        fp_set(c, y, 1);
        fp_recost(c, y);
        gain[y] = gy > 0 ? gy : 0;
        total += gain[y];
        sp[nl++] = (span){(uint64_t)z->offset, (uint64_t)z->offset + z->size};
    }
    if (!nl) return false;
    /* the cheapest window: [lo, lo + size) within cap */
    uint64_t best_lo = 0, best_hi = UINT64_MAX;
    int64_t best = ev->window ? -1 : total;
    for (int32_t w = -1; w < nl && ev->window; w++) {
        uint64_t lo = w < 0 ? 0 : (sp[w].hi + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
        if (lo + x->size > cap) continue;
        int64_t sum = 0;
        for (int32_t k = 0, j = 0; k < *nc && (best < 0 || sum < best); k++) {
            const cc_buf *z = &m->bufs[chosen[k]];
            if (z->first > x->last || x->first > z->last) continue;
            if (sp[j].lo < lo + x->size && lo < sp[j].hi) sum += gain[chosen[k]];
            j++;
        }
        if (best < 0 || sum < best) best = sum, best_lo = lo, best_hi = lo + x->size;
    }
    if (best < 0 || best >= g) return false;
    if (total < g) ev->narrowed = true;   /* all of them would have gone */
    int32_t w = 0, n0 = *nc;
    int32_t *out = chosen + n0;   /* room: chosen holds 2 n_bufs entries */
    int32_t no = 0;
    for (int32_t k = 0; k < n0; k++) {
        int32_t y = chosen[k];
        cc_buf *z = &m->bufs[y];
        if (z->first > x->last || x->first > z->last || (uint64_t)z->offset >= best_hi ||
            best_lo >= (uint64_t)z->offset + z->size) {
            chosen[w++] = y;
            continue;
        }
        fp_set(c, y, 0);
        z->pool = CC_IN_ARENA;
        fp_recost(c, y);
        out[no++] = y;
    }
    *nc = w;
    for (int32_t k = 0; k < no; k++) {
        int32_t y = out[k];
        int64_t gy = fp_gain(c, y);
        if (gy > 0) heap_push(heap, nh, (fp_item){(double)gy / (double)m->bufs[y].size, y});
    }
    return no > 0;
}

/* Chooses the buffers of the fast pool: among the candidates (ok), by
 * cycles saved per byte, highest first, each where it fits within the
 * pool's size (cap, 0 = no limit) beside those already chosen. A buffer's
 * saving is what the cycle model gives for its ops (each alone: compute
 * against memory per port) with it in the fast pool instead of the arena,
 * given the choice so far; it is worked out again when it comes up (a
 * saving only shrinks as its ops' other operands move in), and a buffer
 * that saves nothing stays in the arena. Sets bufs[].pool and the fast
 * pool's offsets; returns its peak. */
static int choose_fast(cc_model *m, const bool *ok, uint64_t cap, const int32_t *idx, span *sp, fp_evict *ev,
                       uint64_t *cost_out, uint64_t *peak_out, uint64_t *placed_out)
{
    int32_t n = m->n_bufs;
    size_t nn = (size_t)(n ? n : 1);
    uint8_t *in_fast = calloc(nn, 1);
    uint8_t *evicted = calloc(nn, 1);
    fp_item *heap = malloc(sizeof *heap * 2 * nn);
    int32_t *chosen = malloc(sizeof *chosen * 2 * nn);
    int64_t *off = malloc(sizeof *off * nn);
    fp_ctx c;
    int rc = !in_fast || !evicted || !heap || !chosen || !off ? NPUC_E_NOMEM : fp_init(&c, m, in_fast);
    if (rc) {
        if (in_fast && evicted && heap && chosen && off) fp_free(&c);
        free(in_fast);
        free(evicted);
        free(heap);
        free(chosen);
        free(off);
        return rc;
    }
    ff_index fi;
    memset(&fi, 0, sizeof fi);
    fi.in_fast = in_fast;
    fi.near = malloc(sizeof *fi.near * nn);
    fi.ok = fi.near && cc_tl_init(&fi.tl, m);
    int32_t nh = 0, nc = 0;
    for (int32_t b = 0; b < n; b++) {
        m->bufs[b].pool = CC_IN_ARENA;
        const cc_buf *x = &m->bufs[b];
        if (!ok[b] || !x->size || x->size > cap) continue;
        int64_t g = fp_gain(&c, b);
        if (g > 0) heap_push(heap, &nh, (fp_item){(double)g / (double)x->size, b});
    }
    uint64_t peak = 0;
    while (nh > 0) {
        fp_item it = heap_pop(heap, &nh);
        cc_buf *x = &m->bufs[it.b];
        int64_t g = fp_gain(&c, it.b);
        if (g <= 0) continue;
        double d = (double)g / (double)x->size;
        if (nh > 0 && d < heap[0].d) {
            heap_push(heap, &nh, (fp_item){d, it.b});
            continue;
        }
        if (in_fast[it.b]) continue;
        uint64_t o = first_fit(m, chosen, nc, it.b, sp, &fi);
        if (o + x->size > cap) {
            /* no room: buffers live beside it that save less in sum go
             * out (a buffer makes room so once, so the choice ends) */
            if (evicted[it.b] || !evict_for(m, &c, chosen, &nc, it.b, g, cap, heap, &nh, off, sp, ev))
                continue;
            evicted[it.b] = 1;
            o = first_fit(m, chosen, nc, it.b, sp, &fi);
            if (o + x->size > cap) continue;
        }
        x->offset = (int64_t)o;
        x->pool = CC_IN_FAST;
        fp_set(&c, it.b, 1);
        chosen[nc++] = it.b;
        if (fi.ok) fi.ok = cc_tl_add(&fi.tl, it.b, x->first, x->last);
        if (o + x->size > peak) peak = o + x->size;
        fp_recost(&c, it.b);
    }
    nc = prune(m, &c, chosen, nc, nc);
    peak = 0;
    for (int32_t k = 0; k < nc; k++) {
        const cc_buf *x = &m->bufs[chosen[k]];
        if ((uint64_t)x->offset + x->size > peak) peak = (uint64_t)x->offset + x->size;
    }
    /* weight copies read once go where they take no bytes: in the holes
     * below the peak, for the prefetch pass to overlap their DMAs with
     * earlier ops (cc_place_weights drops them again where that does not
     * pay) */
    int32_t n_before_holes = nc;
    /* the chosen buffers' bytes live at each step (made once 8 copies found
     * no hole: where most do, an unrolled LSTM's thousands): they never
     * share a byte at one step, so a copy that needs more than the peak
     * leaves free at some step of its range finds no hole (NULL: ask
     * first_fit alone) */
    uint64_t *live = NULL;
    bool live_made = false;
    int32_t no_hole = 0;
    for (int32_t b = 0; b < n; b++) {
        cc_buf *x = &m->bufs[b];
        if (!ok[b] || !x->wcopy || in_fast[b] || !x->size || c.first[b + 1] - c.first[b] != 1 ||
            !c.ops[c.list[c.first[b]]].one_block || x->size > peak)   /* no room below the peak */
            continue;
        if (!live_made && no_hole >= 8) {
            live_made = true;
            int32_t t_max = 0;
            for (int32_t y = 0; y < n; y++)
                if (m->bufs[y].last > t_max) t_max = m->bufs[y].last;
            live = calloc((size_t)t_max + 2, sizeof *live);
            for (int32_t k = 0; live && k < nc; k++) {
                const cc_buf *y = &m->bufs[chosen[k]];
                live[y->first < 0 ? 0 : y->first] += y->size;
                live[y->last + 1] -= y->size;
            }
            for (int32_t t = 1; live && t <= t_max; t++) live[t] += live[t - 1];
        }
        int32_t t0 = x->first < 0 ? 0 : x->first, t1 = x->last;
        bool full = false;
        for (int32_t t = t0; live && t <= t1 && !full; t++) full = live[t] + x->size > peak;
        if (full) continue;
        uint64_t o = first_fit(m, chosen, nc, b, sp, &fi);
        if (o + x->size > peak) {
            no_hole++;
            continue;
        }
        x->offset = (int64_t)o;
        x->pool = CC_IN_FAST;
        fp_set(&c, b, 1);   /* its user's cost is left as it was */
        chosen[nc++] = b;
        if (fi.ok) fi.ok = cc_tl_add(&fi.tl, b, x->first, x->last);
        for (int32_t t = t0; live && t <= t1; t++) live[t] += x->size;
    }
    free(live);
    /* the copies in the holes may leave some buffer saving nothing */
    nc = prune(m, &c, chosen, nc, n_before_holes);
    /* weight copies read once whose DMA the ops before their user hide
     * in the params port's idle time (fp_spare) go in last, in stream
     * order, beside the rest (they evict nothing): where one raises the
     * peak, only when it saves at least FP_ONCE_RATE of the cycles per
     * pool's worth of growth (a copy of 24 KiB above a pool of 11 KiB
     * must save 3.3%) */
    uint64_t total = 0;
    for (int32_t i = 0; i < c.n_ops; i++) total += c.ops[i].cost;
    c.spare_hide = true;
    for (int32_t b = 0; b < n && !m->opt.no_once_hide; b++) {
        cc_buf *x = &m->bufs[b];
        if (!ok[b] || !x->wcopy || x->reload || in_fast[b] || !x->size || x->size > cap ||
            c.first[b + 1] - c.first[b] != 1 || !c.ops[c.list[c.first[b]]].one_block)
            continue;
        int64_t g = fp_gain(&c, b);
        if (g <= 0) continue;
        uint64_t o = first_fit(m, chosen, nc, b, sp, &fi);
        if (o + x->size > cap) continue;
        uint64_t grow = o + x->size > peak ? o + x->size - peak : 0;
        if (grow && (double)g * (double)peak < FP_ONCE_RATE * (double)grow * (double)total) continue;
        x->offset = (int64_t)o;
        x->pool = CC_IN_FAST;
        fp_set(&c, b, 1);
        chosen[nc++] = b;
        if (fi.ok) fi.ok = cc_tl_add(&fi.tl, b, x->first, x->last);
        if (o + x->size > peak) peak = o + x->size;
        for (int32_t j = c.first[b]; j < c.first[b + 1]; j++) {
            int32_t i = c.list[j];
            total -= c.ops[i].cost;
            c.ops[i].cost = fp_cost(&c, i);
            total += c.ops[i].cost;
        }
    }
    c.spare_hide = false;
    /* the chosen set again, largest first (as the arena): kept if it packs
     * no worse than the order of choice */
    for (int32_t k = 0; k < nc; k++) off[k] = m->bufs[chosen[k]].offset;
    uint64_t p2 = place(m, idx, n, CC_IN_FAST, sp);
    peak = (peak + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
    if (p2 > peak) {
        for (int32_t k = 0; k < nc; k++) m->bufs[chosen[k]].offset = off[k];
    } else {
        peak = p2;
    }
    *peak_out = peak;
    *cost_out = 0;
    for (int32_t i = 0; i < c.n_ops; i++) *cost_out += c.ops[i].cost;
    /* cc_placed_cycles of the choice (each op costed afresh: a copy in a
     * hole did not cost its user again) */
    *placed_out = 0;
    for (int32_t i = 0; i < c.n_ops; i++) *placed_out += fp_cost(&c, i);
    cc_tl_free(&fi.tl);
    free(fi.near);
    fp_free(&c);
    free(in_fast);
    free(evicted);
    free(heap);
    free(chosen);
    free(off);
    return NPUC_OK;
}

/* ------------------------------------------------ in-place elementwise */

/* Whether feature maps a and b address the same bytes in the same order:
 * every element of one lies where the same element of the other does. */
static bool same_positions(const eu_fm *a, const eu_fm *b)
{
    return a->off == b->off && a->h == b->h && a->w == b->w && a->c == b->c && a->c0 == b->c0 &&
           a->full_w == b->full_w && a->full_c == b->full_c && a->sx == b->sx && a->sy == b->sy &&
           a->sc == b->sc && a->bits == b->bits && a->format == b->format && !a->tile_h && !b->tile_h;
}

/* Whether the op at step s (its first and last) may write y over x, as
 * far as the buffers go: both arena buffers holding graph tensors (not an
 * op's internal buffer or weight copy), y first written there, x read there
 * last and written before. */
static bool may_take(const cc_buf *x, const cc_buf *y, int32_t s0, int32_t s1)
{
    return !x->temp && !x->wcopy && x->pool == CC_IN_ARENA && !y->temp && !y->wcopy && y->pool == CC_IN_ARENA &&
           y->size && y->first == s0 && x->last == s1 && x->first < s0;
}

/* The CPU's in-place pairs: graph op i, one the CPU runs whose kernel
 * reads element j of its input before it writes element j of its output,
 * in increasing j, with output element j ending no later than input
 * element j (cc_op_info.cpu_in_place, which cc_lower asks of the kernel:
 * k_op_in_place; QUANTIZE and CAST to a type no wider, SignalEnergy), may
 * write its output over the input it reads last, from the same first byte:
 * no element is overwritten before it is read. A CPU op's tensors lie at
 * their buffers' first bytes (emit_npurt.c); both must be arena buffers
 * that hold a graph tensor, the output first written by op i, and the
 * output no larger than the input (a chain's first buffer is its largest). A model input may be
 * overwritten: the application writes it before every run. A float input
 * of 4 bytes per element becomes an int8 tensor in its first quarter (the
 * KWS models' first op); the audio front end's FFT bins become their
 * energies, then int32 values, in the same bytes. Marks the pairs in
 * in_of / step0 as inplace_pairs does; returns their number. */
static int32_t cpu_inplace_pairs(const cc_model *m, const int32_t *t0, const int32_t *t1, int32_t *in_of,
                                 int32_t *step0)
{
    const graph *g = m->g;
    int32_t np = 0;
    for (int32_t b = 0; b < m->n_bufs; b++) in_of[b] = -1;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        const cc_op_info *oi = &m->ops[i];
        if (oi->npu || op->n_in != 1 || op->n_out != 1 || op->in[0] < 0 || op->out[0] < 0 || t0[i] != t1[i])
            continue;
        const graph_tensor *ti = &g->tensors[op->in[0]], *to = &g->tensors[op->out[0]];
        if (!oi->cpu_in_place || ti->data || ti->is_variable || to->is_variable) continue;
        int32_t bi = m->buf_of[op->in[0]], bo = m->buf_of[op->out[0]];
        if (bi < 0 || bo < 0 || bi == bo || in_of[bo] >= 0) continue;
        const cc_buf *x = &m->bufs[bi], *y = &m->bufs[bo];
        if (!may_take(x, y, t0[i], t1[i]) || x->brick || y->brick || x->size < y->size) continue;
        in_of[bo] = bi;
        step0[bo] = t0[i];
        np++;
    }
    return np;
}

/* The in-place pairs: graph op i, one elementwise NPU op outside any
 * cascade, whose OFM buffer (first written by it, in the arena) may take the
 * bytes of an IFM buffer (in the arena) it reads last: both of one size and
 * layout, the operand not broadcast and at the OFM's positions exactly
 * (same offset, extent, strides, element size, format), so the op reads
 * each element before it writes the result at the same address
 * (docs/ethos-u.md 5.8). in_of[bo] = bi for each pair, else -1; step0[bo]
 * the step of op i. Returns the number of pairs. */
static int32_t inplace_pairs(const cc_model *m, const int32_t *t0, const int32_t *t1, int32_t *in_of,
                             int32_t *step0)
{
    const graph *g = m->g;
    int32_t np = 0;
    for (int32_t b = 0; b < m->n_bufs; b++) in_of[b] = -1;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const cc_op_info *oi = &m->ops[i];
        if (!oi->npu || oi->n_eu != 1 || oi->cascade >= 0 || oi->epoch < 0 ||
            m->epochs[oi->epoch].kind != CC_EPOCH_HW || t0[i] != t1[i])
            continue;
        const eu_op *o = &m->epochs[oi->epoch].ops[oi->first_eu];
        if (o->kind != SIM_K_ELEMENTWISE || o->ofm.buf < 0) continue;
        int32_t bo = o->ofm.buf;
        const cc_buf *y = &m->bufs[bo];
        if (in_of[bo] >= 0) continue;
        const eu_fm *cand[2] = {&o->ifm, o->ifm2_tensor && !o->bcast_h && !o->bcast_w && !o->bcast_c ? &o->ifm2 : NULL};
        for (int k = 0; k < 2; k++) {
            const eu_fm *f = cand[k];
            if (!f || f->buf < 0 || f->buf == bo) continue;
            const cc_buf *x = &m->bufs[f->buf];
            if (!may_take(x, y, t0[i], t1[i]) || x->size != y->size || x->brick != y->brick ||
                !same_positions(f, &o->ofm))
                continue;
            in_of[bo] = f->buf;
            step0[bo] = t0[i];
            np++;
            break;
        }
    }
    return np;
}

/* Places the arena with the in-place pairs: each chain of pairs (an IFM
 * buffer, the OFM taking its bytes, the OFM of the next pair taking
 * those...) is placed as one buffer live over the chain's steps, and every
 * member gets its offset; the IFM's range then ends where the OFM's begins.
 * Kept only when the peak drops below `peak` (else every buffer is placed
 * as before and *peak is unchanged). */
static void place_inplace(cc_model *m, const int32_t *idx, int32_t n, span *sp, const int32_t *in_of,
                          const int32_t *step0, uint64_t *peak)
{
    size_t nn = (size_t)(n ? n : 1);
    int32_t *root = malloc(sizeof *root * nn);
    int32_t *last = malloc(sizeof *last * nn);
    int64_t *off = malloc(sizeof *off * nn);
    if (!root || !last || !off) {
        free(root);
        free(last);
        free(off);
        return;
    }
    for (int32_t b = 0; b < n; b++) {
        off[b] = m->bufs[b].offset;
        last[b] = m->bufs[b].last;
    }
    /* roots: an IFM chain's first buffer; buffers grow from their IFM, so
     * resolve by following in_of */
    for (int32_t b = 0; b < n; b++) {
        int32_t r = b, guard = 0;
        while (in_of[r] >= 0 && guard++ < n) r = in_of[r];
        root[b] = r;
    }
    for (int32_t b = 0; b < n; b++)
        if (root[b] != b) {
            cc_buf *r = &m->bufs[root[b]];
            if (m->bufs[b].last > r->last) r->last = m->bufs[b].last;
            m->bufs[b].pool = 0xFF;   /* placed with its root */
        }
    uint64_t p = place(m, idx, n, CC_IN_ARENA, sp);
    for (int32_t b = 0; b < n; b++) m->bufs[b].last = last[b];
    for (int32_t b = 0; b < n; b++)
        if (root[b] != b) {
            m->bufs[b].pool = CC_IN_ARENA;
            if (p < *peak) m->bufs[b].offset = m->bufs[root[b]].offset;
        }
    if (p < *peak) {
        *peak = p;
        for (int32_t b = 0; b < n; b++)
            if (in_of[b] >= 0) m->bufs[in_of[b]].last = step0[b] - 1;
    } else {
        for (int32_t b = 0; b < n; b++) m->bufs[b].offset = off[b];
    }
    free(root);
    free(last);
    free(off);
}

/* Variable tensors that only CPU ops read and write (an SVDF's state: no
 * NPU op, HW epoch or graph input or output names their buffer) leave the
 * arena for the state pool, each at its own 16-byte aligned offset there
 * (they live over every inference: nothing could share their bytes);
 * m->state_size is their sum. The arena then holds only what one inference
 * needs, so that models run one after another may share it, and TFLite
 * Micro, which keeps variable tensors in its own persistent area, is given
 * no scratch bytes it does not use (docs/compiler.md, Memory plan). Out of
 * memory: they stay in the arena. */
static void place_state(cc_model *m)
{
    const graph *g = m->g;
    m->state_size = 0;
    bool any = false;   /* most models have no variable: nothing to mark on each allocation */
    for (int32_t t = 0; t < g->n_tensors && !any; t++) any = g->tensors[t].is_variable && !g->tensors[t].data;
    if (!any) return;
    uint8_t *st = calloc((size_t)m->n_bufs + 1, 1);   /* 1 holds a variable, 2 something else names it */
    if (!st) return;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        int32_t b = m->buf_of[t];
        if (b >= 0 && g->tensors[t].is_variable && !g->tensors[t].data) st[b] |= 1;
    }
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] >= 0 && m->buf_of[g->inputs[i]] >= 0) st[m->buf_of[g->inputs[i]]] |= 2;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] >= 0 && m->buf_of[g->outputs[i]] >= 0) st[m->buf_of[g->outputs[i]]] |= 2;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const cc_op_info *oi = &m->ops[i];
        bool cpu = !oi->npu && oi->fused_into < 0 && oi->folded_into < 0 &&
                   (oi->epoch < 0 || m->epochs[oi->epoch].kind == CC_EPOCH_SW);
        if (cpu) continue;
        const graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            if (t >= 0 && m->buf_of[t] >= 0) st[m->buf_of[t]] |= 2;
        }
    }
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        if (st[b] != 1 || x->temp || x->wcopy || !x->size) continue;
        x->pool = CC_IN_STATE;
        x->offset = (int64_t)m->state_size;
        m->state_size = (m->state_size + x->size + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
    }
    free(st);
}

/* Chooses each buffer's pool and places both: the fast pool takes the
 * candidates (fast_candidates) that save cycles, by cycles saved per byte
 * within its size (choose_fast); the arena everything else. */
static int place_pools(cc_model *m, const int32_t *t0, const int32_t *t1, npuc_err *err)
{
    int32_t n = m->n_bufs;
    size_t nn = (size_t)(n ? n : 1);
    int32_t *idx = malloc(sizeof *idx * nn * 2);
    span *sp = malloc(sizeof *sp * nn);
    bool *ok = malloc(sizeof *ok * nn);
    if (!idx || !sp || !ok) {
        free(idx);
        free(sp);
        free(ok);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    if (!sort_idx(idx, n, m->bufs)) {
        free(idx);
        free(sp);
        free(ok);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    uint64_t cap = cc_fast_bytes(&m->opt);
    bool fast = cap != 0;
    m->fast_size = 0;
    int rc = NPUC_OK;
    if (fast) {
        fast_candidates(m, ok);
        /* room made by the cheapest window first; where that kept some
         * buffers the older rule (all live beside the newcomer out) would
         * have put out, that rule too, and the choice whose ops cost
         * fewer cycles on the model (then the smaller pool) kept: savings
         * worked out one buffer at a time do not add up exactly */
        fp_evict ev = {true, false};
        uint64_t cost = 0, placed = 0;
        rc = choose_fast(m, ok, cap, idx, sp, &ev, &cost, &m->fast_size, &placed);
        uint8_t *pool0 = ev.narrowed && !rc ? malloc(nn) : NULL;
        int64_t *off0 = pool0 ? malloc(sizeof *off0 * nn) : NULL;
        if (pool0 && off0) {
            for (int32_t i = 0; i < n; i++) pool0[i] = m->bufs[i].pool, off0[i] = m->bufs[i].offset;
            fp_evict all = {false, false};
            uint64_t cost1 = 0, size1 = 0, placed1 = 0;
            rc = choose_fast(m, ok, cap, idx, sp, &all, &cost1, &size1, &placed1);
            if (!rc && (cost < cost1 || (cost == cost1 && m->fast_size <= size1))) {
                for (int32_t i = 0; i < n; i++) m->bufs[i].pool = pool0[i], m->bufs[i].offset = off0[i];
            } else {
                m->fast_size = size1;
                placed = placed1;
            }
        } else if (pool0) {
            rc = NPUC_E_NOMEM;
        }
        free(pool0);
        free(off0);
        if (!rc && m->costs) {
            m->costs->placed = placed;
            m->costs->placed_ok = true;
        }
    } else {
        for (int32_t i = 0; i < n; i++) m->bufs[i].pool = CC_IN_ARENA;
    }
    for (int32_t i = 0; i < n; i++) m->bufs[i].over = 0;
    place_state(m);
    if (!rc) m->arena_size = place(m, idx, n, CC_IN_ARENA, sp);
    if (!rc && !m->opt.no_inplace) {
        int32_t *in_of = malloc(sizeof *in_of * nn * 2);
        int64_t *off = malloc(sizeof *off * nn);
        /* CPU ops over their inputs, where that leaves the peak no higher */
        int32_t *idx2 = in_of && off ? calloc(nn * 2, sizeof *idx2) : NULL;   /* zeroed: GCC -O2 cannot see that k == n fills it */
        if (idx2 && cpu_inplace_pairs(m, t0, t1, in_of, in_of + nn)) {
            /* each output placed right after its input, before smaller
             * buffers take the input's bytes at later steps */
            int32_t *child = idx2 + nn, k = 0;
            for (int32_t b = 0; b < n; b++) child[b] = -1;
            for (int32_t b = 0; b < n; b++) {
                off[b] = m->bufs[b].offset;
                if (in_of[b] >= 0) {
                    m->bufs[b].over = in_of[b] + 1;
                    child[in_of[b]] = b;
                }
            }
            for (int32_t i = 0; i < n; i++) {
                if (m->bufs[idx[i]].over) continue;
                for (int32_t b = idx[i], guard = 0; b >= 0 && guard <= n; b = child[b], guard++) idx2[k++] = b;
            }
            uint64_t p = k == n ? place(m, idx2, n, CC_IN_ARENA, sp) : UINT64_MAX;
            if (p <= m->arena_size) {
                m->arena_size = p;
                memcpy(idx, idx2, sizeof *idx * (size_t)n);
            } else {
                for (int32_t b = 0; b < n; b++) m->bufs[b].over = 0, m->bufs[b].offset = off[b];
            }
        }
        free(idx2);
        /* in-place elementwise ops, where they lower the arena's peak */
        if (in_of && inplace_pairs(m, t0, t1, in_of, in_of + nn))
            place_inplace(m, idx, n, sp, in_of, in_of + nn, &m->arena_size);
        free(in_of);
        free(off);
    }
    free(idx);
    free(sp);
    free(ok);
    return rc ? npuc_errf(err, NPUC_E_NOMEM, "out of memory") : NPUC_OK;
}

static int allocate(cc_model *m, npuc_err *err);

uint64_t cc_allocated_cycles(const cc_model *m)
{
    return m->costs && m->costs->placed_ok ? m->costs->placed : cc_placed_cycles(m);
}

int cc_allocate(cc_model *m, npuc_err *err)
{
    struct cc_costs *c = m->costs;
    if (c) c->placed_ok = false;
    if (!c || !c->am_on) return allocate(m, err);
    size_t ks = 0;
    uint8_t *key = am_key(m, &ks);
    if (!key) return allocate(m, err);
    uint64_t h = npuc_hash(NPUC_HASH_INIT, key, ks);
    for (int32_t i = 0; i < AM_CAP; i++) {
        const am_entry *x = &c->am[i];
        if (!x->key || x->hash != h || x->key_size != ks || memcmp(x->key, key, ks)) continue;
        free(key);
        memcpy(m->bufs, x->bufs, sizeof *m->bufs * (size_t)m->n_bufs);
        m->arena_size = x->arena;
        m->fast_size = x->fast;
        c->placed = x->placed;
        c->placed_ok = x->placed_ok;
        return NPUC_OK;
    }
    int rc = allocate(m, err);
    cc_buf *bufs = rc ? NULL : malloc(sizeof *bufs * ((size_t)m->n_bufs + 1));
    if (!bufs) {
        free(key);
        return rc;
    }
    memcpy(bufs, m->bufs, sizeof *bufs * (size_t)m->n_bufs);
    am_entry *x = &c->am[c->am_next];
    free(x->key);
    free(x->bufs);
    *x = (am_entry){h, key, ks, bufs, m->arena_size, m->fast_size, c->placed, c->placed_ok};
    c->am_next = (c->am_next + 1) % AM_CAP;
    return rc;
}

/* The steps temp buffer x of epoch x->epoch lives over, NPU-op granular:
 * from its first NPU op's step to its last's (t0: each graph op's first
 * step; a cascade's members run interleaved over the head's steps). */
static void temp_steps(const cc_model *m, const int32_t *t0, cc_buf *x)
{
    const cc_epoch *e = &m->epochs[x->epoch];
    int32_t a = e->ops[x->eu_first].src_op, z = e->ops[x->eu_last].src_op;
    if (m->ops[a].cascade >= 0) a = m->ops[a].cascade;
    if (m->ops[z].cascade >= 0) z = m->ops[z].cascade;
    x->first = t0[a] + (x->eu_first - m->ops[a].first_eu);
    x->last = t0[z] + (x->eu_last - m->ops[z].first_eu);
}

/* cc_allocate itself. */
static int allocate(cc_model *m, npuc_err *err)
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
            temp_steps(m, t0, x);
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
    int rc = place_pools(m, t0, t1, err);
    free(t0);
    free(t1);
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

uint64_t cc_state_bytes(const cc_model *m)
{
    uint64_t n = 0;
    for (int32_t t = 0; t < m->g->n_tensors; t++) {
        int32_t b = m->buf_of[t];
        if (!m->g->tensors[t].is_variable || b < 0 || m->bufs[b].pool != CC_IN_ARENA) continue;
        bool seen = false;   /* a buffer shared by several variables counts once */
        for (int32_t u = 0; u < t && !seen; u++) seen = m->g->tensors[u].is_variable && m->buf_of[u] == b;
        if (!seen) n += m->bufs[b].size;
    }
    return n;
}

/* ------------------------------------------------ scale-record copies */

/* Op o alone on the cycle model with its feature maps where they are, its
 * weight stream in region w_r and its scale records in region s_r. */
static uint64_t op_cycles_split(const cc_model *m, const eu_op *o, uint8_t w_r, uint8_t s_r)
{
    sim_op_info r;
    op_record(o, &r);
    r.ifm_region = cc_buf_region(m, o->ifm.buf);
    r.ifm2_region = o->ifm2_tensor ? cc_buf_region(m, o->ifm2.buf) : 0;
    r.ofm_region = cc_buf_region(m, o->ofm.buf);
    r.weight_region = w_r;
    r.scale_region = s_r;
    return price(m, &r);
}

/* Buffer indices: the fast-pool buffers a scale-record copy may meet. */
typedef struct sc_list {
    int32_t *ix, n, cap;
} sc_list;

static bool sc_push(sc_list *l, int32_t b)
{
    if (l->n == l->cap) {
        int32_t c2 = l->cap ? 2 * l->cap : 64;
        int32_t *p = realloc(l->ix, sizeof *p * (size_t)c2);
        if (!p) return false;
        l->ix = p;
        l->cap = c2;
    }
    l->ix[l->n++] = b;
    return true;
}

/* A buffer by its first step, for sorting. */
typedef struct sc_at {
    int32_t first, b;
} sc_at;

static int sc_by_first(const void *a, const void *b)
{
    const sc_at *x = a, *y = b;
    return x->first != y->first ? (x->first > y->first) - (x->first < y->first) : (x->b > y->b) - (x->b < y->b);
}

/* The lowest 16-byte aligned fast-pool offset where buffer b fits beside
 * the fast-pool buffers live at the same time, among `near` (the fast-pool
 * buffers that may be: a model's few among its thousands of buffers). */
static uint64_t scale_copy_fit(const cc_model *m, int32_t b, const sc_list *near, span *sp)
{
    const cc_buf *x = &m->bufs[b];
    int32_t ns = 0;
    for (int32_t i = 0; i < near->n; i++) {
        int32_t j = near->ix[i];
        const cc_buf *y = &m->bufs[j];
        if (j == b || y->pool != CC_IN_FAST || !y->size || y->offset < 0) continue;
        if (y->first <= x->last && x->first <= y->last)
            sp[ns++] = (span){(uint64_t)y->offset, (uint64_t)y->offset + y->size};
    }
    return lowest_fit(sp, ns, x->size);   /* which sorts them */
}

/* The least cycles a scale-record copy must save per byte it adds above
 * the fast pool's peak (beside FP_ONCE_RATE, which a pool of a few KiB
 * makes cheap): the records of a DRAM-bound or compute-bound layer save
 * tens of cycles per channel at most, a pool grown for them is seldom
 * worth it (cc_scale_copies). */
#define SC_CYCLES_PER_BYTE 1.0

/* Reverts the scale-record copies of epoch ei (buffers from nb0 on), each
 * op's block as it was (old[b - base]: the block before buffer b). */
static bool scale_copies_back(cc_model *m, int32_t ei, int32_t nb0, int32_t base, const eu_block *old)
{
    bool any = false;
    cc_epoch *e = &m->epochs[ei];
    for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
        eu_op *o = &e->ops[k];
        if (o->wbuf < nb0) continue;
        o->blk = old[o->wbuf - base];
        m->bufs[o->wbuf].size = 0;
        m->bufs[o->wbuf].pool = CC_IN_ARENA;
        o->wbuf = -1;
        any = true;
    }
    return any;
}

static uint64_t fast_peak(const cc_model *m, uint64_t floor)
{
    uint64_t peak = floor;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (x->pool == CC_IN_FAST && x->size && (uint64_t)x->offset + x->size > peak)
            peak = (uint64_t)x->offset + x->size;
    }
    return (peak + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
}

/* One round of cc_scale_copies: the copies to take (above the pool's peak
 * only with `grow`), the streams generated again, and an epoch that got no
 * faster gives its copies back. *n_added: copies kept. */
static int scale_copies_round(cc_model *m, const int32_t *t0, bool grow_ok, uint64_t *was, int32_t *nb0,
                              span **spp, eu_block *old, int32_t *n_added, npuc_err *err)
{
    uint64_t cap = cc_fast_bytes(&m->opt);
    uint64_t peak0 = m->fast_size, peak = peak0, total = m->npu_cycles;
    int32_t added = 0, base = m->n_bufs;
    *n_added = 0;
    /* the fast-pool buffers a candidate may meet (live): the placed ones
     * (placed, by first step) join as the candidates reach their first
     * step, the copies as they are taken; those that end before a
     * candidate begins leave (gone: the candidates come in step order, so
     * they end before every later one; a step back brings them back) */
    sc_list l[3] = {{0}};
    sc_list *placed = &l[0], *live = &l[1], *gone = &l[2];
    int32_t last_first = INT32_MIN, next = 0;
    int rc = NPUC_OK;
    /* the placed ones, by first step: they join `live` as the candidates
     * reach it */
    sc_at *at = malloc(sizeof *at * ((size_t)m->n_bufs + 1));
    int32_t n_at = 0;
    if (!at) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t b = 0; !rc && b < m->n_bufs; b++) {
        const cc_buf *y = &m->bufs[b];
        if (y->pool == CC_IN_FAST && y->size && y->offset >= 0) at[n_at++] = (sc_at){y->first, b};
    }
    if (n_at) qsort(at, (size_t)n_at, sizeof *at, sc_by_first);
    for (int32_t i = 0; !rc && i < n_at; i++)
        if (!sc_push(placed, at[i].b)) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    free(at);
    for (int32_t ei = 0; !rc && ei < m->n_epochs; ei++) {
        cc_epoch *e = &m->epochs[ei];
        was[ei] = e->cycles;
        nb0[ei] = m->n_bufs;
        for (int32_t k = 1; !rc && e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
            eu_op *o = &e->ops[k];
            if ((o->kind != SIM_K_CONV && o->kind != SIM_K_DEPTHWISE) || o->wbuf >= 0 || o->dual || !o->s_len ||
                !o->w_len)
                continue;
            int64_t gain = (int64_t)op_cycles_split(m, o, 0, 0) - (int64_t)op_cycles_split(m, o, 0, 2);
            if (gain <= 0) continue;
            /* the DMA runs beside the op before (eu_gen.c) */
            const eu_op *p = &e->ops[k - 1];
            uint8_t pw = cc_buf_region(m, p->wbuf);
            int64_t before = (int64_t)op_cycles_split(m, p, pw, pw);
            sim_op_info d;
            memset(&d, 0, sizeof d);
            d.kind = SIM_K_DMA;
            d.dma_src_region = 0;
            d.dma_dst_region = 2;
            d.dma_bytes = o->s_len;
            int64_t dma = (int64_t)sim_perf_estimate(m->opt.sys.variant, &m->opt.sys.sim, &d, 1);
            if (dma > before) gain -= dma - before;
            if (gain <= 0) continue;
            if (m->n_bufs == m->cap_bufs) {
                int32_t c2 = m->cap_bufs ? 2 * m->cap_bufs : 16;
                cc_buf *nb = realloc(m->bufs, sizeof *nb * (size_t)c2);
                if (nb) m->bufs = nb;
                span *s2 = nb ? realloc(*spp, sizeof *s2 * ((size_t)c2 + 1)) : NULL;
                if (s2) *spp = s2;
                if (!nb || !s2) {
                    rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
                    break;
                }
                m->cap_bufs = c2;
            }
            int32_t b = m->n_bufs;
            cc_buf *x = &m->bufs[b];
            memset(x, 0, sizeof *x);
            x->size = eu_wcopy_w_at(o);
            x->tensor = -1;
            x->temp = x->wcopy = true;
            x->epoch = ei;
            x->eu_first = k - 1;
            x->eu_last = k;
            x->op = o->src_op;
            x->pool = CC_IN_FAST;
            x->offset = -1;
            temp_steps(m, t0, x);
            for (; next < placed->n && !rc && m->bufs[placed->ix[next]].first <= x->last; next++)
                if (!sc_push(live, placed->ix[next])) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            if (x->first < last_first) {
                for (int32_t i = 0; i < gone->n && !rc; i++)
                    if (!sc_push(live, gone->ix[i])) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
                gone->n = 0;
            } else {
                int32_t n = 0;
                for (int32_t i = 0; i < live->n && !rc; i++) {
                    int32_t j = live->ix[i];
                    if (m->bufs[j].last >= x->first) live->ix[n++] = j;
                    else if (!sc_push(gone, j)) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
                }
                if (!rc) live->n = n;
            }
            if (rc) break;
            last_first = x->first;
            uint64_t off = scale_copy_fit(m, b, live, *spp);
            if (off + x->size > cap) continue;
            uint64_t grow = off + x->size > peak ? off + x->size - peak : 0;
            uint64_t worth = peak > ALIGN ? peak : ALIGN;
            if (grow && (!grow_ok || (double)gain < SC_CYCLES_PER_BYTE * (double)grow ||
                         (double)gain * (double)worth < FP_ONCE_RATE * (double)grow * (double)total))
                continue;
            x->offset = (int64_t)off;
            m->n_bufs++;
            if (!sc_push(live, b)) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            if (off + x->size > peak) peak = off + x->size;
            o->wbuf = b;
            /* its block for the records' new place (cc_reblock_placed's
             * invariant: no chooser's block faster on the placement) */
            old[b - base] = o->blk;
            cc_reblock_placed_op(m, o);
            added++;
        }
    }
    for (int i = 0; i < 3; i++) free(l[i].ix);
    if (rc || !added) return rc;
    m->fast_size = fast_peak(m, peak0);
    rc = cc_generate_all(m, err);
    if (rc) return rc;
    bool back = false;
    for (int32_t ei = 0; ei < m->n_epochs; ei++)
        if (m->epochs[ei].kind == CC_EPOCH_HW && m->epochs[ei].cycles >= was[ei])
            back |= scale_copies_back(m, ei, nb0[ei], base, old);
    if (back) {
        m->fast_size = fast_peak(m, peak0);
        if ((rc = cc_generate_all(m, err))) return rc;
    }
    /* the pool's growth weighed on the streams' own cycles */
    uint64_t grow = m->fast_size > peak0 ? m->fast_size - peak0 : 0;
    double saved = (double)total - (double)m->npu_cycles;
    if (grow && (saved < SC_CYCLES_PER_BYTE * (double)grow ||
                 saved * (double)(peak0 > ALIGN ? peak0 : ALIGN) < FP_ONCE_RATE * (double)grow * (double)total)) {
        for (int32_t ei = 0; ei < m->n_epochs; ei++) scale_copies_back(m, ei, nb0[ei], base, old);
        m->fast_size = peak0;
        return cc_generate_all(m, err);
    }
    for (int32_t b = nb0[0]; b < m->n_bufs; b++) *n_added += m->bufs[b].size != 0;
    return NPUC_OK;
}

/* An op that streams its weights from DRAM reads its scale records from
 * there too, and the cycle model charges each OFM block the memory's read
 * latency for them (10 x block depth x latency / 256 output cycles, Vela's
 * figure): 312 cycles per 16-channel block at DRAM's 500, where the op's
 * own work may be a few dozen cycles. A copy of the records alone (10 bytes
 * per channel) in the fast pool takes that away without holding the weight
 * stream, each byte of which is read once. Its DMA is issued as the op
 * before starts (eu_gen.c); the copy is live over the two ops. A copy is
 * taken where the op saves more than the part of the DMA the op before
 * does not hide, and above the pool's peak only where it saves
 * SC_CYCLES_PER_BYTE per byte of growth and FP_ONCE_RATE per pool's worth;
 * the streams are then generated again, an epoch that got no faster gives
 * its copies back, and where the growth does not pay on the streams' own
 * cycles, the copies are taken again in the holes below the peak only. */
int cc_scale_copies(cc_model *m, npuc_err *err)
{
    if (!cc_fast_bytes(&m->opt) || m->opt.no_scale_copies || m->opt.optimise != CC_OPT_PERFORMANCE) return NPUC_OK;
    const graph *g = m->g;
    int32_t *t0 = malloc(sizeof *t0 * ((size_t)g->n_ops + 1));
    uint64_t *was = malloc(sizeof *was * ((size_t)m->n_epochs + 1));
    int32_t *nb0 = malloc(sizeof *nb0 * ((size_t)m->n_epochs + 1));
    span *sp = malloc(sizeof *sp * ((size_t)m->cap_bufs + 1));
    int32_t n_eu = 0;
    for (int32_t i = 0; i < m->n_epochs; i++)
        if (m->epochs[i].kind == CC_EPOCH_HW) n_eu += m->epochs[i].n_eu;
    eu_block *old = malloc(sizeof *old * ((size_t)n_eu + 1));
    int rc = NPUC_OK;
    if (!t0 || !was || !nb0 || !sp || !old) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0, t = 0; !rc && i < g->n_ops; i++) {
        t0[i] = t;
        t += cc_op_steps(m, i);
    }
    for (int32_t i = 0; !rc && i < g->n_ops; i++)
        if (m->ops[i].cascade >= 0) t0[i] = t0[m->ops[i].cascade];
    int32_t kept = 0;
    if (!rc) rc = scale_copies_round(m, t0, true, was, nb0, &sp, old, &kept, err);
    if (!rc && !kept) rc = scale_copies_round(m, t0, false, was, nb0, &sp, old, &kept, err);
    free(t0);
    free(was);
    free(nb0);
    free(sp);
    free(old);
    return rc;
}
