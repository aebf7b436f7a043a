/* kernels: helpers shared by the k_op*.c files (not a public header).
 *
 * Every family runner has the form
 *     int k_op_run_FAMILY(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
 * It checks the blob completely, returns K_OK when io is NULL (validation
 * only), else checks the tensors against the parameters and runs the
 * kernel. The blob is 4-byte aligned and at least 4 bytes (k_op_run). */
#ifndef NPUC_K_OP_INTERNAL_H
#define NPUC_K_OP_INTERNAL_H

#include "k_op.h"

#include <string.h>

/* Byte counts saturate here: anything above UINT32_MAX fails the tensor
 * size checks anyway. */
#define K_OP_SAT ((uint64_t)1 << 40)

static inline uint64_t k_op_mul(uint64_t a, uint64_t b)
{
    if (a > K_OP_SAT) a = K_OP_SAT + 1;
    if (b > K_OP_SAT) b = K_OP_SAT + 1;
    if (a != 0 && b > K_OP_SAT / a) return K_OP_SAT + 1;
    return a * b;
}

/* Loop extent: acc times d, an empty dim counted as 1. Kernels walk the
 * other dims of a shape even when one is 0 (or loop over empty parts), so
 * the extent, not the element count, bounds their work: it may exceed the
 * elements moved by at most K_OP_EMPTY_EXT iterations (k_op_work_ok). */
static inline uint64_t k_op_ext(uint64_t acc, int64_t d) { return k_op_mul(acc, d > 0 ? (uint64_t)d : 1u); }

#define K_OP_EMPTY_EXT ((uint64_t)1 << 20)

static inline bool k_op_work_ok(uint64_t count, uint64_t ext)
{
    return ext <= INT32_MAX && ext <= (count > K_OP_EMPTY_EXT ? count : K_OP_EMPTY_EXT);
}

static inline bool k_op_in_range(int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; }

/* A zero-point offset within +-lim. */
static inline bool k_op_offset_ok(int32_t v, int32_t lim) { return v >= -lim && v <= lim; }

/* outer rows of depth elements that make up n elements, and a walk of
 * bounded length (row-wise kernels: softmax, log-softmax, L2 norm). */
static inline bool k_op_rows_ok(int32_t outer, int32_t depth, int32_t n)
{
    return outer >= 0 && depth >= 0 && (int64_t)outer * depth == n &&
           k_op_work_ok((uint64_t)n, k_op_ext(k_op_ext(1, outer), depth));
}

/* A dimension-like value in [lo, K_OP_MAX_DIM]. */
static inline bool k_op_dim(int32_t v, int32_t lo) { return v >= lo && v <= K_OP_MAX_DIM; }

/* The blob struct of a family, copied (the blob may be only 4-byte aligned
 * and the struct is read as a whole): K_E_INVALID when the blob is shorter. */
#define K_OP_LOAD(dst, blob, size)                                     \
    do {                                                               \
        if ((size) < sizeof(dst)) return K_E_INVALID;                  \
        memcpy(&(dst), (blob), sizeof(dst));                           \
    } while (0)

/* count elements of elem bytes at byte offset off inside the blob, aligned
 * to 4; NULL when outside the blob or misaligned. count 0 gives a non-NULL
 * pointer to the blob start. */
const void *k_op_array(const uint8_t *blob, uint32_t size, uint32_t off, uint64_t count, uint32_t elem);

/* Element count of a shape: K_OP_SAT + 1 when the rank is outside
 * [0, max_rank], a dim outside [0, K_OP_MAX_DIM] or the extent too large
 * (k_op_work_ok). */
uint64_t k_op_dims_count(const k_dims *d, int32_t max_rank);

/* Tensors. k_op_in: input i must be present, non-NULL, hold `bytes` and be
 * aligned to `align`. k_op_in_opt: as k_op_in, but an index past n_in or a
 * NULL pointer gives *p = NULL and K_OK. k_op_out: output i likewise.
 * k_op_scratch: the scratch buffer (bytes may be 0, then *p may be NULL). */
int k_op_in(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p);
int k_op_in_opt(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p);
int k_op_out(const k_op_io *io, int32_t i, uint64_t bytes, uint32_t align, void **p);
int k_op_scratch(const k_op_io *io, uint64_t bytes, uint32_t align, void **p);

/* The family runners are declared in k_op.h (a per-model kernel table names
 * them). */

#endif
