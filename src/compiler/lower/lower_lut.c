/* lower_lut: the pointwise ops LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU, RELU,
 * RELU6, RELU_N1_TO_1, RELU_0_TO_1 and QUANTIZE, and the int8 value maps ABS, ELU and
 * RSQRT (int8 only).
 *
 * int8 -> int8: an ADD of the scalar 0 through a 256-entry LUT whose
 * entries are the reference interpreter's own outputs for every input value
 * (cc_reference_all): exact by construction.
 *
 * Fusion: where the input's producer is an NPU op of the same epoch, the
 * activation goes into the producer's output stage instead and has no NPU
 * op of its own: as a clamp where it is one (int8 and int16, proved over
 * every value of the type), else (int8) as the producer's LUT (see the
 * fusion section below).
 *
 * int16 (lower_act16): the same ops whose input or output is int16, the
 * other side int8 or int16. Forms (docs/ethos-u.md 5.5-5.8):
 *
 *   RELU, RELU6, RELU_N1_TO_1, QUANTIZE   1x1 AVERAGE pool with a global
 *       scale: y = clamp(R_TFL(x - zi, M, 31 - shift) + zo, act_min, act_max),
 *       TFLite's MultiplyByQuantizedMultiplier (docs/ethos-u.md 5.6) with the
 *       kernel's own (M, shift) and clamp (k_relu_prepare, k_requant_prepare).
 *   TANH, LOGISTIC                        1x1 AVERAGE pool scaled by TFLite's
 *       16-bit input multiplier with NATURAL rounding ((x*m + 2^(s-1)) >> s,
 *       exactly the kernel's rescale to units of 1/0x3000) into the built-in
 *       TANH / SIGMOID activation, which evaluates TFLite's int16 table.
 *   LEAKY_RELU, input and output quantization equal (identity multiplier
 *       exactly 1), alpha >= 0: one ELEMENTWISE LRELU, x >= 0 ? x :
 *       R_TFL(x, M_alpha, 31 - shift_alpha).
 *   LEAKY_RELU otherwise: two ops write R_identity(x) + zo and
 *       R_alpha(x) + zo (clamped) into scratch buffers, and an ELEMENTWISE
 *       MAX (alpha <= 1) or MIN (alpha > 1) of the two gives the result (max
 *       and min commute with the clamp). Both rescales are 1x1 pools, except
 *       for alpha < 0, where TFLite applies |alpha| and negates: that branch
 *       is an ELEMENTWISE MUL by the scalar -1 scaled by |alpha| and the
 *       result is the MAX (the negated branch is >= 0 exactly where x < 0).
 *       TFLite rounds a tie of |alpha| x (x < 0) toward +inf and then
 *       negates, so its result's ties go down, where the NPU rounds the
 *       negated product's ties up: when some input meets a tie (alpha =
 *       -0.5) the check below keeps the op on the CPU.
 *
 * Exactness is not assumed: before emitting anything the lowering runs the
 * op alone on the reference interpreter for every possible input value
 * (65536 for int16 input, 256 for int8) and evaluates the chosen form with
 * the NPU's output-stage arithmetic (sim_rescale.h: the simulator's own
 * rescale; then zero point, clamp, built-in function as docs/ethos-u.md 5.1 and
 * 5.7 specify), and keeps the op on the CPU with the reason if a single
 * value differs. A QUANTIZE from int16 is proved first on a few hundred
 * inputs, where both sides are known to be non-decreasing (the short proof
 * below); the full comparison runs only where that does not prove it.
 * HARD_SWISH has no int16 reference kernel, so it stays on
 * the CPU with the reference's reason. */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_activation.h"
#include "kernels/k_common.h"
#include "sim/sim_rescale.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { RND_TFL = 0, RND_NATURAL = 2 };
enum { FN_NONE = 0, FN_TANH = 3, FN_SIGMOID = 4 };
enum { EW_MUL = 0, EW_MIN = 3, EW_MAX = 4, EW_LRELU = 5, EW_ABS = 6 };

/* Whether the int16 forms take the op: an int8 or int16 input and output,
 * one of them int16. */
static bool takes_int16(const lower_ctx *c, const graph_op *op)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (!in || !out) return false;
    if (!cc_npu_dtype(in->dtype) || !cc_npu_dtype(out->dtype)) return false;
    return in->dtype == GRAPH_I16 || out->dtype == GRAPH_I16;
}

/* ------------------------------------------------------- the NPU model */

/* One output stage as the lowering programs it: the scaled value
 * R_round(x - zi, m, s), then the zero point and clamp, or the built-in
 * function (its input limited to +-2^24 as in the hardware model), zero
 * point and clamp. */
typedef struct stage {
    uint32_t m;
    uint8_t s, round, func;
    int32_t zi, zo, lo, hi;
    bool neg;                 /* an ELEMENTWISE MUL by the scalar -1: R(-(x - zi)) */
    bool abs;                 /* an ELEMENTWISE ABS: R(|x - zi|) */
} stage;

static int32_t clamp_i64(int64_t v, int32_t lo, int32_t hi)
{
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

static int32_t stage_out(const stage *st, int64_t v)
{
    if (st->func == FN_TANH || st->func == FN_SIGMOID) {
        int32_t x = v < -(1 << 24) ? -(1 << 24) : v > (1 << 24) ? (1 << 24) : (int32_t)v;
        int64_t r = (st->func == FN_TANH ? k_tanh_s16_value(x) : k_logistic_s16_value(x));
        return clamp_i64(r + st->zo, st->lo, st->hi);
    }
    return clamp_i64(v + st->zo, st->lo, st->hi);
}

static int32_t stage_apply(const stage *st, int32_t x)
{
    int64_t a = (int64_t)x - st->zi;
    if (st->abs && a < 0) a = -a;
    return stage_out(st, sim_rescale(st->neg ? -a : a, st->m, st->s, st->round));
}

/* The forms. */
typedef enum form_kind { F_REQUANT, F_LRELU, F_MAXMIN } form_kind;

typedef struct form {
    form_kind kind;
    stage a, b;               /* F_REQUANT: a; F_LRELU: a (negative branch); F_MAXMIN: a, b */
    uint8_t ew_mode;          /* F_MAXMIN: EW_MAX / EW_MIN */
} form;

static int32_t form_apply(const form *f, int32_t x)
{
    switch (f->kind) {
    case F_REQUANT:
        return stage_apply(&f->a, x);
    case F_LRELU: {
        int64_t a = (int64_t)x - f->a.zi;
        int64_t v = a >= 0 ? a : sim_rescale(a, f->a.m, f->a.s, f->a.round);
        return stage_out(&f->a, v);
    }
    default: {
        int32_t p = stage_apply(&f->a, x), q = stage_apply(&f->b, x);
        return f->ew_mode == EW_MAX ? (p > q ? p : q) : (p < q ? p : q);
    }
    }
}

/* ------------------------------------------------ the reference's answers */

/* The first input value where the form differs from the reference, or
 * INT32_MIN when none does. */
static int32_t first_mismatch(const form *f, const int32_t *ref, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (form_apply(f, i - n / 2) != ref[i]) return i - n / 2;
    return INT32_MIN;
}

/* ------------------------------------------------------- choosing a form */

static void type_range(graph_dtype d, int32_t *lo, int32_t *hi)
{
    *lo = d == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    *hi = d == GRAPH_I16 ? INT16_MAX : INT8_MAX;
}

/* A TFL-rounded stage for TFLite's (M, shift); false when the NPU's shift
 * cannot express it. */
static bool tfl_stage(int32_t mult, int32_t shift, stage *st)
{
    if (mult < 0) return false;
    return cc_hw_scale_tfl(mult, shift, &st->m, &st->s);
}

/* QUANTIZE's stage: the kernel's own (M, shift) (k_requant_prepare), zero
 * points and the output type's range [lo, hi]; false when the NPU's shift
 * cannot express it. choose_form and cc_requant_ends both build it here. */
static bool requant_stage(int32_t mult, int32_t shift, int32_t zi, int32_t zo, int32_t lo, int32_t hi, stage *st)
{
    *st = (stage){.round = RND_TFL, .zi = zi, .zo = zo, .lo = lo, .hi = hi};
    return tfl_stage(mult, shift, st);
}

/* Picks the form for the op and its registers; 0 or 1 (CPU, reason set). */
static int choose_form(lower_ctx *c, const graph_op *op, form *f)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    memset(f, 0, sizeof *f);
    float is = in->q.scale[0], os = out->q.scale[0];
    int32_t izp = cc_zp(in), ozp = cc_zp(out), qmin, qmax;
    type_range(out->dtype, &qmin, &qmax);
    stage base = {.round = RND_TFL, .zi = izp, .zo = ozp, .lo = qmin, .hi = qmax};
    f->kind = F_REQUANT;
    f->a = base;
    switch (op->opcode) {
    case TFL_OP_RELU:
    case TFL_OP_RELU6:
    case TFL_OP_RELU_N1_TO_1:
    case TFL_OP_RELU_0_TO_1: {
        float lo = op->opcode == TFL_OP_RELU_N1_TO_1 ? -1.0f : 0.0f;
        float hi = op->opcode == TFL_OP_RELU ? INFINITY : op->opcode == TFL_OP_RELU6 ? 6.0f : 1.0f;
        k_relu_params p;
        k_relu_prepare(is, izp, os, ozp, lo, hi, qmin, qmax, &p);
        if (!tfl_stage(p.mult, p.shift, &f->a))
            return cc_cpu(c, "rescale %g is outside the NPU's range", (double)(is / os));
        f->a.lo = p.act_min;
        f->a.hi = p.act_max;
        return 0;
    }
    case TFL_OP_QUANTIZE: {
        k_requant_params p;
        k_requant_prepare(is, izp, os, ozp, &p);
        if (!requant_stage(p.mult, p.shift, izp, ozp, qmin, qmax, &f->a))
            return cc_cpu(c, "rescale %g is outside the NPU's range", (double)is / (double)os);
        return 0;
    }
    case TFL_OP_TANH:
    case TFL_OP_LOGISTIC: {
        bool th = op->opcode == TFL_OP_TANH;
        if (in->dtype != GRAPH_I16 || out->dtype != GRAPH_I16)
            return cc_cpu(c, "%s -> %s %s (the NPU's built-in function takes int16 -> int16)",
                          graph_dtype_name(in->dtype), graph_dtype_name(out->dtype), graph_op_name(op));
        k_sigmoid_s16_params p;
        if (k_sigmoid_s16_prepare(is, th, &p) != K_OK)
            return cc_cpu(c, "input scale %g is outside TFLite's int16 %s range", (double)is,
                          graph_op_name(op));
        int32_t m = p.input_multiplier, s = p.input_left_shift;
        if (m == 0) {
            if (s < 0 || s > 13) return cc_cpu(c, "input shift %d is outside the kernel's range", s);
            m = 3 << s;
            s = 0;
        }
        if (m < 0 || m > 65535 || s < 0 || s > 31)
            return cc_cpu(c, "input rescale (%d, %d) is outside the kernel's range", m, s);
        f->a.m = (uint32_t)m;
        f->a.s = (uint8_t)s;
        f->a.round = RND_NATURAL;
        f->a.func = th ? FN_TANH : FN_SIGMOID;
        return 0;
    }
    case TFL_OP_LEAKY_RELU: {
        if (in->dtype != out->dtype)
            return cc_cpu(c, "%s -> %s LEAKY_RELU", graph_dtype_name(in->dtype), graph_dtype_name(out->dtype));
        float alpha = op->opt.alpha;
        k_leaky_relu_params p;
        k_leaky_relu_prepare(is, izp, os, ozp, alpha, &p);
        bool neg = p.mult_alpha < 0;
        if (p.mult_alpha == INT32_MIN) return cc_cpu(c, "alpha %g gives no NPU multiplier", (double)alpha);
        stage sa = base, si = base;
        if (!tfl_stage(neg ? -p.mult_alpha : p.mult_alpha, p.shift_alpha, &sa) ||
            !tfl_stage(p.mult_identity, p.shift_identity, &si))
            return cc_cpu(c, "rescale factors out of the NPU's range");
        sa.neg = neg;
        if (!neg && p.mult_identity == (1 << 30) && p.shift_identity == 1) {
            f->kind = F_LRELU;
            f->a = sa;
            return 0;
        }
        f->kind = F_MAXMIN;
        f->a = si;
        f->b = sa;
        /* alpha in [0, 1]: max; alpha > 1: min; alpha < 0: the negated
         * branch is >= 0 where x < 0 and <= 0 where x >= 0: max */
        f->ew_mode = alpha <= 1.0f ? EW_MAX : EW_MIN;
        return 0;
    }
    case TFL_OP_ABS: {
        /* the kernel: |x - zi|, rescaled by s_in / s_out unless the two
         * are equal, + zo (abs_prepare / abs_q) */
        if (in->dtype != out->dtype)
            return cc_cpu(c, "%s -> %s ABS", graph_dtype_name(in->dtype), graph_dtype_name(out->dtype));
        f->a.abs = true;
        f->a.m = 1;
        f->a.s = 0;
        if (is != os) {
            int32_t m, s;
            k_quantize_multiplier((double)is / (double)os, &m, &s);
            if (!tfl_stage(m, s, &f->a)) return cc_cpu(c, "rescale %g is outside the NPU's range", (double)(is / os));
        }
        return 0;
    }
    default:
        return cc_cpu(c, "%s has no int16 NPU form in this compiler", graph_op_name(op));
    }
}

/* ------------------------------------------------------------- emitting */

/* A 1x1 AVERAGE pool applying stage st from ifm to ofm (a MUL by the
 * scalar -1 when the stage negates). */
static eu_op *emit_stage(lower_ctx *c, const stage *st, const eu_fm *ifm, const eu_fm *ofm, npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return NULL;
    if (st->neg) {
        o->kind = SIM_K_ELEMENTWISE;
        o->mode = EW_MUL;
        o->ifm2_scalar = true;
        o->scalar = -1;
        o->ifm2.buf = -1;
        o->ifm2.bits = ifm->bits;
        o->ifm2.is_signed = true;
        o->ifm2.zp = 0;
    } else {
        o->kind = SIM_K_POOL;
        o->mode = 1;
    }
    if (st->abs) {
        o->kind = SIM_K_ELEMENTWISE;
        o->mode = EW_ABS;
        o->ifm2.buf = -1;
    }
    o->ifm = *ifm;
    o->ofm = *ofm;
    o->ifm.zp = st->zi;
    o->ofm.zp = st->zo;
    cc_global_scale(o, st->m, st->s, st->round);
    o->act_func = st->func;
    o->act_min = st->lo;
    o->act_max = st->hi;
    o->flex = true;
    return o;
}

/* ------------------------------------- QUANTIZE from int16: the short proof */

/* verify_form below compares the form with the reference at every input
 * value: for an int16 input, 65536 runs of the reference and as many of
 * the NPU's stage. For a QUANTIZE from int16 (F_REQUANT, the requantizing
 * pool) the same answer takes a few hundred points, because both sides are
 * non-decreasing in x:
 *
 *  - the reference, f(x) = clamp(mbqm(x - zi, M, shift) + zo) (the
 *    interpreter's QUANTIZE between integer types, k_requant_* in
 *    kernels/k_quant.c, with k_requant_prepare's (M, shift)), when M >= 0,
 *    the kernel takes the shift (-31..31) and no step wraps in 32 bits:
 *    x - zi, its left shift (x - zi) * 2^max(shift, 0), and mbqm + zo
 *    (|mbqm(a)| <= |a * 2^left| since M < 2^31, so the bound is checked on
 *    the ends of x - zi). Then each step is non-decreasing: the left
 *    shift; gemmlowp's SRDHM(a, M) = floor((a M + 2^30) / 2^31) for either
 *    sign of a M (docs/ethos-u.md 5.6); RoundingDivideByPOT, a rounding
 *    of a / 2^right (halves away from zero); + zo; the clamp.
 *  - the NPU's stage, g(x) = clamp(R_TFL(x - zi, m, s) + zo) (sim_rescale,
 *    docs/ethos-u.md 5.6), for m >= 0: the product (x - zi) m is
 *    non-decreasing, the rounding term only grows (by 2^31 where x - zi
 *    turns non-negative with s > 31), the floor shift, + zo and the clamp
 *    keep the order.
 *
 * Two non-decreasing functions on the integers agree everywhere if and
 * only if they agree at both ends of every maximal run on which one of
 * them, g, is constant: the runs cover the input range, and on a run
 * [b, e] with g = v, f(b) = v = f(e) pins f to v on all of [b, e]. The
 * runs come from g alone (g is cheap: from each run's start a search for
 * its end, which may skip inputs because g is non-decreasing), and the
 * reference runs once on their ends: at most 2 points per output value,
 * a few hundred for an int8 output, instead of 65536. Any end that
 * differs, a condition that does not hold, or a reference that fails
 * leaves the decision to the full comparison (which also names the first
 * differing input): the short proof only ever accepts what the full one
 * accepts (tests/test_cc_requant_proof.c holds the two together). */

int32_t cc_requant_ends(int32_t mult, int32_t shift, int32_t zi, int32_t zo, int32_t lo, int32_t hi, int32_t *x,
                        int32_t *y)
{
    stage st;
    if (mult < 0 || shift < -31 || shift > 31 || lo > hi || !requant_stage(mult, shift, zi, zo, lo, hi, &st))
        return -1;
    /* f's conditions: x - zi, its left shift and mbqm + zo stay in int32 */
    int64_t amin = (int64_t)INT16_MIN - zi, amax = (int64_t)INT16_MAX - zi;
    if (amin < INT32_MIN || amax > INT32_MAX) return -1;
    int32_t left = shift > 0 ? shift : 0;
    int64_t smin = amin * ((int64_t)1 << left), smax = amax * ((int64_t)1 << left);
    if (smin < INT32_MIN || smax > INT32_MAX) return -1;
    int64_t bound = -smin > smax ? -smin : smax;
    if ((int64_t)zo - bound < INT32_MIN || (int64_t)zo + bound > INT32_MAX) return -1;
    /* g's runs, each from its start b: its end lies between good (g = v)
     * and bad (g != v, or past the range), first probed where the run
     * before would end it (a requantization's runs are about equally
     * long), then galloped outward from there and halved */
    int32_t k = 0, len = 1;
    for (int32_t b = INT16_MIN; b <= INT16_MAX;) {
        int32_t v = stage_apply(&st, b), good = b, bad = INT16_MAX + 1;
        int32_t t = len - 1 < INT16_MAX - b ? b + len - 1 : INT16_MAX;
        if (stage_apply(&st, t) == v) {
            good = t;
            for (int32_t step = 1; step <= INT16_MAX - good; step *= 2) {
                if (stage_apply(&st, good + step) != v) {
                    bad = good + step;
                    break;
                }
                good += step;
            }
        } else {
            bad = t;
            for (int32_t step = 1; step < bad - good; step *= 2) {
                if (stage_apply(&st, bad - step) == v) {
                    good = bad - step;
                    break;
                }
                bad -= step;
            }
        }
        while (bad - good > 1) {
            int32_t mid = good + (bad - good) / 2;
            if (stage_apply(&st, mid) == v)
                good = mid;
            else
                bad = mid;
        }
        len = good - b + 1;
        x[k] = b;
        y[k++] = v;
        if (good > b) {
            x[k] = good;
            y[k++] = v;
        }
        b = good + 1;
    }
    return k;
}

/* The short proof for op with form f: 0 (proved: f equals the reference
 * at every input), 1 (not proved: verify_form's full comparison decides)
 * or an error. */
static int requant_short_proof(lower_ctx *c, const graph_op *op, const form *f, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (op->opcode != TFL_OP_QUANTIZE || f->kind != F_REQUANT || in->dtype != GRAPH_I16) return 1;
    k_requant_params p;
    k_requant_prepare(in->q.scale[0], cc_zp(in), out->q.scale[0], cc_zp(out), &p);
    int32_t *x = malloc(2 * 65536 * sizeof *x);
    if (!x) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t *y = x + 65536, k = cc_requant_ends(p.mult, p.shift, f->a.zi, f->a.zo, f->a.lo, f->a.hi, x, y);
    int rc = 1;
    if (k > 0) {
        /* the reference's answers go over x, the NPU's stay in y */
        npuc_err e2;
        memset(&e2, 0, sizeof e2);
        int r2 = cc_reference_at(c, op, in, out, x, k, x, &e2);
        if (r2 == NPUC_E_NOMEM) {
            rc = npuc_errf(err, r2, "%s", e2.msg);
        } else if (!r2) {
            rc = 0;
            for (int32_t i = 0; i < k && !rc; i++) rc = x[i] != y[i];
        }
    }
    free(x);
    return rc;
}

/* Checks form f against the reference for every input value: 0 (f may
 * switch the order of its MAX / MIN branches), 1 (CPU, with the first
 * differing input) or an error. */
static int verify_form(lower_ctx *c, const graph_op *op, form *f, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    int short_rc = requant_short_proof(c, op, f, err);
    if (short_rc != 1) return short_rc;
    int32_t *ref = malloc(65536 * sizeof *ref);
    if (!ref) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t n = in->dtype == GRAPH_I16 ? 65536 : 256;
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    int rc = cc_reference_all(c, op, in, out, ref, &e2);
    if (rc) {
        free(ref);
        if (rc == NPUC_E_NOMEM) return npuc_errf(err, rc, "%s", e2.msg);
        return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    }
    int32_t bad = first_mismatch(f, ref, n);
    int32_t want = bad != INT32_MIN ? ref[bad + n / 2] : 0, got = bad != INT32_MIN ? form_apply(f, bad) : 0;
    if (bad != INT32_MIN && f->kind == F_MAXMIN) {
        /* the other order of the two branches */
        form g = *f;
        g.ew_mode = f->ew_mode == EW_MAX ? EW_MIN : EW_MAX;
        if (first_mismatch(&g, ref, n) == INT32_MIN) {
            *f = g;
            bad = INT32_MIN;
        }
    }
    free(ref);
    if (bad != INT32_MIN && f->kind == F_MAXMIN && f->b.neg)
        return cc_cpu(c, "alpha %g < 0: TFLite rounds alpha * x before negating, the NPU's negated "
                      "rescale differs at input %d (%d, reference %d)", (double)op->opt.alpha, bad, got, want);
    if (bad != INT32_MIN)
        return cc_cpu(c, "the NPU's rescale differs from the reference at input %d (%d, reference %d)",
                      bad, got, want);
    return 0;
}

/* The eu_ops of form f over the op's h x w x ch tensors (scratch buffers
 * for the two branches of F_MAXMIN); blocks not yet chosen. */
static int emit_form(lower_ctx *c, const graph_op *op, const form *f, uint32_t h, uint32_t w, uint32_t ch,
                     npuc_err *err)
{
    eu_fm fin, fout;
    cc_fm_whole(c, op->in[0], h, w, ch, &fin);
    cc_fm_whole(c, op->out[0], h, w, ch, &fout);
    if (f->kind == F_REQUANT) return emit_stage(c, &f->a, &fin, &fout, err) ? NPUC_OK : err->code;
    eu_op *o;
    if (f->kind == F_LRELU) {
        if (!(o = cc_new_eu(c, err))) return err->code;
        o->kind = SIM_K_ELEMENTWISE;
        o->mode = EW_LRELU;
        o->ifm = fin;
        o->ofm = fout;
        o->ifm.zp = f->a.zi;
        o->ofm.zp = f->a.zo;
        cc_global_scale(o, f->a.m, f->a.s, f->a.round);
        o->act_min = f->a.lo;
        o->act_max = f->a.hi;
        o->flex = true;
        return NPUC_OK;
    }
    uint64_t bytes = (uint64_t)h * w * ch * 2;
    int32_t b1 = cc_temp_buf(c, bytes, err);
    if (b1 < 0) return err->code;
    int32_t b2 = cc_temp_buf(c, bytes, err);
    if (b2 < 0) return err->code;
    eu_fm t1, t2;
    cc_fm_dense(&t1, b1, 0, h, w, ch, 16, 0);
    cc_fm_dense(&t2, b2, 0, h, w, ch, 16, 0);
    if (!emit_stage(c, &f->a, &fin, &t1, err) || !emit_stage(c, &f->b, &fin, &t2, err)) return err->code;
    return cc_raw_minmax(c, f->ew_mode, &t1, &t2, &fout, err) ? NPUC_OK : err->code;
}

/* ------------------------------------------------------------- fusion */

/* An activation fused into the output stage of the NPU ops of its input's
 * producer P (docs/ethos-u.md 5.1: the output stage scales, adds the zero
 * point, clamps to ACTIVATION_MIN/MAX and the OFM type's range, then, with
 * a LUT, looks the clamped value up; sim_exec.c ostage_apply). Unfused, P
 * writes that clamped value v and the activation reads it back; fused, P's
 * ops write the activation's output instead, so the pair is exact when the
 * fused output stage gives the activation's output for v:
 *
 *   clamp  (fuse_clamp, int8 and int16): when the activation applied to P's
 *          clamped output is itself a clamp of P's value to some [lo, hi]
 *          (RELU / RELU6 / RELU_N1_TO_1 / QUANTIZE keeping the
 *          quantization), P's clamp becomes [lo, hi]; checked against the
 *          reference (cc_reference_all) for every value of the type.
 *   LUT    (fuse_lut, int8): P's ops index the activation's LUT with v;
 *          the LUT holds the reference's output for every int8 input, so
 *          the result is LUT[v], the activation's output, whatever P's
 *          clamp is: exact by construction.
 *
 * Either way P's output tensor then shares the activation output's buffer
 * (it is never written as itself; its own buffer keeps no bytes) and the
 * activation has no NPU op of its own (cc_op_info.fused_into = P).
 *
 * fuse_check: the conditions both share. P runs in the open HW epoch;
 * P's output is read by this op alone, is no graph input or output and
 * has no buffer alias; P's ops touch its buffer only as signed `bits`-bit
 * OFMs without a LUT or built-in function of their own, and no other op
 * of the epoch touches it; the activation's output has P's output's
 * shape and type. 0 (P's ops k0..k1-1 of the epoch, buffers bp -> ba) or 1
 * (the reason in why). */
typedef struct fuse_site {
    int32_t p, k0, k1, bp, ba;
} fuse_site;

static bool on_buf(const eu_fm *f, int32_t b) { return f->buf == b; }

/* Whether another tensor than t shares t's buffer (a view's alias). */
static bool buf_shared(const cc_model *m, const graph *g, int32_t t)
{
    for (int32_t j = 0; j < g->n_tensors; j++)
        if (j != t && m->buf_of[j] == m->buf_of[t]) return true;
    return false;
}

/* A MINIMUM / MAXIMUM of a tensor (input 0) and a constant scalar (input
 * 1), all three of type dt (int32: unquantized, as the plain int32 form
 * takes them): the constant's value in *k. */
static bool const_clamp(const graph *g, const graph_op *op, graph_dtype dt, int32_t *k)
{
    if ((op->opcode != TFL_OP_MINIMUM && op->opcode != TFL_OP_MAXIMUM) || op->n_in != 2 || op->n_out != 1 ||
        op->in[0] < 0 || op->in[1] < 0 || op->out[0] < 0)
        return false;
    const graph_tensor *x = &g->tensors[op->in[0]], *c = &g->tensors[op->in[1]], *y = &g->tensors[op->out[0]];
    if (x->dtype != dt || c->dtype != dt || y->dtype != dt || x->data || !c->data || graph_tensor_elems(c) != 1)
        return false;
    if (dt == GRAPH_I32 && (x->q.n || c->q.n || y->q.n)) return false;
    switch (dt) {
    case GRAPH_I8: *k = ((const int8_t *)c->data)[0]; return true;
    case GRAPH_I16: *k = ((const int16_t *)c->data)[0]; return true;
    case GRAPH_I32: memcpy(k, c->data, sizeof *k); return true;
    default: return false;
    }
}

/* fuse_check, and with `to_u8` an activation from int8 to uint8 (a
 * QUANTIZE at the output's boundary, cc_fuse_u8). */
static int fuse_check_to(lower_ctx *c, const graph_op *op, uint8_t bits, bool to_u8, fuse_site *fs, char *why,
                         size_t why_size)
{
    cc_model *m = c->m;
    const graph *g = c->g;
    if (op->n_in < 1 || op->n_out != 1 || op->in[0] < 0 || op->out[0] < 0)
        return cc_reason(why, why_size, "not one input and one output"), 1;
    int32_t t = op->in[0], to = op->out[0];
    const graph_tensor *x = &g->tensors[t], *y = &g->tensors[to];
    int32_t p = x->producer;
    if (p < 0 || !m->ops[p].npu || m->ops[p].n_eu == 0 || m->ops[p].epoch != (int32_t)(c->e - m->epochs))
        return cc_reason(why, why_size, "its input is not written by an NPU op of the same HW epoch"), 1;
    if (x->is_variable || y->is_variable) return cc_reason(why, why_size, "a state tensor"), 1;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t) return cc_reason(why, why_size, "its input is a graph output"), 1;
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == t) return cc_reason(why, why_size, "its input is a graph input"), 1;
    int32_t uses = cc_readers(c, t);
    if (uses != 1) return cc_reason(why, why_size, "its input has %d readers", uses), 1;
    bool types = to_u8 ? x->dtype == GRAPH_I8 && y->dtype == GRAPH_U8 : x->dtype == y->dtype;
    if (!types || x->rank != y->rank ||
        memcmp(x->shape, y->shape, sizeof x->shape[0] * (size_t)x->rank))
        return cc_reason(why, why_size, "input and output types or shapes differ"), 1;
    int32_t bp = m->buf_of[t], ba = m->buf_of[to];
    if (bp < 0 || ba < 0 || bp == ba || m->bufs[bp].temp)
        return cc_reason(why, why_size, "its input has no buffer of its own"), 1;
    if (buf_shared(m, g, t)) return cc_reason(why, why_size, "its input's buffer is shared"), 1;
    const cc_epoch *e = c->e;
    int32_t k0 = m->ops[p].first_eu, k1 = k0 + m->ops[p].n_eu, writers = 0;
    for (int32_t k = 0; k < e->n_eu; k++) {
        const eu_op *o = &e->ops[k];
        bool mine = k >= k0 && k < k1;
        bool reads = on_buf(&o->ifm, bp) || (o->ifm2_tensor && on_buf(&o->ifm2, bp)) || o->wbuf == bp;
        bool writes = on_buf(&o->ofm, bp);
        if (!mine && (reads || writes)) return cc_reason(why, why_size, "another NPU op uses its input"), 1;
        if (reads) return cc_reason(why, why_size, "its producer reads its own output"), 1;
        if (!writes) continue;
        if (o->ofm.bits != bits || !o->ofm.is_signed || o->lut >= 0 || o->act_func != 0 || o->act_clip != 0)
            return cc_reason(why, why_size, "its producer's output stage is not a plain int%u clamp", bits), 1;
        writers++;
    }
    if (!writers) return cc_reason(why, why_size, "its producer writes no NPU output"), 1;
    *fs = (fuse_site){.p = p, .k0 = k0, .k1 = k1, .bp = bp, .ba = ba};
    return 0;
}

static int fuse_check(lower_ctx *c, const graph_op *op, uint8_t bits, fuse_site *fs, char *why, size_t why_size)
{
    return fuse_check_to(c, op, bits, false, fs, why, why_size);
}

/* P's ops write the activation's output; the activation joins P. */
static void fuse_commit(lower_ctx *c, const graph_op *op, const fuse_site *fs)
{
    for (int32_t k = fs->k0; k < fs->k1; k++)
        if (on_buf(&c->e->ops[k].ofm, fs->bp)) c->e->ops[k].ofm.buf = fs->ba;
    c->m->buf_of[op->in[0]] = fs->ba;
    c->m->bufs[fs->bp].size = 0;   /* no bytes of its own */
    c->m->ops[c->op_index].fused_into = fs->p;
}

/* The clamp form: ref[i] is the activation's output for input i - n/2 (n
 * values of the type). For each clamp [a, b] of P's ops, the activation of
 * P's clamped value must equal the clamp of P's value to [lo, hi], with lo
 * and hi the activation's outputs at the type's ends, for every value of
 * the type; `site` is what fuse_check found (it passed). 0 (fused), 1
 * (not: reason in why). */
static int fuse_clamp(lower_ctx *c, const graph_op *op, const fuse_site *site, const int32_t *ref, int32_t n,
                      char *why, size_t why_size)
{
    const fuse_site fs = *site;
    int32_t tlo = -n / 2, thi = n / 2 - 1;
    for (int32_t k = fs.k0; k < fs.k1; k++) {
        const eu_op *o = &c->e->ops[k];
        if (!on_buf(&o->ofm, fs.bp)) continue;
        int32_t a = o->act_min > tlo ? o->act_min : tlo, b = o->act_max < thi ? o->act_max : thi;
        if (a > b) return cc_reason(why, why_size, "its producer's clamp is empty"), 1;
        int32_t lo = ref[a + n / 2], hi = ref[b + n / 2];
        for (int32_t x = tlo; x <= thi; x++) {
            int32_t v = x < a ? a : x > b ? b : x, w = x < lo ? lo : x > hi ? hi : x;
            if (ref[v + n / 2] != w)
                return cc_reason(why, why_size, "it is no clamp of its input (input %d: %d, clamp %d)", v,
                                 ref[v + n / 2], w), 1;
        }
    }
    for (int32_t k = fs.k0; k < fs.k1; k++) {
        eu_op *o = &c->e->ops[k];
        if (!on_buf(&o->ofm, fs.bp)) continue;
        int32_t a = o->act_min > tlo ? o->act_min : tlo, b = o->act_max < thi ? o->act_max : thi;
        o->act_min = ref[a + n / 2];
        o->act_max = ref[b + n / 2];
    }
    fuse_commit(c, op, &fs);
    return 0;
}

/* The LUT form (int8): the int8 LUT `li` of the activation in the output
 * stage of P's ops, each with a block that leaves the LUT banks free (a
 * CONV / DEPTHWISE keeps the block depth its weights are encoded for);
 * `site` is what fuse_check found (it passed). 0 (fused), 1 (not: reason
 * in why) or an error. */
static int fuse_lut(lower_ctx *c, const graph_op *op, const fuse_site *site, int32_t li, char *why, size_t why_size,
                    npuc_err *err)
{
    const fuse_site fs = *site;
    cc_epoch *e = c->e;
    /* the blocks with the LUT banks reserved, before changing anything */
    eu_block *blk = malloc(sizeof *blk * (size_t)(fs.k1 - fs.k0));
    if (!blk) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t k = fs.k0; k < fs.k1; k++) {
        eu_op o = e->ops[k];
        blk[k - fs.k0] = o.blk;
        if (!on_buf(&o.ofm, fs.bp)) continue;
        o.act_func = 16;
        o.lut = li;
        eu_block_req r;
        cc_block_req(c->m->opt.sys.variant, &o, &r);
        if (o.kind == SIM_K_CONV || o.kind == SIM_K_DEPTHWISE) r.fixed_d = o.blk.d;
        npuc_err e2;
        memset(&e2, 0, sizeof e2);
        if (cc_block_choose_kept(c->m, &r, &blk[k - fs.k0], &e2) != NPUC_OK) {
            free(blk);
            return cc_reason(why, why_size, "no block of its producer leaves room for the LUT: %s", e2.msg), 1;
        }
    }
    for (int32_t k = fs.k0; k < fs.k1; k++) {
        eu_op *o = &e->ops[k];
        if (!on_buf(&o->ofm, fs.bp)) continue;
        o->blk = blk[k - fs.k0];
        o->act_func = 16;   /* slot assigned at generation */
        o->lut = li;
    }
    free(blk);
    fuse_commit(c, op, &fs);
    return 0;
}

/* The uint8 form: a QUANTIZE int8 -> uint8 (the model's uint8 output or a
 * CPU op's uint8 input) whose output is its input plus 128 over P's
 * clamp, the same real values (ref[i]: its output byte, read as int8, for
 * input i - 128). P's ops then write uint8 directly: OFM unsigned, zero
 * point and clamp 128 higher. Their output stage adds the zero point
 * after the scaling and clamps last (docs/ethos-u.md 5.1), so each
 * written value is the int8 one plus 128: clamp(v + zp + 128, a + 128,
 * b + 128) = clamp(v + zp, a, b) + 128, and the proof is that the
 * QUANTIZE maps every v in [a, b] to v + 128. 0 (fused), 1 (not: reason in
 * why). */
int cc_fuse_u8(lower_ctx *c, const graph_op *op, const int32_t *ref, char *why, size_t why_size)
{
    fuse_site fs;
    if (fuse_check_to(c, op, 8, true, &fs, why, why_size)) return 1;
    for (int32_t k = fs.k0; k < fs.k1; k++) {
        const eu_op *o = &c->e->ops[k];
        if (!on_buf(&o->ofm, fs.bp)) continue;
        int32_t a = o->act_min > INT8_MIN ? o->act_min : INT8_MIN, b = o->act_max < INT8_MAX ? o->act_max : INT8_MAX;
        if (a > b) return cc_reason(why, why_size, "its producer's clamp is empty"), 1;
        if (o->ofm.zp + 128 > UINT8_MAX || o->ofm.zp + 128 < 0)
            return cc_reason(why, why_size, "its producer's zero point %d has no uint8 twin", (int)o->ofm.zp), 1;
        for (int32_t v = a; v <= b; v++)
            if ((int32_t)(uint8_t)ref[v + 128] != v + 128)
                return cc_reason(why, why_size, "it is no shift by 128 (input %d: %d)", v,
                                 (int)(uint8_t)ref[v + 128]), 1;
    }
    for (int32_t k = fs.k0; k < fs.k1; k++) {
        eu_op *o = &c->e->ops[k];
        if (!on_buf(&o->ofm, fs.bp)) continue;
        int32_t a = o->act_min > INT8_MIN ? o->act_min : INT8_MIN, b = o->act_max < INT8_MAX ? o->act_max : INT8_MAX;
        o->ofm.is_signed = false;
        o->ofm.zp += 128;
        o->act_min = a + 128;
        o->act_max = b + 128;
    }
    fuse_commit(c, op, &fs);
    return 0;
}

/* The narrowing form: an int32 MINIMUM or MAXIMUM with a constant scalar
 * whose input P writes (an int32 elementwise op of the open epoch), then
 * the ops right after it in graph order, each the only reader of the one
 * before: more such MINIMUM / MAXIMUM, then a CAST to int8 or int16. A
 * chain of clamps to constants is one clamp f(v) = clamp(v, lo, hi), with
 * lo = f(INT32_MIN) and hi = f(INT32_MAX); where [lo, hi] lies inside the
 * CAST's type, the CAST only changes the type and the chain is the clamp.
 * P's op then writes the CAST's output: OFM of that type, ACTIVATION_MIN
 * /MAX = lo/hi. Its value before the output stage is the exact int32
 * result (a 32-bit operation applies only OFM_SCALE's shift, 0 here), and
 * an 8- or 16-bit OFM takes the zero point, 0, and the clamp
 * (docs/ethos-u.md 5.1, 5.8; npuc's int8 softmax ends the same way). The
 * NPU applies no clamp to a 32-bit OFM, which is why the chain must end in
 * the CAST. Every op of the chain joins P (fused_into), its tensors share
 * the CAST output's buffer and keep no bytes of their own. */
static bool narrow_step(const graph *g, const graph_op *op, int64_t *lo, int64_t *hi)
{
    int32_t v;
    if (!const_clamp(g, op, GRAPH_I32, &v)) return false;
    bool mn = op->opcode == TFL_OP_MINIMUM;
    *lo = mn ? (*lo < v ? *lo : v) : (*lo > v ? *lo : v);
    *hi = mn ? (*hi < v ? *hi : v) : (*hi > v ? *hi : v);
    return true;
}

int cc_fuse_narrow(lower_ctx *c, const graph_op *op, char *why, size_t why_size)
{
    cc_model *m = c->m;
    const graph *g = c->g;
    int64_t lo = INT32_MIN, hi = INT32_MAX;
    if (!narrow_step(g, op, &lo, &hi)) return cc_reason(why, why_size, "no int32 clamp to a constant"), 1;
    fuse_site fs;
    if (fuse_check(c, op, 32, &fs, why, why_size)) return 1;
    /* the chain: the ops right after this one, each reading the last */
    int32_t last = c->op_index, t = op->out[0];
    const graph_op *end = NULL;
    while (!end) {
        int32_t j = last + 1;
        if (j >= g->n_ops || cc_readers(c, t) != 1 || g->tensors[t].is_variable)
            return cc_reason(why, why_size, "no CAST ends the clamps"), 1;
        for (int32_t i = 0; i < g->n_outputs; i++)
            if (g->outputs[i] == t) return cc_reason(why, why_size, "a clamp's output is a graph output"), 1;
        if (buf_shared(m, g, t)) return cc_reason(why, why_size, "a clamp's output buffer is shared"), 1;
        const graph_op *n = &g->ops[j];
        if (n->n_in < 1 || n->in[0] != t) return cc_reason(why, why_size, "no CAST ends the clamps"), 1;
        if (n->opcode == TFL_OP_CAST) {
            end = n;
        } else if (!narrow_step(g, n, &lo, &hi)) {
            return cc_reason(why, why_size, "no CAST ends the clamps"), 1;
        }
        last = j;
        t = n->out[0];
    }
    if (end->n_in != 1 || end->n_out != 1 || t < 0) return cc_reason(why, why_size, "a CAST of other arity"), 1;
    const graph_tensor *y = &g->tensors[t];
    uint8_t bits = y->dtype == GRAPH_I8 ? 8 : y->dtype == GRAPH_I16 ? 16 : 0;
    if (!bits || y->is_variable) return cc_reason(why, why_size, "the CAST is not to int8 or int16"), 1;
    int64_t tlo = bits == 8 ? INT8_MIN : INT16_MIN, thi = bits == 8 ? INT8_MAX : INT16_MAX;
    if (lo < tlo || hi > thi)
        return cc_reason(why, why_size, "the clamp [%lld, %lld] leaves the CAST's type", (long long)lo,
                         (long long)hi), 1;
    int32_t ba = m->buf_of[t];
    if (ba < 0 || m->bufs[ba].temp) return cc_reason(why, why_size, "the CAST's output has no buffer of its own"), 1;
    /* P: one elementwise op (its value reaches the output stage as it is)
     * writing its whole output, dense NHWC */
    int32_t k = -1;
    for (int32_t i = fs.k0; i < fs.k1; i++)
        if (on_buf(&c->e->ops[i].ofm, fs.bp)) {
            if (k >= 0) return cc_reason(why, why_size, "its producer writes in parts"), 1;
            k = i;
        }
    eu_op o = c->e->ops[k];
    if (o.kind != SIM_K_ELEMENTWISE) return cc_reason(why, why_size, "its producer is no elementwise op"), 1;
    const eu_fm *f = &o.ofm;
    if (f->off || f->c0 || f->format || f->tile_h || f->full_w != f->w || f->full_c != f->c ||
        (uint64_t)f->h * f->w * f->c != graph_tensor_elems(y))
        return cc_reason(why, why_size, "its producer writes no whole dense output"), 1;
    cc_fm_dense(&o.ofm, ba, 0, f->h, f->w, f->c, bits, 0);
    o.act_min = (int32_t)lo;
    o.act_max = (int32_t)hi;
    eu_block_req r;
    cc_block_req(m->opt.sys.variant, &o, &r);
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    if (cc_block_choose_kept(m, &r, &o.blk, &e2) != NPUC_OK)
        return cc_reason(why, why_size, "no block for its producer's narrow output: %s", e2.msg), 1;
    c->e->ops[k] = o;
    /* the chain joins P; its tensors keep no bytes of their own */
    for (int32_t j = c->op_index; j <= last; j++) {
        int32_t in = g->ops[j].in[0], b = m->buf_of[in];
        if (b >= 0 && b != ba) m->bufs[b].size = 0;
        m->buf_of[in] = ba;
        m->ops[j].fused_into = fs.p;
    }
    return 0;
}

/* The clip form: an int8 / int16 MINIMUM or MAXIMUM of P's output (input
 * 0) and a constant scalar k of the type (TensorFlow's clip_by_value on a
 * quantized tensor). TFLite compares the raw values, so its output for
 * input v is min(v, k) or max(v, k), a clamp of P's value: fused as the
 * clamp form (fuse_clamp checks it for every value of the type against
 * that table). 0 (fused), 1 (not: reason in why) or an error. */
int cc_fuse_clip(lower_ctx *c, const graph_op *op, char *why, size_t why_size, npuc_err *err)
{
    const graph *g = c->g;
    graph_dtype dt = op->n_in > 0 && op->in[0] >= 0 ? g->tensors[op->in[0]].dtype : GRAPH_I32;
    uint8_t bits = dt == GRAPH_I8 ? 8 : dt == GRAPH_I16 ? 16 : 0;
    int32_t kv;
    if (!bits || !const_clamp(g, op, dt, &kv))
        return cc_reason(why, why_size, "no int8 / int16 clamp to a constant scalar"), 1;
    fuse_site fs;
    if (fuse_check(c, op, bits, &fs, why, why_size)) return 1;
    int32_t n = bits == 8 ? 256 : 65536;
    int32_t *ref = malloc(sizeof *ref * (size_t)n);
    if (!ref) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    bool mn = op->opcode == TFL_OP_MINIMUM;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = i - n / 2;
        ref[i] = mn ? (v < kv ? v : kv) : (v > kv ? v : kv);
    }
    int rc = fuse_clamp(c, op, &fs, ref, n, why, why_size);
    free(ref);
    return rc;
}

static int lower_act16(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (!in || !out || op->n_out != 1) return cc_cpu(c, "missing input or output");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (op->n_in != 1) return cc_cpu(c, "%d inputs", op->n_in);
    if (!cc_has_q1(in) || !cc_has_q1(out) || in->q.n != 1 || out->q.n != 1)
        return cc_cpu(c, "tensors are not quantized per tensor");
    if (c->m->buf_of[op->in[0]] < 0) return cc_cpu(c, "constant input");
    if (graph_tensor_elems(in) != graph_tensor_elems(out)) return cc_cpu(c, "input and output sizes differ");
    uint32_t h, w, ch;
    if (!cc_hwc_of(out, &h, &w, &ch)) return cc_cpu(c, "tensor too large for one NPU op");
    form f;
    int rc = choose_form(c, op, &f);
    if (!rc) rc = verify_form(c, op, &f, err);
    if (rc) return rc;
    fuse_site fs;
    if (in->dtype == GRAPH_I16 && out->dtype == GRAPH_I16 && !fuse_check(c, op, 16, &fs, why, sizeof why)) {
        /* the clamp form, where the activation is a clamp of the producer's value */
        int32_t *ref = malloc(65536 * sizeof *ref);
        if (!ref) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        npuc_err e2;
        memset(&e2, 0, sizeof e2);
        bool fused = !cc_reference_all(c, op, in, out, ref, &e2) && !fuse_clamp(c, op, &fs, ref, 65536, why, sizeof why);
        free(ref);
        if (fused) return 0;
    }
    cc_epoch *e = c->e;
    int32_t n_eu0 = e->n_eu, n_bufs0 = c->m->n_bufs;
    if ((rc = emit_form(c, op, &f, h, w, ch, err))) return rc;
    for (int32_t k = n_eu0; k < e->n_eu && rc == NPUC_OK; k++) rc = cc_block_or_cpu(c, &e->ops[k], err);
    if (rc) {
        e->n_eu = n_eu0;
        c->m->n_bufs = n_bufs0;
    }
    return rc;
}

/* ------------------------------------------------------------ int8 LUTs */

static int lower_lut8(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (in->dtype != GRAPH_I8 || out->dtype != GRAPH_I8)
        return cc_cpu(c, "%s -> %s (NPU lookup tables are built for int8)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    for (int32_t i = 1; i < op->n_in; i++) {
        const graph_tensor *x = cc_tin(c, op, i);
        if (x && !x->data) return cc_cpu(c, "input %d is not constant", i);
    }
    if (graph_tensor_elems(in) != graph_tensor_elems(out)) return cc_cpu(c, "input and output sizes differ");
    uint32_t h, w, ch;
    if (!cc_hwc_of(out, &h, &w, &ch)) return cc_cpu(c, "tensor too large for one NPU op");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    int32_t y[256];
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    int rc = cc_reference_all(c, op, in, out, y, &e2);
    if (rc && op->opcode == TFL_OP_RSQRT)
        return cc_cpu(c, "codes below the zero point %d are negative, where the reference fails at run time "
                         "and a lookup table cannot", (int)in->q.zero_point[0]);
    if (rc) return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    char fwhy[CC_WHY_SIZE];
    /* one check for both forms: adding the LUT below changes nothing it reads */
    fuse_site fs;
    bool site = !fuse_check(c, op, 8, &fs, fwhy, sizeof fwhy);
    if (site && !fuse_clamp(c, op, &fs, y, 256, fwhy, sizeof fwhy)) return 0;
    int8_t table[256];
    for (int i = 0; i < 256; i++) table[i] = (int8_t)y[i];
    int32_t li;
    if ((rc = cc_add_lut(c, table, 256, &li, err))) return rc;
    if (site && (rc = fuse_lut(c, op, &fs, li, fwhy, sizeof fwhy, err)) != 1) return rc;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_fm_whole(c, op->in[0], h, w, ch, &o->ifm);
    cc_fm_whole(c, op->out[0], h, w, ch, &o->ofm);
    cc_lut_op(o, li);
    return cc_block_or_cpu(c, o, err);
}

static int lower_pointwise(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    return takes_int16(c, op) ? lower_act16(c, op, err) : lower_lut8(c, op, err);
}

static const lower_impl lut_ops[] = {
    {TFL_OP_LOGISTIC, lower_pointwise},
    {TFL_OP_TANH, lower_pointwise},
    {TFL_OP_HARD_SWISH, lower_pointwise},
    {TFL_OP_LEAKY_RELU, lower_pointwise},
    {TFL_OP_RELU, lower_pointwise},
    {TFL_OP_RELU6, lower_pointwise},
    {TFL_OP_RELU_N1_TO_1, lower_pointwise},
    {TFL_OP_RELU_0_TO_1, lower_pointwise},
    {TFL_OP_QUANTIZE, lower_pointwise},
    /* int8 value maps ABS, ELU, RSQRT (inputs the reference rejects, a
     * negative RSQRT, keep it on the CPU; int16: ABS as ELEMENTWISE ABS,
     * the other two have no int16 form), and
     * the ops whose reference is float only (EXP, LOG, NEG, SQRT, SQUARE:
     * the reason says so) */
    {TFL_OP_ABS, lower_pointwise},
    {TFL_OP_ELU, lower_pointwise},
    {TFL_OP_RSQRT, lower_pointwise},
    {TFL_OP_EXP, lower_lut8},
    {TFL_OP_LOG, lower_lut8},
    {TFL_OP_NEG, lower_lut8},
    {TFL_OP_SQRT, lower_lut8},
    {TFL_OP_SQUARE, lower_lut8},
};

LOWER_OPS_TABLE(lower_ops_lut, lut_ops)
