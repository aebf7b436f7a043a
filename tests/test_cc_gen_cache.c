/* cc_generate_all keeps the epochs it generated while the schedule search
 * runs (m->gen, cc.c: the last 64, each by its inputs: the buffers its
 * ops name, its LUTs and its ops, kept whole or, for a long epoch, as the
 * ops that differ from a whole copy). A hit may not change a byte: on
 * models of the shared folder (each skipped when absent), over many
 * random changes to an epoch's inputs (cc_gen_change.h; now and then an
 * earlier plan taken back, so that older entries are hit), every HW
 * epoch generated with the cache has the stream, DMA list, cycles and
 * per-op cycles of a generation without any cache (or the same error,
 * where a change gives an op the estimate refuses). */
#include "test.h"
#include "../src/compiler/cc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_test_npu.h"
#include "cc_gen_change.h"

typedef struct gen_out {
    uint8_t *payload; uint64_t size;
    int32_t *dma; int32_t n_dma;
    uint64_t cycles;
    uint64_t *op_cycles;      /* [2 * n_eu]: cycles, dma_cycles */
} gen_out;

static bool take(const cc_epoch *e, gen_out *o)
{
    o->payload = malloc(e->payload_size + 1);
    o->dma = malloc(sizeof *o->dma * ((size_t)e->n_dma + 1));
    o->op_cycles = malloc(sizeof *o->op_cycles * (2 * (size_t)e->n_eu + 1));
    if (!o->payload || !o->dma || !o->op_cycles) return false;
    memcpy(o->payload, e->payload, e->payload_size);
    o->size = e->payload_size;
    memcpy(o->dma, e->dma_op, sizeof *o->dma * (size_t)e->n_dma);
    o->n_dma = e->n_dma;
    o->cycles = e->cycles;
    for (int32_t k = 0; k < e->n_eu; k++) {
        o->op_cycles[2 * k] = e->ops[k].cycles;
        o->op_cycles[2 * k + 1] = e->ops[k].dma_cycles;
    }
    return true;
}

static void out_free(gen_out *o)
{
    free(o->payload);
    free(o->dma);
    free(o->op_cycles);
    memset(o, 0, sizeof *o);
}

/* m's epochs generated with its cache and without one: the same (or the
 * same error: a random change may give an op the estimate refuses). */
static bool same_both_ways(cc_model *m, int32_t ei)
{
    const cc_epoch *e = &m->epochs[ei];
    npuc_err ea = {0}, eb = {0};
    gen_out a = {0}, b = {0};
    int ra = cc_generate_all(m, &ea);
    bool ok = ra || take(e, &a);
    struct cc_gencache *gen = m->gen;
    struct eu_genmemo *memo = m->eu_memo;
    m->gen = NULL;
    m->eu_memo = NULL;
    int rb = cc_generate_all(m, &eb);
    ok = ok && (rb || take(e, &b));
    m->gen = gen;
    m->eu_memo = memo;
    if (ra || rb) ok = ok && ra == rb && !strcmp(ea.msg, eb.msg);
    else
        ok = ok && a.size == b.size && !memcmp(a.payload, b.payload, a.size) && a.n_dma == b.n_dma &&
             !memcmp(a.dma, b.dma, sizeof *a.dma * (size_t)a.n_dma) && a.cycles == b.cycles &&
             !memcmp(a.op_cycles, b.op_cycles, sizeof *a.op_cycles * 2 * (size_t)e->n_eu);
    if (!ok)
        fprintf(stderr, "epoch %d differs: %llu bytes, %llu cycles with the cache (%s); %llu, %llu without (%s)\n", ei,
                (unsigned long long)a.size, (unsigned long long)a.cycles, ea.msg, (unsigned long long)b.size,
                (unsigned long long)b.cycles, eb.msg);
    out_free(&a);
    out_free(&b);
    return ok;
}

static void one(const char *rel, eu_variant v, const char *vname, int trials)
{
    gen_check(rel, v, vname, trials, 20261128u, 8, same_both_ways, "epochs the same with the cache");
}

int main(void)
{
    int trials = (int)env_long("NPUC_GEN_TRIALS", 400);
    (void)variants;
    one("models/zoo/armkws_basic_lstm_s_int8.tflite", EU_U55_128, "ethos-u55-128", trials);
    one("models/tflm/person_detect.tflite", EU_U65_256, "ethos-u65-256", trials);
    one("models/zoo/armkws_ds_cnn_s_int8.tflite", EU_U55_256, "ethos-u55-256", trials);
    TEST_MAIN_END();
}
