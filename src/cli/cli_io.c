#include "cli.h"
#include "interp/interp.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_load_graph(const char *path, tfl_model **model, graph **g, npuc_err *err)
{
    *model = NULL;
    *g = NULL;
    int rc = tfl_read_file(path, model, err);
    if (rc) return rc;
    rc = graph_import(*model, g, err);
    if (rc) {
        npuc_err_prefix(err, "%s", path);
        tfl_model_free(*model);
        *model = NULL;
        return rc;
    }
    interp_infer_shapes(*g);
    return rc;
}

void cli_shape_str(const graph_tensor *t, char *buf, size_t n)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, n - o, "[");
    for (int32_t i = 0; i < t->rank && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%d", i ? "," : "", t->shape[i]);
    if (o < n) snprintf(buf + o, n - o, "]");
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static const char *npy_descr(graph_dtype t)
{
    switch (t) {
    case GRAPH_I8: return "i1";
    case GRAPH_U8: return "u1";
    case GRAPH_I16: return "i2";
    case GRAPH_I32: return "i4";
    case GRAPH_I64: return "i8";
    case GRAPH_F32: return "f4";
    case GRAPH_BOOL: return "b1";
    case GRAPH_U32: return "u4";
    case GRAPH_U16: return "u2";
    case GRAPH_F16: return "f2";
    case GRAPH_F64: return "f8";
    case GRAPH_U64: return "u8";
    case GRAPH_C64: return "c8";
    case GRAPH_C128: return "c16";
    case GRAPH_I4: case GRAPH_STRING: case GRAPH_RESOURCE: case GRAPH_VARIANT: return "?";
    }
    return "?";
}

static int read_npy(const char *path, const uint8_t *d, size_t n, const graph_tensor *t, uint8_t **out, npuc_err *err)
{
    if (n < 10 || memcmp(d, "\x93NUMPY", 6) != 0)
        return npuc_errf(err, NPUC_E_INVALID, "%s: not a .npy file (bad magic)", path);
    uint8_t major = d[6];
    size_t hl, ho;
    if (major == 1) {
        hl = (size_t)d[8] | ((size_t)d[9] << 8);
        ho = 10;
    } else if (major == 2 || major == 3) {
        if (n < 12) return npuc_errf(err, NPUC_E_INVALID, "%s: truncated .npy header", path);
        hl = (size_t)d[8] | ((size_t)d[9] << 8) | ((size_t)d[10] << 16) | ((size_t)d[11] << 24);
        ho = 12;
    } else {
        return npuc_errf(err, NPUC_E_INVALID, "%s: .npy version %u is not supported", path, major);
    }
    if (hl > n - ho) return npuc_errf(err, NPUC_E_INVALID, "%s: truncated .npy header", path);
    char *h = malloc(hl + 1);
    if (!h) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    memcpy(h, d + ho, hl);
    h[hl] = 0;
    int rc = NPUC_OK;
    char *descr = strstr(h, "'descr'");
    char *fo = strstr(h, "'fortran_order'");
    char *shape = strstr(h, "'shape'");
    if (!descr || !fo || !shape) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy header lacks descr, fortran_order or shape", path);
        goto done;
    }
    char *q = strchr(descr + 7, '\'');
    if (!q) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy descr is malformed", path);
        goto done;
    }
    q++;
    char endian = *q;
    const char *want = npy_descr(t->dtype);
    bool one_byte = graph_dtype_size(t->dtype) == 1;
    if (!((endian == '<' || (endian == '|' && one_byte) || (endian == '=' )) && !strncmp(q + 1, want, 2) && q[3] == '\'')) {
        char got[16] = {0};
        for (int i = 0; i < 15 && q[i] && q[i] != '\''; i++) got[i] = q[i];
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy dtype '%s' does not match tensor '%s' (%s, little-endian '%s')",
                       path, got, t->name, graph_dtype_name(t->dtype), want);
        goto done;
    }
    char *fv = fo + 15;
    while (*fv == ' ' || *fv == ':') fv++;
    if (strncmp(fv, "False", 5) != 0) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: Fortran-ordered .npy arrays are not supported", path);
        goto done;
    }
    char *sp = strchr(shape, '(');
    size_t count = 1;
    if (!sp) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy shape is malformed", path);
        goto done;
    }
    for (char *s = sp + 1; *s && *s != ')';) {
        if (*s >= '0' && *s <= '9') {
            size_t v = strtoull(s, &s, 10);
            if (!npuc_mul_size(count, v, &count)) {
                rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy shape is too large", path);
                goto done;
            }
        } else {
            s++;
        }
    }
    if (count != graph_tensor_elems(t)) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy array has %zu elements, tensor '%s' has %zu", path, count, t->name,
                       graph_tensor_elems(t));
        goto done;
    }
    size_t body = n - ho - hl;
    if (body != t->nbytes) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: .npy data is %zu bytes, expected %zu", path, body, t->nbytes);
        goto done;
    }
    *out = malloc(t->nbytes ? t->nbytes : 1);
    if (!*out) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto done;
    }
    memcpy(*out, d + ho + hl, t->nbytes);
done:
    free(h);
    return rc;
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24); }

static int read_bmp(const char *path, const uint8_t *d, size_t n, const graph_tensor *t, uint8_t **out, npuc_err *err)
{
    if (n < 54 || d[0] != 'B' || d[1] != 'M') return npuc_errf(err, NPUC_E_INVALID, "%s: not a BMP file", path);
    uint32_t off = le32(d + 10);
    int32_t w = (int32_t)le32(d + 18), h = (int32_t)le32(d + 22);
    uint16_t bpp = (uint16_t)(d[28] | (d[29] << 8));
    uint32_t comp = le32(d + 30);
    if (bpp != 8 || comp != 0)
        return npuc_errf(err, NPUC_E_INVALID, "%s: only uncompressed 8-bit BMP images are supported (got %u bpp, compression %u)",
                         path, bpp, comp);
    bool top_down = h < 0;
    if (top_down) h = -h;
    if (w <= 0 || h <= 0 || w > 65536 || h > 65536) return npuc_errf(err, NPUC_E_INVALID, "%s: bad BMP size %dx%d", path, w, h);
    if (graph_dtype_size(t->dtype) != 1 || graph_tensor_elems(t) != (size_t)w * (size_t)h)
        return npuc_errf(err, NPUC_E_INVALID, "%s: %dx%d 8-bit image does not fit tensor '%s' (%s, %zu elements)", path, w,
                         h, t->name, graph_dtype_name(t->dtype), graph_tensor_elems(t));
    size_t stride = ((size_t)w + 3) & ~(size_t)3;
    if (off > n || (size_t)h * stride > n - off) return npuc_errf(err, NPUC_E_INVALID, "%s: BMP pixel data is truncated", path);
    *out = malloc((size_t)w * (size_t)h);
    if (!*out) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t y = 0; y < h; y++) {
        int32_t src = top_down ? y : h - 1 - y;
        memcpy(*out + (size_t)y * (size_t)w, d + off + (size_t)src * stride, (size_t)w);
    }
    return NPUC_OK;
}

/* Comma- (or whitespace-) separated values, flattened in tensor order:
 * integers in the dtype's range, or decimal numbers for float32. */
static int read_csv(const char *path, const uint8_t *d, size_t n, const graph_tensor *t, uint8_t **out,
                    npuc_err *err)
{
    size_t elems = graph_tensor_elems(t), k = 0, line = 1, i = 0;
    uint8_t *buf = calloc(t->nbytes + 1, 1);
    if (!buf) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    char tok[64];
    while (i < n) {
        char c = (char)d[i];
        if (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            line += c == '\n';
            i++;
            continue;
        }
        size_t len = 0;
        while (i < n && d[i] != ',' && d[i] != ' ' && d[i] != '\t' && d[i] != '\r' && d[i] != '\n') {
            if (len + 1 < sizeof tok) tok[len] = (char)d[i];
            len++;
            i++;
        }
        if (len >= sizeof tok) len = sizeof tok - 1;
        tok[len] = 0;
        if (k == elems) {
            free(buf);
            return npuc_errf(err, NPUC_E_INVALID, "%s line %zu: more than the %zu values input tensor '%s' %s holds",
                             path, line, elems, t->name, graph_dtype_name(t->dtype));
        }
        char *end;
        errno = 0;
        if (t->dtype == GRAPH_F32) {
            double v = strtod(tok, &end);
            if (errno || *end || end == tok) goto bad;
            ((float *)buf)[k] = (float)v;
        } else {
            long long v = strtoll(tok, &end, 10);
            long long lo = 0, hi = 0;
            switch (t->dtype) {
            case GRAPH_I8: lo = INT8_MIN; hi = INT8_MAX; break;
            case GRAPH_U8: lo = 0; hi = UINT8_MAX; break;
            case GRAPH_BOOL: lo = 0; hi = 1; break;
            case GRAPH_I16: lo = INT16_MIN; hi = INT16_MAX; break;
            case GRAPH_I32: lo = INT32_MIN; hi = INT32_MAX; break;
            default: lo = LLONG_MIN; hi = LLONG_MAX; break;
            }
            if (errno || *end || end == tok) goto bad;
            if (v < lo || v > hi) {
                free(buf);
                return npuc_errf(err, NPUC_E_INVALID, "%s line %zu: value %d (%lld) does not fit %s", path, line,
                                 (int)k, v, graph_dtype_name(t->dtype));
            }
            switch (t->dtype) {
            case GRAPH_I8: ((int8_t *)buf)[k] = (int8_t)v; break;
            case GRAPH_U8:
            case GRAPH_BOOL: buf[k] = (uint8_t)v; break;
            case GRAPH_I16: ((int16_t *)buf)[k] = (int16_t)v; break;
            case GRAPH_I32: ((int32_t *)buf)[k] = (int32_t)v; break;
            default: ((int64_t *)buf)[k] = (int64_t)v; break;
            }
        }
        k++;
        continue;
    bad:
        free(buf);
        return npuc_errf(err, NPUC_E_INVALID, "%s line %zu: value %zu '%s' is not a%s number", path, line, k, tok,
                         t->dtype == GRAPH_F32 ? "" : "n integer");
    }
    if (k != elems) {
        free(buf);
        return npuc_errf(err, NPUC_E_INVALID, "%s: %zu values, but input tensor '%s' %s needs exactly %zu", path, k,
                         t->name, graph_dtype_name(t->dtype), elems);
    }
    *out = buf;
    return NPUC_OK;
}

int cli_read_input(const char *path, const graph_tensor *t, uint8_t **data, npuc_err *err)
{
    *data = NULL;
    uint8_t *d;
    size_t n;
    int rc = npuc_read_file(path, &d, &n, err);
    if (rc) return rc;
    if (ends_with(path, ".npy")) {
        rc = read_npy(path, d, n, t, data, err);
    } else if (ends_with(path, ".csv") || ends_with(path, ".CSV")) {
        rc = read_csv(path, d, n, t, data, err);
    } else if (ends_with(path, ".bmp") || ends_with(path, ".BMP")) {
        rc = read_bmp(path, d, n, t, data, err);
    } else if (n != t->nbytes) {
        rc = npuc_errf(err, NPUC_E_INVALID, "%s: %zu bytes, but input tensor '%s' (%s %s) needs exactly %zu", path, n,
                       t->name, graph_dtype_name(t->dtype), "raw", t->nbytes);
    } else {
        *data = d;
        return NPUC_OK;
    }
    free(d);
    return rc;
}

int cli_read_aligned(const char *path, uint8_t **out, size_t *size, npuc_err *err)
{
    uint8_t *f;
    int rc = npuc_read_file(path, &f, size, err);
    if (rc) return rc;
    size_t sz = (*size + 15) / 16 * 16;
    *out = aligned_alloc(16, sz ? sz : 16);
    if (!*out) {
        free(f);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    memset(*out, 0, sz ? sz : 16);
    memcpy(*out, f, *size);
    free(f);
    return NPUC_OK;
}

bool cli_parse_bytes(const char *v, uint64_t *out)
{
    char *end;
    if (!v || *v < '0' || *v > '9') return false;
    unsigned long long x = strtoull(v, &end, 10);
    uint64_t scale = 1;
    if (!strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "KiB")) scale = 1024;
    else if (!strcmp(end, "M") || !strcmp(end, "MiB")) scale = 1024 * 1024;
    else if (*end) return false;
    if (!x || x > UINT64_MAX / scale / 2) return false;
    *out = (uint64_t)x * scale;
    return true;
}

bool cli_parse_headroom(const char *v, int32_t *out)
{
    char *end;
    if (!v || !*v || *v == '-' || *v == '+') return false;
    long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 1000) return false;
    *out = x ? (int32_t)x : -1;   /* cc_options: negative = none, 0 = the default */
    return true;
}
