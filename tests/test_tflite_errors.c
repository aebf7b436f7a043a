/* Malformed and invalid models: each gives a specific error (code and a
 * message naming the place), never a crash. */
#include "test.h"
#include "../src/interp/interp.h"

/* A tiny valid model: out = ADD(in, const), int8 [1,2,2,3]. */
static graph *tiny(void)
{
    graph *g = graph_new("tiny");
    int32_t shape[4] = {1, 2, 2, 3};
    int8_t c[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    int32_t in = graph_add_tensor(g, "in", GRAPH_I8, 4, shape, NULL);
    int32_t k = graph_add_tensor(g, "k", GRAPH_I8, 4, shape, c);
    int32_t out = graph_add_tensor(g, "out", GRAPH_I8, 4, shape, NULL);
    float s = 0.05f;
    int64_t z = 3;
    graph_set_quant(g, in, 1, &s, &z, 0);
    graph_set_quant(g, k, 1, &s, &z, 0);
    graph_set_quant(g, out, 1, &s, &z, 0);
    int32_t ins[2] = {in, k};
    graph_add_op(g, TFL_OP_ADD, NULL, 2, ins, 1, &out);
    graph_set_io(g, 1, &in, 1, &out);
    return g;
}

static uint8_t *tiny_bytes(size_t *n, tfl_model **model)
{
    graph *g = tiny();
    npuc_err e;
    tfl_model *m;
    uint8_t *d = NULL;
    if (graph_export(g, &m, &e) || tfl_write(m, &d, n, &e)) {
        fprintf(stderr, "setup failed: %s\n", e.msg);
        exit(1);
    }
    graph_free(g);
    if (model) *model = m;
    else tfl_model_free(m);
    return d;
}

/* Writes m, reads back and imports; returns the first failing code. */
static int roundtrip_import(tfl_model *m, npuc_err *e)
{
    uint8_t *d;
    size_t n;
    int rc = tfl_write(m, &d, &n, e);
    if (rc) return rc;
    tfl_model *r;
    rc = tfl_read(d, n, &r, e);
    free(d);
    if (rc) return rc;
    graph *g;
    rc = graph_import(r, &g, e);
    if (!rc) {
        interp *ip;
        rc = interp_create(g, NULL, &ip, e);
        if (!rc) interp_free(ip);
        graph_free(g);
    }
    tfl_model_free(r);
    return rc;
}

int main(void)
{
    size_t n;
    tfl_model *m0;
    uint8_t *d = tiny_bytes(&n, &m0);
    npuc_err e;
    tfl_model *m;

    /* the untouched model reads, imports and runs */
    CHECK_EQ_INT(tfl_read(d, n, &m, &e), 0);
    tfl_model_free(m);
    CHECK_EQ_INT(roundtrip_import(m0, &e), 0);

    /* bad magic */
    uint8_t *b = malloc(n);
    memcpy(b, d, n);
    memcpy(b + 4, "XXXX", 4);
    CHECK_EQ_INT(tfl_read(b, n, &m, &e), NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(e.msg, "expected \"TFL3\"");

    /* root offset out of range */
    memcpy(b, d, n);
    b[0] = 0xff; b[1] = 0xff; b[2] = 0xff; b[3] = 0x7f;
    CHECK_EQ_INT(tfl_read(b, n, &m, &e), NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(e.msg, "root table offset");

    /* too short */
    CHECK_EQ_INT(tfl_read(d, 6, &m, &e), NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(e.msg, "too short");

    /* every truncation is an error naming an offset (or, if only padding
     * was cut, the same model) */
    int trunc_bad = 0;
    for (size_t k = 8; k < n; k++) {
        int rc = tfl_read(d, k, &m, &e);
        if (rc == 0) {
            if (!tfl_model_equal(m, m0, NULL, 0)) trunc_bad++;
            tfl_model_free(m);
        } else if (rc != NPUC_E_FORMAT || !strstr(e.msg, "offset 0x")) {
            trunc_bad++;
            fprintf(stderr, "truncation %zu: rc %d msg %s\n", k, rc, e.msg);
        }
    }
    CHECK_EQ_INT(trunc_bad, 0);

    /* random bit flips: never a crash (run under ASan/UBSan in the suite) */
    npuc_rng r;
    npuc_rng_seed(&r, 42);
    for (int it = 0; it < 3000; it++) {
        memcpy(b, d, n);
        int flips = 1 + (int)npuc_rng_range(&r, 0, 3);
        for (int f = 0; f < flips; f++) b[npuc_rng_range(&r, 0, (int64_t)n - 1)] ^= (uint8_t)(1u << npuc_rng_range(&r, 0, 7));
        if (tfl_read(b, n, &m, &e) == 0) {
            graph *g;
            if (graph_import(m, &g, &e) == 0) {
                interp *ip;
                if (interp_create(g, NULL, &ip, &e) == 0) {
                    if (interp_arena_size(ip) < (1u << 20)) interp_invoke(ip, &e);
                    interp_free(ip);
                }
                graph_free(g);
            }
            tfl_model_free(m);
        }
    }
    free(b);

    /* semantic errors, injected in the model and written back */
    tfl_subgraph *sg = &m0->subgraphs[0];
    int32_t saved = sg->tensors[0].shape[1];
    sg->tensors[0].shape[1] = -2;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "tensor 0 ('in'): dimension 1 is negative (-2)");
    sg->tensors[0].shape[1] = saved;

    /* a zero dim does not lift the bound on the others (the ops' partial
     * size products would overflow) */
    int32_t saved_shape[4];
    memcpy(saved_shape, sg->tensors[0].shape, sizeof saved_shape);
    sg->tensors[0].shape[0] = 0;
    sg->tensors[0].shape[1] = 0x7fffffff;
    sg->tensors[0].shape[2] = 0x7fffffff;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "tensor 0 ('in'): shape is too large");
    memcpy(sg->tensors[0].shape, saved_shape, sizeof saved_shape);

    uint32_t sb = sg->tensors[1].buffer;
    sg->tensors[1].buffer = 99;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(e.msg, "buffer index 99 is out of range");
    sg->tensors[1].buffer = sb;

    /* missing buffer data: constant's buffer is empty -> the ADD reads a
     * tensor nobody writes */
    size_t bsz = m0->buffers[sb].size;
    m0->buffers[sb].size = 5;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "holds 5 bytes but shape and type int8 need 12");
    m0->buffers[sb].size = 0;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "neither a constant, a model input nor written by an earlier op");
    m0->buffers[sb].size = bsz;

    int32_t so = sg->operators[0].inputs[1];
    sg->operators[0].inputs[1] = 17;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "op 0 (ADD) inputs[1] = 17 is not a valid tensor index");
    sg->operators[0].inputs[1] = so;

    int32_t code = m0->opcodes[0].builtin_code;
    m0->opcodes[0].builtin_code = 250;
    m0->opcodes[0].deprecated_builtin_code = 127;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(e.msg, "builtin operator code 250 is not a known TFLite operator");
    m0->opcodes[0].builtin_code = 48; /* TOPK_V2: known, not implemented */
    m0->opcodes[0].deprecated_builtin_code = 48;
    sg->operators[0].options_type = 0;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(e.msg, "op 0 (TOPK_V2): operator is not supported");
    m0->opcodes[0].builtin_code = code;
    m0->opcodes[0].deprecated_builtin_code = (int8_t)code;
    sg->operators[0].options_type = TFL_OPT_Add;

    /* quantization inconsistencies */
    tfl_quant *q = &sg->tensors[0].quant;
    float two[2] = {0.1f, 0.2f};
    float *ss = q->scale;
    q->scale = two;
    q->n_scale = 2;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "tensor 0 ('in'): 2 per-axis scales but dimension 0 has size 1");
    q->scale = ss;
    q->n_scale = 1;
    int64_t zz[3] = {0, 0, 0};
    int64_t *zs0 = q->zero_point;
    q->zero_point = zz;
    q->n_zero_point = 3;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "quantization has 1 scales but 3 zero points");
    q->zero_point = zs0;
    q->n_zero_point = 1;
    int64_t zbad = 300, *zs = q->zero_point;
    q->zero_point = &zbad;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(e.msg, "zero point 300 is outside the range of int8");
    q->zero_point = zs;

    /* unsupported type */
    sg->tensors[0].type = TFL_FLOAT16;
    CHECK_EQ_INT(roundtrip_import(m0, &e), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(e.msg, "type float16");
    sg->tensors[0].type = TFL_INT8;

    CHECK_EQ_INT(roundtrip_import(m0, &e), 0);
    tfl_model_free(m0);
    free(d);
    TEST_MAIN_END();
}
