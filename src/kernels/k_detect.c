/* TFLite_Detection_PostProcess (K_OP_DETECTION_POSTPROCESS_F32): box
 * decoding with anchors and scales, then regular (per class) or fast
 * (best class per box) non-max suppression, as TFLite Micro's
 * detection_postprocess.cc computes it: the same float and double
 * operations in the same order, the same sorts (a stable descending
 * merge sort for the boxes above the score threshold, a descending partial
 * sort with ties to the lower index for the per-class and final picks), so
 * the outputs match bit for bit. docs/kernels-custom.md. */
#include "k_op_internal.h"

#include <math.h>

/* Scratch layout, in 4-byte words (nb boxes, md max_detections, nc classes):
 * decoded 4nb | class/max scores nb | keep_scores nb | keep_indices nb |
 * active nb | selected nb | sorted_indices md+nb | box_indices md+nb |
 * scores_after md+nb | sorted_values md+nb | class_indices nb*nc */
typedef struct layout {
    float *decoded, *cls_scores, *keep_scores;
    int32_t *keep_indices, *active, *selected, *sorted_indices, *box_indices;
    float *scores_after, *sorted_values;
    int32_t *class_indices;
} layout;

static uint64_t scratch_words(const k_op_detect_blob *b)
{
    const uint64_t nb = (uint64_t)b->num_boxes, md = (uint64_t)b->max_detections, nc = (uint64_t)b->num_classes;
    return 9u * nb + 4u * (md + nb) + k_op_mul(nb, nc);
}

static bool blob_ok(const k_op_detect_blob *b)
{
    if (!k_op_dim(b->num_boxes, 1) || !k_op_dim(b->box_stride, 4) || !k_op_dim(b->num_classes, 1)) return false;
    if (b->num_classes_bg != b->num_classes && b->num_classes_bg != b->num_classes + 1) return false;
    if (!k_op_dim(b->max_detections, 0) || !k_op_dim(b->max_classes_per_detection, 1) ||
        !k_op_dim(b->detections_per_class, 1))
        return false;
    if (b->use_regular_nms != 0 && b->use_regular_nms != 1) return false;
    if (!(b->iou_threshold > 0.0f && b->iou_threshold <= 1.0f)) return false;
    if (b->reserved != 0) return false;
    const int32_t cats = b->max_classes_per_detection < b->num_classes ? b->max_classes_per_detection : b->num_classes;
    const uint64_t slots = b->use_regular_nms ? (uint64_t)b->max_detections : k_op_mul((uint64_t)b->max_detections, (uint64_t)cats);
    if ((uint64_t)b->out_slots != slots || b->out_slots < 0) return false;
    /* work bounds: the inputs, and the O(n^2) NMS per class, in int32 */
    const uint64_t nb = (uint64_t)b->num_boxes;
    if (k_op_mul(k_op_mul(nb, (uint64_t)b->box_stride), 4) > UINT32_MAX) return false;
    if (k_op_mul(k_op_mul(nb, (uint64_t)b->num_classes_bg), 4) > UINT32_MAX) return false;
    if (k_op_mul(scratch_words(b), 4) > UINT32_MAX) return false;
    if ((uint64_t)b->max_detections + nb > INT32_MAX) return false;
    return true;
}

uint64_t k_detect_scratch_bytes(const k_op_detect_blob *b) { return blob_ok(b) ? scratch_words(b) * 4u : 0; }

static void make_layout(const k_op_detect_blob *b, void *scratch, layout *l)
{
    const size_t nb = (size_t)b->num_boxes, mn = (size_t)b->max_detections + nb;
    uint32_t *w = scratch;
    l->decoded = (float *)w;
    w += 4 * nb;
    l->cls_scores = (float *)w;
    w += nb;
    l->keep_scores = (float *)w;
    w += nb;
    l->keep_indices = (int32_t *)w;
    w += nb;
    l->active = (int32_t *)w;
    w += nb;
    l->selected = (int32_t *)w;
    w += nb;
    l->sorted_indices = (int32_t *)w;
    w += mn;
    l->box_indices = (int32_t *)w;
    w += mn;
    l->scores_after = (float *)w;
    w += mn;
    l->sorted_values = (float *)w;
    w += mn;
    l->class_indices = (int32_t *)w;
}

/* ---- sorting ---- */

/* Descending order of values[], ties to the lower index: the first k of
 * indices[0..n) (which is set to 0..n-1 first) end up sorted, the rest in
 * no particular order. A strict total order on non-NaN values, so any
 * selection gives the same first k as TFLM's std::partial_sort. */
static bool before_tie(const float *v, int32_t i, int32_t j) { return v[i] > v[j] || (!(v[j] > v[i]) && i < j); }

static void partial_argsort_desc(const float *values, int32_t n, int32_t k, int32_t *indices)
{
    for (int32_t i = 0; i < n; i++) indices[i] = i;
    for (int32_t p = 0; p < k && p < n; p++) {
        int32_t best = p;
        for (int32_t q = p + 1; q < n; q++)
            if (before_tie(values, indices[q], indices[best])) best = q;
        const int32_t t = indices[p];
        indices[p] = indices[best];
        indices[best] = t;
    }
}

/* Stable descending sort of indices by values: insertion sort (binary
 * search for the upper bound, then rotate) below 20 elements, else a
 * top-down merge sort through scratch, in TFLM's order of comparisons. */
static void insertion_sort_desc(const float *v, int32_t *a, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        const int32_t x = a[i];
        int32_t first = 0, len = i;
        while (len > 0) { /* upper bound: first p with v[x] > v[a[p]] */
            const int32_t half = len / 2, mid = first + half;
            if (v[x] > v[a[mid]]) {
                len = half;
            } else {
                first = mid + 1;
                len -= half + 1;
            }
        }
        for (int32_t p = i; p > first; p--) a[p] = a[p - 1];
        a[first] = x;
    }
}

static void merge_sort_desc(const float *v, int32_t *a, int32_t *scratch, int32_t n)
{
    if (n < 20) {
        insertion_sort_desc(v, a, n);
        return;
    }
    const int32_t half = n / 2;
    merge_sort_desc(v, a, scratch, half);
    merge_sort_desc(v, a + half, scratch, n - half);
    int32_t left = 0, right = half;
    for (int32_t i = 0; i < n; i++) {
        if (left >= half || (right < n && v[a[right]] > v[a[left]])) scratch[i] = a[right++];
        else scratch[i] = a[left++];
    }
    memcpy(a, scratch, (size_t)n * sizeof(int32_t));
}

/* ---- decode, IoU, single-class NMS ---- */

static void decode(const k_op_detect_blob *b, const float *enc, const float *anchors, float *out)
{
    const double sy = (double)b->y_scale, sx = (double)b->x_scale, sh = (double)b->h_scale, sw = (double)b->w_scale;
    for (int32_t i = 0; i < b->num_boxes; i++) {
        const float *e = enc + (size_t)i * (size_t)b->box_stride; /* y, x, h, w */
        const float *a = anchors + (size_t)i * 4u;                /* y, x, h, w */
        const float yc = (float)((double)e[0] / sy * (double)a[2] + (double)a[0]);
        const float xc = (float)((double)e[1] / sx * (double)a[3] + (double)a[1]);
        const float hh = (float)(0.5 * exp((double)e[2] / sh) * (double)a[2]);
        const float hw = (float)(0.5 * exp((double)e[3] / sw) * (double)a[3]);
        float *o = out + (size_t)i * 4u; /* ymin, xmin, ymax, xmax */
        o[0] = yc - hh;
        o[1] = xc - hw;
        o[2] = yc + hh;
        o[3] = xc + hw;
    }
}

static float max_f(float a, float b) { return a < b ? b : a; } /* std::max */
static float min_f(float a, float b) { return b < a ? b : a; } /* std::min */

static float iou(const float *boxes, int32_t i, int32_t j)
{
    const float *p = boxes + (size_t)i * 4u, *q = boxes + (size_t)j * 4u;
    const float area_i = (p[2] - p[0]) * (p[3] - p[1]);
    const float area_j = (q[2] - q[0]) * (q[3] - q[1]);
    if (area_i <= 0 || area_j <= 0) return 0.0f;
    const float ymin = max_f(p[0], q[0]), xmin = max_f(p[1], q[1]);
    const float ymax = min_f(p[2], q[2]), xmax = min_f(p[3], q[3]);
    const float inter = max_f(ymax - ymin, 0.0f) * max_f(xmax - xmin, 0.0f);
    return inter / (area_i + area_j - inter);
}

/* NMS over scores[0..nb): selected[] gets at most max_det box indices. */
static int32_t nms_single(const k_op_detect_blob *b, const layout *l, const float *scores, int32_t max_det)
{
    const int32_t nb = b->num_boxes;
    const float thr = b->score_threshold;
    int32_t kept = 0;
    for (int32_t i = 0; i < nb; i++)
        if (scores[i] >= thr) {
            l->keep_scores[kept] = scores[i];
            l->keep_indices[kept] = i;
            kept++;
        }
    /* keep_indices is the merge scratch, then refilled */
    for (int32_t i = 0; i < kept; i++) l->sorted_indices[i] = i;
    merge_sort_desc(l->keep_scores, l->sorted_indices, l->keep_indices, kept);
    kept = 0;
    for (int32_t i = 0; i < nb; i++)
        if (scores[i] >= thr) l->keep_indices[kept++] = i;
    const int32_t out_size = kept < max_det ? kept : max_det;
    int32_t n_sel = 0, active_left = kept;
    for (int32_t i = 0; i < kept; i++) l->active[i] = 1;
    for (int32_t i = 0; i < kept; i++) {
        if (active_left == 0 || n_sel >= out_size) break;
        if (l->active[i] != 1) continue;
        const int32_t bi = l->keep_indices[l->sorted_indices[i]];
        l->selected[n_sel++] = bi;
        l->active[i] = 0;
        active_left--;
        for (int32_t j = i + 1; j < kept; j++) {
            if (l->active[j] != 1) continue;
            if (iou(l->decoded, bi, l->keep_indices[l->sorted_indices[j]]) > b->iou_threshold) {
                l->active[j] = 0;
                active_left--;
            }
        }
    }
    return n_sel;
}

static bool boxes_valid(const k_op_detect_blob *b, const float *d)
{
    for (int32_t i = 0; i < b->num_boxes; i++) {
        const float *p = d + (size_t)i * 4u;
        if (p[0] >= p[2] || p[1] >= p[3]) return false;
    }
    return true;
}

/* ---- the two NMS modes ---- */

static void nms_regular(const k_op_detect_blob *b, const layout *l, const float *scores, float *boxes, float *classes,
                        float *out_scores, float *num)
{
    const int32_t nb = b->num_boxes, ncb = b->num_classes_bg, md = b->max_detections;
    const int32_t label_offset = ncb - b->num_classes;
    int32_t n_sorted = 0;
    for (int32_t c = 0; c < b->num_classes; c++) {
        for (int32_t r = 0; r < nb; r++) l->cls_scores[r] = scores[(size_t)r * (size_t)ncb + (size_t)(c + label_offset)];
        const int32_t n_sel = nms_single(b, l, l->cls_scores, b->detections_per_class);
        int32_t n = n_sorted;
        for (int32_t i = 0; i < n_sel; i++) {
            const int32_t s = l->selected[i];
            l->box_indices[n] = s * ncb + c + label_offset;
            l->scores_after[n] = l->cls_scores[s];
            n++;
        }
        const int32_t k = n < md ? n : md;
        partial_argsort_desc(l->scores_after, n, k, l->sorted_indices);
        for (int32_t r = 0; r < k; r++) {
            const int32_t t = l->sorted_indices[r];
            l->sorted_indices[r] = l->box_indices[t];
            l->sorted_values[r] = l->scores_after[t];
        }
        for (int32_t r = 0; r < k; r++) {
            l->box_indices[r] = l->sorted_indices[r];
            l->scores_after[r] = l->sorted_values[r];
        }
        n_sorted = k;
    }
    for (int32_t o = 0; o < md; o++) {
        float *bo = boxes + (size_t)o * 4u;
        if (o < n_sorted) {
            const int32_t anchor = l->box_indices[o] / ncb;
            const int32_t cls = l->box_indices[o] - anchor * ncb - label_offset;
            memcpy(bo, l->decoded + (size_t)anchor * 4u, 4u * sizeof(float));
            classes[o] = (float)cls;
            out_scores[o] = l->scores_after[o];
        } else {
            bo[0] = bo[1] = bo[2] = bo[3] = 0.0f;
            classes[o] = 0.0f;
            out_scores[o] = 0.0f;
        }
    }
    num[0] = (float)n_sorted;
}

/* Fast NMS. With min(max_classes_per_detection, num_classes) == 1 exactly
 * TFLM; above 1 TFLM advances its output index inside the class loop and
 * writes past its outputs: npuc advances it once per box instead (box i's
 * classes at slots cats*i .. cats*i+cats-1, num_detections = boxes kept),
 * docs/kernels-custom.md. Slots past the detections are left untouched. */
static void nms_fast(const k_op_detect_blob *b, const layout *l, const float *scores, float *boxes, float *classes,
                     float *out_scores, float *num)
{
    const int32_t nb = b->num_boxes, ncb = b->num_classes_bg, nc = b->num_classes;
    const int32_t label_offset = ncb - nc;
    const int32_t cats = b->max_classes_per_detection < nc ? b->max_classes_per_detection : nc;
    for (int32_t r = 0; r < nb; r++) {
        const float *bs = scores + (size_t)r * (size_t)ncb + (size_t)label_offset;
        int32_t *ci = l->class_indices + (size_t)r * (size_t)nc;
        partial_argsort_desc(bs, nc, cats, ci);
        l->cls_scores[r] = bs[ci[0]];
    }
    const int32_t n_sel = nms_single(b, l, l->cls_scores, b->max_detections);
    for (int32_t i = 0; i < n_sel; i++) {
        const int32_t s = l->selected[i];
        const float *bs = scores + (size_t)s * (size_t)ncb + (size_t)label_offset;
        const int32_t *ci = l->class_indices + (size_t)s * (size_t)nc;
        for (int32_t c = 0; c < cats; c++) {
            const size_t o = (size_t)i * (size_t)cats + (size_t)c;
            memcpy(boxes + o * 4u, l->decoded + (size_t)s * 4u, 4u * sizeof(float));
            classes[o] = (float)ci[c];
            out_scores[o] = bs[ci[c]];
        }
    }
    num[0] = (float)n_sel;
}

int k_detect_run(const uint8_t *blob, uint32_t size, const k_op_io *io);

int k_detect_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_detect_blob b;
    K_OP_LOAD(b, blob, size);
    if (!blob_ok(&b)) return K_E_INVALID;
    if (!io) return K_OK;
    const uint64_t nb = (uint64_t)b.num_boxes, slots = (uint64_t)b.out_slots;
    void *enc, *sc, *anc, *ob, *oc, *os, *on, *scr;
    int rc = k_op_in(io, 0, nb * (uint64_t)b.box_stride * 4u, 4, &enc);
    if (!rc) rc = k_op_in(io, 1, nb * (uint64_t)b.num_classes_bg * 4u, 4, &sc);
    if (!rc) rc = k_op_in(io, 2, nb * 16u, 4, &anc);
    if (!rc) rc = k_op_out(io, 0, slots * 16u, 4, &ob);
    if (!rc) rc = k_op_out(io, 1, slots * 4u, 4, &oc);
    if (!rc) rc = k_op_out(io, 2, slots * 4u, 4, &os);
    if (!rc) rc = k_op_out(io, 3, 4u, 4, &on);
    if (!rc) rc = k_op_scratch(io, scratch_words(&b) * 4u, 4, &scr);
    if (rc) return rc;
    layout l;
    make_layout(&b, scr, &l);
    decode(&b, enc, anc, l.decoded);
    /* TFLM validates the decoded boxes in every single-class NMS (it fails
     * the invocation when one has ymin >= ymax or xmin >= xmax); they do
     * not change between classes, so once is the same. */
    if (!boxes_valid(&b, l.decoded)) return K_E_UNSUPPORTED;
    if (b.use_regular_nms) nms_regular(&b, &l, sc, ob, oc, os, on);
    else nms_fast(&b, &l, sc, ob, oc, os, on);
    return K_OK;
}
