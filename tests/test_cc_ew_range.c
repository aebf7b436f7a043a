/* int32 elementwise ops on the NPU with a compile-time range proof, and
 * elementwise ops whose operands both broadcast
 * (src/compiler/lower/lower_elementwise.c, src/compiler/cc_range.c).
 *
 * Three random forms, each compiled for every Ethos-U variant in turn,
 * every command stream hazard-checked, run with the ethos-u ops on the
 * virtual NPU and compared byte for byte with the reference interpreter:
 *   cast    int8 / int16 inputs -> CAST -> int32, then ADD, SUB, MUL,
 *           MINIMUM or MAXIMUM with a second CAST or an int32 constant
 *           (values drawn so that some products and sums overflow int32),
 *           broadcast shapes (both operands at times), fused RELU / RELU6
 *           at times: on the NPU exactly when the test's own interval
 *           arithmetic says the result stays in int32 and the clamp never
 *           acts, else on the CPU with the reason naming the range; half
 *           of them then clamp the int32 result with one to three
 *           MINIMUM / MAXIMUM by constant scalars and CAST it to int8 or
 *           int16 (TFLite's clip_by_value + cast): fused into the op's
 *           output stage (cc_fuse_narrow: the chain joins the op, which
 *           writes the narrow output) exactly when the op runs as one NPU
 *           op, the composed clamp lies inside the narrow type and no
 *           tensor of the chain is a graph output; a third of them
 *           then MUL the narrow output by itself (an NPU op reading it, a
 *           chain to cascade);
 *   argmax  int8 [1, R, C] -> ARG_MAX -> DIV by a constant d (CPU) ->
 *           MUL by a constant k -> SUB from the ARG_MAX or ADD (movenet's
 *           row / column chain): on the NPU unless k overflows;
 *   bcast   int8 / int16 ADD, SUB, MUL, MINIMUM, MAXIMUM where both
 *           operands broadcast (the second one a constant at times):
 *           always on the NPU, unless it needs more sub-ops than the
 *           lowering takes (then the CPU, saying so); half of them with a
 *           MUL of the result by itself after it (a chain to cascade) or,
 *           int8, a LOGISTIC (fused into the sub-ops' output stage);
 *           and fixed cases past the sub-op limit: a constant operand
 *           expanded in flash, else the CPU;
 *   view    int8 / int16 ops of that list on [1, H, W, C] with C below 16
 *           and the second operand whole, a scalar or a constant per
 *           channel ([1, 1, 1, C]): viewed as one dense block 16k deep
 *           where the size allows (the per-channel constant repeated to
 *           that depth), else as they are; always on the NPU, and the test
 *           counts the views made.
 * A third of the configurations compile with every cascade the compiler
 * can make, a quarter for size.
 *
 * Environment: NPUC_EWR_CONFIGS (random configurations per form, default
 * 240), NPUC_EWR_SEED (first seed, default 1), NPUC_EWR_VERBOSE. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"

#include <stdint.h>

#include "cc_hazard.h"
#include "cc_test_npu.h"

enum { F_CAST, F_ARGMAX, F_BCAST, F_VIEW };

static const int32_t binops[5] = {TFL_OP_ADD, TFL_OP_SUB, TFL_OP_MUL, TFL_OP_MINIMUM, TFL_OP_MAXIMUM};

typedef struct cfg {
    int form;
    int32_t opcode, act;
    graph_dtype dt, dt2;          /* inputs' types (cast: before the CAST) */
    int32_t rank, sa[4], sb[4], so[4];
    bool b_const;                 /* operand b a constant */
    int32_t klo, khi;             /* its values (cast: int32; bcast: the type's codes) */
    int32_t R, C, axis, d, k;     /* argmax */
    bool add;                     /* argmax: ADD instead of SUB; bcast: a MUL after */
    bool logistic;                /* bcast int8: a LOGISTIC after instead */
    int32_t n_clamp;              /* cast: MINIMUM / MAXIMUM by constants after the op */
    int32_t clamp_op[3], clamp_k[3];
    graph_dtype dt_out;           /* ... then a CAST to this type */
    bool mid_out;                 /* ... with the op's output a graph output too */
    bool after;                   /* ... and an int8 / int16 MUL of the narrow output by itself after it */
    eu_variant variant;
    int32_t check_op;             /* the op whose placement is checked */
    int expect;                   /* 1 NPU, 0 CPU */
    const char *why;              /* CPU: part of the reason */
} cfg;

typedef struct stats {
    int configs, npu, cpu, failed, runs;
    int fused, fused_late, apart; /* cast: clamp chains fused into the op, into a clamp, left apart */
    int after_npu, after_cascade; /* ... fused, then a MUL on the NPU, in a cascade with the op */
} stats;

static void shape_str(char *buf, size_t size, int32_t rank, const int32_t *s)
{
    size_t o = (size_t)snprintf(buf, size, "[");
    for (int32_t d = 0; d < rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", s[d]);
    if (o < size) snprintf(buf + o, size - o, "]");
}

static void cfg_str(const cfg *c, char *buf, size_t size)
{
    char a[40], b[40];
    shape_str(a, sizeof a, c->rank, c->sa);
    shape_str(b, sizeof b, c->rank, c->sb);
    if (c->form == F_ARGMAX)
        snprintf(buf, size, "argmax [1,%d,%d] axis %d / %d x %d %s, %s", c->R, c->C, c->axis, c->d, c->k,
                 c->add ? "ADD" : "SUB", target_variant_name(c->variant));
    else
    {
        char k[48] = "";
        if (c->b_const) snprintf(k, sizeof k, " const [%d, %d]", c->klo, c->khi);
        char n[96] = "";
        for (int32_t i = 0, o = 0; i < c->n_clamp; i++)
            o += snprintf(n + o, sizeof n - (size_t)o, " %s %d", c->clamp_op[i] == TFL_OP_MINIMUM ? "min" : "max",
                          c->clamp_k[i]);
        if (c->n_clamp)
            snprintf(n + strlen(n), sizeof n - strlen(n), " -> %s%s%s", graph_dtype_name(c->dt_out),
                     c->mid_out ? " (op's output a graph output)" : "", c->after ? " -> MUL" : "");
        snprintf(buf, size, "%s %s %s %s %s%s%s act %s%s, %s",
                 c->form == F_CAST ? "cast" : c->form == F_VIEW ? "view" : "bcast",
                 tfl_builtin_name(c->opcode), graph_dtype_name(c->dt), a, b, c->b_const ? "" : " ",
                 c->b_const ? k : graph_dtype_name(c->dt2), tfl_activation_name(c->act), n,
                 target_variant_name(c->variant));
    }
}

static int32_t add_t(graph *g, const char *nm, graph_dtype dt, int32_t rank, const int32_t *s, const void *data,
                     bool *ok)
{
    int32_t t = graph_add_tensor(g, nm, dt, rank, s, data);
    *ok = *ok && t >= 0;
    return t;
}

static int32_t op_add(graph *g, int32_t opcode, int32_t act, int32_t n_in, const int32_t *in, int32_t y, bool *ok)
{
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.activation = (int8_t)act;
    int32_t i = graph_add_op(g, opcode, &opt, n_in, in, 1, &y);
    *ok = *ok && i >= 0;
    return i;
}

/* The constant operand's values: klo .. khi cycled with a stride. */
static void *const_data(const cfg *c, size_t n, size_t es)
{
    uint8_t *p = malloc(n * es + 1);
    if (!p) return NULL;
    int64_t span = (int64_t)c->khi - c->klo + 1;
    for (size_t i = 0; i < n; i++) {
        int64_t v = i == 0 ? c->klo : i == 1 ? c->khi : c->klo + (int64_t)((i * 7919u) % (uint64_t)span);
        if (es == 4) ((int32_t *)(void *)p)[i] = (int32_t)v;
        else if (es == 2) ((int16_t *)(void *)p)[i] = (int16_t)v;
        else ((int8_t *)p)[i] = (int8_t)v;
    }
    return p;
}

static size_t elems(int32_t rank, const int32_t *s)
{
    size_t n = 1;
    for (int32_t d = 0; d < rank; d++) n *= (size_t)s[d];
    return n;
}

static graph *build_cast(const cfg *c)
{
    graph *g = graph_new("ew_cast");
    bool ok = g != NULL;
    if (!ok) return NULL;
    int32_t xa = add_t(g, "xa", c->dt, c->rank, c->sa, NULL, &ok);
    int32_t ca = add_t(g, "ca", GRAPH_I32, c->rank, c->sa, NULL, &ok);
    int32_t y = add_t(g, "y", GRAPH_I32, c->rank, c->so, NULL, &ok);
    int32_t ins[2] = {xa, -1}, cb;
    op_add(g, TFL_OP_CAST, 0, 1, &xa, ca, &ok);
    int32_t n_in = 1;
    if (c->b_const) {
        void *data = const_data(c, elems(c->rank, c->sb), 4);
        cb = add_t(g, "kb", GRAPH_I32, c->rank, c->sb, data, &ok);
        free(data);
    } else {
        int32_t xb = add_t(g, "xb", c->dt2, c->rank, c->sb, NULL, &ok);
        cb = add_t(g, "cb", GRAPH_I32, c->rank, c->sb, NULL, &ok);
        op_add(g, TFL_OP_CAST, 0, 1, &xb, cb, &ok);
        ins[1] = xb;
        n_in = 2;
    }
    int32_t bin[2] = {ca, cb};
    op_add(g, c->opcode, c->act, 2, bin, y, &ok);
    int32_t outs[2] = {y, y}, n_out = 1, t = y;
    if (c->n_clamp) {
        /* clip_by_value + cast: clamps to constants, then the narrow type */
        int32_t one[1] = {1};
        for (int32_t k = 0; k < c->n_clamp; k++) {
            int32_t kt = add_t(g, "kc", GRAPH_I32, 0, one, &c->clamp_k[k], &ok);
            int32_t u = add_t(g, "clamped", GRAPH_I32, c->rank, c->so, NULL, &ok), in2[2] = {t, kt};
            op_add(g, c->clamp_op[k], 0, 2, in2, u, &ok);
            t = u;
        }
        int32_t z = add_t(g, "z", c->dt_out, c->rank, c->so, NULL, &ok);
        op_add(g, TFL_OP_CAST, 0, 1, &t, z, &ok);
        outs[0] = z;
        n_out = c->mid_out ? 2 : 1;
        if (c->after) {
            /* the narrow output read by an NPU op (a chain the cascade
             * pass may take): z quantized with scale 1 (CAST ignores it) */
            float s1 = 1.0f, sq = c->dt_out == GRAPH_I8 ? 128.0f : 32768.0f;
            int64_t z0 = 0;
            int32_t q = add_t(g, "zz", c->dt_out, c->rank, c->so, NULL, &ok), zz[2] = {z, z};
            ok = ok && !graph_set_quant(g, z, 1, &s1, &z0, 0) && !graph_set_quant(g, q, 1, &sq, &z0, 0);
            op_add(g, TFL_OP_MUL, 0, 2, zz, q, &ok);
            outs[0] = q;
        }
    }
    ok = ok && !graph_set_io(g, n_in, ins, n_out, outs);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static graph *build_argmax(const cfg *c)
{
    graph *g = graph_new("ew_argmax");
    bool ok = g != NULL;
    if (!ok) return NULL;
    int32_t sx[3] = {1, c->R, c->C}, so[2] = {1, c->axis == 1 ? c->C : c->R}, one[1] = {1};
    int32_t x = add_t(g, "x", GRAPH_I8, 3, sx, NULL, &ok);
    int32_t ax = add_t(g, "axis", GRAPH_I32, 0, one, &c->axis, &ok);
    int32_t kd = add_t(g, "d", GRAPH_I32, 0, one, &c->d, &ok);
    int32_t kk = add_t(g, "k", GRAPH_I32, 0, one, &c->k, &ok);
    int32_t am = add_t(g, "am", GRAPH_I32, 2, so, NULL, &ok);
    int32_t dv = add_t(g, "dv", GRAPH_I32, 2, so, NULL, &ok);
    int32_t mu = add_t(g, "mu", GRAPH_I32, 2, so, NULL, &ok);
    int32_t y = add_t(g, "y", GRAPH_I32, 2, so, NULL, &ok);
    tfl_options opt;
    memset(&opt, 0, sizeof opt);
    opt.output_type = TFL_INT32;
    int32_t i1[2] = {x, ax}, i2[2] = {am, kd}, i3[2] = {dv, kk}, i4[2] = {am, mu};
    ok = ok && graph_add_op(g, TFL_OP_ARG_MAX, &opt, 2, i1, 1, &am) >= 0;
    op_add(g, TFL_OP_DIV, 0, 2, i2, dv, &ok);
    op_add(g, TFL_OP_MUL, 0, 2, i3, mu, &ok);
    op_add(g, c->add ? TFL_OP_ADD : TFL_OP_SUB, 0, 2, i4, y, &ok);
    ok = ok && !graph_set_io(g, 1, &x, 1, &y);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static graph *build_bcast(const cfg *c)
{
    graph *g = graph_new("ew_bcast");
    bool ok = g != NULL;
    if (!ok) return NULL;
    bool i16 = c->dt == GRAPH_I16;
    bool minmax = c->opcode == TFL_OP_MINIMUM || c->opcode == TFL_OP_MAXIMUM;
    float sa = i16 ? 0.0011f : 0.043f, sb = minmax ? sa : i16 ? 0.0007f : 0.021f;
    float so = minmax ? sa : c->opcode == TFL_OP_MUL ? (i16 ? 0.0009f : 0.037f) : (i16 ? 0.0019f : 0.071f);
    int64_t za = i16 ? 0 : -5, zb = minmax ? za : i16 ? 0 : 7, zo = minmax ? za : i16 ? 0 : -2;
    int32_t a = add_t(g, "a", c->dt, c->rank, c->sa, NULL, &ok), b;
    if (c->b_const) {
        void *data = const_data(c, elems(c->rank, c->sb), i16 ? 2 : 1);
        b = add_t(g, "kb", c->dt, c->rank, c->sb, data, &ok);
        free(data);
    } else {
        b = add_t(g, "b", c->dt, c->rank, c->sb, NULL, &ok);
    }
    int32_t y = add_t(g, "y", c->dt, c->rank, c->so, NULL, &ok);
    ok = ok && !graph_set_quant(g, a, 1, &sa, &za, 0) && !graph_set_quant(g, b, 1, &sb, &zb, 0) &&
         !graph_set_quant(g, y, 1, &so, &zo, 0);
    int32_t in[2] = {a, b}, out = y;
    op_add(g, c->opcode, c->act, 2, in, y, &ok);
    if (c->add && c->logistic) {
        /* a LOGISTIC after it: fused into the op's output stage (a LUT) */
        float sl = 1.0f / 256;
        int64_t zl = -128;
        out = add_t(g, "z", c->dt, c->rank, c->so, NULL, &ok);
        ok = ok && !graph_set_quant(g, out, 1, &sl, &zl, 0);
        op_add(g, TFL_OP_LOGISTIC, 0, 1, &y, out, &ok);
    } else if (c->add) {
        /* a MUL of the result by itself after it (movenet's SUB -> MUL):
         * a chain the cascade pass may take */
        out = add_t(g, "z", c->dt, c->rank, c->so, NULL, &ok);
        ok = ok && !graph_set_quant(g, out, 1, &so, &zo, 0);
        int32_t yy[2] = {y, y};
        op_add(g, TFL_OP_MUL, 0, 2, yy, out, &ok);
    }
    ok = ok && !graph_set_io(g, c->b_const ? 1 : 2, in, 1, &out);
    if (!ok) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static graph *build_graph(const cfg *c)
{
    return c->form == F_CAST ? build_cast(c) : c->form == F_ARGMAX ? build_argmax(c) : build_bcast(c);   /* bcast, view */
}

/* Inputs: random codes, a quarter of them at the type's ends. */
static void fill_draw(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    const cfg *c = user;
    (void)d;
    graph_dtype dt = k == 0 ? c->dt : c->dt2;
    if (c->form == F_ARGMAX) dt = GRAPH_I8;
    if (dt == GRAPH_I16) {
        for (size_t i = 0; i + 1 < n; i += 2) {
            int32_t v = (int32_t)npuc_rng_range(r, 0, 65535) - 32768, p = (int32_t)npuc_rng_range(r, 0, 7);
            if (p == 0) v = INT16_MIN;
            if (p == 1) v = INT16_MAX;
            buf[i] = (uint8_t)v;
            buf[i + 1] = (uint8_t)((uint32_t)v >> 8);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t p = (int32_t)npuc_rng_range(r, 0, 7);
        buf[i] = p == 0 ? 0x80 : p == 1 ? 0x7F : (uint8_t)npuc_rng_range(r, 0, 255);
    }
}

/* view configurations whose op ran as a dense block of another depth */
static int n_viewed;

/* The clamps and CAST after the op (ops check_op + 1 ..). The chain from
 * clamp s + 1 on fuses into P (the op for s = 0, else clamp s) at the
 * first s where P is one NPU op, its output no graph output, and the clamp
 * composed of clamps s + 1 .. lies inside the narrow type; P's clamps
 * before it run as NPU ops of their own. Where no s fits, the CAST stays
 * on the CPU. */
static bool narrow_checked(const cfg *c, const cc_model *cm, const char *cs, stats *st)
{
    int64_t tlo = c->dt_out == GRAPH_I8 ? INT8_MIN : INT16_MIN, thi = c->dt_out == GRAPH_I8 ? INT8_MAX : INT16_MAX;
    int32_t at = -1;   /* P's op index */
    for (int32_t s = 0; s < c->n_clamp && at < 0; s++) {
        int64_t lo = INT32_MIN, hi = INT32_MAX;
        for (int32_t k = s; k < c->n_clamp; k++) {
            int64_t v = c->clamp_k[k];
            bool mn = c->clamp_op[k] == TFL_OP_MINIMUM;
            lo = mn ? (lo < v ? lo : v) : (lo > v ? lo : v);
            hi = mn ? (hi < v ? hi : v) : (hi > v ? hi : v);
        }
        const cc_op_info *p = &cm->ops[c->check_op + s];
        if (p->npu && p->n_eu == 1 && lo >= tlo && hi <= thi && !(s == 0 && c->mid_out)) at = c->check_op + s;
    }
    for (int32_t k = 1; k <= c->n_clamp + 1; k++) {
        int32_t i = c->check_op + k;
        const cc_op_info *o = &cm->ops[i];
        bool fused = at >= 0 && i > at;
        if (fused ? o->fused_into != at || !o->npu || o->n_eu : o->fused_into >= 0) {
            fprintf(stderr, "FAIL %s: op %d %s (fused into %d), expected %s\n", cs, (int)i, o->npu ? "NPU" : "CPU",
                    (int)o->fused_into, fused ? "fused" : "apart");
            return false;
        }
        if (!fused && k <= c->n_clamp && !o->npu) {
            fprintf(stderr, "FAIL %s: clamp op %d on the CPU: %s\n", cs, (int)i, o->why);
            return false;
        }
    }
    if (at < 0 && cm->ops[c->check_op + c->n_clamp + 1].npu) {
        fprintf(stderr, "FAIL %s: the CAST runs on the NPU unfused\n", cs);
        return false;
    }
    at == c->check_op ? st->fused++ : at >= 0 ? st->fused_late++ : st->apart++;
    if (c->after && at >= 0) {
        /* the MUL after the CAST: on the NPU, in a cascade with P at times */
        const cc_op_info *mul = &cm->ops[c->check_op + c->n_clamp + 2];
        st->after_npu += mul->npu;
        st->after_cascade += mul->npu && mul->cascade >= 0 && mul->cascade == cm->ops[at].cascade;
    }
    return true;
}

static bool run_config(const cfg *c, uint64_t seed, stats *st)
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
    for (int32_t i = 0; i < src->n_ops; i++) {
        char rwhy[160];
        if (!interp_op_supported(src, &src->ops[i], rwhy, sizeof rwhy)) {
            fprintf(stderr, "FAIL %s: the reference rejects op %d: %s\n", cs, (int)i, rwhy);
            goto out;
        }
    }
    cc_options opt = {0};
    /* a third with every cascade the compiler can make, a quarter for size */
    if (seed % 3 == 0) opt.cascade = CC_CASCADE_ALL;
    if (seed % 4 == 1) opt.optimise = CC_OPT_SIZE;
    if (!cc_check_compile(cs, src, c->variant, opt, &cm)) goto out;
    const cc_op_info *o = &cm->ops[c->check_op];
    if (getenv("NPUC_EWR_VERBOSE")) fprintf(stderr, "%s: %s %s\n", cs, o->npu ? "NPU" : "CPU:", o->npu ? "" : o->why);
    if (o->npu != (c->expect == 1)) {
        /* a split past the sub-op limit is the one other outcome allowed */
        if (!(c->expect == 1 && !o->npu && !c->b_const && strstr(o->why, "sub-ops, at most"))) {
            fprintf(stderr, "FAIL %s: expected on the %s, got %s%s\n", cs, c->expect ? "NPU" : "CPU",
                    o->npu ? "NPU" : "CPU: ", o->npu ? "" : o->why);
            goto out;
        }
    }
    if (!o->npu && c->expect == 0 && c->why && !strstr(o->why, c->why)) {
        fprintf(stderr, "FAIL %s: reason '%s' lacks '%s'\n", cs, o->why, c->why);
        goto out;
    }
    if (c->n_clamp && !narrow_checked(c, cm, cs, st)) goto out;
    if (c->form == F_ARGMAX && o->npu && !cm->ops[c->check_op - 1].npu) {
        fprintf(stderr, "FAIL %s: the MUL stays on the CPU: %s\n", cs, cm->ops[c->check_op - 1].why);
        goto out;
    }
    o->npu ? st->npu++ : st->cpu++;
    if (c->form == F_VIEW && o->npu && o->n_eu > 0 &&
        cm->epochs[o->epoch].ops[o->first_eu].ofm.c != (uint32_t)c->so[c->rank - 1])
        n_viewed++;
    if (!cc_hazard_model(cm, c->variant, cs)) goto out;
    cc_draws d = {.n_draws = 2, .seed = seed, .fill = fill_draw, .user = (void *)c, .runs = &st->runs};
    ok = cc_check_draws(cs, src, cm, c->variant, &d);
out:
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(src);
    return ok;
}

/* Shapes of rank 1..4 (batch 1): the output's, and each operand 1 on some
 * axes; both: at least one broadcast axis each. */
static void random_shapes(npuc_rng *r, cfg *c, bool both)
{
    c->rank = (int32_t)npuc_rng_range(r, 1, 4);
    for (;;) {
        int na = 0, nb = 0;
        for (int32_t d = 0; d < c->rank; d++) {
            c->so[d] = d == 0 && c->rank == 4 ? 1 : (int32_t)npuc_rng_range(r, 1, d == c->rank - 1 ? 24 : 9);
            int32_t p = (int32_t)npuc_rng_range(r, 0, 3);
            c->sa[d] = both && p == 1 ? 1 : c->so[d];
            c->sb[d] = p == 2 || (both && p == 3) ? 1 : c->so[d];
            na += c->sa[d] != c->so[d];
            nb += c->sb[d] != c->so[d];
        }
        if (!both || (na && nb)) return;
        if (c->rank == 1) c->rank = 2;
    }
}

static bool act_ok(int32_t act, int64_t lo, int64_t hi)
{
    if (act == TFL_ACT_RELU) return lo >= 0;
    if (act == TFL_ACT_RELU6) return lo >= 0 && hi <= 6;
    return true;
}

static void random_cast(npuc_rng *r, cfg *c)
{
    c->form = F_CAST;
    c->opcode = binops[npuc_rng_range(r, 0, 4)];
    c->dt = npuc_rng_range(r, 0, 2) ? GRAPH_I16 : GRAPH_I8;
    c->dt2 = npuc_rng_range(r, 0, 1) ? GRAPH_I16 : GRAPH_I8;
    random_shapes(r, c, npuc_rng_range(r, 0, 3) == 0);
    c->b_const = npuc_rng_range(r, 0, 1);
    /* constants: magnitudes from 1 to 2^31 so that some results overflow */
    int sh = (int)npuc_rng_range(r, 0, 31);
    int64_t m = (int64_t)1 << sh;
    int64_t lo = -(int64_t)npuc_rng_range(r, 0, m > 0x7FFFFFFF ? 0x7FFFFFFF : m);
    int64_t hi = (int64_t)npuc_rng_range(r, 0, m > 0x7FFFFFFF ? 0x7FFFFFFF : m);
    if (npuc_rng_range(r, 0, 3) == 0) lo = hi / 2;    /* positive at times */
    if (lo > hi) lo = hi;
    c->klo = (int32_t)lo;
    c->khi = (int32_t)hi;
    if (c->b_const && elems(c->rank, c->sb) == 1) c->khi = c->klo;   /* one value: const_data's first */
    if (c->opcode == TFL_OP_SUB || c->opcode == TFL_OP_MUL) {
        int32_t p = (int32_t)npuc_rng_range(r, 0, 5);
        c->act = p == 0 ? TFL_ACT_RELU : p == 1 ? TFL_ACT_RELU6 : TFL_ACT_NONE;
    }
    /* the test's own interval arithmetic */
    int64_t alo = c->dt == GRAPH_I16 ? INT16_MIN : INT8_MIN, ahi = c->dt == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    int64_t blo = c->b_const ? c->klo : c->dt2 == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    int64_t bhi = c->b_const ? c->khi : c->dt2 == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    int64_t vlo, vhi;
    switch (c->opcode) {
    case TFL_OP_ADD: vlo = alo + blo; vhi = ahi + bhi; break;
    case TFL_OP_SUB: vlo = alo - bhi; vhi = ahi - blo; break;
    case TFL_OP_MUL: {
        int64_t p[4] = {alo * blo, alo * bhi, ahi * blo, ahi * bhi};
        vlo = vhi = p[0];
        for (int i = 1; i < 4; i++) {
            vlo = p[i] < vlo ? p[i] : vlo;
            vhi = p[i] > vhi ? p[i] : vhi;
        }
        break;
    }
    case TFL_OP_MINIMUM: vlo = alo < blo ? alo : blo; vhi = ahi < bhi ? ahi : bhi; break;
    default: vlo = alo > blo ? alo : blo; vhi = ahi > bhi ? ahi : bhi; break;
    }
    bool fits = vlo >= INT32_MIN && vhi <= INT32_MAX;
    c->expect = fits && act_ok(c->act, vlo, vhi);
    c->why = !fits ? "may overflow int32" : c->expect ? NULL : "reaches the clamp";
    c->check_op = c->b_const ? 1 : 2;
    if (npuc_rng_range(r, 0, 1)) {
        /* clamps to constants near the narrow type's ends, then the CAST */
        c->dt_out = npuc_rng_range(r, 0, 1) ? GRAPH_I16 : GRAPH_I8;
        int64_t e = c->dt_out == GRAPH_I16 ? 32768 : 128, spread = e / 8 + 1;
        /* mostly a MINIMUM and a MAXIMUM, two in three inside the type */
        c->n_clamp = npuc_rng_range(r, 0, 3) == 0 ? 1 : (int32_t)npuc_rng_range(r, 2, 3);
        for (int32_t k = 0; k < c->n_clamp; k++) {
            bool mn = npuc_rng_range(r, 0, 2) != 0 ? (k % 2 == 0) : npuc_rng_range(r, 0, 1);
            c->clamp_op[k] = mn ? TFL_OP_MINIMUM : TFL_OP_MAXIMUM;
            int64_t d = (int64_t)npuc_rng_range(r, 0, (uint32_t)(3 * spread)) - spread;
            c->clamp_k[k] = (int32_t)(mn ? e - 1 - d : -e + d);
        }
        c->mid_out = npuc_rng_range(r, 0, 7) == 0;
        c->after = npuc_rng_range(r, 0, 2) == 0;
    }
}

static void random_argmax(npuc_rng *r, cfg *c)
{
    c->form = F_ARGMAX;
    c->R = (int32_t)npuc_rng_range(r, 1, 40);
    c->C = (int32_t)npuc_rng_range(r, 1, 40);
    c->axis = (int32_t)npuc_rng_range(r, 1, 2);
    c->d = (int32_t)npuc_rng_range(r, 1, 12);
    int sh = (int)npuc_rng_range(r, 0, 31);
    int64_t km = ((int64_t)1 << sh) - 1;
    c->k = (int32_t)(npuc_rng_range(r, km / 2, km) * (npuc_rng_range(r, 0, 1) ? -1 : 1));
    c->add = npuc_rng_range(r, 0, 2) == 0;
    int64_t n = c->axis == 1 ? c->R : c->C;   /* ARG_MAX: [0, n - 1]; DIV: [0, (n - 1) / d] */
    int64_t q = (n - 1) / c->d, m = q * c->k;
    int64_t mlo = m < 0 ? m : 0, mhi = m > 0 ? m : 0;
    bool fits = c->add ? mlo >= INT32_MIN && mhi + n - 1 <= INT32_MAX : n - 1 - mlo <= INT32_MAX && -mhi >= INT32_MIN;
    c->expect = fits;
    c->why = "may overflow int32";
    c->check_op = 3;
}

static void random_bcast(npuc_rng *r, cfg *c)
{
    c->form = F_BCAST;
    c->opcode = binops[npuc_rng_range(r, 0, 4)];
    c->dt = npuc_rng_range(r, 0, 1) ? GRAPH_I16 : GRAPH_I8;
    c->dt2 = c->dt;
    random_shapes(r, c, true);
    c->b_const = npuc_rng_range(r, 0, 2) == 0;
    c->klo = c->dt == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    c->khi = c->dt == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    if (c->opcode != TFL_OP_MINIMUM && c->opcode != TFL_OP_MAXIMUM && npuc_rng_range(r, 0, 3) == 0)
        c->act = TFL_ACT_RELU;
    c->add = npuc_rng_range(r, 0, 1);
    c->logistic = c->dt == GRAPH_I8 && npuc_rng_range(r, 0, 1);
    c->expect = 1;
    c->check_op = 0;
}

static void random_view(npuc_rng *r, cfg *c)
{
    c->form = F_VIEW;
    c->opcode = binops[npuc_rng_range(r, 0, 4)];
    c->dt = npuc_rng_range(r, 0, 1) ? GRAPH_I16 : GRAPH_I8;
    c->dt2 = c->dt;
    c->rank = 4;
    int32_t C = (int32_t)npuc_rng_range(r, 1, 15);
    /* mostly sizes a 16k-deep view divides */
    int32_t H = (int32_t)npuc_rng_range(r, 1, 12), W = (int32_t)npuc_rng_range(r, 1, 12);
    if (npuc_rng_range(r, 0, 3)) W *= 16;
    int32_t so[4] = {1, H, W, C};
    memcpy(c->so, so, sizeof so);
    memcpy(c->sa, so, sizeof so);
    int32_t k = (int32_t)npuc_rng_range(r, 0, 2);   /* 0 whole, 1 scalar, 2 per channel */
    int32_t sb[4] = {1, k ? 1 : H, k ? 1 : W, k == 2 ? C : k ? 1 : C};
    memcpy(c->sb, sb, sizeof sb);
    c->b_const = k == 2 || (k == 1 && npuc_rng_range(r, 0, 1)) || (k == 0 && npuc_rng_range(r, 0, 3) == 0);
    c->klo = c->dt == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    c->khi = c->dt == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    if (c->opcode != TFL_OP_MINIMUM && c->opcode != TFL_OP_MAXIMUM && npuc_rng_range(r, 0, 3) == 0)
        c->act = TFL_ACT_RELU;
    c->add = npuc_rng_range(r, 0, 2) == 0;
    c->logistic = c->dt == GRAPH_I8 && npuc_rng_range(r, 0, 1);
    c->expect = 1;
    c->check_op = 0;
}

int main(void)
{
    stats st = {0};
    long n_random = env_long("NPUC_EWR_CONFIGS", 240);
    long first = env_long("NPUC_EWR_SEED", 1);
    static const char *names[4] = {"cast", "argmax", "bcast", "view"};
    int vi = 0;
    for (int f = 0; f < 4; f++) {
        int npu0 = st.npu, cpu0 = st.cpu, failed0 = st.failed;
        for (long i = 0; i < n_random; i++) {
            uint64_t seed = (uint64_t)(first + i) * 3 + (uint64_t)f;
            npuc_rng r;
            npuc_rng_seed(&r, seed * 2654435761u + 17);
            cfg c;
            memset(&c, 0, sizeof c);
            if (f == F_CAST) random_cast(&r, &c);
            else if (f == F_ARGMAX) random_argmax(&r, &c);
            else if (f == F_BCAST) random_bcast(&r, &c);
            else random_view(&r, &c);
            c.variant = variants[vi++ % 6];
            run_config(&c, seed, &st);
        }
        printf("%s: %d on the NPU, %d on the CPU of %ld, %d failed\n", names[f], st.npu - npu0, st.cpu - cpu0,
               n_random, st.failed - failed0);
        if (f == F_CAST) {
            printf("cast: clamp chains to int8 / int16 fused into the op %d, into a clamp %d, left apart %d; "
                   "a MUL after a fused chain on the NPU %d, in a cascade with its producer %d\n",
                   st.fused, st.fused_late, st.apart, st.after_npu, st.after_cascade);
            CHECK(st.fused >= n_random / 16);
            CHECK(st.apart >= n_random / 20);
            CHECK(st.after_npu > 0);
        }
        /* every form mostly on the NPU, the int32 ones with CPU cases too */
        CHECK(st.npu - npu0 >= n_random / 3);
        if (f == F_CAST || f == F_ARGMAX) CHECK(st.cpu - cpu0 >= n_random / 20);
        if (f == F_VIEW) {
            printf("view: %d of %ld viewed as a dense block of another depth\n", n_viewed, n_random);
            CHECK(n_viewed >= n_random / 3);
            CHECK_EQ_INT(st.cpu - cpu0, 0);
        }
    }
    /* past the sub-op limit (70 and 81 sub-ops either way): a constant
     * operand is expanded to the output's shape in flash, else the CPU */
    for (int v = 0; v < 6; v++) {
        cfg c;
        memset(&c, 0, sizeof c);
        c.form = F_BCAST;
        c.opcode = binops[v % 5];
        c.dt = c.dt2 = v % 2 ? GRAPH_I16 : GRAPH_I8;
        c.rank = 4;
        int32_t sa[4] = {1, 9, 9, 1}, sb[4] = {1, 1, 1, 70}, so[4] = {1, 9, 9, 70};
        memcpy(c.sa, sa, sizeof sa);
        memcpy(c.sb, sb, sizeof sb);
        memcpy(c.so, so, sizeof so);
        c.klo = c.dt == GRAPH_I16 ? -300 : -100;
        c.khi = c.dt == GRAPH_I16 ? 3000 : 120;
        c.variant = variants[v];
        c.b_const = true;
        c.expect = 1;
        CHECK(run_config(&c, (uint64_t)(900 + v), &st));
        c.b_const = false;
        c.expect = 0;
        c.why = "sub-ops, at most 64";
        CHECK(run_config(&c, (uint64_t)(910 + v), &st));
    }
    printf("ew_range: %d configurations (%d failed), %d on the NPU / %d on the CPU, %d compiled runs\n", st.configs,
           st.failed, st.npu, st.cpu, st.runs);
    CHECK_EQ_INT(st.failed, 0);
    TEST_MAIN_END();
}
