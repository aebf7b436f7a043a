/* eu_generate keeps the register operands it works out while the schedule
 * search runs (m->gen set: m->eu_memo, src/compiler/ethosu/eu_gen.c): the
 * multi-field registers' operands by slot and key, the one-field ones'
 * value fields. None may change a byte: on models of the shared folder
 * (each skipped when absent), over many random schedule changes of the
 * compiled model (buffers moved between places and pools, weight copies
 * dropped, restored and their DMAs moved, op fields a search or a
 * lowering may set otherwise, earlier states taken back), every HW epoch
 * generated with the memo kept from one change to the next has the stream
 * and DMA list generated without it. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_test_npu.h"

static uint32_t rnd(uint32_t *r)
{
    *r = *r * 1103515245u + 12345u;
    return *r >> 8;
}

/* Epoch e generated with m's memo (kept) and without one: the same
 * payload and DMA list. */
static bool same_both_ways(cc_model *m, cc_epoch *e)
{
    npuc_err err = {0};
    if (eu_generate(m, e, &err)) {
        fprintf(stderr, "generate (memo): %s\n", err.msg);
        return false;
    }
    uint64_t n = e->payload_size;
    uint8_t *a = malloc(n + 1);
    int32_t nd = e->n_dma, *da = malloc(sizeof *da * ((size_t)nd + 1));
    if (!a || !da) {
        free(a);
        free(da);
        return false;
    }
    memcpy(a, e->payload, n);
    memcpy(da, e->dma_op, sizeof *da * (size_t)nd);
    struct cc_gencache *gen = m->gen;
    struct eu_genmemo *memo = m->eu_memo;
    m->gen = NULL;
    m->eu_memo = NULL;
    int rc = eu_generate(m, e, &err);
    m->gen = gen;
    m->eu_memo = memo;
    bool ok = !rc && e->payload_size == n && !memcmp(a, e->payload, n) && e->n_dma == nd &&
              !memcmp(da, e->dma_op, sizeof *da * (size_t)nd);
    if (!ok) fprintf(stderr, "stream differs: %llu bytes with the memo, %llu without (rc %d)\n",
                     (unsigned long long)n, (unsigned long long)e->payload_size, rc);
    free(a);
    free(da);
    return ok;
}

/* One random change to the generation's inputs of HW epoch e. */
static void change(cc_model *m, cc_epoch *e, const int32_t *wbuf0, uint32_t *r)
{
    int32_t k = (int32_t)(rnd(r) % (uint32_t)e->n_eu);
    eu_op *o = &e->ops[k];
    const int32_t use[4] = {o->ifm.buf, o->ifm2.buf, o->ofm.buf, o->wbuf};
    int32_t b = use[rnd(r) % 4];
    switch (rnd(r) % 12) {
    case 0: case 1: case 2:   /* a buffer moved */
        if (b >= 0) m->bufs[b].offset = (int64_t)(16 * (rnd(r) % 4096));
        break;
    case 3:                   /* to the other pool */
        if (b >= 0) m->bufs[b].pool = m->bufs[b].pool == CC_IN_FAST ? CC_IN_ARENA : CC_IN_FAST;
        break;
    case 4:                   /* a weight copy's DMA issued elsewhere */
        if (o->wbuf >= 0) m->bufs[o->wbuf].eu_first = (int32_t)(rnd(r) % (uint32_t)(k + 1));
        break;
    case 5:                   /* a weight copy dropped or taken back */
        o->wbuf = o->wbuf >= 0 ? -1 : wbuf0[k];
        break;
    case 6:                   /* a copy of the scale records only, or the whole */
        if (o->wbuf >= 0)
            m->bufs[o->wbuf].size = m->bufs[o->wbuf].size == eu_wcopy_w_at(o) ? eu_wcopy_w_at(o) + o->w_len
                                                                          : eu_wcopy_w_at(o);
        break;
    case 7:                   /* block config */
        o->blk.h = 1 + rnd(r) % 16;
        o->blk.d = 16 * (1 + rnd(r) % 4);
        o->blk.ab_start = rnd(r) % 32;
        break;
    case 8:                   /* multi-field registers' inputs */
        o->stride_x = (uint8_t)(1 + rnd(r) % 3);
        o->pkf = (rnd(r) & 1) != 0;
        o->act_clip = (uint8_t)(rnd(r) % 2 ? EU_CLIP_OFM : EU_CLIP_INT8);
        o->round = (uint8_t)(rnd(r) % 3);
        break;
    case 9:
        o->ifm.is_signed = (rnd(r) & 1) != 0;
        o->ofm_scale = rnd(r);
        o->ofm_shift = (uint8_t)(rnd(r) % 40);
        o->bcast_h = (rnd(r) & 1) != 0;
        break;
    case 10:                  /* one-field registers' inputs */
        o->act_min = (int32_t)(rnd(r) % 256) - 128;
        o->ifm.zp = (int32_t)(rnd(r) % 256) - 128;
        o->ofm.w = 1 + rnd(r) % 64;
        break;
    default:                  /* nothing: the same stream again */
        break;
    }
}

static void one(const char *rel, eu_variant v, const char *vname, int trials)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    if (cc_compile_shared(rel, v, &tm, &g, &cm)) {
        /* the search's caches on, as while it runs (the memo kept) */
        cm->gen = cc_gencache_new();
        CHECK(cm->gen != NULL);
        uint32_t r = 20261127u;
        int same = 0, n = 0;
        for (int32_t i = 0; cm->gen && i < cm->n_epochs; i++) {
            cc_epoch *e = &cm->epochs[i];
            if (e->kind != CC_EPOCH_HW || !e->n_eu) continue;
            size_t ob = sizeof *e->ops * (size_t)e->n_eu, bb = sizeof *cm->bufs * (size_t)cm->n_bufs;
            eu_op *ops0 = malloc(ob);
            cc_buf *bufs0 = malloc(bb + 1);
            int32_t *wbuf0 = malloc(sizeof *wbuf0 * (size_t)e->n_eu);
            CHECK(ops0 && bufs0 && wbuf0);
            if (!ops0 || !bufs0 || !wbuf0) break;
            memcpy(ops0, e->ops, ob);
            memcpy(bufs0, cm->bufs, bb);
            for (int32_t k = 0; k < e->n_eu; k++) wbuf0[k] = e->ops[k].wbuf;
            for (int t = 0; t < trials; t++, n++) {
                if (rnd(&r) % 16 == 0) {
                    /* an earlier plan taken back */
                    memcpy(e->ops, ops0, ob);
                    memcpy(cm->bufs, bufs0, bb);
                }
                int nc = 1 + (int)(rnd(&r) % 3);
                for (int c = 0; c < nc; c++) change(cm, e, wbuf0, &r);
                same += same_both_ways(cm, e);
            }
            memcpy(e->ops, ops0, ob);
            memcpy(cm->bufs, bufs0, bb);
            free(ops0);
            free(bufs0);
            free(wbuf0);
        }
        printf("%s %s: %d of %d streams the same with the memo\n", rel, vname, same, n);
        CHECK(n > 0);
        CHECK_EQ_INT(same, n);
        cc_gencache_free(cm->gen);
        cm->gen = NULL;
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    int trials = (int)env_long("NPUC_MEMO_TRIALS", 300);
    one("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128", trials);
    one("models/tflm/person_detect.tflite", EU_U65_512, "ethos-u65-512", trials);
    one("models/zoo/armkws_ds_cnn_l_int8.tflite", EU_U55_32, "ethos-u55-32", trials);
    one("models/zoo/tflm_id_model.tflite", EU_U55_256, "ethos-u55-256", trials);
    one("models/zoo/tflm_retinaface.tflite", EU_U65_256, "ethos-u65-256", trials);
    one("models/tflm/micro_speech_quantized.tflite", EU_U55_64, "ethos-u55-64", trials);
    one("models/zoo/armkws_basic_lstm_s_int8.tflite", EU_U55_128, "ethos-u55-128", trials);
    TEST_MAIN_END();
}
