/* interp: the reference interpreter (host oracle). Prepares every op of a
 * graph with the reference kernels, plans one activation arena, runs. */
#ifndef NPUC_INTERP_H
#define NPUC_INTERP_H

#include "graph/graph.h"

typedef struct interp interp;

typedef struct interp_options {
    /* Give every tensor its own memory so that all intermediates stay
     * readable after invoke (debugging, --dump-tensors). */
    bool keep_all;
    /* Called after each op with the op index; tensors it wrote are valid. */
    void (*on_op_done)(void *user, const interp *ip, int32_t op_index);
    void *user;
    /* CUSTOM operators (e.g. "ethos-u"): when custom_eval is set, a CUSTOM
     * op whose custom code custom_accept accepts (all if NULL) is planned
     * like any op and run by calling custom_eval, which reads its inputs
     * and writes its outputs through interp_tensor_mut. */
    bool (*custom_accept)(void *user, const graph_op *op);
    int (*custom_eval)(void *user, interp *ip, const graph_op *op, npuc_err *err);
    void *custom_user;
    /* custom_accept (then not NULL) is asked about every op, builtin ones
     * too, and the ops it accepts are left out of the legacy uint8 check:
     * a caller that runs some ops its own way (or skips them) */
    bool custom_any;
} interp_options;

/* Prepares all ops (checks types/shapes, computes kernel parameters) and
 * plans memory. The graph must outlive the interpreter. */
int interp_create(const graph *g, const interp_options *opt, interp **out, npuc_err *err);
void interp_free(interp *ip);

/* Bytes of the activation arena (non-constant tensors, planned with live
 * ranges) and of per-op scratch / persistent state. */
size_t interp_arena_size(const interp *ip);
size_t interp_scratch_size(const interp *ip);

int interp_set_input(interp *ip, int32_t input_index, const void *data, size_t size, npuc_err *err);
int interp_invoke(interp *ip, npuc_err *err);
/* After interp_invoke returned NPUC_OK: true when an op (CIRCULAR_BUFFER
 * off its stride period) ended the invocation early, as TFLite Micro's
 * kTfLiteAbort: the ops after it did not run, the outputs are not ready. */
bool interp_not_ready(const interp *ip);
/* Resets variable (state) tensors to their initial values: their constant
 * data if any, else TFLite Micro's reset value (int8: the zero point, else 0). */
void interp_reset_state(interp *ip);

/* Bytes of the resource-variable area (graph_model.vars_size; 0 without
 * resource variables): part of the model's state, zeroed by
 * interp_reset_state. */
size_t interp_vars_size(const interp *ip);

/* Data of any tensor (constant: its buffer; activation: its arena slot). */
const void *interp_tensor_data(const interp *ip, int32_t tensor);
/* Writable data of a non-constant tensor (NULL for constants). */
void *interp_tensor_mut(interp *ip, int32_t tensor);
const void *interp_output(const interp *ip, int32_t output_index, size_t *size);
const graph *interp_graph(const interp *ip);

/* Whether the reference kernels compute tensors of type t: float32, the
 * integer types up to 64 bits except uint64, and bool. Ops touching any
 * other type (float16, float64, uint64, complex, int4, string, resource,
 * variant) are refused with "tensor N ('name') has type T, which the
 * reference kernels do not run" unless their implementation opts in. */
bool interp_dtype_runs(graph_dtype t);

/* Legacy uint8 models (TFLite 1.x: asymmetric per-tensor uint8
 * throughout), which TensorFlow Lite Micro refuses ("Hybrid models are not
 * supported") and the reference kernels do not run: an op other than
 * QUANTIZE, DEQUANTIZE, CAST and CUSTOM with a quantized uint8 input or
 * output. (uint8 QUANTIZE / DEQUANTIZE at the boundaries of an int8 model
 * are not legacy.) Returns that tensor, or -1. */
int32_t interp_legacy_uint8_tensor(const graph *g, const graph_op *op);
/* The error for the first legacy uint8 op of g that the reference kernels
 * do not run (uint8 data movement such as CONCATENATION or PAD runs) and
 * for which only(user, op index) holds (all when only is NULL): one line
 * naming the op, its operator and the tensor, suggesting int8
 * re-quantization. NPUC_OK when there is none. interp_create checks every
 * op with it (with custom_any, the ops custom_accept does not take). */
int interp_check_legacy_uint8(const graph *g, bool (*only)(const void *user, int32_t op), const void *user,
                              npuc_err *err);

/* Gives the outputs a model file leaves shapeless (rank 0, not constant)
 * the shapes their ops define when they prepare (Coral's PosenetDecoderOp:
 * from its max_detections), as each op's binding declares them, so that
 * they are planned like any tensor. Outputs a binding cannot size are left
 * as they are. Call it once after graph_import, before interp_create or a
 * compile. */
void interp_infer_shapes(graph *g);

/* Whether the interpreter implements the op with these tensor types;
 * fills why (if non-NULL) when not. */
bool interp_op_supported(const graph *g, const graph_op *op, char *why, size_t why_size);
/* The scratch bytes its kernel needs, the op prepared alone (as
 * interp_op_supported does); 0 when it needs none or does not prepare. */
size_t interp_op_scratch(const graph *g, const graph_op *op);
/* Whether the op's kernel, prepared alone, may write its output over its
 * input 0 from the same first byte (k_op_in_place); false when it does not
 * prepare. */
bool interp_op_in_place(const graph *g, const graph_op *op);

/* The prepared form of op op_index: its k_op kind and params blob (owned by
 * the interpreter, valid until interp_free) and the scratch / persistent
 * bytes k_op_run needs; run with k_op_run on the op's tensors (inputs in op
 * order) it computes exactly what the interpreter computes. Returns NPUC_OK,
 * NPUC_E_USAGE (bad index) or NPUC_E_UNSUPPORTED (a CUSTOM op, which has no
 * kernel). Any output pointer may be NULL. */
int interp_op_prepared(const interp *ip, int32_t op_index, uint32_t *kind, const void **params,
                       uint32_t *params_size, uint32_t *scratch_size, uint32_t *persistent_size);

#endif
