/* SOFTMAX on the NPU (src/compiler/cc_softmax.c). Single-op graphs
 *
 *   int8 [.., C]  -> SOFTMAX(beta) -> int8 (1/256, -128) or int16 (1/65536, -32768)
 *   int16 [.., C] -> SOFTMAX(beta) -> int16 (1/32768, 0)
 *
 * with varied depth C, row count, rank, input scale and zero point, beta and
 * Ethos-U variant are compiled (cc_compile -> emit_tflite_model -> tfl_write
 * -> tfl_read -> graph_import, as a user gets them), run with the ethos-u op
 * on the virtual NPU, and compared byte for byte with the reference
 * interpreter on the source graph. Inputs are uniform random and the
 * patterns that stress the arithmetic: equal rows (largest sums), one-hot
 * rows (smallest), narrow spreads, rows at and around the smallest counted
 * difference (int8: diff_min; int16: the -10 end of the exp table), rows
 * sweeping every difference, extremes, mixed rows. Also chains of SOFTMAX
 * and LOGISTIC in one epoch (LUT reloads), and what must stay on the CPU:
 * depths where TFLite's exp sum wraps for some inputs, int16
 * rescales the NPU cannot reproduce, parameters the reference rejects.
 *
 * Environment: NPUC_SOFTMAX_CONFIGS (random configurations, default 300),
 * NPUC_SOFTMAX_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/kernels/k_activation.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_test_npu.h"

/* ------------------------------------------------------------ configs */

typedef struct sm_cfg {
    int32_t rank, shape[4];
    uint32_t C, R;
    float scale, beta;
    int32_t zp;
    graph_dtype in_dt, out_dt;
    eu_variant variant;
    bool chain;               /* SOFTMAX -> (int8: LOGISTIC ->) SOFTMAX: LUT reloads in one epoch */
} sm_cfg;

static void cfg_str(const sm_cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s->%s [", graph_dtype_name(c->in_dt), graph_dtype_name(c->out_dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    if (o < size)
        snprintf(buf + o, size - o, "] scale %.9g zp %d beta %.9g %s", (double)c->scale, c->zp, (double)c->beta,
                 target_variant_name(c->variant));
}

static graph *build_graph(const sm_cfg *c)
{
    graph *g = graph_new("softmax");
    if (!g) return NULL;
    float os = c->out_dt == GRAPH_I8 ? 1.0f / 256 : c->out_dt == GRAPH_I16 && c->in_dt == GRAPH_I16 ? 1.0f / 32768
                                                                                                    : 1.0f / 65536;
    int64_t ozp = c->out_dt == GRAPH_I8 ? -128 : c->in_dt == GRAPH_I16 ? 0 : -32768;
    int64_t izp = c->zp;
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.beta = c->beta;
    int32_t ti = graph_add_tensor(g, "x", c->in_dt, c->rank, c->shape, NULL);
    int32_t to = graph_add_tensor(g, "y", c->out_dt, c->rank, c->shape, NULL);
    bool ok = ti >= 0 && to >= 0 && !graph_set_quant(g, ti, 1, &c->scale, &izp, 0) &&
              !graph_set_quant(g, to, 1, &os, &ozp, 0) && graph_add_op(g, TFL_OP_SOFTMAX, &opt, 1, &ti, 1, &to) >= 0;
    int32_t last = to;
    if (ok && c->chain) {
        /* int8: LOGISTIC (its own int8 LUT) then a second SOFTMAX with
         * another exp table; int16: a second SOFTMAX (same tables) */
        int32_t mid = to;
        if (c->in_dt == GRAPH_I8) {
            mid = graph_add_tensor(g, "sig", GRAPH_I8, c->rank, c->shape, NULL);
            tfl_options lo;
            memset(&lo, 0, sizeof lo);
            ok = mid >= 0 && !graph_set_quant(g, mid, 1, &os, &ozp, 0) &&
                 graph_add_op(g, TFL_OP_LOGISTIC, &lo, 1, &to, 1, &mid) >= 0;
        }
        int32_t t2 = graph_add_tensor(g, "y2", c->out_dt, c->rank, c->shape, NULL);
        tfl_options o2 = opt;
        o2.beta = c->in_dt == GRAPH_I8 ? 2.5f : 3.0f;
        ok = ok && t2 >= 0 && !graph_set_quant(g, t2, 1, &os, &ozp, 0) &&
             graph_add_op(g, TFL_OP_SOFTMAX, &o2, 1, &mid, 1, &t2) >= 0;
        last = t2;
    }
    if (!ok || graph_set_io(g, 1, &ti, 1, &last)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* Row patterns. */
enum { P_UNIFORM, P_EQUAL, P_ONEHOT, P_NARROW, P_CUTOFF, P_ALL256, P_EXTREME, P_TWO, P_MIXED, P_COUNT };
static const char *const pattern_names[P_COUNT] = {"uniform", "equal", "one-hot", "narrow", "cut-off",
                                                   "all-256", "extreme", "two-level", "mixed"};

static int8_t clamp8(int64_t v) { return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); }

static void fill_row(npuc_rng *r, int pattern, int32_t diff_min_q, int8_t *x, uint32_t C)
{
    int64_t top = npuc_rng_range(r, -128, 127);
    switch (pattern) {
    case P_UNIFORM:
        for (uint32_t i = 0; i < C; i++) x[i] = (int8_t)npuc_rng_range(r, -128, 127);
        break;
    case P_EQUAL:
        for (uint32_t i = 0; i < C; i++) x[i] = (int8_t)top;
        break;
    case P_ONEHOT: {
        int64_t lo = npuc_rng_range(r, -128, top);
        for (uint32_t i = 0; i < C; i++) x[i] = (int8_t)lo;
        x[npuc_rng_range(r, 0, C - 1)] = (int8_t)top;
        break;
    }
    case P_NARROW: {
        int64_t w = npuc_rng_range(r, 0, 4);
        for (uint32_t i = 0; i < C; i++) x[i] = clamp8(top - npuc_rng_range(r, 0, w));
        break;
    }
    case P_CUTOFF:
        /* differences around the smallest one TFLite still counts (in input
         * steps: diff_min_q), where the exp table switches to 0 */
        for (uint32_t i = 0; i < C; i++) x[i] = clamp8(127 - diff_min_q + npuc_rng_range(r, -2, 2));
        x[npuc_rng_range(r, 0, C - 1)] = 127;
        break;
    case P_ALL256:
        for (uint32_t i = 0; i < C; i++) x[i] = (int8_t)(int32_t)((i + (uint32_t)top) % 256u - 128u);
        break;
    case P_EXTREME:
        for (uint32_t i = 0; i < C; i++) x[i] = npuc_rng_range(r, 0, 1) ? 127 : -128;
        break;
    case P_TWO: {
        int64_t d = npuc_rng_range(r, 0, 255);
        for (uint32_t i = 0; i < C; i++) x[i] = clamp8(npuc_rng_range(r, 0, 3) ? top - d : top);
        break;
    }
    default: {
        /* a few large values over a random floor */
        int64_t floor_v = npuc_rng_range(r, -128, 127);
        for (uint32_t i = 0; i < C; i++)
            x[i] = npuc_rng_range(r, 0, 7) ? clamp8(floor_v + npuc_rng_range(r, -3, 3)) : (int8_t)npuc_rng_range(r, -128, 127);
        break;
    }
    }
}

/* int16 rows: `unit` is the input step that moves the scaled difference by
 * about one exp-table interval (so patterns reach the table's whole range
 * and the clamp at -65535). */
static int16_t clamp16(int64_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

static void fill_row16(npuc_rng *r, int pattern, int64_t unit, int16_t *x, uint32_t C)
{
    int64_t top = npuc_rng_range(r, -32768, 32767);
    switch (pattern) {
    case P_UNIFORM:
        for (uint32_t i = 0; i < C; i++) x[i] = (int16_t)npuc_rng_range(r, -32768, 32767);
        break;
    case P_EQUAL:
        for (uint32_t i = 0; i < C; i++) x[i] = (int16_t)top;
        break;
    case P_ONEHOT: {
        int64_t lo = npuc_rng_range(r, -32768, top);
        for (uint32_t i = 0; i < C; i++) x[i] = (int16_t)lo;
        x[npuc_rng_range(r, 0, C - 1)] = (int16_t)top;
        break;
    }
    case P_NARROW: {
        int64_t w = npuc_rng_range(r, 0, 4 * unit + 4);
        for (uint32_t i = 0; i < C; i++) x[i] = clamp16(top - npuc_rng_range(r, 0, w));
        break;
    }
    case P_CUTOFF:
        /* around the difference that reaches -10 (sym -32768) */
        for (uint32_t i = 0; i < C; i++) x[i] = clamp16(32767 - 512 * unit + npuc_rng_range(r, -unit - 2, unit + 2));
        x[npuc_rng_range(r, 0, C - 1)] = 32767;
        break;
    case P_ALL256:
        /* a sweep over the exp table's range */
        for (uint32_t i = 0; i < C; i++) x[i] = clamp16(32767 - (int64_t)((i * 7919u) % 600u) * unit - npuc_rng_range(r, 0, unit));
        break;
    case P_EXTREME:
        for (uint32_t i = 0; i < C; i++) x[i] = npuc_rng_range(r, 0, 1) ? 32767 : -32768;
        break;
    case P_TWO: {
        int64_t d = npuc_rng_range(r, 0, 600 * unit);
        for (uint32_t i = 0; i < C; i++) x[i] = clamp16(npuc_rng_range(r, 0, 3) ? top - d : top);
        break;
    }
    default: {
        int64_t floor_v = npuc_rng_range(r, -32768, 32767);
        for (uint32_t i = 0; i < C; i++)
            x[i] = npuc_rng_range(r, 0, 7) ? clamp16(floor_v + npuc_rng_range(r, -unit, unit))
                                           : (int16_t)npuc_rng_range(r, -32768, 32767);
        break;
    }
    }
}

/* Input steps per 1/64 of the int16 kernel's [-10, 0] exp range (one LUT
 * interval is 10/512). */
static int64_t unit16(const sm_cfg *c)
{
    double u = (10.0 / 512.0) / ((double)c->scale * (double)c->beta);
    if (!(u >= 1)) return 1;
    if (u > 4096) return 4096;
    return (int64_t)u;
}

/* Smallest counted difference in input steps (for the cut-off pattern). */
static int32_t diff_min_steps(const sm_cfg *c)
{
    k_softmax_s8_params p;
    if (k_softmax_s8_prepare(c->scale, c->beta, &p) != K_OK) return 0;
    /* TFLite compares the raw difference (input steps) with diff_min */
    int32_t d = -p.diff_min;
    return d > 255 ? 255 : d;
}

typedef struct stats {
    int configs, npu, cpu, draws, failed;
} stats;

/* What the draw callbacks of one configuration share. */
typedef struct run_ctx {
    const sm_cfg *c;
    const char *cs;
    uint64_t seed;
    int32_t dq;
    int64_t u16;
    int pat;
} run_ctx;

/* draw 0: uniform everywhere; then one pattern per draw, mixed per row in
 * the last ones */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *in, size_t n)
{
    run_ctx *x = user;
    const sm_cfg *c = x->c;
    (void)k;
    (void)n;
    x->pat = d < P_COUNT ? d : (int)npuc_rng_range(r, 0, P_COUNT - 1);
    for (uint32_t row = 0; row < c->R; row++) {
        int p = d >= P_COUNT ? (int)npuc_rng_range(r, 0, P_COUNT - 1) : x->pat;
        if (c->in_dt == GRAPH_I16) fill_row16(r, p, x->u16, (int16_t *)in + (size_t)row * c->C, c->C);
        else fill_row(r, p, x->dq, (int8_t *)in + (size_t)row * c->C, c->C);
    }
}

static void diff_draw(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t at)
{
    run_ctx *x = user;
    const sm_cfg *c = x->c;
    size_t na, nb, es = graph_dtype_size(c->out_dt);
    const void *oa = interp_output(t->ref, k, &na), *ob = interp_output(t->npu, k, &nb);
    at -= at % es;
    long long va = es == 1 ? ((const int8_t *)oa)[at] : ((const int16_t *)oa)[at / 2];
    long long vb = es == 1 ? ((const int8_t *)ob)[at] : ((const int16_t *)ob)[at / 2];
    size_t idx = at / es;
    fprintf(stderr, "FAIL %s, seed %llu, draw %d (%s): element %zu (row %zu) reference %lld, NPU %lld\n", x->cs,
            (unsigned long long)x->seed, d, d < P_COUNT ? pattern_names[x->pat] : "mixed rows", idx, idx / c->C, va,
            vb);
    fprintf(stderr, "    row:");
    for (uint32_t i = 0; i < c->C && i < 64; i++) {
        size_t j = idx / c->C * c->C + i;
        fprintf(stderr, " %d", c->in_dt == GRAPH_I16 ? ((const int16_t *)in)[j] : ((const int8_t *)in)[j]);
    }
    fprintf(stderr, "%s\n", c->C > 64 ? " ..." : "");
}

/* Compiles and checks one configuration. expect_npu: 1 must be on the NPU,
 * 0 must stay on the CPU, -1 either. Returns true when it passed. */
static bool run_config(const sm_cfg *c, uint64_t seed, int expect_npu, int n_draws, stats *st)
{
    char cs[200];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    cc_model *cm = NULL;
    bool ok = false;
    st->configs++;
    if (!cc_check_compile(cs, src, c->variant, (cc_options){0}, &cm)) goto out;
    bool npu = true;
    for (int32_t i = 0; i < src->n_ops; i++) npu = npu && cm->ops[i].npu;
    npu ? st->npu++ : st->cpu++;
    if (expect_npu >= 0 && npu != (expect_npu == 1)) {
        fprintf(stderr, "FAIL %s: expected on the %s, got %s%s\n", cs, expect_npu ? "NPU" : "CPU",
                npu ? "NPU" : "CPU: ", npu ? "" : cm->ops[0].why);
        goto out;
    }
    run_ctx x = {c, cs, seed, diff_min_steps(c), unit16(c), 0};
    cc_draws d = {.n_draws = n_draws, .seed = seed, .fill = fill_draw, .diff = diff_draw, .user = &x,
                  .runs = &st->draws, .npu_runs = CC_RUNS_ONE};
    ok = !npu || cc_check_draws(cs, src, cm, c->variant, &d);
out:
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

/* [.., C] with R rows split over `rank` - 1 leading dims. */
static void set_shape(sm_cfg *c, npuc_rng *r, int32_t rank, uint32_t R, uint32_t C)
{
    c->rank = rank;
    c->C = C;
    c->R = R;
    for (int i = 0; i < 4; i++) c->shape[i] = 1;
    c->shape[rank - 1] = (int32_t)C;
    uint32_t rest = R;
    for (int32_t d = rank - 2; d >= 1; d--) {
        /* a divisor of what is left */
        uint32_t f = 1;
        for (int k = 0; k < 8; k++) {
            uint32_t t = (uint32_t)npuc_rng_range(r, 1, rest < 8 ? rest : 8);
            if (rest % t == 0) f = t;
        }
        c->shape[d] = (int32_t)f;
        rest /= f;
    }
    if (rank >= 2) c->shape[0] = (int32_t)rest;
    else c->R = 1;
}

/* The int8 form's reciprocal (ops 5-26 of cc_softmax.c) in the NPU's
 * arithmetic (32-bit results saturate; MUL with shift 31 is
 * floor((a*b + 2^30) / 2^31); the half denominator is sum << (clz - 1))
 * against the kernel's k_fx_one_over_one_plus_x, for sums in [2^19, 2^31):
 * a stride through the range plus every sum near a power of two. (The
 * whole range was checked once; it takes about a minute.) */
static int64_t sat32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

static int64_t npu_srdhm(int64_t a, int64_t b)
{
    int64_t p = a * b;   /* |a|, |b| < 2^31: fits */
    int64_t q = p >= -((int64_t)1 << 30) ? (p + ((int64_t)1 << 30)) / ((int64_t)1 << 31)
                                         : -((-(p + ((int64_t)1 << 30)) + ((int64_t)1 << 31) - 1) / ((int64_t)1 << 31));
    return sat32(q);
}

static bool chain_ok(int64_t sum)
{
    int h = __builtin_clz((uint32_t)sum);
    int32_t ref = k_fx_one_over_one_plus_x((int32_t)(((uint32_t)sum << h) - (1u << 31)));
    int64_t hd = sat32(sum << (h - 1));
    int64_t x = sat32(npu_srdhm(hd, -1010580540) + 1515870810);
    for (int i = 0; i < 3; i++) {
        int64_t q = sat32((1 << 29) - npu_srdhm(hd, x));
        x = sat32(x + sat32(npu_srdhm(x, q) * 4));
    }
    return sat32(x * 2) == ref;
}

static void check_reciprocal_chain(void)
{
    long bad = 0, n = 0;
    for (int64_t sum = 1 << 19; sum < ((int64_t)1 << 31); sum += 251, n++) bad += !chain_ok(sum);
    for (int k = 19; k <= 31; k++)
        for (int64_t d = -2000; d <= 2000; d++) {
            int64_t sum = ((int64_t)1 << k) + d;
            if (sum < (1 << 19) || sum >= ((int64_t)1 << 31)) continue;
            bad += !chain_ok(sum);
            n++;
        }
    printf("reciprocal chain: %ld sums checked, %ld differ\n", n, bad);
    CHECK_EQ_INT(bad, 0);
}

/* Whether the compiler must put the op on the NPU (1) or the CPU (0). */
static int expected_npu(const sm_cfg *c)
{
    if (c->in_dt == GRAPH_I16) {
        k_softmax_s16_params p;
        if (k_softmax_s16_prepare(c->scale, c->beta, &p) != K_OK) return 0;
        /* the NPU's input rescale: shift <= 15 (diff << shift fits 32 bits) */
        return p.input_left_shift <= 15 && (p.input_multiplier == 0 || 31 - p.input_left_shift <= 63);
    }
    k_softmax_s8_params p;
    if (k_softmax_s8_prepare(c->scale, c->beta, &p) != K_OK) return 0;
    return c->C <= 4095u;
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_SOFTMAX_CONFIGS", 300);
    long first = env_long("NPUC_SOFTMAX_SEED", 1);
    npuc_rng r;
    npuc_rng_seed(&r, 12345);
    int vi = 0;

    check_reciprocal_chain();

    /* fixed configurations: the depths at the ends of the range, both
     * output types, every variant */
    static const uint32_t depths8[] = {1, 2, 3, 4, 7, 10, 12, 16, 17, 31, 64, 100, 255, 256, 257, 511,
                                       512, 513, 1000, 1001, 2048, 4095};
    static const uint32_t depths16[] = {1, 2, 5, 16, 100, 511, 512, 1000, 1001, 2048, 4095};
    static const uint32_t depths_s16[] = {1, 2, 3, 8, 33, 100, 1000, 4096, 20000, 65536};
    static const uint32_t rows[] = {1, 1, 2, 3, 37};
    for (int t = 0; t < 3; t++) {
        const uint32_t *dd = t == 2 ? depths_s16 : t ? depths16 : depths8;
        int nd = t == 2 ? (int)(sizeof depths_s16 / sizeof *dd)
                 : t ? (int)(sizeof depths16 / sizeof *dd) : (int)(sizeof depths8 / sizeof *dd);
        for (int i = 0; i < nd; i++) {
            sm_cfg c;
            memset(&c, 0, sizeof c);
            c.in_dt = t == 2 ? GRAPH_I16 : GRAPH_I8;
            c.out_dt = t ? GRAPH_I16 : GRAPH_I8;
            uint32_t R = dd[i] > 5000 ? 1 : rows[i % 5];
            set_shape(&c, &r, R > 1 ? 3 : 2, R, dd[i]);
            if (t == 2) {
                c.scale = i % 3 == 0 ? 1.0f / 4096 : i % 3 == 1 ? 0.000457763671875f : 1.0f / 32768;
                c.zp = 0;
            } else {
                c.scale = i % 3 == 0 ? 0.0625f : i % 3 == 1 ? 0.1015625f : 0.00390625f;
                c.zp = (int32_t)npuc_rng_range(&r, -128, 127);
            }
            c.beta = 1.0f;
            c.variant = variants[vi++ % 6];
            run_config(&c, (uint64_t)(1000 + i), 1, dd[i] >= 1000 ? 12 : 16, &st);
        }
    }
    /* every variant on one mid-size config */
    for (int v = 0; v < 18; v++) {
        sm_cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = v >= 12 ? GRAPH_I16 : GRAPH_I8;
        c.out_dt = v >= 6 ? GRAPH_I16 : GRAPH_I8;
        set_shape(&c, &r, 4, 6, 40);
        c.scale = v >= 12 ? 0.0003f : 0.05f;
        c.beta = 1.0f;
        c.variant = variants[v % 6];
        run_config(&c, (uint64_t)(2000 + v), 1, 16, &st);
    }

    /* two SOFTMAXes (and an int8 LOGISTIC) in one epoch: LUT reloads */
    for (int v = 0; v < 12; v++) {
        sm_cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = v >= 8 ? GRAPH_I16 : GRAPH_I8;
        c.out_dt = v >= 8 ? GRAPH_I16 : GRAPH_I8;
        c.chain = true;
        set_shape(&c, &r, 3, v % 2 ? 3 : 1, v % 3 ? 10 : 77);
        c.scale = v >= 8 ? 0.0003f : 0.08f;
        c.zp = v >= 8 ? 0 : 3;
        c.beta = 1.0f;
        c.variant = variants[v % 6];
        run_config(&c, (uint64_t)(3000 + v), 1, 12, &st);
    }

    /* what stays on the CPU */
    {
        sm_cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = GRAPH_I8;
        c.out_dt = GRAPH_I8;
        c.scale = 0.1f;
        c.beta = 1.0f;
        c.variant = EU_U55_128;
        set_shape(&c, &r, 2, 1, 4096);  /* the 32-bit sum can wrap */
        run_config(&c, 1, 0, 0, &st);
        c.out_dt = GRAPH_I16;
        run_config(&c, 1, 0, 0, &st);
        /* int16: an input rescale with a left shift above 15 */
        c.in_dt = GRAPH_I16;
        c.zp = 0;
        c.scale = 30.0f;
        set_shape(&c, &r, 2, 1, 10);
        run_config(&c, 1, 0, 0, &st);
        /* int16: depth above 65536 */
        c.scale = 0.001f;
        set_shape(&c, &r, 2, 1, 65537);
        run_config(&c, 1, 0, 0, &st);
        /* beta * scale * 2^26 <= 1: TFLite (and the interpreter) reject it */
        c.in_dt = GRAPH_I8;
        c.scale = 0.1f;
        set_shape(&c, &r, 2, 1, 10);
        c.out_dt = GRAPH_I8;
        c.scale = 1e-9f;
        run_config(&c, 1, 0, 0, &st);
    }

    /* random configurations */
    for (long k = 0; k < n_random; k++) {
        uint64_t seed = (uint64_t)(first + k);
        npuc_rng cr;
        npuc_rng_seed(&cr, seed * 0x9E3779B97F4A7C15ull + 77);
        sm_cfg c;
        memset(&c, 0, sizeof c);
        int kind = (int)npuc_rng_range(&cr, 0, 7);   /* 0-4 int8->int8, 5 int8->int16, 6-7 int16 */
        c.in_dt = kind >= 6 ? GRAPH_I16 : GRAPH_I8;
        c.out_dt = kind >= 5 ? GRAPH_I16 : GRAPH_I8;
        uint32_t maxc = kind >= 6 ? 65536 : 4095;
        /* log-uniform depth */
        uint32_t C = (uint32_t)floor(exp(npuc_rng_unit(&cr) * log((double)maxc + 1)));
        if (C < 1) C = 1;
        if (C > maxc) C = maxc;
        uint32_t maxr = 4096 / C + 1;
        uint32_t R = (uint32_t)npuc_rng_range(&cr, 1, maxr < 64 ? maxr : 64);
        if (npuc_rng_range(&cr, 0, 2) == 0) R = 1;
        set_shape(&c, &cr, R > 1 ? (int32_t)npuc_rng_range(&cr, 2, 4) : (int32_t)npuc_rng_range(&cr, 1, 4), R, C);
        if (kind >= 6) {
            /* beta * scale from 2^-18 to 2^3 (the NPU takes up to ~2^2.3) */
            c.scale = (float)exp2(npuc_rng_unit(&cr) * 21.0 - 18.0);
            c.zp = 0;
        } else {
            /* beta * scale from 2^-14 to 2^4 (TFLite's limits are 2^-26 .. 32) */
            c.scale = (float)exp2(npuc_rng_unit(&cr) * 14.0 - 12.0);
            c.zp = (int32_t)npuc_rng_range(&cr, -128, 127);
        }
        c.beta = npuc_rng_range(&cr, 0, 1) ? 1.0f : (float)exp2(npuc_rng_unit(&cr) * 6.0 - 3.0);
        c.variant = variants[npuc_rng_range(&cr, 0, 5)];
        int expect = expected_npu(&c);
        if (!run_config(&c, seed, expect, C * R > 20000 ? 10 : 14, &st))
            fprintf(stderr, "    (random config seed %llu: NPUC_SOFTMAX_SEED=%llu NPUC_SOFTMAX_CONFIGS=1)\n",
                    (unsigned long long)seed, (unsigned long long)seed);
    }
    printf("%d configurations (%d on the NPU, %d on the CPU as expected), %d input draws compared, %d failed\n",
           st.configs, st.npu, st.cpu, st.draws, st.failed);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
