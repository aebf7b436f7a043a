/* lower_shape: STRIDED_SLICE, SLICE, TRANSPOSE, SPLIT, SPLIT_V, UNPACK and
 * PACK (int8, int16) on the NPU.
 *
 * A slice within 4 dims that keeps one batch and does not stride the
 * channels is one 1x1 MAX pool (a raw copy) whose IFM starts at the
 * slice's first element and steps over the input with the slice's strides.
 * TRANSPOSE (constant perm) and the other slices (channel strides, negative
 * strides, several batches, 5 dims) are strided copies (cc_strided_copy):
 *
 * Both ops only move elements: output element (i0, ..., ik) is the input
 * element at base + sum(i_d * s_d) for signed element strides s_d, and the
 * output is written contiguously. The planner maps such a gather onto 1x1
 * MAX pools over one tap (a raw copy, zero points 0, no rescale: docs/ethos-u.md
 * 5.10), which address their IFM and OFM with arbitrary byte strides
 * (docs/ethos-u.md 4.1: NHWC strides may be any multiple of the element size;
 * Vela swaps X/Y strides to transpose):
 *  - axes of extent 1 are dropped, and neighbouring axes that step over the
 *    input as one axis (outer stride = inner stride x inner extent) merge,
 *    up to 65536 positions;
 *  - the innermost output axis becomes the NPU's channel axis when it steps
 *    over both the input and the output by one element (NHWC channels are
 *    always contiguous: the channel stride is the element size); otherwise the op has depth 1
 *    and the channels of the op are not used;
 *  - of the other axes, the two longest with a positive stride (the stride
 *    registers are unsigned 32-bit byte counts) become the op's W (the
 *    longer) and H (IFM_STRIDE_X/Y = the input strides, OFM_STRIDE_X/Y =
 *    the output's);
 *  - the remaining axes (negative strides among them) repeat the op, one
 *    per index, each with its own IFM and OFM base, at most CC_COPY_MAX_OPS.
 *
 * So an H<->W swap is one op (IFM x-stride over the input's rows), NHWC <->
 * NCHW one depth-1 op (H and W merge), a channel-strided slice one op per
 * output row, or one op when the rows are uniform (H and W merge), and a
 * reversed axis one op per index. */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_shape.h"

#include <string.h>

#define STRIDE_MAX 0xFFFFFFFFll   /* 32-bit stride registers */
#define CC_SPLIT_MAX 64           /* outputs of a SPLIT / SPLIT_V / UNPACK on the NPU */

/* ------------------------------------------------------- strided copies */

typedef struct cp_axis {
    int64_t n, is, os;   /* extent, input and output strides (elements) */
} cp_axis;

/* A copy's axes (outer first, merged) and their roles in the NPU op: the
 * channel axis, W and H (-1: none), the rest looped over. */
typedef struct cp_plan {
    cp_axis a[CC_COPY_MAX_AXES];
    int32_t na, ic, iw, ih;
    int32_t loop[CC_COPY_MAX_AXES], nl;
    int64_t n_ops;
} cp_plan;

/* The axes with their output strides os (elements, positive), extent-1
 * axes dropped and axes that step as one merged. 0 or 1 (CPU, reason
 * set). */
static int copy_axes(lower_ctx *c, int32_t rank, const int64_t *n, const int64_t *is, const int64_t *os,
                     cp_plan *p)
{
    cp_axis ax[CC_COPY_MAX_AXES];
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (n[d] < 1) return cc_cpu(c, "empty output");
        if (os[d] < 1) return cc_cpu(c, "internal: output stride");
        ax[d] = (cp_axis){n[d], is[d], os[d]};
    }
    /* drop extent-1 axes, merge axes that step as one (inner first) */
    cp_axis *a = p->a;
    int32_t na = 0;
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (ax[d].n == 1) continue;
        if (na > 0) {
            cp_axis *in_ax = &a[na - 1];
            if (ax[d].is == in_ax->is * in_ax->n && ax[d].os == in_ax->os * in_ax->n &&
                ax[d].n * in_ax->n <= CC_DIM_MAX) {
                in_ax->n *= ax[d].n;
                continue;
            }
        }
        a[na++] = ax[d];
    }
    /* a[0] is the innermost; reverse to outer-first */
    for (int32_t i = 0; i < na / 2; i++) {
        cp_axis t = a[i];
        a[i] = a[na - 1 - i];
        a[na - 1 - i] = t;
    }
    for (int32_t i = 0; i < na; i++)
        if (a[i].n > CC_DIM_MAX) return cc_cpu(c, "a copied axis of %lld positions (NPU limit %d)",
                                               (long long)a[i].n, CC_DIM_MAX);
    p->na = na;
    return 0;
}

/* The roles of the axes (elements of es bytes). 0 or 1 (CPU, reason set). */
static int copy_roles(lower_ctx *c, uint64_t es, cp_plan *p)
{
    const cp_axis *a = p->a;
    int32_t na = p->na, ic = -1, iw = -1, ih = -1;
    if (na > 0 && a[na - 1].is == 1 && a[na - 1].os == 1) ic = na - 1;
    for (int32_t i = 0; i < na; i++) {
        if (i == ic || a[i].is <= 0 || (int64_t)((uint64_t)a[i].is * es) > STRIDE_MAX ||
            (int64_t)((uint64_t)a[i].os * es) > STRIDE_MAX)
            continue;
        if (iw < 0 || a[i].n > a[iw].n) {
            ih = iw;
            iw = i;
        } else if (ih < 0 || a[i].n > a[ih].n) {
            ih = i;
        }
    }
    /* W is the longer of the two: a block is up to 64 wide but 32 high,
     * and the fewer blocks, the fewer times the op pays each block's
     * memory latency (an NCHW -> NHWC transpose of a 3-channel image is a
     * depth-1 op of H*W x 3: 3 x H*W took four times the blocks) */
    int64_t n_ops = 1;
    int32_t nl = 0;
    for (int32_t i = 0; i < na; i++)
        if (i != ic && i != iw && i != ih) {
            p->loop[nl++] = i;
            n_ops *= a[i].n;
            if (n_ops > CC_COPY_MAX_OPS) break;
        }
    if (n_ops > CC_COPY_MAX_OPS) {
        int64_t all = 1;
        for (int32_t i = 0; i < na; i++)
            if (i != ic && i != iw && i != ih) all *= a[i].n;
        return cc_cpu(c, "needs %lld NPU copies (limit %d)", (long long)all, CC_COPY_MAX_OPS);
    }
    p->ic = ic;
    p->iw = iw;
    p->ih = ih;
    p->nl = nl;
    p->n_ops = n_ops;
    return 0;
}

/* One copy: the planned op from element ioff of buffer bin to element ooff
 * of bout. */
static int copy_op(lower_ctx *c, const cp_plan *p, int32_t bin, int32_t bout, uint64_t es, int64_t ioff,
                   int64_t ooff, npuc_err *err)
{
    const cp_axis *a = p->a;
    int32_t ic = p->ic, iw = p->iw, ih = p->ih;
    uint32_t oc = ic >= 0 ? (uint32_t)a[ic].n : 1, ow = iw >= 0 ? (uint32_t)a[iw].n : 1,
             oh = ih >= 0 ? (uint32_t)a[ih].n : 1;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    eu_fm *f[2] = {&o->ifm, &o->ofm};
    for (int s = 0; s < 2; s++) {
        eu_fm *fm = f[s];
        memset(fm, 0, sizeof *fm);
        fm->buf = s ? bout : bin;
        fm->off = (uint64_t)(s ? ooff : ioff) * es;
        fm->h = oh;
        fm->w = ow;
        fm->c = oc;
        fm->sc = es;
        fm->sx = iw >= 0 ? (uint64_t)(s ? a[iw].os : a[iw].is) * es : oc * es;
        fm->sy = ih >= 0 ? (uint64_t)(s ? a[ih].os : a[ih].is) * es : (uint64_t)ow * oc * es;
        fm->bits = (uint8_t)(8 * es);
        fm->is_signed = true;
        fm->format = 0;
        fm->zp = 0;
    }
    o->flex = false;   /* addressed with NHWC byte strides */
    return cc_copy_block(c, o, (unsigned)(8 * es), err);
}

int cc_strided_copy_to(lower_ctx *c, int32_t tin_i, int32_t tout_i, int32_t rank, const int64_t *n,
                       const int64_t *is, int64_t base, const int64_t *os, int64_t obase, npuc_err *err)
{
    const graph_tensor *in = &c->g->tensors[tin_i], *out = &c->g->tensors[tout_i];
    int32_t bin = c->m->buf_of[tin_i], bout = c->m->buf_of[tout_i];
    if (bin < 0 || bout < 0) return cc_cpu(c, "constant input");
    if (rank > CC_COPY_MAX_AXES) return cc_cpu(c, "%d axes", rank);
    /* every element read and written lies in its tensor */
    int64_t ilo = base, ihi = base, ohi = obase;
    for (int32_t d = 0; d < rank; d++) {
        if (n[d] < 1) return cc_cpu(c, "empty output");
        int64_t span = (n[d] - 1) * is[d];
        if (span < 0) ilo += span;
        else ihi += span;
        ohi += (n[d] - 1) * os[d];
    }
    if (ilo < 0 || (uint64_t)ihi >= graph_tensor_elems(in) || obase < 0 || (uint64_t)ohi >= graph_tensor_elems(out))
        return cc_cpu(c, "internal: copy out of bounds");
    uint64_t es = graph_dtype_size(in->dtype);
    cp_plan p;
    memset(&p, 0, sizeof p);
    int rc = copy_axes(c, rank, n, is, os, &p);
    if (!rc) rc = copy_roles(c, es, &p);
    int64_t idx[CC_COPY_MAX_AXES] = {0};
    for (int64_t k = 0; k < p.n_ops && !rc; k++) {
        int64_t ioff = base, ooff = obase;
        for (int32_t l = 0; l < p.nl; l++) {
            ioff += idx[l] * p.a[p.loop[l]].is;
            ooff += idx[l] * p.a[p.loop[l]].os;
        }
        /* the lowest input element this op reads: negative strides are
         * looped, so it is the op's first element */
        if (ioff < 0 || (uint64_t)ioff >= graph_tensor_elems(in)) return cc_cpu(c, "internal: copy offset");
        rc = copy_op(c, &p, bin, bout, es, ioff, ooff, err);
        for (int32_t l = p.nl - 1; l >= 0; l--) {
            if (++idx[l] < p.a[p.loop[l]].n) break;
            idx[l] = 0;
        }
    }
    return rc;
}

int cc_strided_copy(lower_ctx *c, int32_t tin_i, int32_t tout_i, int32_t rank, const int64_t *n,
                    const int64_t *is, int64_t base, npuc_err *err)
{
    if (rank > CC_COPY_MAX_AXES) return cc_cpu(c, "%d axes", rank);
    int64_t os[CC_COPY_MAX_AXES], st = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (n[d] < 1) return cc_cpu(c, "empty output");
        os[d] = st;
        st *= n[d];
    }
    if ((uint64_t)st != graph_tensor_elems(&c->g->tensors[tout_i])) return cc_cpu(c, "output size mismatch");
    return cc_strided_copy_to(c, tin_i, tout_i, rank, n, is, base, os, 0, err);
}

/* ------------------------------------------------------------ TRANSPOSE */

static int lower_transpose(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *pt = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!in || !pt || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s -> %s tensors (the NPU form takes int8 or int16)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    if (!pt->data || (pt->dtype != GRAPH_I32 && pt->dtype != GRAPH_I64) || pt->rank != 1)
        return cc_cpu(c, "the permutation is not a constant int32/int64 vector");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    int32_t r = in->rank;
    if (r > CC_COPY_MAX_AXES || pt->shape[0] != r) return cc_cpu(c, "rank %d", r);
    int64_t perm[CC_COPY_MAX_AXES];
    uint32_t seen = 0;
    for (int32_t i = 0; i < r; i++) {
        perm[i] = pt->dtype == GRAPH_I32 ? ((const int32_t *)pt->data)[i] : ((const int64_t *)pt->data)[i];
        if (perm[i] < 0 || perm[i] >= r || (seen >> perm[i] & 1u)) return cc_cpu(c, "not a permutation");
        seen |= 1u << perm[i];
    }
    int64_t st[CC_COPY_MAX_AXES], n[CC_COPY_MAX_AXES], is[CC_COPY_MAX_AXES];
    int64_t s = 1;
    for (int32_t d = r - 1; d >= 0; d--) {
        st[d] = s;
        s *= in->shape[d];
    }
    for (int32_t i = 0; i < r; i++) {
        n[i] = in->shape[perm[i]];
        is[i] = st[perm[i]];
    }
    return cc_strided_copy(c, op->in[0], op->out[0], r, n, is, 0, err);
}

/* --------------------------------------------------------------- slices */

/* A slice the single op below does not take (channel strides, negative
 * strides, several batches, 5 dims): strided copies. */
static int slice_copies(lower_ctx *c, const graph_op *op, const k_slice_params *sp, npuc_err *err)
{
    int64_t n[K_MAX_DIMS], is[K_MAX_DIMS], base = 0, st = 1;
    for (int32_t k = sp->rank - 1; k >= 0; k--) {
        n[k] = k_slice_count(sp->start[k], sp->stop[k], sp->stride[k]);
        is[k] = (int64_t)sp->stride[k] * st;
        base += (int64_t)sp->start[k] * st;
        st *= sp->in_dims[k];
    }
    return cc_strided_copy(c, op->in[0], op->out[0], sp->rank, n, is, base, err);
}

/* The slice's start, stop and stride per input dim from its constant
 * indices, resolved as the reference does. 0 or 1 (CPU, reason set). */
static int slice_params(lower_ctx *c, const graph_op *op, const graph_tensor *in, k_slice_params *sp)
{
    bool strided = op->opcode == TFL_OP_STRIDED_SLICE;
    int n_idx = strided ? 3 : 2;
    int32_t v[3][K_MAX_DIMS];
    int32_t cnt = -1;
    for (int k = 0; k < n_idx; k++) {
        const graph_tensor *x = cc_tin(c, op, 1 + k);
        if (!x || !x->data || x->dtype != GRAPH_I32 || x->rank != 1) return cc_cpu(c, "slice indices are not constant int32");
        int32_t n = x->shape[0];
        if (n > K_MAX_DIMS || (cnt >= 0 && n != cnt)) return cc_cpu(c, "slice index counts differ");
        cnt = n;
        memcpy(v[k], x->data, sizeof(int32_t) * (size_t)n);
    }
    memset(sp, 0, sizeof *sp);
    if (in->rank > K_MAX_DIMS) return cc_cpu(c, "rank %d", in->rank);
    k_dims din, dout;
    din.rank = in->rank;
    for (int32_t i = 0; i < in->rank; i++) din.d[i] = in->shape[i];
    if (strided) {
        const tfl_options *o = &op->opt;
        for (int32_t i = 0; i < cnt; i++)
            if (!v[2][i]) return cc_cpu(c, "zero stride");
        k_strided_slice_spec spec = {.n = cnt, .begin = v[0], .end = v[1], .strides = v[2],
                                     .begin_mask = o->begin_mask, .end_mask = o->end_mask,
                                     .ellipsis_mask = o->ellipsis_mask, .new_axis_mask = o->new_axis_mask,
                                     .shrink_axis_mask = o->shrink_axis_mask, .offset = o->offset};
        if (k_strided_slice_resolve(&din, &spec, sp, &dout) != K_OK) return cc_cpu(c, "slice the reference rejects");
        return 0;
    }
    if (cnt != in->rank) return cc_cpu(c, "slice of rank %d with %d indices", in->rank, cnt);
    sp->rank = in->rank;
    for (int32_t i = 0; i < in->rank; i++) {
        int32_t b = v[0][i], sz = v[1][i];
        if (sz < 0) sz = in->shape[i] - b;
        if (b < 0 || sz < 0 || (int64_t)b + sz > in->shape[i]) return cc_cpu(c, "slice out of range");
        sp->in_dims[i] = in->shape[i];
        sp->start[i] = b;
        sp->stop[i] = b + sz;
        sp->stride[i] = 1;
    }
    return 0;
}

/* Whether the single op takes the slice: within range (else the CPU,
 * *cpu = 1), up to 4 dims, one batch, forward, unstrided channels. */
static bool slice_one_op(lower_ctx *c, const k_slice_params *sp, int *cpu)
{
    bool one_op = sp->rank <= 4;
    *cpu = 0;
    for (int32_t k = 0; k < sp->rank; k++) {
        int32_t n = k_slice_count(sp->start[k], sp->stop[k], sp->stride[k]);
        if (n <= 0) return (*cpu = cc_cpu(c, "empty slice")), false;
        if (sp->start[k] < 0 || sp->start[k] >= sp->in_dims[k] ||
            (int64_t)sp->start[k] + (int64_t)(n - 1) * sp->stride[k] < 0 ||
            (int64_t)sp->start[k] + (int64_t)(n - 1) * sp->stride[k] >= sp->in_dims[k])
            return (*cpu = cc_cpu(c, "slice out of range")), false;
        if (sp->stride[k] < 1) one_op = false;
        if (k == sp->rank - 1 && sp->stride[k] != 1 && n > 1) one_op = false;   /* strides the channels */
        if (k + 4 == sp->rank && n != 1) one_op = false;                       /* keeps batches */
        if (k + 4 > sp->rank && n > 65536) one_op = false;
    }
    return one_op;
}

/* STRIDED_SLICE / SLICE: a 1x1 MAX pool (a raw copy) whose IFM starts at
 * the slice's first element and steps over the input with the slice's
 * strides; the output is written whole. Other slices: slice_copies. */
static int lower_slice(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s tensors", graph_dtype_name(in->dtype));
    if (in->q.n >= 1 && out->q.n >= 1 &&
        (in->q.scale[0] != out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0]))
        return cc_cpu(c, "input and output quantization differ");
    if (c->m->buf_of[op->in[0]] < 0 || c->m->buf_of[op->out[0]] < 0) return cc_cpu(c, "constant input");
    k_slice_params sp;
    int rc = slice_params(c, op, in, &sp);
    if (rc) return rc;
    if (!slice_one_op(c, &sp, &rc)) return rc ? rc : slice_copies(c, op, &sp, err);
    /* pad to 4-d on the left */
    int32_t dim[4], st[4], stp[4], cntd[4];
    int32_t pad = 4 - sp.rank;
    for (int i = 0; i < 4; i++) {
        int32_t k = i - pad;
        dim[i] = k >= 0 ? sp.in_dims[k] : 1;
        st[i] = k >= 0 ? sp.start[k] : 0;
        stp[i] = k >= 0 ? sp.stride[k] : 1;
        cntd[i] = k >= 0 ? k_slice_count(sp.start[k], sp.stop[k], sp.stride[k]) : 1;
    }
    if ((size_t)cntd[1] * cntd[2] * cntd[3] != graph_tensor_elems(out)) return cc_cpu(c, "output size mismatch");
    uint64_t es = graph_dtype_size(in->dtype);
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_fm_whole(c, op->in[0], (uint32_t)cntd[1], (uint32_t)cntd[2], (uint32_t)cntd[3], &o->ifm);
    uint64_t C = (uint64_t)dim[3], W = (uint64_t)dim[2], H = (uint64_t)dim[1];
    o->ifm.off = ((((uint64_t)st[0] * H + (uint64_t)st[1]) * W + (uint64_t)st[2]) * C + (uint64_t)st[3]) * es;
    o->ifm.sx = C * es * (uint64_t)stp[2];
    o->ifm.sy = W * C * es * (uint64_t)stp[1];
    o->ifm.sc = es;
    o->ifm.full_w = (uint32_t)W;
    o->ifm.full_c = (uint32_t)C;
    cc_fm_whole(c, op->out[0], (uint32_t)cntd[1], (uint32_t)cntd[2], (uint32_t)cntd[3], &o->ofm);
    o->ifm.zp = 0;
    o->ofm.zp = 0;
    o->flex = false;   /* the IFM is addressed with the input's NHWC strides */
    return cc_copy_block(c, o, o->ofm.bits, err);
}

/* ------------------------------------------- SPLIT, SPLIT_V, UNPACK */

/* The data input, the axis and each output's extent along it, as the
 * reference resolves them (interp_op_supported has accepted the op). 0 or
 * 1 (CPU, reason set). */
static int split_params(lower_ctx *c, const graph_op *op, int32_t *data, int32_t *axis, int32_t *lens)
{
    const graph_tensor *in;
    int32_t no = op->n_out;
    if (no < 1 || no > CC_SPLIT_MAX) return cc_cpu(c, "%d outputs", no);
    if (op->opcode == TFL_OP_UNPACK) {
        *data = 0;
        in = cc_tin(c, op, 0);
        *axis = op->opt.axis < 0 ? op->opt.axis + in->rank : op->opt.axis;
        for (int32_t i = 0; i < no; i++) lens[i] = 1;
        return 0;
    }
    *data = op->opcode == TFL_OP_SPLIT ? 1 : 0;
    in = cc_tin(c, op, *data);
    const graph_tensor *ax = cc_tin(c, op, op->opcode == TFL_OP_SPLIT ? 0 : 2);
    if (!ax || !ax->data || ax->dtype != GRAPH_I32 || graph_tensor_elems(ax) != 1)
        return cc_cpu(c, "the axis is not a constant int32");
    int32_t a = *(const int32_t *)ax->data;
    *axis = a < 0 ? a + in->rank : a;
    /* the outputs' own extents (the reference has checked them against
     * the split) */
    int32_t r_out = in->rank;
    for (int32_t i = 0; i < no; i++) {
        const graph_tensor *o = cc_tout(c, op, i);
        if (!o || o->rank != r_out) return cc_cpu(c, "output %d has no static shape", i);
        lens[i] = o->shape[*axis];
    }
    return 0;
}

/* SPLIT / SPLIT_V / UNPACK: each output is a slice of the input along the
 * axis, a strided copy of the elements it takes (raw bytes, as the
 * reference copies them). */
static int lower_split(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    int32_t data = 0, axis = -1, lens[CC_SPLIT_MAX];
    int rc = split_params(c, op, &data, &axis, lens);
    if (rc) return rc;
    const graph_tensor *in = cc_tin(c, op, data);
    if (!cc_npu_dtype(in->dtype)) return cc_cpu(c, "%s tensors (the NPU form takes int8 or int16)", graph_dtype_name(in->dtype));
    if (in->rank > CC_COPY_MAX_AXES || axis < 0 || axis >= in->rank) return cc_cpu(c, "rank %d", in->rank);
    if (c->m->buf_of[op->in[data]] < 0) return cc_cpu(c, "constant input");
    int64_t st[CC_COPY_MAX_AXES], n[CC_COPY_MAX_AXES], s = 1;
    for (int32_t d = in->rank - 1; d >= 0; d--) {
        st[d] = s;
        n[d] = in->shape[d];
        s *= in->shape[d];
    }
    int64_t start = 0;
    for (int32_t i = 0; i < op->n_out && !rc; i++) {
        n[axis] = lens[i];
        if (op->out[i] >= 0 && lens[i] > 0 && graph_tensor_elems(&c->g->tensors[op->out[i]]) > 0) {
            if (c->m->buf_of[op->out[i]] < 0) return cc_cpu(c, "output %d is constant", i);
            rc = cc_strided_copy(c, op->in[data], op->out[i], in->rank, n, st, start * st[axis], err);
        }
        start += lens[i];
    }
    return rc;
}

/* PACK: input i goes to index i of the new axis, a strided copy into
 * that part of the output (raw bytes, as the reference copies them). */
static int lower_pack(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    const graph_tensor *out = cc_tout(c, op, 0);
    if (!out || !cc_npu_dtype(out->dtype))
        return cc_cpu(c, "%s tensors (the NPU form takes int8 or int16)", out ? graph_dtype_name(out->dtype) : "no");
    int32_t r = out->rank;
    if (r > CC_COPY_MAX_AXES) return cc_cpu(c, "rank %d", r);
    int32_t axis = op->opt.axis < 0 ? op->opt.axis + r : op->opt.axis;
    if (axis < 0 || axis >= r || out->shape[axis] != op->n_in) return cc_cpu(c, "axis %d", op->opt.axis);
    if (op->n_in > CC_SPLIT_MAX) return cc_cpu(c, "%d inputs", op->n_in);
    for (int32_t i = 0; i < op->n_in; i++)
        if (op->in[i] < 0 || c->m->buf_of[op->in[i]] < 0) return cc_cpu(c, "input %d is constant", i);
    int64_t ost[CC_COPY_MAX_AXES], s = 1;
    for (int32_t d = r - 1; d >= 0; d--) {
        ost[d] = s;
        s *= out->shape[d];
    }
    if (s == 0) return cc_cpu(c, "empty output");
    /* an input's dims are the output's without the axis */
    int64_t n[CC_COPY_MAX_AXES], is[CC_COPY_MAX_AXES], os[CC_COPY_MAX_AXES], st = 1;
    int32_t k = r - 1;
    for (int32_t d = r - 1; d >= 0; d--) {
        if (d == axis) continue;
        k--;
        n[k] = out->shape[d];
        is[k] = st;
        os[k] = ost[d];
        st *= out->shape[d];
    }
    int rc = 0;
    for (int32_t i = 0; i < op->n_in && !rc; i++)
        rc = cc_strided_copy_to(c, op->in[i], op->out[0], r - 1, n, is, 0, os, i * ost[axis], err);
    return rc;
}

static const lower_impl shape_ops[] = {
    {TFL_OP_PACK, lower_pack},
    {TFL_OP_STRIDED_SLICE, lower_slice},
    {TFL_OP_SLICE, lower_slice},
    {TFL_OP_TRANSPOSE, lower_transpose},
    {TFL_OP_SPLIT, lower_split},
    {TFL_OP_SPLIT_V, lower_split},
    {TFL_OP_UNPACK, lower_split},
};

LOWER_OPS_TABLE(lower_ops_shape, shape_ops)
