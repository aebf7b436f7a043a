/* cc: the compiler pipeline: fold (constants) -> order (cc_order.c) ->
 * lower (legalize + partition) -> allocate ->
 * generate (command streams) -> estimate (the cycle model the virtual NPU
 * uses, run over the streams we emitted, so compiler reports and `npuc run
 * --profile` agree by construction). */
#include "cc.h"
#include "interp/interp.h"
#include "compiler/ethosu/eu_weights.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cc_model_free(cc_model *m)
{
    if (!m) return;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        free(e->ops);
        free(e->luts);
        free(e->flash);
        free(e->alias);
        free(e->payload);
        free(e->dma_op);
        free(e->w_bits);
        free(e->inputs);
        free(e->outputs);
    }
    free(m->epochs);
    free(m->bufs);
    free(m->buf_of);
    free(m->concat_in);
    free(m->cascade_in);
    free(m->ops);
    free(m->folded);
    free(m->once);
    free(m->vars_init);
    graph_free(m->folded_g);
    cc_costs_free(m->costs);
    cc_gencache_free(m->gen);
    eu_genmemo_free(m->eu_memo);
    cc_pfmemo_free(m->pfmemo);
    free(m);
}

static bool on_cpu(const void *user, int32_t op) { return !((const cc_model *)user)->ops[op].npu; }

bool cc_fused_tensor(const cc_model *m, int32_t t)
{
    for (int32_t i = 0; i < m->g->n_ops; i++)
        if (m->ops[i].fused_into >= 0 && m->g->ops[i].n_in >= 1 && m->g->ops[i].in[0] == t) return true;
    return false;
}

int32_t cc_op_of_source(const cc_model *m, int32_t src_op)
{
    if (!m->folded_g) return src_op >= 0 && src_op < m->g->n_ops ? src_op : -1;
    for (int32_t i = 0; i < m->g->n_ops; i++)
        if (m->g->ops[i].index == src_op) return i;
    return -1;
}

static bool contains(const int32_t *a, int32_t n, int32_t v)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] == v) return true;
    return false;
}

/* Tensors an HW epoch reads from outside (non-constant) and those it
 * produces that are used after it or are graph outputs. */
static int epoch_io(cc_model *m, cc_epoch *e, npuc_err *err)
{
    const graph *g = m->g;
    int32_t end = e->first_op + e->n_ops;
    int32_t cap = 0;
    for (int32_t i = e->first_op; i < end; i++) cap += g->ops[i].n_in + g->ops[i].n_out;
    e->inputs = malloc(sizeof(int32_t) * (size_t)(cap + 1));
    e->outputs = malloc(sizeof(int32_t) * (size_t)(cap + 1));
    if (!e->inputs || !e->outputs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = e->first_op; i < end; i++) {
        const graph_op *op = &g->ops[i];
        for (int32_t k = 0; k < op->n_in; k++) {
            int32_t t = op->in[k];
            if (t < 0 || g->tensors[t].data) continue;
            int32_t p = g->tensors[t].producer;
            if (p >= e->first_op && p < end) continue;
            if (!contains(e->inputs, e->n_inputs, t)) e->inputs[e->n_inputs++] = t;
            /* a state tensor an NPU op reads it also updates (an LSTM's
             * hidden and cell state): an output too, as in Vela's files */
            if (g->tensors[t].is_variable && !contains(e->outputs, e->n_outputs, t)) e->outputs[e->n_outputs++] = t;
        }
        for (int32_t k = 0; k < op->n_out; k++) {
            int32_t t = op->out[k];
            if (t < 0) continue;
            bool used = contains(g->outputs, g->n_outputs, t);
            for (int32_t j = end; j < g->n_ops && !used; j++)
                used = contains(g->ops[j].in, g->ops[j].n_in, t);
            if (used && !contains(e->outputs, e->n_outputs, t)) e->outputs[e->n_outputs++] = t;
        }
    }
    return NPUC_OK;
}

/* ------------------------------------------------ generated epochs */

/* What one NPU op or DMA of a stream adds to its graph op's figures. */
typedef struct gen_share {
    int32_t owner;
    uint64_t cycles, read[3], written[3];
} gen_share;

static gen_share share_of(int32_t owner, const sim_op_info *x)
{
    gen_share s;
    memset(&s, 0, sizeof s);
    s.owner = owner;
    s.cycles = x->cycles;
    if (x->kind == SIM_K_DMA) {
        if (x->dma_src_region < 3) s.read[x->dma_src_region] += x->dma_bytes;
        if (x->dma_dst_region < 3) s.written[x->dma_dst_region] += x->dma_bytes;
        return s;
    }
    if (x->ifm_region < 3) s.read[x->ifm_region] += x->ifm_bytes;
    if (x->ifm2_region < 3) s.read[x->ifm2_region] += x->ifm2_bytes;
    if (x->weight_region < 3) s.read[x->weight_region] += x->weight_bytes;
    if (x->scale_region < 3) s.read[x->scale_region] += x->scale_bytes;
    if (x->ofm_region < 3) s.written[x->ofm_region] += x->ofm_bytes;
    return s;
}

static void apply_share(cc_model *m, const gen_share *s)
{
    cc_op_info *oi = &m->ops[s->owner];
    oi->cycles += s->cycles;
    for (int r = 0; r < 3; r++) {
        oi->bytes_read[r] += s->read[r];
        oi->bytes_written[r] += s->written[r];
    }
}

/* The NPU ops part of a key (gen_key), one copy for the entries made
 * from the same ops (a search's plans differ in the buffers only): the
 * ops' n bytes themselves (b), or, where few ops differ from a copy the
 * cache holds, that copy (base, a whole one, counted among its refs) and
 * the ops that differ (in order: d_at[i] is op i's index, d_op[i] it). */
typedef struct gen_ops {
    uint8_t *b; size_t n; int32_t refs;
    struct gen_ops *base;
    int32_t *d_at; eu_op *d_op; int32_t n_d;
} gen_ops;

/* One epoch as eu_generate and estimate made it from the inputs `key`
 * and `ops` (gen_key): its stream, its DMAs' ops, its cycles, each NPU
 * op's cycles and what each op of the stream added to its graph op. */
typedef struct gen_entry {
    uint8_t *key; size_t key_size;
    uint64_t key_hash;        /* key_hash(key): most entries differ in it */
    gen_ops *ops;
    uint8_t *payload; uint64_t payload_size;
    int32_t *dma_op; int32_t n_dma;
    uint64_t cycles;
    uint64_t *op_cycles;      /* [n_eu][2]: cycles, dma_cycles */
    gen_share *share; size_t n_share;
} gen_entry;

/* A command decoded before: its first word, the word after it (the
 * payload of a cmd1), what sim_cmd_decode_memo gave (offset aside), its
 * value field as sim_state_apply reads it and what estimate does with it. */
enum {
    EST_REG = SIM_ROLE_REG,   /* a register the op records read */
    EST_SKIP = SIM_ROLE_SKIP, /* any other register or operation
                                 (sim_op_info_reads): not applied */
    EST_WAIT = SIM_ROLE_WAIT, EST_OP = SIM_ROLE_OP, EST_STOP = SIM_ROLE_STOP
};
/* What sim_state_apply_value writes for a command code: the sim_state
 * bytes (the `written` marks aside, which sim_op_info_from_state does not
 * read) as up to EST_WIN windows of 8 bytes, each with a mask of the bytes
 * it writes (EST_WIN_NONE: more than that, applied by the call). The bytes
 * a code writes do not depend on its operand (every register field is set
 * from the command alone), so they are found once per code: the command
 * applied to a state of 0x00 bytes and to one of 0xFF bytes, a byte left as
 * it was in both is not written. */
#define EST_WIN 3
#define EST_WIN_NONE 0xFF
#define EST_CODES 128         /* slots of the code table (a power of 2) */
typedef struct est_codewin {
    uint16_t code;
    bool known;
    uint8_t n;                /* windows, or EST_WIN_NONE */
    uint16_t off[EST_WIN];
    uint64_t mask[EST_WIN];
} est_codewin;

typedef struct est_cmd {
    uint32_t w0, w1;
    bool used;
    uint8_t role;             /* EST_*: a register the records read, another
                                 register or operation, a wait, a kernel op
                                 or DMA start, the stop */
    uint8_t n_win;            /* its code's windows (est_codewin) */
    uint16_t off[EST_WIN];
    uint64_t mask[EST_WIN], bits[EST_WIN];   /* the bytes it writes there */
    sim_cmd cmd;
    sim_cmd_value val;
} est_cmd;

/* The state's bytes at n windows (off, mask) set to bits: what a command
 * or a segment of them, recorded before, writes there. */
static void win_apply(sim_state *st, const uint16_t *off, const uint64_t *mask, const uint64_t *bits, uint8_t n)
{
    for (uint8_t j = 0; j < n; j++) {
        uint8_t *p = (uint8_t *)st + off[j];
        uint64_t b;
        memcpy(&b, p, sizeof b);
        b = (b & ~mask[j]) | bits[j];
        memcpy(p, &b, sizeof b);
    }
}

#define EST_CMDS 4096
#define EST_CMDS_MIN_BYTES 16384u   /* 4096 command words */
#define EST_CMDS_SHORT 512          /* slots for streams shorter than that */
#define EST_CMDS_SHORT_BYTES 1024u  /* EST_CMDS_SHORT slots from the first
                                       stream of this many bytes: the search
                                       estimates it again and again */
#define EST_CMDS_MANY_BYTES 65536u  /* EST_CMDS slots once that many bytes of
                                       them are estimated */

static uint32_t est_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The commands of a stream from an op's predecessor (the stream start or
 * the previous kernel op or DMA start) to the op itself, as estimate met
 * them before (a direct-mapped cache by their words): a search's trials
 * repeat most ops' commands word for word (the ones whose addresses did
 * not move). Their effect on the state is their windows (est_cmd) in
 * order; the op's waits are its segment's (the op before reset them). */
#define SEG_SLOTS 1024
#define SEG_WORDS 48          /* longer segments are not kept */
#define SEG_WIN 24
#define SKIP_BITS 15          /* 2^15 checked EST_SKIP commands */
typedef struct est_seg {
    bool valid;
    uint8_t n_win, wk, wc;
    uint16_t n_words;         /* of the key */
    uint64_t hash;
    uint16_t off[SEG_WIN];
    uint64_t mask[SEG_WIN], bits[SEG_WIN];
    sim_cmd op;               /* the op (its offset aside) */
    uint32_t words[SEG_WORDS];   /* the key: the words of its commands that
                                    are not EST_SKIP */
    /* the op's record (its index and offset aside) from the state before
     * it, the last time (have_info): sim_op_info_from_state reads nothing
     * else but the op and the variant (the cache's); of the state, a
     * kernel op's record reads only registers laid out before sim_state's
     * DMA ones, a DMA start's only these, PARALLEL_MODE and BLOCKDEP */
    bool have_info;
    uint32_t perf_rec;        /* its record's in the cycle model's memo (a hint) */
    uint8_t state[offsetof(sim_state, dma) + sizeof(sim_dma)];   /* its first bytes */
    uint8_t parallel_mode, blockdep;
    sim_op_info info;
} est_seg;

/* estimate's arrays, per op of a stream */
typedef struct est_scratch {
    sim_op_info *ops; int32_t *owner, *eu_of; size_t cap;
    /* per op: its record in the cycle model's memo (sim_perf_estimate_hint)
     * and the segment it came from (NULL: none) */
    uint32_t *hint; struct est_seg **seg_of;
    sim_check_memo *memo;     /* the stream checks, NULL: none */
    /* commands decoded (a direct-mapped cache by their words; NULL:
     * none): a stream of a few op shapes repeats most of its commands,
     * and each decodes to the same command wherever it is */
    est_cmd *cmds;
    uint32_t n_cmds;          /* its slots: a power of 2 */
    /* the cycle model's per-op figures by record (NULL: none) */
    sim_perf_memo *perf;
    eu_variant cmds_variant;
    size_t decoded;           /* stream bytes estimated so far */
    est_codewin codes[EST_CODES];   /* by code, open addressing */
    est_seg *segs;            /* [SEG_SLOTS] with the EST_CMDS cache, else NULL */
    /* the EST_SKIP commands decoded (checked) before, by their words
     * (w0 << 32 | a cmd1's payload; 0: none), direct-mapped, with segs */
    uint64_t *skips;
    /* sim_cmd_role of the codes with the reserved bits clear, by cmd1 << 10 |
     * opcode */
    uint8_t roles[2048];
    bool have_roles;
} est_scratch;

/* The windows of the command c's code (worked out the first time). */
static const est_codewin *est_code_windows(est_scratch *x, const sim_cmd *c, sim_cmd_value val)
{
    static const est_codewin none = {0, true, EST_WIN_NONE, {0}, {0}};
    uint32_t k = (uint32_t)(c->code * 0x9E3779B1u) >> 25 & (EST_CODES - 1);
    for (uint32_t n = 0; n < EST_CODES; n++, k = (k + 1) & (EST_CODES - 1)) {
        est_codewin *w = &x->codes[k];
        if (w->known && w->code == c->code) return w;
        if (w->known) continue;
        sim_state a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0xFF, sizeof b);
        sim_state_apply_value(&a, c, val);
        sim_state_apply_value(&b, c, val);
        const uint8_t *pa = (const uint8_t *)&a, *pb = (const uint8_t *)&b;
        const size_t lim = offsetof(sim_state, written);
        w->code = c->code;
        w->known = true;
        w->n = 0;
        for (size_t i = 0; i < lim; i++) {
            /* eight bytes not written at once (most of the state: a
             * compile works out the windows of every code it meets) */
            while (i + 8 <= lim) {
                uint64_t wa, wb;
                memcpy(&wa, pa + i, sizeof wa);
                memcpy(&wb, pb + i, sizeof wb);
                if (wa != 0 || wb != ~(uint64_t)0) break;
                i += 8;
            }
            if (i >= lim) break;
            if (pa[i] == 0 && pb[i] == 0xFF) continue;   /* not written */
            if (w->n == EST_WIN || i + 8 > sizeof a) {
                w->n = EST_WIN_NONE;
                break;
            }
            uint8_t mb[8] = {0};
            for (size_t j = 0; j < 8 && i + j < lim; j++)
                if (pa[i + j] != 0 || pb[i + j] != 0xFF) mb[j] = 0xFF;
            w->off[w->n] = (uint16_t)i;
            memcpy(&w->mask[w->n], mb, sizeof mb);
            w->n++;
            i += 7;
        }
        return w;
    }
    return &none;   /* the table is full */
}

/* The command cache's slot for a command's words (w1: a cmd1's payload,
 * 0 for a cmd0). */
static est_cmd *est_slot(const est_scratch *x, uint32_t w0, uint32_t w1)
{
    return &x->cmds[((uint32_t)(((uint64_t)w0 << 32 | w1) * 0x9E3779B97F4A7C15u >> 40)) & (x->n_cmds - 1)];
}

/* Keeps a decoded command in its slot (its windows: the caller's). */
static void est_fill(est_cmd *ec, uint32_t w0, uint32_t w1, const sim_cmd *cmd, sim_cmd_value val, uint8_t role)
{
    ec->w0 = w0;
    ec->w1 = w1;
    ec->cmd = *cmd;
    ec->val = val;
    ec->role = role;
    ec->used = true;
}

/* The last epochs generated (the passes' searches generate the same
 * plan again: the best one after trying others, the one before a trial
 * that did not pay, a trajectory's plan a dozen or two trials later). */
#define GEN_KEEP 64
struct cc_gencache {
    gen_entry e[GEN_KEEP];
    int32_t next;             /* the slot to fill next */
    /* the ops part of the key being looked up: the epoch's ops, compared
     * in place (their cycle fields aside, ops_same) */
    const eu_op *img; size_t img_size;
    /* gen_key's marks of the buffers an epoch's ops name (mark[b] ==
     * stamp), sized for n_mark buffers */
    uint32_t *mark; int32_t n_mark; uint32_t stamp;
    /* estimate's scratch, kept between epochs (fresh arrays of a long
     * stream's size cost a page fault per page each time); `shared` (not
     * owned): the one of the search's compiles, in its place; `scratch`
     * (owned) made on first use where none is shared (cc_compile shares
     * one: the cache of each of its compiles clears 7 KiB less) */
    est_scratch *scratch, *shared;
    /* the op segments of the stream eu_generate wrote last, for its
     * estimate; whether an estimate took segments from them (the streams
     * are then checked at the end: check_streams) */
    eu_segs segs;
    bool unchecked;
};

static void est_scratch_free(est_scratch *x)
{
    free(x->ops);
    free(x->owner);
    free(x->eu_of);
    free(x->hint);
    free(x->seg_of);
    free(x->memo);
    free(x->cmds);
    free(x->segs);
    free(x->skips);
    sim_perf_memo_free(x->perf);
    memset(x, 0, sizeof *x);
}

static void gen_ops_free(gen_ops *x)
{
    if (!x || --x->refs) return;
    gen_ops_free(x->base);
    free(x->b);
    free(x->d_at);
    free(x->d_op);
    free(x);
}

static void gen_entry_free(gen_entry *g)
{
    gen_ops_free(g->ops);
    free(g->key);
    free(g->payload);
    free(g->dma_op);
    free(g->op_cycles);
    free(g->share);
    memset(g, 0, sizeof *g);
}

struct cc_gencache *cc_gencache_new(void) { return calloc(1, sizeof(struct cc_gencache)); }

void cc_gencache_free(struct cc_gencache *c)
{
    if (!c) return;
    for (int i = 0; i < GEN_KEEP; i++) gen_entry_free(&c->e[i]);
    free(c->mark);
    free(c->segs.seg);
    free(c->segs.kw);
    if (c->scratch) est_scratch_free(c->scratch);
    free(c->scratch);
    free(c);
}

/* Everything eu_generate and estimate read for epoch i: the size,
 * offset, pool and first NPU op of every buffer its NPU ops name (IFM,
 * IFM2, OFM, weight copy: eu_gen.c reads no other; so a plan that moves
 * another epoch's buffers leaves this epoch's key as it was) and its LUTs
 * (returned), and its NPU ops (the cache's img: their cycle fields, the
 * estimate's outputs, do not count). NULL: out of memory. */
static uint8_t *gen_key(const cc_model *m, int32_t i, size_t *size)
{
    const cc_epoch *e = &m->epochs[i];
    struct cc_gencache *c = m->gen;
    size_t per_buf = sizeof(uint64_t) + sizeof(int64_t) + 3 * sizeof(int32_t);
    size_t n = 3 * sizeof(int32_t) + sizeof *e->luts * (size_t)e->n_luts + per_buf * (size_t)m->n_bufs;
    size_t ni = sizeof *e->ops * (size_t)e->n_eu;
    if (m->n_bufs > c->n_mark) {
        uint32_t *x = calloc((size_t)m->n_bufs, sizeof *x);
        if (!x) return NULL;
        free(c->mark);
        c->mark = x;
        c->n_mark = m->n_bufs;
        c->stamp = 0;
    }
    if (++c->stamp == 0) {
        memset(c->mark, 0, sizeof *c->mark * (size_t)c->n_mark);
        c->stamp = 1;
    }
    for (int32_t j = 0; j < e->n_eu; j++) {
        const eu_op *o = &e->ops[j];
        const int32_t use[4] = {o->ifm.buf, o->ifm2.buf, o->ofm.buf, o->wbuf};
        for (int u = 0; u < 4; u++)
            if (use[u] >= 0 && use[u] < m->n_bufs) c->mark[use[u]] = c->stamp;
    }
    uint8_t *k = malloc(n), *p = k;
    if (!k) return NULL;
    int32_t head[3] = {i, e->n_eu, e->n_luts};
    memcpy(p, head, sizeof head);
    p += sizeof head;
    for (int32_t b = 0; b < m->n_bufs; b++) {
        if (c->mark[b] != c->stamp) continue;
        const cc_buf *x = &m->bufs[b];
        int32_t v[3] = {b, x->pool, x->eu_first};
        memcpy(p, &x->size, sizeof x->size);
        p += sizeof x->size;
        memcpy(p, &x->offset, sizeof x->offset);
        p += sizeof x->offset;
        memcpy(p, v, sizeof v);
        p += sizeof v;
    }
    if (e->n_luts) memcpy(p, e->luts, sizeof *e->luts * (size_t)e->n_luts);
    p += sizeof *e->luts * (size_t)e->n_luts;
    c->img = e->ops;
    c->img_size = ni;
    *size = (size_t)(p - k);
    return k;
}

/* A hash of a key (gen_key), compared before the key itself. */
static uint64_t key_hash(const uint8_t *k, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15u ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, k + i, sizeof w);
        h = (h ^ w) * 0xFF51AFD7ED558CCDu;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ k[i]) * 0x100000001B3u;
    return h;
}

/* Whether the n bytes of ops at a (an epoch's, its cycle fields zeroed:
 * cc_generate_all clears them before the lookup, as estimate or the cache
 * sets them anew) are the copy x (cycle fields zeroed too): one compare of
 * the whole image, not two per op around the cycle fields (lstm_s: 1,050
 * ops of 472 bytes, 2,100 calls a compare), or of the runs between the
 * ops x keeps apart and each of those. */
static bool ops_same(const eu_op *a, size_t n, const gen_ops *x)
{
    if (x->n != n) return false;
    if (!x->base) return !n || !memcmp(a, x->b, n);
    /* the base's bytes between the ops that differ, then each of those */
    const uint8_t *ab = (const uint8_t *)a, *bb = x->base->b;
    size_t at = 0;
    for (int32_t i = 0; i <= x->n_d; i++) {
        size_t to = i < x->n_d ? sizeof *a * (size_t)x->d_at[i] : n;
        if (to > at && memcmp(ab + at, bb + at, to - at)) return false;
        if (i == x->n_d) break;
        if (memcmp(&a[x->d_at[i]], &x->d_op[i], sizeof *a)) return false;
        at = to + sizeof *a;
    }
    return true;
}

/* Epoch i from the cache when its inputs match an entry (the model's
 * figures added as estimate adds them); false: not there. */
static bool gen_lookup(cc_model *m, int32_t i, const uint8_t *key, size_t key_size, uint64_t hash, bool *oom)
{
    struct cc_gencache *c = m->gen;
    cc_epoch *e = &m->epochs[i];
    for (int s = 0; s < GEN_KEEP; s++) {
        const gen_entry *g = &c->e[s];
        if (!g->key || g->key_hash != hash || g->key_size != key_size || memcmp(g->key, key, key_size)) continue;
        if (!ops_same(c->img, c->img_size, g->ops)) continue;
        uint8_t *pl = malloc(g->payload_size ? g->payload_size : 1);
        int32_t *dma = malloc(sizeof *dma * ((size_t)g->n_dma + 1));
        if (!pl || !dma) {
            free(pl);
            free(dma);
            *oom = true;
            return false;
        }
        memcpy(pl, g->payload, g->payload_size);
        memcpy(dma, g->dma_op, sizeof *dma * (size_t)g->n_dma);
        free(e->payload);
        free(e->dma_op);
        e->payload = pl;
        e->payload_size = g->payload_size;
        e->dma_op = dma;
        e->n_dma = g->n_dma;
        e->cycles = g->cycles;
        for (int32_t k = 0; k < e->n_eu; k++) {
            e->ops[k].cycles = g->op_cycles[2 * k];
            e->ops[k].dma_cycles = g->op_cycles[2 * k + 1];
        }
        for (size_t j = 0; j < g->n_share; j++) apply_share(m, &g->share[j]);
        return true;
    }
    return false;
}

/* Ops images of at least this many ops are kept as their differences from
 * a full one where they can be. */
#define GEN_DELTA_MIN 64

/* The ops part of epoch i's entry (g->ops): an entry's when the same,
 * else a copy, whole or as the ops that differ from the latest whole one
 * of as many ops (each copy compared once: most entries share a few). Found
 * before estimate, while the epoch's cycle fields are still zero (as the
 * copies'). False: out of memory. */
static bool ops_share(cc_model *m, gen_entry *g)
{
    struct cc_gencache *c = m->gen;
    gen_ops *differ[GEN_KEEP];
    int32_t n_differ = 0;
    gen_ops *base = NULL;   /* the latest full copy of as many ops */
    for (int32_t j = 1; j <= GEN_KEEP && !g->ops; j++) {
        gen_ops *x = c->e[(c->next + GEN_KEEP - j) % GEN_KEEP].ops;
        if (!x || x->n != c->img_size) continue;
        if (!base) base = x->base ? x->base : x;
        bool seen = false;
        for (int32_t k = 0; k < n_differ && !seen; k++) seen = differ[k] == x;
        if (seen) continue;
        if (ops_same(c->img, x->n, x)) g->ops = x;
        else differ[n_differ++] = x;
    }
    if (g->ops) {
        g->ops->refs++;
        return true;
    }
    gen_ops *x = calloc(1, sizeof *x);
    if (!x) return false;
    x->n = c->img_size;
    x->refs = 1;
    /* the ops that differ from the base, where they are few (a trial of
     * the search changes a handful: an unrolled LSTM's copies of 2 MB of
     * ops each took a page fault per page) */
    size_t n_ops = c->img_size / sizeof *c->img, most = n_ops / 8;
    if (base && n_ops >= GEN_DELTA_MIN && (x->d_at = malloc(sizeof *x->d_at * (most + 1)))) {
        /* one pass: the indices, until there are too many */
        const eu_op *bo = (const eu_op *)base->b;
        for (size_t k = 0; k < n_ops && (size_t)x->n_d <= most; k++)
            if (memcmp(&c->img[k], &bo[k], sizeof *bo)) {
                if ((size_t)x->n_d < most) x->d_at[x->n_d] = (int32_t)k;
                x->n_d++;
            }
        if ((size_t)x->n_d <= most && (x->d_op = malloc(sizeof *x->d_op * ((size_t)x->n_d + 1)))) {
            for (int32_t i = 0; i < x->n_d; i++) x->d_op[i] = c->img[x->d_at[i]];
            x->base = base;
            base->refs++;
            g->ops = x;
            return true;
        }
        free(x->d_at);
        x->d_at = NULL;
        x->n_d = 0;
    }
    if (!(x->b = malloc(c->img_size ? c->img_size : 1))) {
        free(x);
        return false;
    }
    if (c->img_size) memcpy(x->b, c->img, c->img_size);
    g->ops = x;
    return true;
}

/* Keeps epoch i as generated (g holds its key, ops and shares, taken over);
 * nothing is kept when memory runs out. */
static void gen_store(cc_model *m, int32_t i, gen_entry *g)
{
    const cc_epoch *e = &m->epochs[i];
    g->payload = malloc(e->payload_size ? e->payload_size : 1);
    g->dma_op = malloc(sizeof *g->dma_op * ((size_t)e->n_dma + 1));
    g->op_cycles = malloc(sizeof *g->op_cycles * (2 * (size_t)e->n_eu + 1));
    if (!g->payload || !g->dma_op || !g->op_cycles || !g->key || !g->ops) {
        gen_entry_free(g);
        return;
    }
    memcpy(g->payload, e->payload, e->payload_size);
    g->payload_size = e->payload_size;
    if (e->n_dma) memcpy(g->dma_op, e->dma_op, sizeof *g->dma_op * (size_t)e->n_dma);
    g->n_dma = e->n_dma;
    g->cycles = e->cycles;
    for (int32_t k = 0; k < e->n_eu; k++) {
        g->op_cycles[2 * k] = e->ops[k].cycles;
        g->op_cycles[2 * k + 1] = e->ops[k].dma_cycles;
    }
    struct cc_gencache *c = m->gen;
    gen_entry_free(&c->e[c->next]);
    c->e[c->next] = *g;
    c->next = (c->next + 1) % GEN_KEEP;
    memset(g, 0, sizeof *g);
}

/* Room for n ops in estimate's scratch arrays. */
static bool scratch_reserve(est_scratch *x, size_t n)
{
    if (n <= x->cap) return true;
    size_t cap = x->cap ? x->cap : 64;
    while (cap < n) cap *= 2;
    sim_op_info *ops = realloc(x->ops, sizeof *ops * cap);
    if (ops) x->ops = ops;
    int32_t *owner = realloc(x->owner, sizeof *owner * cap);
    if (owner) x->owner = owner;
    int32_t *eu_of = realloc(x->eu_of, sizeof *eu_of * cap);
    if (eu_of) x->eu_of = eu_of;
    uint32_t *hint = realloc(x->hint, sizeof *hint * cap);
    if (hint) x->hint = hint;
    est_seg **seg_of = realloc(x->seg_of, sizeof *seg_of * cap);
    if (seg_of) x->seg_of = seg_of;
    if (!ops || !owner || !eu_of || !hint || !seg_of) return false;
    x->cap = cap;
    return true;
}

/* Cycle estimate of an epoch's stream, attributed to the graph ops (each
 * op's share also into g->share when g is given). The stream is decoded
 * (and each command checked) one command at a time, as sim_stream_decode
 * would; where eu_generate noted its op segments (segs, while the search
 * runs), a segment met before is taken from the segment cache by the words
 * noted, its EST_SKIP commands not read (check_streams checks them). */
static int estimate(cc_model *m, cc_epoch *e, gen_entry *g, const eu_segs *segs, npuc_err *err)
{
    sim_cop1 cop;
    int rc = sim_cop1_parse(e->payload, e->payload_size, &cop, err);
    if (rc) return npuc_err_prefix(err, "internal: own payload"), rc;
    eu_variant v = m->opt.sys.variant;
    const uint8_t *st = cop.stream;
    size_t size = cop.stream_size;
    if (size % 4 || size == 0)
        return npuc_errf(err, NPUC_E_FORMAT, "internal: own command stream: size %zu", size);
    /* kept between epochs (own: this call's alone, cleared only then) */
    est_scratch own_s, *own = NULL, *x = NULL;
    if (m->gen && !m->gen->shared && !m->gen->scratch) m->gen->scratch = calloc(1, sizeof *m->gen->scratch);
    if (m->gen) x = m->gen->shared ? m->gen->shared : m->gen->scratch;
    if (!x) {
        memset(&own_s, 0, sizeof own_s);
        x = own = &own_s;
    }
    /* at most one op per command word */
    if (!scratch_reserve(x, size / 4 + 1)) {
        if (own) est_scratch_free(own);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    /* and each op's figures in the cycle model, by its record */
    if (m->gen && !x->perf) x->perf = sim_perf_memo_new();
    /* the command cache: EST_CMDS slots for a stream long enough to
     * repeat itself, EST_CMDS_SHORT once the compile has estimated that
     * many bytes of shorter ones (a search's trials estimate the same
     * stream again and again), EST_CMDS once it has estimated
     * EST_CMDS_MANY_BYTES of them (the trials' streams share most of
     * their commands, but not within 512 slots: person_detect's search
     * decodes 42% of its commands with 512, 11% with 4096, 5% fewer
     * instructions in all); fresh zeroed pages cost a small model more
     * than the cache saves it (armkws_ds_cnn_s: 4096 slots, 0.4 ms more),
     * but not 512 slots from the first stream of EST_CMDS_SHORT_BYTES
     * (tflm_model_runner_codegen's four estimates of 2.3 KB streams: 5%
     * fewer instructions, micro_speech 6%, armkws_ds_cnn_s 3%; the
     * streams of hello_world, 0.4 KB, do not repeat enough) */
    x->decoded += size;
    /* the checks of the register values the epochs' streams repeat are
     * remembered with the cache (without one, each command is checked),
     * once the compile has estimated EST_CMDS_MIN_BYTES of streams: its
     * 80 KiB of fresh zeroed memory cost a small model more than it saves
     * (simple_add_model: a third of the compile) */
    if (m->gen && !x->memo && x->decoded >= EST_CMDS_MIN_BYTES) x->memo = calloc(1, sizeof *x->memo);
    if (m->gen && x->n_cmds < EST_CMDS &&
        (size >= EST_CMDS_MIN_BYTES || x->decoded >= EST_CMDS_MANY_BYTES ||
         (!x->cmds && (x->decoded >= EST_CMDS_MIN_BYTES || size >= EST_CMDS_SHORT_BYTES)))) {
        uint32_t n = size >= EST_CMDS_MIN_BYTES || x->decoded >= EST_CMDS_MANY_BYTES ? EST_CMDS : EST_CMDS_SHORT;
        est_cmd *c = calloc(n, sizeof *c);
        if (c) {
            free(x->cmds);
            x->cmds = c;
            x->n_cmds = n;
            x->cmds_variant = v;
        }
    }
    if (x->cmds && x->n_cmds == EST_CMDS && !x->segs) {
        x->segs = calloc(SEG_SLOTS, sizeof *x->segs);
        x->skips = x->segs ? calloc((size_t)1 << SKIP_BITS, sizeof *x->skips) : NULL;
        if (!x->skips) free(x->segs), x->segs = NULL;
    }
    if (x->segs && !x->have_roles) {
        for (uint32_t k = 0; k < 2048; k++) x->roles[k] = sim_cmd_role((uint16_t)((k & 0x400) << 4 | (k & 0x3FF)));
        x->have_roles = true;
    }
    if (x->cmds && x->cmds_variant != v) {
        memset(x->cmds, 0, sizeof *x->cmds * x->n_cmds);
        if (x->segs) {
            for (uint32_t k = 0; k < SEG_SLOTS; k++) x->segs[k].valid = false;
            memset(x->skips, 0, sizeof *x->skips << SKIP_BITS);
        }
        x->cmds_variant = v;
    }
    sim_op_info *ops = x->ops;
    int32_t *owner = x->owner, *eu_of = x->eu_of;
    sim_state s;
    sim_state_reset(&s);
    uint8_t wk = 0, wc = 0;
    size_t no = 0, i = 0;
    int32_t kernel = 0, dma = 0;
    bool stopped = false;
    /* at a segment's start (est_seg), and the slot recording the one
     * being decoded (NULL: none) */
    bool seg_start = true;
    est_seg *rec = NULL, *seg_op = NULL;   /* seg_op: the op's segment */
    size_t rec_end = 0;
    for (size_t pos = 0; pos < size; i++) {
        if (stopped) {
            rc = npuc_errf(err, NPUC_E_FORMAT, "internal: own command stream: byte 0x%04zx: command after NPU_OP_STOP",
                           pos);
            break;
        }
        sim_cmd cmd;
        const sim_cmd *c = &cmd;
        sim_cmd_value val;
        uint8_t role;
        est_cmd *ec = NULL;
        if (x->segs && seg_start) {
            /* the segment from here: the words of its commands that are
             * not EST_SKIP up to its op (the others have no effect on
             * the records: each is checked, from the command cache when
             * decoded before), and from the segment cache when met
             * before */
            size_t q = pos, end = 0;
            uint32_t kwb[SEG_WORDS], nk = 0, ncmd = 0;
            const uint32_t *kw = kwb;
            uint64_t h = 0x9E3779B97F4A7C15u;
            /* as eu_generate noted the segment while writing it (where it
             * starts here): the same words, not read from the stream
             * again; its EST_SKIP commands are checked once the compile
             * has its streams (check_streams) */
            const eu_seg *gs = segs && no < segs->n && pos == (no ? segs->seg[no - 1].end : 0) ? &segs->seg[no] : NULL;
            if (gs) {
                m->gen->unchecked = true;
                if (gs->ok) {
                    kw = segs->kw + gs->kw;
                    nk = gs->nk;
                    ncmd = gs->ncmd;
                    end = gs->end;
                    for (uint32_t j = 0; j < nk; j++) h = (h ^ kw[j]) * 0xFF51AFD7ED558CCDu;
                }
            }
            while (!gs && q + 4 <= size && ncmd < 4 * SEG_WORDS) {
                uint32_t w = est_rd32(st + q);
                if (w & 0xBC00) break;   /* not a command: the decoder's error */
                bool two = w & 0x4000;
                if (two && q + 8 > size) break;
                uint32_t w1 = two ? est_rd32(st + q + 4) : 0;
                uint8_t r = x->roles[(w & 0x4000) >> 4 | (w & 0x3FF)];
                ncmd++;
                if (r == EST_SKIP) {
                    uint64_t key = (uint64_t)w << 32 | w1;
                    uint64_t *ok = &x->skips[(key * 0x9E3779B97F4A7C15u) >> (64 - SKIP_BITS)];
                    if (*ok != key) {
                        sim_cmd dc;
                        if (sim_cmd_decode_memo(st, size, q, v, &dc, x->memo, err)) break;
                        *ok = key;
                    }
                    q += two ? 8 : 4;
                    continue;
                }
                if (nk + 2 > SEG_WORDS || r == EST_STOP) break;
                kwb[nk++] = w;
                h = (h ^ w) * 0xFF51AFD7ED558CCDu;
                if (two) {
                    kwb[nk++] = w1;
                    h = (h ^ w1) * 0xFF51AFD7ED558CCDu;
                }
                q += two ? 8 : 4;
                if (r == EST_OP) {
                    end = q;
                    break;
                }
            }
            seg_start = false;
            if (end) {
                h ^= h >> 29;
                est_seg *sg = &x->segs[(h >> 20) & (SEG_SLOTS - 1)];
                if (sg->valid && sg->hash == h && sg->n_words == nk && !memcmp(sg->words, kw, sizeof *kw * nk)) {
                    win_apply(&s, sg->off, sg->mask, sg->bits, sg->n_win);
                    cmd = sg->op;
                    wk = sg->wk;
                    wc = sg->wc;
                    i += ncmd - 1u;
                    pos = end;
                    role = EST_OP;
                    seg_op = sg;
                    goto op;
                }
                rec = sg;
                rec_end = end;
                sg->valid = false;
                sg->hash = h;
                sg->n_words = (uint16_t)nk;
                sg->n_win = 0;
                memcpy(sg->words, kw, sizeof *kw * nk);
            }
        }
        /* an EST_SKIP command checked before (the segment's scan checked
         * them all): nothing to apply or record */
        if (x->segs) {
            uint32_t w0 = est_rd32(st + pos);
            bool two = w0 & 0x4000;
            if (!(w0 & 0xBC00) && x->roles[(w0 & 0x4000) >> 4 | (w0 & 0x3FF)] == EST_SKIP &&
                (!two || pos + 8 <= size)) {
                uint64_t key = (uint64_t)w0 << 32 | (two ? est_rd32(st + pos + 4) : 0);
                if (x->skips[(key * 0x9E3779B97F4A7C15u) >> (64 - SKIP_BITS)] == key) {
                    pos += two ? 8 : 4;
                    if (rec && pos >= rec_end) rec = NULL;   /* not its op */
                    continue;
                }
            }
        }
        /* the command (its offset aside), its value and role: from the
         * cache when decoded before */
        if (x->cmds) {
            uint32_t w0 = est_rd32(st + pos), w1 = (w0 & 0x4000) && pos + 8 <= size ? est_rd32(st + pos + 4) : 0;
            ec = est_slot(x, w0, w1);
            /* a cmd1 needs its payload within the stream (else the
             * decoder's own error) */
            if (ec->used && ec->w0 == w0 && ec->w1 == w1 && (!ec->cmd.is_cmd1 || pos + 8 <= size)) {
                c = &ec->cmd;
            } else {
                ec->used = false;
                ec->w0 = w0;
                ec->w1 = w1;
            }
        }
        if (!ec || !ec->used) {
            if ((rc = sim_cmd_decode_memo(st, size, pos, v, &cmd, x->memo, err))) {
                npuc_err_prefix(err, "internal: own command stream");
                break;
            }
            role = sim_cmd_role(cmd.code);
            val = role != EST_SKIP ? sim_cmd_value_of(&cmd) : (sim_cmd_value){0, 0};
            if (role != EST_SKIP) sim_state_apply_value(&s, c, val);
            if (ec) {
                est_fill(ec, ec->w0, ec->w1, &cmd, val, role);
                /* what it wrote: the bytes of its windows as applied */
                const est_codewin *w = role != EST_SKIP ? est_code_windows(x, &cmd, val) : NULL;
                ec->n_win = w ? w->n : 0;
                for (uint8_t j = 0; w && j < w->n && w->n != EST_WIN_NONE; j++) {
                    uint64_t b;
                    memcpy(&b, (const uint8_t *)&s + w->off[j], sizeof b);
                    ec->off[j] = w->off[j];
                    ec->mask[j] = w->mask[j];
                    ec->bits[j] = b & w->mask[j];
                }
            }
        } else {
            role = ec->role;
            if (ec->n_win == EST_WIN_NONE) {
                sim_state_apply_value(&s, c, ec->val);
            } else {
                /* sim_state_apply_value's effect on the state's fields */
                win_apply(&s, ec->off, ec->mask, ec->bits, ec->n_win);
            }
        }
        stopped = role == EST_STOP;
        pos += c->is_cmd1 ? 8 : 4;
        if (rec) {
            /* the segment being recorded: this command's windows */
            if (!ec || ec->n_win == EST_WIN_NONE || rec->n_win + ec->n_win > SEG_WIN || pos > rec_end ||
                (role == EST_OP) != (pos == rec_end)) {
                rec = NULL;
            } else {
                for (uint8_t j = 0; j < ec->n_win; j++, rec->n_win++) {
                    rec->off[rec->n_win] = ec->off[j];
                    rec->mask[rec->n_win] = ec->mask[j];
                    rec->bits[rec->n_win] = ec->bits[j];
                }
                if (pos == rec_end) {
                    rec->op = *c;
                    rec->wk = wk;
                    rec->wc = wc;
                    rec->valid = true;
                    rec->have_info = false;
                    seg_op = rec;
                    rec = NULL;
                }
            }
        }
        if (role == EST_WAIT) {
            wk = c->code == EU_OP_DMA_WAIT ? 1 : 2;
            wc = (uint8_t)c->param;
        } else if (role == EST_OP) {
            /* the op's record names its offset */
            if (c != &cmd) cmd = *c;
        op:
            c = &cmd;
            seg_start = true;
            cmd.offset = pos - (cmd.is_cmd1 ? 8 : 4);
            x->hint[no] = 0;
            x->seg_of[no] = seg_op;
            /* the state's bytes sim_op_info_from_state reads for the op:
             * a kernel op's all before the DMA registers, a DMA's these
             * and the two it reads of the others */
            bool dop = cmd.code == EU_OP_DMA_START;
            size_t lo = dop ? offsetof(sim_state, dma) : 0, hi = offsetof(sim_state, dma) + (dop ? sizeof s.dma : 0);
            if (seg_op && seg_op->have_info &&
                !memcmp((const uint8_t *)&s + lo, seg_op->state + lo, hi - lo) &&
                (!dop || (s.parallel_mode == seg_op->parallel_mode && s.blockdep == seg_op->blockdep))) {
                /* the same op from the same state */
                ops[no] = seg_op->info;
                ops[no].cmd_index = i;
                ops[no].cmd_offset = cmd.offset;
                x->hint[no] = seg_op->perf_rec;
            } else {
                sim_op_info_from_state(&s, c, i, v, &ops[no]);
                if (seg_op) {
                    memcpy(seg_op->state + lo, (const uint8_t *)&s + lo, hi - lo);
                    seg_op->parallel_mode = s.parallel_mode;
                    seg_op->blockdep = s.blockdep;
                    seg_op->info = ops[no];
                    seg_op->have_info = true;
                }
            }
            seg_op = NULL;
            ops[no].wait_kind = wk;
            ops[no].wait_count = wc;
            wk = wc = 0;
            int32_t k = cc_record_eu(e, c->code == EU_OP_DMA_START, &kernel, &dma);
            eu_of[no] = k;
            owner[no] = k >= 0 ? e->ops[k].src_op : -1;
            no++;
        }
    }
    if (!rc && !stopped)
        rc = npuc_errf(err, NPUC_E_FORMAT, "internal: own command stream: ends without NPU_OP_STOP");
    gen_share *sh = !rc && g ? malloc(sizeof *sh * (no + 1)) : NULL;
    if (!rc && g && !sh) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (rc) {
        if (own) est_scratch_free(own);
        return rc;
    }
    e->cycles = sim_perf_estimate_hint(v, &m->opt.sys.sim, ops, no, own ? NULL : x->perf, x->hint);
    /* each segment's record, for its op next time */
    for (size_t j = 0; j < no; j++)
        if (x->seg_of[j]) x->seg_of[j]->perf_rec = x->hint[j];
    for (int32_t k = 0; k < e->n_eu; k++) e->ops[k].cycles = e->ops[k].dma_cycles = 0;
    for (size_t j = 0; j < no; j++) {
        if (eu_of[j] < 0) continue;
        eu_op *o = &e->ops[eu_of[j]];
        if (ops[j].kind == SIM_K_DMA) o->dma_cycles += ops[j].cycles;
        else o->cycles = ops[j].cycles;
    }
    size_t nsh = 0;
    for (size_t j = 0; j < no; j++) {
        if (owner[j] < 0) continue;
        gen_share y = share_of(owner[j], &ops[j]);
        apply_share(m, &y);
        if (sh) sh[nsh++] = y;
    }
    if (g) {
        g->share = sh;
        g->n_share = nsh;
    }
    if (own) est_scratch_free(own);
    return NPUC_OK;
}

/* Every command of the HW epochs' streams checked as the decoder checks it
 * (sim_cmd_decode_memo), and each stream's end: estimate does so as it goes
 * but for the EST_SKIP commands of the segments it took as eu_generate
 * noted them. Once, when the compile has its streams (m->gen: only where
 * an estimate took such segments); each command's words checked once (the
 * scratch's table of checked EST_SKIP commands, all of them here). */
static int check_streams(cc_model *m, npuc_err *err)
{
    struct cc_gencache *c = m->gen;
    if (!c || !c->unchecked) return NPUC_OK;
    est_scratch *x = c->shared ? c->shared : c->scratch;
    uint64_t *seen = x && x->skips && x->cmds_variant == m->opt.sys.variant ? x->skips : NULL;
    eu_variant v = m->opt.sys.variant;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW) continue;
        sim_cop1 cop;
        int rc = sim_cop1_parse(e->payload, e->payload_size, &cop, err);
        if (rc) return npuc_err_prefix(err, "internal: own payload"), rc;
        const uint8_t *st = cop.stream;
        size_t size = cop.stream_size;
        if (size % 4 || size == 0)
            return npuc_errf(err, NPUC_E_FORMAT, "internal: own command stream: size %zu", size);
        bool stopped = false;
        for (size_t pos = 0; pos < size;) {
            if (stopped)
                return npuc_errf(err, NPUC_E_FORMAT,
                                 "internal: own command stream: byte 0x%04zx: command after NPU_OP_STOP", pos);
            uint32_t w0 = est_rd32(st + pos);
            bool two = w0 & 0x4000;
            uint64_t key = (uint64_t)w0 << 32 | (two && pos + 8 <= size ? est_rd32(st + pos + 4) : 0);
            uint64_t *ok = seen ? &seen[(key * 0x9E3779B97F4A7C15u) >> (64 - SKIP_BITS)] : NULL;
            /* the stop (decoded: it ends the stream) and anything the
             * decoder would refuse are not taken from the table */
            if (ok && *ok == key && key && !(w0 & 0xBC00) && (!two || pos + 8 <= size) &&
                (two || (w0 & 0x3FF) != EU_OP_STOP)) {
                pos += two ? 8 : 4;
                continue;
            }
            sim_cmd cmd;
            if ((rc = sim_cmd_decode_memo(st, size, pos, v, &cmd, x ? x->memo : NULL, err)))
                return npuc_err_prefix(err, "internal: own command stream"), rc;
            if (ok) *ok = key;
            stopped = cmd.code == EU_OP_STOP;
            pos += cmd.is_cmd1 ? 8 : 4;
        }
        if (!stopped) return npuc_errf(err, NPUC_E_FORMAT, "internal: own command stream: ends without NPU_OP_STOP");
    }
    return NPUC_OK;
}

/* Weight copies (eu_op.wbuf) pay when their memory is faster than the
 * params memory. The lowering makes them for the fast scratch when there is
 * one; those that cc_allocate had to leave in an arena that is not faster
 * than the params memory are dropped (the op reads its weights from flash
 * again). Returns whether any was. */
static bool drop_slow_copies(cc_model *m)
{
    const sim_system *s = &m->opt.sys.sim;
    const sim_memory *pm = &s->axi[s->region_port[0] & 1], *am = &s->axi[s->region_port[1] & 1];
    if (pm->clock_scale * pm->width_bytes < am->clock_scale * am->width_bytes) return false;
    bool any = false;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
            eu_op *o = &e->ops[k];
            if (o->wbuf < 0 || m->bufs[o->wbuf].pool != CC_IN_ARENA) continue;
            m->bufs[o->wbuf].size = 0;
            o->wbuf = -1;
            any = true;
        }
    }
    return any;
}

int cc_generate_all(cc_model *m, npuc_err *err)
{
    m->npu_cycles = 0;
    for (int32_t i = 0; i < m->g->n_ops; i++) {
        cc_op_info *oi = &m->ops[i];
        oi->cycles = 0;
        memset(oi->bytes_read, 0, sizeof oi->bytes_read);
        memset(oi->bytes_written, 0, sizeof oi->bytes_written);
    }
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW) continue;
        /* the same inputs make the same stream and estimate: from the
         * cache when they were generated before */
        gen_entry g;
        memset(&g, 0, sizeof g);
        bool oom = false;
        /* the cycle fields are estimate's outputs (set anew below, from
         * the cache or the estimate): cleared, so that the ops compare
         * whole with the cache's copies (ops_same) */
        if (m->gen)
            for (int32_t k = 0; k < e->n_eu; k++) e->ops[k].cycles = e->ops[k].dma_cycles = 0;
        if (m->gen && (g.key = gen_key(m, i, &g.key_size)) &&
            gen_lookup(m, i, g.key, g.key_size, g.key_hash = key_hash(g.key, g.key_size), &oom)) {
            free(g.key);
            m->npu_cycles += e->cycles;
            continue;
        }
        if (oom) {
            free(g.key);
            return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        }
        /* the ops part of the entry, while the cycle fields are zero */
        if (g.key && !ops_share(m, &g)) {
            free(g.key);
            g.key = NULL;
        }
        /* the segment notes, where the estimate has its segment cache or
         * will make it for this stream (one of EST_CMDS_MIN_BYTES, as the
         * epoch's last one was, or as its ops make it: 16 bytes an op at
         * the least); a small model's streams never get one: no notes to
         * keep (keyword_scrambled: their arrays cost it 1.5 %) */
        eu_segs *sg = NULL;
        est_scratch *x = m->gen ? m->gen->shared ? m->gen->shared : m->gen->scratch : NULL;
        if (m->gen && ((x && x->segs) || e->payload_size >= EST_CMDS_MIN_BYTES ||
                       16 * (uint64_t)e->n_eu >= EST_CMDS_MIN_BYTES)) {
            sg = &m->gen->segs;
            sg->max_words = SEG_WORDS;
            sg->max_cmds = 4 * SEG_WORDS;
        }
        int rc = eu_generate_segs(m, e, sg, err);
        if (!rc) rc = estimate(m, e, g.key ? &g : NULL, sg && !sg->oom ? sg : NULL, err);
        if (!rc && g.key) gen_store(m, i, &g);
        gen_entry_free(&g);
        if (rc) return rc;
        m->npu_cycles += e->cycles;
    }
    return NPUC_OK;
}

bool cc_arena_is_sram(const cc_options *o)
{
    const target_desc *s = &o->sys;
    return s->act_pool >= 0 && s->act_pool < s->n_pools && s->pools[s->act_pool].memory &&
           !strcmp(s->pools[s->act_pool].memory, "Sram");
}

uint64_t cc_fast_bytes(const cc_options *o)
{
    const target_desc *s = &o->sys;
    if (s->fast_pool < 0 || s->fast_pool >= s->n_pools || s->fast_pool == s->act_pool) return 0;
    return s->pools[s->fast_pool].size & ~(uint64_t)15;
}

uint64_t cc_sram_bytes(const cc_model *m)
{
    return m->fast_size + (cc_arena_is_sram(&m->opt) ? m->arena_size : 0);
}

static double port_bw(const sim_system *s, int region)
{
    const sim_memory *x = &s->axi[s->region_port[region] & 1];
    return x->clock_scale * x->width_bytes;
}

double cc_weight_cost(const cc_options *o)
{
    double p = port_bw(&o->sys.sim, 0), a = port_bw(&o->sys.sim, 1);
    return p > 0 && a > p ? a / p : 1.0;
}

/* Lowers m->g afresh (cc_lower), dropping what an earlier lowering left. */
static int lower(cc_model *m, npuc_err *err)
{
    for (int32_t i = 0; i < m->n_epochs; i++) {
        free(m->epochs[i].ops);
        free(m->epochs[i].luts);
        free(m->epochs[i].flash);
        free(m->epochs[i].alias);
    }
    m->n_epochs = m->n_bufs = 0;
    m->lstm_forms = false;
    free(m->ops);
    free(m->buf_of);
    m->ops = calloc((size_t)m->g->n_ops + 1, sizeof *m->ops);
    m->buf_of = calloc((size_t)m->g->n_tensors + 1, sizeof *m->buf_of);
    if (!m->ops || !m->buf_of) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < m->g->n_ops; i++)
        m->ops[i].epoch = m->ops[i].cascade = m->ops[i].fused_into = m->ops[i].folded_into = -1;
    int rc = cc_lower(m, err);
    /* a uint8 QUANTIZE folded into a conv that did not take it: lowered
     * again with none folded (lower_quantize.c) */
    if (!rc && !m->qfold_off && !cc_quant_folds_taken(m)) {
        m->qfold_off = true;
        return lower(m, err);
    }
    return rc;
}

static int32_t cpu_ops(const cc_model *m)
{
    int32_t n = 0;
    for (int32_t i = 0; i < m->g->n_ops; i++) n += !m->ops[i].npu;
    return n;
}

/* Views alone on the CPU whose producer is an NPU op move next to it
 * (cc_order_views_plan) and m->g is lowered again; kept when no more ops
 * stay on the CPU, else the order before comes back. */
static int lower_views(cc_model *m, npuc_err *err)
{
    int32_t *order = malloc(sizeof *order * (size_t)(m->g->n_ops + 1));
    if (!order) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    graph *h = NULL, *old = m->folded_g;
    const graph *old_g = m->g;
    int32_t before = cpu_ops(m);
    int rc = cc_order_views_plan(m, order) ? cc_graph_reorder(m->g, order, &h, err) : NPUC_OK;
    free(order);
    if (rc || !h) return rc;
    m->g = m->folded_g = h;
    if ((rc = lower(m, err))) {
        graph_free(old);
        return rc;
    }
    if (cpu_ops(m) <= before) {
        graph_free(old);
        return NPUC_OK;
    }
    graph_free(h);
    m->g = old_g;
    m->folded_g = old;
    return lower(m, err);
}

/* One compile with one schedule (the knobs in opt). */
static int compile_once(const graph *g, const cc_options *opt, eu_wcache *wc, struct cc_ref_memo *refs,
                        struct cc_order_memo *om, est_scratch *est, cc_model **out, npuc_err *err)
{
    *out = NULL;
    double t0 = now_seconds();
    cc_model *m = calloc(1, sizeof *m);
    if (!m) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    m->g = m->src = g;
    m->opt = *opt;
    m->wcache = wc;
    m->refs = refs;
    m->order_memo = om;
    m->costs = cc_costs_new();   /* NULL: every price worked out anew */
    m->gen = cc_gencache_new();  /* NULL: every epoch generated anew */
    if (m->gen) m->gen->shared = est;
    m->pfmemo = cc_pfmemo_new(); /* NULL: every prefetch planned anew */
    int rc = NPUC_OK;
    if (!opt->no_fold) {
        if ((rc = cc_fold(g, &m->folded_g, &m->folded, &m->n_folded, err))) goto fail;
        if (m->folded_g) m->g = m->folded_g;
    }
    if (!opt->no_order && !opt->graph_order && (rc = cc_order(m, err))) goto fail;
    if ((rc = lower(m, err)) || (!opt->no_order && (rc = lower_views(m, err)))) goto fail;
    /* a legacy uint8 op left on the CPU runs nowhere: no model is written */
    if ((rc = interp_check_legacy_uint8(m->g, on_cpu, m, err))) goto fail;
    if (opt->flash_cap) {
        uint64_t consts = cc_const_bytes(m);
        if (consts > opt->flash_cap) {
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "constants take %llu bytes of flash, over %llu",
                           (unsigned long long)consts, (unsigned long long)opt->flash_cap);
            goto fail;
        }
    }
    if ((rc = cc_concat_place(m, err))) goto fail;
    if ((rc = cc_layout(m, err))) goto fail;
    if ((rc = cc_cascade(m, err))) goto fail;
    cc_reblock(m);
    if ((rc = cc_allocate(m, err))) goto fail;
    if (drop_slow_copies(m) && (rc = cc_allocate(m, err))) goto fail;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        if (e->kind == CC_EPOCH_HW && (rc = epoch_io(m, e, err))) goto fail;
    }
    if ((rc = cc_generate_all(m, err))) goto fail;
    if ((rc = cc_place_weights(m, err))) goto fail;
    if (cc_reblock_placed(m) && (rc = cc_generate_all(m, err))) goto fail;
    if ((rc = cc_scale_copies(m, err))) goto fail;
    bool shared;
    if ((rc = cc_share_flash(m, &shared, err))) goto fail;
    if (shared && (rc = cc_generate_all(m, err))) goto fail;
    if ((rc = check_streams(m, err))) goto fail;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW) continue;
        m->flash_size += e->flash_size + e->payload_size;
        m->stream_size += e->payload_size;
    }
    if (!opt->no_fold && (rc = cc_fold_once(m, err))) goto fail;
    m->compile_seconds = now_seconds() - t0;
    m->wcache = NULL;
    m->refs = NULL;
    m->order_memo = NULL;
    cc_costs_free(m->costs);
    m->costs = NULL;
    cc_gencache_free(m->gen);
    m->gen = NULL;
    cc_pfmemo_free(m->pfmemo);
    m->pfmemo = NULL;
    *out = m;
    return NPUC_OK;
fail:
    cc_model_free(m);
    return rc;
}


/* ------------------------------------------------------ schedule search */

int32_t cc_sched_pick(const cc_sched_point *p, int32_t n, uint64_t limit)
{
    return cc_sched_pick_within(p, n, limit, CC_CYCLE_SLACK);
}

int32_t cc_sched_pick_within(const cc_sched_point *p, int32_t n, uint64_t limit, uint64_t slack)
{
    bool any_fits = false;
    for (int32_t i = 0; i < n; i++) any_fits |= !limit || p[i].sram <= limit;
    if (!any_fits) {
        int32_t best = 0;
        for (int32_t i = 1; i < n; i++)
            if (p[i].sram < p[best].sram || (p[i].sram == p[best].sram && p[i].cycles < p[best].cycles)) best = i;
        return best;
    }
    uint64_t fewest = UINT64_MAX;
    for (int32_t i = 0; i < n; i++)
        if ((!limit || p[i].sram <= limit) && p[i].cycles < fewest) fewest = p[i].cycles;
    uint64_t band = fewest + fewest / slack;
    int32_t best = -1;
    for (int32_t i = 0; i < n; i++) {
        if ((limit && p[i].sram > limit) || p[i].cycles > band) continue;
        if (best < 0 || p[i].sram < p[best].sram || (p[i].sram == p[best].sram && p[i].cycles < p[best].cycles))
            best = i;
    }
    return best;
}

int32_t cc_sched_lean(const cc_sched_point *p, int32_t n, int32_t from)
{
    const cc_sched_point *f = &p[from];
    int32_t best = from;
    for (int32_t i = 0; i < n; i++) {
        if (p[i].sram > p[best].sram || (p[i].sram == p[best].sram && p[i].cycles >= p[best].cycles)) continue;
        /* (a point in no SRAM at all: as if in one byte) */
        double halvings = p[i].sram >= f->sram ? 0.0 : log2((double)f->sram / (double)(p[i].sram ? p[i].sram : 1));
        double allowed = (double)f->cycles * (1.0 + halvings / CC_LEAN_PER_HALVING);
        if ((double)p[i].cycles <= allowed) best = i;
    }
    return best;
}

/* The schedules the search weighs: the knobs it varies from the caller's
 * options (those the caller set explicitly stay as set). */
typedef struct cc_try {
    int32_t headroom;           /* 0: the caller's */
    uint32_t chunk_bytes;       /* 0: the caller's */
    bool stream;                /* no weight copies at all */
    bool cascade_off;           /* cascade OFF instead of AUTO */
    bool size;                  /* --optimise size's schedule (no copies; cascades
                                   and layout for both pools) */
    bool fast;                  /* also weighed without a limit where a fast pool
                                   is apart from the arena */
} cc_try;

static const cc_try TRIES[] = {
    {-1, 0, false, false, false, false},    /* no prefetch beyond the op before */
    {0, 2048, false, false, false, false},  /* small chunks: short double buffers */
    {-1, 2048, false, false, false, false},
    {0, 0, false, true, false, false},      /* no cascade (cascades cost cycles) */
    {0, 0, true, true, false, false},       /* weights streamed from flash */
    {0, 0, true, false, false, false},      /* ... and cascades: the least SRAM */
    {0, 0, true, false, true, true},        /* --optimise size */
    /* big chunks: fewer ops re-reading their IFM, where the fast pool
     * (hundreds of KiB) holds the longer weight copies */
    {0, CC_CHUNK_FAST, false, false, false, true},
};

/* Whether the system has a fast scratch pool apart from the arena. */
static bool has_fast_pool(const cc_options *o)
{
    const target_desc *s = &o->sys;
    return s->fast_pool >= 0 && s->fast_pool < s->n_pools && s->fast_pool != s->act_pool;
}

/* Whether a try with `chunk` bytes per chunk could lower m's graph other
 * than m's own chunks: an NPU conv or fully connected layer has more
 * constant weight bytes than the smaller of the two (lower_weights.c
 * splits only those). */
static bool chunks_differ(const cc_model *m, uint32_t chunk)
{
    uint32_t own = m->opt.chunk_bytes ? m->opt.chunk_bytes : CC_CHUNK_DEFAULT;
    size_t least = own < chunk ? own : chunk;
    const graph *g = m->g;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (!m->ops[i].npu || op->n_in < 2 || op->in[1] < 0) continue;
        if (op->opcode != TFL_OP_CONV_2D && op->opcode != TFL_OP_FULLY_CONNECTED) continue;
        const graph_tensor *w = &g->tensors[op->in[1]];
        if (w->data && w->nbytes > least) return true;
    }
    return false;
}

/* o under a limit of `bytes` as --arena-cache-size sets one: with a fast
 * pool apart from the arena, also a pool of that size (in_pool; else the
 * pool o names, the weight copies dropped down to the limit). */
static void under_limit(cc_options *o, uint64_t bytes, bool in_pool)
{
    if (in_pool && has_fast_pool(o)) o->sys.pools[o->sys.fast_pool].size = bytes;
    o->sram_limit = bytes;
}

/* Schedules the search may weigh at most: the caller's, the system pool's
 * or the default's, an LSTM's other form, the finer cascade bands, the
 * tries and --optimise size's with the LSTM's stacked form, one spare, and
 * the lean step's probes and settle compiles (three per round). */
#define N_SCHED (6 + CC_LEAN_PROBES + 3 * CC_LEAN_SETTLE + (int32_t)(sizeof TRIES / sizeof TRIES[0]))

/* The order-0 entropy (bits) of the values op o's weight stream(s) decode
 * to (the traversal's zeros included), read back from the flash, each
 * stream once: ops that share one (an unrolled LSTM's) find it in c. */
typedef struct ent_cache {
    struct ent_entry { const uint8_t *at; double bits; } *e;
    size_t n, cap;
    uint64_t bytes;           /* of the distinct streams */
    double total_bits;
} ent_cache;

static double stream_bits(ent_cache *c, eu_wcache *wc, const uint8_t *at, uint64_t len, bool *oom)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].at == at) return c->e[i].bits;
    double bits = 0;
    /* a stream the compile encoded: the encoder counted its values; any
     * other is decoded and counted */
    if (!eu_wcache_entropy(wc, at, (size_t)len, &bits)) {
        int16_t *v = NULL;
        sim_mlw_info info;
        npuc_err err;
        memset(&err, 0, sizeof err);
        if (!sim_mlw_decode(at, len, 0, &v, &info, &err)) bits = eu_entropy_bits(v, info.n_weights);
        else if (err.code == NPUC_E_NOMEM) *oom = true;
        free(v);
    }
    c->bytes += len;
    c->total_bits += bits;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct ent_entry *e = realloc(c->e, sizeof *e * cap);
        if (!e) return *oom = true, bits;
        c->e = e;
        c->cap = cap;
    }
    c->e[c->n++] = (struct ent_entry){at, bits};
    return bits;
}

/* Each NPU op's weight entropy (cc_epoch.w_bits) and the model's weight
 * stream bytes and entropy, each stream once (m->weight_bytes,
 * m->weight_bits), for the report: computed once, on the compile's final
 * model, never during the search; the streams wc encoded (NULL: none) are
 * not decoded. */
static int weight_entropy(cc_model *m, eu_wcache *wc, npuc_err *err)
{
    ent_cache c = {0};
    bool oom = false;
    for (int32_t i = 0; i < m->n_epochs && !oom; i++) {
        cc_epoch *e = &m->epochs[i];
        if (e->kind != CC_EPOCH_HW) continue;
        free(e->w_bits);
        if (!(e->w_bits = calloc((size_t)e->n_eu + 1, sizeof *e->w_bits))) {
            oom = true;
            break;
        }
        const cc_epoch *fe = cc_flash_epoch(m, e);
        for (int32_t k = 0; k < e->n_eu && !oom; k++) {
            const eu_op *o = &e->ops[k];
            const uint64_t off[2] = {o->w_off, o->w1_off}, len[2] = {o->w_len, o->w1_len};
            for (int j = 0; j < 2; j++)
                if (len[j] && off[j] + len[j] <= fe->flash_size)
                    e->w_bits[k] += stream_bits(&c, wc, fe->flash + off[j], len[j], &oom);
        }
    }
    free(c.e);
    m->weight_bytes = c.bytes;
    m->weight_bits = c.total_bits;
    return oom ? npuc_errf(err, NPUC_E_NOMEM, "out of memory") : NPUC_OK;
}

/* The bits of the weight streams in m's flash, which the compiles wrote
 * as placeholders of their exact sizes (eu_wcache_fill). */
static int weights_fill(cc_model *m, eu_wcache *wc, npuc_err *err)
{
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        int rc = e->flash ? eu_wcache_fill(wc, e->flash, e->flash_size, err) : NPUC_OK;
        if (rc) return rc;
    }
    return NPUC_OK;
}

int cc_compile(const graph *g, const cc_options *opt, cc_model **out, npuc_err *err)
{
    *out = NULL;
    double t0 = now_seconds();
    cc_model *cand[N_SCHED] = {0};
    cc_sched_point pt[N_SCHED];
    cc_options used[N_SCHED];   /* the options each candidate was compiled with */
    int32_t n = 0;
    cc_options base = *opt;
    /* --arena-cache-size on a system with a fast pool apart from the arena
     * (U65 Dedicated_Sram, Vela's "spilling") is the size of that pool, as
     * Vela's arena_cache_size: larger or smaller than the system's own
     * (a JSON pool file's size is the memory's, so there it only caps).
     * A smaller pool is a limit the first placement fills by its own
     * choice; the system's pool gives the other points (the first schedule
     * there, and the search's when that one does not fit the limit), which
     * count where they take no more than the limit. */
    const cc_options *sys_opt = opt;
    bool sys_pool = false;
    if (opt->sram_limit && has_fast_pool(opt)) {
        target_pool *p = &base.sys.pools[base.sys.fast_pool];
        if (base.sys.system_config[0] || opt->sram_limit < p->size) {
            sys_pool = opt->sram_limit < p->size;
            p->size = opt->sram_limit;
        }
    }
    if (!sys_pool) sys_opt = &base;
    cc_options o0 = base;
    o0.weight_search = opt->optimise == CC_OPT_PERFORMANCE;
    /* the search's compiles lower the same weights: each stream is
     * planned once, and its bits are written only if the compile kept
     * has it (weights_fill): the search needs only the streams' sizes */
    eu_wcache *wc = eu_wcache_new();
    eu_wcache_set_lazy(wc, !opt->eager_weights);
    struct cc_ref_memo *refs = cc_ref_memo_new();   /* NULL: each lowering keeps its own */
    struct cc_order_memo *om = cc_order_memo_new();  /* NULL: each compile plans its order */
    /* the cycle estimate's arrays and caches of decoded commands and
     * checks, for all the compiles (each cache is keyed by the variant) */
    est_scratch est = {0};
    int rc = compile_once(g, &o0, wc, refs, om, &est, &cand[0], err);
    if (rc) {
        eu_wcache_free(wc);
        cc_ref_memo_free(refs);
        cc_order_memo_free(om);
        est_scratch_free(&est);
        return rc;
    }
    /* the op order pass weighs orders by their peak of live bytes, which
     * the plan (layouts, cascades, weight copies, in-place ops) may not
     * follow where the gain is small: unless the new order halves the
     * peak (an unrolled LSTM's), it stays only where the compiled model
     * needs less SRAM than with the graph's own order (one compile more);
     * the search keeps that choice */
    if (cand[0]->reordered && cand[0]->order_peak[1] * 2 > cand[0]->order_peak[0]) {
        cc_options og = o0;
        og.graph_order = true;
        cc_model *c = NULL;
        npuc_err e2 = {0};
        if (!compile_once(g, &og, wc, refs, om, &est, &c, &e2)) {
            /* the search's rule between the two; ties: the graph's */
            cc_sched_point two[2] = {{cand[0]->npu_cycles, cc_sram_bytes(cand[0])},
                                     {c->npu_cycles, cc_sram_bytes(c)}};
            bool own = (two[1].cycles == two[0].cycles && two[1].sram == two[0].sram) ||
                       cc_sched_pick(two, 2, opt->sram_limit) == 1;
            cc_model_free(own ? cand[0] : c);
            if (own) {
                cand[0] = c;
                o0 = og;
            }
        }
    }
    used[n] = o0;
    pt[n++] = (cc_sched_point){cand[0]->npu_cycles, cc_sram_bytes(cand[0])};
    uint64_t limit = opt->sram_limit, first_sram = pt[0].sram;
    int32_t dflt = -1;   /* the default's schedule, under a limit on an arena that is the SRAM */
    int32_t compacted = -1;   /* the candidate cc_compact placed already (no limit) */
    if (sys_pool) {
        cc_options o = *sys_opt;
        o.weight_search = o0.weight_search;
        o.graph_order = o0.graph_order;
        npuc_err e2 = {0};
        first_sram = 0;
        if (!compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) {
            first_sram = cc_sram_bytes(cand[n]);
            pt[n] = (cc_sched_point){cand[n]->npu_cycles, first_sram};
            used[n++] = o;
        }
    } else if (limit && !has_fast_pool(opt) && opt->optimise == CC_OPT_PERFORMANCE) {
        /* an arena that is the SRAM: the default's schedule (no limit) is
         * one more point, which counts where it fits, so a limit at or
         * above the default's SRAM never costs cycles (its waiting copies
         * dropped, micro_speech's default takes less SRAM than its first
         * schedule, which a limit at that figure would drop copies from) */
        cc_options o = o0;
        o.sram_limit = 0;
        npuc_err e2 = {0};
        if (!compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) {
            pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
            dflt = n;
            used[n++] = o;
        }
    }
    opt = &base;
    /* an LSTM's other form (lower_lstm.c: the gates one at a time, less
     * scratch, more ops) is one more point the rule weighs */
    if (cand[0]->lstm_forms && !opt->lstm_alt && opt->optimise == CC_OPT_PERFORMANCE) {
        cc_options o = o0;
        o.lstm_alt = true;
        npuc_err e2 = {0};
        if (!compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) {
            pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
            used[n++] = o;
        }
    }
    /* the search: with --optimise performance where weights are copied
     * into SRAM (the knobs it varies change nothing else), and under a
     * limit the first schedule misses */
    bool perf = opt->optimise == CC_OPT_PERFORMANCE;
    bool search = limit && first_sram > limit && !opt->stream_weights;
    /* Without a limit only bigger weight chunks and, where a fast pool
     * is apart from the arena, for a model with an LSTM's two forms,
     * --optimise size's schedule (cascades and layout weigh both pools):
     * either can beat the default on both figures (without a fast pool
     * the bigger chunks count only where they do, below). */
    bool size_only = !search && perf && !opt->stream_weights && opt->cascade == CC_CASCADE_AUTO;
    /* the most SRAM the bigger chunks may take where the arena is the
     * SRAM: the first schedule's, or where its weight search traded a
     * faster point for less SRAM within the rule's slack, that point's
     * (its slack is for ties, not a bound on the other schedules: the
     * rule then weighs all the points as one set, below) */
    uint64_t chunk_sram = pt[0].sram;
    if (cand[0]->fastest_cycles && cand[0]->fastest_cycles < pt[0].cycles && cand[0]->fastest_sram > chunk_sram &&
        (!limit || cand[0]->fastest_sram <= limit))
        chunk_sram = cand[0]->fastest_sram;
    for (size_t i = 0; (search || size_only) && i < sizeof TRIES / sizeof TRIES[0]; i++) {
        const cc_try *t = &TRIES[i];
        /* --optimise size's schedule beats the default only through an
         * LSTM's other form (on the zoo): without one it is not weighed */
        if (size_only && (!t->fast || (t->size && !cand[0]->lstm_forms))) continue;
        /* without a fast pool only the bigger chunks (--optimise size's
         * schedule weighs both pools) */
        if (size_only && !has_fast_pool(opt) && t->size) continue;
        bool big_chunks = t->chunk_bytes == CC_CHUNK_FAST;
        if (big_chunks && !chunks_differ(cand[0], t->chunk_bytes)) continue;
        cc_options o = *sys_opt;
        o.graph_order = o0.graph_order;
        if (t->size) {
            if (!perf) continue;
            o.optimise = CC_OPT_SIZE;
        }
        if (t->headroom) {
            if (opt->prefetch_headroom) continue;   /* set by the caller */
            o.prefetch_headroom = t->headroom;
        }
        if (t->chunk_bytes) {
            if (opt->chunk_bytes) continue;
            o.chunk_bytes = t->chunk_bytes;
        }
        if (t->cascade_off) {
            if (opt->cascade != CC_CASCADE_AUTO) continue;
            o.cascade = CC_CASCADE_OFF;
        }
        if (t->stream) o.stream_weights = true;
        /* under a limit each try drops copies until it fits */
        o.weight_search = limit != 0;
        /* the bigger chunks weigh more of their own points, where the
         * chunks' first placement alone misses one that beats the first
         * schedule on both figures: both headrooms' first placements
         * (movenet ethos-u65-256: with none, 11 KiB less fast pool and
         * fewer cycles), and on an arena that is the SRAM, where one of
         * them takes fewer cycles than the first schedule, the copies
         * dropped one by one as there, under that schedule's SRAM (the
         * only points that count there: armkws_ds_cnn_l ethos-u55-256
         * drops five 32 KiB copies for 4% fewer cycles in 16% less
         * SRAM); a drop search of each 32 KiB schedule would cost 10-30%
         * more compile time on the models that have one */
        if (big_chunks && perf) {
            if (!o.weight_search) {
                o.weight_headrooms = true;
                if (!has_fast_pool(opt)) o.drop_cycles = pt[0].cycles;
            }
            o.weight_search = true;
            /* placed under CC_CHUNK_ROOM percent more, and judged once
             * compacted (cc_compact, as the pick is at the end): the
             * allocator's first placement of the longer copies leaves
             * gaps (armkws_ds_cnn_l ethos-u55-128: 596,785 cycles in
             * 119,856 B placed, 107,728 B compacted, against the first
             * schedule's 629,143 in 113,840 B) */
            if (!has_fast_pool(opt) && (!o.sram_limit || chunk_sram < o.sram_limit)) {
                uint64_t room = chunk_sram + chunk_sram * CC_CHUNK_ROOM / 100;
                o.sram_limit = o.sram_limit && o.sram_limit < room ? o.sram_limit : room;
            }
        }
        if (!perf && !t->stream) continue;   /* --optimise size streams already */
        /* bigger chunks that take more flash are no candidate (below):
         * where their constants alone do, the compile stops before the
         * weights are placed (armkws_basic_lstm_s_int8: 357 KB against
         * 186 KB; 12-25% of its compile) */
        if (big_chunks) o.flash_cap = cand[0]->flash_size + cand[0]->flash_size / CC_CYCLE_SLACK;
        npuc_err e2 = {0};
        if (compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) continue;   /* a schedule that fails is no candidate */
        /* nor are bigger chunks that take more flash (weights it shared),
         * nor, where the arena is the SRAM (no fast pool), bigger chunks
         * that take more of it than the first schedule: there they are
         * weighed only as a schedule at least as small (posenet's 1x1
         * convs read their IFM once per 8 KiB chunk; with 32 KiB ones the
         * model needs less SRAM and fewer cycles), not as a trade of
         * SRAM for cycles (person_detect: -15% cycles for 2x the arena) */
        if (big_chunks && !has_fast_pool(opt) && cc_sram_bytes(cand[n]) > chunk_sram) {
            bool failed = cc_compact(cand[n], chunk_sram, &e2) != 0;
            if (failed || (cc_sram_bytes(cand[n]) > chunk_sram && o.sram_limit > chunk_sram)) {
                /* where the room does not compact away, placed under the
                 * first schedule's SRAM itself */
                cc_model_free(cand[n]);
                cand[n] = NULL;
                o.sram_limit = chunk_sram;
                if (failed || compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) continue;
            }
        }
        if (big_chunks && (cand[n]->flash_size > cand[0]->flash_size + cand[0]->flash_size / CC_CYCLE_SLACK ||
                           (!has_fast_pool(opt) && cc_sram_bytes(cand[n]) > chunk_sram))) {
            cc_model_free(cand[n]);
            cand[n] = NULL;
            continue;
        }
        pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
        used[n++] = o;
        /* --optimise size's schedule with the LSTM's stacked form too */
        o.lstm_alt = true;
        if (t->size && cand[n - 1]->lstm_forms && !compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) {
            pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
            used[n++] = o;
        }
    }
    int32_t pick = cc_sched_pick(pt, n, limit);
    /* finer cascade bands: where a rolling buffer of the pick is live at
     * its SRAM's peak, its options with the pick's chains given, those
     * with such a buffer (cc_cascade_finer) in CC_CASCADE_BANDS_FINE bands
     * instead of CC_CASCADE_BANDS (smaller rolling buffers, more band
     * ops), are one more point the rule weighs; the band ops' cost and the
     * buffers' bytes differ per model (posenet ethos-u55-128: 17% less
     * arena for 0.3% more cycles) */
    cc_cascade_in *finer = NULL;
    int32_t n_finer = 0;
    if (cand[pick]->n_cascade_in && opt->cascade == CC_CASCADE_AUTO && !opt->cascade_given &&
        !opt->cascade_bands && opt->optimise == CC_OPT_PERFORMANCE && n < N_SCHED &&
        (finer = malloc(sizeof *finer * (size_t)cand[pick]->n_cascade_in)) &&
        (n_finer = cc_cascade_finer(cand[pick], finer))) {
        cc_options o = used[pick];
        o.cascade_given = true;
        o.cascade_in = finer;
        o.n_cascade_in = n_finer;
        npuc_err e2 = {0};
        if (!compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) {
            /* the choices are the model's own (cc_model.cascade_in) */
            cand[n]->opt.cascade_given = false;
            cand[n]->opt.cascade_in = NULL;
            cand[n]->opt.n_cascade_in = 0;
            pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
            used[n] = o;
            used[n++].cascade_in = NULL;   /* (finer goes below) */
            pick = cc_sched_pick(pt, n, limit);
        }
    }
    free(finer);
    /* nor does the rule's band trade the default's cycles away under a
     * limit it fits: a point within CC_CYCLE_SLACK of it in less SRAM
     * that only the limit's placement finds (genmodel seed 52
     * ethos-u55-64: 4,525 cycles in 2,272 B against 4,487 in 2,464) */
    if (dflt >= 0 && pt[dflt].sram <= limit && pt[dflt].cycles < pt[pick].cycles) pick = dflt;
    /* the lean default (cc_sched_lean), without a limit, where the pick
     * takes at least CC_LEAN_POOL_MIN bytes of SRAM: the pick's options
     * compiled under half the SRAM of the leanest point so far (a fast
     * pool apart from the arena: a pool of that size), one more point,
     * for as long as the rule takes the new one (each probe is a compile:
     * on the zoo the first costs 0.3 to 1.2 times the pick's own) */
    if (!limit && perf && !opt->stream_weights && !opt->no_lean && pt[pick].sram >= CC_LEAN_POOL_MIN) {
        int32_t from = pick, lean = cc_sched_lean(pt, n, pick);
        for (int32_t k = 0; k < CC_LEAN_PROBES && n < N_SCHED; k++) {
            cc_options o = used[pick];
            if (o.cascade_given && !opt->cascade_given) {   /* the finer bands' point: its own search */
                o.cascade_given = false;
                o.cascade_in = NULL;
                o.n_cascade_in = 0;
            }
            under_limit(&o, pt[lean].sram / 2, true);
            o.weight_search = true;
            npuc_err e2 = {0};
            if (!o.sram_limit || compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) break;
            pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
            used[n++] = o;
            int32_t next = cc_sched_lean(pt, n, from);
            /* halving again needs a leaner point (one as lean but faster
             * would repeat this probe's limit), and one the limit held
             * down: a probe that lands at or under half its limit has met
             * the least its options reach (armkws_basic_lstm_s_int8
             * ethos-u55-128: under 6,312 B in 2,096 B, and under 1,048 B
             * in 2,096 B again) */
            bool leaner = pt[next].sram < pt[lean].sram;
            bool held = pt[n - 1].sram * 2 > o.sram_limit;
            lean = next;
            if (!leaner || (next == n - 1 && !held)) break;
        }
        /* the leanest point's options under its own SRAM as a limit there
         * compiles them: in a pool of that size and, with a fast pool, in
         * the system's pool with the weight copies dropped down to it (a
         * pool that fills with feature maps leaves the copies out:
         * armkws_cnn_s ethos-u65-256, half the pool 34,750 cycles in 10,880
         * B, the system's pool dropped to 10,880 B 34,440); where the
         * caller left the headroom, also with CC_LEAN_HEADROOM (the pool's
         * choice moves with its size and the prefetch: a --prefetch-headroom
         * 100 compile's own lean step landed tflm_mobilenet_v2_pytorch
         * ethos-u65-256 on 3,535,284 cycles in 348,768 B, the default's on
         * 3,577,011 in 351,232 B, now 3,559,861 in 348,768 B); the fastest
         * of them that fits taken, until the leanest point is its own */
        /* the pick itself settles at the SRAM it ends at, compacted
         * (tflm_custom_model_rf_keras ethos-u55-256: placed in 181,056 B,
         * 179,696 B compacted; under that, 658,004 cycles against its
         * 664,124) */
        if (lean == pick) {
            npuc_err e2 = {0};
            if (!cc_compact(cand[pick], 0, &e2)) {
                pt[pick] = (cc_sched_point){cand[pick]->npu_cycles, cc_sram_bytes(cand[pick])};
                compacted = pick;
            }
        }
        for (int32_t k = 0; k < CC_LEAN_SETTLE; k++) {
            int32_t was = lean;
            for (int32_t way = 0; way < 4 && n < N_SCHED; way++) {
                cc_options o = used[was];
                uint64_t s = pt[was].sram;
                if (way > 0 && was == pick) continue;   /* the pick itself: its own SRAM as a limit only */
                if (way == 3) {
                    /* --optimise size's schedule without cascades, the
                     * other way to stream the weights: its layout and
                     * blocks are chosen for SRAM (armkws_cnn_s ethos-u55-256:
                     * 76,764 cycles in 9,760 B against the leanest
                     * point's 76,953 in 10,880 B) */
                    if (opt->cascade_given || opt->cascade != CC_CASCADE_AUTO || o.optimise == CC_OPT_SIZE) continue;
                    o.optimise = CC_OPT_SIZE;
                    o.cascade = CC_CASCADE_OFF;
                    o.weight_search = false;
                }
                if (o.cascade_given && !opt->cascade_given) {   /* the finer bands' point: its own search */
                    o.cascade_given = false;
                    o.cascade_in = NULL;
                    o.n_cascade_in = 0;
                }
                if (way == 0 && o.sram_limit == s) continue;   /* compiled so already */
                if (way == 1 && !has_fast_pool(opt)) continue;
                if (way == 2) {
                    /* (an arena that is the SRAM: under a limit the
                     * prefetch may already fill it up to the limit) */
                    if (!has_fast_pool(opt) || opt->prefetch_headroom || o.prefetch_headroom == CC_LEAN_HEADROOM)
                        continue;
                    o.prefetch_headroom = CC_LEAN_HEADROOM;
                }
                if (way == 1) o.sys = base.sys;
                under_limit(&o, s, way != 1);
                npuc_err e2 = {0};
                if (compile_once(g, &o, wc, refs, om, &est, &cand[n], &e2)) continue;
                pt[n] = (cc_sched_point){cand[n]->npu_cycles, cc_sram_bytes(cand[n])};
                used[n++] = o;
                if ((pt[n - 1].sram <= s && pt[n - 1].cycles < pt[lean].cycles) ||
                    (pt[n - 1].sram < pt[lean].sram && pt[n - 1].cycles <= pt[lean].cycles))
                    lean = n - 1;
            }
            if (lean == was || pt[lean].sram == pt[was].sram) break;   /* (else the same limit again) */
        }
        if (lean != pick) {
            pick = lean;
            if (has_fast_pool(opt)) cand[pick]->opt.sys = base.sys;   /* placed in part of the system's pool */
            cand[pick]->opt.sram_limit = 0;
        }
    }
    cc_model *best = cand[pick];
    best->opt.optimise = opt->optimise;   /* the report names the caller's goal */
    /* the pick placed again where that takes less SRAM (cc_compact.c),
     * before the limit is checked: a schedule the allocator placed just
     * over it may fit (once: where the lean step compacted the pick
     * already, with no limit, that placement stands) */
    int rc2 = pick == compacted ? NPUC_OK : cc_compact(best, limit, err);
    /* a schedule placed in the system's fast pool took no more than the
     * limit: the pool it records is the limit's */
    if (sys_pool && cc_sram_bytes(best) <= limit) best->opt.sys = base.sys;
    for (int32_t i = 0; i < n; i++)
        if (i != pick) cc_model_free(cand[i]);
    if (!rc2 && limit && cc_sram_bytes(best) > limit) {
        uint64_t need = cc_sram_bytes(best);
        eu_wcache_free(wc);
        cc_ref_memo_free(refs);
        cc_order_memo_free(om);
        est_scratch_free(&est);
        cc_model_free(best);
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "the model needs at least %llu bytes of SRAM (its feature maps, weights streamed "
                         "from flash), more than the arena cache size of %llu bytes",
                         (unsigned long long)need, (unsigned long long)limit);
    }
    if (!rc2) rc2 = weights_fill(best, wc, err);
    if (!rc2) rc2 = weight_entropy(best, wc, err);
    eu_wcache_free(wc);
    cc_ref_memo_free(refs);
    cc_order_memo_free(om);
    est_scratch_free(&est);
    if (rc2) {
        cc_model_free(best);
        return rc2;
    }
    best->compile_seconds = now_seconds() - t0;
    *out = best;
    return NPUC_OK;
}
