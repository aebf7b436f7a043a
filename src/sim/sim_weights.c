/* sim_weights: MLW weight-stream decoder, weight traversal order, scale/bias
 * records. Facts: docs/ethos-u.md sections 6.2, 6.3, 7. */
#include "sim/sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ bit reader */

typedef struct bitrd {
    const uint8_t *d;
    size_t nbits;
    size_t pos;
    size_t slice;       /* index of the slice being decoded (for messages) */
    size_t slice_bit;   /* bit where it starts */
} bitrd;

static int br_short(const bitrd *b, unsigned n, const char *field, npuc_err *err)
{
    return npuc_errf(err, NPUC_E_FORMAT,
                     "MLW stream bit %zu (byte %zu): truncated reading %s (%u bits, stream is %zu "
                     "bytes; slice %zu at bit %zu)", b->pos, b->pos >> 3, field, n, b->nbits / 8,
                     b->slice, b->slice_bit);
}

/* n (at most 32) bits, least significant first. Away from the stream's
 * end the 8 bytes from the current one hold them all (an offset of at most
 * 7 plus 32 bits): one load instead of a loop over the bits. */
static inline int br_get(bitrd *b, unsigned n, uint32_t *v, const char *field, npuc_err *err)
{
    if (n > b->nbits - b->pos) return br_short(b, n, field, err);
    size_t at = b->pos >> 3;
    uint32_t x = 0;
    if (at + 8 <= b->nbits >> 3) {
        const uint8_t *q = b->d + at;
        uint64_t w = (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 | (uint64_t)q[3] << 24 |
                     (uint64_t)q[4] << 32 | (uint64_t)q[5] << 40 | (uint64_t)q[6] << 48 |
                     (uint64_t)q[7] << 56;
        x = (uint32_t)((w >> (b->pos & 7)) & (((uint64_t)1 << n) - 1));
    } else {
        for (unsigned i = 0; i < n; i++) {
            size_t p = b->pos + i;
            x |= (uint32_t)((b->d[p >> 3] >> (p & 7)) & 1) << i;
        }
    }
    b->pos += n;
    *v = x;
    return NPUC_OK;
}

static int slice_err(const bitrd *b, npuc_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int slice_err(const bitrd *b, npuc_err *err, const char *fmt, ...)
{
    char why[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return npuc_errf(err, NPUC_E_FORMAT, "MLW stream bit %zu (byte %zu), slice %zu at bit %zu: %s",
                     b->pos, b->pos >> 3, b->slice, b->slice_bit, why);
}
#define SLICE_ERR(...) slice_err(&b, err, __VA_ARGS__)

/* Growable output. */
typedef struct obuf {
    int16_t *v;
    size_t n, cap, max;
} obuf;

static int ob_reserve(obuf *o, uint64_t extra, npuc_err *err)
{
    if (extra > o->max - o->n)
        return npuc_errf(err, NPUC_E_FORMAT, "MLW stream decodes to more than %zu weights", o->max);
    size_t need = o->n + (size_t)extra;
    if (need <= o->cap) return NPUC_OK;
    size_t cap = o->cap ? o->cap : 1024;
    while (cap < need) cap *= 2;
    int16_t *nv = realloc(o->v, cap * sizeof *nv);
    if (!nv) return npuc_errf(err, NPUC_E_NOMEM, "MLW decode: out of memory (%zu weights)", cap);
    o->v = nv;
    o->cap = cap;
    return NPUC_OK;
}

static unsigned popcount12(uint32_t x)
{
    unsigned c = 0;
    for (; x; x &= x - 1) c++;
    return c;
}

int sim_mlw_decode(const uint8_t *data, size_t size, size_t max_weights, int16_t **out,
                   sim_mlw_info *info, npuc_err *err)
{
    sim_mlw_info inf;
    memset(&inf, 0, sizeof inf);
    *out = NULL;
    if (size > SIZE_MAX / 8)
        return npuc_errf(err, NPUC_E_FORMAT, "MLW stream: %zu bytes is too large", size);
    bitrd b = {data, size * 8, 0, 0, 0};
    obuf o = {NULL, 0, 0, max_weights ? max_weights : ((size_t)1 << 24)};
    uint32_t *vals = malloc(32768 * sizeof *vals);       /* coded indices of one slice */
    uint32_t *runs = malloc((32768 + 1) * sizeof *runs); /* zero runs of one slice */
    uint16_t palette[32];
    unsigned palsize = 0, palbits = 0, dirofs = 0;
    bool need_newpal = true, prev_zrun = false;
    bool after_end = false;
    int rc;
    if (!vals || !runs) {
        free(vals);
        free(runs);
        return npuc_errf(err, NPUC_E_NOMEM, "MLW decode: out of memory");
    }
#define TRY(x) do { rc = (x); if (rc) goto fail; } while (0)

    for (;;) {
        if (b.pos == b.nbits) {
            if (after_end) break;
            rc = npuc_errf(err, NPUC_E_FORMAT,
                           "MLW stream bit %zu (byte %zu): stream ends without an end marker", b.pos,
                           b.pos >> 3);
            goto fail;
        }
        b.slice = inf.n_slices;
        b.slice_bit = b.pos;
        uint32_t zdiv = 0, slicelen = 0, wdiv = 0, wtrunc = 0, newpal = 0;
        TRY(br_get(&b, 3, &zdiv, "ZDIV", err));
        if (zdiv == 7) {
            /* end marker: skip to the byte boundary */
            if (inf.n_end_markers == 0) inf.end_byte = (b.pos + 7) >> 3;
            inf.n_end_markers++;
            b.pos = ((b.pos + 7) >> 3) << 3;
            if (b.pos > b.nbits) b.pos = b.nbits;
            need_newpal = true;
            after_end = true;
            continue;
        }
        after_end = false;
        if (zdiv == 4 || zdiv == 5) {
            rc = SLICE_ERR("invalid ZDIV %u (0-3, 6 or 7)", zdiv);
            goto fail;
        }
        TRY(br_get(&b, 15, &slicelen, "SLICELEN", err));
        TRY(br_get(&b, 3, &wdiv, "WDIV", err));
        TRY(br_get(&b, 1, &wtrunc, "WTRUNC", err));
        TRY(br_get(&b, 1, &newpal, "NEWPAL", err));
        bool zrun = zdiv != 6;
        if (wdiv == 6) {
            rc = SLICE_ERR("invalid WDIV 6 (0-5 or 7)");
            goto fail;
        }
        if (!newpal && need_newpal) {
            rc = SLICE_ERR("first slice of a section must have NEWPAL = 1");
            goto fail;
        }
        if (!newpal && zrun != prev_zrun) {
            rc = SLICE_ERR("zero-run mode changes without a new palette (NEWPAL = 0)");
            goto fail;
        }
        prev_zrun = zrun;
        if (newpal) {
            uint32_t x = 0;
            TRY(br_get(&b, 5, &x, "DIROFS", err));
            dirofs = x;
            TRY(br_get(&b, 5, &x, "PALSIZE", err));
            palsize = x ? x + 1 : 0;
            TRY(br_get(&b, 3, &x, "PALBITS", err));
            palbits = x + 2;
            for (unsigned i = 0; i < palsize; i++) {
                TRY(br_get(&b, palbits, &x, "PALETTE", err));
                palette[i] = (uint16_t)x;
            }
            need_newpal = false;
            inf.n_sections++;
        }
        bool unc = wdiv == 7;
        unsigned wk = wdiv; /* remainder bits of a value */
        if (unc) {
            if (palsize) {
                wk = 0;
                while ((1u << wk) < palsize) wk++;
            } else {
                wk = palbits;
            }
        }
        size_t n = (size_t)slicelen + 1;
        size_t zn = zrun ? n + (newpal ? 1 : 0) : 0;
        unsigned wchunk = (unc && wk > 5) ? 8 : 12;
        unsigned zchunk = zdiv < 3 ? 12 : 8;

        size_t wsym = 0, zsym = 0;        /* symbols whose unary part completed */
        size_t wval = 0, zval = 0;        /* values / runs fully decoded */
        uint32_t wcarry = 0, zcarry = 0;  /* unfinished unary sums */
        uint32_t wq[12], zq[12], pwq[12], pzq[12];
        unsigned wnq = 0, znq = 0, pwnq = 0, pznq = 0;
        bool pw_on = false, pz_on = false;
        for (;;) {
            long long bal = zrun ? (long long)wsym - (long long)zsym : 0;
            bool w_on = bal < 8 && wsym < n;
            bool z_on = zrun && bal >= 0 && zsym < zn;
            uint32_t u0 = 0, u1 = 0, zu = 0;
            if (w_on && !unc) TRY(br_get(&b, 12, &u0, "WUNARY0", err));
            if (z_on) {
                TRY(br_get(&b, zchunk, &zu, "ZUNARY", err));
                znq = 0;
                /* without branches on the bits (they do not predict):
                 * a 1 adds to the run's quotient, a 0 ends it */
                for (unsigned i = 0; i < zchunk; i++) {
                    uint32_t bit = (zu >> i) & 1;
                    if (bit && zcarry >= (1u << 26)) {
                        rc = SLICE_ERR("zero-run quotient too large");
                        goto fail;
                    }
                    zq[znq] = zcarry;
                    znq += bit ^ 1;
                    zcarry = (zcarry + 1) & (0u - bit);
                }
                zsym += znq;
            }
            if (w_on) {
                TRY(br_get(&b, popcount12(u0), &u1, "WUNARY1", err));
                wnq = 0;
                /* code 0 (bit 0), 1 or 2 (bit 1, then the next bit of
                 * u1); a code below 2 (or any, truncated) ends the value:
                 * without branches on the bits */
                for (unsigned i = 0; i < wchunk; i++) {
                    uint32_t bit = (u0 >> i) & 1;
                    uint32_t code = bit + (bit & u1);
                    u1 >>= bit;
                    wcarry += code;
                    if (wcarry > 31) {
                        rc = SLICE_ERR("weight quotient %u exceeds 31", wcarry);
                        goto fail;
                    }
                    uint32_t end = (code < 2) | (wtrunc != 0);
                    wq[wnq] = wcarry;
                    wnq += end;
                    wcarry &= end - 1;
                }
                wsym += wnq;
            }
            if (pw_on) {
                for (unsigned i = 0; i < pwnq && wval < n; i++) {
                    uint32_t r = 0;
                    TRY(br_get(&b, wk, &r, "WREMAIN", err));
                    vals[wval++] = (pwq[i] << wk) + r;
                }
            }
            if (pz_on) {
                for (unsigned i = 0; i < pznq && zval < zn; i++) {
                    uint32_t r = 0;
                    TRY(br_get(&b, zdiv, &r, "ZREMAIN", err));
                    runs[zval++] = (pzq[i] << zdiv) + r;
                }
            }
            pw_on = w_on;
            pz_on = z_on;
            pwnq = wnq;
            pznq = znq;
            memcpy(pwq, wq, sizeof wq);
            memcpy(pzq, zq, sizeof zq);
            if (!w_on && !z_on) break;
        }
        if (wval != n || zval != zn) {
            rc = SLICE_ERR("slice stalled: decoded %zu of %zu values and %zu of %zu zero runs", wval,
                           n, zval, zn);
            goto fail;
        }
        /* expand */
        uint64_t total = n;
        for (size_t i = 0; i < zn; i++) total += runs[i];
        TRY(ob_reserve(&o, total, err));
        size_t ri = 0;
        if (zrun && newpal)
            for (uint32_t k = runs[ri++]; k; k--) o.v[o.n++] = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t x = vals[i];
            uint32_t sm = x < palsize ? palette[x] : x - palsize + dirofs;
            if (sm >= 512) {
                rc = SLICE_ERR("value %zu: sign-magnitude code %u out of 9-bit range (index %u, "
                               "palette size %u, DIROFS %u)", i, sm, x, palsize, dirofs);
                goto fail;
            }
            o.v[o.n++] = (int16_t)((sm & 1) ? -(int)(sm >> 1) : (int)(sm >> 1));
            if (zrun)
                for (uint32_t k = runs[ri++]; k; k--) o.v[o.n++] = 0;
        }
        inf.n_slices++;
    }
#undef TRY
    inf.n_weights = o.n;
    *out = o.v;
    if (info) *info = inf;
    free(vals);
    free(runs);
    return NPUC_OK;
fail:
    free(o.v);
    free(vals);
    free(runs);
    return rc;
}

/* ------------------------------------------------------ traversal order */

int sim_wgeom_from_state(const sim_state *s, eu_variant variant, bool depthwise, sim_wgeom *g,
                         npuc_err *err)
{
    memset(g, 0, sizeof *g);
    g->ofm_depth = s->ofm.depth;
    g->ifm_depth = s->ifm.depth;
    g->dil_x = s->dilation_x ? s->dilation_x : 1;
    g->dil_y = s->dilation_y ? s->dilation_y : 1;
    if (!s->kernel_width || !s->kernel_height || !g->ofm_depth || !g->ifm_depth || !s->blk_depth)
        return npuc_errf(err, NPUC_E_INVALID,
                         "weight geometry: kernel, OFM/IFM depth or block depth not set");
    if ((s->kernel_width - 1) % g->dil_x || (s->kernel_height - 1) % g->dil_y)
        return npuc_errf(err, NPUC_E_INVALID,
                         "weight geometry: kernel extent %ux%u not a multiple of dilation %ux%u",
                         s->kernel_width, s->kernel_height, g->dil_x, g->dil_y);
    g->kw = (s->kernel_width - 1) / g->dil_x + 1;
    g->kh = (s->kernel_height - 1) / g->dil_y + 1;
    g->block_depth = s->blk_depth;
    g->ifm_bits = s->ifm.bits ? s->ifm.bits : 8;
    g->ofm_ublock = (uint8_t)eu_variant_ofm_ublock_depth(variant);
    g->part_kernel_first = s->part_kernel_first;
    g->depthwise = depthwise;
    if (eu_variant_get(variant)->cores > 1 && s->parallel_mode)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "weight geometry: dual-core split not supported");
    return NPUC_OK;
}

/* The traversal's constants (docs/weights.md): output and input channels,
 * micro-block depths, the IFM block, the sub-kernel's height and width
 * (dilation), the OFM block depth, part-kernel-first and depthwise. */
typedef struct trav {
    uint32_t O, I, ifm_ub, ofm_ub, ifm_blk, dh, dwid, B;
    bool pkf, dw;
} trav;

static trav trav_of(const sim_wgeom *g)
{
    trav t;
    t.O = g->ofm_depth;
    t.I = g->depthwise ? 1 : g->ifm_depth;
    t.ifm_ub = 8;
    t.ofm_ub = g->ofm_ublock ? g->ofm_ublock : 8;
    t.pkf = g->part_kernel_first && !g->depthwise;
    t.dw = g->depthwise;
    t.ifm_blk = (t.pkf || g->ifm_bits == 16) ? 16 : 32;
    t.dh = 8 / (g->dil_y ? g->dil_y : 1);
    t.dwid = 8 / (g->dil_x ? g->dil_x : 1);
    t.B = g->block_depth ? g->block_depth : t.O;
    return t;
}

/* Elements a sub-kernel of `area` taps takes in the stream: padded to a
 * multiple of 4 (2 for 16-bit IFMs) part-kernel-first, of 4 depthwise. */
static uint32_t trav_elems(const trav *t, const sim_wgeom *g, uint32_t area)
{
    if (t->pkf) {
        uint32_t r = g->ifm_bits == 16 ? 2 : 4;
        return (area + r - 1) / r * r;
    }
    return t->dw ? (area + 3) / 4 * 4 : area;
}

/* The traversal's loops as the hardware walks them (sim_weight_traverse
 * counts the positions), filling each position's index into map (its
 * first map_size positions): worked out once per kernel element and
 * output channel. */
static size_t traverse_fill(const sim_wgeom *g, int64_t *map, size_t map_size)
{
    const trav t = trav_of(g);
    const uint32_t O = t.O, I = t.I, ifm_ub = t.ifm_ub, ofm_ub = t.ofm_ub, ifm_blk = t.ifm_blk;
    const uint32_t dh = t.dh, dwid = t.dwid, B = t.B;
    const bool pkf = t.pkf, dw = t.dw;
    const uint32_t per_i = dw ? 1 : ifm_ub;   /* positions per (element, output channel, IFM micro-block) */
    size_t p = 0;
    for (uint32_t ob = 0; ob < O; ob += B) {
        uint32_t bd = B < O - ob ? B : O - ob;
        for (uint32_t ib = 0; ib < (dw ? 1 : I); ib += ifm_blk) {
            uint32_t id = dw ? ifm_ub : pkf ? (ifm_blk < I - ib ? ifm_blk : I - ib) : ifm_blk;
            for (uint32_t sy = 0; sy < g->kh; sy += dh) {
                uint32_t sh = dh < g->kh - sy ? dh : g->kh - sy;
                for (uint32_t sx = 0; sx < g->kw; sx += dwid) {
                    uint32_t sw = dwid < g->kw - sx ? dwid : g->kw - sx;
                    uint32_t E = trav_elems(&t, g, sw * sh);
                    for (uint32_t io = 0; io < (pkf ? id : 1); io += ifm_ub)
                        for (uint32_t ou = 0; ou < bd; ou += ofm_ub)
                            for (uint32_t e = 0; e < E; e++) {
                                uint32_t kx = e % sw, ky = e / sw;
                                /* the kernel element's offset in a channel's weights */
                                uint64_t kel = ((uint64_t)(sy + ky) * g->kw + sx + kx) * I;
                                for (uint32_t ii = 0; ii < (pkf ? 1 : id); ii += ifm_ub) {
                                    uint32_t i0 = ib + io + ii;
                                    /* the IFM channels of this micro-block there are */
                                    uint32_t ni = dw ? 1 : i0 < I ? (I - i0 < ifm_ub ? I - i0 : ifm_ub) : 0;
                                    for (uint32_t oz = 0; oz < ofm_ub; oz++) {
                                        uint32_t o = ob + ou + oz;
                                        uint32_t k = 0;
                                        if (p + per_i > map_size) {
                                            /* past the end of a short map */
                                            for (; k < per_i && p + k < map_size; k++)
                                                map[p + k] = o < O && ky < sh && k < ni
                                                                 ? (int64_t)((uint64_t)o * g->kh * g->kw * I + kel + i0) + k
                                                                 : -1;
                                            p += per_i;
                                            continue;
                                        }
                                        if (o < O && ky < sh) {
                                            int64_t at = (int64_t)((uint64_t)o * g->kh * g->kw * I + kel + i0);
                                            for (; k < ni; k++) map[p + k] = at + k;
                                        }
                                        for (; k < per_i; k++) map[p + k] = -1;
                                        p += per_i;
                                    }
                                }
                            }
                }
            }
        }
    }
    return p;
}

/* The traversal's loops (sim_weight_traverse) as the hardware walks them,
 * the number of positions counted per sub-kernel block and, with a map
 * long enough for them all, each position's index worked out once per
 * kernel element and output channel: the compiler walks every weight
 * stream it encodes (megabytes of positions per compile). */
size_t sim_weight_traverse(const sim_wgeom *g, int64_t *map, size_t map_size)
{
    const trav t = trav_of(g);
    const uint32_t O = t.O, I = t.I, ifm_ub = t.ifm_ub, ofm_ub = t.ofm_ub, ifm_blk = t.ifm_blk;
    const uint32_t dh = t.dh, dwid = t.dwid, B = t.B;
    const bool pkf = t.pkf, dw = t.dw;
    const uint32_t per_i = dw ? 1 : ifm_ub;   /* positions per (element, output channel, IFM micro-block) */
    size_t total = 0;
    for (uint32_t ob = 0; ob < O; ob += B) {
        uint32_t bd = B < O - ob ? B : O - ob;
        size_t n_ou = (bd + ofm_ub - 1) / ofm_ub;
        for (uint32_t ib = 0; ib < (dw ? 1 : I); ib += ifm_blk) {
            uint32_t id = dw ? ifm_ub : pkf ? (ifm_blk < I - ib ? ifm_blk : I - ib) : ifm_blk;
            size_t n_iu = (id + ifm_ub - 1) / ifm_ub;   /* io's (pkf) or ii's steps */
            for (uint32_t sy = 0; sy < g->kh; sy += dh) {
                uint32_t sh = dh < g->kh - sy ? dh : g->kh - sy;
                for (uint32_t sx = 0; sx < g->kw; sx += dwid) {
                    uint32_t sw = dwid < g->kw - sx ? dwid : g->kw - sx;
                    uint32_t E = trav_elems(&t, g, sw * sh);
                    total += n_iu * n_ou * E * ofm_ub * per_i;
                }
            }
        }
    }
    if (!map) return total;
    return traverse_fill(g, map, map_size);
}

/* traverse_fill's loops with vals, the positions of one IFM micro-block
 * of ofm_ub output channels at a time: the channels there are (o < O)
 * copied from a pointer that steps by a channel's weights, the rest zeros
 * (the compiler gathers every weight stream it encodes). The map
 * (traverse_fill) is the reference the tests hold it to. */
size_t sim_weight_gather(const sim_wgeom *g, const int16_t *w, int16_t *vals)
{
    const trav t = trav_of(g);
    const uint32_t O = t.O, I = t.I, ifm_ub = t.ifm_ub, ofm_ub = t.ofm_ub, ifm_blk = t.ifm_blk;
    const uint32_t dh = t.dh, dwid = t.dwid, B = t.B;
    const bool pkf = t.pkf, dw = t.dw;
    const uint32_t per_i = dw ? 1 : ifm_ub;
    const size_t ostride = (size_t)g->kh * g->kw * I;   /* one output channel's weights */
    int16_t *v = vals;
    for (uint32_t ob = 0; ob < O; ob += B) {
        uint32_t bd = B < O - ob ? B : O - ob;
        for (uint32_t ib = 0; ib < (dw ? 1 : I); ib += ifm_blk) {
            uint32_t id = dw ? ifm_ub : pkf ? (ifm_blk < I - ib ? ifm_blk : I - ib) : ifm_blk;
            for (uint32_t sy = 0; sy < g->kh; sy += dh) {
                uint32_t sh = dh < g->kh - sy ? dh : g->kh - sy;
                for (uint32_t sx = 0; sx < g->kw; sx += dwid) {
                    uint32_t sw = dwid < g->kw - sx ? dwid : g->kw - sx;
                    uint32_t E = trav_elems(&t, g, sw * sh);
                    for (uint32_t io = 0; io < (pkf ? id : 1); io += ifm_ub)
                        for (uint32_t ou = 0; ou < bd; ou += ofm_ub) {
                            const uint32_t o0 = ob + ou;
                            /* the micro-block's channels there are (past
                             * the block's end too, as traverse_fill) */
                            const uint32_t no = o0 < O ? (O - o0 < ofm_ub ? O - o0 : ofm_ub) : 0;
                            for (uint32_t e = 0; e < E; e++) {
                                uint32_t kx = e % sw, ky = e / sw;
                                const uint32_t nv = ky < sh ? no : 0;
                                const size_t kel = ((size_t)(sy + ky) * g->kw + sx + kx) * I;
                                for (uint32_t ii = 0; ii < (pkf ? 1 : id); ii += ifm_ub) {
                                    uint32_t i0 = ib + io + ii;
                                    uint32_t ni = dw ? 1 : i0 < I ? (I - i0 < ifm_ub ? I - i0 : ifm_ub) : 0;
                                    const int16_t *src = nv ? w + (size_t)o0 * ostride + kel + i0 : w;
                                    uint32_t oz = 0;
                                    if (per_i == 8 && ni == 8) {
                                        for (; oz < nv; oz++, src += ostride, v += 8) memcpy(v, src, 8 * sizeof *v);
                                    } else if (per_i == 1) {
                                        for (; oz < nv; oz++, src += ostride) *v++ = *src;
                                    } else {
                                        for (; oz < nv; oz++, src += ostride, v += per_i) {
                                            uint32_t k = 0;
                                            for (; k < ni; k++) v[k] = src[k];
                                            for (; k < per_i; k++) v[k] = 0;
                                        }
                                    }
                                    for (size_t z = (size_t)(ofm_ub - oz) * per_i; z; z--) *v++ = 0;
                                }
                            }
                        }
                }
            }
        }
    }
    return (size_t)(v - vals);
}

/* ------------------------------------------------------- scale records */

int sim_scale_parse(const uint8_t *data, size_t size, size_t n_channels, sim_scale_rec *out,
                    npuc_err *err)
{
    size_t need;
    if (!npuc_mul_size(n_channels, 10, &need) || need > size)
        return npuc_errf(err, NPUC_E_FORMAT,
                         "scale stream: %zu channels need %zu bytes, stream has %zu", n_channels,
                         n_channels * 10, size);
    for (size_t c = 0; c < n_channels; c++) {
        const uint8_t *r = data + c * 10;
        uint64_t b = 0;
        for (int k = 4; k >= 0; k--) b = b << 8 | r[k];
        int64_t bias = (b & ((uint64_t)1 << 39)) ? (int64_t)(b | ~(((uint64_t)1 << 40) - 1))
                                                 : (int64_t)b;
        if (r[9] & 0xC0)
            return npuc_errf(err, NPUC_E_FORMAT,
                             "scale stream byte %zu (channel %zu): shift byte 0x%02x has reserved bits "
                             "7:6 set", c * 10 + 9, c, r[9]);
        out[c].bias = bias;
        out[c].scale = (uint32_t)r[5] | (uint32_t)r[6] << 8 | (uint32_t)r[7] << 16 |
                       (uint32_t)r[8] << 24;
        out[c].shift = r[9];
    }
    for (size_t k = need; k < size; k++)
        if (data[k])
            return npuc_errf(err, NPUC_E_FORMAT,
                             "scale stream byte %zu: padding after %zu records is 0x%02x, not 0", k,
                             n_channels, data[k]);
    return NPUC_OK;
}
