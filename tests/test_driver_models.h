/* Shared by test_driver.c and test_driver_stress.c: Vela-compiled models run
 * through the ethos-u driver the way TensorFlow Lite Micro's ethos-u kernel
 * does it (docs/ethos-u.md 9.3, 10), and their reference outputs from the
 * original model on the reference interpreter.
 *
 * A dm_model holds what an application has in flash: the COP1 payload and
 * the constant ("flash") tensor, each copied into 16-byte aligned memory
 * and mapped (read-only) on the host NPU bus. Each user of a model brings
 * a dm_arena: the tensor arena (scratch, with the model inputs and outputs
 * at their OfflineMemoryAllocation offsets), mapped read-write. */
#ifndef TEST_DRIVER_MODELS_H
#define TEST_DRIVER_MODELS_H

#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ethosu_driver.h"
#include "driver/host/ethosu_host.h"
#include "interp/interp.h"
#include "interp/interp_ethosu.h"
#include "tflite/tflite.h"

#define DM_MAX_IO 8

typedef struct dm_model {
    char name[96];
    eu_variant variant;      /* from the payload's CONFIG word */
    uint8_t *payload;         /* aligned, mapped read-only */
    size_t payload_size;
    uint8_t *flash;           /* aligned, mapped read-only (NULL if empty) */
    size_t flash_size;
    size_t arena_size;        /* scratch and every I/O tensor at its offset */
    size_t fast_size;         /* the scratch_fast tensor */
    int n_base;               /* base pointers, as TFLM counts them (<= 8) */
    /* per base pointer: flash, or arena + offset */
    bool base_is_flash[8];
    size_t base_off[8], base_size[8];
    int n_in, n_out;          /* graph inputs / outputs, in graph order */
    size_t in_off[DM_MAX_IO], in_size[DM_MAX_IO];
    size_t out_off[DM_MAX_IO], out_size[DM_MAX_IO];
} dm_model;

typedef struct dm_arena {
    uint8_t *mem;             /* aligned, mapped read-write */
    size_t size;
} dm_arena;

static inline void *dm_aligned(size_t size)
{
    size_t n = (size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, n ? n : 64);
    if (p) memset(p, 0, n ? n : 64);
    return p;
}

/* Loads a Vela model with a single ethos-u op. Returns 0 or -1 with msg. */
static inline int dm_load(dm_model *m, const char *path, char *msg, size_t msg_size)
{
    memset(m, 0, sizeof *m);
    size_t plen = strlen(path);   /* keep the tail: ".../u55-128/x_vela.tflite" */
    const char *tail = plen >= sizeof m->name ? path + plen - (sizeof m->name - 1) : path;
    memcpy(m->name, tail, strlen(tail) + 1);
    npuc_err err = {0};
    tfl_model *tm = NULL;
    graph *g = NULL;
    int rc = -1;
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err)) {
        snprintf(msg, msg_size, "%.400s: %.400s", path, err.msg);
        goto out;
    }
    if (g->n_ops != 1 || !interp_is_ethosu_op(&g->ops[0])) {
        snprintf(msg, msg_size, "%.400s: not a single ethos-u op", path);
        goto out;
    }
    const graph_op *op = &g->ops[0];
    if (interp_ethosu_variant(g, op, &m->variant, &err)) {
        snprintf(msg, msg_size, "%.400s: %.400s", path, err.msg);
        goto out;
    }
    const graph_tensor *pt = &g->tensors[op->in[0]], *ft = &g->tensors[op->in[1]];
    m->payload_size = pt->nbytes;
    m->payload = dm_aligned(pt->nbytes);
    memcpy(m->payload, pt->data, pt->nbytes);
    m->flash_size = ft->nbytes;
    if (ft->nbytes) {
        m->flash = dm_aligned(ft->nbytes);
        memcpy(m->flash, ft->data, ft->nbytes);
    }
    m->fast_size = g->tensors[op->in[3]].nbytes;
    /* base_addr[k - 1] = tensor k of the op (inputs from 1, then outputs) */
    int n_io = op->n_in + op->n_out;
    for (int k = 1; k < n_io && k <= 8; k++) {
        int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        const graph_tensor *t = &g->tensors[ti];
        m->base_size[k - 1] = t->nbytes;
        if (k == 1) {
            m->base_is_flash[0] = true;
        } else if (t->arena_offset >= 0) {
            m->base_off[k - 1] = (size_t)t->arena_offset;
        } else {
            snprintf(msg, msg_size, "%.400s: tensor %.100s has no arena offset", path, t->name);
            goto out;
        }
        m->n_base = k;
    }
    for (int k = 2; k < n_io; k++) {
        int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        const graph_tensor *t = &g->tensors[ti];
        if (t->arena_offset >= 0 && (size_t)t->arena_offset + t->nbytes > m->arena_size)
            m->arena_size = (size_t)t->arena_offset + t->nbytes;
    }
    m->n_in = g->n_inputs;
    m->n_out = g->n_outputs;
    if (m->n_in > DM_MAX_IO || m->n_out > DM_MAX_IO) {
        snprintf(msg, msg_size, "%.400s: too many inputs/outputs", path);
        goto out;
    }
    for (int i = 0; i < m->n_in + m->n_out; i++) {
        const graph_tensor *t = &g->tensors[i < m->n_in ? g->inputs[i] : g->outputs[i - m->n_in]];
        if (t->arena_offset < 0) {
            snprintf(msg, msg_size, "%.400s: model input/output %.100s is not in the arena", path, t->name);
            goto out;
        }
    }
    for (int i = 0; i < m->n_in; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        m->in_off[i] = (size_t)t->arena_offset;
        m->in_size[i] = t->nbytes;
    }
    for (int i = 0; i < m->n_out; i++) {
        const graph_tensor *t = &g->tensors[g->outputs[i]];
        m->out_off[i] = (size_t)t->arena_offset;
        m->out_size[i] = t->nbytes;
    }
    if (ethosu_host_map(m->payload, m->payload_size, false, &err) ||
        (m->flash && ethosu_host_map(m->flash, m->flash_size, false, &err))) {
        snprintf(msg, msg_size, "%.400s: %.400s", path, err.msg);
        goto out;
    }
    rc = 0;
out:
    graph_free(g);
    tfl_model_free(tm);
    return rc;
}

static inline void dm_free(dm_model *m)
{
    if (m->payload) ethosu_host_unmap(m->payload);
    if (m->flash) ethosu_host_unmap(m->flash);
    free(m->payload);
    free(m->flash);
    memset(m, 0, sizeof *m);
}

static inline int dm_arena_init(dm_arena *a, size_t size)
{
    a->size = size;
    a->mem = dm_aligned(size);
    npuc_err err = {0};
    if (!a->mem || ethosu_host_map(a->mem, size, true, &err)) {
        fprintf(stderr, "arena: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static inline void dm_arena_free(dm_arena *a)
{
    if (a->mem) ethosu_host_unmap(a->mem);
    free(a->mem);
    a->mem = NULL;
}

/* The base pointer arrays TFLM would pass for this model and arena. */
static inline void dm_bases(const dm_model *m, const dm_arena *a, uint64_t base[8],
                            size_t size[8])
{
    for (int i = 0; i < 8; i++) {
        base[i] = 0;
        size[i] = 0;
    }
    for (int i = 0; i < m->n_base; i++) {
        base[i] = m->base_is_flash[i] ? (uint64_t)(uintptr_t)m->flash
                                      : (uint64_t)(uintptr_t)(a->mem + m->base_off[i]);
        size[i] = m->base_size[i];
    }
}

static inline void dm_set_inputs(const dm_model *m, dm_arena *a, const uint8_t *const *in)
{
    for (int i = 0; i < m->n_in; i++)
        memcpy(a->mem + m->in_off[i], in[i], m->in_size[i]);
}

/* Invokes synchronously (v3) and checks outputs against ref[]. Returns 0
 * on a match, else -1 (what differed in msg). */
static inline int dm_run(struct ethosu_driver *drv, const dm_model *m, dm_arena *a,
                         const uint8_t *const *in, const uint8_t *const *ref, void *user_arg,
                         char *msg, size_t msg_size)
{
    uint64_t base[8];
    size_t size[8];
    dm_set_inputs(m, a, in);
    dm_bases(m, a, base, size);
    int rc = ethosu_invoke_v3(drv, m->payload, (int)m->payload_size, base, size, m->n_base,
                              user_arg);
    if (rc) {
        snprintf(msg, msg_size, "%.96s: ethosu_invoke_v3 returned %d", m->name, rc);
        return -1;
    }
    for (int i = 0; i < m->n_out; i++) {
        if (memcmp(a->mem + m->out_off[i], ref[i], m->out_size[i])) {
            snprintf(msg, msg_size, "%.96s: output %d differs from the reference", m->name, i);
            return -1;
        }
    }
    return 0;
}

/* Reference outputs: the original (non-Vela) model on the interpreter,
 * for n_sets input sets filled from a seed. in[s][i], out[s][i] are
 * malloc'd. */
typedef struct dm_ref {
    int n_sets, n_in, n_out;
    uint8_t *in[8][DM_MAX_IO];
    uint8_t *out[8][DM_MAX_IO];
} dm_ref;

static inline int dm_reference(const char *path, int n_sets, uint64_t seed, dm_ref *r, char *msg,
                               size_t msg_size)
{
    memset(r, 0, sizeof *r);
    npuc_err err = {0};
    tfl_model *tm = NULL;
    graph *g = NULL;
    interp *ip = NULL;
    int rc = -1;
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err) ||
        interp_create(g, NULL, &ip, &err)) {
        snprintf(msg, msg_size, "%.400s: %.400s", path, err.msg);
        goto out;
    }
    r->n_sets = n_sets;
    r->n_in = g->n_inputs;
    r->n_out = g->n_outputs;
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    for (int s = 0; s < n_sets; s++) {
        for (int i = 0; i < r->n_in; i++) {
            const graph_tensor *t = &g->tensors[g->inputs[i]];
            r->in[s][i] = malloc(t->nbytes);
            for (size_t b = 0; b < t->nbytes; b++)
                r->in[s][i][b] = (uint8_t)npuc_rng_range(&rng, 0, 255);
            if (interp_set_input(ip, i, r->in[s][i], t->nbytes, &err)) {
                snprintf(msg, msg_size, "%.400s: %.400s", path, err.msg);
                goto out;
            }
        }
        if (interp_invoke(ip, &err)) {
            snprintf(msg, msg_size, "%.400s: %.400s", path, err.msg);
            goto out;
        }
        for (int i = 0; i < r->n_out; i++) {
            size_t n = 0;
            const void *o = interp_output(ip, i, &n);
            r->out[s][i] = malloc(n ? n : 1);
            memcpy(r->out[s][i], o, n);
        }
    }
    rc = 0;
out:
    interp_free(ip);
    graph_free(g);
    tfl_model_free(tm);
    return rc;
}

static inline void dm_reference_free(dm_ref *r)
{
    for (int s = 0; s < 8; s++)
        for (int i = 0; i < DM_MAX_IO; i++) {
            free(r->in[s][i]);
            free(r->out[s][i]);
        }
    memset(r, 0, sizeof *r);
}

#endif
