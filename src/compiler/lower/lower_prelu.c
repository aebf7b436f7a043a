/* lower_prelu: PRELU (int8, a constant int8 alpha that varies at most
 * along the channels) on the NPU.
 *
 * The reference (TFLite Micro's prelu: x' = x - zi, then MBQM(x', M1, S1)
 * for x' >= 0 and MBQM(x' * (a - za), M2, S2) below, + zo, clamped) is two
 * rescales chosen by the sign of x'. On the NPU both branches are computed
 * over the whole tensor and one ELEMENTWISE MAX (or MIN) picks (the clamp
 * commutes with both):
 *
 *   1  1x1 AVERAGE pool, global scale (M1, S1), TFL rounding  -> t1
 *   2  ELEMENTWISE MUL x by alpha (1 x 1 x C, broadcast over H and W,
 *      zero points zi / za), OFM scale (M2, S2), TFL rounding -> t2
 *   3  ELEMENTWISE MAX (or MIN) of t1 and t2 on raw values    -> output
 *
 * With alpha in [0, 1] the identity branch is the larger one for x' >= 0
 * and the alpha branch below; alpha above 1 turns that round (MIN). Which
 * one holds, after rounding, is not assumed: before emitting anything the
 * lowering runs the op on the reference for every int8 input in every
 * channel (cc_reference_grid) and evaluates the three operations with the
 * NPU's arithmetic (sim_rescale.h); MAX, else MIN, must match everywhere,
 * or the op stays on the CPU with the first differing input and channel. */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_common.h"
#include "sim/sim_rescale.h"

#include <stdlib.h>
#include <string.h>

enum { EW_MUL = 0, EW_MIN = 3, EW_MAX = 4 };
enum { RND_TFL = 0 };

typedef struct prelu_regs {
    uint32_t m1, m2;
    uint8_t s1, s2;
    int32_t zi, za, zo;
} prelu_regs;

static int32_t clamp8(int64_t v)
{
    return (int32_t)(v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v);
}

/* The two branches as the NPU computes them for input x and alpha code a. */
static void branches(const prelu_regs *r, int32_t x, int32_t a, int32_t *t1, int32_t *t2)
{
    int64_t xv = (int64_t)x - r->zi;
    *t1 = clamp8(sim_rescale(xv, r->m1, r->s1, RND_TFL) + r->zo);
    *t2 = clamp8(sim_rescale(xv * ((int64_t)a - r->za), r->m2, r->s2, RND_TFL) + r->zo);
}

/* The alpha code of channel ch (alpha has C values, or one). */
static int32_t alpha_at(const graph_tensor *al, int32_t ch)
{
    return ((const int8_t *)al->data)[graph_tensor_elems(al) == 1 ? 0 : ch];
}

static int lower_prelu(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *al = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!in || !al || !out) return cc_cpu(c, "missing input or output");
    if (in->dtype != GRAPH_I8 || out->dtype != GRAPH_I8 || al->dtype != GRAPH_I8)
        return cc_cpu(c, "%s input, %s alpha -> %s (the NPU form takes int8)", graph_dtype_name(in->dtype),
                      graph_dtype_name(al->dtype), graph_dtype_name(out->dtype));
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (!al->data) return cc_cpu(c, "alpha is not a constant");
    if (!cc_has_q1(in) || !cc_has_q1(out) || !cc_has_q1(al) || in->q.n != 1 || out->q.n != 1 || al->q.n != 1)
        return cc_cpu(c, "tensors are not quantized per tensor");
    if (c->m->buf_of[op->in[0]] < 0) return cc_cpu(c, "constant input");
    if (graph_tensor_elems(in) != graph_tensor_elems(out)) return cc_cpu(c, "input and output sizes differ");
    uint32_t h, w, C;
    if (!cc_hwc_of(out, &h, &w, &C)) return cc_cpu(c, "tensor too large for one NPU op");
    /* alpha: one value, or C values along the last axis */
    uint64_t na = graph_tensor_elems(al);
    for (int32_t d = 0; d + 1 < al->rank; d++)
        if (al->shape[d] != 1) return cc_cpu(c, "alpha varies along more than the channels");
    if (na != 1 && (na != C || in->rank < 1 || in->shape[in->rank - 1] != (int32_t)C))
        return cc_cpu(c, "alpha varies along more than the channels");

    /* TFLite Micro's multipliers (prelu_common.cc), in double */
    prelu_regs r = {.zi = cc_zp(in), .za = cc_zp(al), .zo = cc_zp(out)};
    double is = in->q.scale[0], as = al->q.scale[0], os = out->q.scale[0];
    int32_t m1, s1, m2, s2;
    k_quantize_multiplier(is / os, &m1, &s1);
    k_quantize_multiplier(is * as / os, &m2, &s2);
    if (!cc_hw_scale_tfl(m1, s1, &r.m1, &r.s1) || !cc_hw_scale_tfl(m2, s2, &r.m2, &r.s2))
        return cc_cpu(c, "rescale factors out of the NPU's range");

    /* the reference over every input value in every channel */
    int32_t *ref = malloc(sizeof *ref * 256 * (size_t)C);
    if (!ref) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    int rc = cc_reference_grid(c, op, in, out, (int32_t)C, ref, &e2);
    if (rc) {
        free(ref);
        if (rc == NPUC_E_NOMEM) return npuc_errf(err, rc, "%s", e2.msg);
        return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    }
    bool max_ok = true, min_ok = true;
    int32_t bad_x = 0, bad_c = 0, want = 0, got = 0;   /* MAX's first difference */
    for (uint32_t ch = 0; ch < C && (max_ok || min_ok); ch++)
        for (int32_t i = 0; i < 256 && (max_ok || min_ok); i++) {
            int32_t t1, t2, y = ref[(size_t)i * C + ch];
            branches(&r, i - 128, alpha_at(al, (int32_t)ch), &t1, &t2);
            int32_t mx = t1 > t2 ? t1 : t2, mn = t1 < t2 ? t1 : t2;
            if (max_ok && mx != y) {
                max_ok = false;
                bad_x = i - 128, bad_c = (int32_t)ch, want = y, got = mx;
            }
            if (mn != y) min_ok = false;
        }
    free(ref);
    if (!max_ok && !min_ok)
        return cc_cpu(c, "neither the larger nor the smaller of the two NPU branches is the reference's output "
                      "everywhere (the larger at input %d, channel %d: %d, reference %d)", bad_x, bad_c, got, want);

    /* the three operations */
    cc_epoch *e = c->e;
    uint64_t bytes = (uint64_t)h * w * C;
    int32_t b1 = cc_temp_buf(c, bytes, err);
    if (b1 < 0) return err->code;
    int32_t b2 = cc_temp_buf(c, bytes, err);
    if (b2 < 0) return err->code;
    eu_fm fin, fout, t1, t2;
    cc_fm_whole(c, op->in[0], h, w, C, &fin);
    cc_fm_whole(c, op->out[0], h, w, C, &fout);
    cc_fm_dense(&t1, b1, 0, h, w, C, 8, r.zo);
    cc_fm_dense(&t2, b2, 0, h, w, C, 8, r.zo);

    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_POOL;
    o->mode = 1;   /* AVERAGE over one tap: the rescaled value */
    o->ifm = fin;
    o->ifm.zp = r.zi;
    o->ofm = t1;
    cc_global_scale(o, r.m1, r.s1, RND_TFL);
    o->act_min = INT8_MIN;
    o->act_max = INT8_MAX;
    o->flex = true;

    if (!(o = cc_new_eu(c, err))) return err->code;
    o->kind = SIM_K_ELEMENTWISE;
    o->mode = EW_MUL;
    o->ifm = fin;
    o->ifm.zp = r.zi;
    o->ofm = t2;
    if (na == 1) {
        o->ifm2_scalar = true;
        o->scalar = alpha_at(al, 0);
        memset(&o->ifm2, 0, sizeof o->ifm2);
        o->ifm2.bits = 8;
        o->ifm2.is_signed = true;
        o->ifm2.buf = -1;
    } else {
        o->ifm2_tensor = true;
        cc_fm_dense(&o->ifm2, -1, 0, 1, 1, C, 8, 0);
        if ((rc = cc_flash_add(e, al->data, al->nbytes, &o->ifm2.off, err))) return rc;
        o->bcast_h = h > 1;
        o->bcast_w = w > 1;
    }
    o->ifm2.zp = r.za;
    cc_global_scale(o, r.m2, r.s2, RND_TFL);
    o->act_min = INT8_MIN;
    o->act_max = INT8_MAX;
    o->flex = true;

    if (!cc_raw_minmax(c, max_ok ? EW_MAX : EW_MIN, &t1, &t2, &fout, err)) return err->code;

    for (int32_t k = e->n_eu - 3; k < e->n_eu; k++)
        if ((rc = cc_choose_block(c, &e->ops[k], err))) return rc;
    return NPUC_OK;
}

static const lower_impl prelu_ops[] = {
    {TFL_OP_PRELU, lower_prelu},
};

LOWER_OPS_TABLE(lower_ops_prelu, prelu_ops)
