/* lower_pool: MAX_POOL_2D, AVERAGE_POOL_2D, MEAN, SUM, REDUCE_MAX and
 * REDUCE_MIN as NPU pools; ARG_MAX and ARG_MIN as MAX pools over keys that
 * elementwise ops make (their section below).
 *
 * MAX_POOL_2D / AVERAGE_POOL_2D: one POOL op on raw values (TFLite pools
 * without zero points). An unpadded average takes Vela's global scale
 * (docs/ethos-u.md 5.5), checked at compile time against TFLite's rounded mean
 * for every sum its taps can produce; a padded one the hardware's average
 * over the valid taps. Strides above 3 (KERNEL_STRIDE takes 1..3,
 * docs/ethos-u.md 2.3): an axis with one output takes stride 1, others
 * become one op per output band over the input slice it reads (pool_bands).
 *
 * MEAN (int8, int16): AVERAGE pools with a global scale.
 *
 * The reference (k_mean.c, TFLite Micro's QuantizedMeanOrSum) computes per
 * output element
 *
 *     out = clamp(MBQM(S - zi * n, m', s') + zo)
 *
 * where S is the sum of the n reduced inputs, (m, s) = QuantizeMultiplier
 * (s_in / s_out), sh = min(floor(log2 n), 32, 31 + s), m' = (m << sh) / n,
 * s' = s - sh, and MBQM is TFLite's double-rounding multiply.
 *
 * An AVERAGE pool in global-scale mode computes R_TFL(sum of (x - zi) over
 * the window, m, 31 - s') + zo, clamped (docs/ethos-u.md 5.5, 5.6). With the
 * window equal to the reduced block that is A = S - zi * n, and TFL rounding
 * with (m', 31 - s') equals MBQM(A, m', s') for every A that fits int32 and
 * any m' >= 0 (the proof of docs/ethos-u.md 5.6 never uses m' >= 2^30, which
 * m' / n breaks):
 *  - s' >= 0 (left shift l = s', hardware shift 31 - l >= 1):
 *    SRDHM(A * 2^l, m') = floor((A m' 2^l + 2^30) / 2^31)
 *                       = floor((A m' + 2^(30 - l)) / 2^(31 - l)), which is
 *    R_TFL for a shift <= 31, provided A * 2^l does not wrap in int32;
 *  - s' = -r < 0 (r = 1..31): y = floor((A m' + 2^30) / 2^31), then
 *    RoundingDivideByPOT(y, r): for A >= 0 this is
 *    floor((A m' + 2^30 + 2^(30 + r)) / 2^(31 + r)), for y < 0
 *    floor((A m' - 2^30 + 2^(30 + r)) / 2^(31 + r)), and for A < 0 with
 *    y = 0 both sides give 0: exactly R_TFL with its +-2^30 term (s > 31).
 * So the form is exact when |A| * 2^max(s', 0) < 2^31 for every input
 * (then neither the reference's wrapping int32 sum nor its shift wraps, and
 * the NPU's 32-bit pooling accumulator holds A) and -31 <= s' <= 30 (the
 * reference's RoundingDivideByPOT is only defined up to 31).
 *
 * Geometry: size-1 dims are dropped and neighbouring dims that are both
 * reduced or both kept are merged, giving [K] [R] [K2] (outer kept, reduced,
 * inner kept). The tensor is viewed as K x R x K2 with a 1 x R window
 * (K = 1: R1 x R2 x K2 with R = R1 R2), the output (same bytes for any
 * keep_dims) as K x 1 x K2. Windows beyond one pool (256 x 256, or 1 x 256
 * when K > 1) are summed in two passes: R = Ra x Rb, an AVERAGE pool with
 * scale (1, 0) writes the centred sums of the Rb-element rows into an int32
 * temporary (exact: they are parts of A), a second pool with zero point 0
 * adds the Ra partials of each output and applies the scale above. */
#include "lower.h"
#include "kernels/k_common.h"
#include "kernels/k_elementwise.h"
#include "interp/interp.h"

#include <stdlib.h>
#include <string.h>

#define POOL_MAX_K 256u

enum { EW_ADD = 1, EW_SUB = 2 };

/* --------------------------------------------------------------- pooling */

/* Vela's global average-pool scale (docs/ethos-u.md 5.5) for n taps. */
static void avg_scale(uint32_t n, uint32_t *m, uint8_t *s)
{
    unsigned kbits = 0;
    while (kbits < 32 && ((uint64_t)1 << kbits) <= (uint64_t)(n - 1)) kbits++;
    if (n == 1) kbits = 0;
    unsigned N = 31;
    uint64_t scale = (((uint64_t)1 << (N + kbits)) + ((uint64_t)1 << kbits)) / n;
    *m = (uint32_t)scale;
    *s = (uint8_t)(N + kbits);
}

/* The global-scale pool's result for the window sum a (TFL rounding,
 * docs/ethos-u.md 5.6) and TFLite's rounded mean. */
static int64_t avg_hw(int64_t a, uint32_t m, uint8_t s)
{
    __int128 add = (__int128)1 << (s - 1);
    if (s > 31) add += a >= 0 ? ((__int128)1 << 30) : -((__int128)1 << 30);
    return (int64_t)(((__int128)a * m + add) >> s);
}

static int64_t avg_ref(int64_t a, int64_t n)
{
    return a >= 0 ? (a + n / 2) / n : (a - n / 2) / n;
}

/* Whether the global scale reproduces TFLite's rounded division for every
 * sum an op with n taps of `bits`-bit values can produce. Both sides are
 * non-decreasing in the sum on each of [smin, -1] and [0, smax] (the
 * hardware's rounding term only changes sign at 0), so they agree on a run
 * of sums where TFLite's quotient is constant when they agree at its two
 * ends: two checks per quotient, not one per sum. */
static bool avg_scale_exact(uint32_t n, unsigned bits, uint32_t m, uint8_t s)
{
    if (n == 1) return true;
    int64_t lo = bits == 8 ? -128 : -32768, hi = bits == 8 ? 127 : 32767;
    int64_t N = n, h = N / 2, smin = lo * N, smax = hi * N;
    for (int64_t a = smin; a <= smax;) {
        int64_t end;   /* the last sum of a's run (TFLite's quotient constant) */
        if (a >= 0) {
            end = ((a + h) / N + 1) * N - h - 1;
        } else {
            end = h - ((-a + h) / N) * N;
            if (end > -1) end = -1;
        }
        if (end > smax) end = smax;
        int64_t q = avg_ref(a, N);
        if (avg_ref(end, N) != q || avg_hw(a, m, s) != q || avg_hw(end, m, s) != q) return false;
        a = end + 1;
    }
    return true;
}

/* One axis of a pool split into bands of output rows (or columns), each
 * band one NPU op over the slice of the input it reads. */
typedef struct pool_band {
    int32_t o0, n;            /* first output index, count */
    int32_t i0, ni;           /* first input index read, count */
    int32_t pb, pa;           /* padding before, after */
    int32_t s;                /* hardware stride */
} pool_band;

/* The bands of one axis (input extent in, kernel k, stride s, padding
 * pbefore/pafter as TFLite gives them, out outputs) into b (out entries);
 * returns the band count. A stride of 1..3 is one band over the whole
 * axis; a single output any stride (it does not matter, 1 is written);
 * a larger stride one band per output, stride 1, reading only its window
 * (the hardware's KERNEL_STRIDE takes 1..3, docs/ethos-u.md 2.3). */
static int32_t pool_bands(int32_t in, int32_t k, int32_t s, int32_t pbefore, int32_t pafter, int32_t out,
                          pool_band *b)
{
    if (s <= 3 || out == 1) {
        b[0] = (pool_band){0, out, 0, in, pbefore, pafter, s <= 3 ? s : 1};
        return 1;
    }
    for (int32_t o = 0; o < out; o++) {
        int32_t start = o * s - pbefore, end = start + k;   /* [start, end) */
        int32_t i0 = start < 0 ? 0 : start, i1 = end > in ? in : end;
        b[o] = (pool_band){o, 1, i0, i1 - i0, i0 - start, end - i1, 1};
    }
    return out;
}

/* The most NPU ops one pool becomes (bands of rows x bands of columns). */
#define POOL_MAX_SPLIT 64

/* A feature map over a slice (rows y0.., columns x0.., h x w) of a whole
 * tensor's map f, addressed with the tensor's own strides. */
static void fm_slice(eu_fm *f, uint32_t y0, uint32_t x0, uint32_t h, uint32_t w)
{
    f->off += y0 * f->sy + x0 * f->sx;
    f->h = h;
    f->w = w;
}

static int lower_pool(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool is_max = op->opcode == TFL_OP_MAX_POOL_2D;
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    const tfl_options *opt = &op->opt;
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype) return cc_cpu(c, "%s tensors", graph_dtype_name(in->dtype));
    if (in->rank != 4 || out->rank != 4 || in->shape[0] != 1) return cc_cpu(c, "not a 4-d batch-1 tensor");
    if (!cc_has_q1(in) || !cc_has_q1(out)) return cc_cpu(c, "tensors are not quantized");
    if (!cc_act_ok(opt->activation)) return cc_cpu(c, "fused activation %s", tfl_activation_name(opt->activation));
    int32_t sx = opt->stride_w, sy = opt->stride_h, fw = opt->filter_w, fh = opt->filter_h;
    if (sx < 1 || sy < 1) return cc_cpu(c, "pool stride %dx%d", sx, sy);
    if (fw < 1 || fh < 1 || fw > 256 || fh > 256) return cc_cpu(c, "pool window %dx%d", fw, fh);
    int32_t H = in->shape[1], W = in->shape[2], C = in->shape[3];
    int32_t OH = out->shape[1], OW = out->shape[2];
    if (OH < 1 || OW < 1 || H < 1 || W < 1 || C < 1) return cc_cpu(c, "empty tensor");
    int32_t pt, pb, pl, pr;
    cc_pad_of(opt->padding, H, fh, sy, 1, OH, &pt, &pb);
    cc_pad_of(opt->padding, W, fw, sx, 1, OW, &pl, &pr);
    /* strides above 3: bands of output rows / columns (pool_bands) */
    int32_t nby = sy <= 3 || OH == 1 ? 1 : OH, nbx = sx <= 3 || OW == 1 ? 1 : OW;
    if ((int64_t)nby * nbx > POOL_MAX_SPLIT)
        return cc_cpu(c, "pool stride %dx%d over a %dx%d output: %d NPU operations (the NPU takes strides 1..3, "
                      "a larger one is split into at most %d)", sx, sy, OW, OH, nby * nbx, POOL_MAX_SPLIT);
    pool_band by[POOL_MAX_SPLIT], bx[POOL_MAX_SPLIT];
    pool_bands(H, fh, sy, pt, pb, OH, by);
    pool_bands(W, fw, sx, pl, pr, OW, bx);
    bool split = nby * nbx > 1;
    uint32_t n = (uint32_t)(fw * fh);
    uint32_t gm = 0;
    uint8_t gs = 0;
    bool gexact = false, gchecked = false;
    for (int32_t iy = 0; iy < nby; iy++) {
        for (int32_t ix = 0; ix < nbx; ix++) {
            const pool_band *a = &by[iy], *b = &bx[ix];
            bool padded = a->pb || a->pa || b->pb || b->pa;
            if (a->pb > 127 || b->pb > 127 || a->pa > 128 || b->pa > 128) return cc_cpu(c, "padding too large");
            if (!is_max && padded && (fw > 8 || fh > 8))
                return cc_cpu(c, "average pool %dx%d with padding (NPU limit 8x8)", fw, fh);
            if (!is_max && !padded && !gchecked) {
                avg_scale(n, &gm, &gs);
                gexact = avg_scale_exact(n, 8 * (unsigned)graph_dtype_size(in->dtype), gm, gs);
                gchecked = true;
            }
            if (!is_max && !padded && !gexact)
                return cc_cpu(c, "average pool over %u taps: the NPU's scaled sum is not TFLite's rounded mean", n);
            eu_op *o = cc_new_eu(c, err);
            if (!o) return err->code;
            o->kind = SIM_K_POOL;
            o->mode = is_max ? 0 : 1;
            /* a single op addresses whole tensors; bands address slices */
            o->flex = !split;
            o->kh = (uint32_t)fh;
            o->kw = (uint32_t)fw;
            o->stride_x = (uint8_t)b->s;
            o->stride_y = (uint8_t)a->s;
            o->pad_t = (uint8_t)a->pb;
            o->pad_b = (uint8_t)a->pa;
            o->pad_l = (uint8_t)b->pb;
            o->pad_r = (uint8_t)b->pa;
            cc_fm_whole(c, op->in[0], (uint32_t)H, (uint32_t)W, (uint32_t)C, &o->ifm);
            cc_fm_whole(c, op->out[0], (uint32_t)OH, (uint32_t)OW, (uint32_t)C, &o->ofm);
            if (split) {
                fm_slice(&o->ifm, (uint32_t)a->i0, (uint32_t)b->i0, (uint32_t)a->ni, (uint32_t)b->ni);
                fm_slice(&o->ofm, (uint32_t)a->o0, (uint32_t)b->o0, (uint32_t)a->n, (uint32_t)b->n);
            }
            /* TFLite pools raw values: zero points do not enter */
            o->ifm.zp = 0;
            o->ofm.zp = 0;
            o->round = 0;
            if (is_max || padded) {
                o->ofm_scale_mode = 0;
            } else {
                o->ofm_scale = gm;
                o->ofm_shift = gs;
                o->ofm_scale_mode = 1;
            }
            /* set_act uses the output zero point; raw values are clamped */
            cc_set_act(o, out, opt->activation);
            int rc = cc_block_or_cpu(c, o, err);
            if (rc) return rc;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ MEAN */

/* The tensor as K x R x K2 (outer kept, reduced, inner kept) and the count
 * of values averaged per output. */
typedef struct mean_geom {
    uint64_t K, R, K2, count;
} mean_geom;

/* The reduced dims, as the reference resolves them, merged into the
 * K x R x K2 view. 0 or 1 (CPU, reason set). */
static int mean_geometry(lower_ctx *c, const graph_tensor *in, const graph_tensor *ax, mean_geom *g)
{
    int32_t axes[K_MAX_DIMS], n_axes = 0;
    if (k_mean_resolve_axes(in->rank, ax->data, (int32_t)graph_tensor_elems(ax), axes, &n_axes) != K_OK)
        return cc_cpu(c, "invalid axes");
    bool red[K_MAX_DIMS] = {false};
    for (int32_t i = 0; i < n_axes; i++) red[axes[i]] = true;
    uint64_t seg[K_MAX_DIMS];
    bool segr[K_MAX_DIMS];
    int32_t ns = 0;
    uint64_t count = 1, total = 1;
    for (int32_t i = 0; i < in->rank; i++) {
        uint64_t d = (uint64_t)in->shape[i];
        total *= d;
        if (red[i]) count *= d;
        if (d == 1) continue;
        if (ns && segr[ns - 1] == red[i]) {
            seg[ns - 1] *= d;
        } else {
            seg[ns] = d;
            segr[ns++] = red[i];
        }
    }
    if (!total) return cc_cpu(c, "empty tensor");
    uint64_t K = 1, R = 1, K2 = 1;
    int n_red = 0;
    for (int32_t i = 0; i < ns; i++) {
        if (segr[i]) {
            n_red++;
            R = seg[i];
        } else if (n_red) {
            K2 *= seg[i];
        } else {
            K *= seg[i];
        }
    }
    if (n_red > 1) return cc_cpu(c, "the reduced axes are not adjacent (after dropping size-1 dims)");
    if (!n_red && K > 1 && K2 == 1) {
        /* nothing reduced: a requantizing copy, viewed as 1 x K x 1 ... keep
         * the elements in the depth where the extents allow */
        K2 = K;
        K = 1;
    }
    if (K > CC_DIM_MAX || K2 > CC_DIM_MAX) return cc_cpu(c, "kept extent %llu x %llu exceeds the NPU's 65536",
                                                 (unsigned long long)K, (unsigned long long)K2);
    *g = (mean_geom){K, R, K2, count};
    return 0;
}

/* The reference's multiplier with 1/count folded in, as the NPU's global
 * scale. 0 or 1 (CPU, reason set). */
static int mean_scale(lower_ctx *c, const graph_tensor *in, const graph_tensor *out, uint64_t count, bool sum,
                      uint32_t *hm, uint8_t *hs)
{
    int32_t m, s;
    k_quantize_multiplier((double)in->q.scale[0] / (double)out->q.scale[0], &m, &s);
    int32_t sh = 0;
    /* SUM: the same arithmetic without 1/count (QuantizedMeanOrSum) */
    for (uint64_t v = sum ? 1 : count; v > 1; v >>= 1) sh++;
    if (sh > 32) sh = 32;
    if (sh > 31 + s) sh = 31 + s;
    int64_t mm = ((int64_t)m << sh) / (int64_t)(sum ? 1 : count);
    int32_t s2 = s - sh;
    if (s2 < -31 || s2 > 30)
        return cc_cpu(c, "%s over %llu elements: scale shift %d outside what the NPU reproduces",
                      sum ? "SUM" : "MEAN", (unsigned long long)count, s2);
    int32_t zi = cc_zp(in);
    bool wide = in->dtype == GRAPH_I16;
    int64_t qmin = wide ? INT16_MIN : INT8_MIN, qmax = wide ? INT16_MAX : INT8_MAX;
    int64_t dmax = qmax - zi > zi - qmin ? qmax - zi : zi - qmin;
    int32_t left = s2 > 0 ? s2 : 0;
    if ((double)dmax * (double)count * (double)((int64_t)1 << left) >= 2147483648.0)
        return cc_cpu(c, "%s over %llu elements: the centred sum can overflow int32 (the reference wraps)",
                      sum ? "SUM" : "MEAN", (unsigned long long)count);
    if (!cc_hw_scale_tfl((int32_t)mm, s2, hm, hs) || (mm && *hs < 1))
        return cc_cpu(c, "%s rescale out of the NPU's range", sum ? "SUM" : "MEAN");
    return 0;
}

/* An AVERAGE pool with a global scale over an h x w x c view, window
 * kh x kw = the whole h x w of each output (stride 1: the output is
 * (h - kh + 1) x (w - kw + 1)); block chosen. */
static int avg_op(lower_ctx *c, const eu_fm *ifm, const eu_fm *ofm, uint32_t kh, uint32_t kw,
                  uint32_t scale, uint8_t shift, int32_t lo, int32_t hi, npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_POOL;
    o->mode = 1;
    o->ifm = *ifm;
    o->ofm = *ofm;
    o->kh = kh;
    o->kw = kw;
    cc_global_scale(o, scale, shift, 0);   /* TFL */
    o->act_min = lo;
    o->act_max = hi;
    o->flex = false;   /* views that reinterpret the tensor's shape */
    return cc_block_or_cpu(c, o, err);
}

/* The window R in one pool: R1 x R2 (K = 1: both up to 256) or 1 x R;
 * false when it does not fit. */
static bool one_pass(const mean_geom *g, uint32_t *R1, uint32_t *R2)
{
    if (g->K == 1) {
        for (uint64_t a = 1; a <= POOL_MAX_K && a <= g->R; a++)
            if (g->R % a == 0 && g->R / a <= POOL_MAX_K) {
                *R1 = (uint32_t)a;
                *R2 = (uint32_t)(g->R / a);
                return true;
            }
    } else if (g->R <= POOL_MAX_K) {
        *R1 = 1;
        *R2 = (uint32_t)g->R;
        return true;
    }
    return false;
}

/* Two passes: R = Ra x Rb; rows of Rb summed first into int32 partials
 * (K*Ra) x 1 x K2, then the Ra partials of each output: a 1 x Ra window
 * (K > 1) or Pa x Pb = Ra (K = 1). ifm/ofm: the input's and output's
 * buffers and zero points. */
/* R = Ra x Rb with Rb <= 256 rows summed first, then Ra in a Pa x Pb
 * window (K = 1) or 1 x Ra (K > 1). False when no split fits. */
static bool split_two(const mean_geom *g, uint32_t *pRa, uint32_t *pRb, uint32_t *pPa, uint32_t *pPb)
{
    uint64_t K = g->K, R = g->R;
    uint32_t Ra = 0, Rb = 0, Pa = 1, Pb = 0;
    for (uint64_t b = POOL_MAX_K; b >= 2 && !Ra; b--) {
        if (R % b) continue;
        uint64_t a = R / b;
        if (K > 1) {
            if (a <= POOL_MAX_K && K * a <= CC_DIM_MAX) {
                Ra = (uint32_t)a;
                Rb = (uint32_t)b;
                Pb = Ra;
            }
            continue;
        }
        if (a > CC_DIM_MAX) continue;
        for (uint64_t pa = 1; pa <= POOL_MAX_K && pa <= a; pa++)
            if (a % pa == 0 && a / pa <= POOL_MAX_K) {
                Ra = (uint32_t)a;
                Rb = (uint32_t)b;
                Pa = (uint32_t)pa;
                Pb = (uint32_t)(a / pa);
                break;
            }
    }
    *pRa = Ra;
    *pRb = Rb;
    *pPa = Pa;
    *pPb = Pb;
    return Ra != 0;
}

static int two_passes(lower_ctx *c, const mean_geom *g, int32_t bin, int32_t bout, uint8_t bits, int32_t zi,
                      int32_t zo, uint32_t hm, uint8_t hs, int32_t qmin, int32_t qmax, npuc_err *err)
{
    uint64_t K = g->K, K2 = g->K2;
    uint32_t Ra, Rb, Pa, Pb;
    if (!split_two(g, &Ra, &Rb, &Pa, &Pb))
        return cc_cpu(c, "%llu elements per output: no split into pool windows of up to 256",
                      (unsigned long long)g->R);
    int32_t tb = cc_temp_buf(c, K * Ra * K2 * 4, err);
    if (tb < 0) return err->code;
    eu_fm ifm, ofm, part, part_in;
    cc_fm_dense(&ifm, bin, 0, (uint32_t)(K * Ra), Rb, (uint32_t)K2, bits, zi);
    cc_fm_dense(&part, tb, 0, (uint32_t)(K * Ra), 1, (uint32_t)K2, 32, 0);
    int rc = avg_op(c, &ifm, &part, 1, Rb, 1, 0, INT16_MIN, INT16_MAX, err);
    if (rc) return rc;
    cc_fm_dense(&part_in, tb, 0, (uint32_t)K * Pa, Pb, (uint32_t)K2, 32, 0);
    cc_fm_dense(&ofm, bout, 0, (uint32_t)K, 1, (uint32_t)K2, bits, zo);
    return avg_op(c, &part_in, &ofm, Pa, Pb, hm, hs, qmin, qmax, err);
}

/* What every reduction (MEAN, SUM, REDUCE_MAX / MIN) checks, then its
 * K x R x K2 view: 0 or 1 (CPU, reason set). */
static int reduce_checks(lower_ctx *c, const graph_op *op, mean_geom *g)
{
    const graph_tensor *in = cc_tin(c, op, 0), *ax = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!in || !ax || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s -> %s tensors (the NPU form takes int8 or int16)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (!cc_has_q1(in) || !cc_has_q1(out)) return cc_cpu(c, "tensors are not quantized");
    if (in->rank < 1 || in->rank > K_MAX_DIMS) return cc_cpu(c, "rank %d input", in->rank);
    if (!ax->data || ax->dtype != GRAPH_I32) return cc_cpu(c, "axes are not constant int32");
    return mean_geometry(c, in, ax, g);
}

static int lower_mean(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool sum = op->opcode == TFL_OP_SUM;
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    mean_geom g = {0, 0, 0, 0};
    uint32_t hm = 0;
    uint8_t hs = 0;
    int rc = reduce_checks(c, op, &g);
    if (!rc) rc = mean_scale(c, in, out, g.count, sum, &hm, &hs);
    if (rc) return rc;
    int32_t zi = cc_zp(in), zo = cc_zp(out);
    bool wide = in->dtype == GRAPH_I16;
    int32_t qmin = wide ? INT16_MIN : INT8_MIN, qmax = wide ? INT16_MAX : INT8_MAX;
    uint8_t bits = wide ? 16 : 8;
    int32_t bin = c->m->buf_of[op->in[0]], bout = c->m->buf_of[op->out[0]];
    if (bin < 0 || bout < 0) return cc_cpu(c, "constant input");
    uint32_t R1 = 0, R2 = 0;
    if (!one_pass(&g, &R1, &R2)) return two_passes(c, &g, bin, bout, bits, zi, zo, hm, hs, qmin, qmax, err);
    eu_fm ifm, ofm;
    if (g.K == 1) cc_fm_dense(&ifm, bin, 0, R1, R2, (uint32_t)g.K2, bits, zi);
    else cc_fm_dense(&ifm, bin, 0, (uint32_t)g.K, R2, (uint32_t)g.K2, bits, zi);
    cc_fm_dense(&ofm, bout, 0, (uint32_t)g.K, 1, (uint32_t)g.K2, bits, zo);
    return avg_op(c, &ifm, &ofm, R1, R2, hm, hs, qmin, qmax, err);
}

/* ------------------------------------------------ REDUCE_MAX, REDUCE_MIN */

/* A MAX pool over an h x w x c view with a kh x kw window (raw values,
 * zero points 0: the reference needs one quantization in and out), the
 * LUT lut (or -1) in its output stage; block chosen. */
static int max_op(lower_ctx *c, const eu_fm *ifm, const eu_fm *ofm, uint32_t kh, uint32_t kw, int32_t lut,
                  npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->ifm = *ifm;
    o->ofm = *ofm;
    cc_copy_op(o, ofm->bits);
    o->kh = kh;
    o->kw = kw;
    if (lut >= 0) {
        o->lut = lut;
        o->act_func = 16;   /* slot assigned at generation */
    }
    o->flex = false;   /* views that reinterpret the tensor's shape */
    return cc_block_or_cpu(c, o, err);
}

/* REDUCE_MAX (int8, int16) as MAX pools over the K x R x K2 view, in one
 * pass or two (partial maxima first, as MEAN's sums). REDUCE_MIN (int8):
 * min(x) = ~max(~x), and ~x = -1 - x maps int8 onto itself reversing the
 * order, so a LUT writes ~x, MAX pools reduce it and the last one's output
 * stage applies the same LUT again. */
static int lower_reduce_max(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool is_min = op->opcode == TFL_OP_REDUCE_MIN;
    const graph_tensor *in = cc_tin(c, op, 0);
    mean_geom g = {0, 0, 0, 0};
    int rc = reduce_checks(c, op, &g);
    if (rc) return rc;
    if (is_min && in->dtype != GRAPH_I8) return cc_cpu(c, "int16 REDUCE_MIN has no NPU form (no MIN pool)");
    int32_t bin = c->m->buf_of[op->in[0]], bout = c->m->buf_of[op->out[0]];
    if (bin < 0 || bout < 0) return cc_cpu(c, "constant input");
    uint8_t bits = in->dtype == GRAPH_I16 ? 16 : 8;
    uint32_t R1 = 0, R2 = 0, Ra = 0, Rb = 0, Pa = 1, Pb = 0;
    bool one = one_pass(&g, &R1, &R2);
    if (!one && !split_two(&g, &Ra, &Rb, &Pa, &Pb))
        return cc_cpu(c, "%llu elements per output: no split into pool windows of up to 256",
                      (unsigned long long)g.R);
    int32_t lut = -1, src = bin;
    if (is_min) {
        int8_t table[256];
        for (int i = 0; i < 256; i++) table[i] = (int8_t)(-1 - (i - 128));
        /* the LUT is indexed by the value + 128 (docs/ethos-u.md 5.7) */
        if ((rc = cc_add_lut(c, table, 256, &lut, err))) return rc;
        uint64_t n = graph_tensor_elems(in);
        if ((src = cc_temp_buf(c, n, err)) < 0) return err->code;
        eu_op *o = cc_new_eu(c, err);
        if (!o) return err->code;
        /* the passes' input view */
        uint32_t h = one ? (g.K == 1 ? R1 : (uint32_t)g.K) : (uint32_t)(g.K * Ra), w = one ? R2 : Rb;
        uint32_t ch = (uint32_t)g.K2;
        cc_fm_dense(&o->ifm, bin, 0, h, w, ch, 8, 0);
        cc_fm_dense(&o->ofm, src, 0, h, w, ch, 8, 0);
        cc_lut_op(o, lut);
        o->flex = false;
        if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    }
    eu_fm ifm, ofm;
    cc_fm_dense(&ofm, bout, 0, (uint32_t)g.K, 1, (uint32_t)g.K2, bits, 0);
    if (one) {
        if (g.K == 1) cc_fm_dense(&ifm, src, 0, R1, R2, (uint32_t)g.K2, bits, 0);
        else cc_fm_dense(&ifm, src, 0, (uint32_t)g.K, R2, (uint32_t)g.K2, bits, 0);
        return max_op(c, &ifm, &ofm, R1, R2, lut, err);
    }
    uint64_t K = g.K, K2 = g.K2;
    int32_t tb = cc_temp_buf(c, K * Ra * K2 * (bits / 8u), err);
    if (tb < 0) return err->code;
    eu_fm part, part_in;
    cc_fm_dense(&ifm, src, 0, (uint32_t)(K * Ra), Rb, (uint32_t)K2, bits, 0);
    cc_fm_dense(&part, tb, 0, (uint32_t)(K * Ra), 1, (uint32_t)K2, bits, 0);
    if ((rc = max_op(c, &ifm, &part, 1, Rb, -1, err))) return rc;
    cc_fm_dense(&part_in, tb, 0, (uint32_t)K * Pa, Pb, (uint32_t)K2, bits, 0);
    return max_op(c, &part_in, &ofm, Pa, Pb, lut, err);
}


/* ------------------------------------------------- ARG_MAX, ARG_MIN */

/* An ELEMENTWISE ADD / SUB in IFM scale mode 0 (docs/ethos-u.md 5.8):
 * a * opa - or + b * opb on the operands' raw values less their zero
 * points, OFM scale (1, 0), clamped to [lo, hi]; operands set by the
 * caller. */
static void mode0_op(eu_op *o, uint8_t mode, uint32_t opa, uint32_t opb, int32_t lo, int32_t hi)
{
    o->kind = SIM_K_ELEMENTWISE;
    o->mode = mode;
    o->flex = false;
    o->ifm2_tensor = true;
    o->has_opab = true;
    o->ifm_scale_mode = 0;
    o->opa_scale = opa;
    o->opa_shift = 0;
    o->opb_scale = opb;
    cc_global_scale(o, 1, 0, 0);
    o->act_min = lo;
    o->act_max = hi;
}

/* The longest axis the long form takes: its keys are int16 with 2^b >= R,
 * b <= 15. */
#define ARGMAX_LONG_MAX 32768u
/* The most outer rows the long form pools one by one (two pools each) when
 * the axis fits no split of the K x R x K2 view. */
#define ARGMAX_MAX_OUTER 16u

/* How MAX pools reduce a K x R x K2 view along R into K x 1 x K2:
 * - one pool: K = 1 as ra rows of rb values whose starts lie t apart
 *   (an ra x rb window over an IFM whose STRIDE_Y is t values; t = rb
 *   is the plain view R = ra * rb, t < rb lets neighbouring rows overlap,
 *   see axis_rows), or K > 1 with R <= 256 as a 1 x R window;
 * - two: R = ra * rb, partial maxima of the rows of rb first, then a
 *   pa x pb window over each output's ra partials (split_two);
 * - per_outer: one ra x rb (step t) pool per outer index (K > 1 with an
 *   axis that fits no split). */
typedef struct axis_max {
    uint32_t ra, rb, t, pa, pb;
    bool two, per_outer;
} axis_max;

/* R as ra rows of rb <= 256 values starting t apart, 1 <= t <= rb,
 * (ra - 1) * t + rb = R, ra <= 256: the rows cover [0, R) (each starts at
 * or before the end of the one before and the last ends at R) and read
 * nothing outside it; a value in two rows is counted twice by a maximum,
 * which does not change it. Plain rows (t = rb) when R factors so, else
 * the largest step for the fewest rows (the least read twice). False when
 * none exists (it always does for 2 <= R <= 32768). */
static bool axis_rows(uint64_t R, uint32_t *ra, uint32_t *rb, uint32_t *t)
{
    mean_geom g = {1, R, 1, R};
    uint32_t r1, r2;
    if (one_pass(&g, &r1, &r2)) {
        *ra = r1;
        *rb = r2;
        *t = r2;
        return true;
    }
    for (uint64_t a = (R + POOL_MAX_K - 1) / POOL_MAX_K; a <= POOL_MAX_K; a++) {
        if (a < 2) continue;
        uint64_t s = R / a, b = R - (a - 1) * s;
        if (s >= 1 && b <= POOL_MAX_K && b >= s) {
            *ra = (uint32_t)a;
            *rb = (uint32_t)b;
            *t = (uint32_t)s;
            return true;
        }
    }
    return false;
}

static bool axis_plan(uint64_t K, uint64_t R, uint64_t K2, axis_max *p)
{
    memset(p, 0, sizeof *p);
    if (K == 1) return axis_rows(R, &p->ra, &p->rb, &p->t);
    if (R <= POOL_MAX_K) {
        p->ra = 1;
        p->rb = p->t = (uint32_t)R;
        return true;
    }
    mean_geom g = {K, R, K2, R};
    if (split_two(&g, &p->ra, &p->rb, &p->pa, &p->pb)) {
        p->two = true;
        p->t = p->rb;
        return true;
    }
    p->per_outer = K <= ARGMAX_MAX_OUTER;
    return p->per_outer && axis_rows(R, &p->ra, &p->rb, &p->t);
}

/* The maxima along R of the K x R x K2 view of buffer src into the
 * K x 1 x K2 buffer dst (bits 8 or 16, raw values), as planned. */
static int axis_max_ops(lower_ctx *c, const axis_max *p, int32_t src, int32_t dst, uint8_t bits, uint64_t K,
                        uint64_t R, uint64_t K2, npuc_err *err)
{
    uint64_t es = bits / 8u;
    eu_fm ifm, ofm;
    int rc;
    if (p->two) {
        int32_t tb = cc_temp_buf(c, K * p->ra * K2 * es, err);
        if (tb < 0) return err->code;
        eu_fm part, part_in;
        cc_fm_dense(&ifm, src, 0, (uint32_t)(K * p->ra), p->rb, (uint32_t)K2, bits, 0);
        cc_fm_dense(&part, tb, 0, (uint32_t)(K * p->ra), 1, (uint32_t)K2, bits, 0);
        if ((rc = max_op(c, &ifm, &part, 1, p->rb, -1, err))) return rc;
        cc_fm_dense(&part_in, tb, 0, (uint32_t)K * p->pa, p->pb, (uint32_t)K2, bits, 0);
        cc_fm_dense(&ofm, dst, 0, (uint32_t)K, 1, (uint32_t)K2, bits, 0);
        return max_op(c, &part_in, &ofm, p->pa, p->pb, -1, err);
    }
    if (K > 1 && !p->per_outer) {
        cc_fm_dense(&ifm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, bits, 0);
        cc_fm_dense(&ofm, dst, 0, (uint32_t)K, 1, (uint32_t)K2, bits, 0);
        return max_op(c, &ifm, &ofm, 1, (uint32_t)R, -1, err);
    }
    for (uint64_t k = 0; k < K; k++) {
        cc_fm_dense(&ifm, src, k * R * K2 * es, p->ra, p->rb, (uint32_t)K2, bits, 0);
        ifm.sy = (uint64_t)p->t * K2 * es;   /* rows t values apart (axis_rows) */
        cc_fm_dense(&ofm, dst, k * K2 * es, 1, 1, (uint32_t)K2, bits, 0);
        if ((rc = max_op(c, &ifm, &ofm, p->ra, p->rb, -1, err))) return rc;
    }
    return 0;
}

/* The constant ramp of R `bits`-bit values (the keys' position part) as
 * the operand of an op broadcasting it over the other axes: in flash it
 * would be read once per element of the op's output, from the slowest
 * memory, so where the op's output holds more than R elements one copy
 * (cc_copy_block) brings it into an arena buffer first. *buf and *off
 * receive where the op reads it (buf -1: flash). */
static int ramp_op(lower_ctx *c, const void *ramp, uint64_t R, uint8_t bits, int32_t *buf, uint64_t *off,
                   npuc_err *err)
{
    int rc = cc_flash_add(c->e, ramp, R * (bits / 8u), off, err);
    if (rc) return rc;
    *buf = -1;
    int32_t b = cc_temp_buf(c, R * (bits / 8u), err);
    if (b < 0) return err->code;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_fm_dense(&o->ifm, -1, *off, 1, 1, (uint32_t)R, bits, 0);
    cc_fm_dense(&o->ofm, b, 0, 1, 1, (uint32_t)R, bits, 0);
    o->flex = false;
    if ((rc = cc_copy_block(c, o, bits, err))) return rc;
    *buf = b;
    *off = 0;
    return 0;
}

/* The short form (axis length R <= 128), five NPU ops over the K x R x K2
 * view of src (int8; x, or ~x for ARG_MIN) into the int32 output bout:
 * 1. key = (x + 128) * 2^b + (2^b - 1 - r) for position r along the axis
 *    (2^b the least power of two >= R, at most 128): an ELEMENTWISE ADD in
 *    IFM scale mode 0 (OPA_SCALE 2^b, OPB_SCALE 1; IFM zero point -128)
 *    with a constant 1 x R x 1 ramp broadcast over the other axes (copied
 *    into the arena first, ramp_op), into
 *    an int16 intermediate (keys 0..32767): a larger value gives a larger
 *    key, and among equal values the first position the largest;
 * 2. a MAX pool over the R keys of each output (1 x R window);
 * 3. q = key >> b: a 1x1 AVERAGE pool with OFM scale (1, b), TRUNCATE
 *    (keys are non-negative: the floor), which is x + 128;
 * 4. index = q * 2^b - (key - (2^b - 1)): an ELEMENTWISE SUB in scale
 *    mode 0 (OPA_SCALE 2^b, OPB_SCALE 1) with IFM2 zero point 2^b - 1
 *    into the int32 output (a 32-bit OFM without a LUT takes no zero
 *    point, docs/ethos-u.md 5.1).
 * Exact by construction: every step is integer arithmetic inside int16 /
 * int32. Cheaper than the long form below (one full-size elementwise op
 * and one pool where that has two and two): fewer cycles on every shape
 * measured up to R = 128. */
static int argmax_short(lower_ctx *c, int32_t src, int32_t bout, uint64_t K, uint64_t R, uint64_t K2,
                        npuc_err *err)
{
    uint32_t b = 0;
    while ((1u << b) < R) b++;
    uint32_t p2 = 1u << b;
    uint64_t n = K * R * K2;
    int rc;
    /* 1: the keys */
    int8_t ramp[128];
    for (uint32_t r = 0; r < R; r++) ramp[r] = (int8_t)(p2 - 1 - r);
    int32_t bkey = cc_temp_buf(c, n * 2u, err);
    if (bkey < 0) return err->code;
    int32_t bramp = -1;
    uint64_t ramp_off = 0;
    if ((rc = ramp_op(c, ramp, R, 8, &bramp, &ramp_off, err))) return rc;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    mode0_op(o, EW_ADD, p2, 1, INT16_MIN, INT16_MAX);
    cc_fm_dense(&o->ifm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 8, -128);
    cc_fm_dense(&o->ifm2, bramp, ramp_off, 1, (uint32_t)R, 1, 8, 0);
    o->bcast_h = K != 1;
    o->bcast_c = K2 != 1;
    cc_fm_dense(&o->ofm, bkey, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 16, 0);
    if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    /* 2: the largest key of each output */
    int32_t bmax = cc_temp_buf(c, K * K2 * 2u, err), bq = cc_temp_buf(c, K * K2 * 2u, err);
    if (bmax < 0 || bq < 0) return err->code;
    eu_fm keys, kmax, q, res;
    cc_fm_dense(&keys, bkey, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 16, 0);
    cc_fm_dense(&kmax, bmax, 0, (uint32_t)K, 1, (uint32_t)K2, 16, 0);
    cc_fm_dense(&q, bq, 0, (uint32_t)K, 1, (uint32_t)K2, 16, 0);
    cc_fm_dense(&res, bout, 0, (uint32_t)K, 1, (uint32_t)K2, 32, 0);
    if ((rc = max_op(c, &keys, &kmax, 1, (uint32_t)R, -1, err))) return rc;
    /* 3: q = key >> b */
    if (!(o = cc_new_eu(c, err))) return err->code;
    o->kind = SIM_K_POOL;
    o->mode = 1;
    o->ifm = kmax;
    o->ofm = q;
    o->kh = o->kw = 1;
    cc_global_scale(o, 1, (uint8_t)b, 1);   /* TRUNCATE */
    o->act_min = INT16_MIN;
    o->act_max = INT16_MAX;
    o->flex = false;
    if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    /* 4: index = q * 2^b - key + (2^b - 1) */
    if (!(o = cc_new_eu(c, err))) return err->code;
    mode0_op(o, EW_SUB, p2, 1, INT32_MIN, INT32_MAX);
    o->ifm = q;
    o->ifm2 = kmax;
    o->ifm2.zp = (int32_t)p2 - 1;   /* the + (2^b - 1): a 32-bit OFM takes no zero point */
    o->ofm = res;
    return cc_block_or_cpu(c, o, err);
}

/* Cycles an input's copy into the fast pool must save beyond a quarter of
 * its own (as lower.c's staging of inputs). */
#define ARGMAX_STAGE_MARGIN 512u

/* Whether the long form reads its int8 input src (n = K * R * K2 values)
 * faster from a copy in the fast pool, on a system that has one apart from
 * the arena: the first maximum's pool and the SUB each read all of it,
 * from the arena in bursts as short as the inner size (the model's DRAM on
 * a U65 with Dedicated_Sram), the copy reads it once as one dense block.
 * The ops costed alone as the cycle model prices them (cc_op_cycles_at),
 * the input's buffer only where it certainly stays in the arena. True
 * with *cp the copy (its OFM buffer still to be set). */
static bool argmax_stage(lower_ctx *c, const axis_max *p, int32_t tensor, int32_t src, uint64_t K, uint64_t R,
                         uint64_t K2, eu_op *cp)
{
    const cc_model *m = c->m;
    uint64_t n = K * R * K2, cap = cc_fast_bytes(&m->opt);
    if (m->opt.optimise != CC_OPT_PERFORMANCE || m->opt.no_stage || !cap || n > cap / 2 ||
        !cc_arena_bound(c, tensor))
        return false;
    npuc_err e2 = {0};
    eu_op pool, sub;
    /* the pool(s) that read the input, as axis_max_ops makes them */
    int64_t pools = 1;
    cc_eu_init(c, &pool);
    if (p->two) {
        cc_fm_dense(&pool.ifm, src, 0, (uint32_t)(K * p->ra), p->rb, (uint32_t)K2, 8, 0);
        cc_fm_dense(&pool.ofm, src, 0, (uint32_t)(K * p->ra), 1, (uint32_t)K2, 8, 0);
        pool.kh = 1;
        pool.kw = p->rb;
    } else if (K > 1 && !p->per_outer) {
        cc_fm_dense(&pool.ifm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 8, 0);
        cc_fm_dense(&pool.ofm, src, 0, (uint32_t)K, 1, (uint32_t)K2, 8, 0);
        pool.kh = 1;
        pool.kw = (uint32_t)R;
    } else {
        cc_fm_dense(&pool.ifm, src, 0, p->ra, p->rb, (uint32_t)K2, 8, 0);
        pool.ifm.sy = (uint64_t)p->t * K2;
        cc_fm_dense(&pool.ofm, src, 0, 1, 1, (uint32_t)K2, 8, 0);
        pool.kh = p->ra;
        pool.kw = p->rb;
        pools = (int64_t)K;
    }
    cc_copy_op(&pool, 8);
    pool.flex = false;
    cc_eu_init(c, &sub);
    mode0_op(&sub, EW_SUB, 1, 1, INT16_MIN, INT16_MAX);
    cc_fm_dense(&sub.ifm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 8, 0);
    cc_fm_dense(&sub.ifm2, src, 0, (uint32_t)K, 1, (uint32_t)K2, 8, 0);
    sub.bcast_w = true;
    cc_fm_dense(&sub.ofm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 16, 0);
    if (cc_choose_block(c, &pool, &e2) != NPUC_OK || cc_choose_block(c, &sub, &e2) != NPUC_OK) return false;
    int64_t gain = pools * ((int64_t)cc_op_cycles_at(m, &pool, 1, 0, 2, 0) - (int64_t)cc_op_cycles_at(m, &pool, 2, 0, 2, 0)) +
                   (int64_t)cc_op_cycles_at(m, &sub, 1, 2, 2, 0) - (int64_t)cc_op_cycles_at(m, &sub, 2, 2, 2, 0);
    /* the copy: one raw copy of the n bytes viewed 1 x (n / d) x d, the
     * view and form (cc_copy_block) the cycle model prices lowest reading
     * the arena; deeper views read in longer bursts */
    bool found = false;
    int64_t cost = 0;
    for (uint64_t d = n < CC_DIM_MAX ? n : CC_DIM_MAX; d >= 16 && d >= n / 64; d--) {
        if (n % d || n / d > CC_DIM_MAX) continue;
        eu_op x;
        cc_eu_init(c, &x);
        cc_fm_dense(&x.ifm, src, 0, 1, (uint32_t)(n / d), (uint32_t)d, 8, 0);
        cc_fm_dense(&x.ofm, src, 0, 1, (uint32_t)(n / d), (uint32_t)d, 8, 0);
        x.flex = false;
        if (cc_copy_block(c, &x, 8, &e2) != NPUC_OK) continue;
        int64_t cyc = (int64_t)cc_op_cycles_at(m, &x, 1, 0, 2, 0);
        if (!found || cyc < cost) {
            *cp = x;
            cost = cyc;
            found = true;
        }
    }
    if (!found) return false;
    return gain > cost + cost / 4 + (int64_t)ARGMAX_STAGE_MARGIN;
}

/* The long form (129 <= R <= 32768), six NPU ops when the pools take
 * one op each, over the K x R x K2 view of src (int8) into bout (int32),
 * with 2^b the least power of two >= R (b <= 15):
 * 1. m = the maximum along the axis (MAX pools, axis_plan), int8;
 * 2. k0 = clamp16((x - m) * 2^b): an ELEMENTWISE SUB in IFM scale mode 0
 *    with OPA_SCALE = OPB_SCALE = 2^b (the mode Vela runs 8-bit ADD / SUB
 *    of equal scales in, with 2^15 as both scales, docs/ethos-u.md 5.8),
 *    m broadcast along the axis, OFM scale (1, 0), into int16: the
 *    difference is 0 at a maximum and <= -1 elsewhere, so k0 = 0 there
 *    and k0 <= -2^b elsewhere (|x - m| * 2^b <= 255 * 2^15 fits the
 *    32-bit sum, and the clamp at -32768 <= -2^b keeps it <= -2^b);
 * 3. key = k0 + (2^b - 1 - r) for position r: an ELEMENTWISE ADD in
 *    scale mode 0 with OPA = OPB = 1 (Vela's unscaled form, 5.8) of a
 *    constant int16 1 x R x 1 ramp (copied into the arena first,
 *    ramp_op) broadcast over the other axes: at a
 *    maximum key = 2^b - 1 - r in [0, 32767], elsewhere
 *    key <= -2^b + 2^b - 1 - r < 0 and key >= -32768 + 0: no clamp acts,
 *    so the largest key is at the first position of the maximum;
 * 4. the largest key along the axis (MAX pools of int16);
 * 5. index = (2^b - 1) - key: an ELEMENTWISE SUB with the operands
 *    reversed (IFM2_SCALAR 2^b - 1 first, 5.8) into the int32 output
 *    (a 32-bit OFM without a LUT takes no clamp, 5.1).
 * The first position of the largest value, as TFLite's. */
static int argmax_long(lower_ctx *c, int32_t src, int32_t stage, int32_t bout, uint64_t K, uint64_t R, uint64_t K2,
                       npuc_err *err)
{
    axis_max p;
    if (!axis_plan(K, R, K2, &p)) return cc_cpu(c, "no pool split");   /* checked by the caller */
    uint32_t b = 0;
    while ((1u << b) < R) b++;
    uint32_t p2 = 1u << b;
    uint64_t n = K * R * K2;
    int rc;
    int32_t bm = cc_temp_buf(c, K * K2, err);
    if (bm < 0) return err->code;
    int32_t bk0 = cc_temp_buf(c, n * 2u, err);
    if (bk0 < 0) return err->code;
    int32_t bk = cc_temp_buf(c, n * 2u, err);
    if (bk < 0) return err->code;
    int32_t bkm = cc_temp_buf(c, K * K2 * 2u, err);
    if (bkm < 0) return err->code;
    /* the input copied into the fast pool first where that pays */
    eu_op cp;
    if (stage >= 0 && argmax_stage(c, &p, stage, src, K, R, K2, &cp)) {
        int32_t t = cc_temp_buf(c, n, err);
        if (t < 0) return err->code;
        eu_op *o = cc_new_eu(c, err);
        if (!o) return err->code;
        *o = cp;
        o->ofm.buf = t;
        src = t;
    }
    /* 1: the maximum */
    if ((rc = axis_max_ops(c, &p, src, bm, 8, K, R, K2, err))) return rc;
    /* 2: k0 = clamp16((x - m) * 2^b) */
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    mode0_op(o, EW_SUB, p2, p2, INT16_MIN, INT16_MAX);
    cc_fm_dense(&o->ifm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 8, 0);
    cc_fm_dense(&o->ifm2, bm, 0, (uint32_t)K, 1, (uint32_t)K2, 8, 0);
    o->bcast_w = true;
    cc_fm_dense(&o->ofm, bk0, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 16, 0);
    if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    /* 3: key = k0 + (2^b - 1 - r) */
    uint8_t *ramp = malloc(2u * (size_t)R);
    if (!ramp) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t r = 0; r < R; r++) {
        uint32_t v = p2 - 1 - r;
        ramp[2 * r] = (uint8_t)v;
        ramp[2 * r + 1] = (uint8_t)(v >> 8);
    }
    int32_t bramp = -1;
    uint64_t ramp_off = 0;
    rc = ramp_op(c, ramp, R, 16, &bramp, &ramp_off, err);
    free(ramp);
    if (rc) return rc;
    if (!(o = cc_new_eu(c, err))) return err->code;
    mode0_op(o, EW_ADD, 1, 1, INT16_MIN, INT16_MAX);
    cc_fm_dense(&o->ifm, bk0, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 16, 0);
    cc_fm_dense(&o->ifm2, bramp, ramp_off, 1, (uint32_t)R, 1, 16, 0);
    o->bcast_h = K != 1;
    o->bcast_c = K2 != 1;
    cc_fm_dense(&o->ofm, bk, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 16, 0);
    if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    /* 4: the largest key */
    if ((rc = axis_max_ops(c, &p, bk, bkm, 16, K, R, K2, err))) return rc;
    /* 5: index = (2^b - 1) - key */
    if (!(o = cc_new_eu(c, err))) return err->code;
    mode0_op(o, EW_SUB, 1, 1, INT32_MIN, INT32_MAX);
    cc_fm_dense(&o->ifm, bkm, 0, (uint32_t)K, 1, (uint32_t)K2, 16, 0);
    o->ifm2_tensor = false;
    o->ifm2_scalar = true;
    o->scalar = (int32_t)p2 - 1;
    memset(&o->ifm2, 0, sizeof o->ifm2);
    o->ifm2.bits = 16;
    o->ifm2.is_signed = true;
    o->ifm2.buf = -1;
    o->reversed = true;
    cc_fm_dense(&o->ofm, bout, 0, (uint32_t)K, 1, (uint32_t)K2, 32, 0);
    return cc_block_or_cpu(c, o, err);
}

/* ARG_MAX / ARG_MIN (int8 -> int32) along one axis over the K x R x K2
 * view (outer, reduced, inner): the short form up to 128 values, the long
 * one up to 32768. TFLite picks the first index of the largest (smallest)
 * value, as both forms do. ARG_MIN first maps x to ~x = -1 - x by a LUT (it
 * reverses the order and keeps ties), as REDUCE_MIN does. */
static int lower_argmax(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool is_min = op->opcode == TFL_OP_ARG_MIN;
    const graph_tensor *in = cc_tin(c, op, 0), *ax = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (op->n_in != 2 || op->n_out != 1 || !in || !ax || !out) return cc_cpu(c, "missing input or output");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (in->dtype != GRAPH_I8 || out->dtype != GRAPH_I32)
        return cc_cpu(c, "%s -> %s (the NPU form takes int8 in, int32 out)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    if (!ax->data) return cc_cpu(c, "the axis is not a constant");
    int32_t axis = ((const int32_t *)ax->data)[0];
    if (axis < 0) axis += in->rank;
    if (axis < 0 || axis >= in->rank) return cc_cpu(c, "axis %d out of range", axis);
    int32_t bin = c->m->buf_of[op->in[0]], bout = c->m->buf_of[op->out[0]];
    if (bin < 0 || bout < 0) return cc_cpu(c, "constant input");
    uint64_t K = 1, K2 = 1, R = (uint64_t)in->shape[axis];
    for (int32_t i = 0; i < axis; i++) K *= (uint64_t)in->shape[i];
    for (int32_t i = axis + 1; i < in->rank; i++) K2 *= (uint64_t)in->shape[i];
    if (R < 1 || K < 1 || K2 < 1) return cc_cpu(c, "empty tensor");
    if (R > ARGMAX_LONG_MAX)
        return cc_cpu(c, "axis length %llu (the NPU form's int16 keys take up to %u)", (unsigned long long)R,
                      ARGMAX_LONG_MAX);
    if (K > CC_DIM_MAX || K2 > CC_DIM_MAX) return cc_cpu(c, "dimensions too large");
    axis_max p;
    if (R > 128 && !axis_plan(K, R, K2, &p))
        return cc_cpu(c, "axis length %llu over %llu outer rows: no split into pool windows of up to 256 "
                      "(one pool per outer row takes at most %u rows)", (unsigned long long)R,
                      (unsigned long long)K, ARGMAX_MAX_OUTER);
    int rc;
    int32_t src = bin;
    if (is_min) {
        int8_t table[256];
        for (int i = 0; i < 256; i++) table[i] = (int8_t)(-1 - (i - 128));
        int32_t lut;
        if ((rc = cc_add_lut(c, table, 256, &lut, err))) return rc;
        if ((src = cc_temp_buf(c, K * R * K2, err)) < 0) return err->code;
        eu_op *o = cc_new_eu(c, err);
        if (!o) return err->code;
        cc_fm_dense(&o->ifm, bin, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 8, 0);
        cc_fm_dense(&o->ofm, src, 0, (uint32_t)K, (uint32_t)R, (uint32_t)K2, 8, 0);
        cc_lut_op(o, lut);
        o->flex = false;
        if ((rc = cc_block_or_cpu(c, o, err))) return rc;
    }
    return R <= 128 ? argmax_short(c, src, bout, K, R, K2, err) : argmax_long(c, src, is_min ? -1 : op->in[0], bout, K, R, K2, err);
}

static const lower_impl pool_ops[] = {
    {TFL_OP_MAX_POOL_2D, lower_pool},
    {TFL_OP_AVERAGE_POOL_2D, lower_pool},
    {TFL_OP_MEAN, lower_mean},
    {TFL_OP_SUM, lower_mean},
    {TFL_OP_REDUCE_MAX, lower_reduce_max},
    {TFL_OP_REDUCE_MIN, lower_reduce_max},
    {TFL_OP_ARG_MAX, lower_argmax},
    {TFL_OP_ARG_MIN, lower_argmax},
};

LOWER_OPS_TABLE(lower_ops_pool, pool_ops)
