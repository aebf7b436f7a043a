/* val_run: compile (or take) a deployed model, run it on the npuc runtime
 * over a virtual NPU and the source graph on the reference interpreter,
 * compare, and profile. See validate.h. */
#include "validate.h"
#include "../emit/emit.h"
#include "../interp/interp.h"
#include "../driver/host/ethosu_host.h"
#include "../runtime/host/npurt_host.h"
#include "../kernels/k_op.h"
#include "npurt/npurt.h"
#include "npurt/reloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vctx {
    const graph *g;
    const val_options *opt;
    val_report *r;
    cc_model *cm;               /* compiled here (or recompiled for op detail); may be NULL */
    bool detail;                /* cm's epochs are the running model's epochs */
    uint8_t *blob;              /* owned: emitted here or an aligned copy */
    size_t blob_size;
    npurt_model model;
    npurt_instance inst;
    npurt_reloc_instance *ri;
    uint8_t *exec_ram;
    npurt_model *mp;
    npurt_instance *ip;
    ethosu_host_npu *hnpu;
    struct ethosu_driver drv;
    bool drv_up, mapped;
    uint8_t *act, *state, *fast;
    npurt_epoch_profile *prof;
    /* filled by the epoch callback during a run */
    int capture_error;
    char capture_msg[200];
} vctx;

static void *alloc16(size_t n)
{
    size_t sz = (n + 15) / 16 * 16;
    void *p = aligned_alloc(16, sz ? sz : 16);
    if (p) memset(p, 0, sz ? sz : 16);
    return p;
}

static uint32_t macs_per_cycle(sim_variant v)
{
    switch (v) {
    case SIM_U55_32: return 32;
    case SIM_U55_64: return 64;
    case SIM_U55_128: return 128;
    case SIM_U55_256: return 256;
    case SIM_U65_256: return 256;
    case SIM_U65_512: return 512;
    }
    return 0;
}

/* Region r of an epoch's base pointers is params (0), activations (1) or
 * fast scratch (2) (npurt_run.c); anything else counts as activations. */
static int region_mem(uint8_t region)
{
    return region == 0 ? VAL_MEM_PARAMS : region == 2 ? VAL_MEM_FAST : VAL_MEM_ACTIVATIONS;
}

static void add_traffic(uint64_t *rd, uint64_t *wr, const sim_op_info *o)
{
    if (o->kind == SIM_K_DMA) {
        if (o->dma_src_region != 0xFF) rd[region_mem(o->dma_src_region)] += o->dma_bytes;
        if (o->dma_dst_region != 0xFF) wr[region_mem(o->dma_dst_region)] += o->dma_bytes;
        return;
    }
    rd[region_mem(o->ifm_region)] += o->ifm_bytes;
    if (o->ifm2_tensor) rd[region_mem(o->ifm2_region)] += o->ifm2_bytes;
    rd[region_mem(o->weight_region)] += o->weight_bytes;
    rd[region_mem(o->scale_region)] += o->scale_bytes;
    wr[region_mem(o->ofm_region)] += o->ofm_bytes;
}

/* After each HW epoch: the NPU's records of the stream it just ran, summed
 * per epoch and (with detail) per graph op. A DMA belongs to the kernel
 * operation that follows it (it brings that operation's weights). */
static void on_event(void *user, int event, uint32_t epoch)
{
    vctx *c = user;
    if (event != NPURT_CB_EPOCH_END || !c->hnpu || epoch >= c->mp->h->n_epochs) return;
    if (c->mp->epochs[epoch].kind != NPURT_EPOCH_HW) return;
    size_t n = 0;
    const sim_op_info *rec = sim_npu_ops(ethosu_host_npu_sim(c->hnpu), &n);
    val_epoch *ve = &c->r->epochs[epoch];
    for (size_t k = 0; k < n; k++) add_traffic(ve->bytes_read, ve->bytes_written, &rec[k]);
    if (!c->detail) return;
    const cc_epoch *ce = &c->cm->epochs[epoch];
    size_t n_kernel = 0;
    for (size_t k = 0; k < n; k++) n_kernel += rec[k].kind != SIM_K_DMA;
    if (n_kernel != (size_t)ce->n_eu) {
        if (!c->capture_error)
            snprintf(c->capture_msg, sizeof c->capture_msg,
                     "epoch %u ran %zu NPU operations, the compiler planned %d", epoch, n_kernel, ce->n_eu);
        c->capture_error = 1;
        return;
    }
    size_t next = 0;   /* index of the next kernel op among the epoch's eu ops */
    for (size_t k = 0; k < n; k++) {
        /* the graph op of this record: its own (kernel) or the next kernel's (DMA) */
        size_t j = next;
        if (rec[k].kind != SIM_K_DMA) next++;
        if (j >= (size_t)ce->n_eu) j = (size_t)ce->n_eu - 1;
        int32_t src = ce->ops[j].src_op;
        if (src < 0 || src >= c->r->n_ops) continue;
        val_op *vo = &c->r->ops[src];
        vo->npu_cycles += rec[k].cycles;
        add_traffic(vo->bytes_read, vo->bytes_written, &rec[k]);
    }
}

static void fill_memory_plan(vctx *c)
{
    val_report *r = c->r;
    const cc_model *m = c->cm;
    const graph *g = c->g;
    r->buffers = calloc((size_t)m->n_bufs + 1, sizeof *r->buffers);
    r->live = calloc((size_t)g->n_ops + 1, sizeof *r->live);
    if (!r->buffers || !r->live) {
        free(r->buffers);
        free(r->live);
        r->buffers = NULL;
        r->live = NULL;
        return;
    }
    /* live bytes per step of the allocation timeline; an op shows the most
     * live at any of its steps (the members of a cascade share its steps) */
    int32_t n_steps = 0;
    for (int32_t i = 0; i < g->n_ops; i++) n_steps += cc_op_steps(m, i);
    uint64_t *step_live = calloc((size_t)n_steps + 1, sizeof *step_live);
    uint64_t *step_fast = calloc((size_t)n_steps + 1, sizeof *step_fast);
    int32_t *op_t0 = calloc((size_t)g->n_ops + 1, sizeof *op_t0);
    if (!step_live || !step_fast || !op_t0) {
        free(step_live);
        free(step_fast);
        free(op_t0);
        free(r->buffers);
        free(r->live);
        r->buffers = NULL;
        r->live = NULL;
        return;
    }
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (x->offset < 0 || (x->temp && !x->size)) continue;   /* a dropped weight copy */
        val_buffer *vb = &r->buffers[r->n_buffers++];
        vb->tensor = x->temp ? -1 : x->tensor;
        if (x->tensor >= 0 && x->tensor < g->n_tensors)
            snprintf(vb->name, sizeof vb->name, "%s%s", x->temp ? "temp of " : "", g->tensors[x->tensor].name);
        else snprintf(vb->name, sizeof vb->name, "temp %d", b);
        vb->pool = x->pool == CC_IN_FAST ? VAL_MEM_FAST : VAL_MEM_ACTIVATIONS;
        vb->offset = (uint64_t)x->offset;
        vb->size = x->size;
        vb->first_op = cc_step_op(m, x->first);
        vb->last_op = cc_step_op(m, x->last);
        if (vb->last_op < vb->first_op) vb->last_op = vb->first_op;
        int32_t a = x->first < 0 ? 0 : x->first, z = x->last >= n_steps ? n_steps - 1 : x->last;
        uint64_t *live = x->pool == CC_IN_FAST ? step_fast : step_live;
        for (int32_t t = a; t <= z; t++) live[t] += x->size;
    }
    for (int32_t i = 0, t = 0; i < g->n_ops; i++) {
        op_t0[i] = t;
        t += cc_op_steps(m, i);
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        int32_t o = m->ops[i].cascade >= 0 ? m->ops[i].cascade : i;
        int32_t n = cc_op_steps(m, o);
        for (int32_t t = op_t0[o]; t < op_t0[o] + n && t < n_steps; t++)
            if (step_live[t] > r->live[i]) r->live[i] = step_live[t];
    }
    uint64_t fast_peak = 0;
    for (int32_t t = 0; t < n_steps; t++)
        if (step_fast[t] > fast_peak) fast_peak = step_fast[t];
    if (fast_peak) r->pools[VAL_MEM_FAST].peak = fast_peak;
    free(step_live);
    free(step_fast);
    free(op_t0);
    uint64_t peak = 0;
    for (int32_t i = 0; i < g->n_ops; i++)
        if (r->live[i] > peak) peak = r->live[i];
    r->pools[VAL_MEM_ACTIVATIONS].peak = peak;
}

/* Does the compiled model's epoch list equal the one cc_model planned? */
static bool same_structure(const cc_model *cm, const npurt_model *mp, char *why, size_t cap)
{
    if ((uint32_t)cm->n_epochs != mp->h->n_epochs) {
        snprintf(why, cap, "it has %u epochs, compiling the model here gives %d", mp->h->n_epochs, cm->n_epochs);
        return false;
    }
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        const cc_epoch *a = &cm->epochs[i];
        const npurt_epoch_rec *b = &mp->epochs[i];
        bool hw = b->kind == NPURT_EPOCH_HW;
        if (hw != (a->kind == CC_EPOCH_HW) || (uint32_t)a->first_op != b->first_op ||
            (uint32_t)a->n_ops != b->n_ops || (hw && a->payload_size != b->cmd_size)) {
            snprintf(why, cap, "its epoch %d differs from the one compiling the model here gives", i);
            return false;
        }
    }
    return true;
}

static int load_model(vctx *c, npuc_err *err)
{
    const val_options *o = c->opt;
    npurt_error e = {0};
    char msg[512];
    bool reloc = c->blob_size >= 4 && !memcmp(c->blob, "NPRL", 4);
    if (reloc) {
        npurt_reloc_info info;
        if (npurt_reloc_get_info(c->blob, c->blob_size, &info, &e)) {
            npurt_host_error_text(NULL, &e, msg, sizeof msg);
            return npuc_errf(err, NPUC_E_FORMAT, "compiled model: %s", msg);
        }
        npurt_reloc_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.mode = NPURT_RELOC_XIP;
        if (info.flags & NPURL_F_SPLIT) {
            if (!o->compiled_params)
                return npuc_errf(err, NPUC_E_USAGE, "compiled model is split: its params file is needed");
            cfg.ext_params = o->compiled_params;
            cfg.ext_params_size = (uint32_t)o->compiled_params_size;
        }
        c->exec_ram = alloc16(info.ram_xip);
        c->ri = calloc(1, sizeof *c->ri);
        if (!c->exec_ram || !c->ri) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        cfg.exec_ram = c->exec_ram;
        cfg.exec_ram_size = info.ram_xip;
        if (npurt_reloc_install(c->blob, c->blob_size, &cfg, c->ri, &e)) {
            npurt_host_error_text(NULL, &e, msg, sizeof msg);
            return npuc_errf(err, NPUC_E_FORMAT, "compiled model: install: %s", msg);
        }
        c->mp = &c->ri->model;
        c->ip = &c->ri->rt;
        return NPUC_OK;
    }
    c->mp = &c->model;
    c->ip = &c->inst;
    if (npurt_model_load(c->mp, c->blob, c->blob_size, &e)) {
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        return npuc_errf(err, NPUC_E_FORMAT, "compiled model: %s", msg);
    }
    uint32_t act = npurt_model_pool_size(c->mp, NPURT_POOL_ACTIVATIONS);
    uint32_t st = npurt_model_pool_size(c->mp, NPURT_POOL_STATE);
    uint32_t fa = npurt_model_pool_size(c->mp, NPURT_POOL_FAST);
    c->act = alloc16(act);
    c->state = alloc16(st);
    c->fast = alloc16(fa);
    if (!c->act || !c->state || !c->fast) return npuc_errf(err, NPUC_E_NOMEM, "out of memory (%u activation bytes)", act);
    npurt_memory mem = {.activations = c->act, .activations_size = act, .state = c->state, .state_size = st,
                        .fast = fa ? c->fast : NULL, .fast_size = fa};
    if (npurt_init(c->ip, c->mp, &mem, &e)) {
        npurt_host_error_text(c->mp, &e, msg, sizeof msg);
        return npuc_errf(err, NPUC_E_INVALID, "compiled model: %s", msg);
    }
    return NPUC_OK;
}

/* The deployed model's inputs and outputs must be the graph's. */
static int check_io(vctx *c, npuc_err *err)
{
    const graph *g = c->g;
    const npurt_model *m = c->mp;
    if (npurt_model_n_inputs(m) != (uint32_t)g->n_inputs || npurt_model_n_outputs(m) != (uint32_t)g->n_outputs)
        return npuc_errf(err, NPUC_E_INVALID,
                         "compiled model has %u inputs and %u outputs, the source model %d and %d: not compiled from it",
                         npurt_model_n_inputs(m), npurt_model_n_outputs(m), g->n_inputs, g->n_outputs);
    for (int32_t k = 0; k < g->n_inputs + g->n_outputs; k++) {
        bool in = k < g->n_inputs;
        int32_t i = in ? k : k - g->n_inputs;
        const graph_tensor *t = &g->tensors[in ? g->inputs[i] : g->outputs[i]];
        const npurt_tensor_rec *rec = in ? npurt_model_input(m, (uint32_t)i) : npurt_model_output(m, (uint32_t)i);
        if (rec->size != t->nbytes || npurt_host_graph_dtype(rec->dtype) != t->dtype)
            return npuc_errf(err, NPUC_E_INVALID,
                             "compiled model %s %d is %s of %u bytes, the source model's '%s' is %s of %zu bytes: "
                             "not compiled from it",
                             in ? "input" : "output", i, graph_dtype_name(npurt_host_graph_dtype(rec->dtype)), rec->size, t->name,
                             graph_dtype_name(t->dtype), t->nbytes);
    }
    return NPUC_OK;
}

static int setup_npu(vctx *c, npuc_err *err)
{
    bool any_hw = false;
    for (uint32_t i = 0; i < c->mp->h->n_epochs; i++) any_hw |= c->mp->epochs[i].kind == NPURT_EPOCH_HW;
    if (!any_hw || !c->mp->h->npu_config) return NPUC_OK;
    sim_variant v;
    if (sim_variant_from_config(c->mp->h->npu_config, &v, err)) return npuc_err_prefix(err, "compiled model header");
    sim_system sys;
    if (c->opt->sys) sys = *c->opt->sys;
    else if (c->opt->cc.sys.variant == v && c->opt->cc.sys.core_clock_hz > 0) sys = c->opt->cc.sys.sim;
    else target_default_sim(v, &sys);
    int rc = ethosu_host_npu_create(v, &sys, &c->hnpu, err);
    if (rc) return rc;
    if (ethosu_host_driver_init(&c->drv, c->hnpu, NULL, 0) != 0)
        return npuc_errf(err, NPUC_E_RUNTIME, "ethosu_init failed on the virtual NPU");
    c->drv_up = true;
    c->ip->drv = &c->drv;
    c->ip->wait = NPURT_WAIT_IRQ;
    if ((rc = npurt_host_map(c->ip, err))) return rc;
    c->mapped = true;
    snprintf(c->r->target, sizeof c->r->target, "%s", cc_target_name(v));
    snprintf(c->r->system, sizeof c->r->system, "%s", sys.name);
    c->r->core_clock_hz = sys.core_clock_hz;
    c->r->macs_per_cycle = macs_per_cycle(v);
    return NPUC_OK;
}

static void fill_ops(vctx *c)
{
    const graph *g = c->g;
    val_report *r = c->r;
    for (int32_t i = 0; i < g->n_ops; i++) {
        val_op *vo = &r->ops[i];
        const graph_op *op = &g->ops[i];
        vo->index = i;
        vo->epoch = -1;
        snprintf(vo->type, sizeof vo->type, "%s", graph_op_name(op));
        if (op->n_out > 0 && op->out[0] >= 0) snprintf(vo->name, sizeof vo->name, "%s", g->tensors[op->out[0]].name);
        vo->macs = graph_op_macs(g, op);
        if (c->detail) {
            const cc_op_info *oi = &c->cm->ops[i];
            vo->macs = oi->macs;
            vo->est_cycles = oi->cycles;
            vo->n_npu_ops = oi->npu ? oi->n_eu : 0;
            if (!oi->npu) snprintf(vo->why, sizeof vo->why, "%s", oi->why);
        }
    }
    for (uint32_t e = 0; e < c->mp->h->n_epochs; e++) {
        const npurt_epoch_rec *er = &c->mp->epochs[e];
        val_epoch *ve = &r->epochs[e];
        ve->kind = er->kind;
        ve->first_op = (int32_t)er->first_op;
        ve->n_ops = (int32_t)er->n_ops;
        ve->est_cycles = er->kind == NPURT_EPOCH_HW ? er->est_cycles : 0;
        if (er->kind == NPURT_EPOCH_HW) snprintf(ve->work, sizeof ve->work, "command stream %u B", er->cmd_size);
        else snprintf(ve->work, sizeof ve->work, "%s", k_op_name(er->kernel) ? k_op_name(er->kernel) : "kernel");
        for (uint32_t k = er->first_op; k < er->first_op + er->n_ops && k < (uint32_t)g->n_ops; k++) {
            val_op *vo = &r->ops[k];
            vo->epoch = (int32_t)e;
            vo->kind = er->kind;
            ve->macs += vo->macs;
            if (er->kind != NPURT_EPOCH_HW) {
                /* CPU ops touch their operands: constants in params, the rest in activations */
                const graph_op *op = &g->ops[k];
                for (int32_t j = 0; j < op->n_in; j++) {
                    if (op->in[j] < 0) continue;
                    const graph_tensor *t = &g->tensors[op->in[j]];
                    vo->bytes_read[t->data ? VAL_MEM_PARAMS : VAL_MEM_ACTIVATIONS] += t->nbytes;
                }
                for (int32_t j = 0; j < op->n_out; j++)
                    if (op->out[j] >= 0) vo->bytes_written[VAL_MEM_ACTIVATIONS] += g->tensors[op->out[j]].nbytes;
                for (int m = 0; m < VAL_N_MEM; m++) {
                    ve->bytes_read[m] += vo->bytes_read[m];
                    ve->bytes_written[m] += vo->bytes_written[m];
                }
            }
        }
    }
}

/* One input set through the interpreter (ref) and the runtime (got); both
 * buffers hold all outputs concatenated. */
static int run_set(vctx *c, interp *ip, const uint8_t *const *in, uint8_t *ref, uint8_t *got, npuc_err *err)
{
    const graph *g = c->g;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        int rc = interp_set_input(ip, i, in[i], t->nbytes, err);
        if (rc) return npuc_err_prefix(err, "reference interpreter");
        uint32_t n = 0;
        void *dst = npurt_input(c->ip, (uint32_t)i, &n);
        memcpy(dst, in[i], n);
    }
    int rc = interp_invoke(ip, err);
    if (rc) return npuc_err_prefix(err, "reference interpreter");
    memset(c->prof, 0, sizeof *c->prof * (c->mp->h->n_epochs + 1u));
    int st = c->ri ? npurt_reloc_run(c->ri) : npurt_run(c->ip);
    if ((st == NPURT_NOT_READY) != interp_not_ready(ip))
        return npuc_errf(err, NPUC_E_RUNTIME, "deployed model: its outputs are %sready, the reference's are %s",
                         st == NPURT_NOT_READY ? "not " : "", interp_not_ready(ip) ? "not" : "");
    if (st == NPURT_NOT_READY) st = NPURT_OK;
    if (st) {
        char msg[512], npu_msg[256] = "";
        npurt_host_error_text(c->mp, &c->ip->err, msg, sizeof msg);
        if (c->hnpu) ethosu_host_npu_error(c->hnpu, npu_msg, sizeof npu_msg);
        return npuc_errf(err, NPUC_E_RUNTIME, "deployed model: %s%s%s", msg, *npu_msg ? ": " : "", npu_msg);
    }
    size_t o = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        size_t n = 0;
        const void *rd = interp_output(ip, i, &n);
        memcpy(ref + o, rd, n);
        memcpy(got + o, npurt_output(c->ip, (uint32_t)i, NULL), n);
        o += n;
    }
    /* per-epoch profile of this run */
    for (uint32_t e = 0; e < c->mp->h->n_epochs; e++) {
        const npurt_epoch_profile *p = &c->prof[e];
        val_epoch *ve = &c->r->epochs[e];
        ve->npu_cycles += p->npu_cycles;
        /* CPU time: a kernel's whole run; around an NPU stream only the
         * driver work before and after it (the wait is NPU time) */
        ve->cpu_ns += (double)(p->pre + p->post) + (ve->kind == NPURT_EPOCH_HW ? 0.0 : (double)p->hw);
    }
    return NPUC_OK;
}

static size_t argmax(graph_dtype dt, const uint8_t *p, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (val_elem(dt, p, i) > val_elem(dt, p, best)) best = i;
    return best;
}

static bool is_classifier(const graph_tensor *t)
{
    int big = 0;
    for (int32_t d = 0; d < t->rank; d++) {
        if (t->shape[d] >= 2) big++;
    }
    return big == 1 && t->dtype != GRAPH_BOOL;
}

/* Float twin inputs: the quantized input dequantized ((q - zp) * scale). */
static int float_inputs(const graph *g, const graph *fg, const uint8_t *const *in, float **fin, npuc_err *err)
{
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *q = &g->tensors[g->inputs[i]];
        const graph_tensor *f = &fg->tensors[fg->inputs[i]];
        size_t n = graph_tensor_elems(q);
        if (f->dtype != GRAPH_F32) {
            if (f->dtype != q->dtype || f->nbytes != q->nbytes)
                return npuc_errf(err, NPUC_E_INVALID, "float model input %d '%s' is %s, expected float32 or %s", i,
                                 f->name, graph_dtype_name(f->dtype), graph_dtype_name(q->dtype));
            memcpy(fin[i], in[i], q->nbytes);
            continue;
        }
        double sc = q->q.n >= 1 ? q->q.scale[0] : 1.0;
        double zp = q->q.n >= 1 ? (double)q->q.zero_point[0] : 0.0;
        if (q->dtype == GRAPH_F32) {
            sc = 1;
            zp = 0;
        }
        for (size_t k = 0; k < n; k++) fin[i][k] = (float)((val_elem(q->dtype, in[i], k) - zp) * sc);
    }
    return NPUC_OK;
}

static int check_float_twin(const graph *g, const graph *fg, npuc_err *err)
{
    if (fg->n_inputs != g->n_inputs || fg->n_outputs != g->n_outputs)
        return npuc_errf(err, NPUC_E_INVALID, "float model has %d inputs and %d outputs, the model %d and %d",
                         fg->n_inputs, fg->n_outputs, g->n_inputs, g->n_outputs);
    for (int32_t k = 0; k < g->n_inputs + g->n_outputs; k++) {
        bool in = k < g->n_inputs;
        int32_t i = in ? k : k - g->n_inputs;
        const graph_tensor *q = &g->tensors[in ? g->inputs[i] : g->outputs[i]];
        const graph_tensor *f = &fg->tensors[in ? fg->inputs[i] : fg->outputs[i]];
        if (!in && f->dtype != GRAPH_F32)
            return npuc_errf(err, NPUC_E_INVALID, "float model output %d '%s' is %s, not float32", i, f->name,
                             graph_dtype_name(f->dtype));
        if (graph_tensor_elems(q) != graph_tensor_elems(f))
            return npuc_errf(err, NPUC_E_INVALID, "float model %s %d '%s' has %zu elements, the model's '%s' %zu",
                             in ? "input" : "output", i, f->name, graph_tensor_elems(f), q->name,
                             graph_tensor_elems(q));
    }
    return NPUC_OK;
}

void val_report_free(val_report *r)
{
    if (!r) return;
    free(r->outputs);
    free(r->epochs);
    free(r->ops);
    free(r->buffers);
    free(r->live);
    free(r);
}

static void free_ctx(vctx *c)
{
    if (c->mapped) npurt_host_unmap(c->ip);
    if (c->drv_up) ethosu_host_driver_deinit(&c->drv);
    ethosu_host_npu_free(c->hnpu);
    if (c->ri) npurt_reloc_uninstall(c->ri);
    free(c->ri);
    free(c->exec_ram);
    free(c->act);
    free(c->state);
    free(c->fast);
    free(c->prof);
    free(c->blob);
    cc_model_free(c->cm);
}

int val_run(const graph *g, const char *model_name, const val_options *opt, val_report **out, npuc_err *err)
{
    *out = NULL;
    if (!opt || opt->n_sets < 1 || !opt->inputs)
        return npuc_errf(err, NPUC_E_USAGE, "validate needs at least one input set");
    /* a legacy uint8 model: one clear error before anything is compiled */
    {
        int rc = interp_check_legacy_uint8(g, NULL, NULL, err);
        if (rc) return rc;
    }
    if (opt->float_graph) {
        int rc = check_float_twin(g, opt->float_graph, err);
        if (rc) return rc;
    }
    for (int32_t s = 0; s < opt->n_sets; s++)
        for (int32_t i = 0; i < g->n_inputs; i++)
            if (!opt->inputs[(size_t)s * (size_t)g->n_inputs + (size_t)i])
                return npuc_errf(err, NPUC_E_USAGE, "input set %d has no data for input %d", s, i);

    vctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.opt = opt;
    val_report *r = calloc(1, sizeof *r);
    if (!r) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    c.r = r;
    snprintf(r->model, sizeof r->model, "%s", model_name ? model_name : "model");
    r->n_sets = opt->n_sets;
    r->tolerance = opt->tolerance;
    r->compiled_here = opt->compiled == NULL;
    interp *ip = NULL, *fip = NULL;
    uint8_t *ref = NULL, *got = NULL;
    float **fin = NULL;
    val_acc *acc = NULL;
    int rc = NPUC_OK;

    /* the deployed model: compiled here, or given (then recompiled for op detail) */
    int crc = cc_compile(g, &opt->cc, &c.cm, err);
    /* per-op detail follows the deployed graph (constant folding may have
     * removed ops); the reference interpreter runs the source graph g */
    if (!crc && c.cm) c.g = c.cm->g;
    if (opt->compiled == NULL) {
        if (crc) goto fail;
        if ((rc = emit_npurt(c.cm, r->model, &c.blob, &c.blob_size, err))) goto fail;
        /* emit's blob comes from malloc; the runtime wants it 16-byte aligned */
        uint8_t *al = alloc16(c.blob_size);
        if (!al) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            goto fail;
        }
        memcpy(al, c.blob, c.blob_size);
        free(c.blob);
        c.blob = al;
    } else {
        if (crc) {
            snprintf(r->note, sizeof r->note, "per-op detail unavailable: the model does not compile here (%.160s)",
                     err->msg);
            memset(err, 0, sizeof *err);
        }
        c.blob = alloc16(opt->compiled_size);
        if (!c.blob) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            goto fail;
        }
        memcpy(c.blob, opt->compiled, opt->compiled_size);
        c.blob_size = opt->compiled_size;
    }
    if (c.blob_size >= 8 && !memcmp(c.blob + 4, "TFL3", 4)) {
        rc = npuc_errf(err, NPUC_E_UNSUPPORTED,
                       "the compiled model is a TFLite file: validate takes the runtime's forms (.nprt from "
                       "--output-format bin, NAME_rel.bin from --output-format reloc); `npuc run` runs TFLite "
                       "files with ethos-u ops on the virtual NPU");
        goto fail;
    }
    if ((rc = load_model(&c, err))) goto fail;
    if ((rc = check_io(&c, err))) goto fail;
    if (c.cm) {
        char why[120];
        c.detail = same_structure(c.cm, c.mp, why, sizeof why);
        if (!c.detail)
            snprintf(r->note, sizeof r->note, "per-op detail unavailable: %s (pass the same --target and "
                     "--system-config the model was compiled with)", why);
    }
    r->op_detail = c.detail;

    uint32_t n_ep = c.mp->h->n_epochs;
    r->n_ops = g->n_ops;
    r->n_epochs = (int32_t)n_ep;
    r->n_outputs = g->n_outputs;
    r->ops = calloc((size_t)g->n_ops + 1, sizeof *r->ops);
    r->epochs = calloc((size_t)n_ep + 1, sizeof *r->epochs);
    r->outputs = calloc((size_t)g->n_outputs + 1, sizeof *r->outputs);
    c.prof = calloc((size_t)n_ep + 1, sizeof *c.prof);
    if (!r->ops || !r->epochs || !r->outputs || !c.prof) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto fail;
    }
    c.ip->profile = c.prof;
    c.ip->profile_cap = n_ep;
    npurt_set_callback(c.ip, on_event, &c);
    if ((rc = setup_npu(&c, err))) goto fail;
    if (!r->target[0]) {
        snprintf(r->target, sizeof r->target, "%s", c.cm ? cc_target_name(c.cm->opt.sys.variant) : "none");
        snprintf(r->system, sizeof r->system, "%s", c.cm ? c.cm->opt.sys.sim.name : "");
        r->core_clock_hz = c.cm ? c.cm->opt.sys.core_clock_hz : 0;
    }
    fill_ops(&c);

    interp_options io;
    memset(&io, 0, sizeof io);
    if ((rc = interp_create(g, &io, &ip, err))) {
        npuc_err_prefix(err, "reference interpreter");
        goto fail;
    }
    size_t out_total = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) out_total += g->tensors[g->outputs[i]].nbytes;
    ref = malloc(out_total + 1);
    got = malloc(out_total + 1);
    acc = calloc((size_t)g->n_outputs * 4 + 1, sizeof *acc);
    if (!ref || !got || !acc) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        goto fail;
    }
    for (int32_t i = 0; i < g->n_outputs * 4; i++) val_acc_init(&acc[i]);
    const graph *fg = opt->float_graph;
    if (fg) {
        if ((rc = interp_create(fg, &io, &fip, err))) {
            npuc_err_prefix(err, "float model");
            goto fail;
        }
        fin = calloc((size_t)g->n_inputs + 1, sizeof *fin);
        if (!fin) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            goto fail;
        }
        for (int32_t i = 0; i < g->n_inputs; i++) {
            fin[i] = calloc(graph_tensor_elems(&g->tensors[g->inputs[i]]) + 1, sizeof(float) * 2);
            if (!fin[i]) {
                rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
                goto fail;
            }
        }
    }
    for (int32_t i = 0; i < g->n_outputs; i++) {
        val_output *vo = &r->outputs[i];
        const graph_tensor *t = &g->tensors[g->outputs[i]];
        vo->index = i;
        vo->tensor = g->outputs[i];
        snprintf(vo->name, sizeof vo->name, "%s", t->name);
        vo->dtype = t->dtype;
        if (t->q.n >= 1 && t->dtype != GRAPH_F32) {
            vo->scale = t->q.scale[0];
            vo->zero_point = t->q.zero_point[0];
        }
        vo->classifier = is_classifier(t);
        vo->has_float = fg != NULL;
    }

    for (int32_t s = 0; s < opt->n_sets; s++) {
        const uint8_t *const *in = opt->inputs + (size_t)s * (size_t)g->n_inputs;
        if ((rc = run_set(&c, ip, in, ref, got, err))) {
            if (opt->n_sets > 1) npuc_err_prefix(err, "input set %d", s);
            goto fail;
        }
        if (c.capture_error) {
            /* the stream did not match the plan: drop the per-op NPU figures */
            c.detail = false;
            r->op_detail = false;
            snprintf(r->note, sizeof r->note, "per-op detail unavailable: %s", c.capture_msg);
            c.capture_error = 0;
        }
        if (fg) {
            if ((rc = float_inputs(g, fg, in, fin, err))) goto fail;
            for (int32_t i = 0; i < g->n_inputs; i++) {
                const graph_tensor *f = &fg->tensors[fg->inputs[i]];
                if ((rc = interp_set_input(fip, i, fin[i], f->nbytes, err))) {
                    npuc_err_prefix(err, "float model");
                    goto fail;
                }
            }
            if ((rc = interp_invoke(fip, err))) {
                npuc_err_prefix(err, "float model");
                goto fail;
            }
        }
        size_t o = 0;
        for (int32_t i = 0; i < g->n_outputs; i++) {
            val_output *vo = &r->outputs[i];
            const graph_tensor *t = &g->tensors[g->outputs[i]];
            size_t n = graph_tensor_elems(t);
            val_acc_add_tensor(&acc[4 * i], t->dtype, ref + o, got + o, n, 0, 0);
            if (vo->scale > 0)
                val_acc_add_tensor(&acc[4 * i + 1], t->dtype, ref + o, got + o, n, vo->scale, vo->zero_point);
            if (vo->classifier) {
                vo->top1_n++;
                vo->top1_agree += argmax(t->dtype, ref + o, n) == argmax(t->dtype, got + o, n);
            }
            if (fg) {
                size_t fn = 0;
                const float *fo = interp_output(fip, i, &fn);
                const graph_tensor *ft = &fg->tensors[fg->outputs[i]];
                double sc = vo->scale > 0 ? vo->scale : 1.0;
                double zp = vo->scale > 0 ? (double)vo->zero_point : 0.0;
                if (t->dtype == GRAPH_F32) {
                    sc = 1;
                    zp = 0;
                }
                for (size_t k = 0; k < n; k++) {
                    double fv = val_elem(ft->dtype, fo, k);
                    double rq = val_elem(t->dtype, ref + o, k), gq = val_elem(t->dtype, got + o, k);
                    val_acc_add(&acc[4 * i + 2], fv, (gq - zp) * sc);
                    val_acc_add(&acc[4 * i + 3], fv, (rq - zp) * sc);
                }
            }
            o += t->nbytes;
        }
    }

    /* outputs */
    r->pass = true;
    r->bit_exact = true;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        val_output *vo = &r->outputs[i];
        val_metrics_finish(&acc[4 * i], &vo->q);
        if (vo->scale > 0) val_metrics_finish(&acc[4 * i + 1], &vo->deq);
        if (fg) {
            val_metrics_finish(&acc[4 * i + 2], &vo->float_deployed);
            val_metrics_finish(&acc[4 * i + 3], &vo->float_reference);
        }
        vo->pass = opt->tolerance < 0 ? vo->q.bit_exact : vo->q.max_abs <= opt->tolerance;
        r->pass &= vo->pass;
        r->bit_exact &= vo->q.bit_exact;
    }

    /* profile: per inference */
    double ns = (double)opt->n_sets;
    for (uint32_t e = 0; e < n_ep; e++) {
        val_epoch *ve = &r->epochs[e];
        ve->npu_cycles = (uint64_t)llround((double)ve->npu_cycles / ns);
        ve->cpu_ns /= ns;
        if (ve->kind == NPURT_EPOCH_HW)
            for (int m = 0; m < VAL_N_MEM; m++) {
                ve->bytes_read[m] = (uint64_t)llround((double)ve->bytes_read[m] / ns);
                ve->bytes_written[m] = (uint64_t)llround((double)ve->bytes_written[m] / ns);
            }
        r->npu_cycles += ve->npu_cycles;
        r->est_cycles += ve->est_cycles;
        if (ve->kind != NPURT_EPOCH_HW) r->cpu_ns += ve->cpu_ns;
        /* CPU epochs: their op's time; HW epochs without op detail and one op: the epoch's figures */
        if (ve->n_ops >= 1 && ve->first_op < g->n_ops) {
            if (ve->kind != NPURT_EPOCH_HW) {
                for (int32_t k = ve->first_op; k < ve->first_op + ve->n_ops && k < g->n_ops; k++)
                    r->ops[k].cpu_ns = ve->cpu_ns / ve->n_ops;
            } else if (!c.detail && ve->n_ops == 1) {
                val_op *vo = &r->ops[ve->first_op];
                vo->npu_cycles = ve->npu_cycles * (uint64_t)opt->n_sets;
                vo->est_cycles = ve->est_cycles;
                vo->n_npu_ops = 0;
                memcpy(vo->bytes_read, ve->bytes_read, sizeof vo->bytes_read);
                memcpy(vo->bytes_written, ve->bytes_written, sizeof vo->bytes_written);
                for (int m = 0; m < VAL_N_MEM; m++) {
                    vo->bytes_read[m] *= (uint64_t)opt->n_sets;
                    vo->bytes_written[m] *= (uint64_t)opt->n_sets;
                }
            }
        }
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        val_op *vo = &r->ops[i];
        if (vo->kind == NPURT_EPOCH_HW) {
            vo->npu_cycles = (uint64_t)llround((double)vo->npu_cycles / ns);
            for (int m = 0; m < VAL_N_MEM; m++) {
                vo->bytes_read[m] = (uint64_t)llround((double)vo->bytes_read[m] / ns);
                vo->bytes_written[m] = (uint64_t)llround((double)vo->bytes_written[m] / ns);
            }
            if (vo->npu_cycles && r->macs_per_cycle)
                vo->mac_util = (double)vo->macs / ((double)vo->npu_cycles * r->macs_per_cycle);
            r->n_npu_ops_graph++;
        } else if (vo->epoch >= 0) {
            r->n_cpu_ops_graph++;
        }
        r->macs += vo->macs;
    }
    r->npu_s = r->core_clock_hz > 0 ? (double)r->npu_cycles / r->core_clock_hz : 0;
    double t = r->npu_s + r->cpu_ns * 1e-9;
    r->inferences_per_s = t > 0 ? 1.0 / t : 0;

    /* memory */
    static const char *const dflt[VAL_N_MEM] = {"params", "activations", "fast"};
    static const unsigned kinds[VAL_N_MEM] = {NPURT_POOL_PARAMS, NPURT_POOL_ACTIVATIONS, NPURT_POOL_FAST};
    for (int m = 0; m < VAL_N_MEM; m++) {
        val_pool *p = &r->pools[m];
        snprintf(p->name, sizeof p->name, "%s", dflt[m]);
        p->used = npurt_model_pool_size(c.mp, kinds[m]);
        p->peak = p->used;
        if (c.cm) {
            const cc_system *s = &c.cm->opt.sys;
            int idx = m == 0 ? s->params_pool : m == 1 ? s->act_pool : s->fast_pool;
            if (idx >= 0 && idx < s->n_pools) {
                snprintf(p->name, sizeof p->name, "%s", s->pools[idx].name);
                p->size = s->pools[idx].size;
            }
        }
    }
    if (c.detail) fill_memory_plan(&c);

    *out = r;
    r = NULL;
    goto done;
fail:
    if (!rc) rc = NPUC_E_RUNTIME;
done:
    if (fin)
        for (int32_t i = 0; i < g->n_inputs; i++) free(fin[i]);
    free(fin);
    free(acc);
    free(ref);
    free(got);
    interp_free(ip);
    interp_free(fip);
    free_ctx(&c);
    val_report_free(r);
    return rc;
}
