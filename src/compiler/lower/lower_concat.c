/* lower_concat: CONCATENATION on the NPU (int8 / int16, rank 1..4, any
 * axis).
 *
 * One NPU op per (non-empty) input writes it into its slice of the output
 * (docs/ethos-u.md 5.10: concat = copies with OFM base and strides set):
 *   - raw copy (int16; int8 with the output's scale and zero point): a 1x1
 *     MAX pool, zero points 0, full clamp;
 *   - int8 with another quantization: TFLite rescales with float math per
 *     value (k_concat_requant_s8), a function of the int8 value only, so the
 *     op is an ELEMENTWISE ADD of scalar 0 through a 256-entry LUT whose
 *     entries are the reference kernel's own outputs for every input value
 *     (a one-input CONCATENATION with that quantization run on the
 *     interpreter): exact by construction.
 * Slices, on the output viewed as N x H x W x C (leading 1s):
 *   - C: a channel slice (c0 = offset, full depth); the output may be
 *     NHCWB16 (the op addresses it by channels only);
 *   - W: rows of N*H, the slice's columns at a byte offset;
 *   - H: N = 1: contiguous rows at a byte offset; N > 1: per batch one row
 *     of len*W pixels, batch stride;
 *   - N: contiguous at a byte offset.
 * Constant inputs are read from the epoch's flash. The in-place pass
 * (cc_concat.c) later removes the copies whose producers can write straight
 * into their slices. */
#include "lower.h"
#include "interp/interp.h"

#include <string.h>

/* The reference's rescaling of every int8 value from `in`'s quantization
 * to `out`'s: a one-input CONCATENATION run on the interpreter. */
static int requant_table(const lower_ctx *c, const graph_tensor *in, const graph_tensor *out, int8_t table[256],
                         npuc_err *err)
{
    graph_op cop;
    memset(&cop, 0, sizeof cop);
    cop.opcode = TFL_OP_CONCATENATION;
    cop.version = 1;
    cop.opt.axis = 3;
    cop.n_in = 1;
    int32_t y[256];
    int rc = cc_reference_all(c, &cop, in, out, y, err);
    if (rc) return rc;
    for (int i = 0; i < 256; i++) table[i] = (int8_t)y[i];
    return NPUC_OK;
}

bool cc_concat_slice_at(const int32_t o[4], int ax, uint32_t start, uint32_t len, uint64_t es, cc_concat_slice *s)
{
    uint64_t N = (uint64_t)o[0], H = (uint64_t)o[1], W = (uint64_t)o[2], C = (uint64_t)o[3];
    uint64_t h, w, c;
    memset(s, 0, sizeof *s);
    s->osx = C * es;
    s->osy = W * C * es;
    s->full_w = (uint32_t)W;
    s->full_c = (uint32_t)C;
    switch (ax) {
    case 3:
        h = N * H, w = W, c = len;
        s->c0 = start;
        s->flex = true;
        break;
    case 2:
        h = N * H, w = len, c = C;
        s->off = (uint64_t)start * C * es;
        break;
    case 1:
        if (N == 1) {
            h = len, w = W, c = C;
        } else {
            h = N, w = (uint64_t)len * W, c = C;
            s->osy = H * W * C * es;
            s->full_w = (uint32_t)(w > CC_DIM_MAX ? 0 : w);
        }
        s->off = (uint64_t)start * W * C * es;
        break;
    default:
        h = (uint64_t)len * H, w = W, c = C;
        s->off = (uint64_t)start * H * W * C * es;
        break;
    }
    if (!h || !w || !c || h > CC_DIM_MAX || w > CC_DIM_MAX || c > CC_DIM_MAX) return false;
    s->h = (uint32_t)h;
    s->w = (uint32_t)w;
    s->c = (uint32_t)c;
    return true;
}

/* The op copying input i into slice s of the output: a raw copy, or the
 * rescaling LUT. 0, 1 (CPU, reason set) or an error. */
static int copy_input(lower_ctx *c, const graph_op *op, int32_t i, const cc_concat_slice *s, npuc_err *err)
{
    const graph_tensor *t = cc_tin(c, op, i), *out = cc_tout(c, op, 0);
    bool rescale = out->dtype == GRAPH_I8 && out->q.n >= 1 && t->q.n >= 1 &&
                   (t->q.scale[0] != out->q.scale[0] || t->q.zero_point[0] != out->q.zero_point[0]);
    if (rescale && (!cc_has_q1(t) || !cc_has_q1(out))) return cc_cpu(c, "input %d is not quantized per tensor", i);
    int32_t lut = -1;
    int rc;
    if (rescale) {
        int8_t table[256];
        npuc_err e2;
        memset(&e2, 0, sizeof e2);
        if (requant_table(c, t, out, table, &e2))
            return cc_cpu(c, "the reference rejects the rescale of input %d: %.100s", i, e2.msg);
        if ((rc = cc_add_lut(c, table, 256, &lut, err))) return rc;
    }
    uint64_t foff = 0;
    if (t->data && (rc = cc_flash_add(c->e, t->data, t->nbytes, &foff, err))) return rc;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_fm_whole(c, op->in[i], s->h, s->w, s->c, &o->ifm);
    if (t->data) {
        o->ifm.buf = -1;
        o->ifm.off = foff;
    }
    cc_fm_whole(c, op->out[0], s->h, s->w, s->c, &o->ofm);
    o->ofm.off = s->off;
    o->ofm.c0 = s->c0;
    o->ofm.sx = s->osx;
    o->ofm.sy = s->osy;
    o->ofm.full_w = s->full_w;
    o->ofm.full_c = s->full_c;
    o->ifm.zp = 0;
    o->ofm.zp = 0;
    o->flex = s->flex;
    o->round = 0;
    if (rescale) cc_lut_op(o, lut);
    else cc_copy_op(o, o->ofm.bits);
    return cc_block_or_cpu(c, o, err);
}

static int lower_concat(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *out = cc_tout(c, op, 0);
    if (!out || op->n_in < 1 || op->n_out != 1) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(out->dtype))
        return cc_cpu(c, "%s tensors (the NPU form copies int8 or int16)", graph_dtype_name(out->dtype));
    for (int32_t i = 0; i < op->n_in; i++) {
        const graph_tensor *t = cc_tin(c, op, i);
        if (!t) return cc_cpu(c, "input %d is missing", i);
        if (t->dtype != out->dtype)
            return cc_cpu(c, "input %d is %s, the output %s", i, graph_dtype_name(t->dtype),
                          graph_dtype_name(out->dtype));
        if (t->rank != out->rank) return cc_cpu(c, "input %d has rank %d, the output %d", i, t->rank, out->rank);
    }
    if (out->rank < 1 || out->rank > 4) return cc_cpu(c, "rank %d (the NPU form takes 1 to 4 dimensions)", out->rank);
    char rwhy[160];
    if (!interp_op_supported(c->g, op, rwhy, sizeof rwhy)) return cc_cpu(c, "the reference rejects it: %.130s", rwhy);
    if (op->opt.activation != TFL_ACT_NONE)
        return cc_cpu(c, "fused activation %s", tfl_activation_name(op->opt.activation));
    int32_t axis = op->opt.axis < 0 ? op->opt.axis + out->rank : op->opt.axis;
    if (axis < 0 || axis >= out->rank) return cc_cpu(c, "axis %d out of range", op->opt.axis);
    int32_t o4[4];
    int sh = 4 - out->rank;
    for (int i = 0; i < 4; i++) o4[i] = i - sh >= 0 ? out->shape[i - sh] : 1;
    for (int i = 0; i < 4; i++)
        if (o4[i] <= 0) return cc_cpu(c, "empty output");
    uint64_t es = graph_dtype_size(out->dtype);
    uint32_t start = 0;
    int rc = NPUC_OK;
    for (int32_t i = 0; i < op->n_in && !rc; i++) {
        uint32_t len = (uint32_t)c->g->tensors[op->in[i]].shape[axis];
        if (!len) continue;
        cc_concat_slice s;
        if (!cc_concat_slice_at(o4, axis + sh, start, len, es, &s))
            return cc_cpu(c, "the slice of input %d is too large for one NPU op", i);
        rc = copy_input(c, op, i, &s, err);
        start += len;
    }
    return rc;
}

static const lower_impl concat_ops[] = {
    {TFL_OP_CONCATENATION, lower_concat},
};

LOWER_OPS_TABLE(lower_ops_concat, concat_ops)
