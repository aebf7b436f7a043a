/* npurt: the npuc runtime. Loads a compiled model (npurt_format.h) and runs
 * its epochs in order: HW epochs through the ethos-u driver, SW and hybrid
 * epochs through the prepared CPU kernels. No malloc, no interpreter, no
 * stdio: every buffer comes from the caller, errors are return codes plus
 * an npurt_error that names the model element.
 *
 * Typical use (bare metal, one model, one NPU):
 *
 *   npurt_model m;  npurt_instance inst;  npurt_error e;
 *   npurt_model_load(&m, model_blob, model_blob_size, &e);
 *   npurt_memory mem = { .activations = arena, .activations_size = sizeof arena };
 *   npurt_init(&inst, &m, &mem, &e);
 *   memcpy(npurt_input(&inst, 0, NULL), image, n);
 *   npurt_run(&inst);               -- inst.err says what failed
 *   use npurt_output(&inst, 0, NULL)
 *
 * See docs/runtime.md. */
#ifndef NPURT_H
#define NPURT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "npurt_format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ethosu_driver;

#define NPURT_RUNTIME_VERSION_MAJOR 1
#define NPURT_RUNTIME_VERSION_MINOR 1   /* 1: NPRT 1.3 initial variable values (NPURT_F_VARS_INIT) */

typedef enum npurt_status {
    NPURT_OK = 0,
    NPURT_NOT_READY = 1,      /* npurt_run: a CPU op (CIRCULAR_BUFFER off its period)
                                 ended the run early, as TensorFlow Lite Micro's
                                 kTfLiteAbort: not an error, the outputs are not
                                 ready this time; the next run continues */
    NPURT_E_FORMAT = -1,      /* the model blob is malformed */
    NPURT_E_VERSION = -2,     /* unknown format version */
    NPURT_E_CRC = -3,         /* checksum mismatch: the blob is corrupt */
    NPURT_E_ARG = -4,         /* bad argument: NULL, index out of range */
    NPURT_E_MEMORY = -5,      /* pool memory missing, too small, misaligned or overlapping */
    NPURT_E_NO_NPU = -6,      /* HW epochs but no driver available */
    NPURT_E_NPU = -7,         /* the driver or the NPU reported an error */
    NPURT_E_KERNEL = -8,      /* a CPU kernel rejected its parameters */
    NPURT_E_BUSY = -9,        /* the scheduler refused (instance already attached, ...) */
    NPURT_E_DIGEST = -10,     /* loadable model: SHA-256 digest mismatch */
    NPURT_E_SIGNATURE = -11,  /* loadable model: signature missing or invalid */
    NPURT_E_TARGET = -12      /* loadable model: built for another NPU, CPU or runtime */
} npurt_status;

/* What went wrong and where. `what` is a static string; index/offset say
 * which record (epoch, tensor, pool) and which blob byte, -1 / 0 if n/a. */
typedef struct npurt_error {
    int code;                 /* npurt_status */
    int32_t epoch;            /* epoch index, -1 if not in an epoch */
    int32_t index;            /* tensor / pool / ref / io index, -1 if none */
    uint32_t offset;          /* byte offset in the blob, 0 if none */
    int32_t detail;           /* driver or kernel status code */
    const char *what;
} npurt_error;

const char *npurt_status_name(int code);

/* A loaded model: a validated view of a blob (no copy is made; the blob
 * must stay valid and unchanged while the model is used). */
typedef struct npurt_model {
    const uint8_t *blob;
    uint32_t size;
    const npurt_header *h;
    const npurt_pool_rec *pools;
    const npurt_tensor_rec *tensors;
    const npurt_epoch_rec *epochs;
    const int32_t *io;        /* inputs then outputs */
    const int32_t *refs;
    const char *strings;
    int8_t pool_of_kind[4];   /* pool index of each NPURT_POOL_* kind, -1 absent */
} npurt_model;

/* Checks the blob: 16-byte alignment, magic, version, size, CRC, and every
 * record, offset, count and reference inside the blob and its pools. */
int npurt_model_load(npurt_model *m, const void *blob, size_t size, npurt_error *err);

const char *npurt_model_name(const npurt_model *m);
/* Bytes the caller must provide for a pool kind (0 if the model has none). */
uint32_t npurt_model_pool_size(const npurt_model *m, unsigned kind);
uint32_t npurt_model_n_inputs(const npurt_model *m);
uint32_t npurt_model_n_outputs(const npurt_model *m);
const npurt_tensor_rec *npurt_model_input(const npurt_model *m, uint32_t i);
const npurt_tensor_rec *npurt_model_output(const npurt_model *m, uint32_t i);
/* Name of a string offset ("" if none or out of range). */
const char *npurt_model_string(const npurt_model *m, uint32_t off);

/* How HW epochs wait for the NPU. */
typedef enum npurt_wait_mode {
    NPURT_WAIT_IRQ = 0,       /* block in ethosu_wait (semaphore taken from the IRQ) */
    NPURT_WAIT_POLL = 1       /* ethosu_wait(non-blocking) in a loop */
} npurt_wait_mode;

/* Memory for the pools. params NULL: use the blob's params in place (XIP).
 * fast NULL: fast scratch is the activation pool, allowed only when the
 * model has no FAST pool (npurt_model_pool_size(m, NPURT_POOL_FAST) == 0;
 * a U65 model compiled for Dedicated_Sram has one). Every area must be
 * 16-byte aligned and at least the model's pool size. */
typedef struct npurt_memory {
    const void *params;
    void *activations; uint32_t activations_size;
    void *fast; uint32_t fast_size;
    void *state; uint32_t state_size;
} npurt_memory;

/* Per-epoch profile, filled by npurt_run when the instance has a buffer.
 * CPU times come from npurt_cpu_cycles() (a weak hook: 0 unless the port
 * provides a clock); npu_cycles from the NPU's PMU cycle counter. */
typedef struct npurt_epoch_profile {
    uint8_t kind;             /* NPURT_EPOCH_* */
    uint32_t kernel;          /* SW/HYBRID: k_op kind */
    uint64_t pre, hw, post;   /* CPU cycles: prepare / run (or wait) / finish */
    uint64_t npu_cycles;      /* HW: PMU cycle count */
} npurt_epoch_profile;

struct npurt_sched;

/* The CPU kernels, by family: one runner per k_op family, indexed by the
 * family (src/kernels/k_op.h: k_op_family_fn, K_OP_FAM_*). A compiled model
 * in C form comes with its own table, ID_kernels, naming only the families
 * its CPU epochs run, so that a firmware links only those kernels
 * (docs/embedded.md). */
struct k_op_io;
typedef int (*npurt_kernel_fn)(uint32_t kind, const uint8_t *params, uint32_t params_size,
                               const struct k_op_io *io);

/* Run and epoch callbacks (npurt_set_callback): event is NPURT_CB_*. */
typedef void (*npurt_callback)(void *user, int event, uint32_t epoch);
enum {
    NPURT_CB_RUN_START = 1,
    NPURT_CB_EPOCH_START = 2,         /* epoch = the epoch index */
    NPURT_CB_EPOCH_END = 3,           /* after it finished (also on failure) */
    NPURT_CB_RUN_END = 4              /* epoch = epochs done */
};

typedef struct npurt_instance {
    const npurt_model *model;
    uint8_t *base[NPURT_MAX_POOLS];   /* pool base addresses */
    uint32_t size[NPURT_MAX_POOLS];
    struct ethosu_driver *drv;        /* the NPU to use; NULL: reserve one per HW epoch */
    npurt_wait_mode wait;
    npurt_epoch_profile *profile;     /* optional [profile_cap] */
    uint32_t profile_cap;
    npurt_callback cb;                /* optional run / epoch callbacks */
    void *cb_user;
    /* The CPU kernels (npurt_kernel_fn above): a compiled model's
     * ID_kernels, or k_op_all_families (every kernel). NULL: every kernel
     * on the host; on the MCU build (where the full table is only weakly
     * referenced) every kernel only when the firmware links
     * k_op_all_families, else a CPU epoch fails with NPURT_E_KERNEL. */
    const npurt_kernel_fn *kernels;
    /* Resolved address table of an installed loadable model (reloc.h):
     * the pointers each epoch hands the NPU or its kernel, in epoch order
     * (HW: stream, region 0, 1, 2; SW/HYBRID: params, scratch, persistent,
     * operands), then inputs and outputs. NULL: computed from the pools. */
    const uint64_t *addr;
    const uint64_t *addr_io;          /* its input then output slots (the tail of addr) */
    /* multi-model scheduling (npurt_sched_attach) */
    struct npurt_sched *sched;
    int priority;
    void *sched_sem;
    struct npurt_instance *sched_next;
    bool sched_waiting;
    uint32_t sched_wait_mark;         /* sched->grants when it started waiting */
    uint32_t sched_max_passed;        /* most grants to others during one wait */
    /* counters */
    uint32_t runs;
    uint32_t epochs_done;             /* epochs finished in the current / last run */
    npurt_error err;                  /* the last failure */
} npurt_instance;

/* Binds a loaded model to memory; zeroes the state pool. The instance holds
 * pointers to the model and the memory, not copies. */
int npurt_init(npurt_instance *inst, const npurt_model *m, const npurt_memory *mem,
               npurt_error *err);

/* Model input / output data inside the instance's pools (NULL if out of
 * range). size receives the byte size when non-NULL. */
void *npurt_input(npurt_instance *inst, uint32_t i, uint32_t *size);
void *npurt_output(npurt_instance *inst, uint32_t i, uint32_t *size);

/* Runs every epoch in order. Returns NPURT_OK or a status; inst->err says
 * which epoch failed and why. */
int npurt_run(npurt_instance *inst);

/* Installs run / epoch callbacks (cb NULL removes them). */
void npurt_set_callback(npurt_instance *inst, npurt_callback cb, void *user);

/* Address-table slots of an epoch (HW: 4; SW/HYBRID: 3 + operands) and
 * of the whole model (every epoch, then one per input and output). */
uint32_t npurt_epoch_slots(const npurt_epoch_rec *e);
uint32_t npurt_model_slots(const npurt_model *m);

/* Zeroes the state pool (recurrent models start over); int8 variable
 * tensors start at their zero point, as TFLite Micro's ResetVariableTensors. */
void npurt_reset_state(npurt_instance *inst);

/* ------------------------------------------------------------ multi-model */

typedef enum npurt_sched_mode {
    /* Models run one after another, whole runs holding the NPU: they may
     * share one activation area (models with NPURT_F_ARENA_STATE may not). */
    NPURT_SCHED_SERIAL = 0,
    /* Models on different threads interleave at epoch boundaries: before
     * each epoch, the highest-priority waiting model gets the NPU. Their
     * activation areas must not overlap (checked at attach). */
    NPURT_SCHED_EPOCH = 1
} npurt_sched_mode;

#define NPURT_SCHED_MAX 8

typedef struct npurt_sched {
    npurt_sched_mode mode;
    void *lock;                       /* OSAL mutex */
    npurt_instance *owner;            /* who holds the NPU */
    npurt_instance *waiters;          /* waiting instances (linked by sched_next) */
    npurt_instance *attached[NPURT_SCHED_MAX];
    uint32_t n_attached;
    uint32_t grants;                  /* times the NPU was granted */
    uint32_t handovers;               /* grants to a waiting instance */
} npurt_sched;

int npurt_sched_init(npurt_sched *s, npurt_sched_mode mode, npurt_error *err);
void npurt_sched_deinit(npurt_sched *s);
/* Attaches an instance with a priority (higher runs first). */
int npurt_sched_attach(npurt_sched *s, npurt_instance *inst, int priority, npurt_error *err);
void npurt_sched_detach(npurt_sched *s, npurt_instance *inst);

/* ------------------------------------------------------------------- hooks */

/* CPU cycle (or time) counter for profiles; weak default returns 0. */
uint64_t npurt_cpu_cycles(void);
/* Called by each epoch boundary with the instance and the next epoch
 * (weak default: nothing). Tests and tracing use it. */
void npurt_epoch_hook(npurt_instance *inst, uint32_t epoch);

#ifdef __cplusplus
}
#endif

#endif
