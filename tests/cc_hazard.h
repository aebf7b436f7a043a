/* cc_hazard: checks that a command stream's waits and BLOCKDEP values keep
 * every pair of operations that may run at the same time apart in memory
 * (docs/ethos-u.md 8.2, 8.3). The virtual NPU runs commands one after another,
 * so a missing wait never changes its output; this check is what catches
 * one.
 *
 * What may overlap, as the cycle model and Vela assume: a DMA runs while
 * the kernel ops issued before it and not yet waited for run (at most the
 * last two), and a kernel op runs while the DMAs issued before it and not
 * waited for run (at most 1 on U55, 2 on U65). A kernel op with BLOCKDEP > 0
 * may start while the previous kernel op drains; with BLOCKDEP 0 it starts
 * after it (1 and 2, which only Vela emits, are taken on trust). A conflict is a write of one that overlaps a read or a write of
 * the other, in the same region. SHRAM counts as one more region for the
 * LUT banks only: a LUT DMA writes its slots, a kernel op with a LUT
 * activation reads its table (256 B for an 8-bit OFM, 1 KiB for a 32-bit
 * one, 2 KiB for 16-bit) at its slot of the top two banks; the other SHRAM
 * uses (input and accumulator buffers, the LUT banks too on 16-bank parts,
 * where the compiler waits for every kernel op before a LUT DMA) are not
 * modelled.
 * Ranges are bounding boxes of each tile's bytes. A kernel op may also
 * write over its own input only in place: pointwise, at the same positions
 * (hz_self_conflict). */
#ifndef CC_HAZARD_H
#define CC_HAZARD_H

#include "../src/sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hz_range {
    uint8_t region;
    uint64_t lo, hi;
    bool write;
    uint8_t src;              /* HZ_IFM, HZ_IFM2, HZ_OFM, HZ_OTHER */
} hz_range;

enum { HZ_OTHER = 0, HZ_IFM, HZ_IFM2, HZ_OFM };

typedef struct hz_op {
    hz_range r[12];
    int n;
    size_t cmd;               /* command index, for messages */
    bool dma;
} hz_op;

static void hz_add(hz_op *o, uint8_t region, uint64_t lo, uint64_t len, bool write)
{
    if (!len || o->n >= 12) return;
    o->r[o->n++] = (hz_range){(uint8_t)(region & 7), lo, lo + len, write, HZ_OTHER};
}

/* The pseudo-region of SHRAM's LUT banks (above the 8 memory regions). */
enum { HZ_SHRAM = 8 };

static void hz_add_shram(hz_op *o, uint64_t lo, uint64_t len, bool write)
{
    if (!len || o->n >= 12) return;
    o->r[o->n++] = (hz_range){HZ_SHRAM, lo, lo + len, write, HZ_OTHER};
}

/* Bytes of a feature map: rows x cols at tile bases (tiles 1 and 3 right of
 * WIDTH0, tiles 2 and 3 below HEIGHT0 / HEIGHT1). */
static void hz_fm(hz_op *o, const sim_fm *f, uint32_t h, uint32_t w, uint32_t d, bool write, uint8_t src)
{
    if (!h || !w || !d) return;
    int first = o->n;
    uint64_t eb = f->bits ? f->bits / 8u : 1;
    uint64_t cext = f->format == 1 ? (uint64_t)((d - 1) / 16) * f->stride_c + ((d - 1) % 16) * eb
                                   : (uint64_t)(d - 1) * f->stride_c;
    uint32_t w0 = f->width0 && f->width0 < w ? f->width0 : w;
    for (int t = 0; t < 4; t++) {
        bool right = t & 1, below = t & 2;
        uint32_t h0 = right ? f->height1 : f->height0;
        if (!h0 || h0 > h) h0 = h;
        uint32_t rows = below ? h - h0 : h0, cols = right ? w - w0 : w0;
        if (!rows || !cols) continue;
        uint64_t len = (uint64_t)(rows - 1) * f->stride_y + (uint64_t)(cols - 1) * f->stride_x + cext + eb;
        hz_add(o, f->region, f->base[t], len, write);
    }
    for (int i = first; i < o->n; i++) o->r[i].src = src;
}

static bool hz_conflict(const hz_op *a, const hz_op *b, char *msg, size_t n)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            const hz_range *x = &a->r[i], *y = &b->r[j];
            if (!x->write && !y->write) continue;
            if (x->region != y->region || x->hi <= y->lo || y->hi <= x->lo) continue;
            snprintf(msg, n,
                     "command %zu (%s) and command %zu (%s) may run together and touch region %u "
                     "[0x%llx, 0x%llx) / [0x%llx, 0x%llx)%s",
                     b->cmd, b->dma ? "DMA" : "kernel op", a->cmd, a->dma ? "DMA" : "kernel op",
                     x->region, (unsigned long long)y->lo, (unsigned long long)y->hi,
                     (unsigned long long)x->lo, (unsigned long long)x->hi,
                     x->write && y->write ? " (both write)" : "");
            return true;
        }
    return false;
}

/* The byte address of element (y, x, c) of a feature map, as the NPU
 * resolves it (docs/ethos-u.md 4.1-4.3): its tile, the row and column in
 * it, the channel (NHWC: c elements on; NHCWB16: c / 16 bricks of stride_c
 * and c % 16 elements). */
static uint64_t hz_elem(const sim_fm *f, uint32_t y, uint32_t x, uint32_t c)
{
    uint64_t eb = f->bits ? f->bits / 8u : 1;
    int t = 0;
    if (f->width0 && x >= f->width0) {
        x -= f->width0;
        t = 1;
    }
    uint32_t h = t ? f->height1 : f->height0;
    if (h && y >= h) {
        y -= h;
        t += 2;
    }
    uint64_t cb = f->format == 1 ? (uint64_t)(c / 16) * f->stride_c + (c % 16) * eb : (uint64_t)c * eb;
    return f->base[t] + (uint64_t)y * f->stride_y + (uint64_t)x * f->stride_x + cb;
}

/* An op whose OFM shares bytes with one of its own inputs (in place) is
 * safe only when each byte it writes is read, if at all, as the same
 * element of a pointwise op (elementwise, or a 1x1 stride-1 unpadded pool
 * without upscaling) and of no other output position (no broadcast): the
 * op then reads each element before it writes the result to its address,
 * and no block reads what another block wrote. Checked byte by byte: true
 * (with a message) when op o (decoded into s / info) writes over an input
 * in any other way. */
static bool hz_self_conflict(const sim_state *s, const sim_op_info *info, const hz_op *o, char *msg, size_t n)
{
    const hz_range *w = NULL;
    uint64_t lo = UINT64_MAX, hi = 0;
    bool touch = false;
    for (int i = 0; i < o->n; i++) {
        if (o->r[i].src != HZ_OFM) continue;
        w = &o->r[i];
        if (w->lo < lo) lo = w->lo;
        if (w->hi > hi) hi = w->hi;
        for (int j = 0; j < o->n; j++) {
            const hz_range *r = &o->r[j];
            if (r->write || r->region != w->region || w->hi <= r->lo || r->hi <= w->lo) continue;
            if (r->src == HZ_OTHER) {
                snprintf(msg, n, "command %zu (kernel op) writes region %u [0x%llx, 0x%llx) over its own weights or scales",
                         o->cmd, w->region, (unsigned long long)w->lo, (unsigned long long)w->hi);
                return true;
            }
            touch = true;
        }
    }
    if (!touch) return false;
    bool pointwise = info->kind == SIM_K_ELEMENTWISE ||
                     (info->kind == SIM_K_POOL && info->kernel_w == 1 && info->kernel_h == 1 &&
                      info->stride_x == 1 && info->stride_y == 1 && !info->upscale && !s->pad_top &&
                      !s->pad_left && !s->pad_right && !s->pad_bottom);
    /* owner[a - lo]: 1 + the OFM element written at byte a, 0 none */
    uint64_t span = hi - lo;
    uint32_t *owner = calloc(span ? span : 1, sizeof *owner);
    if (!owner) return false;
    uint64_t eb = s->ofm.bits ? s->ofm.bits / 8u : 1;
    uint32_t H = info->ofm_h, W = info->ofm_w, D = info->ofm_d;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            for (uint32_t c = 0; c < D; c++) {
                uint64_t a = hz_elem(&s->ofm, y, x, c);
                for (uint64_t k = 0; k < eb; k++)
                    if (a + k >= lo && a + k < hi) owner[a + k - lo] = 1 + (uint32_t)(((uint64_t)y * W + x) * D + c);
            }
    bool bad = false;
    const char *which = "IFM";
    for (int op = 0; op < 2 && !bad; op++) {
        const sim_fm *f = op ? &s->ifm2 : &s->ifm;
        if (op && !info->ifm2_tensor) break;
        if (f->region != s->ofm.region) continue;
        uint32_t h = op ? (s->bcast_h ? 1 : H) : info->ifm_h, wd = op ? (s->bcast_w ? 1 : W) : info->ifm_w;
        uint32_t d = op ? (s->bcast_c ? 1 : D) : info->ifm_d;
        bool bcast = op && (s->bcast_h || s->bcast_w || s->bcast_c) && (H > 1 || W > 1 || D > 1);
        uint64_t fb = f->bits ? f->bits / 8u : 1;
        for (uint32_t y = 0; y < h && !bad; y++)
            for (uint32_t x = 0; x < wd && !bad; x++)
                for (uint32_t c = 0; c < d && !bad; c++) {
                    uint64_t a = hz_elem(f, y, x, c);
                    uint32_t me = 1 + (uint32_t)(((uint64_t)y * W + x) * D + c);
                    for (uint64_t k = 0; k < fb && !bad; k++) {
                        if (a + k < lo || a + k >= hi || !owner[a + k - lo]) continue;
                        /* written: fine only as this very element, read by
                         * this output position alone, byte for byte */
                        bad = !pointwise || bcast || fb != eb || h != H || wd != W || d != D ||
                              owner[a + k - lo] != me || hz_elem(&s->ofm, y, x, c) != a;
                        if (bad) {
                            which = op ? "IFM2" : "IFM";
                            snprintf(msg, n,
                                     "command %zu (kernel op) writes region %u byte 0x%llx of its own %s "
                                     "element (%u, %u, %u) at another position",
                                     o->cmd, w->region, (unsigned long long)(a + k), which, y, x, c);
                        }
                    }
                }
    }
    free(owner);
    return bad;
}

/* 0 when the stream of a COP1 payload is free of hazards; else 1 with a
 * message (or -1 when the payload does not decode). kernel_pairs: check
 * consecutive kernel ops against BLOCKDEP too (Vela lets an op with
 * BLOCKDEP 3 overwrite the input of the previous one, on its own reasoning
 * about which blocks run together; the compiler does not). */
static int cc_hazard_check(const uint8_t *payload, size_t size, eu_variant v, bool kernel_pairs, char *msg,
                           size_t n)
{
    npuc_err err = {0};
    sim_cop1 cop;
    sim_cmd *cmds = NULL;
    size_t nc = 0;
    if (sim_cop1_parse(payload, size, &cop, &err) ||
        sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &nc, &err)) {
        snprintf(msg, n, "payload does not decode: %.200s", err.msg);
        return -1;
    }
    size_t max_dma = eu_variant_is_u65(v) ? 2 : 1;
    hz_op kq[3], dq[3];       /* outstanding kernel ops / DMAs, oldest first */
    size_t nk = 0, nd = 0;
    sim_state s;
    sim_state_reset(&s);
    int rc = 0;
    for (size_t i = 0; i < nc && !rc; i++) {
        const sim_cmd *c = &cmds[i];
        sim_state_apply(&s, c, v);
        if (c->code == EU_OP_KERNEL_WAIT || c->code == EU_OP_DMA_WAIT) {
            hz_op *q = c->code == EU_OP_KERNEL_WAIT ? kq : dq;
            size_t *nq = c->code == EU_OP_KERNEL_WAIT ? &nk : &nd;
            size_t keep = c->param;
            while (*nq > keep) memmove(q, q + 1, sizeof *q * --*nq);
            continue;
        }
        bool dma = c->code == EU_OP_DMA_START;
        if (!dma && !eu_cmd_is_kernel_op(c->code)) continue;
        hz_op o;
        memset(&o, 0, sizeof o);
        o.cmd = i;
        o.dma = dma;
        if (dma) {
            if (!s.dma.src_internal) hz_add(&o, s.dma.src_region, s.dma.src, s.dma.len, false);
            if (!s.dma.dst_internal) hz_add(&o, s.dma.dst_region, s.dma.dst, s.dma.len, true);
            else hz_add_shram(&o, s.dma.dst, s.dma.len, true);
            for (size_t k = 0; k < nk && !rc; k++) rc = hz_conflict(&kq[k], &o, msg, n);
            if (nd == max_dma) memmove(dq, dq + 1, sizeof *dq * --nd);
            dq[nd++] = o;
            continue;
        }
        sim_op_info info;
        sim_op_info_from_state(&s, c, i, v, &info);
        hz_fm(&o, &s.ifm, info.ifm_h, info.ifm_w, info.ifm_d, false, HZ_IFM);
        if (info.ifm2_tensor)
            hz_fm(&o, &s.ifm2, s.bcast_h ? 1 : info.ofm_h, s.bcast_w ? 1 : info.ofm_w,
                  s.bcast_c ? 1 : info.ofm_d, false, HZ_IFM2);
        hz_fm(&o, &s.ofm, info.ofm_h, info.ofm_w, info.ofm_d, true, HZ_OFM);
        if (s.act_func >= EU_ACT_LUT0 && s.act_func <= EU_ACT_LUT7) {
            uint64_t lut_start = (uint64_t)(eu_variant_shram_banks(v) - EU_LUT_BANKS) * EU_SHRAM_BANK_BYTES;
            uint64_t tsize = s.ofm.bits == 32 ? 1024 : s.ofm.bits == 16 ? 2048 : 256;
            hz_add_shram(&o, lut_start + (uint64_t)(s.act_func - EU_ACT_LUT0) * EU_LUT_SLOT_BYTES, tsize, false);
        }
        if (c->code == EU_OP_CONV || c->code == EU_OP_DEPTHWISE) {
            for (int k = 0; k < 2; k++) {
                hz_add(&o, s.weight_region, s.weight_base[k], s.weight_length[k], false);
                hz_add(&o, s.scale_region, s.scale_base[k], s.scale_length[k], false);
            }
        }
        rc = hz_self_conflict(&s, &info, &o, msg, n);
        for (size_t k = 0; k < nd && !rc; k++) rc = hz_conflict(&dq[k], &o, msg, n);
        /* BLOCKDEP 3: it may start while the previous op drains (the one
         * before that has finished) and must not touch what that one writes
         * or write what it reads; 0: it starts after it; 1, 2: as many of its
         * first blocks may overlap the previous op's last ones (Vela's
         * values; their block geometry is not checked here, the compiler
         * emits only 0 and 3) */
        if (kernel_pairs && s.blockdep == 3 && nk && !rc) rc = hz_conflict(&kq[nk - 1], &o, msg, n);
        /* the stream issues a third kernel op only when the first is done */
        if (nk == 2) memmove(kq, kq + 1, sizeof *kq * --nk);
        kq[nk++] = o;
    }
    free(cmds);
    return rc;
}

/* Every command stream of a compiled model (cc_model, compiler/cc.h,
 * included first); false (printed as a FAIL of cs) on the first hazard. */
#ifdef NPUC_CC_H
static inline bool cc_hazard_model(const cc_model *cm, eu_variant v, const char *cs)
{
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        const cc_epoch *ep = &cm->epochs[i];
        char hz[320];
        if (ep->kind == CC_EPOCH_HW && cc_hazard_check(ep->payload, ep->payload_size, v, true, hz, sizeof hz)) {
            fprintf(stderr, "FAIL %s: epoch %d: %s\n", cs, (int)i, hz);
            return false;
        }
    }
    return true;
}
#endif

#endif
