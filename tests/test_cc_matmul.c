/* BATCH_MATMUL (int8) with a constant right-hand operand on the NPU
 * (src/compiler/lower/lower_conv.c, lower_batch_matmul): one FULLY_CONNECTED
 * per right-hand matrix, weights R^T with R's zero point taken out, TFLite's
 * float scale product.
 *
 * Random single-op graphs (left-hand rank 2..4, random A, K, C, a rank-2
 * or batched constant right-hand side, adj_y, random scales and zero
 * points, every Ethos-U variant, a quarter with --optimise size) are
 * compiled, emitted, read back and run with the ethos-u op on the virtual
 * NPU, every command stream hazard-checked, and the output compared byte
 * for byte with the reference interpreter over input patterns. All must be
 * on the NPU. The same with both operands model inputs (the MUL and
 * REDUCE_SUM form): batch dims equal or one side a single matrix, adj_x,
 * adj_y,
 * all zero points, at most 64 NPU ops; and deep rows (one row of products
 * per REDUCE_SUM, extreme zero points) on every variant. Also what stays
 * on the CPU: adj_x with a constant, int16, a batched constant the left-hand side
 * broadcasts against, tensors whose batch dims broadcast against each
 * other, more than 64 NPU ops.
 *
 * Environment: NPUC_MATMUL_CONFIGS (random configurations, default 240),
 * NPUC_MATMUL_TENSOR_CONFIGS (the same with two tensors, default 240),
 * NPUC_MATMUL_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_single_op.h"

#define MAX_W 4096

typedef struct cfg {
    graph_dtype dt;
    int32_t lrank, lshape[4];
    int32_t rrank, rshape[4];
    int32_t orank, oshape[4];
    bool adj_x, adj_y, rhs_input;
    int8_t w[MAX_W];
    float ls, rs, os;
    int64_t lzp, rzp, ozp;
    eu_variant variant;
    cc_optimise optimise;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "BATCH_MATMUL %s ", graph_dtype_name(c->dt));
    if (o < size) o += cc_shape_str(buf + o, size - o, c->lshape, c->lrank);
    if (o < size) o += (size_t)snprintf(buf + o, size - o, "%s x ", c->adj_x ? "^T" : "");
    if (o < size) o += cc_shape_str(buf + o, size - o, c->rshape, c->rrank);
    if (o < size)
        snprintf(buf + o, size - o, "%s%s lhs (%.9g, %lld) rhs (%.9g, %lld) out (%.9g, %lld), %s%s",
                 c->adj_y ? "^T" : "", c->rhs_input ? " (as input)" : "", (double)c->ls, (long long)c->lzp,
                 (double)c->rs, (long long)c->rzp, (double)c->os, (long long)c->ozp,
                 target_variant_name(c->variant), c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("matmul");
    if (!g) return NULL;
    int32_t x = graph_add_tensor(g, "lhs", c->dt, c->lrank, c->lshape, NULL);
    int32_t w = graph_add_tensor(g, "rhs", c->dt, c->rrank, c->rshape, c->rhs_input ? NULL : c->w);
    int32_t y = graph_add_tensor(g, "out", c->dt, c->orank, c->oshape, NULL);
    bool ok = x >= 0 && w >= 0 && y >= 0 && !graph_set_quant(g, x, 1, &c->ls, &c->lzp, 0) &&
              !graph_set_quant(g, w, 1, &c->rs, &c->rzp, 0) && !graph_set_quant(g, y, 1, &c->os, &c->ozp, 0);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.adj_x = c->adj_x;
    opt.adj_y = c->adj_y;
    int32_t ins[2] = {x, w};
    ok = ok && graph_add_op(g, TFL_OP_BATCH_MATMUL, &opt, 2, ins, 1, &y) >= 0 &&
         !graph_set_io(g, c->rhs_input ? 2 : 1, ins, 1, &y);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, cc_single_stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    return cc_single_run_op(cs, build_graph(c), c->dt, c->variant, (cc_options){.optimise = c->optimise}, seed, 6,
                            expect_npu, why, "NPUC_MATMUL_VERBOSE", NULL, c, st);
}

/* Shapes: lhs [B.., A, K], rhs [K, C] (adj_y [C, K]) or batched like the
 * lhs, output [B.., A, C]; weights random int8 (sparse a third of the time). */
static void random_config(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dt = GRAPH_I8;
    c->lrank = (int32_t)npuc_rng_range(r, 2, 4);
    for (int32_t d = 0; d < c->lrank - 2; d++) c->lshape[d] = (int32_t)npuc_rng_range(r, 1, 3);
    int32_t A = (int32_t)npuc_rng_range(r, 1, 12), K = (int32_t)npuc_rng_range(r, 1, 64),
            C = (int32_t)npuc_rng_range(r, 1, 40);
    c->lshape[c->lrank - 2] = A;
    c->lshape[c->lrank - 1] = K;
    c->adj_y = npuc_rng_range(r, 0, 1) == 1;
    bool batched = c->lrank > 2 && npuc_rng_range(r, 0, 2) == 0;
    c->rrank = batched ? c->lrank : 2;
    int64_t nb = 1;
    for (int32_t d = 0; d < c->rrank - 2; d++) nb *= (c->rshape[d] = c->lshape[d]);
    while (nb * K * C > MAX_W && C > 1) C /= 2;
    c->rshape[c->rrank - 2] = c->adj_y ? C : K;
    c->rshape[c->rrank - 1] = c->adj_y ? K : C;
    c->orank = c->lrank;
    memcpy(c->oshape, c->lshape, sizeof c->oshape);
    c->oshape[c->orank - 1] = C;
    bool sparse = npuc_rng_range(r, 0, 2) == 0;
    for (int64_t i = 0; i < nb * K * C; i++)
        c->w[i] = sparse && npuc_rng_range(r, 0, 1) ? 0 : (int8_t)npuc_rng_range(r, -128, 127);
    c->ls = cc_rand_log_scale(r, 1e-3, 0.5);
    c->rs = cc_rand_log_scale(r, 1e-3, 0.1);
    c->os = (float)(c->ls * c->rs * sqrt((double)K) * cc_rand_log_scale(r, 2.0, 60.0));
    c->lzp = npuc_rng_range(r, -128, 127);
    c->rzp = npuc_rng_range(r, 0, 2) == 0 ? 0 : npuc_rng_range(r, -20, 20);
    c->ozp = npuc_rng_range(r, -128, 127);
}

/* The NPU ops of the tensor-by-tensor form (lower_conv.c, bmm_tensors):
 * a transpose per right-hand matrix without adj_y, per output batch a MUL
 * per row and a REDUCE_SUM per chunk of rows. */
static int64_t tensor_form_ops(int64_t nb, int64_t lb, int64_t rb, int32_t A, int32_t K, int32_t C, bool adj_x,
                               bool adj_y)
{
    int64_t rows = 65536 / ((int64_t)C * K * 4);
    if (rows < 1) rows = 1;
    if (rows > A) rows = A;
    return (adj_y ? 0 : rb) + (adj_x ? lb : 0) + nb * (A + (A + rows - 1) / rows);
}

/* Both operands model inputs: lhs [B.., A, K] (adj_x [B.., K, A]), rhs
 * [B.., K, C] (adj_y [B.., C, K]) with equal batch dims, or one side a single matrix (rank 2
 * or leading 1s) that broadcasts; all zero points, at most 64 NPU ops. */
static void random_tensor_config(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dt = GRAPH_I8;
    c->rhs_input = true;
    c->adj_y = npuc_rng_range(r, 0, 1) == 1;
    c->adj_x = npuc_rng_range(r, 0, 2) == 0;
    int32_t brank = (int32_t)npuc_rng_range(r, 0, 2), bd[2] = {1, 1};
    int64_t nb = 1;
    for (int32_t d = 0; d < brank; d++) nb *= (bd[d] = (int32_t)npuc_rng_range(r, 1, 3));
    int form = (int)npuc_rng_range(r, 0, 2); /* 0 both batched, 1 rhs one matrix, 2 lhs one matrix */
    int32_t K = (int32_t)npuc_rng_range(r, 1, 64), C = (int32_t)npuc_rng_range(r, 1, 40);
    int32_t A = (int32_t)npuc_rng_range(r, 1, 10);
    int64_t rb = form == 1 ? 1 : nb, lb = form == 2 ? 1 : nb;
    while (A > 1 && tensor_form_ops(nb, lb, rb, A, K, C, c->adj_x, c->adj_y) > 64) A--;
    while (tensor_form_ops(nb, lb, rb, A, K, C, c->adj_x, c->adj_y) > 64) {
        nb = rb = lb = 1;
        brank = 0;
    }
    c->lrank = form == 2 ? 2 + (int32_t)npuc_rng_range(r, 0, 1) * brank : brank + 2;
    c->rrank = form == 1 ? 2 + (int32_t)npuc_rng_range(r, 0, 1) * brank : brank + 2;
    for (int32_t d = 0; d < c->lrank - 2; d++) c->lshape[d] = form == 2 ? 1 : bd[d];
    for (int32_t d = 0; d < c->rrank - 2; d++) c->rshape[d] = form == 1 ? 1 : bd[d];
    c->lshape[c->lrank - 2] = c->adj_x ? K : A;
    c->lshape[c->lrank - 1] = c->adj_x ? A : K;
    c->rshape[c->rrank - 2] = c->adj_y ? C : K;
    c->rshape[c->rrank - 1] = c->adj_y ? K : C;
    c->orank = brank + 2;
    if (c->orank < c->lrank) c->orank = c->lrank;
    if (c->orank < c->rrank) c->orank = c->rrank;
    for (int32_t d = 0; d < c->orank - 2; d++) c->oshape[d] = d < brank ? bd[d] : 1;
    c->oshape[c->orank - 2] = A;
    c->oshape[c->orank - 1] = C;
    c->ls = cc_rand_log_scale(r, 1e-3, 0.5);
    c->rs = cc_rand_log_scale(r, 1e-3, 0.5);
    c->os = (float)(c->ls * c->rs * sqrt((double)K) * cc_rand_log_scale(r, 2.0, 200.0));
    c->lzp = npuc_rng_range(r, -128, 127);
    c->rzp = npuc_rng_range(r, 0, 3) == 0 ? 0 : npuc_rng_range(r, -128, 127);
    c->ozp = npuc_rng_range(r, -128, 127);
}

int main(void)
{
    cc_single_stats st = {0};
    long n_random = env_long("NPUC_MATMUL_CONFIGS", 240);
    long first = env_long("NPUC_MATMUL_SEED", 1);
    int vi = 0;
    for (long i = 0; i < n_random; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000003u + 97);
        cfg c;
        random_config(&r, &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, seed, 1, NULL, &st);
    }
    printf("BATCH_MATMUL: %d of %ld on the NPU, %d failed\n", st.npu, n_random, st.failed);

    /* both operands tensors */
    long n_tensor = env_long("NPUC_MATMUL_TENSOR_CONFIGS", 240);
    int npu0 = st.npu, failed0 = st.failed;
    for (long i = 0; i < n_tensor; i++) {
        uint64_t seed = (uint64_t)(first + i) + 500000u;
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000003u + 31);
        cfg c;
        random_tensor_config(&r, &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, seed, 1, NULL, &st);
    }
    printf("BATCH_MATMUL of two tensors: %d of %ld on the NPU, %d failed\n", st.npu - npu0, n_tensor,
           st.failed - failed0);

    /* what stays on the CPU */
    {
        cfg c;
        memset(&c, 0, sizeof c);
        c.dt = GRAPH_I8;
        c.lrank = 3;
        c.lshape[0] = 2; c.lshape[1] = 3; c.lshape[2] = 4;
        c.rrank = 2;
        c.rshape[0] = 4; c.rshape[1] = 5;
        c.orank = 3;
        c.oshape[0] = 2; c.oshape[1] = 3; c.oshape[2] = 5;
        for (int i = 0; i < 20; i++) c.w[i] = (int8_t)(7 * i - 60);
        c.ls = 0.05f;
        c.rs = 0.02f;
        c.os = 0.1f;
        c.variant = EU_U55_128;
        CHECK(run_config(&c, 990, 1, NULL, &st));
        c.rhs_input = true;
        CHECK(run_config(&c, 991, 1, NULL, &st));
        c.adj_x = true;
        c.lshape[1] = 4; c.lshape[2] = 3;   /* stored [B, K, A] */
        CHECK(run_config(&c, 992, 1, NULL, &st));
        c.rhs_input = false;
        CHECK(run_config(&c, 992, 0, "adj_x", &st));
        c.adj_x = false;
        c.lshape[1] = 3; c.lshape[2] = 4;
        /* two tensors, one row of products per REDUCE_SUM (200 x 100 x 4
         * bytes > 64 KiB), deep sums with extreme zero points */
        {
            cfg d = c;
            d.rhs_input = true;
            d.lrank = d.rrank = d.orank = 2;
            d.lshape[0] = 3; d.lshape[1] = 200;
            d.rshape[0] = 200; d.rshape[1] = 100;
            d.oshape[0] = 3; d.oshape[1] = 100;
            d.lzp = -128; d.rzp = 127; d.ozp = 5;
            d.os = d.ls * d.rs * 3000.0f;
            for (int v = 0; v < 6; v++) {
                d.variant = variants[v];
                d.adj_y = v % 2 == 1;
                d.adj_x = v >= 4;
                d.lshape[0] = d.adj_x ? 200 : 3;
                d.lshape[1] = d.adj_x ? 3 : 200;
                if (d.adj_y) { d.rshape[0] = 100; d.rshape[1] = 200; }
                else { d.rshape[0] = 200; d.rshape[1] = 100; }
                CHECK(run_config(&d, 997 + (uint64_t)v, 1, NULL, &st));
            }
        }
        /* two tensors: more than 64 NPU ops (2 x 40 rows) */
        c.rhs_input = true;
        c.lshape[1] = 40;
        c.oshape[1] = 40;
        CHECK(run_config(&c, 994, 0, "NPU ops", &st));
        /* two tensors whose batch dims broadcast against each other: [2,1,3,4] x [1,2,4,5] */
        c.lrank = c.rrank = c.orank = 4;
        c.lshape[0] = 2; c.lshape[1] = 1; c.lshape[2] = 3; c.lshape[3] = 4;
        c.rshape[0] = 1; c.rshape[1] = 2; c.rshape[2] = 4; c.rshape[3] = 5;
        c.oshape[0] = 2; c.oshape[1] = 2; c.oshape[2] = 3; c.oshape[3] = 5;
        CHECK(run_config(&c, 995, 0, "broadcast against each other", &st));
        /* int16 tensors */
        c.dt = GRAPH_I16;
        c.lrank = c.rrank = 2;
        c.orank = 2;
        c.lshape[0] = 3; c.lshape[1] = 4;
        c.rshape[0] = 4; c.rshape[1] = 5;
        c.oshape[0] = 3; c.oshape[1] = 5;
        CHECK(run_config(&c, 996, 0, "take int8", &st));
        /* back to the constant cases below */
        c.dt = GRAPH_I8;
        c.rhs_input = false;
        c.lrank = 3; c.rrank = 2; c.orank = 3;
        c.lshape[0] = 2;
        c.rshape[0] = 4; c.rshape[1] = 5;
        c.oshape[0] = 2; c.oshape[1] = 3; c.oshape[2] = 5;
        c.lshape[1] = 3; c.lshape[2] = 4;
        /* a batched constant the lhs broadcasts against: lhs [1,3,4] x rhs [2,4,5] */
        c.lshape[0] = 1;
        c.rrank = 3;
        c.rshape[0] = 2; c.rshape[1] = 4; c.rshape[2] = 5;
        for (int i = 0; i < 40; i++) c.w[i] = (int8_t)(3 * i - 50);
        c.oshape[0] = 2;
        CHECK(run_config(&c, 993, 0, "broadcast against a batched constant", &st));
    }

    printf("matmul: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws compared\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
