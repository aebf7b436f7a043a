/* cc_act16: int16 pointwise ops on the NPU (stub: none yet). */
#include "cc_lower.h"

bool cc_is_lut16_op(const lower_ctx *c, const graph_op *op)
{
    (void)c;
    (void)op;
    return false;
}

int cc_lower_act16(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    (void)err;
    return cc_cpu(c, "%s has no int16 NPU form in this compiler", graph_op_name(op));
}
