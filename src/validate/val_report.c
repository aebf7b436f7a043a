/* val_report: a validation report as JSON (everything), CSV (one row per
 * graph op) and text (the lines `npuc validate` prints). */
#include "validate.h"
#include "util/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mem_key[VAL_N_MEM] = {"params", "activations", "fast"};

static const char *kind_word(uint8_t k)
{
    return k == NPURT_EPOCH_HW ? "HW" : k == NPURT_EPOCH_SW ? "SW" : k == NPURT_EPOCH_HYBRID ? "HYBRID" : "-";
}

/* ------------------------------------------------------------------ JSON */

static void j_metrics(npuc_json_writer *w, const char *key, const val_metrics *m)
{
    npuc_json_write_key(w, key);
    npuc_json_write_object_begin(w);
    npuc_json_member_bool(w, "bit_exact", m->bit_exact);
    npuc_json_member_uint(w, "elements", m->n);
    npuc_json_member_uint(w, "differing", m->n_diff);
    npuc_json_member_int(w, "first_difference", m->first_diff);
    npuc_json_member_double(w, "max_abs_error", m->max_abs);
    npuc_json_member_double(w, "mae", m->mae);
    npuc_json_member_double(w, "rmse", m->rmse);
    npuc_json_member_double(w, "cosine_similarity", m->cosine);
    npuc_json_member_double(w, "l2_relative_error", m->l2_rel);   /* infinity is written as null */
    npuc_json_write_object_end(w);
}

static void j_bytes(npuc_json_writer *w, const char *key, const uint64_t *b)
{
    npuc_json_write_key(w, key);
    npuc_json_write_object_begin(w);
    for (int m = 0; m < VAL_N_MEM; m++) {
        npuc_json_member_uint(w, mem_key[m], b[m]);
    }
    npuc_json_write_object_end(w);
}

int val_report_json(const val_report *r, char **out, npuc_err *err)
{
    npuc_json_writer w;
    npuc_json_writer_init(&w, 2);
    npuc_json_write_object_begin(&w);
    npuc_json_member_string(&w, "model", r->model);
    npuc_json_member_string(&w, "target", r->target);
    npuc_json_member_string(&w, "system_config", r->system);
    npuc_json_member_double(&w, "core_clock_hz", r->core_clock_hz);
    npuc_json_member_uint(&w, "macs_per_cycle", r->macs_per_cycle);
    npuc_json_member_int(&w, "input_sets", r->n_sets);
    npuc_json_member_bool(&w, "compiled_here", r->compiled_here);
    npuc_json_member_bool(&w, "op_detail", r->op_detail);
    npuc_json_member_string(&w, "note", r->note);
    npuc_json_write_key(&w, "tolerance");
    if (r->tolerance < 0) npuc_json_write_null(&w);
    else npuc_json_write_double(&w, r->tolerance);
    npuc_json_member_bool(&w, "bit_exact", r->bit_exact);
    npuc_json_member_bool(&w, "pass", r->pass);

    npuc_json_write_key(&w, "outputs");
    npuc_json_write_array_begin(&w);
    for (int32_t i = 0; i < r->n_outputs; i++) {
        const val_output *o = &r->outputs[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_int(&w, "index", o->index);
        npuc_json_member_string(&w, "name", o->name);
        npuc_json_member_string(&w, "dtype", graph_dtype_name(o->dtype));
        npuc_json_member_string(&w, "verdict", o->q.bit_exact ? "bit-exact" : "NOT bit-exact");
        npuc_json_member_bool(&w, "pass", o->pass);
        npuc_json_member_double(&w, "scale", o->scale);
        npuc_json_member_int(&w, "zero_point", o->zero_point);
        j_metrics(&w, "quantized", &o->q);
        if (o->scale > 0) j_metrics(&w, "dequantized", &o->deq);
        if (o->classifier) {
            npuc_json_write_key(&w, "top1_agreement");
            npuc_json_write_object_begin(&w);
            npuc_json_member_int(&w, "agree", o->top1_agree);
            npuc_json_member_int(&w, "sets", o->top1_n);
            npuc_json_member_double(&w, "rate", o->top1_n ? (double)o->top1_agree / o->top1_n : 0);
            npuc_json_write_object_end(&w);
        }
        if (o->has_float) {
            j_metrics(&w, "deployed_vs_float", &o->float_deployed);
            j_metrics(&w, "reference_vs_float", &o->float_reference);
        }
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);

    npuc_json_write_key(&w, "totals");
    npuc_json_write_object_begin(&w);
    npuc_json_member_uint(&w, "macs", r->macs);
    npuc_json_member_uint(&w, "npu_cycles", r->npu_cycles);
    npuc_json_member_uint(&w, "npu_cycles_estimate", r->est_cycles);
    npuc_json_member_double(&w, "npu_time_s", r->npu_s);
    npuc_json_member_double(&w, "cpu_time_s_host", r->cpu_ns * 1e-9);
    npuc_json_member_double(&w, "inferences_per_s", r->inferences_per_s);
    npuc_json_member_int(&w, "npu_ops", r->n_npu_ops_graph);
    npuc_json_member_int(&w, "cpu_ops", r->n_cpu_ops_graph);
    npuc_json_write_key(&w, "mac_utilisation");
    npuc_json_write_double(&w, r->npu_cycles && r->macs_per_cycle
                                   ? (double)r->macs / ((double)r->npu_cycles * r->macs_per_cycle) : 0);
    npuc_json_write_object_end(&w);

    npuc_json_write_key(&w, "pools");
    npuc_json_write_array_begin(&w);
    for (int m = 0; m < VAL_N_MEM; m++) {
        const val_pool *p = &r->pools[m];
        npuc_json_write_object_begin(&w);
        npuc_json_member_string(&w, "role", mem_key[m]);
        npuc_json_member_string(&w, "name", p->name);
        npuc_json_member_uint(&w, "size", p->size);
        npuc_json_member_uint(&w, "used", p->used);
        npuc_json_member_uint(&w, "peak", p->peak);
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);
    npuc_json_member_uint(&w, "state_bytes", r->state_bytes);

    npuc_json_write_key(&w, "epochs");
    npuc_json_write_array_begin(&w);
    for (int32_t i = 0; i < r->n_epochs; i++) {
        const val_epoch *e = &r->epochs[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_int(&w, "index", i);
        npuc_json_member_string(&w, "kind", kind_word(e->kind));
        npuc_json_member_string(&w, "work", e->work);
        npuc_json_member_int(&w, "first_op", e->first_op);
        npuc_json_member_int(&w, "n_ops", e->n_ops);
        npuc_json_member_uint(&w, "macs", e->macs);
        npuc_json_member_uint(&w, "npu_cycles", e->npu_cycles);
        npuc_json_member_uint(&w, "npu_cycles_estimate", e->est_cycles);
        npuc_json_member_double(&w, "cpu_time_ns_host", e->cpu_ns);
        j_bytes(&w, "bytes_read", e->bytes_read);
        j_bytes(&w, "bytes_written", e->bytes_written);
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);

    npuc_json_write_key(&w, "ops");
    npuc_json_write_array_begin(&w);
    for (int32_t i = 0; i < r->n_ops; i++) {
        const val_op *o = &r->ops[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_int(&w, "index", o->index);
        npuc_json_member_string(&w, "op", o->type);
        npuc_json_member_string(&w, "name", o->name);
        npuc_json_member_int(&w, "epoch", o->epoch);
        npuc_json_member_string(&w, "kind", kind_word(o->kind));
        npuc_json_member_string(&w, "runs_on", o->epoch < 0 ? "-" : o->kind == NPURT_EPOCH_HW ? "NPU" : "CPU");
        if (o->why[0]) {
            npuc_json_member_string(&w, "reason", o->why);
        }
        npuc_json_member_int(&w, "npu_ops", o->n_npu_ops);
        npuc_json_member_uint(&w, "macs", o->macs);
        npuc_json_member_uint(&w, "npu_cycles", o->npu_cycles);
        npuc_json_member_uint(&w, "npu_cycles_estimate", o->est_cycles);
        npuc_json_member_double(&w, "cpu_time_ns_host", o->cpu_ns);
        npuc_json_member_double(&w, "mac_utilisation", o->mac_util);
        j_bytes(&w, "bytes_read", o->bytes_read);
        j_bytes(&w, "bytes_written", o->bytes_written);
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);

    npuc_json_write_key(&w, "memory");
    npuc_json_write_object_begin(&w);
    npuc_json_write_key(&w, "buffers");
    npuc_json_write_array_begin(&w);
    for (int32_t i = 0; i < r->n_buffers; i++) {
        const val_buffer *b = &r->buffers[i];
        npuc_json_write_object_begin(&w);
        npuc_json_member_int(&w, "tensor", b->tensor);
        npuc_json_member_string(&w, "name", b->name);
        npuc_json_member_string(&w, "pool", mem_key[b->pool >= 0 && b->pool < VAL_N_MEM ? b->pool : 1]);
        npuc_json_member_uint(&w, "offset", b->offset);
        npuc_json_member_uint(&w, "size", b->size);
        npuc_json_member_int(&w, "first_op", b->first_op);
        npuc_json_member_int(&w, "last_op", b->last_op);
        npuc_json_write_object_end(&w);
    }
    npuc_json_write_array_end(&w);
    npuc_json_write_key(&w, "activation_bytes_live");
    if (r->live) {
        npuc_json_write_array_begin(&w);
        for (int32_t i = 0; i < r->n_ops; i++) npuc_json_write_uint(&w, r->live[i]);
        npuc_json_write_array_end(&w);
    } else {
        npuc_json_write_null(&w);
    }
    npuc_json_write_object_end(&w);
    npuc_json_write_object_end(&w);

    char *text = NULL;
    size_t len = 0;
    int rc = npuc_json_writer_finish(&w, &text, &len, err);
    npuc_json_writer_free(&w);
    if (rc) return rc;
    *out = text;
    return NPUC_OK;
}

/* ------------------------------------------------------------------- CSV */

static void csv_field(npuc_sbuf *b, const char *s)
{
    npuc_sb_printf(b, "\"");
    for (; s && *s; s++) {
        if (*s == '"') npuc_sb_printf(b, "\"\"");
        else npuc_sb_printf(b, "%c", *s);
    }
    npuc_sb_printf(b, "\"");
}

int val_report_csv(const val_report *r, char **out, npuc_err *err)
{
    npuc_sbuf b = {0};
    npuc_sb_printf(&b, "index,op,name,runs_on,epoch,epoch_kind,reason,npu_ops,macs,npu_cycles,npu_cycles_estimate,"
                  "cpu_time_ns_host,mac_utilisation,params_read_bytes,activations_read_bytes,fast_read_bytes,"
                  "params_written_bytes,activations_written_bytes,fast_written_bytes\n");
    for (int32_t i = 0; i < r->n_ops; i++) {
        const val_op *o = &r->ops[i];
        npuc_sb_printf(&b, "%d,", o->index);
        csv_field(&b, o->type);
        npuc_sb_printf(&b, ",");
        csv_field(&b, o->name);
        npuc_sb_printf(&b, ",%s,%d,%s,", o->epoch < 0 ? "-" : o->kind == NPURT_EPOCH_HW ? "NPU" : "CPU", o->epoch,
                  kind_word(o->kind));
        csv_field(&b, o->why);
        npuc_sb_printf(&b, ",%d,%llu,%llu,%llu,%.0f,%.4f", o->n_npu_ops, (unsigned long long)o->macs,
                  (unsigned long long)o->npu_cycles, (unsigned long long)o->est_cycles, o->cpu_ns, o->mac_util);
        for (int m = 0; m < VAL_N_MEM; m++) npuc_sb_printf(&b, ",%llu", (unsigned long long)o->bytes_read[m]);
        for (int m = 0; m < VAL_N_MEM; m++) npuc_sb_printf(&b, ",%llu", (unsigned long long)o->bytes_written[m]);
        npuc_sb_printf(&b, "\n");
    }
    return npuc_sb_finish(&b, out, err);
}

/* ------------------------------------------------------------------ text */

static void fmt_metric(char *buf, size_t cap, double v)
{
    if (isinf(v)) snprintf(buf, cap, "inf");
    else snprintf(buf, cap, "%.6g", v);
}

/* Seconds as "1.234 ms" or "12.3 us". */
static void fmt_time(char *buf, size_t cap, double s)
{
    if (s >= 1e-4 || s == 0) snprintf(buf, cap, "%.3f ms", s * 1e3);
    else snprintf(buf, cap, "%.1f us", s * 1e6);
}

static void text_metrics(npuc_sbuf *b, const char *label, const val_metrics *m)
{
    char l2[32];
    fmt_metric(l2, sizeof l2, m->l2_rel);
    npuc_sb_printf(b, "    %-13s max abs %.6g  MAE %.6g  RMSE %.6g  cosine %.6f  L2 rel %s\n", label, m->max_abs, m->mae,
              m->rmse, m->cosine, l2);
}

int val_report_text(const val_report *r, bool profile, char **out, npuc_err *err)
{
    npuc_sbuf b = {0};
    npuc_sb_printf(&b, "validate %s on %s (%s, %.0f MHz), %d input set%s%s\n", r->model, r->target, r->system,
              r->core_clock_hz / 1e6, r->n_sets, r->n_sets == 1 ? "" : "s",
              r->compiled_here ? "" : ", prebuilt model");
    for (int32_t i = 0; i < r->n_outputs; i++) {
        const val_output *o = &r->outputs[i];
        npuc_sb_printf(&b, "output %d '%s' %s: %s", o->index, o->name, graph_dtype_name(o->dtype),
                  o->q.bit_exact ? "bit-exact" : "NOT bit-exact");
        if (!o->q.bit_exact)
            npuc_sb_printf(&b, " (%llu of %llu elements differ, first at %lld)%s", (unsigned long long)o->q.n_diff,
                      (unsigned long long)o->q.n, (long long)o->q.first_diff,
                      r->tolerance >= 0 ? (o->pass ? ", within tolerance" : ", beyond tolerance") : "");
        npuc_sb_printf(&b, "\n");
        text_metrics(&b, "quantized", &o->q);
        if (o->scale > 0) text_metrics(&b, "dequantized", &o->deq);
        if (o->classifier)
            npuc_sb_printf(&b, "    top-1 agreement %d/%d\n", o->top1_agree, o->top1_n);
        if (o->has_float) {
            text_metrics(&b, "vs float", &o->float_deployed);
            text_metrics(&b, "ref vs float", &o->float_reference);
        }
    }
    char npu_t[32], cpu_t[32];
    fmt_time(npu_t, sizeof npu_t, r->npu_s);
    fmt_time(cpu_t, sizeof cpu_t, r->cpu_ns * 1e-9);
    npuc_sb_printf(&b, "NPU %llu cycles (compiler estimate %llu) = %s at %.0f MHz; CPU kernels %s on this host; "
                  "%.1f inferences/s\n",
              (unsigned long long)r->npu_cycles, (unsigned long long)r->est_cycles, npu_t, r->core_clock_hz / 1e6,
              cpu_t, r->inferences_per_s);
    npuc_sb_printf(&b, "memory: %s %llu B, %s %llu B (peak live %llu B)", r->pools[0].name,
              (unsigned long long)r->pools[0].used, r->pools[1].name, (unsigned long long)r->pools[1].used,
              (unsigned long long)r->pools[1].peak);
    if (r->pools[2].used)
        npuc_sb_printf(&b, ", fast scratch %s %llu B (peak live %llu B)", r->pools[2].name,
                       (unsigned long long)r->pools[2].used, (unsigned long long)r->pools[2].peak);
    if (r->state_bytes)
        npuc_sb_printf(&b, ", state %llu B (kept across invocations)", (unsigned long long)r->state_bytes);
    npuc_sb_printf(&b, "\n");
    if (r->note[0]) npuc_sb_printf(&b, "note: %s\n", r->note);
    if (profile) {
        npuc_sb_printf(&b, "\nepoch kind    work                       ops        NPU cycles   estimate   CPU us     MACs\n");
        for (int32_t i = 0; i < r->n_epochs; i++) {
            const val_epoch *e = &r->epochs[i];
            char ops[32];
            snprintf(ops, sizeof ops, e->n_ops > 1 ? "%d-%d" : "%d", e->first_op, e->first_op + e->n_ops - 1);
            npuc_sb_printf(&b, "%5d %-7s %-26s %-9s %11llu %10llu %8.1f %9llu\n", i, kind_word(e->kind), e->work, ops,
                      (unsigned long long)e->npu_cycles, (unsigned long long)e->est_cycles, e->cpu_ns / 1e3,
                      (unsigned long long)e->macs);
        }
        npuc_sb_printf(&b, "\n  op type                  on   epoch NPU cycles   estimate   CPU us      MACs  util  "
                      "params rd  act rd  act wr\n");
        for (int32_t i = 0; i < r->n_ops; i++) {
            const val_op *o = &r->ops[i];
            npuc_sb_printf(&b, "%4d %-20.20s %-4s %5d %10llu %10llu %8.1f %9llu %4.0f%% %10llu %7llu %7llu\n", o->index,
                      o->type, o->epoch < 0 ? "-" : o->kind == NPURT_EPOCH_HW ? "NPU" : "CPU", o->epoch,
                      (unsigned long long)o->npu_cycles, (unsigned long long)o->est_cycles, o->cpu_ns / 1e3,
                      (unsigned long long)o->macs, o->mac_util * 100.0,
                      (unsigned long long)o->bytes_read[VAL_MEM_PARAMS],
                      (unsigned long long)o->bytes_read[VAL_MEM_ACTIVATIONS],
                      (unsigned long long)o->bytes_written[VAL_MEM_ACTIVATIONS]);
        }
    }
    npuc_sb_printf(&b, "%s\n", r->pass ? (r->bit_exact ? "PASS: bit-exact" : "PASS: within tolerance")
                                   : r->tolerance < 0 ? "FAIL: NOT bit-exact" : "FAIL: beyond tolerance");
    return npuc_sb_finish(&b, out, err);
}
