/* target_json: JSON memory-pool documents (docs/system-config.md) and the
 * record a compiled model carries (the same format plus three keys), and
 * the step every source of a target ends in (target_finish: roles and the
 * cycle model's view).
 *
 * Moved from the compiler's target_desc.c unchanged in behaviour: every
 * check and message stays. */
#include "target_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB 1024ull
#define MAX_FILE_BYTES (1u << 20)   /* a system file is a few hundred bytes */

typedef target_ld ld;
#define ieq_n target_ieq_n
#define ieq target_ieq

/* -------------------------------------------------- error context */


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

static uint64_t addr_limit(eu_variant v) { return eu_variant_is_u65(v) ? 1ull << 40 : 1ull << 32; }

const char *target_use_name(uint32_t use)
{
    switch (use) {
    case TARGET_POOL_PARAMS: return "params";
    case TARGET_POOL_ACTIVATIONS: return "activations";
    case TARGET_POOL_PARAMS | TARGET_POOL_ACTIVATIONS: return "mixed";
    case TARGET_POOL_FAST: return "fast";
    default: return "?";
    }
}

/* The preferred pool for a role: lowest priority, then first. */
static int best_pool(const target_desc *s, uint32_t bit)
{
    int best = -1;
    for (int i = 0; i < s->n_pools; i++)
        if ((s->pools[i].use & bit) && (best < 0 || s->pools[i].priority < s->pools[best].priority)) best = i;
    return best;
}

static sim_memory pool_memory(const target_pool *p)
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
static const char *timing_diff(const target_pool *a, const target_pool *b)
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
int target_finish(target_desc *s, const char *sim_name, const ld *c)
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
        const target_pool *a = &s->pools[i];
        if (!a->absolute) continue;
        for (int j = 0; j < i; j++) {
            const target_pool *b = &s->pools[j];
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
    s->params_pool = best_pool(s, TARGET_POOL_PARAMS);
    s->act_pool = best_pool(s, TARGET_POOL_ACTIVATIONS);
    s->fast_pool = best_pool(s, TARGET_POOL_FAST);
    if (s->params_pool < 0)
        return ld_fail(c, c->pools_node, "pools",
                       "no pool can hold the parameters (give one pool \"use\": \"params\" or \"mixed\")");
    if (s->act_pool < 0)
        return ld_fail(c, c->pools_node, "pools",
                       "no pool can hold the activations (give one pool \"use\": \"activations\" or \"mixed\")");
    if (s->fast_pool >= 0 && !eu_variant_is_u65(c->v)) {
        snprintf(path, sizeof path, "pools[%d].use", s->fast_pool);
        return ld_fail(c, pool_at(c, s->fast_pool, "use"), path,
                       "a separate \"fast\" pool (Vela's Dedicated_Sram spilling) needs an Ethos-U65, but the "
                       "target is %s; on Ethos-U55 give that memory \"use\": \"activations\" instead",
                       target_variant_name(c->v));
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
                           s->pools[i].name, target_use_name(s->pools[i].use), s->pools[j].name,
                           target_use_name(s->pools[j].use), p, d);
        }
    }
    sim_system *m = &s->sim;
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", sim_name);
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

static int parse_pool(const ld *c, const npuc_json *obj, int idx, target_pool *q)
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
    q->memory = TARGET_MEM_VELA[e];

    static const char *const uses[] = {"params", "activations", "mixed", "fast"};
    static const uint32_t use_bits[] = {TARGET_POOL_PARAMS, TARGET_POOL_ACTIVATIONS,
                                        TARGET_POOL_PARAMS | TARGET_POOL_ACTIVATIONS, TARGET_POOL_FAST};
    if ((rc = get_enum(c, val[K_USE], PATH(K_USE), uses, 4, &e))) return rc;
    q->use = use_bits[e];

    static const char *const rights[] = {"r", "rw"};
    if ((rc = get_enum(c, val[K_RIGHTS], PATH(K_RIGHTS), rights, 2, &e))) return rc;
    q->writable = e == 1;
    if (!q->writable && (q->use & (TARGET_POOL_ACTIVATIONS | TARGET_POOL_FAST)))
        return ld_fail(c, val[K_RIGHTS], PATH(K_RIGHTS), "a pool with \"use\": \"%s\" is written, so it needs \"rw\"",
                       target_use_name(q->use));

    static const char *const modes[] = {"relative", "absolute"};
    e = 0;
    if (val[K_MODE] && (rc = get_enum(c, val[K_MODE], PATH(K_MODE), modes, 2, &e))) return rc;
    q->absolute = e == 1;

    uint64_t limit = addr_limit(c->v);
    if ((rc = get_bytes(c, val[K_SIZE], PATH(K_SIZE), true, &q->size))) return rc;
    if (q->size > limit)
        return ld_fail(c, val[K_SIZE], path, "0x%llx bytes is more than the %s can address (%d-bit addresses)",
                       (unsigned long long)q->size, target_variant_name(c->v), eu_variant_is_u65(c->v) ? 40 : 32);
    if (q->size == 0 && q->absolute)
        return ld_fail(c, val[K_SIZE], path, "an absolute pool needs its size (0 = unlimited is only for "
                       "relative pools)");
    if (q->size == 0 && (q->use & TARGET_POOL_FAST))
        return ld_fail(c, val[K_SIZE], path, "a fast pool needs its size (it is a hard limit, like Vela's "
                       "arena_cache_size)");

    if (q->absolute) {
        if (!val[K_OFFSET]) return ld_fail(c, obj, base, "missing key \"offset\" (required with \"mode\": \"absolute\")");
        if ((rc = get_bytes(c, val[K_OFFSET], PATH(K_OFFSET), false, &q->offset))) return rc;
        if (q->offset >= limit || q->size > limit - q->offset)
            return ld_fail(c, val[K_OFFSET], path, "0x%llx + 0x%llx bytes ends beyond the %d-bit address space of "
                           "the %s", (unsigned long long)q->offset, (unsigned long long)q->size,
                           eu_variant_is_u65(c->v) ? 40 : 32, target_variant_name(c->v));
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

/* The keys of a file; a record (TARGET_RECORD_VERSION) adds the last three. */
enum {
    T_NAME, T_DESCRIPTION, T_TARGET, T_CLOCK_HZ, T_CLOCK_MHZ, T_POOLS, N_FILE_KEYS,
    T_VERSION = N_FILE_KEYS, T_SYSTEM_CONFIG, T_MEMORY_MODE, N_TOP_KEYS
};
static const char *const TOP_KEYS[N_TOP_KEYS] = {
    "name", "description", "target", "core_clock_hz", "core_clock_mhz", "pools",
    "npuc_target", "system_config", "memory_mode",
};

static int parse_target(ld *c, const npuc_json *v, target_desc *s)
{
    int rc = expect_type(c, v, "target", NPUC_JSON_STRING);
    if (rc) return rc;
    char b[64];
    npuc_err ignore;
    eu_variant tv;
    bool full = target_variant_parse(v->str, &tv, &ignore) == NPUC_OK;
    if (c->record) {
        /* a record names its exact variant, which it is for */
        if (!full)
            return ld_fail(c, v, "target", "unknown target %s (valid: %s)", describe(v, b, sizeof b), TARGET_LIST);
        c->v = s->variant = tv;
        return 0;
    }
    bool u65 = eu_variant_is_u65(c->v);
    if (ieq(v->str, "ethos-u55") || ieq(v->str, "ethos-u65")) {
        if (ieq(v->str, "ethos-u65") != u65)
            return ld_fail(c, v, "target", "the file describes an %s system, but the target is %s", v->str,
                           target_variant_name(c->v));
        return 0;
    }
    if (full) {
        if (tv != c->v)
            return ld_fail(c, v, "target", "the file describes an %s system, but the target is %s",
                           target_variant_name(tv), target_variant_name(c->v));
        return 0;
    }
    return ld_fail(c, v, "target", "unknown target %s (valid: ethos-u55, ethos-u65, %s)", describe(v, b, sizeof b),
                   TARGET_LIST);
}

static int parse_system(ld *c, const npuc_json *root, target_desc *s)
{
    int rc = expect_type(c, root, "top level", NPUC_JSON_OBJECT);
    if (rc) return rc;
    const npuc_json *val[N_TOP_KEYS] = {0};
    size_t n_keys = c->record ? N_TOP_KEYS : N_FILE_KEYS;
    for (size_t i = 0; i < root->n; i++) {
        const npuc_json_member *m = &root->members[i];
        int k = find_key(m->key, TOP_KEYS, n_keys);
        if (k < 0) {
            char kb[48];
            return unknown_key(c, m, show_key(m->key, kb, sizeof kb), TOP_KEYS, n_keys);
        }
        val[k] = m->value;
    }
    if (c->record) {
        if (!val[T_VERSION]) return ld_fail(c, root, "top level", "missing key \"npuc_target\"");
        int64_t ver;
        if ((rc = get_int(c, val[T_VERSION], "npuc_target", 1, 1000000, &ver))) return rc;
        if (ver != TARGET_RECORD_VERSION)
            return ld_fail(c, val[T_VERSION], "npuc_target", "record version %lld is not supported (this npuc "
                           "reads version %d)", (long long)ver, TARGET_RECORD_VERSION);
        if (!val[T_TARGET]) return ld_fail(c, root, "top level", "missing key \"target\"");
        if (val[T_SYSTEM_CONFIG] &&
            (rc = get_name(c, val[T_SYSTEM_CONFIG], "system_config", s->system_config, sizeof s->system_config, false)))
            return rc;
        if (val[T_MEMORY_MODE] &&
            (rc = get_name(c, val[T_MEMORY_MODE], "memory_mode", s->memory_mode, sizeof s->memory_mode, false)))
            return rc;
        if (!val[T_SYSTEM_CONFIG] != !val[T_MEMORY_MODE])
            return ld_fail(c, root, "top level", "\"system_config\" and \"memory_mode\" go together");
    }
    if (!val[T_NAME]) return ld_fail(c, root, "top level", "missing key \"name\"");
    if ((rc = get_name(c, val[T_NAME], "name", s->name, sizeof s->name, false))) return rc;
    if (val[T_DESCRIPTION] && (rc = expect_type(c, val[T_DESCRIPTION], "description", NPUC_JSON_STRING)))
        return rc;
    if (val[T_TARGET] && (rc = parse_target(c, val[T_TARGET], s))) return rc;
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
    if (pools->n == 0 || pools->n > TARGET_MAX_POOLS)
        return ld_fail(c, pools, "pools", "expected 1 to %d pools, got %zu", TARGET_MAX_POOLS, pools->n);
    c->pools_node = pools;
    for (size_t i = 0; i < pools->n; i++) {
        c->pool_node[i] = pools->items[i];
        if ((rc = parse_pool(c, pools->items[i], (int)i, &s->pools[i]))) return rc;
        s->n_pools = (int)i + 1;
    }
    return target_finish(s, s->system_config[0] ? s->system_config : "custom", c);
}

static int parse_doc(const char *text, size_t size, const char *source, eu_variant v, bool record,
                     target_desc *out, npuc_err *err)
{
    ld c;
    memset(&c, 0, sizeof c);
    c.source = source;
    c.err = err;
    c.v = v;
    c.record = record;
    npuc_arena arena;
    npuc_arena_init(&arena);
    npuc_json_opts opts = {.source = c.source, .max_depth = 16, .max_size = MAX_FILE_BYTES};
    const npuc_json *root;
    int rc = npuc_json_parse(text, size, &opts, &arena, &root, err);
    target_desc s;
    memset(&s, 0, sizeof s);
    s.variant = v;
    if (!rc) rc = parse_system(&c, root, &s);
    npuc_arena_free(&arena);
    if (!rc) *out = s;
    return rc;
}

int target_parse_json(const char *text, size_t size, const char *source, eu_variant v, target_desc *out,
                      npuc_err *err)
{
    if (!out || (!text && size)) return npuc_errf(err, NPUC_E_USAGE, "target_parse_json: NULL argument");
    if (!target_variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    return parse_doc(text, size, source ? source : "<system>", v, false, out, err);
}

/* ------------------------------------------------------------ records */

int target_record_parse(const char *text, size_t len, const char *source, target_desc *out, npuc_err *err)
{
    if (!out || (!text && len)) return npuc_errf(err, NPUC_E_USAGE, "target_record_parse: NULL argument");
    return parse_doc(text, len, source ? source : "<target record>", EU_U55_256, true, out, err);
}

static const char *memory_json(const char *vela)
{
    for (int k = 0; k < TM_N; k++)
        if (vela && strcmp(vela, TARGET_MEM_VELA[k]) == 0) return TARGET_MEM_JSON[k];
    return NULL;
}

int target_record_write(const target_desc *t, char **text, size_t *len, npuc_err *err)
{
    *text = NULL;
    if (len) *len = 0;
    if (!target_variant_valid(t->variant)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)t->variant);
    npuc_json_writer w;
    npuc_json_writer_init(&w, 0);
    npuc_json_write_object_begin(&w);
    npuc_json_member_int(&w, "npuc_target", TARGET_RECORD_VERSION);
    npuc_json_member_string(&w, "name", t->name);
    npuc_json_member_string(&w, "target", target_variant_name(t->variant));
    if (t->system_config[0]) {
        npuc_json_member_string(&w, "system_config", t->system_config);
        npuc_json_member_string(&w, "memory_mode", t->memory_mode);
    }
    npuc_json_member_double(&w, "core_clock_hz", t->core_clock_hz);
    npuc_json_write_key(&w, "pools");
    npuc_json_write_array_begin(&w);
    int rc = NPUC_OK;
    for (int i = 0; i < t->n_pools; i++) {
        const target_pool *p = &t->pools[i];
        const char *mem = memory_json(p->memory), *use = target_use_name(p->use);
        if (!mem || !strcmp(use, "?")) {
            rc = npuc_errf(err, NPUC_E_INVALID, "pool '%s' has no record form (memory %s, use 0x%x)", p->name,
                           p->memory ? p->memory : "?", (unsigned)p->use);
            break;
        }
        npuc_json_write_object_begin(&w);
        npuc_json_member_string(&w, "name", p->name);
        npuc_json_member_string(&w, "memory", mem);
        npuc_json_member_string(&w, "use", use);
        npuc_json_member_string(&w, "rights", p->writable ? "rw" : "r");
        if (p->absolute) {
            npuc_json_member_string(&w, "mode", "absolute");
            npuc_json_member_uint(&w, "offset", p->offset);
        }
        npuc_json_member_uint(&w, "size", p->size);
        npuc_json_member_int(&w, "axi_port", p->axi_port);
        npuc_json_member_double(&w, "clock_ratio", p->clock_ratio);
        npuc_json_member_uint(&w, "byte_width", p->byte_width);
        npuc_json_member_uint(&w, "burst_bytes", p->burst_bytes);
        npuc_json_member_uint(&w, "read_latency", p->read_latency);
        npuc_json_member_uint(&w, "write_latency", p->write_latency);
        if (p->cacheable) npuc_json_member_bool(&w, "cacheable", true);
        if (p->priority) npuc_json_member_int(&w, "priority", p->priority);
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);
    npuc_json_write_object_end(&w);
    if (rc) {
        npuc_json_writer_free(&w);
        return rc;
    }
    size_t n = 0;
    rc = npuc_json_writer_finish(&w, text, &n, err);
    if (rc) return rc;
    /* one line: drop the writer's final newline */
    while (n && ((*text)[n - 1] == '\n')) (*text)[--n] = 0;
    if (len) *len = n;
    return NPUC_OK;
}
