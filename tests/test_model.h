/* What the tests that work on model files share: reading a file whole,
 * loading a .tflite as a graph, feeding an interpreter the concatenated
 * input bytes of a golden set, compiling a graph for a variant with checks,
 * and running a shell command (the npuc CLI) for its output. Header-only,
 * static inline: each test uses what it needs. Include after test.h. */
#ifndef NPUC_TEST_MODEL_H
#define NPUC_TEST_MODEL_H

#include "../src/compiler/cc.h"
#include "../src/target/target.h"
#include "../src/graph/graph.h"
#include "../src/interp/interp.h"
#include "../src/tflite/tflite.h"
#include "../src/util/util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The whole file (malloc'd, *size bytes), or NULL with *size 0. */
static inline uint8_t *t_read_all(const char *path, size_t *size)
{
    uint8_t *d = NULL;
    npuc_err e = {0};
    *size = 0;
    if (npuc_read_file(path, &d, size, &e)) return NULL;
    return d;
}

/* Reads and imports a .tflite; on failure prints "path: message", frees
 * what it made and returns the status with *tm and *g NULL. */
static inline int t_load_model(const char *path, tfl_model **tm, graph **g)
{
    npuc_err e = {0};
    *tm = NULL;
    *g = NULL;
    int rc = tfl_read_file(path, tm, &e);
    if (!rc) rc = graph_import(*tm, g, &e);
    if (rc) {
        fprintf(stderr, "%s: %s\n", path, e.msg);
        if (*tm) tfl_model_free(*tm);
        *tm = NULL;
    }
    return rc;
}

/* Sets every model input from the concatenated bytes; false on a size
 * mismatch or a refused input. */
static inline bool t_set_inputs(interp *ip, const graph *g, const uint8_t *in, size_t n)
{
    npuc_err e = {0};
    size_t off = 0;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *x = &g->tensors[g->inputs[i]];
        if (off + x->nbytes > n || interp_set_input(ip, i, in + off, x->nbytes, &e)) return false;
        off += x->nbytes;
    }
    return off == n;
}

/* Compiles g with default options (*co, cleared) for the default system
 * of variant v: two checks (the system, the compile; its error printed
 * after label, and left in *e). The model, or NULL. */
static inline cc_model *t_compile(const graph *g, eu_variant v, cc_options *co, npuc_err *e, const char *label)
{
    memset(co, 0, sizeof *co);
    memset(e, 0, sizeof *e);
    CHECK_EQ_INT(target_default(v, &co->sys, e), 0);
    cc_model *cm = NULL;
    int rc = cc_compile(g, co, &cm, e);
    if (rc) fprintf(stderr, "%s: compile: %s\n", label, e->msg);
    CHECK_EQ_INT(rc, 0);
    return cm;
}

/* Runs cmd through the shell; its output (up to cap - 1 bytes, NUL
 * terminated) in out, the byte count in *n unless NULL. The wait status
 * of pclose, -1 if the shell did not start. */
static inline int t_sh(const char *cmd, char *out, size_t cap, size_t *n)
{
    FILE *p = popen(cmd, "r");
    size_t k = p ? fread(out, 1, cap - 1, p) : 0;
    out[k] = 0;
    if (n) *n = k;
    return p ? pclose(p) : -1;
}

#endif
