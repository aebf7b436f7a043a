/* The variant table of src/ethosu/eu_variant.h, row by row: every row is
 * consistent with itself (names, lookups, CONFIG fields, MACs = micro-block
 * x 8 x cores, docs/ethos-u.md 1.1-1.3), and a model compiled for it runs
 * on the virtual NPU of that row with the reference interpreter's output
 * bytes: person_detect (shared models) and generated int8 / int16x8 models.
 * Nothing here names a variant: a new row is tested as it is added. */
#include "test.h"
#include "cc_test_npu.h"
#include "../src/ethosu/eu_variant.h"
#include "../src/tflite/tflite.h"
#include "../tools/genmodel/genmodel.h"

static unsigned log2u(unsigned x)
{
    unsigned k = 0;
    while (x > 1) x >>= 1, k++;
    return k;
}

static void test_row(const eu_variant_info *r, eu_variant v)
{
    CHECK_EQ_INT(r->variant, v);
    eu_variant w = (eu_variant)EU_N_VARIANTS;
    CHECK_EQ_INT(eu_variant_by_target(r->target, &w), 0);
    CHECK_EQ_INT(w, v);
    /* targets are matched without regard to case */
    char upper[32];
    size_t n = strlen(r->target);
    CHECK(n < sizeof upper);
    for (size_t i = 0; i <= n && i < sizeof upper; i++)
        upper[i] = (char)(r->target[i] >= 'a' && r->target[i] <= 'z' ? r->target[i] - 32 : r->target[i]);
    w = (eu_variant)EU_N_VARIANTS;
    CHECK_EQ_INT(eu_variant_by_target(upper, &w), 0);
    CHECK_EQ_INT(w, v);
    CHECK(strcmp(eu_variant_name(v), r->name) == 0);
    CHECK(strcmp(eu_variant_target(v), r->target) == 0);
    CHECK(strstr(r->target, "ethos-") == r->target);
    /* the CONFIG word says what the row says */
    CHECK_EQ_INT(EU_CONFIG_PRODUCT(r->config), r->product);
    CHECK_EQ_INT(1u << EU_CONFIG_MACS_LOG2(r->config), r->macs);
    CHECK_EQ_INT(EU_CONFIG_SHRAM_KIB(r->config), (unsigned)r->shram_banks * r->cores);
    CHECK_EQ_INT(EU_CONFIG_WORD(r->product, (unsigned)r->shram_banks * r->cores, log2u(r->macs)), r->config);
    CHECK_EQ_INT(eu_variant_config_word(v), r->config);
    w = (eu_variant)EU_N_VARIANTS;
    CHECK_EQ_INT(eu_variant_from_config(r->config, &w), 0);
    CHECK_EQ_INT(w, v);
    /* SHRAM size, custom DMA and version do not make a variant */
    CHECK_EQ_INT(eu_variant_from_config(r->config ^ 0x0000FF00u ^ (1u << 27) ^ 0x30u, &w), 0);
    CHECK_EQ_INT(w, v);
    CHECK_EQ_INT(EU_ID_ARCH_MAJOR(r->id), 1);
    /* MACs/cycle = OFM micro-block W x H x D x 8 per core (1.1) */
    CHECK_EQ_INT((unsigned)r->ofm_ublock[0] * r->ofm_ublock[1] * r->ofm_ublock[2] * 8u * r->cores, r->macs);
    CHECK(r->cores >= 1);
    CHECK(r->shram_banks >= 16 && r->shram_banks * EU_SHRAM_BANK_BYTES <= 96 * 1024);
    CHECK(r->reserved_banks == 0 || r->reserved_banks == EU_LUT_BANKS);
    CHECK_EQ_INT(eu_variant_is_u65(v), r->product == EU_PRODUCT_U65);
    CHECK_EQ_INT(r->addr_bits, r->product == EU_PRODUCT_U65 ? 40 : 32);
    CHECK(r->axi_bits == 64 || r->axi_bits == 128);
    CHECK(r->max_dma >= 1);
    for (int k = 0; k < 8; k++) CHECK(r->granules[k] > 0 && r->granules[k] <= r->shram_banks);
    for (int k = 0; k < 8; k++) CHECK(r->out_cpe[k] > 0);
    /* names are unique */
    for (int j = 0; j < (int)v; j++) {
        CHECK(strcmp(eu_variant_get((eu_variant)j)->target, r->target) != 0);
        CHECK(strcmp(eu_variant_get((eu_variant)j)->name, r->name) != 0);
        CHECK(eu_variant_get((eu_variant)j)->config != r->config);
    }
}

/* Compiles g for v, runs it on v's virtual NPU and the source on the
 * reference interpreter with the same random inputs; the output bytes must
 * be equal. Returns the number of NPU runs (0 on failure). */
static int run_on(const graph *g, eu_variant v, uint64_t seed, const char *what)
{
    npuc_err e = {0};
    cc_model *cm = NULL;
    if (cc_compile_for(g, v, (cc_options){0}, &cm, &e)) {
        fprintf(stderr, "%s on %s: compile: %s\n", what, eu_variant_name(v), e.msg);
        t_failures++;
        return 0;
    }
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    const char *stage = "", *side = "";
    int runs = 0;
    if (cc_twin_open(&tw, g, cm, v, &stage, &e)) {
        fprintf(stderr, "%s on %s: %s: %s\n", what, eu_variant_name(v), stage, e.msg);
        t_failures++;
        goto done;
    }
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        uint8_t *b = malloc(t->nbytes + 1);
        for (size_t k = 0; k < t->nbytes; k++) b[k] = (uint8_t)npuc_rng_next(&r);
        int rc = cc_twin_set_input(&tw, i, b, t->nbytes, &e);
        free(b);
        if (rc) {
            fprintf(stderr, "%s on %s: input %d: %s\n", what, eu_variant_name(v), i, e.msg);
            t_failures++;
            goto done;
        }
    }
    if (cc_twin_invoke(&tw, &side, &e)) {
        fprintf(stderr, "%s on %s: %s: %s\n", what, eu_variant_name(v), side, e.msg);
        t_failures++;
        goto done;
    }
    for (int32_t k = 0; k < g->n_outputs; k++) {
        size_t at, size;
        bool same = cc_twin_same(&tw, k, &at, &size);
        CHECK(same);
        if (!same)
            fprintf(stderr, "%s on %s: output %d differs at byte %zu of %zu\n", what, eu_variant_name(v), k,
                    at, size);
    }
    runs = tw.nc.n_runs;
done:
    cc_twin_close(&tw);
    cc_model_free(cm);
    return runs;
}

int main(void)
{
    (void)env_long;
    (void)variants;   /* cc_test_npu.h's list: this test walks the table instead */
    char buf[512];
    const char *pd = t_shared("models/tflm/person_detect.tflite", buf, sizeof buf);
    graph *person = NULL;
    if (pd) {
        tfl_model *tm = NULL;
        npuc_err e = {0};
        if (tfl_read_file(pd, &tm, &e) || graph_import(tm, &person, &e)) {
            fprintf(stderr, "%s: %s\n", pd, e.msg);
            t_failures++;
        }
        tfl_model_free(tm);
    } else {
        printf("SKIP person_detect: shared folder absent (set NPUC_SHARED)\n");
    }
    CHECK_EQ_INT(eu_variant_get((eu_variant)EU_N_VARIANTS), 0);
    CHECK(strcmp(eu_variant_name((eu_variant)EU_N_VARIANTS), "?") == 0);
    eu_variant none;
    CHECK_EQ_INT(eu_variant_by_target("ethos-u55-1024", &none), -1);
    CHECK_EQ_INT(eu_variant_from_config(0x20000008u, &none), -1);
    for (int i = 0; i < EU_N_VARIANTS; i++) {
        eu_variant v = (eu_variant)i;
        const eu_variant_info *r = eu_variant_get(v);
        CHECK(r != NULL);
        if (!r) continue;
        test_row(r, v);
        int pr = person ? run_on(person, v, 100 + (uint64_t)i, "person_detect") : -1;
        if (person) CHECK(pr > 0);
        /* generated models: an int8 and an int16x8 one per row */
        for (uint64_t seed = 1; seed <= 4; seed++) {
            genmodel_config cfg;
            genmodel_config_default(&cfg);
            cfg.int16 = seed % 2 == 0;
            graph *g = NULL;
            npuc_err e = {0};
            uint64_t s = seed * 7919 + (uint64_t)i;
            if (genmodel_build(s, &cfg, &g, &e)) {
                fprintf(stderr, "genmodel %llu: %s\n", (unsigned long long)s, e.msg);
                t_failures++;
                continue;
            }
            run_on(g, v, s, g->name);
            graph_free(g);
        }
        printf("%s (%s): row checked; person_detect: %d NPU runs\n", r->target, r->name, pr);
    }
    graph_free(person);
    TEST_MAIN_END();
}
