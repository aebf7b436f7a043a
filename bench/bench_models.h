/* What the zoo benchmarks share (bench_zoo.c, bench_sched.c): the model
 * list of a folder under a --models filter, figures.tsv's lines split at
 * tabs, and sorting doubles. Header-only: each bench is one program. */
#ifndef NPUC_BENCH_MODELS_H
#define NPUC_BENCH_MODELS_H

#include <dirent.h>
#include <fnmatch.h>
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

#endif
