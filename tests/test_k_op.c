/* Prepared ops (k_op): every op of the shared models, of generated models
 * (tools/genmodel, int8 and int16x8) and of hand-built one-op graphs for the
 * kinds genmodel does not draw (float32, SVDF, the shape ops, ...), taken
 * from interp_op_prepared and run with k_op_run on exact-size copies of the
 * op's tensors, must give the interpreter's outputs byte for byte. Then the
 * blob and the tensors are damaged:
 *  - every truncation of the blob: K_E_INVALID;
 *  - every byte of the blob flipped, and set to 0xFF: no crash, no access
 *    outside the buffers (ASan build), one of the defined status codes;
 *  - each tensor the op reads or writes (and the scratch buffer) one byte
 *    too small: K_E_INVALID.
 * Plus the kind table and interp_op_prepared's errors. */
#include "test.h"
#include "../src/interp/interp.h"
#include "../src/kernels/k_op.h"
#include "../tools/genmodel/genmodel.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>

typedef struct ctx {
    const graph *g;
    const char *label;
    bool corrupt;            /* run the damage checks (small ops) */
    uint8_t **snap;          /* per tensor: variable tensors' data before the current op */
    int ops;
} ctx;

static bool seen[K_OP_KIND_END];
static int n_ops_checked, n_ops_damaged, n_models;

/* ---- exact-size copies ------------------------------------------------------- */

typedef struct io_copy {
    int32_t n_in, n_out;
    void **in;
    uint32_t *in_size;
    void **out;
    uint32_t *out_size;
    void *scratch;
    uint32_t scratch_size;
    void *persistent;
    uint32_t persistent_size;
    k_op_io io;
} io_copy;

static void *dup_n(const void *src, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (n && src) memcpy(p, src, n);
    return p;
}

/* Copies the op's tensors (variable inputs from the snapshot) into buffers of
 * exactly their size; outputs filled with a pattern. */
static void io_make(io_copy *c, const ctx *x, const interp *ip, const graph_op *op, uint32_t scratch,
                    uint32_t persistent)
{
    const graph *g = x->g;
    c->n_in = op->n_in;
    c->n_out = op->n_out;
    c->in = calloc((size_t)op->n_in + 1, sizeof(void *));
    c->in_size = calloc((size_t)op->n_in + 1, sizeof(uint32_t));
    c->out = calloc((size_t)op->n_out + 1, sizeof(void *));
    c->out_size = calloc((size_t)op->n_out + 1, sizeof(uint32_t));
    for (int32_t k = 0; k < op->n_in; k++) {
        const int32_t t = op->in[k];
        if (t < 0) continue;
        const graph_tensor *gt = &g->tensors[t];
        const void *src = gt->is_variable ? x->snap[t] : interp_tensor_data(ip, t);
        c->in[k] = dup_n(src, gt->nbytes);
        c->in_size[k] = (uint32_t)gt->nbytes;
    }
    for (int32_t k = 0; k < op->n_out; k++) {
        const int32_t t = op->out[k];
        if (t < 0) continue;
        const size_t n = g->tensors[t].nbytes;
        c->out[k] = malloc(n ? n : 1);
        memset(c->out[k], 0xA5, n ? n : 1);
        c->out_size[k] = (uint32_t)n;
    }
    c->scratch = scratch ? malloc(scratch) : NULL;
    c->scratch_size = scratch;
    c->persistent = persistent ? calloc(1, persistent) : NULL;
    c->persistent_size = persistent;
    c->io = (k_op_io){.in = c->in, .in_size = c->in_size, .n_in = c->n_in, .out = c->out,
                      .out_size = c->out_size, .n_out = c->n_out, .scratch = c->scratch,
                      .scratch_size = c->scratch_size, .persistent = c->persistent,
                      .persistent_size = c->persistent_size};
}

static void io_free(io_copy *c)
{
    for (int32_t k = 0; k < c->n_in; k++) free(c->in[k]);
    for (int32_t k = 0; k < c->n_out; k++) free(c->out[k]);
    free(c->in);
    free(c->in_size);
    free(c->out);
    free(c->out_size);
    free(c->scratch);
    free(c->persistent);
}

static bool status_ok(int rc) { return rc == K_OK || rc == K_E_INVALID || rc == K_E_UNSUPPORTED || rc == K_OP_NOT_READY; }

/* ---- damage ------------------------------------------------------------------------ */

static void damage(const ctx *x, const interp *ip, const graph_op *op, int32_t op_index, uint32_t kind,
                   const uint8_t *blob, uint32_t size, uint32_t scratch, uint32_t persistent)
{
    io_copy c;
    io_make(&c, x, ip, op, scratch, persistent);
    int bad = 0;
    /* Truncated blobs: every length below the full size. */
    for (uint32_t len = 0; len < size; len++) {
        uint8_t *b = dup_n(blob, len);
        const int rc = k_op_run(kind, b, len, &c.io);
        if (rc != K_E_INVALID && bad++ < 3)
            fprintf(stderr, "%s op %d (%s): blob truncated to %u of %u bytes gives %d\n", x->label, op_index,
                    k_op_name(kind), len, size, rc);
        free(b);
    }
    /* Every byte flipped, and set to 0xFF. */
    uint8_t *b = dup_n(blob, size);
    for (uint32_t i = 0; i < size; i++) {
        const uint8_t orig = b[i];
        const uint8_t vals[2] = {(uint8_t)~orig, 0xFF};
        for (int v = 0; v < 2; v++) {
            if (v == 1 && vals[0] == 0xFF) continue;
            if (vals[v] == orig) continue;
            b[i] = vals[v];
            const int rc = k_op_run(kind, b, size, &c.io);
            if (!status_ok(rc) && bad++ < 3)
                fprintf(stderr, "%s op %d (%s): byte %u set to 0x%02x gives %d\n", x->label, op_index,
                        k_op_name(kind), i, vals[v], rc);
        }
        b[i] = orig;
    }
    /* Tensors one byte too small (in a buffer of that size). An input the
     * kind can do without (rc K_OK when absent: bias, shape or axis
     * tensors) may be rejected or ignored; every other one must be
     * rejected. */
    for (int32_t k = 0; k < c.n_in + c.n_out; k++) {
        const bool is_in = k < c.n_in;
        void **slot = is_in ? &c.in[k] : &c.out[k - c.n_in];
        uint32_t *sz = is_in ? &c.in_size[k] : &c.out_size[k - c.n_in];
        if (!*slot || *sz == 0) continue;
        void *keep = *slot;
        const uint32_t keep_size = *sz;
        bool optional = false;
        if (is_in) {
            *slot = NULL;
            *sz = 0;
            optional = k_op_run(kind, b, size, &c.io) == K_OK;
        }
        *slot = dup_n(keep, keep_size - 1);
        *sz = keep_size - 1;
        const int rc = k_op_run(kind, b, size, &c.io);
        if ((optional ? !status_ok(rc) : rc != K_E_INVALID) && bad++ < 3)
            fprintf(stderr, "%s op %d (%s): %s %d one byte short (%u) gives %d\n", x->label, op_index,
                    k_op_name(kind), is_in ? "input" : "output", is_in ? k : k - c.n_in, keep_size - 1, rc);
        free(*slot);
        *slot = keep;
        *sz = keep_size;
    }
    if (c.scratch_size) {
        c.io.scratch_size = c.scratch_size - 1;
        const int rc = k_op_run(kind, b, size, &c.io);
        if (rc != K_E_INVALID && bad++ < 3)
            fprintf(stderr, "%s op %d (%s): scratch one byte short gives %d\n", x->label, op_index,
                    k_op_name(kind), rc);
        c.io.scratch_size = c.scratch_size;
    }
    free(b);
    io_free(&c);
    CHECK_EQ_INT(bad, 0);
    n_ops_damaged++;
}

/* ---- fuzz seeds ---------------------------------------------------------------------------- */

/* With NPUC_K_OP_CORPUS=dir, each op small enough becomes a seed for
 * fuzz/fuzz_k_op.c (see its input layout). */
static void write_seed(const ctx *x, const interp *ip, const graph_op *op, uint32_t kind, const uint8_t *blob,
                       uint32_t size, uint32_t scratch)
{
    static int n_seeds;
    const char *dir = getenv("NPUC_K_OP_CORPUS");
    if (!dir || op->n_in > 8 || op->n_out > 8 || size > 0xFFFF || scratch >= 0xFFFF || n_seeds >= 2000) return;
    const graph *g = x->g;
    uint8_t *buf = malloc(8 + size + 2 * 16 + 2 + 16384);
    size_t n = 0;
    buf[n++] = (uint8_t)kind;
    buf[n++] = (uint8_t)(kind >> 8);
    buf[n++] = (uint8_t)size;
    buf[n++] = (uint8_t)(size >> 8);
    memcpy(buf + n, blob, size);
    n += size;
    buf[n++] = (uint8_t)op->n_in;
    buf[n++] = (uint8_t)op->n_out;
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        const int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        const size_t nb = t < 0 ? 0xFFFF : g->tensors[t].nbytes;
        if (nb > 0xFFFF) {
            free(buf);
            return;
        }
        buf[n++] = (uint8_t)nb;
        buf[n++] = (uint8_t)(nb >> 8);
    }
    buf[n++] = (uint8_t)scratch;
    buf[n++] = (uint8_t)(scratch >> 8);
    size_t room = 16384;
    for (int32_t k = 0; k < op->n_in && room; k++) {
        const int32_t t = op->in[k];
        if (t < 0) continue;
        const size_t nb = g->tensors[t].nbytes < room ? g->tensors[t].nbytes : room;
        memcpy(buf + n, g->tensors[t].is_variable ? x->snap[t] : interp_tensor_data(ip, t), nb);
        n += nb;
        room -= nb;
    }
    char path[4096];
    const int pn = snprintf(path, sizeof path, "%s/op%04d-%s", dir, n_seeds++, k_op_name(kind));
    FILE *f = pn > 0 && (size_t)pn < sizeof path ? fopen(path, "wb") : NULL;
    if (f) {
        fwrite(buf, 1, n, f);
        fclose(f);
    }
    free(buf);
}

/* ---- the per-op check ------------------------------------------------------------------ */

static void op_done(void *user, const interp *ip, int32_t op_index)
{
    ctx *x = user;
    const graph *g = x->g;
    const graph_op *op = &g->ops[op_index];
    uint32_t kind = 0, size = 0, scratch = 0, persistent = 0;
    const void *params = NULL;
    const int prc = interp_op_prepared(ip, op_index, &kind, &params, &size, &scratch, &persistent);
    CHECK_EQ_INT(prc, NPUC_OK);
    if (prc) return;
    CHECK(kind > 0 && kind < K_OP_KIND_END);
    if (kind == 0 || kind >= K_OP_KIND_END) return;
    seen[kind] = true;
    CHECK_EQ_INT(k_op_validate(kind, params, size), K_OK);
    uint8_t *blob = dup_n(params, size);
    io_copy c;
    io_make(&c, x, ip, op, scratch, persistent);
    const int rc = k_op_run(kind, blob, size, &c.io);
    CHECK_EQ_INT(rc, K_OK);
    bool same = rc == K_OK;
    for (int32_t k = 0; same && k < op->n_out; k++) {
        const int32_t t = op->out[k];
        if (t >= 0) same = memcmp(c.out[k], interp_tensor_data(ip, t), g->tensors[t].nbytes) == 0;
    }
    /* State updated in place must match too. */
    for (int32_t k = 0; same && k < op->n_in; k++) {
        const int32_t t = op->in[k];
        if (t >= 0 && g->tensors[t].is_variable)
            same = memcmp(c.in[k], interp_tensor_data(ip, t), g->tensors[t].nbytes) == 0;
    }
    if (!same) {
        fprintf(stderr, "%s op %d (%s, %s): k_op_run differs from the interpreter\n", x->label, op_index,
                graph_op_name(op), k_op_name(kind));
        t_failures++;
    }
    write_seed(x, ip, op, kind, blob, size, scratch);
    io_free(&c);
    n_ops_checked++;
    /* The damage checks run each op a few hundred times: small ops only. */
    size_t out_bytes = 0;
    for (int32_t k = 0; k < op->n_out; k++)
        if (op->out[k] >= 0) out_bytes += g->tensors[op->out[k]].nbytes;
    if (x->corrupt && graph_op_macs(g, op) <= 200000 && out_bytes <= 32768)
        damage(x, ip, op, op_index, kind, blob, size, scratch, persistent);
    free(blob);
    /* Variable tensors as the next op sees them. */
    for (int32_t t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].is_variable) memcpy(x->snap[t], interp_tensor_data(ip, t), g->tensors[t].nbytes);
}

/* The output shape when tensor t is a TRANSPOSE_CONV's output_shape input. */
static const int32_t *tconv_output_shape(const graph *g, int32_t t)
{
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (op->opcode == TFL_OP_TRANSPOSE_CONV && op->n_in > 0 && op->in[0] == t && op->n_out > 0 &&
            g->tensors[t].nbytes == 16 && g->tensors[op->out[0]].rank == 4)
            return g->tensors[op->out[0]].shape;
    }
    return NULL;
}

/* Runs g on the interpreter with random inputs, checking every op. */
/* Runs g on the interpreter with every op checked by op_done. Inputs: the
 * bytes of `given` (all inputs concatenated, as the shared goldens store
 * them) when not NULL, else random from seed. */
static void check_graph_with(const graph *g, uint64_t seed, bool corrupt, const char *label, const uint8_t *given,
                             size_t given_size)
{
    ctx x = {.g = g, .label = label, .corrupt = corrupt};
    interp_options o = {.keep_all = true, .on_op_done = op_done, .user = &x};
    interp *ip = NULL;
    npuc_err e = {0};
    if (interp_create(g, &o, &ip, &e)) {
        fprintf(stderr, "%s: interp_create: %s\n", label, e.msg);
        t_failures++;
        return;
    }
    x.snap = calloc((size_t)g->n_tensors + 1, sizeof(uint8_t *));
    for (int32_t t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].is_variable) x.snap[t] = dup_n(interp_tensor_data(ip, t), g->tensors[t].nbytes);
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        uint8_t *b = malloc(t->nbytes + 1);
        const int32_t *oshape = tconv_output_shape(g, g->inputs[i]);
        if (given) {
            if (given_size < t->nbytes) {
                fprintf(stderr, "%s: the golden input is too short\n", label);
                t_failures++;
                free(b);
                break;
            }
            memcpy(b, given, t->nbytes);
            given += t->nbytes;
            given_size -= t->nbytes;
        } else if (oshape) {
            memcpy(b, oshape, 16); /* a TRANSPOSE_CONV output_shape input */
        } else if (t->dtype == GRAPH_F32) {
            for (size_t k = 0; k < t->nbytes / 4; k++) {
                float f = (float)(int32_t)(npuc_rng_next(&r) % 2001u - 1000u) / 250.0f;
                memcpy(b + 4 * k, &f, 4);
            }
        } else {
            for (size_t k = 0; k < t->nbytes; k++) b[k] = (uint8_t)npuc_rng_next(&r);
        }
        CHECK_EQ_INT(interp_set_input(ip, i, b, t->nbytes, &e), NPUC_OK);
        free(b);
    }
    if (interp_invoke(ip, &e)) {
        fprintf(stderr, "%s: invoke: %s\n", label, e.msg);
        t_failures++;
    }
    for (int32_t t = 0; t < g->n_tensors; t++) free(x.snap[t]);
    free(x.snap);
    interp_free(ip);
    n_models++;
}

/* ---- models -------------------------------------------------------------------------- */

static void check_graph(const graph *g, uint64_t seed, bool corrupt, const char *label)
{
    check_graph_with(g, seed, corrupt, label, NULL, 0);
}

static void check_file(const char *path, bool corrupt)
{
    tfl_model *m = NULL;
    graph *g = NULL;
    npuc_err e = {0};
    if (tfl_read_file(path, &m, &e) || graph_import(m, &g, &e)) {
        fprintf(stderr, "%s: %s\n", path, e.msg);
        t_failures++;
        tfl_model_free(m);
        return;
    }
    check_graph(g, 7, corrupt, path);
    graph_free(g);
    tfl_model_free(m);
}

/* Every single-op model of NPUC_SHARED/models/ops on its seed-1 golden input
 * (random bytes are no valid indices, axes or shapes). */
static void walk_ops(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (de->d_name[0] == '.') continue;
        char sub[4096];
        const int sn = snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        if (sn < 0 || (size_t)sn >= sizeof sub) continue;
        DIR *sp = opendir(sub);
        if (!sp) continue;
        struct dirent *fe;
        while ((fe = readdir(sp))) {
            size_t n = strlen(fe->d_name);
            if (n <= 7 || strcmp(fe->d_name + n - 7, ".tflite") != 0) continue;
            char path[8192], in[8200];
            const int pn = snprintf(path, sizeof path, "%s/%s", sub, fe->d_name);
            if (pn < 0 || (size_t)pn >= sizeof path) continue;
            snprintf(in, sizeof in, "%.*s.s1.in.bin", (int)(strlen(path) - 7), path);
            tfl_model *m = NULL;
            graph *g = NULL;
            npuc_err e = {0};
            uint8_t *bytes = NULL;
            size_t nbytes = 0;
            if (tfl_read_file(path, &m, &e) || graph_import(m, &g, &e)) {
                fprintf(stderr, "%s: %s\n", path, e.msg);
                t_failures++;
            } else if (!interp_op_supported(g, &g->ops[0], NULL, 0)) {
                /* an operator not implemented yet: test_ops_golden says so */
            } else if (npuc_read_file(in, &bytes, &nbytes, &e) && g->n_inputs > 0) {
                fprintf(stderr, "%s: %s\n", in, e.msg);
                t_failures++;
            } else {
                check_graph_with(g, 7, true, path, bytes ? bytes : (const uint8_t *)"", nbytes);
            }
            free(bytes);
            graph_free(g);
            tfl_model_free(m);
        }
        closedir(sp);
    }
    closedir(dp);
}

static void walk(const char *dir, int depth)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (de->d_name[0] == '.') continue;
        char path[4096];
        const int pn = snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (pn < 0 || (size_t)pn >= sizeof path) continue;
        size_t n = strlen(de->d_name);
        if (n > 7 && strcmp(de->d_name + n - 7, ".tflite") == 0) {
            if (strstr(de->d_name, "vela")) continue; /* ethos-u custom ops */
            check_file(path, true);
        } else if (depth < 3) {
            walk(path, depth + 1);
        }
    }
    closedir(dp);
}

/* ---- hand-built one-op graphs ---------------------------------------------------------- */

typedef struct gb {
    graph *g;
} gb;

#define SHAPE(...) (const int32_t[]){__VA_ARGS__}, (int32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))

static int32_t tq(graph *g, graph_dtype dt, const int32_t *shape, int32_t rank, float scale, int64_t zp,
                  const void *data)
{
    char name[16];
    snprintf(name, sizeof name, "t%d", g->n_tensors);
    int32_t t = graph_add_tensor(g, name, dt, rank, shape, data);
    if (scale > 0.0f) graph_set_quant(g, t, 1, &scale, &zp, 0);
    return t;
}

static int32_t tf(graph *g, const int32_t *shape, int32_t rank) { return tq(g, GRAPH_F32, shape, rank, 0, 0, NULL); }

/* A constant of n values of dtype dt from a pattern. */
static int32_t tconst(graph *g, graph_dtype dt, const int32_t *shape, int32_t rank, float scale, uint64_t seed)
{
    size_t n = 1;
    for (int32_t i = 0; i < rank; i++) n *= (size_t)shape[i];
    const size_t es = graph_dtype_size(dt);
    uint8_t *d = calloc(n + 1, es);
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        if (dt == GRAPH_F32) {
            float f = (float)(int32_t)(npuc_rng_next(&r) % 201u - 100u) / 100.0f;
            memcpy(d + 4 * i, &f, 4);
        } else if (dt == GRAPH_I32) {
            int32_t v = (int32_t)(npuc_rng_next(&r) % 2001u) - 1000;
            memcpy(d + 4 * i, &v, 4);
        } else if (dt == GRAPH_I8) {
            d[i] = (uint8_t)(int8_t)((int32_t)(npuc_rng_next(&r) % 255u) - 127);
        } else {
            for (size_t k = 0; k < es; k++) d[i * es + k] = (uint8_t)npuc_rng_next(&r);
        }
    }
    int32_t t = tq(g, dt, shape, rank, scale, 0, d);
    free(d);
    return t;
}

static int32_t tints(graph *g, const int32_t *v, int32_t n, int32_t rank)
{
    const int32_t shape[2] = {rank == 2 ? n / 2 : n, 2};
    return tq(g, GRAPH_I32, rank == 2 ? shape : &n, rank, 0, 0, v);
}

/* One op; the graph's inputs are the op's non-constant inputs. */
static void one_op(graph *g, int32_t opcode, const tfl_options *o, int32_t n_in, const int32_t *in, int32_t n_out,
                   const int32_t *out)
{
    graph_add_op(g, opcode, o, n_in, in, n_out, out);
    int32_t gi[8], ni = 0;
    for (int32_t i = 0; i < n_in && ni < 8; i++)
        if (in[i] >= 0 && !g->tensors[in[i]].data && !g->tensors[in[i]].is_variable) gi[ni++] = in[i];
    graph_set_io(g, ni, gi, n_out, out);
}

static void run_built(graph *g, const char *label)
{
    char l[96];
    snprintf(l, sizeof l, "built %s", label);
    check_graph(g, 11, true, l);
    graph_free(g);
}

static tfl_options opt0(void)
{
    tfl_options o;
    tfl_options_default(&o);
    return o;
}

static void built_float(void)
{
    tfl_options o;
    /* CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED float32 */
    graph *g = graph_new("conv_f32");
    o = opt0();
    o.padding = TFL_PAD_SAME;
    o.stride_h = o.stride_w = 1;
    o.dilation_h = o.dilation_w = 1;
    o.activation = TFL_ACT_RELU;
    int32_t in[4] = {tf(g, SHAPE(1, 5, 5, 3)), tconst(g, GRAPH_F32, SHAPE(4, 3, 3, 3), 0, 1),
                     tconst(g, GRAPH_F32, SHAPE(4), 0, 2)};
    int32_t out = tf(g, SHAPE(1, 5, 5, 4));
    one_op(g, TFL_OP_CONV_2D, &o, 3, in, 1, &out);
    run_built(g, "conv_f32");

    g = graph_new("dwconv_f32");
    o.depth_multiplier = 2;
    o.activation = TFL_ACT_NONE;
    in[0] = tf(g, SHAPE(1, 5, 5, 2));
    in[1] = tconst(g, GRAPH_F32, SHAPE(1, 3, 3, 4), 0, 3);
    in[2] = tconst(g, GRAPH_F32, SHAPE(4), 0, 4);
    out = tf(g, SHAPE(1, 5, 5, 4));
    one_op(g, TFL_OP_DEPTHWISE_CONV_2D, &o, 3, in, 1, &out);
    run_built(g, "dwconv_f32");

    g = graph_new("tconv_f32");
    o = opt0();
    o.padding = TFL_PAD_SAME;
    o.stride_h = o.stride_w = 2;
    const int32_t os[4] = {1, 6, 6, 2};
    in[0] = tq(g, GRAPH_I32, SHAPE(4), 0, 0, os);
    in[1] = tconst(g, GRAPH_F32, SHAPE(2, 3, 3, 3), 0, 5);
    in[2] = tf(g, SHAPE(1, 3, 3, 3));
    in[3] = tconst(g, GRAPH_F32, SHAPE(2), 0, 6);
    out = tf(g, SHAPE(1, 6, 6, 2));
    one_op(g, TFL_OP_TRANSPOSE_CONV, &o, 4, in, 1, &out);
    run_built(g, "tconv_f32");

    g = graph_new("fc_f32");
    o = opt0();
    in[0] = tf(g, SHAPE(2, 6));
    in[1] = tconst(g, GRAPH_F32, SHAPE(3, 6), 0, 7);
    in[2] = -1;
    out = tf(g, SHAPE(2, 3));
    one_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, in, 1, &out);
    run_built(g, "fc_f32");

    /* SVDF float32: state updated in place */
    g = graph_new("svdf_f32");
    o = opt0();
    o.rank = 2;
    o.activation = TFL_ACT_RELU;
    int32_t sv[5] = {tf(g, SHAPE(2, 4)), tconst(g, GRAPH_F32, SHAPE(6, 4), 0, 8),
                     tconst(g, GRAPH_F32, SHAPE(6, 3), 0, 9), tconst(g, GRAPH_F32, SHAPE(3), 0, 10),
                     tf(g, SHAPE(2, 18))};
    g->tensors[sv[4]].is_variable = true;
    out = tf(g, SHAPE(2, 3));
    one_op(g, TFL_OP_SVDF, &o, 5, sv, 1, &out);
    run_built(g, "svdf_f32");

    /* pooling */
    for (int mx = 0; mx < 2; mx++) {
        g = graph_new("pool_f32");
        o = opt0();
        o.padding = TFL_PAD_SAME;
        o.stride_h = o.stride_w = 2;
        o.filter_h = o.filter_w = 3;
        in[0] = tf(g, SHAPE(1, 5, 5, 3));
        out = tf(g, SHAPE(1, 3, 3, 3));
        one_op(g, mx ? TFL_OP_MAX_POOL_2D : TFL_OP_AVERAGE_POOL_2D, &o, 1, in, 1, &out);
        run_built(g, mx ? "maxpool_f32" : "avgpool_f32");
    }

    /* binary ops, float32 and int32, with broadcasting */
    const int32_t bin[5] = {TFL_OP_ADD, TFL_OP_SUB, TFL_OP_MUL, TFL_OP_MINIMUM, TFL_OP_MAXIMUM};
    for (int dt = 0; dt < 2; dt++)
        for (int i = 0; i < 5; i++) {
            g = graph_new("binary");
            o = opt0();
            o.activation = i < 3 && dt == 0 ? TFL_ACT_RELU6 : TFL_ACT_NONE;
            const graph_dtype t = dt ? GRAPH_I32 : GRAPH_F32;
            in[0] = tq(g, t, SHAPE(2, 3, 4), 0, 0, NULL);
            in[1] = tq(g, t, SHAPE(1, 4), 0, 0, NULL);
            out = tq(g, t, SHAPE(2, 3, 4), 0, 0, NULL);
            one_op(g, bin[i], &o, 2, in, 1, &out);
            run_built(g, dt ? "binary_s32" : "binary_f32");
        }

    g = graph_new("mean_f32");
    o = opt0();
    o.keep_dims = true;
    const int32_t ax[2] = {1, 2};
    in[0] = tf(g, SHAPE(1, 4, 5, 3));
    in[1] = tq(g, GRAPH_I32, SHAPE(2), 0, 0, ax);
    out = tf(g, SHAPE(1, 1, 1, 3));
    one_op(g, TFL_OP_MEAN, &o, 2, in, 1, &out);
    run_built(g, "mean_f32");

    /* activations */
    const int32_t acts[] = {TFL_OP_RELU, TFL_OP_RELU6, TFL_OP_RELU_N1_TO_1, TFL_OP_LEAKY_RELU, TFL_OP_HARD_SWISH,
                            TFL_OP_LOGISTIC, TFL_OP_TANH, TFL_OP_SOFTMAX};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
        g = graph_new("act_f32");
        o = opt0();
        o.alpha = 0.25f;
        o.beta = 0.7f;
        in[0] = tf(g, SHAPE(3, 7));
        out = tf(g, SHAPE(3, 7));
        one_op(g, acts[i], &o, 1, in, 1, &out);
        run_built(g, "act_f32");
    }
}

static void built_quant(void)
{
    tfl_options o;
    graph *g;
    int32_t in[4], out;
    /* QUANTIZE float -> int8 / uint8 / int16, DEQUANTIZE back */
    const graph_dtype qt[3] = {GRAPH_I8, GRAPH_U8, GRAPH_I16};
    const int64_t qzp[3] = {3, 128, 0};
    for (int i = 0; i < 3; i++) {
        g = graph_new("quantize");
        o = opt0();
        in[0] = tf(g, SHAPE(2, 9));
        out = tq(g, qt[i], SHAPE(2, 9), 0.03f, qzp[i], NULL);
        one_op(g, TFL_OP_QUANTIZE, &o, 1, in, 1, &out);
        run_built(g, "quantize_f32");
        g = graph_new("dequantize");
        in[0] = tq(g, qt[i], SHAPE(2, 9), 0.03f, qzp[i], NULL);
        out = tf(g, SHAPE(2, 9));
        one_op(g, TFL_OP_DEQUANTIZE, &o, 1, in, 1, &out);
        run_built(g, "dequantize");
    }
    /* integer requantization between types */
    const struct { graph_dtype a, b; int64_t za, zb; } rq[] = {
        {GRAPH_I8, GRAPH_U8, -5, 120},  {GRAPH_U8, GRAPH_I8, 130, 2},   {GRAPH_I8, GRAPH_I16, 1, 0},
        {GRAPH_I8, GRAPH_I32, 4, -7},   {GRAPH_I16, GRAPH_I8, 0, -3},   {GRAPH_I16, GRAPH_I32, 0, 5},
        {GRAPH_I32, GRAPH_I8, 0, 9},    {GRAPH_I32, GRAPH_I16, 0, 0},   {GRAPH_I16, GRAPH_I16, 0, 0},
    };
    for (size_t i = 0; i < sizeof rq / sizeof rq[0]; i++) {
        g = graph_new("requant");
        o = opt0();
        in[0] = tq(g, rq[i].a, SHAPE(13), 0.05f, rq[i].za, NULL);
        out = tq(g, rq[i].b, SHAPE(13), 0.07f, rq[i].zb, NULL);
        one_op(g, TFL_OP_QUANTIZE, &o, 1, in, 1, &out);
        run_built(g, "requant");
    }
    /* SVDF int8 with int16 and int8 state */
    for (int t8 = 0; t8 < 2; t8++) {
        g = graph_new("svdf_s8");
        o = opt0();
        o.rank = 1;
        const graph_dtype st = t8 ? GRAPH_I8 : GRAPH_I16;
        int32_t sv[5] = {tq(g, GRAPH_I8, SHAPE(2, 5), 0.05f, 2, NULL), tconst(g, GRAPH_I8, SHAPE(3, 5), 0.02f, 12),
                         tconst(g, st, SHAPE(3, 4), 0.01f, 13), tconst(g, GRAPH_I32, SHAPE(3), 0.0004f, 14),
                         tq(g, st, SHAPE(2, 12), 0.04f, 0, NULL)};
        g->tensors[sv[4]].is_variable = true;
        out = tq(g, GRAPH_I8, SHAPE(2, 3), 0.1f, -1, NULL);
        one_op(g, TFL_OP_SVDF, &o, 5, sv, 1, &out);
        run_built(g, t8 ? "svdf_s8_t8" : "svdf_s8");
    }
    /* SOFTMAX int8 -> int16 and int16 -> int16; int16 power-of-two ADD/SUB */
    g = graph_new("softmax_s8_s16");
    o = opt0();
    o.beta = 1.0f;
    in[0] = tq(g, GRAPH_I8, SHAPE(2, 10), 0.1f, 0, NULL);
    out = tq(g, GRAPH_I16, SHAPE(2, 10), 1.0f / 65536, -32768, NULL);
    one_op(g, TFL_OP_SOFTMAX, &o, 1, in, 1, &out);
    run_built(g, "softmax_s8_s16");
    g = graph_new("softmax_s16");
    in[0] = tq(g, GRAPH_I16, SHAPE(2, 10), 0.001f, 0, NULL);
    out = tq(g, GRAPH_I16, SHAPE(2, 10), 1.0f / 32768, 0, NULL);
    one_op(g, TFL_OP_SOFTMAX, &o, 1, in, 1, &out);
    run_built(g, "softmax_s16");
    for (int sub = 0; sub < 2; sub++) {
        g = graph_new("pot");
        o = opt0();
        o.pot_scale_int16 = true;
        in[0] = tq(g, GRAPH_I16, SHAPE(3, 4), 1.0f / 1024, 0, NULL);
        in[1] = tq(g, GRAPH_I16, SHAPE(4), 1.0f / 4096, 0, NULL);
        out = tq(g, GRAPH_I16, SHAPE(3, 4), 1.0f / 1024, 0, NULL);
        one_op(g, sub ? TFL_OP_SUB : TFL_OP_ADD, &o, 2, in, 1, &out);
        run_built(g, "add_s16_pot");
    }
    /* TRANSPOSE_CONV int16 with an int16 bias (widened), output_shape an input */
    g = graph_new("tconv_s16_b16");
    o = opt0();
    o.padding = TFL_PAD_VALID;
    o.stride_h = o.stride_w = 2;
    in[0] = tq(g, GRAPH_I32, SHAPE(4), 0, 0, NULL);
    in[1] = tconst(g, GRAPH_I8, SHAPE(3, 2, 2, 2), 0.02f, 19);
    in[2] = tq(g, GRAPH_I16, SHAPE(1, 3, 3, 2), 0.01f, 0, NULL);
    in[3] = tconst(g, GRAPH_I16, SHAPE(3), 0.0002f, 20);
    out = tq(g, GRAPH_I16, SHAPE(1, 6, 6, 3), 0.05f, 0, NULL);
    one_op(g, TFL_OP_TRANSPOSE_CONV, &o, 4, in, 1, &out);
    run_built(g, "tconv_s16_b16");
    /* FULLY_CONNECTED int16 with int32 bias; CONV_2D int16 with int32 bias */
    g = graph_new("fc_s16_b32");
    o = opt0();
    in[0] = tq(g, GRAPH_I16, SHAPE(2, 6), 0.01f, 0, NULL);
    in[1] = tconst(g, GRAPH_I8, SHAPE(3, 6), 0.02f, 15);
    in[2] = tconst(g, GRAPH_I32, SHAPE(3), 0.0002f, 16);
    out = tq(g, GRAPH_I16, SHAPE(2, 3), 0.05f, 0, NULL);
    one_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, in, 1, &out);
    run_built(g, "fc_s16_b32");
    g = graph_new("conv_s16_b32");
    o = opt0();
    o.padding = TFL_PAD_VALID;
    o.stride_h = o.stride_w = 1;
    o.dilation_h = o.dilation_w = 1;
    in[0] = tq(g, GRAPH_I16, SHAPE(1, 4, 4, 2), 0.01f, 0, NULL);
    in[1] = tconst(g, GRAPH_I8, SHAPE(3, 2, 2, 2), 0.02f, 17);
    in[2] = tconst(g, GRAPH_I32, SHAPE(3), 0.0002f, 18);
    out = tq(g, GRAPH_I16, SHAPE(1, 3, 3, 3), 0.05f, 0, NULL);
    one_op(g, TFL_OP_CONV_2D, &o, 3, in, 1, &out);
    run_built(g, "conv_s16_b32");
}

static void built_shape(void)
{
    tfl_options o;
    graph *g;
    int32_t in[4], outs[3], out;
    const graph_dtype dts[3] = {GRAPH_I8, GRAPH_I16, GRAPH_F32};
    for (int w = 0; w < 3; w++) {
        const graph_dtype dt = dts[w];
        const float sc = dt == GRAPH_F32 ? 0.0f : 0.1f;
        /* SQUEEZE, EXPAND_DIMS */
        g = graph_new("squeeze");
        o = opt0();
        in[0] = tq(g, dt, SHAPE(1, 3, 1, 4), sc, 0, NULL);
        out = tq(g, dt, SHAPE(3, 4), sc, 0, NULL);
        one_op(g, TFL_OP_SQUEEZE, &o, 1, in, 1, &out);
        run_built(g, "squeeze");
        g = graph_new("expand_dims");
        const int32_t one = 1;
        in[0] = tq(g, dt, SHAPE(3, 4), sc, 0, NULL);
        in[1] = tq(g, GRAPH_I32, SHAPE(1), 0, 0, &one);
        out = tq(g, dt, SHAPE(3, 1, 4), sc, 0, NULL);
        one_op(g, TFL_OP_EXPAND_DIMS, &o, 2, in, 1, &out);
        run_built(g, "expand_dims");
        /* PACK / UNPACK */
        g = graph_new("pack");
        o = opt0();
        o.axis = 1;
        o.num = 3;
        for (int i = 0; i < 3; i++) in[i] = tq(g, dt, SHAPE(2, 5), sc, 0, NULL);
        out = tq(g, dt, SHAPE(2, 3, 5), sc, 0, NULL);
        one_op(g, TFL_OP_PACK, &o, 3, in, 1, &out);
        run_built(g, "pack");
        g = graph_new("unpack");
        in[0] = tq(g, dt, SHAPE(2, 3, 5), sc, 0, NULL);
        for (int i = 0; i < 3; i++) outs[i] = tq(g, dt, SHAPE(2, 5), sc, 0, NULL);
        one_op(g, TFL_OP_UNPACK, &o, 1, in, 3, outs);
        run_built(g, "unpack");
        /* SPLIT, SPLIT_V */
        g = graph_new("split");
        o = opt0();
        o.num = 2;
        const int32_t axis2 = 2;
        in[0] = tq(g, GRAPH_I32, SHAPE(1), 0, 0, &axis2);
        in[1] = tq(g, dt, SHAPE(2, 3, 6), sc, 0, NULL);
        for (int i = 0; i < 2; i++) outs[i] = tq(g, dt, SHAPE(2, 3, 3), sc, 0, NULL);
        one_op(g, TFL_OP_SPLIT, &o, 2, in, 2, outs);
        run_built(g, "split");
        g = graph_new("split_v");
        o = opt0();
        o.num = 3;
        const int32_t sizes[3] = {1, -1, 2};
        in[0] = tq(g, dt, SHAPE(2, 6, 3), sc, 0, NULL);
        in[1] = tq(g, GRAPH_I32, SHAPE(3), 0, 0, sizes);
        in[2] = tq(g, GRAPH_I32, SHAPE(1), 0, 0, &one);
        outs[0] = tq(g, dt, SHAPE(2, 1, 3), sc, 0, NULL);
        outs[1] = tq(g, dt, SHAPE(2, 3, 3), sc, 0, NULL);
        outs[2] = tq(g, dt, SHAPE(2, 2, 3), sc, 0, NULL);
        one_op(g, TFL_OP_SPLIT_V, &o, 3, in, 3, outs);
        run_built(g, "split_v");
        /* SLICE */
        g = graph_new("slice");
        o = opt0();
        const int32_t beg[3] = {0, 1, 1}, sz[3] = {2, -1, 2};
        in[0] = tq(g, dt, SHAPE(2, 4, 5), sc, 0, NULL);
        in[1] = tq(g, GRAPH_I32, SHAPE(3), 0, 0, beg);
        in[2] = tq(g, GRAPH_I32, SHAPE(3), 0, 0, sz);
        out = tq(g, dt, SHAPE(2, 3, 2), sc, 0, NULL);
        one_op(g, TFL_OP_SLICE, &o, 3, in, 1, &out);
        run_built(g, "slice");
        /* TRANSPOSE */
        g = graph_new("transpose");
        const int32_t perm[4] = {0, 3, 1, 2};
        in[0] = tq(g, dt, SHAPE(2, 3, 4, 5), sc, 0, NULL);
        in[1] = tq(g, GRAPH_I32, SHAPE(4), 0, 0, perm);
        out = tq(g, dt, SHAPE(2, 5, 3, 4), sc, 0, NULL);
        one_op(g, TFL_OP_TRANSPOSE, &o, 2, in, 1, &out);
        run_built(g, "transpose");
        /* PADV2 with a constant value */
        g = graph_new("padv2");
        const int32_t pads[6] = {0, 1, 2, 0, 1, 1};
        const uint8_t val[4] = {7, 0, 0, 0};
        in[0] = tq(g, dt, SHAPE(2, 3, 4), sc, 0, NULL);
        in[1] = tints(g, pads, 6, 2);
        in[2] = tq(g, dt, SHAPE(1), sc, 0, dt == GRAPH_F32 ? (const void *)&(const float){1.5f} : val);
        out = tq(g, dt, SHAPE(3, 5, 6), sc, 0, NULL);
        one_op(g, TFL_OP_PADV2, &o, 3, in, 1, &out);
        run_built(g, "padv2");
        /* RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR (align_corners /
         * half_pixel_centers; 1 -> 87 upsampling, the lower-index clamp) */
        for (int mode = 0; mode < 3; mode++)
            for (int bl = 0; bl < 2; bl++) {
                g = graph_new("resize");
                o = opt0();
                o.align_corners = mode == 1;
                o.half_pixel_centers = mode == 2;
                const int32_t size[2] = {mode == 0 ? 87 : 7, mode == 0 ? 87 : 9};
                in[0] = tq(g, dt, mode == 0 ? (const int32_t[]){1, 1, 1, 2} : (const int32_t[]){1, 4, 5, 2}, 4, sc,
                           0, NULL);
                in[1] = tq(g, GRAPH_I32, SHAPE(2), 0, 0, size);
                const int32_t os[4] = {1, size[0], size[1], 2};
                out = tq(g, dt, os, 4, sc, 0, NULL);
                one_op(g, bl ? TFL_OP_RESIZE_BILINEAR : TFL_OP_RESIZE_NEAREST_NEIGHBOR, &o, 2, in, 1, &out);
                run_built(g, bl ? "resize_bilinear" : "resize_nearest");
            }
    }
    /* CONCATENATION: float32 with a fused activation, int8 and uint8 with
     * differing input quantization (rescaled) */
    g = graph_new("concat_f32");
    o = opt0();
    o.axis = -1;
    o.activation = TFL_ACT_RELU_N1_TO_1;
    in[0] = tf(g, SHAPE(2, 3));
    in[1] = tf(g, SHAPE(2, 5));
    out = tf(g, SHAPE(2, 8));
    one_op(g, TFL_OP_CONCATENATION, &o, 2, in, 1, &out);
    run_built(g, "concat_f32");
    for (int u = 0; u < 2; u++) {
        g = graph_new("concat_requant");
        o = opt0();
        o.axis = 1;
        const graph_dtype dt = u ? GRAPH_U8 : GRAPH_I8;
        in[0] = tq(g, dt, SHAPE(2, 3), 0.1f, u ? 128 : 0, NULL);
        in[1] = tq(g, dt, SHAPE(2, 4), 0.25f, u ? 100 : -9, NULL);
        out = tq(g, dt, SHAPE(2, 7), 0.2f, u ? 120 : 3, NULL);
        one_op(g, TFL_OP_CONCATENATION, &o, 2, in, 1, &out);
        run_built(g, u ? "concat_requant_u8" : "concat_requant_s8");
    }
    /* RESHAPE of int32 data (copy) */
    g = graph_new("reshape");
    o = opt0();
    const int32_t ns[2] = {4, 3};
    in[0] = tq(g, GRAPH_I32, SHAPE(2, 6), 0, 0, NULL);
    in[1] = tq(g, GRAPH_I32, SHAPE(2), 0, 0, ns);
    out = tq(g, GRAPH_I32, SHAPE(4, 3), 0, 0, NULL);
    one_op(g, TFL_OP_RESHAPE, &o, 2, in, 1, &out);
    run_built(g, "reshape");
}

/* ---- the kind table and the API's errors ---------------------------------------------- */

static int custom_eval(void *user, interp *ip, const graph_op *op, npuc_err *err)
{
    (void)user;
    (void)ip;
    (void)op;
    (void)err;
    return NPUC_OK;
}

static void test_api(void)
{
    CHECK(k_op_name(K_OP_NONE) == NULL);
    CHECK(k_op_name(K_OP_KIND_END) == NULL);
    CHECK(k_op_name(0xFFFFFFFFu) == NULL);
    /* 1..108 are all named; above, families own ranges with unused numbers
     * that have no name and never run. Names are unique. */
    for (uint32_t k = 1; k < K_OP_KIND_END; k++) {
        if (k <= K_OP_RESIZE_BILINEAR_F32) CHECK(k_op_name(k) != NULL);
        if (!k_op_name(k)) {
            CHECK(k_op_validate(k, &k, sizeof k) == K_E_INVALID);
            continue;
        }
        for (uint32_t j = 1; j < k; j++) CHECK(!k_op_name(j) || strcmp(k_op_name(j), k_op_name(k)) != 0);
    }
    CHECK(k_op_is_data_movement(K_OP_COPY));
    CHECK(k_op_is_data_movement(K_OP_TRANSPOSE_X8));
    CHECK(!k_op_is_data_movement(K_OP_CONV_S8));
    CHECK(!k_op_is_data_movement(K_OP_KIND_END));
    /* Stable numbers (stored in model files). */
    CHECK_EQ_INT(K_OP_CONV_S8, 1);
    CHECK_EQ_INT(K_OP_COPY, 84);
    CHECK_EQ_INT(K_OP_RESIZE_BILINEAR_F32, 108);

    const k_op_copy_blob cb = {.nbytes = 4};
    uint8_t a[4] = {1, 2, 3, 4}, b[4] = {0};
    void *ins[1] = {a}, *outs[1] = {b};
    const uint32_t sz[1] = {4};
    k_op_io io = {.in = ins, .in_size = sz, .n_in = 1, .out = outs, .out_size = sz, .n_out = 1};
    CHECK_EQ_INT(k_op_run(K_OP_COPY, &cb, sizeof cb, &io), K_OK);
    CHECK(memcmp(a, b, 4) == 0);
    CHECK_EQ_INT(k_op_run(K_OP_NONE, &cb, sizeof cb, &io), K_E_INVALID);
    CHECK_EQ_INT(k_op_run(K_OP_KIND_END, &cb, sizeof cb, &io), K_E_INVALID);
    CHECK_EQ_INT(k_op_run(K_OP_COPY, NULL, sizeof cb, &io), K_E_INVALID);
    CHECK_EQ_INT(k_op_run(K_OP_COPY, &cb, sizeof cb, NULL), K_E_INVALID);
    CHECK_EQ_INT(k_op_run(K_OP_COPY, (const uint8_t *)&cb + 1, sizeof cb - 1, &io), K_E_INVALID);
    io.n_in = 0;
    CHECK_EQ_INT(k_op_run(K_OP_COPY, &cb, sizeof cb, &io), K_E_INVALID);
    io.n_in = -1;
    CHECK_EQ_INT(k_op_run(K_OP_COPY, &cb, sizeof cb, &io), K_E_INVALID);
    CHECK_EQ_INT(k_op_validate(K_OP_COPY, &cb, sizeof cb), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_CONV_S8, &cb, sizeof cb), K_E_INVALID);
    /* Misaligned tensor data for a 4-byte kind. */
    k_op_transpose_blob tb = {.p = {.rank = 1, .in_dims = {1}, .perm = {0}}};
    uint32_t words[3] = {5, 6, 7};
    void *tin[1] = {(uint8_t *)words + 1}, *tout[1] = {&words[2]};
    io = (k_op_io){.in = tin, .in_size = sz, .n_in = 1, .out = tout, .out_size = sz, .n_out = 1};
    CHECK_EQ_INT(k_op_run(K_OP_TRANSPOSE_X32, &tb, sizeof tb, &io), K_E_INVALID);
    tin[0] = &words[0];
    CHECK_EQ_INT(k_op_run(K_OP_TRANSPOSE_X32, &tb, sizeof tb, &io), K_OK);
    CHECK_EQ_INT(words[2], 5);

    /* interp_op_prepared: index range, CUSTOM ops. */
    graph *g = graph_new("custom");
    const int32_t s[1] = {4};
    int32_t x = graph_add_tensor(g, "x", GRAPH_F32, 1, s, NULL), y = graph_add_tensor(g, "y", GRAPH_F32, 1, s, NULL),
            z = graph_add_tensor(g, "z", GRAPH_F32, 1, s, NULL);
    tfl_options o = opt0();
    graph_add_op(g, TFL_OP_CUSTOM, &o, 1, &x, 1, &y);
    g->ops[0].custom_code = "test";
    graph_add_op(g, TFL_OP_RELU, &o, 1, &y, 1, &z);
    graph_set_io(g, 1, &x, 1, &z);
    interp_options io_opt = {.custom_eval = custom_eval};
    interp *ip = NULL;
    npuc_err e = {0};
    CHECK_EQ_INT(interp_create(g, &io_opt, &ip, &e), NPUC_OK);
    if (ip) {
        uint32_t kind = 0, psize = 0;
        const void *params = NULL;
        CHECK_EQ_INT(interp_op_prepared(ip, 0, &kind, &params, &psize, NULL, NULL), NPUC_E_UNSUPPORTED);
        CHECK_EQ_INT(interp_op_prepared(ip, 1, &kind, &params, &psize, NULL, NULL), NPUC_OK);
        CHECK_EQ_INT(kind, K_OP_RELU_F32);
        CHECK(params != NULL && psize >= sizeof(k_op_unary_blob));
        CHECK_EQ_INT(interp_op_prepared(ip, 2, &kind, &params, &psize, NULL, NULL), NPUC_E_USAGE);
        CHECK_EQ_INT(interp_op_prepared(ip, -1, &kind, &params, &psize, NULL, NULL), NPUC_E_USAGE);
        interp_free(ip);
    }
    g->ops[0].custom_code = NULL;
    graph_free(g);
}

int main(void)
{
    test_api();
    char buf[1024];
    const char *dir = t_shared("models/README.md", buf, sizeof buf);
    if (dir) {
        char *slash = strrchr(buf, '/');
        *slash = 0;
        char ops[1100];
        snprintf(ops, sizeof ops, "%s/ops", buf);
        /* the zoo's model whose CPU ops only these kinds run: the audio
         * front end's signal library (movenet's int32 FLOOR_DIV and
         * PoseNet's decoder sit behind large networks: test_k_binop.c and
         * test_k_posenet.c check their kinds) */
        static const char *const zoo[1] = {"tflm_audio_preprocessor_int8"};
        for (int i = 0; i < 1; i++) {
            char zp[1200];
            snprintf(zp, sizeof zp, "%s/zoo/%s.tflite", buf, zoo[i]);
            FILE *f = fopen(zp, "rb");
            if (!f) continue;
            fclose(f);
            check_file(zp, true);
        }
        strncat(buf, "/tflm", sizeof buf - strlen(buf) - 1);
        walk(buf, 0);
        walk_ops(ops);
    } else {
        printf("SKIP shared models: NPUC_SHARED/models not found\n");
    }
    for (uint64_t seed = 1; seed <= 120; seed++) {
        genmodel_config cfg;
        genmodel_config_default(&cfg);
        cfg.int16 = (seed % 2) == 0;
        graph *g = NULL;
        npuc_err e = {0};
        if (genmodel_build(seed, &cfg, &g, &e)) {
            fprintf(stderr, "seed %llu: genmodel: %s\n", (unsigned long long)seed, e.msg);
            t_failures++;
            continue;
        }
        char label[64];
        snprintf(label, sizeof label, "genmodel seed %llu", (unsigned long long)seed);
        check_graph(g, seed, true, label);
        graph_free(g);
    }
    built_float();
    built_quant();
    built_shape();
    int covered = 0, named = 0;
    char missing[4096] = "";
    for (uint32_t k = 1; k < K_OP_KIND_END; k++) {
        if (!k_op_name(k)) continue;
        named++;
        if (seen[k]) {
            covered++;
        } else {
            strncat(missing, " ", sizeof missing - strlen(missing) - 1);
            strncat(missing, k_op_name(k), sizeof missing - strlen(missing) - 1);
        }
    }
    printf("%d models, %d ops compared, %d ops damaged; %d of %d kinds covered%s%s\n", n_models, n_ops_checked,
           n_ops_damaged, covered, named, covered < named ? "; not covered:" : "", missing);
    TEST_MAIN_END();
}
