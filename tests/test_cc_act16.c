/* int16 pointwise ops on the NPU (src/compiler/cc_act16.c): TANH, LOGISTIC,
 * RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, QUANTIZE (int16 <-> int8/int16),
 * HARD_SWISH. Single-op graphs whose input holds every value of its type
 * (all 65536 int16 values, or all 256 int8 values, in a random order, the
 * rest of the tensor random) over many random quantizations, shapes and
 * Ethos-U variants, plus chains of these ops in one epoch, are compiled
 * (cc_compile -> emit_tflite_model -> tfl_write -> tfl_read -> graph_import,
 * as a user gets them), run with the ethos-u op on the virtual NPU and
 * compared byte for byte with the reference interpreter on the source graph.
 * Each op must land where expected: on the NPU with the expected number of
 * NPU operations (1 for the requantizing pool, the built-in TANH/SIGMOID and
 * LRELU; 3 for LEAKY_RELU's two rescales + MAX/MIN), or on the CPU with the
 * expected reason (the reference's own message when it rejects the op).
 *
 * Environment: NPUC_ACT16_CONFIGS (random configurations, default 400),
 * NPUC_ACT16_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/kernels/k_activation.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_test_npu.h"

/* ------------------------------------------------------------ configs */

/* an op chain and what the compiler must do with each op */
typedef cc_chain_op op_cfg;
typedef cc_chain cfg;

typedef struct stats {
    int configs, ops_npu, ops_cpu, runs, failed;
    long values;
} stats;

typedef struct run_ctx {
    const cfg *c;
    const char *cs;
    uint64_t seed;
    stats *st;
} run_ctx;

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *in, size_t n)
{
    run_ctx *x = user;
    size_t n_el = n / graph_dtype_size(x->c->in_dt);
    (void)d;
    (void)k;
    cc_fill_every_value(r, x->c->in_dt, in, n_el);
    x->st->values += (long)n_el;
}

static void diff_draw(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t at)
{
    run_ctx *x = user;
    const cfg *c = x->c;
    size_t na, nb, es = graph_dtype_size(c->ops[c->n - 1].out_dt);
    const void *oa = interp_output(t->ref, k, &na), *ob = interp_output(t->npu, k, &nb);
    size_t idx = at / es;
    long long va = es == 1 ? ((const int8_t *)oa)[idx] : ((const int16_t *)oa)[idx];
    long long vb = es == 1 ? ((const int8_t *)ob)[idx] : ((const int16_t *)ob)[idx];
    long long v = c->in_dt == GRAPH_I16 ? ((const int16_t *)in)[idx] : ((const int8_t *)in)[idx];
    fprintf(stderr, "FAIL %s, seed %llu, draw %d: element %zu (input %lld): reference %lld, NPU %lld\n", x->cs,
            (unsigned long long)x->seed, d, idx, v, va, vb);
}

/* Compiles and checks one configuration. */
static bool run_config(const cfg *c, uint64_t seed, stats *st)
{
    char cs[600];
    cc_chain_str(c, cs, sizeof cs);
    run_ctx x = {c, cs, seed, st};
    cc_draws d = {.n_draws = 2, .seed = seed, .fill = fill_draw, .diff = diff_draw, .user = &x, .runs = &st->runs};
    st->configs++;
    bool ok = cc_run_chain(c, "act16", cs, NULL, &st->ops_npu, &st->ops_cpu, &d);
    if (!ok) st->failed++;
    return ok;
}

/* ------------------------------------------------------ random configs */

/* A random NHWC shape with at least `min` elements (and not many more). */
static void random_shape(npuc_rng *r, int32_t min, int32_t s[4])
{
    s[0] = 1;
    for (;;) {
        s[3] = (int32_t)npuc_rng_range(r, 1, npuc_rng_range(r, 0, 1) ? 16 : 300);
        s[2] = (int32_t)npuc_rng_range(r, 1, 300);
        int64_t hw = (int64_t)s[3] * s[2];
        int64_t h = (min + hw - 1) / hw;
        if (h > 4096) continue;
        s[1] = (int32_t)(h + npuc_rng_range(r, 0, 2));
        return;
    }
}

/* exp-uniform in [lo, hi] */
static float rand_scale(npuc_rng *r, double lo, double hi)
{
    double l = log(lo), h = log(hi);
    return (float)exp(l + (h - l) * npuc_rng_unit(r));
}

static int64_t rand_zp(npuc_rng *r, graph_dtype dt)
{
    if (npuc_rng_range(r, 0, 3) == 0) return 0;
    return dt == GRAPH_I16 ? npuc_rng_range(r, -32768, 32767) : npuc_rng_range(r, -128, 127);
}

/* One random single-op configuration of kind k and its expectation. */
enum { K_TANH, K_LOGISTIC, K_RELU, K_RELU6, K_RELU1, K_LEAKY, K_QUANT, K_COUNT };

static void random_config(npuc_rng *r, int k, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->n = 1;
    op_cfg *p = &c->ops[0];
    p->expect = CC_X_NPU;
    p->n_eu = 1;
    c->in_dt = GRAPH_I16;
    p->out_dt = GRAPH_I16;
    switch (k) {
    case K_TANH:
    case K_LOGISTIC: {
        p->opcode = k == K_TANH ? TFL_OP_TANH : TFL_OP_LOGISTIC;
        p->os = 1.0f / 32768;
        int v = (int)npuc_rng_range(r, 0, 5);
        /* TFLite's special power-of-two scales, other powers of two, random */
        c->is = v == 0 ? 1.0f / 4096 : v == 1 ? 1.0f / 2048 : v == 2 ? ldexpf(1.0f, (int)npuc_rng_range(r, -20, 1))
                                                              : rand_scale(r, 1e-6, 8.0);
        k_sigmoid_s16_params sp;
        if (k_sigmoid_s16_prepare(c->is, k == K_TANH, &sp) != K_OK) p->expect = CC_X_CPU;
        break;
    }
    case K_RELU:
    case K_RELU6:
    case K_RELU1:
        p->opcode = k == K_RELU ? TFL_OP_RELU : k == K_RELU6 ? TFL_OP_RELU6 : TFL_OP_RELU_N1_TO_1;
        c->is = rand_scale(r, 1e-5, 1.0);
        p->os = npuc_rng_range(r, 0, 3) == 0 ? c->is : (float)(c->is * rand_scale(r, 1.0 / 4096, 4096));
        break;
    case K_LEAKY: {
        p->opcode = TFL_OP_LEAKY_RELU;
        c->is = rand_scale(r, 1e-5, 1.0);
        bool same = npuc_rng_range(r, 0, 3) == 0;
        p->os = same ? c->is : (float)(c->is * rand_scale(r, 1.0 / 64, 64));
        c->izp = rand_zp(r, GRAPH_I16);
        p->ozp = same ? c->izp : rand_zp(r, GRAPH_I16);
        int a = (int)npuc_rng_range(r, 0, 9);
        p->alpha = a == 0 ? 0.0f : a == 1 ? 1.0f : a <= 5 ? (float)npuc_rng_unit(r)
                 : a <= 7 ? (float)(1.0 + 20.0 * npuc_rng_unit(r)) : -(float)npuc_rng_unit(r);
        /* one LRELU when the identity rescale is exact and alpha >= 0;
         * alpha < 0 may meet a rounding tie (then CPU) */
        p->n_eu = (p->os == c->is && p->alpha >= 0) ? 1 : 3;
        if (p->alpha < 0) p->expect = CC_X_ANY;
        break;
    }
    default: {
        p->opcode = TFL_OP_QUANTIZE;
        int v = (int)npuc_rng_range(r, 0, 2);
        c->in_dt = v == 1 ? GRAPH_I8 : GRAPH_I16;
        p->out_dt = v == 2 ? GRAPH_I8 : GRAPH_I16;
        c->is = rand_scale(r, 1e-5, 1.0);
        /* int8 -> int16 upscales up to 2^12 (left shift 13: x << 13 fits
         * 32 bits for int8 differences); int16 input up to 2^7 (shift 8) */
        double up = c->in_dt == GRAPH_I8 ? 4096 : 128;
        p->os = (float)(c->is / rand_scale(r, 1.0 / 4096, up));
        c->izp = rand_zp(r, c->in_dt);
        p->ozp = rand_zp(r, p->out_dt);
        break;
    }
    }
    if (p->opcode != TFL_OP_LEAKY_RELU && p->opcode != TFL_OP_QUANTIZE) c->izp = p->ozp = 0;
    random_shape(r, c->in_dt == GRAPH_I16 ? 65536 : 256, c->shape);
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_ACT16_CONFIGS", 400);
    long first = env_long("NPUC_ACT16_SEED", 1);
    npuc_rng r;
    npuc_rng_seed(&r, 777);
    int vi = 0;

    /* random single-op configurations, every kind, every variant */
    for (long i = 0; i < n_random; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng_seed(&r, seed * 7919u + 13);
        cfg c;
        random_config(&r, (int)(i % K_COUNT), &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, seed, &st);
    }

    /* fixed cases: TFLite's special TANH/LOGISTIC scales on every variant */
    for (int v = 0; v < 6; v++) {
        static const float scales[3] = {1.0f / 4096, 1.0f / 2048, 0.000123f};
        for (int k = 0; k < 2; k++)
            for (int s = 0; s < 3; s++) {
                cfg c;
                memset(&c, 0, sizeof c);
                c.in_dt = GRAPH_I16;
                c.is = scales[s];
                c.shape[0] = 1; c.shape[1] = 16; c.shape[2] = 64; c.shape[3] = 64;
                c.n = 1;
                c.ops[0] = (op_cfg){.opcode = k ? TFL_OP_TANH : TFL_OP_LOGISTIC, .out_dt = GRAPH_I16,
                                    .os = 1.0f / 32768, .expect = CC_X_NPU, .n_eu = 1};
                c.variant = variants[v];
                run_config(&c, (uint64_t)(100 + v), &st);
            }
    }

    /* the seanet LEAKY_RELU quantizations (alpha 0.3, int16, zero point 0) */
    {
        static const float q[][2] = {{0.00174882344f, 0.00174882344f}, {0.00583687471f, 0.00464229053f},
                                     {0.00947386865f, 0.00396247813f}, {0.000806929602f, 0.000657086493f}};
        for (int i = 0; i < 4; i++) {
            cfg c;
            memset(&c, 0, sizeof c);
            c.in_dt = GRAPH_I16;
            c.is = q[i][0];
            c.shape[0] = 1; c.shape[1] = 2; c.shape[2] = 160; c.shape[3] = 205;
            c.n = 1;
            c.ops[0] = (op_cfg){.opcode = TFL_OP_LEAKY_RELU, .alpha = 0.3f, .out_dt = GRAPH_I16, .os = q[i][1],
                                .expect = CC_X_NPU, .n_eu = q[i][0] == q[i][1] ? 1 : 3};
            c.variant = variants[i % 6];
            run_config(&c, (uint64_t)(200 + i), &st);
        }
    }

    /* chains in one epoch: int8 -> int16 -> ... -> int8, scratch buffers,
     * intermediates stored as bricks */
    for (int v = 0; v < 12; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = GRAPH_I8;
        c.is = 0.05f;
        c.izp = 3;
        c.shape[0] = 1; c.shape[1] = 5; c.shape[2] = 9; c.shape[3] = v < 6 ? 16 : 37;
        c.n = 5;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I16, .os = 0.0004f, .expect = CC_X_NPU, .n_eu = 1};
        c.ops[1] = (op_cfg){.opcode = TFL_OP_LEAKY_RELU, .alpha = 0.2f, .out_dt = GRAPH_I16, .os = 0.0003f,
                            .expect = CC_X_NPU, .n_eu = 3};
        c.ops[2] = (op_cfg){.opcode = TFL_OP_TANH, .out_dt = GRAPH_I16, .os = 1.0f / 32768, .expect = CC_X_NPU, .n_eu = 1};
        c.ops[3] = (op_cfg){.opcode = TFL_OP_RELU6, .out_dt = GRAPH_I16, .os = 1.0f / 32768, .expect = CC_X_NPU, .n_eu = 1};
        c.ops[4] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I8, .os = 1.0f / 256, .ozp = -5,
                            .expect = CC_X_NPU, .n_eu = 1};
        c.variant = variants[v % 6];
        c.optimise = v % 2 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, (uint64_t)(300 + v), &st);
    }

    /* what stays on the CPU, and why */
    {
        cfg base;
        memset(&base, 0, sizeof base);
        base.in_dt = GRAPH_I16;
        base.is = 0.001f;
        base.shape[0] = 1; base.shape[1] = 16; base.shape[2] = 64; base.shape[3] = 64;
        base.n = 1;
        base.variant = EU_U55_128;
        cfg c = base;
        /* HARD_SWISH: no int16 reference kernel */
        c.ops[0] = (op_cfg){.opcode = TFL_OP_HARD_SWISH, .out_dt = GRAPH_I16, .os = 0.001f, .expect = CC_X_CPU};
        run_config(&c, 400, &st);
        /* TANH with an input scale beyond TFLite's range (the reference's reason) */
        c = base;
        c.is = 8.0f;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_TANH, .out_dt = GRAPH_I16, .os = 1.0f / 32768, .expect = CC_X_CPU};
        run_config(&c, 401, &st);
        /* LOGISTIC with a wrong output scale */
        c = base;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_LOGISTIC, .out_dt = GRAPH_I16, .os = 1.0f / 1024, .expect = CC_X_CPU};
        run_config(&c, 402, &st);
        /* LEAKY_RELU with alpha -0.5: TFLite's ties of 0.5 x round before
         * the negation; with -0.3 no input meets a tie (the 3-op form) */
        c = base;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_LEAKY_RELU, .alpha = -0.5f, .out_dt = GRAPH_I16, .os = 0.001f,
                            .expect = CC_X_CPU, .why = "alpha -0.5 < 0: TFLite rounds alpha * x before negating"};
        run_config(&c, 403, &st);
        c.ops[0] = (op_cfg){.opcode = TFL_OP_LEAKY_RELU, .alpha = -0.3f, .out_dt = GRAPH_I16, .os = 0.0007f,
                            .expect = CC_X_NPU, .n_eu = 3};
        run_config(&c, 407, &st);
        /* QUANTIZE upscaling int16 by 2^18: TFLite's x << 18 wraps 32 bits
         * where the NPU saturates */
        c = base;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I16, .os = 0.001f / 262144.0f,
                            .expect = CC_X_CPU, .why = "the NPU's rescale differs from the reference at input"};
        run_config(&c, 404, &st);
        /* TANH int16 -> int8: the reference has no such kernel */
        c = base;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_TANH, .out_dt = GRAPH_I8, .os = 1.0f / 128, .expect = CC_X_CPU};
        run_config(&c, 405, &st);
        /* a CPU op between NPU ops: TANH, QUANTIZE x 2^18 (CPU), RELU */
        c = base;
        c.n = 3;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_TANH, .out_dt = GRAPH_I16, .os = 1.0f / 32768, .expect = CC_X_NPU, .n_eu = 1};
        c.ops[1] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I16, .os = 1.0f / 32768 / 262144.0f,
                            .expect = CC_X_CPU, .why = "the NPU's rescale differs from the reference at input"};
        c.ops[2] = (op_cfg){.opcode = TFL_OP_RELU, .out_dt = GRAPH_I16, .os = 1.0f / 16384, .expect = CC_X_NPU, .n_eu = 1};
        run_config(&c, 406, &st);
    }

    printf("act16: %d configurations (%d failed), ops %d on the NPU / %d on the CPU, %d compiled runs, "
           "%ld values compared\n", st.configs, st.failed, st.ops_npu, st.ops_cpu, st.runs, st.values);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
