/* REDUCE_MAX, REDUCE_MIN and SUM on the NPU (src/compiler/lower/lower_pool.c):
 * MAX pools over the K x R x K2 view of the input (REDUCE_MIN int8 as
 * ~max(~x) through a LUT), SUM as MEAN's AVERAGE pools without 1/count.
 *
 * Random single-op graphs (rank 1..5, random shapes, adjacent axes given as
 * written, keep_dims either way, int8 and int16 where the reference takes
 * them, SUM with random scales and zero points, every Ethos-U variant, a
 * quarter with --optimise size, reductions long enough to need two passes)
 * are compiled, emitted, read back and run with the ethos-u op on the
 * virtual NPU, every command stream hazard-checked, and the output compared
 * byte for byte with the reference interpreter over input patterns (uniform,
 * extremes, ties). The op must be on the NPU unless the lowering says why
 * not (a SUM rescale out of range, an overflowing sum). Also what stays on
 * the CPU: axes that are not adjacent, non-constant axes.
 *
 * Environment: NPUC_REDUCE_CONFIGS (random configurations per op, default
 * 250), NPUC_REDUCE_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_single_op.h"

typedef struct cfg {
    int32_t opcode;
    graph_dtype dt;
    int32_t rank, shape[5];
    int32_t axes[5], n_axes;
    bool keep, axes_input;
    float is, os;
    int64_t izp, ozp;
    eu_variant variant;
    cc_optimise optimise;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s %s [", tfl_builtin_name(c->opcode), graph_dtype_name(c->dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    if (o < size) o += (size_t)snprintf(buf + o, size - o, "] axes");
    for (int32_t i = 0; i < c->n_axes && o < size; i++) o += (size_t)snprintf(buf + o, size - o, " %d", c->axes[i]);
    if (o < size)
        snprintf(buf + o, size - o, "%s%s in (%.9g, %lld) out (%.9g, %lld), %s%s", c->keep ? " keep" : "",
                 c->axes_input ? " (as input)" : "", (double)c->is, (long long)c->izp, (double)c->os,
                 (long long)c->ozp, target_variant_name(c->variant), c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("reduce");
    if (!g) return NULL;
    bool red[5] = {false};
    for (int32_t i = 0; i < c->n_axes; i++) red[c->axes[i] < 0 ? c->axes[i] + c->rank : c->axes[i]] = true;
    int32_t oshape[5], orank = 0;
    for (int32_t d = 0; d < c->rank; d++) {
        if (!red[d]) oshape[orank++] = c->shape[d];
        else if (c->keep) oshape[orank++] = 1;
    }
    int32_t x = graph_add_tensor(g, "x", c->dt, c->rank, c->shape, NULL);
    int32_t y = graph_add_tensor(g, "y", c->dt, orank, oshape, NULL);
    int32_t na = c->n_axes;
    int32_t a = graph_add_tensor(g, "axes", GRAPH_I32, 1, &na, c->axes_input ? NULL : c->axes);
    bool ok = x >= 0 && y >= 0 && a >= 0 && !graph_set_quant(g, x, 1, &c->is, &c->izp, 0) &&
              !graph_set_quant(g, y, 1, &c->os, &c->ozp, 0);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.keep_dims = c->keep;
    int32_t ins[2] = {x, a};
    ok = ok && graph_add_op(g, c->opcode, &opt, 2, ins, 1, &y) >= 0 && !graph_set_io(g, c->axes_input ? 2 : 1, ins, 1, &y);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* The data input through the shared patterns; a given axes input its
 * values. */
/* expect_npu: 1 on the NPU, 0 on the CPU (with `why` in the reason), -1
 * either. */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    cc_single_run *x = user;
    const cfg *c = x->cfg;
    if (k == 1) {
        memcpy(buf, c->axes, n);
        return;
    }
    cc_fill_patterns(&x->p, r, d, k, buf, n);
}

static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, cc_single_stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    return cc_single_run_op(cs, build_graph(c), c->dt, c->variant, (cc_options){.optimise = c->optimise}, seed, 4,
                            expect_npu, why, "NPUC_REDUCE_VERBOSE", fill_draw, c, st);
}

static void random_config(npuc_rng *r, int32_t opcode, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->opcode = opcode;
    c->dt = opcode == TFL_OP_REDUCE_MIN || npuc_rng_range(r, 0, 2) ? GRAPH_I8 : GRAPH_I16;
    /* int16 REDUCE_MAX: the reference takes int8 and float32 only */
    if (opcode == TFL_OP_REDUCE_MAX) c->dt = GRAPH_I8;
    c->rank = (int32_t)npuc_rng_range(r, 1, 5);
    int32_t budget = npuc_rng_range(r, 0, 3) ? 2000 : 40000;   /* some reductions long enough for two passes */
    for (int32_t d = 0; d < c->rank; d++) {
        c->shape[d] = (int32_t)npuc_rng_range(r, 1, budget > 300 ? 300 : budget);
        if (npuc_rng_range(r, 0, 2) == 0) c->shape[d] = (int32_t)npuc_rng_range(r, 1, 6);
        budget /= c->shape[d];
        if (budget < 1) budget = 1;
    }
    int32_t a0 = (int32_t)npuc_rng_range(r, 0, c->rank - 1);
    c->n_axes = (int32_t)npuc_rng_range(r, 1, c->rank - a0);
    for (int32_t i = 0; i < c->n_axes; i++) c->axes[i] = a0 + i - (npuc_rng_range(r, 0, 1) ? c->rank : 0);
    c->keep = npuc_rng_range(r, 0, 1);
    bool wide = c->dt == GRAPH_I16;
    c->is = cc_rand_log_scale(r, 1e-3, 1.0);
    c->izp = wide ? 0 : npuc_rng_range(r, -128, 127);
    c->os = c->is;
    c->ozp = c->izp;
    if (opcode == TFL_OP_SUM) {
        c->os = (float)(c->is * cc_rand_log_scale(r, 1.0, 4096.0));
        c->ozp = wide ? 0 : npuc_rng_range(r, -128, 127);
    }
}

int main(void)
{
    cc_single_stats st = {0};
    long n_random = env_long("NPUC_REDUCE_CONFIGS", 250);
    long first = env_long("NPUC_REDUCE_SEED", 1);
    static const int32_t ops[3] = {TFL_OP_REDUCE_MAX, TFL_OP_REDUCE_MIN, TFL_OP_SUM};
    int vi = 0;
    for (int k = 0; k < 3; k++) {
        int npu0 = st.npu, failed0 = st.failed;
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = (uint64_t)(first + i) * 3 + (uint64_t)k;
            npuc_rng r;
            npuc_rng_seed(&r, seed * 40503u + 29);
            cfg c;
            random_config(&r, ops[k], &c);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            run_config(&c, seed, -1, NULL, &st);
        }
        printf("%s: %d of %ld on the NPU, %d failed\n", tfl_builtin_name(ops[k]), st.npu - npu0, n_random,
               st.failed - failed0);
        CHECK(st.npu - npu0 >= n_random * 2 / 3);
    }

    /* fixed cases on every variant: a global max / min over an image, a
     * channel sum, a row of 1000 (two passes) */
    for (int v = 0; v < 6; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.dt = GRAPH_I8;
        c.rank = 4;
        c.shape[0] = 1; c.shape[1] = 24; c.shape[2] = 17; c.shape[3] = 9;
        c.n_axes = 2;
        c.axes[0] = 1; c.axes[1] = 2;
        c.is = c.os = 0.02f;
        c.izp = c.ozp = 5;
        c.variant = variants[v];
        c.opcode = TFL_OP_REDUCE_MAX;
        CHECK(run_config(&c, (uint64_t)(900 + v), 1, NULL, &st));
        c.opcode = TFL_OP_REDUCE_MIN;
        c.keep = true;
        CHECK(run_config(&c, (uint64_t)(910 + v), 1, NULL, &st));
        c.opcode = TFL_OP_SUM;
        c.n_axes = 1;
        c.axes[0] = -1;
        c.os = 0.1f;
        c.ozp = -20;
        CHECK(run_config(&c, (uint64_t)(920 + v), 1, NULL, &st));
        c.rank = 2;
        c.shape[0] = 3; c.shape[1] = 1000;
        c.opcode = TFL_OP_REDUCE_MAX;
        c.os = c.is;
        c.ozp = c.izp;
        CHECK(run_config(&c, (uint64_t)(930 + v), 1, NULL, &st));
    }

    /* what stays on the CPU */
    {
        cfg c;
        memset(&c, 0, sizeof c);
        c.opcode = TFL_OP_REDUCE_MAX;
        c.dt = GRAPH_I8;
        c.rank = 3;
        c.shape[0] = 4; c.shape[1] = 5; c.shape[2] = 6;
        c.n_axes = 2;
        c.axes[0] = 0; c.axes[1] = 2;
        c.is = c.os = 0.1f;
        c.variant = EU_U55_128;
        CHECK(run_config(&c, 950, 0, "not adjacent", &st));
        c.n_axes = 1;
        c.axes_input = true;
        CHECK(run_config(&c, 951, 0, "not constant", &st));
    }

    printf("reduce: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws compared\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
