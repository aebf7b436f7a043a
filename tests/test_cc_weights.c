/* Where the compiler puts weights (lower/lower_weights.c, cc_prefetch.c).
 *
 * Shared streams: two FULLY_CONNECTED ops reading one weight tensor, with
 * the same bias and the same scales (so their encoded streams are
 * byte-identical), must share one copy of the scale records and weights in
 * the epoch's flash; with a different bias only the weight stream is shared,
 * in one epoch too, also when the FCs copy it into SRAM (the copy's DMA
 * reads the shared stream; an unrolled LSTM in one command stream has one
 * weight stream and per-step scale records). Each pair is built 96 and 80
 * inputs wide: with the AXI ports' bandwidth shared by the ops that run at
 * once (sim_perf.c), both FCs copy their weights into SRAM in the 80-wide
 * batch of 32 rows with a different bias, with or without the SPLIT
 * (--optimise performance, seed 11: ethos-u55-256 19,788 cycles in 20,192 B
 * of SRAM, with the SPLIT 12,656 B; ethos-u65-256 13,211 cycles in 17,632 B,
 * with the SPLIT 12,656 B); none of the 96-wide cases does. Byte-identical
 * constants in one command stream also share one SRAM copy (one buffer, one
 * DMA by its first user, live until the last; the hazard check passes). A
 * single FC whose weights are read once (one OFM block) keeps them in flash:
 * no weight copy in SRAM on the U55 systems, where the copy used to be
 * made. Every model runs on the virtual NPU of each variant, both
 * --optimise goals, and must equal the reference interpreter byte for byte.
 *
 * Environment: NPUC_WEIGHTS_SEED (default 11), the weights' and biases' seed. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"
#include "cc_hazard.h"

/* [1, n] int8 -> FC(w, b0) -> FC(w, b1) -> [1, n], every activation with
 * the same quantisation; b1 is b0 unless `other_bias`; with `split` a
 * SPLIT into one part (a CPU op: the FCs go to two epochs) between them.
 * With chain 0: one FC [1, n] -> [1, m]. `rows` > 1: [rows, n] inputs (a
 * batch: the weights are read more than once). */
static graph *build(int32_t rows, int32_t n, int32_t m, bool chain, bool other_bias, bool split, uint64_t seed)
{
    graph *g = graph_new("weights");
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    int32_t O = chain ? n : m;
    int32_t ish[2] = {rows, n}, osh[2] = {rows, O}, wsh[2] = {O, n};
    int64_t zp = 3, wz = 0;
    float as = 0.05f, wsc = 0.004f, bsc = as * wsc;
    int8_t *wd = malloc((size_t)O * (size_t)n);
    int32_t *b0 = malloc(sizeof *b0 * (size_t)O), *b1 = malloc(sizeof *b1 * (size_t)O);
    bool ok = wd && b0 && b1;
    for (size_t i = 0; ok && i < (size_t)O * (size_t)n; i++) wd[i] = (int8_t)npuc_rng_range(&r, -127, 127);
    for (int32_t o = 0; ok && o < O; o++) {
        b0[o] = (int32_t)npuc_rng_range(&r, -2000, 2000);
        b1[o] = other_bias ? b0[o] + 1 : b0[o];
    }
    int32_t tx = ok ? graph_add_tensor(g, "x", GRAPH_I8, 2, ish, NULL) : -1;
    int32_t tw = ok ? graph_add_tensor(g, "w", GRAPH_I8, 2, wsh, wd) : -1;
    int32_t tb0 = ok ? graph_add_tensor(g, "b0", GRAPH_I32, 1, &O, b0) : -1;
    int32_t tb1 = ok && other_bias ? graph_add_tensor(g, "b1", GRAPH_I32, 1, &O, b1) : tb0;
    int32_t ty1 = ok ? graph_add_tensor(g, "y1", GRAPH_I8, 2, osh, NULL) : -1;
    int32_t ty2 = ok && chain ? graph_add_tensor(g, "y2", GRAPH_I8, 2, osh, NULL) : ty1;
    ok = ok && tx >= 0 && tw >= 0 && tb0 >= 0 && tb1 >= 0 && ty1 >= 0 && ty2 >= 0 &&
         !graph_set_quant(g, tx, 1, &as, &zp, 0) && !graph_set_quant(g, ty1, 1, &as, &zp, 0) &&
         !graph_set_quant(g, ty2, 1, &as, &zp, 0) && !graph_set_quant(g, tw, 1, &wsc, &wz, 0) &&
         !graph_set_quant(g, tb0, 1, &bsc, &wz, 0) && !graph_set_quant(g, tb1, 1, &bsc, &wz, 0);
    tfl_options o;
    memset(&o, 0, sizeof o);
    int32_t in1[3] = {tx, tw, tb0}, in2[3] = {ty1, tw, tb1};
    ok = ok && graph_add_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, in1, 1, &ty1) >= 0;
    if (ok && chain && split) {
        int32_t one = 1, axis = 1;
        int32_t ta = graph_add_tensor(g, "axis", GRAPH_I32, 0, &one, &axis);
        int32_t ts = graph_add_tensor(g, "y1s", GRAPH_I8, 2, osh, NULL);
        tfl_options so;
        memset(&so, 0, sizeof so);
        so.num = 1;
        int32_t sin[2] = {ta, ty1};
        ok = ta >= 0 && ts >= 0 && !graph_set_quant(g, ts, 1, &as, &zp, 0) &&
             graph_add_op(g, TFL_OP_SPLIT, &so, 2, sin, 1, &ts) >= 0;
        in2[0] = ts;
    }
    if (chain) ok = ok && graph_add_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, in2, 1, &ty2) >= 0;
    free(wd);
    free(b0);
    free(b1);
    if (!ok || graph_set_io(g, 1, &tx, 1, &ty2)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* Bytes of op o's constants in flash, each stream 16-byte aligned. */
static uint64_t const_bytes(const eu_op *o)
{
    uint64_t a = 15;
    return ((o->s_len + a) & ~a) + ((o->w_len + a) & ~a) + ((o->s1_len + a) & ~a) + ((o->w1_len + a) & ~a);
}

/* Runs src and its compiled form on 4 random inputs; whether all agree. */
static bool bit_exact(const graph *src, const cc_model *cm, eu_variant v, const char *what)
{
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    npuc_err e = {0};
    const char *stage;
    bool ok = false;
    if (cc_twin_open(&tw, src, cm, v, &stage, &e)) {
        fprintf(stderr, "FAIL %s: %s: %s\n", what, stage, e.msg);
        goto out;
    }
    const graph_tensor *ti = &src->tensors[src->inputs[0]];
    int8_t in[4096];
    npuc_rng r;
    npuc_rng_seed(&r, 7);
    for (int d = 0; d < 4; d++) {
        for (size_t i = 0; i < ti->nbytes && i < sizeof in; i++) in[i] = (int8_t)npuc_rng_range(&r, -128, 127);
        const char *side = "set input";
        if (cc_twin_set_input(&tw, 0, in, ti->nbytes, &e) || cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s: %s: %s\n", what, side, e.msg);
            goto out;
        }
        size_t at, na;
        if (!cc_twin_same(&tw, 0, &at, &na)) {
            fprintf(stderr, "FAIL %s, draw %d: outputs differ at byte %zu of %zu\n", what, d, at, na);
            goto out;
        }
    }
    ok = tw.nc.n_runs >= 4 && tw.nc.n_runs % 4 == 0;   /* every epoch ran each time */
    if (!ok) fprintf(stderr, "FAIL %s: %d NPU runs for 4 draws\n", what, tw.nc.n_runs);
out:
    cc_twin_close(&tw);
    return ok;
}

/* The one HW epoch of cm; NULL if there is not exactly one. */
static const cc_epoch *only_epoch(const cc_model *cm)
{
    const cc_epoch *e = NULL;
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        if (cm->epochs[i].kind != CC_EPOCH_HW) continue;
        if (e) return NULL;
        e = &cm->epochs[i];
    }
    return e;
}

static uint64_t seed0;
/* test_shared cases with one epoch where both FCs copy their weights into
 * SRAM and still share one flash copy of the stream */
static int n_copied_shared;
/* ... and where byte-identical constants in one epoch share one SRAM copy */
static int n_one_copy;

static void test_shared(eu_variant v, cc_optimise goal, bool other_bias, bool split, int32_t rows, int32_t n)
{
    char what[128];
    snprintf(what, sizeof what, "shared %s %s%s%s rows %d n %d", eu_variant_name(v),
             goal == CC_OPT_SIZE ? "size" : "perf", other_bias ? " other bias" : "", split ? " split" : "", rows, n);
    graph *g = build(rows, n, 0, true, other_bias, split, seed0);
    cc_model *cm = NULL;
    npuc_err e = {0};
    CHECK(g != NULL);
    if (!g) return;
    int rc = cc_compile_for(g, v, (cc_options){.optimise = goal}, &cm, &e);
    if (rc) fprintf(stderr, "FAIL %s: compile: %s\n", what, e.msg);
    CHECK_EQ_INT(rc, 0);
    if (!rc) {
        /* the weighted ops of each FC (more than one when split into
         * chunks), the flash each addresses, and all the constants */
        const eu_op *first[2] = {NULL, NULL};
        const cc_epoch *fe[2] = {NULL, NULL};
        uint64_t sum[2] = {0, 0}, flash = 0;
        int32_t n_hw = 0, last = g->n_ops - 1;
        for (int32_t i = 0; i < cm->n_epochs; i++) {
            const cc_epoch *ep = &cm->epochs[i];
            if (ep->kind != CC_EPOCH_HW) continue;
            n_hw++;
            flash += ep->flash_size;
            for (int32_t k = 0; k < ep->n_eu; k++) {
                const eu_op *o = &ep->ops[k];
                if (!o->w_len) continue;
                int f = o->src_op == last ? 1 : 0;
                if (!first[f]) first[f] = o, fe[f] = cc_flash_epoch(cm, ep);
                sum[f] += const_bytes(o);
            }
        }
        CHECK(first[0] && first[1]);
        if (split) CHECK_EQ_INT(n_hw, cm->ops[1].npu ? 1 : 2);
        if (first[0] && first[1]) {
            CHECK_EQ_INT(sum[0], sum[1]);
            if (!other_bias) {
                /* one copy of the streams: both FCs read it */
                CHECK(fe[0] == fe[1]);
                CHECK_EQ_INT(first[0]->s_off, first[1]->s_off);
                CHECK_EQ_INT(first[0]->w_off, first[1]->w_off);
                CHECK_EQ_INT(flash, sum[0]);
                if (n_hw == 1 && first[0]->wbuf >= 0 && first[1]->wbuf >= 0) {
                    /* one SRAM copy, loaded once, live over both */
                    const cc_buf *b = &cm->bufs[first[0]->wbuf];
                    CHECK_EQ_INT(first[0]->wbuf, first[1]->wbuf);
                    const cc_epoch *ep = NULL;
                    for (int32_t i = 0; i < cm->n_epochs && !ep; i++)
                        if (cm->epochs[i].kind == CC_EPOCH_HW) ep = &cm->epochs[i];
                    int32_t k1 = (int32_t)(first[1] - ep->ops), loads = 0;
                    CHECK(b->eu_last >= k1);
                    for (int32_t d = 0; d < ep->n_dma; d++) loads += ep->dma_op[d] >= 0 &&
                        ep->ops[ep->dma_op[d]].wbuf == first[0]->wbuf;
                    CHECK_EQ_INT(loads, 1);
                    n_one_copy++;
                }
            } else {
                /* the scale records are not shared, the weight stream
                 * is, in one epoch too and whether or not the FCs copy it
                 * into SRAM (only a dual-core copy is one block of both) */
                CHECK(fe[0] != fe[1] || first[0]->s_off != first[1]->s_off);
                CHECK(flash > sum[0]);
                bool block = first[0]->dual && (first[0]->wbuf >= 0 || first[1]->wbuf >= 0);
                if (!block) {
                    CHECK(fe[0] == fe[1]);
                    CHECK_EQ_INT(first[0]->w_off, first[1]->w_off);
                    if (n_hw == 1 && first[0]->wbuf >= 0 && first[1]->wbuf >= 0) n_copied_shared++;
                }
            }
        }
        CHECK(bit_exact(g, cm, v, what));
        CHECK(cc_hazard_model(cm, v, what));
    }
    cc_model_free(cm);
    graph_free(g);
}

static void test_read_once(eu_variant v, cc_optimise goal)
{
    char what[128];
    snprintf(what, sizeof what, "read once %s %s", eu_variant_name(v), goal == CC_OPT_SIZE ? "size" : "perf");
    graph *g = build(1, 256, 64, false, false, false, seed0 + 1);
    cc_model *cm = NULL;
    npuc_err e = {0};
    CHECK(g != NULL);
    if (!g) return;
    int rc = cc_compile_for(g, v, (cc_options){.optimise = goal}, &cm, &e);
    if (rc) fprintf(stderr, "FAIL %s: compile: %s\n", what, e.msg);
    CHECK_EQ_INT(rc, 0);
    const cc_epoch *ep = rc ? NULL : only_epoch(cm);
    CHECK(ep != NULL);
    if (ep) {
        /* on the U55 the arena is the only SRAM: the weights (16 KiB) stay
         * in flash and the arena holds the feature maps alone */
        if (!eu_variant_is_u65(v)) {
            for (int32_t k = 0; k < ep->n_eu; k++) CHECK_EQ_INT(ep->ops[k].wbuf, -1);
            CHECK(cm->arena_size < 1024);
            CHECK_EQ_INT(cm->fast_size, 0);
        }
        CHECK(bit_exact(g, cm, v, what));
    }
    cc_model_free(cm);
    graph_free(g);
}

int main(void)
{
    seed0 = (uint64_t)env_long("NPUC_WEIGHTS_SEED", 11);
    for (int i = 0; i < 6; i++)
        for (int gl = 0; gl < 2; gl++) {
            cc_optimise goal = gl ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            for (int sp = 0; sp < 2; sp++)
                for (int w = 0; w < 2; w++) {
                    int32_t n = w ? 80 : 96;
                    test_shared(variants[i], goal, false, sp, 1, n);
                    test_shared(variants[i], goal, false, sp, 32, n);
                    test_shared(variants[i], goal, true, sp, 1, n);
                    test_shared(variants[i], goal, true, sp, 32, n);
                }
            test_read_once(variants[i], goal);
        }
    if (!n_copied_shared) fprintf(stderr, "FAIL no case shared a weight stream copied into SRAM in one epoch\n");
    CHECK(n_copied_shared > 0);
    if (!n_one_copy) fprintf(stderr, "FAIL no case shared one SRAM copy of identical constants\n");
    CHECK(n_one_copy > 0);
    TEST_MAIN_END();
}
