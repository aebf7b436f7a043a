/* eu_block: OFM block and SHRAM layout of one NPU kernel operation.
 *
 * The block does not change what an operation computes (docs/ethos-u.md 3.2),
 * only how fast it runs and how much SHRAM it needs. The choice
 * (docs/block-config.md):
 *
 *   1. Candidate sizes: along width and height, for every number n of
 *      blocks, the smallest legal size that covers the axis in n blocks (a
 *      larger size with the same block count only adds padded work); in
 *      depth every legal size (at most nine). A brute force over every
 *      legal block finds nothing better (tests/test_eu_block.c).
 *   2. For every candidate (w, h, d), smallest first, the SHRAM layout by
 *      Vela's rules (architecture_allocator.py, docs/ethos-u.md 1.2). Buffers
 *      only grow with the block, so the first block that does not fit ends
 *      the scan along that axis.
 *   3. Every fitting block is scored by a fast, table-driven copy of the
 *      virtual NPU's per-operation cycle model (sim_perf.c: conv_cycles,
 *      out_cycles_per_elem, ew_cycles, kernel_traffic, burst_scaled); the
 *      best few are scored again by sim_perf_estimate itself, so the final
 *      ranking is the simulator's even if the copy drifts. Fewest cycles
 *      wins, then fewest compute cycles, then the larger block.
 *
 * The request does not say where tensors live, so the estimate is the sum
 * over two placements of every tensor: SRAM (AXI0), and the tensor arena of
 * the variant's default system (docs/ethos-u.md 1.4: SRAM on U55, so one
 * placement; DRAM on U65, where a block that re-reads its IFM or weights
 * costs much more). It also assumes a weight stream of one byte per weight
 * and no padding. */
#include "eu_block.h"
#include "target/target.h"

#include <string.h>

/* ------------------------------------------------------------ variants */

/* SHRAM granules (banks), in Vela's SHRAMElements order (docs/ethos-u.md 1.2):
 * indices into eu_variant_info.granules. */
enum { G_IFM8, G_IFM16, G_IFM8_EW, G_IFM16_EW, G_IFM32, G_ACC16, G_ACC32, G_ACC40 };

typedef struct eu_arch {
    unsigned ub_w, ub_h, ub_d;   /* OFM micro-block */
    unsigned banks;              /* 1 KiB SHRAM banks per core */
    unsigned reserved_end;       /* banks kept free at the top even without a LUT */
    unsigned ncores;
    bool u55_32, u55_64_128;     /* classes of the cycle model's accumulator delay */
    uint8_t gran[8];
    double out_cpe[8], act_cpe[3];   /* docs/ethos-u.md 1.6 */
} eu_arch;

/* The row of the variant table (src/ethosu/eu_variant.h), as the model
 * reads it. */
static eu_arch eu_arch_of(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    eu_arch a;
    a.ub_w = r->ofm_ublock[0];
    a.ub_h = r->ofm_ublock[1];
    a.ub_d = r->ofm_ublock[2];
    a.banks = r->shram_banks;
    a.reserved_end = r->reserved_banks;
    a.ncores = r->cores;
    a.u55_32 = r->product == EU_PRODUCT_U55 && r->macs == 32;
    a.u55_64_128 = r->product == EU_PRODUCT_U55 && (r->macs == 64 || r->macs == 128);
    memcpy(a.gran, r->granules, sizeof a.gran);
    memcpy(a.out_cpe, r->out_cpe, sizeof a.out_cpe);
    memcpy(a.act_cpe, r->act_cpe, sizeof a.act_cpe);
    return a;
}

enum { EU_BLK_MAX_W = 64, EU_BLK_MAX_H = 32, EU_BLK_MAX_D = 128, EU_BANK = 1024, EU_ROUND_TAB = 66 };

/* 32-bit on purpose: every operand is a dimension (<= 65536) or a block
 * quantity, and 64-bit division is several times slower in the hot loop. */
static unsigned eu_div_up(unsigned x, unsigned q) { return (x + q - 1) / q; }
static unsigned eu_round_up(unsigned x, unsigned q) { return (x + q - 1) / q * q; }
static unsigned eu_min(unsigned a, unsigned b) { return a < b ? a : b; }

static const char *eu_kind_name(const eu_block_req *r)
{
    static const char *const pool[] = {"POOL(MAX)", "POOL(AVERAGE)", "POOL(REDUCE_SUM)"};
    switch (r->kind) {
    case SIM_K_CONV: return "CONV";
    case SIM_K_DEPTHWISE: return "DEPTHWISE";
    case SIM_K_POOL: return r->mode <= 2 ? pool[r->mode] : "POOL";
    case SIM_K_ELEMENTWISE: return "ELEMENTWISE";
    default: return "?";
    }
}

/* ------------------------------------------------------- SHRAM layout */

/* Everything the layout rules need, fixed for one request. */
typedef struct eu_rules {
    bool ew, ifm2_full;          /* elementwise; IFM2 tensor needs its own buffer */
    bool conv1d;                 /* Vela's 256/512 Conv1D fit: accumulators of one row */
    unsigned ifm_depth_fixed;    /* conv, reduce sum: IFM block depth; 0 = the OFM block's */
    unsigned kw8, kh8;           /* kernel extent within one 8x8 sub-kernel (dilated) */
    unsigned sx, sy, up, near;   /* strides, upscale factor, +1 row/column for NEAREST */
    unsigned ifm_bits, ifm_gran, acc_bits, acc_gran;
    unsigned lut_start;          /* first bank this op may not use */
    /* banks for 2 x ceil(bytes / 1 KiB) = i (double buffering), rounded to
     * the granule, for i <= 64: a table saves two divisions per candidate */
    uint8_t ifm_round[EU_ROUND_TAB], acc_round[EU_ROUND_TAB];
} eu_rules;

typedef struct eu_banks { unsigned ifm, ifm2, acc; } eu_banks;

/* Vela's _get_ifm_blocksize: the IFM columns / rows that feed w OFM
 * columns / h rows (kernel capped at the 8x8 sub-kernel), rounded to the
 * micro-block. */
static unsigned eu_rule_iw(const eu_rules *u, const eu_arch *a, unsigned w)
{
    return eu_round_up(eu_div_up((w - 1) * u->sx + u->kw8 + u->near, u->up), a->ub_w);
}
static unsigned eu_rule_ih(const eu_rules *u, const eu_arch *a, unsigned h)
{
    return eu_round_up(eu_div_up((h - 1) * u->sy + u->kh8 + u->near, u->up), a->ub_h);
}
/* Bytes one IFM block pixel takes (depth rounded to 8 bytes). */
static unsigned eu_rule_ipix(const eu_rules *u, unsigned d)
{
    unsigned id = u->ifm_depth_fixed ? u->ifm_depth_fixed : d;
    return eu_round_up(id * u->ifm_bits / 8, 8);
}
/* Accumulator bytes per OFM block pixel (depth rounded to 8). */
static unsigned eu_rule_apix(const eu_rules *u, unsigned d) { return eu_round_up(d, 8) * u->acc_bits / 8; }

/* Vela's _try_block_config: IFM and accumulators double-buffered, in 1 KiB
 * banks rounded up to the granule. */
static unsigned eu_round_banks(const uint8_t *tab, unsigned gran, unsigned bytes)
{
    unsigned i = eu_div_up(bytes, EU_BANK) * 2;
    return i < EU_ROUND_TAB ? tab[i] : eu_round_up(i, gran);
}

static eu_banks eu_banks_of(const eu_rules *u, unsigned iw, unsigned ih, unsigned ipix, unsigned w,
                            unsigned h, unsigned apix)
{
    eu_banks n = {0, 0, 0};
    n.ifm = eu_round_banks(u->ifm_round, u->ifm_gran, iw * ih * ipix);
    if (u->ew) {
        n.ifm2 = u->ifm2_full ? n.ifm : 0;
    } else {
        unsigned ah = u->conv1d ? 1 : h;
        n.acc = eu_round_banks(u->acc_round, u->acc_gran, w * ah * apix);
    }
    return n;
}

static eu_banks eu_banks_for(const eu_rules *u, const eu_arch *a, unsigned w, unsigned h, unsigned d)
{
    return eu_banks_of(u, eu_rule_iw(u, a, w), eu_rule_ih(u, a, h), eu_rule_ipix(u, d), w, h,
                       eu_rule_apix(u, d));
}

/* Output buffers take banks 0-1, the IFM (and IFM2) follow, accumulators
 * end at the LUT. */
static bool eu_fits(const eu_rules *u, eu_banks n)
{
    return 2 + n.ifm + n.ifm2 + n.acc <= u->lut_start;
}

static void eu_registers(const eu_rules *u, const eu_arch *a, const eu_block_req *r, unsigned w,
                         unsigned h, unsigned d, eu_banks n, eu_block *b)
{
    memset(b, 0, sizeof *b);
    b->w = w;
    b->h = h;
    b->d = d;
    b->ifm2_ib_start = (uint8_t)(2 + n.ifm);
    if (u->ew) {
        /* elementwise: the IFM gets all space up to the LUT */
        b->ifm_ib_end = (uint8_t)u->lut_start;
        b->ab_start = (uint8_t)u->lut_start;
    } else {
        b->ifm_ib_end = (uint8_t)(2 + n.ifm);
        b->ab_start = (uint8_t)(u->lut_start - n.acc);
    }
    b->acc_format = r->acc40 ? 1 : 0;
    /* where LUTs live on every variant (the executor reads them there);
     * on 16-bank parts an op without a LUT may have used these banks */
    b->lut_start_bank = (uint8_t)(a->banks - 2);
}

static void eu_rules_init(eu_rules *u, const eu_block_req *r, const eu_arch *a)
{
    memset(u, 0, sizeof *u);
    bool ew = r->kind == SIM_K_ELEMENTWISE;
    bool rsum = r->kind == SIM_K_POOL && r->mode == 2;
    u->ew = ew;
    u->ifm2_full = ew && r->ifm2_tensor;
    u->conv1d = !ew && r->ofm_h == 1 && r->kernel_h == 1 && a->ub_h == 2;
    u->kw8 = ew ? 1 : eu_min(r->kernel_w, 8);
    u->kh8 = ew ? 1 : eu_min(r->kernel_h, 8);
    u->sx = ew ? 1 : r->stride_x;
    u->sy = ew ? 1 : r->stride_y;
    u->up = !ew && r->upscale ? 2 : 1;
    /* NEAREST needs one more IFM row/column; the request does not say which
     * upscale mode, so upscaled ops always get it (never too small) */
    u->near = !ew && r->upscale ? 1 : 0;
    u->ifm_bits = r->ifm_bits;
    if (r->kind == SIM_K_CONV || rsum) {
        /* Vela's _ifm_blockdepth: the IFM depth one pass of the MAC array reads */
        bool pkf = r->kind == SIM_K_CONV && r->part_kernel_first;
        if (r->ifm_bits == 16)
            u->ifm_depth_fixed = eu_round_up(eu_min(r->ifm_d, 16), 4);
        else
            u->ifm_depth_fixed = eu_round_up(eu_min(r->ifm_d, pkf ? 16 : 32), 8);
    }
    if (r->ifm_bits == 32) u->ifm_gran = a->gran[G_IFM32];
    else if (ew) u->ifm_gran = a->gran[r->ifm_bits == 16 ? G_IFM16_EW : G_IFM8_EW];
    else u->ifm_gran = a->gran[r->ifm_bits == 16 ? G_IFM16 : G_IFM8];
    u->acc_bits = r->acc40 ? 40 : 32;
    u->acc_gran = a->gran[r->acc40 ? G_ACC40 : G_ACC32];
    for (unsigned i = 0; i < EU_ROUND_TAB; i++) {
        u->ifm_round[i] = (uint8_t)eu_round_up(i, u->ifm_gran);
        u->acc_round[i] = (uint8_t)eu_round_up(i, u->acc_gran);
    }
    unsigned lut_banks = r->uses_lut ? 2 : 0;
    if (a->reserved_end > lut_banks) lut_banks = a->reserved_end;
    u->lut_start = a->banks - lut_banks;
}

/* ------------------------------------------------------- cycle model */

/* A copy of sim_perf.c's per-operation formulas for one request, split in
 * what is fixed per op (eu_model), per candidate size along each axis
 * (eu_ax) and per candidate block (eu_estimate). Names follow sim_perf.c. */
enum { BT_CONV, BT_DW, BT_POOL, BT_RSUM, BT_EW };

/* A memory port in core cycles (sim_perf.c port_perf). */
typedef struct eu_port { double bw, rlat, wlat, burst; } eu_port;

enum { EU_PLACEMENTS = 2 };

typedef struct eu_model {
    const eu_arch *a;
    int bt;
    unsigned ifm_w, ifm_h, ifm_d, ofm_w, ofm_h, ofm_d;
    unsigned kw, kh, sx, sy, up;      /* undilated taps as far as the model knows */
    unsigned ifm_bits, ofm_bits;
    uint8_t ifm_fmt, ofm_fmt;
    bool partkernel, acc40, has_bias, ifm2, oned;
    double cpe;                       /* output cycles per element (EW: before the block term) */
    unsigned n_port;
    eu_port port[EU_PLACEMENTS];      /* where all tensors live, one estimate each */
    double weight_bytes, scale_bytes;
    double ofm_bytes;                 /* OFM bytes as stored */
    double ew_ofm_elems;              /* EW: OFM elements the output stage runs over */
    double ew_ifm_bytes, ew_ifm2_bytes;
    double ifm_d_fetch;               /* IFM depth one block fetch reads (NHCWB16: rounded to 16) */
    double sub;                       /* 8x8 sub-kernels */
    unsigned n_sub, sub_elems[4], sub_count[4];   /* distinct sub-kernel sizes */
} eu_model;

/* Everything about one candidate size along one axis. */
typedef struct eu_ax {
    unsigned b;              /* block size */
    unsigned rule;           /* SHRAM rules: IFM block width / height; depth: IFM bytes per pixel */
    unsigned apix;           /* depth: accumulator bytes per OFM pixel */
    unsigned ib;             /* cycle model: IFM block extent */
    unsigned ibm, obm;       /* IFM block clipped to the IFM, OFM block clipped to the OFM */
    unsigned nb;             /* blocks along the axis */
    unsigned nu;             /* micro-blocks in one (clipped) block */
    /* depth only */
    unsigned iz;             /* IFM micro-blocks of 8 channels */
    unsigned dfac;           /* conv / reduce sum: passes over the IFM depth */
    unsigned nbt, obdt;      /* traffic: depth blocks and depth per block (dw/pool: whole IFM) */
} eu_ax;

/* sim_perf.c floor_nn / ceil_nn / to_cycles (no libm in the sim's arithmetic). */
static double eu_floor(double x) { return x <= 0 ? 0 : (double)(uint64_t)x; }
static double eu_ceil(double x)
{
    double f = eu_floor(x);
    return f < x ? f + 1 : f;
}
static double eu_cycles(double x) { return x <= 0 ? 0 : eu_ceil(x - 1e-9); }

/* Vela's transfer-efficiency estimate (sim_perf.c burst_scaled) as a
 * factor: bytes moved per useful byte for a block of blk_w x blk_d. */
static double eu_burst_factor(const eu_model *m, const eu_port *p, bool read, uint8_t fmt,
                              unsigned bits, unsigned blk_w, unsigned blk_d, unsigned shape_w)
{
    double bb, w = blk_w, d = blk_d;
    if (fmt == 1) {
        double cstride = (double)bits * 16 * (double)shape_w / 8;
        if (cstride == d) bb = (double)bits * d * w;
        else if (read) bb = 16.0 * bits * w;
        else bb = 16.0 * bits * w * m->a->ncores;
    } else {
        double zstride = bits / 8.0;
        if (read) {
            bb = zstride == d ? (double)bits * d * w : (double)bits * d;
        } else if (blk_d <= 16 && zstride == d) {
            bb = (double)bits * d * w;
        } else {
            bb = 64.0 * 8;
            if (16.0 * bits * m->a->ncores < bb) bb = 16.0 * bits * m->a->ncores;
            if (d * bits < bb) bb = d * bits;
        }
    }
    double burst = eu_floor(bb / 8);
    if (burst < 1) burst = 1;
    if (burst > p->burst) burst = p->burst;
    return p->burst / burst;
}

/* Width / height candidate: IFM block (sim_perf.c make_query: undilated
 * kernel, unlike the SHRAM rules), clipping, block and micro-block counts. */
static void eu_ax_wh(const eu_model *m, const eu_rules *u, bool width, unsigned b, eu_ax *x)
{
    const eu_arch *a = m->a;
    memset(x, 0, sizeof *x);
    x->b = b;
    unsigned s = width ? m->sx : m->sy, k = width ? m->kw : m->kh, ub = width ? a->ub_w : a->ub_h;
    unsigned ifm = width ? m->ifm_w : m->ifm_h, ofm = width ? m->ofm_w : m->ofm_h;
    x->rule = width ? eu_rule_iw(u, a, b) : eu_rule_ih(u, a, b);
    x->ib = eu_round_up(eu_div_up((b - 1) * s + eu_min(k, 8), m->up), ub);
    x->ibm = eu_min(ifm, x->ib);
    x->obm = eu_min(ofm, b);
    x->nb = eu_div_up(ofm, x->obm);
    /* the 1D micro-block (4x1) of conv_cycles */
    unsigned ubc = m->oned ? (width ? 4 : 1) : ub;
    x->nu = eu_div_up(m->oned && !width ? 1 : x->obm, ubc);
}

static void eu_ax_d(const eu_model *m, const eu_rules *u, unsigned b, eu_ax *x)
{
    memset(x, 0, sizeof *x);
    x->b = b;
    x->rule = eu_rule_ipix(u, b);
    x->apix = eu_rule_apix(u, b);
    if (m->bt == BT_CONV || m->bt == BT_RSUM) {
        /* Vela's IFM block depth as the cycle model takes it */
        unsigned cap = m->ifm_bits == 16 || m->partkernel ? 16 : 32;
        x->ib = eu_round_up(eu_min(m->ifm_d, cap), m->ifm_bits == 16 ? 4 : 8);
    } else {
        x->ib = b;
    }
    x->ibm = eu_min(m->ifm_d, x->ib);
    x->obm = eu_min(m->ofm_d, b);
    x->nb = eu_div_up(m->ofm_d, x->obm);
    x->nu = eu_div_up(x->obm, m->a->ub_d);
    x->iz = eu_div_up(x->ibm, 8);
    x->dfac = (m->bt == BT_CONV || m->bt == BT_RSUM) ? eu_div_up(m->ifm_d, x->ibm) : 1;
    bool whole = m->bt == BT_DW || m->bt == BT_POOL;
    x->nbt = whole ? 1 : x->nb;
    x->obdt = whole ? m->ifm_d : x->obm;
}

typedef struct eu_cost { double total, comp; } eu_cost;

/* DPU cycles of one OFM block (sim_perf.c conv_cycles, sub-kernel loop). */
static double eu_dpu_block(const eu_model *m, const eu_ax *x, const eu_ax *y, const eu_ax *z)
{
    const eu_arch *a = m->a;
    unsigned nx = x->nu, ny = y->nu, nz = z->nu;
    double nxy = (double)nx * ny;
    double wb = 32.0 * a->ub_d / 8;
    double dpu = 0;
    for (unsigned k = 0; k < m->n_sub; k++) {
        unsigned elems = m->sub_elems[k], steps;
        double cyc;
        if (m->bt == BT_POOL) {
            steps = 1;
            cyc = (double)(elems > 4 ? elems : 4) * nxy * nz;
            if (m->ifm_bits == 16 && !a->u55_32) cyc *= 2;
        } else if (m->bt == BT_DW) {
            cyc = 4.0 * nxy * (m->ifm_bits == 16 ? 2 : 1);
            steps = eu_div_up(elems, 4);
            cyc = (cyc > wb ? cyc : wb) * steps * nz;
        } else if (!m->partkernel) {
            steps = elems;
            double per = 4.0 * nxy;
            cyc = (per > wb ? per : wb) * steps * nz;
        } else {
            steps = eu_div_up(elems, m->ifm_bits == 16 ? 2 : 4);
            double per = 4.0 * nxy;
            cyc = (per > wb ? per : wb) * steps * z->iz * nz;
        }
        double delay = 0;
        if (a->u55_32) {
            double dl = m->acc40 ? 7 : 3;
            if (nx == 1 && ny == 1) {
                if (nz == 1) delay = dl * steps;
                else if (steps > 1) delay = dl * (steps - 1) * nz;
            }
            if ((nx == 1 || ny == 1) && nz > 1 && m->acc40) delay += dl * nz;
        } else {
            double dl = (m->acc40 && a->u55_64_128) ? 3 : 2;
            if (nx == 1 && ny == 1) {
                if (nz == 1) delay = dl * steps;
                else if (steps > 1) delay = dl * (steps - 1) * nz;
            }
        }
        if (m->bt == BT_CONV && m->partkernel) delay *= z->iz;
        dpu += (cyc + delay) * m->sub_count[k];
    }
    return dpu * z->dfac / a->ncores;
}

/* Estimated cycles of the op with block (x, y, z), summed over the
 * placements; f_in[p] / f_out[p] are the burst factors of the IFM block
 * read and the OFM block write on port p. */
static eu_cost eu_estimate(const eu_model *m, const eu_ax *x, const eu_ax *y, const eu_ax *z,
                           const double *f_in, const double *f_out)
{
    double ibm = (double)x->ibm * y->ibm * z->ibm, obm = (double)x->obm * y->obm * z->obm;
    double ifm_es = m->ifm_bits / 8.0;
    /* what does not depend on the memory */
    double dpu0 = 0, out0 = 0, nblk = 0, ifm_bytes = 0, other_bytes = 0;
    if (m->bt != BT_EW) {
        dpu0 = eu_dpu_block(m, x, y, z);
        nblk = (double)x->nb * y->nb * z->nb;
        out0 = eu_ceil(m->cpe * obm);
        /* each OFM block reads its IFM block over the full IFM depth */
        double nblk_t = (double)x->nb * y->nb * z->nbt;
        ifm_bytes = (double)x->ibm * y->ibm * m->ifm_d_fetch * m->sub * nblk_t * ifm_es;
        if (m->bt == BT_CONV || m->bt == BT_DW) {
            /* the weight stream is read once per OFM block position */
            double per_ofm = z->obdt * nblk_t / (m->bt == BT_DW ? m->ifm_d : m->ofm_d);
            other_bytes = m->weight_bytes * per_ofm + m->scale_bytes;
        }
    }
    eu_cost c = {0, 0};
    for (unsigned p = 0; p < m->n_port; p++) {
        const eu_port *pt = &m->port[p];
        /* latency plus the first IFM block and one OFM block (min_block_mem_cycles) */
        double ic = pt->rlat + ibm * f_in[p] / pt->bw;
        double oc = pt->wlat + obm * f_out[p] / pt->bw;
        double comp, scaled;
        if (m->bt == BT_EW) {
            double blk = (double)x->b * y->b * z->b, cpe = m->cpe;
            double cmd = (ic + oc + cpe * blk) / 4;
            if (cmd / blk > cpe) cpe = cmd / blk;
            comp = eu_ceil(cpe * m->ew_ofm_elems);
            scaled = (m->ew_ifm_bytes + m->ew_ifm2_bytes) * f_in[p];
        } else {
            double dpu = dpu0, out = out0;
            if (m->has_bias) {
                double bias = 10.0 * z->obm * pt->rlat / 256;
                if (bias > out) out = bias;
            }
            double cmd = (ic + oc + out + dpu) / 4;
            if (cmd > dpu) dpu = cmd;
            if (cmd > out) out = cmd;
            comp = dpu > out ? dpu * nblk + out : out * nblk + dpu;
            scaled = ifm_bytes * f_in[p] + other_bytes;
        }
        scaled += m->ofm_bytes * f_out[p];
        double cc = eu_cycles(comp), mem = eu_cycles(scaled / pt->bw);
        c.comp += cc;
        c.total += cc > mem ? cc : mem;
    }
    return c;
}

/* sim_perf.c choose_partkernel (Vela's weight-order heuristic). */
static bool eu_model_partkernel(unsigned ifm_d, unsigned bits, uint64_t kelems)
{
    if (ifm_d <= 8) return true;
    unsigned q = bits == 8 ? 4 : 2;
    double depth_util = (double)ifm_d / eu_round_up(ifm_d, bits == 8 ? 32 : 16);
    double part_util = (double)ifm_d * (double)kelems /
                       ((double)eu_round_up(ifm_d, 8) * (double)((kelems + q - 1) / q * q));
    return part_util > depth_util;
}

/* IFM extent along one axis without padding (sim_perf.c ifm_extent). */
static unsigned eu_ifm_extent(unsigned ofm, unsigned stride, unsigned k, bool upscale)
{
    uint64_t u = (uint64_t)(ofm - 1) * stride + k;
    if (upscale) u = (u + 1) / 2;
    return u > 0xFFFFFFu ? 0xFFFFFFu : (unsigned)u;
}

static bool eu_ew_binary(unsigned mode) { return !(mode == 5 || mode == 6 || mode == 7); }

static void eu_model_init(eu_model *m, const eu_block_req *r, const eu_arch *a,
                          const sim_system *const *sys, unsigned n_sys)
{
    memset(m, 0, sizeof *m);
    m->a = a;
    bool ew = r->kind == SIM_K_ELEMENTWISE;
    switch (r->kind) {
    case SIM_K_CONV: m->bt = BT_CONV; break;
    case SIM_K_DEPTHWISE: m->bt = BT_DW; break;
    case SIM_K_POOL: m->bt = r->mode == 2 ? BT_RSUM : BT_POOL; break;
    default: m->bt = BT_EW; break;
    }
    m->ofm_w = r->ofm_w;
    m->ofm_h = r->ofm_h;
    m->ofm_d = r->ofm_d;
    m->kw = ew ? 1 : r->kernel_w;
    m->kh = ew ? 1 : r->kernel_h;
    m->sx = ew ? 1 : r->stride_x;
    m->sy = ew ? 1 : r->stride_y;
    m->up = !ew && r->upscale ? 2 : 1;
    m->ifm_w = ew ? r->ofm_w : eu_ifm_extent(r->ofm_w, m->sx, m->kw, m->up == 2);
    m->ifm_h = ew ? r->ofm_h : eu_ifm_extent(r->ofm_h, m->sy, m->kh, m->up == 2);
    m->ifm_d = ew ? r->ofm_d : r->ifm_d;
    m->ifm_bits = r->ifm_bits;
    m->ofm_bits = r->ofm_bits;
    m->ifm_fmt = r->ifm_format == 1;
    m->ofm_fmt = r->ofm_format == 1;
    m->acc40 = r->acc40;
    m->has_bias = m->bt == BT_CONV || m->bt == BT_DW;
    m->partkernel = m->bt == BT_CONV && eu_model_partkernel(m->ifm_d, m->ifm_bits, (uint64_t)m->kw * m->kh);
    m->ifm2 = ew && r->ifm2_tensor;
    m->oned = a->ub_h == 2 && (m->bt == BT_CONV || m->bt == BT_DW) && m->ofm_h == 1 &&
              m->ofm_w % 2 == 0 && m->kh == 1;

    /* output cycles per element (sim_perf.c out_cycles_per_elem) */
    int idx;
    if (ew && m->ifm_bits == 32) idx = eu_ew_binary(r->mode) ? 0 : 1;
    else if (ew && r->mode == 0 && m->ofm_bits == 32) idx = 2;
    else if ((ew && r->mode == 0) || (!ew && m->acc40)) idx = 3;
    else if (ew && (r->mode == 1 || r->mode == 2)) idx = 5;
    else if (m->bt == BT_POOL && r->mode == 0) idx = 6;
    else idx = 7;
    double cpe = a->out_cpe[idx], act = a->act_cpe[r->uses_lut ? 0 : 2];
    m->cpe = act > cpe ? act : cpe;

    /* one port per placement: every access goes where region 1 is
     * (sim_perf_estimate's port setup) */
    unsigned axi_bytes = eu_variant_get(r->variant)->axi_bits / 8u;
    m->n_port = n_sys;
    for (unsigned p = 0; p < n_sys; p++) {
        const sim_memory *mem = &sys[p]->axi[sys[p]->region_port[1]];
        unsigned wb = mem->width_bytes && mem->width_bytes < axi_bytes ? mem->width_bytes : axi_bytes;
        m->port[p].bw = wb * (mem->clock_scale > 0 ? mem->clock_scale : 1.0);
        m->port[p].rlat = mem->read_latency;
        m->port[p].wlat = mem->write_latency;
        m->port[p].burst = mem->burst_bytes ? mem->burst_bytes : 32;
    }

    /* one byte per weight (the stream is not encoded yet: it depends on
     * the block depth), 10-byte scale records padded to 16 */
    if (m->bt == BT_CONV)
        m->weight_bytes = (double)r->ofm_d * r->ifm_d * m->kw * m->kh;
    else if (m->bt == BT_DW)
        m->weight_bytes = (double)r->ofm_d * m->kw * m->kh;
    if (m->has_bias) m->scale_bytes = eu_round_up(r->ofm_d * 10, 16);
    if (r->weight_cost > 1) {
        /* read from a slower memory: priced as that many more bytes */
        m->weight_bytes *= r->weight_cost;
        m->scale_bytes *= r->weight_cost;
    }
    double ofm_d_st = m->ofm_fmt == 1 ? eu_round_up(m->ofm_d, 16) : m->ofm_d;
    m->ofm_bytes = (double)m->ofm_w * m->ofm_h * ofm_d_st * (m->ofm_bits / 8.0);
    m->ifm_d_fetch = m->ifm_fmt == 1 ? eu_round_up(m->ifm_d, 16) : m->ifm_d;
    if (ew) {
        /* sim_perf.c ew_cycles and the elementwise part of kernel_traffic */
        m->ew_ofm_elems = (double)m->ofm_w * m->ofm_h * ofm_d_st;
        m->ew_ifm_bytes = (double)m->ofm_w * m->ofm_h * m->ifm_d_fetch * (m->ifm_bits / 8.0);
        if (m->ifm2) {
            if ((double)m->ofm_w * m->ofm_h * m->ofm_d > 1) m->ew_ifm2_bytes = m->ew_ifm_bytes;
            else if (m->ifm_bits > 8) m->ew_ifm2_bytes = m->ifm_bits / 8.0;
        }
    }

    /* the kernel in 8x8 sub-kernels: full ones, a right and a bottom
     * remainder, and the corner */
    m->sub = (double)eu_div_up(m->kw, 8) * eu_div_up(m->kh, 8);
    unsigned fx = m->kw / 8, rx = m->kw % 8, fy = m->kh / 8, ry = m->kh % 8;
    unsigned ex[2] = {8, rx}, cx[2] = {fx, rx ? 1 : 0}, ey[2] = {8, ry}, cy[2] = {fy, ry ? 1 : 0};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (cx[i] && cy[j]) {
                m->sub_elems[m->n_sub] = ex[i] * ey[j];
                m->sub_count[m->n_sub] = cx[i] * cy[j];
                m->n_sub++;
            }
}

/* The record the simulator's cycle model reads, for one block. */
static void eu_op_info(const eu_model *m, const eu_block_req *r, unsigned w, unsigned h, unsigned d,
                       sim_op_info *o)
{
    memset(o, 0, sizeof *o);
    o->kind = r->kind;
    o->mode = r->mode;
    o->ofm_w = m->ofm_w;
    o->ofm_h = m->ofm_h;
    o->ofm_d = m->ofm_d;
    o->ifm_w = m->ifm_w;
    o->ifm_h = m->ifm_h;
    o->ifm_d = m->ifm_d;
    o->kernel_w = m->kw;
    o->kernel_h = m->kh;
    o->stride_x = (uint8_t)m->sx;
    o->stride_y = (uint8_t)m->sy;
    o->upscale = m->up == 2 ? 1 : 0;
    o->blk_w = w;
    o->blk_h = h;
    o->blk_d = d;
    o->ifm_bits = o->ifm2_bits = (uint8_t)m->ifm_bits;
    o->ofm_bits = (uint8_t)m->ofm_bits;
    o->ifm_format = m->ifm_fmt;
    o->ofm_format = m->ofm_fmt;
    o->ifm2_tensor = m->ifm2;
    if (m->ifm2) o->ifm2_bytes = (uint64_t)m->ofm_w * m->ofm_h * m->ofm_d * (m->ifm_bits / 8);
    o->act_func = r->uses_lut ? 16 : 0;
    o->acc_bits = m->acc40 ? 40 : 32;
    o->ifm_region = o->ifm2_region = o->ofm_region = o->weight_region = o->scale_region = 1;
    o->weight_bytes = (uint64_t)m->weight_bytes;
    o->scale_bytes = (uint64_t)m->scale_bytes;
    o->dma_src_region = o->dma_dst_region = 0xFF;
}

/* ------------------------------------------------------- candidates */

/* At most 64 widths (micro-block 1); depth and height have fewer. */
enum { EU_AXIS_MAX = 72 };

/* Candidate block sizes along an axis of extent x, ascending: for every
 * number of blocks n, the smallest size covering x in n blocks. Sizes are
 * multiples of the micro-block ub, at most max. */
static unsigned eu_axis_sizes(uint32_t x, unsigned ub, unsigned max, unsigned *out)
{
    unsigned full = eu_round_up(x, ub);
    unsigned top = full < max ? full : max;
    unsigned tmp[EU_AXIS_MAX], n_tmp = 0;
    unsigned n = eu_div_up(x, top);
    for (;;) {
        unsigned b = n <= 1 ? full : eu_round_up(eu_div_up(x, n), ub);
        if (b > top) b = top;
        if ((n_tmp == 0 || b != tmp[n_tmp - 1]) && n_tmp < EU_AXIS_MAX) tmp[n_tmp++] = b;
        if (b <= ub) break;
        /* the next block count that gives a smaller size */
        unsigned nn = eu_div_up(x, b - ub);
        n = nn > n + 1 ? nn : n + 1;
    }
    for (unsigned i = 0; i < n_tmp; i++) out[i] = tmp[n_tmp - 1 - i];
    return n_tmp;
}

/* Depth: every legal size, ascending. Below the OFM depth a block depth
 * must be a multiple of 16 (docs/ethos-u.md 1.2), so there are at most nine;
 * the cycle model is not monotone within one block count here (burst
 * efficiency depends on the exact depth). */
static unsigned eu_depth_sizes(uint32_t x, unsigned ub, unsigned *out)
{
    unsigned n = 0, full = eu_round_up(x, ub);
    for (unsigned b = 16; b < x && b <= EU_BLK_MAX_D; b += 16) out[n++] = b;
    if (full <= EU_BLK_MAX_D) out[n++] = full;
    return n;
}

/* ------------------------------------------------------------ choose */

enum { EU_TOP = 4 };

typedef struct eu_cand { unsigned w, h, d; eu_cost c; } eu_cand;

/* The score of a block: its estimated cycles plus a small share of its
 * compute cycles. The placements the estimate sums are extremes (all in
 * SRAM, all in the arena's memory); where one of them is bound by memory
 * whatever the block, it hides what the block changes, yet a real
 * placement mixes the two (an IFM in DRAM, an OFM in SRAM) and is then
 * bound by compute: a block with far fewer compute cycles (wider blocks
 * that pay the per-block latency fewer times) wins there. A larger share
 * costs a little where the real placement is SRAM (on the zoo: 0.07 gave
 * some models 0.3% more cycles, 0.01 none). */
#define EU_COMP_WEIGHT 0.01

static double eu_score(double total, double comp) { return total + comp * EU_COMP_WEIGHT; }

/* Ranking: the lower score, then fewer compute cycles, then the larger block. */
static bool eu_better(eu_cost a, unsigned va, eu_cost b, unsigned vb)
{
    double sa = eu_score(a.total, a.comp), sb = eu_score(b.total, b.comp);
    if (sa != sb) return sa < sb;
    if (a.comp != b.comp) return a.comp < b.comp;
    return va > vb;
}

/* Keeps the EU_TOP best candidates, best first. */
static void eu_keep(eu_cand *top, unsigned *n_top, unsigned w, unsigned h, unsigned d, eu_cost c)
{
    unsigned v = w * h * d, n = *n_top;
    unsigned pos = n;
    while (pos > 0 && eu_better(c, v, top[pos - 1].c, top[pos - 1].w * top[pos - 1].h * top[pos - 1].d))
        pos--;
    if (pos >= EU_TOP) return;
    if (n < EU_TOP) n++;
    for (unsigned i = n - 1; i > pos; i--) top[i] = top[i - 1];
    top[pos] = (eu_cand){w, h, d, c};
    *n_top = n;
}

static int eu_check_req(const eu_block_req *r, npuc_err *err)
{
    if (!eu_variant_get(r->variant))
        return npuc_errf(err, NPUC_E_INVALID, "eu_block: unknown NPU variant %d", (int)r->variant);
    if (r->kind != SIM_K_CONV && r->kind != SIM_K_DEPTHWISE && r->kind != SIM_K_POOL &&
        r->kind != SIM_K_ELEMENTWISE)
        return npuc_errf(err, NPUC_E_INVALID, "eu_block: op kind %d is not a kernel operation",
                         (int)r->kind);
    const char *k = eu_kind_name(r);
    if ((r->kind == SIM_K_POOL && r->mode > 2) || (r->kind == SIM_K_ELEMENTWISE && r->mode > 9))
        return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s mode %u out of range", k, r->mode);
    if (!r->ofm_w || !r->ofm_h || !r->ofm_d || r->ofm_w > 65536 || r->ofm_h > 65536 ||
        r->ofm_d > 65536)
        return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s OFM %ux%ux%u outside 1..65536", k,
                         r->ofm_w, r->ofm_h, r->ofm_d);
    if (r->kind != SIM_K_ELEMENTWISE) {
        if (!r->ifm_d || r->ifm_d > 65536)
            return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s IFM depth %u outside 1..65536", k,
                             r->ifm_d);
        if (!r->kernel_w || !r->kernel_h || r->kernel_w > 65536 || r->kernel_h > 65536)
            return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s kernel %ux%u outside 1..65536", k,
                             r->kernel_w, r->kernel_h);
        if (r->stride_x < 1 || r->stride_x > 4 || r->stride_y < 1 || r->stride_y > 4)
            return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s stride %ux%u outside 1..4", k,
                             r->stride_x, r->stride_y);
    }
    if (r->ifm_bits != 8 && r->ifm_bits != 16 && r->ifm_bits != 32)
        return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s IFM of %u bits (8, 16 or 32)", k,
                         r->ifm_bits);
    if (r->ofm_bits != 8 && r->ofm_bits != 16 && r->ofm_bits != 32)
        return npuc_errf(err, NPUC_E_INVALID, "eu_block: %s OFM of %u bits (8, 16 or 32)", k,
                         r->ofm_bits);
    return NPUC_OK;
}

int eu_block_choose_cycles(const eu_block_req *req, eu_block *out, uint64_t *cycles, npuc_err *err)
{
    int rc = eu_check_req(req, err);
    if (rc) return rc;
    const eu_arch arch = eu_arch_of(req->variant), *a = &arch;
    eu_rules u;
    eu_rules_init(&u, req, a);
    /* the placements: everything in SRAM (AXI0 in every system), and
     * everything in the default system's arena memory if that is not SRAM */
    sim_system sram, arena;
    target_default_sim(req->variant, &arena);
    sram = arena;
    for (int i = 0; i < 8; i++) sram.region_port[i] = 0;
    const sim_system *sys[EU_PLACEMENTS] = {&sram, &arena};
    unsigned n_sys = arena.region_port[1] != 0 && !req->sram_only ? 2 : 1;
    eu_model m;
    eu_model_init(&m, req, a, sys, n_sys);

    /* candidate sizes and everything that depends on one axis only; a block
     * deeper than the OFM would only be padding */
    unsigned sz[EU_AXIS_MAX];
    eu_ax ax_w[EU_AXIS_MAX], ax_h[EU_AXIS_MAX], ax_d[EU_AXIS_MAX];
    unsigned nw = eu_axis_sizes(req->ofm_w, a->ub_w, EU_BLK_MAX_W, sz);
    for (unsigned i = 0; i < nw; i++) eu_ax_wh(&m, &u, true, sz[i], &ax_w[i]);
    unsigned nh = eu_axis_sizes(req->ofm_h, a->ub_h, EU_BLK_MAX_H, sz);
    for (unsigned i = 0; i < nh; i++) eu_ax_wh(&m, &u, false, sz[i], &ax_h[i]);
    unsigned nd = eu_depth_sizes(req->ofm_d, a->ub_d, sz);
    if (req->fixed_d) {
        unsigned keep = 0;
        for (unsigned i = 0; i < nd; i++)
            if (sz[i] == req->fixed_d) sz[keep++] = sz[i];
        if (!keep)
            return npuc_errf(err, NPUC_E_INVALID, "eu_block: block depth %u is not legal for an OFM depth of %u",
                             (unsigned)req->fixed_d, (unsigned)req->ofm_d);
        nd = keep;
    }
    for (unsigned i = 0; i < nd; i++) eu_ax_d(&m, &u, sz[i], &ax_d[i]);

    eu_cand top[EU_TOP];
    unsigned n_top = 0;
    double f_in[EU_AXIS_MAX][EU_PLACEMENTS], f_out[EU_AXIS_MAX][EU_PLACEMENTS];
    for (unsigned k = 0; k < nd; k++) {
        const eu_ax *z = &ax_d[k];
        unsigned nf = 0;   /* burst factors known for widths [0, nf) at this depth */
        bool any_h = false;
        for (unsigned j = 0; j < nh; j++) {
            const eu_ax *y = &ax_h[j];
            bool any_w = false;
            for (unsigned i = 0; i < nw; i++) {
                const eu_ax *x = &ax_w[i];
                /* buffers grow with every dimension: the first misfit ends the row */
                if (!eu_fits(&u, eu_banks_of(&u, x->rule, y->rule, z->rule, x->b, y->b, z->apix)))
                    break;
                any_w = true;
                if (i >= nf) {
                    for (unsigned p = 0; p < m.n_port; p++) {
                        f_in[i][p] = eu_burst_factor(&m, &m.port[p], true, m.ifm_fmt, m.ifm_bits,
                                                     x->ib, z->ib, m.ifm_w);
                        f_out[i][p] = eu_burst_factor(&m, &m.port[p], false, m.ofm_fmt, m.ofm_bits,
                                                      x->b, z->b, m.ofm_w);
                    }
                    nf = i + 1;
                }
                eu_keep(top, &n_top, x->b, y->b, z->b, eu_estimate(&m, x, y, z, f_in[i], f_out[i]));
            }
            if (!any_w) break;
            any_h = true;
        }
        if (!any_h) break;
    }
    if (n_top == 0) {
        unsigned w = ax_w[0].b, h = ax_h[0].b, d = ax_d[0].b;
        eu_banks n = eu_banks_for(&u, a, w, h, d);
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "eu_block: no OFM block fits the %u-bank SHRAM of %s for %s with OFM "
                         "%ux%ux%u, kernel %ux%u, stride %ux%u, %u-bit IFM: the smallest block "
                         "%ux%ux%u needs %u IFM + %u IFM2 + %u accumulator banks, %u are free "
                         "(2 output banks, %u LUT banks)",
                         a->banks, eu_variant_name(req->variant), eu_kind_name(req), req->ofm_w,
                         req->ofm_h, req->ofm_d, req->kernel_w, req->kernel_h, req->stride_x,
                         req->stride_y, req->ifm_bits, w, h, d, n.ifm, n.ifm2, n.acc,
                         u.lut_start - 2, a->banks - u.lut_start);
    }

    /* the final say: the simulator's own cycle model on the best few */
    unsigned best = 0;
    uint64_t best_cyc = 0, best_comp = 0;
    for (unsigned i = 0; i < n_top; i++) {
        uint64_t cyc = 0, comp = 0;
        for (unsigned p = 0; p < n_sys; p++) {
            sim_op_info o;
            eu_op_info(&m, req, top[i].w, top[i].h, top[i].d, &o);
            sim_perf_estimate(req->variant, sys[p], &o, 1);
            cyc += o.cycles;
            comp += o.cycles_compute;
        }
        double sc = eu_score((double)cyc, (double)comp), sb = eu_score((double)best_cyc, (double)best_comp);
        if (i == 0 || sc < sb || (sc == sb && comp < best_comp)) {
            best = i;
            best_cyc = cyc;
            best_comp = comp;
        }
    }
    const eu_cand *c = &top[best];
    eu_registers(&u, a, req, c->w, c->h, c->d, eu_banks_for(&u, a, c->w, c->h, c->d), out);
    if (cycles) *cycles = best_cyc;
    return NPUC_OK;
}

int eu_block_choose(const eu_block_req *req, eu_block *out, npuc_err *err)
{
    return eu_block_choose_cycles(req, out, NULL, err);
}
