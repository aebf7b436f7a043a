/* SQUARED_DIFFERENCE (int8) on the NPU (src/compiler/lower/lower_elementwise.c,
 * lower_sqdiff): an ELEMENTWISE SUB with TFLite's operand scaling into an
 * int16 difference, then an ELEMENTWISE MUL of it by itself with TFLite's
 * output multiplier; checked at compile time for every pair of input
 * values.
 *
 * Random single-op graphs (rank 1..4, random shapes, the second operand of
 * the same shape, broadcast along some axes, a constant, or a constant
 * scalar, random scales and zero points, every Ethos-U variant, a quarter
 * with --optimise size) are compiled, emitted, read back and run with the
 * ethos-u op on the virtual NPU, every command stream hazard-checked, and
 * the output compared byte for byte with the reference interpreter over
 * input patterns. Also what stays on the CPU: int16.
 *
 * Environment: NPUC_SQDIFF_CONFIGS (random configurations, default 240),
 * NPUC_SQDIFF_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_single_op.h"

typedef struct cfg {
    graph_dtype dt;
    int32_t rank, shape[4];
    int32_t brank, bshape[4];
    bool b_const;
    int8_t bdata[4096];
    float as, bs, os;
    int64_t azp, bzp, ozp;
    eu_variant variant;
    cc_optimise optimise;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "SQUARED_DIFFERENCE %s ", graph_dtype_name(c->dt));
    if (o < size) o += cc_shape_str(buf + o, size - o, c->shape, c->rank);
    if (o < size) o += (size_t)snprintf(buf + o, size - o, " - ");
    if (o < size) o += cc_shape_str(buf + o, size - o, c->bshape, c->brank);
    if (o < size)
        snprintf(buf + o, size - o, "%s a (%.9g, %lld) b (%.9g, %lld) out (%.9g, %lld), %s%s",
                 c->b_const ? " (constant)" : "", (double)c->as, (long long)c->azp, (double)c->bs,
                 (long long)c->bzp, (double)c->os, (long long)c->ozp, target_variant_name(c->variant),
                 c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("sqdiff");
    if (!g) return NULL;
    int32_t x = graph_add_tensor(g, "a", c->dt, c->rank, c->shape, NULL);
    int32_t b = graph_add_tensor(g, "b", c->dt, c->brank, c->bshape, c->b_const ? c->bdata : NULL);
    int32_t y = graph_add_tensor(g, "out", c->dt, c->rank, c->shape, NULL);
    bool ok = x >= 0 && b >= 0 && y >= 0 && !graph_set_quant(g, x, 1, &c->as, &c->azp, 0) &&
              !graph_set_quant(g, b, 1, &c->bs, &c->bzp, 0) && !graph_set_quant(g, y, 1, &c->os, &c->ozp, 0);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    int32_t ins[2] = {x, b};
    ok = ok && graph_add_op(g, TFL_OP_SQUARED_DIFFERENCE, &opt, 2, ins, 1, &y) >= 0 &&
         !graph_set_io(g, c->b_const ? 1 : 2, ins, 1, &y);
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
                            expect_npu, why, "NPUC_SQDIFF_VERBOSE", NULL, c, st);
}

static void random_config(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dt = GRAPH_I8;
    c->rank = (int32_t)npuc_rng_range(r, 1, 4);
    for (int32_t d = 0; d < c->rank; d++) c->shape[d] = (int32_t)npuc_rng_range(r, 1, d == c->rank - 1 ? 40 : 9);
    c->shape[0] = c->rank == 4 ? 1 : c->shape[0];
    int kind = (int)npuc_rng_range(r, 0, 5);   /* 0,1 same shape; 2 broadcast; 3 constant; 4 scalar */
    c->brank = kind == 4 ? 1 : c->rank;
    for (int32_t d = 0; d < c->brank; d++)
        c->bshape[d] = kind == 4 ? 1 : kind == 2 && npuc_rng_range(r, 0, 1) ? 1 : c->shape[d];
    c->b_const = kind >= 3;
    size_t nb = 1;
    for (int32_t d = 0; d < c->brank; d++) nb *= (size_t)c->bshape[d];
    for (size_t i = 0; i < nb && i < sizeof c->bdata; i++) c->bdata[i] = (int8_t)npuc_rng_range(r, -128, 127);
    c->as = cc_rand_log_scale(r, 1e-3, 0.5);
    c->bs = npuc_rng_range(r, 0, 3) == 0 ? c->as : cc_rand_log_scale(r, 1e-3, 0.5);
    double big = c->as > c->bs ? c->as : c->bs;
    c->os = (float)(big * big * cc_rand_log_scale(r, 4.0, 3000.0));
    c->azp = npuc_rng_range(r, -128, 127);
    c->bzp = npuc_rng_range(r, -128, 127);
    c->ozp = npuc_rng_range(r, -128, 127);
}

int main(void)
{
    cc_single_stats st = {0};
    long n_random = env_long("NPUC_SQDIFF_CONFIGS", 240);
    long first = env_long("NPUC_SQDIFF_SEED", 1);
    int vi = 0;
    for (long i = 0; i < n_random; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000003u + 131);
        cfg c;
        random_config(&r, &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, seed, -1, NULL, &st);
    }
    printf("SQUARED_DIFFERENCE: %d of %ld on the NPU, %d failed\n", st.npu, n_random, st.failed);
    /* every pair is checked at compile time; the form is exact by construction */
    CHECK(st.npu >= n_random * 9 / 10);

    /* what stays on the CPU */
    {
        cfg c;
        memset(&c, 0, sizeof c);
        c.dt = GRAPH_I8;
        c.rank = c.brank = 2;
        c.shape[0] = c.bshape[0] = 3;
        c.shape[1] = c.bshape[1] = 4;
        c.as = 0.05f;
        c.bs = 0.02f;
        c.os = 0.01f;
        c.azp = 3;
        c.ozp = -100;
        c.variant = EU_U55_128;
        CHECK(run_config(&c, 990, 1, NULL, &st));
        c.dt = GRAPH_I16;
        c.azp = c.ozp = 0;
        CHECK(run_config(&c, 991, 0, "int16", &st));
    }

    printf("sqdiff: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws compared\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
