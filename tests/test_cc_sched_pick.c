/* The schedule search's rule (cc_sched_pick, cc.c) on hand-made points:
 * never a pick another point beats on both cycles and SRAM; under a limit
 * only points that fit, else the least SRAM; within CC_CYCLE_SLACK of the
 * fewest cycles the least SRAM. And on random point sets: the pick is never
 * dominated and always fits when one fits. */
#include "test.h"
#include "../src/compiler/cc.h"

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

int main(void)
{
    test_hand();
    test_random();
    TEST_MAIN_END();
}
