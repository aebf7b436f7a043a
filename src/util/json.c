/* json: strict JSON reader (tree in an arena) and JSON writer. See json.h. */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ reader */

typedef struct jp {
    const unsigned char *s;
    size_t n, pos;
    uint32_t line, col;       /* of s[pos] */
    unsigned max_depth;
    const char *source;
    npuc_arena *arena;
    npuc_err *err;
    int rc;                   /* first error (0 = none) */
    /* Scratch stacks shared by all nesting levels: a container pushes its
     * children above the entries of its parents and pops them when it
     * closes, so one growing buffer serves the whole document. */
    const npuc_json **items;
    size_t n_items, cap_items;
    npuc_json_member *mems;
    size_t n_mems, cap_mems;
    char *tmp;                /* decoded string being built */
    size_t n_tmp, cap_tmp;
} jp;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int jp_fail(jp *p, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (p->rc) return p->rc;   /* keep the first error */
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->source)
        p->rc = npuc_errf(p->err, NPUC_E_FORMAT, "%s:%u:%u: %s", p->source, (unsigned)line,
                          (unsigned)col, msg);
    else
        p->rc = npuc_errf(p->err, NPUC_E_FORMAT, "%u:%u: %s", (unsigned)line, (unsigned)col, msg);
    return p->rc;
}

static int jp_nomem(jp *p)
{
    if (!p->rc) p->rc = npuc_errf(p->err, NPUC_E_NOMEM, "out of memory while reading JSON");
    return p->rc;
}

static bool jp_eof(const jp *p) { return p->pos >= p->n; }
static int jp_peek(const jp *p) { return p->pos < p->n ? p->s[p->pos] : -1; }

/* Consumes one byte, keeping line and column: a column is one character,
 * so UTF-8 continuation bytes do not count; '\r' does not count either
 * (so "\r\n" files have the same columns as "\n" files). */
static void jp_advance(jp *p)
{
    unsigned char c = p->s[p->pos++];
    if (c == '\n') {
        p->line++;
        p->col = 1;
    } else if (c != '\r' && (c & 0xC0) != 0x80) {
        p->col++;
    }
}

static void jp_skip_ws(jp *p)
{
    while (p->pos < p->n) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        jp_advance(p);
    }
}

/* Describes the byte at the current position for "found ..." messages. */
static const char *jp_found(const jp *p, char *buf, size_t size)
{
    if (jp_eof(p)) return "end of input";
    unsigned char c = p->s[p->pos];
    if (c == '\'') snprintf(buf, size, "a single quote");
    else if (c > 0x20 && c < 0x7F) snprintf(buf, size, "'%c'", c);
    else snprintf(buf, size, "byte 0x%02X", c);
    return buf;
}

/* A hint for common non-JSON habits. */
static const char *jp_hint(const jp *p)
{
    switch (jp_peek(p)) {
    case '/': return " (comments are not allowed in JSON)";
    case '\'': return " (strings must use double quotes)";
    default: return "";
    }
}

/* Printable, bounded copy of a decoded string for messages: control
 * characters become '?', long strings are cut at a character boundary. */
static const char *jp_show(const char *s, size_t len, char *buf, size_t size)
{
    size_t o = 0, i = 0;
    size_t lim = size > 4 ? size - 4 : 0;
    while (i < len && o < lim) {
        unsigned char c = (unsigned char)s[i];
        size_t k = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (o + k > lim) break;
        if (c < 0x20 || c == 0x7F) {
            buf[o++] = '?';
            i++;
            continue;
        }
        for (size_t j = 0; j < k && i < len; j++) buf[o++] = s[i++];
    }
    if (i < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}

static bool jp_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return false;
        nc *= 2;
    }
    size_t bytes;
    if (!npuc_mul_size(nc, elem, &bytes)) return false;
    void *nb = realloc(*buf, bytes);
    if (!nb) return false;
    *buf = nb;
    *cap = nc;
    return true;
}

static int jp_tmp_put(jp *p, const void *b, size_t k)
{
    void *buf = p->tmp;
    if (!jp_grow(&buf, &p->cap_tmp, p->n_tmp + k + 1, 1)) return jp_nomem(p);
    p->tmp = buf;
    memcpy(p->tmp + p->n_tmp, b, k);
    p->n_tmp += k;
    return 0;
}

static int jp_hex4(jp *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int c = jp_peek(p);
        int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v << 4 | (uint32_t)d;
        jp_advance(p);
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at s[0..avail), 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t k;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) k = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (avail < k) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return k;
}

static size_t utf8_put(uint32_t cp, char *b)
{
    if (cp < 0x80) { b[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (char)(0xF0 | cp >> 18);
    b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses the string at the current '"' and returns its decoded copy in the
 * arena. */
static int jp_string(jp *p, const char **out, size_t *out_len)
{
    uint32_t line0 = p->line, col0 = p->col;
    jp_advance(p);   /* opening quote */
    p->n_tmp = 0;
    for (;;) {
        if (jp_eof(p)) return jp_fail(p, line0, col0, "unterminated string");
        /* copy a run of plain ASCII at once */
        size_t start = p->pos;
        while (p->pos < p->n) {
            unsigned char c = p->s[p->pos];
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
            p->pos++;
        }
        if (p->pos > start) {
            p->col += (uint32_t)(p->pos - start);
            if (jp_tmp_put(p, p->s + start, p->pos - start)) return p->rc;
            continue;
        }
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            jp_advance(p);
            break;
        }
        if (c < 0x20)
            return jp_fail(p, p->line, p->col,
                           "control character 0x%02X in string (write it as an escape such as \\n)", c);
        if (c >= 0x80) {
            size_t k = utf8_len(p->s + p->pos, p->n - p->pos);
            if (!k) return jp_fail(p, p->line, p->col, "invalid UTF-8 in string");
            if (jp_tmp_put(p, p->s + p->pos, k)) return p->rc;
            for (size_t i = 0; i < k; i++) jp_advance(p);
            continue;
        }
        /* escape */
        uint32_t el = p->line, ec = p->col;
        jp_advance(p);
        int e = jp_peek(p);
        char one;
        switch (e) {
        case '"': one = '"'; break;
        case '\\': one = '\\'; break;
        case '/': one = '/'; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': one = 0; break;
        case -1: return jp_fail(p, line0, col0, "unterminated string");
        default:
            if (e > 0x20 && e < 0x7F)
                return jp_fail(p, el, ec, "invalid escape '\\%c' in string", e);
            return jp_fail(p, el, ec, "invalid escape in string");
        }
        jp_advance(p);
        if (e != 'u') {
            if (jp_tmp_put(p, &one, 1)) return p->rc;
            continue;
        }
        uint32_t cp;
        if (jp_hex4(p, &cp))
            return jp_fail(p, el, ec, "invalid \\u escape: expected 4 hex digits");
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return jp_fail(p, el, ec, "invalid \\u escape: unpaired surrogate \\u%04X", (unsigned)cp);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (p->pos + 1 < p->n && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
                jp_advance(p);
                jp_advance(p);
                if (jp_hex4(p, &lo))
                    return jp_fail(p, el, ec, "invalid \\u escape: expected 4 hex digits");
            } else {
                lo = 0;
            }
            if (lo < 0xDC00 || lo > 0xDFFF)
                return jp_fail(p, el, ec, "invalid \\u escape: unpaired surrogate \\u%04X", (unsigned)cp);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp == 0)
            return jp_fail(p, el, ec, "\\u0000 is not allowed in strings");
        char b[4];
        if (jp_tmp_put(p, b, utf8_put(cp, b))) return p->rc;
    }
    char *s = npuc_arena_strndup(p->arena, p->tmp ? p->tmp : "", p->n_tmp);
    if (!s) return jp_nomem(p);
    *out = s;
    *out_len = p->n_tmp;
    return 0;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static int jp_number(jp *p, npuc_json *v)
{
    size_t start = p->pos;
    bool neg = false, frac = false;
    if (jp_peek(p) == '-') {
        neg = true;
        jp_advance(p);
        if (!is_digit(jp_peek(p)))
            return jp_fail(p, p->line, p->col, "invalid number: expected a digit after '-'");
    }
    if (jp_peek(p) == '0') {
        jp_advance(p);
        if (is_digit(jp_peek(p)))
            return jp_fail(p, v->line, v->col, "invalid number: leading zeros are not allowed");
    } else {
        while (is_digit(jp_peek(p))) jp_advance(p);
    }
    size_t int_end = p->pos;
    if (jp_peek(p) == '.') {
        frac = true;
        jp_advance(p);
        if (!is_digit(jp_peek(p)))
            return jp_fail(p, p->line, p->col, "invalid number: expected a digit after '.'");
        while (is_digit(jp_peek(p))) jp_advance(p);
    }
    if (jp_peek(p) == 'e' || jp_peek(p) == 'E') {
        frac = true;
        jp_advance(p);
        if (jp_peek(p) == '+' || jp_peek(p) == '-') jp_advance(p);
        if (!is_digit(jp_peek(p)))
            return jp_fail(p, p->line, p->col, "invalid number: expected a digit in the exponent");
        while (is_digit(jp_peek(p))) jp_advance(p);
    }
    size_t len = p->pos - start;
    char *lit = npuc_arena_strndup(p->arena, (const char *)p->s + start, len);
    if (!lit) return jp_nomem(p);
    v->str = lit;
    v->len = len;

    /* Exact integer value when the literal is a whole number that fits. */
    if (!frac) {
        uint64_t u = 0;
        bool ok = true;
        for (size_t i = start + (neg ? 1 : 0); i < int_end; i++) {
            unsigned d = (unsigned)(p->s[i] - '0');
            if (u > (UINT64_MAX - d) / 10) { ok = false; break; }
            u = u * 10 + d;
        }
        if (ok && !neg && u <= (uint64_t)INT64_MAX) {
            v->is_int = true;
            v->integer = (int64_t)u;
        } else if (ok && neg && u <= (uint64_t)INT64_MAX + 1) {
            v->is_int = true;
            v->integer = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
        }
    }

    /* strtod follows the C locale's decimal point; the literal is already
     * validated, so only '.' may need translating. */
    const char *dp = localeconv()->decimal_point;
    char *conv = lit, *end = NULL;
    if (dp && dp[0] && dp[0] != '.' && !dp[1] && memchr(lit, '.', len)) {
        conv = npuc_arena_strndup(p->arena, lit, len);
        if (!conv) return jp_nomem(p);
        char *q = strchr(conv, '.');
        if (q) *q = dp[0];
    }
    v->number = strtod(conv, &end);
    if (isinf(v->number))
        return jp_fail(p, v->line, v->col, "number out of range: %.40s%s", lit, len > 40 ? "..." : "");
    return 0;
}

static int jp_value(jp *p, unsigned depth, const npuc_json **out);

static int jp_array(jp *p, unsigned depth, npuc_json *v)
{
    jp_advance(p);   /* '[' */
    size_t base = p->n_items;
    jp_skip_ws(p);
    if (jp_peek(p) == ']') {
        jp_advance(p);
        return 0;
    }
    char fb[16];
    for (;;) {
        const npuc_json *item;
        if (jp_value(p, depth, &item)) return p->rc;
        void *buf = (void *)p->items;
        if (!jp_grow(&buf, &p->cap_items, p->n_items + 1, sizeof *p->items)) return jp_nomem(p);
        p->items = buf;
        p->items[p->n_items++] = item;
        jp_skip_ws(p);
        int c = jp_peek(p);
        if (c == ']') {
            jp_advance(p);
            break;
        }
        if (c != ',')
            return jp_fail(p, p->line, p->col, "expected ',' or ']' after array element, found %s%s",
                           jp_found(p, fb, sizeof fb), jp_hint(p));
        uint32_t cl = p->line, cc = p->col;
        jp_advance(p);
        jp_skip_ws(p);
        if (jp_peek(p) == ']') return jp_fail(p, cl, cc, "trailing comma before ']'");
    }
    size_t n = p->n_items - base;
    const npuc_json **items = npuc_arena_calloc(p->arena, n, sizeof *items);
    if (!items) return jp_nomem(p);
    memcpy(items, p->items + base, n * sizeof *items);
    p->n_items = base;
    v->items = items;
    v->n = n;
    return 0;
}

static int cmp_member_ptr(const void *a, const void *b)
{
    const npuc_json_member *x = *(const npuc_json_member *const *)a;
    const npuc_json_member *y = *(const npuc_json_member *const *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c) return c;
    if (x->key_len != y->key_len) return x->key_len < y->key_len ? -1 : 1;
    return x < y ? -1 : x > y ? 1 : 0;   /* document order among equal keys */
}

/* Duplicate keys: sort member pointers by (key, position) so equal keys
 * are adjacent (n log n, objects may be large in fuzzed input), then report
 * the earliest repetition in document order. */
static int jp_check_duplicates(jp *p, const npuc_json_member *m, size_t n)
{
    if (n < 2) return 0;
    const npuc_json_member **s = malloc(n * sizeof *s);
    if (!s) return jp_nomem(p);
    for (size_t i = 0; i < n; i++) s[i] = &m[i];
    qsort(s, n, sizeof *s, cmp_member_ptr);
    const npuc_json_member *first = NULL, *dup = NULL;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s[j]->key_len == s[i]->key_len && memcmp(s[j]->key, s[i]->key, s[i]->key_len) == 0)
            j++;
        /* s[i..j) share a key, in document order: s[i + 1] is its first repeat */
        if (j - i >= 2 && (!dup || s[i + 1] < dup)) {
            dup = s[i + 1];
            first = s[i];
        }
        i = j;
    }
    free(s);
    if (!dup) return 0;
    char kb[64];
    return jp_fail(p, dup->line, dup->col, "duplicate key \"%s\" (first at %u:%u)",
                   jp_show(dup->key, dup->key_len, kb, sizeof kb), (unsigned)first->line,
                   (unsigned)first->col);
}

static int jp_object(jp *p, unsigned depth, npuc_json *v)
{
    jp_advance(p);   /* '{' */
    size_t base = p->n_mems;
    jp_skip_ws(p);
    if (jp_peek(p) == '}') {
        jp_advance(p);
        return 0;
    }
    char fb[16];
    for (;;) {
        if (jp_peek(p) != '"')
            return jp_fail(p, p->line, p->col, "expected a string key, found %s%s",
                           jp_found(p, fb, sizeof fb), jp_hint(p));
        npuc_json_member m;
        memset(&m, 0, sizeof m);
        m.line = p->line;
        m.col = p->col;
        if (jp_string(p, &m.key, &m.key_len)) return p->rc;
        jp_skip_ws(p);
        if (jp_peek(p) != ':')
            return jp_fail(p, p->line, p->col, "expected ':' after object key, found %s%s",
                           jp_found(p, fb, sizeof fb), jp_hint(p));
        jp_advance(p);
        if (jp_value(p, depth, &m.value)) return p->rc;
        void *buf = p->mems;
        if (!jp_grow(&buf, &p->cap_mems, p->n_mems + 1, sizeof *p->mems)) return jp_nomem(p);
        p->mems = buf;
        p->mems[p->n_mems++] = m;
        jp_skip_ws(p);
        int c = jp_peek(p);
        if (c == '}') {
            jp_advance(p);
            break;
        }
        if (c != ',')
            return jp_fail(p, p->line, p->col, "expected ',' or '}' after object member, found %s%s",
                           jp_found(p, fb, sizeof fb), jp_hint(p));
        uint32_t cl = p->line, cc = p->col;
        jp_advance(p);
        jp_skip_ws(p);
        if (jp_peek(p) == '}') return jp_fail(p, cl, cc, "trailing comma before '}'");
    }
    size_t n = p->n_mems - base;
    npuc_json_member *mems = npuc_arena_calloc(p->arena, n, sizeof *mems);
    if (!mems) return jp_nomem(p);
    memcpy(mems, p->mems + base, n * sizeof *mems);
    p->n_mems = base;
    v->members = mems;
    v->n = n;
    return jp_check_duplicates(p, mems, n);
}

static int jp_literal(jp *p, npuc_json *v, const char *word, npuc_json_type t, bool b)
{
    size_t k = strlen(word);
    if (p->n - p->pos < k || memcmp(p->s + p->pos, word, k) != 0)
        return jp_fail(p, p->line, p->col, "invalid literal: expected '%s'", word);
    for (size_t i = 0; i < k; i++) jp_advance(p);
    v->type = t;
    v->boolean = b;
    return 0;
}

/* `depth` = number of containers around this value. */
static int jp_value(jp *p, unsigned depth, const npuc_json **out)
{
    jp_skip_ws(p);
    char fb[16];
    if (jp_eof(p)) return jp_fail(p, p->line, p->col, "expected a value, found end of input");
    npuc_json *v = npuc_arena_alloc(p->arena, sizeof *v);
    if (!v) return jp_nomem(p);
    v->line = p->line;
    v->col = p->col;
    int c = jp_peek(p);
    int rc;
    switch (c) {
    case '{':
    case '[':
        if (depth + 1 > p->max_depth)
            return jp_fail(p, p->line, p->col, "nesting deeper than %u levels", p->max_depth);
        v->type = c == '{' ? NPUC_JSON_OBJECT : NPUC_JSON_ARRAY;
        rc = c == '{' ? jp_object(p, depth + 1, v) : jp_array(p, depth + 1, v);
        break;
    case '"':
        v->type = NPUC_JSON_STRING;
        rc = jp_string(p, &v->str, &v->len);
        break;
    case 't': rc = jp_literal(p, v, "true", NPUC_JSON_BOOL, true); break;
    case 'f': rc = jp_literal(p, v, "false", NPUC_JSON_BOOL, false); break;
    case 'n': rc = jp_literal(p, v, "null", NPUC_JSON_NULL, false); break;
    default:
        if (c == '-' || is_digit(c)) {
            v->type = NPUC_JSON_NUMBER;
            rc = jp_number(p, v);
        } else {
            rc = jp_fail(p, p->line, p->col, "expected a value, found %s%s", jp_found(p, fb, sizeof fb),
                         jp_hint(p));
        }
        break;
    }
    if (rc) return rc;
    *out = v;
    return 0;
}

int npuc_json_parse(const char *text, size_t size, const npuc_json_opts *opts, npuc_arena *arena,
                    const npuc_json **out, npuc_err *err)
{
    if (!out || !arena || (!text && size))
        return npuc_errf(err, NPUC_E_USAGE, "npuc_json_parse: NULL argument");
    *out = NULL;
    jp p;
    memset(&p, 0, sizeof p);
    p.s = (const unsigned char *)(text ? text : "");
    p.n = size;
    p.line = 1;
    p.col = 1;
    p.arena = arena;
    p.err = err;
    p.source = opts ? opts->source : NULL;
    p.max_depth = opts && opts->max_depth ? opts->max_depth : NPUC_JSON_DEFAULT_DEPTH;
    if (p.max_depth > NPUC_JSON_DEPTH_LIMIT) p.max_depth = NPUC_JSON_DEPTH_LIMIT;
    if (opts && opts->max_size && size > opts->max_size) {
        if (p.source)
            return npuc_errf(err, NPUC_E_FORMAT, "%s: %zu bytes, more than the limit of %zu for this file",
                             p.source, size, opts->max_size);
        return npuc_errf(err, NPUC_E_FORMAT, "JSON input of %zu bytes is more than the limit of %zu",
                         size, opts->max_size);
    }
    /* a UTF-8 byte order mark, as some editors write, is not part of the text */
    if (p.n >= 3 && p.s[0] == 0xEF && p.s[1] == 0xBB && p.s[2] == 0xBF) p.pos = 3;

    const npuc_json *root = NULL;
    if (jp_value(&p, 0, &root) == 0) {
        jp_skip_ws(&p);
        char fb[16];
        if (!jp_eof(&p))
            jp_fail(&p, p.line, p.col, "unexpected %s after the JSON value", jp_found(&p, fb, sizeof fb));
    }
    free(p.items);
    free(p.mems);
    free(p.tmp);
    if (p.rc) return p.rc;
    *out = root;
    return NPUC_OK;
}

const char *npuc_json_type_name(npuc_json_type t)
{
    switch (t) {
    case NPUC_JSON_NULL: return "null";
    case NPUC_JSON_BOOL: return "boolean";
    case NPUC_JSON_NUMBER: return "number";
    case NPUC_JSON_STRING: return "string";
    case NPUC_JSON_ARRAY: return "array";
    case NPUC_JSON_OBJECT: return "object";
    }
    return "?";
}

const npuc_json *npuc_json_get(const npuc_json *v, const char *key)
{
    if (!v || v->type != NPUC_JSON_OBJECT || !key) return NULL;
    size_t k = strlen(key);
    for (size_t i = 0; i < v->n; i++)
        if (v->members[i].key_len == k && memcmp(v->members[i].key, key, k) == 0) return v->members[i].value;
    return NULL;
}

/* ================================================================ writer */

void npuc_json_writer_init(npuc_json_writer *w, int indent)
{
    memset(w, 0, sizeof *w);
    w->indent = indent < 0 ? 0 : indent > 16 ? 16 : indent;
}

void npuc_json_writer_free(npuc_json_writer *w)
{
    free(w->buf);
    int indent = w->indent;
    npuc_json_writer_init(w, indent);
}

static void jw_fail(npuc_json_writer *w, const char *msg)
{
    if (w->failed) return;
    w->failed = true;
    snprintf(w->msg, sizeof w->msg, "%s", msg);
}

static void jw_put(npuc_json_writer *w, const char *s, size_t n)
{
    if (w->failed) return;
    if (n >= SIZE_MAX - w->len - 1) {
        jw_fail(w, "out of memory");
        return;
    }
    void *buf = w->buf;
    if (!jp_grow(&buf, &w->cap, w->len + n + 1, 1)) {
        jw_fail(w, "out of memory");
        return;
    }
    w->buf = buf;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static void jw_putc(npuc_json_writer *w, char c)
{
    if (!w->failed && w->len + 2 <= w->cap) {   /* room already: no checks to make */
        w->buf[w->len++] = c;
        w->buf[w->len] = 0;
        return;
    }
    jw_put(w, &c, 1);
}

static void jw_newline(npuc_json_writer *w)
{
    static const char spaces[64] = "                                                               ";
    if (!w->indent) return;
    jw_putc(w, '\n');
    for (int left = w->depth * w->indent; left > 0; left -= 63) jw_put(w, spaces, left < 63 ? (size_t)left : 63);
}

/* Separator and checks before any value. False if the value must not be
 * written. */
static bool jw_before_value(npuc_json_writer *w)
{
    if (w->failed) return false;
    if (w->depth == 0) {
        if (w->done) {
            jw_fail(w, "a second value at the top level");
            return false;
        }
        return true;
    }
    int d = w->depth - 1;
    if (w->kind[d] == 'o') {
        if (!w->key_pending) {
            jw_fail(w, "an object member without a key");
            return false;
        }
        w->key_pending = false;
        return true;
    }
    if (w->has_items[d]) jw_putc(w, ',');
    w->has_items[d] = true;
    jw_newline(w);
    return true;
}

static void jw_after_value(npuc_json_writer *w)
{
    if (w->depth == 0) w->done = true;
}

static void jw_quoted(npuc_json_writer *w, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    jw_putc(w, '"');
    size_t i = 0;
    while (i < n && !w->failed) {
        size_t start = i;
        while (i < n && u[i] >= 0x20 && u[i] < 0x80 && u[i] != '"' && u[i] != '\\') i++;
        if (i > start) jw_put(w, s + start, i - start);
        if (i >= n) break;
        unsigned char c = u[i];
        if (c >= 0x80) {
            size_t k = utf8_len(u + i, n - i);
            if (k) {
                jw_put(w, s + i, k);
                i += k;
            } else {
                jw_put(w, "\xEF\xBF\xBD", 3);   /* U+FFFD for an invalid byte */
                i++;
            }
            continue;
        }
        char esc[8];
        switch (c) {
        case '"': jw_put(w, "\\\"", 2); break;
        case '\\': jw_put(w, "\\\\", 2); break;
        case '\b': jw_put(w, "\\b", 2); break;
        case '\f': jw_put(w, "\\f", 2); break;
        case '\n': jw_put(w, "\\n", 2); break;
        case '\r': jw_put(w, "\\r", 2); break;
        case '\t': jw_put(w, "\\t", 2); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04X", c);
            jw_put(w, esc, 6);
            break;
        }
        i++;
    }
    jw_putc(w, '"');
}

static void jw_open(npuc_json_writer *w, char kind)
{
    if (!jw_before_value(w)) return;
    if (w->depth >= NPUC_JSON_DEPTH_LIMIT) {
        jw_fail(w, "nesting deeper than the writer's limit");
        return;
    }
    jw_putc(w, kind == 'o' ? '{' : '[');
    w->kind[w->depth] = kind;
    w->has_items[w->depth] = false;
    w->depth++;
}

static void jw_close(npuc_json_writer *w, char kind)
{
    if (w->failed) return;
    if (w->depth == 0 || w->kind[w->depth - 1] != kind) {
        jw_fail(w, kind == 'o' ? "object end without a matching begin" : "array end without a matching begin");
        return;
    }
    if (kind == 'o' && w->key_pending) {
        jw_fail(w, "a key without a value at the end of an object");
        return;
    }
    bool items = w->has_items[w->depth - 1];
    w->depth--;
    if (items) jw_newline(w);
    jw_putc(w, kind == 'o' ? '}' : ']');
    jw_after_value(w);
}

void npuc_json_write_object_begin(npuc_json_writer *w) { jw_open(w, 'o'); }
void npuc_json_write_object_end(npuc_json_writer *w) { jw_close(w, 'o'); }
void npuc_json_write_array_begin(npuc_json_writer *w) { jw_open(w, 'a'); }
void npuc_json_write_array_end(npuc_json_writer *w) { jw_close(w, 'a'); }

void npuc_json_write_key(npuc_json_writer *w, const char *key)
{
    if (w->failed) return;
    if (w->depth == 0 || w->kind[w->depth - 1] != 'o') {
        jw_fail(w, "a key outside an object");
        return;
    }
    if (w->key_pending) {
        jw_fail(w, "two keys in a row");
        return;
    }
    if (!key) {
        jw_fail(w, "a NULL key");
        return;
    }
    int d = w->depth - 1;
    if (w->has_items[d]) jw_putc(w, ',');
    w->has_items[d] = true;
    jw_newline(w);
    jw_quoted(w, key, strlen(key));
    jw_put(w, w->indent ? ": " : ":", w->indent ? 2 : 1);
    w->key_pending = true;
}

void npuc_json_write_string_n(npuc_json_writer *w, const char *s, size_t n)
{
    if (!s && n) {
        jw_fail(w, "a NULL string");
        return;
    }
    if (!jw_before_value(w)) return;
    jw_quoted(w, s ? s : "", n);
    jw_after_value(w);
}

void npuc_json_write_string(npuc_json_writer *w, const char *s)
{
    if (!s) {
        npuc_json_write_null(w);
        return;
    }
    npuc_json_write_string_n(w, s, strlen(s));
}

static void jw_scalar(npuc_json_writer *w, const char *text)
{
    if (!jw_before_value(w)) return;
    jw_put(w, text, strlen(text));
    jw_after_value(w);
}

void npuc_json_write_int(npuc_json_writer *w, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    jw_scalar(w, b);
}

void npuc_json_write_uint(npuc_json_writer *w, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    jw_scalar(w, b);
}

void npuc_json_write_double(npuc_json_writer *w, double v)
{
    if (!isfinite(v)) {
        jw_scalar(w, "null");   /* JSON has no NaN or infinity */
        return;
    }
    /* the shortest of 15..17 significant digits that reads back exactly */
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v) break;
    }
    /* %g writes the locale's decimal point (no grouping), JSON wants '.' */
    for (char *q = b; *q; q++)
        if (*q == ',') *q = '.';
    jw_scalar(w, b);
}

void npuc_json_write_bool(npuc_json_writer *w, bool v) { jw_scalar(w, v ? "true" : "false"); }
void npuc_json_write_null(npuc_json_writer *w) { jw_scalar(w, "null"); }

void npuc_json_write_value(npuc_json_writer *w, const npuc_json *v)
{
    if (!v) {
        jw_fail(w, "a NULL value");
        return;
    }
    switch (v->type) {
    case NPUC_JSON_NULL: npuc_json_write_null(w); break;
    case NPUC_JSON_BOOL: npuc_json_write_bool(w, v->boolean); break;
    case NPUC_JSON_NUMBER:
        if (v->str) jw_scalar(w, v->str);   /* the literal, validated by the reader */
        else npuc_json_write_double(w, v->number);
        break;
    case NPUC_JSON_STRING: npuc_json_write_string_n(w, v->str, v->len); break;
    case NPUC_JSON_ARRAY:
        npuc_json_write_array_begin(w);
        for (size_t i = 0; i < v->n && !w->failed; i++) npuc_json_write_value(w, v->items[i]);
        npuc_json_write_array_end(w);
        break;
    case NPUC_JSON_OBJECT:
        npuc_json_write_object_begin(w);
        for (size_t i = 0; i < v->n && !w->failed; i++) {
            /* parsed keys never hold a NUL (the reader refuses \u0000) */
            npuc_json_write_key(w, v->members[i].key);
            npuc_json_write_value(w, v->members[i].value);
        }
        npuc_json_write_object_end(w);
        break;
    }
}

int npuc_json_writer_finish(npuc_json_writer *w, char **text, size_t *len, npuc_err *err)
{
    int rc = NPUC_OK;
    if (text) *text = NULL;
    if (len) *len = 0;
    if (!w->failed && w->depth > 0)
        jw_fail(w, w->kind[w->depth - 1] == 'o' ? "an object is not closed" : "an array is not closed");
    if (!w->failed && !w->done) jw_fail(w, "no value was written");
    if (!w->failed && w->indent) jw_putc(w, '\n');
    if (w->failed) {
        rc = npuc_errf(err, strcmp(w->msg, "out of memory") == 0 ? NPUC_E_NOMEM : NPUC_E_USAGE,
                       "JSON writer: %s", w->msg);
        npuc_json_writer_free(w);
        return rc;
    }
    if (text) *text = w->buf;
    else free(w->buf);
    if (len) *len = w->len;
    int indent = w->indent;
    npuc_json_writer_init(w, indent);
    return rc;
}

void npuc_json_member_string(npuc_json_writer *w, const char *key, const char *s)
{
    npuc_json_write_key(w, key);
    npuc_json_write_string(w, s);
}

void npuc_json_member_int(npuc_json_writer *w, const char *key, int64_t v)
{
    npuc_json_write_key(w, key);
    npuc_json_write_int(w, v);
}

void npuc_json_member_uint(npuc_json_writer *w, const char *key, uint64_t v)
{
    npuc_json_write_key(w, key);
    npuc_json_write_uint(w, v);
}

void npuc_json_member_double(npuc_json_writer *w, const char *key, double v)
{
    npuc_json_write_key(w, key);
    npuc_json_write_double(w, v);
}

void npuc_json_member_bool(npuc_json_writer *w, const char *key, bool v)
{
    npuc_json_write_key(w, key);
    npuc_json_write_bool(w, v);
}
