/* lower_resize: RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (int8, int16,
 * batch 1) on the NPU.
 *
 * Both resizes are separable: output row y reads input rows chosen by
 * (in_h, out_h, align_corners, half_pixel_centers) only, columns likewise.
 * Instead of re-deriving TFLite's float / 1/1024 position arithmetic, the
 * compiler asks the reference kernel itself: it runs the op on 1-d probe
 * tensors (n_in x 1 -> n_out x 1) and reads off
 *  - nearest: the source index of every output position (the input holds
 *    the indices 0..n_in-1 as int32);
 *  - bilinear: the weight (in 1/1024) of every input position in every
 *    output position (one-hot int16 inputs of 2^14: the output is 16 x the
 *    weight, exactly, as the kernel's 20-bit rounding has nothing to round).
 *
 * Forms (all values are raw: both kernels ignore quantization):
 *  - a gather (nearest, or bilinear whose every output is one input pixel
 *    with weight 1): each map is split into arithmetic progressions
 *    (output o0 + k*od <- input i0 + k*id); every pair of a row and a
 *    column progression is one 1x1 MAX pool (a copy) with strided IFM and
 *    OFM addressing, at most MAX_COPIES ops. When both maps are v >> k
 *    (2^k upscaling, TFLite's default nearest), k 1x1 copies with
 *    IFM_UPSCALE NEAREST instead (Vela's form), through temporaries;
 *  - bilinear 2x in both dims whose weights are exactly TFLite's 2x pattern
 *    (checked on the probes: even outputs copy input v/2, odd ones take
 *    512/1024 of v/2 and v/2 + 1, or the last row alone): IFM_UPSCALE
 *    NEAREST into a 2x2 AVERAGE pool, stride 1, padding 1 at the bottom and
 *    right (docs/ethos-u.md 5.10). Every window holds 1, 2 or 4 valid taps whose
 *    sum divided by their count (half away from zero, TFL rounding, as the
 *    padded AVERAGE_POOL form) is the weighted sum / 2^20 rounded half
 *    away from zero that the kernel computes: the taps repeat each input
 *    value the same number of times, so both are the same rational;
 *  - every other bilinear whose weights are dyadic, by tap classes: along
 *    each axis the outputs split into progressions with equal taps
 *    (tap_classes); in one pass each pair of a row and a column class is a
 *    DEPTHWISE (weights a_y * a_x) over strided IFM and OFM, in two passes
 *    (int8) the column classes go into an int16 temporary of exact sums
 *    and the row classes round from it. The sum S of the NPU's accumulator
 *    is the reference's 1/2^20 sum times 2^(g - 20), and the output stage
 *    NATURAL (2^30 + 1, 30 + g) rounds S / 2^g half away from zero as the
 *    kernel does (proof at TAP_M; checked at compile time by tap_exact).
 *    docs/compiler.md, "Bilinear by tap classes". */
#include "lower.h"
#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COPIES 64
#define MAX_PROBE 4096      /* n_in, n_out limit of the probes */
#define MAX_PROG_STEP 64    /* largest output step of a progression */

/* Runs the op on probe tensors 1 x n_in x 1 x 1 (dtype dt) -> 1 x n_out x
 * 1 x 1, once per probe: in holds n_probe x n_in elements, out gets
 * n_probe x n_out. */
static int run_probe(const graph_op *op, graph_dtype dt, int32_t n_in, int32_t n_out,
                     int32_t n_probe, const void *in, void *out, npuc_err *err)
{
    graph *t = graph_new("resize_probe");
    if (!t) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    interp *ip = NULL;
    int32_t si[4] = {1, n_in, 1, 1}, so[4] = {1, n_out, 1, 1}, s1 = 2;
    int32_t size[2] = {n_out, 1};
    size_t es = graph_dtype_size(dt);
    float scale = 1.0f;
    int64_t zp = 0;
    int32_t ti = graph_add_tensor(t, "x", dt, 4, si, NULL);
    int32_t ts = graph_add_tensor(t, "size", GRAPH_I32, 1, &s1, size);
    int32_t to = graph_add_tensor(t, "y", dt, 4, so, NULL);
    if (ti < 0 || ts < 0 || to < 0) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    if (dt != GRAPH_I32 && (graph_set_quant(t, ti, 1, &scale, &zp, 0) || graph_set_quant(t, to, 1, &scale, &zp, 0))) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    int32_t ins[2] = {ti, ts};
    int32_t oi = graph_add_op(t, op->opcode, &op->opt, 2, ins, 1, &to);
    if (oi < 0 || graph_set_io(t, 1, &ti, 1, &to)) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    t->ops[oi].version = op->version;
    interp_options io;
    memset(&io, 0, sizeof io);
    if ((rc = interp_create(t, &io, &ip, err))) goto done;
    for (int32_t p = 0; p < n_probe; p++) {
        if ((rc = interp_set_input(ip, 0, (const uint8_t *)in + (size_t)p * n_in * es, (size_t)n_in * es, err)))
            goto done;
        if ((rc = interp_invoke(ip, err))) goto done;
        size_t n = 0;
        const void *y = interp_output(ip, 0, &n);
        if (n != (size_t)n_out * es) {
            rc = npuc_errf(err, NPUC_E_RUNTIME, "resize probe gave %zu bytes", n);
            goto done;
        }
        memcpy((uint8_t *)out + (size_t)p * n_out * es, y, n);
    }
done:
    interp_free(ip);
    graph_free(t);
    return rc;
}

/* Nearest: src[v] = input index of output position v. */
static int probe_nearest(const graph_op *op, int32_t n_in, int32_t n_out, int32_t *src,
                         npuc_err *err)
{
    int32_t *x = malloc(sizeof *x * (size_t)n_in);
    if (!x) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < n_in; i++) x[i] = i;
    int rc = run_probe(op, GRAPH_I32, n_in, n_out, 1, x, src, err);
    free(x);
    if (rc) return rc;
    for (int32_t v = 0; v < n_out; v++)
        if (src[v] < 0 || src[v] >= n_in) return npuc_errf(err, NPUC_E_RUNTIME, "resize probe index %d", src[v]);
    return NPUC_OK;
}

/* Bilinear: w[v * n_in + k] = weight (1/1024) of input k in output v. */
static int probe_bilinear(const graph_op *op, int32_t n_in, int32_t n_out, int32_t *w,
                          npuc_err *err)
{
    size_t n = (size_t)n_in * n_in, no = (size_t)n_in * n_out;
    int16_t *x = calloc(n, sizeof *x), *y = malloc(sizeof *y * no);
    int rc = NPUC_OK;
    if (!x || !y) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t k = 0; k < n_in; k++) x[(size_t)k * n_in + k] = 1 << 14;
    if ((rc = run_probe(op, GRAPH_I16, n_in, n_out, n_in, x, y, err))) goto done;
    for (int32_t k = 0; k < n_in; k++)
        for (int32_t v = 0; v < n_out; v++) {
            int32_t q = y[(size_t)k * n_out + v];
            if (q % 16) {
                rc = npuc_errf(err, NPUC_E_RUNTIME, "resize probe weight %d/16", q);
                goto done;
            }
            w[(size_t)v * n_in + k] = q / 16;
        }
done:
    free(x);
    free(y);
    return rc;
}

/* Bilinear weights that are a gather: every output takes one input with
 * weight 1024; src gets it. */
static bool bl_gather(const int32_t *w, int32_t n_in, int32_t n_out, int32_t *src)
{
    for (int32_t v = 0; v < n_out; v++) {
        src[v] = -1;
        for (int32_t k = 0; k < n_in; k++) {
            int32_t q = w[(size_t)v * n_in + k];
            if (q == 0) continue;
            if (q != 1024 || src[v] >= 0) return false;
            src[v] = k;
        }
        if (src[v] < 0) return false;
    }
    return true;
}

/* TFLite's 2x bilinear pattern: the weights the NPU's upscale + 2x2
 * average with bottom/right padding realise. */
static bool bl_is_2x(const int32_t *w, int32_t n_in, int32_t n_out)
{
    if (n_out != 2 * n_in) return false;
    for (int32_t v = 0; v < n_out; v++) {
        int32_t a = v / 2;
        for (int32_t k = 0; k < n_in; k++) {
            int32_t want;
            if (v % 2 == 0) want = k == a ? 1024 : 0;
            else if (a + 1 < n_in) want = k == a || k == a + 1 ? 512 : 0;
            else want = k == a ? 1024 : 0;
            if (w[(size_t)v * n_in + k] != want) return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------- gathers */

typedef struct prog {
    int32_t o0, od, i0, id, n;
} prog;

/* Splits a map into arithmetic progressions (greedy, longest first from
 * each uncovered position). Returns the count, or -1 beyond max. */
static int32_t progressions(const int32_t *map, int32_t n_out, prog *p, int32_t max, bool *covered)
{
    memset(covered, 0, (size_t)n_out);
    int32_t np = 0;
    for (int32_t o0 = 0; o0 < n_out; o0++) {
        if (covered[o0]) continue;
        prog best = {o0, 1, map[o0], 1, 1};
        for (int32_t od = 1; od <= MAX_PROG_STEP && o0 + od < n_out; od++) {
            if (covered[o0 + od]) continue;
            int32_t id = map[o0 + od] - map[o0];
            if (id < 1) continue;
            int32_t len = 2;
            while ((int64_t)o0 + (int64_t)len * od < n_out && !covered[o0 + len * od] &&
                   (int64_t)map[o0 + len * od] == (int64_t)map[o0] + (int64_t)len * id)
                len++;
            if (len > best.n) best = (prog){o0, od, map[o0], id, len};
        }
        if (np >= max) return -1;
        p[np++] = best;
        for (int32_t k = 0; k < best.n; k++) covered[best.o0 + k * best.od] = true;
    }
    return np;
}

/* A plain NHWC feature map h x w x c at `off` of buffer `buf`, with the
 * given x/y element steps of a stored image of width full_w. */
static void fm_at(eu_fm *f, int32_t buf, uint64_t off, uint32_t h, uint32_t w, uint32_t ch, uint32_t full_w,
                  uint64_t step_x, uint64_t step_y, uint8_t bits)
{
    cc_fm_dense(f, buf, off, h, w, ch, bits, 0);
    f->full_w = full_w;
    f->sx *= step_x;
    f->sy = (uint64_t)full_w * ch * (bits / 8u) * step_y;
}

/* A 1x1 (or kh x kw) pool op; block chosen. */
static int pool_op(lower_ctx *c, uint8_t mode, const eu_fm *ifm, const eu_fm *ofm, uint8_t upscale, uint32_t k,
                   uint8_t pad_br, npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->ifm = *ifm;
    o->ofm = *ofm;
    cc_copy_op(o, ifm->bits);
    o->mode = mode;   /* MAX: a copy (one tap), or AVERAGE */
    o->upscale = upscale;
    o->kh = o->kw = k;
    o->pad_b = o->pad_r = pad_br;
    o->flex = false;
    return cc_block_or_cpu(c, o, err);
}

/* k = log2(n_out / n_in) when map[v] == v >> k for all v (k >= 1), else 0. */
static int32_t pow2_factor(const int32_t *map, int32_t n_in, int32_t n_out)
{
    for (int32_t k = 1; k <= 8; k++) {
        if ((int64_t)n_in << k != n_out) continue;
        for (int32_t v = 0; v < n_out; v++)
            if (map[v] != v >> k) return 0;
        return k;
    }
    return 0;
}

/* The gather out(y, x) = in(ym[y], xm[x]). */
static int lower_gather(lower_ctx *c, const graph_op *op, const int32_t *ym, const int32_t *xm, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    int32_t H = in->shape[1], W = in->shape[2], C = in->shape[3], OH = out->shape[1], OW = out->shape[2];
    uint8_t bits = (uint8_t)(8 * graph_dtype_size(in->dtype));
    uint64_t es = bits / 8u;
    int32_t bin = c->m->buf_of[op->in[0]], bout = c->m->buf_of[op->out[0]];
    int32_t ky = pow2_factor(ym, H, OH), kx = pow2_factor(xm, W, OW);
    if (ky && ky == kx && ky <= 4) {
        /* 2^k upscaling: k NEAREST-upscaling copies */
        int32_t src = bin;
        uint32_t h = (uint32_t)H, w = (uint32_t)W;
        for (int32_t s = 0; s < ky; s++) {
            int32_t dst = bout;
            if (s + 1 < ky) {
                dst = cc_temp_buf(c, (uint64_t)h * w * 4 * (uint64_t)C * es, err);
                if (dst < 0) return err->code;
            }
            eu_fm fi, fo;
            fm_at(&fi, src, 0, h, w, (uint32_t)C, w, 1, 1, bits);
            fm_at(&fo, dst, 0, 2 * h, 2 * w, (uint32_t)C, 2 * w, 1, 1, bits);
            int rc = pool_op(c, 0, &fi, &fo, 1, 1, 0, err);
            if (rc) return rc;
            src = dst;
            h *= 2;
            w *= 2;
        }
        return NPUC_OK;
    }
    prog *py = malloc(sizeof *py * MAX_COPIES), *px = malloc(sizeof *px * MAX_COPIES);
    bool *cov = malloc((size_t)(OH > OW ? OH : OW) + 1);
    int rc = NPUC_OK;
    if (!py || !px || !cov) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    int32_t npy = progressions(ym, OH, py, MAX_COPIES, cov);
    int32_t npx = npy < 0 ? -1 : progressions(xm, OW, px, MAX_COPIES, cov);
    if (npy < 0 || npx < 0 || npy * npx > MAX_COPIES) {
        rc = cc_cpu(c, "%dx%d -> %dx%d needs more than %d NPU copies", H, W, OH, OW, MAX_COPIES);
        goto done;
    }
    for (int32_t i = 0; i < npy && !rc; i++)
        for (int32_t j = 0; j < npx && !rc; j++) {
            const prog *a = &py[i], *b = &px[j];
            eu_fm fi, fo;
            fm_at(&fi, bin, ((uint64_t)a->i0 * (uint64_t)W + (uint64_t)b->i0) * (uint64_t)C * es, (uint32_t)a->n,
                  (uint32_t)b->n, (uint32_t)C, (uint32_t)W, (uint64_t)b->id, (uint64_t)a->id, bits);
            fm_at(&fo, bout, ((uint64_t)a->o0 * (uint64_t)OW + (uint64_t)b->o0) * (uint64_t)C * es, (uint32_t)a->n,
                  (uint32_t)b->n, (uint32_t)C, (uint32_t)OW, (uint64_t)b->od, (uint64_t)a->od, bits);
            rc = pool_op(c, 0, &fi, &fo, 0, 1, 0, err);
        }
done:
    free(py);
    free(px);
    free(cov);
    return rc;
}

/* ------------------------------------------------- bilinear tap classes */

#define MAX_TAPS 2        /* bilinear reads at most two inputs per axis */
#define MAX_TAP_OPS 64    /* most NPU ops of the tap-class form */
#define MAX_CANDIDATES 64 /* second members tried per class start */

/* One class of output positions along an axis: outputs o0 + t*od (t < n)
 * each read the k consecutive inputs i0 + t*id + j (j < k) with weights
 * a[j] / 2^g, all alike. */
typedef struct tap_class {
    int32_t o0, od, i0, id, n;
    int32_t k, g;
    int32_t a[MAX_TAPS];
} tap_class;

/* The taps of output v of an axis (w in 1/1024): first input, count, and
 * the weights; false when they are not one run of at most MAX_TAPS or
 * a weight is negative. */
static bool taps_of(const int32_t *w, int32_t n_in, int32_t v, int32_t *first, int32_t *k, int32_t *wt)
{
    const int32_t *r = w + (size_t)v * n_in;
    int32_t f = -1, l = -1;
    for (int32_t i = 0; i < n_in; i++) {
        if (r[i] < 0) return false;
        if (!r[i]) continue;
        if (f < 0) f = i;
        l = i;
    }
    if (f < 0 || l - f + 1 > MAX_TAPS) return false;
    *first = f;
    *k = l - f + 1;
    for (int32_t j = 0; j < *k; j++) wt[j] = r[f + j];
    return true;
}

/* Splits an axis (weights w[v * n_in + i] in 1/1024) into tap classes,
 * greedily: from each output not yet covered, the longest progression of
 * outputs with the same taps whose first inputs step by 1 or more (at most
 * 3 with two taps: the kernel stride). Returns the count, -1 beyond max,
 * -2 when an output's taps are not a run of at most MAX_TAPS. */
static int32_t tap_classes(const int32_t *w, int32_t n_in, int32_t n_out, tap_class *cl, int32_t max, bool *covered)
{
    int32_t (*wt)[MAX_TAPS] = malloc(sizeof *wt * (size_t)n_out);
    int32_t *f = malloc(sizeof *f * (size_t)n_out), *k = malloc(sizeof *k * (size_t)n_out);
    int32_t nc = 0;
    if (n_out < 1 || !wt || !f || !k) {
        nc = -3;
        goto done;
    }
    for (int32_t v = 0; v < n_out; v++)
        if (!taps_of(w, n_in, v, &f[v], &k[v], wt[v])) {
            nc = -2;
            goto done;
        }
    memset(covered, 0, (size_t)n_out);
#define SAME_TAPS(x, y) (k[x] == k[y] && !memcmp(wt[x], wt[y], sizeof(int32_t) * (size_t)k[x]))
    for (int32_t v0 = 0; v0 < n_out; v0++) {
        if (covered[v0]) continue;
        tap_class best = {v0, 1, f[v0], 1, 1, k[v0], 0, {0}};
        int32_t tried = 0;
        for (int32_t v1 = v0 + 1; v1 < n_out && tried < MAX_CANDIDATES; v1++) {
            if (covered[v1] || !SAME_TAPS(v0, v1)) continue;
            tried++;
            int32_t od = v1 - v0, id = f[v1] - f[v0];
            if (id < 1 || (k[v0] > 1 && id > 3)) continue;
            int32_t len = 2;
            while ((int64_t)v0 + (int64_t)len * od < n_out) {
                int32_t v = v0 + len * od;
                if (covered[v] || !SAME_TAPS(v0, v) || (int64_t)f[v] != (int64_t)f[v0] + (int64_t)len * id) break;
                len++;
            }
            if (len > best.n) {
                best.od = od;
                best.id = id;
                best.n = len;
            }
        }
#undef SAME_TAPS
        if (nc >= max) {
            nc = -1;
            goto done;
        }
        /* weights a / 2^g with g as small as it goes */
        int32_t g = 10;
        while (g > 0) {
            bool even = true;
            for (int32_t j = 0; j < best.k; j++) even = even && wt[v0][j] % (1 << (11 - g)) == 0;
            if (!even) break;
            g--;
        }
        best.g = g;
        for (int32_t j = 0; j < best.k; j++) best.a[j] = wt[v0][j] >> (10 - g);
        cl[nc++] = best;
        for (int32_t t = 0; t < best.n; t++) covered[best.o0 + t * best.od] = true;
    }
done:
    free(wt);
    free(f);
    free(k);
    return nc;
}

/* R_NATURAL(S, m, s) of the NPU's output stage (docs/ethos-u.md 5.6):
 * floor((S * m + 2^(s-1)) / 2^s), s >= 1, |S * m| < 2^62. */
static int64_t natural_rescale(int64_t S, uint32_t m, unsigned s)
{
    int64_t p = S * (int64_t)m + ((int64_t)1 << (s - 1)), d = (int64_t)1 << s;
    return p >= 0 ? p / d : -((-p + d - 1) / d);
}

/* S / 2^g rounded half away from zero: the reference's result when its
 * 1/2^20 accumulator is S * 2^(20 - g) (bl_round20, src/kernels/k_resize.c). */
static int64_t half_away(int64_t S, int32_t g)
{
    if (!g) return S;
    int64_t d = (int64_t)1 << g;
    return S >= 0 ? (S + d / 2) / d : -((-S + d / 2) / d);
}

/* The output stage of the tap form: NATURAL rounding with the multiplier
 * 2^30 + 1 and shift 30 + g, which is S / 2^g rounded half away from zero
 * (ties of a negative S tip down by the +1) while |S| < 2^29: with
 * S = q * 2^g + r (0 <= r < 2^g), S * (2^30 + 1) + 2^(29+g)
 * = q * 2^(30+g) + 2^30 * (r + 2^(g-1)) + S, and |S| < 2^29 decides only
 * the tie r = 2^(g-1), by the sign of S. */
#define TAP_M (((uint32_t)1 << 30) + 1u)
#define TAP_S(g) ((uint8_t)(30 + (g)))

/* Whether the output stage equals the reference for every sum S in
 * [smin, smax]: the lemma's bound, then every S of a small range, or every
 * residue r at the extreme and central quotients of a large one. */
static bool tap_exact(int32_t g, int64_t smin, int64_t smax)
{
    if (smin <= -((int64_t)1 << 29) || smax >= ((int64_t)1 << 29)) return false;
    unsigned s = TAP_S(g);
    if (smax - smin < ((int64_t)1 << 20)) {
        for (int64_t S = smin; S <= smax; S++)
            if (natural_rescale(S, TAP_M, s) != half_away(S, g)) return false;
        return true;
    }
    int64_t d = (int64_t)1 << g;
    int64_t qmin = smin >= 0 ? smin / d : -((-smin + d - 1) / d), qmax = smax >= 0 ? smax / d : -((-smax + d - 1) / d);
    int64_t qs[6] = {qmin, qmin + 1, -1, 0, qmax - 1, qmax};
    for (int i = 0; i < 6; i++)
        for (int64_t r = 0; r < d; r++) {
            int64_t S = qs[i] * d + r;
            if (S < smin || S > smax) continue;
            if (natural_rescale(S, TAP_M, s) != half_away(S, g)) return false;
        }
    return true;
}

/* Proven (g, smin, smax) of one lowering, so that each is checked once. */
typedef struct exact_memo {
    int32_t n;
    struct { int32_t g; int64_t lo, hi; } e[16];
} exact_memo;

static bool tap_exact_memo(exact_memo *m, int32_t g, int64_t smin, int64_t smax)
{
    for (int32_t i = 0; i < m->n; i++)
        if (m->e[i].g == g && m->e[i].lo <= smin && smax <= m->e[i].hi) return true;
    if (!tap_exact(g, smin, smax)) return false;
    if (m->n < 16) {
        m->e[m->n].g = g;
        m->e[m->n].lo = smin;
        m->e[m->n].hi = smax;
        m->n++;
    }
    return true;
}

/* The largest tap weight of an axis's classes, each scaled to 1/2^gmax
 * (gmax < 0: in its own 1/2^g). */
static int32_t tap_amax(const tap_class *cl, int32_t n, int32_t gmax)
{
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < cl[i].k; j++) {
            int32_t a = gmax < 0 ? cl[i].a[j] : cl[i].a[j] << (gmax - cl[i].g);
            if (a > m) m = a;
        }
    return m;
}

static int32_t tap_gmax(const tap_class *cl, int32_t n)
{
    int32_t g = 0;
    for (int32_t i = 0; i < n; i++)
        if (cl[i].g > g) g = cl[i].g;
    return g;
}

/* The sum of a class's weights, in 1/2^g of its own g. */
static int64_t tap_sum(const tap_class *cl)
{
    int64_t s = 0;
    for (int32_t j = 0; j < cl->k; j++) s += cl->a[j];
    return s;
}

/* One NPU op of the tap forms: a DEPTHWISE over ifm -> ofm with the kh x kw
 * weights w[ky * kw + kx] (>= 0, up to 255 for an 8-bit IFM, 127 for a
 * 16-bit one) on every channel, kernel strides sy, sx, the output stage
 * (m, s) in NATURAL rounding, the clamp the OFM type's range; or, for one
 * tap of weight 1 with the unit stage at equal precisions, a raw copy. */
static int tap_op(lower_ctx *c, const eu_fm *ifm, const eu_fm *ofm, uint32_t kh, uint32_t kw, uint8_t sy,
                  uint8_t sx, const int32_t *w, uint32_t m, uint8_t s, npuc_err *err)
{
    bool unit = kh == 1 && kw == 1 && w[0] == 1 && ((m == TAP_M && s == TAP_S(0)) || (m == 1 && s == 0));
    if (unit && ifm->bits == ofm->bits) return pool_op(c, 0, ifm, ofm, 0, 1, 0, err);
    uint32_t C = ofm->c;
    int32_t wmax = 0;
    for (uint32_t i = 0; i < kh * kw; i++)
        if (w[i] > wmax) wmax = w[i];
    int32_t wzp = wmax > 127 ? -128 : 0;   /* 9-bit weights, all >= 0 */
    int8_t *wbuf = malloc((size_t)kh * kw * C);
    if (!wbuf) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < kh * kw; i++) memset(wbuf + (size_t)i * C, (int8_t)(w[i] + wzp), C);
    static const float one = 1.0f;
    static const int64_t zero = 0;
    graph_tensor wt, tin, tout;
    memset(&wt, 0, sizeof wt);
    wt.dtype = GRAPH_I8;
    wt.q.n = 1;
    wt.q.scale = (float *)&one;
    wt.q.zero_point = (int64_t *)&zero;
    tin = tout = wt;
    tin.dtype = ifm->bits == 16 ? GRAPH_I16 : GRAPH_I8;
    tout.dtype = ofm->bits == 16 ? GRAPH_I16 : GRAPH_I8;
    wop p;
    memset(&p, 0, sizeof p);
    p.in = &tin;
    p.w = &wt;
    p.out = &tout;
    p.O = p.I = C;
    p.kh = kh;
    p.kw = kw;
    p.depthwise = true;
    p.wdata = wbuf;
    p.layout = 1;
    p.wzp = wzp;
    p.fixed_scale = true;
    p.fixed_m = m;
    p.fixed_s = s;
    p.fixed_round = 2;   /* NATURAL */
    int rc = NPUC_OK;
    eu_op *o = cc_new_eu(c, err);
    if (!o) {
        rc = err->code;
        goto done;
    }
    o->kind = SIM_K_DEPTHWISE;
    o->ifm = *ifm;
    o->ofm = *ofm;
    o->kh = kh;
    o->kw = kw;
    o->stride_y = sy;
    o->stride_x = sx;
    o->pkf = false;
    o->flex = false;
    int32_t first = (int32_t)(o - c->e->ops);
    rc = cc_block_or_cpu(c, o, err);
    if (!rc) rc = cc_encode_weighted(c, o, &p, err);
    for (int32_t k = first; !rc && k < c->e->n_eu; k++) {
        /* raw values: the type's whole range */
        c->e->ops[k].act_min = ofm->bits == 16 ? INT16_MIN : INT8_MIN;
        c->e->ops[k].act_max = ofm->bits == 16 ? INT16_MAX : INT8_MAX;
    }
done:
    free(wbuf);
    return rc;
}

/* The feature map a class pair reads from a stored h_full x w x C image
 * (at `buf`), and its kernel strides: with one tap the class's input step
 * is the IFM stride, with two it is the kernel's. A NULL class is the
 * whole axis, one tap per position. */
static void tap_ifm(eu_fm *f, int32_t buf, uint32_t W, uint32_t C, uint8_t bits, const tap_class *a,
                    const tap_class *b, uint32_t h_all, uint8_t *sy, uint8_t *sx)
{
    uint32_t ih = a ? (uint32_t)(a->k == 1 ? a->n : (a->n - 1) * a->id + a->k) : h_all;
    uint32_t iw = b ? (uint32_t)(b->k == 1 ? b->n : (b->n - 1) * b->id + b->k) : W;
    uint64_t y0 = a ? (uint64_t)a->i0 : 0, x0 = b ? (uint64_t)b->i0 : 0;
    fm_at(f, buf, (y0 * W + x0) * C * (bits / 8u), ih, iw, C, W, b && b->k == 1 ? (uint64_t)b->id : 1u,
          a && a->k == 1 ? (uint64_t)a->id : 1u, bits);
    *sy = (uint8_t)(a && a->k > 1 && a->n > 1 ? a->id : 1);
    *sx = (uint8_t)(b && b->k > 1 && b->n > 1 ? b->id : 1);
}

/* The feature map a class pair writes in a stored OH_all x OW x C image. */
static void tap_ofm(eu_fm *f, int32_t buf, uint32_t OW, uint32_t C, uint8_t bits, const tap_class *a,
                    const tap_class *b, uint32_t h_all)
{
    uint64_t y0 = a ? (uint64_t)a->o0 : 0, x0 = b ? (uint64_t)b->o0 : 0;
    fm_at(f, buf, (y0 * OW + x0) * C * (bits / 8u), a ? (uint32_t)a->n : h_all, b ? (uint32_t)b->n : OW, C, OW,
          b ? (uint64_t)b->od : 1u, a ? (uint64_t)a->od : 1u, bits);
}

/* One pass: each pair of a row class and a column class is one NPU op
 * writing those outputs (strided OFM) from the inputs they read, weights
 * a_y * a_x, output stage TAP_M / TAP_S(g_y + g_x). 0, 1 (reason in
 * c->why) or an error. */
static int lower_taps(lower_ctx *c, const graph_op *op, const tap_class *cy, int32_t ny, const tap_class *cx,
                      int32_t nx, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    uint32_t W = (uint32_t)in->shape[2], C = (uint32_t)in->shape[3], OW = (uint32_t)out->shape[2];
    bool wide = in->dtype == GRAPH_I16;
    uint8_t bits = wide ? 16 : 8;
    int64_t lo = wide ? INT16_MIN : INT8_MIN, hi = wide ? INT16_MAX : INT8_MAX;
    int32_t bin = c->m->buf_of[op->in[0]], bout = c->m->buf_of[op->out[0]];
    exact_memo memo = {0};
    for (int32_t i = 0; i < ny; i++)
        for (int32_t j = 0; j < nx; j++) {
            int64_t sum = tap_sum(&cy[i]) * tap_sum(&cx[j]);
            if (!tap_exact_memo(&memo, cy[i].g + cx[j].g, sum * lo, sum * hi)) {
                cc_reason(c->why, CC_WHY_SIZE, "the NPU's rounding of a sum over 2^%d is not provably the reference's",
                          cy[i].g + cx[j].g);
                return 1;
            }
        }
    int rc = NPUC_OK;
    for (int32_t i = 0; i < ny && !rc; i++)
        for (int32_t j = 0; j < nx && !rc; j++) {
            const tap_class *a = &cy[i], *b = &cx[j];
            int32_t w[MAX_TAPS * MAX_TAPS];
            for (int32_t ky = 0; ky < a->k; ky++)
                for (int32_t kx = 0; kx < b->k; kx++) w[ky * b->k + kx] = a->a[ky] * b->a[kx];
            eu_fm fi, fo;
            uint8_t sy, sx;
            tap_ifm(&fi, bin, W, C, bits, a, b, 0, &sy, &sx);
            tap_ofm(&fo, bout, OW, C, bits, a, b, 0);
            rc = tap_op(c, &fi, &fo, (uint32_t)a->k, (uint32_t)b->k, sy, sx, w, TAP_M, TAP_S(a->g + b->g), err);
        }
    return rc;
}

/* Two passes (int8): first every column class over all rows into an int16
 * temporary T (H x OW): exact sums of the inputs times the column weights
 * scaled to 1/2^gx (gx the largest column g), output stage (1, 0), no
 * rounding; then every row class over all columns of T, weights a_y,
 * output stage TAP_M / TAP_S(g_y + gx): the same sum S, rounded once. */
static int lower_taps2(lower_ctx *c, const graph_op *op, const tap_class *cy, int32_t ny, const tap_class *cx,
                       int32_t nx, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    uint32_t H = (uint32_t)in->shape[1], W = (uint32_t)in->shape[2], C = (uint32_t)in->shape[3];
    uint32_t OW = (uint32_t)out->shape[2];
    int32_t gx = tap_gmax(cx, nx);
    /* T's range: the largest column sum (1 for bilinear) times the input's */
    int64_t tsum = 0;
    for (int32_t j = 0; j < nx; j++)
        if (tap_sum(&cx[j]) << (gx - cx[j].g) > tsum) tsum = tap_sum(&cx[j]) << (gx - cx[j].g);
    if (tsum * INT8_MIN < INT16_MIN || tsum * INT8_MAX > INT16_MAX) {
        cc_reason(c->why, CC_WHY_SIZE, "column sums of %lld/%d do not fit the int16 intermediate", (long long)tsum,
                  1 << gx);
        return 1;
    }
    exact_memo memo = {0};
    for (int32_t i = 0; i < ny; i++) {
        int64_t sum = tap_sum(&cy[i]) * tsum;
        if (!tap_exact_memo(&memo, cy[i].g + gx, sum * INT8_MIN, sum * INT8_MAX)) {
            cc_reason(c->why, CC_WHY_SIZE, "the NPU's rounding of a sum over 2^%d is not provably the reference's",
                      cy[i].g + gx);
            return 1;
        }
    }
    int32_t bin = c->m->buf_of[op->in[0]], bout = c->m->buf_of[op->out[0]];
    int32_t bt = cc_temp_buf(c, (uint64_t)H * OW * C * 2u, err);
    if (bt < 0) return err->code;
    int rc = NPUC_OK;
    for (int32_t j = 0; j < nx && !rc; j++) {
        const tap_class *b = &cx[j];
        int32_t w[MAX_TAPS];
        for (int32_t kx = 0; kx < b->k; kx++) w[kx] = b->a[kx] << (gx - b->g);
        eu_fm fi, fo;
        uint8_t sy, sx;
        tap_ifm(&fi, bin, W, C, 8, NULL, b, H, &sy, &sx);
        tap_ofm(&fo, bt, OW, C, 16, NULL, b, H);
        rc = tap_op(c, &fi, &fo, 1, (uint32_t)b->k, sy, sx, w, 1, 0, err);
    }
    for (int32_t i = 0; i < ny && !rc; i++) {
        const tap_class *a = &cy[i];
        eu_fm fi, fo;
        uint8_t sy, sx;
        tap_ifm(&fi, bt, OW, C, 16, a, NULL, 0, &sy, &sx);
        tap_ofm(&fo, bout, OW, C, 8, a, NULL, 0);
        rc = tap_op(c, &fi, &fo, (uint32_t)a->k, 1, sy, sx, a->a, TAP_M, TAP_S(a->g + gx), err);
    }
    return rc;
}

/* Bilinear by tap classes (see the top of the file): one pass when its
 * ops and weights fit, else two passes (int8). 0, 1 or an error. */
static int lower_bl_taps(lower_ctx *c, const graph_op *op, const int32_t *wy, const int32_t *wx, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    int32_t H = in->shape[1], W = in->shape[2], OH = out->shape[1], OW = out->shape[2];
    bool wide = in->dtype == GRAPH_I16;
    const char *flags = op->opt.align_corners        ? " (align_corners)"
                        : op->opt.half_pixel_centers ? " (half_pixel_centers)"
                                                     : "";
    tap_class *cy = malloc(sizeof *cy * (size_t)OH), *cx = malloc(sizeof *cx * (size_t)OW);
    bool *cov = malloc((size_t)(OH > OW ? OH : OW) + 1);
    int32_t ny = -3, nx = -3;
    int rc = NPUC_OK;
    if (cy && cx && cov) {
        ny = tap_classes(wy, H, OH, cy, OH, cov);
        nx = ny < 0 ? ny : tap_classes(wx, W, OW, cx, OW, cov);
    }
    if (ny == -3 || nx == -3) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    if (ny < 0 || nx < 0) {
        rc = cc_cpu(c, "bilinear %dx%d -> %dx%d%s: an output's weights are not %d adjacent taps", H, W, OH, OW, flags,
                    MAX_TAPS);
        goto done;
    }
    int32_t gx = tap_gmax(cx, nx);
    int32_t ay = tap_amax(cy, ny, -1), ax = tap_amax(cx, nx, -1), ax2 = tap_amax(cx, nx, gx);
    /* one pass: products a_y * a_x; 9-bit weights for an 8-bit IFM, int8
     * ones for a 16-bit IFM (the 16x8 ops) */
    bool w1 = (int64_t)ay * ax <= (wide ? 127 : 255), n1 = (int64_t)ny * nx <= MAX_TAP_OPS;
    /* two passes (int8 only: T must fit int16): column weights at 1/2^gx
     * on the 8-bit input, row weights on the 16-bit T */
    bool w2 = !wide && ax2 <= 255 && ay <= 127 && gx <= 8, n2 = ny + nx <= MAX_TAP_OPS;
    const char *form = NULL;
    if (w1 && n1) {
        rc = lower_taps(c, op, cy, ny, cx, nx, err);
        form = "one pass";
    } else if (w2 && n2) {
        rc = lower_taps2(c, op, cy, ny, cx, nx, err);
        form = "two passes";
    } else if (!w1 && !w2) {
        rc = cc_cpu(c, "bilinear %dx%d -> %dx%d%s: tap weight products up to %d x %d are beyond the NPU's %s weights%s",
                    H, W, OH, OW, flags, ay, ax, wide ? "int8 (16-bit input)" : "9-bit",
                    wide ? " (two passes take int8 only)" : "");
    } else {
        rc = cc_cpu(c, "bilinear %dx%d -> %dx%d%s: %d x %d output classes of equal taps need more than %d NPU ops",
                    H, W, OH, OW, flags, ny, nx, MAX_TAP_OPS);
    }
    if (rc == 1 && form) {
        char reason[CC_WHY_SIZE];
        snprintf(reason, sizeof reason, "%s", c->why);
        rc = cc_cpu(c, "bilinear %dx%d -> %dx%d%s, %s: %s", H, W, OH, OW, flags, form, reason);
    }
done:
    free(cy);
    free(cx);
    free(cov);
    return rc;
}

static int lower_resize(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool bilinear = op->opcode == TFL_OP_RESIZE_BILINEAR;
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s -> %s tensors (the NPU form takes int8 or int16)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (in->rank != 4 || out->rank != 4) return cc_cpu(c, "tensors are not 4-d");
    if (in->shape[0] != 1) return cc_cpu(c, "batch %d (the NPU form takes 1)", in->shape[0]);
    int32_t H = in->shape[1], W = in->shape[2], C = in->shape[3], OH = out->shape[1], OW = out->shape[2];
    if (C < 1 || C > 65536 || H > 65536 || W > 65536 || OH > 65536 || OW > 65536)
        return cc_cpu(c, "dimensions beyond the NPU's 65536");
    if (H > MAX_PROBE || W > MAX_PROBE || OH > MAX_PROBE || OW > MAX_PROBE)
        return cc_cpu(c, "sizes above %d are not analysed", MAX_PROBE);
    if (c->m->buf_of[op->in[0]] < 0 || c->m->buf_of[op->out[0]] < 0) return cc_cpu(c, "constant input");
    int32_t *ym = malloc(sizeof *ym * (size_t)OH), *xm = malloc(sizeof *xm * (size_t)OW);
    int32_t *wy = NULL, *wx = NULL;
    int rc = NPUC_OK;
    if (!ym || !xm) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    npuc_err e2;
    memset(&e2, 0, sizeof e2);
    if (!bilinear) {
        if (probe_nearest(op, H, OH, ym, &e2) || probe_nearest(op, W, OW, xm, &e2)) {
            rc = cc_cpu(c, "the reference rejects the probe: %s", e2.msg);
            goto done;
        }
        rc = lower_gather(c, op, ym, xm, err);
        goto done;
    }
    if ((uint64_t)H * (uint64_t)OH > ((uint64_t)1 << 22) || (uint64_t)W * (uint64_t)OW > ((uint64_t)1 << 22)) {
        rc = cc_cpu(c, "sizes too large to analyse the bilinear weights");
        goto done;
    }
    wy = malloc(sizeof *wy * (size_t)H * (size_t)OH);
    wx = malloc(sizeof *wx * (size_t)W * (size_t)OW);
    if (!wy || !wx) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    if (probe_bilinear(op, H, OH, wy, &e2) || probe_bilinear(op, W, OW, wx, &e2)) {
        rc = cc_cpu(c, "the reference rejects the probe: %s", e2.msg);
        goto done;
    }
    if (bl_gather(wy, H, OH, ym) && bl_gather(wx, W, OW, xm)) {
        rc = lower_gather(c, op, ym, xm, err);
        goto done;
    }
    if (bl_is_2x(wy, H, OH) && bl_is_2x(wx, W, OW)) {
        eu_fm fi, fo;
        uint8_t bits = (uint8_t)(8 * graph_dtype_size(in->dtype));
        fm_at(&fi, c->m->buf_of[op->in[0]], 0, (uint32_t)H, (uint32_t)W, (uint32_t)C, (uint32_t)W, 1, 1, bits);
        fm_at(&fo, c->m->buf_of[op->out[0]], 0, (uint32_t)OH, (uint32_t)OW, (uint32_t)C, (uint32_t)OW, 1, 1, bits);
        rc = pool_op(c, 1, &fi, &fo, 1, 2, 1, err);
        goto done;
    }
    rc = lower_bl_taps(c, op, wy, wx, err);
done:
    free(ym);
    free(xm);
    free(wy);
    free(wx);
    return rc;
}

static const lower_impl resize_ops[] = {
    {TFL_OP_RESIZE_NEAREST_NEIGHBOR, lower_resize},
    {TFL_OP_RESIZE_BILINEAR, lower_resize},
};

LOWER_OPS_TABLE(lower_ops_resize, resize_ops)
