/* eu_cmd.h: the Ethos-U55/U65 command stream: word format, command codes,
 * and for every command its fields (bit position, width, allowed values,
 * value names) in one const table that the writers (compiler, tests) and
 * the readers (simulator, trace, driver) all use (docs/ethos-u.md 2.1-2.4,
 * 1.5). Freestanding (no libc).
 *
 * A command's operand is the value it carries: for cmd0 the 16-bit param,
 * for cmd1 param << 32 | payload (48 bits). A field is a bit range of the
 * operand (KERNEL_STRIDE's strides have a second, high part). Its raw value
 * is those bits; its value is what the bits mean: raw + 1 for *_M1 and
 * strides/dilations, 8 << raw for precision bits, sign-extended for zero
 * points and clamps, raw otherwise. */
#ifndef NPUC_ETHOSU_EU_CMD_H
#define NPUC_ETHOSU_EU_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ethosu/eu_variant.h"

/* --------------------------------------------------------- word format */

/* word0: [9:0] opcode, [13:10] 0, [15:14] control (0 cmd0, 1 cmd1),
 * [31:16] param; cmd1 has a second word, the 32-bit payload. A command's
 * code is word0's low 16 bits. */
#define EU_CODE_OPCODE_MASK 0x03FFu
#define EU_CODE_RESERVED_MASK 0x3C00u
#define EU_CODE_CONTROL_SHIFT 14
#define EU_CODE_CMD1 0x4000u
#define EU_PARAM_SHIFT 16

static inline uint16_t eu_word_code(uint32_t w0) { return (uint16_t)(w0 & 0xFFFFu); }
static inline uint16_t eu_word_param(uint32_t w0) { return (uint16_t)(w0 >> EU_PARAM_SHIFT); }
static inline unsigned eu_code_control(uint16_t code) { return (unsigned)code >> EU_CODE_CONTROL_SHIFT; }
static inline bool eu_code_is_cmd1(uint16_t code) { return eu_code_control(code) == 1; }
static inline unsigned eu_code_opcode(uint16_t code) { return code & EU_CODE_OPCODE_MASK; }
static inline uint32_t eu_word0(uint16_t code, uint16_t param)
{
    return (uint32_t)param << EU_PARAM_SHIFT | code;
}
/* The operand of a command from its words (w1 ignored for cmd0). */
static inline uint64_t eu_operand(uint32_t w0, uint32_t w1)
{
    uint64_t p = eu_word_param(w0);
    return eu_code_is_cmd1(eu_word_code(w0)) ? p << 32 | w1 : p;
}
/* The words of a command; returns how many (1 or 2). */
static inline unsigned eu_cmd_words(uint16_t code, uint64_t operand, uint32_t w[2])
{
    if (eu_code_is_cmd1(code)) {
        w[0] = eu_word0(code, (uint16_t)(operand >> 32));
        w[1] = (uint32_t)operand;
        return 2;
    }
    w[0] = eu_word0(code, (uint16_t)operand);
    return 1;
}

/* ------------------------------------------------------- command codes */

enum {
    /* cmd0 operations (2.2) */
    EU_OP_STOP = 0x000, EU_OP_IRQ = 0x001, EU_OP_CONV = 0x002, EU_OP_DEPTHWISE = 0x003,
    EU_OP_POOL = 0x005, EU_OP_ELEMENTWISE = 0x006, EU_OP_DMA_START = 0x010,
    EU_OP_DMA_WAIT = 0x011, EU_OP_KERNEL_WAIT = 0x012, EU_OP_PMU_MASK = 0x013,
    /* cmd0 register settings (2.3) */
    EU_SET_IFM_PAD_TOP = 0x100, EU_SET_IFM_PAD_LEFT = 0x101, EU_SET_IFM_PAD_RIGHT = 0x102,
    EU_SET_IFM_PAD_BOTTOM = 0x103, EU_SET_IFM_DEPTH_M1 = 0x104, EU_SET_IFM_PRECISION = 0x105,
    EU_SET_IFM_UPSCALE = 0x107, EU_SET_IFM_ZERO_POINT = 0x109, EU_SET_IFM_WIDTH0_M1 = 0x10A,
    EU_SET_IFM_HEIGHT0_M1 = 0x10B, EU_SET_IFM_HEIGHT1_M1 = 0x10C, EU_SET_IFM_IB_END = 0x10D,
    EU_SET_IFM_REGION = 0x10F, EU_SET_OFM_WIDTH_M1 = 0x111, EU_SET_OFM_HEIGHT_M1 = 0x112,
    EU_SET_OFM_DEPTH_M1 = 0x113, EU_SET_OFM_PRECISION = 0x114, EU_SET_OFM_BLK_WIDTH_M1 = 0x115,
    EU_SET_OFM_BLK_HEIGHT_M1 = 0x116, EU_SET_OFM_BLK_DEPTH_M1 = 0x117,
    EU_SET_OFM_ZERO_POINT = 0x118, EU_SET_OFM_WIDTH0_M1 = 0x11A, EU_SET_OFM_HEIGHT0_M1 = 0x11B,
    EU_SET_OFM_HEIGHT1_M1 = 0x11C, EU_SET_OFM_REGION = 0x11F, EU_SET_KERNEL_WIDTH_M1 = 0x120,
    EU_SET_KERNEL_HEIGHT_M1 = 0x121, EU_SET_KERNEL_STRIDE = 0x122, EU_SET_PARALLEL_MODE = 0x123,
    EU_SET_ACC_FORMAT = 0x124, EU_SET_ACTIVATION = 0x125, EU_SET_ACTIVATION_MIN = 0x126,
    EU_SET_ACTIVATION_MAX = 0x127, EU_SET_WEIGHT_REGION = 0x128, EU_SET_SCALE_REGION = 0x129,
    EU_SET_AB_START = 0x12D, EU_SET_BLOCKDEP = 0x12F, EU_SET_DMA0_SRC_REGION = 0x130,
    EU_SET_DMA0_DST_REGION = 0x131, EU_SET_DMA0_SIZE0 = 0x132, EU_SET_DMA0_SIZE1 = 0x133,
    EU_SET_IFM2_BROADCAST = 0x180, EU_SET_IFM2_SCALAR = 0x181, EU_SET_IFM2_PRECISION = 0x185,
    EU_SET_IFM2_ZERO_POINT = 0x189, EU_SET_IFM2_WIDTH0_M1 = 0x18A, EU_SET_IFM2_HEIGHT0_M1 = 0x18B,
    EU_SET_IFM2_HEIGHT1_M1 = 0x18C, EU_SET_IFM2_IB_START = 0x18D, EU_SET_IFM2_REGION = 0x18F,
    /* cmd1 register settings (2.4) */
    EU_SET_IFM_BASE0 = 0x4000, EU_SET_IFM_BASE1 = 0x4001, EU_SET_IFM_BASE2 = 0x4002,
    EU_SET_IFM_BASE3 = 0x4003, EU_SET_IFM_STRIDE_X = 0x4004, EU_SET_IFM_STRIDE_Y = 0x4005,
    EU_SET_IFM_STRIDE_C = 0x4006, EU_SET_OFM_BASE0 = 0x4010, EU_SET_OFM_BASE1 = 0x4011,
    EU_SET_OFM_BASE2 = 0x4012, EU_SET_OFM_BASE3 = 0x4013, EU_SET_OFM_STRIDE_X = 0x4014,
    EU_SET_OFM_STRIDE_Y = 0x4015, EU_SET_OFM_STRIDE_C = 0x4016, EU_SET_WEIGHT_BASE = 0x4020,
    EU_SET_WEIGHT_LENGTH = 0x4021, EU_SET_SCALE_BASE = 0x4022, EU_SET_SCALE_LENGTH = 0x4023,
    EU_SET_OFM_SCALE = 0x4024, EU_SET_OPA_SCALE = 0x4025, EU_SET_OPB_SCALE = 0x4026,
    EU_SET_DMA0_SRC = 0x4030, EU_SET_DMA0_DST = 0x4031, EU_SET_DMA0_LEN = 0x4032,
    EU_SET_DMA0_SKIP0 = 0x4033, EU_SET_DMA0_SKIP1 = 0x4034, EU_SET_IFM2_BASE0 = 0x4080,
    EU_SET_IFM2_BASE1 = 0x4081, EU_SET_IFM2_BASE2 = 0x4082, EU_SET_IFM2_BASE3 = 0x4083,
    EU_SET_IFM2_STRIDE_X = 0x4084, EU_SET_IFM2_STRIDE_Y = 0x4085, EU_SET_IFM2_STRIDE_C = 0x4086,
    EU_SET_WEIGHT1_BASE = 0x4090, EU_SET_WEIGHT1_LENGTH = 0x4091, EU_SET_SCALE1_BASE = 0x4092,
    EU_SET_SCALE1_LENGTH = 0x4093, EU_SET_USER_DEFINED0 = 0x40A0, /* ..7 at 0x40A7 */
    EU_N_USER_DEFINED = 8
};

/* ----------------------------------------------------------- values */

typedef enum eu_pool_mode { EU_POOL_MAX, EU_POOL_AVERAGE, EU_POOL_REDUCE_SUM } eu_pool_mode;

typedef enum eu_elementwise_mode {
    EU_EW_MUL, EU_EW_ADD, EU_EW_SUB, EU_EW_MIN, EU_EW_MAX, EU_EW_LRELU, EU_EW_ABS, EU_EW_CLZ,
    EU_EW_SHR, EU_EW_SHL
} eu_elementwise_mode;
/* MUL..MAX and SHR/SHL take two operands; LRELU, ABS, CLZ one. */
static inline bool eu_ew_is_binary(unsigned mode) { return mode <= EU_EW_MAX || mode >= EU_EW_SHR; }

typedef enum eu_act_func {
    EU_ACT_NONE = 0, EU_ACT_TANH = 3, EU_ACT_SIGMOID = 4, EU_ACT_LUT0 = 16, EU_ACT_LUT7 = 23
} eu_act_func;
enum { EU_N_LUT_SLOTS = 8, EU_LUT_SLOT_BYTES = 256, EU_LUT_BANKS = 2 };

typedef enum eu_act_clip {
    EU_CLIP_OFM = 0, EU_CLIP_UINT8 = 2, EU_CLIP_INT8 = 3, EU_CLIP_INT16 = 5
} eu_act_clip;

typedef enum eu_round_mode { EU_ROUND_TFL, EU_ROUND_TRUNCATE, EU_ROUND_NATURAL } eu_round_mode;
typedef enum eu_fm_format { EU_FMT_NHWC, EU_FMT_NHCWB16 } eu_fm_format;
typedef enum eu_ifm_scale_mode {
    EU_IFM_SCALE_OPAB_16, EU_IFM_SCALE_OPA_32, EU_IFM_SCALE_OPB_32
} eu_ifm_scale_mode;
typedef enum eu_ofm_scale_mode { EU_OFM_SCALE_PER_CHANNEL, EU_OFM_SCALE_GLOBAL } eu_ofm_scale_mode;
typedef enum eu_upscale { EU_UPSCALE_NONE, EU_UPSCALE_NEAREST, EU_UPSCALE_ZEROS } eu_upscale;
typedef enum eu_acc_format { EU_ACC_INT32, EU_ACC_INT40, EU_ACC_FP_S5_10 } eu_acc_format;
typedef enum eu_weight_order { EU_DEPTH_FIRST, EU_PART_KERNEL_FIRST } eu_weight_order;
typedef enum eu_dma_stride_mode { EU_DMA_1D, EU_DMA_2D, EU_DMA_3D } eu_dma_stride_mode;

enum {
    EU_BLOCKDEP_MAX = 3,
    EU_SHRAM_BANK_BYTES = 1024,
    EU_SHRAM_OUTPUT_BANKS = 2,     /* banks 0-1: output buffers (1.2) */
    EU_WEIGHT_ALIGN = 16           /* weight/scale streams and their lengths (2.4) */
};

/* ----------------------------------------------------------- fields */

/* What a field is, across commands (IFM, IFM2 and OFM precision all have
 * EU_F_BITS, every *_REGION has EU_F_REGION, ...). A command with one
 * field calls it EU_F_VALUE. */
typedef enum eu_fid {
    EU_F_VALUE,
    /* *_PRECISION */
    EU_F_SIGNED, EU_F_BITS, EU_F_FORMAT, EU_F_SCALE_MODE, EU_F_ROUND,
    /* *_REGION, DMA0_*_REGION */
    EU_F_REGION, EU_F_INTERNAL, EU_F_STRIDE_MODE, EU_F_CUSTOM_DMA,
    /* KERNEL_STRIDE */
    EU_F_STRIDE_X, EU_F_STRIDE_Y, EU_F_DILATION_X, EU_F_DILATION_Y, EU_F_WEIGHT_ORDER,
    EU_F_DECOMPOSITION,
    /* ACTIVATION */
    EU_F_FUNCTION, EU_F_CLIP,
    /* IFM2_BROADCAST */
    EU_F_BCAST_H, EU_F_BCAST_W, EU_F_BCAST_C, EU_F_IFM2_FIRST, EU_F_SCALAR,
    /* OFM_SCALE, OPA_SCALE, OPB_SCALE */
    EU_F_SCALE, EU_F_SHIFT,
    EU_N_FIDS
} eu_fid;

/* Bit positions of the fields of structured registers (in the param). */
enum {
    EU_POS_SIGNED = 0, EU_POS_BITS = 2, EU_POS_OFM_BITS = 1, EU_POS_FORMAT = 6,
    EU_POS_SCALE_MODE = 8, EU_POS_ROUND = 14,
    EU_POS_REGION = 0, EU_REGION_BITS = 3, EU_POS_DMA_INTERNAL = 8, EU_POS_DMA_STRIDE_MODE = 9,
    EU_POS_CUSTOM_DMA = 15,
    EU_POS_STRIDE_X = 0, EU_POS_STRIDE_Y = 1, EU_POS_WEIGHT_ORDER = 2, EU_POS_DILATION_X = 3,
    EU_POS_DILATION_Y = 4, EU_POS_DECOMPOSITION = 5, EU_POS_STRIDE_X_HI = 6,
    EU_POS_STRIDE_Y_HI = 9,
    EU_POS_FUNCTION = 0, EU_POS_CLIP = 12,
    EU_POS_BCAST_H = 0, EU_POS_BCAST_W = 1, EU_POS_BCAST_C = 2, EU_POS_IFM2_FIRST = 6,
    EU_POS_SCALAR = 7,
    EU_POS_SHIFT = 32            /* OFM/OPA_SCALE: the shift in the cmd1 param */
};

/* Register fields read without the tables (the driver's region check). */
static inline unsigned eu_param_region(uint16_t param)
{
    return (param >> EU_POS_REGION) & ((1u << EU_REGION_BITS) - 1u);
}
static inline bool eu_param_dma_internal(uint16_t param) { return (param >> EU_POS_DMA_INTERNAL) & 1u; }
static inline bool eu_param_bcast_scalar(uint16_t param) { return (param >> EU_POS_SCALAR) & 1u; }

/* Where a command or a field (or one of its values) exists. */
enum { EU_AV_ALL = 0, EU_AV_U55 = 1, EU_AV_U65 = 2 };

/* How a field's raw bits become its value. */
enum {
    EU_K_UINT,     /* raw */
    EU_K_SINT,     /* raw sign-extended from its width */
    EU_K_M1,       /* raw + 1 */
    EU_K_BITS,     /* 8 << raw (precision bits) */
    EU_K_ADDR,     /* 40-bit address/length: bits 39:32 only on U65 */
    EU_K_STRIDE    /* 40-bit two's complement stride (bits 39:32 in the param);
                      on U55 a 32-bit one: bits 39:32 repeat bit 31 */
};

/* Field flags. */
enum {
    EU_FL_LIST = 1,        /* valid = one of values[] (else: raw <= max) */
    EU_FL_RANGE_MSG = 2,   /* out-of-range message names the range "0-max" */
    EU_FL_BANKS = 4,       /* max = the variant's SHRAM banks */
    EU_FL_CORES = 8,       /* max = the variant's cores - 1 */
    EU_FL_HEX = 16,        /* shown in hex (and decimal) */
    EU_FL_NUM = 32         /* shown as its value even though values[] names it */
};

/* Value flags. */
enum { EU_V_UNSUPPORTED = 1, EU_V_U55 = 2, EU_V_U65 = 4 };

typedef struct eu_value_name {
    uint16_t raw;
    uint8_t flags;           /* EU_V_* */
    const char *name;        /* "NHWC"; "" = nothing to show (a clear flag) */
} eu_value_name;

typedef struct eu_field {
    const char *name;        /* "round_mode": lookups, tests */
    const char *what;        /* "round mode": error messages */
    const char *label;       /* trace text before the value, with its separator: " round=" */
    uint8_t id;              /* eu_fid */
    uint8_t shift, width;    /* bits [shift + width - 1 : shift] of the operand */
    uint8_t shift_hi, width_hi;  /* second part above the first (width_hi 0: none) */
    uint8_t kind;            /* EU_K_* */
    uint8_t avail;           /* EU_AV_*: the field may be nonzero only there */
    uint8_t flags;           /* EU_FL_* */
    uint8_t align;           /* value must be a multiple of this (0: any) */
    uint8_t n_values;
    uint64_t max;            /* largest raw value (unless EU_FL_LIST/BANKS/CORES) */
    const eu_value_name *values;
} eu_field;

typedef struct eu_cmd_info {
    uint16_t code;
    uint8_t avail;           /* EU_AV_* */
    uint8_t n_fields;
    const char *name;        /* "NPU_SET_IFM_PRECISION" */
    const eu_field *fields;
} eu_cmd_info;

/* The table, sorted by code. */
extern const eu_cmd_info eu_cmds[];
extern const size_t eu_n_cmds;

/* The command with this code (word0 & 0xFFFF), or NULL. */
const eu_cmd_info *eu_cmd_find(uint16_t code);
/* Its name, or NULL if there is no such command. */
const char *eu_cmd_name(uint16_t code);
/* Whether a command exists on a variant. */
bool eu_cmd_available(const eu_cmd_info *c, eu_variant v);
/* NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE. */
bool eu_cmd_is_kernel_op(uint16_t code);

/* A command's field by id or by name, or NULL. */
const eu_field *eu_cmd_field(const eu_cmd_info *c, eu_fid id);
const eu_field *eu_cmd_field_named(const eu_cmd_info *c, const char *name);
/* The name of a raw value of a field (NULL: none), and the raw value of a
 * name (0, or -1 if none). */
const char *eu_field_value_name(const eu_field *f, uint64_t raw);
int eu_field_value_by_name(const eu_field *f, const char *name, uint64_t *raw);

/* Raw bits of a field in an operand, and the operand with them replaced
 * (raw is cut to the field's width). */
uint64_t eu_field_raw(const eu_field *f, uint64_t operand);
uint64_t eu_field_set_raw(const eu_field *f, uint64_t operand, uint64_t raw);
/* Raw -> value and value -> raw (cut to the width; no range check). */
int64_t eu_field_value(const eu_field *f, uint64_t raw);
uint64_t eu_field_encode(const eu_field *f, int64_t value);
/* Bits of the operand that no field of the command covers (must be 0). */
uint64_t eu_cmd_reserved_bits(const eu_cmd_info *c);

/* Why a field's raw value is not valid on a variant. */
typedef enum eu_check {
    EU_OK = 0,
    EU_BAD_RESERVED,          /* bits outside every field (eu_cmd_check only) */
    EU_BAD_FIELD_VARIANT,     /* a field of the other product is nonzero */
    EU_BAD_ADDR_HI,           /* address bits 39:32 set on a U55 */
    EU_BAD_STRIDE_HI,         /* stride bits 39:32 not bit 31's sign extension on a U55 */
    EU_BAD_RANGE,             /* raw > max (the variant's for EU_FL_BANKS/CORES) */
    EU_BAD_BANK,              /* SHRAM bank beyond the variant's banks */
    EU_BAD_VALUE,             /* not one of the listed values: reserved */
    EU_BAD_UNSUPPORTED,       /* listed, but not supported */
    EU_BAD_VALUE_VARIANT,     /* listed, for the other product only */
    EU_BAD_ALIGN              /* not a multiple of align */
} eu_check;

/* Largest valid raw value of a field on a variant (list fields: the
 * largest listed). */
uint64_t eu_field_max(const eu_field *f, eu_variant v);
eu_check eu_field_check(const eu_field *f, uint64_t raw, eu_variant v);

/* Checks a whole operand: reserved bits first, then each field in table
 * order. On failure *field is the field at fault (NULL for reserved bits)
 * and *raw its raw value (the reserved bits). The command's own
 * availability is eu_cmd_available's business. */
eu_check eu_cmd_check(const eu_cmd_info *c, uint64_t operand, eu_variant v, const eu_field **field,
                      uint64_t *raw);

/* ------------------------------------------------------------ packing */

/* One field value for eu_pack. */
typedef struct eu_fv {
    uint8_t id;              /* eu_fid */
    int64_t value;           /* the value (not raw): widths, strides, bits 8/16/32, ... */
} eu_fv;

/* The operand of command `code` with the given field values (fields not
 * named are 0 raw). Fields the command does not have are ignored; so is a
 * code that is no command (operand 0). */
uint64_t eu_pack(uint16_t code, size_t n, const eu_fv *fv);
#define EU_PACK(code, ...)                                                                   \
    eu_pack((code), sizeof((eu_fv[]){__VA_ARGS__}) / sizeof(eu_fv), (eu_fv[]){__VA_ARGS__})
/* A one-field command (EU_F_VALUE) from its value: eu_pack1(EU_SET_IFM_DEPTH_M1, 16) = 15. */
uint64_t eu_pack1(uint16_t code, int64_t value);
/* The value field of a one-field command (what eu_pack1 packs), NULL when
 * the command has none; and the operand of that command with value v:
 * eu_pack1(code, v) == eu_field_pack(eu_cmd_value_field(code), v), for a
 * writer that packs the same command many times. */
const eu_field *eu_cmd_value_field(uint16_t code);
static inline uint64_t eu_field_pack(const eu_field *f, int64_t value)
{
    if (!f->width_hi && f->kind != EU_K_BITS) {
        uint64_t m = f->width >= 64 ? ~0ull : (1ull << f->width) - 1;
        return ((uint64_t)(f->kind == EU_K_M1 ? value - 1 : value) & m) << f->shift;
    }
    return eu_field_set_raw(f, 0, eu_field_encode(f, value));
}
/* A field's value in an operand of command `code` (0 if it has no such
 * field). */
int64_t eu_unpack(uint16_t code, eu_fid id, uint64_t operand);

/* The operands of the structured registers. */
uint64_t eu_pack_precision(uint16_t code, bool is_signed, unsigned bits, unsigned format,
                           unsigned scale_mode, unsigned round);
uint64_t eu_pack_kernel_stride(unsigned stride_x, unsigned stride_y, unsigned dilation_x,
                               unsigned dilation_y, bool part_kernel_first);
uint64_t eu_pack_activation(unsigned function, unsigned clip);
uint64_t eu_pack_broadcast(bool h, bool w, bool c, bool ifm2_first, bool scalar);
uint64_t eu_pack_region(uint16_t code, unsigned region);
/* DMA0_SRC_REGION / DMA0_DST_REGION */
uint64_t eu_pack_dma_region(uint16_t code, unsigned region, bool internal, unsigned stride_mode);
/* OFM_SCALE, OPA_SCALE (scale + shift), OPB_SCALE (shift ignored) */
uint64_t eu_pack_scale(uint16_t code, uint32_t scale, unsigned shift);

#endif /* NPUC_ETHOSU_EU_CMD_H */
