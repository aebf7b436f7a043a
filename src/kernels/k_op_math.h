/* kernels: prepared-op kinds of the math family: elementwise math and type ops: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, ELU, CAST, ZEROS_LIKE, LOGICAL_NOT, L2_NORMALIZATION, LOG_SOFTMAX.
 *
 * Kind numbers 200..259 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_MATH ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_math (k_op_math.c). */
#ifndef NPUC_K_OP_MATH_H
#define NPUC_K_OP_MATH_H

#include "k_common.h"

enum {
    K_OP_MATH_FIRST = 200,
    K_OP_MATH_LAST = 259
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_MATH

#endif
