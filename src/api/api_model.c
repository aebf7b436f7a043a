/* npuc_model: open by form, close, queries, inputs, outputs, run. The
 * forms' own parts are in api_tflite.c and api_compiled.c. */
#include "api_int.h"
#include "kernels/k_op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The public numbers are the internal ones. */
_Static_assert((int)NPUC_DT_FLOAT32 == (int)GRAPH_F32 && (int)NPUC_DT_INT8 == (int)GRAPH_I8 &&
                   (int)NPUC_DT_INT16 == (int)GRAPH_I16 && (int)NPUC_DT_UINT8 == (int)GRAPH_U8 &&
                   (int)NPUC_DT_INT32 == (int)GRAPH_I32 && (int)NPUC_DT_INT64 == (int)GRAPH_I64 &&
                   (int)NPUC_DT_BOOL == (int)GRAPH_BOOL && (int)NPUC_DT_UINT16 == (int)GRAPH_U16 &&
                   (int)NPUC_DT_UINT32 == (int)GRAPH_U32 && (int)NPUC_DT_INT4 == (int)GRAPH_I4,
               "npuc_dtype is the TFLite TensorType numbering, as graph_dtype");
_Static_assert((int)NPUC_EPOCH_HW == (int)NPURT_EPOCH_HW && (int)NPUC_EPOCH_SW == (int)NPURT_EPOCH_SW &&
                   (int)NPUC_EPOCH_HYBRID == (int)NPURT_EPOCH_HYBRID,
               "npuc_epoch_kind is the runtime's epoch kind");
_Static_assert(NPUC_MAX_RANK >= NPURT_MAX_RANK && NPUC_MAX_RANK == GRAPH_MAX_RANK, "ranks fit");

void *api_alloc16(size_t n)
{
    size_t sz = n < 16 ? 16 : (n + 15) / 16 * 16;
    if (sz < n) return NULL;
    void *p = aligned_alloc(16, sz);
    if (p) memset(p, 0, sz);
    return p;
}

int api_prefix(const npuc_model *m, npuc_err *err)
{
    if (m->name) npuc_err_prefix(err, "%s", m->name);
    return err->code;
}

void api_model_system(const npuc_model *m, sim_system *out)
{
    *out = m->have_sys && m->given_variant == m->target.variant ? m->given_sys : m->target.sim;
}

void api_note_npu(npuc_model *m, eu_variant v, const sim_system *sys)
{
    const eu_variant_info *row = eu_variant_get(v);
    snprintf(m->npu_name, sizeof m->npu_name, "%s", eu_variant_target(v));
    snprintf(m->sys_name, sizeof m->sys_name, "%s", sys->name);
    m->core_clock_hz = sys->core_clock_hz;
    m->macs_per_cycle = row ? row->macs : 0;
}

/* ------------------------------------------------------------------ probe */

npuc_form npuc_probe_memory(const void *data, size_t size)
{
    const uint8_t *b = data;
    if (!b || size < 4) return NPUC_FORM_UNKNOWN;
    uint32_t magic = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    if (magic == NPURT_MAGIC) return NPUC_FORM_NPRT;
    if (magic == NPURL_MAGIC) return NPUC_FORM_RELOC;
    if (size >= 8 && !memcmp(b + 4, "TFL3", 4)) return NPUC_FORM_TFLITE;
    return NPUC_FORM_UNKNOWN;
}

npuc_form npuc_probe_file(const char *path)
{
    if (!path) return NPUC_FORM_UNKNOWN;
    FILE *f = fopen(path, "rb");
    if (!f) return NPUC_FORM_UNKNOWN;
    uint8_t b[8] = {0};
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return npuc_probe_memory(b, n);
}

/* ------------------------------------------------------------------- open */

static char *dup_str(const char *s, bool *oom)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *oom = true;
    return d;
}

static int open_model(npuc_model *m, const char *path, const void *data, size_t size, const npuc_target_spec *t,
                      const npuc_open_options *o, const npuc_open_system *sys, npuc_err *err)
{
    int rc;
    m->open_spec = t;
    bool oom = false;
    m->name = dup_str(o->name ? o->name : path, &oom);
    if (oom) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (sys && sys->sys) {
        m->have_sys = true;
        m->given_sys = *sys->sys;
        m->given_variant = sys->sys_variant;
    }
    m->keep_tensors = o->keep_tensors;
    /* the bytes, 16-byte aligned and zero-padded (compiled models need the alignment) */
    if (path) {
        uint8_t *d;
        if ((rc = npuc_read_file(path, &d, &m->blob_size, err))) return rc;
        m->blob = api_alloc16(m->blob_size);
        if (m->blob) memcpy(m->blob, d, m->blob_size);
        free(d);
    } else {
        if (!data) return npuc_errf(err, NPUC_E_USAGE, "npuc_model_open_memory: no data");
        m->blob_size = size;
        m->blob = api_alloc16(size);
        if (m->blob) memcpy(m->blob, data, size);
    }
    if (!m->blob) return npuc_errf(err, NPUC_E_NOMEM, "out of memory (%zu bytes)", m->blob_size);
    m->form = npuc_probe_memory(m->blob, m->blob_size);
    bool reloc_opt = o->install != NPUC_INSTALL_XIP || o->install_clear || o->params_path || o->params ||
                     o->public_key || o->public_key_path;
    if (m->form != NPUC_FORM_RELOC && reloc_opt)
        return npuc_errf(err, NPUC_E_USAGE, "install, params and public key options apply to loadable models "
                                            "(_rel.bin) only");
    if ((m->form == NPUC_FORM_NPRT || m->form == NPUC_FORM_RELOC) && o->npu_only)
        return npuc_errf(err, NPUC_E_USAGE, "npu_only applies to TFLite models only");
    if (m->form == NPUC_FORM_NPRT || m->form == NPUC_FORM_RELOC) return api_open_compiled(m, o, path, err);
    /* anything else is read as TFLite (its reader names what is wrong) */
    m->form = NPUC_FORM_TFLITE;
    return api_open_tflite(m, o, err);
}

int npuc_model_open_ext(const char *path, const void *data, size_t size, const npuc_target_spec *target,
                        const npuc_open_options *opt, const npuc_open_system *sys, npuc_model **out)
{
    if (!out) return api_usage("npuc_model_open: no place for the model (out is NULL)");
    *out = NULL;
    npuc_open_options none;
    memset(&none, 0, sizeof none);
    npuc_err err = {0};
    npuc_model *m = calloc(1, sizeof *m);
    if (!m) return api_result(npuc_errf(&err, NPUC_E_NOMEM, "out of memory"), &err);
    m->ready = true;
    int rc = open_model(m, path, data, size, target, opt ? opt : &none, sys, &err);
    m->open_spec = NULL;
    if (rc) {
        npuc_model_close(&m);
        return api_result(rc, &err);
    }
    *out = m;
    return api_result(NPUC_OK, NULL);
}

int npuc_model_open_file(const char *path, const npuc_target_spec *target, const npuc_open_options *opt,
                         npuc_model **out)
{
    if (!path) {
        if (out) *out = NULL;
        return api_usage("npuc_model_open_file: no path");
    }
    return npuc_model_open_ext(path, NULL, 0, target, opt, NULL, out);
}

int npuc_model_open_memory(const void *data, size_t size, const npuc_target_spec *target,
                           const npuc_open_options *opt, npuc_model **out)
{
    return npuc_model_open_ext(NULL, data, size, target, opt, NULL, out);
}

void npuc_model_close(npuc_model **mp)
{
    npuc_model *m = mp ? *mp : NULL;
    if (!m) return;
    *mp = NULL;
    if (m->form == NPUC_FORM_TFLITE) api_close_tflite(m);
    else api_close_compiled(m);
    for (uint32_t i = 0; m->in && i < m->n_in; i++) free(m->in[i].value);
    free(m->in);
    free(m->out);
    free(m->streams);
    free(m->ops);
    free(m->eprof);
    free(m->blob);
    free(m->params);
    free(m->name);
    free(m);
}

/* ------------------------------------------------------------------ info */

int npuc_model_get_info(const npuc_model *m, npuc_model_info *out)
{
    if (!m || !out) return api_usage("npuc_model_get_info: NULL argument");
    memset(out, 0, sizeof *out);
    out->form = m->form;
    out->npu = m->npu_name;
    out->system_config = m->sys_name;
    out->core_clock_hz = m->core_clock_hz;
    out->macs_per_cycle = m->macs_per_cycle;
    if (m->form == NPUC_FORM_TFLITE) {
        out->name = m->g->name ? m->g->name : "";
        out->n_ops = (uint32_t)m->g->n_ops;
        out->n_ethosu_ops = m->n_ethosu;
        out->command_stream_bytes = m->ethosu_cs_bytes;
        out->activations_size = interp_arena_size(m->ip);
    } else {
        const npurt_model *mp = m->mp;
        out->name = npurt_model_name(mp);
        out->n_epochs = mp->h->n_epochs;
        for (uint32_t i = 0; i < mp->h->n_epochs; i++) out->n_hw_epochs += mp->epochs[i].kind == NPURT_EPOCH_HW;
        out->activations_size = npurt_model_pool_size(mp, NPURT_POOL_ACTIVATIONS);
        out->params_size = npurt_model_pool_size(mp, NPURT_POOL_PARAMS);
        out->fast_size = npurt_model_pool_size(mp, NPURT_POOL_FAST);
        out->state_size = npurt_model_pool_size(mp, NPURT_POOL_STATE);
        if (m->ri) {
            out->install = (m->ri->mode & 0xFFu) == NPURT_RELOC_COPY ? NPUC_INSTALL_COPY : NPUC_INSTALL_XIP;
            out->install_clear = (m->ri->mode & NPURT_RELOC_CLEAR) != 0;
            out->exec_ram_used = m->ri->ram_used;
            out->n_relocs = m->ri->n_relocs;
        }
    }
    return api_result(NPUC_OK, NULL);
}

const char *npuc_dtype_name(npuc_dtype t) { return graph_dtype_name((graph_dtype)t); }

/* --------------------------------------------------------- inputs, outputs */

uint32_t npuc_input_count(const npuc_model *m) { return m ? m->n_in : 0; }
uint32_t npuc_output_count(const npuc_model *m) { return m ? m->n_out : 0; }

static int io_info(const npuc_model *m, uint32_t i, bool input, npuc_tensor_info *out)
{
    const char *what = input ? "input" : "output";
    if (!m || !out) return api_usage("npuc_%s_info: NULL argument", what);
    uint32_t n = input ? m->n_in : m->n_out;
    if (i >= n) return api_usage("%s %u does not exist: the model has %u %ss", what, i, n, what);
    *out = (input ? m->in : m->out)[i].info;
    return api_result(NPUC_OK, NULL);
}

int npuc_input_info(const npuc_model *m, uint32_t i, npuc_tensor_info *out) { return io_info(m, i, true, out); }
int npuc_output_info(const npuc_model *m, uint32_t i, npuc_tensor_info *out) { return io_info(m, i, false, out); }

int npuc_set_input(npuc_model *m, uint32_t i, const void *data, size_t size)
{
    if (!m || (!data && size)) return api_usage("npuc_set_input: NULL argument");
    if (i >= m->n_in) return api_usage("input %u does not exist: the model has %u inputs", i, m->n_in);
    api_io *io = &m->in[i];
    if (size != io->info.size)
        return api_usage("input %u ('%s') is %zu bytes, not %zu", i, io->info.name, io->info.size, size);
    if (!io->value) {
        io->value = malloc(size ? size : 1);
        if (!io->value) {
            npuc_err err = {0};
            return api_result(npuc_errf(&err, NPUC_E_NOMEM, "out of memory"), &err);
        }
    }
    if (size) memcpy(io->value, data, size);
    return api_result(NPUC_OK, NULL);
}

const void *npuc_output(const npuc_model *m, uint32_t i, size_t *size)
{
    if (size) *size = 0;
    if (!m || !m->ran || i >= m->n_out) return NULL;
    const void *d;
    if (m->form == NPUC_FORM_TFLITE) d = interp_output(m->ip, (int32_t)i, NULL);
    else d = npurt_output(m->rt, i, NULL);
    if (d && size) *size = m->out[i].info.size;
    return d;
}

int npuc_get_output(const npuc_model *m, uint32_t i, void *data, size_t size)
{
    if (!m || (!data && size)) return api_usage("npuc_get_output: NULL argument");
    if (i >= m->n_out) return api_usage("output %u does not exist: the model has %u outputs", i, m->n_out);
    if (!m->ran) return api_usage("no outputs yet: the model has not run");
    if (size != m->out[i].info.size)
        return api_usage("output %u ('%s') is %zu bytes, not %zu", i, m->out[i].info.name, m->out[i].info.size,
                         size);
    size_t n;
    const void *d = npuc_output(m, i, &n);
    if (size) memcpy(data, d, size);
    return api_result(NPUC_OK, NULL);
}

/* -------------------------------------------------------------------- run */

int npuc_run(npuc_model *m, const npuc_run_options *opt)
{
    if (!m) return api_usage("npuc_run: no model (NULL)");
    for (uint32_t i = 0; i < m->n_in; i++)
        if (!m->in[i].value)
            return api_usage("%s%sinput %u ('%s') has not been set (npuc_set_input)", m->name ? m->name : "",
                             m->name ? ": " : "", i, m->in[i].info.name);
    npuc_run_options none;
    memset(&none, 0, sizeof none);
    m->run = opt ? opt : &none;
    m->ran = false;
    m->ready = true;
    api_profile_reset(m);
    npuc_err err = {0};
    int rc = m->form == NPUC_FORM_TFLITE ? api_run_tflite(m, &err) : api_run_compiled(m, &err);
    m->run = NULL;
    m->ran = rc == NPUC_OK;
    return api_result(rc, &err);
}

bool npuc_outputs_ready(const npuc_model *m) { return m && m->ran && m->ready; }

void api_trace_line(void *user, const char *line)
{
    npuc_model *m = user;
    if (!m->run || !m->run->trace) return;
    npuc_event ev = {.kind = NPUC_EVENT_COMMAND, .index = -1, .text = line};
    m->run->trace(m->run->trace_user, &ev);
}

void api_event(npuc_model *m, npuc_event_kind kind, int32_t index)
{
    if (!m->run || !m->run->trace) return;
    npuc_event ev = {.kind = kind, .index = index, .text = NULL};
    m->run->trace(m->run->trace_user, &ev);
}

/* ---------------------------------------------------------------- epochs */

uint32_t npuc_epoch_count(const npuc_model *m)
{
    return m && m->form != NPUC_FORM_TFLITE ? m->mp->h->n_epochs : 0;
}

int npuc_epoch_info_get(const npuc_model *m, uint32_t i, npuc_epoch_info *out)
{
    if (!m || !out) return api_usage("npuc_epoch_info_get: NULL argument");
    uint32_t n = npuc_epoch_count(m);
    if (i >= n) return api_usage("epoch %u does not exist: the model has %u epochs", i, n);
    const npurt_epoch_rec *e = &m->mp->epochs[i];
    memset(out, 0, sizeof *out);
    out->kind = (npuc_epoch_kind)e->kind;
    out->first_op = e->first_op;
    out->n_ops = e->n_ops;
    if (e->kind == NPURT_EPOCH_HW) {
        out->cmd_size = e->cmd_size;
        out->est_cycles = e->est_cycles;
    } else {
        out->kernel = k_op_name(e->kernel);
    }
    return api_result(NPUC_OK, NULL);
}

int npuc_get_profile(const npuc_model *m, const npuc_profile **out)
{
    if (!m || !out) return api_usage("npuc_get_profile: NULL argument");
    *out = &m->prof;
    return api_result(NPUC_OK, NULL);
}
