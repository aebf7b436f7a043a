/* Coral's PosenetDecoderOp (k_op_custom.h, docs/kernels-custom.md):
 * multi-person pose decoding (PersonLab, arXiv 1803.08225) as Coral's
 * decoder computes it, float for float: candidate roots are the local
 * maxima of the keypoint heatmaps (logits) above the threshold's log odds,
 * taken strongest first; each root's pose is grown along the skeleton's
 * edges by the mid-range offsets, refined by the short-range offsets, the
 * strongest keypoint first; roots near a keypoint of a pose already found
 * are skipped; the poses are rescored by soft keypoint NMS and sorted.
 *
 * The order of equal scores is part of the result (the instance score is
 * a float sum in sorted order), so the priority queues and the sorts here
 * are the ones Coral's C++ gets from GCC's standard library: a binary heap
 * (push_heap / pop_heap) and introsort (median-of-three quicksort down to
 * 16 elements, heapsort past the depth limit, then insertion sort), each
 * step as that library takes it. */
#include "k_op_internal.h"

#include <math.h>

#define NK K_POSENET_KEYPOINTS
#define NE K_POSENET_EDGES
#define REFINE_STEPS 5
#define DECODE_QUEUE 64     /* a pose pushes at most 1 + 32 candidates */

typedef struct kpt {
    float y, x;
    int32_t id;
    float score;
} kpt;

/* The skeleton: 16 forward edges, then the same 16 backward. */
static const uint8_t edge_from[2 * NE] = {0, 1, 0, 2, 0, 5, 7, 5, 11, 13, 0, 6, 8, 6, 12, 14,
                                          1, 3, 2, 4, 5, 7, 9, 11, 13, 15, 6, 8, 10, 12, 14, 16};
static const uint8_t edge_to[2 * NE] = {1, 3, 2, 4, 5, 7, 9, 11, 13, 15, 6, 8, 10, 12, 14, 16,
                                        0, 1, 0, 2, 0, 5, 7, 5, 11, 13, 0, 6, 8, 6, 12, 14};

/* ---- the standard library's heap and sort, step for step ---------------------------- */

/* Heap of kpt ordered by score (a max-heap: less(a, b) = a.score < b.score). */
static void heap_push_hole(kpt *h, int64_t hole, int64_t top, kpt v)
{
    int64_t parent = (hole - 1) / 2;
    while (hole > top && h[parent].score < v.score) {
        h[hole] = h[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    h[hole] = v;
}

static void heap_adjust(kpt *h, int64_t hole, int64_t len, kpt v)
{
    const int64_t top = hole;
    int64_t second = hole;
    while (second < (len - 1) / 2) {
        second = 2 * (second + 1);
        if (h[second].score < h[second - 1].score) second--;
        h[hole] = h[second];
        hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
        second = 2 * (second + 1);
        h[hole] = h[second - 1];
        hole = second - 1;
    }
    heap_push_hole(h, hole, top, v);
}

static void heap_push(kpt *h, int64_t *n, kpt v)
{
    h[*n] = v;
    (*n)++;
    heap_push_hole(h, *n - 1, 0, h[*n - 1]);
}

static kpt heap_pop(kpt *h, int64_t *n)
{
    const kpt top = h[0];
    if (*n > 1) {
        const kpt v = h[*n - 1];
        h[*n - 1] = h[0];
        heap_adjust(h, 0, *n - 1, v);
    }
    (*n)--;
    return top;
}

/* Indices sorted by decreasing value: comp(i, j) = v[i] > v[j]. */
static inline bool cmp_dec(const float *v, int32_t a, int32_t b) { return v[a] > v[b]; }

static void idx_adjust(int32_t *f, int64_t hole, int64_t len, int32_t val, const float *v)
{
    const int64_t top = hole;
    int64_t second = hole;
    while (second < (len - 1) / 2) {
        second = 2 * (second + 1);
        if (cmp_dec(v, f[second], f[second - 1])) second--;
        f[hole] = f[second];
        hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
        second = 2 * (second + 1);
        f[hole] = f[second - 1];
        hole = second - 1;
    }
    int64_t parent = (hole - 1) / 2;
    while (hole > top && cmp_dec(v, f[parent], val)) {
        f[hole] = f[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    f[hole] = val;
}

/* heapsort: make_heap, then pop_heap to the end */
static void idx_heapsort(int32_t *f, int64_t len, const float *v)
{
    if (len >= 2)
        for (int64_t parent = (len - 2) / 2;; parent--) {
            idx_adjust(f, parent, len, f[parent], v);
            if (parent == 0) break;
        }
    for (int64_t last = len; last > 1;) {
        last--;
        const int32_t val = f[last];
        f[last] = f[0];
        idx_adjust(f, 0, last, val, v);
    }
}

static inline void iswap(int32_t *a, int32_t *b)
{
    const int32_t t = *a;
    *a = *b;
    *b = t;
}

static void idx_introsort(int32_t *first, int32_t *last, int32_t depth, const float *v)
{
    while (last - first > 16) {
        if (depth == 0) {
            idx_heapsort(first, last - first, v);
            return;
        }
        depth--;
        /* the median of first + 1, the middle and last - 1 moved to first */
        int32_t *a = first + 1, *b = first + (last - first) / 2, *c = last - 1;
        if (cmp_dec(v, *a, *b)) {
            if (cmp_dec(v, *b, *c)) iswap(first, b);
            else if (cmp_dec(v, *a, *c)) iswap(first, c);
            else iswap(first, a);
        } else if (cmp_dec(v, *a, *c)) {
            iswap(first, a);
        } else if (cmp_dec(v, *b, *c)) {
            iswap(first, c);
        } else {
            iswap(first, b);
        }
        /* unguarded partition of [first + 1, last) around *first */
        int32_t *lo = first + 1, *hi = last;
        for (;;) {
            while (cmp_dec(v, *lo, *first)) lo++;
            hi--;
            while (cmp_dec(v, *first, *hi)) hi--;
            if (!(lo < hi)) break;
            iswap(lo, hi);
            lo++;
        }
        idx_introsort(lo, last, depth, v);
        last = lo;
    }
}

static void idx_linear_insert(int32_t *p, const float *v)
{
    const int32_t val = *p;
    int32_t *next = p - 1;
    while (cmp_dec(v, val, *next)) {
        *p = *next;
        p = next;
        next--;
    }
    *p = val;
}

static void idx_insertion(int32_t *first, int32_t *last, const float *v)
{
    if (first == last) return;
    for (int32_t *i = first + 1; i != last; i++) {
        if (cmp_dec(v, *i, *first)) {
            const int32_t val = *i;
            memmove(first + 1, first, sizeof *first * (size_t)(i - first));
            *first = val;
        } else {
            idx_linear_insert(i, v);
        }
    }
}

/* Coral's DecreasingArgSort: iota, then std::sort with comp above. */
static void argsort_dec(const float *v, int32_t n, int32_t *idx)
{
    for (int32_t i = 0; i < n; i++) idx[i] = i;
    if (n == 0) return;
    int32_t lg = 0;
    while (((int64_t)1 << (lg + 1)) <= n) lg++;
    idx_introsort(idx, idx + n, 2 * lg, v);
    if (n > 16) {
        idx_insertion(idx, idx + 16, v);
        for (int32_t *i = idx + 16; i != idx + n; i++) idx_linear_insert(i, v);
    } else {
        idx_insertion(idx, idx + n, v);
    }
}

/* ---- the decoder ---------------------------------------------------------------------- */

typedef struct dec {
    const float *scores, *shorts, *mids;
    int32_t h, w;
} dec;

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : hi < v ? hi : v; }

static void lerp1(float x, int32_t n, int32_t *fl, int32_t *ce, float *t)
{
    const float xp = clampf(x, 0.0f, (float)n - 1.0f);
    *fl = (int32_t)floorf(xp);
    *ce = (int32_t)ceilf(xp);
    *t = x - (float)*fl;
}

/* Bilinear samples of tensor [h, w, nc] at (y, x), channels ch[0..n). */
static void sample(const dec *d, const float *t, int32_t nc, float y, float x, const int32_t *ch, int32_t n, float *out)
{
    int32_t yf, yc, xf, xc;
    float yl, xl;
    lerp1(y, d->h, &yf, &yc, &yl);
    lerp1(x, d->w, &xf, &xc, &xl);
    const int32_t tl = (yf * d->w + xf) * nc, tr = (yf * d->w + xc) * nc, bl = (yc * d->w + xf) * nc,
                  br = (yc * d->w + xc) * nc;
    for (int32_t i = 0; i < n; i++) {
        const int32_t c = ch[i];
        out[i] = (1 - yl) * ((1 - xl) * t[tl + c] + xl * t[tr + c]) + yl * ((1 - xl) * t[bl + c] + xl * t[br + c]);
    }
}

static float sample1(const dec *d, const float *t, int32_t nc, float y, float x, int32_t c)
{
    float r;
    sample(d, t, nc, y, x, &c, 1, &r);
    return r;
}

static float sqdist(float ay, float ax, float by, float bx)
{
    const float dy = by - ay, dx = bx - ax;
    return dy * dy + dx * dx;
}

/* Along the mid-range offsets of edge, then REFINE_STEPS short-range steps. */
static void displaced(const dec *d, float y, float x, int32_t edge, int32_t target, float *oy, float *ox)
{
    float off[2];
    int32_t ch[2] = {edge, NE + edge};
    sample(d, d->mids, 2 * 2 * NE, y, x, ch, 2, off);
    y = clampf(y + off[0], 0.0f, (float)d->h - 1.0f);
    x = clampf(x + off[1], 0.0f, (float)d->w - 1.0f);
    ch[0] = target;
    ch[1] = NK + target;
    for (int32_t i = 0; i < REFINE_STEPS; i++) {
        sample(d, d->shorts, 2 * NK, y, x, ch, 2, off);
        y = clampf(y + off[0], 0.0f, (float)d->h - 1.0f);
        x = clampf(x + off[1], 0.0f, (float)d->w - 1.0f);
    }
    *oy = y;
    *ox = x;
}

/* One pose from root: pts[k] (y, x) and sc[k] (logits) of its keypoints. */
static void backtrack(const dec *d, kpt root, kpt *queue, float *pts, float *sc)
{
    int64_t n = 0;
    root.score = sample1(d, d->scores, NK, root.y, root.x, root.id);
    heap_push(queue, &n, root);
    bool done[NK] = {false};
    while (n > 0) {
        const kpt cur = heap_pop(queue, &n);
        if (done[cur.id]) continue;
        pts[2 * cur.id] = cur.y;
        pts[2 * cur.id + 1] = cur.x;
        sc[cur.id] = cur.score;
        done[cur.id] = true;
        for (int32_t k = 0; k < 2 * NE; k++) {
            if (edge_from[k] != cur.id) continue;
            const int32_t child = edge_to[k];
            if (done[child]) continue;
            /* Coral's offset of the backward edges (its test is > 16, so
             * edge 16 reads the forward block) */
            const int32_t edge = k > NE ? k + NE : k;
            kpt c;
            displaced(d, cur.y, cur.x, edge, child, &c.y, &c.x);
            c.id = child;
            c.score = sample1(d, d->scores, NK, c.y, c.x, child);
            if (n < DECODE_QUEUE) heap_push(queue, &n, c);
        }
    }
}

uint64_t k_posenet_scratch_bytes(const k_op_posenet_blob *b)
{
    if (!k_op_dim(b->h, 1) || !k_op_dim(b->w, 1) || !k_op_in_range(b->max_detections, 1, 1 << 20)) return 0;
    const uint64_t cells = k_op_mul((uint64_t)b->h, (uint64_t)b->w);
    const uint64_t d = (uint64_t)b->max_detections;
    return k_op_mul(cells, 4u * (NK + 2 * NK + 4 * NE)) + k_op_mul(cells, 16u * NK) + 16u * DECODE_QUEUE +
           d * (4u * 3 * NK + 8) + 4u * NK;
}

static bool posenet_ok(const k_op_posenet_blob *b)
{
    if (k_posenet_scratch_bytes(b) == 0 || k_posenet_scratch_bytes(b) > UINT32_MAX || b->stride < 1 ||
        !isfinite(b->score_threshold) || !isfinite(b->nms_radius))
        return false;
    for (int i = 0; i < 3; i++) {
        if (b->type[i] != 0 && b->type[i] != 1) return false;
        if (!isfinite(b->scale[i]) || (b->type[i] == 0 && !k_op_in_range(b->zero_point[i], 0, 255))) return false;
    }
    return true;
}

/* DequantizeTensor: uint8 (x - zp) * (scale * extra), float32 x * extra. */
static void dequant(const void *src, int32_t type, float scale, int32_t zp, float extra, size_t n, float *dst)
{
    if (type == 0) {
        const uint8_t *s = src;
        const float z = (float)zp, q = scale * extra;
        for (size_t i = 0; i < n; i++) dst[i] = ((float)s[i] - z) * q;
    } else {
        const float *s = src;
        for (size_t i = 0; i < n; i++) dst[i] = s[i] * extra;
    }
}

int k_posenet_run(const uint8_t *blob, uint32_t size, const k_op_io *io);

int k_posenet_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_posenet_blob b;
    K_OP_LOAD(b, blob, size);
    if (!posenet_ok(&b)) return K_E_INVALID;
    if (!io) return K_OK;
    const size_t cells = (size_t)b.h * (size_t)b.w, D = (size_t)b.max_detections;
    const size_t n_in[3] = {cells * NK, cells * 2 * NK, cells * 4 * NE};
    void *in[3], *pk, *pks, *pps, *pn, *scratch;
    int rc = K_OK;
    for (int i = 0; i < 3 && !rc; i++) rc = k_op_in(io, i, n_in[i] * (b.type[i] ? 4u : 1u), b.type[i] ? 4 : 1, &in[i]);
    if (!rc) rc = k_op_out(io, 0, 4u * D * NK * 2, 4, &pk);
    if (!rc) rc = k_op_out(io, 1, 4u * D * NK, 4, &pks);
    if (!rc) rc = k_op_out(io, 2, 4u * D, 4, &pps);
    if (!rc) rc = k_op_out(io, 3, 4, 4, &pn);
    if (!rc) rc = k_op_scratch(io, k_posenet_scratch_bytes(&b), 4, &scratch);
    if (rc) return rc;
    /* the scratch: the three maps in float, the root heap, the decode
     * heap, the poses found, their keypoint scores, their instance scores
     * and order, one pose's keypoint order */
    float *hm = scratch, *so = hm + n_in[0], *mo = so + n_in[1];
    kpt *roots = (kpt *)(void *)(mo + n_in[2]), *queue = roots + cells * NK;
    float *poses = (float *)(void *)(queue + DECODE_QUEUE), *kscores = poses + D * NK * 2, *inst = kscores + D * NK;
    int32_t *order = (int32_t *)(void *)(inst + D), *kidx = order + D;
    const float extra = (float)(1.0 / b.stride);
    dequant(in[0], b.type[0], b.scale[0], b.zero_point[0], 1.0f, n_in[0], hm);
    dequant(in[1], b.type[1], b.scale[1], b.zero_point[1], extra, n_in[1], so);
    dequant(in[2], b.type[2], b.scale[2], b.zero_point[2], extra, n_in[2], mo);
    const dec d = {hm, so, mo, b.h, b.w};
    const float nms_radius = b.nms_radius / (float)b.stride, r2 = nms_radius * nms_radius;
    const float min_logit = (float)-log(1.0f / ((double)b.score_threshold + 1E-6) - 1.0f);

    /* the roots: local maxima (radius 1) at or above the threshold, at
     * their short-offset refined positions */
    int64_t n_roots = 0;
    for (int32_t y = 0, si = 0; y < b.h; y++)
        for (int32_t x = 0; x < b.w; x++)
            for (int32_t j = 0; j < NK; j++, si++) {
                const float s = hm[si];
                if (!(s >= min_logit)) continue;
                bool maximum = true;
                for (int32_t yy = y > 0 ? y - 1 : 0; yy < (y + 2 < b.h ? y + 2 : b.h) && maximum; yy++)
                    for (int32_t xx = x > 0 ? x - 1 : 0; xx < (x + 2 < b.w ? x + 2 : b.w); xx++)
                        if (hm[((size_t)yy * (size_t)b.w + (size_t)xx) * NK + (size_t)j] > s) {
                            maximum = false;
                            break;
                        }
                if (!maximum) continue;
                const size_t oi = 2 * ((size_t)si - (size_t)j) + (size_t)j;
                kpt r;
                r.y = clampf((float)y + so[oi], 0.0f, (float)b.h - 1.0f);
                r.x = clampf((float)x + so[oi + NK], 0.0f, (float)b.w - 1.0f);
                r.id = j;
                r.score = s;
                heap_push(roots, &n_roots, r);
            }

    int32_t found = 0;
    while ((size_t)found < D && n_roots > 0) {
        const kpt root = heap_pop(roots, &n_roots);
        bool pass = true;
        for (int32_t p = 0; p < found && pass; p++) {
            const float *q = poses + (size_t)p * NK * 2 + 2 * (size_t)root.id;
            pass = !(sqdist(root.y, root.x, q[0], q[1]) <= r2);
        }
        if (!pass) continue;
        float *pts = poses + (size_t)found * NK * 2, *sc = kscores + (size_t)found * NK;
        for (int32_t k = 0; k < NK; k++) {
            pts[2 * k] = pts[2 * k + 1] = -1.0f;
            sc[k] = -1E5f;
        }
        backtrack(&d, root, queue, pts, sc);
        for (int32_t k = 0; k < NK; k++) sc[k] = 1.0f / (1.0f + expf(-sc[k]));
        argsort_dec(sc, NK, kidx);
        float score = 0.0f;
        for (int32_t k = 0; k < NK; k++) score += sc[kidx[k]];
        score /= NK;
        if (score >= b.score_threshold) inst[found++] = score;
    }

    /* soft keypoint NMS in decreasing instance order, then the final order */
    argsort_dec(inst, found, order);
    for (int32_t i = 0; i < found; i++) {
        const int32_t cur = order[i];
        bool occluded[NK] = {false};
        const float *pc = poses + (size_t)cur * NK * 2;
        for (int32_t j = 0; j < i; j++) {
            const float *pp = poses + (size_t)order[j] * NK * 2;
            for (int32_t k = 0; k < NK; k++)
                if (sqdist(pc[2 * k], pc[2 * k + 1], pp[2 * k], pp[2 * k + 1]) <= r2) occluded[k] = true;
        }
        const float *sc = kscores + (size_t)cur * NK;
        argsort_dec(sc, NK, kidx);
        float total = 0.0f;
        for (int32_t k = 0; k < NK; k++)
            if (!occluded[kidx[k]]) total += sc[kidx[k]];
        inst[cur] = total / NK;
    }
    argsort_dec(inst, found, order);

    float *ok = pk, *oks = pks, *ops = pps;
    memset(ok, 0, 4u * D * NK * 2);
    memset(oks, 0, 4u * D * NK);
    memset(ops, 0, 4u * D);
    int32_t count = 0;
    for (int32_t i = 0; i < found; i++) {
        const int32_t idx = order[i];
        if (inst[idx] < b.score_threshold) break;
        const float *pp = poses + (size_t)idx * NK * 2;
        for (int32_t k = 0; k < NK; k++) {
            ok[((size_t)count * NK + (size_t)k) * 2] = pp[2 * k] * (float)b.stride;
            ok[((size_t)count * NK + (size_t)k) * 2 + 1] = pp[2 * k + 1] * (float)b.stride;
        }
        memcpy(oks + (size_t)count * NK, kscores + (size_t)idx * NK, 4u * NK);
        ops[count] = inst[idx];
        count++;
    }
    const float fc = (float)count;
    memcpy(pn, &fc, 4);
    return K_OK;
}
