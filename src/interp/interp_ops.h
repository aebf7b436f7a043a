/* Internal to interp/: how an op implementation plugs in. Each op group file
 * (ops_conv.c, ops_pool_elementwise.c, ops_activation.c, ops_shape.c, ...)
 * exports one table of interp_op_impl. */
#ifndef NPUC_INTERP_OPS_H
#define NPUC_INTERP_OPS_H

#include "interp.h"
#include "kernels/kernels.h"

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

/* The shape of output k of a custom op whose Prepare sizes it, where the
 * model file leaves it shapeless (Coral's PosenetDecoderOp); false when
 * the op declares none or cannot say from its options (its prepare then
 * reports what is wrong). ops_custom.c; used by interp_infer_shapes. */
bool interp_custom_out_shape(const graph_op *op, int32_t k, int32_t *rank, int32_t shape[GRAPH_MAX_RANK]);

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

/* Shared checks and formatting for the group files (ops_util.c). Errors
 * are set in err and returned as NPUC_E_*; NPUC_OK when the check passes. */
/* The tensor's name for messages: "?" when it has none. */
const char *interp_tname(const graph_tensor *t);
/* The tensor's dtype name ("int8", "float32", ...). */
const char *interp_dt(const graph_tensor *t);
/* Writes "[d0,d1,...]" into buf (truncated to size) and returns buf. */
const char *interp_shape_str(const int32_t *d, int32_t rank, char *buf, size_t size);
/* The output tensor must have the computed shape d[0..rank). */
int interp_check_out_shape(const graph_tensor *o, const int32_t *d, int32_t rank, npuc_err *err);
/* min_in..max_in inputs (the first min_in present), n_out outputs (any count when < 0), all present. */
int interp_check_counts(const interp_node *n, int32_t min_in, int32_t max_in, int32_t n_out, npuc_err *err);
/* One input, one output (set in *in, *out), element count within int32. */
int interp_check_unary_io(const interp_node *n, const graph_tensor **in, const graph_tensor **out, npuc_err *err);
/* a and b have the same dtype; the message names them what_a and what_b. */
int interp_check_same_dtype(const graph_tensor *a, const char *what_a, const graph_tensor *b, const char *what_b,
                            npuc_err *err);
/* The first scale of the tensor's quantization, 0 when it has none. */
float interp_q_scale(const graph_tensor *t);
/* The first zero point of the tensor's quantization, 0 when it has none. */
int32_t interp_q_zp(const graph_tensor *t);
/* The value range of an integer dtype (int8, uint8, int16; int32 otherwise). */
void interp_type_range(graph_dtype d, int64_t *lo, int64_t *hi);
/* Per-tensor scale (positive, normal) and zero point (in the dtype's range) of `what` tensor t. */
int interp_qparams(const graph_tensor *t, const char *what, float *scale, int32_t *zp, npuc_err *err);
/* Per-tensor int8/int16 quantization, usable scale, zero point in range ("<outside> the int8 range"). */
int interp_check_quant(const graph_tensor *t, const char *what, const char *outside, npuc_err *err);
/* Element i of a constant integer tensor (int8/16/32/64). */
int64_t interp_const_int(const graph_tensor *t, size_t i);
/* Reads a constant int32/int64 `what` tensor into v (at most max values); *count = values read. */
int interp_read_const_ints(const graph_tensor *t, const char *what, int64_t *v, int32_t max, int32_t *count,
                           npuc_err *err);
/* The product of d[from..to). */
int64_t interp_prod(const int32_t *d, int32_t from, int32_t to);
/* Equal ranks and dims. */
bool interp_dims_equal(const k_dims *a, const k_dims *b);
/* Defines `const interp_op_impl *fn(int32_t *count)` returning the array `table`. */
#define INTERP_OPS_TABLE(fn, table)                               \
    const interp_op_impl *fn(int32_t *count)                      \
    {                                                             \
        *count = (int32_t)(sizeof table / sizeof table[0]);       \
        return table;                                             \
    }

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
const interp_op_impl *interp_ops_signal(int32_t *count);     /* the audio front end's Signal* custom ops */
const interp_op_impl *interp_ops_control(int32_t *count);     /* var_handle, read/assign_variable, call_once, if, while */

/* For ops_control.c, which turns a subgraph's interpreter into a program:
 * the activation-arena offset of a tensor that lives there (false for
 * constants and variables), and the shared scratch bytes its ops need. */
bool interp_tensor_slot(const interp *ip, int32_t tensor, size_t *offset);
size_t interp_scratch_bytes(const interp *ip);

#endif
