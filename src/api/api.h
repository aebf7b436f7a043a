/* api: the host API (include/npuc/npuc.h), and the little the host rooms
 * above it (validate, cli, tests, bench) need beyond the public surface:
 * errors as npuc_err, and a model opened on a system already resolved.
 * Host-only; never prints. */
#ifndef NPUC_API_H
#define NPUC_API_H

#include "npuc/npuc.h"
#include "util/util.h"
#include "sim/sim.h"

/* The last error of this thread (npuc_last_error) as an npuc_err: code and
 * message. Returns the code (NPUC_OK after a success). */
int npuc_last_err(npuc_err *err);

/* Opening a model on a target already resolved: when the model's NPU is
 * sys_variant, its virtual NPU uses sys (validate passes the target it
 * resolved once, for compiling and for running). */
typedef struct npuc_open_system {
    const sim_system *sys;
    eu_variant sys_variant;
} npuc_open_system;

/* npuc_model_open_file (path != NULL) or _memory (data, size) with an
 * optional resolved system (NULL: none). */
int npuc_model_open_ext(const char *path, const void *data, size_t size, const npuc_target_spec *target,
                        const npuc_open_options *opt, const npuc_open_system *sys, npuc_model **out);

#endif
