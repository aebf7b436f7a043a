/* Deep comparison of two tfl_models, describing the first difference.
 *
 * Compared as the schema means them, not as bytes: the operator code is the
 * effective builtin code (max of builtin_code and deprecated_builtin_code);
 * the storage form of buffer data (inline or offset/size) and of large
 * custom options is ignored, since the reader resolves both into the data.
 * Floats are compared bit for bit (so NaN equals itself, -0 differs from 0). */
#include "tflite.h"
#include "options_desc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct eq {
    char *why;
    size_t n;
    char ctx[256];      /* "subgraph 0 tensor 12 (conv)" */
} eq;

static bool differ(eq *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool differ(eq *e, const char *fmt, ...)
{
    if (!e->why || !e->n) return false;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(e->why, e->n, "%s%s%s", e->ctx, e->ctx[0] ? " " : "", msg);
    return false;
}

static void set_ctx(eq *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void set_ctx(eq *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->ctx, sizeof e->ctx, fmt, ap);
    va_end(ap);
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Shortest decimal form that reads back as the same float. */
static const char *fmt_f(char buf[32], float f)
{
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, 32, "%.*g", prec, (double)f);
        if (bits(strtof(buf, NULL)) == bits(f)) return buf;
    }
    return buf;
}

static const char *show(const char *s) { return s ? s : "(absent)"; }

static bool eq_str(eq *e, const char *what, const char *a, const char *b)
{
    if (!a && !b) return true;
    if (!a || !b || strcmp(a, b) != 0) {
        return differ(e, "%s: %s%s%s vs %s%s%s", what, a ? "\"" : "", show(a), a ? "\"" : "", b ? "\"" : "", show(b),
                      b ? "\"" : "");
    }
    return true;
}

static bool eq_i32v(eq *e, const char *what, const int32_t *a, int32_t na, const int32_t *b, int32_t nb)
{
    if ((a == NULL) != (b == NULL)) return differ(e, "%s: %s vs %s", what, a ? "present" : "absent", b ? "present" : "absent");
    if (na != nb) return differ(e, "%s: length %d vs %d", what, na, nb);
    for (int32_t i = 0; i < na; i++)
        if (a[i] != b[i]) return differ(e, "%s[%d]: %d vs %d", what, i, a[i], b[i]);
    return true;
}

static bool eq_f32v(eq *e, const char *what, const float *a, int32_t na, const float *b, int32_t nb)
{
    if ((a == NULL) != (b == NULL)) return differ(e, "%s: %s vs %s", what, a ? "present" : "absent", b ? "present" : "absent");
    if (na != nb) return differ(e, "%s: length %d vs %d", what, na, nb);
    for (int32_t i = 0; i < na; i++)
        if (bits(a[i]) != bits(b[i])) {
            char x[32], y[32];
            return differ(e, "%s[%d]: %s vs %s", what, i, fmt_f(x, a[i]), fmt_f(y, b[i]));
        }
    return true;
}

static bool eq_i64v(eq *e, const char *what, const int64_t *a, int32_t na, const int64_t *b, int32_t nb)
{
    if ((a == NULL) != (b == NULL)) return differ(e, "%s: %s vs %s", what, a ? "present" : "absent", b ? "present" : "absent");
    if (na != nb) return differ(e, "%s: length %d vs %d", what, na, nb);
    for (int32_t i = 0; i < na; i++)
        if (a[i] != b[i]) return differ(e, "%s[%d]: %lld vs %lld", what, i, (long long)a[i], (long long)b[i]);
    return true;
}

static bool eq_bytes(eq *e, const char *what, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    if (na != nb) return differ(e, "%s: size %zu vs %zu", what, na, nb);
    if (na == 0) return true;
    for (size_t i = 0; i < na; i++)
        if (a[i] != b[i]) return differ(e, "%s: byte %zu: 0x%02x vs 0x%02x", what, i, a[i], b[i]);
    return true;
}

#define EQ_NUM(what, a, b, fmt, cast)                                                   \
    do {                                                                                \
        if ((a) != (b)) return differ(e, "%s: " fmt " vs " fmt, what, (cast)(a), (cast)(b)); \
    } while (0)

static bool eq_quant(eq *e, const tfl_quant *a, const tfl_quant *b)
{
    if (a->present != b->present)
        return differ(e, "quantization: %s vs %s", a->present ? "present" : "absent", b->present ? "present" : "absent");
    if (!a->present) return true;
    if (!eq_f32v(e, "quantization min", a->min, a->n_min, b->min, b->n_min)) return false;
    if (!eq_f32v(e, "quantization max", a->max, a->n_max, b->max, b->n_max)) return false;
    if (!eq_f32v(e, "quantization scale", a->scale, a->n_scale, b->scale, b->n_scale)) return false;
    if (!eq_i64v(e, "quantization zero_point", a->zero_point, a->n_zero_point, b->zero_point, b->n_zero_point))
        return false;
    EQ_NUM("quantization quantized_dimension", a->quantized_dimension, b->quantized_dimension, "%d", int);
    EQ_NUM("quantization details_type", a->details_type, b->details_type, "%d", int);
    return true;
}

static bool eq_tensor(eq *e, const tfl_tensor *a, const tfl_tensor *b)
{
    if (!eq_str(e, "name", a->name, b->name)) return false;
    if (a->has_shape != b->has_shape)
        return differ(e, "shape: %s vs %s", a->has_shape ? "present" : "absent", b->has_shape ? "present" : "absent");
    if (a->has_shape && !eq_i32v(e, "shape", a->shape, a->rank, b->shape, b->rank)) return false;
    if (a->has_shape_signature != b->has_shape_signature)
        return differ(e, "shape_signature: %s vs %s", a->has_shape_signature ? "present" : "absent",
                      b->has_shape_signature ? "present" : "absent");
    if (a->has_shape_signature &&
        !eq_i32v(e, "shape_signature", a->shape_signature, a->rank_signature, b->shape_signature, b->rank_signature))
        return false;
    if (a->type != b->type) return differ(e, "type: %s vs %s", tfl_type_name(a->type), tfl_type_name(b->type));
    EQ_NUM("buffer", a->buffer, b->buffer, "%u", unsigned);
    if (!eq_quant(e, &a->quant, &b->quant)) return false;
    EQ_NUM("is_variable", a->is_variable, b->is_variable, "%d", int);
    EQ_NUM("has_rank", a->has_rank, b->has_rank, "%d", int);
    EQ_NUM("has_sparsity", a->has_sparsity, b->has_sparsity, "%d", int);
    return true;
}

static bool eq_options(eq *e, int type, const tfl_options *a, const tfl_options *b)
{
    int32_t nf;
    const tfl_field_desc *f = tfl_options_fields(type, &nf);
    if (!f) return true;
    const char *tname = tfl_options_table_name(type);
    char what[128];
    for (int32_t i = 0; i < nf; i++) {
        const char *pa = (const char *)a + f[i].off, *pb = (const char *)b + f[i].off;
        snprintf(what, sizeof what, "%s.%s", tname, f[i].name);
        switch (f[i].kind) {
        case TFL_F_I8: EQ_NUM(what, *(const int8_t *)pa, *(const int8_t *)pb, "%d", int); break;
        case TFL_F_BOOL: EQ_NUM(what, *(const bool *)pa, *(const bool *)pb, "%d", int); break;
        case TFL_F_I32: EQ_NUM(what, *(const int32_t *)pa, *(const int32_t *)pb, "%d", int); break;
        case TFL_F_F32:
            if (bits(*(const float *)pa) != bits(*(const float *)pb)) {
                char x[32], y[32];
                return differ(e, "%s: %s vs %s", what, fmt_f(x, *(const float *)pa), fmt_f(y, *(const float *)pb));
            }
            break;
        case TFL_F_STR: {
            const char *sa = *(char *const *)pa, *sb = *(char *const *)pb;
            if (!sa != !sb || (sa && strcmp(sa, sb)))
                return differ(e, "%s: \"%s\" vs \"%s\"", what, sa ? sa : "(absent)", sb ? sb : "(absent)");
            break;
        }
        case TFL_F_VEC_I32: {
            bool ha = *(const bool *)((const char *)a + f[i].has_off);
            bool hb = *(const bool *)((const char *)b + f[i].has_off);
            if (ha != hb) return differ(e, "%s: %s vs %s", what, ha ? "present" : "absent", hb ? "present" : "absent");
            if (ha && !eq_i32v(e, what, *(int32_t *const *)pa, *(const int32_t *)((const char *)a + f[i].count_off),
                               *(int32_t *const *)pb, *(const int32_t *)((const char *)b + f[i].count_off)))
                return false;
            break;
        }
        }
    }
    return true;
}

static bool eq_operator(eq *e, const tfl_operator *a, const tfl_operator *b)
{
    EQ_NUM("opcode_index", a->opcode_index, b->opcode_index, "%u", unsigned);
    if (!eq_i32v(e, "inputs", a->inputs, a->n_inputs, b->inputs, b->n_inputs)) return false;
    if (!eq_i32v(e, "outputs", a->outputs, a->n_outputs, b->outputs, b->n_outputs)) return false;
    if (!eq_i32v(e, "intermediates", a->intermediates, a->n_intermediates, b->intermediates, b->n_intermediates))
        return false;
    EQ_NUM("builtin_options_type", a->options_type, b->options_type, "%d", int);
    EQ_NUM("options_known", a->options_known, b->options_known, "%d", int);
    if (a->options_known && !eq_options(e, a->options_type, &a->options, &b->options)) return false;
    if (a->has_custom_options != b->has_custom_options)
        return differ(e, "custom_options: %s vs %s", a->has_custom_options ? "present" : "absent",
                      b->has_custom_options ? "present" : "absent");
    if (!eq_bytes(e, "custom_options", a->custom_options, a->n_custom_options, b->custom_options, b->n_custom_options))
        return false;
    EQ_NUM("custom_options_format", a->custom_options_format, b->custom_options_format, "%d", int);
    if ((a->mutating_variable_inputs == NULL) != (b->mutating_variable_inputs == NULL))
        return differ(e, "mutating_variable_inputs: %s vs %s", a->mutating_variable_inputs ? "present" : "absent",
                      b->mutating_variable_inputs ? "present" : "absent");
    EQ_NUM("mutating_variable_inputs length", a->n_mutating_variable_inputs, b->n_mutating_variable_inputs, "%d", int);
    for (int32_t i = 0; i < a->n_mutating_variable_inputs; i++)
        if (a->mutating_variable_inputs[i] != b->mutating_variable_inputs[i])
            return differ(e, "mutating_variable_inputs[%d]: %d vs %d", i, a->mutating_variable_inputs[i],
                          b->mutating_variable_inputs[i]);
    return true;
}

static const char *op_label(const tfl_model *m, const tfl_operator *op)
{
    if (op->opcode_index >= (uint32_t)m->n_opcodes) return "?";
    const tfl_opcode *c = &m->opcodes[op->opcode_index];
    int32_t code = tfl_opcode_builtin(c);
    if (code == TFL_OP_CUSTOM && c->custom_code) return c->custom_code;
    return tfl_builtin_name(code);
}

static bool eq_subgraph(eq *e, int32_t s, const tfl_model *ma, const tfl_subgraph *a, const tfl_subgraph *b)
{
    set_ctx(e, "subgraph %d", s);
    if (!eq_str(e, "name", a->name, b->name)) return false;
    EQ_NUM("tensor count", a->n_tensors, b->n_tensors, "%d", int);
    for (int32_t i = 0; i < a->n_tensors; i++) {
        set_ctx(e, "subgraph %d tensor %d (%s)", s, i, show(a->tensors[i].name));
        if (!eq_tensor(e, &a->tensors[i], &b->tensors[i])) return false;
    }
    set_ctx(e, "subgraph %d", s);
    if (!eq_i32v(e, "inputs", a->inputs, a->n_inputs, b->inputs, b->n_inputs)) return false;
    if (!eq_i32v(e, "outputs", a->outputs, a->n_outputs, b->outputs, b->n_outputs)) return false;
    EQ_NUM("operator count", a->n_operators, b->n_operators, "%d", int);
    for (int32_t i = 0; i < a->n_operators; i++) {
        set_ctx(e, "subgraph %d op %d (%s)", s, i, op_label(ma, &a->operators[i]));
        if (!eq_operator(e, &a->operators[i], &b->operators[i])) return false;
    }
    return true;
}

static bool eq_maps(eq *e, const char *what, const tfl_tensor_map *a, int32_t na, const tfl_tensor_map *b, int32_t nb)
{
    char w[96];
    if (na != nb) return differ(e, "%s: length %d vs %d", what, na, nb);
    for (int32_t i = 0; i < na; i++) {
        snprintf(w, sizeof w, "%s[%d] name", what, i);
        if (!eq_str(e, w, a[i].name, b[i].name)) return false;
        snprintf(w, sizeof w, "%s[%d] tensor_index", what, i);
        EQ_NUM(w, a[i].tensor_index, b[i].tensor_index, "%u", unsigned);
    }
    return true;
}

bool tfl_model_equal(const tfl_model *a, const tfl_model *b, char *why, size_t why_size)
{
    eq ev = {.why = why, .n = why_size};
    eq *e = &ev;
    if (why && why_size) why[0] = 0;
    if (a == b) return true;
    if (!a || !b) return differ(e, "model: %s vs %s", a ? "present" : "NULL", b ? "present" : "NULL");
    EQ_NUM("model version", a->version, b->version, "%u", unsigned);
    if (!eq_str(e, "model description", a->description, b->description)) return false;
    EQ_NUM("operator code count", a->n_opcodes, b->n_opcodes, "%d", int);
    for (int32_t i = 0; i < a->n_opcodes; i++) {
        const tfl_opcode *x = &a->opcodes[i], *y = &b->opcodes[i];
        set_ctx(e, "operator code %d", i);
        int32_t cx = tfl_opcode_builtin(x), cy = tfl_opcode_builtin(y);
        if (cx != cy) return differ(e, "builtin code: %d (%s) vs %d (%s)", cx, tfl_builtin_name(cx), cy, tfl_builtin_name(cy));
        if (!eq_str(e, "custom_code", x->custom_code, y->custom_code)) return false;
        EQ_NUM("version", x->version, y->version, "%d", int);
    }
    set_ctx(e, "%s", "");
    EQ_NUM("subgraph count", a->n_subgraphs, b->n_subgraphs, "%d", int);
    for (int32_t s = 0; s < a->n_subgraphs; s++)
        if (!eq_subgraph(e, s, a, &a->subgraphs[s], &b->subgraphs[s])) return false;
    set_ctx(e, "%s", "");
    EQ_NUM("buffer count", a->n_buffers, b->n_buffers, "%d", int);
    for (int32_t i = 0; i < a->n_buffers; i++) {
        set_ctx(e, "buffer %d", i);
        if (!eq_bytes(e, "data", a->buffers[i].data, a->buffers[i].size, b->buffers[i].data, b->buffers[i].size))
            return false;
    }
    set_ctx(e, "%s", "");
    if (!eq_i32v(e, "metadata_buffer", a->metadata_buffer, a->n_metadata_buffer, b->metadata_buffer,
                 b->n_metadata_buffer))
        return false;
    EQ_NUM("metadata count", a->n_metadata, b->n_metadata, "%d", int);
    for (int32_t i = 0; i < a->n_metadata; i++) {
        set_ctx(e, "metadata %d", i);
        if (!eq_str(e, "name", a->metadata[i].name, b->metadata[i].name)) return false;
        EQ_NUM("buffer", a->metadata[i].buffer, b->metadata[i].buffer, "%u", unsigned);
    }
    set_ctx(e, "%s", "");
    EQ_NUM("signature count", a->n_signatures, b->n_signatures, "%d", int);
    for (int32_t i = 0; i < a->n_signatures; i++) {
        const tfl_signature *x = &a->signatures[i], *y = &b->signatures[i];
        set_ctx(e, "signature %d", i);
        if (!eq_str(e, "signature_key", x->signature_key, y->signature_key)) return false;
        EQ_NUM("subgraph_index", x->subgraph_index, y->subgraph_index, "%u", unsigned);
        if (!eq_maps(e, "inputs", x->inputs, x->n_inputs, y->inputs, y->n_inputs)) return false;
        if (!eq_maps(e, "outputs", x->outputs, x->n_outputs, y->outputs, y->n_outputs)) return false;
    }
    return true;
}
