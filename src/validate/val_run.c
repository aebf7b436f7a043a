/* val_run: compile (or take) a deployed model, run it through the host API
 * (the npuc runtime over a virtual NPU) and the source graph on the
 * reference interpreter, compare, and profile. See validate.h. */
#include "validate.h"
#include "api/api.h"
#include "emit/emit.h"
#include "interp/interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vctx {
    const graph *g;
    const val_options *opt;
    val_report *r;
    cc_model *cm;               /* compiled here (or recompiled for op detail); may be NULL */
    bool detail;                /* cm's epochs are the running model's epochs (cm_epoch) */
    int32_t *cm_epoch;          /* with detail: the running model's epoch i is cm's epoch cm_epoch[i] */
    npuc_model *m;              /* the deployed model, open on its virtual NPU */
    uint32_t n_epochs;
    /* set while the NPU records of a run are taken apart */
    int capture_error;
    char capture_msg[200];
} vctx;

static void add_traffic(uint64_t *rd, uint64_t *wr, const npuc_npu_op *o)
{
    for (int m = 0; m < VAL_N_MEM; m++) {
        rd[m] += o->bytes_read[m];
        wr[m] += o->bytes_written[m];
    }
}

/* After a run: the NPU's records of each HW epoch's stream, summed per
 * epoch and (with detail) per graph op. A DMA belongs to the kernel
 * operation that follows it (it brings that operation's weights). */
static void capture_stream(vctx *c, const npuc_stream_profile *s)
{
    if (s->index < 0 || (uint32_t)s->index >= c->n_epochs) return;
    uint32_t epoch = (uint32_t)s->index;
    const npuc_npu_op *rec = s->ops;
    size_t n = s->n_ops;
    val_epoch *ve = &c->r->epochs[epoch];
    for (size_t k = 0; k < n; k++) add_traffic(ve->bytes_read, ve->bytes_written, &rec[k]);
    if (!c->detail) return;
    const cc_epoch *ce = &c->cm->epochs[c->cm_epoch[epoch]];
    size_t n_kernel = 0;
    for (size_t k = 0; k < n; k++) n_kernel += rec[k].kind != NPUC_NPU_DMA;
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
        if (rec[k].kind != NPUC_NPU_DMA) next++;
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
        if (x->pool == CC_IN_STATE) continue;                   /* not in the arena: the state pool */
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
        /* a CPU op's output (QUANTIZE, CAST, SignalEnergy) written over its input from its first
         * byte (cc_buf.over): where both are live the shared bytes count once */
        const cc_buf *y = x->over > 0 && x->over - 1 < m->n_bufs ? &m->bufs[x->over - 1] : NULL;
        if (y && y->offset == x->offset && y->pool == x->pool && !(y->temp && !y->size)) {
            const uint64_t shared = x->size < y->size ? x->size : y->size;
            for (int32_t t = a > y->first ? a : y->first; t <= z && t <= y->last; t++) live[t] -= shared;
        }
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
static bool same_structure(const cc_model *cm, const npuc_model *m, int32_t *cm_epoch, char *why, size_t cap)
{
    uint32_t n = npuc_epoch_count(m), runs = 0;
    for (int32_t i = 0; i < cm->n_epochs; i++) runs += emit_npurt_has_epoch(cm, i);
    if (runs != n) {
        snprintf(why, cap, "it has %u epochs, compiling the model here gives %u", n, runs);
        return false;
    }
    uint32_t k = 0;
    for (int32_t i = 0; i < cm->n_epochs; i++) {
        if (!emit_npurt_has_epoch(cm, i)) continue; /* no epoch in the runtime's model */
        const cc_epoch *a = &cm->epochs[i];
        npuc_epoch_info b;
        npuc_epoch_info_get(m, k, &b);
        bool hw = b.kind == NPUC_EPOCH_HW;
        if (hw != (a->kind == CC_EPOCH_HW) || (uint32_t)a->first_op != b.first_op ||
            (uint32_t)a->n_ops != b.n_ops || (hw && a->payload_size != b.cmd_size)) {
            snprintf(why, cap, "its epoch %u differs from the one compiling the model here gives", k);
            return false;
        }
        cm_epoch[k++] = i;
    }
    return true;
}

/* The deployed model on its virtual NPU: the system it was compiled for
 * when that is the NPU it runs on. blob: the model in memory, or NULL for
 * opt->compiled_path. */
static int open_deployed(vctx *c, const uint8_t *blob, size_t size, npuc_err *err)
{
    const val_options *o = c->opt;
    npuc_form form = blob ? npuc_probe_memory(blob, size) : npuc_probe_file(o->compiled_path);
    if (form == NPUC_FORM_TFLITE)
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         "the compiled model is a TFLite file: validate takes the runtime's forms (.nprt from "
                         "--output-format bin, NAME_rel.bin from --output-format reloc); `npuc run` runs TFLite "
                         "files with ethos-u ops on the virtual NPU");
    npuc_open_options oo = {.name = NULL};
    if (form == NPUC_FORM_RELOC) {
        oo.params_path = o->compiled_params_path;
        oo.params = o->compiled_params;
        oo.params_size = o->compiled_params_size;
    }
    npuc_open_system sys = {.sys = o->cc.sys.core_clock_hz > 0 ? &o->cc.sys.sim : NULL,
                            .sys_variant = o->cc.sys.variant};
    if (npuc_model_open_ext(blob ? NULL : o->compiled_path, blob, size, NULL, &oo, &sys, &c->m)) {
        npuc_last_err(err);
        return npuc_err_prefix(err, "compiled model");
    }
    c->n_epochs = npuc_epoch_count(c->m);
    npuc_model_info info;
    npuc_model_get_info(c->m, &info);
    if (info.npu[0]) {
        snprintf(c->r->target, sizeof c->r->target, "%s", info.npu);
        snprintf(c->r->system, sizeof c->r->system, "%s", info.system_config);
        c->r->core_clock_hz = info.core_clock_hz;
        c->r->macs_per_cycle = info.macs_per_cycle;
    }
    return NPUC_OK;
}

/* The deployed model's inputs and outputs must be the graph's. */
static int check_io(vctx *c, npuc_err *err)
{
    const graph *g = c->g;
    const npuc_model *m = c->m;
    if (npuc_input_count(m) != (uint32_t)g->n_inputs || npuc_output_count(m) != (uint32_t)g->n_outputs)
        return npuc_errf(err, NPUC_E_INVALID,
                         "compiled model has %u inputs and %u outputs, the source model %d and %d: not compiled from it",
                         npuc_input_count(m), npuc_output_count(m), g->n_inputs, g->n_outputs);
    for (int32_t k = 0; k < g->n_inputs + g->n_outputs; k++) {
        bool in = k < g->n_inputs;
        int32_t i = in ? k : k - g->n_inputs;
        const graph_tensor *t = &g->tensors[in ? g->inputs[i] : g->outputs[i]];
        npuc_tensor_info ti;
        if (in) npuc_input_info(m, (uint32_t)i, &ti);
        else npuc_output_info(m, (uint32_t)i, &ti);
        if (ti.size != t->nbytes || (graph_dtype)ti.dtype != t->dtype)
            return npuc_errf(err, NPUC_E_INVALID,
                             "compiled model %s %d is %s of %zu bytes, the source model's '%s' is %s of %zu bytes: "
                             "not compiled from it",
                             in ? "input" : "output", i, graph_dtype_name((graph_dtype)ti.dtype), ti.size, t->name,
                             graph_dtype_name(t->dtype), t->nbytes);
    }
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
    for (uint32_t e = 0; e < c->n_epochs; e++) {
        npuc_epoch_info er;
        npuc_epoch_info_get(c->m, e, &er);
        val_epoch *ve = &r->epochs[e];
        ve->kind = (uint8_t)er.kind;
        ve->first_op = (int32_t)er.first_op;
        ve->n_ops = (int32_t)er.n_ops;
        ve->est_cycles = er.kind == NPUC_EPOCH_HW ? er.est_cycles : 0;
        if (er.kind == NPUC_EPOCH_HW) snprintf(ve->work, sizeof ve->work, "command stream %u B", er.cmd_size);
        else snprintf(ve->work, sizeof ve->work, "%s", er.kernel ? er.kernel : "kernel");
        for (uint32_t k = er.first_op; k < er.first_op + er.n_ops && k < (uint32_t)g->n_ops; k++) {
            val_op *vo = &r->ops[k];
            vo->epoch = (int32_t)e;
            vo->kind = (uint8_t)er.kind;
            ve->macs += vo->macs;
            if (er.kind != NPUC_EPOCH_HW) {
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

/* One input set through the interpreter (ref) and the deployed model
 * (got); both buffers hold all outputs concatenated. */
static int run_set(vctx *c, interp *ip, const uint8_t *const *in, uint8_t *ref, uint8_t *got, npuc_err *err)
{
    const graph *g = c->g;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        int rc = interp_set_input(ip, i, in[i], t->nbytes, err);
        if (rc) return npuc_err_prefix(err, "reference interpreter");
        if (npuc_set_input(c->m, (uint32_t)i, in[i], t->nbytes)) return npuc_last_err(err);
    }
    int rc = interp_invoke(ip, err);
    if (rc) return npuc_err_prefix(err, "reference interpreter");
    npuc_run_options ro = {.profile = true};
    if (npuc_run(c->m, &ro)) {
        npuc_last_err(err);
        return npuc_err_prefix(err, "deployed model");
    }
    bool not_ready = !npuc_outputs_ready(c->m);
    if (not_ready != interp_not_ready(ip))
        return npuc_errf(err, NPUC_E_RUNTIME, "deployed model: its outputs are %sready, the reference's are %s",
                         not_ready ? "not " : "", interp_not_ready(ip) ? "not" : "");
    size_t o = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        size_t n = 0;
        const void *rd = interp_output(ip, i, &n);
        memcpy(ref + o, rd, n);
        memcpy(got + o, npuc_output(c->m, (uint32_t)i, NULL), n);
        o += n;
    }
    /* per-epoch profile of this run */
    const npuc_profile *p;
    npuc_get_profile(c->m, &p);
    for (uint32_t e = 0; e < c->n_epochs && e < p->n_epochs; e++) {
        const npuc_epoch_profile *ep = &p->epochs[e];
        val_epoch *ve = &c->r->epochs[e];
        ve->npu_cycles += ep->npu_cycles;
        /* CPU time: a kernel's whole run; around an NPU stream only the
         * driver work before and after it (the wait is NPU time) */
        ve->cpu_ns += (double)(ep->pre_ns + ep->post_ns) + (ve->kind == NPURT_EPOCH_HW ? 0.0 : (double)ep->run_ns);
    }
    for (size_t k = 0; k < p->n_streams; k++) capture_stream(c, &p->streams[k]);
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
    free(c->cm_epoch);
    npuc_model_close(&c->m);
    cc_model_free(c->cm);
}

/* The deployed model: compiled here, or given (then recompiled for op
 * detail), open on its virtual NPU and checked against the graph. */
static int deploy(vctx *c, npuc_err *err)
{
    const val_options *opt = c->opt;
    val_report *r = c->r;
    int rc = cc_compile(c->g, &opt->cc, &c->cm, err);
    /* per-op detail follows the deployed graph (constant folding may have
     * removed ops); the reference interpreter runs the source graph */
    if (!rc && c->cm) c->g = c->cm->g;
    if (!r->compiled_here) {
        if (rc) {
            snprintf(r->note, sizeof r->note, "per-op detail unavailable: the model does not compile here (%.160s)",
                     err->msg);
            memset(err, 0, sizeof *err);
        }
        rc = open_deployed(c, opt->compiled, opt->compiled_size, err);
    } else if (!rc) {
        uint8_t *blob = NULL;
        size_t size = 0;
        rc = emit_npurt(c->cm, r->model, &blob, &size, err);
        if (!rc) rc = open_deployed(c, blob, size, err);
        free(blob);
    }
    if (!rc) rc = check_io(c, err);
    if (rc) return rc;
    if (c->cm) {
        char why[120];
        c->cm_epoch = malloc(sizeof *c->cm_epoch * ((size_t)c->n_epochs + 1));
        if (!c->cm_epoch) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        c->detail = same_structure(c->cm, c->m, c->cm_epoch, why, sizeof why);
        if (!c->detail)
            snprintf(r->note, sizeof r->note, "per-op detail unavailable: %s (pass the same --target and "
                     "--system-config the model was compiled with)", why);
    }
    r->op_detail = c->detail;
    return NPUC_OK;
}

/* The report's tables, sized for the model (ops of the source graph g). */
static int alloc_report(vctx *c, const graph *g, npuc_err *err)
{
    val_report *r = c->r;
    r->n_ops = g->n_ops;
    r->n_epochs = (int32_t)c->n_epochs;
    r->n_outputs = g->n_outputs;
    r->ops = calloc((size_t)g->n_ops + 1, sizeof *r->ops);
    r->epochs = calloc((size_t)c->n_epochs + 1, sizeof *r->epochs);
    r->outputs = calloc((size_t)g->n_outputs + 1, sizeof *r->outputs);
    if (!r->ops || !r->epochs || !r->outputs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (!r->target[0]) {
        snprintf(r->target, sizeof r->target, "%s", c->cm ? target_variant_name(c->cm->opt.sys.variant) : "none");
        snprintf(r->system, sizeof r->system, "%s", c->cm ? c->cm->opt.sys.sim.name : "");
        r->core_clock_hz = c->cm ? c->cm->opt.sys.core_clock_hz : 0;
    }
    fill_ops(c);
    return NPUC_OK;
}

/* The comparison: reference (and float twin) interpreters, the outputs of
 * one set, and per output four accumulators (stored units, dequantized,
 * deployed vs float, reference vs float). */
typedef struct vcmp {
    const graph *g, *fg;      /* source graph, float twin (or NULL) */
    interp *ip, *fip;
    uint8_t *ref, *got;
    float **fin;
    val_acc *acc;
} vcmp;

static void cmp_free(vcmp *v)
{
    if (v->fin)
        for (int32_t i = 0; i < v->g->n_inputs; i++) free(v->fin[i]);
    free(v->fin);
    free(v->acc);
    free(v->ref);
    free(v->got);
    interp_free(v->ip);
    interp_free(v->fip);
}

static int cmp_init(vcmp *v, const graph *g, const graph *fg, val_report *r, npuc_err *err)
{
    memset(v, 0, sizeof *v);
    v->g = g;
    v->fg = fg;
    interp_options io;
    memset(&io, 0, sizeof io);
    if (interp_create(g, &io, &v->ip, err)) return npuc_err_prefix(err, "reference interpreter");
    size_t out_total = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) out_total += g->tensors[g->outputs[i]].nbytes;
    v->ref = malloc(out_total + 1);
    v->got = malloc(out_total + 1);
    v->acc = calloc((size_t)g->n_outputs * 4 + 1, sizeof *v->acc);
    if (!v->ref || !v->got || !v->acc) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < g->n_outputs * 4; i++) val_acc_init(&v->acc[i]);
    if (fg) {
        if (interp_create(fg, &io, &v->fip, err)) return npuc_err_prefix(err, "float model");
        v->fin = calloc((size_t)g->n_inputs + 1, sizeof *v->fin);
        if (!v->fin) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
        for (int32_t i = 0; i < g->n_inputs; i++) {
            v->fin[i] = calloc(graph_tensor_elems(&g->tensors[g->inputs[i]]) + 1, sizeof(float) * 2);
            if (!v->fin[i]) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
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
    return NPUC_OK;
}

/* The float twin on the set's inputs, dequantized. */
static int run_float(vcmp *v, const uint8_t *const *in, npuc_err *err)
{
    int rc = float_inputs(v->g, v->fg, in, v->fin, err);
    if (rc) return rc;
    for (int32_t i = 0; i < v->g->n_inputs; i++) {
        const graph_tensor *f = &v->fg->tensors[v->fg->inputs[i]];
        if (interp_set_input(v->fip, i, v->fin[i], f->nbytes, err)) return npuc_err_prefix(err, "float model");
    }
    if (interp_invoke(v->fip, err)) return npuc_err_prefix(err, "float model");
    return NPUC_OK;
}

/* Adds one set's outputs (ref, got, float twin) to the accumulators. */
static void accumulate(vcmp *v, val_report *r)
{
    const graph *g = v->g;
    size_t o = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        val_output *vo = &r->outputs[i];
        const graph_tensor *t = &g->tensors[g->outputs[i]];
        const uint8_t *ref = v->ref + o, *got = v->got + o;
        size_t n = graph_tensor_elems(t);
        val_acc_add_tensor(&v->acc[4 * i], t->dtype, ref, got, n, 0, 0);
        if (vo->scale > 0) val_acc_add_tensor(&v->acc[4 * i + 1], t->dtype, ref, got, n, vo->scale, vo->zero_point);
        if (vo->classifier) {
            vo->top1_n++;
            vo->top1_agree += argmax(t->dtype, ref, n) == argmax(t->dtype, got, n);
        }
        if (v->fg) {
            size_t fn = 0;
            const float *fo = interp_output(v->fip, i, &fn);
            const graph_tensor *ft = &v->fg->tensors[v->fg->outputs[i]];
            double sc = vo->scale > 0 ? vo->scale : 1.0;
            double zp = vo->scale > 0 ? (double)vo->zero_point : 0.0;
            if (t->dtype == GRAPH_F32) {
                sc = 1;
                zp = 0;
            }
            for (size_t k = 0; k < n; k++) {
                double fv = val_elem(ft->dtype, fo, k);
                double rq = val_elem(t->dtype, ref, k), gq = val_elem(t->dtype, got, k);
                val_acc_add(&v->acc[4 * i + 2], fv, (gq - zp) * sc);
                val_acc_add(&v->acc[4 * i + 3], fv, (rq - zp) * sc);
            }
        }
        o += t->nbytes;
    }
}

/* Every input set through both, compared. */
static int run_sets(vctx *c, vcmp *v, npuc_err *err)
{
    const val_options *opt = c->opt;
    val_report *r = c->r;
    for (int32_t s = 0; s < opt->n_sets; s++) {
        const uint8_t *const *in = opt->inputs + (size_t)s * (size_t)v->g->n_inputs;
        int rc = run_set(c, v->ip, in, v->ref, v->got, err);
        if (rc) {
            if (opt->n_sets > 1) npuc_err_prefix(err, "input set %d", s);
            return rc;
        }
        if (c->capture_error) {
            /* the stream did not match the plan: drop the per-op NPU figures */
            c->detail = false;
            r->op_detail = false;
            snprintf(r->note, sizeof r->note, "per-op detail unavailable: %s", c->capture_msg);
            c->capture_error = 0;
        }
        if (v->fg && (rc = run_float(v, in, err))) return rc;
        accumulate(v, r);
    }
    return NPUC_OK;
}

static void finish_outputs(vcmp *v, val_report *r, double tolerance)
{
    r->pass = true;
    r->bit_exact = true;
    for (int32_t i = 0; i < v->g->n_outputs; i++) {
        val_output *vo = &r->outputs[i];
        val_metrics_finish(&v->acc[4 * i], &vo->q);
        if (vo->scale > 0) val_metrics_finish(&v->acc[4 * i + 1], &vo->deq);
        if (v->fg) {
            val_metrics_finish(&v->acc[4 * i + 2], &vo->float_deployed);
            val_metrics_finish(&v->acc[4 * i + 3], &vo->float_reference);
        }
        vo->pass = tolerance < 0 ? vo->q.bit_exact : vo->q.max_abs <= tolerance;
        r->pass &= vo->pass;
        r->bit_exact &= vo->q.bit_exact;
    }
}

/* Per inference: the sums over all sets divided by their number. */
static void finish_profile(vctx *c, const graph *g)
{
    val_report *r = c->r;
    int32_t n_sets = c->opt->n_sets;
    double ns = (double)n_sets;
    for (uint32_t e = 0; e < c->n_epochs; e++) {
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
            } else if (!c->detail && ve->n_ops == 1) {
                val_op *vo = &r->ops[ve->first_op];
                vo->npu_cycles = ve->npu_cycles * (uint64_t)n_sets;
                vo->est_cycles = ve->est_cycles;
                vo->n_npu_ops = 0;
                for (int m = 0; m < VAL_N_MEM; m++) {
                    vo->bytes_read[m] = ve->bytes_read[m] * (uint64_t)n_sets;
                    vo->bytes_written[m] = ve->bytes_written[m] * (uint64_t)n_sets;
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
}

/* The pools the model reserves (named and bounded by the system it was
 * compiled for) and, with detail, the memory plan over time. */
static void finish_memory(vctx *c)
{
    static const char *const dflt[VAL_N_MEM] = {"params", "activations", "fast"};
    npuc_model_info info;
    npuc_model_get_info(c->m, &info);
    const uint64_t used[VAL_N_MEM] = {info.params_size, info.activations_size, info.fast_size};
    c->r->state_bytes = info.state_size;
    for (int m = 0; m < VAL_N_MEM; m++) {
        val_pool *p = &c->r->pools[m];
        snprintf(p->name, sizeof p->name, "%s", dflt[m]);
        p->used = used[m];
        p->peak = p->used;
        if (c->cm) {
            const target_desc *s = &c->cm->opt.sys;
            int idx = m == 0 ? s->params_pool : m == 1 ? s->act_pool : s->fast_pool;
            if (idx >= 0 && idx < s->n_pools) {
                snprintf(p->name, sizeof p->name, "%s", s->pools[idx].name);
                /* a fast pool without a limit is reported as 0, as the others */
                p->size = s->pools[idx].size >= TARGET_FAST_NO_LIMIT ? 0 : s->pools[idx].size;
            }
        }
    }
    if (c->detail) fill_memory_plan(c);
}

static int check_options(const graph *g, const val_options *opt, npuc_err *err)
{
    if (!opt || opt->n_sets < 1 || !opt->inputs)
        return npuc_errf(err, NPUC_E_USAGE, "validate needs at least one input set");
    /* a legacy uint8 model: one clear error before anything is compiled */
    int rc = interp_check_legacy_uint8(g, NULL, NULL, err);
    if (rc) return rc;
    if (opt->float_graph && (rc = check_float_twin(g, opt->float_graph, err))) return rc;
    for (int32_t s = 0; s < opt->n_sets; s++)
        for (int32_t i = 0; i < g->n_inputs; i++)
            if (!opt->inputs[(size_t)s * (size_t)g->n_inputs + (size_t)i])
                return npuc_errf(err, NPUC_E_USAGE, "input set %d has no data for input %d", s, i);
    return NPUC_OK;
}

int val_run(const graph *g, const char *model_name, const val_options *opt, val_report **out, npuc_err *err)
{
    *out = NULL;
    int rc = check_options(g, opt, err);
    if (rc) return rc;
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
    r->compiled_here = opt->compiled == NULL && opt->compiled_path == NULL;
    vcmp v;
    memset(&v, 0, sizeof v);
    v.g = g;
    if (!(rc = deploy(&c, err)) && !(rc = alloc_report(&c, g, err)) &&
        !(rc = cmp_init(&v, g, opt->float_graph, r, err)) && !(rc = run_sets(&c, &v, err))) {
        finish_outputs(&v, r, opt->tolerance);
        finish_profile(&c, g);
        finish_memory(&c);
        *out = r;
        r = NULL;
    }
    cmp_free(&v);
    free_ctx(&c);
    val_report_free(r);
    return rc;
}
