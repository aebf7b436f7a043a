/* eu_regs.h: the Ethos-U55/U65 register map (MMIO, offsets from the NPU
 * base) and the bits of its registers: the only definition of these facts
 * in the tree (docs/ethos-u.md 9.4, 9.5). Freestanding: constants and
 * macros only, no code. Used by the driver (src/driver), the virtual NPU
 * (src/sim) and the tests. */
#ifndef NPUC_ETHOSU_EU_REGS_H
#define NPUC_ETHOSU_EU_REGS_H

#include <stdint.h>

/* ------------------------------------------------------------ offsets */

enum {
    EU_REG_ID = 0x000,
    EU_REG_STATUS = 0x004,
    EU_REG_CMD = 0x008,
    EU_REG_RESET = 0x00C,
    EU_REG_QBASE = 0x010,
    EU_REG_QBASE_HI = 0x014,          /* U65 only: address bits 39:32 */
    EU_REG_QREAD = 0x018,
    EU_REG_QCONFIG = 0x01C,
    EU_REG_QSIZE = 0x020,
    EU_REG_PROT = 0x024,
    EU_REG_CONFIG = 0x028,
    EU_REG_LOCK = 0x02C,
    EU_REG_REGIONCFG = 0x03C,
    EU_REG_AXI_LIMIT0 = 0x040,        /* EU_N_AXI_LIMIT registers, +4 each */
    EU_REG_BASEP0 = 0x080,            /* EU_N_REGIONS pairs: low word at +8n, high at +8n+4 */
    EU_REG_PMCR = 0x180,
    EU_REG_PMCNTENSET = 0x184,
    EU_REG_PMCNTENCLR = 0x188,
    EU_REG_PMOVSSET = 0x18C,
    EU_REG_PMOVSCLR = 0x190,
    EU_REG_PMINTSET = 0x194,
    EU_REG_PMINTCLR = 0x198,
    EU_REG_PMCCNTR_LO = 0x1A0,
    EU_REG_PMCCNTR_HI = 0x1A4,
    EU_REG_PMCCNTR_CFG = 0x1A8,
    EU_REG_PMCAXI_CHAN = 0x1AC,
    EU_REG_PMEVCNTR0 = 0x300,         /* EU_PMU_NCOUNTERS registers, +4 each */
    EU_REG_PMEVTYPER0 = 0x380,        /* EU_PMU_NCOUNTERS registers, +4 each */
    EU_REG_SIZE = 0x1000              /* the register window */
};

/* QBASE_HI and BASEPn high words: address bits 39:32 (U65). */
#define EU_ADDR_HI_MASK 0xFFu

enum {
    EU_N_REGIONS = 8,                 /* BASEP0..7: regions of the command stream */
    EU_N_AXI_LIMIT = 4,
    EU_PMU_NCOUNTERS = 4              /* event counters PMEVCNTR0..3 */
};

#define EU_REG_AXI_LIMIT(n) (EU_REG_AXI_LIMIT0 + 4u * (unsigned)(n))
#define EU_REG_BASEP_LO(n) (EU_REG_BASEP0 + 8u * (unsigned)(n))
#define EU_REG_BASEP_HI(n) (EU_REG_BASEP0 + 8u * (unsigned)(n) + 4u)
#define EU_REG_PMEVCNTR(n) (EU_REG_PMEVCNTR0 + 4u * (unsigned)(n))
#define EU_REG_PMEVTYPER(n) (EU_REG_PMEVTYPER0 + 4u * (unsigned)(n))

/* -------------------------------------------------------------- STATUS */

enum {
    EU_STATUS_STATE = 1u << 0,            /* 1: running */
    EU_STATUS_IRQ_RAISED = 1u << 1,
    EU_STATUS_BUS_STATUS = 1u << 2,       /* bus abort */
    EU_STATUS_RESET = 1u << 3,            /* soft reset in progress */
    EU_STATUS_CMD_PARSE_ERROR = 1u << 4,
    EU_STATUS_CMD_END_REACHED = 1u << 5,
    EU_STATUS_PMU_IRQ = 1u << 6,
    EU_STATUS_WD_FAULT = 1u << 7,         /* weight decoder */
    EU_STATUS_ECC_FAULT = 1u << 8,
    EU_STATUS_FAULTING_INTERFACE = 1u << 11,
    EU_STATUS_FAULTING_CHANNEL_SHIFT = 12 /* [15:12] */
};
#define EU_STATUS_FAULTING_CHANNEL_MASK (0xFu << EU_STATUS_FAULTING_CHANNEL_SHIFT)
#define EU_STATUS_IRQ_HISTORY_MASK 0xFFFF0000u
/* The bits that make a run fail (what the driver's IRQ handler checks). */
#define EU_STATUS_ERRORS                                                                 \
    (EU_STATUS_BUS_STATUS | EU_STATUS_CMD_PARSE_ERROR | EU_STATUS_WD_FAULT | EU_STATUS_ECC_FAULT)

/* STATUS.faulting_channel values. */
enum {
    EU_FAULT_CH_CMD = 0, EU_FAULT_CH_IFM = 1, EU_FAULT_CH_WEIGHTS = 2, EU_FAULT_CH_SCALES = 3,
    EU_FAULT_CH_MEM2MEM_READ = 4, EU_FAULT_CH_OFM = 8, EU_FAULT_CH_MEM2MEM_WRITE = 9
};

/* ----------------------------------------------------------------- CMD */

enum {
    EU_CMD_START = 1u << 0,               /* transition to running */
    EU_CMD_CLEAR_IRQ = 1u << 1,
    EU_CMD_CLOCK_Q = 1u << 2,             /* clock Q-channel enable */
    EU_CMD_POWER_Q = 1u << 3,             /* power Q-channel enable */
    EU_CMD_Q_MASK = 0xCu,                 /* the bits a write keeps (clock/power Q) */
    EU_CMD_STOP_REQUEST = 1u << 4
};
#define EU_CMD_CLEAR_IRQ_HISTORY_MASK 0xFFFF0000u

/* ------------------------------------------------- RESET, PROT, QCONFIG */

enum {
    EU_PROT_PRIVILEGED = 1u << 0,         /* RESET: pending CPL, PROT: active CPL */
    EU_PROT_NON_SECURE = 1u << 1,         /* RESET: pending CSL, PROT: active CSL */
    EU_PROT_MASK = 3u,
    EU_QCONFIG_MASK = 3u                  /* [1:0] memory attribute of the command fetch */
};

/* REGIONCFG: 2 bits per region, the memory attribute index 0-3. */
#define EU_REGIONCFG_BITS 2u
#define EU_REGIONCFG_MASK 0xFFFFu
#define EU_REGIONCFG(region, attr) ((uint32_t)(attr) << (EU_REGIONCFG_BITS * (unsigned)(region)))

/* AXI_LIMITn fields. */
#define EU_AXI_LIMIT_MAX_BEATS(b) ((uint32_t)(b) & 3u)             /* 0 64B, 1 128B, 2 256B */
#define EU_AXI_LIMIT_MEMTYPE(m) (((uint32_t)(m) & 0xFu) << 4)
/* outstanding reads - 1 at [16+], writes - 1 at [24+] (U55 up to 32/16, U65 64/32) */
#define EU_AXI_LIMIT_MAX_READS(n) (((uint32_t)(n) - 1u) << 16)
#define EU_AXI_LIMIT_MAX_WRITES(n) (((uint32_t)(n) - 1u) << 24)

/* ----------------------------------------------------------------- PMU */

enum {
    EU_PMCR_CNT_EN = 1u << 0,
    EU_PMCR_EVENT_CNT_RST = 1u << 1,
    EU_PMCR_CYCLE_CNT_RST = 1u << 2,
    EU_PMCR_MASK_EN = 1u << 3,            /* allow NPU_OP_PMU_MASK */
    EU_PMCR_RW_MASK = 0xFu,               /* the writable bits */
    EU_PMCR_NUM_EVENT_CNT_SHIFT = 11      /* [15:11] number of event counters (RO) */
};
/* PMCNTEN/PMOVS/PMINT: bit n = event counter n, bit 31 = cycle counter. */
#define EU_PMU_CCNT_BIT (1u << 31)
#define EU_PMU_CNT_BITS (EU_PMU_CCNT_BIT | ((1u << EU_PMU_NCOUNTERS) - 1u))
#define EU_PMCCNTR_HI_MASK 0xFFFFu        /* 48-bit cycle counter: hi word [15:0] */
#define EU_PMCCNTR_BITS 48
#define EU_PMU_EVENT_MASK 0x3FFu          /* PMEVTYPER [9:0], PMCCNTR_CFG start/stop */
#define EU_PMCCNTR_CFG_START_SHIFT 0
#define EU_PMCCNTR_CFG_STOP_SHIFT 16
#define EU_PMCCNTR_CFG_MASK ((EU_PMU_EVENT_MASK << EU_PMCCNTR_CFG_START_SHIFT) | \
                             (EU_PMU_EVENT_MASK << EU_PMCCNTR_CFG_STOP_SHIFT))
#define EU_PMCAXI_CHAN_MASK 0x7FFu

/* PMEVTYPER event numbers (AXI1 events are the AXI0 ones + 0x100). */
enum {
    EU_PMU_EV_NO_EVENT = 0x00,
    EU_PMU_EV_CYCLE = 0x11,
    EU_PMU_EV_NPU_IDLE = 0x20,
    EU_PMU_EV_CC_STALLED_ON_BLOCKDEP = 0x21,
    EU_PMU_EV_CC_STALLED_ON_SHRAM_RECONFIG = 0x22,
    EU_PMU_EV_NPU_ACTIVE = 0x23,
    EU_PMU_EV_MAC_ACTIVE = 0x30,
    EU_PMU_EV_MAC_ACTIVE_8BIT = 0x31,
    EU_PMU_EV_MAC_ACTIVE_16BIT = 0x32,
    EU_PMU_EV_MAC_DPU_ACTIVE = 0x33,
    EU_PMU_EV_MAC_STALLED_BY_WD_ACC = 0x34,
    EU_PMU_EV_MAC_STALLED_BY_WD = 0x35,
    EU_PMU_EV_MAC_STALLED_BY_ACC = 0x36,
    EU_PMU_EV_MAC_STALLED_BY_IB = 0x37,
    EU_PMU_EV_MAC_ACTIVE_32BIT = 0x38,
    EU_PMU_EV_MAC_STALLED_BY_INT_W = 0x39,
    EU_PMU_EV_MAC_STALLED_BY_INT_ACC = 0x3A,
    EU_PMU_EV_AO_ACTIVE = 0x40,
    EU_PMU_EV_AO_ACTIVE_8BIT = 0x41,
    EU_PMU_EV_AO_ACTIVE_16BIT = 0x42,
    EU_PMU_EV_AO_STALLED_BY_OFMP_OB = 0x43,
    EU_PMU_EV_AO_STALLED_BY_OFMP = 0x44,
    EU_PMU_EV_AO_STALLED_BY_OB = 0x45,
    EU_PMU_EV_AO_STALLED_BY_ACC_IB = 0x46,
    EU_PMU_EV_AO_STALLED_BY_ACC = 0x47,
    EU_PMU_EV_AO_STALLED_BY_IB = 0x48,
    EU_PMU_EV_WD_ACTIVE = 0x50,
    EU_PMU_EV_WD_STALLED = 0x51,
    EU_PMU_EV_WD_STALLED_BY_WS = 0x52,
    EU_PMU_EV_WD_STALLED_BY_WD_BUF = 0x53,
    EU_PMU_EV_WD_PARSE_ACTIVE = 0x54,
    EU_PMU_EV_WD_PARSE_STALLED = 0x55,
    EU_PMU_EV_WD_PARSE_STALLED_IN = 0x56,
    EU_PMU_EV_WD_PARSE_STALLED_OUT = 0x57,
    EU_PMU_EV_WD_TRANS_WS = 0x58,
    EU_PMU_EV_WD_TRANS_WB = 0x59,
    EU_PMU_EV_WD_TRANS_DW0 = 0x5A,
    EU_PMU_EV_WD_TRANS_DW1 = 0x5B,
    EU_PMU_EV_AXI0_RD_TRANS_ACCEPTED = 0x80,
    EU_PMU_EV_AXI0_RD_TRANS_COMPLETED = 0x81,
    EU_PMU_EV_AXI0_RD_DATA_BEAT_RECEIVED = 0x82,
    EU_PMU_EV_AXI0_RD_TRAN_REQ_STALLED = 0x83,
    EU_PMU_EV_AXI0_WR_TRANS_ACCEPTED = 0x84,
    EU_PMU_EV_AXI0_WR_TRANS_COMPLETED_M = 0x85,
    EU_PMU_EV_AXI0_WR_TRANS_COMPLETED_S = 0x86,
    EU_PMU_EV_AXI0_WR_DATA_BEAT_WRITTEN = 0x87,
    EU_PMU_EV_AXI0_WR_TRAN_REQ_STALLED = 0x88,
    EU_PMU_EV_AXI0_WR_DATA_BEAT_STALLED = 0x89,
    EU_PMU_EV_AXI0_ENABLED_CYCLES = 0x8C,
    EU_PMU_EV_AXI0_RD_STALL_LIMIT = 0x8E,
    EU_PMU_EV_AXI0_WR_STALL_LIMIT = 0x8F,
    EU_PMU_EV_AXI_LATENCY_ANY = 0xA0,
    EU_PMU_EV_AXI_LATENCY_32 = 0xA1,
    EU_PMU_EV_AXI_LATENCY_64 = 0xA2,
    EU_PMU_EV_AXI_LATENCY_128 = 0xA3,
    EU_PMU_EV_AXI_LATENCY_256 = 0xA4,
    EU_PMU_EV_AXI_LATENCY_512 = 0xA5,
    EU_PMU_EV_AXI_LATENCY_1024 = 0xA6,
    EU_PMU_EV_ECC_DMA = 0xB0,
    EU_PMU_EV_ECC_SB0 = 0xB1,
    EU_PMU_EV_AXI1 = 0x100,               /* added to an AXI0 event: the AXI1 one */
    EU_PMU_EV_AXI1_RD_TRANS_ACCEPTED = 0x180,
    EU_PMU_EV_AXI1_RD_TRANS_COMPLETED = 0x181,
    EU_PMU_EV_AXI1_RD_DATA_BEAT_RECEIVED = 0x182,
    EU_PMU_EV_AXI1_RD_TRAN_REQ_STALLED = 0x183,
    EU_PMU_EV_AXI1_WR_TRANS_ACCEPTED = 0x184,
    EU_PMU_EV_AXI1_WR_TRANS_COMPLETED_M = 0x185,
    EU_PMU_EV_AXI1_WR_TRANS_COMPLETED_S = 0x186,
    EU_PMU_EV_AXI1_WR_DATA_BEAT_WRITTEN = 0x187,
    EU_PMU_EV_AXI1_WR_TRAN_REQ_STALLED = 0x188,
    EU_PMU_EV_AXI1_WR_DATA_BEAT_STALLED = 0x189,
    EU_PMU_EV_AXI1_ENABLED_CYCLES = 0x18C,
    EU_PMU_EV_AXI1_RD_STALL_LIMIT = 0x18E,
    EU_PMU_EV_AXI1_WR_STALL_LIMIT = 0x18F,
    EU_PMU_EV_ECC_SB1 = 0x1B1
};

/* -------------------------------------------------------------- CONFIG */

#define EU_CONFIG_MACS_LOG2(c) ((uint32_t)(c) & 0xFu)             /* log2 MACs/cycle */
#define EU_CONFIG_CMD_STREAM_VERSION(c) (((uint32_t)(c) >> 4) & 0xFu)
#define EU_CONFIG_SHRAM_KIB(c) (((uint32_t)(c) >> 8) & 0xFFu)
#define EU_CONFIG_FUNCTIONAL_SAFETY(c) (((uint32_t)(c) >> 26) & 1u)
#define EU_CONFIG_CUSTOM_DMA(c) (((uint32_t)(c) >> 27) & 1u)
#define EU_CONFIG_PRODUCT(c) (((uint32_t)(c) >> 28) & 0xFu)
/* A CONFIG word from its fields (command stream version 0, no custom DMA). */
#define EU_CONFIG_WORD(product, shram_kib, macs_log2)                                     \
    (((uint32_t)(product) << 28) | ((uint32_t)(shram_kib) << 8) | (uint32_t)(macs_log2))

/* CONFIG.product */
enum { EU_PRODUCT_U55 = 0, EU_PRODUCT_U65 = 1 };

/* ------------------------------------------------------------------ ID */

#define EU_ID_VERSION_STATUS(i) ((uint32_t)(i) & 0xFu)
#define EU_ID_VERSION_MINOR(i) (((uint32_t)(i) >> 4) & 0xFu)
#define EU_ID_VERSION_MAJOR(i) (((uint32_t)(i) >> 8) & 0xFu)
#define EU_ID_PRODUCT_MAJOR(i) (((uint32_t)(i) >> 12) & 0xFu)
#define EU_ID_ARCH_PATCH(i) (((uint32_t)(i) >> 16) & 0xFu)
#define EU_ID_ARCH_MINOR(i) (((uint32_t)(i) >> 20) & 0xFFu)
#define EU_ID_ARCH_MAJOR(i) (((uint32_t)(i) >> 28) & 0xFu)
/* An ID word for an architecture version (version fields 0). */
#define EU_ID_WORD(major, minor, patch)                                                   \
    (((uint32_t)(major) << 28) | ((uint32_t)(minor) << 20) | ((uint32_t)(patch) << 16))

#endif /* NPUC_ETHOSU_EU_REGS_H */
