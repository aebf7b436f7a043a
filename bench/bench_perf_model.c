/* Cycle model versus Vela: decodes every ethos-u op of the shared Vela
 * models, builds op records from the register state, runs the cycle model
 * and prints ours / Vela per model (Vela's total_cycles and npu_cycles from
 * summary.csv) plus the distribution of the ratios. Prints figures; asserts
 * nothing.
 *
 *   bench_perf_model [shared-dir] [-v]     (default: $NPUC_SHARED or ../shared)
 *   bench_perf_model -m model.tflite [system-config memory-mode]
 *
 * -v also prints one line per op of person_detect_vela (U55-256); -m prints
 * one line per op of any Vela-compiled model (default system for its
 * variant). */

#include "../src/sim/sim.h"
#include "../src/target/target.h"
#include "../src/tflite/tflite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ops_vec { sim_op_info *v; size_t n, cap; } ops_vec;

static int push(ops_vec *o, const sim_op_info *x)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        sim_op_info *nv = realloc(o->v, cap * sizeof *nv);
        if (!nv) return -1;
        o->v = nv;
        o->cap = cap;
    }
    o->v[o->n++] = *x;
    return 0;
}

/* Op records of one COP1 payload, with the wait in front of each op. */
static int collect(const uint8_t *payload, size_t size, eu_variant *variant, ops_vec *out,
                   size_t *dual_waits, npuc_err *err)
{
    sim_cop1 cop;
    if (sim_cop1_parse(payload, size, &cop, err)) return -1;
    if (sim_variant_from_config(cop.config, variant, err)) return -1;
    sim_cmd *cmds = NULL;
    size_t n = 0;
    if (sim_stream_decode(cop.stream, cop.stream_size, *variant, &cmds, &n, err)) return -1;
    sim_state s;
    sim_state_reset(&s);
    uint8_t wk = 0, wc = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_cmd *c = &cmds[i];
        sim_state_apply(&s, c, *variant);
        if (c->code == EU_OP_DMA_WAIT || c->code == EU_OP_KERNEL_WAIT) {
            if (wk) (*dual_waits)++;
            wk = c->code == EU_OP_DMA_WAIT ? 1 : 2;
            wc = (uint8_t)c->param;
        } else if (eu_cmd_is_kernel_op(c->code) || c->code == EU_OP_DMA_START) {
            sim_op_info info;
            sim_op_info_from_state(&s, c, i, *variant, &info);
            info.wait_kind = wk;
            info.wait_count = wc;
            wk = wc = 0;
            if (push(out, &info)) {
                free(cmds);
                return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            }
        }
    }
    free(cmds);
    return 0;
}

typedef struct model_est {
    uint64_t cycles, compute_sum, macs;
    size_t n_streams, n_ops, dual_waits;
    eu_variant v;
} model_est;

static int estimate_model(const char *path, const sim_system *sys_or_null, model_est *e, bool verbose,
                          npuc_err *err)
{
    tfl_model *m = NULL;
    memset(e, 0, sizeof *e);
    if (tfl_read_file(path, &m, err)) return -1;
    int rc = 0;
    for (int g = 0; g < m->n_subgraphs && rc == 0; g++)
        for (int i = 0; i < m->subgraphs[g].n_operators && rc == 0; i++) {
            const tfl_operator *op = &m->subgraphs[g].operators[i];
            const tfl_opcode *oc = &m->opcodes[op->opcode_index];
            if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0 || op->n_inputs < 1) continue;
            const tfl_tensor *t = &m->subgraphs[g].tensors[op->inputs[0]];
            const tfl_buffer *b = &m->buffers[t->buffer];
            ops_vec ops = {0};
            eu_variant v = EU_U55_256;
            if (collect(b->data, b->size, &v, &ops, &e->dual_waits, err)) { rc = -1; free(ops.v); break; }
            sim_system sys;
            if (sys_or_null) sys = *sys_or_null;
            else target_default_sim(v, &sys);
            e->cycles += sim_perf_estimate(v, &sys, ops.v, ops.n);
            e->v = v;
            e->n_streams++;
            e->n_ops += ops.n;
            for (size_t k = 0; k < ops.n; k++) {
                e->compute_sum += ops.v[k].cycles_compute;
                e->macs += ops.v[k].macs;
            }
            if (verbose) {
                static const char *kn[] = {"CONV", "DW", "POOL", "EW", "DMA"};
                for (size_t k = 0; k < ops.n; k++) {
                    const sim_op_info *o = &ops.v[k];
                    if (o->kind == SIM_K_DMA)
                        printf("  %3zu DMA  %u->%u %6llu bytes wait=%u/%u            cyc %7llu  [%7llu,%7llu]\n",
                               k, o->dma_src_region, o->dma_dst_region, (unsigned long long)o->dma_bytes,
                               o->wait_kind, o->wait_count, (unsigned long long)o->cycles,
                               (unsigned long long)o->start, (unsigned long long)o->end);
                    else
                        printf("  %3zu %-4s m%u bd%u ifm %3ux%3ux%4u ofm %3ux%3ux%4u blk %2ux%2ux%3u k%ux%u "
                               "s%ux%u w%6llu macs %8llu comp %7llu mem %7llu cyc %7llu [%7llu,%7llu] r%u%u%u%u f%u%u "
                               "axi0 %llu/%llu axi1 %llu/%llu\n",
                               k, kn[o->kind], o->mode, o->blockdep, o->ifm_w, o->ifm_h, o->ifm_d, o->ofm_w,
                               o->ofm_h, o->ofm_d, o->blk_w, o->blk_h, o->blk_d, o->kernel_w, o->kernel_h,
                               o->stride_x, o->stride_y, (unsigned long long)o->weight_bytes,
                               (unsigned long long)o->macs, (unsigned long long)o->cycles_compute,
                               (unsigned long long)o->cycles_memory, (unsigned long long)o->cycles,
                               (unsigned long long)o->start, (unsigned long long)o->end, o->ifm_region,
                               o->ofm_region, o->weight_region, o->ifm2_region, o->ifm_format, o->ofm_format,
                               (unsigned long long)o->axi_read[0], (unsigned long long)o->axi_write[0],
                               (unsigned long long)o->axi_read[1], (unsigned long long)o->axi_write[1]);
                }
            }
            free(ops.v);
        }
    tfl_model_free(m);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void distribution(const char *label, double *r, size_t n)
{
    if (n == 0) {
        printf("  %-22s no models\n", label);
        return;
    }
    qsort(r, n, sizeof *r, cmp_double);
    double lg = 0;
    size_t within10 = 0, within25 = 0;
    for (size_t i = 0; i < n; i++) {
        lg += log(r[i]);
        if (r[i] >= 0.9 && r[i] <= 1.1) within10++;
        if (r[i] >= 0.75 && r[i] <= 1.25) within25++;
    }
    printf("  %-22s n=%3zu  min %.3f  p10 %.3f  median %.3f  p90 %.3f  max %.3f  geomean %.3f  "
           "within 10%%: %zu  within 25%%: %zu\n",
           label, n, r[0], r[n / 10], r[n / 2], r[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1], r[n - 1],
           exp(lg / (double)n), within10, within25);
}

/* Reads summary.csv of one configuration and compares every model. */
static void run_config(const char *shared, const char *cfg, const char *sysname, const char *mode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/models/vela/%s/summary.csv", shared, cfg);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("%s: skipped (no %s)\n", cfg, path);
        return;
    }
    npuc_err err;
    sim_system sys;
    if (target_lookup_sim(sysname, mode, &sys, &err)) {
        printf("%s: %s\n", cfg, err.msg);
        fclose(f);
        return;
    }
    printf("\n== %s (%s, %s) ==\n", cfg, sysname, mode);
    printf("%-46s %5s %10s %10s %10s %7s %7s %10s %10s\n", "model", "ops", "ours", "vela_tot", "vela_npu",
           "/tot", "/npu", "our_macs", "vela_macs");
    char line[2048];
    double *rt = NULL, *rn = NULL;
    size_t nt = 0, nn = 0, cap = 0;
    int hdr = 1;
    while (fgets(line, sizeof line, f)) {
        if (hdr) { hdr = 0; continue; }
        char *fields[16];
        int nf = 0;
        char *p = line;
        while (nf < 16) {
            fields[nf++] = p;
            char *cm = strchr(p, ',');
            if (!cm) break;
            *cm = 0;
            p = cm + 1;
        }
        if (nf < 11) continue;
        const char *model = fields[0];
        unsigned long long vnpu = strtoull(fields[7], NULL, 10), vtot = strtoull(fields[8], NULL, 10);
        unsigned long long vmacs = strtoull(fields[10], NULL, 10);
        if (vtot == 0) continue;   /* fully on the CPU */
        char mp[1200];
        size_t l = strlen(model);
        if (l < 7) continue;
        snprintf(mp, sizeof mp, "%s/models/vela/%s/%.*s_vela.tflite", shared, cfg, (int)(l - 7), model);
        model_est e;
        if (estimate_model(mp, &sys, &e, false, &err)) {
            printf("%-46s failed: %s\n", model, err.msg);
            continue;
        }
        double r1 = (double)e.cycles / (double)vtot, r2 = vnpu ? (double)e.cycles / (double)vnpu : 0;
        printf("%-46s %5zu %10llu %10llu %10llu %7.3f %7.3f %10llu %10llu%s\n", model, e.n_ops,
               (unsigned long long)e.cycles, vtot, vnpu, r1, r2, (unsigned long long)e.macs, vmacs,
               e.dual_waits ? "  (op with two waits)" : "");
        if (nt == cap) {
            cap = cap ? 2 * cap : 256;
            rt = realloc(rt, cap * sizeof *rt);
            rn = realloc(rn, cap * sizeof *rn);
            if (!rt || !rn) break;
        }
        rt[nt++] = r1;
        if (vnpu) rn[nn++] = r2;
    }
    fclose(f);
    printf("ratio distribution, %s:\n", cfg);
    distribution("ours / vela total", rt, nt);
    distribution("ours / vela npu", rn, nn);
    free(rt);
    free(rn);
}

int main(int argc, char **argv)
{
    const char *shared = getenv("NPUC_SHARED");
    bool verbose = false;
    npuc_err err;
    sim_system sys;
    if (argc >= 3 && strcmp(argv[1], "-m") == 0) {
        model_est e;
        bool have = argc >= 5 && target_lookup_sim(argv[3], argv[4], &sys, &err) == 0;
        if (argc >= 5 && !have) {
            printf("%s\n", err.msg);
            return 1;
        }
        if (estimate_model(argv[2], have ? &sys : NULL, &e, true, &err)) {
            printf("%s: %s\n", argv[2], err.msg);
            return 1;
        }
        printf("%s (%s): %zu ops, %llu cycles (compute alone %llu), MACs %llu\n", argv[2],
               eu_variant_name(e.v), e.n_ops, (unsigned long long)e.cycles,
               (unsigned long long)e.compute_sum, (unsigned long long)e.macs);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) verbose = true;
        else shared = argv[i];
    }
    if (!shared) shared = "../shared";

    char pd[1024];
    snprintf(pd, sizeof pd, "%s/models/tflm/person_detect_vela.tflite", shared);
    model_est e;
    target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &sys, &err);
    if (estimate_model(pd, &sys, &e, verbose, &err)) {
        printf("person_detect_vela: skipped: %s\n", err.msg);
    } else {
        printf("person_detect_vela (%s, Ethos_U55_High_End_Embedded/Shared_Sram): %zu ops, "
               "%llu cycles (compute alone %llu), MACs %llu\n",
               eu_variant_name(e.v), e.n_ops, (unsigned long long)e.cycles,
               (unsigned long long)e.compute_sum, (unsigned long long)e.macs);
        printf("  Vela: 301796 total, 288328 NPU -> ours/total %.3f, ours/npu %.3f\n",
               (double)e.cycles / 301796.0, (double)e.cycles / 288328.0);
    }
    run_config(shared, "u55-128", "Ethos_U55_High_End_Embedded", "Shared_Sram");
    run_config(shared, "u65-256", "Ethos_U65_High_End", "Dedicated_Sram");
    return 0;
}
