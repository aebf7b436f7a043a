/* kernels: prepared-op kinds of the binop family: binary ops beyond ADD/SUB/MUL/MIN/MAX: DIV, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE, comparisons, LOGICAL_AND/OR, PRELU, SELECT_V2, ADD_N.
 *
 * Kind numbers 260..319 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_BINOP ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_binop (k_op_binop.c). */
#ifndef NPUC_K_OP_BINOP_H
#define NPUC_K_OP_BINOP_H

#include "k_common.h"

enum {
    K_OP_BINOP_FIRST = 260,
    K_OP_BINOP_LAST = 319
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_BINOP

#endif
