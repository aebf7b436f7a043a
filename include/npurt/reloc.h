/* npurt: installing and running runtime-loadable models (NPRL files,
 * reloc_format.h) without rebuilding the firmware. Freestanding: no malloc,
 * every byte of RAM comes from the caller through the install config.
 *
 *   npurt_reloc_info info;  npurt_reloc_instance ri;  npurt_error e;
 *   npurt_reloc_get_info(file, file_size, &info, &e);      -- sizes, name, target
 *   npurt_reloc_config cfg = { .exec_ram = ram, .exec_ram_size = sizeof ram,
 *                              .mode = NPURT_RELOC_XIP };
 *   npurt_reloc_install(file, file_size, &cfg, &ri, &e);   -- checks everything first
 *   memcpy(npurt_reloc_input(&ri, 0, NULL), image, n);
 *   npurt_reloc_run(&ri);                                   -- ri.rt.err on failure
 *
 * install checks the digest (and the signature when the config gives a
 * public key), versions, target, flags, every pool, section and relocation
 * against the file and the RAM given, and the NPRT model inside, before it
 * writes a byte of RAM. Then it copies the pools that need a copy, clears
 * what must start at zero and patches the address table. See docs/reloc.md. */
#ifndef NPURT_RELOC_H
#define NPURT_RELOC_H

#include "npurt.h"
#include "reloc_format.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPURT_RELOC_MAX_IO 16u        /* inputs + outputs an installed model may have */

/* Install modes. */
#define NPURT_RELOC_XIP   0x0u        /* parameters used in place (file in flash) */
#define NPURT_RELOC_COPY  0x1u        /* model and parameters copied into exec RAM */
#define NPURT_RELOC_CLEAR 0x100u      /* also zero the activation pools at install */

/* What a file says about itself (header only; install checks the rest). */
typedef struct npurt_reloc_info {
    const char *name;                 /* points into the file */
    uint16_t format_major, format_minor;
    uint16_t runtime_major, runtime_minor;   /* runtime the model needs */
    uint32_t npu_config, npu_id;      /* 0: no HW epochs */
    uint32_t npu_macs;                /* MACs per cycle of the target NPU (0: none) */
    uint32_t npu_product;             /* 0 Ethos-U55, 1 Ethos-U65 */
    uint32_t cpu_flags, security, flags;
    uint32_t file_size;
    uint32_t code_size;               /* model tables (the NPRT container without params) */
    uint32_t params_size, acts_size, fast_size, state_size, addr_size;
    uint32_t ext_ram_size;            /* what may go to external RAM instead (activations) */
    uint32_t ram_xip, ram_copy;       /* exec RAM needed, everything in exec RAM */
    uint32_t params_file_size;        /* split: size of the params file */
    uint32_t n_pools, n_relocs, n_epochs, n_inputs, n_outputs;
} npurt_reloc_info;

typedef struct npurt_reloc_config {
    void *exec_ram;                   /* 16-byte aligned */
    uint32_t exec_ram_size;
    void *ext_ram;                    /* optional: the activation pool goes here */
    uint32_t ext_ram_size;
    const void *ext_params;           /* split files: the params file's bytes */
    uint32_t ext_params_size;
    uint32_t mode;                    /* NPURT_RELOC_XIP or _COPY, | _CLEAR */
    const uint8_t *public_key;        /* Ed25519 key: the file must carry a valid
                                         signature by it; NULL: digest only */
    uint32_t npu_config, npu_id;      /* the NPU's CONFIG / ID registers; 0: not checked
                                         here (the driver checks at every invoke) */
} npurt_reloc_config;

/* Callbacks get the runtime's NPURT_CB_* events (npurt.h). */
typedef npurt_callback npurt_reloc_callback;

/* One input or output. */
typedef struct npurt_reloc_io_info {
    const char *name;
    uint8_t dtype;                    /* NPURT_DT_* */
    uint8_t rank;
    int32_t shape[NPURT_MAX_RANK];
    uint32_t size;                    /* bytes */
    float scale;                      /* 0 if not quantized */
    int32_t zero_point;
    void *data;                       /* its place in the activation pool */
} npurt_reloc_io_info;

/* An installed model. Caller-owned; install fills it. It points into
 * itself (rt.model is &model): keep it in place, do not copy it by value. */
typedef struct npurt_reloc_instance {
    npurt_model model;                /* the NPRT container (in the file or copied) */
    npurt_instance rt;                /* the runtime instance: drv, wait, profile, sched */
    const npurl_header *hdr;
    uint32_t mode;
    uint8_t *pool_base[NPURL_MAX_POOLS];
    uint64_t *addr;                   /* the relocated address table */
    uint32_t n_relocs;
    const void *in_buf[NPURT_RELOC_MAX_IO];   /* set_input: copied in before each run */
    void *out_buf[NPURT_RELOC_MAX_IO];        /* set_output: copied out after each run */
    uint32_t ram_used, ext_ram_used;
    uint32_t installed;               /* NPURT_RELOC_INSTALLED once install succeeded */
} npurt_reloc_instance;

#define NPURT_RELOC_INSTALLED 0x4C52504Eu

/* Reads and checks the header (magic, versions, sizes, name) and fills
 * info. Does not check the digest: install does. */
int npurt_reloc_get_info(const void *file, size_t size, npurt_reloc_info *info, npurt_error *err);

/* Copies pool descriptor `index` (after the same header checks). */
int npurt_reloc_get_mem_pool_desc(const void *file, size_t size, uint32_t index, npurl_pool *out,
                                  npurt_error *err);

/* Checks the file completely, then lays the pools out in the RAM given,
 * copies, clears, relocates. `file` must be 16-byte aligned and must stay
 * valid while the model is installed in XIP mode (and, split, ext_params). */
int npurt_reloc_install(const void *file, size_t size, const npurt_reloc_config *cfg,
                        npurt_reloc_instance *ri, npurt_error *err);

/* Callbacks around the run and each epoch (NULL removes them). */
int npurt_reloc_set_callbacks(npurt_reloc_instance *ri, npurt_reloc_callback cb, void *user);

uint32_t npurt_reloc_n_inputs(const npurt_reloc_instance *ri);
uint32_t npurt_reloc_n_outputs(const npurt_reloc_instance *ri);
int npurt_reloc_input_info(const npurt_reloc_instance *ri, uint32_t i, npurt_reloc_io_info *out);
int npurt_reloc_output_info(const npurt_reloc_instance *ri, uint32_t i, npurt_reloc_io_info *out);
/* Zero-copy: where input / output i lives in the activation pool. */
void *npurt_reloc_input(npurt_reloc_instance *ri, uint32_t i, uint32_t *size);
void *npurt_reloc_output(npurt_reloc_instance *ri, uint32_t i, uint32_t *size);
/* Application buffers: an input buffer is copied in before each run, an
 * output buffer receives the output after each successful run (NULL: none). */
int npurt_reloc_set_input(npurt_reloc_instance *ri, uint32_t i, const void *buf);
int npurt_reloc_set_output(npurt_reloc_instance *ri, uint32_t i, void *buf);

/* Runs the model once. Failure: a status, ri->rt.err says where. */
int npurt_reloc_run(npurt_reloc_instance *ri);

/* Forgets the model (its RAM may be reused afterwards). */
void npurt_reloc_uninstall(npurt_reloc_instance *ri);

/* Name of the target NPU of a CONFIG word ("Ethos-U55-128", "none"). */
const char *npurt_reloc_npu_name(uint32_t npu_config);

#ifdef __cplusplus
}
#endif

#endif
