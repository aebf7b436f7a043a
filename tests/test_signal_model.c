/* The audio front end end to end: the shared zoo's
 * tflm_audio_preprocessor_int8 (the signal library on the CPU, five int32
 * ops on the NPU) over two sequences of four 480-sample frames, the state
 * of its spectral subtraction carried from frame to frame, gives TFLite
 * Micro's bytes (the expected values below are TFLite Micro's outputs for
 * these frames: its commit of docs/kernels-custom.md with the signal
 * library registered) on the reference interpreter and in the compiled
 * forms (the runtime's NPRT, the loadable model, the TFLite file with
 * ethos-u ops) for ethos-u55-128 and ethos-u65-256. Reopening a model
 * starts its state afresh. Skipped without the shared folder. */
#include "test.h"
#include "test_model.h"
#include "../include/npuc/npuc.h"
#include "../src/util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FRAME 480
#define FEATURES 40
#define FRAMES 4

/* Sequence 0: full-scale noise (seed 11000 + k); 1: a triangle tone of
 * period 16 samples, amplitude 6000, plus noise within +-64 (seed 12000 + k). */
static void frame(int seq, int k, int16_t *x)
{
    npuc_rng r;
    npuc_rng_seed(&r, (uint64_t)(11 + seq) * 1000 + (uint64_t)k);
    for (int i = 0; i < FRAME; i++) {
        if (seq == 0) {
            x[i] = (int16_t)npuc_rng_range(&r, -32768, 32767);
        } else {
            const int t = (k * FRAME + i) % 16, tri = t < 8 ? t * 1500 - 6000 : (16 - t) * 1500 - 6000;
            x[i] = (int16_t)(tri + npuc_rng_range(&r, -64, 64));
        }
    }
}

/* TFLite Micro's outputs (int8 features) for frames 1..4 of each sequence. */
static const int8_t want[2][FRAMES][FEATURES] = {
    {{126, 105, 127, 103, 126, 103, 127, 105, 126, 105, 127, 105, 127, 104, 126, 105, 127, 105, 127, 105,
      126, 105, 126, 105, 127, 105, 126, 105, 127, 105, 127, 105, 127, 105, 127, 106, 127, 105, 127, 105},
     {109, 86, 110, 85, 110, 85, 110, 87, 109, 86, 111, 87, 110, 86, 110, 86, 110, 88, 110, 86,
      110, 87, 110, 86, 110, 87, 110, 87, 110, 88, 111, 88, 110, 88, 111, 88, 110, 88, 111, 88},
     {98, 76, 100, 75, 99, 75, 99, 75, 99, 76, 101, 76, 99, 76, 100, 75, 100, 76, 99, 75,
      100, 75, 100, 76, 100, 76, 100, 76, 100, 76, 101, 77, 100, 76, 101, 77, 100, 76, 100, 77},
     {91, 66, 93, 65, 91, 65, 93, 67, 91, 66, 93, 67, 92, 66, 92, 66, 92, 67, 93, 67,
      92, 67, 92, 66, 92, 67, 92, 66, 92, 67, 93, 68, 92, 69, 93, 68, 93, 68, 93, 68}},
    {{62, 66, 62, 63, 72, 69, 73, 72, 71, 75, 103, 104, 127, 103, 98, 79, 70, 73, 70, 68,
      90, 73, 90, 85, 83, 101, 124, 81, 80, 80, 89, 73, 87, 100, 121, 83, 86, 83, 116, 100},
     {53, 50, 55, 58, 71, 62, 66, 64, 68, 62, 93, 86, 110, 85, 89, 66, 69, 62, 70, 59,
      83, 63, 84, 70, 76, 83, 107, 69, 73, 64, 80, 63, 79, 82, 105, 71, 80, 68, 102, 83},
     {51, 52, 60, 46, 66, 52, 61, 56, 66, 54, 85, 75, 100, 73, 82, 57, 59, 55, 55, 48,
      77, 53, 78, 61, 71, 71, 97, 60, 68, 57, 76, 58, 76, 71, 95, 61, 76, 62, 92, 71},
     {59, 37, 52, 45, 63, 47, 60, 48, 61, 48, 80, 65, 93, 65, 77, 52, 54, 45, 62, 43,
      73, 49, 73, 55, 68, 63, 89, 53, 69, 52, 71, 47, 68, 62, 88, 52, 68, 50, 86, 63}},
};

/* Opens data (a TFLite model or a compiled form) afresh for each sequence
 * and runs its frames in order; every output must be TFLite Micro's. */
static void check_model(const void *data, size_t size, const npuc_target_spec *target, const char *what)
{
    for (int seq = 0; seq < 2; seq++) {
        npuc_model *m = NULL;
        if (npuc_model_open_memory(data, size, target, NULL, &m) != NPUC_STATUS_OK) {
            fprintf(stderr, "%s: open: %s\n", what, npuc_last_error());
            CHECK(0);
            return;
        }
        for (int k = 1; k <= FRAMES; k++) {
            int16_t x[FRAME];
            int8_t y[FEATURES];
            frame(seq, k, x);
            const int rc = npuc_set_input(m, 0, x, sizeof x) || npuc_run(m, NULL) || npuc_get_output(m, 0, y, sizeof y);
            if (rc) fprintf(stderr, "%s: sequence %d frame %d: %s\n", what, seq, k, npuc_last_error());
            CHECK_EQ_INT(rc, 0);
            int diff = 0;
            for (int i = 0; i < FEATURES; i++) diff += y[i] != want[seq][k - 1][i];
            if (diff) fprintf(stderr, "%s: sequence %d frame %d: %d of %d features differ\n", what, seq, k, diff, FEATURES);
            CHECK_EQ_INT(diff, 0);
        }
        npuc_model_close(&m);
    }
}

int main(void)
{
    char path[1024];
    if (!t_shared("models/zoo/tflm_audio_preprocessor_int8.tflite", path, sizeof path)) {
        printf("skip: shared zoo model tflm_audio_preprocessor_int8 absent\n");
        TEST_MAIN_END();
    }
    size_t size = 0;
    uint8_t *src = t_read_all(path, &size);
    CHECK(src != NULL);
    if (!src) TEST_MAIN_END();
    check_model(src, size, NULL, "reference interpreter");
    static const char *const npus[2] = {"ethos-u55-128", "ethos-u65-256"};
    static const char *const forms[3] = {".nprt", "_rel.bin", "_npu.tflite"};
    int checked = 0;
    for (int v = 0; v < 2; v++) {
        npuc_compile_options co;
        memset(&co, 0, sizeof co);
        co.target.npu = npus[v];
        co.formats = NPUC_FORMAT_ALL;
        npuc_compiled *c = NULL;
        if (npuc_compile_memory(src, size, &co, &c) != NPUC_STATUS_OK) {
            fprintf(stderr, "%s: compile: %s\n", npus[v], npuc_last_error());
            CHECK(0);
            continue;
        }
        /* the runtime's activation pool: the arena plus the CPU kernels'
         * scratch (the real FFT's padded frame, half FFT and butterfly
         * values: 1024 + 1024 + 16 bytes), as the report says */
        npuc_compiled_totals tot;
        CHECK_EQ_INT(npuc_compiled_get_totals(c, &tot), NPUC_STATUS_OK);
        CHECK_EQ_INT(tot.cpu_scratch_bytes, 2064);
        for (size_t i = 0; i < npuc_compiled_file_count(c); i++) {
            npuc_output_file o;
            npuc_compiled_file(c, i, &o);
            if (strstr(o.name, "_report.json")) {
                char *j = malloc(o.size + 1);
                CHECK(j != NULL);
                if (j) {
                    memcpy(j, o.data, o.size);
                    j[o.size] = 0;
                    CHECK(strstr(j, "\"cpu_scratch_bytes\": 2064") != NULL);
                    free(j);
                }
            }
            if (!strstr(o.name, ".nprt")) continue;
            npuc_model *m = NULL;
            npuc_model_info info;
            npuc_target_spec t = {.npu = npus[v]};
            if (npuc_model_open_memory(o.data, o.size, &t, NULL, &m) == NPUC_STATUS_OK &&
                npuc_model_get_info(m, &info) == NPUC_STATUS_OK) {
                const uint64_t arena = (tot.arena_bytes + 15) / 16 * 16;
                CHECK_EQ_INT(info.activations_size, arena + tot.cpu_scratch_bytes);
            } else {
                CHECK(0);
            }
            npuc_model_close(&m);
        }
        for (int f = 0; f < 3; f++) {
            for (size_t i = 0; i < npuc_compiled_file_count(c); i++) {
                npuc_output_file o;
                npuc_compiled_file(c, i, &o);
                const size_t a = strlen(o.name), b = strlen(forms[f]);
                if (a < b || strcmp(o.name + a - b, forms[f])) continue;
                char what[96];
                snprintf(what, sizeof what, "%s %s", npus[v], forms[f]);
                npuc_target_spec t = {.npu = npus[v]};
                check_model(o.data, o.size, &t, what);
                checked++;
            }
        }
        npuc_compiled_free(&c);
    }
    CHECK_EQ_INT(checked, 6);
    printf("tflm_audio_preprocessor_int8: TFLite Micro's features over %d frames, reference and %d compiled forms\n",
           2 * FRAMES, checked);
    free(src);
    TEST_MAIN_END();
}
