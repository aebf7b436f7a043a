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
            int32_t k = kernel;
            if (c->code == EU_OP_DMA_START) k = dma < e->n_dma ? e->dma_op[dma++] : e->n_eu;
            else kernel++;
            eu_of[no++] = k < e->n_eu ? k : -1;
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
    int loaded = cc_load_shared(rel, &tm, &g);
    if (!loaded) return;
    CHECK(loaded > 0);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    if (g && cc_check_compile(rel, g, v, opt, &cm)) {
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
    TEST_MAIN_END();
}
