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
    GRAPH_U64 = TFL_UINT64,       /* the signal library's filter bank output; views move it */
    /* Imported so that inspect and compile read any model; the reference
     * kernels compute none of them (interp_dtype_runs), so an op that
     * touches one runs nowhere unless its implementation opts in. */
    GRAPH_F16 = TFL_FLOAT16,
    GRAPH_F64 = TFL_FLOAT64,
    GRAPH_C64 = TFL_COMPLEX64,
    GRAPH_C128 = TFL_COMPLEX128,
    GRAPH_I4 = TFL_INT4,          /* packed two per byte, low nibble first */
    GRAPH_STRING = TFL_STRING,    /* no fixed size: raw bytes */
    GRAPH_RESOURCE = TFL_RESOURCE,/* an int32 resource id per element (TFLite Micro's layout) */
    GRAPH_VARIANT = TFL_VARIANT   /* no fixed size: raw bytes */
} graph_dtype;

/* Bytes per element (resource: 4, its int32 id); 0 for int4 (half a byte: see graph_dtype_nbytes) and
 * for the types without a fixed size (string, variant). */
size_t graph_dtype_size(graph_dtype t);
/* Bytes of `elems` elements: int4 packs two per byte (ceil(elems / 2));
 * 0 for string and variant, whose size is their data's. */
size_t graph_dtype_nbytes(graph_dtype t, size_t elems);
/* Whether elements have a size known from the shape (all but string and
 * variant). */
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
                               variant: the constant's raw bytes, 0 for
                               non-constants */
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

struct graph_model;

typedef struct graph {
    npuc_arena arena;
    char *name;             /* model / subgraph name for messages */
    graph_tensor *tensors; int32_t n_tensors;
    graph_op *ops; int32_t n_ops;
    int32_t cap_tensors, cap_ops;   /* allocated entries (builder growth) */
    int32_t *inputs; int32_t n_inputs;
    int32_t *outputs; int32_t n_outputs;
    /* A model with several subgraphs or resource variables: its other
     * subgraphs and variables (see graph_model). graph_import sets it on
     * subgraph 0, which owns it (freed with it); graphs derived from that
     * one (compiler passes, the deployed model) reach it through their
     * control and variable ops' opt.graph_model (graph_model_of). */
    struct graph_model *model;
} graph;

/* One resource variable (TFLite Micro's MicroResourceVariables entry): a
 * (container, shared_name) pair that a VAR_HANDLE names, in the order TFLite
 * Micro creates its ids (subgraphs 0, 1, ... each in op order; a NULL
 * container matches any). Its storage is fixed by the first
 * ASSIGN_VARIABLE in that order whose resource comes from a VAR_HANDLE of
 * the same subgraph (as TFLite Micro allocates it at prepare). */
typedef struct graph_resource {
    char *container;        /* NULL: absent */
    char *shared_name;
    bool assigned;          /* storage fixed by an ASSIGN_VARIABLE */
    graph_dtype dtype;
    int32_t rank;
    int32_t shape[GRAPH_MAX_RANK];
    size_t nbytes;
    int32_t fill;           /* byte the value starts as (TFLM: the int8 zero point of the assigned tensor, else 0) */
    size_t area_off;        /* in the variable area: an 8-byte header, then nbytes */
} graph_resource;

/* Everything of a model beyond subgraph 0. */
typedef struct graph_model {
    int32_t n_subgraphs;    /* all of them, subgraph 0 included */
    graph **sub;            /* [n_subgraphs]; sub[0] = the imported subgraph 0 */
    graph_resource *res; int32_t n_res;
    size_t vars_size;       /* bytes of the variable area (each variable 8-aligned: header + value) */
} graph_model;

/* Bytes of the variable area header in front of each value: word 0 is 1
 * once the value is initialised since the last reset (0: start it at its
 * fill byte), word 1 is reserved. */
#define GRAPH_VAR_HEADER 8u

/* The graph_model of g: g->model, else the one its ops point to; NULL for
 * a plain one-subgraph model without resource variables. */
const graph_model *graph_model_of(const graph *g);
/* Whether opcode is one of the ops that reach the graph_model (IF, WHILE,
 * CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE). */
bool graph_op_uses_model(int32_t opcode);
/* The resource id a VAR_HANDLE with these names gets (TFLite Micro's
 * FindId), or -1. */
int32_t graph_resource_find(const graph_model *gm, const char *container, const char *shared_name);
/* For builders (tools/genmodel, tests): a model made of the graphs subs[0..n)
 * (subgraph 0 first; ownership of subs[1..n) passes to subs[0]): sets
 * subs[0]->model, points the ops that need it at it and runs the checks
 * graph_import runs (subgraph indices, signatures, resource variables). */
int graph_model_attach(graph **subs, int32_t n, npuc_err *err);

/* Number of elements (product of dims; 1 for rank 0). */
size_t graph_tensor_elems(const graph_tensor *t);
/* Human-readable op name, e.g. "CONV_2D" or the custom code. */
const char *graph_op_name(const graph_op *op);

/* Imports a model: subgraph 0 as the graph, the others (IF, WHILE,
 * CALL_ONCE bodies) and the resource variables into its graph_model.
 * Validates indices, shapes (no negative or dynamic dims), buffer sizes,
 * dtypes and quantization consistency, subgraph indices and signatures;
 * errors name the op index/name (and subgraph) or tensor index/name. */
int graph_import(const tfl_model *m, graph **out, npuc_err *err);
void graph_free(graph *g);

/* Exports the graph as a TFLite model (buffer 0 empty): the graph as
 * subgraph 0, then the other subgraphs of its graph_model, if any. */
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
