/* The run profile: per command stream the virtual NPU's records of its
 * operations (cycle model figures, memory traffic), per epoch the
 * runtime's measurements. */
#include "api_int.h"

#include <stdlib.h>
#include <string.h>

void api_profile_reset(npuc_model *m)
{
    m->n_ops = 0;
    memset(&m->prof, 0, sizeof m->prof);
    m->prof.streams = m->streams;
}

void api_pmu_setup(sim_npu *npu)
{
    static const uint32_t events[4] = {EU_PMU_EV_NPU_ACTIVE, EU_PMU_EV_MAC_ACTIVE, EU_PMU_EV_AXI0_RD_DATA_BEAT_RECEIVED,
                                       EU_PMU_EV_AXI1_RD_DATA_BEAT_RECEIVED};
    for (int i = 0; i < 4; i++) sim_npu_write(npu, EU_REG_PMEVTYPER0 + 4 * i, events[i]);
    sim_npu_write(npu, EU_REG_PMCNTENSET, 0x8000000Fu);
    sim_npu_write(npu, EU_REG_PMCR, 1 | 2 | 4);
}

static npuc_npu_op_kind op_kind(const sim_op_info *o)
{
    switch (o->kind) {
    case SIM_K_CONV: return NPUC_NPU_CONV;
    case SIM_K_DEPTHWISE: return NPUC_NPU_DEPTHWISE;
    case SIM_K_POOL: return NPUC_NPU_POOL;
    case SIM_K_ELEMENTWISE: return NPUC_NPU_ELEMENTWISE;
    default: return NPUC_NPU_DMA;
    }
}

/* The memory behind a region: the runtime's base pointers are params (0),
 * activations (1) and fast scratch (2), and Vela's regions are the same
 * three first; any other region holds activations (inputs, outputs). */
static int region_mem(uint8_t region)
{
    return region == 0 ? NPUC_MEM_PARAMS : region == 2 ? NPUC_MEM_FAST : NPUC_MEM_ACTIVATIONS;
}

static void traffic(npuc_npu_op *d, const sim_op_info *o)
{
    if (o->kind == SIM_K_DMA) {
        if (o->dma_src_region != 0xFF) d->bytes_read[region_mem(o->dma_src_region)] += o->dma_bytes;
        if (o->dma_dst_region != 0xFF) d->bytes_written[region_mem(o->dma_dst_region)] += o->dma_bytes;
        return;
    }
    d->bytes_read[region_mem(o->ifm_region)] += o->ifm_bytes;
    if (o->ifm2_tensor) d->bytes_read[region_mem(o->ifm2_region)] += o->ifm2_bytes;
    d->bytes_read[region_mem(o->weight_region)] += o->weight_bytes;
    d->bytes_read[region_mem(o->scale_region)] += o->scale_bytes;
    d->bytes_written[region_mem(o->ofm_region)] += o->ofm_bytes;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np) return false;
    *p = np;
    *cap = nc;
    return true;
}

int api_profile_stream(npuc_model *m, int32_t index, sim_npu *npu, bool read_pmu)
{
    size_t n = 0;
    const sim_op_info *rec = sim_npu_ops(npu, &n);
    size_t k = m->prof.n_streams;
    if (!grow((void **)&m->streams, &m->cap_streams, k + 1, sizeof *m->streams) ||
        !grow((void **)&m->ops, &m->cap_ops, m->n_ops + n, sizeof *m->ops))
        return NPUC_E_NOMEM;
    npuc_stream_profile *s = &m->streams[k];
    memset(s, 0, sizeof *s);
    s->index = index;
    s->npu = eu_variant_name(sim_npu_variant(npu));
    s->cycles = sim_npu_run_cycles(npu);
    if (read_pmu) {
        s->pmu_cycles = sim_npu_read(npu, EU_REG_PMCCNTR_LO) | (uint64_t)sim_npu_read(npu, EU_REG_PMCCNTR_HI) << 32;
        for (int i = 0; i < 4; i++) s->pmu_events[i] = sim_npu_read(npu, EU_REG_PMEVCNTR0 + 4 * (uint32_t)i);
    }
    s->n_ops = n;
    for (size_t i = 0; i < n; i++) {
        const sim_op_info *o = &rec[i];
        npuc_npu_op *d = &m->ops[m->n_ops + i];
        memset(d, 0, sizeof *d);
        d->kind = op_kind(o);
        d->name = sim_op_kind_name(o->kind, o->mode);
        d->cmd_offset = (uint32_t)o->cmd_offset;
        d->ofm_w = o->ofm_w;
        d->ofm_h = o->ofm_h;
        d->ofm_d = o->ofm_d;
        d->dma_bytes = o->dma_bytes;
        d->macs = o->macs;
        d->cycles_compute = o->cycles_compute;
        d->cycles_memory = o->cycles_memory;
        d->cycles = o->cycles;
        d->end = o->end;
        traffic(d, o);
    }
    /* (the records may have moved: every stream points at its own again) */
    size_t first = 0;
    for (size_t j = 0; j <= k; j++) {
        m->streams[j].ops = m->ops + first;
        first += m->streams[j].n_ops;
    }
    m->n_ops += n;
    m->prof.streams = m->streams;
    m->prof.n_streams = k + 1;
    m->prof.npu_cycles += s->cycles;
    return NPUC_OK;
}
