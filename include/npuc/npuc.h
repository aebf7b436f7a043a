/* npuc.h: the npuc host API.
 *
 * One entry point for a PC program that compiles models for an Arm Ethos-U
 * NPU and runs them on a virtual NPU: what `npuc compile`, `npuc run` and
 * `npuc validate` are built on. Host only (it allocates, reads and writes
 * files, runs the virtual NPU on threads); the MCU side is the runtime
 * (include/npurt/) and the driver (include/ethosu_driver.h).
 *
 *   npuc_model *m;
 *   npuc_target_spec target = {0};                  -- what the model was compiled for
 *   if (npuc_model_open_file("person_detect.nprt", &target, NULL, &m))
 *       fprintf(stderr, "%s\n", npuc_last_error());
 *   npuc_set_input(m, 0, image, image_size);
 *   npuc_run(m, NULL);
 *   size_t n;
 *   const int8_t *scores = npuc_output(m, 0, &n);
 *   npuc_model_close(&m);
 *
 * Conventions:
 * - Functions that can fail return an npuc_status: 0 (NPUC_STATUS_OK) or
 *   an error code. npuc_last_error() then gives one line that says what
 *   failed and where (file, byte offset, op, tensor). Nothing prints,
 *   nothing exits.
 * - Handles are opaque. Close and free take the handle's address and set
 *   it to NULL, so closing twice is harmless and closing NULL does
 *   nothing; every other function refuses a NULL handle with
 *   NPUC_STATUS_USAGE (counts are 0, pointers NULL).
 * - Strings and pointers a handle hands out stay valid until the handle is
 *   closed (run data: until the next run).
 * - A handle is used by one thread at a time; different handles may run on
 *   different threads at once.
 *
 * See docs/api.md. */
#ifndef NPUC_NPUC_H
#define NPUC_NPUC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUC_API_VERSION_MAJOR 1
#define NPUC_API_VERSION_MINOR 0

/* ------------------------------------------------------------------ errors */

typedef enum npuc_status {
    NPUC_STATUS_OK = 0,
    NPUC_STATUS_FORMAT = 1,       /* malformed file or buffer (bad magic, offset, checksum, ...) */
    NPUC_STATUS_INVALID = 2,      /* well formed, but inconsistent model or input */
    NPUC_STATUS_UNSUPPORTED = 3,  /* an op, type or feature npuc does not support */
    NPUC_STATUS_IO = 4,           /* a file could not be read or written */
    NPUC_STATUS_NOMEM = 5,        /* out of memory */
    NPUC_STATUS_USAGE = 6,        /* bad arguments: NULL, index out of range, wrong size,
                                     unknown target name, a call out of order */
    NPUC_STATUS_RUNTIME = 7       /* a run failed (the NPU or a CPU kernel reported an error) */
} npuc_status;

/* "ok", "format", "invalid", ... */
const char *npuc_status_name(int status);

/* The message of the last failed call on this thread ("" if the last call
 * that returns a status succeeded). Valid until the next npuc_* call on
 * this thread. */
const char *npuc_last_error(void);

/* ------------------------------------------------------------------ target */

/* The NPU and system a model is compiled for or runs on, as strings, with
 * the grammar of `npuc compile` / `run` / `validate` (docs/system-config.md).
 * Any field NULL means the default: for compile ethos-u55-256 with its
 * default system; for a compiled model the target it records (npuc writes
 * one into every compiled form), else the NPU its command streams need with
 * that NPU's default system. Fields given override the recorded ones.
 *   npu            "ethos-u55-32", "-64", "-128", "-256", "ethos-u65-256", "-512"
 *   config         a Vela configuration file (vela.ini); system_config and
 *                  memory_mode then name its [System_Config.*] and
 *                  [Memory_Mode.*] sections
 *   system_config  a built-in system ("Ethos_U55_High_End_Embedded"), "SYSTEM:MODE",
 *                  or a JSON memory-pool file
 *   memory_mode    "Sram_Only", "Shared_Sram", "Dedicated_Sram", "Dedicated_Sram_512KB" */
typedef struct npuc_target_spec {
    const char *npu;
    const char *config;
    const char *system_config;
    const char *memory_mode;
} npuc_target_spec;

/* Checks a target spec without a model: every name known, a system file
 * readable and valid. NULL = all defaults (ok). */
int npuc_target_check(const npuc_target_spec *target);

/* ------------------------------------------------------------------- compile */

typedef enum npuc_optimise { NPUC_OPTIMISE_PERFORMANCE = 0, NPUC_OPTIMISE_SIZE = 1 } npuc_optimise;

/* Chains of NPU ops run band by band through rolling buffers: AUTO where
 * that lowers the activation peak, ALL wherever possible, OFF never. */
typedef enum npuc_cascade { NPUC_CASCADE_AUTO = 0, NPUC_CASCADE_OFF = 1, NPUC_CASCADE_ALL = 2 } npuc_cascade;

/* Output formats (bits). Every compile also produces the two reports,
 * NAME_report.json and NAME_report.csv. */
enum {
    NPUC_FORMAT_TFLITE = 1u << 0,   /* NAME_npu.tflite: ethos-u ops, for TFLite Micro + the Ethos-U driver */
    NPUC_FORMAT_C = 1u << 1,        /* ID_model.h + ID_model.c: the NPRT blob as a const array */
    NPUC_FORMAT_NPRT = 1u << 2,     /* NAME.nprt: the npuc runtime's compiled model */
    NPUC_FORMAT_RELOC = 1u << 3,    /* NAME_rel.bin (+ NAME_params.bin) + NAME_rel.json: loadable */
    NPUC_FORMAT_ALL = 0xFu,
    NPUC_FORMAT_REPORT = 1u << 8    /* (the reports, as npuc_output_file.format) */
};

#define NPUC_HEADROOM_NONE (-1)

typedef struct npuc_compile_options {
    npuc_target_spec target;
    npuc_optimise optimise;
    npuc_cascade cascade;
    /* how much loading weights early may add to the activation peak, in
     * percent of it (1..1000); 0: the default (20); NPUC_HEADROOM_NONE: never */
    int32_t prefetch_headroom;
    bool no_fold;               /* keep ops whose inputs are all constants */
    unsigned formats;           /* NPUC_FORMAT_* bits; 0: NPUC_FORMAT_TFLITE */
    bool split;                 /* RELOC: params in a separate NAME_params.bin */
    const uint8_t *sign_seed;   /* RELOC: sign with this 32-byte Ed25519 key seed (NULL: unsigned) */
    /* NAME of the output files and of the model inside them. NULL: the
     * source file's name without .tflite (characters other than letters,
     * digits and '_' become '_'); from memory "model". */
    const char *name;
    /* Vela's --arena-cache-size, in bytes. U55 (Shared_Sram): the most
     * SRAM the arena may take; the compiler picks the schedule with the
     * fewest NPU cycles that fits (smaller weight chunks, less prefetch, no
     * weight copies, cascades) and fails with NPUC_E_UNSUPPORTED, naming
     * the least it needs, when none does. U65 Dedicated_Sram: the size of
     * the fast SRAM pool (Vela's arena_cache_size), smaller or larger than
     * the system's; what does not fit stays in the DRAM arena (a JSON pool
     * file's fast pool: at most its own size). 0: no limit, the system's
     * pool (the default schedule: the fewest cycles, within 1% of them the
     * least SRAM). */
    uint64_t arena_cache_size;
} npuc_compile_options;

typedef struct npuc_compiled npuc_compiled;

/* Compiles a TFLite model (int8 / int16x8) and produces every output of
 * the formats asked for in memory; nothing is written. opt NULL: defaults.
 * Errors name the source (the path, or opt->name for memory). */
int npuc_compile_file(const char *path, const npuc_compile_options *opt, npuc_compiled **out);
int npuc_compile_memory(const void *data, size_t size, const npuc_compile_options *opt, npuc_compiled **out);
/* Frees *c and sets *c to NULL (c or *c NULL: nothing). */
void npuc_compiled_free(npuc_compiled **c);

/* One output file, in memory. */
typedef struct npuc_output_file {
    const char *name;           /* file name, no folder: "person_detect_npu.tflite" */
    unsigned format;            /* the NPUC_FORMAT_* it belongs to */
    const void *data;
    size_t size;
} npuc_output_file;

size_t npuc_compiled_file_count(const npuc_compiled *c);
int npuc_compiled_file(const npuc_compiled *c, size_t i, npuc_output_file *out);

/* Writes every output file into dir (created if missing). Each file is
 * written atomically; if one fails, the ones already written are removed:
 * all files or none. */
int npuc_compiled_write(const npuc_compiled *c, const char *dir);

/* The summary `npuc compile` prints (placement, cycles, memory; with
 * RELOC also the loadable model's memory layout). NULL for a NULL handle. */
const char *npuc_compiled_summary(const npuc_compiled *c);

/* Where each op of the source model went. */
typedef struct npuc_op_placement {
    const char *op;             /* "CONV_2D", ... */
    bool folded;                /* computed at compile time: became a constant */
    bool npu;                   /* runs on the NPU (else on the CPU, see why) */
    int32_t epoch;              /* epoch it runs in */
    int32_t n_npu_ops;          /* NPU operations it became */
    uint64_t cycles;            /* the cycle model's estimate */
    int32_t cascade;            /* first op of its cascade, -1: none */
    int32_t fused_into;         /* an activation the NPU ops of this source op
                                   apply in their output stage, -1: none */
    int32_t folded_into;        /* a PAD or uint8 QUANTIZE that this later
                                   conv's NPU ops apply (its padding, its
                                   zero point), -1: none */
    const char *why;            /* CPU ops: why not on the NPU ("" otherwise) */
} npuc_op_placement;

size_t npuc_compiled_op_count(const npuc_compiled *c);    /* ops of the source model */
int npuc_compiled_op(const npuc_compiled *c, size_t i, npuc_op_placement *out);

/* The compiled model's totals (NAME_report.json's "totals"). */
typedef struct npuc_compiled_totals {
    int32_t ops, npu_ops, cpu_ops;  /* ops after folding; of which on the NPU, on the CPU */
    uint64_t npu_cycles;        /* the cycle model's estimate of every command stream */
    uint64_t arena_bytes;       /* peak of the activation arena */
    uint64_t fast_bytes;        /* peak of the fast scratch pool (U65 Dedicated_Sram; 0: none) */
    uint64_t flash_bytes;       /* read-only data: weights, scales, LUTs, command streams */
    const char *arena_memory;   /* kind of memory the arena sits in: "Sram", "Dram", ... */
    const char *system_config;  /* the system compiled for: "Ethos_U65_High_End:Dedicated_Sram" */
    double compile_seconds;     /* the compiler proper (import and output files excluded) */
    uint64_t command_stream_bytes; /* of flash_bytes, the command streams (Vela's summary and its
                                      read_only tensor count them apart) */
    uint32_t command_streams;   /* NPU (HW) epochs: the ethos-u ops of the _npu.tflite */
    uint64_t state_bytes;       /* of arena_bytes, variable tensors NPU ops use (an LSTM's state
                                   kept across invocations; Vela's SRAM figure leaves them out) */
    uint64_t state_pool_bytes;  /* variable tensors only CPU ops use (SVDF state), apart from the
                                   arena: the runtime's state pool, TFLite Micro's persistent area */
    uint64_t cpu_scratch_bytes; /* the CPU kernels' scratch the runtime's forms (bin, c, reloc) place
                                   after the arena: their activation pool is arena_bytes plus this */
} npuc_compiled_totals;

int npuc_compiled_get_totals(const npuc_compiled *c, npuc_compiled_totals *out);

/* --------------------------------------------------------------- open a model */

/* What a file or buffer holds, by its first bytes. */
typedef enum npuc_form {
    NPUC_FORM_UNKNOWN = 0,
    NPUC_FORM_TFLITE = 1,       /* a TFLite model: a source model (reference interpreter), or one
                                   with ethos-u ops (npuc's _npu.tflite, Vela's output), whose
                                   command streams run on the virtual NPU */
    NPUC_FORM_NPRT = 2,         /* the npuc runtime's compiled model (.nprt) */
    NPUC_FORM_RELOC = 3         /* a runtime-loadable model (_rel.bin) */
} npuc_form;

npuc_form npuc_probe_memory(const void *data, size_t size);
/* NPUC_FORM_UNKNOWN also when the file cannot be read. */
npuc_form npuc_probe_file(const char *path);

typedef enum npuc_install_mode {
    NPUC_INSTALL_XIP = 0,       /* parameters used in place */
    NPUC_INSTALL_COPY = 1       /* model and parameters copied into exec RAM */
} npuc_install_mode;

typedef struct npuc_open_options {
    /* names the model in messages; default: the path (files), none (memory) */
    const char *name;
    /* TFLite: keep every tensor readable after a run (npuc_tensor_data,
     * npuc_dump_tensors); costs memory */
    bool keep_tensors;
    /* loadable models (_rel.bin); the others refuse these with NPUC_STATUS_USAGE */
    npuc_install_mode install;
    bool install_clear;         /* zero the activation pools at install */
    const char *params_path;    /* split model: its params file (files: default NAME_params.bin
                                   beside NAME_rel.bin) */
    const void *params;         /* split model from memory: the params file's bytes */
    size_t params_size;
    const uint8_t *public_key;  /* require a signature by this 32-byte Ed25519 public key */
    const char *public_key_path;/* ... or by the key in this file */
    /* TFLite: run the ethos-u ops (command streams) only and skip every
     * other op, whose outputs keep what they hold (zeros at first): the
     * streams' NPU cycles (npuc_get_profile), which do not depend on the
     * data, of a model whose CPU ops the reference interpreter cannot run.
     * The outputs mean nothing. Other forms refuse it (NPUC_STATUS_USAGE). */
    bool npu_only;
} npuc_open_options;

typedef struct npuc_model npuc_model;

/* Opens a model on a virtual NPU: a TFLite model (any), an NPRT or a
 * loadable model, by its first bytes. The data is copied; opt NULL:
 * defaults; target NULL: all defaults. A bad target name fails here. */
int npuc_model_open_file(const char *path, const npuc_target_spec *target, const npuc_open_options *opt,
                         npuc_model **out);
int npuc_model_open_memory(const void *data, size_t size, const npuc_target_spec *target,
                           const npuc_open_options *opt, npuc_model **out);
/* Frees everything the model holds (the virtual NPU, pools, copies) and
 * sets *m to NULL (m or *m NULL: nothing). */
void npuc_model_close(npuc_model **m);

typedef struct npuc_model_info {
    npuc_form form;
    const char *name;           /* compiled models: the name inside; TFLite: the graph's (may be "") */
    uint32_t n_ops;             /* graph ops (TFLite) */
    uint32_t n_epochs, n_hw_epochs;   /* compiled models: epochs, of which on the NPU */
    uint32_t n_ethosu_ops;      /* TFLite: ethos-u ops (command streams) */
    uint64_t command_stream_bytes;   /* TFLite: their command streams' bytes (input 0 of each) */
    /* memory: TFLite the interpreter's activation arena; compiled models
     * the pools they need */
    uint64_t activations_size, params_size, fast_size, state_size;
    /* the virtual NPU ("" until created: TFLite models create it at their
     * first ethos-u op) */
    const char *npu;            /* "ethos-u55-128" */
    const char *system_config;  /* the cycle model's system, "Ethos_U55_High_End_Embedded" */
    double core_clock_hz;
    uint32_t macs_per_cycle;
    /* loadable models */
    npuc_install_mode install;
    bool install_clear;
    uint32_t exec_ram_used, n_relocs;
} npuc_model_info;

int npuc_model_get_info(const npuc_model *m, npuc_model_info *out);

/* --------------------------------------------------------- inputs and outputs */

/* Tensor types: the TFLite schema's TensorType numbers. */
typedef enum npuc_dtype {
    NPUC_DT_FLOAT32 = 0, NPUC_DT_FLOAT16 = 1, NPUC_DT_INT32 = 2, NPUC_DT_UINT8 = 3, NPUC_DT_INT64 = 4,
    NPUC_DT_STRING = 5, NPUC_DT_BOOL = 6, NPUC_DT_INT16 = 7, NPUC_DT_COMPLEX64 = 8, NPUC_DT_INT8 = 9,
    NPUC_DT_FLOAT64 = 10, NPUC_DT_COMPLEX128 = 11, NPUC_DT_UINT64 = 12, NPUC_DT_RESOURCE = 13,
    NPUC_DT_VARIANT = 14, NPUC_DT_UINT32 = 15, NPUC_DT_UINT16 = 16, NPUC_DT_INT4 = 17
} npuc_dtype;

const char *npuc_dtype_name(npuc_dtype t);      /* "int8", "float32", ... */

#define NPUC_MAX_RANK 8

typedef enum npuc_tensor_kind {
    NPUC_TENSOR_ACTIVATION = 0, NPUC_TENSOR_INPUT = 1, NPUC_TENSOR_CONST = 2, NPUC_TENSOR_STATE = 3
} npuc_tensor_kind;

typedef struct npuc_tensor_info {
    const char *name;
    npuc_dtype dtype;
    int32_t rank;
    int32_t shape[NPUC_MAX_RANK];
    size_t size;                /* bytes */
    int32_t quant_n;            /* 0: not quantized, 1: per tensor, > 1: per channel */
    const float *scale;         /* quant_n entries */
    const int64_t *zero_point;  /* quant_n entries */
    int32_t quant_axis;         /* per channel: the channel dimension */
    npuc_tensor_kind kind;
} npuc_tensor_info;

uint32_t npuc_input_count(const npuc_model *m);
uint32_t npuc_output_count(const npuc_model *m);
int npuc_input_info(const npuc_model *m, uint32_t i, npuc_tensor_info *out);
int npuc_output_info(const npuc_model *m, uint32_t i, npuc_tensor_info *out);

/* Copies input i (size must be its byte size exactly). Inputs keep their
 * values across runs; every input must be set before the first run. */
int npuc_set_input(npuc_model *m, uint32_t i, const void *data, size_t size);

/* Output i of the last run: a pointer into the model (valid until the next
 * run or close), or a copy (size must be its byte size exactly). Before a
 * run: NULL / NPUC_STATUS_USAGE. */
const void *npuc_output(const npuc_model *m, uint32_t i, size_t *size);
int npuc_get_output(const npuc_model *m, uint32_t i, void *data, size_t size);

/* ------------------------------------------------------------------------ run */

/* What happens on the NPU during a run, for the trace callback. */
typedef enum npuc_event_kind {
    NPUC_EVENT_STREAM_BEGIN = 1,  /* a command stream starts: index is the ethos-u op (TFLite)
                                     or the epoch (compiled models) */
    NPUC_EVENT_COMMAND = 2,       /* the NPU executed a command; text is its disassembly */
    NPUC_EVENT_STREAM_END = 3     /* the stream finished (its profile, when on, is in
                                     npuc_get_profile already) */
} npuc_event_kind;

typedef struct npuc_event {
    npuc_event_kind kind;
    int32_t index;
    const char *text;           /* COMMAND: one line; else NULL */
} npuc_event;

/* COMMAND events of compiled models may come from the virtual NPU's
 * thread while the run waits for it. */
typedef void (*npuc_trace_fn)(void *user, const npuc_event *ev);

typedef struct npuc_run_options {
    npuc_trace_fn trace;        /* NULL: no trace */
    void *trace_user;
    bool poll;                  /* compiled models: wait for the NPU by polling, not its interrupt */
    bool profile;               /* record the profile (npuc_get_profile) */
} npuc_run_options;

/* Runs the model once with the inputs set. opt NULL: no trace, interrupt,
 * no profile. A run that fails leaves the outputs undefined. */
int npuc_run(npuc_model *m, const npuc_run_options *opt);

/* False when the last run ended early without an error: an op
 * (CIRCULAR_BUFFER off its period) stopped it as TFLite Micro's
 * kTfLiteAbort does; the outputs are not ready this time. */
bool npuc_outputs_ready(const npuc_model *m);

/* ---------------------------------------------------------------------- profile */

/* Memories an NPU operation reads and writes. */
enum { NPUC_MEM_PARAMS = 0, NPUC_MEM_ACTIVATIONS = 1, NPUC_MEM_FAST = 2, NPUC_N_MEM = 3 };

typedef enum npuc_npu_op_kind {
    NPUC_NPU_CONV = 0, NPUC_NPU_DEPTHWISE = 1, NPUC_NPU_POOL = 2, NPUC_NPU_ELEMENTWISE = 3, NPUC_NPU_DMA = 4
} npuc_npu_op_kind;

/* One NPU operation of a command stream, with the cycle model's figures. */
typedef struct npuc_npu_op {
    npuc_npu_op_kind kind;
    const char *name;           /* "CONV", "DEPTHWISE", "MAXPOOL", "ADD", ..., "DMA" */
    uint32_t cmd_offset;        /* byte offset of its command in the stream */
    uint32_t ofm_w, ofm_h, ofm_d;
    uint64_t dma_bytes;
    uint64_t macs;
    uint64_t cycles_compute, cycles_memory, cycles;   /* this operation alone */
    uint64_t end;               /* when it ends on the stream's timeline */
    uint64_t bytes_read[NPUC_N_MEM], bytes_written[NPUC_N_MEM];
} npuc_npu_op;

/* One command stream run: an ethos-u op (TFLite) or a HW epoch. */
typedef struct npuc_stream_profile {
    int32_t index;              /* the ethos-u op's graph op index, or the epoch */
    const char *npu;            /* the NPU that ran it: "U55-128" */
    uint64_t cycles;            /* NPU cycles of the stream (cycle model) */
    /* the PMU read back through its registers: cycle counter and the events
     * NPU_ACTIVE, MAC_ACTIVE, AXI0 read beats, AXI1 read beats (TFLite
     * models; compiled models: the cycle counter only) */
    uint64_t pmu_cycles;
    uint32_t pmu_events[4];
    const npuc_npu_op *ops;
    size_t n_ops;
} npuc_stream_profile;

typedef enum npuc_epoch_kind { NPUC_EPOCH_HW = 1, NPUC_EPOCH_SW = 2, NPUC_EPOCH_HYBRID = 3 } npuc_epoch_kind;

/* An epoch of a compiled model, as compiled. */
typedef struct npuc_epoch_info {
    npuc_epoch_kind kind;
    uint32_t first_op, n_ops;   /* graph ops it runs (of the deployed graph) */
    uint32_t cmd_size;          /* HW: command stream bytes */
    uint32_t est_cycles;        /* HW: the compiler's estimate */
    const char *kernel;         /* SW / HYBRID: the kernel ("conv_s8", ...); NULL: HW or unknown */
} npuc_epoch_info;

uint32_t npuc_epoch_count(const npuc_model *m);   /* 0 for TFLite */
int npuc_epoch_info_get(const npuc_model *m, uint32_t i, npuc_epoch_info *out);

/* An epoch's measurements in the last run. */
typedef struct npuc_epoch_profile {
    uint64_t pre_ns, run_ns, post_ns;   /* host CPU time: prepare / run or wait / finish */
    uint64_t npu_cycles;        /* HW: the PMU cycle count */
} npuc_epoch_profile;

typedef struct npuc_profile {
    uint64_t npu_cycles;        /* all streams */
    const npuc_stream_profile *streams;
    size_t n_streams;
    const npuc_epoch_profile *epochs;   /* compiled models: npuc_epoch_count entries */
    size_t n_epochs;
} npuc_profile;

/* The profile of the last run made with profile on (during a run: what
 * finished so far). *out points into the model. */
int npuc_get_profile(const npuc_model *m, const npuc_profile **out);

/* ---------------------------------------------------------------------- tensors */

/* Every tensor of a TFLite model (compiled models: none). The data of
 * constants is always there; that of the others after a run of a model
 * opened with keep_tensors (else NULL). */
uint32_t npuc_tensor_count(const npuc_model *m);
int npuc_tensor_info_get(const npuc_model *m, uint32_t i, npuc_tensor_info *out);
const void *npuc_tensor_data(const npuc_model *m, uint32_t i);

/* Writes every tensor the last run used to dir (created; it must not
 * exist or be empty): one file tNNNN_NAME.bin each and dir/tensors.txt as
 * index ("index name dtype shape scale zero_point kind file"). All or
 * nothing. TFLite models opened with keep_tensors only. */
int npuc_dump_tensors(const npuc_model *m, const char *dir);

#ifdef __cplusplus
}
#endif

#endif
