/* lower_quantize: QUANTIZE with a uint8 side, uint8 -> int8 and
 * int8 -> uint8 (the uint8 image input and output of the ST model zoo's
 * classifiers and detectors, Coral's *_ptq models).
 *
 * Form: one 1x1 AVERAGE pool with a global output scale, the uint8
 * precision on the IFM or the OFM (IFM_PRECISION / OFM_PRECISION bit 0,
 * docs/ethos-u.md 3.x) and TFLite's requantization in the output stage:
 *
 *     y = clamp(R_TFL(x - zi, M, 31 - shift) + zo, type range of y)
 *
 * with the reference kernel's own (M, shift) (k_requant_prepare) mapped onto
 * the NPU's (m, s) as docs/ethos-u.md 5.6 proves equivalent. The op is
 * elementwise: a shallow tensor (an RGB image) runs as the same bytes viewed
 * with a depth that fills the NPU's 16-channel bricks (flat_shape). Exactness is not
 * assumed: the lowering runs the op alone on the reference interpreter for
 * all 256 input values (cc_reference_all) and evaluates the pool's output
 * stage with the simulator's own rescale (sim_rescale) for each; a single
 * difference keeps the op on the CPU with the first differing input in the
 * reason. DEQUANTIZE (to float) has no NPU form.
 *
 * QUANTIZE without a uint8 side (int8 -> int8 through a LUT, the int16
 * forms) is lowered by the pointwise family (lower_lut.c): this row only
 * comes first in the dispatch and hands those on. */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_activation.h"
#include "sim/sim_rescale.h"

#include <string.h>

enum { RND_TFL = 0, POOL_AVERAGE = 1 };

/* The pointwise family's QUANTIZE row. */
static const lower_impl *lut_quantize(void)
{
    int32_t n = 0;
    const lower_impl *t = lower_ops_lut(&n);
    for (int32_t i = 0; i < n; i++)
        if (t[i].opcode == TFL_OP_QUANTIZE) return &t[i];
    return NULL;
}

static void range_of(graph_dtype d, int32_t *lo, int32_t *hi)
{
    *lo = d == GRAPH_U8 ? 0 : INT8_MIN;
    *hi = d == GRAPH_U8 ? UINT8_MAX : INT8_MAX;
}

/* The value of stored byte b in type d. */
static int32_t value_of(graph_dtype d, uint8_t b) { return d == GRAPH_U8 ? (int32_t)b : (int32_t)(int8_t)b; }

/* The output stage of the pool for input value x. */
static int32_t stage_apply(uint32_t m, uint8_t s, int32_t zi, int32_t zo, int32_t lo, int32_t hi, int32_t x)
{
    int64_t v = sim_rescale((int64_t)x - zi, m, s, RND_TFL) + zo;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

/* Channel efficiency of depth d: the NPU works on 16-channel bricks. */
static double depth_use(uint64_t d) { return (double)d / (double)(16 * ((d + 15) / 16)); }

/* The op is elementwise, so any h x w x c with the tensor's element count
 * addresses the same bytes (NHWC, dense). An image of depth 3 wastes most
 * of each 16-channel brick; where a divisor of the element count up to
 * 1024 fills the bricks better, the op runs on that shape. False: keep the
 * tensor's own. */
static bool flat_shape(uint32_t h, uint32_t w, uint32_t ch, uint32_t *fh, uint32_t *fw, uint32_t *fc)
{
    uint64_t n = (uint64_t)h * w * ch, best = 0;
    double best_use = depth_use(ch);
    for (uint64_t d = 1024; d > ch; d--) {
        if (n % d || depth_use(d) <= best_use) continue;
        uint64_t rest = n / d, wd = rest < CC_DIM_MAX ? rest : CC_DIM_MAX;
        while (rest % wd) wd--;
        if (rest / wd > CC_DIM_MAX) continue;
        best = d;
        best_use = depth_use(d);
    }
    if (!best) return false;
    uint64_t rest = n / best, wd = rest < CC_DIM_MAX ? rest : CC_DIM_MAX;
    while (rest % wd) wd--;
    *fc = (uint32_t)best;
    *fw = (uint32_t)wd;
    *fh = (uint32_t)(rest / wd);
    return true;
}

/* ------------------------------------------------- folded at the input */

/* Whether QUANTIZE qi (uint8 -> int8, one reader, the op after it) folds:
 * see lower.h. The conv that reads it (op qi + 1, or qi + 2 after a PAD
 * that folds into it) is given by *conv. */
static bool fold_target(lower_ctx *c, int32_t qi, int32_t *conv)
{
    const graph *g = c->g;
    const cc_model *m = c->m;
    if (m->qfold_off || qi < 0 || qi + 1 >= g->n_ops) return false;
    const graph_op *q = &g->ops[qi];
    if (q->opcode != TFL_OP_QUANTIZE || q->n_in != 1 || q->n_out != 1 || q->in[0] < 0 || q->out[0] < 0)
        return false;
    int32_t ti = q->in[0], to = q->out[0];
    const graph_tensor *in = &g->tensors[ti], *out = &g->tensors[to];
    if (in->dtype != GRAPH_U8 || out->dtype != GRAPH_I8 || in->data || in->is_variable || out->is_variable)
        return false;
    if (m->buf_of[ti] < 0 || m->buf_of[to] < 0 || graph_tensor_elems(in) != graph_tensor_elems(out)) return false;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == to) return false;
    if (cc_readers(c, to) != 1) return false;
    int32_t k = qi + 1;
    const graph_op *r = &g->ops[k];
    if (r->opcode == TFL_OP_PAD || r->opcode == TFL_OP_PADV2) {
        if (r->n_in < 1 || r->in[0] != to || !cc_pad_folds(c, k)) return false;
        k++;   /* cc_pad_folds: the conv right after reads the PAD alone */
    } else if (r->n_in < 1 || r->in[0] != to) {
        return false;
    }
    const graph_op *cv = &g->ops[k];
    if (cv->opcode != TFL_OP_CONV_2D && cv->opcode != TFL_OP_DEPTHWISE_CONV_2D) return false;
    conv_plan pl;
    if (!cc_conv_takes(c, cv, &pl)) return false;
    *conv = k;
    return true;
}

bool cc_quant_folds(lower_ctx *c, int32_t qi, const int32_t *ref)
{
    int32_t conv;
    if (!fold_target(c, qi, &conv)) return false;
    /* the proof: every uint8 byte x becomes the int8 value x - 128
     * (cc_reference_all feeds byte i - 128, reads the output as int8) */
    for (int32_t i = 0; i < 256; i++)
        if (ref[i] != (int32_t)(uint8_t)(i - 128) - 128) return false;
    return true;
}

/* No NPU op: the output shares the input's buffer (which so lives until
 * the conv reads it); the output's own buffer keeps no bytes. */
static void quant_share(lower_ctx *c, const graph_op *op)
{
    cc_model *m = c->m;
    int32_t ob = m->buf_of[op->out[0]], ib = m->buf_of[op->in[0]];
    m->buf_of[op->out[0]] = ib;
    if (ob >= 0 && ob != ib) m->bufs[ob].size = 0;
}

/* The folded QUANTIZE whose output tensor t is (through a folded PAD, as
 * cc_pad_fold reads it), else -1. */
static int32_t folded_source(const cc_model *m, const graph *g, int32_t t)
{
    for (int hop = 0; hop < 2 && t >= 0; hop++) {
        int32_t p = g->tensors[t].producer;
        if (p < 0 || !m->ops[p].npu || m->ops[p].n_eu != 0) return -1;
        const graph_op *x = &g->ops[p];
        if (x->n_in < 1 || x->in[0] < 0 || m->buf_of[x->in[0]] != m->buf_of[t]) return -1;
        if (x->opcode == TFL_OP_QUANTIZE)
            return g->tensors[x->in[0]].dtype == GRAPH_U8 && g->tensors[t].dtype == GRAPH_I8 ? p : -1;
        if (x->opcode != TFL_OP_PAD && x->opcode != TFL_OP_PADV2) return -1;
        t = x->in[0];
    }
    return -1;
}

void cc_quant_fold(lower_ctx *c, const graph_op *op, eu_op *o)
{
    if (op->n_in < 1 || op->in[0] < 0 || o->ifm.bits != 8 || !o->ifm.is_signed) return;
    int32_t q = folded_source(c->m, c->g, op->in[0]);
    if (q < 0 || c->m->ops[q].epoch != (int32_t)(c->e - c->m->epochs)) return;
    /* the QUANTIZE's int8 y is x - 128 for its uint8 x: y - zp = x - (zp + 128) */
    o->ifm.is_signed = false;
    o->ifm.zp += 128;
    c->m->ops[q].folded_into = c->op_index;
}

bool cc_quant_folds_taken(const cc_model *m)
{
    const graph *g = m->g;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *r = &g->ops[i];
        if (r->opcode != TFL_OP_CONV_2D && r->opcode != TFL_OP_DEPTHWISE_CONV_2D) continue;
        if (r->n_in < 1 || r->in[0] < 0 || folded_source(m, g, r->in[0]) < 0) continue;
        if (!m->ops[i].npu) return false;
        const cc_epoch *e = &m->epochs[m->ops[i].epoch];
        bool took = false;
        for (int32_t k = m->ops[i].first_eu; k < m->ops[i].first_eu + m->ops[i].n_eu; k++)
            took |= e->ops[k].ifm.bits == 8 && !e->ops[k].ifm.is_signed;
        if (!took) return false;
    }
    return true;
}

static int lower_quantize_u8(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (op->n_in != 1 || op->n_out != 1) return cc_cpu(c, "%d inputs, %d outputs", op->n_in, op->n_out);
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    bool u8_s8 = in->dtype == GRAPH_U8 && out->dtype == GRAPH_I8;
    bool s8_u8 = in->dtype == GRAPH_I8 && out->dtype == GRAPH_U8;
    if (!u8_s8 && !s8_u8)
        return cc_cpu(c, "%s -> %s QUANTIZE has no NPU form (uint8 <-> int8 only)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    if (!cc_has_q1(in) || !cc_has_q1(out) || in->q.n != 1 || out->q.n != 1)
        return cc_cpu(c, "tensors are not quantized per tensor");
    if (c->m->buf_of[op->in[0]] < 0) return cc_cpu(c, "constant input");
    if (graph_tensor_elems(in) != graph_tensor_elems(out)) return cc_cpu(c, "input and output sizes differ");
    uint32_t h, w, ch;
    if (!cc_hwc_of(out, &h, &w, &ch)) return cc_cpu(c, "tensor too large for one NPU op");

    /* the reference's output for every input byte */
    int32_t ref[256];
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    int rc = cc_reference_all(c, op, in, out, ref, &e2);
    if (rc == NPUC_E_NOMEM) return npuc_errf(err, rc, "%s", e2.msg);
    if (rc) return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    /* int8 -> uint8 adding 128 (the same real values): the producer's
     * ops write the uint8 bytes themselves (lower_lut.c) */
    char fwhy[CC_WHY_SIZE];
    if (s8_u8 && !cc_fuse_u8(c, op, ref, fwhy, sizeof fwhy)) return NPUC_OK;
    /* uint8 -> int8 subtracting 128, read by a CONV that reads the uint8
     * input itself (below): no NPU op */
    if (u8_s8 && cc_quant_folds(c, c->op_index, ref)) {
        quant_share(c, op);
        return NPUC_OK;
    }

    int32_t zi = cc_zp(in), zo = cc_zp(out), lo, hi;
    range_of(out->dtype, &lo, &hi);
    k_requant_params p;
    k_requant_prepare(in->q.scale[0], zi, out->q.scale[0], zo, &p);
    uint32_t m;
    uint8_t s;
    if (p.mult < 0 || !cc_hw_scale_tfl(p.mult, p.shift, &m, &s))
        return cc_cpu(c, "rescale %g is outside the NPU's range", (double)in->q.scale[0] / (double)out->q.scale[0]);

    /* the proof: every input byte, the reference against the output stage */
    /* cc_reference_all feeds byte (i - 128) and reads the output as int8 */
    for (int32_t i = 0; i < 256; i++) {
        int32_t x = value_of(in->dtype, (uint8_t)(i - 128));
        int32_t want = value_of(out->dtype, (uint8_t)ref[i]);
        int32_t got = stage_apply(m, s, zi, zo, lo, hi, x);
        if (got != want)
            return cc_cpu(c, "the NPU's rescale differs from the reference at input %d (%d, reference %d)", x,
                          got, want);
    }

    uint32_t fh, fw, fc;
    bool flat = flat_shape(h, w, ch, &fh, &fw, &fc);
    if (flat) {
        h = fh;
        w = fw;
        ch = fc;
    }
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_POOL;
    o->mode = POOL_AVERAGE;
    cc_fm_whole(c, op->in[0], h, w, ch, &o->ifm);
    cc_fm_whole(c, op->out[0], h, w, ch, &o->ofm);
    o->ifm.zp = zi;
    o->ofm.zp = zo;
    cc_global_scale(o, m, s, RND_TFL);
    o->act_func = 0;
    o->act_min = lo;
    o->act_max = hi;
    o->flex = !flat;   /* on another shape the tensors stay NHWC */
    return cc_block_or_cpu(c, o, err);
}

static int lower_quantize(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (in->dtype == GRAPH_U8 || out->dtype == GRAPH_U8) return lower_quantize_u8(c, op, err);
    const lower_impl *next = lut_quantize();
    return next ? next->lower(c, op, err) : cc_cpu(c, "QUANTIZE has no NPU form in this compiler");
}

static const lower_impl quantize_ops[] = {
    {TFL_OP_QUANTIZE, lower_quantize},
};

LOWER_OPS_TABLE(lower_ops_quantize, quantize_ops)
