/* Staged inputs (lower.c, stage_input): on an Ethos-U65-256 with its
 * default system (Ethos_U65_High_End:Dedicated_Sram: the arena in DRAM, a
 * 384 KiB SRAM fast pool), a conv whose IFM is a graph input (it stays in
 * the arena) and re-reads it block by block gets a raw copy of that input
 * into a temp in front of it, and reads the temp from the fast pool.
 *
 * A 1x1 pool (a strided copy: a TRANSPOSE) that reads such a map in short
 * bursts is staged too, where the copy pays for itself four times over.
 *
 * On the shared folder's person_detect (96x96x1 input, a 3x3 stride-2
 * conv), micro_speech_quantized (49x40x1, a 10x8 conv) and
 * tflm_mobilenet_v2_pytorch_int8 (a [1,3,224,224] input, TRANSPOSE),
 * skipped when the folder is absent:
 *  - u65-256: one NPU op reads the input's buffer: a copy (POOL or
 *    ELEMENTWISE, no weights) of the whole buffer into a temp of its size
 *    the fast pool holds; the op after it, a CONV / DEPTHWISE / POOL of
 *    the same graph op, reads the temp; fewer NPU cycles than with the
 *    staging off (cc_options.no_stage), where the op reads the input
 *    itself and writes no temp; the first two compiled models bit-exact
 *    with the reference interpreter (4 random draws);
 *  - with the staging off and on u55-256 (no fast pool): no op starts
 *    with such a copy (cc_staged_copies, cc_test_npu.h). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

static int checked = 0;

/* The NPU ops of cm that read buffer b (IFM or IFM2): their count, the
 * first in *ep / *k. */
static int readers(const cc_model *cm, int32_t b, int32_t *ep, int32_t *k)
{
    int n = 0;
    for (int32_t e = 0; e < cm->n_epochs; e++) {
        const cc_epoch *x = &cm->epochs[e];
        if (x->kind != CC_EPOCH_HW) continue;
        for (int32_t j = 0; j < x->n_eu; j++) {
            const eu_op *o = &x->ops[j];
            if (o->ifm.buf != b && !(o->ifm2_tensor && o->ifm2.buf == b)) continue;
            if (!n++) *ep = e, *k = j;
        }
    }
    return n;
}

static void model_case(const char *rel, int draws)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (loaded <= 0) {
        CHECK(loaded == 0);
        tfl_model_free(tm);
        return;
    }
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *st = NULL, *off = NULL, *u55 = NULL;
    bool ok = cc_check_compile(rel, g, EU_U65_256, opt, &st);
    cc_options o2 = opt;
    o2.no_stage = true;
    ok = ok && cc_check_compile(rel, g, EU_U65_256, o2, &off);
    ok = ok && cc_check_compile(rel, g, EU_U55_256, opt, &u55);
    CHECK(ok);
    if (ok) {
        int32_t in = g->inputs[0];
        /* staged: the copy, then the conv on the temp */
        int32_t b = st->buf_of[in], e = -1, k = -1;
        CHECK_EQ_INT(readers(st, b, &e, &k), 1);
        if (e >= 0) {
            const cc_epoch *x = &st->epochs[e];
            const eu_op *cp = &x->ops[k];
            CHECK(cp->kind == SIM_K_POOL || cp->kind == SIM_K_ELEMENTWISE);
            CHECK(cp->wbuf < 0 && cp->ofm.buf >= 0);
            const cc_buf *t = cp->ofm.buf >= 0 ? &st->bufs[cp->ofm.buf] : NULL;
            CHECK(t && t->temp && t->pool == CC_IN_FAST && t->size == st->bufs[b].size);
            CHECK((uint64_t)cp->ofm.h * cp->ofm.w * cp->ofm.c == st->bufs[b].size);
            CHECK(k + 1 < x->n_eu);
            if (k + 1 < x->n_eu) {
                const eu_op *cv = &x->ops[k + 1];
                CHECK(cv->kind == SIM_K_CONV || cv->kind == SIM_K_DEPTHWISE || cv->kind == SIM_K_POOL);
                CHECK_EQ_INT(cv->ifm.buf, cp->ofm.buf);
                CHECK_EQ_INT(cv->src_op, cp->src_op);
            }
        }
        CHECK(st->npu_cycles < off->npu_cycles);
        printf("%s: staged %llu NPU cycles, %llu B fast pool; not staged %llu, %llu B\n", rel,
               (unsigned long long)st->npu_cycles, (unsigned long long)st->fast_size,
               (unsigned long long)off->npu_cycles, (unsigned long long)off->fast_size);
        /* not staged, and with no fast pool: no op starts with such a copy */
        int n_off = 0, n_u55 = 0;
        for (int32_t i = 0; i < off->g->n_ops; i++) n_off += cc_staged_copies(off, i);
        for (int32_t i = 0; i < u55->g->n_ops; i++) n_u55 += cc_staged_copies(u55, i);
        CHECK_EQ_INT(n_off, 0);
        CHECK_EQ_INT(n_u55, 0);
        /* staged: the op reading the input starts with it */
        if (e >= 0) CHECK_EQ_INT(cc_staged_copies(st, st->epochs[e].ops[k].src_op), 1);
        if (draws) {
            cc_draws d = {.n_draws = draws, .seed = 7, .fill = cc_fill_bytes};
            CHECK(cc_check_draws(rel, g, st, EU_U65_256, &d));
        }
        checked++;
    }
    cc_model_free(st);
    cc_model_free(off);
    cc_model_free(u55);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    model_case("models/tflm/person_detect.tflite", 4);
    model_case("models/tflm/micro_speech_quantized.tflite", 4);
    model_case("models/zoo/tflm_mobilenet_v2_pytorch_int8.tflite", 0);
    printf("%d models checked\n", checked);
    TEST_MAIN_END();
}
