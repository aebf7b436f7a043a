/* eu_generate keeps the register operands it works out while the schedule
 * search runs (m->gen set: m->eu_memo, src/compiler/ethosu/eu_gen.c): the
 * multi-field registers' operands by slot and key, the one-field ones'
 * value fields. None may change a byte: on models of the shared folder
 * (each skipped when absent), over many random schedule changes of the
 * compiled model (buffers moved between places and pools, weight copies
 * dropped, restored and their DMAs moved, op fields a search or a
 * lowering may set otherwise, earlier states taken back), every HW epoch
 * generated with the memo kept from one change to the next has the stream
 * and DMA list generated without it. */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_test_npu.h"
#include "cc_gen_change.h"

/* Epoch e generated with m's memo (kept) and without one: the same
 * payload and DMA list. */
static bool same_both_ways(cc_model *m, int32_t ei)
{
    cc_epoch *e = &m->epochs[ei];
    npuc_err err = {0};
    if (eu_generate(m, e, &err)) {
        fprintf(stderr, "generate (memo): %s\n", err.msg);
        return false;
    }
    uint64_t n = e->payload_size;
    uint8_t *a = malloc(n + 1);
    int32_t nd = e->n_dma, *da = malloc(sizeof *da * ((size_t)nd + 1));
    if (!a || !da) {
        free(a);
        free(da);
        return false;
    }
    memcpy(a, e->payload, n);
    memcpy(da, e->dma_op, sizeof *da * (size_t)nd);
    struct cc_gencache *gen = m->gen;
    struct eu_genmemo *memo = m->eu_memo;
    m->gen = NULL;
    m->eu_memo = NULL;
    int rc = eu_generate(m, e, &err);
    m->gen = gen;
    m->eu_memo = memo;
    bool ok = !rc && e->payload_size == n && !memcmp(a, e->payload, n) && e->n_dma == nd &&
              !memcmp(da, e->dma_op, sizeof *da * (size_t)nd);
    if (!ok) fprintf(stderr, "stream differs: %llu bytes with the memo, %llu without (rc %d)\n",
                     (unsigned long long)n, (unsigned long long)e->payload_size, rc);
    free(a);
    free(da);
    return ok;
}

static void one(const char *rel, eu_variant v, const char *vname, int trials)
{
    gen_check(rel, v, vname, trials, 20261127u, 16, same_both_ways, "streams the same with the memo");
}

int main(void)
{
    int trials = (int)env_long("NPUC_MEMO_TRIALS", 300);
    one("models/tflm/person_detect.tflite", EU_U55_128, "ethos-u55-128", trials);
    one("models/tflm/person_detect.tflite", EU_U65_512, "ethos-u65-512", trials);
    one("models/zoo/armkws_ds_cnn_l_int8.tflite", EU_U55_32, "ethos-u55-32", trials);
    one("models/zoo/tflm_id_model.tflite", EU_U55_256, "ethos-u55-256", trials);
    one("models/zoo/tflm_retinaface.tflite", EU_U65_256, "ethos-u65-256", trials);
    one("models/tflm/micro_speech_quantized.tflite", EU_U55_64, "ethos-u55-64", trials);
    one("models/zoo/armkws_basic_lstm_s_int8.tflite", EU_U55_128, "ethos-u55-128", trials);
    TEST_MAIN_END();
}
