/* ethosu_host: the host backend of the driver's device layer. The driver's
 * register reads and writes go to a virtual NPU (sim_npu); the NPU's
 * interrupt calls the driver's IRQ handler.
 *
 *   ethosu_host_npu *npu;
 *   ethosu_host_npu_create(EU_U55_128, NULL, &npu, &err);
 *   ethosu_host_driver_init(&drv, npu, NULL, 0);     -- ethosu_init + IRQ line
 *   ethosu_host_map(payload, payload_size, false, &err);   -- what the NPU may reach
 *   ethosu_host_map(arena, arena_size, true, &err);
 *   ethosu_invoke_v3(&drv, payload, payload_size, base, base_size, n, NULL);
 *
 * Memory: the NPU reaches only buffers the application maps. One global bus
 * table (shared by all NPUs, thread safe) gives each mapping a 32-bit bus
 * address; this backend's ethosu_address_remap translates CPU pointers
 * (base pointers and the command stream) into bus addresses, and every NPU
 * gets the current table as its memory windows before a run.
 *
 * Threads (ETHOSU_HOST_THREADS, default 1): a CMD start hands the run to
 * the NPU's worker thread, so ethosu_invoke_async returns at once and the
 * IRQ handler runs on the worker. While a job is in flight, register reads
 * return a snapshot taken at the start (STATUS shows running), writes other
 * than RESET take effect when it ends, and a RESET write waits for (or
 * drops) the job and discards its interrupt. This backend also provides
 * POSIX versions of the driver's mutex and semaphore hooks (semaphore
 * timeouts in milliseconds).
 * With ETHOSU_HOST_THREADS=0 (bare-metal builds) the run happens inside
 * the CMD write and the IRQ handler is called from there; the driver's
 * default mutex/semaphore hooks apply.
 *
 * Errors of functions with an npuc_err come back as npuc error codes. */
#ifndef ETHOSU_HOST_H
#define ETHOSU_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ethosu_driver.h"
#include "sim/sim.h"

#ifndef ETHOSU_HOST_THREADS
#define ETHOSU_HOST_THREADS 1
#endif

/* Bus addresses handed out by ethosu_host_map lie in [BASE, LIMIT). */
#define ETHOSU_HOST_BUS_BASE 0x01000000u
#define ETHOSU_HOST_BUS_LIMIT 0xFFFFF000u
/* Most mappings at a time (each becomes one window of every NPU). */
#define ETHOSU_HOST_MAX_MAPPINGS SIM_MAX_WINDOWS

typedef struct ethosu_host_npu ethosu_host_npu;

/* A virtual NPU of the given variant; sys NULL = ideal memory (sim.h;
 * the variant's default system is target_default_sim, src/target).
 * Starts its worker thread (threads build). */
int ethosu_host_npu_create(eu_variant v, const sim_system *sys, ethosu_host_npu **out,
                           npuc_err *err);
/* Stops the worker (a job in progress finishes or, if held, is dropped). */
void ethosu_host_npu_free(ethosu_host_npu *npu);

/* The simulator behind it (for its trace, error text, op records). Only
 * touch it while no job is in flight. */
sim_npu *ethosu_host_npu_sim(ethosu_host_npu *npu);

/* The interrupt line: fn(user) is called once per finished job whose
 * NPU raised its IRQ. NULL disconnects. */
void ethosu_host_npu_set_irq(ethosu_host_npu *npu, void (*fn)(void *user), void *user);

/* ethosu_init(drv, npu, fast_memory, fast_size, secure 1, privileged 1)
 * with the NPU's interrupt connected to ethosu_irq_handler(drv). Returns
 * ethosu_init's result (0 / -1). */
int ethosu_host_driver_init(struct ethosu_driver *drv, ethosu_host_npu *npu, void *fast_memory,
                            size_t fast_size);
/* ethosu_deinit(drv) and disconnects the interrupt. */
void ethosu_host_driver_deinit(struct ethosu_driver *drv);

/* Register access as the driver does it (thread safe; snapshot while busy). */
uint32_t ethosu_host_npu_read(ethosu_host_npu *npu, uint32_t offset);
void ethosu_host_npu_write(ethosu_host_npu *npu, uint32_t offset, uint32_t value);

/* Test hooks. hang: jobs started from now on are held (STATUS says
 * running) and never finish until a soft reset, or until hang is turned
 * off again, which lets a held job run. delay_ms: each job waits that long
 * before it runs (threads build only; a reset cuts it short). */
void ethosu_host_npu_set_hang(ethosu_host_npu *npu, bool hang);
void ethosu_host_npu_set_delay(ethosu_host_npu *npu, uint32_t delay_ms);

/* True while a job is queued, held or running. */
bool ethosu_host_npu_busy(ethosu_host_npu *npu);

typedef struct ethosu_host_stats {
    uint64_t jobs_run;        /* runs the simulator executed */
    uint64_t jobs_dropped;    /* held/queued jobs a reset dropped */
    uint64_t irqs_delivered;  /* interrupts passed to the IRQ callback */
    uint64_t irqs_discarded;  /* interrupts of jobs a reset overtook */
    uint64_t resets;          /* RESET writes */
} ethosu_host_stats;

void ethosu_host_npu_stats(ethosu_host_npu *npu, ethosu_host_stats *out);

/* Copies the simulator's message for the last run's error ("" if none). */
void ethosu_host_npu_error(ethosu_host_npu *npu, char *buf, size_t size);

/* Makes [ptr, ptr + size) reachable by every NPU, read-only unless
 * writable. Fails (NPUC_E_INVALID) on NULL/empty, overlap with a mapping,
 * a full table, or no room left on the 32-bit bus. The bus address keeps
 * the pointer's offset within a 4 KiB page (so alignment carries over). */
int ethosu_host_map(void *ptr, size_t size, bool writable, npuc_err *err);
/* Removes the mapping that starts at ptr; -1 if there is none. Do not
 * unmap memory a job in flight uses. */
int ethosu_host_unmap(void *ptr);
/* Bus address of a CPU pointer inside a mapping; NULL maps to 0;
 * anything else unmapped gives UINT64_MAX. */
uint64_t ethosu_host_bus_address(const void *ptr);

#endif /* ETHOSU_HOST_H */
