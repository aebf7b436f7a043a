/* npuc_compile: a TFLite model -> cc_compile -> every output file of the
 * formats asked for, in memory (emit_*); npuc_compiled_write puts them in
 * a folder, all or none. */
#include "api_int.h"
#include "emit/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 10

typedef struct api_file {
    char name[320];
    unsigned format;
    void *data;
    size_t size;
} api_file;

struct npuc_compiled {
    tfl_model *tm;
    graph *g;                 /* the source graph (cm may point at it) */
    cc_model *cm;
    api_file files[MAX_FILES];
    size_t n_files;
    char *summary;
};

void npuc_compiled_free(npuc_compiled **cp)
{
    npuc_compiled *c = cp ? *cp : NULL;
    if (!c) return;
    *cp = NULL;
    for (size_t i = 0; i < c->n_files; i++) free(c->files[i].data);
    free(c->summary);
    cc_model_free(c->cm);
    graph_free(c->g);
    tfl_model_free(c->tm);
    free(c);
}

/* NAME from a path: the file name without .tflite, [A-Za-z0-9_] only. */
static void base_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    size_t l = strlen(out);
    if (l > 7 && !strcmp(out + l - 7, ".tflite")) out[l - 7] = 0;
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            *p = '_';
    if (!out[0]) snprintf(out, n, "model");
}

/* Takes data (malloc'd) as the next output file. */
static void add_file(npuc_compiled *c, unsigned format, void *data, size_t size, const char *fmt, const char *a,
                     const char *b)
{
    api_file *f = &c->files[c->n_files++];
    snprintf(f->name, sizeof f->name, fmt, a, b);
    f->format = format;
    f->data = data;
    f->size = size;
}

static int options(const npuc_compile_options *o, cc_options *co, npuc_err *err)
{
    memset(co, 0, sizeof *co);
    target_spec spec;
    api_target_spec(&o->target, &spec);
    int rc = target_resolve(&spec, NULL, NULL, &co->sys, err);
    if (rc) return rc;
    if ((unsigned)o->optimise > NPUC_OPTIMISE_SIZE || (unsigned)o->cascade > NPUC_CASCADE_ALL)
        return npuc_errf(err, NPUC_E_USAGE, "npuc_compile: unknown optimise (%d) or cascade (%d) option",
                         (int)o->optimise, (int)o->cascade);
    if (o->prefetch_headroom > 1000)
        return npuc_errf(err, NPUC_E_USAGE, "npuc_compile: prefetch headroom %d is more than 1000 percent",
                         (int)o->prefetch_headroom);
    co->optimise = o->optimise == NPUC_OPTIMISE_SIZE ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
    co->cascade = o->cascade == NPUC_CASCADE_ALL ? CC_CASCADE_ALL
                  : o->cascade == NPUC_CASCADE_OFF ? CC_CASCADE_OFF
                                                   : CC_CASCADE_AUTO;
    co->prefetch_headroom = o->prefetch_headroom < 0 ? -1 : o->prefetch_headroom;
    co->no_fold = o->no_fold;
    co->sram_limit = o->arena_cache_size;
    return NPUC_OK;
}

static int emit_tflite(npuc_compiled *c, const char *name, npuc_err *err)
{
    tfl_model *tm = NULL;
    uint8_t *d = NULL;
    size_t n = 0;
    int rc = emit_tflite_model(c->cm, &tm, err);
    if (!rc && (rc = tfl_write(tm, &d, &n, err))) npuc_err_prefix(err, "writing %s_npu.tflite", name);
    tfl_model_free(tm);
    if (!rc) add_file(c, NPUC_FORMAT_TFLITE, d, n, "%s_npu.tflite", name, "");
    return rc;
}

static int emit_c(npuc_compiled *c, const char *name, npuc_err *err)
{
    char id[200], *h = NULL, *src = NULL;
    size_t hn = 0, sn = 0;
    emit_c_ident(name, id, sizeof id);
    int rc = emit_c_sources_text(c->cm, name, &h, &hn, &src, &sn, err);
    if (rc) return rc;
    add_file(c, NPUC_FORMAT_C, h, hn, "%s_model.h", id, "");
    add_file(c, NPUC_FORMAT_C, src, sn, "%s_model.c", id, "");
    return NPUC_OK;
}

static int emit_nprt(npuc_compiled *c, const char *name, npuc_err *err)
{
    uint8_t *blob = NULL;
    size_t n = 0;
    int rc = emit_npurt(c->cm, name, &blob, &n, err);
    if (!rc) add_file(c, NPUC_FORMAT_NPRT, blob, n, "%s.nprt", name, "");
    return rc;
}

/* NAME_rel.bin (+ NAME_params.bin) + NAME_rel.json; *table: the memory
 * layout for the summary. */
static int emit_loadable(npuc_compiled *c, const char *name, const npuc_compile_options *o, char **table,
                         npuc_err *err)
{
    emit_reloc_options ro = {.split = o->split, .sign_seed = o->sign_seed};
    emit_reloc_out rel = {0};
    char *json = NULL, fname[300];
    snprintf(fname, sizeof fname, "%s_rel.bin", name);
    int rc = emit_reloc(c->cm, name, &ro, &rel, err);
    if (!rc) rc = emit_reloc_json(&rel, ro.sign_seed, &json, err);
    if (!rc) rc = emit_reloc_table(&rel, fname, table, err);
    if (rc) {
        free(json);
        emit_reloc_out_free(&rel);
        return rc;
    }
    add_file(c, NPUC_FORMAT_RELOC, rel.file, rel.file_size, "%s_rel.bin", name, "");
    if (o->split) add_file(c, NPUC_FORMAT_RELOC, rel.params, rel.params_size, "%s_params.bin", name, "");
    else free(rel.params);
    add_file(c, NPUC_FORMAT_RELOC, json, strlen(json), "%s_rel.json", name, "");
    return NPUC_OK;
}

static int emit_reports(npuc_compiled *c, const char *name, const char *source, npuc_err *err)
{
    char *json = NULL, *csv = NULL;
    size_t jn = 0, cn = 0;
    int rc = emit_report_json_text(c->cm, source, &json, &jn, err);
    if (!rc) rc = emit_report_csv_text(c->cm, &csv, &cn, err);
    if (rc) {
        free(json);
        return rc;
    }
    add_file(c, NPUC_FORMAT_REPORT, json, jn, "%s_report.json", name, "");
    add_file(c, NPUC_FORMAT_REPORT, csv, cn, "%s_report.csv", name, "");
    return NPUC_OK;
}

/* Everything after the source is read; source names it in messages and reports. */
static int compile_graph(npuc_compiled *c, const char *source, const char *name, const npuc_compile_options *o,
                         npuc_err *err)
{
    cc_options co;
    int rc = options(o, &co, err);
    if (rc) return rc;
    if ((rc = cc_compile(c->g, &co, &c->cm, err))) {
        if (source) npuc_err_prefix(err, "%s", source);
        return rc;
    }
    unsigned f = o->formats ? o->formats : NPUC_FORMAT_TFLITE;
    char *table = NULL, *summary = NULL;
    if ((f & NPUC_FORMAT_TFLITE) && (rc = emit_tflite(c, name, err))) return rc;
    if ((f & NPUC_FORMAT_C) && (rc = emit_c(c, name, err))) return rc;
    if ((f & NPUC_FORMAT_NPRT) && (rc = emit_nprt(c, name, err))) return rc;
    if ((f & NPUC_FORMAT_RELOC) && (rc = emit_loadable(c, name, o, &table, err))) return rc;
    if (!rc) rc = emit_reports(c, name, source ? source : name, err);
    if (!rc) rc = emit_summary(c->cm, source ? source : name, &summary, err);
    if (!rc) {
        npuc_sbuf b = {0};
        npuc_sb_puts(&b, summary);
        if (table) npuc_sb_puts(&b, table);
        rc = npuc_sb_finish(&b, &c->summary, err);
    }
    free(summary);
    free(table);
    return rc;
}

static int compile_source(const char *path, const void *data, size_t size, const npuc_compile_options *o,
                          npuc_compiled **out)
{
    if (!out) return api_usage("npuc_compile: no place for the result (out is NULL)");
    *out = NULL;
    npuc_compile_options none;
    memset(&none, 0, sizeof none);
    if (!o) o = &none;
    if (!path && !data) return api_usage("npuc_compile_memory: no data");
    npuc_err err = {0};
    npuc_compiled *c = calloc(1, sizeof *c);
    if (!c) return api_result(npuc_errf(&err, NPUC_E_NOMEM, "out of memory"), &err);
    char name[256];
    if (o->name) snprintf(name, sizeof name, "%s", o->name);
    else if (path) base_name(path, name, sizeof name);
    else snprintf(name, sizeof name, "model");
    const char *source = path ? path : o->name;
    int rc = path ? tfl_read_file(path, &c->tm, &err) : tfl_read(data, size, &c->tm, &err);
    if (!rc) rc = graph_import(c->tm, &c->g, &err);
    if (!rc) interp_infer_shapes(c->g);
    if (rc) {
        if (source) npuc_err_prefix(&err, "%s", source);
    } else {
        rc = compile_graph(c, source, name, o, &err);
    }
    if (rc) {
        npuc_compiled_free(&c);
        return api_result(rc, &err);
    }
    *out = c;
    return api_result(NPUC_OK, NULL);
}

int npuc_compile_file(const char *path, const npuc_compile_options *opt, npuc_compiled **out)
{
    if (!path) {
        if (out) *out = NULL;
        return api_usage("npuc_compile_file: no path");
    }
    return compile_source(path, NULL, 0, opt, out);
}

int npuc_compile_memory(const void *data, size_t size, const npuc_compile_options *opt, npuc_compiled **out)
{
    return compile_source(NULL, data, size, opt, out);
}

/* ------------------------------------------------------------- the outputs */

size_t npuc_compiled_file_count(const npuc_compiled *c) { return c ? c->n_files : 0; }

int npuc_compiled_file(const npuc_compiled *c, size_t i, npuc_output_file *out)
{
    if (!c || !out) return api_usage("npuc_compiled_file: NULL argument");
    if (i >= c->n_files) return api_usage("output file %zu does not exist: there are %zu", i, c->n_files);
    const api_file *f = &c->files[i];
    out->name = f->name;
    out->format = f->format;
    out->data = f->data;
    out->size = f->size;
    return api_result(NPUC_OK, NULL);
}

const char *npuc_compiled_summary(const npuc_compiled *c) { return c ? c->summary : NULL; }

static int make_dir(const char *dir, npuc_err *err)
{
    struct stat st;
    if (!stat(dir, &st)) {
        if (!S_ISDIR(st.st_mode)) return npuc_errf(err, NPUC_E_IO, "output '%s' exists and is not a folder", dir);
        return NPUC_OK;
    }
    if (mkdir(dir, 0777))
        return npuc_errf(err, NPUC_E_IO, "cannot create output folder '%s': %s", dir, strerror(errno));
    return NPUC_OK;
}

int npuc_compiled_write(const npuc_compiled *c, const char *dir)
{
    if (!c || !dir) return api_usage("npuc_compiled_write: NULL argument");
    npuc_err err = {0};
    int rc = make_dir(dir, &err);
    size_t nw = 0;
    char path[4096];
    for (; !rc && nw < c->n_files; nw++) {
        snprintf(path, sizeof path, "%s/%s", dir, c->files[nw].name);
        rc = npuc_write_file(path, c->files[nw].data, c->files[nw].size, &err);
    }
    if (rc) {
        /* every file is written atomically; the ones before a failure go again */
        for (size_t i = 0; i + 1 < nw; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, c->files[i].name);
            unlink(path);
        }
    }
    return api_result(rc, &err);
}

/* --------------------------------------------------------------- the ops */

size_t npuc_compiled_op_count(const npuc_compiled *c) { return c ? (size_t)c->g->n_ops : 0; }

int npuc_compiled_op(const npuc_compiled *c, size_t i, npuc_op_placement *out)
{
    if (!c || !out) return api_usage("npuc_compiled_op: NULL argument");
    if (i >= (size_t)c->g->n_ops) return api_usage("op %zu does not exist: the model has %d ops", i, c->g->n_ops);
    memset(out, 0, sizeof *out);
    out->op = graph_op_name(&c->g->ops[i]);
    out->cascade = -1;
    out->fused_into = -1;
    out->folded_into = -1;
    out->epoch = -1;
    out->why = "";
    int32_t ci = cc_op_of_source(c->cm, (int32_t)i);
    if (ci < 0) {
        out->folded = true;
        return api_result(NPUC_OK, NULL);
    }
    const cc_op_info *oi = &c->cm->ops[ci];
    out->npu = oi->npu;
    out->epoch = oi->epoch;
    out->n_npu_ops = oi->n_eu;
    out->cycles = oi->cycles;
    out->cascade = oi->cascade;
    if (oi->fused_into >= 0)
        out->fused_into = c->cm->folded_g ? c->cm->g->ops[oi->fused_into].index : oi->fused_into;
    if (oi->folded_into >= 0)
        out->folded_into = c->cm->folded_g ? c->cm->g->ops[oi->folded_into].index : oi->folded_into;
    if (!oi->npu) out->why = oi->why;
    return api_result(NPUC_OK, NULL);
}

/* ------------------------------------------------------------- the totals */

int npuc_compiled_get_totals(const npuc_compiled *c, npuc_compiled_totals *out)
{
    if (!c || !out) return api_usage("npuc_compiled_get_totals: NULL argument");
    const cc_model *m = c->cm;
    const target_desc *s = &m->opt.sys;
    memset(out, 0, sizeof *out);
    out->ops = m->g->n_ops;
    for (int32_t i = 0; i < m->g->n_ops; i++) out->npu_ops += m->ops[i].npu;
    out->cpu_ops = out->ops - out->npu_ops;
    out->npu_cycles = m->npu_cycles;
    out->arena_bytes = m->arena_size;
    out->fast_bytes = m->fast_size;
    out->flash_bytes = m->flash_size;
    out->command_stream_bytes = m->stream_size;
    for (int32_t i = 0; i < m->n_epochs; i++) out->command_streams += m->epochs[i].kind == CC_EPOCH_HW;
    out->state_bytes = cc_state_bytes(m);
    out->state_pool_bytes = m->state_size;
    out->cpu_scratch_bytes = emit_cpu_scratch_bytes(m);
    out->arena_memory = s->act_pool >= 0 && s->act_pool < s->n_pools && s->pools[s->act_pool].memory
                            ? s->pools[s->act_pool].memory
                            : "";
    out->system_config = s->name;
    out->compile_seconds = m->compile_seconds;
    return api_result(NPUC_OK, NULL);
}
