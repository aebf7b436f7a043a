/* Internal to cli/: what `npuc run` shares between its TFLite path
 * (cli_run.c) and its compiled-model path (cli_run_nprt.c). */
#ifndef NPUC_CLI_RUN_INT_H
#define NPUC_CLI_RUN_INT_H

#include "cli.h"
#include "../sim/sim.h"

typedef struct cli_run_args {
    const char *model;
    const char *const *inputs;
    int n_inputs;
    bool random_input, quiet, profile, trace, poll;
    unsigned long long seed;
    const char *output, *dump;
    const target_spec *target;   /* the target options (cli_target_option) */
    void (*trace_fn)(void *user, const char *line);
    /* runtime-loadable models */
    bool install_copy, install_clear;
    const char *params_path, *public_key_path;
} cli_run_args;

/* True if the file starts with a compiled-model magic ("NPRT" or "NPRL"). */
bool cli_is_nprt(const char *path);
int cli_run_nprt(const cli_run_args *a);

/* Random values for one tensor (full integer range; floats in [-1, 1)). */
void cli_fill_random(npuc_rng *r, const graph_tensor *t, uint8_t *d);
/* "output N 'name' int8 [1,2] fnv1a64=..." plus the first values. */
void cli_print_output(int32_t idx, const graph_tensor *t, const void *d);

#endif
