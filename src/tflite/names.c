#include "tflite.h"

/* Builtin operator names indexed by code (TFLite schema numbering). */
#include "builtin_names.inc"

const char *tfl_builtin_name(int32_t code)
{
    if (code < 0 || code >= (int32_t)(sizeof builtin_names / sizeof builtin_names[0])) return "UNKNOWN";
    return builtin_names[code];
}

const char *tfl_type_name(int type)
{
    static const char *const n[] = {"float32", "float16", "int32", "uint8", "int64", "string",
                                    "bool", "int16", "complex64", "int8", "float64", "complex128",
                                    "uint64", "resource", "variant", "uint32", "uint16", "int4"};
    if (type < 0 || type >= (int)(sizeof n / sizeof n[0])) return "unknown-type";
    return n[type];
}

size_t tfl_type_size(int type)
{
    switch (type) {
    case TFL_FLOAT32: case TFL_INT32: case TFL_UINT32: return 4;
    case TFL_FLOAT16: case TFL_INT16: case TFL_UINT16: return 2;
    case TFL_UINT8: case TFL_INT8: case TFL_BOOL: return 1;
    case TFL_INT64: case TFL_UINT64: case TFL_FLOAT64: case TFL_COMPLEX64: return 8;
    case TFL_COMPLEX128: return 16;
    default: return 0;
    }
}

const char *tfl_activation_name(int act)
{
    switch (act) {
    case TFL_ACT_NONE: return "NONE";
    case TFL_ACT_RELU: return "RELU";
    case TFL_ACT_RELU_N1_TO_1: return "RELU_N1_TO_1";
    case TFL_ACT_RELU6: return "RELU6";
    case TFL_ACT_TANH: return "TANH";
    case TFL_ACT_SIGN_BIT: return "SIGN_BIT";
    default: return "UNKNOWN";
    }
}

int32_t tfl_opcode_builtin(const tfl_opcode *c)
{
    int32_t d = c->deprecated_builtin_code;
    return c->builtin_code > d ? c->builtin_code : d;
}

void tfl_options_default(tfl_options *o)
{
    *o = (tfl_options){0};
    o->dilation_w = 1;
    o->dilation_h = 1;
    o->pot_scale_int16 = true;
}

int tfl_builtin_options_type(int32_t code)
{
    switch (code) {
    case TFL_OP_CONV_2D: return TFL_OPT_Conv2D;
    case TFL_OP_DEPTHWISE_CONV_2D: return TFL_OPT_DepthwiseConv2D;
    case TFL_OP_AVERAGE_POOL_2D:
    case TFL_OP_MAX_POOL_2D: return TFL_OPT_Pool2D;
    case TFL_OP_SVDF: return TFL_OPT_SVDF;
    case TFL_OP_FULLY_CONNECTED: return TFL_OPT_FullyConnected;
    case TFL_OP_SOFTMAX: return TFL_OPT_Softmax;
    case TFL_OP_CONCATENATION: return TFL_OPT_Concatenation;
    case TFL_OP_ADD: return TFL_OPT_Add;
    case TFL_OP_RESIZE_BILINEAR: return TFL_OPT_ResizeBilinear;
    case TFL_OP_RESHAPE: return TFL_OPT_Reshape;
    case TFL_OP_MUL: return TFL_OPT_Mul;
    case TFL_OP_PAD: return TFL_OPT_Pad;
    case TFL_OP_TRANSPOSE: return TFL_OPT_Transpose;
    case TFL_OP_MEAN: return TFL_OPT_Reducer;
    case TFL_OP_SUB: return TFL_OPT_Sub;
    case TFL_OP_SQUEEZE: return TFL_OPT_Squeeze;
    case TFL_OP_STRIDED_SLICE: return TFL_OPT_StridedSlice;
    case TFL_OP_SPLIT: return TFL_OPT_Split;
    case TFL_OP_DEQUANTIZE: return TFL_OPT_Dequantize;
    case TFL_OP_MAXIMUM:
    case TFL_OP_MINIMUM: return TFL_OPT_MaximumMinimum;
    case TFL_OP_PADV2: return TFL_OPT_PadV2;
    case TFL_OP_SLICE: return TFL_OPT_Slice;
    case TFL_OP_TRANSPOSE_CONV: return TFL_OPT_TransposeConv;
    case TFL_OP_EXPAND_DIMS: return TFL_OPT_ExpandDims;
    case TFL_OP_PACK: return TFL_OPT_Pack;
    case TFL_OP_UNPACK: return TFL_OPT_Unpack;
    case TFL_OP_RESIZE_NEAREST_NEIGHBOR: return TFL_OPT_ResizeNearestNeighbor;
    case TFL_OP_LEAKY_RELU: return TFL_OPT_LeakyRelu;
    case TFL_OP_SPLIT_V: return TFL_OPT_SplitV;
    case TFL_OP_QUANTIZE: return TFL_OPT_Quantize;
    case TFL_OP_HARD_SWISH: return TFL_OPT_HardSwish;
    case TFL_OP_L2_NORMALIZATION: return TFL_OPT_L2Norm;
    case TFL_OP_L2_POOL_2D: return TFL_OPT_Pool2D;
    case TFL_OP_SPACE_TO_DEPTH: return TFL_OPT_SpaceToDepth;
    case TFL_OP_GATHER: return TFL_OPT_Gather;
    case TFL_OP_BATCH_TO_SPACE_ND: return TFL_OPT_BatchToSpaceND;
    case TFL_OP_SPACE_TO_BATCH_ND: return TFL_OPT_SpaceToBatchND;
    case TFL_OP_DIV: return TFL_OPT_Div;
    case TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM: return TFL_OPT_UnidirectionalSequenceLSTM;
    case TFL_OP_EXP: return TFL_OPT_Exp;
    case TFL_OP_LOG_SOFTMAX: return TFL_OPT_LogSoftmax;
    case TFL_OP_CAST: return TFL_OPT_Cast;
    case TFL_OP_ARG_MAX: return TFL_OPT_ArgMax;
    case TFL_OP_ARG_MIN: return TFL_OPT_ArgMin;
    case TFL_OP_LESS: return TFL_OPT_Less;
    case TFL_OP_NEG: return TFL_OPT_Neg;
    case TFL_OP_GREATER: return TFL_OPT_Greater;
    case TFL_OP_GREATER_EQUAL: return TFL_OPT_GreaterEqual;
    case TFL_OP_LESS_EQUAL: return TFL_OPT_LessEqual;
    case TFL_OP_SELECT: return TFL_OPT_Select;
    case TFL_OP_TILE: return TFL_OPT_Tile;
    case TFL_OP_EQUAL: return TFL_OPT_Equal;
    case TFL_OP_NOT_EQUAL: return TFL_OPT_NotEqual;
    case TFL_OP_SUM:
    case TFL_OP_REDUCE_MAX:
    case TFL_OP_REDUCE_MIN:
    case TFL_OP_REDUCE_PROD: return TFL_OPT_Reducer;
    case TFL_OP_SHAPE: return TFL_OPT_Shape;
    case TFL_OP_LOGICAL_OR: return TFL_OPT_LogicalOr;
    case TFL_OP_LOGICAL_AND: return TFL_OPT_LogicalAnd;
    case TFL_OP_LOGICAL_NOT: return TFL_OPT_LogicalNot;
    case TFL_OP_FLOOR_DIV: return TFL_OPT_FloorDiv;
    case TFL_OP_SQUARE: return TFL_OPT_Square;
    case TFL_OP_ZEROS_LIKE: return TFL_OPT_ZerosLike;
    case TFL_OP_FILL: return TFL_OPT_Fill;
    case TFL_OP_FLOOR_MOD: return TFL_OPT_FloorMod;
    case TFL_OP_SQUARED_DIFFERENCE: return TFL_OPT_SquaredDifference;
    case TFL_OP_MIRROR_PAD: return TFL_OPT_MirrorPad;
    case TFL_OP_ABS: return TFL_OPT_Abs;
    case TFL_OP_REVERSE_V2: return TFL_OPT_ReverseV2;
    case TFL_OP_ADD_N: return TFL_OPT_AddN;
    case TFL_OP_GATHER_ND: return TFL_OPT_GatherNd;
    case TFL_OP_COS: return TFL_OPT_Cos;
    case TFL_OP_IF: return TFL_OPT_If;
    case TFL_OP_WHILE: return TFL_OPT_While;
    case TFL_OP_DEPTH_TO_SPACE: return TFL_OPT_DepthToSpace;
    case TFL_OP_SELECT_V2: return TFL_OPT_SelectV2;
    case TFL_OP_BATCH_MATMUL: return TFL_OPT_BatchMatMul;
    case TFL_OP_CUMSUM: return TFL_OPT_Cumsum;
    case TFL_OP_CALL_ONCE: return TFL_OPT_CallOnce;
    case TFL_OP_BROADCAST_TO: return TFL_OPT_BroadcastTo;
    case TFL_OP_READ_VARIABLE: return TFL_OPT_ReadVariable;
    case TFL_OP_ASSIGN_VARIABLE: return TFL_OPT_AssignVariable;
    case TFL_OP_VAR_HANDLE: return TFL_OPT_VarHandle;
    default: return -1;
    }
}
