/* Runtime-loadable models (NPRL) end to end: every shared model is compiled
 * for two NPU variants, written by emit_reloc as a single file, a split
 * file + params file and a signed file, installed the ways an application
 * installs it (XIP, COPY, COPY|CLEAR, split XIP / COPY with the params
 * file, signed with the public key, activations in external RAM), run
 * through the ethos-u driver on the virtual NPU and compared byte for byte
 * with the reference interpreter on the source .tflite. Exec RAM is exactly
 * what get_info asks for, filled with garbage and fenced by guard bytes.
 * Also: three models side by side in one exec RAM buffer with interleaved
 * runs and a replacement install, and the instance API (io info, buffers,
 * callbacks, calls on an uninstalled instance).
 *
 * Environment: NPUC_RELOC_ALL=1 runs every model on all six variants
 * (default: two a model, rotating through the six). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"
#include "../src/driver/host/ethosu_host.h"
#include "../src/runtime/host/npurt_host.h"
#include "test_host_npus.h"
#include "npurt/npurt.h"
#include "npurt/npurt_crypto.h"
#include "npurt/reloc.h"

#include <dirent.h>
#include <stdint.h>
#include <time.h>

#define GUARD 64u                 /* bytes of 0xA5 around every RAM area install gets */
#define MAX_IO 16

static const uint8_t seed_key[32] = {
    0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
    0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
};


/* ------------------------------------------------------------ memory */

static size_t align16(size_t n) { return (n + 15) / 16 * 16; }

/* 16-byte aligned, size rounded up (aligned_alloc wants a multiple), 0xA5. */
static uint8_t *alloc16(size_t n)
{
    size_t sz = align16(n ? n : 1);
    uint8_t *p = aligned_alloc(16, sz);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", sz);
        exit(1);
    }
    memset(p, 0xA5, sz);
    return p;
}

static uint8_t *dup16(const void *src, size_t n)
{
    uint8_t *p = alloc16(n);
    if (n) memcpy(p, src, n);
    return p;
}

/* A RAM area with GUARD garbage bytes either side: install and the runs
 * must never write outside [p, p + size). */
typedef struct fenced {
    uint8_t *raw, *p;
    uint32_t size;
} fenced;

static void fenced_alloc(fenced *f, uint32_t size)
{
    f->raw = alloc16((size_t)size + 2 * GUARD);
    f->p = f->raw + GUARD;
    f->size = size;
}

static bool all_a5(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xA5) return false;
    return true;
}

/* Guards intact; the bytes between size and the 16-byte rounding count as guard. */
static bool fenced_ok(const fenced *f)
{
    return all_a5(f->raw, GUARD) && all_a5(f->p + f->size, align16((size_t)f->size + 2 * GUARD) - GUARD - f->size);
}

static void fenced_free(fenced *f)
{
    free(f->raw);
    memset(f, 0, sizeof *f);
}

static bool inside(const void *p, size_t n, const void *lo, size_t size)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)lo;
    return a >= b && a + n <= b + size;
}

/* ------------------------------------------------------------ source models */

/* A source model, its random inputs and the reference outputs for them. */
typedef struct source {
    const char *path;
    char name[64];            /* file name without .tflite: the model name */
    tfl_model *tm;
    graph *g;
    uint32_t n_in, n_out;
    uint8_t *in[MAX_IO];
    uint32_t in_n[MAX_IO];
    uint8_t *ref[MAX_IO];
    uint32_t ref_n[MAX_IO];
    int ref_status;           /* 0 ok, 1 the reference rejects the inputs, -1 error */
    uint8_t *got[MAX_IO];     /* the first runtime outputs, for the other installs */
} source;

static void fill_inputs(source *s, uint64_t seed)
{
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < s->n_in; i++) {
        const graph_tensor *t = &s->g->tensors[s->g->inputs[i]];
        s->in_n[i] = (uint32_t)t->nbytes;
        free(s->in[i]);
        s->in[i] = malloc(t->nbytes + 1);
        for (size_t k = 0; k < t->nbytes; k++) s->in[i][k] = (uint8_t)npuc_rng_range(&rng, 0, 255);
        /* float inputs: finite and small */
        if (t->dtype == GRAPH_F32)
            for (size_t k = 0; k + 4 <= t->nbytes; k += 4) {
                float f = (float)npuc_rng_range(&rng, -1000, 1000) / 1000.0f;
                memcpy(s->in[i] + k, &f, 4);
            }
        /* a TRANSPOSE_CONV output-shape input: the shape of its output, the
         * only value the reference accepts */
        for (int32_t o = 0; o < s->g->n_ops; o++) {
            const graph_op *op = &s->g->ops[o];
            if (op->opcode != TFL_OP_TRANSPOSE_CONV || op->n_in < 1 || op->in[0] != s->g->inputs[i]) continue;
            const graph_tensor *out = &s->g->tensors[op->out[0]];
            if (t->dtype == GRAPH_I32 && t->nbytes == (size_t)out->rank * 4) memcpy(s->in[i], out->shape, t->nbytes);
        }
    }
}

/* Reference outputs for the current inputs. */
static void reference(source *s)
{
    for (uint32_t i = 0; i < MAX_IO; i++) {
        free(s->ref[i]);
        free(s->got[i]);
        s->ref[i] = s->got[i] = NULL;
    }
    interp *ip = NULL;
    npuc_err err = {0};
    interp_options io;
    memset(&io, 0, sizeof io);
    s->ref_status = -1;
    if (interp_create(s->g, &io, &ip, &err)) {
        fprintf(stderr, "%s: interp_create: %s\n", s->path, err.msg);
        return;
    }
    for (uint32_t i = 0; i < s->n_in; i++)
        if (interp_set_input(ip, (int32_t)i, s->in[i], s->in_n[i], &err)) {
            fprintf(stderr, "%s: interp_set_input: %s\n", s->path, err.msg);
            interp_free(ip);
            return;
        }
    if (interp_invoke(ip, &err)) {
        s->ref_status = 1;
        interp_free(ip);
        return;
    }
    for (uint32_t i = 0; i < s->n_out; i++) {
        size_t n;
        const uint8_t *r = interp_output(ip, (int32_t)i, &n);
        s->ref[i] = malloc(n + 1);
        memcpy(s->ref[i], r, n);
        s->ref_n[i] = (uint32_t)n;
    }
    s->ref_status = 0;
    interp_free(ip);
}

static int source_open(source *s, const char *path, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    const char *base = strrchr(path, '/');
    snprintf(s->name, sizeof s->name, "%s", base ? base + 1 : path);
    char *dot = strstr(s->name, ".tflite");
    if (dot) *dot = 0;
    npuc_err err = {0};
    if (tfl_read_file(path, &s->tm, &err) || graph_import(s->tm, &s->g, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return -1;
    }
    if (s->g->n_inputs > MAX_IO || s->g->n_outputs > MAX_IO) {
        fprintf(stderr, "%s: too many inputs/outputs\n", path);
        return -1;
    }
    s->n_in = (uint32_t)s->g->n_inputs;
    s->n_out = (uint32_t)s->g->n_outputs;
    fill_inputs(s, seed);
    reference(s);
    return s->ref_status < 0 ? -1 : 0;
}

static void source_close(source *s)
{
    for (uint32_t i = 0; i < MAX_IO; i++) {
        free(s->in[i]);
        free(s->ref[i]);
        free(s->got[i]);
    }
    graph_free(s->g);
    tfl_model_free(s->tm);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ files */

/* A loadable model file (and its params file when split), 16-byte aligned. */
typedef struct relfile {
    uint8_t *file;
    uint32_t size;
    uint8_t *params;
    uint32_t params_size;
    bool split, sign;
} relfile;

static int make_relfile(const cc_model *cm, const char *name, bool split, bool sign, relfile *rf)
{
    memset(rf, 0, sizeof *rf);
    emit_reloc_options o = {.split = split, .sign_seed = sign ? seed_key : NULL};
    emit_reloc_out out;
    npuc_err err = {0};
    if (emit_reloc(cm, name, &o, &out, &err)) {
        fprintf(stderr, "%s: emit_reloc: %s\n", name, err.msg);
        return -1;
    }
    rf->file = dup16(out.file, out.file_size);
    rf->size = (uint32_t)out.file_size;
    if (split) {
        rf->params = dup16(out.params, out.params_size);
        rf->params_size = (uint32_t)out.params_size;
    }
    CHECK(split == (out.params != NULL));
    rf->split = split;
    rf->sign = sign;
    emit_reloc_out_free(&out);
    return 0;
}

static void relfile_free(relfile *rf)
{
    free(rf->file);
    free(rf->params);
    memset(rf, 0, sizeof *rf);
}

static int compile(const graph *g, eu_variant v, bool size_opt, cc_model **cm)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.optimise = size_opt ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
    npuc_err err = {0};
    if (target_default(v, &opt.sys, &err) || cc_compile(g, &opt, cm, &err)) {
        fprintf(stderr, "compile (%s): %s\n", eu_variant_name(v), err.msg);
        return -1;
    }
    return 0;
}

/* Header, get_info and every pool descriptor agree with each other and
 * with what the writer returned. */
static int check_info(const relfile *rf, const char *name, eu_variant v, npurt_reloc_info *info)
{
    int bad = t_failures;
    npurt_error e = {0};
    CHECK_EQ_INT(npurt_reloc_get_info(rf->file, rf->size, info, &e), NPURT_OK);
    if (e.code) return -1;
    const npurl_header *h = (const npurl_header *)rf->file;
    char ident[NPURL_NAME_MAX];
    emit_c_ident(name, ident, sizeof ident);
    CHECK(!strcmp(info->name, ident));
    CHECK(info->name == h->name);
    CHECK_EQ_INT(info->format_major, NPURL_VERSION_MAJOR);
    CHECK_EQ_INT(info->runtime_major, NPURT_RUNTIME_VERSION_MAJOR);
    CHECK(info->runtime_minor <= NPURT_RUNTIME_VERSION_MINOR);
    CHECK_EQ_INT(info->file_size, rf->size);
    CHECK_EQ_INT(info->flags, (rf->split ? NPURL_F_SPLIT : 0u) | (rf->sign ? NPURL_F_SIGNED : 0u));
    CHECK_EQ_INT(info->params_file_size, rf->params_size);
    if (rf->split) CHECK_EQ_INT(info->params_file_size, info->params_size);
    if (info->npu_config) {
        CHECK_EQ_INT(info->npu_config & 0xF000000Fu, eu_variant_config_word(v) & 0xF000000Fu);
        CHECK_EQ_INT(info->npu_product, eu_variant_is_u65(v) ? 1 : 0);
        static const uint32_t macs[6] = {32, 64, 128, 256, 256, 512};
        CHECK_EQ_INT(info->npu_macs, macs[v]);
        CHECK(!strcmp(npurt_reloc_npu_name(info->npu_config), eu_variant_target(v)));
    } else {
        /* no HW epochs (install checks that against the model) */
        CHECK_EQ_INT(info->npu_macs, 0);
        CHECK_EQ_INT(info->npu_id, 0);
        CHECK(!strcmp(npurt_reloc_npu_name(0), "none"));
    }
    CHECK_EQ_INT(info->cpu_flags, 0);
    CHECK_EQ_INT(info->security, NPURL_SEC_ANY);
    CHECK_EQ_INT(info->params_size, h->params_size);
    CHECK_EQ_INT(info->acts_size, h->acts_size);
    CHECK_EQ_INT(info->fast_size, h->fast_size);
    CHECK_EQ_INT(info->state_size, h->state_size);
    CHECK_EQ_INT(info->addr_size, h->addr_size);
    CHECK_EQ_INT(info->ext_ram_size, h->acts_size);
    CHECK_EQ_INT(info->code_size, rf->split ? h->model_size : h->model_size - h->params_size);
    CHECK_EQ_INT(info->ram_xip, align16(info->addr_size) + align16(info->state_size) + align16(info->fast_size) +
                                    align16(info->acts_size));
    CHECK_EQ_INT(info->ram_copy, info->ram_xip + align16(h->model_size) + (rf->split ? align16(info->params_size) : 0));
    CHECK_EQ_INT(info->n_pools, h->n_pools);
    CHECK_EQ_INT(info->n_relocs, h->n_relocs);
    CHECK(info->n_relocs > 0 && info->n_relocs <= info->addr_size / 8);
    CHECK_EQ_INT(info->n_epochs, h->n_epochs);
    CHECK(info->n_inputs >= 1 && info->n_outputs >= 1);
    /* the trailer is the digest of the body */
    uint8_t d[32];
    npurt_sha256(rf->file, rf->size - NPURL_TRAILER_SIZE, d);
    CHECK(!memcmp(d, rf->file + rf->size - NPURL_TRAILER_SIZE, 32));
    if (rf->split) {
        npurt_sha256(rf->params, rf->params_size, d);
        CHECK(!memcmp(d, h->params_sha256, 32));
    }
    /* pool descriptors: each kind once, sizes as the header says */
    uint32_t seen = 0;
    for (uint32_t i = 0; i < info->n_pools; i++) {
        npurl_pool p;
        CHECK_EQ_INT(npurt_reloc_get_mem_pool_desc(rf->file, rf->size, i, &p, &e), NPURT_OK);
        CHECK(!memcmp(&p, rf->file + h->pools_off + i * sizeof p, sizeof p));
        CHECK(memchr(p.name, 0, sizeof p.name) != NULL);
        CHECK(!(seen & (1u << p.kind)));
        seen |= 1u << p.kind;
        CHECK(p.flags & NPURL_P_RELOC);
        CHECK_EQ_INT(p.dst, 0);
        CHECK_EQ_INT(!!(p.flags & NPURL_P_UNUSED), p.size == 0);
        uint32_t want = 0;
        switch (p.kind) {
        case NPURL_K_MODEL:
            want = h->model_size;
            CHECK_EQ_INT(p.file_size, p.size);
            CHECK(p.file_off % NPURL_ALIGN == 0 && p.file_off + p.file_size <= rf->size - NPURL_TRAILER_SIZE);
            CHECK(p.flags & NPURL_P_PARAM);
            break;
        case NPURL_K_PARAMS:
            want = h->params_size;
            CHECK(p.flags & NPURL_P_EXTERNAL);
            break;
        case NPURL_K_ACTIVATIONS: want = h->acts_size; CHECK(p.flags & NPURL_P_ACTIV); break;
        case NPURL_K_FAST: want = h->fast_size; break;
        case NPURL_K_STATE: want = h->state_size; CHECK(p.flags & NPURL_P_RESET); break;
        case NPURL_K_ADDR: want = h->addr_size; CHECK(p.flags & NPURL_P_RESET); break;
        default: CHECK(0); break;
        }
        CHECK_EQ_INT(p.size, want);
        if (p.kind != NPURL_K_MODEL) CHECK(p.file_off == 0 && p.file_size == 0);
    }
    CHECK(seen & (1u << NPURL_K_MODEL) && seen & (1u << NPURL_K_ACTIVATIONS) && seen & (1u << NPURL_K_ADDR));
    CHECK_EQ_INT(!!(seen & (1u << NPURL_K_PARAMS)), rf->split);
    npurl_pool p;
    CHECK_EQ_INT(npurt_reloc_get_mem_pool_desc(rf->file, rf->size, info->n_pools, &p, &e), NPURT_E_ARG);
    return t_failures == bad ? 0 : -1;
}

/* ------------------------------------------------------------ install + run */

enum {
    F_XIP, F_COPY, F_COPY_CLEAR, F_SPLIT_XIP, F_SPLIT_COPY, F_SIGNED_XIP, F_SIGNED_COPY, F_N
};
static const char *const form_name[F_N] = {
    "XIP", "COPY", "COPY|CLEAR", "split XIP", "split COPY", "signed XIP(|CLEAR)", "signed COPY|CLEAR",
};

static struct {
    int models, compiles, files, installs[F_N], ext_installs, runs, draws_skipped, fails;
    long relocs, hw_epochs, sw_epochs;
} st;

typedef struct inst_opts {
    uint32_t mode;
    bool ext;                 /* activations in external RAM */
    bool key;                 /* require the signature */
    bool bufs;                /* set_input / set_output buffers instead of zero-copy */
    bool target;              /* give the NPU CONFIG word */
} inst_opts;

/* An installed model with the RAM it got. */
typedef struct installed {
    npurt_reloc_instance ri;
    fenced exec, ext;
    bool mapped;
} installed;

/* Pointers the runtime reads for a model, counted from the NPRT container
 * on its own: HW epochs 4 (stream, regions 0-2), CPU epochs their params,
 * scratch and persistent area when present and every operand present, then
 * every input and output. The file must carry one relocation each. */
static uint32_t expected_relocs(const npurt_model *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->h->n_epochs; i++) {
        const npurt_epoch_rec *e = &m->epochs[i];
        if (e->kind == NPURT_EPOCH_HW) {
            n += 4;
            continue;
        }
        n += 1 + (e->scratch_size != 0) + (e->persist_size != 0);
        for (uint32_t k = 0; k < (uint32_t)e->n_in + e->n_out; k++) n += m->refs[e->refs + k] >= 0;
    }
    return n + m->h->n_inputs + m->h->n_outputs;
}

/* Installs rf with exactly the RAM get_info asks for. 0 ok. */
/* Whether byte a lies in an int8 variable tensor of the installed model
 * (npurt_init resets those to their zero point). */
static bool in_int8_state(const npurt_reloc_instance *ri, const uint8_t *a)
{
    const npurt_model *m = &ri->model;
    for (uint32_t t = 0; t < m->h->n_tensors; t++) {
        const npurt_tensor_rec *r = &m->tensors[t];
        if (!(r->flags & NPURT_T_VARIABLE) || r->dtype != NPURT_DT_INT8 || r->pool >= NPURT_MAX_POOLS) continue;
        const uint8_t *base = ri->rt.base[r->pool];
        if (base && a >= base + r->offset && a < base + r->offset + r->size) return true;
    }
    return false;
}

static int install(installed *in, const relfile *rf, const npurt_reloc_info *info, const inst_opts *o, eu_variant v,
                   const char *what)
{
    memset(in, 0, sizeof *in);
    bool copy = (o->mode & 0xFFu) == NPURT_RELOC_COPY;
    uint32_t need = copy ? info->ram_copy : info->ram_xip;
    if (o->ext) need -= (uint32_t)align16(info->ext_ram_size);
    fenced_alloc(&in->exec, need);
    if (o->ext) fenced_alloc(&in->ext, info->ext_ram_size);
    npurt_reloc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec_ram = in->exec.p;
    cfg.exec_ram_size = need;
    if (o->ext) {
        cfg.ext_ram = in->ext.p;
        cfg.ext_ram_size = in->ext.size;
    }
    if (rf->split) {
        cfg.ext_params = rf->params;
        cfg.ext_params_size = rf->params_size;
    }
    cfg.mode = o->mode;
    uint8_t pub[32];
    if (o->key) {
        npurt_ed25519_public_key(seed_key, pub);
        cfg.public_key = pub;
    }
    if (o->target) cfg.npu_config = eu_variant_config_word(v);
    npurt_error e = {0};
    int rc = npurt_reloc_install(rf->file, rf->size, &cfg, &in->ri, &e);
    if (rc) {
        char msg[256];
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        fprintf(stderr, "%s: install: %s\n", what, msg);
        return -1;
    }
    int bad = t_failures;
    npurt_reloc_instance *ri = &in->ri;
    const npurl_header *h = (const npurl_header *)rf->file;
    const npurl_pool *pools = (const npurl_pool *)(rf->file + h->pools_off);
    const npurl_reloc *rel = (const npurl_reloc *)(rf->file + h->relocs_off);
    CHECK_EQ_INT(ri->installed, NPURT_RELOC_INSTALLED);
    CHECK(ri->hdr == h);
    CHECK_EQ_INT(ri->mode, o->mode);
    CHECK_EQ_INT(ri->ram_used, need);
    if (o->ext) CHECK(ri->ext_ram_used >= info->ext_ram_size && ri->ext_ram_used <= align16(info->ext_ram_size));
    CHECK_EQ_INT(ri->n_relocs, info->n_relocs);
    CHECK(fenced_ok(&in->exec));
    if (o->ext) CHECK(fenced_ok(&in->ext));
    /* every pool where the mode puts it */
    for (uint32_t i = 0; i < h->n_pools; i++) {
        const npurl_pool *p = &pools[i];
        const uint8_t *b = ri->pool_base[i];
        if (!p->size) continue;
        CHECK((uintptr_t)b % NPURL_ALIGN == 0);
        switch (p->kind) {
        case NPURL_K_MODEL:
            if (copy) {
                CHECK(inside(b, p->size, in->exec.p, need));
                CHECK(!memcmp(b, rf->file + p->file_off, p->size));
                CHECK(ri->model.blob == b);
            } else {
                CHECK(b == rf->file + p->file_off);
            }
            break;
        case NPURL_K_PARAMS:
            if (copy) {
                CHECK(inside(b, p->size, in->exec.p, need));
                CHECK(!memcmp(b, rf->params, p->size));
            } else {
                CHECK(b == rf->params);
            }
            break;
        case NPURL_K_ACTIVATIONS:
            CHECK(o->ext ? inside(b, p->size, in->ext.p, in->ext.size) : inside(b, p->size, in->exec.p, need));
            if (o->mode & NPURT_RELOC_CLEAR) {
                /* cleared, except the int8 state tensors that init resets
                 * to their zero point (as TensorFlow Lite Micro does) */
                bool zero = true;
                for (uint32_t k = 0; k < p->size; k++) zero &= b[k] == 0 || in_int8_state(ri, b + k);
                CHECK(zero);
            }
            break;
        default: {
            CHECK(inside(b, p->size, in->exec.p, need));
            if (p->flags & NPURL_P_RESET && p->kind != NPURL_K_ADDR) {
                /* zero, but the int8 variables of CPU ops (an SVDF's state
                 * in the state pool) at their zero point */
                bool zero = true;
                for (uint32_t k = 0; k < p->size; k++) zero &= b[k] == 0 || in_int8_state(ri, b + k);
                CHECK(zero);
            }
            break;
        }
        }
        /* pools do not overlap */
        for (uint32_t j = 0; j < i; j++)
            if (pools[j].size && ri->pool_base[j])
                CHECK(!((uintptr_t)b < (uintptr_t)ri->pool_base[j] + pools[j].size &&
                        (uintptr_t)ri->pool_base[j] < (uintptr_t)b + p->size));
    }
    /* the address table: relocated slots point where the relocation says,
     * the rest stay zero */
    uint32_t n_slots = h->addr_size / 8, r = 0;
    CHECK_EQ_INT(npurt_model_slots(&ri->model), n_slots);
    for (uint32_t i = 0; i < h->n_pools; i++)
        if (pools[i].kind == NPURL_K_ADDR) CHECK(ri->addr == (uint64_t *)(uintptr_t)ri->pool_base[i]);
    for (uint32_t k = 0; k < n_slots; k++) {
        if (r < h->n_relocs && rel[r].site == k * 8) {
            CHECK_EQ_INT(ri->addr[k], (uint64_t)(uintptr_t)(ri->pool_base[rel[r].pool] + rel[r].addend));
            CHECK(rel[r].addend + (uint64_t)rel[r].extent <= pools[rel[r].pool].size);
            r++;
        } else {
            CHECK_EQ_INT(ri->addr[k], 0);
        }
    }
    CHECK_EQ_INT(r, h->n_relocs);
    CHECK_EQ_INT(expected_relocs(&ri->model), h->n_relocs);
    /* target word set exactly when the model has HW epochs */
    bool hw = false;
    for (uint32_t i = 0; i < ri->model.h->n_epochs; i++) hw |= ri->model.epochs[i].kind == NPURT_EPOCH_HW;
    CHECK_EQ_INT(hw, h->npu_config != 0);
    ri->rt.drv = driver_for(v);
    npuc_err err = {0};
    if (npurt_host_map(&ri->rt, &err)) {
        fprintf(stderr, "%s: map: %s\n", what, err.msg);
        CHECK(0);
        return -1;
    }
    in->mapped = true;
    st.relocs += h->n_relocs;
    if (o->ext) st.ext_installs++;
    return t_failures == bad ? 0 : -1;
}

static void uninstall(installed *in)
{
    if (in->mapped) npurt_host_unmap(&in->ri.rt);
    npurt_reloc_uninstall(&in->ri);
    fenced_free(&in->exec);
    fenced_free(&in->ext);
    in->mapped = false;
}

static const uint8_t dt_of_graph[] = {
    [GRAPH_F32] = NPURT_DT_FLOAT32, [GRAPH_I32] = NPURT_DT_INT32, [GRAPH_U8] = NPURT_DT_UINT8,
    [GRAPH_I64] = NPURT_DT_INT64, [GRAPH_BOOL] = NPURT_DT_BOOL, [GRAPH_I16] = NPURT_DT_INT16,
    [GRAPH_I8] = NPURT_DT_INT8,
};

/* input_info / output_info against the source graph. */
static void check_io_info(npurt_reloc_instance *ri, const source *s)
{
    CHECK_EQ_INT(npurt_reloc_n_inputs(ri), s->n_in);
    CHECK_EQ_INT(npurt_reloc_n_outputs(ri), s->n_out);
    for (uint32_t d = 0; d < 2; d++) {
        uint32_t n = d ? s->n_out : s->n_in;
        for (uint32_t i = 0; i < n; i++) {
            npurt_reloc_io_info io;
            int rc = d ? npurt_reloc_output_info(ri, i, &io) : npurt_reloc_input_info(ri, i, &io);
            CHECK_EQ_INT(rc, NPURT_OK);
            if (rc) continue;
            const graph_tensor *t = &s->g->tensors[d ? s->g->outputs[i] : s->g->inputs[i]];
            uint32_t sz = 0;
            void *data = d ? npurt_reloc_output(ri, i, &sz) : npurt_reloc_input(ri, i, &sz);
            CHECK(io.name && !strcmp(io.name, t->name ? t->name : ""));
            CHECK(io.data == data && data != NULL);
            CHECK_EQ_INT(io.size, sz);
            CHECK_EQ_INT(io.size, t->nbytes);
            CHECK_EQ_INT(io.dtype, dt_of_graph[t->dtype]);
            CHECK_EQ_INT(io.rank, t->rank);
            for (int32_t k = 0; k < t->rank && k < (int32_t)NPURT_MAX_RANK; k++) CHECK_EQ_INT(io.shape[k], t->shape[k]);
            if (t->q.n == 1) {
                CHECK(io.scale == t->q.scale[0]);
                CHECK_EQ_INT(io.zero_point, t->q.zero_point[0]);
            }
        }
        npurt_reloc_io_info io;
        CHECK_EQ_INT(d ? npurt_reloc_output_info(ri, n, &io) : npurt_reloc_input_info(ri, n, &io), NPURT_E_ARG);
        CHECK(!(d ? npurt_reloc_output(ri, n, NULL) : npurt_reloc_input(ri, n, NULL)));
    }
}

/* Sets the inputs, runs once, compares with the reference and with the
 * outputs of earlier installs. 0 ok, 1 skipped draw, -1 failure. */
static int run_compare(npurt_reloc_instance *ri, const fenced *f1, const fenced *f2, source *s, bool bufs,
                       const char *what)
{
    uint8_t *outb[MAX_IO] = {0};
    for (uint32_t i = 0; i < s->n_in; i++) {
        uint32_t n = 0;
        uint8_t *d = npurt_reloc_input(ri, i, &n);
        if (!d || n != s->in_n[i]) {
            fprintf(stderr, "%s: input %u: %u bytes, the source has %u\n", what, i, n, s->in_n[i]);
            return -1;
        }
        if (bufs) CHECK_EQ_INT(npurt_reloc_set_input(ri, i, s->in[i]), NPURT_OK);
        else memcpy(d, s->in[i], n);
    }
    if (bufs)
        for (uint32_t i = 0; i < s->n_out; i++) {
            uint32_t n = 0;
            npurt_reloc_output(ri, i, &n);
            outb[i] = malloc(n ? n : 1);
            memset(outb[i], 0x5A, n);
            CHECK_EQ_INT(npurt_reloc_set_output(ri, i, outb[i]), NPURT_OK);
        }
    npurt_epoch_profile prof[256];
    ri->rt.profile = prof;
    ri->rt.profile_cap = 256;
    ri->rt.wait = st.runs % 2 ? NPURT_WAIT_POLL : NPURT_WAIT_IRQ;
    int rc = npurt_reloc_run(ri);
    st.runs++;
    int result = 0;
    if (rc) {
        if (rc == NPURT_E_KERNEL && s->ref_status == 1) {
            st.draws_skipped++;
            result = 1;
        } else {
            char msg[256], npu[256] = "";
            npurt_host_error_text(&ri->model, &ri->rt.err, msg, sizeof msg);
            for (int v = 0; v < 6; v++)
                if (ri->rt.drv == &drvs[v]) ethosu_host_npu_error(npus[v], npu, sizeof npu);
            fprintf(stderr, "%s: run: %s %s\n", what, msg, npu);
            result = -1;
        }
    } else {
        for (uint32_t i = 0; i < ri->model.h->n_epochs && i < 256; i++) {
            if (ri->model.epochs[i].kind == NPURT_EPOCH_HW) {
                st.hw_epochs++;
                if (!prof[i].npu_cycles) {
                    fprintf(stderr, "%s: HW epoch %u: PMU cycle count 0\n", what, i);
                    result = -1;
                }
            } else {
                st.sw_epochs++;
            }
        }
        for (uint32_t i = 0; i < s->n_out; i++) {
            uint32_t n = 0;
            const uint8_t *got = npurt_reloc_output(ri, i, &n);
            if (bufs && memcmp(outb[i], got, n)) {
                fprintf(stderr, "%s: output %u: set_output buffer differs from the output\n", what, i);
                result = -1;
            }
            if (s->ref_status == 0 && (n != s->ref_n[i] || memcmp(got, s->ref[i], n))) {
                uint32_t k = 0;
                while (k < n && k < s->ref_n[i] && got[k] == s->ref[i][k]) k++;
                fprintf(stderr, "%s: output %u differs at byte %u of %u (runtime %d, reference %d)\n", what, i, k,
                        s->ref_n[i], k < n ? got[k] : -1, k < s->ref_n[i] ? s->ref[i][k] : -1);
                result = -1;
            }
            /* identical across installs (also where the reference rejects) */
            if (!s->got[i]) {
                s->got[i] = malloc(n + 1);
                memcpy(s->got[i], got, n);
            } else if (memcmp(s->got[i], got, n)) {
                fprintf(stderr, "%s: output %u differs from an earlier install's\n", what, i);
                result = -1;
            }
        }
    }
    if (bufs) {
        for (uint32_t i = 0; i < s->n_in; i++) npurt_reloc_set_input(ri, i, NULL);
        for (uint32_t i = 0; i < s->n_out; i++) npurt_reloc_set_output(ri, i, NULL);
    }
    for (uint32_t i = 0; i < s->n_out; i++) free(outb[i]);
    ri->rt.profile = NULL;
    ri->rt.profile_cap = 0;
    if ((f1 && !fenced_ok(f1)) || (f2 && !fenced_ok(f2))) {
        fprintf(stderr, "%s: a run wrote outside the RAM given\n", what);
        result = -1;
    }
    return result;
}

/* Install with one form, run, compare, uninstall. */
static void try_form(source *s, const relfile *rf, const npurt_reloc_info *info, int form, const inst_opts *o,
                     eu_variant v)
{
    char what[256];
    snprintf(what, sizeof what, "%s (%s, %s%s)", s->name, eu_variant_name(v), form_name[form], o->ext ? ", ext RAM" : "");
    installed in;
    int rc = install(&in, rf, info, o, v, what);
    st.installs[form]++;
    if (!rc) {
        check_io_info(&in.ri, s);
        rc = run_compare(&in.ri, &in.exec, o->ext ? &in.ext : NULL, s, o->bufs, what) < 0 ? -1 : 0;
    }
    if (rc) st.fails++;
    uninstall(&in);
}

/* The signature is checked: another key and an unsigned file are refused
 * before install writes a byte. */
static void check_signature_refusals(const relfile *signed_rf, const relfile *plain, const npurt_reloc_info *info)
{
    fenced ram;
    fenced_alloc(&ram, info->ram_copy);
    uint8_t other[32], pub[32];
    memcpy(other, seed_key, 32);
    other[0] ^= 1;
    npurt_ed25519_public_key(other, pub);
    npurt_reloc_config cfg = {.exec_ram = ram.p, .exec_ram_size = ram.size, .mode = NPURT_RELOC_COPY,
                              .public_key = pub};
    if (signed_rf->split) {
        cfg.ext_params = signed_rf->params;
        cfg.ext_params_size = signed_rf->params_size;
    }
    npurt_reloc_instance ri;
    npurt_error e = {0};
    CHECK_EQ_INT(npurt_reloc_install(signed_rf->file, signed_rf->size, &cfg, &ri, &e), NPURT_E_SIGNATURE);
    CHECK(ri.installed != NPURT_RELOC_INSTALLED);
    npurt_ed25519_public_key(seed_key, pub);
    cfg.ext_params = NULL;
    cfg.ext_params_size = 0;
    CHECK_EQ_INT(npurt_reloc_install(plain->file, plain->size, &cfg, &ri, &e), NPURT_E_SIGNATURE);
    CHECK(e.what && strstr(e.what, "not signed"));
    CHECK(all_a5(ram.raw, align16((size_t)ram.size + 2 * GUARD)));
    fenced_free(&ram);
}

/* One model on one variant: three files, every install form. */
static void model_variant(source *s, eu_variant v, bool size_opt, int idx)
{
    cc_model *cm = NULL;
    if (compile(s->g, v, size_opt, &cm)) {
        fprintf(stderr, "%s: compile failed\n", s->path);
        st.fails++;
        return;
    }
    st.compiles++;
    relfile single, split, sig;
    bool sig_split = idx % 2 == 1; /* signed files: single and split in turn */
    int rc = make_relfile(cm, s->name, false, false, &single);
    rc |= make_relfile(cm, s->name, true, false, &split);
    rc |= make_relfile(cm, s->name, sig_split, true, &sig);
    cc_model_free(cm);
    if (rc) {
        st.fails++;
        relfile_free(&single);
        relfile_free(&split);
        relfile_free(&sig);
        return;
    }
    st.files += 3;
    npurt_reloc_info is, ip, ig;
    if (check_info(&single, s->name, v, &is) || check_info(&split, s->name, v, &ip) ||
        check_info(&sig, s->name, v, &ig)) {
        fprintf(stderr, "%s (%s): header / info / pool descriptors disagree\n", s->name, eu_variant_name(v));
        st.fails++;
    } else {
        /* the three files describe one model */
        CHECK_EQ_INT(is.n_relocs, ip.n_relocs);
        CHECK_EQ_INT(is.ram_xip, ip.ram_xip);
        CHECK_EQ_INT(is.ram_xip, ig.ram_xip);
        CHECK_EQ_INT(is.params_size, ip.params_size);
        CHECK_EQ_INT(is.code_size, ip.code_size);
        CHECK_EQ_INT(is.ram_copy, ip.ram_copy + 0u - align16(ip.params_size) - align16(ip.code_size) +
                                      align16(is.code_size + is.params_size));
        bool ext_odd = idx % 2 == 1;
        inst_opts o[F_N] = {
            [F_XIP] = {.mode = NPURT_RELOC_XIP, .target = true},
            [F_COPY] = {.mode = NPURT_RELOC_COPY, .bufs = true},
            [F_COPY_CLEAR] = {.mode = NPURT_RELOC_COPY | NPURT_RELOC_CLEAR, .ext = ext_odd},
            [F_SPLIT_XIP] = {.mode = NPURT_RELOC_XIP, .bufs = true, .target = true},
            [F_SPLIT_COPY] = {.mode = NPURT_RELOC_COPY, .ext = !ext_odd},
            [F_SIGNED_XIP] = {.mode = NPURT_RELOC_XIP | (ext_odd ? NPURT_RELOC_CLEAR : 0u), .key = true, .ext = true},
            [F_SIGNED_COPY] = {.mode = NPURT_RELOC_COPY | NPURT_RELOC_CLEAR, .key = true, .bufs = true},
        };
        for (int f = 0; f < F_N; f++) {
            const relfile *rf = f <= F_COPY_CLEAR ? &single : f <= F_SPLIT_COPY ? &split : &sig;
            const npurt_reloc_info *info = f <= F_COPY_CLEAR ? &is : f <= F_SPLIT_COPY ? &ip : &ig;
            try_form(s, rf, info, f, &o[f], v);
        }
        check_signature_refusals(&sig, &single, &ig);
    }
    relfile_free(&single);
    relfile_free(&split);
    relfile_free(&sig);
}

/* ------------------------------------------------------------ model list */

static int list_models(const char *dir, char names[][512], int max)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        size_t l = strlen(de->d_name);
        if (l > 7 && !strcmp(de->d_name + l - 7, ".tflite") && !strstr(de->d_name, "_vela"))
            snprintf(names[n++], 512, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    /* sorted: the same model gets the same variants on every machine */
    for (int i = 0; i + 1 < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char t[512];
                memcpy(t, names[i], 512);
                memcpy(names[i], names[j], 512);
                memcpy(names[j], t, 512);
            }
    return n;
}

static char files[256][512];

static int all_models(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/models/tflm", getenv("NPUC_SHARED") ? getenv("NPUC_SHARED") : "../shared");
    int n = list_models(dir, files, 256);
    static const char *sub[] = {"add", "conv", "leaky_relu", "pad", "quantize", "strided_slice", "sub", "transpose_conv"};
    for (size_t s = 0; s < sizeof sub / sizeof sub[0]; s++) {
        char d2[600];
        snprintf(d2, sizeof d2, "%s/seanet/%s", dir, sub[s]);
        n += list_models(d2, files + n, 256 - n);
    }
    return n;
}

static void test_models(void)
{
    char buf[512];
    if (!t_shared("models/tflm/person_detect.tflite", buf, sizeof buf)) {
        printf("skip: ../shared models not found\n");
        return;
    }
    int n = all_models();
    const char *env = getenv("NPUC_RELOC_ALL");
    bool all = env && *env && strcmp(env, "0");
    int n_var = all ? 6 : 2;
    static const eu_variant vs[] = {EU_U55_128, EU_U65_256, EU_U55_64, EU_U55_256, EU_U65_512, EU_U55_32};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        source s;
        if (source_open(&s, files[i], (uint64_t)i * 13 + 1)) {
            st.fails++;
            source_close(&s);
            continue;
        }
        st.models++;
        for (int k = 0; k < n_var; k++) model_variant(&s, vs[(i + k) % 6], (i + k) % 4 == 3, i + k);
        source_close(&s);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("shared models: %d models x %d variants: %d compiles, %d files, %d runs (%ld HW, %ld CPU epochs), "
           "%d draws skipped, %.1f s\n", st.models, n_var, st.compiles, st.files, st.runs, st.hw_epochs, st.sw_epochs,
           st.draws_skipped, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    printf("  installs:");
    for (int f = 0; f < F_N; f++) printf(" %s %d%s", form_name[f], st.installs[f], f + 1 < F_N ? "," : "");
    printf("\n  %d with activations in external RAM; %ld relocations applied; %d failures\n", st.ext_installs,
           st.relocs, st.fails);
    CHECK(st.models > 100);
    CHECK(st.hw_epochs > 0 && st.sw_epochs > 0);
    CHECK(st.ext_installs > 0);
    CHECK_EQ_INT(st.fails, 0);
}

/* ------------------------------------------------------------ side by side */

/* A model compiled for one variant, in the form a test needs. */
typedef struct prepared {
    source s;
    relfile rf;
    npurt_reloc_info info;
} prepared;

static int prepare(prepared *p, const char *rel, eu_variant v, bool split, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    char buf[512];
    const char *path = t_shared(rel, buf, sizeof buf);
    if (!path) return -1;
    static char paths[8][512];
    static int np;
    char *keep = paths[np++ % 8];
    snprintf(keep, 512, "%s", path);
    if (source_open(&p->s, keep, seed)) return -1;
    cc_model *cm = NULL;
    if (compile(p->s.g, v, false, &cm)) return -1;
    int rc = make_relfile(cm, p->s.name, split, false, &p->rf);
    cc_model_free(cm);
    if (rc) return -1;
    npurt_error e = {0};
    return npurt_reloc_get_info(p->rf.file, p->rf.size, &p->info, &e);
}

static void unprepare(prepared *p)
{
    source_close(&p->s);
    relfile_free(&p->rf);
}

/* Installs into [ram, ram + size) (part of a bigger buffer) and maps. */
static int install_at(npurt_reloc_instance *ri, prepared *p, uint8_t *ram, uint32_t size, uint32_t mode, eu_variant v)
{
    npurt_reloc_config cfg = {.exec_ram = ram, .exec_ram_size = size, .mode = mode};
    if (p->rf.split) {
        cfg.ext_params = p->rf.params;
        cfg.ext_params_size = p->rf.params_size;
    }
    npurt_error e = {0};
    int rc = npurt_reloc_install(p->rf.file, p->rf.size, &cfg, ri, &e);
    if (rc) {
        char msg[256];
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        fprintf(stderr, "%s: install: %s\n", p->s.name, msg);
        return rc;
    }
    ri->rt.drv = driver_for(v);
    npuc_err err = {0};
    if (npurt_host_map(&ri->rt, &err)) {
        fprintf(stderr, "%s: map: %s\n", p->s.name, err.msg);
        return -1;
    }
    return 0;
}

/* New random inputs, a run, the reference. 0 ok. */
static int run_fresh(npurt_reloc_instance *ri, prepared *p, uint64_t seed, const fenced *ram)
{
    fill_inputs(&p->s, seed);
    reference(&p->s);
    char what[128];
    snprintf(what, sizeof what, "side by side: %s", p->s.name);
    return run_compare(ri, ram, NULL, &p->s, seed % 2 == 0, what);
}

static void test_side_by_side(void)
{
    const eu_variant v = EU_U55_128;
    prepared p[4];
    static const char *const rel[4] = {
        "models/tflm/person_detect.tflite", "models/tflm/micro_speech_quantized.tflite",
        "models/tflm/keyword_scrambled_8bit.tflite", "models/tflm/hello_world_int8.tflite",
    };
    int ok = 1;
    for (int i = 0; i < 4; i++) ok &= prepare(&p[i], rel[i], v, i == 2, 100 + (uint64_t)i) == 0;
    if (!ok) {
        printf("skip: side by side: models not found\n");
        for (int i = 0; i < 4; i++) unprepare(&p[i]);
        return;
    }
    /* A XIP, B COPY, C split COPY|CLEAR; D (COPY) later replaces B */
    static const uint32_t mode[4] = {NPURT_RELOC_XIP, NPURT_RELOC_COPY, NPURT_RELOC_COPY | NPURT_RELOC_CLEAR,
                                     NPURT_RELOC_COPY};
    uint32_t need[4], off[4], total = 0;
    for (int i = 0; i < 4; i++) need[i] = (mode[i] & 0xFFu) == NPURT_RELOC_COPY ? p[i].info.ram_copy : p[i].info.ram_xip;
    for (int i = 0; i < 3; i++) {
        off[i] = total;
        total += need[i];
    }
    off[3] = off[1];
    CHECK(need[3] <= need[1]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++) CHECK(strcmp(p[i].info.name, p[j].info.name) != 0);
    fenced ram;
    fenced_alloc(&ram, total);
    npurt_reloc_instance ri[4];
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(install_at(&ri[i], &p[i], ram.p + off[i], need[i], mode[i], v), 0);
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(ri[i].ram_used, need[i]);
    /* A, B, C, A, C, B, ... */
    static const int order[] = {0, 1, 2, 0, 2, 1, 1, 0, 2, 2, 1, 0};
    int runs = 0, bad = 0;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int m = order[k];
        bad += run_fresh(&ri[m], &p[m], 1000 + k, &ram) < 0;
        runs++;
    }
    CHECK(fenced_ok(&ram));
    /* B goes, D takes its place; A and C keep working */
    npurt_host_unmap(&ri[1].rt);
    npurt_reloc_uninstall(&ri[1]);
    CHECK(ri[1].installed != NPURT_RELOC_INSTALLED);
    CHECK_EQ_INT(npurt_reloc_run(&ri[1]), NPURT_E_ARG);
    memset(ram.p + off[1], 0xA5, need[1]);
    CHECK_EQ_INT(install_at(&ri[3], &p[3], ram.p + off[3], need[3], mode[3], v), 0);
    CHECK(inside(ri[3].pool_base[0], p[3].info.ram_copy - p[3].info.ram_xip, ram.p + off[1], need[1]));
    static const int order2[] = {3, 0, 2, 3, 2, 0, 3};
    for (size_t k = 0; k < sizeof order2 / sizeof order2[0]; k++) {
        int m = order2[k];
        bad += run_fresh(&ri[m], &p[m], 2000 + k, &ram) < 0;
        runs++;
    }
    /* D used only its part of B's place */
    CHECK(all_a5(ram.p + off[1] + need[3], need[1] - need[3]));
    CHECK(fenced_ok(&ram));
    printf("side by side: %s (XIP), %s (COPY), %s (split COPY|CLEAR) in one %u-byte exec RAM, then %s (COPY) "
           "in %s's place: %d runs\n", p[0].info.name, p[1].info.name, p[2].info.name, total, p[3].info.name,
           p[1].info.name, runs);
    CHECK_EQ_INT(bad, 0);
    for (int i = 0; i < 4; i++)
        if (i != 1) {
            npurt_host_unmap(&ri[i].rt);
            npurt_reloc_uninstall(&ri[i]);
        }
    fenced_free(&ram);
    for (int i = 0; i < 4; i++) unprepare(&p[i]);
}

/* ------------------------------------------------------------ the API */

typedef struct cb_log {
    int run_start, run_end, epoch_start, epoch_end, order_bad;
    uint32_t next_epoch, run_end_epochs;
    bool in_epoch;
} cb_log;

static void on_event(void *user, int event, uint32_t epoch)
{
    cb_log *l = user;
    switch (event) {
    case NPURT_CB_RUN_START:
        if (l->run_start != l->run_end) l->order_bad++;
        l->run_start++;
        l->next_epoch = 0;
        break;
    case NPURT_CB_EPOCH_START:
        if (l->in_epoch || epoch != l->next_epoch) l->order_bad++;
        l->in_epoch = true;
        l->epoch_start++;
        break;
    case NPURT_CB_EPOCH_END:
        if (!l->in_epoch || epoch != l->next_epoch) l->order_bad++;
        l->in_epoch = false;
        l->epoch_end++;
        l->next_epoch++;
        break;
    case NPURT_CB_RUN_END:
        if (l->in_epoch || l->run_start != l->run_end + 1) l->order_bad++;
        l->run_end++;
        l->run_end_epochs = epoch;
        break;
    default: l->order_bad++; break;
    }
}

static void check_uninstalled(npurt_reloc_instance *ri)
{
    npurt_reloc_io_info io;
    uint8_t b[4];
    uint32_t n = 77;
    CHECK_EQ_INT(npurt_reloc_set_callbacks(ri, on_event, NULL), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_n_inputs(ri), 0);
    CHECK_EQ_INT(npurt_reloc_n_outputs(ri), 0);
    CHECK_EQ_INT(npurt_reloc_input_info(ri, 0, &io), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_output_info(ri, 0, &io), NPURT_E_ARG);
    CHECK(npurt_reloc_input(ri, 0, &n) == NULL);
    CHECK(npurt_reloc_output(ri, 0, &n) == NULL);
    CHECK_EQ_INT(npurt_reloc_set_input(ri, 0, b), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_set_output(ri, 0, b), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_run(ri), NPURT_E_ARG);
}

static void api_model(const char *relpath, eu_variant v, bool split)
{
    prepared p;
    if (prepare(&p, relpath, v, split, 7)) {
        printf("skip: api: %s not found\n", relpath);
        unprepare(&p);
        return;
    }
    /* install refuses too little RAM, another NPU and leaves the instance
     * uninstalled and the RAM untouched */
    npurt_reloc_instance ri;
    memset(&ri, 0, sizeof ri);
    fenced small;
    fenced_alloc(&small, p.info.ram_copy - 16);
    npurt_reloc_config cfg = {.exec_ram = small.p, .exec_ram_size = small.size, .mode = NPURT_RELOC_COPY,
                              .ext_params = p.rf.params, .ext_params_size = p.rf.params_size};
    npurt_error e = {0};
    CHECK_EQ_INT(npurt_reloc_install(p.rf.file, p.rf.size, &cfg, &ri, &e), NPURT_E_MEMORY);
    check_uninstalled(&ri);
    cfg.mode = NPURT_RELOC_XIP;
    cfg.npu_config = eu_variant_config_word(eu_variant_is_u65(v) ? EU_U55_128 : EU_U65_256);
    if (p.info.npu_config) {
        CHECK_EQ_INT(npurt_reloc_install(p.rf.file, p.rf.size, &cfg, &ri, &e), NPURT_E_TARGET);
        check_uninstalled(&ri);
    }
    CHECK(all_a5(small.raw, align16((size_t)small.size + 2 * GUARD)));
    fenced_free(&small);

    installed in;
    inst_opts o = {.mode = NPURT_RELOC_XIP};
    char what[128];
    snprintf(what, sizeof what, "api: %s", p.s.name);
    if (install(&in, &p.rf, &p.info, &o, v, what)) {
        CHECK(0);
        uninstall(&in);
        unprepare(&p);
        return;
    }
    npurt_reloc_instance *r = &in.ri;
    check_io_info(r, &p.s);
    CHECK_EQ_INT(npurt_reloc_set_input(r, p.s.n_in, p.s.in[0]), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_set_output(r, p.s.n_out, p.s.in[0]), NPURT_E_ARG);
    /* callbacks: one RUN_START, START/END per epoch in order, RUN_END with the count */
    cb_log log;
    memset(&log, 0, sizeof log);
    CHECK_EQ_INT(npurt_reloc_set_callbacks(r, on_event, &log), NPURT_OK);
    for (int k = 0; k < 3; k++) {
        /* set_input/set_output: copied in before and out after the run */
        fill_inputs(&p.s, 40 + (uint64_t)k);
        reference(&p.s);
        CHECK_EQ_INT(p.s.ref_status, 0);
        uint8_t *inb[MAX_IO], *outb[MAX_IO];
        for (uint32_t i = 0; i < p.s.n_in; i++) {
            inb[i] = dup16(p.s.in[i], p.s.in_n[i]);
            CHECK_EQ_INT(npurt_reloc_set_input(r, i, inb[i]), NPURT_OK);
            memset(npurt_reloc_input(r, i, NULL), 0x33, p.s.in_n[i]);
        }
        for (uint32_t i = 0; i < p.s.n_out; i++) {
            outb[i] = alloc16(p.s.ref_n[i]);
            CHECK_EQ_INT(npurt_reloc_set_output(r, i, outb[i]), NPURT_OK);
        }
        CHECK_EQ_INT(npurt_reloc_run(r), NPURT_OK);
        if (p.s.ref_status == 0)
            for (uint32_t i = 0; i < p.s.n_out; i++) {
                CHECK(!memcmp(outb[i], p.s.ref[i], p.s.ref_n[i]));
                CHECK(!memcmp(npurt_reloc_output(r, i, NULL), p.s.ref[i], p.s.ref_n[i]));
            }
        /* the application's input buffer is only read */
        for (uint32_t i = 0; i < p.s.n_in; i++) CHECK(!memcmp(inb[i], p.s.in[i], p.s.in_n[i]));
        for (uint32_t i = 0; i < p.s.n_in; i++) {
            npurt_reloc_set_input(r, i, NULL);
            free(inb[i]);
        }
        for (uint32_t i = 0; i < p.s.n_out; i++) {
            npurt_reloc_set_output(r, i, NULL);
            free(outb[i]);
        }
    }
    uint32_t ne = p.info.n_epochs;
    CHECK_EQ_INT(log.run_start, 3);
    CHECK_EQ_INT(log.run_end, 3);
    CHECK_EQ_INT(log.epoch_start, 3 * (int)ne);
    CHECK_EQ_INT(log.epoch_end, 3 * (int)ne);
    CHECK_EQ_INT(log.run_end_epochs, ne);
    CHECK_EQ_INT(log.order_bad, 0);
    /* buffers removed: zero-copy again; callbacks removed: no events */
    CHECK_EQ_INT(npurt_reloc_set_callbacks(r, NULL, NULL), NPURT_OK);
    for (uint32_t i = 0; i < p.s.n_in; i++) memcpy(npurt_reloc_input(r, i, NULL), p.s.in[i], p.s.in_n[i]);
    CHECK_EQ_INT(npurt_reloc_run(r), NPURT_OK);
    if (p.s.ref_status == 0)
        for (uint32_t i = 0; i < p.s.n_out; i++) CHECK(!memcmp(npurt_reloc_output(r, i, NULL), p.s.ref[i], p.s.ref_n[i]));
    CHECK_EQ_INT(log.run_start, 3);
    printf("api: %s (%s%s): %u epochs, %u inputs, %u outputs, %u relocations; callbacks %d/%d/%d/%d\n",
           p.info.name, eu_variant_name(v), split ? ", split" : "", ne, p.info.n_inputs, p.info.n_outputs,
           p.info.n_relocs, log.run_start, log.epoch_start, log.epoch_end, log.run_end);
    uninstall(&in);
    check_uninstalled(&in.ri);
    check_uninstalled(NULL);
    unprepare(&p);
}

static void test_api(void)
{
    api_model("models/tflm/person_detect.tflite", EU_U55_128, false);
    /* HW and CPU epochs (5 + 9), split */
    api_model("models/tflm/keyword_scrambled_8bit.tflite", EU_U65_256, true);
}

int main(void)
{
    test_api();
    test_side_by_side();
    test_models();
    free_drivers();
    TEST_MAIN_END();
}
