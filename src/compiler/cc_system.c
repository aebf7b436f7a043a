/* cc_system: the target system (NPU variant, core clock, memory pools) from
 * a built-in Vela name or a JSON memory-pool file. See cc_system.h and
 * docs/system-config.md.
 *
 * Both routes end in the same place: a list of pools, from which the roles
 * (params / activations / fast scratch) are chosen and the cycle model's
 * sim_system is derived (one memory per AXI port, regions 0/1/2 on the
 * ports of the params / activation / fast pools). Built-ins are made by
 * turning sim_system_lookup's answer into pools and deriving the sim_system
 * back from those pools, so the Vela tables live in one place (sim_perf.c)
 * and the pool-to-sim rule is exercised by every built-in. */
#include "cc_system.h"

#include "../util/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB 1024ull
#define MAX_FILE_BYTES (1u << 20)   /* a system file is a few hundred bytes */

/* ------------------------------------------------------------- helpers */

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* Case-insensitive comparison of s[0..n) with the C string t. */
static bool ieq_n(const char *s, size_t n, const char *t)
{
    size_t k = strlen(t);
    if (k != n) return false;
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)s[i]) != ascii_lower((unsigned char)t[i])) return false;
    return true;
}

static bool ieq(const char *s, const char *t) { return ieq_n(s, strlen(s), t); }

/* -------------------------------------------------------------- targets */

static const struct {
    const char *name;
    sim_variant v;
} TARGETS[] = {
    {"ethos-u55-32", SIM_U55_32},   {"ethos-u55-64", SIM_U55_64},   {"ethos-u55-128", SIM_U55_128},
    {"ethos-u55-256", SIM_U55_256}, {"ethos-u65-256", SIM_U65_256}, {"ethos-u65-512", SIM_U65_512},
};
#define N_TARGETS (sizeof TARGETS / sizeof TARGETS[0])
#define TARGET_LIST "ethos-u55-32, ethos-u55-64, ethos-u55-128, ethos-u55-256, ethos-u65-256, ethos-u65-512"

static bool variant_valid(sim_variant v) { return (unsigned)v <= (unsigned)SIM_U65_512; }

int cc_target_parse(const char *name, sim_variant *out, npuc_err *err)
{
    for (size_t i = 0; name && i < N_TARGETS; i++) {
        if (ieq(name, TARGETS[i].name)) {
            *out = TARGETS[i].v;
            return NPUC_OK;
        }
    }
    return npuc_errf(err, NPUC_E_USAGE, "unknown target '%.80s' (valid: " TARGET_LIST ")",
                     name ? name : "(null)");
}

const char *cc_target_name(sim_variant v)
{
    for (size_t i = 0; i < N_TARGETS; i++)
        if (TARGETS[i].v == v) return TARGETS[i].name;
    return "unknown";
}

/* ------------------------------------------------------ built-in tables */

/* Vela's system configs (values in sim_perf.c) and which memory sits on
 * AXI1: flash systems cannot hold the arena there, so Dedicated_Sram (arena
 * in DRAM, SRAM as fast scratch) exists only for the DRAM systems. */
static const struct {
    const char *name;
    bool u65;
    bool dram;
} SYSTEMS[] = {
    {"Ethos_U55_Deep_Embedded", false, false},
    {"Ethos_U55_High_End_Embedded", false, false},
    {"Ethos_U65_Embedded", true, false},
    {"Ethos_U65_Mid_End", true, true},
    {"Ethos_U65_High_End", true, true},
    {"Ethos_U65_Client_Server", true, true},
};
#define N_SYSTEMS (sizeof SYSTEMS / sizeof SYSTEMS[0])

/* Memory modes; fast_size = Vela's arena_cache_size (the fast SRAM pool). */
static const struct {
    const char *name;
    uint64_t fast_size;       /* 0: no separate fast pool */
} MODES[] = {
    {"Sram_Only", 0},
    {"Shared_Sram", 0},
    {"Dedicated_Sram", 384 * KIB},
    {"Dedicated_Sram_512KB", 512 * KIB},
};
#define N_MODES (sizeof MODES / sizeof MODES[0])

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
    "Ethos_U65_Mid_End:Dedicated_Sram_512KB",
    "Ethos_U65_High_End:Sram_Only",
    "Ethos_U65_High_End:Shared_Sram",
    "Ethos_U65_High_End:Dedicated_Sram",
    "Ethos_U65_High_End:Dedicated_Sram_512KB",
    "Ethos_U65_Client_Server:Sram_Only",
    "Ethos_U65_Client_Server:Shared_Sram",
    "Ethos_U65_Client_Server:Dedicated_Sram",
    "Ethos_U65_Client_Server:Dedicated_Sram_512KB",
    NULL,
};

const char *const *cc_system_names(void) { return NAMES; }

/* Memory kinds: JSON spelling, sim_memory name (Vela's MemArea), and the
 * pool name built-ins use. */
static const struct {
    const char *json, *sim, *pool;
} MEMORIES[] = {
    {"sram", "Sram", "sram"},
    {"dram", "Dram", "dram"},
    {"onchip_flash", "OnChipFlash", "onchip_flash"},
    {"offchip_flash", "OffChipFlash", "flash"},
};
#define N_MEMORIES (sizeof MEMORIES / sizeof MEMORIES[0])

/* -------------------------------------------------- error context */

/* Where messages point: the source name and, for files, the JSON nodes of
 * the pools so that checks across pools can name a line. */
typedef struct ld {
    const char *source;       /* NULL for built-ins */
    npuc_err *err;
    sim_variant v;
    const npuc_json *pools_node;
    const npuc_json *pool_node[CC_MAX_POOLS];
} ld;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int ld_fail_at(const ld *c, int code, const npuc_json *at, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char where[200] = "";
    if (c->source && at)
        snprintf(where, sizeof where, "%s:%u:%u: ", c->source, (unsigned)at->line, (unsigned)at->col);
    else if (c->source)
        snprintf(where, sizeof where, "%s: ", c->source);
    return npuc_errf(c->err, code, "%s%s%s%s", where, path ? path : "", path ? ": " : "", msg);
}

#define ld_fail(c, at, path, ...) ld_fail_at((c), NPUC_E_INVALID, (at), (path), __VA_ARGS__)

/* "a string \"x\"", "1.5", "an array", ... for "got ..." */
static const char *describe(const npuc_json *v, char *buf, size_t size)
{
    switch (v->type) {
    case NPUC_JSON_NULL: return "null";
    case NPUC_JSON_BOOL: return v->boolean ? "true" : "false";
    case NPUC_JSON_NUMBER: snprintf(buf, size, "%.40s", v->str ? v->str : "a number"); return buf;
    case NPUC_JSON_STRING: {
        /* control characters would garble a one-line message */
        size_t o = 0, i = 0;
        buf[o++] = '"';
        for (; i < v->len && o + 5 < size; i++) {
            unsigned char ch = (unsigned char)v->str[i];
            buf[o++] = ch < 0x20 || ch == 0x7F ? '?' : (char)ch;
        }
        if (i < v->len) {
            memcpy(buf + o, "...", 3);
            o += 3;
        }
        buf[o++] = '"';
        buf[o] = 0;
        return buf;
    }
    case NPUC_JSON_ARRAY: return "an array";
    case NPUC_JSON_OBJECT: return "an object";
    }
    return "?";
}

static int expect_type(const ld *c, const npuc_json *v, const char *path, npuc_json_type t)
{
    if (v->type == t) return 0;
    char b[64];
    const char *what = t == NPUC_JSON_OBJECT ? "an object" : t == NPUC_JSON_ARRAY ? "an array"
                     : t == NPUC_JSON_STRING ? "a string" : t == NPUC_JSON_NUMBER ? "a number"
                     : t == NPUC_JSON_BOOL ? "true or false" : "null";
    return ld_fail(c, v, path, "expected %s, got %s", what, describe(v, b, sizeof b));
}

/* A whole number from a JSON number: integer literals, or doubles such as
 * 1e6 that are whole and exactly representable. On failure says why. */
static bool whole_number(const ld *c, const npuc_json *v, const char *path, int64_t *out, int *rc)
{
    if (v->is_int) {
        *out = v->integer;
        return true;
    }
    char b[64];
    if (v->number != floor(v->number))
        *rc = ld_fail(c, v, path, "expected a whole number, got %s", describe(v, b, sizeof b));
    else if (fabs(v->number) > 9007199254740992.0)
        *rc = ld_fail(c, v, path, "%s is too large", describe(v, b, sizeof b));
    else {
        *out = (int64_t)v->number;
        return true;
    }
    return false;
}

static int get_int(const ld *c, const npuc_json *v, const char *path, int64_t lo, int64_t hi, int64_t *out)
{
    int rc = expect_type(c, v, path, NPUC_JSON_NUMBER);
    if (rc) return rc;
    char b[64];
    int64_t x;
    if (!whole_number(c, v, path, &x, &rc)) return rc;
    if (x < lo || x > hi)
        return ld_fail(c, v, path, "must be between %lld and %lld, got %s", (long long)lo, (long long)hi,
                       describe(v, b, sizeof b));
    *out = x;
    return 0;
}

/* A number in (0, hi]. */
static int get_positive(const ld *c, const npuc_json *v, const char *path, double hi, double *out)
{
    int rc = expect_type(c, v, path, NPUC_JSON_NUMBER);
    if (rc) return rc;
    char b[64];
    if (!(v->number > 0) || v->number > hi)
        return ld_fail(c, v, path, "must be greater than 0 and at most %g, got %s", hi, describe(v, b, sizeof b));
    *out = v->number;
    return 0;
}

static int get_bool(const ld *c, const npuc_json *v, const char *path, bool *out)
{
    int rc = expect_type(c, v, path, NPUC_JSON_BOOL);
    if (!rc) *out = v->boolean;
    return rc;
}

/* One of `choices` (exact spelling); returns its index in *out. */
static int get_enum(const ld *c, const npuc_json *v, const char *path, const char *const *choices, size_t n,
                    size_t *out)
{
    int rc = expect_type(c, v, path, NPUC_JSON_STRING);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v->str, choices[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    char list[200] = "", b[64];
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int k = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", choices[i]);
        if (k < 0) break;
        used += (size_t)k;
    }
    return ld_fail(c, v, path, "expected one of %s, got %s", list, describe(v, b, sizeof b));
}

/* Bytes or an address: a whole JSON number, or a string "0x..." (hex) or
 * decimal digits, with (sizes only) a unit B, KB/KiB, MB/MiB or GB/GiB,
 * all powers of 1024, optionally after one space, any letter case. */
static int get_bytes(const ld *c, const npuc_json *v, const char *path, bool units, uint64_t *out)
{
    char b[64];
    const char *shape = units ? "a number of bytes or a string such as \"512KB\" or \"0x80000\""
                              : "a number or a string such as \"0x20000000\"";
    if (v->type == NPUC_JSON_NUMBER) {
        int64_t x;
        int rc = 0;
        if (!whole_number(c, v, path, &x, &rc)) return rc;
        if (x < 0) return ld_fail(c, v, path, "must not be negative, got %s", describe(v, b, sizeof b));
        *out = (uint64_t)x;
        return 0;
    }
    if (v->type != NPUC_JSON_STRING) return ld_fail(c, v, path, "expected %s, got %s", shape, describe(v, b, sizeof b));
    const char *s = v->str, *e = v->str + v->len;
    uint64_t x = 0;
    bool hex = e - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *d = hex ? s + 2 : s, *q = d;
    for (; q < e; q++) {
        int ch = (unsigned char)*q, dv;
        if (ch >= '0' && ch <= '9') dv = ch - '0';
        else if (hex && ch >= 'a' && ch <= 'f') dv = ch - 'a' + 10;
        else if (hex && ch >= 'A' && ch <= 'F') dv = ch - 'A' + 10;
        else break;
        unsigned base = hex ? 16 : 10;
        if (x > (UINT64_MAX - (unsigned)dv) / base) return ld_fail(c, v, path, "%s is too large", describe(v, b, sizeof b));
        x = x * base + (unsigned)dv;
    }
    if (q == d) return ld_fail(c, v, path, "expected %s, got %s", shape, describe(v, b, sizeof b));
    uint64_t mul = 1;
    if (q < e) {
        const char *u = q;
        if (*u == ' ') u++;
        size_t un = (size_t)(e - u);
        if (!units || hex) return ld_fail(c, v, path, "expected %s, got %s", shape, describe(v, b, sizeof b));
        if (ieq_n(u, un, "b")) mul = 1;
        else if (ieq_n(u, un, "kb") || ieq_n(u, un, "kib")) mul = KIB;
        else if (ieq_n(u, un, "mb") || ieq_n(u, un, "mib")) mul = KIB * KIB;
        else if (ieq_n(u, un, "gb") || ieq_n(u, un, "gib")) mul = KIB * KIB * KIB;
        else
            return ld_fail(c, v, path, "unknown unit in %s (use B, KB, KiB, MB, MiB, GB or GiB; K = 1024)",
                           describe(v, b, sizeof b));
    }
    if (x > UINT64_MAX / mul) return ld_fail(c, v, path, "%s is too large", describe(v, b, sizeof b));
    *out = x * mul;
    return 0;
}

/* A name: 1..max-1 bytes, no control characters; `strict` allows only
 * letters, digits, '_', '-' and '.' (pool names may end up in symbols and
 * section names). */
static int get_name(const ld *c, const npuc_json *v, const char *path, char *dst, size_t max, bool strict)
{
    int rc = expect_type(c, v, path, NPUC_JSON_STRING);
    if (rc) return rc;
    bool ok = v->len > 0 && v->len < max;
    for (size_t i = 0; ok && i < v->len; i++) {
        unsigned char ch = (unsigned char)v->str[i];
        if (strict)
            ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '-' || ch == '.';
        else
            ok = ch >= 0x20 && ch != 0x7F;
    }
    if (!ok) {
        char b[64];
        if (strict)
            return ld_fail(c, v, path, "expected 1 to %zu letters, digits, '_', '-' or '.', got %s", max - 1,
                           describe(v, b, sizeof b));
        return ld_fail(c, v, path, "expected 1 to %zu characters without control characters, got %s", max - 1,
                       describe(v, b, sizeof b));
    }
    memcpy(dst, v->str, v->len);
    dst[v->len] = 0;
    return 0;
}

/* A key as it may appear in a path: bounded, control characters as '?'. */
static const char *show_key(const char *key, char *buf, size_t size)
{
    size_t o = 0;
    for (; *key && o + 4 < size; key++) buf[o++] = (unsigned char)*key < 0x20 || *key == 0x7F ? '?' : *key;
    if (*key) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

/* Unknown-key message listing the valid keys. */
static int unknown_key(const ld *c, const npuc_json_member *m, const char *path, const char *const *keys, size_t n)
{
    char list[400] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int k = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", keys[i]);
        if (k < 0) break;
        used += (size_t)k;
    }
    npuc_json at;
    memset(&at, 0, sizeof at);
    at.line = m->line;
    at.col = m->col;
    return ld_fail(c, &at, path, "unknown key (valid keys: %s)", list);
}

static int find_key(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, keys[i]) == 0) return (int)i;
    return -1;
}

/* ----------------------------------------------- pools → roles → sim */

static uint64_t addr_limit(sim_variant v) { return sim_variant_is_u65(v) ? 1ull << 40 : 1ull << 32; }

static const char *use_name(uint32_t use)
{
    switch (use) {
    case CC_POOL_PARAMS: return "params";
    case CC_POOL_ACTIVATIONS: return "activations";
    case CC_POOL_PARAMS | CC_POOL_ACTIVATIONS: return "mixed";
    case CC_POOL_FAST: return "fast";
    default: return "?";
    }
}

/* The preferred pool for a role: lowest priority, then first. */
static int best_pool(const cc_system *s, uint32_t bit)
{
    int best = -1;
    for (int i = 0; i < s->n_pools; i++)
        if ((s->pools[i].use & bit) && (best < 0 || s->pools[i].priority < s->pools[best].priority)) best = i;
    return best;
}

static sim_memory pool_memory(const cc_pool *p)
{
    sim_memory m;
    memset(&m, 0, sizeof m);
    m.name = p->memory;
    m.clock_scale = p->clock_ratio;
    m.burst_bytes = p->burst_bytes;
    m.read_latency = p->read_latency;
    m.write_latency = p->write_latency;
    m.width_bytes = p->byte_width;
    return m;
}

/* First timing field in which two pools differ, or NULL. */
static const char *timing_diff(const cc_pool *a, const cc_pool *b)
{
    if (strcmp(a->memory, b->memory) != 0) return "memory";
    if (a->clock_ratio != b->clock_ratio) return "clock_ratio";
    if (a->byte_width != b->byte_width) return "byte_width";
    if (a->burst_bytes != b->burst_bytes) return "burst_bytes";
    if (a->read_latency != b->read_latency) return "read_latency";
    if (a->write_latency != b->write_latency) return "write_latency";
    return NULL;
}

static const npuc_json *pool_at(const ld *c, int i, const char *key)
{
    const npuc_json *n = c->pool_node[i];
    const npuc_json *k = key ? npuc_json_get(n, key) : NULL;
    return k ? k : n;
}

/* Checks across pools, picks the roles and derives the sim_system. */
static int finish_system(cc_system *s, const char *sim_name, const ld *c)
{
    char path[48];
    /* distinct names */
    for (int i = 0; i < s->n_pools; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(s->pools[i].name, s->pools[j].name) == 0) {
                snprintf(path, sizeof path, "pools[%d].name", i);
                return ld_fail(c, pool_at(c, i, "name"), path, "\"%s\" is already the name of pools[%d]",
                               s->pools[i].name, j);
            }
    /* absolute pools must not overlap */
    for (int i = 0; i < s->n_pools; i++) {
        const cc_pool *a = &s->pools[i];
        if (!a->absolute) continue;
        for (int j = 0; j < i; j++) {
            const cc_pool *b = &s->pools[j];
            if (b->absolute && a->offset < b->offset + b->size && b->offset < a->offset + a->size) {
                snprintf(path, sizeof path, "pools[%d].offset", i);
                return ld_fail(c, pool_at(c, i, "offset"), path,
                               "0x%llx..0x%llx overlaps pools[%d] \"%s\" at 0x%llx..0x%llx",
                               (unsigned long long)a->offset, (unsigned long long)(a->offset + a->size - 1), j,
                               b->name, (unsigned long long)b->offset,
                               (unsigned long long)(b->offset + b->size - 1));
            }
        }
    }
    s->params_pool = best_pool(s, CC_POOL_PARAMS);
    s->act_pool = best_pool(s, CC_POOL_ACTIVATIONS);
    s->fast_pool = best_pool(s, CC_POOL_FAST);
    if (s->params_pool < 0)
        return ld_fail(c, c->pools_node, "pools",
                       "no pool can hold the parameters (give one pool \"use\": \"params\" or \"mixed\")");
    if (s->act_pool < 0)
        return ld_fail(c, c->pools_node, "pools",
                       "no pool can hold the activations (give one pool \"use\": \"activations\" or \"mixed\")");
    if (s->fast_pool >= 0 && !sim_variant_is_u65(c->v)) {
        snprintf(path, sizeof path, "pools[%d].use", s->fast_pool);
        return ld_fail(c, pool_at(c, s->fast_pool, "use"), path,
                       "a separate \"fast\" pool (Vela's Dedicated_Sram spilling) needs an Ethos-U65, but the "
                       "target is %s; on Ethos-U55 give that memory \"use\": \"activations\" instead",
                       cc_target_name(c->v));
    }
    /* The cycle model has one memory per AXI port: the pools it uses on
     * one port must describe the same memory. */
    int roles[3] = {s->act_pool, s->fast_pool, s->params_pool};
    int on_port[2] = {-1, -1};
    for (int r = 0; r < 3; r++) {
        int i = roles[r];
        if (i < 0) continue;
        int p = s->pools[i].axi_port;
        if (on_port[p] < 0) {
            on_port[p] = i;
            continue;
        }
        const char *d = on_port[p] == i ? NULL : timing_diff(&s->pools[i], &s->pools[on_port[p]]);
        if (d) {
            int j = on_port[p];
            snprintf(path, sizeof path, "pools[%d]", i > j ? i : j);
            return ld_fail(c, pool_at(c, i > j ? i : j, d), path,
                           "\"%s\" (%s) and \"%s\" (%s) are both on AXI%d but differ in %s; the cycle model has "
                           "one memory per AXI port, so make them equal or move one to the other port",
                           s->pools[i].name, use_name(s->pools[i].use), s->pools[j].name,
                           use_name(s->pools[j].use), p, d);
        }
    }
    sim_system *m = &s->sim;
    memset(m, 0, sizeof *m);
    m->name = sim_name;
    m->core_clock_hz = s->core_clock_hz;
    for (int p = 0; p < 2; p++)
        if (on_port[p] >= 0) m->axi[p] = pool_memory(&s->pools[on_port[p]]);
    /* a port no used pool sits on carries no traffic; give it the other
     * port's memory so that the record is complete */
    for (int p = 0; p < 2; p++)
        if (on_port[p] < 0) m->axi[p] = m->axi[1 - p];
    uint8_t act_port = (uint8_t)s->pools[s->act_pool].axi_port;
    for (int r = 0; r < 8; r++) m->region_port[r] = act_port;
    m->region_port[0] = (uint8_t)s->pools[s->params_pool].axi_port;
    if (s->fast_pool >= 0) m->region_port[2] = (uint8_t)s->pools[s->fast_pool].axi_port;
    return 0;
}

/* ------------------------------------------------------------ built-ins */

static int build_builtin(size_t si, size_t mi, sim_variant v, cc_system *out, npuc_err *err)
{
    const char *sys = SYSTEMS[si].name, *mode = MODES[mi].name;
    if (SYSTEMS[si].u65 != sim_variant_is_u65(v))
        return npuc_errf(err, NPUC_E_USAGE,
                         "system '%s:%s' is for an Ethos-U%s, but the target is %s (choose one of the "
                         "Ethos_U%s_* systems)", sys, mode, SYSTEMS[si].u65 ? "65" : "55", cc_target_name(v),
                         sim_variant_is_u65(v) ? "65" : "55");
    if (MODES[mi].fast_size && !SYSTEMS[si].dram)
        return npuc_errf(err, NPUC_E_USAGE,
                         "'%s:%s' is not a built-in system: %s keeps the tensor arena in DRAM on AXI1, but %s "
                         "has flash there (%s needs Ethos_U65_Mid_End, Ethos_U65_High_End or "
                         "Ethos_U65_Client_Server)", sys, mode, mode, sys, mode);
    sim_system ref;
    int rc = sim_system_lookup(sys, mode, &ref, err);
    if (rc) return rc;

    cc_system s;
    memset(&s, 0, sizeof s);
    snprintf(s.name, sizeof s.name, "%s:%s", sys, mode);
    s.variant = v;
    s.core_clock_hz = ref.core_clock_hz;
    /* one pool per AXI port, holding what the memory mode puts there */
    for (int p = 0; p < 2; p++) {
        uint32_t use = 0;
        if (ref.region_port[0] == p) use |= CC_POOL_PARAMS;
        if (ref.region_port[1] == p) use |= CC_POOL_ACTIVATIONS;
        if (ref.region_port[2] == p && ref.region_port[2] != ref.region_port[1]) use |= CC_POOL_FAST;
        if (!use) continue;
        cc_pool *q = &s.pools[s.n_pools++];
        const sim_memory *m = &ref.axi[p];
        const char *pool_name = "memory";
        q->memory = m->name;   /* static in sim_perf.c; prefer our own literal */
        for (size_t k = 0; k < N_MEMORIES; k++)
            if (m->name && strcmp(m->name, MEMORIES[k].sim) == 0) {
                q->memory = MEMORIES[k].sim;
                pool_name = MEMORIES[k].pool;
            }
        snprintf(q->name, sizeof q->name, "%s", pool_name);
        q->use = use;
        /* Vela: in Shared_Sram the non-SRAM memory is read-only; whatever
         * holds activations or scratch is written */
        q->writable = (use & (CC_POOL_ACTIVATIONS | CC_POOL_FAST)) != 0;
        q->absolute = false;
        q->offset = 0;
        /* Vela does not limit the arena by default; the fast pool is
         * arena_cache_size */
        q->size = (use & CC_POOL_FAST) ? MODES[mi].fast_size : 0;
        q->axi_port = p;
        q->clock_ratio = m->clock_scale;
        q->byte_width = m->width_bytes;
        q->burst_bytes = m->burst_bytes;
        q->read_latency = m->read_latency;
        q->write_latency = m->write_latency;
        q->cacheable = false;
        q->priority = 0;
    }
    ld c;
    memset(&c, 0, sizeof c);
    c.err = err;
    c.v = v;
    rc = finish_system(&s, ref.name, &c);
    if (rc) return npuc_err_prefix(err, "built-in system %s:%s", sys, mode);
    *out = s;
    return NPUC_OK;
}

int cc_system_default(sim_variant v, cc_system *out, npuc_err *err)
{
    if (!variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    bool u65 = sim_variant_is_u65(v);
    const char *sys = u65 ? "Ethos_U65_High_End" : "Ethos_U55_High_End_Embedded";
    const char *mode = u65 ? "Dedicated_Sram" : "Shared_Sram";
    size_t si = 0, mi = 0;
    for (size_t i = 0; i < N_SYSTEMS; i++)
        if (ieq(SYSTEMS[i].name, sys)) si = i;
    for (size_t i = 0; i < N_MODES; i++)
        if (ieq(MODES[i].name, mode)) mi = i;
    return build_builtin(si, mi, v, out, err);
}

/* Tries `spec` as a built-in name. Returns 1 if it is not one (the caller
 * then tries a file), else the result of building it. */
static int try_builtin(const char *spec, sim_variant v, cc_system *out, npuc_err *err)
{
    const char *colon = strchr(spec, ':');
    size_t sn = colon ? (size_t)(colon - spec) : strlen(spec);
    size_t si = N_SYSTEMS;
    for (size_t i = 0; i < N_SYSTEMS; i++)
        if (ieq_n(spec, sn, SYSTEMS[i].name)) si = i;
    if (si == N_SYSTEMS) return 1;
    size_t mi = N_MODES;
    if (!colon) {
        const char *def = SYSTEMS[si].dram ? "Dedicated_Sram" : "Shared_Sram";
        for (size_t i = 0; i < N_MODES; i++)
            if (ieq(MODES[i].name, def)) mi = i;
    } else {
        for (size_t i = 0; i < N_MODES; i++)
            if (ieq(colon + 1, MODES[i].name)) mi = i;
        if (mi == N_MODES)
            return npuc_errf(err, NPUC_E_USAGE,
                             "unknown memory mode '%.60s' in '%.120s' (valid: Sram_Only, Shared_Sram, "
                             "Dedicated_Sram, Dedicated_Sram_512KB)", colon + 1, spec);
    }
    return build_builtin(si, mi, v, out, err);
}

/* ------------------------------------------------------------ JSON files */

enum {
    K_NAME, K_DESCRIPTION, K_MEMORY, K_USE, K_RIGHTS, K_MODE, K_OFFSET, K_SIZE, K_AXI_PORT,
    K_CLOCK_RATIO, K_BYTE_WIDTH, K_BURST_BYTES, K_READ_LATENCY, K_WRITE_LATENCY, K_CACHEABLE,
    K_PRIORITY, N_POOL_KEYS
};
static const char *const POOL_KEYS[N_POOL_KEYS] = {
    "name", "description", "memory", "use", "rights", "mode", "offset", "size", "axi_port",
    "clock_ratio", "byte_width", "burst_bytes", "read_latency", "write_latency", "cacheable",
    "priority",
};
/* "offset" is required only with "mode": "absolute" (checked separately) */
static const bool POOL_REQUIRED[N_POOL_KEYS] = {
    [K_NAME] = true, [K_MEMORY] = true, [K_USE] = true, [K_RIGHTS] = true, [K_SIZE] = true,
    [K_AXI_PORT] = true, [K_CLOCK_RATIO] = true, [K_BYTE_WIDTH] = true, [K_BURST_BYTES] = true,
    [K_READ_LATENCY] = true, [K_WRITE_LATENCY] = true,
};

static int parse_pool(const ld *c, const npuc_json *obj, int idx, cc_pool *q)
{
    char path[96], base[24];
    snprintf(base, sizeof base, "pools[%d]", idx);
    int rc = expect_type(c, obj, base, NPUC_JSON_OBJECT);
    if (rc) return rc;
    const npuc_json *val[N_POOL_KEYS] = {0};
    for (size_t i = 0; i < obj->n; i++) {
        const npuc_json_member *m = &obj->members[i];
        int k = find_key(m->key, POOL_KEYS, N_POOL_KEYS);
        if (k < 0) {
            char kb[48];
            snprintf(path, sizeof path, "%s.%s", base, show_key(m->key, kb, sizeof kb));
            return unknown_key(c, m, path, POOL_KEYS, N_POOL_KEYS);
        }
        val[k] = m->value;
    }
    for (int k = 0; k < N_POOL_KEYS; k++)
        if (POOL_REQUIRED[k] && !val[k]) return ld_fail(c, obj, base, "missing key \"%s\"", POOL_KEYS[k]);

    memset(q, 0, sizeof *q);
#define PATH(k) (snprintf(path, sizeof path, "%s.%s", base, POOL_KEYS[k]), path)
    if ((rc = get_name(c, val[K_NAME], PATH(K_NAME), q->name, sizeof q->name, true))) return rc;
    if (val[K_DESCRIPTION] && (rc = expect_type(c, val[K_DESCRIPTION], PATH(K_DESCRIPTION), NPUC_JSON_STRING)))
        return rc;

    static const char *const memories[] = {"sram", "dram", "onchip_flash", "offchip_flash"};
    size_t e;
    if ((rc = get_enum(c, val[K_MEMORY], PATH(K_MEMORY), memories, 4, &e))) return rc;
    q->memory = MEMORIES[e].sim;

    static const char *const uses[] = {"params", "activations", "mixed", "fast"};
    static const uint32_t use_bits[] = {CC_POOL_PARAMS, CC_POOL_ACTIVATIONS,
                                        CC_POOL_PARAMS | CC_POOL_ACTIVATIONS, CC_POOL_FAST};
    if ((rc = get_enum(c, val[K_USE], PATH(K_USE), uses, 4, &e))) return rc;
    q->use = use_bits[e];

    static const char *const rights[] = {"r", "rw"};
    if ((rc = get_enum(c, val[K_RIGHTS], PATH(K_RIGHTS), rights, 2, &e))) return rc;
    q->writable = e == 1;
    if (!q->writable && (q->use & (CC_POOL_ACTIVATIONS | CC_POOL_FAST)))
        return ld_fail(c, val[K_RIGHTS], PATH(K_RIGHTS), "a pool with \"use\": \"%s\" is written, so it needs \"rw\"",
                       use_name(q->use));

    static const char *const modes[] = {"relative", "absolute"};
    e = 0;
    if (val[K_MODE] && (rc = get_enum(c, val[K_MODE], PATH(K_MODE), modes, 2, &e))) return rc;
    q->absolute = e == 1;

    uint64_t limit = addr_limit(c->v);
    if ((rc = get_bytes(c, val[K_SIZE], PATH(K_SIZE), true, &q->size))) return rc;
    if (q->size > limit)
        return ld_fail(c, val[K_SIZE], path, "0x%llx bytes is more than the %s can address (%d-bit addresses)",
                       (unsigned long long)q->size, cc_target_name(c->v), sim_variant_is_u65(c->v) ? 40 : 32);
    if (q->size == 0 && q->absolute)
        return ld_fail(c, val[K_SIZE], path, "an absolute pool needs its size (0 = unlimited is only for "
                       "relative pools)");
    if (q->size == 0 && (q->use & CC_POOL_FAST))
        return ld_fail(c, val[K_SIZE], path, "a fast pool needs its size (it is a hard limit, like Vela's "
                       "arena_cache_size)");

    if (q->absolute) {
        if (!val[K_OFFSET]) return ld_fail(c, obj, base, "missing key \"offset\" (required with \"mode\": \"absolute\")");
        if ((rc = get_bytes(c, val[K_OFFSET], PATH(K_OFFSET), false, &q->offset))) return rc;
        if (q->offset >= limit || q->size > limit - q->offset)
            return ld_fail(c, val[K_OFFSET], path, "0x%llx + 0x%llx bytes ends beyond the %d-bit address space of "
                           "the %s", (unsigned long long)q->offset, (unsigned long long)q->size,
                           sim_variant_is_u65(c->v) ? 40 : 32, cc_target_name(c->v));
    } else if (val[K_OFFSET]) {
        return ld_fail(c, val[K_OFFSET], PATH(K_OFFSET), "only allowed with \"mode\": \"absolute\" (a relative "
                       "pool is placed by the application)");
    }

    int64_t x;
    if ((rc = get_int(c, val[K_AXI_PORT], PATH(K_AXI_PORT), 0, 1, &x))) return rc;
    q->axi_port = (int)x;
    if ((rc = get_positive(c, val[K_CLOCK_RATIO], PATH(K_CLOCK_RATIO), 16.0, &q->clock_ratio))) return rc;
    if ((rc = get_int(c, val[K_BYTE_WIDTH], PATH(K_BYTE_WIDTH), 1, 64, &x))) return rc;
    q->byte_width = (unsigned)x;
    if ((rc = get_int(c, val[K_BURST_BYTES], PATH(K_BURST_BYTES), 1, 4096, &x))) return rc;
    q->burst_bytes = (unsigned)x;
    if ((rc = get_int(c, val[K_READ_LATENCY], PATH(K_READ_LATENCY), 0, 1000000, &x))) return rc;
    q->read_latency = (unsigned)x;
    if ((rc = get_int(c, val[K_WRITE_LATENCY], PATH(K_WRITE_LATENCY), 0, 1000000, &x))) return rc;
    q->write_latency = (unsigned)x;
    if (val[K_CACHEABLE] && (rc = get_bool(c, val[K_CACHEABLE], PATH(K_CACHEABLE), &q->cacheable))) return rc;
    if (val[K_PRIORITY]) {
        if ((rc = get_int(c, val[K_PRIORITY], PATH(K_PRIORITY), -1000000, 1000000, &x))) return rc;
        q->priority = (int)x;
    }
#undef PATH
    return 0;
}

enum { T_NAME, T_DESCRIPTION, T_TARGET, T_CLOCK_HZ, T_CLOCK_MHZ, T_POOLS, N_TOP_KEYS };
static const char *const TOP_KEYS[N_TOP_KEYS] = {
    "name", "description", "target", "core_clock_hz", "core_clock_mhz", "pools",
};

static int parse_target(const ld *c, const npuc_json *v)
{
    int rc = expect_type(c, v, "target", NPUC_JSON_STRING);
    if (rc) return rc;
    char b[64];
    bool u65 = sim_variant_is_u65(c->v);
    if (ieq(v->str, "ethos-u55") || ieq(v->str, "ethos-u65")) {
        if (ieq(v->str, "ethos-u65") != u65)
            return ld_fail(c, v, "target", "the file describes an %s system, but the target is %s", v->str,
                           cc_target_name(c->v));
        return 0;
    }
    for (size_t i = 0; i < N_TARGETS; i++) {
        if (ieq(v->str, TARGETS[i].name)) {
            if (TARGETS[i].v != c->v)
                return ld_fail(c, v, "target", "the file describes an %s system, but the target is %s",
                               TARGETS[i].name, cc_target_name(c->v));
            return 0;
        }
    }
    return ld_fail(c, v, "target", "unknown target %s (valid: ethos-u55, ethos-u65, " TARGET_LIST ")",
                   describe(v, b, sizeof b));
}

static int parse_system(ld *c, const npuc_json *root, cc_system *s)
{
    int rc = expect_type(c, root, "top level", NPUC_JSON_OBJECT);
    if (rc) return rc;
    const npuc_json *val[N_TOP_KEYS] = {0};
    for (size_t i = 0; i < root->n; i++) {
        const npuc_json_member *m = &root->members[i];
        int k = find_key(m->key, TOP_KEYS, N_TOP_KEYS);
        if (k < 0) {
            char kb[48];
            return unknown_key(c, m, show_key(m->key, kb, sizeof kb), TOP_KEYS, N_TOP_KEYS);
        }
        val[k] = m->value;
    }
    if (!val[T_NAME]) return ld_fail(c, root, "top level", "missing key \"name\"");
    if ((rc = get_name(c, val[T_NAME], "name", s->name, sizeof s->name, false))) return rc;
    if (val[T_DESCRIPTION] && (rc = expect_type(c, val[T_DESCRIPTION], "description", NPUC_JSON_STRING)))
        return rc;
    if (val[T_TARGET] && (rc = parse_target(c, val[T_TARGET]))) return rc;
    if (val[T_CLOCK_HZ] && val[T_CLOCK_MHZ])
        return ld_fail(c, val[T_CLOCK_MHZ], "core_clock_mhz", "give core_clock_hz or core_clock_mhz, not both");
    if (val[T_CLOCK_HZ]) {
        if ((rc = get_positive(c, val[T_CLOCK_HZ], "core_clock_hz", 1e10, &s->core_clock_hz))) return rc;
    } else if (val[T_CLOCK_MHZ]) {
        double mhz;
        if ((rc = get_positive(c, val[T_CLOCK_MHZ], "core_clock_mhz", 1e4, &mhz))) return rc;
        s->core_clock_hz = mhz * 1e6;
    } else {
        return ld_fail(c, root, "top level", "missing key \"core_clock_hz\" (or \"core_clock_mhz\")");
    }
    const npuc_json *pools = val[T_POOLS];
    if (!pools) return ld_fail(c, root, "top level", "missing key \"pools\"");
    if ((rc = expect_type(c, pools, "pools", NPUC_JSON_ARRAY))) return rc;
    if (pools->n == 0 || pools->n > CC_MAX_POOLS)
        return ld_fail(c, pools, "pools", "expected 1 to %d pools, got %zu", CC_MAX_POOLS, pools->n);
    c->pools_node = pools;
    for (size_t i = 0; i < pools->n; i++) {
        c->pool_node[i] = pools->items[i];
        if ((rc = parse_pool(c, pools->items[i], (int)i, &s->pools[i]))) return rc;
        s->n_pools = (int)i + 1;
    }
    return finish_system(s, "custom", c);
}

int cc_system_parse(const char *text, size_t size, const char *source, sim_variant v, cc_system *out,
                    npuc_err *err)
{
    if (!out || (!text && size)) return npuc_errf(err, NPUC_E_USAGE, "cc_system_parse: NULL argument");
    if (!variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    ld c;
    memset(&c, 0, sizeof c);
    c.source = source ? source : "<system>";
    c.err = err;
    c.v = v;
    npuc_arena arena;
    npuc_arena_init(&arena);
    npuc_json_opts opts = {.source = c.source, .max_depth = 16, .max_size = MAX_FILE_BYTES};
    const npuc_json *root;
    int rc = npuc_json_parse(text, size, &opts, &arena, &root, err);
    cc_system s;
    memset(&s, 0, sizeof s);
    s.variant = v;
    if (!rc) rc = parse_system(&c, root, &s);
    npuc_arena_free(&arena);
    if (!rc) *out = s;
    return rc;
}

static bool looks_like_path(const char *spec)
{
    size_t n = strlen(spec);
    return strchr(spec, '/') || strchr(spec, '\\') || (n >= 5 && ieq(spec + n - 5, ".json"));
}

int cc_system_load(const char *spec, sim_variant v, cc_system *out, npuc_err *err)
{
    if (!out) return npuc_errf(err, NPUC_E_USAGE, "cc_system_load: NULL argument");
    if (!variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    if (!spec) return cc_system_default(v, out, err);
    int rc = try_builtin(spec, v, out, err);
    if (rc != 1) return rc;
    FILE *f = fopen(spec, "rb");
    if (!f && !looks_like_path(spec))
        return npuc_errf(err, NPUC_E_USAGE,
                         "unknown system '%.100s': no such file, and not a built-in name (SYSTEM or SYSTEM:MODE "
                         "with SYSTEM one of Ethos_U55_Deep_Embedded, Ethos_U55_High_End_Embedded, "
                         "Ethos_U65_Embedded, Ethos_U65_Mid_End, Ethos_U65_High_End, Ethos_U65_Client_Server "
                         "and MODE one of Sram_Only, Shared_Sram, Dedicated_Sram, Dedicated_Sram_512KB)", spec);
    if (f) fclose(f);
    uint8_t *data;
    size_t size;
    rc = npuc_read_file(spec, &data, &size, err);
    if (rc) return rc;
    rc = cc_system_parse((const char *)data, size, spec, v, out, err);
    free(data);
    return rc;
}
