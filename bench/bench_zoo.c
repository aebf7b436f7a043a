/* npuc beside Arm Vela 5.1 on every shared model: compiles each model of
 * models/tflm and models/zoo in-process through the host API
 * (npuc_compile_memory) for ethos-u55-128, ethos-u55-256 and ethos-u65-256
 * with the default system config, and prints per model and config npuc's
 * NPU cycles, peak SRAM, flash, compile CPU time (best of --runs, 3) and NPU/CPU op
 * counts beside Vela's from models/zoo/vela51/figures.tsv, with the ratios
 * npuc / Vela; then per config the median ratios and the worst three
 * models per figure. Where figures.tsv has no cycles_on_npuc_sim, Vela's
 * output file (vela51/CONFIG/NAME_vela.tflite) is run here on the virtual
 * NPU and its ethos-u ops' NPU cycles are Vela's cycles, marked '*' and
 * counted in the ratios and medians like the others. Asserts nothing: it
 * prints figures and exits 0 (1 when the shared folder, a model folder or
 * figures.tsv is missing, or the filters match nothing). See docs/bench.md.
 *
 *   usage: bench_zoo [--models NAME[,NAME...]] [--configs u55-128,u55-256,u65-256] [--runs N] [SHARED_DIR]
 *   NAME may be a glob (fnmatch); SHARED_DIR defaults to $NPUC_SHARED, else ../shared. */
#include "npuc/npuc.h"
#include "bench_models.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int RUNS = 3;           /* --runs */
#define MAX_CONFIGS 8

/* The figures compared: a value per side, npuc / Vela. */
enum { F_CYCLES, F_SRAM, F_SRAM_NS, F_FLASH, F_CONST, F_FLASH_CS, F_COMPILE, N_RATIO, F_NPU_OPS = N_RATIO, F_CPU_OPS,
       F_STREAMS, N_FIG };
/* F_SRAM_NS: SRAM without the state kept across invocations (variable
 * tensors), as Vela counts SRAM (TFLite Micro keeps them in its own arena);
 * F_CONST: flash without the command streams, as Vela counts flash (its
 * read_only tensor and summary leave the command stream out);
 * F_FLASH_CS: npuc's flash against Vela's with its command streams added
 * (the bytes of its ethos-u ops' streams, from its output file): both
 * sides count them */
static const char *const fig_name[N_FIG] = {"cycles", "SRAM", "SRAM-st", "flash", "flash-cs", "flash+cs", "compile",
                                            "NPU ops", "CPU ops", "streams"};

typedef struct row {
    const char *model;
    int ok;                     /* npuc compiled it */
    char error[200];
    double npuc[N_FIG], vela[N_FIG];
    int has_vela[N_FIG];
    int priced;                 /* vela[F_CYCLES] priced by this run (figures.tsv has none) */
} row;

typedef struct vela_row {
    char *model, *config;
    double fig[N_FIG];
    int has[N_FIG];
} vela_row;

static vela_row *vela;
static size_t n_vela;

/* The process's CPU time: a compile runs on one thread, and other
 * processes on a loaded machine do not count against it. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static char *xstrdup(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (!d) {
        fprintf(stderr, "bench_zoo: out of memory\n");
        exit(1);
    }
    return strcpy(d, s);
}

/* figures.tsv: the columns by their header names. */
static int load_vela(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "bench_zoo: cannot read Vela's figures %s\n", path);
        return 1;
    }
    static const char *const col_name[N_FIG] = {"cycles_on_npuc_sim", "sram_bytes", "sram_bytes", "flash_bytes",
                                                "flash_bytes", NULL, "compile_ms", "npu_ops", "cpu_ops", NULL};
    int col[N_FIG], c_model = -1, c_config = -1, c_status = -1;
    char line[8192], *f[64];
    if (!fgets(line, sizeof line, fp)) {
        fprintf(stderr, "bench_zoo: %s is empty\n", path);
        fclose(fp);
        return 1;
    }
    int n = bench_split_tabs(line, f, 64);
    for (int k = 0; k < N_FIG; k++) col[k] = -1;
    for (int i = 0; i < n; i++) {
        if (!strcmp(f[i], "model")) c_model = i;
        if (!strcmp(f[i], "config")) c_config = i;
        if (!strcmp(f[i], "status")) c_status = i;
        for (int k = 0; k < N_FIG; k++)
            if (col_name[k] && !strcmp(f[i], col_name[k])) col[k] = i;
    }
    for (int k = 0; k < N_FIG; k++)
        if ((col_name[k] && col[k] < 0) || c_model < 0 || c_config < 0) {
            fprintf(stderr, "bench_zoo: %s has no column '%s'\n", path,
                    c_model < 0 ? "model" : c_config < 0 ? "config" : col_name[k]);
            fclose(fp);
            return 1;
        }
    while (fgets(line, sizeof line, fp)) {
        n = bench_split_tabs(line, f, 64);
        if (n <= c_model || n <= c_config) continue;
        vela_row *p = realloc(vela, sizeof *vela * (n_vela + 1));
        if (!p) break;
        vela = p;
        vela_row *v = &vela[n_vela++];
        memset(v, 0, sizeof *v);
        v->model = xstrdup(f[c_model]);
        v->config = xstrdup(f[c_config]);
        int ok = c_status < 0 || (c_status < n && !strcmp(f[c_status], "ok"));
        for (int k = 0; k < N_FIG; k++) {
            char *end;
            if (!ok || col[k] < 0 || col[k] >= n || !f[col[k]][0]) continue;
            double x = strtod(f[col[k]], &end);
            if (end == f[col[k]]) continue;
            v->fig[k] = k == F_SRAM || k == F_SRAM_NS || k == F_FLASH || k == F_CONST ? x / 1024.0 : x;
            v->has[k] = 1;
        }
    }
    fclose(fp);
    return 0;
}

static const vela_row *find_vela(const char *model, const char *config)
{
    for (size_t i = 0; i < n_vela; i++)
        if (!strcmp(vela[i].model, model) && !strcmp(vela[i].config, config)) return &vela[i];
    return NULL;
}

/* Vela's side from its output file SHARED/models/zoo/vela51/CONFIG/NAME_vela.tflite
 * when there is one: its command streams (ethos-u ops, and their bytes
 * added to its flash figure for F_FLASH_CS) and its NPU cycles on this
 * build's cycle model (bench_vela_run), marked priced, in place of
 * figures.tsv's. A file that does not run is named on stderr and leaves
 * the cycles out. */
static void vela_file(const char *shared, const char *config, row *r)
{
    int streams = 0;
    uint64_t cycles = 0, cs_bytes = 0;
    char err[300];
    int rc = bench_vela_run(shared, config, r->model, 1, &streams, &cs_bytes, &cycles, err, sizeof err);
    if (rc < 0) return;
    if (rc) {
        fprintf(stderr, "bench_zoo: %s: Vela's file on the virtual NPU: %s\n", r->model, err);
        if (!streams) return;
    }
    r->vela[F_STREAMS] = streams;
    r->has_vela[F_STREAMS] = 1;
    if (r->has_vela[F_FLASH]) {
        r->vela[F_FLASH_CS] = r->vela[F_FLASH] + (double)cs_bytes / 1024.0;
        r->has_vela[F_FLASH_CS] = 1;
    }
    if (!rc) {   /* in place of figures.tsv's, priced on an earlier cycle model */
        r->vela[F_CYCLES] = (double)cycles;
        r->has_vela[F_CYCLES] = 1;
        r->priced = 1;
    }
}

/* The .tflite files of dir (not Vela's *_vela.tflite), sorted, appended to
 * paths, with their names (file names without .tflite) in names. */
static int list_models(const char *dir, const char *filter, char **paths, char **names, size_t *n)
{
    size_t first = *n;
    if (bench_list_models("bench_zoo", dir, filter, paths, n)) return 1;
    for (size_t i = first; i < *n; i++) {
        const char *b = strrchr(paths[i], '/') + 1;
        names[i] = xstrdup(b);
        names[i][strlen(names[i]) - 7] = 0;
    }
    return 0;
}

static void *read_all(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    void *data = n > 0 ? malloc((size_t)n) : NULL;
    if (data && fread(data, 1, (size_t)n, fp) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(fp);
    *size = data ? (size_t)n : 0;
    return data;
}

/* Compiles one model RUNS times for npu; fills r's npuc side. */
static void bench_model(const char *name, const void *data, size_t size, const char *npu, row *r)
{
    npuc_compile_options co;
    memset(&co, 0, sizeof co);
    co.target.npu = npu;
    co.name = name;
    double best = 0;
    npuc_compiled_totals t;
    for (int run = 0; run < RUNS; run++) {
        npuc_compiled *c = NULL;
        double t0 = cpu_now();
        int rc = npuc_compile_memory(data, size, &co, &c);
        double dt = cpu_now() - t0;
        if (rc || npuc_compiled_get_totals(c, &t)) {
            snprintf(r->error, sizeof r->error, "%s", npuc_last_error());
            npuc_compiled_free(&c);
            return;
        }
        if (run == 0 || dt < best) best = dt;
        if (run < RUNS - 1) npuc_compiled_free(&c);
        else {
            /* on-chip SRAM as Vela counts it: the fast pool, plus the arena when
             * it sits in SRAM (U55 Shared_Sram: the arena alone) */
            uint64_t sram = t.fast_bytes + (!strcmp(t.arena_memory, "Sram") ? t.arena_bytes : 0);
            r->npuc[F_CYCLES] = (double)t.npu_cycles;
            r->npuc[F_SRAM] = (double)sram / 1024.0;
            /* the state sits in the arena: on a U65 the arena is DRAM */
            r->npuc[F_SRAM_NS] = (double)(sram - (!strcmp(t.arena_memory, "Sram") ? t.state_bytes : 0)) / 1024.0;
            r->npuc[F_FLASH] = (double)t.flash_bytes / 1024.0;
            r->npuc[F_CONST] = (double)(t.flash_bytes - t.command_stream_bytes) / 1024.0;
            r->npuc[F_FLASH_CS] = r->npuc[F_FLASH];
            r->npuc[F_NPU_OPS] = t.npu_ops;
            r->npuc[F_CPU_OPS] = t.cpu_ops;
            r->npuc[F_STREAMS] = t.command_streams;
            npuc_compiled_free(&c);
        }
    }
    r->npuc[F_COMPILE] = best * 1e3;
    r->ok = 1;
}

static int ratio(const row *r, int k, double *out)
{
    if (!r->ok || !r->has_vela[k] || r->vela[k] <= 0) return 0;
    *out = r->npuc[k] / r->vela[k];
    return 1;
}

static void print_fig(const row *r, int k, const char *fmt_n, const char *fmt_v)
{
    char v[32] = "-", x[16] = "-";
    double q;
    if (r->has_vela[k]) snprintf(v, sizeof v, fmt_v, r->vela[k]);
    if (r->has_vela[k] && k == F_CYCLES && r->priced) strcat(v, "*");
    if (ratio(r, k, &q)) snprintf(x, sizeof x, "%.2f", q);
    printf(fmt_n, r->npuc[k]);
    printf(" %10s %5s |", v, x);
}

/* The ratio column of figure k ("-" without one). */
static void print_ratio(const row *r, int k)
{
    char x[16] = "-";
    double q;
    if (ratio(r, k, &q)) snprintf(x, sizeof x, "%.2f", q);
    printf(" %5s |", x);
}

/* A figure counted as Vela counts it, beside the column it refines: the
 * value and its ratio to the same Vela figure. */
static void print_alt(const row *r, int k)
{
    printf(" %9.2f", r->npuc[k]);
    print_ratio(r, k);
}

/* Per config: the median ratio of each figure and its three worst models,
 * over the models with an op on npuc's NPU (without one, 0 cycles and 0
 * flash are no fair ratio). */
static void print_summary(const char *config, const row *rows, size_t n)
{
    printf("\n%s: ratios npuc / Vela (below 1: npuc needs less)\n", config);
    double *q = malloc(sizeof *q * (n ? n : 1));
    size_t *idx = malloc(sizeof *idx * (n ? n : 1));
    if (!q || !idx) {
        free(q);
        free(idx);
        return;
    }
    for (int k = 0; k < N_RATIO; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (rows[i].npuc[F_NPU_OPS] > 0 && ratio(&rows[i], k, &q[m])) idx[m++] = i;
        printf("  %-8s", fig_name[k]);
        if (!m) {
            printf(" no model with both figures\n");
            continue;
        }
        /* worst first: a selection sort of (ratio, model) by ratio, descending */
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m; j++)
                if (q[j] > q[i]) {
                    double tq = q[i];
                    q[i] = q[j];
                    q[j] = tq;
                    size_t ti = idx[i];
                    idx[i] = idx[j];
                    idx[j] = ti;
                }
        double *s = malloc(sizeof *s * m);
        if (!s) break;
        memcpy(s, q, sizeof *s * m);
        qsort(s, m, sizeof *s, bench_cmp_double);
        double med = m % 2 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
        free(s);
        printf(" median %6.2f over %2zu models", med, m);
        if (k == F_CYCLES) {
            size_t priced = 0;
            for (size_t i = 0; i < m; i++) priced += (size_t)rows[idx[i]].priced;
            if (priced) printf(" (%zu with Vela's cycles priced here, *)", priced);
        }
        printf("; worst:");
        for (size_t i = 0; i < m && i < 3; i++)
            printf(" %s %.2f%s%s", rows[idx[i]].model, q[i], k == F_CYCLES && rows[idx[i]].priced ? "*" : "",
                   i + 1 < m && i < 2 ? "," : "");
        printf("\n");
    }
    /* op counts: totals, and the models with the most CPU ops beyond Vela's */
    double tn[2] = {0, 0}, tv[2] = {0, 0};
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->ok || !r->has_vela[F_NPU_OPS] || !r->has_vela[F_CPU_OPS]) continue;
        tn[0] += r->npuc[F_NPU_OPS];
        tn[1] += r->npuc[F_CPU_OPS];
        tv[0] += r->vela[F_NPU_OPS];
        tv[1] += r->vela[F_CPU_OPS];
        q[m] = r->npuc[F_CPU_OPS] - r->vela[F_CPU_OPS];
        idx[m++] = i;
    }
    printf("  %-8s npuc %.0f NPU / %.0f CPU, Vela %.0f NPU / %.0f CPU over %zu models", "ops", tn[0], tn[1], tv[0],
           tv[1], m);
    {
        double sn = 0, sv = 0;
        size_t ms = 0, fewer = 0, more = 0;
        for (size_t i = 0; i < n; i++) {
            const row *r = &rows[i];
            if (!r->ok || !r->has_vela[F_STREAMS]) continue;
            sn += r->npuc[F_STREAMS];
            sv += r->vela[F_STREAMS];
            fewer += r->npuc[F_STREAMS] < r->vela[F_STREAMS];
            more += r->npuc[F_STREAMS] > r->vela[F_STREAMS];
            ms++;
        }
        if (ms)
            printf("; command streams npuc %.0f, Vela %.0f over %zu models (npuc fewer on %zu, more on %zu)", sn, sv,
                   ms, fewer, more);
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = i + 1; j < m; j++)
            if (q[j] > q[i]) {
                double tq = q[i];
                q[i] = q[j];
                q[j] = tq;
                size_t ti = idx[i];
                idx[i] = idx[j];
                idx[j] = ti;
            }
    if (m && q[0] > 0) {
        printf("; most CPU ops beyond Vela's:");
        for (size_t i = 0; i < m && i < 3 && q[i] > 0; i++) printf(" %s +%.0f", rows[idx[i]].model, q[i]);
    }
    printf("\n");
    free(q);
    free(idx);
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_zoo [--models NAME[,NAME...]] [--configs u55-128,u55-256,u65-256] [--runs N] [SHARED_DIR]\n"
                    "  NAME may be a glob; SHARED_DIR defaults to $NPUC_SHARED, else ../shared\n");
    return 1;
}

int main(int argc, char **argv)
{
    const char *shared = NULL, *filter = NULL, *configs = "u55-128,u55-256,u65-256";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--models") && i + 1 < argc) filter = argv[++i];
        else if (!strcmp(argv[i], "--configs") && i + 1 < argc) configs = argv[++i];
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            RUNS = atoi(argv[++i]);
            if (RUNS < 1 || RUNS > 100) return usage();
        }
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(), 0;
        else if (argv[i][0] == '-' || shared) return usage();
        else shared = argv[i];
    }
    if (!shared) shared = getenv("NPUC_SHARED");
    if (!shared || !shared[0]) shared = "../shared";
    if (!is_dir(shared)) {
        fprintf(stderr, "bench_zoo: shared folder %s not found (give it as an argument or in NPUC_SHARED)\n",
                shared);
        return 1;
    }

    char path[4096];
    snprintf(path, sizeof path, "%s/models/zoo/vela51/figures.tsv", shared);
    if (load_vela(path)) return 1;

    static char *paths[BENCH_MAX_MODELS], *names[BENCH_MAX_MODELS];
    size_t n = 0;
    static const char *const dirs[] = {"models/tflm", "models/zoo"};
    for (size_t d = 0; d < 2; d++) {
        snprintf(path, sizeof path, "%s/%s", shared, dirs[d]);
        if (list_models(path, filter, paths, names, &n)) return 1;
    }
    if (!n) {
        fprintf(stderr, "bench_zoo: no model matches '%s'\n", filter ? filter : "");
        return 1;
    }

    char cfg[MAX_CONFIGS][32];
    size_t n_cfg = 0;
    {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", configs);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n_cfg < MAX_CONFIGS;
             t = strtok_r(NULL, ",", &save)) {
            npuc_target_spec ts = {0};
            char npu[48];
            snprintf(npu, sizeof npu, "ethos-%s", t);
            ts.npu = npu;
            if (npuc_target_check(&ts)) {
                fprintf(stderr, "bench_zoo: config '%s': %s\n", t, npuc_last_error());
                return 1;
            }
            snprintf(cfg[n_cfg++], sizeof cfg[0], "%s", t);
        }
    }

    void **data = calloc(n, sizeof *data);
    size_t *size = calloc(n, sizeof *size);
    row *rows = calloc(n, sizeof *rows);
    if (!data || !size || !rows) {
        fprintf(stderr, "bench_zoo: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(data[i] = read_all(paths[i], &size[i]))) {
            fprintf(stderr, "bench_zoo: cannot read %s\n", paths[i]);
            return 1;
        }

    printf("npuc vs Vela 5.1 (%s): in-process compile (npuc_compile_memory, CPU time, best of %d), default system "
           "config\n",
           "models/zoo/vela51/figures.tsv", RUNS);
    printf("cycles: npuc's cycle model on both sides (Vela: its stream on npuc's model); SRAM KiB: U55 the arena,\n"
           "U65 the fast pool (+ the arena where it is SRAM); flash KiB: read-only data (Vela U65: its DRAM peak);\n"
           "-st / -cs KiB: SRAM without the state kept across invocations (variable tensors), flash without the\n"
           "command streams, as Vela counts them; +cs x: npuc's flash over Vela's with its command streams added\n"
           "(from its file: both sides count them); compile ms; x = npuc / Vela\n"
           "* Vela's stream priced by this run on npuc's cycle model, as npuc's (Vela's files: u55-128 and\n"
           "  u65-256 only); unmarked: figures.tsv's cycles_on_npuc_sim, priced on the cycle model before\n"
           "  concurrent operations shared the AXI ports (docs/sim.md)\n");
    for (size_t c = 0; c < n_cfg; c++) {
        char npu[48];
        snprintf(npu, sizeof npu, "ethos-%.40s", cfg[c]);   /* a config name is short (u55-128) */
        printf("\n%-44s | %10s %10s %5s | %9s %10s %5s | %9s %5s | %9s %10s %5s | %9s %5s | %5s | %9s %10s %5s | "
               "%9s | %9s | %7s\n",
               npu, "cycles", "Vela", "x", "SRAM KiB", "Vela", "x", "-st KiB", "x", "flash KiB", "Vela", "x",
               "-cs KiB", "x", "+cs x", "compile", "Vela", "x", "NPU ops", "CPU ops", "streams");
        for (size_t i = 0; i < n; i++) {
            row *r = &rows[i];
            memset(r, 0, sizeof *r);
            r->model = names[i];
            const vela_row *v = find_vela(names[i], cfg[c]);
            for (int k = 0; v && k < N_FIG; k++) {
                r->vela[k] = v->fig[k];
                r->has_vela[k] = v->has[k];
            }
            vela_file(shared, cfg[c], r);
            bench_model(names[i], data[i], size[i], npu, r);
            printf("%-44s |", names[i]);
            if (!r->ok) {
                printf(" npuc failed: %s\n", r->error);
                continue;
            }
            print_fig(r, F_CYCLES, " %10.0f", "%.0f");
            print_fig(r, F_SRAM, " %9.2f", "%.2f");
            print_alt(r, F_SRAM_NS);
            print_fig(r, F_FLASH, " %9.2f", "%.2f");
            print_alt(r, F_CONST);
            print_ratio(r, F_FLASH_CS);
            print_fig(r, F_COMPILE, " %9.2f", "%.2f");
            char ops[3][24];
            for (int k = 0; k < 3; k++) {
                int f = F_NPU_OPS + k;
                if (r->has_vela[f]) snprintf(ops[k], sizeof ops[k], "%.0f/%.0f", r->npuc[f], r->vela[f]);
                else snprintf(ops[k], sizeof ops[k], "%.0f/-", r->npuc[f]);
            }
            printf(" %9s | %9s | %7s\n", ops[0], ops[1], ops[2]);
            fflush(stdout);
        }
        print_summary(npu, rows, n);
    }

    for (size_t i = 0; i < n; i++) {
        free(data[i]);
        free(paths[i]);
        free(names[i]);
    }
    free(data);
    free(size);
    free(rows);
    for (size_t i = 0; i < n_vela; i++) {
        free(vela[i].model);
        free(vela[i].config);
    }
    free(vela);
    return 0;
}
