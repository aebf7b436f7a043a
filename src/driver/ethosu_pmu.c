/* ethosu_pmu: the PMU functions of include/pmu_ethosu.h over the device
 * layer. Event numbers: the PMEVTYPER encoding of the Ethos-U55/U65
 * (EU_PMU_EV_*, src/ethosu/eu_regs.h; docs/ethos-u.md 9.4), indexed by enum
 * ethosu_pmu_event_type. */
#include "pmu_ethosu.h"
#include "driver/ethosu_device.h"

static const uint16_t event_number[ETHOSU_PMU_SENTINEL] = {
    [ETHOSU_PMU_NO_EVENT] = EU_PMU_EV_NO_EVENT,
    [ETHOSU_PMU_CYCLE] = EU_PMU_EV_CYCLE,
    [ETHOSU_PMU_NPU_IDLE] = EU_PMU_EV_NPU_IDLE,
    [ETHOSU_PMU_CC_STALLED_ON_BLOCKDEP] = EU_PMU_EV_CC_STALLED_ON_BLOCKDEP,
    [ETHOSU_PMU_CC_STALLED_ON_SHRAM_RECONFIG] = EU_PMU_EV_CC_STALLED_ON_SHRAM_RECONFIG,
    [ETHOSU_PMU_NPU_ACTIVE] = EU_PMU_EV_NPU_ACTIVE,
    [ETHOSU_PMU_MAC_ACTIVE] = EU_PMU_EV_MAC_ACTIVE,
    [ETHOSU_PMU_MAC_ACTIVE_8BIT] = EU_PMU_EV_MAC_ACTIVE_8BIT,
    [ETHOSU_PMU_MAC_ACTIVE_16BIT] = EU_PMU_EV_MAC_ACTIVE_16BIT,
    [ETHOSU_PMU_MAC_DPU_ACTIVE] = EU_PMU_EV_MAC_DPU_ACTIVE,
    [ETHOSU_PMU_MAC_STALLED_BY_WD_ACC] = EU_PMU_EV_MAC_STALLED_BY_WD_ACC,
    [ETHOSU_PMU_MAC_STALLED_BY_WD] = EU_PMU_EV_MAC_STALLED_BY_WD,
    [ETHOSU_PMU_MAC_STALLED_BY_ACC] = EU_PMU_EV_MAC_STALLED_BY_ACC,
    [ETHOSU_PMU_MAC_STALLED_BY_IB] = EU_PMU_EV_MAC_STALLED_BY_IB,
    [ETHOSU_PMU_MAC_ACTIVE_32BIT] = EU_PMU_EV_MAC_ACTIVE_32BIT,
    [ETHOSU_PMU_MAC_STALLED_BY_INT_W] = EU_PMU_EV_MAC_STALLED_BY_INT_W,
    [ETHOSU_PMU_MAC_STALLED_BY_INT_ACC] = EU_PMU_EV_MAC_STALLED_BY_INT_ACC,
    [ETHOSU_PMU_AO_ACTIVE] = EU_PMU_EV_AO_ACTIVE,
    [ETHOSU_PMU_AO_ACTIVE_8BIT] = EU_PMU_EV_AO_ACTIVE_8BIT,
    [ETHOSU_PMU_AO_ACTIVE_16BIT] = EU_PMU_EV_AO_ACTIVE_16BIT,
    [ETHOSU_PMU_AO_STALLED_BY_OFMP_OB] = EU_PMU_EV_AO_STALLED_BY_OFMP_OB,
    [ETHOSU_PMU_AO_STALLED_BY_OFMP] = EU_PMU_EV_AO_STALLED_BY_OFMP,
    [ETHOSU_PMU_AO_STALLED_BY_OB] = EU_PMU_EV_AO_STALLED_BY_OB,
    [ETHOSU_PMU_AO_STALLED_BY_ACC_IB] = EU_PMU_EV_AO_STALLED_BY_ACC_IB,
    [ETHOSU_PMU_AO_STALLED_BY_ACC] = EU_PMU_EV_AO_STALLED_BY_ACC,
    [ETHOSU_PMU_AO_STALLED_BY_IB] = EU_PMU_EV_AO_STALLED_BY_IB,
    [ETHOSU_PMU_WD_ACTIVE] = EU_PMU_EV_WD_ACTIVE,
    [ETHOSU_PMU_WD_STALLED] = EU_PMU_EV_WD_STALLED,
    [ETHOSU_PMU_WD_STALLED_BY_WS] = EU_PMU_EV_WD_STALLED_BY_WS,
    [ETHOSU_PMU_WD_STALLED_BY_WD_BUF] = EU_PMU_EV_WD_STALLED_BY_WD_BUF,
    [ETHOSU_PMU_WD_PARSE_ACTIVE] = EU_PMU_EV_WD_PARSE_ACTIVE,
    [ETHOSU_PMU_WD_PARSE_STALLED] = EU_PMU_EV_WD_PARSE_STALLED,
    [ETHOSU_PMU_WD_PARSE_STALLED_IN] = EU_PMU_EV_WD_PARSE_STALLED_IN,
    [ETHOSU_PMU_WD_PARSE_STALLED_OUT] = EU_PMU_EV_WD_PARSE_STALLED_OUT,
    [ETHOSU_PMU_WD_TRANS_WS] = EU_PMU_EV_WD_TRANS_WS,
    [ETHOSU_PMU_WD_TRANS_WB] = EU_PMU_EV_WD_TRANS_WB,
    [ETHOSU_PMU_WD_TRANS_DW0] = EU_PMU_EV_WD_TRANS_DW0,
    [ETHOSU_PMU_WD_TRANS_DW1] = EU_PMU_EV_WD_TRANS_DW1,
    [ETHOSU_PMU_AXI0_RD_TRANS_ACCEPTED] = EU_PMU_EV_AXI0_RD_TRANS_ACCEPTED,
    [ETHOSU_PMU_AXI0_RD_TRANS_COMPLETED] = EU_PMU_EV_AXI0_RD_TRANS_COMPLETED,
    [ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED] = EU_PMU_EV_AXI0_RD_DATA_BEAT_RECEIVED,
    [ETHOSU_PMU_AXI0_RD_TRAN_REQ_STALLED] = EU_PMU_EV_AXI0_RD_TRAN_REQ_STALLED,
    [ETHOSU_PMU_AXI0_WR_TRANS_ACCEPTED] = EU_PMU_EV_AXI0_WR_TRANS_ACCEPTED,
    [ETHOSU_PMU_AXI0_WR_TRANS_COMPLETED_M] = EU_PMU_EV_AXI0_WR_TRANS_COMPLETED_M,
    [ETHOSU_PMU_AXI0_WR_TRANS_COMPLETED_S] = EU_PMU_EV_AXI0_WR_TRANS_COMPLETED_S,
    [ETHOSU_PMU_AXI0_WR_DATA_BEAT_WRITTEN] = EU_PMU_EV_AXI0_WR_DATA_BEAT_WRITTEN,
    [ETHOSU_PMU_AXI0_WR_TRAN_REQ_STALLED] = EU_PMU_EV_AXI0_WR_TRAN_REQ_STALLED,
    [ETHOSU_PMU_AXI0_WR_DATA_BEAT_STALLED] = EU_PMU_EV_AXI0_WR_DATA_BEAT_STALLED,
    [ETHOSU_PMU_AXI0_ENABLED_CYCLES] = EU_PMU_EV_AXI0_ENABLED_CYCLES,
    [ETHOSU_PMU_AXI0_RD_STALL_LIMIT] = EU_PMU_EV_AXI0_RD_STALL_LIMIT,
    [ETHOSU_PMU_AXI0_WR_STALL_LIMIT] = EU_PMU_EV_AXI0_WR_STALL_LIMIT,
    [ETHOSU_PMU_AXI_LATENCY_ANY] = EU_PMU_EV_AXI_LATENCY_ANY,
    [ETHOSU_PMU_AXI_LATENCY_32] = EU_PMU_EV_AXI_LATENCY_32,
    [ETHOSU_PMU_AXI_LATENCY_64] = EU_PMU_EV_AXI_LATENCY_64,
    [ETHOSU_PMU_AXI_LATENCY_128] = EU_PMU_EV_AXI_LATENCY_128,
    [ETHOSU_PMU_AXI_LATENCY_256] = EU_PMU_EV_AXI_LATENCY_256,
    [ETHOSU_PMU_AXI_LATENCY_512] = EU_PMU_EV_AXI_LATENCY_512,
    [ETHOSU_PMU_AXI_LATENCY_1024] = EU_PMU_EV_AXI_LATENCY_1024,
    [ETHOSU_PMU_ECC_DMA] = EU_PMU_EV_ECC_DMA,
    [ETHOSU_PMU_ECC_SB0] = EU_PMU_EV_ECC_SB0,
    [ETHOSU_PMU_AXI1_RD_TRANS_ACCEPTED] = EU_PMU_EV_AXI1_RD_TRANS_ACCEPTED,
    [ETHOSU_PMU_AXI1_RD_TRANS_COMPLETED] = EU_PMU_EV_AXI1_RD_TRANS_COMPLETED,
    [ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED] = EU_PMU_EV_AXI1_RD_DATA_BEAT_RECEIVED,
    [ETHOSU_PMU_AXI1_RD_TRAN_REQ_STALLED] = EU_PMU_EV_AXI1_RD_TRAN_REQ_STALLED,
    [ETHOSU_PMU_AXI1_WR_TRANS_ACCEPTED] = EU_PMU_EV_AXI1_WR_TRANS_ACCEPTED,
    [ETHOSU_PMU_AXI1_WR_TRANS_COMPLETED_M] = EU_PMU_EV_AXI1_WR_TRANS_COMPLETED_M,
    [ETHOSU_PMU_AXI1_WR_TRANS_COMPLETED_S] = EU_PMU_EV_AXI1_WR_TRANS_COMPLETED_S,
    [ETHOSU_PMU_AXI1_WR_DATA_BEAT_WRITTEN] = EU_PMU_EV_AXI1_WR_DATA_BEAT_WRITTEN,
    [ETHOSU_PMU_AXI1_WR_TRAN_REQ_STALLED] = EU_PMU_EV_AXI1_WR_TRAN_REQ_STALLED,
    [ETHOSU_PMU_AXI1_WR_DATA_BEAT_STALLED] = EU_PMU_EV_AXI1_WR_DATA_BEAT_STALLED,
    [ETHOSU_PMU_AXI1_ENABLED_CYCLES] = EU_PMU_EV_AXI1_ENABLED_CYCLES,
    [ETHOSU_PMU_AXI1_RD_STALL_LIMIT] = EU_PMU_EV_AXI1_RD_STALL_LIMIT,
    [ETHOSU_PMU_AXI1_WR_STALL_LIMIT] = EU_PMU_EV_AXI1_WR_STALL_LIMIT,
    [ETHOSU_PMU_ECC_SB1] = EU_PMU_EV_ECC_SB1,
};

#define EVENT_NONE 0xFFFFFFFFu

static uint32_t to_hw(struct ethosu_driver *drv, enum ethosu_pmu_event_type type)
{
    if ((unsigned)type >= (unsigned)ETHOSU_PMU_SENTINEL) {
        ethosu_log_hook(drv, ETHOSU_LOG_ERR, "PMU: unknown event type", (uint64_t)type);
        return EVENT_NONE;
    }
    return event_number[type];
}

static enum ethosu_pmu_event_type from_hw(uint32_t number)
{
    for (int t = 0; t < ETHOSU_PMU_SENTINEL; t++)
        if (event_number[t] == number)
            return (enum ethosu_pmu_event_type)t;
    return ETHOSU_PMU_SENTINEL;
}

static uint32_t rd(struct ethosu_driver *drv, uint32_t off)
{
    return ethosu_dev_read(&drv->dev, off);
}

static void wr(struct ethosu_driver *drv, uint32_t off, uint32_t v)
{
    ethosu_dev_write(&drv->dev, off, v);
}

void ETHOSU_PMU_Enable(struct ethosu_driver *drv)
{
    if (ethosu_request_power(drv))
        return;
    wr(drv, EU_REG_PMCR, (rd(drv, EU_REG_PMCR) & EU_PMCR_MASK_EN) | EU_PMCR_CNT_EN);
}

void ETHOSU_PMU_Disable(struct ethosu_driver *drv)
{
    wr(drv, EU_REG_PMCR, 0);
    ethosu_release_power(drv);
}

uint32_t ETHOSU_PMU_Get_NumEventCounters(void)
{
    return ETHOSU_PMU_NCOUNTERS;
}

void ETHOSU_PMU_Set_EVTYPER(struct ethosu_driver *drv, uint32_t num, enum ethosu_pmu_event_type type)
{
    uint32_t hw = to_hw(drv, type);
    if (num >= ETHOSU_PMU_NCOUNTERS || hw == EVENT_NONE)
        return;
    wr(drv, EU_REG_PMEVTYPER(num), hw);
}

enum ethosu_pmu_event_type ETHOSU_PMU_Get_EVTYPER(struct ethosu_driver *drv, uint32_t num)
{
    if (num >= ETHOSU_PMU_NCOUNTERS)
        return ETHOSU_PMU_SENTINEL;
    return from_hw(rd(drv, EU_REG_PMEVTYPER(num)) & EU_PMU_EVENT_MASK);
}

void ETHOSU_PMU_CYCCNT_Reset(struct ethosu_driver *drv)
{
    wr(drv, EU_REG_PMCR, rd(drv, EU_REG_PMCR) | EU_PMCR_CYCLE_CNT_RST);
}

void ETHOSU_PMU_EVCNTR_ALL_Reset(struct ethosu_driver *drv)
{
    wr(drv, EU_REG_PMCR, rd(drv, EU_REG_PMCR) | EU_PMCR_EVENT_CNT_RST);
}

void ETHOSU_PMU_CNTR_Enable(struct ethosu_driver *drv, uint32_t mask)
{
    wr(drv, EU_REG_PMCNTENSET, mask);
}

void ETHOSU_PMU_CNTR_Disable(struct ethosu_driver *drv, uint32_t mask)
{
    wr(drv, EU_REG_PMCNTENCLR, mask);
}

uint32_t ETHOSU_PMU_CNTR_Status(struct ethosu_driver *drv)
{
    return rd(drv, EU_REG_PMCNTENSET);
}

uint64_t ETHOSU_PMU_Get_CCNTR(struct ethosu_driver *drv)
{
    /* the halves are separate registers: read high, low, high again and
     * take the low word again if the high word moved meanwhile */
    uint32_t hi = rd(drv, EU_REG_PMCCNTR_HI);
    uint32_t lo = rd(drv, EU_REG_PMCCNTR_LO);
    uint32_t hi2 = rd(drv, EU_REG_PMCCNTR_HI);
    if (hi2 != hi)
        lo = rd(drv, EU_REG_PMCCNTR_LO);
    return (uint64_t)(hi2 & EU_PMCCNTR_HI_MASK) << 32 | lo;
}

void ETHOSU_PMU_Set_CCNTR(struct ethosu_driver *drv, uint64_t val)
{
    bool active = (ETHOSU_PMU_CNTR_Status(drv) & ETHOSU_PMU_CCNT_Msk) != 0;
    if (active)
        ETHOSU_PMU_CNTR_Disable(drv, ETHOSU_PMU_CCNT_Msk);
    wr(drv, EU_REG_PMCCNTR_LO, (uint32_t)val);
    wr(drv, EU_REG_PMCCNTR_HI, (uint32_t)(val >> 32) & EU_PMCCNTR_HI_MASK);
    if (active)
        ETHOSU_PMU_CNTR_Enable(drv, ETHOSU_PMU_CCNT_Msk);
}

uint32_t ETHOSU_PMU_Get_EVCNTR(struct ethosu_driver *drv, uint32_t num)
{
    if (num >= ETHOSU_PMU_NCOUNTERS)
        return 0;
    return rd(drv, EU_REG_PMEVCNTR(num));
}

void ETHOSU_PMU_Set_EVCNTR(struct ethosu_driver *drv, uint32_t num, uint32_t val)
{
    if (num >= ETHOSU_PMU_NCOUNTERS)
        return;
    wr(drv, EU_REG_PMEVCNTR(num), val);
}

uint32_t ETHOSU_PMU_Get_CNTR_OVS(struct ethosu_driver *drv)
{
    return rd(drv, EU_REG_PMOVSSET);
}

void ETHOSU_PMU_Set_CNTR_OVS(struct ethosu_driver *drv, uint32_t mask)
{
    wr(drv, EU_REG_PMOVSCLR, mask);
}

void ETHOSU_PMU_Set_CNTR_IRQ_Enable(struct ethosu_driver *drv, uint32_t mask)
{
    wr(drv, EU_REG_PMINTSET, mask);
}

void ETHOSU_PMU_Set_CNTR_IRQ_Disable(struct ethosu_driver *drv, uint32_t mask)
{
    wr(drv, EU_REG_PMINTCLR, mask);
}

uint32_t ETHOSU_PMU_Get_IRQ_Enable(struct ethosu_driver *drv)
{
    return rd(drv, EU_REG_PMINTSET);
}

void ETHOSU_PMU_CNTR_Increment(struct ethosu_driver *drv, uint32_t mask)
{
    /* stop the selected counters, add one, restore the enables */
    uint32_t active = ETHOSU_PMU_CNTR_Status(drv);
    ETHOSU_PMU_CNTR_Disable(drv, mask);
    if (mask & ETHOSU_PMU_CCNT_Msk) {
        uint64_t v = (ETHOSU_PMU_Get_CCNTR(drv) + 1) & ((1ull << EU_PMCCNTR_BITS) - 1);
        wr(drv, EU_REG_PMCCNTR_LO, (uint32_t)v);
        wr(drv, EU_REG_PMCCNTR_HI, (uint32_t)(v >> 32));
    }
    for (uint32_t i = 0; i < ETHOSU_PMU_NCOUNTERS; i++)
        if (mask & (1u << i))
            wr(drv, EU_REG_PMEVCNTR(i), rd(drv, EU_REG_PMEVCNTR(i)) + 1);
    ETHOSU_PMU_CNTR_Enable(drv, active);
}

void ETHOSU_PMU_PMCCNTR_CFG_Set_Start_Event(struct ethosu_driver *drv,
                                            enum ethosu_pmu_event_type start_event)
{
    uint32_t hw = to_hw(drv, start_event);
    if (hw == EVENT_NONE)
        return;
    uint32_t cfg = rd(drv, EU_REG_PMCCNTR_CFG);
    wr(drv, EU_REG_PMCCNTR_CFG, (cfg & ~(EU_PMU_EVENT_MASK << EU_PMCCNTR_CFG_START_SHIFT)) |
                                    hw << EU_PMCCNTR_CFG_START_SHIFT);
}

void ETHOSU_PMU_PMCCNTR_CFG_Set_Stop_Event(struct ethosu_driver *drv,
                                           enum ethosu_pmu_event_type stop_event)
{
    uint32_t hw = to_hw(drv, stop_event);
    if (hw == EVENT_NONE)
        return;
    uint32_t cfg = rd(drv, EU_REG_PMCCNTR_CFG);
    wr(drv, EU_REG_PMCCNTR_CFG, (cfg & ~(EU_PMU_EVENT_MASK << EU_PMCCNTR_CFG_STOP_SHIFT)) |
                                    hw << EU_PMCCNTR_CFG_STOP_SHIFT);
}

uint32_t ETHOSU_PMU_Get_QREAD(struct ethosu_driver *drv)
{
    return rd(drv, EU_REG_QREAD);
}

uint32_t ETHOSU_PMU_Get_STATUS(struct ethosu_driver *drv)
{
    return rd(drv, EU_REG_STATUS);
}
