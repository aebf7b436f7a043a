/* Compile time: median of several `cc_compile` runs per model (import and
 * file writing excluded; the TFLite build of the result included) for every
 * model in ../shared/models/tflm (and the seanet cases), on Ethos-U55-256
 * with the default system config. Also prints NPU cycles, arena and flash
 * so one run shows every figure of targets.md. Asserts nothing.
 *   usage: bench_compile [SHARED_DIR] [TARGET]   (default ../shared or $NPUC_SHARED) */
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 15

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench_model(const char *path, const cc_options *opt)
{
    tfl_model *m = NULL;
    graph *g = NULL;
    npuc_err err;
    if (tfl_read_file(path, &m, &err) || graph_import(m, &g, &err)) {
        printf("%-44s skipped: %s\n", path, err.msg);
        tfl_model_free(m);
        return;
    }
    double t[RUNS];
    cc_model *cm = NULL;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        tfl_model *out = NULL;
        if (cc_compile(g, opt, &cm, &err) || emit_tflite_model(cm, &out, &err)) {
            printf("%-44s failed: %s\n", path, err.msg);
            cc_model_free(cm);
            graph_free(g);
            tfl_model_free(m);
            return;
        }
        t[r] = now() - t0;
        tfl_model_free(out);
        if (r < RUNS - 1) cc_model_free(cm);
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    int32_t npu = 0;
    for (int32_t i = 0; i < g->n_ops; i++) npu += cm->ops[i].npu;
    const char *base = strrchr(path, '/');
    printf("%-36s %4d/%-4d %9.3f ms %10llu %9.2f %9.2f\n", base ? base + 1 : path, npu, g->n_ops,
           t[RUNS / 2] * 1e3, (unsigned long long)cm->npu_cycles, cm->arena_size / 1024.0,
           cm->flash_size / 1024.0);
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(m);
}

static void bench_dir(const char *dir, const cc_options *opt)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 7, ".tflite") || strstr(e->d_name, "_vela")) continue;
        char **p = realloc(names, sizeof *names * (n + 1));
        if (!p) break;
        names = p;
        names[n] = malloc(strlen(dir) + l + 2);
        if (!names[n]) break;
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    for (size_t i = 0; i + 1 < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (size_t i = 0; i < n; i++) {
        bench_model(names[i], opt);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : getenv("NPUC_SHARED");
    if (!shared) shared = "../shared";
    const char *target = argc > 2 ? argv[2] : "ethos-u55-256";
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    npuc_err err;
    eu_variant v;
    if (target_variant_parse(target, &v, &err) || target_default(v, &opt.sys, &err)) {
        fprintf(stderr, "bench_compile: %s\n", err.msg);
        return 1;
    }
    printf("compile time (median of %d), %s, %s\n", RUNS, target, opt.sys.name);
    printf("%-36s %9s %12s %10s %9s %9s\n", "model", "npu/ops", "compile", "cycles", "SRAM KiB",
           "flash KiB");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models/tflm", shared);
    bench_dir(dir, &opt);
    static const char *const seanet[] = {"add", "conv", "leaky_relu", "pad", "quantize",
                                         "strided_slice", "sub", "transpose_conv"};
    for (size_t i = 0; i < sizeof seanet / sizeof seanet[0]; i++) {
        snprintf(dir, sizeof dir, "%s/models/tflm/seanet/%s", shared, seanet[i]);
        bench_dir(dir, &opt);
    }
    printf("targets.md: Vela 3.10 compiles person_detect in 0.63 s (goal: ~6 ms); "
           "72.72 KiB SRAM, 262.36 KiB flash, 301,796 cycles on ethos-u55-256\n");
    return 0;
}
