/* The signal library (k_signal.c, ops_signal.c): hand-worked cases of each
 * kernel's integer arithmetic (saturation, TFLite Micro's MaxAbs16 order
 * quirk, the filter bank's carried unweighted sums, the square root's
 * rounding and caps, the spectral subtraction's state over frames and its
 * reset, the PCAN gain's interpolation, the log's table), the real FFT
 * against a double-precision DFT on every radix path, blob and tensor
 * checks, and the interpreter's errors. The whole audio front end
 * (tflm_audio_preprocessor_int8) is checked in test_signal_model.c. */
#include "test.h"
#include "k_op_test.h"
#include "flexbuf_build.h"
#include "../src/tflite/flexbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Runs kind with n_in inputs, n_out outputs, scratch and persistent memory. */
static int run_io(uint32_t kind, const void *blob, uint32_t size, int32_t n_in, void *const *in, const uint32_t *in_size,
                  int32_t n_out, void *const *out, const uint32_t *out_size, void *scratch, uint32_t scratch_size,
                  void *persist, uint32_t persist_size)
{
    k_op_io io = {.in = in, .in_size = in_size, .n_in = n_in, .out = out, .out_size = out_size, .n_out = n_out,
                  .scratch = scratch, .scratch_size = scratch_size, .persistent = persist,
                  .persistent_size = persist_size};
    return k_op_run(kind, blob, size, &io);
}

/* ---- SignalWindow ---- */

static void test_window(void)
{
    /* two frames of the two weights (Q14 0.5 and 2.0 - 2^-14), shift 14:
     * 1000 * 0.5 ... the shift floors (-1999.94 -> -2000), then saturates */
    const k_op_window_blob b = {4, 2, 14, 0};
    int16_t in[4] = {1000, -1000, 32767, -32768}, w[2] = {8192, 32767}, out[4];
    void *ins[2] = {in, w};
    const uint32_t isz[2] = {8, 4};
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_WINDOW_S16, &b, sizeof b, 2, ins, isz, out, 8), K_OK);
    CHECK_EQ_INT(out[0], 500);
    CHECK_EQ_INT(out[1], -2000);
    CHECK_EQ_INT(out[2], 16383);
    CHECK_EQ_INT(out[3], -32768);
    const int16_t w2[2] = {32767, 32767};
    void *ins2[2] = {in, (void *)w2};
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_WINDOW_S16, &b, sizeof b, 2, ins2, isz, out, 8), K_OK);
    CHECK_EQ_INT(out[2], 32767); /* 65532 saturates */
    /* not whole frames, a shift of 32: corrupt blobs */
    k_op_window_blob bad = b;
    bad.n = 5;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_WINDOW_S16, &bad, sizeof bad), K_E_INVALID);
    bad = b;
    bad.shift = 32;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_WINDOW_S16, &bad, sizeof bad), K_E_INVALID);
    /* an output shorter than the frames */
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_WINDOW_S16, &b, sizeof b, 2, ins, isz, out, 6), K_E_INVALID);
}

/* ---- SignalFftAutoScale ---- */

static int auto_scale(const int16_t *in, int32_t n, int16_t *out)
{
    const k_op_sig_n_blob b = {n, 0, 0, 0};
    int32_t bits = -1;
    void *ins[1] = {(void *)in}, *outs[2] = {out, &bits};
    const uint32_t isz[1] = {2u * (uint32_t)n}, osz[2] = {2u * (uint32_t)n, 4};
    const int rc = run_io(K_OP_SIGNAL_FFT_AUTO_SCALE_S16, &b, sizeof b, 1, ins, isz, 2, outs, osz, NULL, 0, NULL, 0);
    return rc ? -100 - rc : bits;
}

static void test_fft_auto_scale(void)
{
    int16_t out[3];
    /* largest magnitude 5: 3 bits, scaled by 2^12 */
    const int16_t a[3] = {0, 3, -5};
    CHECK_EQ_INT(auto_scale(a, 3, out), 12);
    CHECK(out[0] == 0 && out[1] == 12288 && out[2] == -20480);
    /* TFLite Micro's MaxAbs16 keeps an int16: -32768 becomes the maximum
     * -32768, which any later value beats, so 5 sets the scale and -32768
     * times 2^12 wraps to 0 */
    const int16_t q[2] = {-32768, 5};
    CHECK_EQ_INT(auto_scale(q, 2, out), 12);
    CHECK(out[0] == 0 && out[1] == 20480);
    /* -32768 last: the maximum is -32768, its MSB as a uint32 is 32: no scaling */
    const int16_t q2[2] = {5, -32768};
    CHECK_EQ_INT(auto_scale(q2, 2, out), 0);
    CHECK(out[0] == 5 && out[1] == -32768);
    const int16_t z[2] = {0, 0}, one[1] = {-1}, big[1] = {16384};
    CHECK_EQ_INT(auto_scale(z, 2, out), 0);
    CHECK_EQ_INT(auto_scale(one, 1, out), 14);
    CHECK_EQ_INT(out[0], -16384);
    CHECK_EQ_INT(auto_scale(big, 1, out), 0);
    CHECK_EQ_INT(auto_scale(a, 0, out), 0);
}

/* ---- SignalRfft ---- */

/* One frame of the int16 real FFT of fft_length points (input_length
 * samples) into out (fft_length / 2 + 1 complex values); the status. */
static int rfft(int32_t fft_length, const int16_t *in, int32_t input_length, int16_t *out)
{
    const uint32_t size = k_rfft_blob_bytes(fft_length);
    uint8_t *blob = calloc(size + 8, 1);
    if (!blob) return -1;
    int rc = k_rfft_plan(fft_length, input_length, 1, blob, size);
    k_op_rfft_blob b;
    memcpy(&b, blob, sizeof b);
    const uint64_t ss = k_rfft_scratch_bytes(&b);
    void *scratch = malloc(ss + 4);
    void *ins[1] = {(void *)in}, *outs[1] = {out};
    const uint32_t isz[1] = {2u * (uint32_t)input_length}, osz[1] = {4u * (uint32_t)(fft_length / 2 + 1)};
    if (!rc) rc = run_io(K_OP_SIGNAL_RFFT_S16, blob, size, 1, ins, isz, 1, outs, osz, scratch, (uint32_t)ss, NULL, 0);
    free(scratch);
    free(blob);
    return rc;
}

/* kiss_fft's fixed-point FFT divides by the radix at every stage, its real
 * split by 2 twice: out[k] is the DFT over fft_length, within a few LSB of
 * rounding per stage; DC and Nyquist have no imaginary part. */
static void rfft_vs_dft(int32_t fft_length, int32_t input_length, uint64_t seed, int32_t amp, double tol)
{
    int16_t *x = calloc((size_t)fft_length, 2), *out = calloc((size_t)fft_length + 2, 2);
    if (!x || !out) {
        CHECK(0);
        free(x);
        free(out);
        return;
    }
    npuc_rng r;
    npuc_rng_seed(&r, seed);
    for (int32_t i = 0; i < input_length; i++) x[i] = (int16_t)npuc_rng_range(&r, -amp, amp);
    CHECK_EQ_INT(rfft(fft_length, x, input_length, out), K_OK);
    double worst = 0;
    for (int32_t k = 0; k <= fft_length / 2; k++) {
        double re = 0, im = 0;
        for (int32_t n = 0; n < input_length; n++) {
            const double ph = -2.0 * 3.14159265358979323846 * (double)k * n / fft_length;
            re += x[n] * cos(ph);
            im += x[n] * sin(ph);
        }
        re /= fft_length;
        im /= fft_length;
        const double e = fmax(fabs(out[2 * k] - re), fabs(out[2 * k + 1] - im));
        if (e > worst) worst = e;
    }
    if (worst > tol) fprintf(stderr, "rfft %d: worst %.2f LSB > %.2f\n", fft_length, worst, tol);
    CHECK(worst <= tol);
    CHECK(out[1] == 0 && out[fft_length + 1] == 0);
    free(x);
    free(out);
}

static void test_rfft(void)
{
    /* DC: every sample c gives c in bin 0 (sum / N), 0 elsewhere */
    int16_t x[8], out[10];
    for (int i = 0; i < 8; i++) x[i] = 1000;
    CHECK_EQ_INT(rfft(8, x, 8, out), K_OK);
    CHECK(abs(out[0] - 1000) <= 2);
    for (int k = 1; k <= 4; k++) CHECK(abs(out[2 * k]) <= 2 && abs(out[2 * k + 1]) <= 2);
    /* every radix path: 4 (512: the audio front end's), 4 and 2 (8, 32),
     * 3 (24), 5 (10, 40), the generic one (14: radix 7; 2: radix 1),
     * zero padding (480 of 512) */
    rfft_vs_dft(512, 480, 1, 8000, 6);
    rfft_vs_dft(512, 512, 2, 16000, 6);
    rfft_vs_dft(32, 32, 3, 8000, 4);
    rfft_vs_dft(8, 8, 4, 8000, 3);
    rfft_vs_dft(24, 20, 5, 8000, 4);
    rfft_vs_dft(10, 10, 6, 8000, 3);
    rfft_vs_dft(40, 33, 7, 8000, 4);
    rfft_vs_dft(14, 14, 8, 8000, 3);
    rfft_vs_dft(2, 2, 9, 8000, 2);
    /* plans that do not exist, a blob that lies about its tables */
    uint8_t blob[64];
    CHECK_EQ_INT(k_rfft_blob_bytes(7), 0);
    CHECK_EQ_INT(k_rfft_blob_bytes(0), 0);
    CHECK_EQ_INT(k_rfft_blob_bytes(K_RFFT_MAX + 2), 0);
    CHECK_EQ_INT(k_rfft_plan(8, 9, 1, blob, sizeof blob), K_E_INVALID);
    const uint32_t size = k_rfft_blob_bytes(8);
    uint8_t *b8 = calloc(size, 1);
    CHECK(b8 != NULL);
    if (!b8) return;
    CHECK_EQ_INT(k_rfft_plan(8, 8, 1, b8, size), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_RFFT_S16, b8, size), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_RFFT_S16, b8, size - 4), K_E_INVALID);
    k_op_rfft_blob b;
    memcpy(&b, b8, sizeof b);
    const int32_t wrong[2] = {4, 2}; /* 4 * 2 is not the half length 4 */
    memcpy(b8 + b.factors_off, wrong, sizeof wrong);
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_RFFT_S16, b8, size), K_E_INVALID);
    free(b8);
}

/* ---- SignalEnergy ---- */

static void test_energy(void)
{
    /* bins [1, 3) of 4; (-32768)^2 * 2 = 2^31 fits the uint32; the others 0 */
    const k_op_energy_blob b = {4, 4, 1, 3};
    int16_t in[8] = {3, 4, -32768, -32768, 300, -400, 9, 9};
    uint32_t out[4] = {7, 7, 7, 7};
    void *ins[1] = {in};
    const uint32_t isz[1] = {16};
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_ENERGY, &b, sizeof b, 1, ins, isz, out, 16), K_OK);
    CHECK(out[0] == 0 && out[1] == 2147483648u && out[2] == 250000 && out[3] == 0);
    /* written over its input (the compiler places it so, cc_alloc.c): the
     * same values */
    int16_t over[8] = {3, 4, -32768, -32768, 300, -400, 9, 9};
    void *ins_over[1] = {over};
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_ENERGY, &b, sizeof b, 1, ins_over, isz, over, 16), K_OK);
    CHECK(!memcmp(over, out, sizeof out));
    k_op_energy_blob bad = b;
    bad.end = 5;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_ENERGY, &bad, sizeof bad), K_E_INVALID);
    bad = b;
    bad.start = 3;
    bad.end = 2;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_ENERGY, &bad, sizeof bad), K_E_INVALID);
}

/* ---- SignalFilterBank ---- */

static int fbank(const k_op_sig_n_blob *b, uint32_t *in, int16_t *w, int16_t *uw, int16_t *fs, int16_t *ws,
                 int16_t *wd, uint64_t *out)
{
    void *ins[6] = {in, w, uw, fs, ws, wd}, *outs[1] = {out};
    const uint32_t nch = 2u * (uint32_t)(b->n + 1);
    const uint32_t isz[6] = {4u * (uint32_t)b->n_in, 2u * (uint32_t)b->n_weights, 2u * (uint32_t)b->n_weights, nch, nch,
                             nch};
    const uint32_t osz[1] = {8u * (uint32_t)b->n};
    return run_io(K_OP_SIGNAL_FILTER_BANK, b, sizeof *b, 6, ins, isz, 1, outs, osz, NULL, 0, NULL, 0);
}

static void test_filter_bank(void)
{
    /* channel 0 (below the first band): 2*10 is dropped, its unweighted 10
     * carries into channel 1: 10 + 3*20 = 70; channel 2: 20 + 4*30 + 5*40 */
    const k_op_sig_n_blob b = {2, 4, 4, 0};
    uint32_t in[4] = {10, 20, 30, 40};
    int16_t w[4] = {2, 3, 4, 5}, uw[4] = {1, 1, 1, 1}, fs[3] = {0, 1, 2}, ws[3] = {0, 1, 2}, wd[3] = {1, 1, 2};
    uint64_t out[2];
    CHECK_EQ_INT(fbank(&b, in, w, uw, fs, ws, wd, out), K_OK);
    CHECK(out[0] == 70 && out[1] == 340);
    /* 64-bit sums: 32767 * (2^32 - 1) twice */
    uint32_t big[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0};
    int16_t wb[4] = {32767, 32767, 0, 0}, z[4] = {0, 0, 0, 0}, fs2[3] = {0, 0, 0}, ws2[3] = {0, 0, 0},
            wd2[3] = {0, 2, 0};
    CHECK_EQ_INT(fbank(&b, big, wb, z, fs2, ws2, wd2, out), K_OK);
    CHECK(out[0] == 2ull * 32767ull * 0xFFFFFFFFull && out[1] == 0);
    /* the channel tables are tensors: a band past the input, a negative
     * start, weights past the table are refused at run time */
    wd[2] = 3;
    CHECK_EQ_INT(fbank(&b, in, w, uw, fs, ws, wd, out), K_E_INVALID);
    wd[2] = 2;
    fs[1] = -1;
    CHECK_EQ_INT(fbank(&b, in, w, uw, fs, ws, wd, out), K_E_INVALID);
    fs[1] = 1;
    ws[2] = 3;
    CHECK_EQ_INT(fbank(&b, in, w, uw, fs, ws, wd, out), K_E_INVALID);
}

/* ---- SignalFilterBankSquareRoot ---- */

static void test_fb_sqrt(void)
{
    /* rounded to nearest (a remainder above the root adds 1), capped at
     * 0xFFFF below 2^32 and 0xFFFFFFFF above */
    uint64_t in[12] = {0, 1, 2, 3, 15, 16, 17, 0xFFFFFFFFull, 1ull << 32, (1ull << 40) + 12345, UINT64_MAX,
                       (1ull << 40) + (1ull << 20) + 1};
    const uint32_t want[12] = {0, 1, 1, 2, 4, 4, 4, 65535, 65536, 1048576, 4294967295u, 1048577};
    const k_op_sig_n_blob b = {12, 0, 0, 0};
    uint32_t out[12];
    int32_t shift = 0;
    void *ins[2] = {in, &shift}, *outs[1] = {out};
    const uint32_t isz[2] = {96, 4}, osz[1] = {48};
    CHECK_EQ_INT(run_io(K_OP_SIGNAL_FILTER_BANK_SQRT, &b, sizeof b, 2, ins, isz, 1, outs, osz, NULL, 0, NULL, 0), K_OK);
    for (int i = 0; i < 12; i++) CHECK_EQ_INT(out[i], want[i]);
    shift = 3;
    CHECK_EQ_INT(run_io(K_OP_SIGNAL_FILTER_BANK_SQRT, &b, sizeof b, 2, ins, isz, 1, outs, osz, NULL, 0, NULL, 0), K_OK);
    CHECK_EQ_INT(out[8], 8192);
    /* a shift TFLite Micro leaves undefined */
    shift = 32;
    CHECK_EQ_INT(run_io(K_OP_SIGNAL_FILTER_BANK_SQRT, &b, sizeof b, 2, ins, isz, 1, outs, osz, NULL, 0, NULL, 0),
                 K_E_UNSUPPORTED);
}

/* ---- SignalFilterBankSpectralSubtraction ---- */

static void test_specsub(void)
{
    /* smoothing 4/16 on even channels, 8/16 on odd ones; floor 2/16 of the
     * input; smoothing_bits 2 */
    k_op_specsub_blob b = {2, 4, 12, 8, 8, 2, 2, 4, 0, 0};
    uint32_t in[2], out[2], noise[2], state[2] = {0, 0};
    void *ins[1] = {in}, *outs[2] = {out, noise};
    const uint32_t isz[1] = {8}, osz[2] = {8, 8};
#define SPECSUB() run_io(K_OP_SIGNAL_SPECTRAL_SUBTRACTION, &b, sizeof b, 1, ins, isz, 2, outs, osz, NULL, 0, state, 8)
    in[0] = 100, in[1] = 100;
    CHECK_EQ_INT(SPECSUB(), K_OK);
    CHECK(noise[0] == 100 && noise[1] == 200 && out[0] == 75 && out[1] == 50);
    /* frame 2: channel 0's estimate (85) passes the signal (40): the output
     * is the floor (1); without clamping the state keeps 85 */
    in[0] = 10;
    CHECK_EQ_INT(SPECSUB(), K_OK);
    CHECK(noise[0] == 85 && noise[1] == 300 && out[0] == 1 && out[1] == 25);
    /* with clamping the state takes the signal */
    b.clamping = 1;
    state[0] = 100, state[1] = 200;
    CHECK_EQ_INT(SPECSUB(), K_OK);
    CHECK(noise[0] == 40 && state[0] == 40 && out[0] == 1);
    /* zeroed state (a reset) starts over */
    state[0] = state[1] = 0;
    in[0] = 100;
    CHECK_EQ_INT(SPECSUB(), K_OK);
    CHECK(noise[0] == 100 && out[0] == 75);
    /* no room for the state */
    CHECK_EQ_INT(run_io(K_OP_SIGNAL_SPECTRAL_SUBTRACTION, &b, sizeof b, 1, ins, isz, 2, outs, osz, NULL, 0, state, 4),
                 K_E_INVALID);
#undef SPECSUB
    b.spectral_subtraction_bits = 64;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_SPECTRAL_SUBTRACTION, &b, sizeof b), K_E_INVALID);
}

/* ---- SignalPCAN ---- */

static void test_pcan(void)
{
    int16_t lut[K_PCAN_LUT_MIN];
    memset(lut, 0, sizeof lut);
    lut[0] = 100, lut[1] = 200, lut[2] = 300;
    lut[10] = 1000, lut[11] = 64, lut[12] = -32;
    /* noise 0..2: the LUT's first entries; 8 (interval 4, fraction 0):
     * lut[10]; 12 (fraction 512 of 1024): 1000 + ((-32*512 >> 5) + 64*32)
     * * 512 rounded >> 15 = 1024 */
    uint32_t in[5] = {10, 100, 1000, 100, 100}, noise[5] = {0, 1, 2, 8, 12}, out[5];
    k_op_pcan_blob b = {5, 0, K_PCAN_LUT_MIN, 0};
    void *ins[3] = {in, noise, lut}, *outs[1] = {out};
    const uint32_t isz[3] = {20, 20, sizeof lut}, osz[1] = {20};
    CHECK_EQ_INT(run_io(K_OP_SIGNAL_PCAN, &b, sizeof b, 3, ins, isz, 1, outs, osz, NULL, 0, NULL, 0), K_OK);
    /* snr 1000, 20000, 300000, 100000, 102400 shrunk: below 8192 x^2 >> 20,
     * else (x >> 6) - 64 */
    CHECK_EQ_INT(out[0], 0);
    CHECK_EQ_INT(out[1], 248);
    CHECK_EQ_INT(out[2], 4623);
    CHECK_EQ_INT(out[3], 1498);
    CHECK_EQ_INT(out[4], 1536);
    b.snr_shift = 2;
    CHECK_EQ_INT(run_io(K_OP_SIGNAL_PCAN, &b, sizeof b, 3, ins, isz, 1, outs, osz, NULL, 0, NULL, 0), K_OK);
    CHECK_EQ_INT(out[4], 336);
    CHECK_EQ_INT(out[0], (250u * 250u) >> 20);
    /* a LUT the gain function would read past */
    b.lut_len = K_PCAN_LUT_MIN - 1;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_PCAN, &b, sizeof b), K_E_INVALID);
}

/* ---- SignalFilterBankLog ---- */

static void test_fb_log(void)
{
    uint16_t lut[K_LOG_LUT];
    k_log_lut(lut);
    /* round((log2(1 + k/128) - k/128) * 65536) */
    CHECK(lut[0] == 0 && lut[1] == 224 && lut[64] == 5568 && lut[65] == 5547 && lut[127] == 142 && lut[128] == 0);
    uint8_t blob[K_FBLOG_BLOB_BYTES];
    k_op_fblog_blob b = {5, 1024, 0, sizeof(k_op_fblog_blob)};
    memcpy(blob, &b, sizeof b);
    memcpy(blob + sizeof b, lut, sizeof lut);
    /* ln(2) * 1024 = 709.8 -> 710, ln(3) * 1024 = 1125.0 -> 1125; 0 and 1
     * give 0; 2^32 - 1: the last segment (142 down to 0, interpolated with
     * a floor: -2), log2 = 31 + 65675/65536, 22715 (ln: 22713.05) */
    uint32_t in[5] = {2, 3, 1, 0, 0xFFFFFFFFu};
    int16_t out[5];
    void *ins[1] = {in};
    const uint32_t isz[1] = {20};
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_FILTER_BANK_LOG, blob, sizeof blob, 1, ins, isz, out, 10), K_OK);
    CHECK(out[0] == 710 && out[1] == 1125 && out[2] == 0 && out[3] == 0);
    CHECK_EQ_INT(out[4], 22715);
    /* correction bits: 1 << 1 = 2; a scale that leaves int16 saturates */
    b.correction_bits = 1;
    b.output_scale = 65536;
    memcpy(blob, &b, sizeof b);
    CHECK_EQ_INT(kt_run(K_OP_SIGNAL_FILTER_BANK_LOG, blob, sizeof blob, 1, ins, isz, out, 10), K_OK);
    CHECK(out[2] == 32767 && out[3] == 0);
    /* a damaged table */
    blob[sizeof b + 1] = 0x80;
    CHECK_EQ_INT(k_op_validate(K_OP_SIGNAL_FILTER_BANK_LOG, blob, sizeof blob), K_E_INVALID);
}

/* ---- through the interpreter: what Prepare refuses ---- */

static graph *sig_graph(const char *code, int32_t n_in, const graph_dtype *ti, const int32_t *ni, int32_t n_out,
                        const graph_dtype *to, const int32_t *no, const uint8_t *opts, uint32_t n_opts)
{
    graph *g = graph_new("sig");
    int32_t in[8], out[4];
    for (int32_t i = 0; i < n_in; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", (int)i);
        const int32_t s[1] = {ni[i]};
        in[i] = kt_tensor(g, name, ti[i], ni[i] < 0 ? 0 : 1, s, NULL, 0, 0);
    }
    for (int32_t i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof name, "out%d", (int)i);
        const int32_t s[1] = {no[i]};
        out[i] = kt_tensor(g, name, to[i], no[i] < 0 ? 0 : 1, s, NULL, 0, 0);
    }
    const int32_t oi = graph_add_op(g, TFL_OP_CUSTOM, NULL, n_in, in, n_out, out);
    g->ops[oi].custom_code = npuc_arena_strdup(&g->arena, code);
    if (n_opts) {
        g->ops[oi].custom_options = npuc_arena_memdup(&g->arena, opts, n_opts);
        g->ops[oi].n_custom_options = n_opts;
    }
    graph_set_io(g, n_in, in, n_out, out);
    return g;
}

static void expect_create(graph *g, int want, const char *msg)
{
    npuc_err e = {0};
    const int rc = kt_try_create(g, &e);
    CHECK_EQ_INT(rc, want);
    if (msg) CHECK_STR_CONTAINS(e.msg, msg);
    graph_free(g);
}

static void test_interp_errors(void)
{
    uint8_t buf[256];
    const graph_dtype i16[2] = {GRAPH_I16, GRAPH_I16}, u32[1] = {GRAPH_U32}, f32[2] = {GRAPH_F32, GRAPH_I16};
    /* window: options by position ('shift'), whole frames */
    const fb_ent sh[1] = {{"shift", FLEXBUF_INT, 12}};
    size_t n = fb_build(buf, sh, 1, 1);
    const int32_t n480[2] = {480, 480}, n400[2] = {480, 400};
    expect_create(sig_graph("SignalWindow", 2, i16, n480, 1, i16, n480, buf, (uint32_t)n), NPUC_OK, NULL);
    expect_create(sig_graph("SignalWindow", 2, i16, n400, 1, i16, n480, buf, (uint32_t)n), NPUC_E_INVALID,
                  "not whole frames");
    expect_create(sig_graph("SignalWindow", 2, f32, n480, 1, i16, n480, buf, (uint32_t)n), NPUC_E_UNSUPPORTED,
                  "is float32, the kernel takes int16");
    expect_create(sig_graph("SignalWindow", 2, i16, n480, 1, i16, n480, NULL, 0), NPUC_E_INVALID,
                  "custom_options are missing (need 'shift')");
    /* energy: the bins inside the spectrum and the output */
    const fb_ent en[2] = {{"end_index", FLEXBUF_INT, 300}, {"start_index", FLEXBUF_INT, 4}};
    n = fb_build(buf, en, 2, 2);
    const int32_t spec[1] = {514}, bins[1] = {257};
    expect_create(sig_graph("SignalEnergy", 1, i16, spec, 1, u32, bins, buf, (uint32_t)n), NPUC_E_INVALID,
                  "bins [4, 300) are outside");
    /* rfft: the int16 form only, an even length, frames that fit */
    const fb_ent rf[2] = {{"T", FLEXBUF_INT, 7}, {"fft_length", FLEXBUF_INT, 512}};
    n = fb_build(buf, rf, 2, 2);
    const int32_t fr[1] = {480}, sp[1] = {514}, sp2[1] = {512};
    expect_create(sig_graph("SignalRfft", 1, i16, fr, 1, i16, sp, buf, (uint32_t)n), NPUC_OK, NULL);
    expect_create(sig_graph("SignalRfft", 1, i16, fr, 1, i16, sp2, buf, (uint32_t)n), NPUC_E_INVALID,
                  "an FFT of 512 points gives 514");
    const fb_ent rf32[2] = {{"T", FLEXBUF_INT, 2}, {"fft_length", FLEXBUF_INT, 512}};
    n = fb_build(buf, rf32, 2, 2);
    expect_create(sig_graph("SignalRfft", 1, i16, fr, 1, i16, sp, buf, (uint32_t)n), NPUC_E_UNSUPPORTED,
                  "T (int32) is not int16");
    /* pcan: a gain LUT shorter than the gain function reads */
    const fb_ent sn[1] = {{"snr_shift", FLEXBUF_INT, 6}};
    n = fb_build(buf, sn, 1, 1);
    const graph_dtype pt[3] = {GRAPH_U32, GRAPH_U32, GRAPH_I16};
    const int32_t pn[3] = {40, 40, 100}, po[1] = {40};
    expect_create(sig_graph("SignalPCAN", 3, pt, pn, 1, u32, po, buf, (uint32_t)n), NPUC_E_INVALID,
                  "the gain function reads up to 125");
}

int main(void)
{
    test_window();
    test_fft_auto_scale();
    test_rfft();
    test_energy();
    test_filter_bank();
    test_fb_sqrt();
    test_specsub();
    test_pcan();
    test_fb_log();
    test_interp_errors();
    TEST_MAIN_END();
}
