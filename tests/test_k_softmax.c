/* SOFTMAX kernels: int8 -> int8, int8 -> int16, int16 -> int16, float32.
 * Hand-worked cases (uniform rows, dominant entries, diff_min cut-off,
 * parameter preparation) plus bit-exact vectors cross-checked against a
 * separate big-integer transcription of TFLite's reference. */
#include "test.h"
#include "../src/kernels/k_activation.h"

#include <math.h>
#include <string.h>
#include <stdint.h>

static void test_prepare_s8(void)
{
    k_softmax_s8_params p;
    /* scale 0.5, beta 1: 0.5 * 2^26 = 2^25 -> multiplier 2^30, shift 26;
     * diff_min = -floor(31 * 2^26 / 2^26) = -31 */
    CHECK_EQ_INT(k_softmax_s8_prepare(0.5f, 1.0f, &p), K_OK);
    CHECK_EQ_INT(p.input_multiplier, 1 << 30);
    CHECK_EQ_INT(p.input_left_shift, 26);
    CHECK_EQ_INT(p.diff_min, -31);
    /* keyword model: 0.0699627325 * 2^26 = 4695109.5.. = 0.5597 * 2^23 */
    CHECK_EQ_INT(k_softmax_s8_prepare(0.0699627325f, 1.0f, &p), K_OK);
    CHECK_EQ_INT(p.input_multiplier, 1201950592);
    CHECK_EQ_INT(p.input_left_shift, 23);
    CHECK_EQ_INT(p.diff_min, -248); /* -floor(31 * 8) */
    /* beta * scale >= 32 hits the 2^31 - 1 cap: left shift 31 is refused */
    CHECK_EQ_INT(k_softmax_s8_prepare(64.0f, 1.0f, &p), K_E_UNSUPPORTED);
    /* multiplier <= 1 is refused as TFLite's QuantizeMultiplierGreaterThanOne */
    CHECK_EQ_INT(k_softmax_s8_prepare(1e-9f, 1.0f, &p), K_E_UNSUPPORTED);
}

static void test_s8(void)
{
    k_softmax_s8_params p;
    k_softmax_s8_prepare(0.0699627325f, 1.0f, &p);
    /* Uniform rows: 1/4 -> 64 - 128 = -64; 1/2 -> 0; one element: 1.0 ->
     * 256 - 128 saturates at 127. */
    int8_t u4[4] = {7, 7, 7, 7}, o[8];
    CHECK_EQ_INT(k_softmax_s8(&p, u4, o, 1, 4), K_OK);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(o[i], -64);
    int8_t u2[2] = {-128, -128};
    k_softmax_s8(&p, u2, o, 1, 2);
    CHECK_EQ_INT(o[0], 0);
    CHECK_EQ_INT(o[1], 0);
    int8_t u1[1] = {-5};
    k_softmax_s8(&p, u1, o, 1, 1);
    CHECK_EQ_INT(o[0], 127);
    /* int16 output: 1/4 -> 16384 - 32768 */
    int16_t o16[8];
    CHECK_EQ_INT(k_softmax_s8_s16(&p, u4, o16, 1, 4), K_OK);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(o16[i], -16384);

    /* Bit-exact vectors (keyword model scale): exp(0), exp(-0.56), exp(-0.21) */
    int8_t v[4] = {5, -3, 5, 2};
    int8_t want8[4] = {-52, -85, -52, -67};
    int16_t want16[4] = {-13390, -21696, -13390, -17059};
    k_softmax_s8(&p, v, o, 1, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(o[i], want8[i]);
    k_softmax_s8_s16(&p, v, o16, 1, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(o16[i], want16[i]);

    /* Two rows at once, second row the first shifted by a constant. */
    int8_t two[8] = {5, -3, 5, 2, 105, 97, 105, 102};
    k_softmax_s8(&p, two, o, 2, 4);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(o[i], want8[i]);
        CHECK_EQ_INT(o[4 + i], want8[i]);
    }

    /* scale 0.5: diff_min -31, entries further than 31 below the max give
     * exactly the minimum; the max alone carries ~1.0. */
    k_softmax_s8_prepare(0.5f, 1.0f, &p);
    int8_t w[5] = {127, -128, 0, 100, -50};
    k_softmax_s8(&p, w, o, 1, 5);
    CHECK_EQ_INT(o[0], 127);
    for (int i = 1; i < 5; i++) CHECK_EQ_INT(o[i], -128);
    k_softmax_s8_s16(&p, w, o16, 1, 5);
    CHECK_EQ_INT(o16[0], 32767);
    for (int i = 1; i < 5; i++) CHECK_EQ_INT(o16[i], -32768);
    /* beta 0.5, scale 0.25: x*beta = {2.5, -5, 7.5} */
    k_softmax_s8_prepare(0.25f, 0.5f, &p);
    int8_t b[3] = {10, -20, 30};
    int8_t wantb[3] = {-109, -128, 108};
    k_softmax_s8(&p, b, o, 1, 3);
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(o[i], wantb[i]);

    /* Deep rows of equal values (docs/kernels.md): 511 terms of 2^19 keep
     * the exp sum below 2^28, shift 31, 1/511 -> 0.501 LSB rounds to 1
     * (-127); 512 make it 2^28, TFLite's shift 32 is undefined in C and
     * the exact quotient (1/512 = 0.5 LSB, y < 2^31 over 2^32) is 0, so
     * -128; 4095 the same; 4096 wrap the 32-bit sum: refused. */
    {
        static int8_t deep[4096], deep_o[4096];
        k_softmax_s8_prepare(0.1f, 1.0f, &p);
        memset(deep, 9, sizeof deep);
        CHECK_EQ_INT(k_softmax_s8(&p, deep, deep_o, 1, 511), K_OK);
        CHECK_EQ_INT(deep_o[0], -127);
        CHECK_EQ_INT(deep_o[510], -127);
        static const int32_t depths[] = {512, 1001, 4095};
        for (int k = 0; k < 3; k++) {
            memset(deep_o, 0, sizeof deep_o);
            CHECK_EQ_INT(k_softmax_s8(&p, deep, deep_o, 1, depths[k]), K_OK);
            int off = 0;
            for (int32_t i = 0; i < depths[k]; i++) off += deep_o[i] != -128;
            CHECK_EQ_INT(off, 0);
        }
        CHECK_EQ_INT(k_softmax_s8(&p, deep, deep_o, 1, 4096), K_E_UNSUPPORTED);
        /* one clear maximum over 4095: 1.0 -> 127, the rest far below */
        memset(deep, -128, sizeof deep);
        deep[77] = 127;
        CHECK_EQ_INT(k_softmax_s8(&p, deep, deep_o, 1, 4095), K_OK);
        CHECK_EQ_INT(deep_o[77], 127);
        CHECK_EQ_INT(deep_o[78], -128);
    }

    /* Accuracy: within 1 LSB of the real softmax on 1/256 steps. */
    k_softmax_s8_prepare(0.1f, 1.0f, &p);
    int8_t r[10] = {-128, -90, -40, -10, 0, 3, 20, 21, 60, 61};
    int8_t ro[10];
    k_softmax_s8(&p, r, ro, 1, 10);
    double sum = 0;
    for (int i = 0; i < 10; i++) sum += exp((r[i] - 61) * (double)0.1f);
    int bad = 0;
    for (int i = 0; i < 10; i++) {
        double want = exp((r[i] - 61) * (double)0.1f) / sum * 256.0 - 128.0;
        bad += fabs(ro[i] - want) > 1.0;
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_s16(void)
{
    static int16_t luts[2 * K_SOFTMAX_LUT_SIZE];
    int16_t *exp_lut = luts, *rec_lut = luts + K_SOFTMAX_LUT_SIZE;
    k_softmax_s16_luts(exp_lut, rec_lut);
    /* Output scale: 65536 / (2 * 65535 / 65535) = 32768 per unit.
     * exp(0) = 1.0 -> 32768 -> clamped 32767; exp(-10) * 32768 = 1.49 -> 2
     * after the midpoint bias; 1/(1+0) = 32767 (clamped), 1/(1+1) = 16384,
     * 1/(1 + 0.5) = 21845.3 -> 21845. */
    CHECK_EQ_INT(exp_lut[512], 32767);
    CHECK_EQ_INT(exp_lut[0], 2);
    CHECK_EQ_INT(rec_lut[0], 32767);
    CHECK_EQ_INT(rec_lut[512], 16384);
    CHECK_EQ_INT(rec_lut[256], 21845);
    /* every entry within 2 of the function (bias is at most a few units) */
    int bad = 0;
    for (int i = 0; i <= 512; i++) {
        double x = -10.0 + 10.0 * i / 512.0;
        bad += fabs(exp_lut[i] - fmin(32767.0, exp(x) * 32768.0)) > 2.0;
        double y = i / 512.0;
        bad += fabs(rec_lut[i] - fmin(32767.0, 32768.0 / (1.0 + y))) > 2.0;
    }
    CHECK_EQ_INT(bad, 0);

    k_softmax_s16_params p;
    /* scale 1/4096, beta 1: (1/4096) / (10/65535) = 1.59997.. -> 0.79998 * 2^1 */
    CHECK_EQ_INT(k_softmax_s16_prepare(1.0f / 4096, 1.0f, &p), K_OK);
    CHECK_EQ_INT(p.input_left_shift, 1);
    CHECK_EQ_INT(p.input_multiplier, (int32_t)llround(65535.0 / 40960.0 / 2.0 * 2147483648.0));
    p.exp_lut = exp_lut;
    p.one_over_one_plus_x_lut = rec_lut;

    /* Uniform row of 4: each 1/4 of 32768 */
    int16_t u[4] = {100, 100, 100, 100}, o[10];
    CHECK_EQ_INT(k_softmax_s16(&p, u, o, 1, 4), K_OK);
    for (int i = 0; i < 4; i++) CHECK(o[i] >= 8190 && o[i] <= 8193);
    for (int i = 1; i < 4; i++) CHECK_EQ_INT(o[i], o[0]);
    /* A dominant entry: the others are more than 10 below, where the exp
     * table saturates at its first entry (2 units). */
    int16_t d[3] = {32767, -32768, -20000};
    k_softmax_s16(&p, d, o, 1, 3);
    CHECK(o[0] >= 32750);
    CHECK(o[1] == o[2] && o[1] <= 3);
    /* Accuracy over a spread row, two rows */
    int16_t r[10] = {0, 1000, 2000, 3000, 4000, -4000, 4096, 8000, 8192, 8100};
    k_softmax_s16(&p, r, o, 2, 5);
    bad = 0;
    for (int row = 0; row < 2; row++) {
        double mx = -1e9, sum = 0;
        for (int i = 0; i < 5; i++) mx = fmax(mx, r[row * 5 + i] / 4096.0);
        for (int i = 0; i < 5; i++) sum += exp(r[row * 5 + i] / 4096.0 - mx);
        for (int i = 0; i < 5; i++) {
            double want = exp(r[row * 5 + i] / 4096.0 - mx) / sum * 32768.0;
            bad += fabs(o[row * 5 + i] - want) > 40.0;
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* missing tables */
    p.exp_lut = NULL;
    CHECK_EQ_INT(k_softmax_s16(&p, u, o, 1, 4), K_E_INVALID);
}

static void test_f32(void)
{
    float in[6] = {1.0f, 2.0f, 3.0f, 5.0f, 5.0f, 5.0f}, out[6];
    CHECK_EQ_INT(k_softmax_f32(1.0f, in, out, 2, 3), K_OK);
    float e0 = expf(-2.0f), e1 = expf(-1.0f), e2 = expf(0.0f);
    float s = e0 + e1 + e2;
    CHECK(out[0] == e0 / s && out[1] == e1 / s && out[2] == e2 / s);
    CHECK(fabsf(out[3] - 1.0f / 3.0f) < 1e-7f && out[3] == out[4] && out[4] == out[5]);
    k_softmax_f32(0.5f, in, out, 1, 3);
    CHECK(out[2] == 1.0f / (expf(-1.0f) + expf(-0.5f) + 1.0f));
}

int main(void)
{
    test_prepare_s8();
    test_s8();
    test_s16();
    test_f32();
    TEST_MAIN_END();
}
