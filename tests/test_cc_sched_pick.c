/* The schedule search's rule (cc_sched_pick, cc.c) on hand-made points:
 * never a pick another point beats on both cycles and SRAM; under a limit
 * only points that fit, else the least SRAM; within CC_CYCLE_SLACK of the
 * fewest cycles the least SRAM. And on random point sets: the pick is never
 * dominated and always fits when one fits. The lean default's rule
 * (cc_sched_lean): the least SRAM within 5% more cycles per halving of the
 * SRAM, never a point another beats on both figures. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <math.h>
#include <stdlib.h>

static bool dominated(const cc_sched_point *p, int32_t n, int32_t k)
{
    for (int32_t i = 0; i < n; i++)
        if (p[i].cycles < p[k].cycles && p[i].sram < p[k].sram) return true;
    return false;
}

static void test_hand(void)
{
    /* the fewest cycles wins when the others are much slower */
    cc_sched_point a[] = {{1000, 500}, {2000, 100}, {1500, 300}};
    CHECK(cc_sched_pick(a, 3, 0) == 0);
    /* under a limit of 300: the fastest of those that fit */
    CHECK(cc_sched_pick(a, 3, 300) == 2);
    CHECK(cc_sched_pick(a, 3, 100) == 1);
    /* nothing fits: the least SRAM */
    CHECK(cc_sched_pick(a, 3, 50) == 1);
    /* within the slack (1%) of the fewest: the least SRAM */
    cc_sched_point b[] = {{1000, 500}, {1005, 200}, {1011, 100}};
    CHECK(cc_sched_pick(b, 3, 0) == 1);
    /* equal cycles: the least SRAM; equal SRAM: the fewest cycles */
    cc_sched_point c[] = {{1000, 500}, {1000, 400}, {999, 400}};
    CHECK(cc_sched_pick(c, 3, 0) == 2);
    /* one point */
    CHECK(cc_sched_pick(a, 1, 10) == 0);
}

static void test_random(void)
{
    srand(7);
    int bad = 0, unfit = 0;
    for (int t = 0; t < 2000; t++) {
        cc_sched_point p[12];
        int32_t n = 1 + rand() % 12;
        for (int32_t i = 0; i < n; i++) {
            p[i].cycles = 10000 + (uint64_t)(rand() % 400);
            p[i].sram = 1000 + (uint64_t)(rand() % 1000);
        }
        uint64_t limit = rand() % 3 ? 0 : 1000 + (uint64_t)(rand() % 1000);
        int32_t k = cc_sched_pick(p, n, limit);
        bool fits_any = false;
        for (int32_t i = 0; i < n; i++) fits_any |= !limit || p[i].sram <= limit;
        if (k < 0 || k >= n) {
            bad++;
            continue;
        }
        if (fits_any && limit && p[k].sram > limit) unfit++;
        /* among the points that fit, none beats the pick on both */
        cc_sched_point q[12];
        int32_t m = 0, kk = -1;
        for (int32_t i = 0; i < n; i++)
            if (!limit || p[i].sram <= limit || !fits_any) {
                if (i == k) kk = m;
                q[m++] = p[i];
            }
        if (kk < 0 || dominated(q, m, kk)) bad++;
    }
    CHECK(bad == 0);
    CHECK(unfit == 0);
}

static void test_lean_hand(void)
{
    /* from 1000 cycles in 64 KiB: 32 KiB (one halving) for up to 5% more,
     * 16 KiB for up to 10% more, 8 KiB for up to 15% more */
    cc_sched_point a[] = {{1000, 65536}, {1050, 32768}, {1100, 16384}, {1151, 8192}};
    CHECK(cc_sched_lean(a, 4, 0) == 2);
    CHECK(cc_sched_lean(a, 2, 0) == 1);
    /* one cycle over the allowance */
    cc_sched_point b[] = {{1000, 65536}, {1051, 32768}};
    CHECK(cc_sched_lean(b, 2, 0) == 0);
    /* the allowance is from `from`, not compounded: a point far down may
     * be taken past one that is not */
    cc_sched_point c[] = {{1000, 65536}, {1060, 32768}, {1110, 8192}};
    CHECK(cc_sched_lean(c, 3, 0) == 2);
    /* more SRAM than `from` never counts, nor does fewer cycles at more */
    cc_sched_point d[] = {{1000, 4096}, {900, 8192}};
    CHECK(cc_sched_lean(d, 2, 0) == 0);
    /* equal SRAM: the fewer cycles; no SRAM at all: as if one byte */
    cc_sched_point e[] = {{1000, 4096}, {990, 4096}, {1700, 0}};
    CHECK(cc_sched_lean(e, 3, 0) == 1);
    cc_sched_point f[] = {{1000, 4096}, {1600, 0}};
    CHECK(cc_sched_lean(f, 2, 0) == 1);   /* 12 halvings: up to 1600 */
    CHECK(cc_sched_lean(a, 1, 0) == 0);
}

static void test_lean_random(void)
{
    srand(11);
    int bad = 0;
    for (int t = 0; t < 2000; t++) {
        cc_sched_point p[12];
        int32_t n = 1 + rand() % 12;
        for (int32_t i = 0; i < n; i++) {
            p[i].cycles = 10000 + (uint64_t)(rand() % 4000);
            p[i].sram = (uint64_t)(rand() % 70000);
        }
        int32_t from = cc_sched_pick(p, n, 0);
        int32_t k = cc_sched_lean(p, n, from);
        if (k < 0 || k >= n || p[k].sram > p[from].sram || dominated(p, n, k)) {
            bad++;
            continue;
        }
        /* within the allowance, and no point with less SRAM is */
        double h = p[k].sram >= p[from].sram ? 0 : log2((double)p[from].sram / (double)(p[k].sram ? p[k].sram : 1));
        if ((double)p[k].cycles > (double)p[from].cycles * (1 + h / CC_LEAN_PER_HALVING)) bad++;
        for (int32_t i = 0; i < n; i++) {
            if (p[i].sram >= p[k].sram) continue;
            double hi = log2((double)p[from].sram / (double)(p[i].sram ? p[i].sram : 1));
            if ((double)p[i].cycles <= (double)p[from].cycles * (1 + hi / CC_LEAN_PER_HALVING)) bad++;
        }
    }
    CHECK(bad == 0);
}

int main(void)
{
    test_hand();
    test_random();
    test_lean_hand();
    test_lean_random();
    TEST_MAIN_END();
}
