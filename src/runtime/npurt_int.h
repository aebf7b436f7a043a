/* Internal to runtime/. */
#ifndef NPURT_INT_H
#define NPURT_INT_H

#include "npurt/npurt.h"


/* Error texts (npurt_error.what). Build with -DNPURT_ERROR_TEXT=0 to drop
 * them from flash: codes, epoch, record and offset still say what failed. */
#ifndef NPURT_ERROR_TEXT
#define NPURT_ERROR_TEXT 1
#endif
#if NPURT_ERROR_TEXT
#define NPURT_TEXT(s) (s)
#else
#define NPURT_TEXT(s) ((const char *)0)
#endif

int npurt_fail(npurt_error *err, int code, int32_t epoch, int32_t index, uint32_t offset,
               const char *what);
uint32_t npurt_dtype_size(uint8_t dtype);
/* npurt_model_load without the CRC-32 pass, for containers whose bytes a
 * stronger digest already covers (loadable models: SHA-256). Every other
 * check still runs. */
int npurt_model_load_ex(npurt_model *m, const void *blob, size_t size, bool check_crc, npurt_error *err);

/* Scheduler entry points used by npurt_run: they act only when the
 * instance is attached to a scheduler of the given mode (SERIAL: around a
 * whole run; EPOCH: around each HW epoch). */
void npurt_sched_acquire(npurt_instance *inst, npurt_sched_mode at);
void npurt_sched_release(npurt_instance *inst, npurt_sched_mode at);

#endif
