/* lower_gather: TILE, REVERSE_V2 and MIRROR_PAD (int8, int16, constant
 * multiples / axes / paddings) on the NPU as strided copies.
 *
 * All three are separable gathers: output element (o_0, .., o_k) is input
 * element (f_0(o_0), .., f_k(o_k)) for one index map per axis, and the
 * bytes move unchanged (a raw copy, whatever the quantization). The maps:
 *   TILE        f(o) = o mod n
 *   REVERSE_V2  f(o) = n - 1 - o on the reversed axes, o elsewhere
 *   MIRROR_PAD  the reference kernel's own k_mirror_index (REFLECT or
 *               SYMMETRIC, with its clamping of long paddings)
 * Each map splits into runs where it steps by +1 or -1 (a run of one
 * position steps by +1); every combination of one run per axis is a box of
 * the output that is one strided copy (cc_strided_copy_to: signed input
 * strides, looped where negative), the input strides being the run's step
 * times the input's. Exact by construction: the copies write every output
 * element once, from the element the map names. At most CC_GATHER_MAX_BOXES
 * boxes; more stay on the CPU with the count. */
#include "lower.h"
#include "interp/interp.h"
#include "kernels/k_op_gather.h"

#include <stdlib.h>
#include <string.h>

#define CC_GATHER_MAX_BOXES 64

typedef struct run {
    int64_t start, len, step;
} run;

static int64_t const_int(const graph_tensor *t, int64_t i)
{
    return t->dtype == GRAPH_I64 ? ((const int64_t *)t->data)[i] : ((const int32_t *)t->data)[i];
}

/* The runs of map m (n positions) into r (at most CC_GATHER_MAX_BOXES);
 * their count, or -1 when there are more. */
static int32_t runs_of(const int64_t *m, int64_t n, run *r)
{
    int32_t k = 0;
    for (int64_t i = 0; i < n;) {
        if (k == CC_GATHER_MAX_BOXES) return -1;
        int64_t step = i + 1 < n && (m[i + 1] - m[i] == 1 || m[i + 1] - m[i] == -1) ? m[i + 1] - m[i] : 1;
        int64_t j = i + 1;
        while (j < n && m[j] - m[j - 1] == step) j++;
        r[k++] = (run){i, j - i, step};
        i = j;
    }
    return k;
}

/* Copies input tensor op->in[0] to op->out[0] through the maps (maps[d]
 * has out->shape[d] entries, each an index into in->shape[d]). */
static int gather_boxes(lower_ctx *c, const graph_op *op, int64_t *const *maps, npuc_err *err)
{
    const graph_tensor *in = cc_tin(c, op, 0), *out = cc_tout(c, op, 0);
    int32_t rank = out->rank;
    if (rank > CC_COPY_MAX_AXES) return cc_cpu(c, "rank %d (at most %d)", rank, CC_COPY_MAX_AXES);
    if (graph_tensor_elems(out) == 0) return cc_cpu(c, "empty output");
    run *runs = malloc(sizeof *runs * CC_GATHER_MAX_BOXES * (size_t)(rank ? rank : 1));
    if (!runs) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int32_t nr[CC_COPY_MAX_AXES];
    int64_t boxes = 1, ist[CC_COPY_MAX_AXES], ost[CC_COPY_MAX_AXES], si = 1, so = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        ist[d] = si;
        ost[d] = so;
        si *= in->shape[d];
        so *= out->shape[d];
    }
    int rc = 0;
    for (int32_t d = 0; d < rank && !rc; d++) {
        nr[d] = runs_of(maps[d], out->shape[d], runs + (size_t)d * CC_GATHER_MAX_BOXES);
        if (nr[d] < 0 || (boxes *= nr[d]) > CC_GATHER_MAX_BOXES)
            rc = cc_cpu(c, "needs more than %d strided copies", CC_GATHER_MAX_BOXES);
    }
    int32_t at[CC_COPY_MAX_AXES] = {0};
    for (int64_t b = 0; b < boxes && !rc; b++) {
        int64_t n[CC_COPY_MAX_AXES], is[CC_COPY_MAX_AXES], base = 0, obase = 0;
        for (int32_t d = 0; d < rank; d++) {
            const run *r = &runs[(size_t)d * CC_GATHER_MAX_BOXES + at[d]];
            n[d] = r->len;
            is[d] = r->step * ist[d];
            base += maps[d][r->start] * ist[d];
            obase += r->start * ost[d];
        }
        rc = cc_strided_copy_to(c, op->in[0], op->out[0], rank, n, is, base, ost, obase, err);
        for (int32_t d = rank - 1; d >= 0; d--) {
            if (++at[d] < nr[d]) break;
            at[d] = 0;
        }
    }
    free(runs);
    return rc;
}

/* The checks every form shares: int8 / int16 in and out of one type, the
 * reference accepts the op, parameter input 1 constant. */
static int common_checks(lower_ctx *c, const graph_op *op)
{
    const graph_tensor *in = cc_tin(c, op, 0), *pm = cc_tin(c, op, 1), *out = cc_tout(c, op, 0);
    if (!in || !pm || !out) return cc_cpu(c, "missing input or output");
    if (!cc_npu_dtype(in->dtype) || out->dtype != in->dtype)
        return cc_cpu(c, "%s -> %s tensors (the NPU form copies int8 or int16)", graph_dtype_name(in->dtype),
                      graph_dtype_name(out->dtype));
    char why[160];
    if (!interp_op_supported(c->g, op, why, sizeof why)) return cc_cpu(c, "%s", why);
    if (!pm->data || (pm->dtype != GRAPH_I32 && pm->dtype != GRAPH_I64))
        return cc_cpu(c, "input 1 is not a constant int32/int64 tensor");
    if (in->rank != out->rank) return cc_cpu(c, "input and output ranks differ");
    return 0;
}

/* Allocates maps[d] of out->shape[d] entries each; fill(ctx, d, o) gives
 * f_d(o). */
static int with_maps(lower_ctx *c, const graph_op *op, int64_t (*fill)(const lower_ctx *, const graph_op *, int32_t, int64_t),
                     npuc_err *err)
{
    const graph_tensor *out = cc_tout(c, op, 0);
    int64_t *maps[CC_COPY_MAX_AXES] = {0};
    if (out->rank > CC_COPY_MAX_AXES) return cc_cpu(c, "rank %d (at most %d)", out->rank, CC_COPY_MAX_AXES);
    int rc = 0;
    for (int32_t d = 0; d < out->rank && !rc; d++) {
        maps[d] = malloc(sizeof(int64_t) * (size_t)(out->shape[d] ? out->shape[d] : 1));
        if (!maps[d]) {
            rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            break;
        }
        for (int64_t o = 0; o < out->shape[d]; o++) {
            maps[d][o] = fill(c, op, d, o);
            if (maps[d][o] < 0 || maps[d][o] >= cc_tin(c, op, 0)->shape[d]) {
                rc = cc_cpu(c, "internal: index map out of the input");
                break;
            }
        }
    }
    if (!rc) rc = gather_boxes(c, op, maps, err);
    for (int32_t d = 0; d < out->rank; d++) free(maps[d]);
    return rc;
}

/* ----------------------------------------------------------------- TILE */

static int64_t tile_map(const lower_ctx *c, const graph_op *op, int32_t d, int64_t o)
{
    return o % cc_tin(c, op, 0)->shape[d];
}

static int lower_tile(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    int rc = common_checks(c, op);
    if (rc) return rc;
    return with_maps(c, op, tile_map, err);
}

/* ----------------------------------------------------------- REVERSE_V2 */

static int64_t reverse_map(const lower_ctx *c, const graph_op *op, int32_t d, int64_t o)
{
    const graph_tensor *in = cc_tin(c, op, 0), *ax = cc_tin(c, op, 1);
    for (int64_t i = 0; i < ax->shape[0]; i++) {
        int64_t a = const_int(ax, i);
        if (a < 0) a += in->rank;
        if (a == d) return in->shape[d] - 1 - o;
    }
    return o;
}

static int lower_reverse(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    int rc = common_checks(c, op);
    if (rc) return rc;
    return with_maps(c, op, reverse_map, err);
}

/* ----------------------------------------------------------- MIRROR_PAD */

static int64_t mirror_map(const lower_ctx *c, const graph_op *op, int32_t d, int64_t o)
{
    const graph_tensor *in = cc_tin(c, op, 0), *pd = cc_tin(c, op, 1);
    return k_mirror_index(o, const_int(pd, 2 * (int64_t)d), in->shape[d], op->opt.mirror_mode == 0 ? 1 : 0);
}

static int lower_mirror_pad(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    int rc = common_checks(c, op);
    if (rc) return rc;
    return with_maps(c, op, mirror_map, err);
}

static const lower_impl gather_ops[] = {
    {TFL_OP_TILE, lower_tile},
    {TFL_OP_REVERSE_V2, lower_reverse},
    {TFL_OP_MIRROR_PAD, lower_mirror_pad},
};

LOWER_OPS_TABLE(lower_ops_gather, gather_ops)
