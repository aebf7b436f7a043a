/* target_ini: Vela's configuration file (vela.ini), so that a Vela user's
 * --config / --system-config / --memory-mode work unchanged.
 *
 * The syntax is the subset of Python's ConfigParser Vela files use:
 * [Section] lines, key=value or key: value lines, whole-line comments
 * starting with ';' or '#'. Keys are matched without regard to letter case
 * (ConfigParser lowercases them); section names keep their case. npuc
 * reads [System_Config.NAME] and [Memory_Mode.NAME] sections and their
 * `inherit=Kind.Name` (the child's keys win). The whole file is checked
 * before anything is looked up: an unknown section or key, a bad value, a
 * duplicate, an inheritance from a missing section or in a loop is an error
 * naming the file, the line and the key. Then the selected sections must
 * have every key the description needs (Vela would silently take 1 for a
 * missing one). */
#include "target_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (1u << 20)

enum { SEC_SYSTEM, SEC_MODE };
static const char *const SEC_PREFIX[2] = {"System_Config", "Memory_Mode"};

/* Keys. System: four of its own, then 7 per memory area. */
enum { KS_CORE_CLOCK, KS_AXI0, KS_AXI1, KS_INHERIT, KS_MEM0 };
enum { F_CLOCK_SCALE, F_BURST_LENGTH, F_READ_LATENCY, F_WRITE_LATENCY, F_MAX_READS, F_MAX_WRITES, F_PORTS_USED, N_F };
#define N_SYS_KEYS (KS_MEM0 + TM_N * N_F)
static const char *const SYS_KEYS[KS_MEM0] = {"core_clock", "axi0_port", "axi1_port", "inherit"};
static const char *const MEM_FIELDS[N_F] = {"clock_scale", "burst_length", "read_latency", "write_latency",
                                            "max_reads", "max_writes", "ports_used"};
enum { KM_CONST, KM_ARENA, KM_CACHE, KM_CACHE_SIZE, KM_INHERIT, N_MODE_KEYS };
static const char *const MODE_KEYS[N_MODE_KEYS] = {"const_mem_area", "arena_mem_area", "cache_mem_area",
                                                  "arena_cache_size", "inherit"};

typedef struct kv {
    int id;
    unsigned line;
    char key[64];             /* as written (shortened) */
    char *val;                /* malloc'd, trimmed */
} kv;

typedef struct sec {
    int kind;
    char name[TARGET_NAME_MAX];   /* after "Kind." */
    unsigned line;
    kv *kv;
    int n, cap;
    int parent;               /* inherit: index of the section, -1 */
} sec;

typedef struct ini {
    const char *source;
    npuc_err *err;
    sec *s;
    int n, cap;
} ini;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(const ini *f, int code, unsigned line, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line) return npuc_errf(f->err, code, "%s:%u: %s", f->source, line, msg);
    return npuc_errf(f->err, code, "%s: %s", f->source, msg);
}

static void ini_free(ini *f)
{
    for (int i = 0; i < f->n; i++) {
        for (int k = 0; k < f->s[i].n; k++) free(f->s[i].kv[k].val);
        free(f->s[i].kv);
    }
    free(f->s);
}

/* A short printable copy of s[0..n) for messages. */
static const char *shown(const char *s, size_t n, char *buf, size_t size)
{
    size_t o = 0, i = 0;
    for (; i < n && o + 4 < size; i++) buf[o++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    if (i < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

static int key_id(int kind, const char *k, size_t n)
{
    if (kind == SEC_MODE) {
        for (int i = 0; i < N_MODE_KEYS; i++)
            if (target_ieq_n(k, n, MODE_KEYS[i])) return i;
        return -1;
    }
    for (int i = 0; i < KS_MEM0; i++)
        if (target_ieq_n(k, n, SYS_KEYS[i])) return i;
    for (int m = 0; m < TM_N; m++) {
        size_t ml = strlen(TARGET_MEM_VELA[m]);
        if (n <= ml + 1 || !target_ieq_n(k, ml, TARGET_MEM_VELA[m]) || k[ml] != '_') continue;
        for (int fi = 0; fi < N_F; fi++)
            if (target_ieq_n(k + ml + 1, n - ml - 1, MEM_FIELDS[fi])) return KS_MEM0 + m * N_F + fi;
    }
    return -1;
}

static const char *key_name(int kind, int id, char *buf, size_t size)
{
    if (kind == SEC_MODE) return MODE_KEYS[id];
    if (id < KS_MEM0) return SYS_KEYS[id];
    snprintf(buf, size, "%s_%s", TARGET_MEM_VELA[(id - KS_MEM0) / N_F], MEM_FIELDS[(id - KS_MEM0) % N_F]);
    return buf;
}

static int memory_of(const char *v)
{
    for (int m = 0; m < TM_N; m++)
        if (target_ieq(v, TARGET_MEM_VELA[m])) return m;
    return -1;
}

static int port_of(const char *v)
{
    if (target_ieq(v, "Axi0")) return 0;
    if (target_ieq(v, "Axi1")) return 1;
    return -1;
}

static bool parse_real(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x)) return false;
    *out = x;
    return true;
}

static bool parse_whole(const char *v, uint64_t *out)
{
    uint64_t x = 0;
    if (!*v) return false;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) return false;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *out = x;
    return true;
}

/* Checks a value's form and range (the same rules as the JSON files). */
static int check_value(const ini *f, const sec *s, const kv *e)
{
    const char *v = e->val;
    char kb[80], range[64];
    const char *what = NULL;
    int id = e->id;
    if (s->kind == SEC_SYSTEM) {
        double x;
        uint64_t w;
        if (id == KS_CORE_CLOCK) {
            if (!parse_real(v, &x) || !(x > 0) || x > 1e10) what = "a number of Hz greater than 0 and at most 1e10";
        } else if (id == KS_AXI0 || id == KS_AXI1) {
            if (memory_of(v) < 0) what = "Sram, Dram, OnChipFlash or OffChipFlash";
        } else if (id >= KS_MEM0) {
            int fi = (id - KS_MEM0) % N_F;
            static const uint64_t lo[N_F] = {0, 1, 0, 0, 0, 0, 1};
            static const uint64_t hi[N_F] = {0, 4096, 1000000, 1000000, 1000000, 1000000, 64};
            if (fi == F_CLOCK_SCALE) {
                if (!parse_real(v, &x) || !(x > 0) || x > 16) what = "a number greater than 0 and at most 16";
            } else if (!parse_whole(v, &w) || w < lo[fi] || w > hi[fi]) {
                snprintf(range, sizeof range, "a whole number from %llu to %llu", (unsigned long long)lo[fi],
                         (unsigned long long)hi[fi]);
                what = range;
            }
        }
    } else {
        uint64_t w;
        if (id == KM_CONST || id == KM_ARENA || id == KM_CACHE) {
            if (port_of(v) < 0) what = "Axi0 or Axi1";
        } else if (id == KM_CACHE_SIZE) {
            if (!parse_whole(v, &w) || w == 0 || w > (1ull << 40))
                what = "a whole number of bytes from 1 to 1099511627776";
        }
    }
    if (!what) return NPUC_OK;
    char vb[80];
    return fail(f, NPUC_E_INVALID, e->line, "[%s.%s] %s: expected %s, got '%s'", SEC_PREFIX[s->kind], s->name,
                key_name(s->kind, id, kb, sizeof kb), what, shown(v, strlen(v), vb, sizeof vb));
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static void trim(const char **b, const char **e)
{
    while (*b < *e && is_space(**b)) (*b)++;
    while (*e > *b && is_space((*e)[-1])) (*e)--;
}

static int find_section(const ini *f, int kind, const char *name, size_t n)
{
    for (int i = 0; i < f->n; i++)
        if (f->s[i].kind == kind && strlen(f->s[i].name) == n && memcmp(f->s[i].name, name, n) == 0) return i;
    return -1;
}

static int add_section(ini *f, const char *b, const char *e, unsigned line)
{
    char nb[96];
    const char *dot = memchr(b, '.', (size_t)(e - b));
    int kind = -1;
    for (int k = 0; k < 2 && dot; k++)
        if ((size_t)(dot - b) == strlen(SEC_PREFIX[k]) && memcmp(b, SEC_PREFIX[k], (size_t)(dot - b)) == 0) kind = k;
    if (kind < 0)
        return fail(f, NPUC_E_INVALID, line, "[%s]: unknown section (npuc reads [System_Config.NAME] and "
                    "[Memory_Mode.NAME])", shown(b, (size_t)(e - b), nb, sizeof nb));
    const char *n = dot + 1;
    size_t len = (size_t)(e - n);
    bool ok = len > 0 && len < TARGET_NAME_MAX;
    for (size_t i = 0; ok && i < len; i++) ok = !is_space(n[i]) && n[i] != ':' && (unsigned char)n[i] >= 0x20;
    if (!ok)
        return fail(f, NPUC_E_INVALID, line, "[%s]: the name after '%s.' must be 1 to %d characters without "
                    "spaces or ':'", shown(b, (size_t)(e - b), nb, sizeof nb), SEC_PREFIX[kind],
                    TARGET_NAME_MAX - 1);
    int dup = find_section(f, kind, n, len);
    if (dup >= 0)
        return fail(f, NPUC_E_INVALID, line, "[%s]: duplicate section (first at line %u)",
                    shown(b, (size_t)(e - b), nb, sizeof nb), f->s[dup].line);
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        sec *ns = realloc(f->s, sizeof *ns * (size_t)cap);
        if (!ns) return npuc_errf(f->err, NPUC_E_NOMEM, "out of memory");
        f->s = ns;
        f->cap = cap;
    }
    sec *s = &f->s[f->n++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    memcpy(s->name, n, len);
    s->line = line;
    s->parent = -1;
    return NPUC_OK;
}

static int add_key(ini *f, const char *kb, const char *ke, const char *vb, const char *ve, unsigned line)
{
    char b1[80], b2[80];
    if (kb == ke) return fail(f, NPUC_E_INVALID, line, "missing key before '='");
    if (!f->n)
        return fail(f, NPUC_E_INVALID, line, "key '%s' outside a section", shown(kb, (size_t)(ke - kb), b1, sizeof b1));
    sec *s = &f->s[f->n - 1];
    int id = key_id(s->kind, kb, (size_t)(ke - kb));
    if (id < 0) {
        if (s->kind == SEC_MODE)
            return fail(f, NPUC_E_INVALID, line, "[%s.%s] %s: unknown key (valid: const_mem_area, arena_mem_area, "
                        "cache_mem_area, arena_cache_size, inherit)", SEC_PREFIX[s->kind], s->name,
                        shown(kb, (size_t)(ke - kb), b1, sizeof b1));
        return fail(f, NPUC_E_INVALID, line, "[%s.%s] %s: unknown key (valid: core_clock, axi0_port, axi1_port, "
                    "inherit, and MEM_clock_scale, MEM_burst_length, MEM_read_latency, MEM_write_latency, "
                    "MEM_max_reads, MEM_max_writes, MEM_ports_used with MEM one of Sram, Dram, OnChipFlash, "
                    "OffChipFlash)", SEC_PREFIX[s->kind], s->name, shown(kb, (size_t)(ke - kb), b1, sizeof b1));
    }
    for (int i = 0; i < s->n; i++)
        if (s->kv[i].id == id)
            return fail(f, NPUC_E_INVALID, line, "[%s.%s] %s: duplicate key (first at line %u)", SEC_PREFIX[s->kind],
                        s->name, shown(kb, (size_t)(ke - kb), b2, sizeof b2), s->kv[i].line);
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        kv *nk = realloc(s->kv, sizeof *nk * (size_t)cap);
        if (!nk) return npuc_errf(f->err, NPUC_E_NOMEM, "out of memory");
        s->kv = nk;
        s->cap = cap;
    }
    kv *e = &s->kv[s->n];
    memset(e, 0, sizeof *e);
    e->id = id;
    e->line = line;
    shown(kb, (size_t)(ke - kb), e->key, sizeof e->key);
    e->val = malloc((size_t)(ve - vb) + 1);
    if (!e->val) return npuc_errf(f->err, NPUC_E_NOMEM, "out of memory");
    memcpy(e->val, vb, (size_t)(ve - vb));
    e->val[ve - vb] = 0;
    s->n++;
    return check_value(f, s, e);
}

static const kv *own(const sec *s, int id)
{
    for (int i = 0; i < s->n; i++)
        if (s->kv[i].id == id) return &s->kv[i];
    return NULL;
}

/* inherit: every target exists, is of the same kind, and no chain loops. */
static int link_sections(ini *f)
{
    for (int i = 0; i < f->n; i++) {
        sec *s = &f->s[i];
        const kv *e = own(s, s->kind == SEC_SYSTEM ? KS_INHERIT : KM_INHERIT);
        if (!e) continue;
        const char *v = e->val, *dot = strchr(v, '.');
        int kind = -1;
        for (int k = 0; k < 2 && dot; k++)
            if ((size_t)(dot - v) == strlen(SEC_PREFIX[k]) && memcmp(v, SEC_PREFIX[k], (size_t)(dot - v)) == 0) kind = k;
        int j = kind >= 0 ? find_section(f, kind, dot + 1, strlen(dot + 1)) : -1;
        char vb[80];
        if (j < 0)
            return fail(f, NPUC_E_INVALID, e->line, "[%s.%s] inherit: no section [%s] in the file", SEC_PREFIX[s->kind],
                        s->name, shown(v, strlen(v), vb, sizeof vb));
        if (kind != s->kind)
            return fail(f, NPUC_E_INVALID, e->line, "[%s.%s] inherit: [%s] is a %s section; a %s section can only "
                        "inherit another %s section", SEC_PREFIX[s->kind], s->name, shown(v, strlen(v), vb, sizeof vb),
                        SEC_PREFIX[kind], SEC_PREFIX[s->kind], SEC_PREFIX[s->kind]);
        s->parent = j;
    }
    for (int i = 0; i < f->n; i++) {
        int at = i, steps = 0;
        while (at >= 0 && steps <= f->n) {
            at = f->s[at].parent;
            steps++;
            if (at == i) {
                /* the loop, from i back to i */
                char chain[400];
                size_t o = 0;
                int k = i;
                do {
                    int w = snprintf(chain + o, sizeof chain - o, "%s[%s.%s]", k == i && o == 0 ? "" : " -> ",
                                     SEC_PREFIX[f->s[k].kind], f->s[k].name);
                    if (w < 0 || (size_t)w >= sizeof chain - o) break;
                    o += (size_t)w;
                    k = f->s[k].parent;
                } while (k != i);
                snprintf(chain + o, sizeof chain - o, " -> [%s.%s]", SEC_PREFIX[f->s[i].kind], f->s[i].name);
                const kv *e = own(&f->s[i], f->s[i].kind == SEC_SYSTEM ? KS_INHERIT : KM_INHERIT);
                return fail(f, NPUC_E_INVALID, e ? e->line : f->s[i].line, "[%s.%s] inherit: inheritance loop %s",
                            SEC_PREFIX[f->s[i].kind], f->s[i].name, chain);
            }
        }
    }
    return NPUC_OK;
}

static int parse_text(ini *f, const char *text, size_t size)
{
    if (size > MAX_FILE_BYTES)
        return fail(f, NPUC_E_FORMAT, 0, "%zu bytes, more than the limit of %u for this file", size, MAX_FILE_BYTES);
    if (memchr(text, 0, size)) return fail(f, NPUC_E_FORMAT, 0, "not a text file (it holds a NUL byte)");
    const char *p = text, *end = text + size;
    unsigned line = 0;
    /* a UTF-8 byte order mark */
    if (size >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *b = p, *e = nl ? nl : end;
        p = nl ? nl + 1 : end;
        line++;
        trim(&b, &e);
        if (b == e || *b == ';' || *b == '#') continue;
        int rc;
        char lb[80];
        if (*b == '[') {
            if (e[-1] != ']' || e - b < 2)
                return fail(f, NPUC_E_INVALID, line, "section header without its ']': '%s'",
                            shown(b, (size_t)(e - b), lb, sizeof lb));
            const char *nb = b + 1, *ne = e - 1;
            trim(&nb, &ne);
            rc = add_section(f, nb, ne, line);
        } else {
            const char *eq = memchr(b, '=', (size_t)(e - b)), *co = memchr(b, ':', (size_t)(e - b));
            const char *sep = eq && (!co || eq < co) ? eq : co;
            if (!sep)
                return fail(f, NPUC_E_INVALID, line, "expected [section] or key=value, got '%s'",
                            shown(b, (size_t)(e - b), lb, sizeof lb));
            const char *kb = b, *ke = sep, *vb = sep + 1, *ve = e;
            trim(&kb, &ke);
            trim(&vb, &ve);
            rc = add_key(f, kb, ke, vb, ve, line);
        }
        if (rc) return rc;
    }
    return link_sections(f);
}

/* The value of key id in s or what it inherits (child first). */
static const kv *get(const ini *f, const sec *s, int id)
{
    for (int guard = 0; s && guard <= f->n; guard++) {
        const kv *e = own(s, id);
        if (e) return e;
        s = s->parent >= 0 ? &f->s[s->parent] : NULL;
    }
    return NULL;
}

static void list_sections(const ini *f, int kind, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < f->n && o < size; i++) {
        if (f->s[i].kind != kind) continue;
        int w = snprintf(buf + o, size - o, "%s%s", o ? ", " : "", f->s[i].name);
        if (w < 0) break;
        o += (size_t)w;
    }
    if (!buf[0]) snprintf(buf, size, "none");
}

static int need(const ini *f, const sec *s, int id, const char *why, const kv **out)
{
    *out = get(f, s, id);
    if (*out) return NPUC_OK;
    char kb[80];
    return fail(f, NPUC_E_INVALID, s->line, "[%s.%s]: missing key '%s'%s", SEC_PREFIX[s->kind], s->name,
                key_name(s->kind, id, kb, sizeof kb), why ? why : "");
}

static int select_section(const ini *f, int kind, const char *name, const char *dflt_of, int *out)
{
    *out = find_section(f, kind, name, strlen(name));
    if (*out >= 0) return NPUC_OK;
    char list[600];
    list_sections(f, kind, list, sizeof list);
    return fail(f, NPUC_E_USAGE, 0, "no section [%s.%s]%s%s%s (%s in the file: %s)", SEC_PREFIX[kind], name,
                dflt_of ? " (the default for " : "", dflt_of ? dflt_of : "", dflt_of ? ")" : "",
                kind == SEC_SYSTEM ? "system configs" : "memory modes", list);
}

static int read_system(const ini *f, const sec *s, vela_system *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", s->name);
    const kv *e;
    int rc;
    if ((rc = need(f, s, KS_CORE_CLOCK, NULL, &e))) return rc;
    parse_real(e->val, &out->core_clock);
    for (int p = 0; p < 2; p++) {
        if ((rc = need(f, s, p ? KS_AXI1 : KS_AXI0, NULL, &e))) return rc;
        out->axi[p] = memory_of(e->val);
    }
    for (int p = 0; p < 2; p++) {
        int m = out->axi[p];
        if (p == 1 && m == out->axi[0]) break;
        char why[48];
        snprintf(why, sizeof why, " (AXI%d is %s)", p, TARGET_MEM_VELA[m]);
        vela_timing *t = &out->mem[m];
        for (int fi = 0; fi < N_F; fi++) {
            int id = KS_MEM0 + m * N_F + fi;
            if (fi <= F_WRITE_LATENCY) {
                if ((rc = need(f, s, id, why, &e))) return rc;
            } else if (!(e = get(f, s, id))) {
                continue;
            }
            uint64_t w = 0;
            if (fi == F_CLOCK_SCALE) parse_real(e->val, &t->clock_scale);
            else parse_whole(e->val, &w);
            switch (fi) {
            case F_BURST_LENGTH: t->burst_length = (unsigned)w; break;
            case F_READ_LATENCY: t->read_latency = (unsigned)w; break;
            case F_WRITE_LATENCY: t->write_latency = (unsigned)w; break;
            case F_MAX_READS: t->max_reads = (unsigned)w; break;
            case F_MAX_WRITES: t->max_writes = (unsigned)w; break;
            case F_PORTS_USED: t->ports_used = (unsigned)w; break;
            default: break;
            }
        }
    }
    return NPUC_OK;
}

static int read_mode(const ini *f, const sec *s, vela_mode *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", s->name);
    const kv *e;
    int rc;
    int *ports[3] = {&out->const_port, &out->arena_port, &out->cache_port};
    for (int k = 0; k < 3; k++) {
        if ((rc = need(f, s, KM_CONST + k, NULL, &e))) return rc;
        *ports[k] = port_of(e->val);
    }
    if ((e = get(f, s, KM_CACHE_SIZE))) parse_whole(e->val, &out->arena_cache_size);
    return NPUC_OK;
}

int target_parse_ini(const char *text, size_t size, const char *source, const char *system, const char *mode,
                     eu_variant v, target_desc *out, npuc_err *err)
{
    if (!out || (!text && size)) return npuc_errf(err, NPUC_E_USAGE, "target_parse_ini: NULL argument");
    if (!target_variant_valid(v)) return npuc_errf(err, NPUC_E_USAGE, "invalid NPU variant %d", (int)v);
    ini f;
    memset(&f, 0, sizeof f);
    f.source = source ? source : "<vela.ini>";
    f.err = err;
    int rc = parse_text(&f, text ? text : "", size);
    int si = -1, mi = -1;
    vela_system vs;
    vela_mode vm;
    if (!rc)
        rc = select_section(&f, SEC_SYSTEM, system ? system : target_default_system_name(v),
                            system ? NULL : target_variant_name(v), &si);
    if (!rc) rc = read_system(&f, &f.s[si], &vs);
    const char *mname = mode ? mode : (si >= 0 ? target_default_mode_name(&vs, v) : NULL);
    if (!rc) rc = select_section(&f, SEC_MODE, mname, NULL, &mi);
    if (!rc) rc = read_mode(&f, &f.s[mi], &vm);
    if (!rc) rc = target_check_family(vs.name, vm.name, v, err);
    if (!rc && vm.cache_port != vm.arena_port && !eu_variant_is_u65(v))
        rc = fail(&f, NPUC_E_INVALID, f.s[mi].line, "[Memory_Mode.%s]: the cache (AXI%d) is apart from the tensor "
                  "arena (AXI%d): Vela's spilling, which needs an Ethos-U65, but the target is %s", vm.name,
                  vm.cache_port, vm.arena_port, target_variant_name(v));
    if (!rc && (rc = target_from_vela(&vs, &vm, v, out, err))) npuc_err_prefix(err, "%s", f.source);
    ini_free(&f);
    return rc;
}
