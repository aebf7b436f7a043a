/* npurt: loading a compiled model. Everything in the blob is checked before
 * anything uses it, so a corrupt or hostile blob gives an error naming the
 * record and byte offset, never an out-of-bounds access. Freestanding. */
#include "npurt/npurt.h"

#include "npurt_int.h"

#include <string.h>

const char *npurt_status_name(int code)
{
    switch (code) {
    case NPURT_OK: return "ok";
    case NPURT_NOT_READY: return "outputs not ready (an op ended the run early)";
    case NPURT_E_FORMAT: return "malformed model";
    case NPURT_E_VERSION: return "unsupported model version";
    case NPURT_E_CRC: return "model checksum mismatch";
    case NPURT_E_ARG: return "bad argument";
    case NPURT_E_MEMORY: return "bad pool memory";
    case NPURT_E_NO_NPU: return "no NPU driver";
    case NPURT_E_NPU: return "NPU error";
    case NPURT_E_KERNEL: return "CPU kernel error";
    case NPURT_E_BUSY: return "busy";
    case NPURT_E_DIGEST: return "model digest mismatch";
    case NPURT_E_SIGNATURE: return "model signature invalid";
    case NPURT_E_TARGET: return "model built for another target";
    default: return "unknown error";
    }
}

int npurt_fail(npurt_error *err, int code, int32_t epoch, int32_t index, uint32_t offset,
               const char *what)
{
    if (err) {
        err->code = code;
        err->epoch = epoch;
        err->index = index;
        err->offset = offset;
        err->detail = 0;
        err->what = what;
    }
    return code;
}

uint32_t npurt_dtype_size(uint8_t dtype)
{
    switch (dtype) {
    case NPURT_DT_INT8: case NPURT_DT_UINT8: case NPURT_DT_BOOL: return 1;
    case NPURT_DT_INT16: case NPURT_DT_UINT16: return 2;
    case NPURT_DT_INT32: case NPURT_DT_FLOAT32: case NPURT_DT_UINT32: return 4;
    case NPURT_DT_INT64: case NPURT_DT_UINT64: return 8;
    default: return 0;
    }
}

/* [off, off + n * rec) inside [0, size) and aligned to `align`. */
static bool table_ok(uint32_t off, uint32_t n, uint32_t rec, uint32_t align, uint32_t size)
{
    if (off % align) return false;
    uint64_t end = (uint64_t)off + (uint64_t)n * rec;
    return end <= size;
}

static bool range_ok(uint32_t off, uint32_t len, uint32_t limit)
{
    return (uint64_t)off + len <= limit;
}

static bool name_ok(const npurt_header *h, uint32_t off)
{
    return off == NPURT_NO_NAME || off < h->strings_size;
}

#define FAIL(code, idx, off, what) npurt_fail(err, code, -1, idx, off, what)
#define EFAIL(e, off, what) npurt_fail(err, NPURT_E_FORMAT, (int32_t)(e), -1, off, what)

static int check_tensors(const npurt_model *m, npurt_error *err)
{
    const npurt_header *h = m->h;
    for (uint32_t i = 0; i < h->n_tensors; i++) {
        const npurt_tensor_rec *t = &m->tensors[i];
        uint32_t at = h->tensors_off + i * (uint32_t)sizeof *t;
        if (t->pool >= h->n_pools) return FAIL(NPURT_E_FORMAT, (int32_t)i, at, NPURT_TEXT("tensor pool index out of range"));
        uint32_t es = npurt_dtype_size(t->dtype);
        if (!es) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 1, NPURT_TEXT("tensor element type unknown"));
        if (t->rank > NPURT_MAX_RANK) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 2, NPURT_TEXT("tensor rank above 6"));
        uint64_t n = es;
        for (uint32_t d = 0; d < t->rank; d++) {
            if (t->shape[d] < 0) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 20 + 4 * d, NPURT_TEXT("negative tensor dimension"));
            n *= (uint64_t)t->shape[d];
            if (n > 0xFFFFFFFFu) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 20 + 4 * d, NPURT_TEXT("tensor too large"));
        }
        if (n != t->size) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 8, NPURT_TEXT("tensor byte size does not match its shape"));
        if (!range_ok(t->offset, t->size, m->pools[t->pool].size))
            return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 4, NPURT_TEXT("tensor lies outside its pool"));
        if ((t->flags & (NPURT_T_INPUT | NPURT_T_OUTPUT | NPURT_T_VARIABLE)) &&
            m->pools[t->pool].kind == NPURT_POOL_PARAMS)
            return FAIL(NPURT_E_FORMAT, (int32_t)i, at, NPURT_TEXT("input, output or variable tensor in the read-only pool"));
        if (!name_ok(h, t->name_off)) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 44, NPURT_TEXT("tensor name outside the string table"));
    }
    return NPURT_OK;
}

static int check_epochs(const npurt_model *m, npurt_error *err)
{
    const npurt_header *h = m->h;
    int pp = m->pool_of_kind[NPURT_POOL_PARAMS], pa = m->pool_of_kind[NPURT_POOL_ACTIVATIONS];
    int ps = m->pool_of_kind[NPURT_POOL_STATE];
    uint32_t psize = pp >= 0 ? m->pools[pp].size : 0, asize = pa >= 0 ? m->pools[pa].size : 0;
    uint32_t ssize = ps >= 0 ? m->pools[ps].size : 0;
    for (uint32_t i = 0; i < h->n_epochs; i++) {
        const npurt_epoch_rec *e = &m->epochs[i];
        uint32_t at = h->epochs_off + i * (uint32_t)sizeof *e;
        if (e->kind == NPURT_EPOCH_HW) {
            if (!h->npu_config) return EFAIL(i, at, NPURT_TEXT("HW epoch in a model without an NPU configuration"));
            if (pp < 0 || pa < 0) return EFAIL(i, at, NPURT_TEXT("HW epoch needs a params and an activation pool"));
            if (e->cmd_off % NPURT_ALIGN || e->cmd_size % 4 || !e->cmd_size || !range_ok(e->cmd_off, e->cmd_size, psize))
                return EFAIL(i, at + 12, NPURT_TEXT("HW epoch command payload outside the params pool or misaligned"));
            if (e->flash_off % NPURT_ALIGN || !range_ok(e->flash_off, e->flash_size, psize))
                return EFAIL(i, at + 20, NPURT_TEXT("HW epoch constants outside the params pool or misaligned"));
        } else if (e->kind == NPURT_EPOCH_SW || e->kind == NPURT_EPOCH_HYBRID) {
            if (e->n_in + e->n_out > NPURT_MAX_OPERANDS) return EFAIL(i, at + 1, NPURT_TEXT("SW epoch has too many operands"));
            if ((uint64_t)e->refs + e->n_in + e->n_out > h->n_refs) return EFAIL(i, at + 44, NPURT_TEXT("SW epoch operands outside the ref table"));
            if (pp < 0 || e->params_off % 8 || !range_ok(e->params_off, e->params_size, psize))
                return EFAIL(i, at + 36, NPURT_TEXT("SW epoch parameters outside the params pool or misaligned"));
            if (e->scratch_size && (pa < 0 || e->scratch_off % 8 || !range_ok(e->scratch_off, e->scratch_size, asize)))
                return EFAIL(i, at + 48, NPURT_TEXT("SW epoch scratch outside the activation pool"));
            if (e->persist_size && (ps < 0 || e->persist_off % 8 || !range_ok(e->persist_off, e->persist_size, ssize)))
                return EFAIL(i, at + 56, NPURT_TEXT("SW epoch persistent buffer outside the state pool"));
            for (uint32_t k = 0; k < (uint32_t)e->n_in + e->n_out; k++) {
                int32_t t = m->refs[e->refs + k];
                if (t < -1 || t >= (int32_t)h->n_tensors) return EFAIL(i, h->refs_off + 4 * (e->refs + k), NPURT_TEXT("SW epoch operand is not a tensor"));
                if (k >= e->n_in && (t < 0 || m->pools[m->tensors[t].pool].kind == NPURT_POOL_PARAMS))
                    return EFAIL(i, h->refs_off + 4 * (e->refs + k), NPURT_TEXT("SW epoch output missing or in the read-only pool"));
            }
        } else {
            return EFAIL(i, at, NPURT_TEXT("unknown epoch kind"));
        }
    }
    return NPURT_OK;
}

int npurt_model_load(npurt_model *m, const void *blob, size_t size, npurt_error *err)
{
    return npurt_model_load_ex(m, blob, size, true, err);
}

int npurt_model_load_ex(npurt_model *m, const void *blob, size_t size, bool check_crc, npurt_error *err)
{
    if (!m || !blob) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("NULL model or blob"));
    memset(m, 0, sizeof *m);
    const uint8_t *b = blob;
    if ((uintptr_t)b % NPURT_ALIGN) return FAIL(NPURT_E_ARG, -1, 0, NPURT_TEXT("model blob not 16-byte aligned"));
    if (size < sizeof(npurt_header)) return FAIL(NPURT_E_FORMAT, -1, 0, NPURT_TEXT("blob shorter than the header"));
    const npurt_header *h = (const npurt_header *)b;
    if (h->magic != NPURT_MAGIC) return FAIL(NPURT_E_FORMAT, -1, 0, NPURT_TEXT("not an npuc compiled model (bad magic)"));
    if (h->version_major != NPURT_VERSION_MAJOR) return FAIL(NPURT_E_VERSION, -1, 4, NPURT_TEXT("format major version not supported"));
    if (h->size > size || h->size < sizeof *h || h->size % NPURT_ALIGN)
        return FAIL(NPURT_E_FORMAT, -1, 8, NPURT_TEXT("header size field does not match the blob"));
    if (check_crc && npurt_format_crc32(b + 16, h->size - 16) != h->crc32) return FAIL(NPURT_E_CRC, -1, 12, NPURT_TEXT("checksum mismatch"));
    uint32_t n = h->size;
    /* a flag this reader does not know changes what the model means */
    if (h->flags & ~NPURT_F_KNOWN) return FAIL(NPURT_E_FORMAT, -1, 24, NPURT_TEXT("unknown header flag"));
    if (h->n_pools > NPURT_MAX_POOLS) return FAIL(NPURT_E_FORMAT, -1, 32, NPURT_TEXT("more than 8 pools"));
    if (!table_ok(h->pools_off, h->n_pools, sizeof(npurt_pool_rec), 4, n)) return FAIL(NPURT_E_FORMAT, -1, 48, NPURT_TEXT("pool table outside the blob"));
    if (!table_ok(h->tensors_off, h->n_tensors, sizeof(npurt_tensor_rec), 4, n)) return FAIL(NPURT_E_FORMAT, -1, 52, NPURT_TEXT("tensor table outside the blob"));
    if (!table_ok(h->epochs_off, h->n_epochs, sizeof(npurt_epoch_rec), 4, n)) return FAIL(NPURT_E_FORMAT, -1, 56, NPURT_TEXT("epoch table outside the blob"));
    if (!table_ok(h->io_off, (uint32_t)h->n_inputs + h->n_outputs, 4, 4, n)) return FAIL(NPURT_E_FORMAT, -1, 60, NPURT_TEXT("input/output table outside the blob"));
    if (!table_ok(h->refs_off, h->n_refs, 4, 4, n)) return FAIL(NPURT_E_FORMAT, -1, 64, NPURT_TEXT("ref table outside the blob"));
    if (!range_ok(h->strings_off, h->strings_size, n)) return FAIL(NPURT_E_FORMAT, -1, 68, NPURT_TEXT("string table outside the blob"));
    if (h->strings_size && b[h->strings_off + h->strings_size - 1] != 0)
        return FAIL(NPURT_E_FORMAT, -1, h->strings_off + h->strings_size - 1, NPURT_TEXT("string table not NUL-terminated"));
    if (!name_ok(h, h->name_off)) return FAIL(NPURT_E_FORMAT, -1, 28, NPURT_TEXT("model name outside the string table"));
    /* the target record (minor 1) is for tools; the runtime skips it, but
     * it must point into the string table like every other name */
    if (h->target_off && !name_ok(h, h->target_off)) return FAIL(NPURT_E_FORMAT, -1, 76, NPURT_TEXT("target record outside the string table"));
    m->blob = b;
    m->size = n;
    m->h = h;
    m->pools = (const npurt_pool_rec *)(b + h->pools_off);
    m->tensors = (const npurt_tensor_rec *)(b + h->tensors_off);
    m->epochs = (const npurt_epoch_rec *)(b + h->epochs_off);
    m->io = (const int32_t *)(b + h->io_off);
    m->refs = (const int32_t *)(b + h->refs_off);
    m->strings = (const char *)(b + h->strings_off);
    for (int k = 0; k < 4; k++) m->pool_of_kind[k] = -1;
    for (uint32_t i = 0; i < h->n_pools; i++) {
        const npurt_pool_rec *p = &m->pools[i];
        uint32_t at = h->pools_off + i * (uint32_t)sizeof *p;
        if (p->kind > NPURT_POOL_STATE) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 4, NPURT_TEXT("unknown pool kind"));
        if (m->pool_of_kind[p->kind] >= 0) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 4, NPURT_TEXT("two pools of one kind"));
        m->pool_of_kind[p->kind] = (int8_t)i;
        if (p->kind == NPURT_POOL_PARAMS && (h->flags & NPURT_F_EXTERNAL_PARAMS)) {
            if (p->data_off || p->data_size)
                return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 8, NPURT_TEXT("external params pool with data in the blob"));
        } else if (p->kind == NPURT_POOL_PARAMS) {
            if (p->data_size != p->size || p->data_off % NPURT_ALIGN || !range_ok(p->data_off, p->data_size, n))
                return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 8, NPURT_TEXT("params pool data outside the blob"));
        } else if (p->data_off || p->data_size) {
            return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 8, NPURT_TEXT("read-write pool with initial data"));
        }
        if (!name_ok(h, p->name_off)) return FAIL(NPURT_E_FORMAT, (int32_t)i, at + 16, NPURT_TEXT("pool name outside the string table"));
    }
    int rc = check_tensors(m, err);
    if (rc) return rc;
    /* minor 2: the resource-variable area, inside the state pool */
    if (h->vars_size) {
        int ps = m->pool_of_kind[NPURT_POOL_STATE];
        if (ps < 0 || h->vars_off % 8 || !range_ok(h->vars_off, h->vars_size, m->pools[ps].size))
            return FAIL(NPURT_E_FORMAT, -1, 80, NPURT_TEXT("resource-variable area outside the state pool"));
    }
    /* minor 3: the area's initial contents, inside the params pool */
    if (h->flags & NPURT_F_VARS_INIT) {
        int pp = m->pool_of_kind[NPURT_POOL_PARAMS];
        if (!h->vars_size || pp < 0 || h->vars_init_off % NPURT_ALIGN ||
            !range_ok(h->vars_init_off, h->vars_size, m->pools[pp].size))
            return FAIL(NPURT_E_FORMAT, -1, 88, NPURT_TEXT("resource-variable initial values outside the params pool"));
    }
    for (uint32_t i = 0; i < (uint32_t)h->n_inputs + h->n_outputs; i++) {
        int32_t t = m->io[i];
        if (t < 0 || t >= (int32_t)h->n_tensors) return FAIL(NPURT_E_FORMAT, (int32_t)i, h->io_off + 4 * i, NPURT_TEXT("model input/output is not a tensor"));
        uint8_t want = i < h->n_inputs ? NPURT_T_INPUT : NPURT_T_OUTPUT;
        if (!(m->tensors[t].flags & want)) return FAIL(NPURT_E_FORMAT, (int32_t)i, h->io_off + 4 * i, NPURT_TEXT("model input/output tensor not flagged as such"));
    }
    return check_epochs(m, err);
}

uint32_t npurt_epoch_slots(const npurt_epoch_rec *e)
{
    return e->kind == NPURT_EPOCH_HW ? 4u : 3u + e->n_in + e->n_out;
}

uint32_t npurt_model_slots(const npurt_model *m)
{
    if (!m || !m->h) return 0;
    uint32_t n = (uint32_t)m->h->n_inputs + m->h->n_outputs;
    for (uint32_t i = 0; i < m->h->n_epochs; i++) n += npurt_epoch_slots(&m->epochs[i]);
    return n;
}

const char *npurt_model_string(const npurt_model *m, uint32_t off)
{
    if (!m || !m->h || off == NPURT_NO_NAME || off >= m->h->strings_size) return "";
    return m->strings + off;
}

const char *npurt_model_name(const npurt_model *m) { return m && m->h ? npurt_model_string(m, m->h->name_off) : ""; }

uint32_t npurt_model_pool_size(const npurt_model *m, unsigned kind)
{
    if (!m || !m->h || kind > NPURT_POOL_STATE || m->pool_of_kind[kind] < 0) return 0;
    return m->pools[m->pool_of_kind[kind]].size;
}

uint32_t npurt_model_n_inputs(const npurt_model *m) { return m && m->h ? m->h->n_inputs : 0; }
uint32_t npurt_model_n_outputs(const npurt_model *m) { return m && m->h ? m->h->n_outputs : 0; }

const npurt_tensor_rec *npurt_model_input(const npurt_model *m, uint32_t i)
{
    if (!m || !m->h || i >= m->h->n_inputs) return NULL;
    return &m->tensors[m->io[i]];
}

const npurt_tensor_rec *npurt_model_output(const npurt_model *m, uint32_t i)
{
    if (!m || !m->h || i >= m->h->n_outputs) return NULL;
    return &m->tensors[m->io[m->h->n_inputs + i]];
}
