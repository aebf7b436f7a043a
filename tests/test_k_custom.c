/* kernels: the custom family (k_op_custom.h): TFLite_Detection_PostProcess
 * on hand-worked cases (decoding, NMS order and ties, suppression, unused
 * slots, background class), CIRCULAR_BUFFER over several invocations, and
 * damaged blobs / tensors -> K_E_INVALID; then both ops through the
 * interpreter from custom_options. */
#include "test.h"
#include "flexbuf_build.h"
#include "graph/graph.h"
#include "k_op_test.h"
#include "tflite/flexbuf.h"
#include "validate/validate.h"
#include "target/target.h"

/* ---- detection, direct ---- */

typedef struct det {
    k_op_detect_blob b;
    float enc[16 * 4], cls[16 * 3], anc[16 * 4];
    float boxes[16 * 4], classes[16], scores[16], num[1];
    uint32_t scratch[4096];
} det;

static void det_init(det *d, int32_t nb, int32_t nc, int32_t ncb, int32_t md, int regular)
{
    memset(d, 0, sizeof *d);
    d->b = (k_op_detect_blob){.num_boxes = nb, .box_stride = 4, .num_classes = nc, .num_classes_bg = ncb,
                              .max_detections = md, .max_classes_per_detection = 1, .detections_per_class = md,
                              .use_regular_nms = regular, .score_threshold = 0.5f, .iou_threshold = 0.5f,
                              .y_scale = 1, .x_scale = 1, .h_scale = 1, .w_scale = 1, .out_slots = md};
    /* anchor i: centre (2i, 0), size 1: boxes [2i-0.5, -0.5, 2i+0.5, 0.5], disjoint */
    for (int i = 0; i < nb; i++) {
        d->anc[i * 4 + 0] = 2.0f * (float)i;
        d->anc[i * 4 + 2] = 1.0f;
        d->anc[i * 4 + 3] = 1.0f;
    }
    for (int i = 0; i < 16; i++) d->classes[i] = d->scores[i] = 7.0f; /* untouched marker */
}

static int det_run(det *d)
{
    void *in[3] = {d->enc, d->cls, d->anc};
    uint32_t in_size[3] = {(uint32_t)(d->b.num_boxes * 16), (uint32_t)(d->b.num_boxes * d->b.num_classes_bg * 4),
                           (uint32_t)(d->b.num_boxes * 16)};
    void *out[4] = {d->boxes, d->classes, d->scores, d->num};
    uint32_t out_size[4] = {sizeof d->boxes, sizeof d->classes, sizeof d->scores, 4};
    k_op_io io = {.in = in, .in_size = in_size, .n_in = 3, .out = out, .out_size = out_size, .n_out = 4,
                  .scratch = d->scratch, .scratch_size = (uint32_t)k_detect_scratch_bytes(&d->b)};
    return k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d->b, sizeof d->b, &io);
}

static void test_decode(void)
{
    det d;
    det_init(&d, 1, 1, 1, 1, 0);
    d.b.y_scale = 10.0f;
    d.b.x_scale = 4.0f;
    d.enc[0] = 5.0f;  /* y: 5 / 10 * h 2 + 0.5 = 1.5 */
    d.enc[1] = -2.0f; /* x: -2 / 4 * w 1 + 3 = 2.5 */
    d.anc[0] = 0.5f;
    d.anc[1] = 3.0f;
    d.anc[2] = 2.0f;
    d.anc[3] = 1.0f;
    d.cls[0] = 0.9f;
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.boxes[0] == 0.5f && d.boxes[1] == 2.0f && d.boxes[2] == 2.5f && d.boxes[3] == 3.0f);
    CHECK(d.classes[0] == 0.0f && d.scores[0] == 0.9f && d.num[0] == 1.0f);
}

static void test_fast_order_and_ties(void)
{
    det d;
    det_init(&d, 3, 1, 1, 3, 0);
    d.cls[0] = 0.5f, d.cls[1] = 0.9f, d.cls[2] = 0.5f; /* the 0.5 tie: lower box first */
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 3.0f);
    CHECK(d.scores[0] == 0.9f && d.scores[1] == 0.5f && d.scores[2] == 0.5f);
    CHECK(d.boxes[0] == 1.5f && d.boxes[4] == -0.5f && d.boxes[8] == 3.5f); /* boxes 1, 0, 2 */

    /* box 2 on box 1 (IoU 1 > 0.5): suppressed; the third slot untouched */
    det_init(&d, 3, 1, 1, 3, 0);
    d.anc[8] = 2.0f;
    d.cls[0] = 0.6f, d.cls[1] = 0.9f, d.cls[2] = 0.9f;
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 2.0f);
    CHECK(d.scores[0] == 0.9f && d.scores[1] == 0.6f && d.scores[2] == 7.0f && d.classes[2] == 7.0f);
    CHECK(d.boxes[0] == 1.5f && d.boxes[4] == -0.5f);

    /* below the score threshold: nothing */
    det_init(&d, 3, 1, 1, 3, 0);
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 0.0f && d.scores[0] == 7.0f);

    /* 25 equal scores (the merge sort path, above 20): stable, so box order */
    det_init(&d, 16, 1, 1, 16, 0);
    for (int i = 0; i < 16; i++) d.cls[i] = 0.75f;
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 16.0f);
    bool in_order = true;
    for (int i = 0; i < 16; i++) in_order = in_order && d.boxes[i * 4] == 2.0f * (float)i - 0.5f;
    CHECK(in_order);
}

static void test_regular_ties_and_zeros(void)
{
    det d;
    det_init(&d, 2, 2, 2, 4, 1);
    d.b.detections_per_class = 2;
    /* box0: [0.8, 0.8], box1: [0.3, 0.8]: class 0 keeps box0; class 1 keeps
     * box0, box1; the three 0.8 ties stay in (class, box) order */
    d.cls[0] = 0.8f, d.cls[1] = 0.8f, d.cls[2] = 0.3f, d.cls[3] = 0.8f;
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 3.0f);
    CHECK(d.classes[0] == 0.0f && d.classes[1] == 1.0f && d.classes[2] == 1.0f);
    CHECK(d.boxes[0] == -0.5f && d.boxes[4] == -0.5f && d.boxes[8] == 1.5f);
    CHECK(d.scores[0] == 0.8f && d.scores[1] == 0.8f && d.scores[2] == 0.8f);
    /* the unused slot is written as zeros */
    CHECK(d.scores[3] == 0.0f && d.classes[3] == 0.0f && d.boxes[12] == 0.0f && d.boxes[15] == 0.0f);

    /* a background class first: its score is ignored, labels start after it */
    det_init(&d, 2, 1, 2, 2, 1);
    d.cls[0] = 0.99f, d.cls[1] = 0.6f, d.cls[2] = 0.99f, d.cls[3] = 0.7f;
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 2.0f && d.scores[0] == 0.7f && d.scores[1] == 0.6f);
    CHECK(d.classes[0] == 0.0f && d.classes[1] == 0.0f && d.boxes[0] == 1.5f);

    /* max_detections across classes: the best of both classes win */
    det_init(&d, 2, 2, 2, 1, 1);
    d.cls[0] = 0.6f, d.cls[1] = 0.7f, d.cls[2] = 0.95f, d.cls[3] = 0.55f;
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 1.0f && d.scores[0] == 0.95f && d.classes[0] == 0.0f && d.boxes[0] == 1.5f);
}

static void test_fast_multiclass(void)
{
    /* TFLM's bug configuration: npuc writes box i's classes at slots
     * cats*i + c and counts boxes */
    det d;
    det_init(&d, 2, 3, 3, 2, 0);
    d.b.max_classes_per_detection = 2;
    d.b.out_slots = 4;
    d.cls[0] = 0.1f, d.cls[1] = 0.9f, d.cls[2] = 0.6f; /* box0: class 1, then 2 */
    d.cls[3] = 0.7f, d.cls[4] = 0.2f, d.cls[5] = 0.3f; /* box1: class 0, then 2 */
    CHECK_EQ_INT(det_run(&d), K_OK);
    CHECK(d.num[0] == 2.0f);
    CHECK(d.classes[0] == 1.0f && d.classes[1] == 2.0f && d.classes[2] == 0.0f && d.classes[3] == 2.0f);
    CHECK(d.scores[0] == 0.9f && d.scores[1] == 0.6f && d.scores[2] == 0.7f && d.scores[3] == 0.3f);
    CHECK(d.boxes[0] == -0.5f && d.boxes[4] == -0.5f && d.boxes[8] == 1.5f && d.boxes[12] == 1.5f);
}

static void test_detect_invalid(void)
{
    det d;
    det_init(&d, 3, 1, 1, 3, 0);
    CHECK_EQ_INT(k_op_validate(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b - 4), K_E_INVALID);
    const k_op_detect_blob good = d.b;
    k_op_detect_blob *b = &d.b;
#define BAD(stmt)                                                                        \
    do {                                                                                 \
        *b = good;                                                                       \
        stmt;                                                                            \
        CHECK_EQ_INT(k_op_validate(K_OP_DETECTION_POSTPROCESS_F32, b, sizeof *b), K_E_INVALID); \
    } while (0)
    BAD(b->num_boxes = 0);
    BAD(b->box_stride = 3);
    BAD(b->num_classes_bg = 3);
    BAD(b->iou_threshold = 0.0f);
    BAD(b->iou_threshold = 1.5f);
    BAD(b->max_detections = -1);
    BAD(b->use_regular_nms = 2);
    BAD(b->reserved = 1);
    BAD(b->out_slots = 4);
    BAD(b->num_boxes = 1 << 29; b->num_classes = 1 << 20; b->num_classes_bg = 1 << 20);
#undef BAD
    /* tensors and scratch too small */
    det_init(&d, 3, 1, 1, 3, 0);
    void *in[3] = {d.enc, d.cls, d.anc};
    uint32_t in_size[3] = {48, 12, 48};
    void *out[4] = {d.boxes, d.classes, d.scores, d.num};
    uint32_t out_size[4] = {48, 12, 12, 4};
    k_op_io io = {.in = in, .in_size = in_size, .n_in = 3, .out = out, .out_size = out_size, .n_out = 4,
                  .scratch = d.scratch, .scratch_size = (uint32_t)k_detect_scratch_bytes(&d.b)};
    d.cls[0] = 0.9f;
    CHECK_EQ_INT(k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b, &io), K_OK);
    in_size[2] = 44;
    CHECK_EQ_INT(k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b, &io), K_E_INVALID);
    in_size[2] = 48;
    out_size[0] = 32;
    CHECK_EQ_INT(k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b, &io), K_E_INVALID);
    out_size[0] = 48;
    io.scratch_size -= 4;
    CHECK_EQ_INT(k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b, &io), K_E_INVALID);
    io.n_out = 3;
    io.scratch_size += 4;
    CHECK_EQ_INT(k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b, &io), K_E_INVALID);
    /* a degenerate decoded box (anchor height 0): TFLM fails the invocation */
    io.n_out = 4;
    d.anc[2] = 0.0f;
    CHECK_EQ_INT(k_op_run(K_OP_DETECTION_POSTPROCESS_F32, &d.b, sizeof d.b, &io), K_E_UNSUPPORTED);
}

/* ---- circular buffer, direct ---- */

static int cb_run(const k_op_circbuf_blob *b, int8_t *in, int8_t *out, uint32_t out_size, uint32_t *persist,
                  uint32_t persist_size)
{
    void *ins[1] = {in}, *outs[1] = {out};
    uint32_t in_size[1] = {(uint32_t)b->depth}, os[1] = {out_size};
    k_op_io io = {.in = ins, .in_size = in_size, .n_in = 1, .out = outs, .out_size = os, .n_out = 1,
                  .persistent = persist, .persistent_size = persist_size};
    return k_op_run(K_OP_CIRCULAR_BUFFER_S8, b, sizeof *b, &io);
}

static void test_circbuf(void)
{
    k_op_circbuf_blob b = {.num_slots = 3, .depth = 2, .cycles_max = 2, .zero_point = -1};
    uint32_t persist[8] = {0};
    const uint32_t psize = (uint32_t)k_circbuf_persistent_bytes(&b);
    CHECK_EQ_INT(psize, 8 + 6);
    int8_t in[2], out[6];
    static const int8_t want[4][6] = {
        {-1, -1, -1, -1, 1, 2}, {-1, -1, 1, 2, 3, 4}, {1, 2, 3, 4, 5, 6}, {3, 4, 5, 6, 7, 8}};
    for (int k = 0; k < 4; k++) {
        in[0] = (int8_t)(2 * k + 1);
        in[1] = (int8_t)(2 * k + 2);
        memset(out, 99, sizeof out);
        const int rc = cb_run(&b, in, out, sizeof out, persist, psize);
        CHECK_EQ_INT(rc, k % 2 == 0 ? K_OP_NOT_READY : K_OK); /* completes every 2nd */
        CHECK(memcmp(out, want[k], 6) == 0);
    }
    /* zeroed persistent memory (a reset) starts over at the zero point */
    memset(persist, 0, sizeof persist);
    in[0] = 9, in[1] = 10;
    CHECK_EQ_INT(cb_run(&b, in, out, sizeof out, persist, psize), K_OP_NOT_READY);
    CHECK(out[0] == -1 && out[3] == -1 && out[4] == 9 && out[5] == 10);

    /* cycles_max 1: every invocation completes */
    k_op_circbuf_blob b1 = b;
    b1.cycles_max = 1;
    memset(persist, 0, sizeof persist);
    for (int k = 0; k < 3; k++) CHECK_EQ_INT(cb_run(&b1, in, out, sizeof out, persist, psize), K_OK);

    /* damaged state, sizes, blobs */
    persist[0] = 5; /* counter past cycles_max */
    CHECK_EQ_INT(cb_run(&b, in, out, sizeof out, persist, psize), K_E_INVALID);
    memset(persist, 0, sizeof persist);
    CHECK_EQ_INT(cb_run(&b, in, out, sizeof out, persist, psize - 1), K_E_INVALID);
    CHECK_EQ_INT(cb_run(&b, in, out, sizeof out - 1, persist, psize), K_E_INVALID);
    CHECK_EQ_INT(cb_run(&b, in, out, sizeof out, NULL, 0), K_E_INVALID);
    k_op_circbuf_blob bad = b;
    bad.cycles_max = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_CIRCULAR_BUFFER_S8, &bad, sizeof bad), K_E_INVALID);
    bad = b;
    bad.zero_point = 128;
    CHECK_EQ_INT(k_op_validate(K_OP_CIRCULAR_BUFFER_S8, &bad, sizeof bad), K_E_INVALID);
    bad = b;
    bad.num_slots = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_CIRCULAR_BUFFER_S8, &bad, sizeof bad), K_E_INVALID);
    CHECK_EQ_INT(k_op_validate(K_OP_CIRCULAR_BUFFER_S8, &b, 12), K_E_INVALID);
    CHECK_EQ_INT(k_op_validate(K_OP_CIRCULAR_BUFFER_S8 + 1, &b, sizeof b), K_E_INVALID);
}

/* ---- through the interpreter ---- */

static graph *cb_graph(int32_t slots, const uint8_t *opts, uint32_t n_opts)
{
    graph *g = graph_new("cb");
    const int32_t s_in[4] = {1, 1, 1, 2}, s_out[4] = {1, slots, 1, 2};
    const int32_t ti = kt_tensor(g, "in", GRAPH_I8, 4, s_in, NULL, 0.5f, 3);
    const int32_t to = kt_tensor(g, "out", GRAPH_I8, 4, s_out, NULL, 0.5f, 3);
    const int32_t oi = graph_add_op(g, TFL_OP_CUSTOM, NULL, 1, &ti, 1, &to);
    g->ops[oi].custom_code = npuc_arena_strdup(&g->arena, "CIRCULAR_BUFFER");
    if (n_opts) {
        g->ops[oi].custom_options = npuc_arena_memdup(&g->arena, opts, n_opts);
        g->ops[oi].n_custom_options = n_opts;
    }
    graph_set_io(g, 1, &ti, 1, &to);
    return g;
}

/* Invocations until the first complete one (1 or 2), -1 on error. */
static int cb_interp_period(graph *g, int8_t *first_out)
{
    interp *ip = NULL;
    npuc_err err = {0};
    if (interp_create(g, NULL, &ip, &err)) {
        fprintf(stderr, "interp_create: %s\n", err.msg);
        return -1;
    }
    int n = -1;
    for (int k = 1; k <= 3 && n < 0; k++) {
        const int8_t in[2] = {(int8_t)(10 * k), (int8_t)(10 * k + 1)};
        if (interp_set_input(ip, 0, in, 2, &err) || interp_invoke(ip, &err)) break;
        if (k == 1) memcpy(first_out, interp_output(ip, 0, NULL), 4);
        if (!interp_not_ready(ip)) n = k;
    }
    interp_free(ip);
    return n;
}

static void test_circbuf_interp(void)
{
    uint8_t buf[64];
    int8_t first[4];
    fb_ent e1[1] = {{"cycles_max", FLEXBUF_INT, 1}};
    graph *g = cb_graph(2, buf, (uint32_t)fb_build(buf, e1, 1, 1));
    CHECK_EQ_INT(cb_interp_period(g, first), 1);
    CHECK(first[0] == 3 && first[1] == 3 && first[2] == 10 && first[3] == 11); /* starts at the zero point */
    graph_free(g);

    fb_ent e2[1] = {{"cycles_max", FLEXBUF_INT, 2}};
    g = cb_graph(2, buf, (uint32_t)fb_build(buf, e2, 1, 1));
    CHECK_EQ_INT(cb_interp_period(g, first), 2);
    graph_free(g);

    /* no custom_options: TFLM's shape rule, 5 slots -> every invocation, else 2 */
    g = cb_graph(5, NULL, 0);
    CHECK_EQ_INT(cb_interp_period(g, first), 1);
    graph_free(g);
    g = cb_graph(4, NULL, 0);
    CHECK_EQ_INT(cb_interp_period(g, first), 2);
    graph_free(g);

    /* damaged custom_options: refused at create with the reader's message */
    uint8_t bad[3] = {0, 0, 3};
    g = cb_graph(2, bad, 3);
    npuc_err err;
    CHECK(kt_try_create(g, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "cycles_max");
    graph_free(g);
}

/* The compiled model (a CPU epoch run by the runtime, state in its
 * persistent memory) against the interpreter over two input sets: period
 * cycles_max; with period 2 the runtime's NPURT_NOT_READY on the first set
 * must agree with the interpreter's not-ready, and the completed set match. */
static void circbuf_compiled(uint64_t cycles_max, const char *name)
{
    uint8_t buf[64];
    fb_ent e1[1] = {{"cycles_max", FLEXBUF_INT, cycles_max}};
    graph *g = cb_graph(3, buf, (uint32_t)fb_build(buf, e1, 1, 1));
    static const int8_t in1[2] = {5, -6}, in2[2] = {7, 8};
    const uint8_t *sets[2] = {(const uint8_t *)in1, (const uint8_t *)in2};
    val_options o;
    memset(&o, 0, sizeof o);
    o.tolerance = -1;
    o.inputs = sets;
    o.n_sets = 2;
    val_report *r = NULL;
    npuc_err err = {0};
    int rc = target_default(EU_U55_128, &o.cc.sys, &err);
    if (!rc) rc = val_run(g, name, &o, &r, &err);
    if (rc) fprintf(stderr, "val_run: %s\n", err.msg);
    CHECK_EQ_INT(rc, NPUC_OK);
    CHECK(r && r->bit_exact);
    val_report_free(r);
    graph_free(g);
}

static void test_circbuf_compiled(void) { circbuf_compiled(1, "cb"); }

static void test_circbuf_compiled_not_ready(void) { circbuf_compiled(2, "cb2"); }

static void test_detect_interp(void)
{
    graph *g = graph_new("det");
    const int32_t s_box[3] = {1, 2, 4}, s_cls[3] = {1, 2, 2}, s_anc[2] = {2, 4};
    const int32_t s_b[3] = {1, 2, 4}, s_c[2] = {1, 2}, s_n[1] = {1};
    const float anc[8] = {0, 0, 1, 1, 2, 0, 1, 1};
    int32_t t[7];
    t[0] = graph_add_tensor(g, "box", GRAPH_F32, 3, s_box, NULL);
    t[1] = graph_add_tensor(g, "cls", GRAPH_F32, 3, s_cls, NULL);
    t[2] = graph_add_tensor(g, "anc", GRAPH_F32, 2, s_anc, anc);
    t[3] = graph_add_tensor(g, "boxes", GRAPH_F32, 3, s_b, NULL);
    t[4] = graph_add_tensor(g, "classes", GRAPH_F32, 2, s_c, NULL);
    t[5] = graph_add_tensor(g, "scores", GRAPH_F32, 2, s_c, NULL);
    t[6] = graph_add_tensor(g, "num", GRAPH_F32, 1, s_n, NULL);
    const int32_t oi = graph_add_op(g, TFL_OP_CUSTOM, NULL, 3, t, 4, t + 3);
    g->ops[oi].custom_code = npuc_arena_strdup(&g->arena, "TFLite_Detection_PostProcess");
    /* keys sorted as flexbuffers writes them */
    fb_ent e[] = {
        {"detections_per_class", FLEXBUF_INT, 2}, {"h_scale", FLEXBUF_FLOAT, fb_f32(5.0f)},
        {"max_classes_per_detection", FLEXBUF_INT, 1}, {"max_detections", FLEXBUF_INT, 2},
        {"nms_iou_threshold", FLEXBUF_FLOAT, fb_f32(0.6f)}, {"nms_score_threshold", FLEXBUF_FLOAT, fb_f32(0.4f)},
        {"num_classes", FLEXBUF_INT, 1}, {"use_regular_nms", FLEXBUF_BOOL, 1},
        {"w_scale", FLEXBUF_FLOAT, fb_f32(5.0f)}, {"x_scale", FLEXBUF_FLOAT, fb_f32(10.0f)},
        {"y_scale", FLEXBUF_FLOAT, fb_f32(10.0f)},
    };
    uint8_t buf[512];
    const size_t n = fb_build(buf, e, (int)(sizeof e / sizeof e[0]), 4);
    g->ops[oi].custom_options = npuc_arena_memdup(&g->arena, buf, n);
    g->ops[oi].n_custom_options = (uint32_t)n;
    graph_set_io(g, 2, t, 4, t + 3);
    interp *ip = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(interp_create(g, NULL, &ip, &err), NPUC_OK);
    if (ip) {
        const float box[8] = {10, 0, 0, 0, 0, 0, 0, 0}; /* box 0 moves down by 10/10 * h 1 */
        const float cls[4] = {0.9f, 0.5f, 0.9f, 0.45f}; /* background first */
        CHECK_EQ_INT(interp_set_input(ip, 0, box, sizeof box, &err), NPUC_OK);
        CHECK_EQ_INT(interp_set_input(ip, 1, cls, sizeof cls, &err), NPUC_OK);
        CHECK_EQ_INT(interp_invoke(ip, &err), NPUC_OK);
        const float *ob = interp_output(ip, 0, NULL), *os = interp_output(ip, 2, NULL), *on = interp_output(ip, 3, NULL);
        CHECK(on[0] == 2.0f && os[0] == 0.5f && os[1] == 0.45f);
        CHECK(ob[0] == 0.5f && ob[2] == 1.5f && ob[4] == 1.5f && ob[6] == 2.5f);
        interp_free(ip);
    }
    /* iou threshold 0 (key absent): refused at create, as TFLM fails at eval */
    e[4].key = "nms_iou_thresholds";
    g->ops[oi].n_custom_options = (uint32_t)fb_build(buf, e, (int)(sizeof e / sizeof e[0]), 4);
    g->ops[oi].custom_options = npuc_arena_memdup(&g->arena, buf, g->ops[oi].n_custom_options);
    CHECK(kt_try_create(g, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "nms_iou_threshold");
    graph_free(g);
}

int main(void)
{
    test_decode();
    test_fast_order_and_ties();
    test_regular_ties_and_zeros();
    test_fast_multiclass();
    test_detect_invalid();
    test_circbuf();
    test_circbuf_interp();
    test_circbuf_compiled();
    test_circbuf_compiled_not_ready();
    test_detect_interp();
    TEST_MAIN_END();
}
