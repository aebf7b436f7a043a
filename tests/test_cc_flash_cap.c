/* The constants' flash as the lowering leaves it (cc_const_bytes,
 * lower/lower_weights.c) and the compile that stops once it is over a cap
 * (cc_options.flash_cap, cc.c): the schedule search's 32 KiB-chunk try is
 * no candidate when it takes more flash than the first schedule, and where
 * its constants alone do it stops before the weights are placed.
 *
 * What the search relies on: nothing after the lowering changes the
 * constants' bytes or how cc_share_flash lays them out, so the floor is the
 * compiled model's own constants to the byte. For shared models of one
 * epoch and of several (a stream per epoch, weights shared across them),
 * on ethos-u55-128 and ethos-u65-256:
 *  - compiled with the cap at the compiled model's constants (the HW
 *    epochs' flash, without command streams): the same model (flash,
 *    cycles, SRAM);
 *  - one byte under: the compile fails with an error naming both sizes;
 *  - on ethos-u65-512 (a dual-core op lays out its constants by its copy,
 *    so the floor is not known): a cap of one byte does not stop it. */
#include "test.h"
#include "cc_test_npu.h"

#include <string.h>

/* The compiled model's constants: its HW epochs' own flash. */
static uint64_t consts_of(const cc_model *cm)
{
    uint64_t n = 0;
    for (int32_t i = 0; i < cm->n_epochs; i++)
        if (cm->epochs[i].kind == CC_EPOCH_HW) n += cm->epochs[i].flash_size;
    return n;
}

static void one(const char *rel, eu_variant v, const char *vname)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL, *capped = NULL, *under = NULL;
    if (!cc_compile_shared(rel, v, &tm, &g, &cm)) goto out;
    uint64_t c = consts_of(cm);
    printf("%s %s: constants %llu B of %llu B flash\n", rel, vname, (unsigned long long)c,
           (unsigned long long)cm->flash_size);
    CHECK(c > 0);
    CHECK_EQ_INT(cc_const_bytes(cm), c);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.flash_cap = c;
    npuc_err err = {0};
    CHECK_EQ_INT(cc_compile_for(g, v, opt, &capped, &err), 0);
    if (capped) {
        CHECK_EQ_INT(capped->flash_size, cm->flash_size);
        CHECK_EQ_INT(capped->npu_cycles, cm->npu_cycles);
        CHECK_EQ_INT(cc_sram_bytes(capped), cc_sram_bytes(cm));
    }
    opt.flash_cap = c - 1;
    memset(&err, 0, sizeof err);
    CHECK(cc_compile_for(g, v, opt, &under, &err) != 0);
    CHECK(under == NULL);
    char want[96];
    snprintf(want, sizeof want, "constants take %llu bytes of flash, over %llu", (unsigned long long)c,
             (unsigned long long)(c - 1));
    CHECK(strstr(err.msg, want) != NULL);
out:
    cc_model_free(cm);
    cc_model_free(capped);
    cc_model_free(under);
    graph_free(g);
    tfl_model_free(tm);
}

/* ethos-u65-512: its dual-core ops' constants are laid out by their copies */
static void dual(const char *rel)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    if (cc_load_shared(rel, &tm, &g) > 0 && g) {
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        opt.flash_cap = 1;
        npuc_err err = {0};
        CHECK_EQ_INT(cc_compile_for(g, EU_U65_512, opt, &cm, &err), 0);
        CHECK(cm && consts_of(cm) > 1);
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    static const char *const models[] = {
        "models/tflm/person_detect.tflite",               /* one epoch */
        "models/tflm/keyword_scrambled_8bit.tflite",      /* six streams */
        "models/zoo/tflm_retinaface.tflite",              /* three streams */
        "models/zoo/armkws_basic_lstm_s_int8.tflite",     /* one weight tensor, 49 ops */
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        one(models[i], EU_U55_128, "ethos-u55-128");
        one(models[i], EU_U65_256, "ethos-u65-256");
    }
    dual("models/tflm/person_detect.tflite");
    TEST_MAIN_END();
}
