/* eu_cmd: the command table of eu_cmd.h (docs/ethos-u.md 2.2-2.4, 1.5)
 * and the functions over it. Freestanding.
 *
 * Where the hardware gives a field fewer bits than its command's param
 * (pads, block sizes, modes, shifts), the table lets the field span the
 * whole param with the documented maximum: a value above it is then "out
 * of range" rather than "reserved bits", which is the clearer message. */
#include "ethosu/eu_cmd.h"

#include <stdatomic.h>

/* -------------------------------------------------------- value names */

#define NAMES(a) .values = a, .n_values = (uint8_t)(sizeof a / sizeof a[0])

static const eu_value_name SIGNED_NAMES[] = {{0, 0, "u"}, {1, 0, "s"}};
static const eu_value_name BITS_NAMES[] = {
    {0, 0, "8-bit"}, {1, 0, "16-bit"}, {2, 0, "32-bit"}, {3, EU_V_UNSUPPORTED, "64-bit"}};
static const eu_value_name FORMAT_NAMES[] = {{EU_FMT_NHWC, 0, "NHWC"}, {EU_FMT_NHCWB16, 0, "NHCWB16"}};
static const eu_value_name IFM_SCALE_NAMES[] = {
    {EU_IFM_SCALE_OPAB_16, 0, "opa_opb_16bit"}, {EU_IFM_SCALE_OPA_32, 0, "opa_32bit"},
    {EU_IFM_SCALE_OPB_32, 0, "opb_32bit"}};
static const eu_value_name OFM_SCALE_NAMES[] = {
    {EU_OFM_SCALE_PER_CHANNEL, 0, "per_ch_scale"}, {EU_OFM_SCALE_GLOBAL, 0, "global_scale"}};
static const eu_value_name ROUND_NAMES[] = {
    {EU_ROUND_TFL, 0, "TFL"}, {EU_ROUND_TRUNCATE, 0, "TRUNCATE"}, {EU_ROUND_NATURAL, 0, "NATURAL"}};
static const eu_value_name POOL_NAMES[] = {
    {EU_POOL_MAX, 0, "MAX"}, {EU_POOL_AVERAGE, 0, "AVERAGE"}, {EU_POOL_REDUCE_SUM, 0, "REDUCE_SUM"}};
static const eu_value_name EW_NAMES[] = {
    {EU_EW_MUL, 0, "MUL"}, {EU_EW_ADD, 0, "ADD"}, {EU_EW_SUB, 0, "SUB"}, {EU_EW_MIN, 0, "MIN"},
    {EU_EW_MAX, 0, "MAX"}, {EU_EW_LRELU, 0, "LRELU"}, {EU_EW_ABS, 0, "ABS"}, {EU_EW_CLZ, 0, "CLZ"},
    {EU_EW_SHR, 0, "SHR"}, {EU_EW_SHL, 0, "SHL"}};
static const eu_value_name UPSCALE_NAMES[] = {
    {EU_UPSCALE_NONE, 0, "NONE"}, {EU_UPSCALE_NEAREST, 0, "NEAREST"}, {EU_UPSCALE_ZEROS, 0, "ZEROS"}};
static const eu_value_name ACC_NAMES[] = {
    {EU_ACC_INT32, 0, "INT32"}, {EU_ACC_INT40, 0, "INT40"}, {EU_ACC_FP_S5_10, 0, "FP_S5_10"}};
static const eu_value_name FUNCTION_NAMES[] = {
    {EU_ACT_NONE, 0, "NONE"}, {EU_ACT_TANH, 0, "TANH"}, {EU_ACT_SIGMOID, 0, "SIGMOID"},
    {EU_ACT_LUT0 + 0, 0, "LUT0"}, {EU_ACT_LUT0 + 1, 0, "LUT1"}, {EU_ACT_LUT0 + 2, 0, "LUT2"},
    {EU_ACT_LUT0 + 3, 0, "LUT3"}, {EU_ACT_LUT0 + 4, 0, "LUT4"}, {EU_ACT_LUT0 + 5, 0, "LUT5"},
    {EU_ACT_LUT0 + 6, 0, "LUT6"}, {EU_ACT_LUT0 + 7, 0, "LUT7"}};
static const eu_value_name CLIP_NAMES[] = {
    {EU_CLIP_OFM, 0, "ofm"}, {EU_CLIP_UINT8, 0, "uint8"}, {EU_CLIP_INT8, 0, "int8"},
    {EU_CLIP_INT16, 0, "int16"}};
static const eu_value_name ORDER_NAMES[] = {
    {EU_DEPTH_FIRST, 0, "depth_first"}, {EU_PART_KERNEL_FIRST, 0, "part_kernel_first"}};
static const eu_value_name DECOMP_NAMES[] = {{0, 0, "8x8"}, {1, EU_V_UNSUPPORTED, "4x4"}};
static const eu_value_name CUSTOM_DMA_NAMES[] = {{0, 0, ""}, {1, 0, "custom_dma"}};
static const eu_value_name INTERNAL_NAMES[] = {{0, 0, ""}, {1, 0, "internal"}};
static const eu_value_name STRIDE_MODE_NAMES[] = {
    {EU_DMA_1D, 0, "1D"}, {EU_DMA_2D, EU_V_U65, "2D"}, {EU_DMA_3D, EU_V_U65, "3D"}};
static const eu_value_name H_NAMES[] = {{0, 0, ""}, {1, 0, "H"}};
static const eu_value_name W_NAMES[] = {{0, 0, ""}, {1, 0, "W"}};
static const eu_value_name C_NAMES[] = {{0, 0, ""}, {1, 0, "C"}};
static const eu_value_name FIRST_NAMES[] = {{0, 0, ""}, {1, 0, "ifm2_first"}};
static const eu_value_name SCALAR_NAMES[] = {{0, 0, ""}, {1, 0, "scalar"}};

/* ------------------------------------------------------------- fields */

#define FIELD(name_, what_, label_, id_, shift_, width_, kind_, max_, ...)                   \
    {.name = name_, .what = what_, .label = label_, .id = id_, .shift = shift_, .width = width_, \
     .kind = kind_, .max = max_, __VA_ARGS__}
#define P16 0xFFFFu                     /* any 16-bit param */
#define ADDR_MAX 0xFFFFFFFFFFull        /* 40 bits */

/* operations */
static const eu_field F_MASK[] = {
    FIELD("mask", "mask", "mask=", EU_F_VALUE, 0, 16, EU_K_UINT, P16, .flags = EU_FL_HEX)};
static const eu_field F_POOL[] = {
    FIELD("mode", "pooling mode", "", EU_F_VALUE, 0, 16, EU_K_UINT, EU_POOL_REDUCE_SUM, NAMES(POOL_NAMES))};
static const eu_field F_ELEMENTWISE[] = {
    FIELD("mode", "elementwise mode", "", EU_F_VALUE, 0, 16, EU_K_UINT, EU_EW_SHL, NAMES(EW_NAMES))};
static const eu_field F_DMA_START[] = {
    FIELD("channel_mode", "channel/mode", "channel_mode=", EU_F_VALUE, 0, 16, EU_K_UINT, P16,
          .flags = EU_FL_HEX)};
static const eu_field F_DMA_WAIT[] = {
    FIELD("count", "DMA wait count", "outstanding<=", EU_F_VALUE, 0, 16, EU_K_UINT, 15)};
static const eu_field F_KERNEL_WAIT[] = {
    FIELD("count", "kernel wait count", "outstanding<=", EU_F_VALUE, 0, 16, EU_K_UINT, 3)};
static const eu_field F_PMU_MASK[] = {
    FIELD("enable", "PMU mask", "enable=", EU_F_VALUE, 0, 16, EU_K_UINT, 1)};

/* plain registers */
static const eu_field F_U16[] = {FIELD("value", "value", "", EU_F_VALUE, 0, 16, EU_K_UINT, P16)};
static const eu_field F_S16[] = {FIELD("value", "value", "", EU_F_VALUE, 0, 16, EU_K_SINT, P16)};
static const eu_field F_M1[] = {FIELD("value", "value", "", EU_F_VALUE, 0, 16, EU_K_M1, P16)};
static const eu_field F_PAD127[] = {FIELD("pad", "padding", "", EU_F_VALUE, 0, 16, EU_K_UINT, 127)};
static const eu_field F_PAD128[] = {FIELD("pad", "padding", "", EU_F_VALUE, 0, 16, EU_K_UINT, 128)};
static const eu_field F_BANK[] = {
    FIELD("bank", "SHRAM bank", "bank ", EU_F_VALUE, 0, 16, EU_K_UINT, P16, .flags = EU_FL_BANKS)};
static const eu_field F_BLK_W[] = {FIELD("value", "block width-1", "", EU_F_VALUE, 0, 16, EU_K_M1, 63)};
static const eu_field F_BLK_H[] = {FIELD("value", "block height-1", "", EU_F_VALUE, 0, 16, EU_K_M1, 31)};
static const eu_field F_BLK_D[] = {FIELD("value", "block depth-1", "", EU_F_VALUE, 0, 16, EU_K_M1, 127)};
static const eu_field F_UPSCALE[] = {
    FIELD("mode", "upscale mode", "", EU_F_VALUE, 0, 16, EU_K_UINT, EU_UPSCALE_ZEROS, NAMES(UPSCALE_NAMES))};
static const eu_field F_PARALLEL[] = {
    FIELD("mode", "parallel mode", "", EU_F_VALUE, 0, 16, EU_K_UINT, 1, .flags = EU_FL_CORES)};
static const eu_field F_ACC[] = {
    FIELD("format", "accumulator format", "", EU_F_VALUE, 0, 16, EU_K_UINT, EU_ACC_FP_S5_10,
          NAMES(ACC_NAMES))};
static const eu_field F_BLOCKDEP[] = {
    FIELD("blockdep", "BLOCKDEP", "", EU_F_VALUE, 0, 16, EU_K_UINT, EU_BLOCKDEP_MAX)};

/* *_PRECISION (2.3): the OFM has its bits one lower and a 1-bit scale mode */
#define PREC_SIGN FIELD("signed", "signedness", "", EU_F_SIGNED, EU_POS_SIGNED, 1, EU_K_UINT, 1, \
                        NAMES(SIGNED_NAMES))
#define PREC_BITS(pos) FIELD("bits", "precision", "", EU_F_BITS, pos, 2, EU_K_BITS, 3,          \
                             .flags = EU_FL_LIST | EU_FL_NUM, NAMES(BITS_NAMES))
#define PREC_FORMAT FIELD("format", "feature-map format", " ", EU_F_FORMAT, EU_POS_FORMAT, 2,    \
                          EU_K_UINT, 3, .flags = EU_FL_LIST, NAMES(FORMAT_NAMES))
#define PREC_ROUND FIELD("round_mode", "round mode", " round=", EU_F_ROUND, EU_POS_ROUND, 2,     \
                         EU_K_UINT, 3, .flags = EU_FL_LIST, NAMES(ROUND_NAMES))
static const eu_field F_IFM_PREC[] = {
    PREC_SIGN, PREC_BITS(EU_POS_BITS), PREC_FORMAT,
    FIELD("scale_mode", "IFM scale mode", " scale_mode=", EU_F_SCALE_MODE, EU_POS_SCALE_MODE, 2,
          EU_K_UINT, 3, .flags = EU_FL_LIST | EU_FL_NUM, NAMES(IFM_SCALE_NAMES)),
    PREC_ROUND};
static const eu_field F_OFM_PREC[] = {
    PREC_SIGN, PREC_BITS(EU_POS_OFM_BITS), PREC_FORMAT,
    FIELD("scale_mode", "OFM scale mode", " ", EU_F_SCALE_MODE, EU_POS_SCALE_MODE, 1, EU_K_UINT, 1,
          NAMES(OFM_SCALE_NAMES)),
    PREC_ROUND};
static const eu_field F_IFM2_PREC[] = {PREC_SIGN, PREC_BITS(EU_POS_BITS), PREC_FORMAT};

/* *_REGION: region [2:0] (the rest up to bit 14 must be 0: "out of
 * range"), U55 arch 1.1: custom DMA select [15] */
#define CUSTOM_DMA FIELD("custom_dma", "custom DMA bit 15", " ", EU_F_CUSTOM_DMA, EU_POS_CUSTOM_DMA, \
                         1, EU_K_UINT, 1, .avail = EU_AV_U55, NAMES(CUSTOM_DMA_NAMES))
static const eu_field F_REGION[] = {
    FIELD("region", "region", "region=", EU_F_REGION, EU_POS_REGION, 15, EU_K_UINT,
          EU_N_REGIONS - 1, .flags = EU_FL_RANGE_MSG),
    CUSTOM_DMA};
static const eu_field F_DMA_REGION[] = {
    FIELD("region", "region", "region=", EU_F_REGION, EU_POS_REGION, EU_REGION_BITS, EU_K_UINT,
          EU_N_REGIONS - 1),
    FIELD("internal", "internal (SHRAM)", " ", EU_F_INTERNAL, EU_POS_DMA_INTERNAL, 1, EU_K_UINT, 1,
          NAMES(INTERNAL_NAMES)),
    FIELD("stride_mode", "stride mode", " stride=", EU_F_STRIDE_MODE, EU_POS_DMA_STRIDE_MODE, 2,
          EU_K_UINT, 3, .flags = EU_FL_LIST, NAMES(STRIDE_MODE_NAMES)),
    CUSTOM_DMA};

/* KERNEL_STRIDE: stride - 1 in [0]/[1] with its high bit at [6]/[9] */
static const eu_field F_KERNEL_STRIDE[] = {
    FIELD("stride_x", "stride x", "stride=", EU_F_STRIDE_X, EU_POS_STRIDE_X, 1, EU_K_M1, 3,
          .shift_hi = EU_POS_STRIDE_X_HI, .width_hi = 1),
    FIELD("stride_y", "stride y", "x", EU_F_STRIDE_Y, EU_POS_STRIDE_Y, 1, EU_K_M1, 3,
          .shift_hi = EU_POS_STRIDE_Y_HI, .width_hi = 1),
    FIELD("dilation_x", "dilation x", " dilation=", EU_F_DILATION_X, EU_POS_DILATION_X, 1, EU_K_M1, 1),
    FIELD("dilation_y", "dilation y", "x", EU_F_DILATION_Y, EU_POS_DILATION_Y, 1, EU_K_M1, 1),
    FIELD("weight_order", "weight order", " ", EU_F_WEIGHT_ORDER, EU_POS_WEIGHT_ORDER, 1, EU_K_UINT, 1,
          NAMES(ORDER_NAMES)),
    FIELD("decomposition", "kernel decomposition", " decomp=", EU_F_DECOMPOSITION,
          EU_POS_DECOMPOSITION, 1, EU_K_UINT, 1, .flags = EU_FL_LIST, NAMES(DECOMP_NAMES))};

static const eu_field F_ACTIVATION[] = {
    FIELD("function", "activation function", "", EU_F_FUNCTION, EU_POS_FUNCTION, 5, EU_K_UINT, 31,
          .flags = EU_FL_LIST, NAMES(FUNCTION_NAMES)),
    FIELD("clip", "activation clip range", " clip=", EU_F_CLIP, EU_POS_CLIP, 3, EU_K_UINT, 7,
          .flags = EU_FL_LIST, NAMES(CLIP_NAMES))};

#define FLAG(name_, what_, id_, pos, names) \
    FIELD(name_, what_, " ", id_, pos, 1, EU_K_UINT, 1, NAMES(names))
static const eu_field F_BROADCAST[] = {
    FLAG("broadcast_h", "broadcast H", EU_F_BCAST_H, EU_POS_BCAST_H, H_NAMES),
    FLAG("broadcast_w", "broadcast W", EU_F_BCAST_W, EU_POS_BCAST_W, W_NAMES),
    FLAG("broadcast_c", "broadcast C", EU_F_BCAST_C, EU_POS_BCAST_C, C_NAMES),
    FLAG("ifm2_first", "operand order", EU_F_IFM2_FIRST, EU_POS_IFM2_FIRST, FIRST_NAMES),
    FLAG("scalar", "scalar", EU_F_SCALAR, EU_POS_SCALAR, SCALAR_NAMES)};

/* cmd1: addresses and lengths are 40-bit (bits 39:32 in the param, U65
 * only); strides are signed, 40-bit on U65 and 32-bit on U55 with bits
 * 39:32 its sign (docs/ethos-u.md 2.1, 4.1) */
static const eu_field F_ADDR[] = {
    FIELD("value", "value", "", EU_F_VALUE, 0, 40, EU_K_ADDR, ADDR_MAX, .flags = EU_FL_HEX)};
static const eu_field F_STRIDE[] = {
    FIELD("value", "value", "", EU_F_VALUE, 0, 40, EU_K_STRIDE, ADDR_MAX, .flags = EU_FL_HEX)};
static const eu_field F_ADDR16[] = {
    FIELD("value", "value", "", EU_F_VALUE, 0, 40, EU_K_ADDR, ADDR_MAX, .flags = EU_FL_HEX,
          .align = EU_WEIGHT_ALIGN)};
static const eu_field F_SCALE_LENGTH[] = {
    FIELD("value", "scale length", "", EU_F_VALUE, 0, 40, EU_K_ADDR, (1u << 20) - 1,
          .flags = EU_FL_HEX, .align = EU_WEIGHT_ALIGN)};
static const eu_field F_SCALE_SHIFT[] = {
    FIELD("scale", "scale", "scale=", EU_F_SCALE, 0, 32, EU_K_UINT, 0xFFFFFFFFu, .flags = EU_FL_HEX),
    FIELD("shift", "shift", " shift=", EU_F_SHIFT, EU_POS_SHIFT, 16, EU_K_UINT, 63)};
static const eu_field F_OPB_SCALE[] = {
    FIELD("scale", "16-bit scale", "scale=", EU_F_SCALE, 0, 32, EU_K_UINT, 0xFFFFu, .flags = EU_FL_HEX)};
static const eu_field F_USER[] = {
    FIELD("value", "value", "", EU_F_VALUE, 0, 48, EU_K_UINT, 0xFFFFFFFFFFFFull, .flags = EU_FL_HEX)};

/* ------------------------------------------------------------ commands */

#define CMD(code_, av, name_, f) {code_, av, (uint8_t)(sizeof f / sizeof f[0]), name_, f}
#define CMD_NOFIELD(code_, name_) {code_, EU_AV_ALL, 0, name_, NULL}
#define ALL EU_AV_ALL
#define U55 EU_AV_U55
#define U65 EU_AV_U65

const eu_cmd_info eu_cmds[] = {
    CMD(EU_OP_STOP, ALL, "NPU_OP_STOP", F_MASK),
    CMD(EU_OP_IRQ, ALL, "NPU_OP_IRQ", F_MASK),
    CMD_NOFIELD(EU_OP_CONV, "NPU_OP_CONV"),
    CMD_NOFIELD(EU_OP_DEPTHWISE, "NPU_OP_DEPTHWISE"),
    CMD(EU_OP_POOL, ALL, "NPU_OP_POOL", F_POOL),
    CMD(EU_OP_ELEMENTWISE, ALL, "NPU_OP_ELEMENTWISE", F_ELEMENTWISE),
    CMD(EU_OP_DMA_START, ALL, "NPU_OP_DMA_START", F_DMA_START),
    CMD(EU_OP_DMA_WAIT, ALL, "NPU_OP_DMA_WAIT", F_DMA_WAIT),
    CMD(EU_OP_KERNEL_WAIT, ALL, "NPU_OP_KERNEL_WAIT", F_KERNEL_WAIT),
    CMD(EU_OP_PMU_MASK, ALL, "NPU_OP_PMU_MASK", F_PMU_MASK),
    CMD(EU_SET_IFM_PAD_TOP, ALL, "NPU_SET_IFM_PAD_TOP", F_PAD127),
    CMD(EU_SET_IFM_PAD_LEFT, ALL, "NPU_SET_IFM_PAD_LEFT", F_PAD127),
    CMD(EU_SET_IFM_PAD_RIGHT, ALL, "NPU_SET_IFM_PAD_RIGHT", F_PAD128),
    CMD(EU_SET_IFM_PAD_BOTTOM, ALL, "NPU_SET_IFM_PAD_BOTTOM", F_PAD128),
    CMD(EU_SET_IFM_DEPTH_M1, ALL, "NPU_SET_IFM_DEPTH_M1", F_M1),
    CMD(EU_SET_IFM_PRECISION, ALL, "NPU_SET_IFM_PRECISION", F_IFM_PREC),
    CMD(EU_SET_IFM_UPSCALE, ALL, "NPU_SET_IFM_UPSCALE", F_UPSCALE),
    CMD(EU_SET_IFM_ZERO_POINT, ALL, "NPU_SET_IFM_ZERO_POINT", F_S16),
    CMD(EU_SET_IFM_WIDTH0_M1, ALL, "NPU_SET_IFM_WIDTH0_M1", F_M1),
    CMD(EU_SET_IFM_HEIGHT0_M1, ALL, "NPU_SET_IFM_HEIGHT0_M1", F_M1),
    CMD(EU_SET_IFM_HEIGHT1_M1, ALL, "NPU_SET_IFM_HEIGHT1_M1", F_M1),
    CMD(EU_SET_IFM_IB_END, ALL, "NPU_SET_IFM_IB_END", F_BANK),
    CMD(EU_SET_IFM_REGION, ALL, "NPU_SET_IFM_REGION", F_REGION),
    CMD(EU_SET_OFM_WIDTH_M1, ALL, "NPU_SET_OFM_WIDTH_M1", F_M1),
    CMD(EU_SET_OFM_HEIGHT_M1, ALL, "NPU_SET_OFM_HEIGHT_M1", F_M1),
    CMD(EU_SET_OFM_DEPTH_M1, ALL, "NPU_SET_OFM_DEPTH_M1", F_M1),
    CMD(EU_SET_OFM_PRECISION, ALL, "NPU_SET_OFM_PRECISION", F_OFM_PREC),
    CMD(EU_SET_OFM_BLK_WIDTH_M1, ALL, "NPU_SET_OFM_BLK_WIDTH_M1", F_BLK_W),
    CMD(EU_SET_OFM_BLK_HEIGHT_M1, ALL, "NPU_SET_OFM_BLK_HEIGHT_M1", F_BLK_H),
    CMD(EU_SET_OFM_BLK_DEPTH_M1, ALL, "NPU_SET_OFM_BLK_DEPTH_M1", F_BLK_D),
    CMD(EU_SET_OFM_ZERO_POINT, ALL, "NPU_SET_OFM_ZERO_POINT", F_S16),
    CMD(EU_SET_OFM_WIDTH0_M1, ALL, "NPU_SET_OFM_WIDTH0_M1", F_M1),
    CMD(EU_SET_OFM_HEIGHT0_M1, ALL, "NPU_SET_OFM_HEIGHT0_M1", F_M1),
    CMD(EU_SET_OFM_HEIGHT1_M1, ALL, "NPU_SET_OFM_HEIGHT1_M1", F_M1),
    CMD(EU_SET_OFM_REGION, ALL, "NPU_SET_OFM_REGION", F_REGION),
    CMD(EU_SET_KERNEL_WIDTH_M1, ALL, "NPU_SET_KERNEL_WIDTH_M1", F_M1),
    CMD(EU_SET_KERNEL_HEIGHT_M1, ALL, "NPU_SET_KERNEL_HEIGHT_M1", F_M1),
    CMD(EU_SET_KERNEL_STRIDE, ALL, "NPU_SET_KERNEL_STRIDE", F_KERNEL_STRIDE),
    CMD(EU_SET_PARALLEL_MODE, U65, "NPU_SET_PARALLEL_MODE", F_PARALLEL),
    CMD(EU_SET_ACC_FORMAT, ALL, "NPU_SET_ACC_FORMAT", F_ACC),
    CMD(EU_SET_ACTIVATION, ALL, "NPU_SET_ACTIVATION", F_ACTIVATION),
    CMD(EU_SET_ACTIVATION_MIN, ALL, "NPU_SET_ACTIVATION_MIN", F_S16),
    CMD(EU_SET_ACTIVATION_MAX, ALL, "NPU_SET_ACTIVATION_MAX", F_S16),
    CMD(EU_SET_WEIGHT_REGION, ALL, "NPU_SET_WEIGHT_REGION", F_REGION),
    CMD(EU_SET_SCALE_REGION, ALL, "NPU_SET_SCALE_REGION", F_REGION),
    CMD(EU_SET_AB_START, ALL, "NPU_SET_AB_START", F_BANK),
    CMD(EU_SET_BLOCKDEP, ALL, "NPU_SET_BLOCKDEP", F_BLOCKDEP),
    CMD(EU_SET_DMA0_SRC_REGION, ALL, "NPU_SET_DMA0_SRC_REGION", F_DMA_REGION),
    CMD(EU_SET_DMA0_DST_REGION, ALL, "NPU_SET_DMA0_DST_REGION", F_DMA_REGION),
    CMD(EU_SET_DMA0_SIZE0, ALL, "NPU_SET_DMA0_SIZE0", F_U16),
    CMD(EU_SET_DMA0_SIZE1, ALL, "NPU_SET_DMA0_SIZE1", F_U16),
    CMD(EU_SET_IFM2_BROADCAST, ALL, "NPU_SET_IFM2_BROADCAST", F_BROADCAST),
    CMD(EU_SET_IFM2_SCALAR, ALL, "NPU_SET_IFM2_SCALAR", F_S16),
    CMD(EU_SET_IFM2_PRECISION, ALL, "NPU_SET_IFM2_PRECISION", F_IFM2_PREC),
    CMD(EU_SET_IFM2_ZERO_POINT, ALL, "NPU_SET_IFM2_ZERO_POINT", F_S16),
    CMD(EU_SET_IFM2_WIDTH0_M1, ALL, "NPU_SET_IFM2_WIDTH0_M1", F_M1),
    CMD(EU_SET_IFM2_HEIGHT0_M1, ALL, "NPU_SET_IFM2_HEIGHT0_M1", F_M1),
    CMD(EU_SET_IFM2_HEIGHT1_M1, ALL, "NPU_SET_IFM2_HEIGHT1_M1", F_M1),
    CMD(EU_SET_IFM2_IB_START, ALL, "NPU_SET_IFM2_IB_START", F_BANK),
    CMD(EU_SET_IFM2_REGION, ALL, "NPU_SET_IFM2_REGION", F_REGION),
    CMD(EU_SET_IFM_BASE0, ALL, "NPU_SET_IFM_BASE0", F_ADDR),
    CMD(EU_SET_IFM_BASE1, ALL, "NPU_SET_IFM_BASE1", F_ADDR),
    CMD(EU_SET_IFM_BASE2, ALL, "NPU_SET_IFM_BASE2", F_ADDR),
    CMD(EU_SET_IFM_BASE3, ALL, "NPU_SET_IFM_BASE3", F_ADDR),
    CMD(EU_SET_IFM_STRIDE_X, ALL, "NPU_SET_IFM_STRIDE_X", F_STRIDE),
    CMD(EU_SET_IFM_STRIDE_Y, ALL, "NPU_SET_IFM_STRIDE_Y", F_STRIDE),
    CMD(EU_SET_IFM_STRIDE_C, ALL, "NPU_SET_IFM_STRIDE_C", F_STRIDE),
    CMD(EU_SET_OFM_BASE0, ALL, "NPU_SET_OFM_BASE0", F_ADDR),
    CMD(EU_SET_OFM_BASE1, ALL, "NPU_SET_OFM_BASE1", F_ADDR),
    CMD(EU_SET_OFM_BASE2, ALL, "NPU_SET_OFM_BASE2", F_ADDR),
    CMD(EU_SET_OFM_BASE3, ALL, "NPU_SET_OFM_BASE3", F_ADDR),
    CMD(EU_SET_OFM_STRIDE_X, ALL, "NPU_SET_OFM_STRIDE_X", F_STRIDE),
    CMD(EU_SET_OFM_STRIDE_Y, ALL, "NPU_SET_OFM_STRIDE_Y", F_STRIDE),
    CMD(EU_SET_OFM_STRIDE_C, ALL, "NPU_SET_OFM_STRIDE_C", F_STRIDE),
    CMD(EU_SET_WEIGHT_BASE, ALL, "NPU_SET_WEIGHT_BASE", F_ADDR16),
    CMD(EU_SET_WEIGHT_LENGTH, ALL, "NPU_SET_WEIGHT_LENGTH", F_ADDR16),
    CMD(EU_SET_SCALE_BASE, ALL, "NPU_SET_SCALE_BASE", F_ADDR16),
    CMD(EU_SET_SCALE_LENGTH, ALL, "NPU_SET_SCALE_LENGTH", F_SCALE_LENGTH),
    CMD(EU_SET_OFM_SCALE, ALL, "NPU_SET_OFM_SCALE", F_SCALE_SHIFT),
    CMD(EU_SET_OPA_SCALE, ALL, "NPU_SET_OPA_SCALE", F_SCALE_SHIFT),
    CMD(EU_SET_OPB_SCALE, ALL, "NPU_SET_OPB_SCALE", F_OPB_SCALE),
    CMD(EU_SET_DMA0_SRC, ALL, "NPU_SET_DMA0_SRC", F_ADDR),
    CMD(EU_SET_DMA0_DST, ALL, "NPU_SET_DMA0_DST", F_ADDR),
    CMD(EU_SET_DMA0_LEN, ALL, "NPU_SET_DMA0_LEN", F_ADDR),
    CMD(EU_SET_DMA0_SKIP0, U65, "NPU_SET_DMA0_SKIP0", F_ADDR),
    CMD(EU_SET_DMA0_SKIP1, U65, "NPU_SET_DMA0_SKIP1", F_ADDR),
    CMD(EU_SET_IFM2_BASE0, ALL, "NPU_SET_IFM2_BASE0", F_ADDR),
    CMD(EU_SET_IFM2_BASE1, ALL, "NPU_SET_IFM2_BASE1", F_ADDR),
    CMD(EU_SET_IFM2_BASE2, ALL, "NPU_SET_IFM2_BASE2", F_ADDR),
    CMD(EU_SET_IFM2_BASE3, ALL, "NPU_SET_IFM2_BASE3", F_ADDR),
    CMD(EU_SET_IFM2_STRIDE_X, ALL, "NPU_SET_IFM2_STRIDE_X", F_STRIDE),
    CMD(EU_SET_IFM2_STRIDE_Y, ALL, "NPU_SET_IFM2_STRIDE_Y", F_STRIDE),
    CMD(EU_SET_IFM2_STRIDE_C, ALL, "NPU_SET_IFM2_STRIDE_C", F_STRIDE),
    CMD(EU_SET_WEIGHT1_BASE, U65, "NPU_SET_WEIGHT1_BASE", F_ADDR16),
    CMD(EU_SET_WEIGHT1_LENGTH, U65, "NPU_SET_WEIGHT1_LENGTH", F_ADDR16),
    CMD(EU_SET_SCALE1_BASE, U65, "NPU_SET_SCALE1_BASE", F_ADDR16),
    CMD(EU_SET_SCALE1_LENGTH, U65, "NPU_SET_SCALE1_LENGTH", F_SCALE_LENGTH),
    CMD(EU_SET_USER_DEFINED0 + 0, U55, "NPU_SET_USER_DEFINED0", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 1, U55, "NPU_SET_USER_DEFINED1", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 2, U55, "NPU_SET_USER_DEFINED2", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 3, U55, "NPU_SET_USER_DEFINED3", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 4, U55, "NPU_SET_USER_DEFINED4", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 5, U55, "NPU_SET_USER_DEFINED5", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 6, U55, "NPU_SET_USER_DEFINED6", F_USER),
    CMD(EU_SET_USER_DEFINED0 + 7, U55, "NPU_SET_USER_DEFINED7", F_USER),
};
const size_t eu_n_cmds = sizeof eu_cmds / sizeof eu_cmds[0];

/* ------------------------------------------------------------ lookups */

static const eu_cmd_info *cmd_search(uint16_t code)
{
    size_t lo = 0, hi = eu_n_cmds;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (eu_cmds[mid].code == code) return &eu_cmds[mid];
        if (eu_cmds[mid].code < code) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* The binary search's answer for each code of the form control (0 or 1)
 * << 14 | opcode, filled as they are looked up: 0 not yet, 1 no command,
 * else 2 + the table index. Each slot only ever takes one value, so
 * threads that fill it at once write the same; relaxed atomics keep that
 * free of data races at the cost of a plain load. */
static _Atomic uint8_t cmd_slot[2u << 10];
_Static_assert(sizeof eu_cmds / sizeof eu_cmds[0] <= 253, "command table index fits cmd_slot");

const eu_cmd_info *eu_cmd_find(uint16_t code)
{
    unsigned control = eu_code_control(code);
    if (control > 1 || (code & ~(EU_CODE_CMD1 | EU_CODE_OPCODE_MASK))) return cmd_search(code);
    unsigned k = control << 10 | eu_code_opcode(code);
    unsigned v = atomic_load_explicit(&cmd_slot[k], memory_order_relaxed);
    if (v) return v == 1 ? NULL : &eu_cmds[v - 2];
    const eu_cmd_info *c = cmd_search(code);
    atomic_store_explicit(&cmd_slot[k], (uint8_t)(c ? 2 + (c - eu_cmds) : 1), memory_order_relaxed);
    return c;
}

const char *eu_cmd_name(uint16_t code)
{
    const eu_cmd_info *c = eu_cmd_find(code);
    return c ? c->name : NULL;
}

static unsigned product_av(eu_variant v) { return eu_variant_is_u65(v) ? EU_AV_U65 : EU_AV_U55; }

bool eu_cmd_available(const eu_cmd_info *c, eu_variant v)
{
    return c->avail == EU_AV_ALL || c->avail == product_av(v);
}

bool eu_cmd_is_kernel_op(uint16_t code)
{
    return code == EU_OP_CONV || code == EU_OP_DEPTHWISE || code == EU_OP_POOL ||
           code == EU_OP_ELEMENTWISE;
}

const eu_field *eu_cmd_field(const eu_cmd_info *c, eu_fid id)
{
    for (unsigned i = 0; c && i < c->n_fields; i++)
        if (c->fields[i].id == id) return &c->fields[i];
    return NULL;
}

static bool same(const char *a, const char *b)
{
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

const eu_field *eu_cmd_field_named(const eu_cmd_info *c, const char *name)
{
    for (unsigned i = 0; c && name && i < c->n_fields; i++)
        if (same(c->fields[i].name, name)) return &c->fields[i];
    return NULL;
}

static const eu_value_name *value_of(const eu_field *f, uint64_t raw)
{
    for (unsigned i = 0; i < f->n_values; i++)
        if (f->values[i].raw == raw) return &f->values[i];
    return NULL;
}

const char *eu_field_value_name(const eu_field *f, uint64_t raw)
{
    const eu_value_name *n = value_of(f, raw);
    return n ? n->name : NULL;
}

int eu_field_value_by_name(const eu_field *f, const char *name, uint64_t *raw)
{
    for (unsigned i = 0; name && i < f->n_values; i++) {
        if (same(f->values[i].name, name)) {
            *raw = f->values[i].raw;
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ bits */

static uint64_t mask_of(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

uint64_t eu_field_raw(const eu_field *f, uint64_t operand)
{
    uint64_t lo = (operand >> f->shift) & mask_of(f->width);
    if (!f->width_hi) return lo;
    return lo | ((operand >> f->shift_hi) & mask_of(f->width_hi)) << f->width;
}

uint64_t eu_field_set_raw(const eu_field *f, uint64_t operand, uint64_t raw)
{
    operand &= ~(mask_of(f->width) << f->shift);
    operand |= (raw & mask_of(f->width)) << f->shift;
    if (f->width_hi) {
        operand &= ~(mask_of(f->width_hi) << f->shift_hi);
        operand |= ((raw >> f->width) & mask_of(f->width_hi)) << f->shift_hi;
    }
    return operand;
}

int64_t eu_field_value(const eu_field *f, uint64_t raw)
{
    unsigned w = f->width + f->width_hi;
    switch (f->kind) {
    case EU_K_SINT:
    case EU_K_STRIDE:
        return (raw >> (w - 1)) & 1 ? (int64_t)(raw | ~mask_of(w)) : (int64_t)raw;
    case EU_K_M1: return (int64_t)raw + 1;
    case EU_K_BITS: return (int64_t)8 << raw;
    default: return (int64_t)raw;
    }
}

uint64_t eu_field_encode(const eu_field *f, int64_t value)
{
    uint64_t m = mask_of(f->width + f->width_hi);
    switch (f->kind) {
    case EU_K_M1: return (uint64_t)(value - 1) & m;
    case EU_K_BITS: {
        uint64_t raw = 0;
        while (raw < m && ((int64_t)8 << raw) < value) raw++;
        return raw;
    }
    default: return (uint64_t)value & m;
    }
}

uint64_t eu_cmd_reserved_bits(const eu_cmd_info *c)
{
    uint64_t all = eu_code_is_cmd1(c->code) ? mask_of(48) : mask_of(16), covered = 0;
    for (unsigned i = 0; i < c->n_fields; i++) {
        const eu_field *f = &c->fields[i];
        covered |= mask_of(f->width) << f->shift;
        if (f->width_hi) covered |= mask_of(f->width_hi) << f->shift_hi;
    }
    return all & ~covered;
}

/* ------------------------------------------------------------ checks */

static bool value_available(const eu_value_name *n, eu_variant v)
{
    if (n->flags & EU_V_U55) return !eu_variant_is_u65(v);
    if (n->flags & EU_V_U65) return eu_variant_is_u65(v);
    return true;
}

/* eu_field_max with the variant's product known (u65). */
static inline uint64_t field_max(const eu_field *f, eu_variant v, bool u65)
{
    if (f->flags & EU_FL_LIST) {
        uint64_t m = 0;
        for (unsigned i = 0; i < f->n_values; i++) {
            const eu_value_name *n = &f->values[i];
            if (!(n->flags & EU_V_UNSUPPORTED) && value_available(n, v) && n->raw > m) m = n->raw;
        }
        return m;
    }
    if (f->flags & EU_FL_BANKS) return eu_variant_shram_banks(v);
    if (f->flags & EU_FL_CORES) {
        const eu_variant_info *r = eu_variant_get(v);
        return r ? r->cores - 1u : 0;
    }
    if (f->kind == EU_K_ADDR && !u65 && f->max > 0xFFFFFFFFu) return 0xFFFFFFFFu;
    /* the largest positive U55 stride (negative ones: bits 39:31 set) */
    if (f->kind == EU_K_STRIDE && !u65) return 0x7FFFFFFFu;
    return f->max;
}

uint64_t eu_field_max(const eu_field *f, eu_variant v) { return field_max(f, v, eu_variant_is_u65(v)); }

/* eu_field_check with the variant's product known (u65): eu_cmd_check
 * asks it once per command, not per field and test. */
static inline eu_check field_check(const eu_field *f, uint64_t raw, eu_variant v, bool u65)
{
    if (f->avail != EU_AV_ALL && f->avail != (u65 ? EU_AV_U65 : EU_AV_U55) && raw) return EU_BAD_FIELD_VARIANT;
    if (f->kind == EU_K_ADDR && !u65 && raw >> 32) return EU_BAD_ADDR_HI;
    if (f->kind == EU_K_STRIDE && !u65) {
        uint64_t sign = raw >> 31;   /* bits 39:31: 0, or all ones for a negative stride */
        return sign == 0 || sign == 0x1FF ? EU_OK : EU_BAD_STRIDE_HI;
    }
    if (f->flags & EU_FL_LIST) {
        const eu_value_name *n = value_of(f, raw);
        if (!n) return EU_BAD_VALUE;
        if (n->flags & EU_V_UNSUPPORTED) return EU_BAD_UNSUPPORTED;
        if (!value_available(n, v)) return EU_BAD_VALUE_VARIANT;
    } else if (raw > field_max(f, v, u65)) {
        return f->flags & EU_FL_BANKS ? EU_BAD_BANK : EU_BAD_RANGE;
    }
    if (f->align && raw % f->align) return EU_BAD_ALIGN;
    return EU_OK;
}

eu_check eu_field_check(const eu_field *f, uint64_t raw, eu_variant v)
{
    return field_check(f, raw, v, eu_variant_is_u65(v));
}

/* eu_cmd_reserved_bits of each command of the table, by its index, as
 * two 32-bit halves (the bits are below 48; no 64-bit atomics, which a
 * 32-bit core's toolchain would call out of line) and a flag set once
 * both are written: a stream check asks for them per command. Each slot
 * only ever takes one value (relaxed atomics, as cmd_slot). */
static _Atomic uint32_t cmd_reserved[2][256];
static _Atomic uint8_t cmd_reserved_known[256];
_Static_assert(sizeof eu_cmds / sizeof eu_cmds[0] <= 256, "command table index fits cmd_reserved");

static uint64_t reserved_of(const eu_cmd_info *c)
{
    size_t i = (size_t)(c - eu_cmds);
    if (i >= sizeof eu_cmds / sizeof eu_cmds[0]) return eu_cmd_reserved_bits(c);   /* not of the table */
    if (atomic_load_explicit(&cmd_reserved_known[i], memory_order_acquire))
        return (uint64_t)atomic_load_explicit(&cmd_reserved[1][i], memory_order_relaxed) << 32 |
               atomic_load_explicit(&cmd_reserved[0][i], memory_order_relaxed);
    uint64_t r = eu_cmd_reserved_bits(c);
    atomic_store_explicit(&cmd_reserved[0][i], (uint32_t)r, memory_order_relaxed);
    atomic_store_explicit(&cmd_reserved[1][i], (uint32_t)(r >> 32), memory_order_relaxed);
    atomic_store_explicit(&cmd_reserved_known[i], 1, memory_order_release);
    return r;
}

eu_check eu_cmd_check(const eu_cmd_info *c, uint64_t operand, eu_variant v, const eu_field **field,
                      uint64_t *raw)
{
    *field = NULL;
    *raw = operand & reserved_of(c);
    if (*raw) return EU_BAD_RESERVED;
    const bool u65 = eu_variant_is_u65(v);
    for (unsigned i = 0; i < c->n_fields; i++) {
        const eu_field *f = &c->fields[i];
        uint64_t r = eu_field_raw(f, operand);
        eu_check k = field_check(f, r, v, u65);
        if (k) {
            *field = f;
            *raw = r;
            return k;
        }
    }
    return EU_OK;
}

/* ------------------------------------------------------------ packing */

uint64_t eu_pack(uint16_t code, size_t n, const eu_fv *fv)
{
    const eu_cmd_info *c = eu_cmd_find(code);
    uint64_t op = 0;
    for (size_t i = 0; c && i < n; i++) {
        /* the helpers name the fields in the table's order: field i is
         * the one, else a search (a command's field ids are unique) */
        const eu_field *f = i < c->n_fields && c->fields[i].id == fv[i].id ? &c->fields[i]
                                                                          : eu_cmd_field(c, (eu_fid)fv[i].id);
        if (f) op = eu_field_set_raw(f, op, eu_field_encode(f, fv[i].value));
    }
    return op;
}

const eu_field *eu_cmd_value_field(uint16_t code)
{
    /* the value field comes first in a one-field command: no search */
    const eu_cmd_info *c = eu_cmd_find(code);
    return c && c->n_fields && c->fields[0].id == EU_F_VALUE ? &c->fields[0] : NULL;
}

uint64_t eu_pack1(uint16_t code, int64_t value)
{
    const eu_field *f = eu_cmd_value_field(code);
    if (f) return eu_field_pack(f, value);
    eu_fv fv = {EU_F_VALUE, value};
    return eu_pack(code, 1, &fv);
}

int64_t eu_unpack(uint16_t code, eu_fid id, uint64_t operand)
{
    const eu_field *f = eu_cmd_field(eu_cmd_find(code), id);
    return f ? eu_field_value(f, eu_field_raw(f, operand)) : 0;
}

uint64_t eu_pack_precision(uint16_t code, bool is_signed, unsigned bits, unsigned format,
                           unsigned scale_mode, unsigned round)
{
    return EU_PACK(code, {EU_F_SIGNED, is_signed}, {EU_F_BITS, bits}, {EU_F_FORMAT, format},
                   {EU_F_SCALE_MODE, scale_mode}, {EU_F_ROUND, round});
}

uint64_t eu_pack_kernel_stride(unsigned stride_x, unsigned stride_y, unsigned dilation_x,
                               unsigned dilation_y, bool part_kernel_first)
{
    return EU_PACK(EU_SET_KERNEL_STRIDE, {EU_F_STRIDE_X, stride_x}, {EU_F_STRIDE_Y, stride_y},
                   {EU_F_DILATION_X, dilation_x}, {EU_F_DILATION_Y, dilation_y},
                   {EU_F_WEIGHT_ORDER, part_kernel_first ? EU_PART_KERNEL_FIRST : EU_DEPTH_FIRST});
}

uint64_t eu_pack_activation(unsigned function, unsigned clip)
{
    return EU_PACK(EU_SET_ACTIVATION, {EU_F_FUNCTION, function}, {EU_F_CLIP, clip});
}

uint64_t eu_pack_broadcast(bool h, bool w, bool c, bool ifm2_first, bool scalar)
{
    return EU_PACK(EU_SET_IFM2_BROADCAST, {EU_F_BCAST_H, h}, {EU_F_BCAST_W, w}, {EU_F_BCAST_C, c},
                   {EU_F_IFM2_FIRST, ifm2_first}, {EU_F_SCALAR, scalar});
}

uint64_t eu_pack_region(uint16_t code, unsigned region)
{
    return EU_PACK(code, {EU_F_REGION, region});
}

uint64_t eu_pack_dma_region(uint16_t code, unsigned region, bool internal, unsigned stride_mode)
{
    return EU_PACK(code, {EU_F_REGION, region}, {EU_F_INTERNAL, internal},
                   {EU_F_STRIDE_MODE, stride_mode});
}

uint64_t eu_pack_scale(uint16_t code, uint32_t scale, unsigned shift)
{
    return EU_PACK(code, {EU_F_SCALE, scale}, {EU_F_SHIFT, shift});
}
