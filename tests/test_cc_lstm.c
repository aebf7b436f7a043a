/* UNIDIRECTIONAL_SEQUENCE_LSTM on the NPU (src/compiler/lower/lower_lstm.c).
 *
 * Random one-LSTM models from genmodel_lstm (batch 1..3, 1..8 time steps,
 * 1..48 inputs and units, batch- or time-major, random scales and zero
 * points, cell clip or not, now and then far-off weight scales), compiled
 * for every Ethos-U variant (a quarter with --optimise size: the split
 * form, one gate at a time; half of those with cc_options.lstm_alt: the
 * stacked form one step at a time), emitted as
 * TFLite, read back and run with the ethos-u op on the virtual NPU against
 * the reference interpreter on the source graph: several invocations in a
 * row on each side without a reset, so the hidden and cell state carried
 * from one to the next are compared too (through the outputs they feed).
 * Every command stream passes the hazard check. An int8 LSTM must be on the
 * NPU unless the lowering names one of its CPU reasons (an accumulator
 * TFLite could wrap, a rescale out of range); the same for int16 LSTMs
 * (int16x8); LSTMs whose input weight scales are forced up so that
 * TFLite's int32 product could wrap stay on the CPU with the reason (and
 * still match the reference).
 *
 * The model zoo's four LSTM models (NPUC_SHARED; skipped without it) on
 * ethos-u55-128, -u55-256 and -u65-256 (performance) and ethos-u55-64
 * (size), and TFLite Micro's three int8 single-op LSTM goldens on all six
 * variants: no LSTM left on the CPU, every stream through the hazard check,
 * the compiled model equal to TFLite Micro's goldens from a fresh state,
 * then three random invocations in a row against the reference (the DTLN
 * model carries its state from frame to frame).
 *
 * Environment: NPUC_LSTM_CASES (int8 and int16 models each, default 300), NPUC_LSTM_SEED
 * (first seed, default 1), NPUC_LSTM_DRAWS (invocations per model, 3). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"
#include "../tools/genmodel/genmodel.h"
#include "cc_hazard.h"

#include <stdint.h>
#include <string.h>

#include "cc_test_npu.h"
#include "test_model.h"

typedef struct stats {
    int cases, npu, cpu, failed, runs, npu_ops;
    int reasons_acc, reasons_other;
} stats;

static void fill(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n)
{
    const graph *g = user;
    const graph_tensor *t = &g->tensors[g->inputs[k]];
    /* uniform most of the time; extremes and near-constant inputs too */
    cc_fill_pattern(r, draw % 3 == 0 ? 0 : (int)npuc_rng_range(r, 0, 6), t->dtype, buf, t->dtype == GRAPH_I16 ? n / 2 : n);
}

static const char *const cpu_reasons[] = {
    "the accumulator could reach", "outside the NPU's range", "left shift", "gate non-linearity", "tanh of the cell",
};

/* One model: compile, placement, hazards, draws. */
static void run_case(uint64_t seed, bool int16, bool force_acc, int v, stats *st)
{
    char cs[160];
    genmodel_lstm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.int16 = int16;
    if (seed % 7 == 0) {
        /* now and then larger ones: more units than one block, longer sequences */
        cfg.max_units = 96;
        cfg.max_input = 160;
        cfg.max_steps = 12;
    }
    graph *src = NULL;
    npuc_err e = {0};
    if (genmodel_lstm(seed, &cfg, &src, &e)) {
        fprintf(stderr, "FAIL seed %llu: genmodel: %s\n", (unsigned long long)seed, e.msg);
        st->failed++;
        return;
    }
    if (force_acc) {
        /* input weights scaled up by 2^16: gate multipliers with a left
         * shift of about 16, under which TFLite's int32 product wraps for
         * some reachable accumulators */
        for (int g = 1; g <= 4; g++) src->tensors[src->ops[0].in[g]].q.scale[0] *= 65536.0f;
    }
    /* --optimise size takes the split form where one step runs per input
     * FC; lstm_alt (one case in eight) the stacked form there instead */
    cc_options opt = {.optimise = seed % 4 == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, .lstm_alt = seed % 8 == 7};
    const graph_tensor *x = &src->tensors[src->inputs[0]];
    snprintf(cs, sizeof cs, "%s [%d,%d,%d] units %d%s on %s%s%s", src->name, x->shape[0], x->shape[1], x->shape[2],
             src->tensors[src->ops[0].in[18]].shape[1], src->ops[0].opt.time_major ? " time-major" : "",
             target_variant_name(variants[v]), opt.optimise == CC_OPT_SIZE ? " (size)" : "",
             opt.lstm_alt ? " (other form)" : "");
    st->cases++;
    cc_model *cm = NULL;
    bool ok = cc_check_compile(cs, src, variants[v], opt, &cm);
    if (ok) {
        const cc_op_info *info = &cm->ops[0];
        if (info->npu) {
            st->npu++;
            st->npu_ops += info->n_eu;
            if (force_acc) {
                fprintf(stderr, "FAIL %s: expected on the CPU\n", cs);
                ok = false;
            }
        } else {
            st->cpu++;
            bool known = false;
            if (force_acc) known = strstr(info->why, "the accumulator could reach") != NULL;
            for (size_t k = 0; k < sizeof cpu_reasons / sizeof cpu_reasons[0]; k++)
                if (!force_acc && strstr(info->why, cpu_reasons[k])) {
                    known = true;
                    if (k == 0) st->reasons_acc++;
                    else st->reasons_other++;
                }
            if (!known) {
                fprintf(stderr, "FAIL %s: on the CPU: %s\n", cs, info->why);
                ok = false;
            }
        }
    }
    for (int32_t i = 0; ok && i < cm->n_epochs; i++) {
        const cc_epoch *ep = &cm->epochs[i];
        char hz[320];
        if (ep->kind == CC_EPOCH_HW && cc_hazard_check(ep->payload, ep->payload_size, variants[v], true, hz, sizeof hz)) {
            fprintf(stderr, "FAIL %s: epoch %d: %s\n", cs, (int)i, hz);
            ok = false;
        }
    }
    if (ok) {
        cc_draws d = {.n_draws = (int)env_long("NPUC_LSTM_DRAWS", 3),
                      .seed = seed * 31 + 7,
                      .fill = fill,
                      .user = src,
                      .runs = &st->runs,
                      .npu_runs = cm->ops[0].npu ? CC_RUNS_ONE : CC_RUNS_ANY};
        ok = cc_check_draws(cs, src, cm, variants[v], &d);
    }
    if (!ok) {
        fprintf(stderr, "  (repro: NPUC_LSTM_SEED=%llu NPUC_LSTM_CASES=1)\n", (unsigned long long)seed);
        st->failed++;
    }
    cc_model_free(cm);
    graph_free(src);
}


/* Output bytes of the compiled model equal the concatenated golden bytes. */
static bool npu_equals(const cc_twin *t, const graph *g, const uint8_t *want, size_t n)
{
    size_t off = 0;
    for (int32_t o = 0; o < g->n_outputs; o++) {
        size_t m = 0;
        const uint8_t *got = interp_output(t->npu, o, &m);
        if (!got || off + m > n || memcmp(got, want + off, m) != 0) return false;
        off += m;
    }
    return off == n;
}

static void fill_uniform(void *user, npuc_rng *r, int draw, int32_t k, uint8_t *buf, size_t n)
{
    (void)user;
    (void)draw;
    (void)k;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

/* One zoo model on one variant: placement, hazards, goldens, draws. */
static void zoo_case(const char *dir, const char *gdir, int seeds, const char *name, eu_variant v, cc_optimise optm,
                     stats *st)
{
    char path[4096], rel[256], cs[200];
    snprintf(rel, sizeof rel, "%s/%s.tflite", dir, name);
    if (!t_shared(rel, path, sizeof path)) {
        printf("SKIP: %s not found\n", rel);
        return;
    }
    snprintf(cs, sizeof cs, "%s on %s%s", name, target_variant_name(v), optm == CC_OPT_SIZE ? " (size)" : "");
    tfl_model *tm = NULL;
    graph *g = NULL;
    cc_model *cm = NULL;
    bool ok = t_load_model(path, &tm, &g) == 0 && cc_check_compile(cs, g, v, (cc_options){.optimise = optm}, &cm);
    st->cases++;
    for (int32_t i = 0; ok && i < g->n_ops; i++)
        if (g->ops[i].opcode == TFL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM) {
            if (!cm->ops[i].npu) {
                fprintf(stderr, "FAIL %s: op %d on the CPU: %s\n", cs, (int)i, cm->ops[i].why);
                ok = false;
            } else {
                st->npu++;
                st->npu_ops += cm->ops[i].n_eu;
            }
        }
    for (int32_t i = 0; ok && i < cm->n_epochs; i++) {
        const cc_epoch *ep = &cm->epochs[i];
        char hz[320];
        if (ep->kind == CC_EPOCH_HW && cc_hazard_check(ep->payload, ep->payload_size, v, true, hz, sizeof hz)) {
            fprintf(stderr, "FAIL %s: epoch %d: %s\n", cs, (int)i, hz);
            ok = false;
        }
    }
    /* the goldens, each from a fresh state */
    for (int seed = 1; ok && seed <= seeds; seed++) {
        char pi[4200], po[4200];
        snprintf(rel, sizeof rel, "%s/%s.s%d.in.bin", gdir, name, seed);
        if (!t_shared(rel, pi, sizeof pi)) break;
        snprintf(rel, sizeof rel, "%s/%s.s%d.out.bin", gdir, name, seed);
        if (!t_shared(rel, po, sizeof po)) break;
        size_t ni = 0, no = 0;
        uint8_t *in = t_read_all(pi, &ni), *out = t_read_all(po, &no);
        cc_twin tw;
        memset(&tw, 0, sizeof tw);
        const char *stage = "", *side = "";
        npuc_err e = {0};
        if (!in || !out || cc_twin_open(&tw, g, cm, v, &stage, &e)) {
            fprintf(stderr, "FAIL %s: golden %d: %s %s\n", cs, seed, stage, e.msg);
            ok = false;
        } else if (!t_set_inputs(tw.npu, g, in, ni) || !t_set_inputs(tw.ref, g, in, ni) ||
                   cc_twin_invoke(&tw, &side, &e)) {
            fprintf(stderr, "FAIL %s: golden %d: %s: %s\n", cs, seed, side, e.msg);
            ok = false;
        } else if (!npu_equals(&tw, g, out, no)) {
            fprintf(stderr, "FAIL %s: golden %d: the compiled model differs from TFLite Micro\n", cs, seed);
            ok = false;
        } else {
            st->runs++;
        }
        cc_twin_close(&tw);
        free(in);
        free(out);
    }
    if (ok) {
        cc_draws d = {.n_draws = 3, .seed = 99, .fill = fill_uniform, .runs = &st->runs, .npu_runs = CC_RUNS_SOME};
        ok = cc_check_draws(cs, g, cm, v, &d);
    }
    if (!ok) st->failed++;
    cc_model_free(cm);
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    stats st = {0};
    long n = env_long("NPUC_LSTM_CASES", 300), first = env_long("NPUC_LSTM_SEED", 1);
    for (long i = 0; i < n; i++) run_case((uint64_t)(first + i), false, false, (int)(i % 6), &st);
    int npu_int8 = st.npu;
    /* int16 activations (int16x8: int64 biases, zero points 0) */
    for (long i = 0; i < n; i++) run_case((uint64_t)(first + i), true, false, (int)((i + 3) % 6), &st);
    int npu_int16 = st.npu - npu_int8;
    /* an accumulator TFLite's int32 arithmetic could wrap: the CPU, with the reason */
    long nf = n / 10 > 0 ? n / 10 : 1;
    for (long i = 0; i < nf; i++) run_case((uint64_t)(first + 5000 + i), false, true, (int)(i % 6), &st);
    /* the zoo's LSTM models */
    static const char *const zoo[] = {"tflm_mnist_lstm_int8", "coral_keras_lstm_mnist_ptq", "tflm_micro_speech_lstm",
                                      "tflm_dtln_noise_suppression_int8"};
    static const eu_variant zv[4] = {EU_U55_128, EU_U55_256, EU_U65_256, EU_U55_64};
    for (size_t m = 0; m < sizeof zoo / sizeof zoo[0]; m++)
        for (int k = 0; k < 4; k++)
            zoo_case("models/zoo", "models/zoo/golden", 2, zoo[m], zv[k], k == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, &st);
    /* TFLite Micro's single-op LSTM goldens */
    static const char *const ops[] = {"i8_batch_major", "i8_cell_clip", "i8_time_major_zp"};
    for (size_t m = 0; m < sizeof ops / sizeof ops[0]; m++)
        for (int k = 0; k < 6; k++)
            zoo_case("models/ops/UNIDIRECTIONAL_SEQUENCE_LSTM", "models/ops/UNIDIRECTIONAL_SEQUENCE_LSTM", 3, ops[m],
                     variants[k], k == 5 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE, &st);
    printf("lstm: %d models (%d failed): %d on the NPU (%d NPU ops), %d on the CPU (%d accumulator range, %d "
           "other), %d compiled runs compared\n",
           st.cases, st.failed, st.npu, st.npu_ops, st.cpu, st.reasons_acc, st.reasons_other, st.runs);
    CHECK_EQ_INT(st.failed, 0);
    /* the NPU form takes nearly every generated LSTM, int8 and int16 */
    if (n >= 250) CHECK(npu_int8 >= 200 && npu_int16 >= 200);
    TEST_MAIN_END();
}
