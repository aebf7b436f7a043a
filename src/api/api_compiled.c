/* Compiled models (NPRT, loadable NPRL) on the npuc runtime: HW epochs go
 * through the ethos-u driver to a virtual NPU (the driver's host backend),
 * CPU epochs run the prepared kernels. The sequence an MCU application
 * follows: load (or install), bind pools, driver up, memory mapped, run. */
#include "api_int.h"
#include "runtime/host/npurt_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "NAME: " + the runtime's text for an npurt_error. */
static int runtime_error(const npuc_model *m, const npurt_model *mp, const npurt_error *e, int code, const char *what,
                         npuc_err *err)
{
    char msg[512];
    npurt_host_error_text(mp, e, msg, sizeof msg);
    return npuc_errf(err, code, "%s%s%s%s", m->name ? m->name : "", m->name ? ": " : "", what, msg);
}

/* "dir/x_rel.bin" -> "dir/x_params.bin" (any other name: NAME.params.bin). */
static void params_path(const char *model, char *out, size_t cap)
{
    size_t n = strlen(model);
    const char *suf = "_rel.bin";
    size_t k = strlen(suf);
    if (n >= k && !strcmp(model + n - k, suf)) snprintf(out, cap, "%.*s_params.bin", (int)(n - k), model);
    else snprintf(out, cap, "%s.params.bin", model);
}

/* A whole file into 16-byte aligned, zero-padded memory. */
static int read_aligned(const char *path, uint8_t **out, size_t *size, npuc_err *err)
{
    uint8_t *f;
    int rc = npuc_read_file(path, &f, size, err);
    if (rc) return rc;
    *out = api_alloc16(*size);
    if (*out) memcpy(*out, f, *size);
    free(f);
    return *out ? NPUC_OK : npuc_errf(err, NPUC_E_NOMEM, "out of memory");
}

static const char *subject(const npuc_model *m) { return m->name ? m->name : "the model"; }

/* The params of a split loadable model: from memory, a file given, or
 * NAME_params.bin beside the model file. */
static int reloc_params(npuc_model *m, const npuc_open_options *o, const char *path, bool split,
                        npurt_reloc_config *cfg, npuc_err *err)
{
    if (!split) {
        if (o->params || o->params_path)
            return npuc_errf(err, NPUC_E_USAGE, "%s is not split: it takes no params file", subject(m));
        return NPUC_OK;
    }
    if (o->params) {
        m->params_size = o->params_size;
        m->params = api_alloc16(o->params_size);
        if (!m->params) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        memcpy(m->params, o->params, o->params_size);
    } else if (o->params_path || path) {
        char p[4096];
        if (o->params_path) snprintf(p, sizeof p, "%s", o->params_path);
        else params_path(path, p, sizeof p);
        int rc = read_aligned(p, &m->params, &m->params_size, err);
        if (rc) return npuc_err_prefix(err, "%s is split: its params file", subject(m)), rc;
        if (m->params_size > UINT32_MAX) return npuc_errf(err, NPUC_E_FORMAT, "%s: params file too large", p);
    } else {
        return npuc_errf(err, NPUC_E_USAGE, "%s is split: its params file is needed", subject(m));
    }
    cfg->ext_params = m->params;
    cfg->ext_params_size = (uint32_t)m->params_size;
    return NPUC_OK;
}

static int public_key(const npuc_open_options *o, uint8_t key[32], npuc_err *err)
{
    if (o->public_key) {
        memcpy(key, o->public_key, 32);
        return NPUC_OK;
    }
    uint8_t *k;
    size_t kn;
    int rc = npuc_read_file(o->public_key_path, &k, &kn, err);
    if (rc) return rc;
    if (kn != 32) {
        free(k);
        return npuc_errf(err, NPUC_E_FORMAT, "%s: an Ed25519 public key is 32 bytes, this file has %zu",
                         o->public_key_path, kn);
    }
    memcpy(key, k, 32);
    free(k);
    return NPUC_OK;
}

/* Installs a loadable model the way an application does: header info,
 * exec RAM of the size it asks for, install in the mode given. */
static int reloc_install(npuc_model *m, const npuc_open_options *o, const char *path, npuc_err *err)
{
    npurt_reloc_info info;
    npurt_error e = {0};
    if (npurt_reloc_get_info(m->blob, m->blob_size, &info, &e))
        return runtime_error(m, NULL, &e, NPUC_E_FORMAT, "", err);
    npurt_reloc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = (o->install == NPUC_INSTALL_COPY ? NPURT_RELOC_COPY : NPURT_RELOC_XIP) |
               (o->install_clear ? NPURT_RELOC_CLEAR : 0);
    int rc = reloc_params(m, o, path, (info.flags & NPURL_F_SPLIT) != 0, &cfg, err);
    if (rc) return rc;
    uint8_t key[32];
    if (o->public_key || o->public_key_path) {
        if ((rc = public_key(o, key, err))) return rc;
        cfg.public_key = key;
    }
    uint32_t need = (cfg.mode & 0xFFu) == NPURT_RELOC_COPY ? info.ram_copy : info.ram_xip;
    m->exec_ram = api_alloc16(need);
    m->ri = calloc(1, sizeof *m->ri);
    if (!m->exec_ram || !m->ri) return npuc_errf(err, NPUC_E_NOMEM, "out of memory (%u bytes of exec RAM)", need);
    cfg.exec_ram = m->exec_ram;
    cfg.exec_ram_size = need;
    if (npurt_reloc_install(m->blob, m->blob_size, &cfg, m->ri, &e))
        return runtime_error(m, NULL, &e, e.code == NPURT_E_ARG ? NPUC_E_USAGE : NPUC_E_FORMAT, "install: ", err);
    m->mp = &m->ri->model;
    m->rt = &m->ri->rt;
    return NPUC_OK;
}

/* Pools of an NPRT model in memory of their own (a fast scratch pool too). */
static int bind_pools(npuc_model *m, npuc_err *err)
{
    uint32_t act = npurt_model_pool_size(m->mp, NPURT_POOL_ACTIVATIONS);
    uint32_t st = npurt_model_pool_size(m->mp, NPURT_POOL_STATE);
    uint32_t fa = npurt_model_pool_size(m->mp, NPURT_POOL_FAST);
    m->act = api_alloc16(act);
    m->state = api_alloc16(st);
    m->fast = api_alloc16(fa);
    if (!m->act || !m->state || !m->fast)
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory (%u activation bytes)", act);
    npurt_memory mem = {.activations = m->act, .activations_size = act, .state = m->state, .state_size = st,
                        .fast = fa ? m->fast : NULL, .fast_size = fa};
    npurt_error e = {0};
    if (npurt_init(m->rt, m->mp, &mem, &e)) return runtime_error(m, m->mp, &e, NPUC_E_INVALID, "", err);
    return NPUC_OK;
}

/* The virtual NPU + driver a model with HW epochs needs. */
static int driver_up(npuc_model *m, npuc_err *err)
{
    const npurt_model *mp = m->mp;
    bool any_hw = false;
    for (uint32_t i = 0; i < mp->h->n_epochs; i++) any_hw |= mp->epochs[i].kind == NPURT_EPOCH_HW;
    if (!any_hw || !mp->h->npu_config) return NPUC_OK;
    eu_variant v = m->target.variant;
    sim_system sys;
    api_model_system(m, &sys);
    int rc = ethosu_host_npu_create(v, &sys, &m->hnpu, err);
    if (rc) return rc;
    if (ethosu_host_driver_init(&m->drv, m->hnpu, NULL, 0) != 0)
        return npuc_errf(err, NPUC_E_RUNTIME, "ethosu_init failed on the virtual NPU");
    m->drv_up = true;
    api_note_npu(m, v, &sys);
    return NPUC_OK;
}

static void io_info(npuc_model *m, const npurt_tensor_rec *r, api_io *io)
{
    npuc_tensor_info *t = &io->info;
    memset(t, 0, sizeof *t);
    t->name = npurt_model_string(m->mp, r->name_off);
    t->dtype = (npuc_dtype)npurt_host_graph_dtype(r->dtype);
    t->rank = (int32_t)r->rank;
    for (uint32_t d = 0; d < r->rank && d < NPUC_MAX_RANK; d++) t->shape[d] = r->shape[d];
    t->size = r->size;
    t->kind = NPUC_TENSOR_ACTIVATION;
    if (r->scale != 0.0f) {
        io->scale = r->scale;
        io->zero_point = r->zero_point;
        t->quant_n = 1;
        t->scale = &io->scale;
        t->zero_point = &io->zero_point;
    }
}

int api_open_compiled(npuc_model *m, const npuc_open_options *o, const char *path, npuc_err *err)
{
    /* the target: the caller's spec, else the record the model carries,
     * else the NPU its command streams need (header npu_config) */
    int rc;
    if (m->form == NPUC_FORM_NPRT) {
        /* loaded (its checksum checked) before its target record is read:
         * a damaged file is named as such */
        m->mp = &m->model;
        m->rt = &m->inst;
        npurt_error e = {0};
        if (npurt_model_load(m->mp, m->blob, m->blob_size, &e))
            return runtime_error(m, NULL, &e, NPUC_E_FORMAT, "", err);
    }
    target_found found;
    target_find_in_compiled(m->blob, m->blob_size, &found);
    if ((rc = api_resolve_target(m, &found, NULL, err))) return rc;
    if (m->form == NPUC_FORM_RELOC && (rc = reloc_install(m, o, path, err))) return rc;
    const npurt_model *mp = m->mp;
    m->n_in = npurt_model_n_inputs(mp);
    m->n_out = npurt_model_n_outputs(mp);
    m->in = calloc(m->n_in + 1u, sizeof *m->in);
    m->out = calloc(m->n_out + 1u, sizeof *m->out);
    m->rprof = calloc(mp->h->n_epochs + 1u, sizeof *m->rprof);
    m->eprof = calloc(mp->h->n_epochs + 1u, sizeof *m->eprof);
    if (!m->in || !m->out || !m->rprof || !m->eprof) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n_in; i++) io_info(m, npurt_model_input(mp, i), &m->in[i]);
    for (uint32_t i = 0; i < m->n_out; i++) io_info(m, npurt_model_output(mp, i), &m->out[i]);
    if ((rc = driver_up(m, err))) return rc;
    if (m->form == NPUC_FORM_NPRT && (rc = bind_pools(m, err))) return rc;
    m->rt->drv = m->drv_up ? &m->drv : NULL;
    if (m->drv_up) {
        if ((rc = npurt_host_map(m->rt, err))) return rc;
        m->mapped = true;
    }
    return NPUC_OK;
}

void api_close_compiled(npuc_model *m)
{
    if (m->mapped) npurt_host_unmap(m->rt);
    if (m->drv_up) ethosu_host_driver_deinit(&m->drv);
    ethosu_host_npu_free(m->hnpu);
    if (m->ri && m->ri->installed == NPURT_RELOC_INSTALLED) npurt_reloc_uninstall(m->ri);
    free(m->ri);
    free(m->exec_ram);
    free(m->act);
    free(m->state);
    free(m->fast);
    free(m->rprof);
}

/* ------------------------------------------------------------------- run */

/* Run and epoch callbacks: the trace's stream events, and the profile of
 * each HW epoch's stream (the virtual NPU's operation records). */
static void on_event(void *user, int event, uint32_t epoch)
{
    npuc_model *m = user;
    if ((event != NPURT_CB_EPOCH_START && event != NPURT_CB_EPOCH_END) || epoch >= m->mp->h->n_epochs ||
        m->mp->epochs[epoch].kind != NPURT_EPOCH_HW || !m->hnpu)
        return;
    if (event == NPURT_CB_EPOCH_START) {
        api_event(m, NPUC_EVENT_STREAM_BEGIN, (int32_t)epoch);
        return;
    }
    if (m->run->profile) api_profile_stream(m, (int32_t)epoch, ethosu_host_npu_sim(m->hnpu), false);
    api_event(m, NPUC_EVENT_STREAM_END, (int32_t)epoch);
}

int api_run_compiled(npuc_model *m, npuc_err *err)
{
    const npuc_run_options *ro = m->run;
    npurt_instance *rt = m->rt;
    uint32_t n_ep = m->mp->h->n_epochs;
    for (uint32_t i = 0; i < m->n_in; i++) {
        uint32_t n = 0;
        void *dst = npurt_input(rt, i, &n);
        if (dst && n) memcpy(dst, m->in[i].value, n);
    }
    rt->wait = ro->poll ? NPURT_WAIT_POLL : NPURT_WAIT_IRQ;
    memset(m->rprof, 0, sizeof *m->rprof * (n_ep + 1u));
    rt->profile = ro->profile ? m->rprof : NULL;
    rt->profile_cap = ro->profile ? n_ep : 0;
    bool watch = ro->profile || ro->trace;
    npurt_set_callback(rt, watch ? on_event : NULL, m);
    if (m->hnpu) sim_npu_set_trace(ethosu_host_npu_sim(m->hnpu), ro->trace ? api_trace_line : NULL, m);
    int st = m->ri ? npurt_reloc_run(m->ri) : npurt_run(rt);
    npurt_set_callback(rt, NULL, NULL);
    if (m->hnpu) sim_npu_set_trace(ethosu_host_npu_sim(m->hnpu), NULL, NULL);
    rt->profile = NULL;
    if (ro->profile) {
        m->prof.epochs = m->eprof;
        m->prof.n_epochs = n_ep;
        for (uint32_t e = 0; e < n_ep; e++) {
            m->eprof[e].pre_ns = m->rprof[e].pre;
            m->eprof[e].run_ns = m->rprof[e].hw;
            m->eprof[e].post_ns = m->rprof[e].post;
            m->eprof[e].npu_cycles = m->rprof[e].npu_cycles;
        }
        for (size_t k = 0; k < m->prof.n_streams; k++)
            m->streams[k].pmu_cycles = m->rprof[m->streams[k].index].npu_cycles;
    }
    if (st == NPURT_NOT_READY) {
        m->ready = false;
        return NPUC_OK;
    }
    if (st) {
        char msg[512], npu_msg[256] = "";
        npurt_host_error_text(m->mp, &rt->err, msg, sizeof msg);
        if (m->hnpu) ethosu_host_npu_error(m->hnpu, npu_msg, sizeof npu_msg);
        return npuc_errf(err, NPUC_E_RUNTIME, "%s%s%s%s%s", m->name ? m->name : "", m->name ? ": " : "", msg,
                         *npu_msg ? ": " : "", npu_msg);
    }
    return NPUC_OK;
}
