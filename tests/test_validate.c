/* validate (src/validate/): the comparison figures against hand computation
 * on a tiny model with one weight flipped; person_detect and every seanet
 * model bit-exact with a full profile; a perturbed person_detect reported
 * NOT bit-exact; the JSON and CSV writers; bad options. */
#include "test.h"
#include "../src/validate/validate.h"
#include "../src/emit/emit.h"
#include "../src/tflite/tflite.h"
#include "../src/util/json.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_NEAR(a, b)                                                                     \
    do {                                                                                     \
        double a_ = (a), b_ = (b);                                                           \
        t_checks++;                                                                          \
        if (!(fabs(a_ - b_) <= 1e-12 * (fabs(b_) > 1 ? fabs(b_) : 1))) {                     \
            t_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, a_, b_); \
        }                                                                                    \
    } while (0)

/* ------------------------------------------------------------ tiny model */

/* FULLY_CONNECTED int8: x [1,4] (scale 1, zp 0), W [3,4] (scale 1), bias 0,
 * y [1,3] scale 0.5 zp 1, so y_q = 2 * (W x) + 1 exactly. */
static graph *tiny_fc(const int8_t w[12])
{
    graph *g = graph_new("tiny_fc");
    int32_t xs[2] = {1, 4}, ws[2] = {3, 4}, bs[1] = {3}, ys[2] = {1, 3};
    int32_t bias[3] = {0, 0, 0};
    int32_t x = graph_add_tensor(g, "x", GRAPH_I8, 2, xs, NULL);
    int32_t wt = graph_add_tensor(g, "w", GRAPH_I8, 2, ws, w);
    int32_t b = graph_add_tensor(g, "b", GRAPH_I32, 1, bs, bias);
    int32_t y = graph_add_tensor(g, "y", GRAPH_I8, 2, ys, NULL);
    float one = 1.0f, half = 0.5f;
    int64_t z0 = 0, z1 = 1;
    graph_set_quant(g, x, 1, &one, &z0, 0);
    graph_set_quant(g, wt, 1, &one, &z0, 0);
    graph_set_quant(g, b, 1, &one, &z0, 0);
    graph_set_quant(g, y, 1, &half, &z1, 0);
    tfl_options o;
    tfl_options_default(&o);
    int32_t in[3] = {x, wt, b};
    graph_add_op(g, TFL_OP_FULLY_CONNECTED, &o, 3, in, 1, &y);
    graph_set_io(g, 1, &x, 1, &y);
    return g;
}

static int compile_blob(const graph *g, eu_variant v, uint8_t **blob, size_t *size)
{
    npuc_err err = {0};
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *cm = NULL;
    if (target_default(v, &opt.sys, &err) || cc_compile(g, &opt, &cm, &err) ||
        emit_npurt(cm, "perturbed", blob, size, &err)) {
        fprintf(stderr, "compile: %s\n", err.msg);
        cc_model_free(cm);
        return 1;
    }
    cc_model_free(cm);
    return 0;
}

static void default_opts(val_options *o, eu_variant v)
{
    npuc_err err = {0};
    memset(o, 0, sizeof *o);
    o->tolerance = -1;
    if (target_default(v, &o->cc.sys, &err)) fprintf(stderr, "system: %s\n", err.msg);
}

static void test_hand_computed(void)
{
    const int8_t w[12] = {1, 0, 0, 0, /**/ 0, 1, 0, 1, /**/ 2, 1, 0, -1};
    int8_t wp[12];
    memcpy(wp, w, sizeof wp);
    wp[0] ^= 4;   /* one bit of one weight: 1 -> 5 */
    graph *g = tiny_fc(w), *gp = tiny_fc(wp);
    const int8_t x[4] = {1, 2, 3, 4};
    const uint8_t *inputs[1] = {(const uint8_t *)x};
    npuc_err err = {0};

    /* the model itself: bit-exact, runs on the NPU */
    val_options o;
    default_opts(&o, EU_U55_128);
    o.inputs = inputs;
    o.n_sets = 1;
    val_report *r = NULL;
    CHECK_EQ_INT(val_run(g, "tiny_fc", &o, &r, &err), NPUC_OK);
    if (!r) {
        fprintf(stderr, "val_run: %s\n", err.msg);
        graph_free(g);
        graph_free(gp);
        return;
    }
    CHECK(r->pass && r->bit_exact && r->op_detail && r->compiled_here);
    CHECK_EQ_INT(r->n_outputs, 1);
    CHECK(r->outputs[0].q.bit_exact && r->outputs[0].q.n == 3 && r->outputs[0].q.n_diff == 0);
    CHECK(r->outputs[0].q.first_diff == -1);
    CHECK_NEAR(r->outputs[0].q.max_abs, 0);
    CHECK_NEAR(r->outputs[0].q.cosine, 1);
    CHECK_NEAR(r->outputs[0].q.l2_rel, 0);
    CHECK(r->outputs[0].classifier && r->outputs[0].top1_agree == 1 && r->outputs[0].top1_n == 1);
    CHECK_EQ_INT(r->n_ops, 1);
    CHECK(r->ops[0].kind == NPURT_EPOCH_HW && r->ops[0].macs == 12 && r->ops[0].npu_cycles > 0);
    CHECK(r->ops[0].npu_cycles == r->npu_cycles || r->n_epochs == 1);
    CHECK(r->macs == 12 && r->n_npu_ops_graph == 1 && r->n_cpu_ops_graph == 0);
    CHECK(r->macs_per_cycle == 128 && r->core_clock_hz > 0);
    /* memory: x, y live; peak never beyond the pool */
    CHECK(r->n_buffers >= 2 && r->live && r->pools[VAL_MEM_ACTIVATIONS].peak > 0);
    CHECK(r->pools[VAL_MEM_ACTIVATIONS].peak <= r->pools[VAL_MEM_ACTIVATIONS].used);
    /* the NPU reads the constants (scales + weights, each byte once) from
     * params, where a copy into the arena would gain no cycle, reads x
     * (4 B) and writes y (3 B) */
    const uint64_t *rd = r->ops[0].bytes_read, *wr = r->ops[0].bytes_written;
    CHECK(rd[VAL_MEM_PARAMS] > 12);
    CHECK(wr[VAL_MEM_ACTIVATIONS] == 3);
    CHECK(rd[VAL_MEM_ACTIVATIONS] == 4);
    CHECK(wr[VAL_MEM_PARAMS] == 0 && rd[VAL_MEM_FAST] == 0 && wr[VAL_MEM_FAST] == 0);
    val_report_free(r);

    /* deployed = the perturbed model, reference = the model:
     * ref y_q = 2*[1,6,0]+1 = [3,13,1], got = [11,13,1] */
    uint8_t *blob = NULL;
    size_t size = 0;
    if (compile_blob(gp, EU_U55_128, &blob, &size)) {
        t_failures++;
        graph_free(g);
        graph_free(gp);
        return;
    }
    o.compiled = blob;
    o.compiled_size = size;
    r = NULL;
    CHECK_EQ_INT(val_run(g, "tiny_fc", &o, &r, &err), NPUC_OK);
    if (r) {
        const val_output *y = &r->outputs[0];
        CHECK(!r->pass && !r->bit_exact && !y->pass && !y->q.bit_exact && !r->compiled_here);
        CHECK(r->op_detail);   /* same structure: per-op figures stay */
        CHECK(y->q.n == 3 && y->q.n_diff == 1 && y->q.first_diff == 0);
        CHECK_NEAR(y->q.max_abs, 8);
        CHECK_NEAR(y->q.mae, 8.0 / 3.0);
        CHECK_NEAR(y->q.rmse, sqrt(64.0 / 3.0));
        CHECK_NEAR(y->q.cosine, (3.0 * 11 + 13 * 13 + 1 * 1) / (sqrt(9.0 + 169 + 1) * sqrt(121.0 + 169 + 1)));
        CHECK_NEAR(y->q.l2_rel, 8.0 / sqrt(9.0 + 169 + 1));
        /* dequantized: ref [1,6,0], got [5,6,0] */
        CHECK(!y->deq.bit_exact && y->deq.n_diff == 1);
        CHECK_NEAR(y->scale, 0.5);
        CHECK_NEAR(y->deq.max_abs, 4);
        CHECK_NEAR(y->deq.mae, 4.0 / 3.0);
        CHECK_NEAR(y->deq.rmse, sqrt(16.0 / 3.0));
        CHECK_NEAR(y->deq.cosine, 41.0 / (sqrt(37.0) * sqrt(61.0)));
        CHECK_NEAR(y->deq.l2_rel, 4.0 / sqrt(37.0));
        /* argmax stays at class 1 (13 beats 11) */
        CHECK(y->top1_agree == 1 && y->top1_n == 1);
        char *text = NULL;
        CHECK_EQ_INT(val_report_text(r, true, &text, &err), NPUC_OK);
        if (text) {
            CHECK_STR_CONTAINS(text, "output 0 'y' int8: NOT bit-exact (1 of 3 elements differ, first at 0)");
            CHECK_STR_CONTAINS(text, "max abs 8  MAE 2.66667  RMSE 4.6188");
            CHECK_STR_CONTAINS(text, "top-1 agreement 1/1");
            CHECK_STR_CONTAINS(text, "FAIL: NOT bit-exact");
            free(text);
        }
        val_report_free(r);
    }
    /* a tolerance of 8 passes it, 7 does not */
    o.tolerance = 8;
    r = NULL;
    CHECK_EQ_INT(val_run(g, "tiny_fc", &o, &r, &err), NPUC_OK);
    if (r) {
        CHECK(r->pass && !r->bit_exact);
        char *text = NULL;
        CHECK_EQ_INT(val_report_text(r, false, &text, &err), NPUC_OK);
        if (text) CHECK_STR_CONTAINS(text, "PASS: within tolerance");
        free(text);
        val_report_free(r);
    }
    o.tolerance = 7;
    r = NULL;
    CHECK_EQ_INT(val_run(g, "tiny_fc", &o, &r, &err), NPUC_OK);
    if (r) {
        CHECK(!r->pass);
        val_report_free(r);
    }

    /* a second input set where the flipped weight sees x0 = 0: only set 0 differs */
    const int8_t x2[4] = {0, 1, 1, 1};
    const uint8_t *two[2] = {(const uint8_t *)x, (const uint8_t *)x2};
    o.tolerance = -1;
    o.inputs = two;
    o.n_sets = 2;
    r = NULL;
    CHECK_EQ_INT(val_run(g, "tiny_fc", &o, &r, &err), NPUC_OK);
    if (r) {
        /* set 1: sums [0, 2, 0] -> [1, 5, 1] both; over 6 elements one differs by 8 */
        const val_output *y = &r->outputs[0];
        CHECK(y->q.n == 6 && y->q.n_diff == 1);
        CHECK_NEAR(y->q.mae, 8.0 / 6.0);
        CHECK_NEAR(y->q.rmse, sqrt(64.0 / 6.0));
        CHECK_NEAR(y->q.l2_rel, 8.0 / sqrt(9.0 + 169 + 1 + 1 + 25 + 1));
        CHECK(y->top1_n == 2 && y->top1_agree == 2);
        CHECK(r->n_sets == 2);
        val_report_free(r);
    }
    free(blob);
    graph_free(g);
    graph_free(gp);
}

/* The float twin of tiny_fc: float32 weights equal to the int8 ones. */
static graph *tiny_fc_float(const int8_t w[12])
{
    graph *fg = graph_new("tiny_fc_float");
    float wf[12], bias[3] = {0, 0, 0};
    for (int i = 0; i < 12; i++) wf[i] = w[i];
    int32_t xs[2] = {1, 4}, ws[2] = {3, 4}, bs[1] = {3}, ys[2] = {1, 3};
    int32_t x = graph_add_tensor(fg, "x", GRAPH_F32, 2, xs, NULL);
    int32_t wt = graph_add_tensor(fg, "w", GRAPH_F32, 2, ws, wf);
    int32_t b = graph_add_tensor(fg, "b", GRAPH_F32, 1, bs, bias);
    int32_t y = graph_add_tensor(fg, "y", GRAPH_F32, 2, ys, NULL);
    tfl_options o;
    tfl_options_default(&o);
    int32_t in[3] = {x, wt, b};
    graph_add_op(fg, TFL_OP_FULLY_CONNECTED, &o, 3, in, 1, &y);
    graph_set_io(fg, 1, &x, 1, &y);
    return fg;
}

/* The float twin: a float FC with the same (dequantized) weights gives
 * exactly W x for these inputs, so the dequantized reference matches it. */
static void test_float_twin(void)
{
    const int8_t w[12] = {1, 0, 0, 0, 0, 1, 0, 1, 2, 1, 0, -1};
    graph *g = tiny_fc(w);
    graph *fg = tiny_fc_float(w);
    int32_t xs[2] = {1, 4};
    /* x = [1, 2, 3, 60]: row 1 sums to 62 -> y_q 125; row 2 to -56 -> -111 */
    const int8_t xv[4] = {1, 2, 3, 60};
    const uint8_t *inputs[1] = {(const uint8_t *)xv};
    val_options vo;
    default_opts(&vo, EU_U55_64);
    vo.inputs = inputs;
    vo.n_sets = 1;
    vo.float_graph = fg;
    val_report *r = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_run(g, "tiny_fc", &vo, &r, &err), NPUC_OK);
    if (r) {
        const val_output *yo = &r->outputs[0];
        CHECK(r->bit_exact && yo->has_float);
        CHECK(yo->float_deployed.bit_exact == false || yo->float_deployed.n_diff == 0);
        CHECK(yo->float_deployed.n_diff == 0 && yo->float_reference.n_diff == 0);
        CHECK_NEAR(yo->float_deployed.max_abs, 0);
        CHECK_NEAR(yo->float_deployed.cosine, 1);
        val_report_free(r);
    }
    /* x = [100, 0, 0, 0]: row 0 is 100 -> y_q 201 saturates at 127 (63 real) */
    const int8_t xs2[4] = {100, 0, 0, 0};
    inputs[0] = (const uint8_t *)xs2;
    r = NULL;
    CHECK_EQ_INT(val_run(g, "tiny_fc", &vo, &r, &err), NPUC_OK);
    if (r) {
        const val_output *yo = &r->outputs[0];
        /* float [100, 0, 200] vs dequantized [63, 0, 63] */
        CHECK(yo->float_reference.n_diff == 2);
        CHECK_NEAR(yo->float_reference.max_abs, 137);
        CHECK_NEAR(yo->float_reference.mae, (37.0 + 137.0) / 3.0);
        CHECK_NEAR(yo->float_reference.rmse, sqrt((37.0 * 37 + 137.0 * 137) / 3.0));
        CHECK_NEAR(yo->float_reference.l2_rel, sqrt(37.0 * 37 + 137.0 * 137) / sqrt(100.0 * 100 + 200.0 * 200));
        CHECK_NEAR(yo->float_deployed.max_abs, 137);
        val_report_free(r);
    }
    /* a float twin with another output shape is refused */
    graph *bad = graph_new("bad");
    int32_t s5[2] = {1, 5};
    int32_t bx = graph_add_tensor(bad, "x", GRAPH_F32, 2, xs, NULL);
    int32_t by = graph_add_tensor(bad, "y", GRAPH_F32, 2, s5, NULL);
    graph_set_io(bad, 1, &bx, 1, &by);
    vo.float_graph = bad;
    r = NULL;
    CHECK(val_run(g, "tiny_fc", &vo, &r, &err) == NPUC_E_INVALID && r == NULL);
    CHECK_STR_CONTAINS(err.msg, "float model output 0 'y' has 5 elements, the model's 'y' 3");
    graph_free(bad);
    graph_free(fg);
    graph_free(g);
}

/* ------------------------------------------------------ real models */

static graph *load(const char *path, tfl_model **tm)
{
    npuc_err err = {0};
    graph *g = NULL;
    if (tfl_read_file(path, tm, &err) || graph_import(*tm, &g, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        t_failures++;
        return NULL;
    }
    return g;
}

static uint8_t *bmp_input(const char *path)
{
    uint8_t *d = NULL;
    size_t n = 0;
    npuc_err err = {0};
    if (npuc_read_file(path, &d, &n, &err) || n < 1078 + 96 * 96) {
        free(d);
        return NULL;
    }
    uint8_t *x = malloc(96 * 96);
    for (int row = 0; row < 96; row++) memcpy(x + row * 96, d + 1078 + (95 - row) * 96, 96);
    free(d);
    return x;
}

/* A zoo model's validate run: its graph, the model file and the report. */
typedef struct zoo_run {
    graph *g;
    tfl_model *tm;
    val_report *r;
} zoo_run;

static void zoo_done(zoo_run *z)
{
    val_report_free(z->r);
    graph_free(z->g);
    tfl_model_free(z->tm);
}

/* A zoo model (below NPUC_SHARED/models/zoo) validated on ethos-u55-128
 * with one input set: its one input's bytes drawn from seed (uint8 / int8),
 * or for a float32 input a ramp of quarter steps. Returns the report (the
 * caller frees it, *g and *tm), NULL when the model is absent (a skip) or
 * on an error (a failure). */
static val_report *validate_zoo_run(const char *name, uint64_t seed, graph **g, tfl_model **tm)
{
    char p[4096], rel[256];
    *g = NULL;
    *tm = NULL;
    snprintf(rel, sizeof rel, "models/zoo/%s.tflite", name);
    if (!t_shared(rel, p, sizeof p)) {
        printf("skip %s: ../shared/models not found\n", name);
        return NULL;
    }
    if (!(*g = load(p, tm))) return NULL;
    CHECK_EQ_INT((*g)->n_inputs, 1);
    const graph_tensor *x = &(*g)->tensors[(*g)->inputs[0]];
    const size_t n_in = graph_tensor_elems(x) * graph_dtype_size(x->dtype);
    uint8_t *in = malloc(n_in + 4);
    CHECK(in != NULL);
    if (!in) return NULL;
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    for (size_t i = 0; x->dtype != GRAPH_F32 && i < n_in; i++) in[i] = (uint8_t)npuc_rng_range(&rng, 0, 255);
    for (size_t i = 0; x->dtype == GRAPH_F32 && i < n_in / 4; i++) {
        const float f = (float)((int)(i % 17) - 8) * 0.25f;
        memcpy(in + 4 * i, &f, 4);
    }
    const uint8_t *inputs[1] = {in};
    val_options o;
    default_opts(&o, EU_U55_128);
    o.inputs = inputs;
    o.n_sets = 1;
    val_report *r = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_run(*g, name, &o, &r, &err), NPUC_OK);
    if (!r) fprintf(stderr, "%s: %s\n", name, err.msg);
    free(in);
    return r;
}

/* validate_zoo_run into z (its report NULL when the model is absent or the
 * run failed); zoo_done frees it. */
static val_report *validate_zoo(const char *name, uint64_t seed, zoo_run *z)
{
    return z->r = validate_zoo_run(name, seed, &z->g, &z->tm);
}

/* coral_movenet_lightning_ptq: whole, with its int32 FLOOR_DIVs on the CPU
 * (TFLite's form), bit-exact on ethos-u55-128. Its RESHAPE 142 is a CPU view
 * that shares its input's bytes, so the runtime's model has no epoch for it
 * (emit_npurt_has_epoch): the per-op figures still follow the compiled
 * model's epochs, and that op belongs to none. */
static void test_movenet(void)
{
    zoo_run z;
    const val_report *r = validate_zoo("coral_movenet_lightning_ptq", 3, &z);
    const graph *g = z.g;
    if (r) {
        CHECK(r->pass && r->bit_exact && r->op_detail);
        CHECK_EQ_INT(r->n_ops, g->n_ops);
        int n_floor_div = 0, n_no_epoch = 0;
        uint64_t cyc = 0;
        for (int32_t i = 0; i < r->n_ops; i++) {
            const val_op *op = &r->ops[i];
            if (g->ops[i].opcode == TFL_OP_FLOOR_DIV) {
                n_floor_div++;
                CHECK(op->epoch >= 0 && op->kind == NPURT_EPOCH_SW);
            }
            if (op->epoch < 0) {
                n_no_epoch++;
                CHECK_EQ_INT(g->ops[i].opcode, TFL_OP_RESHAPE);
            }
            if (op->kind == NPURT_EPOCH_HW && op->n_npu_ops > 0) CHECK(op->npu_cycles > 0);
        }
        CHECK_EQ_INT(n_floor_div, 2);
        CHECK(n_no_epoch >= 1);
        /* the epochs' cycles add up to the total; every NPU op has its own */
        for (int32_t i = 0; i < r->n_epochs; i++) cyc += r->epochs[i].npu_cycles;
        CHECK(cyc == r->npu_cycles && cyc > 0);
    }
    zoo_done(&z);
}

/* armkws_dnn_s_int8: its CPU QUANTIZE writes its int8 output over the float
 * input (cc_buf.over); at that op both are live, and the bytes they share
 * count once in the memory plan: no step holds more than the pool. */
static void test_inplace_live(void)
{
    zoo_run z;
    const val_report *r = validate_zoo("armkws_dnn_s_int8", 1, &z);
    if (r) {
        CHECK(r->pass && r->op_detail && r->live);
        const val_pool *a = &r->pools[VAL_MEM_ACTIVATIONS];
        if (a->peak > a->used) fprintf(stderr, "dnn_s: peak live %llu > pool %llu\n", (unsigned long long)a->peak,
                                       (unsigned long long)a->used);
        CHECK(a->peak > 0 && a->peak <= a->used);
        for (int32_t i = 0; r->live && i < r->n_ops; i++) CHECK(r->live[i] <= a->used);
    }
    zoo_done(&z);
}

static void test_person_detect(void)
{
    char p[4096], pb[4096];
    if (!t_shared("models/tflm/person_detect.tflite", p, sizeof p) ||
        !t_shared("models/tflm/person.bmp", pb, sizeof pb)) {
        printf("skip person_detect: ../shared/models not found\n");
        return;
    }
    tfl_model *tm = NULL;
    graph *g = load(p, &tm);
    if (!g) return;
    uint8_t *img = bmp_input(pb);
    CHECK(img != NULL);
    const uint8_t *inputs[1] = {img};
    val_options o;
    default_opts(&o, EU_U55_256);
    o.inputs = inputs;
    o.n_sets = 1;
    val_report *r = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_run(g, "person_detect.tflite", &o, &r, &err), NPUC_OK);
    if (r) {
        CHECK(r->pass && r->bit_exact && r->op_detail);
        CHECK_EQ_INT(r->n_outputs, 1);
        CHECK(r->outputs[0].classifier && r->outputs[0].top1_agree == 1);
        CHECK_NEAR(r->outputs[0].q.cosine, 1);
        CHECK_EQ_INT(r->n_ops, g->n_ops);
        /* totals are the sums of the epochs; every NPU op has cycles */
        uint64_t cyc = 0, est = 0, macs = 0;
        for (int32_t i = 0; i < r->n_epochs; i++) {
            cyc += r->epochs[i].npu_cycles;
            est += r->epochs[i].est_cycles;
            macs += r->epochs[i].macs;
        }
        CHECK(cyc == r->npu_cycles && est == r->est_cycles && macs == r->macs && cyc > 0);
        for (int32_t i = 0; i < r->n_ops; i++) {
            const val_op *op = &r->ops[i];
            CHECK(op->epoch >= 0 && op->epoch < r->n_epochs);
            if (op->kind == NPURT_EPOCH_HW && op->n_npu_ops > 0) {
                CHECK(op->npu_cycles > 0);
                CHECK(op->mac_util >= 0 && op->mac_util <= 1.0);
            }
        }
        /* the memory plan: every buffer inside the pool, the live curve's
         * peak is the pool's peak and fits the pool */
        uint64_t peak = 0;
        for (int32_t i = 0; i < r->n_ops; i++) peak = r->live[i] > peak ? r->live[i] : peak;
        CHECK(peak == r->pools[VAL_MEM_ACTIVATIONS].peak);
        CHECK(peak <= r->pools[VAL_MEM_ACTIVATIONS].used);
        for (int32_t i = 0; i < r->n_buffers; i++) {
            const val_buffer *b = &r->buffers[i];
            CHECK(b->offset + b->size <= r->pools[VAL_MEM_ACTIVATIONS].used);
            CHECK(b->first_op >= 0 && b->first_op <= b->last_op && b->last_op < r->n_ops);
        }
        CHECK(r->pools[VAL_MEM_PARAMS].used > 200000);
        /* JSON: parses, and says what the struct says */
        char *js = NULL, *csv = NULL;
        CHECK_EQ_INT(val_report_json(r, &js, &err), NPUC_OK);
        CHECK_EQ_INT(val_report_csv(r, &csv, &err), NPUC_OK);
        if (js) {
            const npuc_json *doc = NULL;
            npuc_arena arena;
            npuc_arena_init(&arena);
            CHECK_EQ_INT(npuc_json_parse(js, strlen(js), NULL, &arena, &doc, &err), NPUC_OK);
            if (doc) {
                const npuc_json *outs = npuc_json_get(doc, "outputs");
                CHECK(outs && outs->n == 1);
                if (outs && outs->n == 1) {
                    const npuc_json *v = npuc_json_get(outs->items[0], "verdict");
                    CHECK(v && v->type == NPUC_JSON_STRING && !strcmp(v->str, "bit-exact"));
                }
                const npuc_json *ops = npuc_json_get(doc, "ops");
                CHECK(ops && ops->n == (size_t)r->n_ops);
                const npuc_json *tot = npuc_json_get(doc, "totals");
                const npuc_json *c = tot ? npuc_json_get(tot, "npu_cycles") : NULL;
                CHECK(c && c->number == (double)r->npu_cycles);
                const npuc_json *mem = npuc_json_get(doc, "memory");
                const npuc_json *bufs = mem ? npuc_json_get(mem, "buffers") : NULL;
                CHECK(bufs && bufs->n == (size_t)r->n_buffers);
            }
            npuc_arena_free(&arena);
        }
        if (csv) {
            int lines = 0;
            for (const char *s = csv; *s; s++) lines += *s == '\n';
            CHECK_EQ_INT(lines, r->n_ops + 1);
            CHECK(!strncmp(csv, "index,op,name,runs_on,epoch", 27));
            CHECK_STR_CONTAINS(csv, "\"CONV_2D\"");
        }
        free(js);
        free(csv);
        val_report_free(r);
    }

    /* one weight flipped: the deployed model is the perturbed one */
    int32_t wt = -1;
    for (int32_t i = 0; i < g->n_ops && wt < 0; i++)
        if (g->ops[i].opcode == TFL_OP_CONV_2D) wt = g->ops[i].in[1];
    CHECK(wt >= 0);
    if (wt >= 0) {
        int8_t *w = (int8_t *)(uintptr_t)g->tensors[wt].data;
        int8_t keep = w[0];
        w[0] = (int8_t)(w[0] ^ 0x40);
        uint8_t *blob = NULL;
        size_t size = 0;
        int crc = compile_blob(g, EU_U55_256, &blob, &size);
        w[0] = keep;
        CHECK(crc == 0);
        o.compiled = blob;
        o.compiled_size = size;
        r = NULL;
        CHECK_EQ_INT(val_run(g, "person_detect.tflite", &o, &r, &err), NPUC_OK);
        if (r) {
            CHECK(!r->pass && !r->bit_exact && !r->outputs[0].q.bit_exact);
            CHECK(r->outputs[0].q.max_abs > 0 && r->outputs[0].q.n_diff > 0);
            CHECK(r->op_detail);
            val_report_free(r);
        }
        free(blob);
        o.compiled = NULL;
    }
    /* a compiled model of another network is refused */
    const int8_t w12[12] = {0};
    graph *tiny = tiny_fc(w12);
    uint8_t *blob = NULL;
    size_t size = 0;
    if (!compile_blob(tiny, EU_U55_256, &blob, &size)) {
        o.compiled = blob;
        o.compiled_size = size;
        r = NULL;
        CHECK(val_run(g, "person_detect.tflite", &o, &r, &err) == NPUC_E_INVALID && !r);
        CHECK_STR_CONTAINS(err.msg, "not compiled from it");
    }
    free(blob);
    graph_free(tiny);
    /* the same model compiled for another NPU: runs (bit-exact), no op detail */
    if (!compile_blob(g, EU_U55_64, &blob, &size)) {
        o.compiled = blob;
        o.compiled_size = size;
        r = NULL;
        CHECK_EQ_INT(val_run(g, "person_detect.tflite", &o, &r, &err), NPUC_OK);
        if (r) {
            CHECK(r->bit_exact && r->macs_per_cycle == 64);
            CHECK(!r->op_detail && strstr(r->note, "per-op detail unavailable") != NULL);
            CHECK(r->n_buffers == 0 && r->live == NULL);
            val_report_free(r);
        }
        free(blob);
    }
    free(img);
    graph_free(g);
    tfl_model_free(tm);
}

/* "a,b,c" integers (the seanet goldens' inputs) into a tensor of dtype dt. */
static uint8_t *read_csv_ints(const char *path, const graph_tensor *t)
{
    uint8_t *d = NULL;
    size_t n = 0;
    npuc_err err = {0};
    if (npuc_read_file(path, &d, &n, &err)) return NULL;
    char *text = malloc(n + 1);
    memcpy(text, d, n);
    text[n] = 0;
    free(d);
    size_t elems = graph_tensor_elems(t), k = 0;
    uint8_t *out = calloc(t->nbytes + 1, 1);
    for (char *p = text; *p && k < elems;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p) {
            p++;
            continue;
        }
        if (t->dtype == GRAPH_I16) ((int16_t *)out)[k] = (int16_t)v;
        else if (t->dtype == GRAPH_I32) ((int32_t *)out)[k] = (int32_t)v;
        else if (t->dtype == GRAPH_I8) ((int8_t *)out)[k] = (int8_t)v;
        else out[k] = (uint8_t)v;
        k++;
        p = end;
    }
    free(text);
    if (k != elems) {
        free(out);
        return NULL;
    }
    return out;
}

/* The seanet model's input k from its CSV (OPn_inputK_TYPE.csv), or NULL. */
static uint8_t *seanet_input(const char *dir, const char *model_file, int k, const graph_tensor *t)
{
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s_input%d_", (int)(strlen(model_file) - 7), model_file, k);
    DIR *d = opendir(dir);
    if (!d) return NULL;
    uint8_t *out = NULL;
    struct dirent *e;
    while (!out && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, stem, strlen(stem))) {
            char path[8800];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            out = read_csv_ints(path, t);
        }
    closedir(d);
    return out;
}

static void test_seanet(void)
{
    char dir[4096];
    const char *root = getenv("NPUC_SHARED");
    snprintf(dir, sizeof dir, "%s/models/tflm/seanet", root ? root : "../shared");
    DIR *d = opendir(dir);
    if (!d) {
        printf("skip seanet: %s not found\n", dir);
        return;
    }
    int models = 0, exact = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        DIR *s = opendir(sub);
        if (!s) continue;
        struct dirent *f;
        while ((f = readdir(s)) != NULL) {
            size_t n = strlen(f->d_name);
            if (n < 8 || strcmp(f->d_name + n - 7, ".tflite")) continue;
            char path[8700];
            snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
            tfl_model *tm = NULL;
            graph *g = load(path, &tm);
            if (!g) continue;
            /* two input sets: the golden's input, and the same with the
             * int16 data inputs randomised (shape inputs such as
             * TRANSPOSE_CONV's output_shape stay) */
            uint8_t *bufs[2 * 8] = {0};
            const uint8_t *inputs[2 * 8];
            npuc_rng rng;
            npuc_rng_seed(&rng, 7);
            bool have = g->n_inputs <= 8;
            for (int32_t k = 0; have && k < g->n_inputs; k++) {
                const graph_tensor *t = &g->tensors[g->inputs[k]];
                bufs[k] = seanet_input(sub, f->d_name, k, t);
                if (!bufs[k]) {
                    have = false;
                    break;
                }
                bufs[g->n_inputs + k] = malloc(t->nbytes + 1);
                memcpy(bufs[g->n_inputs + k], bufs[k], t->nbytes);
                if (t->dtype == GRAPH_I16 || t->dtype == GRAPH_I8)
                    for (size_t b = 0; b < t->nbytes; b++) bufs[g->n_inputs + k][b] = (uint8_t)npuc_rng_next(&rng);
                inputs[k] = bufs[k];
                inputs[g->n_inputs + k] = bufs[g->n_inputs + k];
            }
            val_options o;
            default_opts(&o, EU_U55_128);
            o.inputs = inputs;
            o.n_sets = 2;
            val_report *r = NULL;
            npuc_err err = {0};
            models++;
            if (!have) {
                fprintf(stderr, "%s: no CSV input\n", path);
                t_failures++;
            } else if (val_run(g, f->d_name, &o, &r, &err) == NPUC_OK) {
                if (r->bit_exact && r->pass) exact++;
                else fprintf(stderr, "%s: NOT bit-exact\n", path);
                CHECK(r->bit_exact && r->pass);
                CHECK(r->n_ops == g->n_ops && r->n_epochs >= 1);
                val_report_free(r);
            } else {
                fprintf(stderr, "%s: %s\n", path, err.msg);
                t_failures++;
            }
            for (int k = 0; k < 16; k++) free(bufs[k]);
            graph_free(g);
            tfl_model_free(tm);
        }
        closedir(s);
    }
    closedir(d);
    printf("seanet: %d models, %d bit-exact on the virtual NPU\n", models, exact);
    CHECK(models >= 100);
}

static void test_bad_options(void)
{
    const int8_t w[12] = {0};
    graph *g = tiny_fc(w);
    val_options o;
    default_opts(&o, EU_U55_128);
    val_report *r = NULL;
    npuc_err err = {0};
    CHECK(val_run(g, "x", &o, &r, &err) == NPUC_E_USAGE && !r);
    CHECK_STR_CONTAINS(err.msg, "at least one input set");
    const uint8_t *none[1] = {NULL};
    o.inputs = none;
    o.n_sets = 1;
    CHECK(val_run(g, "x", &o, &r, &err) == NPUC_E_USAGE && !r);
    CHECK_STR_CONTAINS(err.msg, "input set 0 has no data for input 0");
    /* a corrupt compiled model */
    int8_t x[4] = {0};
    const uint8_t *in[1] = {(const uint8_t *)x};
    o.inputs = in;
    uint8_t junk[64] = "NPRT and then nothing sensible";
    o.compiled = junk;
    o.compiled_size = sizeof junk;
    CHECK(val_run(g, "x", &o, &r, &err) == NPUC_E_FORMAT && !r);
    CHECK_STR_CONTAINS(err.msg, "compiled model:");
    graph_free(g);
}

static void test_metrics_edges(void)
{
    val_acc a;
    val_metrics m;
    /* both zero: cosine 1, l2 0 */
    val_acc_init(&a);
    val_acc_add(&a, 0, 0);
    val_metrics_finish(&a, &m);
    CHECK(m.bit_exact && m.cosine == 1.0 && m.l2_rel == 0.0);
    /* reference zero, deployed not: cosine 0, l2 infinite */
    val_acc_init(&a);
    val_acc_add(&a, 0, 2);
    val_metrics_finish(&a, &m);
    CHECK(!m.bit_exact && m.cosine == 0.0 && isinf(m.l2_rel) && m.max_abs == 2);
    /* opposite vectors: cosine -1 */
    val_acc_init(&a);
    val_acc_add(&a, 1, -1);
    val_acc_add(&a, 2, -2);
    val_metrics_finish(&a, &m);
    CHECK_NEAR(m.cosine, -1);
    CHECK_NEAR(m.l2_rel, 2);
    /* int16 tensors, dequantized */
    int16_t r16[3] = {-32768, 0, 32767}, g16[3] = {-32768, 1, 32767};
    val_acc_init(&a);
    val_acc_add_tensor(&a, GRAPH_I16, r16, g16, 3, 0.25, 0);
    val_metrics_finish(&a, &m);
    CHECK(!m.bit_exact && m.n_diff == 1 && m.first_diff == 1);
    CHECK_NEAR(m.max_abs, 0.25);
    /* an empty tensor */
    val_acc_init(&a);
    val_metrics_finish(&a, &m);
    CHECK(m.bit_exact && m.n == 0 && m.mae == 0 && m.rmse == 0);
}

static int write_graph(const graph *g, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    tfl_model *m = NULL;
    npuc_err err = {0};
    int rc = graph_export(g, &m, &err) || tfl_write_file(m, path, &err);
    if (rc) fprintf(stderr, "%s: %s\n", path, err.msg);
    tfl_model_free(m);
    return rc;
}

/* NPUC_VALIDATE_WRITE=DIR: writes the models test_validate_cli.sh uses
 * (tiny_fc.tflite, tiny_fc_perturbed.tflite, tiny_x.bin, and with the shared
 * models person_detect_perturbed.tflite: one weight bit flipped) and exits. */
static int write_models(const char *dir)
{
    const int8_t w[12] = {1, 0, 0, 0, 0, 1, 0, 1, 2, 1, 0, -1};
    int8_t wp[12];
    memcpy(wp, w, sizeof wp);
    wp[0] ^= 4;
    graph *g = tiny_fc(w), *gp = tiny_fc(wp), *gf = tiny_fc_float(w);
    int rc = write_graph(g, dir, "tiny_fc.tflite") || write_graph(gp, dir, "tiny_fc_perturbed.tflite") ||
             write_graph(gf, dir, "tiny_fc_float.tflite");
    graph_free(g);
    graph_free(gp);
    graph_free(gf);
    const int8_t x[4] = {1, 2, 3, 4}, xs[4] = {100, 0, 0, 0};
    char spath[4096];
    snprintf(spath, sizeof spath, "%s/tiny_x_sat.bin", dir);
    if (!rc && npuc_write_file(spath, xs, sizeof xs, &(npuc_err){0})) rc = 1;
    char path[4096];
    npuc_err err = {0};
    snprintf(path, sizeof path, "%s/tiny_x.bin", dir);
    rc = rc || npuc_write_file(path, x, sizeof x, &err);
    char p[4096];
    if (!rc && t_shared("models/tflm/person_detect.tflite", p, sizeof p)) {
        tfl_model *tm = NULL;
        graph *pg = load(p, &tm);
        if (!pg) return 1;
        for (int32_t i = 0; i < pg->n_ops; i++)
            if (pg->ops[i].opcode == TFL_OP_CONV_2D) {
                int8_t *wt = (int8_t *)(uintptr_t)pg->tensors[pg->ops[i].in[1]].data;
                wt[0] = (int8_t)(wt[0] ^ 0x40);
                break;
            }
        rc = write_graph(pg, dir, "person_detect_perturbed.tflite");
        graph_free(pg);
        tfl_model_free(tm);
    }
    return rc;
}

int main(void)
{
    const char *wdir = getenv("NPUC_VALIDATE_WRITE");
    if (wdir) return write_models(wdir);
    test_metrics_edges();
    test_hand_computed();
    test_float_twin();
    test_bad_options();
    test_person_detect();
    test_movenet();
    test_inplace_live();
    test_seanet();
    TEST_MAIN_END();
}
