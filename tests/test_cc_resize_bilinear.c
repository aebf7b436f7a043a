/* RESIZE_BILINEAR's tap-class form on the NPU (src/compiler/lower/
 * lower_resize.c): half_pixel_centers 2x, factors beyond 2x (4x, mixed
 * per axis, half-pixel or not), and other dyadic cases (half-pixel 2x
 * downscales, align_corners with (in - 1) / (out - 1) a power of two).
 *
 * Random single-op graphs of each form (shapes, channels, quantization,
 * int8 and int16, the six Ethos-U variants in turn, a quarter with
 * --optimise size) are compiled, emitted,
 * read back and run with the ethos-u op on the virtual NPU, every command
 * stream hazard-checked, and the output compared byte for byte with the
 * reference interpreter over uniform inputs, the extremes and values near
 * one random value (the rounding's ties). Each must be on the NPU. Then
 * movenet's three resizes alone on every variant, the zoo's movenet itself
 * (cut before the ops the reference rejects) on ethos-u55-128 and
 * ethos-u65-256, and what stays on the CPU, with its reason.
 *
 * Environment: NPUC_RB_CONFIGS (random configurations per form, default
 * 210), NPUC_RB_SEED (first seed, default 1), NPUC_RB_VERBOSE (print the
 * reason of every op left on the CPU). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_hazard.h"
#include "cc_test_npu.h"
#include "test_model.h"

typedef struct cfg {
    graph_dtype dt;
    int32_t h, w, ch, oh, ow;
    bool align, half;
    float scale;
    int64_t zp;
    eu_variant variant;
    cc_optimise optimise;
} cfg;

typedef struct stats {
    int configs, npu, cpu, draws, failed;
} stats;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    snprintf(buf, size, "BILINEAR %s [1,%d,%d,%d] -> %dx%d align %d half %d scale %.6g zp %lld %s%s",
             graph_dtype_name(c->dt), c->h, c->w, c->ch, c->oh, c->ow, c->align, c->half, (double)c->scale,
             (long long)c->zp, target_variant_name(c->variant), c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("resize_bilinear");
    if (!g) return NULL;
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.align_corners = c->align;
    opt.half_pixel_centers = c->half;
    int32_t ishape[4] = {1, c->h, c->w, c->ch}, oshape[4] = {1, c->oh, c->ow, c->ch}, two = 2;
    int32_t size[2] = {c->oh, c->ow};
    int32_t ti = graph_add_tensor(g, "x", c->dt, 4, ishape, NULL);
    int32_t ts = graph_add_tensor(g, "size", GRAPH_I32, 1, &two, size);
    int32_t to = graph_add_tensor(g, "y", c->dt, 4, oshape, NULL);
    int32_t ins[2] = {ti, ts};
    bool ok = ti >= 0 && ts >= 0 && to >= 0 && !graph_set_quant(g, ti, 1, &c->scale, &c->zp, 0) &&
              !graph_set_quant(g, to, 1, &c->scale, &c->zp, 0) &&
              graph_add_op(g, TFL_OP_RESIZE_BILINEAR, &opt, 2, ins, 1, &to) >= 0;
    if (!ok || graph_set_io(g, 1, &ti, 1, &to)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* cc_draws.user: the patterns' context first, then what the hazard check
 * needs. */
typedef struct run_ctx {
    cc_pat_ctx pat;
    eu_variant variant;
} run_ctx;

static bool hazards(void *user, const cc_model *cm)
{
    const run_ctx *x = user;
    return cc_hazard_model(cm, x->variant, x->pat.cs);
}

/* Compiles and checks one configuration: expect_npu 1 on the NPU, 0 on the
 * CPU with `why` in the reason (when given), -1 either. */
static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, int n_draws, stats *st)
{
    char cs[300];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    run_ctx x = {{c->dt, cs, seed, 0}, c->variant};
    cc_draws d = {.n_draws = n_draws, .seed = seed, .fill = cc_fill_patterns, .diff = cc_diff_elements,
                  .user = &x, .runs = &st->draws, .npu_runs = CC_RUNS_ONE};
    int placed;
    st->configs++;
    int res = cc_check_single_op(cs, src, c->variant, (cc_options){.optimise = c->optimise}, expect_npu, why,
                                 "NPUC_RB_VERBOSE", hazards, &d, &placed);
    if (placed >= 0) placed ? st->npu++ : st->cpu++;
    bool ok = cc_single_ok(res, expect_npu);
    if (!ok) st->failed++;
    graph_free(src);
    return ok;
}

static void base(cfg *c, graph_dtype dt, int32_t h, int32_t w, int32_t ch, int32_t oh, int32_t ow, bool align,
                 bool half)
{
    memset(c, 0, sizeof *c);
    c->dt = dt;
    c->h = h;
    c->w = w;
    c->ch = ch;
    c->oh = oh;
    c->ow = ow;
    c->align = align;
    c->half = half;
    c->scale = 0.05f;
    c->zp = dt == GRAPH_I8 ? -7 : 0;
    c->variant = EU_U55_128;
}

/* The random forms. */
enum { F_HALF2X, F_BEYOND, F_DYADIC, F_TWO_PASS, N_FORMS };
static const char *const form_names[N_FORMS] = {"half-pixel 2x", "beyond 2x", "other dyadic", "two passes (8x, 16x)"};

static void random_config(npuc_rng *r, int form, cfg *c)
{
    graph_dtype dt = npuc_rng_range(r, 0, 1) ? GRAPH_I8 : GRAPH_I16;
    int32_t h = (int32_t)npuc_rng_range(r, 1, 14), w = (int32_t)npuc_rng_range(r, 1, 14);
    int32_t ch = (int32_t)(npuc_rng_range(r, 0, 3) ? npuc_rng_range(r, 1, 24) : npuc_rng_range(r, 25, 80));
    int32_t oh = 2 * h, ow = 2 * w;
    bool align = false, half = true;
    if (form == F_HALF2X) {
        /* now and then one axis kept (1x) */
        int keep = (int)npuc_rng_range(r, 0, 7);
        if (keep == 0) oh = h;
        if (keep == 1) ow = w;
    } else if (form == F_BEYOND) {
        static const int32_t f[] = {4, 4, 4, 2, 1};
        half = npuc_rng_range(r, 0, 2) > 0;
        int32_t fh = f[npuc_rng_range(r, 0, 4)], fw = f[npuc_rng_range(r, 0, 2)];
        if (npuc_rng_range(r, 0, 1)) {
            int32_t t = fh;
            fh = fw;
            fw = t;
        }
        h = (int32_t)npuc_rng_range(r, 1, 9);
        w = (int32_t)npuc_rng_range(r, 1, 9);
        oh = fh * h;
        ow = fw * w;
    } else if (form == F_TWO_PASS) {
        /* int8, 8x or 16x on one axis at least (one pass would need more
         * than 64 ops or weights beyond 255) */
        static const int32_t f[] = {1, 2, 4, 8, 16};
        dt = GRAPH_I8;
        half = npuc_rng_range(r, 0, 2) > 0;
        int32_t fh = f[npuc_rng_range(r, 3, 4)], fw = f[npuc_rng_range(r, 0, 4)];
        if (!half && fw == 16 && fh == 16) fw = 8;
        if (npuc_rng_range(r, 0, 1)) {
            int32_t t = fh;
            fh = fw;
            fw = t;
        }
        h = (int32_t)npuc_rng_range(r, 1, 5);
        w = (int32_t)npuc_rng_range(r, 1, 5);
        if (h == 1 && w == 1) w = 2;   /* 1x1 in: a gather (copies), not this form */
        ch = (int32_t)npuc_rng_range(r, 1, 20);
        oh = fh * h;
        ow = fw * w;
    } else {
        /* half-pixel 2x downscale, or align_corners steps of 2, 1/2, 1/4 */
        int kind = (int)npuc_rng_range(r, 0, 2);
        if (kind == 0) {
            h = 2 * (int32_t)npuc_rng_range(r, 1, 10);
            w = 2 * (int32_t)npuc_rng_range(r, 1, 10);
            oh = h / 2;
            ow = w / 2;
        } else {
            half = false;
            align = true;
            h = (int32_t)npuc_rng_range(r, 2, 9);
            w = (int32_t)npuc_rng_range(r, 2, 9);
            int32_t m = kind == 1 ? 2 : 4;
            oh = (h - 1) * m + 1;
            ow = (w - 1) * (npuc_rng_range(r, 0, 1) ? m : 1) + 1;
        }
    }
    base(c, dt, h, w, ch, oh, ow, align, half);
    c->scale = (float)(0.01 * pow(2.0, npuc_rng_unit(r) * 8 - 4));
    c->zp = dt == GRAPH_I8 ? npuc_rng_range(r, -128, 127) : 0;
}

/* ------------------------------------------------ the zoo's movenet */

static void fill_bytes(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)d;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

/* coral_movenet_lightning_ptq (NPUC_SHARED; skipped without it), the whole
 * model (its int32 FLOOR_DIVs are TFLite's, docs/kernels-binop.md): its
 * three half-pixel resizes on the NPU, the compiled model's outputs
 * byte-identical with the reference over random inputs. */
static void movenet_case(eu_variant v, stats *st)
{
    char path[4096], cs[200];
    if (!t_shared("models/zoo/coral_movenet_lightning_ptq.tflite", path, sizeof path)) {
        printf("SKIP: coral_movenet_lightning_ptq not found\n");
        return;
    }
    snprintf(cs, sizeof cs, "coral_movenet_lightning_ptq on %s", target_variant_name(v));
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    st->configs++;
    bool ok = t_load_model(path, &tm, &g) == 0 && cc_check_compile(cs, g, v, (cc_options){0}, &cm);
    int n_resize = 0;
    for (int32_t i = 0; ok && i < g->n_ops; i++)
        if (g->ops[i].opcode == TFL_OP_RESIZE_BILINEAR) {
            n_resize++;
            if (!cm->ops[i].npu) {
                fprintf(stderr, "FAIL %s: op %d on the CPU: %s\n", cs, (int)i, cm->ops[i].why);
                ok = false;
            }
        }
    if (ok && n_resize != 3) {
        fprintf(stderr, "FAIL %s: %d resizes\n", cs, n_resize);
        ok = false;
    }
    ok = ok && cc_hazard_model(cm, v, cs);
    cc_draws d = {.n_draws = 2, .seed = 77, .fill = fill_bytes, .runs = &st->draws};
    ok = ok && cc_check_draws(cs, g, cm, v, &d);
    if (ok) {
        st->npu++;
        printf("%s: %d outputs byte-identical over %d draws\n", cs, (int)g->n_outputs, d.n_draws);
    } else {
        st->failed++;
    }
    cc_model_free(cm);
    graph_free(g);
    if (tm) tfl_model_free(tm);
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_RB_CONFIGS", 210);
    long first = env_long("NPUC_RB_SEED", 1);
    int vi = 0;
    for (int form = 0; form < N_FORMS; form++) {
        int npu0 = st.npu, failed0 = st.failed, configs0 = st.configs;
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = (uint64_t)(first + i) * N_FORMS + (uint64_t)form;
            npuc_rng r;
            npuc_rng_seed(&r, seed * 2654435761u + 7);
            cfg c;
            random_config(&r, form, &c);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            CHECK(run_config(&c, seed, 1, NULL, 7, &st));
        }
        printf("%s: %d configurations, %d on the NPU, %d failed\n", form_names[form], st.configs - configs0,
               st.npu - npu0, st.failed - failed0);
    }

    /* coral_movenet_lightning_ptq's three resizes, on every variant */
    static const int32_t mv[3][3] = {{6, 6, 64}, {12, 12, 32}, {24, 24, 24}};
    for (int v = 0; v < 6; v++)
        for (int i = 0; i < 3; i++) {
            cfg c;
            base(&c, GRAPH_I8, mv[i][0], mv[i][1], mv[i][2], 2 * mv[i][0], 2 * mv[i][1], false, true);
            c.variant = variants[v];
            c.scale = 0.26f;
            c.zp = -128;
            CHECK(run_config(&c, (uint64_t)(900 + 3 * v + i), 1, NULL, 4, &st));
        }

    movenet_case(EU_U55_128, &st);
    movenet_case(EU_U65_256, &st);

    /* on the CPU, with the reason */
    {
        cfg c;
        /* 3x: the taps are not dyadic (weights 341/1024 ...) */
        base(&c, GRAPH_I8, 4, 4, 3, 12, 12, false, false);
        CHECK(run_config(&c, 950, 0, "are beyond the NPU", 2, &st));
        /* int16 half-pixel 8x: weights up to 15 x 15 beyond int8 in one
         * pass; two passes would need an int16 T of int16 inputs x 16 */
        base(&c, GRAPH_I16, 3, 3, 3, 24, 24, false, true);
        CHECK(run_config(&c, 951, 0, "two passes take int8 only", 2, &st));
        /* int16 half-pixel 4x x 8x: 6 x 12 classes, more than 64 ops */
        base(&c, GRAPH_I16, 3, 3, 3, 12, 24, false, true);
        CHECK(run_config(&c, 955, 0, "more than 64 NPU ops", 2, &st));
        /* int8 half-pixel 64x: weights in 1/128 and 96 classes per axis */
        base(&c, GRAPH_I8, 2, 2, 1, 128, 128, false, true);
        CHECK(run_config(&c, 954, 0, "more than 64 NPU ops", 2, &st));
        /* align_corners 4 -> 8: steps of 3/7 */
        base(&c, GRAPH_I16, 4, 4, 3, 8, 8, true, false);
        CHECK(run_config(&c, 952, 0, "align_corners", 2, &st));
        /* float stays on the CPU */
        base(&c, GRAPH_F32, 4, 4, 3, 8, 8, false, true);
        CHECK(run_config(&c, 953, 0, "float32", 2, &st));
    }

    printf("bilinear taps: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d draws\n", st.configs,
           st.failed, st.npu, st.cpu, st.draws);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
