/* libFuzzer target: the virtual NPU behind its register file. Each input
 * becomes a memory map (a few windows of at most 64 KiB with input-derived
 * contents), base pointers, a few register writes, and a command stream;
 * the stream runs through QBASE/QSIZE/CMD as a driver would start it. Any
 * input must end in STATUS (success or an error bit), never in a crash,
 * hang or sanitizer report.
 *
 * Input layout (missing bytes read as 0):
 *   byte 0    variant (mod 6)
 *   byte 1    flags: [1:0] skeleton 0 none, 1 CONV/DEPTHWISE, 2 POOL,
 *             3 ELEMENTWISE (3 of 4 inputs start from a valid op, so the
 *             executor is reached); [2] fuzzed QBASE/QSIZE; [3] append
 *             NPU_OP_STOP; [7:4] operation mode; with skeleton 0 and mode
 *             bit 3: a DMA (region 0 -> region 1 or SHRAM); with POOL or
 *             ELEMENTWISE and mode bit 3: a LUT DMA'd into SHRAM and used
 *   byte 2    [1:0] windows - 1, [6:4] register writes
 *   per window: u16 size - 1, u8 flags ([0] writable), u8 content seed
 *   8 x BASEP: u8 selector (< 0xE0: window sel % n + (u16 & ~15) offset;
 *             else a raw u32 bus address)
 *   register writes: u16 offset (& 0xFFC), u32 value
 *   rest      command words (little-endian), placed between the skeleton's
 *             register settings and its operation command */
#include "../tests/sim_asm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
    const uint8_t *p;
    size_t n, pos;
} rd;

static uint8_t rd8(rd *r) { return r->pos < r->n ? r->p[r->pos++] : 0; }
static uint16_t rd16(rd *r) { uint16_t v = rd8(r); return (uint16_t)(v | rd8(r) << 8); }
static uint32_t rd32(rd *r) { uint32_t v = rd16(r); return v | (uint32_t)rd16(r) << 16; }

#define N_WIN_MAX 4
#define WIN_BUS(k) (0x00100000u * ((uint32_t)(k) + 1))
#define ARENA_BUS 0x01000000u
#define ARENA_SIZE 10240u
#define STREAM_BUS 0x02000000u

/* The skeleton's fixed arena (region 0 by default): IFM at 0, OFM at
 * 1024, IFM2 at 1536, weights at 2048, scales at 6144, LUT at 8192. */
static size_t fill_arena(uint8_t *a, eu_variant v, const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < ARENA_SIZE; i++) a[i] = size ? data[i % size] : (uint8_t)i;
    /* a valid weight stream for the skeleton conv (8 -> 8, 3x3, block 8) */
    sim_wgeom g = sa_wgeom(v, 8, 8, 3, 3, 8, 1, 1, 8, false, false);
    size_t n = sim_weight_traverse(&g, NULL, 0);
    int16_t w[2304];
    for (size_t i = 0; i < n && i < 2304; i++) w[i] = (int16_t)(int8_t)a[i & 1023];
    memset(a + 2048, 0, 4096);
    size_t len = sa_mlw_encode(w, n < 2304 ? n : 2304, a + 2048, 4096);
    for (int o = 0; o < 8; o++) sa_scale_rec(a + 6144 + 10 * o, (int8_t)a[o], 1u << 30, 36);
    memset(a + 6144 + 80, 0, 16);
    return len;
}

/* A valid op of the given kind minus its operation command. */
static void skeleton(sa_stream *s, eu_variant v, unsigned kind, unsigned mode, size_t wlen)
{
    if (kind == 0) {
        if (mode & 8) {
            sa_cmd0(s, EU_SET_DMA0_SRC_REGION, 0);
            sa_cmd0(s, EU_SET_DMA0_DST_REGION, mode & 1 ? SA_DMA_SHRAM : 1);
            sa_addr(s, EU_SET_DMA0_SRC, 0);
            sa_addr(s, EU_SET_DMA0_DST, (mode & 6) * 256u);
            sa_addr(s, EU_SET_DMA0_LEN, 64);
        }
        return;
    }
    if (kind >= 2 && (mode & 8)) {
        /* a LUT: 2 KiB (int16 tables) from the arena into the LUT area;
         * ACTIVATION picks a slot and a clip range */
        unsigned slot = mode & 7;
        uint32_t lut = sa_lut_addr(v, 0), len = 2048 - 256 * slot;
        sa_dma(s, 0, 8192, SA_DMA_SHRAM, lut + 256 * slot, len);
        static const unsigned clips[4] = {0, 2, 3, 5};
        sa_cmd0(s, EU_SET_ACTIVATION, (uint16_t)((16 + slot) | clips[mode & 3] << 12));
    }
    sa_fm ifm = sa_fm_make(0, 0, 4, 4, 8, 8, true, SA_NHWC);
    sa_fm ofm = sa_fm_make(0, 1024, 4, 4, 8, 8, true, SA_NHWC);
    sa_set_ifm(s, &ifm);
    sa_set_ofm(s, &ofm);
    sa_set_ofm_scale(s, 1, 0);
    sa_cmd0(s, EU_SET_ACTIVATION_MIN, (uint16_t)-128);
    sa_cmd0(s, EU_SET_ACTIVATION_MAX, 127);
    if (kind == 3) {
        sa_fm ifm2 = sa_fm_make(0, 1536, 4, 4, 8, 8, true, SA_NHWC);
        sa_set_opa_scale(s, 1, 0);
        sa_set_opb_scale(s, 1);
        sa_set_config(s, v, &ofm, 8, true, true);
        sa_set_ifm2(s, &ifm2);
        sa_set_bcast(s, 0);
        return;
    }
    sa_set_pad(s, 1, 1, 1, 1);
    sa_set_upscale(s, 0);
    sa_set_kernel(s, 3, 3, 1, 1, 1, 1, false);
    sa_set_config(s, v, &ofm, 8, false, false);   /* block depth 8 */
    if (kind == 1) {
        sa_set_weights(s, 0, 2048, wlen);
        sa_set_scales(s, 0, 6144, 96);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = {data, size, 0};
    eu_variant v = (eu_variant)(rd8(&r) % 6);
    uint8_t flags = rd8(&r), b2 = rd8(&r);
    unsigned kind = flags & 3, mode = flags >> 4;
    unsigned n_win = (b2 & 3) + 1, n_regw = (b2 >> 4) & 7;

    sim_npu *npu = NULL;
    npuc_err err;
    if (sim_npu_create(v, NULL, &npu, &err)) return 0;
    /* bounded work per input: ops above ~16M element operations are refused */
    sim_npu_set_work_limit(npu, (uint64_t)1 << 24);

    uint8_t *win[N_WIN_MAX] = {0};
    size_t win_size[N_WIN_MAX] = {0};
    for (unsigned k = 0; k < n_win; k++) {
        size_t sz = (size_t)rd16(&r) + 1;
        uint8_t wf = rd8(&r), seed = rd8(&r);
        win[k] = malloc(sz);
        if (!win[k]) goto out;
        win_size[k] = sz;
        for (size_t i = 0; i < sz; i++)
            win[k][i] = size ? (uint8_t)(data[(i + seed) % size] ^ (uint8_t)(i >> 8)) : 0;
        sim_npu_map(npu, WIN_BUS(k), win[k], sz, wf & 1, &err);
    }
    static uint8_t arena[ARENA_SIZE];
    size_t wlen = 0;
    if (kind || (mode & 8)) {
        wlen = fill_arena(arena, v, data, size);
        sim_npu_map(npu, ARENA_BUS, arena, ARENA_SIZE, true, &err);
    }
    for (unsigned i = 0; i < 8; i++) {
        uint8_t sel = rd8(&r);
        uint32_t bus;
        if (sel < 0xE0)
            bus = WIN_BUS(sel % n_win) + (rd16(&r) & ~15u);
        else
            bus = rd32(&r);
        if ((kind || (mode & 8)) && i == 0 && sel < 0x80)
            bus = ARENA_BUS;   /* usually the arena */
        sim_npu_write(npu, EU_REG_BASEP0 + 8 * i, bus);
    }
    for (unsigned i = 0; i < n_regw; i++) {
        uint32_t off = rd16(&r) & 0xFFCu, val = rd32(&r);
        if (off == EU_REG_CMD) val &= ~1u;   /* the start comes below */
        sim_npu_write(npu, off, val);
    }

    /* the command stream: skeleton + fuzz words + operation + STOP */
    sa_stream s;
    sa_init(&s);
    skeleton(&s, v, kind, mode, wlen);
    while (r.pos + 4 <= r.n) sa_word(&s, rd32(&r));
    if (kind == 0 && (mode & 8)) sa_cmd0(&s, EU_OP_DMA_START, 0);
    if (kind == 1) sa_cmd0(&s, mode & 1 ? EU_OP_DEPTHWISE : EU_OP_CONV, 0);
    else if (kind == 2) sa_cmd0(&s, EU_OP_POOL, (uint16_t)(mode % 3));
    else if (kind == 3) sa_cmd0(&s, EU_OP_ELEMENTWISE, (uint16_t)(mode % 10));
    if ((flags & 8) || kind) sa_stop(&s);
    uint8_t *q = sa_stream_bytes(&s);
    size_t qsize = sa_bytes(&s);
    sim_npu_map(npu, STREAM_BUS, q, qsize, false, &err);
    uint32_t qbase = STREAM_BUS, qs = (uint32_t)qsize;
    if (flags & 4) {
        qbase += (uint32_t)(data[size - 1] & 0x3C);
        qs ^= (uint32_t)(data[size / 2] & 0x1F);
    }
    sim_npu_write(npu, EU_REG_QBASE, qbase);
    sim_npu_write(npu, EU_REG_QSIZE, qs);
    sim_npu_write(npu, EU_REG_CMD, (sim_npu_read(npu, EU_REG_CMD) & 0xC) | 1);
    uint32_t st = sim_npu_read(npu, EU_REG_STATUS);
    /* the run ended: either the end was reached or an error bit is set */
    if (!(st & (EU_STATUS_CMD_END_REACHED | EU_STATUS_CMD_PARSE_ERROR | EU_STATUS_BUS_STATUS |
                EU_STATUS_WD_FAULT)))
        abort();
    if ((st & EU_STATUS_CMD_END_REACHED) && sim_npu_error(npu)[0])
        abort();
    size_t n_ops;
    sim_npu_ops(npu, &n_ops);
    (void)sim_npu_run_cycles(npu);
    free(q);
    sa_free(&s);
out:
    sim_npu_free(npu);
    for (unsigned k = 0; k < N_WIN_MAX; k++) free(win[k]);
    return 0;
}
