/* Bounds-checked FlexBuffer reader (flexbuf.h). Format facts from
 * flatbuffers' flexbuffers.h: the buffer ends with the root's packed type
 * byte and its byte width; offsets point backwards (target = slot - value);
 * a map's element 0 is preceded by its size, its keys vector's byte width
 * and the offset of its keys vector (3 slots of the element width); the
 * packed types of an untyped vector follow its elements, one byte each;
 * a packed type is (type << 2) | log2(byte width). */
#include "flexbuf.h"

#include <math.h>
#include <string.h>

static bool width_ok(uint32_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* Unsigned little-endian value of w bytes at off. */
static bool rd_u(const uint8_t *b, size_t len, size_t off, uint32_t w, uint64_t *v)
{
    if (!width_ok(w) || off > len || len - off < w) return false;
    uint64_t x = 0;
    for (uint32_t i = 0; i < w; i++) x |= (uint64_t)b[off + i] << (8 * i);
    *v = x;
    return true;
}

static bool rd_s(const uint8_t *b, size_t len, size_t off, uint32_t w, int64_t *v)
{
    uint64_t u;
    if (!rd_u(b, len, off, w, &u)) return false;
    if (w < 8 && (u >> (8 * w - 1)) & 1u) u |= ~(uint64_t)0 << (8 * w);
    memcpy(v, &u, sizeof *v);
    return true;
}

/* flexbuffers' ReadDouble: 1 and 2 byte "floats" are read as int8/int16. */
static bool rd_f(const uint8_t *b, size_t len, size_t off, uint32_t w, double *v)
{
    uint64_t u;
    if (!rd_u(b, len, off, w, &u)) return false;
    if (w == 1) *v = (double)(int8_t)(uint8_t)u;
    else if (w == 2) *v = (double)(int16_t)(uint16_t)u;
    else if (w == 4) {
        uint32_t u32 = (uint32_t)u;
        float f;
        memcpy(&f, &u32, sizeof f);
        *v = (double)f;
    } else {
        memcpy(v, &u, sizeof *v);
    }
    return true;
}

/* The target of the offset stored in the w-byte slot at off. */
static bool follow(const uint8_t *b, size_t len, size_t off, uint32_t w, size_t *target)
{
    uint64_t d;
    if (!rd_u(b, len, off, w, &d) || d > off) return false;
    *target = off - (size_t)d;
    return true;
}

int flexbuf_root_map(const uint8_t *buf, size_t len, flexbuf_map *m, npuc_err *err)
{
    memset(m, 0, sizeof *m);
    if (!buf || len < 3)
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: %zu bytes, too short for a root (at least 3)", len);
    const uint32_t rw = buf[len - 1];
    const uint8_t packed = buf[len - 2];
    if (!width_ok(rw) || len - 2 < rw)
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: root byte width %u at byte offset %zu is invalid", rw,
                         len - 1);
    const size_t root = len - 2 - rw;
    const uint32_t type = packed >> 2, w = 1u << (packed & 3u);
    if (type != FLEXBUF_MAP && type != FLEXBUF_VECTOR)
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: root has type %u (packed type at byte offset %zu), expected a map",
                         type, len - 2);
    size_t data;
    if (!follow(buf, len, root, rw, &data))
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: root offset at byte offset %zu points outside the buffer", root);
    uint64_t size;
    if (data < w || !rd_u(buf, len, data - w, w, &size))
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: root size field before byte offset %zu is outside the buffer",
                         data);
    /* elements and their packed type bytes must be inside */
    if (size > (len - data) / (w + 1u))
        return npuc_errf(err, NPUC_E_FORMAT,
                         "flexbuffer: root holds %llu elements of %u bytes at byte offset %zu, past the end (%zu bytes)",
                         (unsigned long long)size, w, data, len);
    m->buf = buf;
    m->len = len;
    m->data = data;
    m->width = w;
    m->size = size;
    if (type != FLEXBUF_MAP) return NPUC_OK;
    uint64_t kw;
    size_t keys;
    if (data < 3u * w || !rd_u(buf, len, data - 2u * w, w, &kw) || !width_ok((uint32_t)kw) ||
        !follow(buf, len, data - 3u * w, w, &keys))
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: map keys header before byte offset %zu is invalid", data);
    uint64_t nk;
    if (keys < kw || !rd_u(buf, len, keys - (size_t)kw, (uint32_t)kw, &nk) || nk > (len - keys) / kw)
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: map keys vector at byte offset %zu is outside the buffer",
                         keys);
    m->has_keys = true;
    m->keys = keys;
    m->key_width = (uint32_t)kw;
    m->n_keys = nk;
    return NPUC_OK;
}

/* Index of key (linear scan), or -1. */
static int find_key(const flexbuf_map *m, const char *key, int64_t *index, npuc_err *err)
{
    *index = -1;
    if (!m->has_keys) return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: root is a vector, no key '%s'", key);
    const size_t klen = strlen(key);
    for (uint64_t i = 0; i < m->n_keys; i++) {
        const size_t slot = m->keys + (size_t)i * m->key_width;
        size_t s;
        if (!follow(m->buf, m->len, slot, m->key_width, &s))
            return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: key %llu (slot at byte offset %zu) points outside the buffer",
                             (unsigned long long)i, slot);
        const uint8_t *nul = memchr(m->buf + s, 0, m->len - s);
        if (!nul)
            return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: key %llu at byte offset %zu is not terminated",
                             (unsigned long long)i, s);
        if ((size_t)(nul - (m->buf + s)) == klen && memcmp(m->buf + s, key, klen) == 0) {
            *index = (int64_t)i;
            return NPUC_OK;
        }
    }
    return NPUC_OK;
}

typedef struct scalar {
    uint32_t type; /* FLEXBUF_NULL, INT, UINT, FLOAT, BOOL */
    int64_t i;
    uint64_t u;
    double f;
} scalar;

static int get_scalar(const flexbuf_map *m, const char *key, scalar *v, npuc_err *err)
{
    memset(v, 0, sizeof *v);
    int64_t idx;
    int rc = find_key(m, key, &idx, err);
    if (rc) return rc;
    if (idx < 0 || (uint64_t)idx >= m->size) return NPUC_OK; /* flexbuffers: a Null reference */
    const size_t slot = m->data + (size_t)idx * m->width;
    const size_t tpos = m->data + (size_t)m->size * m->width + (size_t)idx;
    const uint8_t packed = m->buf[tpos]; /* inside: checked by flexbuf_root_map */
    uint32_t type = packed >> 2, w = m->width;
    size_t at = slot;
    if (type == FLEXBUF_INDIRECT_INT || type == FLEXBUF_INDIRECT_UINT || type == FLEXBUF_INDIRECT_FLOAT) {
        if (!follow(m->buf, m->len, slot, m->width, &at))
            return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: key '%s': offset at byte offset %zu points outside the buffer",
                             key, slot);
        w = 1u << (packed & 3u);
        type = type == FLEXBUF_INDIRECT_INT ? FLEXBUF_INT : type == FLEXBUF_INDIRECT_UINT ? FLEXBUF_UINT : FLEXBUF_FLOAT;
    }
    bool ok = true;
    switch (type) {
    case FLEXBUF_NULL: break;
    case FLEXBUF_INT: ok = rd_s(m->buf, m->len, at, w, &v->i); break;
    case FLEXBUF_UINT:
    case FLEXBUF_BOOL: ok = rd_u(m->buf, m->len, at, w, &v->u); break;
    case FLEXBUF_FLOAT: ok = rd_f(m->buf, m->len, at, w, &v->f); break;
    default:
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "flexbuffer: key '%s': value of type %u (packed type at byte offset %zu) is not a scalar", key,
                         type, tpos);
    }
    if (!ok)
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: key '%s': %u-byte value at byte offset %zu is outside the buffer",
                         key, w, at);
    v->type = type;
    return NPUC_OK;
}

int flexbuf_get_int(const flexbuf_map *m, const char *key, int64_t *v, bool *found, npuc_err *err)
{
    scalar s;
    *found = false;
    int rc = get_scalar(m, key, &s, err);
    if (rc || s.type == FLEXBUF_NULL) return rc;
    if (s.type == FLEXBUF_INT) *v = s.i;
    else if (s.type == FLEXBUF_UINT || s.type == FLEXBUF_BOOL) *v = (int64_t)s.u;
    else {
        /* float -> int truncates (static_cast); values outside int64 have
         * no defined result there: refused */
        if (!(s.f > -9.2e18 && s.f < 9.2e18))
            return npuc_errf(err, NPUC_E_INVALID, "flexbuffer: key '%s': float %g read as an integer is out of range", key,
                             s.f);
        *v = (int64_t)s.f;
    }
    *found = true;
    return NPUC_OK;
}

int flexbuf_get_float(const flexbuf_map *m, const char *key, float *v, bool *found, npuc_err *err)
{
    scalar s;
    *found = false;
    int rc = get_scalar(m, key, &s, err);
    if (rc || s.type == FLEXBUF_NULL) return rc;
    double d = s.type == FLEXBUF_FLOAT ? s.f : s.type == FLEXBUF_INT ? (double)s.i : (double)s.u;
    *v = (float)d; /* AsFloat: static_cast<float>(AsDouble()) */
    *found = true;
    return NPUC_OK;
}

int flexbuf_get_bool(const flexbuf_map *m, const char *key, bool *v, bool *found, npuc_err *err)
{
    scalar s;
    *found = false;
    int rc = get_scalar(m, key, &s, err);
    if (rc || s.type == FLEXBUF_NULL) return rc;
    /* AsBool: AsUInt64() != 0, so a float truncates first */
    *v = s.type == FLEXBUF_FLOAT ? fabs(s.f) >= 1.0 : s.type == FLEXBUF_INT ? s.i != 0 : s.u != 0;
    *found = true;
    return NPUC_OK;
}

int flexbuf_elem_raw_int(const flexbuf_map *m, uint64_t i, int64_t *v, npuc_err *err)
{
    if (i >= m->size)
        return npuc_errf(err, NPUC_E_INVALID, "flexbuffer: element %llu of a root with %llu elements", (unsigned long long)i,
                         (unsigned long long)m->size);
    const size_t slot = m->data + (size_t)i * m->width;
    if (!rd_s(m->buf, m->len, slot, m->width, v))
        return npuc_errf(err, NPUC_E_FORMAT, "flexbuffer: element %llu at byte offset %zu is outside the buffer",
                         (unsigned long long)i, slot);
    return NPUC_OK;
}
