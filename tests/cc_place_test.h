/* What the placement tests share (test_cc_place_index.c, test_cc_compact.c):
 * a small random number generator (each test seeds rng_state in main) and
 * the allocator's placement order, larger first, then the one written
 * first, then by index (cc_alloc.c), over the buffers sort_bufs points
 * at. */
#ifndef CC_PLACE_TEST_H
#define CC_PLACE_TEST_H

#include "../src/compiler/cc.h"

#include <stdint.h>

static uint32_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return n ? (rng_state >> 8) % n : 0;
}

static const cc_buf *sort_bufs;

static int by_size(const void *a, const void *b)
{
    const cc_buf *x = &sort_bufs[*(const int32_t *)a], *y = &sort_bufs[*(const int32_t *)b];
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return *(const int32_t *)a < *(const int32_t *)b ? -1 : 1;
}

#endif
