/* cc_cascade: runs chains of NPU ops band by band so that the feature maps
 * between them never exist whole (docs/ethos-u.md 4.3).
 *
 * A chain X1 -> X2 -> ... -> Xn is a run of consecutive NPU ops of one HW
 * epoch where each Xj+1 reads, whole, what Xj writes, whole, and nothing
 * else reads it. The last op's output rows are cut into bands; for each
 * band, every op of the chain computes just the new rows the next op needs
 * (working backwards through strides, kernel heights and padding), so no
 * row is computed twice. Each intermediate lives in a rolling buffer of R
 * rows: row y is stored at row y mod R, and an access that wraps past the
 * end is split into the feature map's tiles 0 and 2 (two base addresses,
 * HEIGHT0 = rows before the wrap), as the hardware allows. The first op
 * reads its input and the last op writes its output in place, in row
 * slices; a band op's padding is the original padding where the band
 * touches the tensor's top or bottom edge, zero elsewhere.
 *
 * Only ops that are the sole NPU op of their graph op qualify: CONV,
 * DEPTHWISE and POOL without upscaling or a LUT, addressing whole
 * tensors between members; the first op's input and the last op's output
 * may be any one-tile view (e.g. a CONCATENATION input written into its
 * slice of the output, cc_concat.c): bands read and write their rows at the
 * view's offset. Band ops keep the op's block config, weights and scales; a
 * buffered weight copy is loaded once, before the first band.
 *
 * Which chains: with CC_CASCADE_ALL every chain; with AUTO, repeatedly, the
 * chain through the largest intermediate live at the arena's peak, while
 * that lowers the peak.
 *
 * What the pass chooses is a list of chains, (head graph op, number of
 * ops, band count), in m->cascade_in; the rewrite (apply()) is a function
 * of the program and that list (cc_cascade_apply). A trial that does not
 * pay is undone by deriving the program again from the one the pass
 * started from and the list the trial started from, and putting that
 * state's allocation back (trial_start), which the search reads on. */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

static bool whole(const cc_model *m, const eu_fm *f)
{
    if (f->buf < 0 || f->off || f->c0 || f->tile_h) return false;
    if ((f->full_w && f->full_w != f->w) || (f->full_c && f->full_c != f->c)) return false;
    uint64_t es = f->bits / 8u;
    uint64_t cs = f->format == 1 ? (uint64_t)(f->c + 15) / 16 * 16 : f->c;
    if (f->sx != (f->format == 1 ? 16 * es : f->c * es)) return false;
    if (f->sy != (uint64_t)f->w * cs * es) return false;
    return (uint64_t)f->h * f->sy == m->bufs[f->buf].size;
}

/* The chain's first op reads its input and the last op writes its output
 * in place, one row slice per band: any view of an arena buffer with one
 * tile will do (a CONCATENATION input written into its slice of the
 * output, cc_concat.c, is one). */
static bool rows(const eu_fm *f) { return f->buf >= 0 && !f->tile_h; }

/* The temp buffer op k of epoch e reads as its IFM when the NPU ops of its
 * graph op before it are a prologue: raw copies that write only that temp
 * (a CONV over rows folded into channels, lower_conv.c: fold_rows); -1
 * otherwise. Such an op can head a chain (the copies run before the
 * cascade, the temp lives over the cascade's span: it is its graph op's),
 * never follow a member (linked() takes no temp). */
static int32_t prologue_temp(const cc_model *m, const cc_epoch *e, int32_t k)
{
    const eu_op *o = &e->ops[k];
    const cc_op_info *oi = &m->ops[o->src_op];
    int32_t t = o->ifm.buf;
    if (oi->n_eu < 2 || oi->first_eu + oi->n_eu - 1 != k || oi->cascade >= 0 || t < 0) return -1;
    const cc_buf *b = &m->bufs[t];
    if (!b->temp || b->wcopy || b->epoch >= 0 || b->op != o->src_op || o->ofm.buf == t) return -1;
    for (int32_t j = oi->first_eu; j < k; j++) {
        const eu_op *x = &e->ops[j];
        if (x->src_op != o->src_op || (x->kind != SIM_K_POOL && x->kind != SIM_K_ELEMENTWISE) ||
            x->ofm.buf != t || x->wbuf >= 0)
            return -1;
    }
    return t;
}

/* Op k of epoch e can be a member of a chain (links between members also
 * need whole(), see linked()). */
static bool eligible(const cc_model *m, const cc_epoch *e, int32_t k)
{
    const eu_op *o = &e->ops[k];
    const cc_op_info *oi = &m->ops[o->src_op];
    int32_t pro = prologue_temp(m, e, k);
    if ((pro < 0 && (oi->n_eu != 1 || oi->first_eu != k)) || oi->cascade >= 0) return false;
    if (o->kind != SIM_K_CONV && o->kind != SIM_K_DEPTHWISE && o->kind != SIM_K_POOL) return false;
    if (o->upscale || o->ifm2_tensor || o->ifm2_scalar || o->lut >= 0 || o->act_func) return false;
    if (m->g->ops[o->src_op].opcode == TFL_OP_FULLY_CONNECTED) return false;
    if (o->ifm.h < 1 || o->ofm.h < 2) return false;
    if (o->ifm.buf == o->ofm.buf) return false;
    if (!rows(&o->ifm) || !rows(&o->ofm)) return false;
    /* no internal buffer but weight copies */
    int32_t ei = (int32_t)(e - m->epochs);
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (!x->temp || x->wcopy || b == pro) continue;
        if (x->epoch == ei ? !(x->eu_first <= k && k <= x->eu_last) : !(x->epoch < 0 && x->op == o->src_op))
            continue;
        return false;
    }
    return true;
}

/* Whether graph op i is only a view of buffer t: an NPU op with no NPU
 * operation whose tensors all name t (a PAD folded into the next conv's
 * padding, a RESHAPE): it reads and writes no byte. */
static bool view_of(const cc_model *m, int32_t i, int32_t t)
{
    const graph_op *op = &m->g->ops[i];
    if (!m->ops[i].npu || m->ops[i].n_eu) return false;
    bool any = false;
    for (int32_t j = 0; j < op->n_in + op->n_out; j++) {
        int32_t ti = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
        if (ti < 0 || m->buf_of[ti] < 0) continue;   /* a constant (the paddings) */
        if (m->buf_of[ti] != t) return false;
        any = true;
    }
    return any;
}

/* Op k's output feeds op k+1 and nothing else. */
static bool linked(const cc_model *m, const cc_epoch *e, int32_t k)
{
    const eu_op *a = &e->ops[k], *b = &e->ops[k + 1];
    int32_t t = a->ofm.buf;
    if (t < 0 || b->ifm.buf != t || m->bufs[t].temp) return false;
    if (!whole(m, &a->ofm) || !whole(m, &b->ifm)) return false;
    if (a->ofm.format != b->ifm.format || a->ofm.sy != b->ifm.sy || a->ofm.h != b->ifm.h) return false;
    const graph *g = m->g;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (m->buf_of[g->outputs[i]] == t) return false;
    /* a view between the two (a PAD folded into the next conv's padding,
     * as PyTorch exports write SAME padding) reads and writes no byte: the
     * chain runs through it, so a network cascades alike however its
     * padding was written */
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (m->ops[i].fused_into >= 0) continue;   /* runs as part of its producer's ops */
        if (view_of(m, i, t)) continue;
        for (int32_t j = 0; j < op->n_in; j++)
            if (op->in[j] >= 0 && m->buf_of[op->in[j]] == t && i != b->src_op) return false;
        for (int32_t j = 0; j < op->n_out; j++)
            if (op->out[j] >= 0 && m->buf_of[op->out[j]] == t && i != a->src_op) return false;
    }
    for (int32_t j = 0; j < g->n_tensors; j++)
        if (m->buf_of[j] == t && g->tensors[j].is_variable) return false;
    return true;
}

typedef struct level {
    uint32_t s, pt, keff, hin, hout;   /* stride, top pad, kernel extent, in/out rows */
    uint32_t done;                     /* output rows produced so far */
    uint32_t rows;                     /* rolling buffer rows (j < n-1) */
} level;

/* Rows of op j's input needed for output rows [0, b): exclusive end. */
static uint32_t need_in(const level *l, uint32_t b)
{
    if (!b) return 0;
    int64_t hi = (int64_t)(b - 1) * l->s - l->pt + l->keff;
    if (hi < 0) hi = 0;
    return hi > l->hin ? l->hin : (uint32_t)hi;
}

static uint32_t in_lo(const level *l, uint32_t a)
{
    int64_t lo = (int64_t)a * l->s - l->pt;
    return lo < 0 ? 0 : (uint32_t)lo;
}

/* Addresses rows [a, b) of a rolling buffer of `rows` rows. */
static void roll(eu_fm *f, uint32_t a, uint32_t b, uint32_t rows)
{
    uint32_t p = a % rows, n = b - a;
    f->h = n;
    f->off = (uint64_t)p * f->sy;
    f->tile_h = 0;
    f->tile_off2 = 0;
    if (p + n > rows) {
        f->tile_h = rows - p;
        f->tile_off2 = 0;
    }
}

/* Band schedule of a chain with `bh` output rows per band of the last op:
 * fills lv[].rows (rolling buffer rows of each intermediate); returns the
 * number of band ops, 0 when some band op would have no input row. */
static uint32_t plan(const eu_op *ops, int32_t n, level *lv, uint32_t bh)
{
    for (int32_t j = 0; j < n; j++) {
        const eu_op *o = &ops[j];
        lv[j].s = o->stride_y;
        lv[j].pt = o->pad_t;
        lv[j].keff = (o->kh - 1) * o->dil_y + 1;
        lv[j].hin = o->ifm.h;
        lv[j].hout = o->ofm.h;
        lv[j].done = 0;
        lv[j].rows = 0;
    }
    uint32_t count = 0, H = lv[n - 1].hout;
    uint32_t need[64];
    for (uint32_t r = bh < H ? bh : H;; r = r + bh < H ? r + bh : H) {
        need[n - 1] = r;
        for (int32_t j = n - 2; j >= 0; j--) need[j] = need_in(&lv[j + 1], need[j + 1]);
        /* op j writes rows [done_j, need_j) of its rolling buffer; op j+1
         * then reads [its first input row, need_j): all of it must be there */
        for (int32_t j = 0; j + 1 < n; j++) {
            if (need[j + 1] <= lv[j + 1].done) continue;
            uint32_t lo = in_lo(&lv[j + 1], lv[j + 1].done);
            uint32_t from = lo < lv[j].done ? lo : lv[j].done;
            if (need[j] - from > lv[j].rows) lv[j].rows = need[j] - from;
        }
        for (int32_t j = 0; j < n; j++) {
            if (need[j] <= lv[j].done) continue;
            /* a band whose input rows are all padding has no NPU form */
            if (need_in(&lv[j], need[j]) <= in_lo(&lv[j], lv[j].done)) return 0;
            count++;
            lv[j].done = need[j];
        }
        if (r == H) break;
    }
    return count;
}

static bool grow(void **arr, int32_t *cap, int32_t n, size_t elem, npuc_err *err)
{
    if (n < *cap) return true;
    int32_t nc = *cap ? *cap * 2 : 16;
    while (nc <= n) nc *= 2;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory"), false;
    *arr = p;
    *cap = nc;
    return true;
}

/* The bands a chain's last op's rows are cut into, about: its own count,
 * else the model's. */
static int32_t bands_of(const cc_model *m, int32_t bands)
{
    if (bands > 0) return bands;
    return m->opt.cascade_bands ? (int32_t)m->opt.cascade_bands : CC_CASCADE_BANDS;
}

/* Rewrites ops[k0..k0+n) of epoch ei as a cascade in about `bands` bands
 * (> 0); *done = false when the chain has no band schedule. */
static int apply(cc_model *m, int32_t ei, int32_t k0, int32_t n, int32_t bands, bool *done, npuc_err *err)
{
    *done = false;
    cc_epoch *e = &m->epochs[ei];
    level lv[64];
    eu_op chain[64];
    memcpy(chain, &e->ops[k0], sizeof *chain * (size_t)n);
    int32_t npro = k0 - m->ops[chain[0].src_op].first_eu;   /* the head's prologue */
    uint32_t H = chain[n - 1].ofm.h;
    /* rows of the last op's output per band: about this many bands */
    uint32_t bh = (H + (uint32_t)bands - 1) / (uint32_t)bands;
    if (bh < 1) bh = 1;
    uint32_t n_band_ops = plan(chain, n, lv, bh);
    if (!n_band_ops) return NPUC_OK;
    *done = true;
    /* rolling buffers for the intermediates */
    int32_t rbuf[64];
    for (int32_t j = 0; j + 1 < n; j++) {
        if (!grow((void **)&m->bufs, &m->cap_bufs, m->n_bufs, sizeof *m->bufs, err)) return err->code;
        cc_buf *x = &m->bufs[m->n_bufs];
        memset(x, 0, sizeof *x);
        x->size = (uint64_t)lv[j].rows * chain[j].ofm.sy;
        x->tensor = -1;
        x->temp = true;
        x->roll = true;
        x->brick = chain[j].ofm.format == 1;
        x->epoch = ei;
        rbuf[j] = m->n_bufs++;
        m->bufs[chain[j].ofm.buf].size = 0;   /* never exists whole */
    }
    /* the new op list */
    int32_t old_n = e->n_eu, new_n = old_n - n + (int32_t)n_band_ops;
    eu_op *ops = malloc(sizeof *ops * (size_t)(new_n > old_n ? new_n : old_n) + sizeof *ops);
    int32_t *map_first = malloc(sizeof(int32_t) * ((size_t)old_n + 1));
    int32_t *map_last = malloc(sizeof(int32_t) * ((size_t)old_n + 1));
    if (!ops || !map_first || !map_last) {
        free(ops);
        free(map_first);
        free(map_last);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    memcpy(ops, e->ops, sizeof *ops * (size_t)k0);
    for (int32_t k = 0; k < k0; k++) map_first[k] = map_last[k] = k;
    int32_t w = k0;
    int32_t first_of[64], last_of[64], count_of[64];
    for (int32_t j = 0; j < n; j++) first_of[j] = -1, last_of[j] = -1, count_of[j] = 0, lv[j].done = 0;
    uint32_t need[64];
    for (uint32_t r = bh < H ? bh : H;; r = r + bh < H ? r + bh : H) {
        need[n - 1] = r;
        for (int32_t j = n - 2; j >= 0; j--) need[j] = need_in(&lv[j + 1], need[j + 1]);
        for (int32_t j = 0; j < n; j++) {
            uint32_t a = lv[j].done, b = need[j];
            if (b <= a) continue;
            eu_op o = chain[j];
            /* input rows */
            int64_t lo = (int64_t)a * lv[j].s - lv[j].pt;
            int64_t hi = (int64_t)(b - 1) * lv[j].s - lv[j].pt + lv[j].keff;
            uint32_t lo_c = lo < 0 ? 0 : (uint32_t)lo;
            uint32_t hi_c = hi > (int64_t)lv[j].hin ? lv[j].hin : (uint32_t)hi;
            o.pad_t = (uint8_t)(lo_c - lo);
            o.pad_b = (uint8_t)(hi - hi_c);
            if (j == 0) {
                o.ifm.h = hi_c - lo_c;
                o.ifm.off = chain[0].ifm.off + (uint64_t)lo_c * o.ifm.sy;
            } else {
                o.ifm.buf = rbuf[j - 1];
                roll(&o.ifm, lo_c, hi_c, lv[j - 1].rows);
            }
            /* output rows */
            if (j == n - 1) {
                o.ofm.h = b - a;
                o.ofm.off = chain[n - 1].ofm.off + (uint64_t)a * o.ofm.sy;
            } else {
                o.ofm.buf = rbuf[j];
                roll(&o.ofm, a, b, lv[j].rows);
            }
            if (first_of[j] < 0) first_of[j] = w;
            last_of[j] = w;
            count_of[j]++;
            ops[w++] = o;
            lv[j].done = b;
        }
        if (r == H) break;
    }
    for (int32_t j = 0; j < n; j++) map_first[k0 + j] = first_of[j], map_last[k0 + j] = last_of[j];
    for (int32_t k = k0 + n; k < old_n; k++) {
        ops[w] = e->ops[k];
        map_first[k] = map_last[k] = w++;
    }
    /* internal buffers of this epoch: remap their op ranges */
    for (int32_t b = 0; b < m->n_bufs; b++) {
        cc_buf *x = &m->bufs[b];
        if (!x->temp || x->epoch != ei) continue;
        bool rolling = false;
        for (int32_t j = 0; j + 1 < n; j++)
            if (b == rbuf[j]) {
                x->eu_first = first_of[j];
                x->eu_last = last_of[j + 1];
                rolling = true;
            }
        if (rolling) continue;
        x->eu_first = map_first[x->eu_first];
        x->eu_last = map_last[x->eu_last];
    }
    /* a member's weight copy: loaded during the op before its first band,
     * kept until its last; a copy that other ops share (lower_weights.c
     * encode_chunk: identical constants) is kept over all their ranges */
    for (int32_t j = 0; j < n; j++) {
        int32_t wb = chain[j].wbuf, seen = 0;
        for (int32_t i = 0; i < j && wb >= 0; i++) seen |= chain[i].wbuf == wb;
        if (wb < 0 || seen) continue;
        int32_t f = INT32_MAX, l = -1;
        for (int32_t i = j; i < n; i++) {
            if (chain[i].wbuf != wb) continue;
            int32_t fi = first_of[i] > 0 ? first_of[i] - 1 : first_of[i];
            if (fi < f) f = fi;
            if (last_of[i] > l) l = last_of[i];
        }
        bool outside = false;   /* a user outside the cascade's bands */
        for (int32_t k = 0; k < new_n && !outside; k++)
            outside = ops[k].wbuf == wb && (k < k0 || k >= k0 + (int32_t)n_band_ops);
        if (outside) {
            if (m->bufs[wb].eu_first < f) f = m->bufs[wb].eu_first;
            if (m->bufs[wb].eu_last > l) l = m->bufs[wb].eu_last;
        }
        m->bufs[wb].eu_first = f;
        m->bufs[wb].eu_last = l;
    }
    free(e->ops);
    e->ops = ops;
    e->n_eu = new_n;
    e->cap_eu = new_n > old_n ? new_n : old_n;
    free(map_first);
    free(map_last);
    /* op records */
    int32_t head = chain[0].src_op;
    for (int32_t i = 0; i < m->g->n_ops; i++) {
        cc_op_info *oi = &m->ops[i];
        if (oi->epoch != ei || !oi->npu) continue;
        if (oi->first_eu >= k0 + n) oi->first_eu += new_n - old_n;
    }
    for (int32_t j = 0; j < n; j++) {
        cc_op_info *oi = &m->ops[chain[j].src_op];
        oi->first_eu = first_of[j];
        oi->n_eu = count_of[j];
        oi->cascade = head;
    }
    /* a head's prologue (prologue_temp) runs before the bands: its steps
     * are the cascade's first */
    m->ops[head].first_eu = k0 - npro;
    m->ops[head].n_eu += npro;
    m->ops[head].cascade_ops = (int32_t)n_band_ops + npro;
    return NPUC_OK;
}

/* apply() in `bands` bands (0: the model's count), and the chain recorded
 * in m->cascade_in, with the count it used, when it was cascaded. */
static int cascade_one(cc_model *m, int32_t ei, int32_t k0, int32_t n, int32_t bands, bool *done, npuc_err *err)
{
    *done = false;
    if (m->n_cascade_in == m->cap_cascade_in) {
        int32_t c = m->cap_cascade_in ? 2 * m->cap_cascade_in : 8;
        cc_cascade_in *q = realloc(m->cascade_in, sizeof *q * (size_t)c);
        if (!q) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        m->cascade_in = q;
        m->cap_cascade_in = c;
    }
    int32_t head = m->epochs[ei].ops[k0].src_op;
    bands = bands_of(m, bands);
    int rc = apply(m, ei, k0, n, bands, done, err);
    if (!rc && *done) m->cascade_in[m->n_cascade_in++] = (cc_cascade_in){head, n, bands};
    return rc;
}

int cc_cascade_apply(cc_model *m, const cc_cascade_in *c, int32_t n, npuc_err *err)
{
    const graph *g = m->g;
    for (int32_t j = 0; j < n; j++) {
        int32_t head = c[j].head, len = c[j].n;
        const cc_op_info *oi = head >= 0 && head < g->n_ops ? &m->ops[head] : NULL;
        cc_epoch *e = oi && oi->npu && oi->epoch >= 0 && oi->epoch < m->n_epochs ? &m->epochs[oi->epoch] : NULL;
        /* the head's last NPU op (after a prologue) and the n - 1 after it */
        int32_t k0 = e ? oi->first_eu + oi->n_eu - 1 : -1;
        bool ok = e && e->kind == CC_EPOCH_HW && oi->n_eu > 0 && len >= 2 && len <= 32 && k0 + len <= e->n_eu &&
                  e->ops[k0].src_op == head && c[j].bands >= 0;
        for (int32_t i = 0; ok && i < len; i++)
            ok = eligible(m, e, k0 + i) && (i + 1 == len || linked(m, e, k0 + i));
        bool done = false;
        int rc = ok ? cascade_one(m, oi->epoch, k0, len, c[j].bands, &done, err) : NPUC_OK;
        if (rc) return rc;
        if (!done)
            return npuc_errf(err, NPUC_E_INVALID, "internal: cascade choice (op %d, %d ops) does not apply",
                             (int)head, (int)len);
    }
    return NPUC_OK;
}

/* Whether the link (k, k+1) carries an intermediate of at least `min` bytes. */
static bool big(const cc_model *m, const cc_epoch *e, int32_t k, uint64_t min)
{
    return m->bufs[e->ops[k].ofm.buf].size >= min;
}

/* Longest chain through link (k, k+1) of epoch e whose intermediates all
 * have at least `min` bytes: [*k0, *k0 + *n). */
static void chain_around(const cc_model *m, const cc_epoch *e, int32_t k, uint64_t min, int32_t *k0,
                         int32_t *n)
{
    int32_t a = k, z = k + 1;
    while (a > 0 && eligible(m, e, a - 1) && linked(m, e, a - 1) && big(m, e, a - 1, min) &&
           z - a + 2 <= 32)
        a--;
    while (z + 1 < e->n_eu && eligible(m, e, z + 1) && linked(m, e, z) && big(m, e, z, min) &&
           z - a + 2 <= 32)
        z++;
    *k0 = a;
    *n = z - a + 1;
}

/* The arena peak and the step where it is (after a trial allocation).
 * With --optimise performance buffers in the fast scratch do not count:
 * there cascading is for what the fast pool cannot hold; with --optimise
 * size it is the two pools' sum. */
static int peak_measure(cc_model *m, uint64_t *peak, int32_t *step, npuc_err *err);

static int peak_of(cc_model *m, uint64_t *peak, int32_t *step, npuc_err *err)
{
    int rc = cc_allocate(m, err);
    if (rc && rc != NPUC_E_UNSUPPORTED) return rc;   /* a pool too small is for later */
    return peak_measure(m, peak, step, err);
}

/* Whether buffer x takes bytes in the pools taken (live somewhere). */
static bool counted(const cc_buf *x, bool arena, bool fast)
{
    return ((arena && x->pool == CC_IN_ARENA) || (fast && x->pool == CC_IN_FAST)) && x->last >= 0 &&
           x->first <= x->last;
}

/* The most bytes live at one step in the pools taken (the arena, the fast
 * scratch), each rolling buffer b with cut[b] cut to CC_CASCADE_BANDS /
 * CC_CASCADE_BANDS_FINE of its bytes (cut NULL: none), and the first step
 * with them (-1: none live); NPUC_E_NOMEM. */
static int live_peak(const cc_model *m, bool arena, bool fast, const uint8_t *cut, uint64_t *peak, int32_t *step)
{
    int32_t last = 0;
    for (int32_t b = 0; b < m->n_bufs; b++)
        if (m->bufs[b].last > last) last = m->bufs[b].last;
    /* the live bytes per step from each buffer's start and end (a
     * difference array: one pass over the buffers, one over the steps) */
    uint64_t *d = calloc((size_t)last + 2, sizeof *d);
    if (!d) return NPUC_E_NOMEM;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (!counted(x, arena, fast)) continue;
        uint64_t sz = cut && cut[b] ? x->size * CC_CASCADE_BANDS / CC_CASCADE_BANDS_FINE : x->size;
        d[x->first < 0 ? 0 : x->first] += sz;
        d[x->last + 1] -= sz;
    }
    uint64_t live = 0, best = 0;
    *step = -1;
    for (int32_t t = 0; t <= last; t++) {
        live += d[t];
        if (live > best) best = live, *step = t;
    }
    free(d);
    *peak = best;
    return NPUC_OK;
}

/* peak_of of the allocation the model holds (its buffers and pools' sizes
 * as the last cc_allocate of this state left them). */
static int peak_measure(cc_model *m, uint64_t *peak, int32_t *step, npuc_err *err)
{
    bool both = m->opt.optimise == CC_OPT_SIZE;
    *peak = m->arena_size + (both ? m->fast_size : 0);
    /* the step with the most live bytes */
    uint64_t live;
    if (live_peak(m, true, both, NULL, &live, step)) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    return NPUC_OK;
}

/* The cascade choice of m whose band ops rolling buffer b serves (-1:
 * none). */
static int32_t chain_of(const cc_model *m, int32_t b)
{
    const cc_buf *x = &m->bufs[b];
    if (!x->roll) return -1;
    for (int32_t j = 0; j < m->n_cascade_in; j++) {
        const cc_op_info *h = &m->ops[m->cascade_in[j].head];
        if (h->epoch == x->epoch && h->first_eu <= x->eu_first && x->eu_first < h->first_eu + h->cascade_ops)
            return j;
    }
    return -1;
}

int32_t cc_cascade_finer(const cc_model *m, cc_cascade_in *out)
{
    int32_t n = m->n_cascade_in;
    if (!n) return 0;
    /* the pools cc_sram_bytes counts */
    bool arena = cc_arena_is_sram(&m->opt);
    int32_t *of = malloc(sizeof *of * ((size_t)m->n_bufs + 1));   /* each buffer's chain (chain_of) */
    uint8_t *cut = calloc((size_t)m->n_bufs + 1, 1);
    uint8_t *fine = calloc((size_t)n, 1);
    int32_t refined = 0;
    uint64_t peak0 = 0, peak = 0;
    int32_t step;
    bool ok = of && cut && fine && !live_peak(m, arena, true, NULL, &peak0, &step);
    for (int32_t b = 0; ok && b < m->n_bufs; b++) of[b] = chain_of(m, b);
    /* the chains with a rolling buffer live at the peak step, finer, until
     * none is there */
    for (int32_t it = 0; ok && it < n && step >= 0; it++) {
        bool more = false;
        for (int32_t b = 0; b < m->n_bufs; b++) {
            const cc_buf *x = &m->bufs[b];
            int32_t j = of[b];
            if (j < 0 || fine[j] || m->cascade_in[j].bands >= CC_CASCADE_BANDS_FINE || !counted(x, arena, true) ||
                x->first > step || step > x->last)
                continue;
            fine[j] = 1;
            refined++;
            more = true;
        }
        if (!more) break;
        for (int32_t b = 0; b < m->n_bufs; b++) cut[b] = of[b] >= 0 && fine[of[b]];
        ok = !live_peak(m, arena, true, cut, &peak, &step);
    }
    bool pays = ok && refined && peak * 100 < peak0 * (100 - CC_CASCADE_FINE_GAIN);
    for (int32_t j = 0; pays && j < n; j++) {
        out[j] = m->cascade_in[j];
        if (fine[j]) out[j].bands = CC_CASCADE_BANDS_FINE;
    }
    free(of);
    free(cut);
    free(fine);
    return pays ? n : 0;
}

/* A trial (apply() and the allocation after it) that does not pay goes
 * back to the state it started from, which is not kept whole: its program
 * is derived again from the program the pass started from (`base`, taken
 * once: laid out, concatenations in place) and the choices that state had
 * (cc_cascade_apply: a function of the two), and its allocation (every
 * buffer's record, the pools' peaks) is put back. A state is taken only
 * just allocated, so its allocation comes back without allocating again
 * (a function of the state, as cc_alloc_memo relies on). */
typedef struct trial_start {
    cc_sched choices;   /* CC_SCHED_CASCADE */
    cc_sched alloc;     /* CC_SCHED_BUFS */
} trial_start;

static int start_take(const cc_model *m, trial_start *t, npuc_err *err)
{
    int rc = cc_sched_take(m, CC_SCHED_CASCADE, &t->choices, err);
    return rc ? rc : cc_sched_take(m, CC_SCHED_BUFS, &t->alloc, err);
}

static int start_back(cc_model *m, const cc_sched *base, const trial_start *t, npuc_err *err)
{
    int rc = cc_sched_apply(m, base, err);
    if (!rc) rc = cc_sched_apply(m, &t->choices, err);
    return rc ? rc : cc_sched_apply(m, &t->alloc, err);
}

static void start_free(trial_start *t)
{
    cc_sched_free(&t->choices);
    cc_sched_free(&t->alloc);
}

/* With a fast pool apart from the arena (an Ethos-U65's DRAM arena, the
 * rolling buffers in its SRAM), after the peak: the links whose
 * intermediate is in the arena, largest first, each tried once; a cascade
 * stays if it lowers the placed cycles (cc_placed_cycles, from `cyc`). The
 * fast pool may grow within its size: the placement fills it by cycles
 * saved per byte, and a rolling buffer there in place of a feature map in
 * DRAM is what a cascade is for. */
static int cascade_for_cycles(cc_model *m, uint64_t cyc, const cc_sched *base, npuc_err *err)
{
    int32_t cap = m->n_bufs + 1;
    uint8_t *tried = calloc((size_t)cap, 1);
    if (!tried) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    trial_start ts = {0};
    for (int iter = 0; iter < 48 && !rc; iter++) {
        int32_t best_e = -1, best_k = -1;
        uint64_t best = 0;
        for (int32_t ei = 0; ei < m->n_epochs; ei++) {
            cc_epoch *e = &m->epochs[ei];
            if (e->kind != CC_EPOCH_HW) continue;
            for (int32_t k = 0; k + 1 < e->n_eu; k++) {
                int32_t b = e->ops[k].ofm.buf;
                if (b < 0 || (b < cap && tried[b])) continue;
                const cc_buf *t = &m->bufs[b];
                if (t->pool != CC_IN_ARENA || t->size <= best) continue;
                if (!eligible(m, e, k) || !eligible(m, e, k + 1) || !linked(m, e, k)) continue;
                best = t->size;
                best_e = ei;
                best_k = k;
            }
        }
        if (best_e < 0) break;
        cc_epoch *e = &m->epochs[best_e];
        int32_t b = e->ops[best_k].ofm.buf;
        if (b < cap) tried[b] = 1;
        int32_t k0, n;
        chain_around(m, e, best_k, best / 2, &k0, &n);
        if ((rc = start_take(m, &ts, err))) break;
        bool done = false;
        uint64_t peak;
        int32_t step;
        rc = cascade_one(m, best_e, k0, n, 0, &done, err);
        if (!rc) rc = peak_of(m, &peak, &step, err);
        uint64_t now = !rc && done ? cc_allocated_cycles(m) : 0;
        if (rc || !done || !now || now >= cyc) {
            int rc2 = start_back(m, base, &ts, err);
            if (!rc) rc = rc2;
            continue;
        }
        cyc = now;
    }
    start_free(&ts);
    free(tried);
    return rc;
}

/* The allocation of longer_chain's pick, as its trial left it: the chain
 * is applied again to the state that trial started from (the schedule
 * applied back), so its allocation is the same (a function of the state,
 * as cc_alloc_memo relies on) and is taken from here instead of worked
 * out again. */
typedef struct chain_alloc {
    bool ok;
    int32_t ei, k0, n, n_bufs;
    cc_buf *bufs;             /* [n_bufs] */
    uint64_t arena, fast, placed;
} chain_alloc;

/* Keeps the allocation the model holds as chain (ei, k0, n)'s. */
static void chain_alloc_keep(chain_alloc *a, const cc_model *m, int32_t ei, int32_t k0, int32_t n, uint64_t placed)
{
    a->ok = false;
    cc_buf *b = realloc(a->bufs, sizeof *b * ((size_t)m->n_bufs + 1));
    if (!b) return;
    a->bufs = b;
    memcpy(b, m->bufs, sizeof *b * (size_t)m->n_bufs);
    *a = (chain_alloc){true, ei, k0, n, m->n_bufs, b, m->arena_size, m->fast_size, placed};
}

/* Where cascades are for cycles: the chain through link (k, k+1) of epoch
 * ei over links carrying at least half, a quarter or an eighth of its
 * `big` bytes, whichever gives the fewest placed cycles (*k0, *n: the
 * first, on entry; each other one tried and undone). A longer chain keeps
 * more of the feature maps next to the first one's out of DRAM, and more
 * band ops in rolling buffers that may not fit the fast pool. */
static int longer_chain(cc_model *m, const cc_sched *base, int32_t ei, int32_t k, uint64_t big_bytes, int32_t *k0,
                        int32_t *n, chain_alloc *kept, npuc_err *err)
{
    kept->ok = false;
    cc_epoch *e = &m->epochs[ei];
    int32_t tk[3], tn[3], nt = 0;
    for (int v = 1; v <= 3; v++) {
        int32_t a, c;
        chain_around(m, e, k, big_bytes >> v, &a, &c);
        bool seen = false;
        for (int i = 0; i < nt; i++) seen |= tk[i] == a && tn[i] == c;
        if (!seen) tk[nt] = a, tn[nt] = c, nt++;
    }
    if (nt < 2) return NPUC_OK;
    uint64_t fewest = UINT64_MAX;
    trial_start ts = {0};
    int rc = start_take(m, &ts, err);
    for (int i = 0; i < nt && !rc; i++) {
        bool done = false;
        uint64_t peak;
        int32_t step;
        rc = cascade_one(m, ei, tk[i], tn[i], 0, &done, err);
        if (!rc) rc = peak_of(m, &peak, &step, err);
        uint64_t now = !rc && done ? cc_allocated_cycles(m) : 0;
        if (!rc && now && now < fewest) chain_alloc_keep(kept, m, ei, tk[i], tn[i], now);
        int rc2 = start_back(m, base, &ts, err);
        if (!rc) rc = rc2;
        if (!rc && now && now < fewest) fewest = now, *k0 = tk[i], *n = tn[i];
    }
    start_free(&ts);
    return rc;   /* back to the schedule and allocation it started from */
}

int cc_cascade(cc_model *m, npuc_err *err)
{
    if (m->opt.cascade == CC_CASCADE_OFF) return NPUC_OK;
    if (m->opt.cascade_given) return cc_cascade_apply(m, m->opt.cascade_in, m->opt.n_cascade_in, err);
    if (m->opt.cascade == CC_CASCADE_ALL) {
        for (int32_t ei = 0; ei < m->n_epochs; ei++) {
            cc_epoch *e = &m->epochs[ei];
            if (e->kind != CC_EPOCH_HW) continue;
            for (int32_t k = 0; k + 1 < e->n_eu; k++) {
                if (!eligible(m, e, k) || !eligible(m, e, k + 1) || !linked(m, e, k)) continue;
                int32_t k0, n;
                chain_around(m, e, k, 0, &k0, &n);
                bool done;
                int rc = cascade_one(m, ei, k0, n, 0, &done, err);
                if (rc) return rc;
                const cc_op_info *h = &m->ops[e->ops[k0].src_op];
                k = done ? h->first_eu + h->cascade_ops - 1 : k0 + n - 1;
            }
        }
        return NPUC_OK;
    }
    /* AUTO: cut the peak while it goes down; with --optimise performance
     * and a fast pool apart from the arena (an Ethos-U65's DRAM arena),
     * while the placed cycles go down instead */
    const target_desc *sd = &m->opt.sys;
    uint64_t cyc = 0;
    bool placed = false;   /* the model holds its state's allocation */
    cc_sched base = {0};   /* the program the pass starts from */
    trial_start ts = {0};  /* the state a trial starts from */
    chain_alloc kept = {0};
    int end = NPUC_OK;     /* the loop's outcome */
    int rc0 = cc_sched_take(m, CC_SCHED_PROGRAM, &base, err);
    if (!rc0 && m->opt.optimise == CC_OPT_PERFORMANCE && sd->fast_pool >= 0 && sd->fast_pool < sd->n_pools &&
        sd->fast_pool != sd->act_pool) {
        uint64_t p;
        int32_t st;
        rc0 = peak_of(m, &p, &st, err);
        cyc = rc0 ? 0 : cc_allocated_cycles(m);
        placed = true;
    }
    if (rc0) {
        cc_sched_free(&base);
        return rc0;
    }
    for (int iter = 0; iter < 16; iter++) {
        uint64_t peak;
        int32_t step;
        /* after the first, the state is the one the cascade kept, as its
         * trial allocated it */
        int rc = placed ? peak_measure(m, &peak, &step, err) : peak_of(m, &peak, &step, err);
        if (rc) {
            start_free(&ts);
            cc_sched_free(&base);
            free(kept.bufs);
            return rc;
        }
        placed = true;
        if (step < 0) break;
        /* the largest intermediate live at the peak that links two ops */
        int32_t best_e = -1, best_k = -1;
        uint64_t best = 0;
        for (int32_t ei = 0; ei < m->n_epochs; ei++) {
            cc_epoch *e = &m->epochs[ei];
            if (e->kind != CC_EPOCH_HW) continue;
            for (int32_t k = 0; k + 1 < e->n_eu; k++) {
                const cc_buf *t = e->ops[k].ofm.buf >= 0 ? &m->bufs[e->ops[k].ofm.buf] : NULL;
                if (!t || t->size <= best || t->first > step || step > t->last) continue;
                if (!eligible(m, e, k) || !eligible(m, e, k + 1) || !linked(m, e, k)) continue;
                best = t->size;
                best_e = ei;
                best_k = k;
            }
        }
        if (best_e < 0) break;
        /* apply it, keep it only if the peak drops */
        cc_epoch *e = &m->epochs[best_e];
        int32_t k0, n;
        chain_around(m, e, best_k, best / 2, &k0, &n);
        kept.ok = false;
        if ((cyc && (rc = longer_chain(m, &base, best_e, best_k, best, &k0, &n, &kept, err))) ||
            (rc = start_take(m, &ts, err))) {
            start_free(&ts);
            cc_sched_free(&base);
            free(kept.bufs);
            return rc;
        }
        bool done = false;
        rc = cascade_one(m, best_e, k0, n, 0, &done, err);
        uint64_t after = 0;
        bool reuse = !rc && done && kept.ok && kept.ei == best_e && kept.k0 == k0 && kept.n == n &&
                     kept.n_bufs == m->n_bufs;
        if (reuse) {
            /* longer_chain's trial of this chain allocated this state */
            memcpy(m->bufs, kept.bufs, sizeof *m->bufs * (size_t)m->n_bufs);
            m->arena_size = kept.arena;
            m->fast_size = kept.fast;
            rc = peak_measure(m, &after, &step, err);
        } else if (!rc) {
            rc = peak_of(m, &after, &step, err);
        }
        if (!rc && done && cyc) {
            /* or if it saves cycles (the fast pool may grow within its
             * size, as in cascade_for_cycles) */
            uint64_t now = reuse ? kept.placed : cc_allocated_cycles(m);
            bool pays = now && now < cyc;
            if (pays) after = 0;
            if (after < peak) cyc = now;
        }
        if (rc || !done || after >= peak) {
            int rc2 = start_back(m, &base, &ts, err);
            end = rc ? rc : rc2;
            break;
        }
    }
    start_free(&ts);
    free(kept.bufs);
    if (!end && cyc) end = cascade_for_cycles(m, cyc, &base, err);
    cc_sched_free(&base);
    return end;
}
