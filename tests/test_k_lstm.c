/* UNIDIRECTIONAL_SEQUENCE_LSTM (k_op_lstm.c, interp/ops_lstm.c):
 *  - TFLite Micro's single-op goldens and the LSTM zoo models bit-exact
 *    through the reference interpreter (skipped without NPUC_SHARED);
 *  - the state persists across invocations and interp_reset_state restores
 *    TFLite Micro's initial state;
 *  - direct kernel runs of all three kinds: time-major equals batch-major
 *    on the transposed input, a batch equals its rows run one by one, the
 *    quantized kinds follow a float LSTM; damaged blobs and wrong tensor
 *    sizes give K_E_INVALID;
 *  - clear errors for the LSTM variants TFLite Micro does not implement. */
#include "test.h"
#include "k_op_test.h"
#include "test_model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True when the outputs equal the concatenated bytes. */
static bool outputs_equal(const interp *ip, const graph *g, const uint8_t *want, size_t n)
{
    size_t off = 0;
    for (int32_t o = 0; o < g->n_outputs; o++) {
        size_t m = 0;
        const uint8_t *got = interp_output(ip, o, &m);
        if (!got || off + m > n || memcmp(got, want + off, m) != 0) return false;
        off += m;
    }
    return off == n;
}

/* One golden model: every seed from a fresh state must equal TFLite Micro. */
static void golden_model(const char *model, const char *golden_base, int seeds)
{
    tfl_model *tm;
    graph *g;
    CHECK(t_load_model(model, &tm, &g) == 0);
    if (!g) return;
    interp *ip = NULL;
    npuc_err e = {0};
    CHECK(interp_create(g, NULL, &ip, &e) == 0);
    for (int s = 1; ip && s <= seeds; s++) {
        char pi[4200], po[4200];
        snprintf(pi, sizeof pi, "%s.s%d.in.bin", golden_base, s);
        snprintf(po, sizeof po, "%s.s%d.out.bin", golden_base, s);
        size_t ni = 0, no = 0;
        uint8_t *in = t_read_all(pi, &ni), *out = t_read_all(po, &no);
        if (!in || !out) {
            printf("SKIP: %s (golden missing)\n", pi);
            free(in);
            free(out);
            continue;
        }
        interp_reset_state(ip);
        CHECK(t_set_inputs(ip, g, in, ni));
        CHECK(interp_invoke(ip, &e) == 0);
        if (!outputs_equal(ip, g, out, no)) {
            fprintf(stderr, "%s seed %d differs from TFLite Micro\n", model, s);
            CHECK(0);
        }
        free(in);
        free(out);
    }
    interp_free(ip);
    graph_free(g);
    tfl_model_free(tm);
}

static const char *const op_cases[] = {"f32_batch_major", "f32_cell_clip",  "f32_time_major",
                                       "i8_batch_major",  "i8_cell_clip",   "i8_time_major_zp"};
static const char *const zoo_models[] = {"tflm_mnist_lstm_int8", "tflm_micro_speech_lstm",
                                         "tflm_dtln_noise_suppression_int8", "coral_keras_lstm_mnist_ptq"};

/* golden_model of sh/models/<dir>/<name>.tflite, goldens in
 * sh/models/<golden_dir>/<name>.s<seed>.{in,out}.bin */
static void golden_at(const char *sh, const char *dir, const char *golden_dir, const char *name, int seeds)
{
    char m[4096], base[4096];
    snprintf(m, sizeof m, "%s/models/%s/%s.tflite", sh, dir, name);
    snprintf(base, sizeof base, "%s/models/%s/%s", sh, golden_dir, name);
    golden_model(m, base, seeds);
}

static void test_goldens(void)
{
    char buf[4096];
    const char *root = t_shared("models/ops/MANIFEST.tsv", buf, sizeof buf);
    if (!root) {
        printf("SKIP: NPUC_SHARED/models/ops not found: LSTM goldens not checked\n");
        return;
    }
    const char *sh = getenv("NPUC_SHARED") ? getenv("NPUC_SHARED") : "../shared";
    for (size_t i = 0; i < sizeof op_cases / sizeof op_cases[0]; i++)
        golden_at(sh, "ops/UNIDIRECTIONAL_SEQUENCE_LSTM", "ops/UNIDIRECTIONAL_SEQUENCE_LSTM", op_cases[i], 3);
    for (size_t i = 0; i < sizeof zoo_models / sizeof zoo_models[0]; i++)
        golden_at(sh, "zoo", "zoo/golden", zoo_models[i], 2);
}

/* State: a second invocation continues from the first one's state; a reset
 * brings back the fresh result. */
static void test_state(void)
{
    char buf[4096];
    const char *m = t_shared("models/ops/UNIDIRECTIONAL_SEQUENCE_LSTM/i8_time_major_zp.tflite", buf, sizeof buf);
    if (!m) {
        printf("SKIP: NPUC_SHARED/models/ops not found: state test not run\n");
        return;
    }
    char base[4096], pi[4200], po[4200];
    snprintf(base, sizeof base, "%s", m);
    base[strlen(base) - 7] = 0;
    snprintf(pi, sizeof pi, "%s.s1.in.bin", base);
    snprintf(po, sizeof po, "%s.s1.out.bin", base);
    size_t ni = 0, no = 0;
    uint8_t *in = t_read_all(pi, &ni), *out = t_read_all(po, &no);
    tfl_model *tm;
    graph *g;
    CHECK(in && out && t_load_model(m, &tm, &g) == 0);
    if (!in || !out || !g) {
        free(in);
        free(out);
        return;
    }
    interp *ip = NULL;
    npuc_err e = {0};
    CHECK(interp_create(g, NULL, &ip, &e) == 0);
    /* The hidden state starts at its zero point (TFLite Micro's reset). */
    const graph_op *op = &g->ops[0];
    const graph_tensor *h = &g->tensors[op->in[18]];
    const int8_t *hd = interp_tensor_data(ip, op->in[18]);
    CHECK(h->is_variable && h->q.zero_point[0] != 0);
    for (size_t i = 0; i < h->nbytes; i++) CHECK_EQ_INT(hd[i], h->q.zero_point[0]);
    CHECK(t_set_inputs(ip, g, in, ni));
    CHECK(interp_invoke(ip, &e) == 0);
    CHECK(outputs_equal(ip, g, out, no));
    CHECK(interp_invoke(ip, &e) == 0);
    CHECK(!outputs_equal(ip, g, out, no)); /* continued from the first run's state */
    interp_reset_state(ip);
    CHECK(interp_invoke(ip, &e) == 0);
    CHECK(outputs_equal(ip, g, out, no));
    interp_free(ip);
    graph_free(g);
    tfl_model_free(tm);
    free(in);
    free(out);
}

/* Unsupported configurations: the error names the input / the problem. */
static void expect_error(graph *g, const char *needle)
{
    npuc_err e;
    CHECK(kt_try_create(g, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, needle);
}

static void test_rejects(void)
{
    char buf[4096];
    const char *m = t_shared("models/ops/UNIDIRECTIONAL_SEQUENCE_LSTM/i8_batch_major.tflite", buf, sizeof buf);
    if (!m) {
        printf("SKIP: NPUC_SHARED/models/ops not found: rejection tests not run\n");
        return;
    }
    tfl_model *tm;
    graph *g;
    CHECK(t_load_model(m, &tm, &g) == 0);
    if (!g) return;
    graph_op *op = &g->ops[0];
    CHECK_EQ_INT(op->n_in, 24);
    int32_t saved[24];
    memcpy(saved, op->in, sizeof saved);
    const int32_t some = op->in[13]; /* a [units] tensor */

    op->in[10] = some;
    expect_error(g, "cell_to_forget_weights");
    expect_error(g, "peephole");
    memcpy(op->in, saved, sizeof saved);
    op->in[16] = op->in[5];
    expect_error(g, "projection_weights");
    memcpy(op->in, saved, sizeof saved);
    op->in[22] = some;
    expect_error(g, "layer-norm");
    memcpy(op->in, saved, sizeof saved);
    op->in[1] = -1;
    op->in[5] = -1;
    op->in[12] = -1;
    expect_error(g, "CIFG");
    expect_error(g, "input_to_input_weights");
    memcpy(op->in, saved, sizeof saved);

    const int32_t act = op->opt.activation;
    op->opt.activation = TFL_ACT_RELU;
    expect_error(g, "cell activation");
    op->opt.activation = act;

    graph_tensor *c = &g->tensors[op->in[19]];
    c->is_variable = false;
    expect_error(g, "cell_state");
    c->is_variable = true;
    const graph_dtype cdt = c->dtype;
    c->dtype = GRAPH_I8;
    expect_error(g, "int16 (quantized) or float32 cell state");
    c->dtype = cdt;

    graph_tensor *w = &g->tensors[op->in[3]];
    const int32_t w0 = w->shape[1];
    w->shape[1] = w0 + 1;
    expect_error(g, "input_to_cell_weights");
    w->shape[1] = w0;

    /* Restored: prepares again. */
    interp *ip = NULL;
    npuc_err e = {0};
    CHECK(interp_create(g, NULL, &ip, &e) == 0);
    interp_free(ip);
    graph_free(g);
    tfl_model_free(tm);
}

/* ---- direct kernel runs ---- */

#define B 3
#define T 4
#define I 5
#define S 6

static uint32_t rng = 12345;
static float frand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)((rng >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

typedef struct lstm_case {
    float x[B * T * I];          /* batch major */
    float w[4][S * I], r[4][S * S], bias[4][S];
} lstm_case;

/* Plain float LSTM (batch major), the quantized kinds' yardstick. */
static void ref_lstm(const lstm_case *k, float clip, float *out)
{
    for (int b = 0; b < B; b++) {
        double h[S] = {0}, c[S] = {0};
        for (int t = 0; t < T; t++) {
            const float *x = k->x + (b * T + t) * I;
            double gate[4][S];
            for (int g = 0; g < 4; g++)
                for (int u = 0; u < S; u++) {
                    double a = k->bias[g][u];
                    for (int d = 0; d < I; d++) a += (double)k->w[g][u * I + d] * x[d];
                    for (int d = 0; d < S; d++) a += (double)k->r[g][u * S + d] * h[d];
                    gate[g][u] = g == 2 ? tanh(a) : 1.0 / (1.0 + exp(-a));
                }
            for (int u = 0; u < S; u++) {
                c[u] = gate[1][u] * c[u] + gate[0][u] * gate[2][u];
                if (clip > 0) c[u] = c[u] > clip ? clip : (c[u] < -clip ? -clip : c[u]);
                h[u] = gate[3][u] * tanh(c[u]);
                out[(b * T + t) * S + u] = (float)h[u];
            }
        }
    }
}

typedef struct kbufs {
    void *in[24];
    uint32_t in_size[24];
    void *out[1];
    uint32_t out_size[1];
    uint8_t scratch[4 * B * S * 4];
} kbufs;

static k_op_io io_of(kbufs *k)
{
    k_op_io io;
    memset(&io, 0, sizeof io);
    io.in = k->in;
    io.in_size = k->in_size;
    io.n_in = 24;
    io.out = k->out;
    io.out_size = k->out_size;
    io.n_out = 1;
    io.scratch = k->scratch;
    io.scratch_size = sizeof k->scratch;
    return io;
}

static void *dup(const void *p, size_t n)
{
    void *d = malloc(n ? n : 1);
    memcpy(d, p, n);
    return d;
}

static void free_bufs(kbufs *k)
{
    for (int i = 0; i < 24; i++) free(k->in[i]);
    free(k->out[0]);
}

/* Quantized scales of the synthetic case. */
static const float xs8 = 1.0f / 128, hs8 = 1.0f / 128, xs16 = 1.0f / 32768, hs16 = 1.0f / 32768, ws = 1.0f / 64;
static const float cs = 1.0f / 2048; /* 2^-11 */

static void blob_common(k_op_lstm_blob *bl, bool time_major, float xs, float hs, bool s16, float clip)
{
    memset(bl, 0, sizeof *bl);
    bl->time_major = time_major;
    bl->batch = B;
    bl->steps = T;
    bl->input_dim = I;
    bl->state_dim = S;
    bl->cell_act = K_LSTM_ACT_TANH;
    bl->hidden_min = s16 ? INT16_MIN : INT8_MIN;
    bl->hidden_max = s16 ? INT16_MAX : INT8_MAX;
    bl->tanh_mult = 0;
    bl->tanh_shift = 15 - 11 - 3;
    if (clip > 0) {
        bl->clip = 1;
        bl->cell_clip = clip;
        bl->cell_clip_q = (int32_t)(clip / cs);
    }
    for (int g = 0; g < 4; g++) {
        k_quantize_multiplier((double)(xs * ws) / (1.0 / 4096), &bl->in_mult[g], &bl->in_shift[g]);
        k_quantize_multiplier((double)(hs * ws) / (1.0 / 4096), &bl->rec_mult[g], &bl->rec_shift[g]);
    }
    k_quantize_multiplier(1.0 / 32768, &bl->fc_mult, &bl->fc_shift);
    k_quantize_multiplier(1.0 / 32768 / 32768 / cs, &bl->ic_mult, &bl->ic_shift);
    k_quantize_multiplier(1.0 / 32768 / 32768 / hs, &bl->oh_mult, &bl->oh_shift);
}

static int32_t qv(float v, float s, int32_t lo, int32_t hi)
{
    long q = lroundf(v / s);
    return (int32_t)(q < lo ? lo : (q > hi ? hi : q));
}

/* Fills the tensors of kind (x in batch-major or time-major order). */
static void fill(kbufs *k, const lstm_case *c, uint32_t kind, bool time_major)
{
    memset(k, 0, sizeof *k);
    const bool f32 = kind == K_OP_LSTM_F32, s16 = kind == K_OP_LSTM_S16;
    const size_t ae = f32 ? 4 : (s16 ? 2 : 1), ce = f32 ? 4 : 2;
    const float xs = s16 ? xs16 : xs8;
    uint8_t x[B * T * I * 4];
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int d = 0; d < I; d++) {
                const float v = c->x[(b * T + t) * I + d];
                const size_t at = time_major ? ((size_t)t * B + b) * I + d : ((size_t)b * T + t) * I + d;
                if (f32) ((float *)x)[at] = v;
                else if (s16) ((int16_t *)x)[at] = (int16_t)qv(v, xs, INT16_MIN, INT16_MAX);
                else ((int8_t *)x)[at] = (int8_t)qv(v, xs, INT8_MIN, INT8_MAX);
            }
    k->in[0] = dup(x, sizeof x);
    k->in_size[0] = (uint32_t)(B * T * I * ae);
    for (int g = 0; g < 4; g++) {
        uint8_t w[S * S * 4];
        for (int j = 0; j < S * I; j++) {
            if (f32) ((float *)w)[j] = c->w[g][j];
            else ((int8_t *)w)[j] = (int8_t)qv(c->w[g][j], ws, -127, 127);
        }
        k->in[1 + g] = dup(w, (size_t)S * I * (f32 ? 4 : 1));
        k->in_size[1 + g] = (uint32_t)(S * I * (f32 ? 4 : 1));
        for (int j = 0; j < S * S; j++) {
            if (f32) ((float *)w)[j] = c->r[g][j];
            else ((int8_t *)w)[j] = (int8_t)qv(c->r[g][j], ws, -127, 127);
        }
        k->in[5 + g] = dup(w, (size_t)S * S * (f32 ? 4 : 1));
        k->in_size[5 + g] = (uint32_t)(S * S * (f32 ? 4 : 1));
        uint8_t bias[S * 8];
        for (int u = 0; u < S; u++) {
            if (f32) ((float *)bias)[u] = c->bias[g][u];
            else if (s16) ((int64_t *)bias)[u] = lroundf(c->bias[g][u] / (xs * ws));
            else ((int32_t *)bias)[u] = (int32_t)lroundf(c->bias[g][u] / (xs * ws));
        }
        k->in[12 + g] = dup(bias, (size_t)S * (s16 ? 8 : 4));
        k->in_size[12 + g] = (uint32_t)(S * (s16 ? 8 : 4));
    }
    k->in[18] = calloc(B * S, ae);
    k->in_size[18] = (uint32_t)(B * S * ae);
    k->in[19] = calloc(B * S, ce);
    k->in_size[19] = (uint32_t)(B * S * ce);
    k->out[0] = calloc(B * T * S, ae);
    k->out_size[0] = (uint32_t)(B * T * S * ae);
}

static float out_value(const kbufs *k, uint32_t kind, bool time_major, int b, int t, int u)
{
    const size_t at = time_major ? ((size_t)t * B + b) * S + u : ((size_t)b * T + t) * S + u;
    if (kind == K_OP_LSTM_F32) return ((const float *)k->out[0])[at];
    if (kind == K_OP_LSTM_S16) return ((const int16_t *)k->out[0])[at] * hs16;
    return ((const int8_t *)k->out[0])[at] * hs8;
}

static void make_blob(k_op_lstm_blob *bl, uint32_t kind, bool time_major, float clip)
{
    blob_common(bl, time_major, kind == K_OP_LSTM_S16 ? xs16 : xs8, kind == K_OP_LSTM_S16 ? hs16 : hs8,
                kind == K_OP_LSTM_S16, clip);
    if (kind == K_OP_LSTM_S16) {
        /* The 16x8 FC requantization takes at most 2^14 (k_mbqm64). */
        CHECK(bl->in_shift[0] <= 14 && bl->rec_shift[0] <= 14);
    }
}

static void test_kernel_kind(uint32_t kind, const lstm_case *c, float clip, float tol)
{
    kbufs kb, kt, k1;
    k_op_lstm_blob bb, bt, b1;
    make_blob(&bb, kind, false, clip);
    make_blob(&bt, kind, true, clip);
    CHECK_EQ_INT(k_op_validate(kind, &bb, sizeof bb), K_OK);
    CHECK_EQ_INT(k_op_validate(kind, &bt, sizeof bt), K_OK);
    fill(&kb, c, kind, false);
    fill(&kt, c, kind, true);
    k_op_io iob = io_of(&kb), iot = io_of(&kt);
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_OK);
    CHECK_EQ_INT(k_op_run(kind, &bt, sizeof bt, &iot), K_OK);
    float ref[B * T * S];
    ref_lstm(c, clip, ref);
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int u = 0; u < S; u++) {
                const float vb = out_value(&kb, kind, false, b, t, u), vt = out_value(&kt, kind, true, b, t, u);
                CHECK(memcmp(&vb, &vt, sizeof vb) == 0); /* same rows, same arithmetic */
                const double d = fabs((double)vb - ref[(b * T + t) * S + u]);
                if (d > worst) worst = d;
            }
    printf("%s (clip %g): max |difference| from a float LSTM %g (bound %g)\n", k_op_name(kind), (double)clip, worst,
           (double)tol);
    CHECK(worst <= tol);

    /* One batch row at a time gives the same rows (batch major, fresh state). */
    for (int b = 0; b < B; b++) {
        lstm_case one = *c;
        memcpy(one.x, c->x + b * T * I, sizeof(float) * T * I);
        fill(&k1, &one, kind, false);
        b1 = bb;
        k_op_io io1 = io_of(&k1);
        CHECK_EQ_INT(k_op_run(kind, &b1, sizeof b1, &io1), K_OK); /* B rows of which row 0 is this batch */
        for (int t = 0; t < T; t++)
            for (int u = 0; u < S; u++) {
                const float v1 = out_value(&k1, kind, false, 0, t, u), vb = out_value(&kb, kind, false, b, t, u);
                CHECK(memcmp(&v1, &vb, sizeof v1) == 0);
            }
        free_bufs(&k1);
    }

    /* State: the second run continues, so it differs; the state tensors are
     * what the kernel updated in place. */
    uint8_t first[B * T * S * 4];
    memcpy(first, kb.out[0], kb.out_size[0]);
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_OK);
    CHECK(memcmp(first, kb.out[0], kb.out_size[0]) != 0);
    const size_t ae = kind == K_OP_LSTM_F32 ? 4 : (kind == K_OP_LSTM_S16 ? 2 : 1);
    /* hidden state = the last step's output of each batch */
    for (int b = 0; b < B; b++)
        CHECK(memcmp((uint8_t *)kb.in[18] + (size_t)b * S * ae,
                     (uint8_t *)kb.out[0] + ((size_t)b * T + T - 1) * S * ae, S * ae) == 0);

    /* Wrong tensor sizes, missing tensors, misalignment, small scratch. */
    static const int tensors[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 18, 19};
    for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; i++) {
        const int j = tensors[i];
        kb.in_size[j]--;
        CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_E_INVALID);
        kb.in_size[j]++;
        void *p = kb.in[j];
        kb.in[j] = NULL;
        CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_E_INVALID);
        kb.in[j] = p;
    }
    kb.out_size[0]--;
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_E_INVALID);
    kb.out_size[0]++;
    iob.scratch_size = 4u * B * S * (kind == K_OP_LSTM_F32 ? 4u : 2u) - 1u;
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_E_INVALID);
    iob.scratch_size = sizeof kb.scratch;
    iob.n_in = 20;
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_OK); /* inputs 20..23 are not read */
    iob.n_in = 19;
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_E_INVALID);
    iob.n_in = 24;
    if (ae > 1) {
        uint8_t *p = kb.in[0];
        kb.in[0] = p + 1;
        CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_E_INVALID);
        kb.in[0] = p;
    }
    CHECK_EQ_INT(k_op_run(kind, &bb, sizeof bb, &iob), K_OK);
    free_bufs(&kb);
    free_bufs(&kt);
}

/* Damaged blobs: every field pushed out of range fails validation. */
static void test_damaged(uint32_t kind)
{
    k_op_lstm_blob good;
    make_blob(&good, kind, false, 0.5f);
    CHECK_EQ_INT(k_op_validate(kind, &good, sizeof good), K_OK);
    CHECK_EQ_INT(k_op_validate(kind, &good, sizeof good - 4), K_E_INVALID);
    CHECK_EQ_INT(k_op_validate(kind, &good, 4), K_E_INVALID);
    const int32_t bad[] = {-1, 0, 2, INT32_MIN, INT32_MAX, 1 << 30, 70000, -70000, 40};
    const size_t nf = sizeof good / 4;
    int rejected = 0, tried = 0;
    for (size_t f = 0; f < nf; f++) {
        for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
            k_op_lstm_blob b = good;
            int32_t *fields = (int32_t *)&b;
            fields[f] = bad[v];
            const int rc = k_op_validate(kind, &b, sizeof b);
            CHECK(rc == K_OK || rc == K_E_INVALID);
            tried++;
            if (rc == K_E_INVALID) rejected++;
            if (rc == K_OK) {
                /* Accepted values must run without going out of bounds:
                 * sizes come from the blob, so build matching tensors. */
                if (b.batch == B && b.steps == T && b.input_dim == I && b.state_dim == S) {
                    lstm_case c;
                    for (size_t j = 0; j < sizeof c / sizeof(float); j++) ((float *)&c)[j] = frand();
                    kbufs k;
                    fill(&k, &c, kind, b.time_major);
                    k_op_io io = io_of(&k);
                    const int r2 = k_op_run(kind, &b, sizeof b, &io);
                    CHECK(r2 == K_OK || r2 == K_E_INVALID);
                    free_bufs(&k);
                }
            }
        }
    }
    CHECK(rejected > 0 && rejected < tried);
    /* Wrong kinds. */
    CHECK_EQ_INT(k_op_validate(K_OP_LSTM_F32 + 1, &good, sizeof good), K_E_INVALID);
    CHECK(k_op_name(K_OP_LSTM_S8) && !strcmp(k_op_name(K_OP_LSTM_S8), "lstm_s8"));
    CHECK(k_op_name(K_OP_LSTM_S16) && !strcmp(k_op_name(K_OP_LSTM_S16), "lstm_s16"));
    CHECK(k_op_name(K_OP_LSTM_F32) && !strcmp(k_op_name(K_OP_LSTM_F32), "lstm_f32"));
}

static void test_kernels(void)
{
    lstm_case c;
    for (size_t j = 0; j < sizeof c / sizeof(float); j++) ((float *)&c)[j] = frand();
    for (int g = 0; g < 4; g++)
        for (int j = 0; j < S * S; j++) c.r[g][j] *= 0.5f;
    test_kernel_kind(K_OP_LSTM_F32, &c, 0.0f, 1e-5f);
    test_kernel_kind(K_OP_LSTM_F32, &c, 0.3f, 1e-5f);
    test_kernel_kind(K_OP_LSTM_S8, &c, 0.0f, 0.02f);
    test_kernel_kind(K_OP_LSTM_S8, &c, 0.3f, 0.02f);
    test_kernel_kind(K_OP_LSTM_S16, &c, 0.0f, 0.01f);
    test_kernel_kind(K_OP_LSTM_S16, &c, 0.3f, 0.01f);
    test_damaged(K_OP_LSTM_S8);
    test_damaged(K_OP_LSTM_S16);
    test_damaged(K_OP_LSTM_F32);
}

int main(void)
{
    test_goldens();
    test_state();
    test_rejects();
    test_kernels();
    TEST_MAIN_END();
}
