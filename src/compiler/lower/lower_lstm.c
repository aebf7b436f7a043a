/* lower_lstm: UNIDIRECTIONAL_SEQUENCE_LSTM with int8 or int16 activations
 * (the reference kernel's lstm_s8 / lstm_s16, k_op_lstm.c: TensorFlow Lite
 * Micro's integer cell) as a sequence of NPU operations, one group per time step
 * (docs/kernels-lstm.md, "On the NPU"). The multipliers are the reference's
 * own: the op is prepared on the reference interpreter at compile time and
 * its blob read back (interp_op_prepared).
 *
 * Per step t, all B rows at once (batch-major rows are strided by T):
 *
 *   1  CONV  x_t x [W_f W_i W_o W_g] + bias -> GX (int16, 4S); it
 *            does not depend on the state, so one op computes it for G
 *            steps ahead (the largest divisor of T whose results fit
 *            LSTM_GROUP_BYTES; 1 with --optimise size), reading the
 *            weights T / G times
 *   2  CONV  h x [R_f R_i R_o R_g]          -> GR (int16, 4S)
 *   3  ADD   GX + GR on the f, i, o slices, x 3, built-in SIGMOID -> G
 *  (4) POOL  1x1, G's sigmoid slices clamped to [f(-3*32768), f(3*32767)]
 *   5  ADD   GX + GR on the g slice, x 3, built-in TANH (the cell
 *            activation) -> G
 *  (6) POOL  the same clamp for the g slice, when it is not a no-op
 *   7  MUL   f * c      -> T1   (TFLite's multiplier, TFL rounding)
 *   8  MUL   i * g      -> T2
 *   9  ADD   T1 + T2    -> c    (saturating, the cell clip as the clamp)
 *  10  POOL  1x1 c, the kernel's tanh input scale (NATURAL), TANH -> T3
 *  11  MUL   T3 * o     -> output row t (hidden zero point and clamp)
 *
 * Ops 3 .. 11 work in place in GR's bytes (the gates over GR's slots, T1
 * and T3 in f's slot, T2 in i's). h for step t > 0 is output row t - 1 (the
 * same bytes the kernel writes to the hidden state); after the last step
 * one copy writes output row T - 1 into the hidden-state tensor. The
 * weights of steps 1 .. T-1 are step 0's (one weight stream per FC in
 * flash; SRAM copies of up to LSTM_RESIDENT_BYTES are loaded once for the
 * whole sequence).
 *
 * Split form (G = 1 only): per step the gates i, g, f, o one at a time, each
 * from its own input and recurrent FC (S channels, the stacked FCs' slices),
 * its ADD and clamp in place; i * g once both exist, f * c and the new cell
 * after f, tanh(c) and h after o: three [B][S] int16 slots of scratch
 * instead of [B][4S] x 2, 17-21 ops per step. --optimise size takes it;
 * with --optimise performance the stacked form, and the schedule search
 * compiles the split one too (cc_options.lstm_alt, flagged by
 * cc_model.lstm_forms) and its rule picks.
 *
 * Why it is exact (every step of k_op_lstm.c's step_q):
 *  - FCs: the NPU's TFL rounding with s = 31 - shift is TFLite's
 *    MultiplyByQuantizedMultiplier as long as the int32 accumulator does
 *    not wrap and, for a left shift, acc * 2^shift fits int32 (TFLite shifts
 *    in int32, the NPU multiplies exactly): checked per channel from the
 *    weights, the bias and the widest input range; the int16 result
 *    saturates as sat16. int16 inputs: TFLite's int64 form with the 16-bit
 *    reduced multiplier is the NPU's NATURAL rounding (as for every int16
 *    conv), the sum checked to stay within the 40-bit accumulator. The
 *    scale records are compared with the blob's.
 *  - gates: the NPU adds the two int16 parts exactly and scales by 3 (the
 *    Q3.12 -> 1/0x3000 input of the built-in function) with no saturation
 *    between; TFLite saturates the sum to int16 first. Checked at compile
 *    time for every sum of two int16 values: f(3 * sat16(s)) equals
 *    f(3 * s) clamped to f's values at the int16 limits (the clamp is
 *    emitted as its own 1x1 POOL, as Vela does, only where it changes
 *    something).
 *  - cell and hidden products: int16 x int16 products below 2^30 rescaled
 *    with TFLite's multiplier (right shifts only, else CPU), the sum of two
 *    int16 values exact before the clamp.
 *  - tanh(c): the kernel's input scaling (c * m + round) >> s is NATURAL
 *    rounding; checked for all 65536 cell values.
 * Anything else (float, weight zero points, an accumulator that could
 * wrap, ...) stays on the CPU with the reason. */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_activation.h"
#include "kernels/k_common.h"
#include "kernels/k_op_lstm.h"
#include "sim/sim_rescale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IN_X = 0, IN_W = 1, IN_R = 5, IN_B = 12, IN_H = 18, IN_C = 19, N_IN = 24 };
enum { EW_MUL = 0, EW_ADD = 1 };
enum { POOL_AVG = 1 };

/* Weight copies in SRAM (both FCs together) up to this size are loaded once
 * and kept over all time steps; larger ones are copied again per step. */
#define LSTM_RESIDENT_BYTES 16384u

/* With --optimise performance, the int16 input-FC results of this many
 * bytes are computed ahead, for several time steps in one op (--optimise
 * size: one step at a time, the least scratch). */
#define LSTM_GROUP_BYTES 8192u

/* The most time steps one LSTM is unrolled into (about 11 NPU ops each). */
#define LSTM_MAX_STEPS 2048

/* Gate slots of the stacked FCs: sigmoid gates first, then the cell gate. */
static const int slot_gate[4] = {K_LSTM_GATE_FORGET, K_LSTM_GATE_INPUT, K_LSTM_GATE_OUTPUT, K_LSTM_GATE_CELL};
enum { SL_F = 0, SL_I = 1, SL_O = 2, SL_G = 3 };

/* ------------------------------------------------ the reference's blob */

/* Prepares op alone on the reference interpreter and copies its blob and
 * kind: 0, 1 (CPU, reason set: the reference rejects it or it is the float
 * kind) or an error. */
static int prepared_blob(lower_ctx *c, const graph_op *op, k_op_lstm_blob *b, uint32_t *kind, npuc_err *err)
{
    if (op->n_in != N_IN || op->n_out != 1 || op->out[0] < 0) return cc_cpu(c, "expected 24 inputs and 1 output");
    graph *t = graph_new("lstm");
    if (!t) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t ins[N_IN];
    bool ok = true;
    for (int32_t i = 0; i < N_IN && ok; i++) {
        ins[i] = -1;
        const graph_tensor *x = cc_tin(c, op, i);
        if (!x) continue;
        ins[i] = graph_add_tensor(t, x->name, x->dtype, x->rank, x->shape, x->data);
        ok = ins[i] >= 0 && !graph_set_quant(t, ins[i], x->q.n, x->q.scale, x->q.zero_point, x->q.axis);
    }
    const graph_tensor *y = cc_tout(c, op, 0);
    int32_t to = ok ? graph_add_tensor(t, y->name, y->dtype, y->rank, y->shape, NULL) : -1;
    ok = ok && to >= 0 && !graph_set_quant(t, to, y->q.n, y->q.scale, y->q.zero_point, y->q.axis);
    for (int32_t i = 0; i < N_IN && ok; i++)
        if (ins[i] >= 0) t->tensors[ins[i]].is_variable = cc_tin(c, op, i)->is_variable;
    int32_t oi = ok ? graph_add_op(t, op->opcode, &op->opt, N_IN, ins, 1, &to) : -1;
    if (oi < 0 || ins[IN_X] < 0 || graph_set_io(t, 1, &ins[IN_X], 1, &to)) {
        graph_free(t);
        return ins[IN_X] < 0 ? cc_cpu(c, "no input tensor") : npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    t->ops[oi].version = op->version;
    interp *ip = NULL;
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    int rc = interp_create(t, NULL, &ip, &e2);
    if (rc) {
        graph_free(t);
        if (rc == NPUC_E_NOMEM) return npuc_errf(err, rc, "%s", e2.msg);
        return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    }
    uint32_t size = 0;
    const void *params = NULL;
    rc = interp_op_prepared(ip, oi, kind, &params, &size, NULL, NULL);
    if (!rc && (*kind == K_OP_LSTM_S8 || *kind == K_OP_LSTM_S16) && size == sizeof *b) memcpy(b, params, sizeof *b);
    interp_free(ip);
    graph_free(t);
    if (rc) return npuc_errf(err, rc, "internal: the prepared LSTM is not available");
    if (*kind != K_OP_LSTM_S8 && *kind != K_OP_LSTM_S16) return cc_cpu(c, "float LSTM");
    if (size != sizeof *b) return npuc_errf(err, NPUC_E_INVALID, "internal: LSTM blob of %u bytes", size);
    return 0;
}

/* ------------------------------------------------------ exactness checks */

/* The built-in function of the NPU model at scaled input v (docs/ethos-u.md
 * 5.7: TFLite's int16 tables, the input limited to +-2^24). */
static int32_t builtin(uint8_t func, int64_t v)
{
    int32_t x = v < -(1 << 24) ? -(1 << 24) : v > (1 << 24) ? (1 << 24) : (int32_t)v;
    return func == EU_ACT_TANH ? k_tanh_s16_value(x) : k_logistic_s16_value(x);
}

/* The gate non-linearity: TFLite computes f(3 * sat16(gx + gr)), the NPU
 * f(3 * (gx + gr)) then (optionally) clamps to [*lo, *hi]. True when the
 * two agree for every sum of two int16 values; *clamp says whether the
 * clamp changes any value. */
static bool gate_exact_run(uint8_t func, int32_t *lo, int32_t *hi, bool *clamp)
{
    *lo = builtin(func, 3 * (int64_t)INT16_MIN);
    *hi = builtin(func, 3 * (int64_t)INT16_MAX);
    *clamp = false;
    if (*lo > *hi) return false;
    for (int32_t s = 2 * INT16_MIN; s <= 2 * INT16_MAX; s++) {
        /* the saturated sum's value: *lo or *hi outside int16, else the
         * sum's own (the function worked out once per sum) */
        int32_t raw = builtin(func, 3 * (int64_t)s);
        int32_t ref = s < INT16_MIN ? *lo : s > INT16_MAX ? *hi : raw;
        if (raw < *lo || raw > *hi) *clamp = true;
        int32_t npu = raw < *lo ? *lo : raw > *hi ? *hi : raw;
        if (npu != ref) return false;
    }
    return true;
}

/* gate_exact_run, a function of func alone: kept with c->refs. */
static bool gate_exact(const lower_ctx *c, uint8_t func, int32_t *lo, int32_t *hi, bool *clamp)
{
    const int32_t key[3] = {1, func, 0};
    int32_t v[4];
    if (!cc_check_get(c, key, v)) {
        bool cl = false;
        v[0] = gate_exact_run(func, &v[1], &v[2], &cl);
        v[3] = cl;
        cc_check_put(c, key, v);
    }
    *lo = v[1];
    *hi = v[2];
    *clamp = v[3] != 0;
    return v[0] != 0;
}

/* tanh(cell): the kernel's k_tanh_s16 with the blob's input scaling
 * against a 1x1 AVERAGE pool with global scale (m, s), NATURAL rounding,
 * then the built-in TANH, for all 65536 cell values. */
static bool tanh_exact_run(const k_op_lstm_blob *b, uint32_t *m, uint8_t *s)
{
    int32_t mm = b->tanh_mult, ss = b->tanh_shift;
    if (mm == 0) {
        if (ss < 0 || ss > 13) return false;
        mm = 3 << ss;
        ss = 0;
    }
    if (mm < 0 || mm > 65535 || ss < 0 || ss > 31) return false;
    *m = (uint32_t)mm;
    *s = (uint8_t)ss;
    const k_sigmoid_s16_params tp = {b->tanh_mult, b->tanh_shift};
    /* the kernel on a run of cell values per call (its checks and set-up
     * once a run, not once a value: the same values, a pure function) */
    enum { RUN = 1024 };   /* divides the 65536 values */
    int16_t in[RUN], ref[RUN];
    for (int32_t v0 = INT16_MIN; v0 <= INT16_MAX; v0 += RUN) {
        for (int32_t j = 0; j < RUN; j++) in[j] = (int16_t)(v0 + j);
        if (k_tanh_s16(&tp, in, ref, RUN) != K_OK) return false;
        for (int32_t j = 0; j < RUN; j++)
            if (builtin(EU_ACT_TANH, sim_rescale(v0 + j, *m, *s, EU_ROUND_NATURAL)) != ref[j]) return false;
    }
    return true;
}

/* tanh_exact_run, a function of the blob's tanh_mult and tanh_shift alone:
 * kept with c->refs. */
static bool tanh_exact(const lower_ctx *c, const k_op_lstm_blob *b, uint32_t *m, uint8_t *s)
{
    const int32_t key[3] = {2, b->tanh_mult, b->tanh_shift};
    int32_t v[4];
    if (!cc_check_get(c, key, v)) {
        uint32_t mm = 0;
        uint8_t ss = 0;
        v[0] = tanh_exact_run(b, &mm, &ss);
        v[1] = (int32_t)mm;
        v[2] = ss;
        v[3] = 0;
        cc_check_put(c, key, v);
    }
    *m = (uint32_t)v[1];
    *s = (uint8_t)v[2];
    return v[0] != 0;
}

/* A TFLite (m, shift) of an int16 x int16 product: right shifts only (the
 * product reaches 2^30, so TFLite's int32 left shift could wrap). */
static bool product_scale(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs)
{
    return shift <= 0 && m >= 0 && cc_hw_scale_tfl(m, shift, hm, hs);
}

/* ------------------------------------------------------------- the plan */

static uint32_t group_steps(uint32_t T, uint64_t step_bytes, uint64_t budget);

typedef struct fc_part {
    graph_tensor w, bias, out;    /* stand-ins the weight encoder reads */
    float *scale;
    int64_t *zp;
    int8_t *wdata;
    int64_t *bdata;
    wop p;
} fc_part;

typedef struct lstm_plan {
    k_op_lstm_blob b;
    bool wide;                    /* lstm_s16: int16 activations, int64 biases */
    uint32_t es;                  /* bytes per activation element (1 or 2) */
    int32_t B, T, I, S;
    int32_t tx, th, tc, ty;       /* tensors: input, hidden state, cell state, output */
    /* the input and the recurrent FC: one stacked FC of the four gates
     * each (fx[0], fh[0]), or with `split` one per gate slot */
    fc_part fx[4], fh[4];
    bool split;
    uint32_t G;                   /* time steps per input-FC op */
    int32_t glo[2], ghi[2];       /* gate clamps: sigmoid slots, cell slot */
    bool gclamp[2];
    uint8_t gfunc[2];
    uint32_t tanh_m;
    uint8_t tanh_s;
    uint32_t fc_m, ic_m, oh_m;
    uint8_t fc_s, ic_s, oh_s;
} lstm_plan;

static void fc_free(fc_part *f)
{
    free(f->scale);
    free(f->zp);
    free(f->wdata);
    free(f->bdata);
}

/* The NPU pair of an FC multiplier: TFL rounding for int8 inputs; for
 * int16 inputs TFLite's 16-bit reduced multiplier with one rounding
 * (MultiplyByQuantizedMultiplier on int64), NATURAL rounding, as the int16
 * convolutions (docs/ethos-u.md 5.6). */
static bool fc_scale(bool wide, int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs)
{
    if (!wide) return cc_hw_scale_tfl(m, shift, hm, hs);
    return shift <= 14 && cc_hw_scale_natural16(m, shift, hm, hs);
}

/* The stacked FC of the gates in slots k0 .. k0+nk-1 (all four: F, I, O,
 * G; or one) reading `in` (weights: inputs w0 .. w0+3 of op, biases
 * b0 .. b0+3 or none): weights [nk S][D], per-channel scales of each
 * gate's tensor, the Q3.12 output. 0, 1 (CPU, reason set) or an error. */
static int fc_build(lower_ctx *c, const graph_op *op, const lstm_plan *pl, fc_part *f, const graph_tensor *in,
                    int32_t w0, int32_t b0, const int32_t *mult, const int32_t *shift, const char *what, int k0,
                    int nk, npuc_err *err)
{
    const int32_t S = pl->S, D = w0 == IN_W ? pl->I : pl->S, O = nk * S;
    memset(f, 0, sizeof *f);
    f->scale = malloc(sizeof *f->scale * (size_t)O);
    f->zp = calloc((size_t)O, sizeof *f->zp);
    f->wdata = malloc((size_t)O * (size_t)D);
    f->bdata = b0 >= 0 ? calloc((size_t)O, sizeof *f->bdata) : NULL;
    if (!f->scale || !f->zp || !f->wdata || (b0 >= 0 && !f->bdata)) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    /* the widest |x - zp| the input can take */
    const int32_t zx = cc_zp(in), qhi = pl->wide ? INT16_MAX : INT8_MAX;
    const double xmax = (double)(qhi - zx > zx + qhi + 1 ? qhi - zx : zx + qhi + 1);
    for (int k = 0; k < nk; k++) {
        const int g = slot_gate[k0 + k];
        const graph_tensor *w = cc_tin(c, op, w0 + g), *bt = b0 >= 0 ? cc_tin(c, op, b0 + g) : NULL;
        if (!w || !w->data || w->dtype != GRAPH_I8 || !cc_has_q1(w) || graph_tensor_elems(w) != (size_t)S * (size_t)D)
            return cc_cpu(c, "%s weights of gate %d are not constant int8 [%d,%d]", what, g, S, D);
        if (b0 >= 0 && (!bt || !bt->data || bt->dtype != (pl->wide ? GRAPH_I64 : GRAPH_I32) ||
                        graph_tensor_elems(bt) != (size_t)S))
            return cc_cpu(c, "bias of gate %d is not a constant %s [%d]", g, pl->wide ? "int64" : "int32", S);
        if (cc_zp(w) != 0) return cc_cpu(c, "%s weights of gate %d have zero point %d", what, g, cc_zp(w));
        /* int8: the NPU's TFL rounding is TFLite's (m, shift) when the
         * int32 accumulator never wraps and acc * 2^shift fits int32;
         * int16: TFLite's int64 sum within the NPU's 40-bit accumulator */
        const int32_t ls = shift[g] > 0 ? shift[g] : 0;
        const double limit = pl->wide ? ldexp(1.0, 39) - 1.0 : ldexp(1.0, 31 - ls) - 1.0;
        memcpy(f->wdata + (size_t)k * S * D, w->data, (size_t)S * (size_t)D);
        for (int32_t u = 0; u < S; u++) {
            const int8_t *wr = (const int8_t *)w->data + (size_t)u * D;
            /* summed as integers (vectorised), then converted: every
             * partial sum is an integer far below 2^53, which a double
             * summing them one at a time holds exactly, so the same value */
            int64_t isum = 0;
            for (int32_t d0 = 0; d0 < D; d0 += 1 << 16) {
                /* 2^16 terms of at most 128 fit 32 bits */
                uint32_t part = 0;
                const int32_t d1 = D - d0 < (1 << 16) ? D : d0 + (1 << 16);
                for (int32_t d = d0; d < d1; d++) part += (uint32_t)abs(wr[d]);
                isum += part;
            }
            double sum = (double)isum;
            double bias = 0;
            if (b0 >= 0) {
                f->bdata[k * S + u] = pl->wide ? ((const int64_t *)bt->data)[u] : ((const int32_t *)bt->data)[u];
                bias = fabs((double)f->bdata[k * S + u]);
            }
            if (sum * xmax + bias > limit)
                return cc_cpu(c, "%s FC of gate %d, unit %d: the accumulator could reach %.0f, beyond what %s keeps "
                              "exact (%.0f)", what, g, u, sum * xmax + bias,
                              pl->wide ? "the NPU's 40-bit accumulator" : "TFLite's int32 arithmetic", limit);
            f->scale[k * S + u] = w->q.scale[0];
        }
        uint32_t hm;
        uint8_t hs;
        if (!fc_scale(pl->wide, mult[g], shift[g], &hm, &hs))
            return cc_cpu(c, "%s FC of gate %d: rescale (%d, %d) outside the NPU's range", what, g, mult[g], shift[g]);
    }
    f->w.dtype = GRAPH_I8;
    f->w.q.n = O;
    f->w.q.scale = f->scale;
    f->w.q.zero_point = f->zp;
    f->bias.dtype = GRAPH_I64;   /* the encoder reads int32 or int64 biases */
    f->bias.data = f->bdata;
    static float q312 = 1.0f / 4096.0f;
    static int64_t zero = 0;
    f->out.dtype = GRAPH_I16;
    f->out.q.n = 1;
    f->out.q.scale = &q312;
    f->out.q.zero_point = &zero;
    f->p.in = in;
    f->p.w = &f->w;
    f->p.bias = b0 >= 0 ? &f->bias : NULL;
    f->p.out = &f->out;
    f->p.O = (uint32_t)O;
    f->p.I = (uint32_t)D;
    f->p.kh = f->p.kw = 1;
    f->p.wdata = f->wdata;
    f->p.layout = 0;
    f->p.fc_float_product = true;
    /* the records the encoder will write must carry the reference's
     * multipliers exactly */
    sim_scale_rec *recs = calloc((size_t)O, sizeof *recs);
    if (!recs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = 0;
    if (!cc_weighted_scales(&f->p, recs, c->why, CC_WHY_SIZE)) rc = 1;
    for (int32_t ch = 0; ch < O && !rc; ch++) {
        const int g = slot_gate[k0 + ch / S];
        uint32_t hm;
        uint8_t hs;
        fc_scale(pl->wide, mult[g], shift[g], &hm, &hs);
        if (recs[ch].scale != hm || recs[ch].shift != hs)
            rc = cc_cpu(c, "%s FC of gate %d: the encoder's scale differs from the reference's", what, g);
    }
    free(recs);
    return rc;
}

/* Checks everything and fills the plan: 0, 1 (CPU, reason set) or an error. */
static int plan_lstm(lower_ctx *c, const graph_op *op, lstm_plan *pl, npuc_err *err)
{
    uint32_t kind = 0;
    int rc = prepared_blob(c, op, &pl->b, &kind, err);
    if (rc) return rc;
    pl->wide = kind == K_OP_LSTM_S16;
    pl->es = pl->wide ? 2u : 1u;
    const k_op_lstm_blob *b = &pl->b;
    pl->B = b->batch;
    pl->T = b->steps;
    pl->I = b->input_dim;
    pl->S = b->state_dim;
    pl->tx = op->in[IN_X];
    pl->th = op->in[IN_H];
    pl->tc = op->in[IN_C];
    pl->ty = op->out[0];
    if (pl->T > LSTM_MAX_STEPS) return cc_cpu(c, "%d time steps (at most %d are unrolled)", pl->T, LSTM_MAX_STEPS);
    if (pl->B > CC_DIM_MAX || pl->I > CC_DIM_MAX || 4 * pl->S > CC_DIM_MAX)
        return cc_cpu(c, "batch %d, input %d or 4 x units %d above %d", pl->B, pl->I, 4 * pl->S, CC_DIM_MAX);
    const int32_t *bo = c->m->buf_of;
    if (bo[pl->tx] < 0 || bo[pl->th] < 0 || bo[pl->tc] < 0 || bo[pl->ty] < 0)
        return cc_cpu(c, "a constant input, state or output");
    for (int g = 0; g < 4; g++)
        if (b->in_wzp[g] || b->rec_wzp[g]) return cc_cpu(c, "weights with zero points (the NPU takes symmetric weights)");
    if (!product_scale(b->fc_mult, b->fc_shift, &pl->fc_m, &pl->fc_s) ||
        !product_scale(b->ic_mult, b->ic_shift, &pl->ic_m, &pl->ic_s) ||
        !product_scale(b->oh_mult, b->oh_shift, &pl->oh_m, &pl->oh_s))
        return cc_cpu(c, "a cell or hidden rescale with a left shift (TFLite's int32 product could wrap)");
    pl->gfunc[0] = EU_ACT_SIGMOID;
    pl->gfunc[1] = b->cell_act == K_LSTM_ACT_TANH ? EU_ACT_TANH : EU_ACT_SIGMOID;
    for (int k = 0; k < 2; k++)
        if (!gate_exact(c, pl->gfunc[k], &pl->glo[k], &pl->ghi[k], &pl->gclamp[k]))
            return cc_cpu(c, "the gate non-linearity of the built-in function is not exact");
    if (!tanh_exact(c, b, &pl->tanh_m, &pl->tanh_s))
        return cc_cpu(c, "tanh of the cell state: input scaling (%d, %d) differs on the NPU", b->tanh_mult,
                      b->tanh_shift);
    const graph_tensor *x = &c->g->tensors[pl->tx], *h = &c->g->tensors[pl->th];
    /* the input FC of G steps at once (it does not depend on the state):
     * its weights are read T / G times instead of T times */
    const uint64_t gbytes = 8u * (uint64_t)pl->B * (uint64_t)pl->S;
    pl->G = group_steps((uint32_t)pl->T, gbytes, c->m->opt.optimise == CC_OPT_SIZE ? 0 : LSTM_GROUP_BYTES);
    /* one step per input FC: the stacked form (two FCs per step), or the
     * split one (eight FCs, a third of the scratch): --optimise size takes
     * the split form, performance the stacked one and the search weighs the
     * split one too (cc.c, lstm_alt) */
    if (pl->G == 1) c->m->lstm_forms = true;
    pl->split = pl->G == 1 && ((c->m->opt.optimise == CC_OPT_SIZE) != c->m->opt.lstm_alt);
    const int nfc = pl->split ? 4 : 1, nk = pl->split ? 1 : 4;
    for (int k = 0; k < nfc; k++)
        if ((rc = fc_build(c, op, pl, &pl->fx[k], x, IN_W, IN_B, b->in_mult, b->in_shift, "input", k * nk, nk,
                           err)) ||
            (rc = fc_build(c, op, pl, &pl->fh[k], h, IN_R, -1, b->rec_mult, b->rec_shift, "recurrent", k * nk, nk,
                           err)))
            return rc;
    return 0;
}

/* ------------------------------------------------------------- emitting */

/* rows x 1 x ch of `bits` elements at byte off of buffer buf, rows `pitch`
 * bytes apart. */
static eu_fm fm_rows(int32_t buf, uint64_t off, uint32_t rows, uint32_t ch, uint64_t pitch, uint8_t bits, int32_t zp)
{
    eu_fm f;
    cc_fm_dense(&f, buf, off, rows, 1, ch, bits, zp);
    f.sy = pitch;
    f.sx = pitch;
    return f;
}

static eu_op *new_op(lower_ctx *c, sim_op_kind kind, uint8_t mode, const eu_fm *ifm, const eu_fm *ofm, npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return NULL;
    o->kind = kind;
    o->mode = mode;
    o->ifm = *ifm;
    o->ofm = *ofm;
    o->ifm2.buf = -1;
    cc_global_scale(o, 1, 0, EU_ROUND_TFL);
    o->flex = false;
    return o;
}

/* A binary elementwise op a (mode) b -> out: 0, 1 (CPU) or an error. */
static int ew_op(lower_ctx *c, uint8_t mode, const eu_fm *a, const eu_fm *b, const eu_fm *out, uint32_t scale,
                 uint8_t shift, uint8_t func, int32_t lo, int32_t hi, npuc_err *err)
{
    eu_op *o = new_op(c, SIM_K_ELEMENTWISE, mode, a, out, err);
    if (!o) return err->code;
    o->ifm2 = *b;
    o->ifm2_tensor = true;
    if (mode == EW_ADD) {
        /* both operands enter as x * 2^14 (Vela's set-up for the LSTM) */
        o->has_opab = true;
        o->ifm_scale_mode = 0;
        o->opa_scale = 1u << 14;
        o->opa_shift = 0;
        o->opb_scale = 1u << 14;
    }
    o->ofm_scale = scale;
    o->ofm_shift = shift;
    o->act_func = func;
    o->act_min = lo;
    o->act_max = hi;
    return cc_block_or_cpu(c, o, err);
}

/* A 1x1 AVERAGE pool in -> out with global scale (m, s): 0, 1 or error. */
static int pool_op(lower_ctx *c, const eu_fm *in, const eu_fm *out, uint32_t m, uint8_t s, uint8_t round,
                   uint8_t func, int32_t lo, int32_t hi, npuc_err *err)
{
    eu_op *o = new_op(c, SIM_K_POOL, POOL_AVG, in, out, err);
    if (!o) return err->code;
    o->ofm_scale = m;
    o->ofm_shift = s;
    o->round = round;
    o->act_func = func;
    o->act_min = lo;
    o->act_max = hi;
    return cc_block_or_cpu(c, o, err);
}

/* The stacked FC of f reading ifm into ofm (int16, 4S). First use (*first
 * < 0): block, weights and scales; *first, *n: its eu_ops (output-channel
 * chunks). Later uses copy those ops with the new IFM. When the first has
 * weight copies in SRAM: with `resident` the later uses read the same
 * copies (loaded once, kept over the whole sequence: their live range grows
 * to the last use), else each use gets its own copy, filled by DMA before
 * it. 0, 1 or an error. */
static int fc_op(lower_ctx *c, const fc_part *f, const eu_fm *ifm, const eu_fm *ofm, bool resident, int32_t *first,
                 int32_t *n, npuc_err *err)
{
    if (*first < 0) {
        eu_op *o = new_op(c, SIM_K_CONV, 0, ifm, ofm, err);
        if (!o) return err->code;
        o->pkf = false;   /* fully-connected weights stream depth-first, as Vela's */
        int32_t idx0 = (int32_t)(o - c->e->ops);
        int rc = cc_block_or_cpu(c, o, err);
        if (!rc) rc = cc_encode_weighted(c, o, &f->p, err);
        if (rc) return rc;
        *first = idx0;
        *n = c->e->n_eu - idx0;
        for (int32_t k = idx0; k < c->e->n_eu; k++) {
            /* the op's own fused activation does not apply: the Q3.12
             * pre-activation saturates to int16 */
            c->e->ops[k].act_min = INT16_MIN;
            c->e->ops[k].act_max = INT16_MAX;
            c->e->ops[k].flex = false;
        }
        return 0;
    }
    for (int32_t k = 0; k < *n; k++) {
        eu_op *x = cc_new_eu(c, err);
        if (!x) return err->code;
        int32_t me = (int32_t)(x - c->e->ops);
        *x = c->e->ops[*first + k];
        x->ifm = *ifm;
        if (x->wbuf >= 0 && resident) {
            c->m->bufs[x->wbuf].eu_last = me;
        } else if (x->wbuf >= 0) {
            uint64_t size = c->m->bufs[x->wbuf].size;
            int32_t wb = cc_temp_buf(c, size, err);
            if (wb < 0) return err->code;
            cc_buf *nb = &c->m->bufs[wb];
            nb->epoch = (int32_t)(c->e - c->m->epochs);
            nb->wcopy = true;
            nb->eu_first = me > 0 ? me - 1 : me;
            nb->eu_last = me;
            c->e->ops[me].wbuf = wb;
        }
    }
    return 0;
}

/* The SRAM the weight copies of the ops first .. first + n - 1 take. */
static uint64_t copy_bytes(const lower_ctx *c, int32_t first, int32_t n)
{
    uint64_t sum = 0;
    for (int32_t k = first; k < first + n && first >= 0; k++)
        if (c->e->ops[k].wbuf >= 0) sum += c->m->bufs[c->e->ops[k].wbuf].size;
    return sum;
}

/* The time steps whose input FC runs as one op: the largest divisor of T
 * whose int16 gate pre-activations fit LSTM_GROUP_BYTES (at least 1). */
static uint32_t group_steps(uint32_t T, uint64_t step_bytes, uint64_t budget)
{
    uint32_t g = 1;
    for (uint32_t d = 1; d <= T; d++)
        if (T % d == 0 && (uint64_t)d * step_bytes <= budget && d <= CC_DIM_MAX) g = d;
    return g;
}

/* The weight copies of the FC ops made so far stay in SRAM over the whole
 * sequence when they take at most LSTM_RESIDENT_BYTES together (decided
 * once step 0 has made them). */
static bool keep_copies(const lower_ctx *c, const int32_t *fx0, const int32_t *fxn, const int32_t *fh0,
                        const int32_t *fhn)
{
    uint64_t sum = 0;
    for (int k = 0; k < 4; k++) sum += copy_bytes(c, fx0[k], fxn[k]) + copy_bytes(c, fh0[k], fhn[k]);
    return sum <= LSTM_RESIDENT_BYTES;
}

/* One gate slot k (split form): GX -> gx, GR -> out, then out = f(3 (gx +
 * gr)) in place, clamped where that changes something. */
static int gate_op(lower_ctx *c, const lstm_plan *pl, int k, const eu_fm *x, const eu_fm *h, const eu_fm *gx,
                   const eu_fm *out, bool keep, int32_t *fx0, int32_t *fxn, int32_t *fh0, int32_t *fhn, npuc_err *err)
{
    const int f = k == SL_G ? 1 : 0;
    /* the input FC's OFM has x's shape: 1 (H) x B (W), the same bytes */
    eu_fm gxo;
    cc_fm_dense(&gxo, gx->buf, gx->off, 1, (uint32_t)pl->B, (uint32_t)pl->S, 16, 0);
    int rc = fc_op(c, &pl->fx[k], x, &gxo, keep, &fx0[k], &fxn[k], err);
    if (!rc) rc = fc_op(c, &pl->fh[k], h, out, keep, &fh0[k], &fhn[k], err);
    if (!rc) rc = ew_op(c, EW_ADD, gx, out, out, 3u << 29, 43, pl->gfunc[f], INT16_MIN, INT16_MAX, err);
    if (!rc && pl->gclamp[f])
        rc = pool_op(c, out, out, 1, 0, EU_ROUND_TFL, EU_ACT_NONE, pl->glo[f], pl->ghi[f], err);
    return rc;
}

static int emit_lstm(lower_ctx *c, const lstm_plan *pl, npuc_err *err)
{
    const k_op_lstm_blob *b = &pl->b;
    const uint32_t B = (uint32_t)pl->B, T = (uint32_t)pl->T, I = (uint32_t)pl->I, S = (uint32_t)pl->S;
    const uint32_t G = pl->G;
    const uint64_t g_pitch = 8u * (uint64_t)S;              /* a [B][4S] int16 row */
    const uint64_t gbytes = (uint64_t)B * g_pitch;
    const uint64_t sb = 2u * (uint64_t)B * S;               /* one gate slot, [B][S] int16 */
    /* stacked: GX of G steps and GR ([B][4S] each); split: one scratch of
     * three [B][S] slots (GX of one gate, and two gates) */
    int32_t s1 = cc_temp_buf(c, pl->split ? 3 * sb : (uint64_t)G * gbytes, err);
    int32_t s2 = s1 >= 0 && !pl->split ? cc_temp_buf(c, gbytes, err) : s1;
    if (s1 < 0 || s2 < 0) return err->code;
    const int32_t bx = c->m->buf_of[pl->tx], bh = c->m->buf_of[pl->th], bc = c->m->buf_of[pl->tc];
    const int32_t by = c->m->buf_of[pl->ty];
    const int32_t hzp = b->hidden_zp;
    /* rows of step t: time major [T][B][.], batch major [B][T][.]; bytes */
    const uint64_t es = pl->es;
    const uint8_t bits = (uint8_t)(8u * es);
    const uint64_t x_pitch = es * (b->time_major ? I : (uint64_t)T * I);
    const uint64_t y_pitch = es * (b->time_major ? S : (uint64_t)T * S);
    const uint64_t x_step = es * (b->time_major ? (uint64_t)B * I : I);
    const uint64_t y_step = es * (b->time_major ? (uint64_t)B * S : S);

    /* the input FC of a group: G steps (H) x B rows (W) */
    eu_fm gxg;
    cc_fm_dense(&gxg, s1, 0, G, B, 4 * S, 16, 0);
    const eu_fm gr = fm_rows(s2, 0, B, 4 * S, g_pitch, 16, 0);
    /* stacked: everything after the FCs works in place in GR's bytes: the
     * gates overwrite GR's slots element by element (each element is read
     * before it is written, the same address in and out), T1 = f * c and
     * T3 go into f's slot, T2 = i * g into i's */
    eu_fm gr_s[2];
    const uint32_t span[2] = {3 * S, S};
    const uint64_t at[2] = {0, 6u * (uint64_t)S};
    for (int k = 0; k < 2; k++) gr_s[k] = fm_rows(s2, at[k], B, span[k], g_pitch, 16, 0);
    eu_fm gate[4];
    for (int k = 0; k < 4; k++) gate[k] = fm_rows(s2, 2u * (uint64_t)k * S, B, S, g_pitch, 16, 0);
    /* split: slot D (GX of the gate at hand), A and B; i -> A, g -> B,
     * T2 = i * g -> A, f -> B, T1 = f * c -> B, c = T1 + T2, o -> A,
     * T3 -> B: at most three [B][S] slots live */
    const eu_fm sd = fm_rows(s1, 0, B, S, 2u * S, 16, 0), sa = fm_rows(s1, sb, B, S, 2u * S, 16, 0);
    const eu_fm sbb = fm_rows(s1, 2 * sb, B, S, 2u * S, 16, 0);
    if (pl->split) {
        gate[SL_I] = sa;
        gate[SL_G] = sbb;
        gate[SL_F] = sbb;
        gate[SL_O] = sa;
    }
    const eu_fm t1 = pl->split ? sbb : gate[SL_F], t2 = pl->split ? sa : gate[SL_I], t3 = pl->split ? sbb : gate[SL_F];
    const eu_fm cell = fm_rows(bc, 0, B, S, 2u * S, 16, 0);
    const int32_t clo = b->clip ? -b->cell_clip_q : INT16_MIN, chi = b->clip ? b->cell_clip_q : INT16_MAX;

    int32_t fx0[4] = {-1, -1, -1, -1}, fxn[4] = {0}, fh0[4] = {-1, -1, -1, -1}, fhn[4] = {0};
    int rc = 0;
    for (uint32_t t = 0; t < T && !rc; t++) {
        /* weight copies small enough stay in SRAM over the whole sequence */
        const bool keep = keep_copies(c, fx0, fxn, fh0, fhn);
        /* x rows of steps t .. t+G-1: G (H, one step apart) x B (W) */
        eu_fm xin;
        cc_fm_dense(&xin, bx, (uint64_t)t * x_step, G, B, I, bits, b->input_zp);
        xin.sy = x_step;
        xin.sx = x_pitch;
        const eu_fm hin = t == 0 ? fm_rows(bh, 0, B, S, es * S, bits, hzp)
                                 : fm_rows(by, (uint64_t)(t - 1) * y_step, B, S, y_pitch, bits, hzp);
        const eu_fm yout = fm_rows(by, (uint64_t)t * y_step, B, S, y_pitch, bits, hzp);
        if (pl->split) {
            if ((rc = gate_op(c, pl, SL_I, &xin, &hin, &sd, &sa, keep, fx0, fxn, fh0, fhn, err)) ||
                (rc = gate_op(c, pl, SL_G, &xin, &hin, &sd, &sbb, keep, fx0, fxn, fh0, fhn, err)) ||
                (rc = ew_op(c, EW_MUL, &gate[SL_I], &gate[SL_G], &t2, pl->ic_m, pl->ic_s, EU_ACT_NONE, INT16_MIN,
                            INT16_MAX, err)) ||
                (rc = gate_op(c, pl, SL_F, &xin, &hin, &sd, &sbb, keep, fx0, fxn, fh0, fhn, err)) ||
                (rc = ew_op(c, EW_MUL, &gate[SL_F], &cell, &t1, pl->fc_m, pl->fc_s, EU_ACT_NONE, INT16_MIN,
                            INT16_MAX, err)) ||
                (rc = ew_op(c, EW_ADD, &t1, &t2, &cell, 1u << 30, 44, EU_ACT_NONE, clo, chi, err)) ||
                (rc = gate_op(c, pl, SL_O, &xin, &hin, &sd, &sa, keep, fx0, fxn, fh0, fhn, err)))
                break;
        } else {
            if (t % G == 0 && (rc = fc_op(c, &pl->fx[0], &xin, &gxg, keep, &fx0[0], &fxn[0], err))) break;
            const uint64_t gx_at = (uint64_t)(t % G) * gbytes;
            if ((rc = fc_op(c, &pl->fh[0], &hin, &gr, keep, &fh0[0], &fhn[0], err))) break;
            for (int k = 0; k < 2 && !rc; k++) {
                const eu_fm gx_s = fm_rows(s1, gx_at + at[k], B, span[k], g_pitch, 16, 0);
                /* (gx + gr) * 2^14 * 3 * 2^29 / 2^43 = 3 (gx + gr), exact */
                rc = ew_op(c, EW_ADD, &gx_s, &gr_s[k], &gr_s[k], 3u << 29, 43, pl->gfunc[k], INT16_MIN, INT16_MAX,
                           err);
                if (!rc && pl->gclamp[k])
                    rc = pool_op(c, &gr_s[k], &gr_s[k], 1, 0, EU_ROUND_TFL, EU_ACT_NONE, pl->glo[k], pl->ghi[k],
                                 err);
            }
            if (rc) break;
            if ((rc = ew_op(c, EW_MUL, &gate[SL_F], &cell, &t1, pl->fc_m, pl->fc_s, EU_ACT_NONE, INT16_MIN,
                            INT16_MAX, err)) ||
                (rc = ew_op(c, EW_MUL, &gate[SL_I], &gate[SL_G], &t2, pl->ic_m, pl->ic_s, EU_ACT_NONE, INT16_MIN,
                            INT16_MAX, err)) ||
                (rc = ew_op(c, EW_ADD, &t1, &t2, &cell, 1u << 30, 44, EU_ACT_NONE, clo, chi, err)))
                break;
        }
        if ((rc = pool_op(c, &cell, &t3, pl->tanh_m, pl->tanh_s, EU_ROUND_NATURAL, EU_ACT_TANH, INT16_MIN, INT16_MAX,
                          err)) ||
            (rc = ew_op(c, EW_MUL, &t3, &gate[SL_O], &yout, pl->oh_m, pl->oh_s, EU_ACT_NONE, b->hidden_min,
                        b->hidden_max, err)))
            break;
    }
    if (rc) return rc;
    /* the hidden state: output row T - 1 */
    const eu_fm ylast = fm_rows(by, (uint64_t)(T - 1) * y_step, B, S, y_pitch, bits, 0);
    const eu_fm hst = fm_rows(bh, 0, B, S, es * S, bits, 0);
    eu_op *o = new_op(c, SIM_K_POOL, 0, &ylast, &hst, err);
    if (!o) return err->code;
    return cc_copy_block(c, o, bits, err);
}

static int lower_lstm(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    lstm_plan pl;
    memset(&pl, 0, sizeof pl);
    int rc = plan_lstm(c, op, &pl, err);
    if (!rc) rc = emit_lstm(c, &pl, err);
    for (int k = 0; k < 4; k++) {
        fc_free(&pl.fx[k]);
        fc_free(&pl.fh[k]);
    }
    return rc;
}

static const lower_impl lstm_ops[] = {
    {TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, lower_lstm},
};

LOWER_OPS_TABLE(lower_ops_lstm, lstm_ops)
