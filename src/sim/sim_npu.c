/* sim_npu: the virtual NPU's register file (docs/ethos-u.md 9.4, 9.5). A driver
 * programs it exactly as it would the hardware: QBASE/QSIZE, BASEPn, then
 * CMD = start; the command queue runs, STATUS reports completion or the
 * fault, and the IRQ callback fires. */
#include "sim/sim_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHRAM_MAX (96 * EU_SHRAM_BANK_BYTES)   /* >= every variant's banks */

struct sim_npu {
    eu_variant variant;
    sim_system sys;
    /* registers */
    uint32_t status, cmd, prot, qconfig, qsize, qread, regioncfg, lock;
    uint32_t axi_limit[EU_N_AXI_LIMIT];
    uint64_t qbase;
    uint64_t basep[EU_N_REGIONS];
    uint32_t pmcr, pmcnten, pmovs, pmint, pmccntr_cfg, pmcaxi_chan;
    uint64_t pmccntr;
    uint32_t pmevcntr[EU_PMU_NCOUNTERS], pmevtyper[EU_PMU_NCOUNTERS];
    /* memory */
    sim_window win[SIM_MAX_WINDOWS];
    size_t n_win;
    uint8_t shram[SHRAM_MAX];
    sim_ctx ctx;
    sim_state state;
    /* hooks */
    void (*irq)(void *);
    void *irq_user;
    void (*trace)(void *, const char *);
    void *trace_user;
    /* last run */
    npuc_err err;
    sim_op_info *ops;
    size_t n_ops, cap_ops;
    uint64_t cycles;
};

int sim_npu_create(eu_variant v, const sim_system *sys, sim_npu **out, npuc_err *err)
{
    *out = NULL;
    if (!eu_variant_get(v))
        return npuc_errf(err, NPUC_E_INVALID, "unknown NPU variant %d", (int)v);
    sim_npu *n = calloc(1, sizeof *n);
    if (!n)
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory for the virtual NPU");
    n->variant = v;
    if (sys)
        n->sys = *sys;
    else
        snprintf(n->sys.name, sizeof n->sys.name, "ideal");   /* zeroed: ideal memory (sim.h) */
    size_t shram = (size_t)eu_variant_shram_banks(v) * EU_SHRAM_BANK_BYTES;
    sim_ctx_init(&n->ctx, v, n->shram, shram);
    n->ctx.win = n->win;
    n->ctx.basep = n->basep;
    sim_state_reset(&n->state);
    *out = n;
    return NPUC_OK;
}

void sim_npu_free(sim_npu *npu)
{
    if (!npu)
        return;
    sim_ctx_free(&npu->ctx);
    free(npu->ops);
    free(npu);
}

eu_variant sim_npu_variant(const sim_npu *npu) { return npu->variant; }

int sim_npu_map(sim_npu *npu, uint64_t bus, void *host, size_t size, bool writable, npuc_err *err)
{
    if (npu->n_win == SIM_MAX_WINDOWS)
        return npuc_errf(err, NPUC_E_INVALID, "NPU memory map full (%d windows)", SIM_MAX_WINDOWS);
    if (!host && size)
        return npuc_errf(err, NPUC_E_INVALID, "NPU memory window at 0x%llx has no host memory",
                         (unsigned long long)bus);
    if (bus + size < bus)
        return npuc_errf(err, NPUC_E_INVALID, "NPU memory window at 0x%llx of %zu bytes wraps",
                         (unsigned long long)bus, size);
    uint64_t limit = eu_variant_is_u65(npu->variant) ? (1ull << 40) : (1ull << 32);
    if (bus + size > limit)
        return npuc_errf(err, NPUC_E_INVALID,
                         "NPU memory window 0x%llx + %zu bytes is beyond the %s's %d-bit bus",
                         (unsigned long long)bus, size, eu_variant_name(npu->variant),
                         eu_variant_is_u65(npu->variant) ? 40 : 32);
    for (size_t i = 0; i < npu->n_win; i++) {
        const sim_window *w = &npu->win[i];
        if (bus < w->bus + w->size && w->bus < bus + size)
            return npuc_errf(err, NPUC_E_INVALID,
                             "NPU memory window 0x%llx + %zu bytes overlaps window 0x%llx + %zu",
                             (unsigned long long)bus, size, (unsigned long long)w->bus, w->size);
    }
    npu->win[npu->n_win++] = (sim_window){bus, host, size, writable};
    npu->ctx.n_win = npu->n_win;
    return NPUC_OK;
}

void sim_npu_unmap_all(sim_npu *npu)
{
    npu->n_win = 0;
    npu->ctx.n_win = 0;
}

void sim_npu_set_work_limit(sim_npu *npu, uint64_t max_work) { npu->ctx.max_work = max_work; }

void sim_npu_set_irq(sim_npu *npu, void (*fn)(void *), void *user)
{
    npu->irq = fn;
    npu->irq_user = user;
}

void sim_npu_set_trace(sim_npu *npu, void (*fn)(void *, const char *), void *user)
{
    npu->trace = fn;
    npu->trace_user = user;
}

const char *sim_npu_error(const sim_npu *npu) { return npu->err.code ? npu->err.msg : ""; }

const sim_op_info *sim_npu_ops(const sim_npu *npu, size_t *n)
{
    *n = npu->n_ops;
    return npu->ops;
}

uint64_t sim_npu_run_cycles(const sim_npu *npu) { return npu->cycles; }

/* ------------------------------------------------------------- reset */

static void soft_reset(sim_npu *n, uint32_t reset_value)
{
    n->status = 0;
    n->qread = 0;
    n->cmd &= EU_CMD_Q_MASK;   /* clock/power Q bits survive */
    n->prot = reset_value & EU_PROT_MASK;
    sim_state_reset(&n->state);
    memset(n->shram, 0, sizeof n->shram);
    memset(n->basep, 0, sizeof n->basep);
    n->qbase = 0;
    n->qsize = 0;
}

/* ------------------------------------------------------------- PMU */

static uint64_t event_count(const sim_npu *n, uint32_t ev)
{
    uint64_t beat = eu_variant_get(n->variant)->axi_bits / 8u, sum = 0;
    switch (ev & EU_PMU_EVENT_MASK) {
    case EU_PMU_EV_CYCLE:
    case EU_PMU_EV_NPU_ACTIVE:
        return n->cycles;
    case EU_PMU_EV_MAC_ACTIVE:
    case EU_PMU_EV_MAC_ACTIVE_8BIT:
    case EU_PMU_EV_MAC_ACTIVE_16BIT:
        for (size_t i = 0; i < n->n_ops; i++) {
            const sim_op_info *o = &n->ops[i];
            if (o->kind == SIM_K_DMA || o->kind == SIM_K_ELEMENTWISE)
                continue;
            if ((ev == EU_PMU_EV_MAC_ACTIVE_8BIT && o->ifm_bits != 8) ||
                (ev == EU_PMU_EV_MAC_ACTIVE_16BIT && o->ifm_bits != 16))
                continue;
            sum += o->cycles_compute;
        }
        return sum;
    case EU_PMU_EV_AO_ACTIVE:
        for (size_t i = 0; i < n->n_ops; i++)
            if (n->ops[i].kind != SIM_K_DMA)
                sum += n->ops[i].cycles_compute;
        return sum;
    case EU_PMU_EV_AXI0_RD_DATA_BEAT_RECEIVED: case EU_PMU_EV_AXI0_WR_DATA_BEAT_WRITTEN:
    case EU_PMU_EV_AXI1_RD_DATA_BEAT_RECEIVED: case EU_PMU_EV_AXI1_WR_DATA_BEAT_WRITTEN: {
        int port = (ev & EU_PMU_EVENT_MASK) >= EU_PMU_EV_AXI1;
        bool rd = (ev & EU_PMU_EVENT_MASK) == EU_PMU_EV_AXI0_RD_DATA_BEAT_RECEIVED || (ev & EU_PMU_EVENT_MASK) == EU_PMU_EV_AXI1_RD_DATA_BEAT_RECEIVED;
        for (size_t i = 0; i < n->n_ops; i++)
            sum += rd ? n->ops[i].axi_read[port] : n->ops[i].axi_write[port];
        return (sum + beat - 1) / beat;
    }
    default:
        return 0;
    }
}

static void pmu_account(sim_npu *n)
{
    if (!(n->pmcr & EU_PMCR_CNT_EN))
        return;
    if (n->pmcnten & EU_PMU_CCNT_BIT)
        n->pmccntr = (n->pmccntr + n->cycles) & ((1ull << EU_PMCCNTR_BITS) - 1);
    for (int i = 0; i < EU_PMU_NCOUNTERS; i++) {
        if (!(n->pmcnten & (1u << i)))
            continue;
        uint64_t v = (uint64_t)n->pmevcntr[i] + event_count(n, n->pmevtyper[i]);
        if (v > 0xFFFFFFFFu)
            n->pmovs |= 1u << i;
        n->pmevcntr[i] = (uint32_t)v;
    }
}

/* ------------------------------------------------------------- run */

static int push_op(sim_npu *n, const sim_op_info *info)
{
    if (n->n_ops == n->cap_ops) {
        size_t cap = n->cap_ops ? n->cap_ops * 2 : 64;
        sim_op_info *p = realloc(n->ops, cap * sizeof *p);
        if (!p)
            return -1;
        n->ops = p;
        n->cap_ops = cap;
    }
    n->ops[n->n_ops++] = *info;
    return 0;
}

static void raise_irq(sim_npu *n)
{
    n->status |= EU_STATUS_IRQ_RAISED;
    if (n->irq)
        n->irq(n->irq_user);
}

/* Runs the queue; returns the STATUS error bits (0 on success). */
static uint32_t run_queue(sim_npu *n)
{
    npuc_err *err = &n->err;
    err->code = 0;
    err->msg[0] = 0;
    n->n_ops = 0;
    n->cycles = 0;
    n->ctx.n_win = n->n_win;
    uint8_t *stream = NULL;
    /* fetch the stream (QCONFIG's attribute only matters for timing) */
    for (size_t i = 0; i < n->n_win && n->qsize; i++) {
        const sim_window *w = &n->win[i];
        if (n->qbase >= w->bus && n->qbase - w->bus <= w->size &&
            n->qsize <= w->size - (n->qbase - w->bus))
            stream = w->host + (n->qbase - w->bus);
    }
    if (!stream) {
        npuc_errf(err, NPUC_E_RUNTIME,
                  "command stream at bus 0x%llx, %u bytes (QBASE/QSIZE) is %s",
                  (unsigned long long)n->qbase, n->qsize,
                  n->qsize ? "outside the memory mapped for the NPU" : "empty");
        return EU_STATUS_BUS_STATUS;   /* faulting channel 0: command read */
    }
    if (n->qsize % 4) {
        npuc_errf(err, NPUC_E_FORMAT, "command stream: QSIZE %u is not a multiple of 4", n->qsize);
        return EU_STATUS_CMD_PARSE_ERROR;
    }
    size_t off = 0, index = 0;
    uint8_t wait_kind = 0, wait_count = 0;
    char line[160];
    while (off < n->qsize) {
        sim_cmd c;
        n->qread = (uint32_t)off;
        if (sim_cmd_decode(stream, n->qsize, off, n->variant, &c, err))
            return EU_STATUS_CMD_PARSE_ERROR;
        if (n->trace) {
            sim_cmd_format(&c, line, sizeof line);
            n->trace(n->trace_user, line);
        }
        off += c.is_cmd1 ? 8 : 4;
        if (c.code == EU_OP_STOP) {
            n->qread = (uint32_t)off;
            return 0;
        }
        if (c.code == EU_OP_IRQ) {
            raise_irq(n);
        } else if (c.code == EU_OP_DMA_WAIT || c.code == EU_OP_KERNEL_WAIT) {
            wait_kind = c.code == EU_OP_DMA_WAIT ? 1 : 2;
            wait_count = (uint8_t)eu_unpack(c.code, EU_F_VALUE, c.operand);
        } else if (eu_cmd_is_kernel_op(c.code) || c.code == EU_OP_DMA_START) {
            if (sim_exec_op(&n->ctx, &n->state, &c, err)) {
                npuc_err_prefix(err, "command stream byte 0x%04zx", c.offset);
                switch (n->ctx.fault) {
                case SIM_FAULT_BUS: return EU_STATUS_BUS_STATUS;
                case SIM_FAULT_WD: return EU_STATUS_WD_FAULT;
                default: return EU_STATUS_CMD_PARSE_ERROR;
                }
            }
            sim_op_info info;
            memset(&info, 0, sizeof info);
            sim_op_info_from_state(&n->state, &c, index, n->variant, &info);
            info.wait_kind = wait_kind;
            info.wait_count = wait_count;
            wait_kind = wait_count = 0;
            if (push_op(n, &info)) {
                npuc_errf(err, NPUC_E_NOMEM, "out of memory for operation records");
                return EU_STATUS_CMD_PARSE_ERROR;
            }
        } else {
            sim_state_apply(&n->state, &c, n->variant);
        }
        index++;
    }
    n->qread = (uint32_t)off;
    npuc_errf(err, NPUC_E_FORMAT,
              "command stream byte 0x%04zx: stream of %u bytes ends without NPU_OP_STOP", off,
              n->qsize);
    return EU_STATUS_CMD_PARSE_ERROR;
}

static void start(sim_npu *n)
{
    if (n->status & EU_STATUS_STATE)
        return;
    n->status &= ~(EU_STATUS_CMD_END_REACHED | EU_STATUS_CMD_PARSE_ERROR |
                   EU_STATUS_BUS_STATUS | EU_STATUS_WD_FAULT | EU_STATUS_FAULTING_CHANNEL_MASK |
                   EU_STATUS_FAULTING_INTERFACE);
    n->status |= EU_STATUS_STATE;
    uint32_t e = run_queue(n);
    if (n->n_ops)
        n->cycles = sim_perf_estimate(n->variant, &n->sys, n->ops, n->n_ops);
    pmu_account(n);
    n->status &= ~EU_STATUS_STATE;
    if (e) {
        n->status |= e;
        if (e & EU_STATUS_BUS_STATUS) {
            /* faulting channel: 0 command read unless the message names data */
            unsigned ch = EU_FAULT_CH_CMD;
            if (strstr(n->err.msg, "OFM")) ch = EU_FAULT_CH_OFM;
            else if (strstr(n->err.msg, "DMA destination")) ch = EU_FAULT_CH_MEM2MEM_WRITE;
            else if (strstr(n->err.msg, "DMA")) ch = EU_FAULT_CH_MEM2MEM_READ;
            else if (strstr(n->err.msg, "weight")) ch = EU_FAULT_CH_WEIGHTS;
            else if (strstr(n->err.msg, "scale")) ch = EU_FAULT_CH_SCALES;
            else if (strstr(n->err.msg, "IFM")) ch = EU_FAULT_CH_IFM;
            n->status |= ch << EU_STATUS_FAULTING_CHANNEL_SHIFT;
        }
    } else {
        n->status |= EU_STATUS_CMD_END_REACHED;
    }
    raise_irq(n);
}

/* ----------------------------------------------------------- MMIO */

/* Index of a register of a bank (BASEPn pairs, PMEVCNTRn, ...) at off, or
 * -1 if off is not in the bank. */
static int bank_index(uint32_t off, uint32_t first, unsigned n, unsigned stride)
{
    return off >= first && off < first + n * stride ? (int)((off - first) / stride) : -1;
}

uint32_t sim_npu_read(sim_npu *n, uint32_t off)
{
    int i;
    if ((i = bank_index(off, EU_REG_BASEP0, EU_N_REGIONS, 8)) >= 0)
        return off == EU_REG_BASEP_HI(i) ? (uint32_t)(n->basep[i] >> 32) : (uint32_t)n->basep[i];
    if ((i = bank_index(off, EU_REG_PMEVCNTR0, EU_PMU_NCOUNTERS, 4)) >= 0)
        return n->pmevcntr[i];
    if ((i = bank_index(off, EU_REG_PMEVTYPER0, EU_PMU_NCOUNTERS, 4)) >= 0)
        return n->pmevtyper[i];
    if ((i = bank_index(off, EU_REG_AXI_LIMIT0, EU_N_AXI_LIMIT, 4)) >= 0)
        return n->axi_limit[i];
    switch (off) {
    case EU_REG_ID: return eu_variant_get(n->variant)->id;
    case EU_REG_STATUS: return n->status;
    case EU_REG_CMD: return n->cmd;
    case EU_REG_RESET: return 0;
    case EU_REG_QBASE: return (uint32_t)n->qbase;
    case EU_REG_QBASE_HI: return (uint32_t)(n->qbase >> 32);
    case EU_REG_QREAD: return n->qread;
    case EU_REG_QCONFIG: return n->qconfig;
    case EU_REG_QSIZE: return n->qsize;
    case EU_REG_PROT: return n->prot;
    case EU_REG_CONFIG: return eu_variant_config_word(n->variant);
    case EU_REG_LOCK: return n->lock;
    case EU_REG_REGIONCFG: return n->regioncfg;
    case EU_REG_PMCR:
        return (n->pmcr & EU_PMCR_RW_MASK) | (uint32_t)EU_PMU_NCOUNTERS << EU_PMCR_NUM_EVENT_CNT_SHIFT;
    case EU_REG_PMCNTENSET: case EU_REG_PMCNTENCLR: return n->pmcnten;
    case EU_REG_PMOVSSET: case EU_REG_PMOVSCLR: return n->pmovs;
    case EU_REG_PMINTSET: case EU_REG_PMINTCLR: return n->pmint;
    case EU_REG_PMCCNTR_LO: return (uint32_t)n->pmccntr;
    case EU_REG_PMCCNTR_HI: return (uint32_t)(n->pmccntr >> 32) & EU_PMCCNTR_HI_MASK;
    case EU_REG_PMCCNTR_CFG: return n->pmccntr_cfg;
    case EU_REG_PMCAXI_CHAN: return n->pmcaxi_chan;
    default: return 0;
    }
}

void sim_npu_write(sim_npu *n, uint32_t off, uint32_t v)
{
    bool u65 = eu_variant_is_u65(n->variant);
    int i;
    if ((i = bank_index(off, EU_REG_BASEP0, EU_N_REGIONS, 8)) >= 0) {
        uint64_t *b = &n->basep[i];
        if (off == EU_REG_BASEP_HI(i)) {
            if (u65)
                *b = (*b & 0xFFFFFFFFu) | (uint64_t)(v & EU_ADDR_HI_MASK) << 32;
        } else {
            *b = (*b & ~0xFFFFFFFFull) | v;
        }
        return;
    }
    if ((i = bank_index(off, EU_REG_PMEVCNTR0, EU_PMU_NCOUNTERS, 4)) >= 0) {
        n->pmevcntr[i] = v;
        return;
    }
    if ((i = bank_index(off, EU_REG_PMEVTYPER0, EU_PMU_NCOUNTERS, 4)) >= 0) {
        n->pmevtyper[i] = v & EU_PMU_EVENT_MASK;
        return;
    }
    if ((i = bank_index(off, EU_REG_AXI_LIMIT0, EU_N_AXI_LIMIT, 4)) >= 0) {
        n->axi_limit[i] = v;
        return;
    }
    switch (off) {
    case EU_REG_CMD:
        n->cmd = v & EU_CMD_Q_MASK;
        if (v & EU_CMD_CLEAR_IRQ)
            n->status &= ~(uint32_t)(EU_STATUS_IRQ_RAISED | EU_STATUS_PMU_IRQ);
        if (v & EU_CMD_CLEAR_IRQ_HISTORY_MASK)
            n->status &= ~(v & EU_CMD_CLEAR_IRQ_HISTORY_MASK);
        if (v & EU_CMD_START)
            start(n);
        break;
    case EU_REG_RESET: soft_reset(n, v); break;
    case EU_REG_QBASE: n->qbase = (n->qbase & ~0xFFFFFFFFull) | v; break;
    case EU_REG_QBASE_HI:
        if (u65)
            n->qbase = (n->qbase & 0xFFFFFFFFu) | (uint64_t)(v & EU_ADDR_HI_MASK) << 32;
        break;
    case EU_REG_QCONFIG: n->qconfig = v & EU_QCONFIG_MASK; break;
    case EU_REG_QSIZE: n->qsize = v; break;
    case EU_REG_LOCK: n->lock = v; break;
    case EU_REG_REGIONCFG: n->regioncfg = v & EU_REGIONCFG_MASK; break;
    case EU_REG_PMCR:
        n->pmcr = v & EU_PMCR_RW_MASK;
        if (v & EU_PMCR_EVENT_CNT_RST)
            memset(n->pmevcntr, 0, sizeof n->pmevcntr);
        if (v & EU_PMCR_CYCLE_CNT_RST)
            n->pmccntr = 0;
        n->pmcr &= ~(uint32_t)(EU_PMCR_EVENT_CNT_RST | EU_PMCR_CYCLE_CNT_RST);   /* self-clearing */
        break;
    case EU_REG_PMCNTENSET: n->pmcnten |= v & EU_PMU_CNT_BITS; break;
    case EU_REG_PMCNTENCLR: n->pmcnten &= ~v; break;
    case EU_REG_PMOVSSET: n->pmovs |= v & EU_PMU_CNT_BITS; break;
    case EU_REG_PMOVSCLR: n->pmovs &= ~v; break;
    case EU_REG_PMINTSET: n->pmint |= v & EU_PMU_CNT_BITS; break;
    case EU_REG_PMINTCLR: n->pmint &= ~v; break;
    case EU_REG_PMCCNTR_LO: n->pmccntr = (n->pmccntr & ~0xFFFFFFFFull) | v; break;
    case EU_REG_PMCCNTR_HI:
        n->pmccntr = (n->pmccntr & 0xFFFFFFFFu) | (uint64_t)(v & EU_PMCCNTR_HI_MASK) << 32;
        break;
    case EU_REG_PMCCNTR_CFG: n->pmccntr_cfg = v & EU_PMCCNTR_CFG_MASK; break;
    case EU_REG_PMCAXI_CHAN: n->pmcaxi_chan = v & EU_PMCAXI_CHAN_MASK; break;
    default: break;   /* read-only or unmodelled debug registers */
    }
}
