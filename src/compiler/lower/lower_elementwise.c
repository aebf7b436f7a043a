/* lower_elementwise: ADD, SUB, MUL, MINIMUM and MAXIMUM as one binary
 * ELEMENTWISE op (docs/ethos-u.md 5.5, 5.6, 5.10).
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
 *   - MINIMUM / MAXIMUM: raw values, as TFLite compares them. */
#include "lower.h"
#include "kernels/k_common.h"

#include <math.h>
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

/* IFM2: a constant scalar in IFM2_SCALAR, else a tensor (constant: in
 * flash) broadcast where it has extent 1. */
static int set_ifm2(lower_ctx *c, eu_op *o, int32_t si, const int32_t ss[4], const int32_t so[4],
                    npuc_err *err)
{
    const graph_tensor *s2 = &c->g->tensors[si];
    if (graph_tensor_elems(s2) == 1 && s2->data) {
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
    cc_fm_whole(c, si, (uint32_t)ss[1], (uint32_t)ss[2], (uint32_t)ss[3], &o->ifm2);
    if (s2->data) {
        o->ifm2.buf = -1;
        int rc = cc_flash_add(c->e, s2->data, s2->nbytes, &o->ifm2.off, err);
        if (rc) return rc;
    }
    o->bcast_h = ss[1] != so[1];
    o->bcast_w = ss[2] != so[2];
    o->bcast_c = ss[3] != so[3];
    return NPUC_OK;
}

/* What every binary op checks, and its eu_op with the operands set: 0
 * (*po set), 1 (CPU, reason set) or an error. */
static int binary_op(lower_ctx *c, const graph_op *op, eu_op **po, npuc_err *err)
{
    const graph_tensor *a = cc_tin(c, op, 0), *b = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!a || !b || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(a->dtype) || b->dtype != a->dtype || out->dtype != a->dtype)
        return cc_cpu(c, "%s/%s -> %s tensors", graph_dtype_name(a->dtype), graph_dtype_name(b->dtype),
                      graph_dtype_name(out->dtype));
    if (!cc_has_q1(a) || !cc_has_q1(b) || !cc_has_q1(out)) return cc_cpu(c, "tensors are not quantized");
    int32_t act = op->opt.activation;
    bool minmax = op->opcode == TFL_OP_MINIMUM || op->opcode == TFL_OP_MAXIMUM;
    if (!minmax && !cc_act_ok(act)) return cc_cpu(c, "fused activation %s", tfl_activation_name(act));
    int32_t sa[4], sb[4], so[4];
    if (!shape4(a, sa) || !shape4(b, sb) || !shape4(out, so)) return cc_cpu(c, "rank above 4");
    if (sa[0] != 1 || sb[0] != 1 || so[0] != 1) return cc_cpu(c, "batch above 1");
    /* which operand is the full one: IFM must have the OFM shape */
    bool a_full = sa[1] == so[1] && sa[2] == so[2] && sa[3] == so[3];
    bool b_full = sb[1] == so[1] && sb[2] == so[2] && sb[3] == so[3];
    if (!a_full && !b_full) return cc_cpu(c, "both operands are broadcast");
    bool swap = !a_full;       /* IFM = input 1, IFM2 = input 0 */
    const graph_tensor *f = swap ? b : a;
    const int32_t *ss = swap ? sa : sb;
    for (int i = 1; i < 4; i++)
        if (ss[i] != so[i] && ss[i] != 1) return cc_cpu(c, "shapes do not broadcast");
    if (so[1] > 65536 || so[2] > 65536 || so[3] > 65536) return cc_cpu(c, "dimension above 65536");

    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_ELEMENTWISE;
    o->flex = true;
    int32_t fi = swap ? op->in[1] : op->in[0], si = swap ? op->in[0] : op->in[1];
    /* Shallow tensors (depth below 16) with no broadcast: elementwise does not care about
     * the shape, so all three are viewed as one dense h x w x 16k block
     * (the NPU works on 8 or 16 channels at a time; a depth of 1 leaves
     * most of it idle). The view addresses NHWC bytes: not flexible. */
    uint32_t vh = (uint32_t)so[1], vw = (uint32_t)so[2], vc = (uint32_t)so[3];
    /* (not when a CONCATENATION reads one of the three tensors: the
     * in-place pass puts it straight into its slice of the concatenation,
     * addressed in the tensor's own shape) */
    bool concat_reader = false;
    for (int32_t i = 0; i < c->g->n_ops && !concat_reader; i++)
        if (c->g->ops[i].opcode == TFL_OP_CONCATENATION)
            for (int32_t k = 0; k < c->g->ops[i].n_in; k++) {
                int32_t t = c->g->ops[i].in[k];
                concat_reader |= t >= 0 && (t == op->out[0] || t == op->in[0] || t == op->in[1]);
            }
    if (a_full && b_full && so[3] < 16 && !concat_reader && cc_dense_view((uint64_t)so[1] * so[2] * so[3], &vh, &vw, &vc)) {
        o->flex = false;
        int32_t vs[4] = {1, (int32_t)vh, (int32_t)vw, (int32_t)vc};
        memcpy(so, vs, sizeof vs);
        memcpy(sa, vs, sizeof vs);
        memcpy(sb, vs, sizeof vs);
    }
    cc_fm_whole(c, fi, (uint32_t)so[1], (uint32_t)so[2], (uint32_t)so[3], &o->ifm);
    cc_fm_whole(c, op->out[0], (uint32_t)so[1], (uint32_t)so[2], (uint32_t)so[3], &o->ofm);
    o->reversed = swap;
    int rc;
    if (f->data) {
        /* a constant full-shape operand is read from flash */
        o->ifm.buf = -1;
        if ((rc = cc_flash_add(c->e, f->data, f->nbytes, &o->ifm.off, err))) return rc;
    }
    if ((rc = set_ifm2(c, o, si, ss, so, err))) return rc;
    o->ofm_scale_mode = 1;
    o->round = 0;
    *po = o;
    return NPUC_OK;
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
    int rc = binary_op(c, op, &o, err);
    if (!rc) rc = stage(c, op, o);
    if (!rc) rc = cc_block_or_cpu(c, o, err);
    return rc;
}

static int lower_add_sub(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    return lower_binary(c, op, add_sub_stage, err);
}

static int lower_mul(lower_ctx *c, const graph_op *op, npuc_err *err) { return lower_binary(c, op, mul_stage, err); }

static int lower_min_max(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    return lower_binary(c, op, min_max_stage, err);
}

static const lower_impl elementwise_ops[] = {
    {TFL_OP_ADD, lower_add_sub},
    {TFL_OP_SUB, lower_add_sub},
    {TFL_OP_MUL, lower_mul},
    {TFL_OP_MINIMUM, lower_min_max},
    {TFL_OP_MAXIMUM, lower_min_max},
};

LOWER_OPS_TABLE(lower_ops_elementwise, elementwise_ops)
