/* lower_pad: PAD / PADV2 on the NPU, standalone or folded into the padding of
 * the convolution that reads it.
 *
 * Standalone (int8 / int16, rank 1..4 viewed as N x H x W x C): every byte
 * of the output is written by one NPU op.
 *   - the interior: a 1x1 MAX pool copying the input (raw values, zero
 *     points 0, full clamp) into the output region that starts at
 *     (top, left, front) with the output's strides;
 *   - the border: up to six bands (top and bottom rows, left and right
 *     columns of the interior rows, front and back channels of the
 *     interior pixels) and, for batch padding, whole leading / trailing
 *     batches. Each band is a 1x1 MAX pool that reads the band itself and
 *     has the clamp [v, v], so it writes the pad value v whatever the bytes
 *     held before (docs/ethos-u.md 5.1: the clamp is the last step of the output
 *     stage). v is what the reference pads with: PADV2's constant, PAD's
 *     output zero point for int8, 0 for int16 (TFLite Micro).
 *   Ops that address the output at a byte offset (rows, columns, batches)
 *   are not flex, so the output stays NHWC; with channel padding only the
 *   regions are channel slices and the output may be NHCWB16.
 *   Batches: with no height padding, N x H rows are one tall H; otherwise
 *   the ops repeat per batch (at most 64).
 *
 * Folded: a PAD whose output only the next op reads, a CONV_2D or
 * DEPTHWISE_CONV_2D that goes to the NPU in the same epoch, padding height
 * and width only, with the conv input's zero point as the value: the NPU's
 * conv padding contributes nothing to the sum, exactly as a tap on the
 * zero point does (docs/ethos-u.md 5.2), so the conv reads the PAD's input with
 * its own padding plus the PAD's (within 127 top/left, 128 bottom/right).
 * The PAD then has no NPU ops (npu, n_eu = 0, like a reshape view) and its
 * output shares the input's arena buffer (so that the input lives until
 * the conv reads it); the PAD output's own buffer shrinks to 0 bytes.
 *
 * The folding decision is taken twice, by the same pure function of the
 * graph: when the PAD is lowered (no ops, buffers shared) and when the conv
 * is (cc_pad_fold, called by lower_conv_like once its IFM and padding are
 * set). A PAD emits no ops only if the conv will certainly go to the NPU,
 * so the decision makes every check lower_conv_like and
 * cc_encode_weighted make, through the same functions (cc_conv_plan: types,
 * shapes, strides, kernel, padding; cc_weighted_scales: weight zero points,
 * per-channel rescales, biases; the block configuration). */
#include "lower.h"
#include "interp/interp.h"

#include <string.h>

typedef struct pad_plan {
    int32_t in, out;          /* tensor indices */
    const graph_tensor *tin, *tout;
    int32_t d[4];             /* input dims, 4-d (leading 1s) */
    int32_t b[4], a[4];       /* padding before / after per dim */
    int32_t value;            /* the pad element */
    unsigned es;
} pad_plan;

#define PAD_MAX_BATCHES 64

/* Checks a PAD for the NPU forms and fills the plan; false with the reason
 * otherwise. */
static bool pad_analyse(const lower_ctx *c, const graph_op *op, pad_plan *p, char *why, size_t n)
{
    memset(p, 0, sizeof *p);
    const graph_tensor *in = cc_tin(c, op, 0), *pd = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!in || !pd || !out || op->n_out != 1)
        return cc_reason(why, n, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_reason(why, n, "%s -> %s tensors (the NPU form copies int8 or int16)",
                         graph_dtype_name(in->dtype), graph_dtype_name(out->dtype));
    if (in->rank < 1 || in->rank > 4 || out->rank != in->rank)
        return cc_reason(why, n, "rank %d (the NPU form takes 1 to 4 dimensions)", in->rank);
    if (!pd->data || (pd->dtype != GRAPH_I32 && pd->dtype != GRAPH_I64) || pd->rank != 2 ||
        pd->shape[0] != in->rank || pd->shape[1] != 2)
        return cc_reason(why, n, "paddings are not a constant [%d, 2] integer tensor", in->rank);
    char rwhy[160];
    if (!interp_op_supported(c->g, op, rwhy, sizeof rwhy))
        return cc_reason(why, n, "the reference rejects it: %.130s", rwhy);
    const graph_tensor *cv = cc_tin(c, op, 2);
    if (cv) {
        if (!cv->data || graph_tensor_elems(cv) != 1 || cv->dtype != in->dtype)
            return cc_reason(why, n, "the pad value is not a constant");
        p->value = in->dtype == GRAPH_I8 ? ((const int8_t *)cv->data)[0] : ((const int16_t *)cv->data)[0];
    } else {
        p->value = in->dtype == GRAPH_I8 ? cc_zp(out) : 0;
    }
    int32_t sh = 4 - in->rank;
    for (int i = 0; i < 4; i++) {
        int32_t k = i - sh;
        p->d[i] = k >= 0 ? in->shape[k] : 1;
        int64_t b = 0, a = 0;
        if (k >= 0) {
            if (pd->dtype == GRAPH_I32) {
                b = ((const int32_t *)pd->data)[2 * k];
                a = ((const int32_t *)pd->data)[2 * k + 1];
            } else {
                b = ((const int64_t *)pd->data)[2 * k];
                a = ((const int64_t *)pd->data)[2 * k + 1];
            }
        }
        if (b < 0 || a < 0 || b > CC_DIM_MAX || a > CC_DIM_MAX)
            return cc_reason(why, n, "padding %lld/%lld of dimension %d", (long long)b, (long long)a, k);
        p->b[i] = (int32_t)b;
        p->a[i] = (int32_t)a;
        if (k >= 0 && (int64_t)in->shape[k] + b + a != out->shape[k])
            return cc_reason(why, n, "output shape does not match the padding");
        if (p->d[i] == 0)
            return cc_reason(why, n, "empty input");
    }
    p->in = op->in[0];
    p->out = op->out[0];
    p->tin = in;
    p->tout = out;
    p->es = (unsigned)graph_dtype_size(in->dtype);
    return true;
}

/* ------------------------------------------------------------- folding */

/* Whether the conv lowering puts `conv` (whose input is the PAD's output)
 * on the NPU, and the padding it gets with the PAD folded in: fp = top,
 * bottom, left, right. The same checks as the conv lowering and
 * cc_encode_weighted make (cc_conv_plan, cc_weighted_scales, the block). */
bool cc_conv_takes(lower_ctx *c, const graph_op *conv, conv_plan *pl)
{
    const graph *g = c->g;
    for (int32_t i = 0; i < conv->n_out; i++)
        if (conv->out[i] >= 0 && g->tensors[conv->out[i]].is_variable) return false;
    if (!cc_conv_plan(c, conv, pl, NULL, 0)) return false;
    if (!cc_weighted_scales(&pl->p, NULL, NULL, 0)) return false;
    /* cc_encode_weighted may split the op along its output channels; the
     * block search that fits the whole depth fits any smaller one (its
     * smallest candidate block only shrinks), so the chunks need no check */
    eu_op t;
    cc_eu_init(c, &t);
    cc_conv_fill(c, conv, pl, &t);
    npuc_err e;
    memset(&e, 0, sizeof e);
    return cc_choose_block(c, &t, &e) == NPUC_OK;
}

static bool conv_takes(lower_ctx *c, const graph_op *conv, const pad_plan *pp, int32_t fp[4])
{
    conv_plan pl;
    if (!cc_conv_takes(c, conv, &pl)) return false;
    /* folded: the conv reads the PAD's input (h x w) with the PAD's padding
     * added before, and after it whatever its taps still reach */
    int64_t effh = (int64_t)(pl.p.kh - 1) * pl.dy + 1, effw = (int64_t)(pl.p.kw - 1) * pl.dx + 1;
    int64_t h = pp->d[1], wd = pp->d[2];
    int64_t ft = (int64_t)pl.pt + pp->b[1], fl = (int64_t)pl.pl + pp->b[2];
    int64_t fb = ((int64_t)pl.OH - 1) * pl.sy + effh - ft - h, fr = ((int64_t)pl.OW - 1) * pl.sx + effw - fl - wd;
    if (fb < 0) fb = 0;
    if (fr < 0) fr = 0;
    if (ft > 127 || fl > 127 || fb > 128 || fr > 128) return false;
    /* the extent the NPU derives (docs/ethos-u.md 5.2) must reach into the input */
    if (((int64_t)pl.OH - 1) * pl.sy + effh - ft - fb < 1 || ((int64_t)pl.OW - 1) * pl.sx + effw - fl - fr < 1)
        return false;
    fp[0] = (int32_t)ft;
    fp[1] = (int32_t)fb;
    fp[2] = (int32_t)fl;
    fp[3] = (int32_t)fr;
    return true;
}

/* Whether graph op pi is a PAD that folds into the op after it (pure:
 * depends on the graph and on the PAD input's buffer only). */
static bool fold_plan(lower_ctx *c, int32_t pi, pad_plan *pp, int32_t fp[4])
{
    const graph *g = c->g;
    if (pi < 0 || pi + 1 >= g->n_ops) return false;
    const graph_op *pad = &g->ops[pi], *conv = &g->ops[pi + 1];
    if (pad->opcode != TFL_OP_PAD && pad->opcode != TFL_OP_PADV2) return false;
    if (conv->opcode != TFL_OP_CONV_2D && conv->opcode != TFL_OP_DEPTHWISE_CONV_2D) return false;
    if (!pad_analyse(c, pad, pp, NULL, 0)) return false;
    if (pp->tin->rank != 4 || pp->b[0] || pp->a[0] || pp->b[3] || pp->a[3]) return false;
    if (pp->tin->data || c->m->buf_of[pp->in] < 0 || pp->tin->is_variable || pp->tout->is_variable) return false;
    if (pp->value != cc_zp(pp->tout)) return false;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == pp->out) return false;
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == pp->out) return false;
    int32_t readers = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        for (int32_t k = 0; k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] == pp->out) readers++;
    if (readers != 1 || conv->n_in < 1 || conv->in[0] != pp->out) return false;
    return conv_takes(c, conv, pp, fp);
}

bool cc_pad_folds(lower_ctx *c, int32_t pi)
{
    pad_plan pp;
    int32_t fp[4];
    return fold_plan(c, pi, &pp, fp);
}

void cc_pad_fold(lower_ctx *c, const graph_op *op, eu_op *o)
{
    if (op->n_in < 1 || op->in[0] < 0) return;
    int32_t pi = c->g->tensors[op->in[0]].producer;
    if (pi < 0 || pi + 1 != c->op_index) return;
    const cc_op_info *pinfo = &c->m->ops[pi];
    if (!pinfo->npu || pinfo->n_eu != 0 || pinfo->epoch != (int32_t)(c->e - c->m->epochs)) return;
    pad_plan pp;
    int32_t fp[4];
    if (!fold_plan(c, pi, &pp, fp)) return;
    if (c->m->buf_of[pp.out] != c->m->buf_of[pp.in]) return;
    int32_t zp = o->ifm.zp;   /* the conv's input (the PAD output) zero point */
    cc_fm_whole(c, pp.in, (uint32_t)pp.d[1], (uint32_t)pp.d[2], (uint32_t)pp.d[3], &o->ifm);
    o->ifm.zp = zp;
    o->pad_t = (uint8_t)fp[0];
    o->pad_b = (uint8_t)fp[1];
    o->pad_l = (uint8_t)fp[2];
    o->pad_r = (uint8_t)fp[3];
    c->m->ops[pi].folded_into = c->op_index;
}

/* ----------------------------------------------------------- standalone */

/* A region of the padded output: h x w x ch at byte offset off, channels
 * c0.. of the stored depth. */
static void out_region(const lower_ctx *c, const pad_plan *p, const int32_t od[4], uint64_t off, uint32_t h,
                       uint32_t w, uint32_t c0, uint32_t ch, eu_fm *f)
{
    cc_fm_whole(c, p->out, h, w, ch, f);
    f->off = off;
    f->c0 = c0;
    f->full_w = (uint32_t)od[2];
    f->full_c = (uint32_t)od[3];
    f->sc = p->es;
    f->sx = (uint64_t)od[3] * p->es;
    f->sy = (uint64_t)od[2] * od[3] * p->es;
    f->zp = 0;
}

/* A band of the output set to the pad value: a 1x1 MAX pool over the band
 * itself with the clamp [v, v]. */
static int emit_fill(lower_ctx *c, const pad_plan *p, const int32_t od[4], uint64_t off, uint32_t h, uint32_t w,
                     uint32_t c0, uint32_t ch, npuc_err *err)
{
    if (!h || !w || !ch) return NPUC_OK;
    if (h > CC_DIM_MAX) return cc_cpu(c, "a padding band of %u rows is too large for one NPU op", h);
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    out_region(c, p, od, off, h, w, c0, ch, &o->ofm);
    o->ifm = o->ofm;
    cc_copy_op(o, o->ofm.bits);
    o->act_min = p->value;
    o->act_max = p->value;
    o->flex = off == 0;   /* byte offsets address NHWC rows / columns */
    return cc_block_or_cpu(c, o, err);
}

static int lower_pad(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    pad_plan p;
    int32_t fp[4];
    if (fold_plan(c, c->op_index, &p, fp)) {
        /* folded into the next op's padding: no NPU ops; the output shares
         * the input's buffer (so the input lives until the conv) and its own
         * buffer is not needed */
        int32_t ob = c->m->buf_of[p.out];
        c->m->buf_of[p.out] = c->m->buf_of[p.in];
        if (ob >= 0 && ob != c->m->buf_of[p.in]) c->m->bufs[ob].size = 0;
        return NPUC_OK;
    }
    if (!pad_analyse(c, op, &p, c->why, CC_WHY_SIZE)) return 1;
    /* N x H rows with no height padding are one tall image */
    if (p.b[1] == 0 && p.a[1] == 0 && p.d[0] > 1) {
        int64_t rows = (int64_t)p.d[0] * p.d[1];
        if (rows <= CC_DIM_MAX) {
            p.b[1] = p.b[0] * p.d[1];
            p.a[1] = p.a[0] * p.d[1];
            p.d[1] = (int32_t)rows;
            p.d[0] = 1;
            p.b[0] = p.a[0] = 0;
        }
    }
    int32_t od[4];
    for (int i = 0; i < 4; i++) {
        int64_t v = (int64_t)p.d[i] + p.b[i] + p.a[i];
        if (i > 0 && (v > CC_DIM_MAX || p.d[i] > CC_DIM_MAX))
            return cc_cpu(c, "padded dimension %lld above the NPU's 65536", (long long)v);
        if (v > INT32_MAX) return cc_cpu(c, "padded dimension too large");
        od[i] = (int32_t)v;
    }
    if (p.d[0] > PAD_MAX_BATCHES)
        return cc_cpu(c, "%d batches with height padding (the NPU form repeats per batch, up to %d)", p.d[0],
                      PAD_MAX_BATCHES);
    int32_t n0 = c->e->n_eu;
    uint64_t es = p.es;
    uint64_t row = (uint64_t)od[2] * od[3] * es, px = (uint64_t)od[3] * es, batch = (uint64_t)od[1] * row;
    uint64_t in_batch = (uint64_t)p.d[1] * p.d[2] * p.d[3] * es;
    uint64_t flash_off = 0;
    if (p.tin->data && (p.d[0] > 0)) {
        int rc = cc_flash_add(c->e, p.tin->data, p.tin->nbytes, &flash_off, err);
        if (rc) return rc;
    }
    int rc = NPUC_OK;
    /* whole padding batches */
    if (p.b[0]) rc = emit_fill(c, &p, od, 0, (uint32_t)((uint64_t)p.b[0] * od[1]), (uint32_t)od[2], 0,
                               (uint32_t)od[3], err);
    if (!rc && p.a[0])
        rc = emit_fill(c, &p, od, (uint64_t)(p.b[0] + p.d[0]) * batch, (uint32_t)((uint64_t)p.a[0] * od[1]),
                       (uint32_t)od[2], 0, (uint32_t)od[3], err);
    uint32_t H = (uint32_t)p.d[1], W = (uint32_t)p.d[2], C = (uint32_t)p.d[3];
    for (int32_t n = 0; n < p.d[0] && !rc; n++) {
        uint64_t bo = (uint64_t)(p.b[0] + n) * batch;
        uint64_t inner = bo + (uint64_t)p.b[1] * row + (uint64_t)p.b[2] * px;
        rc = emit_fill(c, &p, od, bo, (uint32_t)p.b[1], (uint32_t)od[2], 0, (uint32_t)od[3], err);
        if (!rc) rc = emit_fill(c, &p, od, bo + (uint64_t)(p.b[1] + p.d[1]) * row, (uint32_t)p.a[1],
                                (uint32_t)od[2], 0, (uint32_t)od[3], err);
        if (!rc) rc = emit_fill(c, &p, od, bo + (uint64_t)p.b[1] * row, H, (uint32_t)p.b[2], 0, (uint32_t)od[3], err);
        if (!rc) rc = emit_fill(c, &p, od, bo + (uint64_t)p.b[1] * row + (uint64_t)(p.b[2] + p.d[2]) * px, H,
                                (uint32_t)p.a[2], 0, (uint32_t)od[3], err);
        if (!rc) rc = emit_fill(c, &p, od, inner, H, W, 0, (uint32_t)p.b[3], err);
        if (!rc) rc = emit_fill(c, &p, od, inner, H, W, (uint32_t)(p.b[3] + p.d[3]), (uint32_t)p.a[3], err);
        if (rc) break;
        /* the interior: a raw copy of the input */
        eu_op *o = cc_new_eu(c, err);
        if (!o) {
            rc = err->code;
            break;
        }
        cc_fm_whole(c, p.in, H, W, C, &o->ifm);
        o->ifm.off = (p.tin->data ? flash_off : 0) + (uint64_t)n * in_batch;
        if (p.tin->data) o->ifm.buf = -1;
        o->ifm.zp = 0;
        out_region(c, &p, od, inner, H, W, (uint32_t)p.b[3], C, &o->ofm);
        o->flex = inner == 0 && o->ifm.off == 0;
        rc = cc_copy_block(c, o, o->ofm.bits, err);
    }
    if (rc) c->e->n_eu = n0;
    return rc;
}

static const lower_impl pad_ops[] = {
    {TFL_OP_PAD, lower_pad},
    {TFL_OP_PADV2, lower_pad},
};

LOWER_OPS_TABLE(lower_ops_pad, pad_ops)
