/* What the zoo benchmarks share (bench_zoo.c, bench_sched.c): the model
 * list of a folder under a --models filter, figures.tsv's lines split at
 * tabs, and sorting doubles. Header-only: each bench is one program. */
#ifndef NPUC_BENCH_MODELS_H
#define NPUC_BENCH_MODELS_H

#include "npuc/npuc.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_MODELS 256

/* Splits line at tabs in place (the newline removed); the field count. */
static inline int bench_split_tabs(char *line, char **f, int max)
{
    line[strcspn(line, "\r\n")] = 0;
    int n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    return n;
}

/* --models: comma-separated globs; NULL: every model. */
static inline int bench_selected(const char *name, const char *filter)
{
    if (!filter) return 1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", filter);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!fnmatch(t, name, 0)) return 1;
    return 0;
}

static inline int bench_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The .tflite files of dir (not Vela's *_vela.tflite) that the filter
 * selects, sorted, appended to paths (at most BENCH_MAX_MODELS in all);
 * 1 (printed, prog naming the program) when dir cannot be read. */
static inline int bench_list_models(const char *prog, const char *dir, const char *filter, char **paths, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open model folder %s\n", prog, dir);
        return 1;
    }
    size_t first = *n;
    struct dirent *e;
    while ((e = readdir(d)) && *n < BENCH_MAX_MODELS) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 7, ".tflite") || strstr(e->d_name, "_vela.tflite")) continue;
        char stem[sizeof e->d_name];
        snprintf(stem, sizeof stem, "%.*s", (int)(l - 7), e->d_name);
        if (!bench_selected(stem, filter)) continue;
        char *path = malloc(strlen(dir) + l + 2);
        if (!path) break;
        sprintf(path, "%s/%s", dir, e->d_name);
        paths[(*n)++] = path;
    }
    closedir(d);
    qsort(paths + first, *n - first, sizeof *paths, bench_cmp_str);
    return 0;
}

/* Vela's output for a model: SHARED/models/zoo/vela51/CONFIG/NAME_vela.tflite
 * (Vela 5.1's files are kept for u55-128 and u65-256 only). */
static inline void bench_vela_path(const char *shared, const char *config, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/models/zoo/vela51/%s/%s_vela.tflite", shared, config, name);
}

/* Vela's file opened on the virtual NPU with its ethos-u ops only
 * (npuc_open_options.npu_only: Vela leaves CPU ops the reference
 * interpreter does not run in some, e.g. the legacy uint8 ones):
 * its command streams (ethos-u ops) in *streams, their bytes in *cs_bytes
 * when it is not NULL (npuc_model_info.command_stream_bytes) and, when cycles is not
 * NULL, the NPU cycles of one run summed over them (npuc_profile.npu_cycles),
 * the inputs filled with bytes drawn from seed. An Ethos-U stream has no
 * data-dependent control, and npuc's cycle model prices what the commands
 * say, so the figure does not depend on the inputs (nor on the CPU ops'
 * outputs the streams then read as zeros). 0 ok; -1 no such file; 1 an
 * error, its text in err. */
static inline int bench_vela_run(const char *shared, const char *config, const char *name, uint64_t seed,
                                 int *streams, uint64_t *cs_bytes, uint64_t *cycles, char *err, size_t err_size)
{
    char path[4096];
    bench_vela_path(shared, config, name, path, sizeof path);
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    fclose(fp);
    npuc_open_options oo = {.npu_only = true};
    npuc_model *m = NULL;
    npuc_model_info info;
    int rc = npuc_model_open_file(path, NULL, &oo, &m) || npuc_model_get_info(m, &info);
    if (!rc) *streams = (int)info.n_ethosu_ops;
    if (!rc && cs_bytes) *cs_bytes = info.command_stream_bytes;
    for (uint32_t i = 0; !rc && cycles && i < npuc_input_count(m); i++) {
        npuc_tensor_info ti;
        uint8_t *buf = NULL;
        rc = npuc_input_info(m, i, &ti) || !(buf = malloc(ti.size ? ti.size : 1));
        uint64_t x = seed * 0x9E3779B97F4A7C15ull + i;  /* splitmix64 */
        for (size_t b = 0; !rc && b < ti.size; b++) {
            uint64_t z = (x += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            buf[b] = (uint8_t)(z ^ (z >> 31));
        }
        if (!rc) rc = npuc_set_input(m, i, buf, ti.size);
        free(buf);
    }
    if (!rc && cycles) {
        npuc_run_options ro = {.profile = true};
        const npuc_profile *p;
        rc = npuc_run(m, &ro) || npuc_get_profile(m, &p);
        if (!rc) *cycles = p->npu_cycles;
    }
    if (rc) snprintf(err, err_size, "%s", npuc_last_error());
    npuc_model_close(&m);
    return rc ? 1 : 0;
}

#endif
