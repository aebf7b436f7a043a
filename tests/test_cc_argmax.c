/* ARG_MAX / ARG_MIN (int8 -> int32) on the NPU (src/compiler/lower/lower_pool.c,
 * lower_argmax): up to 128 values along the axis, int16 keys (value and
 * reversed position) from an ELEMENTWISE ADD, a MAX pool along the axis,
 * and the position recovered from the largest key; longer axes (up to
 * 32768) through the maximum first: keys clamp16((x - max) * 2^b) plus a
 * reversed-position ramp, MAX pools (rows that may overlap where the axis
 * does not factor), and the position from the largest key; ARG_MIN through
 * the order-reversing LUT first.
 *
 * Random single-op graphs (rank 1..4, random shapes, a random axis given
 * as a positive or negative constant, input quantization, every Ethos-U
 * variant, a quarter with --optimise size) are compiled, emitted, read
 * back and run with the ethos-u op on the virtual NPU, every command
 * stream hazard-checked, and the output compared byte for byte with the
 * reference interpreter over input patterns (which include long runs of
 * one value: ties, and all-equal rows). Two sets: axis lengths up to 128
 * (the short form), and 129..5000 with lengths next to powers of two
 * (the long form; outer and inner sizes, and two more draws: one sparse
 * maximum per row at a random place, sparse ties of one value). All must
 * be on the NPU. Also the longest axis (32768) and what stays on the CPU:
 * a longer axis, an axis that fits no pool split over too many outer
 * rows, a non-constant axis.
 *
 * Environment: NPUC_ARGMAX_CONFIGS (random short configurations, default
 * 240), NPUC_ARGMAX_LONG (random long ones, default 240), NPUC_ARGMAX_SEED
 * (first seed, default 1). */
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

/* The reduced axis's length (R) and stride in elements (K2). */
static void axis_geom(const cfg *c, int32_t *R, int32_t *K2)
{
    int32_t ax = c->axis < 0 ? c->axis + c->rank : c->axis;
    *R = c->shape[ax];
    *K2 = 1;
    for (int32_t d = ax + 1; d < c->rank; d++) *K2 *= c->shape[d];
}

/* Draws 0-5 the shared patterns; then (long axes) 6: values below 100 with
 * about two larger ones per row at random places, 7: one value with about
 * two higher by one per row (sparse ties of the maximum), 8: values rising
 * along the axis from -128 to 127 (ARG_MIN: falling), the one extreme at
 * the last place. */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    cc_single_run *x = user;
    const cfg *c = x->cfg;
    if (k == 1) {
        memcpy(buf, &c->axis, n < 4 ? n : 4);
        return;
    }
    if (d < 6) {
        cc_fill_patterns(&x->p, r, d, k, buf, n);
        return;
    }
    int32_t R, K2;
    axis_geom(c, &R, &K2);
    x->p.pat = d;
    int64_t base = npuc_rng_range(r, -128, 126);
    for (size_t i = 0; d == 8 && i < n; i++) {
        int64_t pos = (int64_t)(i / (size_t)K2) % R;
        int64_t v = -128 + pos * 255 / (R - 1);
        buf[i] = (uint8_t)(int8_t)(c->is_min ? -1 - v : v);
    }
    for (size_t i = 0; d < 8 && i < n; i++) {
        bool hit = npuc_rng_range(r, 0, R - 1) < 2;
        int64_t v = d == 6 ? (hit ? npuc_rng_range(r, 100, 127) : npuc_rng_range(r, -128, 99)) : base + hit;
        buf[i] = (uint8_t)(int8_t)v;
    }
}

static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, cc_single_stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    int32_t R, K2;
    axis_geom(c, &R, &K2);
    return cc_single_run_op(cs, build_graph(c), GRAPH_I8, c->variant, (cc_options){.optimise = c->optimise}, seed,
                            R > 128 ? 9 : 6, expect_npu, why, "NPUC_ARGMAX_VERBOSE", fill_draw, c, st);
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

/* A long axis (129..5000, a third of them next to a power of two from 256
 * to 4096) at a random place of a rank 1..4 shape with up to 8 outer rows
 * (an axis that fits no pool split takes one pool per outer row) and inner
 * sizes up to 40, at most 60000 elements. */
static void random_long(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->is_min = npuc_rng_range(r, 0, 1) == 1;
    c->rank = (int32_t)npuc_rng_range(r, 1, 4);
    int32_t ax = (int32_t)npuc_rng_range(r, 0, c->rank - 1);
    int32_t R = npuc_rng_range(r, 0, 2) == 0
        ? (int32_t)(1 << npuc_rng_range(r, 8, 12)) + (int32_t)npuc_rng_range(r, -1, 1)
        : (int32_t)npuc_rng_range(r, 129, 5000);
    int64_t outer_max = 8, inner_max = 40, n = R;
    for (int32_t d = 0; d < c->rank; d++) {
        if (d == ax) {
            c->shape[d] = R;
            continue;
        }
        int64_t lim = d < ax ? outer_max : inner_max;
        if (lim > 60000 / n) lim = 60000 / n;
        if (lim < 1) lim = 1;
        c->shape[d] = (int32_t)npuc_rng_range(r, 1, lim);
        if (d < ax) outer_max /= c->shape[d];
        else inner_max /= c->shape[d];
        if (outer_max < 1) outer_max = 1;
        if (inner_max < 1) inner_max = 1;
        n *= c->shape[d];
    }
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

    long n_long = env_long("NPUC_ARGMAX_LONG", 240);
    int npu0 = st.npu, failed0 = st.failed;
    for (long i = 0; i < n_long; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000033u + 977);
        cfg c;
        random_long(&r, &c);
        c.variant = variants[vi++ % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, seed, 1, NULL, &st);
    }
    printf("long axes: %d of %ld on the NPU, %d failed\n", st.npu - npu0, n_long, st.failed - failed0);

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
        CHECK(run_config(&c, 990, 1, NULL, &st));
        c.shape[1] = 128;
        CHECK(run_config(&c, 991, 1, NULL, &st));
        /* 257 fits no split of 17 outer rows (one pool each takes 16) */
        c.shape[0] = 17;
        c.shape[1] = 257;
        CHECK(run_config(&c, 992, 0, "no split", &st));
        c.shape[0] = 16;
        CHECK(run_config(&c, 993, 1, NULL, &st));
        /* the longest axis, and one past it */
        c.shape[0] = 1;
        c.shape[1] = 32768;
        c.is_min = true;
        CHECK(run_config(&c, 994, 1, NULL, &st));
        c.is_min = false;
        c.variant = EU_U65_512;
        CHECK(run_config(&c, 995, 1, NULL, &st));
        c.shape[1] = 32767;
        CHECK(run_config(&c, 996, 1, NULL, &st));
        c.shape[1] = 32769;
        CHECK(run_config(&c, 997, 0, "up to 32768", &st));
        /* movenet's heatmaps: 48 x 48 positions, 17 and 1 channels, on
         * every variant */
        c.rank = 3;
        c.shape[1] = 2304;
        for (int v = 0; v < 6; v++) {
            c.variant = variants[v];
            c.shape[2] = 17;
            CHECK(run_config(&c, 998, 1, NULL, &st));
            c.shape[2] = 1;
            CHECK(run_config(&c, 999, 1, NULL, &st));
        }
        c.rank = 2;
        c.shape[1] = 128;
        c.axis_input = true;
        CHECK(run_config(&c, 1000, 0, "not a constant", &st));
    }

    printf("argmax: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws compared\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
