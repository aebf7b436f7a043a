#include "options_desc.h"

#include <stddef.h>

#define F(tab, id, kind, member) {TFL_OPT_##tab, id, TFL_F_##kind, #member, offsetof(tfl_options, member), 0, 0}
#define FN(tab, id, kind, name, member) {TFL_OPT_##tab, id, TFL_F_##kind, name, offsetof(tfl_options, member), 0, 0}
#define FV(tab, id, name, member, cnt, has) \
    {TFL_OPT_##tab, id, TFL_F_VEC_I32, name, offsetof(tfl_options, member), offsetof(tfl_options, cnt), offsetof(tfl_options, has)}

static const tfl_field_desc fields[] = {
    F(Conv2D, 0, I8, padding), F(Conv2D, 1, I32, stride_w), F(Conv2D, 2, I32, stride_h),
    FN(Conv2D, 3, I8, "fused_activation_function", activation),
    FN(Conv2D, 4, I32, "dilation_w_factor", dilation_w), FN(Conv2D, 5, I32, "dilation_h_factor", dilation_h),
    F(Conv2D, 6, I8, quantized_bias_type),

    F(DepthwiseConv2D, 0, I8, padding), F(DepthwiseConv2D, 1, I32, stride_w),
    F(DepthwiseConv2D, 2, I32, stride_h), F(DepthwiseConv2D, 3, I32, depth_multiplier),
    FN(DepthwiseConv2D, 4, I8, "fused_activation_function", activation),
    FN(DepthwiseConv2D, 5, I32, "dilation_w_factor", dilation_w),
    FN(DepthwiseConv2D, 6, I32, "dilation_h_factor", dilation_h),

    F(Pool2D, 0, I8, padding), F(Pool2D, 1, I32, stride_w), F(Pool2D, 2, I32, stride_h),
    FN(Pool2D, 3, I32, "filter_width", filter_w), FN(Pool2D, 4, I32, "filter_height", filter_h),
    FN(Pool2D, 5, I8, "fused_activation_function", activation),

    F(SVDF, 0, I32, rank), FN(SVDF, 1, I8, "fused_activation_function", activation),
    F(SVDF, 2, BOOL, asymmetric_quantize_inputs),

    FN(FullyConnected, 0, I8, "fused_activation_function", activation),
    F(FullyConnected, 1, I8, weights_format), F(FullyConnected, 2, BOOL, keep_num_dims),
    F(FullyConnected, 3, BOOL, asymmetric_quantize_inputs), F(FullyConnected, 4, I8, quantized_bias_type),

    F(Softmax, 0, F32, beta),

    F(Concatenation, 0, I32, axis), FN(Concatenation, 1, I8, "fused_activation_function", activation),

    FN(Add, 0, I8, "fused_activation_function", activation), F(Add, 1, BOOL, pot_scale_int16),

    F(ResizeBilinear, 0, I32, new_height), F(ResizeBilinear, 1, I32, new_width),
    F(ResizeBilinear, 2, BOOL, align_corners), F(ResizeBilinear, 3, BOOL, half_pixel_centers),

    FV(Reshape, 0, "new_shape", new_shape, n_new_shape, has_new_shape),

    FN(Mul, 0, I8, "fused_activation_function", activation),

    F(Reducer, 0, BOOL, keep_dims),

    FN(Sub, 0, I8, "fused_activation_function", activation), F(Sub, 1, BOOL, pot_scale_int16),

    FV(Squeeze, 0, "squeeze_dims", squeeze_dims, n_squeeze_dims, has_squeeze_dims),

    F(StridedSlice, 0, I32, begin_mask), F(StridedSlice, 1, I32, end_mask),
    F(StridedSlice, 2, I32, ellipsis_mask), F(StridedSlice, 3, I32, new_axis_mask),
    F(StridedSlice, 4, I32, shrink_axis_mask), F(StridedSlice, 5, BOOL, offset),

    FN(Split, 0, I32, "num_splits", num),

    F(TransposeConv, 0, I8, padding), F(TransposeConv, 1, I32, stride_w), F(TransposeConv, 2, I32, stride_h),
    FN(TransposeConv, 3, I8, "fused_activation_function", activation),
    F(TransposeConv, 4, I8, quantized_bias_type),

    FN(Pack, 0, I32, "values_count", num), F(Pack, 1, I32, axis),

    FN(Unpack, 0, I32, "num", num), F(Unpack, 1, I32, axis),

    F(ResizeNearestNeighbor, 0, BOOL, align_corners), F(ResizeNearestNeighbor, 1, BOOL, half_pixel_centers),

    F(LeakyRelu, 0, F32, alpha),

    FN(SplitV, 0, I32, "num_splits", num),

    FN(L2Norm, 0, I8, "fused_activation_function", activation),

    FN(LSTM, 0, I8, "fused_activation_function", activation), F(LSTM, 1, F32, cell_clip),
    F(LSTM, 2, F32, proj_clip), F(LSTM, 3, I8, kernel_type), F(LSTM, 4, BOOL, asymmetric_quantize_inputs),

    F(Call, 0, I32, subgraph),

    F(SpaceToDepth, 0, I32, block_size),

    F(Gather, 0, I32, axis), F(Gather, 1, I32, batch_dims),

    FN(Div, 0, I8, "fused_activation_function", activation),

    F(Cast, 0, I8, in_data_type), F(Cast, 1, I8, out_data_type),

    F(ArgMax, 0, I8, output_type),

    FN(Shape, 0, I8, "out_type", output_type),

    F(ArgMin, 0, I8, output_type),

    FN(UnidirectionalSequenceLSTM, 0, I8, "fused_activation_function", activation),
    F(UnidirectionalSequenceLSTM, 1, F32, cell_clip), F(UnidirectionalSequenceLSTM, 2, F32, proj_clip),
    F(UnidirectionalSequenceLSTM, 3, BOOL, time_major),
    F(UnidirectionalSequenceLSTM, 4, BOOL, asymmetric_quantize_inputs),
    F(UnidirectionalSequenceLSTM, 5, BOOL, diagonal_recurrent_tensors),

    FN(MirrorPad, 0, I8, "mode", mirror_mode),

    FN(If, 0, I32, "then_subgraph_index", then_subgraph), FN(If, 1, I32, "else_subgraph_index", else_subgraph),

    FN(While, 0, I32, "cond_subgraph_index", cond_subgraph), FN(While, 1, I32, "body_subgraph_index", body_subgraph),

    F(DepthToSpace, 0, I32, block_size),

    F(BatchMatMul, 0, BOOL, adj_x), F(BatchMatMul, 1, BOOL, adj_y),
    F(BatchMatMul, 2, BOOL, asymmetric_quantize_inputs),

    F(Cumsum, 0, BOOL, exclusive), F(Cumsum, 1, BOOL, reverse),

    FN(CallOnce, 0, I32, "init_subgraph_index", init_subgraph),

    F(VarHandle, 0, STR, container), F(VarHandle, 1, STR, shared_name),
};

static const struct {
    uint8_t table;
    const char *name;
} tables[] = {
    {TFL_OPT_Conv2D, "Conv2DOptions"}, {TFL_OPT_DepthwiseConv2D, "DepthwiseConv2DOptions"},
    {TFL_OPT_Pool2D, "Pool2DOptions"}, {TFL_OPT_SVDF, "SVDFOptions"},
    {TFL_OPT_FullyConnected, "FullyConnectedOptions"}, {TFL_OPT_Softmax, "SoftmaxOptions"},
    {TFL_OPT_Concatenation, "ConcatenationOptions"}, {TFL_OPT_Add, "AddOptions"},
    {TFL_OPT_ResizeBilinear, "ResizeBilinearOptions"}, {TFL_OPT_Reshape, "ReshapeOptions"},
    {TFL_OPT_Mul, "MulOptions"}, {TFL_OPT_Pad, "PadOptions"}, {TFL_OPT_Transpose, "TransposeOptions"},
    {TFL_OPT_Reducer, "ReducerOptions"}, {TFL_OPT_Sub, "SubOptions"}, {TFL_OPT_Squeeze, "SqueezeOptions"},
    {TFL_OPT_StridedSlice, "StridedSliceOptions"}, {TFL_OPT_Split, "SplitOptions"},
    {TFL_OPT_Dequantize, "DequantizeOptions"}, {TFL_OPT_MaximumMinimum, "MaximumMinimumOptions"},
    {TFL_OPT_PadV2, "PadV2Options"}, {TFL_OPT_Slice, "SliceOptions"},
    {TFL_OPT_TransposeConv, "TransposeConvOptions"}, {TFL_OPT_ExpandDims, "ExpandDimsOptions"},
    {TFL_OPT_Pack, "PackOptions"}, {TFL_OPT_Unpack, "UnpackOptions"},
    {TFL_OPT_ResizeNearestNeighbor, "ResizeNearestNeighborOptions"},
    {TFL_OPT_LeakyRelu, "LeakyReluOptions"}, {TFL_OPT_SplitV, "SplitVOptions"},
    {TFL_OPT_Quantize, "QuantizeOptions"}, {TFL_OPT_HardSwish, "HardSwishOptions"},
    {TFL_OPT_L2Norm, "L2NormOptions"}, {TFL_OPT_LSTM, "LSTMOptions"}, {TFL_OPT_Call, "CallOptions"},
    {TFL_OPT_SpaceToDepth, "SpaceToDepthOptions"}, {TFL_OPT_Gather, "GatherOptions"},
    {TFL_OPT_BatchToSpaceND, "BatchToSpaceNDOptions"}, {TFL_OPT_SpaceToBatchND, "SpaceToBatchNDOptions"},
    {TFL_OPT_Div, "DivOptions"}, {TFL_OPT_Exp, "ExpOptions"}, {TFL_OPT_LogSoftmax, "LogSoftmaxOptions"},
    {TFL_OPT_Cast, "CastOptions"}, {TFL_OPT_ArgMax, "ArgMaxOptions"}, {TFL_OPT_Less, "LessOptions"},
    {TFL_OPT_Neg, "NegOptions"}, {TFL_OPT_Greater, "GreaterOptions"},
    {TFL_OPT_GreaterEqual, "GreaterEqualOptions"}, {TFL_OPT_LessEqual, "LessEqualOptions"},
    {TFL_OPT_Select, "SelectOptions"}, {TFL_OPT_Tile, "TileOptions"}, {TFL_OPT_Equal, "EqualOptions"},
    {TFL_OPT_NotEqual, "NotEqualOptions"}, {TFL_OPT_Shape, "ShapeOptions"}, {TFL_OPT_ArgMin, "ArgMinOptions"},
    {TFL_OPT_LogicalOr, "LogicalOrOptions"}, {TFL_OPT_LogicalAnd, "LogicalAndOptions"},
    {TFL_OPT_LogicalNot, "LogicalNotOptions"}, {TFL_OPT_FloorDiv, "FloorDivOptions"},
    {TFL_OPT_Square, "SquareOptions"}, {TFL_OPT_ZerosLike, "ZerosLikeOptions"}, {TFL_OPT_Fill, "FillOptions"},
    {TFL_OPT_UnidirectionalSequenceLSTM, "UnidirectionalSequenceLSTMOptions"},
    {TFL_OPT_FloorMod, "FloorModOptions"}, {TFL_OPT_SquaredDifference, "SquaredDifferenceOptions"},
    {TFL_OPT_MirrorPad, "MirrorPadOptions"}, {TFL_OPT_Abs, "AbsOptions"}, {TFL_OPT_ReverseV2, "ReverseV2Options"},
    {TFL_OPT_AddN, "AddNOptions"}, {TFL_OPT_GatherNd, "GatherNdOptions"}, {TFL_OPT_Cos, "CosOptions"},
    {TFL_OPT_If, "IfOptions"}, {TFL_OPT_While, "WhileOptions"}, {TFL_OPT_DepthToSpace, "DepthToSpaceOptions"},
    {TFL_OPT_SelectV2, "SelectV2Options"}, {TFL_OPT_BatchMatMul, "BatchMatMulOptions"},
    {TFL_OPT_Cumsum, "CumsumOptions"}, {TFL_OPT_CallOnce, "CallOnceOptions"},
    {TFL_OPT_BroadcastTo, "BroadcastToOptions"}, {TFL_OPT_ReadVariable, "ReadVariableOptions"},
    {TFL_OPT_AssignVariable, "AssignVariableOptions"}, {TFL_OPT_VarHandle, "VarHandleOptions"},
};

const tfl_field_desc *tfl_options_fields(int table, int32_t *n)
{
    *n = 0;
    int known = 0;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].table == table) known = 1;
    if (!known) return NULL;
    const tfl_field_desc *first = NULL;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].table == table) {
            if (!first) first = &fields[i];
            (*n)++;
        }
    }
    return first ? first : fields; /* non-NULL marks "known"; *n may be 0 */
}

const char *tfl_options_table_name(int table)
{
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (tables[i].table == table) return tables[i].name;
    return "UnknownOptions";
}
