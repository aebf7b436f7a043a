/* cc_softmax: SOFTMAX on the NPU (ethos-u.md 5.10). */
#include "cc_lower.h"

int cc_lower_softmax(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    (void)err;
    return cc_cpu(c, "%s is not lowered to the NPU yet", graph_op_name(op));
}
