/* CONCATENATION inputs written in place into their slices of the output
 * (src/compiler/cc_concat.c, cc_concat_place). Small graphs are built,
 * compiled for an Ethos-U variant, emitted as TFLite, read back and run with
 * the ethos-u ops on the virtual NPU, and compared byte for byte with the
 * reference interpreter on random inputs. Each case also states how many
 * copies the concatenation keeps when every legal input is placed
 * (CC_CONCAT_ALL), so that the test fails both when a copy is elided that
 * must not be and when one that may be is kept.
 *
 *   - random concatenations on H, W and C (rank 4), 2..4 inputs, int8 and
 *     int16, produced by CONV_2D, DEPTHWISE_CONV_2D, MAX / AVERAGE_POOL_2D,
 *     ADD, MAXIMUM, LOGISTIC, or chained (an input produced from another
 *     input, so one op reads one slice of the buffer and writes another);
 *     inputs that keep their copy: graph inputs, constants, int8 inputs with
 *     another quantization (LUT), a tensor given twice, graph outputs, a
 *     tensor a CPU op also reads; inputs that NPU ops also read (they read
 *     the slice); every case under ALL and under AUTO or OFF, some with
 *     --cascade all and --optimise size;
 *   - FULLY_CONNECTED producers (rank 2, batches) on both axes;
 *   - nested concatenations (an output placed into another one's slice);
 *   - a cascade (--cascade all) whose last op writes its bands into a
 *     slice;
 *   - an activation fused into the concatenation (RELU / RELU6: a clamp
 *     or LUT on its copies) keeps every copy;
 *   - the default (AUTO): where the producers run right before the
 *     concatenation every copy goes and the arena shrinks; 16-aligned
 *     channel slices keep the output NHCWB16; unaligned or H / W slices
 *     store it NHWC.
 *
 * Environment: NPUC_CATSLICE_CONFIGS (random configurations, default 300),
 * NPUC_CATSLICE_SEED (first seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_test_npu.h"

static uint64_t g_seed;

typedef struct stats {
    int cases, failed, inputs, placed;
} stats;

typedef struct run_opts {
    eu_variant v;
    cc_optimise optimise;
    cc_cascade_mode cascade;
    cc_concat_mode concat;
} run_opts;

/* Compiles g, checks that concatenation op `cat` keeps `copies` NPU ops
 * (-1: any), runs `draws` random inputs through both interpreters. *cm_out
 * (optional) receives the compiled model. Returns success. */
static bool run_case(const char *name, graph *g, const run_opts *ro, int32_t cat, int copies, int draws,
                     cc_model **cm_out, stats *st)
{
    npuc_err e;
    memset(&e, 0, sizeof e);
    cc_model *cm = NULL;
    uint8_t *in = NULL;
    cc_twin tw;
    memset(&tw, 0, sizeof tw);
    bool ok = false;
    st->cases++;
    cc_options opt = {.optimise = ro->optimise, .cascade = ro->cascade, .concat = ro->concat};
    if (cc_compile_for(g, ro->v, opt, &cm, &e)) {
        fprintf(stderr, "FAIL %s (%s), seed %llu: compile: %s\n", name, target_variant_name(ro->v),
                (unsigned long long)g_seed, e.msg);
        goto out;
    }
    for (int32_t i = 0; i < cm->g->n_ops; i++)
        if (!cm->ops[i].npu && cm->g->ops[i].opcode != TFL_OP_BROADCAST_TO) {
            fprintf(stderr, "FAIL %s, seed %llu: op %d (%s) on the CPU: %s\n", name, (unsigned long long)g_seed,
                    cm->g->ops[i].index, graph_op_name(&cm->g->ops[i]), cm->ops[i].why);
            goto out;
        }
    /* the op order pass may run the ops in another order */
    if (cat >= 0) cat = cc_op_of_source(cm, cat);
    if (cat >= 0 && copies >= 0 && cm->ops[cat].n_eu != copies) {
        fprintf(stderr, "FAIL %s (%s), seed %llu, mode %d: the concatenation keeps %d copies, expected %d\n", name,
                target_variant_name(ro->v), (unsigned long long)g_seed, (int)ro->concat, cm->ops[cat].n_eu, copies);
        goto out;
    }
    const char *stage;
    if (cc_twin_open(&tw, g, cm, ro->v, &stage, &e)) {
        fprintf(stderr, "FAIL %s, seed %llu: %s: %s\n", name, (unsigned long long)g_seed, stage, e.msg);
        goto out;
    }
    npuc_rng rng;
    npuc_rng_seed(&rng, g_seed * 7919u + 17u);
    for (int d = 0; d < draws; d++) {
        for (int32_t k = 0; k < g->n_inputs; k++) {
            const graph_tensor *ti = &g->tensors[g->inputs[k]];
            free(in);
            in = malloc(ti->nbytes + 1);
            if (!in) goto out;
            for (size_t b = 0; b < ti->nbytes; b++) in[b] = (uint8_t)npuc_rng_next(&rng);
            if (cc_twin_set_input(&tw, k, in, ti->nbytes, &e)) {
                fprintf(stderr, "FAIL %s: set input: %s\n", name, e.msg);
                goto out;
            }
        }
        const char *side;
        if (cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s (%s), seed %llu: %s: %s\n", name, target_variant_name(ro->v),
                    (unsigned long long)g_seed, side, e.msg);
            goto out;
        }
        for (int32_t k = 0; k < g->n_outputs; k++) {
            size_t at, na;
            if (!cc_twin_same(&tw, k, &at, &na)) {
                fprintf(stderr, "FAIL %s (%s), seed %llu, mode %d, draw %d: output %d differs at byte %zu of %zu\n",
                        name, target_variant_name(ro->v), (unsigned long long)g_seed, (int)ro->concat, d, k, at, na);
                goto out;
            }
        }
    }
    /* the NPU ran (every draw at least one ethos-u op) */
    if (tw.nc.n_runs < draws) {
        fprintf(stderr, "FAIL %s: %d ethos-u runs for %d draws\n", name, tw.nc.n_runs, draws);
        goto out;
    }
    ok = true;
out:
    if (!ok) st->failed++;
    CHECK(ok);
    free(in);
    cc_twin_close(&tw);
    if (cm_out && ok) *cm_out = cm;
    else cc_model_free(cm);
    return ok;
}

/* ------------------------------------------------------------ builders */

typedef struct gb {
    graph *g;
    npuc_rng *r;
    graph_dtype dt;
    bool ok;
    int32_t gin[16], n_gin;
    int32_t gout[16], n_gout;
    int n;                    /* names */
} gb;

static int rnd(npuc_rng *r, int lo, int hi) { return (int)npuc_rng_range(r, lo, hi); }

static tfl_options defopt(void)
{
    tfl_options o;
    memset(&o, 0, sizeof o);
    return o;
}

static int32_t act(gb *b, int32_t rank, const int32_t *shape, float scale, int64_t zp)
{
    char nm[24];
    snprintf(nm, sizeof nm, "t%d", b->n++);
    int32_t t = graph_add_tensor(b->g, nm, b->dt, rank, shape, NULL);
    if (t < 0 || graph_set_quant(b->g, t, 1, &scale, &zp, 0)) b->ok = false;
    return t;
}

static int32_t cnst(gb *b, graph_dtype dt, int32_t rank, const int32_t *shape, float scale, int64_t zp)
{
    size_t n = 1;
    for (int32_t i = 0; i < rank; i++) n *= (size_t)shape[i];
    size_t es = graph_dtype_size(dt);
    uint8_t *d = malloc(n * es + 1);
    if (!d) {
        b->ok = false;
        return -1;
    }
    for (size_t i = 0; i < n * es; i++) d[i] = (uint8_t)npuc_rng_next(b->r);
    if (dt == GRAPH_I32 || dt == GRAPH_I64)   /* biases: small */
        for (size_t i = 0; i < n; i++) {
            int64_t v = rnd(b->r, -3000, 3000);
            if (dt == GRAPH_I32) ((int32_t *)d)[i] = (int32_t)v;
            else ((int64_t *)d)[i] = v;
        }
    char nm[24];
    snprintf(nm, sizeof nm, "k%d", b->n++);
    int32_t t = graph_add_tensor(b->g, nm, dt, rank, shape, d);
    free(d);
    if (t < 0 || graph_set_quant(b->g, t, 1, &scale, &zp, 0)) b->ok = false;
    return t;
}

static int32_t input(gb *b, int32_t rank, const int32_t *shape, float scale, int64_t zp)
{
    int32_t t = act(b, rank, shape, scale, zp);
    if (t >= 0 && b->n_gin < 16) b->gin[b->n_gin++] = t;
    return t;
}

static void output(gb *b, int32_t t)
{
    for (int32_t i = 0; i < b->n_gout; i++)
        if (b->gout[i] == t) return;
    if (b->n_gout < 16) b->gout[b->n_gout++] = t;
}

static void op(gb *b, int32_t code, const tfl_options *o, int32_t n_in, const int32_t *in, int32_t out)
{
    if (b->ok && graph_add_op(b->g, code, o, n_in, in, 1, &out) < 0) b->ok = false;
}

static const graph_tensor *T(const gb *b, int32_t t) { return &b->g->tensors[t]; }

/* CONV_2D (k x k, stride 1, SAME) or DEPTHWISE (multiplier 1) of x into a
 * new [1, H, W, oc] tensor with the given quantization. */
static int32_t conv(gb *b, int32_t x, bool dw, int32_t oc, int32_t k, float so, int64_t zo)
{
    if (!b->ok) return -1;
    const graph_tensor *tx = T(b, x);
    int32_t ic = tx->shape[3];
    if (dw) oc = ic;
    int32_t ys[4] = {1, tx->shape[1], tx->shape[2], oc};
    float sx = tx->q.scale[0], sw = 0.01f;
    int32_t y = act(b, 4, ys, so, zo);
    int32_t ws[4] = {dw ? 1 : oc, k, k, dw ? oc : ic};
    int32_t w = cnst(b, GRAPH_I8, 4, ws, sw, 0);
    float bs = sx * sw;
    int32_t bias = cnst(b, b->dt == GRAPH_I16 ? GRAPH_I64 : GRAPH_I32, 1, &oc, bs, 0);
    tfl_options o = defopt();
    o.padding = TFL_PAD_SAME;
    o.stride_w = o.stride_h = 1;
    o.dilation_w = o.dilation_h = 1;
    o.depth_multiplier = 1;
    int32_t in[3] = {x, w, bias};
    op(b, dw ? TFL_OP_DEPTHWISE_CONV_2D : TFL_OP_CONV_2D, &o, 3, in, y);
    return y;
}

/* 3x3 MAX / AVERAGE pool, stride 1, SAME: x's shape and quantization. */
static int32_t pool(gb *b, int32_t x, bool avg)
{
    if (!b->ok) return -1;
    const graph_tensor *tx = T(b, x);
    int32_t y = act(b, 4, tx->shape, tx->q.scale[0], tx->q.zero_point[0]);
    tfl_options o = defopt();
    o.padding = TFL_PAD_SAME;
    o.stride_w = o.stride_h = 1;
    o.filter_w = o.filter_h = avg ? 2 : 3;
    op(b, avg ? TFL_OP_AVERAGE_POOL_2D : TFL_OP_MAX_POOL_2D, &o, 1, &x, y);
    return y;
}

/* ADD (x, x2) with the given output quantization, or MAXIMUM(x, x) with x's. */
static int32_t binary(gb *b, int32_t x, int32_t x2, bool add, float so, int64_t zo)
{
    if (!b->ok) return -1;
    const graph_tensor *tx = T(b, x);
    int32_t y = add ? act(b, tx->rank, tx->shape, so, zo) : act(b, tx->rank, tx->shape, tx->q.scale[0], tx->q.zero_point[0]);
    tfl_options o = defopt();
    int32_t in[2] = {x, add ? x2 : x};
    op(b, add ? TFL_OP_ADD : TFL_OP_MAXIMUM, &o, 2, in, y);
    return y;
}

static int32_t logistic(gb *b, int32_t x)
{
    if (!b->ok) return -1;
    int32_t y = act(b, 4, T(b, x)->shape, 1.0f / 256.0f, -128);
    tfl_options o = defopt();
    op(b, TFL_OP_LOGISTIC, &o, 1, &x, y);
    return y;
}

/* A CPU reader of x (a BROADCAST_TO its own shape, a copy with no NPU
 * form) whose result is an output. */
static void cpu_reader(gb *b, int32_t x)
{
    if (!b->ok) return;
    const graph_tensor *tx = T(b, x);
    int32_t nr = tx->rank;
    int32_t p = graph_add_tensor(b->g, "shape", GRAPH_I32, 1, &nr, tx->shape);
    int32_t y = act(b, tx->rank, tx->shape, tx->q.scale[0], tx->q.zero_point[0]);
    tfl_options o = defopt();
    int32_t in[2] = {x, p};
    if (p < 0) b->ok = false;
    op(b, TFL_OP_BROADCAST_TO, &o, 2, in, y);
    output(b, y);
}

static int32_t concat(gb *b, int32_t n, const int32_t *in, int32_t axis, float so, int64_t zo, int32_t *op_index)
{
    if (!b->ok) return -1;
    const graph_tensor *t0 = T(b, in[0]);
    int32_t os[4];
    memcpy(os, t0->shape, sizeof os);
    os[axis] = 0;
    for (int32_t i = 0; i < n; i++) os[axis] += T(b, in[i])->shape[axis];
    int32_t y = act(b, t0->rank, os, so, zo);
    tfl_options o = defopt();
    o.axis = rnd(b->r, 0, 1) ? axis : axis - t0->rank;
    *op_index = b->g->n_ops;
    op(b, TFL_OP_CONCATENATION, &o, n, in, y);
    return y;
}

static bool finish(gb *b)
{
    return b->ok && !graph_set_io(b->g, b->n_gin, b->gin, b->n_gout, b->gout);
}

static const run_opts *opts_for(int k, cc_concat_mode mode)
{
    static run_opts ro;
    ro.v = variants[k % 6];
    ro.optimise = k % 5 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
    ro.cascade = k % 7 == 2 ? CC_CASCADE_ALL : k % 7 == 5 ? CC_CASCADE_OFF : CC_CASCADE_AUTO;
    ro.concat = mode;
    return &ro;
}

/* ------------------------------------------------- random concatenations */

enum { S_INPUT, S_CONST, S_CONV, S_DW, S_MAXPOOL, S_AVGPOOL, S_ADD, S_MAX, S_LOGISTIC, S_TWICE, S_CHAIN, S_COUNT };
static const char *const s_name[S_COUNT] = {"input", "const", "conv", "depthwise", "maxpool", "avgpool", "add",
                                            "maximum", "logistic", "twice", "chain"};

static void random_concats(npuc_rng *r, stats *st, int nconf)
{
    for (int k = 0; k < nconf; k++) {
        g_seed++;
        gb b;
        memset(&b, 0, sizeof b);
        b.g = graph_new("catslice");
        b.r = r;
        b.ok = b.g != NULL;
        b.dt = rnd(r, 0, 2) == 0 ? GRAPH_I16 : GRAPH_I8;
        bool i16 = b.dt == GRAPH_I16;
        int32_t axis = rnd(r, 1, 3);
        int32_t n = rnd(r, 2, 4);
        int32_t H = rnd(r, 1, 6), W = rnd(r, 1, 6), C = rnd(r, 1, 12);
        float so = 0.05f;
        int64_t zo = i16 ? 0 : rnd(r, -30, 30);
        int32_t in[4];
        int kind[4];
        bool keep[4];
        int copies = 0;
        int32_t cpu_late[4], n_cpu = 0;
        char desc[160] = "";
        for (int32_t i = 0; i < n && b.ok; i++) {
            int32_t s[4] = {1, H, W, C};
            s[axis] = axis == 3 ? (rnd(r, 0, 3) ? rnd(r, 1, 20) : 16 * rnd(r, 1, 2)) : rnd(r, 1, 5);
            int kd = rnd(r, 0, S_COUNT - 1);
            if (kd == S_LOGISTIC && i16) kd = S_MAX;
            if (kd == S_TWICE && i == 0) kd = S_CONV;
            /* a chain needs an earlier produced input its op can read */
            int32_t from = -1;
            if (kd == S_CHAIN) {
                for (int32_t j = 0; j < i; j++)
                    if (kind[j] != S_INPUT && kind[j] != S_CONST && kind[j] != S_TWICE &&
                        (axis == 3 || T(&b, in[j])->shape[axis] == s[axis]))
                        from = j;
                if (from < 0) kd = S_ADD;
            }
            /* int8 inputs with another quantization (kept: LUT copy) */
            bool other_q = !i16 && kd != S_TWICE && kd != S_CHAIN && rnd(r, 0, 5) == 0;
            float sq = other_q ? so * (float)(0.5 + npuc_rng_unit(r)) : so;
            int64_t zq = other_q ? rnd(r, -100, 100) : zo;
            int32_t src = -1;
            if (kd != S_CONST && kd != S_TWICE && kd != S_CHAIN)
                src = input(&b, 4, s, kd == S_INPUT ? sq : so, kd == S_INPUT ? zq : zo);
            int32_t t = -1;
            switch (kd) {
            case S_INPUT: t = src; break;
            case S_CONST: t = cnst(&b, b.dt, 4, s, sq, zq); break;
            case S_CONV: t = conv(&b, src, false, s[3], rnd(r, 0, 1) ? 1 : 3, sq, zq); break;
            case S_DW: t = conv(&b, src, true, s[3], 3, sq, zq); break;
            case S_MAXPOOL:
            case S_AVGPOOL:
                t = pool(&b, src, kd == S_AVGPOOL);
                if (other_q) other_q = false;   /* a pool keeps its input's quantization */
                break;
            case S_ADD: {
                int32_t src2 = input(&b, 4, s, so * 1.5f, i16 ? 0 : zo + 3);
                t = binary(&b, src, src2, true, sq, zq);
                break;
            }
            case S_MAX: t = binary(&b, src, src, false, 0, 0); other_q = false; break;
            case S_LOGISTIC: t = logistic(&b, src); break;
            case S_TWICE: t = in[rnd(r, 0, i - 1)]; break;
            case S_CHAIN:
                /* from an earlier input: channels may change, H and W not */
                t = conv(&b, in[from], false, s[3], 1, so, zo);
                break;
            }
            if (!b.ok || t < 0) break;
            in[i] = t;
            kind[i] = kd;
            const graph_tensor *tt = T(&b, t);
            bool same_q = i16 || (tt->q.scale[0] == so && tt->q.zero_point[0] == zo);
            keep[i] = kd == S_INPUT || kd == S_CONST || !same_q;
            if (kd == S_TWICE)
                for (int32_t j = 0; j < i; j++)
                    if (in[j] == t) keep[j] = keep[i] = true;
            /* other readers: an NPU op (reads the slice), a CPU op or the
             * graph's outputs (keep the copy) */
            int other = kd == S_INPUT || kd == S_CONST || kd == S_TWICE ? 0 : rnd(r, 0, 7);
            if (other == 1) {
                output(&b, binary(&b, t, t, false, 0, 0));
            } else if (other == 2) {
                output(&b, conv(&b, t, rnd(r, 0, 1), 3, 3, 0.2f, 0));
            } else if (other == 3) {
                cpu_late[n_cpu++] = t;   /* after the concatenation: one HW epoch */
                keep[i] = true;
            } else if (other == 4) {
                output(&b, t);
                keep[i] = true;
            }
            size_t dl = strlen(desc);
            snprintf(desc + dl, sizeof desc - dl, "%s%s%s%s", i ? " + " : "", s_name[kd], other_q ? "(q)" : "",
                     other == 1 || other == 2 ? "(+npu)" : other == 3 ? "(+cpu)" : other == 4 ? "(out)" : "");
        }
        int32_t cat = -1;
        int32_t y = b.ok ? concat(&b, n, in, axis, so, zo, &cat) : -1;
        int cons = rnd(r, 0, 2);
        if (b.ok && cons == 0) output(&b, y);
        else if (b.ok && cons == 1) output(&b, binary(&b, y, y, false, 0, 0));
        else if (b.ok) output(&b, conv(&b, y, false, 4, 1, 0.3f, 0));
        for (int32_t i = 0; i < n_cpu; i++) cpu_reader(&b, cpu_late[i]);
        if (!b.ok || !finish(&b) || !b.n_gin) {
            graph_free(b.g);
            k--;
            g_seed--;
            continue;
        }
        for (int32_t i = 0; i < n; i++) {
            copies += keep[i];
            st->inputs++;
            st->placed += !keep[i];
        }
        char name[256];
        snprintf(name, sizeof name, "%s concat on %c of %s", i16 ? "int16" : "int8", "NHWC"[axis], desc);
        /* every legal input placed: exactly the copies the rules keep */
        if (run_case(name, b.g, opts_for(k, CC_CONCAT_ALL), cat, copies, 2, NULL, st)) {
            /* the default, or no placement: same results */
            run_case(name, b.g, opts_for(k + 1, k % 2 ? CC_CONCAT_AUTO : CC_CONCAT_OFF), cat,
                     k % 2 ? -1 : n, 2, NULL, st);
        }
        graph_free(b.g);
    }
}

/* -------------------------------------------------- FULLY_CONNECTED */

/* x [B, I] -> FULLY_CONNECTED (n of them) -> [B, O_i] -> CONCATENATION on
 * axis 1 (channels) or 0 (batches: the W rows of the 4-d view). */
static void fc_concats(npuc_rng *r, stats *st)
{
    for (int k = 0; k < 24; k++) {
        g_seed++;
        gb b;
        memset(&b, 0, sizeof b);
        b.g = graph_new("catfc");
        b.r = r;
        b.ok = b.g != NULL;
        b.dt = k % 3 == 2 ? GRAPH_I16 : GRAPH_I8;
        int32_t axis = k % 2, n = 2 + k % 3, B = 1 + k % 4, I = 3 + k % 5, O = 2 + k % 7;
        float so = 0.07f;
        int64_t zo = b.dt == GRAPH_I16 ? 0 : 5;
        int32_t in[4];
        for (int32_t i = 0; i < n && b.ok; i++) {
            int32_t xs[2] = {axis == 0 ? B + i : B, I};
            int32_t x = input(&b, 2, xs, 0.03f, b.dt == GRAPH_I16 ? 0 : -4);
            int32_t oc = axis == 1 ? O + i : O;
            int32_t ys[2] = {xs[0], oc}, ws[2] = {oc, I};
            int32_t y = act(&b, 2, ys, so, zo);
            int32_t w = cnst(&b, GRAPH_I8, 2, ws, 0.01f, 0);
            int32_t bias = cnst(&b, b.dt == GRAPH_I16 ? GRAPH_I64 : GRAPH_I32, 1, &oc, 0.03f * 0.01f, 0);
            tfl_options o = defopt();
            int32_t fi[3] = {x, w, bias};
            op(&b, TFL_OP_FULLY_CONNECTED, &o, 3, fi, y);
            in[i] = y;
        }
        int32_t cat = -1;
        int32_t y = b.ok ? concat(&b, n, in, axis, so, zo, &cat) : -1;
        if (b.ok) output(&b, binary(&b, y, y, false, 0, 0));
        if (!finish(&b)) {
            CHECK(!"FC graph build");
            graph_free(b.g);
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "%s FULLY_CONNECTED x%d [%d, .] concat on axis %d", graph_dtype_name(b.dt), n, B,
                 axis);
        st->inputs += n;
        st->placed += n;
        run_case(name, b.g, opts_for(k, CC_CONCAT_ALL), cat, 0, 3, NULL, st);
        graph_free(b.g);
    }
}

/* ------------------------------------------------------------- nested */

/* x -> conv a, conv b -> inner = concat(a, b) on axis p; inner and conv c
 * -> outer = concat on axis q. In ALL every input is placed: a and b end in
 * the outer buffer's slice of inner. */
static void nested_concats(npuc_rng *r, stats *st)
{
    for (int k = 0; k < 36; k++) {
        g_seed++;
        gb b;
        memset(&b, 0, sizeof b);
        b.g = graph_new("catnest");
        b.r = r;
        b.ok = b.g != NULL;
        b.dt = k % 4 == 3 ? GRAPH_I16 : GRAPH_I8;
        int32_t p = 1 + k % 3, q = 1 + (k / 3) % 3;
        int32_t H = 2 + k % 3, W = 3 + k % 2, C = 4 + k % 5;
        float so = 0.06f;
        int64_t zo = b.dt == GRAPH_I16 ? 0 : -7;
        int32_t xs[4] = {1, H, W, C};
        int32_t x = input(&b, 4, xs, so, zo);
        /* a, b: x's H x W; the inner concat grows axis p */
        int32_t a = conv(&b, x, false, C + 1, 1, so, zo);
        int32_t bb = p == 3 ? conv(&b, x, false, 16, 3, so, zo) : pool(&b, a, false);
        int32_t ci, co;
        int32_t ab[2] = {a, bb};
        int32_t inner = concat(&b, 2, ab, p, so, zo, &ci);
        /* c: the inner's shape except on axis q */
        int32_t c = -1;
        if (b.ok) {
            const graph_tensor *ti = T(&b, inner);
            int32_t cs[4] = {1, ti->shape[1], ti->shape[2], ti->shape[3]};
            cs[q] = 1 + k % 3;
            int32_t xc = input(&b, 4, cs, so, zo);
            c = k % 2 ? binary(&b, xc, xc, false, 0, 0) : conv(&b, xc, true, 0, 3, so, zo);
        }
        int32_t ic[2] = {k % 2 ? inner : c, k % 2 ? c : inner};
        int32_t outer = concat(&b, 2, ic, q, so, zo, &co);
        if (b.ok) output(&b, conv(&b, outer, false, 3, 1, 0.2f, 0));
        if (!finish(&b)) {
            CHECK(!"nested graph build");
            graph_free(b.g);
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "%s nested concat on %c inside one on %c", graph_dtype_name(b.dt), "NHWC"[p],
                 "NHWC"[q]);
        st->inputs += 4;
        st->placed += 4;
        cc_model *cm = NULL;
        if (run_case(name, b.g, opts_for(k, CC_CONCAT_ALL), co, 0, 3, &cm, st)) {
            CHECK_EQ_INT(cm->ops[cc_op_of_source(cm, ci)].n_eu, 0);
            /* a, b, inner and c all live in the outer buffer */
            int32_t ob = cm->buf_of[outer];
            CHECK(cm->buf_of[a] == ob && cm->buf_of[bb] == ob && cm->buf_of[inner] == ob && cm->buf_of[c] == ob);
            CHECK_EQ_INT(cc_concat_slice_of(cm, a), inner);
            CHECK_EQ_INT(cc_concat_slice_of(cm, inner), outer);
            CHECK_EQ_INT(cc_concat_slice_of(cm, outer), -1);
        }
        cc_model_free(cm);
        graph_free(b.g);
    }
}

/* ---------------------------------------------------------- the default */

/* x [1, H, W, 8] -> n convs (each right before the concatenation, so the
 * output's buffer lives no longer than their outputs did) -> concat ->
 * conv -> y. AUTO places every input: no copy, a smaller arena than OFF;
 * 16-channel slices keep the output NHCWB16, other slices store it NHWC. */
static void default_cases(npuc_rng *r, stats *st)
{
    for (int k = 0; k < 18; k++) {
        g_seed++;
        gb b;
        memset(&b, 0, sizeof b);
        b.g = graph_new("catauto");
        b.r = r;
        b.ok = b.g != NULL;
        b.dt = k % 3 == 1 ? GRAPH_I16 : GRAPH_I8;
        int32_t axis = k % 6 < 3 ? 3 : 1 + k % 2, n = 2 + k % 3;
        bool aligned = axis == 3 && k % 2 == 0;
        float so = 0.08f;
        int64_t zo = b.dt == GRAPH_I16 ? 0 : 9;
        int32_t H = 8 + k % 3, W = 8;
        int32_t xs[4] = {1, H, W, 8};
        int32_t x = input(&b, 4, xs, so, zo);
        int32_t in[4];
        for (int32_t i = 0; i < n; i++) in[i] = conv(&b, x, false, aligned ? 16 : axis == 3 ? 12 + i : 12, 1, so, zo);
        int32_t cat = -1;
        int32_t y = concat(&b, n, in, axis, so, zo, &cat);
        if (b.ok) output(&b, conv(&b, y, false, 8, 1, 0.2f, 0));
        if (!finish(&b)) {
            CHECK(!"default graph build");
            graph_free(b.g);
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "%s %d convs -> concat on %c (AUTO)", graph_dtype_name(b.dt), n, "NHWC"[axis]);
        run_opts ro = {variants[k % 6], k % 4 == 1 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, CC_CASCADE_OFF,
                       CC_CONCAT_AUTO};
        cc_model *on = NULL, *off = NULL;
        st->inputs += n;
        st->placed += n;
        bool ok = run_case(name, b.g, &ro, cat, 0, 2, &on, st);
        ro.concat = CC_CONCAT_OFF;
        ok = run_case(name, b.g, &ro, cat, n, 2, &off, st) && ok;
        if (ok) {
            /* activation bytes: the arena, and on a U65 the fast pool
             * that holds the NPU-only feature maps */
            uint64_t act_on = on->arena_size + on->fast_size, act_off = off->arena_size + off->fast_size;
            if (act_on >= act_off)
                fprintf(stderr, "FAIL %s: activations %llu placed, %llu with copies\n", name,
                        (unsigned long long)act_on, (unsigned long long)act_off);
            CHECK(act_on < act_off);
            CHECK(on->npu_cycles < off->npu_cycles);
            if (k < 6)
                printf("%s, %s: activations %llu -> %llu bytes, NPU cycles %llu -> %llu (copies -> in place)\n",
                       name, target_variant_name(ro.v), (unsigned long long)(off->arena_size + off->fast_size),
                       (unsigned long long)(on->arena_size + on->fast_size),
                       (unsigned long long)off->npu_cycles, (unsigned long long)on->npu_cycles);
            /* the inputs have no bytes of their own */
            for (int32_t i = 0; i < n; i++) {
                CHECK_EQ_INT(on->buf_of[in[i]], on->buf_of[y]);
                CHECK_EQ_INT(cc_concat_slice_of(on, in[i]), y);
                CHECK_EQ_INT(cc_concat_slice_of(off, in[i]), -1);
            }
            CHECK_EQ_INT(on->bufs[on->buf_of[y]].brick, aligned);
            if (aligned) CHECK(off->bufs[off->buf_of[y]].brick);
        }
        cc_model_free(on);
        cc_model_free(off);
        graph_free(b.g);
    }
}

/* --------------------------------------------------------- cascades */

/* x -> MAX_POOL -> CONV_2D 3x3 -> a; x -> CONV_2D 1x1 -> b; concat of a
 * and b (either order) on H, W or C -> conv -> y, with --cascade all: the
 * pool -> conv chain is cascaded and its last op writes its bands into a's
 * slice of the output (at the slice's offset). */
static void cascade_cases(npuc_rng *r, stats *st)
{
    for (int k = 0; k < 18; k++) {
        g_seed++;
        gb b;
        memset(&b, 0, sizeof b);
        b.g = graph_new("catcascade");
        b.r = r;
        b.ok = b.g != NULL;
        b.dt = k % 3 == 2 ? GRAPH_I16 : GRAPH_I8;
        int32_t axis = 1 + k % 3;
        bool first = k % 2 == 0;
        float so = 0.04f;
        int64_t zo = b.dt == GRAPH_I16 ? 0 : -2;
        int32_t xs[4] = {1, 12 + k % 5, 6 + k % 3, 5};
        int32_t x = input(&b, 4, xs, so, zo);
        int32_t p = pool(&b, x, false);
        int32_t pc = b.g ? b.g->n_ops : 0;
        int32_t a = conv(&b, p, false, 16, 3, so, zo);
        int32_t c = conv(&b, x, false, 16, 1, so, zo);
        int32_t in[2] = {first ? a : c, first ? c : a};
        int32_t cat = -1;
        int32_t y = concat(&b, 2, in, axis, so, zo, &cat);
        if (b.ok) output(&b, conv(&b, y, false, 4, 1, 0.2f, 0));
        if (!finish(&b)) {
            CHECK(!"cascade graph build");
            graph_free(b.g);
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "%s pool -> conv cascade into slice %d of a concat on %c", graph_dtype_name(b.dt),
                 first ? 0 : 1, "NHWC"[axis]);
        run_opts ro = {variants[k % 6], k % 4 == 1 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, CC_CASCADE_ALL, CC_CONCAT_ALL};
        cc_model *cm = NULL;
        st->inputs += 2;
        st->placed += 2;
        if (run_case(name, b.g, &ro, cat, 0, 3, &cm, st)) {
            int32_t c1 = cc_op_of_source(cm, pc), c0 = cc_op_of_source(cm, pc - 1);
            CHECK(cm->ops[c1].cascade >= 0 && cm->ops[c1].cascade == cm->ops[c0].cascade);
            CHECK_EQ_INT(cm->buf_of[a], cm->buf_of[y]);
        }
        cc_model_free(cm);
        graph_free(b.g);
    }
}

/* ------------------------------------------------- fused activations */

/* x -> conv a, conv b (the output's quantization) -> concat on H, W or C
 * -> RELU / RELU6 -> y (an output). The activation is fused into the
 * concatenation's copies (lower_lut.c: a clamp, or for int8 RELU6 with
 * another quantization the LUT or a one-value clamp), so no input may be
 * written in place: a producer writing its slice would skip the clamp
 * (genmodel seeds 852, 21975: every copy elided, RELU6 lost). Under ALL
 * the concatenation keeps both copies. */
static void fused_act_cases(npuc_rng *r, stats *st)
{
    for (int k = 0; k < 12; k++) {
        g_seed++;
        gb b;
        memset(&b, 0, sizeof b);
        b.g = graph_new("catfused");
        b.r = r;
        b.ok = b.g != NULL;
        b.dt = k % 2 ? GRAPH_I16 : GRAPH_I8;
        int32_t axis = 1 + k % 3;
        bool relu6 = k % 4 < 2, requant = k >= 8;
        float so = b.dt == GRAPH_I16 ? 0.015625f : 0.03f;
        int64_t zo = b.dt == GRAPH_I16 ? 0 : 20;
        int32_t xs[4] = {1, 3 + k % 3, 4, 5};
        int32_t x = input(&b, 4, xs, so, zo);
        int32_t a = conv(&b, x, false, 6, 1, so, zo);
        int32_t c = conv(&b, x, false, 6, 3, so, zo);
        int32_t in[2] = {a, c};
        int32_t cat = -1;
        int32_t y = concat(&b, 2, in, axis, so, zo, &cat);
        int32_t ai = b.g ? b.g->n_ops : -1, z = -1;
        if (b.ok) {
            /* requant: int8 RELU6 onto a scale whose 0 is the top of the
             * type: every output one value (the one-value clamp of seed 852) */
            z = requant && b.dt == GRAPH_I8 ? act(&b, 4, T(&b, y)->shape, 0.0044f, 127)
                                            : act(&b, 4, T(&b, y)->shape, so, zo);
            tfl_options o = defopt();
            op(&b, relu6 ? TFL_OP_RELU6 : TFL_OP_RELU, &o, 1, &y, z);
            output(&b, z);
        }
        if (!finish(&b)) {
            CHECK(!"fused activation graph build");
            graph_free(b.g);
            continue;
        }
        char name[96];
        snprintf(name, sizeof name, "%s 2 convs -> concat on %c -> %s%s (fused)", graph_dtype_name(b.dt),
                 "NHWC"[axis], relu6 ? "RELU6" : "RELU", requant && b.dt == GRAPH_I8 ? " requantized" : "");
        run_opts ro = {variants[k % 6], k % 4 == 1 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE,
                       k % 3 == 2 ? CC_CASCADE_ALL : CC_CASCADE_AUTO, CC_CONCAT_ALL};
        cc_model *cm = NULL;
        st->inputs += 2;
        if (run_case(name, b.g, &ro, cat, 2, 3, &cm, st)) {
            /* the activation did fuse into the concatenation */
            CHECK_EQ_INT(cm->ops[cc_op_of_source(cm, ai)].fused_into, cc_op_of_source(cm, cat));
            CHECK_EQ_INT(cc_concat_slice_of(cm, a), -1);
            CHECK_EQ_INT(cc_concat_slice_of(cm, c), -1);
        }
        cc_model_free(cm);
        graph_free(b.g);
    }
}

int main(void)
{
    long nconf = env_long("NPUC_CATSLICE_CONFIGS", 300);
    g_seed = (uint64_t)env_long("NPUC_CATSLICE_SEED", 1) * 100000u;
    npuc_rng r;
    npuc_rng_seed(&r, g_seed);
    stats st;
    memset(&st, 0, sizeof st);
    random_concats(&r, &st, (int)nconf);
    fc_concats(&r, &st);
    nested_concats(&r, &st);
    default_cases(&r, &st);
    cascade_cases(&r, &st);
    fused_act_cases(&r, &st);
    printf("%d cases (%d failed): %d concatenation inputs, %d written in place\n", st.cases, st.failed, st.inputs,
           st.placed);
    TEST_MAIN_END();
}
