/* The fast pool's choice by cycles saved per byte (cc_alloc.c, choose_fast)
 * on an Ethos-U65-256 with its default system, Ethos_U65_High_End:
 * Dedicated_Sram (the arena in DRAM, a 384 KiB SRAM fast pool):
 *
 *  - hand-built chains x -> op -> ... -> y of one shape (RELU, RELU6,
 *    LEAKY_RELU, int8, random shapes of 4 KiB to 200 KiB per tensor),
 *    with fast pools of 64 MiB, of about one intermediate, and below any
 *    intermediate. The pool's peak stays within its size; every buffer in
 *    the fast pool saves cycles (moved to the arena, cc_placed_cycles
 *    rises); a pool too small for every intermediate holds none; with room
 *    for all, every intermediate is there (each op reads or writes DRAM
 *    otherwise, and these ops are memory-bound); and the compiled model is
 *    bit-exact with the reference interpreter (3 draws each);
 *  - every zoo and TFLite Micro model of the shared folder (skipped when it
 *    is absent), with the default pool and a 32 KiB one: the peak within
 *    the size and every buffer in the pool saving cycles, weight copies
 *    aside (a copy read once waits in a hole for the prefetch pass).
 *
 * In both, the placed cycles the choice works out as it goes
 * (cc_allocated_cycles, with the compile's costs cache) are
 * cc_placed_cycles of the placement.
 *
 * Environment: NPUC_FASTPOOL_CONFIGS (default 60), NPUC_FASTPOOL_SEED. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <dirent.h>
#include <stdint.h>

#include "cc_test_npu.h"

/* Compiles g for the U65-256 with the fast pool cut to cap bytes (0: as
 * the system has it). */
static int compile_cap(const graph *g, uint64_t cap, cc_model **cm, npuc_err *e)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    int rc = target_default(EU_U65_256, &opt.sys, e);
    if (rc) return rc;
    if (cap) opt.sys.pools[opt.sys.fast_pool].size = cap;
    return cc_compile(g, &opt, cm, e);
}

/* The checks on the placement of cm: re-placed by cc_allocate, the fast
 * pool's peak within its size and every buffer there (weight copies aside)
 * saving cycles. Returns the number of buffers in the fast pool, -1 on a
 * failure (printed). */
static int check_choice(const char *what, cc_model *cm)
{
    npuc_err e = {0};
    cm->costs = cc_costs_new();   /* as during a compile */
    int rc = cc_allocate(cm, &e);
    uint64_t kept = cc_allocated_cycles(cm);
    cc_costs_free(cm->costs);
    cm->costs = NULL;
    if (rc) {
        fprintf(stderr, "FAIL %s: cc_allocate: %s\n", what, e.msg);
        return -1;
    }
    const target_desc *s = &cm->opt.sys;
    uint64_t cap = s->pools[s->fast_pool].size;
    if (cap && cm->fast_size > cap) {
        fprintf(stderr, "FAIL %s: fast pool peak %llu over its %llu bytes\n", what,
                (unsigned long long)cm->fast_size, (unsigned long long)cap);
        return -1;
    }
    uint64_t base = cc_placed_cycles(cm);
    if (kept != base) {
        fprintf(stderr, "FAIL %s: the choice's placed cycles %llu, cc_placed_cycles %llu\n", what,
                (unsigned long long)kept, (unsigned long long)base);
        return -1;
    }
    int n = 0;
    for (int32_t b = 0; b < cm->n_bufs; b++) {
        cc_buf *x = &cm->bufs[b];
        if (x->pool != CC_IN_FAST) continue;
        n++;
        if (x->wcopy) continue;
        x->pool = CC_IN_ARENA;
        uint64_t out = cc_placed_cycles(cm);
        x->pool = CC_IN_FAST;
        if (out <= base) {
            fprintf(stderr, "FAIL %s: buffer %d (%llu bytes) in the fast pool saves no cycles (%llu in, %llu out)\n",
                    what, (int)b, (unsigned long long)x->size, (unsigned long long)base,
                    (unsigned long long)out);
            return -1;
        }
    }
    return n;
}

static int chains = 0, models = 0;

static void chain_case(npuc_rng *r, int i)
{
    static const int32_t ops[] = {TFL_OP_RELU, TFL_OP_RELU6, TFL_OP_LEAKY_RELU};
    cc_chain c;
    memset(&c, 0, sizeof c);
    c.in_dt = GRAPH_I8;
    c.is = 0.05f;
    c.izp = -3;
    c.variant = EU_U65_256;
    c.optimise = CC_OPT_PERFORMANCE;
    /* 4 KiB .. 200 KiB per tensor */
    int32_t h = 8 + (int32_t)npuc_rng_range(r, 0, 56), w = 8 + (int32_t)npuc_rng_range(r, 0, 56);
    int32_t ch = 16 * (1 + (int32_t)npuc_rng_range(r, 0, 3));
    while ((int64_t)h * w * ch > 200 * 1024) h = h / 2 + 1;
    c.shape[0] = 1;
    c.shape[1] = h;
    c.shape[2] = w;
    c.shape[3] = ch;
    c.n = 3 + (int)npuc_rng_range(r, 0, 2);
    for (int k = 0; k < c.n; k++) {
        cc_chain_op *p = &c.ops[k];
        p->opcode = ops[npuc_rng_range(r, 0, 2)];
        p->alpha = 0.125f;
        p->out_dt = GRAPH_I8;
        p->os = 0.05f;
        p->ozp = -3;
        p->expect = CC_X_NPU;
    }
    uint64_t bytes = (uint64_t)h * w * ch;
    /* room for all, for about one intermediate, for none */
    uint64_t caps[3] = {(uint64_t)1 << 26, bytes + bytes / 2, bytes / 2};
    for (int j = 0; j < 3; j++) {
        char cs[512], what[600];
        cc_chain_str(&c, cs, sizeof cs);
        snprintf(what, sizeof what, "chain %d (%s), fast pool %llu", i, cs, (unsigned long long)caps[j]);
        graph *g = cc_chain_graph(&c, "fastpool");
        cc_model *cm = NULL;
        npuc_err e = {0};
        if (!g || compile_cap(g, caps[j], &cm, &e)) {
            fprintf(stderr, "FAIL %s: compile: %s\n", what, g ? e.msg : "graph build");
            CHECK(false);
            graph_free(g);
            continue;
        }
        /* the intermediates: every non-temp buffer but x and y */
        int inter = 0, inter_fast = 0;
        for (int32_t b = 0; b < cm->n_bufs; b++) {
            const cc_buf *x = &cm->bufs[b];
            if (x->temp || !x->size || x->tensor < 0) continue;
            if (x->tensor == g->inputs[0] || cm->buf_of[g->outputs[0]] == b || cm->buf_of[g->inputs[0]] == b) continue;
            inter++;
            inter_fast += x->pool == CC_IN_FAST;
        }
        bool ok = true;
        if (j == 0 && inter_fast != inter) {
            fprintf(stderr, "FAIL %s: %d of %d intermediates in a fast pool with room for all\n", what,
                    inter_fast, inter);
            ok = false;
        }
        if (j == 2 && cm->fast_size) {
            fprintf(stderr, "FAIL %s: a pool below every intermediate holds %llu bytes\n", what,
                    (unsigned long long)cm->fast_size);
            ok = false;
        }
        cc_pat_ctx pc = {.dt = GRAPH_I8, .cs = what, .seed = (uint64_t)i + 1};
        cc_draws d = {.n_draws = 3, .seed = (uint64_t)i + 1, .fill = cc_fill_patterns, .diff = cc_diff_elements,
                      .user = &pc};
        ok = ok && cc_check_draws(what, g, cm, EU_U65_256, &d);
        ok = ok && check_choice(what, cm) >= 0;
        CHECK(ok);
        chains++;
        cc_model_free(cm);
        graph_free(g);
    }
}

static void model_case(const char *path, const char *name)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err)) {
        printf("skip %s: %s\n", name, err.msg);
        tfl_model_free(tm);
        return;
    }
    static const uint64_t caps[2] = {0, 32 * 1024};
    for (int j = 0; j < 2; j++) {
        char what[512];
        snprintf(what, sizeof what, "%s, fast pool %s", name, j ? "32 KiB" : "384 KiB");
        cc_model *cm = NULL;
        npuc_err e = {0};
        if (compile_cap(g, caps[j], &cm, &e)) {
            bool legacy = strstr(e.msg, "legacy") != NULL;
            CHECK(legacy);
            printf("%s %s: %s\n", legacy ? "skip" : "FAIL", what, e.msg);
            continue;
        }
        int n = check_choice(what, cm);
        CHECK(n >= 0);
        if (n >= 0)
            printf("%s: %d buffers, %llu bytes in the fast pool, %llu placed cycles\n", what, n,
                   (unsigned long long)cm->fast_size, (unsigned long long)cc_placed_cycles(cm));
        models++;
        cc_model_free(cm);
    }
    graph_free(g);
    tfl_model_free(tm);
}

static void models_in(const char *rel)
{
    char rl[256], buf[1024];
    snprintf(rl, sizeof rl, "%s/LICENSE", rel);
    const char *lic = t_shared(rl, buf, sizeof buf);
    if (!lic) {
        printf("skip %s: the shared folder is absent\n", rel);
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%.*s", (int)(strlen(lic) - strlen("/LICENSE")), lic);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t l = strlen(e->d_name);
        /* the unrolled LSTM (697 ops) takes long and adds nothing here */
        if (l > 7 && !strcmp(e->d_name + l - 7, ".tflite") && !strstr(e->d_name, "basic_lstm_l"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        model_case(path, names[i]);
        free(names[i]);
    }
}

int main(void)
{
    long n = env_long("NPUC_FASTPOOL_CONFIGS", 60);
    npuc_rng r;
    npuc_rng_seed(&r, (uint64_t)env_long("NPUC_FASTPOOL_SEED", 1));
    for (long i = 0; i < n; i++) chain_case(&r, (int)i);
    models_in("models/zoo");
    models_in("models/tflm");
    printf("%d chain compilations, %d model compilations checked\n", chains, models);
    TEST_MAIN_END();
}
