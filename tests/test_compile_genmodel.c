/* The compiler's differential test. For generated models (tools/genmodel,
 * seeds 1..1000, odd seeds int16x8, even int8; --ops and --max-dim vary with
 * the seed), each compiled for one of the six Ethos-U variants in turn (one
 * model in four with --optimise size):
 *
 *   genmodel_build -> cc_compile -> emit_tflite_model -> tfl_write (memory)
 *   -> tfl_read -> graph_import            (the compiled model, as a user gets it)
 *
 * then the compiled model runs through the host API as `npuc run` runs it
 * (npuc.h: its "ethos-u" ops on a virtual NPU of that variant, every other
 * op on the reference kernels), and the source graph runs
 * on the reference interpreter, on the same random inputs (several draws per
 * model, full int8/int16 range as `npuc run --random-input`). Every output
 * must be byte-identical. A compile error fails the test unless the
 * reference interpreter rejects the model too (then it is skipped); a draw
 * whose values the reference kernels reject at run time (an int8 SOFTMAX row
 * above 511 elements can) is skipped and counted, if the compiled model
 * rejects it too.
 *
 * On a mismatch it prints the seed, variant, output, first differing index
 * and both values, the first intermediate tensor visible in both graphs that
 * differs, the per-op placement, and the commands that reproduce it.
 *
 * Environment (for developers; the defaults are what ctest runs):
 *   NPUC_GENMODEL_COUNT  models (default 1000; 300 in sanitizer builds)
 *   NPUC_GENMODEL_FIRST  first seed (default 1); FIRST=N COUNT=1 reruns seed N
 *   NPUC_GENMODEL_DRAWS  input draws per model (default 4)
 *   NPUC_GENMODEL_ONLY   comma-separated op names (genmodel --list) to draw from;
 *                        seeds genmodel cannot build with them are skipped
 *   NPUC_GENMODEL_OPS, NPUC_GENMODEL_MAXDIM  force --ops / --max-dim
 *   NPUC_GENMODEL_CASCADE  all|auto|off: force --cascade (default: one
 *                        model in three "all", the others "auto")
 *   NPUC_GENMODEL_BANDS  bands a cascade cuts its rows into
 *                        (cc_options.cascade_bands; default the compiler's) 
 *   NPUC_GENMODEL_VERBOSE  print the placement of every model */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/interp/interp_ethosu.h"
#include "../src/sim/sim.h"
#include "../src/api/api.h"
#include "../tools/genmodel/genmodel.h"
#include "cc_hazard.h"

#include <ctype.h>
#include <stdint.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define T_SANITIZED 1
#endif
#endif
#ifndef T_SANITIZED
#define T_SANITIZED 0
#endif

#define DEFAULT_COUNT 1000
#define SANITIZED_COUNT 300
#define DEFAULT_DRAWS 4

static const eu_variant variants[6] = {EU_U55_32, EU_U55_64, EU_U55_128,
                                        EU_U55_256, EU_U65_256, EU_U65_512};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    long x = strtol(v, &end, 0);
    return *end ? def : x;
}

/* ------------------------------------------------------- per-seed config */

typedef struct model_cfg {
    bool int16;
    int32_t n_ops;      /* 0 = genmodel's random 3..12 */
    int32_t max_dim;
    eu_variant variant;
    bool size;          /* CC_OPT_SIZE (--optimise size) */
    cc_cascade_mode cascade;
} model_cfg;

static long ops_override = -1, dim_override = -1;   /* NPUC_GENMODEL_OPS / _MAXDIM */
static long cascade_override = -1;                  /* NPUC_GENMODEL_CASCADE */
static long bands_override = 0;                     /* NPUC_GENMODEL_BANDS */

/* A pure function of the seed, so that FIRST=N COUNT=1 reproduces seed N. */
static model_cfg cfg_for_seed(uint64_t seed)
{
    model_cfg c;
    c.int16 = (seed & 1) != 0;
    /* consecutive seed pairs share a variant: every variant sees both types */
    c.variant = variants[((seed - 1) / 2) % 6];
    npuc_rng r;
    npuc_rng_seed(&r, seed * 0x9E3779B97F4A7C15ull + 0x5eed);
    static const int32_t dims[] = {32, 32, 32, 24, 16, 16, 12, 8, 6, 4};
    c.max_dim = dims[npuc_rng_range(&r, 0, (int64_t)(sizeof dims / sizeof dims[0]) - 1)];
    /* 40% genmodel's default 3..12, 30% short chains, 20% medium, 10% long */
    int64_t k = npuc_rng_range(&r, 0, 9);
    c.n_ops = k < 4 ? 0
            : k < 7 ? (int32_t)npuc_rng_range(&r, 1, 8)
            : k < 9 ? (int32_t)npuc_rng_range(&r, 9, 24)
                    : (int32_t)npuc_rng_range(&r, 25, 60);
    /* one model in four optimised for size (no weight buffering) */
    c.size = npuc_rng_range(&r, 0, 3) == 0;
    /* one model in three cascades every chain it can (--cascade all) */
    c.cascade = npuc_rng_range(&r, 0, 2) == 0 ? CC_CASCADE_ALL : CC_CASCADE_AUTO;
    if (cascade_override >= 0) c.cascade = (cc_cascade_mode)cascade_override;
    if (ops_override >= 0) c.n_ops = (int32_t)ops_override;
    if (dim_override >= 0) c.max_dim = (int32_t)dim_override;
    return c;
}

/* ----------------------------------------------------------- statistics */

typedef struct reason {
    char text[200];
    int count;
} reason;

typedef struct stats {
    int models, compiled, skipped, gen_skipped, failed_models;
    long npu_ops, cpu_ops, hw_epochs, sw_epochs;
    long cascades, cascaded_ops;   /* cascades and the graph ops in them */
    long npu_by_code[256], cpu_by_code[256];
    reason *reasons;
    int n_reasons, cap_reasons;
    double t_gen, t_compile, t_emit, t_npu_run, t_ref_run;
    long draws, ref_rejected_draws, npu_invocations;
    uint64_t failed_seeds[200];
    uint64_t npu_cycles;
} stats;

/* Histogram key: the op name plus the reason with numbers replaced by N, so
 * that "kernel 3 x 7" and "kernel 5 x 5" count together. */
static void add_reason(stats *s, const char *opname, const char *why)
{
    char key[200];
    size_t o = (size_t)snprintf(key, sizeof key, "%s: ", opname);
    bool in_num = false;
    for (const char *p = why; *p && o + 1 < sizeof key; p++) {
        /* a number not glued to a word ("int16" stays) */
        bool num = isdigit((unsigned char)*p) && (in_num || p == why || !isalnum((unsigned char)p[-1]));
        if (num) {
            if (!in_num) key[o++] = 'N';
        } else {
            key[o++] = *p;
        }
        in_num = num;
    }
    key[o] = 0;
    for (int i = 0; i < s->n_reasons; i++)
        if (!strcmp(s->reasons[i].text, key)) {
            s->reasons[i].count++;
            return;
        }
    if (s->n_reasons == s->cap_reasons) {
        int cap = s->cap_reasons ? 2 * s->cap_reasons : 64;
        reason *r = realloc(s->reasons, (size_t)cap * sizeof *r);
        if (!r) return;
        s->reasons = r;
        s->cap_reasons = cap;
    }
    snprintf(s->reasons[s->n_reasons].text, sizeof s->reasons[0].text, "%s", key);
    s->reasons[s->n_reasons].count = 1;
    s->n_reasons++;
}

static int reason_cmp(const void *a, const void *b)
{
    const reason *x = a, *y = b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->text, y->text);
}

/* ----------------------------------------------- ethos-u ops on the sim */

/* The compiled TFLite in memory, opened as `npuc run` opens a file: its
 * ethos-u ops on a virtual NPU of variant tname (which refuses streams
 * compiled for another), the other ops on the reference kernels. */
static int open_compiled(const uint8_t *bytes, size_t n, const char *tname, bool keep, npuc_model **m, npuc_err *err)
{
    npuc_target_spec t = {.npu = tname};
    npuc_open_options oo = {.keep_tensors = keep};
    return npuc_model_open_memory(bytes, n, &t, &oo, m) ? npuc_last_err(err) : NPUC_OK;
}

/* ------------------------------------------------------------- inputs */

/* Exactly cli_run.c's fill_random (so `npuc run --random-input --seed S`
 * gives the same inputs). */
static void fill_random(npuc_rng *r, const graph_tensor *t, uint8_t *d)
{
    size_t n = graph_tensor_elems(t);
    for (size_t i = 0; i < n; i++) {
        switch (t->dtype) {
        case GRAPH_I8: ((int8_t *)d)[i] = (int8_t)npuc_rng_range(r, -128, 127); break;
        case GRAPH_U8: d[i] = (uint8_t)npuc_rng_range(r, 0, 255); break;
        case GRAPH_BOOL: d[i] = (uint8_t)npuc_rng_range(r, 0, 1); break;
        case GRAPH_I16: ((int16_t *)d)[i] = (int16_t)npuc_rng_range(r, -32768, 32767); break;
        case GRAPH_I32: ((int32_t *)d)[i] = (int32_t)npuc_rng_range(r, INT32_MIN, INT32_MAX); break;
        case GRAPH_I64: ((int64_t *)d)[i] = (int64_t)npuc_rng_next(r); break;
        case GRAPH_F32: ((float *)d)[i] = (float)(npuc_rng_unit(r) * 2.0 - 1.0); break;
        default: d[i * graph_dtype_size(t->dtype)] = (uint8_t)npuc_rng_next(r); break;
        }
    }
}

static uint64_t input_seed(uint64_t seed, int draw) { return seed * 16 + (uint64_t)draw; }

/* Sets every input of ip from `rseed` (source graph g decides the shapes:
 * both graphs have the same inputs, checked before). */
static int set_inputs(interp *ip, const graph *g, uint64_t rseed, npuc_err *err)
{
    npuc_rng rng;
    npuc_rng_seed(&rng, rseed);
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        uint8_t *buf = malloc(t->nbytes ? t->nbytes : 1);
        if (!buf) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        fill_random(&rng, t, buf);
        int rc = interp_set_input(ip, i, buf, t->nbytes, err);
        free(buf);
        if (rc) return rc;
    }
    return NPUC_OK;
}

/* The same inputs for the compiled model; then one run, with the profile
 * (*streams: the command streams it ran, *cycles their NPU cycles). */
static int run_compiled(npuc_model *m, const graph *g, uint64_t rseed, long *streams, uint64_t *cycles,
                        npuc_err *err)
{
    npuc_rng rng;
    npuc_rng_seed(&rng, rseed);
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        uint8_t *buf = malloc(t->nbytes ? t->nbytes : 1);
        if (!buf) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        fill_random(&rng, t, buf);
        int rc = npuc_set_input(m, (uint32_t)i, buf, t->nbytes);
        free(buf);
        if (rc) return npuc_last_err(err);
    }
    npuc_run_options ro = {.profile = true};
    if (npuc_run(m, &ro)) return npuc_last_err(err);
    const npuc_profile *p;
    npuc_get_profile(m, &p);
    *streams += (long)p->n_streams;
    *cycles += p->npu_cycles;
    return NPUC_OK;
}

static long long elem_at(graph_dtype dt, const void *d, size_t i)
{
    switch (dt) {
    case GRAPH_I8: return ((const int8_t *)d)[i];
    case GRAPH_U8: case GRAPH_BOOL: return ((const uint8_t *)d)[i];
    case GRAPH_I16: return ((const int16_t *)d)[i];
    case GRAPH_I32: return ((const int32_t *)d)[i];
    case GRAPH_I64: return (long long)((const int64_t *)d)[i];
    case GRAPH_F32: return (long long)((const float *)d)[i];
    case GRAPH_U32: return ((const uint32_t *)d)[i];
    case GRAPH_U16: return ((const uint16_t *)d)[i];
    default: return 0; /* types genmodel never makes */
    }
    return 0;
}

/* First differing element of two tensors of type dt (n bytes each); -1 if equal. */
static long long first_diff(graph_dtype dt, const void *a, const void *b, size_t nbytes, long *ndiff)
{
    size_t es = graph_dtype_size(dt), n = es ? nbytes / es : 0;
    long long first = -1;
    *ndiff = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp((const uint8_t *)a + i * es, (const uint8_t *)b + i * es, es)) {
            if (first < 0) first = (long long)i;
            (*ndiff)++;
        }
    return first;
}

static void shape_str(const graph_tensor *t, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "[");
    for (int32_t d = 0; d < t->rank && o < size; d++)
        o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", t->shape[d]);
    if (o < size) snprintf(buf + o, size - o, "]");
}

/* --------------------------------------------------------- diagnostics */

/* Full diagnostics for the first failures; later ones get their FAIL line
 * and output lines only (the summary lists every failing seed). */
#define DETAILED_FAILURES 25
static int n_detailed;
static bool detail;

static void print_placement(const cc_model *cm, const graph *g)
{
    if (!detail) return;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        const cc_op_info *o = &cm->ops[i];
        char sh[64] = "";
        if (op->n_out >= 1 && op->out[0] >= 0) shape_str(&g->tensors[op->out[0]], sh, sizeof sh);
        if (o->npu)
            fprintf(stderr, "    op %2d %-20s -> %-14s NPU  epoch %d, %d NPU op%s (eu %d..)\n", i,
                    graph_op_name(op), sh, o->epoch, o->n_eu, o->n_eu == 1 ? "" : "s", o->first_eu);
        else
            fprintf(stderr, "    op %2d %-20s -> %-14s CPU  epoch %d: %s\n", i, graph_op_name(op), sh, o->epoch,
                    o->why);
    }
}

/* Runs both graphs with keep_all and reports the first tensor (in source
 * op order) that both graphs have, by name, and that differs: the culprit
 * is the op producing it, or an earlier op of the same NPU epoch. */
static void locate_first_diff(const graph *src, const graph *cg, const cc_model *cm, const uint8_t *bytes,
                              size_t nbytes, const char *tname, uint64_t rseed)
{
    if (!detail) return;
    npuc_err e = {0};
    interp *a = NULL;
    npuc_model *b = NULL;
    long streams = 0;
    uint64_t cycles = 0;
    interp_options oa = {.keep_all = true};
    if (interp_create(src, &oa, &a, &e) || open_compiled(bytes, nbytes, tname, true, &b, &e) ||
        set_inputs(a, src, rseed, &e) || interp_invoke(a, &e) || run_compiled(b, src, rseed, &streams, &cycles, &e)) {
        fprintf(stderr, "    (keep_all rerun failed: %s)\n", e.msg);
        goto out;
    }
    for (int32_t i = 0; i < src->n_ops; i++) {
        const graph_op *op = &src->ops[i];
        for (int32_t k = 0; k < op->n_out; k++) {
            int32_t t = op->out[k];
            if (t < 0) continue;
            const graph_tensor *st = &src->tensors[t];
            int32_t u = -1;
            for (int32_t j = 0; j < cg->n_tensors; j++) {
                const graph_tensor *ct = &cg->tensors[j];
                if (ct->data || !ct->name || !st->name || strcmp(ct->name, st->name)) continue;
                if (ct->dtype == st->dtype && ct->nbytes == st->nbytes) u = j;
                break;
            }
            if (u < 0) continue;
            const void *da = interp_tensor_data(a, t), *db = npuc_tensor_data(b, (uint32_t)u);
            if (!da || !db) continue;
            long nd;
            long long at = first_diff(st->dtype, da, db, st->nbytes, &nd);
            if (at < 0) continue;
            char sh[64];
            shape_str(st, sh, sizeof sh);
            int ep = cm->ops[i].epoch;
            fprintf(stderr,
                    "    first differing tensor visible in both graphs: '%s' %s %s, written by op %d (%s, %s, "
                    "epoch %d): %ld of %zu elements differ, first at %lld: reference %lld, compiled %lld\n",
                    st->name, sh, graph_dtype_name(st->dtype), i, graph_op_name(op),
                    cm->ops[i].npu ? "NPU" : "CPU", ep, nd, graph_tensor_elems(st), at,
                    elem_at(st->dtype, da, (size_t)at), elem_at(st->dtype, db, (size_t)at));
            if (cm->ops[i].npu && ep >= 0 && ep < cm->n_epochs) {
                const cc_epoch *E = &cm->epochs[ep];
                fprintf(stderr, "    suspects (ops of epoch %d up to op %d):", ep, i);
                for (int32_t j = E->first_op; j <= i; j++) fprintf(stderr, " %d:%s", j, graph_op_name(&src->ops[j]));
                fprintf(stderr, "\n");
            }
            goto out;
        }
    }
    fprintf(stderr, "    (no differing intermediate tensor found by name)\n");
out:
    interp_free(a);
    npuc_model_close(&b);
}

static void print_repro(uint64_t seed, const model_cfg *mc, uint64_t rseed, const char *only_env)
{
    if (!detail) return;
    /* the band count has no CLI option: the env rerun alone keeps it */
    char bands_note[48] = "";
    if (bands_override) snprintf(bands_note, sizeof bands_note, " NPUC_GENMODEL_BANDS=%ld", bands_override);
    fprintf(stderr,
            "    reproduce: genmodel --seed %llu%s --ops %d --max-dim %d%s%s -o m.tflite &&\n"
            "               npuc compile m.tflite --target %s%s%s -o d &&\n"
            "               npuc run m.tflite --random-input --seed %llu --output ref.bin &&\n"
            "               npuc run d/m_npu.tflite --random-input --seed %llu --output npu.bin && cmp ref.bin npu.bin\n"
            "      (or: NPUC_GENMODEL_FIRST=%llu NPUC_GENMODEL_COUNT=1%s%s%s test_compile_genmodel)\n",
            (unsigned long long)seed, mc->int16 ? " --int16" : "", mc->n_ops, mc->max_dim,
            only_env ? " --only " : "", only_env ? only_env : "", target_variant_name(mc->variant),
            mc->size ? " --optimise size" : "",
            mc->cascade == CC_CASCADE_ALL ? " --cascade all" : mc->cascade == CC_CASCADE_OFF ? " --cascade off" : "",
            (unsigned long long)rseed, (unsigned long long)rseed, (unsigned long long)seed,
            only_env ? " NPUC_GENMODEL_ONLY=" : "", only_env ? only_env : "", bands_note);
}

/* ------------------------------------------------------------ one model */

static bool same_io(const graph *a, const graph *b, char *why, size_t size)
{
    if (a->n_inputs != b->n_inputs || a->n_outputs != b->n_outputs) {
        snprintf(why, size, "source has %d inputs / %d outputs, compiled %d / %d", a->n_inputs, a->n_outputs,
                 b->n_inputs, b->n_outputs);
        return false;
    }
    for (int32_t k = 0; k < a->n_inputs + a->n_outputs; k++) {
        bool in = k < a->n_inputs;
        int32_t i = in ? k : k - a->n_inputs;
        const graph_tensor *x = &a->tensors[in ? a->inputs[i] : a->outputs[i]];
        const graph_tensor *y = &b->tensors[in ? b->inputs[i] : b->outputs[i]];
        bool ok = x->dtype == y->dtype && x->rank == y->rank && x->nbytes == y->nbytes;
        for (int32_t d = 0; ok && d < x->rank; d++) ok = x->shape[d] == y->shape[d];
        if (!ok) {
            char sx[64], sy[64];
            shape_str(x, sx, sizeof sx);
            shape_str(y, sy, sizeof sy);
            snprintf(why, size, "%s %d: source %s %s, compiled %s %s", in ? "input" : "output", i, sx,
                     graph_dtype_name(x->dtype), sy, graph_dtype_name(y->dtype));
            return false;
        }
    }
    return true;
}

/* Returns true when the model passed (or was skipped). */
static bool test_model(uint64_t seed, const int32_t *only, int32_t n_only, const char *only_env, int draws,
                       bool verbose, stats *st)
{
    model_cfg mc = cfg_for_seed(seed);
    const char *tname = target_variant_name(mc.variant);
    detail = n_detailed < DETAILED_FAILURES;
    genmodel_config gc;
    genmodel_config_default(&gc);
    gc.int16 = mc.int16;
    gc.n_ops = mc.n_ops;
    gc.max_dim = mc.max_dim;
    gc.only = only;
    gc.n_only = n_only;

    npuc_err e = {0};
    graph *src = NULL, *cg = NULL;
    cc_model *cm = NULL;
    tfl_model *tm = NULL, *rt = NULL;
    uint8_t *bytes = NULL;
    size_t nbytes = 0;
    interp *ref = NULL;
    npuc_model *npu_m = NULL;
    long npu_runs = 0;          /* ethos-u op runs (command streams) */
    uint64_t npu_cycles = 0;
    bool ok = false;
    double t0 = now_s();
    st->models++;

    if (genmodel_build(seed, &gc, &src, &e)) {
        if (only) {
            /* a restricted op list may not fit this seed's input (or int16) */
            st->gen_skipped++;
            ok = true;
            goto out;
        }
        fprintf(stderr, "FAIL seed %llu: genmodel: %s\n", (unsigned long long)seed, e.msg);
        goto out;
    }
    double t1 = now_s();
    st->t_gen += t1 - t0;

    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.optimise = mc.size ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
    opt.cascade = mc.cascade;
    opt.cascade_bands = (uint32_t)bands_override;
    {
        eu_variant pv = mc.variant;
        if (target_variant_parse(tname, &pv, &e) || pv != mc.variant) {
            fprintf(stderr, "FAIL seed %llu: target_variant_parse(%s): %s\n", (unsigned long long)seed, tname,
                    pv != mc.variant ? "wrong variant" : e.msg);
            goto out;
        }
    }
    if (target_default(mc.variant, &opt.sys, &e)) {
        fprintf(stderr, "FAIL seed %llu: target_default(%s): %s\n", (unsigned long long)seed, tname, e.msg);
        goto out;
    }
    if (cc_compile(src, &opt, &cm, &e)) {
        npuc_err e2 = {0};
        interp_options ro = {0};
        if (interp_create(src, &ro, &ref, &e2)) {
            st->skipped++;
            if (verbose)
                printf("seed %llu: skipped: the reference interpreter rejects it too (%s)\n",
                       (unsigned long long)seed, e2.msg);
            ok = true;
            goto out;
        }
        fprintf(stderr, "FAIL seed %llu (%s, %s): cc_compile: %s\n", (unsigned long long)seed, src->name, tname,
                e.msg);
        print_repro(seed, &mc, input_seed(seed, 0), only_env);
        goto out;
    }
    double t2 = now_s();
    st->t_compile += t2 - t1;
    st->compiled++;
    for (int32_t i = 0; i < src->n_ops; i++) {
        int32_t code = src->ops[i].opcode;
        if (cm->ops[i].npu) {
            st->npu_ops++;
            if (code >= 0 && code < 256) st->npu_by_code[code]++;
        } else {
            st->cpu_ops++;
            if (code >= 0 && code < 256) st->cpu_by_code[code]++;
            add_reason(st, graph_op_name(&src->ops[i]), cm->ops[i].why);
        }
    }
    for (int32_t i = 0; i < src->n_ops; i++) {
        if (cm->ops[i].cascade < 0) continue;
        st->cascaded_ops++;
        if (cm->ops[i].cascade == i) st->cascades++;
    }
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        if (cm->epochs[i].kind == CC_EPOCH_HW) st->hw_epochs++;
        else st->sw_epochs++;
    }
    /* waits and BLOCKDEP keep concurrent operations apart (the virtual NPU
     * runs commands in order and cannot tell) */
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        const cc_epoch *ep = &cm->epochs[i];
        char hz[320];
        if (ep->kind != CC_EPOCH_HW || !cc_hazard_check(ep->payload, ep->payload_size, mc.variant, true, hz, sizeof hz))
            continue;
        fprintf(stderr, "FAIL seed %llu (%s, %s): epoch %d: %s\n", (unsigned long long)seed, src->name, tname,
                (int)i, hz);
        print_placement(cm, src);
        print_repro(seed, &mc, input_seed(seed, 0), only_env);
        goto out;
    }
    if (verbose) {
        printf("seed %llu (%s, %s, %d ops):\n", (unsigned long long)seed, src->name, tname, src->n_ops);
        fflush(stdout);
        print_placement(cm, src);
    }

    /* emit and read back, as a user would */
    if (emit_tflite_model(cm, &tm, &e) || tfl_write(tm, &bytes, &nbytes, &e) || tfl_read(bytes, nbytes, &rt, &e) ||
        graph_import(rt, &cg, &e)) {
        fprintf(stderr, "FAIL seed %llu (%s, %s): emit / write / read back: %s\n", (unsigned long long)seed,
                src->name, tname, e.msg);
        print_placement(cm, src);
        print_repro(seed, &mc, input_seed(seed, 0), only_env);
        goto out;
    }
    double t3 = now_s();
    st->t_emit += t3 - t2;
    char why[256];
    if (!same_io(src, cg, why, sizeof why)) {
        fprintf(stderr, "FAIL seed %llu (%s, %s): compiled model's interface differs: %s\n",
                (unsigned long long)seed, src->name, tname, why);
        print_repro(seed, &mc, input_seed(seed, 0), only_env);
        goto out;
    }

    interp_options ro = {0};
    if (interp_create(src, &ro, &ref, &e)) {
        fprintf(stderr, "FAIL seed %llu (%s): the reference interpreter rejects the source model: %s\n",
                (unsigned long long)seed, src->name, e.msg);
        goto out;
    }
    if (open_compiled(bytes, nbytes, tname, false, &npu_m, &e)) {
        fprintf(stderr, "FAIL seed %llu (%s, %s): the compiled model does not prepare: %s\n",
                (unsigned long long)seed, src->name, tname, e.msg);
        print_placement(cm, src);
        print_repro(seed, &mc, input_seed(seed, 0), only_env);
        goto out;
    }
    int draws_run = 0;
    for (int d = 0; d < draws; d++) {
        uint64_t rs = input_seed(seed, d);
        double a0 = now_s();
        if (set_inputs(ref, src, rs, &e)) {
            fprintf(stderr, "FAIL seed %llu (%s): reference inputs: %s\n", (unsigned long long)seed, src->name,
                    e.msg);
            goto out;
        }
        if (interp_invoke(ref, &e)) {
            /* The reference kernels reject these input values (e.g. an int8
             * SOFTMAX row whose exp sum needs a shift above 31). Not a compiler
             * question: skip the draw, but the compiled model must reject them
             * too (the op runs on the same kernel there) and it is counted. */
            npuc_err e2 = {0};
            long rejected_runs = 0;
            uint64_t rejected_cycles = 0;
            bool both = run_compiled(npu_m, src, rs, &rejected_runs, &rejected_cycles, &e2) != NPUC_OK;
            if (!both) {
                fprintf(stderr,
                        "FAIL seed %llu (%s, %s), input seed %llu: the reference run fails (%s) but the compiled "
                        "model runs\n",
                        (unsigned long long)seed, src->name, tname, (unsigned long long)rs, e.msg);
                print_placement(cm, src);
                print_repro(seed, &mc, rs, only_env);
                goto out;
            }
            st->ref_rejected_draws++;
            printf("note: seed %llu (%s), input seed %llu: draw skipped, the reference interpreter rejects the "
                   "inputs: %s\n",
                   (unsigned long long)seed, src->name, (unsigned long long)rs, e.msg);
            continue;
        }
        double a1 = now_s();
        if (run_compiled(npu_m, src, rs, &npu_runs, &npu_cycles, &e)) {
            fprintf(stderr, "FAIL seed %llu (%s, %s): compiled model run (input seed %llu): %s\n",
                    (unsigned long long)seed, src->name, tname, (unsigned long long)rs, e.msg);
            print_placement(cm, src);
            print_repro(seed, &mc, rs, only_env);
            goto out;
        }
        double a2 = now_s();
        st->t_ref_run += a1 - a0;
        st->t_npu_run += a2 - a1;
        st->draws++;
        draws_run++;
        bool same = true;
        for (int32_t i = 0; i < src->n_outputs; i++) {
            size_t na, nb;
            const void *oa = interp_output(ref, i, &na), *ob = npuc_output(npu_m, (uint32_t)i, &nb);
            const graph_tensor *t = &src->tensors[src->outputs[i]];
            long nd = 0;
            long long at = na != nb ? 0 : first_diff(t->dtype, oa, ob, na, &nd);
            if (na == nb && at < 0) continue;
            if (same) {
                fprintf(stderr, "FAIL seed %llu (%s, %s%s, %d ops, max-dim %d), input seed %llu: output differs\n",
                        (unsigned long long)seed, src->name, tname, mc.size ? ", optimise size" : "", src->n_ops,
                        mc.max_dim, (unsigned long long)rs);
            }
            same = false;
            char sh[64];
            shape_str(t, sh, sizeof sh);
            if (na != nb)
                fprintf(stderr, "    output %d '%s' %s: %zu bytes from the reference, %zu from the compiled model\n",
                        i, t->name, sh, na, nb);
            else
                fprintf(stderr,
                        "    output %d '%s' %s %s (written by op %d %s): %ld of %zu elements differ, first at "
                        "index %lld: reference %lld, compiled %lld\n",
                        i, t->name, sh, graph_dtype_name(t->dtype), t->producer,
                        t->producer >= 0 ? graph_op_name(&src->ops[t->producer]) : "-", nd, graph_tensor_elems(t),
                        at, elem_at(t->dtype, oa, (size_t)at), elem_at(t->dtype, ob, (size_t)at));
        }
        if (!same) {
            if (detail) fprintf(stderr, "    placement (%s):\n", tname);
            print_placement(cm, src);
            locate_first_diff(src, cg, cm, bytes, nbytes, tname, rs);
            print_repro(seed, &mc, rs, only_env);
            goto out;
        }
    }
    {
        /* the harness really ran every ethos-u op on the virtual NPU */
        int32_t n_eu_ops = 0;
        for (int32_t i = 0; i < cg->n_ops; i++) n_eu_ops += interp_is_ethosu_op(&cg->ops[i]);
        if (npu_runs != (long)n_eu_ops * draws_run) {
            fprintf(stderr, "FAIL seed %llu (%s, %s): %ld ethos-u op runs for %d ops x %d draws\n",
                    (unsigned long long)seed, src->name, tname, npu_runs, n_eu_ops, draws_run);
            goto out;
        }
    }
    ok = true;
out:
    st->npu_cycles += npu_cycles;
    st->npu_invocations += npu_runs;
    interp_free(ref);
    npuc_model_close(&npu_m);
    graph_free(cg);
    tfl_model_free(rt);
    free(bytes);
    tfl_model_free(tm);
    cc_model_free(cm);
    graph_free(src);
    if (!ok) {
        if (st->failed_models < (int)(sizeof st->failed_seeds / sizeof st->failed_seeds[0]))
            st->failed_seeds[st->failed_models] = seed;
        st->failed_models++;
        if (++n_detailed == DETAILED_FAILURES)
            fprintf(stderr, "(%d failures shown in full; later ones in brief)\n", DETAILED_FAILURES);
    }
    return ok;
}

/* -------------------------------------------------------------- main */

static int parse_only(const char *s, int32_t *only, int32_t cap)
{
    int32_t n_ops, n = 0;
    const int32_t *ops = genmodel_ops(&n_ops);
    while (*s) {
        size_t len = strcspn(s, ",");
        int32_t code = -1;
        for (int32_t i = 0; i < n_ops; i++) {
            const char *nm = tfl_builtin_name(ops[i]);
            if (strlen(nm) == len && !strncmp(nm, s, len)) code = ops[i];
        }
        if (code < 0 || n == cap) {
            fprintf(stderr, "NPUC_GENMODEL_ONLY: unknown op '%.*s'\n", (int)len, s);
            return -1;
        }
        only[n++] = code;
        s += len;
        if (*s == ',') s++;
    }
    return n;
}

int main(void)
{
    long count = env_long("NPUC_GENMODEL_COUNT", T_SANITIZED ? SANITIZED_COUNT : DEFAULT_COUNT);
    long first = env_long("NPUC_GENMODEL_FIRST", 1);
    long draws = env_long("NPUC_GENMODEL_DRAWS", DEFAULT_DRAWS);
    bool verbose = env_long("NPUC_GENMODEL_VERBOSE", 0) != 0;
    ops_override = env_long("NPUC_GENMODEL_OPS", -1);
    dim_override = env_long("NPUC_GENMODEL_MAXDIM", -1);
    bands_override = env_long("NPUC_GENMODEL_BANDS", 0);
    if (bands_override < 0 || bands_override > 64) bands_override = 0;
    {
        const char *cm = getenv("NPUC_GENMODEL_CASCADE");
        if (cm && !strcmp(cm, "all")) cascade_override = CC_CASCADE_ALL;
        else if (cm && !strcmp(cm, "off")) cascade_override = CC_CASCADE_OFF;
        else if (cm && !strcmp(cm, "auto")) cascade_override = CC_CASCADE_AUTO;
    }
    const char *only_env = getenv("NPUC_GENMODEL_ONLY");
    if (only_env && !*only_env) only_env = NULL;
    if (count < 1) count = 1;
    if (first < 1) first = 1;
    if (draws < 1) draws = 1;
    if (T_SANITIZED && !getenv("NPUC_GENMODEL_COUNT"))
        printf("sanitizer build: %d models instead of %d (set NPUC_GENMODEL_COUNT to change)\n", SANITIZED_COUNT,
               DEFAULT_COUNT);
    int32_t only[64], n_only = 0;
    if (only_env) {
        n_only = parse_only(only_env, only, 64);
        if (n_only < 0) return 2;
    }

    stats st;
    memset(&st, 0, sizeof st);
    double t0 = now_s();
    for (long i = 0; i < count; i++) {
        uint64_t seed = (uint64_t)(first + i);
        bool ok = test_model(seed, n_only ? only : NULL, n_only, only_env, (int)draws, verbose, &st);
        t_checks++;
        if (!ok) t_failures++;
    }
    double t1 = now_s();

    printf("test_compile_genmodel: %d models (seeds %ld..%ld%s%s), %d compiled, %d skipped (rejected by the "
           "reference too), %d failed; %ld input draws\n",
           st.models, first, first + count - 1, only_env ? ", only " : "", only_env ? only_env : "", st.compiled,
           st.skipped, st.failed_models, st.draws);
    if (st.ref_rejected_draws)
        printf("  (%ld input draws skipped: the reference interpreter rejects their values, see the notes)\n",
               st.ref_rejected_draws);
    if (st.gen_skipped) printf("  (%d seeds skipped: genmodel cannot build them from the op list)\n", st.gen_skipped);
    long tot = st.npu_ops + st.cpu_ops;
    printf("op mix: %ld ops, %ld on the NPU (%.1f%%), %ld on the CPU (%.1f%%); %ld HW epochs, %ld SW epochs; "
           "%ld ethos-u op runs on the virtual NPU, %llu NPU cycles\n",
           tot, st.npu_ops, tot ? 100.0 * (double)st.npu_ops / (double)tot : 0.0, st.cpu_ops,
           tot ? 100.0 * (double)st.cpu_ops / (double)tot : 0.0, st.hw_epochs, st.sw_epochs,
           st.npu_invocations, (unsigned long long)st.npu_cycles);
    printf("cascades: %ld, of %ld ops in all\n", st.cascades, st.cascaded_ops);
    printf("per op kind (NPU/CPU):");
    int col = 0;
    for (int c = 0; c < 256; c++) {
        if (!st.npu_by_code[c] && !st.cpu_by_code[c]) continue;
        printf("%s%s %ld/%ld", col++ % 6 ? ", " : "\n  ", tfl_builtin_name(c), st.npu_by_code[c], st.cpu_by_code[c]);
    }
    printf("\n");
    if (st.n_reasons) {
        qsort(st.reasons, (size_t)st.n_reasons, sizeof st.reasons[0], reason_cmp);
        printf("CPU-fallback reasons (top %d of %d):\n", st.n_reasons < 15 ? st.n_reasons : 15, st.n_reasons);
        for (int i = 0; i < st.n_reasons && i < 15; i++)
            printf("  %6d  %s\n", st.reasons[i].count, st.reasons[i].text);
    }
    if (st.failed_models) {
        int n = st.failed_models < 200 ? st.failed_models : 200;
        printf("failing seeds (rerun one with NPUC_GENMODEL_FIRST=N NPUC_GENMODEL_COUNT=1):");
        for (int i = 0; i < n; i++) printf("%s%llu", i % 20 ? " " : "\n  ", (unsigned long long)st.failed_seeds[i]);
        printf("%s\n", st.failed_models > n ? " ..." : "");
    }
    printf("time: %.1f s total (generate %.1f, compile %.1f, emit+read back %.1f, reference runs %.1f, "
           "compiled runs %.1f)\n",
           t1 - t0, st.t_gen, st.t_compile, st.t_emit, st.t_ref_run, st.t_npu_run);
    free(st.reasons);
    TEST_MAIN_END();
}
