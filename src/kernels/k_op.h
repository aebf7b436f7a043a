/* kernels: prepared CPU ops, dispatched by kind.
 *
 * A prepared op is (kind, params blob): the blob is everything the kernel
 * needs besides tensor data, computed once on the host (the interpreter's
 * prepare step) and stored position independent: no pointers, arrays at
 * byte offsets inside the blob, little-endian host layout, 8-byte aligned.
 * The reference interpreter runs every op through k_op_run, and so does the
 * runtime for the SW epochs of a compiled model: one evaluation path, so
 * runtime and interpreter agree bit for bit by construction.
 *
 * Freestanding: no malloc, no stdio. k_op_run validates the blob (size,
 * array bounds, counts) and the byte sizes of the tensors it is handed
 * against what the parameters say it will read and write, so a corrupt
 * model gives K_E_INVALID, never an out-of-bounds access.
 *
 * Blob layout rules (docs/kernels.md, "Prepared ops (k_op)"):
 *  - the blob starts with the kind's struct below (only 4-byte fields:
 *    int32_t, uint32_t, float; the same layout on the host and on a 32-bit
 *    MCU); arrays follow at byte offsets (from the blob start) stored in the
 *    struct, each aligned to 4 bytes and inside the blob;
 *  - the blob itself must be 4-byte aligned in memory (8 recommended);
 *  - kinds are stored in model files: their numbers never change, new kinds
 *    (and any change of a kind's struct) get new numbers at the end.
 *
 * Tensors: io->in[] are the op's inputs in TFLite order (absent optional
 * inputs NULL with size 0; inputs a kind does not read, such as constant
 * shape or axis tensors, may be NULL too), io->out[] its outputs. Every
 * tensor a kind reads or writes must be aligned to its element size. */
#ifndef NPUC_K_OP_H
#define NPUC_K_OP_H

#include "k_common.h"
#include "k_conv.h"
#include "k_elementwise.h"
#include "k_activation.h"
#include "k_shape.h"
#include "k_op_math.h"
#include "k_op_binop.h"
#include "k_op_gather.h"
#include "k_op_reduce.h"
#include "k_op_lstm.h"
#include "k_op_custom.h"
#include "k_op_control.h"

/* Tensor data handed to a prepared op. Pointers may be NULL for absent
 * optional inputs. Sizes are in bytes. Inputs that an op updates in place
 * (variable/state tensors, e.g. SVDF) are written through in[]. */
typedef struct k_op_io {
    void *const *in;          /* [n_in] */
    const uint32_t *in_size;  /* [n_in] */
    int32_t n_in;
    void *const *out;         /* [n_out] */
    const uint32_t *out_size; /* [n_out] */
    int32_t n_out;
    void *scratch;            /* scratch_size bytes, contents undefined on entry */
    uint32_t scratch_size;
    void *persistent;         /* persistent_size bytes, zeroed once at init, kept across runs */
    uint32_t persistent_size;
    void *vars;               /* the model's resource-variable area (k_op_control.h), vars_size
                                 bytes, 8-aligned, zeroed at init and reset; NULL: none */
    uint32_t vars_size;
} k_op_io;

/* ---- kinds ------------------------------------------------------------------
 * One per (op, type variant). Stored in model files: never renumber, add at
 * the end. The comment names the blob struct and the tensors (io->in[] in
 * the op's TFLite input order). */
enum {
    K_OP_NONE = 0,
    /* k_op_conv_blob. in: input, filter, bias?  out: output */
    K_OP_CONV_S8 = 1,
    K_OP_CONV_S16 = 2,         /* int16 activations, int64 bias */
    K_OP_CONV_S16_B32 = 3,     /* int16 activations, int32 bias / accumulator */
    K_OP_CONV_F32 = 4,
    K_OP_DWCONV_S8 = 5,
    K_OP_DWCONV_S16 = 6,
    K_OP_DWCONV_F32 = 7,
    /* k_op_conv_blob. in: output_shape?, filter, input, bias?  out: output;
     * scratch: accumulators (s8: 4, s16: 8 bytes per output element; B16:
     * plus 8 bytes per output channel for the widened bias) */
    K_OP_TCONV_S8 = 8,
    K_OP_TCONV_S16 = 9,        /* int64 bias */
    K_OP_TCONV_S16_B16 = 10,   /* int16 bias, widened to int64 */
    K_OP_TCONV_F32 = 11,
    /* k_op_fc_blob. in: input, weights, bias?  out: output */
    K_OP_FC_S8 = 12,
    K_OP_FC_S16 = 13,
    K_OP_FC_S16_B32 = 14,
    K_OP_FC_F32 = 15,
    /* k_op_svdf_blob. in: input, weights_feature, weights_time, bias?,
     * state (updated in place)  out: output; scratch as k_svdf_* */
    K_OP_SVDF_S8 = 16,         /* int16 weights_time and state */
    K_OP_SVDF_S8_T8 = 17,      /* int8 weights_time and state */
    K_OP_SVDF_F32 = 18,
    /* k_op_pool_blob. in: input  out: output */
    K_OP_AVGPOOL_S8 = 19,
    K_OP_AVGPOOL_S16 = 20,
    K_OP_AVGPOOL_F32 = 21,
    K_OP_MAXPOOL_S8 = 22,
    K_OP_MAXPOOL_S16 = 23,
    K_OP_MAXPOOL_F32 = 24,
    /* k_op_binary_blob. in: input1, input2  out: output */
    K_OP_ADD_S8 = 25,
    K_OP_ADD_S16 = 26,
    K_OP_ADD_S16_POT = 27,
    K_OP_ADD_S32 = 28,
    K_OP_ADD_F32 = 29,
    K_OP_SUB_S8 = 30,
    K_OP_SUB_S16 = 31,
    K_OP_SUB_S16_POT = 32,
    K_OP_SUB_S32 = 33,
    K_OP_SUB_F32 = 34,
    K_OP_MUL_S8 = 35,
    K_OP_MUL_S16 = 36,
    K_OP_MUL_S32 = 37,
    K_OP_MUL_F32 = 38,
    K_OP_MAXIMUM_S8 = 39,
    K_OP_MAXIMUM_S16 = 40,
    K_OP_MAXIMUM_S32 = 41,
    K_OP_MAXIMUM_F32 = 42,
    K_OP_MINIMUM_S8 = 43,
    K_OP_MINIMUM_S16 = 44,
    K_OP_MINIMUM_S32 = 45,
    K_OP_MINIMUM_F32 = 46,
    /* k_op_mean_blob. in: input (axis tensor unused)  out: output */
    K_OP_MEAN_S8 = 47,
    K_OP_MEAN_S16 = 48,
    K_OP_MEAN_F32 = 49,
    /* k_op_unary_blob. in: input  out: output */
    K_OP_RELU_S8 = 50,         /* RELU, RELU6, RELU_N1_TO_1 */
    K_OP_RELU_S16 = 51,
    K_OP_RELU_F32 = 52,
    K_OP_LEAKY_RELU_S8 = 53,
    K_OP_LEAKY_RELU_S16 = 54,
    K_OP_LEAKY_RELU_F32 = 55,
    K_OP_HARD_SWISH_S8 = 56,
    K_OP_HARD_SWISH_F32 = 57,
    K_OP_LOGISTIC_S8 = 58,
    K_OP_LOGISTIC_S16 = 59,
    K_OP_LOGISTIC_F32 = 60,
    K_OP_TANH_S8 = 61,
    K_OP_TANH_S16 = 62,
    K_OP_TANH_F32 = 63,
    K_OP_SOFTMAX_S8 = 64,
    K_OP_SOFTMAX_S8_S16 = 65,
    K_OP_SOFTMAX_S16 = 66,     /* blob holds the two 513-entry tables */
    K_OP_SOFTMAX_F32 = 67,
    K_OP_QUANTIZE_F32_S8 = 68,
    K_OP_QUANTIZE_F32_U8 = 69,
    K_OP_QUANTIZE_F32_S16 = 70,
    K_OP_REQUANT_S8_S8 = 71,   /* QUANTIZE between integer types */
    K_OP_REQUANT_S8_U8 = 72,
    K_OP_REQUANT_U8_S8 = 73,
    K_OP_REQUANT_S8_S16 = 74,
    K_OP_REQUANT_S8_S32 = 75,
    K_OP_REQUANT_S16_S8 = 76,
    K_OP_REQUANT_S16_S16 = 77,
    K_OP_REQUANT_S16_S32 = 78,
    K_OP_REQUANT_S32_S8 = 79,
    K_OP_REQUANT_S32_S16 = 80,
    K_OP_DEQUANTIZE_S8_F32 = 81,
    K_OP_DEQUANTIZE_U8_F32 = 82,
    K_OP_DEQUANTIZE_S16_F32 = 83,
    /* k_op_copy_blob. in: input (shape/axis tensors unused)  out: output.
     * RESHAPE, SQUEEZE, EXPAND_DIMS; input and output may be one buffer. */
    K_OP_COPY = 84,
    /* k_op_concat_blob. in: n inputs  out: output. CONCATENATION, PACK */
    K_OP_CONCAT_X8 = 85,
    K_OP_CONCAT_X16 = 86,
    K_OP_CONCAT_X32 = 87,
    K_OP_CONCAT_F32 = 88,      /* with the fused activation clamp */
    K_OP_CONCAT_REQUANT_S8 = 89,
    K_OP_CONCAT_REQUANT_U8 = 90,
    /* k_op_concat_blob. in: the data at in[data_index]  out: n outputs.
     * SPLIT, SPLIT_V, UNPACK */
    K_OP_SPLIT_X8 = 91,
    K_OP_SPLIT_X16 = 92,
    K_OP_SPLIT_X32 = 93,
    /* k_op_pad_blob. in: input, paddings (unused), value?  out: output.
     * PAD, PADV2 */
    K_OP_PAD_X8 = 94,
    K_OP_PAD_X16 = 95,
    K_OP_PAD_X32 = 96,
    /* k_op_slice_blob. in: input (begin/size/end/strides unused)  out:
     * output. SLICE, STRIDED_SLICE */
    K_OP_SLICE_X8 = 97,
    K_OP_SLICE_X16 = 98,
    K_OP_SLICE_X32 = 99,
    /* k_op_transpose_blob. in: input (perm unused)  out: output */
    K_OP_TRANSPOSE_X8 = 100,
    K_OP_TRANSPOSE_X16 = 101,
    K_OP_TRANSPOSE_X32 = 102,
    /* k_op_resize_blob. in: input (size unused)  out: output */
    K_OP_RESIZE_NEAREST_X8 = 103,
    K_OP_RESIZE_NEAREST_X16 = 104,
    K_OP_RESIZE_NEAREST_X32 = 105,
    K_OP_RESIZE_BILINEAR_S8 = 106,
    K_OP_RESIZE_BILINEAR_S16 = 107,
    K_OP_RESIZE_BILINEAR_F32 = 108,
    /* 109..199 unused. Families with their own header own a range each:
     *   200..259 k_op_math.h     260..319 k_op_binop.h   320..379 k_op_gather.h
     *   380..439 k_op_reduce.h   440..469 k_op_lstm.h    470..489 k_op_custom.h
     *   490..511 k_op_control.h (state and control ops) */
    K_OP_KIND_END = 512        /* one past the last kind number; unused
                                  numbers have no name and never run */
};

/* ---- params blobs -------------------------------------------------------------
 * Only 4-byte fields. Arrays are byte offsets from the blob start. Limits
 * that k_op_run enforces besides consistency with the tensors: every tensor
 * dimension in [0, K_OP_MAX_DIM] (at least 1 where the kernel divides or
 * indexes by it), element counts at most INT32_MAX, strides, dilations and
 * paddings such that the kernels' int32 position arithmetic cannot
 * overflow, and the integer parameter ranges each kernel computes in. */
#define K_OP_MAX_DIM (1 << 29)

/* CONV_*, DWCONV_*, TCONV_*: k_conv_params without pointers. */
typedef struct k_op_conv_blob {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w, filter_c;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t depth_multiplier;
    int32_t input_offset, output_offset;
    int32_t act_min, act_max;
    float act_min_f, act_max_f;
    uint32_t mult_off, shift_off;   /* int32[out_c] each (integer kinds) */
} k_op_conv_blob;

/* FC_*: k_fc_params without pointers. */
typedef struct k_op_fc_blob {
    int32_t batches, accum_depth, out_c;
    int32_t input_offset, filter_offset, output_offset;
    int32_t act_min, act_max;
    float act_min_f, act_max_f;
    uint32_t mult_off, shift_off;   /* int32[out_c] each (integer kinds) */
} k_op_fc_blob;

typedef struct k_op_svdf_blob {
    k_svdf_params p;
} k_op_svdf_blob;

typedef struct k_op_pool_blob {
    k_pool_params p;
    k_dims din, dout;
} k_op_pool_blob;

/* ADD, SUB, MUL, MAXIMUM, MINIMUM. */
typedef struct k_op_binary_blob {
    k_dims d1, d2, dout;
    union {
        k_add_params add;          /* ADD/SUB _S8, _S16 */
        k_add_pot_params pot;      /* ADD/SUB _S16_POT */
        k_mul_params mul;          /* MUL _S8, _S16 */
        k_act_f32 act_f32;         /* ADD/SUB/MUL _F32 */
        k_act_s32 act_s32;         /* ADD/SUB/MUL _S32 */
    } p;                           /* MAXIMUM/MINIMUM: unused */
} k_op_binary_blob;

typedef struct k_op_mean_blob {
    k_mean_params p;
    k_dims din;
} k_op_mean_blob;

/* HARD_SWISH_S8: k_hard_swish_params with 4-byte fields. */
typedef struct k_op_hard_swish {
    int32_t input_zero_point, output_zero_point;
    int32_t reluish_mult, reluish_shift;   /* Q0.15 multiplier (int16 range) */
    int32_t output_mult, output_shift;     /* Q0.15 multiplier (int16 range) */
} k_op_hard_swish;

/* Activations, SOFTMAX, QUANTIZE, DEQUANTIZE. */
typedef struct k_op_unary_blob {
    int32_t n;                 /* elements (SOFTMAX: outer * depth) */
    int32_t outer, depth;      /* SOFTMAX rows and row length */
    float lo, hi;              /* RELU_F32 clamp */
    float alpha;               /* LEAKY_RELU_F32 */
    float beta;                /* SOFTMAX_F32 */
    float scale;               /* QUANTIZE_F32_*, DEQUANTIZE_* */
    int32_t zp;                /* QUANTIZE_F32_*, DEQUANTIZE_* */
    uint32_t lut_off;          /* SOFTMAX_S16: int16[2 * K_SOFTMAX_LUT_SIZE]: exp, 1/(1+x) */
    union {
        k_relu_params relu;
        k_leaky_relu_params leaky;
        k_op_hard_swish hswish;
        k_sigmoid_s8_params sig8;
        k_sigmoid_s16_params sig16;
        k_softmax_s8_params sm8;
        k_sigmoid_s16_params sm16; /* SOFTMAX_S16: input multiplier and shift */
        k_requant_params req;
    } p;
} k_op_unary_blob;

typedef struct k_op_copy_blob {
    uint32_t nbytes;
} k_op_copy_blob;

/* CONCAT_* and SPLIT_*: the tensor viewed as [outer, axis, inner]. */
typedef struct k_op_concat_blob {
    int32_t n, outer, inner;
    int32_t data_index;        /* SPLIT_*: the input holding the data */
    uint32_t axis_len_off;     /* int32[n] */
    float act_min, act_max;    /* CONCAT_F32 */
    float out_scale;           /* CONCAT_REQUANT_* */
    int32_t out_zp;
    uint32_t in_scale_off;     /* CONCAT_REQUANT_*: float[n] */
    uint32_t in_zp_off;        /* CONCAT_REQUANT_*: int32[n] */
} k_op_concat_blob;

typedef struct k_op_pad_blob {
    k_pad_params p;
    int32_t value_index;       /* input holding the pad element, or -1: value[] */
    uint8_t value[4];          /* pad element (its first 1, 2 or 4 bytes) */
} k_op_pad_blob;

typedef struct k_op_slice_blob {
    k_slice_params p;
} k_op_slice_blob;

typedef struct k_op_transpose_blob {
    k_transpose_params p;
} k_op_transpose_blob;

typedef struct k_op_resize_blob {
    int32_t batches, in_h, in_w, depth;
    int32_t out_h, out_w;
    int32_t align_corners, half_pixel_centers;   /* 0 or 1 */
} k_op_resize_blob;

/* Rounds a blob offset up to the array alignment (8). */
static inline uint32_t k_op_align(uint32_t v) { return (v + 7u) & ~7u; }

/* ---- running ------------------------------------------------------------------ */

/* ---- families and a per-model kernel table --------------------------------
 * Every kind belongs to one family, and one runner runs all the kinds of a
 * family. k_op_run reaches every runner; a firmware that dispatches through
 * k_op_run_table instead links only the runners its table names (with
 * --gc-sections): `npuc compile --output-format c` writes such a table for
 * the model, ID_kernels (docs/embedded.md). */
enum {
    K_OP_FAM_NONE, K_OP_FAM_CONV, K_OP_FAM_FC, K_OP_FAM_SVDF, K_OP_FAM_POOL, K_OP_FAM_BINARY,
    K_OP_FAM_MEAN, K_OP_FAM_UNARY, K_OP_FAM_COPY, K_OP_FAM_CONCAT, K_OP_FAM_SPLIT, K_OP_FAM_PAD,
    K_OP_FAM_SLICE, K_OP_FAM_TRANSPOSE, K_OP_FAM_RESIZE, K_OP_FAM_MATH, K_OP_FAM_BINOP, K_OP_FAM_GATHER,
    K_OP_FAM_REDUCE, K_OP_FAM_LSTM, K_OP_FAM_CUSTOM, K_OP_FAM_CONTROL, K_OP_FAM_COUNT
};
typedef int (*k_op_family_fn)(uint32_t kind, const uint8_t *params, uint32_t params_size, const k_op_io *io);
/* The family of a kind (K_OP_FAM_NONE for an unknown one) and its name. */
uint32_t k_op_family(uint32_t kind);
const char *k_op_family_name(uint32_t family);
/* k_op_run through table (indexed by family): K_E_UNSUPPORTED when the
 * kind's family has no runner in it. */
int k_op_run_table(const k_op_family_fn *table, uint32_t kind, const void *params, uint32_t params_size,
                   const k_op_io *io);
/* Every family's runner (k_op_all.c: referencing it links them all). */
extern const k_op_family_fn k_op_all_families[K_OP_FAM_COUNT];
/* The runners, by family. */
int k_op_run_conv(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_fc(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_svdf(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_pool(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_binary(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_mean(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_unary(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_copy(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_concat(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_split(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_pad(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_slice(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_transpose(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_resize(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_math(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_binop(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_gather(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_reduce(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_lstm(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_custom(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_op_run_control(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);

/* Runs a prepared op. Returns K_OK, K_E_INVALID (bad blob, kind, or tensor
 * sizes), or K_E_UNSUPPORTED (a value the kernel cannot compute, e.g. an
 * int8 SOFTMAX row whose sum needs too large a shift). */
int k_op_run(uint32_t kind, const void *params, uint32_t params_size, const k_op_io *io);

/* Checks a blob alone (everything k_op_run checks except the tensors):
 * K_OK or K_E_INVALID. */
int k_op_validate(uint32_t kind, const void *params, uint32_t params_size);

/* Short name of a kind ("conv_s8", ...), or NULL if the kind is unknown. */
const char *k_op_name(uint32_t kind);

/* True for kinds that only move data (copy, pad, slice, transpose, concat,
 * split, pack/unpack, reshape copy, cast/requantize-free moves): the
 * runtime reports them as hybrid epochs. */
int k_op_is_data_movement(uint32_t kind);

/* 1 when the kind's runner may write its output over its input 0 from the
 * same first byte (in[0] == out[0]) with these params: it reads element i
 * before it writes element i, in increasing i, and output element i ends
 * no later than input element i (QUANTIZE to a type no wider, CAST to a
 * type no wider, SignalEnergy: a 4-byte complex pair in, a 4-byte energy
 * out); 0 otherwise. The compiler places such CPU ops so where it lowers
 * the arena's peak (cc_alloc.c, cpu_inplace_pairs). */
int k_op_in_place(uint32_t kind, const void *params, uint32_t params_size);

#endif
