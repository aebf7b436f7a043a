/* The fast pool's choice makes room in the cheapest window (cc_alloc.c,
 * choose_fast, evict_for): a buffer that finds no room within the pool's
 * size takes the bytes of the chosen buffers live beside it in the window
 * of its size whose savings sum to the least, when they save fewer cycles
 * than it; the others keep their places.
 *
 * armkws_basic_lstm_s_int8 of the shared folder (skipped when absent) on an
 * Ethos-U65-256 (Ethos_U65_High_End:Dedicated_Sram) with the SRAM limited
 * to Vela 5.1's figure for it (--arena-cache-size 11616): the recurrent
 * weight copy (10,528 bytes) fills most of the pool and 49 long-lived
 * 10-byte UNPACK outputs sit above it; the 472-byte per-step tensors take
 * the bytes of the few UNPACK outputs in their window (at least 8 of them
 * in the pool; 2 when every buffer live beside one had to go out, which
 * the weight copy's saving forbade); the pool's peak within the limit; the
 * compiled model bit-exact with the reference interpreter (2 draws). The
 * schedule picked now loads the weight copy per use (test_cc_fastpool_
 * reload.c), which leaves the pool to the per-step tensors between uses
 * (about a hundred of them there); the window still decides the search's
 * point that keeps one copy for all steps. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

int main(void)
{
    (void)env_long;
    const char *rel = "models/zoo/armkws_basic_lstm_s_int8.tflite";
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (!loaded) TEST_MAIN_END();
    CHECK(loaded > 0);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sram_limit = 11616;
    cc_model *cm = NULL;
    if (g && cc_check_compile(rel, g, EU_U65_256, opt, &cm)) {
        CHECK(cm->fast_size <= 11616);
        int32_t n472 = 0;
        for (int32_t b = 0; b < cm->n_bufs; b++)
            if (!cm->bufs[b].wcopy && cm->bufs[b].pool == CC_IN_FAST && cm->bufs[b].size == 472) n472++;
        CHECK(n472 >= 8);
        printf("%s at 11616 B: %llu NPU cycles, fast pool %llu B, %d per-step 472-byte tensors there\n", rel,
               (unsigned long long)cm->npu_cycles, (unsigned long long)cm->fast_size, (int)n472);
        cc_draws d = {.n_draws = 2, .seed = 3, .fill = cc_fill_bytes};
        CHECK(cc_check_draws(rel, g, cm, EU_U65_256, &d));
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
    TEST_MAIN_END();
}
