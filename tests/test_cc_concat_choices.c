/* The in-place concatenations as choices (src/compiler/cc_concat.c
 * cc_concat_apply, the CC_SCHED_CONCAT part of cc_sched): the rewrite of
 * the program is a function of the lowered program and the (op, input)
 * pairs chosen.
 *
 * On hand-built programs (CONCATENATION of conv outputs, some inputs raw
 * copies, one a graph input) and on models of the shared folder (skipped
 * when absent), for ethos-u55-128 and ethos-u65-256:
 *  - on the lowered program alone (cc_lower, no other pass): the pass's
 *    choices (CC_CONCAT_AUTO and ALL), applied to the lowered program put
 *    back, give the program the pass left field by field (op lists, op
 *    records, buf_of, buffers once allocated); applied twice (lowered
 *    program, choices, lowered program, choices) the same; the empty
 *    choice set leaves the lowered program; the model's own choices
 *    applied again change nothing; a choice that does not apply (a
 *    non-concatenation op, an input given twice, a graph input) and choices
 *    that do not extend the model's are refused with NPUC_E_INVALID;
 *  - through the whole compiler: the choices of a compile, given to a
 *    fresh compile (cc_options.concat_given), give the same command streams and
 *    flash byte for byte and the same choices; the empty set gives those of
 *    CC_CONCAT_OFF. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>

#include "cc_test_npu.h"
#include "cc_sched_test.h"

/* The choices as a CC_SCHED_CONCAT schedule of m's graph. */
static void choices(const cc_model *m, const cc_concat_in *c, int32_t n, cc_sched *s)
{
    npuc_err e = {0};
    CHECK(cc_sched_take(m, CC_SCHED_CONCAT, s, &e) == NPUC_OK);
    cc_concat_in *q = realloc(s->concat_in, sizeof *q * (size_t)(n + 1));
    CHECK(q != NULL);
    if (!q) return;
    s->concat_in = q;
    s->cap_concat_in = n + 1;
    if (n) memcpy(q, c, sizeof *c * (size_t)n);
    s->n_concat_in = n;
}

/* The pass on the lowered program against its choices applied back. */
static int32_t on_lowered(const char *cs, const graph *g, eu_variant v, cc_concat_mode mode)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.concat = mode;
    cc_model *m = lowered(cs, g, v, opt);
    if (!m) return -1;
    npuc_err e = {0};
    cc_sched p0 = {0}, p1 = {0}, c = {0}, none = {0}, x = {0};
    CHECK(cc_sched_take(m, CC_SCHED_PROGRAM, &p0, &e) == NPUC_OK);
    CHECK(p0.parts == (CC_SCHED_PROGRAM | CC_SCHED_BUFS | CC_SCHED_CONCAT | CC_SCHED_CASCADE) && p0.n_concat_in == 0);
    CHECK(cc_concat_place(m, &e) == NPUC_OK);
    int32_t n = m->n_concat_in;
    alloc(m);
    CHECK(cc_sched_take(m, CC_SCHED_PROGRAM, &p1, &e) == NPUC_OK);
    CHECK(cc_sched_take(m, CC_SCHED_CONCAT, &c, &e) == NPUC_OK && c.n_concat_in == n);
    /* the model's own choices again: nothing changes */
    CHECK(cc_sched_apply(m, &c, &e) == NPUC_OK && cc_sched_matches(m, &p1));
    /* back to the lowered program; the empty set leaves it */
    CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK && m->n_concat_in == 0);
    alloc(m);
    CHECK(cc_sched_take(m, CC_SCHED_PROGRAM, &p0, &e) == NPUC_OK);
    CHECK(cc_sched_take(m, CC_SCHED_CONCAT, &none, &e) == NPUC_OK && none.n_concat_in == 0);
    CHECK(cc_sched_apply(m, &none, &e) == NPUC_OK);
    alloc(m);
    CHECK(cc_sched_matches(m, &p0));
    /* the choices applied to the lowered program, twice */
    for (int pass = 0; pass < 2; pass++) {
        CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK);
        int rc = cc_sched_apply(m, &c, &e);
        CHECK(rc == NPUC_OK);
        if (rc) fprintf(stderr, "FAIL %s: %s\n", cs, e.msg);
        alloc(m);
        CHECK(cc_sched_matches(m, &p1));
        CHECK(m->n_concat_in == n && (!n || !memcmp(m->concat_in, c.concat_in, sizeof *c.concat_in * (size_t)n)));
    }
    /* choices that do not extend the model's: refused, nothing changed */
    npuc_err e2 = {0};
    if (n) {
        CHECK(cc_sched_apply(m, &none, &e2) == NPUC_E_INVALID);
        CHECK(cc_sched_matches(m, &p1));
        cc_concat_in other = c.concat_in[n - 1];
        other.in = other.in ? 0 : 1;
        choices(m, &other, 1, &x);
        CHECK(cc_sched_apply(m, &x, &e2) == NPUC_E_INVALID);
        CHECK(cc_sched_matches(m, &p1));
    }
    /* choices that do not apply */
    CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK);
    int32_t conv = -1, cat = -1;
    for (int32_t i = 0; i < g->n_ops; i++) {
        if (g->ops[i].opcode == TFL_OP_CONCATENATION && cat < 0) cat = i;
        if (g->ops[i].opcode != TFL_OP_CONCATENATION && conv < 0) conv = i;
    }
    cc_concat_in bad[2] = {{conv, 0}, {cat, 0}};
    if (conv >= 0) {
        choices(m, bad, 1, &x);
        CHECK(cc_sched_apply(m, &x, &e2) == NPUC_E_INVALID && m->n_concat_in == 0);
    }
    if (n) {
        cc_concat_in twice[2] = {c.concat_in[0], c.concat_in[0]};
        choices(m, twice, 2, &x);
        CHECK(cc_sched_apply(m, &x, &e2) == NPUC_E_INVALID);
        CHECK(m->n_concat_in == 1);   /* the first stays applied */
        printf("%s: an input chosen twice: %s\n", cs, e2.msg);
    }
    /* an input that is a graph input keeps its copy */
    for (int32_t i = 0; cat >= 0 && i < g->ops[cat].n_in; i++)
        for (int32_t j = 0; j < g->n_inputs; j++)
            if (g->ops[cat].in[i] == g->inputs[j]) {
                CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK);
                cc_concat_in gi = {cat, i};
                choices(m, &gi, 1, &x);
                CHECK(cc_sched_apply(m, &x, &e2) == NPUC_E_INVALID && m->n_concat_in == 0);
                CHECK(cc_sched_matches(m, &p0));
                printf("%s: a graph input chosen: %s\n", cs, e2.msg);
            }
    printf("%s, %s: %d inputs in place, applied to the lowered program: the pass's program\n", cs,
           mode == CC_CONCAT_ALL ? "ALL" : "AUTO", (int)n);
    cc_sched_free(&p0);
    cc_sched_free(&p1);
    cc_sched_free(&c);
    cc_sched_free(&none);
    cc_sched_free(&x);
    cc_model_free(m);
    return n;
}

/* Through the compiler: a compile's choices given to a fresh one. */
static void given(const char *cs, const graph *g, eu_variant v, cc_concat_mode mode)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.concat = mode;
    cc_model *a = NULL, *b = NULL, *off = NULL;
    if (!cc_check_compile(cs, g, v, opt, &a)) {
        CHECK(0);
        return;
    }
    opt.concat_given = true;
    opt.concat_in = a->concat_in;
    opt.n_concat_in = a->n_concat_in;
    streams sb = {0}, so = {0};
    if (cc_check_compile(cs, g, v, opt, &b)) {
        bool same = same_compiled(a, b) && b->n_concat_in == a->n_concat_in &&
                    (!a->n_concat_in ||
                     !memcmp(a->concat_in, b->concat_in, sizeof *a->concat_in * (size_t)a->n_concat_in));
        CHECK(same);
        printf("%s, %s: %d choices given to a fresh compile: %s\n", cs, mode == CC_CONCAT_ALL ? "ALL" : "AUTO",
               (int)a->n_concat_in, same ? "the same streams and flash" : "OTHER output");
    } else {
        CHECK(0);
    }
    /* none given: as with concat off */
    opt.concat_in = NULL;
    opt.n_concat_in = 0;   /* none given */
    cc_model_free(b);
    b = NULL;
    cc_options o2 = opt;
    o2.concat = CC_CONCAT_OFF;
    if (cc_check_compile(cs, g, v, opt, &b) && cc_check_compile(cs, g, v, o2, &off)) {
        CHECK(take_streams(b, &sb) && take_streams(off, &so));
        CHECK(sb.n == so.n && !memcmp(sb.b, so.b, so.n) && b->n_concat_in == 0);
    } else {
        CHECK(0);
    }
    free(sb.b);
    free(so.b);
    cc_model_free(a);
    cc_model_free(b);
    cc_model_free(off);
}

/* x [1,16,16,8] -> c1 -> c2, c1 -> c3; y = CONCATENATION([x,] c1, c2, c3)
 * on channels in c2's quantization: c2's copy is raw, c1's and c3's
 * rescale; with `with_x` the graph input x is an input too (never written
 * in place). */
static graph *hand_built(uint64_t seed, bool with_x)
{
    int32_t shape[4] = {1, 16, 16, 8};
    int32_t x;
    tfl_options opt;
    graph *g = sched_graph("concat_choices", shape, &x, &opt);
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    float sx = SCHED_X_SCALE;
    bool ok = true;
    int32_t ws[4] = {16, 3, 3, 8}, os[4] = {1, 16, 16, 16};
    int32_t c1 = ok ? cc_rand_conv(g, &r, x, sx, GRAPH_I8, false, ws, os, &opt, "c1") : -1;
    ws[3] = 16;
    const graph_tensor *t1 = c1 >= 0 ? &g->tensors[c1] : NULL;
    int32_t c2 = t1 ? cc_rand_conv(g, &r, c1, t1->q.scale[0], GRAPH_I8, false, ws, os, &opt, "c2") : -1;
    t1 = c1 >= 0 ? &g->tensors[c1] : NULL;
    int32_t c3 = c2 >= 0 ? cc_rand_conv(g, &r, c1, t1->q.scale[0], GRAPH_I8, false, ws, os, &opt, "c3") : -1;
    int32_t y = -1;
    if (c3 >= 0) {
        int32_t ins[4], n = 0;
        if (with_x) ins[n++] = x;
        ins[n++] = c1;
        ins[n++] = c2;
        ins[n++] = c3;
        int32_t ys[4] = {1, 16, 16, 16 * 3 + (with_x ? 8 : 0)};
        y = graph_add_tensor(g, "y", GRAPH_I8, 4, ys, NULL);
        /* in c2's quantization: c2's copy is raw, c1's and c3's rescale */
        float sy = g->tensors[c2].q.scale[0];
        int64_t zy = g->tensors[c2].q.zero_point[0];
        tfl_options co;
        memset(&co, 0, sizeof co);
        co.axis = 3;
        if (y < 0 || graph_set_quant(g, y, 1, &sy, &zy, 0) ||
            graph_add_op(g, TFL_OP_CONCATENATION, &co, n, ins, 1, &y) < 0)
            y = -1;
    }
    if (y < 0 || graph_set_io(g, 1, &x, 1, &y)) {
        graph_free(g);
        return NULL;
    }
    return g;
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
        if (g) {
            on_lowered(cs, g, v, CC_CONCAT_AUTO);
            on_lowered(cs, g, v, CC_CONCAT_ALL);
            given(cs, g, v, CC_CONCAT_AUTO);
            given(cs, g, v, CC_CONCAT_ALL);
        }
    }
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    const struct { eu_variant v; const char *name; } vs[] = {{EU_U55_128, "ethos-u55-128"},
                                                             {EU_U65_256, "ethos-u65-256"}};
    int32_t placed = 0;
    for (int i = 0; i < 2; i++)
        for (int with_x = 0; with_x < 2; with_x++) {
            graph *g = hand_built(7 + (uint64_t)with_x, with_x);
            CHECK(g != NULL);
            if (!g) continue;
            char cs[96];
            snprintf(cs, sizeof cs, "hand-built%s %s", with_x ? " (x an input)" : "", vs[i].name);
            on_lowered(cs, g, vs[i].v, CC_CONCAT_AUTO);
            int32_t n = on_lowered(cs, g, vs[i].v, CC_CONCAT_ALL);
            placed += n > 0;
            given(cs, g, vs[i].v, CC_CONCAT_AUTO);
            given(cs, g, vs[i].v, CC_CONCAT_ALL);
            graph_free(g);
        }
    CHECK(placed > 0);   /* the hand-built programs have inputs to place */
    shared("models/zoo/tflm_id_model.tflite", EU_U55_128, "ethos-u55-128");
    shared("models/zoo/tflm_id_model.tflite", EU_U65_256, "ethos-u65-256");
    shared("models/zoo/coral_movenet_lightning_ptq.tflite", EU_U55_128, "ethos-u55-128");
    shared("models/zoo/coral_movenet_lightning_ptq.tflite", EU_U65_256, "ethos-u65-256");
    TEST_MAIN_END();
}
