/* kernels: prepared-op kinds of the binop family: binary ops beyond ADD/SUB/MUL/MIN/MAX: DIV, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE, comparisons, LOGICAL_AND/OR, PRELU, SELECT_V2, ADD_N.
 *
 * Kind numbers 260..319 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_BINOP ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_binop (k_op_binop.c).
 *
 * Every kind uses k_op_binop_blob. Broadcasting is numpy style: each input
 * shape is right-aligned against dout, every input dim is 1 or the output
 * dim, and dout is the broadcast of the inputs (ranks up to K_MAX_DIMS; the
 * interpreter applies TFLite Micro's rank limits). Semantics:
 * docs/kernels-binop.md. */
#ifndef NPUC_K_OP_BINOP_H
#define NPUC_K_OP_BINOP_H

#include "k_common.h"

enum {
    K_OP_BINOP_FIRST = 260,
    /* in: input1, input2  out: output (same type) */
    K_OP_DIV_F32 = 260,          /* act_min_f/act_max_f */
    K_OP_DIV_S32 = 261,          /* act_min/act_max; divisor 0 -> K_E_UNSUPPORTED */
    K_OP_DIV_S8 = 262,           /* offsets, out_mult/out_shift, act_min/act_max */
    K_OP_FLOOR_DIV_F32 = 263,    /* a divisor 0 anywhere -> K_E_UNSUPPORTED (as TFLM) */
    K_OP_FLOOR_MOD_F32 = 264,
    K_OP_SQDIFF_F32 = 265,
    K_OP_SQDIFF_S32 = 266,       /* wraps */
    K_OP_SQDIFF_S8 = 267,        /* offsets, left_shift, in1/in2/out mult+shift */
    K_OP_SQDIFF_S16 = 268,
    /* in: input1, input2  out: bool (1 byte). cmp selects the comparison */
    K_OP_CMP_BOOL = 269,         /* EQUAL / NOT_EQUAL only */
    K_OP_CMP_F32 = 270,
    K_OP_CMP_S32 = 271,
    K_OP_CMP_S64 = 272,
    K_OP_CMP_S8 = 273,           /* both sides rescaled: offsets, left_shift, in1/in2 mult+shift */
    K_OP_CMP_S16 = 274,
    /* in: input1, input2 (bool)  out: bool */
    K_OP_LOGICAL_AND = 275,
    K_OP_LOGICAL_OR = 276,
    /* in: input, alpha  out: output */
    K_OP_PRELU_F32 = 277,
    K_OP_PRELU_S8 = 278,         /* int8 alpha; in1_offset (input), in2_offset (alpha), out_offset,
                                    out_mult/out_shift (x >= 0), out_mult2/out_shift2 (x < 0) */
    K_OP_PRELU_S16 = 279,        /* int16 input/output, int8 alpha */
    /* in: condition (bool, d1), x (d2), y (d3)  out: output */
    K_OP_SELECT_X8 = 280,
    K_OP_SELECT_X16 = 281,
    K_OP_SELECT_X32 = 282,
    /* in: n_in inputs of shape dout  out: output */
    K_OP_ADD_N_F32 = 283,
    K_OP_ADD_N_S8 = 284,         /* in1_offset, in1_mult/in1_shift, left_shift, out_*, act_* */
    /* in: input1, input2 (int32)  out: output (int32); TFLite's int32 forms (TFLite Micro has none) */
    K_OP_FLOOR_DIV_S32 = 285,    /* a divisor 0 anywhere -> K_E_UNSUPPORTED (as TFLite) */
    K_OP_FLOOR_MOD_S32 = 286,    /* a divisor 0 anywhere -> K_E_UNSUPPORTED (as TFLite) */
    K_OP_BINOP_LAST = 319
};

/* Comparisons (k_op_binop_blob.cmp). */
enum { K_CMP_EQ = 0, K_CMP_NE = 1, K_CMP_GT = 2, K_CMP_GE = 3, K_CMP_LT = 4, K_CMP_LE = 5 };

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_BINOP                                          \
    [K_OP_DIV_F32] = {"div_f32", F_BINOP, 0},                     \
    [K_OP_DIV_S32] = {"div_s32", F_BINOP, 0},                     \
    [K_OP_DIV_S8] = {"div_s8", F_BINOP, 0},                       \
    [K_OP_FLOOR_DIV_F32] = {"floor_div_f32", F_BINOP, 0},         \
    [K_OP_FLOOR_MOD_F32] = {"floor_mod_f32", F_BINOP, 0},         \
    [K_OP_FLOOR_DIV_S32] = {"floor_div_s32", F_BINOP, 0},         \
    [K_OP_FLOOR_MOD_S32] = {"floor_mod_s32", F_BINOP, 0},         \
    [K_OP_SQDIFF_F32] = {"squared_difference_f32", F_BINOP, 0},   \
    [K_OP_SQDIFF_S32] = {"squared_difference_s32", F_BINOP, 0},   \
    [K_OP_SQDIFF_S8] = {"squared_difference_s8", F_BINOP, 0},     \
    [K_OP_SQDIFF_S16] = {"squared_difference_s16", F_BINOP, 0},   \
    [K_OP_CMP_BOOL] = {"compare_bool", F_BINOP, 0},               \
    [K_OP_CMP_F32] = {"compare_f32", F_BINOP, 0},                 \
    [K_OP_CMP_S32] = {"compare_s32", F_BINOP, 0},                 \
    [K_OP_CMP_S64] = {"compare_s64", F_BINOP, 0},                 \
    [K_OP_CMP_S8] = {"compare_s8", F_BINOP, 0},                   \
    [K_OP_CMP_S16] = {"compare_s16", F_BINOP, 0},                 \
    [K_OP_LOGICAL_AND] = {"logical_and", F_BINOP, 0},             \
    [K_OP_LOGICAL_OR] = {"logical_or", F_BINOP, 0},               \
    [K_OP_PRELU_F32] = {"prelu_f32", F_BINOP, 0},                 \
    [K_OP_PRELU_S8] = {"prelu_s8", F_BINOP, 0},                   \
    [K_OP_PRELU_S16] = {"prelu_s16", F_BINOP, 0},                 \
    [K_OP_SELECT_X8] = {"select_x8", F_BINOP, 0},                 \
    [K_OP_SELECT_X16] = {"select_x16", F_BINOP, 0},               \
    [K_OP_SELECT_X32] = {"select_x32", F_BINOP, 0},               \
    [K_OP_ADD_N_F32] = {"add_n_f32", F_BINOP, 0},                 \
    [K_OP_ADD_N_S8] = {"add_n_s8", F_BINOP, 0},

/* The one blob of the family (only 4-byte fields, no arrays). Fields a kind
 * does not use are 0. */
typedef struct k_op_binop_blob {
    k_dims d1, d2, d3;           /* inputs (d3: SELECT's y; ADD_N: all inputs are dout) */
    k_dims dout;
    int32_t n_in;                /* inputs read: 2, 3 (SELECT), >= 1 (ADD_N) */
    int32_t cmp;                 /* K_CMP_* (CMP_* kinds) */
    int32_t in1_offset, in2_offset, out_offset;  /* -zp, -zp, +zp */
    int32_t left_shift;
    int32_t in1_mult, in1_shift;
    int32_t in2_mult, in2_shift;
    int32_t out_mult, out_shift;
    int32_t out_mult2, out_shift2;
    int32_t act_min, act_max;    /* integer clamp */
    float act_min_f, act_max_f;  /* float clamp */
} k_op_binop_blob;

/* The kernels behind the kinds (k_binop.c), run on validated parameters:
 * `in` holds n_in input pointers. K_OK, or K_E_UNSUPPORTED for a value
 * TFLite Micro cannot compute (integer division by zero, an int8 DIV
 * quotient whose rescale shift leaves [0, 31]). */
int k_binop_eval(uint32_t kind, const k_op_binop_blob *p, const void *const *in, void *out);

#endif
