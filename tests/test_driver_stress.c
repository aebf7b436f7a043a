/* Driver stress: 4 threads share 2 virtual NPUs (an Ethos-U55-128 and an
 * Ethos-U65-256) through ethosu_reserve_driver / ethosu_release_driver and
 * run 3 Vela-compiled models, 2000 inferences in all, with the three ways
 * of waiting (invoke_v3, async + blocking wait, async + polling). Each
 * thread picks the model build that matches the NPU it got (hw_info); every
 * output must equal the reference interpreter's on the original model. */
#include "test_driver_models.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#define N_THREADS 4
/* 2000 inferences; under ThreadSanitizer (10-20x slower) 800 do for races */
#if defined(__SANITIZE_THREAD__)
#define N_INFERENCES_DEFAULT 800
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define N_INFERENCES_DEFAULT 800
#endif
#endif
#ifndef N_INFERENCES_DEFAULT
#define N_INFERENCES_DEFAULT 2000
#endif
static int n_inferences = N_INFERENCES_DEFAULT;   /* NPUC_STRESS_INFERENCES overrides */
#define N_MODELS 3
#define N_SETS 4
#define FAST_SIZE (1u << 20)

static const char *const vela_names[N_MODELS] = {
    "person_detect_vela.tflite", "micro_speech_quantized_vela.tflite",
    "hello_world_int8_vela.tflite"};
static const char *const ref_names[N_MODELS] = {
    "person_detect.tflite", "micro_speech_quantized.tflite", "hello_world_int8.tflite"};
static const char *const cfg_dirs[2] = {"u55-128", "u65-256"};

static dm_model models[N_MODELS][2];   /* [model][0 = U55-128, 1 = U65-256] */
static dm_ref refs[N_MODELS];

typedef struct worker {
    pthread_t th;
    int id;
    dm_arena arena[N_MODELS][2];
    int runs, failures, rejected_ok;
    int per_npu[2], per_mode[3];
    char msg[1200];
} worker;

static uint64_t mix(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static int variant_index(struct ethosu_driver *d)
{
    struct ethosu_hw_info hw;
    ethosu_get_hw_info(d, &hw);
    return hw.cfg.macs_per_cc == 8 ? 1 : 0;
}

static int run_one(worker *w, struct ethosu_driver *d, int mi, int vi, int set, int mode)
{
    const dm_model *m = &models[mi][vi];
    dm_arena *a = &w->arena[mi][vi];
    const uint8_t *const *in = (const uint8_t *const *)refs[mi].in[set];
    const uint8_t *const *ref = (const uint8_t *const *)refs[mi].out[set];
    uint64_t base[8];
    size_t size[8];
    memset(a->mem, 0xA5, a->size);   /* no leftovers from the last run */
    dm_set_inputs(m, a, in);
    dm_bases(m, a, base, size);
    int rc;
    if (mode == 0) {
        rc = ethosu_invoke_v3(d, m->payload, (int)m->payload_size, base, size, m->n_base, w);
    } else {
        rc = ethosu_invoke_async(d, m->payload, (int)m->payload_size, base, size, m->n_base, w);
        if (!rc) {
            if (mode == 1) {
                rc = ethosu_wait(d, true);
            } else {
                while ((rc = ethosu_wait(d, false)) == 1)
                    sched_yield();
            }
        }
    }
    if (rc) {
        snprintf(w->msg, sizeof w->msg, "thread %d: %s mode %d returned %d", w->id, m->name, mode, rc);
        return -1;
    }
    for (int o = 0; o < m->n_out; o++) {
        if (memcmp(a->mem + m->out_off[o], ref[o], m->out_size[o])) {
            snprintf(w->msg, sizeof w->msg, "thread %d: %s set %d output %d differs", w->id,
                     m->name, set, o);
            return -1;
        }
    }
    return 0;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1);
    for (int i = 0; i < n_inferences / N_THREADS; i++) {
        int mi = (int)(mix(&seed) % N_MODELS);
        int set = (int)(mix(&seed) % N_SETS);
        int mode = (int)(mix(&seed) % 3);
        struct ethosu_driver *d = ethosu_reserve_driver();
        if (!d) {
            snprintf(w->msg, sizeof w->msg, "thread %d: reserve returned NULL", w->id);
            w->failures++;
            continue;
        }
        int vi = variant_index(d);
        if (run_one(w, d, mi, vi, set, mode))
            w->failures++;
        w->runs++;
        w->per_npu[vi]++;
        w->per_mode[mode]++;
        /* now and then, the other NPU's build: refused, the driver stays fine */
        if (i % 97 == 0) {
            const dm_model *o = &models[mi][1 - vi];
            uint64_t base[8];
            size_t size[8];
            dm_bases(o, &w->arena[mi][1 - vi], base, size);
            if (ethosu_invoke_v3(d, o->payload, (int)o->payload_size, base, size, o->n_base,
                                 NULL) == -1)
                w->rejected_ok++;
            else
                w->failures++;
        }
        ethosu_release_driver(d);
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    char path[1024], rel[256], msg[1200];
    const char *env = getenv("NPUC_STRESS_INFERENCES");
    if (env && atoi(env) >= N_THREADS)
        n_inferences = atoi(env) / N_THREADS * N_THREADS;
    if (!t_shared("models/tflm/person_detect.tflite", path, sizeof path)) {
        printf("SKIP driver stress: shared models absent (set NPUC_SHARED)\n");
        return 0;
    }
    for (int mi = 0; mi < N_MODELS; mi++) {
        snprintf(rel, sizeof rel, "models/tflm/%s", ref_names[mi]);
        CHECK(t_shared(rel, path, sizeof path) != NULL);
        int rc = dm_reference(path, N_SETS, 42 + (uint64_t)mi, &refs[mi], msg, sizeof msg);
        if (rc) fprintf(stderr, "%s\n", msg);
        CHECK_EQ_INT(rc, 0);
        for (int vi = 0; vi < 2; vi++) {
            snprintf(rel, sizeof rel, "models/vela/%s/%s", cfg_dirs[vi], vela_names[mi]);
            CHECK(t_shared(rel, path, sizeof path) != NULL);
            rc = dm_load(&models[mi][vi], path, msg, sizeof msg);
            if (rc) fprintf(stderr, "%s\n", msg);
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(models[mi][vi].variant, vi ? EU_U65_256 : EU_U55_128);
        }
    }
    if (t_failures)
        TEST_MAIN_END();

    npuc_err err = {0};
    ethosu_host_npu *npu[2];
    struct ethosu_driver drv[2];
    uint8_t *fast[2];
    const eu_variant variants[2] = {EU_U55_128, EU_U65_256};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(ethosu_host_npu_create(variants[k], NULL, &npu[k], &err), 0);
        fast[k] = dm_aligned(FAST_SIZE);
        CHECK_EQ_INT(ethosu_host_map(fast[k], FAST_SIZE, true, &err), 0);
        CHECK_EQ_INT(ethosu_host_driver_init(&drv[k], npu[k], fast[k], FAST_SIZE), 0);
    }
    static worker workers[N_THREADS];
    for (int t = 0; t < N_THREADS; t++) {
        workers[t].id = t;
        for (int mi = 0; mi < N_MODELS; mi++)
            for (int vi = 0; vi < 2; vi++)
                CHECK_EQ_INT(dm_arena_init(&workers[t].arena[mi][vi], models[mi][vi].arena_size), 0);
    }
    if (t_failures)
        TEST_MAIN_END();

    double t0 = now_s();
    for (int t = 0; t < N_THREADS; t++)
        pthread_create(&workers[t].th, NULL, worker_main, &workers[t]);
    for (int t = 0; t < N_THREADS; t++)
        pthread_join(workers[t].th, NULL);
    double dt = now_s() - t0;

    int runs = 0, failures = 0, rejected = 0, per_npu[2] = {0, 0}, per_mode[3] = {0, 0, 0};
    for (int t = 0; t < N_THREADS; t++) {
        worker *w = &workers[t];
        runs += w->runs;
        failures += w->failures;
        rejected += w->rejected_ok;
        for (int k = 0; k < 2; k++) per_npu[k] += w->per_npu[k];
        for (int k = 0; k < 3; k++) per_mode[k] += w->per_mode[k];
        if (w->failures) fprintf(stderr, "%s\n", w->msg);
    }
    ethosu_host_stats st[2];
    for (int k = 0; k < 2; k++) ethosu_host_npu_stats(npu[k], &st[k]);
    printf("%d inferences in %.2f s by %d threads: U55-128 %d (%llu NPU runs), U65-256 %d "
           "(%llu NPU runs); v3 %d, async+wait %d, async+poll %d; %d wrong-NPU payloads refused\n",
           runs, dt, N_THREADS, per_npu[0], (unsigned long long)st[0].jobs_run, per_npu[1],
           (unsigned long long)st[1].jobs_run, per_mode[0], per_mode[1], per_mode[2], rejected);
    CHECK_EQ_INT(runs, n_inferences);
    CHECK_EQ_INT(failures, 0);
    CHECK(per_npu[0] > n_inferences / 10 && per_npu[1] > n_inferences / 10);
    CHECK_EQ_INT(st[0].jobs_run + st[1].jobs_run, n_inferences);
    CHECK_EQ_INT(st[0].irqs_delivered + st[1].irqs_delivered, n_inferences);
    CHECK_EQ_INT(st[0].irqs_discarded + st[1].irqs_discarded, 0);
    CHECK(!drv[0].reserved && !drv[1].reserved);
    CHECK_EQ_INT(drv[0].power_request_counter + drv[1].power_request_counter, 0);

    for (int t = 0; t < N_THREADS; t++)
        for (int mi = 0; mi < N_MODELS; mi++)
            for (int vi = 0; vi < 2; vi++) dm_arena_free(&workers[t].arena[mi][vi]);
    for (int k = 0; k < 2; k++) {
        ethosu_host_driver_deinit(&drv[k]);
        ethosu_host_npu_free(npu[k]);
        ethosu_host_unmap(fast[k]);
        free(fast[k]);
    }
    for (int mi = 0; mi < N_MODELS; mi++) {
        dm_reference_free(&refs[mi]);
        for (int vi = 0; vi < 2; vi++) dm_free(&models[mi][vi]);
    }
    TEST_MAIN_END();
}
