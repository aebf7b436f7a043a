/* Interpreter bindings of the custom family: custom operators TFLite Micro ships: TFLite_Detection_PostProcess, CIRCULAR_BUFFER;
 * and Coral's PosenetDecoderOp.
 * Parameters come from the op's custom_options (a FlexBuffer map, read by
 * tflite/flexbuf.h) with TFLite Micro's defaults; docs/kernels-custom.md. */
#include "interp_ops.h"
#include "tflite/flexbuf.h"

#include <string.h>

/* ---- TFLite_Detection_PostProcess ---- */

static int opt_int(const flexbuf_map *m, const char *key, int64_t dflt, int32_t *v, npuc_err *err)
{
    int64_t x = dflt;
    bool found;
    int rc = flexbuf_get_int(m, key, &x, &found, err);
    if (rc) return rc;
    *v = (int32_t)x; /* AsInt32: static_cast<int32_t>(AsInt64()) */
    return NPUC_OK;
}

static int opt_float(const flexbuf_map *m, const char *key, float *v, npuc_err *err)
{
    bool found;
    *v = 0.0f; /* a missing key reads as Null: 0 */
    return flexbuf_get_float(m, key, v, &found, err);
}

static int need_f32(const graph_tensor *t, const char *what, uint64_t min_elems, npuc_err *err)
{
    if (!t) return npuc_errf(err, NPUC_E_INVALID, "%s is missing", what);
    if (t->dtype != GRAPH_F32)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s is %s; TFLite Micro's kernel handles float32 only", what,
                         graph_dtype_name(t->dtype));
    if ((uint64_t)graph_tensor_elems(t) < min_elems)
        return npuc_errf(err, NPUC_E_INVALID, "%s has %zu elements, the op writes %llu", what, graph_tensor_elems(t),
                         (unsigned long long)min_elems);
    return NPUC_OK;
}

static int prep_detect(interp_node *n, npuc_err *err)
{
    const graph_op *op = n->op;
    if (op->n_in != 3 || op->n_out != 4)
        return npuc_errf(err, NPUC_E_INVALID, "expects 3 inputs and 4 outputs, has %d and %d", op->n_in, op->n_out);
    const graph_tensor *box = interp_node_in_t(n, 0), *cls = interp_node_in_t(n, 1), *anc = interp_node_in_t(n, 2);
    if (!box || !cls || !anc) return npuc_errf(err, NPUC_E_INVALID, "an input is missing");
    if (box->rank != 3 || cls->rank != 3 || anc->rank != 2)
        return npuc_errf(err, NPUC_E_INVALID, "box encodings, class predictions and anchors must have rank 3, 3, 2 (have %d, %d, %d)",
                         box->rank, cls->rank, anc->rank);
    int rc;
    if ((rc = need_f32(box, "box_encodings", 0, err)) || (rc = need_f32(cls, "class_predictions", 0, err)) ||
        (rc = need_f32(anc, "anchors", 0, err)))
        return rc;

    flexbuf_map m;
    k_op_detect_blob b = {0};
    rc = flexbuf_root_map(op->custom_options, op->n_custom_options, &m, err);
    if (!rc) rc = opt_int(&m, "max_detections", 0, &b.max_detections, err);
    if (!rc) rc = opt_int(&m, "max_classes_per_detection", 0, &b.max_classes_per_detection, err);
    if (!rc) rc = opt_int(&m, "detections_per_class", 100, &b.detections_per_class, err);
    bool regular = false, found;
    if (!rc) rc = flexbuf_get_bool(&m, "use_regular_nms", &regular, &found, err);
    if (!rc) rc = opt_float(&m, "nms_score_threshold", &b.score_threshold, err);
    if (!rc) rc = opt_float(&m, "nms_iou_threshold", &b.iou_threshold, err);
    if (!rc) rc = opt_int(&m, "num_classes", 0, &b.num_classes, err);
    if (!rc) rc = opt_float(&m, "y_scale", &b.y_scale, err);
    if (!rc) rc = opt_float(&m, "x_scale", &b.x_scale, err);
    if (!rc) rc = opt_float(&m, "h_scale", &b.h_scale, err);
    if (!rc) rc = opt_float(&m, "w_scale", &b.w_scale, err);
    if (rc) return npuc_err_prefix(err, "custom_options");
    b.use_regular_nms = regular ? 1 : 0;

    b.num_boxes = box->shape[1];
    b.box_stride = box->shape[2];
    b.num_classes_bg = cls->shape[2];
    if (box->shape[0] != 1 || cls->shape[0] != 1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "batch must be 1 (box encodings %d, class predictions %d)", box->shape[0],
                         cls->shape[0]);
    if (b.num_boxes < 1 || b.box_stride < 4)
        return npuc_errf(err, NPUC_E_INVALID, "box encodings [1, %d, %d]: need at least 1 box of at least 4 values",
                         b.num_boxes, b.box_stride);
    if (cls->shape[1] != b.num_boxes)
        return npuc_errf(err, NPUC_E_INVALID, "class predictions have %d boxes, box encodings %d", cls->shape[1], b.num_boxes);
    if (anc->shape[1] != 4 || anc->shape[0] < b.num_boxes)
        return npuc_errf(err, NPUC_E_INVALID, "anchors [%d, %d]: need [%d, 4]", anc->shape[0], anc->shape[1], b.num_boxes);
    if (b.num_classes < 1 || (b.num_classes_bg != b.num_classes && b.num_classes_bg != b.num_classes + 1))
        return npuc_errf(err, NPUC_E_INVALID, "num_classes %d with %d class predictions per box (need num_classes >= 1, plus at most one background class)",
                         b.num_classes, b.num_classes_bg);
    if (b.max_detections < 0)
        return npuc_errf(err, NPUC_E_INVALID, "max_detections %d is negative", b.max_detections);
    if (!(b.iou_threshold > 0.0f && b.iou_threshold <= 1.0f))
        return npuc_errf(err, NPUC_E_INVALID, "nms_iou_threshold %g is outside (0, 1]", (double)b.iou_threshold);
    int32_t cats = 1;
    if (regular) {
        if (b.detections_per_class < 1)
            return npuc_errf(err, NPUC_E_INVALID, "detections_per_class %d must be positive", b.detections_per_class);
        b.max_classes_per_detection = 1; /* unused */
        b.out_slots = b.max_detections;
    } else {
        if (b.max_classes_per_detection < 1)
            return npuc_errf(err, NPUC_E_INVALID, "max_classes_per_detection %d must be positive",
                             b.max_classes_per_detection);
        b.detections_per_class = 1; /* unused */
        cats = b.max_classes_per_detection < b.num_classes ? b.max_classes_per_detection : b.num_classes;
        if ((int64_t)b.max_detections * cats > K_OP_MAX_DIM)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "max_detections x classes per detection is too large");
        b.out_slots = b.max_detections * cats;
    }
    const uint64_t slots = (uint64_t)b.out_slots;
    if ((rc = need_f32(interp_node_out_t(n, 0), "detection_boxes", slots * 4u, err)) ||
        (rc = need_f32(interp_node_out_t(n, 1), "detection_classes", slots, err)) ||
        (rc = need_f32(interp_node_out_t(n, 2), "detection_scores", slots, err)) ||
        (rc = need_f32(interp_node_out_t(n, 3), "num_detections", 1, err)))
        return rc;
    const uint64_t scratch = k_detect_scratch_bytes(&b);
    if (scratch == 0) return npuc_errf(err, NPUC_E_UNSUPPORTED, "the op's sizes are beyond the kernel's limits");
    k_op_detect_blob *p = interp_node_blob(n, K_OP_DETECTION_POSTPROCESS_F32, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    n->scratch_size = (size_t)scratch;
    return NPUC_OK;
}

/* ---- CIRCULAR_BUFFER ---- */

/* The op's cycles_max as TFLM's Init reads it: element 0 of the root
 * (the map's values ordered by key: 'cycles_max' is the only key), read
 * as an int; 0 without custom_options. */
static int circbuf_cycles_opt(const graph_op *op, int32_t *cycles, npuc_err *err)
{
    *cycles = 0;
    if (!op->custom_options || op->n_custom_options == 0) return NPUC_OK;
    flexbuf_map m;
    int64_t v = 0;
    int rc = flexbuf_root_map(op->custom_options, op->n_custom_options, &m, err);
    if (!rc) rc = flexbuf_elem_raw_int(&m, 0, &v, err);
    if (rc) return npuc_err_prefix(err, "custom_options (cycles_max)");
    *cycles = (int32_t)v;
    return NPUC_OK;
}

static bool is_circbuf(const graph_op *op)
{
    return op->opcode == TFL_OP_CUSTOM && op->custom_code && strcmp(op->custom_code, "CIRCULAR_BUFFER") == 0;
}

/* TFLM's Prepare replaces cycles_max <= 0 by 1 or 2 from the output shape
 * and a count of such ops prepared so far (a process-wide static there; in
 * npuc the count runs over this model's ops in order, as in a process that
 * prepares just this model). */
static int circbuf_cycles(const interp_node *n, int32_t *cycles, npuc_err *err)
{
    int rc = circbuf_cycles_opt(n->op, cycles, err);
    if (rc || *cycles > 0) return rc;
    int32_t count = 0;
    for (int32_t i = 0; i <= n->op_index && i < n->g->n_ops; i++) {
        const graph_op *o = &n->g->ops[i];
        if (!is_circbuf(o) || o->n_out < 1 || o->out[0] < 0) continue;
        int32_t c = 0;
        npuc_err e = {0};
        if (circbuf_cycles_opt(o, &c, &e) || c > 0) continue;
        const graph_tensor *t = &n->g->tensors[o->out[0]];
        if (t->rank != 4) continue;
        count++;
        if (t->shape[1] == 5 || t->shape[1] == 13 || t->shape[1] == 25 ||
            (count == 5 && t->shape[2] == 2 && t->shape[3] == 96)) {
            c = 1;
            count = 0;
        } else {
            c = 2;
        }
        if (i == n->op_index) *cycles = c;
    }
    return NPUC_OK;
}

static int prep_circbuf(interp_node *n, npuc_err *err)
{
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if (!in || !out) return npuc_errf(err, NPUC_E_INVALID, "needs an input and an output");
    if (in->rank != 4 || out->rank != 4)
        return npuc_errf(err, NPUC_E_INVALID, "input and output must have rank 4 (have %d, %d)", in->rank, out->rank);
    if (in->shape[0] != out->shape[0] || in->shape[1] != 1 || in->shape[2] != out->shape[2] ||
        in->shape[3] != out->shape[3])
        return npuc_errf(err, NPUC_E_INVALID, "input [%d, %d, %d, %d] must be [B, 1, H, C] of output [%d, %d, %d, %d]",
                         in->shape[0], in->shape[1], in->shape[2], in->shape[3], out->shape[0], out->shape[1],
                         out->shape[2], out->shape[3]);
    if (in->dtype != GRAPH_I8 || out->dtype != GRAPH_I8)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input %s, output %s: TFLite Micro's kernel handles int8 only",
                         graph_dtype_name(in->dtype), graph_dtype_name(out->dtype));
    if (out->shape[0] != 1)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "batch %d: only batch 1 is supported", out->shape[0]);
    k_op_circbuf_blob b = {0};
    if (out->shape[1] < 1 || out->shape[2] < 1 || out->shape[3] < 1 || (int64_t)out->shape[2] * out->shape[3] > K_OP_MAX_DIM)
        return npuc_errf(err, NPUC_E_INVALID, "output [1, %d, %d, %d] is empty or too large", out->shape[1], out->shape[2],
                         out->shape[3]);
    b.num_slots = out->shape[1];
    b.depth = out->shape[2] * out->shape[3];
    int rc = circbuf_cycles(n, &b.cycles_max, err);
    if (rc) return rc;
    b.zero_point = out->q.n >= 1 ? (int32_t)out->q.zero_point[0] : 0;
    const uint64_t persist = k_circbuf_persistent_bytes(&b);
    if (persist == 0) return npuc_errf(err, NPUC_E_UNSUPPORTED, "the buffer is beyond the kernel's limits");
    k_op_circbuf_blob *p = interp_node_blob(n, K_OP_CIRCULAR_BUFFER_S8, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    n->persistent_size = (size_t)persist;
    return NPUC_OK;
}

/* ---- PosenetDecoderOp (Coral) ---- */

/* Coral's options, read by key as its Init does (a missing key reads 0). */
static int posenet_opts(const graph_op *op, k_op_posenet_blob *b, npuc_err *err)
{
    if (!op->custom_options || op->n_custom_options == 0)
        return npuc_errf(err, NPUC_E_INVALID, "custom_options are missing (max_detections, score_threshold, stride, "
                         "nms_radius)");
    flexbuf_map m;
    int rc = flexbuf_root_map(op->custom_options, op->n_custom_options, &m, err);
    if (!rc) rc = opt_int(&m, "max_detections", 0, &b->max_detections, err);
    if (!rc) rc = opt_float(&m, "score_threshold", &b->score_threshold, err);
    if (!rc) rc = opt_int(&m, "stride", 0, &b->stride, err);
    if (!rc) rc = opt_float(&m, "nms_radius", &b->nms_radius, err);
    if (rc) return npuc_err_prefix(err, "custom_options");
    return NPUC_OK;
}

/* The outputs' shapes, as the decoder's Prepare sizes them: poses [1, D,
 * 17, 2], keypoint scores [1, D, 17], pose scores [1, D], count [1] (D =
 * max_detections). */
static bool posenet_out_shape(const graph_op *op, int32_t k, int32_t *rank, int32_t shape[GRAPH_MAX_RANK])
{
    k_op_posenet_blob b = {0};
    npuc_err e = {0};
    if (op->n_out != 4 || k < 0 || k > 3 || posenet_opts(op, &b, &e) || b.max_detections < 1 ||
        b.max_detections > 1000)
        return false;
    const int32_t D = b.max_detections;
    const int32_t s[4][4] = {
        {1, D, K_POSENET_KEYPOINTS, 2}, {1, D, K_POSENET_KEYPOINTS, 0}, {1, D, 0, 0}, {1, 0, 0, 0}};
    *rank = 4 - k;
    memcpy(shape, s[k], sizeof s[k]);
    return true;
}

static int prep_posenet(interp_node *n, npuc_err *err)
{
    const graph_op *op = n->op;
    if (op->n_in != 3 || op->n_out != 4)
        return npuc_errf(err, NPUC_E_INVALID, "expects 3 inputs and 4 outputs, has %d and %d", op->n_in, op->n_out);
    k_op_posenet_blob b = {0};
    int rc = posenet_opts(op, &b, err);
    if (rc) return rc;
    if (b.max_detections < 1 || b.max_detections > 1000)
        return npuc_errf(err, NPUC_E_INVALID, "max_detections %d is outside 1..1000", b.max_detections);
    if (b.stride < 1) return npuc_errf(err, NPUC_E_INVALID, "stride %d is not positive", b.stride);
    static const char *const what[3] = {"heatmaps", "short_offsets", "mid_offsets"};
    static const int32_t depth[3] = {K_POSENET_KEYPOINTS, 2 * K_POSENET_KEYPOINTS, 4 * K_POSENET_EDGES};
    for (int32_t i = 0; i < 3; i++) {
        const graph_tensor *t = interp_node_in_t(n, i);
        if (!t) return npuc_errf(err, NPUC_E_INVALID, "%s is missing", what[i]);
        if (t->dtype != GRAPH_U8 && t->dtype != GRAPH_F32)
            return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' is %s; Coral's kernel takes uint8 or float32", what[i],
                             t->name, graph_dtype_name(t->dtype));
        if (t->rank != 4 || t->shape[0] != 1 || t->shape[3] != depth[i])
            return npuc_errf(err, NPUC_E_INVALID, "%s '%s' must be [1, H, W, %d]", what[i], t->name, depth[i]);
        if (i == 0) {
            b.h = t->shape[1];
            b.w = t->shape[2];
        } else if (t->shape[1] != b.h || t->shape[2] != b.w) {
            return npuc_errf(err, NPUC_E_INVALID, "%s '%s' is %dx%d, the heatmaps %dx%d", what[i], t->name,
                             t->shape[1], t->shape[2], b.h, b.w);
        }
        b.type[i] = t->dtype == GRAPH_F32;
        b.scale[i] = t->dtype == GRAPH_F32 ? 1.0f : (t->q.n >= 1 ? t->q.scale[0] : 0.0f);
        b.zero_point[i] = t->dtype == GRAPH_F32 ? 0 : (t->q.n >= 1 ? (int32_t)t->q.zero_point[0] : 0);
        if (t->dtype == GRAPH_U8 && (t->q.n < 1 || b.zero_point[i] < 0 || b.zero_point[i] > 255))
            return npuc_errf(err, NPUC_E_INVALID, "%s '%s' has no uint8 quantization", what[i], t->name);
    }
    for (int32_t i = 0; i < 4; i++) {
        const graph_tensor *t = interp_node_out_t(n, i);
        if (!t) return npuc_errf(err, NPUC_E_INVALID, "output %d is missing", i);
        if (t->dtype != GRAPH_F32)
            return npuc_errf(err, NPUC_E_INVALID, "output %d '%s' is %s, the decoder writes float32", i, t->name,
                             graph_dtype_name(t->dtype));
        int32_t orank = 0, oshape[GRAPH_MAX_RANK];
        posenet_out_shape(op, i, &orank, oshape);
        if ((rc = interp_check_out_shape(t, oshape, orank, err))) return rc;
    }
    const uint64_t scratch = k_posenet_scratch_bytes(&b);
    if (scratch == 0 || scratch > UINT32_MAX)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "maps of %dx%d are beyond the kernel's limits", b.h, b.w);
    k_op_posenet_blob *p = interp_node_blob(n, K_OP_POSENET_DECODER, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    n->scratch_size = (size_t)scratch;
    return NPUC_OK;
}

static const interp_op_impl impls[] = {
    {TFL_OP_CUSTOM, prep_detect, "TFLite_Detection_PostProcess"},
    {TFL_OP_CUSTOM, prep_circbuf, "CIRCULAR_BUFFER"},
    {TFL_OP_CUSTOM, prep_posenet, "PosenetDecoderOp"},
};

INTERP_OPS_TABLE(interp_ops_custom, impls)

bool interp_custom_out_shape(const graph_op *op, int32_t k, int32_t *rank, int32_t shape[GRAPH_MAX_RANK])
{
    if (op->opcode == TFL_OP_CUSTOM && op->custom_code && !strcmp(op->custom_code, "PosenetDecoderOp"))
        return posenet_out_shape(op, k, rank, shape);
    return false;
}
