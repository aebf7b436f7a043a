/* The host API (include/npuc/npuc.h): every model form (source TFLite,
 * _npu.tflite, .nprt, _rel.bin single / split / signed), from a file and
 * from memory, opened, run and closed, with outputs byte for byte equal to
 * the reference interpreter's on the source model; compile to memory and
 * to a folder; the profile and the trace; tensor dumps; bad input (missing
 * file, truncated models, wrong sizes, bad target names, calls out of
 * order) with its error text; NULL handles and closing twice. */
#include "test.h"
#include "test_model.h"
#include "npuc/npuc.h"
#include "../src/interp/interp.h"
#include "npurt/npurt_crypto.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_IO 16

static const uint8_t seed_key[32] = {
    0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
    0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
};

/* A source model, random inputs and the reference interpreter's outputs. */
typedef struct source {
    char path[512];
    uint8_t *data;            /* the file's bytes */
    size_t size;
    uint32_t n_in, n_out;
    uint8_t *in[MAX_IO], *ref[MAX_IO];
    size_t in_n[MAX_IO], ref_n[MAX_IO];
} source;

static void source_free(source *s)
{
    free(s->data);
    for (uint32_t i = 0; i < MAX_IO; i++) {
        free(s->in[i]);
        free(s->ref[i]);
    }
    memset(s, 0, sizeof *s);
}

/* 0 ok, -1 model not found or the reference failed. */
static int source_load(source *s, const char *rel, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    if (!t_shared(rel, s->path, sizeof s->path)) return -1;
    s->data = t_read_all(s->path, &s->size);
    tfl_model *tm = NULL;
    graph *g = NULL;
    interp *ip = NULL;
    npuc_err err = {0};
    int rc = -1;
    if (!s->data || t_load_model(s->path, &tm, &g) || interp_create(g, NULL, &ip, &err)) goto out;
    s->n_in = (uint32_t)g->n_inputs;
    s->n_out = (uint32_t)g->n_outputs;
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < s->n_in; i++) {
        s->in_n[i] = g->tensors[g->inputs[i]].nbytes;
        s->in[i] = malloc(s->in_n[i] + 1);
        for (size_t k = 0; k < s->in_n[i]; k++) s->in[i][k] = (uint8_t)npuc_rng_next(&rng);
        if (interp_set_input(ip, (int32_t)i, s->in[i], s->in_n[i], &err)) goto out;
    }
    if (interp_invoke(ip, &err)) goto out;
    for (uint32_t i = 0; i < s->n_out; i++) {
        const void *d = interp_output(ip, (int32_t)i, &s->ref_n[i]);
        s->ref[i] = malloc(s->ref_n[i] + 1);
        memcpy(s->ref[i], d, s->ref_n[i]);
    }
    rc = 0;
out:
    if (rc) fprintf(stderr, "%s: reference: %s\n", rel, err.msg);
    interp_free(ip);
    graph_free(g);
    tfl_model_free(tm);
    return rc;
}

/* --------------------------------------------------------------- running */

typedef struct trace_count {
    int begin, end, commands;
} trace_count;

static void count_events(void *user, const npuc_event *ev)
{
    trace_count *t = user;
    if (ev->kind == NPUC_EVENT_STREAM_BEGIN) t->begin++;
    if (ev->kind == NPUC_EVENT_STREAM_END) t->end++;
    if (ev->kind == NPUC_EVENT_COMMAND) t->commands += ev->text && ev->text[0];
}

/* Runs an open model on the source's inputs and checks every output
 * against the reference, the profile and the trace. */
static void check_run(npuc_model *m, const source *s, npuc_form form, const char *what)
{
    npuc_model_info info;
    CHECK_EQ_INT(npuc_model_get_info(m, &info), NPUC_STATUS_OK);
    CHECK_EQ_INT(info.form, form);
    CHECK_EQ_INT(npuc_input_count(m), s->n_in);
    CHECK_EQ_INT(npuc_output_count(m), s->n_out);
    for (uint32_t i = 0; i < s->n_in; i++) {
        npuc_tensor_info ti;
        CHECK_EQ_INT(npuc_input_info(m, i, &ti), NPUC_STATUS_OK);
        CHECK_EQ_INT(ti.size, s->in_n[i]);
        CHECK(ti.name != NULL && ti.rank >= 1);
        CHECK_EQ_INT(npuc_set_input(m, i, s->in[i], s->in_n[i]), NPUC_STATUS_OK);
    }
    trace_count tc = {0};
    npuc_run_options ro = {.trace = count_events, .trace_user = &tc, .profile = true};
    int rc = npuc_run(m, &ro);
    CHECK_EQ_INT(rc, NPUC_STATUS_OK);
    if (rc) {
        fprintf(stderr, "%s: run: %s\n", what, npuc_last_error());
        return;
    }
    CHECK(npuc_outputs_ready(m));
    CHECK_STR_CONTAINS(npuc_last_error(), "");
    for (uint32_t i = 0; i < s->n_out; i++) {
        size_t n = 0;
        const void *d = npuc_output(m, i, &n);
        CHECK_EQ_INT(n, s->ref_n[i]);
        bool same = d && n == s->ref_n[i] && !memcmp(d, s->ref[i], n);
        if (!same) fprintf(stderr, "%s: output %u differs from the reference interpreter\n", what, i);
        CHECK(same);
        uint8_t *copy = malloc(n + 1);
        CHECK_EQ_INT(npuc_get_output(m, i, copy, n), NPUC_STATUS_OK);
        CHECK(d && !memcmp(copy, d, n));
        free(copy);
    }
    /* profile and trace: one stream per ethos-u op / HW epoch */
    const npuc_profile *p = NULL;
    CHECK_EQ_INT(npuc_get_profile(m, &p), NPUC_STATUS_OK);
    npuc_model_get_info(m, &info);
    size_t streams = form == NPUC_FORM_TFLITE ? info.n_ethosu_ops : info.n_hw_epochs;
    CHECK_EQ_INT(p->n_streams, streams);
    CHECK_EQ_INT(tc.begin, (int)streams);
    CHECK_EQ_INT(tc.end, (int)streams);
    CHECK(streams == 0 || (tc.commands > 0 && p->npu_cycles > 0 && info.npu[0] && info.macs_per_cycle > 0));
    uint64_t cycles = 0;
    for (size_t k = 0; k < p->n_streams; k++) {
        const npuc_stream_profile *st = &p->streams[k];
        cycles += st->cycles;
        CHECK(st->n_ops > 0 && st->ops && st->npu);
        uint64_t sum = 0;
        for (size_t j = 0; j < st->n_ops; j++) sum += st->ops[j].kind == NPUC_NPU_DMA ? 0 : st->ops[j].macs;
        CHECK(sum > 0 || st->n_ops > 0);
    }
    CHECK_EQ_INT(cycles, p->npu_cycles);
    if (form != NPUC_FORM_TFLITE) {
        CHECK_EQ_INT(p->n_epochs, npuc_epoch_count(m));
        CHECK_EQ_INT(info.n_epochs, npuc_epoch_count(m));
        for (uint32_t e = 0; e < npuc_epoch_count(m); e++) {
            npuc_epoch_info ei;
            CHECK_EQ_INT(npuc_epoch_info_get(m, e, &ei), NPUC_STATUS_OK);
            if (ei.kind == NPUC_EPOCH_HW) CHECK(ei.cmd_size > 0 && p->epochs[e].npu_cycles > 0);
            else CHECK(ei.kernel != NULL);
        }
    }
}

static void open_run_close(const char *path, const void *data, size_t size, const npuc_open_options *oo,
                           const source *s, npuc_form form, const char *what)
{
    npuc_model *m = NULL;
    int rc = path ? npuc_model_open_file(path, NULL, oo, &m) : npuc_model_open_memory(data, size, NULL, oo, &m);
    CHECK_EQ_INT(rc, NPUC_STATUS_OK);
    if (rc) {
        fprintf(stderr, "%s: open: %s\n", what, npuc_last_error());
        return;
    }
    check_run(m, s, form, what);
    npuc_model_close(&m);
}

static const npuc_output_file *find_file(const npuc_compiled *c, const char *suffix, npuc_output_file *f)
{
    for (size_t i = 0; i < npuc_compiled_file_count(c); i++) {
        npuc_compiled_file(c, i, f);
        size_t a = strlen(f->name), b = strlen(suffix);
        if (a >= b && !strcmp(f->name + a - b, suffix)) return f;
    }
    return NULL;
}

static char tmp_root[64];

/* Every form of one model, compiled for target npu, from memory and from files. */
static void test_forms(const char *rel, const char *npu, bool stateless)
{
    source s;
    if (source_load(&s, rel, 7)) {
        printf("skip: %s not found\n", rel);
        source_free(&s);
        return;
    }
    char what[256];
    snprintf(what, sizeof what, "%s source (file)", rel);
    open_run_close(s.path, NULL, 0, NULL, &s, NPUC_FORM_TFLITE, what);
    snprintf(what, sizeof what, "%s source (memory)", rel);
    open_run_close(NULL, s.data, s.size, NULL, &s, NPUC_FORM_TFLITE, what);

    /* compile to memory: every format */
    npuc_compile_options co = {.target = {.npu = npu}, .formats = NPUC_FORMAT_ALL, .name = "m"};
    npuc_compiled *c = NULL;
    CHECK_EQ_INT(npuc_compile_memory(s.data, s.size, &co, &c), NPUC_STATUS_OK);
    if (!c) {
        fprintf(stderr, "%s: compile: %s\n", rel, npuc_last_error());
        source_free(&s);
        return;
    }
    static const char *const names[] = {"m_npu.tflite", "m_model.h", "m_model.c", "m.nprt",
                                        "m_rel.bin",    "m_rel.json", "m_report.json", "m_report.csv"};
    CHECK_EQ_INT(npuc_compiled_file_count(c), 8);
    for (size_t i = 0; i < 8 && i < npuc_compiled_file_count(c); i++) {
        npuc_output_file f;
        CHECK_EQ_INT(npuc_compiled_file(c, i, &f), NPUC_STATUS_OK);
        CHECK(!strcmp(f.name, names[i]) && f.size > 0 && f.data);
    }
    CHECK_STR_CONTAINS(npuc_compiled_summary(c), "m_rel.bin");
    CHECK_EQ_INT(npuc_compiled_op_count(c), s.n_out ? npuc_compiled_op_count(c) : 0);
    npuc_op_placement op;
    CHECK_EQ_INT(npuc_compiled_op(c, 0, &op), NPUC_STATUS_OK);
    CHECK(op.op && op.op[0] && op.why);
    /* the totals: the report's figures */
    npuc_compiled_totals tot;
    CHECK_EQ_INT(npuc_compiled_get_totals(NULL, &tot), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_compiled_get_totals(c, &tot), NPUC_STATUS_OK);
    CHECK(tot.ops == tot.npu_ops + tot.cpu_ops && tot.ops > 0);
    CHECK(tot.arena_memory && tot.arena_memory[0] && tot.system_config && tot.system_config[0]);
    CHECK(tot.compile_seconds > 0 && tot.flash_bytes > 0);
    CHECK(tot.npu_ops == 0 || (tot.command_stream_bytes > 0 && tot.command_stream_bytes < tot.flash_bytes));
    CHECK(tot.state_bytes <= tot.arena_bytes);
    npuc_output_file f;
    if (find_file(c, "_report.json", &f)) {
        char want[5][96];
        snprintf(want[0], sizeof want[0], "\"npu_cycles\": %llu,", (unsigned long long)tot.npu_cycles);
        snprintf(want[1], sizeof want[1], "\"peak_sram_bytes\": %llu,", (unsigned long long)tot.arena_bytes);
        snprintf(want[2], sizeof want[2], "\"peak_fast_bytes\": %llu,", (unsigned long long)tot.fast_bytes);
        snprintf(want[3], sizeof want[3], "\"flash_bytes\": %llu,", (unsigned long long)tot.flash_bytes);
        snprintf(want[4], sizeof want[4], "\"command_stream_bytes\": %llu,",
                 (unsigned long long)tot.command_stream_bytes);
        char *json = malloc(f.size + 1);
        if (json) {
            memcpy(json, f.data, f.size);
            json[f.size] = 0;
            for (int i = 0; i < 5; i++) CHECK_STR_CONTAINS(json, want[i]);
            free(json);
        }
    }
    if (find_file(c, "_npu.tflite", &f)) {
        snprintf(what, sizeof what, "%s _npu.tflite (memory)", rel);
        open_run_close(NULL, f.data, f.size, NULL, &s, NPUC_FORM_TFLITE, what);
    }
    if (find_file(c, ".nprt", &f)) {
        snprintf(what, sizeof what, "%s .nprt (memory)", rel);
        open_run_close(NULL, f.data, f.size, NULL, &s, NPUC_FORM_NPRT, what);
    }
    if (find_file(c, "_rel.bin", &f)) {
        npuc_open_options oo = {.install = NPUC_INSTALL_COPY, .install_clear = true};
        snprintf(what, sizeof what, "%s _rel.bin COPY (memory)", rel);
        open_run_close(NULL, f.data, f.size, &oo, &s, NPUC_FORM_RELOC, what);
    }
    /* the same files in a folder, opened from there */
    char dir[128];
    snprintf(dir, sizeof dir, "%s/%s", tmp_root, npu);
    CHECK_EQ_INT(npuc_compiled_write(c, dir), NPUC_STATUS_OK);
    for (size_t i = 0; i < 8; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        size_t n = 0;
        uint8_t *d = t_read_all(p, &n);
        npuc_compiled_file(c, i, &f);
        CHECK(d && n == f.size && !memcmp(d, f.data, n));
        free(d);
    }
    static const struct { const char *file; npuc_form form; } files[] = {
        {"m_npu.tflite", NPUC_FORM_TFLITE}, {"m.nprt", NPUC_FORM_NPRT}, {"m_rel.bin", NPUC_FORM_RELOC}};
    for (int i = 0; i < 3; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, files[i].file);
        CHECK_EQ_INT(npuc_probe_file(p), files[i].form);
        snprintf(what, sizeof what, "%s %s (file)", rel, files[i].file);
        open_run_close(p, NULL, 0, NULL, &s, files[i].form, what);
    }
    /* two runs of a stateless model give the same outputs */
    if (stateless) {
        char p[256];
        snprintf(p, sizeof p, "%s/m.nprt", dir);
        npuc_model *m = NULL;
        if (!npuc_model_open_file(p, NULL, NULL, &m)) {
            check_run(m, &s, NPUC_FORM_NPRT, "second run");
            check_run(m, &s, NPUC_FORM_NPRT, "second run");
        }
        npuc_model_close(&m);
    }
    npuc_compiled_free(&c);

    /* split and signed loadable models */
    co.formats = NPUC_FORMAT_RELOC;
    co.split = true;
    co.sign_seed = seed_key;
    c = NULL;
    CHECK_EQ_INT(npuc_compile_memory(s.data, s.size, &co, &c), NPUC_STATUS_OK);
    npuc_output_file fp;
    if (c && find_file(c, "_rel.bin", &f) && find_file(c, "_params.bin", &fp)) {
        npuc_open_options oo = {.params = fp.data, .params_size = fp.size};
        snprintf(what, sizeof what, "%s split _rel.bin (memory)", rel);
        open_run_close(NULL, f.data, f.size, &oo, &s, NPUC_FORM_RELOC, what);
        /* the params file beside it, found by name */
        snprintf(dir, sizeof dir, "%s/%s_split", tmp_root, npu);
        CHECK_EQ_INT(npuc_compiled_write(c, dir), NPUC_STATUS_OK);
        char p[256];
        snprintf(p, sizeof p, "%s/m_rel.bin", dir);
        snprintf(what, sizeof what, "%s split _rel.bin (file)", rel);
        open_run_close(p, NULL, 0, NULL, &s, NPUC_FORM_RELOC, what);
        /* signed: the right key opens it, another does not */
        uint8_t pub[32];
        npurt_ed25519_public_key(seed_key, pub);
        npuc_open_options ok = {.params = fp.data, .params_size = fp.size, .public_key = pub};
        snprintf(what, sizeof what, "%s signed _rel.bin", rel);
        open_run_close(NULL, f.data, f.size, &ok, &s, NPUC_FORM_RELOC, what);
        pub[0] ^= 1;
        npuc_model *m = NULL;
        CHECK(npuc_model_open_memory(f.data, f.size, NULL, &ok, &m) != NPUC_STATUS_OK && !m);
        CHECK_STR_CONTAINS(npuc_last_error(), "signature");
        /* split, without its params */
        CHECK_EQ_INT(npuc_model_open_memory(f.data, f.size, NULL, NULL, &m), NPUC_STATUS_USAGE);
        CHECK_STR_CONTAINS(npuc_last_error(), "the model is split: its params file is needed");
        npuc_open_options named = {.name = "x_rel.bin"};
        CHECK_EQ_INT(npuc_model_open_memory(f.data, f.size, NULL, &named, &m), NPUC_STATUS_USAGE);
        CHECK_STR_CONTAINS(npuc_last_error(), "x_rel.bin is split: its params file is needed");
    }
    npuc_compiled_free(&c);
    source_free(&s);
}

/* ------------------------------------------------------------ bad input */

static void test_errors(void)
{
    char buf[512];
    const char *src = t_shared("models/tflm/hello_world_int8.tflite", buf, sizeof buf);
    if (!src) {
        printf("skip: errors: model not found\n");
        return;
    }
    size_t size = 0;
    uint8_t *data = t_read_all(src, &size);
    npuc_model *m = (npuc_model *)&m;   /* not NULL: a failed open must clear it */

    /* missing file */
    CHECK_EQ_INT(npuc_model_open_file("/nonexistent/x.tflite", NULL, NULL, &m), NPUC_STATUS_IO);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(npuc_last_error(), "/nonexistent/x.tflite: cannot open");
    CHECK_EQ_INT(npuc_probe_file("/nonexistent/x.tflite"), NPUC_FORM_UNKNOWN);
    /* truncated TFLite */
    CHECK_EQ_INT(npuc_model_open_memory(data, size / 2, NULL, NULL, &m), NPUC_STATUS_FORMAT);
    CHECK(m == NULL && npuc_last_error()[0]);
    npuc_open_options named = {.name = "half.tflite"};
    CHECK_EQ_INT(npuc_model_open_memory(data, size / 2, NULL, &named, &m), NPUC_STATUS_FORMAT);
    CHECK_STR_CONTAINS(npuc_last_error(), "half.tflite: ");
    /* bad target names */
    npuc_target_spec bad_npu = {.npu = "ethos-u99"};
    CHECK_EQ_INT(npuc_model_open_memory(data, size, &bad_npu, NULL, &m), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "unknown target 'ethos-u99'");
    CHECK_EQ_INT(npuc_target_check(&bad_npu), NPUC_STATUS_USAGE);
    npuc_target_spec bad_sys = {.system_config = "Bogus"};
    CHECK(npuc_model_open_memory(data, size, &bad_sys, NULL, &m) != NPUC_STATUS_OK && !m);
    CHECK_STR_CONTAINS(npuc_last_error(), "unknown system config 'Bogus'");
    npuc_target_spec bad_mode = {.memory_mode = "Nope"};
    CHECK(npuc_target_check(&bad_mode) != NPUC_STATUS_OK);
    CHECK_STR_CONTAINS(npuc_last_error(), "unknown memory mode 'Nope'");
    npuc_target_spec ini = {.config = "no-such-vela.ini"};
    CHECK_EQ_INT(npuc_target_check(&ini), NPUC_STATUS_IO);
    CHECK_STR_CONTAINS(npuc_last_error(), "no-such-vela.ini: cannot open");
    char ini_path[4096];
    if (t_shared("oracle/vela.ini", ini_path, sizeof ini_path)) {
        npuc_target_spec vela = {.npu = "ethos-u55-128", .config = ini_path,
                                 .system_config = "Ethos_U55_High_End_Embedded", .memory_mode = "Shared_Sram"};
        CHECK_EQ_INT(npuc_target_check(&vela), NPUC_STATUS_OK);
        CHECK_EQ_INT(npuc_model_open_memory(data, size, &vela, NULL, &m), NPUC_STATUS_OK);
        npuc_model_close(&m);
    }
    npuc_target_spec good = {.npu = "ethos-u65-256", .system_config = "Ethos_U65_High_End:Dedicated_Sram"};
    CHECK_EQ_INT(npuc_target_check(&good), NPUC_STATUS_OK);
    CHECK_EQ_INT(npuc_target_check(NULL), NPUC_STATUS_OK);
    CHECK(!strcmp(npuc_last_error(), ""));
    /* loadable-model options on a TFLite model */
    npuc_open_options copy = {.install = NPUC_INSTALL_COPY};
    CHECK_EQ_INT(npuc_model_open_memory(data, size, NULL, &copy, &m), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "loadable models");

    /* a model opened fine: calls out of order and wrong sizes */
    CHECK_EQ_INT(npuc_model_open_memory(data, size, NULL, NULL, &m), NPUC_STATUS_OK);
    npuc_tensor_info ti;
    CHECK_EQ_INT(npuc_input_info(m, 0, &ti), NPUC_STATUS_OK);
    CHECK_EQ_INT(npuc_input_info(m, 5, &ti), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "input 5 does not exist: the model has 1 inputs");
    CHECK_EQ_INT(npuc_run(m, NULL), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "input 0 ('serving_default_dense_input:0') has not been set");
    CHECK(npuc_output(m, 0, NULL) == NULL && !npuc_outputs_ready(m));
    uint8_t out[64];
    CHECK_EQ_INT(npuc_get_output(m, 0, out, 1), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "has not run");
    uint8_t in[64] = {0};
    CHECK_EQ_INT(npuc_set_input(m, 0, in, ti.size + 1), NPUC_STATUS_USAGE);
    char want[128];
    snprintf(want, sizeof want, "is %zu bytes, not %zu", ti.size, ti.size + 1);
    CHECK_STR_CONTAINS(npuc_last_error(), want);
    CHECK_EQ_INT(npuc_set_input(m, 0, in, ti.size), NPUC_STATUS_OK);
    CHECK_EQ_INT(npuc_run(m, NULL), NPUC_STATUS_OK);
    npuc_tensor_info to;
    npuc_output_info(m, 0, &to);
    CHECK_EQ_INT(npuc_get_output(m, 0, out, to.size + 1), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_get_output(m, 0, out, to.size), NPUC_STATUS_OK);
    CHECK_EQ_INT(npuc_dump_tensors(m, "/tmp/never"), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "keep_tensors");
    CHECK_EQ_INT(npuc_epoch_count(m), 0);
    /* closed: the handle is NULL, a second close does nothing */
    npuc_model_close(&m);
    CHECK(m == NULL);
    npuc_model_close(&m);
    CHECK_EQ_INT(npuc_run(m, NULL), NPUC_STATUS_USAGE);

    /* compiled models cut short */
    npuc_compile_options co = {.formats = NPUC_FORMAT_NPRT | NPUC_FORMAT_RELOC};
    npuc_compiled *c = NULL;
    CHECK_EQ_INT(npuc_compile_memory(data, size, &co, &c), NPUC_STATUS_OK);
    npuc_output_file f;
    for (size_t i = 0; c && i < 2; i++) {
        npuc_compiled_file(c, i, &f);
        m = (npuc_model *)&m;
        CHECK_EQ_INT(npuc_model_open_memory(f.data, 200, NULL, &named, &m), NPUC_STATUS_FORMAT);
        CHECK(m == NULL);
        CHECK_STR_CONTAINS(npuc_last_error(), i == 0 ? "half.tflite: " : "truncated");
        /* one flipped byte: the checksum / digest catches it */
        uint8_t *bad = malloc(f.size);
        memcpy(bad, f.data, f.size);
        bad[f.size / 4] ^= 0x40;
        CHECK_EQ_INT(npuc_model_open_memory(bad, f.size, NULL, NULL, &m), NPUC_STATUS_FORMAT);
        CHECK_STR_CONTAINS(npuc_last_error(), i == 0 ? "checksum" : "SHA-256 digest mismatch");
        free(bad);
    }
    /* the model's own NPU is the default; another one refuses its streams */
    if (c) {
        npuc_compiled_file(c, 0, &f);
        npuc_target_spec u64 = {.npu = "ethos-u55-64"};
        CHECK_EQ_INT(npuc_model_open_memory(f.data, f.size, &u64, NULL, &m), NPUC_STATUS_OK);
        npuc_model_info info;
        npuc_model_get_info(m, &info);
        CHECK(!strcmp(info.npu, "ethos-u55-64"));
        CHECK_EQ_INT(npuc_set_input(m, 0, in, ti.size), NPUC_STATUS_OK);
        CHECK_EQ_INT(npuc_run(m, NULL), NPUC_STATUS_RUNTIME);
        CHECK(npuc_last_error()[0] != 0);
        npuc_model_close(&m);
    }
    npuc_compiled_free(&c);

    /* compile errors */
    c = (npuc_compiled *)&c;
    CHECK_EQ_INT(npuc_compile_memory(data, size / 2, NULL, &c), NPUC_STATUS_FORMAT);
    CHECK(c == NULL);
    npuc_compile_options bad_target = {.target = {.npu = "ethos-u99"}};
    CHECK_EQ_INT(npuc_compile_memory(data, size, &bad_target, &c), NPUC_STATUS_USAGE);
    CHECK_STR_CONTAINS(npuc_last_error(), "unknown target 'ethos-u99'");
    CHECK_EQ_INT(npuc_compile_file("/nonexistent/y.tflite", NULL, &c), NPUC_STATUS_IO);
    CHECK_STR_CONTAINS(npuc_last_error(), "cannot open");
    /* a folder that cannot be: nothing is written */
    CHECK_EQ_INT(npuc_compile_file(src, NULL, &c), NPUC_STATUS_OK);
    char file_dir[128];
    snprintf(file_dir, sizeof file_dir, "%s/a_file", tmp_root);
    FILE *ff = fopen(file_dir, "wb");
    if (ff) fclose(ff);
    CHECK_EQ_INT(npuc_compiled_write(c, file_dir), NPUC_STATUS_IO);
    CHECK_STR_CONTAINS(npuc_last_error(), "exists and is not a folder");
    npuc_output_file f0;
    npuc_compiled_file(c, 0, &f0);
    CHECK(!strcmp(f0.name, "hello_world_int8_npu.tflite"));
    CHECK_STR_CONTAINS(npuc_compiled_summary(c), "hello_world_int8.tflite");
    npuc_compiled_free(&c);
    CHECK(c == NULL);
    npuc_compiled_free(&c);
    free(data);
}

/* NULL handles: refused or ignored, never a crash. */
static void test_null(void)
{
    npuc_model_close(NULL);
    npuc_compiled_free(NULL);
    npuc_model *none = NULL;
    npuc_model_close(&none);
    npuc_compiled *cnone = NULL;
    npuc_compiled_free(&cnone);
    CHECK_EQ_INT(npuc_run(NULL, NULL), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_set_input(NULL, 0, "x", 1), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_model_get_info(NULL, NULL), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_get_profile(NULL, NULL), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_input_count(NULL), 0);
    CHECK_EQ_INT(npuc_output_count(NULL), 0);
    CHECK_EQ_INT(npuc_epoch_count(NULL), 0);
    CHECK_EQ_INT(npuc_tensor_count(NULL), 0);
    CHECK(npuc_output(NULL, 0, NULL) == NULL && npuc_tensor_data(NULL, 0) == NULL);
    CHECK(!npuc_outputs_ready(NULL));
    CHECK_EQ_INT(npuc_dump_tensors(NULL, "x"), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_model_open_file(NULL, NULL, NULL, NULL), NPUC_STATUS_USAGE);
    npuc_model *m = NULL;
    CHECK_EQ_INT(npuc_model_open_memory(NULL, 0, NULL, NULL, &m), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_compile_memory(NULL, 0, NULL, NULL), NPUC_STATUS_USAGE);
    CHECK_EQ_INT(npuc_compiled_write(NULL, "x"), NPUC_STATUS_USAGE);
    CHECK(npuc_compiled_summary(NULL) == NULL);
    CHECK_EQ_INT(npuc_compiled_file_count(NULL), 0);
    CHECK_EQ_INT(npuc_probe_memory(NULL, 0), NPUC_FORM_UNKNOWN);
    CHECK(!strcmp(npuc_status_name(NPUC_STATUS_IO), "io") && !strcmp(npuc_status_name(99), "unknown"));
    CHECK(!strcmp(npuc_dtype_name(NPUC_DT_INT8), "int8"));
}

/* keep_tensors: every tensor readable after a run, and the dump. */
static void test_tensors(void)
{
    source s;
    if (source_load(&s, "models/tflm/hello_world_int8.tflite", 3)) {
        printf("skip: tensors: model not found\n");
        source_free(&s);
        return;
    }
    npuc_open_options oo = {.keep_tensors = true};
    npuc_model *m = NULL;
    CHECK_EQ_INT(npuc_model_open_file(s.path, NULL, &oo, &m), NPUC_STATUS_OK);
    if (!m) {
        source_free(&s);
        return;
    }
    check_run(m, &s, NPUC_FORM_TFLITE, "keep_tensors");
    uint32_t n = npuc_tensor_count(m), consts = 0, acts = 0;
    CHECK(n > 3);
    for (uint32_t i = 0; i < n; i++) {
        npuc_tensor_info ti;
        CHECK_EQ_INT(npuc_tensor_info_get(m, i, &ti), NPUC_STATUS_OK);
        consts += ti.kind == NPUC_TENSOR_CONST;
        acts += ti.kind == NPUC_TENSOR_ACTIVATION;
        CHECK(npuc_tensor_data(m, i) != NULL || ti.size == 0);
    }
    CHECK(consts > 0 && acts > 0);
    CHECK_EQ_INT(npuc_tensor_info_get(m, n, NULL), NPUC_STATUS_USAGE);
    char dir[128], idx[160];
    snprintf(dir, sizeof dir, "%s/dump", tmp_root);
    CHECK_EQ_INT(npuc_dump_tensors(m, dir), NPUC_STATUS_OK);
    snprintf(idx, sizeof idx, "%s/tensors.txt", dir);
    size_t isz = 0;
    uint8_t *text = t_read_all(idx, &isz);
    CHECK(text && isz > 0 && !memcmp(text, "# index name dtype shape", 24));
    free(text);
    /* not again into the same (now non-empty) folder */
    CHECK_EQ_INT(npuc_dump_tensors(m, dir), NPUC_STATUS_IO);
    CHECK_STR_CONTAINS(npuc_last_error(), "exists and is not empty");
    npuc_model_close(&m);
    source_free(&s);
}

/* One run with the profile on; its NPU cycles (0 when the run failed). */
static uint64_t profiled_cycles(npuc_model *m)
{
    for (uint32_t i = 0; i < npuc_input_count(m); i++) {
        npuc_tensor_info ti;
        npuc_input_info(m, i, &ti);
        uint8_t *z = calloc(1, ti.size ? ti.size : 1);
        CHECK_EQ_INT(npuc_set_input(m, i, z, ti.size), NPUC_STATUS_OK);
        free(z);
    }
    npuc_run_options ro = {.profile = true};
    const npuc_profile *p;
    if (npuc_run(m, &ro) || npuc_get_profile(m, &p)) return 0;
    return p->npu_cycles;
}

/* npu_only: the ethos-u ops alone give the streams' cycles of a full run,
 * and open a model whose CPU ops the interpreter cannot run (Vela's output
 * of the audio preprocessor: SignalWindow); compiled models refuse it. */
static void test_npu_only(void)
{
    source s;
    if (source_load(&s, "models/tflm/keyword_scrambled_8bit.tflite", 5)) {
        printf("skip: npu_only: model not found\n");
        source_free(&s);
        return;
    }
    npuc_compile_options co = {.target = {.npu = "ethos-u55-128"}, .formats = NPUC_FORMAT_TFLITE | NPUC_FORMAT_NPRT};
    npuc_compiled *c = NULL;
    npuc_output_file f, fn;
    CHECK_EQ_INT(npuc_compile_memory(s.data, s.size, &co, &c), NPUC_STATUS_OK);
    if (c && find_file(c, "_npu.tflite", &f) && find_file(c, ".nprt", &fn)) {
        npuc_open_options oo = {.npu_only = true};
        npuc_model *full = NULL, *npu = NULL, *nprt = NULL;
        CHECK_EQ_INT(npuc_model_open_memory(f.data, f.size, NULL, NULL, &full), NPUC_STATUS_OK);
        CHECK_EQ_INT(npuc_model_open_memory(f.data, f.size, NULL, &oo, &npu), NPUC_STATUS_OK);
        if (full && npu) {
            uint64_t a = profiled_cycles(full), b = profiled_cycles(npu);
            CHECK(a > 0);
            CHECK_EQ_INT((long long)b, (long long)a);
            /* the ethos-u ops' command streams: the bytes the compile counted */
            npuc_model_info info;
            npuc_compiled_totals t;
            CHECK_EQ_INT(npuc_model_get_info(full, &info), NPUC_STATUS_OK);
            CHECK_EQ_INT(npuc_compiled_get_totals(c, &t), NPUC_STATUS_OK);
            CHECK(info.n_ethosu_ops > 1 && info.command_stream_bytes > 0);
            CHECK_EQ_INT((long long)info.command_stream_bytes, (long long)t.command_stream_bytes);
        }
        CHECK_EQ_INT(npuc_model_open_memory(fn.data, fn.size, NULL, &oo, &nprt), NPUC_STATUS_USAGE);
        CHECK_STR_CONTAINS(npuc_last_error(), "npu_only");
        npuc_model_close(&full);
        npuc_model_close(&npu);
    }
    npuc_compiled_free(&c);
    source_free(&s);
    char path[512];
    /* Vela's audio front end and posenet open whole now (the signal
     * library and Coral's decoder run on the CPU); its legacy uint8
     * DeepLab does not (a uint8 RESIZE_BILINEAR) but with npu_only */
    static const char *const whole[2] = {"tflm_audio_preprocessor_int8", "coral_posenet_mnv1_075_353_481_int8_decoder"};
    for (int i = 0; i < 2; i++) {
        char rel[200];
        snprintf(rel, sizeof rel, "models/zoo/vela51/u55-128/%s_vela.tflite", whole[i]);
        if (!t_shared(rel, path, sizeof path)) continue;
        npuc_model *a = NULL;
        CHECK_EQ_INT(npuc_model_open_file(path, NULL, NULL, &a), NPUC_STATUS_OK);
        npuc_model_close(&a);
    }
    if (!t_shared("models/zoo/vela51/u55-128/coral_deeplabv3_mnv2_dm05_pascal_quant_uint8_vela.tflite", path,
                  sizeof path)) {
        printf("skip: npu_only: Vela's DeepLab not found\n");
        return;
    }
    npuc_model *m = NULL;
    CHECK(npuc_model_open_file(path, NULL, NULL, &m) != NPUC_STATUS_OK);
    CHECK_STR_CONTAINS(npuc_last_error(), "legacy");
    npuc_open_options oo = {.npu_only = true};
    CHECK_EQ_INT(npuc_model_open_file(path, NULL, &oo, &m), NPUC_STATUS_OK);
    if (m) CHECK(profiled_cycles(m) > 0);
    npuc_model_close(&m);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/npuc_api_XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_null();
    test_errors();
    test_tensors();
    test_npu_only();
    test_forms("models/tflm/hello_world_int8.tflite", "ethos-u55-128", true);
    test_forms("models/tflm/keyword_scrambled_8bit.tflite", "ethos-u65-256", false);
    test_forms("models/tflm/person_detect.tflite", "ethos-u55-256", true);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp_root);
    TEST_MAIN_END();
}
