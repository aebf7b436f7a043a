/* json: a small, strict JSON (RFC 8259) reader and a JSON writer.
 *
 * Reader: parses a whole document into a read-only tree allocated in an
 * npuc_arena (freed with the arena). Strict on purpose, because its inputs
 * are hand-written configuration files where a silent misreading is worse
 * than an error: no comments, no trailing commas, no single quotes, no
 * duplicate keys, no bytes after the value, strings must be valid UTF-8,
 * \u0000 is refused (strings are handed out as C strings), numbers that
 * overflow a double are refused. A UTF-8 byte order mark at the very start
 * is skipped. Nesting is limited (default 64 levels) so that the recursive
 * parser cannot exhaust the stack.
 *
 * Errors read "SOURCE:LINE:COL: what" (or "LINE:COL: what" without a source
 * name), LINE and COL 1-based, COL counted in characters (UTF-8 sequences
 * count 1, a tab counts 1). Every node carries its own line and column so
 * that callers checking a schema can point at the offending value too.
 *
 * Writer: a string builder that emits valid JSON (escaping strings, turning
 * invalid UTF-8 into U+FFFD, NaN/infinity into null) and checks that
 * objects and arrays are used properly (a key before each object member,
 * balanced begin/end). Misuse and out-of-memory are sticky: later calls do
 * nothing and npuc_json_writer_finish reports the first problem.
 *
 * Library code: never prints or exits. */
#ifndef NPUC_JSON_H
#define NPUC_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "util.h"

/* Deepest nesting the reader accepts by default, and the hard cap for
 * npuc_json_opts.max_depth and for the writer. */
#define NPUC_JSON_DEFAULT_DEPTH 64
#define NPUC_JSON_DEPTH_LIMIT 256

typedef enum npuc_json_type {
    NPUC_JSON_NULL,
    NPUC_JSON_BOOL,
    NPUC_JSON_NUMBER,
    NPUC_JSON_STRING,
    NPUC_JSON_ARRAY,
    NPUC_JSON_OBJECT
} npuc_json_type;

typedef struct npuc_json npuc_json;

typedef struct npuc_json_member {
    const char *key;          /* decoded, NUL-terminated */
    size_t key_len;
    uint32_t line, col;       /* where the key starts */
    const npuc_json *value;
} npuc_json_member;

struct npuc_json {
    npuc_json_type type;
    uint32_t line, col;       /* where the value starts (1-based) */
    bool boolean;             /* BOOL */
    /* NUMBER: the nearest double; integer and is_int when the literal has
     * no fraction or exponent and fits in int64_t ("-0" gives 0). */
    double number;
    bool is_int;
    int64_t integer;
    /* STRING: decoded UTF-8, NUL-terminated, no embedded NUL.
     * NUMBER: the literal as written (NUL-terminated). */
    const char *str;
    size_t len;
    /* ARRAY: n items; OBJECT: n members in document order. */
    size_t n;
    const npuc_json *const *items;
    const npuc_json_member *members;
};

typedef struct npuc_json_opts {
    const char *source;       /* name for error messages (a file name); NULL = none */
    unsigned max_depth;       /* 0 = NPUC_JSON_DEFAULT_DEPTH; capped at NPUC_JSON_DEPTH_LIMIT */
    size_t max_size;          /* longest input accepted in bytes; 0 = no limit */
} npuc_json_opts;

/* Parses text[0..size) (need not be NUL-terminated) into *out, allocated in
 * `arena`. opts may be NULL. Errors: NPUC_E_FORMAT (syntax, with line and
 * column), NPUC_E_NOMEM, NPUC_E_USAGE (NULL arguments). */
int npuc_json_parse(const char *text, size_t size, const npuc_json_opts *opts,
                    npuc_arena *arena, const npuc_json **out, npuc_err *err);

/* "null", "boolean", "number", "string", "array", "object". */
const char *npuc_json_type_name(npuc_json_type t);

/* Member `key` of an object, or NULL (absent, or v is not an object). */
const npuc_json *npuc_json_get(const npuc_json *v, const char *key);

/* ------------------------------------------------------------- writer */

typedef struct npuc_json_writer {
    char *buf;                /* malloc'd, NUL-terminated while len > 0 */
    size_t len, cap;
    int indent;               /* spaces per level; 0 = compact, one line */
    int depth;
    bool failed;              /* sticky: misuse or out of memory */
    bool done;                /* a complete top-level value was written */
    char msg[128];            /* first problem */
    /* per open container: 'o' object / 'a' array, has it items yet, and
     * (objects) whether a key is waiting for its value */
    char kind[NPUC_JSON_DEPTH_LIMIT];
    bool has_items[NPUC_JSON_DEPTH_LIMIT];
    bool key_pending;
} npuc_json_writer;

void npuc_json_writer_init(npuc_json_writer *w, int indent);
void npuc_json_writer_free(npuc_json_writer *w);

void npuc_json_write_object_begin(npuc_json_writer *w);
void npuc_json_write_object_end(npuc_json_writer *w);
void npuc_json_write_array_begin(npuc_json_writer *w);
void npuc_json_write_array_end(npuc_json_writer *w);
/* The key of the next object member (then exactly one value). */
void npuc_json_write_key(npuc_json_writer *w, const char *key);
void npuc_json_write_string(npuc_json_writer *w, const char *s);   /* NULL writes null */
void npuc_json_write_string_n(npuc_json_writer *w, const char *s, size_t n);
void npuc_json_write_int(npuc_json_writer *w, int64_t v);
void npuc_json_write_uint(npuc_json_writer *w, uint64_t v);
/* Shortest form that reads back as the same double; NaN/inf as null. */
void npuc_json_write_double(npuc_json_writer *w, double v);
void npuc_json_write_bool(npuc_json_writer *w, bool v);
void npuc_json_write_null(npuc_json_writer *w);
/* An object member: key then value. */
void npuc_json_member_string(npuc_json_writer *w, const char *key, const char *s);
void npuc_json_member_int(npuc_json_writer *w, const char *key, int64_t v);
void npuc_json_member_uint(npuc_json_writer *w, const char *key, uint64_t v);
void npuc_json_member_double(npuc_json_writer *w, const char *key, double v);
void npuc_json_member_bool(npuc_json_writer *w, const char *key, bool v);
/* A parsed value (numbers keep their literal). */
void npuc_json_write_value(npuc_json_writer *w, const npuc_json *v);

/* Ends the document: it must hold exactly one complete value. On success
 * *text receives the malloc'd, NUL-terminated JSON (caller frees; a newline
 * ends it when indent > 0) and *len its length (len may be NULL). The
 * writer is reset either way (re-init to reuse). Errors: NPUC_E_USAGE
 * (misuse, message says what), NPUC_E_NOMEM. */
int npuc_json_writer_finish(npuc_json_writer *w, char **text, size_t *len, npuc_err *err);

#endif
