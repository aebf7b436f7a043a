/* Math family (k_op_math.c, ops_math.c): hand-worked cases of the tricky
 * arithmetic (rounding ties, saturation, zero points, wrapping casts),
 * damaged blobs and wrong tensor sizes, and the interpreter's errors for
 * the types TFLite Micro rejects. */
#include "test.h"
#include "k_op_test.h"

#include <math.h>
#include <stdint.h>

/* ---- direct kernel runs ---- */

static int run_k(uint32_t kind, const void *blob, uint32_t size, void *in, uint32_t in_size, void *out,
                 uint32_t out_size)
{
    void *ins[1] = {in};
    return kt_run(kind, blob, size, 1, ins, &in_size, out, out_size);
}

static void test_abs_s8_ties(void)
{
    /* in zp 127, out scale twice the input's: multiplier 0.5 (2^30, shift
     * 0); odd magnitudes are ties and round up. out zp -128. */
    k_op_math_blob b = {.n = 5, .in_zp = 127, .out_zp = -128, .rescale = 1};
    k_quantize_multiplier(0.5, &b.mult, &b.shift);
    CHECK_EQ_INT(b.mult, 1 << 30);
    CHECK_EQ_INT(b.shift, 0);
    int8_t in[5] = {127, 126, 124, -128, 125}, out[5];
    CHECK_EQ_INT(run_k(K_OP_ABS_S8, &b, sizeof b, in, 5, out, 5), K_OK);
    /* |0|=0 -> -128; |1| -> 0.5 -> 1; |3| -> 1.5 -> 2; |255| -> 127.5 -> 128; |2| -> 1 */
    const int8_t want[5] = {-128, -127, -126, 0, -127};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i], want[i]);
}

static void test_abs_s8_same_scale_clamp(void)
{
    k_op_math_blob b = {.n = 4, .in_zp = 3, .out_zp = 3};
    int8_t in[4] = {-128, 3, 0, 127}, out[4];
    CHECK_EQ_INT(run_k(K_OP_ABS_S8, &b, sizeof b, in, 4, out, 4), K_OK);
    /* |-131| + 3 = 134 saturates; 0 + 3; 3 + 3; 124 + 3 = 127 */
    const int8_t want[4] = {127, 3, 6, 127};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(out[i], want[i]);
}

static void test_abs_s16_raw(void)
{
    k_op_math_blob b = {.n = 3};
    int16_t in[3] = {-32768, -5, 32767}, out[3];
    CHECK_EQ_INT(run_k(K_OP_ABS_S16_RAW, &b, sizeof b, in, 6, out, 6), K_OK);
    CHECK_EQ_INT(out[0], -32768); /* std::abs(-32768) stored back in int16 wraps */
    CHECK_EQ_INT(out[1], 5);
    CHECK_EQ_INT(out[2], 32767);
}

static void test_round_ties(void)
{
    k_op_math_blob b = {.n = 9};
    float in[9] = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 2.4999998f, 8388609.0f}, out[9];
    CHECK_EQ_INT(run_k(K_OP_ROUND_F32, &b, sizeof b, in, sizeof in, out, sizeof out), K_OK);
    const float want[9] = {-2.0f, -2.0f, 0.0f, 0.0f, 2.0f, 2.0f, 4.0f, 2.0f, 8388609.0f};
    for (int i = 0; i < 9; i++) CHECK(out[i] == want[i]);
    CHECK(!signbit(out[2])); /* floor(-0.5) + 1 is +0 */
}

static void test_rsqrt_s8(void)
{
    /* in Q(1, 0), out Q(1/64, 0): 1/sqrt(4) = 0.5 -> 32; 1/sqrt(1) -> 64;
     * 1/sqrt(100) = 0.1 -> 6.4 -> 6; x == zp -> 127; 1/sqrt(16) -> 16 */
    k_op_math_blob b = {.n = 5};
    k_quantize_multiplier(1.0 / (sqrt(1.0) * (1.0 / 64)), &b.mult, &b.shift);
    int8_t in[5] = {4, 1, 100, 0, 16}, out[5];
    CHECK_EQ_INT(run_k(K_OP_RSQRT_S8, &b, sizeof b, in, 5, out, 5), K_OK);
    const int8_t want[5] = {32, 64, 6, 127, 16};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(out[i], want[i]);
    /* below the zero point: TFLite Micro fails the invoke, so do we */
    in[2] = -1;
    CHECK_EQ_INT(run_k(K_OP_RSQRT_S8, &b, sizeof b, in, 5, out, 5), K_E_UNSUPPORTED);
}

static void test_inv_sqrt(void)
{
    int32_t m, s;
    k_inv_sqrt_multiplier(0, &m, &s);
    CHECK_EQ_INT(m, INT32_MAX);
    CHECK_EQ_INT(s, 0);
    k_inv_sqrt_multiplier(1, &m, &s);
    CHECK_EQ_INT(m, INT32_MAX);
    /* 1/sqrt(x) ~= m * 2^(s - 31) */
    const int32_t xs[4] = {2, 25, 1 << 20, INT32_MAX};
    for (int i = 0; i < 4; i++) {
        k_inv_sqrt_multiplier(xs[i], &m, &s);
        const double got = ldexp((double)m, s - 31), want = 1.0 / sqrt((double)xs[i]);
        CHECK(fabs(got - want) <= want * 2e-6); /* Q3.28 Newton steps: ~1e-6 */
    }
}

static void test_cast_wrap(void)
{
    k_op_math_blob b = {.n = 4, .src_type = K_MATH_T_S32, .dst_type = K_MATH_T_S8};
    int32_t in[4] = {300, -129, 127, -2147483647 - 1};
    int8_t out[4];
    CHECK_EQ_INT(run_k(K_OP_CAST, &b, sizeof b, in, sizeof in, out, sizeof out), K_OK);
    const int8_t want[4] = {44, 127, 127, 0};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(out[i], want[i]);

    /* float -> int8 truncates toward zero */
    k_op_math_blob f = {.n = 4, .src_type = K_MATH_T_F32, .dst_type = K_MATH_T_S8};
    float fin[4] = {-1.9f, 127.9f, -128.9f, 0.5f};
    CHECK_EQ_INT(run_k(K_OP_CAST, &f, sizeof f, fin, sizeof fin, out, sizeof out), K_OK);
    const int8_t fwant[4] = {-1, 127, -128, 0};
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(out[i], fwant[i]);

    /* uint32 -> float rounds to nearest (2^32 - 1 -> 2^32) */
    k_op_math_blob u = {.n = 2, .src_type = K_MATH_T_U32, .dst_type = K_MATH_T_F32};
    uint32_t uin[2] = {4294967295u, 16777217u};
    float uout[2];
    CHECK_EQ_INT(run_k(K_OP_CAST, &u, sizeof u, uin, sizeof uin, uout, sizeof uout), K_OK);
    CHECK(uout[0] == 4294967296.0f);
    CHECK(uout[1] == 16777216.0f);

    /* bool -> int32 */
    k_op_math_blob bb = {.n = 3, .src_type = K_MATH_T_BOOL, .dst_type = K_MATH_T_S32};
    uint8_t bin[3] = {0, 1, 1};
    int32_t bout[3];
    CHECK_EQ_INT(run_k(K_OP_CAST, &bb, sizeof bb, bin, 3, bout, sizeof bout), K_OK);
    CHECK_EQ_INT(bout[0], 0);
    CHECK_EQ_INT(bout[2], 1);

    /* uint8 (npuc's addition): 255 -> 255.0f; int32 -> uint8 wraps */
    k_op_math_blob u8 = {.n = 2, .src_type = K_MATH_T_U8, .dst_type = K_MATH_T_F32};
    uint8_t u8in[2] = {255, 7};
    float u8out[2];
    CHECK_EQ_INT(run_k(K_OP_CAST, &u8, sizeof u8, u8in, 2, u8out, sizeof u8out), K_OK);
    CHECK(u8out[0] == 255.0f && u8out[1] == 7.0f);
    k_op_math_blob tou8 = {.n = 2, .src_type = K_MATH_T_S32, .dst_type = K_MATH_T_U8};
    int32_t s32in[2] = {256 + 3, -1};
    uint8_t u8o[2];
    CHECK_EQ_INT(run_k(K_OP_CAST, &tou8, sizeof tou8, s32in, sizeof s32in, u8o, 2), K_OK);
    CHECK_EQ_INT(u8o[0], 3);
    CHECK_EQ_INT(u8o[1], 255);
}

static void test_l2norm_s8(void)
{
    /* [3, 4] (zp 0): 3/5 and 4/5 of 128 = 76.8 and 102.4 */
    k_op_math_blob b = {.n = 2, .outer = 1, .depth = 2};
    int8_t in[2] = {3, 4}, out[2];
    CHECK_EQ_INT(run_k(K_OP_L2NORM_S8, &b, sizeof b, in, 2, out, 2), K_OK);
    CHECK_EQ_INT(out[0], 77);
    CHECK_EQ_INT(out[1], 102);
    /* all zero: sum 0 takes TFLite's "largest multiplier" path: outputs 0 */
    int8_t z[2] = {0, 0};
    CHECK_EQ_INT(run_k(K_OP_L2NORM_S8, &b, sizeof b, z, 2, out, 2), K_OK);
    CHECK_EQ_INT(out[0], 0);
}

static void test_log_softmax_s8(void)
{
    /* Q(0.1, 0) -> Q(1/16, 127): a row of two equal values is log(1/2) =
     * -0.693 = -11.09 steps -> 116; depth 1 is log(1) -> 127. */
    k_op_math_blob b = {.n = 2, .outer = 1, .depth = 2};
    CHECK_EQ_INT(k_log_softmax_s8_prepare(0.1f, &b), K_OK);
    int8_t in[2] = {5, 5}, out[2];
    CHECK_EQ_INT(run_k(K_OP_LOG_SOFTMAX_S8, &b, sizeof b, in, 2, out, 2), K_OK);
    CHECK_EQ_INT(out[0], 116);
    CHECK_EQ_INT(out[1], 116);
    b.n = 2;
    b.outer = 2;
    b.depth = 1;
    in[0] = -128;
    CHECK_EQ_INT(run_k(K_OP_LOG_SOFTMAX_S8, &b, sizeof b, in, 2, out, 2), K_OK);
    CHECK_EQ_INT(out[0], 127);
    CHECK_EQ_INT(out[1], 127);
    /* log(x) in Q5 of x = 1 (Q12: 1 << 19) is 0, of e (~2.718) is 1 << 26 */
    CHECK(abs(k_fx_log_q12_to_q5(1 << 19)) <= 1);
    CHECK(abs(k_fx_log_q12_to_q5((int32_t)(2.718281828 * (1 << 19))) - (1 << 26)) < 64);
}

static void test_elu_lut(void)
{
    int8_t lut[256];
    k_elu_s8_lut(0.05f, 0, 0.05f, 0, lut);
    /* -20 * 0.05 = -1: e^-1 - 1 = -0.632 -> -12.64 -> -13; positives pass */
    CHECK_EQ_INT(lut[(uint8_t)(int8_t)-20], -13);
    CHECK_EQ_INT(lut[10], 10);
    CHECK_EQ_INT(lut[(uint8_t)(int8_t)-128], -20); /* e^-6.4 - 1 -> -19.97 -> -20 */
    /* Q(0.1,-128) -> Q(0.02,-50): 255 * 0.1 / 0.02 - 50 saturates */
    k_elu_s8_lut(0.1f, -128, 0.02f, -50, lut);
    CHECK_EQ_INT(lut[127], 127);
}

/* ---- damaged blobs, wrong tensor sizes ---- */

static void test_validate(void)
{
    k_op_math_blob b = {.n = 4};
    CHECK_EQ_INT(k_op_validate(K_OP_SQRT_F32, &b, sizeof b), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_SQRT_F32, &b, sizeof b - 4), K_E_INVALID);
    b.n = -1;
    CHECK_EQ_INT(k_op_validate(K_OP_SQRT_F32, &b, sizeof b), K_E_INVALID);
    /* unused kind numbers of the family */
    b.n = 4;
    CHECK_EQ_INT(k_op_validate(K_OP_LOG_SOFTMAX_S8 + 1, &b, sizeof b), K_E_INVALID);
    CHECK_EQ_INT(k_op_validate(K_OP_MATH_LAST, &b, sizeof b), K_E_INVALID);
    /* rows that do not multiply to n */
    k_op_math_blob r = {.n = 6, .outer = 2, .depth = 2};
    CHECK_EQ_INT(k_op_validate(K_OP_L2NORM_F32, &r, sizeof r), K_E_INVALID);
    r.depth = 3;
    CHECK_EQ_INT(k_op_validate(K_OP_L2NORM_F32, &r, sizeof r), K_OK);
    /* log softmax shifts out of range */
    k_op_math_blob l = {.n = 6, .outer = 2, .depth = 3};
    CHECK_EQ_INT(k_log_softmax_s8_prepare(0.1f, &l), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_LOG_SOFTMAX_S8, &l, sizeof l), K_OK);
    l.shift = 31;
    CHECK_EQ_INT(k_op_validate(K_OP_LOG_SOFTMAX_S8, &l, sizeof l), K_E_INVALID);
    l.shift = 0;
    l.diff_min = 1;
    CHECK_EQ_INT(k_op_validate(K_OP_LOG_SOFTMAX_S8, &l, sizeof l), K_E_INVALID);
    /* ABS rescale shift, zero points */
    k_op_math_blob a = {.n = 1, .rescale = 1, .mult = 1 << 30, .shift = -32};
    CHECK_EQ_INT(k_op_validate(K_OP_ABS_S8, &a, sizeof a), K_E_INVALID);
    a.shift = 0;
    a.in_zp = 128;
    CHECK_EQ_INT(k_op_validate(K_OP_ABS_S8, &a, sizeof a), K_E_INVALID);
    a.in_zp = 0;
    a.rescale = 2;
    CHECK_EQ_INT(k_op_validate(K_OP_ABS_S8, &a, sizeof a), K_E_INVALID);
    /* RSQRT: shift - 20 must stay a right shift of at most 31 */
    k_op_math_blob q = {.n = 1, .mult = 1 << 30, .shift = -12};
    CHECK_EQ_INT(k_op_validate(K_OP_RSQRT_S16, &q, sizeof q), K_E_INVALID);
    /* CAST types */
    k_op_math_blob c = {.n = 1, .src_type = K_MATH_T_S32, .dst_type = K_MATH_T_BOOL};
    CHECK_EQ_INT(k_op_validate(K_OP_CAST, &c, sizeof c), K_E_INVALID);
    c.dst_type = 99;
    CHECK_EQ_INT(k_op_validate(K_OP_CAST, &c, sizeof c), K_E_INVALID);
    c.dst_type = K_MATH_T_F32;
    c.src_type = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_CAST, &c, sizeof c), K_E_INVALID);
    /* ELU table outside the blob */
    uint8_t eb[sizeof(k_op_math_blob) + 256 + 8];
    memset(eb, 0, sizeof eb);
    k_op_math_blob e = {.n = 1, .lut_off = (uint32_t)k_op_align(sizeof(k_op_math_blob))};
    memcpy(eb, &e, sizeof e);
    CHECK_EQ_INT(k_op_validate(K_OP_ELU_S8, eb, (uint32_t)sizeof eb), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_ELU_S8, eb, (uint32_t)sizeof eb - 16), K_E_INVALID);
    e.lut_off = 0xFFFFFFF0u;
    memcpy(eb, &e, sizeof e);
    CHECK_EQ_INT(k_op_validate(K_OP_ELU_S8, eb, (uint32_t)sizeof eb), K_E_INVALID);
}

static void test_tensor_sizes(void)
{
    k_op_math_blob b = {.n = 4};
    float in[4] = {1, 2, 3, 4}, out[4];
    CHECK_EQ_INT(run_k(K_OP_EXP_F32, &b, sizeof b, in, 16, out, 16), K_OK);
    CHECK_EQ_INT(run_k(K_OP_EXP_F32, &b, sizeof b, in, 15, out, 16), K_E_INVALID);
    CHECK_EQ_INT(run_k(K_OP_EXP_F32, &b, sizeof b, in, 16, out, 12), K_E_INVALID);
    CHECK_EQ_INT(run_k(K_OP_EXP_F32, &b, sizeof b, NULL, 0, out, 16), K_E_INVALID);
    /* misaligned float input */
    uint8_t raw[20];
    CHECK_EQ_INT(run_k(K_OP_EXP_F32, &b, sizeof b, raw + 1, 16, out, 16), K_E_INVALID);
    /* CAST sizes follow the two types: int16 in (8 bytes), int32 out (16) */
    k_op_math_blob c = {.n = 4, .src_type = K_MATH_T_S16, .dst_type = K_MATH_T_S32};
    int16_t cin[4] = {1, -2, 3, -4};
    int32_t cout[4];
    CHECK_EQ_INT(run_k(K_OP_CAST, &c, sizeof c, cin, 8, cout, 16), K_OK);
    CHECK_EQ_INT(cout[3], -4);
    CHECK_EQ_INT(run_k(K_OP_CAST, &c, sizeof c, cin, 8, cout, 8), K_E_INVALID);
    /* ZEROS_LIKE does not read its input; int64 output must be 8 bytes each */
    k_op_math_blob z = {.n = 2};
    int64_t zout[2] = {5, 6};
    CHECK_EQ_INT(run_k(K_OP_ZEROS_X64, &z, sizeof z, NULL, 0, zout, 16), K_OK);
    CHECK_EQ_INT(zout[0], 0);
    CHECK_EQ_INT(zout[1], 0);
    CHECK_EQ_INT(run_k(K_OP_ZEROS_X64, &z, sizeof z, NULL, 0, zout, 8), K_E_INVALID);
}

/* Every kind with a valid blob: each byte flipped / set to 0xFF and every
 * truncation must give a defined status (run under ASan+UBSan: no
 * out-of-bounds access), and a tensor one byte short K_E_INVALID. */
static void test_damage(void)
{
    for (uint32_t kind = K_OP_MATH_FIRST; kind <= K_OP_LOG_SOFTMAX_S8; kind++) {
        uint8_t blob[sizeof(k_op_math_blob) + 8 + 256];
        memset(blob, 0, sizeof blob);
        k_op_math_blob b = {.n = 6, .outer = 2, .depth = 3};
        uint32_t size = sizeof b, es_in = 4, es_out = 4;
        switch (kind) {
        case K_OP_ABS_S8: case K_OP_RSQRT_S8: case K_OP_ELU_S8: case K_OP_ZEROS_X8: case K_OP_LOGICAL_NOT_B8:
        case K_OP_L2NORM_S8: case K_OP_LOG_SOFTMAX_S8:
            es_in = es_out = 1;
            break;
        case K_OP_ABS_S16: case K_OP_ABS_S16_RAW: case K_OP_RSQRT_S16: es_in = es_out = 2; break;
        case K_OP_ZEROS_X64: es_in = es_out = 8; break;
        case K_OP_CAST:
            b.src_type = K_MATH_T_S16;
            b.dst_type = K_MATH_T_F32;
            es_in = 2;
            break;
        default: break;
        }
        if (kind == K_OP_ABS_S8 || kind == K_OP_ABS_S16) {
            b.rescale = 1;
            k_quantize_multiplier(0.75, &b.mult, &b.shift);
        }
        if (kind == K_OP_RSQRT_S8 || kind == K_OP_RSQRT_S16) k_quantize_multiplier(3.0, &b.mult, &b.shift);
        if (kind == K_OP_LOG_SOFTMAX_S8) CHECK_EQ_INT(k_log_softmax_s8_prepare(0.05f, &b), K_OK);
        if (kind == K_OP_ELU_S8) {
            b.lut_off = k_op_align(sizeof b);
            size = b.lut_off + 256;
            k_elu_s8_lut(0.1f, 3, 0.05f, -4, (int8_t *)(blob + b.lut_off));
        }
        memcpy(blob, &b, sizeof b);
        uint64_t in_buf[8] = {0}, out_buf[8];
        /* inputs at or above the zero point (RSQRT's domain) */
        for (int i = 0; i < 64; i++) ((uint8_t *)in_buf)[i] = (uint8_t)(i * 7 % 100);
        const uint32_t in_size = 6 * es_in, out_size = 6 * es_out;
        CHECK_EQ_INT(run_k(kind, blob, size, in_buf, in_size, out_buf, out_size), K_OK);
        for (uint32_t len = 0; len < size; len++) {
            uint8_t *t = malloc(len ? len : 1);
            memcpy(t, blob, len);
            const int rc = run_k(kind, t, len, in_buf, in_size, out_buf, out_size);
            if (rc != K_E_INVALID) fprintf(stderr, "kind %u truncated to %u: %d\n", kind, len, rc);
            CHECK(rc == K_E_INVALID);
            free(t);
        }
        for (uint32_t i = 0; i < size; i++) {
            const uint8_t orig = blob[i];
            const uint8_t vals[3] = {(uint8_t)~orig, 0xFF, 0x80};
            for (int v = 0; v < 3; v++) {
                blob[i] = vals[v];
                const int rc = run_k(kind, blob, size, in_buf, in_size, out_buf, out_size);
                CHECK(rc == K_OK || rc == K_E_INVALID || rc == K_E_UNSUPPORTED);
            }
            blob[i] = orig;
        }
        if (kind != K_OP_ZEROS_X8 && kind != K_OP_ZEROS_X32 && kind != K_OP_ZEROS_X64)
            CHECK_EQ_INT(run_k(kind, blob, size, in_buf, in_size - 1, out_buf, out_size), K_E_INVALID);
        CHECK_EQ_INT(run_k(kind, blob, size, in_buf, in_size, out_buf, out_size - 1), K_E_INVALID);
    }
}

/* ---- interpreter errors ---- */

/* Builds in -> op -> out and tries to create the interpreter; returns its
 * status and leaves the message in e. */
static int try_op(int32_t opcode, graph_dtype in_dt, float in_s, int64_t in_zp, graph_dtype out_dt, float out_s,
                  int64_t out_zp, npuc_err *e)
{
    static const int32_t shape[1] = {4};
    graph *g = graph_new("m");
    int32_t x = kt_tensor(g, "x", in_dt, 1, shape, NULL, in_s, in_zp);
    int32_t y = kt_tensor(g, "y", out_dt, 1, shape, NULL, out_s, out_zp);
    tfl_options o;
    tfl_options_default(&o);
    kt_op1(g, opcode, &o, 1, &x, y);
    int rc = kt_try_create(g, e);
    graph_free(g);
    return rc;
}

static void test_interp_rejects(void)
{
    npuc_err e;
    /* NOT_KEPT.tsv: what TFLite Micro rejects */
    CHECK(try_op(TFL_OP_NEG, GRAPH_I8, 0.1f, 0, GRAPH_I8, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "NEG is not supported for int8");
    CHECK(try_op(TFL_OP_SQRT, GRAPH_I8, 0.1f, 0, GRAPH_I8, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "SQRT is not supported for int8");
    CHECK(try_op(TFL_OP_EXP, GRAPH_I8, 0.1f, 0, GRAPH_I8, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "EXP is not supported for int8");
    CHECK(try_op(TFL_OP_ZEROS_LIKE, GRAPH_I16, 0, 0, GRAPH_I16, 0, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "ZEROS_LIKE is not supported for int16");
    CHECK(try_op(TFL_OP_CAST, GRAPH_F32, 0, 0, GRAPH_I64, 0, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "CAST to int64");
    CHECK(try_op(TFL_OP_CAST, GRAPH_I32, 0, 0, GRAPH_BOOL, 0, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "CAST to bool");
    CHECK(try_op(TFL_OP_LOG_SOFTMAX, GRAPH_I8, 0.1f, 0, GRAPH_I8, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "scale 16/256 and zero point 127");
    /* other limits */
    CHECK(try_op(TFL_OP_ABS, GRAPH_I16, 0.1f, 3, GRAPH_I16, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "zero points 0");
    CHECK(try_op(TFL_OP_ABS, GRAPH_I8, 0.1f, 0, GRAPH_I16, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "types must match");
    CHECK(try_op(TFL_OP_ABS, GRAPH_I8, 0, 0, GRAPH_I8, 0, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "no quantization parameters");
    CHECK(try_op(TFL_OP_LOGICAL_NOT, GRAPH_I8, 0.1f, 0, GRAPH_I8, 0.1f, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "supports: bool");
    CHECK(try_op(TFL_OP_ELU, GRAPH_I16, 0.1f, 0, GRAPH_I16, 0.1f, 0, &e) != 0);
    CHECK(try_op(TFL_OP_L2_NORMALIZATION, GRAPH_I16, 0.1f, 0, GRAPH_I16, 0.1f, 0, &e) != 0);
    CHECK(try_op(TFL_OP_RSQRT, GRAPH_I16, 0, 0, GRAPH_I16, 0, 0, &e) != 0);
    CHECK_STR_CONTAINS(e.msg, "quantized input");
    /* accepted */
    CHECK_EQ_INT(try_op(TFL_OP_LOG_SOFTMAX, GRAPH_I8, 0.1f, 0, GRAPH_I8, 16.0f / 256, 127, &e), 0);
    CHECK_EQ_INT(try_op(TFL_OP_ABS, GRAPH_I16, 0, 0, GRAPH_I16, 0, 0, &e), 0);
    CHECK_EQ_INT(try_op(TFL_OP_CAST, GRAPH_BOOL, 0, 0, GRAPH_F32, 0, 0, &e), 0);
    CHECK_EQ_INT(try_op(TFL_OP_ZEROS_LIKE, GRAPH_I64, 0, 0, GRAPH_I64, 0, 0, &e), 0);
}

/* k_op_in_place: which kinds may write over their input 0 (the compiler
 * places such CPU ops so, cc_alloc.c): QUANTIZE and CAST to a type no
 * wider, SignalEnergy; nothing else. */
static void test_in_place(void)
{
    k_op_math_blob b = {.n = 4, .src_type = K_MATH_T_S32, .dst_type = K_MATH_T_S8};
    CHECK(k_op_in_place(K_OP_CAST, &b, sizeof b));
    b.dst_type = K_MATH_T_F32;
    CHECK(k_op_in_place(K_OP_CAST, &b, sizeof b));
    b.src_type = K_MATH_T_S8;
    CHECK(!k_op_in_place(K_OP_CAST, &b, sizeof b));   /* wider */
    CHECK(!k_op_in_place(K_OP_CAST, &b, 4));          /* a short blob */
    CHECK(k_op_in_place(K_OP_QUANTIZE_F32_S8, NULL, 0));
    CHECK(k_op_in_place(K_OP_REQUANT_S32_S16, NULL, 0));
    CHECK(!k_op_in_place(K_OP_REQUANT_S8_S16, NULL, 0));
    CHECK(!k_op_in_place(K_OP_REQUANT_S16_S32, NULL, 0));
    CHECK(k_op_in_place(K_OP_SIGNAL_ENERGY, NULL, 0));
    CHECK(!k_op_in_place(K_OP_DEQUANTIZE_S8_F32, NULL, 0));
    CHECK(!k_op_in_place(K_OP_COPY, NULL, 0));
}

int main(void)
{
    test_in_place();
    test_abs_s8_ties();
    test_abs_s8_same_scale_clamp();
    test_abs_s16_raw();
    test_round_ties();
    test_rsqrt_s8();
    test_inv_sqrt();
    test_cast_wrap();
    test_l2norm_s8();
    test_log_softmax_s8();
    test_elu_lut();
    test_validate();
    test_tensor_sizes();
    test_damage();
    test_interp_rejects();
    TEST_MAIN_END();
}
