/* libFuzzer target: runtime-loadable models (include/npurt/reloc.h).
 * npurt_reloc_get_info, npurt_reloc_get_mem_pool_desc and
 * npurt_reloc_install on arbitrary files, then the accessors of an
 * installed model. Every input must give a status, never a crash, hang,
 * out-of-bounds access or sanitizer report; a refused install must not
 * have written a byte of the RAM given, an accepted one only that RAM, and
 * neither the file nor the params file.
 *
 * Input layout:
 *   u8 mode   bit 0: COPY (else XIP)      bit 1: CLEAR
 *             bit 2: recompute the trailer SHA-256 (and a split file's
 *                    params SHA-256) so that the fuzzer gets past the
 *                    digest to the structure checks
 *             bit 3: activations in external RAM
 *             bit 4: an unknown mode bit (install must refuse)
 *             bit 5: verify with the public key of the test's signing seed
 *   the file  as many bytes as its header's file_size says (all the rest if
 *             that is not a plausible size)
 *   the rest  the params file of a split model
 * Both are copied to 16-byte aligned buffers of exactly their size, so ASan
 * catches any read past them. test_reloc_mutate writes seeds in this
 * layout (NPUC_RELOC_CORPUS=dir). The HW epochs need a driver: nothing runs. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "npurt/npurt_crypto.h"
#include "npurt/reloc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GUARD 256u
#define EXEC_RAM (512u * 1024u)
#define EXT_RAM (128u * 1024u)
#define PAT 0xA5u

/* GUARD | exec RAM | GUARD | ext RAM | GUARD, mapped below 4 GiB when the
 * system allows, so that pools with a fixed 32-bit address can land in it. */
#define ARENA (EXEC_RAM + EXT_RAM + 3 * GUARD)
static uint8_t *arena, *exec_ram, *ext_ram;
static uint8_t pattern[ARENA];
static const size_t arena_size = ARENA;
static uint8_t pub_key[32];

static void init(void)
{
    void *p = mmap((void *)(uintptr_t)0x20000000u, arena_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    arena = p;
    memset(arena, PAT, arena_size);
    memset(pattern, PAT, arena_size);
    exec_ram = arena + GUARD;
    ext_ram = exec_ram + EXEC_RAM + GUARD;
    uint8_t seed[32];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)(i + 1);   /* as test_reloc_mutate */
    npurt_ed25519_public_key(seed, pub_key);
}

static bool all_pat(const uint8_t *p, size_t n) { return !memcmp(p, pattern, n); }

static uint32_t get32(const uint8_t *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

static bool in(const void *p, size_t n, const uint8_t *lo, size_t len)
{
    return (uintptr_t)p >= (uintptr_t)lo && (uintptr_t)p + n <= (uintptr_t)lo + len;
}

static void use_instance(npurt_reloc_instance *ri, bool ext)
{
    uint32_t ni = npurt_reloc_n_inputs(ri), no = npurt_reloc_n_outputs(ri);
    if (ni + no > NPURT_RELOC_MAX_IO) abort();
    for (uint32_t i = 0; i <= ni + no; i++) {
        npurt_reloc_io_info io;
        int rc = i < ni ? npurt_reloc_input_info(ri, i, &io) : npurt_reloc_output_info(ri, i - ni, &io);
        if (i == ni + no) {
            if (rc != NPURT_E_ARG) abort();
            break;
        }
        if (rc) abort();
        /* inputs and outputs live in the activations: in the RAM given */
        if (io.size && !in(io.data, io.size, exec_ram, EXEC_RAM) && !(ext && in(io.data, io.size, ext_ram, EXT_RAM)))
            abort();
        if (io.name) (void)strlen(io.name);
        uint32_t n = 0;
        void *d = i < ni ? npurt_reloc_input(ri, i, &n) : npurt_reloc_output(ri, i - ni, &n);
        if (d != io.data || n != io.size) abort();
    }
    if (npurt_reloc_set_input(ri, ni, NULL) != NPURT_E_ARG || npurt_reloc_set_output(ri, no, NULL) != NPURT_E_ARG)
        abort();
    npurt_reloc_uninstall(ri);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!arena) init();
    if (size < 1) return 0;
    const uint8_t mode = data[0];
    data++, size--;
    size_t fn = size;
    if (size >= 16) {
        uint32_t fs = get32(data, 12);
        if (fs >= sizeof(npurl_header) + NPURL_TRAILER_SIZE && fs <= size) fn = fs;
    }
    size_t pn = size - fn;
    uint8_t *file = NULL, *params = NULL, *fref = NULL;
    if (posix_memalign((void **)&file, 16, fn ? fn : 1) || posix_memalign((void **)&params, 16, pn ? pn : 1) ||
        !(fref = malloc(fn ? fn : 1)))
        abort();
    memcpy(file, data, fn);
    memcpy(params, data + fn, pn);

    if ((mode & 0x04) && fn >= sizeof(npurl_header) + NPURL_TRAILER_SIZE) {
        npurl_header *h = (npurl_header *)file;
        if ((h->flags & NPURL_F_SPLIT) && h->params_file_size <= pn) npurt_sha256(params, h->params_file_size, h->params_sha256);
        uint32_t fs = h->file_size;
        if (fs % NPURL_ALIGN == 0 && fs >= sizeof *h + NPURL_TRAILER_SIZE && fs <= fn)
            npurt_sha256(file, fs - NPURL_TRAILER_SIZE, file + fs - NPURL_TRAILER_SIZE);
    }
    memcpy(fref, file, fn);

    npurt_reloc_info info;
    npurt_error e;
    int gi = npurt_reloc_get_info(file, fn, &info, &e);
    if (gi == NPURT_OK) {
        if (info.n_pools < 1 || info.n_pools > NPURL_MAX_POOLS) abort();
        (void)strlen(info.name);
        (void)npurt_reloc_npu_name(info.npu_config);
        for (uint32_t i = 0; i <= info.n_pools; i++) {
            npurl_pool p;
            int rc = npurt_reloc_get_mem_pool_desc(file, fn, i, &p, &e);
            if (rc != (i < info.n_pools ? NPURT_OK : NPURT_E_ARG)) abort();
        }
    } else if (e.code != gi) {
        abort();
    }

    npurt_reloc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.exec_ram = exec_ram;
    cfg.exec_ram_size = EXEC_RAM;
    const bool ext = mode & 0x08;
    if (ext) {
        cfg.ext_ram = ext_ram;
        cfg.ext_ram_size = EXT_RAM;
    }
    cfg.ext_params = params;
    cfg.ext_params_size = (uint32_t)pn;
    cfg.mode = (mode & 0x01 ? NPURT_RELOC_COPY : NPURT_RELOC_XIP) | (mode & 0x02 ? NPURT_RELOC_CLEAR : 0) |
               (mode & 0x10 ? 0x400u : 0);
    cfg.public_key = mode & 0x20 ? pub_key : NULL;
    npurt_reloc_instance ri;
    memset(&e, 0, sizeof e);
    int rc = npurt_reloc_install(file, fn, &cfg, &ri, &e);
    switch (rc) {
    case NPURT_OK: case NPURT_E_FORMAT: case NPURT_E_VERSION: case NPURT_E_CRC: case NPURT_E_ARG:
    case NPURT_E_MEMORY: case NPURT_E_DIGEST: case NPURT_E_SIGNATURE: case NPURT_E_TARGET:
        break;
    default:
        abort();
    }
    /* install checks the header first, exactly as get_info does */
    if (gi != NPURT_OK && rc != gi) abort();
    if (rc == NPURT_OK) {
        if (gi != NPURT_OK || (mode & 0x10)) abort();
        use_instance(&ri, ext);
        /* only the RAM given was written: the guards hold the pattern */
        if (!all_pat(arena, GUARD) || !all_pat(exec_ram + EXEC_RAM, GUARD) || !all_pat(ext_ram + EXT_RAM, GUARD)) abort();
        memset(arena, PAT, arena_size);
    } else {
        if (e.code != rc) abort();
        /* refused: not a byte written */
        if (!all_pat(arena, arena_size)) abort();
    }
    if (memcmp(file, fref, fn) || memcmp(params, data + fn, pn)) abort();
    free(file);
    free(params);
    free(fref);
    return 0;
}
