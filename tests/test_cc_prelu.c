/* PRELU (int8) on the NPU (src/compiler/lower/lower_prelu.c): the identity
 * and alpha branches as a 1x1 AVERAGE pool and an ELEMENTWISE MUL, joined
 * by an ELEMENTWISE MAX (alphas up to 1) or MIN (alphas above 1), checked
 * at compile time over every input in every channel.
 *
 * Random single-op graphs (rank 1..4, random shapes, input / alpha /
 * output scales and zero points, alpha one value or one per channel, in
 * [-1, 1], above 1, or mixed across 1, every Ethos-U variant, a quarter
 * with --optimise size) are compiled, emitted, read back and run with the
 * ethos-u op on the virtual NPU, every command stream hazard-checked, and
 * the output compared byte for byte with the reference interpreter over
 * input patterns. Alphas on one side of 1 must be on the NPU; mixed ones
 * may stay on the CPU with the lowering's reason. Also what stays on the
 * CPU: a non-constant alpha, an alpha varying along H or W, int16.
 *
 * Environment: NPUC_PRELU_CONFIGS (random configurations, default 300),
 * NPUC_PRELU_SEED (first seed, default 1). */
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
    int32_t arank, ashape[4];       /* alpha's shape */
    int8_t alpha[64];
    float is, as, os;
    int64_t izp, azp, ozp;
    bool alpha_input;
    eu_variant variant;
    cc_optimise optimise;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "PRELU %s [", graph_dtype_name(c->dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    if (o < size) o += (size_t)snprintf(buf + o, size - o, "] alpha [");
    for (int32_t d = 0; d < c->arank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->ashape[d]);
    if (o < size)
        snprintf(buf + o, size - o, "]%s in (%.9g, %lld) alpha (%.9g, %lld) out (%.9g, %lld), %s%s",
                 c->alpha_input ? " (as input)" : "", (double)c->is, (long long)c->izp, (double)c->as,
                 (long long)c->azp, (double)c->os, (long long)c->ozp, target_variant_name(c->variant),
                 c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("prelu");
    if (!g) return NULL;
    int32_t x = graph_add_tensor(g, "x", c->dt, c->rank, c->shape, NULL);
    int32_t a = graph_add_tensor(g, "alpha", GRAPH_I8, c->arank, c->ashape, c->alpha_input ? NULL : c->alpha);
    int32_t y = graph_add_tensor(g, "y", c->dt, c->rank, c->shape, NULL);
    bool ok = x >= 0 && a >= 0 && y >= 0 && !graph_set_quant(g, x, 1, &c->is, &c->izp, 0) &&
              !graph_set_quant(g, a, 1, &c->as, &c->azp, 0) && !graph_set_quant(g, y, 1, &c->os, &c->ozp, 0);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    int32_t ins[2] = {x, a};
    ok = ok && graph_add_op(g, TFL_OP_PRELU, &opt, 2, ins, 1, &y) >= 0 &&
         !graph_set_io(g, c->alpha_input ? 2 : 1, ins, 1, &y);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    cc_single_run *x = user;
    const cfg *c = x->cfg;
    if (k == 1) {
        memcpy(buf, c->alpha, n);
        return;
    }
    cc_fill_patterns(&x->p, r, d, k, buf, n);
}

static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, cc_single_stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    return cc_single_run_op(cs, build_graph(c), c->dt, c->variant, (cc_options){.optimise = c->optimise}, seed, 6,
                            expect_npu, why, "NPUC_PRELU_VERBOSE", fill_draw, c, st);
}

/* kind 0: alphas in [-1, 1]; 1: above 1; 2: across 1. Returns whether the
 * NPU must take it (alphas on one side of 1). */
static bool random_config(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->dt = GRAPH_I8;
    c->rank = (int32_t)npuc_rng_range(r, 1, 4);
    for (int32_t d = 0; d < c->rank; d++) c->shape[d] = (int32_t)npuc_rng_range(r, 1, d == c->rank - 1 ? 40 : 12);
    int32_t C = c->shape[c->rank - 1];
    bool per_ch = npuc_rng_range(r, 0, 2) > 0;
    c->arank = per_ch ? (int32_t)npuc_rng_range(r, 1, c->rank) : 1;
    for (int32_t d = 0; d < c->arank; d++) c->ashape[d] = 1;
    if (per_ch) c->ashape[c->arank - 1] = C;
    int32_t na = per_ch ? C : 1;
    int kind = (int)npuc_rng_range(r, 0, 5);
    kind = kind < 4 ? 0 : kind == 4 ? 1 : 2;
    c->is = cc_rand_log_scale(r, 1e-3, 0.5);
    c->izp = npuc_rng_range(r, -128, 127);
    c->os = npuc_rng_range(r, 0, 2) == 0 ? c->is : (float)(c->is * cc_rand_log_scale(r, 0.25, 4.0));
    c->ozp = npuc_rng_range(r, -128, 127);
    c->azp = npuc_rng_range(r, 0, 2) == 0 ? 0 : npuc_rng_range(r, -20, 20);
    /* alpha real values: kind 0 in [-1, 1], 1 in (1, 4], 2 either */
    c->as = kind == 1 ? 4.0f / 100.0f : 1.0f / 100.0f;
    for (int32_t i = 0; i < na; i++) {
        double v = kind == 0 ? npuc_rng_unit(r) * 2.0 - 1.0 : kind == 1 ? 1.05 + npuc_rng_unit(r) * 2.9
                                                                         : npuc_rng_unit(r) * 2.0;
        if (kind == 2 && i == 0) v = 0.5;
        if (kind == 2 && i == 1) v = 1.5;
        long q = lround(v / c->as) + (long)c->azp;
        c->alpha[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
    }
    return kind != 2;
}

int main(void)
{
    cc_single_stats st = {0};
    long n_random = env_long("NPUC_PRELU_CONFIGS", 300);
    long first = env_long("NPUC_PRELU_SEED", 1);
    int vi = 0, must = 0, must_npu = 0;
    for (long i = 0; i < n_random; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000003u + 71);
        cfg c;
        bool one_side = random_config(&r, &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        int npu0 = st.npu;
        run_config(&c, seed, -1, NULL, &st);
        if (one_side) {
            must++;
            must_npu += st.npu - npu0;
        }
    }
    printf("PRELU: %d of %ld on the NPU (%d of the %d with alphas on one side of 1), %d failed\n", st.npu, n_random,
           must_npu, must, st.failed);
    /* every rounding corner is checked at compile time; nearly all one-sided
     * alphas are exact */
    CHECK(must_npu >= must * 9 / 10);

    /* what stays on the CPU */
    {
        cfg c;
        memset(&c, 0, sizeof c);
        c.dt = GRAPH_I8;
        c.rank = 4;
        c.shape[0] = 1; c.shape[1] = 3; c.shape[2] = 4; c.shape[3] = 5;
        c.arank = 3;
        c.ashape[0] = 1; c.ashape[1] = 1; c.ashape[2] = 5;
        for (int i = 0; i < 5; i++) c.alpha[i] = (int8_t)(10 * i);
        c.is = c.os = 0.05f;
        c.as = 0.01f;
        c.variant = EU_U55_128;
        CHECK(run_config(&c, 990, 1, NULL, &st));
        c.alpha_input = true;
        CHECK(run_config(&c, 991, 0, "not a constant", &st));
        c.alpha_input = false;
        c.ashape[1] = 4;
        c.ashape[2] = 5;
        for (int i = 0; i < 20; i++) c.alpha[i] = (int8_t)i;
        CHECK(run_config(&c, 992, 0, "more than the channels", &st));
    }

    printf("prelu: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws compared\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
