/* Mutation corpus for npurt_reloc_install. Real loadable model files
 * (emit_reloc: person_detect, NPU epochs only; keyword_scrambled_8bit, CPU
 * and NPU epochs, single, split and signed) are truncated, bit-flipped and
 * edited field by field, and install must refuse every mutant with the exact
 * status and, where one field was edited, the byte offset of that field (or
 * of the record it belongs to). After a structural edit the trailer digest
 * is recomputed, so the structure checks, not the digest, must catch it.
 *
 * Every install gets its exec RAM inside a pattern-filled arena with 256-byte
 * guard zones on both sides: a refused install must leave the whole arena as
 * it was (install checks before it writes), an accepted one may only write
 * the RAM it was given; no install may write the model file or the params
 * file. Files are handed over in buffers of exactly the size passed, so ASan
 * catches any read beyond it.
 *
 * NPUC_RELOC_CORPUS=dir: only writes seeds for fuzz/fuzz_reloc.c into dir. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/sim/sim.h"
#include "npurt/npurt_crypto.h"
#include "npurt/reloc.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#define GUARD 256u
#define SLACK 4096u            /* exec RAM beyond what COPY mode needs */
#define HO(f) ((uint32_t)offsetof(npurl_header, f))
#define PO(f) ((uint32_t)offsetof(npurl_pool, f))
#define RO(f) ((uint32_t)offsetof(npurl_reloc, f))
#define OK NPURT_OK
#define F NPURT_E_FORMAT

enum { C_TRUNC, C_HEADER, C_FLIP, C_POOL, C_RELOC, C_NPRT, C_NPRT_RND, C_AUTH, C_RAM, C_TARGET, C_N };
static const char *const class_name[C_N] = {"truncation", "header", "bit-flip", "pool", "reloc", "nprt",
                                            "nprt-random", "digest/signature/params", "ram/arg", "target"};
static unsigned n_mut[C_N];
static unsigned n_rnd[4];      /* nprt-random outcomes: ok, format, version, other */
#define EXPECT_ANY 1           /* no status is positive: any outcome, invariants only */

/* The signing key of the signed variant (fuzz_reloc.c uses the same seed). */
static uint8_t sign_seed[32], pub_key[32];

/* ------------------------------------------------------------ RAM arena */

/* GUARD | RAM | GUARD, below 4 GiB when possible so that pools with a fixed
 * (32-bit) address can point into it. `pattern` is what it holds whenever
 * no install is running. */
static uint8_t *arena, *pattern, *ram;
static size_t arena_size, ram_cap;
static bool ram_low;

static void arena_init(size_t cap)
{
    ram_cap = cap;
    arena_size = cap + 2 * GUARD;
    size_t map = (arena_size + 4095) / 4096 * 4096;
    void *p = mmap((void *)(uintptr_t)0x10000000u, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    arena = p;
    pattern = malloc(arena_size);
    if (!pattern) exit(1);
    uint32_t x = 0x9E3779B9u;
    for (size_t i = 0; i < arena_size; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        pattern[i] = (uint8_t)x;
    }
    memcpy(arena, pattern, arena_size);
    ram = arena + GUARD;
    ram_low = (uint64_t)(uintptr_t)ram + cap < 0xFFFFF000u;
}

/* Puts the pattern back over [p, p + n) where it lies inside the arena. */
static void arena_restore(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)arena, lo = (uintptr_t)p, hi = lo + n;
    if (!p || hi <= a || lo >= a + arena_size) return;
    if (lo < a) lo = a;
    if (hi > a + arena_size) hi = a + arena_size;
    memcpy(arena + (lo - a), pattern + (lo - a), hi - lo);
}

/* --------------------------------------------------------------- files */

typedef struct base {
    const char *name;
    uint8_t *file;            /* pristine, as emit_reloc wrote it (16-byte aligned) */
    uint32_t size;
    uint8_t *work;            /* the copy mutants are made in: exactly size bytes */
    uint8_t *params;          /* split: pristine params file */
    uint8_t *pwork;           /* split: the params buffer install reads */
    uint32_t psize;
    bool split, sig;
    npurl_header h;           /* pristine header */
    uint32_t body;            /* size - trailer */
    uint32_t model_off, model_size;
} base;

static uint8_t *alloc_exact(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 16, n ? n : 1) || !p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static uint32_t get32(const uint8_t *p, uint32_t off)
{
    uint32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

static void set32(uint8_t *p, uint32_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static void set16(uint8_t *p, uint32_t off, uint16_t v) { memcpy(p + off, &v, 2); }

static const npurl_pool *pool_at(const base *b, uint32_t i)
{
    return (const npurl_pool *)(b->file + b->h.pools_off + i * sizeof(npurl_pool));
}

static uint32_t pool_off(const base *b, uint32_t i) { return b->h.pools_off + i * (uint32_t)sizeof(npurl_pool); }
static uint32_t reloc_off(const base *b, uint32_t r) { return b->h.relocs_off + r * (uint32_t)sizeof(npurl_reloc); }

static void reset(base *b) { memcpy(b->work, b->file, b->size); }

/* Recomputes the trailer digest where the (maybe edited) header puts it. */
static void fix_digest(uint8_t *f, uint32_t cap)
{
    uint32_t fs = get32(f, HO(file_size));
    if (fs < sizeof(npurl_header) + NPURL_TRAILER_SIZE || fs % NPURL_ALIGN || fs > cap) fs = cap;
    npurt_sha256(f, fs - NPURL_TRAILER_SIZE, f + fs - NPURL_TRAILER_SIZE);
}

static void resign(uint8_t *f)
{
    uint32_t body = get32(f, HO(file_size)) - NPURL_TRAILER_SIZE;
    npurt_ed25519_sign(f + body + 32, f + body, 32, sign_seed);
}

/* ------------------------------------------------------------- install */

static uint8_t *ref, *pref;   /* the file and params as they were before install */
static unsigned mode_turn;

static npurt_reloc_config cfg_for(const base *b)
{
    static const uint32_t modes[4] = {NPURT_RELOC_XIP, NPURT_RELOC_COPY, NPURT_RELOC_XIP | NPURT_RELOC_CLEAR,
                                      NPURT_RELOC_COPY | NPURT_RELOC_CLEAR};
    npurt_reloc_config c;
    memset(&c, 0, sizeof c);
    c.exec_ram = ram;
    c.exec_ram_size = b->h.ram_copy + SLACK;
    c.mode = modes[mode_turn++ % 4];
    c.public_key = b->sig ? pub_key : NULL;
    if (b->split) {
        c.ext_params = b->pwork;
        c.ext_params_size = b->psize;
    }
    return c;
}

static bool in_region(const void *p, size_t n, const void *lo, size_t len)
{
    uintptr_t a = (uintptr_t)p, l = (uintptr_t)lo;
    return lo && a >= l && a + n <= l + len;
}

/* An accepted install: the accessors work and every input and output lies
 * in the RAM given. */
static void check_installed(const char *what, npurt_reloc_instance *ri, const npurt_reloc_config *cfg)
{
    uint32_t ni = npurt_reloc_n_inputs(ri), no = npurt_reloc_n_outputs(ri);
    CHECK(ni >= 1 && no >= 1);
    CHECK(ri->ram_used <= cfg->exec_ram_size);
    for (uint32_t i = 0; i < ni + no; i++) {
        npurt_reloc_io_info io;
        int rc = i < ni ? npurt_reloc_input_info(ri, i, &io) : npurt_reloc_output_info(ri, i - ni, &io);
        CHECK_EQ_INT(rc, NPURT_OK);
        if (rc) continue;
        bool in = in_region(io.data, io.size, cfg->exec_ram, cfg->exec_ram_size) ||
                  in_region(io.data, io.size, cfg->ext_ram, cfg->ext_ram_size);
        if (!in) fprintf(stderr, "%s: io %u at %p (%u B) outside the RAM given\n", what, i, io.data, io.size);
        CHECK(in);
    }
    npurt_reloc_io_info io;
    CHECK_EQ_INT(npurt_reloc_input_info(ri, ni, &io), NPURT_E_ARG);
    npurt_reloc_uninstall(ri);
}

/* Installs one mutant and checks status, error offset (lo..hi) and the
 * invariants every install keeps. */
static int expect_at(int cls, const char *bname, const char *what, const uint8_t *file, size_t size,
                     const npurt_reloc_config *cfg, int code, uint32_t lo, uint32_t hi)
{
    n_mut[cls]++;
    if (file) memcpy(ref, file, size);
    const uint8_t *pp = cfg ? cfg->ext_params : NULL;
    size_t pn = pp ? cfg->ext_params_size : 0;
    if (pp) memcpy(pref, pp, pn);
    npurt_reloc_instance ri;
    npurt_error e = {0};
    memset(&e, 0, sizeof e);
    e.code = 1;
    e.offset = 0xDEADBEEFu;
    int rc = npurt_reloc_install(file, size, cfg, &ri, &e);
    t_checks++;
    bool any = code == EXPECT_ANY;
    if ((!any && rc != code) || (rc != NPURT_OK && (e.code != rc || (!any && (e.offset < lo || e.offset > hi))))) {
        t_failures++;
        fprintf(stderr, "FAIL %s [%s] %s: got %s (%d) offset %u (%s), want %s (%d) offset %u..%u\n", bname,
                class_name[cls], what, npurt_status_name(rc), rc, e.offset, e.what ? e.what : "-",
                npurt_status_name(code), code, lo, hi);
    }
    if (rc == NPURT_OK) {
        char w[256];
        snprintf(w, sizeof w, "%s [%s] %s", bname, class_name[cls], what);
        check_installed(w, &ri, cfg);
        arena_restore(cfg->exec_ram, cfg->exec_ram_size);
        arena_restore(cfg->ext_ram, cfg->ext_ram_size);
    }
    t_checks++;
    if (memcmp(arena, pattern, arena_size)) {
        size_t i = 0;
        while (arena[i] == pattern[i]) i++;
        t_failures++;
        fprintf(stderr, "FAIL %s [%s] %s: install (%s) wrote arena byte %zd (relative to the exec RAM)\n", bname,
                class_name[cls], what, npurt_status_name(rc), (ptrdiff_t)i - (ptrdiff_t)GUARD);
        memcpy(arena, pattern, arena_size);
    }
    if (file) {
        t_checks++;
        if (memcmp(file, ref, size)) {
            t_failures++;
            fprintf(stderr, "FAIL %s [%s] %s: install wrote the model file\n", bname, class_name[cls], what);
        }
    }
    if (pp) {
        t_checks++;
        if (memcmp(pp, pref, pn)) {
            t_failures++;
            fprintf(stderr, "FAIL %s [%s] %s: install wrote the params file\n", bname, class_name[cls], what);
        }
    }
    return rc;
}

/* A structural mutant of b->work: the digest is recomputed first. The
 * signed variant is installed with its key, so anything its header passes
 * must fail the signature instead. get_info and get_mem_pool_desc must agree
 * with install about the header. */
static void expect_cfg(int cls, base *b, const char *what, const npurt_reloc_config *cfg, int code, uint32_t lo,
                       uint32_t hi)
{
    fix_digest(b->work, b->size);
    npurt_reloc_info info;
    npurt_error ge = {0};
    int gi = npurt_reloc_get_info(b->work, b->size, &info, &ge);
    if (gi == NPURT_OK) {
        for (uint32_t i = 0; i <= info.n_pools; i++) {
            npurl_pool p;
            int pr = npurt_reloc_get_mem_pool_desc(b->work, b->size, i, &p, &ge);
            CHECK_EQ_INT(pr, i < info.n_pools ? NPURT_OK : NPURT_E_ARG);
            if (!pr) CHECK(!memcmp(&p, b->work + get32(b->work, HO(pools_off)) + i * sizeof p, sizeof p));
        }
        if (b->sig && cfg->public_key) {
            if (!(get32(b->work, HO(flags)) & NPURL_F_SIGNED)) {
                code = NPURT_E_SIGNATURE;
                lo = hi = HO(flags);
            } else {
                code = NPURT_E_SIGNATURE;
                lo = hi = info.file_size - 64;
            }
        }
    } else if (gi != code || ge.offset < lo || ge.offset > hi) {
        t_checks++;
        t_failures++;
        fprintf(stderr, "FAIL %s [%s] %s: get_info says %s at %u, want %s at %u..%u\n", b->name, class_name[cls], what,
                npurt_status_name(gi), ge.offset, npurt_status_name(code), lo, hi);
    }
    expect_at(cls, b->name, what, b->work, b->size, cfg, code, lo, hi);
    reset(b);
}

static void expect_fixed(int cls, base *b, const char *what, int code, uint32_t lo, uint32_t hi)
{
    npurt_reloc_config c = cfg_for(b);
    expect_cfg(cls, b, what, &c, code, lo, hi);
}

/* One 32/16/8-bit field of the work copy set to v, digest recomputed. */
static void mut32(int cls, base *b, uint32_t off, uint32_t v, const char *what, int code, uint32_t lo, uint32_t hi)
{
    set32(b->work, off, v);
    expect_fixed(cls, b, what, code, lo, hi);
}

static void mut16(int cls, base *b, uint32_t off, uint16_t v, const char *what, int code, uint32_t at)
{
    set16(b->work, off, v);
    expect_fixed(cls, b, what, code, at, at);
}

static void mut8(int cls, base *b, uint32_t off, uint8_t v, const char *what, int code, uint32_t lo, uint32_t hi)
{
    b->work[off] = v;
    expect_fixed(cls, b, what, code, lo, hi);
}

#define H32(field, v, code, at) mut32(C_HEADER, b, HO(field), (v), #field " = " #v, code, at, at)

/* -------------------------------------------------------- 1 truncation */

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

static void truncate_at(base *b, uint32_t len, const char *what)
{
    uint8_t *t = alloc_exact(len);
    memcpy(t, b->file, len);
    npurt_reloc_config c = cfg_for(b);
    uint32_t at = len < sizeof(npurl_header) ? 0 : HO(file_size);
    expect_at(C_TRUNC, b->name, what, t, len, &c, F, at, at);
    npurt_reloc_info info;
    npurt_error e = {0};
    CHECK_EQ_INT(npurt_reloc_get_info(t, len, &info, &e), F);
    free(t);
}

static void truncations(base *b)
{
    const npurl_header *h = &b->h;
    const uint32_t cut[] = {0, 1, 4, sizeof *h - 1, sizeof *h, sizeof *h + 1, h->pools_off + h->n_pools * 48u,
                            h->relocs_off + h->n_relocs * 16u - 1, h->relocs_off + h->n_relocs * 16u, b->model_off,
                            b->model_off + b->model_size - 1, b->model_off + b->model_size, b->body - 1, b->body,
                            b->body + 32, b->size - 1};
    char what[64];
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        snprintf(what, sizeof what, "cut at %u", cut[i]);
        truncate_at(b, cut[i], what);
    }
    for (int i = 0; i < 500; i++) {
        uint32_t len = rnd(b->size);
        snprintf(what, sizeof what, "random cut at %u", len);
        truncate_at(b, len, what);
    }
    /* bytes after the file are not part of it */
    uint8_t *t = alloc_exact(b->size + 32);
    memcpy(t, b->file, b->size);
    memset(t + b->size, 0xEE, 32);
    npurt_reloc_config c = cfg_for(b);
    expect_at(C_TRUNC, b->name, "32 bytes after the file", t, b->size + 32, &c, OK, 0, 0);
    free(t);
}

/* ------------------------------------------------------------ 2 header */

static void header_mutants(base *b)
{
    const npurl_header h = b->h;
    const uint32_t fs = h.file_size;
    const int V = NPURT_E_VERSION, T = NPURT_E_TARGET;
    H32(magic, h.magic ^ 1u, F, 0);
    H32(magic, 0, F, 0);
    H32(magic, NPURT_MAGIC, F, 0); /* an NPRT container is not a loadable model */
    mut16(C_HEADER, b, HO(version_major), 0, "version_major = 0", V, HO(version_major));
    mut16(C_HEADER, b, HO(version_major), 2, "version_major = 2", V, HO(version_major));
    mut16(C_HEADER, b, HO(version_major), 0xFFFF, "version_major = 0xFFFF", V, HO(version_major));
    /* a newer minor version only adds what an older reader may ignore */
    mut16(C_HEADER, b, HO(version_minor), 1, "version_minor = 1", OK, 0);
    mut16(C_HEADER, b, HO(version_minor), 0xFFFF, "version_minor = 0xFFFF", OK, 0);
    H32(header_size, 0, F, HO(header_size));
    H32(header_size, 191, F, HO(header_size));
    H32(header_size, 193, F, HO(header_size));
    H32(header_size, 208, F, HO(header_size));
    H32(header_size, 0xFFFFFFFFu, F, HO(header_size));
    H32(file_size, fs + 16, F, HO(file_size));
    H32(file_size, 0, F, HO(file_size));
    H32(file_size, fs - 1, F, HO(file_size));
    H32(file_size, fs + 1, F, HO(file_size));
    H32(file_size, 272, F, HO(file_size));
    H32(file_size, 0xFFFFFFF0u, F, HO(file_size));
    H32(file_size, 288, F, HO(pools_off)); /* smallest valid size: no room for the tables */
    {
        /* shorter by 16: the model section no longer fits before the trailer */
        const npurl_pool *m = pool_at(b, 0);
        bool fits = m->file_off + m->file_size <= fs - 16 - NPURL_TRAILER_SIZE;
        mut32(C_HEADER, b, HO(file_size), fs - 16, "file_size = fs - 16", fits ? OK : F, fits ? 0 : pool_off(b, 0) + PO(file_off),
              fits ? 0 : pool_off(b, 0) + PO(file_off));
    }
    mut16(C_HEADER, b, HO(runtime_major), 0, "runtime_major = 0", V, HO(runtime_major));
    mut16(C_HEADER, b, HO(runtime_major), NPURT_RUNTIME_VERSION_MAJOR + 1, "runtime_major + 1", V, HO(runtime_major));
    mut16(C_HEADER, b, HO(runtime_minor), NPURT_RUNTIME_VERSION_MINOR + 1, "runtime_minor + 1", V, HO(runtime_minor));
    /* the NPU words must be the NPRT model's (the config given has none) */
    H32(npu_config, h.npu_config ^ 1u, F, HO(npu_config));
    H32(npu_config, 0, F, HO(npu_config));
    H32(npu_id, h.npu_id ^ 0x00100000u, F, HO(npu_id));
    H32(cpu_flags, NPURL_CPU_MVE, T, HO(cpu_flags));
    H32(cpu_flags, 0x8u, T, HO(cpu_flags));
    H32(cpu_flags, 0x80000000u, T, HO(cpu_flags));
#if defined(__x86_64__) || defined(__aarch64__)
    H32(cpu_flags, NPURL_CPU_FPU | NPURL_CPU_DSP, OK, 0); /* this host has both */
#endif
    H32(security, NPURL_SEC_SECURE, T, HO(security)); /* the host runs non-secure */
    H32(security, NPURL_SEC_NONSECURE, OK, 0);
    H32(security, 3, F, HO(security));
    H32(security, 0xFFFFFFFFu, F, HO(security));
    H32(flags, h.flags | 0x4u, F, HO(flags));
    H32(flags, h.flags | 0x80000000u, F, HO(flags));
    if (b->split) {
        H32(flags, h.flags & ~NPURL_F_SPLIT, F, HO(params_file_size));
    } else {
        H32(flags, h.flags | NPURL_F_SPLIT, F, HO(flags));
    }
    if (!b->sig) {
        /* no key given: the flag alone asks for nothing */
        H32(flags, h.flags | NPURL_F_SIGNED, OK, 0);
    } else {
        H32(flags, h.flags & ~NPURL_F_SIGNED, NPURT_E_SIGNATURE, HO(flags));
    }
    /* the name: a NUL-terminated C identifier */
    {
        static const struct { uint32_t at; uint8_t c; const char *what; } nm[] = {
            {0, '1', "name starts with a digit"}, {0, 0, "name empty"},      {1, '-', "name has a '-'"},
            {1, ' ', "name has a space"},         {0, 0xC3, "name not ASCII"}, {2, '.', "name has a '.'"},
        };
        for (size_t i = 0; i < sizeof nm / sizeof nm[0]; i++)
            mut8(C_HEADER, b, HO(name) + nm[i].at, nm[i].c, nm[i].what, F, HO(name), HO(name));
        memset(b->work + HO(name), 'a', NPURL_NAME_MAX);
        expect_fixed(C_HEADER, b, "name without NUL", F, HO(name), HO(name));
        memset(b->work + HO(name), 0, NPURL_NAME_MAX);
        memcpy(b->work + HO(name), "zz_9", 4);
        expect_fixed(C_HEADER, b, "name replaced by another identifier", OK, 0, 0);
    }
    H32(params_size, h.params_size + 16, F, HO(params_size));
    H32(params_size, h.params_size - 16, F, HO(params_size));
    H32(params_size, 0, F, HO(params_size));
    H32(acts_size, h.acts_size + 16, F, HO(acts_size));
    H32(acts_size, h.acts_size - 16, F, HO(acts_size));
    H32(acts_size, 0, F, HO(acts_size));
    H32(fast_size, 16, F, HO(fast_size));
    H32(state_size, 16, F, HO(state_size));
    H32(addr_size, h.addr_size + 8, F, HO(addr_size));
    H32(addr_size, h.addr_size - 8, F, HO(addr_size));
    H32(addr_size, h.addr_size + 4, F, HO(addr_size));
    H32(addr_size, 0, F, HO(addr_size));
    H32(model_size, h.model_size + 16, F, HO(model_size));
    H32(model_size, h.model_size - 16, F, HO(model_size));
    H32(model_size, 0, F, HO(model_size));
    /* informative only: install computes the RAM it needs itself */
    H32(ram_xip, 0, OK, 0);
    H32(ram_xip, 0xFFFFFFFFu, OK, 0);
    H32(ram_copy, 0, OK, 0);
    H32(ram_copy, 0xFFFFFFFFu, OK, 0);
    H32(n_pools, 0, F, HO(n_pools));
    H32(n_pools, NPURL_MAX_POOLS + 1, F, HO(n_pools));
    H32(n_pools, 0xFFFFFFFFu, F, HO(n_pools));
    if (b->split) {
        H32(n_pools, h.n_pools - 1, F, HO(flags)); /* the params pool is the last */
    } else if (pool_at(b, h.n_pools - 1)->size == 0) {
        /* the last pool is an empty state pool: the file stays consistent */
        CHECK(pool_at(b, h.n_pools - 1)->kind == NPURL_K_STATE);
        H32(n_pools, h.n_pools - 1, OK, 0);
    } else {
        /* a state pool with bytes (the variables of CPU ops, an SVDF's
         * state): the header's state size names the missing pool */
        CHECK(pool_at(b, h.n_pools - 1)->kind == NPURL_K_STATE);
        H32(n_pools, h.n_pools - 1, F, HO(state_size));
    }
    /* one more descriptor: the first relocations read as a pool */
    mut32(C_HEADER, b, HO(n_pools), h.n_pools + 1, "n_pools + 1", F, pool_off(b, h.n_pools), pool_off(b, h.n_pools + 1) - 1);
    H32(pools_off, h.pools_off + 4, F, HO(pools_off));
    H32(pools_off, 0, F, HO(pools_off));
    H32(pools_off, sizeof h - 8, F, HO(pools_off));
    H32(pools_off, fs, F, HO(pools_off));
    H32(pools_off, 0xFFFFFFF8u, F, HO(pools_off));
    mut32(C_HEADER, b, HO(pools_off), h.pools_off + 8, "pools_off + 8", F, h.pools_off + 8, h.pools_off + 8 + h.n_pools * 48 - 1);
    mut32(C_HEADER, b, HO(pools_off), h.pools_off + 48, "pools_off + 48", F, h.pools_off + 48, h.pools_off + 48 + h.n_pools * 48 - 1);
    H32(relocs_off, h.relocs_off + 4, F, HO(relocs_off));
    H32(relocs_off, 0, F, HO(relocs_off));
    H32(relocs_off, fs, F, HO(relocs_off));
    H32(relocs_off, 0xFFFFFFF0u, F, HO(relocs_off));
    H32(relocs_off, h.relocs_off + 16, F, b->model_off);   /* overlaps the model section */
    H32(relocs_off, h.relocs_off - 16, F, h.relocs_off - 16); /* overlaps the pool table */
    H32(n_relocs, h.n_relocs + 1, F, b->model_off);
    H32(n_relocs, h.n_relocs - 1, F, HO(n_relocs));
    H32(n_relocs, 0, F, HO(n_relocs));
    H32(n_relocs, 0xFFFFFFFFu, F, HO(relocs_off));
    H32(n_epochs, h.n_epochs + 1, F, HO(n_epochs));
    H32(n_epochs, h.n_epochs - 1, F, HO(n_epochs));
    H32(n_inputs, h.n_inputs + 1, F, HO(n_inputs));
    H32(n_outputs, h.n_outputs + 1, F, HO(n_outputs));
    H32(n_outputs, 0, F, HO(n_outputs));
    if (b->split) {
        H32(params_file_size, h.params_file_size + 16, F, HO(params_file_size));
        H32(params_file_size, h.params_file_size - 16, F, HO(params_file_size));
        H32(params_file_size, 0, F, HO(params_file_size));
        mut8(C_HEADER, b, HO(params_sha256) + 7, h.params_sha256[7] ^ 0x10, "params_sha256[7] ^ 0x10",
             NPURT_E_DIGEST, HO(params_sha256), HO(params_sha256));
    } else {
        H32(params_file_size, 16, F, HO(params_file_size));
        /* the SHA-256 of a params file that does not exist is not read */
        mut8(C_HEADER, b, HO(params_sha256) + 7, 0x10, "params_sha256[7] in a single file", OK, 0, 0);
    }
    /* reserved words are not checked (a later minor version may use them) */
    H32(reserved[0], 1, OK, 0);
    H32(reserved[5], 0xFFFFFFFFu, OK, 0);
}

/* ---------------------------------------------------------- 3 bit flips */

/* Random single-bit flips, digest left alone. A flip the header checks
 * catch must fail there (get_info says how); any other must fail the
 * digest, or on the signed file with its key, a flip in the signature must
 * fail the signature. Unsigned files without a key: the signature bytes are
 * not read, so flips stop before them. */
static void bit_flips(base *b, int n)
{
    uint32_t end = b->sig ? b->size : b->body + 32;
    char what[64];
    for (int i = 0; i < n; i++) {
        uint32_t at = rnd(end), bit = rnd(8);
        b->work[at] ^= (uint8_t)(1u << bit);
        snprintf(what, sizeof what, "bit %u of byte %u", bit, at);
        npurt_reloc_info info;
        npurt_error ge = {0};
        int code;
        uint32_t off;
        int gi = npurt_reloc_get_info(b->work, b->size, &info, &ge);
        if (gi) {
            code = gi;
            off = ge.offset;
        } else if (at >= b->body + 32) {
            code = NPURT_E_SIGNATURE;
            off = b->body + 32;
        } else {
            code = NPURT_E_DIGEST;
            off = info.file_size - NPURL_TRAILER_SIZE;
        }
        npurt_reloc_config c = cfg_for(b);
        expect_at(C_FLIP, b->name, what, b->work, b->size, &c, code, off, off);
        b->work[at] ^= (uint8_t)(1u << bit);
    }
}

/* -------------------------------------------------------------- 4 pools */

static void pool_mutants(base *b)
{
    char what[96];
    const npurl_header *h = &b->h;
    for (uint32_t i = 0; i < h->n_pools; i++) {
        const npurl_pool p = *pool_at(b, i);
        const uint32_t at = pool_off(b, i);
        uint8_t *w = b->work + at;
#define PW(fmt, ...) (snprintf(what, sizeof what, "pool %u (%s): " fmt, i, p.name, __VA_ARGS__), what)
        memset(w, 'x', 16);
        expect_fixed(C_POOL, b, PW("%s", "name without NUL"), F, at, at);
        mut8(C_POOL, b, at + PO(kind), 0, PW("%s", "kind 0"), F, at + PO(kind), at + PO(kind));
        mut8(C_POOL, b, at + PO(kind), 7, PW("%s", "kind 7"), F, at + PO(kind), at + PO(kind));
        mut8(C_POOL, b, at + PO(kind), 0xFF, PW("%s", "kind 255"), F, at + PO(kind), at + PO(kind));
        if (i) mut8(C_POOL, b, at + PO(kind), pool_at(b, i - 1)->kind, PW("%s", "kind of the pool before"), F, at + PO(kind), at + PO(kind));
        /* flags: the cache hints are free, every other change breaks the kind's rule */
        for (uint32_t bit = 0; bit < 13; bit++) {
            uint32_t m = bit == 12 ? 0x80000000u : 1u << bit;
            int code = F;
            uint32_t where = at + PO(flags);
            if (m == NPURL_P_RCACHED || m == NPURL_P_WCACHED) code = OK;
            if (m == NPURL_P_RELOC) where = at + PO(dst);
            mut32(C_POOL, b, at + PO(flags), p.flags ^ m, PW("flags ^ %#x", m), code, where, where);
        }
        /* fixed addresses */
        mut32(C_POOL, b, at + PO(dst), 0x1000, PW("%s", "dst with RELOC"), F, at + PO(dst), at + PO(dst));
        set32(b->work, at + PO(flags), p.flags & ~NPURL_P_RELOC);
        mut32(C_POOL, b, at + PO(dst), 0x1008, PW("%s", "dst misaligned"), F, at + PO(dst), at + PO(dst));
        set32(b->work, at + PO(flags), p.flags & ~NPURL_P_RELOC);
        mut32(C_POOL, b, at + PO(dst), 0x1000, PW("%s", "dst outside the RAM"), NPURT_E_MEMORY, at + PO(dst), at + PO(dst));
        if (ram_low) {
            /* at the end of the RAM given: the relocatable pools fit before it */
            uint32_t top = (uint32_t)(uintptr_t)ram + h->ram_copy + SLACK;
            uint32_t dst = (top - p.size) & ~15u;
            bool param = p.kind == NPURL_K_MODEL || p.kind == NPURL_K_PARAMS;
            for (int copy = 0; copy < 2; copy++) {
                npurt_reloc_config c = cfg_for(b);
                c.mode = copy ? NPURT_RELOC_COPY : NPURT_RELOC_XIP;
                set32(b->work, at + PO(flags), p.flags & ~NPURL_P_RELOC);
                set32(b->work, at + PO(dst), dst);
                bool ok = copy || !param;
                expect_cfg(C_POOL, b, PW("fixed at the end of the RAM (%s)", copy ? "COPY" : "XIP"), &c, ok ? OK : NPURT_E_MEMORY,
                           ok ? 0 : at + PO(dst), ok ? 0 : at + PO(dst));
            }
            /* (a pool of size 0 at the RAM's end is inside it) */
            set32(b->work, at + PO(flags), p.flags & ~NPURL_P_RELOC);
            mut32(C_POOL, b, at + PO(dst), p.size ? top : top + 16, PW("%s", "fixed just past the RAM"), NPURT_E_MEMORY,
                  at + PO(dst), at + PO(dst));
            /* two fixed pools at one address */
            for (uint32_t j = 0; j < i; j++) {
                const npurl_pool *q = pool_at(b, j);
                if (!q->size || !p.size || q->kind == NPURL_K_MODEL || q->kind == NPURL_K_PARAMS) continue;
                set32(b->work, pool_off(b, j) + PO(flags), q->flags & ~NPURL_P_RELOC);
                set32(b->work, pool_off(b, j) + PO(dst), (uint32_t)(uintptr_t)ram + 4096);
                set32(b->work, at + PO(flags), p.flags & ~NPURL_P_RELOC);
                npurt_reloc_config c = cfg_for(b);
                c.mode = NPURT_RELOC_COPY;
                set32(b->work, at + PO(dst), (uint32_t)(uintptr_t)ram + 4096 + 16);
                snprintf(what, sizeof what, "pools %u and %u fixed, overlapping", j, i);
                expect_cfg(C_POOL, b, what, &c, NPURT_E_MEMORY, at + PO(dst), at + PO(dst));
            }
        }
        /* sizes */
        if (p.kind == NPURL_K_MODEL) {
            mut32(C_POOL, b, at + PO(size), p.size + 16, PW("%s", "size + 16"), F, at + PO(file_off), at + PO(file_off));
            set32(b->work, at + PO(file_size), p.file_size + 16);
            bool fits = p.file_off + p.file_size + 16 <= b->body;
            mut32(C_POOL, b, at + PO(size), p.size + 16, PW("%s", "size and file size + 16"), F,
                  fits ? HO(model_size) : at + PO(file_off), fits ? HO(model_size) : at + PO(file_off));
            mut32(C_POOL, b, at + PO(file_size), p.file_size - 16, PW("%s", "file size - 16"), F, at + PO(file_off), at + PO(file_off));
            mut32(C_POOL, b, at + PO(file_off), p.file_off + 8, PW("%s", "file_off + 8"), F, at + PO(file_off), at + PO(file_off));
            fits = p.file_off + 16 + p.file_size <= b->body;
            /* shifted by 16: outside, or the NPRT magic is not where it points */
            mut32(C_POOL, b, at + PO(file_off), p.file_off + 16, PW("%s", "file_off + 16"), F,
                  fits ? p.file_off + 16 : at + PO(file_off), fits ? p.file_off + 16 : at + PO(file_off));
            mut32(C_POOL, b, at + PO(file_off), 0, PW("%s", "file_off 0"), F, at + PO(file_off), at + PO(file_off));
            mut32(C_POOL, b, at + PO(file_off), 0xFFFFFFF0u, PW("%s", "file_off far outside"), F, at + PO(file_off), at + PO(file_off));
            mut32(C_POOL, b, at + PO(file_off), h->pools_off, PW("%s", "file range over the tables"), F, h->pools_off, h->pools_off);
        } else {
            static const struct { uint8_t kind; uint32_t field; } hf[] = {
                {NPURL_K_ACTIVATIONS, HO(acts_size)}, {NPURL_K_ADDR, HO(addr_size)}, {NPURL_K_STATE, HO(state_size)},
                {NPURL_K_FAST, HO(fast_size)}, {NPURL_K_PARAMS, HO(params_size)},
            };
            uint32_t field = 0;
            for (size_t k = 0; k < sizeof hf / sizeof hf[0]; k++)
                if (hf[k].kind == p.kind) field = hf[k].field;
            set32(b->work, at + PO(flags), p.flags & ~NPURL_P_UNUSED);
            mut32(C_POOL, b, at + PO(size), p.size + 16, PW("%s", "size + 16"), F, field, field);
            if (p.size) {
                mut32(C_POOL, b, at + PO(size), 0, PW("%s", "size 0"), F, at + PO(flags), at + PO(flags));
            } else {
                mut32(C_POOL, b, at + PO(size), 16, PW("%s", "UNUSED with size 16"), F, at + PO(flags), at + PO(flags));
            }
            /* only the model has contents in the file */
            set32(b->work, at + PO(file_off), b->model_off);
            mut32(C_POOL, b, at + PO(file_size), 16, PW("%s", "file range"), F, at + PO(file_off), at + PO(file_off));
            mut32(C_POOL, b, at + PO(file_off), b->model_off, PW("%s", "file_off"), F, at + PO(file_off), at + PO(file_off));
        }
#undef PW
    }
    /* the activations pool relabelled fast (whose flags it has): a required
     * pool is missing */
    for (uint32_t i = 0; i < h->n_pools; i++) {
        if (pool_at(b, i)->kind != NPURL_K_ACTIVATIONS) continue;
        b->work[pool_off(b, i) + PO(kind)] = NPURL_K_FAST;
        expect_fixed(C_POOL, b, "activations pool relabelled fast", F, h->pools_off, h->pools_off);
    }
}

/* --------------------------------------------------------- relocations */

static void reloc_mutants(base *b)
{
    const npurl_header *h = &b->h;
    uint32_t pick[4] = {0, 1, h->n_relocs / 2, h->n_relocs - 1};
    char what[96];
    for (int k = 0; k < 4; k++) {
        uint32_t r = pick[k];
        if (r >= h->n_relocs || (k && r == pick[k - 1])) continue;
        const uint32_t at = reloc_off(b, r);
        npurl_reloc rl;
        memcpy(&rl, b->file + at, sizeof rl);
#define RW(s) (snprintf(what, sizeof what, "reloc %u: %s", r, s), what)
        mut8(C_RELOC, b, at + RO(type), 0, RW("type 0"), F, at + RO(type), at + RO(type));
        mut8(C_RELOC, b, at + RO(type), 2, RW("type 2"), F, at + RO(type), at + RO(type));
        mut8(C_RELOC, b, at + RO(type), 0xFF, RW("type 255"), F, at + RO(type), at + RO(type));
        mut32(C_RELOC, b, at + RO(site), rl.site + 8, RW("site + 8"), F, at, at);
        mut32(C_RELOC, b, at + RO(site), rl.site + 4, RW("site + 4"), F, at, at);
        mut32(C_RELOC, b, at + RO(site), h->addr_size, RW("site past the table"), F, at, at);
        mut32(C_RELOC, b, at + RO(site), 0xFFFFFFF8u, RW("site far outside"), F, at, at);
        mut8(C_RELOC, b, at + RO(pool), (uint8_t)((rl.pool + 1) % h->n_pools), RW("next pool"), F, at + RO(pool), at + RO(pool));
        mut8(C_RELOC, b, at + RO(pool), (uint8_t)h->n_pools, RW("pool index = n_pools"), F, at + RO(pool), at + RO(pool));
        mut8(C_RELOC, b, at + RO(pool), 0xFF, RW("pool 255"), F, at + RO(pool), at + RO(pool));
        mut32(C_RELOC, b, at + RO(addend), rl.addend + 16, RW("addend + 16"), F, at + RO(addend), at + RO(addend));
        mut32(C_RELOC, b, at + RO(addend), 0xFFFFFFF0u, RW("addend far outside"), F, at + RO(addend), at + RO(addend));
        mut32(C_RELOC, b, at + RO(extent), rl.extent ^ 1u, RW("extent ^ 1"), F, at + RO(addend), at + RO(addend));
        mut32(C_RELOC, b, at + RO(extent), 0xFFFFFFFFu, RW("extent past the pool"), F, at + RO(addend), at + RO(addend));
        mut32(C_RELOC, b, at + RO(extent), rl.extent + 0x10000000u, RW("extent + 256 MiB"), F, at + RO(addend), at + RO(addend));
        /* the reserved half-word is not checked */
        set16(b->work, at + RO(reserved), 1);
        expect_fixed(C_RELOC, b, RW("reserved = 1"), OK, 0, 0);
        if (r + 1 < h->n_relocs) {
            memcpy(b->work + at, b->file + at + 16, 16);
            memcpy(b->work + at + 16, b->file + at, 16);
            expect_fixed(C_RELOC, b, RW("swapped with the next"), F, at, at);
            memcpy(b->work + at + 16, b->file + at, 16);
            expect_fixed(C_RELOC, b, RW("repeated"), F, at + 16, at + 16);
        }
#undef RW
    }
}

/* ------------------------------------------------------- NPRT container */

/* The NPRT container inside the model pool. The file's SHA-256 covers it,
 * so install skips the container's own CRC-32; its structure checks must
 * still hold once the digest is recomputed. */
static void nprt_mutants(base *b)
{
    const uint32_t m = b->model_off;
    const npurt_header *nh = (const npurt_header *)(b->file + m);
#define NO(f) (m + (uint32_t)offsetof(npurt_header, f))
    mut8(C_NPRT, b, m, b->file[m] ^ 1u, "NPRT magic", F, m, m);
    mut8(C_NPRT, b, NO(version_major), b->file[NO(version_major)] ^ 1u, "NPRT major version", NPURT_E_VERSION, m + 4, m + 4);
    mut32(C_NPRT, b, NO(size), nh->size + 16, "NPRT size + 16", F, NO(size), NO(size));
    mut32(C_NPRT, b, NO(size), nh->size - 8, "NPRT size misaligned", F, NO(size), NO(size));
    mut32(C_NPRT, b, NO(crc32), nh->crc32 ^ 1u, "NPRT CRC-32 (not read: the SHA-256 covers it)", OK, 0, 0);
    mut32(C_NPRT, b, NO(npu_config), nh->npu_config ^ 1u, "NPRT npu_config", F, HO(npu_config), HO(npu_config));
    mut32(C_NPRT, b, NO(npu_id), nh->npu_id ^ 1u, "NPRT npu_id", F, HO(npu_id), HO(npu_id));
    set16(b->work, NO(n_pools), 9);
    expect_fixed(C_NPRT, b, "NPRT n_pools = 9", F, NO(n_pools), NO(n_pools));
    mut32(C_NPRT, b, NO(pools_off), 0xFFFFFFF0u, "NPRT pools_off", F, NO(pools_off), NO(pools_off));
    mut32(C_NPRT, b, NO(tensors_off), nh->size, "NPRT tensors_off", F, NO(tensors_off), NO(tensors_off));
    mut32(C_NPRT, b, NO(epochs_off), nh->size - 4, "NPRT epochs_off", F, NO(epochs_off), NO(epochs_off));
    mut32(C_NPRT, b, NO(io_off), 0xFFFFFFFCu, "NPRT io_off", F, NO(io_off), NO(io_off));
    mut32(C_NPRT, b, NO(refs_off), nh->size + 16, "NPRT refs_off", F, NO(refs_off), NO(refs_off));
    mut32(C_NPRT, b, NO(refs_off), 2, "NPRT refs_off misaligned", F, NO(refs_off), NO(refs_off));
#undef NO
    if (b->body > m + b->model_size)
        mut8(C_NPRT, b, b->body - 1, 0x5A, "padding after the model", OK, 0, 0);
}

/* Random bytes of the container's tables changed, digest recomputed: the
 * result depends on the byte (a tensor's scale may take any value), so only
 * the status kind is fixed: accepted, or refused as malformed / another
 * version; either way nothing outside the RAM given is written. */
static void nprt_random(base *b, int n)
{
    const uint32_t m = b->model_off;
    const npurt_header *nh = (const npurt_header *)(b->file + m);
    /* the tables end where the first pool's data (or the strings) begins */
    uint32_t end = nh->strings_off + nh->strings_size;
    const npurt_pool_rec *pr = (const npurt_pool_rec *)(b->file + m + nh->pools_off);
    for (uint32_t i = 0; i < nh->n_pools; i++)
        if (pr[i].data_size && pr[i].data_off > end) end = pr[i].data_off;
    if (end > nh->size) end = nh->size;
    char what[64];
    for (int i = 0; i < n; i++) {
        uint32_t at = 16 + rnd(end - 16);
        uint8_t v = (uint8_t)rnd(256);
        if (v == b->file[m + at]) v ^= 0x80;
        b->work[m + at] = v;
        fix_digest(b->work, b->size);
        snprintf(what, sizeof what, "NPRT byte %u = %#x", at, v);
        npurt_reloc_config c = cfg_for(b);
        c.public_key = NULL;
        int rc = expect_at(C_NPRT_RND, b->name, what, b->work, b->size, &c, EXPECT_ANY, 0, 0);
        n_rnd[rc == NPURT_OK ? 0 : rc == F ? 1 : rc == NPURT_E_VERSION ? 2 : 3]++;
        if (rc != NPURT_OK && rc != F && rc != NPURT_E_VERSION) {
            t_failures++;
            fprintf(stderr, "FAIL %s [nprt-random] %s: %s\n", b->name, what, npurt_status_name(rc));
        }
        reset(b);
    }
}

/* ------------------------------------------------ 5 digest and signature */

static void auth_mutants(base *b)
{
    npurt_reloc_config c = cfg_for(b);
    b->work[b->body + 5] ^= 0x20;
    expect_at(C_AUTH, b->name, "digest byte flipped", b->work, b->size, &c, NPURT_E_DIGEST, b->body, b->body);
    reset(b);
    memset(b->work + b->body, 0, 32);
    expect_at(C_AUTH, b->name, "digest zeroed", b->work, b->size, &c, NPURT_E_DIGEST, b->body, b->body);
    reset(b);
    b->work[100] ^= 1; /* a byte of the header nobody checks: ram_copy */
    CHECK(HO(ram_copy) <= 100 && 100 < HO(ram_copy) + 4);
    expect_at(C_AUTH, b->name, "ram_copy changed, digest not", b->work, b->size, &c, NPURT_E_DIGEST, b->body, b->body);
    reset(b);
    if (!b->sig) {
        c.public_key = pub_key;
        expect_at(C_AUTH, b->name, "key given, file not signed", b->work, b->size, &c, NPURT_E_SIGNATURE, HO(flags), HO(flags));
        set32(b->work, HO(flags), b->h.flags | NPURL_F_SIGNED);
        fix_digest(b->work, b->size);
        expect_at(C_AUTH, b->name, "SIGNED flag set, no signature", b->work, b->size, &c, NPURT_E_SIGNATURE, b->body + 32, b->body + 32);
        reset(b);
    } else {
        uint8_t other_seed[32], other[32], bad[32];
        for (int i = 0; i < 32; i++) other_seed[i] = (uint8_t)(200 - i);
        npurt_ed25519_public_key(other_seed, other);
        c.public_key = other;
        expect_at(C_AUTH, b->name, "another public key", b->work, b->size, &c, NPURT_E_SIGNATURE, b->body + 32, b->body + 32);
        memset(bad, 0xFF, sizeof bad);
        c.public_key = bad;
        expect_at(C_AUTH, b->name, "public key that does not decode", b->work, b->size, &c, NPURT_E_SIGNATURE, b->body + 32, b->body + 32);
        c.public_key = pub_key;
        for (uint32_t at = b->body + 32; at < b->size; at += 7) {
            b->work[at] ^= 0x04;
            expect_at(C_AUTH, b->name, "signature byte flipped", b->work, b->size, &c, NPURT_E_SIGNATURE, b->body + 32, b->body + 32);
            reset(b);
        }
        c.public_key = NULL;
        expect_at(C_AUTH, b->name, "signed, no key: digest only", b->work, b->size, &c, OK, 0, 0);
        b->work[b->body + 40] ^= 1;
        expect_at(C_AUTH, b->name, "signature flipped, no key", b->work, b->size, &c, OK, 0, 0);
        reset(b);
        /* re-signed with the right key: the structure checks decide again */
        c.public_key = pub_key;
        set32(b->work, HO(ram_xip), 12345);
        fix_digest(b->work, b->size);
        resign(b->work);
        expect_at(C_AUTH, b->name, "re-signed, ram_xip changed", b->work, b->size, &c, OK, 0, 0);
        reset(b);
        set32(b->work, HO(acts_size), b->h.acts_size + 16);
        fix_digest(b->work, b->size);
        resign(b->work);
        expect_at(C_AUTH, b->name, "re-signed, acts_size changed", b->work, b->size, &c, F, HO(acts_size), HO(acts_size));
        reset(b);
    }
    if (b->split) {
        c = cfg_for(b);
        b->pwork[b->psize / 3] ^= 0x08;
        expect_at(C_AUTH, b->name, "params byte flipped", b->work, b->size, &c, NPURT_E_DIGEST, HO(params_sha256), HO(params_sha256));
        memcpy(b->pwork, b->params, b->psize);
        c.ext_params_size = b->psize - 16;
        expect_at(C_AUTH, b->name, "params file short by 16", b->work, b->size, &c, F, HO(params_file_size), HO(params_file_size));
        c.ext_params_size = 0;
        expect_at(C_AUTH, b->name, "params file empty", b->work, b->size, &c, F, HO(params_file_size), HO(params_file_size));
        c.ext_params = NULL;
        expect_at(C_AUTH, b->name, "params file missing", b->work, b->size, &c, NPURT_E_ARG, HO(flags), HO(flags));
        uint8_t *p2 = alloc_exact(b->psize + 32);
        memcpy(p2 + 16, b->params, b->psize);
        c.ext_params = p2 + 8;
        c.ext_params_size = b->psize;
        expect_at(C_AUTH, b->name, "params file misaligned", b->work, b->size, &c, NPURT_E_ARG, 0, 0);
        memset(p2, 0, b->psize + 32);
        c.ext_params = p2;
        expect_at(C_AUTH, b->name, "params file of zeros", b->work, b->size, &c, NPURT_E_DIGEST, HO(params_sha256), HO(params_sha256));
        memcpy(p2, b->params, b->psize);
        c.ext_params_size = b->psize + 32;
        expect_at(C_AUTH, b->name, "params file with 32 bytes more", b->work, b->size, &c, OK, 0, 0);
        free(p2);
    }
}

/* ------------------------------------------------------------- 6 RAM */

static void ram_mutants(base *b)
{
    const npurl_header *h = &b->h;
    const uint32_t acts = (h->acts_size + 15) & ~15u;
    for (int clear = 0; clear < 2; clear++) {
        uint32_t cl = clear ? NPURT_RELOC_CLEAR : 0;
        npurt_reloc_config c = cfg_for(b);
        c.mode = NPURT_RELOC_XIP | cl;
        c.exec_ram_size = h->ram_xip;
        expect_at(C_RAM, b->name, "XIP, exactly ram_xip", b->file, b->size, &c, OK, 0, 0);
        c.exec_ram_size = h->ram_xip - 16;
        expect_at(C_RAM, b->name, "XIP, ram_xip - 16", b->file, b->size, &c, NPURT_E_MEMORY, 0, 0);
        c.mode = NPURT_RELOC_COPY | cl;
        c.exec_ram_size = h->ram_copy;
        expect_at(C_RAM, b->name, "COPY, exactly ram_copy", b->file, b->size, &c, OK, 0, 0);
        c.exec_ram_size = h->ram_copy - 16;
        expect_at(C_RAM, b->name, "COPY, ram_copy - 16", b->file, b->size, &c, NPURT_E_MEMORY, 0, 0);
        /* activations in external RAM */
        for (int copy = 0; copy < 2; copy++) {
            c.mode = (copy ? NPURT_RELOC_COPY : NPURT_RELOC_XIP) | cl;
            c.exec_ram_size = (copy ? h->ram_copy : h->ram_xip) - acts;
            c.ext_ram = ram + c.exec_ram_size + GUARD;
            c.ext_ram_size = h->acts_size;
            expect_at(C_RAM, b->name, "ext RAM takes the activations", b->file, b->size, &c, OK, 0, 0);
            c.ext_ram_size = h->acts_size - 16;
            expect_at(C_RAM, b->name, "ext RAM too small", b->file, b->size, &c, NPURT_E_MEMORY, 0, 0);
            c.ext_ram_size = h->acts_size;
            c.exec_ram_size -= 16;
            expect_at(C_RAM, b->name, "exec RAM too small, ext RAM given", b->file, b->size, &c, NPURT_E_MEMORY, 0, 0);
            c.exec_ram_size += 16;
            c.ext_ram = ram + c.exec_ram_size - 16;
            expect_at(C_RAM, b->name, "ext RAM overlaps exec RAM", b->file, b->size, &c, NPURT_E_MEMORY, 0, 0);
            c.ext_ram = ram + c.exec_ram_size + GUARD + 8;
            expect_at(C_RAM, b->name, "ext RAM misaligned", b->file, b->size, &c, NPURT_E_MEMORY, 0, 0);
            c.ext_ram = b->work;
            c.ext_ram_size = b->size;
            expect_at(C_RAM, b->name, "ext RAM is the file", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
            c.ext_ram = NULL;
            c.ext_ram_size = 0;
        }
    }
    npurt_reloc_config c = cfg_for(b);
    c.exec_ram = ram + 8;
    expect_at(C_RAM, b->name, "exec RAM misaligned", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
    c.exec_ram = NULL;
    expect_at(C_RAM, b->name, "exec RAM NULL with a size", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
    c.exec_ram_size = 0;
    expect_at(C_RAM, b->name, "exec RAM NULL, size 0", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
    c.exec_ram = ram;
    expect_at(C_RAM, b->name, "exec RAM size 0", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
    /* RAM over the file: nothing may be written, so the file stays intact */
    c = cfg_for(b);
    c.exec_ram = b->work;
    c.exec_ram_size = b->size;
    expect_at(C_RAM, b->name, "exec RAM is the file", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
    uint8_t *big = alloc_exact((size_t)h->ram_copy + SLACK + b->size);
    memcpy(big + h->ram_copy + SLACK - 4096, b->file, b->size);
    c.exec_ram = big;
    c.exec_ram_size = h->ram_copy + SLACK;
    expect_at(C_RAM, b->name, "exec RAM ends inside the file", big + h->ram_copy + SLACK - 4096, b->size, &c, NPURT_E_MEMORY, 0, 0);
    free(big);
    if (b->split) {
        c = cfg_for(b);
        c.exec_ram = b->pwork;
        c.exec_ram_size = b->psize;
        expect_at(C_RAM, b->name, "exec RAM is the params file", b->work, b->size, &c, NPURT_E_MEMORY, 0, 0);
    }
    /* arguments */
    c = cfg_for(b);
    expect_at(C_RAM, b->name, "NULL file", NULL, b->size, &c, NPURT_E_ARG, 0, 0);
    uint8_t *mis = alloc_exact((size_t)b->size + 16);
    memcpy(mis + 8, b->file, b->size);
    expect_at(C_RAM, b->name, "file misaligned", mis + 8, b->size, &c, NPURT_E_ARG, 0, 0);
    free(mis);
    expect_at(C_RAM, b->name, "NULL config", b->work, b->size, NULL, NPURT_E_ARG, 0, 0);
    npurt_error e = {0};
    CHECK_EQ_INT(npurt_reloc_install(b->work, b->size, &c, NULL, &e), NPURT_E_ARG);
    n_mut[C_RAM]++;
    static const uint32_t bad_modes[] = {2, 0xFF, 0x200, NPURT_RELOC_COPY | 0x10000, 0x80000000u};
    for (size_t i = 0; i < sizeof bad_modes / sizeof bad_modes[0]; i++) {
        c.mode = bad_modes[i];
        expect_at(C_RAM, b->name, "unknown mode", b->work, b->size, &c, NPURT_E_ARG, 0, 0);
    }
    npurt_reloc_info info;
    CHECK_EQ_INT(npurt_reloc_get_info(b->work, b->size, NULL, &e), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_get_mem_pool_desc(b->work, b->size, 0, NULL, &e), NPURT_E_ARG);
    CHECK_EQ_INT(npurt_reloc_get_info(NULL, b->size, &info, &e), NPURT_E_ARG);
}

/* ------------------------------------------------------------ 7 target */

static void target_mutants(base *b)
{
    static const eu_variant vs[] = {EU_U55_32, EU_U55_64, EU_U55_128, EU_U55_256, EU_U65_256, EU_U65_512};
    const uint32_t a = b->h.npu_config;
    char what[96];
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        uint32_t w = eu_variant_config_word(vs[i]);
        npurt_reloc_config c = cfg_for(b);
        c.npu_config = w;
        bool same = (a >> 28) == (w >> 28) && (a & 0xFu) == (w & 0xFu) && ((a >> 4) & 0xFu) == ((w >> 4) & 0xFu);
        snprintf(what, sizeof what, "NPU %s", eu_variant_name(vs[i]));
        expect_at(C_TARGET, b->name, what, b->work, b->size, &c, same ? OK : NPURT_E_TARGET, same ? 0 : HO(npu_config),
                  same ? 0 : HO(npu_config));
    }
    npurt_reloc_config c = cfg_for(b);
    c.npu_config = a ^ 0x10u;
    expect_at(C_TARGET, b->name, "another command stream version", b->work, b->size, &c, NPURT_E_TARGET, HO(npu_config), HO(npu_config));
    c.npu_config = a ^ 0x0000FF00u; /* SHRAM and other bits: not the target */
    expect_at(C_TARGET, b->name, "other CONFIG bits differ", b->work, b->size, &c, OK, 0, 0);
    c = cfg_for(b);
    const uint32_t id = b->h.npu_id;
    static const struct { uint32_t id_xor; int ok; const char *what; } ids[] = {
        {0, 1, "same NPU ID"},
        {0x10000000u, 0, "another architecture major"},
        {0x0000FFFFu, 1, "another product revision"},
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        c.npu_id = id ^ ids[i].id_xor;
        expect_at(C_TARGET, b->name, ids[i].what, b->work, b->size, &c, ids[i].ok ? OK : NPURT_E_TARGET,
                  ids[i].ok ? 0 : HO(npu_id), ids[i].ok ? 0 : HO(npu_id));
    }
    uint32_t minor = (id >> 20) & 0xFFu;
    c.npu_id = (id & ~0x0FF00000u) | ((minor + 1) & 0xFFu) << 20;
    expect_at(C_TARGET, b->name, "newer architecture minor", b->work, b->size, &c, OK, 0, 0);
    if (minor) {
        c.npu_id = (id & ~0x0FF00000u) | (minor - 1) << 20;
        expect_at(C_TARGET, b->name, "older architecture minor", b->work, b->size, &c, NPURT_E_TARGET, HO(npu_id), HO(npu_id));
    }
    /* the header's words must agree with the NPU given */
    set32(b->work, HO(npu_config), a ^ 1u);
    fix_digest(b->work, b->size);
    c = cfg_for(b);
    c.npu_config = a;
    expect_at(C_TARGET, b->name, "header MACs differ from the NPU's", b->work, b->size, &c,
              b->sig ? NPURT_E_SIGNATURE : NPURT_E_TARGET, b->sig ? b->body + 32 : HO(npu_config), b->sig ? b->body + 32 : HO(npu_config));
    reset(b);
}

/* --------------------------------------------------------------- setup */

/* A compiled model and what it refers to. */
typedef struct compiled {
    tfl_model *tm;
    graph *g;
    cc_model *cm;
} compiled;

static bool compile(const char *rel, eu_variant v, compiled *c)
{
    memset(c, 0, sizeof *c);
    char buf[512];
    const char *path = t_shared(rel, buf, sizeof buf);
    if (!path) return false;
    npuc_err err = {0};
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.optimise = CC_OPT_PERFORMANCE;
    if (tfl_read_file(path, &c->tm, &err) || graph_import(c->tm, &c->g, &err) || target_default(v, &opt.sys, &err) ||
        cc_compile(c->g, &opt, &c->cm, &err)) {
        fprintf(stderr, "%s: %s\n", rel, err.msg);
        CHECK(0);
        return false;
    }
    return true;
}

static void compiled_free(compiled *c)
{
    cc_model_free(c->cm);
    graph_free(c->g);
    tfl_model_free(c->tm);
}

static bool make_base(base *b, const char *name, const cc_model *cm, bool split, bool sig)
{
    memset(b, 0, sizeof *b);
    b->name = name;
    emit_reloc_options o = {.split = split, .sign_seed = sig ? sign_seed : NULL};
    emit_reloc_out out;
    npuc_err err = {0};
    if (emit_reloc(cm, "model", &o, &out, &err)) {
        fprintf(stderr, "%s: emit_reloc: %s\n", name, err.msg);
        CHECK(0);
        return false;
    }
    b->size = (uint32_t)out.file_size;
    b->file = alloc_exact(b->size);
    memcpy(b->file, out.file, b->size);
    b->work = alloc_exact(b->size);
    reset(b);
    if (split) {
        b->psize = (uint32_t)out.params_size;
        b->params = alloc_exact(b->psize);
        b->pwork = alloc_exact(b->psize);
        memcpy(b->params, out.params, b->psize);
        memcpy(b->pwork, out.params, b->psize);
    }
    emit_reloc_out_free(&out);
    b->split = split;
    b->sig = sig;
    memcpy(&b->h, b->file, sizeof b->h);
    b->body = b->size - NPURL_TRAILER_SIZE;
    const npurl_pool *m = pool_at(b, 0);
    CHECK(m->kind == NPURL_K_MODEL);
    b->model_off = m->file_off;
    b->model_size = m->file_size;
    return true;
}

static void free_base(base *b)
{
    free(b->file);
    free(b->work);
    free(b->params);
    free(b->pwork);
}

/* Seeds for fuzz/fuzz_reloc.c: a mode byte (see there), the file, then
 * the params file. */
static void write_seeds(const char *dir, const base *b)
{
    static const uint8_t modes[] = {0x00, 0x03, 0x04, 0x05, 0x0E, 0x14};
    for (size_t k = 0; k < sizeof modes; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s-%02x.nprl", dir, b->name, modes[k]);
        FILE *f = fopen(path, "wb");
        if (!f) continue;
        uint8_t m = modes[k] | (b->sig ? 0x20 : 0);
        fwrite(&m, 1, 1, f);
        fwrite(b->file, 1, b->size, f);
        if (b->split) fwrite(b->params, 1, b->psize, f);
        fclose(f);
    }
}

static void write_corpus(const base *bs, int n)
{
    const char *dir = getenv("NPUC_RELOC_CORPUS");
    if (!dir) return;
    for (int i = 0; i < n; i++) write_seeds(dir, &bs[i]);
    /* a small one too: the fuzzer gets through it fast */
    compiled hw;
    base b;
    if (compile("models/tflm/hello_world_int8.tflite", EU_U55_64, &hw) && make_base(&b, "hello_world", hw.cm, false, false)) {
        write_seeds(dir, &b);
        free_base(&b);
    }
    compiled_free(&hw);
}

int main(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 32; i++) sign_seed[i] = (uint8_t)(i + 1);
    npurt_ed25519_public_key(sign_seed, pub_key);
    compiled pd, kws;
    bool have = compile("models/tflm/person_detect.tflite", EU_U55_128, &pd);
    have = compile("models/tflm/keyword_scrambled_8bit.tflite", EU_U55_128, &kws) && have;
    if (!have) {
        printf("skip: shared models not found\n");
        compiled_free(&pd);
        compiled_free(&kws);
        TEST_MAIN_END();
    }
    base bs[4];
    int nb = 0;
    if (make_base(&bs[nb], "person_detect", pd.cm, false, false)) nb++;
    if (make_base(&bs[nb], "kws", kws.cm, false, false)) nb++;
    if (make_base(&bs[nb], "kws-split", kws.cm, true, false)) nb++;
    if (make_base(&bs[nb], "kws-signed", kws.cm, false, true)) nb++;
    compiled_free(&pd);
    compiled_free(&kws);
    /* the models cover what they should */
    CHECK(nb == 4);
    if (getenv("NPUC_RELOC_CORPUS")) {
        /* seeds only (tools/run_fuzz.sh) */
        write_corpus(bs, nb);
        for (int i = 0; i < nb; i++) free_base(&bs[i]);
        TEST_MAIN_END();
    }
    size_t cap = 0, maxf = 0, maxp = 0;
    for (int i = 0; i < nb; i++) {
        if ((size_t)bs[i].h.ram_copy + SLACK > cap) cap = bs[i].h.ram_copy + SLACK;
        if (bs[i].size + 64 > maxf) maxf = bs[i].size + 64;
        if (bs[i].psize + 64 > maxp) maxp = bs[i].psize + 64;
    }
    arena_init(2 * cap + GUARD);
    ref = malloc(maxf + cap);
    pref = malloc(maxp + cap);
    if (!ram_low) printf("note: exec RAM above 4 GiB, fixed-address pools inside it not tested\n");

    /* bit flips: 1000+, spread so that the big file does not dominate */
    static const int flips[4] = {250, 400, 250, 250};
    for (int i = 0; i < nb; i++) {
        base *b = &bs[i];
        npurt_reloc_config c = cfg_for(b);
        expect_at(C_HEADER, b->name, "pristine", b->work, b->size, &c, OK, 0, 0);
        n_mut[C_HEADER]--;
        truncations(b);
        header_mutants(b);
        bit_flips(b, flips[i]);
        pool_mutants(b);
        reloc_mutants(b);
        nprt_mutants(b);
        nprt_random(b, 150);
        auth_mutants(b);
        ram_mutants(b);
        target_mutants(b);
        CHECK(!memcmp(b->work, b->file, b->size));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsigned total = 0;
    printf("reloc mutants:");
    for (int k = 0; k < C_N; k++) {
        printf(" %s %u,", class_name[k], n_mut[k]);
        total += n_mut[k];
    }
    printf(" total %u (%d files, %.1f s); nprt-random: %u accepted, %u malformed, %u version\n", total, nb,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, n_rnd[0], n_rnd[1], n_rnd[2]);
    for (int i = 0; i < nb; i++) free_base(&bs[i]);
    free(ref);
    free(pref);
    free(pattern);
    munmap(arena, (arena_size + 4095) / 4096 * 4096);
    TEST_MAIN_END();
}
