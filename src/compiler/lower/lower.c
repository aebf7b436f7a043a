/* cc_lower: legalize + partition. Every graph op becomes NPU operations
 * (eu_op, ethos-u.md 5.10 forms), a no-copy view, or a CPU op with the
 * reason; consecutive NPU ops form one HW epoch.
 *
 * Bit-exactness comes from deriving every register value from the same
 * quantization arithmetic the reference kernels use (k_quantize_multiplier,
 * k_activation_range_q, ...), mapped onto the NPU's output stage as
 * ethos-u.md 5.6 proves equivalent. Pointwise int8 functions become LUTs
 * whose 256 entries are computed by running the reference interpreter on
 * every input value, so they are exact by construction. */
#include "lower.h"
#include "../ethosu/eu_weights.h"
#include "../../interp/interp.h"
#include "../../kernels/k_common.h"
#include "../../kernels/kernels.h"
#include "../../kernels/k_shape.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

/* "Not on the NPU": records the reason, returns 1 (not an error). */
int cc_cpu(lower_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->m->ops[0].why, fmt, ap);
    va_end(ap);
    return 1;
}

const graph_tensor *cc_tin(const lower_ctx *c, const graph_op *op, int i)
{
    return (i < op->n_in && op->in[i] >= 0) ? &c->g->tensors[op->in[i]] : NULL;
}

const graph_tensor *cc_tout(const lower_ctx *c, const graph_op *op, int i)
{
    return (i < op->n_out && op->out[i] >= 0) ? &c->g->tensors[op->out[i]] : NULL;
}

bool cc_npu_dtype(graph_dtype d) { return d == GRAPH_I8 || d == GRAPH_I16; }

bool cc_has_q1(const graph_tensor *t)
{
    return t->q.n >= 1 && t->q.scale && t->q.zero_point && t->q.scale[0] > 0.0f &&
           isnormal(t->q.scale[0]);
}

int32_t cc_zp(const graph_tensor *t) { return t->q.n >= 1 ? (int32_t)t->q.zero_point[0] : 0; }

#define tin cc_tin
#define tout cc_tout
#define npu_dtype cc_npu_dtype
#define has_q1 cc_has_q1
#define zp_of cc_zp

int cc_flash_add(cc_epoch *e, const void *data, uint64_t size, uint64_t *off, npuc_err *err)
{
    uint64_t start = (e->flash_size + 15) & ~(uint64_t)15;
    uint64_t end = start + ((size + 15) & ~(uint64_t)15);
    if (end > e->flash_cap) {
        uint64_t cap = e->flash_cap ? e->flash_cap * 2 : 4096;
        while (cap < end) cap *= 2;
        uint8_t *p = realloc(e->flash, cap);
        if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory for %llu bytes of constants",
                                 (unsigned long long)cap);
        e->flash = p;
        e->flash_cap = cap;
    }
    memset(e->flash + e->flash_size, 0, end - e->flash_size);
    if (size) memcpy(e->flash + start, data, size);
    e->flash_size = end;
    *off = start;
    return NPUC_OK;
}

/* Makes room for one more element in a realloc'd array of *cap entries
 * holding n; false on out of memory (err set). */
static bool grow(void **arr, int32_t *cap, int32_t n, size_t elem, npuc_err *err)
{
    if (n < *cap) return true;
    int32_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, elem * (size_t)ncap);
    if (!p) {
        npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        return false;
    }
    *arr = p;
    *cap = ncap;
    return true;
}

/* A new arena buffer of `size` bytes, not yet placed. */
static cc_buf *new_buf(cc_model *m, uint64_t size, int32_t tensor, npuc_err *err)
{
    if (!grow((void **)&m->bufs, &m->cap_bufs, m->n_bufs, sizeof *m->bufs, err)) return NULL;
    cc_buf *b = &m->bufs[m->n_bufs++];
    memset(b, 0, sizeof *b);
    b->size = size;
    b->first = INT32_MAX;
    b->last = -1;
    b->offset = -1;
    b->tensor = tensor;
    b->epoch = -1;
    return b;
}

int cc_add_lut(lower_ctx *c, const void *table, uint64_t size, int32_t *index, npuc_err *err)
{
    cc_epoch *e = c->e;
    for (int32_t i = 0; i < e->n_luts; i++)
        if (e->luts[i].size == size && !memcmp(e->flash + e->luts[i].off, table, size)) {
            *index = i;
            return NPUC_OK;
        }
    eu_lut *nl = realloc(e->luts, sizeof *nl * (size_t)(e->n_luts + 1));
    if (!nl) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    e->luts = nl;
    eu_lut *l = &e->luts[e->n_luts];
    memset(l, 0, sizeof *l);
    l->size = size;
    l->slot = 0;
    int rc = cc_flash_add(e, table, size, &l->off, err);
    if (rc) return rc;
    *index = e->n_luts++;
    return NPUC_OK;
}

int32_t cc_temp_buf(lower_ctx *c, uint64_t size, npuc_err *err)
{
    cc_buf *b = new_buf(c->m, size, -1, err);
    if (!b) return -1;
    b->first = b->last = b->op = c->op_index;
    b->temp = true;
    return (int32_t)(b - c->m->bufs);
}

eu_op *cc_new_eu(lower_ctx *c, npuc_err *err)
{
    cc_epoch *e = c->e;
    if (!grow((void **)&e->ops, &e->cap_eu, e->n_eu, sizeof *e->ops, err)) return NULL;
    eu_op *o = &e->ops[e->n_eu++];
    memset(o, 0, sizeof *o);
    o->lut = -1;
    o->wbuf = -1;
    o->src_op = c->op_index;
    o->dil_x = o->dil_y = 1;
    o->stride_x = o->stride_y = 1;
    o->kh = o->kw = 1;
    o->act_min = -32768;
    o->act_max = 32767;
    return o;
}

/* A feature map over a whole NHWC tensor viewed as h x w x c. */
void cc_fm_whole(const lower_ctx *c, int32_t tensor, uint32_t h, uint32_t w, uint32_t ch,
                     eu_fm *fm)
{
    const graph_tensor *t = &c->g->tensors[tensor];
    unsigned es = (unsigned)graph_dtype_size(t->dtype);
    memset(fm, 0, sizeof *fm);
    fm->buf = c->m->buf_of[tensor];
    fm->h = h;
    fm->w = w;
    fm->c = ch;
    fm->full_w = w;
    fm->full_c = ch;
    fm->sc = es;
    fm->sx = (uint64_t)ch * es;
    fm->sy = (uint64_t)w * ch * es;
    fm->bits = (uint8_t)(8 * es);
    fm->is_signed = t->dtype != GRAPH_U8;
    fm->format = 0;
    fm->zp = zp_of(t);
}

/* Collapses a tensor shape to NPU h x w x c (leading dims folded into h). */
static bool hwc_of(const graph_tensor *t, uint32_t *h, uint32_t *w, uint32_t *ch)
{
    uint64_t hh = 1;
    for (int32_t i = 0; i + 2 < t->rank; i++) hh *= (uint64_t)t->shape[i];
    uint64_t ww = t->rank >= 2 ? (uint64_t)t->shape[t->rank - 2] : 1;
    uint64_t cc = t->rank >= 1 ? (uint64_t)t->shape[t->rank - 1] : 1;
    if (!hh || !ww || !cc || hh > 65536 || ww > 65536 || cc > 65536) return false;
    *h = (uint32_t)hh;
    *w = (uint32_t)ww;
    *ch = (uint32_t)cc;
    return true;
}

static void block_req(sim_variant v, const eu_op *o, eu_block_req *r)
{
    memset(r, 0, sizeof *r);
    r->variant = v;
    r->kind = o->kind;
    r->mode = o->mode;
    r->ofm_w = o->ofm.w;
    r->ofm_h = o->ofm.h;
    r->ofm_d = o->ofm.c;
    r->ifm_d = o->ifm.c;
    r->kernel_w = (o->kw - 1) * o->dil_x + 1;
    r->kernel_h = (o->kh - 1) * o->dil_y + 1;
    r->stride_x = o->stride_x;
    r->stride_y = o->stride_y;
    r->upscale = o->upscale != 0;
    r->ifm_bits = o->ifm.bits;
    r->ofm_bits = o->ofm.bits;
    r->acc40 = (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) && o->ifm.bits == 16;
    r->ifm2_tensor = o->ifm2_tensor;
    r->uses_lut = o->act_func >= 16;
    r->part_kernel_first = o->pkf;
}

int cc_choose_block(lower_ctx *c, eu_op *o, npuc_err *err)
{
    eu_block_req r;
    block_req(c->m->opt.sys.variant, o, &r);
    return eu_block_choose(&r, &o->blk, err);
}

void cc_reblock(cc_model *m)
{
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
            eu_op *o = &e->ops[k];
            eu_block_req r;
            block_req(m->opt.sys.variant, o, &r);
            r.ifm_format = o->ifm.format;
            r.ofm_format = o->ofm.format;
            /* a weight stream is encoded for its block depth */
            if (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) r.fixed_d = o->blk.d;
            eu_block b;
            npuc_err e2 = {0};
            if (eu_block_choose(&r, &b, &e2) == NPUC_OK) o->blk = b;
        }
    }
}

/* The hardware pair for TFLite's (m, shift) (ethos-u.md 5.6): TFL rounding
 * with s = 31 - shift. False when s does not fit 0..63. */
bool cc_hw_scale_tfl(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs)
{
    if (m == 0) {
        *hm = 0;
        *hs = 0;
        return true;
    }
    int32_t s = 31 - shift;
    if (s < 0 || s > 63) return false;
    *hm = (uint32_t)m;
    *hs = (uint8_t)s;
    return true;
}

/* For 64-bit (int16x8) accumulators: TFLite's reduced multiplier with
 * single rounding = NATURAL mode (ethos-u.md 5.6). */
bool cc_hw_scale_natural16(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs)
{
    int32_t reduced = (m < 0x7FFF0000) ? ((m + (1 << 15)) >> 16) : 0x7FFF;
    int32_t s = 15 - shift;
    if (s < 1 || s > 63) return false;
    *hm = (uint32_t)reduced;
    *hs = (uint8_t)s;
    return true;
}

void cc_lut_op(eu_op *o, int32_t lut)
{
    o->kind = SIM_K_ELEMENTWISE;
    o->mode = 1;
    o->ifm.zp = 0;
    o->ofm.zp = 0;
    o->ifm2_scalar = true;
    o->scalar = 0;
    o->ifm2.bits = 8;
    o->ifm2.is_signed = true;
    o->ifm2.buf = -1;
    o->ofm_scale_mode = 1;
    o->ofm_scale = 1;
    o->ofm_shift = 0;
    o->has_opab = true;
    o->ifm_scale_mode = 0;
    o->opa_scale = 1;
    o->opa_shift = 0;
    o->opb_scale = 1;
    o->act_min = INT8_MIN;
    o->act_max = INT8_MAX;
    o->lut = lut;
    o->act_func = 16;   /* slot assigned at generation */
}

/* Clamp of the output stage: the activation range in OFM units. */
void cc_set_act(eu_op *o, const graph_tensor *out, int32_t act)
{
    int32_t qmin = out->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    int32_t qmax = out->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    int32_t lo = qmin, hi = qmax;
    if (has_q1(out))
        k_activation_range_q(act, out->q.scale[0], zp_of(out), qmin, qmax, &lo, &hi);
    o->act_min = lo;
    o->act_max = hi;
}

bool cc_act_ok(int32_t act)
{
    return act == TFL_ACT_NONE || act == TFL_ACT_RELU || act == TFL_ACT_RELU6 ||
           act == TFL_ACT_RELU_N1_TO_1;
}

/* ---------------------------------------------------------- weighted ops */

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
static bool buffer_weights(const lower_ctx *c)
{
    const cc_options *o = &c->m->opt;
    if (o->optimise != CC_OPT_PERFORMANCE) return false;
    const cc_system *sys = &o->sys;
    const sim_system *s = &sys->sim;
    int dst = sys->fast_pool >= 0 && sys->fast_pool != sys->act_pool ? 2 : 1;
    const sim_memory *pm = &s->axi[s->region_port[0] & 1], *am = &s->axi[s->region_port[dst] & 1];
    double pbw = pm->clock_scale * pm->width_bytes, abw = am->clock_scale * am->width_bytes;
    return pbw < abw;
}

/* Bytes of raw weights per NPU op above which a buffered conv is split. */
#define CHUNK_BYTES 8192u

/* Encodes the scale records and weight stream of `n` output channels (w:
 * their weights [n][kh][kw][I], recs: their records) with OFM block depth
 * `bd`, appended to the epoch's constants: scales at *s_off, weights at
 * *w_off. */
static int encode_part(lower_ctx *c, const eu_op *o, const wop *p, const int16_t *w,
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
    wg.ofm_ublock = (uint8_t)sim_variant_ofm_ublock_depth(c->m->opt.sys.variant);
    wg.part_kernel_first = o->pkf;
    wg.depthwise = p->depthwise;
    uint8_t *wbuf = NULL, *sbuf = NULL;
    size_t wlen = 0, slen = eu_scale_stream_size(n);
    int rc = eu_encode_weights(&wg, w, &wbuf, &wlen, err);
    if (rc) return rc;
    sbuf = malloc(slen ? slen : 1);
    if (!sbuf) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = eu_encode_scales(recs, n, sbuf, err))) goto done;
    if ((rc = cc_flash_add(c->e, sbuf, slen, s_off, err))) goto done;
    *s_len = slen;
    if ((rc = cc_flash_add(c->e, wbuf, wlen, w_off, err))) goto done;
    *w_len = wlen;
done:
    free(wbuf);
    free(sbuf);
    return rc;
}

/* Encodes the weights and scale records of one NPU op covering `n` output
 * channels (w: their weights [n][kh][kw][I], recs: their records) into the
 * epoch's constants, with an arena copy when `buffered`. On a U65-512 the
 * two cores' parts are encoded one after the other (dual-core mode). */
static int encode_chunk(lower_ctx *c, eu_op *o, const wop *p, const int16_t *w,
                        const sim_scale_rec *recs, uint32_t n, bool buffered, npuc_err *err)
{
    int rc;
    o->dual = c->m->opt.sys.variant == SIM_U65_512;
    o->w1_off = o->w1_len = o->s1_off = o->s1_len = 0;
    if (!o->dual) {
        rc = encode_part(c, o, p, w, recs, n, o->blk.d, &o->s_off, &o->s_len, &o->w_off, &o->w_len, err);
    } else {
        /* core k: channels 2j + k, block depth (B + 1 - k) / 2 */
        if (o->blk.d % 2)
            return npuc_errf(err, NPUC_E_INVALID, "internal: odd OFM block depth %u on a dual-core NPU", o->blk.d);
        size_t per_ch = (size_t)p->kh * p->kw * (p->depthwise ? 1 : p->I);
        int16_t *wk = malloc(sizeof *wk * per_ch * ((n + 1) / 2) + 1);
        sim_scale_rec *rk = malloc(sizeof *rk * ((n + 1) / 2) + 1);
        rc = wk && rk ? NPUC_OK : npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (uint32_t k = 0; k < 2 && !rc; k++) {
            uint32_t nk = (n + 1 - k) / 2;
            for (uint32_t j = 0; j < nk; j++) {
                memcpy(wk + (size_t)j * per_ch, w + (size_t)(2 * j + k) * per_ch, sizeof *wk * per_ch);
                rk[j] = recs[2 * j + k];
            }
            if (!nk) break;   /* one channel: core 1 has nothing */
            rc = encode_part(c, o, p, wk, rk, nk, (o->blk.d + 1 - k) / 2, k ? &o->s1_off : &o->s_off,
                             k ? &o->s1_len : &o->s_len, k ? &o->w1_off : &o->w_off,
                             k ? &o->w1_len : &o->w_len, err);
        }
        free(wk);
        free(rk);
    }
    if (rc) return rc;
    o->wbuf = -1;
    if (buffered) {
        /* an arena copy of all of it, filled by DMA while the previous NPU
         * op runs */
        int32_t me = (int32_t)(o - c->e->ops);
        uint64_t end = o->s1_len ? o->w1_off + o->w1_len : o->w_off + o->w_len;
        o->wbuf = cc_temp_buf(c, end - o->s_off, err);
        if (o->wbuf < 0) return err->code;
        cc_buf *b = &c->m->bufs[o->wbuf];
        b->epoch = (int32_t)(c->e - c->m->epochs);
        b->wcopy = true;
        b->eu_first = me > 0 ? me - 1 : me;
        b->eu_last = me;
    }
    return NPUC_OK;
}

/* Weights, scales and the output stage of a CONV/DEPTHWISE eu_op whose
 * geometry and block are set. */
int cc_encode_weighted(lower_ctx *c, eu_op *o, const wop *p, npuc_err *err)
{
    const graph_tensor *in = p->in, *out = p->out, *w = p->w;
    bool wide = in->dtype == GRAPH_I16;
    const graph_quant *q = &w->q;
    if (q->n != 1 && q->n != (int32_t)p->O)
        return cc_cpu(c, "weights have %d scales for %u output channels", q->n, p->O);
    size_t n_ch = p->O;
    sim_scale_rec *recs = calloc(n_ch, sizeof *recs);
    int16_t *wv = NULL;
    int rc = NPUC_OK;
    if (!recs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (size_t ch = 0; ch < n_ch; ch++) {
        float fs = q->n > 1 ? q->scale[ch] : q->scale[0];
        if (q->zero_point[q->n > 1 ? ch : 0] != 0 && !(p->layout == 0 && p->fc_float_product)) {
            rc = cc_cpu(c, "weights have zero point %lld (the NPU takes symmetric weights here)",
                     (long long)q->zero_point[q->n > 1 ? ch : 0]);
            goto done;
        }
        double eff;
        if (p->fc_float_product) {
            float prod = in->q.scale[0] * fs;
            eff = (double)prod / (double)out->q.scale[0];
        } else {
            eff = (double)in->q.scale[0] * (double)fs / (double)out->q.scale[0];
        }
        int32_t mm, ss;
        k_quantize_multiplier(eff, &mm, &ss);
        bool ok = wide ? cc_hw_scale_natural16(mm, ss, &recs[ch].scale, &recs[ch].shift)
                       : cc_hw_scale_tfl(mm, ss, &recs[ch].scale, &recs[ch].shift);
        if (!ok || (wide && ss > 14)) {
            rc = cc_cpu(c, "output channel %zu: rescale factor %g is outside the NPU's range", ch, eff);
            goto done;
        }
        int64_t b = 0;
        if (p->bias && p->bias->data) {
            if (p->bias->dtype == GRAPH_I32) b = ((const int32_t *)p->bias->data)[ch];
            else if (p->bias->dtype == GRAPH_I64) b = ((const int64_t *)p->bias->data)[ch];
        }
        if (b > ((int64_t)1 << 39) - 1 || b < -((int64_t)1 << 39)) {
            rc = cc_cpu(c, "bias %lld of channel %zu does not fit 40 bits", (long long)b, ch);
            goto done;
        }
        recs[ch].bias = b;
    }
    /* weights */
    uint32_t I = p->depthwise ? 1 : p->I;
    size_t nw = (size_t)p->O * p->kh * p->kw * I;
    wv = malloc(nw * sizeof *wv + 1);
    if (!wv) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t oc = 0; oc < p->O; oc++)
        for (uint32_t ky = 0; ky < p->kh; ky++)
            for (uint32_t kx = 0; kx < p->kw; kx++)
                for (uint32_t i = 0; i < I; i++)
                    wv[(((size_t)oc * p->kh + ky) * p->kw + kx) * I + i] = wget(p, oc, ky, kx, i);
    o->ofm_scale_mode = 0;
    o->round = wide ? 2 : 0;
    cc_set_act(o, out, c->g->ops[c->op_index].opt.activation);
    /* When weights are copied into SRAM, a conv with many weights is split
     * along its output channels into ops whose weights are copied one after
     * another: each copy overlaps the previous op and only two chunks need
     * SRAM at a time (ethos-u.md 6.1: one stream per OFM depth range). */
    bool buffered = buffer_weights(c);
    size_t per_ch = (size_t)p->kh * p->kw * I;
    uint32_t chunk = p->O;
    if (buffered && !p->depthwise && o->blk.d && per_ch * p->O > CHUNK_BYTES) {
        /* chunks of whole 16-channel groups, each its own op with its own
         * block: small chunks keep the DMA going behind every op */
        uint32_t n = (uint32_t)(CHUNK_BYTES / per_ch) / 16u * 16u;
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
        rc = encode_chunk(c, oj, p, wv + (size_t)c0 * per_ch, recs + c0, n, buffered, err);
    }
done:
    free(recs);
    free(wv);
    return rc;
}

int cc_pad_of(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dil,
                  int32_t out, int32_t *before, int32_t *after)
{
    int32_t kp = K_PAD_VALID;
    if (padding == TFL_PAD_SAME) kp = K_PAD_SAME;
    int32_t eff = (filter - 1) * dil + 1;
    int32_t b = kp == K_PAD_SAME ? k_pad_before(kp, in, filter, stride, dil, out, NULL) : 0;
    int32_t total = (out - 1) * stride + eff - in;
    int32_t a = kp == K_PAD_SAME ? total - b : 0;
    if (a < 0) a = 0;
    *before = b;
    *after = a;
    return 0;
}

static int lower_conv_like(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool dw = op->opcode == TFL_OP_DEPTHWISE_CONV_2D;
    bool fc = op->opcode == TFL_OP_FULLY_CONNECTED;
    wop p;
    memset(&p, 0, sizeof p);
    p.in = tin(c, op, 0);
    p.w = tin(c, op, 1);
    p.bias = tin(c, op, 2);
    p.out = tout(c, op, 0);
    const tfl_options *opt = &op->opt;
    if (!p.in || !p.w || !p.out) return cc_cpu(c, "missing input or output");
    if (!p.w->data) return cc_cpu(c, "weights are not constant");
    if (p.w->dtype != GRAPH_I8) return cc_cpu(c, "weights are %s (the NPU takes int8)", graph_dtype_name(p.w->dtype));
    if (!npu_dtype(p.in->dtype) || p.out->dtype != p.in->dtype)
        return cc_cpu(c, "%s -> %s tensors (the NPU takes int8 or int16 in and out)",
                   graph_dtype_name(p.in->dtype), graph_dtype_name(p.out->dtype));
    if (!has_q1(p.in) || !has_q1(p.out) || p.w->q.n < 1) return cc_cpu(c, "tensors are not quantized");
    if (p.in->dtype == GRAPH_I16) {
        if (zp_of(p.in) || zp_of(p.out)) return cc_cpu(c, "int16 tensors with a non-zero zero point");
        if (p.bias && p.bias->dtype != GRAPH_I64)
            return cc_cpu(c, "int16 op with a %s bias (the NPU path matches the int64-bias kernels)",
                       graph_dtype_name(p.bias->dtype));
    } else if (p.bias && p.bias->dtype != GRAPH_I32) {
        return cc_cpu(c, "int8 op with a %s bias", graph_dtype_name(p.bias->dtype));
    }
    if (p.bias && !p.bias->data) return cc_cpu(c, "bias is not constant");
    if (!cc_act_ok(opt->activation)) return cc_cpu(c, "fused activation %s", tfl_activation_name(opt->activation));

    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->ifm.zp = 0;
    if (fc) {
        if (opt->weights_format != 0) return c->e->n_eu--, cc_cpu(c, "shuffled FC weights");
        if (p.w->rank != 2) return c->e->n_eu--, cc_cpu(c, "FC weights of rank %d", p.w->rank);
        p.O = (uint32_t)p.w->shape[0];
        p.I = (uint32_t)p.w->shape[1];
        size_t n_in = graph_tensor_elems(p.in);
        if (!p.I || n_in % p.I) return c->e->n_eu--, cc_cpu(c, "input size is not a multiple of the depth");
        uint32_t batches = (uint32_t)(n_in / p.I);
        if (batches > 65536 || p.I > 65536 || p.O > 65536) return c->e->n_eu--, cc_cpu(c, "FC dimensions too large");
        p.kh = p.kw = 1;
        p.layout = 0;
        p.wdata = p.w->data;
        if (p.w->q.n == 1) {
            p.fc_float_product = true;
            p.wzp = (int32_t)p.w->q.zero_point[0];
        } else {
            p.fc_float_product = false;
        }
        o->kind = SIM_K_CONV;
        cc_fm_whole(c, op->in[0], batches, 1, p.I, &o->ifm);
        cc_fm_whole(c, op->out[0], batches, 1, p.O, &o->ofm);
        if (p.in->dtype == GRAPH_I16) p.fc_float_product = p.w->q.n == 1;
    } else {
        if (p.in->rank != 4 || p.out->rank != 4 || p.w->rank != 4)
            return c->e->n_eu--, cc_cpu(c, "tensors are not 4-d");
        if (p.in->shape[0] != 1) return c->e->n_eu--, cc_cpu(c, "batch %d (the NPU op takes 1)", p.in->shape[0]);
        int32_t H = p.in->shape[1], W = p.in->shape[2], C = p.in->shape[3];
        int32_t OH = p.out->shape[1], OW = p.out->shape[2], OC = p.out->shape[3];
        p.kh = (uint32_t)p.w->shape[1];
        p.kw = (uint32_t)p.w->shape[2];
        p.O = (uint32_t)OC;
        p.wdata = p.w->data;
        if (dw) {
            int32_t mult = opt->depth_multiplier > 0 ? opt->depth_multiplier : 1;
            if (p.w->shape[3] != OC) return c->e->n_eu--, cc_cpu(c, "depthwise weights do not match the output");
            if (OC == C) {
                p.depthwise = true;
                p.layout = 1;
                p.I = (uint32_t)C;
                o->kind = SIM_K_DEPTHWISE;
            } else if (C == 1) {
                p.layout = 2;
                p.I = 1;
                o->kind = SIM_K_CONV;
            } else if (OC == C * mult && C <= CC_DW_DENSE_MAX_DEPTH) {
                /* a CONV whose weights are zero outside each output
                 * channel's own input channel: the same sums */
                p.layout = 4;
                p.I = (uint32_t)C;
                o->kind = SIM_K_CONV;
            } else {
                return c->e->n_eu--, cc_cpu(c, "depth multiplier %d on %d input channels (the NPU "
                                            "takes multiplier 1, input depth 1, or up to %d input "
                                            "channels as a dense conv)", mult, C, CC_DW_DENSE_MAX_DEPTH);
            }
            if (p.w->q.n > 1 && p.w->q.axis != 3) return c->e->n_eu--, cc_cpu(c, "weights quantized along axis %d", p.w->q.axis);
        } else {
            if (p.w->shape[3] != C) return c->e->n_eu--, cc_cpu(c, "grouped convolution");
            if (p.w->shape[0] != OC) return c->e->n_eu--, cc_cpu(c, "weights do not match the output");
            p.I = (uint32_t)C;
            p.layout = 0;
            o->kind = SIM_K_CONV;
            if (p.w->q.n > 1 && p.w->q.axis != 0) return c->e->n_eu--, cc_cpu(c, "weights quantized along axis %d", p.w->q.axis);
        }
        int32_t sx = opt->stride_w, sy = opt->stride_h;
        int32_t dx = opt->dilation_w > 0 ? opt->dilation_w : 1, dy = opt->dilation_h > 0 ? opt->dilation_h : 1;
        if (sx < 1 || sx > 3 || sy < 1 || sy > 3) return c->e->n_eu--, cc_cpu(c, "stride %dx%d (the NPU takes 1..3)", sx, sy);
        if (dx > 2 || dy > 2) return c->e->n_eu--, cc_cpu(c, "dilation %dx%d (the NPU takes 1..2)", dx, dy);
        if ((int64_t)(p.kh - 1) * dy + 1 > 64 || (int64_t)(p.kw - 1) * dx + 1 > 64)
            return c->e->n_eu--, cc_cpu(c, "kernel %ux%u too large", p.kw, p.kh);
        int32_t pt, pb, pl, pr;
        cc_pad_of(opt->padding, H, (int32_t)p.kh, sy, dy, OH, &pt, &pb);
        cc_pad_of(opt->padding, W, (int32_t)p.kw, sx, dx, OW, &pl, &pr);
        if (pt > 127 || pl > 127 || pb > 128 || pr > 128) return c->e->n_eu--, cc_cpu(c, "padding too large");
        o->stride_x = (uint8_t)sx;
        o->stride_y = (uint8_t)sy;
        o->dil_x = (uint8_t)dx;
        o->dil_y = (uint8_t)dy;
        o->pad_t = (uint8_t)pt;
        o->pad_b = (uint8_t)pb;
        o->pad_l = (uint8_t)pl;
        o->pad_r = (uint8_t)pr;
        o->kh = p.kh;
        o->kw = p.kw;
        cc_fm_whole(c, op->in[0], (uint32_t)H, (uint32_t)W, (uint32_t)C, &o->ifm);
        cc_fm_whole(c, op->out[0], (uint32_t)OH, (uint32_t)OW, (uint32_t)OC, &o->ofm);
        cc_pad_fold(c, op, o);   /* a PAD before it becomes its padding (cc_pad.c) */
    }
    /* Vela always streams fully-connected weights depth-first */
    o->pkf = !p.depthwise && !fc && eu_prefer_part_kernel_first(p.I, p.kh, p.kw, o->ifm.bits);
    o->flex = !fc;
    int rc = cc_choose_block(c, o, err);
    if (rc) {
        c->e->n_eu--;
        if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
        return rc;
    }
    rc = cc_encode_weighted(c, o, &p, err);
    if (rc) {
        c->e->n_eu--;
        return rc;
    }
    return NPUC_OK;
}

/* --------------------------------------------------------------- pooling */

/* Vela's global average-pool scale (ethos-u.md 5.5) for n taps. */
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

/* Whether the global scale reproduces TFLite's rounded division for every
 * sum an op with n taps of `bits`-bit values can produce. */
static bool avg_scale_exact(uint32_t n, unsigned bits, uint32_t m, uint8_t s)
{
    if (n == 1) return m == 1u << 31 || true;
    int64_t lo = bits == 8 ? -128 : -32768, hi = bits == 8 ? 127 : 32767;
    int64_t smin = lo * n, smax = hi * n;
    if (smax - smin > 4000000) return false;   /* too wide to check at compile time */
    for (int64_t a = smin; a <= smax; a++) {
        __int128 p = (__int128)a * m;
        __int128 add = (__int128)1 << (s - 1);
        if (s > 31) add += a >= 0 ? ((__int128)1 << 30) : -((__int128)1 << 30);
        int64_t hw = (int64_t)((p + add) >> s);
        int64_t ref = a >= 0 ? (a + (int64_t)n / 2) / (int64_t)n : (a - (int64_t)n / 2) / (int64_t)n;
        if (hw != ref) return false;
    }
    return true;
}

static int lower_pool(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    bool is_max = op->opcode == TFL_OP_MAX_POOL_2D;
    const graph_tensor *in = tin(c, op, 0), *out = tout(c, op, 0);
    const tfl_options *opt = &op->opt;
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (!npu_dtype(in->dtype) || out->dtype != in->dtype) return cc_cpu(c, "%s tensors", graph_dtype_name(in->dtype));
    if (in->rank != 4 || out->rank != 4 || in->shape[0] != 1) return cc_cpu(c, "not a 4-d batch-1 tensor");
    if (!has_q1(in) || !has_q1(out)) return cc_cpu(c, "tensors are not quantized");
    if (!cc_act_ok(opt->activation)) return cc_cpu(c, "fused activation %s", tfl_activation_name(opt->activation));
    int32_t sx = opt->stride_w, sy = opt->stride_h, fw = opt->filter_w, fh = opt->filter_h;
    if (sx < 1 || sx > 3 || sy < 1 || sy > 3) return cc_cpu(c, "pool stride %dx%d (the NPU takes 1..3)", sx, sy);
    if (fw < 1 || fh < 1 || fw > 256 || fh > 256) return cc_cpu(c, "pool window %dx%d", fw, fh);
    int32_t H = in->shape[1], W = in->shape[2], C = in->shape[3];
    int32_t OH = out->shape[1], OW = out->shape[2];
    int32_t pt, pb, pl, pr;
    cc_pad_of(opt->padding, H, fh, sy, 1, OH, &pt, &pb);
    cc_pad_of(opt->padding, W, fw, sx, 1, OW, &pl, &pr);
    bool padded = pt || pb || pl || pr;
    if (pt > 127 || pl > 127 || pb > 128 || pr > 128) return cc_cpu(c, "padding too large");
    if (!is_max && padded && (fw > 8 || fh > 8)) return cc_cpu(c, "average pool %dx%d with padding (NPU limit 8x8)", fw, fh);
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_POOL;
    o->mode = is_max ? 0 : 1;
    o->flex = true;
    o->kh = (uint32_t)fh;
    o->kw = (uint32_t)fw;
    o->stride_x = (uint8_t)sx;
    o->stride_y = (uint8_t)sy;
    o->pad_t = (uint8_t)pt;
    o->pad_b = (uint8_t)pb;
    o->pad_l = (uint8_t)pl;
    o->pad_r = (uint8_t)pr;
    cc_fm_whole(c, op->in[0], (uint32_t)H, (uint32_t)W, (uint32_t)C, &o->ifm);
    cc_fm_whole(c, op->out[0], (uint32_t)OH, (uint32_t)OW, (uint32_t)C, &o->ofm);
    /* TFLite pools raw values: zero points do not enter */
    o->ifm.zp = 0;
    o->ofm.zp = 0;
    o->round = 0;
    if (is_max || padded) {
        o->ofm_scale_mode = 0;
    } else {
        uint32_t n = (uint32_t)(fw * fh);
        avg_scale(n, &o->ofm_scale, &o->ofm_shift);
        if (!avg_scale_exact(n, o->ifm.bits, o->ofm_scale, o->ofm_shift)) {
            c->e->n_eu--;
            return cc_cpu(c, "average pool over %u taps: the NPU's scaled sum is not TFLite's rounded mean", n);
        }
        o->ofm_scale_mode = 1;
    }
    cc_set_act(o, out, opt->activation);
    /* set_act used the output zero point; raw values are clamped */
    int rc = cc_choose_block(c, o, err);
    if (rc) {
        c->e->n_eu--;
        if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
        return rc;
    }
    return NPUC_OK;
}

/* ----------------------------------------------------------- elementwise */

/* Pads a shape to 4-d on the left. */
static bool shape4(const graph_tensor *t, int32_t s[4])
{
    if (t->rank > 4) return false;
    for (int i = 0; i < 4; i++) s[i] = 1;
    for (int32_t i = 0; i < t->rank; i++) s[4 - t->rank + i] = t->shape[i];
    return true;
}

static int lower_binary(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *a = tin(c, op, 0), *b = tin(c, op, 1), *out = tout(c, op, 0);
    if (!a || !b || !out) return cc_cpu(c, "missing input or output");
    if (!npu_dtype(a->dtype) || b->dtype != a->dtype || out->dtype != a->dtype)
        return cc_cpu(c, "%s/%s -> %s tensors", graph_dtype_name(a->dtype), graph_dtype_name(b->dtype),
                   graph_dtype_name(out->dtype));
    if (!has_q1(a) || !has_q1(b) || !has_q1(out)) return cc_cpu(c, "tensors are not quantized");
    int32_t act = op->opt.activation;
    bool minmax = op->opcode == TFL_OP_MINIMUM || op->opcode == TFL_OP_MAXIMUM;
    if (!minmax && !cc_act_ok(act)) return cc_cpu(c, "fused activation %s", tfl_activation_name(act));
    int32_t sa[4], sb[4], so[4];
    if (!shape4(a, sa) || !shape4(b, sb) || !shape4(out, so)) return cc_cpu(c, "rank above 4");
    if (sa[0] != 1 || sb[0] != 1 || so[0] != 1) return cc_cpu(c, "batch above 1");
    /* which operand is the full one: IFM must have the OFM shape */
    bool a_full = sa[1] == so[1] && sa[2] == so[2] && sa[3] == so[3];
    bool b_full = sb[1] == so[1] && sb[2] == so[2] && sb[3] == so[3];
    if (!a_full && !b_full) return cc_cpu(c, "both operands are broadcast");
    bool swap = !a_full;       /* IFM = input 1, IFM2 = input 0 */
    const graph_tensor *f = swap ? b : a, *s2 = swap ? a : b;
    const int32_t *sf = swap ? sb : sa, *ss = swap ? sa : sb;
    (void)sf;
    for (int i = 1; i < 4; i++)
        if (ss[i] != so[i] && ss[i] != 1) return cc_cpu(c, "shapes do not broadcast");
    if (so[1] > 65536 || so[2] > 65536 || so[3] > 65536) return cc_cpu(c, "dimension above 65536");

    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_ELEMENTWISE;
    o->flex = true;
    int32_t fi = swap ? op->in[1] : op->in[0], si = swap ? op->in[0] : op->in[1];
    cc_fm_whole(c, fi, (uint32_t)so[1], (uint32_t)so[2], (uint32_t)so[3], &o->ifm);
    cc_fm_whole(c, op->out[0], (uint32_t)so[1], (uint32_t)so[2], (uint32_t)so[3], &o->ofm);
    o->reversed = swap;
    int rc;
    if (f->data) {
        /* a constant full-shape operand is read from flash */
        o->ifm.buf = -1;
        if ((rc = cc_flash_add(c->e, f->data, f->nbytes, &o->ifm.off, err))) {
            c->e->n_eu--;
            return rc;
        }
    }
    size_t n2 = graph_tensor_elems(s2);
    if (n2 == 1 && s2->data) {
        /* a constant scalar goes in IFM2_SCALAR */
        int32_t v = s2->dtype == GRAPH_I8 ? ((const int8_t *)s2->data)[0] : ((const int16_t *)s2->data)[0];
        o->ifm2_scalar = true;
        o->scalar = v;
        memset(&o->ifm2, 0, sizeof o->ifm2);
        o->ifm2.bits = o->ifm.bits;
        o->ifm2.is_signed = true;
        o->ifm2.zp = zp_of(s2);
        o->ifm2.buf = -1;
    } else {
        o->ifm2_tensor = true;
        if (s2->data) {
            /* constant tensor operand: into flash */
            o->ifm2.buf = -1;
            cc_fm_whole(c, si, (uint32_t)ss[1], (uint32_t)ss[2], (uint32_t)ss[3], &o->ifm2);
            o->ifm2.buf = -1;
            if ((rc = cc_flash_add(c->e, s2->data, s2->nbytes, &o->ifm2.off, err))) return rc;
        } else {
            cc_fm_whole(c, si, (uint32_t)ss[1], (uint32_t)ss[2], (uint32_t)ss[3], &o->ifm2);
        }
        o->bcast_h = ss[1] != so[1];
        o->bcast_w = ss[2] != so[2];
        o->bcast_c = ss[3] != so[3];
    }
    o->ofm_scale_mode = 1;
    o->round = 0;
    switch (op->opcode) {
    case TFL_OP_ADD:
    case TFL_OP_SUB: {
        o->mode = op->opcode == TFL_OP_ADD ? 1 : 2;
        if (a->dtype == GRAPH_I16 && op->opt.pot_scale_int16) {
            /* TFLite's power-of-two int16 path may apply: keep it on the CPU
             * unless the general path is the one the reference takes */
            float l;
            bool pot = true;
            const graph_tensor *ts[3] = {a, b, out};
            for (int i = 0; i < 3; i++) {
                l = logf(ts[i]->q.scale[0]) * (1.0f / logf(2.0f));
                if (fabsf(l - roundf(l)) >= 1e-3f) pot = false;
            }
            if (pot) {
                c->e->n_eu--;
                return cc_cpu(c, "int16 %s with power-of-two scales (TFLite's shift-only path)",
                           graph_op_name(op));
            }
        }
        const float s1 = a->q.scale[0], sb2 = b->q.scale[0], so2 = out->q.scale[0];
        unsigned k = a->dtype == GRAPH_I16 ? 15 : 20;
        const double twice_max = 2.0 * (double)(s1 > sb2 ? s1 : sb2);
        const double r1 = (double)s1 / twice_max, r2 = (double)sb2 / twice_max;
        const double ro = twice_max / ((double)(1 << k) * (double)so2);
        int32_t m1, sh1, m2, sh2, mo, sho;
        k_quantize_multiplier(r1, &m1, &sh1);
        k_quantize_multiplier(r2, &m2, &sh2);
        k_quantize_multiplier(ro, &mo, &sho);
        if (!(r1 > 0 && r1 < 1 && r2 > 0 && r2 < 1 && ro > 0 && ro < 1) || sh1 > 0 || sh2 > 0 || sho > 0) {
            c->e->n_eu--;
            return cc_cpu(c, "%s rescale factors out of range", graph_op_name(op));
        }
        /* the operand at the larger scale enters exactly as x * 2^(k-1)
         * (its TFLite multiplier is exactly 0.5); the other one is scaled
         * with OPA_SCALE. Operand A is TFLite input 0 (IFM2_BROADCAST bit 6
         * swaps when input 0 is in IFM2). */
        bool a_exact = m1 == (1 << 30) && sh1 == 0;
        bool b_exact = m2 == (1 << 30) && sh2 == 0;
        int32_t ms, ss2;
        if (b_exact) {
            o->ifm_scale_mode = 1;  /* A scaled */
            ms = m1;
            ss2 = sh1;
        } else if (a_exact) {
            o->ifm_scale_mode = 2;  /* B scaled */
            ms = m2;
            ss2 = sh2;
        } else {
            c->e->n_eu--;
            return cc_cpu(c, "%s operand scales give no exact operand", graph_op_name(op));
        }
        int32_t opa_shift = 31 - ss2 - (int32_t)k;
        if (ms == 0) opa_shift = 0;
        if (opa_shift < 0 || opa_shift > 63) {
            c->e->n_eu--;
            return cc_cpu(c, "%s operand rescale out of range", graph_op_name(op));
        }
        o->has_opab = true;
        o->opa_scale = (uint32_t)ms;
        o->opa_shift = (uint8_t)opa_shift;
        o->opb_scale = 0;
        if (!cc_hw_scale_tfl(mo, sho, &o->ofm_scale, &o->ofm_shift)) {
            c->e->n_eu--;
            return cc_cpu(c, "%s output rescale out of range", graph_op_name(op));
        }
        cc_set_act(o, out, act);
        break;
    }
    case TFL_OP_MUL: {
        o->mode = 0;
        if (a->dtype == GRAPH_I16 && (zp_of(a) || zp_of(b) || zp_of(out))) {
            c->e->n_eu--;
            return cc_cpu(c, "int16 MUL with non-zero zero points");
        }
        const double real = (double)a->q.scale[0] * (double)b->q.scale[0] / (double)out->q.scale[0];
        int32_t mm, ss3;
        k_quantize_multiplier(real, &mm, &ss3);
        if (ss3 < -31 || ss3 > 30 || !cc_hw_scale_tfl(mm, ss3, &o->ofm_scale, &o->ofm_shift)) {
            c->e->n_eu--;
            return cc_cpu(c, "MUL rescale factor %g out of range", real);
        }
        cc_set_act(o, out, act);
        break;
    }
    case TFL_OP_MINIMUM:
    case TFL_OP_MAXIMUM:
        o->mode = op->opcode == TFL_OP_MINIMUM ? 3 : 4;
        /* raw comparison, as TFLite */
        o->ifm.zp = o->ifm2.zp = o->ofm.zp = 0;
        o->ofm_scale = 1;
        o->ofm_shift = 0;
        o->act_min = out->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
        o->act_max = out->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
        break;
    default:
        c->e->n_eu--;
        return cc_cpu(c, "no NPU form");
    }
    rc = cc_choose_block(c, o, err);
    if (rc) {
        c->e->n_eu--;
        if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
        return rc;
    }
    return NPUC_OK;
}

/* ------------------------------------------------------- LUT activations */

/* Runs the op alone on the reference interpreter for all 256 int8 inputs
 * (a 1x1x1x256 tensor with the op's quantization) and returns the outputs. */
static int reference_table(const lower_ctx *c, const graph_op *op, int8_t table[256], npuc_err *err)
{
    const graph_tensor *in = tin(c, op, 0), *out = tout(c, op, 0);
    graph *t = graph_new("lut");
    if (!t) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t shape[4] = {1, 1, 1, 256};
    int rc = NPUC_OK;
    int32_t ti = graph_add_tensor(t, "x", GRAPH_I8, 4, shape, NULL);
    int32_t to = graph_add_tensor(t, "y", GRAPH_I8, 4, shape, NULL);
    int32_t ins[8] = {ti, -1, -1, -1, -1, -1, -1, -1};
    if (ti < 0 || to < 0 || op->n_in > 8) {
        graph_free(t);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    graph_set_quant(t, ti, in->q.n, in->q.scale, in->q.zero_point, in->q.axis);
    graph_set_quant(t, to, out->q.n, out->q.scale, out->q.zero_point, out->q.axis);
    /* further (constant) inputs, e.g. a PRELU alpha, are copied */
    for (int32_t i = 1; i < op->n_in; i++) {
        const graph_tensor *x = tin(c, op, i);
        if (!x) continue;
        int32_t k = graph_add_tensor(t, x->name, x->dtype, x->rank, x->shape, x->data);
        if (k < 0) {
            graph_free(t);
            return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        }
        graph_set_quant(t, k, x->q.n, x->q.scale, x->q.zero_point, x->q.axis);
        ins[i] = k;
    }
    int32_t oi = graph_add_op(t, op->opcode, &op->opt, op->n_in, ins, 1, &to);
    interp *ip = NULL;
    if (oi < 0 || graph_set_io(t, 1, &ti, 1, &to)) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    t->ops[oi].version = op->version;
    interp_options io;
    memset(&io, 0, sizeof io);
    if ((rc = interp_create(t, &io, &ip, err))) goto done;
    int8_t x[256];
    for (int i = 0; i < 256; i++) x[i] = (int8_t)(i - 128);
    if ((rc = interp_set_input(ip, 0, x, sizeof x, err))) goto done;
    if ((rc = interp_invoke(ip, err))) goto done;
    size_t n = 0;
    const void *y = interp_output(ip, 0, &n);
    if (n != 256) {
        rc = npuc_errf(err, NPUC_E_RUNTIME, "LUT evaluation gave %zu bytes", n);
        goto done;
    }
    memcpy(table, y, 256);
done:
    interp_free(ip);
    graph_free(t);
    return rc;
}

static int lower_lut(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = tin(c, op, 0), *out = tout(c, op, 0);
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (in->dtype != GRAPH_I8 || out->dtype != GRAPH_I8)
        return cc_cpu(c, "%s -> %s (NPU lookup tables are built for int8)", graph_dtype_name(in->dtype),
                   graph_dtype_name(out->dtype));
    for (int32_t i = 1; i < op->n_in; i++) {
        const graph_tensor *x = tin(c, op, i);
        if (x && !x->data) return cc_cpu(c, "input %d is not constant", i);
    }
    if (graph_tensor_elems(in) != graph_tensor_elems(out)) return cc_cpu(c, "input and output sizes differ");
    uint32_t h, w, ch;
    if (!hwc_of(out, &h, &w, &ch)) return cc_cpu(c, "tensor too large for one NPU op");
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    int8_t table[256];
    npuc_err e2;
    int rc = reference_table(c, op, table, &e2);
    if (rc) return cc_cpu(c, "the reference rejects it: %s", e2.msg);
    int32_t li;
    if ((rc = cc_add_lut(c, table, 256, &li, err))) return rc;
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    cc_fm_whole(c, op->in[0], h, w, ch, &o->ifm);
    cc_fm_whole(c, op->out[0], h, w, ch, &o->ofm);
    cc_lut_op(o, li);
    rc = cc_choose_block(c, o, err);
    if (rc) {
        c->e->n_eu--;
        if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
        return rc;
    }
    return NPUC_OK;
}

/* ------------------------------------------------------------- slices */

/* A slice the single op below does not take (channel strides, negative
 * strides, several batches, 5 dims): strided copies (cc_transpose.c). */
static int slice_copies(lower_ctx *c, const graph_op *op, const k_slice_params *sp, npuc_err *err)
{
    int64_t n[K_MAX_DIMS], is[K_MAX_DIMS], base = 0, st = 1;
    for (int32_t k = sp->rank - 1; k >= 0; k--) {
        n[k] = k_slice_count(sp->start[k], sp->stop[k], sp->stride[k]);
        is[k] = (int64_t)sp->stride[k] * st;
        base += (int64_t)sp->start[k] * st;
        st *= sp->in_dims[k];
    }
    return cc_strided_copy(c, op->in[0], op->out[0], sp->rank, n, is, base, err);
}

/* STRIDED_SLICE / SLICE: a 1x1 MAX pool (a raw copy) whose IFM starts at
 * the slice's first element and steps over the input with the slice's
 * strides; the output is written whole. Other slices: slice_copies. */
static int lower_slice(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    const graph_tensor *in = tin(c, op, 0), *out = tout(c, op, 0);
    if (!in || !out) return cc_cpu(c, "missing input or output");
    if (!npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s tensors", graph_dtype_name(in->dtype));
    if (in->q.n >= 1 && out->q.n >= 1 &&
        (in->q.scale[0] != out->q.scale[0] || in->q.zero_point[0] != out->q.zero_point[0]))
        return cc_cpu(c, "input and output quantization differ");
    if (c->m->buf_of[op->in[0]] < 0 || c->m->buf_of[op->out[0]] < 0) return cc_cpu(c, "constant input");
    bool strided = op->opcode == TFL_OP_STRIDED_SLICE;
    int n_idx = strided ? 3 : 2;
    int32_t v[3][K_MAX_DIMS];
    int32_t cnt = -1;
    for (int k = 0; k < n_idx; k++) {
        const graph_tensor *x = tin(c, op, 1 + k);
        if (!x || !x->data || x->dtype != GRAPH_I32 || x->rank != 1) return cc_cpu(c, "slice indices are not constant int32");
        int32_t n = x->shape[0];
        if (n > K_MAX_DIMS || (cnt >= 0 && n != cnt)) return cc_cpu(c, "slice index counts differ");
        cnt = n;
        memcpy(v[k], x->data, sizeof(int32_t) * (size_t)n);
    }
    k_slice_params sp;
    memset(&sp, 0, sizeof sp);
    k_dims din, dout;
    din.rank = in->rank;
    for (int32_t i = 0; i < in->rank; i++) din.d[i] = in->shape[i];
    if (in->rank > K_MAX_DIMS) return cc_cpu(c, "rank %d", in->rank);
    if (strided) {
        const tfl_options *o = &op->opt;
        for (int32_t i = 0; i < cnt; i++)
            if (!v[2][i]) return cc_cpu(c, "zero stride");
        k_strided_slice_spec spec = {.n = cnt, .begin = v[0], .end = v[1], .strides = v[2],
                                     .begin_mask = o->begin_mask, .end_mask = o->end_mask,
                                     .ellipsis_mask = o->ellipsis_mask, .new_axis_mask = o->new_axis_mask,
                                     .shrink_axis_mask = o->shrink_axis_mask, .offset = o->offset};
        if (k_strided_slice_resolve(&din, &spec, &sp, &dout) != K_OK) return cc_cpu(c, "slice the reference rejects");
    } else {
        if (cnt != in->rank) return cc_cpu(c, "slice of rank %d with %d indices", in->rank, cnt);
        sp.rank = in->rank;
        for (int32_t i = 0; i < in->rank; i++) {
            int32_t b = v[0][i], sz = v[1][i];
            if (sz < 0) sz = in->shape[i] - b;
            if (b < 0 || sz < 0 || (int64_t)b + sz > in->shape[i]) return cc_cpu(c, "slice out of range");
            sp.in_dims[i] = in->shape[i];
            sp.start[i] = b;
            sp.stop[i] = b + sz;
            sp.stride[i] = 1;
        }
    }
    bool one_op = sp.rank <= 4;
    for (int32_t k = 0; k < sp.rank; k++) {
        int32_t n = k_slice_count(sp.start[k], sp.stop[k], sp.stride[k]);
        if (n <= 0) return cc_cpu(c, "empty slice");
        if (sp.start[k] < 0 || sp.start[k] >= sp.in_dims[k] || (int64_t)sp.start[k] + (int64_t)(n - 1) * sp.stride[k] < 0 ||
            (int64_t)sp.start[k] + (int64_t)(n - 1) * sp.stride[k] >= sp.in_dims[k])
            return cc_cpu(c, "slice out of range");
        if (sp.stride[k] < 1) one_op = false;
        if (k == sp.rank - 1 && sp.stride[k] != 1 && n > 1) one_op = false;   /* strides the channels */
        if (k + 4 == sp.rank && n != 1) one_op = false;                       /* keeps batches */
        if (k + 4 > sp.rank && n > 65536) one_op = false;
    }
    if (!one_op) return slice_copies(c, op, &sp, err);
    /* pad to 4-d on the left */
    int32_t dim[4], st[4], stp[4];
    int32_t pad = 4 - sp.rank;
    for (int i = 0; i < 4; i++) {
        int32_t k = i - pad;
        dim[i] = k >= 0 ? sp.in_dims[k] : 1;
        st[i] = k >= 0 ? sp.start[k] : 0;
        stp[i] = k >= 0 ? sp.stride[k] : 1;
    }
    int32_t cntd[4];
    for (int i = 0; i < 4; i++) {
        int32_t k = i - pad;
        cntd[i] = k >= 0 ? k_slice_count(sp.start[k], sp.stop[k], sp.stride[k]) : 1;
    }
    if ((size_t)cntd[1] * cntd[2] * cntd[3] != graph_tensor_elems(out)) return cc_cpu(c, "output size mismatch");
    uint64_t es = graph_dtype_size(in->dtype);
    eu_op *o = cc_new_eu(c, err);
    if (!o) return err->code;
    o->kind = SIM_K_POOL;
    o->mode = 0;   /* MAX over one tap: the value itself */
    cc_fm_whole(c, op->in[0], (uint32_t)cntd[1], (uint32_t)cntd[2], (uint32_t)cntd[3], &o->ifm);
    uint64_t C = (uint64_t)dim[3], W = (uint64_t)dim[2], H = (uint64_t)dim[1];
    o->ifm.off = ((((uint64_t)st[0] * H + (uint64_t)st[1]) * W + (uint64_t)st[2]) * C + (uint64_t)st[3]) * es;
    o->ifm.sx = C * es * (uint64_t)stp[2];
    o->ifm.sy = W * C * es * (uint64_t)stp[1];
    o->ifm.sc = es;
    o->ifm.full_w = (uint32_t)W;
    o->ifm.full_c = (uint32_t)C;
    cc_fm_whole(c, op->out[0], (uint32_t)cntd[1], (uint32_t)cntd[2], (uint32_t)cntd[3], &o->ofm);
    o->ifm.zp = 0;
    o->ofm.zp = 0;
    o->ofm_scale_mode = 0;
    o->act_min = in->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    o->act_max = in->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    o->flex = false;   /* the IFM is addressed with the input's NHWC strides */
    int rc = cc_choose_block(c, o, err);
    if (rc) {
        c->e->n_eu--;
        if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
        return rc;
    }
    return NPUC_OK;
}

/* ------------------------------------------------------------- driver */

static bool is_view(int32_t opcode)
{
    return opcode == TFL_OP_RESHAPE || opcode == TFL_OP_SQUEEZE || opcode == TFL_OP_EXPAND_DIMS;
}

static bool is_lut_op(int32_t opcode)
{
    switch (opcode) {
    case TFL_OP_LOGISTIC: case TFL_OP_TANH: case TFL_OP_HARD_SWISH: case TFL_OP_LEAKY_RELU:
    case TFL_OP_RELU: case TFL_OP_RELU6: case TFL_OP_RELU_N1_TO_1: case TFL_OP_QUANTIZE:
        return true;
    default:
        return false;
    }
}

/* Lowers one op into the open epoch: 0 = on the NPU, 1 = CPU (reason set),
 * other = error. */
static int lower_op(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    for (int32_t i = 0; i < op->n_out; i++)
        if (op->out[i] >= 0 && c->g->tensors[op->out[i]].is_variable)
            return cc_cpu(c, "writes a state tensor");
    if (cc_is_lut16_op(c, op)) return cc_lower_act16(c, op, err);
    switch (op->opcode) {
    case TFL_OP_PAD:
    case TFL_OP_PADV2:
        return cc_lower_pad(c, op, err);
    case TFL_OP_CONCATENATION:
        return cc_lower_concat(c, op, err);
    case TFL_OP_TRANSPOSE_CONV:
        return cc_lower_tconv(c, op, err);
    case TFL_OP_MEAN:
        return cc_lower_mean(c, op, err);
    case TFL_OP_RESIZE_NEAREST_NEIGHBOR:
    case TFL_OP_RESIZE_BILINEAR:
        return cc_lower_resize(c, op, err);
    case TFL_OP_CONV_2D:
    case TFL_OP_DEPTHWISE_CONV_2D:
    case TFL_OP_FULLY_CONNECTED:
        return lower_conv_like(c, op, err);
    case TFL_OP_AVERAGE_POOL_2D:
    case TFL_OP_MAX_POOL_2D:
        return lower_pool(c, op, err);
    case TFL_OP_ADD:
    case TFL_OP_SUB:
    case TFL_OP_MUL:
    case TFL_OP_MINIMUM:
    case TFL_OP_MAXIMUM:
        return lower_binary(c, op, err);
    case TFL_OP_SOFTMAX:
        return cc_lower_softmax(c, op, err);
    case TFL_OP_STRIDED_SLICE:
    case TFL_OP_SLICE:
        return lower_slice(c, op, err);
    case TFL_OP_TRANSPOSE:
        return cc_lower_transpose(c, op, err);
    default:
        if (is_lut_op(op->opcode)) return lower_lut(c, op, err);
        return cc_cpu(c, "%s has no NPU form in this compiler", graph_op_name(op));
    }
}

static int add_buf(cc_model *m, int32_t tensor, npuc_err *err)
{
    cc_buf *b = new_buf(m, m->g->tensors[tensor].nbytes, tensor, err);
    if (!b) return err->code;
    m->buf_of[tensor] = (int32_t)(b - m->bufs);
    return NPUC_OK;
}

static cc_epoch *new_epoch(cc_model *m, cc_epoch_kind k, int32_t first, npuc_err *err)
{
    if (!grow((void **)&m->epochs, &m->cap_epochs, m->n_epochs, sizeof *m->epochs, err)) return NULL;
    cc_epoch *e = &m->epochs[m->n_epochs++];
    memset(e, 0, sizeof *e);
    e->kind = k;
    e->first_op = first;
    return e;
}

/* Buffers: every non-constant tensor gets one; a view's output shares its
 * input's buffer (the bytes are the same in NHWC). */
static int make_buffers(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    for (int32_t t = 0; t < g->n_tensors; t++) m->buf_of[t] = -1;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        const graph_tensor *x = &g->tensors[t];
        if (x->data || x->producer >= 0) continue;
        int rc = add_buf(m, t, err);
        if (rc) return rc;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        bool alias = is_view(op->opcode) && op->n_in >= 1 && op->n_out == 1 && op->in[0] >= 0 &&
                     op->out[0] >= 0 && m->buf_of[op->in[0]] >= 0 &&
                     g->tensors[op->in[0]].dtype == g->tensors[op->out[0]].dtype &&
                     g->tensors[op->in[0]].nbytes == g->tensors[op->out[0]].nbytes;
        for (int32_t k = 0; k < op->n_out; k++) {
            int32_t t = op->out[k];
            if (t < 0 || m->buf_of[t] >= 0) continue;
            if (alias) {
                m->buf_of[t] = m->buf_of[op->in[0]];
            } else {
                int rc = add_buf(m, t, err);
                if (rc) return rc;
            }
        }
    }
    return NPUC_OK;
}

/* Closes the open HW epoch. One without ops is dropped; one holding only
 * views (no NPU op to run) becomes one SW epoch per view: the views stay
 * with the CPU ops around them, and run as nothing (their output aliases
 * their input's buffer). */
static int close_epoch(lower_ctx *c, npuc_err *err)
{
    cc_model *m = c->m;
    cc_epoch *e = c->e;
    c->e = NULL;
    if (!e) return NPUC_OK;
    int32_t first = e->first_op, n = e->n_ops;
    bool only_views = e->n_eu == 0;
    for (int32_t j = first; j < first + n && only_views; j++) only_views = is_view(m->g->ops[j].opcode);
    if (n > 0 && !only_views) return NPUC_OK;
    free(e->ops);
    free(e->flash);
    free(e->luts);
    m->n_epochs--;
    for (int32_t j = first; j < first + n; j++) {
        cc_epoch *se = new_epoch(m, CC_EPOCH_SW, j, err);
        if (!se) return err->code;
        se->n_ops = 1;
        cc_op_info *info = &m->ops[j];
        info->npu = false;
        info->epoch = m->n_epochs - 1;
        info->first_eu = info->n_eu = 0;
        snprintf(info->why, sizeof info->why,
                 "%s with no NPU op to join: a CPU op that moves no bytes (its output aliases its "
                 "input's buffer)", graph_op_name(&m->g->ops[j]));
    }
    return NPUC_OK;
}

int cc_lower(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    int rc = make_buffers(m, err);
    if (rc) return rc;
    lower_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.g = g;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        cc_op_info *info = &m->ops[i];
        c.op_index = i;
        c.why = info->why;
        info->macs = graph_op_macs(g, op);
        bool exotic = false;
        for (int32_t k = 0; k < op->n_in + op->n_out && !exotic; k++) {
            int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            exotic = t >= 0 && !interp_dtype_runs(g->tensors[t].dtype);
        }
        if (exotic) {
            /* float16, int4, string, ...: neither the NPU nor (unless the
             * op opts in) the reference kernels; the reason names the tensor */
            if (interp_op_supported(g, op, info->why, sizeof info->why))
                snprintf(info->why, sizeof info->why, "a tensor type the NPU does not take");
            if (c.e && (rc = close_epoch(&c, err))) return rc;
            cc_epoch *e = new_epoch(m, CC_EPOCH_SW, i, err);
            if (!e) return err->code;
            e->n_ops = 1;
            info->npu = false;
            info->epoch = m->n_epochs - 1;
            continue;
        }
        bool view = is_view(op->opcode) && op->n_out == 1 && op->out[0] >= 0 && op->in[0] >= 0 &&
                    m->buf_of[op->out[0]] == m->buf_of[op->in[0]] && m->buf_of[op->in[0]] >= 0;
        if (!c.e) {
            cc_epoch *e = new_epoch(m, CC_EPOCH_HW, i, err);
            if (!e) return err->code;
            c.e = e;
        }
        if (view) {
            /* no bytes move: part of the HW epoch around it (one opened by a
             * view joins the NPU ops after it; close_epoch hands views
             * with no NPU op in their epoch back to the CPU) */
            info->npu = true;
            info->epoch = (int32_t)(c.e - m->epochs);
            info->first_eu = c.e->n_eu;
            c.e->n_ops = i - c.e->first_op + 1;
            continue;
        }
        int32_t before = c.e->n_eu;
        rc = lower_op(&c, op, err);
        if (rc == 0) {
            info->npu = true;
            info->epoch = (int32_t)(c.e - m->epochs);
            info->first_eu = before;
            info->n_eu = c.e->n_eu - before;
            c.e->n_ops = i - c.e->first_op + 1;
            continue;
        }
        if (rc != 1) return npuc_err_prefix(err, "op %d (%s)", i, graph_op_name(op)), rc;
        /* CPU op: close the HW epoch and add a SW epoch */
        c.e->n_eu = before;
        if ((rc = close_epoch(&c, err))) return rc;
        cc_epoch *e = new_epoch(m, CC_EPOCH_SW, i, err);
        if (!e) return err->code;
        e->n_ops = 1;
        info->npu = false;
        info->epoch = m->n_epochs - 1;
    }
    return close_epoch(&c, err);
}
