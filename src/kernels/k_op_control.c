/* Prepared ops of the state and control family (k_op_control.h):
 * resource variables and the ops that run subgraph programs, after
 * TensorFlow Lite Micro's var_handle.cc, read_variable.cc,
 * assign_variable.cc, micro_resource_variable.cc, call_once.cc, if.cc and
 * while.cc. Freestanding: programs run on the caller's stack (bounded by
 * K_CTL_MAX_DEPTH and K_CTL_MAX_OPERANDS). */
#include "k_op_internal.h"

/* ---- resource variables ---- */

/* The variable of resource id `id`: its header and value in the area. */
static int var_of(const uint8_t *blob, uint32_t size, const k_op_io *io, int32_t id, uint8_t **hdr,
                  k_op_var_entry *e)
{
    k_op_var_blob b;
    K_OP_LOAD(b, blob, size);
    if (id < 0 || id >= b.n_vars) return K_E_INVALID;
    const k_op_var_entry *t = k_op_array(blob, size, b.vars_off, (uint64_t)b.n_vars, sizeof *t);
    if (!t) return K_E_INVALID;
    memcpy(e, &t[id], sizeof *e);
    if (e->bytes == 0 || e->off % 8u != 0) return K_E_INVALID; /* never assigned: no storage */
    if (!io->vars || ((uintptr_t)io->vars & 7u) != 0 || (uint64_t)e->off + 8u + e->bytes > io->vars_size)
        return K_E_INVALID;
    *hdr = (uint8_t *)io->vars + e->off;
    return K_OK;
}

static int var_blob_check(const uint8_t *blob, uint32_t size)
{
    k_op_var_blob b;
    K_OP_LOAD(b, blob, size);
    if (b.n_vars < 0 || b.n_vars > (1 << 20)) return K_E_INVALID;
    const k_op_var_entry *t = k_op_array(blob, size, b.vars_off, (uint64_t)b.n_vars, sizeof *t);
    if (!t) return K_E_INVALID;
    for (int32_t i = 0; i < b.n_vars; i++) {
        k_op_var_entry e;
        memcpy(&e, &t[i], sizeof e);
        if (e.off % 8u != 0 || e.bytes > (uint32_t)INT32_MAX || e.fill < -128 || e.fill > 255) return K_E_INVALID;
    }
    return K_OK;
}

static int read_id(const k_op_io *io, int32_t *id)
{
    void *p;
    int rc = k_op_in(io, 0, 4, 4, &p);
    if (rc) return rc;
    memcpy(id, p, 4);
    return K_OK;
}

static int var_run(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    int rc = var_blob_check(blob, size);
    if (rc || !io) return rc;
    int32_t id;
    if ((rc = read_id(io, &id))) return rc;
    uint8_t *hdr;
    k_op_var_entry e;
    if ((rc = var_of(blob, size, io, id, &hdr, &e))) return rc;
    uint32_t state;
    memcpy(&state, hdr, 4);
    if (state > 1) return K_E_INVALID;
    uint8_t *value = hdr + 8;
    void *p;
    if (kind == K_OP_ASSIGN_VARIABLE) {
        /* the value must be exactly the variable's size (TFLite Micro checks it in debug builds) */
        if (io->n_in < 2 || !io->in[1] || io->in_size[1] != e.bytes) return K_E_INVALID;
        memmove(value, io->in[1], e.bytes);
    } else {
        if (io->n_out < 1 || !io->out[0] || io->out_size[0] != e.bytes) return K_E_INVALID;
        if ((rc = k_op_out(io, 0, e.bytes, 1, &p))) return rc;
        if (!state) memset(value, (int)(uint8_t)e.fill, e.bytes);
        memcpy(p, value, e.bytes);
    }
    state = 1;
    memcpy(hdr, &state, 4);
    return K_OK;
}

static int var_handle_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_var_handle_blob b;
    K_OP_LOAD(b, blob, size);
    if (b.id < 0) return K_E_INVALID;
    if (!io) return K_OK;
    void *p;
    int rc = k_op_out(io, 0, 4, 4, &p);
    if (!rc) memcpy(p, &b.id, 4);
    return rc;
}

/* ---- programs ---- */

static int ctl(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io, int depth, uint32_t *runs);

/* A program op's own blob: a control kind nests (one level deeper). With
 * io, runs counts the op runs and loop iterations of the invocation so
 * far (K_CTL_MAX_RUNS); without (checking), it is not used. */
static int run_child(uint32_t kind, const uint8_t *params, uint32_t params_size, const k_op_io *io, int depth,
                     uint32_t *runs)
{
    if (io && ++*runs > K_CTL_MAX_RUNS) return K_E_UNSUPPORTED;
    if (kind == K_OP_CALL_ONCE || kind == K_OP_IF || kind == K_OP_WHILE) {
        if (((uintptr_t)params & 3u) != 0 || params_size < 4) return K_E_INVALID;
        return ctl(kind, params, params_size, io, depth + 1, runs);
    }
    return io ? k_op_run(kind, params, params_size, io) : k_op_validate(kind, params, params_size);
}

/* Checks program `off` of the control blob (everything but tensor data). */
static int prog_check(const uint8_t *blob, uint32_t size, const k_op_ctl_blob *c, uint32_t off, int depth,
                      k_op_prog *pg)
{
    if (off % 8u != 0 || !k_op_array(blob, size, off, 1, sizeof *pg)) return K_E_INVALID;
    memcpy(pg, blob + off, sizeof *pg);
    if (pg->n_tensors < 0 || pg->n_ops < 0 || pg->n_inputs < 0 || pg->n_outputs < 0) return K_E_INVALID;
    if (pg->n_tensors > (1 << 20) || pg->n_ops > (1 << 20) || pg->n_inputs > K_CTL_MAX_OPERANDS ||
        pg->n_outputs > K_CTL_MAX_OPERANDS)
        return K_E_INVALID;
    const k_op_prog_tensor *t = k_op_array(blob, size, pg->tensors_off, (uint64_t)pg->n_tensors, sizeof *t);
    const k_op_prog_op *o = k_op_array(blob, size, pg->ops_off, (uint64_t)pg->n_ops, sizeof *o);
    const int32_t *pin = k_op_array(blob, size, pg->inputs_off, (uint64_t)pg->n_inputs, 4);
    const int32_t *pout = k_op_array(blob, size, pg->outputs_off, (uint64_t)pg->n_outputs, 4);
    if (!t || !o || !pin || !pout) return K_E_INVALID;
    for (int32_t i = 0; i < pg->n_tensors; i++) {
        k_op_prog_tensor x;
        memcpy(&x, &t[i], sizeof x);
        if (x.where == K_PROG_SLOT) {
            if (x.off % 8u != 0 || (uint64_t)x.off + x.size > c->tensor_bytes) return K_E_INVALID;
        } else if (x.where == K_PROG_CONST) {
            if (x.off % 8u != 0 || (uint64_t)x.off + x.size > size) return K_E_INVALID;
        } else if (x.where != K_PROG_ABSENT) {
            return K_E_INVALID;
        }
    }
    for (int32_t i = 0; i < pg->n_inputs + pg->n_outputs; i++) {
        int32_t v;
        memcpy(&v, i < pg->n_inputs ? &pin[i] : &pout[i - pg->n_inputs], 4);
        if (v < 0 || v >= pg->n_tensors) return K_E_INVALID;
        k_op_prog_tensor x;
        memcpy(&x, &t[v], sizeof x);
        /* inputs are written by the op: slots; outputs: slots or constants */
        if (x.where != K_PROG_SLOT && (i < pg->n_inputs || x.where != K_PROG_CONST)) return K_E_INVALID;
    }
    for (int32_t i = 0; i < pg->n_ops; i++) {
        k_op_prog_op x;
        memcpy(&x, &o[i], sizeof x);
        if (x.n_in < 0 || x.n_out < 0 || x.n_in > K_CTL_MAX_OPERANDS || x.n_out > K_CTL_MAX_OPERANDS ||
            x.n_in + x.n_out > K_CTL_MAX_OPERANDS)
            return K_E_INVALID;
        if (x.params_off % 8u != 0 || x.params_size < 4 || !k_op_array(blob, size, x.params_off, x.params_size, 1))
            return K_E_INVALID;
        /* a program's blob lies after the control header: nesting shrinks */
        if (x.params_off < sizeof(k_op_ctl_blob)) return K_E_INVALID;
        if ((uint64_t)x.scratch_size > (uint64_t)c->scratch_bytes - c->tensor_bytes) return K_E_INVALID;
        if ((uint64_t)x.persist_off + x.persist_size > c->persist_bytes || (x.persist_size && x.persist_off < 8) ||
            x.persist_off % 8u != 0)
            return K_E_INVALID;
        const int32_t *ops = k_op_array(blob, size, x.operands_off, (uint64_t)(x.n_in + x.n_out), 4);
        if (!ops) return K_E_INVALID;
        for (int32_t k = 0; k < x.n_in + x.n_out; k++) {
            int32_t v;
            memcpy(&v, &ops[k], 4);
            if (v < -1 || v >= pg->n_tensors) return K_E_INVALID;
            if (k >= x.n_in && v >= 0) { /* outputs are slots */
                k_op_prog_tensor y;
                memcpy(&y, &t[v], sizeof y);
                if (y.where != K_PROG_SLOT) return K_E_INVALID;
            }
        }
        int rc = run_child(x.kind, blob + x.params_off, x.params_size, NULL, depth, NULL);
        if (rc) return rc;
    }
    return K_OK;
}

static void *tensor_ptr(const uint8_t *blob, const k_op_io *io, const k_op_prog_tensor *x)
{
    if (x->where == K_PROG_SLOT) return (uint8_t *)io->scratch + x->off;
    if (x->where == K_PROG_CONST) return (void *)(uintptr_t)(blob + x->off);
    return NULL;
}

static int prog_run(const uint8_t *blob, uint32_t off, const k_op_ctl_blob *c, const k_op_io *io, int depth,
                    uint32_t *runs)
{
    k_op_prog pg;
    memcpy(&pg, blob + off, sizeof pg);
    const k_op_prog_tensor *t = (const k_op_prog_tensor *)(const void *)(blob + pg.tensors_off);
    const k_op_prog_op *o = (const k_op_prog_op *)(const void *)(blob + pg.ops_off);
    for (int32_t i = 0; i < pg.n_ops; i++) {
        k_op_prog_op x;
        memcpy(&x, &o[i], sizeof x);
        const int32_t *ops = (const int32_t *)(const void *)(blob + x.operands_off);
        void *ptr[K_CTL_MAX_OPERANDS];
        uint32_t sz[K_CTL_MAX_OPERANDS];
        for (int32_t k = 0; k < x.n_in + x.n_out; k++) {
            int32_t v;
            memcpy(&v, &ops[k], 4);
            ptr[k] = NULL;
            sz[k] = 0;
            if (v < 0) continue;
            k_op_prog_tensor y;
            memcpy(&y, &t[v], sizeof y);
            ptr[k] = tensor_ptr(blob, io, &y);
            sz[k] = ptr[k] ? y.size : 0;
        }
        k_op_io cio;
        memset(&cio, 0, sizeof cio);
        cio.in = ptr;
        cio.in_size = sz;
        cio.n_in = x.n_in;
        cio.out = ptr + x.n_in;
        cio.out_size = sz + x.n_in;
        cio.n_out = x.n_out;
        cio.scratch = (uint8_t *)io->scratch + c->tensor_bytes;
        cio.scratch_size = c->scratch_bytes - c->tensor_bytes;
        if (x.persist_size) {
            cio.persistent = (uint8_t *)io->persistent + x.persist_off;
            cio.persistent_size = x.persist_size;
        }
        cio.vars = io->vars;
        cio.vars_size = io->vars_size;
        int rc = run_child(x.kind, blob + x.params_off, x.params_size, &cio, depth, runs);
        /* an op that ends the invocation early (CIRCULAR_BUFFER) has no
         * meaning inside a subgraph run: refused */
        if (rc) return rc == K_OP_NOT_READY ? K_E_UNSUPPORTED : rc;
    }
    return K_OK;
}

/* Copies n buffers src[k] -> the program's input / output tensors (to_prog)
 * or the program's outputs -> dst[k]. Sizes must agree. */
static int copy_in(const uint8_t *blob, const k_op_prog *pg, const k_op_io *io, void *const *src, const uint32_t *ssz,
                   int32_t n)
{
    if (n != pg->n_inputs) return K_E_INVALID;
    const k_op_prog_tensor *t = (const k_op_prog_tensor *)(const void *)(blob + pg->tensors_off);
    const int32_t *pin = (const int32_t *)(const void *)(blob + pg->inputs_off);
    for (int32_t k = 0; k < n; k++) {
        int32_t v;
        k_op_prog_tensor x;
        memcpy(&v, &pin[k], 4);
        memcpy(&x, &t[v], sizeof x);
        if (!src[k] || ssz[k] != x.size) return K_E_INVALID;
        memmove((uint8_t *)io->scratch + x.off, src[k], x.size);
    }
    return K_OK;
}

static int copy_out(const uint8_t *blob, const k_op_prog *pg, const k_op_io *io, void *const *dst, const uint32_t *dsz,
                    int32_t n)
{
    if (pg->n_outputs == 0) return K_OK; /* as TFLite Micro: nothing to copy */
    if (n != pg->n_outputs) return K_E_INVALID;
    const k_op_prog_tensor *t = (const k_op_prog_tensor *)(const void *)(blob + pg->tensors_off);
    const int32_t *pout = (const int32_t *)(const void *)(blob + pg->outputs_off);
    for (int32_t k = 0; k < n; k++) {
        int32_t v;
        k_op_prog_tensor x;
        memcpy(&v, &pout[k], 4);
        memcpy(&x, &t[v], sizeof x);
        if (!dst[k] || dsz[k] != x.size) return K_E_INVALID;
        memmove(dst[k], tensor_ptr(blob, io, &x), x.size);
    }
    return K_OK;
}

/* The first byte of program output 0 (WHILE cond: a bool). */
static int cond_value(const uint8_t *blob, const k_op_prog *pg, const k_op_io *io, bool *v)
{
    if (pg->n_outputs < 1) return K_E_INVALID;
    const k_op_prog_tensor *t = (const k_op_prog_tensor *)(const void *)(blob + pg->tensors_off);
    int32_t i;
    k_op_prog_tensor x;
    memcpy(&i, blob + pg->outputs_off, 4);
    memcpy(&x, &t[i], sizeof x);
    if (x.size < 1) return K_E_INVALID;
    *v = *(const uint8_t *)tensor_ptr(blob, io, &x) != 0;
    return K_OK;
}

static int ctl(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io, int depth, uint32_t *runs)
{
    if (depth > K_CTL_MAX_DEPTH) return K_E_INVALID;
    k_op_ctl_blob c;
    K_OP_LOAD(c, blob, size);
    const int32_t want = kind == K_OP_CALL_ONCE ? 1 : 2;
    if (c.n_prog != want || c.tensor_bytes % 8u != 0 || c.scratch_bytes < c.tensor_bytes ||
        c.scratch_bytes > (uint32_t)INT32_MAX || c.persist_bytes < 8 || c.persist_bytes > (uint32_t)INT32_MAX ||
        c.persist_bytes % 8u != 0)
        return K_E_INVALID;
    k_op_prog pg[2];
    for (int32_t p = 0; p < c.n_prog; p++) {
        int rc = prog_check(blob, size, &c, c.prog_off[p], depth, &pg[p]);
        if (rc) return rc;
    }
    if (!io) return K_OK;
    if (c.scratch_bytes && (!io->scratch || io->scratch_size < c.scratch_bytes || ((uintptr_t)io->scratch & 7u)))
        return K_E_INVALID;
    if (!io->persistent || io->persistent_size < c.persist_bytes || ((uintptr_t)io->persistent & 7u)) return K_E_INVALID;
    if (c.vars_bytes && (!io->vars || io->vars_size < c.vars_bytes)) return K_E_INVALID;
    int rc;
    if (kind == K_OP_CALL_ONCE) {
        if (io->n_in != 0 || io->n_out != 0) return K_E_INVALID;
        uint32_t has_run;
        memcpy(&has_run, io->persistent, 4);
        if (has_run) return has_run == 1 ? K_OK : K_E_INVALID;
        if (pg[0].n_inputs) memset(io->scratch, 0, c.tensor_bytes);
        if ((rc = prog_run(blob, c.prog_off[0], &c, io, depth, runs))) return rc;
        has_run = 1;
        memcpy(io->persistent, &has_run, 4);
        return K_OK;
    }
    if (kind == K_OP_IF) {
        void *cp;
        if ((rc = k_op_in(io, 0, 1, 1, &cp))) return rc;
        const int32_t b = *(const uint8_t *)cp ? 0 : 1;
        if ((rc = copy_in(blob, &pg[b], io, io->in + 1, io->in_size + 1, io->n_in - 1))) return rc;
        if ((rc = prog_run(blob, c.prog_off[b], &c, io, depth, runs))) return rc;
        return copy_out(blob, &pg[b], io, io->out, io->out_size, io->n_out);
    }
    /* WHILE: loop variables in the op's outputs between the programs */
    if (io->n_in != io->n_out || pg[1].n_outputs != io->n_out) return K_E_INVALID;
    for (int32_t k = 0; k < io->n_in; k++)
        if (!io->in[k] || !io->out[k] || io->in_size[k] != io->out_size[k]) return K_E_INVALID;
    if ((rc = copy_in(blob, &pg[0], io, io->in, io->in_size, io->n_in))) return rc;
    for (int32_t k = 0; k < io->n_in; k++) memmove(io->out[k], io->in[k], io->in_size[k]);
    if ((rc = prog_run(blob, c.prog_off[0], &c, io, depth, runs))) return rc;
    bool go;
    if ((rc = cond_value(blob, &pg[0], io, &go))) return rc;
    while (go) {
        /* an iteration counts as a run too (its programs may have no ops) */
        if (++*runs > K_CTL_MAX_RUNS) return K_E_UNSUPPORTED;
        if ((rc = copy_in(blob, &pg[1], io, io->out, io->out_size, io->n_out))) return rc;
        if ((rc = prog_run(blob, c.prog_off[1], &c, io, depth, runs))) return rc;
        if ((rc = copy_out(blob, &pg[1], io, io->out, io->out_size, io->n_out))) return rc;
        if ((rc = copy_in(blob, &pg[0], io, io->out, io->out_size, io->n_out))) return rc;
        if ((rc = prog_run(blob, c.prog_off[0], &c, io, depth, runs))) return rc;
        if ((rc = cond_value(blob, &pg[0], io, &go))) return rc;
    }
    return K_OK;
}

int k_op_run_control(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    switch (kind) {
    case K_OP_VAR_HANDLE: return var_handle_run(blob, size, io);
    case K_OP_READ_VARIABLE: case K_OP_ASSIGN_VARIABLE: return var_run(kind, blob, size, io);
    case K_OP_CALL_ONCE: case K_OP_IF: case K_OP_WHILE: {
        uint32_t runs = 0;
        return ctl(kind, blob, size, io, 0, &runs);
    }
    default: return K_E_INVALID;
    }
}
