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
 * Facts: docs/ethos-u.md sections 2, 3, 6, 7, 9.1; the encodings themselves
 * (registers, commands and their fields, variants, COP1) come from src/ethosu.
 * See docs/sim.md.
 * Library code: never prints or exits; errors come back in npuc_err. */
#ifndef NPUC_SIM_H
#define NPUC_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "ethosu/eu_cmd.h"
#include "ethosu/eu_cop1.h"
#include "ethosu/eu_regs.h"
#include "ethosu/eu_variant.h"
#include "util/util.h"

/* ---------------------------------------------------------------- variants */


/* Variant from a COP1 CONFIG word (eu_variant_from_config) with an error
 * that names the word. */
int sim_variant_from_config(uint32_t config, eu_variant *out, npuc_err *err);

/* ---------------------------------------------------------- COP1 payload */

/* The payload as the simulator sees it (parsed by eu_cop1_parse). */
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

/* Parses the driver payload (eu_cop1_parse). Accepts exactly one
 * COMMAND_STREAM (what Vela emits); rejects bad magic, unknown /
 * unsupported driver actions, an OPTIMIZER_CONFIG version other than rel 0,
 * truncation and a stream length that runs past the payload. Errors name
 * the payload byte offset. */
int sim_cop1_parse(const uint8_t *data, size_t size, sim_cop1 *out, npuc_err *err);

/* ------------------------------------------------------- command stream */


typedef struct sim_cmd {
    size_t offset;        /* byte offset of the command in the stream */
    uint32_t word0;       /* first word as read */
    uint32_t payload;     /* second word (cmd1 only, else 0) */
    bool is_cmd1;         /* two-word command */
    uint16_t code;        /* word0 & 0xFFFF: one of the EU_OP_* / EU_SET_* codes */
    uint16_t opcode;      /* word0 & 0x3FF */
    uint16_t param;       /* word0 >> 16 */
    const char *name;     /* "NPU_SET_IFM_BASE0", "NPU_OP_CONV", ... */
    const eu_cmd_info *info;  /* its row in the command table */
    uint64_t operand;     /* param (cmd0) or param << 32 | payload (cmd1) */
} sim_cmd;

/* Decodes and checks the command at byte `offset` of a stream of `size`
 * bytes (little-endian words; size and offset multiples of 4) against the
 * command table (every field of the command, for the variant). On success
 * fills *cmd and returns 0; the next command is at offset + 4 or + 8.
 * Errors (NPUC_E_FORMAT) read "command stream byte 0x0148: NAME: why". */
int sim_cmd_decode(const uint8_t *stream, size_t size, size_t offset,
                   eu_variant variant, sim_cmd *cmd, npuc_err *err);

/* Field checks remembered: a direct-mapped cache of (command code, operand)
 * pairs found valid, the code as control << 10 | opcode. Zero it before
 * first use. */
enum { SIM_CHECK_MEMO_SIZE = 1u << 13 };
typedef struct sim_check_memo {
    uint64_t operand[SIM_CHECK_MEMO_SIZE];
    uint16_t code1[SIM_CHECK_MEMO_SIZE];   /* the code + 1; 0: empty */
    eu_variant variant;       /* the variant the checks were made for */
} sim_check_memo;

/* sim_cmd_decode, with a command whose code and operand the memo holds
 * (found valid for the same variant) taken without checking its fields
 * again: what a stream generator that prices many similar streams pays.
 * The same result and errors. */
int sim_cmd_decode_memo(const uint8_t *stream, size_t size, size_t offset, eu_variant variant,
                        sim_cmd *cmd, sim_check_memo *memo, npuc_err *err);

/* Decodes the whole stream into a malloc'd array (*cmds, caller frees).
 * The stream must end with NPU_OP_STOP as its last command. */
int sim_stream_decode(const uint8_t *stream, size_t size, eu_variant variant,
                      sim_cmd **cmds, size_t *n_cmds, npuc_err *err);

/* One human-readable line (no newline) for a command, its fields shown as
 * the command table labels and names them, e.g.
 *   0x0028  00004000 00000000  cmd1 NPU_SET_IFM_BASE0           0x00000000 (0)
 *   0x0074  00010105           cmd0 NPU_SET_IFM_PRECISION       s8 NHWC scale_mode=0 round=TFL
 * Returns the length snprintf would write. */
int sim_cmd_format(const sim_cmd *cmd, char *buf, size_t size);

/* ------------------------------------------------------- register state */

/* Feature-map descriptor (docs/ethos-u.md 3.1). Raw *_M1 registers are stored
 * decoded (+1); raw precision and zero point are kept as written. */
typedef struct sim_fm {
    uint8_t region;           /* 0..7 */
    bool custom_dma;          /* U55 arch 1.1 region bit 15 */
    uint64_t base[4];         /* tile bases (40-bit on U65) */
    uint32_t width0, height0, height1;  /* tile geometry (+1) */
    int64_t stride_x, stride_y, stride_c;   /* bytes, signed (docs/ethos-u.md 4.1) */
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

/* Zeroes the state (reset values are undocumented; see docs/ethos-u.md 2.1). */
void sim_state_reset(sim_state *s);
/* Applies one decoded register command (operations leave the state alone).
 * The command must come from sim_cmd_decode with the same variant. */
void sim_state_apply(sim_state *s, const sim_cmd *cmd, eu_variant variant);
/* A one-field register command's value field (raw bits and value; zeros
 * for a command without one), as sim_state_apply reads it. */
typedef struct sim_cmd_value { uint64_t raw, value; } sim_cmd_value;
sim_cmd_value sim_cmd_value_of(const sim_cmd *cmd);
/* sim_state_apply with that value worked out before: for a caller that
 * applies one decoded command many times (the compiler's cycle estimate
 * keeps decoded commands). The same effect. */
void sim_state_apply_value(sim_state *s, const sim_cmd *cmd, sim_cmd_value v);
bool sim_state_written(const sim_state *s, uint16_t code);

/* ---------------------------------------------------------- weights */

typedef struct sim_mlw_info {
    size_t n_weights;         /* decoded values */
    size_t n_slices, n_sections, n_end_markers;
    size_t end_byte;          /* byte offset just after the first end marker (aligned) */
} sim_mlw_info;

/* Decodes one MLW stream (docs/ethos-u.md 6.3) into a malloc'd array of signed
 * 9-bit weights (*out, caller frees; may be NULL if zero weights). At most
 * max_weights values are produced (0 = 1 << 24). Errors (NPUC_E_FORMAT)
 * name the bit and byte offset and the slice. info may be NULL. */
int sim_mlw_decode(const uint8_t *data, size_t size, size_t max_weights,
                   int16_t **out, sim_mlw_info *info, npuc_err *err);

/* Weight traversal geometry of one CONV/DEPTHWISE op (docs/ethos-u.md 6.2). */
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
int sim_wgeom_from_state(const sim_state *s, eu_variant variant, bool depthwise,
                         sim_wgeom *g, npuc_err *err);

/* Walks the hardware weight order. Returns the number of stream positions.
 * If map is non-NULL it receives, for each position p < map_size, the index
 * of the weight in W[o][ky][kx][i] (depthwise: W[o][ky][kx]) or -1 for a
 * zero padding slot. */
size_t sim_weight_traverse(const sim_wgeom *g, int64_t *map, size_t map_size);

/* The weights in the hardware order: vals[p] = w[index of position p], 0
 * for a padding slot; vals has room for every position
 * (sim_weight_traverse(g, NULL, 0)). Returns their number. */
size_t sim_weight_gather(const sim_wgeom *g, const int16_t *w, int16_t *vals);

/* One per-channel record of the scale/bias stream (docs/ethos-u.md 7). */
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

/* The name of an NPU operation in reports and profiles: "CONV",
 * "DEPTHWISE", "MAX_POOL", "AVERAGE_POOL", "REDUCE_SUM", the elementwise
 * mode ("ADD", "LRELU", ...; the command table's names), "DMA". */
const char *sim_op_kind_name(sim_op_kind kind, unsigned mode);

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
    uint64_t cycles_port[2];  /* its traffic's time on each AXI port at the
                                 port's full bandwidth (alone: at most cycles) */
    uint64_t start, end;                              /* on the NPU timeline */
    uint64_t axi_read[2], axi_write[2];               /* bytes per AXI port */
} sim_op_info;

/* --------------------------------------------------- system / memory config */

/* Where memory sits and how fast it is, as the cycle model sees it (Vela's
 * model, docs/ethos-u.md 1.4): one memory per AXI port, and region_port[r] says
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
                            eu_variant v, sim_op_info *info);
/* Whether sim_op_info_from_state reads anything the register command
 * `code` sets (false: its value never changes a record, e.g. addresses,
 * strides, zero points, tile sizes, scales; test_sim_perf holds the two
 * together). A caller that only wants the records may skip the others. */
bool sim_op_info_reads(uint16_t code);
/* sim_op_info_reads inline, for a caller whose code is a constant (the
 * compiler's command generator, which notes per command what the cycle
 * estimate does with it: the switch folds away). The one definition:
 * sim_op_info_reads returns it. */
static inline bool sim_op_info_reads_code(uint16_t code)
{
    switch (code) {
    case EU_SET_IFM_PAD_TOP: case EU_SET_IFM_PAD_LEFT: case EU_SET_IFM_PAD_RIGHT: case EU_SET_IFM_PAD_BOTTOM:
    case EU_SET_IFM_DEPTH_M1: case EU_SET_IFM_PRECISION: case EU_SET_IFM_UPSCALE: case EU_SET_IFM_REGION:
    case EU_SET_OFM_WIDTH_M1: case EU_SET_OFM_HEIGHT_M1: case EU_SET_OFM_DEPTH_M1: case EU_SET_OFM_PRECISION:
    case EU_SET_OFM_BLK_WIDTH_M1: case EU_SET_OFM_BLK_HEIGHT_M1: case EU_SET_OFM_BLK_DEPTH_M1:
    case EU_SET_OFM_REGION: case EU_SET_KERNEL_WIDTH_M1: case EU_SET_KERNEL_HEIGHT_M1: case EU_SET_KERNEL_STRIDE:
    case EU_SET_PARALLEL_MODE: case EU_SET_ACC_FORMAT: case EU_SET_ACTIVATION: case EU_SET_WEIGHT_REGION:
    case EU_SET_SCALE_REGION: case EU_SET_BLOCKDEP: case EU_SET_DMA0_SRC_REGION: case EU_SET_DMA0_DST_REGION:
    case EU_SET_IFM2_BROADCAST: case EU_SET_IFM2_PRECISION: case EU_SET_IFM2_REGION:
    case EU_SET_WEIGHT_LENGTH: case EU_SET_SCALE_LENGTH: case EU_SET_WEIGHT1_LENGTH: case EU_SET_SCALE1_LENGTH:
    case EU_SET_DMA0_LEN:
        return true;
    default:
        return false;
    }
}

/* What the compiler's cycle estimate (src/compiler/cc.c, estimate) does
 * with a command, by its code: a register the op records read
 * (SIM_ROLE_REG), any other register or operation (SIM_ROLE_SKIP: checked,
 * not applied), a wait, a kernel op or DMA start (an op record), the stop.
 * Inline for the same reason as sim_op_info_reads_code; the kernel ops are
 * eu_cmd_is_kernel_op's (test_cc_gen_segs holds them together). */
enum { SIM_ROLE_REG, SIM_ROLE_SKIP, SIM_ROLE_WAIT, SIM_ROLE_OP, SIM_ROLE_STOP };
static inline uint8_t sim_cmd_role(uint16_t code)
{
    if (code == EU_OP_DMA_WAIT || code == EU_OP_KERNEL_WAIT) return SIM_ROLE_WAIT;
    if (code == EU_OP_CONV || code == EU_OP_DEPTHWISE || code == EU_OP_POOL || code == EU_OP_ELEMENTWISE ||
        code == EU_OP_DMA_START)
        return SIM_ROLE_OP;
    if (code == EU_OP_STOP) return SIM_ROLE_STOP;
    return sim_op_info_reads_code(code) ? SIM_ROLE_REG : SIM_ROLE_SKIP;
}

/* Bytes of a w x h x d feature map of `bits`-bit elements as stored
 * (format EU_FMT_NHCWB16 rounds the depth up to 16), and the IFM extent
 * along one axis that an OFM extent reads (docs/ethos-u.md 5.2, in IFM
 * units when upscaled): the cycle model's own, for the compiler's records. */
uint64_t sim_fm_bytes(uint32_t w, uint32_t h, uint32_t d, uint8_t bits, uint8_t format);
uint32_t sim_ifm_extent(uint32_t ofm, unsigned stride, uint32_t kdil, unsigned pad_a, unsigned pad_b,
                        uint8_t upscale);

/* Fills cycles_*, start/end and axi_* of every record, honouring waits and
 * BLOCKDEP (DMA overlapped with kernel ops as the waits allow), and returns
 * the total NPU cycles. */
uint64_t sim_perf_estimate(eu_variant v, const sim_system *sys,
                           sim_op_info *ops, size_t n_ops);

/* Each op's own figures worked out by sim_perf_estimate_memo calls: a
 * function of the op's record without its place in the stream (as within
 * one call), of the variant and of the system; a caller that estimates
 * streams of the same ops again and again (the compiler's schedule search)
 * keeps one across calls. */
typedef struct sim_perf_memo sim_perf_memo;
sim_perf_memo *sim_perf_memo_new(void);
void sim_perf_memo_free(sim_perf_memo *pm);
/* sim_perf_estimate, each record's figures from pm when an earlier call
 * (or op) worked them out for the same variant and system (pm NULL: as
 * sim_perf_estimate).
 * The same figures, so the same total. */
uint64_t sim_perf_estimate_memo(eu_variant v, const sim_system *sys, sim_op_info *ops, size_t n_ops,
                                sim_perf_memo *pm);
/* sim_perf_estimate_memo with a hint per op (hint NULL: none): hint[i]
 * in, a record of pm that op i's may be (an index + 1 this function gave
 * before; 0: none), compared byte for byte before it is taken (a wrong
 * hint costs the comparison); out, the record op i's figures are kept
 * under (0: none). A caller that knows which op of an earlier stream an
 * op repeats saves the look-up. The same figures, so the same total. */
uint64_t sim_perf_estimate_hint(eu_variant v, const sim_system *sys, sim_op_info *ops, size_t n_ops,
                                sim_perf_memo *pm, uint32_t *hint);


/* ------------------------------------------------ the NPU device (MMIO) */


typedef struct sim_npu sim_npu;

/* A virtual NPU of the given variant; sys NULL = ideal memory (above). */
int sim_npu_create(eu_variant v, const sim_system *sys, sim_npu **out, npuc_err *err);
void sim_npu_free(sim_npu *npu);
eu_variant sim_npu_variant(const sim_npu *npu);

/* Memory the NPU can reach: host buffer at a bus address. Windows may not
 * overlap. */
int sim_npu_map(sim_npu *npu, uint64_t bus, void *host, size_t size, bool writable,
                npuc_err *err);
void sim_npu_unmap_all(sim_npu *npu);

/* 32-bit register access at a byte offset (multiple of 4, < EU_REG_SIZE).
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


#endif
