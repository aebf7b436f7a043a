/* genmodel: random but valid quantized TFLite models for differential
 * testing. A model is a chain of ops (with side branches and joins) drawn
 * from the ops below, with shapes, quantization and options chosen so that
 * TFLite's own constraints hold. Deterministic for a seed. See docs/genmodel.md. */
#ifndef NPUC_GENMODEL_H
#define NPUC_GENMODEL_H

#include "graph/graph.h"

typedef struct genmodel_config {
    int32_t n_ops;          /* ops in the main chain; 0 = random in [3, 12] */
    bool int16;             /* int16x8: int16 activations, int8 weights, int64 bias */
    int32_t max_dim;        /* largest H, W or C of any tensor (default 32, at least 4) */
    const int32_t *only;    /* if non-NULL: draw ops only from these codes */
    int32_t n_only;
} genmodel_config;

void genmodel_config_default(genmodel_config *cfg);

/* The op codes genmodel can draw (*n entries). */
const int32_t *genmodel_ops(int32_t *n);

/* Builds a model for `seed` (cfg NULL = defaults). On success *out is a new
 * graph (free with graph_free); its name is "genmodel-<seed>-int8|int16". */
int genmodel_build(uint64_t seed, const genmodel_config *cfg, graph **out, npuc_err *err);

/* One UNIDIRECTIONAL_SEQUENCE_LSTM (TFLite Micro's standard LSTM: all four
 * gates, no peephole, projection or layer norm) reading the model input
 * [B,T,I] (or [T,B,I] time major) and writing the model output; hidden and
 * cell state are variable tensors. Random sizes up to the limits (0: 3
 * batches, 8 steps, 48 inputs, 48 units), quantizations, cell clip and
 * time-major flag. int16: int16 activations, int64 biases (int16x8). */
typedef struct genmodel_lstm_config {
    int32_t max_batch, max_steps, max_input, max_units;
    bool int16;
} genmodel_lstm_config;

/* Builds the LSTM model for `seed` (cfg NULL = defaults); its name is
 * "genmodel-lstm-<seed>-int8|int16". */
int genmodel_lstm(uint64_t seed, const genmodel_lstm_config *cfg, graph **out, npuc_err *err);

#endif

/* Models with several subgraphs and resource variables (docs/genmodel.md,
 * "Control flow and state"). Every tensor int8 is quantized with scale 1,
 * zero point 0, so that results are plain saturating integer arithmetic.
 *  - GENMODEL_COUNTER: a streaming accumulator. CALL_ONCE runs subgraph 1,
 *    which assigns a constant init [1, 4] to variable "acc"; each
 *    invocation reads acc, adds the input x [1, 4] (int8), assigns and
 *    outputs the sum; variable "count" (int32 [1], never initialised: it
 *    starts at 0) counts the invocations (output 1).
 *  - GENMODEL_IF: inputs cond bool [1], x int8 [1, 8]; IF runs subgraph 1
 *    (then: RELU(x + a)) or 2 (else: x - b), a and b constants [1, 8].
 *  - GENMODEL_WHILE: inputs n int32 [1], x int8 [1, 4]; WHILE (i = 0; i <
 *    n; i++) x = x + x (subgraph 1 cond LESS, 2 body); outputs x and i.
 * seed 0 gives the constants the tests work out by hand (docs/genmodel.md);
 * other seeds draw them at random. */
typedef enum genmodel_control_kind { GENMODEL_COUNTER, GENMODEL_IF, GENMODEL_WHILE } genmodel_control_kind;
int genmodel_build_control(genmodel_control_kind kind, uint64_t seed, graph **out, npuc_err *err);
