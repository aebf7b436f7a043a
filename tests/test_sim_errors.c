/* Virtual NPU: one crafted bad stream per checking rule, run through the
 * register file as a driver would. Each must stop with the right STATUS bit
 * (cmd_parse_error, bus_status with the faulting channel, wd_fault), raise
 * the IRQ, and explain itself in sim_npu_error() with the failing command's
 * byte offset. Plus register-file behaviour: ID/CONFIG per variant, RESET,
 * IRQ clear, QREAD and the PMU counters (docs/ethos-u.md 9.4, 9.5). */
#include "test.h"
#include "sim_asm.h"

/* -------------------------------------------------------- a valid op */

/* A 3x3 SAME conv, int8 4x4x8 -> 4x4x8: region 0 = constants (weights,
 * scale records; read-only), region 1 = IFM, region 2 = OFM. Fields let a
 * test break exactly one thing. */
typedef struct skel {
    eu_variant v;
    uint64_t ifm_base, ofm_base, w_base, s_base;
    uint64_t w_len;               /* 0 = the encoded length */
    uint32_t blk_w;               /* 0 = a valid block */
    int ab_start;                 /* -1 = valid */
    int ofm_region;               /* -1 = 2 */
    bool corrupt_weights;         /* ZDIV 4 in the first slice header */
    bool short_weights;           /* a stream with one weight too few */
} skel;

static uint8_t g_const[4096], g_ifm[256], g_ofm[256];

static skel skel_default(eu_variant v)
{
    skel k;
    memset(&k, 0, sizeof k);
    k.v = v;
    k.s_base = 3072;
    k.ab_start = -1;
    k.ofm_region = -1;
    return k;
}

/* Appends the conv to s (and maps the regions in m); returns the byte
 * offset of NPU_OP_CONV. */
static size_t emit_conv(sa_npu *m, sa_stream *s, const skel *k)
{
    sa_fm ifm = sa_fm_make(1, k->ifm_base, 4, 4, 8, 8, true, SA_NHWC);
    sa_fm ofm = sa_fm_make(k->ofm_region < 0 ? 2 : (uint8_t)k->ofm_region, k->ofm_base, 4, 4, 8, 8,
                           true, SA_NHWC);
    for (size_t i = 0; i < sizeof g_ifm; i++) g_ifm[i] = (uint8_t)(i * 13);
    sa_set_ifm(s, &ifm);
    sa_set_pad(s, 1, 1, 1, 1);
    sa_set_upscale(s, 0);
    sa_set_ofm(s, &ofm);
    sa_set_kernel(s, 3, 3, 1, 1, 1, 1, false);
    uint32_t bd = sa_set_config(s, k->v, &ofm, 8, false, false);
    if (k->blk_w) sa_cmd0(s, EU_SET_OFM_BLK_WIDTH_M1, (uint16_t)(k->blk_w - 1));
    if (k->ab_start >= 0) sa_cmd0(s, EU_SET_AB_START, (uint16_t)k->ab_start);
    sim_wgeom g = sa_wgeom(k->v, 8, 8, 3, 3, bd, 1, 1, 8, false, false);
    size_t n = sim_weight_traverse(&g, NULL, 0);
    int16_t w[4096];
    for (size_t i = 0; i < n && i < 4096; i++) w[i] = (int16_t)((int)(i % 7) - 3);
    memset(g_const, 0, sizeof g_const);
    size_t len = sa_mlw_encode(w, k->short_weights ? n - 1 : n, g_const, 3072);
    if (k->corrupt_weights) g_const[0] = (uint8_t)((g_const[0] & ~7u) | 4u);
    for (int o = 0; o < 8; o++) sa_scale_rec(g_const + 3072 + 10 * o, o * 100, 1u << 30, 38);
    sa_set_weights(s, 0, k->w_base, k->w_len ? k->w_len : len);
    sa_set_scales(s, 0, k->s_base, sa_scale_len(8));
    sa_set_ofm_scale(s, 0, 0);
    sa_set_act(s, 0, 0, -128, 127);
    size_t off = sa_here(s);
    sa_cmd0(s, EU_OP_CONV, 0);
    sa_region(m, 0, g_const, sizeof g_const, false);
    sa_region(m, 1, g_ifm, sizeof g_ifm, true);
    sa_region(m, 2, g_ofm, sizeof g_ofm, true);
    return off;
}

/* "command stream byte 0x%04x" for an offset. */
static const char *at(size_t off)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "command stream byte 0x%04zx", off);
    return buf;
}

/* Runs s and checks: STATUS has `bit`, no end reached, IRQ raised and the
 * callback called once, the message names `off` and contains `why`. */
static void expect_fault(sa_npu *m, const sa_stream *s, uint32_t bit, size_t off, const char *why)
{
    int irqs = m->irqs;
    uint32_t st = sa_run(m, s);
    CHECK(st & bit);
    CHECK(!(st & EU_STATUS_CMD_END_REACHED));
    CHECK(!(st & EU_STATUS_STATE));
    CHECK(st & EU_STATUS_IRQ_RAISED);
    CHECK_EQ_INT(m->irqs, irqs + 1);
    CHECK(!sa_status_ok(st));
    const char *e = sim_npu_error(m->npu);
    CHECK_STR_CONTAINS(e, at(off));
    CHECK_STR_CONTAINS(e, why);
    /* exactly one of the error bits */
    uint32_t errs = st & (EU_STATUS_BUS_STATUS | EU_STATUS_CMD_PARSE_ERROR | EU_STATUS_WD_FAULT);
    CHECK_EQ_INT(errs, bit);
}

static unsigned fault_channel(sa_npu *m) { return (sim_npu_read(m->npu, EU_REG_STATUS) >> 12) & 0xF; }

/* ------------------------------------------------------- parse errors */

static void test_parse_errors(void)
{
    sa_npu m;
    sa_stream s;
    sa_init(&s);
    CHECK(sa_open(&m, EU_U55_128) == 0);

    /* the skeleton itself runs */
    skel k = skel_default(EU_U55_128);
    emit_conv(&m, &s, &k);
    sa_stop(&s);
    uint32_t st = sa_run(&m, &s);
    CHECK(sa_status_ok(st));
    if (!sa_status_ok(st)) fprintf(stderr, "skeleton: %s\n", sim_npu_error(m.npu));
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QREAD), sa_bytes(&s));
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "");
    CHECK(sim_npu_error(m.npu)[0] == 0);

    /* unknown cmd0 opcode 0x004 */
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    size_t off = sa_here(&s);
    sa_cmd0(&s, 0x004, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "unknown cmd0 opcode 0x004");
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QREAD), off);

    /* unknown cmd1 opcode 0x077 */
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    sa_cmd1(&s, EU_SET_IFM_BASE0, 0, 0);
    off = sa_here(&s);
    sa_cmd1(&s, 0x4077, 0, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "unknown cmd1 opcode 0x077");

    /* reserved control bits */
    sa_reset(&s);
    off = sa_here(&s);
    sa_word(&s, 0x00008130);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "reserved control bits");

    /* out-of-range fields: region 9, reserved KERNEL_STRIDE bits, 4x4
     * decomposition, pad top 128, 64-bit precision, activation function 1,
     * a U55 cmd1 with address bits 39:32 */
    static const struct { uint16_t code; uint16_t param; const char *why; } bad0[] = {
        {EU_SET_IFM_REGION, 9, "NPU_SET_IFM_REGION: region 9 out of range 0-7"},
        {EU_SET_OFM_REGION, 8, "NPU_SET_OFM_REGION: region 8 out of range 0-7"},
        {EU_SET_KERNEL_STRIDE, 0x0080, "NPU_SET_KERNEL_STRIDE: reserved param bits 0x0080"},
        {EU_SET_KERNEL_STRIDE, 0x0400, "NPU_SET_KERNEL_STRIDE: reserved param bits 0x0400"},
        {EU_SET_KERNEL_STRIDE, 0x0020, "4x4 kernel decomposition is not supported"},
        {EU_SET_IFM_PAD_TOP, 128, "padding 128 out of range (max 127)"},
        {EU_SET_IFM_PRECISION, 0x000C, "64-bit precision"},
        {EU_SET_OFM_PRECISION, 0xC000, "round mode 3 is reserved"},
        {EU_SET_ACTIVATION, 1, "activation function 1 is reserved"},
        {EU_SET_OFM_BLK_DEPTH_M1, 128, "block depth-1 128 out of range (max 127)"},
        {EU_SET_IFM_IB_END, 25, "SHRAM bank 25 out of range (U55-128 has 24 banks)"},
        {EU_OP_POOL, 3, "pooling mode 3 out of range"},
        {EU_SET_DMA0_SRC_REGION, 0x0600, "stride mode 3 is reserved"},
    };
    for (size_t i = 0; i < sizeof bad0 / sizeof bad0[0]; i++) {
        sa_reset(&s);
        sa_cmd0(&s, EU_SET_OFM_ZERO_POINT, 0);
        sa_cmd0(&s, EU_SET_IFM_ZERO_POINT, 0);
        off = sa_here(&s);
        sa_cmd0(&s, bad0[i].code, bad0[i].param);
        sa_stop(&s);
        expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, bad0[i].why);
    }
    sa_reset(&s);
    off = sa_here(&s);
    sa_cmd1(&s, EU_SET_IFM_BASE0, 0x100, 1);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "must be 0 on U55-128 (32-bit addresses)");
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_WEIGHT_REGION, 0);
    off = sa_here(&s);
    sa_cmd1(&s, EU_SET_WEIGHT_BASE, 8, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "NPU_SET_WEIGHT_BASE: 0x8 is not a multiple of 16");

    /* U65-only commands on a U55 (and U55-only on a U65) */
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    off = sa_here(&s);
    sa_cmd0(&s, EU_SET_PARALLEL_MODE, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off,
                 "NPU_SET_PARALLEL_MODE is U65-only, not valid on U55-128");
    sa_reset(&s);
    off = sa_here(&s);
    sa_cmd1(&s, EU_SET_DMA0_SKIP0, 16, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "NPU_SET_DMA0_SKIP0 is U65-only");

    /* missing NPU_OP_STOP: the error is at the end of the stream */
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    sa_cmd0(&s, EU_SET_OFM_REGION, 2);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, sa_bytes(&s), "ends without NPU_OP_STOP");
    /* a cmd1 whose payload is missing */
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    off = sa_here(&s);
    sa_word(&s, EU_SET_IFM_BASE0);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "NPU_SET_IFM_BASE0: truncated");
    sa_close(&m);

    CHECK(sa_open(&m, EU_U65_256) == 0);
    sa_reset(&s);
    off = sa_here(&s);
    sa_cmd1(&s, EU_SET_USER_DEFINED0, 1, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "NPU_SET_USER_DEFINED0 is U55-only");
    sa_reset(&s);
    off = sa_here(&s);
    sa_cmd0(&s, EU_SET_PARALLEL_MODE, 1);   /* dual core only on U65-512 */
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "parallel mode 1 out of range (max 0)");
    sa_close(&m);
    sa_free(&s);
}

/* ----------------------------------------------- op context errors */

static void test_op_errors(void)
{
    sa_npu m;
    sa_stream s;
    sa_init(&s);
    CHECK(sa_open(&m, EU_U55_256) == 0);
    skel k;
    size_t off;

    /* block not a multiple of the 2x2x8 micro-block (U55-256), narrower
     * than the OFM */
    k = skel_default(EU_U55_256);
    k.blk_w = 3;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off,
                 "NPU_OP_CONV: inconsistent block configuration: OFM block 3x");
    /* SHRAM: accumulators overlapping the IFM buffer (AB_START < IB_END) */
    k = skel_default(EU_U55_256);
    k.ab_start = 4;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off,
                 "AB_START bank 4 overlaps the IFM buffer ending at bank 6");

    /* IFM read outside the mapped memory: faulting channel 1 */
    k = skel_default(EU_U55_256);
    k.ifm_base = 0x90;   /* 4x4x8 = 128 bytes from 0x90 run past the 256 mapped */
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "IFM tile 0: reads");
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "outside the memory mapped for the NPU");
    CHECK_EQ_INT(fault_channel(&m), 1);
    /* weights outside: channel 2 */
    k = skel_default(EU_U55_256);
    k.w_base = 4096;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "weight stream: reads");
    CHECK_EQ_INT(fault_channel(&m), 2);
    /* scale records outside: channel 3 */
    k = skel_default(EU_U55_256);
    k.s_base = 4096;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "scale stream: reads");
    CHECK_EQ_INT(fault_channel(&m), 3);
    /* OFM write outside: channel 8 */
    k = skel_default(EU_U55_256);
    k.ofm_base = 0x90;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "OFM tile 0: writes");
    CHECK_EQ_INT(fault_channel(&m), 8);
    /* OFM into the read-only constants window */
    k = skel_default(EU_U55_256);
    k.ofm_region = 0;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "which is read-only memory");
    CHECK_EQ_INT(fault_channel(&m), 8);
    /* an error in the second op: the offset is that op's */
    k = skel_default(EU_U55_256);
    sa_reset(&s);
    emit_conv(&m, &s, &k);
    sa_addr(&s, EU_SET_OFM_BASE0, 0x200);
    off = sa_here(&s);
    sa_cmd0(&s, EU_OP_CONV, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "OFM tile 0: writes");
    size_t n_ops;
    sim_npu_ops(m.npu, &n_ops);
    CHECK_EQ_INT(n_ops, 1);   /* the first op completed */

    /* corrupt weight stream: the weight decoder faults (wd_fault) */
    k = skel_default(EU_U55_256);
    k.corrupt_weights = true;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_WD_FAULT, off, "invalid ZDIV 4");
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "weight stream at region 0 offset 0x0");
    k = skel_default(EU_U55_256);
    k.short_weights = true;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_WD_FAULT, off, "weight stream decodes to");
    /* WEIGHT_LENGTH cutting the stream short */
    k = skel_default(EU_U55_256);
    k.w_len = 16;
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_WD_FAULT, off, "MLW stream");

    /* DMA: source outside (channel 4), destination read-only (channel 9),
     * SHRAM destination past the end */
    sa_reset(&s);
    sa_region(&m, 0, g_const, sizeof g_const, false);
    sa_region(&m, 1, g_ifm, sizeof g_ifm, true);
    sa_cmd0(&s, EU_SET_DMA0_SRC_REGION, 1);
    sa_cmd0(&s, EU_SET_DMA0_DST_REGION, 1);
    sa_addr(&s, EU_SET_DMA0_SRC, 240);
    sa_addr(&s, EU_SET_DMA0_DST, 0);
    sa_addr(&s, EU_SET_DMA0_LEN, 32);
    off = sa_here(&s);
    sa_cmd0(&s, EU_OP_DMA_START, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "DMA source: reads 32 bytes at region 1 offset 0xf0");
    CHECK_EQ_INT(fault_channel(&m), 4);
    sa_reset(&s);
    off = sa_here(&s) + 2 * 4 + 3 * 8;   /* DMA_START after 2 cmd0 + 3 cmd1 */
    sa_dma(&s, 1, 0, 0, 0, 32);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "which is read-only memory");
    CHECK_EQ_INT(fault_channel(&m), 9);
    sa_reset(&s);
    off = sa_here(&s) + 2 * 4 + 3 * 8;   /* DMA_START after 2 cmd0 + 3 cmd1 */
    sa_dma(&s, 0, 0, SA_DMA_SHRAM, 48 * 1024 - 16, 32);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "past the 49152-byte SHRAM");

    /* the region has no base pointer mapping at all (region 5) */
    k = skel_default(EU_U55_256);
    sa_reset(&s);
    emit_conv(&m, &s, &k);
    sa_cmd0(&s, EU_SET_IFM_REGION, 5);
    off = sa_here(&s);
    sa_cmd0(&s, EU_OP_CONV, 0);
    sa_stop(&s);
    expect_fault(&m, &s, EU_STATUS_BUS_STATUS, off, "region 5");

    /* ops with missing state (a fresh NPU after reset: nothing programmed) */
    sa_reset(&s);
    off = sa_here(&s);
    sa_cmd0(&s, EU_OP_ELEMENTWISE, 1);
    sa_stop(&s);
    sim_npu_write(m.npu, EU_REG_RESET, 0);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off, "not programmed");

    /* an operation above the per-operation work limit fails cleanly (the
     * 4x4x8 conv with a 3x3x8 kernel is 16*8*73 MACs+ > 1000) */
    k = skel_default(EU_U55_256);
    sa_reset(&s);
    off = emit_conv(&m, &s, &k);
    sa_stop(&s);
    sim_npu_set_work_limit(m.npu, 1000);
    expect_fault(&m, &s, EU_STATUS_CMD_PARSE_ERROR, off,
                 "NPU_OP_CONV: 1.02e+04 element operations exceed the simulator's per-operation "
                 "limit of 1e+03");
    sim_npu_set_work_limit(m.npu, 0);
    CHECK(sa_status_ok(sa_run(&m, &s)));
    sa_close(&m);
    sa_free(&s);
}

/* -------------------------------------------------- queue errors */

static void test_queue_errors(void)
{
    sa_npu m;
    CHECK(sa_open(&m, EU_U55_128) == 0);
    uint8_t q[16] = {0};
    npuc_err err;
    /* QBASE outside every window */
    CHECK(sim_npu_map(m.npu, 0x1000, q, sizeof q, false, &err) == NPUC_OK);
    sim_npu_write(m.npu, EU_REG_QBASE, 0x8000);
    sim_npu_write(m.npu, EU_REG_QSIZE, 4);
    sim_npu_write(m.npu, EU_REG_CMD, 1);
    uint32_t st = sim_npu_read(m.npu, EU_REG_STATUS);
    CHECK(st & EU_STATUS_BUS_STATUS);
    CHECK(st & EU_STATUS_IRQ_RAISED);
    CHECK(!(st & EU_STATUS_CMD_END_REACHED));
    CHECK_EQ_INT((st >> 12) & 0xF, 0);   /* channel 0: command read */
    CHECK_EQ_INT(m.irqs, 1);
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "command stream at bus 0x8000, 4 bytes (QBASE/QSIZE)");
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "outside the memory mapped for the NPU");
    /* a stream that runs past its window */
    sim_npu_write(m.npu, EU_REG_QBASE, 0x1008);
    sim_npu_write(m.npu, EU_REG_QSIZE, 16);
    sim_npu_write(m.npu, EU_REG_CMD, 1);
    CHECK(sim_npu_read(m.npu, EU_REG_STATUS) & EU_STATUS_BUS_STATUS);
    /* QSIZE 0 and QSIZE not a multiple of 4 */
    sim_npu_write(m.npu, EU_REG_QBASE, 0x1000);
    sim_npu_write(m.npu, EU_REG_QSIZE, 0);
    sim_npu_write(m.npu, EU_REG_CMD, 1);
    CHECK(sim_npu_read(m.npu, EU_REG_STATUS) & EU_STATUS_BUS_STATUS);
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "is empty");
    sim_npu_write(m.npu, EU_REG_QSIZE, 6);
    sim_npu_write(m.npu, EU_REG_CMD, 1);
    CHECK(sim_npu_read(m.npu, EU_REG_STATUS) & EU_STATUS_CMD_PARSE_ERROR);
    CHECK_STR_CONTAINS(sim_npu_error(m.npu), "QSIZE 6 is not a multiple of 4");
    /* the U55 ignores BASEP/QBASE high words */
    sim_npu_write(m.npu, EU_REG_QBASE_HI, 1);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QBASE_HI), 0);
    CHECK_EQ_INT(m.irqs, 4);
    sa_close(&m);

    /* a U65 takes 40-bit queue and region addresses */
    CHECK(sa_open(&m, EU_U65_256) == 0);
    uint32_t words[1] = {0xFFFF0000u};
    CHECK(sim_npu_map(m.npu, 0x2300000000ull, words, 4, false, &err) == NPUC_OK);
    sim_npu_write(m.npu, EU_REG_QBASE, 0);
    sim_npu_write(m.npu, EU_REG_QBASE_HI, 0x123);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QBASE_HI), 0x23);   /* bits 39:32 */
    sim_npu_write(m.npu, EU_REG_QBASE_HI, 0x23);
    sim_npu_write(m.npu, EU_REG_QSIZE, 4);
    sim_npu_write(m.npu, EU_REG_CMD, 1);
    CHECK(sa_status_ok(sim_npu_read(m.npu, EU_REG_STATUS)));
    sim_npu_write(m.npu, EU_REG_BASEP0 + 8 * 3 + 4, 0x1FF);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_BASEP0 + 8 * 3 + 4), 0xFF);
    sa_close(&m);
}

/* ------------------------------------------------------ register file */

static void test_id_config(void)
{
    static const uint32_t want[] = {0x00001005u, 0x00001006u, 0x00001807u,
                                    0x00003008u, 0x10003008u, 0x10006009u};
    for (int v = EU_U55_32; v <= EU_U65_512; v++) {
        sim_npu *n = NULL;
        npuc_err err;
        CHECK(sim_npu_create((eu_variant)v, NULL, &n, &err) == NPUC_OK);
        if (!n) continue;
        CHECK(sim_npu_read(n, EU_REG_ID) == 0x10060000u);
        CHECK(sim_npu_read(n, EU_REG_CONFIG) == want[v]);
        CHECK(sim_npu_read(n, EU_REG_CONFIG) == eu_variant_config_word((eu_variant)v));
        CHECK_EQ_INT(sim_npu_variant(n), v);
        CHECK_EQ_INT(sim_npu_read(n, EU_REG_STATUS), 0);
        CHECK_EQ_INT((sim_npu_read(n, EU_REG_PMCR) >> 11) & 0x1F, 4);   /* 4 event counters */
        /* writes to read-only registers are ignored */
        sim_npu_write(n, EU_REG_ID, 0);
        sim_npu_write(n, EU_REG_CONFIG, 0);
        CHECK(sim_npu_read(n, EU_REG_ID) == 0x10060000u);
        CHECK(sim_npu_read(n, EU_REG_CONFIG) == want[v]);
        sim_npu_free(n);
    }
    sim_npu *n = NULL;
    npuc_err err;
    CHECK(sim_npu_create((eu_variant)9, NULL, &n, &err) == NPUC_E_INVALID);
    CHECK(n == NULL);
}

static void test_reset_irq_qread(void)
{
    sa_npu m;
    sa_stream s;
    sa_init(&s);
    CHECK(sa_open(&m, EU_U55_128) == 0);
    /* NPU_OP_IRQ raises the interrupt and the stream goes on */
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    sa_cmd0(&s, EU_OP_IRQ, 0);
    sa_cmd0(&s, EU_SET_OFM_REGION, 2);
    sa_stop(&s);
    uint32_t st = sa_run(&m, &s);
    CHECK(sa_status_ok(st));
    CHECK(st & EU_STATUS_IRQ_RAISED);
    CHECK_EQ_INT(m.irqs, 2);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QREAD), 16);   /* just past NPU_OP_STOP */
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QSIZE), 16);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QBASE), SA_BUS_STREAM);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_BASEP0 + 8 * 2), SA_BUS_REGION(2));
    /* CMD bit 1 clears irq_raised; cmd_end_reached stays */
    sa_ack(&m);
    st = sim_npu_read(m.npu, EU_REG_STATUS);
    CHECK(!(st & EU_STATUS_IRQ_RAISED));
    CHECK(st & EU_STATUS_CMD_END_REACHED);

    /* an error: CMD bit 1 clears the IRQ but not the error */
    sa_reset(&s);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    sa_cmd0(&s, EU_SET_IFM_REGION, 1);
    sa_cmd0(&s, 0x3FF, 0);
    sa_stop(&s);
    st = sa_run(&m, &s);
    CHECK(st & EU_STATUS_CMD_PARSE_ERROR);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QREAD), 8);    /* the failing command */
    sa_ack(&m);
    st = sim_npu_read(m.npu, EU_REG_STATUS);
    CHECK(!(st & EU_STATUS_IRQ_RAISED));
    CHECK(st & EU_STATUS_CMD_PARSE_ERROR);
    /* RESET clears the error bits, QREAD, QBASE/QSIZE and the base pointers */
    sim_npu_write(m.npu, EU_REG_RESET, 0);
    st = sim_npu_read(m.npu, EU_REG_STATUS);
    CHECK_EQ_INT(st, 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QREAD), 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_QSIZE), 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_BASEP0 + 8 * 2), 0);
    /* a new start after an error clears the old error bits */
    sa_reset(&s);
    sa_cmd0(&s, 0x3FF, 0);
    sa_stop(&s);
    st = sa_run(&m, &s);
    CHECK(st & EU_STATUS_CMD_PARSE_ERROR);
    sa_reset(&s);
    sa_stop(&s);
    st = sa_run(&m, &s);
    CHECK(sa_status_ok(st));
    CHECK(!(st & EU_STATUS_CMD_PARSE_ERROR));
    CHECK(sim_npu_error(m.npu)[0] == 0);
    /* the driver's success test fails on any error bit */
    CHECK(!sa_status_ok(EU_STATUS_CMD_END_REACHED | EU_STATUS_WD_FAULT));
    CHECK(!sa_status_ok(0));
    sa_close(&m);
    sa_free(&s);
}

/* Runs one conv and returns the run's cycle estimate. */
static uint64_t pmu_run(sa_npu *m)
{
    sa_stream s;
    sa_init(&s);
    skel k = skel_default(m->v);
    emit_conv(m, &s, &k);
    sa_stop(&s);
    uint32_t st = sa_run(m, &s);
    CHECK(sa_status_ok(st));
    sa_ack(m);
    sa_free(&s);
    return sim_npu_run_cycles(m->npu);
}

static uint64_t pmccntr(sa_npu *m)
{
    return (uint64_t)sim_npu_read(m->npu, EU_REG_PMCCNTR_HI) << 32 |
           sim_npu_read(m->npu, EU_REG_PMCCNTR_LO);
}

static void test_pmu(void)
{
    sa_npu m;
    CHECK(sa_open(&m, EU_U55_128) == 0);
    /* disabled (PMCR.enable 0): nothing counts */
    sim_npu_write(m.npu, EU_REG_PMCNTENSET, 0x8000000Fu);
    sim_npu_write(m.npu, EU_REG_PMEVTYPER0, EU_PMU_EV_NPU_ACTIVE);
    sim_npu_write(m.npu, EU_REG_PMEVTYPER0 + 4, EU_PMU_EV_CYCLE);
    uint64_t cyc = pmu_run(&m);
    CHECK(cyc > 0);
    CHECK_EQ_INT(pmccntr(&m), 0);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0 + 4 * i), 0);

    /* enabled: counters 0, 1 and the cycle counter; counter 2 and 3
     * cleared from PMCNTEN stay 0 */
    sim_npu_write(m.npu, EU_REG_PMCR, 1 | 2 | 4);   /* enable, reset both */
    sim_npu_write(m.npu, EU_REG_PMCNTENCLR, 0xC);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMCNTENSET), 0x80000003u);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMCR) & 0xF, 1);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVTYPER0), EU_PMU_EV_NPU_ACTIVE);
    sim_npu_write(m.npu, EU_REG_PMEVTYPER0 + 8, EU_PMU_EV_CYCLE);
    cyc = pmu_run(&m);
    CHECK(cyc > 0);
    CHECK_EQ_INT(pmccntr(&m), cyc);
    uint32_t active = sim_npu_read(m.npu, EU_REG_PMEVCNTR0);
    CHECK(active > 0);
    CHECK_EQ_INT(active, cyc);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0 + 4), cyc);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0 + 8), 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0 + 12), 0);
    /* counters accumulate over runs */
    uint64_t cyc2 = pmu_run(&m);
    CHECK_EQ_INT(pmccntr(&m), cyc + cyc2);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0), cyc + cyc2);
    /* MAC_ACTIVE counts for a conv; an unmodelled event reads 0 */
    sim_npu_write(m.npu, EU_REG_PMCR, 1 | 2 | 4);
    sim_npu_write(m.npu, EU_REG_PMCNTENSET, 0xC);
    sim_npu_write(m.npu, EU_REG_PMEVTYPER0 + 8, EU_PMU_EV_MAC_ACTIVE);
    sim_npu_write(m.npu, EU_REG_PMEVTYPER0 + 12, 0x3FF);
    pmu_run(&m);
    CHECK(sim_npu_read(m.npu, EU_REG_PMEVCNTR0 + 8) > 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0 + 12), 0);
    /* PMCR reset bits clear the counts; disabling stops counting */
    sim_npu_write(m.npu, EU_REG_PMCR, 2 | 4);
    CHECK_EQ_INT(pmccntr(&m), 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0), 0);
    pmu_run(&m);
    CHECK_EQ_INT(pmccntr(&m), 0);
    CHECK_EQ_INT(sim_npu_read(m.npu, EU_REG_PMEVCNTR0), 0);
    /* the run's op records are there for the cycle model */
    size_t n_ops;
    const sim_op_info *ops = sim_npu_ops(m.npu, &n_ops);
    CHECK_EQ_INT(n_ops, 1);
    if (n_ops == 1) {
        CHECK_EQ_INT(ops[0].kind, SIM_K_CONV);
        CHECK_EQ_INT(ops[0].macs, 4 * 4 * 8 * 9 * 8);
    }
    sa_close(&m);
}

int main(void)
{
    test_parse_errors();
    test_op_errors();
    test_queue_errors();
    test_id_config();
    test_reset_irq_qread();
    test_pmu();
    TEST_MAIN_END();
}
