/* The ethos-u driver (include/ethosu_driver.h, pmu_ethosu.h) against the
 * virtual NPU through the host device backend: every API call, both invoke
 * forms, non-blocking waits, two NPUs, driver reservation, the timeout
 * path, payload and base pointer checks, the hooks (begin/end, cache,
 * log), the PMU, and Vela-compiled models compared byte for byte with the
 * reference interpreter on the original model. */
#include "test_driver_models.h"
#include "../src/target/target.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "pmu_ethosu.h"

/* ------------------------------------------------------ hook overrides */

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_err[256];
static int n_errs;

void ethosu_log_hook(struct ethosu_driver *drv, enum ethosu_log_level level, const char *msg,
                     uint64_t value)
{
    (void)drv;
    (void)value;
    if (level != ETHOSU_LOG_ERR)
        return;
    pthread_mutex_lock(&hook_lock);
    snprintf(last_err, sizeof last_err, "%s", msg);
    n_errs++;
    pthread_mutex_unlock(&hook_lock);
}

static void clear_err(void)
{
    pthread_mutex_lock(&hook_lock);
    last_err[0] = 0;
    n_errs = 0;
    pthread_mutex_unlock(&hook_lock);
}

static int n_begin, n_end, open_jobs, max_open;
static void *begin_arg, *end_arg;
static struct ethosu_driver *begin_drv, *end_drv;

void ethosu_inference_begin(struct ethosu_driver *drv, void *user_arg)
{
    pthread_mutex_lock(&hook_lock);
    n_begin++;
    open_jobs++;
    if (open_jobs > max_open) max_open = open_jobs;
    begin_arg = user_arg;
    begin_drv = drv;
    pthread_mutex_unlock(&hook_lock);
}

void ethosu_inference_end(struct ethosu_driver *drv, void *user_arg)
{
    pthread_mutex_lock(&hook_lock);
    n_end++;
    open_jobs--;
    end_arg = user_arg;
    end_drv = drv;
    pthread_mutex_unlock(&hook_lock);
}

typedef struct cache_call {
    uint32_t *p;
    size_t n;
} cache_call;
static cache_call flushes[16], invals[16];
static int n_flush, n_inval;

void ethosu_flush_dcache(uint32_t *p, size_t bytes)
{
    pthread_mutex_lock(&hook_lock);
    if (n_flush < 16) flushes[n_flush] = (cache_call){p, bytes};
    n_flush++;
    pthread_mutex_unlock(&hook_lock);
}

void ethosu_invalidate_dcache(uint32_t *p, size_t bytes)
{
    pthread_mutex_lock(&hook_lock);
    if (n_inval < 16) invals[n_inval] = (cache_call){p, bytes};
    n_inval++;
    pthread_mutex_unlock(&hook_lock);
}

static void clear_cache_calls(void)
{
    pthread_mutex_lock(&hook_lock);
    n_flush = n_inval = 0;
    pthread_mutex_unlock(&hook_lock);
}

/* ----------------------------------------------------------- helpers */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

#define NPU_OP_STOP 0xFFFF0000u
#define CFG_U55_128 0x00001807u
#define CFG_U65_256 0x10003008u
#define ID_VELA 0x10060000u

/* A small payload (mapped read-only on the bus once): COP1, optionally
 * OPTIMIZER_CONFIG, NOPs to align, COMMAND_STREAM, the stream. */
static uint32_t mini[256] __attribute__((aligned(16)));

static int make_payload(const uint32_t *stream, uint32_t n, bool with_cfg, uint32_t cfg, uint32_t id)
{
    int w = 0;
    mini[w++] = 0x31504F43u;
    if (with_cfg) {
        mini[w++] = 0x00100001u;
        mini[w++] = cfg;
        mini[w++] = id;
    }
    while ((w + 1) % 4)
        mini[w++] = 5;   /* NOP */
    mini[w++] = 2u | (n & 0xFFFFu) << 16 | ((n >> 16) & 0xFFu) << 8;
    for (uint32_t i = 0; i < n; i++)
        mini[w++] = stream[i];
    return w * 4;
}

/* The STOP-only stream (works on every NPU, no base pointers). */
static int stop_payload(void)
{
    const uint32_t s[] = {NPU_OP_STOP};
    return make_payload(s, 1, false, 0, 0);
}

/* A DMA copy of len bytes from region 0 to region 1 (end of stream). */
static int dma_payload(uint32_t len, bool with_cfg, uint32_t cfg)
{
    const uint32_t s[] = {
        0x00000130u,              /* DMA0_SRC_REGION 0 */
        0x00010131u,              /* DMA0_DST_REGION 1 */
        0x00004030u, 0,           /* DMA0_SRC offset */
        0x00004031u, 0,           /* DMA0_DST offset */
        0x00004032u, len,         /* DMA0_LEN */
        0x00000010u,              /* NPU_OP_DMA_START */
        0x00000011u,              /* NPU_OP_DMA_WAIT 0 */
        NPU_OP_STOP,
    };
    return make_payload(s, (uint32_t)(sizeof s / sizeof s[0]), with_cfg, cfg, ID_VELA);
}

/* NPUs, drivers, buffers */
static ethosu_host_npu *npu55, *npu65;
static struct ethosu_driver drv55, drv65;
static uint8_t *fast55, *fast65;
#define FAST_SIZE (1u << 20)
static uint8_t *src_buf, *dst_buf, *unmapped_buf;
#define BUF_SIZE 4096u

static ethosu_host_npu *npu_of(struct ethosu_driver *d)
{
    return d == &drv55 ? npu55 : npu65;
}

static void fill_src(uint8_t seed)
{
    for (uint32_t i = 0; i < BUF_SIZE; i++)
        src_buf[i] = (uint8_t)(i * 7 + seed);
    memset(dst_buf, 0, BUF_SIZE);
}

/* Runs the DMA payload on d synchronously; returns invoke's result. */
static int run_dma(struct ethosu_driver *d, uint32_t len, void *arg)
{
    int size = dma_payload(len, false, 0);
    uint64_t base[2] = {(uintptr_t)src_buf, (uintptr_t)dst_buf};
    size_t sz[2] = {BUF_SIZE, BUF_SIZE};
    return ethosu_invoke_v3(d, mini, size, base, sz, 2, arg);
}

static int jstate(const struct ethosu_driver *d)
{
    return (int)__atomic_load_n(&d->job.state, __ATOMIC_ACQUIRE);
}

static bool jobs_balanced(void)
{
    pthread_mutex_lock(&hook_lock);
    bool ok = n_begin == n_end && open_jobs == 0;
    pthread_mutex_unlock(&hook_lock);
    return ok;
}

/* No stale semaphore count: a held job must time out (it would "finish"
 * at once if an old give were left over). */
static void check_no_stale_give(struct ethosu_driver *d)
{
    uint64_t old = ethosu_get_inference_timeout();
    ethosu_set_inference_timeout(30);
    ethosu_host_npu_set_hang(npu_of(d), true);
    int size = stop_payload();
    CHECK_EQ_INT(ethosu_invoke_v3(d, mini, size, NULL, NULL, 0, NULL), -1);
    ethosu_host_npu_set_hang(npu_of(d), false);
    ethosu_set_inference_timeout(old);
    CHECK_EQ_INT(ethosu_invoke_v3(d, mini, size, NULL, NULL, 0, NULL), 0);
}

/* ------------------------------------------------------------ tests */

static void test_basics(void)
{
    struct ethosu_driver_version v = {9, 9, 9};
    ethosu_get_driver_version(&v);
    CHECK_EQ_INT(v.major, 0);
    CHECK_EQ_INT(v.minor, 16);
    CHECK_EQ_INT(v.patch, 0);

    struct ethosu_hw_info hw;
    memset(&hw, 0xAA, sizeof hw);
    ethosu_get_hw_info(&drv55, &hw);
    CHECK_EQ_INT(hw.cfg.macs_per_cc, 7);          /* 128 MACs */
    CHECK_EQ_INT(hw.cfg.cmd_stream_version, 0);
    CHECK_EQ_INT(hw.cfg.custom_dma, 0);
    CHECK_EQ_INT(hw.version.arch_major_rev, 1);
    CHECK_EQ_INT(hw.version.arch_minor_rev, 0);
    CHECK_EQ_INT(hw.version.arch_patch_rev, 6);
    CHECK_EQ_INT(hw.version.product_major, 0);
    ethosu_get_hw_info(&drv65, &hw);
    CHECK_EQ_INT(hw.cfg.macs_per_cc, 8);          /* 256 MACs */

    /* init arguments and state */
    struct ethosu_driver tmp;
    memset(&tmp, 0, sizeof tmp);
    clear_err();
    CHECK_EQ_INT(ethosu_init(NULL, npu55, NULL, 0, 1, 1), -1);
    CHECK_EQ_INT(ethosu_init(&tmp, NULL, NULL, 0, 1, 1), -1);
    CHECK_EQ_INT(ethosu_init(&drv55, npu55, NULL, 0, 1, 1), -1);   /* already registered */
    CHECK_STR_CONTAINS(last_err, "already");
    CHECK_EQ_INT(ethosu_host_driver_init(&drv55, npu55, fast55, FAST_SIZE), -1);
    CHECK_EQ_INT(ethosu_host_driver_init(&drv55, NULL, fast55, FAST_SIZE), -1);
    {   /* drv55 still gets its interrupts */
        int size = stop_payload();
        CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, NULL, NULL, 0, NULL), 0);
    }
    CHECK_EQ_INT(drv55.basep_flush_mask, 1 << 1);
    CHECK_EQ_INT(drv55.basep_invalidate_mask, 1 << 1);
    CHECK_EQ_INT(drv55.power_request_counter, 0);
    CHECK(drv55.semaphore != NULL);
    CHECK_EQ_INT(jstate(&drv55), ETHOSU_JOB_IDLE);
    CHECK(drv55.fast_memory == (uintptr_t)fast55);
    CHECK_EQ_INT(drv55.fast_memory_size, FAST_SIZE);

    /* the driver programmed the AXI defaults at reset */
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x01C), 2);            /* QCONFIG */
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x03C), 0x5553);       /* REGIONCFG U55 */
    CHECK_EQ_INT(ethosu_host_npu_read(npu65, 0x03C), 0x555B);       /* REGIONCFG U65 */
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x040), 0x0F1F0000);   /* AXI_LIMIT0 */
    CHECK_EQ_INT(ethosu_host_npu_read(npu65, 0x04C), 0x1F3F0000);   /* AXI_LIMIT3 */
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x024), 1);            /* PROT: privileged, secure */

    /* power requests: counted; the CMD Q bits follow */
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x008) & 0xC, 0xC);    /* gated when idle */
    CHECK_EQ_INT(ethosu_request_power(&drv55), 0);
    CHECK_EQ_INT(ethosu_request_power(&drv55), 0);
    CHECK_EQ_INT(drv55.power_request_counter, 2);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x008) & 0xC, 0);
    ethosu_release_power(&drv55);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x008) & 0xC, 0);
    ethosu_release_power(&drv55);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x008) & 0xC, 0xC);
    ethosu_release_power(&drv55);   /* one too many: warns, stays 0 */
    CHECK_EQ_INT(drv55.power_request_counter, 0);
    CHECK_EQ_INT(ethosu_soft_reset(&drv55), 0);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x008) & 0xC, 0xC);

    /* nothing to wait for */
    CHECK_EQ_INT(ethosu_wait(&drv55, true), -2);
    CHECK_EQ_INT(ethosu_wait(&drv55, false), -2);

    ethosu_set_basep_cache_mask(&drv55, 0x81, 0x42);
    CHECK_EQ_INT(drv55.basep_flush_mask, 0x81);
    CHECK_EQ_INT(drv55.basep_invalidate_mask, 0x42);
    ethosu_set_basep_cache_mask(&drv55, 2, 2);

    /* an extra driver on the same NPU registers and deregisters */
    CHECK_EQ_INT(ethosu_init(&tmp, npu55, NULL, 0, 0, 0), 0);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x024), 2);            /* PROT: user, non-secure */
    ethosu_deinit(&tmp);
    CHECK(tmp.semaphore == NULL);
    CHECK_EQ_INT(ethosu_soft_reset(&drv55), 0);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x024), 1);
}

static void test_invoke_forms(void)
{
    /* v3 and the ethosu_invoke macro, STOP-only payload without base pointers */
    int size = stop_payload();
    clear_err();
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, NULL, NULL, 0, (void *)0x55), 0);
    CHECK(begin_arg == (void *)0x55 && end_arg == (void *)0x55);
    CHECK(begin_drv == &drv55 && end_drv == &drv55);
    CHECK_EQ_INT(ethosu_invoke(&drv65, mini, size, NULL, NULL, 0), 0);
    CHECK(begin_arg == NULL && end_arg == NULL);
    CHECK_EQ_INT(n_errs, 0);

    /* a DMA copy: base pointers and the bus mapping work end to end */
    fill_src(3);
    CHECK_EQ_INT(run_dma(&drv55, 256, NULL), 0);
    CHECK(memcmp(dst_buf, src_buf, 256) == 0);
    CHECK_EQ_INT(dst_buf[256], 0);
    fill_src(4);
    CHECK_EQ_INT(run_dma(&drv65, BUF_SIZE, NULL), 0);
    CHECK(memcmp(dst_buf, src_buf, BUF_SIZE) == 0);
    /* with an OPTIMIZER_CONFIG for each NPU */
    fill_src(5);
    size = dma_payload(512, true, CFG_U55_128);
    uint64_t base[2] = {(uintptr_t)src_buf, (uintptr_t)dst_buf};
    size_t sz[2] = {BUF_SIZE, BUF_SIZE};
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), 0);
    CHECK(memcmp(dst_buf, src_buf, 512) == 0);
    size = dma_payload(512, true, CFG_U65_256);
    CHECK_EQ_INT(ethosu_invoke_v3(&drv65, mini, size, base, sz, 2, NULL), 0);

    /* async + blocking wait */
    fill_src(6);
    size = dma_payload(1024, false, 0);
    CHECK_EQ_INT(ethosu_invoke_async(&drv55, mini, size, base, sz, 2, (void *)7), 0);
    CHECK_EQ_INT(ethosu_wait(&drv55, true), 0);
    CHECK(memcmp(dst_buf, src_buf, 1024) == 0);
    CHECK(end_arg == (void *)7);
    CHECK_EQ_INT(ethosu_wait(&drv55, true), -2);

    /* async + polling */
    fill_src(7);
    CHECK_EQ_INT(ethosu_invoke_async(&drv65, mini, size, base, sz, 2, NULL), 0);
    int rc, polls = 0;
    while ((rc = ethosu_wait(&drv65, false)) == 1) {
        polls++;
        sched_yield();
    }
    CHECK_EQ_INT(rc, 0);
    CHECK(memcmp(dst_buf, src_buf, 1024) == 0);

    /* v2: reserve + invoke + release; a payload without OPTIMIZER_CONFIG
     * suits whichever NPU it gets */
    size = stop_payload();
    CHECK_EQ_INT(ethosu_invoke_v2(mini, size, NULL, NULL, 0), 0);
    CHECK_EQ_INT(ethosu_invoke_v2(mini, size, NULL, NULL, 0), 0);
    CHECK(!drv55.reserved && !drv65.reserved);
    CHECK(jobs_balanced());
}

static void test_hang_and_poll(void)
{
    int size = stop_payload();
    /* a held job: wait(false) says running, STATUS says running */
    ethosu_host_npu_set_hang(npu55, true);
    CHECK_EQ_INT(ethosu_invoke_async(&drv55, mini, size, NULL, NULL, 0, NULL), 0);
    CHECK(ethosu_host_npu_busy(npu55));
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(ethosu_wait(&drv55, false), 1);
    CHECK_EQ_INT(jstate(&drv55), ETHOSU_JOB_RUNNING);
    CHECK(ETHOSU_PMU_Get_STATUS(&drv55) & 1);
    /* a second invoke is refused while one is in progress */
    clear_err();
    CHECK_EQ_INT(ethosu_invoke_async(&drv55, mini, size, NULL, NULL, 0, NULL), -1);
    CHECK_STR_CONTAINS(last_err, "already running");
    /* letting it go finishes it */
    ethosu_host_npu_set_hang(npu55, false);
    CHECK_EQ_INT(ethosu_wait(&drv55, true), 0);
    CHECK(!ethosu_host_npu_busy(npu55));
    CHECK(!(ETHOSU_PMU_Get_STATUS(&drv55) & 1));
    CHECK(ETHOSU_PMU_Get_STATUS(&drv55) & (1u << 5));   /* cmd_end_reached */

    /* a delayed job: invoke_async returns at once, the job runs later */
    fill_src(9);
    uint64_t base[2] = {(uintptr_t)src_buf, (uintptr_t)dst_buf};
    size_t sz[2] = {BUF_SIZE, BUF_SIZE};
    ethosu_host_npu_set_delay(npu65, 300);
    size = dma_payload(2048, false, 0);
    double t0 = now_ms();
    CHECK_EQ_INT(ethosu_invoke_async(&drv65, mini, size, base, sz, 2, NULL), 0);
    CHECK(now_ms() - t0 < 250);
    CHECK_EQ_INT(ethosu_wait(&drv65, false), 1);
    CHECK_EQ_INT(ethosu_wait(&drv65, true), 0);
    CHECK(now_ms() - t0 >= 295);
    CHECK(memcmp(dst_buf, src_buf, 2048) == 0);
    ethosu_host_npu_set_delay(npu65, 0);
    CHECK(jobs_balanced());
}

static void test_timeout(void)
{
    int size = stop_payload();
    ethosu_host_stats st0, st1;
    ethosu_host_npu_stats(npu55, &st0);
    ethosu_set_inference_timeout(100);
    CHECK_EQ_INT(ethosu_get_inference_timeout(), 100);

    /* a job that never finishes: invoke fails after the timeout */
    ethosu_host_npu_set_hang(npu55, true);
    clear_err();
    double t0 = now_ms();
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, NULL, NULL, 0, (void *)3), -1);
    double dt = now_ms() - t0;
    CHECK(dt >= 95 && dt < 5000);
    CHECK_STR_CONTAINS(last_err, "timed out");
    CHECK(end_arg == (void *)3);
    CHECK(!ethosu_host_npu_busy(npu55));      /* the reset dropped it */
    CHECK_EQ_INT(jstate(&drv55), ETHOSU_JOB_IDLE);
    CHECK_EQ_INT(drv55.power_request_counter, 0);
    ethosu_host_npu_set_hang(npu55, false);
    ethosu_host_npu_stats(npu55, &st1);
    CHECK_EQ_INT(st1.jobs_dropped - st0.jobs_dropped, 1);
    CHECK(st1.resets > st0.resets);
    /* the NPU works afterwards */
    fill_src(11);
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    CHECK(memcmp(dst_buf, src_buf, 4096) == 0);

    /* async: non-blocking says running, blocking times out */
    size = stop_payload();
    ethosu_host_npu_set_hang(npu55, true);
    CHECK_EQ_INT(ethosu_invoke_async(&drv55, mini, size, NULL, NULL, 0, NULL), 0);
    CHECK_EQ_INT(ethosu_wait(&drv55, false), 1);
    CHECK_EQ_INT(ethosu_wait(&drv55, true), -1);
    CHECK_EQ_INT(ethosu_wait(&drv55, false), -2);
    ethosu_host_npu_set_hang(npu55, false);

    /* a job slower than the timeout (the reset cuts its delay short) */
    ethosu_host_npu_set_delay(npu55, 3000);
    fill_src(12);
    t0 = now_ms();
    CHECK_EQ_INT(run_dma(&drv55, 64, NULL), -1);
    CHECK(now_ms() - t0 < 2000);
    CHECK_EQ_INT(dst_buf[0], 0);
    ethosu_host_npu_set_delay(npu55, 0);
    CHECK_EQ_INT(run_dma(&drv55, 64, NULL), 0);
    CHECK(memcmp(dst_buf, src_buf, 64) == 0);

    /* a slow job within the timeout */
    ethosu_set_inference_timeout(5000);
    ethosu_host_npu_set_delay(npu55, 100);
    CHECK_EQ_INT(run_dma(&drv55, 128, NULL), 0);
    ethosu_host_npu_set_delay(npu55, 0);

    ethosu_set_inference_timeout(ETHOSU_SEMAPHORE_WAIT_FOREVER);
    check_no_stale_give(&drv55);
    CHECK(jobs_balanced());
}

static void test_bad_payloads(void)
{
    uint64_t base[9] = {(uintptr_t)src_buf, (uintptr_t)dst_buf};
    size_t sz[9] = {BUF_SIZE, BUF_SIZE};
    int size;
    ethosu_host_stats st0, st1;
    ethosu_host_npu_stats(npu55, &st0);
    int begins = n_begin;

#define EXPECT_REJECT(call, text)                                                    \
    do {                                                                             \
        clear_err();                                                                 \
        CHECK_EQ_INT((call), -1);                                                    \
        CHECK_STR_CONTAINS(last_err, text);                                          \
    } while (0)

    /* magic */
    size = dma_payload(64, false, 0);
    mini[0] ^= 1;
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "magic");
    /* sizes */
    size = dma_payload(64, false, 0);
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size - 2, base, sz, 2, NULL), "multiple of 4");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, 0, base, sz, 2, NULL), "empty");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, -4, base, sz, 2, NULL), "empty");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, NULL, size, base, sz, 2, NULL), "NULL");
    /* truncation */
    size = dma_payload(64, true, CFG_U55_128);
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, 8, base, sz, 2, NULL), "OPTIMIZER_CONFIG truncated");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size - 4, base, sz, 2, NULL), "runs past the end");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, 28, base, sz, 2, NULL), "no COMMAND_STREAM");
    /* optimizer config (docs/ethos-u.md 9.2) */
    size = dma_payload(64, true, CFG_U65_256);
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "CONFIG");
    size = dma_payload(64, true, CFG_U55_128 | 1u << 28);
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "product");
    size = dma_payload(64, true, CFG_U55_128 + 1);          /* 256 MACs */
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "MACs");
    size = dma_payload(64, true, CFG_U55_128 | 0x10);       /* cmd stream version 1 */
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "version");
    size = dma_payload(64, true, CFG_U55_128 | 1u << 27);   /* custom DMA */
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "custom DMA");
    size = dma_payload(64, true, CFG_U55_128 ^ 0x00000800); /* SHRAM size: not checked */
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), 0);
    size = dma_payload(64, true, CFG_U55_128);
    mini[3] = ID_VELA + (1u << 20);                         /* arch 1.1 */
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "architecture");
    mini[3] = ID_VELA + (1u << 28);                         /* arch 2.0 */
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "architecture");
    mini[3] = ID_VELA - (6u << 16) + (3u << 16);            /* patch differs: fine */
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), 0);
    /* driver actions */
    const uint32_t rejected[] = {0u /* RESERVED */, 3u | 0x00010000u /* READ_APB */, 4u /* DUMP_SHRAM */, 9u};
    for (int i = 0; i < 4; i++) {
        size = dma_payload(64, false, 0);
        mini[1] = rejected[i];
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "unsupported driver action");
    }
    /* two command streams */
    {
        const uint32_t s[] = {NPU_OP_STOP, 0x00005 /* NOP */, 0x00005, 0x00010002u, NPU_OP_STOP};
        size = make_payload(s, 1, false, 0, 0);
        memcpy(mini + size / 4, s + 1, 4 * 4);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size + 16, base, sz, 2, NULL), "more than one");
        /* the same payload cut after the NOPs is fine (trailing NOPs are allowed) */
        CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size + 8, base, sz, 2, NULL), 0);
    }
    /* empty command stream */
    size = stop_payload();
    mini[3] = 2;
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "empty COMMAND_STREAM");
    /* alignment: payload, stream */
    {
        static uint32_t shifted[64] __attribute__((aligned(16)));
        size = stop_payload();
        memcpy(shifted + 1, mini, (size_t)size);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, shifted + 1, size, NULL, NULL, 0, NULL), "payload: not 16-byte aligned");
        /* COP1, NOP, COMMAND_STREAM, stream at byte 12 */
        mini[0] = 0x31504F43u;
        mini[1] = 5;
        mini[2] = 2u | 1u << 16;
        mini[3] = NPU_OP_STOP;
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, 16, NULL, NULL, 0, NULL), "command stream not 16-byte aligned");
    }
    /* base pointers */
    size = dma_payload(64, false, 0);
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 9, NULL), "count");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, -1, NULL), "count");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, NULL, sz, 2, NULL), "NULL base_addr");
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, NULL, 2, NULL), "NULL base_addr");
    /* the stream uses region 1, only one base pointer given */
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 1, NULL), "region without a base pointer");
    /* NULL base pointer with a size */
    base[1] = 0;
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "NULL base pointer with a nonzero size");
    /* NULL base pointer, size 0, but the stream uses the region */
    sz[1] = 0;
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "base pointer is NULL");
    sz[1] = BUF_SIZE;
    /* misaligned, unmapped */
    base[1] = (uintptr_t)dst_buf + 4;
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "16-byte aligned");
    base[1] = (uintptr_t)unmapped_buf;
    EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "not usable on the NPU's bus");
    base[1] = (uintptr_t)dst_buf;
    /* unused NULL base pointers with size 0 are fine */
    base[2] = 0;
    sz[2] = 0;
    base[3] = 0;
    sz[3] = 0;
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 4, NULL), 0);
    /* payload in memory the NPU cannot reach */
    {
        uint8_t *p = aligned_alloc(16, 64);
        size = stop_payload();
        memcpy(p, mini, (size_t)size);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, p, size, NULL, NULL, 0, NULL), "command stream address");
        free(p);
    }
    /* nothing above reached the NPU except the accepted jobs */
    ethosu_host_npu_stats(npu55, &st1);
    CHECK_EQ_INT(st1.jobs_run - st0.jobs_run, n_begin - begins);

    /* fast memory smaller than the fast scratch */
    {
        struct ethosu_driver small;
        ethosu_host_npu *n;
        npuc_err err = {0};
        CHECK_EQ_INT(ethosu_host_npu_create(EU_U55_128, NULL, &n, &err), 0);
        CHECK_EQ_INT(ethosu_host_driver_init(&small, n, fast55, 256), 0);
        size = dma_payload(64, false, 0);
        uint64_t b3[3] = {(uintptr_t)src_buf, (uintptr_t)dst_buf, (uintptr_t)dst_buf};
        size_t s3[3] = {BUF_SIZE, BUF_SIZE, 512};
        EXPECT_REJECT(ethosu_invoke_v3(&small, mini, size, b3, s3, 3, NULL), "fast memory");
        s3[2] = 256;
        CHECK_EQ_INT(ethosu_invoke_v3(&small, mini, size, b3, s3, 3, NULL), 0);
        CHECK(b3[2] == (uintptr_t)fast55);   /* replaced by the fast memory */
        ethosu_host_driver_deinit(&small);
        ethosu_host_npu_free(n);
    }
    /* errors the NPU finds: unknown command, bus fault */
    {
        const uint32_t s[] = {0x000003FFu, NPU_OP_STOP};
        size = make_payload(s, 2, false, 0, 0);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, NULL, NULL, 0, NULL), "NPU stopped with an error");
        char msg[512];
        ethosu_host_npu_error(npu55, msg, sizeof msg);
        CHECK(msg[0] != 0);
        /* no STOP at the end */
        const uint32_t s2[] = {0x00000011u};
        size = make_payload(s2, 1, false, 0, 0);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, NULL, NULL, 0, NULL), "NPU stopped with an error");
        /* DMA past the end of the source mapping */
        size = dma_payload(BUF_SIZE + 16, false, 0);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), "NPU stopped with an error");
        ethosu_host_npu_error(npu55, msg, sizeof msg);
        CHECK_STR_CONTAINS(msg, "outside the memory mapped");
        /* writing read-only memory */
        uint64_t swapped[2] = {(uintptr_t)dst_buf, (uintptr_t)src_buf};
        size = dma_payload(64, false, 0);
        EXPECT_REJECT(ethosu_invoke_v3(&drv55, mini, size, swapped, sz, 2, NULL), "NPU stopped with an error");
        /* and the NPU is fine afterwards */
        fill_src(13);
        CHECK_EQ_INT(run_dma(&drv55, 256, NULL), 0);
        CHECK(memcmp(dst_buf, src_buf, 256) == 0);
    }
    CHECK(jobs_balanced());
    CHECK_EQ_INT(drv55.power_request_counter, 0);
#undef EXPECT_REJECT
}

static void test_cache_hooks(void)
{
    uint64_t base[5] = {(uintptr_t)src_buf, (uintptr_t)dst_buf, 0, (uintptr_t)src_buf + 1024,
                        (uintptr_t)dst_buf + 2048};
    size_t sz[5] = {BUF_SIZE, 1024, 0, 16, 32};
    int size = dma_payload(16, false, 0);
    /* default masks: the scratch base pointer (1) only */
    clear_cache_calls();
    CHECK_EQ_INT(ethosu_invoke_v3(&drv65, mini, size, base, sz, 5, NULL), 0);
    CHECK_EQ_INT(n_flush, 1);
    CHECK_EQ_INT(n_inval, 1);
    CHECK(flushes[0].p == (uint32_t *)dst_buf && flushes[0].n == 1024);
    CHECK(invals[0].p == (uint32_t *)dst_buf && invals[0].n == 1024);
    /* other masks; base pointer 2 becomes the fast memory */
    ethosu_set_basep_cache_mask(&drv65, 0x1D, 0x12);
    clear_cache_calls();
    base[2] = 0;
    sz[2] = 64;   /* the fast scratch: replaced by drv65's fast memory */
    CHECK_EQ_INT(ethosu_invoke_v3(&drv65, mini, size, base, sz, 5, NULL), 0);
    CHECK_EQ_INT(n_flush, 4);
    CHECK(flushes[0].p == (uint32_t *)src_buf && flushes[0].n == BUF_SIZE);
    CHECK(flushes[1].p == (uint32_t *)fast65 && flushes[1].n == 64);
    CHECK(flushes[2].p == (uint32_t *)(src_buf + 1024) && flushes[2].n == 16);
    CHECK(flushes[3].p == (uint32_t *)(dst_buf + 2048) && flushes[3].n == 32);
    CHECK_EQ_INT(n_inval, 2);
    CHECK(invals[0].p == (uint32_t *)dst_buf && invals[0].n == 1024);
    CHECK(invals[1].p == (uint32_t *)(dst_buf + 2048) && invals[1].n == 32);
    /* mask bits beyond num_base_addr and NULL base pointers are skipped */
    ethosu_set_basep_cache_mask(&drv65, 0xFF, 0xFF);
    clear_cache_calls();
    uint64_t b2[3] = {(uintptr_t)src_buf, (uintptr_t)dst_buf, 0};
    size_t s2[3] = {BUF_SIZE, BUF_SIZE, 0};
    struct ethosu_driver *d = &drv65;
    uint64_t keep = d->fast_memory;
    d->fast_memory = 0;   /* keep base pointer 2 NULL for this run */
    CHECK_EQ_INT(ethosu_invoke_v3(d, mini, size, b2, s2, 3, NULL), 0);
    d->fast_memory = keep;
    CHECK_EQ_INT(n_flush, 2);
    CHECK_EQ_INT(n_inval, 2);
    ethosu_set_basep_cache_mask(&drv65, 2, 2);
    /* a failed validation does no maintenance */
    clear_cache_calls();
    mini[0] = 0;
    CHECK_EQ_INT(ethosu_invoke_v3(&drv65, mini, size, b2, s2, 3, NULL), -1);
    CHECK_EQ_INT(n_flush + n_inval, 0);
    CHECK(jobs_balanced());
}

static void test_pmu(void)
{
    CHECK_EQ_INT(ETHOSU_PMU_Get_NumEventCounters(), 4);
    /* every event type round-trips through every counter */
    int bad = 0;
    for (int t = 0; t < ETHOSU_PMU_SENTINEL; t++) {
        uint32_t num = (uint32_t)t % 4;
        ETHOSU_PMU_Set_EVTYPER(&drv55, num, (enum ethosu_pmu_event_type)t);
        if (ETHOSU_PMU_Get_EVTYPER(&drv55, num) != (enum ethosu_pmu_event_type)t) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    /* the hardware numbers (docs/ethos-u.md 9.4) */
    ETHOSU_PMU_Set_EVTYPER(&drv55, 0, ETHOSU_PMU_CYCLE);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x380), 0x11);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 1, ETHOSU_PMU_NPU_IDLE);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x384), 0x20);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 2, ETHOSU_PMU_MAC_ACTIVE);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x388), 0x30);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 3, ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x38C), 386);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 3, ETHOSU_PMU_ECC_SB1);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x38C), 0x1B1);
    /* invalid arguments change nothing */
    ETHOSU_PMU_Set_EVTYPER(&drv55, 3, ETHOSU_PMU_SENTINEL);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVTYPER(&drv55, 3), ETHOSU_PMU_ECC_SB1);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 4, ETHOSU_PMU_CYCLE);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVTYPER(&drv55, 4), ETHOSU_PMU_SENTINEL);
    ethosu_host_npu_write(npu55, 0x380, 0x3FF);   /* a number no event has */
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVTYPER(&drv55, 0), ETHOSU_PMU_SENTINEL);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVCNTR(&drv55, 4), 0);

    /* counting a run */
    ETHOSU_PMU_Enable(&drv55);
    CHECK_EQ_INT(drv55.power_request_counter, 1);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x180) & 1, 1);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 0, ETHOSU_PMU_NPU_ACTIVE);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 1, ETHOSU_PMU_CYCLE);
    /* the DMA reads region 0 (flash, AXI1 on U55 Shared_Sram) */
    ETHOSU_PMU_Set_EVTYPER(&drv55, 2, ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED);
    ETHOSU_PMU_Set_EVTYPER(&drv55, 3, ETHOSU_PMU_NO_EVENT);
    ETHOSU_PMU_CNTR_Enable(&drv55, ETHOSU_PMU_CCNT_Msk | ETHOSU_PMU_CNT1_Msk | ETHOSU_PMU_CNT2_Msk |
                                       ETHOSU_PMU_CNT3_Msk);
    CHECK_EQ_INT(ETHOSU_PMU_CNTR_Status(&drv55), 0x80000007u);
    ETHOSU_PMU_CYCCNT_Reset(&drv55);
    ETHOSU_PMU_EVCNTR_ALL_Reset(&drv55);
    CHECK(ETHOSU_PMU_Get_CCNTR(&drv55) == 0);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVCNTR(&drv55, 0), 0);
    fill_src(21);
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    uint64_t cyc = ETHOSU_PMU_Get_CCNTR(&drv55);
    CHECK(cyc > 0);
    CHECK(cyc == sim_npu_run_cycles(ethosu_host_npu_sim(npu55)));
    CHECK(ETHOSU_PMU_Get_EVCNTR(&drv55, 0) == cyc);
    CHECK(ETHOSU_PMU_Get_EVCNTR(&drv55, 1) == cyc);
    CHECK(ETHOSU_PMU_Get_EVCNTR(&drv55, 2) > 0);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVCNTR(&drv55, 3), 0);   /* disabled */
    CHECK_EQ_INT(ETHOSU_PMU_Get_QREAD(&drv55), 4 * 11);  /* the DMA stream's bytes */
    CHECK(ETHOSU_PMU_Get_STATUS(&drv55) & (1u << 5));
    /* counters accumulate over runs; power stays requested by the PMU */
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    CHECK(ETHOSU_PMU_Get_CCNTR(&drv55) == 2 * cyc);
    CHECK_EQ_INT(drv55.power_request_counter, 1);
    /* 48-bit cycle counter, set / read */
    ETHOSU_PMU_Set_CCNTR(&drv55, 0x123456789ABull);
    CHECK(ETHOSU_PMU_Get_CCNTR(&drv55) == 0x123456789ABull);
    CHECK(ETHOSU_PMU_CNTR_Status(&drv55) & ETHOSU_PMU_CCNT_Msk);   /* re-enabled */
    ETHOSU_PMU_Set_CCNTR(&drv55, 0xFFFFFFFFull);
    ETHOSU_PMU_CNTR_Increment(&drv55, ETHOSU_PMU_CCNT_Msk | ETHOSU_PMU_CNT2_Msk);
    CHECK(ETHOSU_PMU_Get_CCNTR(&drv55) == 0x100000000ull);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x1A4), 1);
    ETHOSU_PMU_Set_EVCNTR(&drv55, 1, 41);
    ETHOSU_PMU_CNTR_Increment(&drv55, ETHOSU_PMU_CNT2_Msk);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVCNTR(&drv55, 1), 42);
    CHECK_EQ_INT(ETHOSU_PMU_CNTR_Status(&drv55), 0x80000007u);
    /* overflow: counter 0 about to wrap */
    ETHOSU_PMU_Set_EVCNTR(&drv55, 0, 0xFFFFFFFFu);
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    CHECK(ETHOSU_PMU_Get_CNTR_OVS(&drv55) & ETHOSU_PMU_CNT1_Msk);
    ETHOSU_PMU_Set_CNTR_OVS(&drv55, ETHOSU_PMU_CNT1_Msk);
    CHECK_EQ_INT(ETHOSU_PMU_Get_CNTR_OVS(&drv55) & ETHOSU_PMU_CNT1_Msk, 0);
    /* overflow interrupt enables */
    ETHOSU_PMU_Set_CNTR_IRQ_Enable(&drv55, ETHOSU_PMU_CNT2_Msk | ETHOSU_PMU_CCNT_Msk);
    CHECK_EQ_INT(ETHOSU_PMU_Get_IRQ_Enable(&drv55), 0x80000002u);
    ETHOSU_PMU_Set_CNTR_IRQ_Disable(&drv55, ETHOSU_PMU_CCNT_Msk);
    CHECK_EQ_INT(ETHOSU_PMU_Get_IRQ_Enable(&drv55), 0x2u);
    ETHOSU_PMU_Set_CNTR_IRQ_Disable(&drv55, 0x2u);
    /* cycle counter start / stop events */
    ETHOSU_PMU_PMCCNTR_CFG_Set_Start_Event(&drv55, ETHOSU_PMU_NPU_ACTIVE);
    ETHOSU_PMU_PMCCNTR_CFG_Set_Stop_Event(&drv55, ETHOSU_PMU_NPU_IDLE);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x1A8), 0x00200023);
    ETHOSU_PMU_PMCCNTR_CFG_Set_Start_Event(&drv55, ETHOSU_PMU_AXI1_RD_TRANS_ACCEPTED);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x1A8), 0x00200180);
    ETHOSU_PMU_PMCCNTR_CFG_Set_Stop_Event(&drv55, ETHOSU_PMU_SENTINEL);   /* ignored */
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x1A8), 0x00200180);
    /* disabling */
    ETHOSU_PMU_CNTR_Disable(&drv55, ETHOSU_PMU_CCNT_Msk);
    CHECK_EQ_INT(ETHOSU_PMU_CNTR_Status(&drv55), 0x7);
    uint64_t before = ETHOSU_PMU_Get_CCNTR(&drv55);
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    CHECK(ETHOSU_PMU_Get_CCNTR(&drv55) == before);
    ETHOSU_PMU_Disable(&drv55);
    CHECK_EQ_INT(drv55.power_request_counter, 0);
    CHECK_EQ_INT(ethosu_host_npu_read(npu55, 0x180) & 1, 0);
    uint32_t ev = ETHOSU_PMU_Get_EVCNTR(&drv55, 1);
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    CHECK_EQ_INT(ETHOSU_PMU_Get_EVCNTR(&drv55, 1), ev);
    ETHOSU_PMU_CNTR_Disable(&drv55, 0xF);
}

/* A timeout while the NPU is executing (not held): the reset waits for the
 * run, drops its interrupt, and the NPU carries on. A 32 MiB DMA copy
 * takes milliseconds; the timeout is a fraction of that. */
static void test_reset_during_run(void)
{
    const uint32_t big = 32u << 20;
    uint8_t *s = dm_aligned(big), *d = dm_aligned(big);
    npuc_err err = {0};
    CHECK_EQ_INT(ethosu_host_map(s, big, false, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(d, big, true, &err), 0);
    memset(s, 0x3C, big);
    const uint32_t stream[] = {0x00000130u, 0x00010131u, 0x00004030u, 0, 0x00004031u, 0,
                               0x00004032u, big, 0x00000010u, 0x00000011u, NPU_OP_STOP};
    int size = make_payload(stream, 11, false, 0, 0);
    uint64_t base[2] = {(uintptr_t)s, (uintptr_t)d};
    size_t sz[2] = {big, big};
    /* the run's time on warm buffers: the fastest of three (the first also
     * faults the destination's pages in, and a loaded machine slows any one) */
    double t_run = 1e9;
    for (int i = 0; i < 3; i++) {
        double t0 = now_ms();
        CHECK_EQ_INT(ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL), 0);
        double t = now_ms() - t0;
        if (t < t_run) t_run = t;
    }
    CHECK(d[big - 1] == 0x3C);
    ethosu_host_stats st0, st1;
    ethosu_host_npu_stats(npu55, &st0);
    int timeouts = 0, discarded = 0;
    /* a quarter of the run; halved after each run that beat it (a loaded
     * machine may have slowed the runs measured above, not the later ones) */
    uint64_t tmo = t_run >= 8 ? (uint64_t)(t_run / 4) : 1;
    for (int i = 0; i < 20 && !discarded; i++) {
        ethosu_set_inference_timeout(tmo);
        int rc = ethosu_invoke_v3(&drv55, mini, size, base, sz, 2, NULL);
        ethosu_set_inference_timeout(ETHOSU_SEMAPHORE_WAIT_FOREVER);
        CHECK(rc == 0 || rc == -1);
        if (rc) timeouts++;
        else if (tmo > 1) tmo /= 2;
        ethosu_host_npu_stats(npu55, &st1);
        discarded = (int)(st1.irqs_discarded - st0.irqs_discarded);
    }
    printf("reset during a run: %.1f ms run, %d timeouts, %d interrupts discarded\n", t_run,
           timeouts, discarded);
    CHECK(timeouts >= 1);
    CHECK_EQ_INT(jstate(&drv55), ETHOSU_JOB_IDLE);
    CHECK(!ethosu_host_npu_busy(npu55));
    fill_src(31);
    CHECK_EQ_INT(run_dma(&drv55, 4096, NULL), 0);
    CHECK(memcmp(dst_buf, src_buf, 4096) == 0);
    check_no_stale_give(&drv55);
    ethosu_host_unmap(s);
    ethosu_host_unmap(d);
    free(s);
    free(d);
    CHECK(jobs_balanced());
}

/* ------------------------------------------------------- reservation */

typedef struct waiter {
    pthread_t th;
    struct ethosu_driver *got;
    int done;
} waiter;

static void *reserve_thread(void *arg)
{
    waiter *w = arg;
    struct ethosu_driver *d = ethosu_reserve_driver();
    __atomic_store_n(&w->got, d, __ATOMIC_RELEASE);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_reserve(void)
{
    struct ethosu_driver *a = ethosu_reserve_driver();
    struct ethosu_driver *b = ethosu_reserve_driver();
    CHECK(a && b && a != b);
    CHECK((a == &drv55 || a == &drv65) && (b == &drv55 || b == &drv65));
    CHECK(a->reserved && b->reserved);
    /* a third reserve waits until one is released */
    waiter w = {0};
    pthread_create(&w.th, NULL, reserve_thread, &w);
    sleep_ms(150);
    CHECK_EQ_INT(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), 0);
    ethosu_release_driver(a);
    for (int i = 0; i < 500 && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE); i++)
        sleep_ms(10);
    CHECK_EQ_INT(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), 1);
    pthread_join(w.th, NULL);
    CHECK(w.got == a);
    ethosu_release_driver(w.got);
    ethosu_release_driver(b);
    ethosu_release_driver(b);   /* not reserved: nothing happens */
    CHECK(!drv55.reserved && !drv65.reserved);

    /* releasing a driver whose job still runs stops the job */
    int size = stop_payload();
    struct ethosu_driver *d = ethosu_reserve_driver();
    ethosu_host_npu_set_hang(npu_of(d), true);
    CHECK_EQ_INT(ethosu_invoke_async(d, mini, size, NULL, NULL, 0, (void *)9), 0);
    CHECK(ethosu_host_npu_busy(npu_of(d)));
    ethosu_release_driver(d);
    CHECK(!ethosu_host_npu_busy(npu_of(d)));
    CHECK_EQ_INT(jstate(d), ETHOSU_JOB_IDLE);
    CHECK_EQ_INT(d->power_request_counter, 0);
    CHECK(end_arg == (void *)9);
    ethosu_host_npu_set_hang(npu_of(d), false);
    check_no_stale_give(d);

    /* releasing a driver whose job finished but was not collected */
    d = ethosu_reserve_driver();
    CHECK_EQ_INT(ethosu_invoke_async(d, mini, size, NULL, NULL, 0, NULL), 0);
    for (int i = 0; i < 500 && jstate(d) != ETHOSU_JOB_DONE; i++)
        sleep_ms(2);
    CHECK_EQ_INT(jstate(d), ETHOSU_JOB_DONE);
    ethosu_release_driver(d);
    CHECK_EQ_INT(jstate(d), ETHOSU_JOB_IDLE);
    check_no_stale_give(d);

    /* both reserved, both running at once */
    a = ethosu_reserve_driver();
    b = ethosu_reserve_driver();
    ethosu_host_npu_set_delay(npu55, 300);
    ethosu_host_npu_set_delay(npu65, 300);
    CHECK_EQ_INT(ethosu_invoke_async(a, mini, size, NULL, NULL, 0, NULL), 0);
    CHECK_EQ_INT(ethosu_invoke_async(b, mini, size, NULL, NULL, 0, NULL), 0);
    CHECK(ethosu_host_npu_busy(npu55) && ethosu_host_npu_busy(npu65));
    CHECK_EQ_INT(max_open >= 2, 1);
    CHECK_EQ_INT(ethosu_wait(b, true), 0);
    CHECK_EQ_INT(ethosu_wait(a, true), 0);
    ethosu_host_npu_set_delay(npu55, 0);
    ethosu_host_npu_set_delay(npu65, 0);
    ethosu_release_driver(a);
    ethosu_release_driver(b);
    CHECK(jobs_balanced());
}

/* ------------------------------------------------------------- models */

typedef struct model_pair {
    const char *vela;         /* under models/vela/<cfg>/ */
    const char *ref;          /* under models/tflm/ */
} model_pair;

static const model_pair pairs[] = {
    {"person_detect_vela.tflite", "person_detect.tflite"},
    {"micro_speech_quantized_vela.tflite", "micro_speech_quantized.tflite"},
    {"hello_world_int8_vela.tflite", "hello_world_int8.tflite"},
    {"simple_add_model_vela.tflite", "simple_add_model.tflite"},
};
#define N_PAIRS (int)(sizeof pairs / sizeof pairs[0])

static void test_models(void)
{
    char path[1024], msg[1200];
    if (!t_shared("models/tflm/person_detect.tflite", path, sizeof path)) {
        printf("SKIP model tests: shared models absent (set NPUC_SHARED)\n");
        return;
    }
    const char *cfgs[2] = {"u55-128", "u65-256"};
    struct ethosu_driver *drvs[2] = {&drv55, &drv65};
    int runs = 0;
    for (int p = 0; p < N_PAIRS; p++) {
        char rel[256];
        snprintf(rel, sizeof rel, "models/tflm/%s", pairs[p].ref);
        if (!t_shared(rel, path, sizeof path)) {
            CHECK(0);
            continue;
        }
        dm_ref ref;
        if (dm_reference(path, 3, 1000 + (uint64_t)p, &ref, msg, sizeof msg)) {
            fprintf(stderr, "%s\n", msg);
            CHECK(0);
            continue;
        }
        for (int c = 0; c < 2; c++) {
            snprintf(rel, sizeof rel, "models/vela/%s/%s", cfgs[c], pairs[p].vela);
            dm_model m;
            if (!t_shared(rel, path, sizeof path) || dm_load(&m, path, msg, sizeof msg)) {
                fprintf(stderr, "%s\n", msg);
                CHECK(0);
                continue;
            }
            CHECK_EQ_INT(m.variant, c == 0 ? EU_U55_128 : EU_U65_256);
            CHECK_EQ_INT(m.n_in, ref.n_in);
            CHECK_EQ_INT(m.n_out, ref.n_out);
            dm_arena a;
            CHECK_EQ_INT(dm_arena_init(&a, m.arena_size), 0);
            struct ethosu_driver *d = drvs[c];
            for (int s = 0; s < ref.n_sets; s++) {
                const uint8_t *const *in = (const uint8_t *const *)ref.in[s];
                const uint8_t *const *out = (const uint8_t *const *)ref.out[s];
                /* synchronous */
                int rc = dm_run(d, &m, &a, in, out, (void *)(intptr_t)(s + 1), msg, sizeof msg);
                if (rc) fprintf(stderr, "%s\n", msg);
                CHECK_EQ_INT(rc, 0);
                CHECK(end_arg == (void *)(intptr_t)(s + 1));
                /* async, polled */
                uint64_t base[8];
                size_t size[8];
                memset(a.mem, 0x5A, a.size);
                dm_set_inputs(&m, &a, in);
                dm_bases(&m, &a, base, size);
                CHECK_EQ_INT(ethosu_invoke_async(d, m.payload, (int)m.payload_size, base, size,
                                                 m.n_base, NULL), 0);
                while ((rc = ethosu_wait(d, false)) == 1)
                    sched_yield();
                CHECK_EQ_INT(rc, 0);
                for (int o = 0; o < m.n_out; o++)
                    CHECK(memcmp(a.mem + m.out_off[o], out[o], m.out_size[o]) == 0);
                runs += 2;
            }
            /* the payload for the other NPU is refused */
            uint64_t base[8];
            size_t size[8];
            dm_bases(&m, &a, base, size);
            clear_err();
            CHECK_EQ_INT(ethosu_invoke_v3(drvs[1 - c], m.payload, (int)m.payload_size, base,
                                          size, m.n_base, NULL), -1);
            CHECK_STR_CONTAINS(last_err, "CONFIG");
            /* the cache hooks see the arena (base pointer 1) */
            clear_cache_calls();
            CHECK_EQ_INT(dm_run(d, &m, &a, (const uint8_t *const *)ref.in[0],
                                (const uint8_t *const *)ref.out[0], NULL, msg, sizeof msg), 0);
            CHECK_EQ_INT(n_flush, 1);
            CHECK_EQ_INT(n_inval, 1);
            CHECK(flushes[0].p == (uint32_t *)(a.mem + m.base_off[1]) &&
                  flushes[0].n == m.base_size[1]);
            CHECK(invals[0].p == flushes[0].p && invals[0].n == flushes[0].n);
            dm_arena_free(&a);
            dm_free(&m);
        }
        dm_reference_free(&ref);
    }
    printf("models: %d inferences compared with the reference\n", runs);
    CHECK(runs >= N_PAIRS * 2 * 3 * 2);

    /* person detect on both NPUs at once, with the PMU counting */
    if (!t_shared("models/tflm/person_detect.tflite", path, sizeof path)) return;
    dm_ref ref;
    dm_model m[2];
    dm_arena a[2];
    if (dm_reference(path, 1, 77, &ref, msg, sizeof msg)) {
        fprintf(stderr, "%s\n", msg);
        CHECK(0);
        return;
    }
    for (int c = 0; c < 2; c++) {
        snprintf(msg, sizeof msg, "models/vela/%s/person_detect_vela.tflite", cfgs[c]);
        t_shared(msg, path, sizeof path);
        CHECK_EQ_INT(dm_load(&m[c], path, msg, sizeof msg), 0);
        CHECK_EQ_INT(dm_arena_init(&a[c], m[c].arena_size), 0);
        dm_set_inputs(&m[c], &a[c], (const uint8_t *const *)ref.in[0]);
        ETHOSU_PMU_Enable(drvs[c]);
        ETHOSU_PMU_Set_EVTYPER(drvs[c], 0, ETHOSU_PMU_NPU_ACTIVE);
        ETHOSU_PMU_Set_EVTYPER(drvs[c], 1, ETHOSU_PMU_MAC_ACTIVE);
        ETHOSU_PMU_CNTR_Enable(drvs[c], ETHOSU_PMU_CCNT_Msk | 3);
        ETHOSU_PMU_CYCCNT_Reset(drvs[c]);
        ETHOSU_PMU_EVCNTR_ALL_Reset(drvs[c]);
        ethosu_host_npu_set_delay(npu_of(drvs[c]), 300);
    }
    uint64_t base[2][8];
    size_t size[2][8];
    for (int c = 0; c < 2; c++) {
        dm_bases(&m[c], &a[c], base[c], size[c]);
        CHECK_EQ_INT(ethosu_invoke_async(drvs[c], m[c].payload, (int)m[c].payload_size, base[c],
                                         size[c], m[c].n_base, NULL), 0);
    }
    CHECK(ethosu_host_npu_busy(npu55) && ethosu_host_npu_busy(npu65));
    for (int c = 0; c < 2; c++) {
        CHECK_EQ_INT(ethosu_wait(drvs[c], true), 0);
        CHECK(memcmp(a[c].mem + m[c].out_off[0], ref.out[0][0], m[c].out_size[0]) == 0);
        uint64_t cyc = ETHOSU_PMU_Get_CCNTR(drvs[c]);
        CHECK(cyc > 10000);
        CHECK(ETHOSU_PMU_Get_EVCNTR(drvs[c], 0) == cyc);
        CHECK(ETHOSU_PMU_Get_EVCNTR(drvs[c], 1) > 0);
        CHECK(ETHOSU_PMU_Get_EVCNTR(drvs[c], 1) < cyc);
        printf("person_detect on %s: %llu NPU cycles\n", cfgs[c], (unsigned long long)cyc);
        ETHOSU_PMU_Disable(drvs[c]);
        ETHOSU_PMU_CNTR_Disable(drvs[c], ETHOSU_PMU_CCNT_Msk | 3);
        ethosu_host_npu_set_delay(npu_of(drvs[c]), 0);
        dm_arena_free(&a[c]);
        dm_free(&m[c]);
    }
    dm_reference_free(&ref);

    /* after a timeout, a real model still runs right */
    if (!t_shared("models/vela/u55-128/person_detect_vela.tflite", path, sizeof path)) return;
    CHECK_EQ_INT(dm_load(&m[0], path, msg, sizeof msg), 0);
    CHECK_EQ_INT(dm_arena_init(&a[0], m[0].arena_size), 0);
    t_shared("models/tflm/person_detect.tflite", path, sizeof path);
    CHECK_EQ_INT(dm_reference(path, 1, 5, &ref, msg, sizeof msg), 0);
    ethosu_set_inference_timeout(50);
    ethosu_host_npu_set_hang(npu55, true);
    dm_bases(&m[0], &a[0], base[0], size[0]);
    CHECK_EQ_INT(ethosu_invoke_v3(&drv55, m[0].payload, (int)m[0].payload_size, base[0], size[0],
                                  m[0].n_base, NULL), -1);
    ethosu_host_npu_set_hang(npu55, false);
    ethosu_set_inference_timeout(ETHOSU_SEMAPHORE_WAIT_FOREVER);
    CHECK_EQ_INT(dm_run(&drv55, &m[0], &a[0], (const uint8_t *const *)ref.in[0],
                        (const uint8_t *const *)ref.out[0], NULL, msg, sizeof msg), 0);
    dm_reference_free(&ref);
    dm_arena_free(&a[0]);
    dm_free(&m[0]);
    CHECK(jobs_balanced());
}

/* --------------------------------------------------------------- bus */

static void test_bus(void)
{
    npuc_err err = {0};
    uint8_t *p = aligned_alloc(4096, 8192);
    CHECK(ethosu_host_bus_address(NULL) == 0);
    CHECK(ethosu_host_bus_address(p) == UINT64_MAX);
    CHECK_EQ_INT(ethosu_host_map(p + 16, 1000, true, &err), 0);
    uint64_t b = ethosu_host_bus_address(p + 16);
    CHECK(b != UINT64_MAX && b < 0xFFFFFFFFull);
    CHECK_EQ_INT(b & 0xFFF, 16);                      /* page offset kept */
    CHECK(ethosu_host_bus_address(p + 16 + 999) == b + 999);
    CHECK(ethosu_host_bus_address(p + 16 + 1000) == UINT64_MAX);
    CHECK(ethosu_address_remap((uintptr_t)(p + 20), 1) == b + 4);
    CHECK(ethosu_address_remap((uintptr_t)(p + 20), -1) == b + 4);
    CHECK_EQ_INT(ethosu_host_map(p + 1000, 100, true, &err), NPUC_E_INVALID);   /* overlap */
    CHECK_STR_CONTAINS(err.msg, "overlaps");
    CHECK_EQ_INT(ethosu_host_map(NULL, 100, true, &err), NPUC_E_INVALID);
    CHECK_EQ_INT(ethosu_host_map(p + 4096, 0, true, &err), NPUC_E_INVALID);
    CHECK_EQ_INT(ethosu_host_map(p + 4096, 4096, false, &err), 0);
    uint64_t b2 = ethosu_host_bus_address(p + 4096);
    CHECK(b2 >= b + 4096);                             /* a guard gap between */
    CHECK_EQ_INT(ethosu_host_unmap(p + 16), 0);
    CHECK_EQ_INT(ethosu_host_unmap(p + 16), -1);
    CHECK(ethosu_host_bus_address(p + 16) == UINT64_MAX);
    CHECK(ethosu_host_bus_address(p + 4096) == b2);
    CHECK_EQ_INT(ethosu_host_unmap(p + 4096), 0);
    /* the table fills up */
    int mapped = 0;
    static uint8_t many[ETHOSU_HOST_MAX_MAPPINGS][64] __attribute__((aligned(16)));
    for (int i = 0; i < ETHOSU_HOST_MAX_MAPPINGS; i++)
        if (!ethosu_host_map(many[i], 64, true, &err)) mapped++;
    CHECK(mapped < ETHOSU_HOST_MAX_MAPPINGS);            /* others are in use by the test */
    CHECK_STR_CONTAINS(err.msg, "mappings");
    for (int i = 0; i < ETHOSU_HOST_MAX_MAPPINGS; i++)
        ethosu_host_unmap(many[i]);
    free(p);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    npuc_err err = {0};
    /* Vela's default systems (the PMU checks below count flash and DRAM
     * traffic on AXI1; NULL would be ideal memory, all on AXI0) */
    sim_system sys55, sys65;
    target_default_sim(EU_U55_128, &sys55);
    target_default_sim(EU_U65_256, &sys65);
    CHECK_EQ_INT(ethosu_host_npu_create(EU_U55_128, &sys55, &npu55, &err), 0);
    CHECK_EQ_INT(ethosu_host_npu_create(EU_U65_256, &sys65, &npu65, &err), 0);
    fast55 = dm_aligned(FAST_SIZE);
    fast65 = dm_aligned(FAST_SIZE);
    src_buf = dm_aligned(BUF_SIZE);
    dst_buf = dm_aligned(BUF_SIZE);
    unmapped_buf = dm_aligned(BUF_SIZE);
    CHECK_EQ_INT(ethosu_host_map(fast55, FAST_SIZE, true, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(fast65, FAST_SIZE, true, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(src_buf, BUF_SIZE, false, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(dst_buf, BUF_SIZE, true, &err), 0);
    CHECK_EQ_INT(ethosu_host_map(mini, sizeof mini, false, &err), 0);
    CHECK_EQ_INT(ethosu_host_driver_init(&drv55, npu55, fast55, FAST_SIZE), 0);
    CHECK_EQ_INT(ethosu_host_driver_init(&drv65, npu65, fast65, FAST_SIZE), 0);

    test_basics();
    test_invoke_forms();
    test_hang_and_poll();
    test_timeout();
    test_bad_payloads();
    test_cache_hooks();
    test_pmu();
    test_reset_during_run();
    test_reserve();
    test_bus();
    test_models();

    ethosu_host_driver_deinit(&drv55);
    ethosu_host_driver_deinit(&drv65);
    ethosu_host_npu_free(npu55);
    ethosu_host_npu_free(npu65);
    ethosu_host_unmap(fast55);
    ethosu_host_unmap(fast65);
    ethosu_host_unmap(src_buf);
    ethosu_host_unmap(dst_buf);
    ethosu_host_unmap(mini);
    free(fast55);
    free(fast65);
    free(src_buf);
    free(dst_buf);
    free(unmapped_buf);
    TEST_MAIN_END();
}
