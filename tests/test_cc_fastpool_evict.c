/* The fast pool's choice makes room (cc_alloc.c, choose_fast, evict_for):
 * a buffer that finds no room within the pool's size takes the bytes of
 * the chosen buffers live beside it when those save fewer cycles in sum.
 *
 * coral_keras_lstm_mnist_ptq of the shared folder (skipped when absent) on
 * an Ethos-U65-256 (Ethos_U65_High_End:Dedicated_Sram) with the SRAM
 * limited to Vela 5.1's figure for it (--arena-cache-size 3104): the LSTM's
 * recurrent weight copy (2,656 bytes, live over the whole sequence) is in
 * the fast pool, where the small intermediates the choice by saving per
 * byte took first had left it no room; the pool's peak within the limit;
 * the compiled model bit-exact with the reference interpreter (4 draws). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

int main(void)
{
    (void)env_long;
    const char *rel = "models/zoo/coral_keras_lstm_mnist_ptq.tflite";
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (!loaded) TEST_MAIN_END();
    CHECK(loaded > 0);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sram_limit = 3104;
    cc_model *cm = NULL;
    if (g && cc_check_compile(rel, g, EU_U65_256, opt, &cm)) {
        CHECK(cm->fast_size <= 3104);
        uint64_t big = 0;
        for (int32_t b = 0; b < cm->n_bufs; b++)
            if (cm->bufs[b].wcopy && cm->bufs[b].pool == CC_IN_FAST && cm->bufs[b].size > big) big = cm->bufs[b].size;
        CHECK(big >= 2048);
        printf("%s at 3104 B: %llu NPU cycles, fast pool %llu B, largest weight copy there %llu B\n", rel,
               (unsigned long long)cm->npu_cycles, (unsigned long long)cm->fast_size, (unsigned long long)big);
        cc_draws d = {.n_draws = 4, .seed = 3, .fill = cc_fill_bytes};
        CHECK(cc_check_draws(rel, g, cm, EU_U65_256, &d));
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
    TEST_MAIN_END();
}
