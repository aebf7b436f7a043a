/* genmodel: models with several subgraphs and resource variables (see
 * genmodel.h, docs/genmodel.md "Control flow and state"). */
#include "genmodel.h"

#include <stdio.h>
#include <string.h>

static int32_t q8(graph *g, const char *name, int32_t rank, const int32_t *shape, const void *data)
{
    int32_t t = graph_add_tensor(g, name, GRAPH_I8, rank, shape, data);
    const float s = 1.0f;
    const int64_t z = 0;
    if (t >= 0 && graph_set_quant(g, t, 1, &s, &z, 0)) return -1;
    return t;
}

static void draw(npuc_rng *r, uint64_t seed, int8_t *v, const int8_t *fixed, int32_t n)
{
    for (int32_t i = 0; i < n; i++) v[i] = seed ? (int8_t)npuc_rng_range(r, -128, 127) : fixed[i];
}

static int32_t var_handle(graph *g, const char *name, const char *tname)
{
    tfl_options o;
    tfl_options_default(&o);
    o.shared_name = npuc_arena_strdup(&g->arena, name);
    const int32_t one[1] = {1};
    int32_t r = graph_add_tensor(g, tname, GRAPH_RESOURCE, 0, one, NULL);
    if (r < 0 || !o.shared_name) return -1;
    return graph_add_op(g, TFL_OP_VAR_HANDLE, &o, 0, NULL, 1, &r) < 0 ? -1 : r;
}

static int counter(uint64_t seed, npuc_rng *rng, graph **subs)
{
    static const int8_t init_fixed[4] = {10, -20, 120, 0};
    int8_t init[4];
    draw(rng, seed, init, init_fixed, 4);
    const int32_t s4[2] = {1, 4}, s1[1] = {1};
    graph *g = subs[0], *ini = subs[1];
    tfl_options o;
    tfl_options_default(&o);
    /* subgraph 1: acc = init */
    int32_t r1 = var_handle(ini, "acc", "acc_handle");
    int32_t c = q8(ini, "acc_init", 2, s4, init);
    if (r1 < 0 || c < 0 || graph_add_op(ini, TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r1, c}, 0, NULL) < 0) return -1;
    if (graph_set_io(ini, 0, (const int32_t[]){0}, 0, (const int32_t[]){0})) return -1;
    /* subgraph 0 */
    int32_t x = q8(g, "x", 2, s4, NULL);
    o.init_subgraph = 1;
    if (x < 0 || graph_add_op(g, TFL_OP_CALL_ONCE, &o, 0, NULL, 0, NULL) < 0) return -1;
    tfl_options_default(&o);
    int32_t r = var_handle(g, "acc", "acc_handle");
    int32_t prev = q8(g, "acc_prev", 2, s4, NULL), sum = q8(g, "sum", 2, s4, NULL);
    if (r < 0 || prev < 0 || sum < 0) return -1;
    if (graph_add_op(g, TFL_OP_READ_VARIABLE, &o, 1, &r, 1, &prev) < 0) return -1;
    if (graph_add_op(g, TFL_OP_ADD, &o, 2, (int32_t[]){prev, x}, 1, &sum) < 0) return -1;
    if (graph_add_op(g, TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r, sum}, 0, NULL) < 0) return -1;
    const int32_t one = 1;
    int32_t rc_ = var_handle(g, "count", "count_handle");
    int32_t cprev = graph_add_tensor(g, "count_prev", GRAPH_I32, 1, s1, NULL);
    int32_t k1 = graph_add_tensor(g, "one", GRAPH_I32, 1, s1, &one);
    int32_t cnt = graph_add_tensor(g, "count", GRAPH_I32, 1, s1, NULL);
    if (rc_ < 0 || cprev < 0 || k1 < 0 || cnt < 0) return -1;
    if (graph_add_op(g, TFL_OP_READ_VARIABLE, &o, 1, &rc_, 1, &cprev) < 0) return -1;
    if (graph_add_op(g, TFL_OP_ADD, &o, 2, (int32_t[]){cprev, k1}, 1, &cnt) < 0) return -1;
    if (graph_add_op(g, TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){rc_, cnt}, 0, NULL) < 0) return -1;
    return graph_set_io(g, 1, &x, 2, (int32_t[]){sum, cnt}) ? -1 : 0;
}

static int branch(graph *b, bool then, const int8_t *k)
{
    const int32_t s8[2] = {1, 8};
    tfl_options o;
    tfl_options_default(&o);
    int32_t x = q8(b, "x", 2, s8, NULL), c = q8(b, then ? "a" : "b", 2, s8, k), y = q8(b, "y", 2, s8, NULL);
    if (x < 0 || c < 0 || y < 0) return -1;
    if (then) {
        int32_t t = q8(b, "x_plus_a", 2, s8, NULL);
        if (t < 0 || graph_add_op(b, TFL_OP_ADD, &o, 2, (int32_t[]){x, c}, 1, &t) < 0) return -1;
        if (graph_add_op(b, TFL_OP_RELU, &o, 1, &t, 1, &y) < 0) return -1;
    } else if (graph_add_op(b, TFL_OP_SUB, &o, 2, (int32_t[]){x, c}, 1, &y) < 0) {
        return -1;
    }
    return graph_set_io(b, 1, &x, 1, &y) ? -1 : 0;
}

static int if_model(uint64_t seed, npuc_rng *rng, graph **subs)
{
    static const int8_t a_fixed[8] = {5, 5, 5, 5, 5, 5, 5, 5}, b_fixed[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    int8_t a[8], b[8];
    draw(rng, seed, a, a_fixed, 8);
    draw(rng, seed, b, b_fixed, 8);
    if (branch(subs[1], true, a) || branch(subs[2], false, b)) return -1;
    graph *g = subs[0];
    const int32_t s1[1] = {1}, s8[2] = {1, 8};
    int32_t cond = graph_add_tensor(g, "cond", GRAPH_BOOL, 1, s1, NULL);
    int32_t x = q8(g, "x", 2, s8, NULL), y = q8(g, "y", 2, s8, NULL);
    tfl_options o;
    tfl_options_default(&o);
    o.then_subgraph = 1;
    o.else_subgraph = 2;
    if (cond < 0 || x < 0 || y < 0 || graph_add_op(g, TFL_OP_IF, &o, 2, (int32_t[]){cond, x}, 1, &y) < 0) return -1;
    return graph_set_io(g, 2, (int32_t[]){cond, x}, 1, &y) ? -1 : 0;
}

static int while_model(graph **subs)
{
    const int32_t s1[1] = {1}, s4[2] = {1, 4};
    tfl_options o;
    tfl_options_default(&o);
    /* subgraph 1, cond: i < n */
    graph *c = subs[1];
    int32_t ci = graph_add_tensor(c, "i", GRAPH_I32, 1, s1, NULL), cn = graph_add_tensor(c, "n", GRAPH_I32, 1, s1, NULL);
    int32_t cx = q8(c, "x", 2, s4, NULL), cb = graph_add_tensor(c, "go", GRAPH_BOOL, 1, s1, NULL);
    if (ci < 0 || cn < 0 || cx < 0 || cb < 0) return -1;
    if (graph_add_op(c, TFL_OP_LESS, &o, 2, (int32_t[]){ci, cn}, 1, &cb) < 0) return -1;
    if (graph_set_io(c, 3, (int32_t[]){ci, cn, cx}, 1, &cb)) return -1;
    /* subgraph 2, body: i + 1, n, x + x */
    graph *b = subs[2];
    const int32_t one = 1;
    int32_t bi = graph_add_tensor(b, "i", GRAPH_I32, 1, s1, NULL), bn = graph_add_tensor(b, "n", GRAPH_I32, 1, s1, NULL);
    int32_t bx = q8(b, "x", 2, s4, NULL), k1 = graph_add_tensor(b, "one", GRAPH_I32, 1, s1, &one);
    int32_t bi2 = graph_add_tensor(b, "i_next", GRAPH_I32, 1, s1, NULL), bx2 = q8(b, "x_next", 2, s4, NULL);
    if (bi < 0 || bn < 0 || bx < 0 || k1 < 0 || bi2 < 0 || bx2 < 0) return -1;
    if (graph_add_op(b, TFL_OP_ADD, &o, 2, (int32_t[]){bi, k1}, 1, &bi2) < 0) return -1;
    if (graph_add_op(b, TFL_OP_ADD, &o, 2, (int32_t[]){bx, bx}, 1, &bx2) < 0) return -1;
    if (graph_set_io(b, 3, (int32_t[]){bi, bn, bx}, 3, (int32_t[]){bi2, bn, bx2})) return -1;
    /* subgraph 0 */
    graph *g = subs[0];
    const int32_t zero = 0;
    int32_t n = graph_add_tensor(g, "n", GRAPH_I32, 1, s1, NULL), x = q8(g, "x", 2, s4, NULL);
    int32_t i0 = graph_add_tensor(g, "i0", GRAPH_I32, 1, s1, &zero);
    int32_t io = graph_add_tensor(g, "i", GRAPH_I32, 1, s1, NULL), no = graph_add_tensor(g, "n_out", GRAPH_I32, 1, s1, NULL);
    int32_t xo = q8(g, "y", 2, s4, NULL);
    if (n < 0 || x < 0 || i0 < 0 || io < 0 || no < 0 || xo < 0) return -1;
    o.cond_subgraph = 1;
    o.body_subgraph = 2;
    if (graph_add_op(g, TFL_OP_WHILE, &o, 3, (int32_t[]){i0, n, x}, 3, (int32_t[]){io, no, xo}) < 0) return -1;
    return graph_set_io(g, 2, (int32_t[]){n, x}, 2, (int32_t[]){xo, io}) ? -1 : 0;
}

int genmodel_build_control(genmodel_control_kind kind, uint64_t seed, graph **out, npuc_err *err)
{
    *out = NULL;
    static const char *names[] = {"counter", "if", "while"};
    if ((int)kind < 0 || kind > GENMODEL_WHILE) return npuc_errf(err, NPUC_E_USAGE, "unknown control model kind");
    const int32_t n = kind == GENMODEL_COUNTER ? 2 : 3;
    graph *subs[3] = {NULL, NULL, NULL};
    char name[64];
    snprintf(name, sizeof name, "genmodel-%s-%llu", names[kind], (unsigned long long)seed);
    for (int32_t i = 0; i < n; i++)
        if (!(subs[i] = graph_new(i ? "sub" : name))) {
            for (int32_t k = 0; k < i; k++) graph_free(subs[k]);
            return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        }
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    int rc = kind == GENMODEL_COUNTER ? counter(seed, &rng, subs)
             : kind == GENMODEL_IF    ? if_model(seed, &rng, subs)
                                      : while_model(subs);
    if (rc) {
        for (int32_t i = 0; i < n; i++) graph_free(subs[i]);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory building the %s model", names[kind]);
    }
    if ((rc = graph_model_attach(subs, n, err))) {
        graph_free(subs[0]);
        return rc;
    }
    *out = subs[0];
    return NPUC_OK;
}
