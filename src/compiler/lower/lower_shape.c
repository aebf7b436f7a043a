/* cc_transpose: TRANSPOSE (int8, int16, constant perm) on the NPU, and the
 * strided-copy planner it shares with STRIDED_SLICE / SLICE forms that the
 * single-op slice of cc_lower.c does not cover (channel strides, negative
 * strides, several batches).
 *
 * Both ops only move elements: output element (i0, ..., ik) is the input
 * element at base + sum(i_d * s_d) for signed element strides s_d, and the
 * output is written contiguously. The planner maps such a gather onto 1x1
 * MAX pools over one tap (a raw copy, zero points 0, no rescale: ethos-u.md
 * 5.10), which address their IFM and OFM with arbitrary byte strides
 * (ethos-u.md 4.1: NHWC strides may be any multiple of the element size;
 * Vela swaps X/Y strides to transpose):
 *  - axes of extent 1 are dropped, and neighbouring axes that step over the
 *    input as one axis (outer stride = inner stride x inner extent) merge,
 *    up to 65536 positions;
 *  - the innermost output axis becomes the NPU's channel axis when it steps
 *    over the input by one element (NHWC channels are always contiguous:
 *    the channel stride is the element size); otherwise the op has depth 1
 *    and the channels of the op are not used;
 *  - of the other axes, the two longest with a positive stride (the stride
 *    registers are unsigned 32-bit byte counts) become the op's W and H
 *    (IFM_STRIDE_X/Y = the input strides, OFM_STRIDE_X/Y = the output's);
 *  - the remaining axes (negative strides among them) repeat the op, one
 *    per index, each with its own IFM and OFM base, at most CC_COPY_MAX_OPS.
 *
 * So an H<->W swap is one op (IFM x-stride over the input's rows), NHWC <->
 * NCHW one depth-1 op (H and W merge), a channel-strided slice one op per
 * output row, or one op when the rows are uniform (H and W merge), and a
 * reversed axis one op per index. */
#include "lower.h"
#include "../../interp/interp.h"

#include <string.h>

#define NPU_DIM_MAX 65536
#define STRIDE_MAX 0xFFFFFFFFll   /* 32-bit stride registers */

typedef struct cp_axis {
    int64_t n, is, os;   /* extent, input and output strides (elements) */
} cp_axis;

int cc_strided_copy(lower_ctx *c, int32_t tin_i, int32_t tout_i, int32_t rank, const int64_t *n,
                    const int64_t *is, int64_t base, npuc_err *err)
{
    const graph_tensor *in = &c->g->tensors[tin_i], *out = &c->g->tensors[tout_i];
    int32_t bin = c->m->buf_of[tin_i], bout = c->m->buf_of[tout_i];
    if (bin < 0 || bout < 0) return cc_cpu(c, "constant input");
    if (rank > CC_COPY_MAX_AXES) return cc_cpu(c, "%d axes", rank);
    uint64_t es = graph_dtype_size(in->dtype);
    /* output strides: contiguous */
    cp_axis ax[CC_COPY_MAX_AXES];
    int64_t os = 1, total = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (n[d] < 1) return cc_cpu(c, "empty output");
        ax[d] = (cp_axis){n[d], is[d], os};
        os *= n[d];
        total *= n[d];
    }
    if ((uint64_t)total != graph_tensor_elems(out)) return cc_cpu(c, "output size mismatch");
    /* drop extent-1 axes, merge axes that step as one (inner first) */
    cp_axis a[CC_COPY_MAX_AXES];
    int32_t na = 0;
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (ax[d].n == 1) continue;
        if (na > 0) {
            cp_axis *in_ax = &a[na - 1];
            if (ax[d].is == in_ax->is * in_ax->n && ax[d].os == in_ax->os * in_ax->n &&
                ax[d].n * in_ax->n <= NPU_DIM_MAX) {
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
        if (a[i].n > NPU_DIM_MAX) return cc_cpu(c, "a copied axis of %lld positions (NPU limit %d)",
                                               (long long)a[i].n, NPU_DIM_MAX);
    /* roles: channel axis, W, H; the rest loop */
    int32_t ic = -1, iw = -1, ih = -1;
    if (na > 0 && a[na - 1].is == 1) ic = na - 1;
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
    /* H is the outer of the two in the output */
    if (ih >= 0 && ih > iw) {
        int32_t t = ih;
        ih = iw;
        iw = t;
    }
    int64_t n_ops = 1;
    int32_t loop[CC_COPY_MAX_AXES], nl = 0;
    for (int32_t i = 0; i < na; i++)
        if (i != ic && i != iw && i != ih) {
            loop[nl++] = i;
            n_ops *= a[i].n;
            if (n_ops > CC_COPY_MAX_OPS) break;
        }
    if (n_ops > CC_COPY_MAX_OPS) {
        int64_t all = 1;
        for (int32_t i = 0; i < na; i++)
            if (i != ic && i != iw && i != ih) all *= a[i].n;
        return cc_cpu(c, "needs %lld NPU copies (limit %d)", (long long)all, CC_COPY_MAX_OPS);
    }
    uint32_t oc = ic >= 0 ? (uint32_t)a[ic].n : 1, ow = iw >= 0 ? (uint32_t)a[iw].n : 1,
             oh = ih >= 0 ? (uint32_t)a[ih].n : 1;
    uint8_t bits = (uint8_t)(8 * es);
    int64_t idx[CC_COPY_MAX_AXES] = {0};
    for (int64_t k = 0; k < n_ops; k++) {
        int64_t ioff = base, ooff = 0;
        for (int32_t l = 0; l < nl; l++) {
            ioff += idx[l] * a[loop[l]].is;
            ooff += idx[l] * a[loop[l]].os;
        }
        /* the lowest input element this op reads: negative strides are
         * looped, so it is the op's first element */
        if (ioff < 0 || (uint64_t)ioff >= graph_tensor_elems(in)) return cc_cpu(c, "internal: copy offset");
        eu_op *o = cc_new_eu(c, err);
        if (!o) return err->code;
        o->kind = SIM_K_POOL;
        o->mode = 0;   /* MAX over one tap: the value itself */
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
            fm->bits = bits;
            fm->is_signed = true;
            fm->format = 0;
            fm->zp = 0;
        }
        o->ofm_scale_mode = 0;
        o->round = 0;
        o->act_min = es == 2 ? INT16_MIN : INT8_MIN;
        o->act_max = es == 2 ? INT16_MAX : INT8_MAX;
        o->flex = false;   /* addressed with NHWC byte strides */
        int rc = cc_choose_block(c, o, err);
        if (rc) {
            if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
            return rc;
        }
        for (int32_t l = nl - 1; l >= 0; l--) {
            if (++idx[l] < a[loop[l]].n) break;
            idx[l] = 0;
        }
    }
    (void)out;
    return NPUC_OK;
}

int cc_lower_transpose(lower_ctx *c, const graph_op *op, npuc_err *err)
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
