/* npurt: binding a model to memory and walking its epochs. Freestanding. */
#include "npurt/npurt.h"

#include "npurt_int.h"
#include "kernels/k_op.h"

#ifndef NPURT_KERNELS_WEAK
#define NPURT_KERNELS_WEAK 0
#endif
#if NPURT_KERNELS_WEAK
/* The MCU build: a weak reference, so that a firmware links every kernel
 * only when it names k_op_all_families itself (docs/embedded.md). */
extern const k_op_family_fn k_op_all_families[K_OP_FAM_COUNT] __attribute__((weak));
#endif
#include "ethosu_driver.h"
#include "pmu_ethosu.h"

#include <string.h>

__attribute__((weak)) uint64_t npurt_cpu_cycles(void) { return 0; }
__attribute__((weak)) void npurt_epoch_hook(npurt_instance *inst, uint32_t epoch)
{
    (void)inst;
    (void)epoch;
}

static bool overlaps(const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb)
{
    if (!a || !b || !na || !nb) return false;
    return a < b + nb && b < a + na;
}

static void zero_variables(npurt_instance *inst)
{
    const npurt_model *m = inst->model;
    int ps = m->pool_of_kind[NPURT_POOL_STATE];
    if (ps >= 0 && inst->base[ps]) memset(inst->base[ps], 0, inst->size[ps]);
    /* minor 3: the resource variables start as the folded CALL_ONCE
     * initialisers left them (checked at load to lie inside both pools) */
    int pp = m->pool_of_kind[NPURT_POOL_PARAMS];
    if ((m->h->flags & NPURT_F_VARS_INIT) && m->h->vars_size && ps >= 0 && pp >= 0 && inst->base[ps] && inst->base[pp])
        memcpy(inst->base[ps] + m->h->vars_off, inst->base[pp] + m->h->vars_init_off, m->h->vars_size);
    for (uint32_t t = 0; t < m->h->n_tensors; t++) {
        const npurt_tensor_rec *r = &m->tensors[t];
        /* As TFLite Micro's ResetVariableTensors: int8 state starts at its
         * zero point (real 0), other types at 0 bytes. */
        if ((r->flags & NPURT_T_VARIABLE) && m->pools[r->pool].kind != NPURT_POOL_PARAMS)
            memset(inst->base[r->pool] + r->offset, r->dtype == NPURT_DT_INT8 ? (int)(int8_t)r->zero_point : 0,
                   r->size);
    }
}

int npurt_init(npurt_instance *inst, const npurt_model *m, const npurt_memory *mem,
               npurt_error *err)
{
    if (!inst || !m || !m->h || !mem) return npurt_fail(err, NPURT_E_ARG, -1, -1, 0, NPURT_TEXT("NULL instance, model or memory"));
    memset(inst, 0, sizeof *inst);
    inst->model = m;
    inst->err.epoch = -1;
    inst->err.index = -1;
    for (uint32_t i = 0; i < m->h->n_pools; i++) {
        const npurt_pool_rec *p = &m->pools[i];
        uint8_t *base = NULL;
        uint32_t avail = 0;
        switch (p->kind) {
        case NPURT_POOL_PARAMS:
            if (!mem->params && (m->h->flags & NPURT_F_EXTERNAL_PARAMS))
                return npurt_fail(err, NPURT_E_MEMORY, -1, (int32_t)i, 0, NPURT_TEXT("the model's params are external and none were given"));
            base = (uint8_t *)(uintptr_t)(mem->params ? mem->params : m->blob + p->data_off);
            avail = p->size;
            break;
        case NPURT_POOL_ACTIVATIONS:
            base = mem->activations;
            avail = mem->activations_size;
            break;
        case NPURT_POOL_FAST:
            base = mem->fast;
            avail = mem->fast_size;
            break;
        default:
            base = mem->state;
            avail = mem->state_size;
            break;
        }
        if (p->size && !base) return npurt_fail(err, NPURT_E_MEMORY, -1, (int32_t)i, 0, NPURT_TEXT("no memory given for a pool the model needs"));
        if (p->size && (uintptr_t)base % NPURT_ALIGN) return npurt_fail(err, NPURT_E_MEMORY, -1, (int32_t)i, 0, NPURT_TEXT("pool memory not 16-byte aligned"));
        if (avail < p->size) return npurt_fail(err, NPURT_E_MEMORY, -1, (int32_t)i, 0, NPURT_TEXT("pool memory smaller than the model needs"));
        inst->base[i] = base;
        inst->size[i] = p->size;
    }
    for (uint32_t i = 0; i < m->h->n_pools; i++)
        for (uint32_t j = i + 1; j < m->h->n_pools; j++) {
            if (m->pools[i].kind == NPURT_POOL_PARAMS && m->pools[j].kind == NPURT_POOL_PARAMS) continue;
            if (overlaps(inst->base[i], inst->size[i], inst->base[j], inst->size[j]))
                return npurt_fail(err, NPURT_E_MEMORY, -1, (int32_t)j, 0, NPURT_TEXT("two pools overlap"));
        }
    zero_variables(inst);
    return NPURT_OK;
}

void npurt_reset_state(npurt_instance *inst)
{
    if (inst && inst->model) zero_variables(inst);
}

static void *tensor_data(npurt_instance *inst, int32_t t, uint32_t *size)
{
    const npurt_tensor_rec *r = &inst->model->tensors[t];
    if (size) *size = r->size;
    return inst->base[r->pool] + r->offset;
}

/* The address-table pointer of slot k (NULL for an empty slot). */
static void *slot_ptr(const npurt_instance *inst, uint32_t k)
{
    return (void *)(uintptr_t)inst->addr[k];
}

/* Input or output j (inputs first) of the io table. */
static void *io_data(npurt_instance *inst, uint32_t j, uint32_t *size)
{
    void *p = tensor_data(inst, inst->model->io[j], size);
    return inst->addr_io ? (void *)(uintptr_t)inst->addr_io[j] : p;
}

void *npurt_input(npurt_instance *inst, uint32_t i, uint32_t *size)
{
    if (!inst || !inst->model || i >= inst->model->h->n_inputs) return NULL;
    return io_data(inst, i, size);
}

void *npurt_output(npurt_instance *inst, uint32_t i, uint32_t *size)
{
    if (!inst || !inst->model || i >= inst->model->h->n_outputs) return NULL;
    return io_data(inst, inst->model->h->n_inputs + i, size);
}

void npurt_set_callback(npurt_instance *inst, npurt_callback cb, void *user)
{
    if (!inst) return;
    inst->cb = cb;
    inst->cb_user = user;
}

static int epoch_fail(npurt_instance *inst, int code, uint32_t epoch, int32_t detail, const char *what)
{
    npurt_fail(&inst->err, code, (int32_t)epoch, -1, inst->model->h->epochs_off + epoch * (uint32_t)sizeof(npurt_epoch_rec), what);
    inst->err.detail = detail;
    return code;
}

static int run_hw(npurt_instance *inst, uint32_t i, const npurt_epoch_rec *e, uint32_t slot,
                  npurt_epoch_profile *pr)
{
    const npurt_model *m = inst->model;
    int pp = m->pool_of_kind[NPURT_POOL_PARAMS], pa = m->pool_of_kind[NPURT_POOL_ACTIVATIONS];
    int pf = m->pool_of_kind[NPURT_POOL_FAST];
    uint64_t t0 = npurt_cpu_cycles();
    npurt_sched_acquire(inst, NPURT_SCHED_EPOCH);
    struct ethosu_driver *drv = inst->drv;
    bool reserved = false;
    if (!drv) {
        drv = ethosu_reserve_driver();
        reserved = drv != NULL;
    }
    if (!drv) {
        npurt_sched_release(inst, NPURT_SCHED_EPOCH);
        return epoch_fail(inst, NPURT_E_NO_NPU, i, 0, NPURT_TEXT("no NPU driver available for a HW epoch"));
    }
    const uint8_t *params = inst->base[pp];
    const uint8_t *cmd = params + e->cmd_off;
    uint64_t base_addr[3];
    size_t base_size[3];
    /* an epoch without constants still gets a valid region 0 pointer */
    base_addr[0] = (uint64_t)(uintptr_t)(e->flash_size ? params + e->flash_off : params);
    base_size[0] = e->flash_size;
    base_addr[1] = (uint64_t)(uintptr_t)inst->base[pa];
    base_size[1] = inst->size[pa];
    if (pf >= 0 && inst->size[pf]) {
        base_addr[2] = (uint64_t)(uintptr_t)inst->base[pf];
        base_size[2] = inst->size[pf];
    } else {
        base_addr[2] = base_addr[1];
        base_size[2] = base_size[1];
    }
    if (inst->addr) {         /* an installed model: the relocated pointers */
        cmd = slot_ptr(inst, slot);
        for (int r = 0; r < 3; r++) base_addr[r] = inst->addr[slot + 1 + (uint32_t)r];
    }
    ETHOSU_PMU_Enable(drv);
    ETHOSU_PMU_CNTR_Enable(drv, ETHOSU_PMU_CCNT_Msk);
    ETHOSU_PMU_CYCCNT_Reset(drv);
    uint64_t t1 = npurt_cpu_cycles();
    int rc;
    if (inst->wait == NPURT_WAIT_POLL) {
        rc = ethosu_invoke_async(drv, cmd, (int)e->cmd_size, base_addr, base_size, 3, inst);
        if (rc == 0) {
            do rc = ethosu_wait(drv, false);
            while (rc == 1);
        }
    } else {
        rc = ethosu_invoke_v3(drv, cmd, (int)e->cmd_size, base_addr, base_size, 3, inst);
    }
    uint64_t t2 = npurt_cpu_cycles();
    uint64_t npu = ETHOSU_PMU_Get_CCNTR(drv);
    ETHOSU_PMU_Disable(drv);
    if (reserved) ethosu_release_driver(drv);
    npurt_sched_release(inst, NPURT_SCHED_EPOCH);
    if (pr) {
        pr->pre = t1 - t0;
        pr->hw = t2 - t1;
        pr->post = npurt_cpu_cycles() - t2;
        pr->npu_cycles = npu;
    }
    if (rc != 0) return epoch_fail(inst, NPURT_E_NPU, i, rc, NPURT_TEXT("the NPU run failed"));
    return NPURT_OK;
}

static int run_sw(npurt_instance *inst, uint32_t i, const npurt_epoch_rec *e, uint32_t slot,
                  npurt_epoch_profile *pr)
{
    const npurt_model *m = inst->model;
    int pp = m->pool_of_kind[NPURT_POOL_PARAMS], pa = m->pool_of_kind[NPURT_POOL_ACTIVATIONS];
    int ps = m->pool_of_kind[NPURT_POOL_STATE];
    uint64_t t0 = npurt_cpu_cycles();
    void *ptr[NPURT_MAX_OPERANDS];
    uint32_t size[NPURT_MAX_OPERANDS];
    uint32_t n = (uint32_t)e->n_in + e->n_out;
    for (uint32_t k = 0; k < n; k++) {
        int32_t t = m->refs[e->refs + k];
        if (t < 0) {
            ptr[k] = NULL;
            size[k] = 0;
        } else {
            ptr[k] = tensor_data(inst, t, &size[k]);
            if (inst->addr) ptr[k] = slot_ptr(inst, slot + 3 + k);
        }
    }
    k_op_io io;
    memset(&io, 0, sizeof io);
    io.in = ptr;
    io.in_size = size;
    io.n_in = e->n_in;
    io.out = ptr + e->n_in;
    io.out_size = size + e->n_in;
    io.n_out = e->n_out;
    if (e->scratch_size) {
        io.scratch = inst->base[pa] + e->scratch_off;
        io.scratch_size = e->scratch_size;
    }
    if (e->persist_size) {
        io.persistent = inst->base[ps] + e->persist_off;
        io.persistent_size = e->persist_size;
    }
    if (m->h->vars_size && ps >= 0) { /* resource variables (format minor 2) */
        io.vars = inst->base[ps] + m->h->vars_off;
        io.vars_size = m->h->vars_size;
    }
    const uint8_t *kparams = inst->base[pp] + e->params_off;
    if (inst->addr) {
        kparams = slot_ptr(inst, slot);
        if (io.scratch) io.scratch = slot_ptr(inst, slot + 1);
        if (io.persistent) io.persistent = slot_ptr(inst, slot + 2);
    }
    /* the instance's kernel table, else every kernel (weakly referenced
     * on the MCU: linked only when the firmware names it) */
    const k_op_family_fn *kt = inst->kernels ? inst->kernels : k_op_all_families;
    uint32_t fam = k_op_family(e->kernel);
    if (fam != K_OP_FAM_NONE && (!kt || !kt[fam]))
        return epoch_fail(inst, NPURT_E_KERNEL, i, K_E_UNSUPPORTED,
                          NPURT_TEXT("the CPU kernel family of this epoch is not in the instance's kernel table "
                                     "(npurt_instance.kernels)"));
    uint64_t t1 = npurt_cpu_cycles();
    int krc = k_op_run_table(kt, e->kernel, kparams, e->params_size, &io);
    uint64_t t2 = npurt_cpu_cycles();
    if (pr) {
        pr->pre = t1 - t0;
        pr->hw = t2 - t1;
        pr->post = 0;
    }
    if (krc == K_OP_NOT_READY) return NPURT_NOT_READY;
    if (krc != K_OK) return epoch_fail(inst, NPURT_E_KERNEL, i, krc, NPURT_TEXT("a CPU kernel rejected its parameters or tensors"));
    return NPURT_OK;
}

int npurt_run(npurt_instance *inst)
{
    if (!inst || !inst->model || !inst->model->h) return NPURT_E_ARG;
    const npurt_model *m = inst->model;
    memset(&inst->err, 0, sizeof inst->err);
    inst->err.epoch = -1;
    inst->err.index = -1;
    inst->epochs_done = 0;
    npurt_sched_acquire(inst, NPURT_SCHED_SERIAL);
    if (inst->cb) inst->cb(inst->cb_user, NPURT_CB_RUN_START, 0);
    int rc = NPURT_OK;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < m->h->n_epochs && rc == NPURT_OK; i++) {
        const npurt_epoch_rec *e = &m->epochs[i];
        npurt_epoch_profile *pr = inst->profile && i < inst->profile_cap ? &inst->profile[i] : NULL;
        if (pr) {
            memset(pr, 0, sizeof *pr);
            pr->kind = e->kind;
            pr->kernel = e->kind == NPURT_EPOCH_HW ? 0 : e->kernel;
        }
        npurt_epoch_hook(inst, i);
        if (inst->cb) inst->cb(inst->cb_user, NPURT_CB_EPOCH_START, i);
        rc = e->kind == NPURT_EPOCH_HW ? run_hw(inst, i, e, slot, pr) : run_sw(inst, i, e, slot, pr);
        if (inst->cb) inst->cb(inst->cb_user, NPURT_CB_EPOCH_END, i);
        if (rc == NPURT_OK || rc == NPURT_NOT_READY) inst->epochs_done++;
        slot += npurt_epoch_slots(e);
    }
    if (inst->cb) inst->cb(inst->cb_user, NPURT_CB_RUN_END, inst->epochs_done);
    npurt_sched_release(inst, NPURT_SCHED_SERIAL);
    inst->runs++;
    return rc;
}
