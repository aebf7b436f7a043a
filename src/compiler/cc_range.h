/* cc_range: compile-time value ranges (intervals) of integer tensors, for
 * lowerings whose exactness depends on what values a tensor can hold (int32
 * elementwise ops on the NPU, lower/lower_elementwise.c: the NPU saturates
 * where TFLite wraps, so the two agree only when no result leaves int32).
 *
 * One forward sweep over the ops in execution order (docs/compiler.md,
 * Value ranges): every tensor gets an interval [lo, hi] that holds every
 * value it can take on any input. Sources: a constant's min / max, the
 * dtype's range (graph inputs, state, any op the sweep does not model), a
 * CAST's input range when it fits the output type, ARG_MAX / ARG_MIN
 * [0, axis extent - 1], SHAPE the input's dims; views and data movement
 * pass their input's interval on (the union where several inputs or a pad
 * value meet); int32 ADD, SUB, MUL, MINIMUM, MAXIMUM, NEG, ABS, DIV and
 * FLOOR_DIV by a positive constant by interval arithmetic in 64 bits, then
 * TFLite's fused clamp (int32 ADD: none, as TFLite Micro); a result that may
 * leave the output type wraps there, so it becomes the type's range.
 * Tensors of other types (float, 64-bit) get [INT64_MIN, INT64_MAX]:
 * unknown. */
#ifndef NPUC_CC_RANGE_H
#define NPUC_CC_RANGE_H

#include "graph/graph.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct cc_range {
    int64_t lo, hi;
} cc_range;

/* The interval of every tensor of g into r (g->n_tensors entries). */
void cc_range_analyse(const graph *g, cc_range *r);
/* The same, with the constants that no modelled op reads left to
 * cc_range_at (a constant's min / max is a pass over its data: a model's
 * weights, megabytes, are read by no op the sweep models); read r through
 * cc_range_at. */
void cc_range_analyse_lazy(const graph *g, cc_range *r);
cc_range cc_range_at(const graph *g, const cc_range *r, int32_t t);

/* The exact interval of x op y for opcode ADD, SUB, MUL, MINIMUM or
 * MAXIMUM (64-bit, before any wrap or clamp; x and y within int32); false
 * for other opcodes. */
bool cc_range_binary(int32_t opcode, cc_range x, cc_range y, cc_range *out);

/* The range of values a tensor of type d can hold; false (and the unknown
 * interval) for types other than bool and integers of up to 32 bits. */
bool cc_range_of_dtype(graph_dtype d, cc_range *r);

#endif
