/* STRIDED_SLICE / SLICE forms beyond the single-op slice (channel strides,
 * negative strides, batches) and TRANSPOSE on the NPU as strided copies
 * (src/compiler/cc_transpose.c), and reshape views at the start of an
 * epoch (src/compiler/cc_lower.c).
 *
 * Graphs are built in memory, compiled for one of the six Ethos-U variants
 * (cc_compile -> emit_tflite_model -> tfl_write -> tfl_read ->
 * graph_import), run with their ethos-u ops on the virtual NPU and compared
 * byte for byte with the reference interpreter on the source graph, over
 * random inputs and the extremes. Placement is asserted: random int8/int16
 * slices and transposes may only stay on the CPU for the copy-count limit;
 * edge cases name their placement, NPU op count or CPU reason. Shallow
 * transposes of many elements take the elementwise MAX copy form
 * (cc_copy_block): at least 200 of them.
 *
 * Environment: NPUC_ST_CONFIGS (random configurations per kind, default
 * 2000; transposes get half), NPUC_ST_SEED (first seed, default 1), NPUC_ST_VERBOSE (print every
 * configuration left on the CPU). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/kernels/k_shape.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

typedef struct stats {
    int graphs, npu_ops, cpu_ops, draws, failed, rejected, limit;
    int ew_copies;   /* graphs with a copy in the elementwise MAX form */
} stats;

/* What a graph op must do: 1 NPU (n_eu NPU ops when > 0), 0 CPU (why in
 * the reason when given), -1 either (CPU only with `why`). */
typedef struct expect {
    int where[8];
    int n_eu[8];
    const char *why[8];
    int hw_epochs, sw_epochs;   /* -1: not checked */
} expect;

static void expect_init(expect *x, int where)
{
    memset(x, 0, sizeof *x);
    for (int i = 0; i < 8; i++) x->where[i] = where;
    x->hw_epochs = x->sw_epochs = -1;
}

static int32_t act(graph *g, const char *name, graph_dtype dt, int32_t rank, const int32_t *shape)
{
    int32_t t = graph_add_tensor(g, name, dt, rank, shape, NULL);
    if (t < 0 || dt == GRAPH_F32) return t;
    float sc = dt == GRAPH_I8 ? 0.05f : 0.001f;
    int64_t zp = dt == GRAPH_I8 ? -3 : 0;
    return graph_set_quant(g, t, 1, &sc, &zp, 0) ? -1 : t;
}

static void fill(npuc_rng *r, int pattern, graph_dtype dt, void *buf, size_t nbytes)
{
    if (dt == GRAPH_F32) {
        float *f = buf;
        for (size_t i = 0; i < nbytes / 4; i++) f[i] = (float)npuc_rng_range(r, -1000, 1000) * 0.25f;
        return;
    }
    size_t es = graph_dtype_size(dt), n = nbytes / es;
    int64_t lo = dt == GRAPH_I8 ? -128 : -32768, hi = dt == GRAPH_I8 ? 127 : 32767;
    for (size_t i = 0; i < n; i++) {
        int64_t v = pattern == 1 ? lo : pattern == 2 ? hi : pattern == 3 ? (npuc_rng_range(r, 0, 1) ? lo : hi)
                                                                        : npuc_rng_range(r, lo, hi);
        if (es == 1) ((int8_t *)buf)[i] = (int8_t)v;
        else ((int16_t *)buf)[i] = (int16_t)v;
    }
}

/* Compiles g for v, checks the placement against x and runs compiled vs
 * reference n_draws times. */
static bool run_graph(const char *name, graph *g, eu_variant v, const expect *x, int n_draws, stats *st)
{
    npuc_err e = {0};
    cc_model *cm = NULL;
    uint8_t *in = NULL;
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    bool ok = false;
    st->graphs++;
    for (int32_t i = 0; i < g->n_ops; i++) {
        char rwhy[160];
        if (!interp_op_supported(g, &g->ops[i], rwhy, sizeof rwhy)) {
            st->rejected++;
            fprintf(stderr, "FAIL %s: the reference rejects op %d: %s\n", name, i, rwhy);
            goto out;
        }
    }
    if (cc_compile_for(g, v, (cc_options){0}, &cm, &e)) {
        fprintf(stderr, "FAIL %s (%s): compile: %s\n", name, target_variant_name(v), e.msg);
        goto out;
    }
    for (int32_t i = 0; i < g->n_ops && i < 8; i++) {
        const cc_op_info *oi = &cm->ops[i];
        oi->npu ? st->npu_ops++ : st->cpu_ops++;
        if (!oi->npu && oi->why[0] == 0) {
            fprintf(stderr, "FAIL %s: op %d on the CPU without a reason\n", name, i);
            goto out;
        }
        if (!oi->npu && getenv("NPUC_ST_VERBOSE")) printf("CPU %s op %d: %s\n", name, i, oi->why);
        if (x->where[i] >= 0 && oi->npu != (x->where[i] == 1)) {
            fprintf(stderr, "FAIL %s (%s): op %d (%s) expected on the %s, got %s%s\n", name, target_variant_name(v), i,
                    graph_op_name(&g->ops[i]), x->where[i] ? "NPU" : "CPU", oi->npu ? "NPU" : "CPU: ",
                    oi->npu ? "" : oi->why);
            goto out;
        }
        if (oi->npu && x->n_eu[i] > 0 && oi->n_eu != x->n_eu[i]) {
            fprintf(stderr, "FAIL %s: op %d has %d NPU ops, expected %d\n", name, i, oi->n_eu, x->n_eu[i]);
            goto out;
        }
        if (!oi->npu && x->why[i] && !strstr(oi->why, x->why[i])) {
            fprintf(stderr, "FAIL %s: op %d reason \"%s\", expected \"%s\"\n", name, i, oi->why, x->why[i]);
            goto out;
        }
        if (!oi->npu && strstr(oi->why, "NPU copies (limit")) st->limit++;
    }
    int hw = 0, sw = 0;
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        const cc_epoch *ep = &cm->epochs[i];
        if (ep->kind == CC_EPOCH_SW) {
            sw++;
            continue;
        }
        hw++;
        if (ep->n_eu == 0) {
            fprintf(stderr, "FAIL %s: HW epoch %d has no NPU op\n", name, i);
            goto out;
        }
        bool ew = false;
        for (int32_t k = 0; k < ep->n_eu; k++)
            ew |= ep->ops[k].kind == SIM_K_ELEMENTWISE && ep->ops[k].mode == EU_EW_MAX && ep->ops[k].ifm2_scalar;
        st->ew_copies += ew;
    }
    if ((x->hw_epochs >= 0 && hw != x->hw_epochs) || (x->sw_epochs >= 0 && sw != x->sw_epochs)) {
        fprintf(stderr, "FAIL %s: %d HW and %d SW epochs, expected %d and %d\n", name, hw, sw, x->hw_epochs,
                x->sw_epochs);
        goto out;
    }
    const char *stage;
    if (cc_twin_open(&tw, g, cm, v, &stage, &e)) {
        fprintf(stderr, "FAIL %s (%s): %s: %s\n", name, target_variant_name(v), stage, e.msg);
        goto out;
    }
    const graph_tensor *ti = &g->tensors[g->inputs[0]];
    in = malloc(ti->nbytes + 1);
    if (!in) goto out;
    npuc_rng rng;
    npuc_rng_seed(&rng, (uint64_t)st->graphs * 7919u);
    for (int d = 0; d < n_draws; d++) {
        fill(&rng, d < 4 ? d : 0, ti->dtype, in, ti->nbytes);
        const char *side = "set input";
        if (cc_twin_set_input(&tw, 0, in, ti->nbytes, &e) || cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s (%s): %s: %s\n", name, target_variant_name(v), side, e.msg);
            goto out;
        }
        st->draws++;
        for (int32_t k = 0; k < g->n_outputs; k++) {
            size_t at, na;
            if (!cc_twin_same(&tw, k, &at, &na)) {
                fprintf(stderr, "FAIL %s (%s), draw %d: output %d differs at byte %zu of %zu\n", name,
                        target_variant_name(v), d, k, at, na);
                goto out;
            }
        }
    }
    ok = true;
out:
    if (!ok) st->failed++;
    free(in);
    cc_twin_close(&tw);
    cc_model_free(cm);
    return ok;
}

/* ------------------------------------------------------------- slices */

typedef struct slice_cfg {
    bool strided;             /* STRIDED_SLICE, else SLICE */
    graph_dtype dt;
    int32_t rank, shape[6];
    int32_t n, begin[6], end[6], strides[6];   /* SLICE: end = size */
    int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
    bool qdiff;               /* output quantization differs */
} slice_cfg;

static void slice_name(const slice_cfg *c, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "%s %s [", c->strided ? "STRIDED_SLICE" : "SLICE",
                                graph_dtype_name(c->dt));
    for (int32_t d = 0; d < c->rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", c->shape[d]);
    for (int32_t i = 0; i < c->n && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, c->strided ? "%s%d:%d:%d" : "%s%d+%d", i ? " " : "] ", c->begin[i],
                              c->end[i], c->strides[i]);
    if (o < size && c->strided)
        snprintf(buf + o, size - o, " masks b%d e%d el%d na%d sh%d", c->begin_mask, c->end_mask, c->ellipsis_mask,
                 c->new_axis_mask, c->shrink_axis_mask);
}

/* Output shape as the reference resolves it; false when it rejects the
 * slice or the output is empty. */
static bool slice_out_shape(const slice_cfg *c, int32_t *rank, int32_t *shape)
{
    k_dims din, dout;
    din.rank = c->rank;
    for (int32_t d = 0; d < c->rank; d++) din.d[d] = c->shape[d];
    if (c->strided) {
        k_strided_slice_spec sp = {.n = c->n, .begin = c->begin, .end = c->end, .strides = c->strides,
                                   .begin_mask = c->begin_mask, .end_mask = c->end_mask,
                                   .ellipsis_mask = c->ellipsis_mask, .new_axis_mask = c->new_axis_mask,
                                   .shrink_axis_mask = c->shrink_axis_mask};
        k_slice_params p;
        if (k_strided_slice_resolve(&din, &sp, &p, &dout) != K_OK) return false;
    } else {
        dout.rank = c->rank;
        for (int32_t d = 0; d < c->rank; d++) dout.d[d] = c->end[d] < 0 ? c->shape[d] - c->begin[d] : c->end[d];
    }
    *rank = dout.rank;
    for (int32_t d = 0; d < dout.rank; d++) {
        if (dout.d[d] <= 0) return false;
        shape[d] = dout.d[d];
    }
    return true;
}

static graph *slice_graph(const slice_cfg *c)
{
    int32_t orank, oshape[8];
    if (!slice_out_shape(c, &orank, oshape)) return NULL;
    graph *g = graph_new("slice");
    if (!g) return NULL;
    tfl_options o;
    memset(&o, 0, sizeof o);
    o.begin_mask = c->begin_mask;
    o.end_mask = c->end_mask;
    o.ellipsis_mask = c->ellipsis_mask;
    o.new_axis_mask = c->new_axis_mask;
    o.shrink_axis_mask = c->shrink_axis_mask;
    int32_t x = act(g, "x", c->dt, c->rank, c->shape), y = act(g, "y", c->dt, orank, oshape);
    if (c->qdiff && y >= 0) {
        float sc = 0.07f;
        int64_t zp = 1;
        graph_set_quant(g, y, 1, &sc, &zp, 0);
    }
    int32_t nn = c->n;
    int32_t b = graph_add_tensor(g, "begin", GRAPH_I32, 1, &nn, c->begin);
    int32_t e = graph_add_tensor(g, "end", GRAPH_I32, 1, &nn, c->end);
    int32_t s = c->strided ? graph_add_tensor(g, "strides", GRAPH_I32, 1, &nn, c->strides) : 0;
    int32_t ins[4] = {x, b, e, s};
    if (x < 0 || y < 0 || b < 0 || e < 0 || s < 0 ||
        graph_add_op(g, c->strided ? TFL_OP_STRIDED_SLICE : TFL_OP_SLICE, &o, c->strided ? 4 : 3, ins, 1, &y) < 0 ||
        graph_set_io(g, 1, &x, 1, &y)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static bool slice_case(const slice_cfg *c, eu_variant v, int where, int n_eu, const char *why, stats *st)
{
    char name[300];
    slice_name(c, name, sizeof name);
    graph *g = slice_graph(c);
    if (!g) {
        fprintf(stderr, "FAIL %s: no graph (the slice is empty or invalid)\n", name);
        st->failed++;
        return false;
    }
    expect x;
    expect_init(&x, where);
    x.n_eu[0] = n_eu;
    x.why[0] = why;
    bool ok = run_graph(name, g, v, &x, 5, st);
    graph_free(g);
    return ok;
}

static void random_slice(npuc_rng *r, slice_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->strided = npuc_rng_range(r, 0, 3) != 0;
    c->dt = npuc_rng_range(r, 0, 1) ? GRAPH_I8 : GRAPH_I16;
    c->rank = (int32_t)npuc_rng_range(r, 1, 4);
    for (int32_t d = 0; d < c->rank; d++) {
        bool ch = d == c->rank - 1;
        c->shape[d] = (int32_t)npuc_rng_range(r, 1, ch ? 24 : 9);
    }
    if (c->rank == 4 && npuc_rng_range(r, 0, 2)) c->shape[0] = 1;
    c->n = c->rank;
    for (int32_t d = 0; d < c->rank; d++) {
        int32_t D = c->shape[d];
        if (!c->strided) {
            c->begin[d] = (int32_t)npuc_rng_range(r, 0, D - 1);
            c->end[d] = npuc_rng_range(r, 0, 3) ? (int32_t)npuc_rng_range(r, 1, D - c->begin[d]) : -1;
            c->strides[d] = 1;
            continue;
        }
        int32_t s = (int32_t)npuc_rng_range(r, 1, 3);
        if (npuc_rng_range(r, 0, 3) == 0) s = -s;
        if (d == c->rank - 1 && npuc_rng_range(r, 0, 1)) s = s < 0 ? s : (int32_t)npuc_rng_range(r, 2, 4);
        c->strides[d] = s;
        c->begin[d] = (int32_t)npuc_rng_range(r, -D - 1, D + 1);
        c->end[d] = (int32_t)npuc_rng_range(r, -D - 1, D + 1);
        if (npuc_rng_range(r, 0, 3) == 0) c->begin_mask |= 1 << d;
        if (npuc_rng_range(r, 0, 3) == 0) c->end_mask |= 1 << d;
        if (npuc_rng_range(r, 0, 9) == 0 && c->begin[d] >= -D && c->begin[d] < D) c->shrink_axis_mask |= 1 << d;
    }
    if (c->strided && c->rank < 4 && npuc_rng_range(r, 0, 9) == 0) {
        /* a new axis in front */
        for (int32_t d = c->n; d > 0; d--) {
            c->begin[d] = c->begin[d - 1];
            c->end[d] = c->end[d - 1];
            c->strides[d] = c->strides[d - 1];
        }
        c->begin[0] = 0;
        c->end[0] = 1;
        c->strides[0] = 1;
        c->begin_mask <<= 1;
        c->end_mask <<= 1;
        c->shrink_axis_mask <<= 1;
        c->new_axis_mask = 1;
        c->n++;
    }
}

static void test_slices(long n_configs, uint64_t seed0)
{
    stats st = {0};
    npuc_rng r;
    int made = 0;
    for (long i = 0; made < n_configs && i < n_configs * 20; i++) {
        npuc_rng_seed(&r, seed0 + (uint64_t)i);
        slice_cfg c;
        random_slice(&r, &c);
        int32_t orank, os[8];
        if (!slice_out_shape(&c, &orank, os)) continue;
        made++;
        /* int8/int16 slices leave the NPU only past the copy limit */
        CHECK(slice_case(&c, variants[made % 6], -1, 0, "NPU copies (limit", &st));
    }
    int rnd_cpu = st.cpu_ops;
    printf("random slices: %d configurations, %d on the NPU, %d on the CPU (copy limit), %d draws, %d failed\n",
           made, st.npu_ops, st.cpu_ops, st.draws, st.failed);
    CHECK(made == n_configs);
    CHECK(rnd_cpu * 20 < made);

    slice_cfg c;
    /* channel stride 2, uniform rows: H and W merge into one row axis */
    memset(&c, 0, sizeof c);
    c.strided = true;
    c.dt = GRAPH_I8;
    c.rank = c.n = 4;
    int32_t s1[4] = {1, 8, 8, 16}, e1[4] = {1, 8, 8, 16}, st1[4] = {1, 1, 1, 2};
    memcpy(c.shape, s1, sizeof s1);
    memcpy(c.end, e1, sizeof e1);
    memcpy(c.strides, st1, sizeof st1);
    for (int k = 0; k < 6; k++) CHECK(slice_case(&c, variants[k], 1, 1, NULL, &st));
    c.dt = GRAPH_I16;
    CHECK(slice_case(&c, EU_U55_128, 1, 1, NULL, &st));
    /* spatial stride 2 too: one op per output row (4 rows) */
    c.strides[1] = c.strides[2] = 2;
    for (int k = 0; k < 6; k++) CHECK(slice_case(&c, variants[k], 1, 4, NULL, &st));
    /* channels reversed: one op per channel (depth-1 ops over the 64 pixels) */
    c.dt = GRAPH_I8;
    c.strides[1] = c.strides[2] = 1;
    c.strides[3] = -1;
    c.begin[3] = -1;
    c.end[3] = 8;
    c.end_mask = 0;
    CHECK(slice_case(&c, EU_U65_256, 1, 7, NULL, &st));
    /* a reversed row axis: one op per row */
    c.strides[3] = 1;
    c.begin[3] = 0;
    c.end[3] = 16;
    c.strides[1] = -2;
    c.begin[1] = 7;
    c.end[1] = 0;
    CHECK(slice_case(&c, EU_U55_64, 1, 4, NULL, &st));
    /* every axis reversed past 64 copies: CPU */
    memset(&c, 0, sizeof c);
    c.strided = true;
    c.dt = GRAPH_I8;
    c.rank = c.n = 4;
    int32_t s2[4] = {1, 9, 9, 10}, b2[4] = {0, -1, -1, -1}, e2[4] = {1, -10, -10, -11}, st2[4] = {1, -1, -1, -1};
    memcpy(c.shape, s2, sizeof s2);
    memcpy(c.begin, b2, sizeof b2);
    memcpy(c.end, e2, sizeof e2);
    memcpy(c.strides, st2, sizeof st2);
    CHECK(slice_case(&c, EU_U55_256, 0, 0, "needs 810 NPU copies (limit 64)", &st));
    /* SLICE keeping 2 of 3 batches: one copy */
    memset(&c, 0, sizeof c);
    c.dt = GRAPH_I16;
    c.rank = c.n = 4;
    int32_t s3[4] = {3, 4, 5, 6}, b3[4] = {1, 0, 0, 0}, z3[4] = {2, -1, -1, -1};
    memcpy(c.shape, s3, sizeof s3);
    memcpy(c.begin, b3, sizeof b3);
    memcpy(c.end, z3, sizeof z3);
    for (int k = 0; k < 4; k++) c.strides[k] = 1;
    CHECK(slice_case(&c, EU_U65_512, 1, 1, NULL, &st));
    /* 2 batches, a 2x2 window in each, every other channel: 2 x 2 ops */
    int32_t b4[4] = {1, 1, 2, 0}, z4[4] = {2, 2, 2, 6};
    c.strided = true;
    c.dt = GRAPH_I8;
    memcpy(c.begin, b4, sizeof b4);
    for (int k = 0; k < 4; k++) c.end[k] = b4[k] + z4[k];
    c.end[3] = 6;
    c.strides[3] = 2;
    CHECK(slice_case(&c, EU_U55_32, 1, 2, NULL, &st));
    /* the single-op form is unchanged: a window with spatial strides */
    int32_t b5[4] = {0, 1, 0, 2}, e5[4] = {1, 4, 5, 5}, st5[4] = {1, 2, 2, 1};
    c.shape[0] = 1;
    memcpy(c.begin, b5, sizeof b5);
    memcpy(c.end, e5, sizeof e5);
    memcpy(c.strides, st5, sizeof st5);
    CHECK(slice_case(&c, EU_U55_128, 1, 1, NULL, &st));
    /* different output quantization: CPU */
    c.qdiff = true;
    CHECK(slice_case(&c, EU_U55_128, 0, 0, "quantization differ", &st));
    printf("slices: %d graphs, %d failed\n", st.graphs, st.failed);
}

/* ---------------------------------------------------------- transposes */

static graph *transpose_graph(graph_dtype dt, int32_t rank, const int32_t *shape, const int32_t *perm,
                              bool perm64)
{
    graph *g = graph_new("transpose");
    if (!g) return NULL;
    int32_t os[6];
    for (int32_t i = 0; i < rank; i++) os[i] = shape[perm[i]];
    int64_t p64[6];
    for (int32_t i = 0; i < rank; i++) p64[i] = perm[i];
    tfl_options o;
    memset(&o, 0, sizeof o);
    int32_t x = act(g, "x", dt, rank, shape), y = act(g, "y", dt, rank, os);
    int32_t p = graph_add_tensor(g, "perm", perm64 ? GRAPH_I64 : GRAPH_I32, 1, &rank,
                                 perm64 ? (const void *)p64 : (const void *)perm);
    int32_t ins[2] = {x, p};
    if (x < 0 || y < 0 || p < 0 || graph_add_op(g, TFL_OP_TRANSPOSE, &o, 2, ins, 1, &y) < 0 ||
        graph_set_io(g, 1, &x, 1, &y)) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static bool transpose_case(graph_dtype dt, int32_t rank, const int32_t *shape, const int32_t *perm, bool perm64,
                           eu_variant v, int where, int n_eu, const char *why, stats *st)
{
    char name[200];
    size_t o = (size_t)snprintf(name, sizeof name, "TRANSPOSE %s [", graph_dtype_name(dt));
    for (int32_t d = 0; d < rank; d++) o += (size_t)snprintf(name + o, sizeof name - o, "%s%d", d ? "," : "", shape[d]);
    o += (size_t)snprintf(name + o, sizeof name - o, "] perm");
    for (int32_t d = 0; d < rank; d++) o += (size_t)snprintf(name + o, sizeof name - o, " %d", perm[d]);
    graph *g = transpose_graph(dt, rank, shape, perm, perm64);
    if (!g) {
        fprintf(stderr, "FAIL %s: graph build\n", name);
        st->failed++;
        return false;
    }
    expect x;
    expect_init(&x, where);
    x.n_eu[0] = n_eu;
    x.why[0] = why;
    bool ok = run_graph(name, g, v, &x, 4, st);
    graph_free(g);
    return ok;
}

/* All permutations of 0..n-1 into out (n! rows of n). */
static int perms(int32_t n, int32_t out[][6])
{
    int cnt = 0;
    int32_t p[6];
    for (int32_t i = 0; i < n; i++) p[i] = i;
    for (;;) {
        memcpy(out[cnt++], p, sizeof p);
        int32_t i = n - 2;
        while (i >= 0 && p[i] > p[i + 1]) i--;
        if (i < 0) return cnt;
        int32_t j = n - 1;
        while (p[j] < p[i]) j--;
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
        for (int32_t a = i + 1, b = n - 1; a < b; a++, b--) {
            t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
    }
}

static void test_transposes(long n_configs, uint64_t seed0)
{
    stats st = {0};
    static int32_t P[720][6];
    /* every rank-2/3/4 permutation on shapes with all axes > 1, int8 and
     * int16, across the variants: at most min(dim) <= 9 copies, always on
     * the NPU */
    static const int32_t sh4[][4] = {{1, 5, 7, 3}, {1, 6, 4, 9}, {1, 2, 3, 17}, {1, 8, 8, 8}, {2, 3, 4, 5}};
    static const int32_t sh3[][3] = {{5, 7, 3}, {9, 2, 16}, {4, 33, 6}};
    static const int32_t sh2[][2] = {{5, 7}, {1, 40}, {37, 3}, {64, 64}};
    int k = 0;
    for (int32_t rank = 2; rank <= 4; rank++) {
        int np = perms(rank, P);
        int ns = rank == 4 ? 5 : rank == 3 ? 3 : 4;
        for (int s = 0; s < ns; s++)
            for (int i = 0; i < np; i++, k++) {
                const int32_t *shape = rank == 4 ? sh4[s] : rank == 3 ? sh3[s] : sh2[s];
                graph_dtype dt = k % 2 ? GRAPH_I16 : GRAPH_I8;
                CHECK(transpose_case(dt, rank, shape, P[i], k % 5 == 0, variants[k % 6], 1, 0, NULL, &st));
            }
    }
    printf("all rank-2/3/4 permutations: %d graphs, %d failed\n", st.graphs, st.failed);
    /* one-op forms */
    int32_t a[4] = {1, 5, 7, 3};
    int32_t hw[4] = {0, 2, 1, 3}, nchw[4] = {0, 3, 1, 2}, nhwc[4] = {0, 2, 3, 1}, cwh[4] = {0, 3, 2, 1};
    for (int v = 0; v < 6; v++) {
        CHECK(transpose_case(GRAPH_I8, 4, a, hw, false, variants[v], 1, 1, NULL, &st));
        CHECK(transpose_case(GRAPH_I16, 4, a, nchw, false, variants[v], 1, 1, NULL, &st));
        CHECK(transpose_case(GRAPH_I8, 4, a, nhwc, false, variants[v], 1, 1, NULL, &st));
    }
    /* C,W,H: no axes merge, one op per index of the shortest axis */
    CHECK(transpose_case(GRAPH_I8, 4, a, cwh, false, EU_U55_128, 1, 3, NULL, &st));
    /* past the copy limit: CPU with the count */
    int32_t big[4] = {1, 70, 66, 65};
    CHECK(transpose_case(GRAPH_I8, 4, big, cwh, false, EU_U55_128, 0, 0, "needs 65 NPU copies (limit 64)", &st));
    /* float32: CPU */
    CHECK(transpose_case(GRAPH_F32, 4, a, hw, false, EU_U55_128, 0, 0, "float32", &st));
    /* rank 5 and 6 with size-1 axes dropped */
    int32_t s5[5] = {1, 3, 1, 4, 5}, p5[5] = {4, 2, 0, 3, 1};
    CHECK(transpose_case(GRAPH_I8, 5, s5, p5, false, EU_U65_256, 1, 0, NULL, &st));
    int32_t s6[6] = {2, 1, 3, 1, 4, 5}, p6[6] = {5, 1, 0, 3, 4, 2};
    CHECK(transpose_case(GRAPH_I16, 6, s6, p6, true, EU_U55_64, 1, 0, NULL, &st));
    /* random shapes and permutations: CPU only past the copy limit */
    npuc_rng r;
    int rnd = 0, rnd_limit = st.limit;
    for (long i = 0; i < n_configs; i++) {
        npuc_rng_seed(&r, seed0 + 1000003u * (uint64_t)(i + 1));
        int32_t rank = (int32_t)npuc_rng_range(&r, 1, 5), shape[6], perm[6];
        for (int32_t d = 0; d < rank; d++) shape[d] = (int32_t)npuc_rng_range(&r, 1, npuc_rng_range(&r, 0, 3) ? 8 : 80);
        int np = perms(rank, P);
        memcpy(perm, P[npuc_rng_range(&r, 0, np - 1)], sizeof perm);
        size_t elems = 1;
        for (int32_t d = 0; d < rank; d++) elems *= (size_t)shape[d];
        if (elems > 200000) continue;
        rnd++;
        CHECK(transpose_case(npuc_rng_range(&r, 0, 1) ? GRAPH_I8 : GRAPH_I16, rank, shape, perm,
                             npuc_rng_range(&r, 0, 3) == 0, variants[i % 6], -1, 0, "NPU copies (limit", &st));
    }
    printf("random transposes: %d, %d past the copy limit\n", rnd, st.limit - rnd_limit);
    CHECK((st.limit - rnd_limit) * 10 < rnd);
    /* shallow copies of many elements (an NCHW <-> NHWC image with few
     * channels): the elementwise MAX form (cc_copy_block), 200 and more */
    int shallow = 0, ew0 = st.ew_copies;
    for (long i = 0; i < n_configs; i++) {
        npuc_rng_seed(&r, seed0 + 7919u * (uint64_t)(i + 1));
        int32_t shape[4] = {1, (int32_t)npuc_rng_range(&r, 1, 4), (int32_t)npuc_rng_range(&r, 32, 120),
                            (int32_t)npuc_rng_range(&r, 32, 120)};
        static const int32_t to_nhwc[4] = {0, 2, 3, 1}, to_nchw[4] = {0, 3, 1, 2}, hw_swap[4] = {0, 2, 1, 3};
        const int32_t *perm = i % 3 == 0 ? to_nhwc : i % 3 == 1 ? hw_swap : to_nchw;
        if (perm == to_nchw) {   /* an NHWC image of 1..4 channels */
            int32_t c = shape[1];
            shape[1] = shape[2], shape[2] = shape[3], shape[3] = c;
        }
        shallow++;
        CHECK(transpose_case(npuc_rng_range(&r, 0, 1) ? GRAPH_I8 : GRAPH_I16, 4, shape, perm, false, variants[i % 6], 1,
                             0, NULL, &st));
    }
    printf("shallow transposes: %d, %d in the elementwise copy form\n", shallow, st.ew_copies - ew0);
    if (n_configs >= 1000) CHECK(st.ew_copies - ew0 >= 200);
    printf("transposes: %d graphs, %d NPU ops / %d CPU ops, %d failed\n", st.graphs, st.npu_ops, st.cpu_ops, st.failed);
}

/* ---------------------------------------------------------------- views */

/* A chain of ops on one int8/float tensor; op kinds: 'r' RESHAPE to
 * [1, a*b, c] (of [1, a, b, c]) or back, 't' an NPU transpose (perm 0 2 1
 * of rank 3, or H<->W of rank 4), 'q' a slice whose output quantization
 * differs (CPU), 'f' float32 transposes around. */
static void test_views(void)
{
    stats st = {0};
    /* input -> RESHAPE -> TRANSPOSE -> RESHAPE -> output: one HW epoch */
    for (int v = 0; v < 6; v++) {
        graph *g = graph_new("views");
        int32_t s4[4] = {1, 4, 6, 8}, s3[3] = {1, 24, 8}, t3[3] = {1, 8, 24}, t4[4] = {1, 8, 4, 6};
        int32_t p3[3] = {0, 2, 1}, three = 3, four = 4;
        int32_t x = act(g, "x", GRAPH_I8, 4, s4), a = act(g, "a", GRAPH_I8, 3, s3);
        int32_t b = act(g, "b", GRAPH_I8, 3, t3), y = act(g, "y", GRAPH_I8, 4, t4);
        int32_t ns3 = graph_add_tensor(g, "s3", GRAPH_I32, 1, &three, s3);
        int32_t ns4 = graph_add_tensor(g, "s4", GRAPH_I32, 1, &four, t4);
        int32_t pp = graph_add_tensor(g, "p", GRAPH_I32, 1, &three, p3);
        tfl_options o;
        memset(&o, 0, sizeof o);
        int32_t i0[2] = {x, ns3}, i1[2] = {a, pp}, i2[2] = {b, ns4};
        bool ok = graph_add_op(g, TFL_OP_RESHAPE, &o, 2, i0, 1, &a) >= 0 &&
                  graph_add_op(g, TFL_OP_TRANSPOSE, &o, 2, i1, 1, &b) >= 0 &&
                  graph_add_op(g, TFL_OP_RESHAPE, &o, 2, i2, 1, &y) >= 0 && !graph_set_io(g, 1, &x, 1, &y);
        CHECK(ok);
        expect ex;
        expect_init(&ex, 1);
        ex.hw_epochs = 1;
        ex.sw_epochs = 0;
        if (ok) CHECK(run_graph("input -> RESHAPE -> TRANSPOSE -> RESHAPE", g, variants[v], &ex, 3, &st));
        graph_free(g);
    }
    /* input -> RESHAPE -> slice (CPU) -> RESHAPE -> TRANSPOSE: the first view
     * has no NPU op to join (CPU, its own SW epoch); the second opens the HW
     * epoch of the transpose, whose input is the CPU slice's output */
    {
        graph *g = graph_new("views2");
        int32_t s4[4] = {1, 4, 6, 8}, s3[3] = {1, 24, 8}, q3[3] = {1, 12, 8}, r4[4] = {1, 2, 6, 8},
                t4[4] = {1, 6, 2, 8};
        int32_t three = 3, four = 4, b3[3] = {0, 0, 0}, e3[3] = {1, 24, 8}, st3[3] = {1, 2, 1};
        int32_t p4[4] = {0, 2, 1, 3};
        int32_t x = act(g, "x", GRAPH_I8, 4, s4), a = act(g, "a", GRAPH_I8, 3, s3);
        int32_t q = act(g, "q", GRAPH_I8, 3, q3), m = act(g, "m", GRAPH_I8, 4, r4), y = act(g, "y", GRAPH_I8, 4, t4);
        float sc = 0.07f;
        int64_t zp = 2;
        graph_set_quant(g, q, 1, &sc, &zp, 0);
        graph_set_quant(g, m, 1, &sc, &zp, 0);
        graph_set_quant(g, y, 1, &sc, &zp, 0);
        int32_t ns3 = graph_add_tensor(g, "s3", GRAPH_I32, 1, &three, s3);
        int32_t ns4 = graph_add_tensor(g, "s4", GRAPH_I32, 1, &four, r4);
        int32_t bb = graph_add_tensor(g, "b", GRAPH_I32, 1, &three, b3);
        int32_t ee = graph_add_tensor(g, "e", GRAPH_I32, 1, &three, e3);
        int32_t ss = graph_add_tensor(g, "st", GRAPH_I32, 1, &three, st3);
        int32_t pp = graph_add_tensor(g, "p", GRAPH_I32, 1, &four, p4);
        tfl_options o;
        memset(&o, 0, sizeof o);
        int32_t i0[2] = {x, ns3}, i1[4] = {a, bb, ee, ss}, i2[2] = {q, ns4}, i3[2] = {m, pp};
        bool ok = graph_add_op(g, TFL_OP_RESHAPE, &o, 2, i0, 1, &a) >= 0 &&
                  graph_add_op(g, TFL_OP_STRIDED_SLICE, &o, 4, i1, 1, &q) >= 0 &&
                  graph_add_op(g, TFL_OP_RESHAPE, &o, 2, i2, 1, &m) >= 0 &&
                  graph_add_op(g, TFL_OP_TRANSPOSE, &o, 2, i3, 1, &y) >= 0 && !graph_set_io(g, 1, &x, 1, &y);
        CHECK(ok);
        expect ex;
        expect_init(&ex, 1);
        ex.where[0] = 0;
        ex.why[0] = "no NPU op to join";
        ex.where[1] = 0;
        ex.why[1] = "quantization differ";
        ex.n_eu[3] = 1;
        ex.hw_epochs = 1;
        ex.sw_epochs = 2;
        if (ok) CHECK(run_graph("input -> RESHAPE -> slice (CPU) -> RESHAPE -> TRANSPOSE", g, EU_U55_128, &ex, 3, &st));
        /* the HW epoch starts at the view and reads the slice's output */
        cc_options opt;
        memset(&opt, 0, sizeof opt);
        npuc_err e = {0};
        cc_model *cm = NULL;
        if (ok && !target_default(EU_U55_256, &opt.sys, &e) && !cc_compile(g, &opt, &cm, &e)) {
            const cc_epoch *ep = &cm->epochs[cm->ops[2].epoch];
            CHECK(ep->kind == CC_EPOCH_HW && ep->first_op == 2 && ep->n_ops == 2 && ep->n_eu == 1);
            CHECK(ep->n_inputs == 1 && ep->inputs[0] == q);
            CHECK(ep->n_outputs == 1 && ep->outputs[0] == y);
            CHECK(cm->ops[2].epoch == cm->ops[3].epoch);
        } else {
            CHECK(!"compile");
        }
        cc_model_free(cm);
        graph_free(g);
    }
    /* float: TRANSPOSE (CPU) -> RESHAPE -> TRANSPOSE (CPU), and a graph of
     * one view: no HW epoch at all */
    {
        graph *g = graph_new("views3");
        int32_t s4[4] = {1, 4, 6, 8}, t4[4] = {1, 6, 4, 8}, r3[3] = {6, 4, 8}, u3[3] = {4, 6, 8};
        int32_t p4[4] = {0, 2, 1, 3}, p3[3] = {1, 0, 2}, three = 3, four = 4;
        int32_t x = act(g, "x", GRAPH_F32, 4, s4), a = act(g, "a", GRAPH_F32, 4, t4);
        int32_t b = act(g, "b", GRAPH_F32, 3, r3), y = act(g, "y", GRAPH_F32, 3, u3);
        int32_t pa = graph_add_tensor(g, "pa", GRAPH_I32, 1, &four, p4);
        int32_t pb = graph_add_tensor(g, "pb", GRAPH_I32, 1, &three, p3);
        int32_t ns = graph_add_tensor(g, "s", GRAPH_I32, 1, &three, r3);
        tfl_options o;
        memset(&o, 0, sizeof o);
        int32_t i0[2] = {x, pa}, i1[2] = {a, ns}, i2[2] = {b, pb};
        bool ok = graph_add_op(g, TFL_OP_TRANSPOSE, &o, 2, i0, 1, &a) >= 0 &&
                  graph_add_op(g, TFL_OP_RESHAPE, &o, 2, i1, 1, &b) >= 0 &&
                  graph_add_op(g, TFL_OP_TRANSPOSE, &o, 2, i2, 1, &y) >= 0 && !graph_set_io(g, 1, &x, 1, &y);
        CHECK(ok);
        expect ex;
        expect_init(&ex, 0);
        ex.why[0] = "float32";
        ex.why[1] = "aliases its input's buffer";
        ex.why[2] = "float32";
        ex.hw_epochs = 0;
        ex.sw_epochs = 3;
        if (ok) CHECK(run_graph("float TRANSPOSE -> RESHAPE -> TRANSPOSE", g, EU_U65_512, &ex, 2, &st));
        graph_free(g);

        g = graph_new("views4");
        int32_t xs[4] = {1, 4, 6, 8}, ys[2] = {24, 8}, two = 2;
        x = act(g, "x", GRAPH_I8, 4, xs);
        y = act(g, "y", GRAPH_I8, 2, ys);
        ns = graph_add_tensor(g, "s", GRAPH_I32, 1, &two, ys);
        int32_t i4[2] = {x, ns};
        ok = graph_add_op(g, TFL_OP_RESHAPE, &o, 2, i4, 1, &y) >= 0 && !graph_set_io(g, 1, &x, 1, &y);
        CHECK(ok);
        expect_init(&ex, 0);
        ex.why[0] = "no NPU op to join";
        ex.hw_epochs = 0;
        ex.sw_epochs = 1;
        if (ok) CHECK(run_graph("input -> RESHAPE -> output", g, EU_U55_32, &ex, 2, &st));
        graph_free(g);
    }
    printf("views: %d graphs, %d failed\n", st.graphs, st.failed);
}

int main(void)
{
    long n = env_long("NPUC_ST_CONFIGS", 2000);
    uint64_t seed = (uint64_t)env_long("NPUC_ST_SEED", 1);
    test_slices(n, seed);
    test_transposes(n / 2, seed);
    test_views();
    TEST_MAIN_END();
}
