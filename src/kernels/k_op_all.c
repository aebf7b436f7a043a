/* Every family's runner: the kernel table of a firmware that runs any
 * model (referencing it links every kernel; a compiled model's own table,
 * ID_kernels, links only what the model runs). */
#include "k_op.h"

const k_op_family_fn k_op_all_families[K_OP_FAM_COUNT] = {
    [K_OP_FAM_CONV] = k_op_run_conv,       [K_OP_FAM_FC] = k_op_run_fc,
    [K_OP_FAM_SVDF] = k_op_run_svdf,       [K_OP_FAM_POOL] = k_op_run_pool,
    [K_OP_FAM_BINARY] = k_op_run_binary,   [K_OP_FAM_MEAN] = k_op_run_mean,
    [K_OP_FAM_UNARY] = k_op_run_unary,     [K_OP_FAM_COPY] = k_op_run_copy,
    [K_OP_FAM_CONCAT] = k_op_run_concat,   [K_OP_FAM_SPLIT] = k_op_run_split,
    [K_OP_FAM_PAD] = k_op_run_pad,         [K_OP_FAM_SLICE] = k_op_run_slice,
    [K_OP_FAM_TRANSPOSE] = k_op_run_transpose, [K_OP_FAM_RESIZE] = k_op_run_resize,
    [K_OP_FAM_MATH] = k_op_run_math,       [K_OP_FAM_BINOP] = k_op_run_binop,
    [K_OP_FAM_GATHER] = k_op_run_gather,   [K_OP_FAM_REDUCE] = k_op_run_reduce,
    [K_OP_FAM_LSTM] = k_op_run_lstm,       [K_OP_FAM_CUSTOM] = k_op_run_custom,
    [K_OP_FAM_CONTROL] = k_op_run_control,
};
