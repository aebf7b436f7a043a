/* npurt: the runtime-loadable model file ("NPRL"), version 1.
 *
 * A model an application installs at run time (delivered over the air,
 * read from an SD card, ...) without rebuilding its firmware. One
 * little-endian file, written by `npuc compile --output-format reloc`:
 *
 *   header (192 B) | pool descriptors | relocations | pool contents ... |
 *   trailer: SHA-256 of every byte before it (32 B) | Ed25519 signature (64 B)
 *
 * Pool contents are 16-byte aligned file sections. The "model" pool is an
 * NPRT container (npurt_format.h): tables, command streams, weights, LUTs
 * and kernel parameters, all position independent. With --split the
 * parameters live in a second file (NAME_params.bin) whose SHA-256 the
 * header carries. The only words patched at install are the runtime's
 * address table (the "addr" pool): one 64-bit slot per pointer the
 * runtime hands to the NPU or a CPU kernel. The relocation table lists
 * them; each says which pool the slot points into and how far the pointer
 * must reach, and install checks every one against the model before it
 * writes anything. docs/reloc.md describes the format field by field.
 * Freestanding header: types only. */
#ifndef NPURT_RELOC_FORMAT_H
#define NPURT_RELOC_FORMAT_H

#include <stdint.h>

#define NPURL_MAGIC 0x4C52504Eu        /* "NPRL" */
#define NPURL_VERSION_MAJOR 1u
#define NPURL_VERSION_MINOR 0u
#define NPURL_ALIGN 16u                /* file, sections and pools */
#define NPURL_MAX_POOLS 8u
#define NPURL_NAME_MAX 32u             /* c-name, NUL included */
#define NPURL_TRAILER_SIZE 96u         /* digest + signature */

/* Header flags. */
#define NPURL_F_SPLIT  0x1u            /* parameters in a separate file */
#define NPURL_F_SIGNED 0x2u            /* the trailer's signature is set */

/* CPU features the model's CPU epochs need (cpu_flags). The kernels are
 * portable C, so npuc writes 0; a runtime refuses flags it lacks. */
#define NPURL_CPU_FPU  0x1u
#define NPURL_CPU_MVE  0x2u
#define NPURL_CPU_DSP  0x4u

/* Security state the model must run in (security). */
enum { NPURL_SEC_ANY = 0, NPURL_SEC_SECURE = 1, NPURL_SEC_NONSECURE = 2 };

typedef struct npurl_header {
    uint32_t magic;                   /* NPURL_MAGIC */
    uint16_t version_major;           /* readers reject another major */
    uint16_t version_minor;
    uint32_t header_size;             /* sizeof(npurl_header) */
    uint32_t file_size;               /* whole file, trailer included */
    uint16_t runtime_major;           /* runtime version the model needs: */
    uint16_t runtime_minor;           /*   same major, minor <= the runtime's */
    uint32_t npu_config;              /* NPU CONFIG word (0: no HW epochs) */
    uint32_t npu_id;                  /* NPU ID word (architecture version) */
    uint32_t cpu_flags;               /* NPURL_CPU_* */
    uint32_t security;                /* NPURL_SEC_* */
    uint32_t flags;                   /* NPURL_F_* */
    char name[NPURL_NAME_MAX];        /* C identifier, NUL-terminated */
    uint32_t params_size;             /* bytes of parameters (weights, streams, ...) */
    uint32_t acts_size;               /* activation pool */
    uint32_t fast_size;               /* fast scratch pool (0: none) */
    uint32_t state_size;              /* state pool (kept across runs) */
    uint32_t addr_size;               /* address table (8 bytes a slot) */
    uint32_t model_size;              /* NPRT container in this file */
    uint32_t ram_xip;                 /* exec RAM for XIP: addr + state + acts + fast */
    uint32_t ram_copy;                /* exec RAM for COPY: ram_xip + model (+ params if split) */
    uint32_t n_pools, pools_off;      /* npurl_pool[n_pools] */
    uint32_t n_relocs, relocs_off;    /* npurl_reloc[n_relocs] */
    uint32_t n_epochs, n_inputs, n_outputs;
    uint32_t params_file_size;        /* split: size of NAME_params.bin */
    uint8_t params_sha256[32];        /* split: its SHA-256 */
    uint32_t reserved[6];
} npurl_header;                       /* 192 bytes */

/* Pool kinds. */
enum {
    NPURL_K_MODEL = 1,                /* the NPRT container (params inside unless split) */
    NPURL_K_PARAMS = 2,               /* split: parameters, from NAME_params.bin */
    NPURL_K_ACTIVATIONS = 3,
    NPURL_K_FAST = 4,
    NPURL_K_STATE = 5,
    NPURL_K_ADDR = 6                  /* the runtime's address table, relocated */
};

/* Pool flags (ST Edge AI's pool descriptor flags, same meaning). */
#define NPURL_P_RELOC   0x001u        /* placed by install (dst == 0) */
#define NPURL_P_PARAM   0x002u        /* read-only parameters */
#define NPURL_P_ACTIV   0x004u        /* activations */
#define NPURL_P_MIXED   0x008u        /* both */
#define NPURL_P_RCACHED 0x010u        /* read through the data cache */
#define NPURL_P_WCACHED 0x020u        /* written through the data cache */
#define NPURL_P_WRITE   0x040u        /* written at run time */
#define NPURL_P_RESET   0x080u        /* zeroed at install */
#define NPURL_P_COPY    0x100u        /* contents copied from the file at install
                                         (PARAM pools: in COPY mode only) */
#define NPURL_P_UNUSED  0x200u        /* size 0, nothing to place */
#define NPURL_P_EXTERNAL 0x400u       /* contents in the split params file */

typedef struct npurl_pool {
    char name[16];                    /* NUL-terminated */
    uint32_t flags;                   /* NPURL_P_* */
    uint8_t kind;                     /* NPURL_K_* */
    uint8_t reserved0[3];
    uint32_t file_off;                /* contents in this file (0 with file_size 0) */
    uint32_t file_size;
    uint32_t dst;                     /* fixed address, or 0 for relocatable */
    uint32_t size;                    /* bytes in memory */
    uint32_t reserved1[2];
} npurl_pool;                         /* 48 bytes */

/* Relocation types. */
enum {
    NPURL_R_ADDR64 = 1                /* 64-bit slot in the addr pool: base of pool + addend */
};

typedef struct npurl_reloc {
    uint32_t site;                    /* byte offset in the addr pool, multiple of 8 */
    uint8_t type;                     /* NPURL_R_* */
    uint8_t pool;                     /* index of the pool the slot points into */
    uint16_t reserved;
    uint32_t addend;                  /* byte offset in that pool */
    uint32_t extent;                  /* bytes the pointer must reach */
} npurl_reloc;                        /* 16 bytes */

#endif
