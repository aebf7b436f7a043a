/* npuc run: a model on the virtual NPU through the host API (npuc.h):
 * argument parsing and printing; opening, running and profiling are the
 * API's. */
#include "cli.h"
#include "cli_run_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUTS 64

static void help(FILE *f)
{
    fprintf(f,
            "usage: npuc run MODEL [options]\n"
            "\n"
            "Runs MODEL on the reference interpreter and prints a summary of its\n"
            "outputs. MODEL is a .tflite file, or a compiled model (.nprt, from\n"
            "`npuc compile --output-format bin`, or NAME_rel.bin, from\n"
            "`--output-format reloc`), which runs on the npuc runtime: HW\n"
            "epochs through the ethos-u driver on a virtual NPU, CPU epochs on the\n"
            "prepared reference kernels.\n"
            "\n"
            "options:\n"
            "  --input FILE        one per model input, in input order: raw little-endian\n"
            "                      bytes of exactly the tensor's size, .csv values in\n"
            "                      tensor order, a .npy array, or an 8-bit .bmp image\n"
            "                      (pixels top row first)\n"
            "  --random-input      fill inputs without --input with random values\n"
            "  --seed N            seed for --random-input (default 1)\n"
            "  --output FILE       write the raw bytes of all outputs, concatenated in\n"
            "                      output order\n"
            "  --dump-tensors DIR  write every tensor after the run to DIR (created; must\n"
            "                      not exist or be empty), with DIR/tensors.txt as index\n"
            "  --quiet             print nothing on success\n"
            "\n"
            "Vela output (CUSTOM 'ethos-u' ops) runs on the virtual NPU, through its\n"
            "register interface as a driver would; all other ops on the reference\n"
            "kernels.\n"
            "  --trace             print every command the NPU executes\n"
            "  --npu-only          run only the ethos-u ops and skip every other op (their\n"
            "                      outputs keep whatever was there): Vela's command streams\n"
            "                      priced and traced where the reference kernels cannot\n"
            "                      run the model's CPU ops; the outputs mean nothing\n"
            "  --profile           print the per-operation cycle table and PMU counters\n"
            "                      (.nprt: the runtime's per-epoch profile)\n"
            "  --poll              .nprt: wait for the NPU by polling, not the interrupt\n"
            "  --install MODE      _rel.bin: xip (default; params used in place) or copy\n"
            "                      (model and params copied into exec RAM)\n"
            "  --clear             _rel.bin: zero the activation pools at install\n"
            "  --params FILE       _rel.bin made with --split: the params file (default:\n"
            "                      NAME_params.bin beside NAME_rel.bin)\n"
            "  --public-key FILE   _rel.bin: require a signature by this 32-byte Ed25519\n"
            "                      public key\n"
            "  --help              this text\n"
            "\n"
            "The target (the NPU to simulate and its system, for the cycle model):\n");
    cli_target_help(f, true);
    fprintf(f,
            "\n"
            "Exit status: 0 success, 1 model or input error, 2 usage error.\n");
}

/* Random values for one tensor: int types over their full range, float32
 * uniform in [-1, 1), bool 0/1. Deterministic for a seed. */
void cli_fill_random(npuc_rng *r, const graph_tensor *t, uint8_t *d)
{
    size_t n = graph_tensor_elems(t);
    for (size_t i = 0; i < n; i++) {
        switch (t->dtype) {
        case GRAPH_I8: ((int8_t *)d)[i] = (int8_t)npuc_rng_range(r, -128, 127); break;
        case GRAPH_U8: d[i] = (uint8_t)npuc_rng_range(r, 0, 255); break;
        case GRAPH_BOOL: d[i] = (uint8_t)npuc_rng_range(r, 0, 1); break;
        case GRAPH_I16: ((int16_t *)d)[i] = (int16_t)npuc_rng_range(r, -32768, 32767); break;
        case GRAPH_I32: ((int32_t *)d)[i] = (int32_t)npuc_rng_range(r, INT32_MIN, INT32_MAX); break;
        case GRAPH_I64: ((int64_t *)d)[i] = (int64_t)npuc_rng_next(r); break;
        case GRAPH_F32: ((float *)d)[i] = (float)(npuc_rng_unit(r) * 2.0 - 1.0); break;
        case GRAPH_U32: ((uint32_t *)d)[i] = (uint32_t)npuc_rng_next(r); break;
        case GRAPH_U16: ((uint16_t *)d)[i] = (uint16_t)npuc_rng_next(r); break;
        case GRAPH_F16: ((uint16_t *)d)[i] = graph_float_to_half((float)(npuc_rng_unit(r) * 2.0 - 1.0)); break;
        case GRAPH_F64: ((double *)d)[i] = npuc_rng_unit(r) * 2.0 - 1.0; break;
        case GRAPH_U64: ((uint64_t *)d)[i] = npuc_rng_next(r); break;
        case GRAPH_C64:
            ((float *)d)[2 * i] = (float)(npuc_rng_unit(r) * 2.0 - 1.0);
            ((float *)d)[2 * i + 1] = (float)(npuc_rng_unit(r) * 2.0 - 1.0);
            break;
        case GRAPH_C128:
            ((double *)d)[2 * i] = npuc_rng_unit(r) * 2.0 - 1.0;
            ((double *)d)[2 * i + 1] = npuc_rng_unit(r) * 2.0 - 1.0;
            break;
        case GRAPH_I4: if (i % 2 == 0) d[i / 2] = (uint8_t)npuc_rng_next(r); break;
        case GRAPH_STRING: case GRAPH_RESOURCE: case GRAPH_VARIANT: return; /* no elements of their own */
        }
    }
}

static double elem_value(const graph_tensor *t, const void *d, size_t i)
{
    switch (t->dtype) {
    case GRAPH_I8: return ((const int8_t *)d)[i];
    case GRAPH_U8: return ((const uint8_t *)d)[i];
    case GRAPH_BOOL: return ((const uint8_t *)d)[i];
    case GRAPH_I16: return ((const int16_t *)d)[i];
    case GRAPH_I32: return ((const int32_t *)d)[i];
    case GRAPH_I64: return (double)((const int64_t *)d)[i];
    case GRAPH_F32: return ((const float *)d)[i];
    case GRAPH_U32: return ((const uint32_t *)d)[i];
    case GRAPH_U16: return ((const uint16_t *)d)[i];
    case GRAPH_F16: return graph_half_to_float(((const uint16_t *)d)[i]);
    case GRAPH_F64: return ((const double *)d)[i];
    case GRAPH_U64: return (double)((const uint64_t *)d)[i];
    case GRAPH_C64: return ((const float *)d)[2 * i];      /* real part */
    case GRAPH_C128: return ((const double *)d)[2 * i];    /* real part */
    case GRAPH_I4: return (int8_t)(uint8_t)((((const uint8_t *)d)[i / 2] >> (i & 1 ? 4 : 0)) << 4) >> 4;
    case GRAPH_STRING: case GRAPH_RESOURCE: case GRAPH_VARIANT: return 0;
    }
    return 0;
}

static uint64_t fnv1a(const uint8_t *d, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 0x100000001b3ull;
    return h;
}

void cli_print_output(int32_t idx, const graph_tensor *t, const void *d)
{
    char shape[96];
    cli_shape_str(t, shape, sizeof shape);
    size_t n = graph_tensor_elems(t);
    printf("output %d '%s' %s %s fnv1a64=%016llx\n  values:", idx, t->name, graph_dtype_name(t->dtype), shape,
           (unsigned long long)fnv1a(d, t->nbytes));
    size_t show = n < 16 ? n : 16;
    for (size_t i = 0; i < show; i++) {
        if (t->dtype == GRAPH_F32) printf(" %g", elem_value(t, d, i));
        else printf(" %.0f", elem_value(t, d, i));
    }
    printf("%s\n", n > show ? " ..." : "");
    if (t->q.n == 1 && t->dtype != GRAPH_F32) {
        printf("  dequantized:");
        for (size_t i = 0; i < show; i++)
            printf(" %.6g", (double)t->q.scale[0] * (elem_value(t, d, i) - (double)t->q.zero_point[0]));
        printf("%s\n", n > show ? " ..." : "");
    }
}

/* --trace and --profile. */
typedef struct run_flags {
    bool trace, profile;
} run_flags;

void cli_tensor_view(const npuc_tensor_info *ti, graph_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->name = (char *)ti->name;
    t->dtype = (graph_dtype)ti->dtype;
    t->rank = ti->rank;
    for (int32_t d = 0; d < ti->rank && d < GRAPH_MAX_RANK; d++) t->shape[d] = ti->shape[d];
    t->nbytes = ti->size;
    t->q.n = ti->quant_n;
    t->q.scale = (float *)ti->scale;
    t->q.zero_point = (int64_t *)ti->zero_point;
    t->q.axis = ti->quant_axis;
    t->producer = -1;
    t->arena_offset = -1;
}

/* ------------------------------------------------------------ the run */

/* One ethos-u op's command stream: its NPU operations with the cycle
 * model's figures, and the PMU read back through its registers. */
static void print_stream(const npuc_stream_profile *s)
{
    printf("ethos-u op %d on %s: %zu NPU operations\n", s->index, s->npu, s->n_ops);
    printf("  %4s %6s  %-12s %-14s %10s %9s %9s %9s %10s\n", "#", "cmd", "op", "OFM WxHxD", "MACs", "compute",
           "memory", "cycles", "end");
    for (size_t i = 0; i < s->n_ops; i++) {
        const npuc_npu_op *o = &s->ops[i];
        char shape[32];
        if (o->kind == NPUC_NPU_DMA) snprintf(shape, sizeof shape, "%llu B", (unsigned long long)o->dma_bytes);
        else snprintf(shape, sizeof shape, "%ux%ux%u", o->ofm_w, o->ofm_h, o->ofm_d);
        printf("  %4zu 0x%04x  %-12s %-14s %10llu %9llu %9llu %9llu %10llu\n", i, o->cmd_offset, o->name, shape,
               (unsigned long long)o->macs, (unsigned long long)o->cycles_compute,
               (unsigned long long)o->cycles_memory, (unsigned long long)o->cycles, (unsigned long long)o->end);
    }
    printf("  total: %llu NPU cycles (PMU cycle counter %llu); PMU NPU_ACTIVE %u, MAC_ACTIVE %u, "
           "AXI0 read beats %u, AXI1 read beats %u\n",
           (unsigned long long)s->cycles, (unsigned long long)s->pmu_cycles, s->pmu_events[0], s->pmu_events[1],
           s->pmu_events[2], s->pmu_events[3]);
}

typedef struct trace_ctx {
    const cli_run_args *a;
    npuc_model *m;
    bool tflite;
} trace_ctx;

/* --trace: every command the NPU executes; TFLite models also name each
 * ethos-u op and, with --profile, print its profile when it ends. */
static void on_trace(void *user, const npuc_event *ev)
{
    trace_ctx *c = user;
    if (ev->kind == NPUC_EVENT_COMMAND) {
        printf("  %s\n", ev->text);
    } else if (c->tflite && ev->kind == NPUC_EVENT_STREAM_BEGIN) {
        printf("ethos-u op %d: command stream\n", ev->index);
    } else if (c->tflite && ev->kind == NPUC_EVENT_STREAM_END && c->a->profile) {
        const npuc_profile *p;
        if (!npuc_get_profile(c->m, &p) && p->n_streams) print_stream(&p->streams[p->n_streams - 1]);
    }
}

/* The inputs from their files, the rest random. */
static int set_inputs(const cli_run_args *a, npuc_model *m, npuc_err *err)
{
    npuc_rng rng;
    npuc_rng_seed(&rng, a->seed);
    for (uint32_t i = 0; i < npuc_input_count(m); i++) {
        npuc_tensor_info ti;
        graph_tensor t;
        npuc_input_info(m, i, &ti);
        cli_tensor_view(&ti, &t);
        uint8_t *buf = NULL;
        int rc;
        if (i < (uint32_t)a->n_inputs) {
            if ((rc = cli_read_input(a->inputs[i], &t, &buf, err))) return npuc_err_prefix(err, "input %u", i), rc;
        } else {
            if (!(buf = malloc(ti.size ? ti.size : 1))) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            cli_fill_random(&rng, &t, buf);
        }
        rc = npuc_set_input(m, i, buf, ti.size);
        free(buf);
        if (rc) return npuc_last_err(err);
    }
    return NPUC_OK;
}

/* --output: every output's bytes, concatenated in output order. */
static int write_outputs(const char *path, const npuc_model *m, npuc_err *err)
{
    size_t total = 0, o = 0, n;
    for (uint32_t i = 0; i < npuc_output_count(m); i++) total += (npuc_output(m, i, &n), n);
    uint8_t *buf = malloc(total ? total : 1);
    if (!buf) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < npuc_output_count(m); i++) {
        const void *d = npuc_output(m, i, &n);
        memcpy(buf + o, d, n);
        o += n;
    }
    int rc = npuc_write_file(path, buf, total, err);
    free(buf);
    return rc;
}

static void print_outputs(const npuc_model *m)
{
    for (uint32_t i = 0; i < npuc_output_count(m); i++) {
        npuc_tensor_info ti;
        graph_tensor t;
        npuc_output_info(m, i, &ti);
        cli_tensor_view(&ti, &t);
        cli_print_output((int32_t)i, &t, npuc_output(m, i, NULL));
    }
}

/* The profiles of the ethos-u ops that ran (without --trace, which
 * printed each as it ended). */
static void print_streams(const cli_run_args *a, const npuc_model *m)
{
    const npuc_profile *p;
    if (a->profile && !a->trace && !npuc_get_profile(m, &p))
        for (size_t i = 0; i < p->n_streams; i++) print_stream(&p->streams[i]);
}

static int run_model(const cli_run_args *a, npuc_model *m)
{
    npuc_model_info info;
    npuc_model_get_info(m, &info);
    bool tflite = info.form == NPUC_FORM_TFLITE;
    uint32_t n_in = npuc_input_count(m);
    if ((uint32_t)a->n_inputs > n_in || ((uint32_t)a->n_inputs < n_in && !a->random_input))
        return cli_usage_error("run", "model has %u input%s but %d --input given%s", n_in, n_in == 1 ? "" : "s",
                               a->n_inputs,
                               (uint32_t)a->n_inputs < n_in ? " (use --random-input to fill the rest)" : "");
    npuc_err err = {0};
    if (set_inputs(a, m, &err)) return cli_fail(&err);
    trace_ctx tc = {.a = a, .m = m, .tflite = tflite};
    npuc_run_options ro = {.trace = a->trace ? on_trace : NULL, .trace_user = &tc, .poll = a->poll,
                           .profile = a->profile};
    int rc = npuc_run(m, &ro);
    if (tflite) print_streams(a, m);
    if (rc) return cli_fail_last();
    if (!npuc_outputs_ready(m))
        fprintf(stderr, "note: %s: outputs not ready: an op (CIRCULAR_BUFFER off its period) ended the %s early\n",
                a->model, tflite ? "invocation" : "run");
    if (a->output && write_outputs(a->output, m, &err)) return cli_fail(&err);
    if (a->dump && npuc_dump_tensors(m, a->dump)) {
        if (a->output) remove(a->output);
        return cli_fail_last();
    }
    if (a->quiet) return CLI_OK;
    npuc_model_get_info(m, &info);
    if (tflite) {
        printf("model %s: %u ops, activation arena %llu bytes\n", a->model, info.n_ops,
               (unsigned long long)info.activations_size);
        print_outputs(m);
    } else {
        cli_print_compiled(a->model, m, &info);
        print_outputs(m);
        if (a->profile) cli_print_epoch_profile(m);
    }
    return CLI_OK;
}

int cli_run(int argc, char **argv)
{
    run_flags nr = {0};
    target_spec tspec = {0};
    int trc;
    const char *model_path = NULL, *output = NULL, *dump = NULL;
    const char *inputs[MAX_INPUTS];
    int n_inputs = 0;
    bool random_input = false, quiet = false, poll = false, install_copy = false, install_clear = false;
    bool reloc_opt = false;
    const char *params_path = NULL, *public_key_path = NULL;
    unsigned long long seed = 1;
    bool npu_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--trace")) {
            nr.trace = true;
        } else if (!strcmp(a, "--profile")) {
            nr.profile = true;
        } else if (!strcmp(a, "--poll")) {
            poll = true;
        } else if (!strcmp(a, "--npu-only")) {
            npu_only = true;
        } else if (!strcmp(a, "--clear")) {
            install_clear = reloc_opt = true;
        } else if (!strcmp(a, "--install") || !strcmp(a, "--params") || !strcmp(a, "--public-key")) {
            if (i + 1 >= argc) return cli_usage_error("run", "%s needs a value", a);
            const char *v = argv[++i];
            reloc_opt = true;
            if (!strcmp(a, "--params")) {
                params_path = v;
            } else if (!strcmp(a, "--public-key")) {
                public_key_path = v;
            } else if (!strcmp(v, "copy")) {
                install_copy = true;
            } else if (strcmp(v, "xip")) {
                return cli_usage_error("run", "--install: unknown mode '%s' (xip or copy)", v);
            }
        } else if (cli_target_option("run", argc, argv, &i, &tspec, &trc)) {
            if (trc) return trc;
        } else if (!strcmp(a, "--input") || !strcmp(a, "--output") || !strcmp(a, "--seed") ||
                   !strcmp(a, "--dump-tensors")) {
            if (i + 1 >= argc) return cli_usage_error("run", "%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--input")) {
                if (n_inputs == MAX_INPUTS) return cli_usage_error("run", "too many --input options");
                inputs[n_inputs++] = v;
            } else if (!strcmp(a, "--output")) {
                output = v;
            } else if (!strcmp(a, "--dump-tensors")) {
                dump = v;
            } else {
                char *end;
                errno = 0;
                seed = strtoull(v, &end, 0);
                if (errno || *end || !*v || v[0] == '-') return cli_usage_error("run", "--seed: '%s' is not a number", v);
            }
        } else if (!strcmp(a, "--random-input")) {
            random_input = true;
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("run", "unknown option '%s'", a);
        } else if (!model_path) {
            model_path = a;
        } else {
            return cli_usage_error("run", "unexpected argument '%s'", a);
        }
    }
    if (!model_path) return cli_usage_error("run", "no model given");
    npuc_form form = npuc_probe_file(model_path);
    bool compiled = form == NPUC_FORM_NPRT || form == NPUC_FORM_RELOC;
    if (compiled && dump) return cli_usage_error("run", "--dump-tensors works on .tflite models only");
    if (form != NPUC_FORM_RELOC && reloc_opt)
        return cli_usage_error("run", "--install, --clear, --params and --public-key work on loadable models (_rel.bin) only");
    if (!compiled && poll) return cli_usage_error("run", "--poll works on compiled models (.nprt) only");
    if (compiled && npu_only) return cli_usage_error("run", "--npu-only works on TFLite models only");
    npuc_target_spec target = cli_target_api(&tspec);

    npuc_open_options oo = {.keep_tensors = dump != NULL, .install = install_copy ? NPUC_INSTALL_COPY : NPUC_INSTALL_XIP,
                            .install_clear = install_clear, .params_path = params_path,
                            .public_key_path = public_key_path, .npu_only = npu_only};
    npuc_model *m = NULL;
    if (npuc_model_open_file(model_path, &target, &oo, &m)) return cli_fail_last();
    cli_run_args ra = {.model = model_path, .inputs = inputs, .n_inputs = n_inputs, .random_input = random_input,
                       .quiet = quiet, .profile = nr.profile, .trace = nr.trace, .poll = poll, .seed = seed,
                       .output = output, .dump = dump};
    int code = run_model(&ra, m);
    npuc_model_close(&m);
    return code;
}
