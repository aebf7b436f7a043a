/* genmodel: writes a random valid quantized TFLite model.
 *   genmodel --seed N [--ops K] [--int16] [--only OP,OP,...] [--max-dim D] -o FILE.tflite
 *   genmodel --seed N --lstm [--int16] -o FILE.tflite   (one UNIDIRECTIONAL_SEQUENCE_LSTM)
 *   genmodel --control counter|if|while --seed N -o FILE.tflite  (several subgraphs, resource variables)
 *   genmodel --list        (prints the op names it can generate) */
#include "genmodel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: genmodel --seed N [--ops K] [--int16] [--only OP,OP,...] [--max-dim D] -o FILE.tflite\n"
            "       genmodel --seed N --lstm [--int16] -o FILE.tflite\n"
            "       genmodel --control counter|if|while --seed N -o FILE.tflite\n"
            "       genmodel --list\n"
            "Writes a random but valid quantized TFLite model (int8, or int16x8 with --int16).\n"
            "  --seed N      model seed (same seed and options: same file)\n"
            "  --ops K       ops in the main chain (default: random 3..12)\n"
            "  --int16       int16 activations, int8 weights, int64 bias\n"
            "  --only LIST   draw ops only from LIST (names as in --list, comma separated)\n"
            "  --max-dim D   largest height, width or channel count (4..32, default 32)\n"
            "  --lstm        one UNIDIRECTIONAL_SEQUENCE_LSTM with random sizes and quantization\n"
            "  --control K   a model with several subgraphs and resource variables instead:\n"
            "                counter (CALL_ONCE + variables), if, while (seed 0: the documented constants)\n"
            "  -o FILE       output file\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-') return false;
    *out = v;
    return true;
}

static int32_t op_by_name(const char *name, size_t len)
{
    int32_t n;
    const int32_t *ops = genmodel_ops(&n);
    for (int32_t i = 0; i < n; i++) {
        const char *nm = tfl_builtin_name(ops[i]);
        if (strlen(nm) == len && strncmp(nm, name, len) == 0) return ops[i];
    }
    return -1;
}

int main(int argc, char **argv)
{
    genmodel_config cfg;
    genmodel_config_default(&cfg);
    uint64_t seed = 0, v;
    bool have_seed = false, lstm = false;
    const char *outpath = NULL;
    int32_t only[64];
    int control = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--list")) {
            int32_t n;
            const int32_t *ops = genmodel_ops(&n);
            for (int32_t k = 0; k < n; k++) printf("%s\n", tfl_builtin_name(ops[k]));
            return 0;
        } else if (!strcmp(a, "--int16")) {
            cfg.int16 = true;
        } else if (!strcmp(a, "--lstm")) {
            lstm = true;
        } else if (!strcmp(a, "--seed") && val) {
            if (!parse_u64(val, &seed)) {
                fprintf(stderr, "genmodel: --seed: '%s' is not a non-negative integer\n", val);
                return 2;
            }
            have_seed = true;
            i++;
        } else if (!strcmp(a, "--ops") && val) {
            if (!parse_u64(val, &v) || v > 1000) {
                fprintf(stderr, "genmodel: --ops: '%s' is not an integer in [0, 1000]\n", val);
                return 2;
            }
            cfg.n_ops = (int32_t)v;
            i++;
        } else if (!strcmp(a, "--max-dim") && val) {
            if (!parse_u64(val, &v) || v < 4 || v > 32) {
                fprintf(stderr, "genmodel: --max-dim: '%s' is not an integer in [4, 32]\n", val);
                return 2;
            }
            cfg.max_dim = (int32_t)v;
            i++;
        } else if (!strcmp(a, "--only") && val) {
            cfg.n_only = 0;
            for (const char *p = val; *p;) {
                const char *q = strchr(p, ',');
                size_t len = q ? (size_t)(q - p) : strlen(p);
                int32_t code = op_by_name(p, len);
                if (code < 0) {
                    fprintf(stderr, "genmodel: --only: unknown op '%.*s' (see genmodel --list)\n", (int)len, p);
                    return 2;
                }
                if (cfg.n_only < 64) only[cfg.n_only++] = code;
                p = q ? q + 1 : p + len;
            }
            cfg.only = only;
            i++;
        } else if (!strcmp(a, "--control") && val) {
            control = !strcmp(val, "counter") ? GENMODEL_COUNTER : !strcmp(val, "if") ? GENMODEL_IF
                      : !strcmp(val, "while")  ? GENMODEL_WHILE : -1;
            if (control < 0) {
                fprintf(stderr, "genmodel: --control: '%s' is not counter, if or while\n", val);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "-o") && val) {
            outpath = val;
            i++;
        } else {
            fprintf(stderr, "genmodel: unknown or incomplete argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!have_seed || !outpath) {
        usage(stderr);
        return 2;
    }
    if (lstm && control >= 0) {
        fprintf(stderr, "genmodel: --lstm and --control are two different models; give one\n");
        return 2;
    }
    npuc_err err = {0};
    graph *g = NULL;
    tfl_model *m = NULL;
    genmodel_lstm_config lc = {.int16 = cfg.int16};
    int rc = control >= 0 ? genmodel_build_control((genmodel_control_kind)control, seed, &g, &err)
             : lstm       ? genmodel_lstm(seed, &lc, &g, &err)
                          : genmodel_build(seed, &cfg, &g, &err);
    if (!rc) rc = graph_export(g, &m, &err);
    if (!rc) rc = tfl_write_file(m, outpath, &err);
    if (rc) {
        fprintf(stderr, "%s%s\n", strncmp(err.msg, "genmodel:", 9) ? "genmodel: " : "", err.msg);
    } else {
        printf("%s: %d ops, %d tensors (%s)\n", outpath, g->n_ops, g->n_tensors, g->name);
    }
    tfl_model_free(m);
    graph_free(g);
    return rc ? 1 : 0;
}
