/* Finer cascade bands (cc.c, cc_compile; cc_cascade.c, cc_cascade_finer):
 * where the schedule the search picked cascades, the chains with a rolling
 * buffer live at its SRAM's peak (then at the peak after their cut, and so
 * on) are forecast in CC_CASCADE_BANDS_FINE bands instead of
 * CC_CASCADE_BANDS; where that lowers the most bytes live at one step by
 * more than CC_CASCADE_FINE_GAIN percent, the pick's options with its
 * chains given, those in the finer bands, are one more point the search's
 * rule weighs.
 *
 * - coral_posenet_mnv1_075_353_481_int8_decoder on ethos-u55-128 (shared
 *   zoo, skipped when absent): the finer bands are predicted to pay and
 *   are picked, on the chains the forecast names and no other; against
 *   the same compile at the default bands (the point the rule weighed them
 *   against) the arena is at least 10% smaller and the cycles within the
 *   rule's slack (1%); every command stream is free of hazards; the JSON
 *   report names each cascade's band count on its first op
 *   (`cascade_bands`: one 10, one 6);
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
    int32_t fine = 0;
    if (cc_compile_shared("models/zoo/coral_posenet_mnv1_075_353_481_int8_decoder.tflite", EU_U55_128, &tm, &g, &cm)) {
        CHECK(cm->n_cascade_in > 0);
        for (int32_t j = 0; j < cm->n_cascade_in; j++) fine += cm->cascade_in[j].bands == CC_CASCADE_BANDS_FINE;
        CHECK(fine > 0);
        CHECK(!cm->opt.cascade_given && !cm->opt.cascade_in);   /* the choices are the model's own */
        CHECK(cc_hazard_model(cm, EU_U55_128, "posenet fine bands"));
        char *json = NULL;
        size_t len = 0;
        npuc_err e = {0};
        CHECK(emit_report_json_text(cm, "posenet", &json, &len, &e) == NPUC_OK);
        CHECK(json && strstr(json, "\"cascade_bands\": 10,") && strstr(json, "\"cascade_bands\": 6,"));
        free(json);
        /* the same options held to the default bands (a count set: no
         * finer point), the chains searched */
        cc_options o6 = cm->opt;
        o6.cascade_bands = CC_CASCADE_BANDS;
        CHECK(cc_check_compile("posenet 6 bands", g, EU_U55_128, o6, &c6));
    }
    if (c6) {
        int32_t n = c6->n_cascade_in;
        cc_cascade_in *f = calloc((size_t)n + 1, sizeof *f);
        CHECK(f != NULL);
        CHECK(f && cc_cascade_finer(c6, f) == n && n == cm->n_cascade_in);
        /* the pick's chains are the forecast's, with its counts */
        CHECK(f && n == cm->n_cascade_in && !memcmp(f, cm->cascade_in, sizeof *f * (size_t)n));
        free(f);
        printf("posenet ethos-u55-128: %d bands %llu cycles %llu B; %d of %d chains in %d bands %llu cycles %llu B\n",
               CC_CASCADE_BANDS, (unsigned long long)c6->npu_cycles, (unsigned long long)cc_sram_bytes(c6),
               (int)fine, (int)cm->n_cascade_in, CC_CASCADE_BANDS_FINE, (unsigned long long)cm->npu_cycles,
               (unsigned long long)cc_sram_bytes(cm));
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
        cc_cascade_in f[64];
        CHECK(cm->n_cascade_in <= 64 && !cc_cascade_finer(cm, f));
        for (int32_t j = 0; j < cm->n_cascade_in; j++) CHECK_EQ_INT(cm->cascade_in[j].bands, CC_CASCADE_BANDS);
        cc_options o = {0};
        o.cascade = CC_CASCADE_OFF;
        CHECK(cc_check_compile("person_detect no cascade", g, EU_U55_128, o, &off));
    }
    if (off) {
        CHECK_EQ_INT(off->n_cascade_in, 0);
        cc_cascade_in f[1];
        CHECK(!cc_cascade_finer(off, f));
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
