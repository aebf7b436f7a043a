/* npuc run: execute a model on the reference interpreter. */
#include "cli.h"
#include "cli_run_int.h"
#include "../interp/interp.h"
#include "../sim/sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
            "The NPU and the system its cycle model assumes (the same options as\n"
            "compile and validate):\n");
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

static int dump_tensors(const interp *ip, const char *dir, npuc_err *err)
{
    const graph *g = interp_graph(ip);
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return npuc_errf(err, NPUC_E_IO, "%s exists and is not a directory", dir);
        if (rmdir(dir) != 0) return npuc_errf(err, NPUC_E_IO, "%s exists and is not empty", dir);
    }
    size_t dl = strlen(dir) + 32;
    char *tmp = malloc(dl);
    if (!tmp) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    snprintf(tmp, dl, "%s.tmp%ld", dir, (long)getpid());
    if (mkdir(tmp, 0777) != 0) {
        int e = errno;
        free(tmp);
        return npuc_errf(err, NPUC_E_IO, "%s: cannot create directory: %s", dir, strerror(e));
    }
    size_t cap = 4096 + (size_t)g->n_tensors * 256, len = 0;
    char *index = malloc(cap);
    int rc = index ? NPUC_OK : npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (!rc)
        len += (size_t)snprintf(index + len, cap - len,
                                "# index name dtype shape scale zero_point kind file\n");
    for (int32_t i = 0; i < g->n_tensors && !rc; i++) {
        const graph_tensor *t = &g->tensors[i];
        const char *kind = t->data ? "const" : (t->is_variable ? "state" : (t->producer < 0 ? "input" : "activation"));
        char sn[64], file[96], shape[96], path[4096];
        safe_name(t->name, sn, sizeof sn);
        snprintf(file, sizeof file, "t%04d_%s.bin", i, sn);
        snprintf(path, sizeof path, "%s/%s", tmp, file);
        cli_shape_str(t, shape, sizeof shape);
        const void *d = interp_tensor_data(ip, i);
        bool unused = !t->data && !t->is_variable && t->producer < 0;
        for (int32_t k = 0; k < g->n_inputs; k++)
            if (g->inputs[k] == i) unused = false;
        if (unused) continue;
        rc = npuc_write_file(path, d, t->nbytes, err);
        if (!rc)
            len += (size_t)snprintf(index + len, cap - len, "%d %s %s %s %g %lld %s %s\n", i, t->name[0] ? t->name : "-",
                                    graph_dtype_name(t->dtype), shape, t->q.n ? (double)t->q.scale[0] : 0.0,
                                    t->q.n ? (long long)t->q.zero_point[0] : 0LL, kind, file);
    }
    if (!rc) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tensors.txt", tmp);
        rc = npuc_write_file(path, index, len, err);
    }
    if (!rc && rename(tmp, dir) != 0) rc = npuc_errf(err, NPUC_E_IO, "%s: cannot create: %s", dir, strerror(errno));
    if (rc) {
        /* remove the partial temporary directory */
        for (int32_t i = 0; i < g->n_tensors; i++) {
            char sn[64], path[4096];
            safe_name(g->tensors[i].name, sn, sizeof sn);
            snprintf(path, sizeof path, "%s/t%04d_%s.bin", tmp, i, sn);
            remove(path);
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/tensors.txt", tmp);
        remove(path);
        rmdir(tmp);
    }
    free(index);
    free(tmp);
    return rc;
}

/* ------------------------------------------------ ethos-u ops on the sim */

typedef struct npu_run {
    sim_npu *npu;
    bool trace, profile;
    target_desc target;       /* resolved before the run (cli_target_resolve) */
    uint64_t total_cycles;
    int n_runs;
} npu_run;

static bool accept_ethosu(void *user, const graph_op *op)
{
    (void)user;
    return sim_is_ethosu_op(op);
}

static void trace_line(void *user, const char *line)
{
    (void)user;
    printf("  %s\n", line);
}

static const char *kind_name(const sim_op_info *o)
{
    static const char *const ew[] = {"MUL", "ADD", "SUB", "MIN", "MAX", "LRELU", "ABS", "CLZ", "SHR", "SHL"};
    static const char *const pool[] = {"MAXPOOL", "AVGPOOL", "REDUCESUM"};
    switch (o->kind) {
    case SIM_K_CONV: return "CONV";
    case SIM_K_DEPTHWISE: return "DEPTHWISE";
    case SIM_K_POOL: return o->mode < 3 ? pool[o->mode] : "POOL";
    case SIM_K_ELEMENTWISE: return o->mode < 10 ? ew[o->mode] : "ELEMENTWISE";
    default: return "DMA";
    }
}

static void print_profile(npu_run *r, int32_t op_index)
{
    size_t n;
    const sim_op_info *ops = sim_npu_ops(r->npu, &n);
    printf("ethos-u op %d on %s: %zu NPU operations\n", op_index, sim_variant_name(sim_npu_variant(r->npu)), n);
    printf("  %4s %6s  %-10s %-14s %10s %9s %9s %9s %10s\n", "#", "cmd", "op", "OFM WxHxD", "MACs", "compute",
           "memory", "cycles", "end");
    for (size_t i = 0; i < n; i++) {
        const sim_op_info *o = &ops[i];
        char shape[32];
        if (o->kind == SIM_K_DMA)
            snprintf(shape, sizeof shape, "%llu B", (unsigned long long)o->dma_bytes);
        else
            snprintf(shape, sizeof shape, "%ux%ux%u", o->ofm_w, o->ofm_h, o->ofm_d);
        printf("  %4zu 0x%04zx  %-10s %-14s %10llu %9llu %9llu %9llu %10llu\n", i, o->cmd_offset, kind_name(o), shape,
               (unsigned long long)o->macs, (unsigned long long)o->cycles_compute,
               (unsigned long long)o->cycles_memory, (unsigned long long)o->cycles, (unsigned long long)o->end);
    }
    /* the PMU, read back through its registers as an application would */
    uint64_t cc = sim_npu_read(r->npu, SIM_REG_PMCCNTR_LO) | (uint64_t)sim_npu_read(r->npu, SIM_REG_PMCCNTR_HI) << 32;
    printf("  total: %llu NPU cycles (PMU cycle counter %llu); PMU NPU_ACTIVE %u, MAC_ACTIVE %u, "
           "AXI0 read beats %u, AXI1 read beats %u\n",
           (unsigned long long)sim_npu_run_cycles(r->npu), (unsigned long long)cc,
           sim_npu_read(r->npu, SIM_REG_PMEVCNTR0), sim_npu_read(r->npu, SIM_REG_PMEVCNTR0 + 4),
           sim_npu_read(r->npu, SIM_REG_PMEVCNTR0 + 8), sim_npu_read(r->npu, SIM_REG_PMEVCNTR0 + 12));
}

static int eval_ethosu(void *user, interp *ip, const graph_op *op, npuc_err *err)
{
    npu_run *r = user;
    int rc;
    if (!r->npu && (rc = sim_npu_create(r->target.variant, &r->target.sim, &r->npu, err))) return rc;
    if (r->trace) {
        printf("ethos-u op %d: command stream\n", op->index);
        sim_npu_set_trace(r->npu, trace_line, r);
    }
    /* PMU: cycle counter and four events, as an application would set it up */
    static const uint32_t events[4] = {SIM_PMU_NPU_ACTIVE, SIM_PMU_MAC_ACTIVE, SIM_PMU_AXI0_RD_BEAT,
                                       SIM_PMU_AXI1_RD_BEAT};
    for (int i = 0; i < 4; i++) sim_npu_write(r->npu, SIM_REG_PMEVTYPER0 + 4 * i, events[i]);
    sim_npu_write(r->npu, SIM_REG_PMCNTENSET, 0x8000000Fu);
    sim_npu_write(r->npu, SIM_REG_PMCR, 1 | 2 | 4);
    rc = sim_run_ethosu_interp(r->npu, ip, op, err);
    if (rc) return rc;
    r->total_cycles += sim_npu_run_cycles(r->npu);
    r->n_runs++;
    if (r->profile) print_profile(r, op->index);
    return NPUC_OK;
}

/* The target of a TFLite model: the flags, else the record npuc wrote into
 * it, else the NPU its first ethos-u op was compiled for (a payload that
 * cannot say is reported when the op runs). */
static int resolve_tflite(const target_spec *spec, const tfl_model *m, const graph *g, const char *path,
                          target_desc *out)
{
    npuc_err err = {0};
    target_found tf;
    target_find_in_tflite(m, &tf);
    target_desc rec;
    bool have_rec, have_var;
    sim_variant mv;
    if (target_found_parse(&tf, path, &rec, &have_rec, &mv, &have_var, &err)) return cli_fail(&err);
    for (int32_t i = 0; i < g->n_ops && !have_var; i++)
        if (sim_is_ethosu_op(&g->ops[i])) {
            have_var = sim_ethosu_op_variant(g, &g->ops[i], &mv, &err) == NPUC_OK;
            break;
        }
    return cli_target_resolve("run", spec, have_rec ? &rec : NULL, have_var ? &mv : NULL, out);
}

int cli_run(int argc, char **argv)
{
    npu_run nr = {0};
    target_spec tspec = {0};
    const char *model_path = NULL, *output = NULL, *dump = NULL;
    const char *inputs[MAX_INPUTS];
    int n_inputs = 0;
    bool random_input = false, quiet = false, poll = false, install_copy = false, install_clear = false;
    bool reloc_opt = false;
    const char *params_path = NULL, *public_key_path = NULL;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int trc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--trace")) {
            nr.trace = true;
        } else if (!strcmp(a, "--profile")) {
            nr.profile = true;
        } else if (!strcmp(a, "--poll")) {
            poll = true;
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
    if (cli_is_nprt(model_path)) {
        cli_run_args ra = {.model = model_path, .inputs = inputs, .n_inputs = n_inputs,
                           .random_input = random_input, .quiet = quiet, .profile = nr.profile,
                           .trace = nr.trace, .poll = poll, .seed = seed, .output = output, .dump = dump,
                           .target = &tspec,
                           .trace_fn = trace_line, .install_copy = install_copy,
                           .install_clear = install_clear, .params_path = params_path,
                           .public_key_path = public_key_path};
        return cli_run_nprt(&ra);
    }
    if (reloc_opt)
        return cli_usage_error("run", "--install, --clear, --params and --public-key work on loadable models (_rel.bin) only");
    if (poll) return cli_usage_error("run", "--poll works on compiled models (.nprt) only");

    npuc_err err = {0};
    tfl_model *m = NULL;
    graph *g = NULL;
    interp *ip = NULL;
    uint8_t *buf = NULL, *outbuf = NULL;
    int rc = cli_load_graph(model_path, &m, &g, &err);
    if (rc) return cli_fail(&err);
    int code = CLI_OK;
    if (n_inputs > g->n_inputs || (n_inputs < g->n_inputs && !random_input)) {
        code = cli_usage_error("run", "model has %d input%s but %d --input given%s", g->n_inputs,
                               g->n_inputs == 1 ? "" : "s", n_inputs,
                               n_inputs < g->n_inputs ? " (use --random-input to fill the rest)" : "");
        goto out;
    }
    /* the target, before running anything */
    if ((code = resolve_tflite(&tspec, m, g, model_path, &nr.target))) goto out;
    interp_options opt = {.keep_all = dump != NULL, .custom_accept = accept_ethosu, .custom_eval = eval_ethosu,
                          .custom_user = &nr};
    rc = interp_create(g, &opt, &ip, &err);
    if (rc) goto fail;
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        if (i < n_inputs) {
            rc = cli_read_input(inputs[i], t, &buf, &err);
            if (rc) {
                npuc_err_prefix(&err, "input %d", i);
                goto fail;
            }
        } else {
            buf = malloc(t->nbytes ? t->nbytes : 1);
            if (!buf) {
                rc = npuc_errf(&err, NPUC_E_NOMEM, "out of memory");
                goto fail;
            }
            cli_fill_random(&rng, t, buf);
        }
        rc = interp_set_input(ip, i, buf, t->nbytes, &err);
        free(buf);
        buf = NULL;
        if (rc) goto fail;
    }
    rc = interp_invoke(ip, &err);
    if (rc) goto fail;
    if (interp_not_ready(ip))
        fprintf(stderr, "note: %s: outputs not ready: an op (CIRCULAR_BUFFER off its period) ended the invocation "
                        "early\n", model_path);
    size_t total = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) total += g->tensors[g->outputs[i]].nbytes;
    if (output) {
        outbuf = malloc(total ? total : 1);
        if (!outbuf) {
            rc = npuc_errf(&err, NPUC_E_NOMEM, "out of memory");
            goto fail;
        }
        size_t o = 0;
        for (int32_t i = 0; i < g->n_outputs; i++) {
            size_t n;
            const void *d = interp_output(ip, i, &n);
            memcpy(outbuf + o, d, n);
            o += n;
        }
        rc = npuc_write_file(output, outbuf, total, &err);
        if (rc) goto fail;
    }
    if (dump) {
        rc = dump_tensors(ip, dump, &err);
        if (rc) {
            if (output) remove(output);
            goto fail;
        }
    }
    if (!quiet) {
        printf("model %s: %d ops, activation arena %zu bytes\n", model_path, g->n_ops, interp_arena_size(ip));
        for (int32_t i = 0; i < g->n_outputs; i++)
            cli_print_output(i, &g->tensors[g->outputs[i]], interp_output(ip, i, NULL));
    }
    goto out;
fail:
    code = cli_fail(&err);
out:
    sim_npu_free(nr.npu);
    free(outbuf);
    interp_free(ip);
    graph_free(g);
    tfl_model_free(m);
    return code;
}
