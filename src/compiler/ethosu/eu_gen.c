/* eu_gen: the command stream of one HW epoch (docs/ethos-u.md 2-3, 8) and its
 * driver payload (docs/ethos-u.md 9.1).
 *
 * Registers are written in Vela's order per operation, only when their
 * value changes (one shadow set for DMA registers, one for the rest) and
 * only when the operation reads them (docs/ethos-u.md 2.1, 4.3, 5.1): a
 * register the op ignores keeps its last value. Regions: 0 = the epoch's constants
 * (flash tensor), 1 = the arena, 2 = the fast scratch (buffers cc_allocate
 * put in the fast pool), as Arm's TFLite Micro integration and driver set
 * them up (docs/ethos-u.md 9.3). Every command word is made by the command
 * table of src/ethosu/eu_cmd.h from field values (eu_pack*); the payload by
 * eu_cop1_write. */
#include "compiler/cc.h"
#include "ethosu/eu_cmd.h"
#include "ethosu/eu_cop1.h"
#include "sim/sim.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The registers eu_gen writes, one slot each: cmd0 registers (opcodes
 * 0x100..0x13F and 0x180..0x1BF) and cmd1 registers (0x00..0x3F and
 * 0x80..0xBF), folded into 256 slots by opcode bits 0-5 and 7 and the
 * command's kind; a small state, zeroed for every stream the schedule
 * search generates. Every call names its code as a constant, so the
 * slot folds away. */
enum { N_SLOTS = 256 };

/* The register writers are inlined into their callers, where each code is
 * a constant (emit_fm's too: it is inlined per feature map) */
#define HOT static inline __attribute__((always_inline))

HOT unsigned slot_of(uint16_t code)
{
    unsigned k = eu_code_opcode(code);
    return (eu_code_is_cmd1(code) ? 128u : 0u) | (k & 0x3Fu) | (k & 0x80u) >> 1;
}

/* A register's last operand + 1 (0: never written) and the key it was
 * packed from (its value, or the inputs of its eu_pack_* helper in one
 * number): most writes repeat the key and are skipped without packing. */
typedef struct packed_reg { int64_t key; uint64_t operand1; } packed_reg;

/* The operands the stream generation of a compile worked out, kept in
 * m->eu_memo while the schedule search runs (m->gen): a search generates
 * its epochs' streams again for every trial, and most registers take the
 * values they took before.
 *   - pc: the multi-field registers' operands (REG_MULTI) by slot and key,
 *     the last PC_WAYS keys of a slot: their eu_pack_* helpers go through the
 *     command table (a few hundred instructions), and their keys are
 *     exactly those helpers' inputs (the key REG_PACKED skips a write by),
 *     so an entry of the same code and key has the operand;
 *   - fp: the one-field registers' value fields (pack1) as a mask, a shift
 *     and the 1 of a "minus one" field, where eu_field_pack takes its
 *     short path (no second part, not a precision's bits): the same
 *     operand without the field's lookups and tests. */
#define PC_WAYS 8u
typedef struct pc_ent { int64_t key; uint64_t operand1; uint16_t cmd; } pc_ent;
typedef struct fp_ent {
    uint64_t mask;
    uint16_t code;            /* 0: none (not worked out, or the short path
                                 does not apply; no register has code 0) */
    uint8_t shift, sub;
} fp_ent;
static const fp_ent FP_NONE[N_SLOTS];   /* without a memo */
struct eu_genmemo {
    uint8_t pc_next[N_SLOTS];  /* the entry of a slot to fill next */
    uint8_t pc_n[N_SLOTS];     /* the entries of a slot filled: pc is read
                                  only there, so it is not cleared (48 KiB
                                  of zeroes a compile, most of them never
                                  read on a small model) */
    fp_ent fp[N_SLOTS];
    pc_ent pc[N_SLOTS * PC_WAYS];
};

/* A feature map's byte range in its region (fm_range). */
typedef struct fm_span { uint64_t lo, hi; } fm_span;

typedef struct cs {
    uint32_t *w; size_t n, cap;
    packed_reg packed[N_SLOTS];
    /* the value fields of the one-field registers by slot and of the
     * operations by opcode (< 0x20), looked up once per stream */
    const eu_field *vf[N_SLOTS], *opf[0x20];
    uint8_t op_looked[0x20];  /* opf[k] looked up: 0 not yet, see op() */
    bool oom;
    /* [n_eu][3]: the byte ranges of each op's IFM, IFM2, OFM (fm_range),
     * found once per stream for the BLOCKDEP and DMA checks (set where the
     * feature map has a buffer) */
    fm_span *rng;
    struct eu_genmemo *gm;    /* the compile's operands (NULL: none) */
    const fp_ent *fp;         /* gm's fp, or FP_NONE */
    eu_segs *sg;              /* the op segments noted (NULL: none) */
    size_t head;              /* the words in front of the stream */
    size_t seg_at;            /* where the segment being written starts */
} cs;

/* Room in the segment notes (eu_segs) for as many words as the stream
 * has room for (a command's words noted are words written: seg_note does
 * not check); when there is none, the notes stop (sg->oom). */
static void kw_room(cs *s)
{
    eu_segs *g = s->sg;
    if (!g || g->cap_kw >= s->cap) return;
    uint32_t *p = realloc(g->kw, sizeof *p * s->cap);
    if (!p) {
        g->oom = true;
        s->sg = NULL;
        return;
    }
    g->kw = p;
    g->cap_kw = s->cap;
}

static void put_slow(cs *s, uint32_t v)
{
    if (s->oom) return;
    size_t cap = s->cap ? s->cap * 2 : 1024;
    uint32_t *p = realloc(s->w, cap * sizeof *p);
    if (!p) {
        s->oom = true;
        s->sg = NULL;
        return;
    }
    s->w = p;
    s->cap = cap;
    s->w[s->n++] = v;
    kw_room(s);
}

HOT void put(cs *s, uint32_t v)
{
    if (s->n < s->cap) s->w[s->n++] = v;
    else put_slow(s, v);
}

/* Notes command `code` (its n words w, just written) in the op segments
 * (eu_segs): what the estimate's scan of the stream would gather, here
 * where the command's role is known (a constant in most callers: a
 * register the estimate skips costs a cmd1's count at most). The scan
 * gives up on a segment with more than max_cmds commands, or where a word
 * it does not skip would find max_words - 1 or more before it (the stop
 * ends the stream, not a segment): the words before its op command
 * decide. */
HOT void seg_note(cs *s, uint16_t code, const uint32_t *w, unsigned n)
{
    eu_segs *g = s->sg;
    uint8_t r = sim_cmd_role(code);
    if (n > 1) g->n1++;   /* the segment's commands: its words less these */
    if (r == SIM_ROLE_SKIP) return;
    g->kw[g->n_kw] = w[0];
    if (n > 1) g->kw[g->n_kw + 1] = w[1];
    g->n_kw += n;
    g->nk += n;
    if (r != SIM_ROLE_OP) return;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 256;
        eu_seg *p = realloc(g->seg, sizeof *p * cap);
        if (!p) {
            g->oom = true;
            s->sg = NULL;
            return;
        }
        g->seg = p;
        g->cap = cap;
    }
    uint32_t ncmd = (uint32_t)(s->n - s->seg_at) - g->n1;
    g->seg[g->n++] = (eu_seg){(uint32_t)((s->n - s->head) * 4), (uint32_t)(g->n_kw - g->nk), g->nk, ncmd,
                              g->nk - n + 2 <= g->max_words && ncmd <= g->max_cmds};
    s->seg_at = s->n;
    g->nk = g->n1 = 0;
}

HOT void words(cs *s, uint16_t code, uint64_t operand)
{
    uint32_t w[2];
    unsigned n = eu_cmd_words(code, operand, w);
    if (s->n + n <= s->cap) {
        s->w[s->n] = w[0];
        if (n > 1) s->w[s->n + 1] = w[1];
        s->n += n;
    } else {
        put(s, w[0]);
        if (n > 1) put(s, w[1]);
    }
    if (s->sg) seg_note(s, code, w, n);
}

/* An operation (always emitted) with its one field's value (mode, count);
 * inlined as the register writers are (its code a constant at most callers:
 * the segment note's role with it). */
HOT void op(cs *s, uint16_t code, int64_t value)
{
    unsigned k = eu_code_opcode(code) & 0x1Fu;
    if (!s->op_looked[k]) {
        s->opf[k] = eu_cmd_value_field(code);
        /* 1: its value field first; 2: none (CONV, DEPTHWISE: eu_pack1
         * packs 0); 3: elsewhere */
        s->op_looked[k] = s->opf[k] ? 1 : !eu_cmd_field(eu_cmd_find(code), EU_F_VALUE) ? 2 : 3;
    }
    uint64_t operand = s->op_looked[k] == 1 ? eu_field_pack(s->opf[k], value)
                       : s->op_looked[k] == 2 ? 0 : eu_pack1(code, value);
    words(s, code, operand);
}

/* Whether a register has been written in this stream. */
HOT bool written(const cs *s, uint16_t code)
{
    return s->packed[slot_of(code)].operand1 != 0;
}

/* Register `code` (its slot p) given operand o for key k: written unless
 * it holds o already. */
HOT void reg_put(cs *s, packed_reg *p, uint16_t code, int64_t k, uint64_t o)
{
    p->key = k;
    if (p->operand1 != o + 1) {
        p->operand1 = o + 1;
        words(s, code, o);
    }
}

/* A register write of the operand `pack` makes from the inputs `key`
 * stands for, skipped when the key or the operand is unchanged. */
#define REG_PACKED(s, code, kin, pack)                                    \
    do {                                                                  \
        packed_reg *p_ = &(s)->packed[slot_of(code)];                     \
        int64_t k_ = (int64_t)(kin);                                      \
        if (!p_->operand1 || p_->key != k_) reg_put(s, p_, code, k_, (pack)); \
    } while (0)

/* Keys of the multi-field registers (each input in its own bits). */
static int64_t key_scale(uint32_t scale, unsigned shift) { return (int64_t)((uint64_t)shift << 32 | scale); }
static int64_t key_prec(const eu_fm *f, unsigned scale_mode, unsigned round)
{
    return (int64_t)f->is_signed | (int64_t)f->bits << 1 | (int64_t)f->format << 8 | (int64_t)scale_mode << 12 |
           (int64_t)round << 16;
}
static int64_t key_dma_region(unsigned region, bool internal) { return (int64_t)region | (int64_t)internal << 8; }

/* The operand + 1 of multi-field register `code` (slot sl) for key k
 * from the compile's cache (eu_genmemo); 0: not there. */
HOT uint64_t pc_find(const struct eu_genmemo *g, unsigned sl, uint16_t code, int64_t k)
{
    const pc_ent *c = &g->pc[sl * PC_WAYS];
    for (unsigned i = 0; i < g->pc_n[sl]; i++)
        if (c[i].key == k && c[i].cmd == code) return c[i].operand1;
    return 0;
}

/* Keeps it, over the slot's oldest entry. */
static void pc_keep(struct eu_genmemo *g, unsigned sl, uint16_t code, int64_t k, uint64_t operand1)
{
    g->pc[sl * PC_WAYS + g->pc_next[sl]] = (pc_ent){k, operand1, code};
    g->pc_next[sl] = (uint8_t)((g->pc_next[sl] + 1) % PC_WAYS);
    if (g->pc_n[sl] < PC_WAYS) g->pc_n[sl]++;
}

/* REG_PACKED of a multi-field register (an eu_pack_* helper): the operand
 * from the compile's cache when there. */
#define REG_MULTI(s, code, kin, pack)                                      \
    do {                                                                   \
        packed_reg *p_ = &(s)->packed[slot_of(code)];                      \
        int64_t k_ = (int64_t)(kin);                                       \
        if (!p_->operand1 || p_->key != k_) {                              \
            uint64_t f_ = (s)->gm ? pc_find((s)->gm, slot_of(code), code, k_) : 0; \
            uint64_t o_;                                                   \
            if (f_) {                                                      \
                o_ = f_ - 1;                                               \
            } else {                                                       \
                o_ = (pack);                                               \
                if ((s)->gm) pc_keep((s)->gm, slot_of(code), code, k_, o_ + 1); \
            }                                                              \
            reg_put(s, p_, code, k_, o_);                                  \
        }                                                                  \
    } while (0)

/* eu_pack1(code, value), its field looked up once per stream. */
static uint64_t pack1_field(cs *s, uint16_t code, int64_t value)
{
    const eu_field **f = &s->vf[slot_of(code)];
    if (!*f) *f = eu_cmd_value_field(code);
    if (s->gm && *f && !(*f)->width_hi && (*f)->kind != EU_K_BITS) {
        /* eu_field_pack's short path, kept */
        fp_ent *p = &s->gm->fp[slot_of(code)];
        p->mask = (*f)->width >= 64 ? ~0ull : (1ull << (*f)->width) - 1;
        p->shift = (*f)->shift;
        p->sub = (*f)->kind == EU_K_M1;
        p->code = code;
    }
    return *f ? eu_field_pack(*f, value) : eu_pack1(code, value);
}

/* eu_pack1(code, value): by the compile's field (fp) when kept. */
HOT uint64_t pack1(cs *s, uint16_t code, int64_t value)
{
    const fp_ent *p = &s->fp[slot_of(code)];
    if (p->code == code) return ((uint64_t)(value - p->sub) & p->mask) << p->shift;
    return pack1_field(s, code, value);
}

/* A one-field register from its value (sizes, not sizes - 1). */
HOT void set(cs *s, uint16_t code, int64_t value)
{
    REG_PACKED(s, code, value, pack1(s, code, value));
}

/* An address, stride or length: 40 bits on U65, 32 on U55. */
HOT void addr(cs *s, uint16_t code, uint64_t a, bool u65)
{
    set(s, code, (int64_t)(u65 ? a : (uint32_t)a));
}

static uint64_t fm_addr(const cc_model *m, const eu_fm *f)
{
    /* a depth slice starts c0 channels in: one brick stride per 16 channels
     * in NHCWB16 (c0 is then a multiple of 16), c0 elements in NHWC */
    uint64_t slice = f->format == EU_FMT_NHCWB16 ? (uint64_t)(f->c0 / 16) * f->sc + (f->c0 % 16) * (f->bits / 8u)
                                    : (uint64_t)f->c0 * (f->bits / 8u);
    if (f->buf < 0) return f->off + slice;
    return (uint64_t)m->bufs[f->buf].offset + f->off + slice;
}

static uint8_t fm_region(const cc_model *m, const eu_fm *f) { return cc_buf_region(m, f->buf); }

/* *_PRECISION of a feature map. */
static uint64_t precision(uint16_t code, const eu_fm *f, unsigned scale_mode, unsigned round)
{
    return eu_pack_precision(code, f->is_signed, f->bits, f->format, scale_mode, round);
}

/* IFM / IFM2 / OFM descriptor (one tile). */
HOT void emit_fm(cs *s, const cc_model *m, const eu_fm *f, int which, bool u65)
{
    /* which: 0 IFM, 1 IFM2, 2 OFM */
    static const uint16_t region[3] = {EU_SET_IFM_REGION, EU_SET_IFM2_REGION, EU_SET_OFM_REGION};
    static const uint16_t base[3][4] = {
        {EU_SET_IFM_BASE0, EU_SET_IFM_BASE1, EU_SET_IFM_BASE2, EU_SET_IFM_BASE3},
        {EU_SET_IFM2_BASE0, EU_SET_IFM2_BASE1, EU_SET_IFM2_BASE2, EU_SET_IFM2_BASE3},
        {EU_SET_OFM_BASE0, EU_SET_OFM_BASE1, EU_SET_OFM_BASE2, EU_SET_OFM_BASE3}};
    static const uint16_t stride[3][3] = {
        {EU_SET_IFM_STRIDE_X, EU_SET_IFM_STRIDE_Y, EU_SET_IFM_STRIDE_C},
        {EU_SET_IFM2_STRIDE_X, EU_SET_IFM2_STRIDE_Y, EU_SET_IFM2_STRIDE_C},
        {EU_SET_OFM_STRIDE_X, EU_SET_OFM_STRIDE_Y, EU_SET_OFM_STRIDE_C}};
    static const uint16_t width0[3] = {EU_SET_IFM_WIDTH0_M1, EU_SET_IFM2_WIDTH0_M1, EU_SET_OFM_WIDTH0_M1};
    static const uint16_t height0[3] = {EU_SET_IFM_HEIGHT0_M1, EU_SET_IFM2_HEIGHT0_M1, EU_SET_OFM_HEIGHT0_M1};
    static const uint16_t height1[3] = {EU_SET_IFM_HEIGHT1_M1, EU_SET_IFM2_HEIGHT1_M1, EU_SET_OFM_HEIGHT1_M1};
    static const uint16_t zp[3] = {EU_SET_IFM_ZERO_POINT, EU_SET_IFM2_ZERO_POINT, EU_SET_OFM_ZERO_POINT};
    REG_MULTI(s, region[which], fm_region(m, f), eu_pack_region(region[which], fm_region(m, f)));
    uint64_t a = fm_addr(m, f);
    /* a wrapping rolling buffer: tile 0 above tile_h, tile 2 below */
    bool wrap = f->tile_h && f->tile_h < f->h;
    uint64_t a2 = wrap ? a - f->off + f->tile_off2 : a;
    uint32_t h0 = wrap ? f->tile_h : f->h;
    addr(s, base[which][0], a, u65);
    /* W0 is the width, so tiles 1 and 3 hold no position: BASE1, BASE3 and
     * HEIGHT1 are not read (docs/ethos-u.md 4.3) and keep whatever they
     * hold; BASE2 is read only below H0, in a wrapping rolling buffer */
    if (wrap) addr(s, base[which][2], a2, u65);
    set(s, height0[which], h0);
    if (!written(s, height1[which])) set(s, height1[which], h0);   /* once, as Vela's first op */
    set(s, width0[which], f->w);
    set(s, stride[which][0], (uint32_t)f->sx);
    set(s, stride[which][1], (uint32_t)f->sy);
    set(s, stride[which][2], (uint32_t)f->sc);
    set(s, zp[which], f->zp);
}

/* Byte range of a feature map in its region (for BLOCKDEP). */
static void fm_range(const cc_model *m, const eu_fm *f, uint64_t *lo, uint64_t *hi)
{
    if (f->tile_h && f->buf >= 0) {
        /* rolling buffer: all of it */
        *lo = (uint64_t)m->bufs[f->buf].offset;
        *hi = *lo + m->bufs[f->buf].size;
        return;
    }
    uint64_t a = fm_addr(m, f), eb = f->bits / 8u;
    *lo = a;
    /* the last element: in NHCWB16 the channel stride sc steps from one
     * 16-channel brick to the next and channels inside a brick are eb
     * apart (c0 is then a multiple of 16) */
    uint64_t last_c = f->format == EU_FMT_NHCWB16 ? (uint64_t)((f->c - 1) / 16) * f->sc + ((f->c - 1) % 16) * eb
                                     : (uint64_t)(f->c - 1) * f->sc;
    *hi = a + (uint64_t)(f->h - 1) * f->sy + (uint64_t)(f->w - 1) * f->sx + last_c + eb;
}

/* The ranges of an op's feature maps (0 IFM, 1 IFM2, 2 OFM; zero where
 * one has no buffer or there is no IFM2 tensor). */
static void fm_spans(const cc_model *m, const eu_op *o, fm_span r[3])
{
    const eu_fm *fms[3] = {&o->ifm, o->ifm2_tensor ? &o->ifm2 : NULL, &o->ofm};
    for (int i = 0; i < 3; i++) {
        r[i].lo = r[i].hi = 0;
        if (fms[i] && fms[i]->buf >= 0) fm_range(m, fms[i], &r[i].lo, &r[i].hi);
    }
}

static bool overlaps(const cc_model *m, const eu_fm *a, const fm_span *ra, const eu_fm *b, const fm_span *rb)
{
    if (a->buf < 0 || b->buf < 0) return false;
    if (fm_region(m, a) != fm_region(m, b)) return false;
    return ra->lo < rb->hi && rb->lo < ra->hi;
}

/* Whether an op (its feature maps' ranges r) reads or writes bytes
 * [lo, hi) of region `region` (1 arena, 2 fast scratch) through its
 * feature maps or its weight copy. */
static bool op_touches(const cc_model *m, const eu_op *o, const fm_span r[3], uint8_t region, uint64_t lo,
                       uint64_t hi)
{
    const eu_fm *fms[3] = {&o->ifm, o->ifm2_tensor ? &o->ifm2 : NULL, &o->ofm};
    for (int i = 0; i < 3; i++) {
        if (!fms[i] || fms[i]->buf < 0 || fm_region(m, fms[i]) != region) continue;
        if (r[i].lo < hi && lo < r[i].hi) return true;
    }
    if (o->wbuf >= 0 && cc_buf_region(m, o->wbuf) == region) {
        uint64_t a = (uint64_t)m->bufs[o->wbuf].offset, b = a + m->bufs[o->wbuf].size;
        if (a < hi && lo < b) return true;
    }
    return false;
}

/* DMA bookkeeping of one stream: how many DMAs have been started, and
 * the number of each op's weight DMA (-1 none yet). */
typedef struct dmaq {
    int32_t started;
    int32_t done;             /* DMAs 0..done-1 are known finished (waited for) */
    int32_t *of_op;           /* [n_eu]; -2: an earlier op loads its buffer */
    int32_t lut;              /* number of a LUT DMA the next op needs, -1 none */
    int32_t *dma_for;         /* the op each DMA feeds, in stream order */
    int32_t n_for;
    int32_t *loader;          /* [n_eu] the first op using op k's weight copy */
    int32_t *due;             /* [n_eu + 1] the first op whose weight DMA is
                                 issued after op i - 1 (slot 0: before op 0) */
    int32_t *due_next;        /* [n_eu] the next op of the same slot */
} dmaq;


/* Whether single-core op o with a weight copy has its scale records apart
 * from its weight stream in flash (cc_share_flash stored either once): then
 * only the stream is copied, the op reads the records from flash. */
static bool scales_apart(const cc_model *m, const eu_op *o)
{
    return o->wbuf >= 0 && !o->dual && o->w_off != o->s_off + eu_wcopy_w_at(o) &&
           !eu_wcopy_scales_only(o, m->bufs[o->wbuf].size);
}

/* Whether op o's copy holds its scale records alone (cc_scale_copies): the
 * op reads its weight stream from flash. */
static bool scales_only(const cc_model *m, const eu_op *o)
{
    return o->wbuf >= 0 && eu_wcopy_scales_only(o, m->bufs[o->wbuf].size);
}

/* The LUT banks' 8 slots of 256 bytes (docs/ethos-u.md 5.7): which LUT
 * each holds, and when each LUT is next used, so that a table to load
 * overwrites the one needed last (or none) instead of always slot 0. */
typedef struct lut_slots {
    int32_t held[EU_N_LUT_SLOTS];   /* LUT index, -1 none */
    int32_t *at;                    /* [n_luts] first slot of a resident LUT, -1 none */
    int32_t *next_use;              /* [n_luts] the next op using it, INT32_MAX none */
    int32_t *next_same;             /* [n_eu] the next op after k using op k's LUT */
    int32_t *dma;                   /* [n_luts] number of the DMA that loaded it, -1 none */
} lut_slots;

static bool lut_slots_init(lut_slots *ls, const cc_epoch *e)
{
    size_t nl = (size_t)e->n_luts + 1, ne = (size_t)e->n_eu + 1;
    ls->at = malloc(sizeof(int32_t) * nl);
    ls->next_use = malloc(sizeof(int32_t) * nl);
    ls->next_same = malloc(sizeof(int32_t) * ne);
    ls->dma = malloc(sizeof(int32_t) * nl);
    if (!ls->at || !ls->next_use || !ls->next_same || !ls->dma) return false;
    for (int i = 0; i < EU_N_LUT_SLOTS; i++) ls->held[i] = -1;
    for (int32_t l = 0; l < e->n_luts; l++) {
        ls->at[l] = -1;
        ls->next_use[l] = INT32_MAX;
        ls->dma[l] = -1;
    }
    for (int32_t k = e->n_eu - 1; k >= 0; k--) {
        int32_t l = e->ops[k].lut;
        if (l < 0) continue;
        ls->next_same[k] = ls->next_use[l];
        ls->next_use[l] = k;
    }
    return true;
}

static void lut_slots_free(lut_slots *ls)
{
    free(ls->at);
    free(ls->next_use);
    free(ls->next_same);
    free(ls->dma);
}

/* An op without a LUT overwrote the banks (16-bank parts). */
static void lut_slots_clear(lut_slots *ls, const cc_epoch *e)
{
    for (int i = 0; i < EU_N_LUT_SLOTS; i++) ls->held[i] = -1;
    for (int32_t l = 0; l < e->n_luts; l++) ls->at[l] = -1;
}

/* Places LUT l (not resident) and returns its first slot: a table takes
 * a power-of-two number of slots at a multiple of it (Vela aligns a table
 * to its size, docs/ethos-u.md 5.7); of those places, the one whose
 * tables are needed last (free slots: never), none holding the tables
 * keep0 / keep1 (-1: none; ops that may still run read them): -1 when
 * every place holds one. */
static int lut_slots_place(lut_slots *ls, const cc_epoch *e, int32_t l, int32_t keep0, int32_t keep1)
{
    int n = 1;
    while (n < EU_N_LUT_SLOTS && (uint64_t)n * EU_LUT_SLOT_BYTES < e->luts[l].size) n *= 2;
    int best = -1;
    int32_t best_use = -1;
    for (int p = 0; p + n <= EU_N_LUT_SLOTS; p += n) {
        int32_t use = INT32_MAX;
        bool kept = false;
        for (int i = p; i < p + n; i++) {
            int32_t t = ls->held[i];
            if (t >= 0 && (t == keep0 || t == keep1)) kept = true;
            if (t >= 0 && ls->next_use[t] < use) use = ls->next_use[t];
        }
        if (!kept && use > best_use) {
            best_use = use;
            best = p;
        }
    }
    if (best < 0) return -1;
    for (int i = best; i < best + n; i++) {
        int32_t t = ls->held[i];
        if (t < 0) continue;
        for (int j = 0; j < EU_N_LUT_SLOTS; j++)
            if (ls->held[j] == t) ls->held[j] = -1;
        ls->at[t] = -1;
    }
    for (int i = best; i < best + n; i++) ls->held[i] = l;
    ls->at[l] = best;
    return best;
}

/* DMA of the LUT op k uses into its SHRAM slots, from `slot` on. */
static void emit_lut_dma(cs *s, const cc_model *m, const cc_epoch *e, int32_t k, int slot, dmaq *q)
{
    const eu_op *o = &e->ops[k];
    const eu_lut *l = &e->luts[o->lut];
    REG_MULTI(s, EU_SET_DMA0_SRC_REGION, key_dma_region(0, false),
              eu_pack_dma_region(EU_SET_DMA0_SRC_REGION, 0, false, EU_DMA_1D));
    addr(s, EU_SET_DMA0_SRC, l->off, eu_variant_is_u65(m->opt.sys.variant));
    /* into SHRAM (internal), core mask 3 as Vela writes it */
    REG_MULTI(s, EU_SET_DMA0_DST_REGION, key_dma_region(3, true),
              eu_pack_dma_region(EU_SET_DMA0_DST_REGION, 3, true, EU_DMA_1D));
    set(s, EU_SET_DMA0_DST, o->blk.lut_start_bank * EU_SHRAM_BANK_BYTES + slot * EU_LUT_SLOT_BYTES);
    set(s, EU_SET_DMA0_LEN, (uint32_t)l->size);
    op(s, EU_OP_DMA_START, 0);
    q->started++;
    if (q->n_for < 3 * e->n_eu + 1) q->dma_for[q->n_for++] = k;
}

static int emit_op(cs *s, const cc_model *m, const cc_epoch *e, int32_t k, dmaq *q,
                   lut_slots *ls, npuc_err *err)
{
    const eu_op *o = &e->ops[k], *prev = k ? &e->ops[k - 1] : NULL;
    const eu_variant_info *vi = eu_variant_get(m->opt.sys.variant);
    bool u65 = vi->product == EU_PRODUCT_U65;
    /* an op without a LUT may overwrite the LUT banks where no banks are
     * reserved at the top (16-bank parts, docs/ethos-u.md 1.2) */
    bool lut_shared = vi->reserved_banks < EU_LUT_BANKS;
    /* LUT: DMA the table into the LUT banks unless it is already there */
    uint8_t act = o->act_func;
    if (o->lut >= 0) {
        int32_t slot = ls->at[o->lut];
        if (slot < 0) {
            slot = lut_slots_place(ls, e, o->lut, -1, -1);
            if (prev) op(s, EU_OP_KERNEL_WAIT, 0);
            emit_lut_dma(s, m, e, k, slot, q);
            ls->dma[o->lut] = q->started - 1;
        }
        /* its DMA, if not known finished (preloaded: waited for once) */
        q->lut = ls->dma[o->lut];
        ls->next_use[o->lut] = ls->next_same[k];
        act = (uint8_t)(EU_ACT_LUT0 + slot);
    } else if (lut_shared) {
        lut_slots_clear(ls, e);
    }
    /* OFM_SCALE is read only in the global scale mode: a POOL or an
     * ELEMENTWISE op in per-channel mode applies no scale (docs/ethos-u.md
     * 5.1) and leaves the register as it is */
    bool global = o->ofm_scale_mode == EU_OFM_SCALE_GLOBAL;
    if (o->kind == SIM_K_ELEMENTWISE) {
        if (global)
            REG_MULTI(s, EU_SET_OFM_SCALE, key_scale(o->ofm_scale, o->ofm_shift),
                      eu_pack_scale(EU_SET_OFM_SCALE, o->ofm_scale, o->ofm_shift));
        if (o->has_opab) {
            REG_MULTI(s, EU_SET_OPA_SCALE, key_scale(o->opa_scale, o->opa_shift),
                      eu_pack_scale(EU_SET_OPA_SCALE, o->opa_scale, o->opa_shift));
            REG_MULTI(s, EU_SET_OPB_SCALE, key_scale(o->opb_scale, 0), eu_pack_scale(EU_SET_OPB_SCALE, o->opb_scale, 0));
        }
    }
    /* IFM */
    emit_fm(s, m, &o->ifm, 0, u65);
    REG_MULTI(s, EU_SET_IFM_PRECISION, key_prec(&o->ifm, o->ifm_scale_mode, EU_ROUND_TFL),
              precision(EU_SET_IFM_PRECISION, &o->ifm, o->ifm_scale_mode, EU_ROUND_TFL));
    set(s, EU_SET_IFM_UPSCALE, o->upscale);
    if (o->kind != SIM_K_ELEMENTWISE) {
        set(s, EU_SET_IFM_PAD_TOP, o->pad_t);
        set(s, EU_SET_IFM_PAD_LEFT, o->pad_l);
        set(s, EU_SET_IFM_PAD_BOTTOM, o->pad_b);
        set(s, EU_SET_IFM_PAD_RIGHT, o->pad_r);
    }
    set(s, EU_SET_IFM_DEPTH_M1, o->ifm.c);
    /* OFM */
    emit_fm(s, m, &o->ofm, 2, u65);
    set(s, EU_SET_OFM_WIDTH_M1, o->ofm.w);
    set(s, EU_SET_OFM_HEIGHT_M1, o->ofm.h);
    set(s, EU_SET_OFM_DEPTH_M1, o->ofm.c);
    REG_MULTI(s, EU_SET_OFM_PRECISION, key_prec(&o->ofm, o->ofm_scale_mode, o->round),
              precision(EU_SET_OFM_PRECISION, &o->ofm, o->ofm_scale_mode, o->round));
    if (o->kind != SIM_K_ELEMENTWISE) {
        /* the dilated extent */
        set(s, EU_SET_KERNEL_WIDTH_M1, (int64_t)(o->kw - 1) * o->dil_x + 1);
        set(s, EU_SET_KERNEL_HEIGHT_M1, (int64_t)(o->kh - 1) * o->dil_y + 1);
        REG_MULTI(s, EU_SET_KERNEL_STRIDE,
                  (int64_t)o->stride_x | (int64_t)o->stride_y << 8 | (int64_t)o->dil_x << 16 |
                      (int64_t)o->dil_y << 24 | (int64_t)o->pkf << 32,
                  eu_pack_kernel_stride(o->stride_x, o->stride_y, o->dil_x, o->dil_y, o->pkf));
    }
    if (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) {
        /* from the arena copy when buffered, else straight from flash */
        uint8_t region = cc_buf_region(m, o->wbuf);
        uint64_t sb = o->wbuf >= 0 ? (uint64_t)m->bufs[o->wbuf].offset : o->s_off;
        uint64_t wb = sb + (o->w_off - o->s_off);
        bool apart = scales_apart(m, o), only = scales_only(m, o);
        if (apart) {
            /* scale records from flash, the weight stream from the copy */
            wb = sb + eu_wcopy_w_at(o);
            sb = o->s_off;
        }
        uint8_t wregion = only ? 0 : region;
        if (only) wb = o->w_off;   /* the records from the copy, the stream from flash */
        REG_MULTI(s, EU_SET_WEIGHT_REGION, wregion, eu_pack_region(EU_SET_WEIGHT_REGION, wregion));
        addr(s, EU_SET_WEIGHT_BASE, wb, u65);
        set(s, EU_SET_WEIGHT_LENGTH, (uint32_t)o->w_len);
        REG_MULTI(s, EU_SET_SCALE_REGION, apart ? 0 : region, eu_pack_region(EU_SET_SCALE_REGION, apart ? 0 : region));
        addr(s, EU_SET_SCALE_BASE, sb, u65);
        set(s, EU_SET_SCALE_LENGTH, (uint32_t)o->s_len);
        if (vi->cores > 1) {
            /* dual-core mode: core 1's records and stream follow core 0's
             * (length 0 when it has no channel) */
            uint64_t sb1 = o->s1_len ? sb + (o->s1_off - o->s_off) : sb;
            uint64_t wb1 = o->w1_len ? sb + (o->w1_off - o->s_off) : wb;
            addr(s, EU_SET_WEIGHT1_BASE, wb1, u65);
            set(s, EU_SET_WEIGHT1_LENGTH, (uint32_t)o->w1_len);
            addr(s, EU_SET_SCALE1_BASE, sb1, u65);
            set(s, EU_SET_SCALE1_LENGTH, (uint32_t)o->s1_len);
        }
    } else if (o->kind == SIM_K_POOL && global) {
        REG_MULTI(s, EU_SET_OFM_SCALE, key_scale(o->ofm_scale, o->ofm_shift),
                  eu_pack_scale(EU_SET_OFM_SCALE, o->ofm_scale, o->ofm_shift));
    }
    /* activation */
    REG_MULTI(s, EU_SET_ACTIVATION, (int64_t)act | (int64_t)o->act_clip << 8, eu_pack_activation(act, o->act_clip));
    /* a 32-bit OFM without a LUT or built-in function is not clamped
     * (docs/ethos-u.md 5.1): ACTIVATION_MIN/MAX keep what they hold */
    if (o->ofm.bits != 32 || act != EU_ACT_NONE) {
        set(s, EU_SET_ACTIVATION_MIN, o->act_min);
        set(s, EU_SET_ACTIVATION_MAX, o->act_max);
    }
    /* block and SHRAM */
    set(s, EU_SET_OFM_BLK_HEIGHT_M1, o->blk.h);
    set(s, EU_SET_OFM_BLK_WIDTH_M1, o->blk.w);
    set(s, EU_SET_OFM_BLK_DEPTH_M1, o->blk.d);
    set(s, EU_SET_IFM_IB_END, o->blk.ifm_ib_end);
    set(s, EU_SET_AB_START, o->blk.ab_start);
    if (o->kind != SIM_K_ELEMENTWISE) set(s, EU_SET_ACC_FORMAT, o->blk.acc_format);
    /* IFM2 */
    if (o->kind == SIM_K_ELEMENTWISE && (o->ifm2_tensor || o->ifm2_scalar)) {
        int64_t bk = (int64_t)o->bcast_h | (int64_t)o->bcast_w << 1 | (int64_t)o->bcast_c << 2 |
                     (int64_t)o->reversed << 3 | (int64_t)o->ifm2_scalar << 4;
        if (o->ifm2_scalar) {
            REG_MULTI(s, EU_SET_IFM2_PRECISION, key_prec(&o->ifm2, 0, 0), precision(EU_SET_IFM2_PRECISION, &o->ifm2, 0, 0));
            set(s, EU_SET_IFM2_ZERO_POINT, o->ifm2.zp);
            set(s, EU_SET_IFM2_SCALAR, o->scalar);
        } else {
            emit_fm(s, m, &o->ifm2, 1, u65);
            REG_MULTI(s, EU_SET_IFM2_PRECISION, key_prec(&o->ifm2, 0, 0), precision(EU_SET_IFM2_PRECISION, &o->ifm2, 0, 0));
            set(s, EU_SET_IFM2_IB_START, o->blk.ifm2_ib_start);
        }
        REG_MULTI(s, EU_SET_IFM2_BROADCAST, bk,
                  eu_pack_broadcast(o->bcast_h, o->bcast_w, o->bcast_c, o->reversed, o->ifm2_scalar));
    }
    /* BLOCKDEP: this op may start while the previous one finishes, unless
     * it reads what that op writes, or writes what that op reads or writes
     * (the allocator lets an output reuse the bytes of an input of the
     * previous op) */
    unsigned bd = EU_BLOCKDEP_MAX;
    if (prev) {
        const fm_span *r = &s->rng[3 * k], *rp = &s->rng[3 * (k - 1)];
        if (overlaps(m, &o->ifm, &r[0], &prev->ofm, &rp[2]) ||
            (o->ifm2_tensor && overlaps(m, &o->ifm2, &r[1], &prev->ofm, &rp[2])) ||
            (o->ofm.buf >= 0 && op_touches(m, prev, rp, fm_region(m, &o->ofm), r[2].lo, r[2].hi)))
            bd = 0;
        if (lut_shared && prev->lut >= 0) bd = 0;
    } else {
        bd = 0;
    }
    set(s, EU_SET_BLOCKDEP, bd);
    /* wait for the DMAs this op needs (its weights, its LUT), not for those
     * started after them for later ops (they finish in order) */
    int32_t need = q->lut;
    if (o->wbuf >= 0) {
        /* the DMA of the copy's first user, if started yet (the only op
         * using the copy that starts one) */
        int32_t w = q->of_op[q->loader[k]];
        if (w > need) need = w;
    }
    q->lut = -1;
    if (need >= 0 && need >= q->done) {
        /* the queue holds at most `depth` DMAs (a start on a full queue
         * waits): one followed by that many is finished already */
        int32_t after = q->started - 1 - need;
        int32_t depth = vi->max_dma;
        if (after < depth) op(s, EU_OP_DMA_WAIT, after);
        q->done = need + 1;
    }
    uint16_t code = o->kind == SIM_K_CONV ? EU_OP_CONV
                    : o->kind == SIM_K_DEPTHWISE ? EU_OP_DEPTHWISE
                    : o->kind == SIM_K_POOL ? EU_OP_POOL : EU_OP_ELEMENTWISE;
    op(s, code, o->mode);   /* CONV and DEPTHWISE have no field: ignored */
    if (s->oom) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    return NPUC_OK;
}

/* DMA of op k's scales + weights from flash into its buffer (arena or fast
 * scratch), issued after op `after` (-1: before the first op). The kernel
 * ops that may still run then (the last two issued, `after` and the one
 * before) must not touch the destination: wait for them if they do
 * (docs/ethos-u.md 8.2). */
static void emit_weight_dma(cs *s, const cc_model *m, const cc_epoch *e, int32_t k, int32_t after, dmaq *q)
{
    const eu_op *o = &e->ops[k];
    bool u65 = eu_variant_is_u65(m->opt.sys.variant);
    const cc_buf *b = &m->bufs[o->wbuf];
    uint64_t lo = (uint64_t)b->offset, hi = lo + b->size;
    uint8_t region = cc_buf_region(m, o->wbuf);
    if (after >= 0 && op_touches(m, &e->ops[after], &s->rng[3 * after], region, lo, hi)) op(s, EU_OP_KERNEL_WAIT, 0);
    else if (after >= 1 && op_touches(m, &e->ops[after - 1], &s->rng[3 * (after - 1)], region, lo, hi))
        op(s, EU_OP_KERNEL_WAIT, 1);
    /* the whole copy; only the weight stream when the scale records lie
     * apart in flash (cc_share_flash stored either once): the op reads those
     * from flash */
    uint64_t w_at = eu_wcopy_w_at(o);
    bool apart = scales_apart(m, o);
    {
        uint64_t src = apart ? o->w_off : o->s_off, dst = apart ? lo + w_at : lo;
        uint64_t len = apart ? o->w_len : scales_only(m, o) ? o->s_len : b->size;
        REG_MULTI(s, EU_SET_DMA0_SRC_REGION, key_dma_region(0, false),
              eu_pack_dma_region(EU_SET_DMA0_SRC_REGION, 0, false, EU_DMA_1D));
        addr(s, EU_SET_DMA0_SRC, src, u65);
        REG_MULTI(s, EU_SET_DMA0_DST_REGION, key_dma_region(region, false),
                  eu_pack_dma_region(EU_SET_DMA0_DST_REGION, region, false, EU_DMA_1D));
        addr(s, EU_SET_DMA0_DST, dst, u65);
        set(s, EU_SET_DMA0_LEN, (uint32_t)len);
        op(s, EU_OP_DMA_START, 0);
        q->of_op[k] = q->started++;
        if (q->n_for < 3 * e->n_eu + 1) q->dma_for[q->n_for++] = k;
    }
}

/* The op after which op k's weights are DMA'd: the first op of its
 * buffer's live range (cc_prefetch may move it earlier than the op before
 * k), or -1 (before op k) when the range starts at k. */
static int32_t dma_after(const cc_model *m, const cc_epoch *e, int32_t k)
{
    int32_t f = m->bufs[e->ops[k].wbuf].eu_first;
    return f < k ? f : -1;
}

/* The weight DMAs to issue after op i (before op 0 when i = -1), in the
 * order of the ops that need them: each copy's first user k is due after
 * dma_after(k), or after op k - 1 when that is -1 (the slots of q->due). */
static void emit_dmas_after(cs *s, const cc_model *m, const cc_epoch *e, int32_t i, dmaq *q)
{
    for (int32_t k = q->due[i + 1]; k >= 0; k = q->due_next[k]) emit_weight_dma(s, m, e, k, i, q);
}

/* Fills q->loader, q->of_op (-1, or -2 where an earlier op loads the
 * copy) and the slots q->due of the ops that load a copy. */
static bool plan_dmas(const cc_model *m, const cc_epoch *e, dmaq *q)
{
    int32_t n = e->n_eu;
    int32_t *first = malloc(sizeof *first * ((size_t)m->n_bufs + 1));
    if (!first) return false;
    for (int32_t b = 0; b < m->n_bufs; b++) first[b] = -1;
    for (int32_t k = 0; k <= n; k++) q->due[k] = -1;
    for (int32_t k = 0; k < n; k++) {
        int32_t w = e->ops[k].wbuf;
        q->loader[k] = k;
        q->of_op[k] = -1;
        if (w < 0) continue;
        if (first[w] >= 0) {
            q->loader[k] = first[w];
            q->of_op[k] = -2;
        } else {
            first[w] = k;
        }
    }
    /* backwards, so that each slot lists its ops in ascending order */
    for (int32_t k = n - 1; k >= 0; k--) {
        if (e->ops[k].wbuf < 0 || q->of_op[k] != -1) continue;
        int32_t a = dma_after(m, e, k);
        int32_t slot = (a >= 0 ? a : k - 1) + 1;
        q->due_next[k] = q->due[slot];
        q->due[slot] = k;
    }
    free(first);
    return true;
}

/* A memo with nothing kept: all but the entries themselves cleared. */
static struct eu_genmemo *eu_genmemo_new(void)
{
    struct eu_genmemo *g = malloc(sizeof *g);
    if (g) memset(g, 0, offsetof(struct eu_genmemo, pc));
    return g;
}

void eu_genmemo_free(struct eu_genmemo *g) { free(g); }

int eu_generate(cc_model *m, cc_epoch *e, npuc_err *err) { return eu_generate_segs(m, e, NULL, err); }

int eu_generate_segs(cc_model *m, cc_epoch *e, eu_segs *sg, npuc_err *err)
{
    /* the stream is written after room for the COP1 payload's head, which
     * goes in front of it at the end: the buffer becomes the payload */
    cs st, *s = &st;
    memset(s, 0, sizeof *s);
    size_t head = eu_cop1_words(0);
    s->head = s->seg_at = head;
    s->sg = sg;
    if (sg) {
        sg->n = sg->n_kw = 0;
        sg->nk = sg->n1 = 0;
        sg->oom = false;
    }
    s->cap = head + 48 * (size_t)e->n_eu + 64;
    s->w = malloc(s->cap * sizeof *s->w);
    if (!s->w) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    s->n = head;
    kw_room(s);
    s->rng = malloc(sizeof *s->rng * (3 * (size_t)e->n_eu + 1));
    if (!s->rng) {
        free(s->w);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    for (int32_t k = 0; k < e->n_eu; k++) fm_spans(m, &e->ops[k], &s->rng[3 * k]);
    /* the compile's operands while the search runs (NULL: each one worked
     * out), dropped after it */
    if (m->gen && !m->eu_memo) m->eu_memo = eu_genmemo_new();
    if (!m->gen && m->eu_memo) {
        eu_genmemo_free(m->eu_memo);
        m->eu_memo = NULL;
    }
    s->gm = m->eu_memo;
    s->fp = s->gm ? s->gm->fp : FP_NONE;
    const eu_variant_info *vi = eu_variant_get(m->opt.sys.variant);
    int rc = NPUC_OK;
    /* PARALLEL_MODE = cores - 1 (docs/ethos-u.md 1.5): a U65-512 splits every
     * op's OFM channels over its two cores */
    if (vi->product == EU_PRODUCT_U65) set(s, EU_SET_PARALLEL_MODE, vi->cores - 1);
    lut_slots ls;
    memset(&ls, 0, sizeof ls);
    if (!lut_slots_init(&ls, e)) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    size_t nn = (size_t)e->n_eu + 1;
    dmaq q = {0, 0, calloc(nn, sizeof(int32_t)), -1, malloc(sizeof(int32_t) * (3 * (size_t)e->n_eu + 1)), 0,
              malloc(sizeof(int32_t) * nn), malloc(sizeof(int32_t) * nn), malloc(sizeof(int32_t) * nn)};
    /* -1: not issued yet; -2: an earlier op loads the buffer (found once
     * here, not per emit_dmas_after call: streams of thousands of ops) */
    if (!rc && (!q.of_op || !q.dma_for || !q.loader || !q.due || !q.due_next || !plan_dmas(m, e, &q)))
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    /* weights are prefetched while earlier ops run, each after the op its
     * buffer's live range starts at (the bands of a cascaded op share one
     * copy, loaded before its first band); only the first op's before it
     * (i = -1 below).
     * Where no op but LUT users touches the LUT banks (more than 16 banks,
     * docs/ethos-u.md 1.2) an epoch's only LUT is loaded once, early, while
     * the DMA channel is idle, rather than in front of its first user: behind
     * the stream's first weight DMA, so that a table used late (a softmax's)
     * does not hold up the first weighted op, or up front where no weight DMA
     * comes before its user (pre_slot: preloaded after the DMAs of that slot,
     * op pre_slot - 1) */
    int32_t lut_user = -1, pre_slot = -1;
    if (!rc && e->n_luts == 1 && vi->reserved_banks >= EU_LUT_BANKS) {
        for (int32_t k = 0; k < e->n_eu && lut_user < 0; k++)
            if (e->ops[k].lut == 0) lut_user = k;
        pre_slot = 0;
        for (int32_t sl = 0; lut_user >= 0 && sl <= lut_user; sl++)
            if (q.due[sl] >= 0) {
                pre_slot = sl;
                break;
            }
    }
    for (int32_t i = -1; i < e->n_eu && !rc; i++) {
        if (i >= 0) rc = emit_op(s, m, e, i, &q, &ls, err);
        if (rc) break;
        /* where the LUT banks are kept, the next op's one-slot table
         * goes ahead of the weight DMAs issued here (else it would queue
         * behind them while the op waits: 6.7k cycles before one of
         * tflm_id_model's LEAKY_RELU convs on ethos-u55-256), into a slot
         * that neither this op nor the one before it (both may still
         * run) reads, so no kernel op is waited for */
        int32_t j = i + 1, lj = j < e->n_eu ? e->ops[j].lut : -1;
        if (lj >= 0 && i >= 0 && ls.at[lj] < 0 && vi->reserved_banks >= EU_LUT_BANKS &&
            e->luts[lj].size <= EU_LUT_SLOT_BYTES) {
            int slot = lut_slots_place(&ls, e, lj, e->ops[i].lut, i > 0 ? e->ops[i - 1].lut : -1);
            if (slot >= 0) {
                emit_lut_dma(s, m, e, j, slot, &q);
                ls.dma[lj] = q.started - 1;
            }
        }
        emit_dmas_after(s, m, e, i, &q);
        if (lut_user >= 0 && i + 1 == pre_slot && ls.at[0] < 0) {
            emit_lut_dma(s, m, e, lut_user, lut_slots_place(&ls, e, 0, -1, -1), &q);
            ls.dma[0] = q.started - 1;
        }
    }
    lut_slots_free(&ls);
    free(q.of_op);
    free(q.loader);
    free(q.due);
    free(q.due_next);
    free(e->dma_op);
    e->dma_op = q.dma_for;
    e->n_dma = q.n_for;
    if (!rc) {
        op(s, EU_OP_STOP, 0xFFFF);   /* Vela's mask */
        if (s->oom) rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    size_t n = s->n - head;
    if (!rc && n > EU_COP1_MAX_STREAM_WORDS)
        rc = npuc_errf(err, NPUC_E_UNSUPPORTED, "command stream of %zu words exceeds the driver's "
                       "24-bit length", n);
    if (!rc) {
        /* COP1 payload: magic, OPTIMIZER_CONFIG, NOPs to align the stream
         * to 16 bytes, COMMAND_STREAM header, the stream (in place) */
        eu_cop1_write_head(s->w, vi->config, vi->id, n);
        uint32_t *p = s->cap > s->n + s->n / 4 ? realloc(s->w, s->n * sizeof *p) : NULL;
        if (p) s->w = p;
        free(e->payload);
        e->payload = (uint8_t *)s->w;
        e->payload_size = s->n * 4;
        s->w = NULL;
    }
    free(s->w);
    free(s->rng);
    return rc;
}
