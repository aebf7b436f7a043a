/* The int8 value maps ABS, ELU, RSQRT and RELU_0_TO_1 and int16 ABS on the NPU
 * (src/compiler/lower/lower_lut.c): one 256-entry LUT whose entries are the
 * reference kernel's own outputs for every input code, so exact by
 * construction; here checked end to end.
 *
 * Random single-op graphs per op (random shapes, scales and zero points,
 * every Ethos-U variant, a quarter with --optimise size) whose input holds
 * every byte value are compiled (cc_compile -> emit_tflite_model ->
 * tfl_write -> tfl_read -> graph_import), run with the ethos-u op on the
 * virtual NPU and compared byte for byte with the reference interpreter on
 * the source graph; every command stream passes the hazard check
 * (cc_hazard.h). Each op must be on the NPU as one NPU operation, except
 * RSQRT when some input code is below the zero point (negative: the
 * reference fails at run time, a table cannot), which must stay on the CPU
 * with that reason. Also chains behind a RELU6 and a QUANTIZE in one command
 * stream (the value map fused into the producer's output stage or as its
 * own LUT op). int16 ABS: one ELEMENTWISE ABS with the kernel's rescale
 * (random scales, inputs holding every int16 value); int16 ELU and RSQRT
 * stay on the CPU.
 *
 * Environment: NPUC_UNARY_CONFIGS (random configurations per op, default
 * 250), NPUC_UNARY_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_hazard.h"
#include "cc_test_npu.h"

typedef cc_chain_op op_cfg;
typedef cc_chain cfg;

typedef struct stats {
    int configs, ops_npu, ops_cpu, runs, failed;
    long values;
} stats;

typedef struct run_ctx {
    const char *cs;
    uint64_t seed;
    stats *st;
    graph_dtype dt;
} run_ctx;

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    run_ctx *x = user;
    (void)d;
    (void)k;
    size_t n_el = n / graph_dtype_size(x->dt);
    cc_fill_every_value(r, x->dt, buf, n_el);
    x->st->values += (long)n_el;
}

static void diff_draw(void *user, const cc_twin *t, int d, int32_t k, const uint8_t *in, size_t idx)
{
    run_ctx *x = user;
    size_t na, nb;
    const uint8_t *oa = interp_output(t->ref, k, &na), *ob = interp_output(t->npu, k, &nb);
    if (x->dt == GRAPH_I16) {
        idx /= 2;
        fprintf(stderr, "FAIL %s, seed %llu, draw %d: element %zu (input %d): reference %d, NPU %d\n", x->cs,
                (unsigned long long)x->seed, d, idx, ((const int16_t *)(const void *)in)[idx],
                ((const int16_t *)(const void *)oa)[idx], ((const int16_t *)(const void *)ob)[idx]);
        return;
    }
    fprintf(stderr, "FAIL %s, seed %llu, draw %d: element %zu (input %d): reference %d, NPU %d\n", x->cs,
            (unsigned long long)x->seed, d, idx, (int)(int8_t)in[idx], (int8_t)oa[idx], (int8_t)ob[idx]);
}

static bool run_config(const cfg *c, uint64_t seed, stats *st)
{
    char cs[600];
    cc_chain_str(c, cs, sizeof cs);
    run_ctx x = {cs, seed, st, c->in_dt};
    cc_draws d = {.n_draws = 2, .seed = seed, .fill = fill_draw, .diff = diff_draw, .user = &x, .runs = &st->runs};
    st->configs++;
    /* cc_run_chain, with the hazard check of every command stream */
    graph *src = cc_chain_graph(c, "unary");
    cc_model *cm = NULL;
    bool ok = false, any_npu = false;
    if (cc_check_compile(cs, src, c->variant, (cc_options){.optimise = c->optimise}, &cm) &&
        cc_chain_check(cs, src, cm, c, NULL, &st->ops_npu, &st->ops_cpu, &any_npu)) {
        ok = cc_hazard_model(cm, c->variant, cs) && (!any_npu || cc_check_draws(cs, src, cm, c->variant, &d));
    }
    cc_model_free(cm);
    graph_free(src);
    if (!ok) st->failed++;
    return ok;
}

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

/* RELU_0_TO_1 (TFLite's requantize-and-clamp to 0..1; TFLite Micro has
 * none) goes the same way: its LUT holds the reference kernel's outputs */
static const int32_t ops[4] = {TFL_OP_ABS, TFL_OP_ELU, TFL_OP_RSQRT, TFL_OP_RELU_0_TO_1};

static void random_config(npuc_rng *r, int32_t opcode, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->n = 1;
    c->in_dt = GRAPH_I8;
    c->is = rand_scale(r, 1e-3, 1.0);
    c->izp = npuc_rng_range(r, -128, 127);
    op_cfg *p = &c->ops[0];
    p->opcode = opcode;
    p->out_dt = GRAPH_I8;
    p->os = npuc_rng_range(r, 0, 3) == 0 ? c->is : (float)(c->is * rand_scale(r, 1.0 / 32, 32));
    p->ozp = npuc_rng_range(r, -128, 127);
    if (opcode == TFL_OP_RSQRT) {
        /* half of them with every code >= the zero point (zp -128) */
        if (npuc_rng_range(r, 0, 1)) c->izp = -128;
        p->os = rand_scale(r, 1e-3, 1.0);
    }
    p->n_eu = 1;
    p->expect = opcode == TFL_OP_RSQRT && c->izp > -128 ? CC_X_CPU : CC_X_NPU;
    if (p->expect == CC_X_CPU) {
        p->why = "below the zero point";
        p->n_eu = 0;
    }
    random_shape(r, c->shape);
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_UNARY_CONFIGS", 250);
    long first = env_long("NPUC_UNARY_SEED", 1);
    npuc_rng r;
    int vi = 0;

    for (int k = 0; k < 4; k++) {
        int npu0 = st.ops_npu, failed0 = st.failed;
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = k < 3 ? (uint64_t)(first + i) * 3 + (uint64_t)k : (uint64_t)(first + i) * 7 + 300000u;
            npuc_rng_seed(&r, seed * 104729u + 5);
            cfg c;
            random_config(&r, ops[k], &c);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            run_config(&c, seed, &st);
        }
        printf("%s: %d of %ld on the NPU, %d failed\n", tfl_builtin_name(ops[k]), st.ops_npu - npu0, n_random,
               st.failed - failed0);
        CHECK(st.ops_npu - npu0 >= n_random / 3);
    }

    /* chains in one command stream: int8 -> RELU6 -> value map and
     * QUANTIZE (requantize) -> value map */
    for (int v = 0; v < 12; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = GRAPH_I8;
        c.is = 0.05f;
        c.izp = -7;
        c.shape[0] = 1; c.shape[1] = 6; c.shape[2] = 7; c.shape[3] = v < 6 ? 16 : 41;
        c.n = 2;
        int32_t op = ops[v % 3];
        c.ops[0] = (op_cfg){.opcode = v % 2 ? TFL_OP_RELU6 : TFL_OP_QUANTIZE, .out_dt = GRAPH_I8, .os = 0.03f,
                            .ozp = -128, .expect = CC_X_NPU};
        c.ops[1] = (op_cfg){.opcode = op, .out_dt = GRAPH_I8, .os = op == TFL_OP_RSQRT ? 0.1f : 0.02f, .ozp = 5,
                            .expect = CC_X_NPU};
        c.streams = 1;
        c.variant = variants[v % 6];
        run_config(&c, (uint64_t)(500 + v), &st);
    }

    /* int16 ABS: ELEMENTWISE ABS with the kernel's rescale (checked at
     * compile time over all 65536 inputs; the draws cover every int16
     * value too), random scales, on every variant */
    {
        int npu0 = st.ops_npu, failed0 = st.failed;
        for (long i = 0; i < n_random; i++) {
            npuc_rng_seed(&r, (uint64_t)(first + i) * 7727u + 3);
            cfg c;
            memset(&c, 0, sizeof c);
            c.n = 1;
            c.in_dt = GRAPH_I16;
            c.is = rand_scale(&r, 1e-5, 1e-2);
            c.izp = 0;
            float os = npuc_rng_range(&r, 0, 3) == 0 ? c.is : (float)(c.is * rand_scale(&r, 1.0 / 64, 64));
            c.ops[0] = (op_cfg){.opcode = TFL_OP_ABS, .out_dt = GRAPH_I16, .os = os, .expect = CC_X_NPU, .n_eu = 1};
            c.shape[0] = 1;
            c.shape[1] = (int32_t)npuc_rng_range(&r, 1, 64);
            c.shape[2] = (int32_t)npuc_rng_range(&r, 1, 64);
            c.shape[3] = (65536 + c.shape[1] * c.shape[2] - 1) / (c.shape[1] * c.shape[2]);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            run_config(&c, (uint64_t)(first + i) + 100000u, &st);
        }
        printf("ABS int16: %d of %ld on the NPU, %d failed\n", st.ops_npu - npu0, n_random, st.failed - failed0);
    }

    /* int16 ELU and RSQRT stay on the CPU */
    for (int k = 1; k < 3; k++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.in_dt = GRAPH_I16;
        c.is = 0.001f;
        c.shape[0] = 1; c.shape[1] = 4; c.shape[2] = 4; c.shape[3] = 8;
        c.n = 1;
        c.ops[0] = (op_cfg){.opcode = ops[k], .out_dt = GRAPH_I16, .os = 0.002f, .expect = CC_X_CPU,
                            .why = k == 2 ? "no int16 NPU form" : NULL};
        c.variant = EU_U55_128;
        run_config(&c, (uint64_t)(600 + k), &st);
    }

    printf("unary: %d configurations (%d failed), ops %d on the NPU / %d on the CPU, %d compiled runs, "
           "%ld values compared\n", st.configs, st.failed, st.ops_npu, st.ops_cpu, st.runs, st.values);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
