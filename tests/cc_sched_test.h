/* Shared by the schedule tests (test_cc_sched_value, test_cc_concat_choices,
 * test_cc_cascade_choices): the command streams and flash of a model as
 * one byte string, a graph lowered alone, and a placement whatever the
 * pools' sizes. Include after test.h and cc.h. */
#ifndef CC_SCHED_TEST_H
#define CC_SCHED_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The command streams and flash of every HW epoch, concatenated. */
typedef struct streams { uint8_t *b; size_t n; } streams;

static inline bool take_streams(const cc_model *m, streams *s)
{
    s->n = 0;
    for (int32_t i = 0; i < m->n_epochs; i++)
        if (m->epochs[i].kind == CC_EPOCH_HW)
            s->n += (size_t)m->epochs[i].payload_size + (size_t)m->epochs[i].flash_size + 16;
    s->b = malloc(s->n + 1);
    if (!s->b) return false;
    size_t o = 0;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW) continue;
        uint64_t hdr[2] = {e->payload_size, e->flash_size};
        memcpy(s->b + o, hdr, sizeof hdr);
        o += sizeof hdr;
        if (e->payload_size) memcpy(s->b + o, e->payload, (size_t)e->payload_size);
        o += (size_t)e->payload_size;
        if (e->flash_size) memcpy(s->b + o, e->flash, (size_t)e->flash_size);
        o += (size_t)e->flash_size;
    }
    s->n = o;
    return true;
}

/* g lowered for v (cc_lower alone: no fold, no reordering) with the weight
 * cache wc (NULL: none; not the model's: m->wcache is cleared before the
 * model is freed), NULL on a failure (printed). */
static inline cc_model *lowered_with(const char *cs, const graph *g, eu_variant v, cc_options opt,
                                     struct eu_wcache *wc)
{
    npuc_err e = {0};
    cc_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    opt.no_fold = opt.no_order = true;
    m->g = m->src = g;
    m->qfold_off = true;
    m->wcache = wc;
    m->ops = calloc((size_t)g->n_ops + 1, sizeof *m->ops);
    m->buf_of = calloc((size_t)g->n_tensors + 1, sizeof *m->buf_of);
    int rc = m->ops && m->buf_of ? target_default(v, &opt.sys, &e) : NPUC_E_NOMEM;
    m->opt = opt;
    for (int32_t i = 0; !rc && i < g->n_ops; i++)
        m->ops[i].epoch = m->ops[i].cascade = m->ops[i].fused_into = m->ops[i].folded_into = -1;
    if (!rc) rc = cc_lower(m, &e);
    if (rc) {
        fprintf(stderr, "FAIL %s: lowering: %s\n", cs, e.msg);
        CHECK(0);
        m->wcache = NULL;
        cc_model_free(m);
        return NULL;
    }
    return m;
}

/* lowered_with no weight cache. */
static inline cc_model *lowered(const char *cs, const graph *g, eu_variant v, cc_options opt)
{
    return lowered_with(cs, g, v, opt, NULL);
}

/* Places m's buffers (a pool too small is no matter here). */
static inline void alloc(cc_model *m)
{
    npuc_err e = {0};
    int rc = cc_allocate(m, &e);
    CHECK(rc == NPUC_OK || rc == NPUC_E_UNSUPPORTED);
}

static inline bool same_streams(const streams *a, const streams *b)
{
    return a->n == b->n && !memcmp(a->b, b->b, a->n);
}

/* Whether b compiled to a's command streams, flash and pool sizes. */
static inline bool same_compiled(const cc_model *a, const cc_model *b)
{
    streams sa = {0}, sb = {0};
    bool taken = take_streams(a, &sa) && take_streams(b, &sb);
    CHECK(taken);
    bool same = taken && same_streams(&sa, &sb) && a->flash_size == b->flash_size &&
                a->arena_size == b->arena_size && a->fast_size == b->fast_size;
    free(sa.b);
    free(sb.b);
    return same;
}

/* The input scale of the tests' hand-built graphs. */
#define SCHED_X_SCALE 0.05f

/* The start of the tests' hand-built chains: graph `name` with an int8
 * input x of `shape` (scale SCHED_X_SCALE, zero point 3) in *x, and conv
 * options SAME, stride 1, dilation 1 in *opt. NULL on a failure. */
static inline graph *sched_graph(const char *name, const int32_t shape[4], int32_t *x, tfl_options *opt)
{
    graph *g = graph_new(name);
    if (!g) return NULL;
    float sx = SCHED_X_SCALE;
    int64_t zx = 3;
    *x = graph_add_tensor(g, "x", GRAPH_I8, 4, shape, NULL);
    if (*x < 0 || graph_set_quant(g, *x, 1, &sx, &zx, 0)) {
        graph_free(g);
        return NULL;
    }
    memset(opt, 0, sizeof *opt);
    opt->padding = TFL_PAD_SAME;
    opt->stride_w = opt->stride_h = 1;
    opt->dilation_w = opt->dilation_h = 1;
    return g;
}

#endif
