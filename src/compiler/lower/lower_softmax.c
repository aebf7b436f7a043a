/* lower_softmax: SOFTMAX on the NPU (docs/ethos-u.md 5.10): int8 -> int8, int8 ->
 * int16 and int16 -> int16, over the last axis, rows [.., C] viewed as an
 * R x 1 x C feature map. Everything else stays on the CPU with the reason.
 *
 * int8 input (TFLite's gemmlowp kernel), per row:
 *
 *   max   = max_c x[c]
 *   e[c]  = exp(srdhm((x[c] - max) << lshift, mult)) in Q0.31, 0 below diff_min
 *   sum   = sum_c rdpot(e[c], 12)                                  (Q12.19)
 *   h     = clz(sum)
 *   scale = 1 / (1 + ((sum << h) - 2^31))    gemmlowp's Newton-Raphson, Q0.31
 *   y[c]  = rdpot(srdhm(scale, e[c]), 12 + 31 - out_bits - h) + qmin
 *
 * becomes 28 NPU operations:
 *
 *   1  POOL MAX        x viewed as R x C x 1, kernel 1 x C       -> max    (int8)
 *   2  SUB + LUT       x - max, OFM zero point 127, int32 LUT with
 *                      force-int8 clip: index = diff + 255        -> e      (int32)
 *   3  SHR 12          NATURAL rounding (= rdpot for e >= 0)      -> t
 *   4  REDUCE_SUM      over C                                      -> sum
 *   5  CLZ                                                         -> h
 *   6  SUB            (43 - out_bits) - h                          -> rshift
 *   7  SUB             h - 1                                       -> h1
 *   8  SHL             sum << h1                                   -> half_den
 *   9  MUL             half_den * -32/17 (SRDHM)
 *   10 ADD             + 48/17                                     -> x
 *   11-25              3 x { MUL hd*x, SUB 1-., MUL x*., MUL *4, ADD x+. }
 *   26 MUL             x * 2 (saturating)                          -> scale
 *   27 MUL             e * scale (SRDHM, scale broadcast over C)   -> y
 *   28 SHR             y >> rshift, NATURAL, + qmin, clamp        -> output
 *
 * int16 input: 10 operations, see build_s16.
 *
 * Facts relied on (docs/ethos-u.md 5.5-5.8, docs/sim.md): 32-bit elementwise
 * operations ignore the OFM_SCALE multiplier and apply only its shift, so MUL
 * with shift 31 and TFL rounding is gemmlowp's SaturatingRoundingDoublingHighMul
 * (floor((a*b + 2^30) / 2^31)); 32-bit results saturate; SHR rounds with the
 * OFM round mode; SHL saturates; 32-bit OFMs without a LUT take neither the
 * zero point nor the clamp; int16 LUTs interpolate as TFLite's int16 tables.
 * 32-bit constants live in the epoch's flash as broadcast 1 x 1 x 1 IFM2s,
 * as in Vela's streams (IFM2_SCALAR has 16 bits).
 *
 * Why the int8 form is exact. The exp table is computed with the reference
 * kernel's own functions for each of the 256 possible differences
 * (diff = x - max is in [-255, 0]). rdpot and NATURAL rounding agree on the
 * non-negative values they see. gemmlowp's half denominator
 * (a + 2^31 - 1 + 1) / 2 with a = (sum << h) - 2^31 is exactly
 * sum << (h - 1) because a is even, which replaces three of Vela's
 * operations (SUB, SHL, ADD); ops 5-26 were checked against the kernel's
 * k_fx_one_over_one_plus_x for every sum in [2^19, 2^31), and no
 * intermediate overflows there, so the NPU's saturation and TFLite's
 * wrap-around never differ. What limits the depth: TFLite's 32-bit sum
 * wraps where the NPU saturates (C <= 4095 keeps sum < 2^31). Past depth
 * 511 an int8 output's final shift 35 - h can pass 31 (TFLite: a C shift
 * past the width, undefined); the reference kernel and the NPU form both
 * take the exactly rounded quotient there, 0 (docs/kernels.md), and the
 * NPU form never shifts by more than 31 (see build_s8). */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_activation.h"
#include "kernels/k_common.h"

#include <stdlib.h>
#include <string.h>

#define SM_MAX_OPS 36    /* build_s8 emits 28 (32 deeper than 511), build_s16 10 */

/* Row-vector slots of the per-row scratch buffer (int32 each). */
enum { S_SUM, S_CLZ, S_RSH, S_H1, S_HD, S_X0, S_X1, S_P, S_Q, S_COUNT };

typedef struct sm_ctx {
    lower_ctx *c;
    uint32_t R, C;            /* rows, depth */
    int32_t b_max, b_e, b_t, b_rows;
    uint64_t row_slot;        /* bytes per row-vector slot */
    eu_op tmpl;               /* cc_new_eu's defaults */
    eu_op ops[SM_MAX_OPS];
    int n;
} sm_ctx;

static uint64_t align16(uint64_t x) { return (x + 15) & ~(uint64_t)15; }

/* A dense NHWC feature map in an arena buffer (-1: the flash). */
static eu_fm fm_buf(int32_t buf, uint64_t off, uint32_t h, uint32_t w, uint32_t ch, uint8_t bits)
{
    eu_fm f;
    cc_fm_dense(&f, buf, off, h, w, ch, bits, 0);
    return f;
}

/* Per-row value `slot` as R x 1 x 1, the shape that broadcasts over the
 * R x 1 x C tensors, or as 1 x 1 x R (along the depth) for the ops that
 * only involve row values. The bytes are the same. */
static eu_fm fm_row(const sm_ctx *s, int slot, uint8_t bits)
{
    return fm_buf(s->b_rows, (uint64_t)slot * s->row_slot, s->R, 1, 1, bits);
}

static eu_fm fm_vec(const sm_ctx *s, int slot, uint8_t bits)
{
    return fm_buf(s->b_rows, (uint64_t)slot * s->row_slot, 1, 1, s->R, bits);
}

/* An int32 constant in the epoch's flash, 1 x 1 x 1 (broadcast). */
static int fm_const(sm_ctx *s, int32_t v, eu_fm *f, npuc_err *err)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)((uint32_t)v >> 8), (uint8_t)((uint32_t)v >> 16),
                    (uint8_t)((uint32_t)v >> 24)};
    uint64_t off;
    int rc = cc_flash_add(s->c->e, b, sizeof b, &off, err);
    if (rc) return rc;
    *f = fm_buf(-1, off, 1, 1, 1, 32);
    return NPUC_OK;
}

/* A new op with cc_new_eu's defaults (taken from the template). */
static eu_op *sm_new(sm_ctx *s, sim_op_kind kind, uint8_t mode)
{
    eu_op *o = &s->ops[s->n++];
    *o = s->tmpl;
    o->kind = kind;
    o->mode = mode;
    o->ofm_scale_mode = 1;
    o->ofm_scale = 1;
    o->ofm_shift = 0;
    o->ifm2.buf = -1;
    return o;
}

/* Elementwise op out = a (op) b with b broadcast where it has extent 1
 * (b NULL: unary). reversed: the operands are (b, a) in that order.
 * SRDHM-style MULs pass (1 << 30, 31), as Vela does (the multiplier is
 * ignored for 32-bit operands). */
static eu_op *sm_ew(sm_ctx *s, uint8_t mode, const eu_fm *a, const eu_fm *b, bool reversed,
                    const eu_fm *out, uint32_t scale, uint8_t shift, uint8_t round)
{
    eu_op *o = sm_new(s, SIM_K_ELEMENTWISE, mode);
    o->ifm = *a;
    o->ofm = *out;
    if (b) {
        o->ifm2 = *b;
        o->ifm2_tensor = true;
        o->bcast_h = b->h == 1 && out->h > 1;
        o->bcast_w = b->w == 1 && out->w > 1;
        o->bcast_c = b->c == 1 && out->c > 1;
        o->reversed = reversed;
    }
    o->ofm_scale = scale;
    o->ofm_shift = shift;
    o->round = round;
    return o;
}

enum { EW_MUL = 0, EW_ADD = 1, EW_SUB = 2, EW_MIN = 3, EW_MAX = 4, EW_CLZ = 7, EW_SHR = 8, EW_SHL = 9 };
enum { RND_TFL = 0, RND_TRUNCATE = 1, RND_NATURAL = 2 };

/* The 256 int32 entries of the exp table: entry i is e(diff = i - 255). */
static void exp_table(const k_softmax_s8_params *p, int32_t lut[256])
{
    for (int i = 0; i < 256; i++) {
        int32_t diff = i - 255;
        int32_t e = 0;
        if (diff >= p->diff_min) {
            int32_t scaled = k_srdhm((int32_t)((uint32_t)diff << p->input_left_shift),
                                     p->input_multiplier);
            e = k_fx_exp_on_negative_values(scaled, 5);
        }
        lut[i] = e;
    }
}

/* Ops 9-26 of the int8 form: gemmlowp's one_over_one_plus_x_for_x_in_0_1
 * on the half denominator hd (row values, 1 x 1 x R), Newton-Raphson in
 * Q2.29, the result (Q0.31) in the S_P slot. */
static int reciprocal(sm_ctx *s, const eu_fm *hd, npuc_err *err)
{
    eu_fm kneg32_17, k48_17, kone_q2, k4, k2;
    int rc;
    if ((rc = fm_const(s, -1010580540, &kneg32_17, err)) || (rc = fm_const(s, 1515870810, &k48_17, err)) ||
        (rc = fm_const(s, 1 << 29, &kone_q2, err)) || (rc = fm_const(s, 4, &k4, err)) ||
        (rc = fm_const(s, 2, &k2, err)))
        return rc;

    /* 9-10: x0 = 48/17 + srdhm(hd, -32/17), Q2.29 */
    eu_fm xs[2] = {fm_vec(s, S_X0, 32), fm_vec(s, S_X1, 32)};
    eu_fm pp = fm_vec(s, S_P, 32), qq = fm_vec(s, S_Q, 32);
    sm_ew(s, EW_MUL, hd, &kneg32_17, false, &pp, 1u << 30, 31, RND_TFL);
    sm_ew(s, EW_ADD, &pp, &k48_17, false, &xs[0], 1, 0, RND_TFL);

    /* 11-25: three Newton-Raphson steps x += 4 * srdhm(x, 1 - srdhm(hd, x)) */
    int cur = 0;
    for (int i = 0; i < 3; i++) {
        sm_ew(s, EW_MUL, hd, &xs[cur], false, &pp, 1u << 30, 31, RND_TFL);
        sm_ew(s, EW_SUB, &pp, &kone_q2, true, &qq, 1, 0, RND_TFL);
        sm_ew(s, EW_MUL, &xs[cur], &qq, false, &pp, 1u << 30, 31, RND_TFL);
        sm_ew(s, EW_MUL, &pp, &k4, false, &qq, 1, 0, RND_TFL);
        sm_ew(s, EW_ADD, &xs[cur], &qq, false, &xs[1 - cur], 1, 0, RND_TFL);
        cur = 1 - cur;
    }

    /* 26: scale = saturate(2 x), Q0.31 */
    sm_ew(s, EW_MUL, &xs[cur], &k2, false, &pp, 1, 0, RND_TFL);
    return NPUC_OK;
}

static int build_s8(sm_ctx *s, const graph_op *op, const k_softmax_s8_params *p, int out_bits,
                    npuc_err *err)
{
    lower_ctx *c = s->c;
    const uint32_t R = s->R, C = s->C;
    int rc;

    /* scratch: max (int8 per row), e and t/y (int32 per element), the row
     * vectors */
    uint64_t big = (uint64_t)R * C * 4;
    s->row_slot = align16((uint64_t)R * 4);
    if ((s->b_max = cc_temp_buf(c, align16(R), err)) < 0) return err->code;
    if ((s->b_e = cc_temp_buf(c, big, err)) < 0) return err->code;
    if ((s->b_t = cc_temp_buf(c, big, err)) < 0) return err->code;
    if ((s->b_rows = cc_temp_buf(c, s->row_slot * S_COUNT, err)) < 0) return err->code;

    int32_t table[256];
    uint8_t bytes[1024];
    exp_table(p, table);
    for (int i = 0; i < 256; i++)
        for (int k = 0; k < 4; k++) bytes[4 * i + k] = (uint8_t)((uint32_t)table[i] >> (8 * k));
    int32_t lut;
    if ((rc = cc_add_lut(c, bytes, sizeof bytes, &lut, err))) return rc;

    eu_fm k12, kexp, k1;
    if ((rc = fm_const(s, 12, &k12, err)) || (rc = fm_const(s, 12 + 31 - out_bits, &kexp, err)) ||
        (rc = fm_const(s, 1, &k1, err)))
        return rc;

    /* 1: row maximum, MAX pool over x viewed as R x C x 1 */
    eu_fm x_rc, x_r1c;
    cc_fm_whole(c, op->in[0], R, C, 1, &x_rc);
    cc_fm_whole(c, op->in[0], R, 1, C, &x_r1c);
    x_rc.zp = x_r1c.zp = 0;
    eu_fm mx = fm_buf(s->b_max, 0, R, 1, 1, 8);
    eu_op *o = sm_new(s, SIM_K_POOL, 0);
    o->ifm = x_rc;
    o->ofm = mx;
    o->kw = C;
    o->ofm_scale_mode = 0;
    o->act_min = -128;
    o->act_max = 127;

    /* 2: diff = x - max (zero points cancel), + 127 -> exp table */
    eu_fm e = fm_buf(s->b_e, 0, R, 1, C, 32);
    o = sm_ew(s, EW_SUB, &x_r1c, &mx, false, &e, 1, 0, RND_TFL);
    o->ofm.zp = 127;
    o->has_opab = true;
    o->opa_scale = 1;
    o->opb_scale = 1;
    o->act_min = -128;
    o->act_max = 127;
    o->lut = lut;
    o->act_func = 16;   /* slot set at generation */
    o->act_clip = 3;    /* force int8 index */

    /* 3: t = rdpot(e, 12) */
    eu_fm t = fm_buf(s->b_t, 0, R, 1, C, 32);
    sm_ew(s, EW_SHR, &e, &k12, false, &t, 1, 0, RND_NATURAL);

    /* 4: sum over the row */
    eu_fm sum = fm_row(s, S_SUM, 32);
    o = sm_new(s, SIM_K_POOL, 2);
    o->ifm = t;
    o->ofm = sum;
    o->ofm_scale_mode = 0;

    /* 5-8: clz, output shift, half denominator (row values only: 1 x 1 x R) */
    eu_fm sumv = fm_vec(s, S_SUM, 32), clz = fm_vec(s, S_CLZ, 32), rshv = fm_vec(s, S_RSH, 32);
    eu_fm h1 = fm_vec(s, S_H1, 32), hd = fm_vec(s, S_HD, 32);
    sm_ew(s, EW_CLZ, &sumv, NULL, false, &clz, 1, 0, RND_TFL);
    sm_ew(s, EW_SUB, &clz, &kexp, true, &rshv, 1, 0, RND_TFL);
    sm_ew(s, EW_SUB, &clz, &k1, false, &h1, 1, 0, RND_TFL);
    sm_ew(s, EW_SHL, &sumv, &h1, false, &hd, 1, 0, RND_TFL);

    /* 9-26: scale = 1 / (1 + x) into the S_P slot */
    if ((rc = reciprocal(s, &hd, err))) return rc;

    /* 27: y = srdhm(e, scale) into the t buffer (scale as R x 1 x 1) */
    eu_fm scl = fm_row(s, S_P, 32), rsh = fm_row(s, S_RSH, 32);
    sm_ew(s, EW_MUL, &e, &scl, false, &t, 1u << 30, 31, RND_TFL);

    /* int8 output deeper than 511: the exp sum can reach 2^28 and the final
     * shift 35 - clz(sum) pass 31, where the quotient rounds to 0
     * (k_softmax.c). Shifts past 31 are not relied on: y is first cut by
     * max(rshift - 31, 0) bits (TRUNCATE: y >= 0), then shifted by
     * min(rshift, 31); for rshift <= 31 that is the plain shift, above it
     * the pre-cut leaves y < 2^30, which rounds to 0 at shift 31. */
    eu_fm y = t;
    if (out_bits == 8 && C > 511) {
        eu_fm k31, k0;
        if ((rc = fm_const(s, 31, &k31, err)) || (rc = fm_const(s, 0, &k0, err))) return rc;
        eu_fm over = fm_vec(s, S_X0, 32), cut = fm_vec(s, S_X1, 32), rs2 = fm_vec(s, S_Q, 32);
        sm_ew(s, EW_SUB, &rshv, &k31, false, &over, 1, 0, RND_TFL);
        sm_ew(s, EW_MAX, &over, &k0, false, &cut, 1, 0, RND_TFL);
        sm_ew(s, EW_MIN, &rshv, &k31, false, &rs2, 1, 0, RND_TFL);
        eu_fm cutr = fm_row(s, S_X1, 32);
        y = fm_buf(s->b_e, 0, R, 1, C, 32);
        sm_ew(s, EW_SHR, &t, &cutr, false, &y, 1, 0, RND_TRUNCATE);
        rsh = fm_row(s, S_Q, 32);
    }

    /* 28: out = rdpot(y, rshift) + qmin */
    eu_fm out;
    cc_fm_whole(c, op->out[0], R, 1, C, &out);
    o = sm_ew(s, EW_SHR, &y, &rsh, false, &out, 1, 0, RND_NATURAL);
    o->act_min = out_bits == 8 ? INT8_MIN : INT16_MIN;
    o->act_max = out_bits == 8 ? INT8_MAX : INT16_MAX;
    o->ofm.zp = out_bits == 8 ? -128 : -32768;

    for (int i = 0; i < s->n; i++) {
        rc = cc_choose_block(c, &s->ops[i], err);
        if (rc) return rc;
    }
    return NPUC_OK;
}

/* A 2 KiB int16 LUT (docs/ethos-u.md 5.7) from TFLite's 513-entry table: entry i
 * holds base = t[i] (low half) and slope = t[i + 1] - t[i] (high half), so
 * base + ((slope * frac + 64) >> 7) is TFLite's interpolation. */
static int lut16(lower_ctx *c, const int16_t t[K_SOFTMAX_LUT_SIZE], int32_t *index, npuc_err *err)
{
    uint8_t bytes[2048];
    for (int i = 0; i < 512; i++) {
        uint16_t base = (uint16_t)t[i], slope = (uint16_t)((uint16_t)t[i + 1] - base);
        bytes[4 * i] = (uint8_t)base;
        bytes[4 * i + 1] = (uint8_t)(base >> 8);
        bytes[4 * i + 2] = (uint8_t)slope;
        bytes[4 * i + 3] = (uint8_t)(slope >> 8);
    }
    return cc_add_lut(c, bytes, sizeof bytes, index, err);
}

/* int16 -> int16 (TFLite's table-based kernel):
 *
 *   1  POOL MAX        x viewed as R x C x 1                       -> max   (int16)
 *   2  SUB + LUT       (x - max) scaled by (mult, shift), + 32767,
 *                      clamp, exp table                            -> ex    (int16)
 *   3  REDUCE_SUM                                                   -> sum   (int32)
 *   4  CLZ                                                          -> h
 *   5  SUB             h - 1                                        -> h1
 *   6  SUB             31 - h                                       -> rshift
 *   7  SHL             sum << h1                                    -> hd
 *   8  SUB + LUT       (hd - 98304 * 2^14) >> 14 (NATURAL), clamp,
 *                      1/(1+x) table                                -> recip (int16)
 *   9  MUL             ex * recip                                   -> prod  (int32)
 *   10 SHR             prod >> rshift (NATURAL), clamp to [0, 32767] -> output
 *
 * TFLite's ((sum << (h-1)) + 2^13) >> 14 - 98304 equals op 8 because
 * 98304 * 2^14 is a multiple of 2^14. Step 2 is TFLite's
 * MultiplyByQuantizedMultiplier in TFL rounding (docs/ethos-u.md 5.6); it needs
 * diff << shift to fit 32 bits (|diff| < 2^16: shift <= 15). */
static int build_s16(sm_ctx *s, const graph_op *op, const k_softmax_s16_params *p, npuc_err *err)
{
    lower_ctx *c = s->c;
    const uint32_t R = s->R, C = s->C;
    int rc;
    uint32_t hm;
    uint8_t hs;
    if (p->input_left_shift > 15)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input rescale shift %d > 15: TFLite's difference << "
                         "shift can wrap 32 bits", p->input_left_shift);
    if (!cc_hw_scale_tfl(p->input_multiplier, p->input_left_shift, &hm, &hs))
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input rescale (multiplier %d, shift %d) is outside "
                         "the NPU's range", p->input_multiplier, p->input_left_shift);
    s->row_slot = align16((uint64_t)R * 4);
    if ((s->b_max = cc_temp_buf(c, align16((uint64_t)R * 2), err)) < 0) return err->code;
    if ((s->b_e = cc_temp_buf(c, (uint64_t)R * C * 2, err)) < 0) return err->code;
    if ((s->b_t = cc_temp_buf(c, (uint64_t)R * C * 4, err)) < 0) return err->code;
    if ((s->b_rows = cc_temp_buf(c, s->row_slot * S_COUNT, err)) < 0) return err->code;

    int16_t *tabs = malloc(2 * K_SOFTMAX_LUT_SIZE * sizeof *tabs);
    if (!tabs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    k_softmax_s16_luts(tabs, tabs + K_SOFTMAX_LUT_SIZE);
    int32_t lut_exp, lut_recip;
    rc = lut16(c, tabs, &lut_exp, err);
    if (!rc) rc = lut16(c, tabs + K_SOFTMAX_LUT_SIZE, &lut_recip, err);
    free(tabs);
    if (rc) return rc;

    eu_fm k1, k31, koff;
    if ((rc = fm_const(s, 1, &k1, err)) || (rc = fm_const(s, 31, &k31, err)) ||
        (rc = fm_const(s, ((1 << 15) + (1 << 16)) << 14, &koff, err)))
        return rc;

    /* 1: row maximum */
    eu_fm x_rc, x_r1c;
    cc_fm_whole(c, op->in[0], R, C, 1, &x_rc);
    cc_fm_whole(c, op->in[0], R, 1, C, &x_r1c);
    x_rc.zp = x_r1c.zp = 0;
    eu_fm mx = fm_buf(s->b_max, 0, R, 1, 1, 16);
    eu_op *o = sm_new(s, SIM_K_POOL, 0);
    o->ifm = x_rc;
    o->ofm = mx;
    o->kw = C;
    o->ofm_scale_mode = 0;

    /* 2: exp table lookup of the scaled difference */
    eu_fm ex = fm_buf(s->b_e, 0, R, 1, C, 16);
    o = sm_ew(s, EW_SUB, &x_r1c, &mx, false, &ex, hm, hs, RND_TFL);
    o->ofm.zp = 32767;
    o->has_opab = true;
    o->opa_scale = 1;
    o->opb_scale = 1;
    o->lut = lut_exp;
    o->act_func = 16;

    /* 3-7: sum, clz, shifts, normalised sum (row values only: 1 x 1 x R) */
    eu_fm sum = fm_row(s, S_SUM, 32);
    o = sm_new(s, SIM_K_POOL, 2);
    o->ifm = ex;
    o->ofm = sum;
    o->ofm_scale_mode = 0;
    eu_fm sumv = fm_vec(s, S_SUM, 32), clz = fm_vec(s, S_CLZ, 32), h1 = fm_vec(s, S_H1, 32);
    eu_fm rshv = fm_vec(s, S_RSH, 32), hd = fm_vec(s, S_HD, 32);
    sm_ew(s, EW_CLZ, &sumv, NULL, false, &clz, 1, 0, RND_TFL);
    sm_ew(s, EW_SUB, &clz, &k1, false, &h1, 1, 0, RND_TFL);
    sm_ew(s, EW_SUB, &clz, &k31, true, &rshv, 1, 0, RND_TFL);
    sm_ew(s, EW_SHL, &sumv, &h1, false, &hd, 1, 0, RND_TFL);

    /* 8: reciprocal table lookup */
    eu_fm recipv = fm_vec(s, S_P, 16);
    o = sm_ew(s, EW_SUB, &hd, &koff, false, &recipv, 1, 14, RND_NATURAL);
    o->lut = lut_recip;
    o->act_func = 16;

    /* 9-10: scale the exponentials (row values as R x 1 x 1) */
    eu_fm recip = fm_row(s, S_P, 16), rsh = fm_row(s, S_RSH, 32);
    eu_fm prod = fm_buf(s->b_t, 0, R, 1, C, 32);
    sm_ew(s, EW_MUL, &ex, &recip, false, &prod, 1, 0, RND_TFL);
    eu_fm out;
    cc_fm_whole(c, op->out[0], R, 1, C, &out);
    out.zp = 0;
    o = sm_ew(s, EW_SHR, &prod, &rsh, false, &out, 1, 0, RND_NATURAL);
    o->act_min = 0;
    o->act_max = 32767;

    for (int i = 0; i < s->n; i++) {
        rc = cc_choose_block(c, &s->ops[i], err);
        if (rc) return rc;
    }
    return NPUC_OK;
}

static int lower_softmax(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph *g = c->g;
    if (op->n_in < 1 || op->n_out < 1 || op->in[0] < 0 || op->out[0] < 0)
        return cc_cpu(c, "missing input or output");
    const graph_tensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
    bool s16 = in->dtype == GRAPH_I16 && out->dtype == GRAPH_I16;
    if (!s16 && (in->dtype != GRAPH_I8 || (out->dtype != GRAPH_I8 && out->dtype != GRAPH_I16)))
        return cc_cpu(c, "%s -> %s SOFTMAX (the NPU forms are int8 -> int8/int16 and int16 -> int16)",
                      graph_dtype_name(in->dtype), graph_dtype_name(out->dtype));
    if (c->m->buf_of[op->in[0]] < 0 || c->m->buf_of[op->out[0]] < 0)
        return cc_cpu(c, "constant input");
    /* the reference accepts it (output quantization, beta, ...) */
    char why[160];
    if (!interp_op_supported(g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (in->q.n < 1 || !in->q.scale) return cc_cpu(c, "input is not quantized");
    k_softmax_s8_params p8;
    k_softmax_s16_params p16;
    int prc = s16 ? k_softmax_s16_prepare(in->q.scale[0], op->opt.beta, &p16)
                  : k_softmax_s8_prepare(in->q.scale[0], op->opt.beta, &p8);
    if (prc != K_OK)
        return cc_cpu(c, "input scale %g with beta %g is outside TFLite's range",
                      (double)in->q.scale[0], (double)op->opt.beta);
    if (in->rank < 1 || graph_tensor_elems(in) != graph_tensor_elems(out) ||
        graph_tensor_elems(in) == 0)
        return cc_cpu(c, "unexpected shapes");
    uint64_t C = (uint64_t)in->shape[in->rank - 1];
    uint64_t R = graph_tensor_elems(in) / C;
    /* Depths where TFLite's 32-bit exp sum never wraps (the NPU saturates
     * it): int8 input adds up to C terms of at most 2^19, so C <= 4095.
     * int16: at most 32767 per element, so any depth up to 65536. */
    int out_bits = out->dtype == GRAPH_I8 ? 8 : 16;
    uint64_t max_c = s16 ? 65536 : 4095;
    if (C > max_c)
        return cc_cpu(c, "depth %llu > %llu: %s", (unsigned long long)C, (unsigned long long)max_c,
                      s16 ? "too deep for one NPU operation"
                          : "TFLite's 32-bit exp sum can wrap where the NPU saturates");
    if (R > 65536)
        return cc_cpu(c, "%llu rows exceed one NPU operation", (unsigned long long)R);

    /* build into a local list; on any refusal undo the scratch buffers,
     * constants and LUTs */
    cc_epoch *e = c->e;
    int32_t n_bufs0 = c->m->n_bufs, n_luts0 = e->n_luts;
    uint64_t flash0 = e->flash_size;
    sm_ctx *s = calloc(1, sizeof *s);
    if (!s) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    s->c = c;
    cc_eu_init(c, &s->tmpl);   /* cc_new_eu's defaults, as a template */
    s->R = (uint32_t)R;
    s->C = (uint32_t)C;
    int rc = s16 ? build_s16(s, op, &p16, err) : build_s8(s, op, &p8, out_bits, err);
    if (rc == NPUC_OK) {
        for (int i = 0; i < s->n && rc == NPUC_OK; i++) {
            eu_op *o = cc_new_eu(c, err);
            if (!o) rc = err->code;
            else *o = s->ops[i];
        }
        free(s);
        return rc;
    }
    free(s);
    c->m->n_bufs = n_bufs0;
    e->n_luts = n_luts0;
    cc_flash_rewind(e, flash0);
    if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
    return rc;
}

static const lower_impl softmax_ops[] = {
    {TFL_OP_SOFTMAX, lower_softmax},
};

LOWER_OPS_TABLE(lower_ops_softmax, softmax_ops)
