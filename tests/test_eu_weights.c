/* eu_weights: MLW encoder round trips through the simulator's decoder
 * (random streams of many shapes and distributions, every weight stream of
 * person_detect_vela and of the shared Vela models, our total no larger
 * than Vela's), op weight reordering, scale records, Vela's scale
 * quantisation and part-kernel-first heuristic. */
#include "test.h"

/* the encoder's source itself, for its internal writers (its functions
 * are then this program's, not the library's copy) */
#include "compiler/ethosu/eu_weights.c"
#include "tflite/tflite.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>

/* ---------------------------------------------------------- helpers */

/* Section counts of the streams round_trip has seen: how many were coded
 * in more than one section, and the bytes that saved against one section. */
static size_t g_multi, g_saved;

/* Encodes with at most max_sec sections (eu_mlw_encode_ex), checks the
 * plan's exact bit count and the container (end marker, then 0xFF up to a
 * multiple of 16 bytes and no further) and decodes back; returns the stream
 * size (0 on failure) and the number of sections in *n_sec. */
static size_t encode_check(const char *what, const int16_t *v, size_t n, unsigned max_sec,
                           size_t *n_sec)
{
    npuc_err err = {0};
    uint8_t *s = NULL;
    size_t size = 0;
    eu_mlw_stats st;
    *n_sec = 0;
    int rc = eu_mlw_encode_ex(v, n, max_sec, &s, &size, &st, &err);
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) {
        fprintf(stderr, "%s: encode: %s\n", what, err.msg);
        return 0;
    }
    /* the plan's bit count is exact */
    CHECK_EQ_INT(st.bits, st.written_bits);
    if (st.bits != st.written_bits)
        fprintf(stderr, "%s: planned %llu bits, wrote %llu\n", what, (unsigned long long)st.bits,
                (unsigned long long)st.written_bits);
    CHECK(size > 0 && size % 16 == 0);
    CHECK(st.sections >= 1 && (max_sec == 0 || st.sections <= max_sec));
    int16_t *out = NULL;
    sim_mlw_info info;
    rc = sim_mlw_decode(s, size, 0, &out, &info, &err);
    CHECK_EQ_INT(rc, NPUC_OK);
    bool ok = rc == NPUC_OK;
    if (rc) fprintf(stderr, "%s: decode: %s\n", what, err.msg);
    if (ok) {
        size_t want = n ? n : 1;
        CHECK_EQ_INT(info.n_weights, want);
        CHECK_EQ_INT(info.n_sections, st.sections);
        CHECK_EQ_INT(info.n_slices, st.slices);
        CHECK_EQ_INT((info.end_byte + 15) / 16 * 16, size);
        /* bytes after the end marker's byte are 0xFF */
        bool pad_ok = true;
        for (size_t i = info.end_byte; i < size; i++) pad_ok &= s[i] == 0xFF;
        CHECK(pad_ok);
        bool same = info.n_weights == want;
        for (size_t i = 0; same && i < want; i++) same = out[i] == (n ? v[i] : 0);
        CHECK(same);
        if (!same) {
            fprintf(stderr, "%s: decoded values differ (n %zu)\n", what, n);
            ok = false;
        }
    }
    free(out);
    free(s);
    *n_sec = st.sections;
    return ok ? size : 0;
}

/* encode_check of the encoder's choice and of one section: the choice is
 * never larger, and uses more than one section only when it is smaller.
 * Returns the chosen stream's size. */
static size_t round_trip(const char *what, const int16_t *v, size_t n)
{
    size_t secs = 0, secs1 = 0;
    size_t size = encode_check(what, v, n, 0, &secs);
    size_t one = encode_check(what, v, n, 1, &secs1);
    CHECK_EQ_INT(secs1, 1);
    CHECK(size <= one);
    CHECK(secs == 1 || size < one);
    if (size > one) fprintf(stderr, "%s: %zu bytes, one section %zu\n", what, size, one);
    if (secs > 1) {
        g_multi++;
        g_saved += one - size;
    }
    return size;
}

/* Roughly Laplacian value with scale b, clamped to +-lim. */
static int16_t laplace(npuc_rng *r, double b, int lim)
{
    double u = npuc_rng_unit(r) - 0.5;
    double x = -b * (u < 0 ? -1 : 1) * log(1 - 2 * fabs(u) + 1e-12);
    long v = lround(x);
    if (v > lim) v = lim;
    if (v < -lim) v = -lim;
    return (int16_t)v;
}

typedef enum { D_ZERO, D_SPARSE, D_DENSE, D_PALETTE, D_WIDE, D_CONST, D_SMALL, D_BLOCKS,
               D_EXTREME, D_TERNARY, D_COUNT } dist;
static const char *const DIST_NAME[D_COUNT] = {"zeros", "sparse", "dense", "palette", "wide",
                                               "const", "small", "blocks", "extreme", "ternary"};

static void fill(npuc_rng *r, dist d, int16_t *v, size_t n)
{
    int16_t pal[7];
    for (int j = 0; j < 7; j++) pal[j] = (int16_t)npuc_rng_range(r, -255, 255);
    int16_t c = (int16_t)npuc_rng_range(r, -255, 255);
    for (size_t i = 0; i < n; i++) {
        switch (d) {
        case D_ZERO: v[i] = 0; break;
        case D_SPARSE: v[i] = npuc_rng_unit(r) < 0.9 ? 0 : laplace(r, 30, 127); break;
        case D_DENSE: v[i] = laplace(r, 25, 127); break;
        case D_PALETTE: v[i] = pal[npuc_rng_range(r, 0, 6)]; break;
        case D_WIDE: v[i] = (int16_t)npuc_rng_range(r, -255, 255); break;
        case D_CONST: v[i] = c; break;
        case D_SMALL: v[i] = laplace(r, 1.5, 10); break;
        /* regions with different statistics (exercises slice changes) */
        case D_BLOCKS: {
            size_t reg = (i / 3000) % 4;
            v[i] = reg == 0 ? 0 : reg == 1 ? laplace(r, 2, 255) : reg == 2 ? laplace(r, 60, 255)
                                                                  : (int16_t)(i % 5 == 0 ? 7 : 0);
            break;
        }
        case D_EXTREME: v[i] = (int16_t)(npuc_rng_unit(r) < 0.5 ? -255 : 255); break;
        case D_TERNARY: v[i] = (int16_t)npuc_rng_range(r, -1, 1); break;
        default: v[i] = 0;
        }
    }
}

static void test_random(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 11, 12, 13, 24, 31, 33, 96, 100, 255, 256,
                                   257, 1000, 4096, 32767, 32768, 32769, 70001};
    npuc_rng r;
    npuc_rng_seed(&r, 42);
    int16_t *v = malloc(70001 * sizeof *v);
    size_t total_in = 0, total_out = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int d = 0; d < D_COUNT; d++) {
            size_t n = sizes[si];
            fill(&r, (dist)d, v, n);
            char what[64];
            snprintf(what, sizeof what, "random %s n=%zu", DIST_NAME[d], n);
            size_t sz = round_trip(what, v, n);
            total_in += n;
            total_out += sz;
            /* never worse than the plain 9-bit encoding (+ header) */
            size_t plain = ((23 + 13 + 9 * (n ? n : 1) + 3 + 7) / 8 + 15) / 16 * 16;
            CHECK(sz <= plain);
            if (sz > plain) fprintf(stderr, "%s: %zu bytes, plain %zu\n", what, sz, plain);
        }
    }
    /* compression sanity on typical shapes */
    /* one explicit zero and a zero run: 1/8 bit per zero at ZDIV 3 (the
     * format's floor) */
    fill(&r, D_ZERO, v, 70001);
    CHECK(round_trip("zeros 70001", v, 70001) <= 70001 / 64 + 32);
    fill(&r, D_SPARSE, v, 32768);
    CHECK(round_trip("sparse 32768", v, 32768) < 32768 * 2 / 8);
    fill(&r, D_PALETTE, v, 32768);
    CHECK(round_trip("palette 32768", v, 32768) <= 32768 * 3 / 8 + 64);
    fill(&r, D_CONST, v, 4096);
    CHECK(round_trip("const 4096", v, 4096) <= 4096 / 8 + 64);
    /* many small random cases with random distributions */
    for (int t = 0; t < 400; t++) {
        size_t n = (size_t)npuc_rng_range(&r, 0, 600);
        dist d = (dist)npuc_rng_range(&r, 0, D_COUNT - 1);
        fill(&r, d, v, n);
        char what[64];
        snprintf(what, sizeof what, "case %d %s n=%zu", t, DIST_NAME[d], n);
        round_trip(what, v, n);
    }
    /* mixtures: random runs of zeros between random values of random range */
    for (int t = 0; t < 200; t++) {
        size_t n = (size_t)npuc_rng_range(&r, 1, 5000);
        int lim = (int)npuc_rng_range(&r, 1, 255);
        double pz = npuc_rng_unit(&r);
        for (size_t i = 0; i < n; i++)
            v[i] = npuc_rng_unit(&r) < pz ? 0 : (int16_t)npuc_rng_range(&r, -lim, lim);
        char what[64];
        snprintf(what, sizeof what, "mix %d n=%zu lim=%d", t, n, lim);
        round_trip(what, v, n);
    }
    printf("random streams: %zu values -> %zu bytes\n", total_in, total_out);
    free(v);
}

/* Streams whose statistics change mid-stream (dense weights, then sparse
 * ones, or alternating, as when some output channels are pruned): more than
 * one section, and smaller than one section by a clear margin. */
static void test_sections(void)
{
    npuc_rng r;
    npuc_rng_seed(&r, 7);
    const size_t n = 24576;
    int16_t *v = malloc(n * sizeof *v);
    for (int t = 0; t < 6; t++) {
        /* t = 0: dense then sparse; 1: sparse then dense; 2, 3: alternating
         * regions of 2048 / 768 values; 4: dense, all zeros, dense; 5: as 2
         * with ternary sparse regions */
        for (size_t i = 0; i < n; i++) {
            size_t reg = t == 0 ? i >= n / 2 : t == 1 ? i < n / 2 : t == 3 ? (i / 768) & 1
                       : t == 4 ? (i >= n / 3 && i < 2 * n / 3) : (i / 2048) & 1;
            int16_t dense = laplace(&r, 25, 127);
            int16_t sparse = npuc_rng_unit(&r) < 0.85 ? 0
                             : t == 5 ? (int16_t)(npuc_rng_unit(&r) < 0.5 ? -1 : 1)
                                      : laplace(&r, 25, 127);
            v[i] = reg ? (t == 4 ? 0 : sparse) : dense;
        }
        char what[64];
        snprintf(what, sizeof what, "sections %d", t);
        size_t secs = 0, secs1 = 0;
        size_t size = encode_check(what, v, n, 0, &secs);
        size_t one = encode_check(what, v, n, 1, &secs1);
        CHECK(secs >= 2);
        CHECK(size * 100 < one * 97);    /* at least 3 % smaller */
        /* a cap on the sections is kept (fewer sections or one) */
        size_t capped = 0, size2 = encode_check(what, v, n, 2, &capped);
        CHECK(capped <= 2 && size2 >= size && size2 <= one);
        printf("%s: %zu sections %zu bytes, one section %zu bytes (%+.1f%%)\n", what, secs, size,
               one, 100.0 * ((double)size - (double)one) / (double)one);
    }
    /* stationary streams stay one section */
    for (size_t i = 0; i < n; i++) v[i] = laplace(&r, 25, 127);
    size_t secs = 0;
    encode_check("stationary dense", v, n, 0, &secs);
    CHECK_EQ_INT(secs, 1);
    for (size_t i = 0; i < n; i++) v[i] = npuc_rng_unit(&r) < 0.85 ? 0 : laplace(&r, 25, 127);
    encode_check("stationary sparse", v, n, 0, &secs);
    CHECK_EQ_INT(secs, 1);
    free(v);
}

static void test_errors(void)
{
    npuc_err err = {0};
    int16_t v[10] = {0, 1, -1, 255, -255, 256, 0, 0, 0, 0};
    uint8_t *s = (uint8_t *)&err;   /* must be reset to NULL */
    size_t size = 123;
    CHECK_EQ_INT(eu_mlw_encode(v, 10, &s, &size, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "weight 5 is 256");
    CHECK(s == NULL);
    CHECK_EQ_INT(size, 0);
    v[5] = -256;
    CHECK_EQ_INT(eu_mlw_encode(v, 10, &s, &size, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "weight 5 is -256");
    v[5] = 0;
    v[9] = 32767;
    CHECK_EQ_INT(eu_mlw_encode(v, 10, &s, &size, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "weight 9");

    /* n == 0 encodes one zero */
    CHECK_EQ_INT(eu_mlw_encode(NULL, 0, &s, &size, &err), NPUC_OK);
    CHECK_EQ_INT(size, 16);
    int16_t *out = NULL;
    sim_mlw_info info;
    CHECK_EQ_INT(sim_mlw_decode(s, size, 0, &out, &info, &err), NPUC_OK);
    CHECK_EQ_INT(info.n_weights, 1);
    CHECK(out && out[0] == 0);
    free(out);
    free(s);
}

/* ------------------------------------------------------ scale records */

static void test_scales(void)
{
    npuc_err err = {0};
    sim_scale_rec r[3] = {{-2, 0xE38E38E5u, 37}, {-(1LL << 39), 1u << 31, 63},
                          {(1LL << 39) - 1, 0, 0}};
    CHECK_EQ_INT(eu_scale_stream_size(0), 0);
    CHECK_EQ_INT(eu_scale_stream_size(1), 16);
    CHECK_EQ_INT(eu_scale_stream_size(3), 32);
    CHECK_EQ_INT(eu_scale_stream_size(8), 80);
    uint8_t buf[48];
    memset(buf, 0xAA, sizeof buf);
    CHECK_EQ_INT(eu_encode_scales(r, 3, buf, &err), NPUC_OK);
    CHECK(buf[0] == 0xFE && buf[4] == 0xFF && buf[5] == 0xE5 && buf[8] == 0xE3 && buf[9] == 37);
    CHECK(buf[30] == 0 && buf[31] == 0 && buf[32] == 0xAA);   /* padded to 32, no further */
    sim_scale_rec back[3];
    CHECK_EQ_INT(sim_scale_parse(buf, 32, 3, back, &err), NPUC_OK);
    for (int c = 0; c < 3; c++) {
        CHECK_EQ_INT(back[c].bias, r[c].bias);
        CHECK_EQ_INT(back[c].scale, r[c].scale);
        CHECK_EQ_INT(back[c].shift, r[c].shift);
    }
    /* errors leave the output alone */
    memset(buf, 0xAA, sizeof buf);
    r[1].bias = 1LL << 39;
    CHECK_EQ_INT(eu_encode_scales(r, 3, buf, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "channel 1");
    r[1].bias = -(1LL << 39) - 1;
    CHECK_EQ_INT(eu_encode_scales(r, 3, buf, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "channel 1");
    r[1].bias = 0;
    r[2].shift = 64;
    CHECK_EQ_INT(eu_encode_scales(r, 3, buf, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "channel 2");
    bool untouched = true;
    for (size_t i = 0; i < sizeof buf; i++) untouched &= buf[i] == 0xAA;
    CHECK(untouched);
}

static void test_quantise(void)
{
    uint32_t m;
    uint8_t s;
    eu_quantise_scale(0.5, &m, &s);          /* f 0.5, e 0 */
    CHECK(m == 1u << 30 && s == 31);
    eu_quantise_scale(1.0, &m, &s);          /* f 0.5, e 1 */
    CHECK(m == 1u << 30 && s == 30);
    eu_quantise_scale(0.75, &m, &s);
    CHECK(m == 3u << 29 && s == 31);
    eu_quantise_scale(1.0 - ldexp(1, -40), &m, &s);  /* rounds up to 2^31 */
    CHECK(m == 1u << 31 && s == 31);
    eu_quantise_scale(ldexp(0.6, -32), &m, &s);      /* e -32: s = 63 */
    CHECK(s == 63 && m == (uint32_t)(0.6 * 2147483648.0 + 0.5));
    eu_quantise_scale(ldexp(0.6, -33), &m, &s);      /* s = 64: out of range */
    CHECK(m == 0 && s == 16);
    eu_quantise_scale(ldexp(0.6, 32), &m, &s);       /* s = -1 */
    CHECK(m == 0 && s == 16);
    eu_quantise_scale(0.0, &m, &s);                  /* Vela: frexp(0) = (0, 0) */
    CHECK(m == 0 && s == 31);
    eu_quantise_scale(-1.0, &m, &s);
    CHECK(m == 0 && s == 16);
    /* half rounds away from zero: f * 2^31 = k + 0.5 exactly */
    double f = (double)((1u << 30) + 5) + 0.5;
    eu_quantise_scale(f / 2147483648.0, &m, &s);
    CHECK(m == (1u << 30) + 6 && s == 31);
    /* a TFLite-style per-channel scale */
    eu_quantise_scale(0.0039215686 * 0.0123 / 0.0235, &m, &s);
    double back = (double)m / ldexp(1, s);
    CHECK(fabs(back - 0.0039215686 * 0.0123 / 0.0235) < 1e-9);
}

static void test_pkf(void)
{
    CHECK(eu_prefer_part_kernel_first(1, 3, 3, 8));
    CHECK(eu_prefer_part_kernel_first(8, 1, 1, 8));
    CHECK(!eu_prefer_part_kernel_first(16, 1, 1, 8));   /* 0.25 vs 0.5 */
    CHECK(eu_prefer_part_kernel_first(16, 3, 3, 8));    /* 0.75 vs 0.5 */
    CHECK(eu_prefer_part_kernel_first(24, 3, 3, 8));    /* 0.75 vs 0.75: a tie is part-kernel-first */
    CHECK(!eu_prefer_part_kernel_first(32, 3, 3, 8));   /* 0.75 vs 1 */
    CHECK(eu_prefer_part_kernel_first(40, 2, 2, 8));    /* 40/40 * 4/4 vs 40/64 */
    CHECK(!eu_prefer_part_kernel_first(16, 3, 3, 16));  /* 16-bit: 9/10 vs 1 */
    CHECK(eu_prefer_part_kernel_first(16, 4, 4, 16));   /* 16-bit: 1 vs 1 */
    CHECK(eu_prefer_part_kernel_first(17, 4, 4, 16));   /* 17/24 vs 17/32 */
    CHECK(!eu_prefer_part_kernel_first(32, 3, 3, 16));  /* 9/10 vs 1 */
    CHECK(eu_prefer_part_kernel_first(12, 2, 1, 16));   /* 12/16 * 2/2 vs 12/16: tie */
}

/* ------------------------------------------------- op weight reordering */


/* A random weight geometry: depths 1..dmax, kernels 1..kmax; `varied`
 * also dilations, 16-bit IFMs, 4-deep micro-blocks, block depths up to 8
 * of them and the part-kernel-first order Vela would take; else 8-bit,
 * undilated, 8-deep micro-blocks and block depths up to 32. */
static sim_wgeom random_geom(npuc_rng *r, int64_t dmax, int64_t kmax, bool varied)
{
    sim_wgeom g;
    memset(&g, 0, sizeof g);
    g.depthwise = npuc_rng_range(r, 0, 3) == 0;
    g.ofm_depth = (uint32_t)npuc_rng_range(r, 1, dmax);
    g.ifm_depth = g.depthwise ? g.ofm_depth : (uint32_t)npuc_rng_range(r, 1, dmax);
    g.kh = (uint32_t)npuc_rng_range(r, 1, kmax);
    g.kw = (uint32_t)npuc_rng_range(r, 1, kmax);
    g.dil_x = g.dil_y = 1;
    g.ifm_bits = 8;
    g.ofm_ublock = 8;
    if (!varied) {
        g.block_depth = 8 * (uint32_t)npuc_rng_range(r, 1, 4);
        return g;
    }
    g.dil_x = (uint8_t)npuc_rng_range(r, 1, 2);
    g.dil_y = (uint8_t)npuc_rng_range(r, 1, 2);
    g.ifm_bits = npuc_rng_range(r, 0, 3) == 0 ? 16 : 8;
    g.ofm_ublock = npuc_rng_range(r, 0, 3) == 0 ? 4 : 8;
    g.block_depth = g.ofm_ublock * (uint32_t)npuc_rng_range(r, 1, 8);
    g.part_kernel_first = !g.depthwise && eu_prefer_part_kernel_first(g.ifm_depth, g.kh, g.kw, g.ifm_bits);
    return g;
}

static void test_op_weights(void)
{
    {   /* out-of-range weight: named by its coordinates */
        sim_wgeom g = {16, 8, 3, 3, 16, 1, 1, 8, 8, false, false};
        int16_t w[16 * 3 * 3 * 8];
        memset(w, 0, sizeof w);
        w[((5 * 3 + 2) * 3 + 1) * 8 + 7] = -300;    /* o 5, ky 2, kx 1, i 7 */
        npuc_err err = {0};
        uint8_t *s = NULL;
        size_t size = 0;
        CHECK_EQ_INT(eu_encode_weights(&g, w, &s, &size, &err), NPUC_E_INVALID);
        CHECK_STR_CONTAINS(err.msg, "W[5][2][1][7]");
        CHECK_STR_CONTAINS(err.msg, "is -300");
        CHECK(s == NULL && size == 0);
    }

    npuc_rng r;
    npuc_rng_seed(&r, 7);
    for (int t = 0; t < 300; t++) {
        sim_wgeom g = random_geom(&r, 70, 10, true);
        size_t nw = (size_t)g.ofm_depth * g.kh * g.kw * (g.depthwise ? 1 : g.ifm_depth);
        int16_t *w = malloc(nw * sizeof *w);
        int lim = npuc_rng_range(&r, 0, 1) ? 127 : 255;
        for (size_t i = 0; i < nw; i++) w[i] = laplace(&r, lim / 6.0, lim);
        npuc_err err = {0};
        uint8_t *s = NULL;
        size_t size = 0;
        CHECK_EQ_INT(eu_encode_weights(&g, w, &s, &size, &err), NPUC_OK);
        size_t np = sim_weight_traverse(&g, NULL, 0);
        int64_t *map = malloc(np * sizeof *map);
        sim_weight_traverse(&g, map, np);
        int16_t *out = NULL;
        sim_mlw_info info;
        CHECK_EQ_INT(sim_mlw_decode(s, size, 0, &out, &info, &err), NPUC_OK);
        CHECK_EQ_INT(info.n_weights, np);
        size_t bad = 0;
        for (size_t p = 0; p < np && p < info.n_weights; p++)
            bad += out[p] != (map[p] < 0 ? 0 : w[map[p]]);
        CHECK_EQ_INT(bad, 0);
        free(out);
        free(map);
        free(s);
        free(w);
    }
}

/* The Rice writer (rice_body: one position accumulator, WUNARY1 packed by
 * COMPRESS6, k a constant; per-k tables by index from 2048 values) against
 * the generic generator (wgen_body, the chunk-by-chunk reference): the same
 * bits for random indices of every k, lengths around the 12-position chunks
 * and up to 3000 (both forms), quotients up to 31, and any bit offset the
 * slice header leaves. */
static void test_rice_writer(void)
{
    npuc_rng r;
    npuc_rng_seed(&r, 11);
    enum { NMAX = 3000 };
    uint16_t *idx = malloc(NMAX * sizeof *idx);
    uint8_t *a = malloc(NMAX * 8 + 64), *b = malloc(NMAX * 8 + 64);
    size_t bad = 0;
    for (int t = 0; t < 3000; t++) {
        unsigned k = (unsigned)npuc_rng_range(&r, 0, 5);
        unsigned qmax = npuc_rng_range(&r, 0, 3) ? (unsigned)npuc_rng_range(&r, 0, 4) : 31;
        unsigned lim = ((qmax + 1) << k) - 1;
        if (lim > EU_MAX_INDEX) lim = EU_MAX_INDEX;
        size_t n = t < 200 ? (size_t)t + 1 : (size_t)npuc_rng_range(&r, 1, NMAX);
        for (size_t i = 0; i < n; i++) {
            /* mostly small quotients, some at the limit */
            unsigned x = (unsigned)npuc_rng_range(&r, 0, (int)lim);
            if (npuc_rng_range(&r, 0, 3)) x >>= npuc_rng_range(&r, 0, 4);
            idx[i] = (uint16_t)x;
        }
        unsigned lead = (unsigned)npuc_rng_range(&r, 0, 31);
        uint32_t leadv = (uint32_t)npuc_rng_range(&r, 0, 0x7FFFFFFF) & ((1u << lead) - 1);
        memset(a, 0, NMAX * 8 + 64);
        memset(b, 0, NMAX * 8 + 64);
        eu_bitw wa = {a, 0, 0}, wb = {b, 0, 0};
        bw_put(&wa, leadv, lead);
        bw_put(&wb, leadv, lead);
        rice_body(&wa, idx, n, k);
        wgen_body(&wb, idx, n, k, false);
        bw_put(&wa, 7, 3);
        bw_put(&wb, 7, 3);
        bool same = wa.p - a == wb.p - b && wa.n == wb.n && wa.acc == wb.acc &&
                    !memcmp(a, b, (size_t)(wa.p - a));
        if (!same && !bad)
            fprintf(stderr, "rice writer: k %u n %zu lead %u: differs from the reference\n", k,
                    n, lead);
        bad += !same;
    }
    CHECK_EQ_INT(bad, 0);
    free(idx);
    free(a);
    free(b);
}

/* sim_weight_gather gives the weights the traversal's map points at
 * (its own loops: the map is the reference), also for block depths that
 * are no multiple of the micro-block and part-kernel-first where Vela's
 * heuristic would not choose it. */
static void test_gather(void)
{
    npuc_rng r;
    npuc_rng_seed(&r, 5);
    size_t bad = 0;
    for (int t = 0; t < 600; t++) {
        sim_wgeom g = random_geom(&r, 70, 10, true);
        if (t >= 300) {
            g.block_depth = (uint32_t)npuc_rng_range(&r, 1, g.ofm_depth + 9);
            g.part_kernel_first = !g.depthwise && npuc_rng_range(&r, 0, 1);
        }
        size_t nw = (size_t)g.ofm_depth * g.kh * g.kw * (g.depthwise ? 1 : g.ifm_depth);
        int16_t *w = malloc(nw * sizeof *w);
        for (size_t i = 0; i < nw; i++) w[i] = (int16_t)npuc_rng_range(&r, -255, 255);
        size_t np = sim_weight_traverse(&g, NULL, 0);
        int64_t *map = malloc(np * sizeof *map);
        int16_t *v = malloc((np + 1) * sizeof *v);
        sim_weight_traverse(&g, map, np);
        CHECK_EQ_INT(sim_weight_gather(&g, w, v), np);
        for (size_t p = 0; p < np; p++) bad += v[p] != (map[p] < 0 ? 0 : w[map[p]]);
        free(map);
        free(v);
        free(w);
    }
    CHECK_EQ_INT(bad, 0);
}

/* The histogram a weight source's groups give (wc_src_hist): where no OFM
 * micro-block straddles two blocks (the block depth a multiple of it),
 * the traversal reads every weight once and zeros elsewhere. */
static void test_gather_once(void)
{
    npuc_rng r;
    npuc_rng_seed(&r, 23);
    size_t bad = 0;
    for (int t = 0; t < 300; t++) {
        sim_wgeom g = random_geom(&r, 70, 10, true);
        if (t % 3 == 0) g.block_depth = 0;    /* one block */
        size_t nw = (size_t)g.ofm_depth * g.kh * g.kw * (g.depthwise ? 1 : g.ifm_depth);
        int16_t *w = malloc(nw * sizeof *w + 2);
        for (size_t i = 0; i < nw; i++) w[i] = (int16_t)npuc_rng_range(&r, -255, 255);
        size_t np = sim_weight_traverse(&g, NULL, 0);
        int16_t *v = malloc((np + 1) * sizeof *v);
        sim_weight_gather(&g, w, v);
        int64_t h[511];
        memset(h, 0, sizeof h);
        for (size_t i = 0; i < nw; i++) h[w[i] + 255]++;
        h[255] += (int64_t)(np - nw);
        for (size_t p = 0; p < np; p++) h[v[p] + 255]--;
        for (int k = 0; k < 511; k++) bad += h[k] != 0;
        free(v);
        free(w);
    }
    CHECK_EQ_INT(bad, 0);
}

/* Weight sources: a chunk of output channels [c0, c0 + n) keyed by its
 * source and range gives the bytes eu_encode_weights gives for its
 * weights, once per chunk (the histograms of the source's channel groups
 * standing in for counting its values), eager and lazy. */
static void test_wsource(void)
{
    npuc_rng r;
    npuc_rng_seed(&r, 29);
    for (int lazy = 0; lazy < 2; lazy++) {
        eu_wcache *c = eu_wcache_new();
        CHECK(c != NULL);
        eu_wcache_set_lazy(c, lazy);
        for (int t = 0; t < 40; t++) {
            sim_wgeom g = random_geom(&r, 64, 3, t % 2 != 0);
            g.ofm_depth = (uint32_t)npuc_rng_range(&r, 1, 200);
            if (g.depthwise) g.ifm_depth = g.ofm_depth;
            size_t per_ch = (size_t)g.kh * g.kw * (g.depthwise ? 1 : g.ifm_depth);
            size_t nw = per_ch * g.ofm_depth;
            int16_t *w = malloc(nw * sizeof *w + 2);
            fill(&r, (dist)(t % D_COUNT), w, nw);
            npuc_err err = {0};
            uint32_t desc[2] = {(uint32_t)t, 7};
            int32_t src = -1, src2 = -1;
            int16_t *fillw = NULL;
            CHECK_EQ_INT(eu_wcache_source(c, desc, sizeof desc, w, nw * sizeof *w, nw, &src, &fillw, &err), NPUC_OK);
            CHECK(src >= 0 && fillw != NULL);
            memcpy(fillw, w, nw * sizeof *w);
            CHECK_EQ_INT(eu_wcache_source(c, desc, sizeof desc, w, nw * sizeof *w, nw, &src2, &fillw, &err), NPUC_OK);
            CHECK(src2 == src && fillw == NULL && eu_wcache_source_weights(c, src) != w);
            uint32_t step = 16 * (uint32_t)npuc_rng_range(&r, 1, 4);
            for (int pass = 0; pass < 2; pass++)
                for (uint32_t c0 = 0; c0 < g.ofm_depth; c0 += step) {
                    sim_wgeom gc = g;
                    gc.ofm_depth = g.ofm_depth - c0 < step ? g.ofm_depth - c0 : step;
                    if (gc.depthwise) gc.ifm_depth = gc.ofm_depth;
                    uint8_t *ref = NULL;
                    size_t ref_size = 0, size = 0;
                    int32_t s = -1;
                    CHECK_EQ_INT(eu_encode_weights(&gc, w + c0 * per_ch, &ref, &ref_size, &err), NPUC_OK);
                    CHECK_EQ_INT(eu_wcache_stream_src(c, &gc, src, c0 * per_ch, gc.ofm_depth * per_ch, &s, &size,
                                                      &err), NPUC_OK);
                    CHECK(s >= 0 && size == ref_size);
                    uint8_t *b = calloc(size + 16, 1);
                    eu_wcache_copy(c, s, b);
                    CHECK_EQ_INT(eu_wcache_fill(c, b, size, &err), NPUC_OK);
                    CHECK(!memcmp(b, ref, size));
                    free(b);
                    free(ref);
                }
            free(w);
        }
        eu_wcache_free(c);
    }
}

/* The stream cache: the bytes eu_encode_weights gives, a stream once per
 * geometry and weights, and the entropy of the values a stream it encoded
 * decodes to, the same double as decoding and counting them gives. */
static void test_wcache(void)
{
    eu_wcache *c = eu_wcache_new();
    CHECK(c != NULL);
    npuc_rng r;
    npuc_rng_seed(&r, 11);
    for (int t = 0; t < 120; t++) {
        sim_wgeom g = random_geom(&r, 40, 5, false);
        size_t nw = (size_t)g.ofm_depth * g.kh * g.kw * (g.depthwise ? 1 : g.ifm_depth);
        int16_t *w = malloc(nw * sizeof *w);
        fill(&r, (dist)(t % D_COUNT), w, nw);
        npuc_err err = {0};
        uint8_t *ref = NULL, *own = NULL;
        const uint8_t *s = NULL, *s2 = NULL;
        size_t size = 0, size2 = 0, ref_size = 0;
        CHECK_EQ_INT(eu_encode_weights(&g, w, &ref, &ref_size, &err), NPUC_OK);
        CHECK_EQ_INT(eu_encode_weights_cached(c, &g, w, nw, &s, &size, &own, &err), NPUC_OK);
        CHECK(own == NULL);
        CHECK(size == ref_size && !memcmp(s, ref, size));
        CHECK_EQ_INT(eu_encode_weights_cached(c, &g, w, nw, &s2, &size2, &own, &err), NPUC_OK);
        CHECK(s2 == s && size2 == size && own == NULL);      /* encoded once */
        int16_t *v = NULL;
        sim_mlw_info info;
        CHECK_EQ_INT(sim_mlw_decode(ref, ref_size, 0, &v, &info, &err), NPUC_OK);
        double want = eu_entropy_bits(v, info.n_weights), got = -1, again = -1;
        CHECK(eu_wcache_entropy(c, ref, ref_size, &got));   /* by the bytes, not the pointer */
        CHECK(got == want);
        CHECK(eu_wcache_entropy(c, s, size, &again) && again == want);
        ref[ref_size - 1] ^= 1;                             /* other bytes: not known */
        CHECK(!eu_wcache_entropy(c, ref, ref_size, &got));
        CHECK(!eu_wcache_entropy(NULL, s, size, &got));
        free(v);
        free(ref);
        free(w);
    }
    eu_wcache_free(c);
}

/* ------------------------------------------------- person_detect_vela */

static size_t tensor_bytes(const tfl_tensor *t)
{
    size_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= (size_t)(t->shape[i] > 0 ? t->shape[i] : 0);
    return n * (tfl_type_size(t->type) ? tfl_type_size(t->type) : 1);
}

typedef struct vela_totals {
    size_t ops, weights, vela_bytes, our_bytes, our_op_bytes, scale_ops, pkf_checked, pkf_fc;
    size_t scales_checked;
    /* streams only: round trips of each weight stream (once), nothing else;
     * command streams this variant's decoder refuses are skipped */
    bool streams_only;
    size_t skipped;
    uint64_t seen[4096];       /* weight stream addresses of this command stream */
    size_t n_seen;
} vela_totals;

/* One CONV/DEPTHWISE: re-encodes Vela's decoded stream, and (from the
 * weights recovered through the traversal map) the op's weights. */
static void check_vela_op(const char *what, const sim_state *s, eu_variant v, bool dw,
                          const uint8_t *ws, const uint8_t *ss, vela_totals *tot)
{
    npuc_err err = {0};
    int16_t *vela = NULL;
    sim_mlw_info info;
    if (sim_mlw_decode(ws, s->weight_length[0], 0, &vela, &info, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        CHECK(0);
        return;
    }
    size_t ours = round_trip(what, vela, info.n_weights);
    tot->ops++;
    tot->weights += info.n_weights;
    tot->vela_bytes += s->weight_length[0];
    tot->our_bytes += ours;
    if (tot->streams_only) {
        free(vela);
        return;
    }

    /* op weights: recover W[o][ky][kx][i] from Vela's stream, encode them
     * again through the traversal: the decoded streams are identical */
    sim_wgeom g;
    if (sim_wgeom_from_state(s, v, dw, &g, &err) == NPUC_OK) {
        size_t np = sim_weight_traverse(&g, NULL, 0);
        size_t nw = (size_t)g.ofm_depth * g.kh * g.kw * (dw ? 1 : g.ifm_depth);
        int64_t *map = malloc(np * sizeof *map);
        int16_t *w = calloc(nw, sizeof *w);
        sim_weight_traverse(&g, map, np);
        for (size_t p = 0; p < np && p < info.n_weights; p++)
            if (map[p] >= 0) w[map[p]] = vela[p];
        uint8_t *st = NULL;
        size_t size = 0;
        CHECK_EQ_INT(eu_encode_weights(&g, w, &st, &size, &err), NPUC_OK);
        int16_t *back = NULL;
        sim_mlw_info bi;
        if (st && sim_mlw_decode(st, size, 0, &back, &bi, &err) == NPUC_OK) {
            CHECK_EQ_INT(bi.n_weights, info.n_weights);
            CHECK(bi.n_weights == info.n_weights &&
                  memcmp(back, vela, info.n_weights * sizeof *back) == 0);
        } else {
            CHECK(0);
        }
        tot->our_op_bytes += size;
        free(back);
        free(st);
        free(w);
        free(map);
        /* Vela's traversal choice for convolutions. Its FullyConnected ops
         * are always depth-first; with a 1x1 kernel the convolution rule
         * only disagrees with that when I <= 8, so that case is taken as a
         * FullyConnected op */
        if (!dw) {
            bool pkf = eu_prefer_part_kernel_first(g.ifm_depth, g.kh, g.kw, g.ifm_bits);
            if (pkf && !g.part_kernel_first && g.kh == 1 && g.kw == 1 && g.ifm_depth <= 8) {
                tot->pkf_fc++;
            } else {
                CHECK_EQ_INT(pkf, g.part_kernel_first);
                tot->pkf_checked++;
            }
        }
    }
    free(vela);

    /* scale records: parse Vela's, write them again, same bytes */
    size_t nch = s->ofm.depth;
    sim_scale_rec *rec = calloc(nch, sizeof *rec);
    if (sim_scale_parse(ss, s->scale_length[0], nch, rec, &err) == NPUC_OK) {
        CHECK_EQ_INT(eu_scale_stream_size(nch), s->scale_length[0]);
        uint8_t *b = malloc(eu_scale_stream_size(nch));
        CHECK_EQ_INT(eu_encode_scales(rec, nch, b, &err), NPUC_OK);
        CHECK(memcmp(b, ss, eu_scale_stream_size(nch)) == 0);
        tot->scale_ops++;
        /* Vela's (m, s) come from quantise_scale: m * 2^-s gives them back */
        for (size_t c = 0; c < nch; c++) {
            if (rec[c].scale < (1u << 30) || rec[c].scale == (1u << 31)) continue;
            uint32_t m = 0;
            uint8_t sh = 0;
            eu_quantise_scale(ldexp(rec[c].scale, -(int)rec[c].shift), &m, &sh);
            CHECK(m == rec[c].scale && sh == rec[c].shift);
            tot->scales_checked++;
        }
        free(b);
    } else {
        CHECK(0);
    }
    free(rec);
}

static int test_vela_model(const char *path, vela_totals *tot)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return -1;
    }
    const tfl_subgraph *sg = &m->subgraphs[0];
    for (int oi = 0; oi < sg->n_operators; oi++) {
        const tfl_operator *op = &sg->operators[oi];
        const tfl_opcode *oc = &m->opcodes[op->opcode_index];
        if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0 || op->n_inputs < 4)
            continue;
        const tfl_buffer *bcs = &m->buffers[sg->tensors[op->inputs[0]].buffer];
        const tfl_buffer *bfl = &m->buffers[sg->tensors[op->inputs[1]].buffer];
        sim_cop1 cop;
        eu_variant v;
        sim_cmd *cmds = NULL;
        size_t n = 0;
        if (sim_cop1_parse(bcs->data, bcs->size, &cop, &err) ||
            sim_variant_from_config(cop.config, &v, &err) ||
            sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &n, &err)) {
            if (tot->streams_only) {
                tot->skipped++;
            } else {
                fprintf(stderr, "%s: %s\n", path, err.msg);
                CHECK(0);
            }
            free(cmds);
            continue;
        }
        tot->n_seen = 0;
        /* memory: region 0 flash, 1 scratch, 2 scratch_fast; DMA copies
         * move weights and scales into SRAM before the ops read them */
        uint8_t *reg[8] = {0};
        size_t rsz[8] = {0};
        reg[0] = bfl->data;
        rsz[0] = bfl->size;
        for (int k = 1; k <= 2; k++) {
            rsz[k] = tensor_bytes(&sg->tensors[op->inputs[k + 1]]);
            reg[k] = calloc(rsz[k] ? rsz[k] : 1, 1);
        }
        sim_state s;
        sim_state_reset(&s);
        for (size_t i = 0; i < n; i++) {
            const sim_cmd *c = &cmds[i];
            sim_state_apply(&s, c, v);
            if (c->code == EU_OP_DMA_START && !s.dma.dst_internal && !s.dma.src_internal &&
                s.dma.src_region < 3 && s.dma.dst_region < 3 &&
                s.dma.src + s.dma.len <= rsz[s.dma.src_region] &&
                s.dma.dst + s.dma.len <= rsz[s.dma.dst_region])
                memmove(reg[s.dma.dst_region] + s.dma.dst, reg[s.dma.src_region] + s.dma.src,
                        s.dma.len);
            if (c->code != EU_OP_CONV && c->code != EU_OP_DEPTHWISE) continue;
            if (s.weight_region > 2 || s.scale_region > 2 ||
                s.weight_base[0] + s.weight_length[0] > rsz[s.weight_region] ||
                s.scale_base[0] + s.scale_length[0] > rsz[s.scale_region]) {
                CHECK(0);
                continue;
            }
            if (tot->streams_only) {   /* each stream once (stripes share them) */
                uint64_t key = s.weight_base[0] << 2 | s.weight_region;
                bool seen = false;
                for (size_t j = 0; j < tot->n_seen && !seen; j++) seen = tot->seen[j] == key;
                if (seen) continue;
                if (tot->n_seen < sizeof tot->seen / sizeof tot->seen[0])
                    tot->seen[tot->n_seen++] = key;
            }
            char what[128];
            snprintf(what, sizeof what, "op at 0x%zx", c->offset);
            check_vela_op(what, &s, v, c->code == EU_OP_DEPTHWISE,
                          reg[s.weight_region] + s.weight_base[0],
                          reg[s.scale_region] + s.scale_base[0], tot);
        }
        for (int k = 1; k <= 2; k++) free(reg[k]);
        free(cmds);
    }
    tfl_model_free(m);
    return 0;
}

/* Every .tflite under dir (recursively). */
static void walk_dir(const char *dir, vela_totals *tot, int *n_models)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t l = strlen(e->d_name);
        if (l > 7 && strcmp(e->d_name + l - 7, ".tflite") == 0) {
            CHECK_EQ_INT(test_vela_model(path, tot), 0);
            (*n_models)++;
        } else {
            walk_dir(path, tot, n_models);
        }
    }
    closedir(d);
}

/* eu_entropy_bits: n times the histogram's Shannon entropy. */
static void test_entropy(void)
{
    int16_t v[512] = {0};
    CHECK(eu_entropy_bits(v, 0) == 0.0);
    for (int i = 0; i < 512; i++) v[i] = 7;
    CHECK(eu_entropy_bits(v, 512) == 0.0);                    /* one value: nothing to say */
    for (int i = 0; i < 512; i++) v[i] = (int16_t)(i % 2 ? -255 : 255);
    CHECK(fabs(eu_entropy_bits(v, 512) - 512.0) < 1e-9);      /* two equally likely: 1 bit each */
    for (int i = 0; i < 256; i++) v[i] = (int16_t)(i - 128);
    CHECK(fabs(eu_entropy_bits(v, 256) - 2048.0) < 1e-9);     /* 256 distinct: 8 bits each */
    for (int i = 0; i < 4; i++) v[i] = (int16_t)(i < 3 ? 0 : 1);
    double want = -3.0 * log2(0.75) - log2(0.25);             /* 3:1 */
    CHECK(fabs(eu_entropy_bits(v, 4) - want) < 1e-9);
}

/* Real weights: every weight stream of Vela 5.1's U55-128 compiles of the
 * zoo models, round trips as chosen and as one section. */
static void test_vela51_streams(void)
{
    char dir[1024];
    const char *base = getenv("NPUC_SHARED");
    snprintf(dir, sizeof dir, "%s/models/zoo/vela51/u55-128", base ? base : "../shared");
    vela_totals *t = calloc(1, sizeof *t);
    CHECK(t != NULL);
    if (!t) return;
    t->streams_only = true;
    g_multi = g_saved = 0;
    int n_models = 0;
    walk_dir(dir, t, &n_models);
    if (!n_models) {
        printf("SKIP models/zoo/vela51/u55-128: absent\n");
    } else {
        printf("models/zoo/vela51/u55-128: %d models (%zu command streams skipped), %zu "
               "weight streams, %zu weights: Vela %zu bytes, ours %zu bytes (%+.2f%%); %zu "
               "streams in more than one section, %zu bytes smaller than one section\n",
               n_models, t->skipped, t->ops, t->weights, t->vela_bytes, t->our_bytes,
               100.0 * ((double)t->our_bytes - (double)t->vela_bytes) / (double)t->vela_bytes,
               g_multi, g_saved);
        CHECK(t->ops > 500);
        CHECK(t->our_bytes < t->vela_bytes);
        CHECK(g_multi > 50);
        CHECK(g_saved * 200 > t->our_bytes);    /* sections save more than 0.5 % */
    }
    free(t);
}

int main(void)
{
    test_entropy();
    test_errors();
    test_random();
    printf("random streams in more than one section: %zu, %zu bytes smaller than one section\n",
           g_multi, g_saved);
    test_sections();
    test_scales();
    test_quantise();
    test_pkf();
    test_op_weights();
    test_rice_writer();
    test_gather();
    test_wcache();
    test_gather_once();
    test_wsource();
    g_multi = g_saved = 0;

    char buf[1024];
    const char *pd = t_shared("models/tflm/person_detect_vela.tflite", buf, sizeof buf);
    if (!pd) {
        printf("SKIP person_detect_vela checks and the Vela 5.1 streams: shared folder absent (set NPUC_SHARED)\n");
        TEST_MAIN_END();
    }
    vela_totals tot;
    memset(&tot, 0, sizeof tot);
    CHECK_EQ_INT(test_vela_model(pd, &tot), 0);
    printf("person_detect_vela: %zu weight streams, %zu weights: Vela %zu bytes, ours %zu bytes "
           "(%+.2f%%); from op weights %zu bytes\n",
           tot.ops, tot.weights, tot.vela_bytes, tot.our_bytes,
           100.0 * ((double)tot.our_bytes - (double)tot.vela_bytes) / (double)tot.vela_bytes,
           tot.our_op_bytes);
    CHECK_EQ_INT(tot.ops, 55);
    CHECK_EQ_INT(tot.scale_ops, 55);
    CHECK_EQ_INT(tot.pkf_checked, 32);
    CHECK_EQ_INT(tot.scales_checked, 2738);
    CHECK_EQ_INT(tot.our_op_bytes, tot.our_bytes);
    CHECK(tot.our_bytes <= tot.vela_bytes);

    /* all other Vela-compiled models of the shared folder */
    static const char *const dirs[] = {"models/vela/u55-128", "models/vela/u65-256"};
    for (size_t k = 0; k < 2; k++) {
        char dir[1024];
        const char *base = getenv("NPUC_SHARED");
        snprintf(dir, sizeof dir, "%s/%s", base ? base : "../shared", dirs[k]);
        vela_totals t;
        memset(&t, 0, sizeof t);
        int n_models = 0;
        walk_dir(dir, &t, &n_models);
        if (!n_models) {
            printf("SKIP %s: absent\n", dirs[k]);
            continue;
        }
        printf("%s: %d models, %zu weight streams, %zu weights: Vela %zu bytes, ours %zu bytes "
               "(%+.2f%%), %zu part-kernel-first choices checked (+%zu FullyConnected)\n",
               dirs[k], n_models, t.ops, t.weights, t.vela_bytes, t.our_bytes,
               100.0 * ((double)t.our_bytes - (double)t.vela_bytes) / (double)t.vela_bytes,
               t.pkf_checked, t.pkf_fc);
        CHECK(t.ops > 0);
        CHECK_EQ_INT(t.scale_ops, t.ops);
        CHECK_EQ_INT(t.our_op_bytes, t.our_bytes);
        CHECK(t.our_bytes <= t.vela_bytes);
    }
    printf("shared Vela model streams in more than one section: %zu, %zu bytes smaller than one "
           "section\n", g_multi, g_saved);

    test_vela51_streams();
    TEST_MAIN_END();
}
