/* In-place elementwise ops (src/compiler/cc_alloc.c, inplace_pairs): an
 * elementwise NPU op's OFM may take the bytes of an IFM it reads last
 * (same size, layout, strides and element size, not broadcast), where that
 * lowers the arena's peak.
 *
 * Fixed cases, on every Ethos-U variant: x + y of one shape (the OFM takes
 * an input's bytes: two buffers instead of three, the peak 2/3 of the plan
 * without in-place), a broadcast y (only x's bytes may be taken), x read
 * again after the ADD (x's bytes may not be taken; the broadcast operand
 * never), a conv's input (no elementwise op: nothing changes).
 *
 * Random chains (default 240: int8 / int16, shapes up to [1,12,12,40],
 * 1-4 binary elementwise ops ADD / SUB / MUL / MAXIMUM / MINIMUM, each on
 * the previous result and a new graph input of the full shape, a broadcast
 * one, or an earlier result, every variant, a quarter --optimise size):
 * compiled with and without in-place, every command stream hazard-checked
 * (tests/cc_hazard.h: an op writing over its own input is checked byte by
 * byte), the output compared byte for byte with the reference interpreter
 * over input draws; where the peak dropped, some OFM shares its IFM's
 * bytes; where it did not, every buffer is where it was without in-place.
 *
 * Environment: NPUC_INPLACE_CONFIGS (random chains, default 240),
 * NPUC_INPLACE_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <math.h>
#include <stdint.h>

#include "cc_hazard.h"
#include "cc_test_npu.h"

#define MAX_OPS 4

typedef struct chain {
    graph_dtype dt;
    int32_t shape[4];
    int n;
    int32_t opcode[MAX_OPS];
    /* second operand of op j: 0 a new full input, 1 a new [1,1,1,C] input,
     * 2 a new [1,1,W,C] input, 3 the result of op j - 2 (or input 0) */
    int other[MAX_OPS];
    bool reuse_x;             /* input 0 is also read by the last op */
    float scale[MAX_OPS + 1];
    int64_t zp[MAX_OPS + 1];
    eu_variant variant;
    cc_optimise optimise;
} chain;

typedef struct stats {
    int configs, failed, dropped, kept, draws;
} stats;

static const char *op_name(int32_t op)
{
    switch (op) {
    case TFL_OP_ADD: return "ADD";
    case TFL_OP_SUB: return "SUB";
    case TFL_OP_MUL: return "MUL";
    case TFL_OP_MAXIMUM: return "MAXIMUM";
    default: return "MINIMUM";
    }
}

static void chain_str(const chain *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s [%d,%d,%d,%d]:", graph_dtype_name(c->dt), c->shape[0], c->shape[1],
                                c->shape[2], c->shape[3]);
    static const char *const oth[] = {"full", "1x1xC", "1xWxC", "earlier"};
    for (int j = 0; j < c->n && o < size; j++)
        o += (size_t)snprintf(buf + o, size - o, " %s(%s)", op_name(c->opcode[j]), oth[c->other[j]]);
    if (o < size)
        snprintf(buf + o, size - o, "%s on %s%s", c->reuse_x ? " x read last" : "", target_variant_name(c->variant),
                 c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build(const chain *c)
{
    graph *g = graph_new("inplace");
    if (!g) return NULL;
    int32_t ins[2 * MAX_OPS + 2], n_in = 0, res[MAX_OPS + 1];
    bool ok = true;
    float s0 = c->scale[0];
    int64_t z0 = c->zp[0];
    res[0] = graph_add_tensor(g, "x", c->dt, 4, c->shape, NULL);
    ok = res[0] >= 0 && !graph_set_quant(g, res[0], 1, &s0, &z0, 0);
    ins[n_in++] = res[0];
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    for (int j = 0; j < c->n && ok; j++) {
        int32_t b;
        if (c->other[j] == 3) {
            b = res[j >= 1 ? j - 1 : 0];
        } else {
            int32_t sh[4] = {1, c->shape[1], c->shape[2], c->shape[3]};
            if (c->other[j] == 1) sh[1] = sh[2] = 1;
            if (c->other[j] == 2) sh[1] = 1;
            char nm[16];
            snprintf(nm, sizeof nm, "in%d", j);
            b = graph_add_tensor(g, nm, c->dt, 4, sh, NULL);
            float s = c->scale[j];
            int64_t z = c->zp[j];
            ok = b >= 0 && !graph_set_quant(g, b, 1, &s, &z, 0);
            ins[n_in++] = b;
        }
        char nm[16];
        snprintf(nm, sizeof nm, "r%d", j);
        res[j + 1] = graph_add_tensor(g, nm, c->dt, 4, c->shape, NULL);
        float s = c->scale[j + 1];
        int64_t z = c->zp[j + 1];
        ok = ok && res[j + 1] >= 0 && !graph_set_quant(g, res[j + 1], 1, &s, &z, 0);
        int32_t a = res[j];
        if (j == c->n - 1 && c->reuse_x && c->n > 1) b = res[0];
        int32_t io[2] = {a, b};
        ok = ok && graph_add_op(g, c->opcode[j], &opt, 2, io, 1, &res[j + 1]) >= 0;
    }
    ok = ok && !graph_set_io(g, n_in, ins, 1, &res[c->n]);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* NPU ops whose OFM shares the bytes of one of its IFMs (another buffer). */
static int inplace_ops(const cc_model *cm)
{
    int n = 0;
    for (int32_t e = 0; e < cm->n_epochs; e++)
        for (int32_t k = 0; cm->epochs[e].kind == CC_EPOCH_HW && k < cm->epochs[e].n_eu; k++) {
            const eu_op *o = &cm->epochs[e].ops[k];
            int32_t bo = o->ofm.buf;
            if (bo < 0) continue;
            const eu_fm *f[2] = {&o->ifm, o->ifm2_tensor ? &o->ifm2 : NULL};
            for (int i = 0; i < 2; i++) {
                if (!f[i] || f[i]->buf < 0 || f[i]->buf == bo) continue;
                const cc_buf *x = &cm->bufs[f[i]->buf], *y = &cm->bufs[bo];
                if (x->pool == y->pool && x->offset == y->offset && x->size && y->size) {
                    CHECK(o->kind == SIM_K_ELEMENTWISE);
                    n++;
                    break;
                }
            }
        }
    return n;
}

static bool same_plan(const cc_model *a, const cc_model *b)
{
    if (a->n_bufs != b->n_bufs || a->arena_size != b->arena_size || a->fast_size != b->fast_size) return false;
    for (int32_t i = 0; i < a->n_bufs; i++)
        if (a->bufs[i].offset != b->bufs[i].offset || a->bufs[i].pool != b->bufs[i].pool) return false;
    return true;
}

typedef struct run_ctx {
    cc_pat_ctx p;
} run_ctx;

static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    run_ctx *x = user;
    cc_fill_patterns(&x->p, r, d, k, buf, n);
}

/* expect: -1 anything; 0 no in-place op; n: exactly n in-place ops and a
 * lower peak. */
static bool run_chain(const chain *c, uint64_t seed, int expect, stats *st)
{
    char cs[400];
    chain_str(c, cs, sizeof cs);
    graph *src = build(c);
    cc_model *cm = NULL, *c0 = NULL;
    st->configs++;
    cc_options o = {.optimise = c->optimise};
    cc_options o0 = o;
    o0.no_inplace = true;
    bool ok = cc_check_compile(cs, src, c->variant, o, &cm) && cc_check_compile(cs, src, c->variant, o0, &c0);
    if (ok) ok = cc_hazard_model(cm, c->variant, cs);
    if (ok) {
        int n = inplace_ops(cm);
        CHECK_EQ_INT(inplace_ops(c0), 0);
        if (cm->arena_size < c0->arena_size) {
            st->dropped++;
            if (!n) fprintf(stderr, "FAIL %s: the peak dropped (%llu -> %llu) with no op in place\n", cs,
                            (unsigned long long)c0->arena_size, (unsigned long long)cm->arena_size);
            ok = n > 0;
        } else {
            st->kept++;
            CHECK(cm->arena_size == c0->arena_size);
            /* no gain: the plan is the one without in-place, byte for byte */
            if (!same_plan(cm, c0)) {
                fprintf(stderr, "FAIL %s: no lower peak, yet the plan changed\n", cs);
                ok = false;
            }
        }
        if (ok && expect >= 0 && (n != expect || (expect > 0 && cm->arena_size >= c0->arena_size))) {
            fprintf(stderr, "FAIL %s: %d ops in place (expected %d), peak %llu (without: %llu)\n", cs, n, expect,
                    (unsigned long long)cm->arena_size, (unsigned long long)c0->arena_size);
            ok = false;
        }
    }
    if (ok) {
        run_ctx x = {{c->dt, cs, seed, 0}};
        cc_draws d = {.n_draws = 4, .seed = seed, .fill = fill_draw, .diff = cc_diff_elements, .user = &x,
                      .runs = &st->draws};
        ok = cc_check_draws(cs, src, cm, c->variant, &d);
    }
    cc_model_free(cm);
    cc_model_free(c0);
    graph_free(src);
    CHECK(ok);
    if (!ok) st->failed++;
    return ok;
}

static float rand_scale(npuc_rng *r, double lo, double hi)
{
    double l = log(lo), h = log(hi);
    return (float)exp(l + (h - l) * npuc_rng_unit(r));
}

static void random_chain(npuc_rng *r, chain *c)
{
    memset(c, 0, sizeof *c);
    c->dt = npuc_rng_range(r, 0, 3) ? GRAPH_I8 : GRAPH_I16;
    c->shape[0] = 1;
    c->shape[1] = (int32_t)npuc_rng_range(r, 1, 12);
    c->shape[2] = (int32_t)npuc_rng_range(r, 1, 12);
    c->shape[3] = (int32_t)npuc_rng_range(r, 1, 40);
    c->n = (int)npuc_rng_range(r, 1, MAX_OPS);
    static const int32_t ops[] = {TFL_OP_ADD, TFL_OP_SUB, TFL_OP_MUL, TFL_OP_MAXIMUM, TFL_OP_MINIMUM};
    bool minmax = false;
    for (int j = 0; j < c->n; j++) {
        c->opcode[j] = ops[npuc_rng_range(r, 0, 4)];
        minmax |= c->opcode[j] == TFL_OP_MAXIMUM || c->opcode[j] == TFL_OP_MINIMUM;
        int k = (int)npuc_rng_range(r, 0, 9);
        c->other[j] = k < 5 ? 0 : k < 7 ? 1 : k < 8 ? 2 : 3;
    }
    c->reuse_x = npuc_rng_range(r, 0, 4) == 0;
    /* MAXIMUM / MINIMUM want one quantisation throughout; int16 zero points 0 */
    float s = rand_scale(r, 1e-3, 0.1);
    int64_t z = c->dt == GRAPH_I8 ? npuc_rng_range(r, -100, 100) : 0;
    for (int j = 0; j <= c->n; j++) {
        c->scale[j] = minmax ? s : rand_scale(r, 1e-3, 0.1);
        c->zp[j] = minmax || c->dt != GRAPH_I8 ? z : npuc_rng_range(r, -100, 100);
    }
}

static chain fixed(int32_t h, int32_t w, int32_t ch, int other, bool reuse, int n)
{
    chain c;
    memset(&c, 0, sizeof c);
    c.dt = GRAPH_I8;
    c.shape[0] = 1;
    c.shape[1] = h;
    c.shape[2] = w;
    c.shape[3] = ch;
    c.n = n;
    for (int j = 0; j < n; j++) {
        c.opcode[j] = TFL_OP_ADD;
        c.other[j] = other;
    }
    c.reuse_x = reuse;
    for (int j = 0; j <= n; j++) {
        c.scale[j] = 0.05f + 0.01f * (float)j;
        c.zp[j] = -3 + j;
    }
    return c;
}

int main(void)
{
    stats st = {0};
    for (int v = 0; v < 6; v++) {
        chain c;
        /* x + y: the OFM takes one input's bytes */
        c = fixed(16, 16, 16, 0, false, 1);
        c.variant = variants[v];
        CHECK(run_chain(&c, 11, 1, &st));
        /* x + y + z + w, a chain: every ADD in place */
        c = fixed(8, 8, 32, 0, false, 3);
        c.variant = variants[v];
        CHECK(run_chain(&c, 12, -1, &st));
        /* x + y[1,1,1,C]: only x, the full operand */
        c = fixed(16, 16, 16, 1, false, 1);
        c.variant = variants[v];
        CHECK(run_chain(&c, 13, 1, &st));
        /* (x + y) + x: the first ADD may not take x (read again), the
         * second may take its IFM */
        c = fixed(16, 16, 16, 0, true, 2);
        c.variant = variants[v];
        CHECK(run_chain(&c, 14, -1, &st));
    }
    long n_random = env_long("NPUC_INPLACE_CONFIGS", 240);
    long first = env_long("NPUC_INPLACE_SEED", 1);
    for (long i = 0; i < n_random; i++) {
        uint64_t seed = (uint64_t)(first + i);
        npuc_rng r;
        npuc_rng_seed(&r, seed * 1000033u + 17);
        chain c;
        random_chain(&r, &c);
        c.variant = variants[i % 6];
        c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
        run_chain(&c, seed, -1, &st);
    }
    printf("in-place: %d models, %d with a lower peak (an OFM in its IFM's bytes), %d unchanged, %d draws, "
           "%d failed\n",
           st.configs, st.dropped, st.kept, st.draws, st.failed);
    /* the random chains take the in-place form often */
    CHECK(st.dropped >= st.configs / 4);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
