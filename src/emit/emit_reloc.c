/* emit: the runtime-loadable model file (NPRL, include/npurt/reloc_format.h,
 * docs/reloc.md), its split params file, its JSON description and the
 * memory-layout table `npuc compile --output-format reloc` prints.
 *
 * The file wraps the NPRT container emit_npurt builds. Its pointers are
 * the runtime's address table: this writer walks the container's epochs
 * and writes one relocation per pointer, in the order the runtime reads
 * them (npurt_run); the loader derives the same list from the container
 * and refuses a file whose relocations differ. */
#include "emit.h"

#include "npurt/npurt_crypto.h"
#include "npurt/reloc_format.h"
#include "npurt/npurt_format.h"
#include "npurt/npurt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t align16(uint64_t n) { return (uint32_t)((n + 15) / 16 * 16); }

/* The container's parts the writer needs (it built them: no checks). */
typedef struct nprt_view {
    const npurt_header *h;
    const npurt_pool_rec *pools;
    const npurt_tensor_rec *tensors;
    const npurt_epoch_rec *epochs;
    const int32_t *io, *refs;
    int pool_of[4];
} nprt_view;

static void view_of(const uint8_t *blob, nprt_view *v)
{
    v->h = (const npurt_header *)blob;
    v->pools = (const npurt_pool_rec *)(blob + v->h->pools_off);
    v->tensors = (const npurt_tensor_rec *)(blob + v->h->tensors_off);
    v->epochs = (const npurt_epoch_rec *)(blob + v->h->epochs_off);
    v->io = (const int32_t *)(blob + v->h->io_off);
    v->refs = (const int32_t *)(blob + v->h->refs_off);
    for (int k = 0; k < 4; k++) v->pool_of[k] = -1;
    for (uint32_t i = 0; i < v->h->n_pools; i++) v->pool_of[v->pools[i].kind] = (int)i;
}

/* Relocation list under construction. File pool indices are fixed by
 * write_pools: 0 model, 1 addr, 2 activations, 3 state, then fast, params. */
typedef struct rlist {
    npurl_reloc *r;
    uint32_t n, cap, slot;
    int file_pool[4];         /* NPRT pool kind -> file pool index */
    uint32_t params_bias;     /* offset of the params inside the model pool */
    bool oom;
} rlist;

static void slot_empty(rlist *l) { l->slot++; }

static void slot_to(rlist *l, const nprt_view *v, int nprt_pool, uint32_t off, uint32_t extent)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        npurl_reloc *r = realloc(l->r, cap * sizeof *r);
        if (!r) {
            l->oom = true;
            l->slot++;
            return;
        }
        l->r = r;
        l->cap = cap;
    }
    unsigned kind = v->pools[nprt_pool].kind;
    npurl_reloc *e = &l->r[l->n++];
    memset(e, 0, sizeof *e);
    e->site = l->slot++ * 8u;
    e->type = NPURL_R_ADDR64;
    e->pool = (uint8_t)l->file_pool[kind];
    e->addend = off + (kind == NPURT_POOL_PARAMS ? l->params_bias : 0);
    e->extent = extent;
}

static void slot_tensor(rlist *l, const nprt_view *v, int32_t t)
{
    if (t < 0) slot_empty(l);
    else slot_to(l, v, v->tensors[t].pool, v->tensors[t].offset, v->tensors[t].size);
}

/* One relocation per pointer the runtime reads, in its order. */
static void build_relocs(rlist *l, const nprt_view *v)
{
    int pp = v->pool_of[NPURT_POOL_PARAMS], pa = v->pool_of[NPURT_POOL_ACTIVATIONS];
    int pf = v->pool_of[NPURT_POOL_FAST], ps = v->pool_of[NPURT_POOL_STATE];
    for (uint32_t i = 0; i < v->h->n_epochs; i++) {
        const npurt_epoch_rec *e = &v->epochs[i];
        if (e->kind == NPURT_EPOCH_HW) {
            slot_to(l, v, pp, e->cmd_off, e->cmd_size);
            slot_to(l, v, pp, e->flash_size ? e->flash_off : 0, e->flash_size);
            slot_to(l, v, pa, 0, v->pools[pa].size);
            int fast = pf >= 0 && v->pools[pf].size ? pf : pa;
            slot_to(l, v, fast, 0, v->pools[fast].size);
            continue;
        }
        slot_to(l, v, pp, e->params_off, e->params_size);
        if (e->scratch_size) slot_to(l, v, pa, e->scratch_off, e->scratch_size);
        else slot_empty(l);
        if (e->persist_size) slot_to(l, v, ps, e->persist_off, e->persist_size);
        else slot_empty(l);
        for (uint32_t k = 0; k < (uint32_t)e->n_in + e->n_out; k++) slot_tensor(l, v, v->refs[e->refs + k]);
    }
    for (uint32_t k = 0; k < (uint32_t)v->h->n_inputs + v->h->n_outputs; k++) slot_tensor(l, v, v->io[k]);
}

/* Moves the params out of a container: EXTERNAL_PARAMS flag, container cut
 * before them (emit_npurt puts them last), checksum redone. */
static void split_params(uint8_t *blob, size_t *size, size_t *params_off, size_t *params_size)
{
    npurt_header *h = (npurt_header *)blob;
    npurt_pool_rec *pools = (npurt_pool_rec *)(blob + h->pools_off);
    for (uint32_t i = 0; i < h->n_pools; i++) {
        if (pools[i].kind != NPURT_POOL_PARAMS) continue;
        *params_off = pools[i].data_off;
        *params_size = pools[i].data_size;
        pools[i].data_off = pools[i].data_size = 0;
    }
    h->flags |= NPURT_F_EXTERNAL_PARAMS;
    h->size = (uint32_t)*params_off;
    *size = *params_off;
    h->crc32 = npurt_format_crc32(blob + 16, h->size - 16);
}

static void pool_desc(npurl_pool *p, const char *name, uint8_t kind, uint32_t flags, uint32_t size)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->kind = kind;
    p->flags = flags | NPURL_P_RELOC | (size ? 0 : NPURL_P_UNUSED);
    p->size = size;
}

int emit_reloc(const cc_model *m, const char *name, const emit_reloc_options *o, emit_reloc_out *out,
               npuc_err *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *blob;
    size_t bsize;
    int rc = emit_npurt(m, name, &blob, &bsize, err);
    if (rc) return rc;
    bool split = o && o->split;
    size_t poff = 0, psize = 0;
    if (split) split_params(blob, &bsize, &poff, &psize);
    nprt_view v;
    view_of(blob, &v);

    npurl_header h;
    memset(&h, 0, sizeof h);
    h.magic = NPURL_MAGIC;
    h.version_major = NPURL_VERSION_MAJOR;
    h.version_minor = NPURL_VERSION_MINOR;
    h.header_size = sizeof h;
    h.runtime_major = NPURT_RUNTIME_VERSION_MAJOR;
    /* the oldest runtime that runs it: 1.1 reads the folded CALL_ONCE
     * initialisers (NPURT_F_VARS_INIT), which 1.0 would skip */
    h.runtime_minor = (v.h->flags & NPURT_F_VARS_INIT) ? 1 : 0;
    h.npu_config = v.h->npu_config;
    h.npu_id = v.h->npu_id;
    h.security = NPURL_SEC_ANY;
    h.flags = (split ? NPURL_F_SPLIT : 0) | (o && o->sign_seed ? NPURL_F_SIGNED : 0);
    emit_c_ident(name, h.name, sizeof h.name);
    h.params_size = v.pool_of[NPURT_POOL_PARAMS] >= 0 ? v.pools[v.pool_of[NPURT_POOL_PARAMS]].size : 0;
    h.acts_size = v.pool_of[NPURT_POOL_ACTIVATIONS] >= 0 ? v.pools[v.pool_of[NPURT_POOL_ACTIVATIONS]].size : 0;
    h.fast_size = v.pool_of[NPURT_POOL_FAST] >= 0 ? v.pools[v.pool_of[NPURT_POOL_FAST]].size : 0;
    h.state_size = v.pool_of[NPURT_POOL_STATE] >= 0 ? v.pools[v.pool_of[NPURT_POOL_STATE]].size : 0;
    h.model_size = (uint32_t)bsize;
    h.n_epochs = v.h->n_epochs;
    h.n_inputs = v.h->n_inputs;
    h.n_outputs = v.h->n_outputs;

    /* pools: fixed order, see rlist */
    npurl_pool pools[NPURL_MAX_POOLS];
    uint32_t np = 0;
    rlist l;
    memset(&l, 0, sizeof l);
    pool_desc(&pools[np++], "model", NPURL_K_MODEL, NPURL_P_PARAM | NPURL_P_RCACHED | NPURL_P_COPY, (uint32_t)bsize);
    uint32_t addr_pool = np;
    pool_desc(&pools[np++], "addr", NPURL_K_ADDR, NPURL_P_WRITE | NPURL_P_RESET, 0);
    l.file_pool[NPURT_POOL_ACTIVATIONS] = (int)np;
    pool_desc(&pools[np++], "activations", NPURL_K_ACTIVATIONS, NPURL_P_ACTIV | NPURL_P_WRITE | NPURL_P_RCACHED | NPURL_P_WCACHED, h.acts_size);
    l.file_pool[NPURT_POOL_STATE] = (int)np;
    pool_desc(&pools[np++], "state", NPURL_K_STATE, NPURL_P_ACTIV | NPURL_P_WRITE | NPURL_P_RESET, h.state_size);
    if (v.pool_of[NPURT_POOL_FAST] >= 0) {
        l.file_pool[NPURT_POOL_FAST] = (int)np;
        pool_desc(&pools[np++], "fast", NPURL_K_FAST, NPURL_P_ACTIV | NPURL_P_WRITE, h.fast_size);
    }
    if (split) {
        l.file_pool[NPURT_POOL_PARAMS] = (int)np;
        pool_desc(&pools[np++], "params", NPURL_K_PARAMS, NPURL_P_PARAM | NPURL_P_RCACHED | NPURL_P_COPY | NPURL_P_EXTERNAL, h.params_size);
    } else {
        l.file_pool[NPURT_POOL_PARAMS] = 0;
        l.params_bias = v.pool_of[NPURT_POOL_PARAMS] >= 0 ? v.pools[v.pool_of[NPURT_POOL_PARAMS]].data_off : 0;
    }
    build_relocs(&l, &v);
    if (l.oom) {
        free(l.r);
        free(blob);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    h.addr_size = l.slot * 8u;
    pools[addr_pool].size = h.addr_size;
    pools[addr_pool].flags &= ~NPURL_P_UNUSED;
    h.n_relocs = l.n;
    h.n_pools = np;
    /* exec RAM: addr, state, fast, activations; COPY adds model and params */
    h.ram_xip = align16(h.addr_size) + align16(h.state_size) + align16(h.fast_size) + align16(h.acts_size);
    h.ram_copy = h.ram_xip + align16(bsize) + (split ? align16(h.params_size) : 0);

    /* layout: header | pools | relocs | model | trailer */
    h.pools_off = sizeof h;
    h.relocs_off = h.pools_off + np * (uint32_t)sizeof(npurl_pool);
    uint32_t model_off = align16((uint64_t)h.relocs_off + (uint64_t)l.n * sizeof(npurl_reloc));
    pools[0].file_off = model_off;
    pools[0].file_size = (uint32_t)bsize;
    uint64_t body = (uint64_t)model_off + align16(bsize);
    if (body + NPURL_TRAILER_SIZE > 0xFFFFFFF0u) {
        free(l.r);
        free(blob);
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "loadable model larger than 4 GiB");
    }
    h.file_size = (uint32_t)body + NPURL_TRAILER_SIZE;
    if (split) {
        h.params_file_size = (uint32_t)psize;
        npurt_sha256(blob + poff, psize, h.params_sha256);
    }
    uint8_t *f = calloc(1, h.file_size);
    uint8_t *pf = split ? malloc(psize ? psize : 1) : NULL;
    if (!f || (split && !pf)) {
        free(f);
        free(pf);
        free(l.r);
        free(blob);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    memcpy(f, &h, sizeof h);
    memcpy(f + h.pools_off, pools, np * sizeof(npurl_pool));
    if (l.n) memcpy(f + h.relocs_off, l.r, l.n * sizeof(npurl_reloc));
    memcpy(f + model_off, blob, bsize);
    if (split) memcpy(pf, blob + poff, psize);
    npurt_sha256(f, (size_t)body, f + body);
    if (o && o->sign_seed) npurt_ed25519_sign(f + body + 32, f + body, 32, o->sign_seed);
    free(l.r);
    free(blob);
    out->file = f;
    out->file_size = h.file_size;
    out->params = pf;
    out->params_size = split ? psize : 0;
    return NPUC_OK;
}

void emit_reloc_out_free(emit_reloc_out *out)
{
    free(out->file);
    free(out->params);
    memset(out, 0, sizeof *out);
}

/* ------------------------------------------------------------ descriptions */

static void flag_names(uint32_t f, char *buf, size_t cap)
{
    static const struct { uint32_t bit; const char *name; } names[] = {
        {NPURL_P_RELOC, "RELOC"}, {NPURL_P_PARAM, "PARAM"}, {NPURL_P_ACTIV, "ACTIV"}, {NPURL_P_MIXED, "MIXED"},
        {NPURL_P_RCACHED, "RCACHED"}, {NPURL_P_WCACHED, "WCACHED"}, {NPURL_P_WRITE, "WRITE"},
        {NPURL_P_RESET, "RESET"}, {NPURL_P_COPY, "COPY"}, {NPURL_P_UNUSED, "UNUSED"}, {NPURL_P_EXTERNAL, "EXTERNAL"},
    };
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f & names[i].bit) n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", n ? "|" : "", names[i].name);
}

static const char *kind_name(uint8_t k)
{
    switch (k) {
    case NPURL_K_MODEL: return "model";
    case NPURL_K_PARAMS: return "params";
    case NPURL_K_ACTIVATIONS: return "activations";
    case NPURL_K_FAST: return "fast";
    case NPURL_K_STATE: return "state";
    case NPURL_K_ADDR: return "addr";
    default: return "?";
    }
}

/* The --target name of a CONFIG word (the compiler's own table). */
static const char *npu_name(uint32_t c)
{
    eu_variant v;
    if (!c) return "none";
    return sim_variant_from_config(c, &v, NULL) ? "unknown" : target_variant_name(v);
}

/* Also used by `npuc inspect` on files from elsewhere: the header's table
 * offsets must have been checked (npurt_reloc_get_info); names are printed
 * with bounded widths because they may lack their NUL. */
int emit_reloc_table(const emit_reloc_out *r, const char *file_name, char **out, npuc_err *err)
{
    const npurl_header *h = (const npurl_header *)r->file;
    const npurl_pool *p = (const npurl_pool *)(r->file + h->pools_off);
    npuc_sbuf t = {0};
    npuc_sb_printf(&t, "Runtime-loadable model '%.32s' for %s (%s%s)\n", h->name, npu_name(h->npu_config),
            h->flags & NPURL_F_SPLIT ? "split" : "single file", h->flags & NPURL_F_SIGNED ? ", signed" : "");
    npuc_sb_printf(&t, "  %-34s %10u B\n", file_name, h->file_size);
    if (h->flags & NPURL_F_SPLIT) npuc_sb_printf(&t, "  %-34s %10u B\n", "params file", h->params_file_size);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "params (weights, streams, LUTs)", h->params_size);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "model tables", (h->flags & NPURL_F_SPLIT) ? h->model_size : h->model_size - h->params_size);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "activations", h->acts_size);
    if (h->fast_size) npuc_sb_printf(&t, "  %-34s %10u B\n", "fast scratch", h->fast_size);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "state", h->state_size);
    npuc_sb_printf(&t, "  %-34s %10u B  (%u relocations)\n", "address table", h->addr_size, h->n_relocs);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "exec RAM, XIP mode", h->ram_xip);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "exec RAM, COPY mode", h->ram_copy);
    npuc_sb_printf(&t, "  %-34s %10u B\n", "  of which ext RAM may take", h->acts_size);
    npuc_sb_printf(&t, "  pool  %-12s %-40s %10s %10s %10s %10s\n", "name", "flags", "file off", "file size", "dst", "size");
    for (uint32_t i = 0; i < h->n_pools; i++) {
        char fl[128];
        flag_names(p[i].flags, fl, sizeof fl);
        npuc_sb_printf(&t, "  %4u  %-12.16s %-40s %10u %10u %#10x %10u\n", i, p[i].name, fl, p[i].file_off, p[i].file_size,
                p[i].dst, p[i].size);
    }
    return npuc_sb_finish(&t, out, err);
}

static void hex(npuc_sbuf *t, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) npuc_sb_printf(t, "%02x", p[i]);
}

int emit_reloc_json(const emit_reloc_out *r, const uint8_t *sign_seed, char **out, npuc_err *err)
{
    const npurl_header *h = (const npurl_header *)r->file;
    const npurl_pool *p = (const npurl_pool *)(r->file + h->pools_off);
    const uint8_t *trailer = r->file + h->file_size - NPURL_TRAILER_SIZE;
    npuc_sbuf t = {0};
    npuc_sb_printf(&t, "{\n  \"format\": \"npuc-loadable-model\",\n  \"format_version\": \"%u.%u\",\n", h->version_major, h->version_minor);
    npuc_sb_printf(&t, "  \"runtime_version\": \"%u.%u\",\n  \"name\": \"%s\",\n", h->runtime_major, h->runtime_minor, h->name);
    npuc_sb_printf(&t, "  \"target\": \"%s\",\n  \"npu_config\": %u,\n  \"npu_id\": %u,\n", npu_name(h->npu_config), h->npu_config, h->npu_id);
    npuc_sb_printf(&t, "  \"cpu_flags\": %u,\n  \"security\": \"%s\",\n  \"split\": %s,\n  \"signed\": %s,\n", h->cpu_flags,
            h->security == NPURL_SEC_SECURE ? "secure" : h->security == NPURL_SEC_NONSECURE ? "non-secure" : "any",
            h->flags & NPURL_F_SPLIT ? "true" : "false", h->flags & NPURL_F_SIGNED ? "true" : "false");
    npuc_sb_printf(&t, "  \"sizes\": {\"file\": %u, \"params_file\": %u, \"params\": %u, \"model\": %u, \"activations\": %u, "
                "\"fast\": %u, \"state\": %u, \"addr\": %u, \"exec_ram_xip\": %u, \"exec_ram_copy\": %u, \"ext_ram\": %u},\n",
            h->file_size, h->params_file_size, h->params_size, h->model_size, h->acts_size, h->fast_size,
            h->state_size, h->addr_size, h->ram_xip, h->ram_copy, h->acts_size);
    npuc_sb_printf(&t, "  \"epochs\": %u,\n  \"inputs\": %u,\n  \"outputs\": %u,\n  \"relocations\": %u,\n", h->n_epochs,
            h->n_inputs, h->n_outputs, h->n_relocs);
    npuc_sb_printf(&t, "  \"sha256\": \"");
    hex(&t, trailer, 32);
    if (h->flags & NPURL_F_SPLIT) {
        npuc_sb_printf(&t, "\",\n  \"params_sha256\": \"");
        hex(&t, h->params_sha256, 32);
    }
    if (sign_seed) {
        uint8_t pub[32];
        npurt_ed25519_public_key(sign_seed, pub);
        npuc_sb_printf(&t, "\",\n  \"public_key\": \"");
        hex(&t, pub, 32);
    }
    npuc_sb_printf(&t, "\",\n  \"pools\": [\n");
    for (uint32_t i = 0; i < h->n_pools; i++) {
        char fl[128];
        flag_names(p[i].flags, fl, sizeof fl);
        npuc_sb_printf(&t, "    {\"index\": %u, \"name\": \"%s\", \"kind\": \"%s\", \"flags\": \"%s\", \"file_offset\": %u, "
                    "\"file_size\": %u, \"dst\": %u, \"size\": %u}%s\n",
                i, p[i].name, kind_name(p[i].kind), fl, p[i].file_off, p[i].file_size, p[i].dst, p[i].size,
                i + 1 < h->n_pools ? "," : "");
    }
    npuc_sb_printf(&t, "  ]\n}\n");
    return npuc_sb_finish(&t, out, err);
}
