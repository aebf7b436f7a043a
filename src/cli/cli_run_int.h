/* Internal to cli/: what `npuc run` shares between its main part
 * (cli_run.c) and the compiled models' printing (cli_run_nprt.c), and the
 * tensor helpers `npuc validate` uses too. */
#ifndef NPUC_CLI_RUN_INT_H
#define NPUC_CLI_RUN_INT_H

#include "cli.h"
#include "npuc/npuc.h"

typedef struct cli_run_args {
    const char *model;
    const char *const *inputs;
    int n_inputs;
    bool random_input, quiet, profile, trace, poll;
    unsigned long long seed;
    const char *output, *dump;
} cli_run_args;

/* A graph_tensor view of an API tensor (for the input readers and the
 * output printer; it points into the model). */
void cli_tensor_view(const npuc_tensor_info *ti, graph_tensor *t);

/* Random values for one tensor (full integer range; floats in [-1, 1)). */
void cli_fill_random(npuc_rng *r, const graph_tensor *t, uint8_t *d);
/* "output N 'name' int8 [1,2] fnv1a64=..." plus the first values. */
void cli_print_output(int32_t idx, const graph_tensor *t, const void *d);

/* Compiled models: the "model ... on the npuc runtime" line (and the
 * install line of a loadable model), and the per-epoch profile table. */
void cli_print_compiled(const char *path, const npuc_model *m, const npuc_model_info *info);
void cli_print_epoch_profile(const npuc_model *m);

#endif
