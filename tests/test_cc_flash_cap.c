/* The constants' flash as the lowering leaves it (cc_const_bytes,
 * lower/lower_weights.c) and the compile that stops once it is over a cap
 * (cc_options.flash_cap, cc.c): the schedule search's 32 KiB-chunk try is
 * no candidate when it takes more flash than the first schedule, and where
 * its constants alone do it stops before the weights are placed.
 *
 * What the search relies on: nothing after the lowering changes the
 * constants' bytes or how cc_share_flash lays them out, so the compiled
 * model's cc_const_bytes is its HW epochs' flash to the byte. A compile
 * given a cap passes it to each of its schedules (the bigger chunks' try
 * sets its own): the first schedule over it fails the whole compile, a
 * later one is no candidate. The first schedule need not be the one picked
 * (tflm_retinaface, either system: its constants take 434,256 B, the pick's
 * 433,952 B), so the cap a compile needs is the first schedule's constants
 * N, which the error names. For shared models of one epoch and of several
 * (a stream per epoch, weights shared across them), on ethos-u55-128 and
 * ethos-u65-256:
 *  - capped at 1 byte: the compile fails with no model, its error naming N;
 *  - capped at N - 1: the same, naming N and N - 1; and where the pick
 *    takes fewer constants D than N (retinaface), capped at D too;
 *  - capped at N: the compile gives a model;
 *  - capped at max(N, D): the same model as without a cap (flash, cycles,
 *    SRAM, constants). A fact of these models, not a guarantee of the
 *    mechanism: a later schedule over the cap is dropped, which may move
 *    the pick. The caps: person_detect 232,016 B, keyword_scrambled 6,608 B,
 *    retinaface 434,256 B (N; D 433,952 B), the LSTM 128,432 B on
 *    ethos-u55-128 and 128,272 B on ethos-u65-256 (N = D but retinaface's);
 *  - on ethos-u65-512 (a dual-core op lays out its constants by its copy,
 *    so the floor is not known): a cap of one byte does not stop it. */
#include "test.h"
#include "cc_test_npu.h"

#include <stdlib.h>
#include <string.h>

/* The compiled model's constants: its HW epochs' own flash. */
static uint64_t consts_of(const cc_model *cm)
{
    uint64_t n = 0;
    for (int32_t i = 0; i < cm->n_epochs; i++)
        if (cm->epochs[i].kind == CC_EPOCH_HW) n += cm->epochs[i].flash_size;
    return n;
}

/* cases where the pick takes fewer constants than the first schedule */
static int n_first_more;

/* g compiled for v with the cap `cap`, which must fail with no model and
 * an error naming `first` (the first schedule's constants) and the cap;
 * the bytes the error names (0 when it names none). */
static uint64_t over(const graph *g, eu_variant v, uint64_t cap, uint64_t first)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.flash_cap = cap;
    cc_model *m = NULL;
    npuc_err err = {0};
    CHECK(cc_compile_for(g, v, opt, &m, &err) != 0);
    CHECK(m == NULL);
    cc_model_free(m);
    const char *at = strstr(err.msg, "constants take ");
    uint64_t n = at ? strtoull(at + strlen("constants take "), NULL, 10) : 0;
    char want[96];
    snprintf(want, sizeof want, "constants take %llu bytes of flash, over %llu",
             (unsigned long long)(first ? first : n), (unsigned long long)cap);
    if (!strstr(err.msg, want)) fprintf(stderr, "FAIL cap %llu: \"%s\", not \"%s\"\n", (unsigned long long)cap,
                                        err.msg, want);
    CHECK(strstr(err.msg, want) != NULL);
    return n;
}

static void one(const char *rel, eu_variant v, const char *vname)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL, *capped = NULL, *at_first = NULL;
    if (!cc_compile_shared(rel, v, &tm, &g, &cm)) goto out;
    uint64_t d = consts_of(cm);
    CHECK(d > 0);
    CHECK_EQ_INT(cc_const_bytes(cm), d);
    /* the first schedule's constants, as a cap of one byte names them */
    uint64_t n = over(g, v, 1, 0);
    printf("%s %s: constants %llu B of %llu B flash, the first schedule's %llu B\n", rel, vname,
           (unsigned long long)d, (unsigned long long)cm->flash_size, (unsigned long long)n);
    CHECK(n > 1);
    if (n <= 1) goto out;
    over(g, v, n - 1, n);
    if (d < n) {
        n_first_more++;
        over(g, v, d, n);
    }
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    npuc_err err = {0};
    opt.flash_cap = n;
    CHECK_EQ_INT(cc_compile_for(g, v, opt, &at_first, &err), 0);
    CHECK(at_first != NULL);
    opt.flash_cap = d > n ? d : n;
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(cc_compile_for(g, v, opt, &capped, &err), 0);
    if (capped) {
        CHECK_EQ_INT(capped->flash_size, cm->flash_size);
        CHECK_EQ_INT(capped->npu_cycles, cm->npu_cycles);
        CHECK_EQ_INT(cc_sram_bytes(capped), cc_sram_bytes(cm));
        CHECK_EQ_INT(consts_of(capped), d);
    }
out:
    cc_model_free(cm);
    cc_model_free(capped);
    cc_model_free(at_first);
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
        "models/zoo/tflm_retinaface.tflite",              /* three streams; the first schedule takes more */
        "models/zoo/armkws_basic_lstm_s_int8.tflite",     /* one weight tensor, 49 ops */
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        one(models[i], EU_U55_128, "ethos-u55-128");
        one(models[i], EU_U65_256, "ethos-u65-256");
    }
    dual("models/tflm/person_detect.tflite");
    /* (the shared folder present: a case of a first schedule over the pick) */
    char buf[1024];
    if (t_shared(models[2], buf, sizeof buf)) {
        if (!n_first_more) fprintf(stderr, "FAIL no first schedule took more constants than the pick\n");
        CHECK(n_first_more > 0);
    }
    TEST_MAIN_END();
}
