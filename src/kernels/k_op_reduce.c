/* Prepared ops of the reduce family (k_op_reduce.h). */
#include "k_op_internal.h"

int k_op_run_reduce(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    (void)blob;
    (void)size;
    (void)io;
    (void)kind;
    return K_E_INVALID;
}
