/* The hazard check (cc_hazard.h) on real command streams: the compiler's for
 * the shared TFLite Micro models on every variant, in both goals and all
 * cascade modes, and Vela's own person_detect stream (DMAs against kernel
 * ops); and that it flags a
 * stream whose DMA overwrites what a running conv reads. (The generated
 * models get the same check in test_compile_genmodel.) */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/graph/graph.h"
#include "../src/tflite/tflite.h"
#include "cc_hazard.h"

static const eu_variant VARIANTS[6] = {EU_U55_32, EU_U55_64, EU_U55_128,
                                        EU_U55_256, EU_U65_256, EU_U65_512};

static void check_model(const char *path)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(0);
        tfl_model_free(tm);
        return;
    }
    for (int vi = 0; vi < 6; vi++)
        for (int mode = 0; mode < 4; mode++) {
            cc_options opt;
            memset(&opt, 0, sizeof opt);
            opt.optimise = mode == 3 ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
            opt.cascade = mode == 1 ? CC_CASCADE_OFF : mode == 2 ? CC_CASCADE_ALL : CC_CASCADE_AUTO;
            CHECK_EQ_INT(target_default(VARIANTS[vi], &opt.sys, &err), NPUC_OK);
            cc_model *cm = NULL;
            if (cc_compile(g, &opt, &cm, &err)) {
                fprintf(stderr, "%s on %s: %s\n", path, target_variant_name(VARIANTS[vi]), err.msg);
                CHECK(0);
                continue;
            }
            for (int32_t i = 0; i < cm->n_epochs; i++) {
                const cc_epoch *e = &cm->epochs[i];
                char msg[320];
                if (e->kind != CC_EPOCH_HW) continue;
                int rc = cc_hazard_check(e->payload, e->payload_size, VARIANTS[vi], true, msg, sizeof msg);
                if (rc)
                    fprintf(stderr, "%s on %s (mode %d), epoch %d: %s\n", path,
                            target_variant_name(VARIANTS[vi]), mode, (int)i, msg);
                CHECK_EQ_INT(rc, 0);
            }
            cc_model_free(cm);
        }
    graph_free(g);
    tfl_model_free(tm);
}

static void check_vela(const char *path)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(0);
        return;
    }
    const tfl_subgraph *sg = &m->subgraphs[0];
    int streams = 0;
    for (int oi = 0; oi < sg->n_operators; oi++) {
        const tfl_operator *op = &sg->operators[oi];
        const tfl_opcode *oc = &m->opcodes[op->opcode_index];
        if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0 || op->n_inputs < 1) continue;
        const tfl_buffer *b = &m->buffers[sg->tensors[op->inputs[0]].buffer];
        sim_cop1 cop;
        eu_variant v;
        char msg[320];
        CHECK_EQ_INT(sim_cop1_parse(b->data, b->size, &cop, &err), NPUC_OK);
        CHECK_EQ_INT(sim_variant_from_config(cop.config, &v, &err), NPUC_OK);
        int rc = cc_hazard_check(b->data, b->size, v, false, msg, sizeof msg);
        if (rc) fprintf(stderr, "%s: %s\n", path, msg);
        CHECK_EQ_INT(rc, 0);
        streams++;
    }
    CHECK(streams > 0);
    tfl_model_free(m);
}

/* A 1x1 conv reads 16 weight bytes at 0x100 of the arena; a DMA issued
 * right after it overwrites them: flagged unless a KERNEL_WAIT 0 (or the
 * DMA's target moves) keeps them apart. */
static int run_negative(bool wait, uint32_t dst)
{
    uint32_t w[256];
    size_t n = 0;
#define C0(code, p) (w[n++] = (uint32_t)(code) | ((uint32_t)(p) << 16))
#define C1(code, v) (w[n++] = (uint32_t)(code) | 0x4000u, w[n++] = (uint32_t)(v))
    C0(EU_SET_IFM_REGION, 1);
    C1(EU_SET_IFM_BASE0, 0x0);
    C1(EU_SET_IFM_STRIDE_X, 8);
    C1(EU_SET_IFM_STRIDE_Y, 64);
    C1(EU_SET_IFM_STRIDE_C, 1);
    C0(EU_SET_IFM_WIDTH0_M1, 7);
    C0(EU_SET_IFM_HEIGHT0_M1, 0);
    C0(EU_SET_IFM_HEIGHT1_M1, 0);
    C0(EU_SET_IFM_DEPTH_M1, 7);
    C0(EU_SET_OFM_REGION, 1);
    C1(EU_SET_OFM_BASE0, 0x200);
    C1(EU_SET_OFM_STRIDE_X, 8);
    C1(EU_SET_OFM_STRIDE_Y, 64);
    C1(EU_SET_OFM_STRIDE_C, 1);
    C0(EU_SET_OFM_WIDTH0_M1, 7);
    C0(EU_SET_OFM_HEIGHT0_M1, 0);
    C0(EU_SET_OFM_HEIGHT1_M1, 0);
    C0(EU_SET_OFM_WIDTH_M1, 7);
    C0(EU_SET_OFM_HEIGHT_M1, 0);
    C0(EU_SET_OFM_DEPTH_M1, 7);
    C0(EU_SET_WEIGHT_REGION, 1);
    C1(EU_SET_WEIGHT_BASE, 0x100);
    C1(EU_SET_WEIGHT_LENGTH, 16);
    C0(EU_SET_SCALE_REGION, 1);
    C1(EU_SET_SCALE_BASE, 0x180);
    C1(EU_SET_SCALE_LENGTH, 80);
    C0(EU_OP_CONV, 0);
    if (wait) C0(EU_OP_KERNEL_WAIT, 0);
    C0(EU_SET_DMA0_SRC_REGION, 0);
    C1(EU_SET_DMA0_SRC, 0);
    C0(EU_SET_DMA0_DST_REGION, 1);
    C1(EU_SET_DMA0_DST, dst);
    C1(EU_SET_DMA0_LEN, 16);
    C0(EU_OP_DMA_START, 0);
    C0(EU_OP_STOP, 0xFFFF);
#undef C0
#undef C1
    /* COP1 payload around the stream */
    uint32_t p[300];
    size_t k = 0;
    p[k++] = 0x31504F43u;
    p[k++] = 0x00100001u;
    p[k++] = eu_variant_config_word(EU_U55_256);
    p[k++] = 0x10060000u;
    while ((k + 1) % 4) p[k++] = 5;
    p[k++] = 2u | ((uint32_t)(n & 0xFFFF) << 16);
    memcpy(p + k, w, n * sizeof *w);
    k += n;
    char msg[320];
    return cc_hazard_check((const uint8_t *)p, k * 4, EU_U55_256, true, msg, sizeof msg);
}

int main(void)
{
    CHECK_EQ_INT(run_negative(false, 0x100), 1);
    CHECK_EQ_INT(run_negative(true, 0x100), 0);
    CHECK_EQ_INT(run_negative(false, 0x400), 0);
    CHECK_EQ_INT(run_negative(false, 0x1F8), 1);   /* the conv's OFM */

    static const char *models[] = {"models/tflm/person_detect.tflite",
                                   "models/tflm/micro_speech_quantized.tflite",
                                   "models/tflm/keyword_scrambled_8bit.tflite",
                                   "models/tflm/hello_world_int8.tflite"};
    char buf[1024];
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        const char *p = t_shared(models[i], buf, sizeof buf);
        if (!p) {
            printf("SKIP %s: shared folder absent (set NPUC_SHARED)\n", models[i]);
            continue;
        }
        check_model(p);
    }
    const char *vp = t_shared("models/tflm/person_detect_vela.tflite", buf, sizeof buf);
    if (vp) check_vela(vp);
    else printf("SKIP person_detect_vela: shared folder absent\n");
    TEST_MAIN_END();
}
