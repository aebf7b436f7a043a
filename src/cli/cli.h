/* cli: the npuc program. Only this room prints and exits. */
#ifndef NPUC_CLI_H
#define NPUC_CLI_H

#include "graph/graph.h"
#include "api/api.h"
#include "target/target.h"

#include <stdio.h>

/* Exit codes (documented in docs/cli.md). */
enum { CLI_OK = 0, CLI_EMODEL = 1, CLI_EUSAGE = 2,
       CLI_EVALIDATE = 3 /* npuc validate: ran, but NOT bit-exact / beyond tolerance */ };

int cli_inspect(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_compile(int argc, char **argv);
int cli_validate(int argc, char **argv);

/* Prints "npuc: error: ..." to stderr and returns the exit code for err. */
int cli_fail(const npuc_err *err);
/* cli_fail for the host API's last error (npuc_last_error). */
int cli_fail_last(void);
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The target options compile, run and validate share (cli_target.c,
 * docs/cli.md "The target"): --target / --npu / --accelerator-config
 * VARIANT, --system-config S, --memory-mode M, --config FILE.ini. If
 * argv[*i] is one, takes it and its value into *spec (advancing *i) and
 * returns true; *rc is then CLI_OK or, after printing the usage error,
 * CLI_EUSAGE. */
bool cli_target_option(const char *cmd, int argc, char **argv, int *i, target_spec *spec, int *rc);
/* The same strings as the host API's target spec. */
npuc_target_spec cli_target_api(const target_spec *spec);
/* Prints the options' help lines (what `replays` says: run and validate
 * take the recorded target by default). */
void cli_target_help(FILE *f, bool replays);
/* target_resolve, with the CLI's messages: prints the error and returns its
 * exit status, or CLI_OK. */
int cli_target_resolve(const char *cmd, const target_spec *spec, const target_desc *recorded,
                       const eu_variant *model_variant, target_desc *out);

/* --prefetch-headroom PERCENT (0..1000) as cc_options.prefetch_headroom;
 * false if v is not such a number. */
bool cli_parse_headroom(const char *v, int32_t *out);
/* A byte count: digits, optionally K / KiB or M / MiB (times 1024 /
 * 1024 * 1024); more than 0. */
bool cli_parse_bytes(const char *v, uint64_t *out);

/* Loads a model file and imports it. */
int cli_load_graph(const char *path, tfl_model **model, graph **g, npuc_err *err);

/* Reads an input file for tensor t: raw bytes of exactly the tensor's size,
 * .csv (comma-separated values in tensor order),
 * .npy (dtype and element count must match) or an 8-bit BMP (pixel indices,
 * top row first, for 8-bit tensors with as many elements as pixels).
 * *data is malloc'd. */
int cli_read_input(const char *path, const graph_tensor *t, uint8_t **data, npuc_err *err);

/* Formats a shape as "[1,96,96,1]". */
void cli_shape_str(const graph_tensor *t, char *buf, size_t n);

/* A whole file in 16-byte aligned, zero-padded memory (compiled models must
 * be aligned); *out is free()d by the caller. */
int cli_read_aligned(const char *path, uint8_t **out, size_t *size, npuc_err *err);


#endif
