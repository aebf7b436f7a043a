/* tflite: a small, bounds-checked FlexBuffer reader for custom operators'
 * custom_options (host side).
 *
 * Reads only what npuc's custom operators need: the root value, which must
 * be a map (or an untyped vector), and scalar values in it (INT, UINT,
 * FLOAT, BOOL, NULL, INDIRECT_INT/UINT/FLOAT) looked up by key. Conversions
 * follow flexbuffers.h (Reference::AsInt64 / AsDouble / AsFloat / AsBool):
 * an int read as float is converted, a float read as int is truncated, a
 * missing key reads as NULL (the caller decides its default).
 *
 * Every offset is checked against the buffer before it is followed; an
 * error names the key (or "root") and the byte offset involved. */
#ifndef NPUC_FLEXBUF_H
#define NPUC_FLEXBUF_H

#include "util/util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FlexBuffer value types (flexbuffers.h, enum Type) that this reader names. */
enum {
    FLEXBUF_NULL = 0,
    FLEXBUF_INT = 1,
    FLEXBUF_UINT = 2,
    FLEXBUF_FLOAT = 3,
    FLEXBUF_KEY = 4,
    FLEXBUF_STRING = 5,
    FLEXBUF_INDIRECT_INT = 6,
    FLEXBUF_INDIRECT_UINT = 7,
    FLEXBUF_INDIRECT_FLOAT = 8,
    FLEXBUF_MAP = 9,
    FLEXBUF_VECTOR = 10,
    FLEXBUF_BOOL = 26
};

/* The root map (or vector: no keys) of a buffer. */
typedef struct flexbuf_map {
    const uint8_t *buf;
    size_t len;
    size_t data;         /* byte offset of element 0 */
    uint32_t width;      /* element byte width: 1, 2, 4 or 8 */
    uint64_t size;       /* element count */
    bool has_keys;       /* a map (false: an untyped vector) */
    size_t keys;         /* byte offset of the keys vector's element 0 */
    uint32_t key_width;
    uint64_t n_keys;
} flexbuf_map;

/* Opens the root of buf[0..len) as a map or untyped vector. */
int flexbuf_root_map(const uint8_t *buf, size_t len, flexbuf_map *m, npuc_err *err);

/* A value looked up by key. *found is false (and the value left alone) when
 * the key is absent or its value is NULL (flexbuffers' IsNull). A value of
 * another type (string, vector, ...) is an error naming the key. */
int flexbuf_get_int(const flexbuf_map *m, const char *key, int64_t *v, bool *found, npuc_err *err);
int flexbuf_get_float(const flexbuf_map *m, const char *key, float *v, bool *found, npuc_err *err);
int flexbuf_get_bool(const flexbuf_map *m, const char *key, bool *v, bool *found, npuc_err *err);

/* Element i's slot read as a signed integer of the element width,
 * whatever its type (TFLite Micro's FlexbufferWrapper::ElementAsInt64, by
 * which some kernels read their parameters by position: the values of a map
 * are ordered by key). */
int flexbuf_elem_raw_int(const flexbuf_map *m, uint64_t i, int64_t *v, npuc_err *err);

#endif
