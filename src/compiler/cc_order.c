/* cc_order: the op order pass, between constant folding and lowering.
 *
 * TFLite graphs come in the order their converter wrote them, which is not
 * always one that keeps few activations alive: an unrolled LSTM from
 * TensorFlow computes most time steps' input FULLY_CONNECTED outputs
 * first, so they are all alive while the recurrence runs. Vela orders ops
 * from the outputs back, each computed just before it is needed; this pass
 * weighs a few such orders against the graph's own and keeps the one whose
 * peak of live activation bytes is least (ties: the graph's own, so most
 * models compile exactly as before):
 *
 *   - depth-first from the graph's last ops back to its inputs, each op
 *     emitted once everything it reads is (so it runs just before its first
 *     consumer), visiting an op's inputs in their order, in reverse order,
 *     or the deepest first (the longest chain of ops behind it: a
 *     recurrence before the one-op branch that joins it, as Sethi and
 *     Ullman order expression trees);
 *   - a greedy list schedule: of the ops whose inputs exist, the one that
 *     adds the fewest bytes (its outputs less the inputs it reads last).
 *
 * Ops with side effects or state never move and nothing moves across
 * them: control flow and resource variables (IF, WHILE, CALL_ONCE,
 * VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE: TFLite Micro numbers
 * variables in op order), CUSTOM ops, ops reading or writing a state
 * tensor (an LSTM's or SVDF's) and ops writing nothing. They cut the op
 * list into segments; each segment is ordered on its own.
 *
 * The second half moves views: a RESHAPE / SQUEEZE / EXPAND_DIMS whose
 * output aliases its input joins an HW epoch only next to its NPU ops
 * (lower.c), so one between two CPU ops runs as a CPU op of its own. Once
 * lowering has placed the ops, such a view whose producer runs on the NPU
 * moves right after that producer (cc.c lowers again and keeps the new
 * order only when no more ops stay on the CPU). A view moves no bytes, so
 * the peak does not change. */
#include "cc.h"

#include <stdlib.h>
#include <string.h>

static bool is_view(int32_t opcode)
{
    return opcode == TFL_OP_RESHAPE || opcode == TFL_OP_SQUEEZE || opcode == TFL_OP_EXPAND_DIMS;
}

/* An op that stays where it is, with nothing moved across it. */
static bool barrier(const graph *g, const graph_op *op)
{
    if (graph_op_uses_model(op->opcode) || op->opcode == TFL_OP_CUSTOM || op->n_out < 1) return true;
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (t >= 0 && g->tensors[t].is_variable) return true;
    }
    return false;
}

/* An activation the memory plan gives bytes of its own (constants and
 * state tensors are the same in every order). */
static bool activation(const graph *g, int32_t t)
{
    return t >= 0 && !g->tensors[t].data && !g->tensors[t].is_variable;
}

/* root[t]: the tensor whose bytes t takes: a view's output shares its
 * input's when their types and sizes agree (lower.c make_buffers). */
static void buffer_roots(const graph *g, int32_t *root)
{
    for (int32_t t = 0; t < g->n_tensors; t++) root[t] = t;
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        if (!is_view(op->opcode) || op->n_in < 1 || op->n_out != 1) continue;
        int32_t a = op->in[0], b = op->out[0];
        if (activation(g, a) && b >= 0 && g->tensors[a].dtype == g->tensors[b].dtype &&
            g->tensors[a].nbytes == g->tensors[b].nbytes)
            root[b] = root[a];
    }
}

static bool is_output(const graph *g, int32_t t)
{
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t) return true;
    return false;
}

static uint64_t peak_with(const graph *g, const int32_t *order, const int32_t *root)
{
    int32_t n = g->n_ops, nt = g->n_tensors;
    int32_t *first = malloc(sizeof *first * (size_t)(nt + 1)), *last = malloc(sizeof *last * (size_t)(nt + 1));
    int64_t *delta = calloc((size_t)n + 2, sizeof *delta);
    uint64_t peak = 0;
    if (!first || !last || !delta) goto done;
    for (int32_t t = 0; t < nt; t++) {
        first[t] = INT32_MAX;
        last[t] = -1;
    }
    for (int32_t s = 0; s < n; s++) {
        const graph_op *op = &g->ops[order[s]];
        for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            if (!activation(g, t)) continue;
            int32_t r = root[t];
            if (s < first[r]) first[r] = s;
            if (s > last[r]) last[r] = s;
        }
    }
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (activation(g, g->inputs[i])) first[root[g->inputs[i]]] = 0;
    for (int32_t i = 0; i < g->n_outputs; i++)
        if (activation(g, g->outputs[i]) && n > 0) last[root[g->outputs[i]]] = n - 1;
    for (int32_t t = 0; t < nt; t++) {
        if (root[t] != t || last[t] < 0 || !activation(g, t)) continue;
        delta[first[t] == INT32_MAX ? 0 : first[t]] += (int64_t)g->tensors[t].nbytes;
        delta[last[t] + 1] -= (int64_t)g->tensors[t].nbytes;
    }
    int64_t live = 0;
    for (int32_t s = 0; s < n; s++) {
        live += delta[s];
        if ((uint64_t)live > peak) peak = (uint64_t)live;
    }
done:
    free(first);
    free(last);
    free(delta);
    return peak;
}

uint64_t cc_order_peak(const graph *g, const int32_t *order)
{
    int32_t *root = malloc(sizeof *root * (size_t)(g->n_tensors + 1));
    uint64_t p = root ? (buffer_roots(g, root), peak_with(g, order, root)) : 0;
    free(root);
    return p;
}

/* ---------------------------------------------------------------- orders */

enum { BY_INPUT, BY_REVERSE, BY_DEPTH, N_DFS };

/* The greedy schedule takes time quadratic in the ops: larger graphs go
 * without it. */
#define GREEDY_MAX_OPS 4096

/* What the orders of one graph share: each op's producers (ops of its
 * segment it reads, once each), its depth, its segment. */
typedef struct order_ctx {
    const graph *g;
    int32_t *seg;             /* [n_ops] segment start of each op */
    int32_t *pstart, *prod;   /* producers of op i: prod[pstart[i] .. pstart[i + 1]) */
    int32_t *depth;           /* longest chain of ops of its segment ending at it */
    bool *used;               /* read by an op of its segment */
    bool *seen;
    int32_t *stack, *next;    /* visit's: ops and the producer each is at */
    int32_t *out; int32_t n_out;
} order_ctx;

/* Emits op i after every producer of its segment not emitted yet, depth
 * first (an explicit stack: a chain may be thousands of ops long). */
static void visit(order_ctx *c, int32_t i, int how)
{
    int32_t n = 0;
    c->seen[i] = true;
    c->stack[n] = i;
    c->next[n++] = 0;
    while (n > 0) {
        int32_t op = c->stack[n - 1], a = c->pstart[op], b = c->pstart[op + 1], j = c->next[n - 1]++;
        if (j >= b - a) {
            c->out[c->n_out++] = op;
            n--;
            continue;
        }
        int32_t p = c->prod[how == BY_REVERSE ? b - 1 - j : a + j];
        if (c->seen[p]) continue;
        c->seen[p] = true;
        c->stack[n] = p;
        c->next[n++] = 0;
    }
}

/* Depth-first from the ops nothing in their segment reads, in their
 * segment's own order. */
static void dfs_order(order_ctx *c, int how, int32_t *order)
{
    const graph *g = c->g;
    for (int32_t i = 0; i < g->n_ops; i++) c->seen[i] = false;
    c->out = order;
    c->n_out = 0;
    /* deepest first: each op's producers sorted by depth (stable) */
    if (how == BY_DEPTH)
        for (int32_t i = 0; i < g->n_ops; i++)
            for (int32_t x = c->pstart[i] + 1; x < c->pstart[i + 1]; x++)
                for (int32_t y = x; y > c->pstart[i] && c->depth[c->prod[y]] > c->depth[c->prod[y - 1]]; y--) {
                    int32_t t = c->prod[y];
                    c->prod[y] = c->prod[y - 1];
                    c->prod[y - 1] = t;
                }
    for (int32_t s = 0; s < g->n_ops;) {
        int32_t e = s + 1;
        while (e < g->n_ops && c->seg[e] == s) e++;
        for (int32_t i = s; i < e; i++)
            if (!c->used[i] && !c->seen[i]) visit(c, i, how);
        s = e;
    }
}

/* Greedy: of the ops of the segment whose producers ran, the one adding
 * the fewest bytes (its outputs less the inputs no op left reads); ties
 * the earliest. uses[r]: ops still to read buffer r; mark[r] == stamp: r
 * counted for the op at hand. */
static void greedy_order(order_ctx *c, const int32_t *root, int32_t *order)
{
    const graph *g = c->g;
    int32_t n = g->n_ops, nt = g->n_tensors, stamp = 0;
    int32_t *uses = calloc((size_t)nt + 1, sizeof *uses), *mark = malloc(sizeof *mark * (size_t)(nt + 1));
    int32_t *waiting = calloc((size_t)n + 1, sizeof *waiting);
    /* the consumers of op p (the ops with p among their producers):
     * cons[cstart[p] .. cstart[p + 1]) */
    int32_t n_edges = c->pstart[n];
    int32_t *cstart = calloc((size_t)n + 2, sizeof *cstart), *cons = malloc(sizeof *cons * ((size_t)n_edges + 1));
    if (!uses || !mark || !waiting || !cstart || !cons) {
        for (int32_t i = 0; i < n; i++) order[i] = i;
        goto done;
    }
    for (int32_t x = 0; x < n_edges; x++) cstart[c->prod[x] + 1]++;
    for (int32_t p = 0; p < n; p++) cstart[p + 1] += cstart[p];
    for (int32_t i = 0; i < n; i++)
        for (int32_t x = c->pstart[i]; x < c->pstart[i + 1]; x++) cons[cstart[c->prod[x]]++] = i;
    for (int32_t p = n; p > 0; p--) cstart[p] = cstart[p - 1];   /* back to the starts */
    cstart[0] = 0;
    for (int32_t t = 0; t < nt; t++) mark[t] = -1;
    for (int32_t i = 0; i < n; i++) {
        const graph_op *op = &g->ops[i];
        stamp++;
        for (int32_t k = 0; k < op->n_in; k++)
            if (activation(g, op->in[k]) && mark[root[op->in[k]]] != stamp) {
                mark[root[op->in[k]]] = stamp;
                uses[root[op->in[k]]]++;
            }
        waiting[i] = c->pstart[i + 1] - c->pstart[i];
    }
    for (int32_t i = 0; i < n; i++) c->seen[i] = false;
    int32_t m = 0;
    for (int32_t s = 0; s < n;) {
        int32_t e = s + 1;
        while (e < n && c->seg[e] == s) e++;
        for (int32_t left = e - s; left > 0; left--) {
            int32_t best = -1;
            int64_t best_gain = 0;
            for (int32_t i = s; i < e; i++) {
                if (c->seen[i] || waiting[i]) continue;
                const graph_op *op = &g->ops[i];
                int64_t gain = 0;
                for (int32_t k = 0; k < op->n_out; k++)
                    if (activation(g, op->out[k]) && root[op->out[k]] == op->out[k])
                        gain += (int64_t)g->tensors[op->out[k]].nbytes;
                stamp++;
                for (int32_t k = 0; k < op->n_in; k++) {
                    int32_t t = op->in[k];
                    if (!activation(g, t) || mark[root[t]] == stamp) continue;
                    mark[root[t]] = stamp;
                    if (uses[root[t]] == 1 && !is_output(g, root[t])) gain -= (int64_t)g->tensors[root[t]].nbytes;
                }
                if (best < 0 || gain < best_gain) {
                    best = i;
                    best_gain = gain;
                }
            }
            const graph_op *op = &g->ops[best];
            c->seen[best] = true;
            order[m++] = best;
            stamp++;
            for (int32_t k = 0; k < op->n_in; k++)
                if (activation(g, op->in[k]) && mark[root[op->in[k]]] != stamp) {
                    mark[root[op->in[k]]] = stamp;
                    uses[root[op->in[k]]]--;
                }
            for (int32_t y = cstart[best]; y < cstart[best + 1]; y++)
                if (cons[y] >= s && cons[y] < e) waiting[cons[y]]--;
        }
        s = e;
    }
done:
    free(uses);
    free(mark);
    free(waiting);
    free(cstart);
    free(cons);
}

bool cc_order_plan(const graph *g, int32_t *order)
{
    int32_t n = g->n_ops, nt = g->n_tensors;
    for (int32_t i = 0; i < n; i++) order[i] = i;
    order_ctx c = {.g = g};
    int32_t n_edges = 0;
    for (int32_t i = 0; i < n; i++) n_edges += g->ops[i].n_in;
    c.seg = malloc(sizeof *c.seg * (size_t)(n + 1));
    c.pstart = calloc((size_t)n + 2, sizeof *c.pstart);
    c.prod = malloc(sizeof *c.prod * (size_t)(n_edges + 1));
    c.depth = calloc((size_t)n + 1, sizeof *c.depth);
    c.used = calloc((size_t)n + 1, sizeof *c.used);
    c.seen = calloc((size_t)n + 1, sizeof *c.seen);
    c.stack = malloc(sizeof *c.stack * (size_t)(n + 1));
    c.next = malloc(sizeof *c.next * (size_t)(n + 1));
    int32_t *root = malloc(sizeof *root * (size_t)(nt + 1));
    int32_t *cand = malloc(sizeof *cand * (size_t)(n + 1));
    bool changed = false, any_segment = false;
    if (!c.seg || !c.pstart || !c.prod || !c.depth || !c.used || !c.seen || !c.stack || !c.next || !root || !cand)
        goto done;
    /* segments: runs of ops between barriers; a barrier is one of its own */
    for (int32_t i = 0, s = 0; i < n; i++) {
        bool b = barrier(g, &g->ops[i]);
        if (b || (i > 0 && barrier(g, &g->ops[i - 1]))) s = i;
        c.seg[i] = s;
        any_segment |= !b && i > s;
    }
    if (!any_segment) goto done;   /* no two movable ops side by side */
    for (int32_t i = 0; i < n; i++) {
        const graph_op *op = &g->ops[i];
        c.pstart[i + 1] = c.pstart[i];
        for (int32_t k = 0; k < op->n_in; k++) {
            int32_t t = op->in[k], p = t >= 0 ? g->tensors[t].producer : -1;
            if (p < 0 || p >= i || c.seg[p] != c.seg[i]) continue;
            bool dup = false;
            for (int32_t x = c.pstart[i]; x < c.pstart[i + 1] && !dup; x++) dup = c.prod[x] == p;
            if (dup) continue;
            c.prod[c.pstart[i + 1]++] = p;
            c.used[p] = true;
            if (c.depth[p] + 1 > c.depth[i]) c.depth[i] = c.depth[p] + 1;
        }
    }
    buffer_roots(g, root);
    uint64_t best = peak_with(g, order, root);
    for (int how = 0; how <= N_DFS; how++) {
        if (how < N_DFS)
            dfs_order(&c, how, cand);
        else if (n <= GREEDY_MAX_OPS)
            greedy_order(&c, root, cand);
        else
            break;
        uint64_t p = peak_with(g, cand, root);
        if (p < best) {
            best = p;
            memcpy(order, cand, sizeof *order * (size_t)n);
            changed = true;
        }
    }
done:
    free(c.seg);
    free(c.pstart);
    free(c.prod);
    free(c.depth);
    free(c.used);
    free(c.seen);
    free(c.stack);
    free(c.next);
    free(root);
    free(cand);
    return changed;
}

/* The answers for the folded graph ([1]) and the source one ([0]): the
 * search's compiles all start from the same graph, folded or not as the
 * caller's options say (cc_fold is a function of the graph). */
typedef struct order_ent {
    const graph *src;         /* the graph cc_compile was given */
    bool set, changed;
    int32_t n_ops;
    int32_t *order;
    uint64_t peak[2];
} order_ent;

struct cc_order_memo {
    order_ent e[2];
};

struct cc_order_memo *cc_order_memo_new(void) { return calloc(1, sizeof(struct cc_order_memo)); }

void cc_order_memo_free(struct cc_order_memo *o)
{
    if (!o) return;
    for (int i = 0; i < 2; i++) free(o->e[i].order);
    free(o);
}

int cc_order(cc_model *m, npuc_err *err)
{
    int32_t n = m->g->n_ops;
    int32_t *order = malloc(sizeof *order * (size_t)(n + 1));
    if (!order) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    int rc = NPUC_OK;
    graph *h = NULL;
    order_ent *x = m->order_memo ? &m->order_memo->e[m->g != m->src] : NULL;
    bool changed;
    uint64_t peak[2] = {0, 0};
    if (x && x->set && x->src == m->src && x->n_ops == n) {
        changed = x->changed;
        if (changed) memcpy(order, x->order, sizeof *order * (size_t)n);
        peak[0] = x->peak[0];
        peak[1] = x->peak[1];
    } else {
        changed = cc_order_plan(m->g, order);
        if (changed) {
            peak[1] = cc_order_peak(m->g, order);
            int32_t *id = malloc(sizeof *id * (size_t)(n + 1));
            if (!id) {
                free(order);
                return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
            }
            for (int32_t i = 0; i < n; i++) id[i] = i;
            peak[0] = cc_order_peak(m->g, id);
            free(id);
        }
        int32_t *keep = x && changed ? malloc(sizeof *keep * (size_t)(n + 1)) : NULL;
        if (x && (keep || !changed)) {
            free(x->order);
            if (keep) memcpy(keep, order, sizeof *keep * (size_t)n);
            *x = (order_ent){m->src, true, changed, n, keep, {peak[0], peak[1]}};
        }
    }
    if (changed && !(rc = cc_graph_reorder(m->g, order, &h, err))) {
        m->order_peak[1] = peak[1];
        m->order_peak[0] = peak[0];
        graph_free(m->folded_g);   /* m->g when ops were folded */
        m->g = m->folded_g = h;
        m->reordered = true;
    }
    free(order);
    return rc;
}

/* ----------------------------------------------------------------- views */

/* View i of m->g on the CPU alone (its output aliases its input), whose
 * producer runs on the NPU or is such a view itself (moved[]), with no
 * barrier in between and no other input computed: the producer, else -1. */
static int32_t view_target(const cc_model *m, int32_t i, const bool *moved)
{
    const graph *g = m->g;
    const graph_op *op = &g->ops[i];
    if (!is_view(op->opcode) || m->ops[i].npu || op->n_in < 1 || op->n_out != 1 || op->in[0] < 0 || op->out[0] < 0)
        return -1;
    int32_t b = m->buf_of[op->in[0]];
    if (b < 0 || m->buf_of[op->out[0]] != b) return -1;
    int32_t p = g->tensors[op->in[0]].producer;
    /* (a producer right before it on the NPU has it in its epoch already) */
    if (p < 0 || !(m->ops[p].npu || moved[p])) return -1;
    for (int32_t k = 1; k < op->n_in; k++)
        if (op->in[k] >= 0 && !g->tensors[op->in[k]].data) return -1;
    for (int32_t j = p + 1; j < i; j++)
        if (barrier(g, &g->ops[j])) return -1;
    return p;
}

static void emit_after(const graph *g, int32_t p, const int32_t *after, int32_t *order, int32_t *n)
{
    order[(*n)++] = p;
    for (int32_t j = p + 1; j < g->n_ops; j++)
        if (after[j] == p) emit_after(g, j, after, order, n);
}

bool cc_order_views_plan(const cc_model *m, int32_t *order)
{
    const graph *g = m->g;
    int32_t n = g->n_ops;
    for (int32_t i = 0; i < n; i++) order[i] = i;
    int32_t *after = malloc(sizeof *after * (size_t)(n + 1));
    bool *moved = calloc((size_t)n + 1, sizeof *moved), any = false;
    if (!after || !moved) goto done;
    for (int32_t i = 0; i < n; i++) {
        after[i] = view_target(m, i, moved);
        moved[i] = after[i] >= 0;
        any |= moved[i];
    }
    if (!any) goto done;
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        if (after[i] < 0) emit_after(g, i, after, order, &k);
done:
    free(after);
    free(moved);
    return any;
}
