/* ARG_MAX / ARG_MIN (int8 -> int32) on the NPU (src/compiler/lower/lower_pool.c,
 * lower_argmax): int16 keys (value and reversed position) from an
 * ELEMENTWISE ADD, a MAX pool along the axis, and the position recovered
 * from the largest key; ARG_MIN through the order-reversing LUT first.
 *
 * Random single-op graphs (rank 1..4, random shapes, a random axis given
 * as a positive or negative constant, axis lengths up to 128, input
 * quantization, every Ethos-U variant, a quarter with --optimise size) are
 * compiled, emitted, read back and run with the ethos-u op on the virtual
 * NPU, every command stream hazard-checked, and the output compared byte
 * for byte with the reference interpreter over input patterns (which
 * include long runs of one value: ties). All must be on the NPU. Also what
 * stays on the CPU: an axis longer than 128, a non-constant axis.
 *
 * Environment: NPUC_ARGMAX_CONFIGS (random configurations, default 240),
 * NPUC_ARGMAX_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_single_op.h"

typedef struct cfg {
    bool is_min, axis_input;
    int32_t rank, shape[4], axis;
    float s;
    int64_t zp;
    eu_variant variant;
    cc_optimise optimise;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s int8 [", c->is_min ? "ARG_MIN" : "ARG_MAX");
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    if (o < size)
        snprintf(buf + o, size - o, "] axis %d%s in (%.9g, %lld), %s%s", c->axis, c->axis_input ? " (as input)" : "",
                 (double)c->s, (long long)c->zp, target_variant_name(c->variant),
                 c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("argmax");
    if (!g) return NULL;
    int32_t os[4], orank = 0, one = 1;
    int32_t ax = c->axis < 0 ? c->axis + c->rank : c->axis;
    for (int32_t d = 0; d < c->rank; d++)
        if (d != ax) os[orank++] = c->shape[d];
    int32_t x = graph_add_tensor(g, "x", GRAPH_I8, c->rank, c->shape, NULL);
    int32_t a = graph_add_tensor(g, "axis", GRAPH_I32, 1, &one, c->axis_input ? NULL : &c->axis);
    int32_t y = graph_add_tensor(g, "y", GRAPH_I32, orank, os, NULL);
    bool ok = x >= 0 && a >= 0 && y >= 0 && !graph_set_quant(g, x, 1, &c->s, &c->zp, 0);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.output_type = GRAPH_I32;
    int32_t ins[2] = {x, a};
    ok = ok && graph_add_op(g, c->is_min ? TFL_OP_ARG_MIN : TFL_OP_ARG_MAX, &opt, 2, ins, 1, &y) >= 0 &&
         !graph_set_io(g, c->axis_input ? 2 : 1, ins, 1, &y);
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
        memcpy(buf, &c->axis, n < 4 ? n : 4);
        return;
    }
    cc_fill_patterns(&x->p, r, d, k, buf, n);
}

static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, cc_single_stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    return cc_single_run_op(cs, build_graph(c), GRAPH_I8, c->variant, (cc_options){.optimise = c->optimise}, seed, 6,
                            expect_npu, why, "NPUC_ARGMAX_VERBOSE", fill_draw, c, st);
}

static void random_config(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->is_min = npuc_rng_range(r, 0, 1) == 1;
    c->rank = (int32_t)npuc_rng_range(r, 1, 4);
    for (int32_t d = 0; d < c->rank; d++) c->shape[d] = (int32_t)npuc_rng_range(r, 1, 9);
    int32_t ax = (int32_t)npuc_rng_range(r, 0, c->rank - 1);
    int kind = (int)npuc_rng_range(r, 0, 3);   /* axis length: short, up to 40, up to 128 */
    c->shape[ax] = (int32_t)(kind == 0 ? npuc_rng_range(r, 1, 8) : kind == 1 ? npuc_rng_range(r, 9, 40)
                                                                             : npuc_rng_range(r, 41, 128));
    c->axis = npuc_rng_range(r, 0, 1) ? ax : ax - c->rank;
    c->s = (float)exp(log(1e-3) + (log(0.5) - log(1e-3)) * npuc_rng_unit(r));
    c->zp = npuc_rng_range(r, -128, 127);
}

int main(void)
{
    cc_single_stats st = {0};
    long n_random = env_long("NPUC_ARGMAX_CONFIGS", 240);
    long first = env_long("NPUC_ARGMAX_SEED", 1);
    int vi = 0;
    for (long i = 0; i < n_random; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000003u + 211);
        cfg c;
        random_config(&r, &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, seed, 1, NULL, &st);
    }
    printf("ARG_MAX / ARG_MIN: %d of %ld on the NPU, %d failed\n", st.npu, n_random, st.failed);

    /* what stays on the CPU */
    {
        cfg c;
        memset(&c, 0, sizeof c);
        c.rank = 2;
        c.shape[0] = 3;
        c.shape[1] = 129;
        c.axis = 1;
        c.s = 0.1f;
        c.variant = EU_U55_128;
        CHECK(run_config(&c, 990, 0, "up to 128", &st));
        c.shape[1] = 128;
        CHECK(run_config(&c, 991, 1, NULL, &st));
        c.axis_input = true;
        CHECK(run_config(&c, 992, 0, "not a constant", &st));
    }

    printf("argmax: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws compared\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
