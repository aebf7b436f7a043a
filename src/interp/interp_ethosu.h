/* interp_ethosu: the reference interpreter's adapter for Vela "ethos-u"
 * custom operators (npuc's _npu.tflite, Vela's output): each runs on a
 * virtual NPU (src/sim) the way TensorFlow Lite Micro's ethos-u kernel and
 * the Ethos-U driver run it (docs/ethos-u.md 9.1-9.5, 10). Plugged into
 * the interpreter's CUSTOM-op hook (interp_options.custom_accept /
 * custom_eval); it lives here, above both, so that the simulator knows
 * nothing of graphs or the interpreter. */
#ifndef NPUC_INTERP_ETHOSU_H
#define NPUC_INTERP_ETHOSU_H

#include "graph/graph.h"
#include "interp/interp.h"
#include "sim/sim.h"

/* True for a CUSTOM op with custom code "ethos-u". */
bool interp_is_ethosu_op(const graph_op *op);

/* The NPU variant an ethos-u op's COP1 payload was compiled for. */
int interp_ethosu_variant(const graph *g, const graph_op *op, eu_variant *v, npuc_err *err);

/* Runs one ethos-u op as TFLite Micro + the Ethos-U driver would: checks
 * the payload's CONFIG against the NPU, places the op's tensors in one
 * arena at their OfflineMemoryAllocation offsets (scratch, scratch_fast,
 * inputs, outputs), maps flash/arena/payload into the NPU's memory, writes
 * QBASE/QSIZE/BASEP0..n, starts it through CMD and checks STATUS.
 * data[k] is the host memory of tensor op->in[k] (k < n_in), then
 * op->out[k - n_in]; inputs are read, outputs written. Errors carry the
 * NPU's message (command byte offset and reason). */
int interp_run_ethosu_op(sim_npu *npu, const graph *g, const graph_op *op, void *const *data, npuc_err *err);

/* interp_run_ethosu_op for an op met by the interpreter's CUSTOM-op hook
 * (interp_options.custom_eval): its tensors are the interpreter's
 * (constants: their buffers). */
int interp_run_ethosu(sim_npu *npu, interp *ip, const graph_op *op, npuc_err *err);

#endif
