/* sim_exec: the virtual NPU's executor. Runs one NPU_OP_* with a register
 * state snapshot, bit-exactly (docs/ethos-u.md sections 4, 5, 6, 7, 8).
 *
 * Every op follows the same plan, chosen for host speed:
 *   1. resolve every feature-map tile, weight, scale and LUT range to host
 *      memory once, with bounds checks (nothing is checked per element);
 *   2. gather the IFM (tiles, NHWC/NHCWB16, strides, zero point, padding,
 *      upscaling) into one dense, padded buffer of (value - zero point);
 *   3. compute with branch-free loops over dense buffers (int16 data and
 *      int32 accumulators when the bounds prove that cannot overflow, else
 *      int32 data and int64 accumulators);
 *   4. apply the output stage and scatter into the OFM layout. */
#include "sim/sim_int.h"
#include "sim/sim_rescale.h"
#include "kernels/k_activation.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ buffers */

void sim_ctx_init(sim_ctx *c, eu_variant v, uint8_t *shram, size_t shram_size)
{
    memset(c, 0, sizeof *c);
    c->variant = v;
    c->shram = shram;
    c->shram_size = shram_size;
}

void sim_ctx_free(sim_ctx *c)
{
    for (int i = 0; i < SIM_N_BUF; i++)
        free(c->buf[i].p);
    for (int i = 0; i < SIM_WCACHE_SIZE; i++) {
        free(c->wcache[i].bytes);
        free(c->wcache[i].dense);
    }
    memset(c->buf, 0, sizeof c->buf);
    memset(c->wcache, 0, sizeof c->wcache);
}

static void *buf_get(sim_ctx *c, int which, size_t n_elems, size_t elem, npuc_err *err)
{
    static const uint64_t max_bytes = (uint64_t)1 << 33;   /* (a variable: 32-bit size_t) */
    size_t bytes;
    if (!npuc_mul_size(n_elems ? n_elems : 1, elem, &bytes) || (uint64_t)bytes > max_bytes) {
        npuc_errf(err, NPUC_E_NOMEM, "operation needs a %zu x %zu byte work buffer (too large)",
                  n_elems, elem);
        return NULL;
    }
    sim_buf *b = &c->buf[which];
    if (b->cap < bytes) {
        size_t cap = bytes + bytes / 4 + 64;
        void *p = realloc(b->p, cap);
        if (!p) {
            npuc_errf(err, NPUC_E_NOMEM, "out of memory for a %zu byte work buffer", cap);
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    return b->p;
}

/* ------------------------------------------------------------ memory */

static int fail(sim_ctx *c, int fault, npuc_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail(sim_ctx *c, int fault, npuc_err *err, int code, const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->fault = fault;
    return npuc_errf(err, code, "%s", msg);
}

/* Host pointer for len bytes at offset off of a region. */
static int bus_map_t(sim_ctx *c, unsigned region, uint64_t off, uint64_t len, bool write,
                     const char *what0, int tile, uint8_t **p, npuc_err *err)
{
    char what[96];
#define WHAT() (tile >= 0 ? (snprintf(what, sizeof what, "%s tile %d", what0, tile), what) : what0)
    uint64_t a = c->basep[region & 7] + off;
    *p = NULL;
    if (a < off)
        return fail(c, SIM_FAULT_BUS, err, NPUC_E_RUNTIME,
                    "%s: region %u offset 0x%llx overflows the address space", WHAT(), region,
                    (unsigned long long)off);
    for (size_t i = 0; i < c->n_win; i++) {
        const sim_window *w = &c->win[i];
        if (a < w->bus || a - w->bus > w->size || len > w->size - (a - w->bus))
            continue;
        if (write && !w->writable)
            return fail(c, SIM_FAULT_BUS, err, NPUC_E_RUNTIME,
                        "%s: writes %llu bytes at region %u offset 0x%llx (bus 0x%llx), which "
                        "is read-only memory", WHAT(), (unsigned long long)len, region,
                        (unsigned long long)off, (unsigned long long)a);
        *p = w->host + (a - w->bus);
        return NPUC_OK;
    }
    return fail(c, SIM_FAULT_BUS, err, NPUC_E_RUNTIME,
                "%s: %s %llu bytes at region %u offset 0x%llx (bus 0x%llx, BASEP%u 0x%llx), "
                "outside the memory mapped for the NPU", WHAT(), write ? "writes" : "reads",
                (unsigned long long)len, region, (unsigned long long)off, (unsigned long long)a,
                region, (unsigned long long)c->basep[region & 7]);
#undef WHAT
}

static int bus_map(sim_ctx *c, unsigned region, uint64_t off, uint64_t len, bool write,
                   const char *what, uint8_t **p, npuc_err *err)
{
    return bus_map_t(c, region, off, len, write, what, -1, p, err);
}

/* ------------------------------------------------------- feature maps */

typedef struct fm_view {
    uint8_t *tile[4];         /* element (0, 0, 0) of each tile */
    uint32_t w0, h0, h1;
    int64_t sx, sy, sc;       /* strides may be negative (docs/ethos-u.md 4.1) */
    unsigned es;
    bool sgn, brick;
} fm_view;

/* The lowest and highest byte offsets (from the element at channel 0)
 * of channels 0..C-1 of one position; NHCWB16 steps STRIDE_C per brick
 * of 16 channels. */
static void cterm_span(const sim_fm *fm, uint32_t C, unsigned es, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = (int64_t)(C - 1) * es;
    if (!fm->format) return;
    /* brick k of 0..nb holds 16 channels at k * STRIDE_C, the last one
     * channels 0..(C - 1) % 16 */
    int64_t nb = (int64_t)((C - 1) >> 4), sc = fm->stride_c;
    int64_t in_last = (int64_t)((C - 1) & 15) * es;
    *lo = nb * sc < 0 ? nb * sc : 0;
    *hi = nb * sc + in_last;
    if (nb > 0) {
        int64_t full = (sc > 0 ? (nb - 1) * sc : 0) + 15 * (int64_t)es;   /* a whole brick */
        if (full > *hi) *hi = full;
    }
}

/* Resolves the tiles an H x W x C access touches. */
static int fm_open(sim_ctx *c, const sim_fm *fm, uint32_t H, uint32_t W, uint32_t C, bool write,
                   const char *what, fm_view *v, npuc_err *err)
{
    memset(v, 0, sizeof *v);
    if (fm->bits != 8 && fm->bits != 16 && fm->bits != 32)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: precision not programmed", what);
    if (!fm->width0 || !fm->height0)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: tile geometry (WIDTH0/HEIGHT0) not programmed", what);
    if (!H || !W || !C)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: empty %ux%ux%u feature map", what,
                    H, W, C);
    /* HEIGHT1 (and BASE1/BASE3) matter only when tiles 1 and 3 hold
     * positions, right of WIDTH0 (docs/ethos-u.md 4.3) */
    if (W > fm->width0 && !fm->height1)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: %u columns right of WIDTH0 %u, tile geometry HEIGHT1 not programmed", what,
                    W - fm->width0, fm->width0);
    v->es = fm->bits / 8;
    v->sgn = fm->is_signed;
    v->brick = fm->format == EU_FMT_NHCWB16;
    v->w0 = fm->width0;
    v->h0 = fm->height0;
    v->h1 = fm->height1;
    v->sx = fm->stride_x;
    v->sy = fm->stride_y;
    v->sc = v->brick ? fm->stride_c : v->es;
    int64_t clo, chi;
    cterm_span(fm, C, v->es, &clo, &chi);
    for (int t = 0; t < 4; t++) {
        uint32_t x0 = (t & 1) ? v->w0 : 0, x1 = (t & 1) ? W : (W < v->w0 ? W : v->w0);
        uint32_t y0, y1;
        if (t == 0) { y0 = 0; y1 = H < v->h0 ? H : v->h0; }
        else if (t == 1) { y0 = 0; y1 = H < v->h1 ? H : v->h1; }
        else if (t == 2) { y0 = v->h0; y1 = H; }
        else { y0 = v->h1; y1 = H; }
        if (x0 >= x1 || y0 >= y1)
            continue;
        int64_t ly = (int64_t)(y1 - 1 - ((t >= 2) ? y0 : 0)) * v->sy;
        int64_t lx = (int64_t)(x1 - 1 - x0) * v->sx;
        /* the lowest and highest bytes over the tile's corners */
        int64_t lo = (ly < 0 ? ly : 0) + (lx < 0 ? lx : 0) + clo;
        int64_t hi = (ly > 0 ? ly : 0) + (lx > 0 ? lx : 0) + chi + (int64_t)v->es;
        if (lo < 0 && (uint64_t)-lo > fm->base[t])
            return fail(c, SIM_FAULT_BUS, err, NPUC_E_RUNTIME,
                        "%s: tile %d at 0x%llx with negative strides reaches %lld bytes below it, before "
                        "the start of region %u", what, t, (unsigned long long)fm->base[t], (long long)-lo,
                        fm->region);
        uint64_t start = (uint64_t)((int64_t)fm->base[t] + lo);
        uint8_t *p;
        int rc = bus_map_t(c, fm->region, start, (uint64_t)(hi - lo), write, what, t, &p, err);
        if (rc)
            return rc;
        v->tile[t] = p - lo;
    }
    return NPUC_OK;
}

static inline uint8_t *fm_px(const fm_view *v, uint32_t y, uint32_t x)
{
    if (x < v->w0) {
        if (y < v->h0)
            return v->tile[0] + (int64_t)y * v->sy + (int64_t)x * v->sx;
        return v->tile[2] + (int64_t)(y - v->h0) * v->sy + (int64_t)x * v->sx;
    }
    x -= v->w0;
    if (y < v->h1)
        return v->tile[1] + (int64_t)y * v->sy + (int64_t)x * v->sx;
    return v->tile[3] + (int64_t)(y - v->h1) * v->sy + (int64_t)x * v->sx;
}

/* Reads n consecutive stored elements minus zp. */
static void run_read32(const uint8_t *p, unsigned n, unsigned es, bool sgn, int32_t zp, int32_t *d)
{
    if (es == 1) {
        if (sgn) for (unsigned i = 0; i < n; i++) d[i] = (int32_t)(int8_t)p[i] - zp;
        else for (unsigned i = 0; i < n; i++) d[i] = (int32_t)p[i] - zp;
    } else if (es == 2) {
        for (unsigned i = 0; i < n; i++) {
            uint16_t u = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
            d[i] = (sgn ? (int32_t)(int16_t)u : (int32_t)u) - zp;
        }
    } else {
        for (unsigned i = 0; i < n; i++) {
            uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                         (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
            /* 32-bit data: zero points are 0 for Vela; wrap like the hardware's
             * 32-bit datapath would rather than invoke undefined behaviour */
            d[i] = (int32_t)((sgn ? u : u) - (uint32_t)zp);
        }
    }
}

static void run_read16(const uint8_t *p, unsigned n, unsigned es, bool sgn, int32_t zp, int16_t *d)
{
    if (es == 1) {
        if (sgn) for (unsigned i = 0; i < n; i++) d[i] = (int16_t)((int8_t)p[i] - zp);
        else for (unsigned i = 0; i < n; i++) d[i] = (int16_t)(p[i] - zp);
    } else {
        for (unsigned i = 0; i < n; i++) {
            uint16_t u = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
            d[i] = (int16_t)((sgn ? (int32_t)(int16_t)u : (int32_t)u) - zp);
        }
    }
}

/* Gathers H x W x C (minus zp) into dst with the given pitches (elements).
 * Either d32 or d16 is used. */
static void fm_gather(const fm_view *v, uint32_t H, uint32_t W, uint32_t C, int32_t zp,
                      int32_t *d32, int16_t *d16, size_t row_pitch, size_t px_pitch)
{
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = fm_px(v, y, x);
            size_t o = (size_t)y * row_pitch + (size_t)x * px_pitch;
            if (!v->brick) {
                if (d16) run_read16(p, C, v->es, v->sgn, zp, d16 + o);
                else run_read32(p, C, v->es, v->sgn, zp, d32 + o);
            } else {
                for (uint32_t c0 = 0; c0 < C; c0 += 16) {
                    unsigned n = C - c0 < 16 ? C - c0 : 16;
                    const uint8_t *q = p + (int64_t)(c0 >> 4) * v->sc;
                    if (d16) run_read16(q, n, v->es, v->sgn, zp, d16 + o + c0);
                    else run_read32(q, n, v->es, v->sgn, zp, d32 + o + c0);
                }
            }
        }
    }
}

static void run_write(uint8_t *p, unsigned n, unsigned es, const int32_t *s)
{
    if (es == 1) {
        for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)s[i];
    } else if (es == 2) {
        for (unsigned i = 0; i < n; i++) {
            p[2 * i] = (uint8_t)s[i];
            p[2 * i + 1] = (uint8_t)((uint32_t)s[i] >> 8);
        }
    } else {
        for (unsigned i = 0; i < n; i++) {
            uint32_t u = (uint32_t)s[i];
            p[4 * i] = (uint8_t)u;
            p[4 * i + 1] = (uint8_t)(u >> 8);
            p[4 * i + 2] = (uint8_t)(u >> 16);
            p[4 * i + 3] = (uint8_t)(u >> 24);
        }
    }
}

/* Stores one pixel's C final values. */
static inline void fm_put(const fm_view *v, uint32_t y, uint32_t x, uint32_t C, const int32_t *s)
{
    uint8_t *p = fm_px(v, y, x);
    if (!v->brick) {
        run_write(p, C, v->es, s);
        return;
    }
    for (uint32_t c0 = 0; c0 < C; c0 += 16) {
        unsigned n = C - c0 < 16 ? C - c0 : 16;
        run_write(p + (int64_t)(c0 >> 4) * v->sc, n, v->es, s + c0);
    }
}

static void type_range(unsigned bits, bool sgn, int64_t *lo, int64_t *hi)
{
    if (sgn) {
        *lo = -((int64_t)1 << (bits - 1));
        *hi = ((int64_t)1 << (bits - 1)) - 1;
    } else {
        *lo = 0;
        *hi = ((int64_t)1 << bits) - 1;
    }
}

/* ------------------------------------------------------- output stage */

/* R_mode(acc, m, s) of docs/ethos-u.md 5.6. */
static inline int64_t rescale(int64_t acc, uint32_t m, unsigned s, unsigned round)
{
    return sim_rescale(acc, m, s, round);     /* sim_rescale.h */
}

enum { LUT_NONE, LUT_8, LUT_32, LUT_16, LUT_TANH, LUT_SIGMOID };

typedef struct ostage {
    unsigned round;
    int64_t zo;
    int64_t lo, hi;           /* clamp after zero point (already intersected with type) */
    int lut;
    const uint8_t *table;
    bool lut_signed_idx;      /* index = v + 128 (signed 8-bit) or v */
    bool ofm_signed;
    unsigned ofm_bits;
} ostage;

static int ostage_init(sim_ctx *c, const sim_state *s, const char *what, ostage *o, npuc_err *err)
{
    memset(o, 0, sizeof *o);
    o->round = s->ofm.round_mode;
    o->zo = sim_fm_zero_point(&s->ofm);
    o->ofm_signed = s->ofm.is_signed;
    o->ofm_bits = s->ofm.bits;
    int64_t tlo, thi;
    type_range(s->ofm.bits, s->ofm.is_signed, &tlo, &thi);
    unsigned f = s->act_func;
    if (f == EU_ACT_NONE && s->act_clip)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: ACTIVATION clip range %u without a LUT", what, s->act_clip);
    if (s->ofm.bits == 32 && f == EU_ACT_NONE) {
        /* 32-bit OFM without a LUT: the zero point and ACTIVATION_MIN/MAX do
         * not apply (docs/ethos-u.md 5.1; Vela's int8 softmax writes int32
         * intermediates with the input's zero point, -1 in person_detect,
         * and is only exact if it is ignored) */
        o->zo = 0;
        o->lo = tlo;
        o->hi = thi;
        return NPUC_OK;
    }
    o->lo = s->act_min > tlo ? s->act_min : tlo;
    o->hi = s->act_max < thi ? s->act_max : thi;
    if (f == EU_ACT_NONE)
        return NPUC_OK;
    if (f == EU_ACT_TANH || f == EU_ACT_SIGMOID) {
        if (s->ofm.bits != 16 || !s->ofm.is_signed)
            return fail(c, SIM_FAULT_CMD, err, NPUC_E_UNSUPPORTED,
                        "%s: built-in %s needs an int16 OFM", what, f == EU_ACT_TANH ? "TANH" : "SIGMOID");
        o->lut = f == EU_ACT_TANH ? LUT_TANH : LUT_SIGMOID;
        return NPUC_OK;
    }
    /* LUT n: clip range selects the index type */
    unsigned clip = s->act_clip;
    unsigned idx_bits = s->ofm.bits;
    bool idx_signed = s->ofm.is_signed;
    if (clip == EU_CLIP_UINT8) { idx_bits = 8; idx_signed = false; }
    else if (clip == EU_CLIP_INT8) { idx_bits = 8; idx_signed = true; }
    else if (clip == EU_CLIP_INT16) { idx_bits = 16; idx_signed = true; }
    int64_t clo, chi;
    type_range(idx_bits, idx_signed, &clo, &chi);
    if (clo > o->lo) o->lo = clo;
    if (chi < o->hi) o->hi = chi;
    if (o->lo > o->hi)
        o->lo = o->hi;
    size_t entry, entries;
    if (idx_bits == 8 && s->ofm.bits == 8) { o->lut = LUT_8; entry = 1; entries = 256; }
    else if (idx_bits == 8 && s->ofm.bits == 32) { o->lut = LUT_32; entry = 4; entries = 256; }
    else if (idx_bits == 16 && s->ofm.bits == 16 && idx_signed) { o->lut = LUT_16; entry = 4; entries = 512; }
    else
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_UNSUPPORTED,
                    "%s: LUT with %s%u index and %u-bit OFM is not a supported combination", what,
                    idx_signed ? "int" : "uint", idx_bits, s->ofm.bits);
    o->lut_signed_idx = idx_signed;
    size_t lut_start = (size_t)(eu_variant_shram_banks(c->variant) - EU_LUT_BANKS) * EU_SHRAM_BANK_BYTES;
    size_t addr = lut_start + (size_t)(f - EU_ACT_LUT0) * EU_LUT_SLOT_BYTES;
    if (addr + entry * entries > c->shram_size)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: LUT %u of %zu bytes at SHRAM 0x%zx runs past the %zu-byte SHRAM", what,
                    f - EU_ACT_LUT0, entry * entries, addr, c->shram_size);
    o->table = c->shram + addr;
    return NPUC_OK;
}

static inline int32_t rd_le32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* v is the scaled result before the zero point. */
static inline int32_t ostage_apply(const ostage *o, int64_t v)
{
    if (o->lut >= LUT_TANH) {
        /* built-in functions on the scaled value (1.0 = 0x3000), TFLite's
         * int16 interpolation; then the clamp (docs/ethos-u.md 5.7) */
        int32_t x = v < -(1 << 24) ? -(1 << 24) : v > (1 << 24) ? (1 << 24) : (int32_t)v;
        int64_t r = (o->lut == LUT_TANH ? k_tanh_s16_value(x) : k_logistic_s16_value(x)) + o->zo;
        return (int32_t)(r < o->lo ? o->lo : r > o->hi ? o->hi : r);
    }
    v += o->zo;
    if (v < o->lo) v = o->lo;
    if (v > o->hi) v = o->hi;
    switch (o->lut) {
    case LUT_NONE: return (int32_t)v;
    case LUT_8: {
        unsigned i = (unsigned)(o->lut_signed_idx ? v + 128 : v);
        return o->ofm_signed ? (int32_t)(int8_t)o->table[i] : (int32_t)o->table[i];
    }
    case LUT_32: {
        unsigned i = (unsigned)(o->lut_signed_idx ? v + 128 : v);
        return rd_le32(o->table + 4 * i);
    }
    case LUT_16: {
        unsigned i = (unsigned)((v + 32768) >> 7), frac = (unsigned)(v & 127);
        int32_t e = rd_le32(o->table + 4 * i);
        int32_t base = (int16_t)(e & 0xFFFF), slope = (int16_t)((uint32_t)e >> 16);
        int32_t r = base + ((slope * (int32_t)frac + 64) >> 7);
        return r < -32768 ? -32768 : r > 32767 ? 32767 : r;
    }
    default:
        return (int32_t)v;
    }
}

/* ------------------------------------------------------- geometry */

typedef struct geom {
    uint32_t OH, OW, OD;              /* OFM */
    uint32_t ID;                      /* IFM depth read */
    uint32_t kh, kw, dy, dx, sy, sx;  /* undilated taps, dilation, stride */
    uint32_t KH, KW;                  /* dilated extents */
    uint32_t pt, pl, pb, pr;
    uint32_t UH, UW;                  /* (upscaled) input extent */
    uint32_t IH, IW;                  /* stored IFM extent */
    uint32_t PH, PW;                  /* padded buffer extent */
    unsigned up;
} geom;

static int geom_init(sim_ctx *c, const sim_state *s, bool elementwise, const char *what, geom *g,
                     npuc_err *err)
{
    memset(g, 0, sizeof *g);
    g->OH = s->ofm.height;
    g->OW = s->ofm.width;
    g->OD = s->ofm.depth;
    if (!g->OH || !g->OW || !g->OD)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: OFM width/height/depth not programmed", what);
    if (elementwise) {
        g->kh = g->kw = g->KH = g->KW = g->dy = g->dx = g->sy = g->sx = 1;
        g->UH = g->IH = g->PH = g->OH;
        g->UW = g->IW = g->PW = g->OW;
        g->ID = g->OD;
        return NPUC_OK;
    }
    if (!s->kernel_width || !s->kernel_height)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: kernel size not programmed", what);
    g->dx = s->dilation_x ? s->dilation_x : 1;
    g->dy = s->dilation_y ? s->dilation_y : 1;
    g->sx = s->stride_x ? s->stride_x : 1;
    g->sy = s->stride_y ? s->stride_y : 1;
    g->KW = s->kernel_width;
    g->KH = s->kernel_height;
    if ((g->KW - 1) % g->dx || (g->KH - 1) % g->dy)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: kernel extent %ux%u is not a multiple of the dilation %ux%u", what,
                    g->KW, g->KH, g->dx, g->dy);
    g->kw = (g->KW - 1) / g->dx + 1;
    g->kh = (g->KH - 1) / g->dy + 1;
    g->pt = s->pad_top; g->pl = s->pad_left; g->pb = s->pad_bottom; g->pr = s->pad_right;
    g->PH = (g->OH - 1) * g->sy + g->KH;
    g->PW = (g->OW - 1) * g->sx + g->KW;
    if (g->PH <= g->pt + g->pb || g->PW <= g->pl + g->pr)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: padding %u/%u/%u/%u (top/left/bottom/right) leaves no IFM for a %ux%u "
                    "OFM with a %ux%u kernel", what, g->pt, g->pl, g->pb, g->pr, g->OW, g->OH,
                    g->KW, g->KH);
    g->UH = g->PH - g->pt - g->pb;
    g->UW = g->PW - g->pl - g->pr;
    g->up = s->upscale;
    if (g->up) {
        g->IH = (g->UH + 1) / 2;
        g->IW = (g->UW + 1) / 2;
    } else {
        g->IH = g->UH;
        g->IW = g->UW;
    }
    g->ID = s->ifm.depth;
    if (!g->ID)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: IFM depth not programmed", what);
    return NPUC_OK;
}

/* Refuses operations whose work (multiply-accumulates plus buffer and
 * weight elements) exceeds the per-operation limit, so that a stream with,
 * say, zero strides and a 65536 x 65536 OFM fails cleanly instead of
 * running for hours. */
static int check_work(sim_ctx *c, const char *what, double work, npuc_err *err)
{
    double limit = c->max_work ? (double)c->max_work : SIM_DEFAULT_MAX_WORK;
    if (work <= limit)
        return NPUC_OK;
    return fail(c, SIM_FAULT_CMD, err, NPUC_E_UNSUPPORTED,
                "%s: %.3g element operations exceed the simulator's per-operation limit of %.3g",
                what, work, limit);
}

/* Builds the padded input P[PH][PW][C] of (U - zi); padding and the holes
 * of ZEROS upscaling hold pad_value. d16 or d32. */
static int build_padded(sim_ctx *c, const sim_state *s, const geom *g, uint32_t C,
                        int32_t pad_value, bool use16, void **out, npuc_err *err)
{
    fm_view v;
    int rc = fm_open(c, &s->ifm, g->IH, g->IW, C, false, "IFM", &v, err);
    if (rc)
        return rc;
    size_t n = (size_t)g->PH * g->PW * C;
    size_t es = use16 ? 2 : 4;
    void *P = buf_get(c, SIM_BUF_IN, n, es, err);
    if (!P)
        return err->code;
    if (use16) {
        int16_t *p = P;
        for (size_t i = 0; i < n; i++) p[i] = (int16_t)pad_value;
    } else {
        int32_t *p = P;
        for (size_t i = 0; i < n; i++) p[i] = pad_value;
    }
    int32_t zi = sim_fm_zero_point(&s->ifm);
    size_t row = (size_t)g->PW * C;
    size_t org = (size_t)g->pt * row + (size_t)g->pl * C;
    if (!g->up) {
        fm_gather(&v, g->IH, g->IW, C, zi, use16 ? NULL : (int32_t *)P + org,
                  use16 ? (int16_t *)P + org : NULL, row, C);
        *out = P;
        return NPUC_OK;
    }
    size_t tn = (size_t)g->IH * g->IW * C;
    void *T = buf_get(c, SIM_BUF_PATCH, tn, es, err);
    if (!T)
        return err->code;
    fm_gather(&v, g->IH, g->IW, C, zi, use16 ? NULL : T, use16 ? T : NULL, (size_t)g->IW * C, C);
    for (uint32_t uy = 0; uy < g->UH; uy++) {
        if (g->up == 2 && (uy & 1))
            continue;
        for (uint32_t ux = 0; ux < g->UW; ux++) {
            if (g->up == 2 && (ux & 1))
                continue;
            size_t src = ((size_t)(uy >> 1) * g->IW + (ux >> 1)) * C;
            size_t dst = org + (size_t)uy * row + (size_t)ux * C;
            memcpy((uint8_t *)P + dst * es, (uint8_t *)T + src * es, C * es);
        }
    }
    *out = P;
    return NPUC_OK;
}

/* Whether every U - zi value of this IFM fits int16. */
static bool ifm_fits16(const sim_fm *fm)
{
    if (fm->bits > 16)
        return false;
    int64_t lo, hi;
    type_range(fm->bits, fm->is_signed, &lo, &hi);
    int64_t z = sim_fm_zero_point(fm);
    return lo - z >= -32768 && hi - z <= 32767 && lo - z <= 32767 && hi - z >= -32768;
}

static int64_t ifm_maxabs(const sim_fm *fm)
{
    int64_t lo, hi;
    type_range(fm->bits, fm->is_signed, &lo, &hi);
    int64_t z = sim_fm_zero_point(fm);
    int64_t a = lo - z < 0 ? z - lo : lo - z, b = hi - z < 0 ? z - hi : hi - z;
    return a > b ? a : b;
}

/* ----------------------------------------------------- weights, scales */

/* Cache key of a weight stream: FNV over its length and up to 256 sampled
 * bytes (the full bytes are compared on a hit, so this only has to spread). */
static uint64_t stream_key(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    size_t step = n > 256 ? n / 256 : 1;
    for (size_t i = 0; i < n; i += step) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Dense weights of a CONV (W[o][ky][kx][i]) or DEPTHWISE (W[ky][kx][o]). */
static int load_weights_core(sim_ctx *c, const sim_state *s, bool dw, const char *what,
                             const int16_t **dense, int32_t *max_abs, npuc_err *err)
{
    sim_wgeom g;
    int rc = sim_wgeom_from_state(s, c->variant, dw, &g, err);
    if (rc) {
        c->fault = SIM_FAULT_CMD;
        return npuc_err_prefix(err, "%s", what), rc;
    }
    if (s->weight_length[0] == 0)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: WEIGHT_LENGTH is 0", what);
    uint8_t *wb;
    rc = bus_map(c, s->weight_region, s->weight_base[0], s->weight_length[0], false,
                 "weight stream", &wb, err);
    if (rc)
        return npuc_err_prefix(err, "%s", what), rc;
    size_t len = (size_t)s->weight_length[0];
    uint64_t h = stream_key(wb, len) ^ ((uint64_t)g.ofm_depth << 40) ^ ((uint64_t)g.ifm_depth << 20) ^
                 ((uint64_t)g.kh << 10) ^ g.kw ^ ((uint64_t)g.block_depth << 50) ^
                 ((uint64_t)dw << 63) ^ ((uint64_t)g.part_kernel_first << 62);
    sim_wentry *e = &c->wcache[h % SIM_WCACHE_SIZE];
    if (e->dense && e->hash == h && e->len == len && !memcmp(&e->geom, &g, sizeof g) &&
        !memcmp(e->bytes, wb, len)) {
        *dense = e->dense;
        *max_abs = e->max_abs;
        return NPUC_OK;
    }
    size_t need = sim_weight_traverse(&g, NULL, 0);
    int16_t *raw = NULL;
    sim_mlw_info info;
    rc = sim_mlw_decode(wb, len, need + 1, &raw, &info, err);
    if (rc) {
        c->fault = SIM_FAULT_WD;
        return npuc_err_prefix(err, "%s: weight stream at region %u offset 0x%llx", what,
                               s->weight_region, (unsigned long long)s->weight_base[0]), rc;
    }
    if (info.n_weights != need) {
        free(raw);
        return fail(c, SIM_FAULT_WD, err, NPUC_E_FORMAT,
                    "%s: weight stream decodes to %zu weights, the op's geometry needs %zu", what,
                    info.n_weights, need);
    }
    int64_t *map = buf_get(c, SIM_BUF_MAP, need, sizeof *map, err);
    if (!map) {
        free(raw);
        return err->code;
    }
    sim_weight_traverse(&g, map, need);
    size_t kk = (size_t)g.kh * g.kw;
    size_t n_dense = dw ? (size_t)g.ofm_depth * kk : (size_t)g.ofm_depth * kk * g.ifm_depth;
    int16_t *d = calloc(n_dense ? n_dense : 1, sizeof *d);
    uint8_t *copy = malloc(len);
    if (!d || !copy) {
        free(raw); free(d); free(copy);
        return npuc_errf(err, NPUC_E_NOMEM, "%s: out of memory for weights", what);
    }
    int32_t mx = 0;
    for (size_t p = 0; p < need; p++) {
        if (map[p] < 0) {
            if (raw[p] != 0) {
                /* hardware multiplies padding slots by nothing; keep going */
            }
            continue;
        }
        size_t idx = (size_t)map[p];
        if (dw) {   /* map gives o*kk + ky*kw + kx; store [ky][kx][o] */
            size_t o = idx / kk, k = idx % kk;
            idx = k * g.ofm_depth + o;
        }
        d[idx] = raw[p];
        int32_t a = raw[p] < 0 ? -raw[p] : raw[p];
        if (a > mx) mx = a;
    }
    free(raw);
    memcpy(copy, wb, len);
    free(e->bytes);
    free(e->dense);
    e->hash = h;
    e->len = len;
    e->geom = g;
    e->bytes = copy;
    e->dense = d;
    e->n_dense = n_dense;
    e->max_abs = mx;
    *dense = d;
    *max_abs = mx;
    return NPUC_OK;
}

static int load_scales_core(sim_ctx *c, const sim_state *s, uint32_t n, const char *what,
                            sim_scale_rec *rec, npuc_err *err)
{
    if (s->scale_length[0] < (uint64_t)n * 10)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: SCALE_LENGTH %llu is too short for %u channels (10 bytes each)", what,
                    (unsigned long long)s->scale_length[0], n);
    uint8_t *p;
    int rc = bus_map(c, s->scale_region, s->scale_base[0], s->scale_length[0], false,
                     "scale stream", &p, err);
    if (rc)
        return npuc_err_prefix(err, "%s", what), rc;
    rc = sim_scale_parse(p, (size_t)s->scale_length[0], n, rec, err);
    if (rc) {
        c->fault = SIM_FAULT_CMD;
        return npuc_err_prefix(err, "%s", what), rc;
    }
    return NPUC_OK;
}

/* U65-512 dual-core mode (PARALLEL_MODE 1, docs/ethos-u.md 6.4): core k computes
 * the OFM channels o = 2j + k with its own weight stream (WEIGHT1_* for
 * core 1), block depth (B + 1 - k) / 2 and scale records (SCALE1_*). Each
 * core's share is decoded as a single-core op and interleaved. */
static bool dual_core(const sim_ctx *c, const sim_state *s)
{
    return eu_variant_get(c->variant)->cores > 1 && s->parallel_mode;
}

static sim_state core_state(const sim_state *s, int k)
{
    sim_state t = *s;
    t.parallel_mode = 0;
    t.ofm.depth = (s->ofm.depth + 1 - (uint32_t)k) / 2;
    t.blk_depth = (s->blk_depth + 1 - (uint32_t)k) / 2;
    if (k == 1) {
        t.weight_base[0] = s->weight_base[1];
        t.weight_length[0] = s->weight_length[1];
        t.scale_base[0] = s->scale_base[1];
        t.scale_length[0] = s->scale_length[1];
    }
    return t;
}

static int load_weights(sim_ctx *c, const sim_state *s, bool dw, const char *what,
                        const int16_t **dense, int32_t *max_abs, npuc_err *err)
{
    if (!dual_core(c, s))
        return load_weights_core(c, s, dw, what, dense, max_abs, err);
    if (s->blk_depth % 2)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_UNSUPPORTED,
                    "%s: dual-core split of an odd OFM block depth %u", what, s->blk_depth);
    uint32_t O = s->ofm.depth;
    size_t per = 0;
    int16_t *all = NULL;
    *max_abs = 0;
    for (int k = 0; k < 2; k++) {
        sim_state t = core_state(s, k);
        if (!t.ofm.depth)
            continue;
        if (dw)   /* depthwise: each core reads its own channels */
            t.ifm.depth = t.ofm.depth;
        const int16_t *d;
        int32_t mx;
        char w2[64];
        snprintf(w2, sizeof w2, "%s core %d", what, k);
        int rc = load_weights_core(c, &t, dw, w2, &d, &mx, err);
        if (rc)
            return rc;
        sim_wgeom g;
        sim_wgeom_from_state(&t, c->variant, dw, &g, err);
        size_t taps = (size_t)g.kh * g.kw;
        per = dw ? taps : taps * g.ifm_depth;
        if (!all) {
            all = buf_get(c, SIM_BUF_WPAR, (size_t)O * per, sizeof *all, err);
            if (!all)
                return err->code;
        }
        for (uint32_t j = 0; j < t.ofm.depth; j++) {
            uint32_t o = 2 * j + (uint32_t)k;
            if (dw)
                for (size_t q = 0; q < taps; q++)
                    all[q * O + o] = d[q * t.ofm.depth + j];
            else
                memcpy(all + (size_t)o * per, d + (size_t)j * per, per * sizeof *all);
        }
        if (mx > *max_abs)
            *max_abs = mx;
    }
    *dense = all;
    return NPUC_OK;
}

static int load_scales(sim_ctx *c, const sim_state *s, uint32_t n, const char *what,
                       sim_scale_rec *rec, npuc_err *err)
{
    if (!dual_core(c, s))
        return load_scales_core(c, s, n, what, rec, err);
    for (int k = 0; k < 2; k++) {
        sim_state t = core_state(s, k);
        uint32_t nk = t.ofm.depth;
        if (!nk)
            continue;
        sim_scale_rec tmp[256];
        sim_scale_rec *part = nk <= 256 ? tmp : malloc(nk * sizeof *part);
        if (!part)
            return npuc_errf(err, NPUC_E_NOMEM, "%s: out of memory", what);
        char w2[64];
        snprintf(w2, sizeof w2, "%s core %d", what, k);
        int rc = load_scales_core(c, &t, nk, w2, part, err);
        if (!rc)
            for (uint32_t j = 0; j < nk; j++)
                rec[2 * j + (uint32_t)k] = part[j];
        if (part != tmp)
            free(part);
        if (rc)
            return rc;
    }
    return NPUC_OK;
}

/* ------------------------------------------------------- conv / dw */

static inline int32_t dot16(const int16_t *a, const int16_t *b, size_t n)
{
    int32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (int32_t)a[i] * b[i];
    return s;
}

static inline int64_t dot32(const int32_t *a, const int16_t *b, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (int64_t)a[i] * b[i];
    return s;
}

static int check_common(sim_ctx *c, const sim_state *s, const char *what, npuc_err *err)
{
    if (s->ofm.bits != 8 && s->ofm.bits != 16 && s->ofm.bits != 32)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: OFM precision not programmed",
                    what);
    if (s->ifm.bits != 8 && s->ifm.bits != 16 && s->ifm.bits != 32)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: IFM precision not programmed",
                    what);
    return NPUC_OK;
}

/* SHRAM layout consistency (docs/ethos-u.md 1.2). */
static int check_shram(sim_ctx *c, const sim_state *s, bool elementwise, bool ifm2_tensor,
                       const char *what, npuc_err *err)
{
    unsigned banks = eu_variant_shram_banks(c->variant);
    unsigned ib_end = s->ifm.ib, ab = s->ab_start;
    if (ib_end < 2 || ib_end > banks)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: IFM_IB_END bank %u outside 2..%u", what, ib_end, banks);
    if (!elementwise && ab < ib_end)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: inconsistent SHRAM layout: AB_START bank %u overlaps the IFM buffer "
                    "ending at bank %u", what, ab, ib_end);
    if (ab > banks)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: AB_START bank %u beyond %u banks",
                    what, ab, banks);
    if (ifm2_tensor && (s->ifm2.ib < 2 || s->ifm2.ib >= banks))
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: IFM2_IB_START bank %u outside 2..%u", what, s->ifm2.ib, banks - 1);
    /* OFM block: multiples of the micro-block, within the limits */
    const uint8_t *ub = eu_variant_get(c->variant)->ofm_ublock;
    unsigned ubw = ub[0], ubh = ub[1], ubd = ub[2];
    if (!s->blk_width || !s->blk_height || !s->blk_depth)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: OFM block size not programmed",
                    what);
    if ((s->blk_width % ubw && s->blk_width < s->ofm.width) ||
        (s->blk_height % ubh && s->blk_height < s->ofm.height) ||
        (s->blk_depth % ubd && s->blk_depth < s->ofm.depth))
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: inconsistent block configuration: OFM block %ux%ux%u is not a multiple "
                    "of the %ux%ux%u micro-block", what, s->blk_width, s->blk_height, s->blk_depth,
                    ubw, ubh, ubd);
    return NPUC_OK;
}

/* Output stage of one conv/depthwise pixel: bias, per-channel or global
 * scale, zero point, clamp, activation. */
static void conv_out_pixel(const ostage *os, const sim_state *s, bool global,
                           const sim_scale_rec *rec, const int64_t *acc, uint32_t n, int32_t *out)
{
    for (uint32_t o = 0; o < n; o++) {
        int64_t a = acc[o] + rec[o].bias;
        int64_t v = global ? rescale(a, s->ofm_scale, s->ofm_shift, os->round)
                           : rescale(a, rec[o].scale, rec[o].shift, os->round);
        out[o] = ostage_apply(os, v);
    }
}

static int exec_conv(sim_ctx *c, const sim_state *s, bool dw, npuc_err *err)
{
    const char *what = dw ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV";
    geom g;
    int rc = geom_init(c, s, false, what, &g, err);
    if (rc) return rc;
    if (dw && g.ID != g.OD)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: IFM depth %u differs from OFM depth %u", what, g.ID, g.OD);
    if (s->ifm.bits == 32)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: 32-bit IFM is not allowed", what);
    {
        double taps = (double)g.kh * g.kw * (dw ? 1.0 : (double)g.ID);
        double work = (double)g.OH * g.OW * g.OD * (taps + 1) + (double)g.PH * g.PW * g.ID +
                      (double)g.OD * taps;
        if ((rc = check_work(c, what, work, err)))
            return rc;
    }
    const int16_t *W = NULL;
    int32_t wmax = 0;
    if ((rc = load_weights(c, s, dw, what, &W, &wmax, err)))
        return rc;
    sim_scale_rec *rec = buf_get(c, SIM_BUF_ACC, g.OD, sizeof *rec + 8 * sizeof(int64_t), err);
    if (!rec) return err->code;
    int64_t *acc = (int64_t *)(rec + g.OD);
    int32_t *outv = (int32_t *)(acc + g.OD);
    if ((rc = load_scales(c, s, g.OD, what, rec, err)))
        return rc;
    ostage os;
    if ((rc = ostage_init(c, s, what, &os, err)))
        return rc;
    bool global = s->ofm.scale_mode == EU_OFM_SCALE_GLOBAL;
    fm_view ov;
    if ((rc = fm_open(c, &s->ofm, g.OH, g.OW, g.OD, true, "OFM", &ov, err)))
        return rc;
    uint32_t C = dw ? g.OD : g.ID;
    size_t K = (size_t)g.kh * g.kw * C;
    bool fits16 = ifm_fits16(&s->ifm);
    /* int32 accumulation is exact when the largest possible sum fits */
    bool acc32 = fits16 && (double)ifm_maxabs(&s->ifm) * (double)wmax *
                 (double)(dw ? (size_t)g.kh * g.kw : K) < 2147483647.0;
    /* conv: int16 data whenever the values fit, summed in int32 chunks
     * short enough never to overflow; depthwise: int16 only with int32 sums */
    bool use16 = dw ? acc32 : fits16;
    size_t chunk = K;
    if (!dw && fits16 && !acc32) {
        double per = (double)ifm_maxabs(&s->ifm) * (double)(wmax ? wmax : 1);
        chunk = (size_t)(2147483647.0 / per);
        if (chunk < 1) chunk = 1;
    }
    void *P;
    if ((rc = build_padded(c, s, &g, C, 0, use16, &P, err)))
        return rc;
    size_t row = (size_t)g.PW * C;
    if (!dw) {
        void *patch = buf_get(c, SIM_BUF_PATCH, K, use16 ? 2 : 4, err);
        if (!patch) return err->code;
        size_t es = use16 ? 2 : 4;
        size_t tap_run = C * es;
        for (uint32_t oy = 0; oy < g.OH; oy++) {
            for (uint32_t ox = 0; ox < g.OW; ox++) {
                /* im2col: taps in [ky][kx][c] order, matching W[o] */
                uint8_t *pp = patch;
                for (uint32_t ky = 0; ky < g.kh; ky++) {
                    size_t base = (size_t)(oy * g.sy + ky * g.dy) * row;
                    for (uint32_t kx = 0; kx < g.kw; kx++) {
                        size_t off = base + (size_t)(ox * g.sx + kx * g.dx) * C;
                        memcpy(pp, (uint8_t *)P + off * es, tap_run);
                        pp += tap_run;
                    }
                }
                if (acc32)
                    for (uint32_t o = 0; o < g.OD; o++)
                        acc[o] = dot16(patch, W + (size_t)o * K, K);
                else if (use16)
                    for (uint32_t o = 0; o < g.OD; o++) {
                        int64_t a = 0;
                        const int16_t *w = W + (size_t)o * K;
                        for (size_t k0 = 0; k0 < K; k0 += chunk)
                            a += dot16((const int16_t *)patch + k0, w + k0, K - k0 < chunk ? K - k0 : chunk);
                        acc[o] = a;
                    }
                else
                    for (uint32_t o = 0; o < g.OD; o++)
                        acc[o] = dot32(patch, W + (size_t)o * K, K);
                conv_out_pixel(&os, s, global, rec, acc, g.OD, outv);
                fm_put(&ov, oy, ox, g.OD, outv);
            }
        }
        return NPUC_OK;
    }
    /* depthwise: vectorise over channels; W is [ky][kx][c] */
    int32_t *a32 = buf_get(c, SIM_BUF_W, (size_t)g.OD * 3, sizeof(int64_t), err);
    if (!a32) return err->code;
    int64_t *a64 = (int64_t *)(a32 + 2 * (size_t)g.OD);
    for (uint32_t oy = 0; oy < g.OH; oy++) {
        for (uint32_t ox = 0; ox < g.OW; ox++) {
            if (acc32) {
                memset(a32, 0, g.OD * sizeof *a32);
                for (uint32_t ky = 0; ky < g.kh; ky++) {
                    size_t base = (size_t)(oy * g.sy + ky * g.dy) * row;
                    for (uint32_t kx = 0; kx < g.kw; kx++) {
                        const int16_t *src = (const int16_t *)P + base +
                                             (size_t)(ox * g.sx + kx * g.dx) * C;
                        const int16_t *w = W + ((size_t)ky * g.kw + kx) * g.OD;
                        for (uint32_t ch = 0; ch < g.OD; ch++)
                            a32[ch] += (int32_t)src[ch] * w[ch];
                    }
                }
                for (uint32_t ch = 0; ch < g.OD; ch++)
                    a64[ch] = a32[ch];
            } else {
                memset(a64, 0, g.OD * sizeof *a64);
                for (uint32_t ky = 0; ky < g.kh; ky++) {
                    size_t base = (size_t)(oy * g.sy + ky * g.dy) * row;
                    for (uint32_t kx = 0; kx < g.kw; kx++) {
                        const int32_t *src = (const int32_t *)P + base +
                                             (size_t)(ox * g.sx + kx * g.dx) * C;
                        const int16_t *w = W + ((size_t)ky * g.kw + kx) * g.OD;
                        for (uint32_t ch = 0; ch < g.OD; ch++)
                            a64[ch] += (int64_t)src[ch] * w[ch];
                    }
                }
            }
            conv_out_pixel(&os, s, global, rec, a64, g.OD, outv);
            fm_put(&ov, oy, ox, g.OD, outv);
        }
    }
    return NPUC_OK;
}

/* The name of a POOL / ELEMENTWISE mode, as the command table has it. */
static const char *mode_name(uint16_t code, unsigned mode)
{
    const char *n = eu_field_value_name(eu_cmd_field(eu_cmd_find(code), EU_F_VALUE), mode);
    return n ? n : "?";
}

/* ------------------------------------------------------------- pool */

/* a / n rounded half away from zero: the NPU's average-pool division
 * (docs/ethos-u.md 5.5.1). */
static int64_t div_round(int64_t a, int64_t n)
{
    if (n <= 1)
        return a;
    return a >= 0 ? (a + n / 2) / n : (a - n / 2) / n;
}

/* Taps k in [*k0, *k1) of a window starting at padded position `start`
 * with dilation d fall inside the input [pad, pad + U); empty: k0 == k1. */
static void valid_taps(uint32_t start, uint32_t d, uint32_t k, uint32_t pad, uint32_t U,
                       uint32_t *k0, uint32_t *k1)
{
    *k0 = k;
    *k1 = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t p = start + i * d;
        if (p >= pad && p < pad + U) {
            if (i < *k0) *k0 = i;
            *k1 = i + 1;
        }
    }
    if (*k1 < *k0)
        *k0 = *k1 = 0;
}

static int exec_pool(sim_ctx *c, const sim_state *s, unsigned mode, npuc_err *err)
{
    char what[48];
    snprintf(what, sizeof what, "NPU_OP_POOL %s", mode_name(EU_OP_POOL, mode));
    geom g;
    int rc = geom_init(c, s, false, what, &g, err);
    if (rc) return rc;
    if (mode == EU_POOL_REDUCE_SUM) {
        if (g.OD != 1)
            return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                        "%s: OFM depth %u, REDUCE_SUM writes depth 1", what, g.OD);
    } else if (g.ID != g.OD) {
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: IFM depth %u differs from OFM depth %u", what, g.ID, g.OD);
    }
    if ((rc = check_work(c, what, (double)g.OH * g.OW * g.ID * ((double)g.kh * g.kw + 1) +
                                      (double)g.PH * g.PW * g.ID, err)))
        return rc;
    ostage os;
    if ((rc = ostage_init(c, s, what, &os, err)))
        return rc;
    fm_view ov;
    if ((rc = fm_open(c, &s->ofm, g.OH, g.OW, g.OD, true, "OFM", &ov, err)))
        return rc;
    uint32_t C = g.ID;
    int32_t *P;
    if ((rc = build_padded(c, s, &g, C, 0, false, (void **)&P, err)))
        return rc;
    int64_t *acc = buf_get(c, SIM_BUF_ACC, (size_t)C * 2, sizeof *acc, err);
    if (!acc) return err->code;
    int32_t *outv = (int32_t *)(acc + C);
    bool global = s->ofm.scale_mode == EU_OFM_SCALE_GLOBAL;
    /* AVERAGE (docs/ethos-u.md 5.5.1): with padding, the mean over the
     * valid taps in either scale mode, the OFM scale left out; without,
     * the scaled window sum in global mode and the mean in per-channel
     * mode. The mean rounds half away from zero whatever the round mode. */
    bool padded = g.pt || g.pl || g.pb || g.pr;
    size_t row = (size_t)g.PW * C;
    for (uint32_t oy = 0; oy < g.OH; oy++) {
        /* the valid (non-padding) taps form the rows ky0..ky1-1 and columns
         * kx0..kx1-1 of the window; ZEROS-upscaling holes are taps of value
         * zero point (docs/ethos-u.md 5.2) and count as valid */
        uint32_t ky0, ky1;
        valid_taps(oy * g.sy, g.dy, g.kh, g.pt, g.UH, &ky0, &ky1);
        uint32_t vy = ky1 - ky0;
        for (uint32_t ox = 0; ox < g.OW; ox++) {
            uint32_t kx0, kx1;
            valid_taps(ox * g.sx, g.dx, g.kw, g.pl, g.UW, &kx0, &kx1);
            uint32_t vx = kx1 - kx0;
            if (mode == EU_POOL_MAX) {
                /* padding taps are skipped; a window entirely in padding gives 0 */
                if (!vx || !vy)
                    for (uint32_t ch = 0; ch < C; ch++) acc[ch] = 0;
                else
                    for (uint32_t ch = 0; ch < C; ch++) acc[ch] = INT64_MIN;
                for (uint32_t ky = ky0; ky < ky1; ky++)
                    for (uint32_t kx = kx0; kx < kx1; kx++) {
                        const int32_t *src = P + (size_t)(oy * g.sy + ky * g.dy) * row +
                                             (size_t)(ox * g.sx + kx * g.dx) * C;
                        for (uint32_t ch = 0; ch < C; ch++)
                            if (src[ch] > acc[ch]) acc[ch] = src[ch];
                    }
            } else {
                for (uint32_t ch = 0; ch < C; ch++) acc[ch] = 0;
                for (uint32_t ky = 0; ky < g.kh; ky++)
                    for (uint32_t kx = 0; kx < g.kw; kx++) {
                        const int32_t *src = P + (size_t)(oy * g.sy + ky * g.dy) * row +
                                             (size_t)(ox * g.sx + kx * g.dx) * C;
                        for (uint32_t ch = 0; ch < C; ch++)
                            acc[ch] += src[ch];
                    }
            }
            if (mode == EU_POOL_REDUCE_SUM) {
                int64_t sum = 0;
                for (uint32_t ch = 0; ch < C; ch++) sum += acc[ch];
                int64_t v = global ? rescale(sum, s->ofm_scale, s->ofm_shift, os.round) : sum;
                outv[0] = ostage_apply(&os, v);
            } else {
                int64_t n = (int64_t)vx * vy;
                for (uint32_t ch = 0; ch < C; ch++) {
                    int64_t a = acc[ch];
                    int64_t v;
                    if (mode == EU_POOL_AVERAGE && (padded || !global))
                        v = div_round(a, n ? n : 1);
                    else if (global)
                        v = rescale(a, s->ofm_scale, s->ofm_shift, os.round);
                    else
                        v = a;
                    outv[ch] = ostage_apply(&os, v);
                }
            }
            fm_put(&ov, oy, ox, g.OD, outv);
        }
    }
    return NPUC_OK;
}

/* ------------------------------------------------------ elementwise */

static int exec_elementwise(sim_ctx *c, const sim_state *s, unsigned mode, npuc_err *err)
{
    char what[48];
    snprintf(what, sizeof what, "NPU_OP_ELEMENTWISE %s", mode_name(EU_OP_ELEMENTWISE, mode));
    if (mode > EU_EW_SHL)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: mode %u out of range 0-%d", what,
                    mode, EU_EW_SHL);
    geom g;
    int rc = geom_init(c, s, true, what, &g, err);
    if (rc) return rc;
    bool binary = eu_ew_is_binary(mode);
    bool scalar = binary && s->ifm2_scalar;
    bool ifm2_tensor = binary && !scalar;
    uint32_t H = g.OH, W = g.OW, C = g.OD;
    if ((rc = check_work(c, what, 3.0 * H * W * C, err)))
        return rc;
    if (s->ifm.depth && s->ifm.depth != C)
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT,
                    "%s: IFM depth %u differs from OFM depth %u", what, s->ifm.depth, C);
    ostage os;
    if ((rc = ostage_init(c, s, what, &os, err)))
        return rc;
    fm_view iv, i2v, ov;
    if ((rc = fm_open(c, &s->ifm, H, W, C, false, "IFM", &iv, err)))
        return rc;
    uint32_t H2 = s->bcast_h ? 1 : H, W2 = s->bcast_w ? 1 : W, C2 = s->bcast_c ? 1 : C;
    if (ifm2_tensor) {
        if (s->ifm2.bits != 8 && s->ifm2.bits != 16 && s->ifm2.bits != 32)
            return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s: IFM2 precision not programmed",
                        what);
        if ((rc = fm_open(c, &s->ifm2, H2, W2, C2, false, "IFM2", &i2v, err)))
            return rc;
    }
    if ((rc = fm_open(c, &s->ofm, H, W, C, true, "OFM", &ov, err)))
        return rc;
    size_t n = (size_t)H * W * C, n2 = ifm2_tensor ? (size_t)H2 * W2 * C2 : 0;
    int32_t *A = buf_get(c, SIM_BUF_IN, n, sizeof *A, err);
    if (!A) return err->code;
    fm_gather(&iv, H, W, C, sim_fm_zero_point(&s->ifm), A, NULL, (size_t)W * C, C);
    int32_t *B = NULL;
    int32_t bscalar = 0;
    if (ifm2_tensor) {
        B = buf_get(c, SIM_BUF_IN2, n2, sizeof *B, err);
        if (!B) return err->code;
        fm_gather(&i2v, H2, W2, C2, sim_fm_zero_point(&s->ifm2), B, NULL, (size_t)W2 * C2, C2);
    } else if (scalar) {
        int32_t raw = s->ifm2.is_signed ? (int32_t)(int16_t)s->ifm2_scalar_raw
                                        : (int32_t)s->ifm2_scalar_raw;
        bscalar = raw - sim_fm_zero_point(&s->ifm2);
    }
    int32_t *outv = buf_get(c, SIM_BUF_ACC, C, sizeof *outv, err);
    if (!outv) return err->code;
    bool global = s->ofm.scale_mode == EU_OFM_SCALE_GLOBAL;
    uint32_t om = global ? s->ofm_scale : 1;
    unsigned osh = global ? s->ofm_shift : 0;
    bool wide = s->ifm.bits == 32;
    if (wide)
        om = 1;   /* 32-bit operations: only the shift of OFM_SCALE applies */
    unsigned k = s->ifm.bits == 16 ? 15 : 20;
    unsigned smode = s->ifm.scale_mode;
    bool swap = s->ifm2_first;
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const int32_t *ar = A + ((size_t)y * W + x) * C;
            const int32_t *br = ifm2_tensor
                ? B + ((size_t)(s->bcast_h ? 0 : y) * W2 + (s->bcast_w ? 0 : x)) * C2 : NULL;
            for (uint32_t ch = 0; ch < C; ch++) {
                int64_t a = ar[ch];
                int64_t b = binary ? (br ? br[s->bcast_c ? 0 : ch] : bscalar) : 0;
                if (swap) { int64_t t = a; a = b; b = t; }
                int64_t v;
                switch (mode) {
                case EU_EW_MUL:
                    v = rescale(a * b, om, osh, os.round);
                    break;
                case EU_EW_ADD: case EU_EW_SUB: {
                    int64_t A2 = a, B2 = b;
                    if (!wide) {
                        if (smode == EU_IFM_SCALE_OPA_32) {
                            A2 = rescale(a * ((int64_t)1 << k), s->opa_scale, s->opa_shift + k, 0);
                            B2 = b * ((int64_t)1 << (k - 1));
                        } else if (smode == EU_IFM_SCALE_OPB_32) {
                            A2 = a * ((int64_t)1 << (k - 1));
                            B2 = rescale(b * ((int64_t)1 << k), s->opa_scale, s->opa_shift + k, 0);
                        } else {
                            A2 = a * (int64_t)(s->opa_scale & 0xFFFF);
                            B2 = b * (int64_t)(s->opb_scale & 0xFFFF);
                        }
                    }
                    v = rescale(mode == EU_EW_ADD ? A2 + B2 : A2 - B2, om, osh, os.round);
                    break;
                }
                case EU_EW_MIN: v = rescale(a < b ? a : b, om, osh, os.round); break;
                case EU_EW_MAX: v = rescale(a > b ? a : b, om, osh, os.round); break;
                case EU_EW_LRELU: v = a >= 0 ? a : rescale(a, om, osh, os.round); break;
                case EU_EW_ABS: v = rescale(a < 0 ? -a : a, om, osh, os.round); break;
                case EU_EW_CLZ: {
                    uint32_t u = (uint32_t)a;
                    v = u ? __builtin_clz(u) : 32;
                    break;
                }
                case EU_EW_SHR: {   /* with the OFM rounding */
                    int64_t sh = b < 0 ? 0 : b > 63 ? 63 : b;
                    v = rescale(a, 1, (unsigned)sh, os.round);
                    v = rescale(v, om, osh, os.round);
                    break;
                }
                default: {  /* EU_EW_SHL */
                    int64_t sh = b < 0 ? 0 : b > 32 ? 32 : b;
                    v = sim_shl_sat(a, (unsigned)sh);
                    v = rescale(v, om, osh, os.round);
                    break;
                }
                }
                outv[ch] = ostage_apply(&os, v);
            }
            fm_put(&ov, y, x, C, outv);
        }
    }
    return NPUC_OK;
}

/* -------------------------------------------------------------- DMA */

static int exec_dma(sim_ctx *c, const sim_state *s, npuc_err *err)
{
    const sim_dma *d = &s->dma;
    const char *what = "NPU_OP_DMA_START";
    uint64_t rows = 1, planes = 1;
    unsigned mode = d->src_stride_mode > d->dst_stride_mode ? d->src_stride_mode
                                                             : d->dst_stride_mode;
    if (mode >= EU_DMA_2D) rows = d->size0 ? d->size0 : 1;
    if (mode >= EU_DMA_3D) planes = d->size1 ? d->size1 : 1;
    uint64_t len = d->len, total = len * rows * planes;
    if (!len)
        return NPUC_OK;
    /* extent of each side */
    uint64_t src_span = d->src_stride_mode == EU_DMA_1D ? total
                        : (planes - 1) * d->skip1 + (rows - 1) * d->skip0 + len;
    uint64_t dst_span = d->dst_stride_mode == EU_DMA_1D ? total
                        : (planes - 1) * d->skip1 + (rows - 1) * d->skip0 + len;
    uint8_t *src, *dst;
    int rc;
    if (d->src_internal) {
        if (d->src > c->shram_size || src_span > c->shram_size - d->src)
            return fail(c, SIM_FAULT_BUS, err, NPUC_E_RUNTIME,
                        "%s: reads %llu bytes at SHRAM 0x%llx, past the %zu-byte SHRAM", what,
                        (unsigned long long)src_span, (unsigned long long)d->src, c->shram_size);
        src = c->shram + d->src;
    } else if ((rc = bus_map(c, d->src_region, d->src, src_span, false, "DMA source", &src, err))) {
        return npuc_err_prefix(err, "%s", what), rc;
    }
    if (d->dst_internal) {
        if (d->dst > c->shram_size || dst_span > c->shram_size - d->dst)
            return fail(c, SIM_FAULT_BUS, err, NPUC_E_RUNTIME,
                        "%s: writes %llu bytes at SHRAM 0x%llx, past the %zu-byte SHRAM", what,
                        (unsigned long long)dst_span, (unsigned long long)d->dst, c->shram_size);
        dst = c->shram + d->dst;
    } else if ((rc = bus_map(c, d->dst_region, d->dst, dst_span, true, "DMA destination", &dst,
                             err))) {
        return npuc_err_prefix(err, "%s", what), rc;
    }
    if (mode == 0) {
        memmove(dst, src, (size_t)len);
        return NPUC_OK;
    }
    for (uint64_t p = 0; p < planes; p++)
        for (uint64_t r = 0; r < rows; r++) {
            uint64_t lin = (p * rows + r) * len;
            uint64_t so = d->src_stride_mode ? p * d->skip1 + r * d->skip0 : lin;
            uint64_t dof = d->dst_stride_mode ? p * d->skip1 + r * d->skip0 : lin;
            memmove(dst + dof, src + so, (size_t)len);
        }
    return NPUC_OK;
}

/* ------------------------------------------------------------ entry */

int sim_exec_op(sim_ctx *c, const sim_state *s, const sim_cmd *op, npuc_err *err)
{
    c->fault = SIM_FAULT_NONE;
    if (op->code == EU_OP_DMA_START)
        return exec_dma(c, s, err);
    int rc = check_common(c, s, op->name, err);
    if (rc) return rc;
    switch (op->code) {
    case EU_OP_CONV:
    case EU_OP_DEPTHWISE:
        if ((rc = check_shram(c, s, false, false, op->name, err)))
            return rc;
        return exec_conv(c, s, op->code == EU_OP_DEPTHWISE, err);
    case EU_OP_POOL:
        if ((rc = check_shram(c, s, false, false, op->name, err)))
            return rc;
        return exec_pool(c, s, (unsigned)eu_unpack(op->code, EU_F_VALUE, op->operand), err);
    case EU_OP_ELEMENTWISE: {
        unsigned mode = (unsigned)eu_unpack(op->code, EU_F_VALUE, op->operand);
        bool ifm2_tensor = eu_ew_is_binary(mode) && !s->ifm2_scalar;
        if ((rc = check_shram(c, s, true, ifm2_tensor, op->name, err)))
            return rc;
        return exec_elementwise(c, s, mode, err);
    }
    default:
        return fail(c, SIM_FAULT_CMD, err, NPUC_E_FORMAT, "%s is not an executable operation",
                    op->name ? op->name : "command");
    }
}
