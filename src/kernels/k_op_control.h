/* kernels: prepared-op kinds of the state and control family: resource
 * variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) and the ops that
 * run other subgraphs (CALL_ONCE, IF, WHILE), with TensorFlow Lite Micro's
 * semantics (docs/kernels-control.md).
 *
 * Kind numbers 490..511 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_CONTROL, which k_op.c puts into its kind table, and is run by
 * k_op_run_control (k_op_control.c).
 *
 * Resource variables live in the variable area (k_op_io.vars): the model's
 * state, zeroed at init and by a reset. Each variable has an 8-byte header
 * (word 0: 1 once its value is initialised since the last reset; 0: the
 * value starts as its fill byte, as TFLite Micro's allocation and
 * ResetAll set it) and then its value. Ops find a variable by the int32
 * resource id a VAR_HANDLE wrote, in the variable table of their blob.
 *
 * A control op carries the subgraphs it runs in its own blob, each as a
 * program: the subgraph's tensors (constants inside the blob, the others at
 * offsets of the op's scratch), its ops as prepared kinds with their blobs
 * and operands, its inputs and outputs. The op copies its inputs into the
 * program's inputs, runs the program's ops with k_op_run, and copies the
 * program's outputs into its own outputs (TFLite Micro's
 * CopyOpInputsToSubgraphInputs / CopySubgraphOutputsToOpOutputs). The
 * scratch holds the program's tensors, then the scratch its ops need;
 * the persistent buffer an 8-byte header (CALL_ONCE: word 0 = has run),
 * then the persistent buffers of the program ops. */
#ifndef NPUC_K_OP_CONTROL_H
#define NPUC_K_OP_CONTROL_H

#include "k_common.h"

enum {
    K_OP_CONTROL_FIRST = 490,
    K_OP_CONTROL_LAST = 511
};

enum {
    /* k_op_var_handle_blob. out: resource id, int32 [1] */
    K_OP_VAR_HANDLE = 490,
    /* k_op_var_blob. in: resource id int32 [1]  out: the value; vars */
    K_OP_READ_VARIABLE = 491,
    /* k_op_var_blob. in: resource id int32 [1], value; vars */
    K_OP_ASSIGN_VARIABLE = 492,
    /* k_op_ctl_blob, one program (init). No tensors. persistent, scratch, vars */
    K_OP_CALL_ONCE = 493,
    /* k_op_ctl_blob, two programs (then, else). in: cond bool [1], the
     * branch inputs  out: the branch outputs; persistent, scratch, vars */
    K_OP_IF = 494,
    /* k_op_ctl_blob, two programs (cond, body). in: loop variables  out:
     * loop variables; persistent, scratch, vars */
    K_OP_WHILE = 495
};

/* Nesting of control ops inside programs: at most this deep. */
#define K_CTL_MAX_DEPTH 8
/* Operands (inputs + outputs) of one program op. */
#define K_CTL_MAX_OPERANDS 64
/* WHILE: TensorFlow Lite Micro loops for as long as cond says so. The
 * kernel gives up (K_E_UNSUPPORTED) once one control op has run this many
 * program ops and loop iterations in one invocation, over all its loops
 * and the control ops nested in it (so nested loops cannot multiply it).
 * A build may set it lower: the fuzz targets do, so that a loop that never
 * ends ends within the fuzzer's time limit. */
#ifndef K_CTL_MAX_RUNS
#define K_CTL_MAX_RUNS (1u << 24)
#endif

typedef struct k_op_var_handle_blob {
    int32_t id;                /* >= 0 */
} k_op_var_handle_blob;

/* One variable: where it lives in the variable area. */
typedef struct k_op_var_entry {
    uint32_t off;              /* header offset in the area, multiple of 8 */
    uint32_t bytes;            /* value bytes; 0: never assigned (no storage) */
    int32_t fill;              /* byte of the initial value, [-128, 255] */
} k_op_var_entry;

typedef struct k_op_var_blob {
    int32_t n_vars;            /* >= 0 */
    uint32_t vars_off;         /* k_op_var_entry[n_vars] */
} k_op_var_blob;

typedef struct k_op_ctl_blob {
    int32_t n_prog;            /* CALL_ONCE 1, IF / WHILE 2 */
    uint32_t prog_off[2];      /* k_op_prog at these blob offsets (8-aligned) */
    uint32_t tensor_bytes;     /* scratch for the program tensors (multiple of 8) */
    uint32_t scratch_bytes;    /* whole scratch the op needs (>= tensor_bytes) */
    uint32_t persist_bytes;    /* persistent: 8-byte header + the program ops' */
    uint32_t vars_bytes;       /* variable area the programs need (0: none) */
} k_op_ctl_blob;

/* A program tensor: where its bytes are. */
enum { K_PROG_ABSENT = 0, K_PROG_SLOT = 1, K_PROG_CONST = 2 };
typedef struct k_op_prog_tensor {
    int32_t where;             /* K_PROG_* */
    uint32_t off;              /* SLOT: scratch offset; CONST: blob offset */
    uint32_t size;             /* bytes */
} k_op_prog_tensor;

typedef struct k_op_prog_op {
    uint32_t kind;
    uint32_t params_off, params_size;  /* blob of the op, 8-aligned inside this blob */
    int32_t n_in, n_out;
    uint32_t operands_off;     /* int32[n_in + n_out]: program tensor indices, -1 absent */
    uint32_t scratch_size;     /* at most scratch_bytes - tensor_bytes */
    uint32_t persist_off, persist_size;  /* inside the op's persistent buffer (after its header) */
} k_op_prog_op;

typedef struct k_op_prog {
    int32_t n_tensors, n_ops, n_inputs, n_outputs;
    uint32_t tensors_off;      /* k_op_prog_tensor[n_tensors] */
    uint32_t ops_off;          /* k_op_prog_op[n_ops] */
    uint32_t inputs_off;       /* int32[n_inputs] tensor indices (slots) */
    uint32_t outputs_off;      /* int32[n_outputs] tensor indices */
} k_op_prog;

_Static_assert(sizeof(k_op_var_handle_blob) == 4, "k_op_var_handle_blob layout");
_Static_assert(sizeof(k_op_var_entry) == 12, "k_op_var_entry layout");
_Static_assert(sizeof(k_op_var_blob) == 8, "k_op_var_blob layout");
_Static_assert(sizeof(k_op_ctl_blob) == 28, "k_op_ctl_blob layout");
_Static_assert(sizeof(k_op_prog_tensor) == 12, "k_op_prog_tensor layout");
_Static_assert(sizeof(k_op_prog_op) == 36, "k_op_prog_op layout");
_Static_assert(sizeof(k_op_prog) == 32, "k_op_prog layout");

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_CONTROL                                        \
    [K_OP_VAR_HANDLE] = {"var_handle", F_CONTROL, 0},             \
    [K_OP_READ_VARIABLE] = {"read_variable", F_CONTROL, 0},       \
    [K_OP_ASSIGN_VARIABLE] = {"assign_variable", F_CONTROL, 0},   \
    [K_OP_CALL_ONCE] = {"call_once", F_CONTROL, 0},               \
    [K_OP_IF] = {"if", F_CONTROL, 0},                             \
    [K_OP_WHILE] = {"while", F_CONTROL, 0},

#endif
