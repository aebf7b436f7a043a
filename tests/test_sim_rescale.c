/* The virtual NPU's output-stage rescale without __int128 (what 32-bit
 * targets such as the Cortex-M55 example build) and its 64-bit form for
 * small accumulators against the __int128 form, on edge values and two
 * million random ones, for every rounding mode. */
#include "test.h"
#include "sim/sim_rescale.h"
#include "util/util.h"

#include <inttypes.h>

#if SIM_HAVE_INT128
static int n_shown;

static void check_one(int64_t acc, uint32_t m, unsigned s, unsigned round)
{
    int64_t want = sim_rescale_int128(acc, m, s, round);
    int64_t got = sim_rescale_portable(acc, m, s, round), fast = sim_rescale_fast(acc, m, s, round);
    t_checks++;
    if (want != fast) {
        t_failures++;
        if (n_shown++ < 20)
            fprintf(stderr, "rescale(%" PRId64 ", %" PRIu32 ", %u, round %u): 64-bit %" PRId64
                    ", int128 %" PRId64 "\n", acc, m, s, round, fast, want);
    }
    if (want != got) {
        t_failures++;
        if (n_shown++ < 20)
            fprintf(stderr, "rescale(%" PRId64 ", %" PRIu32 ", %u, round %u): portable %" PRId64
                    ", int128 %" PRId64 "\n", acc, m, s, round, got, want);
    }
}

static void check_shl(int64_t a, unsigned sh)
{
    __int128 t = (__int128)a * ((__int128)1 << sh);
    int64_t want = t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
    CHECK_EQ_INT(sim_shl_sat(a, sh), want);
}
#endif

int main(void)
{
#if SIM_HAVE_INT128
    static const int64_t accs[] = {
        0, 1, -1, 2, -2, 3, -3, 127, -128, 32767, -32768, (1 << 30), -(1 << 30),
        INT32_MAX, INT32_MIN, (int64_t)1 << 39, -((int64_t)1 << 39), ((int64_t)1 << 40) - 1,
        INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (int64_t)1 << 62, -((int64_t)1 << 62)
    };
    static const uint32_t ms[] = { 0, 1, 2, 3, 0x40000000u, 0x7FFFFFFFu, 0x80000000u,
                                   0xFFFFFFFFu, 12345u, 0x5A5A5A5Au };
    for (size_t i = 0; i < sizeof accs / sizeof accs[0]; i++)
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
            for (unsigned s = 0; s < 64; s++)
                for (unsigned r = 0; r < 3; r++) check_one(accs[i], ms[j], s, r);
    /* ties: acc * m = k * 2^s + 2^(s-1) */
    for (unsigned s = 1; s < 40; s++)
        for (int64_t k = -5; k <= 5; k++)
            for (unsigned r = 0; r < 3; r++)
                check_one(k * ((int64_t)1 << s) + ((int64_t)1 << (s - 1)), 1, s, r);
    npuc_rng rng;
    npuc_rng_seed(&rng, 55);
    for (int i = 0; i < 1000000; i++) {
        uint64_t x = npuc_rng_next(&rng);
        int64_t acc = (int64_t)x >> (npuc_rng_next(&rng) % 64);
        uint32_t m = (uint32_t)npuc_rng_next(&rng);
        unsigned s = (unsigned)(npuc_rng_next(&rng) % 64);
        check_one(acc, m, s, (unsigned)(i % 3));
    }
    /* the 64-bit form's edges: |acc| about 2^30, every shift */
    for (int64_t a = ((int64_t)1 << 30) - 3; a <= ((int64_t)1 << 30) + 2; a++)
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
            for (unsigned s = 0; s < 64; s++)
                for (unsigned r = 0; r < 3; r++) check_one(a, ms[j], s, r), check_one(-a, ms[j], s, r);
    for (int i = 0; i < 1000000; i++) {
        int64_t acc = (int64_t)(npuc_rng_next(&rng) % ((uint64_t)1 << 31)) - ((int64_t)1 << 30);
        check_one(acc, (uint32_t)npuc_rng_next(&rng), (unsigned)(npuc_rng_next(&rng) % 64), (unsigned)(i % 3));
    }
    for (size_t i = 0; i < sizeof accs / sizeof accs[0]; i++)
        for (unsigned sh = 0; sh <= 32; sh++) check_shl(accs[i], sh);
#else
    printf("no __int128 on this host: nothing to compare with\n");
#endif
    TEST_MAIN_END();
}
