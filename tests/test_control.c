/* Several subgraphs and resource variables (issue 18): the genmodel
 * control models (a streaming accumulator with CALL_ONCE and resource
 * variables, IF, WHILE) give the hand-worked outputs on the reference
 * interpreter, after a TFLite write/read round trip, on the runtime's CPU
 * epochs (compiled with cc_compile + emit_npurt, run by npurt on a virtual
 * NPU, reset with npurt_reset_state) and through the API on the compiled
 * .nprt, _npu.tflite and runtime-loadable _rel.bin, byte for byte; then random constants and inputs
 * on all of them. CALL_ONCE folding (issue 18 item 4): a constant
 * initialiser leaves the .nprt (no CALL_ONCE epoch; the variable area
 * starts with its values, NPRT 1.3) but not the _npu.tflite, the reports
 * list it, and a CALL_ONCE that is not a pure function of constants, or
 * runs after another use of the variables, stays with its reason; the
 * behaviour is the same on every backend. Bad models (subgraph index, signature, WHILE cond not
 * bool, READ of a never-assigned variable) give one clear error. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/runtime/host/npurt_host.h"
#include "../src/kernels/k_op.h"
#include "test_host_npus.h"
#include "../tools/genmodel/genmodel.h"
#include "npuc/npuc.h"
#include "npurt/npurt.h"
#include "npurt/reloc_format.h"

#define RESET NULL

/* One way of running a model: inputs (concatenated), run, outputs (concatenated), reset. */
typedef struct backend {
    const char *name;
    /* interp */
    interp *ip;
    graph *g;
    /* runtime */
    npurt_model m;
    npurt_instance inst;
    uint8_t *blob, *act, *state, *fast;
    /* API */
    const void *file;
    size_t file_size;
    npuc_model *am;
    int kind; /* 0 interp, 1 runtime, 2 api */
} backend;

static void *alloc16(size_t n)
{
    size_t sz = (n + 15) / 16 * 16;
    void *p = aligned_alloc(16, sz ? sz : 16);
    if (p) memset(p, 0xA5, sz ? sz : 16);
    return p;
}

static int rt_open(backend *b, const graph *g, npuc_err *err)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    int rc = target_default(EU_U55_128, &opt.sys, err);
    cc_model *cm = NULL;
    if (!rc) rc = cc_compile(g, &opt, &cm, err);
    uint8_t *raw = NULL;
    size_t n = 0;
    if (!rc) rc = emit_npurt(cm, "control", &raw, &n, err);
    cc_model_free(cm);
    if (rc) return rc;
    b->blob = alloc16(n);
    memcpy(b->blob, raw, n);
    free(raw);
    npurt_error e;
    if (npurt_model_load(&b->m, b->blob, n, &e)) return npuc_errf(err, NPUC_E_INVALID, "load: %s", e.what);
    uint32_t an = npurt_model_pool_size(&b->m, NPURT_POOL_ACTIVATIONS), sn = npurt_model_pool_size(&b->m, NPURT_POOL_STATE);
    uint32_t fn = npurt_model_pool_size(&b->m, NPURT_POOL_FAST);
    b->act = alloc16(an);
    b->state = alloc16(sn);
    b->fast = fn ? alloc16(fn) : NULL;
    npurt_memory mem = {.activations = b->act, .activations_size = an, .state = b->state, .state_size = sn,
                        .fast = b->fast, .fast_size = fn};
    if (npurt_init(&b->inst, &b->m, &mem, &e)) return npuc_errf(err, NPUC_E_INVALID, "init: %s", e.what);
    b->inst.drv = driver_for(EU_U55_128);
    return npurt_host_map(&b->inst, err);
}

static int api_open(backend *b)
{
    if (b->am) npuc_model_close(&b->am);
    return npuc_model_open_memory(b->file, b->file_size, NULL, NULL, &b->am);
}

/* Runs one step: inputs in[] (concatenated) -> outputs appended to out. */
static int step(backend *b, const uint8_t *in, uint8_t *out, size_t *n_out)
{
    npuc_err err = {0};
    size_t off = 0;
    *n_out = 0;
    if (!in) { /* reset */
        if (b->kind == 0) interp_reset_state(b->ip);
        else if (b->kind == 1) npurt_reset_state(&b->inst);
        else return api_open(b);
        return 0;
    }
    if (b->kind == 0) {
        const graph *g = interp_graph(b->ip);
        for (int32_t i = 0; i < g->n_inputs; i++) {
            size_t sz = g->tensors[g->inputs[i]].nbytes;
            if (interp_set_input(b->ip, i, in + off, sz, &err)) return -1;
            off += sz;
        }
        if (interp_invoke(b->ip, &err)) {
            fprintf(stderr, "%s: %s\n", b->name, err.msg);
            return -1;
        }
        for (int32_t i = 0; i < g->n_outputs; i++) {
            size_t sz;
            const void *d = interp_output(b->ip, i, &sz);
            memcpy(out + *n_out, d, sz);
            *n_out += sz;
        }
    } else if (b->kind == 1) {
        for (uint32_t i = 0; i < npurt_model_n_inputs(&b->m); i++) {
            uint32_t sz;
            void *d = npurt_input(&b->inst, i, &sz);
            memcpy(d, in + off, sz);
            off += sz;
        }
        if (npurt_run(&b->inst)) {
            fprintf(stderr, "%s: run: %s (epoch %d)\n", b->name, b->inst.err.what, b->inst.err.epoch);
            return -1;
        }
        for (uint32_t i = 0; i < npurt_model_n_outputs(&b->m); i++) {
            uint32_t sz;
            const void *d = npurt_output(&b->inst, i, &sz);
            memcpy(out + *n_out, d, sz);
            *n_out += sz;
        }
    } else {
        for (uint32_t i = 0; i < npuc_input_count(b->am); i++) {
            npuc_tensor_info ti;
            npuc_input_info(b->am, i, &ti);
            if (npuc_set_input(b->am, i, in + off, ti.size)) return -1;
            off += ti.size;
        }
        if (npuc_run(b->am, NULL)) {
            fprintf(stderr, "%s: run: %s\n", b->name, npuc_last_error());
            return -1;
        }
        for (uint32_t i = 0; i < npuc_output_count(b->am); i++) {
            size_t sz;
            const void *d = npuc_output(b->am, i, &sz);
            memcpy(out + *n_out, d, sz);
            *n_out += sz;
        }
    }
    return 0;
}

static void backend_close(backend *b)
{
    if (b->ip) interp_free(b->ip);
    if (b->g) graph_free(b->g);
    if (b->kind == 1 && b->inst.model) npurt_host_unmap(&b->inst);
    free(b->blob);
    free(b->act);
    free(b->state);
    free(b->fast);
    if (b->am) npuc_model_close(&b->am);
}

/* The model g as a TFLite file, read back and imported. */
static graph *roundtrip(const graph *g, uint8_t **file, size_t *n)
{
    npuc_err err = {0};
    tfl_model *m = NULL, *m2 = NULL;
    graph *h = NULL;
    CHECK_EQ_INT(graph_export(g, &m, &err), 0);
    if (!m) return NULL;
    CHECK_EQ_INT(m->n_subgraphs, graph_model_of(g) ? graph_model_of(g)->n_subgraphs : 1);
    CHECK_EQ_INT(tfl_write(m, file, n, &err), 0);
    tfl_model_free(m);
    CHECK_EQ_INT(tfl_read(*file, *n, &m2, &err), 0);
    if (m2 && graph_import(m2, &h, &err)) fprintf(stderr, "import: %s\n", err.msg);
    CHECK(h != NULL);
    tfl_model_free(m2);
    return h;
}

#define N_BACKENDS 6

/* Runs steps[0..n) (inputs of in_size bytes, RESET) on every backend;
 * expect (NULL: no hand-worked values) holds out_size bytes per step. */
static void run_all(const graph *g, const uint8_t *const *steps, int n, size_t out_size, const uint8_t *expect,
                    const char *what)
{
    backend b[N_BACKENDS];
    memset(b, 0, sizeof b);
    npuc_err err = {0};
    uint8_t *file = NULL;
    size_t file_n = 0;
    b[0] = (backend){.name = "interp", .kind = 0};
    CHECK_EQ_INT(interp_create(g, NULL, &b[0].ip, &err), 0);
    b[1] = (backend){.name = "interp (file)", .kind = 0};
    b[1].g = roundtrip(g, &file, &file_n);
    if (b[1].g) CHECK_EQ_INT(interp_create(b[1].g, NULL, &b[1].ip, &err), 0);
    b[2] = (backend){.name = "runtime", .kind = 1};
    int rc = rt_open(&b[2], g, &err);
    if (rc) fprintf(stderr, "%s: runtime: %s\n", what, err.msg);
    CHECK_EQ_INT(rc, 0);
    npuc_compiled *c = NULL;
    npuc_compile_options co;
    memset(&co, 0, sizeof co);
    co.formats = NPUC_FORMAT_TFLITE | NPUC_FORMAT_NPRT | NPUC_FORMAT_RELOC;
    rc = npuc_compile_memory(file, file_n, &co, &c);
    if (rc) fprintf(stderr, "%s: compile: %s\n", what, npuc_last_error());
    CHECK_EQ_INT(rc, NPUC_STATUS_OK);
    for (size_t i = 0; c && i < npuc_compiled_file_count(c); i++) {
        npuc_output_file f;
        npuc_compiled_file(c, i, &f);
        const size_t nl = strlen(f.name);
        int k = f.format == NPUC_FORMAT_NPRT     ? 3
                : f.format == NPUC_FORMAT_TFLITE ? 4
                : f.format == NPUC_FORMAT_RELOC && nl > 8 && !strcmp(f.name + nl - 8, "_rel.bin") ? 5
                                                 : -1;
        if (k < 0) continue;
        static const char *names[] = {"", "", "", "api .nprt", "api _npu.tflite", "api _rel.bin (loadable)"};
        b[k] = (backend){.name = names[k], .kind = 2, .file = f.data, .file_size = f.size};
        rc = api_open(&b[k]);
        if (rc) fprintf(stderr, "%s: %s: %s\n", what, b[k].name, npuc_last_error());
        CHECK_EQ_INT(rc, 0);
    }
    uint8_t out[N_BACKENDS][256];
    for (int s = 0; s < n; s++) {
        for (int k = 0; k < N_BACKENDS; k++) {
            size_t got = 0;
            if ((k == 0 || k == 1) ? !b[k].ip : k == 2 ? !b[k].inst.model : !b[k].am) continue;
            CHECK_EQ_INT(step(&b[k], steps[s], out[k], &got), 0);
            if (!steps[s]) continue;
            CHECK_EQ_INT(got, out_size);
            if (expect && memcmp(out[k], expect + (size_t)s * out_size, out_size)) {
                t_failures++;
                fprintf(stderr, "%s: step %d: %s differs from the hand-worked values:", what, s, b[k].name);
                for (size_t i = 0; i < out_size; i++) fprintf(stderr, " %d", (int8_t)out[k][i]);
                fprintf(stderr, "\n");
            }
            if (k > 0 && memcmp(out[k], out[0], out_size)) {
                t_failures++;
                fprintf(stderr, "%s: step %d: %s differs from the interpreter\n", what, s, b[k].name);
            }
        }
    }
    for (int k = 0; k < N_BACKENDS; k++) backend_close(&b[k]);
    npuc_compiled_free(&c);
    free(file);
}

static void le32(uint8_t *p, int32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

static void test_counter(void)
{
    graph *g = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(genmodel_build_control(GENMODEL_COUNTER, 0, &g, &err), 0);
    if (!g) return;
    static const uint8_t x[4] = {1, 2, 3, 4};
    const uint8_t *steps[6] = {x, x, x, x, RESET, x};
    /* init [10, -20, 120, 0] + k * [1, 2, 3, 4], saturating at 127; count k */
    static const int8_t sums[5][4] = {{11, -18, 123, 4}, {12, -16, 126, 8}, {13, -14, 127, 12}, {14, -12, 127, 16},
                                      {0}};
    uint8_t expect[6 * 8];
    memset(expect, 0, sizeof expect);
    for (int s = 0, k = 0; s < 6; s++) {
        if (!steps[s]) {
            k = 0;
            continue;
        }
        memcpy(expect + 8 * s, sums[k], 4);
        le32(expect + 8 * s + 4, k + 1);
        k++;
    }
    run_all(g, steps, 6, 8, expect, "counter");
    graph_free(g);
}

static void test_if(void)
{
    graph *g = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(genmodel_build_control(GENMODEL_IF, 0, &g, &err), 0);
    if (!g) return;
    static const int8_t x[8] = {-128, -6, -1, 0, 1, 50, 122, 127};
    uint8_t t[9], f[9];
    t[0] = 1;
    f[0] = 0;
    memcpy(t + 1, x, 8);
    memcpy(f + 1, x, 8);
    const uint8_t *steps[3] = {t, f, t};
    static const int8_t then_y[8] = {0, 0, 4, 5, 6, 55, 127, 127}, else_y[8] = {-128, -9, -4, -3, -2, 47, 119, 124};
    uint8_t expect[24];
    memcpy(expect, then_y, 8);
    memcpy(expect + 8, else_y, 8);
    memcpy(expect + 16, then_y, 8);
    run_all(g, steps, 3, 8, expect, "if");
    graph_free(g);
}

static void test_while(void)
{
    graph *g = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(genmodel_build_control(GENMODEL_WHILE, 0, &g, &err), 0);
    if (!g) return;
    uint8_t s0[8], s1[8], s2[8];
    le32(s0, 3);
    memcpy(s0 + 4, (int8_t[]){1, -2, 3, 50}, 4);
    le32(s1, 0);
    memcpy(s1 + 4, (int8_t[]){1, -2, 3, 50}, 4);
    le32(s2, 7);
    memcpy(s2 + 4, (int8_t[]){1, -1, 0, 2}, 4);
    const uint8_t *steps[3] = {s0, s1, s2};
    uint8_t expect[24];
    memcpy(expect, (int8_t[]){8, -16, 24, 127}, 4);
    le32(expect + 4, 3);
    memcpy(expect + 8, (int8_t[]){1, -2, 3, 50}, 4);
    le32(expect + 12, 0);
    memcpy(expect + 16, (int8_t[]){127, -128, 0, 127}, 4);
    le32(expect + 20, 7);
    run_all(g, steps, 3, 8, expect, "while");
    graph_free(g);
}

/* ---- nesting: control ops inside subgraphs, variables inside branches ---- */

static int32_t nt8(graph *g, const char *name, int32_t n, const void *data)
{
    const int32_t shape[2] = {1, n};
    int32_t t = graph_add_tensor(g, name, GRAPH_I8, 2, shape, data);
    const float sc = 1.0f;
    const int64_t zp = 0;
    graph_set_quant(g, t, 1, &sc, &zp, 0);
    return t;
}

static int32_t nt32(graph *g, const char *name, const int32_t *data)
{
    const int32_t one[1] = {1};
    return graph_add_tensor(g, name, GRAPH_I32, 1, one, data);
}

static int32_t handle(graph *g, const char *name)
{
    tfl_options o;
    tfl_options_default(&o);
    o.shared_name = npuc_arena_strdup(&g->arena, name);
    const int32_t one[1] = {1};
    int32_t r = graph_add_tensor(g, "h", GRAPH_RESOURCE, 0, one, NULL);
    graph_add_op(g, TFL_OP_VAR_HANDLE, &o, 0, NULL, 1, &r);
    return r;
}

/* 0: CALL_ONCE(5); y = IF(cond, x): 1 then: WHILE(i = 0, n = 2, x) with 3
 * cond (i < n), 4 body (i + 1, n, x + x), y = x * 4 saturated; 2 else:
 * acc += x, y = acc. 5: acc = [100, -100, 7, 0]. */
static graph *nested_model(void)
{
    graph *s[6];
    for (int i = 0; i < 6; i++) s[i] = graph_new(i ? "sub" : "nested");
    tfl_options o;
    tfl_options_default(&o);
    const int32_t zero = 0, one = 1, two = 2;
    /* 5: init */
    int32_t r5 = handle(s[5], "acc"), c5 = nt8(s[5], "init", 4, (int8_t[]){100, -100, 7, 0});
    graph_add_op(s[5], TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r5, c5}, 0, NULL);
    graph_set_io(s[5], 0, (int32_t[]){0}, 0, (int32_t[]){0});
    /* 3: cond */
    int32_t i3 = nt32(s[3], "i", NULL), n3 = nt32(s[3], "n", NULL), x3 = nt8(s[3], "x", 4, NULL);
    const int32_t one_shape[1] = {1};
    int32_t b3 = graph_add_tensor(s[3], "go", GRAPH_BOOL, 1, one_shape, NULL);
    graph_add_op(s[3], TFL_OP_LESS, &o, 2, (int32_t[]){i3, n3}, 1, &b3);
    graph_set_io(s[3], 3, (int32_t[]){i3, n3, x3}, 1, &b3);
    /* 4: body */
    int32_t i4 = nt32(s[4], "i", NULL), n4 = nt32(s[4], "n", NULL), x4 = nt8(s[4], "x", 4, NULL);
    int32_t k4 = nt32(s[4], "one", &one), i4b = nt32(s[4], "i2", NULL), x4b = nt8(s[4], "x2", 4, NULL);
    graph_add_op(s[4], TFL_OP_ADD, &o, 2, (int32_t[]){i4, k4}, 1, &i4b);
    graph_add_op(s[4], TFL_OP_ADD, &o, 2, (int32_t[]){x4, x4}, 1, &x4b);
    graph_set_io(s[4], 3, (int32_t[]){i4, n4, x4}, 3, (int32_t[]){i4b, n4, x4b});
    /* 1: then */
    int32_t x1 = nt8(s[1], "x", 4, NULL), i1 = nt32(s[1], "i0", &zero), n1 = nt32(s[1], "n", &two);
    int32_t io1 = nt32(s[1], "i_out", NULL), no1 = nt32(s[1], "n_out", NULL), y1 = nt8(s[1], "y", 4, NULL);
    tfl_options w = o;
    w.cond_subgraph = 3;
    w.body_subgraph = 4;
    graph_add_op(s[1], TFL_OP_WHILE, &w, 3, (int32_t[]){i1, n1, x1}, 3, (int32_t[]){io1, no1, y1});
    graph_set_io(s[1], 1, &x1, 1, &y1);
    /* 2: else */
    int32_t x2 = nt8(s[2], "x", 4, NULL), r2 = handle(s[2], "acc");
    int32_t p2 = nt8(s[2], "prev", 4, NULL), y2 = nt8(s[2], "y", 4, NULL);
    graph_add_op(s[2], TFL_OP_READ_VARIABLE, &o, 1, &r2, 1, &p2);
    graph_add_op(s[2], TFL_OP_ADD, &o, 2, (int32_t[]){p2, x2}, 1, &y2);
    graph_add_op(s[2], TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r2, y2}, 0, NULL);
    graph_set_io(s[2], 1, &x2, 1, &y2);
    /* 0 */
    int32_t cond = graph_add_tensor(s[0], "cond", GRAPH_BOOL, 1, one_shape, NULL), x0 = nt8(s[0], "x", 4, NULL);
    int32_t y0 = nt8(s[0], "y", 4, NULL);
    tfl_options co = o;
    co.init_subgraph = 5;
    graph_add_op(s[0], TFL_OP_CALL_ONCE, &co, 0, NULL, 0, NULL);
    tfl_options io = o;
    io.then_subgraph = 1;
    io.else_subgraph = 2;
    graph_add_op(s[0], TFL_OP_IF, &io, 2, (int32_t[]){cond, x0}, 1, &y0);
    graph_set_io(s[0], 2, (int32_t[]){cond, x0}, 1, &y0);
    npuc_err err = {0};
    if (graph_model_attach(s, 6, &err)) {
        fprintf(stderr, "nested: %s\n", err.msg);
        graph_free(s[0]);
        return NULL;
    }
    return s[0];
}

static void test_nested(void)
{
    graph *g = nested_model();
    CHECK(g != NULL);
    if (!g) return;
    uint8_t t[5] = {1, 1, (uint8_t)-3, 40, 0}, f[5] = {0, 10, 20, (uint8_t)-1, 127};
    const uint8_t *steps[6] = {t, f, f, RESET, f, t};
    static const int8_t expect[6][4] = {
        {4, -12, 127, 0},       /* then: x * 4 */
        {110, -80, 6, 127},     /* else: acc = init + x */
        {120, -60, 5, 127},     /* else: acc + x */
        {0},                    /* reset */
        {110, -80, 6, 127},     /* CALL_ONCE again: init + x */
        {4, -12, 127, 0},
    };
    run_all(g, steps, 6, 4, (const uint8_t *)expect, "nested");
    graph_free(g);
}

/* NPRT 1.2: the variable area is checked at load; a 1.1 blob (no area)
 * still loads. */
static void test_container(void)
{
    graph *g = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(genmodel_build_control(GENMODEL_COUNTER, 0, &g, &err), 0);
    backend b;
    memset(&b, 0, sizeof b);
    b.kind = 1;
    CHECK_EQ_INT(rt_open(&b, g, &err), 0);
    if (!b.blob) {
        graph_free(g);
        return;
    }
    const npurt_header *h = b.m.h;
    CHECK_EQ_INT(h->version_minor, 3);
    CHECK(h->vars_size >= 16 && h->vars_off % 8 == 0);
    /* the CALL_ONCE is folded: no epoch, the area starts as it left it
     * (acc = [10, -20, 120, 0], initialised; count untouched) */
    CHECK(h->flags & NPURT_F_VARS_INIT);
    for (uint32_t i = 0; i < h->n_epochs; i++)
        CHECK(b.m.epochs[i].kind == NPURT_EPOCH_HW || b.m.epochs[i].kernel != K_OP_CALL_ONCE);
    const graph_model *gm = graph_model_of(g);
    const uint8_t *init = b.blob + b.m.pools[b.m.pool_of_kind[NPURT_POOL_PARAMS]].data_off + h->vars_init_off;
    uint8_t *area = b.state + h->vars_off;
    for (int32_t r = 0; gm && r < gm->n_res; r++) {
        const graph_resource *x = &gm->res[r];
        uint32_t word0;
        memcpy(&word0, init + x->area_off, 4);
        const bool acc = !strcmp(x->shared_name, "acc");
        CHECK_EQ_INT(word0, acc ? 1 : 0);
        if (acc) CHECK(!memcmp(init + x->area_off + 8, (int8_t[]){10, -20, 120, 0}, 4));
    }
    CHECK(!memcmp(area, init, h->vars_size)); /* after init */
    memset(area, 0x5A, h->vars_size);
    npurt_reset_state(&b.inst);
    CHECK(!memcmp(area, init, h->vars_size)); /* after a reset */
    const size_t n = h->size;
    uint8_t *copy = alloc16(n);
    npurt_model m2;
    npurt_error e;
    /* the area outside the state pool */
    memcpy(copy, b.blob, n);
    ((npurt_header *)(void *)copy)->vars_off = npurt_model_pool_size(&b.m, NPURT_POOL_STATE);
    ((npurt_header *)(void *)copy)->crc32 = npurt_format_crc32(copy + 16, (uint32_t)n - 16);
    CHECK_EQ_INT(npurt_model_load(&m2, copy, n, &e), NPURT_E_FORMAT);
    CHECK_EQ_INT(e.offset, 80);
    /* the initial values outside the params pool, or not 16-aligned */
    const uint32_t pn = npurt_model_pool_size(&b.m, NPURT_POOL_PARAMS);
    const uint32_t bad_init[2] = {pn - 16, h->vars_init_off + 8};
    for (int k = 0; k < 2; k++) {
        memcpy(copy, b.blob, n);
        ((npurt_header *)(void *)copy)->vars_init_off = bad_init[k];
        ((npurt_header *)(void *)copy)->crc32 = npurt_format_crc32(copy + 16, (uint32_t)n - 16);
        CHECK_EQ_INT(npurt_model_load(&m2, copy, n, &e), NPURT_E_FORMAT);
        CHECK_EQ_INT(e.offset, 88);
    }
    /* a header flag this reader does not know */
    memcpy(copy, b.blob, n);
    ((npurt_header *)(void *)copy)->flags |= 0x80;
    ((npurt_header *)(void *)copy)->crc32 = npurt_format_crc32(copy + 16, (uint32_t)n - 16);
    CHECK_EQ_INT(npurt_model_load(&m2, copy, n, &e), NPURT_E_FORMAT);
    CHECK_EQ_INT(e.offset, 24);
    /* a model without variables written as 1.1 (vars fields 0) loads */
    graph *w = NULL;
    backend c;
    memset(&c, 0, sizeof c);
    c.kind = 1;
    CHECK_EQ_INT(genmodel_build_control(GENMODEL_WHILE, 0, &w, &err), 0);
    CHECK_EQ_INT(rt_open(&c, w, &err), 0);
    if (c.blob) {
        const size_t cn = c.m.h->size;
        uint8_t *old = alloc16(cn);
        memcpy(old, c.blob, cn);
        npurt_header *oh = (npurt_header *)(void *)old;
        CHECK_EQ_INT(oh->vars_size, 0);
        oh->version_minor = 1;
        oh->crc32 = npurt_format_crc32(old + 16, (uint32_t)cn - 16);
        CHECK_EQ_INT(npurt_model_load(&m2, old, cn, &e), NPURT_OK);
        free(old);
    }
    backend_close(&c);
    graph_free(w);
    free(copy);
    backend_close(&b);
    graph_free(g);
}

/* ---- CALL_ONCE folding ---- */

/* y = acc + x, acc = y, with acc set by a CALL_ONCE that the compiler must
 * keep. variant 0: the initialiser reads acc before assigning it (acc =
 * acc + k: acc starts at its fill value, TFLite Micro's default);
 * variant 1: subgraph 0 reads acc before the CALL_ONCE runs (the first
 * invocation reads the fill value, then the CALL_ONCE assigns k and the
 * ASSIGN overwrites it); variant 2: as variant 1 with the CALL_ONCE first
 * (foldable; the init also reads back what it assigned). */
static graph *once_model(int variant)
{
    graph *s[2] = {graph_new("once"), graph_new("init")};
    tfl_options o;
    tfl_options_default(&o);
    int32_t r1 = handle(s[1], "acc"), k1 = nt8(s[1], "k", 4, (int8_t[]){3, -4, 5, 6}), v1 = k1;
    if (variant == 0) {
        int32_t p1 = nt8(s[1], "prev", 4, NULL);
        v1 = nt8(s[1], "v", 4, NULL);
        graph_add_op(s[1], TFL_OP_READ_VARIABLE, &o, 1, &r1, 1, &p1);
        graph_add_op(s[1], TFL_OP_ADD, &o, 2, (int32_t[]){p1, k1}, 1, &v1);
    }
    graph_add_op(s[1], TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r1, v1}, 0, NULL);
    if (variant == 2) {
        int32_t back = nt8(s[1], "back", 4, NULL), twice = nt8(s[1], "twice", 4, NULL);
        graph_add_op(s[1], TFL_OP_READ_VARIABLE, &o, 1, &r1, 1, &back);
        graph_add_op(s[1], TFL_OP_ADD, &o, 2, (int32_t[]){back, k1}, 1, &twice);
        graph_add_op(s[1], TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r1, twice}, 0, NULL);
    }
    graph_set_io(s[1], 0, (int32_t[]){0}, 0, (int32_t[]){0});
    int32_t x0 = nt8(s[0], "x", 4, NULL), p0 = nt8(s[0], "prev", 4, NULL), y0 = nt8(s[0], "y", 4, NULL);
    tfl_options co = o;
    co.init_subgraph = 1;
    if (variant != 1) graph_add_op(s[0], TFL_OP_CALL_ONCE, &co, 0, NULL, 0, NULL);
    int32_t r0 = handle(s[0], "acc");
    graph_add_op(s[0], TFL_OP_READ_VARIABLE, &o, 1, &r0, 1, &p0);
    if (variant == 1) graph_add_op(s[0], TFL_OP_CALL_ONCE, &co, 0, NULL, 0, NULL);
    graph_add_op(s[0], TFL_OP_ADD, &o, 2, (int32_t[]){p0, x0}, 1, &y0);
    graph_add_op(s[0], TFL_OP_ASSIGN_VARIABLE, &o, 2, (int32_t[]){r0, y0}, 0, NULL);
    graph_set_io(s[0], 1, &x0, 1, &y0);
    npuc_err err = {0};
    if (graph_model_attach(s, 2, &err)) {
        fprintf(stderr, "once: %s\n", err.msg);
        graph_free(s[0]);
        graph_free(s[1]);
        return NULL;
    }
    return s[0];
}

static tfl_operator *find_op(tfl_model *m, int32_t sg, int32_t code);

/* Compiles g through the API: folded or not in the .nprt (its CPU epochs,
 * its header flag), always kept in the _npu.tflite, and the reports say
 * so (texts the JSON report and the summary hold). */
static void check_fold(const graph *g, bool folded, const char *needle, const char *summary, const char *what)
{
    npuc_err err = {0};
    tfl_model *tm = NULL;
    uint8_t *file = NULL;
    size_t n = 0;
    CHECK_EQ_INT(graph_export(g, &tm, &err), 0);
    if (tm) CHECK_EQ_INT(tfl_write(tm, &file, &n, &err), 0);
    tfl_model_free(tm);
    npuc_compiled *c = NULL;
    npuc_compile_options co;
    memset(&co, 0, sizeof co);
    co.formats = NPUC_FORMAT_TFLITE | NPUC_FORMAT_NPRT | NPUC_FORMAT_RELOC;
    CHECK_EQ_INT(npuc_compile_memory(file, n, &co, &c), NPUC_STATUS_OK);
    int seen = 0;
    for (size_t i = 0; c && i < npuc_compiled_file_count(c); i++) {
        npuc_output_file f;
        npuc_compiled_file(c, i, &f);
        if (f.format == NPUC_FORMAT_NPRT) {
            uint8_t *blob = alloc16(f.size);
            memcpy(blob, f.data, f.size);
            npurt_model m;
            npurt_error e;
            CHECK_EQ_INT(npurt_model_load(&m, blob, f.size, &e), NPURT_OK);
            int once = 0;
            for (uint32_t k = 0; k < m.h->n_epochs; k++)
                once += m.epochs[k].kind != NPURT_EPOCH_HW && m.epochs[k].kernel == K_OP_CALL_ONCE;
            if (once != (folded ? 0 : 1) || !(m.h->flags & NPURT_F_VARS_INIT) != !folded) {
                t_failures++;
                fprintf(stderr, "%s: .nprt has %d CALL_ONCE epochs, flags 0x%x\n", what, once, (unsigned)m.h->flags);
            }
            free(blob);
            seen |= 1;
        } else if (f.format == NPUC_FORMAT_RELOC && strstr(f.name, "_rel.bin")) {
            /* a runtime that skips the initial values (1.0) refuses it */
            npurl_header rh;
            memcpy(&rh, f.data, sizeof rh);
            CHECK_EQ_INT(rh.runtime_minor, folded ? 1 : 0);
            seen |= 8;
        } else if (f.format == NPUC_FORMAT_TFLITE) {
            tfl_model *t = NULL;
            CHECK_EQ_INT(tfl_read(f.data, f.size, &t, &err), 0);
            if (t) CHECK(find_op(t, 0, TFL_OP_CALL_ONCE) != NULL);
            tfl_model_free(t);
            seen |= 2;
        } else if (f.format == NPUC_FORMAT_REPORT && strstr(f.name, "_report.json")) {
            char *text = malloc(f.size + 1);
            memcpy(text, f.data, f.size);
            text[f.size] = 0;
            CHECK_STR_CONTAINS(text, folded ? "\"folded\": true" : "\"folded\": false");
            CHECK_STR_CONTAINS(text, needle);
            free(text);
            seen |= 4;
        }
    }
    CHECK_EQ_INT(seen, 15);
    if (c) CHECK_STR_CONTAINS(npuc_compiled_summary(c), summary);
    npuc_compiled_free(&c);
    free(file);
}

static void test_fold(void)
{
    graph *g = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(genmodel_build_control(GENMODEL_COUNTER, 0, &g, &err), 0);
    if (g) check_fold(g, true, "\"name\": \"acc\"", "folded: op 0 CALL_ONCE (init subgraph 1): 1 variable, 4 bytes", "counter");
    graph_free(g);
    g = nested_model();
    if (g) check_fold(g, true, "\"name\": \"acc\"", "folded: op 0 CALL_ONCE (init subgraph 5): 1 variable, 4 bytes", "nested");
    graph_free(g);
    static const char *const why[3] = {"reads variable 'acc', which it did not assign itself",
                                       "op 1 (READ_VARIABLE) runs before it and uses resource variables", "\"name\": \"acc\""};
    static const int8_t x[4] = {1, 2, -3, 100};
    const uint8_t *steps[6] = {(const uint8_t *)x, (const uint8_t *)x, RESET, (const uint8_t *)x,
                               (const uint8_t *)x, (const uint8_t *)x};
    /* acc after the CALL_ONCE: v0 k (fill 0 + k), v2 2k; v1 0 then x ... */
    static const int8_t expect[3][6][4] = {
        {{4, -2, 2, 106}, {5, 0, -1, 127}, {0}, {4, -2, 2, 106}, {5, 0, -1, 127}, {6, 2, -4, 127}},
        {{1, 2, -3, 100}, {2, 4, -6, 127}, {0}, {1, 2, -3, 100}, {2, 4, -6, 127}, {3, 6, -9, 127}},
        {{7, -6, 7, 112}, {8, -4, 4, 127}, {0}, {7, -6, 7, 112}, {8, -4, 4, 127}, {9, -2, 1, 127}},
    };
    for (int v = 0; v < 3; v++) {
        g = once_model(v);
        CHECK(g != NULL);
        if (!g) continue;
        char what[32];
        snprintf(what, sizeof what, "once variant %d", v);
        check_fold(g, v == 2, why[v], v == 2 ? "folded: op 0 CALL_ONCE (init subgraph 1): 1 variable, 4 bytes" : why[v], what);
        run_all(g, steps, 6, 4, (const uint8_t *)expect[v], what);
        graph_free(g);
    }
}

/* Random constants (seed) and inputs: every backend as the interpreter. */
static void test_random(int n_seeds)
{
    for (int kind = 0; kind < 3; kind++)
        for (int seed = 1; seed <= n_seeds; seed++) {
            graph *g = NULL;
            npuc_err err = {0};
            CHECK_EQ_INT(genmodel_build_control((genmodel_control_kind)kind, (uint64_t)seed, &g, &err), 0);
            if (!g) continue;
            npuc_rng r;
            npuc_rng_seed(&r, (uint64_t)seed * 77 + (uint64_t)kind);
            uint8_t in[8][16];
            const uint8_t *steps[8];
            for (int s = 0; s < 8; s++) {
                for (int i = 0; i < 16; i++) in[s][i] = (uint8_t)npuc_rng_range(&r, 0, 255);
                if (kind == GENMODEL_IF) in[s][0] = (uint8_t)(in[s][0] & 1);
                if (kind == GENMODEL_WHILE) le32(in[s], (int32_t)npuc_rng_range(&r, -2, 9));
                steps[s] = s == 5 ? RESET : in[s];
            }
            char what[64];
            snprintf(what, sizeof what, "random kind %d seed %d", kind, seed);
            run_all(g, steps, 8, kind == GENMODEL_IF ? 8 : 8, NULL, what);
            graph_free(g);
        }
}

/* ---- bad models ---- */

/* Imports file bytes after mutate() changed the model; the error text. */
static void expect_import_error(genmodel_control_kind kind, void (*mutate)(tfl_model *), const char *needle)
{
    graph *g = NULL, *h = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(genmodel_build_control(kind, 0, &g, &err), 0);
    tfl_model *m = NULL, *m2 = NULL;
    CHECK_EQ_INT(graph_export(g, &m, &err), 0);
    mutate(m);
    uint8_t *file = NULL;
    size_t n = 0;
    CHECK_EQ_INT(tfl_write(m, &file, &n, &err), 0);
    CHECK_EQ_INT(tfl_read(file, n, &m2, &err), 0);
    int rc = graph_import(m2, &h, &err);
    CHECK(rc != 0 && h == NULL);
    if (rc) CHECK_STR_CONTAINS(err.msg, needle);
    /* the CLI path: compile refuses it too, with the same message */
    npuc_compiled *c = NULL;
    CHECK(npuc_compile_memory(file, n, NULL, &c) != NPUC_STATUS_OK && !c);
    CHECK_STR_CONTAINS(npuc_last_error(), needle);
    graph_free(h);
    graph_free(g);
    tfl_model_free(m);
    tfl_model_free(m2);
    free(file);
}

static tfl_operator *find_op(tfl_model *m, int32_t sg, int32_t code)
{
    tfl_subgraph *s = &m->subgraphs[sg];
    for (int32_t i = 0; i < s->n_operators; i++)
        if (tfl_opcode_builtin(&m->opcodes[s->operators[i].opcode_index]) == code) return &s->operators[i];
    return NULL;
}

static void bad_then_index(tfl_model *m) { find_op(m, 0, TFL_OP_IF)->options.then_subgraph = 7; }
static void bad_body_index(tfl_model *m) { find_op(m, 0, TFL_OP_WHILE)->options.body_subgraph = -1; }
static void bad_init_index(tfl_model *m) { find_op(m, 0, TFL_OP_CALL_ONCE)->options.init_subgraph = 2; }
static void if_recursion(tfl_model *m) { find_op(m, 0, TFL_OP_IF)->options.else_subgraph = 0; }
/* else branch: one input too many */
static void if_signature(tfl_model *m)
{
    tfl_subgraph *s = &m->subgraphs[2];
    int32_t *in = npuc_arena_calloc(&m->arena, 2, sizeof *in);
    in[0] = s->inputs[0];
    in[1] = s->outputs[0];
    s->inputs = in;
    s->n_inputs = 2;
}
/* then branch outputs int32-sized data: type mismatch */
static void if_type(tfl_model *m) { m->subgraphs[1].tensors[m->subgraphs[1].outputs[0]].type = TFL_INT16; }
/* cond outputs the loop counter instead of the bool */
static void while_cond_not_bool(tfl_model *m) { m->subgraphs[1].outputs[0] = m->subgraphs[1].inputs[0]; }
/* without its last op (the ASSIGN_VARIABLE of "count") nothing assigns "count" */
static void never_assigned(tfl_model *m) { m->subgraphs[0].n_operators--; }

static void test_bad(void)
{
    expect_import_error(GENMODEL_IF, bad_then_index, "op 0 (IF) of subgraph 0: then_subgraph_index 7 is not a subgraph");
    expect_import_error(GENMODEL_WHILE, bad_body_index, "op 0 (WHILE) of subgraph 0: body_subgraph_index -1");
    expect_import_error(GENMODEL_COUNTER, bad_init_index, "op 0 (CALL_ONCE) of subgraph 0: init_subgraph_index 2");
    expect_import_error(GENMODEL_IF, if_recursion, "(recursion)");
    expect_import_error(GENMODEL_IF, if_signature, "op 0 (IF) of subgraph 0: 1 inputs after the condition, but subgraph 2 has 2 inputs");
    expect_import_error(GENMODEL_IF, if_type, "does not match output 0 of subgraph 1");
    expect_import_error(GENMODEL_WHILE, while_cond_not_bool, "the cond subgraph 1 must output one bool first, not int32");
    expect_import_error(GENMODEL_COUNTER, never_assigned,
                        "op 6 (READ_VARIABLE) of subgraph 0: reads resource variable 'count', which no ASSIGN_VARIABLE");
}

/* Kernel-level: a READ of a variable without storage, an id out of range,
 * and a corrupt program are refused, never run out of bounds. */
static void test_kernel_errors(void)
{
    uint8_t blob[64] __attribute__((aligned(8)));
    memset(blob, 0, sizeof blob);
    k_op_var_blob vb = {2, 8};
    memcpy(blob, &vb, sizeof vb);
    k_op_var_entry e[2] = {{0, 4, 0}, {16, 0, 0}};
    memcpy(blob + 8, e, sizeof e);
    CHECK_EQ_INT(k_op_validate(K_OP_READ_VARIABLE, blob, 32), K_OK);
    uint64_t vars[4] = {0};
    int32_t id = 1, outv = 0;
    void *in[1] = {&id}, *out[1] = {&outv};
    uint32_t isz[1] = {4}, osz[1] = {4};
    k_op_io io = {.in = in, .in_size = isz, .n_in = 1, .out = out, .out_size = osz, .n_out = 1, .vars = vars,
                  .vars_size = sizeof vars};
    CHECK_EQ_INT(k_op_run(K_OP_READ_VARIABLE, blob, 32, &io), K_E_INVALID); /* never assigned: no storage */
    id = 2;
    CHECK_EQ_INT(k_op_run(K_OP_READ_VARIABLE, blob, 32, &io), K_E_INVALID); /* no such id */
    id = 0;
    e[0].fill = 0x7f;
    memcpy(blob + 8, e, sizeof e);
    CHECK_EQ_INT(k_op_run(K_OP_READ_VARIABLE, blob, 32, &io), K_OK); /* first read: the fill value */
    CHECK_EQ_INT(outv, 0x7f7f7f7f);
    io.vars = NULL;
    CHECK_EQ_INT(k_op_run(K_OP_READ_VARIABLE, blob, 32, &io), K_E_INVALID);
    k_op_ctl_blob cb = {2, {32, 32}, 0, 0, 8, 0};
    memset(blob, 0, sizeof blob);
    memcpy(blob, &cb, sizeof cb);
    CHECK_EQ_INT(k_op_validate(K_OP_IF, blob, 64), K_OK); /* two empty programs */
    CHECK_EQ_INT(k_op_validate(K_OP_CALL_ONCE, blob, 64), K_E_INVALID); /* one program expected */
    cb.prog_off[1] = 60;
    memcpy(blob, &cb, sizeof cb);
    CHECK_EQ_INT(k_op_validate(K_OP_IF, blob, 64), K_E_INVALID);
}

/* With NPUC_K_OP_CORPUS=dir: the state and control ops of the seed-0
 * models as seeds for fuzz/fuzz_k_op.c (its input layout). */
static void write_seeds(void)
{
    const char *dir = getenv("NPUC_K_OP_CORPUS");
    if (!dir) return;
    for (int kind = 0; kind < 3; kind++) {
        graph *g = NULL;
        interp *ip = NULL;
        npuc_err err = {0};
        if (genmodel_build_control((genmodel_control_kind)kind, 0, &g, &err) || interp_create(g, NULL, &ip, &err)) {
            graph_free(g);
            continue;
        }
        for (int32_t i = 0; i < g->n_ops; i++) {
            const graph_op *op = &g->ops[i];
            uint32_t k, size, scratch;
            const void *params;
            if (!graph_op_uses_model(op->opcode) || op->n_in > 8 || op->n_out > 8 ||
                interp_op_prepared(ip, i, &k, &params, &size, &scratch, NULL) || size > 0xFFFF || scratch >= 0xFFFF)
                continue;
            uint8_t buf[70000];
            size_t n = 0;
            buf[n++] = (uint8_t)k;
            buf[n++] = (uint8_t)(k >> 8);
            buf[n++] = (uint8_t)size;
            buf[n++] = (uint8_t)(size >> 8);
            memcpy(buf + n, params, size);
            n += size;
            buf[n++] = (uint8_t)op->n_in;
            buf[n++] = (uint8_t)op->n_out;
            for (int32_t j = 0; j < op->n_in + op->n_out; j++) {
                const int32_t t = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
                const size_t nb = t < 0 ? 0xFFFF : g->tensors[t].nbytes;
                buf[n++] = (uint8_t)nb;
                buf[n++] = (uint8_t)(nb >> 8);
            }
            buf[n++] = (uint8_t)scratch;
            buf[n++] = (uint8_t)(scratch >> 8);
            memset(buf + n, 0, 16); /* resource id 0, cond false, small values */
            n += 16;
            char path[4096];
            snprintf(path, sizeof path, "%s/control%d-op%02d-%s", dir, kind, i, k_op_name(k));
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(buf, 1, n, f);
                fclose(f);
            }
        }
        interp_free(ip);
        graph_free(g);
    }
}

int main(void)
{
    write_seeds();
    test_counter();
    test_if();
    test_while();
    test_nested();
    test_container();
    test_fold();
    test_bad();
    test_kernel_errors();
    const char *env = getenv("NPUC_CONTROL_SEEDS");
    test_random(env ? atoi(env) : 70);   /* 3 x 70: at least 200 random models of the family */
    free_drivers();
    printf("test_control: %d checks, %d failures\n", t_checks, t_failures);
    return t_failures != 0;
}
