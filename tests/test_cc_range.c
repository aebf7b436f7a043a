/* cc_range (src/compiler/cc_range.c) alone on hand-built graphs: each
 * source of an interval (dtype, constant, CAST, ARG_MAX, SHAPE, views), the
 * int32 arithmetic (ADD, SUB, MUL, MIN, MAX, DIV / FLOOR_DIV by a positive
 * constant, NEG, ABS) with its overflow to the full range, TFLite Micro's
 * fused clamps (SUB and MUL; none on int32 ADD), and the movenet chain
 * ARG_MAX -> FLOOR_DIV 48 -> MUL 48 -> SUB. */
#include "test.h"
#include "../src/compiler/cc_range.h"

#include <stdlib.h>
#include <string.h>

static int32_t tens(graph *g, const char *name, graph_dtype dt, int32_t rank, const int32_t *shape, const void *data)
{
    int32_t t = graph_add_tensor(g, name, dt, rank, shape, data);
    CHECK(t >= 0);
    return t;
}

static void op2(graph *g, int32_t opcode, int32_t act, int32_t a, int32_t b, int32_t y)
{
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.activation = (int8_t)act;
    int32_t in[2] = {a, b};
    CHECK(graph_add_op(g, opcode, &opt, b >= 0 ? 2 : 1, in, 1, &y) >= 0);
}

#define CHECK_RANGE(r, t, l, h)              \
    do {                                     \
        CHECK_EQ_INT((long long)(r)[t].lo, (long long)(l)); \
        CHECK_EQ_INT((long long)(r)[t].hi, (long long)(h)); \
    } while (0)

static cc_range *analyse(const graph *g)
{
    cc_range *r = malloc((size_t)g->n_tensors * sizeof *r);
    CHECK(r != NULL);
    cc_range_analyse(g, r);
    return r;
}

/* int16 -> CAST -> MUL 3 -> ADD -7 -> SUB (RELU) x -> DIV 4 -> MIN / MAX,
 * the audio preprocessor's shape of chain, plus an overflowing MUL. */
static void test_cast_chain(void)
{
    graph *g = graph_new("chain");
    int32_t s[1] = {8}, one[1] = {1};
    int32_t k3 = 3, km7 = -7, k4 = 4, big = 70000, kc[3] = {-5, 2, 9};
    int32_t x = tens(g, "x", GRAPH_I16, 1, s, NULL);
    int32_t c = tens(g, "c", GRAPH_I32, 1, s, NULL);
    int32_t c3 = tens(g, "3", GRAPH_I32, 0, one, &k3);
    int32_t cm7 = tens(g, "-7", GRAPH_I32, 0, one, &km7);
    int32_t c4 = tens(g, "4", GRAPH_I32, 0, one, &k4);
    int32_t cbig = tens(g, "70000", GRAPH_I32, 0, one, &big);
    int32_t ckc = tens(g, "kc", GRAPH_I32, 1, (int32_t[]){3}, kc);
    int32_t m = tens(g, "m", GRAPH_I32, 1, s, NULL), a = tens(g, "a", GRAPH_I32, 1, s, NULL);
    int32_t sb = tens(g, "sb", GRAPH_I32, 1, s, NULL), d = tens(g, "d", GRAPH_I32, 1, s, NULL);
    int32_t mn = tens(g, "mn", GRAPH_I32, 1, s, NULL), mx = tens(g, "mx", GRAPH_I32, 1, s, NULL);
    int32_t ov = tens(g, "ov", GRAPH_I32, 1, s, NULL), ad = tens(g, "ad", GRAPH_I32, 1, s, NULL);
    int32_t ng = tens(g, "ng", GRAPH_I32, 1, s, NULL), ab = tens(g, "ab", GRAPH_I32, 1, s, NULL);
    int32_t sr = tens(g, "sr", GRAPH_I32, 1, s, NULL);
    op2(g, TFL_OP_CAST, 0, x, -1, c);
    op2(g, TFL_OP_MUL, 0, c, c3, m);                          /* [-98304, 98301] */
    op2(g, TFL_OP_ADD, TFL_ACT_RELU, m, cm7, a);              /* no clamp on int32 ADD */
    op2(g, TFL_OP_SUB, TFL_ACT_RELU, a, c, sb);               /* RELU: from 0 */
    op2(g, TFL_OP_DIV, 0, a, c4, d);
    op2(g, TFL_OP_MINIMUM, 0, d, ckc, mn);
    op2(g, TFL_OP_MAXIMUM, 0, d, ckc, mx);
    op2(g, TFL_OP_MUL, 0, m, cbig, ov);                       /* may overflow: any value */
    op2(g, TFL_OP_ADD, 0, c, c, ad);
    op2(g, TFL_OP_NEG, 0, a, -1, ng);
    op2(g, TFL_OP_ABS, 0, a, -1, ab);
    op2(g, TFL_OP_SUB, TFL_ACT_RELU6, c, ckc, sr);
    cc_range *r = analyse(g);
    CHECK_RANGE(r, x, INT16_MIN, INT16_MAX);
    CHECK_RANGE(r, c, INT16_MIN, INT16_MAX);
    CHECK_RANGE(r, ckc, -5, 9);
    CHECK_RANGE(r, m, -98304, 98301);
    CHECK_RANGE(r, a, -98311, 98294);
    CHECK_RANGE(r, sb, 0, 98294 + 32768);
    CHECK_RANGE(r, d, -24578, 24573);        /* floor(-98311 / 4) .. 98294 / 4 */
    CHECK_RANGE(r, mn, -24578, 9);
    CHECK_RANGE(r, mx, -5, 24573);
    CHECK_RANGE(r, ov, INT32_MIN, INT32_MAX);
    CHECK_RANGE(r, ad, -65536, 65534);
    CHECK_RANGE(r, ng, -98294, 98311);
    CHECK_RANGE(r, ab, 0, 98311);
    CHECK_RANGE(r, sr, 0, 6);
    free(r);
    graph_free(g);
}

/* int8 [1, 2304, 1] -> ARG_MAX axis 1 -> FLOOR_DIV 48 -> MUL 48 -> SUB
 * from the ARG_MAX (movenet's row / column of the maximum); views keep the
 * interval; a CAST from uint32 and an int32 input are any int32. */
static void test_argmax_chain(void)
{
    graph *g = graph_new("argmax");
    int32_t s3[3] = {1, 2304, 1}, s2[2] = {1, 1}, one[1] = {1}, s1[1] = {1};
    int32_t k1 = 1, k48 = 48, kneg = -48;
    int32_t x = tens(g, "x", GRAPH_I8, 3, s3, NULL);
    int32_t ax = tens(g, "axis", GRAPH_I32, 0, one, &k1);
    int32_t c48 = tens(g, "48", GRAPH_I32, 0, one, &k48);
    int32_t cn = tens(g, "-48", GRAPH_I32, 0, one, &kneg);
    int32_t am = tens(g, "am", GRAPH_I32, 2, s2, NULL), fd = tens(g, "fd", GRAPH_I32, 2, s2, NULL);
    int32_t mu = tens(g, "mu", GRAPH_I32, 2, s2, NULL), sb = tens(g, "sb", GRAPH_I32, 2, s2, NULL);
    int32_t rs = tens(g, "rs", GRAPH_I32, 1, s1, NULL), fdn = tens(g, "fdn", GRAPH_I32, 2, s2, NULL);
    int32_t u = tens(g, "u", GRAPH_U32, 1, s1, NULL), uc = tens(g, "uc", GRAPH_I32, 1, s1, NULL);
    int32_t in = tens(g, "in", GRAPH_I32, 1, s1, NULL), pk = tens(g, "pk", GRAPH_I32, 2, (int32_t[]){2, 1}, NULL);
    int32_t sh = tens(g, "sh", GRAPH_I32, 1, (int32_t[]){3}, NULL);
    op2(g, TFL_OP_ARG_MAX, 0, x, ax, am);
    op2(g, TFL_OP_FLOOR_DIV, 0, am, c48, fd);
    op2(g, TFL_OP_MUL, 0, fd, c48, mu);
    op2(g, TFL_OP_SUB, 0, am, mu, sb);
    op2(g, TFL_OP_RESHAPE, 0, sb, -1, rs);
    op2(g, TFL_OP_FLOOR_DIV, 0, am, cn, fdn);       /* negative divisor: not modelled */
    op2(g, TFL_OP_CAST, 0, u, -1, uc);
    {
        tfl_options opt;
        memset(&opt, 0, sizeof opt);
        int32_t ins[2] = {rs, in};
        CHECK(graph_add_op(g, TFL_OP_PACK, &opt, 2, ins, 1, &pk) >= 0);
    }
    op2(g, TFL_OP_SHAPE, 0, x, -1, sh);
    cc_range *r = analyse(g);
    CHECK_RANGE(r, am, 0, 2303);
    CHECK_RANGE(r, fd, 0, 47);
    CHECK_RANGE(r, mu, 0, 2256);
    CHECK_RANGE(r, sb, -2256, 2303);
    CHECK_RANGE(r, rs, -2256, 2303);
    CHECK_RANGE(r, fdn, INT32_MIN, INT32_MAX);
    CHECK_RANGE(r, uc, INT32_MIN, INT32_MAX);
    CHECK_RANGE(r, in, INT32_MIN, INT32_MAX);
    CHECK_RANGE(r, pk, INT32_MIN, INT32_MAX);
    CHECK_RANGE(r, sh, 1, 2304);
    CHECK_RANGE(r, c48, 48, 48);
    free(r);
    graph_free(g);
}

/* Types: a float tensor is unknown, uint8 / bool have theirs. */
static void test_types(void)
{
    graph *g = graph_new("types");
    int32_t s[1] = {4};
    int32_t f = tens(g, "f", GRAPH_F32, 1, s, NULL), u8 = tens(g, "u8", GRAPH_U8, 1, s, NULL);
    int32_t b = tens(g, "b", GRAPH_BOOL, 1, s, NULL), c = tens(g, "c", GRAPH_I32, 1, s, NULL);
    int32_t cf = tens(g, "cf", GRAPH_I32, 1, s, NULL);
    op2(g, TFL_OP_CAST, 0, u8, -1, c);
    op2(g, TFL_OP_CAST, 0, f, -1, cf);
    cc_range *r = analyse(g);
    CHECK_RANGE(r, f, INT64_MIN, INT64_MAX);
    CHECK_RANGE(r, u8, 0, 255);
    CHECK_RANGE(r, b, 0, 1);
    CHECK_RANGE(r, c, 0, 255);
    CHECK_RANGE(r, cf, INT32_MIN, INT32_MAX);
    free(r);
    graph_free(g);
}

int main(void)
{
    test_cast_chain();
    test_argmax_chain();
    test_types();
    TEST_MAIN_END();
}
