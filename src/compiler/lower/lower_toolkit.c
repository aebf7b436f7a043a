/* lower_toolkit: the helpers every lowering uses (lower.h), each defined
 * once. Bit-exactness comes from deriving every register value from the
 * same quantization arithmetic the reference kernels use
 * (k_quantize_multiplier, k_activation_range_q, ...), mapped onto the NPU's
 * output stage as docs/ethos-u.md 5.6 proves equivalent; tables (LUTs) come from
 * the reference interpreter itself (cc_reference_all). */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- reasons */

int cc_cpu(lower_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, CC_WHY_SIZE, fmt, ap);
    va_end(ap);
    return 1;
}

bool cc_reason(char *why, size_t size, const char *fmt, ...)
{
    if (!why) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return false;
}

/* ------------------------------------------------------------ operands */

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

bool cc_hwc_of(const graph_tensor *t, uint32_t *h, uint32_t *w, uint32_t *ch)
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

bool cc_dense_view(uint64_t n, uint32_t *h, uint32_t *w, uint32_t *ch)
{
    const uint32_t c = 16;
    if (n % c || n / c < 1) return false;
    uint64_t m = n / c, best = 0;
    /* the divisor of m nearest its square root that keeps both sides in range */
    for (uint64_t d = 1; d * d <= m; d++)
        if (m % d == 0 && m / d <= 65536) best = d;
    if (!best) return false;
    *h = (uint32_t)best;
    *w = (uint32_t)(m / best);
    *ch = c;
    return true;
}

/* ------------------------------------------------------------- buffers */

bool cc_grow(void **arr, int32_t *cap, int32_t n, size_t elem, npuc_err *err)
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

cc_buf *cc_new_buf(cc_model *m, uint64_t size, int32_t tensor, npuc_err *err)
{
    if (!cc_grow((void **)&m->bufs, &m->cap_bufs, m->n_bufs, sizeof *m->bufs, err)) return NULL;
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

int32_t cc_temp_buf(lower_ctx *c, uint64_t size, npuc_err *err)
{
    cc_buf *b = cc_new_buf(c->m, size, -1, err);
    if (!b) return -1;
    b->first = b->last = b->op = c->op_index;
    b->temp = true;
    return (int32_t)(b - c->m->bufs);
}

/* ------------------------------------------------------------- NPU ops */

void cc_eu_init(const lower_ctx *c, eu_op *o)
{
    memset(o, 0, sizeof *o);
    o->lut = -1;
    o->wbuf = -1;
    o->src_op = c->op_index;
    o->dil_x = o->dil_y = 1;
    o->stride_x = o->stride_y = 1;
    o->kh = o->kw = 1;
    o->act_min = -32768;
    o->act_max = 32767;
}

eu_op *cc_new_eu(lower_ctx *c, npuc_err *err)
{
    cc_epoch *e = c->e;
    if (!cc_grow((void **)&e->ops, &e->cap_eu, e->n_eu, sizeof *e->ops, err)) return NULL;
    eu_op *o = &e->ops[e->n_eu++];
    cc_eu_init(c, o);
    return o;
}

eu_op *cc_raw_minmax(lower_ctx *c, uint8_t mode, const eu_fm *a, const eu_fm *b, const eu_fm *out, npuc_err *err)
{
    eu_op *o = cc_new_eu(c, err);
    if (!o) return NULL;
    o->kind = SIM_K_ELEMENTWISE;
    o->mode = mode;
    o->ifm = *a;
    o->ifm2 = *b;
    o->ifm2_tensor = true;
    o->ofm = *out;
    o->ifm.zp = o->ifm2.zp = o->ofm.zp = 0;
    cc_global_scale(o, 1, 0, 0);   /* TFL */
    o->act_min = out->bits == 8 ? INT8_MIN : INT16_MIN;
    o->act_max = out->bits == 8 ? INT8_MAX : INT16_MAX;
    o->flex = true;
    return o;
}

void cc_global_scale(eu_op *o, uint32_t scale, uint8_t shift, uint8_t round)
{
    o->ofm_scale_mode = 1;
    o->ofm_scale = scale;
    o->ofm_shift = shift;
    o->round = round;
}

void cc_type_clamp(eu_op *o, uint8_t bits)
{
    o->act_min = bits == 16 ? INT16_MIN : INT8_MIN;
    o->act_max = bits == 16 ? INT16_MAX : INT8_MAX;
}

void cc_fm_dense(eu_fm *fm, int32_t buf, uint64_t off, uint32_t h, uint32_t w, uint32_t ch,
                 uint8_t bits, int32_t zp)
{
    uint64_t es = bits / 8u;
    memset(fm, 0, sizeof *fm);
    fm->buf = buf;
    fm->off = off;
    fm->h = h;
    fm->w = w;
    fm->c = ch;
    fm->full_w = w;
    fm->full_c = ch;
    fm->sc = es;
    fm->sx = (uint64_t)ch * es;
    fm->sy = (uint64_t)w * ch * es;
    fm->bits = bits;
    fm->is_signed = true;
    fm->format = 0;
    fm->zp = zp;
}

void cc_fm_whole(const lower_ctx *c, int32_t tensor, uint32_t h, uint32_t w, uint32_t ch,
                 eu_fm *fm)
{
    const graph_tensor *t = &c->g->tensors[tensor];
    uint8_t bits = (uint8_t)(8 * graph_dtype_size(t->dtype));
    cc_fm_dense(fm, c->m->buf_of[tensor], 0, h, w, ch, bits, cc_zp(t));
    fm->is_signed = t->dtype != GRAPH_U8;
}

void cc_copy_op(eu_op *o, unsigned bits)
{
    o->kind = SIM_K_POOL;
    o->mode = 0;   /* MAX over one tap: the value itself */
    o->ofm_scale_mode = 0;
    o->round = 0;
    cc_type_clamp(o, (uint8_t)bits);
}

/* ----------------------------------------------------------- constants */

void cc_flash_rewind(cc_epoch *e, uint64_t size)
{
    while (e->n_alias) {
        cc_flash_alias *a = &e->alias[e->n_alias - 1];
        if (a->off + a->len <= size) break;
        /* an alias the cut goes through keeps its first bytes (the bytes
         * of its copy's first part) */
        uint64_t keep = a->off < size ? size - a->off : 0;
        a->len = keep;
        if (keep) break;
        e->n_alias--;
    }
    e->flash_size = size;
}

bool cc_flash_mem(cc_epoch *e, uint64_t end, npuc_err *err)
{
    uint64_t need = end - cc_flash_alias_bytes(e);
    if (need > e->flash_cap) {
        /* by half again: a long epoch's constants (an unrolled LSTM's
         * tens of MiB before share_consts and cc_share_flash drop the
         * copies) stay below the sizes the C library maps afresh on each
         * allocation, and each step copies less */
        uint64_t cap = e->flash_cap ? e->flash_cap + e->flash_cap / 2 : 4096;
        while (cap < need) cap += cap / 2;
        uint8_t *p = cap == (size_t)cap ? realloc(e->flash, (size_t)cap) : NULL;
        if (!p) {
            npuc_errf(err, NPUC_E_NOMEM, "out of memory for %llu bytes of constants", (unsigned long long)cap);
            return false;
        }
        e->flash = p;
        e->flash_cap = cap;
    }
    return true;
}

uint8_t *cc_flash_room(cc_epoch *e, uint64_t size, uint64_t *off, npuc_err *err)
{
    uint64_t start = (e->flash_size + 15) & ~(uint64_t)15;
    uint64_t end = start + ((size + 15) & ~(uint64_t)15);
    if (!cc_flash_mem(e, end, err)) return NULL;
    /* zeros in the gaps only (the alignment before, the padding after);
     * in memory the bytes past the last alias are its length lower */
    uint64_t d = cc_flash_alias_bytes(e);
    memset(e->flash + e->flash_size - d, 0, start - e->flash_size);
    memset(e->flash + start - d + size, 0, end - start - size);
    e->flash_size = end;
    *off = start;
    return e->flash + start - d;
}

void cc_flash_reserve(lower_ctx *c, uint64_t need)
{
    cc_epoch *e = c->e;
    uint64_t used = e ? e->flash_size - cc_flash_alias_bytes(e) : 0;   /* in memory */
    if (!e || used + 16 + need <= e->flash_cap) return;
    uint64_t want = used + 16 + need;
    /* the rest of the graph's constants and a quarter more (streams of
     * padded traversals, scale records of 10 bytes a channel), at most
     * 64 MiB ahead; and at least by half again */
    uint64_t rest = c->const_rest ? c->const_rest[c->op_index] : 0, ahead = rest + rest / 4 + 4096;
    if (ahead > ((uint64_t)64 << 20)) ahead = (uint64_t)64 << 20;
    uint64_t cap = used + ahead;
    if (cap < want) cap = want;
    if (cap < e->flash_cap + e->flash_cap / 2) cap = e->flash_cap + e->flash_cap / 2;
    uint8_t *p = cap == (size_t)cap ? realloc(e->flash, (size_t)cap) : NULL;
    if (!p) return;
    e->flash = p;
    e->flash_cap = cap;
}

int cc_flash_add(cc_epoch *e, const void *data, uint64_t size, uint64_t *off, npuc_err *err)
{
    uint8_t *at = cc_flash_room(e, size, off, err);
    if (!at) return err->code;
    if (size) memcpy(at, data, size);
    return NPUC_OK;
}

int cc_add_lut(lower_ctx *c, const void *table, uint64_t size, int32_t *index, npuc_err *err)
{
    cc_epoch *e = c->e;
    for (int32_t i = 0; i < e->n_luts; i++) {
        const uint8_t *lp = e->luts[i].size == size ? cc_flash_view(e, e->luts[i].off, e->luts[i].off + size) : NULL;
        if (lp && !memcmp(lp, table, size)) {
            *index = i;
            return NPUC_OK;
        }
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

/* The one-op graph of cc_reference_all / cc_reference_grid: x (of shape
 * `shape`) -> y, op's further inputs copied. */
static int reference_graph(const lower_ctx *c, const graph_op *op, const graph_tensor *in,
                           const graph_tensor *out, const int32_t shape[4], graph **gp, npuc_err *err)
{
    if (op->n_in > 8) return npuc_errf(err, NPUC_E_INVALID, "%d inputs", op->n_in);
    graph *t = graph_new("reference_all");
    if (!t) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t ti = graph_add_tensor(t, "x", in->dtype, 4, shape, NULL);
    int32_t to = graph_add_tensor(t, "y", out->dtype, 4, shape, NULL);
    int32_t ins[8] = {ti, -1, -1, -1, -1, -1, -1, -1};
    bool ok = ti >= 0 && to >= 0 &&
              !graph_set_quant(t, ti, in->q.n, in->q.scale, in->q.zero_point, in->q.axis) &&
              !graph_set_quant(t, to, out->q.n, out->q.scale, out->q.zero_point, out->q.axis);
    /* further (constant) inputs, e.g. a PRELU alpha, are copied */
    for (int32_t i = 1; i < op->n_in && ok; i++) {
        const graph_tensor *x = cc_tin(c, op, i);
        if (!x) continue;
        ins[i] = graph_add_tensor(t, x->name, x->dtype, x->rank, x->shape, x->data);
        ok = ins[i] >= 0 && !graph_set_quant(t, ins[i], x->q.n, x->q.scale, x->q.zero_point, x->q.axis);
    }
    int32_t oi = ok ? graph_add_op(t, op->opcode, &op->opt, op->n_in, ins, 1, &to) : -1;
    if (oi < 0 || graph_set_io(t, 1, &ti, 1, &to)) {
        graph_free(t);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    t->ops[oi].version = op->version;
    *gp = t;
    return NPUC_OK;
}

/* Runs op on x of shape `shape` holding value i - n/2 (vals: vals[i]) at
 * every position of row i (n rows of `row` values); y gets the n * row
 * outputs. */
static int reference_run(const lower_ctx *c, const graph_op *op, const graph_tensor *in, const graph_tensor *out,
                         const int32_t shape[4], int32_t n, int32_t row, const int32_t *vals, int32_t *y,
                         npuc_err *err)
{
    graph *t = NULL;
    int rc = reference_graph(c, op, in, out, shape, &t, err);
    if (rc) return rc;
    interp *ip = NULL;
    size_t es = graph_dtype_size(in->dtype), oes = graph_dtype_size(out->dtype);
    void *x = NULL;
    interp_options io;
    memset(&io, 0, sizeof io);
    if ((rc = interp_create(t, &io, &ip, err))) goto done;
    size_t total = (size_t)n * (size_t)row;
    x = malloc(total * es);
    if (!x) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    /* row by row, one loop per element size (65536 values per table) */
    for (int32_t r = 0; r < n; r++) {
        int32_t v = vals ? vals[r] : r - n / 2;
        size_t at = (size_t)r * (size_t)row;
        if (es == 2)
            for (int32_t j = 0; j < row; j++) ((int16_t *)x)[at + (size_t)j] = (int16_t)v;
        else
            for (int32_t j = 0; j < row; j++) ((int8_t *)x)[at + (size_t)j] = (int8_t)v;
    }
    if ((rc = interp_set_input(ip, 0, x, total * es, err))) goto done;
    if ((rc = interp_invoke(ip, err))) goto done;
    size_t nb = 0;
    const void *yb = interp_output(ip, 0, &nb);
    if (nb != total * oes) {
        rc = npuc_errf(err, NPUC_E_RUNTIME, "the reference gave %zu bytes for %zu values", nb, total);
        goto done;
    }
    if (oes == 2)
        for (size_t i = 0; i < total; i++) y[i] = ((const int16_t *)yb)[i];
    else
        for (size_t i = 0; i < total; i++) y[i] = ((const int8_t *)yb)[i];
done:
    free(x);
    interp_free(ip);
    graph_free(t);
    return rc;
}

/* cc_reference_all's answers for ops with one input, by everything the
 * reference graph is built from (reference_graph): the op's code, version
 * and options, and in's and out's types and quantizations, compared byte
 * for byte (options that differ only in padding miss: computed again). */
typedef struct ref_ent {
    uint8_t *key;
    size_t key_size;
    int32_t *y;
    int32_t n;
} ref_ent;

/* A value by a key of bytes (cc_blob_get). */
typedef struct blob_ent {
    uint8_t *kv;                  /* the key, then the value */
    size_t ks, vs;
} blob_ent;

/* An answer of a check that is a function of a few integers alone. */
typedef struct check_ent {
    int32_t key[3], val[4];
} check_ent;

struct cc_ref_memo {
    ref_ent *e;
    int32_t n, cap;
    check_ent *ck;
    int32_t n_ck, cap_ck;
    struct cc_blk_memo *blocks;   /* cc_block_choose_kept's */
    struct cc_blk_memo *cycles;   /* copy_cycles' */
    blob_ent *bl;                 /* cc_blob_get / cc_blob_put */
    int32_t n_bl, cap_bl;
    npuc_hindex blx;              /* their keys' hashes */
};

struct cc_ref_memo *cc_ref_memo_new(void) { return calloc(1, sizeof(struct cc_ref_memo)); }

void cc_ref_memo_free(struct cc_ref_memo *r)
{
    if (!r) return;
    for (int32_t i = 0; i < r->n; i++) {
        free(r->e[i].key);
        free(r->e[i].y);
    }
    free(r->e);
    free(r->ck);
    for (int32_t i = 0; i < r->n_bl; i++) free(r->bl[i].kv);
    free(r->bl);
    npuc_hindex_free(&r->blx);
    cc_blk_memo_free(r->blocks);
    cc_blk_memo_free(r->cycles);
    free(r);
}

bool cc_check_get(const lower_ctx *c, const int32_t key[3], int32_t val[4])
{
    const struct cc_ref_memo *r = c->refs;
    for (int32_t i = 0; r && i < r->n_ck; i++)
        if (!memcmp(r->ck[i].key, key, sizeof r->ck[i].key)) {
            memcpy(val, r->ck[i].val, sizeof r->ck[i].val);
            return true;
        }
    return false;
}

bool cc_blob_get(const lower_ctx *c, const void *key, size_t ks, void *val, size_t vs)
{
    const struct cc_ref_memo *r = c->refs;
    if (!r) return false;
    uint64_t h = npuc_hash(NPUC_HASH_INIT, key, ks) ^ ks;
    for (int32_t i = npuc_hindex_first(&r->blx, h); i >= 0; i = npuc_hindex_next(&r->blx, i)) {
        const blob_ent *x = &r->bl[i];
        if (x->ks == ks && x->vs == vs && !memcmp(x->kv, key, ks)) {
            memcpy(val, x->kv + ks, vs);
            return true;
        }
    }
    return false;
}

void cc_blob_put(const lower_ctx *c, const void *key, size_t ks, const void *val, size_t vs)
{
    struct cc_ref_memo *r = c->refs;
    npuc_err e2 = {0};
    if (!r || !cc_grow((void **)&r->bl, &r->cap_bl, r->n_bl, sizeof *r->bl, &e2)) return;   /* not kept */
    uint8_t *kv = malloc(ks + vs + 1);
    if (!kv || !npuc_hindex_add(&r->blx, npuc_hash(NPUC_HASH_INIT, key, ks) ^ ks)) {
        free(kv);
        return;
    }
    memcpy(kv, key, ks);
    memcpy(kv + ks, val, vs);
    r->bl[r->n_bl++] = (blob_ent){kv, ks, vs};
}

void cc_check_put(const lower_ctx *c, const int32_t key[3], const int32_t val[4])
{
    struct cc_ref_memo *r = c->refs;
    npuc_err e2 = {0};
    if (!r || !cc_grow((void **)&r->ck, &r->cap_ck, r->n_ck, sizeof *r->ck, &e2)) return;   /* not kept */
    check_ent *x = &r->ck[r->n_ck++];
    memcpy(x->key, key, sizeof x->key);
    memcpy(x->val, val, sizeof x->val);
}

static uint8_t *key_put(uint8_t *p, const void *x, size_t n)
{
    if (n) memcpy(p, x, n);
    return p + n;
}

static size_t quant_key(uint8_t *p, const graph_tensor *t)
{
    uint8_t *p0 = p;
    int32_t head[3] = {(int32_t)t->dtype, t->q.n, t->q.axis};
    size_t n = t->q.n > 0 ? (size_t)t->q.n : 0;
    if (!p) return sizeof head + n * (sizeof *t->q.scale + sizeof *t->q.zero_point);
    p = key_put(p, head, sizeof head);
    if (n && t->q.scale) p = key_put(p, t->q.scale, n * sizeof *t->q.scale);
    if (n && t->q.zero_point) p = key_put(p, t->q.zero_point, n * sizeof *t->q.zero_point);
    return (size_t)(p - p0);
}

/* The key of op on in -> out (NULL: out of memory, or no key: an op with
 * further inputs or a quantization without its arrays). */
static uint8_t *ref_key(const graph_op *op, const graph_tensor *in, const graph_tensor *out, size_t *size)
{
    if (op->n_in != 1) return NULL;
    if ((in->q.n > 0 && (!in->q.scale || !in->q.zero_point)) || (out->q.n > 0 && (!out->q.scale || !out->q.zero_point)))
        return NULL;
    int32_t head[3] = {op->opcode, op->version, op->n_in};
    size_t n = sizeof head + sizeof op->opt + quant_key(NULL, in) + quant_key(NULL, out);
    uint8_t *k = malloc(n), *p = k;
    if (!k) return NULL;
    p = key_put(p, head, sizeof head);
    p = key_put(p, &op->opt, sizeof op->opt);
    p += quant_key(p, in);
    p += quant_key(p, out);
    *size = (size_t)(p - k);
    return k;
}

int cc_reference_all(const lower_ctx *c, const graph_op *op, const graph_tensor *in,
                     const graph_tensor *out, int32_t *y, npuc_err *err)
{
    int32_t n = in->dtype == GRAPH_I16 ? 65536 : 256;
    int32_t shape[4] = {1, 1, 1, n};
    struct cc_ref_memo *r = c->refs;
    size_t ks = 0;
    uint8_t *key = r ? ref_key(op, in, out, &ks) : NULL;
    for (int32_t i = 0; key && i < r->n; i++) {
        const ref_ent *x = &r->e[i];
        if (x->n == n && x->key_size == ks && !memcmp(x->key, key, ks)) {
            memcpy(y, x->y, sizeof *y * (size_t)n);
            free(key);
            return NPUC_OK;
        }
    }
    int rc = reference_run(c, op, in, out, shape, n, 1, NULL, y, err);
    /* kept (nothing when out of memory) */
    npuc_err e2 = {0};
    if (!rc && key && cc_grow((void **)&r->e, &r->cap, r->n, sizeof *r->e, &e2)) {
        int32_t *yy = malloc(sizeof *yy * (size_t)n);
        if (yy) {
            memcpy(yy, y, sizeof *yy * (size_t)n);
            r->e[r->n++] = (ref_ent){key, ks, yy, n};
            key = NULL;
        }
    }
    free(key);
    return rc;
}

int cc_reference_at(const lower_ctx *c, const graph_op *op, const graph_tensor *in, const graph_tensor *out,
                    const int32_t *x, int32_t k, int32_t *y, npuc_err *err)
{
    if (k < 1 || k > 65536) return npuc_errf(err, NPUC_E_INVALID, "%d reference inputs", (int)k);
    int32_t shape[4] = {1, 1, 1, k};
    return reference_run(c, op, in, out, shape, k, 1, x, y, err);
}

int32_t cc_readers(const lower_ctx *c, int32_t t)
{
    if (c->readers) return c->readers[t];
    const graph *g = c->g;
    int32_t uses = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        for (int32_t k = 0; k < g->ops[i].n_in; k++) uses += g->ops[i].in[k] == t;
    return uses;
}

int cc_reference_grid(const lower_ctx *c, const graph_op *op, const graph_tensor *in,
                      const graph_tensor *out, int32_t C, int32_t *y, npuc_err *err)
{
    int32_t shape[4] = {1, 1, 256, C};
    return reference_run(c, op, in, out, shape, 256, C, NULL, y, err);
}

/* -------------------------------------------------------------- blocks */

void cc_block_req(eu_variant v, const eu_op *o, eu_block_req *r)
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

/* cc_choose_block's answers (eu_block_choose is a function of its request,
 * and an unrolled LSTM asks the same few requests a thousand times). */
struct cc_blk_memo {
    npuc_hindex ix;           /* entry i: req[i] -> blk[i] */
    eu_block_req *req;
    eu_block *blk;
    uint64_t *cyc;            /* eu_block_choose_cycles' cycles (its memo only) */
    int32_t cap;
};

void cc_blk_memo_free(struct cc_blk_memo *b)
{
    if (!b) return;
    npuc_hindex_free(&b->ix);
    free(b->req);
    free(b->blk);
    free(b->cyc);
    free(b);
}

/* eu_block_choose through the memo of c (r zeroed beyond its fields, so
 * its bytes are the key). */
static int choose_memo_x(struct cc_blk_memo **bp, const eu_block_req *r, eu_block *out, uint64_t *cyc,
                         npuc_err *err)
{
    struct cc_blk_memo *b = *bp;
    if (!b) b = *bp = calloc(1, sizeof *b);
    if (!b) return cyc ? eu_block_choose_cycles(r, out, cyc, err) : eu_block_choose(r, out, err);
    uint64_t h = npuc_hash(NPUC_HASH_INIT, r, sizeof *r);
    for (int32_t i = npuc_hindex_first(&b->ix, h); i >= 0; i = npuc_hindex_next(&b->ix, i))
        if (!memcmp(&b->req[i], r, sizeof *r)) {
            *out = b->blk[i];
            if (cyc) *cyc = b->cyc[i];
            return NPUC_OK;
        }
    int rc = cyc ? eu_block_choose_cycles(r, out, cyc, err) : eu_block_choose(r, out, err);
    if (rc) return rc;   /* errors are not remembered */
    if (b->ix.n == b->cap) {
        int32_t cap = b->cap ? 2 * b->cap : 64;
        eu_block_req *q = realloc(b->req, sizeof *q * (size_t)cap);
        if (!q) return NPUC_OK;
        b->req = q;
        eu_block *k = realloc(b->blk, sizeof *k * (size_t)cap);
        if (!k) return NPUC_OK;
        b->blk = k;
        if (cyc) {
            uint64_t *y = realloc(b->cyc, sizeof *y * (size_t)cap);
            if (!y) return NPUC_OK;
            b->cyc = y;
        }
        b->cap = cap;
    }
    int32_t i = b->ix.n;
    if (!npuc_hindex_add(&b->ix, h)) return NPUC_OK;
    b->req[i] = *r;
    b->blk[i] = *out;
    if (cyc) b->cyc[i] = *cyc;
    return NPUC_OK;
}

static int choose_memo(struct cc_blk_memo **bp, const eu_block_req *r, eu_block *out, npuc_err *err)
{
    return choose_memo_x(bp, r, out, NULL, err);
}

/* Whether buffer b (a feature map) is one the fast pool will likely
 * hold: a temp, or a tensor that is no graph input, output or state, of
 * at most a quarter of the pool (cc.h). */
bool cc_likely_fast(const cc_model *m, int32_t b)
{
    if (b < 0) return false;
    uint64_t cap = cc_fast_bytes(&m->opt);
    const cc_buf *x = &m->bufs[b];
    if (!cap || x->size > cap / 4) return false;
    if (x->temp || x->tensor < 0) return true;
    const graph *g = m->g;
    if (g->tensors[x->tensor].is_variable) return false;
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (m->buf_of[g->inputs[i]] == b) return false;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (m->buf_of[g->outputs[i]] == b) return false;
    return true;
}

int cc_choose_block(lower_ctx *c, eu_op *o, npuc_err *err)
{
    eu_block_req r;
    cc_block_req(c->m->opt.sys.variant, o, &r);
    /* With the arena in DRAM and a fast pool apart (an Ethos-U65's
     * Dedicated_Sram), the storage the layout pass will most likely give
     * (cc_layout.c): bricks for the feature maps of an op that allows them;
     * NHWC would price a DRAM map read in short bursts and favour deep
     * blocks. The block depth of a CONV / DEPTHWISE chosen here stays (its
     * weights are encoded for it); cc_reblock chooses the rest again with
     * the real formats. */
    const target_desc *s = &c->m->opt.sys;
    if (o->flex && c->m->opt.optimise == CC_OPT_PERFORMANCE && s->fast_pool >= 0 &&
        s->fast_pool < s->n_pools && s->fast_pool != s->act_pool) {
        r.ifm_format = r.ofm_format = 1;
        /* maps the fast pool will likely hold: priced there alone */
        if (cc_likely_fast(c->m, o->ifm.buf) && cc_likely_fast(c->m, o->ofm.buf) &&
            (!o->ifm2_tensor || cc_likely_fast(c->m, o->ifm2.buf)))
            r.sram_only = true;
    }
    /* the search's answers where it keeps them, else the lowering's */
    return choose_memo(c->m->refs ? &c->m->refs->blocks : &c->blocks, &r, &o->blk, err);
}

int cc_block_or_cpu(lower_ctx *c, eu_op *o, npuc_err *err)
{
    int rc = cc_choose_block(c, o, err);
    if (rc == NPUC_E_UNSUPPORTED) return cc_cpu(c, "%s", err->msg);
    return rc;
}

/* A raw copy as an elementwise MAX with the type's smallest value as the
 * scalar IFM2: max(x, min) = x, no rescale (OFM_SCALE 1, shift 0), the
 * full clamp (docs/ethos-u.md 5.8: MIN / MAX with OFM_SCALE (1, 0)). */
static void copy_ew(eu_op *o, unsigned bits)
{
    o->kind = SIM_K_ELEMENTWISE;
    o->mode = EU_EW_MAX;
    o->ifm2_scalar = true;
    o->ifm2_tensor = false;
    o->scalar = bits == 16 ? INT16_MIN : INT8_MIN;
    memset(&o->ifm2, 0, sizeof o->ifm2);
    o->ifm2.bits = (uint8_t)bits;
    o->ifm2.is_signed = true;
    o->ifm2.buf = -1;
    cc_global_scale(o, 1, 0, 0);
    cc_type_clamp(o, (uint8_t)bits);
}

/* Cycles an elementwise copy must save over the pool beyond a quarter of
 * its own. */
#define COPY_EW_MARGIN 256u

/* The estimated cycles of op o with its best block (0: no block fits);
 * eu_block_choose_cycles' answers kept with c->m->refs by request (an
 * unrolled LSTM copies the same shapes a thousand times). */
static uint64_t copy_cycles(lower_ctx *c, const eu_op *o)
{
    eu_block_req r;
    cc_block_req(c->m->opt.sys.variant, o, &r);
    eu_block b;
    uint64_t cyc = 0;
    npuc_err e2 = {0};
    int rc = c->m->refs ? choose_memo_x(&c->m->refs->cycles, &r, &b, &cyc, &e2)
                        : eu_block_choose_cycles(&r, &b, &cyc, &e2);
    return rc == NPUC_OK ? cyc : 0;
}

int cc_copy_block(lower_ctx *c, eu_op *o, unsigned bits, npuc_err *err)
{
    cc_copy_op(o, bits);
    if ((bits == 8 || bits == 16) && o->ifm.zp == 0 && o->ofm.zp == 0 && o->ifm.is_signed && o->ofm.is_signed) {
        eu_op e = *o;
        copy_ew(&e, bits);
        uint64_t cp = copy_cycles(c, o), ce = copy_cycles(c, &e);
        /* by a margin: an op bound by memory (a shallow copy's MAX often
         * is) does not overlap its neighbours' first and last blocks, which
         * the per-op estimates do not see */
        if (ce && (!cp || ce + ce / 4 + COPY_EW_MARGIN < cp)) *o = e;
    }
    return cc_block_or_cpu(c, o, err);
}

/* ------------------------------------------------------ output stage */

/* The hardware pair for TFLite's (m, shift) (docs/ethos-u.md 5.6): TFL rounding
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
 * single rounding = NATURAL mode (docs/ethos-u.md 5.6). */
bool cc_hw_scale_natural16(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs)
{
    int32_t reduced = (m < 0x7FFF0000) ? ((m + (1 << 15)) >> 16) : 0x7FFF;
    int32_t s = 15 - shift;
    if (s < 1 || s > 63) return false;
    *hm = (uint32_t)reduced;
    *hs = (uint8_t)s;
    return true;
}

bool cc_act_ok(int32_t act)
{
    return act == TFL_ACT_NONE || act == TFL_ACT_RELU || act == TFL_ACT_RELU6 ||
           act == TFL_ACT_RELU_N1_TO_1;
}

/* Clamp of the output stage: the activation range in OFM units. */
void cc_set_act(eu_op *o, const graph_tensor *out, int32_t act)
{
    int32_t qmin = out->dtype == GRAPH_I16 ? INT16_MIN : INT8_MIN;
    int32_t qmax = out->dtype == GRAPH_I16 ? INT16_MAX : INT8_MAX;
    int32_t lo = qmin, hi = qmax;
    if (cc_has_q1(out))
        k_activation_range_q(act, out->q.scale[0], cc_zp(out), qmin, qmax, &lo, &hi);
    o->act_min = lo;
    o->act_max = hi;
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

int cc_block_choose_kept(const cc_model *m, const eu_block_req *r, eu_block *out, npuc_err *err)
{
    if (!m->refs) return eu_block_choose(r, out, err);
    return choose_memo(&m->refs->blocks, r, out, err);
}

int cc_block_cycles_kept(const cc_model *m, const eu_block_req *r, eu_block *out, uint64_t *cycles, npuc_err *err)
{
    if (!m->refs) return eu_block_choose_cycles(r, out, cycles, err);
    return choose_memo_x(&m->refs->cycles, r, out, cycles, err);
}
