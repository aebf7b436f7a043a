/* Virtual NPU executor, one operation kind at a time, on hand-built command
 * streams run through the register file exactly as a driver would
 * (tests/sim_asm.h). Results are compared bit for bit with the reference
 * kernels (TFLite integer semantics) or, where the kernels have no
 * counterpart, with values worked out by hand from docs/ethos-u.md sections 4-8
 * (the arithmetic is in the comments). */
#include "test.h"
#include "sim_asm.h"

#include "kernels/kernels.h"

#include <math.h>

/* ------------------------------------------------------------ helpers */

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static int32_t rnd_range(int32_t lo, int32_t hi)
{
    return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1));
}

static double rnd01(void) { return (double)(rnd() & 0xFFFF) / 65536.0; }

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* Compares n values; prints the first few differences. */
static void check_same(const char *what, const int32_t *got, const int32_t *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            if (bad < 6)
                fprintf(stderr, "  %s: element %zu: sim %d, expected %d\n", what, i, got[i], want[i]);
            bad++;
        }
    }
    t_checks++;
    if (bad) {
        t_failures++;
        fprintf(stderr, "%s: %zu of %zu elements differ\n", what, bad, n);
    }
}

static k_dims dims4(uint32_t h, uint32_t w, uint32_t c)
{
    k_dims d = {4, {1, (int32_t)h, (int32_t)w, (int32_t)c}};
    return d;
}

static void to_s8(const int32_t *s, int8_t *d, size_t n) { for (size_t i = 0; i < n; i++) d[i] = (int8_t)s[i]; }
static void to_s16(const int32_t *s, int16_t *d, size_t n) { for (size_t i = 0; i < n; i++) d[i] = (int16_t)s[i]; }
static void from_s8(const int8_t *s, int32_t *d, size_t n) { for (size_t i = 0; i < n; i++) d[i] = s[i]; }
static void from_s16(const int16_t *s, int32_t *d, size_t n) { for (size_t i = 0; i < n; i++) d[i] = s[i]; }

static void fill_rand(int32_t *d, size_t n, int32_t lo, int32_t hi)
{
    for (size_t i = 0; i < n; i++) d[i] = rnd_range(lo, hi);
}

/* Clamp range of an 8/16-bit type; 32-bit maps get the int16 register limits
 * (ACTIVATION_MIN/MAX do not apply to them without a LUT). */
static int32_t type_min(uint8_t bits, bool sgn)
{
    return bits >= 32 ? -32768 : sgn ? -(1 << (bits - 1)) : 0;
}

static int32_t type_max(uint8_t bits, bool sgn)
{
    return bits >= 32 ? 32767 : sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
}

/* ------------------------------------------------------- op runner */

/* One NPU operation. The runner places the IFM in region 1, IFM2 in
 * region 2, the OFM in region 3 (filled with 0xA5 first) and constants
 * (weights, scale records, LUT table) in region 0, mapped read-only. */
typedef struct op_desc {
    eu_variant v;
    uint16_t op, mode;            /* SIM_OP_* and its param */
    sa_fm ifm, ifm2, ofm;         /* region numbers are overwritten */
    bool ifm2_tensor;             /* binary elementwise with an IFM2 map */
    unsigned bcast;               /* IFM2_BROADCAST (SA_BC_*) */
    int32_t scalar;               /* IFM2_SCALAR */
    /* kernel ops */
    uint32_t kw, kh;
    unsigned sx, sy, dx, dy;
    bool pkf;
    unsigned pt, pl, pb, pr, upscale;
    const int16_t *W;             /* CONV W[o][ky][kx][i], DEPTHWISE W[o][ky][kx] */
    const sim_scale_rec *rec;     /* per OFM channel */
    /* output stage */
    uint32_t ofm_m;
    unsigned ofm_s;
    uint32_t opa_m;
    unsigned opa_s;
    uint32_t opb_m;
    unsigned act_func, act_clip;
    int32_t act_min, act_max;
    /* LUT: table DMA'd from region 0 into SHRAM slot lut_slot */
    const uint8_t *lut;
    size_t lut_len;
    unsigned lut_slot;
} op_desc;

static void op_init(op_desc *d, eu_variant v, uint16_t op, uint16_t mode)
{
    memset(d, 0, sizeof *d);
    d->v = v;
    d->op = op;
    d->mode = mode;
    d->sx = d->sy = d->dx = d->dy = 1;
    d->kw = d->kh = 1;
    d->ofm_m = 1;
    d->act_min = -32768;
    d->act_max = 32767;
}

typedef struct op_res {
    uint32_t status;
    char err[512];
    uint8_t *ofm_buf;             /* OFM region after the run (caller frees) */
    size_t ofm_size;
} op_res;

/* Runs d on the dense NHWC inputs a (IFM) and b (IFM2 tensor); out gets
 * the dense OFM. Returns STATUS. */
static uint32_t run_op(const op_desc *d, const int32_t *a, const int32_t *b, int32_t *out,
                       op_res *res)
{
    sa_fm ifm = d->ifm, ifm2 = d->ifm2, ofm = d->ofm;
    ifm.region = 1;
    ifm2.region = 2;
    ofm.region = 3;
    sa_fm_finish(&ifm);
    sa_fm_finish(&ifm2);
    sa_fm_finish(&ofm);
    size_t isz = sa_fm_extent(&ifm) + 64, osz = sa_fm_extent(&ofm) + 64;
    size_t i2sz = d->ifm2_tensor ? sa_fm_extent(&ifm2) + 64 : 0;
    uint8_t *ib = xcalloc(isz, 1), *ob = xcalloc(osz, 1), *i2b = d->ifm2_tensor ? xcalloc(i2sz, 1) : NULL;
    memset(ob, 0xA5, osz);
    sa_fm_write(ib, &ifm, a);
    if (d->ifm2_tensor) sa_fm_write(i2b, &ifm2, b);
    bool ew = d->op == EU_OP_ELEMENTWISE;
    bool dw = d->op == EU_OP_DEPTHWISE;

    sa_stream s;
    sa_init(&s);
    /* constants */
    size_t ccap = 256 + d->lut_len;
    uint8_t *cb;
    size_t clen = 0, c_w = 0, c_s = 0, c_lut = 0, wlen = 0;
    sim_wgeom g;
    memset(&g, 0, sizeof g);
    uint32_t bd;
    {
        /* the block depth decides the weight order: choose the config first */
        sa_stream tmp;
        sa_init(&tmp);
        bd = sa_set_config(&tmp, d->v, &ofm, ifm.bits, ew, d->ifm2_tensor);
        sa_free(&tmp);
    }
    if (d->W) {
        uint32_t kh = d->kh, kw = d->kw;
        g = sa_wgeom(d->v, ofm.c, ifm.c, kh, kw, bd, d->dx, d->dy, ifm.bits, d->pkf, dw);
        size_t n = sim_weight_traverse(&g, NULL, 0);
        ccap += n * 2 + 64 + sa_scale_len(ofm.c);
    }
    cb = xcalloc(ccap, 1);
    if (d->W) {
        c_w = 0;
        wlen = sa_weights(&g, d->W, cb + c_w, ccap);
        c_s = (c_w + wlen + 15) / 16 * 16;
        for (uint32_t o = 0; o < ofm.c; o++)
            sa_scale_rec(cb + c_s + 10 * o, d->rec[o].bias, d->rec[o].scale, d->rec[o].shift);
        clen = c_s + sa_scale_len(ofm.c);
    }
    if (d->lut) {
        c_lut = (clen + 15) / 16 * 16;
        memcpy(cb + c_lut, d->lut, d->lut_len);
        clen = c_lut + d->lut_len;
        sa_dma(&s, 0, c_lut, SA_DMA_SHRAM, sa_lut_addr(d->v, d->lut_slot), d->lut_len);
    }

    sa_set_ifm(&s, &ifm);
    if (!ew) {
        sa_set_pad(&s, d->pt, d->pl, d->pb, d->pr);
        sa_set_upscale(&s, d->upscale);
    }
    sa_set_ofm(&s, &ofm);
    if (!ew) sa_set_kernel(&s, d->kw, d->kh, d->sx, d->sy, d->dx, d->dy, d->pkf);
    if (d->W) {
        sa_set_weights(&s, 0, c_w, wlen);
        sa_set_scales(&s, 0, c_s, sa_scale_len(ofm.c));
    }
    sa_set_ofm_scale(&s, d->ofm_m, d->ofm_s);
    if (ew) {
        sa_set_opa_scale(&s, d->opa_m, d->opa_s);
        sa_set_opb_scale(&s, d->opb_m);
    }
    sa_set_act(&s, d->act_func, d->act_clip, d->act_min, d->act_max);
    sa_set_config(&s, d->v, &ofm, ifm.bits, ew, d->ifm2_tensor);
    if (ew) {
        if (d->ifm2_tensor) sa_set_ifm2(&s, &ifm2);
        else if (d->bcast & SA_BC_SCALAR)
            sa_set_ifm2_scalar(&s, d->scalar, ifm2.bits, ifm2.sgn, ifm2.zp);
        sa_set_bcast(&s, d->bcast);
    }
    sa_cmd0(&s, d->op, d->mode);
    sa_stop(&s);

    sa_npu m;
    uint32_t st = 0;
    if (sa_open(&m, d->v) == 0) {
        sa_region(&m, 0, cb, clen ? clen : 16, false);
        sa_region(&m, 1, ib, isz, true);
        if (i2b) sa_region(&m, 2, i2b, i2sz, true);
        sa_region(&m, 3, ob, osz, true);
        st = sa_run(&m, &s);
        if (res) snprintf(res->err, sizeof res->err, "%s", sim_npu_error(m.npu));
        if (!sa_status_ok(st) && !res)
            fprintf(stderr, "  NPU run failed (STATUS 0x%08x): %s\n", st, sim_npu_error(m.npu));
        sa_close(&m);
    }
    if (out) sa_fm_read(ob, &ofm, out);
    if (res) {
        res->status = st;
        res->ofm_buf = ob;
        res->ofm_size = osz;
    } else {
        free(ob);
    }
    free(ib);
    free(i2b);
    free(cb);
    sa_free(&s);
    return st;
}

/* --------------------------------------------------- CONV / DEPTHWISE */

typedef struct conv_case {
    const char *name;
    eu_variant v;
    bool dw;
    uint8_t bits;                 /* 8: k_conv_s8, 16: k_conv_s16 (int64 bias) */
    uint32_t ih, iw, ic, oh, ow, oc;
    uint32_t kh, kw;
    unsigned sx, sy, dx, dy, pt, pl;
    bool pkf;
    uint8_t ifmt, ofmt;
    int32_t zi, zo, act_min, act_max;
    bool big_bias;                /* half the channels: 40-bit bias, tiny scale */
    unsigned upscale;             /* 0, or 1 NEAREST / 2 ZEROS: the reference
                                   * then runs on the host-upscaled IFM */
    bool u8;                      /* uint8 IFM/OFM: the NPU sees x + 128 with
                                   * zero points + 128 (same real values) */
} conv_case;

static void conv_case_run(const conv_case *cc)
{
    const bool s16 = cc->bits == 16;
    const uint32_t C = cc->dw ? cc->oc : cc->ic;
    const size_t kk = (size_t)cc->kh * cc->kw;
    const size_t n_in = (size_t)cc->ih * cc->iw * C, n_out = (size_t)cc->oh * cc->ow * cc->oc;
    const size_t n_w = cc->dw ? cc->oc * kk : cc->oc * kk * cc->ic;
    int32_t *in = xcalloc(n_in, sizeof *in), *got = xcalloc(n_out, sizeof *got);
    int32_t *want = xcalloc(n_out, sizeof *want);
    int16_t *W = xcalloc(n_w, sizeof *W);
    int8_t *filt = xcalloc(n_w, 1);
    int32_t *mult = xcalloc(cc->oc, sizeof *mult), *shift = xcalloc(cc->oc, sizeof *shift);
    int32_t *bias32 = xcalloc(cc->oc, sizeof *bias32);
    int64_t *bias64 = xcalloc(cc->oc, sizeof *bias64);
    sim_scale_rec *rec = xcalloc(cc->oc, sizeof *rec);

    fill_rand(in, n_in, s16 ? -32768 : -128, s16 ? 32767 : 127);
    for (size_t i = 0; i < n_w; i++) W[i] = (int16_t)rnd_range(-127, 127);
    /* filter in TFLite layout: CONV [o][ky][kx][i] = W; DEPTHWISE [1][ky][kx][o] */
    for (uint32_t o = 0; o < cc->oc; o++)
        for (size_t k = 0; k < kk; k++) {
            if (cc->dw)
                filt[k * cc->oc + o] = (int8_t)W[o * kk + k];
            else
                for (uint32_t i = 0; i < cc->ic; i++)
                    filt[(o * kk + k) * cc->ic + i] = (int8_t)W[(o * kk + k) * cc->ic + i];
        }
    double K = (double)(cc->dw ? kk : kk * cc->ic);
    for (uint32_t o = 0; o < cc->oc; o++) {
        double real = (s16 ? 0.007 : 0.02) / sqrt(K) * (0.5 + rnd01());
        bool big = cc->big_bias && (o & 1);
        if (big) real = ldexp(0.5 + 0.5 * rnd01(), -24);
        k_quantize_multiplier(real, &mult[o], &shift[o]);
        if (s16) {
            /* 40-bit bias: around +-2^36 (output ~ +-4096 with the tiny scale) */
            bias64[o] = big ? (int64_t)((o & 2) ? -1 : 1) * ((int64_t)1 << 36) + rnd_range(-99999, 99999)
                            : rnd_range(-200000, 200000);
            int32_t red = mult[o] < 0x7FFF0000 ? (mult[o] + (1 << 15)) >> 16 : 0x7FFF;
            rec[o] = (sim_scale_rec){bias64[o], (uint32_t)red, (uint8_t)(15 - shift[o])};
        } else {
            bias32[o] = rnd_range(-5000, 5000);
            rec[o] = (sim_scale_rec){bias32[o], (uint32_t)mult[o], (uint8_t)sa_hw_shift(shift[o])};
        }
    }

    /* reference, on the host-upscaled IFM when upscaling */
    uint32_t rh = cc->ih, rw = cc->iw;
    int32_t *rin = in;
    if (cc->upscale) {
        rh = 2 * cc->ih;
        rw = 2 * cc->iw;
        rin = xcalloc((size_t)rh * rw * C, sizeof *rin);
        for (uint32_t y = 0; y < rh; y++)
            for (uint32_t x = 0; x < rw; x++)
                for (uint32_t c = 0; c < C; c++) {
                    bool hole = cc->upscale == 2 && ((y & 1) || (x & 1));
                    rin[((size_t)y * rw + x) * C + c] =
                        hole ? cc->zi : in[((size_t)(y >> 1) * cc->iw + (x >> 1)) * C + c];
                }
    }
    k_conv_params p;
    memset(&p, 0, sizeof p);
    p.batches = 1;
    p.in_h = (int32_t)rh; p.in_w = (int32_t)rw; p.in_c = (int32_t)C;
    p.out_h = (int32_t)cc->oh; p.out_w = (int32_t)cc->ow; p.out_c = (int32_t)cc->oc;
    p.filter_h = (int32_t)cc->kh; p.filter_w = (int32_t)cc->kw; p.filter_c = (int32_t)cc->ic;
    p.stride_h = (int32_t)cc->sy; p.stride_w = (int32_t)cc->sx;
    p.dilation_h = (int32_t)cc->dy; p.dilation_w = (int32_t)cc->dx;
    p.pad_h = (int32_t)cc->pt; p.pad_w = (int32_t)cc->pl;
    p.depth_multiplier = 1;
    p.input_offset = -cc->zi;
    p.output_offset = cc->zo;
    p.act_min = cc->act_min;
    p.act_max = cc->act_max;
    p.out_mult = mult;
    p.out_shift = shift;
    size_t n_rin = (size_t)rh * rw * C;
    int rc;
    if (s16) {
        int16_t *i16 = xcalloc(n_rin, 2), *o16 = xcalloc(n_out, 2);
        to_s16(rin, i16, n_rin);
        rc = cc->dw ? k_dwconv_s16(&p, i16, filt, bias64, o16) : k_conv_s16(&p, i16, filt, bias64, o16);
        from_s16(o16, want, n_out);
        free(i16);
        free(o16);
    } else {
        int8_t *i8 = xcalloc(n_rin, 1), *o8 = xcalloc(n_out, 1);
        to_s8(rin, i8, n_rin);
        rc = cc->dw ? k_dwconv_s8(&p, i8, filt, bias32, o8) : k_conv_s8(&p, i8, filt, bias32, o8);
        from_s8(o8, want, n_out);
        free(i8);
        free(o8);
    }
    CHECK_EQ_INT(rc, K_OK);

    const int32_t uo = cc->u8 ? 128 : 0;
    if (cc->u8) {
        for (size_t i = 0; i < n_in; i++) in[i] += 128;
        for (size_t i = 0; i < n_out; i++) want[i] += 128;
    }
    op_desc d;
    op_init(&d, cc->v, cc->dw ? EU_OP_DEPTHWISE : EU_OP_CONV, 0);
    d.ifm = sa_fm_make(1, 0, cc->ih, cc->iw, C, cc->bits, !cc->u8, cc->ifmt);
    d.ifm.zp = cc->zi + uo;
    d.ofm = sa_fm_make(3, 0, cc->oh, cc->ow, cc->oc, cc->bits, !cc->u8, cc->ofmt);
    d.ofm.zp = cc->zo + uo;
    d.ofm.round = s16 ? SA_ROUND_NATURAL : SA_ROUND_TFL;
    d.kw = cc->kw; d.kh = cc->kh;
    d.sx = cc->sx; d.sy = cc->sy; d.dx = cc->dx; d.dy = cc->dy;
    d.pkf = cc->pkf;
    d.upscale = cc->upscale;
    d.pt = cc->pt;
    d.pl = cc->pl;
    d.pb = sa_pad_after(rh, cc->oh, cc->kh, cc->sy, cc->dy, cc->pt);
    d.pr = sa_pad_after(rw, cc->ow, cc->kw, cc->sx, cc->dx, cc->pl);
    d.W = W;
    d.rec = rec;
    d.act_min = cc->act_min + uo;
    d.act_max = cc->act_max + uo;
    uint32_t st = run_op(&d, in, NULL, got, NULL);
    char what[160];
    snprintf(what, sizeof what, "%s on %s", cc->name, eu_variant_name(cc->v));
    if (!sa_status_ok(st)) fprintf(stderr, "%s: run failed\n", what);
    CHECK(sa_status_ok(st));
    check_same(what, got, want, n_out);

    if (rin != in) free(rin);
    free(in); free(got); free(want); free(W); free(filt); free(mult); free(shift);
    free(bias32); free(bias64); free(rec);
}

static void test_conv(void)
{
    /* name, v, dw, bits, ih iw ic, oh ow oc, kh kw, sx sy dx dy, pt pl, pkf, fmts, zi zo, act, big, up */
    const conv_case cases[] = {
        {"conv 3x3 SAME", EU_U55_128, false, 8, 7, 9, 3, 7, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, false,
         SA_NHWC, SA_NHWC, -3, 4, -128, 127, false, 0, false},
        {"conv 3x3 stride 2, clamp", EU_U55_128, false, 8, 9, 8, 8, 5, 4, 12, 3, 3, 2, 2, 1, 1, 1, 1,
         true, SA_NHWC, SA_NHWC, 5, -7, -100, 90, false, 0, false},
        {"conv 3x2 stride 3x1 dilation 2", EU_U55_256, false, 8, 10, 13, 5, 6, 4, 7, 3, 2, 3, 1, 2, 2,
         0, 0, false, SA_NHWC, SA_NHWC, 0, 0, -128, 127, false, 0, false},
        {"conv 2x3 stride 4x3 pad T2 L0", EU_U65_256, false, 8, 11, 14, 6, 4, 4, 9, 2, 3, 4, 3, 1, 1,
         2, 0, false, SA_NHWC, SA_NHWC, -1, 2, -128, 127, false, 0, false},
        {"conv 1x1 (fully connected)", EU_U55_64, false, 8, 1, 1, 70, 1, 1, 24, 1, 1, 1, 1, 1, 1, 0,
         0, false, SA_NHWC, SA_NHWC, 3, -4, -128, 127, false, 0, false},
        {"conv 5x5 pad 2 NHCWB16 in/out", EU_U55_128, false, 8, 6, 7, 20, 6, 7, 18, 5, 5, 1, 1, 1, 1,
         2, 2, false, SA_NHCWB16, SA_NHCWB16, 7, 1, -128, 127, false, 0, false},
        {"conv 9x9 (sub-kernels) dilation 1x2", EU_U55_256, false, 8, 12, 10, 3, 2, 2, 8, 5, 9, 1, 1,
         1, 2, 0, 0, true, SA_NHWC, SA_NHCWB16, -2, 0, -128, 127, false, 0, false},
        {"conv int16 3x3 NATURAL 40-bit bias", EU_U55_256, false, 16, 6, 5, 20, 6, 5, 10, 3, 3, 1,
         1, 1, 1, 1, 1, false, SA_NHWC, SA_NHWC, 0, 0, -32768, 32767, true, 0, false},
        {"conv int16 2x2 stride 2 pkf clamp", EU_U55_128, false, 16, 8, 8, 12, 4, 4, 9, 2, 2, 2, 2,
         1, 1, 0, 0, true, SA_NHCWB16, SA_NHWC, 0, 0, -20000, 15000, true, 0, false},
        {"depthwise 3x3 stride 2 C20", EU_U55_64, true, 8, 8, 7, 20, 4, 4, 20, 3, 3, 2, 2, 1, 1, 1, 1,
         false, SA_NHCWB16, SA_NHWC, -6, 3, -128, 127, false, 0, false},
        {"depthwise 3x3 dilation 2", EU_U65_256, true, 8, 9, 9, 11, 5, 5, 11, 3, 3, 1, 1, 2, 2, 0, 0,
         false, SA_NHWC, SA_NHCWB16, 2, -2, -90, 100, false, 0, false},
        {"depthwise 5x4 stride 1x2", EU_U55_32, true, 8, 7, 9, 6, 7, 5, 6, 5, 4, 2, 1, 1, 1, 2, 1,
         false, SA_NHWC, SA_NHWC, 0, 5, -128, 127, false, 0, false},
        {"depthwise int16 3x3", EU_U55_256, true, 16, 5, 6, 17, 5, 6, 17, 3, 3, 1, 1, 1, 1, 1, 1,
         false, SA_NHCWB16, SA_NHCWB16, 0, 0, -32768, 32767, true, 0, false},
        /* IFM_UPSCALE: NEAREST (resize) and ZEROS (transpose conv); the
         * reference runs on the host-upscaled IFM */
        {"depthwise 3x3 on NEAREST x2", EU_U55_128, true, 8, 3, 4, 5, 6, 8, 5, 3, 3, 1, 1, 1, 1, 1, 1,
         false, SA_NHWC, SA_NHWC, -4, 2, -128, 127, false, 1, false},
        {"conv 3x3 on ZEROS x2", EU_U55_128, false, 8, 3, 4, 6, 6, 8, 7, 3, 3, 1, 1, 1, 1, 2, 2,
         false, SA_NHWC, SA_NHWC, 3, -1, -128, 127, false, 2, false},
        /* uint8 feature maps (zero points 128 + z) */
        {"conv uint8 3x3 stride 2", EU_U55_128, false, 8, 7, 8, 9, 4, 4, 10, 3, 3, 2, 2, 1, 1, 1, 1,
         false, SA_NHWC, SA_NHCWB16, 3, -2, -128, 100, false, 0, true},
        {"depthwise uint8 3x3", EU_U65_256, true, 8, 5, 5, 18, 5, 5, 18, 3, 3, 1, 1, 1, 1, 1, 1,
         false, SA_NHCWB16, SA_NHWC, -5, 0, -128, 127, false, 0, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) conv_case_run(&cases[i]);

    /* IFM depth 40 (> 32: two IFM depth blocks) and OFM depth 40 (two OFM
     * blocks of 32 + 8), on every variant, depth-first and part-kernel-first */
    for (int v = EU_U55_32; v <= EU_U65_512; v++)
        for (int pkf = 0; pkf < 2; pkf++) {
            conv_case cc = {"conv 3x3 IFM depth 40, OFM depth 40", (eu_variant)v, false, 8, 5, 6, 40,
                            5, 5, 40, 3, 3, 1, 1, 1, 1, 0, 1, pkf != 0, SA_NHCWB16, SA_NHCWB16, -9,
                            6, -128, 127, false, 0, false};
            conv_case_run(&cc);
            conv_case dc = {"depthwise 3x3 C40", (eu_variant)v, true, 8, 6, 5, 40, 3, 3, 40, 3, 3, 2,
                            2, 1, 1, 1, 1, false, SA_NHWC, SA_NHCWB16, 1, 1, -128, 127, false, 0, false};
            if (!pkf) conv_case_run(&dc);
        }
}

/* Transpose conv on ZEROS upscaling against TFLite's TRANSPOSE_CONV:
 * TFLite scatters in(iy) * w[ky] to out(2 iy + ky) (SAME, stride 2, 3x3:
 * pad before 0); the NPU gathers U(oy - 2 + ky') with U = the zero-inserted
 * IFM, so with pad top/left 2 and bottom/right 0 the weights are flipped:
 * W_npu[ky'][kx'] = w[2 - ky'][2 - kx'] (docs/ethos-u.md 5.2, 5.10). */
static void test_transpose_conv(void)
{
    const uint32_t IH = 3, IW = 4, IC = 5, OC = 6, OH = 6, OW = 8, KH = 3, KW = 3;
    int32_t in[3 * 4 * 5];
    int8_t in8[3 * 4 * 5], filt[6 * 3 * 3 * 5], o8[6 * 8 * 6];
    int16_t W[6 * 3 * 3 * 5];
    int32_t bias[6], mult[6], shift[6], want[6 * 8 * 6], got[6 * 8 * 6], scratch[6 * 8 * 6];
    sim_scale_rec rec[6];
    const int32_t zi = -2, zo = 3;
    fill_rand(in, IH * IW * IC, -128, 127);
    to_s8(in, in8, IH * IW * IC);
    for (uint32_t o = 0; o < OC; o++) {
        for (uint32_t ky = 0; ky < KH; ky++)
            for (uint32_t kx = 0; kx < KW; kx++)
                for (uint32_t i = 0; i < IC; i++) {
                    int8_t w = (int8_t)rnd_range(-127, 127);
                    filt[((o * KH + ky) * KW + kx) * IC + i] = w;
                    W[((o * KH + (KH - 1 - ky)) * KW + (KW - 1 - kx)) * IC + i] = w;
                }
        k_quantize_multiplier(0.004 * (0.5 + rnd01()), &mult[o], &shift[o]);
        bias[o] = rnd_range(-3000, 3000);
        rec[o] = (sim_scale_rec){bias[o], (uint32_t)mult[o], (uint8_t)sa_hw_shift(shift[o])};
    }
    k_conv_params p;
    memset(&p, 0, sizeof p);
    p.batches = 1;
    p.in_h = (int32_t)IH; p.in_w = (int32_t)IW; p.in_c = (int32_t)IC;
    p.out_h = (int32_t)OH; p.out_w = (int32_t)OW; p.out_c = (int32_t)OC;
    p.filter_h = (int32_t)KH; p.filter_w = (int32_t)KW; p.filter_c = (int32_t)IC;
    p.stride_h = p.stride_w = 2;
    p.dilation_h = p.dilation_w = 1;
    p.input_offset = -zi;
    p.output_offset = zo;
    p.act_min = -128;
    p.act_max = 127;
    p.out_mult = mult;
    p.out_shift = shift;
    CHECK_EQ_INT(k_tconv_s8(&p, in8, filt, bias, o8, scratch), K_OK);
    from_s8(o8, want, OH * OW * OC);

    op_desc d;
    op_init(&d, EU_U55_256, EU_OP_CONV, 0);
    d.ifm = sa_fm_make(1, 0, IH, IW, IC, 8, true, SA_NHWC);
    d.ifm.zp = zi;
    d.ofm = sa_fm_make(3, 0, OH, OW, OC, 8, true, SA_NHCWB16);
    d.ofm.zp = zo;
    d.kw = KW;
    d.kh = KH;
    d.upscale = 2;
    d.pt = d.pl = 2;
    d.pb = d.pr = 0;   /* U = (6-1) + 3 - 2 = 6 = 2 * IH */
    d.W = W;
    d.rec = rec;
    d.act_min = -128;
    d.act_max = 127;
    CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
    check_same("transpose conv (ZEROS upscale) vs k_tconv_s8", got, want, OH * OW * OC);
}

/* --------------------------------------------------------------- POOL */

static void test_pool_max(void)
{
    /* 3x3 stride 2 SAME on 7x7x5: pads 1 all round; padding taps are
     * ignored, so the result equals TFLite's clipped-window max. Zero
     * points cancel (equal IFM/OFM quantisation, identity scaling). */
    const uint32_t H = 7, W = 7, C = 5, OH = 4, OW = 4;
    int32_t in[7 * 7 * 5], got[4 * 4 * 5], want[4 * 4 * 5];
    int8_t i8[7 * 7 * 5], o8[4 * 4 * 5];
    fill_rand(in, H * W * C, -128, 127);
    to_s8(in, i8, H * W * C);
    k_pool_params kp;
    memset(&kp, 0, sizeof kp);
    kp.filter_h = kp.filter_w = 3;
    kp.stride_h = kp.stride_w = 2;
    kp.pad_h = kp.pad_w = 1;
    kp.act_min = -60;
    kp.act_max = 100;
    k_dims din = dims4(H, W, C), dout = dims4(OH, OW, C);
    CHECK_EQ_INT(k_maxpool_s8(&kp, &din, i8, &dout, o8), K_OK);
    from_s8(o8, want, OH * OW * C);
    for (int v = EU_U55_32; v <= EU_U65_512; v++) {
        op_desc d;
        op_init(&d, (eu_variant)v, EU_OP_POOL, 0);
        d.ifm = sa_fm_make(1, 0, H, W, C, 8, true, v & 1 ? SA_NHCWB16 : SA_NHWC);
        d.ifm.zp = 5;
        d.ofm = sa_fm_make(3, 0, OH, OW, C, 8, true, SA_NHWC);
        d.ofm.zp = 5;
        d.kw = d.kh = 3;
        d.sx = d.sy = 2;
        d.pt = d.pl = 1;
        d.pb = sa_pad_after(H, OH, 3, 2, 1, 1);
        d.pr = sa_pad_after(W, OW, 3, 2, 1, 1);
        d.ofm_m = 0xE38E38E5u;   /* stale global scale: ignored in per-channel mode */
        d.ofm_s = 35;
        d.act_min = -60;
        d.act_max = 100;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same("POOL MAX 3x3/2 SAME vs k_maxpool_s8", got, want, OH * OW * C);
    }
    /* int16 MAX 2x2 stride 2 VALID */
    int32_t in16[4 * 6 * 3], g16[2 * 3 * 3], w16[2 * 3 * 3];
    int16_t a16[4 * 6 * 3], b16[2 * 3 * 3];
    fill_rand(in16, 4 * 6 * 3, -32768, 32767);
    to_s16(in16, a16, 4 * 6 * 3);
    kp.filter_h = kp.filter_w = 2;
    kp.pad_h = kp.pad_w = 0;
    kp.act_min = -32768;
    kp.act_max = 32767;
    din = dims4(4, 6, 3);
    dout = dims4(2, 3, 3);
    CHECK_EQ_INT(k_maxpool_s16(&kp, &din, a16, &dout, b16), K_OK);
    from_s16(b16, w16, 2 * 3 * 3);
    op_desc d;
    op_init(&d, EU_U55_128, EU_OP_POOL, 0);
    d.ifm = sa_fm_make(1, 0, 4, 6, 3, 16, true, SA_NHWC);
    d.ofm = sa_fm_make(3, 0, 2, 3, 3, 16, true, SA_NHCWB16);
    d.kw = d.kh = 2;
    d.sx = d.sy = 2;
    CHECK(sa_status_ok(run_op(&d, in16, NULL, g16, NULL)));
    check_same("POOL MAX int16 2x2/2 vs k_maxpool_s16", g16, w16, 2 * 3 * 3);
}

/* Vela's global average scale (docs/ethos-u.md 5.5) for n = kh*kw taps, rescale 1:
 * kbits = bitlength(n-1), shift = 31 + kbits, scale = (2^shift + 2^kbits) / n. */
static void avg_scale(uint32_t n, uint32_t *m, unsigned *shift)
{
    unsigned kbits = 0;
    while (((n - 1) >> kbits) != 0) kbits++;
    *shift = 31 + kbits;
    *m = (uint32_t)((((uint64_t)1 << *shift) + ((uint64_t)1 << kbits)) / n);
}

static void test_pool_average(void)
{
    /* the 3x3 scale is the one person_detect carries */
    uint32_t m;
    unsigned sh;
    avg_scale(9, &m, &sh);
    CHECK(m == 0xE38E38E5u);
    CHECK_EQ_INT(sh, 35);

    /* unpadded, global scale, TFL rounding = TFLite's (sum +- n/2) / n */
    static const uint32_t ks[][2] = {{2, 2}, {3, 3}, {3, 5}, {1, 7}, {7, 7}, {8, 8}};
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++) {
        uint32_t kh = ks[k][0], kw = ks[k][1], H = 9, W = 10, C = 6;
        uint32_t OH = H - kh + 1, OW = W - kw + 1;
        int32_t *in = xcalloc(H * W * C, 4), *got = xcalloc(OH * OW * C, 4), *want = xcalloc(OH * OW * C, 4);
        int8_t *i8 = xcalloc(H * W * C, 1), *o8 = xcalloc(OH * OW * C, 1);
        fill_rand(in, H * W * C, -128, 127);
        to_s8(in, i8, H * W * C);
        k_pool_params kp;
        memset(&kp, 0, sizeof kp);
        kp.filter_h = (int32_t)kh;
        kp.filter_w = (int32_t)kw;
        kp.stride_h = kp.stride_w = 1;
        kp.act_min = -128;
        kp.act_max = 127;
        k_dims din = dims4(H, W, C), dout = dims4(OH, OW, C);
        CHECK_EQ_INT(k_avgpool_s8(&kp, &din, i8, &dout, o8), K_OK);
        from_s8(o8, want, OH * OW * C);
        op_desc d;
        op_init(&d, EU_U55_256, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHWC);
        d.ofm = sa_fm_make(3, 0, OH, OW, C, 8, true, SA_NHWC);
        d.ofm.scale_mode = 1;
        d.kw = kw;
        d.kh = kh;
        avg_scale(kh * kw, &d.ofm_m, &d.ofm_s);
        d.act_min = -128;
        d.act_max = 127;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        char what[80];
        snprintf(what, sizeof what, "POOL AVERAGE %ux%u global scale vs k_avgpool_s8", kh, kw);
        check_same(what, got, want, OH * OW * C);
        free(in); free(got); free(want); free(i8); free(o8);
    }

    /* padded (SAME 3x3, and bottom/right only as Vela's resize lowering):
     * per-channel mode, the NPU divides by the valid taps, TFL rounding =
     * half away from zero = TFLite */
    for (int variant = 0; variant < 2; variant++) {
        uint32_t H = 5, W = 6, C = 3, kh = 3, kw = 3;
        unsigned pt = variant ? 0 : 1, pl = variant ? 0 : 1;
        int32_t in[5 * 6 * 3], got[5 * 6 * 3], want[5 * 6 * 3];
        int8_t i8[5 * 6 * 3], o8[5 * 6 * 3];
        fill_rand(in, H * W * C, -128, 127);
        to_s8(in, i8, H * W * C);
        k_pool_params kp;
        memset(&kp, 0, sizeof kp);
        kp.filter_h = (int32_t)kh;
        kp.filter_w = (int32_t)kw;
        kp.stride_h = kp.stride_w = 1;
        kp.pad_h = (int32_t)pt;
        kp.pad_w = (int32_t)pl;
        kp.act_min = -128;
        kp.act_max = 127;
        k_dims din = dims4(H, W, C);
        CHECK_EQ_INT(k_avgpool_s8(&kp, &din, i8, &din, o8), K_OK);
        from_s8(o8, want, H * W * C);
        op_desc d;
        op_init(&d, EU_U55_128, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHCWB16);
        d.ofm = sa_fm_make(3, 0, H, W, C, 8, true, SA_NHWC);
        d.kw = kw;
        d.kh = kh;
        d.pt = pt;
        d.pl = pl;
        d.pb = sa_pad_after(H, H, kh, 1, 1, pt);
        d.pr = sa_pad_after(W, W, kw, 1, 1, pl);
        d.act_min = -128;
        d.act_max = 127;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same(variant ? "POOL AVERAGE 3x3 pad bottom/right 2 vs k_avgpool_s8"
                           : "POOL AVERAGE 3x3 SAME vs k_avgpool_s8", got, want, H * W * C);
    }

    /* padded average, every rounding mode and both scale modes, by hand
     * (docs/ethos-u.md 5.5.1): IFM 1x3x3, kernel 1x2, pad right 1: windows
     * (x0,x1), (x1,x2), (x2) [valid taps only]
     *   ch0 [-3,-2, 4]: -5/2=-2.5   2/2=1      4/1=4
     *   ch1 [ 5, 0,-7]:  5/2= 2.5  -7/2=-3.5  -7/1=-7
     *   ch2 [ 1, 1,-1]:  2/2= 1     0/2=0     -1/1=-1
     * The mean rounds half away from zero whatever the round mode; in the
     * global scale mode (Vela 5.1: OFM_SCALE (1, 0), NATURAL, as in
     * tflm_id_model) it is the same mean, not the window sum. */
    static const int32_t pin[9] = {-3, 5, 1, -2, 0, 1, 4, -7, -1};
    static const int32_t pwant[9] = {-3, 3, 1, 1, -4, 0, 4, -7, -1};
    for (unsigned r = 0; r < 3; r++)
        for (unsigned global = 0; global < 2; global++) {
            op_desc d;
            op_init(&d, EU_U55_64, EU_OP_POOL, 1);
            d.ifm = sa_fm_make(1, 0, 1, 3, 3, 8, true, SA_NHWC);
            d.ofm = sa_fm_make(3, 0, 1, 3, 3, 8, true, SA_NHWC);
            d.ofm.round = (uint8_t)r;
            d.ofm.scale_mode = (uint8_t)global;
            d.ofm_m = 1;
            d.ofm_s = 0;
            d.kw = 2;
            d.kh = 1;
            d.pr = 1;
            d.act_min = -128;
            d.act_max = 127;
            int32_t got[9];
            CHECK(sa_status_ok(run_op(&d, pin, NULL, got, NULL)));
            char what[64];
            snprintf(what, sizeof what, "padded average, round mode %u, %s scale", r,
                     global ? "global" : "per-channel");
            check_same(what, got, pwant, 9);
        }

    /* Vela 5.1's SAME average pool form (tflm_id_model: 2x2 stride 2, pad
     * bottom/right 1): global scale (1, 0), NATURAL, random kernels up to
     * 4x4, strides 1-2, against k_avgpool_s8 */
    for (int it = 0; it < 200; it++) {
        uint32_t H = 3 + rnd() % 6, W = 3 + rnd() % 6, C = 1 + rnd() % 5;
        uint32_t kh = 1 + rnd() % 4, kw = 1 + rnd() % 4, st = 1 + rnd() % 2;
        uint32_t OH = (H + st - 1) / st, OW = (W + st - 1) / st;
        uint32_t ph = (OH - 1) * st + kh > H ? (OH - 1) * st + kh - H : 0;
        uint32_t pw = (OW - 1) * st + kw > W ? (OW - 1) * st + kw - W : 0;
        /* unpadded, the global mode scales the window sum (tested above) */
        if (!ph && !pw) continue;
        if (ph / 2 > 3 || pw / 2 > 3 || ph - ph / 2 > 4 || pw - pw / 2 > 4) continue;
        int32_t in[8 * 8 * 5], got[8 * 8 * 5], want[8 * 8 * 5];
        int8_t i8[8 * 8 * 5], o8[8 * 8 * 5];
        fill_rand(in, H * W * C, -128, 127);
        to_s8(in, i8, H * W * C);
        k_pool_params kp;
        memset(&kp, 0, sizeof kp);
        kp.filter_h = (int32_t)kh;
        kp.filter_w = (int32_t)kw;
        kp.stride_h = kp.stride_w = (int32_t)st;
        kp.pad_h = (int32_t)(ph / 2);
        kp.pad_w = (int32_t)(pw / 2);
        kp.act_min = -128;
        kp.act_max = 127;
        k_dims din = dims4(H, W, C), dout = dims4(OH, OW, C);
        CHECK_EQ_INT(k_avgpool_s8(&kp, &din, i8, &dout, o8), K_OK);
        from_s8(o8, want, OH * OW * C);
        op_desc d;
        op_init(&d, EU_U55_128, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHWC);
        d.ofm = sa_fm_make(3, 0, OH, OW, C, 8, true, SA_NHWC);
        d.ofm.scale_mode = 1;
        d.ofm.round = SA_ROUND_NATURAL;
        d.ofm_m = 1;
        d.ofm_s = 0;
        d.kw = kw;
        d.kh = kh;
        d.sx = d.sy = st;
        d.pt = ph / 2;
        d.pl = pw / 2;
        d.pb = ph - ph / 2;
        d.pr = pw - pw / 2;
        d.act_min = -128;
        d.act_max = 127;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same("SAME average pool, global scale (1, 0), NATURAL, vs k_avgpool_s8", got, want,
                   OH * OW * C);
    }
}

static void test_pool_reduce_sum(void)
{
    /* REDUCE_SUM: int8 IFM 3x4x6 (zero point 2), sum over channels of
     * (x - 2), int32 OFM depth 1, global scale (1, 0); then a 2x2 stride 2
     * window: the sum over the window and the channels */
    const uint32_t H = 3, W = 4, C = 6;
    int32_t in[3 * 4 * 6], got[12], want[12];
    fill_rand(in, H * W * C, -128, 127);
    for (uint32_t i = 0; i < H * W; i++) {
        int32_t s = 0;
        for (uint32_t c = 0; c < C; c++) s += in[i * C + c] - 2;
        want[i] = s;
    }
    op_desc d;
    op_init(&d, EU_U55_128, EU_OP_POOL, 2);
    d.ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHWC);
    d.ifm.zp = 2;
    d.ofm = sa_fm_make(3, 0, H, W, 1, 32, true, SA_NHWC);
    d.ofm.scale_mode = 1;
    d.ofm.zp = -1;   /* ignored for a 32-bit OFM without LUT (docs/ethos-u.md 5.1) */
    d.ofm_m = 1;
    d.ofm_s = 0;
    CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
    check_same("REDUCE_SUM 1x1", got, want, H * W);

    /* hand-worked: a 2x2 IFM of 2 channels, window 2x2: one output
     *   values - 0: (1,2) (3,-4) / (-5,6) (7,100) -> 1+2+3-4-5+6+7+100 = 110 */
    static const int32_t in2[8] = {1, 2, 3, -4, -5, 6, 7, 100};
    int32_t g2[1];
    op_init(&d, EU_U55_128, EU_OP_POOL, 2);
    d.ifm = sa_fm_make(1, 0, 2, 2, 2, 8, true, SA_NHWC);
    d.ofm = sa_fm_make(3, 0, 1, 1, 1, 32, true, SA_NHWC);
    d.ofm.scale_mode = 1;
    d.kw = d.kh = 2;
    d.sx = d.sy = 2;
    CHECK(sa_status_ok(run_op(&d, in2, NULL, g2, NULL)));
    CHECK_EQ_INT(g2[0], 110);
}

/* ------------------------------------------------------------ rounding */

/* Output scaling R_mode(acc, m, s) of docs/ethos-u.md 5.6 through a 1x1 AVERAGE
 * pool with global scale (v = R(x - zi, m, s) + zo), int16 in and out. */
static void rounding_case(uint32_t m, unsigned s, const int32_t *x, size_t n,
                          const int32_t *want_tfl, const int32_t *want_trunc,
                          const int32_t *want_nat, const char *what)
{
    const int32_t *want[3] = {want_tfl, want_trunc, want_nat};
    for (unsigned r = 0; r < 3; r++) {
        op_desc d;
        op_init(&d, EU_U55_128, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, 1, (uint32_t)n, 1, 16, true, SA_NHWC);
        d.ofm = sa_fm_make(3, 0, 1, (uint32_t)n, 1, 16, true, SA_NHWC);
        d.ofm.scale_mode = 1;
        d.ofm.round = (uint8_t)r;
        d.ofm_m = m;
        d.ofm_s = s;
        int32_t got[16];
        CHECK(sa_status_ok(run_op(&d, x, NULL, got, NULL)));
        char w[96];
        snprintf(w, sizeof w, "%s, %s", what, r == 0 ? "TFL" : r == 1 ? "TRUNCATE" : "NATURAL");
        check_same(w, got, want[r], n);
    }
}

static void test_rounding(void)
{
    /* (m, s) = (2^30, 31): x * 0.5. s <= 31: TFL = half up like NATURAL.
     *   x:       5    -5    -3    -1    3    7   -7   100
     *   exact:  2.5  -2.5  -1.5  -0.5  1.5  3.5 -3.5  50
     *   TFL:     3    -2    -1     0    2    4   -3   50
     *   TRUNC:   2    -2    -1     0    1    3   -3   50
     *   NAT:     3    -2    -1     0    2    4   -3   50 */
    {
        static const int32_t x[] = {5, -5, -3, -1, 3, 7, -7, 100};
        static const int32_t tfl[] = {3, -2, -1, 0, 2, 4, -3, 50};
        static const int32_t tr[] = {2, -2, -1, 0, 1, 3, -3, 50};
        static const int32_t nat[] = {3, -2, -1, 0, 2, 4, -3, 50};
        rounding_case(1u << 30, 31, x, 8, tfl, tr, nat, "x * 2^30 >> 31");
    }
    /* (m, s) = (2^31, 33): x / 4 with s > 31: TFL adds +-2^30 to the
     * rounding term (P + 2^32 +- 2^30) >> 33, which rounds negative ties
     * away from zero; NATURAL rounds them up.
     *   x = -2: P = -2^32.       TFL: (-2^32 + 2^32 - 2^30) >> 33 = -1;  NAT: 0;   TRUNC: 0
     *   x =  2: P =  2^32.       TFL: (2^33 + 2^30) >> 33 = 1;            NAT: 1;   TRUNC: 0
     *   x = -6: P = -12*2^30.    TFL: (-12+4-1)*2^30 >> 33 = floor(-9/8) = -2; NAT: floor(-8/8) = -1; TRUNC: -1
     *   x = -5: -1.25            TFL: floor((-10+4-1)/8) = -1;       NAT: floor(-6/8) = -1;  TRUNC: -1
     *   x = -7: -1.75            TFL: floor((-14+3)/8) = -2;         NAT: floor(-10/8) = -2; TRUNC: -1
     *   x =  6:  1.5             TFL: floor((12+4+1)/8) = 2;         NAT: 2;                TRUNC: 1
     *   x = -32768: -8192 exact: TFL: floor((-65536+3)/8) = -8192;   NAT: -8192;            TRUNC: -8192
     *   x = 32767: 8191.75       TFL: floor((65534+5)/8) = 8192;     NAT: 8192;             TRUNC: 8191 */
    {
        static const int32_t x[] = {-2, 2, -6, -5, -7, 6, -32768, 32767};
        static const int32_t tfl[] = {-1, 1, -2, -1, -2, 2, -8192, 8192};
        static const int32_t tr[] = {0, 0, -1, -1, -1, 1, -8192, 8191};
        static const int32_t nat[] = {0, 1, -1, -1, -2, 2, -8192, 8192};
        rounding_case(0x80000000u, 33, x, 8, tfl, tr, nat, "x * 2^31 >> 33");
    }
    /* (m, s) = (3 * 2^30 = 0xC0000000, unsigned > 2^31, 35): x * 3/32.
     *   x = 16: 1.5   TFL: (48 + 16 + 1)*2^30 >> 35 = floor(65/32) = 2; NAT 2; TRUNC 1
     *   x = -16: -1.5 TFL: (-48 + 16 - 1) = -33 -> -2;   NAT: -32 -> -1;    TRUNC: -1
     *   x = -11: -1.03125 TFL: (-33+15)=-18 -> -1;       NAT: -17 -> -1;    TRUNC: -1
     *   x = 11: 1.03125 TFL: (33+17)=50 -> 1;            NAT: 49 -> 1;      TRUNC: 1
     *   x = -1: -0.09375 TFL: (-3+15) = 12 -> 0;         NAT: 13 -> 0;      TRUNC: 0 */
    {
        static const int32_t x[] = {16, -16, -11, 11, -1};
        static const int32_t tfl[] = {2, -2, -1, 1, 0};
        static const int32_t tr[] = {1, -1, -1, 1, 0};
        static const int32_t nat[] = {2, -1, -1, 1, 0};
        rounding_case(0xC0000000u, 35, x, 5, tfl, tr, nat, "x * 3*2^30 >> 35");
    }
    /* s = 0: P = x * m exactly (then the int16 clamp); s = 63 with m = 2^31:
     * x / 2^32: TFL: (x*2^31 + 2^62 +- 2^30) >> 63 -> 0 for every int16 x
     * (including x = -32768: -2^46 + 2^62 - 2^30 > 0 -> 0) */
    {
        static const int32_t x[] = {3, -3, 10000, -12000, 0};
        static const int32_t w3[] = {9, -9, 30000, -32768, 0};
        rounding_case(3, 0, x, 5, w3, w3, w3, "x * 3, shift 0");
        static const int32_t x2[] = {-32768, 32767, -1, 1};
        static const int32_t z[] = {0, 0, 0, 0};
        rounding_case(0x80000000u, 63, x2, 4, z, z, z, "x * 2^31 >> 63");
    }
}

/* -------------------------------------------------------- elementwise */

typedef struct ew_case {
    const char *name;
    eu_variant v;
    unsigned mode;            /* 0 MUL .. 9 SHL */
    uint8_t bits;
    uint32_t h, w, c;
    unsigned bcast;           /* SA_BC_* */
    int32_t z1, z2, zo;
} ew_case;

/* IFM2 extent for the broadcast bits. */
static void ew_ifm2_dims(const ew_case *e, uint32_t *h2, uint32_t *w2, uint32_t *c2)
{
    *h2 = (e->bcast & SA_BC_H) || (e->bcast & SA_BC_SCALAR) ? 1 : e->h;
    *w2 = (e->bcast & SA_BC_W) || (e->bcast & SA_BC_SCALAR) ? 1 : e->w;
    *c2 = (e->bcast & SA_BC_C) || (e->bcast & SA_BC_SCALAR) ? 1 : e->c;
}

/* Fills a descriptor for e (IFM, IFM2 tensor or scalar, OFM, all NHWC). */
static void ew_desc(const ew_case *e, op_desc *d, int32_t scalar)
{
    op_init(d, e->v, EU_OP_ELEMENTWISE, (uint16_t)e->mode);
    uint32_t h2, w2, c2;
    ew_ifm2_dims(e, &h2, &w2, &c2);
    d->ifm = sa_fm_make(1, 0, e->h, e->w, e->c, e->bits, true, SA_NHWC);
    d->ifm.zp = e->z1;
    d->ifm2 = sa_fm_make(2, 0, h2, w2, c2, e->bits, true, SA_NHWC);
    d->ifm2.zp = e->z2;
    d->ofm = sa_fm_make(3, 0, e->h, e->w, e->c, e->bits, true, SA_NHWC);
    d->ofm.zp = e->zo;
    d->ofm.scale_mode = 1;
    d->ifm2_tensor = !(e->bcast & SA_BC_SCALAR);
    d->bcast = e->bcast;
    d->scalar = scalar;
    d->act_min = type_min(e->bits, true);
    d->act_max = type_max(e->bits, true);
}

/* ADD/SUB with different input scales ("advanced", docs/ethos-u.md 5.8): the
 * operand with the smaller scale goes through OPA_SCALE (IFM scale mode 1
 * for the first operand A, 2 for B), the other is shifted by k-1; the sum
 * through OFM_SCALE. Programmed from TFLite's own multipliers (hardware
 * shift = 31 - shift_tfl - k for OPA, 31 - shift_tfl for OFM), so the
 * result must equal k_add_s8 / k_sub_s8 / k_add_s16. Operands: A = IFM,
 * B = IFM2, swapped by the operand-order bit. */
static void add_case(const ew_case *e, float s1, float s2, float so)
{
    uint32_t h2, w2, c2;
    ew_ifm2_dims(e, &h2, &w2, &c2);
    size_t n = (size_t)e->h * e->w * e->c, n2 = (size_t)h2 * w2 * c2;
    int32_t *a = xcalloc(n, 4), *b = xcalloc(n2, 4), *got = xcalloc(n, 4), *want = xcalloc(n, 4);
    bool s16 = e->bits == 16;
    fill_rand(a, n, s16 ? -32768 : -128, s16 ? 32767 : 127);
    fill_rand(b, n2, s16 ? -32768 : -128, s16 ? 32767 : 127);
    int32_t scalar = b[0];
    bool swap = (e->bcast & SA_BC_IFM2_FIRST) != 0;
    /* TFLite operands: in1 = first operand (A), in2 = B */
    float sA = swap ? s2 : s1, sB = swap ? s1 : s2;
    int32_t zA = swap ? e->z2 : e->z1, zB = swap ? e->z1 : e->z2;
    int k = s16 ? 15 : 20;
    double twice_max = 2.0 * (double)(sA > sB ? sA : sB);
    k_add_params p;
    memset(&p, 0, sizeof p);
    p.in1_offset = -zA;
    p.in2_offset = -zB;
    p.out_offset = e->zo;
    p.left_shift = k;
    k_quantize_multiplier((double)sA / twice_max, &p.in1_mult, &p.in1_shift);
    k_quantize_multiplier((double)sB / twice_max, &p.in2_mult, &p.in2_shift);
    k_quantize_multiplier(twice_max / ((double)(1 << k) * (double)so), &p.out_mult, &p.out_shift);
    p.act_min = type_min(e->bits, true);
    p.act_max = type_max(e->bits, true);
    k_dims d1 = dims4(e->h, e->w, e->c), d2 = dims4(h2, w2, c2), dout = d1;
    const int32_t *inA = swap ? b : a, *inB = swap ? a : b;
    k_dims dA = swap ? d2 : d1, dB = swap ? d1 : d2;
    size_t nA = swap ? n2 : n, nB = swap ? n : n2;
    int rc;
    if (s16) {
        int16_t *x = xcalloc(nA, 2), *y = xcalloc(nB, 2), *o = xcalloc(n, 2);
        to_s16(inA, x, nA);
        to_s16(inB, y, nB);
        rc = e->mode == 1 ? k_add_s16(&p, &dA, x, &dB, y, &dout, o) : k_sub_s16(&p, &dA, x, &dB, y, &dout, o);
        from_s16(o, want, n);
        free(x); free(y); free(o);
    } else {
        int8_t *x = xcalloc(nA, 1), *y = xcalloc(nB, 1), *o = xcalloc(n, 1);
        to_s8(inA, x, nA);
        to_s8(inB, y, nB);
        rc = e->mode == 1 ? k_add_s8(&p, &dA, x, &dB, y, &dout, o) : k_sub_s8(&p, &dA, x, &dB, y, &dout, o);
        from_s8(o, want, n);
        free(x); free(y); free(o);
    }
    CHECK_EQ_INT(rc, K_OK);

    op_desc d;
    ew_desc(e, &d, scalar);
    bool a_smaller = sA < sB;
    d.ifm.scale_mode = a_smaller ? 1 : 2;
    int32_t m = a_smaller ? p.in1_mult : p.in2_mult, sh = a_smaller ? p.in1_shift : p.in2_shift;
    d.opa_m = (uint32_t)m;
    d.opa_s = (unsigned)(31 - sh - k);
    d.opb_m = 0;
    d.ofm_m = (uint32_t)p.out_mult;
    d.ofm_s = sa_hw_shift(p.out_shift);
    CHECK(sa_status_ok(run_op(&d, a, b, got, NULL)));
    check_same(e->name, got, want, n);
    free(a); free(b); free(got); free(want);
}

static void test_add_sub(void)
{
    /* name, v, mode, bits, h w c, bcast, z1 z2 zo */
    const ew_case cases[] = {
        {"ADD int8 advanced (A smaller)", EU_U55_128, 1, 8, 3, 4, 5, 0, -3, 7, -2},
        {"SUB int8 advanced", EU_U55_256, 2, 8, 3, 4, 5, 0, 10, -20, 4},
        {"ADD int8 broadcast H", EU_U55_64, 1, 8, 3, 4, 5, SA_BC_H, 1, 2, 3},
        {"ADD int8 broadcast W", EU_U65_256, 1, 8, 3, 4, 5, SA_BC_W, -1, 0, 0},
        {"ADD int8 broadcast C", EU_U55_32, 1, 8, 3, 4, 17, SA_BC_C, 0, 5, -5},
        {"ADD int8 broadcast H+W", EU_U65_512, 1, 8, 4, 3, 6, SA_BC_H | SA_BC_W, 2, -2, 1},
        {"ADD int8 scalar", EU_U55_128, 1, 8, 2, 5, 7, SA_BC_SCALAR, 3, -8, 0},
        {"SUB int8 broadcast W, IFM2 first", EU_U55_128, 2, 8, 3, 4, 5, SA_BC_W | SA_BC_IFM2_FIRST,
         4, -4, 2},
        {"SUB int8 scalar, IFM2 first", EU_U55_256, 2, 8, 2, 3, 9, SA_BC_SCALAR | SA_BC_IFM2_FIRST,
         -7, 12, -1},
        {"ADD int16 advanced", EU_U55_128, 1, 16, 3, 4, 5, 0, 0, 0, 0},
        {"SUB int16 broadcast C", EU_U65_256, 2, 16, 2, 3, 20, SA_BC_C, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        add_case(&cases[i], 0.02f, 0.05f, 0.08f);     /* IFM has the smaller scale */
        add_case(&cases[i], 0.07f, 0.015f, 0.12f);    /* IFM2 has the smaller scale */
    }

    /* equal input scales (scale mode 0: OPA = OPB = 32768, OFM_SCALE =
     * quantise(2 s_in / (s_o 2^16))): s_in = 0.1, s_o = 0.2 -> 2^-16 =
     * (2^30, 46): out = R((a + b) * 2^15, 2^30, 46) + zo = (a + b) / 2.
     *   IFM  4 -2  0  1 100 -128 127  2   (zp 1) a = 3 -3 -1  0 99 -129 126  1
     *   IFM2 1  0 -1  3 100 -128 127 -3   (zp 1) b = 0 -1 -2  2 99 -129 126 -4
     * ADD (a+b)/2 = 1.5 -2 -1.5 1 99 -129 126 -1.5
     *   TFL (s > 31: negative ties away from zero): 2 -2 -2 1 99 -129 126 -2, + zo -1, clamp
     *   NATURAL (half up):                          2 -2 -1 1 99 -129 126 -1
     * SUB (a-b)/2 = 1.5 -1 0.5 -1 0 0 0 2.5 -> TFL 2 -1 1 -1 0 0 0 3 */
    {
        static const int32_t a[8] = {4, -2, 0, 1, 100, -128, 127, 2};
        static const int32_t b[8] = {1, 0, -1, 3, 100, -128, 127, -3};
        static const int32_t add_tfl[8] = {1, -3, -3, 0, 98, -128, 125, -3};
        static const int32_t add_nat[8] = {1, -3, -2, 0, 98, -128, 125, -2};
        static const int32_t sub_tfl[8] = {1, -2, 0, -2, -1, -1, -1, 2};
        for (int t = 0; t < 3; t++) {
            ew_case e = {"equal-scale", EU_U55_128, t == 2 ? 2u : 1u, 8, 1, 1, 8, 0, 1, 1, -1};
            op_desc d;
            ew_desc(&e, &d, 0);
            d.opa_m = 32768;
            d.opa_s = 0;
            d.opb_m = 32768;
            d.ofm_m = 1u << 30;
            d.ofm_s = 46;
            d.ofm.round = t == 1 ? SA_ROUND_NATURAL : SA_ROUND_TFL;
            int32_t got[8];
            CHECK(sa_status_ok(run_op(&d, a, b, got, NULL)));
            check_same(t == 0 ? "ADD equal-scale TFL" : t == 1 ? "ADD equal-scale NATURAL"
                                                               : "SUB equal-scale TFL",
                       got, t == 0 ? add_tfl : t == 1 ? add_nat : sub_tfl, 8);
        }
    }
    /* 32-bit ADD: no operand scaling, only the OFM shift (the multiplier
     * is ignored): Vela's rounding half-sum (1, 1):
     *   (7 + 2)/2 = 4.5 -> 5;  (-7 - 2)/2 = -4.5 -> -4 (s <= 31: half up);
     *   (2^30 + 2^30) / 2 = 2^30;  (-2^31 + 1)/2 = -1073741823.5 -> -1073741823 */
    {
        static const int32_t a[4] = {7, -7, 1 << 30, INT32_MIN};
        static const int32_t b[4] = {2, -2, 1 << 30, 1};
        static const int32_t want[4] = {5, -4, 1 << 30, -1073741823};
        ew_case e = {"ADD int32", EU_U55_128, 1, 32, 1, 1, 4, 0, 0, 0, 0};
        op_desc d;
        ew_desc(&e, &d, 0);
        d.ofm_m = 12345;   /* ignored for 32-bit operations */
        d.ofm_s = 1;
        int32_t got[4];
        CHECK(sa_status_ok(run_op(&d, a, b, got, NULL)));
        check_same("ADD int32 half-sum", got, want, 4);
    }
}

/* MUL / MIN / MAX against k_mul_s8/s16, k_minimum_s8, k_maximum_s8. */
static void binary_case(const ew_case *e, float s1, float s2, float so)
{
    uint32_t h2, w2, c2;
    ew_ifm2_dims(e, &h2, &w2, &c2);
    size_t n = (size_t)e->h * e->w * e->c, n2 = (size_t)h2 * w2 * c2;
    bool s16 = e->bits == 16;
    int32_t *a = xcalloc(n, 4), *b = xcalloc(n2, 4), *got = xcalloc(n, 4), *want = xcalloc(n, 4);
    fill_rand(a, n, s16 ? -32768 : -128, s16 ? 32767 : 127);
    fill_rand(b, n2, s16 ? -32768 : -128, s16 ? 32767 : 127);
    bool swap = (e->bcast & SA_BC_IFM2_FIRST) != 0;
    if (s16) so *= 4096.0f;   /* keep int16 products mostly inside the range */
    const int32_t *inA = swap ? b : a, *inB = swap ? a : b;
    k_dims d1 = dims4(e->h, e->w, e->c), d2 = dims4(h2, w2, c2), dout = d1;
    k_dims dA = swap ? d2 : d1, dB = swap ? d1 : d2;
    size_t nA = swap ? n2 : n, nB = swap ? n : n2;
    op_desc d;
    ew_desc(e, &d, b[0]);
    int rc = K_OK;
    if (e->mode == 0) {
        k_mul_params p;
        memset(&p, 0, sizeof p);
        p.in1_offset = -(swap ? e->z2 : e->z1);
        p.in2_offset = -(swap ? e->z1 : e->z2);
        p.out_offset = e->zo;
        k_quantize_multiplier((double)s1 * (double)s2 / (double)so, &p.out_mult, &p.out_shift);
        p.act_min = type_min(e->bits, true);
        p.act_max = type_max(e->bits, true);
        d.ofm_m = (uint32_t)p.out_mult;
        d.ofm_s = sa_hw_shift(p.out_shift);
        if (s16) {
            int16_t *x = xcalloc(nA, 2), *y = xcalloc(nB, 2), *o = xcalloc(n, 2);
            to_s16(inA, x, nA);
            to_s16(inB, y, nB);
            rc = k_mul_s16(&p, &dA, x, &dB, y, &dout, o);
            from_s16(o, want, n);
            free(x); free(y); free(o);
        } else {
            int8_t *x = xcalloc(nA, 1), *y = xcalloc(nB, 1), *o = xcalloc(n, 1);
            to_s8(inA, x, nA);
            to_s8(inB, y, nB);
            rc = k_mul_s8(&p, &dA, x, &dB, y, &dout, o);
            from_s8(o, want, n);
            free(x); free(y); free(o);
        }
    } else {
        /* MIN/MAX: equal quantisation, zero points cancel, OFM_SCALE (1, 0) */
        d.ofm_m = 1;
        d.ofm_s = 0;
        int8_t *x = xcalloc(nA, 1), *y = xcalloc(nB, 1), *o = xcalloc(n, 1);
        to_s8(inA, x, nA);
        to_s8(inB, y, nB);
        rc = e->mode == 3 ? k_minimum_s8(&dA, x, &dB, y, &dout, o) : k_maximum_s8(&dA, x, &dB, y, &dout, o);
        from_s8(o, want, n);
        free(x); free(y); free(o);
    }
    CHECK_EQ_INT(rc, K_OK);
    CHECK(sa_status_ok(run_op(&d, a, b, got, NULL)));
    check_same(e->name, got, want, n);
    free(a); free(b); free(got); free(want);
}

static void test_mul_min_max(void)
{
    const ew_case cases[] = {
        {"MUL int8", EU_U55_128, 0, 8, 3, 4, 5, 0, 2, -5, 3},
        {"MUL int8 broadcast C", EU_U55_256, 0, 8, 3, 4, 18, SA_BC_C, -1, 4, 0},
        {"MUL int8 broadcast H, IFM2 first", EU_U55_64, 0, 8, 3, 4, 5, SA_BC_H | SA_BC_IFM2_FIRST,
         6, 1, -3},
        {"MUL int8 scalar", EU_U65_256, 0, 8, 2, 5, 6, SA_BC_SCALAR, 0, -5, 1},
        {"MUL int16", EU_U55_128, 0, 16, 3, 4, 5, 0, 0, 0, 0},
        {"MUL int16 broadcast W", EU_U55_32, 0, 16, 3, 4, 5, SA_BC_W, 0, 0, 0},
        {"MIN int8", EU_U55_128, 3, 8, 3, 4, 5, 0, 3, 3, 3},
        {"MIN int8 broadcast W", EU_U65_512, 3, 8, 3, 4, 5, SA_BC_W, -2, -2, -2},
        {"MIN int8 scalar, IFM2 first", EU_U55_256, 3, 8, 2, 3, 7, SA_BC_SCALAR | SA_BC_IFM2_FIRST,
         0, 0, 0},
        {"MAX int8", EU_U55_64, 4, 8, 3, 4, 5, 0, -9, -9, -9},
        {"MAX int8 broadcast H+C", EU_U55_128, 4, 8, 3, 4, 5, SA_BC_H | SA_BC_C, 1, 1, 1},
        {"MAX int8 scalar", EU_U55_128, 4, 8, 3, 4, 5, SA_BC_SCALAR, 4, 4, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        binary_case(&cases[i], 0.05f, 0.04f, 0.2f);
    /* a product scale > 1: MUL with out_shift > 0 (hardware shift < 31) */
    binary_case(&cases[0], 0.5f, 0.4f, 0.1f);
}

/* Unary and shift modes, by hand. */
static void unary_run(eu_variant v, unsigned mode, uint8_t bits, const int32_t *a, const int32_t *b,
                      size_t n, int32_t z1, int32_t zo, uint32_t m, unsigned s, uint8_t round,
                      const int32_t *want, const char *what)
{
    ew_case e = {what, v, mode, bits, 1, 1, (uint32_t)n, 0, z1, 0, zo};
    op_desc d;
    ew_desc(&e, &d, 0);
    d.ifm2_tensor = b != NULL;
    d.ofm_m = m;
    d.ofm_s = s;
    d.ofm.round = round;
    int32_t got[16];
    CHECK(sa_status_ok(run_op(&d, a, b, got, NULL)));
    check_same(what, got, want, n);
}

static void test_unary_shift(void)
{
    /* ABS: |x - zi| scaled + zo. zi = -1, zo = -1:
     *   x      -128  -1   0   5  127
     *   a      -127   0   1   6  128
     *   (1,0)   127   0   1   6  128  -> +zo: 126 -1  0  5 127
     *   (2^30, 31) = x0.5, TFL s<=31 half up: 63.5->64, 0, 0.5->1, 3, 64 -> 63 -1 0 2 63 */
    {
        static const int32_t x[5] = {-128, -1, 0, 5, 127};
        static const int32_t w1[5] = {126, -1, 0, 5, 127};
        static const int32_t w2[5] = {63, -1, 0, 2, 63};
        unary_run(EU_U55_128, 6, 8, x, NULL, 5, -1, -1, 1, 0, 0, w1, "ABS int8 (1,0)");
        unary_run(EU_U55_128, 6, 8, x, NULL, 5, -1, -1, 1u << 30, 31, 0, w2, "ABS int8 x0.5");
    }
    /* LRELU against k_leaky_relu_s8 (equal IFM/OFM quantisation as Vela
     * requires): OFM_SCALE = quantise(alpha) applies to the negative side */
    {
        int32_t x[64], got[64], want[64];
        int8_t i8[64], o8[64];
        for (int i = 0; i < 64; i++) x[i] = i * 4 - 128;
        x[63] = 127;
        to_s8(x, i8, 64);
        k_leaky_relu_params lp;
        k_leaky_relu_prepare(0.1f, 3, 0.1f, 3, 0.3f, &lp);
        CHECK_EQ_INT(k_leaky_relu_s8(&lp, i8, o8, 64), K_OK);
        from_s8(o8, want, 64);
        ew_case e = {"LRELU int8", EU_U55_256, 5, 8, 1, 4, 16, 0, 3, 0, 3};
        op_desc d;
        ew_desc(&e, &d, 0);
        d.ifm2_tensor = false;
        d.ofm_m = (uint32_t)lp.mult_alpha;
        d.ofm_s = sa_hw_shift(lp.shift_alpha);
        CHECK(sa_status_ok(run_op(&d, x, NULL, got, NULL)));
        check_same("LRELU int8 vs k_leaky_relu_s8", got, want, 64);
    }
    /* CLZ (int32): 0 -> 32, 1 -> 31, -1 -> 0, 2^16 -> 15, INT32_MIN -> 0,
     * INT32_MAX -> 1, 255 -> 24 */
    {
        static const int32_t x[7] = {0, 1, -1, 1 << 16, INT32_MIN, INT32_MAX, 255};
        static const int32_t w[7] = {32, 31, 0, 15, 0, 1, 24};
        unary_run(EU_U55_128, 7, 32, x, NULL, 7, 0, 0, 1, 0, 0, w, "CLZ int32");
    }
    /* SHL (int32, IFM2 = shift): 1<<3 = 8, -5<<2 = -20, 3<<0 = 3,
     * 7<<28 = 1879048192, 2^16<<14 = 2^30, -1<<31 = INT32_MIN, 9 << -1 -> shift 0 = 9 */
    {
        static const int32_t a[7] = {1, -5, 3, 7, 1 << 16, -1, 9};
        static const int32_t b[7] = {3, 2, 0, 28, 14, 31, -1};
        static const int32_t w[7] = {8, -20, 3, 1879048192, 1 << 30, INT32_MIN, 9};
        unary_run(EU_U55_256, 9, 32, a, b, 7, 0, 0, 1, 0, 0, w, "SHL int32");
    }
    /* SHR (int32) with the OFM rounding mode, shifts up to 40:
     *   a     -5   5   -6   -7   INT32_MIN  INT32_MAX  100   -1
     *   b      1   1    2    2   32         31         0     40
     *   exact -2.5 2.5 -1.5 -1.75 -0.5     ~0.99999    100  -2^-40
     *   NATURAL (half up):        -2 3 -1 -2  0  1  100  0
     *   TRUNCATE (toward zero):   -2 2 -1 -1  0  0  100  0
     *   TFL: s <= 31 as NATURAL; s = 32: (-2^31 + 2^31 - 2^30) >> 32 = -1;
     *        s = 40: (-1 + 2^39 - 2^30) >> 40 = 0:   -2 3 -1 -2 -1 1 100 0 */
    {
        static const int32_t a[8] = {-5, 5, -6, -7, INT32_MIN, INT32_MAX, 100, -1};
        static const int32_t b[8] = {1, 1, 2, 2, 32, 31, 0, 40};
        static const int32_t nat[8] = {-2, 3, -1, -2, 0, 1, 100, 0};
        static const int32_t tr[8] = {-2, 2, -1, -1, 0, 0, 100, 0};
        static const int32_t tfl[8] = {-2, 3, -1, -2, -1, 1, 100, 0};
        unary_run(EU_U55_128, 8, 32, a, b, 8, 0, 0, 1, 0, SA_ROUND_NATURAL, nat, "SHR NATURAL");
        unary_run(EU_U55_128, 8, 32, a, b, 8, 0, 0, 1, 0, SA_ROUND_TRUNCATE, tr, "SHR TRUNCATE");
        unary_run(EU_U55_128, 8, 32, a, b, 8, 0, 0, 1, 0, SA_ROUND_TFL, tfl, "SHR TFL");
    }
}

/* -------------------------------------------------------------- layouts */

/* Depthwise 3x3 SAME with layout variations on IFM and OFM; every variant
 * must give the reference's bytes, and OFM bytes outside the elements
 * (stride gaps, the padding channels of the last brick) stay untouched. */
static void test_layouts(void)
{
    const uint32_t H = 6, W = 5, C = 20;
    const size_t n = (size_t)H * W * C;
    int32_t *in = xcalloc(n, 4), *want = xcalloc(n, 4), *got = xcalloc(n, 4);
    int16_t Wt[20 * 9];
    int8_t filt[9 * 20], i8[6 * 5 * 20], o8[6 * 5 * 20];
    int32_t bias[20], mult[20], shift[20];
    sim_scale_rec rec[20];
    fill_rand(in, n, -128, 127);
    to_s8(in, i8, n);
    for (uint32_t o = 0; o < C; o++) {
        for (uint32_t k = 0; k < 9; k++) {
            Wt[o * 9 + k] = (int16_t)rnd_range(-127, 127);
            filt[k * C + o] = (int8_t)Wt[o * 9 + k];
        }
        k_quantize_multiplier(0.01 * (0.5 + rnd01()), &mult[o], &shift[o]);
        bias[o] = rnd_range(-2000, 2000);
        rec[o] = (sim_scale_rec){bias[o], (uint32_t)mult[o], (uint8_t)sa_hw_shift(shift[o])};
    }
    k_conv_params p;
    memset(&p, 0, sizeof p);
    p.batches = 1;
    p.in_h = p.out_h = (int32_t)H; p.in_w = p.out_w = (int32_t)W; p.in_c = p.out_c = (int32_t)C;
    p.filter_h = p.filter_w = 3; p.filter_c = 1;
    p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
    p.pad_h = p.pad_w = 1;
    p.depth_multiplier = 1;
    p.input_offset = 4;
    p.output_offset = -3;
    p.act_min = -128;
    p.act_max = 127;
    p.out_mult = mult;
    p.out_shift = shift;
    CHECK_EQ_INT(k_dwconv_s8(&p, i8, filt, bias, o8), K_OK);
    from_s8(o8, want, n);

    for (int lay = 0; lay < 6; lay++) {
        op_desc d;
        op_init(&d, EU_U55_256, EU_OP_DEPTHWISE, 0);
        sa_fm ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHWC);
        sa_fm ofm = sa_fm_make(3, 0, H, W, C, 8, true, SA_NHWC);
        const char *what = "";
        switch (lay) {
        case 0:
            what = "layout NHWC -> NHWC";
            break;
        case 1:
            what = "layout NHCWB16 -> NHCWB16";
            ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHCWB16);
            ofm = sa_fm_make(3, 0, H, W, C, 8, true, SA_NHCWB16);
            break;
        case 2:
            /* explicit strides: 3 spare bytes per pixel, 7 per row; OFM
             * NHCWB16 with a wider brick stride (room for 8 columns) */
            what = "layout explicit strides";
            ifm.sx = C + 3;
            ifm.sy = (C + 3) * W + 7;
            ofm = sa_fm_make(3, 16, H, W, C, 8, true, SA_NHCWB16);
            ofm.sc = 16 * 8;
            ofm.sy = 16 * 8 * 2 + 32;
            break;
        case 3:
            /* IFM split in 4 tiles: W0 = 2, H0 = 4, H1 = 3, each tile
             * elsewhere in the region with the shared strides */
            what = "layout IFM 4 tiles";
            ifm.w0 = 2; ifm.h0 = 4; ifm.h1 = 3;
            ifm.base[0] = 0; ifm.base[1] = 1024; ifm.base[2] = 2048; ifm.base[3] = 3072;
            break;
        case 4:
            what = "layout OFM 4 tiles (NHCWB16)";
            ofm = sa_fm_make(3, 0, H, W, C, 8, true, SA_NHCWB16);
            ofm.w0 = 3; ofm.h0 = 2; ofm.h1 = 5;
            ofm.base[0] = 4096; ofm.base[1] = 0; ofm.base[2] = 8192; ofm.base[3] = 2048;
            break;
        default:
            /* both split, IFM NHCWB16 with explicit tile bases */
            what = "layout IFM and OFM 4 tiles";
            ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHCWB16);
            ifm.w0 = 4; ifm.h0 = 1; ifm.h1 = 5;
            ifm.base[0] = 0; ifm.base[1] = 2048; ifm.base[2] = 4096; ifm.base[3] = 6144;
            ofm.w0 = 1; ofm.h0 = 3; ofm.h1 = 3;
            ofm.base[0] = 3000; ofm.base[1] = 0; ofm.base[2] = 1000; ofm.base[3] = 2000;
            break;
        }
        ifm.zp = -4;
        ofm.zp = -3;
        d.ifm = ifm;
        d.ofm = ofm;
        d.kw = d.kh = 3;
        d.pt = d.pl = d.pb = d.pr = 1;
        d.W = Wt;
        d.rec = rec;
        d.act_min = -128;
        d.act_max = 127;
        op_res r;
        uint32_t st = run_op(&d, in, NULL, got, &r);
        CHECK(sa_status_ok(st));
        if (!sa_status_ok(st)) fprintf(stderr, "%s: %s\n", what, r.err);
        check_same(what, got, want, n);
        /* every byte that is not an element is untouched */
        sa_fm of = d.ofm;
        of.region = 3;
        sa_fm_finish(&of);
        uint8_t *mark = xcalloc(r.ofm_size, 1);
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++)
                for (uint32_t c = 0; c < C; c++) mark[sa_fm_offset(&of, y, x, c)] = 1;
        size_t touched = 0;
        for (size_t i = 0; i < r.ofm_size; i++)
            if (!mark[i] && r.ofm_buf[i] != 0xA5) touched++;
        CHECK_EQ_INT(touched, 0);
        free(mark);
        free(r.ofm_buf);
    }
    free(in);
    free(want);
    free(got);

    /* elementwise with tiled IFM, IFM2 and OFM (all three 4-tile maps) */
    {
        const uint32_t h = 5, w = 6, c = 3;
        int32_t a[90], b[90], g[90], ref[90];
        fill_rand(a, 90, -60, 60);
        fill_rand(b, 90, -60, 60);
        for (int i = 0; i < 90; i++) ref[i] = (a[i] - 1) + (b[i] + 2) + 5;   /* zp 1, -2, 5 */
        ew_case e = {"ADD tiles", EU_U55_128, 1, 8, h, w, c, 0, 1, -2, 5};
        op_desc d;
        ew_desc(&e, &d, 0);
        d.ifm.w0 = 2; d.ifm.h0 = 3; d.ifm.h1 = 1;
        d.ifm.base[1] = 512; d.ifm.base[2] = 1024; d.ifm.base[3] = 1536;
        d.ifm2 = sa_fm_make(2, 0, h, w, c, 8, true, SA_NHCWB16);
        d.ifm2.zp = -2;
        d.ifm2.w0 = 5; d.ifm2.h0 = 2; d.ifm2.h1 = 4;
        d.ifm2.base[0] = 3072; d.ifm2.base[1] = 2048; d.ifm2.base[2] = 1024; d.ifm2.base[3] = 0;
        d.ofm.w0 = 3; d.ofm.h0 = 4; d.ofm.h1 = 2;
        d.ofm.base[1] = 256; d.ofm.base[2] = 512; d.ofm.base[3] = 768;
        d.opa_m = 1;
        d.opb_m = 1;
        d.ofm_m = 1;
        d.ofm_s = 0;
        CHECK(sa_status_ok(run_op(&d, a, b, g, NULL)));
        check_same("ADD with 4-tile IFM, IFM2 (NHCWB16) and OFM", g, ref, 90);
    }
}

/* IFM_UPSCALE NEAREST by hand: a 1x1 AVERAGE pool (global (1, 0)) on a
 * 2x upscaled 3x4 IFM writes out[y][x] = in[y/2][x/2]; ZEROS writes the
 * value at even (y, x) and the zero point (0 after scaling + zo) elsewhere. */
static void test_upscale(void)
{
    int32_t in[3 * 4 * 2], got[6 * 8 * 2], want[6 * 8 * 2];
    fill_rand(in, 24, -128, 120);   /* x - 3 + 7 stays inside int8 */
    for (unsigned mode = 1; mode <= 2; mode++) {
        for (uint32_t y = 0; y < 6; y++)
            for (uint32_t x = 0; x < 8; x++)
                for (uint32_t c = 0; c < 2; c++) {
                    bool hole = mode == 2 && ((y & 1) || (x & 1));
                    want[(y * 8 + x) * 2 + c] = hole ? 7 : in[((y / 2) * 4 + x / 2) * 2 + c] - 3 + 7;
                }
        op_desc d;
        op_init(&d, EU_U55_256, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, 3, 4, 2, 8, true, SA_NHWC);
        d.ifm.zp = 3;
        d.ofm = sa_fm_make(3, 0, 6, 8, 2, 8, true, SA_NHCWB16);
        d.ofm.zp = 7;
        d.ofm.scale_mode = 1;
        d.upscale = mode;
        d.act_min = -128;
        d.act_max = 127;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same(mode == 1 ? "IFM_UPSCALE NEAREST" : "IFM_UPSCALE ZEROS", got, want, 96);
    }
}

/* ------------------------------------------------------------------ LUT */

static void test_lut(void)
{
    /* int8 LUT n = 3 (table at lut_start + 768), via a 1x1 AVERAGE pool
     * (v = x - zi + zo, clamped to MIN/MAX), index v + 128 */
    for (int vi = 0; vi < 3; vi++) {
        static const eu_variant vs[3] = {EU_U55_64, EU_U55_128, EU_U65_256};
        uint8_t table[256];
        for (int i = 0; i < 256; i++) table[i] = (uint8_t)rnd();
        int32_t in[64], got[64], want[64];
        for (int i = 0; i < 64; i++) in[i] = i * 4 - 128;
        in[63] = 127;
        for (int i = 0; i < 64; i++) {
            int32_t v = in[i] - 2 + (-5);
            v = v < -100 ? -100 : v > 110 ? 110 : v;
            want[i] = (int8_t)table[v + 128];
        }
        op_desc d;
        op_init(&d, vs[vi], EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, 4, 4, 4, 8, true, SA_NHWC);
        d.ifm.zp = 2;
        d.ofm = sa_fm_make(3, 0, 4, 4, 4, 8, true, SA_NHWC);
        d.ofm.zp = -5;
        d.ofm.scale_mode = 1;
        d.act_func = 16 + 3;
        d.act_min = -100;
        d.act_max = 110;
        d.lut = table;
        d.lut_len = 256;
        d.lut_slot = 3;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same("int8 LUT", got, want, 64);
    }
    /* uint8 OFM (clip 0: index v) and int8 OFM with clip 2 = force uint8
     * (v clamped to [0, 127], index v) */
    for (int t = 0; t < 2; t++) {
        uint8_t table[256];
        for (int i = 0; i < 256; i++) table[i] = (uint8_t)rnd();
        int32_t in[64], got[64], want[64];
        for (int i = 0; i < 64; i++) in[i] = t == 0 ? i * 4 : i * 4 - 128;
        for (int i = 0; i < 64; i++) {
            int32_t v = in[i] - (t == 0 ? 100 : 0) + 90;
            int32_t lo = 0, hi = t == 0 ? 255 : 127;
            v = v < lo ? lo : v > hi ? hi : v;
            want[i] = t == 0 ? table[v] : (int8_t)table[v];
        }
        op_desc d;
        op_init(&d, EU_U55_256, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, 4, 4, 4, 8, t != 0, SA_NHWC);
        d.ifm.zp = t == 0 ? 100 : 0;
        d.ofm = sa_fm_make(3, 0, 4, 4, 4, 8, t != 0, SA_NHCWB16);
        d.ofm.zp = 90;
        d.ofm.scale_mode = 1;
        d.act_func = 16 + 7;
        d.act_clip = t == 0 ? 0 : 2;
        d.act_min = t == 0 ? 0 : -128;
        d.act_max = t == 0 ? 255 : 127;
        d.lut = table;
        d.lut_len = 256;
        d.lut_slot = 7;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same(t == 0 ? "uint8 LUT" : "int8 OFM LUT, force uint8", got, want, 64);
    }
    /* int32 OFM, clip 3 = force int8: v clamped to [-128, 127] (and to
     * MIN/MAX), entry 4*(v + 128) of the 1 KiB table in slot 4 */
    {
        uint8_t table[1024];
        for (int i = 0; i < 1024; i++) table[i] = (uint8_t)rnd();
        int32_t in[40], got[40], want[40];
        for (int i = 0; i < 40; i++) in[i] = -32768 + i * 1680;
        for (int i = 0; i < 40; i++) {
            int64_t v = (int64_t)in[i] + 10 - 1;   /* zi -10, zo -1 */
            v = v < -120 ? -120 : v > 127 ? 127 : v;
            const uint8_t *e = table + 4 * (v + 128);
            want[i] = (int32_t)((uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 |
                                (uint32_t)e[3] << 24);
        }
        op_desc d;
        op_init(&d, EU_U55_256, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, 1, 40, 1, 16, true, SA_NHWC);
        d.ifm.zp = -10;
        d.ofm = sa_fm_make(3, 0, 1, 40, 1, 32, true, SA_NHWC);
        d.ofm.zp = -1;
        d.ofm.scale_mode = 1;
        d.act_func = 16 + 4;
        d.act_clip = 3;
        d.act_min = -120;
        d.act_max = 300;
        d.lut = table;
        d.lut_len = 1024;
        d.lut_slot = 4;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same("int32 OFM LUT, force int8", got, want, 40);
    }
    /* int16 interpolated LUT (slot 0, 512 x 4 bytes): idx = (v + 32768) >> 7,
     * frac = v & 127, base + ((slope * frac + 64) >> 7).
     * Table 1: base_i = -32768 + 128 i, slope 128: base + frac = v (identity).
     * Table 2: random bases, slope = next - base: by the formula. Anchors:
     *   v = -32768: idx 0, frac 0 -> base_0;  v = 32767: idx 511, frac 127. */
    for (int t = 0; t < 2; t++) {
        uint8_t table[2048];
        int32_t base[513];
        for (int i = 0; i <= 512; i++) base[i] = t == 0 ? -32768 + 128 * i : rnd_range(-30000, 30000);
        for (int i = 0; i < 512; i++) {
            int32_t slope = t == 0 ? 128 : base[i + 1] - base[i];
            if (slope > 32767) slope = 32767;
            if (slope < -32768) slope = -32768;
            sa_store(table + 4 * i, 2, base[i]);
            sa_store(table + 4 * i + 2, 2, slope);
        }
        int32_t in[64], got[64], want[64];
        for (int i = 0; i < 64; i++) in[i] = rnd_range(-32768, 32767);
        in[0] = -32768;
        in[1] = 32767;
        in[2] = 0;
        in[3] = -1;
        for (int i = 0; i < 64; i++) {
            int32_t v = in[i], idx = (v + 32768) >> 7, frac = v & 127;
            int32_t e_base = (int16_t)(table[4 * idx] | table[4 * idx + 1] << 8);
            int32_t e_slope = (int16_t)(table[4 * idx + 2] | table[4 * idx + 3] << 8);
            int32_t r = e_base + ((e_slope * frac + 64) >> 7);
            want[i] = r < -32768 ? -32768 : r > 32767 ? 32767 : r;
            if (t == 0) CHECK_EQ_INT(want[i], v);
        }
        op_desc d;
        op_init(&d, EU_U65_256, EU_OP_POOL, 1);
        d.ifm = sa_fm_make(1, 0, 4, 4, 4, 16, true, SA_NHWC);
        d.ofm = sa_fm_make(3, 0, 4, 4, 4, 16, true, SA_NHWC);
        d.ofm.scale_mode = 1;
        d.act_func = 16;
        d.lut = table;
        d.lut_len = 2048;
        d.lut_slot = 0;
        CHECK(sa_status_ok(run_op(&d, in, NULL, got, NULL)));
        check_same(t == 0 ? "int16 LUT identity" : "int16 LUT interpolation", got, want, 64);
    }
}

/* ------------------------------------------------------------------ DMA */

static void test_dma(void)
{
    uint8_t src[128], dst[128];
    for (int i = 0; i < 128; i++) src[i] = (uint8_t)(i * 7 + 1);
    memset(dst, 0xEE, sizeof dst);
    sa_stream s;
    sa_init(&s);
    /* region 0 [16, 64) -> region 1 [32, 80) */
    sa_dma(&s, 0, 16, 1, 32, 48);
    /* region 0 [0, 32) -> SHRAM 0x100 -> region 1 [96, 128) */
    sa_dma(&s, 0, 0, SA_DMA_SHRAM, 0x100, 32);
    sa_dma(&s, SA_DMA_SHRAM, 0x100, 1, 96, 32);
    sa_stop(&s);
    sa_npu m;
    CHECK(sa_open(&m, EU_U55_128) == 0);
    sa_region(&m, 0, src, sizeof src, false);
    sa_region(&m, 1, dst, sizeof dst, true);
    uint32_t st = sa_run(&m, &s);
    CHECK(sa_status_ok(st));
    if (!sa_status_ok(st)) fprintf(stderr, "DMA: %s\n", sim_npu_error(m.npu));
    CHECK(memcmp(dst + 32, src + 16, 48) == 0);
    CHECK(memcmp(dst + 96, src, 32) == 0);
    int untouched = 1;
    for (int i = 0; i < 128; i++)
        if ((i < 32 || (i >= 80 && i < 96)) && dst[i] != 0xEE) untouched = 0;
    CHECK(untouched);
    size_t n_ops;
    const sim_op_info *ops = sim_npu_ops(m.npu, &n_ops);
    CHECK_EQ_INT(n_ops, 3);
    if (n_ops == 3) {
        CHECK_EQ_INT(ops[0].kind, SIM_K_DMA);
        CHECK_EQ_INT(ops[0].dma_bytes, 48);
    }
    sa_close(&m);
    sa_free(&s);
}

/* A stream with several ops: register state is sticky across operations
 * (the second ADD only changes what differs, as Vela does). */
static void test_sticky_state(void)
{
    int8_t a[8] = {1, 2, 3, 4, -1, -2, -3, -4}, b[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    int8_t o1[8], o2[8];
    memset(o1, 0, 8);
    memset(o2, 0, 8);
    sa_stream s;
    sa_init(&s);
    sa_fm ifm = sa_fm_make(1, 0, 1, 2, 4, 8, true, SA_NHWC);
    sa_fm ifm2 = sa_fm_make(2, 0, 1, 2, 4, 8, true, SA_NHWC);
    sa_fm ofm = sa_fm_make(3, 0, 1, 2, 4, 8, true, SA_NHWC);
    ofm.scale_mode = 1;
    sa_set_ofm_scale(&s, 1, 0);
    sa_set_opa_scale(&s, 1, 0);
    sa_set_opb_scale(&s, 1);
    sa_set_ifm(&s, &ifm);
    sa_set_ofm(&s, &ofm);
    sa_set_act(&s, 0, 0, -128, 127);
    sa_set_config(&s, EU_U55_128, &ofm, 8, true, true);
    sa_set_ifm2(&s, &ifm2);
    sa_set_bcast(&s, 0);
    sa_cmd0(&s, EU_OP_ELEMENTWISE, 1);            /* o1 = a + b */
    sa_addr(&s, EU_SET_OFM_BASE0, 16);
    sa_addr(&s, EU_SET_OFM_BASE1, 16);
    sa_addr(&s, EU_SET_OFM_BASE2, 16);
    sa_addr(&s, EU_SET_OFM_BASE3, 16);
    sa_cmd0(&s, EU_OP_ELEMENTWISE, 2);            /* o2 = a - b */
    sa_stop(&s);
    uint8_t obuf[32];
    memset(obuf, 0, sizeof obuf);
    sa_npu m;
    CHECK(sa_open(&m, EU_U55_128) == 0);
    sa_region(&m, 1, a, 8, true);
    sa_region(&m, 2, b, 8, true);
    sa_region(&m, 3, obuf, 32, true);
    CHECK(sa_status_ok(sa_run(&m, &s)));
    memcpy(o1, obuf, 8);
    memcpy(o2, obuf + 16, 8);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(o1[i], a[i] + b[i]);
        CHECK_EQ_INT(o2[i], a[i] - b[i]);
    }
    size_t n_ops;
    sim_npu_ops(m.npu, &n_ops);
    CHECK_EQ_INT(n_ops, 2);
    sa_close(&m);
    sa_free(&s);
}

/* ------------------------------------------------------------- helpers */

/* The assembler's MLW encoder: multi-slice streams decode to the input. */
static void test_asm_mlw(void)
{
    size_t n = 70000;
    int16_t *w = xcalloc(n, sizeof *w);
    for (size_t i = 0; i < n; i++) w[i] = (int16_t)rnd_range(-255, 255);
    size_t cap = n * 2 + 64;
    uint8_t *buf = xcalloc(cap, 1);
    size_t len = sa_mlw_encode(w, n, buf, cap);
    CHECK(len > 0 && len % 16 == 0);
    int16_t *out = NULL;
    sim_mlw_info info;
    npuc_err err;
    CHECK_EQ_INT(sim_mlw_decode(buf, len, 0, &out, &info, &err), NPUC_OK);
    CHECK_EQ_INT(info.n_weights, n);
    CHECK_EQ_INT(info.n_slices, 3);
    CHECK(out && memcmp(out, w, n * sizeof *w) == 0);
    free(out);
    free(buf);
    free(w);
}

/* Negative strides (docs/ethos-u.md 4.1): Vela 5.1 writes reflected
 * copies (MIRROR_PAD) as 1x1 AVERAGE pools whose OFM strides are negative,
 * two's complement with bits 39:32 in the param (0xff on a U55 too). A 1x1
 * copy with the OFM based at its last element and both strides negated
 * writes the IFM turned by 180 degrees; with the IFM's strides negated
 * instead it reads it so. The decoder refuses a U55 stride whose bits
 * 39:32 are not bit 31's sign. */
static void test_negative_strides(void)
{
    static const eu_variant vs[2] = {EU_U55_128, EU_U65_256};
    const uint32_t H = 3, W = 5, C = 3, n = H * W * C;
    for (int vi = 0; vi < 2; vi++)
        for (int side = 0; side < 2; side++) {   /* 0: OFM strides negative, 1: IFM's */
            eu_variant v = vs[vi];
            uint8_t in[64], out[64 + 16];
            for (uint32_t i = 0; i < n; i++) in[i] = (uint8_t)(rnd() & 0xFF);
            memset(out, 0xA5, sizeof out);
            sa_fm ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHWC), ofm = sa_fm_make(3, 8, H, W, C, 8, true, SA_NHWC);
            ofm.scale_mode = 1;
            sa_fm_finish(&ifm);
            sa_fm_finish(&ofm);
            sa_stream st;
            sa_init(&st);
            sa_set_ifm(&st, &ifm);
            sa_set_pad(&st, 0, 0, 0, 0);
            sa_set_ofm(&st, &ofm);
            /* the turned side: based at its last position, both strides negated */
            uint16_t base = side ? EU_SET_IFM_BASE0 : EU_SET_OFM_BASE0;
            uint16_t sy = side ? EU_SET_IFM_STRIDE_Y : EU_SET_OFM_STRIDE_Y;
            uint16_t sx = side ? EU_SET_IFM_STRIDE_X : EU_SET_OFM_STRIDE_X;
            sa_set(&st, base, (side ? 0 : 8) + (int64_t)(H - 1) * W * C + (int64_t)(W - 1) * C);
            sa_set(&st, sy, -(int64_t)W * C);
            sa_set(&st, sx, -(int64_t)C);
            sa_set_kernel(&st, 1, 1, 1, 1, 1, 1, false);
            sa_set_ofm_scale(&st, 1, 0);
            sa_set_act(&st, 0, 0, -128, 127);
            sa_set_config(&st, v, &ofm, 8, false, false);
            sa_cmd0(&st, EU_OP_POOL, 1);
            sa_stop(&st);
            sa_npu m;
            uint32_t status = 0;
            if (sa_open(&m, v) == 0) {
                sa_region(&m, 1, in, n, true);
                sa_region(&m, 3, out, sizeof out, true);
                status = sa_run(&m, &st);
                if (!sa_status_ok(status)) fprintf(stderr, "  negative strides: %s\n", sim_npu_error(m.npu));
                sa_close(&m);
            }
            CHECK(sa_status_ok(status));
            size_t bad = 0;
            for (uint32_t y = 0; y < H; y++)
                for (uint32_t x = 0; x < W; x++)
                    for (uint32_t c = 0; c < C; c++)
                        bad += out[8 + (y * W + x) * C + c] != in[((H - 1 - y) * W + (W - 1 - x)) * C + c];
            for (uint32_t i = 0; i < 8; i++) bad += out[i] != 0xA5 || out[8 + n + i] != 0xA5;
            if (bad) fprintf(stderr, "  negative %s strides on %s: %zu bytes wrong\n", side ? "IFM" : "OFM",
                             eu_variant_name(v), bad);
            CHECK_EQ_INT(bad, 0);
            sa_free(&st);
        }
    /* bits 39:32 of a U55 stride: bit 31's sign extension only */
    static const struct { uint16_t param; uint32_t payload; eu_variant v; bool ok; } cases[] = {
        {0xFF, 0xFFFFFE00u, EU_U55_128, true},  {0x00, 0x00000200u, EU_U55_128, true},
        {0x00, 0xFFFFFE00u, EU_U55_128, false}, {0x7F, 0xFFFFFE00u, EU_U55_128, false},
        {0xFF, 0x00000200u, EU_U55_128, false}, {0x7F, 0xFFFFFE00u, EU_U65_256, true},
        {0x00, 0xFFFFFE00u, EU_U65_256, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sa_stream st;
        sa_init(&st);
        sa_cmd1(&st, EU_SET_OFM_STRIDE_Y, cases[i].payload, cases[i].param);
        sim_cmd c;
        npuc_err e = {0};
        int rc = sim_cmd_decode((const uint8_t *)st.w, sa_bytes(&st), 0, cases[i].v, &c, &e);
        CHECK_EQ_INT(rc == NPUC_OK, cases[i].ok);
        if (!cases[i].ok) CHECK_STR_CONTAINS(e.msg, "must repeat bit 31");
        if (cases[i].ok && !rc) {
            sim_state ss;
            sim_state_reset(&ss);
            sim_state_apply(&ss, &c, cases[i].v);
            int64_t want = cases[i].param == 0x7F ? (int64_t)0x7FFFFFFE00ll
                           : cases[i].param == 0x00 && cases[i].payload >> 31 ? (int64_t)0xFFFFFE00ll
                                                                              : (int32_t)cases[i].payload;
            CHECK_EQ_INT(ss.ofm.stride_y, want);
        }
        sa_free(&st);
    }
}

int main(void)
{
    test_asm_mlw();
    test_conv();
    test_transpose_conv();
    test_pool_max();
    test_pool_average();
    test_pool_reduce_sum();
    test_rounding();
    test_add_sub();
    test_mul_min_max();
    test_unary_shift();
    test_layouts();
    test_upscale();
    test_lut();
    test_dma();
    test_sticky_state();
    test_negative_strides();
    TEST_MAIN_END();
}
