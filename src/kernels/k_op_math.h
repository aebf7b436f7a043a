/* kernels: prepared-op kinds of the math family: elementwise math and type ops: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS, ELU, CAST, ZEROS_LIKE, LOGICAL_NOT, L2_NORMALIZATION, LOG_SOFTMAX.
 *
 * Kind numbers 200..259 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_MATH ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_math (k_op_math.c).
 *
 * Every kind uses k_op_math_blob. in: input  out: output (one each; the
 * ZEROS_LIKE kinds do not read their input, which may be NULL).
 * Semantics: docs/kernels-math.md. */
#ifndef NPUC_K_OP_MATH_H
#define NPUC_K_OP_MATH_H

#include "k_common.h"

enum {
    K_OP_MATH_FIRST = 200,
    K_OP_ABS_F32 = 200,
    K_OP_ABS_S8 = 201,          /* quantized, rescale when the scales differ */
    K_OP_ABS_S16 = 202,         /* quantized (zero points 0) */
    K_OP_ABS_S16_RAW = 203,     /* int16 without quantization: plain abs, wraps */
    K_OP_NEG_F32 = 204,
    K_OP_CEIL_F32 = 205,
    K_OP_FLOOR_F32 = 206,
    K_OP_ROUND_F32 = 207,       /* half to even */
    K_OP_SQRT_F32 = 208,
    K_OP_RSQRT_F32 = 209,
    K_OP_RSQRT_S8 = 210,
    K_OP_RSQRT_S16 = 211,
    K_OP_SQUARE_F32 = 212,
    K_OP_EXP_F32 = 213,
    K_OP_LOG_F32 = 214,
    K_OP_SIN_F32 = 215,
    K_OP_COS_F32 = 216,
    K_OP_ELU_F32 = 217,
    K_OP_ELU_S8 = 218,          /* 256-entry table at lut_off */
    K_OP_CAST = 219,            /* src_type -> dst_type (K_MATH_T_*) */
    K_OP_ZEROS_X8 = 220,
    K_OP_ZEROS_X32 = 221,
    K_OP_ZEROS_X64 = 222,
    K_OP_LOGICAL_NOT_B8 = 223,
    K_OP_L2NORM_F32 = 224,      /* rows: outer x depth */
    K_OP_L2NORM_S8 = 225,
    K_OP_LOG_SOFTMAX_F32 = 226,
    K_OP_LOG_SOFTMAX_S8 = 227,
    K_OP_MATH_LAST = 259
};

/* Element types of K_OP_CAST. */
enum {
    K_MATH_T_S8 = 1,
    K_MATH_T_S16 = 2,
    K_MATH_T_S32 = 3,
    K_MATH_T_U32 = 4,
    K_MATH_T_F32 = 5,
    K_MATH_T_BOOL = 6,
    K_MATH_T_U8 = 7       /* CAST from/to uint8: TFLite's, not TFLite Micro's (docs/kernels-math.md) */
};

/* The blob of every math kind (only 4-byte fields). Fields a kind does not
 * use are 0. */
typedef struct k_op_math_blob {
    int32_t n;           /* elements (row kinds: outer * depth) */
    int32_t outer;       /* L2NORM, LOG_SOFTMAX: rows */
    int32_t depth;       /* L2NORM, LOG_SOFTMAX: row length (last dim) */
    int32_t in_zp;       /* ABS, RSQRT, L2NORM int8 */
    int32_t out_zp;      /* ABS, RSQRT */
    int32_t mult;        /* ABS: in/out scale; RSQRT: 1/(sqrt(in) * out);
                            LOG_SOFTMAX: input multiplier (Q5.26 diffs) */
    int32_t shift;       /* TFLite form: > 0 shifts left */
    int32_t rescale;     /* ABS int: 1 when the scales differ */
    int32_t rev_mult;    /* LOG_SOFTMAX: reverse scaling divisor */
    int32_t rev_shift;
    int32_t diff_min;    /* LOG_SOFTMAX: -input radius */
    uint32_t lut_off;    /* ELU_S8: 256 int8 entries (index: code as uint8) */
    int32_t src_type;    /* CAST: K_MATH_T_* */
    int32_t dst_type;
} k_op_math_blob;

/* ELU int8 table as TFLite Micro's PopulateLookupTable (float math). */
void k_elu_s8_lut(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t lut[256]);
/* LOG_SOFTMAX int8 parameters (beta 1, Q5.26 diffs) as TFLite's
 * PreprocessLogSoftmaxScalingExp + CalculateInputRadius; K_E_UNSUPPORTED
 * when TFLite would reject them (multiplier <= 1, reverse divisor >= 1). */
int k_log_softmax_s8_prepare(float input_scale, k_op_math_blob *b);
/* TFLite's GetInvSqrtQuantizedMultiplierExp with reverse_shift -1. */
void k_inv_sqrt_multiplier(int32_t input, int32_t *mult, int32_t *shift);
/* gemmlowp log_x_for_x_greater_than_or_equal_to_1<5>(Q12 x): Q5 result. */
int32_t k_fx_log_q12_to_q5(int32_t x);

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_MATH                                                   \
    [K_OP_ABS_F32] = {"abs_f32", F_MATH, 0},                              \
    [K_OP_ABS_S8] = {"abs_s8", F_MATH, 0},                                \
    [K_OP_ABS_S16] = {"abs_s16", F_MATH, 0},                              \
    [K_OP_ABS_S16_RAW] = {"abs_s16_raw", F_MATH, 0},                      \
    [K_OP_NEG_F32] = {"neg_f32", F_MATH, 0},                              \
    [K_OP_CEIL_F32] = {"ceil_f32", F_MATH, 0},                            \
    [K_OP_FLOOR_F32] = {"floor_f32", F_MATH, 0},                          \
    [K_OP_ROUND_F32] = {"round_f32", F_MATH, 0},                          \
    [K_OP_SQRT_F32] = {"sqrt_f32", F_MATH, 0},                            \
    [K_OP_RSQRT_F32] = {"rsqrt_f32", F_MATH, 0},                          \
    [K_OP_RSQRT_S8] = {"rsqrt_s8", F_MATH, 0},                            \
    [K_OP_RSQRT_S16] = {"rsqrt_s16", F_MATH, 0},                          \
    [K_OP_SQUARE_F32] = {"square_f32", F_MATH, 0},                        \
    [K_OP_EXP_F32] = {"exp_f32", F_MATH, 0},                              \
    [K_OP_LOG_F32] = {"log_f32", F_MATH, 0},                              \
    [K_OP_SIN_F32] = {"sin_f32", F_MATH, 0},                              \
    [K_OP_COS_F32] = {"cos_f32", F_MATH, 0},                              \
    [K_OP_ELU_F32] = {"elu_f32", F_MATH, 0},                              \
    [K_OP_ELU_S8] = {"elu_s8", F_MATH, 0},                                \
    [K_OP_CAST] = {"cast", F_MATH, 0},                                    \
    [K_OP_ZEROS_X8] = {"zeros_like_x8", F_MATH, 0},                       \
    [K_OP_ZEROS_X32] = {"zeros_like_x32", F_MATH, 0},                     \
    [K_OP_ZEROS_X64] = {"zeros_like_x64", F_MATH, 0},                     \
    [K_OP_LOGICAL_NOT_B8] = {"logical_not_b8", F_MATH, 0},                \
    [K_OP_L2NORM_F32] = {"l2norm_f32", F_MATH, 0},                        \
    [K_OP_L2NORM_S8] = {"l2norm_s8", F_MATH, 0},                          \
    [K_OP_LOG_SOFTMAX_F32] = {"log_softmax_f32", F_MATH, 0},              \
    [K_OP_LOG_SOFTMAX_S8] = {"log_softmax_s8", F_MATH, 0},

/* 1 when K_OP_CAST with blob params casts to a type no wider than its
 * source (its runner may then write over its input, k_op_in_place). */
int k_op_cast_in_place(const void *params, uint32_t params_size);

#endif
