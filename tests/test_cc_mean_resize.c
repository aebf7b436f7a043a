/* MEAN, RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on the NPU
 * (src/compiler/cc_mean.c, cc_resize.c). Single-op graphs with random
 * shapes, axes, keep_dims, scales, zero points, sizes and flags, int8 and
 * int16, are compiled for a random Ethos-U variant (cc_compile ->
 * emit_tflite_model -> tfl_write -> tfl_read -> graph_import), run with
 * the ethos-u op on the virtual NPU and compared byte for byte with the
 * reference interpreter on the source graph, over uniform inputs and the
 * extremes (all minimum, all maximum, random min/max). Edge cases assert
 * the placement: on the NPU where a form exists, on the CPU with the
 * reason otherwise.
 *
 * Environment: NPUC_MR_CONFIGS (random configurations per op, default 400),
 * NPUC_MR_SEED (first seed, default 1), NPUC_MR_VERBOSE (print the reason of
 * every configuration left on the CPU). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_test_npu.h"

/* ------------------------------------------------------------ configs */

typedef struct cfg {
    int32_t opcode;
    graph_dtype dt;
    int32_t rank, shape[6];
    int32_t n_axes, axes[6];      /* MEAN */
    bool keep;
    int32_t size[2];              /* RESIZE */
    bool align, half;
    float s_in, s_out;
    int64_t zi, zo;
    eu_variant variant;
} cfg;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s %s [", c->opcode == TFL_OP_MEAN ? "MEAN"
                                : c->opcode == TFL_OP_RESIZE_BILINEAR ? "BILINEAR" : "NEAREST",
                                graph_dtype_name(c->dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    if (o >= size) return;
    if (c->opcode == TFL_OP_MEAN) {
        o += (size_t)snprintf(buf + o, size - o, "] axes");
        for (int32_t i = 0; i < c->n_axes && o < size; i++) o += (size_t)snprintf(buf + o, size - o, " %d", c->axes[i]);
        if (o < size)
            snprintf(buf + o, size - o, " keep %d scales %.6g/%.6g zp %lld/%lld %s", c->keep, (double)c->s_in,
                     (double)c->s_out, (long long)c->zi, (long long)c->zo, target_variant_name(c->variant));
    } else {
        snprintf(buf + o, size - o, "] -> %dx%d align %d half %d %s", c->size[0], c->size[1], c->align, c->half,
                 target_variant_name(c->variant));
    }
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("mr");
    if (!g) return NULL;
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    int32_t oshape[6], orank = 0;
    int32_t cdata[6], cn, cshape;
    if (c->opcode == TFL_OP_MEAN) {
        opt.keep_dims = c->keep;
        bool red[6] = {false};
        for (int32_t i = 0; i < c->n_axes; i++) red[c->axes[i] < 0 ? c->axes[i] + c->rank : c->axes[i]] = true;
        for (int32_t d = 0; d < c->rank; d++) {
            if (!red[d]) oshape[orank++] = c->shape[d];
            else if (c->keep) oshape[orank++] = 1;
        }
        cn = c->n_axes;
        memcpy(cdata, c->axes, sizeof(int32_t) * (size_t)cn);
    } else {
        opt.align_corners = c->align;
        opt.half_pixel_centers = c->half;
        orank = 4;
        oshape[0] = c->shape[0];
        oshape[1] = c->size[0];
        oshape[2] = c->size[1];
        oshape[3] = c->shape[3];
        cn = 2;
        memcpy(cdata, c->size, sizeof c->size);
    }
    cshape = cn;
    int32_t ti = graph_add_tensor(g, "x", c->dt, c->rank, c->shape, NULL);
    int32_t tc = graph_add_tensor(g, "k", GRAPH_I32, 1, &cshape, cdata);
    int32_t to = graph_add_tensor(g, "y", c->dt, orank, oshape, NULL);
    int32_t ins[2] = {ti, tc};
    bool ok = ti >= 0 && tc >= 0 && to >= 0 && !graph_set_quant(g, ti, 1, &c->s_in, &c->zi, 0) &&
              !graph_set_quant(g, to, 1, &c->s_out, &c->zo, 0) && graph_add_op(g, c->opcode, &opt, 2, ins, 1, &to) >= 0;
    if (!ok || graph_set_io(g, 1, &ti, 1, &to)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

typedef struct stats {
    int configs, npu, cpu, draws, failed, rejected;
} stats;

/* Compiles and checks one configuration. expect_npu: 1 on the NPU, 0 on
 * the CPU (with `why` in the reason when given), -1 either; a
 * configuration the reference rejects is not a test case (counted). */
static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, int n_draws, stats *st)
{
    char cs[300];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    cc_pat_ctx x = {c->dt, cs, seed, 0};
    cc_draws d = {.n_draws = n_draws, .seed = seed, .fill = cc_fill_patterns, .diff = cc_diff_elements,
                  .user = &x, .runs = &st->draws, .npu_runs = CC_RUNS_ONE};
    int placed;
    st->configs++;
    int res = cc_check_single_op(cs, src, c->variant, (cc_options){0}, expect_npu, why, "NPUC_MR_VERBOSE", NULL, &d,
                                 &placed);
    if (placed >= 0) placed ? st->npu++ : st->cpu++;
    if (res == CC_SINGLE_REJECTED) st->rejected++;
    bool ok = cc_single_ok(res, expect_npu);
    if (!ok) st->failed++;
    graph_free(src);
    return ok;
}

/* ------------------------------------------------------------- MEAN */

static void mean_base(cfg *c, graph_dtype dt, int32_t rank, const int32_t *shape, int32_t n_axes,
                      const int32_t *axes, bool keep)
{
    memset(c, 0, sizeof *c);
    c->opcode = TFL_OP_MEAN;
    c->dt = dt;
    c->rank = rank;
    memcpy(c->shape, shape, sizeof(int32_t) * (size_t)rank);
    c->n_axes = n_axes;
    memcpy(c->axes, axes, sizeof(int32_t) * (size_t)n_axes);
    c->keep = keep;
    c->s_in = 0.05f;
    c->s_out = 0.04f;
    c->zi = dt == GRAPH_I8 ? 3 : 0;
    c->zo = dt == GRAPH_I8 ? -5 : 0;
    c->variant = EU_U55_256;
}

static void random_mean(npuc_rng *r, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->opcode = TFL_OP_MEAN;
    c->dt = npuc_rng_range(r, 0, 2) ? GRAPH_I8 : GRAPH_I16;
    int form = (int)npuc_rng_range(r, 0, 5);
    c->rank = form == 0 ? (int32_t)npuc_rng_range(r, 1, 6) : 4;
    if (c->rank == 4) c->shape[0] = 1;
    for (int32_t d = c->rank == 4 ? 1 : 0; d < c->rank; d++)
        c->shape[d] = (int32_t)(npuc_rng_range(r, 0, 4) ? npuc_rng_range(r, 1, 9) : npuc_rng_range(r, 1, 40));
    if (form == 5 && c->rank == 4) {
        /* large spatial extents: windows beyond one pool */
        c->shape[1] = (int32_t)npuc_rng_range(r, 1, 300);
        c->shape[2] = (int32_t)npuc_rng_range(r, 200, 600);
        c->shape[3] = (int32_t)npuc_rng_range(r, 1, 3);
    }
    if (form >= 1 && form <= 3) {
        /* H,W / H / W, as the common networks */
        c->n_axes = form == 1 ? 2 : 1;
        c->axes[0] = form == 3 ? 2 : 1;
        c->axes[1] = 2;
        if (npuc_rng_range(r, 0, 3) == 0) c->axes[0] -= 4;   /* negative */
    } else {
        c->n_axes = (int32_t)npuc_rng_range(r, 1, c->rank);
        for (int32_t i = 0; i < c->n_axes; i++) c->axes[i] = (int32_t)npuc_rng_range(r, -c->rank, c->rank - 1);
    }
    c->keep = npuc_rng_range(r, 0, 1);
    /* scale ratios over 2^-12 .. 2^12 */
    c->s_in = (float)(0.01 * pow(2.0, npuc_rng_unit(r) * 6 - 3));
    c->s_out = (float)((double)c->s_in * pow(2.0, npuc_rng_unit(r) * 24 - 12));
    if (npuc_rng_range(r, 0, 4) == 0) c->s_out = c->s_in;
    if (c->dt == GRAPH_I8) {
        c->zi = npuc_rng_range(r, -128, 127);
        c->zo = npuc_rng_range(r, -128, 127);
    } else if (npuc_rng_range(r, 0, 3) == 0) {
        c->zi = npuc_rng_range(r, -100, 100);
        c->zo = npuc_rng_range(r, -100, 100);
    }
    c->variant = variants[npuc_rng_range(r, 0, 5)];
}

static void test_mean(long n_configs, uint64_t seed0)
{
    stats st = {0};
    /* random configurations */
    for (long i = 0; i < n_configs; i++) {
        npuc_rng r;
        npuc_rng_seed(&r, seed0 + (uint64_t)i);
        cfg c;
        random_mean(&r, &c);
        CHECK(run_config(&c, seed0 + (uint64_t)i, -1, NULL, 8, &st));
    }
    int rnd_npu = st.npu;
    /* edge cases on the NPU */
    cfg c;
    {
        int32_t s[4] = {1, 7, 7, 64}, a[2] = {1, 2};
        mean_base(&c, GRAPH_I8, 4, s, 2, a, true);
        CHECK(run_config(&c, 11, 1, NULL, 8, &st));
        c.keep = false;
        CHECK(run_config(&c, 12, 1, NULL, 8, &st));
        c.dt = GRAPH_I16;
        c.zi = c.zo = 0;
        CHECK(run_config(&c, 13, 1, NULL, 8, &st));
    }
    {
        /* channels (axis 3), W only, H only, batch axis of size 1, all axes */
        int32_t s[4] = {1, 5, 6, 33};
        int32_t a3[1] = {3}, a2[1] = {-2}, a1[1] = {1}, a0[1] = {0}, all[4] = {0, 1, 2, 3}, dup[3] = {2, -2, 1};
        mean_base(&c, GRAPH_I8, 4, s, 1, a3, false);
        CHECK(run_config(&c, 21, 1, NULL, 8, &st));
        mean_base(&c, GRAPH_I16, 4, s, 1, a2, true);
        CHECK(run_config(&c, 22, 1, NULL, 8, &st));
        mean_base(&c, GRAPH_I8, 4, s, 1, a1, true);
        CHECK(run_config(&c, 23, 1, NULL, 8, &st));
        mean_base(&c, GRAPH_I8, 4, s, 1, a0, false);
        CHECK(run_config(&c, 24, 1, NULL, 8, &st));
        mean_base(&c, GRAPH_I16, 4, s, 4, all, false);
        CHECK(run_config(&c, 25, 1, NULL, 8, &st));
        mean_base(&c, GRAPH_I8, 4, s, 3, dup, true);
        CHECK(run_config(&c, 26, 1, NULL, 8, &st));
    }
    {
        /* a 1x1 window (count 1: a requantizing copy), large windows
         * (two passes), a global mean of 256x256 int8 */
        int32_t s1[4] = {1, 1, 1, 9}, a[2] = {1, 2};
        mean_base(&c, GRAPH_I8, 4, s1, 2, a, true);
        CHECK(run_config(&c, 31, 1, NULL, 8, &st));
        int32_t s2[4] = {1, 3, 1000, 2}, a2[1] = {2};
        mean_base(&c, GRAPH_I8, 4, s2, 1, a2, true);
        CHECK(run_config(&c, 32, 1, NULL, 4, &st));
        int32_t s3[4] = {1, 256, 256, 1};
        mean_base(&c, GRAPH_I8, 4, s3, 2, a, false);
        CHECK(run_config(&c, 33, 1, NULL, 4, &st));
        int32_t s4[4] = {1, 300, 300, 2};
        mean_base(&c, GRAPH_I8, 4, s4, 2, a, true);
        c.variant = EU_U65_512;
        CHECK(run_config(&c, 34, 1, NULL, 3, &st));
        /* int16 at the sum limit: 32768 elements of |x - zp| <= 32768 fit */
        int32_t s5[4] = {1, 128, 256, 1};
        mean_base(&c, GRAPH_I16, 4, s5, 2, a, true);
        CHECK(run_config(&c, 35, 1, NULL, 4, &st));
    }
    /* on the CPU, with the reason */
    {
        int32_t s[4] = {1, 4, 5, 6}, a[2] = {1, 3};
        mean_base(&c, GRAPH_I8, 4, s, 2, a, true);
        CHECK(run_config(&c, 41, 0, "not adjacent", 2, &st));
        /* int16 sums that would overflow int32 (the reference wraps) */
        int32_t s2[4] = {1, 256, 256, 1}, a2[2] = {1, 2};
        mean_base(&c, GRAPH_I16, 4, s2, 2, a2, true);
        CHECK(run_config(&c, 42, 0, "overflow", 2, &st));
        /* a large scale ratio with a left shift that could wrap */
        int32_t s3[4] = {1, 2, 2, 3};
        mean_base(&c, GRAPH_I16, 4, s3, 2, a2, true);
        c.s_in = 1.0f;
        c.s_out = 1.0f / 131072;
        CHECK(run_config(&c, 43, 0, "overflow", 2, &st));
        /* float stays on the CPU */
        int32_t s4[4] = {1, 2, 2, 3};
        mean_base(&c, GRAPH_F32, 4, s4, 2, a2, true);
        CHECK(run_config(&c, 44, 0, "float32", 2, &st));
    }
    printf("MEAN: %d configs (%ld random: %d on the NPU), %d on the NPU, %d on the CPU, %d rejected by the "
           "reference, %d draws, %d failed\n",
           st.configs, n_configs, rnd_npu, st.npu, st.cpu, st.rejected, st.draws, st.failed);
    CHECK(rnd_npu * 2 > (int)n_configs);
}

/* ----------------------------------------------------------- RESIZE */

static void resize_base(cfg *c, int32_t opcode, graph_dtype dt, int32_t h, int32_t w, int32_t ch, int32_t oh,
                        int32_t ow, bool align, bool half)
{
    memset(c, 0, sizeof *c);
    c->opcode = opcode;
    c->dt = dt;
    c->rank = 4;
    c->shape[0] = 1;
    c->shape[1] = h;
    c->shape[2] = w;
    c->shape[3] = ch;
    c->size[0] = oh;
    c->size[1] = ow;
    c->align = align;
    c->half = half;
    c->s_in = c->s_out = 0.1f;
    c->variant = EU_U55_128;
}

static void random_resize(npuc_rng *r, cfg *c, int32_t opcode)
{
    graph_dtype dt = npuc_rng_range(r, 0, 1) ? GRAPH_I8 : GRAPH_I16;
    int32_t h = (int32_t)npuc_rng_range(r, 1, 12), w = (int32_t)npuc_rng_range(r, 1, 12);
    int32_t ch = (int32_t)npuc_rng_range(r, 1, 24);
    int kind = (int)npuc_rng_range(r, 0, 3);
    int32_t oh, ow;
    if (kind == 0) {
        int32_t f = 1 << npuc_rng_range(r, 1, 3);
        oh = h * f;
        ow = w * f;
    } else if (kind == 1) {
        oh = h * (int32_t)npuc_rng_range(r, 1, 5);
        ow = w * (int32_t)npuc_rng_range(r, 1, 5);
    } else {
        oh = (int32_t)npuc_rng_range(r, 1, 30);
        ow = (int32_t)npuc_rng_range(r, 1, 30);
    }
    int flags = (int)npuc_rng_range(r, 0, 2);
    resize_base(c, opcode, dt, h, w, ch, oh, ow, flags == 1, flags == 2);
    c->variant = variants[npuc_rng_range(r, 0, 5)];
}

static void test_resize(long n_configs, uint64_t seed0)
{
    stats st = {0};
    int rnd_nn_npu = 0;
    for (int op = 0; op < 2; op++) {
        int32_t opcode = op ? TFL_OP_RESIZE_BILINEAR : TFL_OP_RESIZE_NEAREST_NEIGHBOR;
        for (long i = 0; i < n_configs; i++) {
            npuc_rng r;
            npuc_rng_seed(&r, seed0 + 1000003u * (uint64_t)op + (uint64_t)i);
            cfg c;
            random_resize(&r, &c, opcode);
            int before = st.npu;
            CHECK(run_config(&c, seed0 + (uint64_t)i, -1, NULL, 6, &st));
            if (!op) rnd_nn_npu += st.npu - before;
        }
    }
    int rnd_npu = st.npu;
    cfg c;
    const int32_t NN = TFL_OP_RESIZE_NEAREST_NEIGHBOR, BL = TFL_OP_RESIZE_BILINEAR;
    /* nearest: 2x, 4x, 8x (upscale chains), 3x, mixed, downscale, flags,
     * 1x1 in and out, identity */
    static const int32_t nn[][7] = {
        /* h, w, c, oh, ow, align, half */
        {4, 5, 16, 8, 10, 0, 0}, {3, 3, 7, 12, 12, 0, 0}, {2, 3, 5, 16, 24, 0, 0}, {4, 4, 3, 12, 12, 0, 0},
        {5, 3, 2, 10, 9, 0, 0},  {9, 8, 4, 3, 4, 0, 0},   {4, 5, 6, 8, 10, 1, 0}, {4, 5, 6, 8, 10, 0, 1},
        {1, 1, 20, 5, 7, 0, 0},  {6, 7, 3, 1, 1, 0, 0},   {6, 7, 3, 1, 1, 1, 0},  {6, 7, 3, 6, 7, 0, 0},
        {7, 5, 33, 13, 11, 1, 0}, {7, 5, 33, 13, 11, 0, 1}, {1, 9, 2, 1, 18, 0, 0},
    };
    for (size_t i = 0; i < sizeof nn / sizeof nn[0]; i++)
        for (int t = 0; t < 2; t++) {
            resize_base(&c, NN, t ? GRAPH_I16 : GRAPH_I8, nn[i][0], nn[i][1], nn[i][2], nn[i][3], nn[i][4], nn[i][5],
                        nn[i][6]);
            c.variant = variants[(i + (size_t)t) % 6];
            CHECK(run_config(&c, 100 + i, 1, NULL, 6, &st));
        }
    /* bilinear: the 2x form, gathers (identity, 1x1 output, integer
     * downscale with align_corners) */
    static const int32_t bl[][7] = {
        {4, 5, 16, 8, 10, 0, 0}, {1, 1, 3, 2, 2, 0, 0}, {1, 7, 9, 2, 14, 0, 0}, {6, 7, 3, 6, 7, 0, 0},
        {6, 7, 3, 1, 1, 0, 0},   {9, 7, 2, 5, 4, 1, 0}, {6, 6, 2, 3, 3, 0, 0},  {7, 5, 2, 1, 1, 0, 1},
        {16, 12, 20, 32, 24, 0, 0},
    };
    for (size_t i = 0; i < sizeof bl / sizeof bl[0]; i++)
        for (int t = 0; t < 2; t++) {
            resize_base(&c, BL, t ? GRAPH_I16 : GRAPH_I8, bl[i][0], bl[i][1], bl[i][2], bl[i][3], bl[i][4], bl[i][5],
                        bl[i][6]);
            c.variant = variants[(i + (size_t)t + 3) % 6];
            CHECK(run_config(&c, 200 + i, 1, NULL, 6, &st));
        }
    /* bilinear by tap classes (tests/test_cc_resize_bilinear.c): half-pixel
     * 2x up and down */
    resize_base(&c, BL, GRAPH_I8, 4, 4, 3, 8, 8, false, true);
    CHECK(run_config(&c, 302, 1, NULL, 6, &st));
    resize_base(&c, BL, GRAPH_I8, 6, 6, 2, 3, 3, false, true);
    CHECK(run_config(&c, 307, 1, NULL, 6, &st));
    /* bilinear on the CPU: 3x, align-corners 2x (taps not dyadic) */
    resize_base(&c, BL, GRAPH_I8, 4, 4, 3, 12, 12, false, false);
    CHECK(run_config(&c, 301, 0, "are beyond the NPU", 2, &st));
    resize_base(&c, BL, GRAPH_I16, 4, 4, 3, 8, 8, true, false);
    CHECK(run_config(&c, 303, 0, "align_corners", 2, &st));
    /* batch 2 and float stay on the CPU */
    resize_base(&c, NN, GRAPH_I8, 4, 4, 3, 8, 8, false, false);
    c.shape[0] = 2;
    CHECK(run_config(&c, 304, 0, "batch 2", 2, &st));
    resize_base(&c, NN, GRAPH_F32, 4, 4, 3, 8, 8, false, false);
    CHECK(run_config(&c, 305, 0, "float32", 2, &st));
    /* too many copies: an irregular 29 -> 31 nearest map */
    resize_base(&c, NN, GRAPH_I8, 29, 29, 1, 31, 31, false, false);
    CHECK(run_config(&c, 306, -1, NULL, 2, &st));
    printf("RESIZE: %d configs (%ld random per op: %d on the NPU, %d of them nearest), %d on the NPU, %d on the "
           "CPU, %d draws, %d failed\n",
           st.configs, n_configs, rnd_npu, rnd_nn_npu, st.npu, st.cpu, st.draws, st.failed);
    CHECK(rnd_nn_npu * 10 > (int)n_configs * 9);
}

int main(void)
{
    long n = env_long("NPUC_MR_CONFIGS", 400);
    uint64_t seed = (uint64_t)env_long("NPUC_MR_SEED", 1);
    test_mean(n, seed);
    test_resize(n, seed);
    TEST_MAIN_END();
}
