/* kernels: prepared-op kinds of the reduce family: reductions and matrix products: ARG_MAX, ARG_MIN, REDUCE_MAX, REDUCE_MIN, SUM, CUMSUM, L2_POOL_2D, BATCH_MATMUL.
 *
 * Kind numbers 380..439 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_REDUCE ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_reduce (k_op_reduce.c).
 *
 * Axis inputs: TFLite Micro reads the axis tensor at eval time. A constant
 * axis is resolved at prepare and stored in the blob (the axis tensor is
 * then not read and may be NULL); an axis that is not constant
 * (axis_dynamic = 1) is read from io->in[1] (n_axis int32 values) on every
 * run, its output element count checked against the output tensor. */
#ifndef NPUC_K_OP_REDUCE_H
#define NPUC_K_OP_REDUCE_H

#include "k_common.h"

enum {
    K_OP_REDUCE_FIRST = 380,
    /* k_op_arg_blob. in: input, axis  out: output (int32) */
    K_OP_ARG_MAX_F32 = 380,
    K_OP_ARG_MAX_S8 = 381,
    K_OP_ARG_MIN_F32 = 382,
    K_OP_ARG_MIN_S8 = 383,
    /* k_op_reduce_blob. in: input, axis  out: output */
    K_OP_REDUCE_MAX_F32 = 384,
    K_OP_REDUCE_MAX_S8 = 385,
    K_OP_REDUCE_MIN_F32 = 386,
    K_OP_REDUCE_MIN_S8 = 387,
    K_OP_SUM_F32 = 388,
    K_OP_SUM_S8 = 389,
    K_OP_SUM_S16 = 390,
    /* k_op_cumsum_blob. in: input, axis  out: output */
    K_OP_CUMSUM_F32 = 391,
    K_OP_CUMSUM_S8 = 392,
    /* k_op_l2pool_blob. in: input  out: output */
    K_OP_L2_POOL_F32 = 393,
    /* k_op_bmm_blob. in: lhs, rhs  out: output */
    K_OP_BATCH_MATMUL_F32 = 394,
    K_OP_BATCH_MATMUL_S8 = 395,
    K_OP_BATCH_MATMUL_S16 = 396,
    K_OP_REDUCE_LAST = 439
};

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_REDUCE                                                  \
    [K_OP_ARG_MAX_F32] = {"arg_max_f32", F_REDUCE, 0},                     \
    [K_OP_ARG_MAX_S8] = {"arg_max_s8", F_REDUCE, 0},                       \
    [K_OP_ARG_MIN_F32] = {"arg_min_f32", F_REDUCE, 0},                     \
    [K_OP_ARG_MIN_S8] = {"arg_min_s8", F_REDUCE, 0},                       \
    [K_OP_REDUCE_MAX_F32] = {"reduce_max_f32", F_REDUCE, 0},               \
    [K_OP_REDUCE_MAX_S8] = {"reduce_max_s8", F_REDUCE, 0},                 \
    [K_OP_REDUCE_MIN_F32] = {"reduce_min_f32", F_REDUCE, 0},               \
    [K_OP_REDUCE_MIN_S8] = {"reduce_min_s8", F_REDUCE, 0},                 \
    [K_OP_SUM_F32] = {"sum_f32", F_REDUCE, 0},                             \
    [K_OP_SUM_S8] = {"sum_s8", F_REDUCE, 0},                               \
    [K_OP_SUM_S16] = {"sum_s16", F_REDUCE, 0},                             \
    [K_OP_CUMSUM_F32] = {"cumsum_f32", F_REDUCE, 0},                       \
    [K_OP_CUMSUM_S8] = {"cumsum_s8", F_REDUCE, 0},                         \
    [K_OP_L2_POOL_F32] = {"l2_pool_f32", F_REDUCE, 0},                     \
    [K_OP_BATCH_MATMUL_F32] = {"batch_matmul_f32", F_REDUCE, 0},           \
    [K_OP_BATCH_MATMUL_S8] = {"batch_matmul_s8", F_REDUCE, 0},             \
    [K_OP_BATCH_MATMUL_S16] = {"batch_matmul_s16", F_REDUCE, 0},

/* Largest axis tensor (elements) a non-constant axis may have. */
#define K_REDUCE_MAX_AXIS_ELEMS 64

/* ARG_MAX / ARG_MIN: index of the first maximum (minimum) along one axis;
 * float comparisons NaN-aware as TFLite's (a NaN never wins, any number
 * beats a NaN). The input has rank >= 1. */
typedef struct k_op_arg_blob {
    k_dims din;
    int32_t axis_dynamic;  /* 0: axis below; 1: in[1] holds n_axis >= 1 int32, the first is the axis */
    int32_t axis;          /* resolved, in [0, rank) (axis_dynamic = 0) */
    int32_t n_axis;        /* elements of the axis tensor (axis_dynamic = 1) */
    int32_t out_count;     /* output elements */
} k_op_arg_blob;

/* REDUCE_MAX, REDUCE_MIN, SUM (TFLite Micro's ReduceGeneric and
 * QuantizedMeanOrSum with compute_sum). */
typedef struct k_op_reduce_blob {
    k_dims din;
    int32_t axis_dynamic;          /* 0: axis[] holds n_axis resolved unique axes; 1: in[1] holds n_axis int32 */
    int32_t n_axis;
    int32_t axis[K_MAX_DIMS];
    int32_t out_count;             /* output elements (the output tensor's) */
    int32_t mult, shift;           /* SUM_S8/S16: input/output scale ratio (QuantizeMultiplier) */
    int32_t in_zp, out_zp;         /* SUM_S8/S16 */
} k_op_reduce_blob;

/* CUMSUM. */
typedef struct k_op_cumsum_blob {
    k_dims din;                    /* rank >= 1; the output has the same shape */
    int32_t axis_dynamic;          /* 0: axis below; 1: in[1] holds one int32 */
    int32_t axis;
    int32_t exclusive, reverse;
    /* S8: TFLite's 8-bit general rescale (left_shift 20, multipliers < 1). */
    int32_t in_offset;             /* -input zero point */
    int32_t out_zp;
    int32_t left_shift;
    int32_t in_mult, in_shift;
    int32_t out_mult, out_shift;
} k_op_cumsum_blob;

/* L2_POOL_2D (float, NHWC). */
typedef struct k_op_l2pool_blob {
    int32_t batch, in_h, in_w, depth;
    int32_t out_h, out_w;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;
    float act_min, act_max;
} k_op_l2pool_blob;

/* BATCH_MATMUL: out[..., a, c] = sum_k L[..., a, k] * R[..., k, c], L the
 * lhs (stored [..., K, A] with adj_x), R the rhs (stored [..., C, K] with
 * adj_y); batch dims broadcast (ranks 2..5). */
typedef struct k_op_bmm_blob {
    k_dims lhs, rhs;               /* as stored */
    int32_t adj_x, adj_y;
    int32_t out_count;             /* output elements */
    int32_t mult, shift;           /* S8/S16: lhs_scale * rhs_scale / out_scale */
    int32_t lhs_zp, rhs_zp, out_zp;
} k_op_bmm_blob;

#endif
