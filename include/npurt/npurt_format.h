/* npurt: the compiled-model container ("NPRT"), version 1.3.
 *
 * One flat little-endian blob, position independent: every reference is a
 * byte offset from the start of the blob (or from the start of a pool), so
 * the same bytes serve as the binary model file, as the array the C-source
 * output defines, and as the in-memory model the runtime walks. Nothing is
 * patched at load: pools are Ethos-U base-pointer regions (docs/runtime.md).
 *
 *   header | pools[] | tensors[] | epochs[] | io[] | refs[] | strings | params
 *
 * The params pool's initial contents (weights, scale/bias streams, command
 * streams, LUTs, CPU-op constants and prepared kernel parameters) sit in the
 * blob at pools[p].data_off, 16-byte aligned, so a blob in flash can be used
 * in place (XIP). Freestanding header: types only. */
#ifndef NPURT_FORMAT_H
#define NPURT_FORMAT_H

#include <stdint.h>

#define NPURT_MAGIC 0x5452504Eu        /* "NPRT" */
#define NPURT_VERSION_MAJOR 1u
#define NPURT_VERSION_MINOR 3u        /* 1: target_off; 2: vars_off/vars_size; 3: vars_init_off
                                         (NPURT_F_VARS_INIT) */
#define NPURT_MAX_POOLS 8u
#define NPURT_MAX_RANK 6u
#define NPURT_NO_NAME 0xFFFFFFFFu
#define NPURT_ALIGN 16u               /* blob, pools and params data alignment */

/* Header flags. */
#define NPURT_F_ARENA_STATE 0x1u      /* variable tensors live in the activation pool:
                                         the pool keeps state between runs and
                                         cannot be shared with another model */
#define NPURT_F_EXTERNAL_PARAMS 0x2u  /* the params pool's contents are not in the
                                         blob (data_off = data_size = 0): the
                                         caller gives them (npurt_memory.params) */
#define NPURT_F_VARS_INIT 0x4u        /* minor 3: the variable area starts (at init
                                         and after a reset) as the vars_size bytes
                                         at vars_init_off of the params pool: the
                                         folded CALL_ONCE initialisers' result. A
                                         reader older than 1.3 ignores it: such a
                                         model needs a 1.3 runtime */
#define NPURT_F_KNOWN 0x7u            /* flags this reader knows; others are refused */

typedef struct npurt_header {
    uint32_t magic;           /* NPURT_MAGIC */
    uint16_t version_major;   /* readers reject another major */
    uint16_t version_minor;
    uint32_t size;            /* bytes in the blob, multiple of 16 */
    uint32_t crc32;           /* CRC-32 (IEEE 802.3) of bytes [16, size) */
    uint32_t npu_config;      /* CONFIG word the HW epochs need (0: no HW epochs) */
    uint32_t npu_id;          /* ID word (arch version) the HW epochs need */
    uint32_t flags;           /* NPURT_F_* */
    uint32_t name_off;        /* model name in strings, or NPURT_NO_NAME */
    uint16_t n_pools, n_tensors;
    uint16_t n_epochs, n_inputs;
    uint16_t n_outputs, reserved0;
    uint32_t n_refs;
    uint32_t pools_off;       /* npurt_pool_rec[n_pools] */
    uint32_t tensors_off;     /* npurt_tensor_rec[n_tensors] */
    uint32_t epochs_off;      /* npurt_epoch_rec[n_epochs] */
    uint32_t io_off;          /* int32 tensor index [n_inputs + n_outputs] */
    uint32_t refs_off;        /* int32 tensor index [n_refs] (SW epoch operands) */
    uint32_t strings_off, strings_size;   /* NUL-terminated names */
    uint32_t target_off;      /* minor 1: the target the model was compiled for, a
                                 string (one line of JSON, docs/system-config.md) in
                                 strings; 0 or NPURT_NO_NAME: none. The runtime only
                                 checks that it lies in the string table */
    uint32_t vars_off;        /* minor 2: the resource-variable area (VAR_HANDLE,
                                 READ_VARIABLE, ASSIGN_VARIABLE; src/kernels/k_op_control.h)
                                 at this offset of the state pool, 8-aligned; */
    uint32_t vars_size;       /* its bytes (0: none; older blobs have 0 here) */
    uint32_t vars_init_off;   /* minor 3, with NPURT_F_VARS_INIT: the initial contents
                                 of the variable area (vars_size bytes) at this
                                 16-aligned offset of the params pool; else 0 */
    uint32_t reserved1;
} npurt_header;               /* 96 bytes */

/* Pool kinds. Region numbers of HW epochs: 0 = params (at the epoch's
 * flash offset), 1 = activations, 2 = fast (activations if absent). */
enum {
    NPURT_POOL_PARAMS = 0,       /* read-only: constants, streams, kernel params */
    NPURT_POOL_ACTIVATIONS = 1,  /* read-write scratch; contents die between runs */
    NPURT_POOL_FAST = 2,         /* read-write fast scratch (Ethos-U65); may be size 0 */
    NPURT_POOL_STATE = 3         /* read-write, zeroed at init, kept across runs */
};

typedef struct npurt_pool_rec {
    uint32_t size;            /* bytes the pool needs */
    uint8_t kind;             /* NPURT_POOL_* */
    uint8_t reserved[3];
    uint32_t data_off;        /* PARAMS: blob offset of the initial contents */
    uint32_t data_size;       /* PARAMS: = size; others 0 */
    uint32_t name_off;
    uint32_t reserved1[3];
} npurt_pool_rec;             /* 32 bytes */

/* Element types. */
enum {
    NPURT_DT_INT8 = 1, NPURT_DT_UINT8 = 2, NPURT_DT_INT16 = 3, NPURT_DT_INT32 = 4,
    NPURT_DT_INT64 = 5, NPURT_DT_FLOAT32 = 6, NPURT_DT_BOOL = 7, NPURT_DT_UINT32 = 8, NPURT_DT_UINT16 = 9,
    NPURT_DT_UINT64 = 10
};

/* Tensor flags. */
#define NPURT_T_INPUT    0x1u
#define NPURT_T_OUTPUT   0x2u
#define NPURT_T_VARIABLE 0x4u
#define NPURT_T_CONSTANT 0x8u

typedef struct npurt_tensor_rec {
    uint8_t pool;             /* pool index */
    uint8_t dtype;            /* NPURT_DT_* */
    uint8_t rank;             /* 0..NPURT_MAX_RANK */
    uint8_t flags;            /* NPURT_T_* */
    uint32_t offset;          /* byte offset in the pool */
    uint32_t size;            /* bytes */
    int32_t zero_point;       /* first channel's, for reports */
    float scale;              /* first channel's, 0 if not quantized */
    int32_t shape[NPURT_MAX_RANK];
    uint32_t name_off;
} npurt_tensor_rec;           /* 48 bytes */

/* Epoch kinds. */
enum {
    NPURT_EPOCH_HW = 1,       /* an Ethos-U command stream, run through the driver */
    NPURT_EPOCH_SW = 2,       /* a prepared kernel (src/kernels/k_op.h) on the CPU */
    NPURT_EPOCH_HYBRID = 3    /* data movement (copy, pad, slice, transpose, concat,
                                 split, ...) on the CPU: a k_op of a data-movement kind */
};

/* Operands (inputs + outputs) of one SW/HYBRID epoch: at most this many
 * (the runtime keeps their pointers on its stack while the kernel runs; an
 * UNPACK of 49 steps, as in an unrolled LSTM, needs 50). */
#define NPURT_MAX_OPERANDS 64u

typedef struct npurt_epoch_rec {
    uint8_t kind;             /* NPURT_EPOCH_* */
    uint8_t n_in, n_out;      /* SW/HYBRID: operand counts (refs) */
    uint8_t reserved;
    uint32_t first_op, n_ops; /* source graph ops this epoch covers (reports) */
    /* HW */
    uint32_t cmd_off, cmd_size;       /* COP1 driver payload in the params pool */
    uint32_t flash_off, flash_size;   /* base-pointer region 0 in the params pool */
    uint32_t est_cycles;              /* compiler's NPU cycle estimate */
    /* SW / HYBRID */
    uint32_t kernel;                  /* k_op kind */
    uint32_t params_off, params_size; /* prepared parameters in the params pool */
    uint32_t refs;                    /* first of n_in + n_out entries of refs[] */
    uint32_t scratch_off, scratch_size;   /* in the activation pool */
    uint32_t persist_off, persist_size;   /* in the state pool */
} npurt_epoch_rec;            /* 64 bytes */

/* The header's checksum: CRC-32 (IEEE 802.3, reflected, polynomial
 * 0xEDB88320) of n bytes. One definition for the writer and the loader. */
static inline uint32_t npurt_format_crc32(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

#endif
