/* The last placement of a compile (src/compiler/cc_compact.c): each pool's
 * buffers placed again in other orders than the allocator's largest-first,
 * kept where the pool gets smaller at no more NPU cycles.
 *
 * Placement level (a model of buffers alone, no ops): random live ranges
 * of the shapes models give, placed largest first as the allocator does,
 * some written over the buffer placed before them (same offset, ranges
 * that touch or overlap) as in-place ops are; after cc_compact each pool
 * is no larger than before, every buffer lies under its pool's size, two
 * buffers live at one step share no byte unless they were one such pair
 * (which still share their offset), and the buffers of the other pool and
 * of no bytes stay where they were. A fixed case, the shape of
 * tflm_audio_preprocessor_int8's arena (a 4-byte tensor live over the
 * whole model, placed last by size, lands on top of the big ones that come
 * and go under it), must come down to what its bytes need. Each random
 * case runs again from the same start under an SRAM limit 16 bytes below
 * what the pass gave without one: never larger, and on some cases the
 * longer climb the limit allows gets further down.
 *
 * Model level (the shared zoo's tflm_audio_preprocessor_int8 when present):
 * compiled with and without the pass for ethos-u55-128: the arena 2,896 B
 * without, 2,016 B with (its FFT bins, their energies and int32 values in
 * one buffer: CPU ops written over their inputs, cc_alloc.c), the same NPU
 * cycles, every command stream free of
 * hazards (tests/cc_hazard.h); armkws_basic_lstm_l_int8 under Vela 5.1's
 * 4,544 B (limit_case). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/tflite/tflite.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_place_test.h"

#include "cc_hazard.h"
#include "cc_test_npu.h"

static uint64_t last_arena0;   /* run_case's arena before the pass */
static int smaller;            /* random cases whose pools got smaller */
static int reached;            /* random cases a limit brought further down */

static uint64_t pool_top(const cc_buf *bufs, int32_t n, uint8_t pool)
{
    uint64_t top = 0;
    for (int32_t b = 0; b < n; b++)
        if (bufs[b].pool == pool && bufs[b].size && (uint64_t)bufs[b].offset + bufs[b].size > top)
            top = (uint64_t)bufs[b].offset + bufs[b].size;
    return (top + 15) & ~(uint64_t)15;
}

/* Places bufs largest first (both pools), compacts, and checks the
 * result; returns the arena's size after. */
/* Places bufs largest first (as the allocator), runs cc_compact on them
 * (its SRAM limit: limit, the arena the SRAM) and checks the placement;
 * returns the arena's size. */
static uint64_t run_case(cc_buf *bufs, int32_t n, uint64_t limit)
{
    cc_buf *before = malloc(sizeof *before * (size_t)n);
    int32_t *idx = malloc(sizeof *idx * (size_t)n);
    graph g;
    memset(&g, 0, sizeof g);
    cc_model m;
    memset(&m, 0, sizeof m);
    m.g = &g;
    m.bufs = bufs;
    m.n_bufs = n;
    npuc_err err = {0};
    if (limit) CHECK_EQ_INT(target_default(EU_U55_128, &m.opt.sys, &err), 0);
    if (!before || !idx) {
        CHECK(false);
        free(before);
        free(idx);
        return 0;
    }
    for (int32_t b = 0; b < n; b++) idx[b] = b;
    sort_bufs = bufs;
    qsort(idx, (size_t)n, sizeof *idx, by_size);
    m.arena_size = cc_place_pool(&m, idx, n, CC_IN_ARENA, false);
    m.fast_size = cc_place_pool(&m, idx, n, CC_IN_FAST, false);
    memcpy(before, bufs, sizeof *before * (size_t)n);
    const uint64_t arena0 = m.arena_size, fast0 = m.fast_size;
    last_arena0 = arena0;
    CHECK_EQ_INT(cc_compact(&m, limit, &err), 0);
    CHECK(m.arena_size <= arena0);
    if (!limit) smaller += m.arena_size < arena0 || m.fast_size < fast0;
    CHECK(m.fast_size <= fast0);
    CHECK(pool_top(bufs, n, CC_IN_ARENA) <= m.arena_size);
    CHECK(pool_top(bufs, n, CC_IN_FAST) <= m.fast_size);
    int32_t bad = 0;
    for (int32_t a = 0; a < n; a++) {
        const cc_buf *x = &bufs[a];
        CHECK(x->size == before[a].size && x->first == before[a].first && x->last == before[a].last &&
              x->pool == before[a].pool && x->over == before[a].over);
        if (!x->size) CHECK(x->offset == before[a].offset);
        for (int32_t b = a + 1; b < n; b++) {
            const cc_buf *y = &bufs[b];
            if (!x->size || !y->size || x->pool != y->pool) continue;
            bool steps = x->first <= y->last && y->first <= x->last;
            bool bytes = x->offset < y->offset + (int64_t)y->size && y->offset < x->offset + (int64_t)x->size;
            if (!steps || !bytes) continue;
            /* only a pair that shared its offset before, and still does */
            bool pair = before[a].offset == before[b].offset && x->offset == y->offset;
            if (!pair && !bad++)
                fprintf(stderr, "buffers %d and %d overlap: steps %d..%d / %d..%d, bytes %lld+%llu / %lld+%llu\n",
                        (int)a, (int)b, x->first, x->last, y->first, y->last, (long long)x->offset,
                        (unsigned long long)x->size, (long long)y->offset, (unsigned long long)y->size);
        }
    }
    CHECK_EQ_INT(bad, 0);
    uint64_t arena = m.arena_size;
    free(before);
    free(idx);
    return arena;
}

static void random_case(int32_t n, int32_t t)
{
    cc_buf *bufs = calloc((size_t)n, sizeof *bufs);
    if (!bufs) {
        CHECK(false);
        return;
    }
    for (int32_t b = 0; b < n; b++) {
        cc_buf *x = &bufs[b];
        uint32_t kind = rnd(10);
        x->first = (int32_t)rnd((uint32_t)t) - 1;
        if (kind < 2) {
            /* small and long-lived: scalars, states */
            x->size = 1 + rnd(rnd(2) ? 16 : 200);
            x->last = x->first + (int32_t)rnd((uint32_t)t);
        } else if (kind < 8) {
            x->size = 1 + rnd(rnd(4) ? 2048 : 20000);
            x->last = x->first + (int32_t)rnd(6);
        } else {
            x->size = rnd(5) ? 16 * (1 + rnd(128)) : 0;
            x->last = x->first + (int32_t)rnd((uint32_t)t / 3 + 1);
        }
        x->pool = rnd(6) ? CC_IN_ARENA : CC_IN_FAST;
        x->offset = -1;
    }
    /* in-place pairs: a buffer written over another (placed at its offset
     * after the first placement, as the allocator's in-place pass leaves
     * them), live right after it or beside it */
    int32_t *idx = malloc(sizeof *idx * (size_t)n);
    if (!idx) {
        CHECK(false);
        free(bufs);
        return;
    }
    for (int32_t b = 0; b < n; b++) idx[b] = b;
    sort_bufs = bufs;
    qsort(idx, (size_t)n, sizeof *idx, by_size);
    for (int32_t i = 1; i < n; i++) {
        cc_buf *x = &bufs[idx[i]], *a = &bufs[idx[i - 1]];
        if (rnd(6) || a->over || x->over || a->pool != x->pool || !x->size || x->size > a->size) continue;
        x->over = idx[i - 1] + 1;
        x->first = a->last + (int32_t)rnd(2);   /* back to back, or one step together */
        if (x->last < x->first) x->last = x->first;
    }
    free(idx);
    /* once without a limit, then from the same start under a limit just
     * below what that gave: the longer climb may get under it, and is
     * never worse */
    cc_buf *again = malloc(sizeof *again * (size_t)n);
    if (again) memcpy(again, bufs, sizeof *again * (size_t)n);
    uint64_t free_run = run_case(bufs, n, 0);
    if (again && free_run > 16) {
        uint64_t limited = run_case(again, n, free_run - 16);
        CHECK(limited <= free_run);
        reached += limited < free_run;
    }
    free(again);
    free(bufs);
}

/* tflm_audio_preprocessor_int8's arena on ethos-u55-128 (its buffers'
 * bytes and live steps as the compiler gives them): tensors of 960 to
 * 1,028 bytes that come and go in a chain, then smaller ones, and a
 * 4-byte scale live from step 2 to 10. Largest first puts the scale above
 * the chain's bytes, at 2,880 (a 2,896-byte arena); placed first, it
 * takes 16 bytes at the bottom and the arena needs 2,096. */
static void fixed_case(void)
{
    static const struct { uint64_t size; int32_t first, last; } b0[] = {
        {960, -1, 0}, {960, 0, 2},   {960, 2, 3},   {4, 2, 10},    {1028, 3, 4},  {1028, 4, 5},
        {1028, 5, 6}, {944, 6, 7},   {1028, 7, 8},  {1028, 8, 9},  {320, 9, 10},  {160, 10, 11},
        {160, 11, 12}, {160, 11, 12}, {160, 12, 13}, {80, 13, 14},  {160, 14, 15}, {160, 15, 16},
        {160, 16, 17}, {160, 17, 18}, {160, 18, 19}, {160, 19, 20}, {160, 20, 21}, {40, 21, 23},
    };
    enum { N = sizeof b0 / sizeof b0[0] };
    cc_buf bufs[N];
    memset(bufs, 0, sizeof bufs);
    for (int32_t b = 0; b < N; b++) {
        bufs[b].size = b0[b].size;
        bufs[b].first = b0[b].first;
        bufs[b].last = b0[b].last;
        bufs[b].tensor = -1;
        bufs[b].offset = -1;
    }
    CHECK_EQ_INT(run_case(bufs, N, 0), 2096);
    CHECK_EQ_INT(last_arena0, 2896);
}

static void model_case(void)
{
    char path[1024];
    if (!t_shared("models/zoo/tflm_audio_preprocessor_int8.tflite", path, sizeof path)) {
        printf("skip: shared zoo model tflm_audio_preprocessor_int8 absent\n");
        return;
    }
    tfl_model *tm = NULL;
    graph *g = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err)) {
        CHECK(false);
        fprintf(stderr, "%s: %s\n", path, err.msg);
        tfl_model_free(tm);
        return;
    }
    cc_model *cm[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        cc_options opt = {.optimise = CC_OPT_PERFORMANCE, .no_compact = k == 0};
        CHECK_EQ_INT(target_default(EU_U55_128, &opt.sys, &err), 0);
        CHECK_EQ_INT(cc_compile(g, &opt, &cm[k], &err), 0);
    }
    if (cm[0] && cm[1]) {
        CHECK_EQ_INT(cm[0]->arena_size, 2896);
        CHECK_EQ_INT(cm[1]->arena_size, 2016);
        CHECK_EQ_INT(cm[1]->npu_cycles, cm[0]->npu_cycles);
        CHECK(cc_hazard_model(cm[1], EU_U55_128, "tflm_audio_preprocessor_int8 compacted"));
    }
    cc_model_free(cm[0]);
    cc_model_free(cm[1]);
    graph_free(g);
    tfl_model_free(tm);
}

/* armkws_basic_lstm_l_int8 under --arena-cache-size 4544 (Vela 5.1's
 * SRAM for it) on ethos-u55-128: the least SRAM the search finds is
 * placed in 4,560 bytes, and only the longer climb a limit allows brings it
 * under; compiled, hazard-free and bit-exact with the reference. Under a
 * limit no placement meets (16 bytes) the climb goes for the bytes live at
 * one step, and the error names the same 4,544 bytes (it named the first
 * placement's 4,560 until 2026-11-28). */
static void limit_case(void)
{
    const char *rel = "models/zoo/armkws_basic_lstm_l_int8.tflite";
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sram_limit = 4544;
    if (cc_compile_shared_with(rel, EU_U55_128, opt, &tm, &g, &cm)) {
        printf("%s ethos-u55-128 under 4544 B: %llu B SRAM, %llu NPU cycles\n", rel,
               (unsigned long long)cc_sram_bytes(cm), (unsigned long long)cm->npu_cycles);
        CHECK(cc_sram_bytes(cm) <= 4544);
        CHECK(cc_hazard_model(cm, EU_U55_128, rel));
        cc_draws d = {.n_draws = 1, .seed = 3, .fill = cc_fill_bytes};
        CHECK(cc_check_draws(rel, g, cm, EU_U55_128, &d));
        cc_model *none = NULL;
        npuc_err e = {0};
        opt.sram_limit = 16;
        CHECK(cc_compile_for(g, EU_U55_128, opt, &none, &e) == NPUC_E_UNSUPPORTED);
        CHECK(none == NULL);
        CHECK(strstr(e.msg, "needs at least 4544 bytes of SRAM") != NULL);
        printf("%s ethos-u55-128 under 16 B: %s\n", rel, e.msg);
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    rng_state = 777u;
    fixed_case();
    for (int32_t i = 0; i < 60; i++) random_case(4 + (int32_t)rnd(i < 40 ? 40 : 300), 3 + (int32_t)rnd(i < 40 ? 30 : 120));
    printf("%d of 61 cases placed in fewer bytes; under a limit 16 bytes below, %d of 60 further down\n", smaller,
           reached);
    CHECK(smaller > 1);
    CHECK(reached > 0);
    model_case();
    limit_case();
    TEST_MAIN_END();
}
