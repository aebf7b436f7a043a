/* tflite: reader and writer for the TFLite flatbuffer format (own code, no
 * flatbuffers library). tfl_model mirrors the file: every field the schema
 * has that npuc uses, so read -> write -> read gives the same model. */
#ifndef NPUC_TFLITE_H
#define NPUC_TFLITE_H

#include "util/util.h"

/* TensorType values (schema numbering). */
enum {
    TFL_FLOAT32 = 0, TFL_FLOAT16 = 1, TFL_INT32 = 2, TFL_UINT8 = 3, TFL_INT64 = 4,
    TFL_STRING = 5, TFL_BOOL = 6, TFL_INT16 = 7, TFL_COMPLEX64 = 8, TFL_INT8 = 9,
    TFL_FLOAT64 = 10, TFL_COMPLEX128 = 11, TFL_UINT64 = 12, TFL_RESOURCE = 13,
    TFL_VARIANT = 14, TFL_UINT32 = 15, TFL_UINT16 = 16, TFL_INT4 = 17
};

/* BuiltinOperator values used by npuc (schema numbering). */
enum {
    TFL_OP_ADD = 0, TFL_OP_AVERAGE_POOL_2D = 1, TFL_OP_CONCATENATION = 2, TFL_OP_CONV_2D = 3,
    TFL_OP_DEPTHWISE_CONV_2D = 4, TFL_OP_DEQUANTIZE = 6, TFL_OP_FULLY_CONNECTED = 9,
    TFL_OP_LOGISTIC = 14, TFL_OP_MAX_POOL_2D = 17, TFL_OP_MUL = 18, TFL_OP_RELU = 19,
    TFL_OP_RELU_N1_TO_1 = 20, TFL_OP_RELU6 = 21, TFL_OP_RESHAPE = 22, TFL_OP_RESIZE_BILINEAR = 23,
    TFL_OP_SOFTMAX = 25, TFL_OP_SVDF = 27, TFL_OP_TANH = 28, TFL_OP_CUSTOM = 32, TFL_OP_PAD = 34,
    TFL_OP_TRANSPOSE = 39, TFL_OP_MEAN = 40, TFL_OP_SUB = 41, TFL_OP_SQUEEZE = 43,
    TFL_OP_STRIDED_SLICE = 45, TFL_OP_SPLIT = 49, TFL_OP_MAXIMUM = 55, TFL_OP_MINIMUM = 57,
    TFL_OP_PADV2 = 60, TFL_OP_SLICE = 65, TFL_OP_TRANSPOSE_CONV = 67, TFL_OP_EXPAND_DIMS = 70,
    TFL_OP_PACK = 83, TFL_OP_UNPACK = 88, TFL_OP_RESIZE_NEAREST_NEIGHBOR = 97,
    TFL_OP_LEAKY_RELU = 98, TFL_OP_SPLIT_V = 102, TFL_OP_QUANTIZE = 114, TFL_OP_HARD_SWISH = 117,
    /* the CPU-coverage operators */
    TFL_OP_DEPTH_TO_SPACE = 5, TFL_OP_EMBEDDING_LOOKUP = 7, TFL_OP_FLOOR = 8,
    TFL_OP_L2_NORMALIZATION = 11, TFL_OP_L2_POOL_2D = 12, TFL_OP_SPACE_TO_DEPTH = 26,
    TFL_OP_GATHER = 36, TFL_OP_BATCH_TO_SPACE_ND = 37, TFL_OP_SPACE_TO_BATCH_ND = 38, TFL_OP_DIV = 42,
    TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 44, TFL_OP_EXP = 47, TFL_OP_LOG_SOFTMAX = 50,
    TFL_OP_CAST = 53, TFL_OP_PRELU = 54, TFL_OP_ARG_MAX = 56, TFL_OP_LESS = 58, TFL_OP_NEG = 59,
    TFL_OP_GREATER = 61, TFL_OP_GREATER_EQUAL = 62, TFL_OP_LESS_EQUAL = 63, TFL_OP_SELECT = 64,
    TFL_OP_SIN = 66, TFL_OP_TILE = 69, TFL_OP_EQUAL = 71, TFL_OP_NOT_EQUAL = 72, TFL_OP_LOG = 73,
    TFL_OP_SUM = 74, TFL_OP_SQRT = 75, TFL_OP_RSQRT = 76, TFL_OP_SHAPE = 77, TFL_OP_ARG_MIN = 79,
    TFL_OP_REDUCE_PROD = 81, TFL_OP_REDUCE_MAX = 82, TFL_OP_LOGICAL_OR = 84, TFL_OP_LOGICAL_AND = 86,
    TFL_OP_LOGICAL_NOT = 87, TFL_OP_REDUCE_MIN = 89, TFL_OP_FLOOR_DIV = 90, TFL_OP_SQUARE = 92,
    TFL_OP_ZEROS_LIKE = 93, TFL_OP_FILL = 94, TFL_OP_FLOOR_MOD = 95, TFL_OP_SQUARED_DIFFERENCE = 99,
    TFL_OP_MIRROR_PAD = 100, TFL_OP_ABS = 101, TFL_OP_CEIL = 104, TFL_OP_REVERSE_V2 = 105,
    TFL_OP_ADD_N = 106, TFL_OP_GATHER_ND = 107, TFL_OP_COS = 108, TFL_OP_ELU = 111, TFL_OP_ROUND = 116,
    TFL_OP_IF = 118, TFL_OP_WHILE = 119, TFL_OP_SELECT_V2 = 123, TFL_OP_BATCH_MATMUL = 126,
    TFL_OP_CUMSUM = 128, TFL_OP_CALL_ONCE = 129, TFL_OP_BROADCAST_TO = 130, TFL_OP_VAR_HANDLE = 142,
    TFL_OP_READ_VARIABLE = 143, TFL_OP_ASSIGN_VARIABLE = 144, TFL_OP_BROADCAST_ARGS = 145,
    TFL_OP_GELU = 150, TFL_OP_RELU_0_TO_1 = 152
};

/* BuiltinOptions union type values (schema numbering) that npuc parses. */
enum {
    TFL_OPT_NONE = 0, TFL_OPT_Conv2D = 1, TFL_OPT_DepthwiseConv2D = 2, TFL_OPT_Pool2D = 5,
    TFL_OPT_SVDF = 6, TFL_OPT_FullyConnected = 8, TFL_OPT_Softmax = 9, TFL_OPT_Concatenation = 10,
    TFL_OPT_Add = 11, TFL_OPT_ResizeBilinear = 15, TFL_OPT_Reshape = 17, TFL_OPT_Mul = 21,
    TFL_OPT_Pad = 22, TFL_OPT_Transpose = 26, TFL_OPT_Reducer = 27, TFL_OPT_Sub = 28,
    TFL_OPT_Squeeze = 30, TFL_OPT_StridedSlice = 32, TFL_OPT_Split = 35, TFL_OPT_Dequantize = 38,
    TFL_OPT_MaximumMinimum = 39, TFL_OPT_PadV2 = 43, TFL_OPT_Slice = 48, TFL_OPT_TransposeConv = 49,
    TFL_OPT_ExpandDims = 52, TFL_OPT_Pack = 59, TFL_OPT_Unpack = 64,
    TFL_OPT_ResizeNearestNeighbor = 74, TFL_OPT_LeakyRelu = 75, TFL_OPT_SplitV = 79,
    TFL_OPT_Quantize = 89, TFL_OPT_HardSwish = 91,
    TFL_OPT_L2Norm = 12, TFL_OPT_LSTM = 14, TFL_OPT_Call = 16, TFL_OPT_SpaceToDepth = 19,
    TFL_OPT_Gather = 23, TFL_OPT_BatchToSpaceND = 24, TFL_OPT_SpaceToBatchND = 25, TFL_OPT_Div = 29,
    TFL_OPT_Exp = 33, TFL_OPT_LogSoftmax = 36, TFL_OPT_Cast = 37, TFL_OPT_ArgMax = 40,
    TFL_OPT_Less = 41, TFL_OPT_Neg = 42, TFL_OPT_Greater = 44, TFL_OPT_GreaterEqual = 45,
    TFL_OPT_LessEqual = 46, TFL_OPT_Select = 47, TFL_OPT_Tile = 51, TFL_OPT_Equal = 53,
    TFL_OPT_NotEqual = 54, TFL_OPT_Shape = 55, TFL_OPT_ArgMin = 57, TFL_OPT_LogicalOr = 60,
    TFL_OPT_LogicalAnd = 62, TFL_OPT_LogicalNot = 63, TFL_OPT_FloorDiv = 65, TFL_OPT_Square = 66,
    TFL_OPT_ZerosLike = 67, TFL_OPT_Fill = 68, TFL_OPT_UnidirectionalSequenceLSTM = 71,
    TFL_OPT_FloorMod = 72, TFL_OPT_SquaredDifference = 76, TFL_OPT_MirrorPad = 77, TFL_OPT_Abs = 78,
    TFL_OPT_ReverseV2 = 81, TFL_OPT_AddN = 82, TFL_OPT_GatherNd = 83, TFL_OPT_Cos = 84, TFL_OPT_If = 92,
    TFL_OPT_While = 93, TFL_OPT_DepthToSpace = 94, TFL_OPT_SelectV2 = 98, TFL_OPT_BatchMatMul = 101,
    TFL_OPT_Cumsum = 102, TFL_OPT_CallOnce = 103, TFL_OPT_BroadcastTo = 104, TFL_OPT_VarHandle = 111,
    TFL_OPT_ReadVariable = 112, TFL_OPT_AssignVariable = 113
};

enum { TFL_PAD_SAME = 0, TFL_PAD_VALID = 1 };
enum { TFL_ACT_NONE = 0, TFL_ACT_RELU = 1, TFL_ACT_RELU_N1_TO_1 = 2, TFL_ACT_RELU6 = 3,
       TFL_ACT_TANH = 4, TFL_ACT_SIGN_BIT = 5 };

/* Builtin options, one flat record for all option tables npuc knows (fields
 * that a given table lacks stay at their defaults). Field names follow the
 * schema; shared meanings share a field (see comments). */
typedef struct tfl_options {
    int8_t padding;           /* Conv2D, DepthwiseConv2D, Pool2D, TransposeConv */
    int8_t activation;        /* fused_activation_function */
    int32_t stride_w, stride_h;
    int32_t dilation_w, dilation_h;     /* default 1 */
    int32_t depth_multiplier;           /* DepthwiseConv2D */
    int32_t filter_w, filter_h;         /* Pool2D */
    int32_t axis;                       /* Concatenation, Pack, Unpack */
    int32_t num;                        /* Split/SplitV num_splits, Pack values_count, Unpack num */
    int32_t rank;                       /* SVDF */
    float alpha;                        /* LeakyRelu */
    float beta;                         /* Softmax */
    bool pot_scale_int16;               /* Add, Sub; default true */
    bool keep_dims;                     /* Reducer */
    bool keep_num_dims;                 /* FullyConnected */
    bool asymmetric_quantize_inputs;    /* FullyConnected, SVDF */
    int8_t weights_format;              /* FullyConnected */
    int8_t quantized_bias_type;         /* Conv2D, FullyConnected, TransposeConv */
    bool align_corners, half_pixel_centers; /* Resize* */
    int32_t new_height, new_width;      /* ResizeBilinear (deprecated fields) */
    int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask; /* StridedSlice */
    bool offset;                        /* StridedSlice */
    int32_t *new_shape; int32_t n_new_shape; bool has_new_shape;       /* Reshape */
    int32_t *squeeze_dims; int32_t n_squeeze_dims; bool has_squeeze_dims; /* Squeeze */
    float cell_clip, proj_clip;         /* LSTM, UnidirectionalSequenceLSTM (0: no clipping) */
    int8_t kernel_type;                 /* LSTM */
    bool time_major;                    /* UnidirectionalSequenceLSTM */
    bool diagonal_recurrent_tensors;    /* UnidirectionalSequenceLSTM */
    int32_t block_size;                 /* SpaceToDepth, DepthToSpace */
    int32_t batch_dims;                 /* Gather */
    int8_t in_data_type, out_data_type; /* Cast (TensorType) */
    int8_t output_type;                 /* ArgMax, ArgMin output_type; Shape out_type (TensorType) */
    int8_t mirror_mode;                 /* MirrorPad mode: 0 REFLECT, 1 SYMMETRIC */
    bool adj_x, adj_y;                  /* BatchMatMul */
    bool exclusive, reverse;            /* Cumsum */
    int32_t subgraph;                   /* Call */
    int32_t then_subgraph, else_subgraph;   /* If */
    int32_t cond_subgraph, body_subgraph;   /* While */
    int32_t init_subgraph;              /* CallOnce */
    char *container, *shared_name;      /* VarHandle (NULL: absent) */
    /* Not a field of the file: graph_import points the ops of a model with
     * several subgraphs or resource variables (IF, WHILE, CALL_ONCE,
     * VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) at its graph_model, so
     * that the pointer travels with every copy of the op. The reader, the
     * writer and tfl_model_equal ignore it. */
    const void *graph_model;
} tfl_options;

/* Sets the schema defaults for option table `type`. */
void tfl_options_default(tfl_options *o);

typedef struct tfl_quant {
    bool present;
    float *min; int32_t n_min;
    float *max; int32_t n_max;
    float *scale; int32_t n_scale;
    int64_t *zero_point; int32_t n_zero_point;
    int32_t quantized_dimension;
    uint8_t details_type;   /* 0 = none; non-zero details are not supported */
} tfl_quant;

typedef struct tfl_tensor {
    int32_t *shape; int32_t rank; bool has_shape;
    int32_t *shape_signature; int32_t rank_signature; bool has_shape_signature;
    int8_t type;
    uint32_t buffer;
    char *name;             /* never NULL after reading ("" if absent) */
    tfl_quant quant;
    bool is_variable;
    bool has_rank;
    bool has_sparsity;      /* sparsity tables are recognised but not supported */
} tfl_tensor;

typedef struct tfl_opcode {
    int8_t deprecated_builtin_code;
    int32_t builtin_code;
    char *custom_code;      /* NULL if absent */
    int32_t version;        /* default 1 */
} tfl_opcode;

/* The effective builtin code: max(builtin_code, deprecated_builtin_code). */
int32_t tfl_opcode_builtin(const tfl_opcode *c);

typedef struct tfl_operator {
    uint32_t opcode_index;
    int32_t *inputs; int32_t n_inputs;
    int32_t *outputs; int32_t n_outputs;
    int32_t *intermediates; int32_t n_intermediates;
    uint8_t options_type;   /* BuiltinOptions union type */
    bool options_known;     /* options parsed into `options` */
    tfl_options options;
    uint8_t *custom_options; uint32_t n_custom_options; bool has_custom_options;
    int8_t custom_options_format;
    bool *mutating_variable_inputs; int32_t n_mutating_variable_inputs;
    uint64_t large_custom_options_offset, large_custom_options_size;
} tfl_operator;

typedef struct tfl_subgraph {
    tfl_tensor *tensors; int32_t n_tensors;
    int32_t *inputs; int32_t n_inputs;
    int32_t *outputs; int32_t n_outputs;
    tfl_operator *operators; int32_t n_operators;
    char *name;             /* NULL if absent */
} tfl_subgraph;

typedef struct tfl_buffer {
    uint8_t *data;          /* NULL when empty */
    size_t size;
    bool external;          /* stored with the offset/size form in the file */
} tfl_buffer;

typedef struct tfl_metadata {
    char *name;
    uint32_t buffer;
} tfl_metadata;

typedef struct tfl_tensor_map {
    char *name;
    uint32_t tensor_index;
} tfl_tensor_map;

typedef struct tfl_signature {
    tfl_tensor_map *inputs; int32_t n_inputs;
    tfl_tensor_map *outputs; int32_t n_outputs;
    char *signature_key;
    uint32_t subgraph_index;
} tfl_signature;

typedef struct tfl_model {
    npuc_arena arena;       /* owns everything below */
    uint32_t version;
    tfl_opcode *opcodes; int32_t n_opcodes;
    tfl_subgraph *subgraphs; int32_t n_subgraphs;
    char *description;      /* NULL if absent */
    tfl_buffer *buffers; int32_t n_buffers;
    int32_t *metadata_buffer; int32_t n_metadata_buffer;
    tfl_metadata *metadata; int32_t n_metadata;
    tfl_signature *signatures; int32_t n_signatures;
} tfl_model;

/* Parses a .tflite image. On success *out is a new model (free with
 * tfl_model_free). `data` is not referenced after the call. Errors name the
 * file offset and the schema field. */
int tfl_read(const uint8_t *data, size_t size, tfl_model **out, npuc_err *err);
int tfl_read_file(const char *path, tfl_model **out, npuc_err *err);
void tfl_model_free(tfl_model *m);
/* An empty model (version 3) to be filled by a builder, arena ready. */
tfl_model *tfl_model_new(void);

/* Serialises a model into a new malloc'd buffer (caller frees). */
int tfl_write(const tfl_model *m, uint8_t **data, size_t *size, npuc_err *err);
int tfl_write_file(const tfl_model *m, const char *path, npuc_err *err);

/* Deep comparison; on difference returns false and describes the first
 * difference in `why` (if non-NULL). */
bool tfl_model_equal(const tfl_model *a, const tfl_model *b, char *why, size_t why_size);

/* Names for printing. */
const char *tfl_type_name(int type);
const char *tfl_builtin_name(int32_t code);   /* "UNKNOWN" when unknown */
const char *tfl_activation_name(int act);
size_t tfl_type_size(int type);               /* 0 for variable / sub-byte types */

/* Option table type expected for a builtin op, or -1 if the op has none that
 * npuc knows. Used by the reader (check) and writer/builders (fill). */
int tfl_builtin_options_type(int32_t builtin_code);

#endif
