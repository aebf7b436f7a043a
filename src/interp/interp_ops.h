/* Internal to interp/: how an op implementation plugs in. Each op group file
 * (ops_conv.c, ops_pool_elementwise.c, ops_activation.c, ops_shape.c, ...)
 * exports one table of interp_op_impl. */
#ifndef NPUC_INTERP_OPS_H
#define NPUC_INTERP_OPS_H

#include "interp.h"
#include "../kernels/kernels.h"

/* One prepared op: a k_op kind and its params blob, run by k_op_run with
 * the node's tensors (the interpreter's only evaluation path, shared with
 * the runtime). */
typedef struct interp_node {
    const graph *g;
    const graph_op *op;
    int32_t op_index;
    uint32_t kind;           /* set by prepare: K_OP_* */
    void *params;            /* set by prepare: the kind's blob (interp_node_blob) */
    uint32_t params_size;
    size_t scratch_size;     /* set by prepare: bytes of scratch needed at eval */
    size_t persistent_size;  /* set by prepare: bytes kept across invokes (zeroed at create) */
    npuc_arena *arena;       /* for prepare-time allocations (lives with interp) */
    k_op_io io;              /* set by interp_create: the op's tensors, scratch, persistent */
} interp_node;

typedef struct interp_op_impl {
    int32_t opcode;          /* TFL_OP_* */
    /* Checks input/output counts, dtypes, shapes, quantization; computes the
     * kernel parameters into the node's blob (interp_node_blob). Errors name
     * the problem; the caller prefixes "op N (NAME)". */
    int (*prepare)(interp_node *node, npuc_err *err);
    const char *custom_code; /* TFL_OP_CUSTOM: the custom code it implements */
} interp_op_impl;

/* Helpers for implementations. */
static inline const graph_tensor *interp_node_in_t(const interp_node *n, int32_t i)
{
    return (i < n->op->n_in && n->op->in[i] >= 0) ? &n->g->tensors[n->op->in[i]] : NULL;
}
static inline const graph_tensor *interp_node_out_t(const interp_node *n, int32_t i)
{
    return (i < n->op->n_out && n->op->out[i] >= 0) ? &n->g->tensors[n->op->out[i]] : NULL;
}
/* Zeroed prepare-time memory, freed with the interpreter. */
void *interp_node_alloc(interp_node *n, size_t size);
/* Allocates the node's params blob: `size` zeroed bytes (the kind's struct,
 * then its arrays at k_op_align'ed offsets), 16-byte aligned; sets kind,
 * params and params_size. NULL when out of memory or size >= 4 GiB. */
void *interp_node_blob(interp_node *n, uint32_t kind, size_t size);
/* graph_tensor shape -> kernel dims. */
void interp_dims(const graph_tensor *t, k_dims *d);

/* The op tables, one per group file. */
const interp_op_impl *interp_ops_conv(int32_t *count);        /* conv, dw, fc, transpose_conv, svdf */
const interp_op_impl *interp_ops_elementwise(int32_t *count); /* pool, add/sub/mul/min/max, mean */
const interp_op_impl *interp_ops_activation(int32_t *count);  /* relu*, leaky, hswish, logistic, tanh, softmax, (de)quantize */
const interp_op_impl *interp_ops_shape(int32_t *count);       /* reshape .. unpack, concat, pad, slices, transpose, resize */
const interp_op_impl *interp_ops_math(int32_t *count);
const interp_op_impl *interp_ops_binop(int32_t *count);
const interp_op_impl *interp_ops_gather(int32_t *count);
const interp_op_impl *interp_ops_reduce(int32_t *count);
const interp_op_impl *interp_ops_lstm(int32_t *count);
const interp_op_impl *interp_ops_custom(int32_t *count);

#endif
