/* cc_concat: CONCATENATION on the NPU (int8 / int16, rank 1..4, any axis).
 *
 * One NPU op per (non-empty) input writes it into its slice of the output
 * (ethos-u.md 5.10: concat = copies with OFM base and strides set):
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
 * Constant inputs are read from the epoch's flash. */
#include "lower/lower.h"
#include "../interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPU_DIM_MAX 65536u

/* The reference's rescaling of every int8 value from `in`'s quantization
 * to `out`'s: a one-input CONCATENATION run on the interpreter. */
static int requant_table(const graph_tensor *in, const graph_tensor *out, int8_t table[256], npuc_err *err)
{
    graph *t = graph_new("concat_lut");
    if (!t) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t shape[4] = {1, 1, 1, 256};
    int rc = NPUC_OK;
    interp *ip = NULL;
    int32_t ti = graph_add_tensor(t, "x", GRAPH_I8, 4, shape, NULL);
    int32_t to = graph_add_tensor(t, "y", GRAPH_I8, 4, shape, NULL);
    if (ti < 0 || to < 0 || graph_set_quant(t, ti, in->q.n, in->q.scale, in->q.zero_point, in->q.axis) ||
        graph_set_quant(t, to, out->q.n, out->q.scale, out->q.zero_point, out->q.axis)) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    tfl_options o;
    memset(&o, 0, sizeof o);
    o.axis = 3;
    if (graph_add_op(t, TFL_OP_CONCATENATION, &o, 1, &ti, 1, &to) < 0 || graph_set_io(t, 1, &ti, 1, &to)) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    interp_options io;
    memset(&io, 0, sizeof io);
    if ((rc = interp_create(t, &io, &ip, err))) goto done;
    int8_t x[256];
    for (int i = 0; i < 256; i++) x[i] = (int8_t)(i - 128);
    if ((rc = interp_set_input(ip, 0, x, sizeof x, err)) || (rc = interp_invoke(ip, err))) goto done;
    size_t n = 0;
    const void *y = interp_output(ip, 0, &n);
    if (n != 256) {
        rc = npuc_errf(err, NPUC_E_RUNTIME, "rescale table evaluation gave %zu bytes", n);
        goto done;
    }
    memcpy(table, y, 256);
done:
    interp_free(ip);
    graph_free(t);
    return rc;
}

/* Where input `i` goes: its (whole, contiguous) view and the output slice. */
typedef struct slice {
    uint32_t h, w, c;         /* extent (the input viewed so, and the slice) */
    uint64_t off;             /* output byte offset */
    uint32_t c0;              /* output first channel */
    uint64_t osx, osy;        /* output strides */
    uint32_t full_w, full_c;
    bool flex;
} slice;

static bool slice_of(const int32_t o[4], int ax, uint32_t start, uint32_t len, uint64_t es, slice *s)
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
            s->full_w = (uint32_t)(w > NPU_DIM_MAX ? 0 : w);
        }
        s->off = (uint64_t)start * W * C * es;
        break;
    default:
        h = (uint64_t)len * H, w = W, c = C;
        s->off = (uint64_t)start * H * W * C * es;
        break;
    }
    if (!h || !w || !c || h > NPU_DIM_MAX || w > NPU_DIM_MAX || c > NPU_DIM_MAX) return false;
    s->h = (uint32_t)h;
    s->w = (uint32_t)w;
    s->c = (uint32_t)c;
    return true;
}

int cc_lower_concat(lower_ctx *c, const graph_op *op, npuc_err *err)
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
    int ax = axis + sh;
    uint64_t es = graph_dtype_size(out->dtype);
    int32_t n0 = c->e->n_eu;
    uint32_t start = 0;
    int rc = NPUC_OK;
    for (int32_t i = 0; i < op->n_in && !rc; i++) {
        const graph_tensor *t = cc_tin(c, op, i);
        uint32_t len = (uint32_t)t->shape[axis];
        if (!len) continue;
        slice s;
        if (!slice_of(o4, ax, start, len, es, &s)) {
            rc = cc_cpu(c, "the slice of input %d is too large for one NPU op", i);
            break;
        }
        bool rescale = out->dtype == GRAPH_I8 && out->q.n >= 1 && t->q.n >= 1 &&
                       (t->q.scale[0] != out->q.scale[0] || t->q.zero_point[0] != out->q.zero_point[0]);
        if (rescale && (!cc_has_q1(t) || !cc_has_q1(out))) {
            rc = cc_cpu(c, "input %d is not quantized per tensor", i);
            break;
        }
        int32_t lut = -1;
        if (rescale) {
            int8_t table[256];
            npuc_err e2;
            memset(&e2, 0, sizeof e2);
            if (requant_table(t, out, table, &e2)) {
                rc = cc_cpu(c, "the reference rejects the rescale of input %d: %.100s", i, e2.msg);
                break;
            }
            if ((rc = cc_add_lut(c, table, 256, &lut, err))) break;
        }
        uint64_t foff = 0;
        if (t->data && (rc = cc_flash_add(c->e, t->data, t->nbytes, &foff, err))) break;
        eu_op *o = cc_new_eu(c, err);
        if (!o) {
            rc = err->code;
            break;
        }
        cc_fm_whole(c, op->in[i], s.h, s.w, s.c, &o->ifm);
        if (t->data) {
            o->ifm.buf = -1;
            o->ifm.off = foff;
        }
        cc_fm_whole(c, op->out[0], s.h, s.w, s.c, &o->ofm);
        o->ofm.off = s.off;
        o->ofm.c0 = s.c0;
        o->ofm.sx = s.osx;
        o->ofm.sy = s.osy;
        o->ofm.full_w = s.full_w;
        o->ofm.full_c = s.full_c;
        o->ifm.zp = 0;
        o->ofm.zp = 0;
        o->flex = s.flex;
        o->round = 0;
        if (rescale) {
            cc_lut_op(o, lut);
        } else {
            o->kind = SIM_K_POOL;
            o->mode = 0;   /* MAX over one tap: the value itself */
            o->ofm_scale_mode = 0;
            o->act_min = out->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
            o->act_max = out->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
        }
        rc = cc_choose_block(c, o, err);
        if (rc == NPUC_E_UNSUPPORTED) rc = cc_cpu(c, "%s", err->msg);
        start += len;
    }
    if (rc) c->e->n_eu = n0;
    return rc;
}

/* ------------------------------------------------------ slices in place
 *
 * cc_concat_place (after cc_lower, before cc_layout) takes the copy of an
 * input T away when the ops that produce T can write it straight into its
 * slice of the output's buffer (ethos-u.md 5.10: "concat by writing
 * producers into slices of one buffer"). T then has no buffer of its own:
 * buf_of[T] is the output's buffer, and every feature map of the epoch
 * that addressed T's bytes (its producer's OFM, the IFM of any other NPU op
 * that reads T, the copy of T into another concatenation) is rewritten to
 * address the same elements inside the slice. Conditions, per input:
 *   - the copy is a raw one (same quantization; not the LUT rescale), T is
 *     not a constant, a graph input or output or a state tensor, and is
 *     given to this concatenation once;
 *   - T's buffer holds T only (no view shares it), or T and tensors that
 *     were themselves placed in slices of T (nested concatenations);
 *   - every graph op that reads or writes those tensors is an NPU op of the
 *     concatenation's epoch (the bytes never leave it, so no CPU op or
 *     epoch boundary sees a strided tensor), and at least one NPU op writes
 *     them;
 *   - every such feature map maps onto the slice: NHWC, channels inside one
 *     pixel, whole pixels per x / y step, and rows of the slice's own width
 *     where the slice's rows are not contiguous (W and H-with-batches).
 * The allocator needs nothing more: the producer writes the output's buffer,
 * so that buffer is live from the first such write. Whether the output may
 * be stored NHCWB16 is the layout pass's usual decision on the rewritten
 * feature maps: channel slices at 16-aligned c0 keep bricks, slices at byte
 * offsets (H, W) are NHWC. The members of a cascade address whole tensors,
 * so a producer writing into a slice never joins one. */

int32_t cc_concat_slice_of(const cc_model *m, int32_t t)
{
    if (t < 0 || m->buf_of[t] < 0) return -1;
    const graph *g = m->g;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (op->opcode != TFL_OP_CONCATENATION || op->n_out != 1 || op->out[0] < 0 || op->out[0] == t ||
            m->buf_of[op->out[0]] != m->buf_of[t])
            continue;
        for (int32_t k = 0; k < op->n_in; k++)
            if (op->in[k] == t) return op->out[0];
    }
    return -1;
}

/* The same elements as f (an NHWC view of a tensor seen by the
 * concatenation as s->h x s->w x s->c) inside the slice s of buffer `buf`.
 * False when f does not map onto the slice with one set of strides. */
static bool map_fm(const eu_fm *f, const slice *s, uint64_t es, int32_t buf, eu_fm *o)
{
    if (f->format || f->tile_h || f->bits / 8u != es || f->sc != es || !f->h || !f->w || !f->c) return false;
    uint64_t pix = (uint64_t)s->c * es, row = (uint64_t)s->w * pix, size = (uint64_t)s->h * row;
    uint64_t within = f->off % pix, p0 = f->off / pix;
    if (within + ((uint64_t)f->c0 + f->c) * es > pix) return false;
    if (f->w > 1 && f->sx % pix) return false;
    uint64_t dx = f->w > 1 ? f->sx / pix : 1;   /* pixels per x step */
    /* the last element stays inside the tensor */
    uint64_t last = f->off + (uint64_t)(f->h - 1) * f->sy + (uint64_t)(f->w - 1) * f->sx + ((uint64_t)f->c0 + f->c) * es;
    if (last > size) return false;
    *o = *f;
    o->buf = buf;
    o->c0 = s->c0 + f->c0;
    o->full_w = s->full_w;
    o->full_c = s->full_c;
    o->sc = es;
    o->sx = dx * s->osx;
    if (s->osy == (uint64_t)s->w * s->osx) {
        /* the slice's pixels are evenly spaced: any whole-pixel view */
        if (f->h > 1 && f->sy % pix) return false;
        o->off = s->off + p0 * s->osx + within;
        o->sy = f->h > 1 ? f->sy / pix * s->osx : o->sx * f->w;
        return true;
    }
    /* rows of the slice at its own row stride: f keeps to one row of the
     * slice, or its y steps are whole rows */
    uint64_t r0 = p0 / s->w, x0 = p0 % s->w;
    if (x0 + (f->w - 1) * dx >= s->w) return false;
    o->off = s->off + r0 * s->osy + x0 * s->osx + within;
    if (f->h == 1) {
        o->sy = s->osy;
        return true;
    }
    if (!(f->sy % pix) && x0 + (f->h - 1) * (f->sy / pix) + (f->w - 1) * dx < s->w) {
        o->sy = f->sy / pix * s->osx;
        return true;
    }
    if (f->sy % row) return false;
    o->sy = f->sy / row * s->osy;
    return true;
}

/* Feature maps of eu_op o that address arena buffers (IFM2 only as a
 * tensor operand). */
static int fms_of(eu_op *o, eu_fm *f[3])
{
    int n = 0;
    f[n++] = &o->ifm;
    if (o->ifm2_tensor) f[n++] = &o->ifm2;
    f[n++] = &o->ofm;
    return n;
}

static bool in_list(const int32_t *a, int32_t n, int32_t v)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] == v) return true;
    return false;
}

/* Whether input `in` of concatenation `ci` (copied by NPU op `k` of its
 * epoch into slice s) can be written in place, and if so does it: every
 * feature map on the input's buffer is rewritten, the tensors on it move to
 * the output's buffer. The copy op is left for the caller to remove. */
static bool place_input(cc_model *m, int32_t ci, int32_t in, int32_t k, const slice *s, uint64_t es)
{
    const graph *g = m->g;
    const graph_op *op = &g->ops[ci];
    int32_t ei = m->ops[ci].epoch, t = op->in[in];
    cc_epoch *e = &m->epochs[ei];
    const graph_tensor *x = &g->tensors[t];
    const eu_op *cp = &e->ops[k];
    int32_t bt = m->buf_of[t], bo = m->buf_of[op->out[0]];
    if (x->data || x->is_variable || x->producer < 0 || bt < 0 || bo < 0 || bt == bo) return false;
    if (m->bufs[bt].temp || m->bufs[bo].temp) return false;
    if (cp->src_op != ci || cp->kind != SIM_K_POOL || cp->lut >= 0 || cp->ifm.buf != bt || cp->ofm.buf != bo) return false;
    if (in_list(g->inputs, g->n_inputs, t) || in_list(g->outputs, g->n_outputs, t)) return false;
    int32_t uses = 0;
    for (int32_t i = 0; i < op->n_in; i++) uses += op->in[i] == t;
    if (uses != 1) return false;
    /* the tensors on T's buffer: T, and those already placed in slices of it */
    for (int32_t j = 0; j < g->n_tensors; j++) {
        if (m->buf_of[j] != bt) continue;
        if (j != t && cc_concat_slice_of(m, j) < 0) return false;
        if (j != t && (g->tensors[j].is_variable || in_list(g->inputs, g->n_inputs, j) ||
                       in_list(g->outputs, g->n_outputs, j)))
            return false;
    }
    /* every op touching them is an NPU op of this epoch */
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *u = &g->ops[i];
        bool touches = false;
        for (int32_t j = 0; j < u->n_in && !touches; j++) touches = u->in[j] >= 0 && m->buf_of[u->in[j]] == bt;
        for (int32_t j = 0; j < u->n_out && !touches; j++) touches = u->out[j] >= 0 && m->buf_of[u->out[j]] == bt;
        if (touches && (!m->ops[i].npu || m->ops[i].epoch != ei)) return false;
    }
    /* every feature map on it maps onto the slice; someone writes it */
    bool written = false;
    for (int32_t ej = 0; ej < m->n_epochs; ej++) {
        cc_epoch *f = &m->epochs[ej];
        for (int32_t j = 0; f->kind == CC_EPOCH_HW && j < f->n_eu; j++) {
            if (ej == ei && j == k) continue;
            eu_fm *fm[3], tmp;
            int n = fms_of(&f->ops[j], fm);
            for (int q = 0; q < n; q++) {
                if (fm[q]->buf != bt) continue;
                if (ej != ei || !map_fm(fm[q], s, es, bo, &tmp)) return false;
                written |= fm[q] == &f->ops[j].ofm;
            }
            if (f->ops[j].wbuf == bt) return false;
        }
    }
    if (!written) return false;
    for (int32_t j = 0; j < e->n_eu; j++) {
        if (j == k) continue;
        eu_fm *fm[3];
        int n = fms_of(&e->ops[j], fm);
        for (int q = 0; q < n; q++) {
            eu_fm tmp;
            if (fm[q]->buf == bt && map_fm(fm[q], s, es, bo, &tmp)) *fm[q] = tmp;
        }
    }
    for (int32_t j = 0; j < g->n_tensors; j++)
        if (m->buf_of[j] == bt) m->buf_of[j] = bo;
    m->bufs[bt].size = 0;   /* no bytes of its own */
    return true;
}

/* Removes NPU op k of epoch ei (a copy with no buffers of its own). */
static void remove_eu(cc_model *m, int32_t ei, int32_t k)
{
    cc_epoch *e = &m->epochs[ei];
    memmove(&e->ops[k], &e->ops[k + 1], sizeof *e->ops * (size_t)(e->n_eu - k - 1));
    e->n_eu--;
    for (int32_t i = 0; i < m->g->n_ops; i++) {
        cc_op_info *oi = &m->ops[i];
        if (oi->npu && oi->epoch == ei && oi->first_eu > k) oi->first_eu--;
    }
    /* temps live over NPU ops of this epoch (weight copies: from the op
     * before their own) */
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        if (!x->temp || x->epoch != ei) continue;
        if (x->eu_first > k || (x->eu_first == k && k > 0)) x->eu_first--;
        if (x->eu_last >= k && x->eu_last > 0) x->eu_last--;
        if (x->eu_last < x->eu_first) x->eu_last = x->eu_first;
    }
}

/* What placing one input changes, to undo a placement that raises the
 * arena's peak. */
typedef struct snapshot {
    cc_buf *bufs;
    cc_op_info *ops;
    int32_t *buf_of;
    eu_op *eu;
    int32_t n_bufs, n_eu;
} snapshot;

static void drop(snapshot *sn)
{
    free(sn->bufs);
    free(sn->ops);
    free(sn->buf_of);
    free(sn->eu);
    memset(sn, 0, sizeof *sn);
}

static int save(const cc_model *m, const cc_epoch *e, snapshot *sn, npuc_err *err)
{
    const graph *g = m->g;
    sn->n_bufs = m->n_bufs;
    sn->n_eu = e->n_eu;
    sn->bufs = malloc(sizeof *sn->bufs * (size_t)m->n_bufs + 1);
    sn->ops = malloc(sizeof *sn->ops * (size_t)g->n_ops + 1);
    sn->buf_of = malloc(sizeof *sn->buf_of * (size_t)g->n_tensors + 1);
    sn->eu = malloc(sizeof *sn->eu * (size_t)e->n_eu + 1);
    if (!sn->bufs || !sn->ops || !sn->buf_of || !sn->eu) {
        drop(sn);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    memcpy(sn->bufs, m->bufs, sizeof *sn->bufs * (size_t)m->n_bufs);
    memcpy(sn->ops, m->ops, sizeof *sn->ops * (size_t)g->n_ops);
    memcpy(sn->buf_of, m->buf_of, sizeof *sn->buf_of * (size_t)g->n_tensors);
    memcpy(sn->eu, e->ops, sizeof *sn->eu * (size_t)e->n_eu);
    return NPUC_OK;
}

static void restore(cc_model *m, cc_epoch *e, const snapshot *sn)
{
    const graph *g = m->g;
    memcpy(m->bufs, sn->bufs, sizeof *sn->bufs * (size_t)sn->n_bufs);
    m->n_bufs = sn->n_bufs;
    memcpy(m->ops, sn->ops, sizeof *sn->ops * (size_t)g->n_ops);
    memcpy(m->buf_of, sn->buf_of, sizeof *sn->buf_of * (size_t)g->n_tensors);
    memcpy(e->ops, sn->eu, sizeof *sn->eu * (size_t)sn->n_eu);
    e->n_eu = sn->n_eu;
}

/* The activation bytes a trial allocation gives: the arena's peak plus the
 * fast pool's (where the NPU-only feature maps go on a U65 with
 * Dedicated_Sram); a pool too small is for later. */
static int trial_arena(cc_model *m, uint64_t *arena, npuc_err *err)
{
    int rc = cc_allocate(m, err);
    if (rc && rc != NPUC_E_UNSUPPORTED) return rc;
    *arena = m->arena_size + m->fast_size;
    return NPUC_OK;
}

int cc_concat_place(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    if (m->opt.concat == CC_CONCAT_OFF) return NPUC_OK;
    bool guard = m->opt.concat != CC_CONCAT_ALL;
    uint64_t arena = 0;
    bool measured = !guard;
    int rc = NPUC_OK;
    for (int32_t ci = 0; ci < g->n_ops && !rc; ci++) {
        const graph_op *op = &g->ops[ci];
        cc_op_info *oi = &m->ops[ci];
        if (op->opcode != TFL_OP_CONCATENATION || !oi->npu || oi->epoch < 0 || !oi->n_eu) continue;
        cc_epoch *e = &m->epochs[oi->epoch];
        const graph_tensor *out = &g->tensors[op->out[0]];
        int32_t axis = op->opt.axis < 0 ? op->opt.axis + out->rank : op->opt.axis;
        int32_t o4[4];
        int sh = 4 - out->rank;
        for (int i = 0; i < 4; i++) o4[i] = i - sh >= 0 ? out->shape[i - sh] : 1;
        uint64_t es = graph_dtype_size(out->dtype);
        /* the lowering wrote one copy per non-empty input, in order */
        int32_t k = oi->first_eu, end = oi->first_eu + oi->n_eu;
        uint32_t start = 0;
        for (int32_t i = 0; i < op->n_in && k < end && !rc; i++) {
            uint32_t len = (uint32_t)g->tensors[op->in[i]].shape[axis];
            if (!len) continue;
            start += len;
            slice s;
            if (!slice_of(o4, axis + sh, start - len, len, es, &s)) {
                k++;
                continue;
            }
            /* the output's buffer is now live from the input's producer
             * on: keep the placement only if the arena does not grow */
            if (!measured && (rc = trial_arena(m, &arena, err))) break;
            measured = true;
            snapshot sn;
            memset(&sn, 0, sizeof sn);
            if (guard && (rc = save(m, e, &sn, err))) break;
            if (!place_input(m, ci, i, k, &s, es)) {
                drop(&sn);
                k++;
                continue;
            }
            remove_eu(m, oi->epoch, k);
            oi->n_eu--;
            uint64_t after = 0;
            if (guard && (rc = trial_arena(m, &after, err))) {
                drop(&sn);
                break;
            }
            if (guard && after > arena) {
                restore(m, e, &sn);
                k++;
            } else {
                arena = after;
                end--;
            }
            drop(&sn);
        }
    }
    return rc;
}
