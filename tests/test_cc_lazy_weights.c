/* Lazy weight-stream bits (ethosu/eu_weights.c eu_wcache_set_lazy, cc.c
 * weights_fill): the schedule search's compiles lay out placeholders of
 * each stream's exact size, and only the kept compile's streams are
 * written. Pinned here:
 *  - the cache: a placeholder has the eager stream's size; two
 *    placeholders are the same bytes exactly when the eager streams are
 *    (streams of other geometries or weights that code the same values
 *    included); eu_wcache_fill turns every placeholder in a buffer (among
 *    other bytes, a stream placed twice) into the eager bytes and leaves
 *    the rest alone; the entropy of a filled stream is known;
 *  - whole compiles: every zoo model named below and 36 generated ones
 *    (tools/genmodel), on three variants, compile to the same flash
 *    (each epoch's bytes, sizes, sharing), command streams, figures and
 *    weight entropy as with cc_options.eager_weights (every stream written
 *    when encoded). */
#include "test.h"
#include "cc_test_npu.h"
#include "../src/compiler/ethosu/eu_weights.h"
#include "../tools/genmodel/genmodel.h"

/* A geometry of `o` output channels, `i` input channels, k x k kernel. */
static sim_wgeom geom(uint32_t o, uint32_t i, uint32_t k, uint32_t bd, bool dw)
{
    sim_wgeom g;
    memset(&g, 0, sizeof g);
    g.ofm_depth = o;
    g.ifm_depth = dw ? 1 : i;
    g.kh = g.kw = k;
    g.block_depth = bd;
    g.dil_x = g.dil_y = 1;
    g.ifm_bits = 8;
    g.ofm_ublock = 2;
    g.depthwise = dw;
    return g;
}

enum { N_CASES = 12 };

static void test_cache(void)
{
    static const struct { uint32_t o, i, k, bd; bool dw; int fill; } C[N_CASES] = {
        {16, 8, 1, 16, false, 0}, {16, 8, 1, 16, false, 1}, {8, 16, 1, 8, false, 2},
        {16, 8, 1, 16, false, 2}, {32, 4, 3, 16, false, 0}, {32, 4, 3, 32, false, 0},
        {24, 1, 3, 8, true, 0},   {24, 1, 3, 8, true, 2},   {16, 16, 1, 16, false, 2},
        {8, 32, 1, 8, false, 2},  {64, 40, 1, 16, false, 0}, {16, 8, 1, 16, false, 0},
    };
    int16_t *w[N_CASES];
    size_t nw[N_CASES];
    uint8_t *eager[N_CASES];
    size_t esz[N_CASES];
    uint8_t *ph[N_CASES];
    size_t psz[N_CASES];
    npuc_rng r;
    npuc_rng_seed(&r, 5);
    eu_wcache *c = eu_wcache_new();
    CHECK(c != NULL);
    if (!c) return;
    eu_wcache_set_lazy(c, true);
    for (int k = 0; k < N_CASES; k++) {
        sim_wgeom g = geom(C[k].o, C[k].i, C[k].k, C[k].bd, C[k].dw);
        nw[k] = (size_t)C[k].o * C[k].k * C[k].k * g.ifm_depth;
        w[k] = calloc(nw[k], sizeof *w[k]);
        CHECK(w[k] != NULL);
        if (!w[k]) return;
        /* 0: random, 1: random with zeros, 2: all zero; case 11 repeats
         * case 0's weights (the same geometry: the same stream) */
        for (size_t j = 0; j < nw[k] && C[k].fill < 2; j++)
            w[k][j] = (int16_t)(C[k].fill == 1 && npuc_rng_range(&r, 0, 2) ? 0 : npuc_rng_range(&r, -127, 127));
        if (k == 11) memcpy(w[k], w[0], sizeof *w[k] * nw[k]);
        npuc_err err = {0};
        uint8_t *own = NULL;
        CHECK_EQ_INT(eu_encode_weights(&g, w[k], &eager[k], &esz[k], &err), NPUC_OK);
        const uint8_t *p = NULL;
        CHECK_EQ_INT(eu_encode_weights_cached(c, &g, w[k], nw[k], &p, &psz[k], &own, &err), NPUC_OK);
        CHECK(own == NULL && p != NULL);
        /* the placeholder is valid until the next call: copied */
        ph[k] = malloc(psz[k]);
        CHECK(ph[k] != NULL);
        if (!ph[k] || !p) return;
        memcpy(ph[k], p, psz[k]);
        CHECK_EQ_INT((long long)psz[k], (long long)esz[k]);
    }
    /* placeholder equality is stream equality; and there are streams of
     * other geometries that are the same bytes (all-zero weights) */
    int aliases = 0;
    for (int a = 0; a < N_CASES; a++)
        for (int b = a + 1; b < N_CASES; b++) {
            bool same_e = esz[a] == esz[b] && !memcmp(eager[a], eager[b], esz[a]);
            bool same_p = psz[a] == psz[b] && !memcmp(ph[a], ph[b], psz[a]);
            if (same_e != same_p) printf("FAIL cases %d %d: eager same %d, placeholder same %d\n", a, b, same_e, same_p);
            CHECK(same_e == same_p);
            aliases += same_e && (C[a].o != C[b].o || C[a].i != C[b].i || C[a].bd != C[b].bd || C[a].dw != C[b].dw);
        }
    CHECK(aliases > 0);
    /* a buffer of placeholders among random bytes (a stream twice) */
    size_t at[N_CASES + 1], size = 0;
    for (int k = 0; k <= N_CASES; k++) {
        size = (size + 16 * (size_t)npuc_rng_range(&r, 0, 3) + 15) & ~(size_t)15;
        at[k] = size;
        size += psz[k < N_CASES ? k : 4];
    }
    uint8_t *buf = malloc(size), *want = malloc(size);
    CHECK(buf && want);
    if (buf && want) {
        for (size_t j = 0; j < size; j++) buf[j] = want[j] = (uint8_t)npuc_rng_next(&r);
        for (int k = 0; k <= N_CASES; k++) {
            int s = k < N_CASES ? k : 4;
            memcpy(buf + at[k], ph[s], psz[s]);
            memcpy(want + at[k], eager[s], esz[s]);
        }
        npuc_err err = {0};
        CHECK_EQ_INT(eu_wcache_fill(c, buf, size, &err), NPUC_OK);
        CHECK(!memcmp(buf, want, size));
        /* filled again: nothing to change */
        CHECK_EQ_INT(eu_wcache_fill(c, buf, size, &err), NPUC_OK);
        CHECK(!memcmp(buf, want, size));
        double bits = -1;
        CHECK(eu_wcache_entropy(c, buf + at[4], psz[4], &bits));
        int16_t *v = NULL;
        sim_mlw_info info;
        CHECK_EQ_INT(sim_mlw_decode(eager[4], esz[4], 0, &v, &info, &err), NPUC_OK);
        CHECK(v && bits == eu_entropy_bits(v, info.n_weights));
        free(v);
    }
    free(buf);
    free(want);
    for (int k = 0; k < N_CASES; k++) {
        free(w[k]);
        free(eager[k]);
        free(ph[k]);
    }
    eu_wcache_free(c);
}

/* Whether cm (lazy) and ce (eager) are the same compiled model. */
static bool same_model(const char *what, const cc_model *cm, const cc_model *ce)
{
    const char *why = NULL;
    if (cm->n_epochs != ce->n_epochs) why = "epochs";
    else if (cm->flash_size != ce->flash_size || cm->npu_cycles != ce->npu_cycles) why = "figures";
    else if (cm->weight_bytes != ce->weight_bytes || cm->weight_bits != ce->weight_bits) why = "weight entropy";
    for (int32_t i = 0; !why && i < cm->n_epochs; i++) {
        const cc_epoch *a = &cm->epochs[i], *b = &ce->epochs[i];
        if (a->kind != b->kind || a->flash_size != b->flash_size || a->flash_shared != b->flash_shared ||
            a->payload_size != b->payload_size)
            why = "an epoch's sizes";
        else if (a->flash_size && memcmp(a->flash, b->flash, a->flash_size))
            why = "an epoch's flash bytes";
        else if (a->payload_size && memcmp(a->payload, b->payload, a->payload_size))
            why = "an epoch's command stream";
    }
    if (why) printf("FAIL %s: %s differ from the eager compile's\n", what, why);
    return !why;
}

static int compare(const char *what, const graph *g, eu_variant v)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *cm = NULL, *ce = NULL;
    npuc_err e1 = {0}, e2 = {0};
    int r1 = cc_compile_for(g, v, opt, &cm, &e1);
    opt.eager_weights = true;
    int r2 = cc_compile_for(g, v, opt, &ce, &e2);
    CHECK_EQ_INT(r1, r2);
    int n = 0;
    if (!r1 && !r2) {
        CHECK(same_model(what, cm, ce));
        n = 1;
    }
    cc_model_free(cm);
    cc_model_free(ce);
    return n;
}

int main(void)
{
    test_cache();
    static const eu_variant V[] = {EU_U55_128, EU_U65_256, EU_U65_512};
    static const char *const zoo[] = {
        "models/tflm/person_detect.tflite", "models/zoo/armkws_ds_cnn_l_int8.tflite",
        "models/zoo/tflm_id_model.tflite", "models/zoo/tflm_retinaface.tflite",
        "models/zoo/coral_mobilenet_v1_025_128_quant_uint8.tflite",
        "models/zoo/armkws_basic_lstm_s_int8.tflite", "models/zoo/armkws_cnn_l_int8.tflite",
    };
    int compared = 0;
    for (size_t m = 0; m < sizeof zoo / sizeof zoo[0]; m++) {
        tfl_model *tm = NULL;
        graph *g = NULL;
        int loaded = cc_load_shared(zoo[m], &tm, &g);
        CHECK(loaded >= 0);
        for (size_t k = 0; loaded > 0 && k < sizeof V / sizeof V[0]; k++) {
            char what[256];
            snprintf(what, sizeof what, "%s %s", zoo[m], target_variant_name(V[k]));
            compared += compare(what, g, V[k]);
        }
        graph_free(g);
        tfl_model_free(tm);
    }
    long count = env_long("NPUC_LAZY_COUNT", 36);
    int generated = 0;
    for (long s = 1; s <= count; s++) {
        genmodel_config gc;
        genmodel_config_default(&gc);
        gc.int16 = s % 4 == 3;
        gc.max_dim = 16 + (int32_t)(s % 3) * 8;
        graph *g = NULL;
        npuc_err e = {0};
        if (genmodel_build((uint64_t)s, &gc, &g, &e)) continue;
        char what[96];
        eu_variant v = V[s % 3];
        snprintf(what, sizeof what, "seed %ld (%s)", s, target_variant_name(v));
        generated += compare(what, g, v);
        graph_free(g);
    }
    printf("lazy == eager: %d zoo compiles, %d generated\n", compared, generated);
    CHECK(generated >= count / 2);
    TEST_MAIN_END();
}
