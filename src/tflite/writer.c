/* TFLite flatbuffer writer (own code, no flatbuffers library).
 *
 * The image is built back to front, as flatbuffers builders do: children
 * (vectors, strings, sub-tables) are written first at the end of the buffer
 * and parents refer forward to them. Positions are kept as distances from
 * the end of the buffer ("pos"), which stay valid when the buffer grows; the
 * finished image length is padded so that alignment from the end equals
 * alignment from the start.
 *
 * Scalars equal to their schema default are omitted (as flatc does); buffer
 * data is aligned to 16 bytes (force_align in the schema); buffers are always
 * written in the inline form. Output is a pure function of the model. */
#include "tflite.h"
#include "options_desc.h"

#include <stdlib.h>
#include <string.h>

#define FB_MAX_FIELDS 16

typedef struct fb {
    uint8_t *buf;       /* data lives in buf[cap - len, cap) */
    size_t cap, len;
    size_t minalign;
    bool oom;
    /* table under construction */
    size_t tstart;
    int nf;
    int fid[FB_MAX_FIELDS];
    size_t fpos[FB_MAX_FIELDS];
    /* written vtables, for sharing identical ones */
    size_t *vts;
    size_t nvts, capvts;
} fb;

static bool fb_reserve(fb *b, size_t n)
{
    if (b->oom) return false;
    if (b->cap - b->len >= n) return true;
    size_t nc = b->cap ? b->cap : 1024;
    while (nc - b->len < n) {
        if (nc > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        nc *= 2;
    }
    uint8_t *nb = malloc(nc);
    if (!nb) {
        b->oom = true;
        return false;
    }
    if (b->len) memcpy(nb + nc - b->len, b->buf + b->cap - b->len, b->len);
    free(b->buf);
    b->buf = nb;
    b->cap = nc;
    return true;
}

static uint8_t *fb_at(fb *b, size_t pos) { return b->buf + b->cap - pos; }

static void fb_pad(fb *b, size_t n)
{
    if (n == 0 || !fb_reserve(b, n)) return;
    b->len += n;
    memset(fb_at(b, b->len), 0, n);
}

/* Pads so that after writing `extra` more bytes, len is a multiple of align. */
static void fb_prep(fb *b, size_t align, size_t extra)
{
    if (align > b->minalign) b->minalign = align;
    size_t pad = (align - ((b->len + extra) % align)) % align;
    fb_pad(b, pad);
}

static void fb_bytes(fb *b, const void *p, size_t n)
{
    if (!fb_reserve(b, n)) return;
    b->len += n;
    if (n) memcpy(fb_at(b, b->len), p, n);
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Pushes an aligned little-endian scalar; returns its position. */
static size_t fb_scalar(fb *b, uint64_t v, size_t n)
{
    fb_prep(b, n, 0);
    if (!fb_reserve(b, n)) return 0;
    b->len += n;
    put_le(fb_at(b, b->len), v, n);
    return b->len;
}

/* Pushes a uoffset that refers to the object at position `target`. */
static size_t fb_uoffset(fb *b, size_t target)
{
    fb_prep(b, 4, 0);
    return fb_scalar(b, (uint64_t)(b->len + 4 - target), 4);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- vectors and strings (return the position of the length word) ---- */

static size_t fb_vec_raw(fb *b, const void *data, size_t count, size_t elem, size_t align)
{
    size_t n = count * elem;
    fb_prep(b, 4, n);
    if (align > 4) fb_prep(b, align, n);
    /* elements are written as little-endian scalars one by one */
    if (!fb_reserve(b, n)) return 0;
    b->len += n;
    uint8_t *dst = fb_at(b, b->len);
    const uint8_t *src = data;
    for (size_t i = 0; i < count; i++) {
        uint64_t v = 0;
        switch (elem) {
        case 1: v = src[i]; break;
        case 4: { uint32_t x; memcpy(&x, src + 4 * i, 4); v = x; } break;
        case 8: { uint64_t x; memcpy(&x, src + 8 * i, 8); v = x; } break;
        }
        put_le(dst + elem * i, v, elem);
    }
    return fb_scalar(b, (uint64_t)count, 4);
}

static size_t fb_vec_i32(fb *b, const int32_t *v, int32_t n) { return fb_vec_raw(b, v, (size_t)n, 4, 4); }
static size_t fb_vec_f32(fb *b, const float *v, int32_t n) { return fb_vec_raw(b, v, (size_t)n, 4, 4); }
static size_t fb_vec_i64(fb *b, const int64_t *v, int32_t n) { return fb_vec_raw(b, v, (size_t)n, 8, 8); }
static size_t fb_vec_u8(fb *b, const uint8_t *v, size_t n, size_t align) { return fb_vec_raw(b, v, n, 1, align); }

static size_t fb_vec_bool(fb *b, const bool *v, int32_t n)
{
    size_t cnt = (size_t)n;
    fb_prep(b, 4, cnt);
    if (!fb_reserve(b, cnt)) return 0;
    b->len += cnt;
    uint8_t *dst = fb_at(b, b->len);
    for (size_t i = 0; i < cnt; i++) dst[i] = v[i] ? 1 : 0;
    return fb_scalar(b, (uint64_t)cnt, 4);
}

/* A vector of uoffsets to already written objects. */
static size_t fb_vec_refs(fb *b, const size_t *targets, int32_t n)
{
    fb_prep(b, 4, 4 * (size_t)n);
    for (int32_t i = n - 1; i >= 0; i--) fb_uoffset(b, targets[i]);
    return fb_scalar(b, (uint64_t)n, 4);
}

static size_t fb_string(fb *b, const char *s)
{
    size_t n = strlen(s);
    fb_prep(b, 4, n + 1);
    fb_pad(b, 1); /* NUL */
    fb_bytes(b, s, n);
    return fb_scalar(b, (uint64_t)n, 4);
}

/* ---- tables ---- */

static void fb_start(fb *b)
{
    b->tstart = b->len;
    b->nf = 0;
}

static void fb_track(fb *b, int id, size_t pos)
{
    if (b->nf < FB_MAX_FIELDS) {
        b->fid[b->nf] = id;
        b->fpos[b->nf] = pos;
        b->nf++;
    }
}

/* Scalar field, omitted when equal to its default. */
static void fb_field(fb *b, int id, uint64_t v, uint64_t def, size_t n)
{
    if (v == def) return;
    fb_track(b, id, fb_scalar(b, v, n));
}

/* Scalar field written even when it equals the default (union type, etc.). */
static void fb_field_force(fb *b, int id, uint64_t v, size_t n) { fb_track(b, id, fb_scalar(b, v, n)); }

/* uoffset field (target 0 = absent). */
static void fb_field_ref(fb *b, int id, size_t target)
{
    if (!target) return;
    fb_track(b, id, fb_uoffset(b, target));
}

/* Ends the table: writes the soffset and the vtable; returns table position. */
static size_t fb_end(fb *b)
{
    fb_prep(b, 4, 0);
    size_t tpos = fb_scalar(b, 0, 4); /* soffset placeholder */
    int maxid = -1;
    for (int i = 0; i < b->nf; i++)
        if (b->fid[i] > maxid) maxid = b->fid[i];
    uint16_t vt[2 + FB_MAX_FIELDS];
    size_t vn = 2 + (size_t)(maxid + 1);
    memset(vt, 0, sizeof vt);
    vt[0] = (uint16_t)(2 * vn);
    vt[1] = (uint16_t)(tpos - b->tstart);
    for (int i = 0; i < b->nf; i++) vt[2 + b->fid[i]] = (uint16_t)(tpos - b->fpos[i]);
    uint8_t raw[2 * (2 + FB_MAX_FIELDS)];
    for (size_t i = 0; i < vn; i++) put_le(raw + 2 * i, vt[i], 2);
    if (b->oom) return 0;

    /* share an identical vtable written earlier */
    size_t vpos = 0;
    for (size_t i = 0; i < b->nvts; i++) {
        const uint8_t *o = fb_at(b, b->vts[i]);
        if ((size_t)(o[0] | (o[1] << 8)) == 2 * vn && memcmp(o, raw, 2 * vn) == 0) {
            vpos = b->vts[i];
            break;
        }
    }
    if (!vpos) {
        fb_bytes(b, raw, 2 * vn);
        vpos = b->len;
        if (b->nvts == b->capvts) {
            size_t nc = b->capvts ? b->capvts * 2 : 32;
            size_t *nv = realloc(b->vts, nc * sizeof *nv);
            if (!nv) {
                b->oom = true;
                return 0;
            }
            b->vts = nv;
            b->capvts = nc;
        }
        b->vts[b->nvts++] = vpos;
    }
    if (b->oom) return 0;
    /* soffset = table address - vtable address (may be negative when shared) */
    int64_t so = (int64_t)vpos - (int64_t)tpos;
    put_le(fb_at(b, tpos), (uint64_t)(uint32_t)(int32_t)so, 4);
    return tpos;
}

/* ---- model sections ---- */

typedef struct wr {
    fb b;
    const tfl_model *m;
    npuc_err *err;
} wr;

static size_t opt_str(fb *b, const char *s) { return s ? fb_string(b, s) : 0; }

static int write_options(wr *w, const tfl_operator *op, int32_t si, int32_t oi, size_t *pos)
{
    int32_t nf;
    const tfl_field_desc *f = tfl_options_fields(op->options_type, &nf);
    if (!op->options_known || !f)
        return npuc_errf(w->err, NPUC_E_UNSUPPORTED, "cannot write options of type %d for op %d (subgraph %d)",
                         op->options_type, oi, si);
    tfl_options def;
    tfl_options_default(&def);
    const tfl_options *o = &op->options;
    size_t refs[FB_MAX_FIELDS] = {0};
    /* vectors first (children precede the table) */
    for (int32_t i = 0; i < nf && i < FB_MAX_FIELDS; i++) {
        if (f[i].kind != TFL_F_VEC_I32) continue;
        const char *base = (const char *)o;
        bool has = *(const bool *)(base + f[i].has_off);
        if (!has) continue;
        const int32_t *v = *(int32_t *const *)(base + f[i].off);
        int32_t n = *(const int32_t *)(base + f[i].count_off);
        refs[i] = fb_vec_i32(&w->b, v, n);
    }
    for (int32_t i = 0; i < nf && i < FB_MAX_FIELDS; i++) {
        if (f[i].kind != TFL_F_STR) continue;
        const char *str = *(char *const *)((const char *)o + f[i].off);
        if (str) refs[i] = fb_string(&w->b, str);
    }
    fb *b = &w->b;
    fb_start(b);
    /* largest scalars first to keep padding small */
    static const int order[] = {TFL_F_VEC_I32, TFL_F_STR, TFL_F_I32, TFL_F_F32, TFL_F_I8, TFL_F_BOOL};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        for (int32_t i = 0; i < nf && i < FB_MAX_FIELDS; i++) {
            if (f[i].kind != order[k]) continue;
            const char *base = (const char *)o + f[i].off;
            const char *dbase = (const char *)&def + f[i].off;
            switch (f[i].kind) {
            case TFL_F_VEC_I32: fb_field_ref(b, f[i].id, refs[i]); break;
            case TFL_F_STR:
                if (refs[i]) fb_field_ref(b, f[i].id, refs[i]);
                break;
            case TFL_F_I32:
                fb_field(b, f[i].id, (uint32_t)*(const int32_t *)base, (uint32_t)*(const int32_t *)dbase, 4);
                break;
            case TFL_F_F32:
                fb_field(b, f[i].id, f32_bits(*(const float *)base), f32_bits(*(const float *)dbase), 4);
                break;
            case TFL_F_I8:
                fb_field(b, f[i].id, (uint8_t)*(const int8_t *)base, (uint8_t)*(const int8_t *)dbase, 1);
                break;
            case TFL_F_BOOL:
                fb_field(b, f[i].id, *(const bool *)base ? 1 : 0, *(const bool *)dbase ? 1 : 0, 1);
                break;
            }
        }
    }
    *pos = fb_end(b);
    return NPUC_OK;
}

static int write_operator(wr *w, const tfl_operator *op, int32_t si, int32_t oi, size_t *pos)
{
    fb *b = &w->b;
    size_t opts = 0;
    if (op->options_type != 0) {
        int rc = write_options(w, op, si, oi, &opts);
        if (rc) return rc;
    }
    size_t in = op->inputs ? fb_vec_i32(b, op->inputs, op->n_inputs) : 0;
    size_t out = op->outputs ? fb_vec_i32(b, op->outputs, op->n_outputs) : 0;
    size_t cust = op->has_custom_options ? fb_vec_u8(b, op->custom_options, op->n_custom_options, 4) : 0;
    size_t mut = op->mutating_variable_inputs ? fb_vec_bool(b, op->mutating_variable_inputs, op->n_mutating_variable_inputs) : 0;
    size_t inter = op->intermediates ? fb_vec_i32(b, op->intermediates, op->n_intermediates) : 0;
    fb_start(b);
    fb_field(b, 0, op->opcode_index, 0, 4);
    fb_field_ref(b, 1, in);
    fb_field_ref(b, 2, out);
    fb_field_ref(b, 4, opts);
    fb_field_ref(b, 5, cust);
    fb_field_ref(b, 7, mut);
    fb_field_ref(b, 8, inter);
    if (op->options_type != 0) fb_field_force(b, 3, op->options_type, 1);
    fb_field(b, 6, (uint8_t)op->custom_options_format, 0, 1);
    *pos = fb_end(b);
    return NPUC_OK;
}

static int write_quant(wr *w, const tfl_tensor *t, int32_t si, int32_t ti, size_t *pos)
{
    const tfl_quant *q = &t->quant;
    fb *b = &w->b;
    if (q->details_type != 0)
        return npuc_errf(w->err, NPUC_E_UNSUPPORTED,
                         "cannot write quantization details (type %u) of subgraph %d tensor %d (%s)",
                         q->details_type, si, ti, t->name ? t->name : "");
    size_t mn = q->min ? fb_vec_f32(b, q->min, q->n_min) : 0;
    size_t mx = q->max ? fb_vec_f32(b, q->max, q->n_max) : 0;
    size_t sc = q->scale ? fb_vec_f32(b, q->scale, q->n_scale) : 0;
    size_t zp = q->zero_point ? fb_vec_i64(b, q->zero_point, q->n_zero_point) : 0;
    fb_start(b);
    fb_field_ref(b, 0, mn);
    fb_field_ref(b, 1, mx);
    fb_field_ref(b, 2, sc);
    fb_field_ref(b, 3, zp);
    fb_field(b, 6, (uint32_t)q->quantized_dimension, 0, 4);
    *pos = fb_end(b);
    return NPUC_OK;
}

static int write_tensor(wr *w, const tfl_tensor *t, int32_t si, int32_t ti, size_t *pos)
{
    fb *b = &w->b;
    if (t->has_sparsity)
        return npuc_errf(w->err, NPUC_E_UNSUPPORTED, "cannot write sparsity of subgraph %d tensor %d (%s)", si, ti,
                         t->name ? t->name : "");
    size_t q = 0;
    if (t->quant.present) {
        int rc = write_quant(w, t, si, ti, &q);
        if (rc) return rc;
    }
    size_t sig = t->has_shape_signature ? fb_vec_i32(b, t->shape_signature, t->rank_signature) : 0;
    size_t name = opt_str(b, t->name);
    size_t shape = t->has_shape ? fb_vec_i32(b, t->shape, t->rank) : 0;
    fb_start(b);
    fb_field_ref(b, 0, shape);
    fb_field(b, 2, t->buffer, 0, 4);
    fb_field_ref(b, 3, name);
    fb_field_ref(b, 4, q);
    fb_field_ref(b, 7, sig);
    fb_field(b, 1, (uint8_t)t->type, 0, 1);
    fb_field(b, 5, t->is_variable ? 1 : 0, 0, 1);
    fb_field(b, 8, t->has_rank ? 1 : 0, 0, 1);
    *pos = fb_end(b);
    return NPUC_OK;
}

static int write_subgraph(wr *w, const tfl_subgraph *s, int32_t si, size_t *pos)
{
    fb *b = &w->b;
    int rc;
    size_t *refs = calloc((size_t)(s->n_operators > s->n_tensors ? s->n_operators : s->n_tensors) + 1, sizeof *refs);
    if (!refs) return npuc_errf(w->err, NPUC_E_NOMEM, "out of memory while writing subgraph %d", si);
    size_t name = opt_str(b, s->name);
    for (int32_t i = s->n_operators - 1; i >= 0; i--)
        if ((rc = write_operator(w, &s->operators[i], si, i, &refs[i]))) goto fail;
    size_t ops = s->operators ? fb_vec_refs(b, refs, s->n_operators) : 0;
    size_t out = s->outputs ? fb_vec_i32(b, s->outputs, s->n_outputs) : 0;
    size_t in = s->inputs ? fb_vec_i32(b, s->inputs, s->n_inputs) : 0;
    for (int32_t i = s->n_tensors - 1; i >= 0; i--)
        if ((rc = write_tensor(w, &s->tensors[i], si, i, &refs[i]))) goto fail;
    size_t tens = s->tensors ? fb_vec_refs(b, refs, s->n_tensors) : 0;
    free(refs);
    fb_start(b);
    fb_field_ref(b, 0, tens);
    fb_field_ref(b, 1, in);
    fb_field_ref(b, 2, out);
    fb_field_ref(b, 3, ops);
    fb_field_ref(b, 4, name);
    *pos = fb_end(b);
    return NPUC_OK;
fail:
    free(refs);
    return rc;
}

static size_t write_tensor_maps(fb *b, const tfl_tensor_map *maps, int32_t n, size_t *refs)
{
    for (int32_t i = n - 1; i >= 0; i--) {
        size_t name = opt_str(b, maps[i].name);
        fb_start(b);
        fb_field_ref(b, 0, name);
        fb_field(b, 1, maps[i].tensor_index, 0, 4);
        refs[i] = fb_end(b);
    }
    return fb_vec_refs(b, refs, n);
}

static size_t max_i32(size_t a, int32_t b) { return b > 0 && (size_t)b > a ? (size_t)b : a; }

static int write_model(wr *w, size_t *root)
{
    const tfl_model *m = w->m;
    fb *b = &w->b;
    size_t most = 1;
    most = max_i32(most, m->n_buffers);
    most = max_i32(most, m->n_subgraphs);
    most = max_i32(most, m->n_opcodes);
    most = max_i32(most, m->n_metadata);
    most = max_i32(most, m->n_signatures);
    for (int32_t i = 0; i < m->n_signatures; i++) {
        most = max_i32(most, m->signatures[i].n_inputs);
        most = max_i32(most, m->signatures[i].n_outputs);
    }
    size_t *refs = calloc(most, sizeof *refs);
    if (!refs) return npuc_errf(w->err, NPUC_E_NOMEM, "out of memory while writing a model");
    int rc = NPUC_OK;

    /* Buffers first: they end up at the end of the file, as converters do. */
    for (int32_t i = m->n_buffers - 1; i >= 0; i--) {
        const tfl_buffer *bf = &m->buffers[i];
        size_t data = (bf->data && bf->size) ? fb_vec_u8(b, bf->data, bf->size, 16) : 0;
        fb_start(b);
        fb_field_ref(b, 0, data);
        refs[i] = fb_end(b);
    }
    size_t buffers = m->buffers ? fb_vec_refs(b, refs, m->n_buffers) : 0;

    size_t sigs = 0;
    if (m->signatures) {
        size_t *srefs = calloc((size_t)m->n_signatures + 1, sizeof *srefs);
        if (!srefs) {
            free(refs);
            return npuc_errf(w->err, NPUC_E_NOMEM, "out of memory while writing signatures");
        }
        for (int32_t i = m->n_signatures - 1; i >= 0; i--) {
            const tfl_signature *s = &m->signatures[i];
            size_t key = opt_str(b, s->signature_key);
            size_t outs = s->outputs ? write_tensor_maps(b, s->outputs, s->n_outputs, refs) : 0;
            size_t ins = s->inputs ? write_tensor_maps(b, s->inputs, s->n_inputs, refs) : 0;
            fb_start(b);
            fb_field_ref(b, 0, ins);
            fb_field_ref(b, 1, outs);
            fb_field_ref(b, 2, key);
            fb_field(b, 4, s->subgraph_index, 0, 4);
            srefs[i] = fb_end(b);
        }
        sigs = fb_vec_refs(b, srefs, m->n_signatures);
        free(srefs);
    }

    size_t meta = 0;
    if (m->metadata) {
        for (int32_t i = m->n_metadata - 1; i >= 0; i--) {
            size_t name = opt_str(b, m->metadata[i].name);
            fb_start(b);
            fb_field_ref(b, 0, name);
            fb_field(b, 1, m->metadata[i].buffer, 0, 4);
            refs[i] = fb_end(b);
        }
        meta = fb_vec_refs(b, refs, m->n_metadata);
    }
    size_t metabuf = m->metadata_buffer ? fb_vec_i32(b, m->metadata_buffer, m->n_metadata_buffer) : 0;
    size_t desc = opt_str(b, m->description);

    size_t subgraphs = 0;
    if (m->subgraphs) {
        size_t *grefs = calloc((size_t)m->n_subgraphs + 1, sizeof *grefs);
        if (!grefs) {
            free(refs);
            return npuc_errf(w->err, NPUC_E_NOMEM, "out of memory while writing subgraphs");
        }
        for (int32_t i = m->n_subgraphs - 1; i >= 0 && !rc; i--) rc = write_subgraph(w, &m->subgraphs[i], i, &grefs[i]);
        if (!rc) subgraphs = fb_vec_refs(b, grefs, m->n_subgraphs);
        free(grefs);
    }
    if (rc) {
        free(refs);
        return rc;
    }

    size_t codes = 0;
    if (m->opcodes) {
        for (int32_t i = m->n_opcodes - 1; i >= 0; i--) {
            const tfl_opcode *c = &m->opcodes[i];
            int32_t code = tfl_opcode_builtin(c);
            size_t cc = opt_str(b, c->custom_code);
            fb_start(b);
            fb_field_ref(b, 1, cc);
            fb_field(b, 2, (uint32_t)c->version, 1, 4);
            fb_field(b, 3, (uint32_t)code, 0, 4);
            fb_field(b, 0, (uint8_t)(int8_t)(code < 127 ? code : 127), 0, 1);
            refs[i] = fb_end(b);
        }
        codes = fb_vec_refs(b, refs, m->n_opcodes);
    }
    free(refs);

    fb_start(b);
    fb_field(b, 0, m->version, 0, 4);
    fb_field_ref(b, 1, codes);
    fb_field_ref(b, 2, subgraphs);
    fb_field_ref(b, 3, desc);
    fb_field_ref(b, 4, buffers);
    fb_field_ref(b, 5, metabuf);
    fb_field_ref(b, 6, meta);
    fb_field_ref(b, 7, sigs);
    *root = fb_end(b);
    return NPUC_OK;
}

/* Checks that every count is non-negative and every array non-NULL when its
 * count is positive, so that the writer never reads through a bad pointer. */
static int check_model(const tfl_model *m, npuc_err *err)
{
#define NEED(arr, n, what, ...)                                                                         \
    do {                                                                                                \
        if ((n) < 0 || ((n) > 0 && !(arr)))                                                             \
            return npuc_errf(err, NPUC_E_USAGE, "cannot write model: " what " has count %d but no data", \
                             __VA_ARGS__, (int)(n));                                                    \
    } while (0)
    NEED(m->opcodes, m->n_opcodes, "%s", "operator_codes");
    NEED(m->subgraphs, m->n_subgraphs, "%s", "subgraphs");
    NEED(m->buffers, m->n_buffers, "%s", "buffers");
    NEED(m->metadata, m->n_metadata, "%s", "metadata");
    NEED(m->metadata_buffer, m->n_metadata_buffer, "%s", "metadata_buffer");
    NEED(m->signatures, m->n_signatures, "%s", "signature_defs");
    for (int32_t i = 0; i < m->n_buffers; i++)
        if (m->buffers[i].size && !m->buffers[i].data)
            return npuc_errf(err, NPUC_E_USAGE, "cannot write model: buffer %d has size %zu but no data", i,
                             m->buffers[i].size);
    for (int32_t i = 0; i < m->n_signatures; i++) {
        NEED(m->signatures[i].inputs, m->signatures[i].n_inputs, "signature %d inputs", i);
        NEED(m->signatures[i].outputs, m->signatures[i].n_outputs, "signature %d outputs", i);
    }
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        const tfl_subgraph *g = &m->subgraphs[s];
        NEED(g->tensors, g->n_tensors, "subgraph %d tensors", s);
        NEED(g->operators, g->n_operators, "subgraph %d operators", s);
        NEED(g->inputs, g->n_inputs, "subgraph %d inputs", s);
        NEED(g->outputs, g->n_outputs, "subgraph %d outputs", s);
        for (int32_t i = 0; i < g->n_tensors; i++) {
            const tfl_tensor *t = &g->tensors[i];
            if (t->has_shape) NEED(t->shape, t->rank, "subgraph %d tensor %d shape", s, i);
            if (t->has_shape_signature) NEED(t->shape_signature, t->rank_signature, "subgraph %d tensor %d shape_signature", s, i);
            NEED(t->quant.min, t->quant.n_min, "subgraph %d tensor %d quantization min", s, i);
            NEED(t->quant.max, t->quant.n_max, "subgraph %d tensor %d quantization max", s, i);
            NEED(t->quant.scale, t->quant.n_scale, "subgraph %d tensor %d quantization scale", s, i);
            NEED(t->quant.zero_point, t->quant.n_zero_point, "subgraph %d tensor %d quantization zero_point", s, i);
        }
        for (int32_t i = 0; i < g->n_operators; i++) {
            const tfl_operator *op = &g->operators[i];
            NEED(op->inputs, op->n_inputs, "subgraph %d op %d inputs", s, i);
            NEED(op->outputs, op->n_outputs, "subgraph %d op %d outputs", s, i);
            NEED(op->intermediates, op->n_intermediates, "subgraph %d op %d intermediates", s, i);
            NEED(op->mutating_variable_inputs, op->n_mutating_variable_inputs,
                 "subgraph %d op %d mutating_variable_inputs", s, i);
            if (op->n_custom_options && !op->custom_options)
                return npuc_errf(err, NPUC_E_USAGE, "cannot write model: subgraph %d op %d custom options have no data", s, i);
            if (op->options_known && op->options_type != 0) {
                const tfl_options *o = &op->options;
                if (o->has_new_shape) NEED(o->new_shape, o->n_new_shape, "subgraph %d op %d new_shape", s, i);
                if (o->has_squeeze_dims) NEED(o->squeeze_dims, o->n_squeeze_dims, "subgraph %d op %d squeeze_dims", s, i);
            }
        }
    }
#undef NEED
    return NPUC_OK;
}

int tfl_write(const tfl_model *m, uint8_t **data, size_t *size, npuc_err *err)
{
    *data = NULL;
    *size = 0;
    int rc = check_model(m, err);
    if (rc) return rc;
    wr w = {.m = m, .err = err};
    w.b.minalign = 4;
    size_t root = 0;
    rc = write_model(&w, &root);
    if (!rc && !w.b.oom) {
        /* root uoffset + file identifier, total padded to minalign */
        fb_prep(&w.b, w.b.minalign, 8);
        fb_bytes(&w.b, "TFL3", 4);
        fb_uoffset(&w.b, root);
    }
    if (!rc && w.b.oom) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory while writing a TFLite model");
    if (!rc && w.b.len > (size_t)INT32_MAX)
        rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "model of %zu bytes exceeds the 2 GiB flatbuffer limit", w.b.len);
    free(w.b.vts);
    if (rc) {
        free(w.b.buf);
        return rc;
    }
    /* move the image to the start of a right-sized block */
    uint8_t *out = malloc(w.b.len ? w.b.len : 1);
    if (!out) {
        free(w.b.buf);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory while writing a TFLite model");
    }
    memcpy(out, fb_at(&w.b, w.b.len), w.b.len);
    free(w.b.buf);
    *data = out;
    *size = w.b.len;
    return NPUC_OK;
}

int tfl_write_file(const tfl_model *m, const char *path, npuc_err *err)
{
    uint8_t *d;
    size_t n;
    int rc = tfl_write(m, &d, &n, err);
    if (rc) {
        npuc_err_prefix(err, "writing %s", path);
        return rc;
    }
    rc = npuc_write_file(path, d, n, err);
    free(d);
    return rc;
}
