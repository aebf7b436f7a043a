/* cc_resize: the NPU form of RESIZE (stub: the op stays on the CPU). */
#include "cc_lower.h"

int cc_lower_resize(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    (void)err;
    return cc_cpu(c, "%s has no NPU form in this compiler", graph_op_name(op));
}
