/* The compiler's cycle estimate (cc.c, estimate) takes most of a stream
 * from its caches: decoded commands, an op's segment of commands keyed by
 * the words that are not addresses (their effect on the register state
 * kept as byte windows), the op's record from the same state, the cycle
 * model's record by a hint. None may change a figure: every HW epoch of a
 * compiled model has the cycles the plain path gives for its stream (the
 * stream decoded as the virtual NPU does, each command applied with
 * sim_state_apply, each op's record by sim_op_info_from_state, the total
 * by sim_perf_estimate without memo), and each NPU op its own op's cycles.
 *
 * What the segments compare of the state is checked on random states.
 *
 * Models of the shared folder (each skipped when absent) on two variants;
 * their schedule searches estimate hundreds of streams, so the last ones
 * come from warm caches. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/sim/sim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_test_npu.h"

/* Epoch e's cycles the plain way, and whether each NPU op's agree. */
static bool plain_epoch(const cc_model *cm, const cc_epoch *e, eu_variant v)
{
    sim_cop1 cop;
    npuc_err err = {0};
    if (sim_cop1_parse(e->payload, e->payload_size, &cop, &err)) return false;
    sim_cmd *cmds = NULL;
    size_t n = 0;
    if (sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &n, &err)) return false;
    sim_op_info *ops = calloc(n + 1, sizeof *ops);
    int32_t *eu_of = calloc(n + 1, sizeof *eu_of);
    bool ok = ops && eu_of;
    sim_state s;
    sim_state_reset(&s);
    uint8_t wk = 0, wc = 0;
    size_t no = 0;
    int32_t kernel = 0, dma = 0;
    for (size_t j = 0; ok && j < n; j++) {
        const sim_cmd *c = &cmds[j];
        sim_state_apply(&s, c, v);
        if (c->code == EU_OP_DMA_WAIT || c->code == EU_OP_KERNEL_WAIT) {
            wk = c->code == EU_OP_DMA_WAIT ? 1 : 2;
            wc = (uint8_t)c->param;
        } else if (eu_cmd_is_kernel_op(c->code) || c->code == EU_OP_DMA_START) {
            sim_op_info_from_state(&s, c, j, v, &ops[no]);
            ops[no].wait_kind = wk;
            ops[no].wait_count = wc;
            wk = wc = 0;
            eu_of[no++] = cc_record_eu(e, c->code == EU_OP_DMA_START, &kernel, &dma);
        }
    }
    if (ok) {
        uint64_t total = sim_perf_estimate(v, &cm->opt.sys.sim, ops, no);
        if (total != e->cycles) {
            fprintf(stderr, "epoch: %llu cycles estimated, %llu the plain way\n", (unsigned long long)e->cycles,
                    (unsigned long long)total);
            ok = false;
        }
        for (size_t j = 0; ok && j < no; j++)
            if (eu_of[j] >= 0 && ops[j].kind != SIM_K_DMA && e->ops[eu_of[j]].cycles != ops[j].cycles) {
                fprintf(stderr, "op %zu: %llu cycles estimated, %llu the plain way\n", j,
                        (unsigned long long)e->ops[eu_of[j]].cycles, (unsigned long long)ops[j].cycles);
                ok = false;
            }
    }
    free(ops);
    free(eu_of);
    free(cmds);
    return ok;
}

static void one(const char *rel, eu_variant v, const char *vname)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    if (cc_compile_shared(rel, v, &tm, &g, &cm)) {
        int hw = 0, same = 0;
        for (int32_t i = 0; i < cm->n_epochs; i++) {
            const cc_epoch *e = &cm->epochs[i];
            if (e->kind != CC_EPOCH_HW) continue;
            hw++;
            same += plain_epoch(cm, e, v);
        }
        printf("%s %s: %d HW epochs, %d with the plain figures, %llu NPU cycles\n", rel, vname, hw, same,
               (unsigned long long)cm->npu_cycles);
        CHECK(hw > 0);
        CHECK_EQ_INT(same, hw);
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

/* Random sequences of schedule changes, as the passes' searches make them
 * (a weight copy's DMA issued earlier or later, a weight copy dropped, a
 * buffer moved, everything as it was again), each followed by
 * cc_generate_all with the model's caches (the generation cache and the
 * estimate's command, segment and cycle model caches, warm from the trials
 * before): every HW epoch has the plain figures each time. */
static uint32_t rnd(uint32_t *r)
{
    *r = *r * 1103515245u + 12345u;
    return *r >> 8;
}

static void random_changes(const char *rel, eu_variant v, const char *vname, int steps)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    if (!cc_compile_shared(rel, v, &tm, &g, &cm)) goto done;
    cm->gen = cc_gencache_new();
    CHECK(cm->gen != NULL);
    /* the schedule as compiled, to go back to */
    cc_buf *bufs0 = malloc(sizeof *bufs0 * ((size_t)cm->n_bufs + 1));
    int32_t n_eu = 0;
    for (int32_t i = 0; i < cm->n_epochs; i++) n_eu += cm->epochs[i].n_eu;
    int32_t *wbuf0 = malloc(sizeof *wbuf0 * ((size_t)n_eu + 1));
    CHECK(bufs0 && wbuf0);
    if (!bufs0 || !wbuf0) {
        free(bufs0);
        free(wbuf0);
        goto done;
    }
    memcpy(bufs0, cm->bufs, sizeof *bufs0 * (size_t)cm->n_bufs);
    for (int32_t i = 0, k = 0; i < cm->n_epochs; i++)
        for (int32_t j = 0; j < cm->epochs[i].n_eu; j++) wbuf0[k++] = cm->epochs[i].ops[j].wbuf;
    uint32_t r = 2024u + (uint32_t)v;
    int runs = 0, same = 0, hw_all = 0, changes[4] = {0}, moved = 0;
    uint64_t last = cm->npu_cycles;
    for (int t = 0; t < steps; t++) {
        /* one to three changes, then the stream again */
        int n_ch = 1 + (int)(rnd(&r) % 3);
        for (int c = 0; c < n_ch; c++) {
            int kind = (int)(rnd(&r) % 8);
            int32_t ei = cm->n_epochs ? (int32_t)(rnd(&r) % (uint32_t)cm->n_epochs) : 0;
            cc_epoch *e = cm->n_epochs ? &cm->epochs[ei] : NULL;
            if (kind == 7) {
                /* all back as compiled */
                memcpy(cm->bufs, bufs0, sizeof *bufs0 * (size_t)cm->n_bufs);
                for (int32_t i = 0, k = 0; i < cm->n_epochs; i++)
                    for (int32_t j = 0; j < cm->epochs[i].n_eu; j++) cm->epochs[i].ops[j].wbuf = wbuf0[k++];
                changes[3]++;
                continue;
            }
            if (!e || e->kind != CC_EPOCH_HW || !e->n_eu) continue;
            int32_t j = (int32_t)(rnd(&r) % (uint32_t)e->n_eu);
            eu_op *o = &e->ops[j];
            int32_t k0 = 0;
            for (int32_t i = 0; i < ei; i++) k0 += cm->epochs[i].n_eu;
            if (kind < 3) {
                /* its weight copy's DMA issued up to two ops earlier or
                 * later (not after the op), or the copy back */
                int32_t b = wbuf0[k0 + j];
                if (b < 0) continue;
                o->wbuf = b;
                cc_buf *x = &cm->bufs[b];
                int32_t f = bufs0[b].eu_first + (int32_t)(rnd(&r) % 5) - 2;
                x->eu_first = f < 0 ? 0 : f > j ? j : f;
                changes[0]++;
            } else if (kind < 5) {
                /* the weight copy dropped: the op reads flash */
                if (o->wbuf < 0) continue;
                o->wbuf = -1;
                changes[1]++;
            } else {
                /* a feature map moved by a few 16-byte steps within its pool
                 * (an address changes, nothing else) */
                int32_t b = rnd(&r) % 2 ? o->ofm.buf : o->ifm.buf;
                if (b < 0 || b >= cm->n_bufs) continue;
                cc_buf *x = &cm->bufs[b];
                int64_t off = bufs0[b].offset + 16 * ((int64_t)(rnd(&r) % 5) - 2);
                if (off < 0 || bufs0[b].offset < 0) continue;
                x->offset = off;
                changes[2]++;
            }
        }
        npuc_err err = {0};
        int rc = cc_generate_all(cm, &err);
        if (rc) {
            fprintf(stderr, "%s %s: step %d: %s\n", rel, vname, t, err.msg);
            CHECK_EQ_INT(rc, NPUC_OK);
            break;
        }
        runs++;
        uint64_t sum = 0;
        int hw = 0, ok = 0;
        for (int32_t i = 0; i < cm->n_epochs; i++) {
            const cc_epoch *e = &cm->epochs[i];
            if (e->kind != CC_EPOCH_HW) continue;
            hw++;
            ok += plain_epoch(cm, e, v);
            sum += e->cycles;
        }
        CHECK_EQ_INT(ok, hw);
        CHECK(sum == cm->npu_cycles);
        hw_all += hw;
        same += ok;
        moved += cm->npu_cycles != last;
        last = cm->npu_cycles;
    }
    printf("%s %s: %d random schedules (%d DMA moves, %d copies dropped, %d buffers moved, %d back), "
           "%d changed the cycles, %d of %d HW epochs with the plain figures\n",
           rel, vname, runs, changes[0], changes[1], changes[2], changes[3], moved, same, hw_all);
    CHECK_EQ_INT(runs, steps);
    free(bufs0);
    free(wbuf0);
done:
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

/* Random bytes in a bool are no bool (UBSan stops on loading one): each
 * bool of s keeps its low bit, read as a byte. */
static void bit01(bool *b)
{
    unsigned char x;
    memcpy(&x, b, 1);
    x &= 1;
    memcpy(b, &x, 1);
}

static void bools01(sim_state *s)
{
    sim_fm *fm[3] = {&s->ifm, &s->ifm2, &s->ofm};
    for (int i = 0; i < 3; i++) bit01(&fm[i]->is_signed);
    bool *b[] = {&s->part_kernel_first, &s->decomp_4x4, &s->weight_custom_dma, &s->scale_custom_dma, &s->bcast_h,
                 &s->bcast_w, &s->bcast_c, &s->ifm2_first, &s->ifm2_scalar, &s->dma.src_internal,
                 &s->dma.dst_internal};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) bit01(b[i]);
}

/* What estimate's segments compare of the state before an op: a kernel
 * op's record reads only the registers before sim_state's DMA ones, a DMA
 * start's only the DMA ones, PARALLEL_MODE and BLOCKDEP. Random states,
 * the other bytes changed at random: the same record. */
static void state_ranges(void)
{
    static const uint16_t codes[] = {EU_OP_CONV, EU_OP_DEPTHWISE, EU_OP_POOL, EU_OP_ELEMENTWISE, EU_OP_DMA_START};
    uint32_t r = 12345;
    int same = 0, n = 0;
    for (int v = 0; v < 2; v++) {
        eu_variant var = v ? EU_U65_512 : EU_U55_128;
        for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
            uint8_t w[4] = {(uint8_t)codes[k], (uint8_t)(codes[k] >> 8), 0, 0};
            sim_cmd c;
            npuc_err err = {0};
            CHECK_EQ_INT(sim_cmd_decode(w, 4, 0, var, &c, &err), NPUC_OK);
            bool dma = codes[k] == EU_OP_DMA_START;
            for (int t = 0; t < 200; t++, n++) {
                sim_state a, b;
                uint8_t *pa = (uint8_t *)&a, *pb = (uint8_t *)&b;
                for (size_t i = 0; i < sizeof a; i++) pa[i] = (uint8_t)((r = r * 1103515245u + 12345u) >> 16);
                b = a;
                size_t lo = dma ? offsetof(sim_state, dma) : 0;
                size_t hi = offsetof(sim_state, dma) + (dma ? sizeof a.dma : 0);
                for (size_t i = 0; i < sizeof b; i++)
                    if (i < lo || i >= hi) pb[i] = (uint8_t)((r = r * 1103515245u + 12345u) >> 16);
                if (dma) {
                    b.parallel_mode = a.parallel_mode;
                    b.blockdep = a.blockdep;
                }
                bools01(&a);
                bools01(&b);
                sim_op_info x, y;
                sim_op_info_from_state(&a, &c, 3, var, &x);
                sim_op_info_from_state(&b, &c, 3, var, &y);
                same += !memcmp(&x, &y, sizeof x);
            }
        }
    }
    printf("state ranges: %d of %d records the same\n", same, n);
    CHECK_EQ_INT(same, n);
}

int main(void)
{
    (void)env_long;
    state_ranges();
    one("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128");
    one("models/tflm/person_detect.tflite", EU_U65_256, "ethos-u65-256");
    one("models/zoo/armkws_ds_cnn_l_int8.tflite", EU_U55_128, "ethos-u55-128");
    one("models/zoo/armkws_basic_lstm_s_int8.tflite", EU_U65_256, "ethos-u65-256");
    random_changes("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128", 300);
    random_changes("models/tflm/person_detect.tflite", EU_U65_512, "ethos-u65-512", 150);
    random_changes("models/zoo/armkws_ds_cnn_l_int8.tflite", EU_U55_64, "ethos-u55-64", 150);
    random_changes("models/tflm/micro_speech_quantized.tflite", EU_U65_256, "ethos-u65-256", 150);
    random_changes("models/zoo/armkws_basic_lstm_s_int8.tflite", EU_U55_256, "ethos-u55-256", 60);
    TEST_MAIN_END();
}
