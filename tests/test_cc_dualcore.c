/* Ethos-U65-512 dual-core mode (docs/ethos-u.md 1.5, 6.4). Single-op graphs
 *
 *   int8 / int16 [1, H, W, C] -> CONV_2D | DEPTHWISE_CONV_2D (multiplier 1
 *   or more) | FULLY_CONNECTED -> [1, OH, OW, OC]
 *
 * with random shapes, 1..70 output channels (odd and even), kernels,
 * strides, per-channel weights and zero points, are compiled for
 * ethos-u65-512 with --optimise performance (weights copied into the fast
 * SRAM) and size (read from DRAM). The command stream must set
 * PARALLEL_MODE 1 first; every CONV / DEPTHWISE op must give core 0 the
 * scale records of its (d + 1) / 2 even channels and core 1 those of its
 * d / 2 odd ones (none, WEIGHT1_LENGTH 0, when d is 1); and the output must
 * equal the reference interpreter's byte for byte (the virtual NPU decodes
 * each core's weight stream with its own block depth and interleaves them).
 *
 * Environment: NPUC_DUAL_CONFIGS (default 300), NPUC_DUAL_SEED (default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/compiler/ethosu/eu_weights.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

enum { K_CONV, K_DW, K_FC };

typedef struct dc_cfg {
    int kind, mult;
    int32_t H, W, C, OC, kh, kw, s;
    graph_dtype dt;
    cc_optimise optimise;
    uint64_t seed;
} dc_cfg;

static void cfg_str(const dc_cfg *c, char *buf, size_t size)
{
    static const char *const kn[] = {"CONV", "DEPTHWISE", "FC"};
    snprintf(buf, size, "%s %s [1,%d,%d,%d] -> %d k %dx%d s %d mult %d %s seed %llu", kn[c->kind],
             graph_dtype_name(c->dt), c->H, c->W, c->C, c->OC, c->kh, c->kw, c->s, c->mult,
             c->optimise == CC_OPT_SIZE ? "size" : "perf", (unsigned long long)c->seed);
}

static graph *build_graph(const dc_cfg *c)
{
    graph *g = graph_new("dual");
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, c->seed * 104729 + 3);
    bool wide = c->dt == GRAPH_I16;
    int32_t OH = (c->H - c->kh) / c->s + 1, OW = (c->W - c->kw) / c->s + 1;
    int32_t ish[4] = {1, c->H, c->W, c->C}, osh4[4] = {1, OH, OW, c->OC}, osh2[2] = {1, c->OC};
    int64_t izp = wide ? 0 : npuc_rng_range(&r, -20, 20), ozp = wide ? 0 : npuc_rng_range(&r, -20, 20);
    float is = 0.05f, os = 0.08f + (float)npuc_rng_range(&r, 0, 100) / 400.0f;
    int32_t ti = graph_add_tensor(g, "x", c->dt, 4, ish, NULL);
    int32_t to = c->kind == K_FC ? graph_add_tensor(g, "y", c->dt, 2, osh2, NULL)
                                 : graph_add_tensor(g, "y", c->dt, 4, osh4, NULL);
    /* weights: OHWI (CONV), 1HWO (DEPTHWISE), [OC, C*H*W] (FC) */
    int32_t I = c->kind == K_FC ? c->H * c->W * c->C : c->C;
    int32_t wsh4[4] = {c->OC, c->kh, c->kw, I}, wdw[4] = {1, c->kh, c->kw, c->OC}, wfc[2] = {c->OC, I};
    size_t nw = c->kind == K_DW ? (size_t)c->kh * c->kw * c->OC
              : c->kind == K_FC ? (size_t)c->OC * I : (size_t)c->OC * c->kh * c->kw * I;
    int8_t *wd = malloc(nw);
    float *ws = malloc(sizeof(float) * (size_t)c->OC), *bs = malloc(sizeof(float) * (size_t)c->OC);
    int64_t *wz = calloc((size_t)c->OC, sizeof(int64_t));
    void *bd = malloc(8 * (size_t)c->OC);
    bool ok = ti >= 0 && to >= 0 && wd && ws && bs && wz && bd &&
              !graph_set_quant(g, ti, 1, &is, &izp, 0) && !graph_set_quant(g, to, 1, &os, &ozp, 0);
    if (ok) {
        for (size_t i = 0; i < nw; i++)
            wd[i] = (int8_t)(npuc_rng_range(&r, 0, 3) ? npuc_rng_range(&r, -127, 127) : 0);
        for (int32_t o = 0; o < c->OC; o++) {
            ws[o] = 0.002f + (float)npuc_rng_range(&r, 0, 100) / 5000.0f;
            bs[o] = is * ws[o];
            if (wide) ((int64_t *)bd)[o] = npuc_rng_range(&r, -5000, 5000);
            else ((int32_t *)bd)[o] = (int32_t)npuc_rng_range(&r, -3000, 3000);
        }
        int32_t tw = graph_add_tensor(g, "w", GRAPH_I8, c->kind == K_FC ? 2 : 4,
                                      c->kind == K_DW ? wdw : c->kind == K_FC ? wfc : wsh4, wd);
        int32_t tb = graph_add_tensor(g, "b", wide ? GRAPH_I64 : GRAPH_I32, 1, &c->OC, bd);
        ok = tw >= 0 && tb >= 0 && !graph_set_quant(g, tw, c->OC, ws, wz, c->kind == K_DW ? 3 : 0) &&
             !graph_set_quant(g, tb, c->OC, bs, wz, 0);
        int32_t tx = ti;
        if (ok && c->kind == K_FC) {
            /* FC reads the input flattened: reshape [1,H,W,C] -> [1, H*W*C] */
            int32_t fsh[2] = {1, I}, two = 2;
            int32_t tf = graph_add_tensor(g, "flat", c->dt, 2, fsh, NULL);
            int32_t tsh = graph_add_tensor(g, "flat_shape", GRAPH_I32, 1, &two, fsh);
            tfl_options ro;
            memset(&ro, 0, sizeof ro);
            int32_t rins[2] = {ti, tsh};
            ok = tf >= 0 && tsh >= 0 && !graph_set_quant(g, tf, 1, &is, &izp, 0) &&
                 graph_add_op(g, TFL_OP_RESHAPE, &ro, 2, rins, 1, &tf) >= 0;
            tx = tf;
        }
        tfl_options o;
        memset(&o, 0, sizeof o);
        o.padding = TFL_PAD_VALID;
        o.stride_h = o.stride_w = c->s;
        o.dilation_h = o.dilation_w = 1;
        o.depth_multiplier = c->mult;
        int32_t ins[3] = {tx, tw, tb};
        int32_t code = c->kind == K_CONV ? TFL_OP_CONV_2D : c->kind == K_DW ? TFL_OP_DEPTHWISE_CONV_2D
                                                                           : TFL_OP_FULLY_CONNECTED;
        ok = ok && graph_add_op(g, code, &o, 3, ins, 1, &to) >= 0;
    }
    free(wd);
    free(ws);
    free(bs);
    free(wz);
    free(bd);
    if (!ok || graph_set_io(g, 1, &ti, 1, &to)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* Checks the dual-core registers of every HW epoch's stream; returns the
 * number of weighted kernel ops seen, -1 on a failure (printed). */
static int check_streams(const cc_model *cm, const char *cs)
{
    int n_w = 0;
    for (int32_t ei = 0; ei < cm->n_epochs; ei++) {
        const cc_epoch *e = &cm->epochs[ei];
        if (e->kind != CC_EPOCH_HW || !e->payload) continue;
        npuc_err err = {0};
        sim_cop1 cop;
        sim_cmd *cmds = NULL;
        size_t n = 0;
        if (sim_cop1_parse(e->payload, e->payload_size, &cop, &err) ||
            sim_stream_decode(cop.stream, cop.stream_size, EU_U65_512, &cmds, &n, &err)) {
            fprintf(stderr, "FAIL %s: own stream does not decode: %s\n", cs, err.msg);
            free(cmds);
            return -1;
        }
        if (!n || cmds[0].code != EU_SET_PARALLEL_MODE || cmds[0].param != 1) {
            fprintf(stderr, "FAIL %s: the stream does not start with PARALLEL_MODE 1\n", cs);
            free(cmds);
            return -1;
        }
        sim_state s;
        sim_state_reset(&s);
        for (size_t i = 0; i < n; i++) {
            sim_state_apply(&s, &cmds[i], EU_U65_512);
            if (cmds[i].code != EU_OP_CONV && cmds[i].code != EU_OP_DEPTHWISE) continue;
            n_w++;
            uint32_t d = s.ofm.depth;
            uint64_t want0 = eu_scale_stream_size((d + 1) / 2), want1 = d / 2 ? eu_scale_stream_size(d / 2) : 0;
            if (!s.parallel_mode || s.scale_length[0] != want0 || s.scale_length[1] != want1 ||
                (s.weight_length[1] != 0) != (d >= 2) || s.blk_depth % 2) {
                fprintf(stderr,
                        "FAIL %s: op at command %zu (OFM depth %u, block depth %u): parallel %u, scale "
                        "lengths %llu/%llu (want %llu/%llu), WEIGHT1_LENGTH %llu\n",
                        cs, i, d, s.blk_depth, s.parallel_mode, (unsigned long long)s.scale_length[0],
                        (unsigned long long)s.scale_length[1], (unsigned long long)want0,
                        (unsigned long long)want1, (unsigned long long)s.weight_length[1]);
                free(cmds);
                return -1;
            }
        }
        free(cmds);
    }
    return n_w;
}

typedef struct stats { int configs, npu, failed, weighted_ops, draws; } stats;

static bool run_config(const dc_cfg *c, stats *st)
{
    char cs[200];
    cfg_str(c, cs, sizeof cs);
    npuc_err e = {0};
    graph *src = build_graph(c);
    cc_model *cm = NULL;
    uint8_t *in = NULL;
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    bool ok = false;
    st->configs++;
    if (!src) {
        fprintf(stderr, "FAIL %s: graph build\n", cs);
        goto out;
    }
    if (cc_compile_for(src, EU_U65_512, (cc_options){.optimise = c->optimise}, &cm, &e)) {
        fprintf(stderr, "FAIL %s: compile: %s\n", cs, e.msg);
        goto out;
    }
    int32_t last = src->n_ops - 1;
    if (!cm->ops[last].npu) {
        fprintf(stderr, "FAIL %s: on the CPU: %s\n", cs, cm->ops[last].why);
        goto out;
    }
    st->npu++;
    int nw = check_streams(cm, cs);
    if (nw <= 0) {
        if (nw == 0) fprintf(stderr, "FAIL %s: no CONV / DEPTHWISE op in the stream\n", cs);
        goto out;
    }
    st->weighted_ops += nw;
    const char *stage;
    if (cc_twin_open(&tw, src, cm, EU_U65_512, &stage, &e)) {
        fprintf(stderr, "FAIL %s: %s: %s\n", cs, stage, e.msg);
        goto out;
    }
    const graph_tensor *ti = &src->tensors[src->inputs[0]];
    in = malloc(ti->nbytes);
    if (!in) goto out;
    npuc_rng rng;
    npuc_rng_seed(&rng, c->seed);
    bool wide = c->dt == GRAPH_I16;
    size_t n = ti->nbytes / graph_dtype_size(c->dt);
    for (int d = 0; d < 3; d++) {
        for (size_t i = 0; i < n; i++) {
            int64_t v = d == 1 ? (wide ? 32767 : 127) : npuc_rng_range(&rng, wide ? -32768 : -128, wide ? 32767 : 127);
            if (wide) ((int16_t *)in)[i] = (int16_t)v;
            else ((int8_t *)in)[i] = (int8_t)v;
        }
        const char *side = "set input";
        if (cc_twin_set_input(&tw, 0, in, ti->nbytes, &e) || cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s: %s, draw %d: %s\n", cs, side, d, e.msg);
            goto out;
        }
        size_t at, na;
        if (!cc_twin_same(&tw, 0, &at, &na)) {
            fprintf(stderr, "FAIL %s, draw %d: outputs differ at byte %zu of %zu\n", cs, d, at, na);
            goto out;
        }
        st->draws++;
    }
    if (tw.nc.n_runs < 3) {
        fprintf(stderr, "FAIL %s: %d NPU runs for 3 draws\n", cs, tw.nc.n_runs);
        goto out;
    }
    ok = true;
out:
    if (!ok) st->failed++;
    cc_twin_close(&tw);
    free(in);
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

int main(void)
{
    long n_cfg = env_long("NPUC_DUAL_CONFIGS", 300), seed0 = env_long("NPUC_DUAL_SEED", 1);
    stats st = {0};
    for (long k = 0; k < n_cfg; k++) {
        npuc_rng r;
        npuc_rng_seed(&r, (uint64_t)(seed0 + k) * 2654435761u + 11);
        dc_cfg c;
        memset(&c, 0, sizeof c);
        c.seed = (uint64_t)(seed0 + k);
        c.kind = (int)npuc_rng_range(&r, 0, 2);
        c.dt = npuc_rng_range(&r, 0, 3) ? GRAPH_I8 : GRAPH_I16;
        c.optimise = npuc_rng_range(&r, 0, 1) ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        c.kh = (int32_t)npuc_rng_range(&r, 1, 3);
        c.kw = (int32_t)npuc_rng_range(&r, 1, 3);
        c.s = (int32_t)npuc_rng_range(&r, 1, 2);
        c.H = c.kh + (int32_t)npuc_rng_range(&r, 0, 9);
        c.W = c.kw + (int32_t)npuc_rng_range(&r, 0, 9);
        c.C = (int32_t)npuc_rng_range(&r, 1, 40);
        c.mult = 1;
        /* the first configs pin the edge depths: 1, 2, 3 channels */
        c.OC = k < 6 ? (int32_t)(k % 3) + 1 : (int32_t)npuc_rng_range(&r, 1, 70);
        if (c.kind == K_DW) {
            c.mult = npuc_rng_range(&r, 0, 3) ? 1 : (int32_t)npuc_rng_range(&r, 2, 4);
            if (c.mult > 1) c.C = (int32_t)npuc_rng_range(&r, 1, 16);
            c.OC = c.C * c.mult;
        }
        if (c.kind == K_FC) {
            c.kh = c.kw = 1;
            c.s = 1;
            c.H = (int32_t)npuc_rng_range(&r, 1, 3);
            c.W = (int32_t)npuc_rng_range(&r, 1, 3);
        }
        run_config(&c, &st);
    }
    printf("dual-core: %d configs, %d on the NPU, %d CONV/DEPTHWISE ops checked, %d draws bit-exact, %d failed\n",
           st.configs, st.npu, st.weighted_ops, st.draws, st.failed);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(st.npu, st.configs);
    CHECK(st.weighted_ops >= st.configs);
    return t_failures ? 1 : 0;
}
