/* util: error type, arena allocator, file helpers shared by host rooms. */
#ifndef NPUC_UTIL_H
#define NPUC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Error codes returned by every host library function (0 = success). */
enum {
    NPUC_OK = 0,
    NPUC_E_FORMAT = 1,      /* malformed file (bad offset, vtable, magic, ...) */
    NPUC_E_INVALID = 2,     /* well-formed but inconsistent model or input */
    NPUC_E_UNSUPPORTED = 3, /* op / type / feature not supported */
    NPUC_E_IO = 4,          /* file system error */
    NPUC_E_NOMEM = 5,       /* allocation failed */
    NPUC_E_USAGE = 6,       /* bad arguments to an API */
    NPUC_E_RUNTIME = 7      /* failure while executing */
};

/* An error: a code plus a message that names what is wrong and where. */
typedef struct npuc_err {
    int code;
    char msg[512];
} npuc_err;

/* Sets err (if non-NULL) and returns code. printf-style message. */
int npuc_errf(npuc_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Prefixes the message already in err with more context ("while X: ..."). */
int npuc_err_prefix(npuc_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
const char *npuc_err_code_name(int code);

/* Arena: bump allocator made of chained blocks; freed all at once. */
typedef struct npuc_arena_block npuc_arena_block;
typedef struct npuc_arena {
    npuc_arena_block *head;
    size_t total;
} npuc_arena;

void npuc_arena_init(npuc_arena *a);
void npuc_arena_free(npuc_arena *a);
/* Zeroed, 16-byte aligned memory; NULL on overflow / out of memory. */
void *npuc_arena_alloc(npuc_arena *a, size_t size);
void *npuc_arena_calloc(npuc_arena *a, size_t count, size_t size);
void *npuc_arena_memdup(npuc_arena *a, const void *p, size_t size);
char *npuc_arena_strdup(npuc_arena *a, const char *s);
char *npuc_arena_strndup(npuc_arena *a, const char *s, size_t n);

/* Whole-file I/O. read: malloc'd buffer (caller frees). write: atomic
 * (temp file + rename) so that no partial output is left on failure. */
int npuc_read_file(const char *path, uint8_t **data, size_t *size, npuc_err *err);
int npuc_write_file(const char *path, const void *data, size_t size, npuc_err *err);

/* A growable string for text output (reports, tables, HTML): appends
 * never fail, oom is set once an allocation failed (later appends do
 * nothing) and npuc_sb_finish reports it. Start from {0}. */
typedef struct npuc_sbuf {
    char *p;                  /* malloc'd, NUL-terminated once non-empty */
    size_t n, cap;
    bool oom;
} npuc_sbuf;

void npuc_sb_putn(npuc_sbuf *b, const char *s, size_t n);
void npuc_sb_puts(npuc_sbuf *b, const char *s);
void npuc_sb_printf(npuc_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hands the text to *out (malloc'd, "" when empty) or frees it and returns
 * NPUC_E_NOMEM. */
int npuc_sb_finish(npuc_sbuf *b, char **out, npuc_err *err);

/* Overflow-checked size arithmetic: return false on overflow. */
static inline bool npuc_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return false;
    *out = a * b;
    return true;
}
static inline bool npuc_add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return false;
    *out = a + b;
    return true;
}

/* Deterministic PRNG (splitmix64 seeded xorshift) for tools and tests. */
typedef struct npuc_rng { uint64_t s; } npuc_rng;
void npuc_rng_seed(npuc_rng *r, uint64_t seed);
uint64_t npuc_rng_next(npuc_rng *r);
/* Uniform integer in [lo, hi] inclusive. */
int64_t npuc_rng_range(npuc_rng *r, int64_t lo, int64_t hi);
/* Uniform float in [0, 1). */
double npuc_rng_unit(npuc_rng *r);

/* ---- hashing ---- */

/* FNV-1a over n bytes, 8 at a time (from 64 bytes on, in four lanes of
 * 8 bytes each, folded into h; then the tail bytes), continued from h
 * (NPUC_HASH_INIT to start), the high bits folded down. For hash tables
 * (every use compares the bytes on a match), not a stored format. */
#define NPUC_HASH_INIT 0xcbf29ce484222325ull
uint64_t npuc_hash(uint64_t h, const void *p, size_t n);

/* A chained hash index over entries 0..n-1 that the caller keeps in its
 * own array (grown alongside): each entry's hash, the next entry of its
 * bucket, the first entry of each bucket (a power of two of them).
 *   for (int32_t i = npuc_hindex_first(&x, h); i >= 0; i = npuc_hindex_next(&x, i)) ...
 * visits the entries whose hash is h. */
typedef struct npuc_hindex {
    uint64_t *hash;
    int32_t *next, *head;
    int32_t n, cap;
    uint32_t n_buckets;
} npuc_hindex;
int32_t npuc_hindex_first(const npuc_hindex *x, uint64_t h);
int32_t npuc_hindex_next(const npuc_hindex *x, int32_t i);
/* Appends entry n with hash h (the caller's array must hold entry n);
 * false when out of memory (nothing added). */
bool npuc_hindex_add(npuc_hindex *x, uint64_t h);
void npuc_hindex_free(npuc_hindex *x);

#endif
