/* lower_elementwise: ADD, SUB, MUL, MINIMUM and MAXIMUM as one binary
 * ELEMENTWISE op (docs/ethos-u.md 5.6, 5.8, 5.10), int8 / int16, and plain
 * int32 where the value ranges (cc_range.h) prove the result stays in
 * int32 (docs/compiler.md, Value ranges).
 *
 * The operand with the output's shape is the IFM; the other one (IFM2) may
 * broadcast along H, W or C (the operand-order bit keeps SUB's order when
 * TFLite's input 0 is in IFM2). A constant scalar goes in IFM2_SCALAR, a
 * constant tensor operand in the epoch's flash.
 *   - ADD / SUB: TFLite's operand scaling (inputs to 2^k units, k = 20 for
 *     int8, 15 for int16): the operand at the larger scale enters exactly
 *     as x * 2^(k-1), the other one through OPA_SCALE; the output through
 *     OFM_SCALE in TFL rounding;
 *   - MUL: one output multiplier for the product of the scales;
 *   - MINIMUM / MAXIMUM: raw values, as TFLite compares them;
 *   - SQUARED_DIFFERENCE (int8): two or four ops, see lower_sqdiff.
 * When both operands broadcast, the op runs once per slice where the IFM
 * operand is whole (a constant operand copied into SRAM first), or, past
 * the sub-op limit, with a constant operand stored expanded to the output's
 * shape (docs/compiler.md, Both operands broadcast). */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_common.h"
#include "sim/sim_rescale.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EW_MUL = 0, EW_ADD = 1, EW_SUB = 2, EW_MIN = 3, EW_MAX = 4 };

/* Pads a shape to 4-d on the left. */
static bool shape4(const graph_tensor *t, int32_t s[4])
{
    if (t->rank > 4) return false;
    for (int i = 0; i < 4; i++) s[i] = 1;
    for (int32_t i = 0; i < t->rank; i++) s[4 - t->rank + i] = t->shape[i];
    return true;
}

/* Where the op splits into sub-ops (both operands broadcast): the axes
 * (1 H, 2 W, 3 C of the 4-d shapes) the IFM operand is 1 on while the
 * output is not, looped one sub-op per index; n the number of sub-ops
 * (1: no split). */
typedef struct ew_split {
    int32_t n;
    int32_t first;            /* epoch index of sub-op 0 */
    bool loop[4];
    int32_t so[4], ss[4];     /* output and IFM2 operand shapes */
} ew_split;

/* The shape of slice k of a tensor of shape s: extent 1 on looped axes. */
static void slice_shape(const ew_split *sp, const int32_t s[4], int32_t out[4])
{
    for (int i = 0; i < 4; i++) out[i] = sp->loop[i] ? 1 : s[i];
}

/* IFM2: a constant int8 / int16 scalar in IFM2_SCALAR, else a tensor
 * (constant: in flash) broadcast where its slice has extent 1 and the
 * output's not. ss: its shape, sl its slice's, so the output slice's. */
static int set_ifm2(lower_ctx *c, eu_op *o, int32_t si, const eu_fm *pre, const int32_t ss[4], const int32_t sl[4],
                    const int32_t so[4], npuc_err *err)
{
    const graph_tensor *s2 = &c->g->tensors[si];
    if (!pre && graph_tensor_elems(s2) == 1 && s2->data && s2->dtype != GRAPH_I32) {
        int32_t v = s2->dtype == GRAPH_I8 ? ((const int8_t *)s2->data)[0] : ((const int16_t *)s2->data)[0];
        o->ifm2_scalar = true;
        o->scalar = v;
        memset(&o->ifm2, 0, sizeof o->ifm2);
        o->ifm2.bits = o->ifm.bits;
        o->ifm2.is_signed = true;
        o->ifm2.zp = cc_zp(s2);
        o->ifm2.buf = -1;
        return NPUC_OK;
    }
    o->ifm2_tensor = true;
    if (pre) o->ifm2 = *pre;
    else cc_fm_whole(c, si, (uint32_t)ss[1], (uint32_t)ss[2], (uint32_t)ss[3], &o->ifm2);
    o->ifm2.h = (uint32_t)sl[1];
    o->ifm2.w = (uint32_t)sl[2];
    o->ifm2.c = (uint32_t)sl[3];
    if (s2->data && !pre) {
        o->ifm2.buf = -1;
        int rc = cc_flash_add(c->e, s2->data, s2->nbytes, &o->ifm2.off, err);
        if (rc) return rc;
    }
    o->bcast_h = sl[1] != so[1];
    o->bcast_w = sl[2] != so[2];
    o->bcast_c = sl[3] != so[3];
    return NPUC_OK;
}

/* The most bytes a constant operand is expanded to (the output's size). */
#define CC_EW_EXPAND_MAX (256u * 1024u)

/* A constant of shape s stored in flash broadcast to shape so (NHWC). */
static int expand_const(lower_ctx *c, const graph_tensor *t, const int32_t s[4], const int32_t so[4], uint64_t *off,
                        npuc_err *err)
{
    size_t es = graph_dtype_size(t->dtype);
    size_t n = (size_t)so[1] * (size_t)so[2] * (size_t)so[3];
    uint8_t *buf = malloc(n * es);
    if (!buf) return npuc_errf(err, NPUC_E_NOMEM, "out of memory (broadcast constant)");
    const uint8_t *src = t->data;
    size_t k = 0;
    for (int32_t y = 0; y < so[1]; y++)
        for (int32_t x = 0; x < so[2]; x++)
            for (int32_t ch = 0; ch < so[3]; ch++, k++) {
                size_t i = (((size_t)(s[1] > 1 ? y : 0) * (size_t)s[2]) + (size_t)(s[2] > 1 ? x : 0)) * (size_t)s[3] +
                           (size_t)(s[3] > 1 ? ch : 0);
                memcpy(buf + k * es, src + i * es, es);
            }
    int rc = cc_flash_add(c->e, buf, n * es, off, err);
    free(buf);
    return rc;
}

/* An int8 / int16 constant of shape s copied from flash into a scratch
 * buffer by one raw 1x1 MAX pool copy (sub-ops of a split read it there
 * instead of each reading flash); *fm the copy. 0, 1 (CPU: no block) or
 * an error. */
static int const_to_sram(lower_ctx *c, int32_t t, const int32_t s[4], eu_fm *fm, npuc_err *err)
{
    const graph_tensor *gt = &c->g->tensors[t];
    uint8_t bits = (uint8_t)(8 * graph_dtype_size(gt->dtype));
    int32_t buf = cc_temp_buf(c, gt->nbytes, err);
    if (buf < 0) return err->code;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_copy_op(o, bits);
    cc_fm_dense(&o->ifm, -1, 0, (uint32_t)s[1], (uint32_t)s[2], (uint32_t)s[3], bits, 0);
    cc_fm_dense(&o->ofm, buf, 0, (uint32_t)s[1], (uint32_t)s[2], (uint32_t)s[3], bits, 0);
    o->flex = false;
    int rc = cc_flash_add(c->e, gt->data, gt->nbytes, &o->ifm.off, err);
    if (rc) return rc;
    *fm = o->ofm;
    return cc_block_or_cpu(c, o, err);
}

/* The int32 form: every operand int32. */
static bool int32_op(const graph_tensor *a, const graph_tensor *b, const graph_tensor *out)
{
    return a->dtype == GRAPH_I32 && b->dtype == GRAPH_I32 && out->dtype == GRAPH_I32;
}

/* What every binary op checks, and its eu_op with the operands set: 0
 * (*po set; with sp->n > 1 the first of the sub-ops, slice 0), 1 (CPU,
 * reason set) or an error. */
static int binary_op(lower_ctx *c, const graph_op *op, eu_op **po, ew_split *sp, npuc_err *err)
{
    const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!a || !b || !out) return cc_cpu(c, "missing input or output");
    bool i32 = int32_op(a, b, out);
    if (i32) {
        /* plain int32, as the reference takes it */
        if (a->q.n || b->q.n || out->q.n) return cc_cpu(c, "quantized int32 tensors");
    } else {
        if (!cc_npu_dtype(a->dtype) || b->dtype != a->dtype || out->dtype != a->dtype)
            return cc_cpu(c, "%s/%s -> %s tensors", graph_dtype_name(a->dtype), graph_dtype_name(b->dtype),
                          graph_dtype_name(out->dtype));
        if (!cc_has_q1(a) || !cc_has_q1(b) || !cc_has_q1(out)) return cc_cpu(c, "tensors are not quantized");
        int32_t act = op->opt.activation;
        bool minmax = op->opcode == TFL_OP_MINIMUM || op->opcode == TFL_OP_MAXIMUM;
        if (!minmax && !cc_act_ok(act)) return cc_cpu(c, "fused activation %s", tfl_activation_name(act));
    }
    int32_t sa[4], sb[4], so[4];
    if (!shape4(a, sa) || !shape4(b, sb) || !shape4(out, so)) return cc_cpu(c, "rank above 4");
    if (sa[0] != 1 || sb[0] != 1 || so[0] != 1) return cc_cpu(c, "batch above 1");
    for (int i = 1; i < 4; i++)
        if ((sa[i] != so[i] && sa[i] != 1) || (sb[i] != so[i] && sb[i] != 1))
            return cc_cpu(c, "shapes do not broadcast");
    if (so[1] > 65536 || so[2] > 65536 || so[3] > 65536) return cc_cpu(c, "dimension above 65536");
    /* The IFM must have the OFM's shape. When both operands broadcast, the
     * one whose broadcast axes span fewer output positions is the IFM, and
     * the op runs once per index of those axes (the IFM is 1 there: each
     * sub-op has it whole, and the other operand's slice in IFM2) */
    int64_t na = 1, nb = 1;
    for (int i = 1; i < 4; i++) {
        if (sa[i] != so[i]) na *= so[i];
        if (sb[i] != so[i]) nb *= so[i];
    }
    bool swap = nb < na;       /* IFM = input 1, IFM2 = input 0 */
    int64_t nsub = swap ? nb : na;
    /* A constant operand of the sub-ops is copied into a scratch buffer
     * first (flash is slow, and the sub-ops may read it several times).
     * Where that cannot be (int32: no 32-bit copy; more sub-ops than the
     * limit) the constant is stored at the output's shape instead (in flash,
     * up to CC_EW_EXPAND_MAX bytes) and is the IFM of one op. */
    bool expand = false;
    uint64_t out_bytes = graph_tensor_elems(out) * graph_dtype_size(out->dtype);
    if (nsub > 1 && (a->data || b->data) && (i32 || nsub > CC_COPY_MAX_OPS) && out_bytes <= CC_EW_EXPAND_MAX) {
        expand = true;
        swap = !a->data;
        nsub = 1;
    }
    /* (no partial feature maps of a tensor a CONCATENATION reads: the
     * in-place pass puts it straight into its slice of the concatenation,
     * addressed in the tensor's own shape) */
    bool concat_reader = false;
    for (int32_t i = 0; i < c->g->n_ops && !concat_reader; i++)
        if (c->g->ops[i].opcode == TFL_OP_CONCATENATION)
            for (int32_t k = 0; k < c->g->ops[i].n_in; k++) {
                int32_t t = c->g->ops[i].in[k];
                concat_reader |= t >= 0 && (t == op->out[0] || t == op->in[0] || t == op->in[1]);
            }
    if (nsub > 1) {
        if (nsub > CC_COPY_MAX_OPS)
            return cc_cpu(c, "both operands are broadcast (%lld sub-ops, at most %d)", (long long)nsub,
                          CC_COPY_MAX_OPS);
        if (concat_reader) return cc_cpu(c, "both operands are broadcast and a CONCATENATION reads one of the tensors");
    }
    const graph_tensor *f = swap ? b : a;
    const int32_t *sf = swap ? sb : sa, *ss = swap ? sa : sb;
    memset(sp, 0, sizeof *sp);
    sp->n = (int32_t)nsub;
    for (int i = 1; i < 4; i++) sp->loop[i] = !expand && sf[i] != so[i];
    memcpy(sp->so, so, sizeof sp->so);
    memcpy(sp->ss, ss, sizeof sp->ss);
    int32_t fi = swap ? op->in[1] : op->in[0], si = swap ? op->in[0] : op->in[1];
    const graph_tensor *s2 = swap ? a : b;
    /* the split's constants into scratch buffers (the copies come first) */
    eu_fm fcopy, scopy;
    memset(&fcopy, 0, sizeof fcopy);
    memset(&scopy, 0, sizeof scopy);
    bool f_copied = nsub > 1 && f->data, s_copied = nsub > 1 && s2->data && graph_tensor_elems(s2) > 1;
    int rc;
    if (f_copied && (rc = const_to_sram(c, fi, sf, &fcopy, err))) return rc;
    if (s_copied && (rc = const_to_sram(c, si, ss, &scopy, err))) return rc;
    fcopy.zp = cc_zp(f);      /* (the copies are raw; the op reads them with the tensors' own) */
    scopy.zp = cc_zp(s2);
    sp->first = c->e->n_eu;

    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_ELEMENTWISE;
    /* int32 tensors stay NHWC (as Vela keeps 32-bit elementwise tensors,
     * docs/ethos-u.md 4.2); sub-ops address NHWC slices */
    o->flex = !i32 && nsub == 1;
    /* Shallow tensors (depth below 16): elementwise does not care about
     * the shape, so the IFM and the OFM are viewed as one dense h x w x 16k
     * block (the NPU works on 8 or 16 channels at a time; a depth of 1
     * leaves most of it idle, and a brick of 16 channels holding 3 moves
     * 5x the bytes). IFM2 is the same view, a scalar (broadcast in any
     * view), or a constant per channel ([1, 1, 1, C]: stored repeated to
     * the view's depth, a multiple of C, and broadcast over h and w). The
     * view addresses NHWC bytes: not flexible. */
    uint32_t vh = (uint32_t)so[1], vw = (uint32_t)so[2], vc = (uint32_t)so[3];
    bool f_full = (swap ? nb : na) == 1;
    int64_t s_elems = (int64_t)ss[1] * ss[2] * ss[3];
    bool s_full = (swap ? na : nb) == 1, s_scalar = s_elems == 1;
    bool s_per_ch = s2->data && ss[1] == 1 && ss[2] == 1 && ss[3] == so[3] && so[3] > 1 && !s_full;
    uint32_t rep = 1;   /* IFM2 per channel: copies in the view's depth */
    int32_t fs[4], sl[4], sos[4];
    memcpy(fs, expand ? so : sf, sizeof fs);
    memcpy(sl, ss, sizeof sl);
    uint64_t n_out = (uint64_t)so[1] * so[2] * so[3];
    bool view = nsub == 1 && !expand && f_full && (s_full || s_scalar || s_per_ch) && so[3] < 16 && !concat_reader;
    if (view && s_per_ch) {
        /* depth: the least multiple of 16 that C divides */
        uint32_t C = (uint32_t)so[3], d = 16;
        while (d % C) d += 16;
        rep = d / C;
        /* h x w x 16 = n_out / d x 16 elements, then depth d */
        view = n_out % d == 0 && cc_dense_view(n_out / d * 16, &vh, &vw, &vc);
        vc = d;
    } else if (view) {
        view = cc_dense_view(n_out, &vh, &vw, &vc);
    }
    eu_fm per_ch;
    if (view) {
        o->flex = false;
        int32_t vs[4] = {1, (int32_t)vh, (int32_t)vw, (int32_t)vc};
        memcpy(so, vs, sizeof vs);
        memcpy(fs, vs, sizeof vs);
        if (s_full) {
            memcpy(sl, vs, sizeof vs);
            memcpy(sp->ss, vs, sizeof vs);
        } else if (s_per_ch) {
            int32_t cs[4] = {1, 1, 1, (int32_t)vc};
            memcpy(sl, cs, sizeof cs);
            memcpy(sp->ss, cs, sizeof cs);
            /* the constant repeated to the view's depth, in flash */
            size_t es = graph_dtype_size(s2->dtype);
            uint8_t *rb = malloc(es * vc);
            if (!rb) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            for (uint32_t k = 0; k < rep; k++) memcpy(rb + (size_t)k * s2->nbytes, s2->data, s2->nbytes);
            cc_fm_dense(&per_ch, -1, 0, 1, 1, vc, (uint8_t)(8 * es), cc_zp(s2));
            int rc2 = cc_flash_add(c->e, rb, es * vc, &per_ch.off, err);
            free(rb);
            if (rc2) return rc2;
            per_ch.zp = cc_zp(s2);
        }
    }
    slice_shape(sp, so, sos);
    slice_shape(sp, sl, sl);
    cc_fm_whole(c, fi, (uint32_t)fs[1], (uint32_t)fs[2], (uint32_t)fs[3], &o->ifm);
    cc_fm_whole(c, op->out[0], (uint32_t)so[1], (uint32_t)so[2], (uint32_t)so[3], &o->ofm);
    o->ofm.h = (uint32_t)sos[1];
    o->ofm.w = (uint32_t)sos[2];
    o->ofm.c = (uint32_t)sos[3];
    o->reversed = swap;
    if (f_copied) {
        o->ifm = fcopy;
    } else if (expand) {
        o->ifm.buf = -1;
        if ((rc = expand_const(c, f, sf, so, &o->ifm.off, err))) return rc;
    } else if (f->data) {
        /* a constant IFM operand is read from flash */
        o->ifm.buf = -1;
        if ((rc = cc_flash_add(c->e, f->data, f->nbytes, &o->ifm.off, err))) return rc;
    }
    if ((rc = set_ifm2(c, o, si, s_copied ? &scopy : view && s_per_ch ? &per_ch : NULL, sp->ss, sl, sos, err)))
        return rc;
    o->ofm_scale_mode = 1;
    o->round = 0;
    *po = o;
    return NPUC_OK;
}

/* Moves a feature map of a tensor of shape s from slice 0 to the slice at
 * idx (the looped axes' indices): rows and columns by offset, channels by
 * the first channel. Axes where s is 1 broadcast: no move. */
static void slice_move(eu_fm *fm, const int32_t s[4], const int32_t idx[4])
{
    if (s[1] > 1) fm->off += (uint64_t)idx[1] * fm->sy;
    if (s[2] > 1) fm->off += (uint64_t)idx[2] * fm->sx;
    if (s[3] > 1) fm->c0 += (uint32_t)idx[3];
}

/* Sub-ops 1 .. n-1 of a split op: copies of sub-op 0 (at `first` in the
 * epoch, its stage and block set) on the other slices. */
static int split_rest(lower_ctx *c, int32_t first, const ew_split *sp, npuc_err *err)
{
    const eu_op base = c->e->ops[first];
    for (int32_t k = 1; k < sp->n; k++) {
        int32_t idx[4] = {0, 0, 0, 0}, r = k;
        for (int i = 3; i >= 1; i--)
            if (sp->loop[i]) {
                idx[i] = r % sp->so[i];
                r /= sp->so[i];
            }
        eu_op *o = cc_new_eu(c, err);
        if (!o) return err->code;
        *o = base;
        slice_move(&o->ofm, sp->so, idx);
        if (o->ifm2_tensor) slice_move(&o->ifm2, sp->ss, idx);
    }
    return NPUC_OK;
}

/* int32 ADD, SUB, MUL, MINIMUM, MAXIMUM: raw values, OFM scale (1, 0),
 * zero points 0 (docs/ethos-u.md 5.8: on 32-bit operands only the OFM
 * shift applies, so MUL gives a·b exactly; ADD / SUB a ± b). The NPU
 * saturates a 32-bit result where TFLite wraps, so the op runs here only
 * when the operands' value ranges (cc_range) prove the exact result stays
 * in int32, and a fused clamp (TFLite Micro's on SUB and MUL; it ignores
 * ADD's) only when the range proves it never acts: the NPU applies no clamp
 * to a 32-bit OFM (docs/ethos-u.md 5.1). 0 or 1 (CPU). */
static int int32_stage(lower_ctx *c, const graph_op *op, eu_op *o)
{
    cc_range x = {INT32_MIN, INT32_MAX}, y = x, v;
    if (c->range) {
        x = cc_range_at(c->g, c->range, op->in[0]);
        y = cc_range_at(c->g, c->range, op->in[1]);
    }
    const char *name = graph_op_name(op), *sym = " x ";
    switch (op->opcode) {
    case TFL_OP_ADD: o->mode = EW_ADD; sym = " + "; break;
    case TFL_OP_SUB: o->mode = EW_SUB; sym = " - "; break;
    case TFL_OP_MUL: o->mode = EW_MUL; break;
    case TFL_OP_MINIMUM: o->mode = EW_MIN; sym = ", "; break;
    default: o->mode = EW_MAX; sym = ", "; break;
    }
    if (!c->range || !cc_range_binary(op->opcode, x, y, &v)) return cc_cpu(c, "int32 %s has no NPU form", name);
    if (v.lo < INT32_MIN || v.hi > INT32_MAX)
        return cc_cpu(c, "int32 %s: operand range [%lld, %lld]%s[%lld, %lld] may overflow int32", name,
                      (long long)x.lo, (long long)x.hi, sym, (long long)y.lo, (long long)y.hi);
    int32_t act = op->opt.activation;
    if ((op->opcode == TFL_OP_SUB || op->opcode == TFL_OP_MUL) && act != TFL_ACT_NONE) {
        int64_t lo = act == TFL_ACT_RELU_N1_TO_1 ? -1 : 0;
        int64_t hi = act == TFL_ACT_RELU6 ? 6 : act == TFL_ACT_RELU_N1_TO_1 ? 1 : INT32_MAX;
        if (act != TFL_ACT_RELU && act != TFL_ACT_RELU6 && act != TFL_ACT_RELU_N1_TO_1)
            return cc_cpu(c, "int32 %s with fused activation %s", name, tfl_activation_name(act));
        if (v.lo < lo || v.hi > hi)
            return cc_cpu(c, "int32 %s with fused %s: the result range [%lld, %lld] reaches the clamp, which the NPU does not apply to 32-bit results",
                          name, tfl_activation_name(act), (long long)v.lo, (long long)v.hi);
    }
    o->ifm.zp = o->ifm2.zp = o->ofm.zp = 0;
    o->ofm_scale = 1;
    o->ofm_shift = 0;
    o->round = 0;
    return 0;
}

/* ADD / SUB: TFLite's operand and output rescaling. 0 or 1 (CPU). */
static int add_sub_stage(lower_ctx *c, const graph_op *op, eu_op *o)
{
    const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    o->mode = op->opcode == TFL_OP_ADD ? EW_ADD : EW_SUB;
    if (a->dtype == GRAPH_I16 && op->opt.pot_scale_int16) {
        /* TFLite's power-of-two int16 path may apply: keep it on the CPU
         * unless the general path is the one the reference takes */
        float l;
        bool pot = true;
        const graph_tensor *ts[3] = {a, b, out};
        for (int i = 0; i < 3; i++) {
            l = logf(ts[i]->q.scale[0]) * (1.0f / logf(2.0f));
            if (fabsf(l - roundf(l)) >= 1e-3f) pot = false;
        }
        if (pot) return cc_cpu(c, "int16 %s with power-of-two scales (TFLite's shift-only path)", graph_op_name(op));
    }
    const float s1 = a->q.scale[0], sb2 = b->q.scale[0], so2 = out->q.scale[0];
    unsigned k = a->dtype == GRAPH_I16 ? 15 : 20;
    const double twice_max = 2.0 * (double)(s1 > sb2 ? s1 : sb2);
    const double r1 = (double)s1 / twice_max, r2 = (double)sb2 / twice_max;
    const double ro = twice_max / ((double)(1 << k) * (double)so2);
    int32_t m1, sh1, m2, sh2, mo, sho;
    k_quantize_multiplier(r1, &m1, &sh1);
    k_quantize_multiplier(r2, &m2, &sh2);
    k_quantize_multiplier(ro, &mo, &sho);
    if (!(r1 > 0 && r1 < 1 && r2 > 0 && r2 < 1 && ro > 0 && ro < 1) || sh1 > 0 || sh2 > 0 || sho > 0)
        return cc_cpu(c, "%s rescale factors out of range", graph_op_name(op));
    /* the operand at the larger scale enters exactly as x * 2^(k-1) (its
     * TFLite multiplier is exactly 0.5); the other one is scaled with
     * OPA_SCALE. Operand A is TFLite input 0 (IFM2_BROADCAST bit 6 swaps
     * when input 0 is in IFM2). */
    bool a_exact = m1 == (1 << 30) && sh1 == 0;
    bool b_exact = m2 == (1 << 30) && sh2 == 0;
    int32_t ms, ss2;
    if (b_exact) {
        o->ifm_scale_mode = 1;  /* A scaled */
        ms = m1;
        ss2 = sh1;
    } else if (a_exact) {
        o->ifm_scale_mode = 2;  /* B scaled */
        ms = m2;
        ss2 = sh2;
    } else {
        return cc_cpu(c, "%s operand scales give no exact operand", graph_op_name(op));
    }
    int32_t opa_shift = 31 - ss2 - (int32_t)k;
    if (ms == 0) opa_shift = 0;
    if (opa_shift < 0 || opa_shift > 63) return cc_cpu(c, "%s operand rescale out of range", graph_op_name(op));
    o->has_opab = true;
    o->opa_scale = (uint32_t)ms;
    o->opa_shift = (uint8_t)opa_shift;
    o->opb_scale = 0;
    if (!cc_hw_scale_tfl(mo, sho, &o->ofm_scale, &o->ofm_shift))
        return cc_cpu(c, "%s output rescale out of range", graph_op_name(op));
    cc_set_act(o, out, op->opt.activation);
    return 0;
}

/* MUL: the product of the input scales over the output's. 0 or 1 (CPU). */
static int mul_stage(lower_ctx *c, const graph_op *op, eu_op *o)
{
    const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    o->mode = EW_MUL;
    if (a->dtype == GRAPH_I16 && (cc_zp(a) || cc_zp(b) || cc_zp(out)))
        return cc_cpu(c, "int16 MUL with non-zero zero points");
    const double real = (double)a->q.scale[0] * (double)b->q.scale[0] / (double)out->q.scale[0];
    int32_t mm, ss3;
    k_quantize_multiplier(real, &mm, &ss3);
    if (ss3 < -31 || ss3 > 30 || !cc_hw_scale_tfl(mm, ss3, &o->ofm_scale, &o->ofm_shift))
        return cc_cpu(c, "MUL rescale factor %g out of range", real);
    cc_set_act(o, out, op->opt.activation);
    return 0;
}

/* MINIMUM / MAXIMUM: a raw comparison, as TFLite's. */
static int min_max_stage(lower_ctx *c, const graph_op *op, eu_op *o)
{
    const graph_tensor *out = cc_tout(c, op, 0);
    o->mode = op->opcode == TFL_OP_MINIMUM ? EW_MIN : EW_MAX;
    o->ifm.zp = o->ifm2.zp = o->ofm.zp = 0;
    o->ofm_scale = 1;
    o->ofm_shift = 0;
    o->act_min = out->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    o->act_max = out->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    return 0;
}

static int lower_binary(lower_ctx *c, const graph_op *op, int (*stage)(lower_ctx *, const graph_op *, eu_op *),
                        npuc_err *err)
{
    eu_op *o = NULL;
    ew_split sp;
    int rc = binary_op(c, op, &o, &sp, err);
    if (!rc) {
        const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
        rc = int32_op(a, b, out) ? int32_stage(c, op, o) : stage(c, op, o);
    }
    if (!rc) rc = cc_block_or_cpu(c, o, err);
    if (!rc && sp.n > 1) rc = split_rest(c, sp.first, &sp, err);
    return rc;
}

static int lower_add_sub(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    return lower_binary(c, op, add_sub_stage, err);
}

static int lower_mul(lower_ctx *c, const graph_op *op, npuc_err *err) { return lower_binary(c, op, mul_stage, err); }

static int lower_min_max(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    /* a clamp to a constant in the producer's output stage: int8 / int16,
     * or int32 clamps ending in a CAST to a narrower type */
    char why[160];
    int rc = cc_fuse_clip(c, op, why, sizeof why, err);
    if (rc != 1) return rc;
    if (!cc_fuse_narrow(c, op, why, sizeof why)) return NPUC_OK;
    return lower_binary(c, op, min_max_stage, err);
}


/* ------------------------------------------------- SQUARED_DIFFERENCE */

enum { SQ_RND_TFL = 0, SQ_RND_NATURAL = 2, SQ_SCALE_OPA = 1, SQ_SCALE_OPB = 2 };

/* The reference SQUARED_DIFFERENCE for every pair of int8 values: y[i * 256
 * + j] for input 0 = i - 128, input 1 = j - 128 (op's quantization). */
static int sqdiff_reference(const lower_ctx *c, const graph_op *op, int32_t *y, npuc_err *err)
{
    const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    int8_t *xa = malloc(65536), col[256];
    if (!xa) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < 65536; i++) xa[i] = (int8_t)(i / 256 - 128);
    for (int32_t j = 0; j < 256; j++) col[j] = (int8_t)(j - 128);
    graph *t = graph_new("sqdiff_pairs");
    int32_t s2[2] = {256, 256}, s1[1] = {256};
    int32_t ta = t ? graph_add_tensor(t, "a", GRAPH_I8, 2, s2, NULL) : -1;
    int32_t tb = t ? graph_add_tensor(t, "b", GRAPH_I8, 1, s1, col) : -1;
    int32_t to = t ? graph_add_tensor(t, "y", GRAPH_I8, 2, s2, NULL) : -1;
    int32_t ins[2] = {ta, tb};
    bool ok = ta >= 0 && tb >= 0 && to >= 0 &&
              !graph_set_quant(t, ta, 1, a->q.scale, a->q.zero_point, 0) &&
              !graph_set_quant(t, tb, 1, b->q.scale, b->q.zero_point, 0) &&
              !graph_set_quant(t, to, 1, out->q.scale, out->q.zero_point, 0);
    int32_t oi = ok ? graph_add_op(t, op->opcode, &op->opt, 2, ins, 1, &to) : -1;
    int rc = NPUC_OK;
    interp *ip = NULL;
    if (oi < 0 || graph_set_io(t, 1, &ta, 1, &to)) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    t->ops[oi].version = op->version;
    interp_options io;
    memset(&io, 0, sizeof io);
    if ((rc = interp_create(t, &io, &ip, err)) || (rc = interp_set_input(ip, 0, xa, 65536, err)) ||
        (rc = interp_invoke(ip, err)))
        goto done;
    size_t nb = 0;
    const int8_t *yb = interp_output(ip, 0, &nb);
    if (nb != 65536) {
        rc = npuc_errf(err, NPUC_E_RUNTIME, "the reference gave %zu bytes for 65536 values", nb);
        goto done;
    }
    for (int32_t i = 0; i < 65536; i++) y[i] = yb[i];
done:
    interp_free(ip);
    graph_free(t);
    free(xa);
    return rc;
}

/* The output of the MUL step for a difference d (clamped to int16 as the
 * intermediate is). */
static int32_t sqdiff_out(int64_t d, uint32_t om, uint8_t osh, int32_t zo)
{
    d = d < INT16_MIN ? INT16_MIN : d > INT16_MAX ? INT16_MAX : d;
    int64_t v = sim_rescale(d * d, om, osh, SQ_RND_TFL) + zo;
    return (int32_t)(v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v);
}

/* The MUL step: the int16 difference by itself, TFLite's output
 * multiplier, zero point and clamp, into fm `res`. */
static int sqdiff_mul(lower_ctx *c, const graph_op *op, const eu_fm *d16, const eu_fm *res, uint32_t om, uint8_t osh,
                      npuc_err *err)
{
    eu_op *m = cc_new_eu(c, err);
    if (!m) return err->code;
    m->kind = SIM_K_ELEMENTWISE;
    m->mode = EW_MUL;
    m->flex = false;
    m->ifm = *d16;
    m->ifm2 = *d16;
    m->ifm2_tensor = true;
    m->ofm = *res;
    cc_global_scale(m, om, osh, SQ_RND_TFL);
    cc_set_act(m, cc_tout(c, op, 0), TFL_ACT_NONE);
    return cc_block_or_cpu(c, m, err);
}

/* An int8 -> int32 table op in slot o: fm `in` (its raw values index the
 * table) through t into a new int32 intermediate `*res` of its extent. */
static int sqdiff_table(lower_ctx *c, eu_op *o, const eu_fm *in, const int32_t t[256], eu_fm *res, npuc_err *err)
{
    uint8_t bytes[1024];
    for (int i = 0; i < 256; i++)
        for (int k = 0; k < 4; k++) bytes[4 * i + k] = (uint8_t)((uint32_t)t[i] >> (8 * k));
    int32_t lut;
    int rc = cc_add_lut(c, bytes, sizeof bytes, &lut, err);
    if (rc) return rc;
    int32_t tb = cc_temp_buf(c, (uint64_t)in->h * in->w * in->c * 4u, err);
    if (tb < 0) return err->code;
    cc_fm_dense(res, tb, 0, in->h, in->w, in->c, 32, 0);
    memset(o, 0, sizeof *o);
    cc_eu_init(c, o);
    o->ifm = *in;
    o->ofm = *res;
    cc_lut_op(o, lut);
    o->act_clip = 3;   /* the int8 value indexes the 256 x int32 table */
    o->flex = false;
    return cc_block_or_cpu(c, o, err);
}

/* The table form: op `sub` (binary_op's, operands set) becomes the table
 * op of its IFM; the table op of IFM2 (a constant: its values computed
 * here, in flash), the int32 SUB into the int16 difference and the MUL
 * follow. ta / tb: the tables of TFLite inputs 0 / 1. */
static int sqdiff_table_form(lower_ctx *c, const graph_op *op, eu_op *sub, const int32_t ta[256],
                             const int32_t tb[256], uint32_t om, uint8_t osh, npuc_err *err)
{
    eu_op tpl = *sub;
    int32_t isub = (int32_t)(sub - c->e->ops);
    /* IFM holds input 1 when reversed */
    const int32_t *tifm = tpl.reversed ? tb : ta, *tifm2 = tpl.reversed ? ta : tb;
    eu_fm s1, s2;
    int rc = sqdiff_table(c, &c->e->ops[isub], &tpl.ifm, tifm, &s1, err);
    if (rc) return rc;
    if (tpl.ifm2_scalar || tpl.ifm2.buf < 0) {
        /* a constant: its table values, in flash */
        const graph_tensor *k = cc_tin(c, op, tpl.reversed ? 0 : 1);
        size_t n = graph_tensor_elems(k);
        int32_t *v = malloc(sizeof *v * (n ? n : 1));
        if (!v) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) v[i] = tifm2[((const int8_t *)k->data)[i] + 128];
        uint64_t off;
        rc = cc_flash_add(c->e, v, sizeof *v * n, &off, err);
        free(v);
        if (rc) return rc;
        if (tpl.ifm2_scalar) {
            cc_fm_dense(&s2, -1, off, 1, 1, 1, 32, 0);
            tpl.bcast_h = tpl.bcast_w = tpl.bcast_c = true;
        } else {
            cc_fm_dense(&s2, -1, off, tpl.ifm2.h, tpl.ifm2.w, tpl.ifm2.c, 32, 0);
        }
    } else {
        eu_op *o2 = cc_new_eu(c, err);
        if (!o2) return err->code;
        if ((rc = sqdiff_table(c, o2, &tpl.ifm2, tifm2, &s2, err))) return rc;
    }
    /* d = A - B (operand A is input 0 wherever it sits); 32-bit operands
     * enter unscaled */
    eu_op *d = cc_new_eu(c, err);
    if (!d) return err->code;
    d->kind = SIM_K_ELEMENTWISE;
    d->mode = EW_SUB;
    d->flex = false;
    d->ifm = s1;
    d->ifm2 = s2;
    d->ifm2_tensor = true;
    d->reversed = tpl.reversed;
    d->bcast_h = tpl.bcast_h;
    d->bcast_w = tpl.bcast_w;
    d->bcast_c = tpl.bcast_c;
    cc_global_scale(d, 1, 0, SQ_RND_NATURAL);
    d->act_min = INT16_MIN;
    d->act_max = INT16_MAX;
    int32_t b16 = cc_temp_buf(c, (uint64_t)tpl.ofm.h * tpl.ofm.w * tpl.ofm.c * 2u, err);
    if (b16 < 0) return err->code;
    eu_fm t16;
    cc_fm_dense(&t16, b16, 0, tpl.ofm.h, tpl.ofm.w, tpl.ofm.c, 16, 0);
    d->ofm = t16;
    if ((rc = cc_block_or_cpu(c, d, err))) return rc;
    return sqdiff_mul(c, op, &t16, &tpl.ofm, om, osh, err);
}

/* SQUARED_DIFFERENCE int8. TFLite takes each operand to s = R((x - z) *
 * 2^7, M, sh) (R: its rounding multiply by a multiplier below 1; the
 * operand at the larger scale has M = 0.5 exactly, s = (x - z) * 64),
 * squares d = s_0 - s_1 in int32 (|d| <= 32640) and rescales d^2 to the
 * output. On the NPU, in two ops where that is exact:
 * 1. ELEMENTWISE SUB with TFLite's operand scaling (as ADD/SUB: the exact
 *    operand enters as (x - z) * 2^19, the other through OPA_SCALE), the
 *    difference scaled by 2^-13 (NATURAL rounding) into an int16
 *    intermediate; operand A is TFLite input 0 wherever it sits;
 * 2. ELEMENTWISE MUL of the intermediate by itself with TFLite's output
 *    multiplier (TFL rounding), zero point and clamp.
 * Step 1 rounds the scaled operand once where TFLite rounds twice; where
 * that differs for some input, each operand's s comes from a 256-entry
 * int32 table instead (an int8 -> int32 LUT op per tensor operand, a
 * constant's values computed here), then an int32 SUB into the int16
 * difference and the same MUL (4 ops). Whichever form is used is checked
 * at compile time for every pair of input values against the reference
 * kernel. int16 stays on the CPU: TFLite rounds each int16 operand to
 * whole units, the NPU's 16-bit operand scaling keeps their fractions. */
static int lower_sqdiff(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!a || !b || !out) return cc_cpu(c, "missing input or output");
    if (a->dtype == GRAPH_I16)
        return cc_cpu(c, "int16 SQUARED_DIFFERENCE: TFLite rounds each operand to whole units, the NPU keeps their "
                      "fractions");
    if (a->dtype != GRAPH_I8 || b->dtype != GRAPH_I8 || out->dtype != GRAPH_I8)
        return cc_cpu(c, "%s tensors (the NPU form takes int8)", graph_dtype_name(a->dtype));
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (!cc_has_q1(a) || !cc_has_q1(b) || !cc_has_q1(out)) return cc_cpu(c, "tensors are not quantized");
    /* TFLite's parameters */
    const float s1 = a->q.scale[0], s2 = b->q.scale[0];
    const double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
    const float den = (float)(1 << 14) * out->q.scale[0];
    int32_t m1, sh1, m2, sh2, mo, sho;
    k_quantize_multiplier((double)s1 / twice_max, &m1, &sh1);
    k_quantize_multiplier((double)s2 / twice_max, &m2, &sh2);
    k_quantize_multiplier(twice_max * twice_max / (double)den, &mo, &sho);
    if (sh1 > 0 || sh2 > 0) return cc_cpu(c, "SQUARED_DIFFERENCE operand rescale out of range");
    bool a_exact = m1 == (1 << 30) && sh1 == 0;
    uint32_t om;
    uint8_t osh;
    if (!cc_hw_scale_tfl(mo, sho, &om, &osh)) return cc_cpu(c, "SQUARED_DIFFERENCE output rescale out of range");

    /* the tables (the reference kernel's own operand step) and the proof:
     * every pair of input values against the reference */
    int32_t za = cc_zp(a), zb = cc_zp(b), zo = cc_zp(out);
    int32_t ta[256], tb[256];
    for (int32_t v = -128; v < 128; v++) {
        ta[v + 128] = k_mbqm_lt1((v - za) * 128, m1, sh1);
        tb[v + 128] = k_mbqm_lt1((v - zb) * 128, m2, sh2);
    }
    /* the two-op form: the scaled operand is input 1 when input 0 is exact */
    bool scaled_is_1 = a_exact;
    int32_t ms = scaled_is_1 ? m2 : m1, sh = scaled_is_1 ? sh2 : sh1;
    int32_t opa_shift = 11 - sh;
    bool exact_operand = a_exact || (m2 == (1 << 30) && sh2 == 0);
    int32_t *ref = malloc(sizeof *ref * 65536);
    if (!ref) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    int rc = sqdiff_reference(c, op, ref, &e2);
    if (rc) {
        free(ref);
        if (rc == NPUC_E_NOMEM) return npuc_errf(err, rc, "%s", e2.msg);
        return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    }
    bool two_ops = exact_operand && opa_shift <= 63;
    for (int32_t i = 0; i < 65536 && two_ops; i++) {
        int64_t va = i / 256 - 128 - za, vb = i % 256 - 128 - zb;
        int64_t sc = scaled_is_1 ? vb : va, ex = scaled_is_1 ? va : vb;
        int64_t S2 = sim_rescale(sc * ((int64_t)1 << 20), (uint32_t)ms, (unsigned)opa_shift + 20, SQ_RND_TFL);
        int64_t E2 = ex * ((int64_t)1 << 19);
        int64_t d = sim_rescale(scaled_is_1 ? E2 - S2 : S2 - E2, 1, 13, SQ_RND_NATURAL);
        two_ops = sqdiff_out(d, om, osh, zo) == ref[i];
    }
    int32_t bad_i = -1, got = 0;
    for (int32_t i = 0; i < 65536 && !two_ops && bad_i < 0; i++) {
        got = sqdiff_out((int64_t)ta[i / 256] - tb[i % 256], om, osh, zo);
        if (got != ref[i]) bad_i = i;
    }
    int32_t want = bad_i >= 0 ? ref[bad_i] : 0;
    free(ref);
    if (bad_i >= 0)
        return cc_cpu(c, "the NPU form differs from the reference at inputs (%d, %d): %d, reference %d",
                      bad_i / 256 - 128, bad_i % 256 - 128, got, want);

    eu_op *o = NULL;
    ew_split sp;
    if ((rc = binary_op(c, op, &o, &sp, err))) return rc;
    if (sp.n > 1) return cc_cpu(c, "both operands broadcast (the SQUARED_DIFFERENCE forms take one whole operand)");
    if (!two_ops) return sqdiff_table_form(c, op, o, ta, tb, om, osh, err);
    o->mode = EW_SUB;
    o->ifm_scale_mode = scaled_is_1 ? SQ_SCALE_OPB : SQ_SCALE_OPA;
    o->has_opab = true;
    o->opa_scale = (uint32_t)ms;
    o->opa_shift = (uint8_t)opa_shift;
    o->opb_scale = 0;
    cc_global_scale(o, 1, 13, SQ_RND_NATURAL);
    o->act_func = 0;
    o->act_min = INT16_MIN;
    o->act_max = INT16_MAX;
    /* the int16 intermediate, in the OFM's view */
    uint32_t h = o->ofm.h, w = o->ofm.w, ch = o->ofm.c;
    int32_t b16 = cc_temp_buf(c, (uint64_t)h * w * ch * 2u, err);
    if (b16 < 0) return err->code;
    eu_fm fout = o->ofm, t16;
    cc_fm_dense(&t16, b16, 0, h, w, ch, 16, 0);
    o->ofm = t16;
    o->flex = false;
    if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    return sqdiff_mul(c, op, &t16, &fout, om, osh, err);
}

static const lower_impl elementwise_ops[] = {
    {TFL_OP_ADD, lower_add_sub},
    {TFL_OP_SUB, lower_add_sub},
    {TFL_OP_MUL, lower_mul},
    {TFL_OP_MINIMUM, lower_min_max},
    {TFL_OP_MAXIMUM, lower_min_max},
    {TFL_OP_SQUARED_DIFFERENCE, lower_sqdiff},
};

LOWER_OPS_TABLE(lower_ops_elementwise, elementwise_ops)
