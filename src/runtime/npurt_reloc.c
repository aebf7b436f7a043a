/* npurt: installing runtime-loadable models (include/npurt/reloc.h).
 *
 * Install checks first and writes after: the header, digest, signature,
 * target, every pool descriptor and file section, the NPRT model inside and
 * every relocation are checked against the file and the RAM given; only
 * then are pools copied, cleared and the address table patched. A
 * malformed or hostile file therefore fails with an error naming the field
 * and byte offset, and never writes a byte. Freestanding. */
#include "npurt/reloc.h"
#include "npurt/npurt_crypto.h"

#include "npurt_int.h"
#include "ethosu/eu_variant.h"

#include <string.h>

#define FAIL(code, idx, off, what) npurt_fail(err, code, -1, idx, off, what)

/* Offsets of header fields, for error reports. */
#define HOFF(f) ((uint32_t)offsetof(npurl_header, f))

/* CPU features this runtime was built with. */
static uint32_t cpu_have(void)
{
    uint32_t f = 0;
#if defined(__ARM_FP) || defined(__x86_64__) || defined(__aarch64__)
    f |= NPURL_CPU_FPU;
#endif
#if defined(__ARM_FEATURE_MVE)
    f |= NPURL_CPU_MVE;
#endif
#if defined(__ARM_FEATURE_DSP) || defined(__x86_64__) || defined(__aarch64__)
    f |= NPURL_CPU_DSP;
#endif
    return f;
}

/* Security state this runtime runs in: secure when built for the secure
 * side of TrustZone (CMSE secure code), non-secure otherwise. */
static uint32_t security_have(void)
{
#if defined(__ARM_FEATURE_CMSE) && (__ARM_FEATURE_CMSE & 2)
    return NPURL_SEC_SECURE;
#else
    return NPURL_SEC_NONSECURE;
#endif
}

const char *npurt_reloc_npu_name(uint32_t c)
{
    if (!c) return "none";
    eu_variant v;
    return eu_variant_from_config(c, &v) ? "unknown Ethos-U" : eu_variant_target(v);
}

static bool range_in(uint64_t off, uint64_t len, uint64_t lo, uint64_t hi)
{
    return off >= lo && off + len <= hi;
}

static bool c_name_ok(const char *s)
{
    uint32_t n = 0;
    while (n < NPURL_NAME_MAX && s[n]) n++;
    if (n == 0 || n == NPURL_NAME_MAX) return false;
    for (uint32_t i = 0; i < n; i++) {
        char c = s[i];
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(i && c >= '0' && c <= '9')) return false;
    }
    return true;
}

/* The header checks shared by get_info, get_mem_pool_desc and install. */
static int check_header(const void *file, size_t size, const npurl_header **out, npurt_error *err)
{
    if (!file) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("NULL file"));
    if ((uintptr_t)file % NPURL_ALIGN) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("model file not 16-byte aligned"));
    if (size < sizeof(npurl_header)) return FAIL(NPURT_E_FORMAT, -1, 0, NPURT_TEXT("file shorter than the header"));
    const npurl_header *h = file;
    if (h->magic != NPURL_MAGIC) return FAIL(NPURT_E_FORMAT, -1, 0, NPURT_TEXT("not an npuc loadable model (bad magic)"));
    if (h->version_major != NPURL_VERSION_MAJOR) return FAIL(NPURT_E_VERSION, -1, HOFF(version_major), NPURT_TEXT("format major version not supported"));
    if (h->header_size != sizeof *h) return FAIL(NPURT_E_FORMAT, -1, HOFF(header_size), NPURT_TEXT("header size field wrong"));
    if (h->file_size > size) return FAIL(NPURT_E_FORMAT, -1, HOFF(file_size), NPURT_TEXT("file truncated: shorter than its header says"));
    if (h->file_size % NPURL_ALIGN || h->file_size < sizeof *h + NPURL_TRAILER_SIZE)
        return FAIL(NPURT_E_FORMAT, -1, HOFF(file_size), NPURT_TEXT("file size field malformed"));
    if (h->runtime_major != NPURT_RUNTIME_VERSION_MAJOR) return FAIL(NPURT_E_VERSION, -1, HOFF(runtime_major), NPURT_TEXT("model needs another runtime version"));
    if (h->runtime_minor > NPURT_RUNTIME_VERSION_MINOR) return FAIL(NPURT_E_VERSION, -1, HOFF(runtime_minor), NPURT_TEXT("model needs a newer runtime version"));
    if (!c_name_ok(h->name)) return FAIL(NPURT_E_FORMAT, -1, HOFF(name), NPURT_TEXT("model name is not a NUL-terminated C identifier"));
    if (h->flags & ~(NPURL_F_SPLIT | NPURL_F_SIGNED)) return FAIL(NPURT_E_FORMAT, -1, HOFF(flags), NPURT_TEXT("unknown header flags"));
    if (h->security > NPURL_SEC_NONSECURE) return FAIL(NPURT_E_FORMAT, -1, HOFF(security), NPURT_TEXT("unknown security state"));
    if (h->n_pools == 0 || h->n_pools > NPURL_MAX_POOLS) return FAIL(NPURT_E_FORMAT, -1, HOFF(n_pools), NPURT_TEXT("pool count not 1..8"));
    uint32_t body_end = h->file_size - NPURL_TRAILER_SIZE;
    if (h->pools_off % 8 || !range_in(h->pools_off, (uint64_t)h->n_pools * sizeof(npurl_pool), sizeof *h, body_end))
        return FAIL(NPURT_E_FORMAT, -1, HOFF(pools_off), NPURT_TEXT("pool descriptor table outside the file"));
    if (h->relocs_off % 8 || !range_in(h->relocs_off, (uint64_t)h->n_relocs * sizeof(npurl_reloc), sizeof *h, body_end))
        return FAIL(NPURT_E_FORMAT, -1, HOFF(relocs_off), NPURT_TEXT("relocation table outside the file"));
    if (h->addr_size % 8) return FAIL(NPURT_E_FORMAT, -1, HOFF(addr_size), NPURT_TEXT("address table size not a multiple of 8"));
    if (!(h->flags & NPURL_F_SPLIT) && (h->params_file_size))
        return FAIL(NPURT_E_FORMAT, -1, HOFF(params_file_size), NPURT_TEXT("params file size set in a file that is not split"));
    *out = h;
    return NPURT_OK;
}

int npurt_reloc_get_info(const void *file, size_t size, npurt_reloc_info *info, npurt_error *err)
{
    const npurl_header *h;
    if (!info) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("NULL info"));
    int rc = check_header(file, size, &h, err);
    if (rc) return rc;
    memset(info, 0, sizeof *info);
    info->name = h->name;
    info->format_major = h->version_major;
    info->format_minor = h->version_minor;
    info->runtime_major = h->runtime_major;
    info->runtime_minor = h->runtime_minor;
    info->npu_config = h->npu_config;
    info->npu_id = h->npu_id;
    info->npu_macs = h->npu_config ? 1u << (h->npu_config & 0xFu) : 0;
    info->npu_product = (h->npu_config >> 28) & 0xFu;
    info->cpu_flags = h->cpu_flags;
    info->security = h->security;
    info->flags = h->flags;
    info->file_size = h->file_size;
    info->code_size = (h->flags & NPURL_F_SPLIT) || h->model_size < h->params_size ? h->model_size
                                                                                     : h->model_size - h->params_size;
    info->params_size = h->params_size;
    info->acts_size = h->acts_size;
    info->fast_size = h->fast_size;
    info->state_size = h->state_size;
    info->addr_size = h->addr_size;
    info->ext_ram_size = h->acts_size;
    info->ram_xip = h->ram_xip;
    info->ram_copy = h->ram_copy;
    info->params_file_size = h->params_file_size;
    info->n_pools = h->n_pools;
    info->n_relocs = h->n_relocs;
    info->n_epochs = h->n_epochs;
    info->n_inputs = h->n_inputs;
    info->n_outputs = h->n_outputs;
    return NPURT_OK;
}

int npurt_reloc_get_mem_pool_desc(const void *file, size_t size, uint32_t index, npurl_pool *out,
                                  npurt_error *err)
{
    const npurl_header *h;
    if (!out) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("NULL pool descriptor"));
    int rc = check_header(file, size, &h, err);
    if (rc) return rc;
    if (index >= h->n_pools) return FAIL(NPURT_E_ARG, (int32_t)index, 0, NPURT_TEXT("pool index out of range"));
    memcpy(out, (const uint8_t *)file + h->pools_off + index * sizeof *out, sizeof *out);
    return NPURT_OK;
}

/* ------------------------------------------------------------------ install */

/* What install learns about the file before it writes anything. */
typedef struct plan {
    const uint8_t *file;
    const npurl_header *h;
    const npurl_pool *pools;
    const npurl_reloc *relocs;
    int8_t pool_of[NPURL_K_ADDR + 1];   /* pool index of each kind, -1 absent */
    uint8_t *dst[NPURL_MAX_POOLS];      /* where each pool goes (NULL: stays in the file / none) */
    const uint8_t *src[NPURL_MAX_POOLS];/* contents to copy, NULL: none */
    uint32_t exec_used, ext_used;
} plan;

/* Flags each kind must have and may have. */
static int pool_flags_ok(const npurl_pool *p)
{
    uint32_t f = p->flags, must = 0, may = NPURL_P_RELOC | NPURL_P_RCACHED | NPURL_P_WCACHED | NPURL_P_UNUSED;
    switch (p->kind) {
    case NPURL_K_MODEL: must = NPURL_P_PARAM | NPURL_P_COPY; break;
    case NPURL_K_PARAMS: must = NPURL_P_PARAM | NPURL_P_COPY | NPURL_P_EXTERNAL; break;
    case NPURL_K_ACTIVATIONS:
    case NPURL_K_FAST: must = NPURL_P_ACTIV | NPURL_P_WRITE; break;
    case NPURL_K_STATE: must = NPURL_P_ACTIV | NPURL_P_WRITE | NPURL_P_RESET; break;
    case NPURL_K_ADDR: must = NPURL_P_WRITE | NPURL_P_RESET; break;
    default: return 0;
    }
    if (f & NPURL_P_MIXED) return 0;
    return (f & must) == must && !(f & ~(must | may));
}

static int check_pools(plan *pl, npurt_error *err)
{
    const npurl_header *h = pl->h;
    uint32_t body_end = h->file_size - NPURL_TRAILER_SIZE;
    for (int k = 0; k <= NPURL_K_ADDR; k++) pl->pool_of[k] = -1;
    for (uint32_t i = 0; i < h->n_pools; i++) {
        const npurl_pool *p = &pl->pools[i];
        uint32_t at = h->pools_off + i * (uint32_t)sizeof *p;
        if (!memchr(p->name, 0, sizeof p->name)) return FAIL(NPURT_E_FORMAT, (int32_t)i, at, NPURT_TEXT("pool name not NUL-terminated"));
        if (p->kind < NPURL_K_MODEL || p->kind > NPURL_K_ADDR) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 20, NPURT_TEXT("unknown pool kind"));
        if (pl->pool_of[p->kind] >= 0) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 20, NPURT_TEXT("two pools of one kind"));
        pl->pool_of[p->kind] = (int8_t)i;
        if (!pool_flags_ok(p)) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 16, NPURT_TEXT("pool flags do not fit its kind"));
        if (!(p->flags & NPURL_P_UNUSED) != !!p->size) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 16, NPURT_TEXT("UNUSED flag does not match the pool size"));
        if (!(p->flags & NPURL_P_RELOC) == !p->dst) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 32, NPURT_TEXT("RELOC flag does not match the destination address"));
        if (p->dst % NPURL_ALIGN) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 32, NPURT_TEXT("pool destination not 16-byte aligned"));
        bool has_data = p->kind == NPURL_K_MODEL;
        if (has_data) {
            if (p->file_off % NPURL_ALIGN || p->file_size != p->size || !range_in(p->file_off, p->file_size, sizeof *h, body_end))
                return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 24, NPURT_TEXT("pool contents outside the file or misaligned"));
        } else if (p->file_off || p->file_size) {
            return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 24, NPURT_TEXT("pool without file contents has a file range"));
        }
    }
    static const struct { uint8_t kind; uint32_t field; } need[] = {
        {NPURL_K_MODEL, HOFF(model_size)}, {NPURL_K_ACTIVATIONS, HOFF(acts_size)}, {NPURL_K_ADDR, HOFF(addr_size)},
    };
    for (uint32_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (pl->pool_of[need[k].kind] < 0) return FAIL(NPURT_E_FORMAT, -1, h->pools_off, NPURT_TEXT("a required pool (model, activations, addr) is missing"));
    bool split = h->flags & NPURL_F_SPLIT;
    if (split != (pl->pool_of[NPURL_K_PARAMS] >= 0)) return FAIL(NPURT_E_FORMAT, -1, HOFF(flags), NPURT_TEXT("split flag and params pool disagree"));
    /* the sizes the header states are the pools' sizes */
    struct { int kind; uint32_t size, field; } sz[] = {
        {NPURL_K_MODEL, h->model_size, HOFF(model_size)}, {NPURL_K_ACTIVATIONS, h->acts_size, HOFF(acts_size)},
        {NPURL_K_ADDR, h->addr_size, HOFF(addr_size)}, {NPURL_K_FAST, h->fast_size, HOFF(fast_size)},
        {NPURL_K_STATE, h->state_size, HOFF(state_size)}, {NPURL_K_PARAMS, split ? h->params_size : 0, HOFF(params_size)},
    };
    for (uint32_t k = 0; k < sizeof sz / sizeof sz[0]; k++) {
        int pi = pl->pool_of[sz[k].kind];
        uint32_t have = pi >= 0 ? pl->pools[pi].size : 0;
        if (have != sz[k].size) return FAIL(NPURT_E_FORMAT, pi, sz[k].field, NPURT_TEXT("pool size differs from the header's"));
    }
    if (split && h->params_file_size != h->params_size) return FAIL(NPURT_E_FORMAT, -1, HOFF(params_file_size), NPURT_TEXT("params file size differs from the params size"));
    /* file sections may not overlap each other or the tables */
    struct { uint32_t off, len; } sec[NPURL_MAX_POOLS + 2];
    uint32_t ns = 0;
    sec[ns].off = h->pools_off; sec[ns++].len = h->n_pools * (uint32_t)sizeof(npurl_pool);
    sec[ns].off = h->relocs_off; sec[ns++].len = h->n_relocs * (uint32_t)sizeof(npurl_reloc);
    for (uint32_t i = 0; i < h->n_pools; i++)
        if (pl->pools[i].file_size) { sec[ns].off = pl->pools[i].file_off; sec[ns++].len = pl->pools[i].file_size; }
    for (uint32_t a = 0; a < ns; a++)
        for (uint32_t b = a + 1; b < ns; b++)
            if (sec[a].len && sec[b].len && sec[a].off < sec[b].off + sec[b].len && sec[b].off < sec[a].off + sec[a].len)
                return FAIL(NPURT_E_FORMAT, -1, sec[b].off, NPURT_TEXT("file sections overlap"));
    return NPURT_OK;
}

static int check_target(const npurl_header *h, const npurt_reloc_config *cfg, npurt_error *err)
{
    if (h->cpu_flags & ~cpu_have()) return FAIL(NPURT_E_TARGET, -1, HOFF(cpu_flags), NPURT_TEXT("model needs CPU features this runtime lacks"));
    if (h->security != NPURL_SEC_ANY && h->security != security_have())
        return FAIL(NPURT_E_TARGET, -1, HOFF(security), NPURT_TEXT("model built for the other security state"));
    if (h->npu_config && cfg->npu_config) {
        uint32_t a = h->npu_config, b = cfg->npu_config;
        if ((a >> 28) != (b >> 28)) return FAIL(NPURT_E_TARGET, -1, HOFF(npu_config), NPURT_TEXT("model built for another NPU product"));
        if ((a & 0xFu) != (b & 0xFu)) return FAIL(NPURT_E_TARGET, -1, HOFF(npu_config), NPURT_TEXT("model built for another NPU MACs/cycle configuration"));
        if (((a >> 4) & 0xFu) != ((b >> 4) & 0xFu)) return FAIL(NPURT_E_TARGET, -1, HOFF(npu_config), NPURT_TEXT("model built for another command stream version"));
    }
    if (h->npu_config && cfg->npu_id && ((h->npu_id >> 28) != (cfg->npu_id >> 28) ||
                                         ((h->npu_id >> 20) & 0xFFu) > ((cfg->npu_id >> 20) & 0xFFu)))
        return FAIL(NPURT_E_TARGET, -1, HOFF(npu_id), NPURT_TEXT("model built for a newer NPU architecture"));
    return NPURT_OK;
}

/* Slot k of the address table as the NPRT model defines it: which NPRT
 * pool it points into, at what offset, reaching how far; pool -1 for an
 * empty slot. Walks the epochs (install calls it slot by slot, in order,
 * keeping the walk position in *cur). */
typedef struct slot_cursor { uint32_t epoch, first; } slot_cursor;

static int32_t slot_of(const npurt_model *m, uint32_t k, slot_cursor *cur, uint32_t *off, uint32_t *ext)
{
    int pp = m->pool_of_kind[NPURT_POOL_PARAMS], pa = m->pool_of_kind[NPURT_POOL_ACTIVATIONS];
    int pf = m->pool_of_kind[NPURT_POOL_FAST], ps = m->pool_of_kind[NPURT_POOL_STATE];
    while (cur->epoch < m->h->n_epochs && k >= cur->first + npurt_epoch_slots(&m->epochs[cur->epoch])) {
        cur->first += npurt_epoch_slots(&m->epochs[cur->epoch]);
        cur->epoch++;
    }
    int32_t t;
    if (cur->epoch >= m->h->n_epochs) {
        t = m->io[k - cur->first];
    } else {
        const npurt_epoch_rec *e = &m->epochs[cur->epoch];
        uint32_t j = k - cur->first;
        if (e->kind == NPURT_EPOCH_HW) {
            switch (j) {
            case 0: *off = e->cmd_off; *ext = e->cmd_size; return pp;
            case 1: *off = e->flash_size ? e->flash_off : 0; *ext = e->flash_size; return pp;
            case 2: *off = 0; *ext = m->pools[pa].size; return pa;
            default:
                if (pf >= 0 && m->pools[pf].size) { *off = 0; *ext = m->pools[pf].size; return pf; }
                *off = 0; *ext = m->pools[pa].size; return pa;
            }
        }
        if (j == 0) { *off = e->params_off; *ext = e->params_size; return pp; }
        if (j == 1) { *off = e->scratch_off; *ext = e->scratch_size; return e->scratch_size ? pa : -1; }
        if (j == 2) { *off = e->persist_off; *ext = e->persist_size; return e->persist_size ? ps : -1; }
        t = m->refs[e->refs + j - 3];
    }
    if (t < 0) return -1;
    *off = m->tensors[t].offset;
    *ext = m->tensors[t].size;
    return m->tensors[t].pool;
}

/* The file's pool a slot into NPRT pool `np` refers to, and the offset of
 * that NPRT pool inside it. */
static int file_pool_of(const plan *pl, const npurt_model *m, int np, uint32_t *bias)
{
    *bias = 0;
    switch (m->pools[np].kind) {
    case NPURT_POOL_PARAMS:
        if (pl->h->flags & NPURL_F_SPLIT) return pl->pool_of[NPURL_K_PARAMS];
        *bias = m->pools[np].data_off;
        return pl->pool_of[NPURL_K_MODEL];
    case NPURT_POOL_ACTIVATIONS: return pl->pool_of[NPURL_K_ACTIVATIONS];
    case NPURT_POOL_FAST: return pl->pool_of[NPURL_K_FAST];
    default: return pl->pool_of[NPURL_K_STATE];
    }
}

static int check_relocs(const plan *pl, const npurt_model *m, npurt_error *err)
{
    const npurl_header *h = pl->h;
    uint32_t n_slots = npurt_model_slots(m), r = 0;
    if ((uint64_t)n_slots * 8 != h->addr_size) return FAIL(NPURT_E_FORMAT, -1, HOFF(addr_size), NPURT_TEXT("address table size does not match the model"));
    slot_cursor cur = {0, 0};
    for (uint32_t k = 0; k < n_slots; k++) {
        uint32_t off = 0, ext = 0;
        int32_t np = slot_of(m, k, &cur, &off, &ext);
        if (np < 0) continue;
        uint32_t at = h->relocs_off + r * (uint32_t)sizeof(npurl_reloc);
        if (r >= h->n_relocs) return FAIL(NPURT_E_FORMAT, -1, HOFF(n_relocs), NPURT_TEXT("fewer relocations than the model has pointers"));
        const npurl_reloc *rl = &pl->relocs[r++];
        uint32_t bias;
        int fp = file_pool_of(pl, m, np, &bias);
        if (rl->type != NPURL_R_ADDR64) return FAIL(NPURT_E_FORMAT, (int32_t)(r - 1), at + 4, NPURT_TEXT("unknown relocation type"));
        if (rl->site != k * 8u) return FAIL(NPURT_E_FORMAT, (int32_t)(r - 1), at, NPURT_TEXT("relocation site is not the next pointer of the address table"));
        if (fp < 0 || rl->pool != fp) return FAIL(NPURT_E_FORMAT, (int32_t)(r - 1), at + 5, NPURT_TEXT("relocation points into the wrong pool"));
        if ((uint64_t)off + bias != rl->addend || rl->extent != ext)
            return FAIL(NPURT_E_FORMAT, (int32_t)(r - 1), at + 8, NPURT_TEXT("relocation addend or extent differs from the model"));
        if (!range_in(rl->addend, rl->extent, 0, pl->pools[fp].size))
            return FAIL(NPURT_E_FORMAT, (int32_t)(r - 1), at + 8, NPURT_TEXT("relocation points outside its pool"));
    }
    if (r != h->n_relocs) return FAIL(NPURT_E_FORMAT, -1, HOFF(n_relocs), NPURT_TEXT("more relocations than the model has pointers"));
    return NPURT_OK;
}

/* Places the relocatable pools one after another in [base, base + size),
 * 16-byte aligned, stepping over pools with a fixed address. */
static int place(plan *pl, const uint8_t *order, uint32_t n, uint8_t *base, uint32_t size, uint32_t *used,
                 npurt_error *err)
{
    uintptr_t lo = (uintptr_t)base, cur = lo;
    for (uint32_t o = 0; o < n; o++) {
        int pi = pl->pool_of[order[o]];
        if (pi < 0 || !pl->pools[pi].size || pl->pools[pi].dst) continue;
        uint32_t sz = pl->pools[pi].size;
        for (bool moved = true; moved;) {
            moved = false;
            for (uint32_t j = 0; j < pl->h->n_pools; j++) {
                uintptr_t d = pl->pools[j].dst;
                if (d && cur < d + pl->pools[j].size && d < cur + sz) {
                    cur = (d + pl->pools[j].size + NPURL_ALIGN - 1) / NPURL_ALIGN * NPURL_ALIGN;
                    moved = true;
                }
            }
        }
        if ((uint64_t)(cur - lo) + sz > size)
            return FAIL(NPURT_E_MEMORY, pi, 0, NPURT_TEXT("RAM given too small for the model's pools"));
        pl->dst[pi] = (uint8_t *)cur;
        cur = (cur + sz + NPURL_ALIGN - 1) / NPURL_ALIGN * NPURL_ALIGN;
    }
    /* pools are 16-byte aligned; the last one's rounding may pass the end */
    *used = cur - lo < size ? (uint32_t)(cur - lo) : size;
    return NPURT_OK;
}

static bool overlap(uintptr_t a, uint64_t na, uintptr_t b, uint64_t nb)
{
    return na && nb && a < b + nb && b < a + na;
}

static int layout(plan *pl, const npurt_reloc_config *cfg, npurt_error *err)
{
    bool copy = (cfg->mode & 0xFFu) == NPURT_RELOC_COPY, ext = cfg->ext_ram != NULL;
    uintptr_t xr = (uintptr_t)cfg->exec_ram, er = (uintptr_t)cfg->ext_ram;
    if (cfg->exec_ram_size && !cfg->exec_ram) return FAIL(NPURT_E_MEMORY, -1, 0, NPURT_TEXT("exec RAM size given without an address"));
    if (xr % NPURL_ALIGN || er % NPURL_ALIGN) return FAIL(NPURT_E_MEMORY, -1, 0, NPURT_TEXT("exec or external RAM not 16-byte aligned"));
    if (ext && overlap(xr, cfg->exec_ram_size, er, cfg->ext_ram_size)) return FAIL(NPURT_E_MEMORY, -1, 0, NPURT_TEXT("exec RAM and external RAM overlap"));
    /* nothing written may touch the file or the params being read */
    uintptr_t f = (uintptr_t)pl->file, p = (uintptr_t)cfg->ext_params;
    if (overlap(xr, cfg->exec_ram_size, f, pl->h->file_size) || (ext && overlap(er, cfg->ext_ram_size, f, pl->h->file_size)))
        return FAIL(NPURT_E_MEMORY, -1, 0, NPURT_TEXT("the RAM given overlaps the model file"));
    if (cfg->ext_params && (overlap(xr, cfg->exec_ram_size, p, cfg->ext_params_size) ||
                            (ext && overlap(er, cfg->ext_ram_size, p, cfg->ext_params_size))))
        return FAIL(NPURT_E_MEMORY, -1, 0, NPURT_TEXT("the RAM given overlaps the params file"));
    /* fixed-address pools must lie inside the RAM given */
    for (uint32_t i = 0; i < pl->h->n_pools; i++) {
        const npurl_pool *q = &pl->pools[i];
        if (!q->dst) continue;
        bool in_x = q->dst >= xr && (uint64_t)q->dst + q->size <= (uint64_t)xr + cfg->exec_ram_size;
        bool in_e = ext && q->dst >= er && (uint64_t)q->dst + q->size <= (uint64_t)er + cfg->ext_ram_size;
        if (!in_x && !in_e) return FAIL(NPURT_E_MEMORY, (int32_t)i, pl->h->pools_off + i * (uint32_t)sizeof *q + 32, NPURT_TEXT("fixed pool address outside the RAM given"));
        if (q->kind == NPURL_K_MODEL || q->kind == NPURL_K_PARAMS) {
            if (!copy) return FAIL(NPURT_E_MEMORY, (int32_t)i, pl->h->pools_off + i * (uint32_t)sizeof *q + 32, NPURT_TEXT("fixed-address parameter pool needs COPY mode"));
        }
        pl->dst[i] = (uint8_t *)(uintptr_t)q->dst;
        for (uint32_t j = 0; j < i; j++)
            if (pl->pools[j].dst && overlap(q->dst, q->size, pl->pools[j].dst, pl->pools[j].size))
                return FAIL(NPURT_E_MEMORY, (int32_t)i, pl->h->pools_off + i * (uint32_t)sizeof *q + 32, NPURT_TEXT("fixed pools overlap"));
    }
    static const uint8_t exec_order[] = {NPURL_K_ADDR, NPURL_K_STATE, NPURL_K_FAST, NPURL_K_ACTIVATIONS,
                                         NPURL_K_MODEL, NPURL_K_PARAMS};
    uint8_t order[6];
    uint32_t n = 0;
    for (uint32_t o = 0; o < sizeof exec_order; o++) {
        uint8_t k = exec_order[o];
        if (k == NPURL_K_ACTIVATIONS && ext) continue;
        if ((k == NPURL_K_MODEL || k == NPURL_K_PARAMS) && !copy) continue;
        order[n++] = k;
    }
    int rc = place(pl, order, n, cfg->exec_ram, cfg->exec_ram_size, &pl->exec_used, err);
    if (rc) return rc;
    if (ext) {
        static const uint8_t ext_order[] = {NPURL_K_ACTIVATIONS};
        rc = place(pl, ext_order, 1, cfg->ext_ram, cfg->ext_ram_size, &pl->ext_used, err);
        if (rc) return rc;
    }
    /* pools left in place: the model in the file, split params where given */
    int pm = pl->pool_of[NPURL_K_MODEL], pp = pl->pool_of[NPURL_K_PARAMS];
    pl->src[pm] = pl->file + pl->pools[pm].file_off;
    if (!pl->dst[pm]) pl->dst[pm] = (uint8_t *)(uintptr_t)pl->src[pm];
    if (pp >= 0) {
        pl->src[pp] = cfg->ext_params;
        if (!pl->dst[pp]) pl->dst[pp] = (uint8_t *)(uintptr_t)cfg->ext_params;
    }
    return NPURT_OK;
}

/* Shifts every pointer of a validated model view to a byte-identical copy. */
static void rebase(npurt_model *m, const uint8_t *to)
{
    const uint8_t *from = m->blob;
#define MOVE(field, type) m->field = (type)(to + ((const uint8_t *)m->field - from))
    MOVE(h, const npurt_header *);
    MOVE(pools, const npurt_pool_rec *);
    MOVE(tensors, const npurt_tensor_rec *);
    MOVE(epochs, const npurt_epoch_rec *);
    MOVE(io, const int32_t *);
    MOVE(refs, const int32_t *);
    MOVE(strings, const char *);
#undef MOVE
    m->blob = to;
}

static int check_file(plan *pl, const void *file, size_t size, const npurt_reloc_config *cfg,
                      npurt_model *m, npurt_error *err)
{
    int rc = check_header(file, size, &pl->h, err);
    if (rc) return rc;
    const npurl_header *h = pl->h;
    pl->file = file;
    uint32_t body = h->file_size - NPURL_TRAILER_SIZE;
    uint8_t digest[32];
    npurt_sha256(pl->file, body, digest);
    if (!npurt_ct_equal(digest, pl->file + body, 32)) return FAIL(NPURT_E_DIGEST, -1, body, NPURT_TEXT("SHA-256 digest mismatch: the file is corrupt or was modified"));
    if (cfg->public_key) {
        if (!(h->flags & NPURL_F_SIGNED)) return FAIL(NPURT_E_SIGNATURE, -1, HOFF(flags), NPURT_TEXT("a signature is required and the file is not signed"));
        if (npurt_ed25519_verify(pl->file + body + 32, digest, 32, cfg->public_key))
            return FAIL(NPURT_E_SIGNATURE, -1, body + 32, NPURT_TEXT("Ed25519 signature does not verify with the key given"));
    }
    if ((rc = check_target(h, cfg, err))) return rc;
    if (cfg->mode & ~(0xFFu | NPURT_RELOC_CLEAR) || (cfg->mode & 0xFFu) > NPURT_RELOC_COPY)
        return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("unknown install mode"));
    pl->pools = (const npurl_pool *)(pl->file + h->pools_off);
    pl->relocs = (const npurl_reloc *)(pl->file + h->relocs_off);
    if ((rc = check_pools(pl, err))) return rc;
    if (h->flags & NPURL_F_SPLIT) {
        if (!cfg->ext_params) return FAIL(NPURT_E_ARG, -1, HOFF(flags), NPURT_TEXT("split model: the params file was not given"));
        if ((uintptr_t)cfg->ext_params % NPURL_ALIGN) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("params file not 16-byte aligned"));
        if (cfg->ext_params_size < h->params_file_size) return FAIL(NPURT_E_FORMAT, -1, HOFF(params_file_size), NPURT_TEXT("params file shorter than the model says"));
        npurt_sha256(cfg->ext_params, h->params_file_size, digest);
        if (!npurt_ct_equal(digest, h->params_sha256, 32)) return FAIL(NPURT_E_DIGEST, -1, HOFF(params_sha256), NPURT_TEXT("params file SHA-256 mismatch: wrong or corrupt params file"));
    }
    const npurl_pool *mp = &pl->pools[pl->pool_of[NPURL_K_MODEL]];
    npurt_error me;
    /* the SHA-256 above covered these bytes: the container's CRC-32 adds nothing */
    rc = npurt_model_load_ex(m, pl->file + mp->file_off, mp->file_size, false, &me);
    if (rc) {
        if (err) {
            *err = me;
            err->offset += mp->file_off;  /* offsets name bytes of this file */
        }
        return rc;
    }
    const npurt_header *mh = m->h;
    if (!(h->flags & NPURL_F_SPLIT) != !(mh->flags & NPURT_F_EXTERNAL_PARAMS))
        return FAIL(NPURT_E_FORMAT, -1, HOFF(flags), NPURT_TEXT("split flag disagrees with the model's external params"));
    if (h->npu_config != mh->npu_config) return FAIL(NPURT_E_FORMAT, -1, HOFF(npu_config), NPURT_TEXT("NPU words differ from the model's"));
    if (h->npu_id != mh->npu_id) return FAIL(NPURT_E_FORMAT, -1, HOFF(npu_id), NPURT_TEXT("NPU words differ from the model's"));
    if (h->n_epochs != mh->n_epochs) return FAIL(NPURT_E_FORMAT, -1, HOFF(n_epochs), NPURT_TEXT("epoch or input/output counts differ from the model's"));
    if (h->n_inputs != mh->n_inputs) return FAIL(NPURT_E_FORMAT, -1, HOFF(n_inputs), NPURT_TEXT("epoch or input/output counts differ from the model's"));
    if (h->n_outputs != mh->n_outputs) return FAIL(NPURT_E_FORMAT, -1, HOFF(n_outputs), NPURT_TEXT("epoch or input/output counts differ from the model's"));
    if ((uint32_t)mh->n_inputs + mh->n_outputs > NPURT_RELOC_MAX_IO)
        return FAIL(NPURT_E_FORMAT, -1, HOFF(n_inputs), NPURT_TEXT("more than 16 inputs and outputs"));
    static const struct { unsigned kind; uint32_t field; } ps[] = {
        {NPURT_POOL_PARAMS, HOFF(params_size)}, {NPURT_POOL_ACTIVATIONS, HOFF(acts_size)},
        {NPURT_POOL_FAST, HOFF(fast_size)}, {NPURT_POOL_STATE, HOFF(state_size)},
    };
    for (uint32_t k = 0; k < 4; k++)
        if (npurt_model_pool_size(m, ps[k].kind) != *(const uint32_t *)((const uint8_t *)h + ps[k].field))
            return FAIL(NPURT_E_FORMAT, -1, ps[k].field, NPURT_TEXT("pool size differs from the model's"));
    return check_relocs(pl, m, err);
}

int npurt_reloc_install(const void *file, size_t size, const npurt_reloc_config *cfg,
                        npurt_reloc_instance *ri, npurt_error *err)
{
    if (!cfg || !ri) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("NULL config or instance"));
    memset(ri, 0, sizeof *ri);
    plan pl;
    memset(&pl, 0, sizeof pl);
    npurt_model m;
    int rc = check_file(&pl, file, size, cfg, &m, err);
    if (!rc) rc = layout(&pl, cfg, err);
    if (rc) return rc;
    /* checked: from here on only writes into the RAM given */
    const npurl_header *h = pl.h;
    bool copy = (cfg->mode & 0xFFu) == NPURT_RELOC_COPY;
    for (uint32_t i = 0; i < h->n_pools; i++) {
        const npurl_pool *q = &pl.pools[i];
        if (!q->size) continue;
        bool param = q->kind == NPURL_K_MODEL || q->kind == NPURL_K_PARAMS;
        if (param && copy) memcpy(pl.dst[i], pl.src[i], q->size);
        else if ((q->flags & NPURL_P_RESET) || (!param && (cfg->mode & NPURT_RELOC_CLEAR))) memset(pl.dst[i], 0, q->size);
    }
    int pm = pl.pool_of[NPURL_K_MODEL];
    if (copy) rebase(&m, pl.dst[pm]);
    ri->model = m;
    uint64_t *addr = (uint64_t *)(uintptr_t)pl.dst[pl.pool_of[NPURL_K_ADDR]];
    for (uint32_t r = 0; r < h->n_relocs; r++) {
        const npurl_reloc *rl = &pl.relocs[r];
        addr[rl->site / 8] = (uint64_t)(uintptr_t)(pl.dst[rl->pool] + rl->addend);
    }
    int pp = pl.pool_of[NPURL_K_PARAMS], pa = pl.pool_of[NPURL_K_ACTIVATIONS];
    int pf = pl.pool_of[NPURL_K_FAST], ps = pl.pool_of[NPURL_K_STATE];
    npurt_memory mem;
    memset(&mem, 0, sizeof mem);
    mem.params = pp >= 0 ? pl.dst[pp] : NULL;
    mem.activations = pl.dst[pa];
    mem.activations_size = pl.pools[pa].size;
    if (pf >= 0) { mem.fast = pl.dst[pf]; mem.fast_size = pl.pools[pf].size; }
    if (ps >= 0) { mem.state = pl.dst[ps]; mem.state_size = pl.pools[ps].size; }
    if ((rc = npurt_init(&ri->rt, &ri->model, &mem, err))) {
        memset(ri, 0, sizeof *ri);
        return rc;
    }
    ri->rt.addr = addr;
    ri->rt.addr_io = addr + h->addr_size / 8 - ((uint32_t)h->n_inputs + h->n_outputs);
    ri->hdr = h;
    ri->mode = cfg->mode;
    for (uint32_t i = 0; i < h->n_pools; i++) ri->pool_base[i] = pl.dst[i];
    ri->addr = addr;
    ri->n_relocs = h->n_relocs;
    ri->ram_used = pl.exec_used;
    ri->ext_ram_used = pl.ext_used;
    ri->installed = NPURT_RELOC_INSTALLED;
    return NPURT_OK;
}

/* ------------------------------------------------------------------ using */

static bool ok(const npurt_reloc_instance *ri) { return ri && ri->installed == NPURT_RELOC_INSTALLED; }

int npurt_reloc_set_callbacks(npurt_reloc_instance *ri, npurt_reloc_callback cb, void *user)
{
    if (!ok(ri)) return NPURT_E_ARG;
    npurt_set_callback(&ri->rt, cb, user);
    return NPURT_OK;
}

uint32_t npurt_reloc_n_inputs(const npurt_reloc_instance *ri) { return ok(ri) ? ri->model.h->n_inputs : 0; }
uint32_t npurt_reloc_n_outputs(const npurt_reloc_instance *ri) { return ok(ri) ? ri->model.h->n_outputs : 0; }

static int io_info(const npurt_reloc_instance *ri, const npurt_tensor_rec *t, void *data, npurt_reloc_io_info *out)
{
    if (!t || !out) return NPURT_E_ARG;
    memset(out, 0, sizeof *out);
    out->name = npurt_model_string(&ri->model, t->name_off);
    out->dtype = t->dtype;
    out->rank = t->rank;
    for (uint32_t d = 0; d < t->rank; d++) out->shape[d] = t->shape[d];
    out->size = t->size;
    out->scale = t->scale;
    out->zero_point = t->zero_point;
    out->data = data;
    return NPURT_OK;
}

int npurt_reloc_input_info(const npurt_reloc_instance *ri, uint32_t i, npurt_reloc_io_info *out)
{
    if (!ok(ri)) return NPURT_E_ARG;
    return io_info(ri, npurt_model_input(&ri->model, i), npurt_input((npurt_instance *)(uintptr_t)&ri->rt, i, NULL), out);
}

int npurt_reloc_output_info(const npurt_reloc_instance *ri, uint32_t i, npurt_reloc_io_info *out)
{
    if (!ok(ri)) return NPURT_E_ARG;
    return io_info(ri, npurt_model_output(&ri->model, i), npurt_output((npurt_instance *)(uintptr_t)&ri->rt, i, NULL), out);
}

void *npurt_reloc_input(npurt_reloc_instance *ri, uint32_t i, uint32_t *size)
{
    return ok(ri) ? npurt_input(&ri->rt, i, size) : NULL;
}

void *npurt_reloc_output(npurt_reloc_instance *ri, uint32_t i, uint32_t *size)
{
    return ok(ri) ? npurt_output(&ri->rt, i, size) : NULL;
}

int npurt_reloc_set_input(npurt_reloc_instance *ri, uint32_t i, const void *buf)
{
    if (!ok(ri) || i >= ri->model.h->n_inputs) return NPURT_E_ARG;
    ri->in_buf[i] = buf;
    return NPURT_OK;
}

int npurt_reloc_set_output(npurt_reloc_instance *ri, uint32_t i, void *buf)
{
    if (!ok(ri) || i >= ri->model.h->n_outputs) return NPURT_E_ARG;
    ri->out_buf[i] = buf;
    return NPURT_OK;
}

int npurt_reloc_run(npurt_reloc_instance *ri)
{
    if (!ok(ri)) return NPURT_E_ARG;
    uint32_t n;
    for (uint32_t i = 0; i < ri->model.h->n_inputs; i++) {
        void *dst = npurt_input(&ri->rt, i, &n);
        if (ri->in_buf[i] && ri->in_buf[i] != dst) memcpy(dst, ri->in_buf[i], n);
    }
    int rc = npurt_run(&ri->rt);
    if (rc) return rc;
    for (uint32_t i = 0; i < ri->model.h->n_outputs; i++) {
        void *src = npurt_output(&ri->rt, i, &n);
        if (ri->out_buf[i] && ri->out_buf[i] != src) memcpy(ri->out_buf[i], src, n);
    }
    return NPURT_OK;
}

void npurt_reloc_uninstall(npurt_reloc_instance *ri)
{
    if (ri) memset(ri, 0, sizeof *ri);
}

/* The record sizes docs/reloc.md gives. */
_Static_assert(sizeof(npurl_header) == 192, "npurl_header is 192 bytes");
_Static_assert(sizeof(npurl_pool) == 48, "npurl_pool is 48 bytes");
_Static_assert(sizeof(npurl_reloc) == 16, "npurl_reloc is 16 bytes");
_Static_assert(offsetof(npurl_header, params_sha256) == 136, "params_sha256 at 136");
