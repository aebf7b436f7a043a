/* emit: the compiled model as an NPRT blob (include/npurt/npurt_format.h)
 * and as C sources that define the same bytes.
 *
 * Pools: params (every HW epoch's COP1 payload and constants, CPU-op
 * constants, prepared kernel parameters), activations (the compiler's arena
 * plus one scratch area for CPU kernels after it), state (persistent
 * buffers of CPU kernels). HW epochs address region 0 = their constants,
 * region 1 = activations, region 2 = fast scratch: a fourth pool, "fast", of
 * the compiler's fast peak when it placed buffers there (the runtime binds
 * region 2 to it), else the activations.
 * The string table also holds the target record (header target_off).
 * SW epochs carry the kernel kind and parameter blob the reference
 * interpreter prepared for the op (kernels/k_op.h), so the runtime runs the
 * interpreter's exact arithmetic. A CALL_ONCE folded at compile time
 * (cc_fold_once) gets no epoch: the variable area's initial contents, in
 * the params pool (header vars_init_off, NPURT_F_VARS_INIT), hold what it
 * would have assigned. */
#include "emit.h"

#include "kernels/k_op.h"
#include "interp/interp.h"
#include "npurt/npurt_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bytes {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} bytes;

static size_t bytes_add(bytes *b, const void *data, size_t n, size_t align)
{
    size_t at = (b->n + align - 1) / align * align;
    if (at + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < at + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return 0;
        }
        b->p = p;
        b->cap = cap;
    }
    memset(b->p + b->n, 0, at - b->n);
    if (data) memcpy(b->p + at, data, n);
    else memset(b->p + at, 0, n);
    b->n = at + n;
    return at;
}

typedef struct builder {
    const cc_model *m;
    const graph *g;
    interp *ip;
    npurt_pool_rec pools[4];
    uint32_t n_pools;
    int32_t pool_params, pool_act, pool_state;
    bytes params, tensors, epochs, refs, strings;
    int32_t *tmap;            /* graph tensor -> NPRT tensor, -1 none */
    int64_t *const_off;       /* graph constant -> params offset, -1 none */
    uint32_t n_tensors, n_epochs, n_refs;
    uint64_t scratch_max, state_size;
    uint32_t flags;
    uint32_t *flash_off;      /* per compiler epoch: where its flash went */
} builder;

static uint32_t add_string(builder *b, const char *s)
{
    if (!s) return NPURT_NO_NAME;
    return (uint32_t)bytes_add(&b->strings, s, strlen(s) + 1, 1);
}

static uint8_t dtype_of(graph_dtype d)
{
    switch (d) {
    case GRAPH_I8: return NPURT_DT_INT8;
    case GRAPH_U8: return NPURT_DT_UINT8;
    case GRAPH_I16: return NPURT_DT_INT16;
    case GRAPH_I32: return NPURT_DT_INT32;
    case GRAPH_I64: return NPURT_DT_INT64;
    case GRAPH_F32: return NPURT_DT_FLOAT32;
    case GRAPH_BOOL: return NPURT_DT_BOOL;
    case GRAPH_U32: return NPURT_DT_UINT32;
    case GRAPH_U16: return NPURT_DT_UINT16;
    case GRAPH_U64: return NPURT_DT_UINT64;
    case GRAPH_RESOURCE: return NPURT_DT_INT32; /* an int32 resource id */
    case GRAPH_F16: case GRAPH_F64: case GRAPH_C64: case GRAPH_C128: case GRAPH_I4:
    case GRAPH_STRING: case GRAPH_VARIANT: return 0;   /* no NPRT type: never emitted (no op runs them) */
    }
    return 0;
}

/* The NPRT tensor of graph tensor t (added on first use). */
static int tensor_of(builder *b, int32_t t, int32_t *out, npuc_err *err)
{
    if (b->tmap[t] >= 0) {
        *out = b->tmap[t];
        return NPUC_OK;
    }
    const graph_tensor *x = &b->g->tensors[t];
    npurt_tensor_rec r;
    memset(&r, 0, sizeof r);
    r.dtype = dtype_of(x->dtype);
    if (!r.dtype) return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d (%s): element type not supported by the runtime", t, x->name ? x->name : "");
    if (x->rank > (int32_t)NPURT_MAX_RANK) return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d (%s): rank above 6", t, x->name ? x->name : "");
    if (x->nbytes > 0xFFFFFFF0u) return npuc_errf(err, NPUC_E_UNSUPPORTED, "tensor %d (%s): larger than 4 GiB", t, x->name ? x->name : "");
    r.rank = (uint8_t)x->rank;
    for (int32_t d = 0; d < x->rank; d++) r.shape[d] = x->shape[d];
    r.size = (uint32_t)x->nbytes;
    if (x->q.n > 0) {
        r.scale = x->q.scale[0];
        r.zero_point = (int32_t)x->q.zero_point[0];
    }
    r.name_off = add_string(b, x->name);
    if (x->data && !x->is_variable) {
        if (b->const_off[t] < 0) b->const_off[t] = (int64_t)bytes_add(&b->params, x->data, x->nbytes, NPURT_ALIGN);
        r.pool = (uint8_t)b->pool_params;
        r.offset = (uint32_t)b->const_off[t];
        r.flags |= NPURT_T_CONSTANT;
    } else {
        int32_t bi = b->m->buf_of[t];
        if (bi < 0) return npuc_errf(err, NPUC_E_INVALID, "tensor %d (%s) has no arena buffer", t, x->name ? x->name : "");
        const cc_buf *cb = &b->m->bufs[bi];
        if (cb->pool == CC_IN_FAST)
            return npuc_errf(err, NPUC_E_INVALID, "internal: tensor %d (%s) is in the fast scratch but the CPU reads it", t, x->name ? x->name : "");
        if (cb->brick) return npuc_errf(err, NPUC_E_INVALID, "tensor %d (%s): a CPU op reads a brick-format buffer", t, x->name ? x->name : "");
        /* a variable only CPU ops use sits at the start of the state pool
         * (the compiler's offsets there, before the persistent buffers) */
        r.pool = (uint8_t)(cb->pool == CC_IN_STATE ? b->pool_state : b->pool_act);
        r.offset = (uint32_t)cb->offset;
        if (x->is_variable) {
            r.flags |= NPURT_T_VARIABLE;
            if (cb->pool != CC_IN_STATE) b->flags |= NPURT_F_ARENA_STATE;
        }
    }
    for (int32_t i = 0; i < b->g->n_inputs; i++)
        if (b->g->inputs[i] == t) r.flags |= NPURT_T_INPUT;
    for (int32_t i = 0; i < b->g->n_outputs; i++)
        if (b->g->outputs[i] == t) r.flags |= NPURT_T_OUTPUT;
    bytes_add(&b->tensors, &r, sizeof r, 4);
    *out = b->tmap[t] = (int32_t)b->n_tensors++;
    return NPUC_OK;
}

static bool is_view_op(int32_t opcode)
{
    return opcode == TFL_OP_RESHAPE || opcode == TFL_OP_SQUEEZE || opcode == TFL_OP_EXPAND_DIMS;
}

bool emit_npurt_has_epoch(const cc_model *m, int32_t ei)
{
    const cc_epoch *ce = &m->epochs[ei];
    if (ce->kind == CC_EPOCH_HW) return ce->n_eu > 0 && ce->payload; /* else only views: nothing to run */
    if (cc_once_folded(m, ce->first_op)) return false; /* its result is the variable area's initial contents */
    /* a view whose output shares its input's bytes needs no work */
    const graph_op *op = &m->g->ops[ce->first_op];
    return !(is_view_op(op->opcode) && op->n_out == 1 && op->out[0] >= 0 && op->in[0] >= 0 &&
             m->buf_of[op->out[0]] >= 0 && m->buf_of[op->out[0]] == m->buf_of[op->in[0]]);
}

uint64_t emit_cpu_scratch_bytes(const cc_model *m)
{
    /* each CPU op prepared alone gives the scratch the whole graph's
     * interpreter gives it (a prepare sees only its op and the graph) */
    uint64_t most = 0;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        if (m->epochs[i].kind != CC_EPOCH_SW || !emit_npurt_has_epoch(m, i)) continue;
        const uint64_t s = interp_op_scratch(m->g, &m->g->ops[m->epochs[i].first_op]);
        if (s > most) most = s;
    }
    return (most + 15) / 16 * 16;
}

static int add_sw_epoch(builder *b, int32_t op_index, npuc_err *err)
{
    const graph_op *op = &b->g->ops[op_index];
    uint32_t kind = 0, psize = 0, scratch = 0, persist = 0;
    const void *params = NULL;
    int rc = interp_op_prepared(b->ip, op_index, &kind, &params, &psize, &scratch, &persist);
    if (rc) return npuc_errf(err, rc, "op %d (%s): no prepared CPU kernel for the runtime", op_index, graph_op_name(op));
    if ((uint32_t)op->n_in + (uint32_t)op->n_out > NPURT_MAX_OPERANDS)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "op %d (%s): %d operands, the runtime takes at most %u", op_index,
                         graph_op_name(op), op->n_in + op->n_out, NPURT_MAX_OPERANDS);
    npurt_epoch_rec e;
    memset(&e, 0, sizeof e);
    e.kind = k_op_is_data_movement(kind) ? NPURT_EPOCH_HYBRID : NPURT_EPOCH_SW;
    e.first_op = (uint32_t)op_index;
    e.n_ops = 1;
    e.kernel = kind;
    e.params_off = (uint32_t)bytes_add(&b->params, params, psize, NPURT_ALIGN);
    e.params_size = psize;
    e.n_in = (uint8_t)op->n_in;
    e.n_out = (uint8_t)op->n_out;
    e.refs = b->n_refs;
    for (int32_t k = 0; k < op->n_in + op->n_out; k++) {
        int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        int32_t r = -1;
        if (t >= 0 && (rc = tensor_of(b, t, &r, err))) return npuc_err_prefix(err, "op %d (%s)", op_index, graph_op_name(op)), rc;
        bytes_add(&b->refs, &r, 4, 4);
        b->n_refs++;
    }
    if (scratch) {
        e.scratch_off = 0; /* fixed up once the scratch area's place is known */
        e.scratch_size = scratch;
        if (scratch > b->scratch_max) b->scratch_max = scratch;
    }
    if (persist) {
        b->state_size = (b->state_size + 15) / 16 * 16;
        e.persist_off = (uint32_t)b->state_size;
        e.persist_size = persist;
        b->state_size += persist;
    }
    bytes_add(&b->epochs, &e, sizeof e, 4);
    b->n_epochs++;
    return NPUC_OK;
}

static int add_hw_epoch(builder *b, int32_t ei)
{
    const cc_epoch *ce = &b->m->epochs[ei];
    npurt_epoch_rec e;
    memset(&e, 0, sizeof e);
    e.kind = NPURT_EPOCH_HW;
    e.first_op = (uint32_t)ce->first_op;
    e.n_ops = (uint32_t)ce->n_ops;
    e.cmd_off = (uint32_t)bytes_add(&b->params, ce->payload, ce->payload_size, NPURT_ALIGN);
    e.cmd_size = (uint32_t)ce->payload_size;
    const cc_epoch *fe = cc_flash_epoch(b->m, ce);   /* a shared flash is stored once */
    if (fe == ce) b->flash_off[ei] = (uint32_t)bytes_add(&b->params, ce->flash, ce->flash_size, NPURT_ALIGN);
    e.flash_off = b->flash_off[fe - b->m->epochs];
    e.flash_size = (uint32_t)fe->flash_size;
    e.est_cycles = ce->cycles > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)ce->cycles;
    bytes_add(&b->epochs, &e, sizeof e, 4);
    b->n_epochs++;
    return NPUC_OK;
}

static void builder_free(builder *b)
{
    free(b->params.p);
    free(b->tensors.p);
    free(b->epochs.p);
    free(b->refs.p);
    free(b->strings.p);
    free(b->tmap);
    free(b->const_off);
    free(b->flash_off);
    interp_free(b->ip);
}

int emit_npurt(const cc_model *m, const char *name, uint8_t **blob, size_t *size, npuc_err *err)
{
    *blob = NULL;
    *size = 0;
    const graph *g = m->g;
    builder b;
    memset(&b, 0, sizeof b);
    b.m = m;
    b.g = g;
    b.tmap = malloc(sizeof(int32_t) * ((size_t)g->n_tensors + 1));
    b.const_off = malloc(sizeof(int64_t) * ((size_t)g->n_tensors + 1));
    b.flash_off = calloc((size_t)m->n_epochs + 1, sizeof *b.flash_off);
    if (!b.tmap || !b.const_off || !b.flash_off) {
        builder_free(&b);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    for (int32_t t = 0; t < g->n_tensors; t++) {
        b.tmap[t] = -1;
        b.const_off[t] = -1;
    }
    bool any_sw = false;
    for (int32_t i = 0; i < m->n_epochs; i++)
        any_sw |= m->epochs[i].kind == CC_EPOCH_SW && !cc_once_folded(m, m->epochs[i].first_op);
    int rc = NPUC_OK;
    if (any_sw) {
        interp_options io;
        memset(&io, 0, sizeof io);
        if ((rc = interp_create(g, &io, &b.ip, err))) {
            builder_free(&b);
            return npuc_err_prefix(err, "preparing the CPU ops"), rc;
        }
    }
    b.pool_params = 0;
    b.pool_act = 1;
    b.pool_state = 2;
    b.state_size = (m->state_size + 15) / 16 * 16;   /* the compiler's state buffers first */
    bytes_add(&b.strings, "", 1, 1); /* offset 0: empty name */
    for (int32_t i = 0; i < g->n_inputs && !rc; i++) {
        int32_t r;
        rc = tensor_of(&b, g->inputs[i], &r, err);
    }
    for (int32_t i = 0; i < g->n_outputs && !rc; i++) {
        int32_t r;
        rc = tensor_of(&b, g->outputs[i], &r, err);
    }
    for (int32_t i = 0; i < m->n_epochs && !rc; i++) {
        if (!emit_npurt_has_epoch(m, i)) continue;
        rc = m->epochs[i].kind == CC_EPOCH_HW ? add_hw_epoch(&b, i) : add_sw_epoch(&b, m->epochs[i].first_op, err);
    }
    /* the resource variables (VAR_HANDLE, READ/ASSIGN_VARIABLE) after the
     * persistent buffers: zeroed with the pool at init and reset, then set
     * to the folded initialisers' result (in the params pool) if any */
    uint64_t vars_size = b.ip ? interp_vars_size(b.ip) : 0, vars_off = 0, vars_init = 0;
    if (!rc && vars_size && m->vars_init) {
        if (m->vars_init_size != vars_size)
            rc = npuc_errf(err, NPUC_E_INVALID, "internal: folded variable area of %zu bytes, the model's has %llu",
                           m->vars_init_size, (unsigned long long)vars_size);
        else
            vars_init = (uint64_t)bytes_add(&b.params, m->vars_init, m->vars_init_size, NPURT_ALIGN);
    }
    /* state tensors only NPU ops use (an LSTM on the NPU): recorded too, so
     * that the runtime resets them (npurt_reset_state) */
    for (int32_t t = 0; t < g->n_tensors && !rc; t++)
        if (g->tensors[t].is_variable && !g->tensors[t].data && m->buf_of[t] >= 0 && b.tmap[t] < 0) {
            int32_t r;
            rc = tensor_of(&b, t, &r, err);
        }
    if (!rc && (b.params.oom || b.tensors.oom || b.epochs.oom || b.refs.oom || b.strings.oom))
        rc = npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (rc) {
        builder_free(&b);
        return rc;
    }
    /* CPU scratch goes after the compiler's arena */
    uint64_t act = (m->arena_size + 15) / 16 * 16;
    uint64_t scratch_at = act;
    if (b.scratch_max) act += (b.scratch_max + 15) / 16 * 16;
    npurt_epoch_rec *ep = (npurt_epoch_rec *)b.epochs.p;
    for (uint32_t i = 0; i < b.n_epochs; i++)
        if (ep[i].scratch_size) ep[i].scratch_off = (uint32_t)scratch_at;
    if (act > 0xFFFFFFF0u || b.params.n > 0xFFFFFFF0u)
        return builder_free(&b), npuc_errf(err, NPUC_E_UNSUPPORTED, "model larger than 4 GiB");

    npurt_pool_rec pools[4];
    memset(pools, 0, sizeof pools);
    int n_pools = 3;
    pools[0].kind = NPURT_POOL_PARAMS;
    pools[0].size = pools[0].data_size = (uint32_t)((b.params.n + 15) / 16 * 16);
    pools[0].name_off = add_string(&b, "params");
    pools[1].kind = NPURT_POOL_ACTIVATIONS;
    pools[1].size = (uint32_t)act;
    pools[1].name_off = add_string(&b, "activations");
    if (vars_size) {
        vars_off = (b.state_size + 15) / 16 * 16;
        b.state_size = vars_off + vars_size;
    }
    if (b.state_size > 0xFFFFFFF0u) return builder_free(&b), npuc_errf(err, NPUC_E_UNSUPPORTED, "state larger than 4 GiB");
    pools[2].kind = NPURT_POOL_STATE;
    pools[2].size = (uint32_t)((b.state_size + 15) / 16 * 16);
    pools[2].name_off = add_string(&b, "state");
    if (m->fast_size) {
        if (m->fast_size > 0xFFFFFFF0u)
            return builder_free(&b), npuc_errf(err, NPUC_E_UNSUPPORTED, "fast scratch larger than 4 GiB");
        pools[3].kind = NPURT_POOL_FAST;
        pools[3].size = (uint32_t)((m->fast_size + 15) / 16 * 16);
        pools[3].name_off = add_string(&b, "fast");
        n_pools = 4;
    }
    uint32_t model_name = add_string(&b, name);
    /* the target the model was compiled for (docs/system-config.md), so
     * that `npuc run` and `npuc validate` replay it */
    char *record = NULL;
    if ((rc = target_record_write(&m->opt.sys, &record, NULL, err))) return builder_free(&b), rc;
    uint32_t target_rec = add_string(&b, record);
    free(record);
    if (b.strings.oom) return builder_free(&b), npuc_errf(err, NPUC_E_NOMEM, "out of memory");

    /* layout */
    npurt_header h;
    memset(&h, 0, sizeof h);
    bytes out = {0};
    bytes_add(&out, NULL, sizeof h, 16);
    h.pools_off = (uint32_t)bytes_add(&out, pools, sizeof pools[0] * (size_t)n_pools, 16);
    h.tensors_off = (uint32_t)bytes_add(&out, b.tensors.p, b.tensors.n, 16);
    h.epochs_off = (uint32_t)bytes_add(&out, b.epochs.p, b.epochs.n, 16);
    int32_t *io = malloc(sizeof(int32_t) * ((size_t)g->n_inputs + (size_t)g->n_outputs + 1));
    if (!io) return builder_free(&b), free(out.p), npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    for (int32_t i = 0; i < g->n_inputs; i++) io[i] = b.tmap[g->inputs[i]];
    for (int32_t i = 0; i < g->n_outputs; i++) io[g->n_inputs + i] = b.tmap[g->outputs[i]];
    h.io_off = (uint32_t)bytes_add(&out, io, sizeof(int32_t) * (size_t)(g->n_inputs + g->n_outputs), 16);
    free(io);
    h.refs_off = (uint32_t)bytes_add(&out, b.refs.p, b.refs.n, 16);
    h.strings_off = (uint32_t)bytes_add(&out, b.strings.p, b.strings.n, 16);
    h.strings_size = (uint32_t)b.strings.n;
    uint32_t pdata = (uint32_t)bytes_add(&out, b.params.p, b.params.n, 16);
    bytes_add(&out, NULL, 0, 16);
    if (out.oom || out.n > 0xFFFFFFF0u) {
        builder_free(&b);
        free(out.p);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    /* pad params to the pool size and the blob to 16 */
    while (out.n < (size_t)pdata + pools[0].size) bytes_add(&out, NULL, 1, 1);
    bytes_add(&out, NULL, 0, 16);
    ((npurt_pool_rec *)(out.p + h.pools_off))[0].data_off = pdata;
    h.magic = NPURT_MAGIC;
    h.version_major = NPURT_VERSION_MAJOR;
    h.version_minor = NPURT_VERSION_MINOR;
    h.size = (uint32_t)out.n;
    bool any_hw = false;
    for (uint32_t i = 0; i < b.n_epochs; i++) any_hw |= ep[i].kind == NPURT_EPOCH_HW;
    if (any_hw) {
        const eu_variant_info *vi = eu_variant_get(m->opt.sys.variant);
        h.npu_config = vi->config;
        h.npu_id = vi->id;
    }
    h.flags = b.flags;
    h.name_off = model_name;
    h.target_off = target_rec;
    h.vars_off = (uint32_t)vars_off;
    h.vars_size = (uint32_t)vars_size;
    if (vars_size && m->vars_init) {
        h.flags |= NPURT_F_VARS_INIT;
        h.vars_init_off = (uint32_t)vars_init;
    }
    h.n_pools = (uint16_t)n_pools;
    h.n_tensors = (uint16_t)b.n_tensors;
    h.n_epochs = (uint16_t)b.n_epochs;
    h.n_inputs = (uint16_t)g->n_inputs;
    h.n_outputs = (uint16_t)g->n_outputs;
    h.n_refs = b.n_refs;
    if (b.n_tensors > 0xFFFF || b.n_epochs > 0xFFFF) {
        builder_free(&b);
        free(out.p);
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "more than 65535 tensors or epochs");
    }
    memcpy(out.p, &h, sizeof h);
    ((npurt_header *)out.p)->crc32 = emit_crc32(out.p + 16, out.n - 16);
    builder_free(&b);
    *blob = out.p;
    *size = out.n;
    return NPUC_OK;
}

uint32_t emit_crc32(const uint8_t *p, size_t n)
{
    return npurt_format_crc32(p, (uint32_t)n);
}

int emit_npurt_file(const cc_model *m, const char *name, const char *path, npuc_err *err)
{
    uint8_t *blob;
    size_t n;
    int rc = emit_npurt(m, name, &blob, &n, err);
    if (rc) return rc;
    rc = npuc_write_file(path, blob, n, err);
    free(blob);
    return rc;
}

/* A C identifier from a model name: [A-Za-z0-9_], not starting with a digit. */
void emit_c_ident(const char *name, char *out, size_t cap)
{
    size_t k = 0;
    if (!(name[0] >= 'A' && name[0] <= 'Z') && !(name[0] >= 'a' && name[0] <= 'z') && name[0] != '_' && k + 1 < cap)
        out[k++] = 'm';
    for (const char *p = name; *p && k + 1 < cap; p++) {
        char c = *p;
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        out[k++] = ok ? c : '_';
    }
    out[k] = 0;
}

int emit_c_sources(const cc_model *m, const char *name, const char *dir, npuc_err *err)
{
    char *hd = NULL, *c = NULL;
    size_t hl = 0, len = 0;
    int rc = emit_c_sources_text(m, name, &hd, &hl, &c, &len, err);
    if (rc) return rc;
    char id[200];
    emit_c_ident(name, id, sizeof id);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_model.h", dir, id);
    rc = npuc_write_file(path, hd, hl, err);
    if (!rc) {
        char path_c[4096];
        snprintf(path_c, sizeof path_c, "%s/%s_model.c", dir, id);
        rc = npuc_write_file(path_c, c, len, err);
        if (rc) remove(path);
    }
    free(c);
    free(hd);
    return rc;
}

/* The NAME of K_OP_FAM_<NAME> (family f's name in capitals) into buf. */
static const char *fam_upper(uint32_t f, char *buf, size_t size)
{
    const char *n = k_op_family_name(f);
    size_t i = 0;
    for (; n[i] && i + 1 < size; i++) buf[i] = (char)(n[i] >= 'a' && n[i] <= 'z' ? n[i] - 'a' + 'A' : n[i]);
    buf[i] = 0;
    return buf;
}

int emit_c_sources_text(const cc_model *m, const char *name, char **h_out, size_t *h_len, char **c_out,
                        size_t *c_len, npuc_err *err)
{
    uint8_t *blob;
    size_t n;
    int rc = emit_npurt(m, name, &blob, &n, err);
    if (rc) return rc;
    char id[200];
    emit_c_ident(name, id, sizeof id);
    const npurt_header *h = (const npurt_header *)blob;
    const npurt_pool_rec *pools = (const npurt_pool_rec *)(blob + h->pools_off);
    uint32_t fast_size = 0;
    for (uint32_t i = 0; i < h->n_pools; i++)
        if (pools[i].kind == NPURT_POOL_FAST) fast_size = pools[i].size;
    size_t cap = n * 6 + 4096, len = 0;
    char *c = malloc(cap), *hd = malloc(4096);
    if (!c || !hd) {
        free(c);
        free(hd);
        free(blob);
        return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    }
    int hl = snprintf(hd, 4096,
        "/* %s_model.h: the compiled model \"%s\" for the npuc runtime (generated by npuc compile). */\n"
        "#ifndef %s_MODEL_H\n#define %s_MODEL_H\n\n#include <stdint.h>\n#include \"npurt/npurt.h\"\n\n"
        "/* The NPRT blob (include/npurt/npurt_format.h): pass it to npurt_model_load. */\n"
        "extern const uint8_t %s_model[];\n"
        "/* The CPU kernels its CPU epochs run, by family: set npurt_instance.kernels\n"
        " * to it and the firmware links only those (docs/embedded.md). */\n"
        "extern const npurt_kernel_fn %s_kernels[];\n"
        "#define %s_MODEL_SIZE %zuu\n"
        "/* Bytes to give npurt_init (npurt_memory): activations, state and (when\n"
        " * not 0) the fast scratch, ideally in the NPU's fastest memory. */\n"
        "#define %s_ACTIVATIONS_SIZE %uu\n"
        "#define %s_STATE_SIZE %uu\n"
        "#define %s_FAST_SIZE %uu\n"
        "#define %s_PARAMS_SIZE %uu\n\n#endif\n",
        id, name, id, id, id, id, id, n, id, pools[1].size, id, pools[2].size, id, fast_size, id, pools[0].size);
    /* the kernel families of its CPU epochs */
    bool fam[K_OP_FAM_COUNT] = {false};
    const npurt_epoch_rec *ep = (const npurt_epoch_rec *)(blob + h->epochs_off);
    for (uint32_t i = 0; i < h->n_epochs; i++)
        if (ep[i].kind == NPURT_EPOCH_SW || ep[i].kind == NPURT_EPOCH_HYBRID) fam[k_op_family(ep[i].kernel)] = true;
    fam[K_OP_FAM_NONE] = false;
    len += (size_t)snprintf(c + len, cap - len,
        "/* %s_model.c: the compiled model \"%s\" (generated by npuc compile; do not edit). */\n"
        "#include \"%s_model.h\"\n#include \"kernels/k_op.h\"\n\n"
        "const npurt_kernel_fn %s_kernels[K_OP_FAM_COUNT] = {\n", id, name, id, id);
    for (uint32_t f = 1; f < K_OP_FAM_COUNT; f++) {
        char up[32];
        if (fam[f])
            len += (size_t)snprintf(c + len, cap - len, "    [K_OP_FAM_%s] = k_op_run_%s,\n",
                                    fam_upper(f, up, sizeof up), k_op_family_name(f));
    }
    len += (size_t)snprintf(c + len, cap - len, "};\n\n"
        "__attribute__((aligned(16), section(\".rodata.npurt_model\")))\n"
        "const uint8_t %s_model[%zu] = {\n", id, n);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(c + len, cap - len, "%s0x%02x,%s", i % 16 ? "" : "    ", blob[i],
                                i % 16 == 15 || i + 1 == n ? "\n" : "");
    len += (size_t)snprintf(c + len, cap - len, "};\n");
    free(blob);
    *h_out = hd;
    *h_len = (size_t)hl;
    *c_out = c;
    *c_len = len;
    return NPUC_OK;
}
