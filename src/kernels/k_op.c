/* Prepared ops: the kind table, shared checks and the dispatch. */
#include "k_op_internal.h"

/* The blob structs are a stored format: only 4-byte fields, no padding, the
 * same size on every target. A change here is a new kind, not an edit. */
_Static_assert(sizeof(k_dims) == 28, "k_dims layout");
_Static_assert(sizeof(k_op_conv_blob) == 100, "k_op_conv_blob layout");
_Static_assert(sizeof(k_op_fc_blob) == 48, "k_op_fc_blob layout");
_Static_assert(sizeof(k_op_svdf_blob) == 52, "k_op_svdf_blob layout");
_Static_assert(sizeof(k_op_pool_blob) == 40 + 2 * 28, "k_op_pool_blob layout");
_Static_assert(sizeof(k_add_params) == 48, "k_add_params layout");
_Static_assert(sizeof(k_op_binary_blob) == 3 * 28 + 48, "k_op_binary_blob layout");
_Static_assert(sizeof(k_mean_params) == 44, "k_mean_params layout");
_Static_assert(sizeof(k_op_mean_blob) == 44 + 28, "k_op_mean_blob layout");
_Static_assert(sizeof(k_op_unary_blob) == 40 + 24, "k_op_unary_blob layout");
_Static_assert(sizeof(k_op_copy_blob) == 4, "k_op_copy_blob layout");
_Static_assert(sizeof(k_op_concat_blob) == 44, "k_op_concat_blob layout");
_Static_assert(sizeof(k_op_pad_blob) == 4 * 19 + 8, "k_op_pad_blob layout");
_Static_assert(sizeof(k_op_slice_blob) == 4 * 25, "k_op_slice_blob layout");
_Static_assert(sizeof(k_op_transpose_blob) == 4 * 13, "k_op_transpose_blob layout");
_Static_assert(sizeof(k_op_resize_blob) == 32, "k_op_resize_blob layout");

/* ---- kind table ------------------------------------------------------------- */

enum {
    F_NONE = K_OP_FAM_NONE, F_CONV = K_OP_FAM_CONV, F_FC = K_OP_FAM_FC, F_SVDF = K_OP_FAM_SVDF,
    F_POOL = K_OP_FAM_POOL, F_BINARY = K_OP_FAM_BINARY, F_MEAN = K_OP_FAM_MEAN, F_UNARY = K_OP_FAM_UNARY,
    F_COPY = K_OP_FAM_COPY, F_CONCAT = K_OP_FAM_CONCAT, F_SPLIT = K_OP_FAM_SPLIT, F_PAD = K_OP_FAM_PAD,
    F_SLICE = K_OP_FAM_SLICE, F_TRANSPOSE = K_OP_FAM_TRANSPOSE, F_RESIZE = K_OP_FAM_RESIZE,
    F_MATH = K_OP_FAM_MATH, F_BINOP = K_OP_FAM_BINOP, F_GATHER = K_OP_FAM_GATHER, F_REDUCE = K_OP_FAM_REDUCE,
    F_LSTM = K_OP_FAM_LSTM, F_CUSTOM = K_OP_FAM_CUSTOM, F_CONTROL = K_OP_FAM_CONTROL
};

typedef struct kind_info {
    const char *name;
    uint8_t family;
    uint8_t data_movement;
} kind_info;

static const kind_info kinds[K_OP_KIND_END] = {
    [K_OP_CONV_S8] = {"conv_s8", F_CONV, 0},
    [K_OP_CONV_S16] = {"conv_s16", F_CONV, 0},
    [K_OP_CONV_S16_B32] = {"conv_s16_b32", F_CONV, 0},
    [K_OP_CONV_F32] = {"conv_f32", F_CONV, 0},
    [K_OP_DWCONV_S8] = {"dwconv_s8", F_CONV, 0},
    [K_OP_DWCONV_S16] = {"dwconv_s16", F_CONV, 0},
    [K_OP_DWCONV_F32] = {"dwconv_f32", F_CONV, 0},
    [K_OP_TCONV_S8] = {"tconv_s8", F_CONV, 0},
    [K_OP_TCONV_S16] = {"tconv_s16", F_CONV, 0},
    [K_OP_TCONV_S16_B16] = {"tconv_s16_b16", F_CONV, 0},
    [K_OP_TCONV_F32] = {"tconv_f32", F_CONV, 0},
    [K_OP_FC_S8] = {"fc_s8", F_FC, 0},
    [K_OP_FC_S16] = {"fc_s16", F_FC, 0},
    [K_OP_FC_S16_B32] = {"fc_s16_b32", F_FC, 0},
    [K_OP_FC_F32] = {"fc_f32", F_FC, 0},
    [K_OP_SVDF_S8] = {"svdf_s8", F_SVDF, 0},
    [K_OP_SVDF_S8_T8] = {"svdf_s8_t8", F_SVDF, 0},
    [K_OP_SVDF_F32] = {"svdf_f32", F_SVDF, 0},
    [K_OP_AVGPOOL_S8] = {"avgpool_s8", F_POOL, 0},
    [K_OP_AVGPOOL_S16] = {"avgpool_s16", F_POOL, 0},
    [K_OP_AVGPOOL_F32] = {"avgpool_f32", F_POOL, 0},
    [K_OP_MAXPOOL_S8] = {"maxpool_s8", F_POOL, 0},
    [K_OP_MAXPOOL_S16] = {"maxpool_s16", F_POOL, 0},
    [K_OP_MAXPOOL_F32] = {"maxpool_f32", F_POOL, 0},
    [K_OP_ADD_S8] = {"add_s8", F_BINARY, 0},
    [K_OP_ADD_S16] = {"add_s16", F_BINARY, 0},
    [K_OP_ADD_S16_POT] = {"add_s16_pot", F_BINARY, 0},
    [K_OP_ADD_S32] = {"add_s32", F_BINARY, 0},
    [K_OP_ADD_F32] = {"add_f32", F_BINARY, 0},
    [K_OP_SUB_S8] = {"sub_s8", F_BINARY, 0},
    [K_OP_SUB_S16] = {"sub_s16", F_BINARY, 0},
    [K_OP_SUB_S16_POT] = {"sub_s16_pot", F_BINARY, 0},
    [K_OP_SUB_S32] = {"sub_s32", F_BINARY, 0},
    [K_OP_SUB_F32] = {"sub_f32", F_BINARY, 0},
    [K_OP_MUL_S8] = {"mul_s8", F_BINARY, 0},
    [K_OP_MUL_S16] = {"mul_s16", F_BINARY, 0},
    [K_OP_MUL_S32] = {"mul_s32", F_BINARY, 0},
    [K_OP_MUL_F32] = {"mul_f32", F_BINARY, 0},
    [K_OP_MAXIMUM_S8] = {"maximum_s8", F_BINARY, 0},
    [K_OP_MAXIMUM_S16] = {"maximum_s16", F_BINARY, 0},
    [K_OP_MAXIMUM_S32] = {"maximum_s32", F_BINARY, 0},
    [K_OP_MAXIMUM_F32] = {"maximum_f32", F_BINARY, 0},
    [K_OP_MINIMUM_S8] = {"minimum_s8", F_BINARY, 0},
    [K_OP_MINIMUM_S16] = {"minimum_s16", F_BINARY, 0},
    [K_OP_MINIMUM_S32] = {"minimum_s32", F_BINARY, 0},
    [K_OP_MINIMUM_F32] = {"minimum_f32", F_BINARY, 0},
    [K_OP_MEAN_S8] = {"mean_s8", F_MEAN, 0},
    [K_OP_MEAN_S16] = {"mean_s16", F_MEAN, 0},
    [K_OP_MEAN_F32] = {"mean_f32", F_MEAN, 0},
    [K_OP_RELU_S8] = {"relu_s8", F_UNARY, 0},
    [K_OP_RELU_S16] = {"relu_s16", F_UNARY, 0},
    [K_OP_RELU_F32] = {"relu_f32", F_UNARY, 0},
    [K_OP_LEAKY_RELU_S8] = {"leaky_relu_s8", F_UNARY, 0},
    [K_OP_LEAKY_RELU_S16] = {"leaky_relu_s16", F_UNARY, 0},
    [K_OP_LEAKY_RELU_F32] = {"leaky_relu_f32", F_UNARY, 0},
    [K_OP_HARD_SWISH_S8] = {"hard_swish_s8", F_UNARY, 0},
    [K_OP_HARD_SWISH_F32] = {"hard_swish_f32", F_UNARY, 0},
    [K_OP_LOGISTIC_S8] = {"logistic_s8", F_UNARY, 0},
    [K_OP_LOGISTIC_S16] = {"logistic_s16", F_UNARY, 0},
    [K_OP_LOGISTIC_F32] = {"logistic_f32", F_UNARY, 0},
    [K_OP_TANH_S8] = {"tanh_s8", F_UNARY, 0},
    [K_OP_TANH_S16] = {"tanh_s16", F_UNARY, 0},
    [K_OP_TANH_F32] = {"tanh_f32", F_UNARY, 0},
    [K_OP_SOFTMAX_S8] = {"softmax_s8", F_UNARY, 0},
    [K_OP_SOFTMAX_S8_S16] = {"softmax_s8_s16", F_UNARY, 0},
    [K_OP_SOFTMAX_S16] = {"softmax_s16", F_UNARY, 0},
    [K_OP_SOFTMAX_F32] = {"softmax_f32", F_UNARY, 0},
    [K_OP_QUANTIZE_F32_S8] = {"quantize_f32_s8", F_UNARY, 0},
    [K_OP_QUANTIZE_F32_U8] = {"quantize_f32_u8", F_UNARY, 0},
    [K_OP_QUANTIZE_F32_S16] = {"quantize_f32_s16", F_UNARY, 0},
    [K_OP_REQUANT_S8_S8] = {"requant_s8_s8", F_UNARY, 0},
    [K_OP_REQUANT_S8_U8] = {"requant_s8_u8", F_UNARY, 0},
    [K_OP_REQUANT_U8_S8] = {"requant_u8_s8", F_UNARY, 0},
    [K_OP_REQUANT_S8_S16] = {"requant_s8_s16", F_UNARY, 0},
    [K_OP_REQUANT_S8_S32] = {"requant_s8_s32", F_UNARY, 0},
    [K_OP_REQUANT_S16_S8] = {"requant_s16_s8", F_UNARY, 0},
    [K_OP_REQUANT_S16_S16] = {"requant_s16_s16", F_UNARY, 0},
    [K_OP_REQUANT_S16_S32] = {"requant_s16_s32", F_UNARY, 0},
    [K_OP_REQUANT_S32_S8] = {"requant_s32_s8", F_UNARY, 0},
    [K_OP_REQUANT_S32_S16] = {"requant_s32_s16", F_UNARY, 0},
    [K_OP_DEQUANTIZE_S8_F32] = {"dequantize_s8_f32", F_UNARY, 0},
    [K_OP_DEQUANTIZE_U8_F32] = {"dequantize_u8_f32", F_UNARY, 0},
    [K_OP_DEQUANTIZE_S16_F32] = {"dequantize_s16_f32", F_UNARY, 0},
    [K_OP_COPY] = {"copy", F_COPY, 1},
    [K_OP_CONCAT_X8] = {"concat_x8", F_CONCAT, 1},
    [K_OP_CONCAT_X16] = {"concat_x16", F_CONCAT, 1},
    [K_OP_CONCAT_X32] = {"concat_x32", F_CONCAT, 1},
    [K_OP_CONCAT_F32] = {"concat_f32", F_CONCAT, 0},
    [K_OP_CONCAT_REQUANT_S8] = {"concat_requant_s8", F_CONCAT, 0},
    [K_OP_CONCAT_REQUANT_U8] = {"concat_requant_u8", F_CONCAT, 0},
    [K_OP_SPLIT_X8] = {"split_x8", F_SPLIT, 1},
    [K_OP_SPLIT_X16] = {"split_x16", F_SPLIT, 1},
    [K_OP_SPLIT_X32] = {"split_x32", F_SPLIT, 1},
    [K_OP_PAD_X8] = {"pad_x8", F_PAD, 1},
    [K_OP_PAD_X16] = {"pad_x16", F_PAD, 1},
    [K_OP_PAD_X32] = {"pad_x32", F_PAD, 1},
    [K_OP_SLICE_X8] = {"slice_x8", F_SLICE, 1},
    [K_OP_SLICE_X16] = {"slice_x16", F_SLICE, 1},
    [K_OP_SLICE_X32] = {"slice_x32", F_SLICE, 1},
    [K_OP_TRANSPOSE_X8] = {"transpose_x8", F_TRANSPOSE, 1},
    [K_OP_TRANSPOSE_X16] = {"transpose_x16", F_TRANSPOSE, 1},
    [K_OP_TRANSPOSE_X32] = {"transpose_x32", F_TRANSPOSE, 1},
    [K_OP_RESIZE_NEAREST_X8] = {"resize_nearest_x8", F_RESIZE, 1},
    [K_OP_RESIZE_NEAREST_X16] = {"resize_nearest_x16", F_RESIZE, 1},
    [K_OP_RESIZE_NEAREST_X32] = {"resize_nearest_x32", F_RESIZE, 1},
    [K_OP_RESIZE_BILINEAR_S8] = {"resize_bilinear_s8", F_RESIZE, 0},
    [K_OP_RESIZE_BILINEAR_S16] = {"resize_bilinear_s16", F_RESIZE, 0},
    [K_OP_RESIZE_BILINEAR_F32] = {"resize_bilinear_f32", F_RESIZE, 0},
    K_OP_KINDS_MATH
    K_OP_KINDS_BINOP
    K_OP_KINDS_GATHER
    K_OP_KINDS_REDUCE
    K_OP_KINDS_LSTM
    K_OP_KINDS_CUSTOM
    K_OP_KINDS_CONTROL
};

const char *k_op_name(uint32_t kind) { return kind < K_OP_KIND_END ? kinds[kind].name : NULL; }

int k_op_is_data_movement(uint32_t kind) { return kind < K_OP_KIND_END && kinds[kind].data_movement; }

int k_op_in_place(uint32_t kind, const void *params, uint32_t params_size)
{
    switch (kind) {
    /* K_QUANTIZE_BODY / K_REQUANT_BODY (k_quant.c): element i read, then
     * written, in increasing i; the output no wider */
    case K_OP_QUANTIZE_F32_S8: case K_OP_QUANTIZE_F32_U8: case K_OP_QUANTIZE_F32_S16:
    case K_OP_REQUANT_S8_S8: case K_OP_REQUANT_S8_U8: case K_OP_REQUANT_U8_S8: case K_OP_REQUANT_S16_S8:
    case K_OP_REQUANT_S16_S16: case K_OP_REQUANT_S32_S8: case K_OP_REQUANT_S32_S16:
        return 1;
    case K_OP_CAST: return k_op_cast_in_place(params, params_size);
    case K_OP_SIGNAL_ENERGY: return 1;   /* energy_run (k_signal.c) */
    default: return 0;
    }
}

/* ---- shared checks ------------------------------------------------------------ */

const void *k_op_array(const uint8_t *blob, uint32_t size, uint32_t off, uint64_t count, uint32_t elem)
{
    if (off % 4u != 0 || off > size) return NULL;
    if (k_op_mul(count, elem) > (uint64_t)(size - off)) return NULL;
    return blob + off;
}

uint64_t k_op_dims_count(const k_dims *d, int32_t max_rank)
{
    if (d->rank < 0 || d->rank > max_rank || max_rank > K_MAX_DIMS) return K_OP_SAT + 1;
    uint64_t n = 1, ext = 1;
    for (int32_t i = 0; i < d->rank; i++) {
        if (!k_op_dim(d->d[i], 0)) return K_OP_SAT + 1;
        n = k_op_mul(n, (uint64_t)d->d[i]);
        ext = k_op_ext(ext, d->d[i]);
    }
    return k_op_work_ok(n, ext) ? n : K_OP_SAT + 1;
}

static int tensor(void *const *ptrs, const uint32_t *sizes, int32_t n, int32_t i, uint64_t bytes, uint32_t align,
                  bool optional, void **p)
{
    *p = NULL;
    if (i < 0) return K_E_INVALID;
    if (i >= n || !ptrs || !ptrs[i]) return optional ? K_OK : K_E_INVALID;
    if (!sizes || bytes > (uint64_t)sizes[i]) return K_E_INVALID;
    if (((uintptr_t)ptrs[i] & (uintptr_t)(align - 1u)) != 0) return K_E_INVALID;
    *p = ptrs[i];
    return K_OK;
}

int k_op_in(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p)
{
    return tensor(io->in, io->in_size, io->n_in, i, bytes, align, false, p);
}

int k_op_in_opt(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p)
{
    return tensor(io->in, io->in_size, io->n_in, i, bytes, align, true, p);
}

int k_op_out(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p)
{
    return tensor(io->out, io->out_size, io->n_out, i, bytes, align, false, p);
}

int k_op_scratch(const k_op_io *io, uint64_t bytes, uint32_t align, void **p)
{
    *p = io->scratch;
    if (bytes == 0) return K_OK;
    if (!io->scratch || bytes > (uint64_t)io->scratch_size) return K_E_INVALID;
    if (((uintptr_t)io->scratch & (uintptr_t)(align - 1u)) != 0) return K_E_INVALID;
    return K_OK;
}

/* ---- dispatch ------------------------------------------------------------------ */

static int run(uint32_t kind, const void *params, uint32_t params_size, const k_op_io *io)
{
    if (kind >= K_OP_KIND_END || kinds[kind].family == F_NONE) return K_E_INVALID;
    if (!params || ((uintptr_t)params & 3u) != 0 || params_size < 4) return K_E_INVALID;
    const uint8_t *b = (const uint8_t *)params;
    switch (kinds[kind].family) {
    case F_CONV: return k_op_run_conv(kind, b, params_size, io);
    case F_FC: return k_op_run_fc(kind, b, params_size, io);
    case F_SVDF: return k_op_run_svdf(kind, b, params_size, io);
    case F_POOL: return k_op_run_pool(kind, b, params_size, io);
    case F_BINARY: return k_op_run_binary(kind, b, params_size, io);
    case F_MEAN: return k_op_run_mean(kind, b, params_size, io);
    case F_UNARY: return k_op_run_unary(kind, b, params_size, io);
    case F_COPY: return k_op_run_copy(kind, b, params_size, io);
    case F_CONCAT: return k_op_run_concat(kind, b, params_size, io);
    case F_SPLIT: return k_op_run_split(kind, b, params_size, io);
    case F_PAD: return k_op_run_pad(kind, b, params_size, io);
    case F_SLICE: return k_op_run_slice(kind, b, params_size, io);
    case F_TRANSPOSE: return k_op_run_transpose(kind, b, params_size, io);
    case F_RESIZE: return k_op_run_resize(kind, b, params_size, io);
    case F_MATH: return k_op_run_math(kind, b, params_size, io);
    case F_BINOP: return k_op_run_binop(kind, b, params_size, io);
    case F_GATHER: return k_op_run_gather(kind, b, params_size, io);
    case F_REDUCE: return k_op_run_reduce(kind, b, params_size, io);
    case F_LSTM: return k_op_run_lstm(kind, b, params_size, io);
    case F_CUSTOM: return k_op_run_custom(kind, b, params_size, io);
    case F_CONTROL: return k_op_run_control(kind, b, params_size, io);
    default: return K_E_INVALID;
    }
}

uint32_t k_op_family(uint32_t kind)
{
    return kind < K_OP_KIND_END ? kinds[kind].family : (uint32_t)F_NONE;
}

const char *k_op_family_name(uint32_t family)
{
    static const char *const names[K_OP_FAM_COUNT] = {
        "none", "conv", "fc", "svdf", "pool", "binary", "mean", "unary", "copy", "concat", "split",
        "pad", "slice", "transpose", "resize", "math", "binop", "gather", "reduce", "lstm", "custom",
        "control"};
    return family < K_OP_FAM_COUNT ? names[family] : "none";
}

int k_op_run_table(const k_op_family_fn *table, uint32_t kind, const void *params, uint32_t params_size,
                   const k_op_io *io)
{
    if (!io || io->n_in < 0 || io->n_out < 0) return K_E_INVALID;
    if (kind >= K_OP_KIND_END || kinds[kind].family == F_NONE) return K_E_INVALID;
    if (!params || ((uintptr_t)params & 3u) != 0 || params_size < 4) return K_E_INVALID;
    k_op_family_fn f = table ? table[kinds[kind].family] : NULL;
    if (!f) return K_E_UNSUPPORTED;
    return f(kind, (const uint8_t *)params, params_size, io);
}

int k_op_run(uint32_t kind, const void *params, uint32_t params_size, const k_op_io *io)
{
    if (!io || io->n_in < 0 || io->n_out < 0) return K_E_INVALID;
    return run(kind, params, params_size, io);
}

int k_op_validate(uint32_t kind, const void *params, uint32_t params_size)
{
    return run(kind, params, params_size, NULL);
}
