/* eu_generate notes each op's segment of commands as it writes the stream
 * (eu_generate_segs, eu_segs), and the cycle estimate (cc.c) takes the
 * segments from there instead of reading the stream's words again. None
 * may change a figure: the notes must be what a scan of the stream gives
 * (each segment's end, its commands, the words of those the estimate does
 * not skip in order, whether the estimate's scan gives up on it), and the
 * stream the same bytes with or without them.
 *
 * The scan here is the plain one: the stream decoded as the virtual NPU
 * does, each command's role from the non-inline functions the estimate's
 * role table stands for (eu_cmd_is_kernel_op, sim_op_info_reads); and
 * sim_cmd_role is held to those for every code. Models of the shared
 * folder (each skipped when absent), on the variants' extremes, with the
 * estimate's limits and with small ones (segments given up on). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/sim/sim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_test_npu.h"

static uint8_t role_ref(uint16_t code)
{
    if (code == EU_OP_DMA_WAIT || code == EU_OP_KERNEL_WAIT) return SIM_ROLE_WAIT;
    if (eu_cmd_is_kernel_op(code) || code == EU_OP_DMA_START) return SIM_ROLE_OP;
    if (code == EU_OP_STOP) return SIM_ROLE_STOP;
    return sim_op_info_reads(code) ? SIM_ROLE_REG : SIM_ROLE_SKIP;
}

/* sim_cmd_role against the plain functions, for every code the estimate's
 * role table holds (cmd1 << 14 | opcode). */
static void roles(void)
{
    int bad = 0;
    for (uint32_t k = 0; k < 2048; k++) {
        uint16_t code = (uint16_t)((k & 0x400) << 4 | (k & 0x3FF));
        if (sim_cmd_role(code) != role_ref(code)) bad++;
    }
    printf("sim_cmd_role: %d of 2048 codes differ from the plain roles\n", bad);
    CHECK_EQ_INT(bad, 0);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Epoch e's stream generated with notes (limits max_words, max_cmds) and
 * without: the same payload, and the notes those of the plain scan. */
static bool same_segs(cc_model *m, cc_epoch *e, eu_segs *sg, uint32_t max_words, uint32_t max_cmds, int *n_seg,
                      int *n_off)
{
    npuc_err err = {0};
    if (eu_generate(m, e, &err)) return false;
    uint64_t n = e->payload_size;
    uint8_t *a = malloc(n + 1);
    if (!a) return false;
    memcpy(a, e->payload, n);
    sg->max_words = max_words;
    sg->max_cmds = max_cmds;
    bool ok = !eu_generate_segs(m, e, sg, &err) && !sg->oom && e->payload_size == n && !memcmp(a, e->payload, n);
    free(a);
    if (!ok) {
        fprintf(stderr, "stream with notes: not the same (%s)\n", err.msg);
        return false;
    }
    sim_cop1 cop;
    sim_cmd *cmds = NULL;
    size_t nc = 0;
    if (sim_cop1_parse(e->payload, e->payload_size, &cop, &err) ||
        sim_stream_decode(cop.stream, cop.stream_size, m->opt.sys.variant, &cmds, &nc, &err))
        return false;
    /* the plain scan, segment by segment */
    size_t k = 0, kw = 0;
    uint32_t nk = 0, ncmd = 0;
    bool bad = false;
    for (size_t j = 0; ok && j < nc; j++) {
        const sim_cmd *c = &cmds[j];
        uint8_t r = role_ref(c->code);
        if (++ncmd > max_cmds) bad = true;
        if (r == SIM_ROLE_SKIP) continue;
        if (r == SIM_ROLE_STOP || nk + 2 > max_words) bad = true;
        unsigned nw = c->is_cmd1 ? 2 : 1;
        if (!bad) {
            for (unsigned t = 0; t < nw && ok; t++, kw++, nk++)
                ok = kw < sg->n_kw && sg->kw[kw] == rd32(cop.stream + c->offset + 4 * t);
        }
        if (r != SIM_ROLE_OP) continue;
        const eu_seg *s = k < sg->n ? &sg->seg[k] : NULL;
        size_t end = c->offset + 4 * nw;
        if (!s || s->end != end || s->ncmd != ncmd || s->ok != !bad || (!bad && (s->nk != nk || s->kw + nk != kw))) {
            fprintf(stderr, "segment %zu: end %zu, %u commands, ok %d; noted %s %u, %u, %d\n", k, end, ncmd, !bad,
                    s ? "" : "(none)", s ? s->end : 0, s ? s->ncmd : 0, s ? s->ok : 0);
            ok = false;
        }
        if (s && !s->ok) kw = s->kw + s->nk;   /* a given-up segment's words: not compared */
        if (s && s->ok) *n_seg += 1;
        else *n_off += 1;
        k++;
        nk = ncmd = 0;
        bad = false;
    }
    if (ok && k != sg->n) {
        fprintf(stderr, "%zu segments noted, %zu in the stream\n", sg->n, k);
        ok = false;
    }
    free(cmds);
    return ok;
}

static void one(const char *rel, eu_variant v, const char *vname)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    if (cc_compile_shared(rel, v, &tm, &g, &cm)) {
        eu_segs sg;
        memset(&sg, 0, sizeof sg);
        int hw = 0, same = 0, n_seg = 0, n_off = 0;
        /* the estimate's limits, and small ones (NPUC_SEGS_LIMITS: how
         * many of the three) */
        static const uint32_t lim[][2] = {{48, 192}, {6, 8}, {2, 3}};
        long nl = env_long("NPUC_SEGS_LIMITS", 3);
        for (int32_t i = 0; i < cm->n_epochs; i++) {
            cc_epoch *e = &cm->epochs[i];
            if (e->kind != CC_EPOCH_HW) continue;
            for (long l = 0; l < nl && l < 3; l++, hw++)
                same += same_segs(cm, e, &sg, lim[l][0], lim[l][1], &n_seg, &n_off);
        }
        printf("%s %s: %d of %d streams noted as scanned (%d segments, %d given up on)\n", rel, vname, same, hw,
               n_seg, n_off);
        CHECK(hw > 0);
        CHECK_EQ_INT(same, hw);
        CHECK(n_seg > 0);
        CHECK(n_off > 0 || nl < 2);
        free(sg.seg);
        free(sg.kw);
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    roles();
    one("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128");
    one("models/tflm/person_detect.tflite", EU_U65_512, "ethos-u65-512");
    one("models/zoo/armkws_ds_cnn_l_int8.tflite", EU_U55_32, "ethos-u55-32");
    one("models/zoo/tflm_id_model.tflite", EU_U55_256, "ethos-u55-256");
    one("models/zoo/armkws_basic_lstm_s_int8.tflite", EU_U65_256, "ethos-u65-256");
    one("models/tflm/micro_speech_quantized.tflite", EU_U55_64, "ethos-u55-64");
    TEST_MAIN_END();
}
