/* npurt host port: pool mappings for the virtual NPU, error text. */
#include "runtime/host/npurt_host.h"

#include "driver/host/ethosu_host.h"
#include "kernels/k_op.h"

#include <stdio.h>

static bool already_mapped(const uint8_t *p, uint32_t n)
{
    uint64_t a = ethosu_host_bus_address(p), b = ethosu_host_bus_address(p + n - 1);
    return a != UINT64_MAX && b != UINT64_MAX && b - a == (uint64_t)n - 1;
}

int npurt_host_map(const npurt_instance *inst, npuc_err *err)
{
    if (!inst || !inst->model) return npuc_errf(err, NPUC_E_USAGE, "npurt_host_map: no instance");
    const npurt_model *m = inst->model;
    for (uint32_t i = 0; i < m->h->n_pools; i++) {
        uint8_t kind = m->pools[i].kind;
        if (kind == NPURT_POOL_STATE || !inst->size[i] || !inst->base[i]) continue;
        if (already_mapped(inst->base[i], inst->size[i])) continue;
        int rc = ethosu_host_map(inst->base[i], inst->size[i], kind != NPURT_POOL_PARAMS, err);
        if (rc) return npuc_err_prefix(err, "mapping pool %u for the virtual NPU", i), rc;
    }
    return NPUC_OK;
}

void npurt_host_unmap(const npurt_instance *inst)
{
    if (!inst || !inst->model) return;
    for (uint32_t i = 0; i < inst->model->h->n_pools; i++)
        if (inst->base[i]) (void)ethosu_host_unmap(inst->base[i]);
}

void npurt_host_error_text(const npurt_model *m, const npurt_error *e, char *buf, size_t size)
{
    const char *what = e->what ? e->what : npurt_status_name(e->code);
    if (e->epoch >= 0 && m && m->h && (uint32_t)e->epoch < m->h->n_epochs) {
        const npurt_epoch_rec *r = &m->epochs[e->epoch];
        const char *kn = r->kind == NPURT_EPOCH_HW ? "HW" : r->kind == NPURT_EPOCH_SW ? "SW" : "HYBRID";
        const char *k = r->kind == NPURT_EPOCH_HW ? "" : k_op_name(r->kernel);
        snprintf(buf, size, "epoch %d (%s%s%s, graph op %u): %s (status %d)", e->epoch, kn, *k ? " " : "",
                 k ? k : "?", r->first_op, what, e->detail);
    } else if (e->offset) {
        snprintf(buf, size, "model byte 0x%x%s: %s", e->offset, e->index >= 0 ? "" : "", what);
    } else if (e->index >= 0) {
        snprintf(buf, size, "record %d: %s", e->index, what);
    } else {
        snprintf(buf, size, "%s", what);
    }
}

graph_dtype npurt_host_graph_dtype(uint8_t dt)
{
    switch (dt) {
    case NPURT_DT_INT8: return GRAPH_I8;
    case NPURT_DT_UINT8: return GRAPH_U8;
    case NPURT_DT_INT16: return GRAPH_I16;
    case NPURT_DT_INT32: return GRAPH_I32;
    case NPURT_DT_INT64: return GRAPH_I64;
    case NPURT_DT_BOOL: return GRAPH_BOOL;
    case NPURT_DT_UINT32: return GRAPH_U32;
    case NPURT_DT_UINT16: return GRAPH_U16;
    case NPURT_DT_UINT64: return GRAPH_U64;
    default: return GRAPH_F32;
    }
}
