/* eu_block: OFM block and SHRAM layout choice.
 *
 *   (a) every kernel op of the Vela-compiled models (person_detect for
 *       U55-256, and the u55-128 / u65-256 sets): an independent copy of the
 *       SHRAM rules reproduces Vela's own IB_END / AB_START / IFM2_IB_START;
 *       our choice for the same op obeys the rules and the simulator's
 *       checks; its cycles (the simulator's model, real op records) are
 *       compared with Vela's choice, per op and on the whole timeline.
 *   (b) functional: our blocks written back into every Vela stream (weights
 *       re-ordered for the new block depth) give the same memory contents as
 *       the original stream after every kernel op, on the virtual NPU.
 *   (c) a synthetic sweep over all six variants (conv 1x1..7x7, strides 1-3,
 *       depths 1..1024, 8/16/32-bit, pooling, elementwise with/without an
 *       IFM2 tensor, LUT, upscale): every choice obeys the rules, misfits
 *       give NPUC_E_UNSUPPORTED; a brute-force search over every legal block
 *       checks the pruned search; small synthetic ops run on the virtual NPU
 *       with our block and with another legal block give identical OFMs.
 *   (d) timing (printed, not asserted). */
#include "test.h"
#include "sim_asm.h"

#include "compiler/ethosu/eu_block.h"
#include "target/target.h"
#include "interp/interp_ethosu.h"
#include "graph/graph.h"
#include "sim/sim.h"
#include "tflite/tflite.h"

#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static unsigned cdiv(uint64_t x, uint64_t q) { return (unsigned)((x + q - 1) / q); }
static unsigned rup(uint64_t x, uint64_t q) { return (unsigned)((x + q - 1) / q * q); }
static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

/* ------------------------------------------- SHRAM rules (independent copy) */

/* docs/ethos-u.md 1.1 / 1.2, written from the document. */
typedef struct t_arch {
    unsigned ubw, ubh, ubd, banks, reserved;
    unsigned g[8];   /* IFM8, IFM16, IFM8-EW, IFM16-EW, IFM32, ACC16, ACC32, ACC40 */
} t_arch;

static const t_arch T_ARCH[6] = {
    {1, 1, 4, 16, 0, {2, 2, 2, 2, 4, 4, 4, 4}},
    {1, 1, 8, 16, 0, {2, 2, 2, 2, 4, 4, 4, 8}},
    {2, 1, 8, 24, 2, {4, 4, 4, 4, 8, 4, 8, 12}},
    {2, 2, 8, 48, 2, {8, 8, 8, 8, 16, 8, 16, 20}},
    {2, 2, 8, 48, 2, {8, 8, 8, 8, 16, 8, 16, 20}},
    {2, 2, 8, 48, 2, {8, 8, 8, 8, 16, 8, 16, 20}},
};

typedef struct t_layout_t {
    bool fits;
    unsigned ifm, ifm2, acc;           /* banks */
    unsigned ib_end, ab_start, ib2, lut_start;
} t_layout_t;

/* The layout Vela computes for block w x h x d; up_mode 0 none, 1 NEAREST,
 * 2 ZEROS (only NEAREST adds a row/column). */
static t_layout_t t_layout(const eu_block_req *r, unsigned up_mode, unsigned w, unsigned h, unsigned d)
{
    const t_arch *a = &T_ARCH[r->variant];
    t_layout_t L;
    memset(&L, 0, sizeof L);
    bool ew = r->kind == SIM_K_ELEMENTWISE, rsum = r->kind == SIM_K_POOL && r->mode == 2;
    unsigned kw = ew ? 1 : r->kernel_w, kh = ew ? 1 : r->kernel_h;
    unsigned sx = ew ? 1 : r->stride_x, sy = ew ? 1 : r->stride_y;
    unsigned up = !ew && up_mode ? 2 : 1, near = !ew && up_mode == 1 ? 1 : 0;
    unsigned iw = rup(cdiv((uint64_t)(w - 1) * sx + umin(kw, 8) + near, up), a->ubw);
    unsigned ih = rup(cdiv((uint64_t)(h - 1) * sy + umin(kh, 8) + near, up), a->ubh);
    unsigned id = d;
    if (r->kind == SIM_K_CONV || rsum) {
        bool pkf = r->kind == SIM_K_CONV && r->part_kernel_first;
        id = r->ifm_bits == 16 ? rup(umin(r->ifm_d, 16), 4) : rup(umin(r->ifm_d, pkf ? 16 : 32), 8);
    }
    uint64_t bytes = (uint64_t)iw * ih * rup((uint64_t)id * r->ifm_bits / 8, 8);
    unsigned gran = r->ifm_bits == 32 ? a->g[4] : ew ? a->g[r->ifm_bits == 16 ? 3 : 2]
                                                     : a->g[r->ifm_bits == 16 ? 1 : 0];
    L.ifm = rup((uint64_t)cdiv(bytes, 1024) * 2, gran);
    unsigned lut = r->uses_lut ? 2 : 0;
    if (a->reserved > lut) lut = a->reserved;
    L.lut_start = a->banks - lut;
    L.ib_end = L.ib2 = 2 + L.ifm;
    if (!ew) {
        unsigned ah = (r->ofm_h == 1 && r->kernel_h == 1 && a->ubh == 2) ? 1 : h;
        uint64_t acc = (uint64_t)w * ah * rup(d, 8) * (r->acc40 ? 40 : 32) / 8;
        L.acc = rup((uint64_t)cdiv(acc, 1024) * 2, a->g[r->acc40 ? 7 : 6]);
        L.fits = L.acc <= L.lut_start && L.ib_end <= L.lut_start - L.acc;
        L.ab_start = L.fits ? L.lut_start - L.acc : 0;
    } else {
        L.ifm2 = r->ifm2_tensor ? L.ifm : 0;
        L.fits = L.ib2 + L.ifm2 <= L.lut_start;
        L.ib_end = L.ab_start = L.lut_start;
    }
    return L;
}

/* Legal block sizes (docs/ethos-u.md 1.2). */
static bool t_block_legal(const eu_block_req *r, unsigned w, unsigned h, unsigned d, char *why, size_t n)
{
    const t_arch *a = &T_ARCH[r->variant];
    if (!w || !h || !d || w > 64 || h > 32 || d > 128)
        return snprintf(why, n, "block %ux%ux%u outside 64x32x128", w, h, d), false;
    if (w % a->ubw || h % a->ubh || d % a->ubd)
        return snprintf(why, n, "block %ux%ux%u not a multiple of the %ux%ux%u micro-block", w, h, d,
                        a->ubw, a->ubh, a->ubd), false;
    if (d < r->ofm_d && d % 16)
        return snprintf(why, n, "block depth %u < OFM depth %u and not a multiple of 16", d, r->ofm_d),
               false;
    return true;
}

/* The simulator's checks on the block and SHRAM registers (sim_exec.c
 * check_shram and the register range checks of sim_cmd.c). */
static bool t_sim_accepts(const eu_block_req *r, const eu_block *b, char *why, size_t n)
{
    const t_arch *a = &T_ARCH[r->variant];
    unsigned banks = a->banks;
    bool ew = r->kind == SIM_K_ELEMENTWISE;
    if (b->w < 1 || b->w > 64 || b->h < 1 || b->h > 32 || b->d < 1 || b->d > 128)
        return snprintf(why, n, "block register out of range"), false;
    if (b->ifm_ib_end < 2 || b->ifm_ib_end > banks) return snprintf(why, n, "IB_END range"), false;
    if (!ew && b->ab_start < b->ifm_ib_end) return snprintf(why, n, "AB_START < IB_END"), false;
    if (b->ab_start > banks) return snprintf(why, n, "AB_START range"), false;
    if (ew && r->ifm2_tensor && (b->ifm2_ib_start < 2 || b->ifm2_ib_start >= banks))
        return snprintf(why, n, "IFM2_IB_START range"), false;
    if ((b->w % a->ubw && b->w < r->ofm_w) || (b->h % a->ubh && b->h < r->ofm_h) ||
        (b->d % a->ubd && b->d < r->ofm_d))
        return snprintf(why, n, "block not a micro-block multiple"), false;
    if (b->acc_format > 2) return snprintf(why, n, "ACC_FORMAT range"), false;
    if (r->variant == EU_U65_512 && b->d % 2) return snprintf(why, n, "odd depth on U65-512"), false;
    return true;
}

/* Everything a choice must satisfy. up_mode_true: the op's real upscale
 * mode (eu_block assumes NEAREST, the larger IFM block, when upscaled). */
static bool t_check_choice(const eu_block_req *r, unsigned up_mode_true, const eu_block *b, char *why,
                           size_t n)
{
    const t_arch *a = &T_ARCH[r->variant];
    bool ew = r->kind == SIM_K_ELEMENTWISE;
    if (!t_block_legal(r, b->w, b->h, b->d, why, n)) return false;
    if (!t_sim_accepts(r, b, why, n)) return false;
    t_layout_t L = t_layout(r, r->upscale ? 1 : 0, b->w, b->h, b->d);
    if (!L.fits) return snprintf(why, n, "block %ux%ux%u does not fit", b->w, b->h, b->d), false;
    if (b->ifm_ib_end != L.ib_end || b->ab_start != L.ab_start || (ew && r->ifm2_tensor && b->ifm2_ib_start != L.ib2))
        return snprintf(why, n, "registers IB_END %u AB_START %u IFM2_IB_START %u, rules give %u %u %u",
                        b->ifm_ib_end, b->ab_start, b->ifm2_ib_start, L.ib_end, L.ab_start, L.ib2),
               false;
    if (b->acc_format != (r->acc40 ? 1 : 0)) return snprintf(why, n, "ACC_FORMAT"), false;
    if (b->lut_start_bank != a->banks - 2) return snprintf(why, n, "lut_start_bank %u", b->lut_start_bank), false;
    /* the real upscale mode's buffers fit inside what was programmed */
    t_layout_t T = t_layout(r, up_mode_true, b->w, b->h, b->d);
    if (!T.fits) return snprintf(why, n, "does not fit with the real upscale mode"), false;
    if (!ew && (b->ifm_ib_end < 2 + T.ifm || b->ab_start + T.acc > T.lut_start))
        return snprintf(why, n, "buffers overlap"), false;
    if (ew && b->ifm2_ib_start + T.ifm2 > T.lut_start) return snprintf(why, n, "IFM2 overlaps the LUT"), false;
    if (ew && b->ifm2_ib_start < 2 + T.ifm) return snprintf(why, n, "IFM2 overlaps the IFM"), false;
    /* banks above lut_start (the LUT) are never used */
    if (b->ab_start > T.lut_start || b->ifm_ib_end > T.lut_start) return snprintf(why, n, "LUT banks used"), false;
    return true;
}

/* ------------------------------------------------------- request from state */

static unsigned up_mode_of(const sim_state *s) { return s->upscale; }

static eu_block_req req_from_state(const sim_state *s, const sim_cmd *c, eu_variant v)
{
    eu_block_req r;
    memset(&r, 0, sizeof r);
    r.variant = v;
    switch (c->code) {
    case EU_OP_CONV: r.kind = SIM_K_CONV; break;
    case EU_OP_DEPTHWISE: r.kind = SIM_K_DEPTHWISE; break;
    case EU_OP_POOL: r.kind = SIM_K_POOL; r.mode = (uint8_t)(c->param & 7); break;
    default: r.kind = SIM_K_ELEMENTWISE; r.mode = (uint8_t)(c->param & 0x3F); break;
    }
    bool ew = r.kind == SIM_K_ELEMENTWISE;
    r.ofm_w = s->ofm.width;
    r.ofm_h = s->ofm.height;
    r.ofm_d = s->ofm.depth;
    r.ifm_d = ew ? s->ofm.depth : s->ifm.depth;
    r.kernel_w = ew ? 1 : s->kernel_width;
    r.kernel_h = ew ? 1 : s->kernel_height;
    r.stride_x = ew ? 1 : s->stride_x;
    r.stride_y = ew ? 1 : s->stride_y;
    r.upscale = !ew && s->upscale != 0;
    r.ifm_bits = s->ifm.bits;
    r.ofm_bits = s->ofm.bits;
    r.acc40 = s->acc_format == 1;
    r.ifm2_tensor = ew && (r.mode <= 4 || r.mode >= 8) && !s->ifm2_scalar;
    r.uses_lut = s->act_func >= 16;
    r.part_kernel_first = s->part_kernel_first;
    r.ifm_format = s->ifm.format;
    r.ofm_format = s->ofm.format;
    return r;
}

/* ------------------------------------------------------------ model files */

typedef struct file_list { char **v; size_t n, cap; } file_list;

static void files_add(file_list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) exit(2);
    }
    l->v[l->n++] = strdup(p);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* *.tflite under dir, recursively, sorted. */
static void files_scan(file_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    size_t first = l->n;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st)) continue;
        if (S_ISDIR(st.st_mode)) files_scan(l, p);
        else if (strlen(e->d_name) > 7 && !strcmp(e->d_name + strlen(e->d_name) - 7, ".tflite"))
            files_add(l, p);
    }
    closedir(d);
    qsort(l->v + first, l->n - first, sizeof *l->v, cmp_str);
}

static void files_free(file_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ------------------------------------------ (a) cycles against Vela's choice */

typedef struct recs { sim_op_info *v; size_t n, cap; } recs;

static void recs_push(recs *r, const sim_op_info *x)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v) exit(2);
    }
    r->v[r->n++] = *x;
}

typedef struct reqs { eu_block_req *v; size_t n, cap; } reqs;

static void reqs_push(reqs *r, const eu_block_req *x)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v) exit(2);
    }
    r->v[r->n++] = *x;
}

typedef struct totals {
    uint64_t vela_op, ours_op;        /* summed per-op cycles */
    uint64_t vela_tl, ours_tl;        /* timeline (sim_perf_estimate over the stream) */
    size_t ops, better, worse, same_block, vela_layout_ok, vela_layout_bad, ours_bad, unsupported;
    double worst_ratio;
    char worst[384];
} totals;

static void totals_add(totals *t, const totals *x)
{
    t->vela_op += x->vela_op;
    t->ours_op += x->ours_op;
    t->vela_tl += x->vela_tl;
    t->ours_tl += x->ours_tl;
    t->ops += x->ops;
    t->better += x->better;
    t->worse += x->worse;
    t->same_block += x->same_block;
    t->vela_layout_ok += x->vela_layout_ok;
    t->vela_layout_bad += x->vela_layout_bad;
    t->ours_bad += x->ours_bad;
    t->unsupported += x->unsupported;
    if (x->worst_ratio > t->worst_ratio) {
        t->worst_ratio = x->worst_ratio;
        memcpy(t->worst, x->worst, sizeof t->worst);
    }
}

static uint64_t one_op_cycles(eu_variant v, const sim_system *sys, const sim_op_info *o)
{
    sim_op_info c = *o;
    c.wait_kind = 0;
    return sim_perf_estimate(v, sys, &c, 1);
}

/* Walks one COP1 payload: layout checks, our choice, cycles. */
static void compare_stream(const char *what, const uint8_t *payload, size_t size, totals *t, reqs *all)
{
    npuc_err err = {0};
    sim_cop1 cop;
    eu_variant v;
    if (sim_cop1_parse(payload, size, &cop, &err) || sim_variant_from_config(cop.config, &v, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        CHECK(0);
        return;
    }
    sim_cmd *cmds = NULL;
    size_t n = 0;
    if (sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &n, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        CHECK(0);
        return;
    }
    sim_system sys;
    target_default_sim(v, &sys);
    recs rv = {0}, ro = {0};
    sim_state s;
    sim_state_reset(&s);
    uint8_t wk = 0, wc = 0;
    char why[256];
    for (size_t i = 0; i < n; i++) {
        const sim_cmd *c = &cmds[i];
        sim_state_apply(&s, c, v);
        if (c->code == EU_OP_DMA_WAIT || c->code == EU_OP_KERNEL_WAIT) {
            wk = c->code == EU_OP_DMA_WAIT ? 1 : 2;
            wc = (uint8_t)c->param;
            continue;
        }
        if (!eu_cmd_is_kernel_op(c->code) && c->code != EU_OP_DMA_START) continue;
        sim_op_info info;
        sim_op_info_from_state(&s, c, i, v, &info);
        info.wait_kind = wk;
        info.wait_count = wc;
        wk = wc = 0;
        if (c->code == EU_OP_DMA_START) {
            recs_push(&rv, &info);
            recs_push(&ro, &info);
            continue;
        }
        eu_block_req r = req_from_state(&s, c, v);
        reqs_push(all, &r);
        t->ops++;
        /* Vela's own registers follow the rules exactly */
        t_layout_t L = t_layout(&r, up_mode_of(&s), s.blk_width, s.blk_height, s.blk_depth);
        bool ew = r.kind == SIM_K_ELEMENTWISE;
        bool vela_ok = L.fits && s.ifm.ib == L.ib_end && s.ab_start == L.ab_start &&
                       (!(ew && r.ifm2_tensor) || s.ifm2.ib == L.ib2);
        if (vela_ok) t->vela_layout_ok++;
        else {
            t->vela_layout_bad++;
            fprintf(stderr, "%s: %s at 0x%zx: Vela block %ux%ux%u IB_END %u AB_START %u IFM2 %u; rules: "
                    "fits %d %u %u %u\n", what, c->name, c->offset, s.blk_width, s.blk_height,
                    s.blk_depth, s.ifm.ib, s.ab_start, s.ifm2.ib, L.fits, L.ib_end, L.ab_start, L.ib2);
        }
        eu_block b;
        int rc = eu_block_choose(&r, &b, &err);
        if (rc) {
            t->unsupported++;
            fprintf(stderr, "%s: %s at 0x%zx: %s\n", what, c->name, c->offset, err.msg);
            CHECK(0);
            recs_push(&rv, &info);
            recs_push(&ro, &info);
            continue;
        }
        if (!t_check_choice(&r, up_mode_of(&s), &b, why, sizeof why)) {
            t->ours_bad++;
            fprintf(stderr, "%s: %s at 0x%zx: our block %ux%ux%u: %s\n", what, c->name, c->offset, b.w,
                    b.h, b.d, why);
        }
        sim_op_info ours = info;
        ours.blk_w = b.w;
        ours.blk_h = b.h;
        ours.blk_d = b.d;
        uint64_t cv = one_op_cycles(v, &sys, &info), co = one_op_cycles(v, &sys, &ours);
        t->vela_op += cv;
        t->ours_op += co;
        if (co < cv) t->better++;
        if (co > cv) t->worse++;
        if (b.w == s.blk_width && b.h == s.blk_height && b.d == s.blk_depth) t->same_block++;
        double ratio = cv ? (double)co / (double)cv : 1.0;
        if (ratio > t->worst_ratio) {
            t->worst_ratio = ratio;
            snprintf(t->worst, sizeof t->worst,
                     "%.150s %s ofm %ux%ux%u k %ux%u s %ux%u: ours %ux%ux%u %llu cycles, Vela %ux%ux%u %llu",
                     what, c->name, r.ofm_w, r.ofm_h, r.ofm_d, r.kernel_w, r.kernel_h, r.stride_x,
                     r.stride_y, b.w, b.h, b.d, (unsigned long long)co, s.blk_width, s.blk_height,
                     s.blk_depth, (unsigned long long)cv);
        }
        recs_push(&rv, &info);
        recs_push(&ro, &ours);
    }
    t->vela_tl += sim_perf_estimate(v, &sys, rv.v, rv.n);
    t->ours_tl += sim_perf_estimate(v, &sys, ro.v, ro.n);
    free(rv.v);
    free(ro.v);
    free(cmds);
}

static void compare_file(const char *path, totals *t, reqs *all)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(0);
        return;
    }
    for (int g = 0; g < m->n_subgraphs; g++)
        for (int i = 0; i < m->subgraphs[g].n_operators; i++) {
            const tfl_operator *op = &m->subgraphs[g].operators[i];
            const tfl_opcode *oc = &m->opcodes[op->opcode_index];
            if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0 || op->n_inputs < 1) continue;
            const tfl_tensor *tt = &m->subgraphs[g].tensors[op->inputs[0]];
            const tfl_buffer *b = &m->buffers[tt->buffer];
            char what[1200];
            const char *base = strrchr(path, '/');
            snprintf(what, sizeof what, "%s op %d", base ? base + 1 : path, i);
            compare_stream(what, b->data, b->size, t, all);
        }
    tfl_model_free(m);
}

static void print_totals(const char *name, const totals *t)
{
    printf("  %-22s %4zu ops: per-op cycles ours %llu vs Vela %llu (ratio %.4f), timeline %llu vs %llu "
           "(ratio %.4f); better %zu, worse %zu, same block %zu\n",
           name, t->ops, (unsigned long long)t->ours_op, (unsigned long long)t->vela_op,
           t->vela_op ? (double)t->ours_op / (double)t->vela_op : 1.0,
           (unsigned long long)t->ours_tl, (unsigned long long)t->vela_tl,
           t->vela_tl ? (double)t->ours_tl / (double)t->vela_tl : 1.0, t->better, t->worse,
           t->same_block);
}

/* --------------------------------------- (b) our blocks back into the stream */

/* One ethos-u op's memory as TFLite Micro + the driver lay it out
 * (interp_ethosu.c): tensors with an offline offset in one arena, scratch_fast
 * separately, constants (flash) and tensors without an offset on their own. */
typedef struct fx_mem {
    const graph *g;
    const graph_op *op;
    uint8_t *flash;
    size_t flash_size;
    size_t arena_size;
    uint8_t *arena, *arena_init;
    size_t fast_size;
    uint8_t *fast;
    uint8_t *own[16];         /* tensors k without arena offset (by k) */
    uint8_t *own_init[16];
} fx_mem;

#define FX_BUS 0x10000000ull
#define FX_STEP 0x08000000ull

static int fx_run(sim_npu *npu, fx_mem *m, const uint8_t *stream, size_t size, char *msg, size_t msg_size)
{
    npuc_err err = {0};
    const graph_op *op = m->op;
    int n_io = op->n_in + op->n_out;
    sim_npu_unmap_all(npu);
    int nwin = 0;
    uint64_t stream_bus = FX_BUS + FX_STEP * (uint64_t)nwin++;
    if (sim_npu_map(npu, stream_bus, (void *)stream, size, false, &err)) goto fail;
    uint64_t arena_bus = 0;
    if (m->arena_size) {
        arena_bus = FX_BUS + FX_STEP * (uint64_t)nwin++;
        if (sim_npu_map(npu, arena_bus, m->arena, m->arena_size, true, &err)) goto fail;
    }
    uint64_t basep[8] = {0};
    for (int k = 1; k < n_io && k <= 8; k++) {
        int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (ti < 0) continue;
        const graph_tensor *t = &m->g->tensors[ti];
        if (k == 1) {
            basep[0] = FX_BUS + FX_STEP * (uint64_t)nwin++;
            if (sim_npu_map(npu, basep[0], m->flash, m->flash_size ? m->flash_size : 16, false, &err))
                goto fail;
        } else if (k == 3) {
            basep[2] = FX_BUS + FX_STEP * (uint64_t)nwin++;
            if (sim_npu_map(npu, basep[2], m->fast, m->fast_size, true, &err)) goto fail;
        } else if (t->arena_offset >= 0) {
            basep[k - 1] = arena_bus + (uint64_t)t->arena_offset;
        } else if (t->nbytes) {
            basep[k - 1] = FX_BUS + FX_STEP * (uint64_t)nwin++;
            if (sim_npu_map(npu, basep[k - 1], m->own[k], t->nbytes, true, &err)) goto fail;
        }
    }
    sim_npu_write(npu, EU_REG_QBASE, (uint32_t)stream_bus);
    sim_npu_write(npu, EU_REG_QBASE_HI, (uint32_t)(stream_bus >> 32));
    sim_npu_write(npu, EU_REG_QSIZE, (uint32_t)size);
    for (int i = 0; i < 8; i++) {
        sim_npu_write(npu, EU_REG_BASEP0 + 8 * i, (uint32_t)basep[i]);
        sim_npu_write(npu, EU_REG_BASEP0 + 8 * i + 4, (uint32_t)(basep[i] >> 32));
    }
    uint32_t cmd = sim_npu_read(npu, EU_REG_CMD);
    sim_npu_write(npu, EU_REG_CMD, (cmd & 0xC) | 1);
    uint32_t st = sim_npu_read(npu, EU_REG_STATUS);
    sim_npu_write(npu, EU_REG_CMD, (cmd & 0xC) | 2);
    sim_npu_unmap_all(npu);
    if (!sa_status_ok(st)) {
        snprintf(msg, msg_size, "STATUS 0x%08x: %s", st, sim_npu_error(npu));
        return -1;
    }
    return 0;
fail:
    sim_npu_unmap_all(npu);
    snprintf(msg, msg_size, "%s", err.msg);
    return -1;
}

static size_t fx_snapshot(const fx_mem *m, uint8_t *out);

static void fx_reset(fx_mem *m)
{
    if (m->arena_size) memcpy(m->arena, m->arena_init, m->arena_size);
    memset(m->fast, 0, m->fast_size ? m->fast_size : 1);
    int n_io = m->op->n_in + m->op->n_out;
    for (int k = 2; k < n_io && k < 16; k++) {
        if (!m->own[k]) continue;
        int32_t ti = k < m->op->n_in ? m->op->in[k] : m->op->out[k - m->op->n_in];
        memcpy(m->own[k], m->own_init[k], m->g->tensors[ti].nbytes);
    }
}

/* All memory the NPU may write, concatenated (for comparisons). */
static size_t fx_snapshot(const fx_mem *m, uint8_t *out)
{
    size_t n = 0;
    if (out) memcpy(out, m->arena, m->arena_size);
    n += m->arena_size;
    if (out) memcpy(out + n, m->fast, m->fast_size);
    n += m->fast_size;
    int n_io = m->op->n_in + m->op->n_out;
    for (int k = 2; k < n_io && k < 16; k++) {
        if (!m->own[k]) continue;
        int32_t ti = k < m->op->n_in ? m->op->in[k] : m->op->out[k - m->op->n_in];
        size_t sz = m->g->tensors[ti].nbytes;
        if (out) memcpy(out + n, m->own[k], sz);
        n += sz;
    }
    return n;
}

/* Hash of all writable memory after every kernel op of a run: the trace
 * callback comes before each command executes, so the line after a kernel
 * op sees its results. */
typedef struct fx_trace {
    fx_mem *m;
    uint8_t *snap;
    bool after_kernel;
    uint64_t *hash;
    size_t n, cap;
} fx_trace;

static uint64_t fx_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void fx_trace_push(fx_trace *t)
{
    size_t n = fx_snapshot(t->m, t->snap);
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 128;
        t->hash = realloc(t->hash, t->cap * sizeof *t->hash);
        if (!t->hash) exit(2);
    }
    t->hash[t->n++] = fx_hash(t->snap, n);
}

static void fx_trace_line(void *user, const char *line)
{
    fx_trace *t = user;
    if (t->after_kernel) fx_trace_push(t);
    t->after_kernel = strstr(line, "NPU_OP_CONV") || strstr(line, "NPU_OP_DEPTHWISE") ||
                      strstr(line, "NPU_OP_POOL") || strstr(line, "NPU_OP_ELEMENTWISE");
}

typedef struct wstream { uint32_t *w; size_t n, cap; } wstream;

static void ws_word(wstream *s, uint32_t w)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->w = realloc(s->w, s->cap * sizeof *s->w);
        if (!s->w) exit(2);
    }
    s->w[s->n++] = w;
}
static void ws_cmd0(wstream *s, uint16_t code, unsigned p) { ws_word(s, code | (uint32_t)p << 16); }
static void ws_cmd1(wstream *s, uint16_t code, uint32_t v)
{
    ws_word(s, code);
    ws_word(s, v);
}

static uint8_t *ws_bytes(const uint32_t *w, size_t n)
{
    uint8_t *b = xcalloc(n * 4 + 4, 1);
    for (size_t i = 0; i < n; i++) {
        b[4 * i] = (uint8_t)w[i];
        b[4 * i + 1] = (uint8_t)(w[i] >> 8);
        b[4 * i + 2] = (uint8_t)(w[i] >> 16);
        b[4 * i + 3] = (uint8_t)(w[i] >> 24);
    }
    return b;
}

typedef struct dma_rec { uint8_t src_region, dst_region; bool dst_internal; uint64_t src, dst, len; } dma_rec;

typedef struct fx_stats { size_t ops, reencoded, compared, mismatches, failures; } fx_stats;

/* Rewrites one ethos-u op's stream with our blocks, runs both streams on
 * the same inputs and compares all writable memory after every kernel op. */
static void fx_op(const char *what, const graph *g, const graph_op *op, fx_stats *fs)
{
    npuc_err err = {0};
    const graph_tensor *pt = &g->tensors[op->in[0]], *ft = &g->tensors[op->in[1]];
    sim_cop1 cop;
    eu_variant v;
    if (sim_cop1_parse(pt->data, pt->nbytes, &cop, &err) || sim_variant_from_config(cop.config, &v, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        CHECK(0);
        return;
    }
    sim_cmd *cmds = NULL;
    size_t n = 0;
    if (sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &n, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        CHECK(0);
        return;
    }
    fx_mem m;
    memset(&m, 0, sizeof m);
    m.g = g;
    m.op = op;
    size_t flash_cap = ft->nbytes + 4096;
    m.flash = xcalloc(flash_cap, 1);
    if (ft->nbytes) memcpy(m.flash, ft->data, ft->nbytes);
    m.flash_size = ft->nbytes;
    const uint8_t *orig_flash = ft->data;

    /* the new stream: every kernel op gets its block, SHRAM and weight
     * registers written right before it (Vela omits repeated values) */
    wstream ns = {0};
    size_t n_k = 0;
    dma_rec dmas[64];
    size_t n_dma = 0;
    sim_state s;
    sim_state_reset(&s);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const sim_cmd *c = &cmds[i];
        sim_state_apply(&s, c, v);
        if (c->code == EU_OP_DMA_START) {
            dma_rec d = {s.dma.src_region, s.dma.dst_region, s.dma.dst_internal, s.dma.src, s.dma.dst, s.dma.len};
            if (s.dma.src_internal) d.src_region = 0xFF;
            memmove(dmas + 1, dmas, (n_dma < 63 ? n_dma : 63) * sizeof *dmas);
            dmas[0] = d;
            if (n_dma < 64) n_dma++;
        }
        if (eu_cmd_is_kernel_op(c->code)) {
            eu_block_req r = req_from_state(&s, c, v);
            eu_block b;
            if (eu_block_choose(&r, &b, &err)) {
                fprintf(stderr, "%s: %s at 0x%zx: %s\n", what, c->name, c->offset, err.msg);
                ok = false;
                break;
            }
            fs->ops++;
            ws_cmd0(&ns, EU_SET_OFM_BLK_HEIGHT_M1, b.h - 1);
            ws_cmd0(&ns, EU_SET_OFM_BLK_WIDTH_M1, b.w - 1);
            ws_cmd0(&ns, EU_SET_OFM_BLK_DEPTH_M1, b.d - 1);
            ws_cmd0(&ns, EU_SET_IFM_IB_END, b.ifm_ib_end);
            ws_cmd0(&ns, EU_SET_AB_START, b.ab_start);
            if (r.kind == SIM_K_ELEMENTWISE && r.ifm2_tensor) ws_cmd0(&ns, EU_SET_IFM2_IB_START, b.ifm2_ib_start);
            ws_cmd0(&ns, EU_SET_ACC_FORMAT, b.acc_format);
            if (r.kind == SIM_K_CONV || r.kind == SIM_K_DEPTHWISE) {
                uint8_t wreg = s.weight_region;
                uint64_t wbase = s.weight_base[0], wlen = s.weight_length[0];
                if (b.d != s.blk_depth) {
                    /* find the weights in flash (directly, or where a DMA copied them from) */
                    int64_t foff = -1;
                    if (wreg == 0) foff = (int64_t)wbase;
                    for (size_t k = 0; foff < 0 && k < n_dma; k++)
                        if (!dmas[k].dst_internal && dmas[k].dst_region == wreg && dmas[k].src_region == 0 &&
                            wbase >= dmas[k].dst && wbase + wlen <= dmas[k].dst + dmas[k].len)
                            foff = (int64_t)(dmas[k].src + (wbase - dmas[k].dst));
                    bool dw = r.kind == SIM_K_DEPTHWISE;
                    sim_wgeom gv;
                    int16_t *vals = NULL;
                    sim_mlw_info mi;
                    if (foff < 0 || (size_t)foff + wlen > ft->nbytes ||
                        sim_wgeom_from_state(&s, v, dw, &gv, &err) ||
                        sim_mlw_decode(orig_flash + foff, (size_t)wlen, 0, &vals, &mi, &err)) {
                        fprintf(stderr, "%s: %s at 0x%zx: cannot read the weights: %s\n", what, c->name,
                                c->offset, foff < 0 ? "source not found" : err.msg);
                        free(vals);
                        ok = false;
                        break;
                    }
                    size_t np = sim_weight_traverse(&gv, NULL, 0);
                    int64_t *map = xcalloc(np, sizeof *map);
                    sim_weight_traverse(&gv, map, np);
                    size_t dense = (size_t)gv.ofm_depth * gv.kh * gv.kw * (dw ? 1 : gv.ifm_depth);
                    int16_t *W = xcalloc(dense, sizeof *W);
                    CHECK(mi.n_weights >= np);
                    for (size_t p = 0; p < np && p < mi.n_weights; p++)
                        if (map[p] >= 0) W[map[p]] = vals[p];
                    sim_wgeom g2 = gv;
                    g2.block_depth = b.d;
                    size_t np2 = sim_weight_traverse(&g2, NULL, 0);
                    size_t cap = np2 * 2 + 64;
                    uint8_t *enc = xcalloc(cap, 1);
                    size_t len = sa_weights(&g2, W, enc, cap);
                    CHECK(len > 0);
                    size_t at = rup(m.flash_size, 16);
                    if (at + len > flash_cap) {
                        flash_cap = (at + len) * 2;
                        m.flash = realloc(m.flash, flash_cap);
                        if (!m.flash) exit(2);
                    }
                    memset(m.flash + m.flash_size, 0, at - m.flash_size);
                    memcpy(m.flash + at, enc, len);
                    m.flash_size = at + len;
                    wreg = 0;
                    wbase = at;
                    wlen = len;
                    fs->reencoded++;
                    free(enc);
                    free(W);
                    free(map);
                    free(vals);
                }
                ws_cmd0(&ns, EU_SET_WEIGHT_REGION, wreg);
                ws_cmd1(&ns, EU_SET_WEIGHT_BASE, (uint32_t)wbase);
                ws_cmd1(&ns, EU_SET_WEIGHT_LENGTH, (uint32_t)wlen);
            }
        }
        /* the command itself, as read */
        const uint8_t *p = cop.stream + c->offset;
        ws_word(&ns, (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        if (c->is_cmd1) ws_word(&ns, c->payload);
        if (eu_cmd_is_kernel_op(c->code)) n_k++;
    }
    CHECK(ok);
    if (ok) {
        /* memory: arena with the inputs (random), fast scratch, own buffers */
        npuc_rng rng;
        npuc_rng_seed(&rng, 0x5eed);
        int n_io = op->n_in + op->n_out;
        for (int k = 2; k < n_io; k++) {
            if (k == 3) continue;
            int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            if (ti < 0) continue;
            const graph_tensor *t = &g->tensors[ti];
            if (t->arena_offset >= 0 && (size_t)t->arena_offset + t->nbytes > m.arena_size)
                m.arena_size = (size_t)t->arena_offset + t->nbytes;
        }
        m.arena = xcalloc(m.arena_size, 1);
        m.arena_init = xcalloc(m.arena_size, 1);
        m.fast_size = g->tensors[op->in[3]].nbytes;
        m.fast = xcalloc(m.fast_size, 1);
        for (int k = 2; k < n_io && k < 16; k++) {
            if (k == 3) continue;
            int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            if (ti < 0) continue;
            const graph_tensor *t = &g->tensors[ti];
            uint8_t *dst;
            if (t->arena_offset >= 0) {
                dst = m.arena_init + t->arena_offset;
            } else {
                m.own[k] = xcalloc(t->nbytes, 1);
                m.own_init[k] = xcalloc(t->nbytes, 1);
                dst = m.own_init[k];
            }
            if (k >= 4 && k < op->n_in)
                for (size_t b = 0; b < t->nbytes; b++) dst[b] = (uint8_t)npuc_rng_next(&rng);
        }
        sim_npu *npu = NULL;
        CHECK(sim_npu_create(v, NULL, &npu, &err) == NPUC_OK);
        size_t snap = fx_snapshot(&m, NULL);
        fx_trace tr[2];
        memset(tr, 0, sizeof tr);
        char msg[600];
        for (int run = 0; npu && run < 2; run++) {
            /* 0: Vela's stream, 1: ours */
            fx_trace *t = &tr[run];
            t->m = &m;
            t->snap = xcalloc(snap, 1);
            uint8_t *bytes = run ? ws_bytes(ns.w, ns.n) : NULL;
            fx_reset(&m);
            sim_npu_set_trace(npu, fx_trace_line, t);
            int r = fx_run(npu, &m, run ? bytes : cop.stream, run ? ns.n * 4 : cop.stream_size, msg, sizeof msg);
            sim_npu_set_trace(npu, NULL, NULL);
            if (r) {
                fprintf(stderr, "%s: %s stream: %s\n", what, run ? "our" : "Vela's", msg);
                fs->failures++;
                CHECK(0);
            }
            free(bytes);
        }
        CHECK_EQ_INT(tr[0].n, n_k);
        CHECK_EQ_INT(tr[1].n, n_k);
        for (size_t k = 0; k < tr[0].n && k < tr[1].n; k++) {
            fs->compared++;
            if (tr[0].hash[k] != tr[1].hash[k]) {
                fprintf(stderr, "%s: memory differs after kernel op %zu\n", what, k);
                fs->mismatches++;
                CHECK(0);
                break;
            }
        }
        for (int run = 0; run < 2; run++) {
            free(tr[run].snap);
            free(tr[run].hash);
        }
        sim_npu_free(npu);
    }
    for (int k = 0; k < 16; k++) {
        free(m.own[k]);
        free(m.own_init[k]);
    }
    free(m.arena);
    free(m.arena_init);
    free(m.fast);
    free(m.flash);
    free(ns.w);
    free(cmds);
}

static void fx_file(const char *path, fx_stats *fs)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(0);
        tfl_model_free(tm);
        return;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (!interp_is_ethosu_op(op) || op->n_in < 4) continue;
        char what[1200];
        const char *base = strrchr(path, '/');
        snprintf(what, sizeof what, "%s op %d", base ? base + 1 : path, i);
        fx_op(what, g, op, fs);
    }
    graph_free(g);
    tfl_model_free(tm);
}

/* ---------------------------------------------------- (c) synthetic sweep */

/* The op record eu_block's estimate assumes (every tensor in region 1,
 * one byte per weight, no padding), for the brute force. */
static sim_op_info t_info(const eu_block_req *r, unsigned w, unsigned h, unsigned d)
{
    sim_op_info o;
    memset(&o, 0, sizeof o);
    bool ew = r->kind == SIM_K_ELEMENTWISE;
    o.kind = r->kind;
    o.mode = r->mode;
    o.ofm_w = r->ofm_w;
    o.ofm_h = r->ofm_h;
    o.ofm_d = r->ofm_d;
    o.kernel_w = ew ? 1 : r->kernel_w;
    o.kernel_h = ew ? 1 : r->kernel_h;
    o.stride_x = ew ? 1 : r->stride_x;
    o.stride_y = ew ? 1 : r->stride_y;
    o.upscale = !ew && r->upscale;
    uint32_t iw = (r->ofm_w - 1) * o.stride_x + o.kernel_w, ih = (r->ofm_h - 1) * o.stride_y + o.kernel_h;
    if (o.upscale) {
        iw = (iw + 1) / 2;
        ih = (ih + 1) / 2;
    }
    o.ifm_w = ew ? r->ofm_w : iw;
    o.ifm_h = ew ? r->ofm_h : ih;
    o.ifm_d = ew ? r->ofm_d : r->ifm_d;
    o.blk_w = w;
    o.blk_h = h;
    o.blk_d = d;
    o.ifm_bits = o.ifm2_bits = r->ifm_bits;
    o.ofm_bits = r->ofm_bits;
    o.ifm_format = r->ifm_format;
    o.ofm_format = r->ofm_format;
    o.ifm2_tensor = ew && r->ifm2_tensor;
    if (o.ifm2_tensor) o.ifm2_bytes = (uint64_t)r->ofm_w * r->ofm_h * r->ofm_d * (r->ifm_bits / 8);
    o.act_func = r->uses_lut ? 16 : 0;
    o.acc_bits = r->acc40 ? 40 : 32;
    o.ifm_region = o.ifm2_region = o.ofm_region = o.weight_region = o.scale_region = 1;
    if (r->kind == SIM_K_CONV) o.weight_bytes = (uint64_t)r->ofm_d * r->ifm_d * o.kernel_w * o.kernel_h;
    if (r->kind == SIM_K_DEPTHWISE) o.weight_bytes = (uint64_t)r->ofm_d * o.kernel_w * o.kernel_h;
    if (r->kind == SIM_K_CONV || r->kind == SIM_K_DEPTHWISE) o.scale_bytes = rup((uint64_t)r->ofm_d * 10, 16);
    o.dma_src_region = o.dma_dst_region = 0xFF;
    return o;
}

/* eu_block's objective: the cycles with every tensor in SRAM plus, when the
 * default system's arena is not SRAM (U65: DRAM), the cycles there. */
static void t_cost(const eu_block_req *r, unsigned w, unsigned h, unsigned d, uint64_t *cyc, uint64_t *comp)
{
    sim_system def, sram;
    target_default_sim(r->variant, &def);
    sram = def;
    for (int i = 0; i < 8; i++) sram.region_port[i] = 0;
    *cyc = *comp = 0;
    for (int p = 0; p < (def.region_port[1] ? 2 : 1); p++) {
        sim_op_info o = t_info(r, w, h, d);
        sim_perf_estimate(r->variant, p ? &def : &sram, &o, 1);
        *cyc += o.cycles;
        *comp += o.cycles_compute;
    }
}

/* Fewest cycles over every legal fitting block (then fewest compute
 * cycles); *n_legal gets the number of fitting blocks. */
static uint64_t brute_best(const eu_block_req *r, size_t *n_legal, unsigned *bw, unsigned *bh, unsigned *bd)
{
    const t_arch *a = &T_ARCH[r->variant];
    uint64_t best = UINT64_MAX, best_c = UINT64_MAX;
    *n_legal = 0;
    unsigned mw = umin(rup(r->ofm_w, a->ubw), 64), mh = umin(rup(r->ofm_h, a->ubh), 32);
    unsigned md = umin(rup(r->ofm_d, a->ubd), 128);
    char why[128];
    for (unsigned d = a->ubd; d <= md; d += a->ubd) {
        for (unsigned h = a->ubh; h <= mh; h += a->ubh)
            for (unsigned w = a->ubw; w <= mw; w += a->ubw) {
                if (!t_block_legal(r, w, h, d, why, sizeof why)) continue;
                if (!t_layout(r, r->upscale ? 1 : 0, w, h, d).fits) continue;
                (*n_legal)++;
                uint64_t cyc, comp;
                t_cost(r, w, h, d, &cyc, &comp);
                if (cyc < best || (cyc == best && comp < best_c)) {
                    best = cyc;
                    best_c = comp;
                    *bw = w;
                    *bh = h;
                    *bd = d;
                }
            }
    }
    return best;
}

static uint64_t t_cycles(const eu_block_req *r, unsigned w, unsigned h, unsigned d)
{
    uint64_t cyc, comp;
    t_cost(r, w, h, d, &cyc, &comp);
    return cyc;
}

typedef struct sweep_stats {
    size_t cases, ok, unsupported, bad, brute, brute_worse;
    double brute_worst, brute_sum;
    char brute_worst_what[256];
} sweep_stats;

static void sweep_one_mode(const eu_block_req *r, unsigned up_mode, sweep_stats *st, bool brute)
{
    npuc_err err = {0};
    eu_block b;
    char why[256];
    st->cases++;
    int rc = eu_block_choose(r, &b, &err);
    if (rc == NPUC_E_UNSUPPORTED) {
        st->unsupported++;
        /* really nothing fits: the smallest legal block is too big */
        const t_arch *a = &T_ARCH[r->variant];
        unsigned d = r->ofm_d <= 16 ? rup(r->ofm_d, a->ubd) : 16;
        t_layout_t L = t_layout(r, r->upscale ? 1 : 0, a->ubw, a->ubh, d);
        CHECK(!L.fits);
        CHECK_STR_CONTAINS(err.msg, "no OFM block fits");
        return;
    }
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    st->ok++;
    if (!t_check_choice(r, up_mode, &b, why, sizeof why)) {
        st->bad++;
        CHECK(0);
        fprintf(stderr, "  %s kind %d mode %u ofm %ux%ux%u ifm_d %u k %ux%u s %ux%u bits %u: %ux%ux%u: %s\n",
                eu_variant_name(r->variant), (int)r->kind, r->mode, r->ofm_w, r->ofm_h, r->ofm_d,
                r->ifm_d, r->kernel_w, r->kernel_h, r->stride_x, r->stride_y, r->ifm_bits, b.w, b.h, b.d,
                why);
    }
    if (brute) {
        size_t n_legal;
        unsigned bw = 0, bh = 0, bd = 0;
        uint64_t best = brute_best(r, &n_legal, &bw, &bh, &bd);
        uint64_t ours = t_cycles(r, b.w, b.h, b.d);
        double ratio = best ? (double)ours / (double)best : 1.0;
        st->brute++;
        st->brute_sum += ratio;
        if (ours > best) st->brute_worse++;
        if (ratio > st->brute_worst) {
            st->brute_worst = ratio;
            snprintf(st->brute_worst_what, sizeof st->brute_worst_what,
                     "%s kind %d ofm %ux%ux%u ifm_d %u k %ux%u s %u bits %u: ours %ux%ux%u %llu, best %ux%ux%u %llu",
                     eu_variant_name(r->variant), (int)r->kind, r->ofm_w, r->ofm_h, r->ofm_d, r->ifm_d,
                     r->kernel_w, r->kernel_h, r->stride_x, r->ifm_bits, b.w, b.h, b.d,
                     (unsigned long long)ours, bw, bh, bd, (unsigned long long)best);
        }
    }
}

static void sweep_one(const eu_block_req *r, sweep_stats *st, bool brute)
{
    sweep_one_mode(r, r->upscale ? 1 : 0, st, brute);
}

static eu_block_req base_req(eu_variant v, sim_op_kind kind)
{
    eu_block_req r;
    memset(&r, 0, sizeof r);
    r.variant = v;
    r.kind = kind;
    r.kernel_w = r.kernel_h = 1;
    r.stride_x = r.stride_y = 1;
    r.ifm_bits = r.ofm_bits = 8;
    return r;
}

static bool pkf_heuristic(uint32_t I, uint32_t kw, uint32_t kh, unsigned bits)
{
    if (I <= 8) return true;
    unsigned k = kw * kh;
    double depth_util = (double)I / rup(I, bits == 8 ? 32 : 16);
    double part_util = (double)I * k / ((double)rup(I, 8) * rup(k, bits == 8 ? 4 : 2));
    return part_util > depth_util;
}

static void test_sweep(void)
{
    static const uint32_t sizes[][2] = {{1, 1}, {5, 3}, {16, 16}, {33, 17}, {112, 112}, {1000, 1}};
    static const uint32_t kernels[] = {1, 2, 3, 5, 7};
    static const uint32_t depths[] = {1, 8, 24, 64, 100, 256, 1024};
    static const uint32_t ifm_depths[] = {3, 32, 1024};
    sweep_stats st;
    memset(&st, 0, sizeof st);
    size_t idx = 0;
    for (int v = EU_U55_32; v <= EU_U65_512; v++) {
        /* conv */
        for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++)
            for (unsigned s = 1; s <= 3; s++)
                for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++)
                    for (size_t ii = 0; ii < sizeof ifm_depths / sizeof ifm_depths[0]; ii++)
                        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                            for (unsigned bits = 8; bits <= 16; bits += 8) {
                                eu_block_req r = base_req((eu_variant)v, SIM_K_CONV);
                                r.kernel_w = r.kernel_h = kernels[ki];
                                if (ki == 1) r.kernel_h = 3;   /* one non-square kernel */
                                r.stride_x = r.stride_y = (uint8_t)s;
                                r.ofm_d = depths[di];
                                r.ifm_d = ifm_depths[ii];
                                r.ofm_w = sizes[si][0];
                                r.ofm_h = sizes[si][1];
                                r.ifm_bits = r.ofm_bits = (uint8_t)bits;
                                r.acc40 = bits == 16;
                                r.part_kernel_first = pkf_heuristic(r.ifm_d, r.kernel_w, r.kernel_h, bits);
                                r.ifm_format = r.ofm_format = (uint8_t)(idx & 1);
                                sweep_one(&r, &st, idx++ % 97 == 0);
                            }
        /* depthwise, pooling */
        for (int kind = 0; kind < 4; kind++)
            for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++)
                for (unsigned s = 1; s <= 3; s++)
                    for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++)
                        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                            for (unsigned bits = 8; bits <= 32; bits *= 2) {
                                if (kind == 0 && bits == 32) continue;
                                eu_block_req r = base_req((eu_variant)v, kind == 0 ? SIM_K_DEPTHWISE : SIM_K_POOL);
                                r.mode = (uint8_t)(kind == 0 ? 0 : kind - 1);
                                r.kernel_w = r.kernel_h = kernels[ki];
                                r.stride_x = r.stride_y = (uint8_t)s;
                                r.ofm_d = r.ifm_d = depths[di];
                                if (r.mode == 2 && kind) { r.ofm_d = 1; r.kernel_w = r.kernel_h = 1; }
                                r.ofm_w = sizes[si][0];
                                r.ofm_h = sizes[si][1];
                                r.ifm_bits = (uint8_t)bits;
                                r.ofm_bits = (uint8_t)(bits == 32 ? 8 : bits);
                                r.acc40 = kind == 0 && bits == 16;
                                r.uses_lut = (idx % 5) == 0;
                                r.ifm_format = r.ofm_format = (uint8_t)(idx & 1);
                                sweep_one(&r, &st, idx++ % 97 == 0);
                            }
        /* elementwise */
        static const uint8_t modes[] = {0, 1, 2, 3, 5, 6, 7, 8};
        for (size_t mi = 0; mi < sizeof modes; mi++)
            for (int tensor = 0; tensor < 2; tensor++)
                for (int lut = 0; lut < 2; lut++)
                    for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++)
                        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                            for (unsigned bits = 8; bits <= 32; bits *= 2) {
                                eu_block_req r = base_req((eu_variant)v, SIM_K_ELEMENTWISE);
                                r.mode = modes[mi];
                                bool binary = !(r.mode == 5 || r.mode == 6 || r.mode == 7);
                                r.ifm2_tensor = binary && tensor;
                                r.uses_lut = lut;
                                r.ofm_d = r.ifm_d = depths[di];
                                r.ofm_w = sizes[si][0];
                                r.ofm_h = sizes[si][1];
                                r.ifm_bits = r.ofm_bits = (uint8_t)bits;
                                r.acc40 = bits == 16 && (idx & 2);
                                r.ifm_format = r.ofm_format = (uint8_t)(idx & 1);
                                sweep_one(&r, &st, idx++ % 97 == 0);
                            }
        /* upscaled (transpose conv, NEAREST resize) and dilated kernels */
        for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                eu_block_req r = base_req((eu_variant)v, SIM_K_CONV);
                r.kernel_w = r.kernel_h = kernels[ki];
                r.upscale = true;
                r.ofm_w = sizes[si][0] * 2;
                r.ofm_h = sizes[si][1] * 2;
                r.ofm_d = 48;
                r.ifm_d = 40;
                r.part_kernel_first = pkf_heuristic(r.ifm_d, r.kernel_w, r.kernel_h, 8);
                sweep_one_mode(&r, 2, &st, idx++ % 7 == 0);   /* transpose conv: ZEROS */
                sweep_one_mode(&r, 1, &st, idx++ % 7 == 0);
                r.upscale = false;
                r.kernel_w = r.kernel_h = 2 * kernels[ki] + 1;   /* dilation 2 */
                sweep_one(&r, &st, idx++ % 7 == 0);
                eu_block_req p = base_req((eu_variant)v, SIM_K_POOL);
                p.mode = 1;
                p.upscale = true;
                p.ofm_w = r.ofm_w;
                p.ofm_h = r.ofm_h;
                p.ofm_d = p.ifm_d = 64;
                sweep_one(&p, &st, idx++ % 7 == 0);
            }
    }
    printf("sweep: %zu requests: %zu chosen, %zu unsupported, %zu rule violations\n", st.cases, st.ok,
           st.unsupported, st.bad);
    printf("sweep: pruned search vs brute force over every legal block (simulator cycle model, %zu cases): "
           "mean ratio %.4f, worst %.4f, worse in %zu\n", st.brute, st.brute ? st.brute_sum / (double)st.brute : 1.0,
           st.brute_worst, st.brute_worse);
    if (st.brute_worst > 1.0) printf("  worst: %s\n", st.brute_worst_what);
    CHECK_EQ_INT(st.bad, 0);
    CHECK(st.ok > st.cases * 9 / 10);
    CHECK(st.brute_worst <= 1.05);
    CHECK(st.brute_sum <= (double)st.brute * 1.005);
}

static void test_errors(void)
{
    npuc_err err = {0};
    eu_block b;
    memset(&b, 0x5A, sizeof b);
    eu_block keep = b;
    /* 32-bit conv, 8x8 kernel, 32-deep IFM blocks on a 16-bank U55-32: the
     * double-buffered 8x8x32x4-byte IFM block alone needs 16 banks */
    eu_block_req r = base_req(EU_U55_32, SIM_K_CONV);
    r.ofm_w = r.ofm_h = 10;
    r.ofm_d = 16;
    r.ifm_d = 32;
    r.kernel_w = r.kernel_h = 8;
    r.ifm_bits = 32;
    CHECK_EQ_INT(eu_block_choose(&r, &b, &err), NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "no OFM block fits the 16-bank SHRAM of U55-32");
    CHECK_STR_CONTAINS(err.msg, "CONV");
    CHECK(memcmp(&b, &keep, sizeof b) == 0);
    printf("unsupported: %s\n", err.msg);
    /* bad requests */
    eu_block_req x = base_req(EU_U55_256, SIM_K_CONV);
    x.ofm_w = x.ofm_h = x.ofm_d = x.ifm_d = 8;
    CHECK_EQ_INT(eu_block_choose(&x, &b, &err), NPUC_OK);
    x.ofm_w = 0;
    CHECK_EQ_INT(eu_block_choose(&x, &b, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "OFM 0x8x8");
    x.ofm_w = 8;
    x.kind = SIM_K_DMA;
    CHECK_EQ_INT(eu_block_choose(&x, &b, &err), NPUC_E_INVALID);
    x.kind = SIM_K_CONV;
    x.ifm_bits = 12;
    CHECK_EQ_INT(eu_block_choose(&x, &b, &err), NPUC_E_INVALID);
    x.ifm_bits = 8;
    x.stride_x = 0;
    CHECK_EQ_INT(eu_block_choose(&x, &b, &err), NPUC_E_INVALID);
    x.stride_x = 1;
    x.variant = (eu_variant)9;
    CHECK_EQ_INT(eu_block_choose(&x, &b, &err), NPUC_E_INVALID);
    /* a LUT user keeps the last two banks of a 16-bank part free; a non-user may take them */
    eu_block_req e = base_req(EU_U55_64, SIM_K_ELEMENTWISE);
    e.ofm_w = e.ofm_h = 64;
    e.ofm_d = 64;
    e.ifm2_tensor = true;
    CHECK_EQ_INT(eu_block_choose(&e, &b, &err), NPUC_OK);
    CHECK_EQ_INT(b.ifm_ib_end, 16);
    CHECK_EQ_INT(b.lut_start_bank, 14);
    e.uses_lut = true;
    CHECK_EQ_INT(eu_block_choose(&e, &b, &err), NPUC_OK);
    CHECK_EQ_INT(b.ifm_ib_end, 14);
    CHECK_EQ_INT(b.ab_start, 14);
    CHECK(b.ifm2_ib_start >= 2 && 2 * (b.ifm2_ib_start - 2) <= 12);
}

/* --------------------------------- synthetic ops on the NPU, two blocks */

/* One op run with a given block on the virtual NPU; returns the OFM
 * bytes (malloc'd) or NULL on a failed run. */
typedef struct syn_op {
    eu_variant v;
    uint16_t op, mode;
    uint32_t ih, iw, ic, oh, ow, oc, k, stride;
    bool ifm2;
    unsigned bits;
} syn_op;

static uint8_t *syn_run(const syn_op *o, const eu_block *b, const int32_t *a, const int32_t *a2,
                        const int16_t *W, size_t *osz_out)
{
    bool ew = o->op == EU_OP_ELEMENTWISE, dw = o->op == EU_OP_DEPTHWISE, conv = o->op == EU_OP_CONV;
    sa_fm ifm = sa_fm_make(1, 0, o->ih, o->iw, o->ic, (uint8_t)o->bits, true, SA_NHWC);
    sa_fm ifm2 = sa_fm_make(2, 0, o->oh, o->ow, o->oc, (uint8_t)o->bits, true, SA_NHCWB16);
    sa_fm ofm = sa_fm_make(3, 0, o->oh, o->ow, o->oc, (uint8_t)o->bits, true, SA_NHCWB16);
    ofm.scale_mode = (conv || dw) ? 0 : 1;
    size_t isz = sa_fm_extent(&ifm) + 64, i2sz = sa_fm_extent(&ifm2) + 64, osz = sa_fm_extent(&ofm) + 64;
    uint8_t *ib = xcalloc(isz, 1), *i2b = xcalloc(i2sz, 1), *ob = xcalloc(osz, 1);
    memset(ob, 0xA5, osz);
    sa_fm_write(ib, &ifm, a);
    if (o->ifm2) sa_fm_write(i2b, &ifm2, a2);
    size_t ccap = 64;
    sim_wgeom g;
    if (conv || dw) {
        g = sa_wgeom(o->v, o->oc, o->ic, o->k, o->k, b->d, 1, 1, (uint8_t)o->bits, false, dw);
        ccap += sim_weight_traverse(&g, NULL, 0) * 2 + 64 + sa_scale_len(o->oc);
    }
    uint8_t *cb = xcalloc(ccap, 1);
    size_t wlen = 0, c_s = 0;
    sa_stream s;
    sa_init(&s);
    if (conv || dw) {
        wlen = sa_weights(&g, W, cb, ccap);
        c_s = rup(wlen, 16);
        for (uint32_t c = 0; c < o->oc; c++)
            sa_scale_rec(cb + c_s + 10 * c, (int64_t)c * 7 - 20, 1u << 30, o->bits == 16 ? 36 : 40);
    }
    sa_set_ifm(&s, &ifm);
    if (!ew) {
        unsigned pad = o->k / 2;
        sa_set_pad(&s, pad, pad, sa_pad_after(o->ih, o->oh, o->k, o->stride, 1, pad),
                   sa_pad_after(o->iw, o->ow, o->k, o->stride, 1, pad));
        sa_set_upscale(&s, 0);
    }
    sa_set_ofm(&s, &ofm);
    if (!ew) sa_set_kernel(&s, o->k, o->k, o->stride, o->stride, 1, 1, false);
    if (conv || dw) {
        sa_set_weights(&s, 0, 0, wlen);
        sa_set_scales(&s, 0, c_s, sa_scale_len(o->oc));
    }
    sa_set_ofm_scale(&s, 1u << 30, 31);
    if (ew) {
        sa_set_opa_scale(&s, 1, 0);
        sa_set_opb_scale(&s, 1);
    }
    int32_t lo = o->bits == 16 ? -32768 : -128, hi = o->bits == 16 ? 32767 : 127;
    sa_set_act(&s, 0, 0, lo, hi);
    sa_set_block(&s, b->w, b->h, b->d);
    sa_cmd0(&s, EU_SET_IFM_IB_END, b->ifm_ib_end);
    sa_cmd0(&s, EU_SET_AB_START, b->ab_start);
    sa_cmd0(&s, EU_SET_ACC_FORMAT, b->acc_format);
    sa_cmd0(&s, EU_SET_BLOCKDEP, 0);
    if (ew) {
        if (o->ifm2) {
            sa_set_ifm2(&s, &ifm2);
            sa_cmd0(&s, EU_SET_IFM2_IB_START, b->ifm2_ib_start);
            sa_set_bcast(&s, 0);
        } else {
            sa_set_ifm2_scalar(&s, 3, (uint8_t)o->bits, true, 0);
            sa_set_bcast(&s, SA_BC_SCALAR);
        }
    }
    sa_cmd0(&s, o->op, o->mode);
    sa_stop(&s);
    sa_npu m;
    uint32_t st = 0;
    if (sa_open(&m, o->v) == 0) {
        sa_region(&m, 0, cb, ccap, false);
        sa_region(&m, 1, ib, isz, true);
        sa_region(&m, 2, i2b, i2sz, true);
        sa_region(&m, 3, ob, osz, true);
        st = sa_run(&m, &s);
        if (!sa_status_ok(st)) fprintf(stderr, "  synthetic run failed: %s\n", sim_npu_error(m.npu));
        sa_close(&m);
    }
    sa_free(&s);
    free(ib);
    free(i2b);
    free(cb);
    if (!sa_status_ok(st)) {
        free(ob);
        return NULL;
    }
    *osz_out = osz;
    return ob;
}

static void test_synthetic_runs(void)
{
    size_t runs = 0, same = 0;
    npuc_rng rng;
    npuc_rng_seed(&rng, 42);
    for (int v = EU_U55_32; v <= EU_U65_512; v++) {
        static const struct { uint16_t op, mode; uint32_t k, stride; bool ifm2; unsigned bits; } C[] = {
            {EU_OP_CONV, 0, 3, 1, false, 8},   {EU_OP_CONV, 0, 1, 1, false, 16},
            {EU_OP_CONV, 0, 5, 2, false, 8},   {EU_OP_DEPTHWISE, 0, 3, 2, false, 8},
            {EU_OP_DEPTHWISE, 0, 3, 1, false, 16}, {EU_OP_POOL, 0, 3, 2, false, 8},
            {EU_OP_POOL, 1, 3, 1, false, 16},  {EU_OP_ELEMENTWISE, 1, 1, 1, true, 8},
            {EU_OP_ELEMENTWISE, 0, 1, 1, false, 16}, {EU_OP_ELEMENTWISE, 4, 1, 1, true, 16},
        };
        for (size_t ci = 0; ci < sizeof C / sizeof C[0]; ci++) {
            syn_op o;
            memset(&o, 0, sizeof o);
            o.v = (eu_variant)v;
            o.op = C[ci].op;
            o.mode = C[ci].mode;
            o.k = C[ci].k;
            o.stride = C[ci].stride;
            o.ifm2 = C[ci].ifm2;
            o.bits = C[ci].bits;
            bool conv = o.op == EU_OP_CONV, ew = o.op == EU_OP_ELEMENTWISE;
            o.oh = 13 + (uint32_t)ci % 3;
            o.ow = 21 + (uint32_t)v;
            o.oc = conv ? 40 : 36;
            o.ic = conv ? 20 : o.oc;
            o.ih = ew ? o.oh : (o.oh - 1) * o.stride + 1;
            o.iw = ew ? o.ow : (o.ow - 1) * o.stride + 1;
            eu_block_req r = base_req(o.v, conv ? SIM_K_CONV : o.op == EU_OP_DEPTHWISE ? SIM_K_DEPTHWISE
                                               : o.op == EU_OP_POOL ? SIM_K_POOL : SIM_K_ELEMENTWISE);
            r.mode = (uint8_t)o.mode;
            r.ofm_w = o.ow;
            r.ofm_h = o.oh;
            r.ofm_d = o.oc;
            r.ifm_d = o.ic;
            r.kernel_w = r.kernel_h = ew ? 1 : o.k;
            r.stride_x = r.stride_y = (uint8_t)o.stride;
            r.ifm_bits = r.ofm_bits = (uint8_t)o.bits;
            r.acc40 = (conv || o.op == EU_OP_DEPTHWISE) && o.bits == 16;
            r.ifm2_tensor = o.ifm2;
            r.ifm_format = 0;
            r.ofm_format = 1;
            npuc_err err = {0};
            eu_block ours, small;
            CHECK_EQ_INT(eu_block_choose(&r, &ours, &err), NPUC_OK);
            /* another legal block: one micro-block wide and high, 16 deep */
            const t_arch *a = &T_ARCH[v];
            unsigned sd = o.oc <= 16 ? rup(o.oc, a->ubd) : 16;
            t_layout_t L = t_layout(&r, 0, a->ubw, a->ubh, sd);
            CHECK(L.fits);
            small = ours;
            small.w = a->ubw;
            small.h = a->ubh;
            small.d = sd;
            small.ifm_ib_end = (uint8_t)L.ib_end;
            small.ab_start = (uint8_t)L.ab_start;
            small.ifm2_ib_start = (uint8_t)L.ib2;
            size_t ni = (size_t)o.ih * o.iw * o.ic, no = (size_t)o.oh * o.ow * o.oc;
            int32_t *in = xcalloc(ni, sizeof *in), *in2 = xcalloc(no, sizeof *in2);
            int32_t amp = o.bits == 16 ? 3000 : 100;
            for (size_t i = 0; i < ni; i++) in[i] = (int32_t)(npuc_rng_next(&rng) % (uint64_t)(2 * amp + 1)) - amp;
            for (size_t i = 0; i < no; i++) in2[i] = (int32_t)(npuc_rng_next(&rng) % (uint64_t)(2 * amp + 1)) - amp;
            size_t nw = (size_t)o.oc * o.k * o.k * o.ic;
            int16_t *W = xcalloc(nw, sizeof *W);
            for (size_t i = 0; i < nw; i++) W[i] = (int16_t)((int)(npuc_rng_next(&rng) % 255) - 127);
            size_t s1 = 0, s2 = 0;
            uint8_t *r1 = syn_run(&o, &ours, in, in2, W, &s1), *r2 = syn_run(&o, &small, in, in2, W, &s2);
            runs += 2;
            CHECK(r1 && r2);
            if (r1 && r2 && s1 == s2 && memcmp(r1, r2, s1) == 0) same++;
            else fprintf(stderr, "  %s op %zu: block %ux%ux%u and %ux%ux%u give different OFMs\n",
                         eu_variant_name(o.v), ci, ours.w, ours.h, ours.d, small.w, small.h, small.d);
            free(r1);
            free(r2);
            free(in);
            free(in2);
            free(W);
        }
    }
    printf("synthetic NPU runs: %zu ops, each with our block and a 1-micro-block block: %zu identical\n",
           runs / 2, same);
    CHECK_EQ_INT(same, runs / 2);
}

/* ------------------------------------------------------------------ main */

static void test_models(void)
{
    char buf[1024];
    const char *pd = t_shared("models/tflm/person_detect_vela.tflite", buf, sizeof buf);
    if (!pd) {
        printf("SKIP model tests: no NPUC_SHARED models\n");
        return;
    }
    reqs all = {0};
    totals t_pd;
    memset(&t_pd, 0, sizeof t_pd);
    compare_file(pd, &t_pd, &all);
    printf("cycles, our blocks vs Vela's (simulator cycle model, same op records):\n");
    print_totals("person_detect U55-256", &t_pd);
    if (t_pd.worst_ratio > 1.0) printf("    worst op: %s\n", t_pd.worst);
    CHECK(t_pd.ops >= 80);
    CHECK_EQ_INT(t_pd.vela_layout_bad, 0);
    CHECK_EQ_INT(t_pd.ours_bad, 0);
    CHECK(t_pd.ours_op <= t_pd.vela_op * 1.03);
    CHECK(t_pd.ours_tl <= t_pd.vela_tl * 1.03);

    const char *dirs[] = {"models/vela/u55-128", "models/vela/u65-256"};
    totals grand = t_pd;
    for (int di = 0; di < 2; di++) {
        char dbuf[1024];
        const char *sh = getenv("NPUC_SHARED");
        snprintf(dbuf, sizeof dbuf, "%s/%s", sh ? sh : "../shared", dirs[di]);
        file_list fl = {0};
        files_scan(&fl, dbuf);
        totals td;
        memset(&td, 0, sizeof td);
        for (size_t i = 0; i < fl.n; i++) compare_file(fl.v[i], &td, &all);
        char name[64];
        snprintf(name, sizeof name, "%s (%zu files)", dirs[di] + 12, fl.n);
        print_totals(name, &td);
        if (td.worst_ratio > 1.0) printf("    worst op: %s\n", td.worst);
        CHECK_EQ_INT(td.vela_layout_bad, 0);
        CHECK_EQ_INT(td.ours_bad, 0);
        CHECK(td.ours_op <= td.vela_op * 1.03);
        CHECK(td.ours_tl <= td.vela_tl * 1.03);
        totals_add(&grand, &td);
        files_free(&fl);
    }
    print_totals("all", &grand);
    printf("  Vela's SHRAM registers reproduced by the rules: %zu of %zu ops\n", grand.vela_layout_ok, grand.ops);

    /* timing over every real request */
    npuc_err err = {0};
    eu_block b;
    size_t calls = 0;
    double t0 = now_s(), t1;
    do {
        for (size_t i = 0; i < all.n; i++) calls += eu_block_choose(&all.v[i], &b, &err) == NPUC_OK;
        t1 = now_s();
    } while (t1 - t0 < 0.2);
    printf("timing: %.2f us per eu_block_choose (%zu real requests, %zu calls)\n", (t1 - t0) * 1e6 / (double)calls,
           all.n, calls);

    /* a fixed depth (cc_reblock keeps a weighted op's): every legal depth is
     * honoured with a legal block or refused as not fitting SHRAM; a depth
     * that is not legal for the OFM is an error naming it */
    size_t n_fixed = 0, n_nofit = 0, n_bad_fixed = 0;
    for (size_t i = 0; i < all.n; i++) {
        eu_block_req r = all.v[i];
        const t_arch *a = &T_ARCH[r.variant];
        unsigned full = rup(r.ofm_d, a->ubd);
        for (unsigned d = 16; d <= 128 + 16; d += 16) {
            unsigned want = d < r.ofm_d ? d : full;
            if (want > 128) break;
            r.fixed_d = want;
            int rc = eu_block_choose(&r, &b, &err);
            if (rc == NPUC_E_UNSUPPORTED) {
                n_nofit++;
            } else {
                char why[256];
                CHECK_EQ_INT(rc, NPUC_OK);
                CHECK_EQ_INT(b.d, want);
                if (!rc && !t_check_choice(&r, r.upscale ? 1 : 0, &b, why, sizeof why)) n_bad_fixed++;
                n_fixed++;
            }
            if (want == full) break;
        }
        if (full > 8 && r.ofm_d > 8) {
            r.fixed_d = 8;   /* less than the OFM and not a multiple of 16 */
            CHECK_EQ_INT(eu_block_choose(&r, &b, &err), NPUC_E_INVALID);
            CHECK_STR_CONTAINS(err.msg, "block depth 8 is not legal");
        }
    }
    CHECK_EQ_INT(n_bad_fixed, 0);
    CHECK(n_fixed > all.n);
    printf("fixed depths: %zu blocks chosen, %zu depths do not fit, %zu illegal blocks\n", n_fixed, n_nofit,
           n_bad_fixed);
    free(all.v);

    /* our blocks in Vela's streams, run on the virtual NPU */
    fx_stats fs;
    memset(&fs, 0, sizeof fs);
    double f0 = now_s();
    fx_file(pd, &fs);
    for (int di = 0; di < 2; di++) {
        char dbuf[1024];
        const char *sh = getenv("NPUC_SHARED");
        snprintf(dbuf, sizeof dbuf, "%s/%s", sh ? sh : "../shared", dirs[di]);
        file_list fl = {0};
        files_scan(&fl, dbuf);
        for (size_t i = 0; i < fl.n; i++) fx_file(fl.v[i], &fs);
        files_free(&fl);
    }
    printf("streams with our blocks: %zu kernel ops (%zu weight streams re-ordered for the new block "
           "depth); all writable memory after each kernel op identical to Vela's stream: %s "
           "(%zu compared, %zu mismatches, %zu failures, %.2f s)\n",
           fs.ops, fs.reencoded, fs.mismatches || fs.failures || fs.compared != fs.ops ? "NO" : "yes",
           fs.compared, fs.mismatches, fs.failures, now_s() - f0);
    CHECK(fs.ops >= 700);
    CHECK_EQ_INT(fs.compared, fs.ops);
    CHECK_EQ_INT(fs.mismatches, 0);
    CHECK_EQ_INT(fs.failures, 0);
}

static void test_sweep_timing(void)
{
    /* a typical spread of op shapes on U55-256 */
    eu_block_req rs[6];
    rs[0] = base_req(EU_U55_256, SIM_K_CONV);
    rs[0].ofm_w = rs[0].ofm_h = 112; rs[0].ofm_d = 64; rs[0].ifm_d = 32; rs[0].kernel_w = rs[0].kernel_h = 3;
    rs[1] = base_req(EU_U55_256, SIM_K_DEPTHWISE);
    rs[1].ofm_w = rs[1].ofm_h = 56; rs[1].ofm_d = rs[1].ifm_d = 128; rs[1].kernel_w = rs[1].kernel_h = 3;
    rs[2] = base_req(EU_U55_256, SIM_K_CONV);
    rs[2].ofm_w = rs[2].ofm_h = 7; rs[2].ofm_d = 1024; rs[2].ifm_d = 1024;
    rs[3] = base_req(EU_U55_256, SIM_K_ELEMENTWISE);
    rs[3].ofm_w = rs[3].ofm_h = 28; rs[3].ofm_d = 256; rs[3].ifm2_tensor = true;
    rs[4] = base_req(EU_U55_32, SIM_K_CONV);
    rs[4].ofm_w = rs[4].ofm_h = 112; rs[4].ofm_d = 64; rs[4].ifm_d = 64; rs[4].kernel_w = rs[4].kernel_h = 3;
    rs[5] = base_req(EU_U55_256, SIM_K_POOL);
    rs[5].ofm_w = rs[5].ofm_h = 56; rs[5].ofm_d = rs[5].ifm_d = 64; rs[5].kernel_w = rs[5].kernel_h = 3;
    rs[5].stride_x = rs[5].stride_y = 2;
    const char *names[] = {"conv 3x3 112x112x64", "depthwise 3x3 56x56x128", "conv 1x1 7x7x1024",
                           "add 28x28x256", "U55-32 conv 3x3 112x112x64", "max pool 3x3/2 56x56x64"};
    npuc_err err = {0};
    eu_block b;
    for (int i = 0; i < 6; i++) {
        size_t calls = 0;
        double t0 = now_s(), t1;
        do {
            for (int k = 0; k < 100; k++) calls += eu_block_choose(&rs[i], &b, &err) == NPUC_OK;
            t1 = now_s();
        } while (t1 - t0 < 0.05);
        CHECK_EQ_INT(eu_block_choose(&rs[i], &b, &err), NPUC_OK);
        printf("timing: %-28s -> block %2ux%2ux%3u: %.2f us per choose\n", names[i], b.w, b.h, b.d,
               (t1 - t0) * 1e6 / (double)calls);
    }
}

int main(void)
{
    test_errors();
    test_sweep();
    test_sweep_timing();
    test_synthetic_runs();
    test_models();
    TEST_MAIN_END();
}
