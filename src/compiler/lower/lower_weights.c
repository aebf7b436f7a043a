/* lower_weights: the constants of a CONV / DEPTHWISE eu_op. Per output
 * channel a scale record (TFLite's multiplier mapped onto the NPU's output
 * stage, docs/ethos-u.md 5.6, and the 40-bit bias), the weights in the order the
 * weight encoder (ethosu/eu_weights.c) streams them, both appended to the
 * epoch's flash; with --optimise performance an arena copy filled by DMA,
 * and the op split into output-channel chunks whose copies overlap the ops
 * before them. On a U65-512 each chunk holds the two cores' parts. */
#include "lower.h"
#include "compiler/ethosu/eu_weights.h"
#include "kernels/k_common.h"

#include <stdlib.h>
#include <string.h>


static int16_t wget(const wop *p, uint32_t o, uint32_t ky, uint32_t kx, uint32_t i)
{
    size_t idx;
    if (p->layout == 0)
        idx = (((size_t)o * p->kh + ky) * p->kw + kx) * p->I + i;
    else if (p->layout == 3)   /* OHWI turned by 180 degrees (transpose conv) */
        idx = (((size_t)o * p->kh + (p->kh - 1 - ky)) * p->kw + (p->kw - 1 - kx)) * p->I + i;
    else if (p->layout == 4) { /* 1HWO depthwise, multiplier O/I, as a dense conv */
        if (i != o / (p->O / p->I)) return 0;
        idx = ((size_t)ky * p->kw + kx) * p->O + o;
    }
    else
        idx = ((size_t)ky * p->kw + kx) * p->O + o;
    return (int16_t)(p->wdata[idx] - p->wzp);
}

/* Whether weights are worth copying from the params pool before use: when
 * the params memory is slower than the memory the copy goes to (the fast
 * scratch when the system has one apart from the arena, else the arena) and
 * the goal is performance (the copy overlaps the previous op). */
bool cc_buffer_weights(const lower_ctx *c)
{
    const cc_options *o = &c->m->opt;
    if (o->optimise != CC_OPT_PERFORMANCE || o->stream_weights) return false;
    const target_desc *sys = &o->sys;
    const sim_system *s = &sys->sim;
    int dst = sys->fast_pool >= 0 && sys->fast_pool != sys->act_pool ? 2 : 1;
    const sim_memory *pm = &s->axi[s->region_port[0] & 1], *am = &s->axi[s->region_port[dst] & 1];
    double pbw = pm->clock_scale * pm->width_bytes, abw = am->clock_scale * am->width_bytes;
    return pbw < abw;
}

bool cc_weights_chunked(const lower_ctx *c, const wop *p)
{
    size_t per_ch = (size_t)p->kh * p->kw * (p->depthwise ? 1 : p->I);
    size_t chunk_bytes = c->m->opt.chunk_bytes ? c->m->opt.chunk_bytes : CC_CHUNK_DEFAULT;
    return cc_buffer_weights(c) && !p->depthwise && per_ch * p->O > chunk_bytes;
}

/* The weights of a part: w, which are weights [at, ...) of the cache's
 * source src when src >= 0 (the cache then keys them by that range). */
typedef struct wpart {
    const int16_t *w;
    int32_t src;
    size_t at;
} wpart;

static int64_t stream_copy(lower_ctx *c, int32_t stream, size_t len);
static void stream_stored(lower_ctx *c, int32_t stream, uint64_t off, size_t len);

/* Encodes the scale records and weight stream of `n` output channels (w:
 * their weights [n][kh][kw][I], recs: their records) with OFM block depth
 * `bd`, appended to the epoch's constants: scales at *s_off, weights at
 * *w_off. */
static int encode_part(lower_ctx *c, const eu_op *o, const wop *p, wpart w,
                       const sim_scale_rec *recs, uint32_t n, uint32_t bd, uint64_t *s_off,
                       uint64_t *s_len, uint64_t *w_off, uint64_t *w_len, npuc_err *err)
{
    sim_wgeom wg;
    memset(&wg, 0, sizeof wg);
    wg.ofm_depth = n;
    wg.ifm_depth = p->depthwise ? 1 : p->I;
    wg.kh = p->kh;
    wg.kw = p->kw;
    wg.block_depth = bd;
    wg.dil_x = o->dil_x;
    wg.dil_y = o->dil_y;
    wg.ifm_bits = o->ifm.bits;
    wg.ofm_ublock = (uint8_t)eu_variant_ofm_ublock_depth(c->m->opt.sys.variant);
    wg.part_kernel_first = o->pkf;
    wg.depthwise = p->depthwise;
    const uint8_t *wbuf = NULL;
    uint8_t *wown = NULL, *at;
    size_t wlen = 0, slen = eu_scale_stream_size(n);
    size_t nw = (size_t)n * p->kh * p->kw * wg.ifm_depth;
    int32_t stream = -1;
    int rc = w.src >= 0 ? eu_wcache_stream_src(c->m->wcache, &wg, w.src, w.at, nw, &stream, &wlen, err)
                        : eu_encode_weights_cached(c->m->wcache, &wg, w.w, nw, &wbuf, &wlen, &wown, err);
    if (rc) return rc;
    /* the scale records, then the weights, written in place (records
     * that fail leave the flash as it was) */
    uint64_t size0 = c->e->flash_size;
    if (!(at = cc_flash_room(c->e, slen, s_off, err))) goto fail;
    if ((rc = eu_encode_scales(recs, n, at, err))) {
        c->e->flash_size = size0;
        goto done;
    }
    *s_len = slen;
    int64_t copy = stream >= 0 ? stream_copy(c, stream, wlen) : -1;
    if (copy >= 0) {
        /* a repeat: held once */
        if (cc_flash_alias_add(c->e, wlen, (uint64_t)copy, w_off, err)) goto fail;
    } else {
        if (!(at = cc_flash_room(c->e, wlen, w_off, err))) goto fail;
        if (stream >= 0) {
            eu_wcache_copy(c->m->wcache, stream, at);
            stream_stored(c, stream, *w_off, wlen);
        } else {
            memcpy(at, wbuf, wlen);
        }
    }
    *w_len = wlen;
done:
    free(wown);
    return rc;
fail:
    rc = err->code;
    goto done;
}

/* U65-512 dual-core mode: core k takes channels 2j + k with block depth
 * (B + 1 - k) / 2, its part encoded after core 0's. */
static int encode_dual(lower_ctx *c, eu_op *o, const wop *p, const int16_t *w,
                       const sim_scale_rec *recs, uint32_t n, npuc_err *err)
{
    if (o->blk.d % 2)
        return npuc_errf(err, NPUC_E_INVALID, "internal: odd OFM block depth %u on a dual-core NPU", o->blk.d);
    size_t per_ch = (size_t)p->kh * p->kw * (p->depthwise ? 1 : p->I);
    int16_t *wk = malloc(sizeof *wk * per_ch * ((n + 1) / 2) + 1);
    sim_scale_rec *rk = malloc(sizeof *rk * ((n + 1) / 2) + 1);
    int rc = wk && rk ? NPUC_OK : npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t k = 0; k < 2 && !rc; k++) {
        uint32_t nk = (n + 1 - k) / 2;
        for (uint32_t j = 0; j < nk; j++) {
            memcpy(wk + (size_t)j * per_ch, w + (size_t)(2 * j + k) * per_ch, sizeof *wk * per_ch);
            rk[j] = recs[2 * j + k];
        }
        if (!nk) break;   /* one channel: core 1 has nothing */
        rc = encode_part(c, o, p, (wpart){wk, -1, 0}, rk, nk, (o->blk.d + 1 - k) / 2, k ? &o->s1_off : &o->s_off,
                         k ? &o->s1_len : &o->s_len, k ? &o->w1_off : &o->w_off,
                         k ? &o->w1_len : &o->w_len, err);
    }
    free(wk);
    free(rk);
    return rc;
}

/* The end of op o's constants in the epoch's flash (scales, weights, and
 * on a dual-core NPU core 1's scales and weights, stored in that order). */
static uint64_t consts_end(const eu_op *o)
{
    return o->s1_len ? o->w1_off + o->w1_len : o->w_off + o->w_len;
}

/* The epoch's ops with constants by a key of them (their lengths, where
 * the weights start, and their first and last bytes): share_consts looks
 * only at ops whose constants could be the same (an unrolled LSTM has a
 * thousand ops of one shape, of which a few dozen share). Each op is
 * indexed as share_consts leaves it: every op with constants passes
 * there once they are final, and nothing moves them after. */
struct cc_share_ix {
    int32_t epoch;            /* the epoch indexed (-1 none) */
    int32_t base;             /* its ops before this one are not indexed: scanned */
    bool broken;              /* out of memory: scans for the rest of the epoch */
    npuc_hindex ix;           /* entry i: op op[i] */
    int32_t *op, cap;
    /* per stream of the weight cache: where its bytes were last written
     * (epoch -1: nowhere yet), for stream_alias */
    struct stream_at { int32_t epoch; uint64_t off; } *at;
    int32_t n_at;
};

void cc_share_ix_free(struct cc_share_ix *s)
{
    if (!s) return;
    npuc_hindex_free(&s->ix);
    free(s->op);
    free(s->at);
    free(s);
}

static struct cc_share_ix *share_ix(lower_ctx *c)
{
    struct cc_share_ix *s = c->share;
    if (!s && (s = c->share = calloc(1, sizeof *s))) s->epoch = -1;
    return s;
}

/* ------------------------------------------------ aliases: repeats held once */

/* Weight streams of at least this many bytes that an epoch's flash holds
 * already are not stored again (stream_copy, cc_flash_alias_add): an
 * unrolled LSTM's steps share one weight tensor, each with scale records
 * of its own, and wrote it over and over (armkws_basic_lstm_l_int8: 19.6
 * MB of repeats per compile, folded to 0.6 MB by cc_share_flash). Below a
 * page a copy costs less than the bookkeeping. */
#define ALIAS_MIN 4096u

/* The index of the last alias of e starting at or before off, -1: none. */
static int32_t alias_at(const cc_epoch *e, uint64_t off)
{
    int32_t a = 0, b = e->n_alias - 1;
    if (b < 0 || e->alias[0].off > off) return -1;
    while (a < b) {
        int32_t mid = (a + b + 1) / 2;
        if (e->alias[mid].off <= off) a = mid;
        else b = mid - 1;
    }
    return a;
}

uint64_t cc_flash_seg(const cc_epoch *e, uint64_t off, uint64_t end, const uint8_t **p)
{
    if (off >= end) return 0;
    int32_t i = alias_at(e, off);
    if (i >= 0 && off < e->alias[i].off + e->alias[i].len) {
        const cc_flash_alias *a = &e->alias[i];
        uint64_t hi = a->off + a->len < end ? a->off + a->len : end;
        *p = e->flash + a->mem + (off - a->off);
        return hi - off;
    }
    /* past alias i: its length and those before it lower in memory */
    uint64_t hi = i + 1 < e->n_alias && e->alias[i + 1].off < end ? e->alias[i + 1].off : end;
    *p = e->flash + off - (i >= 0 ? e->alias[i].below + e->alias[i].len : 0);
    return hi - off;
}

const uint8_t *cc_flash_view(const cc_epoch *e, uint64_t lo, uint64_t hi)
{
    const uint8_t *p = NULL;
    return hi > lo && cc_flash_seg(e, lo, hi, &p) == hi - lo ? p : NULL;
}

/* n bytes of e's flash from off, into out. */
static void flash_read(const cc_epoch *e, uint64_t off, uint64_t n, uint8_t *out)
{
    const uint8_t *p;
    for (uint64_t k; n; off += k, out += k, n -= k) {
        k = cc_flash_seg(e, off, off + n, &p);
        memcpy(out, p, (size_t)k);
    }
}

/* Whether e's flash holds the same len bytes at a and at b. */
static bool flash_eq(const cc_epoch *e, uint64_t a, uint64_t b, uint64_t len)
{
    for (uint64_t done = 0; done < len;) {
        const uint8_t *pa, *pb;
        uint64_t ka = cc_flash_seg(e, a + done, a + len, &pa), kb = cc_flash_seg(e, b + done, b + len, &pb);
        uint64_t k = ka < kb ? ka : kb;
        if (pa != pb && memcmp(pa, pb, (size_t)k)) return false;
        done += k;
    }
    return true;
}

bool cc_flash_write_aliases(cc_epoch *e)
{
    if (!e->n_alias) return true;
    if (e->flash_size > e->flash_cap) {
        uint8_t *p = e->flash_size == (size_t)e->flash_size ? realloc(e->flash, (size_t)e->flash_size) : NULL;
        if (!p) return false;
        e->flash = p;
        e->flash_cap = e->flash_size;
    }
    /* the bytes after each alias to their offsets, the last first (each
     * moves up, past where the ones before it are), then each alias's from
     * its copy, in place by then */
    for (int32_t i = e->n_alias - 1; i >= 0; i--) {
        const cc_flash_alias *a = &e->alias[i];
        uint64_t lo = a->off + a->len, hi = i + 1 < e->n_alias ? e->alias[i + 1].off : e->flash_size;
        memmove(e->flash + lo, e->flash + lo - a->below - a->len, (size_t)(hi - lo));
    }
    for (int32_t i = 0; i < e->n_alias; i++)
        memcpy(e->flash + e->alias[i].off, e->flash + e->alias[i].src, (size_t)e->alias[i].len);
    e->n_alias = 0;
    return true;
}

/* Whether no alias of e overlaps [lo, lo + len). */
static bool outside_aliases(const cc_epoch *e, uint64_t lo, uint64_t len)
{
    int32_t i = alias_at(e, lo + len - 1);
    return i < 0 || e->alias[i].off + e->alias[i].len <= lo;
}

int cc_flash_alias_add(cc_epoch *e, uint64_t size, uint64_t src, uint64_t *off, npuc_err *err)
{
    uint64_t start = (e->flash_size + 15) & ~(uint64_t)15, len = (size + 15) & ~(uint64_t)15;
    const uint8_t *p;
    if (!len || src + len > start || !outside_aliases(e, src, len) || cc_flash_seg(e, src, src + len, &p) != len)
        return npuc_errf(err, NPUC_E_INVALID, "internal: alias of flash bytes [%llu, %llu) at %llu",
                         (unsigned long long)src, (unsigned long long)(src + len), (unsigned long long)start);
    uint64_t mem = (uint64_t)(p - e->flash);   /* p does not outlive a move of the memory */
    if (!cc_flash_mem(e, start, err)) return err->code;
    if (!cc_grow((void **)&e->alias, &e->cap_alias, e->n_alias, sizeof *e->alias, err)) return err->code;
    uint64_t below = cc_flash_alias_bytes(e);
    memset(e->flash + e->flash_size - below, 0, start - e->flash_size);
    e->alias[e->n_alias++] = (cc_flash_alias){start, len, src, mem, below};
    e->flash_size = start + len;
    *off = start;
    return NPUC_OK;
}

/* Weight stream `stream` of len bytes is to be at the end of the open
 * epoch's flash: the offset of a copy of it the flash holds (and where
 * that is outside every alias), -1 when the caller must store it (then
 * stream_stored records where). */
static int64_t stream_copy(lower_ctx *c, int32_t stream, size_t len)
{
    cc_epoch *e = c->e;
    struct cc_share_ix *s = share_ix(c);
    if (len < ALIAS_MIN || !s || stream >= s->n_at) return -1;
    const struct stream_at *a = &s->at[stream];
    uint64_t span = ((uint64_t)len + 15) & ~(uint64_t)15;
    const uint8_t *p;
    /* the copy recorded is checked: the flash may have been cut back
     * (cc_flash_rewind, always to where an item of it starts) and written
     * again since. Then, the flash having grown past the copy's end, new
     * items cover it from its first block on: that block is the stream's
     * own only where the same stream was stored at the same place (as an
     * alias there, cc_flash_seg does not read it in place: refused) */
    if (a->epoch != (int32_t)(e - c->m->epochs) || a->off + span > e->flash_size || !outside_aliases(e, a->off, span) ||
        cc_flash_seg(e, a->off, a->off + span, &p) != span || !eu_wcache_copy_ends(c->m->wcache, stream, p))
        return -1;
    return (int64_t)a->off;
}

/* Stream `stream` (len bytes) stored at flash offset off of the open epoch. */
static void stream_stored(lower_ctx *c, int32_t stream, uint64_t off, size_t len)
{
    struct cc_share_ix *s = share_ix(c);
    if (len < ALIAS_MIN || !s) return;
    if (stream >= s->n_at) {
        int32_t n = stream + 1 > 2 * s->n_at ? stream + 1 : 2 * s->n_at;
        struct stream_at *at = realloc(s->at, sizeof *at * (size_t)n);
        if (!at) return;
        for (int32_t k = s->n_at; k < n; k++) at[k] = (struct stream_at){-1, 0};
        s->at = at;
        s->n_at = n;
    }
    s->at[stream] = (struct stream_at){(int32_t)(c->e - c->m->epochs), off};
}

static uint64_t consts_key(const cc_epoch *e, const eu_op *p)
{
    uint64_t start = p->s_off, len = consts_end(p) - start, n = len < 64 ? len : 64;
    uint64_t f[7] = {p->s_len, p->w_len, p->s1_len, p->w1_len, p->w_off - start, len,
                     p->s1_len ? (p->s1_off - start) ^ (p->w1_off - start) << 32 : 0};
    uint8_t head[64], tail[64];
    flash_read(e, start, n, head);
    flash_read(e, start + len - n, n, tail);
    uint64_t h = npuc_hash(NPUC_HASH_INIT, f, sizeof f);
    h = npuc_hash(h, head, (size_t)n);
    return npuc_hash(h, tail, (size_t)n);
}

/* Whether op p's constants can stand for o's (start: o's, len bytes). */
static bool same_consts(const cc_epoch *e, const eu_op *p, const eu_op *o, uint64_t start, uint64_t len)
{
    if (p->kind != o->kind || p->dual != o->dual || p->s_len != o->s_len || p->w_len != o->w_len ||
        p->s1_len != o->s1_len || p->w1_len != o->w1_len || !p->w_len)
        return false;
    if (p->w_off - p->s_off != o->w_off - start || consts_end(p) - p->s_off != len || p->s_off + len > start)
        return false;
    if (o->s1_len && (p->s1_off - p->s_off != o->s1_off - start || p->w1_off - p->s_off != o->w1_off - start))
        return false;
    return flash_eq(e, p->s_off, start, len);
}

/* Shared constants: when an earlier op of the epoch has byte-identical
 * constants laid out alike (the same block depth, layout, scales and bias
 * give the same streams: an unrolled LSTM's gates share one weight tensor
 * over dozens of FULLY_CONNECTED ops), op o's copy, just appended at the
 * end of the flash, is dropped and o points at the earlier one (the first
 * such), which is returned (-1: none). The caller shares its SRAM copy
 * too (encode_chunk). */
static int32_t share_consts(lower_ctx *c, eu_op *o)
{
    cc_epoch *e = c->e;
    uint64_t start = o->s_off, end = consts_end(o), len = end - start;
    int32_t me = (int32_t)(o - e->ops), ei = (int32_t)(e - c->m->epochs);
    struct cc_share_ix *s = share_ix(c);
    if (s && s->epoch != ei) {
        npuc_hindex_free(&s->ix);
        s->epoch = ei;
        s->base = me;
        s->broken = false;
    }
    bool indexed = s && !s->broken;
    if (len && !((e->flash_size - end) & ~(uint64_t)15)) {   /* o's constants are the tail */
        int32_t first = -1;
        /* the ops not indexed, by a scan */
        for (int32_t j = 0; j < me && (!indexed || j < s->base) && first < 0; j++)
            if (same_consts(e, &e->ops[j], o, start, len)) first = j;
        /* then (none before them matched) the first indexed op with the same key */
        for (int32_t i = indexed && first < 0 ? npuc_hindex_first(&s->ix, consts_key(e, o)) : -1; i >= 0;
             i = npuc_hindex_next(&s->ix, i)) {
            int32_t j = s->op[i];
            if (j < me && (first < 0 || j < first) && same_consts(e, &e->ops[j], o, start, len)) first = j;
        }
        if (first >= 0) {
            const eu_op *p = &e->ops[first];
            cc_flash_rewind(e, start);
            o->w_off = p->w_off;
            o->s_off = p->s_off;
            o->w1_off = p->w1_off;
            o->s1_off = p->s1_off;
            return first;   /* o adds nothing new to the index */
        }
    }
    if (!indexed || !o->w_len) return -1;
    if (s->ix.n == s->cap) {
        int32_t cap = s->cap ? 2 * s->cap : 256;
        int32_t *op = realloc(s->op, sizeof *op * (size_t)cap);
        if (!op) {
            s->broken = true;
            return -1;
        }
        s->op = op;
        s->cap = cap;
    }
    s->op[s->ix.n] = me;
    if (!npuc_hindex_add(&s->ix, consts_key(e, o))) s->broken = true;
    return -1;
}

/* Encodes the weights and scale records of one NPU op covering `n` output
 * channels (w: their weights [n][kh][kw][I], recs: their records) into the
 * epoch's constants, with an arena copy when `buffered`. */
static int encode_chunk(lower_ctx *c, eu_op *o, const wop *p, wpart w,
                        const sim_scale_rec *recs, uint32_t n, bool buffered, npuc_err *err)
{
    int rc;
    o->dual = c->m->opt.sys.variant == EU_U65_512;
    o->w1_off = o->w1_len = o->s1_off = o->s1_len = 0;
    if (!o->dual)
        rc = encode_part(c, o, p, w, recs, n, o->blk.d, &o->s_off, &o->s_len, &o->w_off, &o->w_len, err);
    else
        rc = encode_dual(c, o, p, w.w, recs, n, err);
    if (rc) return rc;
    int32_t same = share_consts(c, o);
    o->wbuf = -1;
    int32_t me = (int32_t)(o - c->e->ops);
    if (buffered && same >= 0 && c->e->ops[same].wbuf >= 0 &&
        c->m->bufs[c->e->ops[same].wbuf].size == consts_end(o) - o->s_off) {
        /* the SRAM copy of the earlier op with these constants: one DMA
         * (by its first user, eu_gen), kept until this op; where holding
         * it costs more SRAM than its reuse saves cycles, the schedule
         * search drops it (docs/compiler.md, Shared constants) */
        o->wbuf = c->e->ops[same].wbuf;
        c->m->bufs[o->wbuf].eu_last = me;
        return NPUC_OK;
    }
    if (buffered) {
        /* an arena copy of all of it, filled by DMA while the previous NPU
         * op runs */
        o->wbuf = cc_temp_buf(c, consts_end(o) - o->s_off, err);
        if (o->wbuf < 0) return err->code;
        cc_buf *b = &c->m->bufs[o->wbuf];
        b->epoch = (int32_t)(c->e - c->m->epochs);
        b->wcopy = true;
        b->eu_first = me > 0 ? me - 1 : me;
        b->eu_last = me;
    }
    return NPUC_OK;
}

bool cc_weighted_scales(const wop *p, sim_scale_rec *recs, char *why, size_t why_size)
{
    const graph_tensor *in = p->in, *out = p->out;
    bool wide = in->dtype == GRAPH_I16;
    if (p->fixed_scale) {
        for (size_t ch = 0; recs && ch < p->O; ch++) recs[ch] = (sim_scale_rec){0, p->fixed_m, p->fixed_s};
        return true;
    }
    const graph_quant *q = &p->w->q;
    if (q->n != 1 && q->n != (int32_t)p->O)
        return cc_reason(why, why_size, "weights have %d scales for %u output channels", q->n, p->O);
    for (size_t ch = 0; ch < p->O; ch++) {
        float fs = q->n > 1 ? q->scale[ch] : q->scale[0];
        if (q->zero_point[q->n > 1 ? ch : 0] != 0 && !(p->layout == 0 && p->fc_float_product))
            return cc_reason(why, why_size, "weights have zero point %lld (the NPU takes symmetric weights here)",
                             (long long)q->zero_point[q->n > 1 ? ch : 0]);
        double eff;
        if (p->fc_float_product) {
            float prod = in->q.scale[0] * fs;
            eff = (double)prod / (double)out->q.scale[0];
        } else {
            eff = (double)in->q.scale[0] * (double)fs / (double)out->q.scale[0];
        }
        int32_t mm, ss;
        sim_scale_rec r;
        k_quantize_multiplier(eff, &mm, &ss);
        bool ok = wide ? cc_hw_scale_natural16(mm, ss, &r.scale, &r.shift) : cc_hw_scale_tfl(mm, ss, &r.scale, &r.shift);
        if (!ok || (wide && ss > 14))
            return cc_reason(why, why_size, "output channel %zu: rescale factor %g is outside the NPU's range", ch, eff);
        int64_t b = 0;
        if (p->bias && p->bias->data) {
            if (p->bias->dtype == GRAPH_I32) b = ((const int32_t *)p->bias->data)[ch];
            else if (p->bias->dtype == GRAPH_I64) b = ((const int64_t *)p->bias->data)[ch];
        }
        if (b > ((int64_t)1 << 39) - 1 || b < -((int64_t)1 << 39))
            return cc_reason(why, why_size, "bias %lld of channel %zu does not fit 40 bits", (long long)b, ch);
        r.bias = b;
        if (recs) recs[ch] = r;
    }
    return true;
}

/* The key of p's scale records: everything cc_weighted_scales reads (the
 * output stage's fixed scale, or the weights' quantization, the input's
 * and output's scales and types, the layout, the float product, the
 * bias), for cc_blob_get. NULL when out of memory. */
static uint8_t *scales_key(const wop *p, size_t *ks)
{
    const bool fixed = p->fixed_scale, biased = !fixed && p->bias && p->bias->data;
    const int32_t qn = fixed ? 0 : p->w->q.n;
    const int32_t head[10] = {0x5ca1e5, (int32_t)p->O, fixed, (int32_t)p->fixed_m, p->fixed_s, p->layout,
                              p->fc_float_product, qn, p->in->dtype, biased ? (int32_t)p->bias->dtype : -1};
    size_t n = sizeof head + (size_t)(qn > 0 ? qn : 0) * (sizeof(float) + sizeof(int64_t)) +
               (fixed || !p->O ? 0 : 2 * sizeof(float)) + (biased ? (size_t)p->O * sizeof(int64_t) : 0);
    uint8_t *k = malloc(n), *at = k;
    if (!k) return NULL;
    memcpy(at, head, sizeof head);
    at += sizeof head;
    if (qn > 0) {
        memcpy(at, p->w->q.scale, (size_t)qn * sizeof(float));
        at += (size_t)qn * sizeof(float);
        memcpy(at, p->w->q.zero_point, (size_t)qn * sizeof(int64_t));
        at += (size_t)qn * sizeof(int64_t);
    }
    if (!fixed && p->O) {
        memcpy(at, &p->in->q.scale[0], sizeof(float));
        memcpy(at + sizeof(float), &p->out->q.scale[0], sizeof(float));
        at += 2 * sizeof(float);
    }
    for (size_t ch = 0; biased && ch < p->O; ch++, at += sizeof(int64_t)) {
        int64_t b = 0;
        if (p->bias->dtype == GRAPH_I32) b = ((const int32_t *)p->bias->data)[ch];
        else if (p->bias->dtype == GRAPH_I64) b = ((const int64_t *)p->bias->data)[ch];
        memcpy(at, &b, sizeof b);
    }
    *ks = n;
    return k;
}

/* The number of weights of p as gathered: [O][kh][kw][I] (I = 1 for
 * depthwise). */
static size_t gathered_count(const wop *p)
{
    return (size_t)p->O * p->kh * p->kw * (p->depthwise ? 1 : p->I);
}

/* The bytes of p->wdata its layout reads. */
static size_t raw_bytes(const wop *p)
{
    if (p->layout == 0 || p->layout == 3) return (size_t)p->O * p->kh * p->kw * p->I;
    return (size_t)p->kh * p->kw * p->O;
}

/* The weights of p as [O][kh][kw][I] (I = 1 for depthwise), zero point
 * removed, into wv (gathered_count(p) of them). */
static void gather_weights(const wop *p, int16_t *wv)
{
    uint32_t I = p->depthwise ? 1 : p->I;
    size_t nw = gathered_count(p);
    if (p->layout == 0 && I == p->I) {
        /* OHWI is the order gathered: a straight copy */
        for (size_t j = 0; j < nw; j++) wv[j] = (int16_t)(p->wdata[j] - p->wzp);
        return;
    }
    for (uint32_t oc = 0; oc < p->O; oc++)
        for (uint32_t ky = 0; ky < p->kh; ky++)
            for (uint32_t kx = 0; kx < p->kw; kx++)
                for (uint32_t i = 0; i < I; i++)
                    wv[(((size_t)oc * p->kh + ky) * p->kw + kx) * I + i] = wget(p, oc, ky, kx, i);
}

/* p's gathered weights: the encode cache's source of them (gathered the
 * first time any compile of the model asks: the schedule search lowers
 * the same tensors again), or without a cache a copy in *own. */
static int weights_of(lower_ctx *c, const wop *p, wpart *w, int16_t **own, npuc_err *err)
{
    size_t nw = gathered_count(p);
    *own = NULL;
    *w = (wpart){NULL, -1, 0};
    eu_wcache *wc = c->m->wcache;
    if (!wc) {
        if (!(*own = malloc(nw * sizeof **own + 1))) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        gather_weights(p, *own);
        w->w = *own;
        return NPUC_OK;
    }
    /* what the weights are derived from: how the tensor is read, and its bytes */
    const uint32_t desc[7] = {(uint32_t)p->layout, (uint32_t)p->wzp, p->O, p->I, p->kh, p->kw, p->depthwise};
    int16_t *fill;
    int rc = eu_wcache_source(wc, desc, sizeof desc, p->wdata, raw_bytes(p), nw, &w->src, &fill, err);
    if (rc) return rc;
    if (fill) gather_weights(p, fill);
    w->w = eu_wcache_source_weights(wc, w->src);
    return NPUC_OK;
}

int cc_encode_weighted(lower_ctx *c, eu_op *o, const wop *p, npuc_err *err)
{
    const graph_tensor *out = p->out;
    bool wide = p->in->dtype == GRAPH_I16;
    sim_scale_rec *recs = calloc(p->O ? p->O : 1, sizeof *recs);
    int16_t *wv = NULL;
    wpart w;
    int rc = NPUC_OK;
    if (!recs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    /* the records of the same weights, scales and bias: worked out once
     * for all the search's compiles */
    size_t ks = 0;
    uint8_t *key = scales_key(p, &ks);
    if (!key || !cc_blob_get(c, key, ks, recs, sizeof *recs * p->O)) {
        if (!cc_weighted_scales(p, recs, c->why, CC_WHY_SIZE)) {
            free(key);
            rc = 1;
            goto done;
        }
        if (key) cc_blob_put(c, key, ks, recs, sizeof *recs * p->O);
    }
    free(key);
    if ((rc = weights_of(c, p, &w, &wv, err))) goto done;
    o->ofm_scale_mode = 0;
    o->round = p->fixed_scale ? p->fixed_round : wide ? 2 : 0;
    cc_set_act(o, out, c->g->ops[c->op_index].opt.activation);
    /* When weights are copied into SRAM, a conv with many weights is split
     * along its output channels into ops whose weights are copied one after
     * another: each copy overlaps the previous op and only two chunks need
     * SRAM at a time (docs/ethos-u.md 6.1: one stream per OFM depth range). */
    bool buffered = cc_buffer_weights(c);
    /* the streams (at most about 9 bits a position), records and padding */
    cc_flash_reserve(c, 2 * (uint64_t)gathered_count(p) + 16 * (uint64_t)p->O + 4096);
    size_t per_ch = (size_t)p->kh * p->kw * (p->depthwise ? 1 : p->I);
    uint32_t chunk = p->O;
    size_t chunk_bytes = c->m->opt.chunk_bytes ? c->m->opt.chunk_bytes : CC_CHUNK_DEFAULT;
    if (cc_weights_chunked(c, p) && o->blk.d) {
        /* chunks of whole 16-channel groups, each its own op with its own
         * block: small chunks keep the DMA going behind every op (the
         * schedule search in cc.c tries several sizes) */
        uint32_t n = (uint32_t)(chunk_bytes / per_ch) / 16u * 16u;
        chunk = n < 16u ? 16u : n;
        if (chunk > p->O) chunk = p->O;
    }
    eu_op tmpl = *o;
    int32_t idx0 = (int32_t)(o - c->e->ops);
    for (uint32_t c0 = 0; c0 < p->O && !rc; c0 += chunk) {
        uint32_t n = p->O - c0 < chunk ? p->O - c0 : chunk;
        eu_op *oj;
        if (c0 == 0) {
            oj = &c->e->ops[idx0];
        } else {
            oj = cc_new_eu(c, err);
            if (!oj) {
                rc = err->code;
                break;
            }
            *oj = tmpl;
        }
        oj->ofm.c = n;
        oj->ofm.c0 = tmpl.ofm.c0 + c0;
        if (n != p->O && (rc = cc_choose_block(c, oj, err))) break;
        size_t at = (size_t)c0 * per_ch;
        rc = encode_chunk(c, oj, p, (wpart){w.w + at, w.src, at}, recs + c0, n, buffered, err);
    }
done:
    free(recs);
    free(wv);
    return rc;
}

/* ------------------------------------------------ constants shared across epochs */

/* A range [lo, hi) of one epoch's flash, placed at `to` in the shared
 * flash (fresh: its bytes are copied there, not an earlier piece's). */
typedef struct fl_piece { uint64_t lo, hi, to; bool fresh; } fl_piece;

typedef struct fl_pieces { fl_piece *p; int32_t n, cap; } fl_pieces;

static bool fl_push(fl_pieces *v, uint64_t lo, uint64_t hi)
{
    if (hi <= lo) return true;
    if (v->n == v->cap) {
        int32_t cap = v->cap ? 2 * v->cap : 16;
        fl_piece *p = realloc(v->p, sizeof *p * (size_t)cap);
        if (!p) return false;
        v->p = p;
        v->cap = cap;
    }
    v->p[v->n++] = (fl_piece){lo, hi, 0, false};
    return true;
}

static int fl_cmp(const void *a, const void *b)
{
    const fl_piece *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

/* The ranges of e's flash the eu_ops address as wholes (a weight stream,
 * its scale records, a LUT; on a dual-core NPU an op's constants together
 * when it copies them into SRAM, in one DMA), merged where they overlap, and the gaps between
 * them (other constants: an op addresses them inside one gap), in order,
 * each starting 16-byte aligned. */
static bool fl_split(const cc_epoch *e, fl_pieces *out)
{
    fl_pieces r = {0};
    bool ok = true;
    for (int32_t k = 0; k < e->n_eu && ok; k++) {
        const eu_op *o = &e->ops[k];
        if (!o->w_len && !o->s_len) continue;
        if (o->wbuf >= 0 && o->dual) {
            /* a dual-core copy is DMA'd as one block */
            ok = fl_push(&r, o->s_off, consts_end(o));
            continue;
        }
        ok = fl_push(&r, o->s_off, o->s_off + o->s_len) && fl_push(&r, o->w_off, o->w_off + o->w_len) &&
             (!o->s1_len || fl_push(&r, o->s1_off, o->s1_off + o->s1_len)) &&
             (!o->w1_len || fl_push(&r, o->w1_off, o->w1_off + o->w1_len));
    }
    for (int32_t i = 0; i < e->n_luts && ok; i++) ok = fl_push(&r, e->luts[i].off, e->luts[i].off + e->luts[i].size);
    if (ok && r.n) qsort(r.p, (size_t)r.n, sizeof *r.p, fl_cmp);
    uint64_t at = 0;
    for (int32_t i = 0; i < r.n && ok; ) {
        uint64_t lo = r.p[i].lo, hi = r.p[i].hi;
        for (i++; i < r.n && r.p[i].lo < hi; i++)
            if (r.p[i].hi > hi) hi = r.p[i].hi;
        ok = fl_push(out, at, lo) && fl_push(out, lo, hi);
        at = (hi + 15) & ~(uint64_t)15;
    }
    ok = ok && fl_push(out, at, e->flash_size);
    free(r.p);
    return ok;
}

/* Where byte `off` of the epoch's flash went (pieces in order). */
static uint64_t fl_map(const fl_pieces *v, uint64_t off)
{
    int32_t a = 0, b = v->n - 1;
    if (b < 0) return off;
    while (a < b) {   /* the last piece with lo <= off */
        int32_t mid = (a + b + 1) / 2;
        if (v->p[mid].lo <= off) a = mid;
        else b = mid - 1;
    }
    return v->p[a].to + (off - v->p[a].lo);
}

/* The hash of a piece: its length and its first and last 64 bytes (it
 * only picks slots, a match is compared whole: the layout is the order of
 * the pieces, whatever the hash). */
static uint64_t fl_hash(const uint8_t *p, uint64_t n)
{
    size_t k = n < 64 ? (size_t)n : 64;
    return npuc_hash(npuc_hash(NPUC_HASH_INIT, p, k), p + n - k, k) ^ n;
}

/* The shared flash being laid out: its size, and a hash table of the
 * pieces in it (their bytes where they are now, in the epochs' flashes:
 * nothing is copied unless the layout is kept). */
typedef struct fl_shared {
    uint64_t size;
    struct { uint64_t hash, off, len; const uint8_t *src; } *slot; uint64_t n_slots;
} fl_shared;

/* Places piece p (bytes src): at an identical earlier piece, else appended. */
static void fl_place(fl_shared *s, fl_piece *p, const uint8_t *src)
{
    uint64_t len = p->hi - p->lo, h = fl_hash(src, len), i = h & (s->n_slots - 1);
    for (; s->slot[i].len; i = (i + 1) & (s->n_slots - 1))
        if (s->slot[i].hash == h && s->slot[i].len == len && (s->slot[i].src == src || !memcmp(s->slot[i].src, src, len))) {
            p->to = s->slot[i].off;
            return;
        }
    uint64_t start = (s->size + 15) & ~(uint64_t)15;
    s->size = start + len;
    s->slot[i].hash = h;
    s->slot[i].off = start;
    s->slot[i].len = len;
    s->slot[i].src = src;
    p->to = start;
    p->fresh = true;
}

/* The shared layout of the HW epochs' constants: each epoch's pieces in pc
 * (m->n_epochs entries), placed in s; *before: the bytes of the epochs'
 * own flashes, *owner: the first epoch with constants (-1 none). False:
 * out of memory (what was made is freed by the caller). */
static bool fl_layout(cc_model *m, fl_pieces *pc, fl_shared *s, uint64_t *before, int32_t *owner)
{
    int64_t n_pieces = 0;
    *before = 0;
    *owner = -1;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW || !e->flash_size || e->flash_shared) continue;
        if (*owner < 0) *owner = i;
        *before += e->flash_size;
        if (!fl_split(e, &pc[i])) return false;
        /* each piece is read in one run (a stream, its records, a run
         * between them are each an alias or outside every alias), else the
         * aliases are written out first */
        for (int32_t j = 0; j < pc[i].n; j++)
            if (!cc_flash_view(e, pc[i].p[j].lo, pc[i].p[j].hi)) {
                if (!cc_flash_write_aliases(&m->epochs[i])) return false;
                break;
            }
        n_pieces += pc[i].n;
    }
    if (*owner < 0) return true;
    for (s->n_slots = 16; s->n_slots < 2 * (uint64_t)n_pieces; s->n_slots *= 2) {}
    if (!(s->slot = calloc(s->n_slots, sizeof *s->slot))) return false;
    for (int32_t i = 0; i < m->n_epochs; i++)
        for (int32_t j = 0; j < pc[i].n; j++)
            fl_place(s, &pc[i].p[j], cc_flash_view(&m->epochs[i], pc[i].p[j].lo, pc[i].p[j].hi));
    return true;
}

uint64_t cc_const_bytes(cc_model *m)
{
    /* a dual-core op's constants are one piece or four as its copy comes
     * and goes: unknown until the weights are placed */
    for (int32_t i = 0; i < m->n_epochs; i++)
        for (int32_t k = 0; m->epochs[i].kind == CC_EPOCH_HW && k < m->epochs[i].n_eu; k++)
            if (m->epochs[i].ops[k].dual) return 0;
    fl_pieces *pc = calloc((size_t)m->n_epochs + 1, sizeof *pc);
    fl_shared s = {0};
    uint64_t before = 0, bytes = 0;
    int32_t owner = -1;
    if (pc && fl_layout(m, pc, &s, &before, &owner)) {
        uint64_t size = (s.size + 15) & ~(uint64_t)15;
        bytes = owner >= 0 && s.size < before ? size : before;
    }
    for (int32_t i = 0; pc && i < m->n_epochs; i++) free(pc[i].p);
    free(pc);
    free(s.slot);
    return bytes;
}

int cc_share_flash(cc_model *m, bool *shared, npuc_err *err)
{
    *shared = false;
    int32_t owner = -1;
    uint64_t before = 0;
    fl_pieces *pc = calloc((size_t)m->n_epochs + 1, sizeof *pc);
    fl_shared s = {0};
    bool ok = pc && fl_layout(m, pc, &s, &before, &owner);
    if (ok && owner < 0) {
        free(pc);
        return NPUC_OK;
    }
    /* the layout is kept where it is smaller: its bytes then, the fresh
     * pieces in the order placed, zeros between them and to the end */
    uint8_t *b = NULL;
    uint64_t size = (s.size + 15) & ~(uint64_t)15;
    if (ok && s.size < before) {
        if ((b = malloc(size ? size : 16))) {
            uint64_t at = 0;
            for (int32_t i = 0; i < m->n_epochs; i++)
                for (int32_t j = 0; j < pc[i].n; j++) {
                    const fl_piece *p = &pc[i].p[j];
                    if (!p->fresh) continue;
                    memset(b + at, 0, p->to - at);
                    memcpy(b + p->to, cc_flash_view(&m->epochs[i], p->lo, p->hi), p->hi - p->lo);
                    at = p->to + (p->hi - p->lo);
                }
            memset(b + at, 0, size - at);
        } else {
            ok = false;
        }
    }
    int rc = ok ? NPUC_OK : npuc_errf(err, NPUC_E_NOMEM, "out of memory sharing constants");
    if (ok && s.size < before) {
        /* every epoch addresses the shared flash, kept by the first */
        for (int32_t i = 0; i < m->n_epochs; i++) {
            cc_epoch *e = &m->epochs[i];
            if (!pc[i].n) continue;
            for (int32_t k = 0; k < e->n_eu; k++) {
                eu_op *o = &e->ops[k];
                if (o->s_len) o->s_off = fl_map(&pc[i], o->s_off);
                if (o->w_len) o->w_off = fl_map(&pc[i], o->w_off);
                if (o->s1_len) o->s1_off = fl_map(&pc[i], o->s1_off);
                if (o->w1_len) o->w1_off = fl_map(&pc[i], o->w1_off);
                if (o->ifm.buf < 0) o->ifm.off = fl_map(&pc[i], o->ifm.off);
                if (o->ifm2.buf < 0) o->ifm2.off = fl_map(&pc[i], o->ifm2.off);
            }
            for (int32_t l = 0; l < e->n_luts; l++) e->luts[l].off = fl_map(&pc[i], e->luts[l].off);
            free(e->flash);
            e->flash = NULL;
            e->flash_size = e->flash_cap = 0;
            e->n_alias = 0;
            if (i != owner) e->flash_shared = owner + 1;
        }
        cc_epoch *o = &m->epochs[owner];
        o->flash = b;
        o->flash_size = size;
        o->flash_cap = size ? size : 16;
        b = NULL;
        *shared = true;
    } else if (ok) {
        /* each epoch keeps its own flash: all of its bytes written */
        for (int32_t i = 0; i < m->n_epochs && !rc; i++)
            if (!cc_flash_write_aliases(&m->epochs[i]))
                rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory writing constants");
    }
    for (int32_t i = 0; pc && i < m->n_epochs; i++) free(pc[i].p);
    free(pc);
    free(b);
    free(s.slot);
    return rc;
}
