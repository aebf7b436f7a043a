/* ethosu_driver: the ethos-u driver API (include/ethosu_driver.h) over the
 * device layer (ethosu_device.h). Freestanding: no libc beyond the
 * compiler's own headers; shared state between a thread and the IRQ
 * handler goes through __atomic builtins. Facts: docs/ethos-u.md 9.1-9.6.
 *
 * Life of a job:
 *   invoke_async: validate payload and base pointers (nothing touches the
 *     NPU before everything is checked) -> flush caches -> request power ->
 *     state RUNNING -> inference_begin -> QBASE/QSIZE/BASEPn, CMD start.
 *   IRQ handler: clear the IRQ, read STATUS, claim the job (RUNNING -> DONE
 *     with compare-and-swap), store the result, give the semaphore.
 *   wait: take the semaphore (with the inference timeout; on timeout claim
 *     the job itself, so a late IRQ is ignored) -> invalidate caches ->
 *     inference_end -> release power -> on failure soft reset -> IDLE. */
#include "ethosu_driver.h"
#include "driver/ethosu_device.h"
#include "ethosu/eu_cmd.h"
#include "ethosu/eu_cop1.h"

#define MAX_BASE_ADDR EU_N_REGIONS
#define SCRATCH_INDEX 1
#define FAST_MEMORY_INDEX 2
#define RESET_POLLS 100000

/* Driver defaults for QCONFIG, REGIONCFG and AXI_LIMITn (docs/ethos-u.md 9.4):
 * memory attribute 3 for region 0, 0 (U55) / 2 (U65) for region 1, 1 for
 * regions 2-7; 32 reads + 16 writes outstanding on U55, 64 + 32 on U65. */
#define QCONFIG_DEFAULT 2u
#define REGIONCFG_OTHERS                                                                   \
    (EU_REGIONCFG(2, 1) | EU_REGIONCFG(3, 1) | EU_REGIONCFG(4, 1) | EU_REGIONCFG(5, 1) |   \
     EU_REGIONCFG(6, 1) | EU_REGIONCFG(7, 1))
#define REGIONCFG_U55 (EU_REGIONCFG(0, 3) | EU_REGIONCFG(1, 0) | REGIONCFG_OTHERS)
#define REGIONCFG_U65 (EU_REGIONCFG(0, 3) | EU_REGIONCFG(1, 2) | REGIONCFG_OTHERS)
#define AXI_LIMIT_U55 (EU_AXI_LIMIT_MAX_READS(32) | EU_AXI_LIMIT_MAX_WRITES(16))
#define AXI_LIMIT_U65 (EU_AXI_LIMIT_MAX_READS(64) | EU_AXI_LIMIT_MAX_WRITES(32))

/* ---------------------------------------------------------- global state */

static struct ethosu_driver *registered;   /* list of drivers, under list_mutex */
static void *list_mutex;
static void *free_drivers;                 /* counts unreserved registered drivers */
static uint64_t inference_timeout = ETHOSU_SEMAPHORE_WAIT_INFERENCE;

/* ------------------------------------------------------- shared job words */

static enum ethosu_job_state job_state(const struct ethosu_driver *drv)
{
    return __atomic_load_n(&drv->job.state, __ATOMIC_ACQUIRE);
}

static void set_job_state(struct ethosu_driver *drv, enum ethosu_job_state s)
{
    __atomic_store_n(&drv->job.state, s, __ATOMIC_RELEASE);
}

static enum ethosu_job_result job_result(const struct ethosu_driver *drv)
{
    return __atomic_load_n(&drv->job.result, __ATOMIC_ACQUIRE);
}

static void set_job_result(struct ethosu_driver *drv, enum ethosu_job_result r)
{
    __atomic_store_n(&drv->job.result, r, __ATOMIC_RELEASE);
}

/* RUNNING -> DONE; true for whoever wins (the IRQ handler or a timeout). */
static bool claim_job(struct ethosu_driver *drv)
{
    enum ethosu_job_state expected = ETHOSU_JOB_RUNNING;
    return __atomic_compare_exchange_n(&drv->job.state, &expected, ETHOSU_JOB_DONE, false,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void reset_job(struct ethosu_driver *drv)
{
    drv->job.custom_data_ptr = NULL;
    drv->job.custom_data_size = 0;
    drv->job.base_addr = NULL;
    drv->job.base_addr_size = NULL;
    drv->job.num_base_addr = 0;
    drv->job.user_arg = NULL;
    set_job_result(drv, ETHOSU_JOB_RESULT_OK);
    set_job_state(drv, ETHOSU_JOB_IDLE);
}

/* Log texts: build with -DETHOSU_LOG_TEXT=0 to drop them from flash (the
 * log hook then gets an empty message with the same level and value). */
#ifndef ETHOSU_LOG_TEXT
#define ETHOSU_LOG_TEXT 1
#endif
#if ETHOSU_LOG_TEXT
#define ETHOSU_TEXT(s) (s)
#else
#define ETHOSU_TEXT(s) ("")
#endif

/* ------------------------------------------------------------ weak hooks */

void __attribute__((weak)) ethosu_log_hook(struct ethosu_driver *drv, enum ethosu_log_level level,
                                           const char *msg, uint64_t value)
{
    (void)drv;
    (void)level;
    (void)msg;
    (void)value;
}

static void log_err(struct ethosu_driver *drv, const char *msg, uint64_t value)
{
    ethosu_log_hook(drv, ETHOSU_LOG_ERR, msg, value);
}

void __attribute__((weak)) ethosu_flush_dcache(uint32_t *p, size_t bytes)
{
    (void)p;
    (void)bytes;
}

void __attribute__((weak)) ethosu_invalidate_dcache(uint32_t *p, size_t bytes)
{
    (void)p;
    (void)bytes;
}

void __attribute__((weak)) ethosu_inference_begin(struct ethosu_driver *drv, void *user_arg)
{
    (void)drv;
    (void)user_arg;
}

void __attribute__((weak)) ethosu_inference_end(struct ethosu_driver *drv, void *user_arg)
{
    (void)drv;
    (void)user_arg;
}

uint64_t __attribute__((weak)) ethosu_address_remap(uint64_t address, int index)
{
    (void)index;
    return address;
}

/* Bare-metal defaults: a mutex that does nothing (one thread of control
 * plus interrupts) and counting semaphores from a static pool. */
void *__attribute__((weak)) ethosu_mutex_create(void)
{
    static uint8_t placeholder;
    return &placeholder;
}

void __attribute__((weak)) ethosu_mutex_destroy(void *mutex)
{
    (void)mutex;
}

int __attribute__((weak)) ethosu_mutex_lock(void *mutex)
{
    (void)mutex;
    return 0;
}

int __attribute__((weak)) ethosu_mutex_unlock(void *mutex)
{
    (void)mutex;
    return 0;
}

#ifndef ETHOSU_MAX_SEMAPHORES
#define ETHOSU_MAX_SEMAPHORES 9   /* 8 drivers + the global one */
#endif

struct ethosu_default_sem {
    uint32_t count;
    uint8_t used;
};

static struct ethosu_default_sem sem_pool[ETHOSU_MAX_SEMAPHORES];

void *__attribute__((weak)) ethosu_semaphore_create(void)
{
    for (int i = 0; i < ETHOSU_MAX_SEMAPHORES; i++) {
        if (!__atomic_exchange_n(&sem_pool[i].used, 1, __ATOMIC_ACQ_REL)) {
            __atomic_store_n(&sem_pool[i].count, 0, __ATOMIC_RELEASE);
            return &sem_pool[i];
        }
    }
    return NULL;
}

void __attribute__((weak)) ethosu_semaphore_destroy(void *sem)
{
    struct ethosu_default_sem *s = sem;
    if (s)
        __atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
}

int __attribute__((weak)) ethosu_semaphore_take(void *sem, uint64_t timeout)
{
    struct ethosu_default_sem *s = sem;
    uint64_t polls = 0;
    for (;;) {
        uint32_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
        if (c) {
            if (__atomic_compare_exchange_n(&s->count, &c, c - 1, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return 0;
            continue;
        }
        if (timeout != ETHOSU_SEMAPHORE_WAIT_FOREVER && polls >= timeout)
            return -1;
        polls++;
    }
}

int __attribute__((weak)) ethosu_semaphore_give(void *sem)
{
    struct ethosu_default_sem *s = sem;
    __atomic_fetch_add(&s->count, 1, __ATOMIC_RELEASE);
    return 0;
}

/* ---------------------------------------------------------- device level */

static uint32_t rd(struct ethosu_driver *drv, uint32_t off)
{
    return ethosu_dev_read(&drv->dev, off);
}

static void wr(struct ethosu_driver *drv, uint32_t off, uint32_t v)
{
    ethosu_dev_write(&drv->dev, off, v);
}

static bool is_u65(struct ethosu_driver *drv)
{
    return EU_CONFIG_PRODUCT(rd(drv, EU_REG_CONFIG)) == EU_PRODUCT_U65;
}

/* The RESET / PROT encoding of the requested levels: [0] privileged,
 * [1] non-secure. */
static uint32_t access_levels(const struct ethosu_driver *drv)
{
    return (drv->dev.privileged ? (uint32_t)EU_PROT_PRIVILEGED : 0u) |
           (drv->dev.secure ? 0u : (uint32_t)EU_PROT_NON_SECURE);
}

static int dev_soft_reset(struct ethosu_driver *drv)
{
    uint32_t levels = access_levels(drv);
    wr(drv, EU_REG_RESET, levels);
    int i = 0;
    while ((rd(drv, EU_REG_STATUS) & EU_STATUS_RESET) && i < RESET_POLLS)
        i++;
    if (rd(drv, EU_REG_STATUS) & EU_STATUS_RESET) {
        log_err(drv, ETHOSU_TEXT("soft reset did not complete"), RESET_POLLS);
        return -1;
    }
    uint32_t prot = rd(drv, EU_REG_PROT) & EU_PROT_MASK;
    if (prot != levels) {
        log_err(drv, ETHOSU_TEXT("NPU did not take the requested security/privilege level (PROT)"), prot);
        return -1;
    }
    bool u65 = is_u65(drv);
    wr(drv, EU_REG_QCONFIG, QCONFIG_DEFAULT);
    wr(drv, EU_REG_REGIONCFG, u65 ? REGIONCFG_U65 : REGIONCFG_U55);
    for (uint32_t k = 0; k < EU_N_AXI_LIMIT; k++)
        wr(drv, EU_REG_AXI_LIMIT(k), u65 ? AXI_LIMIT_U65 : AXI_LIMIT_U55);
    return 0;
}

static void set_clock_and_power(struct ethosu_driver *drv, enum ethosu_clock_q_request clock,
                                enum ethosu_power_q_request power)
{
    uint32_t cmd = rd(drv, EU_REG_CMD) & EU_CMD_Q_MASK;
    if (clock != ETHOSU_CLOCK_Q_UNCHANGED)
        cmd = clock == ETHOSU_CLOCK_Q_ENABLE ? cmd | EU_CMD_CLOCK_Q : cmd & ~EU_CMD_CLOCK_Q;
    if (power != ETHOSU_POWER_Q_UNCHANGED)
        cmd = power == ETHOSU_POWER_Q_ENABLE ? cmd | EU_CMD_POWER_Q : cmd & ~EU_CMD_POWER_Q;
    wr(drv, EU_REG_CMD, cmd);
}

/* ------------------------------------------------------------ driver list */

static bool is_registered(const struct ethosu_driver *drv)
{
    for (const struct ethosu_driver *d = registered; d; d = d->next)
        if (d == drv)
            return true;
    return false;
}

/* ------------------------------------------------------------ public API */

/* A plain variable: 64-bit atomics are not lock-free on Cortex-M, and the
 * API asks callers to set it while nothing waits. */
void ethosu_set_inference_timeout(uint64_t timeout)
{
    inference_timeout = timeout;
}

uint64_t ethosu_get_inference_timeout(void)
{
    return inference_timeout;
}

void ethosu_set_basep_cache_mask(struct ethosu_driver *drv, uint8_t flush_mask,
                                 uint8_t invalidate_mask)
{
    if (!drv)
        return;
    drv->basep_flush_mask = flush_mask;
    drv->basep_invalidate_mask = invalidate_mask;
}

int ethosu_init(struct ethosu_driver *drv, void *const base_address, const void *fast_memory,
                const size_t fast_memory_size, uint32_t secure_enable, uint32_t privilege_enable)
{
    if (!drv || !base_address) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: NULL driver or base address"), 0);
        return -1;
    }
    if (!list_mutex && !(list_mutex = ethosu_mutex_create())) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: cannot create the driver list mutex"), 0);
        return -1;
    }
    if (!free_drivers && !(free_drivers = ethosu_semaphore_create())) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: cannot create the driver list semaphore"), 0);
        return -1;
    }
    ethosu_mutex_lock(list_mutex);
    bool known = is_registered(drv);
    ethosu_mutex_unlock(list_mutex);
    if (known) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: driver is already initialized"), 0);
        return -1;
    }

    drv->dev.reg = (volatile struct NPU_REG *)base_address;
    drv->dev.secure = secure_enable;
    drv->dev.privileged = privilege_enable;
    drv->next = NULL;
    drv->semaphore = NULL;
    drv->fast_memory = (uint64_t)(uintptr_t)fast_memory;
    drv->fast_memory_size = fast_memory ? fast_memory_size : 0;
    drv->power_request_counter = 0;
    drv->reserved = false;
    ethosu_set_basep_cache_mask(drv, 1u << SCRATCH_INDEX, 1u << SCRATCH_INDEX);
    reset_job(drv);

    uint32_t product = EU_CONFIG_PRODUCT(rd(drv, EU_REG_CONFIG));
#if defined(ETHOSU55)
    if (product != EU_PRODUCT_U55) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: driver built for Ethos-U55, NPU product is"), product);
        return -1;
    }
#elif defined(ETHOSU65)
    if (product != EU_PRODUCT_U65) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: driver built for Ethos-U65, NPU product is"), product);
        return -1;
    }
#else
    if (product != EU_PRODUCT_U55 && product != EU_PRODUCT_U65) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: unknown NPU product (CONFIG[31:28])"), product);
        return -1;
    }
#endif
    if (ethosu_soft_reset(drv))
        return -1;
    drv->semaphore = ethosu_semaphore_create();
    if (!drv->semaphore) {
        log_err(drv, ETHOSU_TEXT("ethosu_init: cannot create the driver semaphore"), 0);
        return -1;
    }

    ethosu_mutex_lock(list_mutex);
    drv->next = registered;
    registered = drv;
    ethosu_mutex_unlock(list_mutex);
    ethosu_semaphore_give(free_drivers);
    ethosu_log_hook(drv, ETHOSU_LOG_INFO, ETHOSU_TEXT("NPU driver registered"), (uint64_t)(uintptr_t)base_address);
    return 0;
}

static int finish_job(struct ethosu_driver *drv, bool block, uint64_t timeout);

/* Stops whatever job drv has: collects a finished one, aborts a running one. */
static void abandon_job(struct ethosu_driver *drv)
{
    if (job_state(drv) == ETHOSU_JOB_IDLE)
        return;
    if (finish_job(drv, false, 0) == 1)
        (void)finish_job(drv, true, 0);
}

void ethosu_deinit(struct ethosu_driver *drv)
{
    if (!drv || !list_mutex)
        return;
    ethosu_mutex_lock(list_mutex);
    bool found = false;
    for (struct ethosu_driver **p = &registered; *p; p = &(*p)->next) {
        if (*p == drv) {
            *p = drv->next;
            found = true;
            break;
        }
    }
    bool was_reserved = drv->reserved;
    ethosu_mutex_unlock(list_mutex);
    if (!found) {
        log_err(drv, ETHOSU_TEXT("ethosu_deinit: driver is not registered"), 0);
        return;
    }
    /* an unreserved driver counted as free: take its unit back */
    if (!was_reserved)
        (void)ethosu_semaphore_take(free_drivers, 0);
    abandon_job(drv);
    drv->next = NULL;
    if (drv->semaphore)
        ethosu_semaphore_destroy(drv->semaphore);
    drv->semaphore = NULL;
}

int ethosu_soft_reset(struct ethosu_driver *drv)
{
    if (!drv)
        return -1;
    if (dev_soft_reset(drv))
        return -1;
    bool powered = drv->power_request_counter > 0;
    set_clock_and_power(drv, powered ? ETHOSU_CLOCK_Q_DISABLE : ETHOSU_CLOCK_Q_ENABLE,
                        powered ? ETHOSU_POWER_Q_DISABLE : ETHOSU_POWER_Q_ENABLE);
    return 0;
}

int ethosu_request_power(struct ethosu_driver *drv)
{
    if (!drv)
        return -1;
    if (drv->power_request_counter++ == 0) {
        /* first request: put the NPU in a known state */
        if (ethosu_soft_reset(drv)) {
            drv->power_request_counter--;
            log_err(drv, ETHOSU_TEXT("power request: soft reset failed"), 0);
            return -1;
        }
    }
    return 0;
}

void ethosu_release_power(struct ethosu_driver *drv)
{
    if (!drv)
        return;
    if (drv->power_request_counter == 0) {
        ethosu_log_hook(drv, ETHOSU_LOG_WARN, ETHOSU_TEXT("power release without a request"), 0);
        return;
    }
    if (--drv->power_request_counter == 0)
        set_clock_and_power(drv, ETHOSU_CLOCK_Q_ENABLE, ETHOSU_POWER_Q_ENABLE);
}

void ethosu_get_driver_version(struct ethosu_driver_version *ver)
{
    if (!ver)
        return;
    ver->major = ETHOSU_DRIVER_VERSION_MAJOR;
    ver->minor = ETHOSU_DRIVER_VERSION_MINOR;
    ver->patch = ETHOSU_DRIVER_VERSION_PATCH;
}

void ethosu_get_hw_info(struct ethosu_driver *drv, struct ethosu_hw_info *hw)
{
    if (!drv || !hw)
        return;
    uint32_t id = rd(drv, EU_REG_ID), cfg = rd(drv, EU_REG_CONFIG);
    hw->version.version_status = EU_ID_VERSION_STATUS(id);
    hw->version.version_minor = EU_ID_VERSION_MINOR(id);
    hw->version.version_major = EU_ID_VERSION_MAJOR(id);
    hw->version.product_major = EU_ID_PRODUCT_MAJOR(id);
    hw->version.arch_patch_rev = EU_ID_ARCH_PATCH(id);
    hw->version.arch_minor_rev = EU_ID_ARCH_MINOR(id);
    hw->version.arch_major_rev = EU_ID_ARCH_MAJOR(id);
    hw->cfg.macs_per_cc = EU_CONFIG_MACS_LOG2(cfg);
    hw->cfg.cmd_stream_version = EU_CONFIG_CMD_STREAM_VERSION(cfg);
    hw->cfg.custom_dma = EU_CONFIG_CUSTOM_DMA(cfg);
}

/* --------------------------------------------------------- payload checks */

static uint32_t word_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The OPTIMIZER_CONFIG check (docs/ethos-u.md 9.2). */
static int check_optimizer_config(struct ethosu_driver *drv, uint32_t cfg, uint32_t id)
{
    uint32_t hw_cfg = rd(drv, EU_REG_CONFIG), hw_id = rd(drv, EU_REG_ID);
    int rc = 0;
    if (cfg != hw_cfg) {
        if (EU_CONFIG_PRODUCT(cfg) != EU_CONFIG_PRODUCT(hw_cfg)) {
            log_err(drv, ETHOSU_TEXT("payload: compiled for another NPU product (CONFIG)"), cfg);
            rc = -1;
        }
        if (EU_CONFIG_MACS_LOG2(cfg) != EU_CONFIG_MACS_LOG2(hw_cfg)) {
            log_err(drv, ETHOSU_TEXT("payload: compiled for another MACs/cycle configuration (CONFIG)"), cfg);
            rc = -1;
        }
        if (EU_CONFIG_CMD_STREAM_VERSION(cfg) != EU_CONFIG_CMD_STREAM_VERSION(hw_cfg)) {
            log_err(drv, ETHOSU_TEXT("payload: command stream version differs from the NPU's (CONFIG)"), cfg);
            rc = -1;
        }
        if (EU_CONFIG_CUSTOM_DMA(cfg) && !EU_CONFIG_CUSTOM_DMA(hw_cfg)) {
            log_err(drv, ETHOSU_TEXT("payload: needs custom DMA, which the NPU lacks (CONFIG)"), cfg);
            rc = -1;
        }
    }
    if (EU_ID_ARCH_MAJOR(id) != EU_ID_ARCH_MAJOR(hw_id) ||
        EU_ID_ARCH_MINOR(hw_id) < EU_ID_ARCH_MINOR(id)) {
        log_err(drv, ETHOSU_TEXT("payload: compiled for a newer NPU architecture version (ID)"), id);
        rc = -1;
    }
    return rc;
}

/* Walks the driver actions (eu_cop1_parse), then checks the optimizer
 * config. On success *stream / *stream_words give the one command stream
 * (16-byte aligned, inside the payload). */
static int parse_payload(struct ethosu_driver *drv, const uint8_t *data, int size,
                         const uint8_t **stream, uint32_t *stream_words)
{
    if (!data || size <= 0) {
        log_err(drv, ETHOSU_TEXT("payload: NULL or empty"), (uint64_t)(int64_t)size);
        return -1;
    }
    if ((uintptr_t)data & (EU_COP1_ALIGN - 1)) {
        log_err(drv, ETHOSU_TEXT("payload: not 16-byte aligned"), (uint64_t)(uintptr_t)data);
        return -1;
    }
    eu_cop1 p;
    eu_cop1_status st = eu_cop1_parse(data, (size_t)size, &p);
    if (st) {
        const char *why;
        uint64_t value = p.err_offset / 4;   /* the word index */
        switch (st) {
        case EU_COP1_E_SIZE: why = ETHOSU_TEXT("payload: size is not a multiple of 4 bytes"); value = (uint64_t)size; break;
        case EU_COP1_E_MAGIC: why = ETHOSU_TEXT("payload: bad magic (not COP1)"); value = p.err_word; break;
        case EU_COP1_E_CONFIG_TRUNCATED: why = ETHOSU_TEXT("payload: OPTIMIZER_CONFIG truncated at word"); break;
        case EU_COP1_E_CONFIG_TWICE: why = ETHOSU_TEXT("payload: more than one OPTIMIZER_CONFIG, at word"); break;
        case EU_COP1_E_STREAM_TWICE: why = ETHOSU_TEXT("payload: more than one COMMAND_STREAM, at word"); break;
        case EU_COP1_E_STREAM_PAST_END:
            why = ETHOSU_TEXT("payload: command stream runs past the end of the payload (words)");
            value = p.stream_words;
            break;
        case EU_COP1_E_STREAM_EMPTY: why = ETHOSU_TEXT("payload: empty COMMAND_STREAM at word"); break;
        case EU_COP1_E_NO_STREAM: why = ETHOSU_TEXT("payload: no COMMAND_STREAM"); value = 0; break;
        default: why = ETHOSU_TEXT("payload: unsupported driver action"); value = p.err_word; break;
        }
        log_err(drv, why, value);
        return -1;
    }
    if (p.has_config && check_optimizer_config(drv, p.config, p.id))
        return -1;
    *stream = data + p.stream_offset;
    *stream_words = (uint32_t)p.stream_words;
    if ((uintptr_t)*stream & (EU_COP1_ALIGN - 1)) {
        log_err(drv, ETHOSU_TEXT("payload: command stream not 16-byte aligned, at word"), p.stream_offset / 4);
        return -1;
    }
    return 0;
}

/* Checks that every region an operation of the stream uses has a base
 * pointer that is not NULL. Register commands of other kinds are the
 * NPU's business (it stops with cmd_parse_error). */
static int check_stream_regions(struct ethosu_driver *drv, const uint8_t *stream, uint32_t words,
                                const uint64_t *base_addr, int num_base_addr)
{
    int ifm = -1, ofm = -1, ifm2 = -1, weight = -1, scale = -1, dma_src = -1, dma_dst = -1;
    bool ifm2_scalar = false;
    for (uint32_t i = 0; i < words;) {
        uint32_t w = word_at(stream + 4 * i);
        uint16_t code = eu_word_code(w), param = eu_word_param(w);
        if (eu_code_is_cmd1(code)) {      /* one payload word, no region */
            i += 2;
            continue;
        }
        i++;
        int used[4] = {-1, -1, -1, -1};
        switch (code) {
        case EU_SET_IFM_REGION: ifm = (int)eu_param_region(param); break;
        case EU_SET_OFM_REGION: ofm = (int)eu_param_region(param); break;
        case EU_SET_IFM2_REGION: ifm2 = (int)eu_param_region(param); break;
        case EU_SET_WEIGHT_REGION: weight = (int)eu_param_region(param); break;
        case EU_SET_SCALE_REGION: scale = (int)eu_param_region(param); break;
        /* DMA: SHRAM (internal) or a region */
        case EU_SET_DMA0_SRC_REGION: dma_src = eu_param_dma_internal(param) ? -1 : (int)eu_param_region(param); break;
        case EU_SET_DMA0_DST_REGION: dma_dst = eu_param_dma_internal(param) ? -1 : (int)eu_param_region(param); break;
        case EU_SET_IFM2_BROADCAST: ifm2_scalar = eu_param_bcast_scalar(param); break;
        case EU_OP_CONV:
        case EU_OP_DEPTHWISE:
            used[0] = ifm; used[1] = ofm; used[2] = weight; used[3] = scale;
            break;
        case EU_OP_POOL:
            used[0] = ifm; used[1] = ofm;
            break;
        case EU_OP_ELEMENTWISE:
            used[0] = ifm; used[1] = ofm; used[2] = ifm2_scalar ? -1 : ifm2;
            break;
        case EU_OP_DMA_START:
            used[0] = dma_src;
            used[1] = dma_dst;
            break;
        default:
            break;
        }
        for (int k = 0; k < 4; k++) {
            int r = used[k];
            if (r < 0)
                continue;
            if (r >= num_base_addr) {
                log_err(drv, ETHOSU_TEXT("base pointers: the command stream uses a region without a base "
                                         "pointer (region)"), (uint64_t)r);
                return -1;
            }
            if (base_addr[r] == 0) {
                log_err(drv, ETHOSU_TEXT("base pointers: the command stream uses a region whose base pointer "
                                         "is NULL (region)"), (uint64_t)r);
                return -1;
            }
        }
    }
    return 0;
}

/* Validates the base pointers and computes their bus addresses. */
static int check_base_pointers(struct ethosu_driver *drv, uint64_t *base_addr,
                               const size_t *base_addr_size, int num, uint64_t bus_max,
                               uint64_t *bus)
{
    if (num < 0 || num > MAX_BASE_ADDR) {
        log_err(drv, ETHOSU_TEXT("base pointers: count must be 0..8, is"), (uint64_t)(int64_t)num);
        return -1;
    }
    if (num > 0 && (!base_addr || !base_addr_size)) {
        log_err(drv, ETHOSU_TEXT("base pointers: NULL base_addr or base_addr_size array"), 0);
        return -1;
    }
    if (drv->fast_memory && num > FAST_MEMORY_INDEX) {
        if (base_addr_size[FAST_MEMORY_INDEX] > drv->fast_memory_size) {
            log_err(drv, ETHOSU_TEXT("base pointers: fast memory smaller than the fast scratch (bytes)"),
                    base_addr_size[FAST_MEMORY_INDEX]);
            return -1;
        }
        base_addr[FAST_MEMORY_INDEX] = drv->fast_memory;
    }
    for (int i = 0; i < num; i++) {
        if (base_addr[i] == 0) {
            if (base_addr_size[i] != 0) {
                log_err(drv, ETHOSU_TEXT("base pointers: NULL base pointer with a nonzero size (index)"),
                        (uint64_t)i);
                return -1;
            }
            bus[i] = 0;
            continue;
        }
        if (base_addr[i] & (EU_COP1_ALIGN - 1)) {
            log_err(drv, ETHOSU_TEXT("base pointers: not 16-byte aligned (index)"), (uint64_t)i);
            return -1;
        }
        bus[i] = ethosu_address_remap(base_addr[i], i);
        if (bus[i] > bus_max || (bus[i] & (EU_COP1_ALIGN - 1))) {
            log_err(drv, ETHOSU_TEXT("base pointers: address not usable on the NPU's bus (index)"), (uint64_t)i);
            return -1;
        }
    }
    return 0;
}

static void cache_maintenance(struct ethosu_driver *drv, uint8_t mask, bool flush)
{
    for (int i = 0; i < drv->job.num_base_addr && i < MAX_BASE_ADDR; i++) {
        if (!(mask & (1u << i)) || drv->job.base_addr[i] == 0)
            continue;
        uint32_t *p = (uint32_t *)(uintptr_t)drv->job.base_addr[i];
        if (flush)
            ethosu_flush_dcache(p, drv->job.base_addr_size[i]);
        else
            ethosu_invalidate_dcache(p, drv->job.base_addr_size[i]);
    }
}

/* ------------------------------------------------------------ inference */

void __attribute__((weak)) ethosu_irq_handler(struct ethosu_driver *drv)
{
    if (!drv)
        return;
    uint32_t status = rd(drv, EU_REG_STATUS);
    wr(drv, EU_REG_CMD, (rd(drv, EU_REG_CMD) & EU_CMD_Q_MASK) | EU_CMD_CLEAR_IRQ);
    if (!(status & EU_STATUS_IRQ_RAISED))
        return;   /* spurious */
    bool ok = !(status & EU_STATUS_ERRORS) && (status & EU_STATUS_CMD_END_REACHED);
    /* a job that already timed out (or none) is left alone */
    if (!claim_job(drv))
        return;
    set_job_result(drv, ok ? ETHOSU_JOB_RESULT_OK : ETHOSU_JOB_RESULT_ERROR);
    ethosu_semaphore_give(drv->semaphore);
}

int ethosu_invoke_async(struct ethosu_driver *drv, const void *custom_data_ptr,
                        const int custom_data_size, uint64_t *const base_addr,
                        const size_t *base_addr_size, const int num_base_addr, void *user_arg)
{
    if (!drv || !drv->semaphore) {
        log_err(drv, ETHOSU_TEXT("invoke: driver not initialized"), 0);
        return -1;
    }
    if (job_state(drv) != ETHOSU_JOB_IDLE) {
        log_err(drv, ETHOSU_TEXT("invoke: a job is already running or waiting to be collected"), 0);
        return -1;
    }
    const uint8_t *stream;
    uint32_t stream_words;
    uint64_t bus[MAX_BASE_ADDR];
    /* U65: 40-bit addresses, U55: 32-bit */
    uint64_t bus_max = is_u65(drv) ? (uint64_t)EU_ADDR_HI_MASK << 32 | 0xFFFFFFFFu : 0xFFFFFFFFu;
    if (parse_payload(drv, custom_data_ptr, custom_data_size, &stream, &stream_words) ||
        check_base_pointers(drv, base_addr, base_addr_size, num_base_addr, bus_max, bus) ||
        check_stream_regions(drv, stream, stream_words, base_addr, num_base_addr))
        return -1;
    uint64_t qbase = ethosu_address_remap((uint64_t)(uintptr_t)stream, -1);
    if (qbase > bus_max || (qbase & (EU_COP1_ALIGN - 1))) {
        log_err(drv, ETHOSU_TEXT("invoke: command stream address not usable on the NPU's bus"), qbase);
        return -1;
    }

    drv->job.custom_data_ptr = custom_data_ptr;
    drv->job.custom_data_size = custom_data_size;
    drv->job.base_addr = base_addr;
    drv->job.base_addr_size = base_addr_size;
    drv->job.num_base_addr = num_base_addr;
    drv->job.user_arg = user_arg;
    set_job_result(drv, ETHOSU_JOB_RESULT_OK);

    cache_maintenance(drv, drv->basep_flush_mask, true);
    if (ethosu_request_power(drv)) {
        reset_job(drv);
        return -1;
    }
    set_job_state(drv, ETHOSU_JOB_RUNNING);
    ethosu_inference_begin(drv, user_arg);

    bool u65 = bus_max > 0xFFFFFFFFull;
    wr(drv, EU_REG_QBASE, (uint32_t)qbase);
    if (u65)
        wr(drv, EU_REG_QBASE_HI, (uint32_t)(qbase >> 32));
    wr(drv, EU_REG_QSIZE, stream_words * 4u);
    for (int i = 0; i < num_base_addr; i++) {
        wr(drv, EU_REG_BASEP_LO(i), (uint32_t)bus[i]);
        if (u65)
            wr(drv, EU_REG_BASEP_HI(i), (uint32_t)(bus[i] >> 32));
    }
    wr(drv, EU_REG_CMD, (rd(drv, EU_REG_CMD) & EU_CMD_Q_MASK) | EU_CMD_START);
    return 0;
}

static int finish_job(struct ethosu_driver *drv, bool block, uint64_t timeout)
{
    enum ethosu_job_state st = job_state(drv);
    if (st == ETHOSU_JOB_IDLE)
        return -2;
    if (st == ETHOSU_JOB_RUNNING && !block)
        return 1;
    if (ethosu_semaphore_take(drv->semaphore, timeout) < 0) {
        if (claim_job(drv)) {
            set_job_result(drv, ETHOSU_JOB_RESULT_TIMEOUT);
            log_err(drv, ETHOSU_TEXT("inference timed out; NPU QREAD"), rd(drv, EU_REG_QREAD));
        } else {
            /* the IRQ handler finished the job meanwhile: its give comes */
            (void)ethosu_semaphore_take(drv->semaphore, ETHOSU_SEMAPHORE_WAIT_FOREVER);
        }
    }
    cache_maintenance(drv, drv->basep_invalidate_mask, false);
    ethosu_inference_end(drv, drv->job.user_arg);
    ethosu_release_power(drv);
    int rc = 0;
    enum ethosu_job_result result = job_result(drv);
    if (result != ETHOSU_JOB_RESULT_OK) {
        if (result == ETHOSU_JOB_RESULT_ERROR)
            log_err(drv, ETHOSU_TEXT("NPU stopped with an error; STATUS"), rd(drv, EU_REG_STATUS));
        (void)ethosu_soft_reset(drv);
        rc = -1;
    }
    reset_job(drv);
    return rc;
}

int ethosu_wait(struct ethosu_driver *drv, bool block)
{
    if (!drv)
        return -2;
    return finish_job(drv, block, ethosu_get_inference_timeout());
}

int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr,
                     const int custom_data_size, uint64_t *const base_addr,
                     const size_t *base_addr_size, const int num_base_addr, void *user_arg)
{
    if (ethosu_invoke_async(drv, custom_data_ptr, custom_data_size, base_addr, base_addr_size,
                            num_base_addr, user_arg))
        return -1;
    return ethosu_wait(drv, true);
}

/* ------------------------------------------------------- driver reservation */

struct ethosu_driver *ethosu_reserve_driver(void)
{
    if (!free_drivers || !list_mutex) {
        log_err(NULL, ETHOSU_TEXT("reserve: no driver was ever initialized"), 0);
        return NULL;
    }
    (void)ethosu_semaphore_take(free_drivers, ETHOSU_SEMAPHORE_WAIT_FOREVER);
    ethosu_mutex_lock(list_mutex);
    struct ethosu_driver *drv = registered;
    while (drv && drv->reserved)
        drv = drv->next;
    if (drv)
        drv->reserved = true;
    ethosu_mutex_unlock(list_mutex);
    if (!drv)
        log_err(NULL, ETHOSU_TEXT("reserve: no free driver although the semaphore was given"), 0);
    return drv;
}

void ethosu_release_driver(struct ethosu_driver *drv)
{
    if (!drv || !list_mutex)
        return;
    ethosu_mutex_lock(list_mutex);
    if (drv->reserved) {
        abandon_job(drv);
        drv->reserved = false;
        if (is_registered(drv))
            ethosu_semaphore_give(free_drivers);
    }
    ethosu_mutex_unlock(list_mutex);
}
