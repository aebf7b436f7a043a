/* TFLite flatbuffer reader. Every offset, vtable, vector length and string is
 * bounds-checked against the file; errors give the file offset and the
 * schema path of the field (e.g. "subgraphs[0].tensors[3].shape"). */
#include "tflite.h"
#include "options_desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
    const uint8_t *d;
    size_t n;
    tfl_model *m;
    npuc_err *err;
    char path[160];
} rd;

typedef struct tbl {
    size_t pos;     /* table start */
    size_t vt;      /* vtable start */
    uint16_t vsize; /* vtable bytes */
    uint16_t tsize; /* table inline bytes */
} tbl;

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t ld32(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24); }
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | ((uint64_t)ld32(p + 4) << 32); }

static int bad(rd *r, size_t off, const char *field, const char *why)
{
    return npuc_errf(r->err, NPUC_E_FORMAT, "malformed TFLite file: offset 0x%zx: %s%s%s: %s", off, r->path,
                     (r->path[0] && field[0]) ? "." : "", field, why);
}

/* Opens the table whose start is at pos. */
static int open_table(rd *r, size_t pos, const char *field, tbl *t)
{
    if (pos > r->n || r->n - pos < 4) return bad(r, pos, field, "table starts past the end of the file");
    if (pos % 4) return bad(r, pos, field, "table is not 4-byte aligned");
    int32_t so = (int32_t)ld32(r->d + pos);
    int64_t vt = (int64_t)pos - (int64_t)so;
    if (vt < 0 || (uint64_t)vt > r->n || r->n - (size_t)vt < 4) return bad(r, pos, field, "vtable offset points outside the file");
    if (vt % 2) return bad(r, pos, field, "vtable is not 2-byte aligned");
    t->pos = pos;
    t->vt = (size_t)vt;
    t->vsize = ld16(r->d + t->vt);
    t->tsize = ld16(r->d + t->vt + 2);
    if (t->vsize < 4 || (t->vsize & 1)) return bad(r, t->vt, field, "vtable size is invalid");
    if (r->n - t->vt < t->vsize) return bad(r, t->vt, field, "vtable runs past the end of the file");
    if (t->tsize < 4) return bad(r, t->vt, field, "table size in vtable is smaller than 4");
    if (r->n - pos < t->tsize) return bad(r, pos, field, "table runs past the end of the file");
    return NPUC_OK;
}

/* Offset of field `id` inside the table (0 = absent); checks it fits. */
static int field(rd *r, const tbl *t, int id, size_t size, const char *name, size_t *off)
{
    *off = 0;
    size_t e = 4 + 2 * (size_t)id;
    if (e + 2 > t->vsize) return NPUC_OK;
    uint16_t fo = ld16(r->d + t->vt + e);
    if (fo == 0) return NPUC_OK;
    if (fo < 4 || (size_t)fo + size > t->tsize) return bad(r, t->pos, name, "field lies outside its table");
    *off = t->pos + fo;
    return NPUC_OK;
}

#define DEF_SCALAR(fn, type, sz, load)                                                  \
    static int fn(rd *r, const tbl *t, int id, type def, const char *name, type *out)   \
    {                                                                                   \
        size_t o;                                                                       \
        int rc = field(r, t, id, sz, name, &o);                                         \
        if (rc) return rc;                                                              \
        *out = o ? (type)(load) : def;                                                  \
        return NPUC_OK;                                                                 \
    }
DEF_SCALAR(get_u8, uint8_t, 1, r->d[o])
DEF_SCALAR(get_i8, int8_t, 1, (int8_t)r->d[o])
DEF_SCALAR(get_i32, int32_t, 4, (int32_t)ld32(r->d + o))
DEF_SCALAR(get_u32, uint32_t, 4, ld32(r->d + o))
DEF_SCALAR(get_u64, uint64_t, 8, ld64(r->d + o))

static int get_bool(rd *r, const tbl *t, int id, bool def, const char *name, bool *out)
{
    uint8_t v = 0;
    int rc = get_u8(r, t, id, def ? 1 : 0, name, &v);
    *out = v != 0;
    return rc;
}

static int get_f32(rd *r, const tbl *t, int id, float def, const char *name, float *out)
{
    size_t o;
    int rc = field(r, t, id, 4, name, &o);
    if (rc) return rc;
    if (!o) {
        *out = def;
        return NPUC_OK;
    }
    uint32_t u = ld32(r->d + o);
    memcpy(out, &u, 4);
    return NPUC_OK;
}

/* Follows a uoffset field; *target = 0 when the field is absent. */
static int get_ref(rd *r, const tbl *t, int id, const char *name, size_t *target)
{
    size_t o;
    *target = 0;
    int rc = field(r, t, id, 4, name, &o);
    if (rc || !o) return rc;
    uint32_t u = ld32(r->d + o);
    if (u == 0 || (uint64_t)o + u >= r->n) return bad(r, o, name, "offset points outside the file");
    *target = o + u;
    return NPUC_OK;
}

/* A vector field: *count elements of elem bytes starting at *data. */
static int get_vec(rd *r, const tbl *t, int id, size_t elem, const char *name, bool *present, uint32_t *count,
                   size_t *data)
{
    size_t v;
    *present = false;
    *count = 0;
    *data = 0;
    int rc = get_ref(r, t, id, name, &v);
    if (rc || !v) return rc;
    if (v % 4) return bad(r, v, name, "vector is not 4-byte aligned");
    if (r->n - v < 4) return bad(r, v, name, "vector length runs past the end of the file");
    uint32_t c = ld32(r->d + v);
    if ((uint64_t)c * elem > r->n - v - 4) {
        char why[96];
        snprintf(why, sizeof why, "vector of %u elements runs past the end of the file", c);
        return bad(r, v, name, why);
    }
    *present = true;
    *count = c;
    *data = v + 4;
    return NPUC_OK;
}

static int alloc_fail(rd *r) { return npuc_errf(r->err, NPUC_E_NOMEM, "out of memory while reading %s", r->path); }

static int get_string(rd *r, const tbl *t, int id, const char *name, char **out)
{
    bool has;
    uint32_t c;
    size_t p;
    *out = NULL;
    int rc = get_vec(r, t, id, 1, name, &has, &c, &p);
    if (rc || !has) return rc;
    *out = npuc_arena_strndup(&r->m->arena, (const char *)r->d + p, c);
    if (!*out) return alloc_fail(r);
    if (memchr(r->d + p, 0, c)) return bad(r, p, name, "string contains a NUL byte");
    return NPUC_OK;
}

static int get_i32_vec(rd *r, const tbl *t, int id, const char *name, int32_t **out, int32_t *n, bool *has)
{
    uint32_t c;
    size_t p;
    bool h;
    *out = NULL;
    *n = 0;
    int rc = get_vec(r, t, id, 4, name, &h, &c, &p);
    if (has) *has = h;
    if (rc || !h) return rc;
    if (c > INT32_MAX) return bad(r, p, name, "vector too long");
    int32_t *a = npuc_arena_calloc(&r->m->arena, c ? c : 1, 4);
    if (!a) return alloc_fail(r);
    for (uint32_t i = 0; i < c; i++) a[i] = (int32_t)ld32(r->d + p + 4 * (size_t)i);
    *out = a;
    *n = (int32_t)c;
    return NPUC_OK;
}

static int get_bytes(rd *r, const tbl *t, int id, const char *name, uint8_t **out, uint32_t *n, bool *has)
{
    uint32_t c;
    size_t p;
    bool h;
    *out = NULL;
    *n = 0;
    int rc = get_vec(r, t, id, 1, name, &h, &c, &p);
    if (has) *has = h;
    if (rc || !h) return rc;
    *out = npuc_arena_memdup(&r->m->arena, r->d + p, c);
    if (!*out) return alloc_fail(r);
    *n = c;
    return NPUC_OK;
}

/* Table i of a vector of tables. */
static int vec_table(rd *r, size_t data, uint32_t i, const char *name, tbl *t)
{
    size_t p = data + 4 * (size_t)i;
    uint32_t u = ld32(r->d + p);
    if (u == 0 || (uint64_t)p + u >= r->n) return bad(r, p, name, "table offset points outside the file");
    return open_table(r, p + u, name, t);
}

/* Appends "name" or "name[i]" to the path; returns the old length. */
static size_t push(rd *r, const char *name, int64_t idx)
{
    size_t len = strlen(r->path);
    size_t room = sizeof r->path - len;
    if (idx >= 0) snprintf(r->path + len, room, "%s%s[%lld]", len ? "." : "", name, (long long)idx);
    else snprintf(r->path + len, room, "%s%s", len ? "." : "", name);
    return len;
}
static void pop(rd *r, size_t len) { r->path[len] = 0; }

/* ---- sections ---- */

static int read_quant(rd *r, size_t pos, tfl_quant *q)
{
    tbl t;
    int rc = open_table(r, pos, "", &t);
    if (rc) return rc;
    q->present = true;
    uint32_t c;
    size_t p;
    bool has;
    float **fv[3] = {&q->min, &q->max, &q->scale};
    int32_t *fn[3] = {&q->n_min, &q->n_max, &q->n_scale};
    const char *names[3] = {"min", "max", "scale"};
    for (int k = 0; k < 3; k++) {
        if ((rc = get_vec(r, &t, k, 4, names[k], &has, &c, &p))) return rc;
        if (!has) continue;
        float *a = npuc_arena_calloc(&r->m->arena, c ? c : 1, 4);
        if (!a) return alloc_fail(r);
        for (uint32_t i = 0; i < c; i++) {
            uint32_t u = ld32(r->d + p + 4 * (size_t)i);
            memcpy(&a[i], &u, 4);
        }
        *fv[k] = a;
        *fn[k] = (int32_t)c;
    }
    if ((rc = get_vec(r, &t, 3, 8, "zero_point", &has, &c, &p))) return rc;
    if (has) {
        int64_t *a = npuc_arena_calloc(&r->m->arena, c ? c : 1, 8);
        if (!a) return alloc_fail(r);
        for (uint32_t i = 0; i < c; i++) a[i] = (int64_t)ld64(r->d + p + 8 * (size_t)i);
        q->zero_point = a;
        q->n_zero_point = (int32_t)c;
    }
    if ((rc = get_u8(r, &t, 4, 0, "details_type", &q->details_type))) return rc;
    if ((rc = get_i32(r, &t, 6, 0, "quantized_dimension", &q->quantized_dimension))) return rc;
    return NPUC_OK;
}

static int read_tensor(rd *r, size_t pos, tfl_tensor *x)
{
    tbl t;
    int rc = open_table(r, pos, "", &t);
    if (rc) return rc;
    if ((rc = get_i32_vec(r, &t, 0, "shape", &x->shape, &x->rank, &x->has_shape))) return rc;
    if ((rc = get_i8(r, &t, 1, 0, "type", &x->type))) return rc;
    if ((rc = get_u32(r, &t, 2, 0, "buffer", &x->buffer))) return rc;
    if ((rc = get_string(r, &t, 3, "name", &x->name))) return rc;
    if (!x->name && !(x->name = npuc_arena_strdup(&r->m->arena, ""))) return alloc_fail(r);
    size_t q;
    if ((rc = get_ref(r, &t, 4, "quantization", &q))) return rc;
    if (q) {
        size_t l = push(r, "quantization", -1);
        rc = read_quant(r, q, &x->quant);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_bool(r, &t, 5, false, "is_variable", &x->is_variable))) return rc;
    size_t sp;
    if ((rc = get_ref(r, &t, 6, "sparsity", &sp))) return rc;
    x->has_sparsity = sp != 0;
    if ((rc = get_i32_vec(r, &t, 7, "shape_signature", &x->shape_signature, &x->rank_signature,
                          &x->has_shape_signature)))
        return rc;
    if ((rc = get_bool(r, &t, 8, false, "has_rank", &x->has_rank))) return rc;
    return NPUC_OK;
}

static int read_options(rd *r, size_t pos, int type, tfl_options *o)
{
    int32_t nf;
    const tfl_field_desc *f = tfl_options_fields(type, &nf);
    tbl t;
    int rc = open_table(r, pos, "builtin_options", &t);
    if (rc || !f) return rc;
    for (int32_t i = 0; i < nf; i++) {
        char *base = (char *)o + f[i].off;
        switch (f[i].kind) {
        case TFL_F_I8: rc = get_i8(r, &t, f[i].id, *(int8_t *)base, f[i].name, (int8_t *)base); break;
        case TFL_F_BOOL: rc = get_bool(r, &t, f[i].id, *(bool *)base, f[i].name, (bool *)base); break;
        case TFL_F_I32: rc = get_i32(r, &t, f[i].id, *(int32_t *)base, f[i].name, (int32_t *)base); break;
        case TFL_F_F32: rc = get_f32(r, &t, f[i].id, *(float *)base, f[i].name, (float *)base); break;
        case TFL_F_VEC_I32:
            rc = get_i32_vec(r, &t, f[i].id, f[i].name, (int32_t **)base, (int32_t *)((char *)o + f[i].count_off),
                             (bool *)((char *)o + f[i].has_off));
            break;
        case TFL_F_STR: rc = get_string(r, &t, f[i].id, f[i].name, (char **)base); break;
        }
        if (rc) return rc;
    }
    return NPUC_OK;
}

static int read_operator(rd *r, size_t pos, tfl_operator *op)
{
    tbl t;
    int rc = open_table(r, pos, "", &t);
    if (rc) return rc;
    if ((rc = get_u32(r, &t, 0, 0, "opcode_index", &op->opcode_index))) return rc;
    if ((rc = get_i32_vec(r, &t, 1, "inputs", &op->inputs, &op->n_inputs, NULL))) return rc;
    if ((rc = get_i32_vec(r, &t, 2, "outputs", &op->outputs, &op->n_outputs, NULL))) return rc;
    if ((rc = get_u8(r, &t, 3, 0, "builtin_options_type", &op->options_type))) return rc;
    tfl_options_default(&op->options);
    size_t o;
    if ((rc = get_ref(r, &t, 4, "builtin_options", &o))) return rc;
    if (op->options_type != 0 && o == 0) return bad(r, t.pos, "builtin_options", "options type is set but the options table is missing");
    if (o && op->options_type == 0) return bad(r, t.pos, "builtin_options", "options table present without an options type");
    int32_t nf;
    op->options_known = op->options_type == 0 || tfl_options_fields(op->options_type, &nf) != NULL;
    if (o && op->options_known) {
        size_t l = push(r, "builtin_options", -1);
        rc = read_options(r, o, op->options_type, &op->options);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_bytes(r, &t, 5, "custom_options", &op->custom_options, &op->n_custom_options, &op->has_custom_options)))
        return rc;
    if ((rc = get_i8(r, &t, 6, 0, "custom_options_format", &op->custom_options_format))) return rc;
    uint8_t *mv;
    uint32_t nmv;
    bool hmv;
    if ((rc = get_bytes(r, &t, 7, "mutating_variable_inputs", &mv, &nmv, &hmv))) return rc;
    if (hmv) {
        op->mutating_variable_inputs = npuc_arena_calloc(&r->m->arena, nmv ? nmv : 1, sizeof(bool));
        if (!op->mutating_variable_inputs) return alloc_fail(r);
        for (uint32_t i = 0; i < nmv; i++) op->mutating_variable_inputs[i] = mv[i] != 0;
        op->n_mutating_variable_inputs = (int32_t)nmv;
    }
    if ((rc = get_i32_vec(r, &t, 8, "intermediates", &op->intermediates, &op->n_intermediates, NULL))) return rc;
    if ((rc = get_u64(r, &t, 9, 0, "large_custom_options_offset", &op->large_custom_options_offset))) return rc;
    if ((rc = get_u64(r, &t, 10, 0, "large_custom_options_size", &op->large_custom_options_size))) return rc;
    if (op->large_custom_options_offset || op->large_custom_options_size) {
        uint64_t off = op->large_custom_options_offset, sz = op->large_custom_options_size;
        if (op->has_custom_options) return bad(r, t.pos, "large_custom_options_offset", "both inline and large custom options are set");
        if (off > r->n || sz > r->n - off || sz > UINT32_MAX)
            return bad(r, t.pos, "large_custom_options_offset", "custom options lie outside the file");
        op->custom_options = npuc_arena_memdup(&r->m->arena, r->d + off, (size_t)sz);
        if (!op->custom_options) return alloc_fail(r);
        op->n_custom_options = (uint32_t)sz;
        op->has_custom_options = true;
    }
    return NPUC_OK;
}

static int read_subgraph(rd *r, size_t pos, tfl_subgraph *s)
{
    tbl t;
    int rc = open_table(r, pos, "", &t);
    if (rc) return rc;
    bool has;
    uint32_t c;
    size_t p;
    if ((rc = get_vec(r, &t, 0, 4, "tensors", &has, &c, &p))) return rc;
    s->tensors = npuc_arena_calloc(&r->m->arena, c ? c : 1, sizeof(tfl_tensor));
    if (!s->tensors) return alloc_fail(r);
    s->n_tensors = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "tensors", i);
        tbl tt;
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = read_tensor(r, tt.pos, &s->tensors[i]);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_i32_vec(r, &t, 1, "inputs", &s->inputs, &s->n_inputs, NULL))) return rc;
    if ((rc = get_i32_vec(r, &t, 2, "outputs", &s->outputs, &s->n_outputs, NULL))) return rc;
    if ((rc = get_vec(r, &t, 3, 4, "operators", &has, &c, &p))) return rc;
    s->operators = npuc_arena_calloc(&r->m->arena, c ? c : 1, sizeof(tfl_operator));
    if (!s->operators) return alloc_fail(r);
    s->n_operators = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "operators", i);
        tbl tt;
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = read_operator(r, tt.pos, &s->operators[i]);
        pop(r, l);
        if (rc) return rc;
    }
    return get_string(r, &t, 4, "name", &s->name);
}

static int read_buffer(rd *r, size_t pos, tfl_buffer *b)
{
    tbl t;
    int rc = open_table(r, pos, "", &t);
    if (rc) return rc;
    uint32_t n;
    bool has;
    if ((rc = get_bytes(r, &t, 0, "data", &b->data, &n, &has))) return rc;
    b->size = n;
    uint64_t off, sz;
    if ((rc = get_u64(r, &t, 1, 0, "offset", &off))) return rc;
    if ((rc = get_u64(r, &t, 2, 0, "size", &sz))) return rc;
    if (off > 1) {
        if (has && n) return bad(r, t.pos, "offset", "buffer has both inline data and an offset");
        if (off > r->n || sz > r->n - off) {
            char why[128];
            snprintf(why, sizeof why, "buffer data at offset %llu size %llu lies outside the file (%zu bytes)",
                     (unsigned long long)off, (unsigned long long)sz, r->n);
            return bad(r, t.pos, "offset", why);
        }
        b->data = npuc_arena_memdup(&r->m->arena, r->d + off, (size_t)sz);
        if (!b->data) return alloc_fail(r);
        b->size = (size_t)sz;
        b->external = true;
    }
    if (b->size == 0) b->data = NULL;
    return NPUC_OK;
}

static int read_tensor_maps(rd *r, const tbl *t, int id, const char *name, tfl_tensor_map **out, int32_t *n)
{
    bool has;
    uint32_t c;
    size_t p;
    int rc = get_vec(r, t, id, 4, name, &has, &c, &p);
    if (rc) return rc;
    *out = npuc_arena_calloc(&r->m->arena, c ? c : 1, sizeof(tfl_tensor_map));
    if (!*out) return alloc_fail(r);
    *n = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, name, i);
        tbl tt;
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = get_string(r, &tt, 0, "name", &(*out)[i].name);
        if (!rc) rc = get_u32(r, &tt, 1, 0, "tensor_index", &(*out)[i].tensor_index);
        pop(r, l);
        if (rc) return rc;
    }
    return NPUC_OK;
}

tfl_model *tfl_model_new(void)
{
    tfl_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    npuc_arena_init(&m->arena);
    m->version = 3;
    return m;
}

void tfl_model_free(tfl_model *m)
{
    if (!m) return;
    npuc_arena_free(&m->arena);
    free(m);
}

static int read_model(rd *r)
{
    tfl_model *m = r->m;
    if (r->n < 8) return npuc_errf(r->err, NPUC_E_FORMAT, "malformed TFLite file: %zu bytes is too short for a flatbuffer", r->n);
    if (memcmp(r->d + 4, "TFL3", 4) != 0)
        return npuc_errf(r->err, NPUC_E_FORMAT,
                         "not a TFLite file: offset 0x4: file identifier is \"%c%c%c%c\", expected \"TFL3\"",
                         r->d[4] >= 32 && r->d[4] < 127 ? r->d[4] : '?', r->d[5] >= 32 && r->d[5] < 127 ? r->d[5] : '?',
                         r->d[6] >= 32 && r->d[6] < 127 ? r->d[6] : '?', r->d[7] >= 32 && r->d[7] < 127 ? r->d[7] : '?');
    uint32_t root = ld32(r->d);
    if (root < 8 || root >= r->n) return bad(r, 0, "root", "root table offset points outside the file");
    tbl t;
    int rc = open_table(r, root, "Model", &t);
    if (rc) return rc;
    if ((rc = get_u32(r, &t, 0, 0, "version", &m->version))) return rc;
    bool has;
    uint32_t c;
    size_t p;
    if ((rc = get_vec(r, &t, 1, 4, "operator_codes", &has, &c, &p))) return rc;
    m->opcodes = npuc_arena_calloc(&m->arena, c ? c : 1, sizeof(tfl_opcode));
    if (!m->opcodes) return alloc_fail(r);
    m->n_opcodes = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "operator_codes", i);
        tbl tt;
        tfl_opcode *oc = &m->opcodes[i];
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = get_i8(r, &tt, 0, 0, "deprecated_builtin_code", &oc->deprecated_builtin_code);
        if (!rc) rc = get_string(r, &tt, 1, "custom_code", &oc->custom_code);
        if (!rc) rc = get_i32(r, &tt, 2, 1, "version", &oc->version);
        if (!rc) rc = get_i32(r, &tt, 3, 0, "builtin_code", &oc->builtin_code);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_vec(r, &t, 2, 4, "subgraphs", &has, &c, &p))) return rc;
    m->subgraphs = npuc_arena_calloc(&m->arena, c ? c : 1, sizeof(tfl_subgraph));
    if (!m->subgraphs) return alloc_fail(r);
    m->n_subgraphs = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "subgraphs", i);
        tbl tt;
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = read_subgraph(r, tt.pos, &m->subgraphs[i]);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_string(r, &t, 3, "description", &m->description))) return rc;
    if ((rc = get_vec(r, &t, 4, 4, "buffers", &has, &c, &p))) return rc;
    m->buffers = npuc_arena_calloc(&m->arena, c ? c : 1, sizeof(tfl_buffer));
    if (!m->buffers) return alloc_fail(r);
    m->n_buffers = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "buffers", i);
        tbl tt;
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = read_buffer(r, tt.pos, &m->buffers[i]);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_i32_vec(r, &t, 5, "metadata_buffer", &m->metadata_buffer, &m->n_metadata_buffer, NULL))) return rc;
    if ((rc = get_vec(r, &t, 6, 4, "metadata", &has, &c, &p))) return rc;
    m->metadata = npuc_arena_calloc(&m->arena, c ? c : 1, sizeof(tfl_metadata));
    if (!m->metadata) return alloc_fail(r);
    m->n_metadata = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "metadata", i);
        tbl tt;
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = get_string(r, &tt, 0, "name", &m->metadata[i].name);
        if (!rc) rc = get_u32(r, &tt, 1, 0, "buffer", &m->metadata[i].buffer);
        pop(r, l);
        if (rc) return rc;
    }
    if ((rc = get_vec(r, &t, 7, 4, "signature_defs", &has, &c, &p))) return rc;
    m->signatures = npuc_arena_calloc(&m->arena, c ? c : 1, sizeof(tfl_signature));
    if (!m->signatures) return alloc_fail(r);
    m->n_signatures = (int32_t)c;
    for (uint32_t i = 0; i < c; i++) {
        size_t l = push(r, "signature_defs", i);
        tbl tt;
        tfl_signature *s = &m->signatures[i];
        rc = vec_table(r, p, i, "", &tt);
        if (!rc) rc = read_tensor_maps(r, &tt, 0, "inputs", &s->inputs, &s->n_inputs);
        if (!rc) rc = read_tensor_maps(r, &tt, 1, "outputs", &s->outputs, &s->n_outputs);
        if (!rc) rc = get_string(r, &tt, 2, "signature_key", &s->signature_key);
        if (!rc) rc = get_u32(r, &tt, 4, 0, "subgraph_index", &s->subgraph_index);
        pop(r, l);
        if (rc) return rc;
    }
    return NPUC_OK;
}

/* Cross-references inside the file (indices into other tables). */
static int check_refs(const tfl_model *m, npuc_err *err)
{
    for (int32_t s = 0; s < m->n_subgraphs; s++) {
        const tfl_subgraph *sg = &m->subgraphs[s];
        for (int32_t i = 0; i < sg->n_tensors; i++)
            if (sg->tensors[i].buffer >= (uint32_t)m->n_buffers && !(m->n_buffers == 0 && sg->tensors[i].buffer == 0))
                return npuc_errf(err, NPUC_E_FORMAT,
                                 "malformed TFLite file: subgraphs[%d].tensors[%d] ('%s'): buffer index %u is out of range "
                                 "(model has %d buffers)",
                                 s, i, sg->tensors[i].name, sg->tensors[i].buffer, m->n_buffers);
        for (int32_t i = 0; i < sg->n_operators; i++)
            if (sg->operators[i].opcode_index >= (uint32_t)m->n_opcodes)
                return npuc_errf(err, NPUC_E_FORMAT,
                                 "malformed TFLite file: subgraphs[%d].operators[%d]: opcode_index %u is out of range "
                                 "(model has %d operator codes)",
                                 s, i, sg->operators[i].opcode_index, m->n_opcodes);
    }
    for (int32_t i = 0; i < m->n_metadata; i++)
        if (m->metadata[i].buffer >= (uint32_t)m->n_buffers)
            return npuc_errf(err, NPUC_E_FORMAT, "malformed TFLite file: metadata[%d] ('%s'): buffer index %u is out of range",
                             i, m->metadata[i].name ? m->metadata[i].name : "", m->metadata[i].buffer);
    return NPUC_OK;
}

int tfl_read(const uint8_t *data, size_t size, tfl_model **out, npuc_err *err)
{
    *out = NULL;
    tfl_model *m = tfl_model_new();
    if (!m) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    rd r = {.d = data, .n = size, .m = m, .err = err};
    int rc = read_model(&r);
    if (!rc) rc = check_refs(m, err);
    if (rc) {
        tfl_model_free(m);
        return rc;
    }
    *out = m;
    return NPUC_OK;
}

int tfl_read_file(const char *path, tfl_model **out, npuc_err *err)
{
    uint8_t *d;
    size_t n;
    int rc = npuc_read_file(path, &d, &n, err);
    if (rc) return rc;
    rc = tfl_read(d, n, out, err);
    free(d);
    if (rc) npuc_err_prefix(err, "%s", path);
    return rc;
}
