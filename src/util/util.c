#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int npuc_errf(npuc_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

int npuc_err_prefix(npuc_err *err, const char *fmt, ...)
{
    if (!err) return NPUC_OK;
    char prefix[256];
    char old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t pl = strlen(prefix);
    if (pl > sizeof err->msg - 3) pl = sizeof err->msg - 3;
    memcpy(err->msg, prefix, pl);
    err->msg[pl] = ':';
    err->msg[pl + 1] = ' ';
    size_t rest = sizeof err->msg - pl - 3;
    size_t ol = strlen(old);
    if (ol > rest) ol = rest;
    memcpy(err->msg + pl + 2, old, ol);
    err->msg[pl + 2 + ol] = 0;
    return err->code;
}

const char *npuc_err_code_name(int code)
{
    switch (code) {
    case NPUC_OK: return "ok";
    case NPUC_E_FORMAT: return "format error";
    case NPUC_E_INVALID: return "invalid";
    case NPUC_E_UNSUPPORTED: return "unsupported";
    case NPUC_E_IO: return "I/O error";
    case NPUC_E_NOMEM: return "out of memory";
    case NPUC_E_USAGE: return "usage error";
    case NPUC_E_RUNTIME: return "runtime error";
    default: return "error";
    }
}

/* ---- arena ---- */
struct npuc_arena_block {
    npuc_arena_block *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

void npuc_arena_init(npuc_arena *a) { a->head = NULL; a->total = 0; }

void npuc_arena_free(npuc_arena *a)
{
    npuc_arena_block *b = a->head;
    while (b) {
        npuc_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->total = 0;
}

/* `size` bytes from the arena, 16-byte aligned, not cleared. */
static void *arena_take(npuc_arena *a, size_t size)
{
    size_t need = (size + 15u) & ~(size_t)15u;
    if (need < size) return NULL;
    npuc_arena_block *b = a->head;
    if (!b || b->cap - b->used < need) {
        size_t cap = 64 * 1024;
        if (need > cap / 2) cap = need;
        if (cap > SIZE_MAX - sizeof(npuc_arena_block)) return NULL;
        npuc_arena_block *nb = malloc(sizeof(npuc_arena_block) + cap);
        if (!nb) return NULL;
        nb->cap = cap;
        nb->used = 0;
        if (b && need == cap && b->cap - b->used > 4096) {
            /* big one-off block: keep the current block at the head */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    a->total += need;
    return p;
}

void *npuc_arena_alloc(npuc_arena *a, size_t size)
{
    void *p = arena_take(a, size);
    if (p) memset(p, 0, (size + 15u) & ~(size_t)15u);
    return p;
}

void *npuc_arena_calloc(npuc_arena *a, size_t count, size_t size)
{
    size_t n;
    if (!npuc_mul_size(count, size, &n)) return NULL;
    return npuc_arena_alloc(a, n ? n : 1);
}

/* A copy of p's bytes: only the padding after them is cleared (the
 * copied tensors are megabytes: clearing them first doubled the cost). */
void *npuc_arena_memdup(npuc_arena *a, const void *p, size_t size)
{
    size_t n = size ? size : 1;
    uint8_t *q = arena_take(a, n);
    if (!q) return NULL;
    if (size) memcpy(q, p, size);
    memset(q + size, 0, ((n + 15u) & ~(size_t)15u) - size);
    return q;
}

char *npuc_arena_strndup(npuc_arena *a, const char *s, size_t n)
{
    char *q = npuc_arena_alloc(a, n + 1);
    if (q) {
        memcpy(q, s, n);
        q[n] = 0;
    }
    return q;
}

char *npuc_arena_strdup(npuc_arena *a, const char *s)
{
    return npuc_arena_strndup(a, s, strlen(s));
}

/* ---- files ---- */
int npuc_read_file(const char *path, uint8_t **data, size_t *size, npuc_err *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return npuc_errf(err, NPUC_E_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return npuc_errf(err, NPUC_E_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > SIZE_MAX / 2) break;
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return npuc_errf(err, NPUC_E_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return npuc_errf(err, NPUC_E_IO, "%s: read error", path);
    }
    *data = buf;
    *size = n;
    return NPUC_OK;
}

int npuc_write_file(const char *path, const void *data, size_t size, npuc_err *err)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 32);
    if (!tmp) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    snprintf(tmp, len + 32, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        int e = errno;
        free(tmp);
        return npuc_errf(err, NPUC_E_IO, "%s: cannot create: %s", path, strerror(e));
    }
    int ok = (size == 0 || fwrite(data, 1, size, f) == size);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        free(tmp);
        return npuc_errf(err, NPUC_E_IO, "%s: write failed: %s", path, strerror(e));
    }
    free(tmp);
    return NPUC_OK;
}

/* ---- rng ---- */
void npuc_rng_seed(npuc_rng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull; }

uint64_t npuc_rng_next(npuc_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t npuc_rng_range(npuc_rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo) return lo;
    uint64_t span = (uint64_t)(hi - lo) + 1u;
    if (span == 0) return (int64_t)npuc_rng_next(r);
    return lo + (int64_t)(npuc_rng_next(r) % span);
}

double npuc_rng_unit(npuc_rng *r) { return (double)(npuc_rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* ------------------------------------------------------ growable string */

/* Room for `need` more bytes plus the terminating NUL. */
static bool sb_reserve(npuc_sbuf *b, size_t need)
{
    if (b->oom) return false;
    size_t want;
    if (!npuc_add_size(b->n, need, &want) || !npuc_add_size(want, 1, &want)) {
        b->oom = true;
        return false;
    }
    if (want <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < want) {
        if (cap > SIZE_MAX / 2) {
            cap = want;
            break;
        }
        cap *= 2;
    }
    char *np = realloc(b->p, cap);
    if (!np) {
        b->oom = true;
        return false;
    }
    b->p = np;
    b->cap = cap;
    return true;
}

void npuc_sb_putn(npuc_sbuf *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n)) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void npuc_sb_puts(npuc_sbuf *b, const char *s)
{
    npuc_sb_putn(b, s, strlen(s));
}

void npuc_sb_printf(npuc_sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->oom = true;
        return;
    }
    if ((size_t)k < sizeof tmp) {
        npuc_sb_putn(b, tmp, (size_t)k);
        return;
    }
    if (!sb_reserve(b, (size_t)k)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

int npuc_sb_finish(npuc_sbuf *b, char **out, npuc_err *err)
{
    *out = NULL;
    if (!b->oom && !b->p) sb_reserve(b, 0);
    if (b->oom) {
        free(b->p);
        memset(b, 0, sizeof *b);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    b->p[b->n] = '\0';
    *out = b->p;
    memset(b, 0, sizeof *b);
    return NPUC_OK;
}

/* ---- hashing ---- */

uint64_t npuc_hash(uint64_t h, const void *p, size_t n)
{
    const uint64_t prime = 0x100000001b3ull;
    const unsigned char *b = (const unsigned char *)p;
    size_t i = 0;
    if (n >= 64) {
        /* four independent lanes (a multiply's latency, not its
         * throughput, bounds one lane), folded into h at the end */
        uint64_t l[4] = {h, h ^ 0x9e3779b97f4a7c15ull, h ^ 0xc2b2ae3d27d4eb4full, h ^ 0x165667b19e3779f9ull};
        for (; i + 32 <= n; i += 32)
            for (int k = 0; k < 4; k++) {
                uint64_t v;
                memcpy(&v, b + i + 8 * k, sizeof v);
                l[k] = (l[k] ^ v) * prime;
            }
        for (int k = 0; k < 4; k++) h = (h ^ (l[k] ^ l[k] >> 31)) * prime;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, b + i, sizeof v);
        h = (h ^ v) * prime;
    }
    for (; i < n; i++) h = (h ^ b[i]) * prime;
    return h ^ (h >> 29);
}

int32_t npuc_hindex_next(const npuc_hindex *x, int32_t i)
{
    uint64_t h = x->hash[i];
    i = x->next[i];
    while (i >= 0 && x->hash[i] != h) i = x->next[i];
    return i;
}

int32_t npuc_hindex_first(const npuc_hindex *x, uint64_t h)
{
    if (!x->n_buckets) return -1;
    int32_t i = x->head[(uint32_t)h & (x->n_buckets - 1)];
    while (i >= 0 && x->hash[i] != h) i = x->next[i];
    return i;
}

bool npuc_hindex_add(npuc_hindex *x, uint64_t h)
{
    if (x->n == x->cap) {
        int32_t cap = x->cap ? 2 * x->cap : 64;
        uint64_t *hs = realloc(x->hash, sizeof *hs * (size_t)cap);
        if (!hs) return false;
        x->hash = hs;
        int32_t *nx = realloc(x->next, sizeof *nx * (size_t)cap);
        if (!nx) return false;
        x->next = nx;
        x->cap = cap;
    }
    if ((uint32_t)x->n + 1 > x->n_buckets) {
        uint32_t nb = x->n_buckets ? 2 * x->n_buckets : 64;
        int32_t *head = malloc(sizeof *head * nb);
        if (!head) return false;
        for (uint32_t b = 0; b < nb; b++) head[b] = -1;
        for (int32_t i = 0; i < x->n; i++) {
            uint32_t b = (uint32_t)x->hash[i] & (nb - 1);
            x->next[i] = head[b];
            head[b] = i;
        }
        free(x->head);
        x->head = head;
        x->n_buckets = nb;
    }
    uint32_t b = (uint32_t)h & (x->n_buckets - 1);
    x->hash[x->n] = h;
    x->next[x->n] = x->head[b];
    x->head[b] = x->n++;
    return true;
}

void npuc_hindex_free(npuc_hindex *x)
{
    free(x->hash);
    free(x->next);
    free(x->head);
    memset(x, 0, sizeof *x);
}
