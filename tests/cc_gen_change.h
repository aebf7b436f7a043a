/* Random changes to the inputs of an epoch's generation (buffers moved
 * between places and pools, weight copies dropped, restored and their DMAs
 * moved, op fields a search or a lowering may set otherwise), for the
 * tests of what eu_generate and cc_generate_all keep between calls
 * (test_eu_gen_memo.c, test_cc_gen_cache.c). Include after test.h and
 * cc_test_npu.h. */
#ifndef NPUC_CC_GEN_CHANGE_H
#define NPUC_CC_GEN_CHANGE_H

#include "../src/compiler/cc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint32_t rnd(uint32_t *r)
{
    *r = *r * 1103515245u + 12345u;
    return *r >> 8;
}

/* One random change to the generation's inputs of HW epoch e. */
static inline void change(cc_model *m, cc_epoch *e, const int32_t *wbuf0, uint32_t *r)
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

/* On each HW epoch of m: `trials` times 1 to 3 changes (an earlier plan,
 * the compiled one, taken back first one time in `back`), then same(m,
 * epoch index); m's epochs and buffers as they were after. Returns how
 * many were the same; *n: how many ran. */
static inline int gen_trials(cc_model *m, int trials, uint32_t seed, uint32_t back,
                             bool (*same)(cc_model *, int32_t), int *n)
{
    uint32_t r = seed;
    int k_same = 0;
    *n = 0;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW || !e->n_eu) continue;
        size_t ob = sizeof *e->ops * (size_t)e->n_eu, bb = sizeof *m->bufs * (size_t)m->n_bufs;
        eu_op *ops0 = malloc(ob);
        cc_buf *bufs0 = malloc(bb + 1);
        int32_t *wbuf0 = malloc(sizeof *wbuf0 * (size_t)e->n_eu);
        if (!ops0 || !bufs0 || !wbuf0) {
            free(ops0);
            free(bufs0);
            free(wbuf0);
            return -1;
        }
        memcpy(ops0, e->ops, ob);
        memcpy(bufs0, m->bufs, bb);
        for (int32_t k = 0; k < e->n_eu; k++) wbuf0[k] = e->ops[k].wbuf;
        for (int t = 0; t < trials; t++, (*n)++) {
            if (rnd(&r) % back == 0) {
                memcpy(e->ops, ops0, ob);
                memcpy(m->bufs, bufs0, bb);
            }
            int nc = 1 + (int)(rnd(&r) % 3);
            for (int c = 0; c < nc; c++) change(m, e, wbuf0, &r);
            k_same += same(m, i);
        }
        memcpy(e->ops, ops0, ob);
        memcpy(m->bufs, bufs0, bb);
        free(ops0);
        free(bufs0);
        free(wbuf0);
    }
    return k_same;
}

/* The shared model at rel compiled for v, the search's caches on (as while
 * it runs: m->gen), gen_trials run on it; prints how many of them were
 * the same (`what`: what is compared) and CHECKs that all were. */
static inline void gen_check(const char *rel, eu_variant v, const char *vname, int trials, uint32_t seed,
                             uint32_t back, bool (*same)(cc_model *, int32_t), const char *what)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    if (cc_compile_shared(rel, v, &tm, &g, &cm)) {
        cm->gen = cc_gencache_new();
        CHECK(cm->gen != NULL);
        int n = 0, k = cm->gen ? gen_trials(cm, trials, seed, back, same, &n) : -1;
        printf("%s %s: %d of %d %s\n", rel, vname, k, n, what);
        CHECK(n > 0);
        CHECK_EQ_INT(k, n);
        cc_gencache_free(cm->gen);
        cm->gen = NULL;
    }
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

#endif
