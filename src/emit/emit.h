/* emit: writers for a compiled model (cc_model): TFLite with one Vela-style
 * "ethos-u" custom operator per HW epoch, C sources, and reports. Every
 * writer produces complete files or none (atomic writes). Host-only. */
#ifndef NPUC_EMIT_H
#define NPUC_EMIT_H

#include "compiler/cc.h"

/* Builds the TFLite model of a compiled model (ethos-u.md 10): SW epochs
 * keep their original operator, each HW epoch becomes a CUSTOM "ethos-u"
 * op with inputs [command stream, flash, scratch, scratch_fast, inputs...];
 * metadata "OfflineMemoryAllocation" gives every activation tensor its
 * arena offset. *out is a new model (tfl_model_free). */
int emit_tflite_model(const cc_model *m, tfl_model **out, npuc_err *err);
int emit_tflite_file(const cc_model *m, const char *path, npuc_err *err);

/* Reports: JSON (everything), CSV (one row per graph op) and the one-screen
 * summary printed by `npuc compile`. `model_name` names the source. */
int emit_report_json(const cc_model *m, const char *model_name, const char *path, npuc_err *err);
int emit_report_csv(const cc_model *m, const char *path, npuc_err *err);
/* The same reports as text in memory (*out malloc'd, *len its length). */
int emit_report_json_text(const cc_model *m, const char *model_name, char **out, size_t *len, npuc_err *err);
int emit_report_csv_text(const cc_model *m, char **out, size_t *len, npuc_err *err);
/* Writes the summary into a malloc'd string (*out). */
int emit_summary(const cc_model *m, const char *model_name, char **out, npuc_err *err);

/* The runtime's compiled model: an NPRT blob (include/npurt/npurt_format.h,
 * docs/runtime.md). `name` becomes the model name inside it. *blob is
 * malloc'd (free). CPU ops carry the kernel parameters the reference
 * interpreter prepares for them. */
int emit_npurt(const cc_model *m, const char *name, uint8_t **blob, size_t *size, npuc_err *err);
int emit_npurt_file(const cc_model *m, const char *name, const char *path, npuc_err *err);
/* Whether the NPRT blob has an epoch for the compiled model's epoch ei:
 * it leaves out a HW epoch with no NPU operation (only views), a CPU view
 * (RESHAPE, SQUEEZE, EXPAND_DIMS) whose output shares its input's bytes and
 * a CALL_ONCE folded at compile time. The blob's epochs are the others, in
 * order. */
bool emit_npurt_has_epoch(const cc_model *m, int32_t ei);
/* The scratch the runtime's forms place after the compiler's arena for the
 * CPU kernels (the largest of their CPU epochs' scratch, rounded up to 16
 * bytes, as emit_npurt lays it out): 0 without CPU epochs; an op the
 * reference interpreter cannot prepare counts 0 (those forms are refused
 * then). */
uint64_t emit_cpu_scratch_bytes(const cc_model *m);
uint32_t emit_crc32(const uint8_t *p, size_t n);

/* C sources: DIR/ID_model.h and DIR/ID_model.c defining the same blob as a
 * 16-byte aligned const array ID_model[] plus ID_MODEL_SIZE and the pool
 * sizes, where ID = emit_c_ident(name). Both files or neither. */
int emit_c_sources(const cc_model *m, const char *name, const char *dir, npuc_err *err);
/* The same two files in memory (malloc'd texts and their lengths). */
int emit_c_sources_text(const cc_model *m, const char *name, char **h, size_t *h_len, char **c, size_t *c_len,
                        npuc_err *err);
void emit_c_ident(const char *name, char *out, size_t cap);

/* The runtime-loadable model (include/npurt/reloc_format.h, docs/reloc.md):
 * the NPRT container wrapped with pool descriptors, relocations for the
 * runtime's address table, SHA-256 and an optional Ed25519 signature.
 * split: the params go to a second buffer (NAME_params.bin) whose SHA-256
 * the file carries. sign_seed: a 32-byte Ed25519 private key seed. */
typedef struct emit_reloc_options {
    bool split;
    const uint8_t *sign_seed;
} emit_reloc_options;

typedef struct emit_reloc_out {
    uint8_t *file;            /* malloc'd */
    size_t file_size;
    uint8_t *params;          /* split: malloc'd params file, else NULL */
    size_t params_size;
} emit_reloc_out;

int emit_reloc(const cc_model *m, const char *name, const emit_reloc_options *o, emit_reloc_out *out,
               npuc_err *err);
void emit_reloc_out_free(emit_reloc_out *out);
/* The memory-layout table `npuc compile` prints, and the JSON description
 * (NAME_rel.json; sign_seed adds the public key), both malloc'd strings. */
int emit_reloc_table(const emit_reloc_out *r, const char *file_name, char **out, npuc_err *err);
int emit_reloc_json(const emit_reloc_out *r, const uint8_t *sign_seed, char **out, npuc_err *err);

#endif
