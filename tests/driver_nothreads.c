/* The driver with the host backend built as bare-metal firmware uses it
 * (ETHOSU_HOST_THREADS=0): no worker thread, the job runs inside the CMD
 * write and the IRQ handler is called from there; the driver's default
 * (weak) mutex and semaphore hooks apply, semaphore timeouts count polls.
 * Built by CMake as test_driver_nothreads with its own copy of the
 * backend (not through the test_*.c glob, which links the threaded one). */
#include "test_driver_models.h"

#if ETHOSU_HOST_THREADS
#error "build with -DETHOSU_HOST_THREADS=0"
#endif

#define NPU_OP_STOP 0xFFFF0000u

static uint32_t mini[64] __attribute__((aligned(16)));
static int n_begin, n_end;

void ethosu_inference_begin(struct ethosu_driver *drv, void *user_arg)
{
    (void)drv;
    (void)user_arg;
    n_begin++;
}

void ethosu_inference_end(struct ethosu_driver *drv, void *user_arg)
{
    (void)drv;
    (void)user_arg;
    n_end++;
}

static int payload(const uint32_t *s, uint32_t n)
{
    int w = 0;
    mini[w++] = 0x31504F43u;
    mini[w++] = 5;
    mini[w++] = 5;
    mini[w++] = 2u | n << 16;
    for (uint32_t i = 0; i < n; i++) mini[w++] = s[i];
    return 4 * w;
}

int main(void)
{
    npuc_err err = {0};
    ethosu_host_npu *npu;
    struct ethosu_driver drv;
    CHECK_EQ_INT(ethosu_host_npu_create(EU_U55_128, NULL, &npu, &err), 0);
    CHECK_EQ_INT(ethosu_host_driver_init(&drv, npu, NULL, 0), 0);
    uint8_t *src = dm_aligned(1024), *dst = dm_aligned(1024);
    for (int i = 0; i < 1024; i++) src[i] = (uint8_t)(i * 13 + 1);
    CHECK_EQ_INT(ethosu_host_map(mini, sizeof mini, false, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(src, 1024, false, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(dst, 1024, true, &err), 0);

    /* a DMA copy, sync */
    const uint32_t dma[] = {0x00000130u, 0x00010131u, 0x00004030u, 0, 0x00004031u, 0,
                            0x00004032u, 1024, 0x00000010u, 0x00000011u, NPU_OP_STOP};
    int size = payload(dma, 11);
    uint64_t base[2] = {(uintptr_t)src, (uintptr_t)dst};
    size_t sz[2] = {1024, 1024};
    CHECK_EQ_INT(ethosu_invoke_v3(&drv, mini, size, base, sz, 2, NULL), 0);
    CHECK(memcmp(src, dst, 1024) == 0);

    /* async: the job is done when invoke_async returns */
    memset(dst, 0, 1024);
    CHECK_EQ_INT(ethosu_invoke_async(&drv, mini, size, base, sz, 2, NULL), 0);
    CHECK(!ethosu_host_npu_busy(npu));
    CHECK(memcmp(src, dst, 1024) == 0);
    CHECK_EQ_INT(ethosu_wait(&drv, false), 0);
    CHECK_EQ_INT(ethosu_wait(&drv, false), -2);

    /* held: running until released, which runs it there and then */
    memset(dst, 0, 1024);
    ethosu_host_npu_set_hang(npu, true);
    CHECK_EQ_INT(ethosu_invoke_async(&drv, mini, size, base, sz, 2, NULL), 0);
    CHECK_EQ_INT(ethosu_wait(&drv, false), 1);
    CHECK(ethosu_host_npu_busy(npu));
    CHECK_EQ_INT(dst[0], 0);
    ethosu_host_npu_set_hang(npu, false);
    CHECK(!ethosu_host_npu_busy(npu));
    CHECK_EQ_INT(ethosu_wait(&drv, false), 0);
    CHECK(memcmp(src, dst, 1024) == 0);

    /* timeout: the default semaphore counts polls */
    ethosu_set_inference_timeout(1000);
    ethosu_host_npu_set_hang(npu, true);
    CHECK_EQ_INT(ethosu_invoke_v3(&drv, mini, size, base, sz, 2, NULL), -1);
    CHECK(!ethosu_host_npu_busy(npu));
    ethosu_host_npu_set_hang(npu, false);
    ethosu_set_inference_timeout(ETHOSU_SEMAPHORE_WAIT_FOREVER);
    memset(dst, 0, 1024);
    CHECK_EQ_INT(ethosu_invoke_v3(&drv, mini, size, base, sz, 2, NULL), 0);
    CHECK(memcmp(src, dst, 1024) == 0);

    /* an NPU error, then reserve / release and v2 */
    const uint32_t bad[] = {0x000003FFu, NPU_OP_STOP};
    CHECK_EQ_INT(ethosu_invoke_v3(&drv, mini, payload(bad, 2), NULL, NULL, 0, NULL), -1);
    const uint32_t stop[] = {NPU_OP_STOP};
    size = payload(stop, 1);
    struct ethosu_driver *d = ethosu_reserve_driver();
    CHECK(d == &drv);
    ethosu_host_npu_set_hang(npu, true);
    CHECK_EQ_INT(ethosu_invoke_async(d, mini, size, NULL, NULL, 0, NULL), 0);
    ethosu_release_driver(d);   /* stops the held job */
    CHECK(!ethosu_host_npu_busy(npu));
    ethosu_host_npu_set_hang(npu, false);
    CHECK_EQ_INT(ethosu_invoke_v2(mini, size, NULL, NULL, 0), 0);
    CHECK_EQ_INT(n_begin, n_end);

    /* a real model against the reference */
    char path[1024], msg[1200];
    if (t_shared("models/vela/u55-128/person_detect_vela.tflite", path, sizeof path)) {
        dm_model m;
        dm_arena a;
        dm_ref ref;
        CHECK_EQ_INT(dm_load(&m, path, msg, sizeof msg), 0);
        CHECK_EQ_INT(dm_arena_init(&a, m.arena_size), 0);
        t_shared("models/tflm/person_detect.tflite", path, sizeof path);
        CHECK_EQ_INT(dm_reference(path, 2, 3, &ref, msg, sizeof msg), 0);
        for (int s = 0; s < ref.n_sets; s++) {
            int rc = dm_run(&drv, &m, &a, (const uint8_t *const *)ref.in[s],
                            (const uint8_t *const *)ref.out[s], NULL, msg, sizeof msg);
            if (rc) fprintf(stderr, "%s\n", msg);
            CHECK_EQ_INT(rc, 0);
        }
        dm_reference_free(&ref);
        dm_arena_free(&a);
        dm_free(&m);
    } else {
        printf("SKIP model check: shared models absent\n");
    }

    ethosu_host_driver_deinit(&drv);
    ethosu_host_npu_free(npu);
    ethosu_host_unmap(mini);
    ethosu_host_unmap(src);
    ethosu_host_unmap(dst);
    free(src);
    free(dst);
    TEST_MAIN_END();
}
