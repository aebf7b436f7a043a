/* lower_conv: the weighted ops. CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED become one CONV or DEPTHWISE eu_op (docs/ethos-u.md 5.2, 5.10)
 * whose weights and scales lower_weights.c encodes: FULLY_CONNECTED a 1x1
 * CONV over `batches x 1 x depth`; DEPTHWISE_CONV_2D a DEPTHWISE for
 * multiplier 1, a CONV for input depth 1, and for a multiplier above 1 on
 * up to CC_DW_DENSE_MAX_DEPTH input channels a dense CONV whose weights are
 * zero outside each output channel's own input channel. Strides above 3
 * (VALID): one op per output band sharing one weight stream
 * (lower_wide_stride). The checks are one
 * pure function (cc_conv_plan), which PAD folding (lower_pad.c) repeats to
 * know that the conv after a PAD will be on the NPU.
 *
 * TRANSPOSE_CONV (docs/ethos-u.md 5.2, 5.3, 5.10).
 *
 * TFLite's transpose conv scatters every input pixel into the output:
 *
 *     out[oy] += in[iy] * w[fy]   for oy = iy * s - p + fy, 0 <= fy < k
 *
 * (per axis; p is TFLite Micro's padding, computed from the *output* size).
 * Gathered per output this is
 *
 *     out[oy] = sum over fy of U[oy + p - fy]
 *
 * where U is the input with s - 1 zeros after every pixel (U[s * iy] =
 * in[iy]). With the kernel turned by 180 degrees (ky = k - 1 - fy) that is
 * a stride-1 convolution over U with top padding pt = k - 1 - p:
 *
 *     out[oy] = sum over ky of U[oy - pt + ky] * w[k - 1 - ky]
 *
 * For s = 1, U is the input itself: a plain CONV. For s = 2, U is what the
 * NPU's IFM_UPSCALE = ZEROS makes of the IFM (pixels at even positions,
 * zero-contribution taps between them): one CONV with upscaling, kernel
 * stride 1, weights turned (wop layout 3). An axis whose input extent is 1
 * has no gaps to fill, so its stride does not matter and it takes the other
 * axis's form.
 *
 * Other strides (1x2, 3x3, ...; up to MAX_PHASES output phases): the
 * outputs r, r + s, r + 2s, ... of one phase r gather only the kernel taps
 * phi, phi + s, ... (phi = (r + p) mod s), from consecutive input rows. Each
 * phase (ry, rx) is one stride-1 CONV with that sub-kernel turned, reading
 * the input from the first row it needs and writing every sy-th row and
 * sx-th column of the output (OFM strides); a phase no tap of which reaches
 * the input is a 1x1 conv with zero weights (bias only).
 *
 * The NPU derives the extent of U it reads from the OFM size, kernel and
 * padding (U_h = OH - 1 + k - pt - pb; stored rows read: U_h, or
 * (U_h + 1) / 2 when upscaled). With pb = 0 the conv reads U rows up to
 * OH + p - 1; when that passes the end of U (s * H rows), the rows past it
 * hold nothing in TFLite's sum either, and bottom padding pb = OH + p - s*H
 * makes them zero-contribution taps; otherwise pb = 0 and the conv simply
 * never reaches the input rows whose scatter falls outside the output.
 * Both keep the rows read within the stored IFM. Columns likewise.
 *
 * Arithmetic: TFLite's integer transpose conv accumulates (x - zi) * w in
 * int32 (int8) or int64 (int16x8), adds the bias and rescales with the
 * per-channel multipliers CONV_2D uses, then adds the output zero point and
 * clamps: exactly a CONV's output stage, which cc_encode_weighted programs
 * (TFL rounding for int8, NATURAL with the reduced multiplier for int16).
 * The NPU's accumulator is 32 bits for int8 and 40 bits for int16; forms
 * whose worst-case sum could leave that range stay on the CPU (TFLite wraps
 * int32 sums, the NPU's behaviour there is not pinned down). */
#include "lower.h"
#include "compiler/ethosu/eu_weights.h"
#include "interp/interp.h"
#include "kernels/k_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------- CONV_2D, DEPTHWISE, FC */

/* Operand types, quantization, bias and fused activation. */
static bool conv_types_ok(const wop *p, int32_t act, char *why, size_t why_size)
{
    if (!p->in || !p->w || !p->out) return cc_reason(why, why_size, "missing input or output");
    if (!p->w->data) return cc_reason(why, why_size, "weights are not constant");
    if (p->w->dtype != GRAPH_I8)
        return cc_reason(why, why_size, "weights are %s (the NPU takes int8)", graph_dtype_name(p->w->dtype));
    if (!cc_npu_dtype(p->in->dtype) || p->out->dtype != p->in->dtype)
        return cc_reason(why, why_size, "%s -> %s tensors (the NPU takes int8 or int16 in and out)",
                         graph_dtype_name(p->in->dtype), graph_dtype_name(p->out->dtype));
    if (!cc_has_q1(p->in) || !cc_has_q1(p->out) || p->w->q.n < 1)
        return cc_reason(why, why_size, "tensors are not quantized");
    if (p->in->dtype == GRAPH_I16) {
        if (cc_zp(p->in) || cc_zp(p->out))
            return cc_reason(why, why_size, "int16 tensors with a non-zero zero point");
        if (p->bias && p->bias->dtype != GRAPH_I64)
            return cc_reason(why, why_size, "int16 op with a %s bias (the NPU path matches the int64-bias kernels)",
                             graph_dtype_name(p->bias->dtype));
    } else if (p->bias && p->bias->dtype != GRAPH_I32) {
        return cc_reason(why, why_size, "int8 op with a %s bias", graph_dtype_name(p->bias->dtype));
    }
    if (p->bias && !p->bias->data) return cc_reason(why, why_size, "bias is not constant");
    if (!cc_act_ok(act)) return cc_reason(why, why_size, "fused activation %s", tfl_activation_name(act));
    return true;
}

/* FULLY_CONNECTED: a 1x1 CONV over the input as batches x 1 x depth. */
static bool fc_plan(const graph_op *op, conv_plan *pl, char *why, size_t why_size)
{
    wop *p = &pl->p;
    if (op->opt.weights_format != 0) return cc_reason(why, why_size, "shuffled FC weights");
    if (p->w->rank != 2) return cc_reason(why, why_size, "FC weights of rank %d", p->w->rank);
    p->O = (uint32_t)p->w->shape[0];
    p->I = (uint32_t)p->w->shape[1];
    size_t n_in = graph_tensor_elems(p->in);
    if (!p->I || n_in % p->I) return cc_reason(why, why_size, "input size is not a multiple of the depth");
    pl->batches = (uint32_t)(n_in / p->I);
    if (pl->batches > 65536 || p->I > 65536 || p->O > 65536)
        return cc_reason(why, why_size, "FC dimensions too large");
    p->kh = p->kw = 1;
    p->layout = 0;
    p->wdata = p->w->data;
    /* per-tensor weights: TFLite multiplies the two scales in float */
    p->fc_float_product = p->w->q.n == 1;
    if (p->fc_float_product) p->wzp = (int32_t)p->w->q.zero_point[0];
    pl->kind = SIM_K_CONV;
    return true;
}

/* The weights' layout and the NPU op kind of a CONV_2D / DEPTHWISE_CONV_2D. */
static bool conv_form(const graph_op *op, conv_plan *pl, char *why, size_t why_size)
{
    wop *p = &pl->p;
    int32_t C = pl->C, OC = pl->OC;
    if (op->opcode != TFL_OP_DEPTHWISE_CONV_2D) {
        if (p->w->shape[3] != C) return cc_reason(why, why_size, "grouped convolution");
        if (p->w->shape[0] != OC) return cc_reason(why, why_size, "weights do not match the output");
        p->I = (uint32_t)C;
        p->layout = 0;
        pl->kind = SIM_K_CONV;
        if (p->w->q.n > 1 && p->w->q.axis != 0)
            return cc_reason(why, why_size, "weights quantized along axis %d", p->w->q.axis);
        return true;
    }
    int32_t mult = op->opt.depth_multiplier > 0 ? op->opt.depth_multiplier : 1;
    if (p->w->shape[3] != OC) return cc_reason(why, why_size, "depthwise weights do not match the output");
    if (OC == C) {
        p->depthwise = true;
        p->layout = 1;
        p->I = (uint32_t)C;
        pl->kind = SIM_K_DEPTHWISE;
    } else if (C == 1) {
        p->layout = 2;
        p->I = 1;
        pl->kind = SIM_K_CONV;
    } else if (OC == C * mult && C <= CC_DW_DENSE_MAX_DEPTH) {
        /* a CONV whose weights are zero outside each output channel's own
         * input channel: the same sums */
        p->layout = 4;
        p->I = (uint32_t)C;
        pl->kind = SIM_K_CONV;
    } else {
        return cc_reason(why, why_size, "depth multiplier %d on %d input channels (the NPU takes multiplier 1, "
                         "input depth 1, or up to %d input channels as a dense conv)", mult, C,
                         CC_DW_DENSE_MAX_DEPTH);
    }
    if (p->w->q.n > 1 && p->w->q.axis != 3)
        return cc_reason(why, why_size, "weights quantized along axis %d", p->w->q.axis);
    return true;
}

/* CONV_2D / DEPTHWISE_CONV_2D: shapes, form, stride, dilation, kernel,
 * padding. */
static bool conv_geometry(const graph_op *op, conv_plan *pl, char *why, size_t why_size, bool wide)
{
    const tfl_options *opt = &op->opt;
    wop *p = &pl->p;
    if (p->in->rank != 4 || p->out->rank != 4 || p->w->rank != 4)
        return cc_reason(why, why_size, "tensors are not 4-d");
    if (p->in->shape[0] != 1) return cc_reason(why, why_size, "batch %d (the NPU op takes 1)", p->in->shape[0]);
    pl->H = p->in->shape[1];
    pl->W = p->in->shape[2];
    pl->C = p->in->shape[3];
    pl->OH = p->out->shape[1];
    pl->OW = p->out->shape[2];
    pl->OC = p->out->shape[3];
    p->kh = (uint32_t)p->w->shape[1];
    p->kw = (uint32_t)p->w->shape[2];
    p->O = (uint32_t)pl->OC;
    p->wdata = p->w->data;
    if (!conv_form(op, pl, why, why_size)) return false;
    int32_t sx = opt->stride_w, sy = opt->stride_h;
    int32_t dx = opt->dilation_w > 0 ? opt->dilation_w : 1, dy = opt->dilation_h > 0 ? opt->dilation_h : 1;
    if (sx < 1 || sy < 1 || (!wide && (sx > 3 || sy > 3)))
        return cc_reason(why, why_size, "stride %dx%d (the NPU takes 1..3)", sx, sy);
    if ((sx > 3 || sy > 3) && opt->padding != TFL_PAD_VALID)
        return cc_reason(why, why_size, "stride %dx%d with SAME padding (the NPU takes 1..3; larger strides are "
                         "split with VALID padding only)", sx, sy);
    if (dx > 2 || dy > 2) return cc_reason(why, why_size, "dilation %dx%d (the NPU takes 1..2)", dx, dy);
    if ((int64_t)(p->kh - 1) * dy + 1 > 64 || (int64_t)(p->kw - 1) * dx + 1 > 64)
        return cc_reason(why, why_size, "kernel %ux%u too large", p->kw, p->kh);
    cc_pad_of(opt->padding, pl->H, (int32_t)p->kh, sy, dy, pl->OH, &pl->pt, &pl->pb);
    cc_pad_of(opt->padding, pl->W, (int32_t)p->kw, sx, dx, pl->OW, &pl->pl, &pl->pr);
    if (pl->pt > 127 || pl->pl > 127 || pl->pb > 128 || pl->pr > 128)
        return cc_reason(why, why_size, "padding too large");
    pl->sx = sx;
    pl->sy = sy;
    pl->dx = dx;
    pl->dy = dy;
    return true;
}

/* wide: strides above 3 too (VALID only; lower_wide_stride), which the
 * PAD folding never sees (cc_conv_plan). */
static bool conv_plan_x(const lower_ctx *c, const graph_op *op, conv_plan *pl, char *why, size_t why_size,
                        bool wide)
{
    memset(pl, 0, sizeof *pl);
    wop *p = &pl->p;
    p->in = cc_tin(c, op, 0);
    p->w = cc_tin(c, op, 1);
    p->bias = cc_tin(c, op, 2);
    p->out = cc_tout(c, op, 0);
    pl->fc = op->opcode == TFL_OP_FULLY_CONNECTED;
    if (!conv_types_ok(p, op->opt.activation, why, why_size)) return false;
    return pl->fc ? fc_plan(op, pl, why, why_size) : conv_geometry(op, pl, why, why_size, wide);
}

bool cc_conv_plan(const lower_ctx *c, const graph_op *op, conv_plan *pl, char *why, size_t why_size)
{
    return conv_plan_x(c, op, pl, why, why_size, false);
}

void cc_conv_fill(const lower_ctx *c, const graph_op *op, const conv_plan *pl, eu_op *o)
{
    const wop *p = &pl->p;
    o->kind = pl->kind;
    if (pl->fc) {
        cc_fm_whole(c, op->in[0], pl->batches, 1, p->I, &o->ifm);
        cc_fm_whole(c, op->out[0], pl->batches, 1, p->O, &o->ofm);
    } else {
        o->stride_x = (uint8_t)pl->sx;
        o->stride_y = (uint8_t)pl->sy;
        o->dil_x = (uint8_t)pl->dx;
        o->dil_y = (uint8_t)pl->dy;
        o->pad_t = (uint8_t)pl->pt;
        o->pad_b = (uint8_t)pl->pb;
        o->pad_l = (uint8_t)pl->pl;
        o->pad_r = (uint8_t)pl->pr;
        o->kh = p->kh;
        o->kw = p->kw;
        cc_fm_whole(c, op->in[0], (uint32_t)pl->H, (uint32_t)pl->W, (uint32_t)pl->C, &o->ifm);
        cc_fm_whole(c, op->out[0], (uint32_t)pl->OH, (uint32_t)pl->OW, (uint32_t)pl->OC, &o->ofm);
    }
    /* Vela always streams fully-connected weights depth-first */
    o->pkf = !p->depthwise && !pl->fc && eu_prefer_part_kernel_first(p->I, p->kh, p->kw, o->ifm.bits);
    o->flex = !pl->fc;
}

/* The most output bands a strided conv is split into. */
#define CONV_MAX_BANDS 64

/* CONV_2D / DEPTHWISE_CONV_2D with a stride above 3 (VALID): the NPU's
 * KERNEL_STRIDE takes 1..3 (docs/ethos-u.md 2.3). An axis with one output
 * takes stride 1 (the stride does not matter); otherwise each output row
 * (column) is a band of its own: one op with stride 1 over the dilated
 * kernel's extent of input rows from o * s, writing that output row. All
 * bands have one geometry, so they share the first one's block, weight
 * stream and scale records (weights encoded once); copies are ordered
 * chunk by chunk (cc_encode_weighted's output-channel chunks), so each
 * weight copy in SRAM lives from the op before its first band to its last,
 * loaded once (eu_gen.c, cc_prefetch.c: later users of a copy reuse it). */
static int lower_wide_stride(lower_ctx *c, const graph_op *op, const conv_plan *pl, npuc_err *err)
{
    int32_t effh = (int32_t)(pl->p.kh - 1) * pl->dy + 1, effw = (int32_t)(pl->p.kw - 1) * pl->dx + 1;
    int32_t nby = pl->sy > 3 && pl->OH > 1 ? pl->OH : 1, nbx = pl->sx > 3 && pl->OW > 1 ? pl->OW : 1;
    int32_t nb = nby * nbx;
    if ((int64_t)nby * nbx > CONV_MAX_BANDS)
        return cc_cpu(c, "stride %dx%d over a %dx%d output: %d NPU operations (the NPU takes strides 1..3, a "
                      "larger one is split into at most %d)", pl->sx, pl->sy, pl->OW, pl->OH, nb, CONV_MAX_BANDS);
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_conv_fill(c, op, pl, o);
    if (pl->sy > 3) o->stride_y = 1;
    if (pl->sx > 3) o->stride_x = 1;
    if (nby > 1) {
        o->ifm.h = (uint32_t)effh;
        o->ofm.h = 1;
    }
    if (nbx > 1) {
        o->ifm.w = (uint32_t)effw;
        o->ofm.w = 1;
    }
    if (nb > 1) o->flex = false;   /* slices by byte offsets */
    int32_t idx0 = (int32_t)(o - c->e->ops);
    int rc = cc_block_or_cpu(c, o, err);
    if (!rc) rc = cc_encode_weighted(c, o, &pl->p, err);
    if (rc || nb == 1) return rc;
    int32_t k = c->e->n_eu - idx0;   /* output-channel chunks */
    eu_op *tm = malloc(sizeof *tm * (size_t)k);
    if (!tm) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    memcpy(tm, c->e->ops + idx0, sizeof *tm * (size_t)k);
    for (int32_t i = k; i < k * nb && !rc; i++)
        if (!cc_new_eu(c, err)) rc = err->code;
    for (int32_t j = 0; j < k && !rc; j++) {
        int32_t pos0 = idx0 + j * nb;
        for (int32_t b = 0; b < nb; b++) {
            eu_op *x = &c->e->ops[pos0 + b];
            int32_t oy = nby > 1 ? b / nbx : 0, ox = nbx > 1 ? b % nbx : 0;
            *x = tm[j];
            x->ifm.off += (uint64_t)oy * (uint64_t)pl->sy * x->ifm.sy + (uint64_t)ox * (uint64_t)pl->sx * x->ifm.sx;
            x->ofm.off += (uint64_t)oy * x->ofm.sy + (uint64_t)ox * x->ofm.sx;
        }
        if (tm[j].wbuf >= 0) {
            cc_buf *wb = &c->m->bufs[tm[j].wbuf];
            wb->eu_first = pos0 > 0 ? pos0 - 1 : pos0;
            wb->eu_last = pos0 + nb - 1;
        }
    }
    free(tm);
    return rc;
}

/* The estimated cycles of CONV o with its best block, its IFM NHWC, its
 * OFM bricks where it may be (eu_block_choose_cycles: in SRAM, and on a
 * U65 also in the DRAM arena); UINT64_MAX when no block fits. Kept by
 * request (cc_block_cycles_kept): the fold choices ask for the plain op
 * up to three times, and the search's compiles all ask again. */
static uint64_t conv_cycles(const lower_ctx *c, const eu_op *o)
{
    eu_block_req r;
    cc_block_req(c->m->opt.sys.variant, o, &r);
    r.ofm_format = o->flex ? 1 : 0;   /* what the layout pass will most likely store */
    eu_block b;
    uint64_t cyc = 0;
    npuc_err e2 = {0};
    if (cc_block_cycles_kept(c->m, &r, &b, &cyc, &e2) != NPUC_OK) return UINT64_MAX;
    return cyc;
}

/* One axis folded f at a time into channels (columns or rows): the kernel
 * extent k, stride st, padding before pb and output extent out become *kf
 * taps at stride st / f over nf folded positions, padded *pbf before and
 * *paf after; false when the padding does not fit (the NPU's 127 / 128). */
static bool fold_axis(uint32_t k, uint32_t st, uint32_t pb, uint32_t nf, uint32_t out, uint32_t f, int32_t *kf,
                      int32_t *pbf, int32_t *paf)
{
    int32_t a = -(((int32_t)pb + (int32_t)f - 1) / (int32_t)f);
    /* floor((k - 1 - pb) / f) - a + 1 taps */
    *kf = ((int32_t)k - 1 - (int32_t)pb + (int32_t)f * 256) / (int32_t)f - 256 - a + 1;
    *paf = (int32_t)((out - 1) * (st / f)) + *kf + a - (int32_t)nf;
    if (*paf < 0) *paf = 0;
    *pbf = -a;
    return *kf >= 1 && *paf <= 128 && *pbf <= 127;
}

/* The geometry of o with its IFM columns folded f at a time (below):
 * false when the padding does not fit. */
static bool fold_geometry(eu_op *o, uint32_t f)
{
    int32_t kwf, plf, prf;
    uint32_t Wf = o->ifm.w / f, If = f * o->ifm.c;
    if (!fold_axis(o->kw, o->stride_x, o->pad_l, Wf, o->ofm.w, f, &kwf, &plf, &prf)) return false;
    o->ifm.w = Wf;
    o->ifm.c = If;
    o->ifm.full_w = 0;
    o->ifm.full_c = 0;
    o->ifm.sx = If;
    o->kw = (uint32_t)kwf;
    o->stride_x = (uint8_t)(o->stride_x / f);
    o->pad_l = (uint8_t)plf;
    o->pad_r = (uint8_t)prf;
    o->pkf = eu_prefer_part_kernel_first(If, o->kh, o->kw, 8);
    return true;
}

/* The geometry of o with its IFM rows folded f at a time into a dense
 * buffer of ceil(H / f) rows of W pixels of f*C channels (row y' holds the
 * input rows f*y' .. f*y' + f - 1, channel block ph the row f*y' + ph;
 * rows past the input hold the zero point): the vertical twin of
 * fold_geometry. false when the padding does not fit. */
static bool rowfold_geometry(eu_op *o, uint32_t f)
{
    int32_t khf, ptf, pbf;
    uint32_t Hf = (o->ifm.h + f - 1) / f, If = f * o->ifm.c;
    if (!fold_axis(o->kh, o->stride_y, o->pad_t, Hf, o->ofm.h, f, &khf, &ptf, &pbf)) return false;
    o->ifm.h = Hf;
    o->ifm.c = If;
    o->ifm.full_w = 0;
    o->ifm.full_c = 0;
    o->ifm.sx = If;
    o->ifm.sy = (uint64_t)o->ifm.w * If;
    o->ifm.off = 0;
    o->kh = (uint32_t)khf;
    o->stride_y = (uint8_t)(o->stride_y / f);
    o->pad_t = (uint8_t)ptf;
    o->pad_b = (uint8_t)pbf;
    o->pkf = eu_prefer_part_kernel_first(If, o->kh, o->kw, 8);
    return true;
}

/* The most raw weight bytes a conv's folded phases may add (their zero
 * taps): armkws_ds_cnn_l_int8's 10x4 conv on 276 channels would take ten
 * times its 11 KiB (flash +61 KiB, SRAM +19 KiB for -13% cycles). */
#define FOLD_EXTRA_WEIGHTS 1024u

static int32_t floor_div(int32_t x, int32_t f) { return x >= 0 ? x / f : -((-x + f - 1) / f); }

/* Phase r (0 <= r < f) of o with its IFM columns folded f at a time when f
 * does not divide the stride (below): the outputs ox = f*q + r, at folded
 * stride sx, written every f-th column (NHWC). *d receives sx*r - pl, the
 * offset of the phase's first tap. False when the padding does not fit. */
static bool phase_geometry(eu_op *o, uint32_t f, uint32_t r, int32_t *d)
{
    uint32_t sx = o->stride_x, Wf = o->ifm.w / f, If = f * o->ifm.c;
    uint32_t owr = (o->ofm.w - r + f - 1) / f;
    int32_t dr = (int32_t)(sx * r) - (int32_t)o->pad_l;
    int32_t a = floor_div(dr, (int32_t)f);
    int32_t kwf = floor_div(dr + (int32_t)o->kw - 1, (int32_t)f) - a + 1;
    int32_t ab = a > 0 ? a : 0, plf = a < 0 ? -a : 0;
    if (!owr || kwf < 1 || ab >= (int32_t)Wf || plf > 127) return false;
    uint32_t wr = Wf - (uint32_t)ab;
    int32_t prf = (int32_t)((owr - 1) * sx) + kwf - plf - (int32_t)wr;
    if (prf < 0) prf = 0;
    if (prf > 128) return false;
    o->ifm.off += (uint64_t)ab * If;
    o->ifm.w = wr;
    o->ifm.c = If;
    o->ifm.full_w = 0;
    o->ifm.full_c = 0;
    o->ifm.sx = If;
    o->kw = (uint32_t)kwf;
    o->pad_l = (uint8_t)plf;
    o->pad_r = (uint8_t)prf;
    o->ofm.off += (uint64_t)r * o->ofm.sx;
    o->ofm.w = owr;
    o->ofm.sx *= f;
    o->flex = false;   /* every f-th column: NHWC strides */
    o->pkf = eu_prefer_part_kernel_first(If, o->kh, o->kw, 8);
    *d = dr;
    return true;
}

/* Whether the plain op o (lowered from graph op op) might join a cascade
 * (cc_cascade.c): one NPU op (weights not chunked), and a chain link to an
 * op that may be a member. Its IFM is NHWC fixed (no member writes it), so
 * only a link to its output's reader counts: a CONV, DEPTHWISE, pool or a
 * PAD folded into one. */
static bool may_cascade(const lower_ctx *c, const graph_op *op, const wop *p)
{
    if (c->m->opt.cascade == CC_CASCADE_OFF || cc_weights_chunked(c, p) || op->n_out != 1 || op->out[0] < 0)
        return false;
    const graph *g = c->g;
    for (int32_t i = 0; i < g->n_ops; i++)
        for (int32_t k = 0; k < g->ops[i].n_in; k++) {
            if (g->ops[i].in[k] != op->out[0]) continue;
            int32_t oc = g->ops[i].opcode;
            if (oc == TFL_OP_CONV_2D || oc == TFL_OP_DEPTHWISE_CONV_2D || oc == TFL_OP_AVERAGE_POOL_2D ||
                oc == TFL_OP_MAX_POOL_2D || oc == TFL_OP_PAD || oc == TFL_OP_PADV2)
                return true;
        }
    return false;
}

/* Weight (oc, ky, kx, i) of a convolution's wop in layout 0, 2 or 4. */
static int8_t conv_w(const wop *p, uint32_t oc, uint32_t ky, uint32_t kx, uint32_t i)
{
    if (p->layout == 0) return p->wdata[(((size_t)oc * p->kh + ky) * p->kw + kx) * p->I + i];
    if (p->layout == 4 && i != oc / (p->O / p->I)) return 0;
    return p->wdata[((size_t)ky * p->kw + kx) * p->O + oc];
}

/* Whether the NHWC storage of the IFM's buffer is fixed anyway: every
 * tensor on it is a graph input or written by a CPU op, another epoch or
 * no NPU op at all (a view, a PAD folded into a conv: the layout pass
 * keeps those NHWC), or every NPU op of this epoch so far that addresses
 * the buffer does so with NHWC strides and offsets (not flex). */
static bool ifm_nhwc_fixed(const lower_ctx *c, int32_t buf)
{
    const graph *g = c->g;
    int32_t ei = (int32_t)(c->e - c->m->epochs);
    bool fixed = true;
    for (int32_t t = 0; t < g->n_tensors && fixed; t++) {
        if (c->m->buf_of[t] != buf) continue;
        int32_t p = g->tensors[t].producer;
        if (p >= 0 && p != c->op_index && c->m->ops[p].npu && c->m->ops[p].epoch == ei && c->m->ops[p].n_eu > 0)
            fixed = false;
    }
    if (fixed) return true;
    for (int32_t k = 0; k + 1 < c->e->n_eu; k++) {
        const eu_op *x = &c->e->ops[k];
        if (x->flex && (x->ifm.buf == buf || x->ofm.buf == buf || (x->ifm2_tensor && x->ifm2.buf == buf)))
            return false;
    }
    return true;
}

/* The plain op's cycles, or `other` (another form's) when fewer. */
static uint64_t plain_or(const lower_ctx *c, const eu_op *o, uint64_t other)
{
    uint64_t cyc = conv_cycles(c, o);
    return other < cyc ? other : cyc;
}

/* Folding IFM columns into channels (as Vela does on person_detect's first
 * conv, docs/ethos-u.md 5.2): a CONV over a shallow NHWC input with a
 * horizontal stride sx = f * s reads the same bytes viewed as W/f columns
 * of f*C channels with stride s and the kernel's columns regrouped f at a
 * time (zero weights where a group runs past the kernel). For output ox the
 * original taps read columns f*s*ox - pl + kx; folded column s*ox + a + jx
 * (a = floor(-pl / f)) holds columns f*(s*ox + a + jx) + ph, the tap
 * kx = f*(a + jx) + ph + pl. A folded column is padding exactly when all of
 * its columns are (f divides W), so every sum is the same. The part-kernel
 * pass takes 4 taps of up to 8 channels a step: with f*C <= 8 a 3-wide
 * kernel at stride 2 takes 2 columns of steps instead of 3. Taken when the
 * cycle model gives the folded op (its best block) fewer cycles, and not
 * with the arena in DRAM (below). The IFM must be NHWC anyway
 * (ifm_nhwc_fixed), since the view is no brick. Where f does not divide
 * the stride, one op per phase (phase_geometry, lower_folded_phases).
 * A fold must also beat `other` (the row fold's cycles, fold_rows).
 * Returns 0 (the plain form), 1 (o and p folded in place; *wfold receives
 * the regrouped weights, the caller frees them) or f >= 2 (phases). */
static uint32_t fold_columns(const lower_ctx *c, const graph_op *op, eu_op *o, wop *p, int8_t **wfold,
                             uint64_t other)
{
    eu_fm *f0 = &o->ifm;
    uint32_t C = f0->c, W = f0->w;
    if (o->kind != SIM_K_CONV || f0->bits != 8 || p->wzp || p->fixed_scale || o->dil_x != 1 || o->upscale ||
        (p->layout != 0 && p->layout != 2 && p->layout != 4) || p->I != C || C > 4 || f0->buf < 0 || f0->off ||
        f0->c0 || f0->tile_h || (f0->full_w && f0->full_w != W) || (f0->full_c && f0->full_c != C) ||
        f0->sc != 1 || f0->sx != C || f0->sy != (uint64_t)W * C || f0->format)
        return 0;
    /* the arena in DRAM beside a fast pool (an Ethos-U65's Dedicated_Sram):
     * the IFM (a graph input or the CPU's) stays there, and the op is
     * bound by its DRAM reads, which the fold does not shorten */
    const target_desc *sys = &c->m->opt.sys;
    if (sys->fast_pool >= 0 && sys->fast_pool < sys->n_pools && sys->fast_pool != sys->act_pool) return 0;
    uint64_t best = 0;
    uint32_t bf = 0;
    eu_op t;
    for (uint32_t f = 2; f <= 3; f++) {
        if (o->stride_x % f || W % f || f * C > 8) continue;
        t = *o;
        if (!fold_geometry(&t, f)) continue;
        if (!best) best = plain_or(c, o, other);
        uint64_t cyc = conv_cycles(c, &t);
        if (cyc < best) {
            best = cyc;
            bf = f;
        }
    }
    if (!bf) {
        /* phases: f not dividing the stride; not where the plain op might
         * cascade (the phases cannot, and the arena's peak would grow) */
        if (may_cascade(c, op, p)) return 0;
        for (uint32_t f = 2; f <= 8; f++) {
            if (o->stride_x % f == 0 || W % f || f * C > 8 || o->ofm.w < f) continue;
            uint64_t sum = 0, taps = 0;
            for (uint32_t r = 0; r < f && sum != UINT64_MAX; r++) {
                int32_t d;
                t = *o;
                uint64_t cyc = phase_geometry(&t, f, r, &d) ? conv_cycles(c, &t) : UINT64_MAX;
                sum = cyc == UINT64_MAX ? UINT64_MAX : sum + cyc;
                taps += t.kw;
            }
            /* the phases' weights, mostly zeros, cost flash (and SRAM where
             * copied): at most FOLD_EXTRA_WEIGHTS raw bytes more */
            if (sum == UINT64_MAX || ((uint64_t)taps * f - o->kw) * C * o->kh * p->O > FOLD_EXTRA_WEIGHTS) continue;
            if (!best) best = plain_or(c, o, other);
            if (sum < best) {
                best = sum;
                bf = f;
            }
        }
        return bf && ifm_nhwc_fixed(c, f0->buf) ? bf : 0;
    }
    if (!ifm_nhwc_fixed(c, f0->buf)) return 0;
    t = *o;
    fold_geometry(&t, bf);
    uint32_t f = bf, If = t.ifm.c, kwf = t.kw;
    int32_t a = -(int32_t)t.pad_l;
    int8_t *w = calloc((size_t)p->O * p->kh * kwf * If + 1, 1);
    if (!w) return 0;   /* keep the plain form */
    for (uint32_t oc = 0; oc < p->O; oc++)
        for (uint32_t ky = 0; ky < p->kh; ky++)
            for (uint32_t jx = 0; jx < kwf; jx++)
                for (uint32_t ph = 0; ph < f; ph++) {
                    int32_t kx = (int32_t)f * (a + (int32_t)jx) + (int32_t)ph + o->pad_l;
                    if (kx < 0 || kx >= (int32_t)p->kw) continue;
                    for (uint32_t i = 0; i < C; i++)
                        w[(((size_t)oc * p->kh + ky) * kwf + jx) * If + ph * C + i] =
                            conv_w(p, oc, ky, (uint32_t)kx, i);
                }
    *wfold = w;
    p->wdata = w;
    p->layout = 0;
    p->I = If;
    p->kw = kwf;
    *o = t;
    return 1;
}

/* The f phases of a conv whose IFM columns fold f at a time (o: the plain
 * op, the first phase's slot), each one CONV with its own regrouped
 * weights (fold_columns, phase_geometry). */
static int lower_folded_phases(lower_ctx *c, eu_op *o, const wop *p, uint32_t f, npuc_err *err)
{
    eu_op tmpl = *o;
    uint32_t C = tmpl.ifm.c, If = f * C;
    int8_t *w = malloc((size_t)p->O * p->kh * (tmpl.kw + 2) * If + 1);   /* a phase takes at most kw / f + 2 columns */
    if (!w) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    for (uint32_t r = 0; r < f && !rc; r++) {
        eu_op t = tmpl;
        int32_t d;
        if (!phase_geometry(&t, f, r, &d)) {   /* fold_columns checked every phase */
            rc = npuc_errf(err, NPUC_E_INVALID, "folded conv: phase %u does not fit", r);
            break;
        }
        int32_t a = floor_div(d, (int32_t)f);
        memset(w, 0, (size_t)p->O * p->kh * t.kw * If);
        for (uint32_t oc = 0; oc < p->O; oc++)
            for (uint32_t ky = 0; ky < p->kh; ky++)
                for (uint32_t jx = 0; jx < t.kw; jx++)
                    for (uint32_t ph = 0; ph < f; ph++) {
                        int32_t kx = (int32_t)f * (a + (int32_t)jx) + (int32_t)ph - d;
                        if (kx < 0 || kx >= (int32_t)p->kw) continue;
                        for (uint32_t i = 0; i < C; i++)
                            w[(((size_t)oc * p->kh + ky) * t.kw + jx) * If + ph * C + i] =
                                conv_w(p, oc, ky, (uint32_t)kx, i);
                    }
        wop ps = *p;
        ps.wdata = w;
        ps.layout = 0;
        ps.I = If;
        ps.kw = t.kw;
        eu_op *x = r ? cc_new_eu(c, err) : o;
        if (!x) {
            rc = err->code;
            break;
        }
        *x = t;
        rc = cc_block_or_cpu(c, x, err);
        if (!rc) rc = cc_encode_weighted(c, x, &ps, err);
    }
    free(w);
    return rc;
}

/* Folding IFM rows into channels: the vertical twin of fold_columns for a
 * CONV over a shallow NHWC input whose vertical stride f divides (2 or 3,
 * f*C <= 8) where the columns cannot fold (a horizontal stride of 1, as
 * the armkws DS-CNNs' 10x4 conv at stride 2x1 over 49x10x1). Channels are
 * contiguous in a pixel, so rows do not fold by a view: f raw copies
 * (cc_copy_block) regroup the input into a dense temp of ceil(H / f) rows
 * of W pixels of f*C channels, row y' channel block ph holding input row
 * f*y' + ph (copy ph reads every f-th row from row ph and writes every
 * f-th channel block), and where f does not divide H one more copy writes
 * the input's zero point from flash into the last row's missing blocks
 * (rows past the input: a tap there is TFLite padding or has a zero
 * weight). The CONV then reads the temp with rowfold_geometry: folded tap
 * (jy, ph) is the original tap ky = f*(a + jy) + ph + pt (a = -ceil(pt /
 * f)), zero weight where that passes the kernel, so every sum is the
 * same. Where a horizontal stride g (2 or 3) divides too, the temp's
 * columns fold g at a time as well (fold_geometry on the folded op; *cols
 * receives g, else 1). The copies make the graph op more than one NPU op
 * (the CONV may still head a cascade: cc_cascade.c, prologue_temp), and
 * its IFM must be NHWC anyway (ifm_nhwc_fixed). Returns f when the cycle
 * model gives the folded CONV plus the copies fewer cycles than the plain
 * op by the margin below (*cost: that sum), else 0; the caller weighs a
 * column fold against *cost. */
static uint32_t fold_rows(const lower_ctx *c, const eu_op *o, const wop *p, uint64_t *cost, uint32_t *cols)
{
    *cols = 1;
    const eu_fm *f0 = &o->ifm;
    uint32_t C = f0->c, W = f0->w, H = f0->h;
    *cost = UINT64_MAX;
    if (o->kind != SIM_K_CONV || f0->bits != 8 || p->wzp || p->fixed_scale || o->dil_y != 1 || o->upscale ||
        (p->layout != 0 && p->layout != 2 && p->layout != 4) || p->I != C || C > 4 || f0->buf < 0 || f0->off ||
        f0->c0 || f0->tile_h || (f0->full_w && f0->full_w != W) || (f0->full_c && f0->full_c != C) ||
        f0->sc != 1 || f0->sx != C || f0->sy != (uint64_t)W * C || f0->format)
        return 0;
    uint64_t best = 0;
    uint32_t bf = 0, bg = 1;
    /* f rows, and g columns of the temp as well (the temp is dense NHWC,
     * so its columns fold as fold_columns's do: a horizontal stride g
     * divides, g dividing W) */
    for (uint32_t fg = 0; fg < 6; fg++) {
        uint32_t f = 2 + fg % 2, g = 1 + fg / 2;
        if (o->stride_y % f || f * C * g > 8 || H < f) continue;
        if (g > 1 && (o->stride_x % g || W % g || o->dil_x != 1)) continue;
        eu_op t = *o;
        if (!rowfold_geometry(&t, f) || (g > 1 && !fold_geometry(&t, g))) continue;
        uint64_t cyc = conv_cycles(c, &t);
        for (uint32_t ph = 0; ph <= f && cyc != UINT64_MAX; ph++) {
            /* the copies (the pool form; cc_copy_block may take a cheaper one) */
            eu_op x;
            cc_eu_init(c, &x);
            uint32_t n = ph < f ? (H - ph + f - 1) / f : 1, d = ph < f ? C : (f - H % f) * C;
            if (ph == f && H % f == 0) break;
            cc_fm_dense(&x.ifm, f0->buf, 0, n, W, d, 8, 0);
            cc_fm_dense(&x.ofm, -1, 0, n, W, d, 8, 0);
            x.ifm.sy = (uint64_t)W * C * f;
            x.ofm.sx = (uint64_t)f * C;
            x.ofm.sy = (uint64_t)W * f * C;
            cc_copy_op(&x, 8);
            uint64_t cx = conv_cycles(c, &x);
            cyc = cx == UINT64_MAX ? UINT64_MAX : cyc + cx;
        }
        if (cyc == UINT64_MAX) continue;
        if (!best) best = conv_cycles(c, o);
        if (cyc < best) {
            best = cyc;
            bf = f;
            bg = g;
        }
    }
    /* the temp costs SRAM (and with the arena in DRAM beside a fast pool,
     * an Ethos-U65's Dedicated_Sram, the plain op's IFM would be staged
     * into the fast pool, lower.c: stage_input, which these estimates, an
     * all-SRAM and an all-DRAM placement, do not see): the fold must win
     * by more than an eighth (micro_speech_quantized's 10x8 conv at stride
     * 2x2 over 49x40x1 on an ethos-u65-256: 44.4k against 45.1k estimated,
     * 19.5k against 17.2k cycles in the model) */
    if (bf && best + best / 8 >= conv_cycles(c, o)) bf = 0;
    if (!bf || !ifm_nhwc_fixed(c, f0->buf)) return 0;
    *cost = best;
    *cols = bg;
    return bf;
}

/* The row fold of plain CONV o (its slot takes the first copy): the
 * copies into a temp, the zero-point rows, the folded CONV (fold_rows). */
static int lower_folded_rows(lower_ctx *c, eu_op *o, const wop *p, uint32_t f, uint32_t g, npuc_err *err)
{
    eu_op tmpl = *o, t = *o;
    uint32_t H = tmpl.ifm.h, W = tmpl.ifm.w, C = tmpl.ifm.c, If = f * C, Hf = (H + f - 1) / f;
    if (!rowfold_geometry(&t, f) || (g > 1 && !fold_geometry(&t, g)))
        return npuc_errf(err, NPUC_E_INVALID, "folded rows: the geometry does not fit");
    int32_t tb = cc_temp_buf(c, (uint64_t)Hf * W * If, err);
    if (tb < 0) return err->code;
    /* the arena in DRAM beside a fast pool (an Ethos-U65's Dedicated_Sram) */
    const target_desc *sys = &c->m->opt.sys;
    bool dram = sys->fast_pool >= 0 && sys->fast_pool < sys->n_pools && sys->fast_pool != sys->act_pool;
    int rc = NPUC_OK;
    for (uint32_t ph = 0; ph <= f && !rc; ph++) {
        uint32_t n = ph < f ? (H - ph + f - 1) / f : 1, d = ph < f ? C : (f - H % f) * C;
        if (ph == f && H % f == 0) break;
        eu_op *x = ph ? cc_new_eu(c, err) : o;
        if (!x) return err->code;
        cc_eu_init(c, x);
        if (ph < f) {
            cc_fm_dense(&x->ifm, tmpl.ifm.buf, (uint64_t)ph * W * C, n, W, C, 8, 0);
            x->ifm.sy = (uint64_t)W * C * f;
            cc_fm_dense(&x->ofm, tb, (uint64_t)ph * C, n, W, C, 8, 0);
        } else {
            /* the last row's blocks past the input: its zero point */
            uint8_t *z = malloc((size_t)W * d);
            uint64_t foff = 0;
            if (!z) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            memset(z, (int)(uint8_t)(int8_t)tmpl.ifm.zp, (size_t)W * d);
            rc = cc_flash_add(c->e, z, (uint64_t)W * d, &foff, err);
            free(z);
            if (rc) return rc;
            cc_fm_dense(&x->ifm, -1, foff, 1, W, d, 8, 0);
            cc_fm_dense(&x->ofm, tb, (uint64_t)(Hf - 1) * W * If + (uint64_t)(H % f) * C, 1, W, d, 8, 0);
        }
        x->ofm.sx = If;
        x->ofm.sy = (uint64_t)W * If;
        x->ofm.full_c = If;
        if (dram && ph < f) {
            /* the elementwise copy: the temp is the input's one copy in
             * SRAM (lower.c stages no input an elementwise op reads) */
            cc_copy_op(x, 8);
            x->kind = SIM_K_ELEMENTWISE;
            x->mode = EU_EW_MAX;
            x->ifm2_scalar = true;
            x->scalar = INT8_MIN;
            memset(&x->ifm2, 0, sizeof x->ifm2);
            x->ifm2.bits = 8;
            x->ifm2.is_signed = true;
            x->ifm2.buf = -1;
            cc_global_scale(x, 1, 0, 0);
            cc_type_clamp(x, 8);
            rc = cc_block_or_cpu(c, x, err);
        } else {
            rc = cc_copy_block(c, x, 8, err);
        }
    }
    if (rc) return rc;
    eu_op *x = cc_new_eu(c, err);
    if (!x) return err->code;
    *x = t;
    x->ifm.buf = tb;
    x->ifm.format = 0;
    /* folded tap (jy, jx) channel (q * f + ph) * C + i: the original tap
     * ky = f*(a + jy) + ph + pt, kx = g*(b + jx) + q + pl (kx = jx, q = 0
     * without folded columns; fold_columns) */
    int32_t a = -(int32_t)t.pad_t, b = g > 1 ? -(int32_t)t.pad_l : 0;
    uint32_t Ig = g * If;
    int8_t *w = calloc((size_t)p->O * t.kh * t.kw * Ig + 1, 1);
    if (!w) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t oc = 0; oc < p->O; oc++)
        for (uint32_t jy = 0; jy < t.kh; jy++)
            for (uint32_t ph = 0; ph < f; ph++) {
                int32_t ky = (int32_t)f * (a + (int32_t)jy) + (int32_t)ph + tmpl.pad_t;
                if (ky < 0 || ky >= (int32_t)p->kh) continue;
                for (uint32_t jx = 0; jx < t.kw; jx++)
                    for (uint32_t q = 0; q < g; q++) {
                        int32_t kx = g > 1 ? (int32_t)g * (b + (int32_t)jx) + (int32_t)q + tmpl.pad_l : (int32_t)jx;
                        if (kx < 0 || kx >= (int32_t)p->kw) continue;
                        for (uint32_t i = 0; i < C; i++)
                            w[(((size_t)oc * t.kh + jy) * t.kw + jx) * Ig + (q * f + ph) * C + i] =
                                conv_w(p, oc, (uint32_t)ky, (uint32_t)kx, i);
                    }
            }
    wop ps = *p;
    ps.wdata = w;
    ps.layout = 0;
    ps.I = Ig;
    ps.kh = t.kh;
    ps.kw = t.kw;
    rc = cc_block_or_cpu(c, x, err);
    if (!rc) rc = cc_encode_weighted(c, x, &ps, err);
    free(w);
    return rc;
}

static int lower_conv_like(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    conv_plan pl;
    if (!conv_plan_x(c, op, &pl, c->why, CC_WHY_SIZE, true)) return 1;
    if (!pl.fc && (pl.sx > 3 || pl.sy > 3)) return lower_wide_stride(c, op, &pl, err);
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_conv_fill(c, op, &pl, o);
    int8_t *wfold = NULL;
    uint32_t nph = 0, nrow = 0, ncol = 1;
    if (!pl.fc) {
        cc_pad_fold(c, op, o);   /* a PAD before it becomes its padding (lower_pad.c) */
        cc_quant_fold(c, op, o); /* a uint8 input's QUANTIZE, its zero point (lower_quantize.c) */
        uint64_t rcost;
        nrow = fold_rows(c, o, &pl.p, &rcost, &ncol);
        /* a column fold needs no temp and no copies: it wins within a
         * quarter (micro_speech_quantized's 10x8 conv at stride 2x2 over
         * 49x40x1 on an ethos-u55-128: rows and columns folded 11.2k,
         * columns 13.2k estimated; the op hides behind a weight DMA, and
         * the temp would add 2 KB to the SRAM peak for 80 cycles) */
        nph = fold_columns(c, op, o, &pl.p, &wfold, nrow ? rcost + rcost / 4 : UINT64_MAX);
    }
    if (nph > 1) return lower_folded_phases(c, o, &pl.p, nph, err);
    if (!nph && nrow) return lower_folded_rows(c, o, &pl.p, nrow, ncol, err);
    int rc = cc_block_or_cpu(c, o, err);
    if (!rc) rc = cc_encode_weighted(c, o, &pl.p, err);
    free(wfold);
    return rc;
}

/* -------------------------------------------------------- TRANSPOSE_CONV */

/* Output phases of the general form (one NPU op each). */
#define MAX_PHASES 16

/* One spatial axis of the form: TFLite padding p -> NPU pad before/after. */
typedef struct tc_axis {
    int32_t in, out, k, stride;
    int32_t p;                /* TFLite Micro's padding */
    int32_t before, after;    /* NPU padding (upscaled units when upscaled) */
} tc_axis;

/* TFLite Micro's padding of a transpose conv (ops_conv.c prepare_tconv):
 * ComputePaddingHeightWidth on the output size; a negative size estimate on
 * either axis leaves both paddings 0. */
static void tflite_pads(int32_t padding, tc_axis *h, tc_axis *w)
{
    tc_axis *ax[2] = {h, w};
    int64_t u[2];
    for (int i = 0; i < 2; i++) {
        const tc_axis *a = ax[i];
        u[i] = padding == TFL_PAD_SAME ? ((int64_t)a->out + a->stride - 1) / a->stride
                                       : ((int64_t)a->out + a->stride - a->k) / a->stride;
    }
    for (int i = 0; i < 2; i++) {
        ax[i]->p = 0;
        if (u[0] >= 0 && u[1] >= 0)
            ax[i]->p = k_pad_before(padding, ax[i]->out, ax[i]->k, ax[i]->stride, 1, (int32_t)u[i], NULL);
    }
}

/* NPU padding of one axis for the form with upscale factor `up` (1 or 2).
 * False when the padding is outside what the NPU takes (*why set). */
static bool axis_pads(tc_axis *a, int32_t up, char *why, size_t why_size, const char *name)
{
    if (a->p > a->k - 1) {
        snprintf(why, why_size, "%s padding %d is not less than the kernel %s %d", name, a->p, name, a->k);
        return false;
    }
    a->before = a->k - 1 - a->p;
    int64_t reach = (int64_t)a->out + a->p;            /* U extent read with no padding after */
    int64_t have = (int64_t)up * a->in;                /* U extent the IFM provides */
    int64_t after = reach > have ? reach - have : 0;
    if (a->before > 127 || after > 128) {
        snprintf(why, why_size, "%s output %d needs NPU padding %d before / %lld after (limits 127 / 128)",
                 name, a->out, a->before, (long long)after);
        return false;
    }
    a->after = (int32_t)after;
    return true;
}

/* The largest |accumulator + bias| any input can produce for channel oc
 * (weights w[oc] over all taps, each input value at most `xmax` from the
 * zero point). */
static double worst_acc(const int8_t *w, size_t per_ch, uint32_t oc, double xmax, const graph_tensor *bias)
{
    double s = 0;
    const int8_t *p = w + (size_t)oc * per_ch;
    for (size_t i = 0; i < per_ch; i++) s += abs(p[i]);
    double b = 0;
    if (bias && bias->data) {
        if (bias->dtype == GRAPH_I32) b = (double)((const int32_t *)bias->data)[oc];
        else if (bias->dtype == GRAPH_I64) b = (double)((const int64_t *)bias->data)[oc];
        else if (bias->dtype == GRAPH_I16) b = (double)((const int16_t *)bias->data)[oc];
    }
    return s * xmax + (b < 0 ? -b : b);
}

/* A CONV eu_op reading `ifm` (set by the caller, with the kernel, padding
 * and feature maps) through the weights of p: block, weights, scales.
 * 0 done, 1 CPU (reason set), else error. */
static int finish_op(lower_ctx *c, eu_op *o, const wop *p, npuc_err *err)
{
    o->pkf = eu_prefer_part_kernel_first(p->I, p->kh, p->kw, o->ifm.bits);
    int rc = cc_block_or_cpu(c, o, err);
    if (rc) return rc;
    return cc_encode_weighted(c, o, p, err);
}

/* Strides 1x1 and 2x2: one CONV over the (zero-upscaled) IFM with the
 * kernel turned by 180 degrees. */
static int lower_upscaled(lower_ctx *c, const graph_op *op, wop *p, const tc_axis *ah, const tc_axis *aw,
                          int32_t up, npuc_err *err)
{
    p->kh = (uint32_t)ah->k;
    p->kw = (uint32_t)aw->k;
    p->wdata = p->w->data;
    p->layout = 3;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_CONV;
    o->upscale = up == 2 ? 2 : 0;   /* IFM_UPSCALE 2 = ZEROS */
    o->kh = p->kh;
    o->kw = p->kw;
    o->pad_t = (uint8_t)ah->before;
    o->pad_b = (uint8_t)ah->after;
    o->pad_l = (uint8_t)aw->before;
    o->pad_r = (uint8_t)aw->after;
    cc_fm_whole(c, op->in[2], (uint32_t)ah->in, (uint32_t)aw->in, p->I, &o->ifm);
    cc_fm_whole(c, op->out[0], (uint32_t)ah->out, (uint32_t)aw->out, p->O, &o->ofm);
    o->flex = true;
    return finish_op(c, o, p, err);
}

/* One output phase along one axis: the outputs r, r + s, r + 2s, ...
 * gather kernel taps phi, phi + s, ... (phi = (r + p) mod s); as a
 * stride-1 conv with those taps turned, over the input from row `off`. */
typedef struct tc_phase {
    int32_t q;                /* outputs in the phase (0: none) */
    int32_t taps;             /* taps of the sub-kernel; 0 = no tap reaches the input */
    int32_t phi;              /* kernel tap of the sub-kernel's last tap */
    int32_t off;              /* first input row the conv reads */
    int32_t before, after;    /* NPU padding */
} tc_phase;

/* Phase r of an axis. False when its padding is outside the NPU's range. */
static bool phase_of(const tc_axis *a, int32_t r, bool no_taps, tc_phase *ph, char *why, size_t why_size,
                     const char *name)
{
    memset(ph, 0, sizeof *ph);
    ph->q = a->out > r ? (a->out - r + a->stride - 1) / a->stride : 0;
    if (!ph->q) return true;
    int32_t phi = (r + a->p) % a->stride, delta = (r + a->p) / a->stride;
    int32_t J = phi < a->k ? (a->k - phi + a->stride - 1) / a->stride : 0;
    /* output q reads input q + delta - j through tap phi + s*j, j < J; as a
     * conv: sub-kernel tap t = J-1-j reads row q - (J-1-delta) + t */
    int32_t b = J - 1 - delta;
    int32_t off = b < 0 ? -b : 0;
    int64_t reach, have;
    if (no_taps || J == 0 || off >= a->in) {
        /* bias only: a 1-tap kernel of zeros over rows 0.. */
        ph->taps = 0;
        reach = ph->q;
        have = a->in;
    } else {
        ph->taps = J;
        ph->phi = phi;
        ph->off = off;
        ph->before = b > 0 ? b : 0;
        reach = (int64_t)ph->q + J - 1 - ph->before;
        have = a->in - off;
    }
    int64_t after = reach > have ? reach - have : 0;
    if (ph->before > 127 || after > 128) {
        snprintf(why, why_size, "%s output phase %d needs NPU padding %d before / %lld after (limits 127 / 128)",
                 name, r, ph->before, (long long)after);
        return false;
    }
    ph->after = (int32_t)after;
    return true;
}

/* Other strides: one stride-1 CONV per output phase (ry, rx), writing every
 * sy-th row and sx-th column of the output from (ry, rx), with the
 * sub-kernel of the taps that land there, turned. */
static int lower_phases(lower_ctx *c, const graph_op *op, wop *p, const tc_axis *ah, const tc_axis *aw,
                        npuc_err *err)
{
    const int8_t *wsrc = p->w->data;
    size_t es = graph_dtype_size(p->in->dtype);
    uint32_t C = p->I, O = p->O;
    int8_t *wsub = malloc((size_t)O * (size_t)ah->k * (size_t)aw->k * C + 1);
    if (!wsub) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    char why[160];
    int rc = NPUC_OK;
    for (int32_t ry = 0; ry < ah->stride && !rc; ry++) {
        for (int32_t rx = 0; rx < aw->stride && !rc; rx++) {
            tc_phase py, px;
            if (!phase_of(ah, ry, false, &py, why, sizeof why, "height") ||
                !phase_of(aw, rx, false, &px, why, sizeof why, "width")) {
                rc = cc_cpu(c, "%s", why);
                break;
            }
            if (!py.q || !px.q) continue;
            if (!py.taps || !px.taps) {
                /* no tap of this phase reaches the input: bias only */
                if (!phase_of(ah, ry, true, &py, why, sizeof why, "height") ||
                    !phase_of(aw, rx, true, &px, why, sizeof why, "width")) {
                    rc = cc_cpu(c, "%s", why);
                    break;
                }
            }
            uint32_t kh = py.taps ? (uint32_t)py.taps : 1, kw = px.taps ? (uint32_t)px.taps : 1;
            if (!py.taps) {
                memset(wsub, 0, (size_t)O * C);
            } else {
                for (uint32_t oc = 0; oc < O; oc++)
                    for (uint32_t ty = 0; ty < kh; ty++)
                        for (uint32_t tx = 0; tx < kw; tx++) {
                            int32_t fy = py.phi + ah->stride * (int32_t)(kh - 1 - ty);
                            int32_t fx = px.phi + aw->stride * (int32_t)(kw - 1 - tx);
                            memcpy(wsub + (((size_t)oc * kh + ty) * kw + tx) * C,
                                   wsrc + (((size_t)oc * (size_t)ah->k + (size_t)fy) * (size_t)aw->k + (size_t)fx) * C,
                                   C);
                        }
            }
            wop ps = *p;
            ps.kh = kh;
            ps.kw = kw;
            ps.wdata = wsub;
            ps.layout = 0;
            eu_op *o = cc_new_eu(c, err);
            if (!o) {
                rc = err->code;
                break;
            }
            o->kind = SIM_K_CONV;
            o->kh = kh;
            o->kw = kw;
            o->pad_t = (uint8_t)py.before;
            o->pad_b = (uint8_t)py.after;
            o->pad_l = (uint8_t)px.before;
            o->pad_r = (uint8_t)px.after;
            cc_fm_whole(c, op->in[2], (uint32_t)ah->in, (uint32_t)aw->in, C, &o->ifm);
            o->ifm.off += ((uint64_t)py.off * (uint64_t)aw->in + (uint64_t)px.off) * C * es;
            o->ifm.h = (uint32_t)(ah->in - py.off);
            o->ifm.w = (uint32_t)(aw->in - px.off);
            cc_fm_whole(c, op->out[0], (uint32_t)ah->out, (uint32_t)aw->out, O, &o->ofm);
            o->ofm.off += ((uint64_t)ry * (uint64_t)aw->out + (uint64_t)rx) * O * es;
            o->ofm.h = (uint32_t)py.q;
            o->ofm.w = (uint32_t)px.q;
            o->ofm.sx *= (uint64_t)aw->stride;
            o->ofm.sy *= (uint64_t)ah->stride;
            /* feature maps addressed with NHWC strides and offsets */
            o->flex = false;
            rc = finish_op(c, o, &ps, err);
        }
    }
    free(wsub);
    return rc;
}

static int lower_tconv(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 2), *w = cc_tin(c, op, 1), *bias = cc_tin(c, op, 3);
    const graph_tensor *out = cc_tout(c, op, 0);
    const tfl_options *opt = &op->opt;
    if (!in || !w || !out) return cc_cpu(c, "missing input or output");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (!w->data) return cc_cpu(c, "weights are not constant");
    if (w->dtype != GRAPH_I8) return cc_cpu(c, "weights are %s (the NPU takes int8)", graph_dtype_name(w->dtype));
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s -> %s tensors (the NPU takes int8 or int16 in and out)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    if (!cc_has_q1(in) || !cc_has_q1(out) || w->q.n < 1) return cc_cpu(c, "tensors are not quantized");
    bool wide = in->dtype == GRAPH_I16;
    if (wide) {
        if (cc_zp(in) || cc_zp(out)) return cc_cpu(c, "int16 tensors with a non-zero zero point");
        if (bias && bias->dtype != GRAPH_I64 && bias->dtype != GRAPH_I16)
            return cc_cpu(c, "int16 op with a %s bias", graph_dtype_name(bias->dtype));
    } else if (bias && bias->dtype != GRAPH_I32) {
        return cc_cpu(c, "int8 op with a %s bias", graph_dtype_name(bias->dtype));
    }
    if (bias && !bias->data) return cc_cpu(c, "bias is not constant");
    if (!cc_act_ok(opt->activation)) return cc_cpu(c, "fused activation %s", tfl_activation_name(opt->activation));
    if (in->rank != 4 || out->rank != 4 || w->rank != 4) return cc_cpu(c, "tensors are not 4-d");
    if (in->shape[0] != 1) return cc_cpu(c, "batch %d (the NPU op takes 1)", in->shape[0]);
    int32_t H = in->shape[1], W = in->shape[2], C = in->shape[3];
    int32_t OH = out->shape[1], OW = out->shape[2], OC = out->shape[3];
    if (w->shape[0] != OC || w->shape[3] != C) return cc_cpu(c, "weights do not match the input and output");
    if (w->q.n > 1 && w->q.axis != 0) return cc_cpu(c, "weights quantized along axis %d", w->q.axis);
    if (H > 65536 || W > 65536 || C > 65536 || OH > 65536 || OW > 65536 || OC > 65536)
        return cc_cpu(c, "tensors too large for one NPU op");
    tc_axis ah = {.in = H, .out = OH, .k = w->shape[1], .stride = opt->stride_h};
    tc_axis aw = {.in = W, .out = OW, .k = w->shape[2], .stride = opt->stride_w};
    if (ah.k > 64 || aw.k > 64) return cc_cpu(c, "kernel %dx%d too large (the NPU takes up to 64x64)", aw.k, ah.k);
    tflite_pads(opt->padding, &ah, &aw);

    /* the upscale factor: an axis with one input pixel takes either */
    int32_t sh = ah.in == 1 ? 0 : ah.stride, sw = aw.in == 1 ? 0 : aw.stride;
    int32_t up = sh ? sh : sw ? sw : 1;
    bool phases = (sh && sh != up) || (sw && sw != up) || up > 2;
    if (phases && (int64_t)ah.stride * aw.stride > MAX_PHASES)
        return cc_cpu(c, "stride %dx%d (the NPU form takes 1x1, 2x2 by upscaling with zeros, or up to %d "
                      "output phases)", aw.stride, ah.stride, MAX_PHASES);
    if (!phases && (!axis_pads(&ah, up, why, sizeof why, "height") || !axis_pads(&aw, up, why, sizeof why, "width")))
        return cc_cpu(c, "%s", why);

    /* accumulator range */
    size_t per_ch = (size_t)ah.k * aw.k * C;
    double xmax = wide ? 32768.0 : (double)(cc_zp(in) < 0 ? 127 - cc_zp(in) : 128 + cc_zp(in));
    double lim = wide ? 549755813887.0 : 2147483647.0;
    for (int32_t oc = 0; oc < OC; oc++)
        if (worst_acc(w->data, per_ch, (uint32_t)oc, xmax, bias) > lim)
            return cc_cpu(c, "output channel %d: the sum could exceed the NPU's %d-bit accumulator", oc,
                          wide ? 40 : 32);

    /* an int16 bias is widened to int64 as the reference does */
    graph_tensor b64;
    int64_t *wide_bias = NULL;
    wop p;
    memset(&p, 0, sizeof p);
    p.in = in;
    p.w = w;
    p.out = out;
    p.bias = bias;
    if (bias && bias->dtype == GRAPH_I16) {
        wide_bias = malloc(sizeof *wide_bias * (size_t)OC);
        if (!wide_bias) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (int32_t i = 0; i < OC; i++) wide_bias[i] = ((const int16_t *)bias->data)[i];
        b64 = *bias;
        b64.dtype = GRAPH_I64;
        b64.data = wide_bias;
        p.bias = &b64;
    }
    p.O = (uint32_t)OC;
    p.I = (uint32_t)C;
    int rc = phases ? lower_phases(c, op, &p, &ah, &aw, err) : lower_upscaled(c, op, &p, &ah, &aw, up, err);
    free(wide_bias);
    return rc;
}


/* ------------------------------------------------------ BATCH_MATMUL */

/* The most right-hand matrices a BATCH_MATMUL with a batched constant
 * operand is split into (one FC each). */
#define BMM_MAX_BATCHES 64

/* BATCH_MATMUL of two int8 tensors (attention's Q.K^T, scores.V): no
 * constant to make weights of, so the dot products are an ELEMENTWISE MUL
 * and a REDUCE_SUM pool (docs/ethos-u.md 5.5, 5.8). For output batch b:
 *   1. when R is stored K x C (no adj_y), a copy transposes its matrix into
 *      T (C x K, int8): a 1x1 MAX pool over one tap whose IFM is R viewed
 *      C x K x 1 with byte strides (1, C); with adj_y, T is R itself; the
 *      same for L stored K x A (adj_x) into A x K;
 *   2. per output row a, MUL of T (1 x C x K, zero point zr) by the row
 *      L[b, a, :] (1 x 1 x K, zero point zl, broadcast along W) into int32
 *      products P (OFM scale (1, 0): (R - zr)(L - zl), exact: at most
 *      255 * 255 in magnitude);
 *   3. per chunk of rows, REDUCE_SUM of P over the channels (k), int32 IFM
 *      NHWC as the hardware requires (docs/ethos-u.md 1.5), straight into
 *      out[b, a, :] with TFLite's multiplier (the float scale product, as
 *      the reference's bmm_prepare) in TFL rounding (docs/ethos-u.md 5.6),
 *      the output zero point and the int8 clamp.
 * The reference sums in wrapping int32, the NPU without wrapping: equal
 * when |sum| <= K * 255 * 255 < 2^31, so K <= 33025, else the CPU.
 * Batch dims: equal on both sides, or one side a single matrix (it
 * broadcasts). More than BMM_MAX_OPS NPU ops stay on the CPU. */
#define BMM_MAX_OPS 64
#define BMM_CHUNK_BYTES 65536u     /* int32 products one REDUCE_SUM reads */
#define BMM_MAX_K 33025            /* K * 255 * 255 < 2^31 */

/* dst (rows x cols, dense int8) [i][j] = src[off + j * rows + i]: a 1x1
 * MAX pool over one tap, the raw values. */
static int bmm_transpose(lower_ctx *c, int32_t src, uint64_t off, uint32_t rows, uint32_t cols, int32_t dst,
                         npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_fm_dense(&o->ifm, src, off, rows, cols, 1, 8, 0);
    o->ifm.sy = 1;
    o->ifm.sx = rows;
    cc_fm_dense(&o->ofm, dst, 0, rows, cols, 1, 8, 0);
    o->flex = false;
    return cc_copy_block(c, o, 8, err);
}

static int bmm_tensors(lower_ctx *c, const graph_op *op, const graph_tensor *l, const graph_tensor *r,
                       const graph_tensor *out, npuc_err *err)
{
    const int32_t lr = l->rank, rr = r->rank;
    if (lr < 2 || rr < 2 || lr > 5 || rr > 5) return cc_cpu(c, "ranks %d and %d", lr, rr);
    const bool adj_x = op->opt.adj_x, adj_y = op->opt.adj_y;
    const int32_t A = adj_x ? l->shape[lr - 1] : l->shape[lr - 2], K = adj_x ? l->shape[lr - 2] : l->shape[lr - 1];
    const int32_t C = adj_y ? r->shape[rr - 2] : r->shape[rr - 1];
    /* batch dims right-aligned to 3, as the reference kernel */
    int32_t bl[3], br[3];
    uint64_t lb = 1, rb = 1;
    for (int32_t i = 0; i < 3; i++) {
        const int32_t li = lr - 5 + i, ri = rr - 5 + i;
        bl[i] = li >= 0 ? l->shape[li] : 1;
        br[i] = ri >= 0 ? r->shape[ri] : 1;
        lb *= (uint64_t)bl[i];
        rb *= (uint64_t)br[i];
    }
    if (lb > 1 && rb > 1)
        for (int32_t i = 0; i < 3; i++)
            if (bl[i] != br[i])
                return cc_cpu(c, "batch dims that broadcast against each other (the NPU form takes equal batch "
                              "dims or one side a single matrix)");
    const uint64_t nb = lb > rb ? lb : rb;
    if (graph_tensor_elems(out) != nb * (uint64_t)A * (uint64_t)C)
        return cc_cpu(c, "the output does not match the operands");
    if (K > BMM_MAX_K)
        return cc_cpu(c, "depth %d: the int32 sum could wrap (TFLite wraps, the NPU does not; the NPU form "
                      "takes up to %d)", K, BMM_MAX_K);
    if (C > CC_DIM_MAX || A > CC_DIM_MAX) return cc_cpu(c, "dimensions too large for one NPU op");
    const uint64_t row_bytes = (uint64_t)C * (uint64_t)K * 4u;
    if (row_bytes > 4 * BMM_CHUNK_BYTES)
        return cc_cpu(c, "%d x %d products of one output row (the NPU form takes up to %u bytes of them)", C, K,
                      4 * BMM_CHUNK_BYTES);
    uint32_t rows = (uint32_t)(BMM_CHUNK_BYTES / row_bytes);
    if (rows < 1) rows = 1;
    if (rows > (uint32_t)A) rows = (uint32_t)A;
    const uint64_t chunks = ((uint64_t)A + rows - 1) / rows;
    const uint64_t transposes = (adj_y ? 0 : rb) + (adj_x ? lb : 0);
    const uint64_t n_ops = transposes + nb * ((uint64_t)A + chunks);
    if (n_ops > BMM_MAX_OPS)
        return cc_cpu(c, "%llu NPU ops (the tensor-by-tensor form runs a MUL per output row, a REDUCE_SUM per %u "
                      "rows and a transpose per matrix stored K-major; at most %d)", (unsigned long long)n_ops, rows,
                      BMM_MAX_OPS);
    /* the reference's multiplier: float scale product over the output scale */
    const float prod = l->q.scale[0] * r->q.scale[0];
    const double real = (double)prod / (double)out->q.scale[0];
    int32_t mm, ms;
    uint32_t hm;
    uint8_t hs;
    k_quantize_multiplier(real, &mm, &ms);
    if (ms < -31 || ms > 30 || !cc_hw_scale_tfl(mm, ms, &hm, &hs))
        return cc_cpu(c, "rescale factor %g is outside the NPU's range", real);

    const int32_t zl = cc_zp(l), zr = cc_zp(r), zo = cc_zp(out);
    const int32_t bufl = c->m->buf_of[op->in[0]], bufr = c->m->buf_of[op->in[1]], bufo = c->m->buf_of[op->out[0]];
    const uint64_t mat = (uint64_t)K * (uint64_t)C;
    const uint64_t lmat = (uint64_t)A * (uint64_t)K;
    int32_t bt = -1, blt = -1, bp;
    if (!adj_y && (bt = cc_temp_buf(c, mat, err)) < 0) return err->code;
    if (adj_x && (blt = cc_temp_buf(c, lmat, err)) < 0) return err->code;
    if ((bp = cc_temp_buf(c, row_bytes * rows, err)) < 0) return err->code;
    int rc = 0;
    for (uint64_t b = 0; b < nb && !rc; b++) {
        const uint64_t lbat = lb > 1 ? b : 0, rbat = rb > 1 ? b : 0;
        eu_fm t;
        if (adj_y) {
            cc_fm_dense(&t, bufr, rbat * mat, 1, (uint32_t)C, (uint32_t)K, 8, zr);
        } else {
            cc_fm_dense(&t, bt, 0, 1, (uint32_t)C, (uint32_t)K, 8, zr);
            /* 1: T[c][k] = R[k][c] */
            if ((b == 0 || rb > 1) && (rc = bmm_transpose(c, bufr, rbat * mat, (uint32_t)C, (uint32_t)K, bt, err)))
                break;
        }
        /* the rows of L: L itself, or (adj_x) L^T[a][k] = L[k][a] */
        int32_t lbuf = bufl;
        uint64_t loff = lbat * lmat;
        if (adj_x) {
            if ((b == 0 || lb > 1) && (rc = bmm_transpose(c, bufl, lbat * lmat, (uint32_t)A, (uint32_t)K, blt, err)))
                break;
            lbuf = blt;
            loff = 0;
        }
        for (uint32_t a0 = 0; a0 < (uint32_t)A && !rc; a0 += rows) {
            const uint32_t n = (uint32_t)A - a0 < rows ? (uint32_t)A - a0 : rows;
            /* 2: the products of each row */
            for (uint32_t i = 0; i < n && !rc; i++) {
                eu_op *o = cc_new_eu(c, err);
                if (!o) return err->code;
                o->kind = SIM_K_ELEMENTWISE;
                o->mode = 0; /* MUL */
                o->ifm = t;
                cc_fm_dense(&o->ifm2, lbuf, loff + (uint64_t)(a0 + i) * (uint64_t)K, 1, 1, (uint32_t)K, 8, zl);
                o->ifm2_tensor = true;
                o->bcast_w = C > 1;
                cc_fm_dense(&o->ofm, bp, (uint64_t)i * row_bytes, 1, (uint32_t)C, (uint32_t)K, 32, 0);
                cc_global_scale(o, 1, 0, EU_ROUND_TFL);
                o->flex = false;
                rc = cc_block_or_cpu(c, o, err);
            }
            if (rc) break;
            /* 3: the sums over k, rescaled into the output rows */
            eu_op *o = cc_new_eu(c, err);
            if (!o) return err->code;
            o->kind = SIM_K_POOL;
            o->mode = EU_POOL_REDUCE_SUM;
            cc_fm_dense(&o->ifm, bp, 0, n, (uint32_t)C, (uint32_t)K, 32, 0);
            cc_fm_dense(&o->ofm, bufo, (b * (uint64_t)A + a0) * (uint64_t)C, n, (uint32_t)C, 1, 8, zo);
            cc_global_scale(o, hm, hs, EU_ROUND_TFL);
            o->act_min = INT8_MIN;
            o->act_max = INT8_MAX;
            o->flex = false;
            rc = cc_block_or_cpu(c, o, err);
        }
    }
    return rc;
}

/* BATCH_MATMUL with a constant int8 right-hand side R: out[..., a, c] =
 * sum_k (L[..., a, k] - zl) * (R[..., k, c] - zr), rescaled by the float
 * product lhs_scale * rhs_scale over the output scale, plus the output zero
 * point and clamped: TFLite's FULLY_CONNECTED arithmetic with per-tensor
 * weights (fc_plan's fc_float_product, the weight zero point taken out of
 * the weights) and no bias. So each right-hand matrix is a FULLY_CONNECTED
 * over the rows of L that use it: weights R^T (C x K), rows L's A x K rows
 * of that batch. One op when R has one matrix (rank 2, or leading 1s): all
 * of L's rows at once; otherwise one op per batch of the output, up to
 * BMM_MAX_BATCHES, when L's batch dims are R's (no broadcast of L). A
 * non-constant R takes bmm_tensors' form. L stored transposed (adj_x),
 * int16 and a depth whose int32 sum could wrap stay on the CPU. */
static int lower_batch_matmul(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *l = cc_tin(c, op, 0), *r = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (op->n_in != 2 || op->n_out != 1 || !l || !r || !out) return cc_cpu(c, "missing input or output");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (l->dtype != GRAPH_I8 || r->dtype != GRAPH_I8 || out->dtype != GRAPH_I8)
        return cc_cpu(c, "%s BATCH_MATMUL (the NPU forms take int8: 8-bit weights, 8-bit MUL products)",
                      graph_dtype_name(l->dtype));
    if (!cc_has_q1(l) || !cc_has_q1(r) || !cc_has_q1(out) || r->q.n != 1)
        return cc_cpu(c, "tensors are not quantized per tensor");
    if (!r->data) return bmm_tensors(c, op, l, r, out, err);
    if (op->opt.adj_x) return cc_cpu(c, "adj_x: the left-hand operand is stored transposed");
    int32_t lr = l->rank, rr = r->rank;
    if (lr < 2 || rr < 2 || lr > 5 || rr > 5) return cc_cpu(c, "ranks %d and %d", lr, rr);
    const bool adj_y = op->opt.adj_y;
    const int32_t A = l->shape[lr - 2], K = l->shape[lr - 1];
    const int32_t C = adj_y ? r->shape[rr - 2] : r->shape[rr - 1];
    uint64_t lb = 1, rb = 1;
    for (int32_t i = 0; i < lr - 2; i++) lb *= (uint64_t)l->shape[i];
    for (int32_t i = 0; i < rr - 2; i++) rb *= (uint64_t)r->shape[i];
    if (rb > 1) {
        /* one FC per right-hand matrix: L's batch dims must be R's */
        bool same = lr == rr;
        for (int32_t i = 0; same && i < lr - 2; i++) same = l->shape[i] == r->shape[i];
        if (!same) return cc_cpu(c, "the left-hand batch dims broadcast against a batched constant");
        if (rb > BMM_MAX_BATCHES)
            return cc_cpu(c, "%llu right-hand matrices (the NPU form runs one FC each, at most %d)",
                          (unsigned long long)rb, BMM_MAX_BATCHES);
    }
    if (graph_tensor_elems(out) != lb * (uint64_t)A * (uint64_t)C)
        return cc_cpu(c, "the output broadcasts the left-hand operand");
    if (lb * (uint64_t)A > 65536 || K > 65536 || C > 65536) return cc_cpu(c, "dimensions too large");
    /* the int32 sum: |L - zl| <= 255, |R - zr| its largest */
    const int8_t *rd = r->data;
    int32_t zr = (int32_t)r->q.zero_point[0], wmax = 0;
    size_t nr = graph_tensor_elems(r);
    for (size_t i = 0; i < nr; i++) {
        int32_t v = rd[i] - zr;
        if (v < 0) v = -v;
        if (v > wmax) wmax = v;
    }
    if ((uint64_t)K * 255u * (uint64_t)wmax > (uint64_t)INT32_MAX)
        return cc_cpu(c, "depth %d: the int32 sum could wrap (TFLite wraps, the NPU's accumulator is 32 bits)", K);

    /* the weights of each right-hand matrix as FC weights C x K */
    const size_t mat = (size_t)K * (size_t)C;
    int8_t *wt = malloc(mat * (size_t)rb + 1);
    if (!wt) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint64_t b = 0; b < rb; b++) {
        const int8_t *src = rd + b * mat;
        int8_t *dst = wt + b * mat;
        for (int32_t cc = 0; cc < C; cc++)
            for (int32_t k = 0; k < K; k++)
                dst[(size_t)cc * K + k] = adj_y ? src[(size_t)cc * K + k] : src[(size_t)k * C + cc];
    }
    conv_plan pl;
    memset(&pl, 0, sizeof pl);
    wop *p = &pl.p;
    p->in = l;
    p->w = r;
    p->out = out;
    p->O = (uint32_t)C;
    p->I = (uint32_t)K;
    p->kh = p->kw = 1;
    p->layout = 0;
    p->fc_float_product = true;
    p->wzp = zr;
    pl.fc = true;
    pl.kind = SIM_K_CONV;
    pl.batches = (uint32_t)(lb * (uint64_t)A);
    int rc = NPUC_OK;
    uint32_t rows = rb > 1 ? (uint32_t)A : pl.batches;
    for (uint64_t b = 0; b < rb && !rc; b++) {
        eu_op *o = cc_new_eu(c, err);
        if (!o) {
            rc = err->code;
            break;
        }
        cc_conv_fill(c, op, &pl, o);
        o->ifm.h = o->ofm.h = rows;
        o->ifm.off += b * (uint64_t)A * o->ifm.sy;
        o->ofm.off += b * (uint64_t)A * o->ofm.sy;
        if (rb > 1) o->flex = false;
        p->wdata = wt + b * mat;
        rc = cc_block_or_cpu(c, o, err);
        if (!rc) rc = cc_encode_weighted(c, o, p, err);
    }
    free(wt);
    return rc;
}

static const lower_impl conv_ops[] = {
    {TFL_OP_CONV_2D, lower_conv_like},
    {TFL_OP_DEPTHWISE_CONV_2D, lower_conv_like},
    {TFL_OP_FULLY_CONNECTED, lower_conv_like},
    {TFL_OP_TRANSPOSE_CONV, lower_tconv},
    {TFL_OP_BATCH_MATMUL, lower_batch_matmul},
};

LOWER_OPS_TABLE(lower_ops_conv, conv_ops)
