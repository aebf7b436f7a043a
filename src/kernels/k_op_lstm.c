/* Prepared ops of the lstm family (k_op_lstm.h). */
#include "k_op_internal.h"

int k_op_run_lstm(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    (void)blob;
    (void)size;
    (void)io;
    (void)kind;
    return K_E_INVALID;
}
