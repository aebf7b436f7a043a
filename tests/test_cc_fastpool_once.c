/* A weight copy read once in the fast pool (cc_alloc.c, choose_fast's last
 * phase): a copy whose one user reads its weight stream once (the OFM
 * plane is one block: a FULLY_CONNECTED) moves no fewer bytes than the op
 * would stream itself, so it pays only where its DMA runs while earlier
 * ops leave the params' port idle (fp_spare; the prefetch pass then starts
 * it there) and, where it raises the pool's peak, only when it saves
 * FP_ONCE_RATE (1.5%) of the cycles per pool's worth of bytes it adds.
 *
 * On an Ethos-U65-256 with its default system (Ethos_U65_High_End:
 * Dedicated_Sram), models of the shared folder (each skipped when absent),
 * each compiled with the rule and without it (cc_options.no_once_hide):
 *  - armkws_cnn_s_int8: its first FULLY_CONNECTED (30,720 weights, 24 KiB
 *    encoded, DRAM-bound) gets its copy in the fast pool, the DMA behind
 *    the compute-bound convs before it; fewer NPU cycles than without the
 *    rule (34,445 -> 32,807), which leaves no copy of 16 KiB or more there;
 *    the pool within its size; bit-exact with the reference (2 draws);
 *  - armkws_dnn_l_int8: its FULLY_CONNECTED chunks stream from DRAM back
 *    to back; a copy of 7 KiB above a pool of 1.3 KiB would save 0.6% of
 *    the cycles, below the rate: the same fast pool and cycles both ways;
 *  - armkws_cnn_l_int8: its FULLY_CONNECTED's first chunk would save 2% of
 *    the cycles for 57 KiB above a 22 KiB pool, below the rate: the same
 *    fast pool and cycles both ways. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

/* Bytes of the largest weight copy in the fast pool whose one user's OFM
 * plane is one block (0: none). */
static uint64_t once_copy_bytes(const cc_model *cm)
{
    uint64_t best = 0;
    for (int32_t b = 0; b < cm->n_bufs; b++) {
        const cc_buf *x = &cm->bufs[b];
        if (!x->wcopy || x->pool != CC_IN_FAST) continue;
        int users = 0;
        bool one_block = true;
        for (int32_t ei = 0; ei < cm->n_epochs; ei++) {
            const cc_epoch *e = &cm->epochs[ei];
            if (e->kind != CC_EPOCH_HW) continue;
            for (int32_t k = 0; k < e->n_eu; k++) {
                const eu_op *o = &e->ops[k];
                if (o->wbuf != b || (o->kind != SIM_K_CONV && o->kind != SIM_K_DEPTHWISE)) continue;
                users++;
                one_block = one_block && o->blk.w >= o->ofm.w && o->blk.h >= o->ofm.h;
            }
        }
        if (users == 1 && one_block && x->size > best) best = x->size;
    }
    return best;
}

/* Compiles the model at rel with and without the rule; false when absent. */
static bool both(const char *rel, tfl_model **tm, graph **g, cc_model **on, cc_model **off)
{
    int loaded = cc_load_shared(rel, tm, g);
    if (!loaded) return false;
    CHECK(loaded > 0);
    if (!*g) return false;
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.no_lean = true;   /* the rule against the fastest pick, not the lean step */
    bool ok = cc_check_compile(rel, *g, EU_U65_256, opt, on);
    opt.no_once_hide = true;
    ok = cc_check_compile(rel, *g, EU_U65_256, opt, off) && ok;
    CHECK(ok);
    if (ok)
        printf("%s: %llu NPU cycles, fast pool %llu B (without the rule: %llu, %llu B)\n", rel,
               (unsigned long long)(*on)->npu_cycles, (unsigned long long)(*on)->fast_size,
               (unsigned long long)(*off)->npu_cycles, (unsigned long long)(*off)->fast_size);
    return ok;
}

static void done(tfl_model *tm, graph *g, cc_model *on, cc_model *off)
{
    cc_model_free(on);
    cc_model_free(off);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    {
        const char *rel = "models/zoo/armkws_cnn_s_int8.tflite";
        tfl_model *tm = NULL;
        graph *g = NULL;
        cc_model *on = NULL, *off = NULL;
        if (both(rel, &tm, &g, &on, &off)) {
            const target_desc *s = &on->opt.sys;
            CHECK(on->fast_size <= s->pools[s->fast_pool].size);
            CHECK(once_copy_bytes(on) >= 16 * 1024);
            CHECK(once_copy_bytes(off) < 16 * 1024);
            CHECK(on->npu_cycles < off->npu_cycles);
            cc_draws d = {.n_draws = 2, .seed = 5, .fill = cc_fill_bytes};
            CHECK(cc_check_draws(rel, g, on, EU_U65_256, &d));
        }
        done(tm, g, on, off);
    }
    static const char *const same[] = {"models/zoo/armkws_dnn_l_int8.tflite", "models/zoo/armkws_cnn_l_int8.tflite"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        tfl_model *tm = NULL;
        graph *g = NULL;
        cc_model *on = NULL, *off = NULL;
        if (both(same[i], &tm, &g, &on, &off)) {
            CHECK(on->fast_size == off->fast_size);
            CHECK(on->npu_cycles == off->npu_cycles);
        }
        done(tm, g, on, off);
    }
    TEST_MAIN_END();
}
