/* npuc compile: TFLite in; Ethos-U command streams, weights and memory plan
 * out, as TFLite (+ C sources), with JSON/CSV reports and a summary. The
 * compile and the files are the host API's (npuc_compile_file,
 * npuc_compiled_write); this is argument parsing and printing. */
#include "cli.h"
#include "compiler/cc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
            "  --arena-cache-size B  bytes (K, M: times 1024). U55: the most SRAM the\n"
            "                        arena may take; the fewest cycles that fit, or an\n"
            "                        error naming the least the model needs. U65\n"
            "                        Dedicated_Sram modes: the fast SRAM pool's size,\n"
            "                        in place of the mode's (Dedicated_Sram: no limit;\n"
            "                        _256KB, _384KB, _512KB: that size)\n"
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

/* --verbose: every op of the source model, where it runs and why. */
static void print_ops(const npuc_compiled *c)
{
    for (size_t i = 0; i < npuc_compiled_op_count(c); i++) {
        npuc_op_placement o;
        npuc_compiled_op(c, i, &o);
        if (o.folded)
            printf("  op %3zu %-24s folded into a constant at compile time\n", i, o.op);
        else if (o.npu && o.fused_into >= 0)
            printf("  op %3zu %-24s NPU  (fused into op %d)\n", i, o.op, o.fused_into);
        else if (o.npu && o.folded_into >= 0)
            printf("  op %3zu %-24s NPU  (folded into op %d)\n", i, o.op, o.folded_into);
        else if (o.npu && o.cascade >= 0)
            printf("  op %3zu %-24s NPU  epoch %d, %d NPU op(s), %llu cycles, cascade from op %d\n", i, o.op,
                   o.epoch, o.n_npu_ops, (unsigned long long)o.cycles, o.cascade);
        else if (o.npu)
            printf("  op %3zu %-24s NPU  epoch %d, %d NPU op(s), %llu cycles\n", i, o.op, o.epoch, o.n_npu_ops,
                   (unsigned long long)o.cycles);
        else
            printf("  op %3zu %-24s CPU  %s\n", i, o.op, o.why);
    }
}

int cli_compile(int argc, char **argv)
{
    const char *model = NULL, *outdir = NULL;
    target_spec tspec = {0};
    const char *format = "tflite", *optimise = "performance", *cascade = "auto";
    const char *headroom = NULL, *cache = NULL;
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
        else if (!strcmp(a, "--arena-cache-size")) VAL(cache);
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
    npuc_compile_options co = {
        .target = cli_target_api(&tspec),
        .no_fold = no_fold,
        .formats = (want_tflite ? NPUC_FORMAT_TFLITE : 0) | (want_c ? NPUC_FORMAT_C : 0) |
                   (want_bin ? NPUC_FORMAT_NPRT : 0) | (want_reloc ? NPUC_FORMAT_RELOC : 0),
        .split = split,
        .sign_seed = sign_key ? seed : NULL,
    };
    if (!strcasecmp(optimise, "performance")) co.optimise = NPUC_OPTIMISE_PERFORMANCE;
    else if (!strcasecmp(optimise, "size")) co.optimise = NPUC_OPTIMISE_SIZE;
    else return cli_usage_error("compile", "unknown --optimise '%s' (performance or size)", optimise);
    if (!strcmp(cascade, "auto")) co.cascade = NPUC_CASCADE_AUTO;
    else if (!strcmp(cascade, "all")) co.cascade = NPUC_CASCADE_ALL;
    else if (!strcmp(cascade, "off")) co.cascade = NPUC_CASCADE_OFF;
    else return cli_usage_error("compile", "unknown --cascade '%s' (auto, all or off)", cascade);
    if (headroom && !cli_parse_headroom(headroom, &co.prefetch_headroom))
        return cli_usage_error("compile", "--prefetch-headroom needs a percentage from 0 to 1000, not '%s'", headroom);
    if (cache && !cli_parse_bytes(cache, &co.arena_cache_size))
        return cli_usage_error("compile", "--arena-cache-size needs a byte count above 0 (e.g. 22784 or 64K), not '%s'",
                               cache);
    /* the target, checked before the model is read (npuc_compile resolves
     * the same strings again) */
    target_desc sys;
    int rc = cli_target_resolve("compile", &tspec, NULL, NULL, &sys);
    if (rc) return rc;

    npuc_compiled *c = NULL;
    if (npuc_compile_file(model, &co, &c) || npuc_compiled_write(c, outdir)) {
        npuc_compiled_free(&c);
        return cli_fail_last();
    }
    if (!quiet) {
        fputs(npuc_compiled_summary(c), stdout);
        if (verbose) print_ops(c);
    }
    npuc_compiled_free(&c);
    return CLI_OK;
}
