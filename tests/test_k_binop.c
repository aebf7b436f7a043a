/* Binop family (k_op_binop.h): hand-worked cases of the arithmetic that is
 * easy to get wrong (TFLite's rounding in int8 DIV, PRELU and comparisons,
 * saturation, floor semantics for negatives, division by zero, ADD_N's
 * extra zero-point term), blob validation, tensor size checks, and the
 * interpreter's errors for the types TFLite Micro rejects. */
#include "test.h"
#include "k_op_test.h"

#include <stdint.h>
#include <string.h>

static k_dims dims1(int32_t n)
{
    k_dims d = {1, {n}};
    return d;
}

/* Runs kind on two inputs (n1, n2 elements) and one output (no). */
static int run2(uint32_t kind, const k_op_binop_blob *b, const void *a, uint32_t sa, const void *c, uint32_t sc,
                void *o, uint32_t so)
{
    void *in[2] = {(void *)a, (void *)c};
    uint32_t in_size[2] = {sa, sc};
    return kt_run(kind, b, sizeof *b, 2, in, in_size, o, so);
}

static k_op_binop_blob blob2(int32_t n1, int32_t n2, int32_t nout)
{
    k_op_binop_blob b;
    memset(&b, 0, sizeof b);
    b.d1 = dims1(n1);
    b.d2 = dims1(n2);
    b.dout = dims1(nout);
    b.n_in = 2;
    return b;
}

/* ---- DIV ------------------------------------------------------------------------ */

static void test_div_s8(void)
{
    /* All scales 1, zero points 0: real multiplier 1 = 2^30 * 2^(1-31). */
    k_op_binop_blob b = blob2(4, 1, 4);
    b.out_mult = 1 << 30;
    b.out_shift = 1;
    b.act_min = -128;
    b.act_max = 127;
    /* 7 / 2: the reciprocal of 2 is 1 - 2^-31 in Q0.31; 7 << 28 times it
     * is 1879048191 after rounding, halved by the multiplier to 939524096 =
     * exactly 3.5 * 2^28, which rounds away from zero: 4. For -7 the
     * doubling high multiply rounds the other way (its nudge is 1 - 2^30
     * for negative products), giving -939524095 = -3.4999.. * 2^28: -3.
     * 127 / 2 = 63.5 -> 64; -128 / 2 = -64 exactly. */
    int8_t a[4] = {7, -7, 127, -128}, d[1] = {2}, o[4];
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 1, o, 4), K_OK);
    CHECK_EQ_INT(o[0], 4);
    CHECK_EQ_INT(o[1], -3);
    CHECK_EQ_INT(o[2], 64);
    CHECK_EQ_INT(o[3], -64);
    /* A negative divisor flips both signs: 7 / -2 computes -7 / 2. */
    d[0] = -2;
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 1, o, 4), K_OK);
    CHECK_EQ_INT(o[0], -3);
    CHECK_EQ_INT(o[1], 4);
    /* Saturation: 127 / 1 * 2 (multiplier 2) clamps at 127, -128 at -128. */
    b.out_shift = 2;
    d[0] = 1;
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 1, o, 4), K_OK);
    CHECK_EQ_INT(o[2], 127);
    CHECK_EQ_INT(o[3], -128);
    CHECK_EQ_INT(o[0], 14);
    /* Divisor code equal to its zero point: TFLite Micro cannot divide. */
    b.out_shift = 1;
    b.in2_offset = -5;
    d[0] = 5;
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 1, o, 4), K_E_UNSUPPORTED);
    /* 0 / 5: headroom 31 makes the rescale shift -32, outside gemmlowp's
     * RoundingDivideByPOT range (TFLite Micro asserts): unsupported too. */
    b.in2_offset = 0;
    int8_t z[4] = {0, 0, 0, 0};
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, z, 4, d, 1, o, 4), K_E_UNSUPPORTED);
}

static void test_div_s32_f32(void)
{
    k_op_binop_blob b = blob2(4, 4, 4);
    b.act_min = INT32_MIN;
    b.act_max = INT32_MAX;
    int32_t a[4] = {7, -7, INT32_MIN, 5}, d[4] = {-2, 2, -1, 7}, o[4];
    CHECK_EQ_INT(run2(K_OP_DIV_S32, &b, a, 16, d, 16, o, 16), K_OK);
    CHECK_EQ_INT(o[0], -3); /* truncating, as C++ */
    CHECK_EQ_INT(o[1], -3);
    CHECK_EQ_INT(o[2], INT32_MIN); /* overflow wraps instead of trapping */
    CHECK_EQ_INT(o[3], 0);
    b.act_min = 0; /* RELU */
    CHECK_EQ_INT(run2(K_OP_DIV_S32, &b, a, 16, d, 16, o, 16), K_OK);
    CHECK_EQ_INT(o[0], 0);
    d[3] = 0;
    CHECK_EQ_INT(run2(K_OP_DIV_S32, &b, a, 16, d, 16, o, 16), K_E_UNSUPPORTED);

    /* float: x / 0 is inf, clamped to FLT_MAX by the "no activation" range. */
    k_op_binop_blob f = blob2(2, 1, 2);
    f.act_min_f = -3.40282347e38f;
    f.act_max_f = 3.40282347e38f;
    float fa[2] = {1.0f, -3.0f}, fd[1] = {0.0f}, fo[2];
    CHECK_EQ_INT(run2(K_OP_DIV_F32, &f, fa, 8, fd, 4, fo, 8), K_OK);
    CHECK(fo[0] == 3.40282347e38f);
    CHECK(fo[1] == -3.40282347e38f);
}

/* ---- FLOOR_DIV / FLOOR_MOD ---------------------------------------------------------- */

static void test_floor(void)
{
    k_op_binop_blob b = blob2(5, 5, 5);
    float a[5] = {-7.0f, 7.0f, 6.0f, -0.5f, 7.5f}, d[5] = {2.0f, -2.0f, -3.0f, 2.0f, 2.0f}, o[5];
    CHECK_EQ_INT(run2(K_OP_FLOOR_DIV_F32, &b, a, 20, d, 20, o, 20), K_OK);
    CHECK(o[0] == -4.0f && o[1] == -4.0f && o[2] == -2.0f && o[3] == -1.0f && o[4] == 3.0f);
    CHECK_EQ_INT(run2(K_OP_FLOOR_MOD_F32, &b, a, 20, d, 20, o, 20), K_OK);
    /* The result takes the divisor's sign. */
    CHECK(o[0] == 1.0f && o[1] == -1.0f && o[2] == 0.0f && o[3] == 1.5f && o[4] == 1.5f);
    /* FLOOR_DIV: any zero divisor (even -0) is an error, as in TFLite Micro. */
    d[2] = -0.0f;
    CHECK_EQ_INT(run2(K_OP_FLOOR_DIV_F32, &b, a, 20, d, 20, o, 20), K_E_UNSUPPORTED);

    /* int32 (TFLite's): floored, exact at the int32 limits; INT32_MIN / -1
     * wraps as DIV's int32 form does, and its remainder is 0. */
    k_op_binop_blob bi = blob2(8, 8, 8);
    int32_t x[8] = {-7, 7, 6, -1, INT32_MIN, INT32_MIN, INT32_MAX, 47};
    int32_t y[8] = {2, -2, -3, 48, -1, 3, -2, 48}, r[8];
    CHECK_EQ_INT(run2(K_OP_FLOOR_DIV_S32, &bi, x, 32, y, 32, r, 32), K_OK);
    const int32_t qd[8] = {-4, -4, -2, -1, INT32_MIN, -715827883, -1073741824, 0};
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(r[i], qd[i]);
    CHECK_EQ_INT(run2(K_OP_FLOOR_MOD_S32, &bi, x, 32, y, 32, r, 32), K_OK);
    const int32_t qm[8] = {1, -1, 0, 47, 0, 1, -1, 47};
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(r[i], qm[i]);
    /* x == floor_div(x, y) * y + floor_mod(x, y) over a grid of signs */
    for (int32_t u = -9; u <= 9; u++)
        for (int32_t v = -4; v <= 4; v++) {
            if (!v) continue;
            k_op_binop_blob b1 = blob2(1, 1, 1);
            int32_t q, m;
            CHECK_EQ_INT(run2(K_OP_FLOOR_DIV_S32, &b1, &u, 4, &v, 4, &q, 4), K_OK);
            CHECK_EQ_INT(run2(K_OP_FLOOR_MOD_S32, &b1, &u, 4, &v, 4, &m, 4), K_OK);
            CHECK_EQ_INT(q * v + m, u);
            CHECK(m == 0 || (m < 0) == (v < 0));
        }
    /* A zero divisor anywhere is an error for both, as TFLite checks. */
    y[6] = 0;
    CHECK_EQ_INT(run2(K_OP_FLOOR_DIV_S32, &bi, x, 32, y, 32, r, 32), K_E_UNSUPPORTED);
    CHECK_EQ_INT(run2(K_OP_FLOOR_MOD_S32, &bi, x, 32, y, 32, r, 32), K_E_UNSUPPORTED);
}

/* ---- SQUARED_DIFFERENCE ---------------------------------------------------------------- */

static void test_sqdiff(void)
{
    /* int8 all Q(1,0): left shift 7; input multipliers 0.5 (2^30, 0); output
     * (2*1)^2 / 2^14 = 2^-12 -> (2^30, -11). (a - b)^2 saturates at 127. */
    k_op_binop_blob b = blob2(4, 4, 4);
    b.left_shift = 7;
    b.in1_mult = b.in2_mult = 1 << 30;
    b.out_mult = 1 << 30;
    b.out_shift = -11;
    b.act_min = -128;
    b.act_max = 127;
    int8_t a[4] = {3, -3, 12, -128}, c[4] = {1, 1, 0, 127}, o[4];
    CHECK_EQ_INT(run2(K_OP_SQDIFF_S8, &b, a, 4, c, 4, o, 4), K_OK);
    CHECK_EQ_INT(o[0], 4);
    CHECK_EQ_INT(o[1], 16);
    CHECK_EQ_INT(o[2], 127); /* 144 saturates */
    CHECK_EQ_INT(o[3], 127);
    /* int32 wraps instead of overflowing. */
    k_op_binop_blob w = blob2(1, 1, 1);
    int32_t x[1] = {65536}, y[1] = {0}, r[1];
    CHECK_EQ_INT(run2(K_OP_SQDIFF_S32, &w, x, 4, y, 4, r, 4), K_OK);
    CHECK_EQ_INT(r[0], 0);
}

/* ---- comparisons ------------------------------------------------------------------------ */

static void test_cmp(void)
{
    /* int8 with different scales: 1 at Q(0.2,0) and 2 at Q(0.1,0) are both
     * 0.2; after the left shift 8 they scale to 204.8 -> 205 >> 2 = 51 and
     * 409.6 -> 410 >> 3 = 51: equal. 3 at Q(0.2) vs 5 at Q(0.1): 0.6 vs
     * 0.5; 1 vs 3: 0.2 < 0.3. */
    k_op_binop_blob b = blob2(3, 3, 3);
    b.left_shift = 8;
    k_quantize_multiplier(0.2, &b.in1_mult, &b.in1_shift);
    k_quantize_multiplier(0.1, &b.in2_mult, &b.in2_shift);
    CHECK_EQ_INT(b.in1_shift, -2);
    CHECK_EQ_INT(b.in2_shift, -3);
    int8_t a[3] = {1, 3, 1}, c[3] = {2, 5, 3};
    uint8_t o[3];
    const int32_t ops[6] = {K_CMP_EQ, K_CMP_NE, K_CMP_GT, K_CMP_GE, K_CMP_LT, K_CMP_LE};
    const uint8_t want[6][3] = {{1, 0, 0}, {0, 1, 1}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}};
    for (int i = 0; i < 6; i++) {
        b.cmp = ops[i];
        CHECK_EQ_INT(run2(K_OP_CMP_S8, &b, a, 3, c, 3, o, 3), K_OK);
        CHECK(memcmp(o, want[i], 3) == 0);
    }
    /* Broadcast int64 against a scalar. */
    k_op_binop_blob l = blob2(3, 1, 3);
    l.d2.rank = 0;
    l.cmp = K_CMP_GT;
    int64_t x[3] = {(int64_t)1 << 40, -((int64_t)1 << 40), ((int64_t)1 << 40) + 1}, y[1] = {(int64_t)1 << 40};
    CHECK_EQ_INT(run2(K_OP_CMP_S64, &l, x, 24, y, 8, o, 3), K_OK);
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 1);
}

/* ---- PRELU ------------------------------------------------------------------------------- */

static void test_prelu(void)
{
    /* Input and output Q(1,0), alpha Q(0.5,0) code 1 (0.5). Positive: x *
     * 1 (2^30, shift 1). Negative: x * alpha code * 0.5 (2^30, shift 0);
     * -3 * 0.5 = -1.5 rounds to -1 (the doubling high multiply rounds
     * halves up), -4 * 0.5 = -2. Output scale 0.25 saturates 127 * 4. */
    k_op_binop_blob b = blob2(4, 1, 4);
    b.out_mult = 1 << 30;
    b.out_shift = 1;
    b.out_mult2 = 1 << 30;
    b.out_shift2 = 0;
    b.act_min = -128;
    b.act_max = 127;
    int8_t a[4] = {3, -3, -4, 127}, al[1] = {1}, o[4];
    CHECK_EQ_INT(run2(K_OP_PRELU_S8, &b, a, 4, al, 1, o, 4), K_OK);
    CHECK_EQ_INT(o[0], 3);
    CHECK_EQ_INT(o[1], -1);
    CHECK_EQ_INT(o[2], -2);
    CHECK_EQ_INT(o[3], 127);
    b.out_shift = 3; /* multiplier 2^30 * 2^(3 - 31) = 4 */
    CHECK_EQ_INT(run2(K_OP_PRELU_S8, &b, a, 4, al, 1, o, 4), K_OK);
    CHECK_EQ_INT(o[0], 12);
    CHECK_EQ_INT(o[3], 127);
}

/* ---- ADD_N, SELECT_V2, LOGICAL ----------------------------------------------------------- */

static void test_add_n_select_logical(void)
{
    /* int8 Q(1,10) inputs -> Q(1,0): codes 10 and 10 are real 0 and 0, but
     * TFLite Micro's accumulator starts at the offset -10 (scaled), so the
     * sum is -10. Input multiplier 0.5 (2^30, 0), output 2 / 2^20 (2^30, -18). */
    k_op_binop_blob b = blob2(2, 2, 2);
    b.d1 = b.d2 = b.dout = dims1(2);
    b.left_shift = 20;
    b.in1_offset = -10;
    b.in1_mult = 1 << 30;
    b.out_mult = 1 << 30;
    b.out_shift = -18;
    b.act_min = -128;
    b.act_max = 127;
    int8_t x[2] = {10, 127}, y[2] = {10, 127}, o[2];
    CHECK_EQ_INT(run2(K_OP_ADD_N_S8, &b, x, 2, y, 2, o, 2), K_OK);
    CHECK_EQ_INT(o[0], -10);
    CHECK_EQ_INT(o[1], 127); /* 117 + 117 - 10 saturates */

    /* float ADD_N starts at +0: -0 + -0 gives +0. */
    k_op_binop_blob f = blob2(1, 1, 1);
    float fx[1] = {-0.0f}, fy[1] = {-0.0f}, fo[1];
    CHECK_EQ_INT(run2(K_OP_ADD_N_F32, &f, fx, 4, fy, 4, fo, 4), K_OK);
    CHECK(fo[0] == 0.0f && !signbit(fo[0]));

    /* SELECT_V2: condition [2,1], x [1,3], y scalar -> [2,3]. */
    k_op_binop_blob s;
    memset(&s, 0, sizeof s);
    s.d1.rank = 2; s.d1.d[0] = 2; s.d1.d[1] = 1;
    s.d2.rank = 2; s.d2.d[0] = 1; s.d2.d[1] = 3;
    s.d3.rank = 0;
    s.dout.rank = 2; s.dout.d[0] = 2; s.dout.d[1] = 3;
    s.n_in = 3;
    uint8_t cond[2] = {1, 0};
    int16_t sx[3] = {1, 2, 3}, sy[1] = {-9}, so[6];
    void *in[3] = {cond, sx, sy};
    uint32_t isz[3] = {2, 6, 2};
    CHECK_EQ_INT(kt_run(K_OP_SELECT_X16, &s, sizeof s, 3, in, isz, so, 12), K_OK);
    const int16_t want[6] = {1, 2, 3, -9, -9, -9};
    CHECK(memcmp(so, want, sizeof want) == 0);
    /* y too small. */
    isz[2] = 1;
    CHECK_EQ_INT(kt_run(K_OP_SELECT_X16, &s, sizeof s, 3, in, isz, so, 12), K_E_INVALID);

    k_op_binop_blob lb = blob2(4, 4, 4);
    uint8_t la[4] = {0, 0, 1, 1}, lc[4] = {0, 1, 0, 1}, lo[4];
    CHECK_EQ_INT(run2(K_OP_LOGICAL_AND, &lb, la, 4, lc, 4, lo, 4), K_OK);
    CHECK(lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && lo[3] == 1);
    CHECK_EQ_INT(run2(K_OP_LOGICAL_OR, &lb, la, 4, lc, 4, lo, 4), K_OK);
    CHECK(lo[0] == 0 && lo[1] == 1 && lo[2] == 1 && lo[3] == 1);
}

/* ---- validation --------------------------------------------------------------------------- */

static void test_validate(void)
{
    k_op_binop_blob b = blob2(4, 1, 4);
    b.act_min = -128;
    b.act_max = 127;
    b.out_mult = 1 << 30;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &b, sizeof b), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &b, sizeof b - 4), K_E_INVALID);  /* short */
    CHECK_EQ_INT(k_op_validate(K_OP_BINOP_FIRST + 50, &b, sizeof b), K_E_INVALID); /* unused kind */
    k_op_binop_blob c = b;
    c.dout.d[0] = 5; /* not the broadcast */
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.d2.d[0] = 3; /* not broadcastable */
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.d1.rank = 7;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.d1.d[0] = -1;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.act_min = 100;
    c.act_max = 50;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.act_max = 300;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.in1_offset = 100000;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.out_mult = -1;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.n_in = 3;
    CHECK_EQ_INT(k_op_validate(K_OP_DIV_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.cmp = 6;
    CHECK_EQ_INT(k_op_validate(K_OP_CMP_F32, &c, sizeof c), K_E_INVALID);
    c.cmp = K_CMP_GT;
    CHECK_EQ_INT(k_op_validate(K_OP_CMP_BOOL, &c, sizeof c), K_E_INVALID); /* bool: EQ/NE only */
    c = b;
    c.left_shift = 40;
    CHECK_EQ_INT(k_op_validate(K_OP_SQDIFF_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.out_shift2 = 31;
    CHECK_EQ_INT(k_op_validate(K_OP_PRELU_S8, &c, sizeof c), K_E_INVALID);
    c = b;
    c.n_in = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_ADD_N_F32, &c, sizeof c), K_E_INVALID);
    c.n_in = 100000;
    CHECK_EQ_INT(k_op_validate(K_OP_ADD_N_F32, &c, sizeof c), K_E_INVALID);

    /* Every byte flipped to 0xff in turn: never a crash, K_OK or K_E_INVALID. */
    for (size_t i = 0; i < sizeof b; i++) {
        k_op_binop_blob d = b;
        ((uint8_t *)&d)[i] = 0xff;
        int rc = k_op_validate(K_OP_DIV_S8, &d, sizeof d);
        CHECK(rc == K_OK || rc == K_E_INVALID);
    }

    /* Tensors smaller than the shapes say, missing, or misaligned. */
    int8_t a[8] = {0}, d[2] = {1, 1}, o[8];
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 3, d, 1, o, 4), K_E_INVALID);
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 0, o, 4), K_E_INVALID);
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 1, o, 3), K_E_INVALID);
    CHECK_EQ_INT(run2(K_OP_DIV_S8, &b, a, 4, d, 1, NULL, 4), K_E_INVALID);
    k_op_binop_blob f = blob2(1, 1, 1);
    float fa[2] = {1, 2}, fd[1] = {1}, fo[1];
    CHECK_EQ_INT(run2(K_OP_DIV_F32, &f, (uint8_t *)fa + 1, 4, fd, 4, fo, 4), K_E_INVALID);
    CHECK_EQ_INT(run2(K_OP_DIV_F32, &f, fa, 4, NULL, 4, fo, 4), K_E_INVALID);
}

/* ---- interpreter errors for types TFLite Micro rejects ------------------------------------ */

/* One-op graph: inputs of types ti[], output of type to; the
 * interp_create status and message. */
static int try_shapes(int32_t opcode, int32_t n_in, const graph_dtype *ti, graph_dtype to, float scale,
                      int32_t rank1, const int32_t *s1, int32_t rank, const int32_t *s, char *msg, size_t msg_size)
{
    graph *g = graph_new("t");
    int32_t in[4];
    for (int32_t i = 0; i < n_in; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        in[i] = i == 0 ? kt_tensor(g, name, ti[i], rank1, s1, NULL, scale, 0) : kt_tensor(g, name, ti[i], rank, s, NULL, scale, 0);
    }
    int32_t out = kt_tensor(g, "out", to, rank, s, NULL, scale, 0);
    tfl_options opt;
    tfl_options_default(&opt);
    kt_op1(g, opcode, &opt, n_in, in, out);
    npuc_err e;
    int rc = kt_try_create(g, &e);
    snprintf(msg, msg_size, "%s", e.msg);
    graph_free(g);
    return rc;
}

static int try_op(int32_t opcode, int32_t n_in, const graph_dtype *ti, graph_dtype to, float scale, char *msg,
                  size_t msg_size)
{
    const int32_t s[2] = {2, 3};
    return try_shapes(opcode, n_in, ti, to, scale, 2, s, 2, s, msg, msg_size);
}

static void test_interp_rejects(void)
{
    char msg[512];
    const graph_dtype i16[3] = {GRAPH_I16, GRAPH_I16, GRAPH_I16};
    const graph_dtype i32[3] = {GRAPH_I32, GRAPH_I32, GRAPH_I32};
    const graph_dtype i64[2] = {GRAPH_I64, GRAPH_I64};
    const graph_dtype b8[2] = {GRAPH_BOOL, GRAPH_BOOL};
    const graph_dtype sel32[3] = {GRAPH_BOOL, GRAPH_I32, GRAPH_I32};
    const graph_dtype f32[2] = {GRAPH_F32, GRAPH_F32};
    const graph_dtype i8[2] = {GRAPH_I8, GRAPH_I8};

    /* what TFLite Micro does not implement */
    const struct {
        int32_t opcode, n_in;
        const graph_dtype *ti;
        graph_dtype to;
        float scale;
        const char *msg;
    } rejected[] = {
        {TFL_OP_DIV, 2, i16, GRAPH_I16, 0.1f, "DIV does not support int16"},
        {TFL_OP_FLOOR_DIV, 2, i16, GRAPH_I16, 0.1f, "FLOOR_DIV does not support int16"},
        {TFL_OP_FLOOR_MOD, 2, i8, GRAPH_I8, 0.1f, "FLOOR_MOD does not support int8"},
        {TFL_OP_SQUARED_DIFFERENCE, 2, i64, GRAPH_I64, 0, "SQUARED_DIFFERENCE does not support int64"},
        {TFL_OP_SELECT_V2, 3, sel32, GRAPH_I32, 0, "SELECT_V2 does not support int32"},
        {TFL_OP_ADD_N, 2, i16, GRAPH_I16, 0.1f, "ADD_N does not support int16"},
        {TFL_OP_LESS, 2, b8, GRAPH_BOOL, 0, "LESS does not support bool"},
        {TFL_OP_LOGICAL_AND, 2, f32, GRAPH_F32, 0, "LOGICAL_AND does not support float32"},
    };
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++) {
        CHECK_EQ_INT(try_op(rejected[i].opcode, rejected[i].n_in, rejected[i].ti, rejected[i].to, rejected[i].scale, msg,
                            sizeof msg),
                     NPUC_E_UNSUPPORTED);
        CHECK_STR_CONTAINS(msg, rejected[i].msg);
    }
    /* FLOOR_DIV / FLOOR_MOD int32: TFLite's forms (TFLite Micro has float32 only). */
    CHECK_EQ_INT(try_op(TFL_OP_FLOOR_DIV, 2, i32, GRAPH_I32, 0, msg, sizeof msg), NPUC_OK);
    CHECK_EQ_INT(try_op(TFL_OP_FLOOR_MOD, 2, i32, GRAPH_I32, 0, msg, sizeof msg), NPUC_OK);
    /* Comparison output must be bool. */
    CHECK_EQ_INT(try_op(TFL_OP_EQUAL, 2, f32, GRAPH_F32, 0, msg, sizeof msg), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(msg, "must be bool");
    /* int8 comparison inputs with scale >= 1 (TFLite Micro's multiplier < 1 check). */
    CHECK_EQ_INT(try_op(TFL_OP_GREATER, 2, i8, GRAPH_BOOL, 2.0f, msg, sizeof msg), NPUC_E_UNSUPPORTED);
    /* int16 comparisons: GREATER only, as TFLite Micro. */
    CHECK_EQ_INT(try_op(TFL_OP_GREATER, 2, i16, GRAPH_BOOL, 0.1f, msg, sizeof msg), NPUC_OK);
    CHECK_EQ_INT(try_op(TFL_OP_LESS, 2, i16, GRAPH_BOOL, 0.1f, msg, sizeof msg), NPUC_E_UNSUPPORTED);
    /* Rank limits: the *4DSlow kernels broadcast at most 4 dims; equal
     * shapes run flat at any rank; DIV broadcasts further. */
    const int32_t r5[5] = {2, 1, 2, 1, 3}, r5b[5] = {2, 2, 2, 2, 3}, r1[1] = {3};
    CHECK_EQ_INT(try_shapes(TFL_OP_LESS, 2, f32, GRAPH_BOOL, 0, 5, r5, 5, r5b, msg, sizeof msg), NPUC_E_UNSUPPORTED);
    CHECK_EQ_INT(try_shapes(TFL_OP_LESS, 2, f32, GRAPH_BOOL, 0, 1, r1, 5, r5b, msg, sizeof msg), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(msg, "at most 4 dims");
    CHECK_EQ_INT(try_shapes(TFL_OP_LESS, 2, f32, GRAPH_BOOL, 0, 5, r5b, 5, r5b, msg, sizeof msg), NPUC_OK);
    CHECK_EQ_INT(try_shapes(TFL_OP_DIV, 2, f32, GRAPH_F32, 0, 1, r1, 5, r5b, msg, sizeof msg), NPUC_OK);
    CHECK_EQ_INT(try_shapes(TFL_OP_PRELU, 2, f32, GRAPH_F32, 0, 5, r5b, 5, r5b, msg, sizeof msg), NPUC_E_UNSUPPORTED);
    /* Accepted types still prepare. */
    CHECK_EQ_INT(try_op(TFL_OP_DIV, 2, i32, GRAPH_I32, 0, msg, sizeof msg), NPUC_OK);
    CHECK_EQ_INT(try_op(TFL_OP_EQUAL, 2, b8, GRAPH_BOOL, 0, msg, sizeof msg), NPUC_OK);
}

int main(void)
{
    test_div_s8();
    test_div_s32_f32();
    test_floor();
    test_sqdiff();
    test_cmp();
    test_prelu();
    test_add_n_select_logical();
    test_validate();
    test_interp_rejects();
    TEST_MAIN_END();
}
