/* Prepared ops of the lstm family (k_op_lstm.h): UNIDIRECTIONAL_SEQUENCE_LSTM
 * with TensorFlow Lite Micro's arithmetic (lstm_eval.h: one time step
 * computes the forget, input and cell gates, updates the cell state, then
 * computes the output gate and the new hidden state). docs/kernels-lstm.md. */
#include "k_op_internal.h"

_Static_assert(sizeof(k_op_lstm_blob) == 45 * 4, "k_op_lstm_blob: 4-byte fields only");

enum { IN_X = 0, IN_W = 1, IN_R = 5, IN_B = 12, IN_H = 18, IN_C = 19 };

/* ---- blob checks ---- */

static bool mult_ok(int32_t m, int32_t s) { return m >= 0 && s >= -31 && s <= 30; }

/* The 64-bit requantization (int16x8 FC) needs 1 <= 15 - shift <= 62. */
static bool mult64_ok(int32_t m, int32_t s) { return m >= 0 && s >= -47 && s <= 14; }

static int check_blob(uint32_t kind, const k_op_lstm_blob *b)
{
    if (b->time_major != 0 && b->time_major != 1) return K_E_INVALID;
    if (!k_op_dim(b->batch, 1) || !k_op_dim(b->steps, 1) || !k_op_dim(b->input_dim, 1) ||
        !k_op_dim(b->state_dim, 1))
        return K_E_INVALID;
    /* Every tensor (and the work of a step) within int32 elements. */
    const uint64_t bt = k_op_mul((uint64_t)b->batch, (uint64_t)b->steps);
    if (k_op_mul(bt, (uint64_t)b->input_dim) > INT32_MAX || k_op_mul(bt, (uint64_t)b->state_dim) > INT32_MAX ||
        k_op_mul((uint64_t)b->state_dim, (uint64_t)b->input_dim) > INT32_MAX ||
        k_op_mul((uint64_t)b->state_dim, (uint64_t)b->state_dim) > INT32_MAX ||
        k_op_mul(4u * (uint64_t)b->batch, (uint64_t)b->state_dim) > INT32_MAX)
        return K_E_INVALID;
    if (b->cell_act != K_LSTM_ACT_TANH && b->cell_act != K_LSTM_ACT_SIGMOID) return K_E_INVALID;
    if (b->clip != 0 && b->clip != 1) return K_E_INVALID;
    if (kind == K_OP_LSTM_F32) {
        if (b->clip && !(b->cell_clip > 0.0f && b->cell_clip <= 3.4e38f)) return K_E_INVALID;
        return K_OK;
    }
    const int32_t lo = kind == K_OP_LSTM_S8 ? INT8_MIN : INT16_MIN;
    const int32_t hi = kind == K_OP_LSTM_S8 ? INT8_MAX : INT16_MAX;
    if (!k_op_in_range(b->cell_clip_q, 0, INT16_MAX)) return K_E_INVALID;
    if (!k_op_in_range(b->input_zp, lo, hi) || !k_op_in_range(b->hidden_zp, lo, hi)) return K_E_INVALID;
    if (!k_op_in_range(b->hidden_min, lo, hi) || !k_op_in_range(b->hidden_max, b->hidden_min, hi))
        return K_E_INVALID;
    /* k_tanh_s16's parameter range. */
    if (b->tanh_mult == 0) {
        if (!k_op_in_range(b->tanh_shift, 0, 13)) return K_E_INVALID;
    } else if (!k_op_in_range(b->tanh_mult, 1, 65535) || !k_op_in_range(b->tanh_shift, 0, 31)) {
        return K_E_INVALID;
    }
    for (int g = 0; g < 4; g++) {
        if (!k_op_in_range(b->in_wzp[g], INT8_MIN, INT8_MAX) || !k_op_in_range(b->rec_wzp[g], INT8_MIN, INT8_MAX))
            return K_E_INVALID;
        if (kind == K_OP_LSTM_S8) {
            if (!mult_ok(b->in_mult[g], b->in_shift[g]) || !mult_ok(b->rec_mult[g], b->rec_shift[g]))
                return K_E_INVALID;
        } else if (!mult64_ok(b->in_mult[g], b->in_shift[g]) || !mult64_ok(b->rec_mult[g], b->rec_shift[g])) {
            return K_E_INVALID;
        }
    }
    if (!mult_ok(b->fc_mult, b->fc_shift) || !mult_ok(b->ic_mult, b->ic_shift) || !mult_ok(b->oh_mult, b->oh_shift))
        return K_E_INVALID;
    return K_OK;
}

/* ---- shared integer pieces (int16 cell state, Q3.12 / Q0.15 gates) ---- */

static int16_t sat16(int32_t v) { return (int16_t)k_clamp_i32(v, INT16_MIN, INT16_MAX); }

/* gate += recurrent part (saturating int16 add), then the gate's
 * non-linearity in place: sigmoid, or tanh of a Q3.12 input. */
static void gate_finish_s16(int16_t *gate, const int16_t *rec, int32_t n, int act)
{
    for (int32_t i = 0; i < n; i++) gate[i] = sat16((int32_t)gate[i] + (int32_t)rec[i]);
    const k_sigmoid_s16_params q312 = {0, 0}; /* multiplier 3, no shift */
    if (act == K_LSTM_ACT_SIGMOID)
        (void)k_logistic_s16(&q312, gate, gate, n);
    else
        (void)k_tanh_s16(&q312, gate, gate, n);
}

/* a * b (both symmetric int16) requantized to int16. */
static int16_t mul16(int16_t a, int16_t b, int32_t m, int32_t s)
{
    return sat16(k_mbqm((int32_t)a * (int32_t)b, m, s));
}

/* Cell update and new hidden state for n = rows * S elements; tmp is a
 * scratch buffer of n. f, ig, cg, og: gate outputs (Q0.15). h_out gets the
 * new hidden state as int32 values in [hidden_min, hidden_max]. */
static void cell_update_s16(const k_op_lstm_blob *b, int16_t *c, const int16_t *f, const int16_t *ig,
                            const int16_t *cg, int16_t *tmp, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        const int16_t kept = mul16(f[i], c[i], b->fc_mult, b->fc_shift);
        const int16_t added = mul16(ig[i], cg[i], b->ic_mult, b->ic_shift);
        int16_t v = sat16((int32_t)kept + (int32_t)added);
        if (b->clip) {
            const int16_t q = (int16_t)b->cell_clip_q;
            if (v > q) v = q;
            if (v < -q) v = (int16_t)-q;
        }
        c[i] = v;
    }
    const k_sigmoid_s16_params tp = {b->tanh_mult, b->tanh_shift};
    (void)k_tanh_s16(&tp, c, tmp, n);
}

static int32_t hidden_value(const k_op_lstm_blob *b, int16_t t, int16_t o)
{
    return k_add_clamp_i32(b->hidden_zp, k_mbqm((int32_t)t * (int32_t)o, b->oh_mult, b->oh_shift), b->hidden_min,
                           b->hidden_max);
}

/* ---- int8 activations ---- */

/* out[r, u] = requant(sum_d (w[u, d] + w_off) * (x[r, d] + x_off) + bias[u]),
 * int32 accumulator (wrapping), int16 result. */
static void fc_s8(const int8_t *x, int32_t x_off, const int8_t *w, int32_t w_off, const int32_t *bias, int32_t rows,
                  int32_t depth, int32_t units, int32_t m, int32_t s, int16_t *out)
{
    for (int32_t r = 0; r < rows; r++) {
        const int8_t *xr = x + (size_t)r * (size_t)depth;
        for (int32_t u = 0; u < units; u++) {
            const int8_t *wu = w + (size_t)u * (size_t)depth;
            int32_t acc = 0;
            for (int32_t d = 0; d < depth; d++)
                acc = k_wrap_add32(acc, ((int32_t)wu[d] + w_off) * ((int32_t)xr[d] + x_off));
            if (bias) acc = k_wrap_add32(acc, bias[u]);
            out[(size_t)r * (size_t)units + (size_t)u] = sat16(k_mbqm(acc, m, s));
        }
    }
}

/* ---- int16 activations ---- */

/* As fc_s8 with int16 inputs, int64 accumulator and bias, 64-bit
 * requantization. */
static void fc_s16(const int16_t *x, int32_t x_off, const int8_t *w, int32_t w_off, const int64_t *bias,
                   int32_t rows, int32_t depth, int32_t units, int32_t m, int32_t s, int16_t *out)
{
    for (int32_t r = 0; r < rows; r++) {
        const int16_t *xr = x + (size_t)r * (size_t)depth;
        for (int32_t u = 0; u < units; u++) {
            const int8_t *wu = w + (size_t)u * (size_t)depth;
            int64_t acc = 0;
            for (int32_t d = 0; d < depth; d++)
                acc += (int64_t)(((int32_t)wu[d] + w_off) * ((int32_t)xr[d] + x_off));
            if (bias) acc = k_wrap_add64(acc, bias[u]);
            out[(size_t)r * (size_t)units + (size_t)u] = sat16(k_mbqm64(acc, m, s));
        }
    }
}

/* ---- the integer step (int8 or int16 activations) ---- */

typedef struct lstm_tq {
    const int8_t *w[4], *r[4];
    const void *bias[4]; /* int32 (int8 activations) or int64 (int16) */
} lstm_tq;

/* fc_s8 or fc_s16 as the activations are int8 or int16 (s16). */
static void fc_q(bool s16, const void *x, int32_t x_off, const int8_t *w, int32_t w_off, const void *bias,
                 int32_t rows, int32_t depth, int32_t units, int32_t m, int32_t s, int16_t *out)
{
    if (s16)
        fc_s16(x, x_off, w, w_off, bias, rows, depth, units, m, s, out);
    else
        fc_s8(x, x_off, w, w_off, bias, rows, depth, units, m, s, out);
}

/* One time step; x, h and out are int8 or int16 (s16) tensors. */
static void step_q(const k_op_lstm_blob *b, bool s16, const lstm_tq *t, const void *x, void *h, int16_t *c,
                   int32_t rows, int16_t *buf, void *out)
{
    const int32_t I = b->input_dim, S = b->state_dim, n = rows * S;
    int16_t *b0 = buf, *b1 = buf + n, *b2 = buf + 2 * n, *b3 = buf + 3 * n;
    int16_t *gates[4] = {b1, b0, b2, NULL};
    /* Forget, input and cell gates from the old hidden state. */
    static const int order[3] = {K_LSTM_GATE_FORGET, K_LSTM_GATE_INPUT, K_LSTM_GATE_CELL};
    for (int k = 0; k < 3; k++) {
        const int g = order[k];
        fc_q(s16, x, -b->input_zp, t->w[g], -b->in_wzp[g], t->bias[g], rows, I, S, b->in_mult[g], b->in_shift[g],
             gates[g]);
        fc_q(s16, h, -b->hidden_zp, t->r[g], -b->rec_wzp[g], NULL, rows, S, S, b->rec_mult[g], b->rec_shift[g], b3);
        gate_finish_s16(gates[g], b3, n, g == K_LSTM_GATE_CELL ? b->cell_act : K_LSTM_ACT_SIGMOID);
    }
    /* The output gate, still from the old hidden state: its input part
     * into b3 now, its recurrent part into b2 once the cell update has
     * consumed the cell gate. The cell update leaves tanh(cell) in b1. */
    const int g = K_LSTM_GATE_OUTPUT;
    fc_q(s16, x, -b->input_zp, t->w[g], -b->in_wzp[g], t->bias[g], rows, I, S, b->in_mult[g], b->in_shift[g], b3);
    cell_update_s16(b, c, b0, b1, b2, b1, n);
    fc_q(s16, h, -b->hidden_zp, t->r[g], -b->rec_wzp[g], NULL, rows, S, S, b->rec_mult[g], b->rec_shift[g], b2);
    gate_finish_s16(b3, b2, n, K_LSTM_ACT_SIGMOID);
    for (int32_t i = 0; i < n; i++) {
        const int32_t v = hidden_value(b, b1[i], b3[i]);
        if (s16) {
            ((int16_t *)h)[i] = (int16_t)v;
            ((int16_t *)out)[i] = (int16_t)v;
        } else {
            ((int8_t *)h)[i] = (int8_t)v;
            ((int8_t *)out)[i] = (int8_t)v;
        }
    }
}

/* ---- float32 ---- */

static void fc_f32(const float *x, const float *w, const float *bias, int32_t rows, int32_t depth, int32_t units,
                   float *out)
{
    for (int32_t r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * (size_t)depth;
        for (int32_t u = 0; u < units; u++) {
            const float *wu = w + (size_t)u * (size_t)depth;
            float total = 0.0f;
            for (int32_t d = 0; d < depth; d++) total += xr[d] * wu[d];
            const float bv = bias ? bias[u] : 0.0f;
            out[(size_t)r * (size_t)units + (size_t)u] = total + bv;
        }
    }
}

typedef struct lstm_tf {
    const float *w[4], *r[4], *bias[4];
} lstm_tf;

static void gate_f32(const k_op_lstm_blob *b, const lstm_tf *t, int g, const float *x, const float *h, int32_t rows,
                     float *gate, float *tmp, int act)
{
    const int32_t n = rows * b->state_dim;
    fc_f32(x, t->w[g], t->bias[g], rows, b->input_dim, b->state_dim, gate);
    fc_f32(h, t->r[g], NULL, rows, b->state_dim, b->state_dim, tmp);
    for (int32_t i = 0; i < n; i++) gate[i] = gate[i] + tmp[i];
    if (act == K_LSTM_ACT_SIGMOID)
        (void)k_logistic_f32(gate, gate, n);
    else
        (void)k_tanh_f32(gate, gate, n);
}

static void step_f32(const k_op_lstm_blob *b, const lstm_tf *t, const float *x, float *h, float *c, int32_t rows,
                     float *buf, float *out)
{
    const int32_t n = rows * b->state_dim;
    float *b0 = buf, *b1 = buf + n, *b2 = buf + 2 * n, *b3 = buf + 3 * n;
    gate_f32(b, t, K_LSTM_GATE_FORGET, x, h, rows, b0, b3, K_LSTM_ACT_SIGMOID);
    gate_f32(b, t, K_LSTM_GATE_INPUT, x, h, rows, b1, b3, K_LSTM_ACT_SIGMOID);
    gate_f32(b, t, K_LSTM_GATE_CELL, x, h, rows, b2, b3, b->cell_act);
    for (int32_t i = 0; i < n; i++) {
        float v = b0[i] * c[i];
        v = v + b1[i] * b2[i];
        if (b->clip) {
            /* max(min(clip, v), -clip), as std::max/std::min. */
            v = v < b->cell_clip ? v : b->cell_clip;
            v = v < -b->cell_clip ? -b->cell_clip : v;
        }
        c[i] = v;
    }
    gate_f32(b, t, K_LSTM_GATE_OUTPUT, x, h, rows, b1, b3, K_LSTM_ACT_SIGMOID);
    (void)k_tanh_f32(c, b0, n);
    for (int32_t i = 0; i < n; i++) {
        const float v = b0[i] * b1[i];
        h[i] = v;
        out[i] = v;
    }
}

/* ---- runner ---- */

int k_op_run_lstm(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    if (kind != K_OP_LSTM_S8 && kind != K_OP_LSTM_S16 && kind != K_OP_LSTM_F32) return K_E_INVALID;
    k_op_lstm_blob b;
    K_OP_LOAD(b, blob, size);
    int rc = check_blob(kind, &b);
    if (rc || !io) return rc;

    const uint64_t B = (uint64_t)b.batch, T = (uint64_t)b.steps, I = (uint64_t)b.input_dim, S = (uint64_t)b.state_dim;
    const uint32_t act = kind == K_OP_LSTM_S8 ? 1u : (kind == K_OP_LSTM_S16 ? 2u : 4u);
    const uint32_t wel = kind == K_OP_LSTM_F32 ? 4u : 1u;
    const uint32_t bel = kind == K_OP_LSTM_S16 ? 8u : 4u;
    const uint32_t cel = kind == K_OP_LSTM_F32 ? 4u : 2u;
    void *x, *h, *c, *out, *scratch;
    void *w[4], *r[4], *bias[4];
    if ((rc = k_op_in(io, IN_X, k_op_mul(k_op_mul(B, T), I) * act, act, &x)) ||
        (rc = k_op_in(io, IN_H, k_op_mul(B, S) * act, act, &h)) ||
        (rc = k_op_in(io, IN_C, k_op_mul(B, S) * cel, cel, &c)) ||
        (rc = k_op_out(io, 0, k_op_mul(k_op_mul(B, T), S) * act, act, &out)) ||
        (rc = k_op_scratch(io, k_op_mul(4u * B, S) * cel, 4, &scratch)))
        return rc;
    for (int g = 0; g < 4; g++)
        if ((rc = k_op_in(io, IN_W + g, k_op_mul(S, I) * wel, wel, &w[g])) ||
            (rc = k_op_in(io, IN_R + g, k_op_mul(S, S) * wel, wel, &r[g])) ||
            (rc = k_op_in(io, IN_B + g, S * bel, bel, &bias[g])))
            return rc;

    lstm_tq tq;
    lstm_tf tf;
    for (int g = 0; g < 4; g++) {
        tq.w[g] = w[g];
        tq.r[g] = r[g];
        tq.bias[g] = bias[g];
        tf.w[g] = w[g];
        tf.r[g] = r[g];
        tf.bias[g] = bias[g];
    }
    /* Time major: one step runs all batches; else batch by batch, one row
     * per step (TFLite Micro's LstmStepManager). */
    const int32_t rows = b.time_major ? b.batch : 1;
    const int32_t outer = b.time_major ? 1 : b.batch;
    const size_t in_step = (size_t)rows * (size_t)I, out_step = (size_t)rows * (size_t)S;
    for (int32_t ob = 0; ob < outer; ob++) {
        const size_t st_off = (size_t)ob * (size_t)S; /* 0 when time major */
        for (int32_t t = 0; t < b.steps; t++) {
            const size_t k = (size_t)ob * (size_t)b.steps + (size_t)t;
            if (kind != K_OP_LSTM_F32) {
                /* act: bytes per activation element (1 or 2) */
                step_q(&b, kind == K_OP_LSTM_S16, &tq, (const uint8_t *)x + k * in_step * act,
                       (uint8_t *)h + st_off * act, (int16_t *)c + st_off, rows, scratch,
                       (uint8_t *)out + k * out_step * act);
            } else {
                step_f32(&b, &tf, (const float *)x + k * in_step, (float *)h + st_off, (float *)c + st_off, rows,
                         scratch, (float *)out + k * out_step);
            }
        }
    }
    return K_OK;
}
