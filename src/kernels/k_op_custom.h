/* kernels: prepared-op kinds of the custom family: custom operators TFLite Micro ships: TFLite_Detection_PostProcess, CIRCULAR_BUFFER.
 *
 * Kind numbers 470..489 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_CUSTOM ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_custom (k_op_custom.c). */
#ifndef NPUC_K_OP_CUSTOM_H
#define NPUC_K_OP_CUSTOM_H

#include "k_common.h"

enum {
    K_OP_CUSTOM_FIRST = 470,
    K_OP_CUSTOM_LAST = 489
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_CUSTOM

#endif
