/* U65-512 dual-core mode (PARALLEL_MODE 1, docs/ethos-u.md 6.4): the same CONV
 * and DEPTHWISE split over two cores (core k: OFM channels 2j + k, its own
 * weight stream with block depth B/2, its own scale records) must give the
 * bytes of the single-core op on a U65-256. */
#include "test.h"
#include "sim_asm.h"

enum { H = 6, W = 7, C = 24, O = 40, K = 3 };

static uint8_t g_in[8192], g_out[2][8192], g_cst[1 << 16];

/* Runs the op; dual = U65-512 with PARALLEL_MODE 1. */
static void run(bool dual, bool dw, uint8_t *out)
{
    eu_variant v = dual ? EU_U65_512 : EU_U65_256;
    uint32_t od = dw ? C : O;
    sa_stream s;
    sa_init(&s);
    sa_npu m;
    CHECK(sa_open(&m, v) == 0);
    sa_fm ifm = sa_fm_make(1, 0, H, W, C, 8, true, SA_NHCWB16);
    ifm.zp = 3;
    sa_fm ofm = sa_fm_make(2, 0, H, W, od, 8, true, SA_NHCWB16);
    ofm.zp = -5;
    sa_fm_finish(&ifm);
    sa_fm_finish(&ofm);
    sa_cmd0(&s, EU_SET_PARALLEL_MODE, dual ? 1 : 0);
    sa_set_ifm(&s, &ifm);
    sa_set_pad(&s, 1, 1, 1, 1);
    sa_set_upscale(&s, 0);
    sa_set_ofm(&s, &ofm);
    sa_set_kernel(&s, K, K, 1, 1, 1, 1, false);
    uint32_t bd = sa_set_config(&s, v, &ofm, 8, false, false);
    /* weights W[o][ky][kx][i] (depthwise W[o][ky][kx]) and records */
    static int16_t w[O * K * K * C], wk[O * K * K * C];
    npuc_rng r;
    npuc_rng_seed(&r, 11);
    size_t per = dw ? K * K : (size_t)K * K * C;
    for (size_t i = 0; i < od * per; i++) w[i] = (int16_t)npuc_rng_range(&r, -90, 90);
    memset(g_cst, 0, sizeof g_cst);
    size_t pos = 0;
    for (int k = 0; k < (dual ? 2 : 1); k++) {
        uint32_t ok = dual ? (od + 1 - (uint32_t)k) / 2 : od;
        uint32_t bk = dual ? (bd + 1 - (uint32_t)k) / 2 : bd;
        for (uint32_t j = 0; j < ok; j++)
            memcpy(wk + j * per, w + (size_t)(dual ? 2 * j + (uint32_t)k : j) * per, per * sizeof *w);
        size_t soff = pos;
        for (uint32_t j = 0; j < ok; j++) {
            uint32_t o = dual ? 2 * j + (uint32_t)k : j;
            sa_scale_rec(g_cst + soff + 10 * j, (int64_t)o * 311 - 4000, (1u << 30) + o * 977, 37);
        }
        pos = soff + sa_scale_len(ok);
        sim_wgeom g = sa_wgeom(v, ok, C, K, K, bk, 1, 1, 8, false, dw);
        size_t wlen = sa_weights(&g, wk, g_cst + pos, sizeof g_cst - pos);
        CHECK(wlen > 0);
        if (k == 0) {
            sa_set_weights(&s, 0, pos, wlen);
            sa_set_scales(&s, 0, soff, sa_scale_len(ok));
        } else {
            sa_addr(&s, EU_SET_WEIGHT1_BASE, pos);
            sa_addr(&s, EU_SET_WEIGHT1_LENGTH, wlen);
            sa_addr(&s, EU_SET_SCALE1_BASE, soff);
            sa_addr(&s, EU_SET_SCALE1_LENGTH, sa_scale_len(ok));
        }
        pos = (pos + wlen + 15) / 16 * 16;
    }
    sa_set_ofm_scale(&s, 0, 0);
    sa_set_act(&s, 0, 0, -128, 127);
    sa_cmd0(&s, dw ? EU_OP_DEPTHWISE : EU_OP_CONV, 0);
    sa_stop(&s);
    for (size_t i = 0; i < sizeof g_in; i++) g_in[i] = (uint8_t)(i * 37 + 11);
    memset(out, 0, 8192);
    sa_region(&m, 0, g_cst, sizeof g_cst, false);
    sa_region(&m, 1, g_in, sizeof g_in, false);
    sa_region(&m, 2, out, 8192, true);
    uint32_t st = sa_run(&m, &s);
    CHECK(sa_status_ok(st));
    if (!sa_status_ok(st)) fprintf(stderr, "%s %s: %s\n", dual ? "dual" : "single", dw ? "dw" : "conv",
                                   sim_npu_error(m.npu));
    sa_close(&m);
    sa_free(&s);
}

int main(void)
{
    for (int dw = 0; dw < 2; dw++) {
        run(false, dw, g_out[0]);
        run(true, dw, g_out[1]);
        CHECK(memcmp(g_out[0], g_out[1], sizeof g_out[0]) == 0);
        /* and the op wrote something */
        int nz = 0;
        for (size_t i = 0; i < sizeof g_out[0]; i++) nz += g_out[0][i] != 0;
        CHECK(nz > 100);
    }
    TEST_MAIN_END();
}
