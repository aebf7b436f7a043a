/* SPLIT, SPLIT_V and UNPACK on the NPU (src/compiler/lower/lower_shape.c):
 * each output a strided copy of its slice of the input.
 *
 * Random single-op graphs (rank 1..5, random shapes, axes, output counts
 * and sizes, int8 and int16, every Ethos-U variant) are compiled, emitted,
 * read back and run with the ethos-u op on the virtual NPU, and every
 * output compared byte for byte with the reference interpreter; the op must
 * be on the NPU. Then the structural case: a SPLIT whose parts go through
 * NPU ops (a LOGISTIC, or conv -> conv) and are concatenated again
 * compiles to one command stream.
 *
 * Environment: NPUC_SPLIT_CONFIGS (random configurations per op, default
 * 600), NPUC_SPLIT_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

#define MAX_OUT 8

typedef struct cfg {
    int32_t opcode;
    graph_dtype dt;
    int32_t rank, shape[5];
    int32_t axis;              /* as given (may be negative) */
    int32_t n_out, lens[MAX_OUT];
    bool then_concat;          /* each part through NPU ops, then concatenated on the axis */
    bool convs;                /* those ops: two 3x3 CONV_2Ds (else a LOGISTIC) */
    eu_variant variant;
    cc_optimise optimise;
} cfg;

typedef struct stats {
    int configs, failed, runs;
    long bytes;
} stats;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s %s [", tfl_builtin_name(c->opcode), graph_dtype_name(c->dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, d ? ",%d" : "%d", c->shape[d]);
    if (o < size) o += (size_t)snprintf(buf + o, size - o, "] axis %d into", c->axis);
    for (int32_t i = 0; i < c->n_out && o < size; i++) o += (size_t)snprintf(buf + o, size - o, " %d", c->lens[i]);
    if (o < size)
        snprintf(buf + o, size - o, "%s, %s%s",
                 !c->then_concat ? "" : c->convs ? " -> CONV_2D x 2 -> CONCATENATION" : " -> LOGISTIC -> CONCATENATION",
                 target_variant_name(c->variant), c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

/* A 3x3 SAME CONV_2D of int8 x (rank 4) keeping its shape, random weights
 * drawn from r; the new output tensor, or -1. */
static int32_t conv3x3(graph *g, npuc_rng *r, int32_t x, const char *name)
{
    const graph_tensor *tx = &g->tensors[x];
    int32_t shp[4] = {tx->shape[0], tx->shape[1], tx->shape[2], tx->shape[3]}, oc = shp[3];
    float sx = tx->q.scale[0], sw = 0.01f, bs = sx * sw, so = 0.25f;
    int64_t z0 = 0, zo = -5;
    int32_t ws[4] = {oc, 3, 3, oc};
    size_t nw = (size_t)oc * 9 * (size_t)oc;
    int8_t *w = malloc(nw);
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)oc);
    int32_t y = -1;
    if (w && bias) {
        for (size_t i = 0; i < nw; i++) w[i] = (int8_t)npuc_rng_range(r, -127, 127);
        for (int32_t i = 0; i < oc; i++) bias[i] = (int32_t)npuc_rng_range(r, -3000, 3000);
        char nm[24];
        snprintf(nm, sizeof nm, "%s_w", name);
        int32_t wt = graph_add_tensor(g, nm, GRAPH_I8, 4, ws, w);
        snprintf(nm, sizeof nm, "%s_b", name);
        int32_t bt = graph_add_tensor(g, nm, GRAPH_I32, 1, &oc, bias);
        y = graph_add_tensor(g, name, GRAPH_I8, 4, shp, NULL);
        tfl_options o;
        memset(&o, 0, sizeof o);
        o.padding = TFL_PAD_SAME;
        o.stride_w = o.stride_h = 1;
        o.dilation_w = o.dilation_h = 1;
        int32_t in[3] = {x, wt, bt};
        if (wt < 0 || bt < 0 || y < 0 || graph_set_quant(g, wt, 1, &sw, &z0, 0) ||
            graph_set_quant(g, bt, 1, &bs, &z0, 0) || graph_set_quant(g, y, 1, &so, &zo, 0) ||
            graph_add_op(g, TFL_OP_CONV_2D, &o, 3, in, 1, &y) < 0)
            y = -1;
    }
    free(w);
    free(bias);
    return y;
}

static graph *build_graph(const cfg *c)
{
    graph *g = graph_new("split");
    if (!g) return NULL;
    float sc = c->dt == GRAPH_I16 ? 0.001f : 0.05f;
    int64_t zp = c->dt == GRAPH_I16 ? 0 : 3;
    int32_t ax = c->axis < 0 ? c->axis + c->rank : c->axis;
    int32_t x = graph_add_tensor(g, "x", c->dt, c->rank, c->shape, NULL);
    bool ok = x >= 0 && !graph_set_quant(g, x, 1, &sc, &zp, 0);
    int32_t outs[MAX_OUT], ins[3], n_in = 0;
    for (int32_t i = 0; ok && i < c->n_out; i++) {
        int32_t shp[5], r = 0;
        for (int32_t d = 0; d < c->rank; d++) {
            if (d == ax) {
                if (c->opcode != TFL_OP_UNPACK) shp[r++] = c->lens[i];
            } else {
                shp[r++] = c->shape[d];
            }
        }
        char name[16];
        snprintf(name, sizeof name, "y%d", i);
        outs[i] = graph_add_tensor(g, name, c->dt, r, shp, NULL);
        ok = outs[i] >= 0 && !graph_set_quant(g, outs[i], 1, &sc, &zp, 0);
    }
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.num = c->n_out;
    int32_t one = 1, axis_v = c->axis;
    if (ok && c->opcode == TFL_OP_SPLIT) {
        int32_t a = graph_add_tensor(g, "axis", GRAPH_I32, 0, &one, &axis_v);
        ins[n_in++] = a;
        ins[n_in++] = x;
        ok = a >= 0;
    } else if (ok && c->opcode == TFL_OP_SPLIT_V) {
        int32_t nl = c->n_out;
        int32_t s = graph_add_tensor(g, "sizes", GRAPH_I32, 1, &nl, c->lens);
        int32_t a = graph_add_tensor(g, "axis", GRAPH_I32, 0, &one, &axis_v);
        ins[n_in++] = x;
        ins[n_in++] = s;
        ins[n_in++] = a;
        ok = s >= 0 && a >= 0;
    } else if (ok) {
        opt.axis = c->axis;
        ins[n_in++] = x;
    }
    ok = ok && graph_add_op(g, c->opcode, &opt, n_in, ins, c->n_out, outs) >= 0;
    if (ok && c->then_concat) {
        /* each part through NPU ops, then joined again */
        int32_t parts[MAX_OUT];
        npuc_rng wr;
        npuc_rng_seed(&wr, 4242);
        float os = 1.0f / 256;
        int64_t ozp = -128;
        for (int32_t i = 0; ok && c->convs && i < c->n_out; i++) {
            char name[16];
            snprintf(name, sizeof name, "c%d", i);
            int32_t a = conv3x3(g, &wr, outs[i], name);
            snprintf(name, sizeof name, "z%d", i);
            parts[i] = a >= 0 ? conv3x3(g, &wr, a, name) : -1;
            ok = parts[i] >= 0;
        }
        if (c->convs) {
            os = 0.25f;
            ozp = -5;
        }
        for (int32_t i = 0; ok && !c->convs && i < c->n_out; i++) {
            const graph_tensor *t = &g->tensors[outs[i]];
            char name[16];
            snprintf(name, sizeof name, "z%d", i);
            int32_t shp[5];
            memcpy(shp, t->shape, sizeof(int32_t) * (size_t)t->rank);
            parts[i] = graph_add_tensor(g, name, c->dt, t->rank, shp, NULL);
            tfl_options lo;
            memset(&lo, 0, sizeof lo);
            ok = parts[i] >= 0 && !graph_set_quant(g, parts[i], 1, &os, &ozp, 0) &&
                 graph_add_op(g, TFL_OP_LOGISTIC, &lo, 1, &outs[i], 1, &parts[i]) >= 0;
        }
        int32_t y = graph_add_tensor(g, "y", c->dt, c->rank, c->shape, NULL);
        tfl_options co;
        memset(&co, 0, sizeof co);
        co.axis = ax;
        ok = ok && y >= 0 && !graph_set_quant(g, y, 1, &os, &ozp, 0) &&
             graph_add_op(g, TFL_OP_CONCATENATION, &co, c->n_out, parts, 1, &y) >= 0;
        ok = ok && !graph_set_io(g, 1, &x, 1, &y);
    } else {
        ok = ok && !graph_set_io(g, 1, &x, c->n_out, outs);
    }
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)d;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

static void seen_draw(void *user, const cc_twin *t, int32_t k, size_t size)
{
    (void)t;
    (void)k;
    ((stats *)user)->bytes += (long)size;
}

static bool run_config(const cfg *c, uint64_t seed, stats *st)
{
    char cs[400];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    cc_model *cm = NULL;
    bool ok = false;
    st->configs++;
    if (!cc_check_compile(cs, src, c->variant, (cc_options){.optimise = c->optimise}, &cm)) goto out;
    for (int32_t i = 0; i < src->n_ops; i++)
        if (!cm->ops[i].npu) {
            fprintf(stderr, "FAIL %s: op %d (%s) on the CPU: %s\n", cs, i, graph_op_name(&src->ops[i]),
                    cm->ops[i].why);
            goto out;
        }
    if (cm->n_epochs != 1) {
        fprintf(stderr, "FAIL %s: %d epochs, expected one command stream\n", cs, cm->n_epochs);
        goto out;
    }
    cc_draws d = {.n_draws = 2, .seed = seed, .fill = fill_draw, .seen = seen_draw, .user = st, .runs = &st->runs};
    ok = cc_check_draws(cs, src, cm, c->variant, &d);
out:
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

static void random_config(npuc_rng *r, int32_t opcode, cfg *c)
{
    memset(c, 0, sizeof *c);
    c->opcode = opcode;
    c->dt = npuc_rng_range(r, 0, 2) == 0 ? GRAPH_I16 : GRAPH_I8;
    c->rank = (int32_t)npuc_rng_range(r, 1, 5);
    int32_t ax = (int32_t)npuc_rng_range(r, 0, c->rank - 1);
    for (int32_t d = 0; d < c->rank; d++) c->shape[d] = (int32_t)npuc_rng_range(r, 1, c->rank > 3 ? 6 : 12);
    if (c->rank >= 4 && npuc_rng_range(r, 0, 1)) c->shape[0] = 1;
    int32_t n = (int32_t)npuc_rng_range(r, 1, opcode == TFL_OP_UNPACK ? 6 : 5);
    if (opcode == TFL_OP_SPLIT) {
        c->shape[ax] = n * (int32_t)npuc_rng_range(r, 1, 8);
        for (int32_t i = 0; i < n; i++) c->lens[i] = c->shape[ax] / n;
    } else if (opcode == TFL_OP_SPLIT_V) {
        int32_t total = 0;
        for (int32_t i = 0; i < n; i++) total += c->lens[i] = (int32_t)npuc_rng_range(r, 1, 9);
        c->shape[ax] = total;
    } else {
        c->shape[ax] = n;
        for (int32_t i = 0; i < n; i++) c->lens[i] = 1;
    }
    c->n_out = n;
    c->axis = npuc_rng_range(r, 0, 3) == 0 ? ax - c->rank : ax;
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_SPLIT_CONFIGS", 600);
    long first = env_long("NPUC_SPLIT_SEED", 1);
    static const int32_t ops[3] = {TFL_OP_SPLIT, TFL_OP_SPLIT_V, TFL_OP_UNPACK};
    int vi = 0;
    for (int k = 0; k < 3; k++)
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = (uint64_t)(first + i) * 3 + (uint64_t)k;
            npuc_rng r;
            npuc_rng_seed(&r, seed * 7919u + 29);
            cfg c;
            random_config(&r, ops[k], &c);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            run_config(&c, seed, &st);
        }

    /* split -> per-part NPU ops (a LOGISTIC, or conv -> conv) ->
     * concatenation: one command stream (the LSTM gate pattern: an FC's 4n
     * channels into four gates; H splits) */
    for (int v = 0; v < 12; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.opcode = v % 3 == 2 ? TFL_OP_SPLIT_V : TFL_OP_SPLIT;
        c.dt = GRAPH_I8;
        c.rank = 4;
        c.shape[0] = 1; c.shape[1] = 6; c.shape[2] = 5; c.shape[3] = 32;
        c.axis = v % 2 ? 1 : 3;
        c.n_out = v % 3 == 2 ? 3 : 2;
        for (int32_t i = 0; i < c.n_out; i++) c.lens[i] = c.shape[c.axis] / c.n_out;
        if (c.opcode == TFL_OP_SPLIT_V) c.lens[c.n_out - 1] = c.shape[c.axis] - c.lens[0] * (c.n_out - 1);
        c.then_concat = true;
        c.convs = v >= 6;
        c.variant = variants[v % 6];
        run_config(&c, (uint64_t)(900 + v), &st);
    }

    printf("split: %d configurations (%d failed), %d compiled runs, %ld output bytes compared\n", st.configs,
           st.failed, st.runs, st.bytes);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
