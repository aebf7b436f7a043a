/* kernels: prepared-op kinds of the custom family: custom operators TFLite Micro ships: TFLite_Detection_PostProcess, CIRCULAR_BUFFER.
 *
 * Kind numbers 470..489 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_CUSTOM ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_custom (k_op_custom.c).
 * docs/kernels-custom.md describes both operators. */
#ifndef NPUC_K_OP_CUSTOM_H
#define NPUC_K_OP_CUSTOM_H

#include "k_common.h"

enum {
    K_OP_CUSTOM_FIRST = 470,
    K_OP_CUSTOM_LAST = 489
};

enum {
    /* k_op_detect_blob. in: box_encodings f32 [1, num_boxes, box_stride],
     * class_predictions f32 [1, num_boxes, num_classes_bg], anchors f32
     * [num_boxes, 4]  out: detection_boxes f32 [out_slots, 4],
     * detection_classes f32 [out_slots], detection_scores f32 [out_slots],
     * num_detections f32 [1]; scratch: k_detect_scratch_bytes */
    K_OP_DETECTION_POSTPROCESS_F32 = 470,
    /* k_op_circbuf_blob. in: input s8 [depth]  out: output s8
     * [num_slots * depth]; persistent: k_circbuf_persistent_bytes.
     * Returns K_OP_NOT_READY when the caller must end this invocation
     * (TFLite Micro's kTfLiteAbort: the stride period is not reached). */
    K_OP_CIRCULAR_BUFFER_S8 = 471
};

/* TFLite_Detection_PostProcess. use_regular_nms 1: per-class NMS
 * (detections_per_class each) then the best max_detections over all
 * classes; 0: fast NMS on each box's best class score. out_slots: the
 * detection slots the outputs hold (max_detections, times
 * min(max_classes_per_detection, num_classes) in fast mode). */
typedef struct k_op_detect_blob {
    int32_t num_boxes;         /* >= 1 */
    int32_t box_stride;        /* floats per box encoding, >= 4 (extra values ignored) */
    int32_t num_classes;       /* >= 1 */
    int32_t num_classes_bg;    /* num_classes or num_classes + 1 (background first) */
    int32_t max_detections;    /* >= 0 */
    int32_t max_classes_per_detection; /* fast NMS: >= 1 */
    int32_t detections_per_class;      /* regular NMS: >= 1 */
    int32_t use_regular_nms;   /* 0 or 1 */
    float score_threshold;
    float iou_threshold;       /* in (0, 1] */
    float y_scale, x_scale, h_scale, w_scale;
    int32_t out_slots;
    int32_t reserved;          /* 0 */
} k_op_detect_blob;
_Static_assert(sizeof(k_op_detect_blob) == 64, "k_op_detect_blob: 16 four-byte fields");

/* Scratch bytes K_OP_DETECTION_POSTPROCESS_F32 needs for blob b (0 when the
 * blob's counts are out of range). */
uint64_t k_detect_scratch_bytes(const k_op_detect_blob *b);

/* CIRCULAR_BUFFER: keeps the last num_slots input frames of depth int8
 * values; the op completes (K_OK) every cycles_max-th invocation and asks
 * for the invocation to end (K_OP_NOT_READY) on the others. The frames
 * start at zero_point (the output is a variable tensor in TFLite Micro). */
typedef struct k_op_circbuf_blob {
    int32_t num_slots;   /* >= 1 */
    int32_t depth;       /* >= 1 */
    int32_t cycles_max;  /* >= 1 */
    int32_t zero_point;  /* [-128, 127] */
} k_op_circbuf_blob;
_Static_assert(sizeof(k_op_circbuf_blob) == 16, "k_op_circbuf_blob: 4 four-byte fields");

/* Persistent bytes: an 8-byte header (cycle counter, initialised flag)
 * then the frames. 0 when the blob's counts are out of range. */
uint64_t k_circbuf_persistent_bytes(const k_op_circbuf_blob *b);

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_CUSTOM                                                        \
    [K_OP_DETECTION_POSTPROCESS_F32] = {"detection_postprocess_f32", F_CUSTOM, 0}, \
    [K_OP_CIRCULAR_BUFFER_S8] = {"circular_buffer_s8", F_CUSTOM, 0},

#endif
