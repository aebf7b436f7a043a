/* kernels: prepared-op kinds of the lstm family: UNIDIRECTIONAL_SEQUENCE_LSTM (int8, int16x8, float32).
 *
 * Kind numbers 440..469 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_LSTM ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_lstm (k_op_lstm.c).
 *
 * Tensors (all kinds): io->in[] are the 24 inputs in TFLite order: 0 input
 * [B,T,I] or [T,B,I] (time major); 1..4 input-to-{input,forget,cell,output}
 * weights [S,I]; 5..8 recurrent-to-{input,forget,cell,output} weights [S,S];
 * 12..15 {input,forget,cell,output} gate biases [S]; 18 output (hidden)
 * state [B,S] and 19 cell state [B,S], both read and updated in place. The
 * peephole (9..11), projection (16, 17) and layer-norm (20..23) inputs are
 * not read (TFLite Micro has no such variants; the interpreter rejects
 * them). io->out[0]: output [B,T,S] (or [T,B,S]). Scratch: four gate
 * buffers of B*S cell elements (int16 or float). docs/kernels-lstm.md. */
#ifndef NPUC_K_OP_LSTM_H
#define NPUC_K_OP_LSTM_H

#include "k_common.h"

enum {
    K_OP_LSTM_FIRST = 440,
    /* k_op_lstm_blob. int8 activations and hidden state, int8 weights,
     * int32 biases, int16 cell state. */
    K_OP_LSTM_S8 = 440,
    /* int16 activations and hidden state, int8 weights, int64 biases,
     * int16 cell state. */
    K_OP_LSTM_S16 = 441,
    /* float32 everything. */
    K_OP_LSTM_F32 = 442,
    K_OP_LSTM_LAST = 469
};

/* Gate order of every per-gate array: TFLite's input order. */
enum { K_LSTM_GATE_INPUT = 0, K_LSTM_GATE_FORGET = 1, K_LSTM_GATE_CELL = 2, K_LSTM_GATE_OUTPUT = 3 };

/* Cell-gate non-linearity (TfLiteFusedActivation numbers). */
enum { K_LSTM_ACT_TANH = 4, K_LSTM_ACT_SIGMOID = 6 };

/* The scratch bytes a kind needs: 4 * batch * state_dim cell elements. */
#define K_LSTM_SCRATCH_BUFFERS 4

typedef struct k_op_lstm_blob {
    int32_t time_major;                /* 0: input [B,T,I]; 1: [T,B,I] */
    int32_t batch, steps, input_dim, state_dim;
    int32_t cell_act;                  /* K_LSTM_ACT_* */
    int32_t clip;                      /* 1: clip the cell state after each update */
    float cell_clip;                   /* F32: clip to [-cell_clip, cell_clip] */
    int32_t cell_clip_q;               /* integer kinds: clip to [-q, q], q in [0, 32767] */
    int32_t input_zp;                  /* integer kinds: zero point of the input */
    int32_t hidden_zp;                 /* integer kinds: zero point of the hidden state */
    int32_t hidden_min, hidden_max;    /* integer kinds: clamp of the hidden state */
    int32_t tanh_mult, tanh_shift;     /* tanh of the cell state (k_sigmoid_s16_params) */
    int32_t in_wzp[4], rec_wzp[4];     /* weight zero points (input / recurrent FC) */
    int32_t in_mult[4], in_shift[4];   /* input FC -> Q3.12 gate pre-activation */
    int32_t rec_mult[4], rec_shift[4]; /* recurrent FC -> Q3.12 */
    int32_t fc_mult, fc_shift;         /* forget (Q0.15) * cell -> cell */
    int32_t ic_mult, ic_shift;         /* input gate (Q0.15) * cell gate (Q0.15) -> cell */
    int32_t oh_mult, oh_shift;         /* tanh(cell) (Q0.15) * output gate (Q0.15) -> hidden */
} k_op_lstm_blob;

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_LSTM                                  \
    [K_OP_LSTM_S8] = {"lstm_s8", F_LSTM, 0},             \
    [K_OP_LSTM_S16] = {"lstm_s16", F_LSTM, 0},           \
    [K_OP_LSTM_F32] = {"lstm_f32", F_LSTM, 0},

#endif
