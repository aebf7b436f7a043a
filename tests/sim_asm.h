/* sim_asm.h: a small command-stream assembler and driver-style runner for
 * the virtual NPU's unit tests (header-only: every tests/test_*.c is its own
 * executable). Facts: docs/ethos-u.md sections 2-4, 6.2-6.3, 7, 9.4-9.5; every
 * command word is made by the command table (src/ethosu/eu_cmd.h) from field
 * values, registers and variants come from src/ethosu too.
 *
 *   sa_stream    command words; sa_cmd0 / sa_cmd1 append one command
 *   sa_fm        a feature-map descriptor (region, tile bases and geometry,
 *                strides, precision, zero point) with host-side addressing
 *                (sa_fm_offset / sa_fm_put / sa_fm_get / sa_fm_write / sa_fm_read)
 *                and the commands that program it (sa_set_ifm/ifm2/ofm)
 *   sa_set_*     kernel, padding, upscale, block/SHRAM config, weights,
 *                scales, output scale, activation, IFM2 broadcast, DMA
 *   sa_mlw_*     the "simplest valid" MLW encoding of a weight list, and
 *                sa_weights: W[o][ky][kx][i] placed in hardware traversal order
 *   sa_scale_rec 10-byte scale/bias records
 *   sa_npu       a sim_npu with up to 8 region buffers; sa_run maps them,
 *                writes QBASE/QSIZE/BASEPn, CMD = go, and returns STATUS */
#ifndef NPUC_TESTS_SIM_ASM_H
#define NPUC_TESTS_SIM_ASM_H

#include "sim/sim.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ stream */

typedef struct sa_stream {
    uint32_t *w;
    size_t n, cap;
} sa_stream;

static inline void sa_init(sa_stream *s) { memset(s, 0, sizeof *s); }
static inline void sa_free(sa_stream *s) { free(s->w); memset(s, 0, sizeof *s); }
static inline void sa_reset(sa_stream *s) { s->n = 0; }
/* Byte offset of the next command. */
static inline size_t sa_here(const sa_stream *s) { return s->n * 4; }
static inline size_t sa_bytes(const sa_stream *s) { return s->n * 4; }

static inline void sa_word(sa_stream *s, uint32_t w)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        uint32_t *p = realloc(s->w, cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "sim_asm: out of memory\n");
            exit(2);
        }
        s->w = p;
        s->cap = cap;
    }
    s->w[s->n++] = w;
}

/* A command from its operand (cmd0: the param; cmd1: param << 32 |
 * payload), unchecked: tests also write invalid ones. */
static inline void sa_cmd(sa_stream *s, uint16_t code, uint64_t operand)
{
    uint32_t w[2];
    unsigned n = eu_cmd_words(code, operand, w);
    for (unsigned i = 0; i < n; i++) sa_word(s, w[i]);
}

/* cmd0: EU_OP_* / EU_SET_* code, raw param. */
static inline void sa_cmd0(sa_stream *s, uint16_t code, uint16_t param) { sa_cmd(s, code, param); }

/* cmd1: code, payload word, raw param (U65 address bits 39:32, or the shift
 * of OFM/OPA_SCALE). */
static inline void sa_cmd1(sa_stream *s, uint16_t code, uint32_t payload, uint16_t param)
{
    sa_cmd(s, code, (uint64_t)param << 32 | payload);
}

/* A one-field command from its value (M1 registers: the size itself). */
static inline void sa_set(sa_stream *s, uint16_t code, int64_t value) { sa_cmd(s, code, eu_pack1(code, value)); }

/* An address/stride/length register (40-bit value). */
static inline void sa_addr(sa_stream *s, uint16_t code, uint64_t v) { sa_set(s, code, (int64_t)v); }

static inline void sa_stop(sa_stream *s) { sa_set(s, EU_OP_STOP, 0xFFFF); }

/* Stream bytes (little-endian words) into a malloc'd buffer. */
static inline uint8_t *sa_stream_bytes(const sa_stream *s)
{
    uint8_t *b = malloc(s->n ? s->n * 4 : 4);
    if (!b) {
        fprintf(stderr, "sim_asm: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < s->n; i++) {
        b[4 * i] = (uint8_t)s->w[i];
        b[4 * i + 1] = (uint8_t)(s->w[i] >> 8);
        b[4 * i + 2] = (uint8_t)(s->w[i] >> 16);
        b[4 * i + 3] = (uint8_t)(s->w[i] >> 24);
    }
    return b;
}

/* ------------------------------------------------------- feature maps */

enum { SA_NHWC = EU_FMT_NHWC, SA_NHCWB16 = EU_FMT_NHCWB16 };
enum { SA_ROUND_TFL = EU_ROUND_TFL, SA_ROUND_TRUNCATE = EU_ROUND_TRUNCATE, SA_ROUND_NATURAL = EU_ROUND_NATURAL };

typedef struct sa_fm {
    uint8_t region;
    uint64_t base[4];        /* tile bases, offsets inside the region */
    uint32_t h, w, c;        /* OFM: the programmed size; IFM: stored extent
                              * (only c is programmed, as IFM_DEPTH_M1) */
    uint32_t w0, h0, h1;     /* tile split; sa_fm_finish sets 0 to w, h, h */
    uint64_t sx, sy, sc;     /* byte strides; 0 = layout default */
    uint8_t bits;            /* 8, 16, 32 */
    bool sgn;
    uint8_t format;          /* SA_NHWC / SA_NHCWB16 */
    int32_t zp;
    uint8_t scale_mode;      /* IFM: 0/1/2 (OPA/OPB); OFM: 0 per-channel, 1 global */
    uint8_t round;           /* SA_ROUND_* (IFM and OFM precision field) */
} sa_fm;

static inline uint32_t sa_round_up(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }

/* Fills the defaults: one tile, Vela's strides (docs/ethos-u.md 4.1, 4.2). */
static inline void sa_fm_finish(sa_fm *f)
{
    uint64_t es = f->bits / 8;
    if (!f->w0) f->w0 = f->w;
    if (!f->h0) f->h0 = f->h;
    if (!f->h1) f->h1 = f->h;
    if (f->format == SA_NHCWB16) {
        if (!f->sx) f->sx = 16 * es;
        if (!f->sc) f->sc = 16 * es * f->w;
        if (!f->sy) f->sy = es * f->w * sa_round_up(f->c, 16);
    } else {
        if (!f->sx) f->sx = f->c * es;
        if (!f->sy) f->sy = (uint64_t)f->w * f->c * es;
        if (!f->sc) f->sc = es;
    }
}

static inline sa_fm sa_fm_make(uint8_t region, uint64_t base, uint32_t h, uint32_t w, uint32_t c,
                               uint8_t bits, bool sgn, uint8_t format)
{
    sa_fm f;
    memset(&f, 0, sizeof f);
    f.region = region;
    f.base[0] = f.base[1] = f.base[2] = f.base[3] = base;
    f.h = h;
    f.w = w;
    f.c = c;
    f.bits = bits;
    f.sgn = sgn;
    f.format = format;
    sa_fm_finish(&f);
    return f;
}

/* Byte offset (inside the region) of element (y, x, c), tiles as 4.3. */
static inline uint64_t sa_fm_offset(const sa_fm *f, uint32_t y, uint32_t x, uint32_t c)
{
    unsigned t;
    uint32_t ly = y, lx = x;
    if (x < f->w0) {
        t = y < f->h0 ? 0 : 2;
        if (t == 2) ly = y - f->h0;
    } else {
        lx = x - f->w0;
        t = y < f->h1 ? 1 : 3;
        if (t == 3) ly = y - f->h1;
    }
    uint64_t es = f->bits / 8;
    uint64_t o = f->base[t] + ly * f->sy + lx * f->sx;
    if (f->format == SA_NHCWB16)
        return o + (c >> 4) * f->sc + (c & 15) * es;
    return o + c * es;
}

/* Bytes a region needs to hold this map (largest offset + element). */
static inline size_t sa_fm_extent(const sa_fm *f)
{
    uint64_t m = 0;
    for (uint32_t y = 0; y < f->h; y++)
        for (uint32_t x = 0; x < f->w; x++)
            for (uint32_t c = 0; c < f->c; c++) {
                uint64_t o = sa_fm_offset(f, y, x, c) + f->bits / 8;
                if (o > m) m = o;
            }
    return (size_t)m;
}

static inline void sa_store(uint8_t *p, unsigned es, int64_t v)
{
    for (unsigned i = 0; i < es; i++) p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static inline int64_t sa_load(const uint8_t *p, unsigned es, bool sgn)
{
    uint64_t u = 0;
    for (unsigned i = 0; i < es; i++) u |= (uint64_t)p[i] << (8 * i);
    if (sgn && es < 8 && (u >> (8 * es - 1)) & 1) u |= ~0ull << (8 * es);
    return (int64_t)u;
}

static inline void sa_fm_put(uint8_t *region, const sa_fm *f, uint32_t y, uint32_t x, uint32_t c,
                             int64_t v)
{
    sa_store(region + sa_fm_offset(f, y, x, c), f->bits / 8u, v);
}

static inline int64_t sa_fm_get(const uint8_t *region, const sa_fm *f, uint32_t y, uint32_t x,
                                uint32_t c)
{
    return sa_load(region + sa_fm_offset(f, y, x, c), f->bits / 8u, f->sgn);
}

/* Dense NHWC [h][w][c] int32 values <-> the map's layout. */
static inline void sa_fm_write(uint8_t *region, const sa_fm *f, const int32_t *dense)
{
    for (uint32_t y = 0; y < f->h; y++)
        for (uint32_t x = 0; x < f->w; x++)
            for (uint32_t c = 0; c < f->c; c++)
                sa_fm_put(region, f, y, x, c, dense[((size_t)y * f->w + x) * f->c + c]);
}

static inline void sa_fm_read(const uint8_t *region, const sa_fm *f, int32_t *dense)
{
    for (uint32_t y = 0; y < f->h; y++)
        for (uint32_t x = 0; x < f->w; x++)
            for (uint32_t c = 0; c < f->c; c++)
                dense[((size_t)y * f->w + x) * f->c + c] = (int32_t)sa_fm_get(region, f, y, x, c);
}

/* The registers of one feature map: which = 0 IFM, 1 IFM2, 2 OFM. */
static inline void sa_set_fm_common(sa_stream *s, const sa_fm *f, int which)
{
    static const uint16_t region[3] = {EU_SET_IFM_REGION, EU_SET_IFM2_REGION, EU_SET_OFM_REGION};
    static const uint16_t base[3][4] = {
        {EU_SET_IFM_BASE0, EU_SET_IFM_BASE1, EU_SET_IFM_BASE2, EU_SET_IFM_BASE3},
        {EU_SET_IFM2_BASE0, EU_SET_IFM2_BASE1, EU_SET_IFM2_BASE2, EU_SET_IFM2_BASE3},
        {EU_SET_OFM_BASE0, EU_SET_OFM_BASE1, EU_SET_OFM_BASE2, EU_SET_OFM_BASE3}};
    static const uint16_t geom[3][3] = {   /* HEIGHT0, HEIGHT1, WIDTH0 */
        {EU_SET_IFM_HEIGHT0_M1, EU_SET_IFM_HEIGHT1_M1, EU_SET_IFM_WIDTH0_M1},
        {EU_SET_IFM2_HEIGHT0_M1, EU_SET_IFM2_HEIGHT1_M1, EU_SET_IFM2_WIDTH0_M1},
        {EU_SET_OFM_HEIGHT0_M1, EU_SET_OFM_HEIGHT1_M1, EU_SET_OFM_WIDTH0_M1}};
    static const uint16_t stride[3][3] = {   /* C, Y, X */
        {EU_SET_IFM_STRIDE_C, EU_SET_IFM_STRIDE_Y, EU_SET_IFM_STRIDE_X},
        {EU_SET_IFM2_STRIDE_C, EU_SET_IFM2_STRIDE_Y, EU_SET_IFM2_STRIDE_X},
        {EU_SET_OFM_STRIDE_C, EU_SET_OFM_STRIDE_Y, EU_SET_OFM_STRIDE_X}};
    sa_cmd(s, region[which], eu_pack_region(region[which], f->region));
    for (int t = 0; t < 4; t++) sa_addr(s, base[which][t], f->base[t]);
    sa_set(s, geom[which][0], f->h0);
    sa_set(s, geom[which][1], f->h1);
    sa_set(s, geom[which][2], f->w0);
    if (which == 2) {
        sa_set(s, EU_SET_OFM_HEIGHT_M1, f->h);
        sa_set(s, EU_SET_OFM_WIDTH_M1, f->w);
        sa_set(s, EU_SET_OFM_DEPTH_M1, f->c);
    }
    sa_addr(s, stride[which][0], f->sc);
    sa_addr(s, stride[which][1], f->sy);
    sa_addr(s, stride[which][2], f->sx);
}

/* IFM: region, tile bases/geometry, strides, zero point, precision, depth. */
static inline void sa_set_ifm(sa_stream *s, const sa_fm *f)
{
    sa_set_fm_common(s, f, 0);
    sa_set(s, EU_SET_IFM_ZERO_POINT, f->zp);
    sa_set(s, EU_SET_IFM_DEPTH_M1, f->c);
    sa_cmd(s, EU_SET_IFM_PRECISION,
           eu_pack_precision(EU_SET_IFM_PRECISION, f->sgn, f->bits, f->format, f->scale_mode, f->round));
}

static inline void sa_set_ifm2(sa_stream *s, const sa_fm *f)
{
    sa_set_fm_common(s, f, 1);
    sa_set(s, EU_SET_IFM2_ZERO_POINT, f->zp);
    sa_cmd(s, EU_SET_IFM2_PRECISION, eu_pack_precision(EU_SET_IFM2_PRECISION, f->sgn, f->bits, f->format, 0, 0));
}

/* Scalar IFM2: only precision and zero point (what Vela writes). */
static inline void sa_set_ifm2_scalar(sa_stream *s, int32_t value, uint8_t bits, bool sgn,
                                      int32_t zp)
{
    sa_set(s, EU_SET_IFM2_ZERO_POINT, zp);
    sa_cmd(s, EU_SET_IFM2_PRECISION, eu_pack_precision(EU_SET_IFM2_PRECISION, sgn, bits, EU_FMT_NHWC, 0, 0));
    sa_set(s, EU_SET_IFM2_SCALAR, value);
}

static inline void sa_set_ofm(sa_stream *s, const sa_fm *f)
{
    sa_set_fm_common(s, f, 2);
    sa_set(s, EU_SET_OFM_ZERO_POINT, f->zp);
    sa_cmd(s, EU_SET_OFM_PRECISION,
           eu_pack_precision(EU_SET_OFM_PRECISION, f->sgn, f->bits, f->format, f->scale_mode & 1, f->round));
}

/* ------------------------------------------------------- kernel, pads */

/* kw x kh undilated taps, strides 1-4, dilation 1-2, weight order. */
static inline void sa_set_kernel(sa_stream *s, uint32_t kw, uint32_t kh, unsigned stride_x,
                                 unsigned stride_y, unsigned dil_x, unsigned dil_y, bool pkf)
{
    sa_set(s, EU_SET_KERNEL_WIDTH_M1, (int64_t)dil_x * (kw - 1) + 1);
    sa_set(s, EU_SET_KERNEL_HEIGHT_M1, (int64_t)dil_y * (kh - 1) + 1);
    sa_cmd(s, EU_SET_KERNEL_STRIDE, eu_pack_kernel_stride(stride_x, stride_y, dil_x, dil_y, pkf));
}

static inline void sa_set_pad(sa_stream *s, unsigned top, unsigned left, unsigned bottom,
                              unsigned right)
{
    sa_set(s, EU_SET_IFM_PAD_TOP, top);
    sa_set(s, EU_SET_IFM_PAD_LEFT, left);
    sa_set(s, EU_SET_IFM_PAD_BOTTOM, bottom);
    sa_set(s, EU_SET_IFM_PAD_RIGHT, right);
}

/* Padding after the IFM so that the NPU's derived extent (docs/ethos-u.md 5.2)
 * covers `in` stored elements: max(0, (out-1)*stride + dil*(k-1)+1 - before - in). */
static inline unsigned sa_pad_after(uint32_t in, uint32_t out, uint32_t k, unsigned stride,
                                    unsigned dil, unsigned before)
{
    int64_t need = (int64_t)(out - 1) * stride + (int64_t)dil * (k - 1) + 1 - before - in;
    return need > 0 ? (unsigned)need : 0;
}

static inline void sa_set_upscale(sa_stream *s, unsigned mode) { sa_set(s, EU_SET_IFM_UPSCALE, mode); }

/* ------------------------------------------------- block / SHRAM config */

/* OFM micro-block of a variant (docs/ethos-u.md 1.1). */
static inline void sa_ublock(eu_variant v, unsigned *w, unsigned *h, unsigned *d)
{
    const uint8_t *ub = eu_variant_get(v)->ofm_ublock;
    *w = ub[0];
    *h = ub[1];
    *d = ub[2];
}

static inline void sa_set_block(sa_stream *s, uint32_t bw, uint32_t bh, uint32_t bd)
{
    sa_set(s, EU_SET_OFM_BLK_WIDTH_M1, bw);
    sa_set(s, EU_SET_OFM_BLK_HEIGHT_M1, bh);
    sa_set(s, EU_SET_OFM_BLK_DEPTH_M1, bd);
}

/* SHRAM layout valid for the variant (docs/ethos-u.md 1.2): the LUT's 2 banks at
 * the top stay free; kernel ops: IFM banks 2..5, accumulators below the LUT;
 * elementwise: IB_END = AB_START = LUT start, IFM2 from the middle. */
static inline void sa_set_shram(sa_stream *s, eu_variant v, bool elementwise, bool ifm2_tensor)
{
    unsigned banks = eu_variant_shram_banks(v), lut_start = banks - EU_LUT_BANKS;
    if (elementwise) {
        sa_set(s, EU_SET_IFM_IB_END, lut_start);
        sa_set(s, EU_SET_AB_START, lut_start);
        if (ifm2_tensor) sa_set(s, EU_SET_IFM2_IB_START, (2 + lut_start) / 2 & ~1u);
    } else {
        sa_set(s, EU_SET_IFM_IB_END, 6);
        sa_set(s, EU_SET_AB_START, lut_start - 4);
    }
}

/* A valid block for the OFM (multiples of the micro-block; depth 16/32 or
 * the rounded OFM depth), the SHRAM layout, ACC_FORMAT (INT40 for 16-bit
 * IFM kernel ops) and BLOCKDEP 0. Returns the block depth (weight order). */
static inline uint32_t sa_set_config(sa_stream *s, eu_variant v, const sa_fm *ofm, uint8_t ifm_bits,
                                     bool elementwise, bool ifm2_tensor)
{
    unsigned ubw, ubh, ubd;
    sa_ublock(v, &ubw, &ubh, &ubd);
    uint32_t bw = sa_round_up(ofm->w < 16 ? ofm->w : 16, ubw);
    uint32_t bh = sa_round_up(ofm->h < 8 ? ofm->h : 8, ubh);
    uint32_t bd = ofm->c <= 32 ? sa_round_up(ofm->c, ubd) : 32;
    sa_set_block(s, bw, bh, bd);
    sa_set_shram(s, v, elementwise, ifm2_tensor);
    sa_set(s, EU_SET_ACC_FORMAT, !elementwise && ifm_bits == 16 ? EU_ACC_INT40 : EU_ACC_INT32);
    sa_set(s, EU_SET_BLOCKDEP, 0);
    return bd;
}

/* ------------------------------------------ output stage, activation */

static inline void sa_set_ofm_scale(sa_stream *s, uint32_t m, unsigned shift)
{
    sa_cmd(s, EU_SET_OFM_SCALE, eu_pack_scale(EU_SET_OFM_SCALE, m, shift));
}

static inline void sa_set_opa_scale(sa_stream *s, uint32_t m, unsigned shift)
{
    sa_cmd(s, EU_SET_OPA_SCALE, eu_pack_scale(EU_SET_OPA_SCALE, m, shift));
}

static inline void sa_set_opb_scale(sa_stream *s, uint32_t m)
{
    sa_cmd(s, EU_SET_OPB_SCALE, eu_pack_scale(EU_SET_OPB_SCALE, m, 0));
}

/* func: EU_ACT_* (0 clamp only, 3 TANH, 4 SIGMOID, 16+n LUT n); clip: EU_CLIP_*. */
static inline void sa_set_act(sa_stream *s, unsigned func, unsigned clip, int32_t lo, int32_t hi)
{
    sa_cmd(s, EU_SET_ACTIVATION, eu_pack_activation(func, clip));
    sa_set(s, EU_SET_ACTIVATION_MIN, lo);
    sa_set(s, EU_SET_ACTIVATION_MAX, hi);
}

/* IFM2_BROADCAST as flags: H, W, C, operand order (IFM2 first), scalar. */
enum { SA_BC_H = 1, SA_BC_W = 2, SA_BC_C = 4, SA_BC_IFM2_FIRST = 8, SA_BC_SCALAR = 16 };
static inline void sa_set_bcast(sa_stream *s, unsigned flags)
{
    sa_cmd(s, EU_SET_IFM2_BROADCAST,
           eu_pack_broadcast(flags & SA_BC_H, flags & SA_BC_W, flags & SA_BC_C, flags & SA_BC_IFM2_FIRST,
                             flags & SA_BC_SCALAR));
}

/* ------------------------------------------------------ weights, scales */

static inline void sa_set_weights(sa_stream *s, unsigned region, uint64_t base, uint64_t len)
{
    sa_cmd(s, EU_SET_WEIGHT_REGION, eu_pack_region(EU_SET_WEIGHT_REGION, region));
    sa_addr(s, EU_SET_WEIGHT_BASE, base);
    sa_addr(s, EU_SET_WEIGHT_LENGTH, len);
}

static inline void sa_set_scales(sa_stream *s, unsigned region, uint64_t base, uint64_t len)
{
    sa_cmd(s, EU_SET_SCALE_REGION, eu_pack_region(EU_SET_SCALE_REGION, region));
    sa_addr(s, EU_SET_SCALE_BASE, base);
    sa_addr(s, EU_SET_SCALE_LENGTH, len);
}

/* One 10-byte record: 40-bit bias, 32-bit scale, 6-bit shift (section 7). */
static inline void sa_scale_rec(uint8_t *p, int64_t bias, uint32_t scale, unsigned shift)
{
    uint64_t b = (uint64_t)bias;
    for (int i = 0; i < 5; i++) p[i] = (uint8_t)(b >> (8 * i));
    for (int i = 0; i < 4; i++) p[5 + i] = (uint8_t)(scale >> (8 * i));
    p[9] = (uint8_t)(shift & 63);
}

static inline size_t sa_scale_len(size_t n) { return (10 * n + 15) / 16 * 16; }

/* Hardware (m, s) from TFLite's (mult, shift): real = m * 2^-s
 * (docs/ethos-u.md 5.6: s = 31 - shift). */
static inline unsigned sa_hw_shift(int32_t tfl_shift) { return (unsigned)(31 - tfl_shift); }

/* Bit writer for MLW streams. */
typedef struct sa_bits {
    uint8_t *b;
    size_t cap, pos;   /* cap in bytes, pos in bits */
    bool overflow;
} sa_bits;

static inline void sa_bits_put(sa_bits *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, w->pos++) {
        if ((w->pos >> 3) >= w->cap) {
            w->overflow = true;
            return;
        }
        if (!(w->pos & 7)) w->b[w->pos >> 3] = 0;
        if ((v >> i) & 1) w->b[w->pos >> 3] |= (uint8_t)(1u << (w->pos & 7));
    }
}

/* The "simplest valid encoding" (docs/ethos-u.md 6.3): one section of
 * uncompressed slices (ZDIV 6, WDIV 7, no palette, 9-bit sign-magnitude
 * codes, <= 32768 values each), end marker, 0xFF padding to 16 bytes.
 * Values must be in -255..255. Returns the length, 0 if cap is too small. */
static inline size_t sa_mlw_encode(const int16_t *v, size_t n, uint8_t *out, size_t cap)
{
    sa_bits w = {out, cap, 0, false};
    size_t done = 0;
    bool first = true;
    while (done < n || first) {
        size_t len = n - done < 32768 ? n - done : 32768;
        if (len == 0) len = 1;   /* an empty list still needs one slice */
        sa_bits_put(&w, 6, 3);                       /* ZDIV: no zero runs */
        sa_bits_put(&w, (uint32_t)(len - 1), 15);    /* SLICELEN */
        sa_bits_put(&w, 7, 3);                       /* WDIV: uncompressed */
        sa_bits_put(&w, 0, 1);                       /* WTRUNC */
        sa_bits_put(&w, first ? 1 : 0, 1);           /* NEWPAL */
        if (first) {
            sa_bits_put(&w, 0, 5);                   /* DIROFS */
            sa_bits_put(&w, 0, 5);                   /* PALSIZE: none */
            sa_bits_put(&w, 7, 3);                   /* PALBITS: 9-bit codes */
        }
        for (size_t i = 0; i < len; i++) {
            int x = done + i < n ? v[done + i] : 0;
            sa_bits_put(&w, (uint32_t)(x < 0 ? 2 * -x + 1 : 2 * x), 9);
        }
        done += len;
        first = false;
    }
    sa_bits_put(&w, 7, 3);                           /* end marker */
    while (w.pos & 7) sa_bits_put(&w, 1, 1);
    size_t bytes = w.pos >> 3;
    while (bytes % 16) {
        if (bytes >= cap) return 0;
        out[bytes++] = 0xFF;
    }
    return w.overflow ? 0 : bytes;
}

/* Weight geometry as the executor derives it from the registers. */
static inline sim_wgeom sa_wgeom(eu_variant v, uint32_t ofm_depth, uint32_t ifm_depth, uint32_t kh,
                                 uint32_t kw, uint32_t blk_depth, unsigned dil_x, unsigned dil_y,
                                 uint8_t ifm_bits, bool pkf, bool depthwise)
{
    sim_wgeom g;
    memset(&g, 0, sizeof g);
    g.ofm_depth = ofm_depth;
    g.ifm_depth = ifm_depth;
    g.kh = kh;
    g.kw = kw;
    g.block_depth = blk_depth;
    g.dil_x = (uint8_t)dil_x;
    g.dil_y = (uint8_t)dil_y;
    g.ifm_bits = ifm_bits;
    g.ofm_ublock = (uint8_t)eu_variant_ofm_ublock_depth(v);
    g.part_kernel_first = pkf;
    g.depthwise = depthwise;
    return g;
}

/* Encodes W (CONV: W[o][ky][kx][i], DEPTHWISE: W[o][ky][kx]) in the
 * hardware traversal order (padding slots 0). Returns the stream length
 * (a multiple of 16), 0 on overflow of cap. */
static inline size_t sa_weights(const sim_wgeom *g, const int16_t *W, uint8_t *out, size_t cap)
{
    size_t n = sim_weight_traverse(g, NULL, 0);
    int64_t *map = malloc((n ? n : 1) * sizeof *map);
    int16_t *seq = malloc((n ? n : 1) * sizeof *seq);
    if (!map || !seq) {
        fprintf(stderr, "sim_asm: out of memory\n");
        exit(2);
    }
    sim_weight_traverse(g, map, n);
    for (size_t p = 0; p < n; p++) seq[p] = map[p] < 0 ? 0 : W[map[p]];
    size_t len = sa_mlw_encode(seq, n, out, cap);
    free(map);
    free(seq);
    return len;
}

/* --------------------------------------------------------------- DMA */

/* DMA end point: external region r (0-7), or SA_DMA_SHRAM (internal, core
 * mask 3). */
enum { SA_DMA_SHRAM = 0x100 };

static inline uint64_t sa_dma_region(uint16_t code, uint16_t where)
{
    return where == SA_DMA_SHRAM ? eu_pack_dma_region(code, 3, true, EU_DMA_1D)
                                 : eu_pack_dma_region(code, where, false, EU_DMA_1D);
}

/* 1D DMA + start + wait for it. */
static inline void sa_dma(sa_stream *s, uint16_t src_region, uint64_t src, uint16_t dst_region,
                          uint64_t dst, uint64_t len)
{
    sa_cmd(s, EU_SET_DMA0_SRC_REGION, sa_dma_region(EU_SET_DMA0_SRC_REGION, src_region));
    sa_cmd(s, EU_SET_DMA0_DST_REGION, sa_dma_region(EU_SET_DMA0_DST_REGION, dst_region));
    sa_addr(s, EU_SET_DMA0_SRC, src);
    sa_addr(s, EU_SET_DMA0_DST, dst);
    sa_addr(s, EU_SET_DMA0_LEN, len);
    sa_set(s, EU_OP_DMA_START, 0);
    sa_set(s, EU_OP_DMA_WAIT, 0);
}

/* SHRAM byte address of LUT slot n (docs/ethos-u.md 5.7): the top two banks. */
static inline uint32_t sa_lut_addr(eu_variant v, unsigned n)
{
    return (eu_variant_shram_banks(v) - EU_LUT_BANKS) * EU_SHRAM_BANK_BYTES + EU_LUT_SLOT_BYTES * n;
}

/* ------------------------------------------------------------ runner */

/* Bus addresses: the command stream at SA_BUS_STREAM, region r's buffer at
 * SA_BUS_REGION(r) (16 MiB apart, inside the U55's 32-bit bus). */
#define SA_BUS_STREAM 0x00100000u
#define SA_BUS_REGION(r) (0x01000000u + (uint32_t)(r) * 0x01000000u)

typedef struct sa_npu {
    sim_npu *npu;
    eu_variant v;
    uint8_t *mem[8];
    size_t size[8];
    bool rw[8];
    uint8_t *qbuf;       /* the last run's stream bytes */
    int irqs;            /* IRQ callbacks since sa_open */
    npuc_err err;
} sa_npu;

static inline void sa_irq_count(void *user) { ((sa_npu *)user)->irqs++; }

static inline int sa_open(sa_npu *m, eu_variant v)
{
    memset(m, 0, sizeof *m);
    m->v = v;
    if (sim_npu_create(v, NULL, &m->npu, &m->err)) return -1;
    sim_npu_set_irq(m->npu, sa_irq_count, m);
    return 0;
}

static inline void sa_close(sa_npu *m)
{
    sim_npu_free(m->npu);
    free(m->qbuf);
    memset(m, 0, sizeof *m);
}

/* Region r = host buffer (not copied; NULL unmaps). */
static inline void sa_region(sa_npu *m, unsigned r, void *mem, size_t size, bool writable)
{
    m->mem[r] = mem;
    m->size[r] = size;
    m->rw[r] = writable;
}

/* Runs the stream as a driver would (docs/ethos-u.md 9.5): maps the stream and
 * the region buffers, writes QBASE, QSIZE, BASEP0..7 (every region gets its
 * bus address, mapped or not) and CMD = (CMD & 0xC) | 1. Returns STATUS as
 * read after the IRQ (the IRQ is left raised). */
static inline uint32_t sa_run(sa_npu *m, const sa_stream *s)
{
    sim_npu *n = m->npu;
    free(m->qbuf);
    m->qbuf = sa_stream_bytes(s);
    sim_npu_unmap_all(n);
    if (sim_npu_map(n, SA_BUS_STREAM, m->qbuf, sa_bytes(s), false, &m->err)) {
        fprintf(stderr, "sim_asm: map stream: %s\n", m->err.msg);
        return 0;
    }
    for (unsigned r = 0; r < 8; r++) {
        if (m->mem[r] && sim_npu_map(n, SA_BUS_REGION(r), m->mem[r], m->size[r], m->rw[r], &m->err)) {
            fprintf(stderr, "sim_asm: map region %u: %s\n", r, m->err.msg);
            return 0;
        }
    }
    sim_npu_write(n, EU_REG_QBASE, SA_BUS_STREAM);
    sim_npu_write(n, EU_REG_QBASE_HI, 0);
    sim_npu_write(n, EU_REG_QSIZE, (uint32_t)sa_bytes(s));
    for (unsigned r = 0; r < EU_N_REGIONS; r++) {
        sim_npu_write(n, EU_REG_BASEP_LO(r), SA_BUS_REGION(r));
        sim_npu_write(n, EU_REG_BASEP_HI(r), 0);
    }
    sim_npu_write(n, EU_REG_CMD, (sim_npu_read(n, EU_REG_CMD) & EU_CMD_Q_MASK) | EU_CMD_START);
    return sim_npu_read(n, EU_REG_STATUS);
}

/* Success as the driver's IRQ handler judges it. */
static inline bool sa_status_ok(uint32_t st)
{
    return (st & EU_STATUS_CMD_END_REACHED) && !(st & EU_STATUS_ERRORS);
}

/* Clears the IRQ as the driver's handler does (CMD bit 1). */
static inline void sa_ack(sa_npu *m)
{
    sim_npu_write(m->npu, EU_REG_CMD, (sim_npu_read(m->npu, EU_REG_CMD) & EU_CMD_Q_MASK) | EU_CMD_CLEAR_IRQ);
}

#endif
