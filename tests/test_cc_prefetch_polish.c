/* The prefetch polish (cc_prefetch.c, cc_place_weights): the schedule the
 * weight search picks is placed again with the prefetch plans that keep a
 * moved weight copy clear of the operands of the op before its DMA (which
 * may still run when the DMA starts, so a copy over them waits for it), and
 * kept only with fewer NPU cycles and no more SRAM; the copies the ops
 * wait for are then dropped from it and from the pick before it, and the
 * search's rule picks between the two. Each model is compiled with and
 * without (cc_options.no_prefetch_polish) on an Ethos-U55-128 and -256:
 * the one without never beats the polished one on both cycles and SRAM
 * (no more of either, less of one), nor by more than the search's band
 * on cycles, its command
 * streams pass the hazard check, and it runs byte-identical to the
 * reference (generated models: 2 random draws). Generated models
 * (tools/genmodel) and every zoo model of the shared folder but the
 * unrolled LSTMs (skipped when absent); on the zoo at least one model gets
 * faster (tflm_custom_model_rf_keras: 876k -> 850k cycles, SRAM 400 KiB ->
 * 367 KiB on ethos-u55-128).
 *
 *   NPUC_POLISH_COUNT  generated models (default 60) */
#include "test.h"
#include "cc_test_npu.h"
#include "cc_hazard.h"
#include "../src/tflite/tflite.h"
#include "../tools/genmodel/genmodel.h"

#include <dirent.h>

static int compared, faster, drawn;

static void fill_random(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)draw;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

/* Both compilations of src for v; run: also the draws. */
static void compare(const char *cs, const graph *src, eu_variant v, bool run)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *a = NULL, *b = NULL;
    npuc_err e = {0};
    if (cc_compile_for(src, v, opt, &a, &e)) return;   /* what the compiler rejects is no case */
    opt.no_prefetch_polish = true;
    memset(&e, 0, sizeof e);
    if (cc_compile_for(src, v, opt, &b, &e)) {
        fprintf(stderr, "FAIL %s: compile without the polish: %s\n", cs, e.msg);
        CHECK(false);
        cc_model_free(a);
        return;
    }
    uint64_t ca = a->npu_cycles, cb = b->npu_cycles, sa = cc_sram_bytes(a), sb = cc_sram_bytes(b);
    bool beaten = (cb <= ca && sb <= sa && (cb < ca || sb < sa)) || cb + cb / CC_CYCLE_SLACK < ca;
    if (beaten) {
        fprintf(stderr, "FAIL %s: polished %llu cycles, %llu B SRAM; without %llu cycles, %llu B\n", cs,
                (unsigned long long)ca, (unsigned long long)sa, (unsigned long long)cb, (unsigned long long)sb);
        CHECK(false);
    }
    CHECK(cc_hazard_model(a, v, cs));
    if (run) {
        cc_draws d = {.n_draws = 2, .seed = 977u, .fill = fill_random};
        CHECK(cc_check_draws(cs, src, a, v, &d));
        drawn++;
    }
    compared++;
    faster += ca < cb;
    cc_model_free(a);
    cc_model_free(b);
}

static void zoo(void)
{
    char buf[1024];
    const char *lic = t_shared("models/zoo/LICENSE", buf, sizeof buf);
    if (!lic) {
        printf("skip the zoo: the shared folder is absent\n");
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%.*s", (int)(strlen(lic) - strlen("/LICENSE")), lic);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    int zoo_faster = faster;
    for (struct dirent *x; (x = readdir(d));) {
        size_t l = strlen(x->d_name);
        if (l < 8 || strcmp(x->d_name + l - 7, ".tflite") || strstr(x->d_name, "basic_lstm")) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, x->d_name);
        tfl_model *tm = NULL;
        graph *g = NULL;
        npuc_err e = {0};
        if (tfl_read_file(path, &tm, &e) || graph_import(tm, &g, &e)) {
            tfl_model_free(tm);
            continue;
        }
        for (int k = 0; k < 2; k++) {
            char cs[300];
            snprintf(cs, sizeof cs, "%s %s", x->d_name, k ? "ethos-u55-256" : "ethos-u55-128");
            compare(cs, g, k ? EU_U55_256 : EU_U55_128, false);
        }
        graph_free(g);
        tfl_model_free(tm);
    }
    closedir(d);
    CHECK(faster > zoo_faster);
}

int main(void)
{
    long count = env_long("NPUC_POLISH_COUNT", 60);
    for (long s = 1; s <= count; s++) {
        genmodel_config gc;
        genmodel_config_default(&gc);
        gc.max_dim = 32;
        graph *src = NULL;
        npuc_err e = {0};
        if (genmodel_build((uint64_t)s, &gc, &src, &e)) continue;
        char cs[96];
        snprintf(cs, sizeof cs, "seed %ld (%s)", s, src->name);
        compare(cs, src, s & 1 ? EU_U55_256 : EU_U55_128, true);
        graph_free(src);
    }
    zoo();
    printf("%d compilations compared (%d run against the reference), %d faster with the polish\n", compared, drawn,
           faster);
    CHECK(drawn >= count / 2);
    TEST_MAIN_END();
}
