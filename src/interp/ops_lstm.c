/* Interpreter bindings of the lstm family: UNIDIRECTIONAL_SEQUENCE_LSTM (int8, int16x8, float32).
 *
 * prepare() accepts what TensorFlow Lite Micro's kernel accepts (the
 * standard LSTM: all four gates, no peephole, projection or layer norm;
 * float32, or int8/int16 activations with int8 weights and an int16 cell
 * state) and computes the integer kernel's multipliers with TFLite Micro's
 * float/double math (lstm_eval_common.cc PrepareGateParametersInteger). */
#include "interp_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { N_IN = 24, IN_X = 0, IN_W = 1, IN_R = 5, IN_PEEP = 9, IN_B = 12, IN_PROJ = 16, IN_H = 18, IN_C = 19, IN_LN = 20 };

static const char *const in_names[N_IN] = {
    "input",
    "input_to_input_weights",
    "input_to_forget_weights",
    "input_to_cell_weights",
    "input_to_output_weights",
    "recurrent_to_input_weights",
    "recurrent_to_forget_weights",
    "recurrent_to_cell_weights",
    "recurrent_to_output_weights",
    "cell_to_input_weights",
    "cell_to_forget_weights",
    "cell_to_output_weights",
    "input_gate_bias",
    "forget_gate_bias",
    "cell_gate_bias",
    "output_gate_bias",
    "projection_weights",
    "projection_bias",
    "output_state",
    "cell_state",
    "input_layer_norm_coefficients",
    "forget_layer_norm_coefficients",
    "cell_layer_norm_coefficients",
    "output_layer_norm_coefficients",
};

static int shape_err(const graph_tensor *t, int32_t i, const char *want, npuc_err *err)
{
    char got[96];
    return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' has shape %s; expected %s", (int)i,
                     in_names[i], interp_tname(t), interp_shape_str(t->shape, t->rank, got, sizeof got), want);
}

static int check_2d(const graph_tensor *t, int32_t i, int32_t d0, int32_t d1, npuc_err *err)
{
    if (t->rank == 2 && t->shape[0] == d0 && t->shape[1] == d1) return NPUC_OK;
    char want[48];
    snprintf(want, sizeof want, "[%d,%d]", (int)d0, (int)d1);
    return shape_err(t, i, want, err);
}

/* Per-tensor scale and zero point of input i. */
static int qparams(const graph_tensor *t, int32_t i, float *scale, int32_t *zp, npuc_err *err)
{
    if (t->q.n < 1 || !t->q.scale || !t->q.zero_point)
        return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' (%s) has no quantization parameters",
                         (int)i, in_names[i], interp_tname(t), interp_dt(t));
    if (t->q.n > 1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input %d (%s) tensor '%s' is quantized per channel (%d scales); TFLite Micro's LSTM "
                         "supports per-tensor quantization only",
                         (int)i, in_names[i], interp_tname(t), (int)t->q.n);
    if (!(t->q.scale[0] > 0.0f) || !isnormal(t->q.scale[0]))
        return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' has invalid scale %g", (int)i, in_names[i],
                         interp_tname(t), (double)t->q.scale[0]);
    if (t->q.zero_point[0] < INT16_MIN || t->q.zero_point[0] > INT16_MAX)
        return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' zero point %lld is out of range", (int)i,
                         in_names[i], interp_tname(t), (long long)t->q.zero_point[0]);
    *scale = t->q.scale[0];
    *zp = (int32_t)t->q.zero_point[0];
    return NPUC_OK;
}

static int zp_in(const graph_tensor *t, int32_t i, int32_t zp, int32_t lo, int32_t hi, npuc_err *err)
{
    if (zp < lo || zp > hi)
        return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' (%s) zero point %d is out of range", (int)i,
                         in_names[i], interp_tname(t), interp_dt(t), (int)zp);
    return NPUC_OK;
}

static int quant_mult(double real, bool wide, const char *what, int32_t *m, int32_t *s, npuc_err *err)
{
    k_quantize_multiplier(real, m, s);
    const bool ok = wide ? (*s >= -47 && *s <= 14) : (*s >= -31 && *s <= 30);
    if (!ok)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "the %s scale ratio %g is out of the supported range", what, real);
    return NPUC_OK;
}

static int prepare_lstm(interp_node *n, npuc_err *err)
{
    const graph_op *op = n->op;
    const tfl_options *o = &op->opt;
    if (op->n_in != N_IN) return npuc_errf(err, NPUC_E_INVALID, "expected 24 inputs, got %d", (int)op->n_in);
    if (op->n_out != 1 || !interp_node_out_t(n, 0))
        return npuc_errf(err, NPUC_E_INVALID, "expected 1 output, got %d", (int)op->n_out);
    const graph_tensor *t[N_IN];
    for (int32_t i = 0; i < N_IN; i++) t[i] = interp_node_in_t(n, i);
    const graph_tensor *out = interp_node_out_t(n, 0);

    /* The variants TFLite Micro does not implement. */
    for (int32_t i = IN_PEEP; i < IN_PEEP + 3; i++)
        if (t[i])
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input %d (%s) is present: peephole LSTM is not supported (TFLite Micro implements the "
                             "standard LSTM only)",
                             (int)i, in_names[i]);
    for (int32_t i = IN_PROJ; i < IN_PROJ + 2; i++)
        if (t[i])
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input %d (%s) is present: LSTM with projection is not supported (TFLite Micro "
                             "implements the standard LSTM only)",
                             (int)i, in_names[i]);
    for (int32_t i = IN_LN; i < IN_LN + 4; i++)
        if (t[i])
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input %d (%s) is present: layer-norm LSTM is not supported (TFLite Micro implements "
                             "the standard LSTM only)",
                             (int)i, in_names[i]);
    if (!t[IN_W + 0] || !t[IN_R + 0] || !t[IN_B + 0]) {
        const int32_t i = !t[IN_W + 0] ? IN_W : (!t[IN_R + 0] ? IN_R : IN_B);
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "input %d (%s) is missing: CIFG LSTM (coupled input and forget gates) is not supported "
                         "(TFLite Micro needs all four gates)",
                         (int)i, in_names[i]);
    }
    static const int32_t required[] = {IN_X, 2, 3, 4, 6, 7, 8, 13, 14, 15, IN_H, IN_C};
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
        if (!t[required[k]])
            return npuc_errf(err, NPUC_E_INVALID, "required input %d (%s) is missing", (int)required[k],
                             in_names[required[k]]);
    const graph_tensor *x = t[IN_X], *h = t[IN_H], *c = t[IN_C];
    for (int32_t i = IN_H; i <= IN_C; i++)
        if (!t[i]->is_variable)
            return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' must be a variable tensor", (int)i,
                             in_names[i], interp_tname(t[i]));
    for (int32_t i = 0; i < N_IN; i++)
        if (t[i] && t[i] == out)
            return npuc_errf(err, NPUC_E_INVALID, "output tensor '%s' is also input %d (%s)", interp_tname(out), (int)i,
                             in_names[i]);

    /* Sizes (TFLite Micro CreateLstmSizeInfo / ValidateTensorSize). */
    if (x->rank != 3) return shape_err(x, IN_X, "rank 3", err);
    if (h->rank != 2) return shape_err(h, IN_H, "rank 2 [batch, units]", err);
    k_op_lstm_blob bl;
    memset(&bl, 0, sizeof bl);
    bl.time_major = o->time_major ? 1 : 0;
    bl.batch = o->time_major ? x->shape[1] : x->shape[0];
    bl.steps = o->time_major ? x->shape[0] : x->shape[1];
    bl.input_dim = x->shape[2];
    bl.state_dim = h->shape[1];
    if (bl.batch <= 0 || bl.steps <= 0 || bl.input_dim <= 0 || bl.state_dim <= 0)
        return npuc_errf(err, NPUC_E_INVALID, "empty LSTM: batch %d, time steps %d, input size %d, units %d",
                         (int)bl.batch, (int)bl.steps, (int)bl.input_dim, (int)bl.state_dim);
    const int32_t S = bl.state_dim, I = bl.input_dim;
    int rc;
    for (int32_t g = 0; g < 4; g++) {
        if ((rc = check_2d(t[IN_W + g], IN_W + g, S, I, err)) || (rc = check_2d(t[IN_R + g], IN_R + g, S, S, err)))
            return rc;
        const graph_tensor *bt = t[IN_B + g];
        if (bt->rank != 1 || bt->shape[0] != S) {
            char want[32];
            snprintf(want, sizeof want, "[%d]", (int)S);
            return shape_err(bt, IN_B + g, want, err);
        }
    }
    const int64_t bs = (int64_t)bl.batch * S;
    for (int32_t i = IN_H; i <= IN_C; i++) {
        int64_t cnt = 1;
        for (int32_t d = 0; d < t[i]->rank; d++) cnt *= t[i]->shape[d];
        if (cnt != bs)
            return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) tensor '%s' has %lld elements; expected batch %d * units %d",
                             (int)i, in_names[i], interp_tname(t[i]), (long long)cnt, (int)bl.batch, (int)S);
    }
    if (out->rank != 3 || out->shape[0] != x->shape[0] || out->shape[1] != x->shape[1] || out->shape[2] != S)
        return npuc_errf(err, NPUC_E_INVALID, "output tensor '%s' must have shape [%d,%d,%d]", interp_tname(out),
                         (int)x->shape[0], (int)x->shape[1], (int)S);
    if ((uint64_t)bs * (uint64_t)bl.steps > INT32_MAX || (uint64_t)x->shape[0] * x->shape[1] * (uint64_t)I > INT32_MAX ||
        (uint64_t)S * (uint64_t)(S > I ? S : I) > INT32_MAX || (uint64_t)bs * 4u > INT32_MAX)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "LSTM too large");

    /* Types (TFLite Micro ValidateTensorStatus and the Eval dispatch). */
    if (h->dtype != x->dtype || out->dtype != x->dtype)
        return npuc_errf(err, NPUC_E_INVALID, "input %s, output_state %s and output %s must have the same type",
                         interp_dt(x), interp_dt(h), interp_dt(out));
    const graph_dtype wt = t[2]->dtype, bt = t[13]->dtype;
    for (int32_t i = 1; i <= 8; i++)
        if (t[i]->dtype != wt)
            return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) is %s; the other weights are %s", (int)i, in_names[i],
                             interp_dt(t[i]), graph_dtype_name(wt));
    for (int32_t i = 12; i <= 15; i++)
        if (t[i]->dtype != bt)
            return npuc_errf(err, NPUC_E_INVALID, "input %d (%s) is %s; the other biases are %s", (int)i, in_names[i],
                             interp_dt(t[i]), graph_dtype_name(bt));
    if (o->activation != TFL_ACT_TANH)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "cell activation %d is not supported (TFLite Micro's LSTM supports tanh and sigmoid)",
                         (int)o->activation);
    bl.cell_act = K_LSTM_ACT_TANH;

    uint32_t kind;
    size_t cell_el;
    if (c->dtype == GRAPH_F32) {
        if (x->dtype != GRAPH_F32 || wt != GRAPH_F32 || bt != GRAPH_F32)
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "float32 cell state with input %s, weights %s, biases %s is not supported (all float32; "
                             "hybrid LSTM is not supported)",
                             interp_dt(x), graph_dtype_name(wt), graph_dtype_name(bt));
        kind = K_OP_LSTM_F32;
        cell_el = 4;
        if (o->cell_clip > 0.0f) {
            if (!isfinite(o->cell_clip))
                return npuc_errf(err, NPUC_E_INVALID, "cell_clip %g is not finite", (double)o->cell_clip);
            bl.clip = 1;
            bl.cell_clip = o->cell_clip;
        }
    } else if (c->dtype == GRAPH_I16) {
        cell_el = 2;
        if (x->dtype == GRAPH_I8 && wt == GRAPH_I8 && bt == GRAPH_I32)
            kind = K_OP_LSTM_S8;
        else if (x->dtype == GRAPH_I16 && wt == GRAPH_I8 && bt == GRAPH_I64)
            kind = K_OP_LSTM_S16;
        else
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "input %s with weights %s and biases %s is not supported (int8 with int8 weights and "
                             "int32 biases, or int16 with int8 weights and int64 biases)",
                             interp_dt(x), graph_dtype_name(wt), graph_dtype_name(bt));
        const bool s8 = kind == K_OP_LSTM_S8;
        const int32_t lo = s8 ? INT8_MIN : INT16_MIN, hi = s8 ? INT8_MAX : INT16_MAX;
        float xs, hs, cs, ws[4], rs[4];
        int32_t czp;
        if ((rc = qparams(x, IN_X, &xs, &bl.input_zp, err)) || (rc = qparams(h, IN_H, &hs, &bl.hidden_zp, err)) ||
            (rc = qparams(c, IN_C, &cs, &czp, err)) || (rc = zp_in(x, IN_X, bl.input_zp, lo, hi, err)) ||
            (rc = zp_in(h, IN_H, bl.hidden_zp, lo, hi, err)))
            return rc;
        for (int32_t g = 0; g < 4; g++)
            if ((rc = qparams(t[IN_W + g], IN_W + g, &ws[g], &bl.in_wzp[g], err)) ||
                (rc = qparams(t[IN_R + g], IN_R + g, &rs[g], &bl.rec_wzp[g], err)) ||
                (rc = zp_in(t[IN_W + g], IN_W + g, bl.in_wzp[g], INT8_MIN, INT8_MAX, err)) ||
                (rc = zp_in(t[IN_R + g], IN_R + g, bl.rec_wzp[g], INT8_MIN, INT8_MAX, err)))
                return rc;
        /* Cell state: 2^power = scale (rounded, as TFLite Micro, which does
         * not check that the scale is a power of two). */
        int32_t power = 0;
        (void)k_checked_log2(cs, &power);
        int32_t tshift = 15 + power - 3;
        if (tshift < 0) {
            bl.tanh_mult = 3;
            bl.tanh_shift = -tshift;
        } else {
            bl.tanh_mult = 0;
            bl.tanh_shift = tshift;
        }
        if (bl.tanh_shift > (bl.tanh_mult ? 31 : 13))
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "cell_state tensor '%s' scale %g (2^%d) is not supported",
                             interp_tname(c), (double)cs, (int)power);
        if (o->cell_clip > 0.0f) {
            double q = (double)o->cell_clip / (double)cs;
            q = q < -32768.0 ? -32768.0 : q;
            q = q > 32767.0 ? 32767.0 : q;
            bl.clip = 1;
            bl.cell_clip_q = (int16_t)q;
        }
        /* Gate FCs produce Q3.12 (scale 2^-12, zero point 0); the scale
         * product is a float, widened to double (GetQuantizedConvolutionMultipler). */
        const float gate_in = 0.000244140625f;
        const bool wide = !s8;
        static const char *const gname[4] = {"input gate", "forget gate", "cell gate", "output gate"};
        for (int32_t g = 0; g < 4; g++) {
            char what[48];
            snprintf(what, sizeof what, "%s input", gname[g]);
            if ((rc = quant_mult((double)(xs * ws[g]) / (double)gate_in, wide, what, &bl.in_mult[g], &bl.in_shift[g],
                                 err)))
                return rc;
            snprintf(what, sizeof what, "%s recurrent", gname[g]);
            if ((rc = quant_mult((double)(hs * rs[g]) / (double)gate_in, wide, what, &bl.rec_mult[g],
                                 &bl.rec_shift[g], err)))
                return rc;
        }
        /* Element-wise products of Q0.15 gate outputs (CreateInterGateMulParams). */
        const float gate_out = 0.000030517578125f;
        if ((rc = quant_mult((double)gate_out * (double)cs / (double)cs, false, "forget * cell", &bl.fc_mult,
                             &bl.fc_shift, err)) ||
            (rc = quant_mult((double)gate_out * (double)gate_out / (double)cs, false, "input * cell gate",
                             &bl.ic_mult, &bl.ic_shift, err)) ||
            (rc = quant_mult((double)gate_out * (double)gate_out / (double)hs, false, "hidden state", &bl.oh_mult,
                             &bl.oh_shift, err)))
            return rc;
        bl.hidden_min = lo;
        bl.hidden_max = hi;
    } else {
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "cell_state tensor '%s' is %s; TFLite Micro's LSTM supports an int16 (quantized) or "
                         "float32 cell state",
                         interp_tname(c), interp_dt(c));
    }
    n->scratch_size = (size_t)K_LSTM_SCRATCH_BUFFERS * (size_t)bs * cell_el;
    k_op_lstm_blob *b = interp_node_blob(n, kind, sizeof *b);
    if (!b) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *b = bl;
    if (k_op_validate(kind, b, sizeof *b) != K_OK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "LSTM parameters outside the kernel's range");
    return NPUC_OK;
}

static const interp_op_impl impls[] = {
    {TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, prepare_lstm, NULL},
};

INTERP_OPS_TABLE(interp_ops_lstm, impls)
