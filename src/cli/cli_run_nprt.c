/* npuc run on a compiled model (.nprt): the npuc runtime walks its epochs,
 * HW epochs go through the ethos-u driver to a virtual NPU (the host device
 * backend), SW epochs run the prepared reference kernels. The same code
 * path an MCU application takes, end to end. */
#include "cli.h"
#include "cli_run_int.h"
#include "../driver/host/ethosu_host.h"
#include "../runtime/host/npurt_host.h"
#include "../kernels/k_op.h"
#include "npurt/npurt.h"
#include "npurt/reloc.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True for both compiled-model forms: the NPRT container and the
 * runtime-loadable NPRL file. */
bool cli_is_nprt(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint8_t b[4] = {0};
    size_t n = fread(b, 1, 4, f);
    fclose(f);
    uint32_t magic = (uint32_t)(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24);
    return n == 4 && (magic == NPURT_MAGIC || magic == NPURL_MAGIC);
}

/* A graph_tensor view of a runtime tensor record, for the input readers and
 * the output printer. */
static void as_graph_tensor(const npurt_model *m, const npurt_tensor_rec *r, graph_tensor *t, float *scale,
                            int64_t *zp)
{
    memset(t, 0, sizeof *t);
    t->name = (char *)npurt_model_string(m, r->name_off);
    t->dtype = npurt_host_graph_dtype(r->dtype);
    t->rank = r->rank;
    for (uint32_t d = 0; d < r->rank; d++) t->shape[d] = r->shape[d];
    t->nbytes = r->size;
    t->producer = -1;
    t->arena_offset = -1;
    if (r->scale != 0.0f) {
        *scale = r->scale;
        *zp = r->zero_point;
        t->q.n = 1;
        t->q.scale = scale;
        t->q.zero_point = zp;
    }
}

static void *alloc16(size_t n)
{
    size_t sz = (n + 15) / 16 * 16;
    void *p = aligned_alloc(16, sz ? sz : 16);
    if (p) memset(p, 0, sz ? sz : 16);
    return p;
}

static const char *epoch_kind(uint8_t k)
{
    return k == NPURT_EPOCH_HW ? "HW" : k == NPURT_EPOCH_SW ? "SW" : "HYBRID";
}

static void print_profile(const npurt_model *m, const npurt_epoch_profile *p, uint32_t n)
{
    printf("\nepoch  kind    work                 graph ops   pre us     run us    post us   NPU cycles  estimate\n");
    uint64_t tot_npu = 0, tot_est = 0;
    double tot_cpu = 0;
    for (uint32_t i = 0; i < n; i++) {
        const npurt_epoch_rec *e = &m->epochs[i];
        char work[32], ops[32];
        if (e->kind == NPURT_EPOCH_HW) snprintf(work, sizeof work, "command stream %uB", e->cmd_size);
        else snprintf(work, sizeof work, "%s", k_op_name(e->kernel) ? k_op_name(e->kernel) : "?");
        snprintf(ops, sizeof ops, e->n_ops > 1 ? "%u-%u" : "%u", e->first_op, e->first_op + e->n_ops - 1);
        char est[24] = "";
        if (e->kind == NPURT_EPOCH_HW) {
            snprintf(est, sizeof est, "%u", e->est_cycles);
            tot_npu += p[i].npu_cycles;
            tot_est += e->est_cycles;
        } else {
            tot_cpu += (double)p[i].hw / 1e3;
        }
        printf("%5u  %-6s  %-20s %-10s %8.1f %10.1f %10.1f %12llu %9s\n", i, epoch_kind(e->kind), work, ops,
               (double)p[i].pre / 1e3, (double)p[i].hw / 1e3, (double)p[i].post / 1e3,
               (unsigned long long)p[i].npu_cycles, est);
    }
    printf("total: NPU %llu cycles (compiler estimate %llu), CPU kernels %.1f us on this host\n",
           (unsigned long long)tot_npu, (unsigned long long)tot_est, tot_cpu);
}

/* Installs a runtime-loadable model the way an application does: header
 * info, exec RAM of the size it asks for, install with the mode given. */
static int reloc_install(const cli_run_args *a, const uint8_t *file, size_t size, npurt_reloc_instance *ri,
                         uint8_t **exec_ram, uint8_t **params, npuc_err *err)
{
    npurt_reloc_info info;
    npurt_error e = {0};
    char msg[512];
    if (npurt_reloc_get_info(file, size, &info, &e)) {
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        return npuc_errf(err, NPUC_E_FORMAT, "%s: %s", a->model, msg);
    }
    npurt_reloc_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = (a->install_copy ? NPURT_RELOC_COPY : NPURT_RELOC_XIP) | (a->install_clear ? NPURT_RELOC_CLEAR : 0);
    size_t psize = 0;
    if (info.flags & NPURL_F_SPLIT) {
        char path[4096];
        if (a->params_path) snprintf(path, sizeof path, "%s", a->params_path);
        else cli_params_path(a->model, path, sizeof path);
        int rc = cli_read_aligned(path, params, &psize, err);
        if (rc) return npuc_err_prefix(err, "%s is split: its params file", a->model), rc;
        if (psize > UINT32_MAX) return npuc_errf(err, NPUC_E_FORMAT, "%s: params file too large", path);
        cfg.ext_params = *params;
        cfg.ext_params_size = (uint32_t)psize;
    } else if (a->params_path) {
        return npuc_errf(err, NPUC_E_USAGE, "%s is not split: --params does not apply", a->model);
    }
    uint8_t key[32];
    if (a->public_key_path) {
        uint8_t *k;
        size_t kn;
        int rc = npuc_read_file(a->public_key_path, &k, &kn, err);
        if (rc) return rc;
        if (kn != 32) {
            free(k);
            return npuc_errf(err, NPUC_E_FORMAT, "%s: an Ed25519 public key is 32 bytes, this file has %zu",
                             a->public_key_path, kn);
        }
        memcpy(key, k, 32);
        free(k);
        cfg.public_key = key;
    }
    uint32_t need = (cfg.mode & 0xFFu) == NPURT_RELOC_COPY ? info.ram_copy : info.ram_xip;
    *exec_ram = alloc16(need);
    if (!*exec_ram) return npuc_errf(err, NPUC_E_NOMEM, "out of memory (%u bytes of exec RAM)", need);
    cfg.exec_ram = *exec_ram;
    cfg.exec_ram_size = need;
    if (npurt_reloc_install(file, size, &cfg, ri, &e)) {
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        return npuc_errf(err, e.code == NPURT_E_ARG ? NPUC_E_USAGE : NPUC_E_FORMAT, "%s: install: %s", a->model, msg);
    }
    return NPUC_OK;
}

int cli_run_nprt(const cli_run_args *a)
{
    npuc_err err = {0};
    uint8_t *file = NULL, *blob = NULL, *act = NULL, *state = NULL, *fast = NULL, *inbuf = NULL, *outbuf = NULL;
    size_t size = 0;
    ethosu_host_npu *hnpu = NULL;
    struct ethosu_driver drv;
    bool drv_up = false, mapped = false;
    npurt_epoch_profile *prof = NULL;
    int code = CLI_OK;
    npurt_model model, *mp = &model;
    npurt_instance instance, *ip = &instance;
    npurt_reloc_instance *ri = NULL;
    uint8_t *exec_ram = NULL, *params = NULL;
    npurt_error e = {0};
    char msg[512];

    if (a->dump) return cli_usage_error("run", "--dump-tensors works on .tflite models only");
    int rc = cli_read_aligned(a->model, &blob, &size, &err);
    if (rc) return cli_fail(&err);
    (void)file;
    bool reloc = size >= 4 && blob[0] == 'N' && blob[1] == 'P' && blob[2] == 'R' && blob[3] == 'L';
    if (reloc) {
        ri = calloc(1, sizeof *ri);
        if (!ri) {
            npuc_errf(&err, NPUC_E_NOMEM, "out of memory");
            goto fail;
        }
        if ((rc = reloc_install(a, blob, size, ri, &exec_ram, &params, &err))) goto fail;
        mp = &ri->model;
        ip = &ri->rt;
    } else if (a->install_copy || a->install_clear || a->params_path || a->public_key_path) {
        code = cli_usage_error("run", "--install, --clear, --params and --public-key work on loadable models (_rel.bin) only");
        goto out;
    } else if (npurt_model_load(mp, blob, size, &e)) {
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        npuc_errf(&err, NPUC_E_FORMAT, "%s: %s", a->model, msg);
        goto fail;
    }
    uint32_t n_in = npurt_model_n_inputs(mp), n_out = npurt_model_n_outputs(mp);
    if ((uint32_t)a->n_inputs > n_in || ((uint32_t)a->n_inputs < n_in && !a->random_input)) {
        code = cli_usage_error("run", "model has %u input%s but %d --input given%s", n_in, n_in == 1 ? "" : "s",
                               a->n_inputs,
                               (uint32_t)a->n_inputs < n_in ? " (use --random-input to fill the rest)" : "");
        goto out;
    }
    /* the target: the flags, else the record npuc wrote into the model,
     * else the NPU its command streams need */
    target_found tf;
    target_find_in_compiled(mp->blob, mp->size, &tf);
    target_desc rec, tgt;
    bool have_rec, have_var;
    sim_variant mv;
    if (target_found_parse(&tf, a->model, &rec, &have_rec, &mv, &have_var, &err)) goto fail;
    if ((code = cli_target_resolve("run", a->target, have_rec ? &rec : NULL, have_var ? &mv : NULL, &tgt))) goto out;
    if (mp->h->npu_config) {
        if ((rc = ethosu_host_npu_create(tgt.variant, &tgt.sim, &hnpu, &err))) goto fail;
        if (ethosu_host_driver_init(&drv, hnpu, NULL, 0) != 0) {
            npuc_errf(&err, NPUC_E_RUNTIME, "ethosu_init failed on the virtual NPU");
            goto fail;
        }
        drv_up = true;
        if (a->trace) sim_npu_set_trace(ethosu_host_npu_sim(hnpu), a->trace_fn, NULL);
    }
    uint32_t act_size = npurt_model_pool_size(mp, NPURT_POOL_ACTIVATIONS);
    uint32_t state_size = npurt_model_pool_size(mp, NPURT_POOL_STATE);
    uint32_t fast_size = npurt_model_pool_size(mp, NPURT_POOL_FAST);
    if (!reloc) {
        act = alloc16(act_size);
        state = alloc16(state_size);
        fast = alloc16(fast_size);
        if (!act || !state || !fast) {
            npuc_errf(&err, NPUC_E_NOMEM, "out of memory (%u activation bytes)", act_size);
            goto fail;
        }
        /* a model with a fast scratch pool gets memory of its own for it */
        npurt_memory mem = {.activations = act, .activations_size = act_size, .state = state, .state_size = state_size,
                            .fast = fast_size ? fast : NULL, .fast_size = fast_size};
        if (npurt_init(ip, mp, &mem, &e)) {
            npurt_host_error_text(mp, &e, msg, sizeof msg);
            npuc_errf(&err, NPUC_E_INVALID, "%s: %s", a->model, msg);
            goto fail;
        }
    }
    ip->drv = drv_up ? &drv : NULL;
    ip->wait = a->poll ? NPURT_WAIT_POLL : NPURT_WAIT_IRQ;
    if (a->profile) {
        prof = calloc(mp->h->n_epochs + 1u, sizeof *prof);
        ip->profile = prof;
        ip->profile_cap = mp->h->n_epochs;
    }
    if (drv_up) {
        if ((rc = npurt_host_map(ip, &err))) goto fail;
        mapped = true;
    }
    npuc_rng rng;
    npuc_rng_seed(&rng, a->seed);
    for (uint32_t i = 0; i < n_in; i++) {
        graph_tensor t;
        float sc;
        int64_t zp;
        as_graph_tensor(mp, npurt_model_input(mp, i), &t, &sc, &zp);
        uint32_t n;
        uint8_t *dst = npurt_input(ip, i, &n);
        if (i < (uint32_t)a->n_inputs) {
            if ((rc = cli_read_input(a->inputs[i], &t, &inbuf, &err))) {
                npuc_err_prefix(&err, "input %u", i);
                goto fail;
            }
            memcpy(dst, inbuf, n);
            free(inbuf);
            inbuf = NULL;
        } else {
            cli_fill_random(&rng, &t, dst);
        }
    }
    const int run_rc = reloc ? npurt_reloc_run(ri) : npurt_run(ip);
    if (run_rc == NPURT_NOT_READY)
        fprintf(stderr, "note: %s: outputs not ready: an op (CIRCULAR_BUFFER off its period) ended the run early\n",
                a->model);
    else if (run_rc) {
        npurt_host_error_text(mp, &ip->err, msg, sizeof msg);
        char npu_msg[256] = "";
        if (hnpu) ethosu_host_npu_error(hnpu, npu_msg, sizeof npu_msg);
        npuc_errf(&err, NPUC_E_RUNTIME, "%s: %s%s%s", a->model, msg, *npu_msg ? ": " : "", npu_msg);
        goto fail;
    }
    if (a->output) {
        size_t total = 0, o = 0;
        for (uint32_t i = 0; i < n_out; i++) total += npurt_model_output(mp, i)->size;
        outbuf = malloc(total ? total : 1);
        if (!outbuf) {
            npuc_errf(&err, NPUC_E_NOMEM, "out of memory");
            goto fail;
        }
        for (uint32_t i = 0; i < n_out; i++) {
            uint32_t n;
            const void *d = npurt_output(ip, i, &n);
            memcpy(outbuf + o, d, n);
            o += n;
        }
        if ((rc = npuc_write_file(a->output, outbuf, total, &err))) goto fail;
    }
    if (!a->quiet) {
        uint32_t hw = 0;
        for (uint32_t i = 0; i < mp->h->n_epochs; i++) hw += mp->epochs[i].kind == NPURT_EPOCH_HW;
        printf("model %s (%s): %u epochs (%u HW, %u CPU) on the npuc runtime, activations %u bytes\n", a->model,
               npurt_model_name(mp), mp->h->n_epochs, hw, mp->h->n_epochs - hw, act_size);
        if (reloc)
            printf("installed %s mode%s: %u bytes of exec RAM, %u relocations\n",
                   (ri->mode & 0xFFu) == NPURT_RELOC_COPY ? "COPY" : "XIP", ri->mode & NPURT_RELOC_CLEAR ? " + CLEAR" : "",
                   ri->ram_used, ri->n_relocs);
        for (uint32_t i = 0; i < n_out; i++) {
            graph_tensor t;
            float sc;
            int64_t zp;
            as_graph_tensor(mp, npurt_model_output(mp, i), &t, &sc, &zp);
            cli_print_output((int32_t)i, &t, npurt_output(ip, i, NULL));
        }
        if (prof) print_profile(mp, prof, mp->h->n_epochs);
    }
    goto out;
fail:
    code = cli_fail(&err);
out:
    if (mapped) npurt_host_unmap(ip);
    if (drv_up) ethosu_host_driver_deinit(&drv);
    ethosu_host_npu_free(hnpu);
    free(prof);
    free(inbuf);
    free(outbuf);
    free(act);
    free(state);
    free(fast);
    free(blob);
    free(ri);
    free(exec_ram);
    free(params);
    return code;
}
