/* QUANTIZE with a uint8 side on the NPU (src/compiler/lower/lower_quantize.c):
 * uint8 -> int8 and int8 -> uint8 as one 1x1 AVERAGE pool whose output
 * stage requantizes, proven at compile time over all 256 inputs.
 *
 * Random single-op graphs (random shapes, scales and zero points, every
 * Ethos-U variant, a quarter with --optimise size) whose input holds every
 * byte value (in a random order, the rest random) are compiled
 * (cc_compile -> emit_tflite_model -> tfl_write -> tfl_read ->
 * graph_import), run with the ethos-u op on the virtual NPU and compared
 * byte for byte with the reference interpreter on the source graph; each
 * QUANTIZE must be on the NPU as one NPU operation, or on the CPU with the
 * lowering's reason when its rescale is out of the NPU's range or differs
 * somewhere. Also: the model-zoo boundary (uint8 image -> int8 with the
 * same scale, zero point shifted by 128), chains uint8 -> int8 ops -> uint8
 * that must compile to one command stream, and the forms that stay on the
 * CPU.
 *
 * Environment: NPUC_QUANT_CONFIGS (random configurations per direction,
 * default 1000), NPUC_QUANT_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_test_npu.h"

/* an op chain and what the compiler must do with each op */
typedef cc_chain_op op_cfg;
typedef cc_chain cfg;

typedef struct stats {
    int configs, ops_npu, ops_cpu, runs, failed;
    long values;
} stats;

static long long value_at(graph_dtype dt, const void *p, size_t i)
{
    return dt == GRAPH_U8 ? ((const uint8_t *)p)[i] : ((const int8_t *)p)[i];
}

typedef struct run_ctx {
    const cfg *c;
    const char *cs;
    uint64_t seed;
    stats *st;
} run_ctx;

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    run_ctx *x = user;
    (void)d;
    (void)k;
    cc_fill_every_value(r, GRAPH_I8, buf, n);
    x->st->values += (long)n;
}

static void diff_draw(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t idx)
{
    run_ctx *x = user;
    size_t na, nb;
    const void *oa = interp_output(t->ref, k, &na), *ob = interp_output(t->npu, k, &nb);
    graph_dtype odt = x->c->ops[x->c->n - 1].out_dt;
    fprintf(stderr, "FAIL %s, seed %llu, draw %d: element %zu (input %lld): reference %lld, NPU %lld\n", x->cs,
            (unsigned long long)x->seed, d, idx, value_at(x->c->in_dt, in, idx), value_at(odt, oa, idx),
            value_at(odt, ob, idx));
}

/* A QUANTIZE on the NPU is one NPU op (a cascade's band ops count as that
 * op's). */
static int quantize_eu(const op_cfg *p, const cc_op_info *info)
{
    return p->opcode == TFL_OP_QUANTIZE && info->cascade < 0;
}

static bool run_config(const cfg *c, uint64_t seed, stats *st)
{
    char cs[600];
    cc_chain_str(c, cs, sizeof cs);
    run_ctx x = {c, cs, seed, st};
    cc_draws d = {.n_draws = 2, .seed = seed, .fill = fill_draw, .diff = diff_draw, .user = &x, .runs = &st->runs};
    st->configs++;
    bool ok = cc_run_chain(c, "quantize", cs, quantize_eu, &st->ops_npu, &st->ops_cpu, &d);
    if (!ok) st->failed++;
    return ok;
}

/* exp-uniform in [lo, hi] */
static float rand_scale(npuc_rng *r, double lo, double hi)
{
    double l = log(lo), h = log(hi);
    return (float)exp(l + (h - l) * npuc_rng_unit(r));
}

static void random_shape(npuc_rng *r, int32_t s[4])
{
    s[0] = 1;
    s[3] = (int32_t)npuc_rng_range(r, 1, npuc_rng_range(r, 0, 1) ? 16 : 80);
    s[2] = (int32_t)npuc_rng_range(r, 1, 40);
    int32_t hw = s[3] * s[2];
    s[1] = (256 + hw - 1) / hw + (int32_t)npuc_rng_range(r, 0, 3);
}

/* A random uint8 -> int8 (u8_in) or int8 -> uint8 QUANTIZE. */
static void random_config(npuc_rng *r, bool u8_in, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->n = 1;
    op_cfg *p = &c->ops[0];
    p->opcode = TFL_OP_QUANTIZE;
    p->expect = CC_X_ANY;
    c->in_dt = u8_in ? GRAPH_U8 : GRAPH_I8;
    p->out_dt = u8_in ? GRAPH_I8 : GRAPH_U8;
    c->is = rand_scale(r, 1e-4, 1.0);
    int v = (int)npuc_rng_range(r, 0, 3);
    /* same scale (the model-zoo boundary), a power of two, random */
    p->os = v == 0 ? c->is : v == 1 ? ldexpf(c->is, (int)npuc_rng_range(r, -6, 6)) : (float)(c->is * rand_scale(r, 1.0 / 64, 64));
    int64_t ulo = 0, uhi = 255, slo = -128, shi = 127;
    c->izp = u8_in ? npuc_rng_range(r, ulo, uhi) : npuc_rng_range(r, slo, shi);
    p->ozp = u8_in ? npuc_rng_range(r, slo, shi) : npuc_rng_range(r, ulo, uhi);
    if (v == 0 && npuc_rng_range(r, 0, 1)) p->ozp = u8_in ? c->izp - 128 : c->izp + 128;
    random_shape(r, c->shape);
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_QUANT_CONFIGS", 1000);
    long first = env_long("NPUC_QUANT_SEED", 1);
    npuc_rng r;
    int vi = 0, before_npu;

    /* random single-op configurations, both directions, every variant */
    for (int dir = 0; dir < 2; dir++) {
        before_npu = st.ops_npu;
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = (uint64_t)(first + i) * 2 + (uint64_t)dir;
            npuc_rng_seed(&r, seed * 7919u + 17);
            cfg c;
            random_config(&r, dir == 0, &c);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            run_config(&c, seed, &st);
        }
        /* nearly every random rescale is in range and exact */
        CHECK(st.ops_npu - before_npu >= n_random * 9 / 10);
    }

    /* the model zoo's image input and output: uint8 scale s zp z <-> int8
     * scale s zp z - 128, on every variant */
    for (int v = 0; v < 6; v++) {
        static const float scales[3] = {1.0f / 255, 0.0078125f, 0.017507f};
        for (int k = 0; k < 3; k++) {
            cfg c;
            memset(&c, 0, sizeof c);
            c.in_dt = GRAPH_U8;
            c.is = scales[k];
            c.izp = k == 2 ? 114 : k == 1 ? 128 : 0;
            c.shape[0] = 1; c.shape[1] = 32; c.shape[2] = 32; c.shape[3] = 3;
            c.n = 2;
            c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I8, .os = c.is, .ozp = c.izp - 128,
                                .expect = CC_X_NPU};
            c.ops[1] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_U8, .os = c.is * 2, .ozp = 7,
                                .expect = CC_X_NPU};
            c.streams = 1;
            c.variant = variants[v];
            run_config(&c, (uint64_t)(100 + v * 3 + k), &st);
        }
    }

    /* chains in one command stream: uint8 -> int8 -> RELU6 (a LUT) ->
     * int8 requantize (a LUT) -> uint8 */
    for (int v = 0; v < 12; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = GRAPH_U8;
        c.is = 0.05f;
        c.izp = 131;
        c.shape[0] = 1; c.shape[1] = 5; c.shape[2] = 9; c.shape[3] = v < 6 ? 16 : 37;
        c.n = 4;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I8, .os = 0.04f, .ozp = -3, .expect = CC_X_NPU};
        c.ops[1] = (op_cfg){.opcode = TFL_OP_RELU6, .out_dt = GRAPH_I8, .os = 0.03f, .ozp = -128, .expect = CC_X_NPU};
        c.ops[2] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I8, .os = 0.025f, .ozp = -100, .expect = CC_X_NPU};
        c.ops[3] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_U8, .os = 0.0235f, .ozp = 20, .expect = CC_X_NPU};
        c.streams = 1;
        c.variant = variants[v % 6];
        c.optimise = v % 2 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_config(&c, (uint64_t)(300 + v), &st);
    }

    /* what stays on the CPU, and why */
    {
        cfg base;
        memset(&base, 0, sizeof base);
        base.in_dt = GRAPH_U8;
        base.is = 0.01f;
        base.izp = 10;
        base.shape[0] = 1; base.shape[1] = 4; base.shape[2] = 8; base.shape[3] = 8;
        base.n = 1;
        base.variant = EU_U55_128;
        /* uint8 -> uint8: no reference kernel */
        cfg c = base;
        c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_U8, .os = 0.02f, .expect = CC_X_CPU,
                            .why = "QUANTIZE from uint8 to uint8 is not supported"};
        run_config(&c, 400, &st);
        /* uint8 -> int16: no reference kernel either */
        c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I16, .os = 0.0001f, .expect = CC_X_CPU,
                            .why = "QUANTIZE from uint8 to int16 is not supported"};
        run_config(&c, 401, &st);
        /* an upscale by 2^24: TFLite's (x - zi) << 25 wraps 32 bits where
         * the NPU's 64-bit product does not */
        c.ops[0] = (op_cfg){.opcode = TFL_OP_QUANTIZE, .out_dt = GRAPH_I8, .os = ldexpf(0.01f, -24), .expect = CC_X_CPU,
                            .why = "the NPU's rescale differs from the reference at input"};
        run_config(&c, 402, &st);
    }

    printf("quantize: %d configurations (%d failed), ops %d on the NPU / %d on the CPU, %d compiled runs, "
           "%ld values compared\n", st.configs, st.failed, st.ops_npu, st.ops_cpu, st.runs, st.values);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
