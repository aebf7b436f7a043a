/* Weight-encoder speed and size on person_detect_vela (Ethos-U55-256): every
 * CONV/DEPTHWISE weight stream is decoded (sim_mlw_decode), then the same
 * values are encoded again with eu_mlw_encode, and the op's weights
 * (recovered through the traversal map) with eu_encode_weights. Prints the
 * time for the whole model (best and median of many runs, also with every
 * stream as one section) and our stream sizes against Vela's
 * WEIGHT_LENGTHs; then the same totals over every Vela-compiled model of the
 * shared folder (models/vela/..., models/zoo/vela51/...). Asserts nothing.
 *   usage: bench_weights [SHARED_DIR] [x]   (default ../shared, or $NPUC_SHARED;
 *          x: a per-op table of person_detect) */
#include "../src/compiler/ethosu/eu_weights.h"
#include "../src/tflite/tflite.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct wop {
    sim_wgeom g;
    int16_t *stream;          /* Vela's decoded stream */
    size_t n;
    int16_t *w;               /* W[o][ky][kx][i] recovered from it */
    size_t vela_len;
    size_t vela_sections;     /* sections of Vela's stream */
    uint64_t base;            /* where the stream is (to count it once) */
    unsigned region;
} wop;

static size_t tensor_bytes(const tfl_tensor *t)
{
    size_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= (size_t)(t->shape[i] > 0 ? t->shape[i] : 0);
    return n * (tfl_type_size(t->type) ? tfl_type_size(t->type) : 1);
}

/* Collects the weighted ops of the model's ethos-u ops' command streams
 * (once: each stream once per command stream). */
static int load_ops(const char *path, wop *ops, int max_ops, bool once)
{
    tfl_model *m = NULL;
    npuc_err err;
    if (tfl_read_file(path, &m, &err)) {
        printf("%s: %s\n", path, err.msg);
        return -1;
    }
    int n_ops = 0;
    const tfl_subgraph *sg = &m->subgraphs[0];
    for (int oi = 0; oi < sg->n_operators; oi++) {
        const tfl_operator *op = &sg->operators[oi];
        const tfl_opcode *oc = &m->opcodes[op->opcode_index];
        if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0 || op->n_inputs < 4)
            continue;
        const tfl_buffer *bcs = &m->buffers[sg->tensors[op->inputs[0]].buffer];
        const tfl_buffer *bfl = &m->buffers[sg->tensors[op->inputs[1]].buffer];
        sim_cop1 cop;
        eu_variant v;
        sim_cmd *cmds = NULL;
        size_t nc = 0;
        if (sim_cop1_parse(bcs->data, bcs->size, &cop, &err) ||
            sim_variant_from_config(cop.config, &v, &err) ||
            sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &nc, &err)) {
            printf("%s: %s\n", path, err.msg);
            continue;
        }
        uint8_t *reg[3] = {bfl->data, NULL, NULL};
        size_t rsz[3] = {bfl->size, 0, 0};
        for (int k = 1; k <= 2; k++) {
            rsz[k] = tensor_bytes(&sg->tensors[op->inputs[k + 1]]);
            reg[k] = calloc(rsz[k] ? rsz[k] : 1, 1);
        }
        sim_state s;
        sim_state_reset(&s);
        const int first_op = n_ops;
        for (size_t i = 0; i < nc && n_ops < max_ops; i++) {
            const sim_cmd *c = &cmds[i];
            sim_state_apply(&s, c, v);
            const sim_dma *d = &s.dma;
            if (c->code == EU_OP_DMA_START && !d->dst_internal && !d->src_internal &&
                d->src_region < 3 && d->dst_region < 3 && d->src + d->len <= rsz[d->src_region] &&
                d->dst + d->len <= rsz[d->dst_region])
                memmove(reg[d->dst_region] + d->dst, reg[d->src_region] + d->src, d->len);
            if (c->code != EU_OP_CONV && c->code != EU_OP_DEPTHWISE) continue;
            if (s.weight_region > 2 || s.weight_base[0] + s.weight_length[0] > rsz[s.weight_region])
                continue;
            /* once: a stream that several ops (stripes) read counts once */
            bool seen = false;
            for (int j = first_op; once && j < n_ops && !seen; j++)
                seen = ops[j].region == s.weight_region && ops[j].base == s.weight_base[0] &&
                       ops[j].vela_len == s.weight_length[0];
            if (seen) continue;
            bool dw = c->code == EU_OP_DEPTHWISE;
            wop *o = &ops[n_ops];
            o->region = s.weight_region;
            o->base = s.weight_base[0];
            sim_mlw_info info;
            if (sim_wgeom_from_state(&s, v, dw, &o->g, &err) ||
                sim_mlw_decode(reg[s.weight_region] + s.weight_base[0], s.weight_length[0], 0,
                               &o->stream, &info, &err)) {
                printf("op at 0x%zx: %s\n", c->offset, err.msg);
                continue;
            }
            o->n = info.n_weights;
            o->vela_sections = info.n_sections;
            o->vela_len = s.weight_length[0];
            size_t nw = (size_t)o->g.ofm_depth * o->g.kh * o->g.kw * (dw ? 1 : o->g.ifm_depth);
            int64_t *map = malloc(o->n * sizeof *map);
            o->w = calloc(nw, sizeof *o->w);
            sim_weight_traverse(&o->g, map, o->n);
            for (size_t p = 0; p < o->n; p++)
                if (map[p] >= 0) o->w[map[p]] = o->stream[p];
            free(map);
            n_ops++;
        }
        for (int k = 1; k <= 2; k++) free(reg[k]);
        free(cmds);
    }
    tfl_model_free(m);
    return n_ops;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seconds for one pass over all ops (best, median of `reps`), and the
 * total output bytes. from_weights: eu_encode_weights instead of
 * eu_mlw_encode on the stream. */
static void time_model(const wop *ops, int n_ops, bool from_weights, unsigned max_sec, int reps,
                       double *best, double *median, size_t *bytes)
{
    double *t = malloc((size_t)reps * sizeof *t);
    npuc_err err;
    for (int r = 0; r < reps; r++) {
        size_t total = 0;
        double t0 = now();
        for (int i = 0; i < n_ops; i++) {
            uint8_t *s = NULL;
            size_t size = 0;
            int rc = from_weights ? eu_encode_weights(&ops[i].g, ops[i].w, &s, &size, &err)
                                  : eu_mlw_encode_ex(ops[i].stream, ops[i].n, max_sec, &s, &size,
                                                     NULL, &err);
            if (rc) printf("op %d: %s\n", i, err.msg);
            total += size;
            free(s);
        }
        t[r] = now() - t0;
        *bytes = total;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    *best = t[0];
    *median = t[reps / 2];
    free(t);
}

/* Totals of bench_dir. */
typedef struct dir_totals {
    size_t models, streams, values, vela, one, ours, multi, vela_multi;
    double t_one, t_ours;
} dir_totals;

/* Every .tflite under a folder (recursively): Vela's bytes, ours as one
 * section a stream and as chosen, the streams in more than one section, and
 * the encoding time (one run each). */
static void walk(const char *path, dir_totals *t)
{
    DIR *d = opendir(path);
    if (!d) return;
    static wop ops[1024];
    npuc_err err;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char file[2048];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 7, ".tflite")) {
            walk(file, t);
            continue;
        }
        int n_ops = load_ops(file, ops, 1024, true);
        if (n_ops <= 0) continue;
        t->models++;
        for (int i = 0; i < n_ops; i++) {
            uint8_t *s = NULL;
            size_t size = 0, size1 = 0;
            eu_mlw_stats st;
            memset(&st, 0, sizeof st);
            double t0 = now();
            eu_mlw_encode_ex(ops[i].stream, ops[i].n, 1, &s, &size1, NULL, &err);
            double t1 = now();
            free(s);
            eu_mlw_encode_ex(ops[i].stream, ops[i].n, 0, &s, &size, &st, &err);
            double t2 = now();
            free(s);
            t->t_one += t1 - t0;
            t->t_ours += t2 - t1;
            t->streams++;
            t->values += ops[i].n;
            t->vela += ops[i].vela_len;
            t->one += size1;
            t->ours += size;
            t->multi += st.sections > 1;
            t->vela_multi += ops[i].vela_sections > 1;
            free(ops[i].stream);
            free(ops[i].w);
        }
    }
    closedir(d);
}

static void bench_dir(const char *path)
{
    dir_totals t;
    memset(&t, 0, sizeof t);
    walk(path, &t);
    if (!t.streams) {
        printf("%s: no weight streams\n", path);
        return;
    }
    printf("%s: %zu models, %zu streams, %zu weights: Vela %zu bytes, one section %zu (%+.2f%%), "
           "ours %zu (%+.2f%%; %zu streams in more than one section, Vela %zu); %.1f ms, one "
           "section %.1f ms\n", path, t.models, t.streams, t.values, t.vela, t.one,
           100.0 * ((double)t.one - (double)t.vela) / (double)t.vela, t.ours,
           100.0 * ((double)t.ours - (double)t.vela) / (double)t.vela, t.multi, t.vela_multi,
           t.t_ours * 1e3,
           t.t_one * 1e3);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("NPUC_SHARED");
    char path[1024];
    snprintf(path, sizeof path, "%s/models/tflm/person_detect_vela.tflite", dir ? dir : "../shared");
    static wop ops[256];
    int n_ops = load_ops(path, ops, 256, false);
    if (n_ops <= 0) {
        printf("no weighted ops loaded from %s\n", path);
        return 0;
    }
    size_t n_w = 0, vela = 0;
    for (int i = 0; i < n_ops; i++) {
        n_w += ops[i].n;
        vela += ops[i].vela_len;
    }
    double best, med;
    size_t ours;
    time_model(ops, n_ops, false, 1, 300, &best, &med, &ours);
    printf("person_detect_vela: %d weight streams, %zu weights\n", n_ops, n_w);
    printf("  one section a stream:            best %.3f ms, median %.3f ms per model, %zu bytes\n",
           best * 1e3, med * 1e3, ours);
    time_model(ops, n_ops, false, 0, 300, &best, &med, &ours);
    printf("  eu_mlw_encode (stream order):    best %.3f ms, median %.3f ms per model "
           "(%.1f M weights/s)\n", best * 1e3, med * 1e3, (double)n_w / best * 1e-6);
    printf("  sizes: ours %zu bytes, Vela %zu bytes (%+.2f%%)\n", ours, vela,
           100.0 * ((double)ours - (double)vela) / (double)vela);
    time_model(ops, n_ops, true, 0, 300, &best, &med, &ours);
    printf("  eu_encode_weights (+ traversal): best %.3f ms, median %.3f ms per model, %zu bytes\n",
           best * 1e3, med * 1e3, ours);
    if (argc > 2) {   /* per-op listing */
        npuc_err err;
        for (int i = 0; i < n_ops; i++) {
            uint8_t *s = NULL;
            size_t size = 0;
            eu_mlw_encode(ops[i].stream, ops[i].n, &s, &size, &err);
            printf("  op %2d %s O=%3u I=%3u %ux%u n=%6zu vela %6zu ours %6zu %+5zd\n", i,
                   ops[i].g.depthwise ? "DW" : "CV", ops[i].g.ofm_depth, ops[i].g.ifm_depth,
                   ops[i].g.kh, ops[i].g.kw, ops[i].n, ops[i].vela_len, size,
                   (ptrdiff_t)size - (ptrdiff_t)ops[i].vela_len);
            free(s);
        }
    }
    for (int i = 0; i < n_ops; i++) {
        free(ops[i].stream);
        free(ops[i].w);
    }
    static const char *const dirs[] = {"models/vela/u55-128", "models/vela/u65-256",
                                       "models/zoo/vela51/u55-128", "models/zoo/vela51/u65-256"};
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        char dpath[1024];
        snprintf(dpath, sizeof dpath, "%s/%s", dir ? dir : "../shared", dirs[k]);
        bench_dir(dpath);
    }
    return 0;
}
