/* TILE, REVERSE_V2 and MIRROR_PAD on the NPU
 * (src/compiler/lower/lower_gather.c): strided copies over the runs of each
 * axis's index map; and PACK (lower_shape.c), one strided copy per input
 * into its part of the output.
 *
 * Random single-op graphs (rank 1..5, random shapes, multiples, axes,
 * paddings and mirror modes, PACKs of 1..8 inputs of rank 0..4, int8 and int16, every Ethos-U variant, a
 * quarter with --optimise size) are compiled, emitted, read back and run
 * with the ethos-u op on the virtual NPU, every command stream
 * hazard-checked, and the output compared byte for byte with the reference
 * interpreter; the op must be on the NPU unless it needs more copies than
 * the lowering takes (then on the CPU, saying so). Also what stays on the
 * CPU: float32, a non-constant parameter.
 *
 * Environment: NPUC_GATHER_CONFIGS (random configurations per op, default
 * 250), NPUC_GATHER_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_hazard.h"
#include "cc_test_npu.h"

typedef struct cfg {
    int32_t opcode;
    graph_dtype dt;
    int32_t rank, shape[5];
    int32_t param[10], n_param; /* multiples, axes, or paddings [rank][2] */
    int32_t mode;               /* MIRROR_PAD: 0 REFLECT, 1 SYMMETRIC */
    bool param_input;           /* the parameter is a model input (stays on the CPU) */
    int32_t n_in, axis;         /* PACK: inputs (each of `shape`) and the new axis as given */
    eu_variant variant;
    cc_optimise optimise;
} cfg;

typedef struct stats {
    int configs, npu, cpu, failed, runs;
} stats;

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s %s [", tfl_builtin_name(c->opcode), graph_dtype_name(c->dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    if (o < size && c->opcode == TFL_OP_PACK) o += (size_t)snprintf(buf + o, size - o, "] x %d axis %d", c->n_in, c->axis);
    else if (o < size) o += (size_t)snprintf(buf + o, size - o, "] param");
    for (int32_t i = 0; i < c->n_param && o < size; i++) o += (size_t)snprintf(buf + o, size - o, " %d", c->param[i]);
    if (o < size)
        snprintf(buf + o, size - o, "%s%s, %s%s", c->opcode == TFL_OP_MIRROR_PAD ? (c->mode ? " SYMMETRIC" : " REFLECT") : "",
                 c->param_input ? " (as input)" : "", target_variant_name(c->variant),
                 c->optimise == CC_OPT_SIZE ? " (size)" : "");
}

static graph *build_pack(const cfg *c)
{
    graph *g = graph_new("pack");
    if (!g) return NULL;
    float sc = c->dt == GRAPH_I16 ? 0.001f : 0.05f;
    int64_t zp = c->dt == GRAPH_I16 ? 0 : -3;
    int32_t ax = c->axis < 0 ? c->axis + c->rank + 1 : c->axis, oshape[6], ins[8];
    for (int32_t d = 0, k = 0; d <= c->rank; d++) oshape[d] = d == ax ? c->n_in : c->shape[k++];
    bool ok = true;
    for (int32_t i = 0; i < c->n_in && ok; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "x%d", (int)i);
        ins[i] = graph_add_tensor(g, nm, c->dt, c->rank, c->shape, NULL);
        ok = ins[i] >= 0 && !graph_set_quant(g, ins[i], 1, &sc, &zp, 0);
    }
    int32_t y = graph_add_tensor(g, "y", c->dt, c->rank + 1, oshape, NULL);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.axis = c->axis;
    opt.num = c->n_in;
    ok = ok && y >= 0 && !graph_set_quant(g, y, 1, &sc, &zp, 0) &&
         graph_add_op(g, TFL_OP_PACK, &opt, c->n_in, ins, 1, &y) >= 0 && !graph_set_io(g, c->n_in, ins, 1, &y);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static graph *build_graph(const cfg *c)
{
    if (c->opcode == TFL_OP_PACK) return build_pack(c);
    graph *g = graph_new("gather");
    if (!g) return NULL;
    float sc = c->dt == GRAPH_I16 ? 0.001f : 0.05f;
    int64_t zp = c->dt == GRAPH_I16 ? 0 : -3;
    int32_t oshape[5];
    for (int32_t d = 0; d < c->rank; d++) {
        oshape[d] = c->shape[d];
        if (c->opcode == TFL_OP_TILE) oshape[d] = c->shape[d] * c->param[d];
        if (c->opcode == TFL_OP_MIRROR_PAD) oshape[d] = c->shape[d] + c->param[2 * d] + c->param[2 * d + 1];
    }
    int32_t x = graph_add_tensor(g, "x", c->dt, c->rank, c->shape, NULL);
    int32_t y = graph_add_tensor(g, "y", c->dt, c->rank, oshape, NULL);
    int32_t pshape[2] = {c->opcode == TFL_OP_MIRROR_PAD ? c->rank : c->n_param, 2};
    int32_t p = graph_add_tensor(g, "param", GRAPH_I32, c->opcode == TFL_OP_MIRROR_PAD ? 2 : 1, pshape,
                                 c->param_input ? NULL : c->param);
    bool ok = x >= 0 && y >= 0 && p >= 0 && !graph_set_quant(g, x, 1, &sc, &zp, 0) &&
              !graph_set_quant(g, y, 1, &sc, &zp, 0);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.mirror_mode = c->mode;
    int32_t ins[2] = {x, p}, gin[2] = {x, p};
    ok = ok && graph_add_op(g, c->opcode, &opt, 2, ins, 1, &y) >= 0 &&
         !graph_set_io(g, c->param_input ? 2 : 1, gin, 1, &y);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

/* Parameter inputs get their constant values; the data input random bytes. */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    const cfg *c = user;
    (void)d;
    if (k == 1 && c->opcode != TFL_OP_PACK) {
        memcpy(buf, c->param, n);
        return;
    }
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

static bool run_config(const cfg *c, uint64_t seed, int expect_npu, const char *why, stats *st)
{
    char cs[300];
    cfg_str(c, cs, sizeof cs);
    graph *src = build_graph(c);
    cc_model *cm = NULL;
    bool ok = false;
    st->configs++;
    if (!src) {
        fprintf(stderr, "FAIL %s: graph build\n", cs);
        goto out;
    }
    char rwhy[160];
    if (!interp_op_supported(src, &src->ops[0], rwhy, sizeof rwhy)) {
        fprintf(stderr, "FAIL %s: the reference rejects it: %s\n", cs, rwhy);
        goto out;
    }
    if (!cc_check_compile(cs, src, c->variant, (cc_options){.optimise = c->optimise}, &cm)) goto out;
    if (!cc_check_placement(cs, cm, expect_npu, why, "NPUC_GATHER_VERBOSE")) goto out;
    cm->ops[0].npu ? st->npu++ : st->cpu++;
    if (!cc_hazard_model(cm, c->variant, cs)) goto out;
    cc_draws d = {.n_draws = 2, .seed = seed, .fill = fill_draw, .user = (void *)c, .runs = &st->runs};
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
    /* MIRROR_PAD: the reference takes int8 only (as TFLite Micro) */
    c->dt = opcode == TFL_OP_MIRROR_PAD || npuc_rng_range(r, 0, 2) ? GRAPH_I8 : GRAPH_I16;
    c->rank = (int32_t)npuc_rng_range(r, 1, 5);
    int32_t budget = 3000;
    for (int32_t d = 0; d < c->rank; d++) {
        int32_t hi = d == c->rank - 1 ? 40 : 12;
        c->shape[d] = (int32_t)npuc_rng_range(r, 1, hi);
        if (budget / c->shape[d] < 1) c->shape[d] = 1;
        budget /= c->shape[d];
    }
    if (opcode == TFL_OP_TILE) {
        c->n_param = c->rank;
        int32_t boxes = 1;
        for (int32_t d = 0; d < c->rank; d++) {
            c->param[d] = boxes < 16 ? (int32_t)npuc_rng_range(r, 1, 3) : 1;
            boxes *= c->param[d];
        }
    } else if (opcode == TFL_OP_REVERSE_V2) {
        /* contiguous axes, given as written (negative at times) */
        int32_t a0 = (int32_t)npuc_rng_range(r, 0, c->rank - 1);
        int32_t n = (int32_t)npuc_rng_range(r, 1, c->rank - a0);
        if (npuc_rng_range(r, 0, 5) == 0) n = 0;
        c->n_param = n;
        for (int32_t i = 0; i < n; i++) c->param[i] = a0 + i - (npuc_rng_range(r, 0, 1) ? c->rank : 0);
    } else if (opcode == TFL_OP_PACK) {
        c->rank = (int32_t)npuc_rng_range(r, 0, 4);
        c->n_in = (int32_t)npuc_rng_range(r, 1, 8);
        c->axis = (int32_t)npuc_rng_range(r, 0, c->rank);
        if (npuc_rng_range(r, 0, 1)) c->axis -= c->rank + 1;
        for (int32_t d = 0; d < c->rank; d++) c->shape[d] = (int32_t)npuc_rng_range(r, 1, d == c->rank - 1 ? 30 : 9);
    } else {
        c->mode = (int32_t)npuc_rng_range(r, 0, 1);
        c->n_param = 2 * c->rank;
        for (int32_t d = 0; d < c->rank; d++) {
            int32_t lim = c->shape[d] - (c->mode == 0 ? 1 : 0);
            bool pad = d >= c->rank - 3 && npuc_rng_range(r, 0, 2) > 0;
            c->param[2 * d] = pad && lim > 0 ? (int32_t)npuc_rng_range(r, 0, lim < 3 ? lim : 3) : 0;
            c->param[2 * d + 1] = pad && lim > 0 ? (int32_t)npuc_rng_range(r, 0, lim < 3 ? lim : 3) : 0;
        }
    }
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_GATHER_CONFIGS", 250);
    long first = env_long("NPUC_GATHER_SEED", 1);
    static const int32_t ops[4] = {TFL_OP_TILE, TFL_OP_REVERSE_V2, TFL_OP_MIRROR_PAD, TFL_OP_PACK};
    int vi = 0;
    for (int k = 0; k < 4; k++) {
        int npu0 = st.npu, failed0 = st.failed;
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = (uint64_t)(first + i) * 4 + (uint64_t)k;
            npuc_rng r;
            npuc_rng_seed(&r, seed * 2654435761u + 11);
            cfg c;
            random_config(&r, ops[k], &c);
            c.variant = variants[vi++ % 6];
            c.optimise = i % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            /* either: a box count past the lowering's limit keeps it on the CPU */
            run_config(&c, seed, -1, NULL, &st);
        }
        printf("%s: %d of %ld on the NPU, %d failed\n", tfl_builtin_name(ops[k]), st.npu - npu0, n_random,
               st.failed - failed0);
        CHECK(st.npu - npu0 >= n_random * 3 / 4);
    }

    /* fixed cases on every variant: an image mirror-padded by 2 each side,
     * an NHWC tensor reversed on W and tiled 2 x 3 */
    for (int v = 0; v < 6; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.dt = GRAPH_I8;
        c.rank = 4;
        c.shape[0] = 1; c.shape[1] = 9; c.shape[2] = 13; c.shape[3] = 5;
        c.variant = variants[v];
        c.opcode = TFL_OP_MIRROR_PAD;
        c.mode = v % 2;
        c.n_param = 8;
        int32_t pads[8] = {0, 0, 2, 2, 2, 2, 0, 0};
        memcpy(c.param, pads, sizeof pads);
        CHECK(run_config(&c, (uint64_t)(700 + v), 1, NULL, &st));
        c.dt = v % 2 ? GRAPH_I16 : GRAPH_I8;
        c.opcode = TFL_OP_REVERSE_V2;
        c.n_param = 1;
        c.param[0] = 2;
        CHECK(run_config(&c, (uint64_t)(710 + v), 1, NULL, &st));
        c.opcode = TFL_OP_TILE;
        c.n_param = 4;
        int32_t mult[4] = {1, 2, 3, 1};
        memcpy(c.param, mult, sizeof mult);
        CHECK(run_config(&c, (uint64_t)(720 + v), 1, NULL, &st));
    }

    /* what stays on the CPU */
    {
        cfg c;
        memset(&c, 0, sizeof c);
        c.opcode = TFL_OP_TILE;
        c.dt = GRAPH_I8;
        c.rank = 2;
        c.shape[0] = 3; c.shape[1] = 4;
        c.n_param = 2;
        c.param[0] = 65; c.param[1] = 1;
        c.variant = EU_U55_128;
        CHECK(run_config(&c, 800, 0, "strided copies", &st));
        c.param[0] = 2;
        c.param_input = true;
        CHECK(run_config(&c, 801, 0, "not a constant", &st));
    }

    printf("gather: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d compiled runs\n", st.configs,
           st.failed, st.npu, st.cpu, st.runs);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
