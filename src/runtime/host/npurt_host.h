/* npurt host port: what a PC program needs to run compiled models on the
 * virtual NPU through the real driver and runtime. Host-only. */
#ifndef NPURT_HOST_H
#define NPURT_HOST_H

#include "npurt/npurt.h"
#include "util/util.h"
#include "graph/graph.h"

/* Makes the pools an instance's HW epochs use (params, activations, fast)
 * reachable by the virtual NPUs (ethosu_host_map). A pool already inside a
 * mapping (a params pool or activation area another instance mapped) is
 * left as it is. */
int npurt_host_map(const npurt_instance *inst, npuc_err *err);
/* Removes the mappings that start at the instance's pool bases. */
void npurt_host_unmap(const npurt_instance *inst);

/* Formats an npurt_error as one line: "epoch 3 (SW conv_s8): a CPU kernel
 * rejected ... (status -2)" / "model byte 0x0040: tensor lies outside ...". */
void npurt_host_error_text(const npurt_model *m, const npurt_error *e, char *buf, size_t size);

/* The graph dtype of an NPURT_DT_* tensor type (unknown: float32). */
graph_dtype npurt_host_graph_dtype(uint8_t npurt_dtype);

#endif
