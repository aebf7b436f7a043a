/* sim: the virtual NPU's cycle and traffic model.
 *
 * Two parts (the system configs, Vela's vela.ini, are the target
 * description's: src/target; this model takes a sim_system):
 *   - op records: geometry, MACs and bytes of one NPU_OP_* from the register
 *     state (sim_op_info_from_state);
 *   - the estimate: per-op compute cycles from the MAC array and the OFM
 *     block, memory cycles from the traffic on each AXI port, and a timeline
 *     with one kernel pipeline and one DMA channel that honours DMA_WAIT,
 *     KERNEL_WAIT and BLOCKDEP (sim_perf_estimate).
 * The per-op formulas follow the structure of Vela's performance model
 * (npu_performance.py: block-based DPU/output cycles, minimum memory cycles
 * per block, burst efficiency, mem-to-mem DMA cost) and its constants
 * (docs/ethos-u.md 1.1, 1.6). See docs/sim.md, "Cycle and traffic model". */
#include "sim/sim.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ variant tables */

typedef struct perf_arch {
    unsigned ub_w, ub_h, ub_d;    /* OFM micro-block */
    unsigned iub_d;               /* IFM micro-block depth */
    unsigned ncores;
    unsigned axi_bytes;           /* AXI data width */
    unsigned max_dma;             /* DMA jobs the queue holds */
    bool u55_32, u55_64_128;
    double out_cpe[8], act_cpe[3];
} perf_arch;

static perf_arch arch_of(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    perf_arch a;
    memset(&a, 0, sizeof a);
    a.ub_w = r->ofm_ublock[0];
    a.ub_h = r->ofm_ublock[1];
    a.ub_d = r->ofm_ublock[2];
    a.iub_d = r->ifm_ublock[2];
    a.ncores = r->cores;
    a.axi_bytes = r->axi_bits / 8u;
    a.max_dma = r->max_dma;
    /* Vela's accumulator-delay classes */
    a.u55_32 = r->product == EU_PRODUCT_U55 && r->macs == 32;
    a.u55_64_128 = r->product == EU_PRODUCT_U55 && (r->macs == 64 || r->macs == 128);
    memcpy(a.out_cpe, r->out_cpe, sizeof a.out_cpe);
    memcpy(a.act_cpe, r->act_cpe, sizeof a.act_cpe);
    return a;
}

/* The single-core variant with one core of v (v itself if it has one):
 * the same product with the MACs of one core. */
static eu_variant one_core(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    for (int i = 0; r->cores > 1 && i < EU_N_VARIANTS; i++) {
        const eu_variant_info *o = eu_variant_get((eu_variant)i);
        if (o->cores == 1 && o->product == r->product && o->macs == r->macs / r->cores)
            return (eu_variant)i;
    }
    return v;
}

/* ------------------------------------------------------------ op records */

/* Rounding of non-negative values without libm (the sim library is linked
 * after -lm in some link lines). */
static double floor_nn(double x) { return x <= 0 ? 0 : (double)(uint64_t)x; }
static double ceil_nn(double x)
{
    double f = floor_nn(x);
    return f < x ? f + 1 : f;
}

static uint64_t round_up64(uint64_t x, uint64_t q) { return (x + q - 1) / q * q; }
static uint64_t div_up64(uint64_t x, uint64_t q) { return (x + q - 1) / q; }
static uint32_t min32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t max32(uint32_t a, uint32_t b) { return a > b ? a : b; }

uint64_t sim_fm_bytes(uint32_t w, uint32_t h, uint32_t d, uint8_t bits, uint8_t format)
{
    uint64_t dd = format == EU_FMT_NHCWB16 ? round_up64(d, 16) : d;
    return (uint64_t)w * h * dd * (bits ? bits / 8u : 1u);
}

uint32_t sim_ifm_extent(uint32_t ofm, unsigned stride, uint32_t kdil, unsigned pad_a, unsigned pad_b,
                        uint8_t upscale)
{
    int64_t u = (int64_t)(ofm ? ofm - 1 : 0) * stride + kdil - pad_a - pad_b;
    if (u < 1) u = 1;
    if (upscale) u = (u + 1) / 2;
    return (uint32_t)u;
}

/* The registers whose fields sim_op_info_from_state (below) reads: keep
 * the two in step (test_sim_perf: test_op_info_reads). */
bool sim_op_info_reads(uint16_t code) { return sim_op_info_reads_code(code); }

void sim_op_info_from_state(const sim_state *s, const sim_cmd *op, size_t cmd_index,
                            eu_variant v, sim_op_info *info)
{
    /* a new register read here goes into sim_op_info_reads too */
    memset(info, 0, sizeof *info);
    info->single_core = eu_variant_get(v)->cores > 1 && !s->parallel_mode;
    info->cmd_index = cmd_index;
    info->cmd_offset = op->offset;
    info->blockdep = s->blockdep;
    info->dma_src_region = info->dma_dst_region = 0xFF;
    switch (op->code) {
    case EU_OP_CONV: info->kind = SIM_K_CONV; break;
    case EU_OP_DEPTHWISE: info->kind = SIM_K_DEPTHWISE; break;
    case EU_OP_POOL: info->kind = SIM_K_POOL; info->mode = (uint8_t)eu_unpack(op->code, EU_F_VALUE, op->operand); break;
    case EU_OP_ELEMENTWISE: info->kind = SIM_K_ELEMENTWISE; info->mode = (uint8_t)eu_unpack(op->code, EU_F_VALUE, op->operand); break;
    default: {
        /* NPU_OP_DMA_START (anything else gives an empty DMA record) */
        info->kind = SIM_K_DMA;
        if (op->code != EU_OP_DMA_START) return;
        const sim_dma *d = &s->dma;
        info->dma_src_region = d->src_internal ? 0xFF : d->src_region;
        info->dma_dst_region = d->dst_internal ? 0xFF : d->dst_region;
        info->dma_bytes = d->len;
        return;
    }
    }
    bool ew = info->kind == SIM_K_ELEMENTWISE;
    info->ofm_w = max32(s->ofm.width, 1);
    info->ofm_h = max32(s->ofm.height, 1);
    info->ofm_d = max32(s->ofm.depth, 1);
    info->ifm_bits = s->ifm.bits ? s->ifm.bits : 8;
    info->ofm_bits = s->ofm.bits ? s->ofm.bits : 8;
    info->ifm_format = s->ifm.format;
    info->ofm_format = s->ofm.format;
    info->ifm_region = s->ifm.region;
    info->ofm_region = s->ofm.region;
    info->act_func = s->act_func;
    info->acc_bits = s->acc_format == EU_ACC_INT40 ? 40 : 32;
    info->blk_w = s->blk_width ? s->blk_width : min32(info->ofm_w, 64);
    info->blk_h = s->blk_height ? s->blk_height : min32(info->ofm_h, 32);
    info->blk_d = s->blk_depth ? s->blk_depth : min32(info->ofm_d, 128);
    if (ew) {
        /* no kernel registers: IFM and OFM have the same shape */
        info->kernel_w = info->kernel_h = 1;
        info->stride_x = info->stride_y = 1;
        info->ifm_w = info->ofm_w;
        info->ifm_h = info->ofm_h;
        info->ifm_d = info->ofm_d;
        if (eu_ew_is_binary(info->mode) && !s->ifm2_scalar) {
            info->ifm2_tensor = true;
            info->ifm2_broadcast = s->bcast_h || s->bcast_w || s->bcast_c;
            info->ifm2_bits = s->ifm2.bits ? s->ifm2.bits : info->ifm_bits;
            info->ifm2_region = s->ifm2.region;
            info->ifm2_bytes = sim_fm_bytes(s->bcast_w ? 1 : info->ofm_w, s->bcast_h ? 1 : info->ofm_h,
                                        s->bcast_c ? 1 : info->ofm_d, info->ifm2_bits,
                                        s->ifm2.format);
        } else if (eu_ew_is_binary(info->mode)) {
            info->ifm2_bits = s->ifm2.bits ? s->ifm2.bits : info->ifm_bits;
        }
    } else {
        uint32_t kwd = max32(s->kernel_width, 1), khd = max32(s->kernel_height, 1);
        unsigned dx = s->dilation_x ? s->dilation_x : 1, dy = s->dilation_y ? s->dilation_y : 1;
        info->kernel_w = (kwd - 1) / dx + 1;
        info->kernel_h = (khd - 1) / dy + 1;
        info->stride_x = s->stride_x ? s->stride_x : 1;
        info->stride_y = s->stride_y ? s->stride_y : 1;
        info->upscale = s->upscale;
        info->ifm_w = sim_ifm_extent(info->ofm_w, info->stride_x, kwd, s->pad_left, s->pad_right, s->upscale);
        info->ifm_h = sim_ifm_extent(info->ofm_h, info->stride_y, khd, s->pad_top, s->pad_bottom, s->upscale);
        info->ifm_d = max32(s->ifm.depth, 1);
    }
    uint64_t ofm_elems = (uint64_t)info->ofm_w * info->ofm_h * info->ofm_d;
    uint64_t taps = (uint64_t)info->kernel_w * info->kernel_h;
    switch (info->kind) {
    case SIM_K_CONV: info->macs = ofm_elems * info->ifm_d * taps; break;
    case SIM_K_DEPTHWISE: info->macs = ofm_elems * taps; break;
    case SIM_K_POOL:
        /* REDUCE_SUM also sums over the IFM channels */
        info->macs = ofm_elems * taps * (info->mode == EU_POOL_REDUCE_SUM ? info->ifm_d : 1);
        break;
    default: break;
    }
    info->ifm_bytes = sim_fm_bytes(info->ifm_w, info->ifm_h, info->ifm_d, info->ifm_bits, info->ifm_format);
    info->ofm_bytes = sim_fm_bytes(info->ofm_w, info->ofm_h, info->ofm_d, info->ofm_bits, info->ofm_format);
    if (info->kind == SIM_K_CONV || info->kind == SIM_K_DEPTHWISE) {
        info->weight_region = s->weight_region;
        info->scale_region = s->scale_region;
        info->weight_bytes = s->weight_length[0] + s->weight_length[1];
        info->scale_bytes = s->scale_length[0] + s->scale_length[1];
    }
}

/* ----------------------------------------------------------- the model */

enum { BT_CONV, BT_DW, BT_POOL, BT_RSUM, BT_EW };

typedef struct shp { uint64_t w, h, d; } shp;

static shp shp_min(shp a, shp b)
{
    shp r = {a.w < b.w ? a.w : b.w, a.h < b.h ? a.h : b.h, a.d < b.d ? a.d : b.d};
    return r;
}
static uint64_t shp_elems(shp a) { return a.w * a.h * a.d; }

/* Everything the per-op formulas need, derived from one record. */
typedef struct kq {
    int bt;
    shp ifm, ofm, ifm2, oblk, iblk;
    unsigned kw, kh;
    bool partkernel, acc40, has_bias;
    unsigned ifm_bits, ofm_bits, ifm2_bits;
    uint8_t ifm_fmt, ofm_fmt;
    int ifm_port, ifm2_port, ofm_port, w_port, s_port;
} kq;

/* Per-port memory characteristics in core cycles. */
typedef struct port_perf {
    double bw;                /* bytes per core cycle */
    double rlat, wlat;        /* core cycles */
    double burst;             /* bytes */
} port_perf;

typedef struct perf_ctx {
    perf_arch a;
    port_perf port[2];
    port_perf shram;
    const sim_system *sys;
} perf_ctx;

static int port_of(const perf_ctx *c, uint8_t region)
{
    return c->sys->region_port[region & 7] ? 1 : 0;
}

/* Vela's choice between depth-first and part-kernel-first weight order
 * (the record does not carry the KERNEL_STRIDE bit; for Vela streams this
 * reproduces it). */
static bool choose_partkernel(uint64_t ifm_d, unsigned bits, unsigned kelems)
{
    if (ifm_d <= 8) return true;
    double depth_util = (double)ifm_d / (double)round_up64(ifm_d, bits == 8 ? 32 : 16);
    double part_util = (double)ifm_d * kelems /
                       ((double)round_up64(ifm_d, 8) * (double)round_up64(kelems, bits == 8 ? 4 : 2));
    return part_util > depth_util;
}

static kq make_query(const perf_ctx *c, const sim_op_info *o)
{
    kq q;
    memset(&q, 0, sizeof q);
    switch (o->kind) {
    case SIM_K_CONV: q.bt = BT_CONV; break;
    case SIM_K_DEPTHWISE: q.bt = BT_DW; break;
    case SIM_K_POOL: q.bt = o->mode == EU_POOL_REDUCE_SUM ? BT_RSUM : BT_POOL; break;
    default: q.bt = BT_EW; break;
    }
    q.ifm = (shp){o->ifm_w, o->ifm_h, o->ifm_d};
    q.ofm = (shp){o->ofm_w, o->ofm_h, o->ofm_d};
    q.oblk = (shp){max32(o->blk_w, 1), max32(o->blk_h, 1), max32(o->blk_d, 1)};
    q.kw = max32(o->kernel_w, 1);
    q.kh = max32(o->kernel_h, 1);
    q.ifm_bits = o->ifm_bits ? o->ifm_bits : 8;
    q.ofm_bits = o->ofm_bits ? o->ofm_bits : 8;
    q.ifm2_bits = o->ifm2_bits ? o->ifm2_bits : q.ifm_bits;
    q.ifm_fmt = o->ifm_format;
    q.ofm_fmt = o->ofm_format;
    q.acc40 = o->acc_bits == 40;
    q.has_bias = q.bt == BT_CONV || q.bt == BT_DW;
    q.partkernel = q.bt == BT_CONV && choose_partkernel(o->ifm_d, q.ifm_bits, q.kw * q.kh);
    q.ifm_port = port_of(c, o->ifm_region);
    q.ofm_port = port_of(c, o->ofm_region);
    q.ifm2_port = port_of(c, o->ifm2_region);
    q.w_port = port_of(c, o->weight_region);
    q.s_port = port_of(c, o->scale_region);
    if (o->ifm2_tensor) {
        /* IFM2 size from its byte count: broadcast axes are 1 */
        uint64_t per = (uint64_t)(o->ifm2_bits ? o->ifm2_bits / 8 : 1);
        uint64_t full = (uint64_t)o->ofm_w * o->ofm_h * o->ofm_d;
        uint64_t e = per ? o->ifm2_bytes / per : full;
        q.ifm2 = e >= full ? q.ofm : (shp){1, 1, e ? e : 1};
    }
    /* IFM block that feeds the OFM block (kernel capped at the 8×8
     * sub-kernel, rounded to the micro-block) */
    unsigned up = o->upscale ? 2 : 1;
    uint64_t bw = div_up64((q.oblk.w - 1) * max32(o->stride_x, 1) + min32(q.kw, 8), up);
    uint64_t bh = div_up64((q.oblk.h - 1) * max32(o->stride_y, 1) + min32(q.kh, 8), up);
    q.iblk.w = round_up64(bw, c->a.ub_w);
    q.iblk.h = round_up64(bh, c->a.ub_h);
    if (q.bt == BT_CONV || q.bt == BT_RSUM) {
        /* Vela's IFM block depth: 16 for 16-bit, else 16 (part-kernel)
         * or 32 channels, capped by the IFM depth */
        uint64_t cap = q.ifm_bits == 16 || q.partkernel ? 16 : 32;
        uint64_t d = q.ifm.d < cap ? q.ifm.d : cap;
        q.iblk.d = round_up64(d, q.ifm_bits == 16 ? 4 : c->a.iub_d);
    } else {
        q.iblk.d = q.oblk.d;
    }
    return q;
}

/* Bytes moved for `bytes` of useful data, given the burst the access
 * pattern allows (Vela's transfer-efficiency estimate). */
static double burst_scaled(const perf_ctx *c, const port_perf *p, bool read, uint8_t fmt,
                           unsigned bits, shp blk, shp shape, double bytes)
{
    double burst_bits;
    if (fmt == EU_FMT_NHCWB16) {
        double cstride = (double)bits * 16 * (double)shape.w / 8;
        if (cstride == (double)blk.d) burst_bits = (double)bits * blk.d * blk.w;
        else if (read) burst_bits = 16.0 * bits * blk.w;
        else burst_bits = 16.0 * bits * blk.w * c->a.ncores;
    } else {
        double zstride = bits / 8.0;
        if (read) {
            burst_bits = zstride == (double)blk.d ? (double)bits * blk.d * blk.w : (double)bits * blk.d;
        } else if (blk.d <= 16 && zstride == (double)blk.d) {
            burst_bits = (double)bits * blk.d * blk.w;
        } else {
            burst_bits = 64.0 * 8;
            if (16.0 * bits * c->a.ncores < burst_bits) burst_bits = 16.0 * bits * c->a.ncores;
            if ((double)blk.d * bits < burst_bits) burst_bits = (double)blk.d * bits;
        }
    }
    double burst = floor_nn(burst_bits / 8);
    if (burst < 1) burst = 1;
    if (burst > p->burst) burst = p->burst;
    return bytes * (p->burst / burst);
}

/* Latency plus transfer of the first IFM block and of one OFM block. */
static void min_block_mem_cycles(const perf_ctx *c, const kq *q, double *ifm_c, double *ofm_c)
{
    const port_perf *pi = &c->port[q->ifm_port], *po = &c->port[q->ofm_port];
    double ie = (double)shp_elems(shp_min(q->ifm, q->iblk));
    double oe = (double)shp_elems(shp_min(q->ofm, q->oblk));
    *ifm_c = pi->rlat + burst_scaled(c, pi, true, q->ifm_fmt, q->ifm_bits, q->iblk, q->ifm, ie) / pi->bw;
    *ofm_c = po->wlat + burst_scaled(c, po, false, q->ofm_fmt, q->ofm_bits, q->oblk, q->ofm, oe) / po->bw;
}

static double out_cycles_per_elem(const perf_ctx *c, const kq *q, const sim_op_info *o)
{
    int idx;
    bool ew = q->bt == BT_EW;
    if (ew && q->ifm_bits == 32) idx = eu_ew_is_binary(o->mode) ? 0 : 1;
    else if (ew && o->mode == EU_EW_MUL && q->ofm_bits == 32) idx = 2;
    else if ((ew && o->mode == EU_EW_MUL) || (!ew && q->acc40)) idx = 3;
    else if (ew && (o->mode == EU_EW_ADD || o->mode == EU_EW_SUB)) idx = 5;
    else if (q->bt == BT_POOL && o->mode == EU_POOL_MAX) idx = 6;
    else idx = 7;
    int aidx = (o->act_func == EU_ACT_TANH || o->act_func == EU_ACT_SIGMOID || o->act_func >= EU_ACT_LUT0) ? 0 : 2;
    double cpe = c->a.out_cpe[idx];
    if (c->a.act_cpe[aidx] > cpe) cpe = c->a.act_cpe[aidx];
    if (ew) {
        double blk = (double)shp_elems(q->oblk), ic, oc;
        min_block_mem_cycles(c, q, &ic, &oc);
        double cmd = (ic + oc + cpe * blk) / 4;
        if (cmd / blk > cpe) cpe = cmd / blk;
    }
    return cpe;
}

/* Compute cycles of a conv/depthwise/pool op; *tail receives the part that
 * does not overlap (the last block's drain). */
static double conv_cycles(const perf_ctx *c, const kq *q, const sim_op_info *o, double *tail)
{
    const perf_arch *a = &c->a;
    shp iblk = shp_min(q->ifm, q->iblk), oblk = shp_min(q->ofm, q->oblk);
    unsigned ub_w = a->ub_w, ub_h = a->ub_h, ub_d = a->ub_d;
    if (a->ub_h == 2 && (q->bt == BT_CONV || q->bt == BT_DW) && q->ofm.h == 1 &&
        q->ofm.w % 2 == 0 && q->kh == 1) {
        ub_w = 4; ub_h = 1;   /* 1D micro-block */
        oblk.h = 1;
    }
    uint64_t nx = div_up64(oblk.w, ub_w), ny = div_up64(oblk.h, ub_h), nz = div_up64(oblk.d, ub_d);
    uint64_t nxy = nx * ny;
    double wb = 32.0 * ub_d / 8;
    double dpu = 0;
    uint64_t iz = div_up64(iblk.d, 8);
    for (unsigned sy = 0; sy < q->kh; sy += 8)
        for (unsigned sx = 0; sx < q->kw; sx += 8) {
            unsigned elems = min32(8, q->kh - sy) * min32(8, q->kw - sx);
            double cyc;
            uint64_t steps;
            if (q->bt == BT_POOL) {
                steps = 1;
                cyc = (double)(elems > 4 ? elems : 4) * (double)nxy * (double)nz;
                if (q->ifm_bits == 16 && !a->u55_32) cyc *= 2;
            } else if (q->bt == BT_DW) {
                cyc = 4.0 * (double)nxy * (q->ifm_bits == 16 ? 2 : 1);
                steps = div_up64(elems, 4);
                cyc = (cyc > wb ? cyc : wb) * (double)steps * (double)nz;
            } else if (!q->partkernel) {
                steps = elems;
                double per = 4.0 * (double)nxy;
                cyc = (per > wb ? per : wb) * (double)steps * (double)nz;
            } else {
                steps = div_up64(elems, q->ifm_bits == 16 ? 2 : 4);
                double per = 4.0 * (double)nxy;
                cyc = (per > wb ? per : wb) * (double)steps * (double)iz * (double)nz;
            }
            double delay = 0;
            if (a->u55_32) {
                double d = q->acc40 ? 7 : 3;
                if (nx == 1 && ny == 1) {
                    if (nz == 1) delay = d * (double)steps;
                    else if (steps > 1) delay = d * (double)(steps - 1) * (double)nz;
                }
                if ((nx == 1 || ny == 1) && nz > 1 && q->acc40) delay += d * (double)nz;
            } else {
                double d = (q->acc40 && a->u55_64_128) ? 3 : 2;
                if (nx == 1 && ny == 1) {
                    if (nz == 1) delay = d * (double)steps;
                    else if (steps > 1) delay = d * (double)(steps - 1) * (double)nz;
                }
            }
            if (q->bt == BT_CONV && q->partkernel) delay *= (double)iz;
            dpu += cyc + delay;
        }
    if (q->bt == BT_CONV || q->bt == BT_RSUM) dpu *= (double)div_up64(q->ifm.d, iblk.d);
    dpu /= a->ncores;

    uint64_t nblk = div_up64(q->ofm.w, oblk.w) * div_up64(q->ofm.h, oblk.h) * div_up64(q->ofm.d, oblk.d);
    double out = ceil_nn(out_cycles_per_elem(c, q, o) * (double)shp_elems(oblk));
    if (q->has_bias) {
        double bias = 10.0 * (double)oblk.d * c->port[q->s_port].rlat / 256;
        if (bias > out) out = bias;
    }
    double ic, oc;
    min_block_mem_cycles(c, q, &ic, &oc);
    double cmd = (ic + oc + out + dpu) / 4;
    if (cmd > dpu) dpu = cmd;
    if (cmd > out) out = cmd;
    if (dpu > out) {
        *tail = out;
        return dpu * (double)nblk + out;
    }
    *tail = dpu;
    return out * (double)nblk + dpu;
}

static double ew_cycles(const perf_ctx *c, const kq *q, const sim_op_info *o)
{
    shp r = q->ofm;
    if (q->ofm_fmt == EU_FMT_NHCWB16) r.d = round_up64(r.d, 16);
    return ceil_nn(out_cycles_per_elem(c, q, o) * (double)shp_elems(r));
}

/* Traffic of one kernel op: raw bytes per port and direction, and the
 * burst-scaled bytes that set its memory cycles. */
typedef struct traffic {
    double rd[2], wr[2];      /* bytes */
    double scaled[2];         /* bytes after burst efficiency */
} traffic;

static double fm_elem_bytes(unsigned bits) { return bits / 8.0; }

static void kernel_traffic(const perf_ctx *c, const kq *q, const sim_op_info *o, traffic *t)
{
    memset(t, 0, sizeof *t);
    shp iround = {1, 1, q->ifm_fmt == EU_FMT_NHCWB16 ? 16 : 1};
    shp oround = {1, 1, q->ofm_fmt == EU_FMT_NHCWB16 ? 16 : 1};
    double ifm_el = 0, ifm2_el = 0, w_bytes = 0, s_bytes = 0;
    if (q->bt != BT_EW) {
        shp iblk = shp_min(q->ifm, q->iblk), oblk = shp_min(q->ofm, q->oblk);
        uint64_t nbx = div_up64(q->ofm.w, oblk.w), nby = div_up64(q->ofm.h, oblk.h);
        uint64_t nbz = div_up64(q->ofm.d, oblk.d);
        uint64_t obd = oblk.d;
        if (q->bt == BT_DW || q->bt == BT_POOL) { nbz = 1; obd = q->ifm.d; }
        uint64_t nblk = nbx * nby * nbz;
        uint64_t sub = div_up64(q->kw, 8) * div_up64(q->kh, 8);
        /* each OFM block reads its IFM block over the full IFM depth */
        double fetch = (double)(round_up64(iblk.w, iround.w) * round_up64(iblk.h, iround.h)) *
                       (double)round_up64(q->ifm.d, iround.d);
        ifm_el = fetch * (double)sub * (double)nblk;
        if (q->bt == BT_CONV || q->bt == BT_DW) {
            /* the weight stream is read once per OFM block position */
            double per_ofm = (double)(obd * nblk) / (double)(q->bt == BT_DW ? q->ifm.d : q->ofm.d);
            w_bytes = (double)o->weight_bytes * per_ofm;
            s_bytes = (double)o->scale_bytes;
        }
    } else {
        shp r = {q->ofm.w, q->ofm.h, round_up64(q->ofm.d, iround.d)};
        ifm_el = (double)shp_elems(r);
        if (o->ifm2_tensor) {
            if (shp_elems(q->ifm2) > 1) ifm2_el = ifm_el;
            else if (q->ifm2_bits > 8) ifm2_el = 1;
        }
    }
    shp orr = {q->ofm.w, q->ofm.h, round_up64(q->ofm.d, oround.d)};
    double ofm_b = (double)shp_elems(orr) * fm_elem_bytes(q->ofm_bits);
    double ifm_b = ifm_el * fm_elem_bytes(q->ifm_bits);
    double ifm2_b = ifm2_el * fm_elem_bytes(q->ifm2_bits);

    t->rd[q->ifm_port] += ifm_b;
    t->scaled[q->ifm_port] += burst_scaled(c, &c->port[q->ifm_port], true, q->ifm_fmt, q->ifm_bits,
                                           q->iblk, q->ifm, ifm_b);
    if (ifm2_b > 0) {
        t->rd[q->ifm2_port] += ifm2_b;
        t->scaled[q->ifm2_port] += burst_scaled(c, &c->port[q->ifm2_port], true, q->ifm_fmt,
                                                q->ifm2_bits, q->iblk, q->ifm2, ifm2_b);
    }
    t->wr[q->ofm_port] += ofm_b;
    t->scaled[q->ofm_port] += burst_scaled(c, &c->port[q->ofm_port], false, q->ofm_fmt, q->ofm_bits,
                                           q->oblk, q->ofm, ofm_b);
    if (w_bytes > 0) {
        t->rd[q->w_port] += w_bytes;
        t->scaled[q->w_port] += w_bytes;
    }
    if (s_bytes > 0) {
        t->rd[q->s_port] += s_bytes;
        t->scaled[q->s_port] += s_bytes;
    }
}

/* DMA cost: read from the source (plus its latency) and write to the
 * destination run concurrently; the slower side wins. */
static double dma_cycles(const perf_ctx *c, const sim_op_info *o, traffic *t, uint64_t port_cycles[2])
{
    memset(t, 0, sizeof *t);
    port_cycles[0] = port_cycles[1] = 0;
    if (o->dma_bytes == 0) return 0;
    double n = (double)o->dma_bytes;
    const port_perf *ps = o->dma_src_region == 0xFF ? &c->shram : &c->port[port_of(c, o->dma_src_region)];
    const port_perf *pd = o->dma_dst_region == 0xFF ? &c->shram : &c->port[port_of(c, o->dma_dst_region)];
    double from = floor_nn(n / ps->bw) + ps->rlat;
    double to = floor_nn(n / pd->bw);
    /* the port time: reads and writes of one port go side by side, as
     * the copy's own cost has them */
    if (o->dma_src_region != 0xFF) {
        int p = port_of(c, o->dma_src_region);
        t->rd[p] += n;
        port_cycles[p] = (uint64_t)floor_nn(n / ps->bw);
    }
    if (o->dma_dst_region != 0xFF) {
        int p = port_of(c, o->dma_dst_region);
        t->wr[p] += n;
        if ((uint64_t)to > port_cycles[p]) port_cycles[p] = (uint64_t)to;
    }
    return from > to ? from : to;
}

static uint64_t to_cycles(double x) { return x <= 0 ? 0 : (uint64_t)ceil_nn(x - 1e-9); }

/* The AXI ports' use over time, for the timeline: traffic of operations
 * that run at the same time shares a port's bandwidth. Segment i is
 * [t[i], t[i+1]) (the last one open-ended, always unused), u[i][p] the
 * share of port p's bandwidth the operations placed so far take in it.
 * An operation placed later takes what is left (the earlier one in the
 * stream keeps its pace): a port never carries more than its bandwidth,
 * and an operation that finds its ports free runs as it would alone.
 * Only the operations that can still overlap a later one are on it
 * (port_prune at the stream front): a few DMAs and two kernel ops. */
enum { PU_MAX = 64 };
typedef struct port_use {
    size_t n;
    double t[PU_MAX];
    double u[PU_MAX][2];
} port_use;

/* Drops the segments that end at or before t0 (no operation placed from
 * now on starts before the stream front t0). */
static void port_prune(port_use *pu, double t0)
{
    size_t k = 0;
    while (k + 1 < pu->n && pu->t[k + 1] <= t0) k++;
    if (!k) return;
    memmove(pu->t, pu->t + k, sizeof pu->t[0] * (pu->n - k));
    memmove(pu->u, pu->u + k, sizeof pu->u[0] * (pu->n - k));
    pu->n -= k;
}

/* The segment that starts at x (split where needed); PU_MAX: no room. */
static size_t port_split(port_use *pu, double x)
{
    if (pu->n == 0 || x < pu->t[0]) {
        if (pu->n + 1 > PU_MAX) return PU_MAX;
        memmove(pu->t + 1, pu->t, sizeof pu->t[0] * pu->n);
        memmove(pu->u + 1, pu->u, sizeof pu->u[0] * pu->n);
        pu->t[0] = x;
        pu->u[0][0] = pu->u[0][1] = 0;
        /* up to the old first segment: unused; with none, the open end */
        pu->n++;
        return 0;
    }
    size_t i = pu->n - 1;
    while (pu->t[i] > x) i--;
    if (pu->t[i] == x) return i;
    if (pu->n + 1 > PU_MAX) return PU_MAX;
    memmove(pu->t + i + 2, pu->t + i + 1, sizeof pu->t[0] * (pu->n - i - 1));
    memmove(pu->u + i + 2, pu->u + i + 1, sizeof pu->u[0] * (pu->n - i - 1));
    pu->t[i + 1] = x;
    pu->u[i + 1][0] = pu->u[i][0];
    pu->u[i + 1][1] = pu->u[i][1];
    pu->n++;
    return i + 1;
}

/* Places an operation that starts at s and alone takes d cycles, of which
 * w[p] on port p at its full bandwidth: it goes at the pace the ports'
 * left-over bandwidth allows (at most its own), and takes its share of
 * them. Returns its end. */
static double port_place(port_use *pu, double s, double d, const double w[2])
{
    double need[2];
    bool any = false;
    for (int p = 0; p < 2; p++) {
        need[p] = d > 0 && w[p] > 0 ? (w[p] >= d ? 1.0 : w[p] / d) : 0;
        any |= need[p] > 0;
    }
    /* a placement adds at most two breakpoints; where there is no room
     * for them (never on a real stream: a handful of operations overlap)
     * the operation runs as if alone */
    if (!any || pu->n + 2 > PU_MAX) return s + d;
    size_t i = port_split(pu, s);
    double rem = d;
    while (i < pu->n) {
        double a = pu->t[i];
        bool last = i + 1 == pu->n;
        double b = last ? 0 : pu->t[i + 1];
        double r = 1;
        for (int p = 0; p < 2; p++) {
            if (need[p] <= 0) continue;
            double left = 1 - pu->u[i][p];
            if (left < need[p] * r) r = left > 0 ? left / need[p] : 0;
        }
        if (r > 1e-9) {
            double x = a + rem / r;
            if (last || x < b) {
                (void)port_split(pu, x);
                for (int p = 0; p < 2; p++) pu->u[i][p] += need[p] * r;
                return x;
            }
            for (int p = 0; p < 2; p++) pu->u[i][p] += need[p] * r;
            rem -= r * (b - a);
            if (rem <= 1e-9) return b;
        }
        i++;
    }
    return s + d;   /* not reached: the open last segment is unused */
}

/* The end of operation o, from its start, on the ports' use (the stream
 * front at t_cmd: nothing placed later starts before it). */
static uint64_t op_end(port_use *pu, const sim_op_info *o, double t_cmd)
{
    port_prune(pu, t_cmd);
    double w[2] = {(double)o->cycles_port[0], (double)o->cycles_port[1]};
    uint64_t e = to_cycles(port_place(pu, (double)o->start, (double)o->cycles, w));
    return e > o->start + o->cycles ? e : o->start + o->cycles;
}


/* An op's own figures (cycles, traffic, tail) are a function of its record
 * without its place in the stream (cmd_index, cmd_offset, the wait before
 * it) and of the outputs: a long stream (an unrolled LSTM's thousands of
 * ops of a few shapes) works each record out once per call. The record's
 * bytes from kind to the wait, and from after the wait to the outputs, are
 * compared whole. */
#define OM_A0 offsetof(sim_op_info, kind)
#define OM_A1 offsetof(sim_op_info, wait_kind)
#define OM_B0 (offsetof(sim_op_info, wait_count) + sizeof(uint8_t))
#define OM_B1 offsetof(sim_op_info, cycles_compute)

typedef struct op_memo {
    int32_t *slot;            /* [cap] op index + 1 (0: empty) */
    uint32_t cap;             /* a power of two */
    double *tail;             /* [n_ops] the tail of each op worked out */
} op_memo;

/* n bytes at p into two lanes, 8 bytes a step (n is a constant in the
 * callers; the last step zero-fills). */
static inline void om_mix(uint64_t *a, uint64_t *b, const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint64_t x, y;
        memcpy(&x, p + i, 8);
        memcpy(&y, p + i + 8, 8);
        *a = (*a ^ x) * 0x100000001b3ull;
        *b = (*b ^ y) * 0x9E3779B97F4A7C15ull;
    }
    for (; i < n; i += 8) {
        uint64_t x = 0;
        memcpy(&x, p + i, n - i < 8 ? n - i : 8);
        *a = (*a ^ x) * 0x100000001b3ull;
    }
}

/* The hash table's hash of a record's compared bytes (any function of them
 * would do: om_same decides): two lanes of multiplies, a word a step. */
static uint64_t om_hash(const sim_op_info *o)
{
    const uint8_t *p = (const uint8_t *)o;
    uint64_t a = NPUC_HASH_INIT, b = 0xC2B2AE3D27D4EB4Full;
    om_mix(&a, &b, p + OM_A0, OM_A1 - OM_A0);
    om_mix(&a, &b, p + OM_B0, OM_B1 - OM_B0);
    uint64_t h = (a ^ (b >> 29) ^ (b << 35)) * 0x9E3779B97F4A7C15ull;
    return h ^ h >> 32;
}

static bool om_same(const sim_op_info *a, const sim_op_info *b)
{
    const uint8_t *p = (const uint8_t *)a, *q = (const uint8_t *)b;
    return !memcmp(p + OM_A0, q + OM_A0, OM_A1 - OM_A0) && !memcmp(p + OM_B0, q + OM_B0, OM_B1 - OM_B0);
}

/* The slot of op i's record: an earlier op's with the same record, or the
 * empty slot to take. */
static uint32_t om_find(const op_memo *x, const sim_op_info *ops, size_t i)
{
    uint32_t k = (uint32_t)om_hash(&ops[i]) & (x->cap - 1);
    while (x->slot[k] && !om_same(&ops[x->slot[k] - 1], &ops[i])) k = (k + 1) & (x->cap - 1);
    return k;
}

struct sim_perf_memo {
    eu_variant v;
    sim_system sys;           /* the figures' variant and system */
    bool have;
    sim_op_info *rec;         /* [n] records as worked out (figures filled) */
    double *tail;             /* [n] */
    uint32_t n, cap_rec;
    uint32_t *slot;           /* [cap] record index + 1 (0: empty) */
    uint32_t cap;             /* a power of two, at least twice n */
};

sim_perf_memo *sim_perf_memo_new(void) { return calloc(1, sizeof(sim_perf_memo)); }

void sim_perf_memo_free(sim_perf_memo *pm)
{
    if (!pm) return;
    free(pm->rec);
    free(pm->tail);
    free(pm->slot);
    free(pm);
}

/* The slot of o's record in pm: the one holding the same record, or the
 * empty one to take. */
static uint32_t pm_find(const sim_perf_memo *pm, const sim_op_info *o)
{
    uint32_t k = (uint32_t)om_hash(o) & (pm->cap - 1);
    while (pm->slot[k] && !om_same(&pm->rec[pm->slot[k] - 1], o)) k = (k + 1) & (pm->cap - 1);
    return k;
}

/* Keeps o (its figures worked out) and its tail; nothing when memory runs
 * out (the record is worked out again next time). Returns its index + 1
 * (0: not kept). */
static uint32_t pm_add(sim_perf_memo *pm, const sim_op_info *o, double tail)
{
    if (pm->n == pm->cap_rec) {
        uint32_t cap = pm->cap_rec ? 2 * pm->cap_rec : 256;
        sim_op_info *r = realloc(pm->rec, sizeof *r * cap);
        if (!r) return 0;
        pm->rec = r;
        double *t = realloc(pm->tail, sizeof *t * cap);
        if (!t) return 0;
        pm->tail = t;
        pm->cap_rec = cap;
    }
    if (2 * (pm->n + 1) > pm->cap) {
        uint32_t cap = pm->cap ? 2 * pm->cap : 512;
        uint32_t *s = calloc(cap, sizeof *s);
        if (!s) return 0;
        free(pm->slot);
        pm->slot = s;
        pm->cap = cap;
        for (uint32_t i = 0; i < pm->n; i++) pm->slot[pm_find(pm, &pm->rec[i])] = i + 1;
    }
    pm->slot[pm_find(pm, o)] = pm->n + 1;
    pm->rec[pm->n] = *o;
    pm->tail[pm->n++] = tail;
    return pm->n;
}

uint64_t sim_perf_estimate(eu_variant v, const sim_system *sys, sim_op_info *ops, size_t n_ops)
{
    return sim_perf_estimate_memo(v, sys, ops, n_ops, NULL);
}

uint64_t sim_perf_estimate_memo(eu_variant v, const sim_system *sys, sim_op_info *ops, size_t n_ops,
                                sim_perf_memo *pm)
{
    return sim_perf_estimate_hint(v, sys, ops, n_ops, pm, NULL);
}

uint64_t sim_perf_estimate_hint(eu_variant v, const sim_system *sys, sim_op_info *ops, size_t n_ops,
                                sim_perf_memo *pm, uint32_t *hint)
{
    perf_ctx c;
    sim_system def;
    memset(&c, 0, sizeof c);
    if (!sys) {
        /* ideal memory (sim.h) */
        memset(&def, 0, sizeof def);
        sys = &def;
    }
    c.sys = sys;
    c.a = arch_of(v);
    /* a U65-512 stream in single-core mode (PARALLEL_MODE 0) runs its
     * kernels on one core: a U65-256's throughput, same AXI and DMA */
    const perf_arch a_all = c.a, a_one = arch_of(one_core(v));
    for (int p = 0; p < 2; p++) {
        const sim_memory *m = &sys->axi[p];
        unsigned w = m->width_bytes && m->width_bytes < c.a.axi_bytes ? m->width_bytes : c.a.axi_bytes;
        double scale = m->clock_scale > 0 ? m->clock_scale : 1.0;
        c.port[p].bw = w * scale;
        c.port[p].rlat = m->read_latency;
        c.port[p].wlat = m->write_latency;
        c.port[p].burst = m->burst_bytes ? m->burst_bytes : 32;
    }
    /* SHRAM as a DMA end point: full port width at core clock, no latency */
    c.shram.bw = c.a.axi_bytes;
    c.shram.burst = 32;

    /* timeline state */
    uint64_t t_cmd = 0;               /* command stream front */
    uint64_t dma_free = 0;            /* DMA channel free at */
    uint64_t total = 0;
    size_t nk = 0, nd = 0;            /* kernel / DMA ops issued */
    /* end times of the last few kernel ops and DMAs (waits look back at most
     * 3 kernel ops and 15 DMAs) */
    uint64_t kend[4] = {0}, dend[16] = {0};
    uint64_t prev_tail = 0;
    port_use pu = {0};
    bool one = false;         /* c.a is a_one */
    op_memo om = {0};
    if (pm && (!pm->have || pm->v != v || memcmp(&pm->sys, sys, sizeof *sys))) {
        /* another variant or system: the figures kept are not its */
        pm->v = v;
        pm->sys = *sys;
        pm->have = true;
        pm->n = 0;
        if (pm->slot) memset(pm->slot, 0, sizeof *pm->slot * pm->cap);
    }
    if (!pm && n_ops >= 64 && n_ops < INT32_MAX / 4) {
        om.cap = 64;
        while (om.cap < 2 * n_ops) om.cap *= 2;
        om.slot = calloc(om.cap, sizeof *om.slot);
        om.tail = malloc(sizeof *om.tail * n_ops);
        if (!om.slot || !om.tail) {
            free(om.slot);
            free(om.tail);
            om = (op_memo){0};
        }
    }
    for (size_t i = 0; i < n_ops; i++) {
        sim_op_info *o = &ops[i];
        traffic t;
        double cyc;
        double tail = 0;
        uint32_t k = 0;
        const sim_op_info *was = NULL;
        double was_tail = 0;
        uint32_t at = 0;      /* pm's record of o, index + 1 */
        if (pm && hint && hint[i] && hint[i] <= pm->n && om_same(&pm->rec[hint[i] - 1], o)) {
            at = hint[i];
            was = &pm->rec[at - 1];
            was_tail = pm->tail[at - 1];
        } else if (pm && pm->cap) {
            uint32_t j = pm_find(pm, o);
            if (pm->slot[j]) {
                at = pm->slot[j];
                was = &pm->rec[at - 1];
                was_tail = pm->tail[at - 1];
            }
        } else if (om.slot) {
            k = om_find(&om, ops, i);
            if (om.slot[k]) {
                was = &ops[om.slot[k] - 1];
                was_tail = om.tail[om.slot[k] - 1];
            }
        }
        if (o->kind != SIM_K_DMA && o->single_core != one) {
            /* a kernel op's core count (a DMA's queue is the last one's) */
            one = o->single_core;
            c.a = one ? a_one : a_all;
        }
        if (was) {
            /* the same record worked out before */
            o->cycles_compute = was->cycles_compute;
            o->cycles_memory = was->cycles_memory;
            o->cycles = was->cycles;
            for (int p = 0; p < 2; p++) {
                o->cycles_port[p] = was->cycles_port[p];
                o->axi_read[p] = was->axi_read[p];
                o->axi_write[p] = was->axi_write[p];
            }
            tail = was_tail;
        } else if (o->kind == SIM_K_DMA) {
            cyc = dma_cycles(&c, o, &t, o->cycles_port);
            o->cycles_compute = 0;
            o->cycles_memory = to_cycles(cyc);
        } else {
            kq q = make_query(&c, o);
            double comp = q.bt == BT_EW ? ew_cycles(&c, &q, o) : conv_cycles(&c, &q, o, &tail);
            kernel_traffic(&c, &q, o, &t);
            double mem = 0;
            for (int p = 0; p < 2; p++) {
                o->cycles_port[p] = to_cycles(t.scaled[p] / c.port[p].bw);
                if (t.scaled[p] / c.port[p].bw > mem) mem = t.scaled[p] / c.port[p].bw;
            }
            o->cycles_compute = to_cycles(comp);
            o->cycles_memory = to_cycles(mem);
            cyc = comp > mem ? comp : mem;
        }
        if (!was) {
            o->cycles = to_cycles(cyc);
            for (int p = 0; p < 2; p++) {
                o->axi_read[p] = (uint64_t)(t.rd[p] + 0.5);
                o->axi_write[p] = (uint64_t)(t.wr[p] + 0.5);
            }
            if (pm) {
                at = pm_add(pm, o, tail);
            } else if (om.slot) {
                om.slot[k] = (int32_t)i + 1;
                om.tail[i] = tail;
            }
        }
        if (hint) hint[i] = pm ? at : 0;

        /* the wait in front of this op holds the command stream */
        if (o->wait_kind == 1) {
            if (nd > o->wait_count) {
                size_t idx = nd - o->wait_count - 1;   /* last DMA that must finish */
                if (nd - idx <= 16 && dend[idx % 16] > t_cmd) t_cmd = dend[idx % 16];
            }
        } else if (o->wait_kind == 2) {
            if (nk > o->wait_count) {
                size_t idx = nk - o->wait_count - 1;
                if (nk - idx <= 4 && kend[idx % 4] > t_cmd) t_cmd = kend[idx % 4];
            }
        }
        if (o->kind == SIM_K_DMA) {
            /* a full DMA queue stalls the command stream */
            if (nd >= c.a.max_dma) {
                uint64_t e = dend[(nd - c.a.max_dma) % 16];
                if (e > t_cmd) t_cmd = e;
            }
            uint64_t start = t_cmd > dma_free ? t_cmd : dma_free;
            o->start = start;
            o->end = op_end(&pu, o, (double)t_cmd);
            dma_free = o->end;
            dend[nd % 16] = o->end;
            nd++;
        } else {
            /* at most two kernel ops in flight: the stream stalls on a third */
            if (nk >= 2) {
                uint64_t e = kend[(nk - 2) % 4];
                if (e > t_cmd) t_cmd = e;
            }
            uint64_t start = t_cmd;
            bool compute_bound = o->cycles_compute >= o->cycles_memory;
            if (nk > 0) {
                /* BLOCKDEP 0: wait for the previous op. Otherwise the
                 * previous op's last block may still drain through the
                 * output stage while this op's first block starts; only
                 * when neither op is limited by memory (a busy port hides
                 * nothing). */
                uint64_t pe = kend[(nk - 1) % 4];
                uint64_t ov = o->blockdep > 0 && compute_bound ? prev_tail : 0;
                if (ov > o->cycles) ov = o->cycles;
                uint64_t dep = ov >= pe ? 0 : pe - ov;
                if (dep > start) start = dep;
            }
            o->start = start;
            o->end = op_end(&pu, o, (double)t_cmd);
            if (nk > 0 && o->end < kend[(nk - 1) % 4]) o->end = kend[(nk - 1) % 4];
            kend[nk % 4] = o->end;
            nk++;
            prev_tail = compute_bound ? to_cycles(tail < (double)o->cycles ? tail : (double)o->cycles) : 0;
        }
        if (o->end > total) total = o->end;
    }
    free(om.slot);
    free(om.tail);
    return total;
}
