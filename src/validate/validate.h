/* validate: checks a deployed model against its source and profiles it.
 *
 * val_run compiles a TFLite graph (or takes a model npuc compiled before),
 * runs the deployed form through the host API (src/api/: the npuc runtime
 * with HW epochs on a virtual NPU through the ethos-u driver, as on the
 * MCU; the NPU's system is the one the model was compiled for) and the
 * source graph on the reference interpreter, for one or more input sets,
 * and fills a val_report: per output the comparison figures, per epoch and per graph op
 * the measured profile, and the activation memory plan over time. The
 * writers turn a report into JSON (everything), CSV (one row per op), a
 * text summary and one self-contained HTML page. Host-only; never prints. */
#ifndef NPUC_VALIDATE_H
#define NPUC_VALIDATE_H

#include "compiler/cc.h"
#include "npurt/npurt_format.h"   /* NPURT_EPOCH_* */

/* ------------------------------------------------------------ metrics */

/* How far `got` is from `ref` (element by element, as doubles). Integer
 * outputs are compared in their stored (quantized) units; the dequantized
 * figures are the same numbers times the scale. */
typedef struct val_metrics {
    uint64_t n;               /* elements compared */
    uint64_t n_diff;          /* elements that differ */
    bool bit_exact;           /* every byte equal */
    int64_t first_diff;       /* index of the first differing element, -1 */
    double max_abs;           /* max |got - ref| */
    double mae;               /* mean |got - ref| */
    double rmse;              /* sqrt(mean (got - ref)^2) */
    double cosine;            /* ref.got / (|ref| |got|); 1 when both are 0 */
    double l2_rel;            /* |got - ref| / |ref|; 0 when equal, inf when
                                 ref is all zeros and got is not */
} val_metrics;

/* Accumulates element pairs; val_metrics_finish computes the figures. */
typedef struct val_acc {
    uint64_t n, n_diff;
    int64_t first_diff;
    double max_abs, sum_abs, sum_sq, dot, ref_sq, got_sq;
    bool bytes_differ;
} val_acc;

void val_acc_init(val_acc *a);
/* Element i of a tensor of dtype dt, as a double. */
double val_elem(graph_dtype dt, const void *p, size_t i);
void val_acc_add(val_acc *a, double ref, double got);
void val_metrics_finish(const val_acc *a, val_metrics *m);
/* Whole tensors of dtype dt (n elements): adds every pair and notes whether
 * the bytes differ. scale > 0: values are dequantized first ((q - zp) * scale). */
void val_acc_add_tensor(val_acc *a, graph_dtype dt, const void *ref, const void *got, size_t n, double scale,
                        int64_t zp);

/* ------------------------------------------------------------ options */

typedef struct val_options {
    cc_options cc;                    /* how to compile (target, pools) */
    /* A model npuc compiled before (an NPRT blob, `--output-format bin`, or
     * a loadable NAME_rel.bin), run instead of compiling: in memory, or the
     * file compiled_path. Both NULL: compile the graph. Split loadable
     * models need their params: in memory, or the file compiled_params_path
     * (default for a file: NAME_params.bin beside NAME_rel.bin). */
    const uint8_t *compiled;
    size_t compiled_size;
    const char *compiled_path;
    const uint8_t *compiled_params;
    size_t compiled_params_size;
    const char *compiled_params_path;
    /* Input sets: inputs[s * n_inputs + i] is input i of set s, exactly the
     * tensor's size. n_sets >= 1. */
    const uint8_t *const *inputs;
    int32_t n_sets;
    /* Float twin: the same network in float32 (same inputs and outputs in
     * order and element count; outputs float32, inputs float32 or the
     * model's own type), run on the dequantized inputs. NULL: none. */
    const graph *float_graph;
    /* Acceptance: every output bit-exact (tolerance < 0), or max_abs (in
     * stored units) <= tolerance for every output. */
    double tolerance;
} val_options;

/* -------------------------------------------------------------- report */

typedef struct val_output {
    int32_t index;            /* output index */
    int32_t tensor;           /* graph tensor */
    char name[128];
    graph_dtype dtype;
    double scale;             /* 0: not quantized */
    int64_t zero_point;
    val_metrics q;            /* stored units */
    val_metrics deq;          /* dequantized (scale > 0) */
    bool classifier;          /* class scores: one dimension of >= 2 elements */
    int32_t top1_agree, top1_n;   /* sets whose argmax agrees / sets */
    bool has_float;           /* float twin compared */
    val_metrics float_deployed;   /* deployed (dequantized) vs float twin */
    val_metrics float_reference;  /* reference (dequantized) vs float twin */
    bool pass;                /* bit-exact, or within the tolerance */
} val_output;

enum { VAL_MEM_PARAMS = 0, VAL_MEM_ACTIVATIONS = 1, VAL_MEM_FAST = 2, VAL_N_MEM = 3 };

typedef struct val_op {
    int32_t index;            /* graph op */
    char type[48];            /* "CONV_2D", ... */
    char name[64];            /* its first output tensor's name */
    int32_t epoch;
    uint8_t kind;             /* NPURT_EPOCH_HW / _SW / _HYBRID */
    char why[160];            /* CPU ops: why not on the NPU */
    int32_t n_npu_ops;        /* NPU operations it became */
    uint64_t macs;
    uint64_t npu_cycles;      /* measured on the virtual NPU, all sets summed / n_sets */
    uint64_t est_cycles;      /* the compiler's estimate */
    double cpu_ns;            /* CPU time on this host (SW ops), per inference */
    uint64_t bytes_read[VAL_N_MEM], bytes_written[VAL_N_MEM];   /* per inference */
    double mac_util;          /* macs / (npu_cycles * MACs per cycle), 0..1 */
} val_op;

typedef struct val_epoch {
    uint8_t kind;             /* NPURT_EPOCH_* */
    int32_t first_op, n_ops;
    char work[48];            /* "command stream 1234 B" / kernel name */
    uint64_t npu_cycles, est_cycles;   /* per inference */
    double cpu_ns;            /* host CPU time: SW/HYBRID the kernel (prepare, run,
                                 finish); HW the driver work around the stream */
    uint64_t macs;
    uint64_t bytes_read[VAL_N_MEM], bytes_written[VAL_N_MEM];
} val_epoch;

/* One activation buffer of the memory plan: tensor, bytes, where, when. */
typedef struct val_buffer {
    int32_t tensor;           /* representative graph tensor, -1: op-internal */
    char name[96];
    int32_t pool;             /* VAL_MEM_* */
    uint64_t offset, size;
    int32_t first_op, last_op;   /* graph ops where it is live */
} val_buffer;

typedef struct val_pool {
    char name[32];            /* the system's pool name */
    uint64_t size;            /* its capacity (0: not bounded) */
    uint64_t used;            /* bytes the model reserves in it */
    uint64_t peak;            /* peak bytes live at once */
} val_pool;

typedef struct val_report {
    char model[256];          /* source model name (for reports) */
    char target[32];          /* "ethos-u55-128" */
    char system[64];          /* system config */
    double core_clock_hz;
    uint32_t macs_per_cycle;
    int32_t n_sets;
    bool compiled_here;       /* false: a prebuilt model was validated */
    bool op_detail;           /* per-op figures available (see docs) */
    char note[256];           /* why op_detail is false, etc. */
    double tolerance;         /* < 0: bit-exact required */
    bool pass;                /* every output passes */
    bool bit_exact;           /* every output bit-exact */
    val_output *outputs; int32_t n_outputs;
    val_epoch *epochs; int32_t n_epochs;
    val_op *ops; int32_t n_ops;
    val_buffer *buffers; int32_t n_buffers;
    val_pool pools[VAL_N_MEM];
    uint64_t state_bytes;     /* the state pool the model reserves (variables kept across invocations) */
    uint64_t *live;           /* [n_ops] activation bytes live at each op */
    /* totals per inference */
    uint64_t macs, npu_cycles, est_cycles;
    double cpu_ns;            /* host CPU time of SW epochs */
    double npu_s;             /* npu_cycles at core_clock_hz */
    double inferences_per_s;  /* 1 / (npu_s + CPU time), CPU time on this host */
    int32_t n_npu_ops_graph, n_cpu_ops_graph;   /* graph ops on NPU / CPU */
} val_report;

/* Runs everything (see the top of this file). The graph must be the source
 * TFLite graph. Errors: bad options, a model that fails to compile or run,
 * a prebuilt model whose inputs/outputs do not match the graph's. A model
 * that runs but differs is not an error: the report says so. */
int val_run(const graph *g, const char *model_name, const val_options *opt, val_report **out, npuc_err *err);
void val_report_free(val_report *r);

/* Writers: malloc'd text in *out. */
int val_report_json(const val_report *r, char **out, npuc_err *err);
int val_report_csv(const val_report *r, char **out, npuc_err *err);
int val_report_text(const val_report *r, bool profile, char **out, npuc_err *err);
int val_report_html(const val_report *r, char **out, npuc_err *err);

#endif
