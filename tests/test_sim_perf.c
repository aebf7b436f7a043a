/* Virtual NPU cycle and traffic model: system configs (lookup and errors),
 * op records from the register state (geometry, MACs, bytes) on
 * person_detect_vela and on every shared Vela model (MACs against Vela's
 * summary.csv), the timeline rules on hand-made records, and the
 * person_detect total against Vela's estimate. */
#include "test.h"

#include "sim/sim.h"
#include "target/target.h"
#include "tflite/tflite.h"

#include <stdint.h>

/* ------------------------------------------------------------ helpers */

typedef struct recs { sim_op_info *v; size_t n, cap; eu_variant variant; size_t dual_waits; } recs;

static void recs_push(recs *r, const sim_op_info *x)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    r->v[r->n++] = *x;
}

/* Records of every NPU_OP_* of one COP1 payload, with the preceding wait. */
static int collect(const uint8_t *payload, size_t size, recs *r, npuc_err *err)
{
    sim_cop1 cop;
    if (sim_cop1_parse(payload, size, &cop, err)) return -1;
    if (sim_variant_from_config(cop.config, &r->variant, err)) return -1;
    sim_cmd *cmds = NULL;
    size_t n = 0;
    if (sim_stream_decode(cop.stream, cop.stream_size, r->variant, &cmds, &n, err)) return -1;
    sim_state s;
    sim_state_reset(&s);
    uint8_t wk = 0, wc = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_cmd *c = &cmds[i];
        sim_state_apply(&s, c, r->variant);
        if (c->code == EU_OP_DMA_WAIT || c->code == EU_OP_KERNEL_WAIT) {
            if (wk) r->dual_waits++;
            wk = c->code == EU_OP_DMA_WAIT ? 1 : 2;
            wc = (uint8_t)c->param;
        } else if (eu_cmd_is_kernel_op(c->code) || c->code == EU_OP_DMA_START) {
            sim_op_info info;
            sim_op_info_from_state(&s, c, i, r->variant, &info);
            CHECK_EQ_INT(info.cmd_index, i);
            CHECK_EQ_INT(info.cmd_offset, c->offset);
            info.wait_kind = wk;
            info.wait_count = wc;
            wk = wc = 0;
            recs_push(r, &info);
        }
    }
    free(cmds);
    return 0;
}

/* Estimates every ethos-u op of a model (each its own stream); returns the
 * summed cycles, or -1. *macs gets the summed MACs. */
static long long estimate_file(const char *path, const sim_system *sys, recs *keep, uint64_t *macs)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return -1;
    }
    long long total = 0;
    *macs = 0;
    for (int g = 0; g < m->n_subgraphs && total >= 0; g++)
        for (int i = 0; i < m->subgraphs[g].n_operators; i++) {
            const tfl_operator *op = &m->subgraphs[g].operators[i];
            const tfl_opcode *oc = &m->opcodes[op->opcode_index];
            if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0 || op->n_inputs < 1) continue;
            const tfl_tensor *t = &m->subgraphs[g].tensors[op->inputs[0]];
            const tfl_buffer *b = &m->buffers[t->buffer];
            recs r = {0};
            if (collect(b->data, b->size, &r, &err)) {
                fprintf(stderr, "%s op %d: %s\n", path, i, err.msg);
                free(r.v);
                total = -1;
                break;
            }
            CHECK_EQ_INT(r.dual_waits, 0);
            sim_system def;
            if (!sys) target_default_sim(r.variant, &def);
            total += (long long)sim_perf_estimate(r.variant, sys ? sys : &def, r.v, r.n);
            for (size_t k = 0; k < r.n; k++) *macs += r.v[k].macs;
            if (keep && !keep->v) *keep = r;
            else free(r.v);
        }
    tfl_model_free(m);
    return total;
}

/* ------------------------------------------------------ system configs */

static void test_systems(void)
{
    npuc_err err = {0};
    sim_system s;
    CHECK(target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &s, &err) == NPUC_OK);
    CHECK(s.core_clock_hz == 500e6);
    CHECK_STR_CONTAINS(s.name, "Ethos_U55_High_End_Embedded");
    CHECK_STR_CONTAINS(s.axi[0].name, "Sram");
    CHECK_STR_CONTAINS(s.axi[1].name, "OffChipFlash");
    CHECK(s.axi[0].clock_scale == 1.0 && s.axi[1].clock_scale == 0.125);
    CHECK_EQ_INT(s.axi[0].burst_bytes, 32);
    CHECK_EQ_INT(s.axi[1].burst_bytes, 128);
    CHECK_EQ_INT(s.axi[1].read_latency, 64);
    CHECK_EQ_INT(s.axi[0].width_bytes, 8);
    CHECK_EQ_INT(s.region_port[0], 1);   /* constants in flash */
    CHECK_EQ_INT(s.region_port[1], 0);   /* arena in SRAM */
    CHECK_EQ_INT(s.region_port[2], 0);

    CHECK(target_lookup_sim("Ethos_U65_High_End", "Dedicated_Sram", &s, &err) == NPUC_OK);
    CHECK(s.core_clock_hz == 1e9);
    CHECK_STR_CONTAINS(s.axi[1].name, "Dram");
    CHECK(s.axi[1].clock_scale == 0.234375);
    CHECK_EQ_INT(s.axi[1].read_latency, 500);
    CHECK_EQ_INT(s.axi[1].write_latency, 250);
    CHECK_EQ_INT(s.axi[0].width_bytes, 16);
    CHECK_EQ_INT(s.region_port[0], 1);
    CHECK_EQ_INT(s.region_port[1], 1);   /* arena in DRAM */
    CHECK_EQ_INT(s.region_port[2], 0);   /* fast scratch (cache) in SRAM */

    /* Sram_Only: constants move to AXI1 as "OnChipFlash" with SRAM timing */
    CHECK(target_lookup_sim("Ethos_U55_Deep_Embedded", "Sram_Only", &s, &err) == NPUC_OK);
    CHECK(s.core_clock_hz == 200e6);
    CHECK_STR_CONTAINS(s.axi[1].name, "OnChipFlash");
    CHECK(s.axi[1].clock_scale == 1.0);
    CHECK_EQ_INT(s.axi[1].read_latency, 32);
    CHECK_EQ_INT(s.region_port[0], 1);
    CHECK_EQ_INT(s.region_port[1], 0);

    CHECK(target_lookup_sim("Ethos_U65_Client_Server", "Dedicated_Sram_512KB", &s, &err) == NPUC_OK);
    CHECK(s.axi[1].clock_scale == 0.75);
    CHECK(target_lookup_sim("Ethos_U65_Mid_End", "Shared_Sram", &s, &err) == NPUC_OK);
    CHECK(s.axi[1].clock_scale == 0.46875);
    CHECK_EQ_INT(s.region_port[1], 0);
    CHECK(target_lookup_sim("Ethos_U65_Embedded", "Sram_Only", &s, &err) == NPUC_OK);

    /* errors name the bad value and list the valid ones */
    CHECK(target_lookup_sim("Ethos_U99", "Shared_Sram", &s, &err) == NPUC_E_INVALID);
    CHECK_EQ_INT(err.code, NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "unknown system config 'Ethos_U99'");
    CHECK_STR_CONTAINS(err.msg, "Ethos_U55_Deep_Embedded, Ethos_U55_High_End_Embedded, Ethos_U65_Embedded, "
                                "Ethos_U65_Mid_End, Ethos_U65_High_End, Ethos_U65_Client_Server");
    CHECK(target_lookup_sim("Ethos_U65_High_End", "Sram_Everywhere", &s, &err) == NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "unknown memory mode 'Sram_Everywhere'");
    CHECK_STR_CONTAINS(err.msg, "Sram_Only, Shared_Sram, Dedicated_Sram, Dedicated_Sram_256KB, Dedicated_Sram_384KB, "
                                "Dedicated_Sram_512KB");
    CHECK(target_lookup_sim(NULL, "Shared_Sram", &s, &err) == NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "unknown system config");
    /* U55 systems have flash on AXI1: it cannot hold the arena (as Vela) */
    CHECK(target_lookup_sim("Ethos_U55_High_End_Embedded", "Dedicated_Sram", &s, &err) == NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "Dedicated_Sram puts the tensor arena on AXI1, which is OffChipFlash");
    CHECK_STR_CONTAINS(err.msg, "Ethos_U55_High_End_Embedded");

    sim_system d;
    target_default_sim(EU_U55_128, &d);
    CHECK_STR_CONTAINS(d.name, "Ethos_U55_High_End_Embedded");
    CHECK_EQ_INT(d.region_port[1], 0);
    target_default_sim(EU_U65_512, &d);
    CHECK_STR_CONTAINS(d.name, "Ethos_U65_High_End");
    CHECK_EQ_INT(d.region_port[1], 1);
}

/* -------------------------------------------------- timeline on records */

static sim_op_info mk_dma(uint64_t bytes, uint8_t src, uint8_t dst)
{
    sim_op_info o;
    memset(&o, 0, sizeof o);
    o.kind = SIM_K_DMA;
    o.dma_bytes = bytes;
    o.dma_src_region = src;
    o.dma_dst_region = dst;
    return o;
}

static sim_op_info mk_conv(uint32_t w, uint32_t h, uint32_t ci, uint32_t co, uint8_t blockdep)
{
    sim_op_info o;
    memset(&o, 0, sizeof o);
    o.kind = SIM_K_CONV;
    o.ofm_w = o.ifm_w = w;
    o.ofm_h = o.ifm_h = h;
    o.ifm_d = ci;
    o.ofm_d = co;
    o.kernel_w = o.kernel_h = 1;
    o.stride_x = o.stride_y = 1;
    o.blk_w = 16; o.blk_h = 16; o.blk_d = 16;
    o.ifm_bits = o.ofm_bits = 8;
    o.ifm_format = o.ofm_format = 1;
    o.acc_bits = 32;
    o.blockdep = blockdep;
    o.ifm_region = o.ofm_region = o.weight_region = o.scale_region = 1;
    o.macs = (uint64_t)w * h * ci * co;
    o.ifm_bytes = (uint64_t)w * h * 16;
    o.ofm_bytes = (uint64_t)w * h * 16;
    o.weight_bytes = 272;
    o.scale_bytes = 160;
    return o;
}

static void test_timeline(void)
{
    sim_system sys;
    npuc_err err;
    CHECK(target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &sys, &err) == 0);

    /* DMA weights, wait for it, conv; a second DMA overlaps the conv */
    sim_op_info ops[5];
    ops[0] = mk_dma(4096, 0, 1);
    ops[1] = mk_conv(32, 32, 16, 16, 0);
    ops[1].wait_kind = 1; ops[1].wait_count = 0;
    ops[2] = mk_dma(4096, 0, 1);
    ops[3] = mk_conv(32, 32, 16, 16, 0);
    ops[3].wait_kind = 1; ops[3].wait_count = 0;
    ops[4] = mk_dma(1024, 0, 0xFF);                 /* LUT into SHRAM */
    ops[4].wait_kind = 2; ops[4].wait_count = 0;    /* after both convs */
    uint64_t total = sim_perf_estimate(EU_U55_256, &sys, ops, 5);
    /* flash: 1 byte/cycle (8 B × 0.125) plus 64 cycles read latency */
    CHECK_EQ_INT(ops[0].cycles, 4096 + 64);
    CHECK_EQ_INT(ops[0].axi_read[1], 4096);
    CHECK_EQ_INT(ops[0].axi_write[0], 4096);
    CHECK_EQ_INT(ops[4].axi_read[1], 1024);
    CHECK_EQ_INT(ops[4].axi_write[0] + ops[4].axi_write[1], 0);
    CHECK(ops[1].cycles_compute > 0);
    CHECK(ops[1].cycles >= ops[1].cycles_compute && ops[1].cycles >= ops[1].cycles_memory);
    CHECK(ops[1].axi_read[0] > 0 && ops[1].axi_write[0] > 0);
    CHECK_EQ_INT(ops[1].start, ops[0].end);
    CHECK_EQ_INT(ops[2].start, ops[0].end);         /* runs during conv 1 */
    CHECK(ops[3].start >= ops[1].end && ops[3].start >= ops[2].end);
    CHECK(ops[4].start >= ops[3].end);
    for (int i = 0; i < 5; i++) CHECK(ops[i].end >= ops[i].start + ops[i].cycles);
    CHECK_EQ_INT(total, ops[4].end);

    /* BLOCKDEP 0 serialises kernel ops; BLOCKDEP 3 lets the second op start
     * while the first drains (only for compute-bound ops) */
    sim_op_info a[2], b[2];
    a[0] = mk_conv(32, 32, 64, 64, 0);
    a[0].kernel_w = a[0].kernel_h = 3;
    a[0].ifm_w = a[0].ifm_h = 34;
    a[0].blk_w = 32; a[0].blk_h = 16; a[0].blk_d = 64;
    a[1] = a[0];
    b[0] = a[0];
    b[1] = a[0];
    b[1].blockdep = 3;
    uint64_t ta = sim_perf_estimate(EU_U55_256, &sys, a, 2);
    uint64_t tb = sim_perf_estimate(EU_U55_256, &sys, b, 2);
    CHECK(a[0].cycles_compute > a[0].cycles_memory);
    CHECK_EQ_INT(a[1].start, a[0].end);
    CHECK(b[1].start < b[0].end);
    CHECK(tb < ta);
    CHECK(ta == a[0].cycles + a[1].cycles);

    /* the same op is slower on a smaller NPU and on a slower system */
    sim_op_info c1 = mk_conv(32, 32, 256, 256, 0), c2 = c1;
    sim_perf_estimate(EU_U55_256, &sys, &c1, 1);
    sim_perf_estimate(EU_U55_64, &sys, &c2, 1);
    CHECK(c2.cycles_compute > 3 * c1.cycles_compute);
    sim_op_info d1 = mk_dma(8192, 0, 1), d2 = d1;
    sim_system slow;
    CHECK(target_lookup_sim("Ethos_U55_Deep_Embedded", "Shared_Sram", &slow, &err) == 0);
    sim_perf_estimate(EU_U55_256, &sys, &d1, 1);
    sim_perf_estimate(EU_U55_256, &slow, &d2, 1);
    CHECK_EQ_INT(d2.cycles, 2 * 8192 + 64);
    CHECK(d2.cycles > d1.cycles);
    /* the variant's default system (src/target) is this one; no ops = 0 cycles */
    sim_op_info d3 = mk_dma(8192, 0, 1);
    sim_system def;
    target_default_sim(EU_U55_256, &def);
    sim_perf_estimate(EU_U55_256, &def, &d3, 1);
    CHECK_EQ_INT(d3.cycles, d1.cycles);
    CHECK_EQ_INT(sim_perf_estimate(EU_U55_256, &sys, NULL, 0), 0);
    /* NULL system = ideal memory: all on AXI0 at the core clock, full AXI
     * width (8 bytes on U55), no latency: 8192 bytes read and written */
    sim_op_info d4 = mk_dma(8192, 0, 1), d5 = d4;
    sim_system zero;
    memset(&zero, 0, sizeof zero);
    sim_perf_estimate(EU_U55_256, NULL, &d4, 1);
    sim_perf_estimate(EU_U55_256, &zero, &d5, 1);
    CHECK_EQ_INT(d4.cycles, d5.cycles);
    CHECK(d4.cycles < d1.cycles);
}

/* Operations that run at the same time share each AXI port's bandwidth
 * (docs/sim.md, Timeline): on U55 High_End_Embedded / Shared_Sram the
 * flash (region 0, AXI1) gives 1 byte a cycle. */
static void test_ports(void)
{
    sim_system sys;
    npuc_err err;
    CHECK(target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &sys, &err) == 0);

    /* a conv that streams 16 KiB of weights from flash: memory-bound on
     * AXI1, its own figures alone */
    sim_op_info alone = mk_conv(8, 8, 16, 16, 0);
    alone.weight_region = 0;
    alone.weight_bytes = 16384;
    uint64_t t_alone = sim_perf_estimate(EU_U55_256, &sys, &alone, 1);
    CHECK(alone.cycles_memory > alone.cycles_compute);
    CHECK(alone.cycles_port[1] >= 16384 && alone.cycles_port[1] <= alone.cycles);
    CHECK_EQ_INT(t_alone, alone.cycles);

    /* a DMA of 8 KiB from flash issued first, the conv beside it: the DMA
     * keeps its pace, the conv gets what the port leaves, and the two
     * together take the port's time for both transfers */
    sim_op_info two[2] = {mk_dma(8192, 0, 1), alone};
    uint64_t t2 = sim_perf_estimate(EU_U55_256, &sys, two, 2);
    CHECK_EQ_INT(two[0].start, 0);
    CHECK_EQ_INT(two[1].start, 0);
    CHECK_EQ_INT(two[0].end, two[0].cycles);                  /* first: its own pace */
    CHECK_EQ_INT(two[0].cycles_port[1], 8192);
    CHECK(two[1].end >= two[0].cycles_port[1] + two[1].cycles_port[1]);
    CHECK(two[1].end > two[1].start + two[1].cycles);          /* slowed */
    CHECK_EQ_INT(t2, two[1].end);
    /* the other order: the conv keeps its pace, the DMA waits for the port */
    sim_op_info rev[2] = {alone, mk_dma(8192, 0, 1)};
    sim_perf_estimate(EU_U55_256, &sys, rev, 2);
    CHECK_EQ_INT(rev[0].end, rev[0].cycles);
    CHECK(rev[1].end >= rev[0].cycles_port[1] + rev[1].cycles_port[1]);

    /* beside a compute-bound conv whose weights are in SRAM the DMA's
     * flash reads share nothing, and its SRAM writes fit in what the conv
     * leaves of AXI0: both run as they would alone */
    sim_op_info c = mk_conv(32, 32, 64, 64, 0);
    c.kernel_w = c.kernel_h = 3;
    c.ifm_w = c.ifm_h = 34;
    sim_op_info pair[2] = {mk_dma(4096, 0, 1), c};
    sim_perf_estimate(EU_U55_256, &sys, pair, 2);
    CHECK(pair[1].cycles_compute > pair[1].cycles_memory);
    CHECK_EQ_INT(pair[0].end, pair[0].cycles);
    CHECK_EQ_INT(pair[1].end, pair[1].start + pair[1].cycles);

    /* one after the other (the conv waits for the DMA): no sharing */
    sim_op_info seq[2] = {mk_dma(8192, 0, 1), alone};
    seq[1].wait_kind = 1;
    seq[1].wait_count = 0;
    uint64_t ts = sim_perf_estimate(EU_U55_256, &sys, seq, 2);
    CHECK_EQ_INT(seq[1].start, seq[0].end);
    CHECK_EQ_INT(ts, seq[0].cycles + seq[1].cycles);
}

/* ------------------------------------------------------ person_detect */

static void test_person_detect(const char *path)
{
    sim_system sys;
    npuc_err err;
    CHECK(target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &sys, &err) == 0);
    recs r = {0};
    uint64_t macs = 0;
    long long total = estimate_file(path, &sys, &r, &macs);
    CHECK(total > 0);
    CHECK_EQ_INT(r.variant, EU_U55_256);
    /* 87 kernel ops + 55 DMAs (docs/ethos-u.md 11.1) */
    CHECK_EQ_INT(r.n, 142);
    size_t nk = 0, nd = 0, n_wait_dma = 0, n_wait_kernel = 0, n_flash_weights = 0;
    uint64_t dma_bytes = 0, dma_lut = 0, weight_bytes = 0;
    for (size_t i = 0; i < r.n; i++) {
        const sim_op_info *o = &r.v[i];
        if (o->kind == SIM_K_DMA) {
            nd++;
            dma_bytes += o->dma_bytes;
            if (o->dma_dst_region == 0xFF) dma_lut += o->dma_bytes;
            else CHECK(o->dma_src_region == 0 && o->dma_dst_region == 1);
        } else {
            nk++;
            if (o->weight_region == 1) {
                weight_bytes += o->weight_bytes + o->scale_bytes;
            } else if (o->weight_bytes) {
                /* the last layer reads its weights from flash (docs/ethos-u.md 6.5) */
                CHECK_EQ_INT(o->weight_region, 0);
                CHECK_EQ_INT(o->weight_bytes, 752);
                CHECK_EQ_INT(o->scale_bytes, 32);
                CHECK(o->axi_read[1] >= 752 + 32);
                n_flash_weights++;
            }
            CHECK(o->ifm_region == 1 && o->ofm_region == 1);
        }
        if (o->wait_kind == 1) { n_wait_dma++; CHECK_EQ_INT(o->wait_count, 0); }
        if (o->wait_kind == 2) { n_wait_kernel++; CHECK_EQ_INT(o->wait_count, 1); }
        CHECK(o->end >= o->start + o->cycles);
    }
    CHECK_EQ_INT(nk, 87);
    CHECK_EQ_INT(nd, 55);
    CHECK_EQ_INT(n_wait_dma, 55);
    CHECK_EQ_INT(n_wait_kernel, 38);
    CHECK_EQ_INT(dma_bytes, 231120 + 1024);
    CHECK_EQ_INT(dma_lut, 1024);
    /* every byte DMA'd into the arena is read back once as weights/scales */
    CHECK_EQ_INT(weight_bytes, 231120);
    CHECK_EQ_INT(n_flash_weights, 1);
    /* MACs: the same count Vela reports for the network */
    CHECK_EQ_INT(macs, 7215492);

    /* record 0: DMA of layer 0's scales+weights, 80 + 144 bytes */
    const sim_op_info *o = &r.v[0];
    CHECK_EQ_INT(o->kind, SIM_K_DMA);
    CHECK_EQ_INT(o->dma_bytes, 224);
    CHECK_EQ_INT(o->cmd_index, 5);
    CHECK_EQ_INT(o->cmd_offset, 0x20);
    /* record 1: the first CONV (docs/ethos-u.md 5.2/5.3: IFM 96×48×2, OFM
     * 48×48×8, kernel 2×3, stride 1×2) */
    o = &r.v[1];
    CHECK_EQ_INT(o->kind, SIM_K_CONV);
    CHECK_EQ_INT(o->cmd_offset, 0x148);
    CHECK_EQ_INT(o->wait_kind, 1);
    CHECK_EQ_INT(o->blockdep, 0);
    CHECK_EQ_INT(o->ifm_w, 48);
    CHECK_EQ_INT(o->ifm_h, 96);
    CHECK_EQ_INT(o->ifm_d, 2);
    CHECK_EQ_INT(o->ofm_w, 48);
    CHECK_EQ_INT(o->ofm_h, 48);
    CHECK_EQ_INT(o->ofm_d, 8);
    CHECK_EQ_INT(o->kernel_w, 2);
    CHECK_EQ_INT(o->kernel_h, 3);
    CHECK_EQ_INT(o->stride_x, 1);
    CHECK_EQ_INT(o->stride_y, 2);
    CHECK_EQ_INT(o->ifm_bits, 8);
    CHECK_EQ_INT(o->ofm_format, 1);
    CHECK_EQ_INT(o->ifm_format, 0);
    CHECK_EQ_INT(o->acc_bits, 32);
    CHECK_EQ_INT(o->macs, 48 * 48 * 8 * 2 * 2 * 3);
    CHECK_EQ_INT(o->ifm_bytes, 96 * 48 * 2);          /* NHWC */
    CHECK_EQ_INT(o->ofm_bytes, 48 * 48 * 16);         /* NHCWB16: depth 8 stored as 16 */
    CHECK_EQ_INT(o->weight_bytes, 144);
    CHECK_EQ_INT(o->scale_bytes, 80);
    CHECK_EQ_INT(o->weight_region, 1);
    CHECK(o->start >= r.v[0].end);
    /* record 3: DEPTHWISE 3×3 on 48×48×8 */
    o = &r.v[3];
    CHECK_EQ_INT(o->kind, SIM_K_DEPTHWISE);
    CHECK_EQ_INT(o->macs, 48 * 48 * 8 * 9);
    CHECK_EQ_INT(o->ifm_bytes, 48 * 48 * 16);
    CHECK_EQ_INT(o->blockdep, 3);
    /* the last kernel records: softmax tail, and the last DMA the LUT */
    size_t n_pool = 0, n_ew = 0, n_ew_tensor = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (r.v[i].kind == SIM_K_POOL) {
            n_pool++;
            if (r.v[i].mode == 2) CHECK_EQ_INT(r.v[i].ofm_d, 1);
        }
        if (r.v[i].kind == SIM_K_ELEMENTWISE) {
            n_ew++;
            if (r.v[i].ifm2_tensor) n_ew_tensor++;
            CHECK_EQ_INT(r.v[i].macs, 0);
            CHECK_EQ_INT(r.v[i].weight_bytes, 0);
        }
    }
    CHECK_EQ_INT(n_pool, 3);
    CHECK_EQ_INT(n_ew, 29);
    CHECK(n_ew_tensor > 0);

    /* Vela 3.11 estimates 301,796 cycles (288,328 NPU) for this stream */
    printf("person_detect_vela: %lld cycles (Vela 301796, ratio %.3f)\n", total, (double)total / 301796.0);
    CHECK(total >= 301796 * 3 / 4 && total <= 301796 * 5 / 4);
    free(r.v);
}

/* Every shared Vela model: our MACs equal Vela's (summary.csv column
 * macs); cycle ratios are printed, not asserted (bench_perf_model). */
static void test_vela_dir(const char *shared_csv, const char *sysname, const char *mode)
{
    FILE *f = fopen(shared_csv, "r");
    if (!f) return;
    sim_system sys;
    npuc_err err;
    CHECK(target_lookup_sim(sysname, mode, &sys, &err) == 0);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", shared_csv);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    char line[2048];
    int n_models = 0, hdr = 1;
    while (fgets(line, sizeof line, f)) {
        if (hdr) { hdr = 0; continue; }
        char *fld[16];
        int nf = 0;
        char *p = line;
        while (nf < 16) {
            fld[nf++] = p;
            char *cm = strchr(p, ',');
            if (!cm) break;
            *cm = 0;
            p = cm + 1;
        }
        if (nf < 11 || strtoull(fld[8], NULL, 10) == 0) continue;
        size_t l = strlen(fld[0]);
        if (l < 7) continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%.*s_vela.tflite", dir, (int)(l - 7), fld[0]);
        uint64_t macs = 0;
        long long cyc = estimate_file(path, &sys, NULL, &macs);
        CHECK(cyc > 0);
        CHECK_EQ_INT(macs, strtoull(fld[10], NULL, 10));
        if (macs != strtoull(fld[10], NULL, 10)) fprintf(stderr, "  MACs differ: %s\n", path);
        n_models++;
    }
    fclose(f);
    CHECK(n_models >= 120);
}

/* sim_op_info_reads: a register command it says the records do not read
 * leaves every op's record as it was, whatever the state and the value
 * (the compiler's cycle estimate skips those commands). */
static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void apply_random(sim_state *s, const eu_cmd_info *ci)
{
    sim_cmd c;
    memset(&c, 0, sizeof c);
    c.code = ci->code;
    c.opcode = (uint16_t)eu_code_opcode(ci->code);
    c.is_cmd1 = eu_code_is_cmd1(ci->code);
    c.info = ci;
    c.name = ci->name;
    uint64_t r = rnd();
    /* small values half the time (sizes, modes), any bits else */
    bool small = r & 1;
    c.param = small ? (uint16_t)(r >> 1 & 7) : (uint16_t)(r >> 8);
    c.payload = !c.is_cmd1 ? 0 : small ? (uint32_t)(r >> 4 & 7) : (uint32_t)(r >> 24);
    c.operand = c.is_cmd1 ? (uint64_t)c.param << 32 | c.payload : c.param;
    sim_state_apply(s, &c, EU_U55_128);
}

static void test_op_info_reads(void)
{
    static const uint16_t ops[] = {EU_OP_CONV, EU_OP_DEPTHWISE, EU_OP_POOL, EU_OP_ELEMENTWISE, EU_OP_DMA_START};
    static const eu_variant vs[] = {EU_U55_128, EU_U65_512};
    size_t unread = 0, checked = 0;
    for (int round = 0; round < 20; round++) {
        sim_state s;
        sim_state_reset(&s);
        for (size_t k = 0; k < eu_n_cmds; k++)
            if (eu_code_is_cmd1(eu_cmds[k].code) || eu_code_opcode(eu_cmds[k].code) >= 0x100) apply_random(&s, &eu_cmds[k]);
        for (size_t k = 0; k < eu_n_cmds; k++) {
            const eu_cmd_info *ci = &eu_cmds[k];
            bool reg = eu_code_is_cmd1(ci->code) || eu_code_opcode(ci->code) >= 0x100;
            if (!reg || sim_op_info_reads(ci->code)) continue;
            unread += round == 0;
            sim_state t = s;
            apply_random(&t, ci);
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
                for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
                    sim_cmd op;
                    memset(&op, 0, sizeof op);
                    op.code = ops[o];
                    op.opcode = ops[o];
                    op.info = eu_cmd_find(ops[o]);
                    op.param = (uint16_t)(rnd() & 3);
                    op.operand = op.param;
                    sim_op_info a, b;
                    sim_op_info_from_state(&s, &op, 7, vs[v], &a);
                    sim_op_info_from_state(&t, &op, 7, vs[v], &b);
                    if (memcmp(&a, &b, sizeof a)) fprintf(stderr, "%s changes the record of op 0x%x\n", ci->name, ops[o]);
                    CHECK(!memcmp(&a, &b, sizeof a));
                    checked++;
                }
        }
    }
    /* the addresses, strides, zero points, tile sizes, scales at least */
    CHECK(unread >= 30);
    printf("op_info_reads: %zu register commands not read, %zu records compared\n", unread, checked);
}

int main(void)
{
    test_systems();
    test_op_info_reads();
    test_timeline();
    test_ports();

    char buf[1024];
    const char *pd = t_shared("models/tflm/person_detect_vela.tflite", buf, sizeof buf);
    if (!pd) {
        printf("SKIP model checks: shared folder absent (set NPUC_SHARED)\n");
        TEST_MAIN_END();
    }
    test_person_detect(pd);
    char csv[1024];
    if (t_shared("models/vela/u55-128/summary.csv", csv, sizeof csv))
        test_vela_dir(csv, "Ethos_U55_High_End_Embedded", "Shared_Sram");
    if (t_shared("models/vela/u65-256/summary.csv", csv, sizeof csv))
        test_vela_dir(csv, "Ethos_U65_High_End", "Dedicated_Sram");
    TEST_MAIN_END();
}
