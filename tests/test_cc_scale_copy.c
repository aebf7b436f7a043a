/* Scale-record copies (cc_alloc.c, cc_scale_copies): on an Ethos-U65 with a
 * fast pool apart from the DRAM arena, an op that streams its weights from
 * DRAM may read its scale records from a copy of them alone in the fast
 * pool, filled by a DMA issued as the op before starts.
 *
 * The form, in every stream compiled here: such an op's copy is a weight
 * copy in the fast pool of exactly the records' 16-byte rounded length
 * (eu_wcopy_w_at), live over the op before and the op; in the command
 * stream the op reads SCALE_REGION 2 at the copy and WEIGHT_REGION 0 (the
 * params), a DMA from region 0 of the records' length (SCALE_LENGTH) fills
 * the copy before it, and the stream is hazard-free (tests/cc_hazard.h).
 *
 *  - hello_world_int8 (models/tflm, skipped when absent), ethos-u65-256:
 *    its second FULLY_CONNECTED (16x16) gets such a copy; fewer NPU cycles
 *    than with cc_options.no_scale_copies (1,137 -> 815), a fast pool of
 *    at most 256 bytes (the full copy, 464 bytes, is not taken), bit-exact
 *    with the reference (2 draws); none on ethos-u55-256 (no fast pool);
 *  - generated models (tools/genmodel, NPUC_SCALE_COPY_COUNT seeds, default
 *    2800, int8 and int16x8), ethos-u65-256: each compiled with and without
 *    the copies: no more NPU cycles with them, or within 1% of them in
 *    less SRAM (the search weighs its last points as the copies leave
 *    them, cc_prefetch.c later_figures, and its rule may then take a
 *    leaner one), the form above, every one
 *    run against the reference (2 draws, bit-exact); the count of models
 *    and ops with a copy is printed (144 models, 160 ops) and at least 130
 *    models must have one at the default count. Since the AXI ports'
 *    bandwidth is shared between the ops that run at once (sim_perf.c),
 *    a copy's DMA shares the params' port with the op before it, and
 *    fewer copies pay on the streams' cycles, which the pass keeps them
 *    by (217 models, 253 ops, when each ran at the port's full
 *    bandwidth). */
#include "test.h"
#include "cc_test_npu.h"
#include "cc_hazard.h"
#include "../tools/genmodel/genmodel.h"

/* Scale-records-only copies of cm's ops (checking their form); -1 when one
 * is malformed. */
static int model_copies(const cc_model *cm, const char *cs)
{
    int n = 0;
    for (int32_t ei = 0; ei < cm->n_epochs; ei++) {
        const cc_epoch *e = &cm->epochs[ei];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
            const eu_op *o = &e->ops[k];
            if (o->wbuf < 0) continue;
            const cc_buf *b = &cm->bufs[o->wbuf];
            if (!eu_wcopy_scales_only(o, b->size)) continue;
            bool ok = b->wcopy && b->pool == CC_IN_FAST && b->epoch == ei && b->eu_first == k - 1 &&
                      b->eu_last == k && b->offset >= 0 && (uint64_t)b->offset + b->size <= cm->fast_size;
            if (!ok) {
                fprintf(stderr, "FAIL %s: epoch %d op %d: malformed scale copy\n", cs, (int)ei, (int)k);
                return -1;
            }
            n++;
        }
    }
    return n;
}

/* The conv ops of cm's streams reading their scale records from region 2
 * and their weights from region 0, each after a DMA from region 0 into the
 * records' bytes of their length; -1 when such an op has no such DMA. */
static int stream_copies(const cc_model *cm, eu_variant v, const char *cs)
{
    int n = 0;
    for (int32_t ei = 0; ei < cm->n_epochs; ei++) {
        const cc_epoch *e = &cm->epochs[ei];
        if (e->kind != CC_EPOCH_HW) continue;
        npuc_err err = {0};
        sim_cop1 cop;
        sim_cmd *cmds = NULL;
        size_t nc = 0;
        if (sim_cop1_parse(e->payload, e->payload_size, &cop, &err) ||
            sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &nc, &err)) {
            fprintf(stderr, "FAIL %s: stream does not decode: %s\n", cs, err.msg);
            free(cmds);
            return -1;
        }
        sim_state s;
        sim_state_reset(&s);
        enum { MAXD = 64 };
        uint64_t dst[MAXD], len[MAXD];
        int nd = 0;
        for (size_t i = 0; i < nc; i++) {
            const sim_cmd *c = &cmds[i];
            sim_state_apply(&s, c, v);
            if (c->code == EU_OP_DMA_START && !s.dma.dst_internal && s.dma.dst_region == 2 &&
                s.dma.src_region == 0) {
                dst[nd % MAXD] = s.dma.dst;
                len[nd % MAXD] = s.dma.len;
                nd++;
            }
            if ((c->code != EU_OP_CONV && c->code != EU_OP_DEPTHWISE) || s.scale_region != 2 ||
                s.weight_region != 0)
                continue;
            bool filled = false;
            for (int j = 0; j < nd && j < MAXD; j++)
                filled |= dst[j] == s.scale_base[0] && len[j] == s.scale_length[0];
            if (!filled) {
                fprintf(stderr, "FAIL %s: epoch %d command %zu: scale records in region 2 no DMA filled\n", cs,
                        (int)ei, i);
                free(cmds);
                return -1;
            }
            n++;
        }
        free(cmds);
    }
    return n;
}

static void fill_random(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)draw;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

static void hello_world(void)
{
    const char *rel = "models/tflm/hello_world_int8.tflite";
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (!loaded) return;
    CHECK(loaded > 0);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *on = NULL, *off = NULL, *u55 = NULL;
    if (g && cc_check_compile(rel, g, EU_U65_256, opt, &on)) {
        int nm = model_copies(on, rel), ns = stream_copies(on, EU_U65_256, rel);
        printf("%s ethos-u65-256: %llu NPU cycles, fast pool %llu B, %d scale copies\n", rel,
               (unsigned long long)on->npu_cycles, (unsigned long long)on->fast_size, nm);
        CHECK(nm >= 1);
        CHECK_EQ_INT(ns, nm);
        CHECK(on->fast_size <= 256);
        CHECK(cc_hazard_model(on, EU_U65_256, rel));
        cc_draws d = {.n_draws = 2, .seed = 5, .fill = cc_fill_bytes};
        CHECK(cc_check_draws(rel, g, on, EU_U65_256, &d));
        opt.no_scale_copies = true;
        if (cc_check_compile(rel, g, EU_U65_256, opt, &off)) {
            printf("  without: %llu NPU cycles, fast pool %llu B\n", (unsigned long long)off->npu_cycles,
                   (unsigned long long)off->fast_size);
            CHECK_EQ_INT(model_copies(off, rel), 0);
            CHECK(on->npu_cycles < off->npu_cycles);
        }
        opt.no_scale_copies = false;
    }
    if (g && cc_check_compile(rel, g, EU_U55_256, opt, &u55)) CHECK_EQ_INT(model_copies(u55, rel), 0);
    cc_model_free(on);
    cc_model_free(off);
    cc_model_free(u55);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    hello_world();
    long count = env_long("NPUC_SCALE_COPY_COUNT", 2800);
    int compiled = 0, with = 0, ops = 0, leaner = 0;
    for (long seed = 1; seed <= count; seed++) {
        genmodel_config gc;
        genmodel_config_default(&gc);
        gc.int16 = seed & 1;
        graph *src = NULL;
        npuc_err e = {0};
        if (genmodel_build((uint64_t)seed, &gc, &src, &e)) continue;
        char cs[96];
        snprintf(cs, sizeof cs, "seed %ld (%s)", seed, src->name);
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        cc_model *a = NULL, *b = NULL;
        if (cc_compile_for(src, EU_U65_256, opt, &a, &e)) {
            graph_free(src);   /* what the compiler rejects is no case */
            continue;
        }
        opt.no_scale_copies = true;
        memset(&e, 0, sizeof e);
        if (cc_compile_for(src, EU_U65_256, opt, &b, &e)) {
            fprintf(stderr, "FAIL %s: compile without scale copies: %s\n", cs, e.msg);
            CHECK(false);
        } else {
            /* with the copies: no more cycles, or within 1% of them
             * (CC_CYCLE_SLACK) in less SRAM (the search weighs its last
             * points as the copies leave them) */
            bool kept = a->npu_cycles <= b->npu_cycles ||
                        (a->npu_cycles <= b->npu_cycles + b->npu_cycles / CC_CYCLE_SLACK &&
                         cc_sram_bytes(a) < cc_sram_bytes(b));
            if (!kept)
                fprintf(stderr, "FAIL %s: %llu NPU cycles, %llu B SRAM; without the copies %llu, %llu B\n", cs,
                        (unsigned long long)a->npu_cycles, (unsigned long long)cc_sram_bytes(a),
                        (unsigned long long)b->npu_cycles, (unsigned long long)cc_sram_bytes(b));
            CHECK(kept);
            leaner += a->npu_cycles > b->npu_cycles;
            CHECK_EQ_INT(model_copies(b, cs), 0);
        }
        int nm = model_copies(a, cs), ns = stream_copies(a, EU_U65_256, cs);
        CHECK(nm >= 0);
        CHECK_EQ_INT(ns, nm);
        CHECK(cc_hazard_model(a, EU_U65_256, cs));
        cc_draws d = {.n_draws = 2, .seed = 31u, .fill = fill_random};
        CHECK(cc_check_draws(cs, src, a, EU_U65_256, &d));
        compiled++;
        with += nm > 0;
        ops += nm > 0 ? nm : 0;
        cc_model_free(a);
        cc_model_free(b);
        graph_free(src);
    }
    printf("%d generated models compiled for ethos-u65-256 and run against the reference; %d with scale copies "
           "(%d ops); %d take a few more cycles (within 1%%) in less SRAM\n", compiled, with, ops, leaner);
    CHECK(compiled >= count / 2);
    CHECK(count < 2800 ? with > 0 : with >= 130);
    TEST_MAIN_END();
}
