/* Interpreter bindings of the activation group (ops_activation.c): one-op
 * graphs through interp_create / invoke, parameters derived from the tensor
 * scales (expected values worked by hand, see test_k_act.c /
 * test_k_softmax.c / test_k_quant.c), and the errors for unsupported or
 * inconsistent models. */
#include "test.h"
#include <math.h>
#include "k_op_test.h"

#include <stdint.h>

/* One-op graph in -> out; runs it with in_data, copies the output. */
static int run1(graph *g, int32_t opcode, const tfl_options *opt, int32_t in, int32_t out, const void *in_data,
                void *out_data, npuc_err *e)
{
    const void *ins[1] = {in_data};
    return kt_run1(g, opcode, opt, 1, &in, out, ins, out_data, e);
}

static tfl_options opts(void)
{
    tfl_options o;
    tfl_options_default(&o);
    return o;
}

static void test_relu6(void)
{
    graph *g = graph_new("relu6");
    const int32_t s[2] = {1, 4};
    int32_t x = kt_tensor(g, "x", GRAPH_I8, 2, s, NULL, 0.5f, -10);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 2, s, NULL, 0.25f, 5);
    tfl_options o = opts();
    int8_t in[4] = {0, 2, 3, -11}, out[4];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_RELU6, &o, x, y, in, out, &e), 0);
    /* 5 + 2 * (q + 10) clamped to [5, 29] */
    const int8_t want[4] = {25, 29, 29, 5};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(out[i], want[i]);
    graph_free(g);
}

/* RELU_0_TO_1 (TFLite's kernel: requantize, clamp to the quantized 0..1) */
static void test_relu01(void)
{
    graph *g = graph_new("relu01");
    const int32_t s[2] = {1, 5};
    int32_t x = kt_tensor(g, "x", GRAPH_I8, 2, s, NULL, 1.0f / 64, 3);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 2, s, NULL, 1.0f / 128, -128);
    tfl_options o = opts();
    int8_t in[5] = {-128, 3, 35, 67, 127}, out[5];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_RELU_0_TO_1, &o, x, y, in, out, &e), 0);
    /* -128 + 2 * (q - 3) clamped to [-128 (0.0), 0 (1.0)] */
    const int8_t want[5] = {-128, -128, -64, 0, 0};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i], want[i]);
    graph_free(g);
}

static void test_leaky_s16(void)
{
    graph *g = graph_new("leaky");
    const int32_t s[1] = {4};
    int32_t x = kt_tensor(g, "x", GRAPH_I16, 1, s, NULL, 1.0f / 4096, 0);
    int32_t y = kt_tensor(g, "y", GRAPH_I16, 1, s, NULL, 1.0f / 8192, 0);
    tfl_options o = opts();
    o.alpha = 0.2f;
    int16_t in[4] = {-32768, 7, 16383, 20000}, out[4];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_LEAKY_RELU, &o, x, y, in, out, &e), 0);
    const int16_t want[4] = {-13107, 14, 32766, 32767};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(out[i], want[i]);
    graph_free(g);
}

static void test_softmax_s8_s16(void)
{
    graph *g = graph_new("softmax");
    const int32_t s[2] = {1, 4};
    int32_t x = kt_tensor(g, "x", GRAPH_I8, 2, s, NULL, 0.0699627325f, 2);
    int32_t y = kt_tensor(g, "y", GRAPH_I16, 2, s, NULL, 1.0f / 65536, -32768);
    tfl_options o = opts();
    o.beta = 1.0f;
    int8_t in[4] = {7, -1, 7, 4};
    int16_t out[4];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_SOFTMAX, &o, x, y, in, out, &e), 0);
    const int16_t want[4] = {-13390, -21696, -13390, -17059};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(out[i], want[i]);
    graph_free(g);
}

static void test_softmax_s16(void)
{
    graph *g = graph_new("softmax16");
    const int32_t s[2] = {1, 4};
    int32_t x = kt_tensor(g, "x", GRAPH_I16, 2, s, NULL, 1.0f / 4096, 0);
    int32_t y = kt_tensor(g, "y", GRAPH_I16, 2, s, NULL, 1.0f / 32768, 0);
    tfl_options o = opts();
    o.beta = 1.0f;
    int16_t in[4] = {100, 100, 100, 100}, out[4];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_SOFTMAX, &o, x, y, in, out, &e), 0);
    for (int i = 0; i < 4; i++) CHECK(out[i] >= 8190 && out[i] <= 8193);
    graph_free(g);
}

static void test_quantize_s16_s32(void)
{
    graph *g = graph_new("quantize");
    const int32_t s[1] = {5};
    int32_t x = kt_tensor(g, "x", GRAPH_I16, 1, s, NULL, 1.0f / 32768, 0);
    int32_t y = kt_tensor(g, "y", GRAPH_I32, 1, s, NULL, 3.0f / 32768, 0);
    tfl_options o = opts();
    int16_t in[5] = {1, 2, -2, 32767, -32768};
    int32_t out[5];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_QUANTIZE, &o, x, y, in, out, &e), 0);
    const int32_t want[5] = {1, 1, -1, 10923, -10923};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i], want[i]);
    graph_free(g);
}

static void test_quantize_dequantize_f32(void)
{
    graph *g = graph_new("q");
    const int32_t s[1] = {3};
    int32_t x = kt_tensor(g, "x", GRAPH_F32, 1, s, NULL, 0.0f, 0);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 1, s, NULL, 0.5f, -1);
    tfl_options o = opts();
    float in[3] = {1.25f, -1.25f, 1000.0f};
    int8_t out[3];
    npuc_err e = {0};
    CHECK_EQ_INT(run1(g, TFL_OP_QUANTIZE, &o, x, y, in, out, &e), 0);
    CHECK_EQ_INT(out[0], 2);
    CHECK_EQ_INT(out[1], -4);
    CHECK_EQ_INT(out[2], 127);
    graph_free(g);

    g = graph_new("dq");
    x = kt_tensor(g, "x", GRAPH_U8, 1, s, NULL, 0.25f, 128);
    y = kt_tensor(g, "y", GRAPH_F32, 1, s, NULL, 0.0f, 0);
    uint8_t uin[3] = {0, 255, 128};
    float fout[3];
    CHECK_EQ_INT(run1(g, TFL_OP_DEQUANTIZE, &o, x, y, uin, fout, &e), 0);
    CHECK(fout[0] == -32.0f && fout[1] == 31.75f && fout[2] == 0.0f);
    graph_free(g);
}

/* Builds a one-op graph and expects interp_create to fail with `needle`. */
static void expect_error(int32_t opcode, graph_dtype din, float sin, int64_t zin, graph_dtype dout, float sout,
                         int64_t zout, const int32_t *out_shape, const char *needle)
{
    graph *g = graph_new("err");
    const int32_t s[2] = {1, 4};
    int32_t x = kt_tensor(g, "x", din, 2, s, NULL, sin, zin);
    int32_t y = kt_tensor(g, "y", dout, 2, out_shape ? out_shape : s, NULL, sout, zout);
    tfl_options o = opts();
    o.beta = 1.0f;
    kt_op1(g, opcode, &o, 1, &x, y);
    npuc_err e;
    int rc = kt_try_create(g, &e);
    CHECK(rc != 0);
    if (rc) CHECK_STR_CONTAINS(e.msg, needle);
    graph_free(g);
}

static void test_errors(void)
{
    const int32_t wrong[2] = {1, 5};
    expect_error(TFL_OP_SOFTMAX, GRAPH_I8, 0.1f, 0, GRAPH_I8, 1.0f / 256, 0, NULL, "zero point 0; expected -128");
    expect_error(TFL_OP_SOFTMAX, GRAPH_I8, 0.1f, 0, GRAPH_I8, 0.5f, -128, NULL, "needs 1/256");
    expect_error(TFL_OP_SOFTMAX, GRAPH_I16, 0.1f, 0, GRAPH_I8, 1.0f / 256, -128, NULL,
                 "SOFTMAX with input int16 and output int8 is not supported");
    expect_error(TFL_OP_HARD_SWISH, GRAPH_I16, 0.1f, 0, GRAPH_I16, 0.1f, 0, NULL,
                 "HARD_SWISH is not supported for int16");
    expect_error(TFL_OP_RELU_0_TO_1, GRAPH_I16, 0.1f, 0, GRAPH_I16, 0.1f, 0, NULL,
                 "RELU_0_TO_1 is not supported for int16 tensors (input 'x'); supported: float32, int8");
    expect_error(TFL_OP_LOGISTIC, GRAPH_I16, 1.0f / 4096, 0, GRAPH_I16, 1.0f / 256, 0, NULL, "needs 2^-15");
    expect_error(TFL_OP_LOGISTIC, GRAPH_I8, 0.1f, 0, GRAPH_I8, 1.0f / 256, 0, NULL, "expected -128");
    expect_error(TFL_OP_RELU, GRAPH_I16, 0.1f, 3, GRAPH_I16, 0.1f, 0, NULL, "zero point 3; expected 0");
    expect_error(TFL_OP_RELU, GRAPH_I8, 0.1f, 0, GRAPH_I16, 0.1f, 0, NULL, "types must match");
    expect_error(TFL_OP_TANH, GRAPH_I8, 0.1f, 0, GRAPH_I8, 1.0f / 128, 0, wrong, "has shape [1,5]");
    expect_error(TFL_OP_QUANTIZE, GRAPH_F32, 0.0f, 0, GRAPH_I32, 1.0f, 0, NULL,
                 "QUANTIZE from float32 to int32 is not supported");
    expect_error(TFL_OP_QUANTIZE, GRAPH_U8, 0.1f, 0, GRAPH_I16, 1.0f, 0, NULL,
                 "QUANTIZE from uint8 to int16 is not supported");
    expect_error(TFL_OP_DEQUANTIZE, GRAPH_I8, 0.1f, 0, GRAPH_I16, 1.0f, 0, NULL, "output must be float32");
    expect_error(TFL_OP_RELU, GRAPH_I8, 0.0f, 0, GRAPH_I8, 0.1f, 0, NULL, "has no quantization parameters");
    expect_error(TFL_OP_LEAKY_RELU, GRAPH_I8, 0.1f, 200, GRAPH_I8, 0.1f, 0, NULL, "out of int8 range");
    /* Fuzzer findings: absurd scales are refused instead of overflowing the
     * float -> int conversions of the activation range. */
    expect_error(TFL_OP_RELU6, GRAPH_I8, 1.0f, 0, GRAPH_I8, 1e-30f, 0, NULL, "too large to requantize");
    expect_error(TFL_OP_RELU, GRAPH_I8, 1e-40f, 0, GRAPH_I8, 0.1f, 0, NULL, "input tensor 'x' has invalid scale");
    expect_error(TFL_OP_TANH, GRAPH_I16, 0.1f, 0, GRAPH_I16, INFINITY, 0, NULL, "has invalid scale inf");
    {
        /* quantized SOFTMAX with a NaN beta (silently a zero multiplier) */
        graph *gb = graph_new("beta");
        const int32_t sb[2] = {1, 4};
        int32_t xb = kt_tensor(gb, "x", GRAPH_I16, 2, sb, NULL, 0.001f, 0);
        int32_t yb = kt_tensor(gb, "y", GRAPH_I16, 2, sb, NULL, 1.0f / 32768, 0);
        tfl_options ob = opts();
        ob.beta = NAN;
        kt_op1(gb, TFL_OP_SOFTMAX, &ob, 1, &xb, yb);
        npuc_err eb;
        CHECK_EQ_INT(kt_try_create(gb, &eb), NPUC_E_INVALID);
        CHECK_STR_CONTAINS(eb.msg, "beta nan is not finite");
        graph_free(gb);
    }

    /* per-channel quantization on an activation */
    graph *g = graph_new("pc");
    const int32_t s[2] = {1, 2};
    int32_t x = graph_add_tensor(g, "x", GRAPH_I8, 2, s, NULL);
    const float sc[2] = {0.1f, 0.2f};
    const int64_t zp[2] = {0, 0};
    graph_set_quant(g, x, 2, sc, zp, 1);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 2, s, NULL, 0.1f, 0);
    tfl_options o = opts();
    kt_op1(g, TFL_OP_RELU, &o, 1, &x, y);
    npuc_err e;
    int rc = kt_try_create(g, &e);
    CHECK(rc != 0);
    if (rc) CHECK_STR_CONTAINS(e.msg, "per-channel");
    graph_free(g);
}

int main(void)
{
    test_relu6();
    test_relu01();
    test_leaky_s16();
    test_softmax_s8_s16();
    test_softmax_s16();
    test_quantize_s16_s32();
    test_quantize_dequantize_f32();
    test_errors();
    TEST_MAIN_END();
}
