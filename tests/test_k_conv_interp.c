/* Interpreter bindings of the weighted ops (src/interp/ops_conv.c): parameter
 * preparation from tensor quantization, state handling, and clear errors for
 * unsupported combinations. Small graphs built with the graph builder. */
#include "test.h"

#include <math.h>

#include "k_op_test.h"

static void test_fc_int8(void)
{
    /* Same numbers as the kernel test: in [3 4 5] zp 2, w [[0 1 2],[-1 -1 4]]
     * zp -1 (per-tensor), bias [1, -1], output zp -10. Scales: input 0.5,
     * weights 0.25 -> product 0.125; output 0.25 -> real multiplier 0.5.
     * accumulators 15, 14 -> 7.5 -> 8, 7 -> -2, -3. */
    graph *g = graph_new("fc");
    const int8_t w[6] = {0, 1, 2, -1, -1, 4};
    const int32_t bias[2] = {1, -1};
    int32_t s_in[2] = {1, 3}, s_w[2] = {2, 3}, s_b[1] = {2}, s_out[2] = {1, 2};
    int32_t ti = kt_tensor(g, "in", GRAPH_I8, 2, s_in, NULL, 0.5f, 2);
    int32_t tw = kt_tensor(g, "w", GRAPH_I8, 2, s_w, w, 0.25f, -1);
    int32_t tb = kt_tensor(g, "b", GRAPH_I32, 1, s_b, bias, 0.125f, 0);
    int32_t to = kt_tensor(g, "out", GRAPH_I8, 2, s_out, NULL, 0.25f, -10);
    tfl_options o;
    tfl_options_default(&o);
    int32_t ins[3] = {ti, tw, tb};
    graph_add_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (ip) {
        const int8_t x[3] = {3, 4, 5};
        CHECK_EQ_INT(interp_set_input(ip, 0, x, 3, &err), NPUC_OK);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        size_t n = 0;
        const int8_t *y = interp_output(ip, 0, &n);
        CHECK_EQ_INT(n, 2);
        if (y) {
            CHECK_EQ_INT(y[0], -2);
            CHECK_EQ_INT(y[1], -3);
        }
        interp_free(ip);
        ip = NULL;
    }
    /* Optional bias absent (-1): 14, 15 -> 7, 8 -> -3, -2. */
    g->ops[0].in[2] = -1;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (ip) {
        const int8_t x[3] = {3, 4, 5};
        interp_set_input(ip, 0, x, 3, &err);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        size_t n = 0;
        const int8_t *y = interp_output(ip, 0, &n);
        if (y) {
            CHECK_EQ_INT(y[0], -3);
            CHECK_EQ_INT(y[1], -2);
        }
        interp_free(ip);
        ip = NULL;
    }
    /* weights_format other than DEFAULT is refused clearly. */
    g->ops[0].opt.weights_format = 1;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "weights_format");
    interp_free(ip);
    ip = NULL;
    g->ops[0].opt.weights_format = 0;
    /* Output shape must match. */
    g->tensors[to].shape[1] = 3;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "output tensor 'out'");
    interp_free(ip);
    graph_free(g);
}

static void test_fc_keep_num_dims_f32(void)
{
    /* input [2,1,3], keep_num_dims -> output [2,1,2]. */
    graph *g = graph_new("fcf");
    const float w[6] = {1, 0, 0, 0, 1, 1};
    int32_t s_in[3] = {2, 1, 3}, s_w[2] = {2, 3}, s_out[3] = {2, 1, 2};
    int32_t ti = kt_tensor(g, "in", GRAPH_F32, 3, s_in, NULL, 0, 0);
    int32_t tw = kt_tensor(g, "w", GRAPH_F32, 2, s_w, w, 0, 0);
    int32_t to = kt_tensor(g, "out", GRAPH_F32, 3, s_out, NULL, 0, 0);
    tfl_options o;
    tfl_options_default(&o);
    o.keep_num_dims = true;
    o.activation = TFL_ACT_RELU;
    int32_t ins[3] = {ti, tw, -1};
    graph_add_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (ip) {
        const float x[6] = {1, 2, 3, -4, 5, -6};
        interp_set_input(ip, 0, x, sizeof x, &err);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        size_t n = 0;
        const float *y = interp_output(ip, 0, &n);
        CHECK_EQ_INT(n, 16);
        if (y) CHECK(y[0] == 1.0f && y[1] == 5.0f && y[2] == 0.0f && y[3] == 0.0f);
        interp_free(ip);
    }
    graph_free(g);
}

static void test_conv_errors(void)
{
    graph *g = graph_new("conv");
    int8_t w[4] = {1, 1, 1, 1};
    int16_t w16[4] = {1, 1, 1, 1};
    int32_t s_in[4] = {1, 2, 2, 1}, s_w[4] = {1, 2, 2, 1}, s_out[4] = {1, 1, 1, 1};
    int32_t ti = kt_tensor(g, "in", GRAPH_I16, 4, s_in, NULL, 1.0f, 0);
    int32_t tw16 = kt_tensor(g, "w16", GRAPH_I16, 4, s_w, w16, 1.0f, 0);
    int32_t tw = kt_tensor(g, "w", GRAPH_I8, 4, s_w, w, 1.0f, 0);
    int32_t to = kt_tensor(g, "out", GRAPH_I16, 4, s_out, NULL, 1.0f, 0);
    tfl_options o;
    tfl_options_default(&o);
    o.padding = TFL_PAD_VALID;
    o.stride_w = o.stride_h = 1;
    int32_t ins[2] = {ti, tw16};
    graph_add_op(g, TFL_OP_CONV_2D, &o, 2, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "input int16 with filter int16");
    interp_free(ip);
    ip = NULL;
    /* int8 filter: fine; then a wrong output shape. */
    g->ops[0].in[1] = tw;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (ip) {
        /* [10, 20; 30, 40] * 1 summed = 100, multiplier 1.0 (int64 path) */
        const int16_t x[4] = {10, 20, 30, 40};
        interp_set_input(ip, 0, x, sizeof x, &err);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        size_t n = 0;
        const int16_t *y = interp_output(ip, 0, &n);
        if (y) CHECK_EQ_INT(y[0], 100);
        interp_free(ip);
        ip = NULL;
    }
    g->tensors[to].shape[2] = 2;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "[1,1,1,1]");
    interp_free(ip);
    ip = NULL;
    g->tensors[to].shape[2] = 1;
    /* Fused TANH is refused. */
    g->ops[0].opt.activation = TFL_ACT_TANH;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "fused activation");
    interp_free(ip);
    graph_free(g);
}

static void test_dwconv_int16_bias32(void)
{
    graph *g = graph_new("dw");
    int8_t w[4] = {1, 1, 1, 1};
    int32_t b[1] = {0};
    int32_t s_in[4] = {1, 2, 2, 1}, s_w[4] = {1, 2, 2, 1}, s_b[1] = {1}, s_out[4] = {1, 1, 1, 1};
    int32_t ti = kt_tensor(g, "in", GRAPH_I16, 4, s_in, NULL, 1.0f, 0);
    int32_t tw = kt_tensor(g, "w", GRAPH_I8, 4, s_w, w, 1.0f, 0);
    int32_t tb = kt_tensor(g, "b", GRAPH_I32, 1, s_b, b, 1.0f, 0);
    int32_t to = kt_tensor(g, "out", GRAPH_I16, 4, s_out, NULL, 1.0f, 0);
    tfl_options o;
    tfl_options_default(&o);
    o.padding = TFL_PAD_VALID;
    o.stride_w = o.stride_h = 1;
    o.depth_multiplier = 1;
    int32_t ins[3] = {ti, tw, tb};
    graph_add_op(g, TFL_OP_DEPTHWISE_CONV_2D, &o, 3, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "bias int32");
    interp_free(ip);
    graph_free(g);
}

static void test_svdf_state(void)
{
    /* Kernel-test numbers through the interpreter: scales chosen so that
     * input*wf/state = 1 * 0.5 / 1 = 0.5 and state*wt/out = 1 * 0.25 / 1 = 0.25.
     * Two invokes: 6 then 0; after interp_reset_state the first result again. */
    graph *g = graph_new("svdf");
    const int8_t wf[4] = {1, 2, -1, 1};
    const int16_t wt[4] = {2, 3, 1, -1};
    const int32_t bias[1] = {5};
    const int16_t st0[4] = {5, 6, 7, 8};
    int32_t s_in[2] = {1, 2}, s_wf[2] = {2, 2}, s_wt[2] = {2, 2}, s_b[1] = {1}, s_st[2] = {1, 4},
            s_out[2] = {1, 1};
    int32_t ti = kt_tensor(g, "in", GRAPH_I8, 2, s_in, NULL, 1.0f, 0);
    int32_t twf = kt_tensor(g, "wf", GRAPH_I8, 2, s_wf, wf, 0.5f, 0);
    int32_t twt = kt_tensor(g, "wt", GRAPH_I16, 2, s_wt, wt, 0.25f, 0);
    int32_t tb = kt_tensor(g, "b", GRAPH_I32, 1, s_b, bias, 0.25f, 0);
    int32_t ts = kt_tensor(g, "state", GRAPH_I16, 2, s_st, st0, 1.0f, 0);
    g->tensors[ts].is_variable = true;
    int32_t to = kt_tensor(g, "out", GRAPH_I8, 2, s_out, NULL, 1.0f, -3);
    tfl_options o;
    tfl_options_default(&o);
    o.rank = 2;
    o.activation = TFL_ACT_RELU; /* ignored by the integer kernel (TFLite Micro) */
    int32_t ins[5] = {ti, twf, twt, tb, ts};
    graph_add_op(g, TFL_OP_SVDF, &o, 5, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (!ip) {
        fprintf(stderr, "svdf: %s\n", err.msg);
    } else {
        const int8_t x[2] = {10, -4};
        const int8_t want[3] = {6, 0, 6};
        for (int step = 0; step < 3; step++) {
            if (step == 2) interp_reset_state(ip);
            interp_set_input(ip, 0, x, 2, &err);
            CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
            size_t n = 0;
            const int8_t *y = interp_output(ip, 0, &n);
            if (y) CHECK_EQ_INT(y[0], want[step]);
        }
        interp_free(ip);
        ip = NULL;
    }
    /* Without bias (input 3 = -1): 15 + 15 = 30 -> SRDHM 15 -> RDPOT 7.5 -> 8; -3 -> 5. */
    g->ops[0].in[3] = -1;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (ip) {
        const int8_t x[2] = {10, -4};
        interp_set_input(ip, 0, x, 2, &err);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        size_t n = 0;
        const int8_t *y = interp_output(ip, 0, &n);
        if (y) CHECK_EQ_INT(y[0], 5);
        interp_free(ip);
        ip = NULL;
    }
    /* A state that is not a variable tensor is refused. */
    g->tensors[ts].is_variable = false;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "variable");
    interp_free(ip);
    graph_free(g);
}

static void test_tconv_int16_bias16(void)
{
    /* TRANSPOSE_CONV (output_shape, weights, input, bias): input 1x1x2x1
     * [100, -200], filter 1x1x2x1 [1 2], stride 2 VALID -> 1x1x4x1
     * [100, 200, -200, -400]; int16 bias [7] widened to int64 -> +7;
     * scales 1 * 0.5 / 1 -> multiplier 0.5: 53.5 -> 54, 103.5 -> 104,
     * -96.5 -> -96, -196.5 -> -196 (int64 form rounds half up). */
    graph *g = graph_new("tconv");
    const int32_t oshape[4] = {1, 1, 4, 1};
    const int8_t w[2] = {1, 2};
    const int16_t b[1] = {7};
    int32_t s_os[1] = {4}, s_w[4] = {1, 1, 2, 1}, s_in[4] = {1, 1, 2, 1}, s_b[1] = {1},
            s_out[4] = {1, 1, 4, 1};
    int32_t tos = kt_tensor(g, "oshape", GRAPH_I32, 1, s_os, oshape, 0, 0);
    int32_t tw = kt_tensor(g, "w", GRAPH_I8, 4, s_w, w, 0.5f, 0);
    int32_t ti = kt_tensor(g, "in", GRAPH_I16, 4, s_in, NULL, 1.0f, 0);
    int32_t tb = kt_tensor(g, "b", GRAPH_I16, 1, s_b, b, 0.5f, 0);
    int32_t to = kt_tensor(g, "out", GRAPH_I16, 4, s_out, NULL, 1.0f, 0);
    tfl_options o;
    tfl_options_default(&o);
    o.padding = TFL_PAD_VALID;
    o.stride_w = 2;
    o.stride_h = 1;
    int32_t ins[4] = {tos, tw, ti, tb};
    graph_add_op(g, TFL_OP_TRANSPOSE_CONV, &o, 4, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    if (!ip) {
        fprintf(stderr, "tconv: %s\n", err.msg);
    } else {
        const int16_t x[2] = {100, -200};
        interp_set_input(ip, 0, x, sizeof x, &err);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        size_t n = 0;
        const int16_t *y = interp_output(ip, 0, &n);
        if (y) {
            CHECK_EQ_INT(y[0], 54);
            CHECK_EQ_INT(y[1], 104);
            CHECK_EQ_INT(y[2], -96);
            CHECK_EQ_INT(y[3], -196);
        }
        interp_free(ip);
        ip = NULL;
    }
    /* A constant output_shape that disagrees with the output tensor. */
    ((int32_t *)g->tensors[tos].data)[2] = 5;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "output tensor 'out'");
    interp_free(ip);
    ip = NULL;
    ((int32_t *)g->tensors[tos].data)[2] = 4;
    /* Fuzzer finding: a stride so large that input x * stride overflows
     * int32 in the scatter. */
    g->ops[0].opt.stride_w = 1560281089;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "strides 1 x 1560281089");
    interp_free(ip);
    graph_free(g);
}

/* Fuzzer findings: malformed models must give a clear error, never UB. */
static void test_conv_bad_models(void)
{
    graph *g = graph_new("conv");
    int8_t w[4] = {1, 1, 1, 1};
    int32_t s_in[4] = {1, 2, 2, 0}, s_w[4] = {1, 2, 2, 1}, s_out[4] = {1, 1, 1, 1};
    int32_t ti = kt_tensor(g, "in", GRAPH_I16, 4, s_in, NULL, 1.0f, 0);
    int32_t tw = kt_tensor(g, "w", GRAPH_I8, 4, s_w, w, 1.0f, 0);
    int32_t to = kt_tensor(g, "out", GRAPH_I16, 4, s_out, NULL, 1.0f, 0);
    tfl_options o;
    tfl_options_default(&o);
    o.padding = TFL_PAD_VALID;
    o.stride_w = o.stride_h = 1;
    int32_t ins[2] = {ti, tw};
    graph_add_op(g, TFL_OP_CONV_2D, &o, 2, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    interp *ip = NULL;
    npuc_err err;
    /* 0 input channels: was a division by zero (channel groups). */
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "input tensor 'in' has an empty dimension 3");
    interp_free(ip);
    ip = NULL;
    g->tensors[ti].shape[3] = 1;
    g->tensors[ti].nbytes = 8;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    interp_free(ip);
    ip = NULL;
    /* int16 with an effective scale >= 2^14: the 64-bit requantization
     * shift would be negative (was UB in k_mbqm64). */
    g->tensors[to].q.scale[0] = 1e-5f;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "too large for the int16 kernels");
    interp_free(ip);
    ip = NULL;
    /* Denormal output scale: rejected as invalid. */
    g->tensors[to].q.scale[0] = 1e-40f;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "output tensor 'out' has invalid scale");
    interp_free(ip);
    ip = NULL;
    g->tensors[to].q.scale[0] = 1.0f;
    /* A dilated filter spanning more than 2^30 (int32 padding overflow). */
    g->ops[0].opt.padding = TFL_PAD_SAME;
    g->ops[0].opt.dilation_h = 0x40000000;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "dilation_h 1073741824");
    interp_free(ip);
    ip = NULL;
    g->ops[0].opt.dilation_h = 1;
    g->ops[0].opt.padding = TFL_PAD_VALID;
    /* NaN filter scale. */
    g->tensors[tw].q.scale[0] = NAN;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "filter tensor 'w' has invalid scale");
    interp_free(ip);
    graph_free(g);

    /* FULLY_CONNECTED with a NaN weights scale (was an undefined
     * float -> int conversion in the multiplier). */
    g = graph_new("fc");
    int32_t f_in[2] = {1, 2}, f_w[2] = {1, 2}, f_out[2] = {1, 1};
    ti = kt_tensor(g, "in", GRAPH_I8, 2, f_in, NULL, 1.0f, 0);
    tw = kt_tensor(g, "w", GRAPH_I8, 2, f_w, w, 1.0f, 0);
    to = kt_tensor(g, "out", GRAPH_I8, 2, f_out, NULL, 1.0f, 0);
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_FULLY_CONNECTED, &o, 2, ins, 1, &to);
    graph_set_io(g, 1, &ti, 1, &to);
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_OK);
    interp_free(ip);
    ip = NULL;
    g->tensors[tw].q.scale[0] = NAN;
    CHECK_EQ_INT(kt_create(g, &ip, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "weights tensor 'w' has invalid scale");
    interp_free(ip);
    graph_free(g);
}

int main(void)
{
    test_fc_int8();
    test_fc_keep_num_dims_f32();
    test_conv_errors();
    test_dwconv_int16_bias32();
    test_svdf_state();
    test_tconv_int16_bias16();
    test_conv_bad_models();
    TEST_MAIN_END();
}
