/* kernels: prepared-op kinds of the lstm family: UNIDIRECTIONAL_SEQUENCE_LSTM (int8, int16x8, float32).
 *
 * Kind numbers 440..469 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_LSTM ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_lstm (k_op_lstm.c). */
#ifndef NPUC_K_OP_LSTM_H
#define NPUC_K_OP_LSTM_H

#include "k_common.h"

enum {
    K_OP_LSTM_FIRST = 440,
    K_OP_LSTM_LAST = 469
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_LSTM

#endif
