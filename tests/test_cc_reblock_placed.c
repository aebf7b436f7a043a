/* Blocks on the final placement (cc_reblock.c, cc_reblock_placed): on an
 * Ethos-U65-256 (Ethos_U65_High_End:Dedicated_Sram) every NPU op's block
 * takes no more cycles, with its operands where the compiler placed them
 * (cc_op_cycles_at), than the block the chooser gives for the op as
 * cc_reblock asks (both placements, all SRAM and all DRAM) or for all of
 * it in SRAM (eu_block_req.sram_only); a CONV / DEPTHWISE keeps the depth
 * its weights are encoded for; the compiled model stays bit-exact with
 * the reference interpreter (3 draws). On an Ethos-U55-256 (no fast pool)
 * the pass changes nothing.
 *
 * The lowering's guess (lower_toolkit.c, cc_choose_block): a CONV /
 * DEPTHWISE that may use bricks and whose maps the fast pool will likely
 * hold (temps, or tensors that are no graph input, output or state, of at
 * most a quarter of the pool) has the block depth the chooser gives for
 * bricks all in SRAM (eu_block_req.sram_only).
 *
 * Models: person_detect, armkws_ds_cnn_s_int8, armkws_ds_cnn_l_int8 of
 * the shared folder (skipped when absent). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"


static void model_case(const char *rel)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (!loaded) return;
    CHECK(loaded > 0);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *cm = NULL, *u55 = NULL;
    if (g && cc_check_compile(rel, g, EU_U65_256, opt, &cm)) {
        int n_ops = 0, n_better = 0, n_guess = 0;
        for (int32_t i = 0; i < cm->n_epochs; i++) {
            cc_epoch *e = &cm->epochs[i];
            for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
                eu_op *o = &e->ops[k];
                eu_block_req r;
                uint8_t reg[4];
                cc_placed_req(cm, o, &r, reg);
                uint8_t ri = reg[0], r2 = reg[1], ro = reg[2], rw = reg[3];
                uint64_t have = cc_op_cycles_at(cm, o, ri, r2, ro, rw);
                eu_block mine = o->blk;
                for (int t = 0; t < 2; t++) {
                    r.sram_only = t == 1;
                    eu_block b;
                    npuc_err e2 = {0};
                    if (eu_block_choose(&r, &b, &e2) != NPUC_OK) continue;
                    o->blk = b;
                    uint64_t c = cc_op_cycles_at(cm, o, ri, r2, ro, rw);
                    o->blk = mine;
                    if (c < have) {
                        fprintf(stderr, "FAIL %s: epoch %d op %d: block %ux%ux%u %llu cycles, the chooser's%s %ux%ux%u %llu\n",
                                rel, (int)i, (int)k, mine.w, mine.h, mine.d, (unsigned long long)have,
                                t ? " (all in SRAM)" : "", b.w, b.h, b.d, (unsigned long long)c);
                        CHECK(!"a chosen block is faster on the placement");
                    }
                    if (c > have) n_better++;
                    if ((o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE)) CHECK_EQ_INT(b.d, mine.d);
                }
                if ((o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) && o->flex &&
                    cc_likely_fast(cm, o->ifm.buf) && cc_likely_fast(cm, o->ofm.buf)) {
                    eu_block_req q;
                    cc_block_req(cm->opt.sys.variant, o, &q);
                    q.ifm_format = q.ofm_format = 1;
                    q.sram_only = true;
                    eu_block b;
                    npuc_err e2 = {0};
                    CHECK(eu_block_choose(&q, &b, &e2) == NPUC_OK && b.d == o->blk.d);
                    n_guess++;
                }
                n_ops++;
            }
        }
        printf("%s: %d NPU ops, %d chooser blocks slower on the placement than the op's, %d depths guessed for SRAM\n",
               rel, n_ops, n_better, n_guess);
        CHECK(n_guess > 0);
        cc_draws d = {.n_draws = 3, .seed = 5, .fill = cc_fill_bytes};
        CHECK(cc_check_draws(rel, g, cm, EU_U65_256, &d));
        CHECK(!cc_reblock_placed(cm));   /* on its own result: nothing left to change */
    }
    if (g && cc_check_compile(rel, g, EU_U55_256, opt, &u55)) CHECK(!cc_reblock_placed(u55));
    cc_model_free(cm);
    cc_model_free(u55);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    model_case("models/tflm/person_detect.tflite");
    model_case("models/zoo/armkws_ds_cnn_s_int8.tflite");
    model_case("models/zoo/armkws_ds_cnn_l_int8.tflite");
    TEST_MAIN_END();
}
