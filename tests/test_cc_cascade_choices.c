/* The cascades as choices (src/compiler/cc_cascade.c cc_cascade_apply, the
 * CC_SCHED_CASCADE part of cc_sched): the rewrite of the program into band
 * ops and rolling buffers is a function of the program the pass starts
 * from and the chains chosen, (head graph op, number of ops).
 *
 * On hand-built programs (a chain of 3x3 convs) and on models of the
 * shared folder (skipped when absent), for ethos-u55-128 and
 * ethos-u65-256:
 *  - on the program the pass starts from (cc_lower, cc_concat_place,
 *    cc_layout): the pass's choices (CC_CASCADE_AUTO and ALL), applied to
 *    that program put back, give the program the pass left field by field
 *    (op lists, op records, buf_of, buffers once allocated); twice the
 *    same; the empty choice set leaves the program; a chain that does not
 *    qualify (one op, a chain run past its epoch, no such op, a chain
 *    chosen twice) and choices that do not extend the model's are refused
 *    with NPUC_E_INVALID;
 *  - through the whole compiler: the choices of a compile, given to a
 *    fresh compile (cc_options.cascade_given), give the same command streams and
 *    flash byte for byte and the same choices; the empty set gives a
 *    program without cascades;
 *  - the band count is part of each choice: a compile with
 *    CC_CASCADE_BANDS_FINE bands records that count in every choice, and
 *    its choices given to a compile with the default count give its
 *    streams byte for byte; choices that leave the count to the model
 *    (0) take the compile's own, and a negative count is refused. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>

#include "cc_test_npu.h"
#include "cc_sched_test.h"

/* The choices as a CC_SCHED_CASCADE schedule of m's graph. */
static void choices(const cc_model *m, const cc_cascade_in *c, int32_t n, cc_sched *s)
{
    npuc_err e = {0};
    CHECK(cc_sched_take(m, CC_SCHED_CASCADE, s, &e) == NPUC_OK);
    cc_cascade_in *q = realloc(s->cascade_in, sizeof *q * (size_t)(n + 1));
    CHECK(q != NULL);
    if (!q) return;
    s->cascade_in = q;
    s->cap_cascade_in = n + 1;
    if (n) memcpy(q, c, sizeof *c * (size_t)n);
    s->n_cascade_in = n;
}

static const char *mode_name(cc_cascade_mode mode) { return mode == CC_CASCADE_ALL ? "ALL" : "AUTO"; }

/* The pass on the program it starts from against its choices applied back. */
static int32_t on_lowered(const char *cs, const graph *g, eu_variant v, cc_cascade_mode mode)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.cascade = mode;
    cc_model *m = lowered(cs, g, v, opt);
    if (!m) return -1;
    npuc_err e = {0};
    cc_sched p0 = {0}, p1 = {0}, c = {0}, none = {0}, x = {0};
    CHECK(cc_concat_place(m, &e) == NPUC_OK && cc_layout(m, &e) == NPUC_OK);
    alloc(m);
    CHECK(cc_sched_take(m, CC_SCHED_PROGRAM, &p0, &e) == NPUC_OK);
    CHECK((p0.parts & CC_SCHED_CASCADE) && p0.n_cascade_in == 0);
    int rc = cc_cascade(m, &e);
    CHECK(rc == NPUC_OK);
    if (rc) fprintf(stderr, "FAIL %s: cascade: %s\n", cs, e.msg);
    int32_t n = m->n_cascade_in, nb = m->n_bufs;
    alloc(m);
    CHECK(cc_sched_take(m, CC_SCHED_PROGRAM, &p1, &e) == NPUC_OK);
    CHECK(cc_sched_take(m, CC_SCHED_CASCADE, &c, &e) == NPUC_OK && c.n_cascade_in == n);
    /* the model's own choices again: nothing changes */
    CHECK(cc_sched_apply(m, &c, &e) == NPUC_OK && cc_sched_matches(m, &p1));
    /* back; the empty set leaves the program */
    CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK && m->n_cascade_in == 0 && m->n_bufs == p0.n_bufs);
    CHECK(cc_sched_take(m, CC_SCHED_CASCADE, &none, &e) == NPUC_OK && none.n_cascade_in == 0);
    CHECK(cc_sched_apply(m, &none, &e) == NPUC_OK);
    alloc(m);
    CHECK(cc_sched_matches(m, &p0));
    /* the choices applied, twice */
    for (int pass = 0; pass < 2; pass++) {
        CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK);
        rc = cc_sched_apply(m, &c, &e);
        CHECK(rc == NPUC_OK);
        if (rc) fprintf(stderr, "FAIL %s: %s\n", cs, e.msg);
        alloc(m);
        CHECK(m->n_bufs == nb && cc_sched_matches(m, &p1));
        CHECK(m->n_cascade_in == n &&
              (!n || !memcmp(m->cascade_in, c.cascade_in, sizeof *c.cascade_in * (size_t)n)));
    }
    npuc_err e2 = {0};
    if (n) {
        /* choices that do not extend the model's */
        CHECK(cc_sched_apply(m, &none, &e2) == NPUC_E_INVALID);
        CHECK(cc_sched_matches(m, &p1));
        /* chains that do not qualify, on the program put back */
        CHECK(cc_sched_apply(m, &p0, &e) == NPUC_OK);
        cc_cascade_in one = {c.cascade_in[0].head, 1, 0}, far = {c.cascade_in[0].head, 1000, 0},
                      none_op = {-1, 2, 0}, past = {g->n_ops, 2, 0}, twice[2] = {c.cascade_in[0], c.cascade_in[0]};
        const cc_cascade_in *tries[4] = {&one, &far, &none_op, &past};
        for (int i = 0; i < 4; i++) {
            choices(m, tries[i], 1, &x);
            CHECK(cc_sched_apply(m, &x, &e2) == NPUC_E_INVALID && m->n_cascade_in == 0);
            CHECK(cc_sched_matches(m, &p0));
        }
        choices(m, twice, 2, &x);
        CHECK(cc_sched_apply(m, &x, &e2) == NPUC_E_INVALID && m->n_cascade_in == 1);
        printf("%s: a chain chosen twice: %s\n", cs, e2.msg);
    }
    printf("%s, %s: %d chains, applied to the program the pass starts from: the pass's program\n", cs,
           mode_name(mode), (int)n);
    cc_sched_free(&p0);
    cc_sched_free(&p1);
    cc_sched_free(&c);
    cc_sched_free(&none);
    cc_sched_free(&x);
    cc_model_free(m);
    return n;
}

/* Through the compiler: a compile's choices given to a fresh one. */
static void given(const char *cs, const graph *g, eu_variant v, cc_cascade_mode mode, cc_optimise optimise)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.cascade = mode;
    opt.optimise = optimise;
    cc_model *a = NULL, *b = NULL;
    if (!cc_check_compile(cs, g, v, opt, &a)) {
        CHECK(0);
        return;
    }
    opt.cascade_given = true;
    opt.cascade_in = a->cascade_in;
    opt.n_cascade_in = a->n_cascade_in;
    if (cc_check_compile(cs, g, v, opt, &b)) {
        bool same = same_compiled(a, b) && b->n_cascade_in == a->n_cascade_in &&
                    (!a->n_cascade_in ||
                     !memcmp(a->cascade_in, b->cascade_in, sizeof *a->cascade_in * (size_t)a->n_cascade_in));
        CHECK(same);
        printf("%s, %s%s: %d chains given to a fresh compile: %s\n", cs, mode_name(mode),
               optimise == CC_OPT_SIZE ? ", --optimise size" : "", (int)a->n_cascade_in,
               same ? "the same streams and flash" : "OTHER output");
    } else {
        CHECK(0);
    }
    opt.cascade_in = NULL;
    opt.n_cascade_in = 0;   /* none given */
    cc_model_free(b);
    b = NULL;
    if (cc_check_compile(cs, g, v, opt, &b)) {
        CHECK(b->n_cascade_in == 0);
        for (int32_t i = 0; i < g->n_ops; i++) CHECK(b->ops[i].cascade < 0);
    } else {
        CHECK(0);
    }
    cc_model_free(a);
    cc_model_free(b);
}

/* The band count travels with the choices. True when the compile with
 * the finer bands differs from the one with the default count. */
static bool given_bands(const char *cs, const graph *g, eu_variant v)
{
    cc_options opt = {.cascade_bands = CC_CASCADE_BANDS_FINE};
    cc_model *a = NULL, *b = NULL, *c = NULL;
    bool compiled = cc_check_compile(cs, g, v, opt, &a);
    CHECK(compiled);
    if (!compiled) return false;
    int32_t n = a->n_cascade_in;
    for (int32_t i = 0; i < n; i++) CHECK(a->cascade_in[i].bands == CC_CASCADE_BANDS_FINE);
    opt.cascade_bands = 0;
    opt.cascade_given = true;
    opt.cascade_in = a->cascade_in;
    opt.n_cascade_in = n;
    bool same = false;
    if (cc_check_compile(cs, g, v, opt, &b)) {
        same = same_compiled(a, b) && b->n_cascade_in == n &&
               (!n || !memcmp(a->cascade_in, b->cascade_in, sizeof *a->cascade_in * (size_t)n));
        /* with no chain picked there is no band count to carry: "none
         * given" is another search than the finer bands' (its first
         * schedule has no cascades; person_detect ethos-u65-256 picks the
         * bigger chunks' schedule, 124,971 cycles, from the finer bands'
         * search and 117,886 from the one without cascades) */
        CHECK(same || n == 0);
        CHECK(b->n_cascade_in == n);
    } else {
        CHECK(0);
    }
    /* the count left to the model: the compile's own */
    cc_cascade_in *own = calloc((size_t)n + 1, sizeof *own);
    CHECK(own != NULL);
    for (int32_t i = 0; own && i < n; i++) own[i] = (cc_cascade_in){a->cascade_in[i].head, a->cascade_in[i].n, 0};
    opt.cascade_in = own;
    bool differ = false;
    if (own && cc_check_compile(cs, g, v, opt, &c)) {
        CHECK(c->n_cascade_in == n);
        for (int32_t i = 0; i < c->n_cascade_in; i++) CHECK(c->cascade_in[i].bands == CC_CASCADE_BANDS);
        differ = !same_compiled(a, c);
    } else {
        CHECK(0);
    }
    /* a negative count is no choice */
    if (own && n) {
        cc_model_free(c);
        c = NULL;
        own[0].bands = -1;
        cc_model *d = NULL;
        npuc_err e = {0};
        CHECK(cc_compile_for(g, v, opt, &d, &e) == NPUC_E_INVALID);
        CHECK(d == NULL);
    }
    printf("%s: %d chains in %d bands given to a compile with %d: %s\n", cs, (int)n, CC_CASCADE_BANDS_FINE,
           CC_CASCADE_BANDS, same ? "the same streams and flash" : "OTHER output");
    free(own);
    cc_model_free(a);
    cc_model_free(b);
    cc_model_free(c);
    return differ;
}

/* x [1,32,32,8] -> four 3x3 convs (the second with stride 2), 16 channels:
 * a chain whose intermediates hold the arena's peak. */
static graph *hand_built(uint64_t seed)
{
    int32_t shape[4] = {1, 32, 32, 8};
    int32_t x;
    tfl_options opt;
    graph *g = sched_graph("cascade_choices", shape, &x, &opt);
    if (!g) return NULL;
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    float sx = SCHED_X_SCALE;
    bool ok = true;
    int32_t t = x, c = 8, hw = 32;
    float st = sx;
    for (int i = 0; ok && i < 4; i++) {
        int32_t s = i == 1 ? 2 : 1;
        opt.stride_w = opt.stride_h = s;
        hw = (hw + s - 1) / s;
        int32_t ws[4] = {16, 3, 3, c}, os[4] = {1, hw, hw, 16};
        char name[8];
        snprintf(name, sizeof name, "c%d", i);
        t = cc_rand_conv(g, &r, t, st, GRAPH_I8, false, ws, os, &opt, name);
        ok = t >= 0;
        if (ok) st = g->tensors[t].q.scale[0];
        c = 16;
    }
    if (!ok || graph_set_io(g, 1, &x, 1, &t)) {
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
            on_lowered(cs, g, v, CC_CASCADE_AUTO);
            on_lowered(cs, g, v, CC_CASCADE_ALL);
            given(cs, g, v, CC_CASCADE_AUTO, CC_OPT_PERFORMANCE);
            given(cs, g, v, CC_CASCADE_AUTO, CC_OPT_SIZE);
            given(cs, g, v, CC_CASCADE_ALL, CC_OPT_PERFORMANCE);
            (void)given_bands(cs, g, v);
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
    int32_t chains = 0;
    graph *g = hand_built(11);
    CHECK(g != NULL);
    for (int i = 0; g && i < 2; i++) {
        char cs[96];
        snprintf(cs, sizeof cs, "hand-built %s", vs[i].name);
        on_lowered(cs, g, vs[i].v, CC_CASCADE_AUTO);
        int32_t n = on_lowered(cs, g, vs[i].v, CC_CASCADE_ALL);
        chains += n > 0;
        given(cs, g, vs[i].v, CC_CASCADE_AUTO, CC_OPT_PERFORMANCE);
        given(cs, g, vs[i].v, CC_CASCADE_ALL, CC_OPT_PERFORMANCE);
        /* where AUTO cascades the chain, ten bands are another program */
        bool differ = given_bands(cs, g, vs[i].v);
        if (vs[i].v == EU_U55_128) CHECK(differ);
    }
    graph_free(g);
    CHECK(chains > 0);   /* the hand-built program has a chain to cascade */
    shared("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128");
    shared("models/tflm/person_detect.tflite", EU_U65_256, "ethos-u65-256");
    shared("models/zoo/tflm_retinaface.tflite", EU_U65_256, "ethos-u65-256");
    shared("models/zoo/coral_movenet_lightning_ptq.tflite", EU_U55_128, "ethos-u55-128");
    TEST_MAIN_END();
}
