/* Kernels of the signal library (k_op_custom.h, docs/kernels-custom.md):
 * the audio front end's ops TFLite Micro ships in signal/micro/kernels,
 * bit for bit: window, FFT auto scale, the int16 real FFT (kiss_fft 1.3.0
 * in fixed point, 16 bits), energy, filter bank, its square root, spectral
 * subtraction, PCAN gain control and the filter bank's log.
 *
 * Where TFLite Micro's C++ leaves a result to the platform (a signed shift
 * of a negative value, a sum that leaves int32, a narrowing conversion),
 * these kernels take what GCC and Clang give on every target TFLite Micro
 * runs on: arithmetic right shifts, two's complement wrapping. */
#include "k_op_internal.h"

#include <math.h>

/* ---- shared helpers ------------------------------------------------------- */

/* Bits of x up to its highest set bit, and for 0 the type's width, as
 * TFLite Micro's MostSignificantBit32 / 64 built with GCC or Clang give
 * (width - clz, and the width for 0). */
static int32_t msb(uint64_t x, int32_t width)
{
    if (!x) return width;
    int32_t n = 0;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

static inline int32_t msb32(uint32_t x) { return msb(x, 32); }

static inline int32_t asr32(int32_t v, int32_t s) { return v >> s; }

/* ---- SignalWindow ----------------------------------------------------------- */

static int window_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_window_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.wlen, 1) || b.n < 0 || b.n % b.wlen || !k_op_in_range(b.shift, 0, 31)) return K_E_INVALID;
    if (!io) return K_OK;
    void *pi, *pw, *po;
    int rc = k_op_in(io, 0, 2u * (uint64_t)b.n, 2, &pi);
    if (!rc) rc = k_op_in(io, 1, 2u * (uint64_t)b.wlen, 2, &pw);
    if (!rc) rc = k_op_out(io, 0, 2u * (uint64_t)b.n, 2, &po);
    if (rc) return rc;
    const int16_t *in = pi, *w = pw;
    int16_t *out = po;
    for (int32_t i = 0; i < b.n; i++) {
        const int32_t raw = asr32((int32_t)in[i] * w[i % b.wlen], b.shift);
        out[i] = (int16_t)(raw < INT16_MIN ? INT16_MIN : raw > INT16_MAX ? INT16_MAX : raw);
    }
    return K_OK;
}

/* ---- SignalFftAutoScale ------------------------------------------------------- */

static int fft_auto_scale_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_sig_n_blob b;
    K_OP_LOAD(b, blob, size);
    if (b.n < 0 || b.n > K_OP_MAX_DIM) return K_E_INVALID;
    if (!io) return K_OK;
    void *pi, *po, *ps;
    int rc = k_op_in(io, 0, 2u * (uint64_t)b.n, 2, &pi);
    if (!rc) rc = k_op_out(io, 0, 2u * (uint64_t)b.n, 2, &po);
    if (!rc) rc = k_op_out(io, 1, 4, 4, &ps);
    if (rc) return rc;
    const int16_t *in = pi;
    int16_t *out = po;
    /* the largest magnitude as TFLite Micro's MaxAbs16 keeps it: an int16,
     * so -32768 stays -32768 (its MSB as a uint32 is 32: no scaling) */
    int16_t max = 0;
    for (int32_t i = 0; i < b.n; i++) {
        const int16_t v = in[i];
        if (v > max) max = v;
        else if (-(int32_t)v > max) max = (int16_t)-(int32_t)v;
    }
    int32_t bits = 16 - msb32((uint32_t)(int32_t)max) - 1;
    if (bits < 0) bits = 0;
    for (int32_t i = 0; i < b.n; i++) out[i] = (int16_t)((int32_t)in[i] * (1 << bits));
    memcpy(ps, &bits, 4);
    return K_OK;
}

/* ---- SignalRfft (int16): kiss_fft 1.3.0, FIXED_POINT 16 ------------------------- */

typedef struct cpx {
    int16_t r, i;
} cpx;

/* sround(x): round the Q15 product, then narrow to int16 (kiss_fft_scalar). */
static inline int16_t sround(int32_t x) { return (int16_t)((x + (1 << 14)) >> 15); }
static inline int16_t smulr(int16_t a, int16_t b) { return sround((int32_t)a * b); }

static inline cpx cmul(cpx a, cpx b)
{
    cpx m;
    m.r = sround((int32_t)a.r * b.r - (int32_t)a.i * b.i);
    m.i = sround((int32_t)a.r * b.i + (int32_t)a.i * b.r);
    return m;
}

/* C_FIXDIV: each part times SAMP_MAX / div (integer division), rounded. */
static inline void fixdiv(cpx *c, int32_t div)
{
    const int16_t k = (int16_t)(32767 / div);
    c->r = smulr(c->r, k);
    c->i = smulr(c->i, k);
}

static inline cpx cadd(cpx a, cpx b) { return (cpx){(int16_t)(a.r + b.r), (int16_t)(a.i + b.i)}; }
static inline cpx csub(cpx a, cpx b) { return (cpx){(int16_t)(a.r - b.r), (int16_t)(a.i - b.i)}; }

typedef struct fft_plan {
    const int32_t *factors;
    const cpx *tw;
    int32_t nfft;
    cpx *scratch;   /* max_radix values (the generic butterfly) */
} fft_plan;

static void bfly2(cpx *f, size_t fstride, const fft_plan *st, int32_t m)
{
    const cpx *tw = st->tw;
    cpx *f2 = f + m;
    for (int32_t k = 0; k < m; k++) {
        fixdiv(&f[k], 2);
        fixdiv(&f2[k], 2);
        const cpx t = cmul(f2[k], *tw);
        tw += fstride;
        f2[k] = csub(f[k], t);
        f[k] = cadd(f[k], t);
    }
}

static void bfly3(cpx *f, size_t fstride, const fft_plan *st, int32_t m)
{
    const cpx *tw1 = st->tw, *tw2 = st->tw;
    const cpx epi3 = st->tw[fstride * (size_t)m];
    const size_t m2 = 2 * (size_t)m;
    for (int32_t k = 0; k < m; k++, f++) {
        fixdiv(&f[0], 3);
        fixdiv(&f[m], 3);
        fixdiv(&f[m2], 3);
        const cpx s1 = cmul(f[m], *tw1), s2 = cmul(f[m2], *tw2);
        const cpx s3 = cadd(s1, s2);
        cpx s0 = csub(s1, s2);
        tw1 += fstride;
        tw2 += 2 * fstride;
        f[m].r = (int16_t)(f[0].r - (s3.r >> 1));
        f[m].i = (int16_t)(f[0].i - (s3.i >> 1));
        s0.r = smulr(s0.r, epi3.i);
        s0.i = smulr(s0.i, epi3.i);
        f[0] = cadd(f[0], s3);
        f[m2].r = (int16_t)(f[m].r + s0.i);
        f[m2].i = (int16_t)(f[m].i - s0.r);
        f[m].r = (int16_t)(f[m].r - s0.i);
        f[m].i = (int16_t)(f[m].i + s0.r);
    }
}

static void bfly4(cpx *f, size_t fstride, const fft_plan *st, int32_t m)
{
    const cpx *tw1 = st->tw, *tw2 = st->tw, *tw3 = st->tw;
    const size_t m2 = 2 * (size_t)m, m3 = 3 * (size_t)m;
    for (int32_t k = 0; k < m; k++, f++) {
        fixdiv(&f[0], 4);
        fixdiv(&f[m], 4);
        fixdiv(&f[m2], 4);
        fixdiv(&f[m3], 4);
        const cpx s0 = cmul(f[m], *tw1), s1 = cmul(f[m2], *tw2), s2 = cmul(f[m3], *tw3);
        const cpx s5 = csub(f[0], s1);
        f[0] = cadd(f[0], s1);
        const cpx s3 = cadd(s0, s2), s4 = csub(s0, s2);
        f[m2] = csub(f[0], s3);
        tw1 += fstride;
        tw2 += 2 * fstride;
        tw3 += 3 * fstride;
        f[0] = cadd(f[0], s3);
        f[m].r = (int16_t)(s5.r + s4.i);
        f[m].i = (int16_t)(s5.i - s4.r);
        f[m3].r = (int16_t)(s5.r - s4.i);
        f[m3].i = (int16_t)(s5.i + s4.r);
    }
}

static void bfly5(cpx *f, size_t fstride, const fft_plan *st, int32_t m)
{
    const cpx *tw = st->tw;
    const cpx ya = tw[fstride * (size_t)m], yb = tw[fstride * 2 * (size_t)m];
    cpx *f0 = f, *f1 = f + m, *f2 = f + 2 * (size_t)m, *f3 = f + 3 * (size_t)m, *f4 = f + 4 * (size_t)m;
    for (int32_t u = 0; u < m; u++) {
        fixdiv(f0, 5);
        fixdiv(f1, 5);
        fixdiv(f2, 5);
        fixdiv(f3, 5);
        fixdiv(f4, 5);
        const cpx s0 = *f0;
        const size_t uu = (size_t)u * fstride;
        const cpx s1 = cmul(*f1, tw[uu]), s2 = cmul(*f2, tw[2 * uu]), s3 = cmul(*f3, tw[3 * uu]),
                  s4 = cmul(*f4, tw[4 * uu]);
        const cpx s7 = cadd(s1, s4), s10 = csub(s1, s4), s8 = cadd(s2, s3), s9 = csub(s2, s3);
        f0->r = (int16_t)(f0->r + (s7.r + s8.r));
        f0->i = (int16_t)(f0->i + (s7.i + s8.i));
        cpx s5, s6, s11, s12;
        s5.r = (int16_t)(s0.r + smulr(s7.r, ya.r) + smulr(s8.r, yb.r));
        s5.i = (int16_t)(s0.i + smulr(s7.i, ya.r) + smulr(s8.i, yb.r));
        s6.r = (int16_t)(smulr(s10.i, ya.i) + smulr(s9.i, yb.i));
        s6.i = (int16_t)(-smulr(s10.r, ya.i) - smulr(s9.r, yb.i));
        *f1 = csub(s5, s6);
        *f4 = cadd(s5, s6);
        s11.r = (int16_t)(s0.r + smulr(s7.r, yb.r) + smulr(s8.r, ya.r));
        s11.i = (int16_t)(s0.i + smulr(s7.i, yb.r) + smulr(s8.i, ya.r));
        s12.r = (int16_t)(-smulr(s10.i, yb.i) + smulr(s9.i, ya.i));
        s12.i = (int16_t)(smulr(s10.r, yb.i) - smulr(s9.r, ya.i));
        *f2 = cadd(s11, s12);
        *f3 = csub(s11, s12);
        f0++, f1++, f2++, f3++, f4++;
    }
}

static void bfly_generic(cpx *f, size_t fstride, const fft_plan *st, int32_t m, int32_t p)
{
    cpx *scratch = st->scratch;
    for (int32_t u = 0; u < m; u++) {
        size_t k = (size_t)u;
        for (int32_t q1 = 0; q1 < p; q1++, k += (size_t)m) {
            scratch[q1] = f[k];
            fixdiv(&scratch[q1], p);
        }
        k = (size_t)u;
        for (int32_t q1 = 0; q1 < p; q1++, k += (size_t)m) {
            size_t twidx = 0;
            f[k] = scratch[0];
            for (int32_t q = 1; q < p; q++) {
                twidx += fstride * k;
                if (twidx >= (size_t)st->nfft) twidx -= (size_t)st->nfft;
                f[k] = cadd(f[k], cmul(scratch[q], st->tw[twidx]));
            }
        }
    }
}

/* kf_work: the DFT of p * m points of in (stride fstride) into out, as p
 * DFTs of m points recombined by a radix-p butterfly. */
static void fft_work(cpx *out, const cpx *in, size_t fstride, const int32_t *factors, const fft_plan *st)
{
    const int32_t p = factors[0], m = factors[1];
    if (m == 1) {
        for (int32_t j = 0; j < p; j++, in += fstride) out[j] = *in;
    } else {
        for (int32_t j = 0; j < p; j++, in += fstride) fft_work(out + (size_t)j * (size_t)m, in, fstride * (size_t)p, factors + 2, st);
    }
    switch (p) {
    case 2: bfly2(out, fstride, st, m); break;
    case 3: bfly3(out, fstride, st, m); break;
    case 4: bfly4(out, fstride, st, m); break;
    case 5: bfly5(out, fstride, st, m); break;
    default: bfly_generic(out, fstride, st, m, p); break;
    }
}

/* kf_factor: powers of 4, then 2, then odd factors up to floor(sqrt(n)),
 * then what is left (n = 1 gives the one stage p = 1, m = 1). Returns the
 * stage count, 0 past 32 stages (none below 2^64). */
static int32_t fft_factor(int32_t n, int32_t *fac)
{
    int32_t p = 4, k = 0;
    const double floor_sqrt = floor(sqrt((double)n));
    do {
        if (k == 32) return 0;
        while (n % p) {
            switch (p) {
            case 4: p = 2; break;
            case 2: p = 3; break;
            default: p += 2; break;
            }
            if (p > floor_sqrt) p = n;
        }
        n /= p;
        fac[2 * k] = p;
        fac[2 * k + 1] = n;
        k++;
    } while (n > 1);
    return k;
}

static bool rfft_sizes(int32_t fft_length, uint32_t *factors_off, uint32_t *tw_off, uint32_t *super_off,
                       uint32_t *total)
{
    if (fft_length < 2 || fft_length > K_RFFT_MAX || fft_length % 2) return false;
    const uint32_t ncfft = (uint32_t)fft_length / 2;
    *factors_off = (uint32_t)sizeof(k_op_rfft_blob);
    *tw_off = *factors_off + 2 * 32 * 4;
    *super_off = *tw_off + 4 * ncfft;
    *total = *super_off + 4 * (ncfft / 2) + 4;
    return true;
}

uint32_t k_rfft_blob_bytes(int32_t fft_length)
{
    uint32_t a, b, c, total;
    return rfft_sizes(fft_length, &a, &b, &c, &total) ? total : 0;
}

int k_rfft_plan(int32_t fft_length, int32_t input_length, int32_t frames, uint8_t *blob, uint32_t blob_size)
{
    uint32_t factors_off, tw_off, super_off, total;
    if (!rfft_sizes(fft_length, &factors_off, &tw_off, &super_off, &total) || blob_size < total ||
        input_length < 1 || input_length > fft_length || frames < 0)
        return K_E_INVALID;
    memset(blob, 0, total);
    const int32_t ncfft = fft_length / 2;
    int32_t fac[64];
    const int32_t nf = fft_factor(ncfft, fac);
    if (nf == 0) return K_E_INVALID;
    k_op_rfft_blob b = {fft_length, input_length, frames, nf, factors_off, tw_off, super_off, 0};
    for (int32_t k = 0; k < nf; k++)
        if (fac[2 * k] > b.max_radix) b.max_radix = fac[2 * k];
    memcpy(blob, &b, sizeof b);
    memcpy(blob + factors_off, fac, sizeof(int32_t) * 2 * (size_t)b.n_factors);
    /* kiss_fft_alloc's twiddles: floor(0.5 + 32767 cos(-2 pi i / n)), the
     * same for sin; kiss_fftr_alloc's: the phase -pi ((i + 1) / n + 1/2) */
    const double pi = 3.14159265358979323846264338327950288;
    for (int32_t i = 0; i < ncfft; i++) {
        const double phase = -2 * pi * i / ncfft;
        const int16_t t[2] = {(int16_t)floor(.5 + 32767 * cos(phase)), (int16_t)floor(.5 + 32767 * sin(phase))};
        memcpy(blob + tw_off + 4 * (uint32_t)i, t, 4);
    }
    for (int32_t i = 0; i < ncfft / 2; i++) {
        const double phase = -pi * ((double)(i + 1) / ncfft + .5);
        const int16_t t[2] = {(int16_t)floor(.5 + 32767 * cos(phase)), (int16_t)floor(.5 + 32767 * sin(phase))};
        memcpy(blob + super_off + 4 * (uint32_t)i, t, 4);
    }
    return K_OK;
}

static bool rfft_ok(const k_op_rfft_blob *b, uint32_t size)
{
    uint32_t factors_off, tw_off, super_off, total;
    if (!rfft_sizes(b->fft_length, &factors_off, &tw_off, &super_off, &total) || size < total ||
        b->factors_off != factors_off || b->tw_off != tw_off || b->super_off != super_off)
        return false;
    return k_op_in_range(b->input_length, 1, b->fft_length) && k_op_dim(b->frames, 0) &&
           k_op_in_range(b->n_factors, 1, 32) && k_op_in_range(b->max_radix, 1, b->fft_length / 2 > 1 ? b->fft_length / 2 : 1);
}

uint64_t k_rfft_scratch_bytes(const k_op_rfft_blob *b)
{
    if (b->fft_length < 2 || b->fft_length > K_RFFT_MAX || b->max_radix < 1 || b->max_radix > K_RFFT_MAX) return 0;
    /* the padded frame, the half FFT's output, the generic butterfly's values */
    return 2u * (uint64_t)b->fft_length + 4u * ((uint64_t)b->fft_length / 2) + 4u * (uint64_t)b->max_radix;
}

/* The factors must multiply out to the half length, stage by stage. */
static bool factors_ok(const int32_t *fac, int32_t nf, int32_t ncfft)
{
    int32_t n = ncfft;
    for (int32_t k = 0; k < nf; k++) {
        const int32_t p = fac[2 * k], m = fac[2 * k + 1];
        if (p < 1 || m < 1 || (int64_t)p * m != n) return false;
        n = m;
    }
    return n == 1;
}

static int rfft_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_rfft_blob b;
    K_OP_LOAD(b, blob, size);
    if (!rfft_ok(&b, size)) return K_E_INVALID;
    const int32_t ncfft = b.fft_length / 2;
    int32_t fac[64];
    memcpy(fac, blob + b.factors_off, sizeof(int32_t) * 2 * (size_t)b.n_factors);
    if (!factors_ok(fac, b.n_factors, ncfft)) return K_E_INVALID;
    for (int32_t k = 0; k < b.n_factors; k++)
        if (fac[2 * k] > b.max_radix) return K_E_INVALID;
    if (!io) return K_OK;
    const uint64_t out_frame = 2u * ((uint64_t)ncfft + 1);
    void *pi, *po, *ps;
    int rc = k_op_in(io, 0, k_op_mul(2u * (uint64_t)b.input_length, (uint64_t)b.frames), 2, &pi);
    if (!rc) rc = k_op_out(io, 0, k_op_mul(2u * out_frame, (uint64_t)b.frames), 2, &po);
    if (!rc) rc = k_op_scratch(io, k_rfft_scratch_bytes(&b), 4, &ps);
    if (rc) return rc;
    const cpx *twiddles = (const cpx *)(const void *)(blob + b.tw_off);
    const cpx *super = (const cpx *)(const void *)(blob + b.super_off);
    cpx *frame = ps;                                   /* fft_length int16 = ncfft values */
    cpx *tmp = frame + ncfft;
    fft_plan st = {fac, twiddles, ncfft, tmp + ncfft};
    const int16_t *in = pi;
    int16_t *out = po;
    for (int32_t f = 0; f < b.frames; f++) {
        int16_t *fr = (int16_t *)(void *)frame;
        memcpy(fr, in + (size_t)f * (size_t)b.input_length, 2u * (size_t)b.input_length);
        memset(fr + b.input_length, 0, 2u * (size_t)(b.fft_length - b.input_length));
        cpx *o = (cpx *)(void *)(out + (size_t)f * out_frame);
        fft_work(tmp, frame, 1, fac, &st);
        /* kiss_fftr: the even and odd samples' FFTs split apart */
        cpx tdc = tmp[0];
        fixdiv(&tdc, 2);
        o[0].r = (int16_t)(tdc.r + tdc.i);
        o[ncfft].r = (int16_t)(tdc.r - tdc.i);
        o[0].i = o[ncfft].i = 0;
        for (int32_t k = 1; k <= ncfft / 2; k++) {
            cpx fpk = tmp[k], fpnk;
            fpnk.r = tmp[ncfft - k].r;
            fpnk.i = (int16_t)-tmp[ncfft - k].i;
            fixdiv(&fpk, 2);
            fixdiv(&fpnk, 2);
            const cpx f1k = cadd(fpk, fpnk), f2k = csub(fpk, fpnk);
            const cpx t = cmul(f2k, super[k - 1]);
            o[k].r = (int16_t)((f1k.r + t.r) >> 1);
            o[k].i = (int16_t)((f1k.i + t.i) >> 1);
            o[ncfft - k].r = (int16_t)((f1k.r - t.r) >> 1);
            o[ncfft - k].i = (int16_t)((t.i - f1k.i) >> 1);
        }
    }
    return K_OK;
}

/* ---- SignalEnergy ------------------------------------------------------------- */

static int energy_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_energy_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.n_complex, 0) || !k_op_dim(b.n_out, 0) || b.start < 0 || b.end < b.start ||
        b.end > b.n_complex || b.end > b.n_out)
        return K_E_INVALID;
    if (!io) return K_OK;
    void *pi, *po;
    int rc = k_op_in(io, 0, 4u * (uint64_t)b.n_complex, 2, &pi);
    if (!rc) rc = k_op_out(io, 0, 4u * (uint64_t)b.n_out, 4, &po);
    if (rc) return rc;
    const int16_t *in = pi;
    uint32_t *out = po;
    /* TFLite Micro leaves the values outside [start, end) as they were; they
     * are 0 here. Element i is read (bytes 4i..4i+3) before out[i] (the same
     * bytes) is written, so the output may lie over the input (the compiler
     * places it so: cc_alloc.c, cpu_inplace_pairs). */
    for (int32_t i = 0; i < b.n_out; i++) {
        uint32_t e = 0;
        if (i >= b.start && i < b.end) {
            const int32_t re = in[2 * i], im = in[2 * i + 1];
            e = (uint32_t)(re * re) + (uint32_t)(im * im);
        }
        out[i] = e;
    }
    return K_OK;
}

/* ---- SignalFilterBank ----------------------------------------------------------- */

static int filter_bank_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_sig_n_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.n, 1) || b.n == K_OP_MAX_DIM || !k_op_dim(b.n_in, 0) || !k_op_dim(b.n_weights, 0)) return K_E_INVALID;
    if (!io) return K_OK;
    const uint64_t nch = (uint64_t)b.n + 1;
    void *pi, *pw, *pu, *pf, *ps, *pl, *po;
    int rc = k_op_in(io, 0, 4u * (uint64_t)b.n_in, 4, &pi);
    if (!rc) rc = k_op_in(io, 1, 2u * (uint64_t)b.n_weights, 2, &pw);
    if (!rc) rc = k_op_in(io, 2, 2u * (uint64_t)b.n_weights, 2, &pu);
    if (!rc) rc = k_op_in(io, 3, 2u * nch, 2, &pf);
    if (!rc) rc = k_op_in(io, 4, 2u * nch, 2, &ps);
    if (!rc) rc = k_op_in(io, 5, 2u * nch, 2, &pl);
    if (!rc) rc = k_op_out(io, 0, 8u * (uint64_t)b.n, 4, &po);
    if (rc) return rc;
    const uint32_t *in = pi;
    const int16_t *w = pw, *uw = pu, *fs = pf, *wst = ps, *wd = pl;
    /* the channel tables are tensors: every range is checked before use */
    for (int32_t i = 0; i <= b.n; i++)
        if (fs[i] < 0 || wst[i] < 0 || wd[i] < 0 || fs[i] + wd[i] > b.n_in || wst[i] + wd[i] > b.n_weights)
            return K_E_INVALID;
    uint8_t *out = po;
    uint64_t acc = 0, unacc = 0;
    for (int32_t i = 0; i <= b.n; i++) {
        for (int32_t j = 0; j < wd[i]; j++) {
            const uint64_t x = in[fs[i] + j];
            acc += (uint64_t)(int64_t)w[wst[i] + j] * x;
            unacc += (uint64_t)(int64_t)uw[wst[i] + j] * x;
        }
        /* channel 0 is the band below the first: only its unweighted part
         * carries on (TFLite Micro's work area without its first value) */
        if (i > 0) memcpy(out + 8u * (size_t)(i - 1), &acc, 8);
        acc = unacc;
        unacc = 0;
    }
    return K_OK;
}

/* ---- SignalFilterBankSquareRoot ----------------------------------------------------- */

/* TFLite Micro's Sqrt32 (width 32, result capped at 0xFFFF) and Sqrt64
 * (width 64, capped at 0xFFFFFFFF): bit by bit from the highest even
 * position at or below the top bit, rounded to nearest (a remainder above
 * the root adds 1). No sum leaves 64 bits, so one loop serves both. */
static uint64_t isqrt(uint64_t num, int32_t width)
{
    uint64_t res = 0;
    const int32_t top = (width - msb(num, width)) | 1;
    uint64_t bit = (uint64_t)1 << (width - 1 - top);
    for (int32_t it = (width - 1 - top) / 2 + 1; it > 0; it--) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != ((uint64_t)1 << (width / 2)) - 1) ++res;
    return res;
}

static uint32_t sqrt64(uint64_t num)
{
    if ((num >> 32) == 0) return num ? (uint32_t)isqrt(num, 32) : 0;
    return (uint32_t)isqrt(num, 64);
}

static int fb_sqrt_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_sig_n_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.n, 0)) return K_E_INVALID;
    if (!io) return K_OK;
    void *pi, *ps, *po;
    int rc = k_op_in(io, 0, 8u * (uint64_t)b.n, 4, &pi);
    if (!rc) rc = k_op_in(io, 1, 4, 4, &ps);
    if (!rc) rc = k_op_out(io, 0, 4u * (uint64_t)b.n, 4, &po);
    if (rc) return rc;
    int32_t shift;
    memcpy(&shift, ps, 4);
    /* a shift TFLite Micro leaves undefined (its FftAutoScale gives 0..15) */
    if (shift < 0 || shift > 31) return K_E_UNSUPPORTED;
    const uint8_t *in = pi;
    uint32_t *out = po;
    for (int32_t i = 0; i < b.n; i++) {
        uint64_t v;
        memcpy(&v, in + 8u * (size_t)i, 8);
        out[i] = sqrt64(v) >> shift;
    }
    return K_OK;
}

/* ---- SignalFilterBankSpectralSubtraction ---------------------------------------------- */

static int specsub_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_specsub_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.n, 1) || b.smoothing_bits > 31 || b.spectral_subtraction_bits > 63 || (uint32_t)b.clamping > 1)
        return K_E_INVALID;
    if (!io) return K_OK;
    const uint64_t bytes = 4u * (uint64_t)b.n;
    void *pi, *po, *pn;
    int rc = k_op_in(io, 0, bytes, 4, &pi);
    if (!rc) rc = k_op_out(io, 0, bytes, 4, &po);
    if (!rc) rc = k_op_out(io, 1, bytes, 4, &pn);
    if (rc) return rc;
    if (!io->persistent || io->persistent_size < bytes || ((uintptr_t)io->persistent & 3u)) return K_E_INVALID;
    const uint32_t *in = pi;
    uint32_t *out = po, *noise = io->persistent;
    const uint32_t sb = b.smoothing_bits, ssb = b.spectral_subtraction_bits;
    for (int32_t i = 0; i < b.n; i++) {
        const uint32_t sm = (i & 1) ? b.alternate_smoothing : b.smoothing;
        const uint32_t om = (i & 1) ? b.alternate_one_minus_smoothing : b.one_minus_smoothing;
        const uint32_t up = in[i] << sb;
        noise[i] = (uint32_t)(((uint64_t)up * sm + (uint64_t)noise[i] * om) >> ssb);
        uint32_t est = noise[i];
        if (est > up) {
            est = up;
            if (b.clamping) noise[i] = est;
        }
        const uint32_t floor_v = (uint32_t)(((uint64_t)in[i] * b.min_signal_remaining) >> ssb);
        const uint32_t sub = (up - est) >> sb;
        out[i] = sub > floor_v ? sub : floor_v;
    }
    memcpy(pn, noise, (size_t)bytes);
    return K_OK;
}

/* ---- SignalPCAN ---------------------------------------------------------------------- */

/* The wide dynamic range gain: an interpolation in the LUT's segment of x. */
static int16_t pcan_gain(uint32_t x, const int16_t *lut)
{
    if (x <= 2) return lut[x];
    const int32_t interval = msb32(x);
    lut += 4 * interval - 6;
    const int32_t frac = (int32_t)((interval < 11 ? x << (11 - interval) : x >> (interval - 11)) & 0x3FF);
    int32_t r = asr32((int32_t)lut[2] * frac, 5);
    r = (int32_t)((uint32_t)r + ((uint32_t)lut[1] << 5));
    r = (int32_t)(uint32_t)((int64_t)r * frac);
    r = asr32((int32_t)((uint32_t)r + (1u << 14)), 15);
    r = (int32_t)((uint32_t)r + (uint32_t)(int32_t)lut[0]);
    return (int16_t)r;
}

static uint32_t pcan_shrink(uint32_t x)
{
    /* kPcanSnrBits 12, kPcanOutputBits 6 */
    if (x < (2u << 12)) return (x * x) >> (2 + 2 * 12 - 6);
    return (x >> (12 - 6)) - (1u << 6);
}

static int pcan_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_pcan_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.n, 0) || !k_op_in_range(b.snr_shift, 0, 63) || !k_op_dim(b.lut_len, K_PCAN_LUT_MIN))
        return K_E_INVALID;
    if (!io) return K_OK;
    const uint64_t bytes = 4u * (uint64_t)b.n;
    void *pi, *pn, *pl, *po;
    int rc = k_op_in(io, 0, bytes, 4, &pi);
    if (!rc) rc = k_op_in(io, 1, bytes, 4, &pn);
    if (!rc) rc = k_op_in(io, 2, 2u * (uint64_t)b.lut_len, 2, &pl);
    if (!rc) rc = k_op_out(io, 0, bytes, 4, &po);
    if (rc) return rc;
    const uint32_t *in = pi, *noise = pn;
    const int16_t *lut = pl;
    uint32_t *out = po;
    for (int32_t i = 0; i < b.n; i++) {
        const uint32_t gain = (uint32_t)(int32_t)pcan_gain(noise[i], lut);
        const uint32_t snr = (uint32_t)(((uint64_t)in[i] * gain) >> b.snr_shift);
        out[i] = pcan_shrink(snr);
    }
    return K_OK;
}

/* ---- SignalFilterBankLog --------------------------------------------------------------- */

void k_log_lut(uint16_t *lut)
{
    for (int32_t k = 0; k < K_LOG_LUT; k++) {
        const double f = k / 128.0;
        const double v = (log2(1.0 + f) - f) * 65536.0;
        lut[k] = (uint16_t)(v > 0 ? floor(v + 0.5) : 0);
    }
}

/* TFLite Micro's Log32: log2 in Q16 (the integer part, the fraction with
 * the table's correction interpolated in 128 segments), times ln 2 (45426
 * in Q16), times out_scale in Q16, each step rounded; uint32 throughout. */
static uint32_t log32(uint32_t x, uint32_t out_scale, const uint16_t *lut)
{
    const uint32_t integer = (uint32_t)msb32(x) - 1;
    int32_t frac = (int32_t)((int64_t)x - ((int64_t)1 << integer));
    if (integer < 16) frac = (int32_t)((uint32_t)frac << (16 - integer));
    else frac = asr32(frac, (int32_t)integer - 16);
    const uint32_t seg = (uint32_t)frac >> 9;
    const int32_t c0 = lut[seg], c1 = lut[seg + 1];
    const int32_t seg_base = (int32_t)(512u * seg);
    const int32_t rel = asr32((int32_t)((uint32_t)(c1 - c0) * (uint32_t)(frac - seg_base)), 16);
    const uint32_t fraction = (uint32_t)(frac + c0 + rel);
    const uint32_t l2 = (integer << 16) + fraction;
    const uint32_t loge = (uint32_t)((45426u * (uint64_t)l2 + 32768u) >> 16);
    return (out_scale * loge + 32768u) >> 16;
}

static int fb_log_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_fblog_blob b;
    K_OP_LOAD(b, blob, size);
    if (!k_op_dim(b.n, 0) || b.correction_bits > 31 || size < K_FBLOG_BLOB_BYTES ||
        b.lut_off != sizeof(k_op_fblog_blob))
        return K_E_INVALID;
    const uint16_t *lut = k_op_array(blob, size, b.lut_off, K_LOG_LUT, 2);
    if (!lut) return K_E_INVALID;
    for (int32_t k = 0; k < K_LOG_LUT; k++)
        if (lut[k] > 0x7FFF) return K_E_INVALID;
    if (!io) return K_OK;
    void *pi, *po;
    int rc = k_op_in(io, 0, 4u * (uint64_t)b.n, 4, &pi);
    if (!rc) rc = k_op_out(io, 0, 2u * (uint64_t)b.n, 2, &po);
    if (rc) return rc;
    const uint32_t *in = pi;
    int16_t *out = po;
    for (int32_t i = 0; i < b.n; i++) {
        const uint32_t scaled = in[i] << b.correction_bits;
        if (scaled > 1) {
            const uint32_t v = log32(scaled, b.output_scale, lut);
            out[i] = (int16_t)(v < (uint32_t)INT16_MAX ? v : (uint32_t)INT16_MAX);
        } else {
            out[i] = 0;
        }
    }
    return K_OK;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

int k_signal_run(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);

int k_signal_run(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    switch (kind) {
    case K_OP_SIGNAL_WINDOW_S16: return window_run(blob, size, io);
    case K_OP_SIGNAL_FFT_AUTO_SCALE_S16: return fft_auto_scale_run(blob, size, io);
    case K_OP_SIGNAL_RFFT_S16: return rfft_run(blob, size, io);
    case K_OP_SIGNAL_ENERGY: return energy_run(blob, size, io);
    case K_OP_SIGNAL_FILTER_BANK: return filter_bank_run(blob, size, io);
    case K_OP_SIGNAL_FILTER_BANK_SQRT: return fb_sqrt_run(blob, size, io);
    case K_OP_SIGNAL_SPECTRAL_SUBTRACTION: return specsub_run(blob, size, io);
    case K_OP_SIGNAL_PCAN: return pcan_run(blob, size, io);
    case K_OP_SIGNAL_FILTER_BANK_LOG: return fb_log_run(blob, size, io);
    default: return K_E_INVALID;
    }
}
