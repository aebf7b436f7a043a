/* graph: the IR shared by the interpreter and the compiler. One subgraph:
 * tensors (shape, dtype, quantization, optional constant data) and ops in
 * execution order. Imported from tfl_model with validation; exported back. */
#ifndef NPUC_GRAPH_H
#define NPUC_GRAPH_H

#include "util/util.h"
#include "tflite/tflite.h"

#define GRAPH_MAX_RANK 8

/* Element types; values are TFLite TensorType values. */
typedef enum graph_dtype {
    GRAPH_F32 = TFL_FLOAT32,
    GRAPH_I32 = TFL_INT32,
    GRAPH_U8 = TFL_UINT8,
    GRAPH_I64 = TFL_INT64,
    GRAPH_BOOL = TFL_BOOL,
    GRAPH_I16 = TFL_INT16,
    GRAPH_I8 = TFL_INT8,
    GRAPH_U32 = TFL_UINT32,
    GRAPH_U16 = TFL_UINT16,
    /* Imported so that inspect and compile read any model; the reference
     * kernels compute none of them (interp_dtype_runs), so an op that
     * touches one runs nowhere unless its implementation opts in. */
    GRAPH_F16 = TFL_FLOAT16,
    GRAPH_F64 = TFL_FLOAT64,
    GRAPH_U64 = TFL_UINT64,
    GRAPH_C64 = TFL_COMPLEX64,
    GRAPH_C128 = TFL_COMPLEX128,
    GRAPH_I4 = TFL_INT4,          /* packed two per byte, low nibble first */
    GRAPH_STRING = TFL_STRING,    /* no fixed size: raw bytes */
    GRAPH_RESOURCE = TFL_RESOURCE,/* no fixed size: raw bytes */
    GRAPH_VARIANT = TFL_VARIANT   /* no fixed size: raw bytes */
} graph_dtype;

/* Bytes per element; 0 for int4 (half a byte: see graph_dtype_nbytes) and
 * for the types without a fixed size (string, resource, variant). */
size_t graph_dtype_size(graph_dtype t);
/* Bytes of `elems` elements: int4 packs two per byte (ceil(elems / 2));
 * 0 for string, resource and variant, whose size is their data's. */
size_t graph_dtype_nbytes(graph_dtype t, size_t elems);
/* Whether elements have a size known from the shape (all but string,
 * resource and variant). */
bool graph_dtype_fixed(graph_dtype t);
/* Whether t is a TFLite tensor type graph_dtype represents. */
bool graph_dtype_valid(int t);
const char *graph_dtype_name(graph_dtype t);
/* IEEE half <-> single precision (round to nearest even), for printing,
 * metrics and random inputs of float16 tensors. */
float graph_half_to_float(uint16_t h);
uint16_t graph_float_to_half(float f);

typedef struct graph_quant {
    int32_t n;              /* 0 = not quantized; 1 = per-tensor; >1 per-axis */
    float *scale;           /* n entries */
    int64_t *zero_point;    /* n entries */
    int32_t axis;           /* quantized_dimension, meaningful when n > 1 */
} graph_quant;

typedef struct graph_tensor {
    char *name;
    graph_dtype dtype;
    int32_t rank;
    int32_t shape[GRAPH_MAX_RANK];
    graph_quant q;
    const void *data;       /* constant data (arena-owned) or NULL */
    size_t nbytes;          /* graph_dtype_nbytes (int4 packed); string,
                               resource, variant: the constant's raw bytes, 0
                               for non-constants */
    bool is_variable;       /* state tensor (e.g. SVDF), persistent across runs */
    int32_t producer;       /* op index that writes it, -1 for inputs/constants */
    int64_t arena_offset;   /* offline-planned arena offset (TFLite metadata
                               "OfflineMemoryAllocation", as Vela writes it), -1 if none */
} graph_tensor;

typedef struct graph_op {
    int32_t opcode;         /* TFLite builtin code (TFL_OP_*) */
    int32_t version;
    char *custom_code;      /* for TFL_OP_CUSTOM */
    const uint8_t *custom_options; uint32_t n_custom_options;
    tfl_options opt;        /* parsed builtin options (defaults if none) */
    int32_t n_in;
    int32_t *in;            /* tensor indices, -1 = optional input absent */
    int32_t n_out;
    int32_t *out;
    int32_t index;          /* position in the source model */
} graph_op;

typedef struct graph {
    npuc_arena arena;
    char *name;             /* model / subgraph name for messages */
    graph_tensor *tensors; int32_t n_tensors;
    graph_op *ops; int32_t n_ops;
    int32_t cap_tensors, cap_ops;   /* allocated entries (builder growth) */
    int32_t *inputs; int32_t n_inputs;
    int32_t *outputs; int32_t n_outputs;
} graph;

/* Number of elements (product of dims; 1 for rank 0). */
size_t graph_tensor_elems(const graph_tensor *t);
/* Human-readable op name, e.g. "CONV_2D" or the custom code. */
const char *graph_op_name(const graph_op *op);

/* Imports subgraph 0 of a model. Validates indices, shapes (no negative or
 * dynamic dims), buffer sizes, dtypes and quantization consistency; errors
 * name the op index/name or tensor index/name. */
int graph_import(const tfl_model *m, graph **out, npuc_err *err);
void graph_free(graph *g);

/* Exports the graph as a TFLite model (one subgraph, buffer 0 empty). */
int graph_export(const graph *g, tfl_model **out, npuc_err *err);

/* Builder helpers (for tools/genmodel, tests and compiler passes). */
graph *graph_new(const char *name);
/* Adds a tensor; data (may be NULL) is copied. Returns index or -1 on OOM. */
int32_t graph_add_tensor(graph *g, const char *name, graph_dtype dtype, int32_t rank,
                         const int32_t *shape, const void *data);
/* Sets quantization on a tensor (arrays copied). */
int graph_set_quant(graph *g, int32_t tensor, int32_t n, const float *scale,
                    const int64_t *zero_point, int32_t axis);
/* Appends an op; arrays copied; sets producer of outputs. Returns op index or -1. */
int32_t graph_add_op(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in,
                     const int32_t *in, int32_t n_out, const int32_t *out);
int graph_set_io(graph *g, int32_t n_in, const int32_t *in, int32_t n_out, const int32_t *out);



/* Multiply-accumulates of one op (conv-like ops and FC; 0 for others, as
 * Vela counts). */
uint64_t graph_op_macs(const graph *g, const graph_op *op);
#endif
