/* kernels: prepared-op kinds of the gather family: shape and gathering data movement: SHAPE, FILL, BROADCAST_TO, BROADCAST_ARGS, TILE, GATHER, GATHER_ND, EMBEDDING_LOOKUP, REVERSE_V2, MIRROR_PAD, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND.
 *
 * Kind numbers 320..379 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_GATHER ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_gather (k_op_gather.c). */
#ifndef NPUC_K_OP_GATHER_H
#define NPUC_K_OP_GATHER_H

#include "k_common.h"

enum {
    K_OP_GATHER_FIRST = 320,
    K_OP_GATHER_LAST = 379
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_GATHER

#endif
