/* TFLite models on the reference interpreter; their ethos-u ops (npuc's
 * _npu.tflite, Vela's output) run on a virtual NPU through its register
 * interface, as TFLite Micro with the Ethos-U driver would. Also the
 * tensor queries and the tensor dump. */
#include "api_int.h"
#include "interp/interp_ethosu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool accept_ethosu(void *user, const graph_op *op)
{
    (void)user;
    return interp_is_ethosu_op(op);
}

/* The virtual NPU, at the first ethos-u op: the resolved target's (by
 * default the NPU the model's streams were compiled for). */
static int create_npu(npuc_model *m, npuc_err *err)
{
    sim_system sys;
    api_model_system(m, &sys);
    int rc = sim_npu_create(m->target.variant, &sys, &m->npu, err);
    if (rc) return rc;
    api_note_npu(m, m->target.variant, &sys);
    return NPUC_OK;
}

/* npu_only: every op is taken; the ones that are not ethos-u ops are skipped. */
static bool accept_any(void *user, const graph_op *op)
{
    (void)user;
    (void)op;
    return true;
}

static int eval_ethosu(void *user, interp *ip, const graph_op *op, npuc_err *err)
{
    npuc_model *m = user;
    int rc;
    if (!interp_is_ethosu_op(op)) return NPUC_OK;   /* npu_only */
    if (!m->npu && (rc = create_npu(m, err))) return rc;
    bool trace = m->run && m->run->trace;
    api_event(m, NPUC_EVENT_STREAM_BEGIN, op->index);
    sim_npu_set_trace(m->npu, trace ? api_trace_line : NULL, m);
    api_pmu_setup(m->npu);
    if ((rc = interp_run_ethosu(m->npu, ip, op, err))) return rc;
    if (m->run && m->run->profile && (rc = api_profile_stream(m, op->index, m->npu, true)))
        return npuc_errf(err, rc, "out of memory");
    api_event(m, NPUC_EVENT_STREAM_END, op->index);
    return NPUC_OK;
}

static void tensor_info(const graph_tensor *t, npuc_tensor_info *ti)
{
    memset(ti, 0, sizeof *ti);
    ti->name = t->name ? t->name : "";
    ti->dtype = (npuc_dtype)t->dtype;
    ti->rank = t->rank;
    for (int32_t d = 0; d < t->rank && d < NPUC_MAX_RANK; d++) ti->shape[d] = t->shape[d];
    ti->size = t->nbytes;
    ti->quant_n = t->q.n;
    ti->scale = t->q.scale;
    ti->zero_point = t->q.zero_point;
    ti->quant_axis = t->q.axis;
    ti->kind = t->data ? NPUC_TENSOR_CONST
               : t->is_variable ? NPUC_TENSOR_STATE
               : t->producer < 0 ? NPUC_TENSOR_INPUT
                                 : NPUC_TENSOR_ACTIVATION;
}

int api_open_tflite(npuc_model *m, const npuc_open_options *o, npuc_err *err)
{
    int rc = tfl_read(m->blob, m->blob_size, &m->tm, err);
    if (!rc) rc = graph_import(m->tm, &m->g, err);
    if (rc) return api_prefix(m, err);
    interp_infer_shapes(m->g);
    /* the model keeps its own copy of everything it needs */
    free(m->blob);
    m->blob = NULL;
    const graph *g = m->g;
    /* the target: the caller's spec, else the record npuc wrote into the
     * model, else the NPU its first ethos-u op was compiled for (a payload
     * that cannot say is reported when the op runs) */
    bool have_var = false;
    eu_variant v;
    npuc_err ignored = {0};
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (!interp_is_ethosu_op(op)) continue;
        if (!m->n_ethosu++) have_var = interp_ethosu_variant(g, op, &v, &ignored) == NPUC_OK;
        /* input 0: the command stream */
        if (op->n_in > 0 && op->in[0] >= 0 && g->tensors[op->in[0]].data)
            m->ethosu_cs_bytes += g->tensors[op->in[0]].nbytes;
    }
    target_found found;
    target_find_in_tflite(m->tm, &found);
    if ((rc = api_resolve_target(m, &found, have_var ? &v : NULL, err))) return api_prefix(m, err);
    interp_options io = {.keep_all = o->keep_tensors, .custom_accept = o->npu_only ? accept_any : accept_ethosu,
                         .custom_eval = eval_ethosu, .custom_user = m, .custom_any = o->npu_only};
    if ((rc = interp_create(g, &io, &m->ip, err))) return rc;
    m->n_in = (uint32_t)g->n_inputs;
    m->n_out = (uint32_t)g->n_outputs;
    m->in = calloc(m->n_in + 1u, sizeof *m->in);
    m->out = calloc(m->n_out + 1u, sizeof *m->out);
    if (!m->in || !m->out) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n_in; i++) tensor_info(&g->tensors[g->inputs[i]], &m->in[i].info);
    for (uint32_t i = 0; i < m->n_out; i++) tensor_info(&g->tensors[g->outputs[i]], &m->out[i].info);
    return NPUC_OK;
}

void api_close_tflite(npuc_model *m)
{
    interp_free(m->ip);
    sim_npu_free(m->npu);
    graph_free(m->g);
    tfl_model_free(m->tm);
}

int api_run_tflite(npuc_model *m, npuc_err *err)
{
    for (uint32_t i = 0; i < m->n_in; i++) {
        int rc = interp_set_input(m->ip, (int32_t)i, m->in[i].value, m->in[i].info.size, err);
        if (rc) return rc;
    }
    int rc = interp_invoke(m->ip, err);
    if (rc) return rc;
    m->ready = !interp_not_ready(m->ip);
    return NPUC_OK;
}

/* ---------------------------------------------------------------- tensors */

uint32_t npuc_tensor_count(const npuc_model *m)
{
    return m && m->form == NPUC_FORM_TFLITE ? (uint32_t)m->g->n_tensors : 0;
}

int npuc_tensor_info_get(const npuc_model *m, uint32_t i, npuc_tensor_info *out)
{
    if (!m || !out) return api_usage("npuc_tensor_info_get: NULL argument");
    uint32_t n = npuc_tensor_count(m);
    if (i >= n) return api_usage("tensor %u does not exist: the model has %u tensors", i, n);
    tensor_info(&m->g->tensors[i], out);
    return api_result(NPUC_OK, NULL);
}

const void *npuc_tensor_data(const npuc_model *m, uint32_t i)
{
    if (i >= npuc_tensor_count(m)) return NULL;
    const graph_tensor *t = &m->g->tensors[i];
    if (t->data) return t->data;
    if (!m->keep_tensors || !m->ran) return NULL;
    return interp_tensor_data(m->ip, (int32_t)i);
}

/* ------------------------------------------------------------ tensor dump */

static void safe_name(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; in[i] && o + 1 < n && o < 60; i++) {
        char c = in[i];
        out[o++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
                       ? c
                       : '_';
    }
    out[o] = 0;
}

static void shape_str(const graph_tensor *t, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "[");
    for (int32_t i = 0; i < t->rank && o < n; i++) o += (size_t)snprintf(buf + o, n - o, "%s%d", i ? "," : "", t->shape[i]);
    if (o < n) snprintf(buf + o, n - o, "]");
}

static void tensor_file(const graph_tensor *t, int32_t i, char *file, size_t n)
{
    char sn[64];
    safe_name(t->name ? t->name : "", sn, sizeof sn);
    snprintf(file, n, "t%04d_%s.bin", i, sn);
}

/* Writes the tensors and the index into the empty directory tmp. */
static int dump_into(const npuc_model *m, const char *tmp, npuc_err *err)
{
    const graph *g = m->g;
    npuc_sbuf index = {0};
    npuc_sb_puts(&index, "# index name dtype shape scale zero_point kind file\n");
    int rc = NPUC_OK;
    for (int32_t i = 0; i < g->n_tensors && !rc; i++) {
        const graph_tensor *t = &g->tensors[i];
        const char *kind = t->data ? "const" : (t->is_variable ? "state" : (t->producer < 0 ? "input" : "activation"));
        bool unused = !t->data && !t->is_variable && t->producer < 0;
        for (int32_t k = 0; k < g->n_inputs; k++)
            if (g->inputs[k] == i) unused = false;
        if (unused) continue;
        char file[96], shape[96], path[4096];
        tensor_file(t, i, file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", tmp, file);
        shape_str(t, shape, sizeof shape);
        rc = npuc_write_file(path, interp_tensor_data(m->ip, i), t->nbytes, err);
        if (!rc)
            npuc_sb_printf(&index, "%d %s %s %s %g %lld %s %s\n", i, t->name && t->name[0] ? t->name : "-",
                           graph_dtype_name(t->dtype), shape, t->q.n ? (double)t->q.scale[0] : 0.0,
                           t->q.n ? (long long)t->q.zero_point[0] : 0LL, kind, file);
    }
    char *text = NULL;
    int src = npuc_sb_finish(&index, &text, rc ? NULL : err);
    if (!rc) rc = src;
    if (!rc) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tensors.txt", tmp);
        rc = npuc_write_file(path, text, strlen(text), err);
    }
    free(text);
    return rc;
}

/* Removes what dump_into may have written, and tmp. */
static void dump_remove(const graph *g, const char *tmp)
{
    char file[96], path[4096];
    for (int32_t i = 0; i < g->n_tensors; i++) {
        tensor_file(&g->tensors[i], i, file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", tmp, file);
        remove(path);
    }
    snprintf(path, sizeof path, "%s/tensors.txt", tmp);
    remove(path);
    rmdir(tmp);
}

static int dump_tensors(const npuc_model *m, const char *dir, npuc_err *err)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return npuc_errf(err, NPUC_E_IO, "%s exists and is not a directory", dir);
        if (rmdir(dir) != 0) return npuc_errf(err, NPUC_E_IO, "%s exists and is not empty", dir);
    }
    /* written into DIR.tmpPID, renamed to DIR when complete */
    size_t dl = strlen(dir) + 32;
    char *tmp = malloc(dl);
    if (!tmp) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    snprintf(tmp, dl, "%s.tmp%ld", dir, (long)getpid());
    if (mkdir(tmp, 0777) != 0) {
        int e = errno;
        free(tmp);
        return npuc_errf(err, NPUC_E_IO, "%s: cannot create directory: %s", dir, strerror(e));
    }
    int rc = dump_into(m, tmp, err);
    if (!rc && rename(tmp, dir) != 0) rc = npuc_errf(err, NPUC_E_IO, "%s: cannot create: %s", dir, strerror(errno));
    if (rc) dump_remove(m->g, tmp);
    free(tmp);
    return rc;
}

int npuc_dump_tensors(const npuc_model *m, const char *dir)
{
    if (!m || !dir) return api_usage("npuc_dump_tensors: NULL argument");
    if (m->form != NPUC_FORM_TFLITE) return api_usage("tensor dumps work on TFLite models only");
    if (!m->keep_tensors) return api_usage("tensor dumps need the model opened with keep_tensors");
    if (!m->ran) return api_usage("no tensors to dump yet: the model has not run");
    npuc_err err = {0};
    return api_result(dump_tensors(m, dir, &err), &err);
}
