/* Reduce family (ARG_MAX, ARG_MIN, REDUCE_MAX, REDUCE_MIN, SUM, CUMSUM,
 * L2_POOL_2D, BATCH_MATMUL): hand-worked kernel cases, blob validation of
 * damaged blobs and wrong tensor sizes, and the interpreter's errors for
 * what TFLite Micro rejects. */
#include "test.h"
#include "k_op_test.h"
#include "test_model.h"
#include "../src/tflite/tflite.h"
#include "../src/util/util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- kernel helpers ------------------------------------------------------------- */

static k_dims dims(int32_t rank, int32_t a, int32_t b, int32_t c, int32_t d)
{
    k_dims r = {rank, {a, b, c, d, 0, 0}};
    return r;
}

static void test_arg(void)
{
    /* [2,4] over axis 1; ties give the first index. */
    float x[8] = {1, 3, 3, 0, -1, -1, -2, -1};
    int32_t out[2] = {-7, -7};
    k_op_arg_blob b;
    memset(&b, 0, sizeof b);
    b.din = dims(2, 2, 4, 0, 0);
    b.axis = 1;
    b.out_count = 2;
    void *in[2] = {x, NULL};
    uint32_t isz[2] = {sizeof x, 0};
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_F32, &b, sizeof b, 2, in, isz, out, sizeof out), K_OK);
    CHECK_EQ_INT(out[0], 1);
    CHECK_EQ_INT(out[1], 0);
    CHECK_EQ_INT(kt_run(K_OP_ARG_MIN_F32, &b, sizeof b, 2, in, isz, out, sizeof out), K_OK);
    CHECK_EQ_INT(out[0], 3);
    CHECK_EQ_INT(out[1], 2);
    /* NaN never wins, and any number beats a leading NaN. */
    float xn[8] = {NAN, 1, NAN, 2, NAN, NAN, NAN, NAN};
    in[0] = xn;
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_F32, &b, sizeof b, 2, in, isz, out, sizeof out), K_OK);
    CHECK_EQ_INT(out[0], 3);
    CHECK_EQ_INT(out[1], 0);
    CHECK_EQ_INT(kt_run(K_OP_ARG_MIN_F32, &b, sizeof b, 2, in, isz, out, sizeof out), K_OK);
    CHECK_EQ_INT(out[0], 1);
    /* int8 over axis 0 of [3,2], axis read at run time (-2). */
    int8_t q[6] = {-128, 5, 127, 5, 127, 6};
    int32_t axv = -2;
    b.din = dims(2, 3, 2, 0, 0);
    b.axis_dynamic = 1;
    b.n_axis = 1;
    b.axis = 0;
    void *in2[2] = {q, &axv};
    uint32_t isz2[2] = {sizeof q, 4};
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_S8, &b, sizeof b, 2, in2, isz2, out, sizeof out), K_OK);
    CHECK_EQ_INT(out[0], 1);
    CHECK_EQ_INT(out[1], 2);
    CHECK_EQ_INT(kt_run(K_OP_ARG_MIN_S8, &b, sizeof b, 2, in2, isz2, out, sizeof out), K_OK);
    CHECK_EQ_INT(out[0], 0);
    CHECK_EQ_INT(out[1], 0);
    /* A run-time axis out of range, or one giving more outputs than the
     * output tensor holds (axis 1: 3 outputs), is invalid. */
    axv = 2;
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_S8, &b, sizeof b, 2, in2, isz2, out, sizeof out), K_E_INVALID);
    axv = 1;
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_S8, &b, sizeof b, 2, in2, isz2, out, sizeof out), K_E_INVALID);
    /* missing axis tensor, short output */
    isz2[1] = 0;
    axv = 0;
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_S8, &b, sizeof b, 2, in2, isz2, out, sizeof out), K_E_INVALID);
    isz2[1] = 4;
    CHECK_EQ_INT(kt_run(K_OP_ARG_MAX_S8, &b, sizeof b, 2, in2, isz2, out, 4), K_E_INVALID);
}

static void test_reduce(void)
{
    /* [2,3] over axis 0 (max, min) and SUM int8 with saturation. */
    int8_t x[6] = {1, -5, 100, 3, -7, 100};
    int8_t y[3];
    k_op_reduce_blob b;
    memset(&b, 0, sizeof b);
    b.din = dims(2, 2, 3, 0, 0);
    b.n_axis = 1;
    b.axis[0] = 0;
    b.out_count = 3;
    void *in[2] = {x, NULL};
    uint32_t isz[2] = {sizeof x, 0};
    CHECK_EQ_INT(kt_run(K_OP_REDUCE_MAX_S8, &b, sizeof b, 2, in, isz, y, sizeof y), K_OK);
    CHECK_EQ_INT(y[0], 3);
    CHECK_EQ_INT(y[1], -5);
    CHECK_EQ_INT(y[2], 100);
    CHECK_EQ_INT(kt_run(K_OP_REDUCE_MIN_S8, &b, sizeof b, 2, in, isz, y, sizeof y), K_OK);
    CHECK_EQ_INT(y[0], 1);
    CHECK_EQ_INT(y[1], -7);
    /* SUM Q(0.1, 0) -> Q(0.1, 0): multiplier 1.0 = (2^30, 1). */
    k_quantize_multiplier(1.0, &b.mult, &b.shift);
    CHECK_EQ_INT(kt_run(K_OP_SUM_S8, &b, sizeof b, 2, in, isz, y, sizeof y), K_OK);
    CHECK_EQ_INT(y[0], 4);
    CHECK_EQ_INT(y[1], -12);
    CHECK_EQ_INT(y[2], 127); /* 200 saturates */
    /* Q(0.1, 4) -> Q(0.2, -2): (sum - 2 * 4) / 2 rounded half away, - 2:
     * (4 - 8) / 2 = -2 -> -4; (-12 - 8) / 2 = -10 -> -12; (200 - 8) / 2 = 96 -> 94 */
    b.in_zp = 4;
    b.out_zp = -2;
    k_quantize_multiplier(0.5, &b.mult, &b.shift);
    CHECK_EQ_INT(kt_run(K_OP_SUM_S8, &b, sizeof b, 2, in, isz, y, sizeof y), K_OK);
    CHECK_EQ_INT(y[0], -4);
    CHECK_EQ_INT(y[1], -12);
    CHECK_EQ_INT(y[2], 94);
    /* odd sums halve to ties: multiplier 0.5 = (2^30, 0), one rounding in
     * SaturatingRoundingDoublingHighMul: 1.5 -> 2, but -1.5 -> -1 (its
     * nudge rounds negative halves up) */
    int8_t t[4] = {1, -1, 2, -2};
    b.din = dims(2, 2, 2, 0, 0);
    b.out_count = 2;
    b.in_zp = b.out_zp = 0;
    in[0] = t;
    isz[0] = sizeof t;
    CHECK_EQ_INT(kt_run(K_OP_SUM_S8, &b, sizeof b, 2, in, isz, y, 2), K_OK);
    CHECK_EQ_INT(y[0], 2);
    CHECK_EQ_INT(y[1], -1);
    /* float, run-time axes [1, -1] (a duplicate) of [2,2]: sums of rows */
    float f[4] = {1.5f, 2.0f, -1.0f, 0.25f}, fo[2];
    int32_t axv[2] = {1, -1};
    memset(&b, 0, sizeof b);
    b.din = dims(2, 2, 2, 0, 0);
    b.axis_dynamic = 1;
    b.n_axis = 2;
    b.out_count = 2;
    void *in2[2] = {f, axv};
    uint32_t isz2[2] = {sizeof f, sizeof axv};
    CHECK_EQ_INT(kt_run(K_OP_SUM_F32, &b, sizeof b, 2, in2, isz2, fo, sizeof fo), K_OK);
    CHECK(fo[0] == 3.5f && fo[1] == -0.75f);
    CHECK_EQ_INT(kt_run(K_OP_REDUCE_MAX_F32, &b, sizeof b, 2, in2, isz2, fo, sizeof fo), K_OK);
    CHECK(fo[0] == 2.0f && fo[1] == 0.25f);
    /* run-time axis out of range */
    axv[1] = -3;
    CHECK_EQ_INT(kt_run(K_OP_SUM_F32, &b, sizeof b, 2, in2, isz2, fo, sizeof fo), K_E_INVALID);
    /* wrong sizes */
    axv[1] = 1;
    isz2[0] = 12;
    CHECK_EQ_INT(kt_run(K_OP_SUM_F32, &b, sizeof b, 2, in2, isz2, fo, sizeof fo), K_E_INVALID);
    isz2[0] = 16;
    CHECK_EQ_INT(kt_run(K_OP_SUM_F32, &b, sizeof b, 2, in2, isz2, fo, 4), K_E_INVALID);
}

static void test_cumsum(void)
{
    float x[4] = {1, 2, 3, 4}, y[4];
    k_op_cumsum_blob b;
    memset(&b, 0, sizeof b);
    b.din = dims(1, 4, 0, 0, 0);
    void *in[2] = {x, NULL};
    uint32_t isz[2] = {sizeof x, 0};
    static const float want[4][4] = {{1, 3, 6, 10}, {0, 1, 3, 6}, {10, 9, 7, 4}, {9, 7, 4, 0}};
    for (int m = 0; m < 4; m++) {
        b.exclusive = m & 1;
        b.reverse = m >> 1;
        CHECK_EQ_INT(kt_run(K_OP_CUMSUM_F32, &b, sizeof b, 2, in, isz, y, sizeof y), K_OK);
        for (int i = 0; i < 4; i++) CHECK(y[i] == want[m][i]);
    }
    /* int8 Q(0.5, zp) -> Q(0.5, 0): inputs scaled by 2^19 (2^20 / 2), outputs
     * by 2^-19: out = running sum of (x - zp), plus one extra -zp (TFLite
     * Micro's accumulator starts at the rescaled input offset). */
    int8_t q[4] = {1, 2, 100, 100}, qo[4];
    b.exclusive = b.reverse = 0;
    b.left_shift = 20;
    k_quantize_multiplier_lt1(0.5, &b.in_mult, &b.in_shift);
    k_quantize_multiplier_lt1(1.0 / (1 << 19), &b.out_mult, &b.out_shift);
    void *inq[2] = {q, NULL};
    uint32_t iszq[2] = {4, 0};
    CHECK_EQ_INT(kt_run(K_OP_CUMSUM_S8, &b, sizeof b, 2, inq, iszq, qo, 4), K_OK);
    CHECK_EQ_INT(qo[0], 1);
    CHECK_EQ_INT(qo[1], 3);
    CHECK_EQ_INT(qo[2], 103 > 127 ? 127 : 103);
    CHECK_EQ_INT(qo[3], 127); /* saturates */
    b.in_offset = -10;        /* input zero point 10 */
    int8_t q2[4] = {11, 12, 10, 9};
    inq[0] = q2;
    CHECK_EQ_INT(kt_run(K_OP_CUMSUM_S8, &b, sizeof b, 2, inq, iszq, qo, 4), K_OK);
    CHECK_EQ_INT(qo[0], -9); /* -10 + 1 */
    CHECK_EQ_INT(qo[1], -7);
    CHECK_EQ_INT(qo[2], -7);
    CHECK_EQ_INT(qo[3], -8);
    b.exclusive = 1;
    CHECK_EQ_INT(kt_run(K_OP_CUMSUM_S8, &b, sizeof b, 2, inq, iszq, qo, 4), K_OK);
    CHECK_EQ_INT(qo[0], -10);
    CHECK_EQ_INT(qo[1], -9);
    /* run-time axis of a [2,2]: axis -1 sums along rows */
    float f[4] = {1, 2, 3, 4}, fo[4];
    int32_t ax = -1;
    memset(&b, 0, sizeof b);
    b.din = dims(2, 2, 2, 0, 0);
    b.axis_dynamic = 1;
    void *in2[2] = {f, &ax};
    uint32_t isz2[2] = {16, 4};
    CHECK_EQ_INT(kt_run(K_OP_CUMSUM_F32, &b, sizeof b, 2, in2, isz2, fo, 16), K_OK);
    CHECK(fo[0] == 1 && fo[1] == 3 && fo[2] == 3 && fo[3] == 7);
    ax = 0;
    CHECK_EQ_INT(kt_run(K_OP_CUMSUM_F32, &b, sizeof b, 2, in2, isz2, fo, 16), K_OK);
    CHECK(fo[0] == 1 && fo[1] == 2 && fo[2] == 4 && fo[3] == 6);
    ax = 2;
    CHECK_EQ_INT(kt_run(K_OP_CUMSUM_F32, &b, sizeof b, 2, in2, isz2, fo, 16), K_E_INVALID);
}

static void test_l2pool(void)
{
    float x[4] = {3, 4, 0, 0}, y[1];
    k_op_l2pool_blob b;
    memset(&b, 0, sizeof b);
    b.batch = 1;
    b.in_h = b.in_w = 2;
    b.depth = 1;
    b.out_h = b.out_w = 1;
    b.filter_h = b.filter_w = 2;
    b.stride_h = b.stride_w = 2;
    b.act_min = -1e30f;
    b.act_max = 1e30f;
    void *in[1] = {x};
    uint32_t isz[1] = {16};
    CHECK_EQ_INT(kt_run(K_OP_L2_POOL_F32, &b, sizeof b, 1, in, isz, y, 4), K_OK);
    CHECK(y[0] == 2.5f);
    b.act_max = 1.0f;
    CHECK_EQ_INT(kt_run(K_OP_L2_POOL_F32, &b, sizeof b, 1, in, isz, y, 4), K_OK);
    CHECK(y[0] == 1.0f);
    CHECK_EQ_INT(kt_run(K_OP_L2_POOL_F32, &b, sizeof b, 1, in, isz, y, 3), K_E_INVALID);
}

static void test_bmm(void)
{
    /* L = [[1,2,3],[4,5,6]], R = [[1,0],[0,1],[1,1]]: L R = [[4,5],[10,11]],
     * in all four storage orders. */
    const float L[6] = {1, 2, 3, 4, 5, 6}, LT[6] = {1, 4, 2, 5, 3, 6};
    const float R[6] = {1, 0, 0, 1, 1, 1}, RT[6] = {1, 0, 1, 0, 1, 1};
    float y[4];
    k_op_bmm_blob b;
    for (int m = 0; m < 4; m++) {
        memset(&b, 0, sizeof b);
        b.adj_x = m & 1;
        b.adj_y = m >> 1;
        b.lhs = b.adj_x ? dims(2, 3, 2, 0, 0) : dims(2, 2, 3, 0, 0);
        b.rhs = b.adj_y ? dims(2, 2, 3, 0, 0) : dims(2, 3, 2, 0, 0);
        b.out_count = 4;
        void *in[2] = {(void *)(b.adj_x ? LT : L), (void *)(b.adj_y ? RT : R)};
        uint32_t isz[2] = {24, 24};
        CHECK_EQ_INT(kt_run(K_OP_BATCH_MATMUL_F32, &b, sizeof b, 2, in, isz, y, 16), K_OK);
        CHECK(y[0] == 4 && y[1] == 5 && y[2] == 10 && y[3] == 11);
    }
    /* batch broadcast: lhs [2,1,2,3] (batch 1 = 2 * batch 0), rhs [1,2,3,2]
     * (batch 1 = identity-ish {1,0,0,1,0,0}) -> out [2,2,2,2] */
    float L2[12], R2[12] = {1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 0}, y2[16];
    for (int i = 0; i < 6; i++) {
        L2[i] = L[i];
        L2[6 + i] = 2 * L[i];
    }
    memset(&b, 0, sizeof b);
    b.lhs = dims(4, 2, 1, 2, 3);
    b.rhs = dims(4, 1, 2, 3, 2);
    b.out_count = 16;
    void *in2[2] = {L2, R2};
    uint32_t isz2[2] = {48, 48};
    CHECK_EQ_INT(kt_run(K_OP_BATCH_MATMUL_F32, &b, sizeof b, 2, in2, isz2, y2, 64), K_OK);
    const float want[16] = {4, 5, 10, 11, 1, 2, 4, 5, 8, 10, 20, 22, 2, 4, 8, 10};
    for (int i = 0; i < 16; i++) CHECK(y2[i] == want[i]);
    /* int8: zero points lhs -1, rhs 2, out 3, scale ratio 0.5:
     * (L - zl)(R - zr) with L' = L - 1 -> L stored as L' - 1 */
    int8_t Lq[6], Rq[6], yq[4];
    for (int i = 0; i < 6; i++) {
        Lq[i] = (int8_t)(L[i] - 1);
        Rq[i] = (int8_t)(R[i] + 2);
    }
    memset(&b, 0, sizeof b);
    b.lhs = dims(2, 2, 3, 0, 0);
    b.rhs = dims(2, 3, 2, 0, 0);
    b.out_count = 4;
    b.lhs_zp = -1;
    b.rhs_zp = 2;
    b.out_zp = 3;
    k_quantize_multiplier(0.5, &b.mult, &b.shift);
    void *in3[2] = {Lq, Rq};
    uint32_t isz3[2] = {6, 6};
    CHECK_EQ_INT(kt_run(K_OP_BATCH_MATMUL_S8, &b, sizeof b, 2, in3, isz3, yq, 4), K_OK);
    /* 4/2 = 2, 5/2 = 2.5 -> 3, 5, 5.5 -> 6; + 3 */
    CHECK_EQ_INT(yq[0], 5);
    CHECK_EQ_INT(yq[1], 6);
    CHECK_EQ_INT(yq[2], 8);
    CHECK_EQ_INT(yq[3], 9);
    /* mismatched depth and bad broadcast are invalid blobs */
    b.rhs = dims(2, 4, 2, 0, 0);
    CHECK_EQ_INT(k_op_validate(K_OP_BATCH_MATMUL_S8, &b, sizeof b), K_E_INVALID);
    b.rhs = dims(3, 3, 3, 2, 0);
    b.lhs = dims(3, 2, 2, 3, 0);
    CHECK_EQ_INT(k_op_validate(K_OP_BATCH_MATMUL_S8, &b, sizeof b), K_E_INVALID);
    /* int16 needs zero points 0 */
    b.lhs = dims(2, 2, 3, 0, 0);
    b.rhs = dims(2, 3, 2, 0, 0);
    CHECK_EQ_INT(k_op_validate(K_OP_BATCH_MATMUL_S8, &b, sizeof b), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_BATCH_MATMUL_S16, &b, sizeof b), K_E_INVALID);
}

/* ---- damaged blobs ------------------------------------------------------------- */

static uint32_t rng_state = 12345u;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* Mutates one 4-byte field at a time of a valid blob; whatever passes
 * validation must run within the tensors it was handed (ASan checks). */
static void mutate(uint32_t kind, const void *blob, uint32_t size, int32_t n_in)
{
    static const int32_t vals[] = {-1, 0, 1, 2, 3, 5, 6, 7, 64, 65, 1 << 20, 1 << 29, INT32_MAX, INT32_MIN, -31, 31};
    static uint32_t buf[4][1024];
    uint32_t b[64];
    memcpy(b, blob, size);
    CHECK_EQ_INT(k_op_validate(kind, b, size), K_OK);
    CHECK_EQ_INT(k_op_validate(kind, b, size - 4), K_E_INVALID);
    int ok = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(b, blob, size);
        int nf = 1 + (int)(rnd() % 3);
        for (int k = 0; k < nf; k++) b[rnd() % (size / 4)] = (uint32_t)vals[rnd() % (sizeof vals / sizeof vals[0])];
        for (int t = 0; t < 4; t++)
            for (int i = 0; i < 1024; i++) buf[t][i] = rnd() % 7 == 0 ? (uint32_t)-1 : rnd() % 4;
        static const uint32_t sizes[] = {0, 4, 8, 64, 256, 4096};
        void *in[3] = {buf[0], buf[1], buf[2]};
        uint32_t isz[3] = {sizes[rnd() % 6], sizes[rnd() % 6], 0};
        uint32_t osz = sizes[rnd() % 6];
        if (it == 0) {
            /* the valid blob itself, with room enough, runs */
            memcpy(b, blob, size);
            isz[0] = osz = 4096;
            isz[1] = 4;
            buf[1][0] = 0;
        }
        if (kt_run(kind, b, size, n_in, in, isz, buf[3], osz) == K_OK) ok++;
    }
    CHECK(ok > 0);
}

static void test_damaged(void)
{
    k_op_arg_blob a;
    memset(&a, 0, sizeof a);
    a.din = dims(3, 2, 3, 4, 0);
    a.axis = 1;
    a.out_count = 8;
    mutate(K_OP_ARG_MAX_F32, &a, sizeof a, 2);
    mutate(K_OP_ARG_MIN_S8, &a, sizeof a, 2);
    a.axis_dynamic = 1;
    a.n_axis = 1;
    mutate(K_OP_ARG_MAX_S8, &a, sizeof a, 2);
    a.axis = 3;
    a.axis_dynamic = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_ARG_MAX_S8, &a, sizeof a), K_E_INVALID);

    k_op_reduce_blob r;
    memset(&r, 0, sizeof r);
    r.din = dims(3, 2, 3, 4, 0);
    r.n_axis = 2;
    r.axis[0] = 2;
    r.axis[1] = 0;
    r.out_count = 3;
    k_quantize_multiplier(0.3, &r.mult, &r.shift);
    mutate(K_OP_SUM_S8, &r, sizeof r, 2);
    mutate(K_OP_SUM_S16, &r, sizeof r, 2);
    mutate(K_OP_REDUCE_MAX_F32, &r, sizeof r, 2);
    r.axis[1] = 2; /* duplicate resolved axis */
    CHECK_EQ_INT(k_op_validate(K_OP_SUM_S8, &r, sizeof r), K_E_INVALID);
    r.axis[1] = 0;
    r.axis_dynamic = 1;
    mutate(K_OP_REDUCE_MIN_S8, &r, sizeof r, 2);
    r.din.rank = 7;
    CHECK_EQ_INT(k_op_validate(K_OP_SUM_S8, &r, sizeof r), K_E_INVALID);

    k_op_cumsum_blob c;
    memset(&c, 0, sizeof c);
    c.din = dims(2, 4, 5, 0, 0);
    c.axis = 1;
    c.left_shift = 20;
    k_quantize_multiplier_lt1(0.5, &c.in_mult, &c.in_shift);
    k_quantize_multiplier_lt1(0.001, &c.out_mult, &c.out_shift);
    mutate(K_OP_CUMSUM_S8, &c, sizeof c, 2);
    mutate(K_OP_CUMSUM_F32, &c, sizeof c, 2);
    c.axis_dynamic = 1;
    mutate(K_OP_CUMSUM_S8, &c, sizeof c, 2);
    c.left_shift = 31;
    CHECK_EQ_INT(k_op_validate(K_OP_CUMSUM_S8, &c, sizeof c), K_E_INVALID);

    k_op_l2pool_blob l;
    memset(&l, 0, sizeof l);
    l.batch = 1;
    l.in_h = 5;
    l.in_w = 7;
    l.depth = 2;
    l.out_h = 3;
    l.out_w = 4;
    l.filter_h = l.filter_w = 2;
    l.stride_h = l.stride_w = 2;
    l.act_max = 6.0f;
    mutate(K_OP_L2_POOL_F32, &l, sizeof l, 1);
    l.stride_h = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_L2_POOL_F32, &l, sizeof l), K_E_INVALID);

    k_op_bmm_blob m;
    memset(&m, 0, sizeof m);
    m.lhs = dims(3, 2, 3, 4, 0);
    m.rhs = dims(2, 4, 5, 0, 0);
    m.out_count = 30;
    k_quantize_multiplier(0.01, &m.mult, &m.shift);
    mutate(K_OP_BATCH_MATMUL_S8, &m, sizeof m, 2);
    mutate(K_OP_BATCH_MATMUL_S16, &m, sizeof m, 2);
    m.adj_x = 1;
    m.lhs = dims(3, 2, 4, 3, 0);
    mutate(K_OP_BATCH_MATMUL_F32, &m, sizeof m, 2);
    m.adj_x = 2;
    CHECK_EQ_INT(k_op_validate(K_OP_BATCH_MATMUL_F32, &m, sizeof m), K_E_INVALID);

    /* kind names */
    CHECK(k_op_name(K_OP_ARG_MAX_S8) && !strcmp(k_op_name(K_OP_ARG_MAX_S8), "arg_max_s8"));
    CHECK(k_op_name(K_OP_BATCH_MATMUL_S16) && !strcmp(k_op_name(K_OP_BATCH_MATMUL_S16), "batch_matmul_s16"));
    CHECK_EQ_INT(k_op_validate(K_OP_BATCH_MATMUL_S16 + 1, &m, sizeof m), K_E_INVALID);
}

/* ---- interpreter ---------------------------------------------------------------- */

static void test_interp(void)
{
    tfl_options opt;
    npuc_err e;
    const int32_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3}, s1[1] = {1};
    const int32_t ax1[1] = {1};

    /* SUM int8 with the axis a model input: 1 and -1 give the same shape. */
    graph *g = graph_new("sum");
    int32_t x = kt_tensor(g, "x", GRAPH_I8, 2, s23, NULL, 0.1f, 0);
    int32_t ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, NULL);
    int32_t y = kt_tensor(g, "y", GRAPH_I8, 1, s2, NULL, 0.1f, 0);
    tfl_options_default(&opt);
    int8_t xv[6] = {1, 2, 3, 100, 27, 1}, yv[2];
    int32_t axv = -1;
    const void *ins[2] = {xv, &axv};
    int32_t in[2] = {x, ax};
    CHECK_EQ_INT(kt_run1(g, TFL_OP_SUM, &opt, 2, in, y, ins, yv, &e), 0);
    CHECK_EQ_INT(yv[0], 6);
    CHECK_EQ_INT(yv[1], 127);
    graph_free(g);

    /* REDUCE_MAX int8 with different in/out quantization: TFLite Micro rejects */
    g = graph_new("rmax_q");
    x = kt_tensor(g, "x", GRAPH_I8, 2, s23, NULL, 0.1f, 0);
    ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, ax1);
    y = kt_tensor(g, "y", GRAPH_I8, 1, s2, NULL, 0.2f, 0);
    kt_expect_reject(g, TFL_OP_REDUCE_MAX, &opt, 2, (const int32_t[]){x, ax}, y, "same quantization");

    /* REDUCE_MAX int16: TFLite Micro supports float32 and int8 only */
    g = graph_new("rmax16");
    x = kt_tensor(g, "x", GRAPH_I16, 2, s23, NULL, 0.1f, 0);
    ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, ax1);
    y = kt_tensor(g, "y", GRAPH_I16, 1, s2, NULL, 0.1f, 0);
    kt_expect_reject(g, TFL_OP_REDUCE_MAX, &opt, 2, (const int32_t[]){x, ax}, y, "float32 and int8");

    /* wrong output shape for constant axes */
    g = graph_new("sum_shape");
    x = graph_add_tensor(g, "x", GRAPH_F32, 2, s23, NULL);
    ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, ax1);
    y = graph_add_tensor(g, "y", GRAPH_F32, 1, s3, NULL);
    kt_expect_reject(g, TFL_OP_SUM, &opt, 2, (const int32_t[]){x, ax}, y, "expected [2]");

    /* ARG_MAX with an int64 output */
    g = graph_new("argmax64");
    x = graph_add_tensor(g, "x", GRAPH_F32, 2, s23, NULL);
    ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, ax1);
    y = graph_add_tensor(g, "y", GRAPH_I64, 1, s2, NULL);
    kt_expect_reject(g, TFL_OP_ARG_MAX, &opt, 2, (const int32_t[]){x, ax}, y, "int32 only");

    /* ARG_MIN float, constant axis: argmin of rows */
    g = graph_new("argmin");
    x = graph_add_tensor(g, "x", GRAPH_F32, 2, s23, NULL);
    ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, ax1);
    y = graph_add_tensor(g, "y", GRAPH_I32, 1, s2, NULL);
    float fx[6] = {3, 1, 1, -2, 5, -2};
    int32_t iy[2];
    const void *fins[2] = {fx, NULL};
    in[0] = x;
    in[1] = ax;
    CHECK_EQ_INT(kt_run1(g, TFL_OP_ARG_MIN, &opt, 2, in, y, fins, iy, &e), 0);
    CHECK_EQ_INT(iy[0], 1);
    CHECK_EQ_INT(iy[1], 0);
    graph_free(g);

    /* CUMSUM int32 */
    g = graph_new("cumsum32");
    x = graph_add_tensor(g, "x", GRAPH_I32, 2, s23, NULL);
    ax = graph_add_tensor(g, "axis", GRAPH_I32, 1, s1, ax1);
    y = graph_add_tensor(g, "y", GRAPH_I32, 2, s23, NULL);
    kt_expect_reject(g, TFL_OP_CUMSUM, &opt, 2, (const int32_t[]){x, ax}, y, "float32 and int8");

    /* L2_POOL_2D int8 */
    const int32_t s4[4] = {1, 2, 2, 1}, so4[4] = {1, 1, 1, 1};
    g = graph_new("l2i8");
    x = kt_tensor(g, "x", GRAPH_I8, 4, s4, NULL, 0.1f, 0);
    y = kt_tensor(g, "y", GRAPH_I8, 4, so4, NULL, 0.1f, 0);
    tfl_options_default(&opt);
    opt.filter_h = opt.filter_w = opt.stride_h = opt.stride_w = 2;
    opt.padding = TFL_PAD_VALID;
    kt_expect_reject(g, TFL_OP_L2_POOL_2D, &opt, 1, &x, y, "float32 only");

    /* BATCH_MATMUL float32 x int8 (hybrid) */
    const int32_t s32[2] = {3, 2};
    g = graph_new("bmm_hybrid");
    x = graph_add_tensor(g, "lhs", GRAPH_F32, 2, s23, NULL);
    int32_t r = kt_tensor(g, "rhs", GRAPH_I8, 2, s32, NULL, 0.1f, 0);
    y = graph_add_tensor(g, "y", GRAPH_F32, 2, (const int32_t[]){2, 2}, NULL);
    tfl_options_default(&opt);
    kt_expect_reject(g, TFL_OP_BATCH_MATMUL, &opt, 2, (const int32_t[]){x, r}, y, "hybrid");

    /* BATCH_MATMUL int16 with a nonzero zero point */
    g = graph_new("bmm16zp");
    x = kt_tensor(g, "lhs", GRAPH_I16, 2, s23, NULL, 0.1f, 1);
    r = kt_tensor(g, "rhs", GRAPH_I16, 2, s32, NULL, 0.1f, 0);
    y = kt_tensor(g, "y", GRAPH_I16, 2, (const int32_t[]){2, 2}, NULL, 0.1f, 0);
    kt_expect_reject(g, TFL_OP_BATCH_MATMUL, &opt, 2, (const int32_t[]){x, r}, y, "zero points 0");
}

/* ---- the golden models' prepared ops, damaged ------------------------------------- */

static uint8_t *dupb(const void *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (n) memcpy(d, p, n);
    return d;
}

/* Runs the op's blob on exact-size copies of its tensors (seed 1 inputs):
 * must equal the interpreter; then every truncation of the blob is
 * K_E_INVALID, every byte flipped or set to 0xFF gives a defined status and
 * no access outside the buffers (ASan), and every tensor the kind reads or
 * writes one byte short is K_E_INVALID. */
static void damage_model(const char *path, const char *in_path, bool reads_const)
{
    npuc_err e = {0};
    tfl_model *tm = NULL;
    graph *g = NULL;
    if (t_load_model(path, &tm, &g)) {
        t_failures++;
        return;
    }
    interp_options o = {.keep_all = true};
    interp *ip = NULL;
    CHECK_EQ_INT(interp_create(g, &o, &ip, &e), NPUC_OK);
    uint8_t *inb = NULL;
    size_t inn = 0;
    if (!ip || npuc_read_file(in_path, &inb, &inn, &e)) {
        t_failures++;
        goto done;
    }
    size_t off = 0;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        size_t nb = g->tensors[g->inputs[i]].nbytes;
        CHECK(off + nb <= inn);
        if (off + nb > inn) goto done;
        CHECK_EQ_INT(interp_set_input(ip, i, inb + off, nb, &e), NPUC_OK);
        off += nb;
    }
    CHECK_EQ_INT(interp_invoke(ip, &e), NPUC_OK);
    uint32_t kind = 0, psize = 0, ssize = 0, persize = 0;
    const void *params = NULL;
    CHECK_EQ_INT(interp_op_prepared(ip, 0, &kind, &params, &psize, &ssize, &persize), NPUC_OK);
    CHECK_EQ_INT(ssize, 0);
    CHECK_EQ_INT(persize, 0);
    const graph_op *op = &g->ops[0];
    void *in[4] = {0};
    uint32_t isz[4] = {0};
    const int32_t n_in = op->n_in < 4 ? op->n_in : 4;
    for (int32_t i = 0; i < n_in; i++) {
        const graph_tensor *t = &g->tensors[op->in[i]];
        isz[i] = (uint32_t)t->nbytes;
        in[i] = dupb(interp_tensor_data(ip, op->in[i]), t->nbytes);
    }
    const graph_tensor *ot = &g->tensors[op->out[0]];
    uint32_t osz = (uint32_t)ot->nbytes;
    uint8_t *out = malloc(osz ? osz : 1);
    uint8_t *blob = malloc(psize + 8);
    memcpy(blob, params, psize);
    CHECK_EQ_INT(kt_run(kind, blob, psize, n_in, in, isz, out, osz), K_OK);
    CHECK(memcmp(out, interp_tensor_data(ip, op->out[0]), osz) == 0);
    for (uint32_t s = 0; s < psize; s += 4) CHECK_EQ_INT(k_op_validate(kind, blob, s), K_E_INVALID);
    for (uint32_t i = 0; i < psize; i++) {
        const uint8_t keep = blob[i];
        for (int m = 0; m < 9; m++) {
            blob[i] = m == 8 ? 0xFF : (uint8_t)(keep ^ (1u << m));
            int rc = kt_run(kind, blob, psize, n_in, in, isz, out, osz);
            CHECK(rc == K_OK || rc == K_E_INVALID || rc == K_E_UNSUPPORTED);
        }
        blob[i] = keep;
    }
    /* tensors one byte short */
    for (int32_t i = 0; i < n_in; i++) {
        if (g->tensors[op->in[i]].data && !reads_const) continue; /* constant axis: not read */
        if (isz[i] == 0) continue;
        isz[i]--;
        CHECK_EQ_INT(kt_run(kind, blob, psize, n_in, in, isz, out, osz), K_E_INVALID);
        isz[i]++;
    }
    if (osz) CHECK_EQ_INT(kt_run(kind, blob, psize, n_in, in, isz, out, osz - 1), K_E_INVALID);
    for (int32_t i = 0; i < n_in; i++) free(in[i]);
    free(out);
    free(blob);
done:
    free(inb);
    if (ip) interp_free(ip);
    graph_free(g);
    tfl_model_free(tm);
}

static void test_golden_models(void)
{
    char buf[4096];
    const char *root = t_shared("models/ops/MANIFEST.tsv", buf, sizeof buf);
    if (!root) {
        printf("SKIP golden models: NPUC_SHARED/models/ops not found (golden data lives in the steering repo's shared/)\n");
        return;
    }
    static const char *const cases[][2] = {
        {"ARG_MAX", "i8_axis_input"}, {"ARG_MIN", "f32_r4_axm1"}, {"REDUCE_MAX", "i8_r5_ax13"},
        {"REDUCE_MIN", "f32_axis_input"}, {"SUM", "i8_axis_input"}, {"SUM", "i16_sat_keep"},
        {"SUM", "f32_r5_multi"}, {"CUMSUM", "i8_excl_rev"}, {"CUMSUM", "f32_axis_scalar_input"},
        {"L2_POOL_2D", "same_2x2_s2_odd"}, {"BATCH_MATMUL", "i8_adjxy_bcast"},
        {"BATCH_MATMUL", "i8_const_rhs"}, {"BATCH_MATMUL", "i16_adjy"}, {"BATCH_MATMUL", "f32_adjxy_r5"},
    };
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char model[4200], inp[4200], rel[256];
        snprintf(rel, sizeof rel, "models/ops/%s/%s.tflite", cases[c][0], cases[c][1]);
        if (!t_shared(rel, model, sizeof model)) {
            fprintf(stderr, "missing %s\n", rel);
            t_failures++;
            continue;
        }
        snprintf(rel, sizeof rel, "models/ops/%s/%s.s1.in.bin", cases[c][0], cases[c][1]);
        if (!t_shared(rel, inp, sizeof inp)) {
            fprintf(stderr, "missing %s\n", rel);
            t_failures++;
            continue;
        }
        damage_model(model, inp, !strcmp(cases[c][0], "BATCH_MATMUL"));
        n++;
    }
    printf("%d golden models damaged\n", n);
}

int main(void)
{
    test_arg();
    test_reduce();
    test_cumsum();
    test_l2pool();
    test_bmm();
    test_damaged();
    test_interp();
    test_golden_models();
    TEST_MAIN_END();
}
