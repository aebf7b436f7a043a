/* cc_concat: the pass cc_concat_place (after cc_lower, before cc_layout)
 * takes the copy of a CONCATENATION input T away when the ops that produce
 * T can write it straight into its slice of the output's buffer (docs/ethos-u.md
 * 5.10: "concat by writing producers into slices of one buffer"). T then
 * has no buffer of its own: buf_of[T] is the output's buffer, and every
 * feature map of the epoch that addressed T's bytes (its producer's OFM,
 * the IFM of any other NPU op that reads T, the copy of T into another
 * concatenation) is rewritten to address the same elements inside the
 * slice. Conditions, per input:
 *   - the copy is a raw one (same quantization; not the LUT rescale; no
 *     activation fused into the concatenation: its clamp or LUT), T is
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
 * so a producer writing into a slice never joins one.
 *
 * The lowering of CONCATENATION (one copy per input, the copies this pass
 * removes) is lower/lower_concat.c. */
#include "lower/lower.h"

#include <stdlib.h>
#include <string.h>

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

void cc_concat_slice_index(const cc_model *m, int32_t *cat)
{
    const graph *g = m->g;
    for (int32_t t = 0; t < g->n_tensors; t++) cat[t] = -1;
    /* the first concatenation in op order that has t as an input in its
     * own output's buffer, as cc_concat_slice_of scans for */
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (op->opcode != TFL_OP_CONCATENATION || op->n_out != 1 || op->out[0] < 0) continue;
        for (int32_t k = 0; k < op->n_in; k++) {
            int32_t t = op->in[k];
            if (t < 0 || t == op->out[0] || cat[t] >= 0 || m->buf_of[t] < 0 || m->buf_of[op->out[0]] != m->buf_of[t])
                continue;
            cat[t] = op->out[0];
        }
    }
}

/* The same elements as f (an NHWC view of a tensor seen by the
 * concatenation as s->h x s->w x s->c) inside the slice s of buffer `buf`.
 * False when f does not map onto the slice with one set of strides. */
static bool map_fm(const eu_fm *f, const cc_concat_slice *s, uint64_t es, int32_t buf, eu_fm *o)
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

/* Whether copy op o writes its input's values unchanged: no LUT, no
 * built-in function, and a clamp of the whole type. An activation fused into
 * the concatenation (lower_lut.c fuse_clamp / fuse_lut) leaves a narrower
 * clamp or a LUT on every copy; a producer writing in place would skip it. */
static bool raw_copy(const eu_op *o)
{
    int32_t lo = o->ofm.bits == 16 ? INT16_MIN : INT8_MIN, hi = o->ofm.bits == 16 ? INT16_MAX : INT8_MAX;
    return o->lut < 0 && o->act_func == 0 && o->act_clip == 0 && o->act_min <= lo && o->act_max >= hi;
}

/* Whether input `in` of concatenation `ci` (copied by NPU op `k` of its
 * epoch into slice s) can be written in place, and if so does it: every
 * feature map on the input's buffer is rewritten, the tensors on it move to
 * the output's buffer. The copy op is left for the caller to remove. */
static bool place_input(cc_model *m, int32_t ci, int32_t in, int32_t k, const cc_concat_slice *s, uint64_t es)
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
    if (cp->src_op != ci || cp->kind != SIM_K_POOL || cp->ifm.buf != bt || cp->ofm.buf != bo) return false;
    if (!raw_copy(cp)) return false;
    if (in_list(g->inputs, g->n_inputs, t) || in_list(g->outputs, g->n_outputs, t)) return false;
    int32_t uses = 0;
    for (int32_t i = 0; i < op->n_in; i++) uses += op->in[i] == t;
    if (uses != 1) return false;
    /* the tensors on T's buffer: T, and those already placed in slices of it */
    for (int32_t j = 0; j < g->n_tensors; j++) {
        if (m->buf_of[j] != bt) continue;
        if (j != t && cc_concat_slice_of(m, j) < 0 && !cc_fused_tensor(m, j)) return false;
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

/* The concatenation's output as o[4] (NHWC, batches first), the axis in
 * it and the element size. */
static void cat_geom(const graph *g, const graph_op *op, int32_t o4[4], int *ax, uint64_t *es)
{
    const graph_tensor *out = &g->tensors[op->out[0]];
    int32_t axis = op->opt.axis < 0 ? op->opt.axis + out->rank : op->opt.axis;
    int sh = 4 - out->rank;
    for (int i = 0; i < 4; i++) o4[i] = i - sh >= 0 ? out->shape[i - sh] : 1;
    *ax = axis + sh;
    *es = graph_dtype_size(out->dtype);
}

/* Input `in` of concatenation ci, copied by NPU op k of its epoch into
 * slice s, written in place when place_input allows it (*placed): its copy
 * removed, the choice appended to m->concat_in. */
static int place_one(cc_model *m, int32_t ci, int32_t in, int32_t k, const cc_concat_slice *s, uint64_t es,
                     bool *placed, npuc_err *err)
{
    *placed = false;
    if (m->n_concat_in == m->cap_concat_in) {
        int32_t c = m->cap_concat_in ? 2 * m->cap_concat_in : 8;
        cc_concat_in *q = realloc(m->concat_in, sizeof *q * (size_t)c);
        if (!q) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        m->concat_in = q;
        m->cap_concat_in = c;
    }
    if (!place_input(m, ci, in, k, s, es)) return NPUC_OK;
    cc_op_info *oi = &m->ops[ci];
    remove_eu(m, oi->epoch, k);
    oi->n_eu--;
    m->concat_in[m->n_concat_in++] = (cc_concat_in){ci, in};
    *placed = true;
    return NPUC_OK;
}

static bool chosen(const cc_model *m, int32_t ci, int32_t in)
{
    for (int32_t j = 0; j < m->n_concat_in; j++)
        if (m->concat_in[j].op == ci && m->concat_in[j].in == in) return true;
    return false;
}

int cc_concat_apply(cc_model *m, const cc_concat_in *c, int32_t n, npuc_err *err)
{
    const graph *g = m->g;
    for (int32_t j = 0; j < n; j++) {
        int32_t ci = c[j].op, in = c[j].in;
        const graph_op *op = ci >= 0 && ci < g->n_ops ? &g->ops[ci] : NULL;
        const cc_op_info *oi = op ? &m->ops[ci] : NULL;
        if (!op || op->opcode != TFL_OP_CONCATENATION || op->n_out != 1 || op->out[0] < 0 || !oi->npu ||
            oi->epoch < 0 || in < 0 || in >= op->n_in || chosen(m, ci, in))
            return npuc_errf(err, NPUC_E_INVALID, "internal: concatenation choice (op %d, input %d) does not apply",
                             (int)ci, (int)in);
        int32_t o4[4];
        int ax;
        uint64_t es;
        cat_geom(g, op, o4, &ax, &es);
        int32_t axis = ax - (4 - g->tensors[op->out[0]].rank);
        /* the lowering wrote one copy per non-empty input, in order; those
         * of the inputs placed already are gone */
        int32_t k = oi->first_eu;
        uint32_t start = 0;
        for (int32_t i = 0; i < in; i++) {
            uint32_t len = (uint32_t)g->tensors[op->in[i]].shape[axis];
            start += len;
            k += len && !chosen(m, ci, i);
        }
        uint32_t len = (uint32_t)g->tensors[op->in[in]].shape[axis];
        cc_concat_slice s;
        bool placed = false;
        int rc;
        if (len && k < oi->first_eu + oi->n_eu && cc_concat_slice_at(o4, ax, start, len, es, &s) &&
            (rc = place_one(m, ci, in, k, &s, es, &placed, err)))
            return rc;
        if (!placed)
            return npuc_errf(err, NPUC_E_INVALID,
                             "internal: concatenation input %d of op %d cannot be written in place", (int)in, (int)ci);
    }
    return NPUC_OK;
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
    if (m->opt.concat_given) return cc_concat_apply(m, m->opt.concat_in, m->opt.n_concat_in, err);
    bool guard = m->opt.concat != CC_CONCAT_ALL;
    uint64_t arena = 0;
    bool measured = !guard;
    int rc = NPUC_OK;
    /* A placement that grows the arena is undone by going back to the
     * program at the start of the concatenation's epoch (`base`, taken once
     * per epoch: place_input rewrites feature maps of that epoch and buf_of,
     * remove_eu its op list and the op records) and applying the choices
     * kept since (`kept`: a few (op, input) pairs, cc_sched.c). */
    cc_sched base = {0}, kept = {0};
    int32_t base_epoch = -1;
    for (int32_t ci = 0; ci < g->n_ops && !rc; ci++) {
        const graph_op *op = &g->ops[ci];
        cc_op_info *oi = &m->ops[ci];
        if (op->opcode != TFL_OP_CONCATENATION || !oi->npu || oi->epoch < 0 || !oi->n_eu) continue;
        int32_t o4[4];
        int ax;
        uint64_t es;
        cat_geom(g, op, o4, &ax, &es);
        int32_t axis = ax - (4 - g->tensors[op->out[0]].rank);
        /* the lowering wrote one copy per non-empty input, in order */
        int32_t k = oi->first_eu, end = oi->first_eu + oi->n_eu;
        uint32_t start = 0;
        for (int32_t i = 0; i < op->n_in && k < end && !rc; i++) {
            uint32_t len = (uint32_t)g->tensors[op->in[i]].shape[axis];
            if (!len) continue;
            start += len;
            cc_concat_slice s;
            if (!cc_concat_slice_at(o4, ax, start - len, len, es, &s)) {
                k++;
                continue;
            }
            /* the output's buffer is now live from the input's producer
             * on: keep the placement only if the arena does not grow */
            if (!measured && (rc = trial_arena(m, &arena, err))) break;
            measured = true;
            if (guard && base_epoch != oi->epoch) {
                if ((rc = cc_sched_take_epoch(m, CC_SCHED_PROGRAM, oi->epoch, &base, err))) break;
                base_epoch = oi->epoch;
            }
            bool placed;
            if ((rc = place_one(m, ci, i, k, &s, es, &placed, err))) break;
            if (!placed) {
                k++;
                continue;
            }
            uint64_t after = 0;
            if (guard && (rc = trial_arena(m, &after, err))) break;
            if (guard && after > arena) {
                m->n_concat_in--;   /* this choice goes */
                if ((rc = cc_sched_take(m, CC_SCHED_CONCAT, &kept, err)) || (rc = cc_sched_apply(m, &base, err)) ||
                    (rc = cc_sched_apply(m, &kept, err)))
                    break;
                k++;
            } else {
                arena = after;
                end--;
            }
        }
    }
    cc_sched_free(&base);
    cc_sched_free(&kept);
    return rc;
}
