/* The schedule search under an SRAM limit on generated models
 * (tools/genmodel): each model is compiled with the defaults, then with
 * cc_options.sram_limit (--arena-cache-size) at half the default's SRAM
 * (or, when that cannot fit, at the least the error names); the limited
 * model must fit its limit, and run byte-identical to the reference
 * interpreter on random full-range inputs (4 draws), on every variant in
 * turn, int8 and int16x8. On an Ethos-U55 also at twice the default's SRAM:
 * within it and no more cycles than the default (the arena may grow into
 * the limit for earlier weight DMAs), the same bytes. The limit drops weight copies (their ops stream
 * from flash with new blocks), tries smaller chunks, no prefetch, no
 * cascades and streamed weights: every one must compute the same bytes.
 *
 *   NPUC_SCHED_COUNT  models (default 240), NPUC_SCHED_FIRST  first seed (1) */
#include "test.h"
#include "cc_test_npu.h"
#include "../tools/genmodel/genmodel.h"

static void fill_random(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)draw;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

/* The least SRAM figure in a "needs at least N bytes" error; 0 none. */
static uint64_t least_of(const char *msg)
{
    const char *p = strstr(msg, "needs at least ");
    return p ? strtoull(p + 15, NULL, 10) : 0;
}

int main(void)
{
    long first = env_long("NPUC_SCHED_FIRST", 1), count = env_long("NPUC_SCHED_COUNT", 240);
    int checked = 0, changed = 0, at_least = 0, skipped = 0, grown = 0;
    for (long s = first; s < first + count; s++) {
        uint64_t seed = (uint64_t)s;
        eu_variant v = variants[(seed - 1) / 2 % 6];
        genmodel_config gc;
        genmodel_config_default(&gc);
        gc.int16 = seed & 1;
        gc.max_dim = 16 + (int32_t)(seed % 3) * 8;
        graph *src = NULL;
        npuc_err e = {0};
        if (genmodel_build(seed, &gc, &src, &e)) {
            skipped++;
            continue;
        }
        char cs[96];
        snprintf(cs, sizeof cs, "seed %llu (%s, %s)", (unsigned long long)seed, src->name, target_variant_name(v));
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        cc_model *cm0 = NULL, *cm = NULL;
        if (cc_compile_for(src, v, opt, &cm0, &e)) {
            /* what the reference rejects too is no case */
            skipped++;
            graph_free(src);
            continue;
        }
        uint64_t s0 = cc_sram_bytes(cm0), c0 = cm0->npu_cycles;
        opt.sram_limit = s0 / 2 ? s0 / 2 : 1;
        int rc = cc_compile_for(src, v, opt, &cm, &e);
        if (rc == NPUC_E_UNSUPPORTED && least_of(e.msg)) {
            opt.sram_limit = least_of(e.msg);
            at_least++;
            memset(&e, 0, sizeof e);
            rc = cc_compile_for(src, v, opt, &cm, &e);
        }
        if (rc) {
            fprintf(stderr, "FAIL %s: compile with --arena-cache-size %llu: %s\n", cs,
                    (unsigned long long)opt.sram_limit, e.msg);
            CHECK(false);
        } else {
            uint64_t s1 = cc_sram_bytes(cm);
            if (s1 > opt.sram_limit) {
                fprintf(stderr, "FAIL %s: %llu bytes of SRAM under a limit of %llu\n", cs, (unsigned long long)s1,
                        (unsigned long long)opt.sram_limit);
                CHECK(false);
            }
            changed += s1 != s0 || cm->npu_cycles != c0;
            cc_draws d = {.n_draws = 4, .seed = seed * 7919u + 11u, .fill = fill_random};
            CHECK(cc_check_draws(cs, src, cm, v, &d));
            checked++;
        }
        /* above the default's SRAM the arena may grow into the limit
         * (U55; on a U65 the limit sizes the fast pool): within it, never
         * more cycles than the default, the same bytes */
        cc_model *cm2 = NULL;
        if (s0 && v != EU_U65_256 && v != EU_U65_512) {
            opt.sram_limit = 2 * s0;
            memset(&e, 0, sizeof e);
            if (cc_compile_for(src, v, opt, &cm2, &e)) {
                fprintf(stderr, "FAIL %s: compile with --arena-cache-size %llu: %s\n", cs,
                        (unsigned long long)opt.sram_limit, e.msg);
                CHECK(false);
            } else {
                uint64_t s2 = cc_sram_bytes(cm2);
                if (s2 > opt.sram_limit || cm2->npu_cycles > c0) {
                    fprintf(stderr, "FAIL %s: --arena-cache-size %llu gave %llu cycles in %llu bytes, the default %llu in %llu\n",
                            cs, (unsigned long long)opt.sram_limit, (unsigned long long)cm2->npu_cycles,
                            (unsigned long long)s2, (unsigned long long)c0, (unsigned long long)s0);
                    CHECK(false);
                }
                grown += s2 > s0;
                if (s2 != s0 || cm2->npu_cycles != c0) {
                    cc_draws d = {.n_draws = 4, .seed = seed * 7919u + 13u, .fill = fill_random};
                    CHECK(cc_check_draws(cs, src, cm2, v, &d));
                }
            }
        }
        cc_model_free(cm0);
        cc_model_free(cm);
        cc_model_free(cm2);
        graph_free(src);
    }
    printf("%d models run under a limit (%d at the least the model needs, %d with another schedule than the "
           "default), %d skipped; %d took more of a limit twice the default's SRAM\n",
           checked, at_least, changed, skipped, grown);
    CHECK(checked >= count * 3 / 4);
    TEST_MAIN_END();
}
