/* The schedule as a value (src/compiler/cc_sched.c, cc.h cc_sched): taken
 * from a model, copied, compared, applied back.
 *
 * On hand-built programs (a chain of three 3x3 CONV_2D on [1,24,24,16]
 * whose last two outputs are concatenated; compiled without cascades, on
 * ethos-u55-128 and on ethos-u65-256 with its fast pool) and on models of
 * the shared folder (each skipped when absent):
 *  - copy / compare: a copy equals its source and the model; a copy with
 *    one choice changed (a buffer's offset, a weight copy, an NPU op's
 *    block, an NPU op's feature map, an in-place concatenation input, a
 *    cascade's length) does not, and equals again once changed back; a
 *    PLACE schedule (compact: places and DMA issue points) differs from a
 *    BUFS one (whole records: a live range's end counts), and taken with
 *    both parts a schedule is BUFS;
 *  - restore: with the whole schedule taken, a pass that changes the
 *    placement (a weight copy dropped and the pools placed again; the
 *    prefetch planned with another headroom; every chain cascaded, which
 *    rewrites the op lists and adds rolling buffers) and the old schedule
 *    applied back give a model whose schedule matches the old one field by
 *    field and whose command streams, generated again, are those of
 *    before byte for byte;
 *  - with a fast pool, every op made to stream its weights, then the
 *    scale-record copies made (buffers added) and the blocks chosen again
 *    on the placement: the weights and buffers taken before (no program
 *    part) applied back drop the copies and give the streams of before;
 *    cut to drop a buffer a tensor names, the same schedule is refused;
 *  - refusal: a schedule of another model (another graph) or one without
 *    the program part applied to a model with another buffer count (after
 *    a cascade) is refused with NPUC_E_INVALID and changes nothing. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>

#include "cc_test_npu.h"
#include "cc_sched_test.h"

static const unsigned ALL =
    CC_SCHED_PROGRAM | CC_SCHED_BUFS | CC_SCHED_WEIGHTS | CC_SCHED_CONCAT | CC_SCHED_CASCADE;

/* The first NPU op with a weight copy: epoch and index, false none. */
static bool first_wcopy(const cc_model *m, int32_t *ei, int32_t *k)
{
    for (int32_t i = 0; i < m->n_epochs; i++)
        for (int32_t j = 0; m->epochs[i].kind == CC_EPOCH_HW && j < m->epochs[i].n_eu; j++)
            if (m->epochs[i].ops[j].wbuf >= 0) {
                *ei = i;
                *k = j;
                return true;
            }
    return false;
}

static void copy_compare(const char *cs, const cc_model *m)
{
    npuc_err e = {0};
    cc_sched a = {0}, b = {0}, p = {0}, q = {0};
    CHECK(cc_sched_take(m, ALL, &a, &e) == NPUC_OK);
    CHECK(a.parts == ALL && a.n_bufs == m->n_bufs);
    CHECK(cc_sched_copy(&b, &a, &e) == NPUC_OK);
    CHECK(cc_sched_equal(&a, &b) && cc_sched_equal(&b, &a));
    CHECK(cc_sched_matches(m, &a) && cc_sched_matches(m, &b));
    /* a copy into a schedule that already holds room */
    CHECK(cc_sched_copy(&b, &a, &e) == NPUC_OK && cc_sched_equal(&a, &b));
    int32_t bi = -1;
    for (int32_t i = 0; i < b.n_bufs && bi < 0; i++)
        if (b.bufs[i].size) bi = i;
    if (bi >= 0) {
        b.bufs[bi].offset += 16;
        CHECK(!cc_sched_equal(&a, &b) && !cc_sched_matches(m, &b));
        b.bufs[bi].offset -= 16;
        CHECK(cc_sched_equal(&a, &b));
    }
    if (b.n_eu_all > 0) {
        int32_t w = b.wbuf[0];
        b.wbuf[0] = w >= 0 ? -1 : 0;
        CHECK(!cc_sched_equal(&a, &b));
        b.wbuf[0] = w;
        b.blk[0].h++;
        CHECK(!cc_sched_equal(&a, &b));
        b.blk[0].h--;
        b.eu[0].ofm.off += 1;
        CHECK(!cc_sched_equal(&a, &b));
        b.eu[0].ofm.off -= 1;
        CHECK(cc_sched_equal(&a, &b));
    }
    if (b.n_concat_in > 0) {
        b.concat_in[0].in++;
        CHECK(!cc_sched_equal(&a, &b));
        b.concat_in[0].in--;
        CHECK(cc_sched_equal(&a, &b));
    }
    if (b.n_cascade_in > 0) {
        b.cascade_in[0].n++;
        CHECK(!cc_sched_equal(&a, &b));
        b.cascade_in[0].n--;
        CHECK(cc_sched_equal(&a, &b));
    }
    /* PLACE holds the places and DMA issue points only; BUFS whole
     * records; taken with both, a schedule is BUFS */
    CHECK(cc_sched_take(m, CC_SCHED_PLACE, &p, &e) == NPUC_OK);
    CHECK(cc_sched_take(m, CC_SCHED_BUFS, &q, &e) == NPUC_OK);
    CHECK(!cc_sched_equal(&p, &q) && !cc_sched_equal(&p, &a));
    CHECK(p.parts == CC_SCHED_PLACE && q.parts == CC_SCHED_BUFS);
    {
        cc_sched pq = {0};
        CHECK(cc_sched_take(m, CC_SCHED_PLACE | CC_SCHED_BUFS, &pq, &e) == NPUC_OK);
        CHECK(pq.parts == CC_SCHED_BUFS && cc_sched_equal(&pq, &q));
        cc_sched_free(&pq);
    }
    if (bi >= 0) {
        cc_sched p2 = {0}, q2 = {0};
        CHECK(cc_sched_copy(&p2, &p, &e) == NPUC_OK && cc_sched_copy(&q2, &q, &e) == NPUC_OK);
        q2.bufs[bi].last++;
        CHECK(!cc_sched_equal(&q, &q2));
        p2.place[bi].eu_first++;
        CHECK(!cc_sched_equal(&p, &p2));
        p2.place[bi].eu_first--;
        CHECK(cc_sched_equal(&p, &p2));
        cc_sched_free(&p2);
        cc_sched_free(&q2);
    }
    printf("%s: copy/compare on %d buffers, %d NPU ops\n", cs, (int)a.n_bufs, (int)a.n_eu_all);
    cc_sched_free(&a);
    cc_sched_free(&b);
    cc_sched_free(&p);
    cc_sched_free(&q);
}

/* After a pass changed m, applies s back and checks the schedule and the
 * streams generated again against s and s0. */
static void back(const char *cs, const char *what, cc_model *m, const cc_sched *s, const streams *s0, bool changed)
{
    npuc_err e = {0};
    streams s1 = {0};
    CHECK(cc_sched_apply(m, s, &e) == NPUC_OK);
    CHECK(cc_sched_matches(m, s));
    CHECK(cc_generate_all(m, &e) == NPUC_OK);
    CHECK(take_streams(m, &s1));
    bool same = same_streams(s0, &s1);
    CHECK(same);
    printf("%s: %s %s, applied back: %s\n", cs, what, changed ? "changed the schedule" : "left the schedule",
           same ? "the same streams" : "OTHER streams");
    free(s1.b);
}

static void restore(const char *cs, cc_model *m)
{
    npuc_err e = {0};
    streams s0 = {0};
    cc_sched s = {0}, place = {0};
    bool ok = cc_generate_all(m, &e) == NPUC_OK && take_streams(m, &s0);
    CHECK(ok);
    if (!ok) return;
    CHECK(cc_sched_take(m, ALL, &s, &e) == NPUC_OK);
    CHECK(cc_sched_take(m, CC_SCHED_PLACE, &place, &e) == NPUC_OK);
    int32_t ei, k;
    if (first_wcopy(m, &ei, &k)) {
        /* a weight copy dropped, the pools placed again */
        int32_t w = m->epochs[ei].ops[k].wbuf;
        m->bufs[w].size = 0;
        m->epochs[ei].ops[k].wbuf = -1;
        CHECK(cc_allocate(m, &e) == NPUC_OK);
        CHECK(cc_generate_all(m, &e) == NPUC_OK);
        CHECK(!cc_sched_matches(m, &s));
        back(cs, "a weight copy dropped", m, &s, &s0, true);
    }
    /* with a fast pool: every op streaming its weights, then the scale
     * records' copies made (new buffers) and the blocks chosen again on
     * the placement, as cc_prefetch weighs a point (later_figures); the
     * weights and buffers taken before (no program part) applied back drop
     * the copies made */
    if (cc_fast_bytes(&m->opt) && m->opt.optimise == CC_OPT_PERFORMANCE) {
        cc_sched s_all = {0}, wb = {0};
        streams s2 = {0};
        CHECK(cc_sched_take(m, ALL, &s_all, &e) == NPUC_OK);
        for (int32_t i = 0; i < m->n_epochs; i++)
            for (int32_t j = 0; m->epochs[i].kind == CC_EPOCH_HW && j < m->epochs[i].n_eu; j++) {
                eu_op *o = &m->epochs[i].ops[j];
                if (o->wbuf >= 0) m->bufs[o->wbuf].size = 0;
                o->wbuf = -1;
            }
        CHECK(cc_allocate(m, &e) == NPUC_OK);
        CHECK(cc_generate_all(m, &e) == NPUC_OK);
        CHECK(take_streams(m, &s2));
        CHECK(cc_sched_take(m, CC_SCHED_WEIGHTS | CC_SCHED_BUFS, &wb, &e) == NPUC_OK);
        int32_t nb = m->n_bufs;
        if (cc_reblock_placed(m)) CHECK(cc_generate_all(m, &e) == NPUC_OK);
        CHECK(cc_scale_copies(m, &e) == NPUC_OK);
        printf("%s: every op streaming, %d scale-record copies made\n", cs, (int)(m->n_bufs - nb));
        if (m->n_bufs > nb) {
            /* a schedule that would drop a buffer a tensor names is refused */
            cc_sched cut = {0};
            npuc_err e2 = {0};
            CHECK(cc_sched_copy(&cut, &wb, &e) == NPUC_OK);
            int32_t named = -1;
            for (int32_t t = 0; t < m->g->n_tensors; t++)
                if (m->buf_of[t] > named) named = m->buf_of[t];
            if (named >= 0) {
                cut.n_bufs = named;
                cc_sched now = {0};
                CHECK(cc_sched_take(m, ALL, &now, &e) == NPUC_OK);
                CHECK(cc_sched_apply(m, &cut, &e2) == NPUC_E_INVALID);
                CHECK(strstr(e2.msg, "would drop buffer") != NULL);
                CHECK(cc_sched_matches(m, &now));
                printf("%s: %s\n", cs, e2.msg);
                cc_sched_free(&now);
            }
            cc_sched_free(&cut);
        }
        back(cs, "the scale-record copies", m, &wb, &s2, m->n_bufs > nb);
        CHECK(m->n_bufs == nb);
        /* and the whole schedule back as it was */
        back(cs, "every op streaming", m, &s_all, &s0, true);
        cc_sched_free(&s_all);
        cc_sched_free(&wb);
        free(s2.b);
    }
    /* the prefetch planned with another headroom */
    if (m->opt.optimise == CC_OPT_PERFORMANCE) {
        int32_t hr = m->opt.prefetch_headroom;
        m->opt.prefetch_headroom = 200;
        CHECK(cc_prefetch(m, &e) == NPUC_OK);
        bool changed = !cc_sched_matches(m, &s);
        m->opt.prefetch_headroom = hr;
        back(cs, "the prefetch at 200% headroom", m, &s, &s0, changed);
    }
    /* every chain cascaded: the op lists rewritten, rolling buffers made */
    cc_cascade_mode cm = m->opt.cascade;
    m->opt.cascade = CC_CASCADE_ALL;
    int32_t nb = m->n_bufs;
    CHECK(cc_cascade(m, &e) == NPUC_OK);
    m->opt.cascade = cm;
    if (m->n_bufs > nb) {
        CHECK(cc_allocate(m, &e) == NPUC_OK);
        CHECK(!cc_sched_matches(m, &s));
        /* a schedule without the program part is refused: other buffers */
        cc_sched now = {0};
        CHECK(cc_sched_take(m, ALL, &now, &e) == NPUC_OK);
        npuc_err e2 = {0};
        CHECK(cc_sched_apply(m, &place, &e2) == NPUC_E_INVALID);
        CHECK(cc_sched_matches(m, &now));
        printf("%s: a PLACE schedule of %d buffers on %d: %s\n", cs, (int)nb, (int)m->n_bufs, e2.msg);
        cc_sched_free(&now);
        back(cs, "every chain cascaded", m, &s, &s0, true);
        CHECK(m->n_bufs == nb);
    } else {
        CHECK(cc_sched_matches(m, &s));
        printf("%s: no chain to cascade\n", cs);
    }
    cc_sched_free(&s);
    cc_sched_free(&place);
    free(s0.b);
}

/* A schedule of model a applied to model b (another graph) is refused and
 * leaves b as it was. */
static void refuse(const char *cs, cc_model *a, cc_model *b)
{
    npuc_err e = {0}, e2 = {0};
    cc_sched sa = {0}, sb = {0};
    CHECK(cc_sched_take(a, ALL, &sa, &e) == NPUC_OK);
    CHECK(cc_sched_take(b, ALL, &sb, &e) == NPUC_OK);
    CHECK(!cc_sched_equal(&sa, &sb));
    CHECK(cc_sched_apply(b, &sa, &e2) == NPUC_E_INVALID);
    CHECK(cc_sched_matches(b, &sb));
    printf("%s: another model's schedule refused: %s\n", cs, e2.msg);
    for (unsigned parts = CC_SCHED_PLACE; parts <= CC_SCHED_CASCADE; parts <<= 1) {
        npuc_err e3 = {0};
        cc_sched x = {0};
        CHECK(cc_sched_take(a, parts, &x, &e) == NPUC_OK);
        CHECK(cc_sched_apply(b, &x, &e3) == NPUC_E_INVALID);
        CHECK(cc_sched_matches(b, &sb));
        cc_sched_free(&x);
    }
    /* one of b's own with a buffer fewer: another buffer count */
    cc_sched x = {0};
    CHECK(cc_sched_take(b, CC_SCHED_BUFS, &x, &e) == NPUC_OK);
    x.n_bufs--;
    npuc_err e4 = {0};
    CHECK(cc_sched_apply(b, &x, &e4) == NPUC_E_INVALID);
    CHECK(strstr(e4.msg, "buffers") != NULL);
    CHECK(cc_sched_matches(b, &sb));
    cc_sched_free(&x);
    /* and a zeroed schedule holds nothing to apply */
    cc_sched none = {0};
    npuc_err e5 = {0};
    CHECK(cc_sched_apply(b, &none, &e5) == NPUC_E_INVALID);
    cc_sched_free(&sa);
    cc_sched_free(&sb);
}

/* x [1,24,24,16] -> c1 -> c2 -> c3, CONCATENATION(c2, c3) on channels;
 * c_oc output channels each (seed: the weights). */
static graph *hand_built(uint64_t seed, int32_t c_oc)
{
    int32_t shape[4] = {1, 24, 24, 16};
    int32_t x;
    tfl_options opt;
    graph *g = sched_graph("sched_value", shape, &x, &opt);
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    float sx = SCHED_X_SCALE;
    bool ok = true;
    int32_t ws[4] = {c_oc, 3, 3, 16}, os[4] = {1, 24, 24, c_oc};
    int32_t c1 = ok ? cc_rand_conv(g, &r, x, sx, GRAPH_I8, false, ws, os, &opt, "c1") : -1;
    ws[3] = c_oc;
    const graph_tensor *t1 = c1 >= 0 ? &g->tensors[c1] : NULL;
    int32_t c2 = t1 ? cc_rand_conv(g, &r, c1, t1->q.scale[0], GRAPH_I8, false, ws, os, &opt, "c2") : -1;
    const graph_tensor *t2 = c2 >= 0 ? &g->tensors[c2] : NULL;
    int32_t c3 = t2 ? cc_rand_conv(g, &r, c2, t2->q.scale[0], GRAPH_I8, false, ws, os, &opt, "c3") : -1;
    int32_t y = -1;
    if (c3 >= 0) {
        /* the concatenation in c2's quantization: c2's copy is raw */
        int32_t ys[4] = {1, 24, 24, 2 * c_oc};
        y = graph_add_tensor(g, "y", GRAPH_I8, 4, ys, NULL);
        float sy = g->tensors[c2].q.scale[0];
        int64_t zy = g->tensors[c2].q.zero_point[0];
        tfl_options co;
        memset(&co, 0, sizeof co);
        co.axis = 3;
        int32_t ins[2] = {c2, c3};
        if (y < 0 || graph_set_quant(g, y, 1, &sy, &zy, 0) ||
            graph_add_op(g, TFL_OP_CONCATENATION, &co, 2, ins, 1, &y) < 0)
            y = -1;
    }
    if (y < 0 || graph_set_io(g, 1, &x, 1, &y)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static void one_model(const char *cs, const graph *g, const graph *other, eu_variant v, cc_options opt)
{
    cc_model *m = NULL, *o = NULL;
    if (!cc_check_compile(cs, g, v, opt, &m)) return;
    copy_compare(cs, m);
    if (other && cc_check_compile(cs, other, v, opt, &o)) refuse(cs, m, o);
    restore(cs, m);
    cc_model_free(m);
    cc_model_free(o);
}

static void shared(const char *rel, eu_variant v, const char *vname)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (loaded) {
        CHECK(loaded > 0);
        char cs[256];
        snprintf(cs, sizeof cs, "%s %s", rel, vname);
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        if (g) one_model(cs, g, NULL, v, opt);
    }
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    graph *a = hand_built(1, 16), *b = hand_built(2, 8);
    CHECK(a && b);
    const struct { eu_variant v; const char *name; } vs[] = {{EU_U55_128, "ethos-u55-128"},
                                                             {EU_U65_256, "ethos-u65-256"}};
    for (int i = 0; a && b && i < 2; i++) {
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        opt.cascade = CC_CASCADE_OFF;
        char cs[64];
        snprintf(cs, sizeof cs, "hand-built %s", vs[i].name);
        one_model(cs, a, b, vs[i].v, opt);
        opt.concat = CC_CONCAT_ALL;
        snprintf(cs, sizeof cs, "hand-built %s, concat in place", vs[i].name);
        one_model(cs, a, b, vs[i].v, opt);
    }
    graph_free(a);
    graph_free(b);
    shared("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128");
    shared("models/tflm/person_detect.tflite", EU_U65_256, "ethos-u65-256");
    shared("models/zoo/armkws_ds_cnn_m_int8.tflite", EU_U55_256, "ethos-u55-256");
    shared("models/zoo/tflm_id_model.tflite", EU_U65_256, "ethos-u65-256");
    TEST_MAIN_END();
}
