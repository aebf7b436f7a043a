/* Single-operator models with TensorFlow Lite Micro's exact outputs
 * (NPUC_SHARED/models/ops, listed in its MANIFEST.tsv): for every case and
 * seed, the reference interpreter must give exactly TFLite Micro's bytes,
 * and the model compiled for an Ethos-U55-128 (these ops run as CPU epochs
 * of the runtime) must give exactly the reference interpreter's bytes on the
 * same inputs (npuc validate's path: runtime + driver + virtual NPU).
 *
 * NPUC_OPS=ABS,NEG limits the run to those operators (while working on
 * them). An operator the reference interpreter does not implement yet is
 * listed as missing and fails the test unless NPUC_OPS_ALLOW_MISSING=1. */
#include "test.h"
#include "../src/validate/validate.h"
#include "../src/tflite/tflite.h"
#include "test_model.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SEEDS 3

static bool op_selected(const char *op)
{
    const char *f = getenv("NPUC_OPS");
    if (!f || !*f) return true;
    size_t n = strlen(op);
    for (const char *p = f; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, op, n)) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

/* Splits a tab-separated line in place; returns the field count. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    return n;
}

typedef struct op_tally {
    char op[64];
    int cases, exact, missing, wrong;
    char first_error[256];
} op_tally;

static op_tally tallies[128];
static int n_tallies;

static op_tally *tally(const char *op)
{
    for (int i = 0; i < n_tallies; i++)
        if (!strcmp(tallies[i].op, op)) return &tallies[i];
    if (n_tallies == (int)(sizeof tallies / sizeof tallies[0])) return &tallies[n_tallies - 1];
    op_tally *t = &tallies[n_tallies++];
    snprintf(t->op, sizeof t->op, "%s", op);
    return t;
}

/* Keeps the first problem of an operator: "a: b" (truncated). */
static void note(op_tally *t, const char *a, const char *b)
{
    if (t->first_error[0]) return;
    size_t n = strlen(a), cap = sizeof t->first_error - 1;
    if (n > cap) n = cap;
    memcpy(t->first_error, a, n);
    const char *parts[2] = {": ", b};
    for (int k = 0; k < 2; k++) {
        size_t m = strlen(parts[k]);
        if (m > cap - n) m = cap - n;
        memcpy(t->first_error + n, parts[k], m);
        n += m;
    }
    t->first_error[n] = 0;
}

/* dst = a + b + c, or false when it does not fit. */
static bool join3(char *dst, size_t size, const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    if (la + lb + lc >= size) return false;
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb);
    memcpy(dst + la + lb, c, lc + 1);
    return true;
}

/* One case: returns 1 bit-exact, 0 wrong, -1 operator not implemented. */
static int run_case(const char *root, const char *name, const char *file, const char *seeds,
                    op_tally *t)
{
    char path[4096];
    if (!join3(path, sizeof path, root, "/", file)) {
        note(t, name, "path too long");
        return 0;
    }
    npuc_err e = {0};
    tfl_model *tm = NULL;
    graph *g = NULL;
    int rc = tfl_read_file(path, &tm, &e);
    if (!rc) rc = graph_import(tm, &g, &e);
    if (rc) {
        note(t, name, e.msg);
        tfl_model_free(tm);
        return strstr(e.msg, "not supported") ? -1 : 0;
    }
    int result = 1;
    uint8_t *in[MAX_SEEDS] = {0}, *out[MAX_SEEDS] = {0};
    size_t in_n[MAX_SEEDS] = {0}, out_n[MAX_SEEDS] = {0};
    int n_seeds = 0;
    for (const char *p = seeds; *p && n_seeds < MAX_SEEDS;) {
        char base[4096], suffix[32], pi[4200], po[4200];
        snprintf(suffix, sizeof suffix, ".s%d", atoi(p));
        path[strlen(path) - 7] = 0; /* drop ".tflite" */
        if (!join3(base, sizeof base, path, suffix, "") || !join3(pi, sizeof pi, base, ".in.bin", "") ||
            !join3(po, sizeof po, base, ".out.bin", "")) {
            note(t, name, "path too long");
            result = 0;
            break;
        }
        strcat(path, ".tflite");
        in[n_seeds] = t_read_all(pi, &in_n[n_seeds]);
        out[n_seeds] = t_read_all(po, &out_n[n_seeds]);
        if (!in[n_seeds] && in_n[n_seeds] == 0) in[n_seeds] = calloc(1, 1);
        if (!in[n_seeds] || !out[n_seeds]) {
            note(t, name, "cannot read its golden files");
            result = 0;
        }
        n_seeds++;
        const char *c = strchr(p, ',');
        if (!c) break;
        p = c + 1;
    }
    /* the reference interpreter against TFLite Micro */
    interp *ip = NULL;
    if (result == 1 && interp_create(g, NULL, &ip, &e)) {
        note(t, name, e.msg);
        result = strstr(e.msg, "not supported by the reference interpreter") ||
                         strstr(e.msg, "not implemented by the reference kernels")
                     ? -1
                     : 0;
    }
    const uint8_t **sets = calloc((size_t)n_seeds * (size_t)(g->n_inputs + 1), sizeof *sets);
    for (int s = 0; s < n_seeds && result == 1; s++) {
        size_t off = 0;
        for (int32_t i = 0; i < g->n_inputs && result == 1; i++) {
            const graph_tensor *x = &g->tensors[g->inputs[i]];
            if (off + x->nbytes > in_n[s] || interp_set_input(ip, i, in[s] + off, x->nbytes, &e)) {
                note(t, name, "an input does not fit the golden input file");
                result = 0;
                break;
            }
            sets[s * g->n_inputs + i] = in[s] + off;
            off += x->nbytes;
        }
        if (result != 1) break;
        /* Each seed's golden comes from a fresh TFLite Micro interpreter:
         * variable (state) tensors start from their initial value. */
        interp_reset_state(ip);
        if (interp_invoke(ip, &e)) {
            note(t, name, e.msg);
            result = 0;
            break;
        }
        off = 0;
        for (int32_t o = 0; o < g->n_outputs; o++) {
            size_t n = 0;
            const uint8_t *got = interp_output(ip, o, &n);
            if (off + n > out_n[s] || memcmp(got, out[s] + off, n) != 0) {
                char where[128];
                size_t first = 0;
                while (off + first < out_n[s] && first < n && got[first] == out[s][off + first]) first++;
                snprintf(where, sizeof where, "differs from TFLite Micro: seed index %d, output %d, byte %zu", s, o,
                         first);
                note(t, name, where);
                result = 0;
                break;
            }
            off += n;
        }
        if (result == 1 && off != out_n[s]) {
            note(t, name, "outputs are shorter than the golden");
            result = 0;
        }
    }
    interp_free(ip);
    /* the deployed form (compiled, run by the runtime) against the reference */
    if (result == 1) {
        val_options o;
        memset(&o, 0, sizeof o);
        o.tolerance = -1;
        o.inputs = sets;
        o.n_sets = n_seeds;
        val_report *r = NULL;
        if (target_default(EU_U55_128, &o.cc.sys, &e) || val_run(g, name, &o, &r, &e)) {
            note(t, name, e.msg);
            result = 0;
        } else if (!r->bit_exact) {
            note(t, name, "the deployed model is NOT bit-exact with the reference interpreter");
            result = 0;
        }
        val_report_free(r);
    }
    free(sets);
    for (int s = 0; s < n_seeds; s++) {
        free(in[s]);
        free(out[s]);
    }
    graph_free(g);
    tfl_model_free(tm);
    return result;
}

int main(void)
{
    char buf[4096];
    const char *manifest = t_shared("models/ops/MANIFEST.tsv", buf, sizeof buf);
    if (!manifest) {
        printf("SKIP: NPUC_SHARED/models/ops/MANIFEST.tsv not found\n");
        return 0;
    }
    char root[4096];
    snprintf(root, sizeof root, "%s", manifest);
    *strrchr(root, '/') = 0;
    size_t n = 0;
    char *text = (char *)t_read_all(manifest, &n);
    CHECK(text != NULL);
    if (!text) TEST_MAIN_END();
    text = realloc(text, n + 1);
    text[n] = 0;
    const bool allow_missing = getenv("NPUC_OPS_ALLOW_MISSING") && atoi(getenv("NPUC_OPS_ALLOW_MISSING"));
    int cases = 0;
    char *save = NULL;
    bool header = true;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (header) {
            header = false;
            continue;
        }
        char *f[8];
        if (split_tabs(line, f, 8) < 6) continue;
        if (!op_selected(f[0])) continue;
        op_tally *t = tally(f[0]);
        t->cases++;
        cases++;
        const int r = run_case(root, f[1], f[2], f[5], t);
        if (r > 0) t->exact++;
        else if (r < 0) t->missing++;
        else t->wrong++;
    }
    free(text);
    int missing_ops = 0;
    for (int i = 0; i < n_tallies; i++) {
        const op_tally *t = &tallies[i];
        const char *verdict = t->exact == t->cases ? "bit-exact" : t->wrong ? "WRONG" : "MISSING";
        printf("%-30s %3d cases %3d bit-exact %s%s%s\n", t->op, t->cases, t->exact, verdict,
               t->first_error[0] ? ": " : "", t->first_error);
        CHECK_EQ_INT(t->wrong, 0);
        if (t->missing) missing_ops++;
        if (!allow_missing) CHECK_EQ_INT(t->missing, 0);
    }
    printf("%d cases over %d operators; %d operators not implemented\n", cases, n_tallies, missing_ops);
    CHECK(cases > 0);
    TEST_MAIN_END();
}
