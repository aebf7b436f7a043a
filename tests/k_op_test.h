/* What the operator-family tests (tests/test_k_*.c) share: running a
 * k_op kind on plain buffers, and one-op graphs (quantized tensors, the op,
 * its io) through the reference interpreter. Header-only, static inline:
 * each test is one translation unit and uses what it needs. */
#ifndef NPUC_K_OP_TEST_H
#define NPUC_K_OP_TEST_H

#include "test.h"
#include "../src/interp/interp.h"
#include "../src/kernels/k_op.h"

#include <stdint.h>
#include <string.h>

/* Runs kind on n_in inputs and one output (no scratch, no persistent
 * memory); the k_op_run status. */
static inline int kt_run(uint32_t kind, const void *blob, uint32_t size, int32_t n_in, void *const *in,
                         const uint32_t *in_size, void *out, uint32_t out_size)
{
    void *outs[1] = {out};
    uint32_t osz[1] = {out_size};
    k_op_io io = {in, in_size, n_in, outs, osz, 1, NULL, 0, NULL, 0, NULL, 0};
    return k_op_run(kind, blob, size, &io);
}

/* A tensor of g, quantized per tensor when scale > 0. */
static inline int32_t kt_tensor(graph *g, const char *name, graph_dtype dt, int32_t rank, const int32_t *shape,
                                const void *data, float scale, int64_t zp)
{
    int32_t t = graph_add_tensor(g, name, dt, rank, shape, data);
    if (t >= 0 && scale > 0.0f) graph_set_quant(g, t, 1, &scale, &zp, 0);
    return t;
}

/* Adds opcode in[] -> out to g and makes it the graph: the non-constant
 * inputs (at most 8) become the graph inputs, out its output. */
static inline void kt_op1(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in, const int32_t *in,
                          int32_t out)
{
    int32_t gin[8], n_gin = 0;
    for (int32_t i = 0; i < n_in && n_gin < 8; i++)
        if (!g->tensors[in[i]].data) gin[n_gin++] = in[i];
    graph_add_op(g, opcode, opt, n_in, in, 1, &out);
    graph_set_io(g, n_gin, gin, 1, &out);
}

/* interp_create with a cleared e; the status, the message in e. */
static inline int kt_create(graph *g, interp **ipp, npuc_err *e)
{
    memset(e, 0, sizeof *e);
    *ipp = NULL;
    return interp_create(g, NULL, ipp, e);
}

/* Whether g prepares: the interp_create status, the message in e; the
 * interpreter, if any, is freed. */
static inline int kt_try_create(graph *g, npuc_err *e)
{
    interp *ip = NULL;
    int rc = kt_create(g, &ip, e);
    if (!rc) interp_free(ip);
    return rc;
}

/* One-op graph (kt_op1) prepared and run once: in_data[i] feeds the
 * non-constant in[i]; the output is copied to out_data unless NULL.
 * Returns the interp_create / set_input / invoke status, message in e. */
static inline int kt_run1(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in, const int32_t *in,
                          int32_t out, const void *const *in_data, void *out_data, npuc_err *e)
{
    kt_op1(g, opcode, opt, n_in, in, out);
    interp *ip;
    int rc = kt_create(g, &ip, e);
    if (rc) return rc;
    for (int32_t i = 0, k = 0; i < n_in; i++)
        if (!g->tensors[in[i]].data) {
            rc = interp_set_input(ip, k, in_data[i], g->tensors[in[i]].nbytes, e);
            k++;
            if (rc) break;
        }
    if (!rc) rc = interp_invoke(ip, e);
    if (!rc && out_data) {
        size_t n;
        const void *o = interp_output(ip, 0, &n);
        memcpy(out_data, o, n);
    }
    interp_free(ip);
    return rc;
}

/* A one-op graph (kt_op1) that must not prepare: kt_run1 on zeroed inputs
 * fails (one check) with needle in the message (one check). Frees g. */
static inline void kt_expect_reject(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in,
                                    const int32_t *in, int32_t out, const char *needle)
{
    static const uint8_t zero[256];
    const void *ins[8] = {zero, zero, zero, zero, zero, zero, zero, zero};
    npuc_err e;
    CHECK(kt_run1(g, opcode, opt, n_in, in, out, ins, NULL, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, needle);
    graph_free(g);
}

#endif
