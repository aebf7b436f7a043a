/* Weight copies loaded per use (cc_prefetch.c, cc_place_weights: rl_make,
 * the split points of the weight search; cc_alloc.c, fp_gain): a copy that
 * ops of several graph ops share (one SRAM copy of an unrolled recurrent
 * net's weights, lower_weights.c) may instead be loaded before each use by
 * its own DMA from the one shared stream, into a buffer live only around
 * that use, so that the per-step tensors fit in the fast pool beside it.
 * A shared copy is split whole (rl_apply): each graph op that used it gets
 * its own copy, so a split copy of a weight every step reads is one copy
 * per step.
 *
 *  - a hand-built unrolled recurrent net on an Ethos-U65-256
 *    (Ethos_U65_High_End:Dedicated_Sram), STEPS steps of x_t [1, 20] ->
 *    FULLY_CONNECTED (one weight tensor W_in [472, 20] for every step: a
 *    2,272-byte copy) -> ADD the recurrent term -> ADD -> FULLY_CONNECTED
 *    [118, 472] -> FULLY_CONNECTED [472, 118] (the next step's recurrent
 *    term; both big weight tensors shared too), with the SRAM limited to
 *    8,192 bytes (--arena-cache-size): copies loaded per use are in the
 *    fast pool, at least one per step but the first (6: 212,476 NPU cycles
 *    in a 3,232-byte pool), each used by one graph op (no copy loaded per
 *    use serves two); the pool's peak within the limit; fewer NPU cycles
 *    than with every weight streamed from DRAM (cc_options.stream_weights:
 *    218,285); the streams free of hazards (cc_hazard.h); the compiled
 *    model bit-exact with the reference interpreter (4 draws). Without a
 *    limit no copy is loaded per use (the search weighs them only under
 *    one: the default schedule is as it was). With W_in [472, 10] (the
 *    net this test had before the AXI ports' bandwidth was shared between
 *    the ops that run at once, sim_perf.c) the search no longer loads one
 *    per use at any limit. Other weights and limits, on ethos-u55-128,
 *    -256 and ethos-u65-512 too: whatever the search picks fits the limit,
 *    is free of hazards and bit-exact (2 draws each; 2 of the 9 load
 *    copies per use: ethos-u65-256 and -512 at 6,144 bytes);
 *  - armkws_basic_lstm_l_int8 of the shared folder (skipped when absent),
 *    the same target at 16,384 bytes: its input weights [1376, 10] loaded
 *    per use, one 12,464-byte copy for each of its 49 steps (at least 48
 *    asserted), 6,374,033 NPU cycles in a 15,680-byte pool against
 *    6,843,784 with every weight streamed; none without a limit;
 *    bit-exact (1 draw);
 *  - armkws_basic_lstm_s_int8 (skipped when absent) at Vela 5.1's 11,616
 *    bytes: it fits, hazard-free and bit-exact (1 draw), in no more NPU
 *    cycles than Vela's own stream (vela51/u65-256, priced on the same
 *    cycle model as bench_zoo does it, bench_vela_run: 1,104,080 against
 *    1,253,726). The search loads no copy per use there any more (it did
 *    on the cycle model before the AXI ports were shared). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"
#include "cc_hazard.h"
#include "../bench/bench_models.h"

enum { STEPS = 6, I_IN = 20, C = 472, H = 118, LIMIT = 8192 };
enum { LSTM_STEPS = 49 };   /* armkws_basic_lstm's time steps (49 frames) */

typedef struct gb {
    graph *g;
    npuc_rng *r;
    bool ok;
    int32_t gin[STEPS], n_gin;
    int n;
} gb;

static int32_t act(gb *b, int32_t n, float scale, int64_t zp)
{
    char nm[24];
    snprintf(nm, sizeof nm, "t%d", b->n++);
    int32_t shape[2] = {1, n};
    int32_t t = graph_add_tensor(b->g, nm, GRAPH_I8, 2, shape, NULL);
    if (t < 0 || graph_set_quant(b->g, t, 1, &scale, &zp, 0)) b->ok = false;
    return t;
}

/* Weights [o, i] (int8, scale 0.01) and bias [o] (int32) of a FULLY_CONNECTED
 * whose input has scale si: in[1], in[2]. */
static void fc_consts(gb *b, int32_t o, int32_t i, float si, int32_t *w, int32_t *bias)
{
    size_t n = (size_t)o * (size_t)i;
    int8_t *d = malloc(n + 1);
    int32_t *bd = malloc(sizeof *bd * (size_t)o);
    if (!d || !bd) {
        b->ok = false;
        free(d);
        free(bd);
        return;
    }
    for (size_t k = 0; k < n; k++) d[k] = (int8_t)npuc_rng_range(b->r, -60, 60);
    for (int32_t k = 0; k < o; k++) bd[k] = (int32_t)npuc_rng_range(b->r, -2000, 2000);
    char nm[24];
    snprintf(nm, sizeof nm, "w%d", b->n++);
    int32_t ws[2] = {o, i};
    float sw = 0.01f, sb = si * 0.01f;
    int64_t z = 0;
    *w = graph_add_tensor(b->g, nm, GRAPH_I8, 2, ws, d);
    snprintf(nm, sizeof nm, "b%d", b->n++);
    *bias = graph_add_tensor(b->g, nm, GRAPH_I32, 1, &o, bd);
    if (*w < 0 || *bias < 0 || graph_set_quant(b->g, *w, 1, &sw, &z, 0) || graph_set_quant(b->g, *bias, 1, &sb, &z, 0))
        b->ok = false;
    free(d);
    free(bd);
}

static int32_t fc(gb *b, int32_t x, int32_t w, int32_t bias, int32_t o)
{
    int32_t y = act(b, o, 0.05f, 3);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    int32_t in[3] = {x, w, bias};
    if (b->ok && graph_add_op(b->g, TFL_OP_FULLY_CONNECTED, &opt, 3, in, 1, &y) < 0) b->ok = false;
    return y;
}

static int32_t add(gb *b, int32_t x, int32_t x2)
{
    int32_t y = act(b, C, 0.08f, -2);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    int32_t in[2] = {x, x2};
    if (b->ok && graph_add_op(b->g, TFL_OP_ADD, &opt, 2, in, 1, &y) < 0) b->ok = false;
    return y;
}

/* The unrolled net of the header; NULL on failure. */
static graph *build(npuc_rng *r)
{
    gb b;
    memset(&b, 0, sizeof b);
    b.g = graph_new("reload");
    b.r = r;
    b.ok = b.g != NULL;
    int32_t w_in = -1, b_in = -1, w_out = -1, b_out = -1, w_rec = -1, b_rec = -1;
    fc_consts(&b, C, I_IN, 0.03f, &w_in, &b_in);
    fc_consts(&b, H, C, 0.08f, &w_out, &b_out);
    fc_consts(&b, C, H, 0.05f, &w_rec, &b_rec);
    int32_t rec = -1, h = -1;
    for (int t = 0; t < STEPS && b.ok; t++) {
        int32_t x = act(&b, I_IN, 0.03f, -4);
        b.gin[b.n_gin++] = x;
        int32_t a = fc(&b, x, w_in, b_in, C);
        int32_t s = rec >= 0 ? add(&b, a, rec) : a;
        int32_t u = add(&b, s, a);
        h = fc(&b, u, w_out, b_out, H);
        if (t + 1 < STEPS) rec = fc(&b, h, w_rec, b_rec, C);
    }
    if (!b.ok || graph_set_io(b.g, b.n_gin, b.gin, 1, &h)) {
        graph_free(b.g);
        return NULL;
    }
    return b.g;
}

/* Copies loaded per use in the fast pool that ops use, and shared copies
 * (one buffer for ops of two graph ops or more) in it. */
static void count_copies(const cc_model *cm, int32_t *reload, int32_t *shared)
{
    *reload = *shared = 0;
    for (int32_t b = 0; b < cm->n_bufs; b++) {
        const cc_buf *x = &cm->bufs[b];
        if (!x->wcopy || !x->size || x->pool != CC_IN_FAST) continue;
        int32_t src = -1, n_src = 0;
        for (int32_t i = 0; i < cm->n_epochs; i++)
            for (int32_t k = 0; cm->epochs[i].kind == CC_EPOCH_HW && k < cm->epochs[i].n_eu; k++) {
                const eu_op *o = &cm->epochs[i].ops[k];
                if (o->wbuf != b || o->src_op == src) continue;
                src = o->src_op;
                n_src++;
            }
        if (x->reload && n_src == 1) (*reload)++;
        if (n_src > 1) (*shared)++;
        CHECK(!x->reload || n_src <= 1);
    }
}

/* The bytes of the copies loaded per use in the fast pool (each one's: they
 * are all of one shared copy here), 0 none. */
static uint64_t reload_bytes(const cc_model *cm)
{
    for (int32_t b = 0; b < cm->n_bufs; b++)
        if (cm->bufs[b].wcopy && cm->bufs[b].reload && cm->bufs[b].size && cm->bufs[b].pool == CC_IN_FAST)
            return cm->bufs[b].size;
    return 0;
}

/* The model rel (graph lg) compiled for an Ethos-U65-256 under `limit`
 * bytes: the pool within the limit, at least min_reload copies loaded per
 * use in it, free of hazards, bit-exact (n_draws draws from `seed`); where
 * min_reload > 0 also fewer NPU cycles than with every weight streamed,
 * and without a limit no copy loaded per use. Its NPU cycles in *cycles
 * (0 when it did not compile). */
static void reload_case(const char *rel, graph *lg, uint64_t limit, int32_t min_reload, int n_draws, uint32_t seed,
                        uint64_t *cycles)
{
    *cycles = 0;
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sram_limit = limit;
    cc_model *lm = NULL, *ls = NULL, *l0 = NULL;
    if (lg && cc_check_compile(rel, lg, EU_U65_256, opt, &lm)) {
        int32_t reload, shared;
        count_copies(lm, &reload, &shared);
        printf("%s at %llu B: %llu NPU cycles, fast pool %llu B, %d copies loaded per use (%llu B each), %d shared "
               "copies there\n",
               rel, (unsigned long long)limit, (unsigned long long)lm->npu_cycles, (unsigned long long)lm->fast_size,
               (int)reload, (unsigned long long)reload_bytes(lm), (int)shared);
        *cycles = lm->npu_cycles;
        CHECK(lm->fast_size <= limit);
        CHECK(reload >= min_reload);
        CHECK(cc_hazard_model(lm, EU_U65_256, rel));
        cc_draws d = {.n_draws = n_draws, .seed = seed, .fill = cc_fill_bytes};
        CHECK(cc_check_draws(rel, lg, lm, EU_U65_256, &d));
        cc_options os = opt;
        os.stream_weights = true;
        if (min_reload > 0 && cc_check_compile(rel, lg, EU_U65_256, os, &ls)) {
            printf("  weights streamed: %llu NPU cycles\n", (unsigned long long)ls->npu_cycles);
            CHECK(lm->npu_cycles < ls->npu_cycles);
        }
        cc_options o0;
        memset(&o0, 0, sizeof o0);
        if (min_reload > 0 && cc_check_compile(rel, lg, EU_U65_256, o0, &l0)) {
            int32_t r0, s0;
            count_copies(l0, &r0, &s0);
            printf("  no limit: %llu NPU cycles, fast pool %llu B, %d copies loaded per use\n",
                   (unsigned long long)l0->npu_cycles, (unsigned long long)l0->fast_size, (int)r0);
            CHECK(r0 == 0);
        }
    }
    cc_model_free(lm);
    cc_model_free(ls);
    cc_model_free(l0);
}

int main(void)
{
    (void)env_long;
    npuc_rng r;
    npuc_rng_seed(&r, 11);
    graph *g = build(&r);
    CHECK(g != NULL);
    const char *cs = "unrolled net, W_in [472, 20], SRAM 8,192 B";
    uint64_t cycles;
    reload_case(cs, g, LIMIT, STEPS - 1, 4, 5, &cycles);
    CHECK(cycles > 0);
    graph_free(g);

    /* other weights and limits, an Ethos-U55 too (the arena is the SRAM
     * there): whatever the search picks fits, is free of hazards and
     * bit-exact */
    static const struct { eu_variant v; uint64_t limit; } sweep[] = {
        {EU_U65_256, 6144},  {EU_U65_256, 12800}, {EU_U65_256, 16384}, {EU_U65_256, 24576}, {EU_U55_128, 16384},
        {EU_U55_128, 24576}, {EU_U55_256, 32768}, {EU_U65_512, 6144},  {EU_U65_512, 12800},
    };
    int32_t picked = 0;
    for (size_t i = 0; i < sizeof sweep / sizeof sweep[0]; i++) {
        npuc_rng_seed(&r, 100 + i);
        graph *gi = build(&r);
        CHECK(gi != NULL);
        char name[96];
        snprintf(name, sizeof name, "unrolled net, seed %d, %s, SRAM %llu B", (int)(100 + i),
                 target_variant_name(sweep[i].v), (unsigned long long)sweep[i].limit);
        cc_options oi;
        memset(&oi, 0, sizeof oi);
        oi.sram_limit = sweep[i].limit;
        cc_model *mi = NULL;
        if (gi && cc_check_compile(name, gi, sweep[i].v, oi, &mi)) {
            int32_t reload, shared;
            count_copies(mi, &reload, &shared);
            picked += reload > 0;
            CHECK(cc_sram_bytes(mi) <= sweep[i].limit);
            CHECK(cc_hazard_model(mi, sweep[i].v, name));
            cc_draws d = {.n_draws = 2, .seed = 7, .fill = cc_fill_bytes};
            CHECK(cc_check_draws(name, gi, mi, sweep[i].v, &d));
        }
        cc_model_free(mi);
        graph_free(gi);
    }
    printf("  %d of %d other weights and limits load copies per use\n", (int)picked,
           (int)(sizeof sweep / sizeof sweep[0]));

    /* armkws_basic_lstm_l at 16 KiB: one copy per step (49) of a shared
     * one */
    const char *rel_l = "models/zoo/armkws_basic_lstm_l_int8.tflite";
    tfl_model *tm = NULL;
    graph *lg = NULL;
    int loaded = cc_load_shared(rel_l, &tm, &lg);
    if (loaded) {
        CHECK(loaded > 0);
        reload_case(rel_l, lg, 16384, LSTM_STEPS - 1, 1, 3, &cycles);
    }
    graph_free(lg);
    tfl_model_free(tm);

    /* armkws_basic_lstm_s at Vela 5.1's SRAM: no more NPU cycles than
     * Vela's own stream priced on the same cycle model */
    const char *rel = "models/zoo/armkws_basic_lstm_s_int8.tflite";
    tm = NULL;
    lg = NULL;
    loaded = cc_load_shared(rel, &tm, &lg);
    if (loaded) {
        CHECK(loaded > 0);
        reload_case(rel, lg, 11616, 0, 1, 3, &cycles);
        const char *dir = getenv("NPUC_SHARED");
        char err[512];
        int streams = 0;
        uint64_t vela = 0;
        int vrc = bench_vela_run(dir ? dir : "../shared", "u65-256", "armkws_basic_lstm_s_int8", 1, &streams, NULL,
                                 &vela, err, sizeof err);
        if (vrc < 0) {
            printf("skip Vela's stream of %s: absent\n", rel);
        } else if (vrc) {
            fprintf(stderr, "FAIL Vela's stream of %s: %s\n", rel, err);
            CHECK(false);
        } else {
            printf("  Vela 5.1's stream (%d ethos-u ops): %llu NPU cycles\n", streams, (unsigned long long)vela);
            CHECK(cycles > 0 && cycles <= vela);
        }
    }
    graph_free(lg);
    tfl_model_free(tm);
    TEST_MAIN_END();
}
