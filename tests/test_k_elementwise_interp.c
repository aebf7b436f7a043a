/* Interpreter bindings of the pool / elementwise / MEAN group: parameter
 * preparation from tensor scales (checked against hand-derived results)
 * and the error messages for unsupported or inconsistent models. */
#include "test.h"
#include "k_op_test.h"

#include <stdint.h>
#include <string.h>

static void test_add_broadcast(void)
{
    /* scales 0.5, 0.5 -> 1.0: out = round_half_away((a + b) / 2). */
    graph *g = graph_new("add");
    const int32_t s4[4] = {1, 1, 2, 3}, s1[1] = {3};
    int32_t a = kt_tensor(g, "a", GRAPH_I8, 4, s4, NULL, 0.5f, 0);
    int32_t b = kt_tensor(g, "b", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    int32_t o = kt_tensor(g, "o", GRAPH_I8, 4, s4, NULL, 1.0f, 0);
    tfl_options opt;
    tfl_options_default(&opt);
    int8_t av[6] = {3, -3, 1, 127, -128, 0}, bv[3] = {2, -2, 0};
    const void *ins[2] = {av, bv};
    int8_t ov[6];
    npuc_err e = {0};
    const int32_t in[2] = {a, b};
    CHECK_EQ_INT(kt_run1(g, TFL_OP_ADD, &opt, 2, in, o, ins, ov, &e), 0);
    /* 2.5->3, -2.5->-3, 0.5->1, (127+2)/2=64.5->65, (-128-2)/2=-65, 0 */
    const int8_t want[6] = {3, -3, 1, 65, -65, 0};
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(ov[i], want[i]);
    graph_free(g);
}

static void test_mean_interp(void)
{
    /* MEAN over axes {1,2} of [1,2,2,2], keep_dims, same scale. */
    graph *g = graph_new("mean");
    const int32_t si[4] = {1, 2, 2, 2}, so[4] = {1, 1, 1, 2}, sa[1] = {2};
    const int32_t axes[2] = {2, -3};
    int32_t x = kt_tensor(g, "x", GRAPH_I8, 4, si, NULL, 0.25f, 3);
    int32_t ax = graph_add_tensor(g, "axes", GRAPH_I32, 1, sa, axes);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 4, so, NULL, 0.25f, 3);
    tfl_options opt;
    tfl_options_default(&opt);
    opt.keep_dims = true;
    int8_t xv[8] = {4, 0, 5, 0, 6, 0, 6, 1}, yv[2];
    const void *ins[2] = {xv, NULL};
    npuc_err e = {0};
    const int32_t in[2] = {x, ax};
    CHECK_EQ_INT(kt_run1(g, TFL_OP_MEAN, &opt, 2, in, y, ins, yv, &e), 0);
    /* Multiplier (2^30, 1) with 1/4 folded in -> (2^30, -1), rounded twice:
     * channel 0: centred 1,2,3,3 = 9: srdhm 4.5 -> 5, 5/2 = 2.5 -> 3 (a
     * single rounding of 2.25 would give 2), + 3 = 6;
     * channel 1: centred -3,-3,-3,-2 = -11: srdhm -5.5 -> -5 (half up),
     * -2.5 -> -3, + 3 = 0 */
    CHECK_EQ_INT(yv[0], 6);
    CHECK_EQ_INT(yv[1], 0);
    graph_free(g);

    /* wrong output shape */
    g = graph_new("mean_bad");
    x = kt_tensor(g, "x", GRAPH_I8, 4, si, NULL, 0.25f, 3);
    ax = graph_add_tensor(g, "axes", GRAPH_I32, 1, sa, axes);
    const int32_t sbad[2] = {1, 2};
    y = kt_tensor(g, "y", GRAPH_I8, 2, sbad, NULL, 0.25f, 3);
    const int32_t in2[2] = {x, ax};
    CHECK(kt_run1(g, TFL_OP_MEAN, &opt, 2, in2, y, ins, yv, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "expected [1,1,1,2]");
    graph_free(g);
}

static void test_errors(void)
{
    npuc_err e = {0};
    tfl_options opt;
    int8_t buf[64] = {0};
    const void *ins[2] = {buf, buf};

    /* pool output shape */
    graph *g = graph_new("pool");
    const int32_t si[4] = {1, 4, 4, 1}, so[4] = {1, 3, 3, 1};
    int32_t x = kt_tensor(g, "x", GRAPH_I8, 4, si, NULL, 0.5f, 0);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 4, so, NULL, 0.5f, 0);
    tfl_options_default(&opt);
    opt.padding = TFL_PAD_SAME;
    opt.stride_h = opt.stride_w = 2;
    opt.filter_h = opt.filter_w = 2;
    kt_expect_reject(g, TFL_OP_MAX_POOL_2D, &opt, 1, &x, y, "expected [1,2,2,1]");

    /* pool quantization mismatch */
    g = graph_new("pool2");
    const int32_t so2[4] = {1, 2, 2, 1};
    x = kt_tensor(g, "x", GRAPH_I8, 4, si, NULL, 0.5f, 0);
    y = kt_tensor(g, "y", GRAPH_I8, 4, so2, NULL, 0.25f, 0);
    kt_expect_reject(g, TFL_OP_AVERAGE_POOL_2D, &opt, 1, &x, y, "quantization differ");

    /* fused TANH is not supported */
    g = graph_new("tanh");
    const int32_t s1[1] = {4};
    int32_t a = kt_tensor(g, "a", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    int32_t b = kt_tensor(g, "b", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    int32_t o = kt_tensor(g, "o", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    tfl_options_default(&opt);
    opt.activation = TFL_ACT_TANH;
    const int32_t in[2] = {a, b};
    kt_expect_reject(g, TFL_OP_MUL, &opt, 2, in, o, "TANH");

    /* int16 MUL with a non-zero zero point */
    g = graph_new("mul16");
    a = kt_tensor(g, "a", GRAPH_I16, 1, s1, NULL, 0.5f, 1);
    b = kt_tensor(g, "b", GRAPH_I16, 1, s1, NULL, 0.5f, 0);
    o = kt_tensor(g, "o", GRAPH_I16, 1, s1, NULL, 0.5f, 0);
    tfl_options_default(&opt);
    const int32_t in3[2] = {a, b};
    kt_expect_reject(g, TFL_OP_MUL, &opt, 2, in3, o, "zero points 0");

    /* shapes that do not broadcast */
    g = graph_new("bcast");
    const int32_t s3[1] = {3};
    a = kt_tensor(g, "a", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    b = kt_tensor(g, "b", GRAPH_I8, 1, s3, NULL, 0.5f, 0);
    o = kt_tensor(g, "o", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    const int32_t in4[2] = {a, b};
    kt_expect_reject(g, TFL_OP_SUB, &opt, 2, in4, o, "cannot be broadcast");

    /* mixed types */
    g = graph_new("mixed");
    a = kt_tensor(g, "a", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    b = kt_tensor(g, "b", GRAPH_I16, 1, s1, NULL, 0.5f, 0);
    o = kt_tensor(g, "o", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    const int32_t in5[2] = {a, b};
    kt_expect_reject(g, TFL_OP_MAXIMUM, &opt, 2, in5, o, "input 2 int16");

    /* Fuzzer findings. A denormal scale is refused (absurd multipliers). */
    g = graph_new("denormal");
    a = kt_tensor(g, "a", GRAPH_I8, 1, s1, NULL, 1e-40f, 0);
    b = kt_tensor(g, "b", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    o = kt_tensor(g, "o", GRAPH_I8, 1, s1, NULL, 0.5f, 0);
    const int32_t in6[2] = {a, b};
    CHECK_EQ_INT(kt_run1(g, TFL_OP_ADD, &opt, 2, in6, o, ins, buf, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "input 1 'a' has invalid scale");
    graph_free(g);

    /* A stride near INT32_MAX: the output size arithmetic (in + stride - 1)
     * overflowed int32; now it is computed in 64 bits: one output pixel. */
    g = graph_new("bigstride");
    const int32_t so1[4] = {1, 1, 1, 1};
    x = kt_tensor(g, "x", GRAPH_I8, 4, si, NULL, 0.5f, 0);
    y = kt_tensor(g, "y", GRAPH_I8, 4, so1, NULL, 0.5f, 0);
    tfl_options_default(&opt);
    opt.padding = TFL_PAD_SAME;
    opt.stride_h = opt.stride_w = INT32_MAX;
    opt.filter_h = opt.filter_w = INT32_MAX;
    for (int i = 0; i < 16; i++) buf[i] = (int8_t)i;
    CHECK_EQ_INT(kt_run1(g, TFL_OP_MAX_POOL_2D, &opt, 1, &x, y, ins, buf, &e), NPUC_OK);
    CHECK_EQ_INT(buf[0], 15);
    graph_free(g);

    /* Padded windows (SAME 3x3, stride 1): the row pointer of a window that
     * starts left of the image was formed before the image (pointer
     * overflow under UBSan); the results are unchanged. */
    g = graph_new("pool_pad");
    const int32_t s33[4] = {1, 3, 3, 1};
    x = kt_tensor(g, "x", GRAPH_I8, 4, s33, NULL, 0.5f, 0);
    y = kt_tensor(g, "y", GRAPH_I8, 4, s33, NULL, 0.5f, 0);
    tfl_options_default(&opt);
    opt.padding = TFL_PAD_SAME;
    opt.stride_h = opt.stride_w = 1;
    opt.filter_h = opt.filter_w = 3;
    const int8_t img[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    memcpy(buf, img, sizeof img);
    CHECK_EQ_INT(kt_run1(g, TFL_OP_MAX_POOL_2D, &opt, 1, &x, y, ins, buf, &e), NPUC_OK);
    const int8_t want_max[9] = {5, 6, 6, 8, 9, 9, 8, 9, 9};
    CHECK(memcmp(buf, want_max, 9) == 0);
    graph_free(g);
    g = graph_new("avgpool_pad");
    x = kt_tensor(g, "x", GRAPH_I8, 4, s33, NULL, 0.5f, 0);
    y = kt_tensor(g, "y", GRAPH_I8, 4, s33, NULL, 0.5f, 0);
    memcpy(buf, img, sizeof img);
    CHECK_EQ_INT(kt_run1(g, TFL_OP_AVERAGE_POOL_2D, &opt, 1, &x, y, ins, buf, &e), NPUC_OK);
    /* e.g. corner (1+2+4+5)/4 = 3, edge (1+2+3+4+5+6)/6 = 3.5 -> 4, centre 5 */
    const int8_t want_avg[9] = {3, 4, 4, 5, 5, 6, 6, 7, 7};
    CHECK(memcmp(buf, want_avg, 9) == 0);
    graph_free(g);
}

int main(void)
{
    test_add_broadcast();
    test_mean_interp();
    test_errors();
    TEST_MAIN_END();
}
