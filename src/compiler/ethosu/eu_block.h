/* eu_block: block configuration and SHRAM layout of one NPU kernel
 * operation (docs/ethos-u.md 1.2): the OFM block the NPU works in, and where the
 * IFM, IFM2 and accumulator buffers sit in SHRAM. Host-only. */
#ifndef NPUC_EU_BLOCK_H
#define NPUC_EU_BLOCK_H

#include "util/util.h"
#include "sim/sim.h"

typedef struct eu_block_req {
    eu_variant variant;
    sim_op_kind kind;          /* SIM_K_CONV, _DEPTHWISE, _POOL, _ELEMENTWISE */
    uint8_t mode;              /* pool / elementwise mode (as in NPU_OP_*) */
    uint32_t ofm_w, ofm_h, ofm_d;
    uint32_t ifm_d;            /* IFM depth (conv: input channels) */
    uint32_t kernel_w, kernel_h;   /* dilated extents (KERNEL_*_M1 + 1); 1 for elementwise */
    uint8_t stride_x, stride_y;    /* 1..3 */
    bool upscale;              /* IFM_UPSCALE != 0 */
    uint8_t ifm_bits, ofm_bits;    /* 8, 16 or 32 */
    bool acc40;                /* ACC_FORMAT INT40 (16-bit IFM conv/depthwise) */
    bool ifm2_tensor;          /* binary elementwise with a tensor IFM2 */
    bool uses_lut;             /* ACTIVATION selects a LUT */
    bool part_kernel_first;    /* weight order (affects IFM block depth) */
    /* Storage formats (0 NHWC, 1 NHCWB16; zero = NHWC). Only the cycle
     * estimate uses them: the burst efficiency of IFM/OFM traffic depends on
     * the block shape differently per format. */
    uint8_t ifm_format, ofm_format;
    /* Nonzero: the block depth must be this (a legal one for the OFM): the
     * op's weight stream is already encoded for it (docs/ethos-u.md 6.2). */
    uint32_t fixed_d;
    /* Above 1: the weight stream (and scale records) come from a memory
     * this many times slower than the feature maps' (weights streamed from
     * flash), so blocks that re-read them cost more. 0 or 1: as fast. */
    double weight_cost;
    /* True: rank and price the blocks as if every operand were in SRAM
     * only (a U65 op whose feature maps its fast pool holds;
     * cc_reblock_placed), not also in the default system's DRAM arena.
     * Changes nothing where the arena is SRAM (U55). */
    bool sram_only;
} eu_block_req;

typedef struct eu_block {
    uint32_t w, h, d;          /* OFM block, multiples of the OFM micro-block */
    uint8_t ifm_ib_end;        /* NPU_SET_IFM_IB_END */
    uint8_t ifm2_ib_start;     /* NPU_SET_IFM2_IB_START (binary elementwise) */
    uint8_t ab_start;          /* NPU_SET_AB_START */
    uint8_t acc_format;        /* NPU_SET_ACC_FORMAT: 0 INT32, 1 INT40 */
    uint8_t lut_start_bank;    /* first LUT bank (LUT address = 1024 * bank) */
} eu_block;

/* Chooses the block configuration with the fewest estimated cycles among
 * those whose buffers fit the variant's SHRAM, following the rules of
 * docs/ethos-u.md 1.2 (block limits 64x32x128, micro-block multiples, depth a
 * multiple of 16 when smaller than the OFM depth, IFM/accumulator bank
 * granules, IB_END <= AB_START, LUT banks kept free). NPUC_E_UNSUPPORTED
 * when nothing fits. Fast: called once per op at compile time. */
int eu_block_choose(const eu_block_req *req, eu_block *out, npuc_err *err);

/* eu_block_choose, and in *cycles the chosen block's estimated cycles:
 * the simulator's per-operation cycles (sim_perf_estimate) summed over the
 * placements the choice weighs (everything in SRAM; on a U65 also
 * everything in the default system's DRAM arena). For weighing two forms
 * of one piece of work. */
int eu_block_choose_cycles(const eu_block_req *req, eu_block *out, uint64_t *cycles, npuc_err *err);

#endif
