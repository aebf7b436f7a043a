/* Finer cascade bands (cc.c, cc_compile; cc_cascade.c,
 * cc_cascade_finer_pays): where the schedule the search picked cascades and
 * its rolling buffers, cut from CC_CASCADE_BANDS to CC_CASCADE_BANDS_FINE
 * bands a chain, would lower the most bytes live at one step by more than
 * CC_CASCADE_FINE_GAIN percent, the pick's options with the finer bands
 * are one more point the search's rule weighs.
 *
 * - coral_posenet_mnv1_075_353_481_int8_decoder on ethos-u55-128 (shared
 *   zoo, skipped when absent): the finer bands are predicted to pay and
 *   are picked; against the same compile held to the default bands (the
 *   point the rule weighed them against) the arena is at least 10% smaller
 *   and the cycles within the rule's slack (1%); every command stream is
 *   free of hazards;
 * - person_detect on ethos-u55-128: it cascades, but its peak does not come
 *   down with finer bands (another step holds as much), so they are not
 *   tried and the pick keeps the default;
 * - a model without a cascade: never predicted to pay.
 * Bit-exactness of band ops at any band count: tests/test_cc_cascade.sh
 * (generated chains with NPUC_GENMODEL_BANDS). */
#include "test.h"
#include "cc_test_npu.h"
#include "cc_hazard.h"
#include "../src/tflite/tflite.h"

static void release(tfl_model *tm, graph *g, cc_model *a, cc_model *b)
{
    cc_model_free(a);
    cc_model_free(b);
    graph_free(g);
    tfl_model_free(tm);
}

static void posenet(void)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL, *c6 = NULL;
    if (cc_compile_shared("models/zoo/coral_posenet_mnv1_075_353_481_int8_decoder.tflite", EU_U55_128, &tm, &g, &cm)) {
        CHECK_EQ_INT((int)cm->opt.cascade_bands, CC_CASCADE_BANDS_FINE);
        CHECK(cm->n_cascade_in > 0);
        CHECK(cc_hazard_model(cm, EU_U55_128, "posenet fine bands"));
        /* the same options with the default bands */
        cc_options o6 = cm->opt;
        o6.cascade_bands = CC_CASCADE_BANDS;
        CHECK(cc_check_compile("posenet 6 bands", g, EU_U55_128, o6, &c6));
    }
    if (c6) {
        CHECK(cc_cascade_finer_pays(c6));
        printf("posenet ethos-u55-128: %d bands %llu cycles %llu B, %d bands %llu cycles %llu B\n",
               CC_CASCADE_BANDS, (unsigned long long)c6->npu_cycles, (unsigned long long)cc_sram_bytes(c6),
               CC_CASCADE_BANDS_FINE, (unsigned long long)cm->npu_cycles, (unsigned long long)cc_sram_bytes(cm));
        CHECK(cc_sram_bytes(cm) * 10 < cc_sram_bytes(c6) * 9);
        CHECK(cm->npu_cycles <= c6->npu_cycles + c6->npu_cycles / CC_CYCLE_SLACK);
    }
    release(tm, g, cm, c6);
}

static void person_detect(void)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL, *off = NULL;
    if (cc_compile_shared("models/tflm/person_detect.tflite", EU_U55_128, &tm, &g, &cm)) {
        CHECK(cm->n_cascade_in > 0);
        CHECK(!cc_cascade_finer_pays(cm));
        CHECK_EQ_INT((int)cm->opt.cascade_bands, 0);
        cc_options o = {0};
        o.cascade = CC_CASCADE_OFF;
        CHECK(cc_check_compile("person_detect no cascade", g, EU_U55_128, o, &off));
    }
    if (off) {
        CHECK_EQ_INT(off->n_cascade_in, 0);
        CHECK(!cc_cascade_finer_pays(off));
    }
    release(tm, g, cm, off);
}

int main(void)
{
    (void)env_long;   /* cc_test_npu.h's; this test has no count to read */
    posenet();
    person_detect();
    TEST_MAIN_END();
}
