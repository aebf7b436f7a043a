/* sim: the virtual Ethos-U55/U65 NPU (host room).
 *
 * This first layer decodes what the NPU reads:
 *   - the COP1 driver payload that Vela stores in the custom op's command
 *     stream tensor (sim_cop1_parse);
 *   - the command stream itself (sim_cmd_decode / sim_stream_decode), with
 *     field checks against the register tables, and a register-state tracker
 *     (sim_state_apply) that an executor snapshots at each NPU_OP_*;
 *   - the MLW weight stream (sim_mlw_decode), the weight traversal order
 *     (sim_weight_traverse) and the scale/bias stream (sim_scale_parse).
 * Facts: /work/shared/docs/ethos-u.md sections 2, 3, 6, 7, 9.1. See docs/sim.md.
 * Library code: never prints or exits; errors come back in npuc_err. */
#ifndef NPUC_SIM_H
#define NPUC_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "util/util.h"
#include "graph/graph.h"
#include "interp/interp.h"

/* ---------------------------------------------------------------- variants */

typedef enum sim_variant {
    SIM_U55_32, SIM_U55_64, SIM_U55_128, SIM_U55_256, SIM_U65_256, SIM_U65_512
} sim_variant;

const char *sim_variant_name(sim_variant v);          /* "U55-128", ... */
bool sim_variant_is_u65(sim_variant v);
unsigned sim_variant_shram_banks(sim_variant v);      /* 1 KiB banks per core */
unsigned sim_variant_ofm_ublock_depth(sim_variant v); /* 4 on U55-32, else 8 */
/* The CONFIG word Vela writes into COP1 for this variant (ethos-u.md 1.3). */
uint32_t sim_variant_config_word(sim_variant v);
/* Variant from a COP1 CONFIG word (product bit 28, macs_per_cc [3:0]). */
int sim_variant_from_config(uint32_t config, sim_variant *out, npuc_err *err);

/* ---------------------------------------------------------- COP1 payload */

#define SIM_COP1_MAGIC 0x31504F43u /* 'C','O','P','1' */

typedef struct sim_cop1 {
    bool has_config;          /* OPTIMIZER_CONFIG present */
    unsigned config_rel, config_patch;
    uint32_t config;          /* expected CONFIG register value */
    uint32_t id;              /* expected ID register value */
    unsigned n_nops;
    const uint8_t *stream;    /* points into the payload; NULL if none */
    size_t stream_size;       /* bytes (= words * 4) */
    size_t stream_offset;     /* byte offset of the stream in the payload */
} sim_cop1;

/* Parses the driver payload. Accepts exactly one COMMAND_STREAM (what Vela
 * emits); rejects bad magic, unknown / unsupported driver actions, an
 * OPTIMIZER_CONFIG version other than rel 0, truncation and a stream length
 * that runs past the payload. Errors name the payload byte offset. */
int sim_cop1_parse(const uint8_t *data, size_t size, sim_cop1 *out, npuc_err *err);

/* ------------------------------------------------------- command stream */

/* Command codes: the low 16 bits of a command's first word, i.e. opcode
 * [9:0] plus the control bits (0x4000 = cmd1, two words). */
enum {
    /* cmd0 operations */
    SIM_OP_STOP = 0x000, SIM_OP_IRQ = 0x001, SIM_OP_CONV = 0x002,
    SIM_OP_DEPTHWISE = 0x003, SIM_OP_POOL = 0x005, SIM_OP_ELEMENTWISE = 0x006,
    SIM_OP_DMA_START = 0x010, SIM_OP_DMA_WAIT = 0x011, SIM_OP_KERNEL_WAIT = 0x012,
    SIM_OP_PMU_MASK = 0x013,
    /* cmd0 register settings (param = value) */
    SIM_IFM_PAD_TOP = 0x100, SIM_IFM_PAD_LEFT = 0x101, SIM_IFM_PAD_RIGHT = 0x102,
    SIM_IFM_PAD_BOTTOM = 0x103, SIM_IFM_DEPTH_M1 = 0x104, SIM_IFM_PRECISION = 0x105,
    SIM_IFM_UPSCALE = 0x107, SIM_IFM_ZERO_POINT = 0x109, SIM_IFM_WIDTH0_M1 = 0x10A,
    SIM_IFM_HEIGHT0_M1 = 0x10B, SIM_IFM_HEIGHT1_M1 = 0x10C, SIM_IFM_IB_END = 0x10D,
    SIM_IFM_REGION = 0x10F, SIM_OFM_WIDTH_M1 = 0x111, SIM_OFM_HEIGHT_M1 = 0x112,
    SIM_OFM_DEPTH_M1 = 0x113, SIM_OFM_PRECISION = 0x114, SIM_OFM_BLK_WIDTH_M1 = 0x115,
    SIM_OFM_BLK_HEIGHT_M1 = 0x116, SIM_OFM_BLK_DEPTH_M1 = 0x117,
    SIM_OFM_ZERO_POINT = 0x118, SIM_OFM_WIDTH0_M1 = 0x11A, SIM_OFM_HEIGHT0_M1 = 0x11B,
    SIM_OFM_HEIGHT1_M1 = 0x11C, SIM_OFM_REGION = 0x11F, SIM_KERNEL_WIDTH_M1 = 0x120,
    SIM_KERNEL_HEIGHT_M1 = 0x121, SIM_KERNEL_STRIDE = 0x122, SIM_PARALLEL_MODE = 0x123,
    SIM_ACC_FORMAT = 0x124, SIM_ACTIVATION = 0x125, SIM_ACTIVATION_MIN = 0x126,
    SIM_ACTIVATION_MAX = 0x127, SIM_WEIGHT_REGION = 0x128, SIM_SCALE_REGION = 0x129,
    SIM_AB_START = 0x12D, SIM_BLOCKDEP = 0x12F, SIM_DMA0_SRC_REGION = 0x130,
    SIM_DMA0_DST_REGION = 0x131, SIM_DMA0_SIZE0 = 0x132, SIM_DMA0_SIZE1 = 0x133,
    SIM_IFM2_BROADCAST = 0x180, SIM_IFM2_SCALAR = 0x181, SIM_IFM2_PRECISION = 0x185,
    SIM_IFM2_ZERO_POINT = 0x189, SIM_IFM2_WIDTH0_M1 = 0x18A, SIM_IFM2_HEIGHT0_M1 = 0x18B,
    SIM_IFM2_HEIGHT1_M1 = 0x18C, SIM_IFM2_IB_START = 0x18D, SIM_IFM2_REGION = 0x18F,
    /* cmd1 register settings (payload = value) */
    SIM_IFM_BASE0 = 0x4000, SIM_IFM_BASE1 = 0x4001, SIM_IFM_BASE2 = 0x4002,
    SIM_IFM_BASE3 = 0x4003, SIM_IFM_STRIDE_X = 0x4004, SIM_IFM_STRIDE_Y = 0x4005,
    SIM_IFM_STRIDE_C = 0x4006, SIM_OFM_BASE0 = 0x4010, SIM_OFM_BASE1 = 0x4011,
    SIM_OFM_BASE2 = 0x4012, SIM_OFM_BASE3 = 0x4013, SIM_OFM_STRIDE_X = 0x4014,
    SIM_OFM_STRIDE_Y = 0x4015, SIM_OFM_STRIDE_C = 0x4016, SIM_WEIGHT_BASE = 0x4020,
    SIM_WEIGHT_LENGTH = 0x4021, SIM_SCALE_BASE = 0x4022, SIM_SCALE_LENGTH = 0x4023,
    SIM_OFM_SCALE = 0x4024, SIM_OPA_SCALE = 0x4025, SIM_OPB_SCALE = 0x4026,
    SIM_DMA0_SRC = 0x4030, SIM_DMA0_DST = 0x4031, SIM_DMA0_LEN = 0x4032,
    SIM_DMA0_SKIP0 = 0x4033, SIM_DMA0_SKIP1 = 0x4034, SIM_IFM2_BASE0 = 0x4080,
    SIM_IFM2_BASE1 = 0x4081, SIM_IFM2_BASE2 = 0x4082, SIM_IFM2_BASE3 = 0x4083,
    SIM_IFM2_STRIDE_X = 0x4084, SIM_IFM2_STRIDE_Y = 0x4085, SIM_IFM2_STRIDE_C = 0x4086,
    SIM_WEIGHT1_BASE = 0x4090, SIM_WEIGHT1_LENGTH = 0x4091, SIM_SCALE1_BASE = 0x4092,
    SIM_SCALE1_LENGTH = 0x4093, SIM_USER_DEFINED0 = 0x40A0 /* ..0x40A7 */
};

typedef struct sim_cmd {
    size_t offset;        /* byte offset of the command in the stream */
    uint32_t word0;       /* first word as read */
    uint32_t payload;     /* second word (cmd1 only, else 0) */
    bool is_cmd1;         /* two-word command */
    uint16_t code;        /* word0 & 0xFFFF: one of the SIM_* codes above */
    uint16_t opcode;      /* word0 & 0x3FF */
    uint16_t param;       /* word0 >> 16 */
    const char *name;     /* "NPU_SET_IFM_BASE0", "NPU_OP_CONV", ... */
} sim_cmd;

/* Name of a command code, or NULL if unknown. */
const char *sim_cmd_name(uint16_t code);
/* True for NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE. */
bool sim_cmd_is_kernel_op(uint16_t code);

/* Decodes and checks the command at byte `offset` of a stream of `size`
 * bytes (little-endian words; size and offset multiples of 4). On success
 * fills *cmd and returns 0; the next command is at offset + 4 or + 8.
 * Errors (NPUC_E_FORMAT) read "command stream byte 0x0148: NAME: why". */
int sim_cmd_decode(const uint8_t *stream, size_t size, size_t offset,
                   sim_variant variant, sim_cmd *cmd, npuc_err *err);

/* Decodes the whole stream into a malloc'd array (*cmds, caller frees).
 * The stream must end with NPU_OP_STOP as its last command. */
int sim_stream_decode(const uint8_t *stream, size_t size, sim_variant variant,
                      sim_cmd **cmds, size_t *n_cmds, npuc_err *err);

/* One human-readable line (no newline) for a command, e.g.
 *   0x0028  00004000 00000000  cmd1 NPU_SET_IFM_BASE0           0x00000000 (0)
 *   0x0074  00010105           cmd0 NPU_SET_IFM_PRECISION       s8 NHWC scale_mode=0 round=TFL
 * Returns the length snprintf would write. */
int sim_cmd_format(const sim_cmd *cmd, char *buf, size_t size);

/* ------------------------------------------------------- register state */

/* Feature-map descriptor (ethos-u.md 3.1). Raw *_M1 registers are stored
 * decoded (+1); raw precision and zero point are kept as written. */
typedef struct sim_fm {
    uint8_t region;           /* 0..7 */
    bool custom_dma;          /* U55 arch 1.1 region bit 15 */
    uint64_t base[4];         /* tile bases (40-bit on U65) */
    uint32_t width0, height0, height1;  /* tile geometry (+1) */
    uint64_t stride_x, stride_y, stride_c;
    uint16_t precision;       /* raw *_PRECISION param */
    bool is_signed;
    uint8_t bits;             /* 8, 16, 32 (64 rejected) */
    uint8_t format;           /* 0 NHWC, 1 NHCWB16 */
    uint8_t scale_mode;       /* IFM: 0/1/2 (OPA/OPB); OFM: 0 per-channel, 1 global */
    uint8_t round_mode;       /* 0 TFL, 1 TRUNCATE, 2 NATURAL */
    uint16_t zero_point_raw;  /* interpret with sim_fm_zero_point */
    uint32_t width, height, depth; /* OFM: all three; IFM: depth only (+1) */
    uint8_t ib;               /* IFM_IB_END / IFM2_IB_START bank */
} sim_fm;

/* Zero point as a signed value according to the descriptor's signedness. */
int32_t sim_fm_zero_point(const sim_fm *fm);

typedef struct sim_dma {
    uint16_t src_region_raw, dst_region_raw;
    uint8_t src_region, dst_region;     /* [2:0]: region or (internal dst) core mask */
    bool src_internal, dst_internal;    /* bit 8: SHRAM */
    uint8_t src_stride_mode, dst_stride_mode; /* 0 1D, 1 2D, 2 3D */
    uint64_t src, dst, len, skip0, skip1;
    uint16_t size0, size1;
} sim_dma;

typedef struct sim_state {
    sim_fm ifm, ifm2, ofm;
    /* padding / upscale */
    uint8_t pad_top, pad_left, pad_right, pad_bottom;
    uint8_t upscale;          /* 0 NONE, 1 NEAREST, 2 ZEROS */
    /* kernel */
    uint32_t kernel_width, kernel_height;   /* dilated extent (+1) */
    uint16_t kernel_stride_raw;
    uint8_t stride_x, stride_y;             /* 1..4 */
    uint8_t dilation_x, dilation_y;         /* 1 or 2 */
    bool part_kernel_first;
    bool decomp_4x4;
    uint8_t parallel_mode;
    /* OFM block and SHRAM */
    uint32_t blk_width, blk_height, blk_depth;  /* (+1) */
    uint8_t ab_start, blockdep, acc_format;
    /* weights / scales (index 1 = U65 second core) */
    uint8_t weight_region, scale_region;
    bool weight_custom_dma, scale_custom_dma;
    uint64_t weight_base[2], weight_length[2];
    uint64_t scale_base[2], scale_length[2];
    /* output stage */
    uint32_t ofm_scale; uint8_t ofm_shift;
    uint32_t opa_scale; uint8_t opa_shift;
    uint32_t opb_scale;
    uint16_t activation_raw;
    uint8_t act_func;         /* 0 none, 3 TANH, 4 SIGMOID, 16..23 LUT 0..7 */
    uint8_t act_clip;         /* [14:12] */
    int16_t act_min, act_max;
    /* IFM2 */
    uint16_t ifm2_broadcast_raw;
    bool bcast_h, bcast_w, bcast_c, ifm2_first, ifm2_scalar;
    uint16_t ifm2_scalar_raw;
    /* DMA */
    sim_dma dma;
    uint32_t user_defined[8];
    /* which command codes have been written since reset: bit (code & 0x3FF)
     * of written[cmd1 ? 1 : 0] */
    uint32_t written[2][32];
} sim_state;

/* Zeroes the state (reset values are undocumented; see ethos-u.md 2.1). */
void sim_state_reset(sim_state *s);
/* Applies one decoded register command (operations leave the state alone).
 * The command must come from sim_cmd_decode with the same variant. */
void sim_state_apply(sim_state *s, const sim_cmd *cmd, sim_variant variant);
bool sim_state_written(const sim_state *s, uint16_t code);

/* ---------------------------------------------------------- weights */

typedef struct sim_mlw_info {
    size_t n_weights;         /* decoded values */
    size_t n_slices, n_sections, n_end_markers;
    size_t end_byte;          /* byte offset just after the first end marker (aligned) */
} sim_mlw_info;

/* Decodes one MLW stream (ethos-u.md 6.3) into a malloc'd array of signed
 * 9-bit weights (*out, caller frees; may be NULL if zero weights). At most
 * max_weights values are produced (0 = 1 << 24). Errors (NPUC_E_FORMAT)
 * name the bit and byte offset and the slice. info may be NULL. */
int sim_mlw_decode(const uint8_t *data, size_t size, size_t max_weights,
                   int16_t **out, sim_mlw_info *info, npuc_err *err);

/* Weight traversal geometry of one CONV/DEPTHWISE op (ethos-u.md 6.2). */
typedef struct sim_wgeom {
    uint32_t ofm_depth;       /* O */
    uint32_t ifm_depth;       /* I (ignored for depthwise) */
    uint32_t kh, kw;          /* undilated kernel */
    uint32_t block_depth;     /* B */
    uint8_t dil_x, dil_y;
    uint8_t ifm_bits;         /* 8 or 16 */
    uint8_t ofm_ublock;       /* 4 or 8 */
    bool part_kernel_first, depthwise;
} sim_wgeom;

/* Geometry from the register state at an NPU_OP_CONV / NPU_OP_DEPTHWISE. */
int sim_wgeom_from_state(const sim_state *s, sim_variant variant, bool depthwise,
                         sim_wgeom *g, npuc_err *err);

/* Walks the hardware weight order. Returns the number of stream positions.
 * If map is non-NULL it receives, for each position p < map_size, the index
 * of the weight in W[o][ky][kx][i] (depthwise: W[o][ky][kx]) or -1 for a
 * zero padding slot. */
size_t sim_weight_traverse(const sim_wgeom *g, int64_t *map, size_t map_size);

/* One per-channel record of the scale/bias stream (ethos-u.md 7). */
typedef struct sim_scale_rec {
    int64_t bias;             /* 40-bit two's complement */
    uint32_t scale;
    uint8_t shift;            /* 0..63 */
} sim_scale_rec;

/* Parses n_channels 10-byte records from a stream of `size` bytes; bytes
 * after the records must be zero. Errors name the byte offset. */
int sim_scale_parse(const uint8_t *data, size_t size, size_t n_channels,
                    sim_scale_rec *out, npuc_err *err);


/* ------------------------------------------------------------- memory */

/* The NPU's view of memory: up to SIM_MAX_WINDOWS host buffers mapped at
 * bus addresses (what a driver writes into BASEPn is a bus address). Every
 * access an operation makes is checked to lie inside one window and inside
 * the region's size limit (base_addr_size in the driver API). */
#define SIM_MAX_WINDOWS 64

typedef struct sim_window {
    uint64_t bus;             /* bus address of byte 0 */
    uint8_t *host;            /* host memory */
    size_t size;              /* bytes */
    bool writable;
} sim_window;

/* ---------------------------------------------------- per-op record */

/* Kinds of work the executor reports (one record per NPU_OP_*). */
typedef enum sim_op_kind {
    SIM_K_CONV, SIM_K_DEPTHWISE, SIM_K_POOL, SIM_K_ELEMENTWISE, SIM_K_DMA
} sim_op_kind;

/* What one operation did, as the executor saw it; the cycle model works
 * from this alone. Byte counts are what the op's data needs (each feature
 * map element read once), per region. */
typedef struct sim_op_info {
    size_t cmd_index;         /* index of the NPU_OP_* command in the stream */
    size_t cmd_offset;        /* its byte offset */
    sim_op_kind kind;
    uint8_t mode;             /* pool mode 0..2 / elementwise mode 0..9 */
    /* geometry */
    uint32_t ofm_w, ofm_h, ofm_d;
    uint32_t ifm_w, ifm_h, ifm_d;     /* extent actually read (not upscaled) */
    uint32_t kernel_w, kernel_h;      /* undilated taps */
    uint8_t stride_x, stride_y, upscale;
    uint32_t blk_w, blk_h, blk_d;     /* OFM block */
    uint8_t ifm_bits, ifm2_bits, ofm_bits;
    uint8_t ifm_format, ofm_format;   /* 0 NHWC, 1 NHCWB16 */
    bool ifm2_tensor;                 /* binary elementwise with a tensor IFM2 */
    bool ifm2_broadcast;              /* some axis broadcast */
    uint8_t act_func;                 /* 0 clamp, 3 tanh, 4 sigmoid, 16+ LUT */
    uint8_t acc_bits;                 /* 32 or 40 */
    uint8_t blockdep;                 /* BLOCKDEP register at this op */
    uint8_t wait_kind;                /* wait preceding this op: 0 none, 1 DMA_WAIT, 2 KERNEL_WAIT */
    uint8_t wait_count;
    bool single_core;                 /* U65-512 in PARALLEL_MODE 0: one core's throughput */
    uint64_t macs;                    /* multiply-accumulates (conv/depthwise/pool taps) */
    /* traffic, bytes, per region 0..7 */
    uint8_t ifm_region, ifm2_region, ofm_region, weight_region, scale_region;
    uint64_t ifm_bytes, ifm2_bytes, ofm_bytes, weight_bytes, scale_bytes;
    /* DMA */
    uint8_t dma_src_region, dma_dst_region;   /* 0xFF = SHRAM */
    uint64_t dma_bytes;
    /* filled by the cycle model (sim_perf_estimate) */
    uint64_t cycles_compute, cycles_memory, cycles;   /* this op alone */
    uint64_t start, end;                              /* on the NPU timeline */
    uint64_t axi_read[2], axi_write[2];               /* bytes per AXI port */
} sim_op_info;

/* --------------------------------------------------- system / memory config */

/* Where memory sits and how fast it is, as the cycle model sees it (Vela's
 * model, ethos-u.md 1.4): one memory per AXI port, and region_port[r] says
 * which port region r uses. The target description fills it
 * (src/target/target.h: Vela's built-in system configs, JSON memory-pool
 * files, vela.ini, a compiled model's record). A zeroed sim_system, and NULL
 * wherever a function takes one, is ideal memory: every region on AXI0,
 * memory at the core clock and the full AXI width, 32-byte bursts, no
 * latency. */
typedef struct sim_memory {
    const char *name;         /* "Sram", "OffChipFlash", "Dram" (static strings) */
    double clock_scale;       /* memory clock = core clock * scale */
    unsigned burst_bytes;     /* burst length */
    unsigned read_latency, write_latency;   /* in memory clock cycles */
    unsigned width_bytes;     /* bytes per memory clock */
} sim_memory;

typedef struct sim_system {
    char name[64];            /* "Ethos_U55_High_End_Embedded", "custom", ... */
    double core_clock_hz;
    sim_memory axi[2];
    uint8_t region_port[8];   /* 0 or 1 */
} sim_system;

/* Fills the geometry, MAC and traffic fields of *info for the NPU_OP_*
 * command `op` (index cmd_index in its stream) from the register state at
 * that op. The wait fields describe the wait command(s) directly before it
 * and are filled by the caller. */
void sim_op_info_from_state(const sim_state *s, const sim_cmd *op, size_t cmd_index,
                            sim_variant v, sim_op_info *info);

/* Fills cycles_*, start/end and axi_* of every record, honouring waits and
 * BLOCKDEP (DMA overlapped with kernel ops as the waits allow), and returns
 * the total NPU cycles. */
uint64_t sim_perf_estimate(sim_variant v, const sim_system *sys,
                           sim_op_info *ops, size_t n_ops);


/* ------------------------------------------------ the NPU device (MMIO) */

/* Register offsets (ethos-u.md 9.4). */
enum {
    SIM_REG_ID = 0x000, SIM_REG_STATUS = 0x004, SIM_REG_CMD = 0x008, SIM_REG_RESET = 0x00C,
    SIM_REG_QBASE = 0x010, SIM_REG_QBASE_HI = 0x014, SIM_REG_QREAD = 0x018,
    SIM_REG_QCONFIG = 0x01C, SIM_REG_QSIZE = 0x020, SIM_REG_PROT = 0x024,
    SIM_REG_CONFIG = 0x028, SIM_REG_LOCK = 0x02C, SIM_REG_REGIONCFG = 0x03C,
    SIM_REG_AXI_LIMIT0 = 0x040, /* ..3 at 0x04C */
    SIM_REG_BASEP0 = 0x080,     /* BASEPn lo at 0x080 + 8n, hi at +4 */
    SIM_REG_PMCR = 0x180, SIM_REG_PMCNTENSET = 0x184, SIM_REG_PMCNTENCLR = 0x188,
    SIM_REG_PMOVSSET = 0x18C, SIM_REG_PMOVSCLR = 0x190, SIM_REG_PMINTSET = 0x194,
    SIM_REG_PMINTCLR = 0x198, SIM_REG_PMCCNTR_LO = 0x1A0, SIM_REG_PMCCNTR_HI = 0x1A4,
    SIM_REG_PMCCNTR_CFG = 0x1A8, SIM_REG_PMCAXI_CHAN = 0x1AC,
    SIM_REG_PMEVCNTR0 = 0x300,  /* ..3, +4 each */
    SIM_REG_PMEVTYPER0 = 0x380, /* ..3 */
    SIM_REG_SIZE = 0x1000
};

/* STATUS bits. */
enum {
    SIM_STATUS_STATE = 1u << 0, SIM_STATUS_IRQ_RAISED = 1u << 1,
    SIM_STATUS_BUS_STATUS = 1u << 2, SIM_STATUS_RESET = 1u << 3,
    SIM_STATUS_CMD_PARSE_ERROR = 1u << 4, SIM_STATUS_CMD_END_REACHED = 1u << 5,
    SIM_STATUS_PMU_IRQ = 1u << 6, SIM_STATUS_WD_FAULT = 1u << 7, SIM_STATUS_ECC_FAULT = 1u << 8
};

/* PMU event numbers the model counts (others read 0). */
enum {
    SIM_PMU_CYCLE = 17, SIM_PMU_NPU_IDLE = 32, SIM_PMU_NPU_ACTIVE = 35,
    SIM_PMU_MAC_ACTIVE = 48, SIM_PMU_MAC_ACTIVE_8BIT = 49, SIM_PMU_MAC_ACTIVE_16BIT = 50,
    SIM_PMU_AO_ACTIVE = 64, SIM_PMU_WD_ACTIVE = 80,
    SIM_PMU_AXI0_RD_BEAT = 130, SIM_PMU_AXI0_WR_BEAT = 135,
    SIM_PMU_AXI1_RD_BEAT = 386, SIM_PMU_AXI1_WR_BEAT = 391
};

typedef struct sim_npu sim_npu;

/* A virtual NPU of the given variant; sys NULL = ideal memory (above). */
int sim_npu_create(sim_variant v, const sim_system *sys, sim_npu **out, npuc_err *err);
void sim_npu_free(sim_npu *npu);
sim_variant sim_npu_variant(const sim_npu *npu);

/* Memory the NPU can reach: host buffer at a bus address. Windows may not
 * overlap. */
int sim_npu_map(sim_npu *npu, uint64_t bus, void *host, size_t size, bool writable,
                npuc_err *err);
void sim_npu_unmap_all(sim_npu *npu);

/* 32-bit register access at a byte offset (multiple of 4, < SIM_REG_SIZE).
 * Writing CMD bit 0 runs the command queue at QBASE/QSIZE to completion
 * (or the first error), updates STATUS/QREAD/PMU, then raises the IRQ. */
uint32_t sim_npu_read(sim_npu *npu, uint32_t offset);
void sim_npu_write(sim_npu *npu, uint32_t offset, uint32_t value);

/* Largest work (multiply-accumulates plus buffer elements) one operation may
 * take; bigger ones stop the run with cmd_parse_error and a message.
 * 0 restores the default (1e11). Fuzzers and services set it lower. */
void sim_npu_set_work_limit(sim_npu *npu, uint64_t max_work);

/* Interrupt line: called (from inside sim_npu_write) when the NPU raises
 * its IRQ: at NPU_OP_STOP, NPU_OP_IRQ, and on errors. */
void sim_npu_set_irq(sim_npu *npu, void (*fn)(void *user), void *user);
/* Trace: one sim_cmd_format line per executed command. */
void sim_npu_set_trace(sim_npu *npu, void (*fn)(void *user, const char *line), void *user);

/* Why the last run stopped with an error ("" if it did not): the command's
 * byte offset and the reason. */
const char *sim_npu_error(const sim_npu *npu);
/* The records of the last run's operations with their cycle estimates, and
 * the run's total cycles. */
const sim_op_info *sim_npu_ops(const sim_npu *npu, size_t *n);
uint64_t sim_npu_run_cycles(const sim_npu *npu);


/* --------------------------------------- running a Vela "ethos-u" op */


/* True for a CUSTOM op with custom code "ethos-u". */
bool sim_is_ethosu_op(const graph_op *op);

/* The NPU variant an ethos-u op's COP1 payload was compiled for. */
int sim_ethosu_op_variant(const graph *g, const graph_op *op, sim_variant *v, npuc_err *err);

/* Runs one ethos-u op as TFLite Micro + the Ethos-U driver would: checks
 * the payload's CONFIG against the NPU, places the op's tensors in one
 * arena at their OfflineMemoryAllocation offsets (scratch, scratch_fast,
 * inputs, outputs), maps flash/arena/payload into the NPU's memory, writes
 * QBASE/QSIZE/BASEP0..n, starts it through CMD and checks STATUS.
 * data[k] is the host memory of tensor op->in[k] (k < n_in), then
 * op->out[k - n_in]; inputs are read, outputs written. Errors carry the
 * NPU's message (command byte offset and reason). */
int sim_run_ethosu_op(sim_npu *npu, const graph *g, const graph_op *op, void *const *data,
                      npuc_err *err);

/* sim_run_ethosu_op for an op met by the reference interpreter's CUSTOM-op
 * hook (interp_options.custom_eval): its tensors are the interpreter's
 * (constants: their buffers). */
int sim_run_ethosu_interp(sim_npu *npu, interp *ip, const graph_op *op, npuc_err *err);

#endif
