/* cc_allocate places each pool's buffers by a placement index (cc_alloc.c,
 * place_index): the buffers placed so far by live range in blocks of
 * steps, and per block the run of offsets from 0 that leaves nothing free,
 * below which a buffer spanning the block whole is not looked for. It must
 * place every buffer where the plain scan of all buffers placed before
 * does (place_scan), to the byte: checked on random live ranges of the
 * shapes models give (short feature maps, weight copies, an unrolled
 * LSTM's step outputs that live to the end stacked above the rest, buffers
 * of no bytes, of the other pool, written over their input).
 *
 * The timeline index (cc_tl_query) is held to its contract on random
 * ranges: each buffer once, every one whose added range meets the query's
 * among them. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_place_test.h"

/* One random set of n buffers over t steps; lstm: the step outputs to the end. */
static void one_case(int32_t n, int32_t t, bool lstm, bool overs)
{
    cc_buf *bufs = calloc((size_t)n, sizeof *bufs), *plain = calloc((size_t)n, sizeof *plain);
    int32_t *idx = malloc(sizeof *idx * (size_t)n);
    if (!bufs || !plain || !idx) {
        CHECK(false);
        free(bufs);
        free(plain);
        free(idx);
        return;
    }
    for (int32_t b = 0; b < n; b++) {
        cc_buf *x = &bufs[b];
        uint32_t kind = rnd(10);
        x->first = (int32_t)rnd((uint32_t)t) - (rnd(20) == 0 ? 1 : 0);
        if (lstm && kind < 3) {
            x->size = 10;
            x->last = t + 1;
        } else if (kind < 7) {
            x->size = 1 + rnd(rnd(4) ? 2048 : 40000);
            x->last = x->first + (int32_t)rnd(6);
        } else if (kind < 9) {
            x->size = 16 * (1 + rnd(256));
            x->last = x->first + (int32_t)rnd((uint32_t)t / 4 + 1);
        } else {
            x->size = rnd(3) ? 16 * (1 + rnd(64)) : 0;
            x->first = rnd(2) ? -1 : x->first;
            x->last = rnd(2) ? t + 1 : x->first + (int32_t)rnd((uint32_t)t);
        }
        if (kind == 9 && rnd(2)) {
            /* a graph input no op reads: live at step -1 alone */
            x->first = x->last = -1;
            x->size = 16 * (1 + rnd(2048));
        }
        if (x->first < -1) x->first = -1;
        if (x->last < x->first) x->last = x->first;
        if (!rnd(200)) {
            /* a range the wrong way round (placed as the scan does) */
            int32_t f = x->first;
            x->first = x->last + (int32_t)rnd(80);
            x->last = f;
        }
        x->pool = rnd(12) ? CC_IN_ARENA : CC_IN_FAST;
        x->offset = -1;
        idx[b] = b;
    }
    sort_bufs = bufs;
    qsort(idx, (size_t)n, sizeof *idx, by_size);
    if (overs) {
        /* a buffer written over one placed just before it, live beside it */
        for (int32_t i = 1; i < n; i++) {
            cc_buf *x = &bufs[idx[i]], *a = &bufs[idx[i - 1]];
            if (rnd(8) || a->over || a->pool != x->pool || x->size > a->size) continue;
            x->over = idx[i - 1] + 1;
            x->first = a->last;
            if (x->last < x->first) x->last = x->first;
        }
    }
    memcpy(plain, bufs, sizeof *bufs * (size_t)n);
    for (uint8_t pool = 0; pool < 2; pool++) {
        uint8_t p = pool ? CC_IN_FAST : CC_IN_ARENA;
        cc_model m1, m2;
        memset(&m1, 0, sizeof m1);
        memset(&m2, 0, sizeof m2);
        m1.bufs = bufs;
        m1.n_bufs = n;
        m2.bufs = plain;
        m2.n_bufs = n;
        uint64_t p1 = cc_place_pool(&m1, idx, n, p, false), p2 = cc_place_pool(&m2, idx, n, p, true);
        CHECK(p1 != UINT64_MAX);
        CHECK_EQ_INT(p1, p2);
    }
    int32_t bad = 0;
    for (int32_t b = 0; b < n; b++)
        if (bufs[b].offset != plain[b].offset) {
            if (!bad++)
                fprintf(stderr, "buffer %d (size %llu, steps %d..%d): offset %lld, plain %lld\n", b,
                        (unsigned long long)bufs[b].size, bufs[b].first, bufs[b].last, (long long)bufs[b].offset,
                        (long long)plain[b].offset);
        }
    CHECK_EQ_INT(bad, 0);
    free(bufs);
    free(plain);
    free(idx);
}

static void timeline_case(int32_t n, int32_t t)
{
    cc_buf *bufs = calloc((size_t)n, sizeof *bufs);
    int32_t *first = malloc(sizeof *first * (size_t)n * 2), *last = first ? first + n : NULL;
    int32_t *out = malloc(sizeof *out * ((size_t)n + 1));
    uint8_t *seen = calloc((size_t)n, 1);
    if (!bufs || !first || !out || !seen) {
        CHECK(false);
        free(bufs);
        free(first);
        free(out);
        free(seen);
        return;
    }
    for (int32_t b = 0; b < n; b++) {
        bufs[b].first = -1;
        bufs[b].last = t + 1;
    }
    cc_model m;
    memset(&m, 0, sizeof m);
    m.bufs = bufs;
    m.n_bufs = n;
    cc_timeline tl;
    CHECK(cc_tl_init(&tl, &m));
    /* some buffers added twice (a weight copy's wait and its own range) */
    for (int32_t b = 0; b < n; b++) {
        first[b] = (int32_t)rnd((uint32_t)t + 2) - 1;
        last[b] = first[b] + (int32_t)(rnd(4) ? rnd(40) : rnd((uint32_t)t));
        CHECK(cc_tl_add(&tl, b, first[b], last[b]));
        if (!rnd(5)) CHECK(cc_tl_add(&tl, b, last[b], last[b] + (int32_t)rnd(70)));
    }
    for (int32_t q = 0; q < 300; q++) {
        int32_t a = (int32_t)rnd((uint32_t)t + 2) - 1, z = a + (int32_t)rnd(q % 3 ? 50 : (uint32_t)t);
        int32_t nn = cc_tl_query(&tl, a, z, out);
        memset(seen, 0, (size_t)n);
        bool once = true;
        for (int32_t j = 0; j < nn; j++) {
            if (out[j] < 0 || out[j] >= n || seen[out[j]]) once = false;
            else seen[out[j]] = 1;
        }
        CHECK(once);
        int32_t missed = 0;
        for (int32_t b = 0; b < n; b++)
            if (first[b] <= z && a <= last[b] && !seen[b]) missed++;
        CHECK_EQ_INT(missed, 0);
    }
    cc_tl_free(&tl);
    free(bufs);
    free(first);
    free(out);
    free(seen);
}

int main(void)
{
    rng_state = 12345u;
    for (int32_t i = 0; i < 40; i++) {
        int32_t n = 20 + (int32_t)rnd(i < 30 ? 400 : 2500), t = 4 + (int32_t)rnd(i % 4 ? 300 : 1500);
        one_case(n, t, i % 2 == 0, i % 3 == 0);
    }
    for (int32_t i = 0; i < 10; i++) timeline_case(50 + (int32_t)rnd(1500), 10 + (int32_t)rnd(1200));
    printf("%d checks, %d failures\n", t_checks, t_failures);
    return t_failures ? 1 : 0;
}
