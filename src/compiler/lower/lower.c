/* lower: legalize + partition (cc_lower). Every graph op becomes NPU
 * operations (eu_op, docs/ethos-u.md 5.10 forms), a no-copy view, or a CPU op
 * with the reason; consecutive NPU ops form one HW epoch.
 *
 * Each op goes to the lowering its opcode has in the op tables of the
 * family files (lower.h); an opcode in no table stays on the CPU. How each
 * form stays bit-exact is told in its family file: register values come
 * from the reference kernels' own quantization arithmetic (lower_toolkit.c),
 * tables from the reference interpreter run at compile time. */
#include "lower.h"
#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- dispatch */

static const lower_impl *find_lower(int32_t opcode)
{
    const lower_impl *(*families[])(int32_t *) = {
        lower_ops_conv,  lower_ops_pool, lower_ops_elementwise, lower_ops_quantize, lower_ops_lut,
        lower_ops_softmax, lower_ops_shape, lower_ops_pad,      lower_ops_concat,   lower_ops_resize,
        lower_ops_gather, lower_ops_prelu, lower_ops_lstm};
    for (size_t fi = 0; fi < sizeof families / sizeof families[0]; fi++) {
        int32_t n = 0;
        const lower_impl *t = families[fi](&n);
        for (int32_t i = 0; i < n; i++)
            if (t[i].opcode == opcode) return &t[i];
    }
    return NULL;
}

/* Lowers one op into the open epoch: 0 = on the NPU, 1 = CPU (reason set),
 * other = error. */
static int lower_op(lower_ctx *c, const graph_op *op, npuc_err *err)
{
    for (int32_t i = 0; i < op->n_out; i++)
        if (op->out[i] >= 0 && c->g->tensors[op->out[i]].is_variable)
            return cc_cpu(c, "writes a state tensor");
    if (graph_op_uses_model(op->opcode))
        return cc_cpu(c, "control flow and resource variables run on the CPU (with the subgraphs the op runs)");
    const lower_impl *impl = find_lower(op->opcode);
    if (!impl) return cc_cpu(c, "%s has no NPU form in this compiler", graph_op_name(op));
    return impl->lower(c, op, err);
}

/* ------------------------------------------------------ buffers, epochs */

static bool is_view(int32_t opcode)
{
    return opcode == TFL_OP_RESHAPE || opcode == TFL_OP_SQUEEZE || opcode == TFL_OP_EXPAND_DIMS;
}

static int add_buf(cc_model *m, int32_t tensor, npuc_err *err)
{
    cc_buf *b = cc_new_buf(m, m->g->tensors[tensor].nbytes, tensor, err);
    if (!b) return err->code;
    m->buf_of[tensor] = (int32_t)(b - m->bufs);
    return NPUC_OK;
}

/* Buffers: every non-constant tensor gets one; a view's output shares its
 * input's buffer (the bytes are the same in NHWC). */
static int make_buffers(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    for (int32_t t = 0; t < g->n_tensors; t++) m->buf_of[t] = -1;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        const graph_tensor *x = &g->tensors[t];
        if (x->data || x->producer >= 0) continue;
        int rc = add_buf(m, t, err);
        if (rc) return rc;
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        bool alias = is_view(op->opcode) && op->n_in >= 1 && op->n_out == 1 && op->in[0] >= 0 &&
                     op->out[0] >= 0 && m->buf_of[op->in[0]] >= 0 &&
                     g->tensors[op->in[0]].dtype == g->tensors[op->out[0]].dtype &&
                     g->tensors[op->in[0]].nbytes == g->tensors[op->out[0]].nbytes;
        for (int32_t k = 0; k < op->n_out; k++) {
            int32_t t = op->out[k];
            if (t < 0 || m->buf_of[t] >= 0) continue;
            if (alias) {
                m->buf_of[t] = m->buf_of[op->in[0]];
            } else {
                int rc = add_buf(m, t, err);
                if (rc) return rc;
            }
        }
    }
    return NPUC_OK;
}

static cc_epoch *new_epoch(cc_model *m, cc_epoch_kind k, int32_t first, npuc_err *err)
{
    if (!cc_grow((void **)&m->epochs, &m->cap_epochs, m->n_epochs, sizeof *m->epochs, err)) return NULL;
    cc_epoch *e = &m->epochs[m->n_epochs++];
    memset(e, 0, sizeof *e);
    e->kind = k;
    e->first_op = first;
    return e;
}

/* A SW epoch holding op j alone. */
static int sw_epoch(cc_model *m, int32_t j, npuc_err *err)
{
    cc_epoch *se = new_epoch(m, CC_EPOCH_SW, j, err);
    if (!se) return err->code;
    se->n_ops = 1;
    m->ops[j].npu = false;
    m->ops[j].epoch = m->n_epochs - 1;
    return NPUC_OK;
}

/* Closes the open HW epoch. One without ops is dropped; one holding only
 * views (no NPU op to run) becomes one SW epoch per view: the views stay
 * with the CPU ops around them, and run as nothing (their output aliases
 * their input's buffer). */
static int close_epoch(lower_ctx *c, npuc_err *err)
{
    cc_model *m = c->m;
    cc_epoch *e = c->e;
    c->e = NULL;
    if (!e) return NPUC_OK;
    int32_t first = e->first_op, n = e->n_ops;
    bool only_views = e->n_eu == 0;
    for (int32_t j = first; j < first + n && only_views; j++) only_views = is_view(m->g->ops[j].opcode);
    if (n > 0 && !only_views) return NPUC_OK;
    free(e->ops);
    free(e->flash);
    free(e->alias);
    free(e->luts);
    m->n_epochs--;
    for (int32_t j = first; j < first + n; j++) {
        int rc = sw_epoch(m, j, err);
        if (rc) return rc;
        cc_op_info *info = &m->ops[j];
        info->first_eu = info->n_eu = 0;
        snprintf(info->why, sizeof info->why,
                 "%s with no NPU op to join: a CPU op that moves no bytes (its output aliases its "
                 "input's buffer)", graph_op_name(&m->g->ops[j]));
    }
    return NPUC_OK;
}

/* Closes the open HW epoch and gives op i a SW epoch of its own. */
static int cpu_op(lower_ctx *c, int32_t i, npuc_err *err)
{
    int rc = close_epoch(c, err);
    return rc ? rc : sw_epoch(c->m, i, err);
}

/* ---------------------------------------------------------------- driver */

/* float16, int4, string, ...: a tensor type neither the NPU nor (unless
 * the op opts in) the reference kernels take. */
static bool exotic_types(const graph *g, const graph_op *op)
{
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (t >= 0 && !interp_dtype_runs(g->tensors[t].dtype)) return true;
    }
    return false;
}

/* ------------------------------------------------------ staged inputs */

/* With the arena in DRAM beside a fast pool (an Ethos-U65's
 * Dedicated_Sram), a feature map that must stay in the arena (a graph
 * input, state, the output of a CPU op: the runtime and the CPU see it) is
 * read from DRAM by the NPU ops of the first op that takes it. A kernel op
 * re-reads its IFM block with the halo per OFM block, and a shallow NHWC
 * map gives short bursts: DRAM moves up to its whole burst for each few
 * bytes (docs/ethos-u.md 1.4). A raw copy of the whole buffer, viewed as
 * deep as it goes (one long burst per block), into a temp the fast pool
 * takes, and the op reading the copy instead, costs one pass over the
 * bytes. */

/* Whether tensor t's buffer certainly stays in the arena (lower.h): through the
 * views sharing it, t is a graph input or state, or the output of an op
 * that is not an NPU op of the open epoch. */
bool cc_arena_bound(const lower_ctx *c, int32_t t)
{
    const cc_model *m = c->m;
    const graph *g = c->g;
    int32_t ei = (int32_t)(c->e - m->epochs);
    for (int32_t hop = 0; hop < g->n_ops + 1; hop++) {
        const graph_tensor *x = &g->tensors[t];
        if (x->data) return false;
        if (x->is_variable || x->producer < 0) return true;
        int32_t p = x->producer;
        if (p >= c->op_index) return false;
        if (!m->ops[p].npu || m->ops[p].epoch != ei) return true;
        /* an op that moves no bytes (a view, a PAD folded into the next
         * conv's padding): its output shares its input's buffer */
        const graph_op *v = &g->ops[p];
        if (m->ops[p].n_eu || v->n_in < 1 || v->in[0] < 0 || m->buf_of[v->in[0]] != m->buf_of[t]) return false;
        t = v->in[0];
    }
    return false;
}

/* n elements as h x w: h the divisor of n nearest its square root from
 * below; false when a side exceeds the NPU's extent. */
static bool plane_of(uint64_t n, uint32_t *h, uint32_t *w)
{
    uint64_t a = 1;
    for (uint64_t d = 1; d * d <= n; d++)
        if (n % d == 0) a = d;
    if (n / a > CC_DIM_MAX) return false;
    *h = (uint32_t)a;
    *w = (uint32_t)(n / a);
    return true;
}

/* The copy of n bytes from buffer `from` (region 1) into buffer `to`
 * (region 2) as one raw byte copy, viewed as h x w x c (c a divisor of n,
 * at least 16, the plane as square as n / c allows), the view and form
 * with the fewest cycles (cc_copy_block); *cost its cycles. False when n
 * has no such view. */
static bool stage_copy(lower_ctx *c, int32_t from, int32_t to, uint64_t n, eu_op *o, uint64_t *cost)
{
    bool found = false;
    for (uint64_t d = n < CC_DIM_MAX ? n : CC_DIM_MAX; d >= 16; d--) {
        uint32_t h, w;
        if (n % d || !plane_of(n / d, &h, &w)) continue;
        eu_op x;
        cc_eu_init(c, &x);
        cc_fm_dense(&x.ifm, from, 0, h, w, (uint32_t)d, 8, 0);
        cc_fm_dense(&x.ofm, to, 0, h, w, (uint32_t)d, 8, 0);
        npuc_err e2 = {0};
        if (cc_copy_block(c, &x, 8, &e2) != NPUC_OK) continue;
        uint64_t cyc = cc_op_cycles_at(c->m, &x, 1, 0, 2, 0);
        if (!found || cyc < *cost) {
            *o = x;
            *cost = cyc;
            found = true;
        }
        if (d < n / 64) break;   /* shallower views only read in shorter bursts */
    }
    return found;
}

/* Cycles an input's copy must save beyond a quarter of its own. */
#define STAGE_MARGIN 512u

/* After op i was lowered to the epoch's NPU ops from `before` on: when
 * its IFM's buffer stays in the arena (DRAM) and reading it from the fast
 * pool saves its ops more cycles than the copy costs (each op costed
 * alone, the copy from the arena to the fast pool, with a margin), a copy
 * into a temp goes in front of them and they read that. */
static int stage_input(lower_ctx *c, int32_t i, int32_t before, npuc_err *err)
{
    cc_model *m = c->m;
    cc_epoch *e = c->e;
    const graph_op *op = &c->g->ops[i];
    uint64_t cap = cc_fast_bytes(&m->opt);
    if (m->opt.optimise != CC_OPT_PERFORMANCE || m->opt.no_stage || m->opt.cascade == CC_CASCADE_ALL || !cap || e->n_eu <= before || op->n_in < 1 || op->in[0] < 0)
        return NPUC_OK;
    int32_t b = m->buf_of[op->in[0]];
    if (b < 0 || !cc_arena_bound(c, op->in[0])) return NPUC_OK;
    uint64_t n = m->bufs[b].size;
    if (!n || n > cap / 2) return NPUC_OK;
    int64_t gain = 0;
    bool reread = false, pool = false;
    for (int32_t j = before; j < e->n_eu; j++) {
        const eu_op *o = &e->ops[j];
        bool a = o->ifm.buf == b, a2 = (o->ifm2_tensor && o->ifm2.buf == b);
        if (!a && !a2) continue;
        if (o->kind == SIM_K_POOL) {
            pool = true;
        } else if (o->kind != SIM_K_CONV && o->kind != SIM_K_DEPTHWISE) {
            return NPUC_OK;
        } else if (o->blk.w < o->ofm.w || o->blk.h < o->ofm.h) {
            /* an OFM plane of one block reads its IFM once (a
             * FULLY_CONNECTED): little to win back */
            reread = true;
        }
        uint8_t r2 = o->ifm2_tensor && o->ifm2.buf >= 0 ? 2 : 0, w = o->wbuf >= 0 ? 2 : 0;
        uint64_t was = cc_op_cycles_at(m, o, a ? 1 : 2, a2 ? 1 : r2, 2, w);
        uint64_t now = cc_op_cycles_at(m, o, 2, r2, 2, w);
        gain += (int64_t)was - (int64_t)now;
    }
    if ((!reread && !pool) || gain <= (int64_t)STAGE_MARGIN) return NPUC_OK;
    eu_op cp;
    uint64_t cost = 0;
    if (!stage_copy(c, b, b, n, &cp, &cost)) return NPUC_OK;
    if (gain <= (int64_t)(pool ? 4 * cost : cost + cost / 4) + (int64_t)STAGE_MARGIN) return NPUC_OK;
    int32_t t = cc_temp_buf(c, n, err);
    if (t < 0) return err->code;
    if (!cc_grow((void **)&e->ops, &e->cap_eu, e->n_eu, sizeof *e->ops, err)) return err->code;
    memmove(&e->ops[before + 1], &e->ops[before], sizeof *e->ops * (size_t)(e->n_eu - before));
    e->n_eu++;
    cp.ofm.buf = t;
    e->ops[before] = cp;
    for (int32_t j = before + 1; j < e->n_eu; j++) {
        eu_op *o = &e->ops[j];
        if (o->ifm.buf == b) o->ifm.buf = t;
        if (o->ifm2_tensor && o->ifm2.buf == b) o->ifm2.buf = t;
    }
    /* what the lowering keeps by NPU op index moves with the ops: the
     * shared constants' index is built again, copies live over ops */
    cc_share_ix_free(c->share);
    c->share = NULL;
    int32_t ei = (int32_t)(e - m->epochs);
    for (int32_t k = 0; k < m->n_bufs; k++) {
        cc_buf *x = &m->bufs[k];
        if (x->epoch != ei) continue;
        if (x->eu_first >= before) x->eu_first++;
        if (x->eu_last >= before) x->eu_last++;
    }
    return NPUC_OK;
}

/* Op i into the open HW epoch (opened here if none is): a view joins it,
 * an op the NPU takes adds its eu_ops, any other op ends it. */
static int lower_in_epoch(lower_ctx *c, int32_t i, npuc_err *err)
{
    cc_model *m = c->m;
    const graph_op *op = &m->g->ops[i];
    cc_op_info *info = &m->ops[i];
    bool view = is_view(op->opcode) && op->n_out == 1 && op->out[0] >= 0 && op->in[0] >= 0 &&
                m->buf_of[op->out[0]] == m->buf_of[op->in[0]] && m->buf_of[op->in[0]] >= 0;
    if (!c->e && !(c->e = new_epoch(m, CC_EPOCH_HW, i, err))) return err->code;
    int32_t before = c->e->n_eu;
    /* an op an earlier op's fusion took in (cc_fuse_narrow) lowers to nothing */
    if (!view && info->fused_into < 0) {
        int rc = lower_op(c, op, err);
        if (rc == 1) {
            /* CPU op: drop what it appended, close the HW epoch, add a SW epoch */
            c->e->n_eu = before;
            return cpu_op(c, i, err);
        }
        if (!rc) rc = stage_input(c, i, before, err);
        if (rc) return npuc_err_prefix(err, "op %d (%s)", i, graph_op_name(op)), rc;
    }
    /* a view moves no bytes: part of the HW epoch around it (one opened by
     * a view joins the NPU ops after it; close_epoch hands views with no
     * NPU op in their epoch back to the CPU) */
    info->npu = true;
    info->epoch = (int32_t)(c->e - m->epochs);
    info->first_eu = before;
    if (!view) info->n_eu = c->e->n_eu - before;
    c->e->n_ops = i - c->e->first_op + 1;
    return NPUC_OK;
}

int cc_lower(cc_model *m, npuc_err *err)
{
    const graph *g = m->g;
    int rc = make_buffers(m, err);
    if (rc) return rc;
    lower_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.g = g;
    cc_range *range = malloc(((size_t)g->n_tensors + 1) * sizeof *range);
    if (!range) return npuc_errf(err, NPUC_E_NOMEM, "out of memory (value ranges)");
    cc_range_analyse_lazy(g, range);
    c.range = range;
    /* each tensor's readers, counted once (NULL: counted where asked) */
    int32_t *readers = calloc((size_t)g->n_tensors + 1, sizeof *readers);
    for (int32_t i = 0; readers && i < g->n_ops; i++)
        for (int32_t k = 0; k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] >= 0 && g->ops[i].in[k] < g->n_tensors) readers[g->ops[i].in[k]]++;
    c.readers = readers;
    /* the constant input bytes of each op and the ops after it (counted
     * per reader: an unrolled LSTM's ops add copies of one tensor that
     * share_consts drops only after) */
    uint64_t *rest = malloc(((size_t)g->n_ops + 1) * sizeof *rest);
    if (rest) {
        rest[g->n_ops] = 0;
        for (int32_t i = g->n_ops; i-- > 0;) {
            uint64_t b = 0;
            for (int32_t k = 0; k < g->ops[i].n_in; k++) {
                int32_t t = g->ops[i].in[k];
                if (t >= 0 && t < g->n_tensors && g->tensors[t].data) b += g->tensors[t].nbytes;
            }
            rest[i] = rest[i + 1] + b;
        }
    }
    c.const_rest = rest;
    /* the search's, else one of its own (NULL: every reference run anew) */
    c.refs = m->refs ? m->refs : cc_ref_memo_new();
    for (int32_t i = 0; i < g->n_ops && !rc; i++) {
        const graph_op *op = &g->ops[i];
        cc_op_info *info = &m->ops[i];
        c.op_index = i;
        c.why = info->why;
        info->macs = graph_op_macs(g, op);
        if (!exotic_types(g, op)) {
            rc = lower_in_epoch(&c, i, err);
            continue;
        }
        /* the reason names the tensor */
        if (interp_op_supported(g, op, info->why, sizeof info->why))
            snprintf(info->why, sizeof info->why, "%s",
                     graph_op_uses_model(op->opcode) ? "control flow and resource variables run on the CPU"
                                                     : "a tensor type the NPU does not take");
        rc = cpu_op(&c, i, err);
    }
    /* which CPU ops may write over their input (asked of the kernel once
     * here, not at each of the search's allocations; only where the output
     * could fit in the input's bytes: a prepare can cost, an FFT's tables) */
    for (int32_t i = 0; i < g->n_ops && !rc; i++) {
        const graph_op *op = &g->ops[i];
        cc_op_info *info = &m->ops[i];
        const graph_tensor *ti = op->n_in >= 1 && op->in[0] >= 0 ? &g->tensors[op->in[0]] : NULL;
        const graph_tensor *to = op->n_out == 1 && op->out[0] >= 0 ? &g->tensors[op->out[0]] : NULL;
        info->cpu_in_place = !info->npu && info->fused_into < 0 && info->folded_into < 0 && ti && to && !ti->data &&
                             to->nbytes <= ti->nbytes && interp_op_in_place(g, op);
    }
    free(range);
    cc_share_ix_free(c.share);
    cc_blk_memo_free(c.blocks);
    rc = rc ? rc : close_epoch(&c, err);
    free(readers);
    free(rest);
    if (c.refs != m->refs) cc_ref_memo_free(c.refs);
    return rc;
}
