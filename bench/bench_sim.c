/* Virtual NPU speed: simulated MACs per host-second and time per inference
 * on person_detect_vela (Ethos-U55-256 stream) against the reference
 * interpreter on person_detect.tflite, and on a large conv from the shared
 * Vela models. Prints figures; asserts nothing.
 *   usage: bench_sim [SHARED_DIR]   (default ../shared, or $NPUC_SHARED) */
#include "../src/interp/interp.h"
#include "../src/interp/interp_ethosu.h"
#include "../src/sim/sim.h"
#include "../tests/sim_asm.h"

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

typedef struct loaded {
    tfl_model *m;
    graph *g;
} loaded;

static int load(const char *path, loaded *l)
{
    npuc_err err;
    memset(l, 0, sizeof *l);
    if (tfl_read_file(path, &l->m, &err) || graph_import(l->m, &l->g, &err)) {
        printf("%s: skipped: %s\n", path, err.msg);
        tfl_model_free(l->m);
        return -1;
    }
    return 0;
}

static void unload(loaded *l)
{
    graph_free(l->g);
    tfl_model_free(l->m);
}

/* Times the first ethos-u op of a model on the virtual NPU. Returns the
 * seconds per run (0 on failure) and the simulated MACs per run. */
static double time_npu(const char *path, const char *label, uint64_t *macs_out, uint64_t *cycles_out)
{
    loaded l;
    if (load(path, &l)) return 0;
    const graph *g = l.g;
    const graph_op *op = NULL;
    for (int32_t i = 0; i < g->n_ops && !op; i++)
        if (interp_is_ethosu_op(&g->ops[i])) op = &g->ops[i];
    double per = 0;
    npuc_err err;
    eu_variant v;
    sim_npu *npu = NULL;
    void *data[64] = {0};
    if (!op || op->n_in + op->n_out > 64 || interp_ethosu_variant(g, op, &v, &err) ||
        sim_npu_create(v, NULL, &npu, &err)) {
        printf("%-34s skipped: no runnable ethos-u op\n", label);
        goto out;
    }
    npuc_rng r;
    npuc_rng_seed(&r, 1);
    for (int k = 0; k < op->n_in + op->n_out; k++) {
        int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (t < 0) continue;
        const graph_tensor *gt = &g->tensors[t];
        if (gt->data) {
            data[k] = (void *)gt->data;
        } else {
            data[k] = malloc(gt->nbytes ? gt->nbytes : 1);
            for (size_t b = 0; b < gt->nbytes; b++) ((uint8_t *)data[k])[b] = (uint8_t)npuc_rng_next(&r);
        }
    }
    if (interp_run_ethosu_op(npu, g, op, data, &err)) {   /* warm-up: fills the weight cache */
        printf("%-34s failed: %s\n", label, err.msg);
        goto out;
    }
    size_t n;
    const sim_op_info *ops = sim_npu_ops(npu, &n);
    uint64_t macs = 0;
    for (size_t i = 0; i < n; i++) macs += ops[i].macs;
    int runs = 0;
    double t0 = now(), t1 = t0;
    do {
        if (interp_run_ethosu_op(npu, g, op, data, &err)) break;
        runs++;
        t1 = now();
    } while (t1 - t0 < 1.0 || runs < 3);
    per = (t1 - t0) / runs;
    *macs_out = macs;
    *cycles_out = sim_npu_run_cycles(npu);
out:
    for (int k = 0; op && k < op->n_in + op->n_out; k++) {
        int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (t >= 0 && !g->tensors[t].data) free(data[k]);
    }
    sim_npu_free(npu);
    unload(&l);
    return per;
}

static double time_interp(const char *path)
{
    loaded l;
    if (load(path, &l)) return 0;
    npuc_err err;
    interp *ip;
    double per = 0;
    if (!interp_create(l.g, NULL, &ip, &err)) {
        interp_invoke(ip, &err);
        int runs = 0;
        double t0 = now(), t1 = t0;
        do {
            if (interp_invoke(ip, &err)) break;
            runs++;
            t1 = now();
        } while (t1 - t0 < 1.0 || runs < 3);
        per = (t1 - t0) / runs;
        interp_free(ip);
    }
    unload(&l);
    return per;
}

static void row(const char *label, const char *vela, const char *orig)
{
    uint64_t macs = 0, cycles = 0;
    double t = time_npu(vela, label, &macs, &cycles);
    if (t <= 0) return;
    printf("%-34s virtual NPU %8.3f ms/inference, %9llu MACs, %7.2f GMAC/s, %9llu NPU cycles",
           label, t * 1e3, (unsigned long long)macs, (double)macs / t * 1e-9, (unsigned long long)cycles);
    if (orig) {
        double r = time_interp(orig);
        if (r > 0) printf("; reference interpreter %8.3f ms (%.1fx)", r * 1e3, r / t);
    }
    printf("\n");
}

/* A large generated conv: 56x56x64 int8 NHCWB16 in, 3x3 kernel, 56x56x64
 * out (115.6 M MACs), U55-256, built with the test stream assembler and run
 * through the register interface. */
static void generated_conv(void)
{
    const eu_variant v = EU_U55_256;
    const uint32_t H = 56, W = 56, C = 64, O = 64, K = 3;
    sa_stream s;
    sa_init(&s);
    sa_npu m;
    if (sa_open(&m, v)) {
        printf("generated conv: cannot create the NPU\n");
        return;
    }
    sa_fm ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHCWB16);
    sa_fm ofm = sa_fm_make(2, 0, H, W, O, 8, true, SA_NHCWB16);
    size_t in_size = sa_fm_extent(&ifm), out_size = sa_fm_extent(&ofm);
    uint8_t *in = malloc(in_size), *out = malloc(out_size), *cst = malloc(1 << 20);
    int16_t *w = malloc(sizeof *w * O * K * K * C);
    if (!in || !out || !cst || !w) {
        printf("generated conv: out of memory\n");
        goto done;
    }
    npuc_rng r;
    npuc_rng_seed(&r, 5);
    for (size_t i = 0; i < in_size; i++) in[i] = (uint8_t)npuc_rng_next(&r);
    for (size_t i = 0; i < (size_t)O * K * K * C; i++) w[i] = (int16_t)npuc_rng_range(&r, -127, 127);
    sa_set_ifm(&s, &ifm);
    sa_set_pad(&s, 1, 1, 1, 1);
    sa_set_upscale(&s, 0);
    sa_set_ofm(&s, &ofm);
    sa_set_kernel(&s, K, K, 1, 1, 1, 1, false);
    uint32_t bd = sa_set_config(&s, v, &ofm, 8, false, false);
    sim_wgeom g = sa_wgeom(v, O, C, K, K, bd, 1, 1, 8, false, false);
    size_t wlen = sa_weights(&g, w, cst, (1 << 20) - 4096);
    size_t soff = (wlen + 15) / 16 * 16;
    for (uint32_t o = 0; o < O; o++) sa_scale_rec(cst + soff + 10 * o, (int64_t)o * 37 - 1000, 1u << 30, 40);
    sa_set_weights(&s, 0, 0, wlen);
    sa_set_scales(&s, 0, soff, sa_scale_len(O));
    sa_set_ofm_scale(&s, 0, 0);
    sa_set_act(&s, 0, 0, -128, 127);
    sa_cmd0(&s, EU_OP_CONV, 0);
    sa_stop(&s);
    sa_region(&m, 0, cst, 1 << 20, false);
    sa_region(&m, 1, in, in_size, false);
    sa_region(&m, 2, out, out_size, true);
    if (!sa_status_ok(sa_run(&m, &s))) {
        printf("generated conv: failed: %s\n", sim_npu_error(m.npu));
        goto done;
    }
    int runs = 0;
    double t0 = now(), t1 = t0;
    do {
        sa_ack(&m);
        if (!sa_status_ok(sa_run(&m, &s))) break;
        runs++;
        t1 = now();
    } while (t1 - t0 < 1.0 || runs < 3);
    double per = (t1 - t0) / runs;
    double macs = (double)H * W * O * K * K * C;
    printf("%-34s virtual NPU %8.3f ms/op,        %9.0f MACs, %7.2f GMAC/s, %9llu NPU cycles\n",
           "generated conv 56x56x64 3x3 int8", per * 1e3, macs, macs / per * 1e-9,
           (unsigned long long)sim_npu_run_cycles(m.npu));
done:
    free(in);
    free(out);
    free(cst);
    free(w);
    sa_close(&m);
    sa_free(&s);
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : getenv("NPUC_SHARED");
    if (!shared) shared = "../shared";
    char a[4096], b[4096];
    printf("bench_sim: one host core, inputs random (seed 1), weights decoded once and cached\n");
    generated_conv();
    snprintf(a, sizeof a, "%s/models/tflm/person_detect_vela.tflite", shared);
    snprintf(b, sizeof b, "%s/models/tflm/person_detect.tflite", shared);
    row("person_detect_vela (U55-256)", a, b);
    snprintf(a, sizeof a, "%s/models/vela/u65-256/person_detect_vela.tflite", shared);
    row("person_detect_vela (U65-256)", a, b);
    static const char *convs[] = {"conv/conv0", "conv/conv10", "conv/conv20"};
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
        char label[64];
        snprintf(a, sizeof a, "%s/models/vela/u55-128/seanet/%s_vela.tflite", shared, convs[i]);
        snprintf(b, sizeof b, "%s/models/tflm/seanet/%s.tflite", shared, convs[i]);
        snprintf(label, sizeof label, "seanet %s int16 (U55-128)", convs[i]);
        row(label, a, b);
    }
    return 0;
}
