/* ethosu_host: the device layer on the host. dev->reg is an
 * ethosu_host_npu; register accesses go to its sim_npu. See ethosu_host.h
 * for the behaviour; this file is the mechanics.
 *
 * A job goes IDLE -> QUEUED (CMD start written; held while `hang`) ->
 * RUNNING (the simulator executes it, without the lock) -> IDLE, then its
 * interrupt is delivered unless a RESET arrived meanwhile (each RESET
 * starts a new generation; a job only interrupts in its own). Without
 * threads the same steps happen inside the CMD write. */
#include "driver/host/ethosu_host_int.h"
#include "driver/ethosu_device.h"

#include <stdlib.h>
#include <string.h>

#if ETHOSU_HOST_THREADS
#include <errno.h>
#include <pthread.h>
#include <time.h>
#define LOCK(n) pthread_mutex_lock(&(n)->lock)
#define UNLOCK(n) pthread_mutex_unlock(&(n)->lock)
#define WAKE(n) pthread_cond_broadcast(&(n)->cond)
#define WAIT(n) pthread_cond_wait(&(n)->cond, &(n)->lock)
#else
#define LOCK(n) ((void)(n))
#define UNLOCK(n) ((void)(n))
#define WAKE(n) ((void)(n))
#endif

#define HOST_NPU_MAGIC 0x4E505548u      /* "HUPN" */
#define SNAP_WORDS 256                  /* registers 0x000..0x3FC (ID to the PMU) */
#define MAX_PENDING 64

enum { PH_IDLE, PH_QUEUED, PH_RUNNING };

struct ethosu_host_npu {
    uint32_t magic;
    sim_npu *sim;
    uint64_t map_gen;                 /* bus table generation mapped into sim */
    void (*irq)(void *);
    void *irq_user;
    bool hang;
    uint32_t delay_ms;
    int phase;
    uint32_t start_cmd;               /* the CMD value that started the job */
    uint64_t gen;                     /* RESET count */
    bool delivering;                  /* the IRQ callback is running */
    bool irq_seen;                    /* the simulator raised its IRQ in this run */
    uint32_t snap[SNAP_WORDS];        /* registers as read while busy */
    struct { uint32_t off, val; } pending[MAX_PENDING];
    size_t n_pending;                 /* writes made while busy, applied after */
    ethosu_host_stats stats;
#if ETHOSU_HOST_THREADS
    pthread_mutex_t lock;
    pthread_cond_t cond;              /* any state change */
    pthread_t worker;
    bool quit;
#endif
};

static void on_sim_irq(void *user)
{
    ethosu_host_npu *n = user;
    n->irq_seen = true;   /* only ever set on the thread running the job */
}

/* Runs the QUEUED job; lock held on entry and exit (dropped meanwhile). */
static void run_job(ethosu_host_npu *n)
{
    uint64_t my_gen = n->gen;
    n->phase = PH_RUNNING;
    ethosu_host_bus_sync(n->sim, &n->map_gen);
    n->irq_seen = false;
    uint32_t cmd = n->start_cmd;
    UNLOCK(n);
    sim_npu_write(n->sim, EU_REG_CMD, cmd);
    LOCK(n);
    n->stats.jobs_run++;
    for (size_t i = 0; i < n->n_pending; i++)
        sim_npu_write(n->sim, n->pending[i].off, n->pending[i].val);
    n->n_pending = 0;
    n->phase = PH_IDLE;
    void (*fn)(void *) = n->irq;
    void *user = n->irq_user;
    bool deliver = n->irq_seen && fn && n->gen == my_gen;
    if (n->irq_seen && !deliver)
        n->stats.irqs_discarded++;
    if (deliver) {
        n->delivering = true;
        /* counted before the handler runs: it wakes the waiter, which may
         * read the statistics at once */
        n->stats.irqs_delivered++;
    }
    WAKE(n);
    if (deliver) {
        UNLOCK(n);
        fn(user);
        LOCK(n);
        n->delivering = false;
        WAKE(n);
    }
}

#if ETHOSU_HOST_THREADS
static void deadline_after(struct timespec *ts, uint32_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void *worker_main(void *arg)
{
    ethosu_host_npu *n = arg;
    LOCK(n);
    for (;;) {
        while (!n->quit && n->phase != PH_QUEUED)
            WAIT(n);
        if (n->quit)
            break;
        uint64_t my_gen = n->gen;
        if (n->delay_ms) {
            struct timespec until;
            deadline_after(&until, n->delay_ms);
            while (!n->quit && n->gen == my_gen &&
                   pthread_cond_timedwait(&n->cond, &n->lock, &until) != ETIMEDOUT) {
            }
        }
        while (!n->quit && n->hang && n->gen == my_gen)
            WAIT(n);
        if (n->quit || n->gen != my_gen || n->phase != PH_QUEUED)
            continue;   /* a reset dropped it */
        run_job(n);
    }
    UNLOCK(n);
    return NULL;
}
#endif

int ethosu_host_npu_create(eu_variant v, const sim_system *sys, ethosu_host_npu **out,
                           npuc_err *err)
{
    *out = NULL;
    ethosu_host_npu *n = calloc(1, sizeof *n);
    if (!n)
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory for a host NPU");
    int rc = sim_npu_create(v, sys, &n->sim, err);
    if (rc) {
        free(n);
        return rc;
    }
    n->magic = HOST_NPU_MAGIC;
    sim_npu_set_irq(n->sim, on_sim_irq, n);
#if ETHOSU_HOST_THREADS
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&n->lock, NULL);
    pthread_cond_init(&n->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&n->worker, NULL, worker_main, n)) {
        pthread_cond_destroy(&n->cond);
        pthread_mutex_destroy(&n->lock);
        sim_npu_free(n->sim);
        free(n);
        return npuc_errf(err, NPUC_E_RUNTIME, "cannot start the host NPU's worker thread");
    }
#endif
    *out = n;
    return NPUC_OK;
}

void ethosu_host_npu_free(ethosu_host_npu *n)
{
    if (!n)
        return;
#if ETHOSU_HOST_THREADS
    LOCK(n);
    n->quit = true;
    WAKE(n);
    UNLOCK(n);
    pthread_join(n->worker, NULL);
    pthread_cond_destroy(&n->cond);
    pthread_mutex_destroy(&n->lock);
#endif
    n->magic = 0;
    sim_npu_free(n->sim);
    free(n);
}

sim_npu *ethosu_host_npu_sim(ethosu_host_npu *n) { return n ? n->sim : NULL; }

void ethosu_host_npu_set_irq(ethosu_host_npu *n, void (*fn)(void *user), void *user)
{
    LOCK(n);
    n->irq = fn;
    n->irq_user = fn ? user : NULL;
    UNLOCK(n);
}

/* Called with the lock held: a soft reset. Drops a queued or held job,
 * waits for a running one and for an interrupt being delivered (unless
 * that is this very thread), then resets the simulator. */
static void do_reset(ethosu_host_npu *n, uint32_t v)
{
    n->stats.resets++;
    n->gen++;
    if (n->phase == PH_QUEUED) {
        n->phase = PH_IDLE;
        n->stats.jobs_dropped++;
    }
    WAKE(n);
#if ETHOSU_HOST_THREADS
    if (!pthread_equal(pthread_self(), n->worker))
        while (n->phase == PH_RUNNING || n->delivering)
            WAIT(n);
#endif
    n->n_pending = 0;
    sim_npu_write(n->sim, EU_REG_RESET, v);
}

static void take_snapshot(ethosu_host_npu *n)
{
    for (uint32_t i = 0; i < SNAP_WORDS; i++)
        n->snap[i] = sim_npu_read(n->sim, 4 * i);
    uint32_t st = n->snap[EU_REG_STATUS / 4];
    st &= ~(uint32_t)(EU_STATUS_CMD_END_REACHED | EU_STATUS_ERRORS | EU_STATUS_FAULTING_CHANNEL_MASK |
                      EU_STATUS_FAULTING_INTERFACE);
    n->snap[EU_REG_STATUS / 4] = st | EU_STATUS_STATE;
    n->snap[EU_REG_QREAD / 4] = 0;
}

uint32_t ethosu_host_npu_read(ethosu_host_npu *n, uint32_t off)
{
    if (!n || n->magic != HOST_NPU_MAGIC || off >= EU_REG_SIZE || (off & 3))
        return 0;
    LOCK(n);
    uint32_t v;
    if (n->phase != PH_IDLE)
        v = off < 4 * SNAP_WORDS ? n->snap[off / 4] : 0;
    else
        v = sim_npu_read(n->sim, off);
    UNLOCK(n);
    return v;
}

void ethosu_host_npu_write(ethosu_host_npu *n, uint32_t off, uint32_t v)
{
    if (!n || n->magic != HOST_NPU_MAGIC || off >= EU_REG_SIZE || (off & 3))
        return;
    LOCK(n);
    if (off == EU_REG_RESET) {
        do_reset(n, v);
    } else if (n->phase != PH_IDLE) {
        /* busy: the NPU ignores a second start; other writes land later */
        if (off == EU_REG_CMD)
            v &= ~(uint32_t)EU_CMD_START;
        if (n->n_pending < MAX_PENDING) {
            n->pending[n->n_pending].off = off;
            n->pending[n->n_pending].val = v;
            n->n_pending++;
        }
    } else if (off == EU_REG_CMD && (v & EU_CMD_START)) {
        sim_npu_write(n->sim, EU_REG_CMD, v & ~(uint32_t)EU_CMD_START);
        take_snapshot(n);
        n->start_cmd = v;
        n->phase = PH_QUEUED;
#if ETHOSU_HOST_THREADS
        WAKE(n);
#else
        if (!n->hang)
            run_job(n);
#endif
    } else {
        sim_npu_write(n->sim, off, v);
    }
    UNLOCK(n);
}

void ethosu_host_npu_set_hang(ethosu_host_npu *n, bool hang)
{
    LOCK(n);
    n->hang = hang;
    WAKE(n);
#if !ETHOSU_HOST_THREADS
    if (!hang && n->phase == PH_QUEUED)
        run_job(n);
#endif
    UNLOCK(n);
}

void ethosu_host_npu_set_delay(ethosu_host_npu *n, uint32_t delay_ms)
{
    LOCK(n);
    n->delay_ms = delay_ms;
    UNLOCK(n);
}

bool ethosu_host_npu_busy(ethosu_host_npu *n)
{
    LOCK(n);
    bool busy = n->phase != PH_IDLE;
    UNLOCK(n);
    return busy;
}

void ethosu_host_npu_stats(ethosu_host_npu *n, ethosu_host_stats *out)
{
    LOCK(n);
    *out = n->stats;
    UNLOCK(n);
}

void ethosu_host_npu_error(ethosu_host_npu *n, char *buf, size_t size)
{
    if (!size)
        return;
    LOCK(n);
    const char *msg = n->phase == PH_RUNNING ? "" : sim_npu_error(n->sim);
    size_t len = strlen(msg);
    if (len >= size)
        len = size - 1;
    memcpy(buf, msg, len);
    buf[len] = 0;
    UNLOCK(n);
}

/* ------------------------------------------------------------- driver glue */

static void driver_irq(void *user)
{
    ethosu_irq_handler(user);
}

int ethosu_host_driver_init(struct ethosu_driver *drv, ethosu_host_npu *npu, void *fast_memory,
                            size_t fast_size)
{
    if (!drv || !npu || npu->magic != HOST_NPU_MAGIC)
        return -1;
    /* connect first: once registered, another thread may reserve drv */
    LOCK(npu);
    void (*old_fn)(void *) = npu->irq;
    void *old_user = npu->irq_user;
    UNLOCK(npu);
    ethosu_host_npu_set_irq(npu, driver_irq, drv);
    int rc = ethosu_init(drv, npu, fast_memory, fast_size, 1, 1);
    if (rc)
        ethosu_host_npu_set_irq(npu, old_fn, old_user);
    return rc;
}

void ethosu_host_driver_deinit(struct ethosu_driver *drv)
{
    if (!drv)
        return;
    ethosu_host_npu *npu = (ethosu_host_npu *)(uintptr_t)drv->dev.reg;
    ethosu_deinit(drv);
    if (!npu || npu->magic != HOST_NPU_MAGIC)
        return;
    LOCK(npu);
    if (npu->irq == driver_irq && npu->irq_user == drv) {
        npu->irq = NULL;
        npu->irq_user = NULL;
    }
    UNLOCK(npu);
}

/* ------------------------------------------------------------ device layer */

uint32_t ethosu_dev_read(struct ethosu_device *dev, uint32_t offset)
{
    return ethosu_host_npu_read((ethosu_host_npu *)(uintptr_t)dev->reg, offset);
}

void ethosu_dev_write(struct ethosu_device *dev, uint32_t offset, uint32_t value)
{
    ethosu_host_npu_write((ethosu_host_npu *)(uintptr_t)dev->reg, offset, value);
}
