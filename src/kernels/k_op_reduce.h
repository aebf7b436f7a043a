/* kernels: prepared-op kinds of the reduce family: reductions and matrix products: ARG_MAX, ARG_MIN, REDUCE_MAX, REDUCE_MIN, SUM, CUMSUM, L2_POOL_2D, BATCH_MATMUL.
 *
 * Kind numbers 380..439 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_REDUCE ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_reduce (k_op_reduce.c). */
#ifndef NPUC_K_OP_REDUCE_H
#define NPUC_K_OP_REDUCE_H

#include "k_common.h"

enum {
    K_OP_REDUCE_FIRST = 380,
    K_OP_REDUCE_LAST = 439
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_REDUCE

#endif
