/* npuc validate: the deployed model on the virtual NPU against the source
 * model on the reference interpreter, with accuracy figures, a profile and
 * reports (src/validate/). */
#include "cli.h"
#include "cli_run_int.h"
#include "validate/validate.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_INPUT_FILES 4096

static void help(FILE *f)
{
    fprintf(f,
            "usage: npuc validate MODEL.tflite [options]\n"
            "\n"
            "Compiles MODEL (or takes a model npuc compiled before, --compiled), runs\n"
            "the deployed form on the npuc runtime with a virtual NPU and MODEL on the\n"
            "reference interpreter with the same inputs, and reports per output whether\n"
            "it is bit-exact, with max abs error, MAE, RMSE, cosine similarity and L2\n"
            "relative error (stored and dequantized units) and, for class scores, top-1\n"
            "agreement; then the profile: NPU cycles, CPU time, MACs and bytes per\n"
            "memory per epoch and per op, and the activation memory over time.\n"
            "\n"
            "inputs (default: --random 1):\n"
            "  --input FILE          one per model input: raw bytes, .npy or 8-bit .bmp\n"
            "                        (as `npuc run`); one input set\n"
            "  --inputs DIR          every file in DIR, sorted by name, taken k at a time\n"
            "                        for a model with k inputs: one input set each\n"
            "  --random N            N input sets of random values\n"
            "  --seed S              seed for --random (default 1)\n"
            "\n"
            "the deployed model (its target: with --compiled, the one it was compiled\n"
            "for unless given; else as `npuc compile`):\n");
    cli_target_help(f, true);
    fprintf(f,
            "  --optimise G          performance (default) or size, any letter case\n"
            "  --cascade C           auto (default: where it lowers peak SRAM), all, off\n"
            "  --prefetch-headroom P performance: how much, in percent of the activation\n"
            "                        peak, loading weights early may add to it (0-1000,\n"
            "                        default 20; 0: never)\n"
            "  --arena-cache-size B  U55: the most SRAM the arena may take; U65\n"
            "                        Dedicated_Sram: the fast pool's size (as\n"
            "                        `npuc compile`)\n"
            "  --compiled FILE       validate this compiled model (.nprt from\n"
            "                        --output-format bin, or NAME_rel.bin) instead of\n"
            "                        compiling; its recorded target gives the per-op\n"
            "                        figures\n"
            "  --params FILE         --compiled NAME_rel.bin made with --split: its params\n"
            "                        (default NAME_params.bin beside it)\n"
            "\n"
            "checks:\n"
            "  --tolerance T         pass when every output's max abs error (stored units)\n"
            "                        is <= T; default: every output must be bit-exact\n"
            "  --float-model FILE    the float32 twin of MODEL: also compare both results,\n"
            "                        dequantized, with it (inputs dequantized for it)\n"
            "\n"
            "reports:\n"
            "  --profile             print the per-epoch and per-op profile tables\n"
            "  --json FILE           everything, as JSON\n"
            "  --csv FILE            one row per op\n"
            "  --report FILE         one self-contained HTML page: summary, per-op cycle\n"
            "                        chart, memory timeline, NPU/CPU partition\n"
            "  --quiet               print nothing (the exit status tells)\n"
            "  --help                this text\n"
            "\n"
            "Exit status: 0 pass, 1 model or input error, 2 usage error, 3 validated but\n"
            "NOT bit-exact (or beyond --tolerance).\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of a directory, sorted, skipping dot files. */
static int list_dir(const char *dir, char ***out, int *n_out, npuc_err *err)
{
    DIR *d = opendir(dir);
    if (!d) return npuc_errf(err, NPUC_E_IO, "%s: cannot open directory: %s", dir, strerror(errno));
    char **names = NULL;
    int n = 0, cap = 0, rc = NPUC_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (n == MAX_INPUT_FILES) {
            free(p);
            rc = npuc_errf(err, NPUC_E_USAGE, "%s: more than %d input files", dir, MAX_INPUT_FILES);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, sizeof *names * (size_t)cap);
            if (!nn) {
                free(p);
                rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
                break;
            }
            names = nn;
        }
        names[n++] = p;
    }
    closedir(d);
    if (rc) {
        for (int i = 0; i < n; i++) free(names[i]);
        free(names);
        return rc;
    }
    if (n) qsort(names, (size_t)n, sizeof *names, cmp_str);
    *out = names;
    *n_out = n;
    return NPUC_OK;
}

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Where the input sets come from: files (one set), a folder, or random. */
typedef struct input_spec {
    const char *const *files;
    int n_files;
    const char *dir;
    long random_sets;
    unsigned long long seed;
} input_spec;

typedef struct input_sets {
    uint8_t **sets;           /* [n_sets * k]: input i of set s at s * k + i */
    size_t n_alloc;
    int32_t n_sets;
    char **dir_files;
    int n_dir_files;
} input_sets;

static void free_sets(input_sets *is)
{
    for (size_t i = 0; is->sets && i < is->n_alloc; i++) free(is->sets[i]);
    free(is->sets);
    for (int i = 0; i < is->n_dir_files; i++) free(is->dir_files[i]);
    free(is->dir_files);
}

/* The input sets for graph g. Returns a CLI exit code (usage errors are
 * printed here) or, with *code == -1, an npuc error in err. */
static int read_sets(const graph *g, const input_spec *in, input_sets *is, npuc_err *err, int *code)
{
    *code = CLI_OK;
    int32_t k = g->n_inputs, n_sets;
    int rc;
    if (in->n_files > 0) {
        if (in->n_files != k) {
            *code = cli_usage_error("validate", "model has %d input%s but %d --input given", k, k == 1 ? "" : "s",
                                    in->n_files);
            return NPUC_OK;
        }
        n_sets = 1;
    } else if (in->dir) {
        if ((rc = list_dir(in->dir, &is->dir_files, &is->n_dir_files, err))) return rc;
        if (is->n_dir_files == 0 || k == 0 || is->n_dir_files % k) {
            *code = cli_usage_error("validate", "%s holds %d file%s; the model has %d input%s, so it needs a "
                                    "non-zero multiple of %d", in->dir, is->n_dir_files,
                                    is->n_dir_files == 1 ? "" : "s", k, k == 1 ? "" : "s", k);
            return NPUC_OK;
        }
        n_sets = is->n_dir_files / k;
    } else {
        n_sets = in->random_sets > 0 ? (int32_t)in->random_sets : 1;
    }
    is->n_sets = n_sets;
    is->n_alloc = (size_t)n_sets * (size_t)k;
    is->sets = calloc(is->n_alloc + 1, sizeof *is->sets);
    if (!is->sets) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    npuc_rng rng;
    npuc_rng_seed(&rng, in->seed);
    for (int32_t s = 0; s < n_sets; s++)
        for (int32_t i = 0; i < k; i++) {
            const graph_tensor *t = &g->tensors[g->inputs[i]];
            size_t at = (size_t)s * (size_t)k + (size_t)i;
            const char *file = in->n_files ? in->files[i] : in->dir ? is->dir_files[at] : NULL;
            if (file) {
                if ((rc = cli_read_input(file, t, &is->sets[at], err))) return npuc_err_prefix(err, "input %d", i);
            } else {
                if (!(is->sets[at] = calloc(t->nbytes + 1, 1))) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
                cli_fill_random(&rng, t, is->sets[at]);
            }
        }
    return NPUC_OK;
}

typedef struct report_spec {
    const char *json, *csv, *html;
    bool profile, quiet;
} report_spec;

/* Renders every report before writing any, so a failure leaves no file. */
static int write_reports(const val_report *rep, const report_spec *rs, npuc_err *err)
{
    char *texts[4] = {NULL, NULL, NULL, NULL};
    const char *paths[4] = {NULL, rs->json, rs->csv, rs->html};
    int rc = val_report_text(rep, rs->profile, &texts[0], err);
    if (!rc && rs->json) rc = val_report_json(rep, &texts[1], err);
    if (!rc && rs->csv) rc = val_report_csv(rep, &texts[2], err);
    if (!rc && rs->html) rc = val_report_html(rep, &texts[3], err);
    for (int i = 1; i < 4 && !rc; i++) {
        if (!paths[i]) continue;
        if ((rc = npuc_write_file(paths[i], texts[i], strlen(texts[i]), err)))
            for (int j = 1; j < i; j++)
                if (paths[j]) remove(paths[j]);
    }
    if (!rc && !rs->quiet) fputs(texts[0], stdout);
    for (int i = 0; i < 4; i++) free(texts[i]);
    return rc;
}

/* Loads the models and the inputs, validates, reports. */
static int validate(const char *model, const char *float_model, const input_spec *in, val_options *opt,
                    const report_spec *rs)
{
    npuc_err err = {0};
    tfl_model *tm = NULL, *ftm = NULL;
    graph *g = NULL, *fg = NULL;
    input_sets is;
    memset(&is, 0, sizeof is);
    val_report *rep = NULL;
    int code = CLI_OK, rc;
    if (!(rc = cli_load_graph(model, &tm, &g, &err)) && float_model &&
        !(rc = cli_load_graph(float_model, &ftm, &fg, &err)))
        opt->float_graph = fg;
    if (!rc) rc = read_sets(g, in, &is, &err, &code);
    if (!rc && code == CLI_OK) {
        opt->inputs = (const uint8_t *const *)is.sets;
        opt->n_sets = is.n_sets;
        if ((rc = val_run(g, base_of(model), opt, &rep, &err))) npuc_err_prefix(&err, "%s", model);
        else if (!(rc = write_reports(rep, rs, &err))) code = rep->pass ? CLI_OK : CLI_EVALIDATE;
    }
    if (rc) code = cli_fail(&err);
    val_report_free(rep);
    free_sets(&is);
    graph_free(g);
    graph_free(fg);
    tfl_model_free(tm);
    tfl_model_free(ftm);
    return code;
}

int cli_validate(int argc, char **argv)
{
    const char *model = NULL, *optimise = "performance", *cascade = "auto";
    target_spec tspec = {0};
    const char *headroom = NULL, *cache = NULL;
    const char *compiled = NULL, *params = NULL, *inputs_dir = NULL, *float_model = NULL;
    const char *json = NULL, *csv = NULL, *html = NULL;
    const char *input_files[64];
    int n_input_files = 0;
    long random_sets = -1;
    unsigned long long seed = 1;
    double tolerance = -1;
    bool profile = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        int trc;
#define VAL(var)                                                                  \
    do {                                                                          \
        if (!has_val) return cli_usage_error("validate", "%s needs a value", a);  \
        var = argv[++i];                                                          \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return CLI_OK;
        } else if (cli_target_option("validate", argc, argv, &i, &tspec, &trc)) {
            if (trc) return trc;
        } else if (!strcmp(a, "--optimise") || !strcmp(a, "--optimize")) VAL(optimise);
        else if (!strcmp(a, "--cascade")) VAL(cascade);
        else if (!strcmp(a, "--prefetch-headroom")) VAL(headroom);
        else if (!strcmp(a, "--arena-cache-size")) VAL(cache);
        else if (!strcmp(a, "--compiled")) VAL(compiled);
        else if (!strcmp(a, "--params")) VAL(params);
        else if (!strcmp(a, "--inputs")) VAL(inputs_dir);
        else if (!strcmp(a, "--float-model")) VAL(float_model);
        else if (!strcmp(a, "--json")) VAL(json);
        else if (!strcmp(a, "--csv")) VAL(csv);
        else if (!strcmp(a, "--report")) VAL(html);
        else if (!strcmp(a, "--input")) {
            if (!has_val) return cli_usage_error("validate", "%s needs a value", a);
            if (n_input_files == 64) return cli_usage_error("validate", "more than 64 --input files");
            input_files[n_input_files++] = argv[++i];
        } else if (!strcmp(a, "--random")) {
            const char *v;
            VAL(v);
            char *end;
            errno = 0;
            random_sets = strtol(v, &end, 10);
            if (errno || *end || end == v || random_sets < 1 || random_sets > 100000)
                return cli_usage_error("validate", "--random needs a count from 1 to 100000, not '%s'", v);
        } else if (!strcmp(a, "--seed")) {
            const char *v;
            VAL(v);
            char *end;
            errno = 0;
            seed = strtoull(v, &end, 0);
            if (errno || *end || end == v || v[0] == '-')
                return cli_usage_error("validate", "--seed needs a non-negative integer, not '%s'", v);
        } else if (!strcmp(a, "--tolerance")) {
            const char *v;
            VAL(v);
            char *end;
            errno = 0;
            tolerance = strtod(v, &end);
            if (errno || *end || end == v || !(tolerance >= 0) || !isfinite(tolerance))
                return cli_usage_error("validate", "--tolerance needs a number >= 0, not '%s'", v);
        } else if (!strcmp(a, "--profile")) profile = true;
        else if (!strcmp(a, "--quiet")) quiet = true;
        else if (a[0] == '-' && a[1]) return cli_usage_error("validate", "unknown option '%s'", a);
        else if (!model) model = a;
        else return cli_usage_error("validate", "more than one model given ('%s' and '%s')", model, a);
#undef VAL
    }
    if (!model) return cli_usage_error("validate", "no model given");
    if ((n_input_files > 0) + (inputs_dir != NULL) + (random_sets > 0) > 1)
        return cli_usage_error("validate", "give one of --input, --inputs and --random");
    if (params && !compiled) return cli_usage_error("validate", "--params applies to --compiled only");
    const char *outs[3] = {json, csv, html};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (outs[i] && outs[j] && !strcmp(outs[i], outs[j]))
                return cli_usage_error("validate", "two reports to the same file '%s'", outs[i]);

    val_options opt;
    memset(&opt, 0, sizeof opt);
    opt.tolerance = tolerance;
    if (!strcasecmp(optimise, "performance")) opt.cc.optimise = CC_OPT_PERFORMANCE;
    else if (!strcasecmp(optimise, "size")) opt.cc.optimise = CC_OPT_SIZE;
    else return cli_usage_error("validate", "unknown --optimise '%s' (performance or size)", optimise);
    if (!strcmp(cascade, "auto")) opt.cc.cascade = CC_CASCADE_AUTO;
    else if (!strcmp(cascade, "all")) opt.cc.cascade = CC_CASCADE_ALL;
    else if (!strcmp(cascade, "off")) opt.cc.cascade = CC_CASCADE_OFF;
    else return cli_usage_error("validate", "unknown --cascade '%s' (auto, all or off)", cascade);
    if (headroom && !cli_parse_headroom(headroom, &opt.cc.prefetch_headroom))
        return cli_usage_error("validate", "--prefetch-headroom needs a percentage from 0 to 1000, not '%s'", headroom);
    if (cache && !cli_parse_bytes(cache, &opt.cc.sram_limit))
        return cli_usage_error("validate", "--arena-cache-size needs a byte count above 0 (e.g. 22784 or 64K), not '%s'",
                               cache);
    /* the target: the flags, else (--compiled) the one the model records,
     * else the NPU its command streams need, else the defaults */
    {
        npuc_err err = {0};
        target_desc rec;
        bool have_rec = false, have_var = false;
        eu_variant mv;
        if (compiled) {
            uint8_t *blob;
            size_t size;
            if (npuc_read_file(compiled, &blob, &size, &err)) return cli_fail(&err);
            target_found tf;
            target_find_in_compiled(blob, size, &tf);
            int rc = target_found_parse(&tf, compiled, &rec, &have_rec, &mv, &have_var, &err);
            free(blob);
            if (rc) return cli_fail(&err);
        }
        int rc = cli_target_resolve("validate", &tspec, have_rec ? &rec : NULL, have_var ? &mv : NULL, &opt.cc.sys);
        if (rc) return rc;
    }

    if (compiled) {
        if (params && npuc_probe_file(compiled) != NPUC_FORM_RELOC)
            return cli_usage_error("validate", "--params applies to a loadable model (NAME_rel.bin) only");
        opt.compiled_path = compiled;
        opt.compiled_params_path = params;
    }
    input_spec in = {.files = input_files, .n_files = n_input_files, .dir = inputs_dir,
                     .random_sets = random_sets, .seed = seed};
    report_spec rs = {.json = json, .csv = csv, .html = html, .profile = profile, .quiet = quiet};
    return validate(model, float_model, &in, &opt, &rs);
}
