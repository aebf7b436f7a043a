/* Runtime-loadable models (NPRL): what installing one costs. For every
 * shared model (models/tflm and the seanet cases), compiled for
 * Ethos-U55-128 and Ethos-U65-256 and written as a single file: file and
 * params size, relocations, exec RAM in XIP and COPY mode, and the median
 * time of RUNS installs in each mode, split into the SHA-256 digest check
 * (timed on its own over the file body) and the rest (header, pool,
 * model and relocation checks, copies, clears, patching). For comparison:
 * the median time of one run of the installed model on the virtual NPU
 * through the host API (npuc_run: host time of the simulator and the CPU
 * kernels, not NPU time). Asserts nothing.
 * Models come from $NPUC_SHARED, else ../shared, else the shared folder
 * next to the source tree. */
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "npuc/npuc.h"
#include "npurt/npurt_crypto.h"
#include "npurt/reloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 21               /* installs (and digests) per mode; the median is printed */
#define RUN_RUNS 5            /* npurt_reloc_run per model */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

typedef struct totals {
    int models;
    double sha, load, xip, copy, run;
} totals;

/* Median install time in a mode; -1 if install fails. */
static double time_install(const uint8_t *file, uint32_t size, uint8_t *ram, uint32_t ram_size, uint32_t mode)
{
    double t[RUNS];
    npurt_reloc_config cfg = {.exec_ram = ram, .exec_ram_size = ram_size, .mode = mode};
    npurt_reloc_instance ri;
    npurt_error e;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_us();
        int rc = npurt_reloc_install(file, size, &cfg, &ri, &e);
        t[r] = now_us() - t0;
        if (rc) return -1;
        npurt_reloc_uninstall(&ri);
    }
    return median(t, RUNS);
}

static void bench_model(const char *path, eu_variant v, totals *tot)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[64];
    snprintf(name, sizeof name, "%s", base);
    char *dot = strstr(name, ".tflite");
    if (dot) *dot = 0;
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    emit_reloc_out out = {0};
    npuc_err err = {0};
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err) || target_default(v, &opt.sys, &err) ||
        cc_compile(g, &opt, &cm, &err) || emit_reloc(cm, name, NULL, &out, &err)) {
        printf("%-24s %-9s skipped: %s\n", name, eu_variant_name(v), err.msg);
        cc_model_free(cm);
        graph_free(g);
        tfl_model_free(tm);
        return;
    }
    /* install wants the file and its RAM 16-byte aligned */
    npuc_arena arena;
    npuc_arena_init(&arena);
    uint8_t *file = npuc_arena_memdup(&arena, out.file, out.file_size);
    uint32_t size = (uint32_t)out.file_size;
    npurt_reloc_info info;
    npurt_error e;
    if (!file || npurt_reloc_get_info(file, size, &info, &e)) {
        printf("%-24s %-9s skipped: %s\n", name, eu_variant_name(v), file ? e.what : "out of memory");
        goto done;
    }
    uint8_t *ram = npuc_arena_alloc(&arena, info.ram_copy ? info.ram_copy : 1);
    /* the digest install checks: SHA-256 of everything before the trailer */
    double ts[RUNS];
    uint8_t d[32];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_us();
        npurt_sha256(file, size - NPURL_TRAILER_SIZE, d);
        ts[r] = now_us() - t0;
    }
    double sha = median(ts, RUNS);
    /* of the rest: loading the NPRT container inside (its CRC-32 and record checks) */
    const npurl_header *h = (const npurl_header *)file;
    const npurl_pool *mp = (const npurl_pool *)(file + h->pools_off);
    for (uint32_t i = 0; i < h->n_pools; i++)
        if (mp[i].kind == NPURL_K_MODEL) mp = &mp[i];
    npurt_model m;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_us();
        npurt_model_load(&m, file + mp->file_off, mp->file_size, &e);
        ts[r] = now_us() - t0;
    }
    double load = median(ts, RUNS);
    double xip = time_install(file, size, ram, info.ram_xip, NPURT_RELOC_XIP);
    double copy = time_install(file, size, ram, info.ram_copy, NPURT_RELOC_COPY);
    /* one run, XIP, random inputs, through the host API on the NPU the model was compiled for */
    double run = -1;
    npuc_model *rm = NULL;
    if (xip >= 0 && copy >= 0 && !npuc_model_open_memory(file, size, NULL, NULL, &rm)) {
        npuc_rng rng;
        npuc_rng_seed(&rng, 1);
        for (uint32_t i = 0; i < npuc_input_count(rm); i++) {
            npuc_tensor_info ti;
            npuc_input_info(rm, i, &ti);
            uint8_t *p = malloc(ti.size + 1);
            uint32_t n = (uint32_t)ti.size;
            for (uint32_t k = 0; k < n; k++) p[k] = (uint8_t)npuc_rng_next(&rng);
            /* a TRANSPOSE_CONV output shape: the one value its kernel takes */
            for (int32_t o = 0; o < g->n_ops; o++) {
                const graph_op *op = &g->ops[o];
                const graph_tensor *sh = &g->tensors[g->inputs[i]];
                if (op->opcode == TFL_OP_TRANSPOSE_CONV && op->n_in > 0 && op->in[0] == g->inputs[i] &&
                    sh->dtype == GRAPH_I32 && n == (uint32_t)g->tensors[op->out[0]].rank * 4)
                    memcpy(p, g->tensors[op->out[0]].shape, n);
            }
            npuc_set_input(rm, i, p, ti.size);
            free(p);
        }
        double tr[RUN_RUNS];
        int ok = 1;
        for (int r = 0; r < RUN_RUNS && ok; r++) {
            double t0 = now_us();
            ok = npuc_run(rm, NULL) == NPUC_STATUS_OK;
            tr[r] = now_us() - t0;
        }
        /* a CPU kernel may refuse random inputs (shape tensors): no figure */
        if (ok) run = median(tr, RUN_RUNS);
    }
    npuc_model_close(&rm);
    if (xip < 0 || copy < 0) {
        printf("%-24s %-9s install failed\n", name, eu_variant_name(v));
    } else {
        char rs[32];
        if (run >= 0) snprintf(rs, sizeof rs, "%10.1f", run);
        else snprintf(rs, sizeof rs, "%10s", "-");
        printf("%-24s %-7s %8u %8u %6u %8u %8u %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %s\n", name, eu_variant_name(v),
               info.file_size, info.params_size, info.n_relocs, info.ram_xip, info.ram_copy, sha, xip, xip - sha,
               load, copy, copy - sha, rs);
        tot->models++;
        tot->sha += sha;
        tot->load += load;
        tot->xip += xip;
        tot->copy += copy;
        if (run > 0) tot->run += run;
    }
done:
    npuc_arena_free(&arena);
    emit_reloc_out_free(&out);
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

/* .tflite files of a folder (not Vela's), sorted; *n grows. */
static char **list_dir(const char *dir, char **names, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) return names;
    size_t first = *n;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 8 || strcmp(de->d_name + l - 7, ".tflite") || strstr(de->d_name, "_vela")) continue;
        char **p = realloc(names, sizeof *names * (*n + 1));
        if (!p) break;
        names = p;
        names[*n] = malloc(strlen(dir) + l + 2);
        if (!names[*n]) break;
        sprintf(names[*n], "%s/%s", dir, de->d_name);
        (*n)++;
    }
    closedir(d);
    for (size_t i = first; i + 1 < *n; i++)
        for (size_t j = i + 1; j < *n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    return names;
}

/* $NPUC_SHARED, ../shared, or the shared folder beside this source tree. */
static const char *shared_dir(char *buf, size_t cap)
{
    const char *env = getenv("NPUC_SHARED");
    if (env && *env) return env;
    DIR *d = opendir("../shared/models");
    if (d) {
        closedir(d);
        return "../shared";
    }
    snprintf(buf, cap, "%s", __FILE__);
    char *slash = strrchr(buf, '/');
    if (slash) *slash = 0;                    /* .../main/bench */
    slash = strrchr(buf, '/');
    if (slash) snprintf(slash, cap - (size_t)(slash - buf), "/../shared"); /* .../main/../shared */
    return buf;
}

int main(void)
{
    char buf[2048];
    const char *shared = shared_dir(buf, sizeof buf);
    char **names = NULL;
    size_t n = 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.2000s/models/tflm", shared);
    names = list_dir(dir, names, &n);
    static const char *const seanet[] = {"add", "conv", "leaky_relu", "pad", "quantize",
                                         "strided_slice", "sub", "transpose_conv"};
    for (size_t i = 0; i < sizeof seanet / sizeof seanet[0]; i++) {
        snprintf(dir, sizeof dir, "%.2000s/models/tflm/seanet/%s", shared, seanet[i]);
        names = list_dir(dir, names, &n);
    }
    if (!n) {
        printf("bench_reloc: no models under %s/models/tflm (set NPUC_SHARED)\n", shared);
        return 0;
    }
    /* Ed25519 verification: a fixed cost per install with a public key */
    uint8_t seed[32], pub[32], sig[64], msg[32];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)(i * 7 + 1), msg[i] = (uint8_t)i;
    npurt_ed25519_public_key(seed, pub);
    npurt_ed25519_sign(sig, msg, 32, seed);
    double tv[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_us();
        int bad = npurt_ed25519_verify(sig, msg, 32, pub);
        tv[r] = now_us() - t0;
        if (bad) printf("bench_reloc: Ed25519 self-check failed\n");
    }
    printf("install time of runtime-loadable models (single file, median of %d installs, microseconds);\n"
           "sha256 = the digest check install makes, rest = install minus it; NPRT = for comparison, a\n"
           "standalone npurt_model_load of the container (CRC-32 + record checks; install skips the CRC-32,\n"
           "the SHA-256 covers those bytes); run = one run on the virtual NPU (npuc_run)\n"
           "(host time), median of %d. A signed install adds an Ed25519 verify: %.1f us.\n",
           RUNS, RUN_RUNS, median(tv, RUNS));
    printf("%-24s %-7s %8s %8s %6s %8s %8s %8s %8s %8s %8s %8s %8s %10s\n", "model", "target", "file B", "params B",
           "relocs", "RAM XIP", "RAM COPY", "sha256", "XIP", "XIP rest", "of: NPRT", "COPY", "COPYrest", "run");
    static const eu_variant vs[] = {EU_U55_128, EU_U65_256};
    totals tot[2];
    memset(tot, 0, sizeof tot);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) bench_model(names[i], vs[k], &tot[k]);
        free(names[i]);
    }
    free(names);
    for (int k = 0; k < 2; k++)
        if (tot[k].models)
            printf("%s, %d models, sums: sha256 %.0f us, NPRT load %.0f us, XIP install %.0f us, COPY install %.0f us, "
                   "runs %.0f us\n", eu_variant_name(vs[k]), tot[k].models, tot[k].sha, tot[k].load, tot[k].xip,
                   tot[k].copy, tot[k].run);
    return 0;
}
