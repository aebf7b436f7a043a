/* emit_report: what the compiler did, for people (summary) and scripts
 * (JSON with everything, CSV with one row per graph op). */
#include "emit.h"
#include "sim/sim.h"
#include "util/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t params_bytes(const cc_model *m)
{
    return m->flash_size;
}

static uint64_t sram_bytes(const cc_model *m)
{
    /* the arena lives in the activation pool */
    return m->arena_size;
}

/* The order-0 entropy (bits) of the values op o's weight stream(s)
 * decode to (cc_epoch.w_bits, worked out once on the compile's final
 * model). */
static double stream_entropy(const cc_epoch *e, const eu_op *o)
{
    return e->w_bits ? e->w_bits[o - e->ops] : 0;
}

/* Whether the system has a fast scratch pool apart from the arena. */
static bool has_fast(const cc_model *m)
{
    const target_desc *s = &m->opt.sys;
    return s->fast_pool >= 0 && s->fast_pool < s->n_pools && s->fast_pool != s->act_pool;
}

static const char *pool_name(const cc_model *m, int idx, const char *dflt)
{
    const target_desc *s = &m->opt.sys;
    return idx >= 0 && idx < s->n_pools ? s->pools[idx].name : dflt;
}

/* The pool a buffer is in, by name: the system's activation or fast pool,
 * or "state" (the variables only CPU ops use: the runtime's state pool,
 * TFLite Micro's persistent area). */
static const char *buf_pool_name(const cc_model *m, uint8_t pool)
{
    const target_desc *s = &m->opt.sys;
    return pool == CC_IN_FAST ? pool_name(m, s->fast_pool, "fast")
           : pool == CC_IN_STATE ? "state" : pool_name(m, s->act_pool, "arena");
}

/* Key of the fast pool in an op's bytes_read / bytes_written: its name,
 * unless that is taken by the params or arena key. */
static const char *fast_key(const cc_model *m)
{
    const target_desc *s = &m->opt.sys;
    const char *n = pool_name(m, s->fast_pool, "fast");
    const char *arena = s->act_pool == s->params_pool ? "arena" : pool_name(m, s->act_pool, "arena");
    if (!strcmp(n, arena) || !strcmp(n, pool_name(m, s->params_pool, "flash"))) return "fast";
    return n;
}

static const eu_op *first_eu(const cc_model *m, int32_t op)
{
    const cc_op_info *oi = &m->ops[op];
    if (!oi->npu || oi->n_eu == 0 || oi->epoch < 0) return NULL;
    return &m->epochs[oi->epoch].ops[oi->first_eu];
}

/* What one buffer of the memory plan holds (docs/compiler.md, Reports). */
static const char *buf_kind(const cc_buf *x)
{
    if (x->wcopy) return "weights";
    if (x->temp) return x->epoch >= 0 ? "rolling" : "intermediate";
    return "tensor";
}

/* The graph op a temp belongs to: a lowering's intermediate its op; a
 * weight copy the op reading it; a cascade's rolling buffer the op writing
 * it. -1 when none is found. */
static int32_t buf_op(const cc_model *m, int32_t b)
{
    const cc_buf *x = &m->bufs[b];
    if (!x->temp) return -1;
    if (x->epoch < 0) return x->op;
    if (x->epoch >= m->n_epochs) return -1;
    const cc_epoch *e = &m->epochs[x->epoch];
    for (int32_t k = 0; k < e->n_eu; k++) {
        const eu_op *o = &e->ops[k];
        if (x->wcopy ? o->wbuf == b : o->ofm.buf == b) return o->src_op;
    }
    return -1;
}

/* Lookups the report makes per buffer and per tensor, made once:
 * ends[i] is the allocation step after graph op i's last (cc_op_steps
 * summed), cat[t] cc_concat_slice_of(m, t), tensors of buffer b in order
 * from first_t[b] along next_t. NULL arrays: out of memory (the lookups
 * fall back to the compiler's). */
typedef struct rep_index {
    int32_t *ends, *cat, *first_t, *next_t;
} rep_index;

static void index_free(rep_index *x)
{
    free(x->ends);
    free(x->cat);
    free(x->first_t);
    free(x->next_t);
    memset(x, 0, sizeof *x);
}

static void index_build(rep_index *x, const cc_model *m)
{
    const graph *g = m->g;
    memset(x, 0, sizeof *x);
    x->ends = malloc(sizeof *x->ends * ((size_t)g->n_ops + 1));
    x->cat = malloc(sizeof *x->cat * ((size_t)g->n_tensors + 1));
    x->first_t = malloc(sizeof *x->first_t * ((size_t)m->n_bufs + 1));
    x->next_t = malloc(sizeof *x->next_t * ((size_t)g->n_tensors + 1));
    if (!x->ends || !x->cat || !x->first_t || !x->next_t) {
        index_free(x);
        return;
    }
    for (int32_t i = 0, t = 0; i < g->n_ops; i++) x->ends[i] = t += cc_op_steps(m, i);
    for (int32_t t = 0; t < g->n_tensors; t++) x->cat[t] = -1;
    /* as cc_concat_slice_of: the first concatenation (in op order) that
     * takes t in and writes its output in t's buffer */
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (op->opcode != TFL_OP_CONCATENATION || op->n_out != 1 || op->out[0] < 0) continue;
        int32_t out = op->out[0];
        for (int32_t k = 0; k < op->n_in; k++) {
            int32_t t = op->in[k];
            if (t < 0 || t == out || m->buf_of[t] < 0 || m->buf_of[out] != m->buf_of[t]) continue;
            if (x->cat[t] < 0) x->cat[t] = out;
        }
    }
    for (int32_t b = 0; b < m->n_bufs; b++) x->first_t[b] = -1;
    for (int32_t t = g->n_tensors - 1; t >= 0; t--) {
        int32_t b = m->buf_of[t];
        x->next_t[t] = -1;
        if (b < 0 || b >= m->n_bufs) continue;
        x->next_t[t] = x->first_t[b];
        x->first_t[b] = t;
    }
}

/* cc_step_op: the graph op allocation step `step` falls in. */
static int32_t step_op(const rep_index *x, const cc_model *m, int32_t step)
{
    int32_t n = m->g->n_ops;
    if (!x->ends) return cc_step_op(m, step);
    if (step < 0 || n <= 0) return 0;
    int32_t lo = 0, hi = n;   /* the first op whose steps end after step */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (step < x->ends[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo < n ? lo : n - 1;
}

/* Every placed buffer of both pools (the arena and the fast scratch) with
 * its offset, size, live range (allocation steps, and the graph ops they
 * fall in) and what it holds; each pool's peak is the end of its last
 * buffer, or of a "padding" entry for the alignment of the peak. */
static void write_buffers(npuc_json_writer *w, const cc_model *m, const rep_index *ix)
{
    const graph *g = m->g;
    int32_t steps = ix->ends && g->n_ops > 0 ? ix->ends[g->n_ops - 1] : 0;
    if (!ix->ends)
        for (int32_t i = 0; i < g->n_ops; i++) steps += cc_op_steps(m, i);
    uint64_t top[3] = {0, 0, 0};
    int32_t last[3] = {-1, -1, -1};
    npuc_json_write_key(w, "buffers");
    npuc_json_write_array_begin(w);
    for (int32_t b = 0; b < m->n_bufs; b++) {
        const cc_buf *x = &m->bufs[b];
        if (!x->size) continue;   /* a cascaded intermediate, an unused copy */
        int p = x->pool;   /* CC_IN_ARENA, CC_IN_FAST, CC_IN_STATE: 0, 1, 2 */
        uint64_t end = (uint64_t)x->offset + x->size;
        if (end > top[p]) top[p] = end, last[p] = b;
        npuc_json_write_object_begin(w);
        npuc_json_member_int(w, "index", b);
        npuc_json_member_string(w, "pool", buf_pool_name(m, x->pool));
        npuc_json_member_int(w, "offset", x->offset);
        npuc_json_member_uint(w, "bytes", x->size);
        npuc_json_member_string(w, "holds", buf_kind(x));
        if (x->brick) npuc_json_member_bool(w, "nhcwb16", true);
        npuc_json_member_int(w, "live_from_step", x->first);
        npuc_json_member_int(w, "live_to_step", x->last);
        npuc_json_member_int(w, "live_from_op", step_op(ix, m, x->first));
        npuc_json_member_int(w, "live_to_op", step_op(ix, m, x->last));
        if (x->over > 0) npuc_json_member_int(w, "written_over", x->over - 1);
        int32_t op = buf_op(m, b);
        if (op >= 0 && op < g->n_ops) {
            npuc_json_member_int(w, "op", m->folded_g ? g->ops[op].index : op);
            npuc_json_member_string(w, "operator", graph_op_name(&g->ops[op]));
        }
        if (!x->temp || (x->epoch >= 0 && !x->wcopy && op >= 0 && g->ops[op].n_out > 0)) {
            /* the graph tensors it holds (a cascade: the intermediate it rolls) */
            npuc_json_write_key(w, "tensors");
            npuc_json_write_array_begin(w);
            if (x->temp) {
                npuc_json_write_int(w, g->ops[op].out[0]);
            } else {
                if (ix->first_t)
                    for (int32_t t = ix->first_t[b]; t >= 0; t = ix->next_t[t]) npuc_json_write_int(w, t);
                else
                    for (int32_t t = 0; t < g->n_tensors; t++)
                        if (m->buf_of[t] == b) npuc_json_write_int(w, t);
            }
            npuc_json_write_array_end(w);
            int32_t t = x->temp ? g->ops[op].out[0] : x->tensor;
            if (t >= 0 && t < g->n_tensors) npuc_json_member_string(w, "name", g->tensors[t].name);
        }
        npuc_json_write_object_end(w);
    }
    /* the peak is rounded up to 16 bytes: the rest of the last row */
    const uint64_t peak[3] = {m->arena_size, m->fast_size, m->state_size};
    for (int p = 0; p < 3; p++) {
        if (peak[p] <= top[p]) continue;
        npuc_json_write_object_begin(w);
        npuc_json_member_int(w, "index", -1);
        npuc_json_member_string(w, "pool", buf_pool_name(m, (uint8_t)p));
        npuc_json_member_uint(w, "offset", top[p]);
        npuc_json_member_uint(w, "bytes", peak[p] - top[p]);
        npuc_json_member_string(w, "holds", "padding");
        int32_t from = last[p] >= 0 ? m->bufs[last[p]].first : 0, to = last[p] >= 0 ? m->bufs[last[p]].last : steps;
        npuc_json_member_int(w, "live_from_step", from);
        npuc_json_member_int(w, "live_to_step", to);
        npuc_json_member_int(w, "live_from_op", step_op(ix, m, from));
        npuc_json_member_int(w, "live_to_op", step_op(ix, m, to));
        npuc_json_write_object_end(w);
    }
    npuc_json_write_array_end(w);
}

/* The CALL_ONCE ops (cc_fold_once): folded ones with the variables they
 * give a value, per output form; the others with the reason. */
static void write_once(npuc_json_writer *w, const cc_model *m)
{
    const graph_model *gm = graph_model_of(m->g);
    npuc_json_write_key(w, "call_once");
    npuc_json_write_array_begin(w);
    for (int32_t i = 0; i < m->n_once; i++) {
        const cc_once *o = &m->once[i];
        npuc_json_write_object_begin(w);
        npuc_json_member_int(w, "op", o->src_op);
        npuc_json_member_string(w, "operator", "CALL_ONCE");
        npuc_json_member_int(w, "init_subgraph", o->init_subgraph);
        npuc_json_member_bool(w, "folded", o->folded);
        if (!o->folded) {
            npuc_json_member_string(w, "reason", o->why);
            npuc_json_write_object_end(w);
            continue;
        }
        npuc_json_member_int(w, "n_variables", o->n_vars);
        npuc_json_member_uint(w, "bytes", o->bytes);
        npuc_json_write_key(w, "variables");
        npuc_json_write_array_begin(w);
        const int32_t shown = o->n_vars < (int32_t)(sizeof o->vars / sizeof o->vars[0]) ? o->n_vars
                              : (int32_t)(sizeof o->vars / sizeof o->vars[0]);
        for (int32_t k = 0; gm && k < shown; k++) {
            const graph_resource *r = &gm->res[o->vars[k]];
            npuc_json_write_object_begin(w);
            npuc_json_member_int(w, "resource", o->vars[k]);
            npuc_json_member_string(w, "name", r->shared_name ? r->shared_name : "");
            npuc_json_member_string(w, "type", graph_dtype_name(r->dtype));
            npuc_json_write_key(w, "shape");
            npuc_json_write_array_begin(w);
            for (int32_t d = 0; d < r->rank; d++) npuc_json_write_int(w, r->shape[d]);
            npuc_json_write_array_end(w);
            npuc_json_member_uint(w, "bytes", r->nbytes);
            npuc_json_member_uint(w, "area_offset", r->area_off);
            npuc_json_write_object_end(w);
        }
        npuc_json_write_array_end(w);
        npuc_json_write_key(w, "outputs");
        npuc_json_write_object_begin(w);
        npuc_json_member_string(w, "nprt", "folded: no epoch; the variable area starts with these values and returns "
                                           "to them on reset");
        npuc_json_member_string(w, "c", "folded (the NPRT bytes)");
        npuc_json_member_string(w, "reloc", "folded (the NPRT bytes)");
        npuc_json_member_string(w, "tflite", "kept: TFLite Micro gives a resource variable a value only by running "
                                             "ASSIGN_VARIABLE");
        npuc_json_write_object_end(w);
        npuc_json_write_object_end(w);
    }
    npuc_json_write_array_end(w);
}

int emit_report_json(const cc_model *m, const char *model_name, const char *path, npuc_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = emit_report_json_text(m, model_name, &text, &len, err);
    if (rc) return rc;
    rc = npuc_write_file(path, text, len, err);
    free(text);
    return rc;
}

int emit_report_json_text(const cc_model *m, const char *model_name, char **out, size_t *out_len, npuc_err *err)
{
    const graph *g = m->g;
    const target_desc *s = &m->opt.sys;
    rep_index ix;
    index_build(&ix, m);
    npuc_json_writer w;
    npuc_json_writer_init(&w, 2);
    npuc_json_write_object_begin(&w);
    npuc_json_member_string(&w, "model", model_name);
    npuc_json_member_string(&w, "target", target_variant_name(s->variant));
    npuc_json_member_string(&w, "system_config", s->name);
    npuc_json_member_double(&w, "core_clock_hz", s->core_clock_hz);
    npuc_json_member_string(&w, "optimise", m->opt.optimise == CC_OPT_SIZE ? "size" : "performance");

    uint64_t macs = 0;
    int32_t n_npu = 0;
    for (int32_t i = 0; i < g->n_ops; i++) {
        macs += m->ops[i].macs;
        n_npu += m->ops[i].npu;
    }
    npuc_json_write_key(&w, "totals");
    npuc_json_write_object_begin(&w);
    npuc_json_member_int(&w, "ops", g->n_ops);
    npuc_json_member_int(&w, "npu_ops", n_npu);
    npuc_json_member_int(&w, "cpu_ops", g->n_ops - n_npu);
    npuc_json_member_uint(&w, "macs", macs);
    npuc_json_member_uint(&w, "npu_cycles", m->npu_cycles);
    double secs = s->core_clock_hz > 0 ? (double)m->npu_cycles / s->core_clock_hz : 0;
    npuc_json_member_double(&w, "npu_time_s", secs);
    npuc_json_member_double(&w, "inferences_per_s", secs > 0 ? 1.0 / secs : 0);
    npuc_json_member_uint(&w, "peak_sram_bytes", sram_bytes(m));
    npuc_json_member_uint(&w, "state_bytes", cc_state_bytes(m));
    npuc_json_member_uint(&w, "state_pool_bytes", m->state_size);
    npuc_json_member_uint(&w, "cpu_scratch_bytes", emit_cpu_scratch_bytes(m));
    npuc_json_member_uint(&w, "peak_fast_bytes", m->fast_size);
    npuc_json_member_uint(&w, "flash_bytes", params_bytes(m));
    npuc_json_member_uint(&w, "command_stream_bytes", m->stream_size);
    {
        uint64_t wb = m->weight_bytes;
        double ent = m->weight_bits;
        npuc_json_member_uint(&w, "weight_bytes", wb);
        npuc_json_member_uint(&w, "weight_entropy_bytes", (uint64_t)ceil(ent / 8.0));
    }
    npuc_json_member_double(&w, "compile_time_s", m->compile_seconds);
    if (m->n_folded) npuc_json_member_int(&w, "folded_ops", m->n_folded);
    npuc_json_write_object_end(&w);

    if (m->n_folded) {
        /* ops evaluated at compile time (cc_fold.c): source op index, its
         * operator and the output tensor that became a constant */
        npuc_json_write_key(&w, "folded");
        npuc_json_write_array_begin(&w);
        for (int32_t i = 0; i < m->n_folded; i++) {
            const cc_folded *f = &m->folded[i];
            npuc_json_write_object_begin(&w);
            npuc_json_member_int(&w, "op", f->op);
            npuc_json_member_string(&w, "operator", f->op_name);
            npuc_json_member_int(&w, "tensor", f->tensor);
            npuc_json_member_string(&w, "tensor_name", f->tensor_name);
            npuc_json_write_object_end(&w);
        }
        npuc_json_write_array_end(&w);
    }

    if (m->n_once) write_once(&w, m);

    npuc_json_write_key(&w, "pools");
    npuc_json_write_array_begin(&w);
    for (int i = 0; i < s->n_pools; i++) {
        const target_pool *p = &s->pools[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_string(&w, "name", p->name);
        npuc_json_member_uint(&w, "size", p->size);
        npuc_json_write_key(&w, "used_bytes");
        npuc_json_write_uint(&w, i == s->act_pool ? m->arena_size
                                 : i == s->params_pool ? params_bytes(m)
                                 : i == s->fast_pool ? m->fast_size : 0);
        npuc_json_write_key(&w, "holds");
        npuc_json_write_string(&w, i == s->act_pool && i == s->params_pool ? "params+activations"
                                   : i == s->act_pool ? "activations"
                                   : i == s->params_pool ? "params" : i == s->fast_pool ? "fast scratch" : "");
        npuc_json_write_object_end(&w);
    }
    if (m->state_size) {
        /* the variables only CPU ops use: the runtime's state pool (the
         * caller's memory), TFLite Micro's persistent area */
        npuc_json_write_object_begin(&w);
        npuc_json_member_string(&w, "name", "state");
        npuc_json_member_uint(&w, "size", 0);
        npuc_json_member_uint(&w, "used_bytes", m->state_size);
        npuc_json_member_string(&w, "holds", "state");
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);

    npuc_json_write_key(&w, "epochs");
    npuc_json_write_array_begin(&w);
    for (int32_t i = 0; i < m->n_epochs; i++) {
        const cc_epoch *e = &m->epochs[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_string(&w, "kind", e->kind == CC_EPOCH_HW ? "HW" : "SW");
        npuc_json_member_int(&w, "first_op", e->first_op);
        npuc_json_member_int(&w, "n_ops", e->n_ops);
        if (e->kind == CC_EPOCH_HW) {
            npuc_json_member_int(&w, "npu_ops", e->n_eu);
            npuc_json_member_uint(&w, "cycles", e->cycles);
            npuc_json_member_uint(&w, "command_stream_bytes", e->payload_size);
            npuc_json_member_uint(&w, "constant_bytes", e->flash_size);
            if (e->flash_shared > 0) npuc_json_member_int(&w, "constants_of_epoch", e->flash_shared - 1);
        }
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);

    npuc_json_write_key(&w, "tensors");
    npuc_json_write_array_begin(&w);
    for (int32_t t = 0; t < g->n_tensors; t++) {
        int32_t b = m->buf_of[t];
        if (b < 0) continue;
        const cc_buf *x = &m->bufs[b];
        npuc_json_write_object_begin(&w);
        npuc_json_member_int(&w, "index", t);
        npuc_json_member_string(&w, "name", g->tensors[t].name);
        npuc_json_member_int(&w, "buffer", b);
        npuc_json_member_string(&w, "pool", buf_pool_name(m, x->pool));
        npuc_json_member_int(&w, "offset", x->offset);
        /* an intermediate of a cascade lives only in its rolling buffer; a
         * concatenation input written in place in the output's bytes */
        int32_t cat = ix.cat ? ix.cat[t] : cc_concat_slice_of(m, t);
        npuc_json_member_uint(&w, "bytes", (x->size || x->temp) && cat < 0 ? g->tensors[t].nbytes : 0);
        if (!x->size && !x->temp) npuc_json_member_bool(&w, "cascaded", true);
        if (cat >= 0) npuc_json_member_int(&w, "slice_of", cat);
        /* first/last are steps of the allocation timeline: report ops */
        npuc_json_member_int(&w, "live_from_op", step_op(&ix, m, x->first));
        npuc_json_member_int(&w, "live_to_op", step_op(&ix, m, x->last));
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);

    write_buffers(&w, m, &ix);

    npuc_json_write_key(&w, "ops");
    npuc_json_write_array_begin(&w);
    for (int32_t i = 0; i < g->n_ops; i++) {
        const cc_op_info *oi = &m->ops[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_int(&w, "index", m->folded_g ? g->ops[i].index : i);   /* source op index */
        npuc_json_member_string(&w, "op", graph_op_name(&g->ops[i]));
        npuc_json_member_string(&w, "runs_on", oi->npu ? "NPU" : "CPU");
        npuc_json_member_int(&w, "cascade", oi->cascade);
        for (int32_t j = 0; oi->cascade == i && j < m->n_cascade_in; j++)
            if (m->cascade_in[j].head == i) {
                /* a cascade's head: its band count and band ops */
                npuc_json_member_int(&w, "cascade_bands", m->cascade_in[j].bands);
                npuc_json_member_int(&w, "cascade_ops", oi->cascade_ops);
            }
        if (oi->fused_into >= 0)   /* an activation its producer's output stage applies */
            npuc_json_member_int(&w, "fused_into", m->folded_g ? g->ops[oi->fused_into].index : oi->fused_into);
        if (oi->folded_into >= 0)   /* a PAD / uint8 QUANTIZE a later conv's NPU ops apply */
            npuc_json_member_int(&w, "folded_into", m->folded_g ? g->ops[oi->folded_into].index : oi->folded_into);
        if (!oi->npu) {
            npuc_json_member_string(&w, "reason", oi->why);
        }
        npuc_json_member_int(&w, "epoch", oi->epoch);
        npuc_json_member_uint(&w, "macs", oi->macs);
        npuc_json_member_uint(&w, "npu_cycles", oi->cycles);
        npuc_json_write_key(&w, "bytes_read");
        npuc_json_write_object_begin(&w);
        npuc_json_member_uint(&w, pool_name(m, s->params_pool, "flash"), oi->bytes_read[0]);
        npuc_json_member_uint(&w, s->act_pool == s->params_pool ? "arena" : pool_name(m, s->act_pool, "arena"), oi->bytes_read[1]);
        if (has_fast(m)) npuc_json_member_uint(&w, fast_key(m), oi->bytes_read[2]);
        npuc_json_write_object_end(&w);
        npuc_json_write_key(&w, "bytes_written");
        npuc_json_write_object_begin(&w);
        npuc_json_member_uint(&w, s->act_pool == s->params_pool ? "arena" : pool_name(m, s->act_pool, "arena"), oi->bytes_written[1]);
        if (has_fast(m)) npuc_json_member_uint(&w, fast_key(m), oi->bytes_written[2]);
        npuc_json_write_object_end(&w);
        npuc_json_write_key(&w, "npu_ops");
        npuc_json_write_array_begin(&w);
        if (oi->npu && oi->epoch >= 0)
            for (int32_t k = oi->first_eu; k < m->epochs[oi->epoch].n_eu; k++) {
                /* a cascade interleaves its members' ops */
                const eu_op *o = &m->epochs[oi->epoch].ops[k];
                if (o->src_op != i) continue;
                npuc_json_write_object_begin(&w);
                npuc_json_member_string(&w, "kind", sim_op_kind_name(o->kind, o->mode));
                npuc_json_write_key(&w, "block");
                npuc_json_write_array_begin(&w);
                npuc_json_write_uint(&w, o->blk.w);
                npuc_json_write_uint(&w, o->blk.h);
                npuc_json_write_uint(&w, o->blk.d);
                npuc_json_write_array_end(&w);
                npuc_json_member_uint(&w, "weight_bytes", o->w_len + o->w1_len);
                if (o->w_len)
                    npuc_json_member_uint(&w, "weight_entropy_bytes",
                                          (uint64_t)ceil(stream_entropy(&m->epochs[oi->epoch], o) / 8.0));
                npuc_json_member_uint(&w, "scale_bytes", o->s_len + o->s1_len);
                npuc_json_write_object_end(&w);
            }
        npuc_json_write_array_end(&w);
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);
    npuc_json_write_object_end(&w);
    int rc = npuc_json_writer_finish(&w, out, out_len, err);
    npuc_json_writer_free(&w);
    index_free(&ix);
    return rc;
}

static void csv_field(npuc_sbuf *b, const char *s)
{
    npuc_sb_printf(b, "\"");
    for (; s && *s; s++) npuc_sb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    npuc_sb_printf(b, "\"");
}

int emit_report_csv(const cc_model *m, const char *path, npuc_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = emit_report_csv_text(m, &text, &len, err);
    if (rc) return rc;
    rc = npuc_write_file(path, text, len, err);
    free(text);
    return rc;
}

int emit_report_csv_text(const cc_model *m, char **out, size_t *out_len, npuc_err *err)
{
    const graph *g = m->g;
    npuc_sbuf b = {0};
    npuc_sb_printf(&b, "index,op,runs_on,reason,epoch,macs,npu_cycles,params_read_bytes,"
                  "arena_read_bytes,arena_written_bytes,npu_ops,block,fast_read_bytes,fast_written_bytes\n");
    for (int32_t i = 0; i < g->n_ops; i++) {
        const cc_op_info *oi = &m->ops[i];
        npuc_sb_printf(&b, "%d,", m->folded_g ? g->ops[i].index : i);
        csv_field(&b, graph_op_name(&g->ops[i]));
        npuc_sb_printf(&b, ",%s,", oi->npu ? "NPU" : "CPU");
        csv_field(&b, oi->npu ? "" : oi->why);
        const eu_op *o = first_eu(m, i);
        npuc_sb_printf(&b, ",%d,%llu,%llu,%llu,%llu,%llu,%d,", oi->epoch, (unsigned long long)oi->macs,
                  (unsigned long long)oi->cycles, (unsigned long long)oi->bytes_read[0],
                  (unsigned long long)oi->bytes_read[1], (unsigned long long)oi->bytes_written[1],
                  oi->n_eu);
        if (o) npuc_sb_printf(&b, "%ux%ux%u", o->blk.w, o->blk.h, o->blk.d);
        npuc_sb_printf(&b, ",%llu,%llu\n", (unsigned long long)oi->bytes_read[2],
                       (unsigned long long)oi->bytes_written[2]);
    }
    if (b.oom) {
        free(b.p);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    *out_len = b.n;
    return npuc_sb_finish(&b, out, err);
}

int emit_summary(const cc_model *m, const char *model_name, char **out, npuc_err *err)
{
    const graph *g = m->g;
    const target_desc *s = &m->opt.sys;
    npuc_sbuf b = {0};
    uint64_t macs = 0;
    int32_t n_npu = 0, n_hw = 0;
    for (int32_t i = 0; i < g->n_ops; i++) {
        macs += m->ops[i].macs;
        n_npu += m->ops[i].npu;
    }
    for (int32_t i = 0; i < m->n_epochs; i++) n_hw += m->epochs[i].kind == CC_EPOCH_HW;
    double secs = s->core_clock_hz > 0 ? (double)m->npu_cycles / s->core_clock_hz : 0;
    npuc_sb_printf(&b, "Network summary for %s\n", model_name);
    npuc_sb_printf(&b, "  Accelerator configuration   %s\n", target_variant_name(s->variant));
    npuc_sb_printf(&b, "  System configuration        %s\n", s->name);
    npuc_sb_printf(&b, "  Accelerator clock           %.0f MHz\n", s->core_clock_hz / 1e6);
    npuc_sb_printf(&b, "  Optimise for                %s\n",
              m->opt.optimise == CC_OPT_SIZE ? "size" : "performance");
    npuc_sb_printf(&b, "\n");
    /* with a fast pool the arena is the slower memory (U65: DRAM) */
    npuc_sb_printf(&b, "  %-28s%10.2f KiB  in pool '%s'",
                   has_fast(m) ? "Total arena used" : "Total SRAM used (arena)",
                   (double)sram_bytes(m) / 1024.0, pool_name(m, s->act_pool, "arena"));
    uint64_t state = cc_state_bytes(m);
    if (state) npuc_sb_printf(&b, " (state kept across invocations %.2f KiB)", (double)state / 1024.0);
    npuc_sb_printf(&b, "\n");
    if (m->state_size)
        npuc_sb_printf(&b, "  %-28s%10.2f KiB  in the state pool (kept across invocations, CPU ops only)\n",
                       "State of CPU operators", (double)m->state_size / 1024.0);
    const uint64_t cpu_scratch = emit_cpu_scratch_bytes(m);
    if (cpu_scratch)
        npuc_sb_printf(&b, "  %-28s%10.2f KiB  after the arena, in the runtime's forms (bin, c, reloc)\n",
                       "Scratch of CPU kernels", (double)cpu_scratch / 1024.0);
    if (has_fast(m)) {
        npuc_sb_printf(&b, "  Total fast scratch used     %10.2f KiB  in pool '%s' ", (double)m->fast_size / 1024.0,
                       pool_name(m, s->fast_pool, "fast"));
        if (s->pools[s->fast_pool].size >= TARGET_FAST_NO_LIMIT) npuc_sb_printf(&b, "(no limit)\n");
        else npuc_sb_printf(&b, "(%.2f KiB)\n", (double)s->pools[s->fast_pool].size / 1024.0);
    }
    npuc_sb_printf(&b, "  Total flash used            %10.2f KiB  in pool '%s' (command streams %.2f KiB)\n",
              (double)params_bytes(m) / 1024.0, pool_name(m, s->params_pool, "flash"),
              (double)m->stream_size / 1024.0);
    {
        uint64_t wb = m->weight_bytes;
        double ent = m->weight_bits;
        if (wb)
            npuc_sb_printf(&b, "  Weight streams              %10.2f KiB  (order-0 entropy of their values %.2f KiB: %.3fx)\n",
                           (double)wb / 1024.0, ent / 8192.0, ent > 0 ? (double)wb * 8.0 / ent : 0.0);
    }
    npuc_sb_printf(&b, "\n");
    npuc_sb_printf(&b, "  CPU operators               %6d (%5.1f%%)\n", g->n_ops - n_npu,
              g->n_ops ? 100.0 * (g->n_ops - n_npu) / g->n_ops : 0.0);
    npuc_sb_printf(&b, "  NPU operators               %6d (%5.1f%%) in %d command stream(s)\n", n_npu,
              g->n_ops ? 100.0 * n_npu / g->n_ops : 0.0, n_hw);
    if (m->n_folded) npuc_sb_printf(&b, "  Folded operators            %6d (constants computed at compile time)\n", m->n_folded);
    int32_t n_casc = 0, n_casc_ops = 0;
    for (int32_t i = 0; i < g->n_ops; i++) {
        n_casc += m->ops[i].cascade == i;
        n_casc_ops += m->ops[i].cascade >= 0;
    }
    int32_t n_fused = 0;
    for (int32_t i = 0; i < g->n_ops; i++) n_fused += m->ops[i].fused_into >= 0;
    if (n_fused)
        npuc_sb_printf(&b, "  Fused activations           %6d (applied in their producer's output stage)\n",
                       n_fused);
    int32_t n_into = 0;
    for (int32_t i = 0; i < g->n_ops; i++) n_into += m->ops[i].folded_into >= 0;
    if (n_into)
        npuc_sb_printf(&b, "  Folded into convs           %6d (PADs and uint8 QUANTIZEs the next conv applies)\n",
                       n_into);
    if (n_casc)
        npuc_sb_printf(&b, "  Cascades                    %6d (%d operators run band by band)\n", n_casc,
                       n_casc_ops);
    npuc_sb_printf(&b, "  Neural network MACs         %llu\n", (unsigned long long)macs);
    npuc_sb_printf(&b, "  NPU cycles                  %llu\n", (unsigned long long)m->npu_cycles);
    if (secs > 0)
        npuc_sb_printf(&b, "  NPU inference time          %.3f ms, %.0f inferences/s\n", secs * 1e3,
                  1.0 / secs);
    npuc_sb_printf(&b, "  Compile time                %.2f ms\n", m->compile_seconds * 1e3);
    int32_t shown = 0;
    for (int32_t i = 0; i < g->n_ops; i++) {
        if (m->ops[i].npu) continue;
        if (!shown++) npuc_sb_printf(&b, "\n  CPU operators and why:\n");
        if (shown > 10) {
            npuc_sb_printf(&b, "    ... (%d more; see the report or --verbose)\n", g->n_ops - n_npu - 10);
            break;
        }
        npuc_sb_printf(&b, "    op %d %s: %s\n", m->folded_g ? g->ops[i].index : i, graph_op_name(&g->ops[i]),
                       m->ops[i].why);
    }
    for (int32_t i = 0; i < m->n_folded; i++) {
        const cc_folded *f = &m->folded[i];
        if (!i) npuc_sb_printf(&b, "\n  Operators folded into constants (computed at compile time):\n");
        if (i >= 10) {
            npuc_sb_printf(&b, "    ... (%d more; see the report)\n", m->n_folded - 10);
            break;
        }
        npuc_sb_printf(&b, "    op %d %s -> tensor %d '%s'\n", f->op, f->op_name, f->tensor, f->tensor_name);
    }
    for (int32_t i = 0; i < m->n_once; i++) {
        const cc_once *o = &m->once[i];
        if (!i) npuc_sb_printf(&b, "\n  CALL_ONCE initialisers:\n");
        if (o->folded)
            npuc_sb_printf(&b, "    folded: op %d CALL_ONCE (init subgraph %d): %d variable%s, %llu bytes, the initial "
                           "values of the .nprt / C / loadable model; kept in _npu.tflite, where TFLite Micro needs it\n",
                           o->src_op, o->init_subgraph, o->n_vars, o->n_vars == 1 ? "" : "s",
                           (unsigned long long)o->bytes);
        else
            npuc_sb_printf(&b, "    kept: op %d CALL_ONCE (init subgraph %d): %s\n", o->src_op, o->init_subgraph, o->why);
    }
    return npuc_sb_finish(&b, out, err);
}
