/* The schedule search on every shared model (docs/bench.md):
 *
 *   bench_sched equal  [--models G] [--configs C] [SHARED]
 *       "at equal memory": each model compiled with --arena-cache-size set
 *       to Vela 5.1's SRAM figure for it (figures.tsv sram_bytes), npuc's
 *       NPU cycles beside Vela's (its output file run here on the virtual
 *       NPU, marked '*', as bench_zoo does; where there is none, u55-256,
 *       figures.tsv's cycles_on_npuc_sim, priced on the cycle model before
 *       concurrent operations shared the AXI ports), the ratio and its
 *       median per config.
 *   bench_sched pareto [--models G] [--configs C] [SHARED]
 *       "no default dominated": each model compiled with the defaults and
 *       with every combination of --optimise, --cascade and
 *       --prefetch-headroom; prints each combination that gives both fewer
 *       NPU cycles and less SRAM than the default, and the default's own
 *       SRAM as --arena-cache-size when it gives fewer cycles (or as many
 *       in less SRAM). Exit status 1 when one does (a structure check, not
 *       a time assertion).
 *   bench_sched floor  [--models G] [--configs C] [SHARED]
 *       "the least SRAM": each model compiled with --arena-cache-size 16,
 *       which no model fits: the error names the least SRAM a schedule of
 *       npuc's takes (its feature maps, weights streamed from flash),
 *       which is then compiled as the limit to check that it fits (and,
 *       where Vela's SRAM figure is below it, that figure too: one that
 *       fits says the error's figure was not the least); printed
 *       beside the default's SRAM and Vela's, with the ratios, their
 *       medians per config and how many models could reach 0.75 of Vela's
 *       at all. On a fast pool apart from the arena (U65 Dedicated_Sram)
 *       the limit is the pool's size and anything fits: the floor is 0.
 *
 * SRAM is counted as Vela counts it (bench_zoo): the fast pool plus the
 * arena when its pool is SRAM. G: comma-separated globs of model names;
 * C: default u55-128,u55-256,u65-256; SHARED: the shared reference folder
 * (else $NPUC_SHARED, else ../shared). Exit status 1 also on a missing
 * folder or figures.tsv. */
#include "npuc/npuc.h"
#include "bench_models.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct vela_fig {
    char model[128], config[16];
    double sram, cycles;        /* < 0: missing */
} vela_fig;

static vela_fig *vela;
static size_t n_vela;

static int load_vela(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "bench_sched: cannot read Vela's figures %s\n", path);
        return 1;
    }
    char line[8192];
    int c_model = -1, c_config = -1, c_status = -1, c_sram = -1, c_cyc = -1;
    for (int row = 0; fgets(line, sizeof line, fp); row++) {
        char *f[64];
        int n = bench_split_tabs(line, f, 64);
        if (row == 0) {
            for (int i = 0; i < n; i++) {
                if (!strcmp(f[i], "model")) c_model = i;
                if (!strcmp(f[i], "config")) c_config = i;
                if (!strcmp(f[i], "status")) c_status = i;
                if (!strcmp(f[i], "sram_bytes")) c_sram = i;
                if (!strcmp(f[i], "cycles_on_npuc_sim")) c_cyc = i;
            }
            if (c_model < 0 || c_config < 0 || c_sram < 0 || c_cyc < 0) {
                fprintf(stderr, "bench_sched: %s lacks model, config, sram_bytes or cycles_on_npuc_sim\n", path);
                fclose(fp);
                return 1;
            }
            continue;
        }
        if (n <= c_model || n <= c_config) continue;
        vela_fig *v = realloc(vela, sizeof *vela * (n_vela + 1));
        if (!v) break;
        vela = v;
        v = &vela[n_vela++];
        snprintf(v->model, sizeof v->model, "%s", f[c_model]);
        snprintf(v->config, sizeof v->config, "%s", f[c_config]);
        int ok = c_status < 0 || (c_status < n && !strcmp(f[c_status], "ok"));
        v->sram = ok && c_sram < n && f[c_sram][0] ? strtod(f[c_sram], NULL) : -1;
        v->cycles = ok && c_cyc < n && f[c_cyc][0] ? strtod(f[c_cyc], NULL) : -1;
    }
    fclose(fp);
    return 0;
}

static const vela_fig *find_vela(const char *model, const char *config)
{
    for (size_t i = 0; i < n_vela; i++)
        if (!strcmp(vela[i].model, model) && !strcmp(vela[i].config, config)) return &vela[i];
    return NULL;
}

/* The model's name: its file name without .tflite. */
static void stem_of(const char *path, char *out, size_t size)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, size, "%.*s", (int)(strlen(b) - 7), b);
}

/* One compile: cycles and SRAM as Vela counts it. 0 ok, else the error in err. */
static int compile_one(const char *path, const npuc_compile_options *co, uint64_t *cycles, uint64_t *sram,
                       char *err, size_t err_size)
{
    npuc_compiled *c = NULL;
    npuc_compiled_totals t;
    if (npuc_compile_file(path, co, &c) || npuc_compiled_get_totals(c, &t)) {
        snprintf(err, err_size, "%s", npuc_last_error());
        npuc_compiled_free(&c);
        return 1;
    }
    *cycles = t.npu_cycles;
    *sram = t.fast_bytes + (!strcmp(t.arena_memory, "Sram") ? t.arena_bytes : 0);
    npuc_compiled_free(&c);
    return 0;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void equal_memory(const char *shared, char **paths, size_t n, const char *config)
{
    char npu[32];
    snprintf(npu, sizeof npu, "ethos-%s", config);
    printf("\n%s: --arena-cache-size = Vela 5.1's SRAM; * Vela's stream priced by this run on npuc's cycle model;\n"
           "unmarked: figures.tsv's, priced on the cycle model before the ports' sharing\n", npu);
    printf("%-46s %10s %12s %12s %12s %7s\n", "model", "SRAM B", "npuc cycles", "npuc SRAM", "Vela cycles", "x");
    double *ratio = malloc(sizeof *ratio * (n + 1));
    size_t nr = 0, worse = 0, priced = 0;
    for (size_t i = 0; i < n; i++) {
        char name[256], err[300];
        stem_of(paths[i], name, sizeof name);
        const vela_fig *v = find_vela(name, config);
        if (!v || v->sram <= 0) continue;
        npuc_compile_options co;
        memset(&co, 0, sizeof co);
        co.target.npu = npu;
        co.arena_cache_size = (uint64_t)v->sram;
        uint64_t cyc, sram;
        if (compile_one(paths[i], &co, &cyc, &sram, err, sizeof err)) {
            printf("%-46s %10.0f  npuc failed: %.200s\n", name, v->sram, err);
            continue;
        }
        double vc = v->cycles;
        int mark = 0, streams;
        uint64_t priced_cycles;
        if (cyc > 0) {
            /* Vela's file, where there is one, priced on this build's
             * cycle model (figures.tsv's were priced on an earlier one) */
            int vrc = bench_vela_run(shared, config, name, 1, &streams, NULL, &priced_cycles, err, sizeof err);
            if (vrc > 0) fprintf(stderr, "bench_sched: %s: Vela's file on the virtual NPU: %s\n", name, err);
            if (!vrc) {
                vc = (double)priced_cycles;
                mark = 1;
            }
        }
        printf("%-46s %10.0f %12llu %12llu ", name, v->sram, (unsigned long long)cyc, (unsigned long long)sram);
        if (vc > 0 && cyc > 0) {
            double r = (double)cyc / vc;
            char vs[32];
            snprintf(vs, sizeof vs, "%.0f%s", vc, mark ? "*" : "");
            printf("%12s %7.3f\n", vs, r);
            if (ratio) ratio[nr++] = r;
            worse += r > 1.0;
            priced += (size_t)mark;
        } else {
            printf("%12s %7s\n", "-", "-");
        }
    }
    if (ratio && nr)
        printf("%s at equal memory: median cycles npuc/Vela %.3f over %zu models (%zu with Vela's cycles priced here, "
               "*), %zu above 1\n",
               npu, median(ratio, nr), nr, priced, worse);
    free(ratio);
}

/* The least SRAM a model compiles into (bench_sched floor). */
static void floor_sram(char **paths, size_t n, const char *config)
{
    char npu[32];
    snprintf(npu, sizeof npu, "ethos-%s", config);
    printf("\n%s: the least SRAM npuc compiles each model into (any cycles), its default's and Vela 5.1's\n", npu);
    printf("%-46s %10s %10s %10s %8s %8s %s\n", "model", "least B", "default B", "Vela B", "least x", "dflt x",
           "check");
    double *lx = malloc(sizeof *lx * (n + 1)), *dx = malloc(sizeof *dx * (n + 1));
    size_t nl = 0, nd = 0, reach = 0;
    for (size_t i = 0; i < n && lx && dx; i++) {
        char name[256], err[300];
        stem_of(paths[i], name, sizeof name);
        const vela_fig *v = find_vela(name, config);
        npuc_compile_options co;
        memset(&co, 0, sizeof co);
        co.target.npu = npu;
        uint64_t cyc, dflt, least;
        if (compile_one(paths[i], &co, &cyc, &dflt, err, sizeof err)) {
            printf("%-46s npuc failed: %.200s\n", name, err);
            continue;
        }
        co.arena_cache_size = 16;
        const char *check = "fits";
        if (!compile_one(paths[i], &co, &cyc, &least, err, sizeof err)) {
            check = "fits 16 B";
        } else {
            const char *at = strstr(err, "needs at least ");
            unsigned long long need = 0;
            if (!at || sscanf(at, "needs at least %llu bytes", &need) != 1) {
                printf("%-46s npuc failed: %.200s\n", name, err);
                continue;
            }
            least = need;
            co.arena_cache_size = least;
            uint64_t s2;
            if (compile_one(paths[i], &co, &cyc, &s2, err, sizeof err) || s2 > least) check = "DOES NOT FIT";
            /* the figure is the least the last placement found for the
             * search's least point (docs/compiler.md, The last placement);
             * Vela's own figure, where it is below, is tried too: a fit
             * there ("fits Vela's") says the error's figure is not the
             * least */
            if (v && v->sram > 0 && (double)least > v->sram) {
                co.arena_cache_size = (uint64_t)v->sram;
                if (!compile_one(paths[i], &co, &cyc, &s2, err, sizeof err) && (double)s2 <= v->sram) {
                    least = s2;
                    check = "fits Vela's";
                }
            }
        }
        printf("%-46s %10llu %10llu ", name, (unsigned long long)least, (unsigned long long)dflt);
        if (v && v->sram > 0) {
            double a = (double)least / v->sram, b = (double)dflt / v->sram;
            printf("%10.0f %8.3f %8.3f %s\n", v->sram, a, b, check);
            lx[nl++] = a;
            dx[nd++] = b;
            reach += a <= 0.75;
        } else {
            printf("%10s %8s %8s %s\n", "-", "-", "-", check);
        }
    }
    if (nl)
        printf("%s: least SRAM / Vela's median %.3f over %zu models, %zu of them at 0.75 or below; the default's "
               "median %.3f\n",
               npu, median(lx, nl), nl, reach, median(dx, nd));
    free(lx);
    free(dx);
}

/* The combinations the default is checked against. */
static const struct { npuc_optimise opt; npuc_cascade cascade; int32_t headroom; const char *name; } COMBOS[] = {
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_AUTO, NPUC_HEADROOM_NONE, "performance auto 0"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_AUTO, 50, "performance auto 50"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_AUTO, 100, "performance auto 100"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_OFF, 0, "performance off 20"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_OFF, NPUC_HEADROOM_NONE, "performance off 0"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_OFF, 100, "performance off 100"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_ALL, 0, "performance all 20"},
    {NPUC_OPTIMISE_PERFORMANCE, NPUC_CASCADE_ALL, NPUC_HEADROOM_NONE, "performance all 0"},
    {NPUC_OPTIMISE_SIZE, NPUC_CASCADE_AUTO, 0, "size auto"},
    {NPUC_OPTIMISE_SIZE, NPUC_CASCADE_OFF, 0, "size off"},
    {NPUC_OPTIMISE_SIZE, NPUC_CASCADE_ALL, 0, "size all"},
};

static size_t pareto(char **paths, size_t n, const char *config)
{
    char npu[32];
    snprintf(npu, sizeof npu, "ethos-%s", config);
    size_t bad = 0, checked = 0;
    for (size_t i = 0; i < n; i++) {
        char name[256], err[300];
        stem_of(paths[i], name, sizeof name);
        npuc_compile_options co;
        memset(&co, 0, sizeof co);
        co.target.npu = npu;
        uint64_t c0, s0;
        if (compile_one(paths[i], &co, &c0, &s0, err, sizeof err)) continue;
        checked++;
        for (size_t k = 0; k < sizeof COMBOS / sizeof COMBOS[0]; k++) {
            co.optimise = COMBOS[k].opt;
            co.cascade = COMBOS[k].cascade;
            co.prefetch_headroom = COMBOS[k].headroom;
            uint64_t c, s;
            if (compile_one(paths[i], &co, &c, &s, err, sizeof err)) {
                printf("%s %s %s: npuc failed: %.200s\n", npu, name, COMBOS[k].name, err);
                continue;
            }
            if (c < c0 && s < s0) {
                printf("%s %s: --optimise/--cascade/--prefetch-headroom %s gives %llu cycles, %llu B SRAM; "
                       "the default %llu cycles, %llu B\n",
                       npu, name, COMBOS[k].name, (unsigned long long)c, (unsigned long long)s,
                       (unsigned long long)c0, (unsigned long long)s0);
                bad++;
            }
        }
        /* the default's own SRAM as the limit: a schedule there in less
         * SRAM and no more cycles, or in no more SRAM and fewer cycles by
         * more than the search's band (1 / 100: at the default's SRAM a
         * point within it is as good by the default's own rule), beats
         * the default too */
        if (s0) {
            memset(&co, 0, sizeof co);
            co.target.npu = npu;
            co.arena_cache_size = s0;
            uint64_t c, s;
            if (compile_one(paths[i], &co, &c, &s, err, sizeof err)) {
                printf("%s %s --arena-cache-size %llu: npuc failed: %.200s\n", npu, name, (unsigned long long)s0, err);
                bad++;
            } else if ((c <= c0 && s < s0) || (s <= s0 && c + c0 / 100u < c0)) {
                printf("%s %s: --arena-cache-size %llu gives %llu cycles, %llu B SRAM; the default %llu cycles, %llu B\n",
                       npu, name, (unsigned long long)s0, (unsigned long long)c, (unsigned long long)s,
                       (unsigned long long)c0, (unsigned long long)s0);
                bad++;
            }
        }
    }
    printf("%s: %zu models, %zu combinations (the own-SRAM limit among them) that beat the default on both cycles and SRAM\n",
           npu, checked, bad);
    return bad;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_sched equal|pareto|floor [--models NAME[,NAME...]] [--configs u55-128,...] [SHARED]\n");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "equal") && strcmp(argv[1], "pareto") && strcmp(argv[1], "floor")))
        return usage();
    setvbuf(stdout, NULL, _IOLBF, 0);   /* a line as each model is done */
    bool eq = !strcmp(argv[1], "equal"), fl = !strcmp(argv[1], "floor");
    const char *filter = NULL, *configs = "u55-128,u55-256,u65-256", *shared = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--models") && i + 1 < argc) filter = argv[++i];
        else if (!strcmp(argv[i], "--configs") && i + 1 < argc) configs = argv[++i];
        else if (argv[i][0] == '-' || shared) return usage();
        else shared = argv[i];
    }
    if (!shared) shared = getenv("NPUC_SHARED");
    if (!shared) shared = "../shared";
    char path[4096];
    snprintf(path, sizeof path, "%s/models/zoo/vela51/figures.tsv", shared);
    if (load_vela(path)) return 1;
    char *paths[BENCH_MAX_MODELS];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/models/tflm", shared);
    if (bench_list_models("bench_sched", path, filter, paths, &n)) return 1;
    snprintf(path, sizeof path, "%s/models/zoo", shared);
    if (bench_list_models("bench_sched", path, filter, paths, &n)) return 1;
    if (!n) {
        fprintf(stderr, "bench_sched: no model matches '%s'\n", filter ? filter : "*");
        return 1;
    }
    size_t bad = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", configs);
    for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        if (eq) equal_memory(shared, paths, n, c);
        else if (fl) floor_sram(paths, n, c);
        else bad += pareto(paths, n, c);
    }
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(vela);
    return bad ? 1 : 0;
}
