/* target: variants, Vela's built-in system configs and memory modes, the
 * step from Vela's model of a system (system config + memory mode) to a
 * target description, and the one rule every command resolves its target
 * with (target_load, target_resolve). See target.h and
 * docs/system-config.md.
 *
 * The built-in tables hold the values of Arm's reference vela.ini for the
 * Ethos-U55 and Ethos-U65 systems (docs/ethos-u.md 1.4), in the same model
 * a vela.ini section is read into (vela_system, vela_mode), and both go
 * through target_from_vela: a vela.ini with Arm's sections gives exactly the
 * built-in descriptions (tests/test_cc_system.c checks it). */
#include "target_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

bool target_ieq_n(const char *s, size_t n, const char *t)
{
    size_t k = strlen(t);
    if (k != n) return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)s[i]) != ascii_lower((unsigned char)t[i])) return false;
    return true;
}

bool target_ieq(const char *s, const char *t) { return target_ieq_n(s, strlen(s), t); }

/* -------------------------------------------------------------- variants */

bool target_variant_valid(eu_variant v) { return eu_variant_get(v) != NULL; }

int target_variant_parse(const char *name, eu_variant *out, npuc_err *err)
{
    if (name && !eu_variant_by_target(name, out)) return NPUC_OK;
    return npuc_errf(err, NPUC_E_USAGE, "unknown target '%.80s' (valid: %s)",
                     name ? name : "(null)", TARGET_LIST);
}

const char *target_variant_name(eu_variant v) { return eu_variant_target(v); }

unsigned target_axi_bytes(eu_variant v) { return eu_variant_is_u65(v) ? 16 : 8; }

/* ------------------------------------------------------- memory areas */

const char *const TARGET_MEM_VELA[TM_N] = {"Sram", "Dram", "OnChipFlash", "OffChipFlash"};
const char *const TARGET_MEM_JSON[TM_N] = {"sram", "dram", "onchip_flash", "offchip_flash"};
/* the pool names descriptions built from Vela names use */
static const char *const MEM_POOL[TM_N] = {"sram", "dram", "onchip_flash", "flash"};

/* ------------------------------------------------------ built-in tables */

/* {clock_scale, burst_length, read_latency, write_latency, max_reads, max_writes, ports_used} */
#define SRAM(reads) {1.0, 32, 32, 32, reads, reads, 0}
#define FLASH(scale) {scale, 128, 64, 0, 2, 0, 0}
#define DRAM(scale, reads, writes) {scale, 128, 500, 250, reads, writes, 0}

static const vela_system SYSTEMS[] = {
    {"Ethos_U55_Deep_Embedded", 200e6, {TM_SRAM, TM_OFFCHIP_FLASH},
     {[TM_SRAM] = SRAM(8), [TM_OFFCHIP_FLASH] = FLASH(0.0625)}},
    {"Ethos_U55_High_End_Embedded", 500e6, {TM_SRAM, TM_OFFCHIP_FLASH},
     {[TM_SRAM] = SRAM(4), [TM_OFFCHIP_FLASH] = FLASH(0.125)}},
    {"Ethos_U65_Embedded", 500e6, {TM_SRAM, TM_OFFCHIP_FLASH},
     {[TM_SRAM] = SRAM(8), [TM_OFFCHIP_FLASH] = FLASH(0.0625)}},
    {"Ethos_U65_Mid_End", 500e6, {TM_SRAM, TM_DRAM}, {[TM_SRAM] = SRAM(8), [TM_DRAM] = DRAM(0.46875, 12, 6)}},
    {"Ethos_U65_High_End", 1e9, {TM_SRAM, TM_DRAM}, {[TM_SRAM] = SRAM(16), [TM_DRAM] = DRAM(0.234375, 24, 12)}},
    {"Ethos_U65_Client_Server", 1e9, {TM_SRAM, TM_DRAM}, {[TM_SRAM] = SRAM(16), [TM_DRAM] = DRAM(0.75, 24, 12)}},
};
#define N_SYSTEMS (sizeof SYSTEMS / sizeof SYSTEMS[0])
#undef SRAM
#undef FLASH
#undef DRAM

/* {name, const_mem_area, arena_mem_area, cache_mem_area, arena_cache_size} */
static const vela_mode MODES[] = {
    {"Sram_Only", 0, 0, 0, 0},
    {"Shared_Sram", 1, 0, 0, 0},
    {"Dedicated_Sram", 1, 1, 0, 0},   /* no arena_cache_size: TARGET_FAST_NO_LIMIT */
    {"Dedicated_Sram_256KB", 1, 1, 0, 256 * 1024},
    {"Dedicated_Sram_384KB", 1, 1, 0, 384 * 1024},
    {"Dedicated_Sram_512KB", 1, 1, 0, 512 * 1024},
};
#define N_MODES (sizeof MODES / sizeof MODES[0])
#define MODE_LIST \
    "Sram_Only, Shared_Sram, Dedicated_Sram, Dedicated_Sram_256KB, Dedicated_Sram_384KB, Dedicated_Sram_512KB"
#define SYSTEM_LIST                                                                                          \
    "Ethos_U55_Deep_Embedded, Ethos_U55_High_End_Embedded, Ethos_U65_Embedded, Ethos_U65_Mid_End, "         \
    "Ethos_U65_High_End, Ethos_U65_Client_Server"

/* Every sensible SYSTEM:MODE (test_cc_system checks this list against the
 * tables above). */
static const char *const NAMES[] = {
    "Ethos_U55_Deep_Embedded:Sram_Only",
    "Ethos_U55_Deep_Embedded:Shared_Sram",
    "Ethos_U55_High_End_Embedded:Sram_Only",
    "Ethos_U55_High_End_Embedded:Shared_Sram",
    "Ethos_U65_Embedded:Sram_Only",
    "Ethos_U65_Embedded:Shared_Sram",
    "Ethos_U65_Mid_End:Sram_Only",
    "Ethos_U65_Mid_End:Shared_Sram",
    "Ethos_U65_Mid_End:Dedicated_Sram",
    "Ethos_U65_Mid_End:Dedicated_Sram_256KB",
    "Ethos_U65_Mid_End:Dedicated_Sram_384KB",
    "Ethos_U65_Mid_End:Dedicated_Sram_512KB",
    "Ethos_U65_High_End:Sram_Only",
    "Ethos_U65_High_End:Shared_Sram",
    "Ethos_U65_High_End:Dedicated_Sram",
    "Ethos_U65_High_End:Dedicated_Sram_256KB",
    "Ethos_U65_High_End:Dedicated_Sram_384KB",
    "Ethos_U65_High_End:Dedicated_Sram_512KB",
    "Ethos_U65_Client_Server:Sram_Only",
    "Ethos_U65_Client_Server:Shared_Sram",
    "Ethos_U65_Client_Server:Dedicated_Sram",
    "Ethos_U65_Client_Server:Dedicated_Sram_256KB",
    "Ethos_U65_Client_Server:Dedicated_Sram_384KB",
    "Ethos_U65_Client_Server:Dedicated_Sram_512KB",
    NULL,
};

const char *const *target_builtin_names(void) { return NAMES; }

/* ------------------------------------------------------ defaulting rules */

const char *target_default_system_name(eu_variant v)
{
    return eu_variant_is_u65(v) ? "Ethos_U65_High_End" : "Ethos_U55_High_End_Embedded";
}

const char *target_default_mode_name(const vela_system *s, eu_variant v)
{
    return eu_variant_is_u65(v) && s->axi[1] == TM_DRAM ? "Dedicated_Sram" : "Shared_Sram";
}

int target_name_family(const char *system)
{
    static const int fam[] = {55, 65, 85};
    for (size_t i = 0; i < 3; i++) {
        char pre[16];
        snprintf(pre, sizeof pre, "Ethos_U%d_", fam[i]);
        if (system && strlen(system) >= 10 && target_ieq_n(system, 10, pre)) return fam[i];
    }
    return 0;
}

int target_check_family(const char *system, const char *mode, eu_variant v, npuc_err *err)
{
    int fam = target_name_family(system), want = eu_variant_is_u65(v) ? 65 : 55;
    if (!fam || fam == want) return NPUC_OK;
    if (fam == 85)
        return npuc_errf(err, NPUC_E_USAGE, "system '%s:%s' is for an Ethos-U85, which npuc does not compile for "
                         "(choose one of the Ethos_U%d_* systems)", system, mode, want);
    return npuc_errf(err, NPUC_E_USAGE, "system '%s:%s' is for an Ethos-U%d, but the target is %s (choose one of "
                     "the Ethos_U%d_* systems)", system, mode, fam, target_variant_name(v), want);
}

/* ------------------------------------------- Vela's model -> description */

int target_from_vela(const vela_system *s, const vela_mode *m, eu_variant v, target_desc *out, npuc_err *err)
{
    int kind[2] = {s->axi[0], s->axi[1]};
    vela_timing tm[2] = {s->mem[s->axi[0]], s->mem[s->axi[1]]};
    int cport = m->const_port;
    /* Vela: constants may not live in "Sram"; when everything is on one
     * port they move to the other port as OnChipFlash with SRAM timing */
    if (kind[cport] == TM_SRAM) {
        if (m->const_port != m->arena_port || m->arena_port != m->cache_port)
            return npuc_errf(err, NPUC_E_INVALID, "memory mode %s puts constants on AXI%d, which is %s in %s; "
                             "constants need Dram or flash", m->name, cport, TARGET_MEM_VELA[kind[cport]], s->name);
        cport = 1 - cport;
        kind[cport] = TM_ONCHIP_FLASH;
        tm[cport] = s->mem[TM_SRAM];
    }
    if (kind[m->arena_port] != TM_SRAM && kind[m->arena_port] != TM_DRAM)
        return npuc_errf(err, NPUC_E_INVALID, "memory mode %s puts the tensor arena on AXI%d, which is %s in %s; "
                         "the arena needs Sram or Dram", m->name, m->arena_port, TARGET_MEM_VELA[kind[m->arena_port]],
                         s->name);
    if (kind[m->cache_port] != TM_SRAM)
        return npuc_errf(err, NPUC_E_INVALID, "memory mode %s puts the cache on AXI%d, which is %s in %s; the "
                         "cache needs Sram", m->name, m->cache_port, TARGET_MEM_VELA[kind[m->cache_port]], s->name);
    /* Vela's "spilling": the SRAM is a cache for an arena elsewhere */
    bool spill = m->cache_port != m->arena_port;

    target_desc d;
    memset(&d, 0, sizeof d);
    if (snprintf(d.name, sizeof d.name, "%s:%s", s->name, m->name) >= (int)sizeof d.name)
        return npuc_errf(err, NPUC_E_INVALID, "system config '%s' and memory mode '%s': the names are too long "
                         "together (at most %d characters with the ':')", s->name, m->name, TARGET_NAME_MAX - 1);
    snprintf(d.system_config, sizeof d.system_config, "%s", s->name);
    snprintf(d.memory_mode, sizeof d.memory_mode, "%s", m->name);
    d.variant = v;
    d.core_clock_hz = s->core_clock;
    /* one pool per AXI port, holding what the memory mode puts there */
    for (int p = 0; p < 2; p++) {
        uint32_t use = 0;
        if (cport == p) use |= TARGET_POOL_PARAMS;
        if (m->arena_port == p) use |= TARGET_POOL_ACTIVATIONS;
        if (spill && m->cache_port == p) use |= TARGET_POOL_FAST;
        if (!use) continue;
        target_pool *q = &d.pools[d.n_pools++];
        snprintf(q->name, sizeof q->name, "%s", MEM_POOL[kind[p]]);
        q->memory = TARGET_MEM_VELA[kind[p]];
        q->use = use;
        /* Vela: in Shared_Sram the non-SRAM memory is read-only; whatever
         * holds activations or scratch is written */
        q->writable = (use & (TARGET_POOL_ACTIVATIONS | TARGET_POOL_FAST)) != 0;
        /* arena_cache_size: the cache when spilling, else the arena; Vela
         * does not limit the arena otherwise */
        if (use & TARGET_POOL_FAST) q->size = m->arena_cache_size ? m->arena_cache_size : TARGET_FAST_NO_LIMIT;
        else if ((use & TARGET_POOL_ACTIVATIONS) && !spill) q->size = m->arena_cache_size;
        q->axi_port = p;
        q->clock_ratio = tm[p].clock_scale;
        q->byte_width = target_axi_bytes(v);
        q->burst_bytes = tm[p].burst_length;
        q->read_latency = tm[p].read_latency;
        q->write_latency = tm[p].write_latency;
    }
    target_ld c;
    memset(&c, 0, sizeof c);
    c.err = err;
    c.v = v;
    int rc = target_finish(&d, s->name, &c);
    if (rc) return rc;
    *out = d;
    return NPUC_OK;
}

/* ------------------------------------------------------------ built-ins */

static int find_system(const char *name, size_t n)
{
    for (size_t i = 0; i < N_SYSTEMS; i++)
        if (target_ieq_n(name, n, SYSTEMS[i].name)) return (int)i;
    return -1;
}

static int find_mode(const char *name)
{
    for (size_t i = 0; name && i < N_MODES; i++)
        if (target_ieq(name, MODES[i].name)) return (int)i;
    return -1;
}

static int build_builtin(int si, int mi, eu_variant v, target_desc *out, npuc_err *err)
{
    const vela_system *s = &SYSTEMS[si];
    const vela_mode *m = &MODES[mi];
    int rc = target_check_family(s->name, m->name, v, err);
    if (rc) return rc;
    if (m->cache_port != m->arena_port && s->axi[1] != TM_DRAM)
        return npuc_errf(err, NPUC_E_USAGE,
                         "'%s:%s' is not a built-in system: %s keeps the tensor arena in DRAM on AXI1, but %s "
                         "has flash there (%s needs Ethos_U65_Mid_End, Ethos_U65_High_End or "
                         "Ethos_U65_Client_Server)", s->name, m->name, m->name, s->name, m->name);
    if ((rc = target_from_vela(s, m, v, out, err))) return npuc_err_prefix(err, "built-in system %s:%s", s->name, m->name);
    return NPUC_OK;
}

int target_builtin(const char *system, const char *mode, eu_variant v, target_desc *out, npuc_err *err)
{
    if (!out) return npuc_errf(err, NPUC_E_USAGE, "target_builtin: NULL argument");
    if (!target_variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    int si = system ? find_system(system, strlen(system)) : -1;
    if (si < 0)
        return npuc_errf(err, NPUC_E_USAGE, "unknown system config '%.100s' (built-in: " SYSTEM_LIST ")",
                         system ? system : "(null)");
    const char *mname = mode ? mode : target_default_mode_name(&SYSTEMS[si], v);
    int mi = find_mode(mname);
    if (mi < 0)
        return npuc_errf(err, NPUC_E_USAGE, "unknown memory mode '%.60s' in '%.60s:%.60s' (valid: " MODE_LIST ")",
                         mname, system, mname);
    return build_builtin(si, mi, v, out, err);
}

int target_default(eu_variant v, target_desc *out, npuc_err *err)
{
    if (!target_variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    return target_builtin(target_default_system_name(v), NULL, v, out, err);
}

/* Each variant's default system for the cycle model, worked out once per
 * process and only for the variants asked for: the block choice asks for
 * it per candidate op, thousands of times a compile, and building a target
 * formats its names (all six variants at once were a seventh of a small
 * model's compile). The first ask of a variant builds it under the lock;
 * the flag, set after the system is written, lets later asks read it
 * without one. */
static sim_system default_sims[EU_N_VARIANTS];
static bool default_sims_ok[EU_N_VARIANTS];
static _Atomic bool default_sims_done[EU_N_VARIANTS];
static pthread_mutex_t default_sims_lock = PTHREAD_MUTEX_INITIALIZER;

void target_default_sim(eu_variant v, sim_system *out)
{
    memset(out, 0, sizeof *out);
    if ((int)v < 0 || (int)v >= EU_N_VARIANTS) return;
    if (!atomic_load_explicit(&default_sims_done[v], memory_order_acquire)) {
        pthread_mutex_lock(&default_sims_lock);
        if (!atomic_load_explicit(&default_sims_done[v], memory_order_relaxed)) {
            target_desc t;
            npuc_err err;
            if (target_default(v, &t, &err) == NPUC_OK) {
                default_sims[v] = t.sim;
                default_sims_ok[v] = true;
            }
            atomic_store_explicit(&default_sims_done[v], true, memory_order_release);
        }
        pthread_mutex_unlock(&default_sims_lock);
    }
    if (default_sims_ok[v]) *out = default_sims[v];
}

int target_lookup_sim(const char *system_config, const char *memory_mode, sim_system *out, npuc_err *err)
{
    int si = -1, mi = -1;
    for (size_t i = 0; system_config && i < N_SYSTEMS; i++)
        if (strcmp(system_config, SYSTEMS[i].name) == 0) si = (int)i;
    if (si < 0)
        return npuc_errf(err, NPUC_E_INVALID, "unknown system config '%s' (valid: " SYSTEM_LIST ")",
                         system_config ? system_config : "(null)");
    for (size_t i = 0; memory_mode && i < N_MODES; i++)
        if (strcmp(memory_mode, MODES[i].name) == 0) mi = (int)i;
    if (mi < 0)
        return npuc_errf(err, NPUC_E_INVALID, "unknown memory mode '%s' (valid: " MODE_LIST ")",
                         memory_mode ? memory_mode : "(null)");
    /* the system's own NPU family decides the AXI width */
    eu_variant v = target_name_family(SYSTEMS[si].name) == 65 ? EU_U65_256 : EU_U55_256;
    target_desc t;
    int rc = target_from_vela(&SYSTEMS[si], &MODES[mi], v, &t, err);
    if (rc) return rc;
    *out = t.sim;
    return NPUC_OK;
}

/* ----------------------------------------------------------- the rule */

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && target_ieq(s + n - k, tail);
}

/* A --system-config value that names a JSON file rather than a name. */
static bool looks_like_json(const char *spec)
{
    return strchr(spec, '/') || strchr(spec, '\\') || ends_with(spec, ".json");
}

static int load_file(const char *path, eu_variant v, target_desc *out, npuc_err *err,
                     int (*parse)(const char *, size_t, const char *, const char *, const char *, eu_variant,
                                  target_desc *, npuc_err *),
                     const char *system, const char *mode)
{
    uint8_t *data;
    size_t size;
    int rc = npuc_read_file(path, &data, &size, err);
    if (rc) return rc;
    rc = parse((const char *)data, size, path, system, mode, v, out, err);
    free(data);
    return rc;
}

static int parse_json_file(const char *text, size_t size, const char *source, const char *system,
                           const char *mode, eu_variant v, target_desc *out, npuc_err *err)
{
    (void)system;
    (void)mode;
    return target_parse_json(text, size, source, v, out, err);
}

int target_load(const target_spec *spec, eu_variant v, target_desc *out, npuc_err *err)
{
    if (!out) return npuc_errf(err, NPUC_E_USAGE, "target_load: NULL argument");
    if (!target_variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    const char *sys = spec ? spec->system_config : NULL, *mode = spec ? spec->memory_mode : NULL;
    const char *ini = spec ? spec->config : NULL;
    if (sys && !*sys) return npuc_errf(err, NPUC_E_USAGE, "--system-config: empty name");
    if (mode && !*mode) return npuc_errf(err, NPUC_E_USAGE, "--memory-mode: empty name");
    bool json = sys && looks_like_json(sys);
    /* "SYSTEM:MODE" */
    char name[2 * TARGET_NAME_MAX];
    if (sys && !json && strchr(sys, ':')) {
        if (mode)
            return npuc_errf(err, NPUC_E_USAGE, "'%.100s' names a memory mode, and --memory-mode gives another: "
                             "give the memory mode once", sys);
        const char *colon = strchr(sys, ':');
        if ((size_t)(colon - sys) >= sizeof name / 2 || strlen(colon + 1) >= sizeof name / 2)
            return npuc_errf(err, NPUC_E_USAGE, "--system-config '%.100s': the names are too long", sys);
        memcpy(name, sys, (size_t)(colon - sys));
        name[colon - sys] = 0;
        snprintf(name + sizeof name / 2, sizeof name / 2, "%s", colon + 1);
        sys = name;
        mode = name + sizeof name / 2;
    }
    if (ini) {
        if (json)
            return npuc_errf(err, NPUC_E_USAGE, "--system-config '%.100s' names a JSON file, but --config gives a "
                             "vela.ini: give one of them", sys);
        return load_file(ini, v, out, err, target_parse_ini, sys, mode);
    }
    if (!sys) return target_builtin(target_default_system_name(v), mode, v, out, err);
    /* a built-in name wins over a file of the same name */
    if (!json && find_system(sys, strlen(sys)) >= 0) return target_builtin(sys, mode, v, out, err);
    if (ends_with(sys, ".ini"))
        return npuc_errf(err, NPUC_E_USAGE, "'%.100s' is a Vela configuration file: give it with --config and name "
                         "its section with --system-config (and --memory-mode)", sys);
    FILE *f = fopen(sys, "rb");
    if (!f && !json)
        return npuc_errf(err, NPUC_E_USAGE,
                         "unknown system config '%.100s': no such file, and not a built-in name (SYSTEM or "
                         "SYSTEM:MODE with SYSTEM one of " SYSTEM_LIST " and MODE one of " MODE_LIST ")", sys);
    if (f) fclose(f);
    if (mode)
        return npuc_errf(err, NPUC_E_USAGE, "--memory-mode applies to built-in and vela.ini systems; the pools of a "
                         "JSON file ('%.100s') say where everything goes", sys);
    return load_file(sys, v, out, err, parse_json_file, NULL, NULL);
}

int target_resolve(const target_spec *spec, const target_desc *recorded, const eu_variant *model_variant,
                   target_desc *out, npuc_err *err)
{
    if (!out) return npuc_errf(err, NPUC_E_USAGE, "target_resolve: NULL argument");
    if (recorded && model_variant && recorded->variant != *model_variant)
        return npuc_errf(err, NPUC_E_FORMAT, "the model's target record says %s, but its command streams are for %s",
                         target_variant_name(recorded->variant), target_variant_name(*model_variant));
    eu_variant v = EU_U55_256;
    int rc;
    if (spec && spec->target) {
        if ((rc = target_variant_parse(spec->target, &v, err))) return rc;
    } else if (recorded) {
        v = recorded->variant;
    } else if (model_variant) {
        v = *model_variant;
    }
    if (!target_variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    if (spec && (spec->system_config || spec->memory_mode || spec->config)) return target_load(spec, v, out, err);
    if (recorded && eu_variant_is_u65(recorded->variant) == eu_variant_is_u65(v)) {
        *out = *recorded;
        out->variant = v;
        return NPUC_OK;
    }
    return target_default(v, out, err);
}
