/* kernels: prepared-op kinds of the gather family: shape and gathering data movement: SHAPE, FILL, BROADCAST_TO, BROADCAST_ARGS, TILE, GATHER, GATHER_ND, EMBEDDING_LOOKUP, REVERSE_V2, MIRROR_PAD, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND.
 *
 * Kind numbers 320..379 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_GATHER ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_gather (k_op_gather.c).
 *
 * Data movement kinds work on element widths, not types:
 *   _X8: int8, uint8, bool   _X16: int16   _X32: int32, float32   _X64: int64
 *
 * Index, axis, shape, multiples, padding and crop tensors are read at run
 * time (they may be computed by earlier ops), whether constant or not; the
 * kernel checks every value read against the static shapes in the blob and
 * returns K_E_INVALID instead of reading or writing out of bounds. Such
 * integer tensors have an element width in the blob (1, 2, 4 or 8 bytes,
 * signed). docs/kernels-gather.md describes each kind. */
#ifndef NPUC_K_OP_GATHER_H
#define NPUC_K_OP_GATHER_H

#include "k_common.h"

/* Most dims a SHAPE input or a FILL output may have (GRAPH_MAX_RANK). */
#define K_OP_GATHER_MAX_RANK 8
/* Most index components of a GATHER_ND index (TFLite Micro: 5). */
#define K_OP_GATHER_ND_MAX 5

enum {
    K_OP_GATHER_FIRST = 320,
    /* k_op_shape_blob. in: input (unused)  out: int32 [n] */
    K_OP_SHAPE_I32 = 320,
    /* k_op_fill_blob. in: dims, value (scalar)  out: output */
    K_OP_FILL_X8 = 321,
    K_OP_FILL_X32 = 322,
    /* k_op_bcast_to_blob. in: input, shape  out: output */
    K_OP_BROADCAST_TO_X8 = 323,
    K_OP_BROADCAST_TO_X16 = 324,
    K_OP_BROADCAST_TO_X32 = 325,
    K_OP_BROADCAST_TO_X64 = 326,
    /* k_op_bcast_args_blob. in: shape1, shape2  out: broadcast shape */
    K_OP_BROADCAST_ARGS_I32 = 327,
    K_OP_BROADCAST_ARGS_I64 = 328,
    /* k_op_tile_blob. in: input, multiples  out: output */
    K_OP_TILE_X8 = 329,
    K_OP_TILE_X16 = 330,
    K_OP_TILE_X32 = 331,
    K_OP_TILE_X64 = 332,
    /* k_op_gather_blob. in: params, indices (int32)  out: output */
    K_OP_GATHER_X8 = 333,
    K_OP_GATHER_X32 = 334,
    /* k_op_gather_nd_blob. in: params, indices (int32)  out: output */
    K_OP_GATHER_ND_X8 = 335,
    K_OP_GATHER_ND_X32 = 336,
    /* k_op_embedding_blob. in: ids (int32), value  out: output */
    K_OP_EMBEDDING_LOOKUP_X8 = 337,
    K_OP_EMBEDDING_LOOKUP_X32 = 338,
    K_OP_EMBEDDING_LOOKUP_S8_F32 = 339, /* int8 table dequantized to float32 */
    /* k_op_reverse_blob. in: input, axis (int32)  out: output */
    K_OP_REVERSE_X8 = 340,
    K_OP_REVERSE_X16 = 341,
    K_OP_REVERSE_X32 = 342,
    K_OP_REVERSE_X64 = 343,
    /* k_op_mirror_pad_blob. in: input, paddings  out: output */
    K_OP_MIRROR_PAD_X8 = 344,
    K_OP_MIRROR_PAD_X32 = 345,
    /* k_op_d2s_blob. in: input  out: output */
    K_OP_DEPTH_TO_SPACE_X8 = 346,
    K_OP_DEPTH_TO_SPACE_X32 = 347,
    K_OP_SPACE_TO_DEPTH_X8 = 348,
    K_OP_SPACE_TO_DEPTH_X32 = 349,
    /* k_op_s2b_blob. in: input, block_shape (int32), crops / paddings (int32)
     * out: output */
    K_OP_BATCH_TO_SPACE_X8 = 350,
    K_OP_BATCH_TO_SPACE_X32 = 351,
    K_OP_SPACE_TO_BATCH_X8 = 352,
    K_OP_SPACE_TO_BATCH_X32 = 353,
    K_OP_GATHER_LAST = 379
};

/* SHAPE: the output is v[0..n-1] (the input's static shape). */
typedef struct k_op_shape_blob {
    int32_t n;
    int32_t v[K_OP_GATHER_MAX_RANK];
} k_op_shape_blob;

/* FILL: every output element is the value input. The dims input (dims_width
 * bytes per element, rank entries) must equal dims[]. */
typedef struct k_op_fill_blob {
    int32_t rank;
    int32_t dims[K_OP_GATHER_MAX_RANK];
    int32_t dims_width;
} k_op_fill_blob;

/* BROADCAST_TO / TILE: in_dims is the input shape with leading 1s up to
 * rank. BROADCAST_TO: the shape input (rank entries of shape_width bytes)
 * must equal out_dims, every in_dims[i] is 1 or out_dims[i]. TILE: the
 * multiples input (rank entries) must give out_dims[i] = in_dims[i] * m[i]. */
typedef struct k_op_bcast_to_blob {
    int32_t rank;
    int32_t in_dims[K_MAX_DIMS];
    int32_t out_dims[K_MAX_DIMS];
    int32_t shape_width;
} k_op_bcast_to_blob;
typedef k_op_bcast_to_blob k_op_tile_blob;

/* BROADCAST_ARGS: shapes of n1 and n2 entries, output max(n1, n2). */
typedef struct k_op_bcast_args_blob {
    int32_t n1, n2;
} k_op_bcast_args_blob;

/* GATHER: params viewed as [batch, outer, axis_size, inner], indices as
 * [batch, coord]; output [batch, outer, coord, inner]. */
typedef struct k_op_gather_blob {
    int32_t batch, outer, axis_size, coord, inner;
} k_op_gather_blob;

/* GATHER_ND: indices [n_slices, nd]; index component j in [0, dims[j]),
 * element offset sum(index_j * stride[j]); slices of slice_size elements
 * out of params of params_count elements. */
typedef struct k_op_gather_nd_blob {
    int32_t n_slices, nd, slice_size, params_count;
    int32_t dims[K_OP_GATHER_ND_MAX];
    int32_t stride[K_OP_GATHER_ND_MAX];
} k_op_gather_nd_blob;

/* EMBEDDING_LOOKUP: n_ids rows of cols elements out of a [rows, cols]
 * table; S8_F32 dequantizes with scale (zero point 0). */
typedef struct k_op_embedding_blob {
    int32_t n_ids, rows, cols;
    float scale;
} k_op_embedding_blob;

/* REVERSE_V2: n_axes axes (int32, negative from the end) of a rank-d
 * tensor; they must be distinct and contiguous once sorted (TFLite Micro). */
typedef struct k_op_reverse_blob {
    int32_t rank;
    int32_t dims[K_MAX_DIMS];
    int32_t n_axes;
} k_op_reverse_blob;

/* MIRROR_PAD: paddings [rank, 2] of pad_width bytes (4 or 8);
 * out_dims[i] = in_dims[i] + before + after. offset 1: REFLECT, 0:
 * SYMMETRIC. */
typedef struct k_op_mirror_pad_blob {
    int32_t rank;
    int32_t in_dims[K_MAX_DIMS];
    int32_t out_dims[K_MAX_DIMS];
    int32_t offset;
    int32_t pad_width;
} k_op_mirror_pad_blob;

/* DEPTH_TO_SPACE / SPACE_TO_DEPTH on NHWC: the input's dims and the block. */
typedef struct k_op_d2s_blob {
    int32_t batch, height, width, depth, block;
} k_op_d2s_blob;

/* BATCH_TO_SPACE_ND / SPACE_TO_BATCH_ND: rank 3 (NHC) or 4 (NHWC) tensors,
 * dims given 4-d (NH1C for rank 3); block_shape has rank - 2 int32 entries,
 * crops / paddings [rank - 2, 2] int32. pad_value: the byte SPACE_TO_BATCH
 * pads with (the output zero point; 0 for float). */
typedef struct k_op_s2b_blob {
    int32_t rank;
    int32_t in_dims[4];
    int32_t out_dims[4];
    int32_t pad_value;
} k_op_s2b_blob;

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_GATHER                                                        \
    [K_OP_SHAPE_I32] = {"shape_i32", F_GATHER, 0},                               \
    [K_OP_FILL_X8] = {"fill_x8", F_GATHER, 1},                                   \
    [K_OP_FILL_X32] = {"fill_x32", F_GATHER, 1},                                 \
    [K_OP_BROADCAST_TO_X8] = {"broadcast_to_x8", F_GATHER, 1},                   \
    [K_OP_BROADCAST_TO_X16] = {"broadcast_to_x16", F_GATHER, 1},                 \
    [K_OP_BROADCAST_TO_X32] = {"broadcast_to_x32", F_GATHER, 1},                 \
    [K_OP_BROADCAST_TO_X64] = {"broadcast_to_x64", F_GATHER, 1},                 \
    [K_OP_BROADCAST_ARGS_I32] = {"broadcast_args_i32", F_GATHER, 0},             \
    [K_OP_BROADCAST_ARGS_I64] = {"broadcast_args_i64", F_GATHER, 0},             \
    [K_OP_TILE_X8] = {"tile_x8", F_GATHER, 1},                                   \
    [K_OP_TILE_X16] = {"tile_x16", F_GATHER, 1},                                 \
    [K_OP_TILE_X32] = {"tile_x32", F_GATHER, 1},                                 \
    [K_OP_TILE_X64] = {"tile_x64", F_GATHER, 1},                                 \
    [K_OP_GATHER_X8] = {"gather_x8", F_GATHER, 1},                               \
    [K_OP_GATHER_X32] = {"gather_x32", F_GATHER, 1},                             \
    [K_OP_GATHER_ND_X8] = {"gather_nd_x8", F_GATHER, 1},                         \
    [K_OP_GATHER_ND_X32] = {"gather_nd_x32", F_GATHER, 1},                       \
    [K_OP_EMBEDDING_LOOKUP_X8] = {"embedding_lookup_x8", F_GATHER, 1},           \
    [K_OP_EMBEDDING_LOOKUP_X32] = {"embedding_lookup_x32", F_GATHER, 1},         \
    [K_OP_EMBEDDING_LOOKUP_S8_F32] = {"embedding_lookup_s8_f32", F_GATHER, 0},   \
    [K_OP_REVERSE_X8] = {"reverse_x8", F_GATHER, 1},                             \
    [K_OP_REVERSE_X16] = {"reverse_x16", F_GATHER, 1},                           \
    [K_OP_REVERSE_X32] = {"reverse_x32", F_GATHER, 1},                           \
    [K_OP_REVERSE_X64] = {"reverse_x64", F_GATHER, 1},                           \
    [K_OP_MIRROR_PAD_X8] = {"mirror_pad_x8", F_GATHER, 1},                       \
    [K_OP_MIRROR_PAD_X32] = {"mirror_pad_x32", F_GATHER, 1},                     \
    [K_OP_DEPTH_TO_SPACE_X8] = {"depth_to_space_x8", F_GATHER, 1},               \
    [K_OP_DEPTH_TO_SPACE_X32] = {"depth_to_space_x32", F_GATHER, 1},             \
    [K_OP_SPACE_TO_DEPTH_X8] = {"space_to_depth_x8", F_GATHER, 1},               \
    [K_OP_SPACE_TO_DEPTH_X32] = {"space_to_depth_x32", F_GATHER, 1},             \
    [K_OP_BATCH_TO_SPACE_X8] = {"batch_to_space_nd_x8", F_GATHER, 1},            \
    [K_OP_BATCH_TO_SPACE_X32] = {"batch_to_space_nd_x32", F_GATHER, 1},          \
    [K_OP_SPACE_TO_BATCH_X8] = {"space_to_batch_nd_x8", F_GATHER, 1},            \
    [K_OP_SPACE_TO_BATCH_X32] = {"space_to_batch_nd_x32", F_GATHER, 1},

/* TFLite Micro's MIRROR_PAD mapping of padded position p to an input
 * position along a dim of size n with `before` padding (offset 1:
 * REFLECT, 0: SYMMETRIC); -1 when it falls outside the input (TFLite Micro
 * would read out of bounds there). Also the compiler's NPU form. */
int64_t k_mirror_index(int64_t p, int64_t before, int64_t n, int64_t offset);

#endif
