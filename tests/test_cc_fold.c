/* Constant folding (cc_fold.c): chains of ops on constants (ADD, MUL,
 * STRIDED_SLICE, PACK, CONCATENATION on int32 / int8) are evaluated at
 * compile time and leave the deployed model; the op writing a model output
 * stays; results are bit-exact: the source graph on the interpreter against
 * the folded graph on the interpreter and (NPUC_BIN) `npuc validate`, which
 * runs the compiled, folded model on the virtual NPU. --no-fold keeps them;
 * the report lists what was folded. */
#include "test.h"
#include "../src/graph/graph.h"
#include "../src/interp/interp.h"
#include "../src/compiler/cc.h"
#include "test_model.h"
#include "../src/emit/emit.h"

#include <unistd.h>

static void quant(graph *g, int32_t t, float s, int64_t zp) { graph_set_quant(g, t, 1, &s, &zp, 0); }

/* x int8 [1,4,4,4] -> RESHAPE(x, shape) -> y [1,2,4,8]; shape =
 * CONCATENATION(STRIDED_SLICE(a, 0:2), PACK(4, 8)) with a = ADD(c1, c2);
 * z = ADD(x, MUL(k1, k2)); w = MUL(k1, k2') is a model output of constants. */
static graph *build(int32_t *n_foldable)
{
    graph *g = graph_new("fold");
    int32_t s4[4] = {1, 4, 4, 4}, sy[4] = {1, 2, 4, 8}, s1[1] = {4}, s2[1] = {2};
    int32_t x = graph_add_tensor(g, "x", GRAPH_I8, 4, s4, NULL);
    quant(g, x, 0.05f, -3);
    int32_t c1v[4] = {1, 1, 2, 3}, c2v[4] = {0, 1, 2, 5};
    int32_t c1 = graph_add_tensor(g, "c1", GRAPH_I32, 1, s1, c1v);
    int32_t c2 = graph_add_tensor(g, "c2", GRAPH_I32, 1, s1, c2v);
    int32_t a = graph_add_tensor(g, "a", GRAPH_I32, 1, s1, NULL); /* {1,2,4,8} */
    tfl_options o;
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_ADD, &o, 2, (int32_t[]){c1, c2}, 1, &a);
    int32_t bv[1] = {0}, ev[1] = {2}, sv[1] = {1};
    int32_t b = graph_add_tensor(g, "begin", GRAPH_I32, 1, (int32_t[]){1}, bv);
    int32_t e = graph_add_tensor(g, "end", GRAPH_I32, 1, (int32_t[]){1}, ev);
    int32_t st = graph_add_tensor(g, "strides", GRAPH_I32, 1, (int32_t[]){1}, sv);
    int32_t sl = graph_add_tensor(g, "sliced", GRAPH_I32, 1, s2, NULL);
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_STRIDED_SLICE, &o, 4, (int32_t[]){a, b, e, st}, 1, &sl);
    int32_t fv = 4, ev8 = 8;
    int32_t p0 = graph_add_tensor(g, "four", GRAPH_I32, 0, NULL, &fv);
    int32_t p1 = graph_add_tensor(g, "eight", GRAPH_I32, 0, NULL, &ev8);
    int32_t pk = graph_add_tensor(g, "packed", GRAPH_I32, 1, s2, NULL);
    tfl_options_default(&o);
    o.axis = 0;
    o.num = 2;
    graph_add_op(g, TFL_OP_PACK, &o, 2, (int32_t[]){p0, p1}, 1, &pk);
    int32_t sh = graph_add_tensor(g, "shape", GRAPH_I32, 1, s1, NULL);
    tfl_options_default(&o);
    o.axis = 0;
    graph_add_op(g, TFL_OP_CONCATENATION, &o, 2, (int32_t[]){sl, pk}, 1, &sh);
    int32_t y = graph_add_tensor(g, "y", GRAPH_I8, 4, sy, NULL);
    quant(g, y, 0.05f, -3);
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_RESHAPE, &o, 2, (int32_t[]){x, sh}, 1, &y);

    int8_t k1v[64], k2v[64], k3v[64];
    for (int i = 0; i < 64; i++) {
        k1v[i] = (int8_t)(i * 37 - 100);
        k2v[i] = (int8_t)(90 - i * 3);
        k3v[i] = (int8_t)(i * 5 - 128);
    }
    int32_t k1 = graph_add_tensor(g, "k1", GRAPH_I8, 4, s4, k1v);
    int32_t k2 = graph_add_tensor(g, "k2", GRAPH_I8, 4, s4, k2v);
    int32_t k3 = graph_add_tensor(g, "k3", GRAPH_I8, 4, s4, k3v);
    quant(g, k1, 0.02f, 1);
    quant(g, k2, 0.03f, -2);
    quant(g, k3, 0.01f, 0);
    int32_t mk = graph_add_tensor(g, "k1k2", GRAPH_I8, 4, s4, NULL);
    quant(g, mk, 0.04f, 0);
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_MUL, &o, 2, (int32_t[]){k1, k2}, 1, &mk);
    int32_t z = graph_add_tensor(g, "z", GRAPH_I8, 4, s4, NULL);
    quant(g, z, 0.08f, 2);
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_ADD, &o, 2, (int32_t[]){x, mk}, 1, &z);
    int32_t w = graph_add_tensor(g, "w", GRAPH_I8, 4, s4, NULL);
    quant(g, w, 0.03f, -1);
    tfl_options_default(&o);
    graph_add_op(g, TFL_OP_MUL, &o, 2, (int32_t[]){k1, k3}, 1, &w);
    graph_set_io(g, 1, &x, 3, (int32_t[]){y, z, w});
    *n_foldable = 5; /* ADD, STRIDED_SLICE, PACK, CONCATENATION, MUL(k1,k2); not MUL(k1,k3): a model output */
    return g;
}

/* Runs g on the interpreter with a fixed input; returns the outputs
 * concatenated (malloc'd). */
static uint8_t *run(const graph *g, size_t *n)
{
    interp *ip = NULL;
    npuc_err e = {0};
    int rc = interp_create(g, NULL, &ip, &e);
    if (rc) fprintf(stderr, "interp_create: %s\n", e.msg);
    CHECK_EQ_INT(rc, 0);
    if (rc) return NULL;
    int8_t in[64];
    for (int i = 0; i < 64; i++) in[i] = (int8_t)(i * 11 - 64);
    CHECK_EQ_INT(interp_set_input(ip, 0, in, 64, &e), 0);
    rc = interp_invoke(ip, &e);
    if (rc) fprintf(stderr, "invoke: %s\n", e.msg);
    CHECK_EQ_INT(rc, 0);
    uint8_t *out = malloc(1024);
    *n = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        size_t k = 0;
        const void *d = interp_output(ip, i, &k);
        memcpy(out + *n, d, k);
        *n += k;
    }
    interp_free(ip);
    return out;
}

static int sh(const char *cmd, char *out, size_t cap)
{
    int rc = t_sh(cmd, out, cap, NULL);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int main(void)
{
    int32_t n_fold = 0;
    graph *g = build(&n_fold);
    size_t nref = 0, nfold = 0;
    uint8_t *ref = run(g, &nref);

    cc_options co;
    npuc_err e;
    cc_model *cm = t_compile(g, EU_U55_256, &co, &e, "fold");
    if (cm) {
        CHECK_EQ_INT(cm->n_folded, n_fold);
        CHECK(cm->folded_g != NULL && cm->g == cm->folded_g && cm->src == g);
        CHECK_EQ_INT(cm->g->n_ops, g->n_ops - n_fold);
        /* source ops 0..3 (the shape chain) and 6 (MUL k1*k2) folded */
        CHECK_EQ_INT(cm->folded[0].op, 0);
        CHECK(!strcmp(cm->folded[0].op_name, "ADD") && !strcmp(cm->folded[0].tensor_name, "a"));
        CHECK(!strcmp(cm->folded[3].op_name, "CONCATENATION") && !strcmp(cm->folded[3].tensor_name, "shape"));
        CHECK_EQ_INT(cm->folded[4].op, 5);
        CHECK_EQ_INT(cc_op_of_source(cm, 0), -1);
        CHECK_EQ_INT(cc_op_of_source(cm, 4), 0);
        CHECK_EQ_INT(cc_op_of_source(cm, 7), 2);
        /* the folded shape is a constant {1,2,4,8} */
        const graph_op *rs = &cm->g->ops[0];
        CHECK_EQ_INT(rs->opcode, TFL_OP_RESHAPE);
        const int32_t *shv = cm->g->tensors[rs->in[1]].data;
        CHECK(shv && shv[0] == 1 && shv[1] == 2 && shv[2] == 4 && shv[3] == 8);
        /* the folded graph computes the same bytes */
        uint8_t *got = run(cm->g, &nfold);
        CHECK_EQ_INT(nfold, nref);
        CHECK(ref && got && memcmp(ref, got, nref) == 0);
        free(got);
        /* the summary lists the folded ops */
        char *sum = NULL;
        CHECK_EQ_INT(emit_summary(cm, "fold", &sum, &e), 0);
        if (sum) {
            CHECK_STR_CONTAINS(sum, "Folded operators                 5");
            CHECK_STR_CONTAINS(sum, "op 3 CONCATENATION -> tensor 11 'shape'");
        }
        free(sum);
        /* the deployed model carries every op that was not folded */
        uint8_t *blob = NULL;
        size_t bn = 0;
        CHECK_EQ_INT(emit_npurt(cm, "fold", &blob, &bn, &e), 0);
        free(blob);
    }
    cc_model_free(cm);
    /* --no-fold: nothing folded, the source graph deployed as is */
    co.no_fold = true;
    cm = NULL;
    CHECK_EQ_INT(cc_compile(g, &co, &cm, &e), 0);
    if (cm) {
        CHECK_EQ_INT(cm->n_folded, 0);
        CHECK(cm->g == g && cm->folded_g == NULL);
        CHECK_EQ_INT(cc_op_of_source(cm, 0), 0);
    }
    cc_model_free(cm);

    /* SHAPE of a static shape counts as constant: it folds as soon as the
     * reference kernels implement SHAPE; until then it stays, and compiling
     * must not fail */
    {
        graph *h = graph_new("shape");
        int32_t s4[4] = {1, 2, 3, 4}, r1[1] = {4};
        int32_t x = graph_add_tensor(h, "x", GRAPH_I8, 4, s4, NULL);
        int32_t st = graph_add_tensor(h, "s", GRAPH_I32, 1, r1, NULL);
        int32_t y = graph_add_tensor(h, "y", GRAPH_I8, 4, s4, NULL);
        tfl_options o;
        tfl_options_default(&o);
        graph_add_op(h, TFL_OP_SHAPE, &o, 1, &x, 1, &st);
        graph_add_op(h, TFL_OP_RESHAPE, &o, 2, (int32_t[]){x, st}, 1, &y);
        graph_set_io(h, 1, &x, 1, &y);
        co.no_fold = false;
        cm = NULL;
        CHECK_EQ_INT(cc_compile(h, &co, &cm, &e), 0);
        if (cm) {
            char why[200];
            bool have_shape = interp_op_supported(h, &h->ops[0], why, sizeof why);
            CHECK_EQ_INT(cm->n_folded, have_shape ? 1 : 0);
            if (have_shape) {
                const int32_t *v = cm->g->tensors[cm->g->ops[0].in[1]].data;
                CHECK(v && v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
            }
        }
        cc_model_free(cm);
        graph_free(h);
    }

    /* end to end: validate compiles (folding) and runs the deployed model on
     * the virtual NPU against the source graph on the interpreter */
    const char *npuc = getenv("NPUC_BIN");
    char dir[] = "/tmp/npuc_fold_XXXXXX";
    if (npuc && mkdtemp(dir)) {
        tfl_model *m = NULL;
        char path[128], cmd[1024], out[8192];
        snprintf(path, sizeof path, "%s/fold.tflite", dir);
        CHECK_EQ_INT(graph_export(g, &m, &e), 0);
        if (m) CHECK_EQ_INT(tfl_write_file(m, path, &e), 0);
        tfl_model_free(m);
        snprintf(cmd, sizeof cmd, "'%s' validate '%s' --random 3 2>&1", npuc, path);
        int rc = sh(cmd, out, sizeof out);
        if (rc) fprintf(stderr, "%s", out);
        CHECK_EQ_INT(rc, 0);
        CHECK_STR_CONTAINS(out, "bit-exact");
        snprintf(cmd, sizeof cmd, "'%s' compile '%s' -o '%s/o' --output-format all 2>&1", npuc, path, dir);
        CHECK_EQ_INT(sh(cmd, out, sizeof out), 0);
        CHECK_STR_CONTAINS(out, "Folded operators");
        snprintf(cmd, sizeof cmd, "grep -c '\"operator\"' '%s/o/fold_report.json'", dir);
        CHECK_EQ_INT(sh(cmd, out, sizeof out), 0);
        CHECK_EQ_INT(atoi(out), 5);
        /* the compiled TFLite runs (ethos-u ops on the virtual NPU) to the same bytes */
        snprintf(cmd, sizeof cmd,
                 "'%s' run '%s' --random-input --seed 4 --output '%s/a.bin' --quiet && "
                 "'%s' run '%s/o/fold_npu.tflite' --random-input --seed 4 --output '%s/b.bin' --quiet && "
                 "cmp '%s/a.bin' '%s/b.bin'", npuc, path, dir, npuc, dir, dir, dir, dir);
        CHECK_EQ_INT(sh(cmd, out, sizeof out), 0);
        snprintf(cmd, sizeof cmd, "'%s' compile '%s' -o '%s/n' --no-fold 2>&1", npuc, path, dir);
        CHECK_EQ_INT(sh(cmd, out, sizeof out), 0);
        CHECK(!strstr(out, "Folded operators"));
        snprintf(cmd, sizeof cmd, "'%s' inspect '%s' 2>&1", npuc, path);
        CHECK_EQ_INT(sh(cmd, out, sizeof out), 0);
        CHECK_STR_CONTAINS(out, "5 folded into constants");
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd)) {}
    }
    free(ref);
    graph_free(g);
    TEST_MAIN_END();
}
