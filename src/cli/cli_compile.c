/* npuc compile: TFLite in; Ethos-U command streams, weights and memory plan
 * out, as TFLite (+ C sources), with JSON/CSV reports and a summary. */
#include "cli.h"
#include "../compiler/cc.h"
#include "../emit/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void help(FILE *f)
{
    fprintf(f,
            "usage: npuc compile MODEL -o DIR [options]\n"
            "\n"
            "Compiles MODEL (.tflite, int8 or int16x8) for an Arm Ethos-U NPU. Ops the\n"
            "NPU can run become command streams (one 'ethos-u' custom op per run of\n"
            "consecutive NPU ops); the others stay CPU ops, each with the reason.\n"
            "\n"
            "options:\n"
            "  -o, --output DIR      output folder (created if missing; also --output-dir)\n");
    cli_target_help(f, false);
    fprintf(f,
            "  --output-format F     tflite (default), c, bin, reloc, or all\n"
            "  --split               reloc: parameters in a separate NAME_params.bin\n"
            "  --sign-key FILE       reloc: sign with this Ed25519 key (a 32-byte seed);\n"
            "                        the public key goes to NAME_rel.json\n"
            "  --optimise G          performance (default) or size, any letter case\n"
            "  --cascade C           auto (default: where it lowers peak SRAM), all, off\n"
            "  --prefetch-headroom P performance: how much, in percent of the activation\n"
            "                        peak, loading weights early may add to it (0-1000,\n"
            "                        default 20; 0: never)\n"
            "  --no-fold             keep ops on constants in the model (default: they\n"
            "                        are computed at compile time and become constants)\n"
            "  --verbose             list every op with where it runs and why\n"
            "  --quiet               print nothing on success\n"
            "  --help                this text\n"
            "\n"
            "Writes DIR/NAME_npu.tflite (format tflite: runs under TFLite Micro with the\n"
            "Ethos-U driver, or `npuc run`), DIR/ID_model.c and DIR/ID_model.h (format c:\n"
            "the compiled model for the npuc runtime as a const array; ID is NAME as a C\n"
            "identifier), DIR/NAME.nprt (format bin: the same bytes as a file, for\n"
            "`npuc run`), DIR/NAME_rel.bin + DIR/NAME_rel.json (format reloc: a model an\n"
            "application installs at run time, docs/reloc.md; with --split also\n"
            "DIR/NAME_params.bin), and always DIR/NAME_report.json and DIR/NAME_report.csv, where\n"
            "NAME is MODEL's file name without .tflite. Nothing is written on error.\n"
            "Every compiled form records the target it was compiled for, which `npuc run`\n"
            "and `npuc validate` replay (docs/system-config.md). Vela's spellings\n"
            "--accelerator-config, --output-dir, --config, --system-config, --memory-mode\n"
            "and --optimise Performance|Size work as in Vela.\n"
            "\n"
            "Exit status: 0 success, 1 model or input error, 2 usage error.\n");
}

static void base_name(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    size_t l = strlen(out);
    if (l > 7 && !strcmp(out + l - 7, ".tflite")) out[l - 7] = 0;
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            *p = '_';
    if (!out[0]) snprintf(out, n, "model");
}

static int make_dir(const char *dir, npuc_err *err)
{
    struct stat st;
    if (!stat(dir, &st)) {
        if (!S_ISDIR(st.st_mode))
            return npuc_errf(err, NPUC_E_IO, "output '%s' exists and is not a folder", dir);
        return NPUC_OK;
    }
    if (mkdir(dir, 0777))
        return npuc_errf(err, NPUC_E_IO, "cannot create output folder '%s': %s", dir, strerror(errno));
    return NPUC_OK;
}

int cli_compile(int argc, char **argv)
{
    const char *model = NULL, *outdir = NULL;
    target_spec tspec = {0};
    const char *format = "tflite", *optimise = "performance", *cascade = "auto";
    const char *headroom = NULL;
    bool verbose = false, quiet = false, split = false, no_fold = false;
    const char *sign_key = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        int trc;
#define VAL(var)                                                                 \
    do {                                                                         \
        if (!has_val) return cli_usage_error("compile", "%s needs a value", a);  \
        var = argv[++i];                                                         \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--output-dir")) VAL(outdir);
        else if (cli_target_option("compile", argc, argv, &i, &tspec, &trc)) {
            if (trc) return trc;
        } else if (!strcmp(a, "--output-format")) VAL(format);
        else if (!strcmp(a, "--optimise") || !strcmp(a, "--optimize")) VAL(optimise);
        else if (!strcmp(a, "--cascade")) VAL(cascade);
        else if (!strcmp(a, "--prefetch-headroom")) VAL(headroom);
        else if (!strcmp(a, "--verbose")) verbose = true;
        else if (!strcmp(a, "--no-fold")) no_fold = true;
        else if (!strcmp(a, "--split")) split = true;
        else if (!strcmp(a, "--sign-key")) VAL(sign_key);
        else if (!strcmp(a, "--quiet")) quiet = true;
        else if (a[0] == '-' && a[1]) return cli_usage_error("compile", "unknown option '%s'", a);
        else if (!model) model = a;
        else return cli_usage_error("compile", "more than one model given ('%s' and '%s')", model, a);
#undef VAL
    }
    if (!model) return cli_usage_error("compile", "no model given");
    if (!outdir) return cli_usage_error("compile", "no output folder given (-o DIR)");
    bool want_tflite = !strcmp(format, "tflite") || !strcmp(format, "all");
    bool want_c = !strcmp(format, "c") || !strcmp(format, "all");
    bool want_bin = !strcmp(format, "bin") || !strcmp(format, "all");
    bool want_reloc = !strcmp(format, "reloc") || !strcmp(format, "all");
    if (!want_tflite && !want_c && !want_bin && !want_reloc)
        return cli_usage_error("compile", "unknown --output-format '%s' (tflite, c, bin, reloc or all)", format);
    if ((split || sign_key) && !want_reloc)
        return cli_usage_error("compile", "%s applies to --output-format reloc only", split ? "--split" : "--sign-key");
    uint8_t seed[32];
    if (sign_key) {
        npuc_err kerr = {0};
        uint8_t *k;
        size_t kn;
        if (npuc_read_file(sign_key, &k, &kn, &kerr)) return cli_fail(&kerr);
        if (kn != 32) {
            free(k);
            npuc_errf(&kerr, NPUC_E_FORMAT, "%s: an Ed25519 key seed is 32 bytes, this file has %zu", sign_key, kn);
            return cli_fail(&kerr);
        }
        memcpy(seed, k, 32);
        free(k);
    }
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.no_fold = no_fold;
    if (!strcasecmp(optimise, "performance")) opt.optimise = CC_OPT_PERFORMANCE;
    else if (!strcasecmp(optimise, "size")) opt.optimise = CC_OPT_SIZE;
    else return cli_usage_error("compile", "unknown --optimise '%s' (performance or size)", optimise);
    if (!strcmp(cascade, "auto")) opt.cascade = CC_CASCADE_AUTO;
    else if (!strcmp(cascade, "all")) opt.cascade = CC_CASCADE_ALL;
    else if (!strcmp(cascade, "off")) opt.cascade = CC_CASCADE_OFF;
    else return cli_usage_error("compile", "unknown --cascade '%s' (auto, all or off)", cascade);
    if (headroom && !cli_parse_headroom(headroom, &opt.prefetch_headroom))
        return cli_usage_error("compile", "--prefetch-headroom needs a percentage from 0 to 1000, not '%s'", headroom);
    npuc_err err = {0};
    int rc = cli_target_resolve("compile", &tspec, NULL, NULL, &opt.sys);
    if (rc) return rc;

    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    char *summary = NULL, *rtable = NULL;
    emit_reloc_out rel = {0};
    if ((rc = tfl_read_file(model, &tm, &err)) || (rc = graph_import(tm, &g, &err))) {
        npuc_err_prefix(&err, "%s", model);
        goto fail;
    }
    if ((rc = cc_compile(g, &opt, &cm, &err))) {
        npuc_err_prefix(&err, "%s", model);
        goto fail;
    }
    char name[256], path[4096];
    base_name(model, name, sizeof name);
    if ((rc = make_dir(outdir, &err))) goto fail;
    /* every file is written atomically; on a failure the ones already
     * written are removed so that no partial output remains */
    const char *written[12];
    char paths[12][4096];
    int nw = 0;
#define OUT(fmt, ...) (snprintf(paths[nw], sizeof paths[nw], fmt, __VA_ARGS__), paths[nw])
    if (want_tflite) {
        if ((rc = emit_tflite_file(cm, OUT("%s/%s_npu.tflite", outdir, name), &err))) goto undo;
        written[nw] = paths[nw];
        nw++;
    }
    if (want_c) {
        char id[200];
        emit_c_ident(name, id, sizeof id);
        if ((rc = emit_c_sources(cm, name, outdir, &err))) goto undo;
        written[nw] = OUT("%s/%s_model.h", outdir, id);
        nw++;
        written[nw] = OUT("%s/%s_model.c", outdir, id);
        nw++;
    }
    if (want_bin) {
        if ((rc = emit_npurt_file(cm, name, OUT("%s/%s.nprt", outdir, name), &err))) goto undo;
        written[nw] = paths[nw];
        nw++;
    }
    if (want_reloc) {
        emit_reloc_options ro = {.split = split, .sign_seed = sign_key ? seed : NULL};
        char *json = NULL;
        if ((rc = emit_reloc(cm, name, &ro, &rel, &err))) goto undo;
        rc = npuc_write_file(OUT("%s/%s_rel.bin", outdir, name), rel.file, rel.file_size, &err);
        if (rc) goto undo;
        written[nw] = paths[nw];
        nw++;
        if (split) {
            if ((rc = npuc_write_file(OUT("%s/%s_params.bin", outdir, name), rel.params, rel.params_size, &err))) goto undo;
            written[nw] = paths[nw];
            nw++;
        }
        char fname[300];
        snprintf(fname, sizeof fname, "%s_rel.bin", name);
        if ((rc = emit_reloc_json(&rel, ro.sign_seed, &json, &err))) goto undo;
        rc = npuc_write_file(OUT("%s/%s_rel.json", outdir, name), json, strlen(json), &err);
        free(json);
        if (rc) goto undo;
        written[nw] = paths[nw];
        nw++;
        if ((rc = emit_reloc_table(&rel, fname, &rtable, &err))) goto undo;
    }
    if ((rc = emit_report_json(cm, model, OUT("%s/%s_report.json", outdir, name), &err))) goto undo;
    written[nw] = paths[nw];
    nw++;
    if ((rc = emit_report_csv(cm, OUT("%s/%s_report.csv", outdir, name), &err))) goto undo;
    written[nw] = paths[nw];
    nw++;
#undef OUT
    (void)path;
    if (!quiet) {
        if ((rc = emit_summary(cm, model, &summary, &err))) goto undo;
        fputs(summary, stdout);
        if (rtable) fputs(rtable, stdout);
        if (verbose) {
            for (int32_t i = 0; i < g->n_ops; i++) {
                int32_t ci = cc_op_of_source(cm, i);
                if (ci < 0) {
                    printf("  op %3d %-24s folded into a constant at compile time\n", i, graph_op_name(&g->ops[i]));
                    continue;
                }
                const cc_op_info *oi = &cm->ops[ci];
                if (oi->npu && oi->cascade >= 0)
                    printf("  op %3d %-24s NPU  epoch %d, %d NPU op(s), %llu cycles, cascade from op %d\n", i,
                           graph_op_name(&g->ops[i]), oi->epoch, oi->n_eu,
                           (unsigned long long)oi->cycles, oi->cascade);
                else if (oi->npu)
                    printf("  op %3d %-24s NPU  epoch %d, %d NPU op(s), %llu cycles\n", i,
                           graph_op_name(&g->ops[i]), oi->epoch, oi->n_eu,
                           (unsigned long long)oi->cycles);
                else
                    printf("  op %3d %-24s CPU  %s\n", i, graph_op_name(&g->ops[i]), oi->why);
            }
        }
    }
    free(summary);
    free(rtable);
    emit_reloc_out_free(&rel);
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
    return CLI_OK;
undo:
    for (int i = 0; i < nw; i++) unlink(written[i]);
fail:
    free(summary);
    free(rtable);
    emit_reloc_out_free(&rel);
    cc_model_free(cm);
    if (g) graph_free(g);
    tfl_model_free(tm);
    return cli_fail(&err);
}
