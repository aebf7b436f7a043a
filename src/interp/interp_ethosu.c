/* interp_ethosu: runs a Vela "ethos-u" custom operator on the virtual NPU
 * the way TensorFlow Lite Micro's ethos-u kernel and the driver do it
 * (docs/ethos-u.md 9.1-9.5, 10): payload check, base addresses, register
 * programming, start, completion status. */
#include "interp/interp_ethosu.h"

#include <stdlib.h>
#include <string.h>

#define BUS_BASE 0x10000000ull
#define BUS_STEP 0x08000000ull   /* 128 MiB per window */

bool interp_is_ethosu_op(const graph_op *op)
{
    return op->opcode == TFL_OP_CUSTOM && op->custom_code && !strcmp(op->custom_code, "ethos-u");
}

static int payload_of(const graph *g, const graph_op *op, sim_cop1 *c, npuc_err *err)
{
    if (op->n_in < 4 || op->in[0] < 0 || op->in[1] < 0 || op->in[2] < 0 || op->in[3] < 0)
        return npuc_errf(err, NPUC_E_INVALID,
                         "ethos-u op: needs inputs command stream, flash, scratch, scratch_fast "
                         "(has %d inputs)", op->n_in);
    const graph_tensor *t = &g->tensors[op->in[0]];
    if (!t->data || (t->dtype != GRAPH_U8 && t->dtype != GRAPH_I8))
        return npuc_errf(err, NPUC_E_INVALID,
                         "ethos-u op: input 0 ('%s') must be a constant uint8 command stream",
                         t->name);
    int rc = sim_cop1_parse(t->data, t->nbytes, c, err);
    if (rc)
        return npuc_err_prefix(err, "ethos-u op: input 0 ('%s')", t->name), rc;
    if (!c->stream)
        return npuc_errf(err, NPUC_E_INVALID, "ethos-u op: payload has no command stream");
    return NPUC_OK;
}

int interp_ethosu_variant(const graph *g, const graph_op *op, eu_variant *v, npuc_err *err)
{
    sim_cop1 c;
    int rc = payload_of(g, op, &c, err);
    if (rc)
        return rc;
    if (!c.has_config)
        return npuc_errf(err, NPUC_E_INVALID,
                         "ethos-u op: payload has no OPTIMIZER_CONFIG, so its NPU is unknown");
    return sim_variant_from_config(c.config, v, err);
}

/* Whether op is the first op that reads its scratch tensor (input 2). */
static bool first_scratch_user(const graph *g, const graph_op *op)
{
    for (int32_t i = 0; i < g->n_ops && &g->ops[i] != op; i++)
        for (int32_t k = 0; k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] == op->in[2])
                return false;
    return true;
}

int interp_run_ethosu_op(sim_npu *npu, const graph *g, const graph_op *op, void *const *data,
                      npuc_err *err)
{
    sim_cop1 c;
    int rc = payload_of(g, op, &c, err);
    if (rc)
        return rc;
    eu_variant nv = sim_npu_variant(npu);
    if (c.has_config) {
        /* the driver's check (docs/ethos-u.md 9.2): product and MACs must match */
        const eu_variant_info *hw = eu_variant_get(nv);
        if (EU_CONFIG_MACS_LOG2(c.config) != EU_CONFIG_MACS_LOG2(hw->config) ||
            EU_CONFIG_PRODUCT(c.config) != EU_CONFIG_PRODUCT(hw->config))
            return npuc_errf(err, NPUC_E_INVALID,
                             "ethos-u op: compiled for CONFIG 0x%08x, but the NPU is %s "
                             "(CONFIG 0x%08x)", c.config, hw->name, hw->config);
        if (EU_ID_ARCH_MAJOR(c.id) != EU_ID_ARCH_MAJOR(hw->id) ||
            EU_ID_ARCH_MINOR(c.id) > EU_ID_ARCH_MINOR(hw->id))
            return npuc_errf(err, NPUC_E_UNSUPPORTED,
                             "ethos-u op: compiled for architecture %u.%u, the NPU is %u.%u",
                             (unsigned)EU_ID_ARCH_MAJOR(c.id), (unsigned)EU_ID_ARCH_MINOR(c.id),
                             (unsigned)EU_ID_ARCH_MAJOR(hw->id), (unsigned)EU_ID_ARCH_MINOR(hw->id));
    }
    int n_io = op->n_in + op->n_out;
    const graph_tensor *scratch = &g->tensors[op->in[2]];
    /* TFLite Micro passes the tensors' addresses as they are: a scratch_fast
     * that is the scratch tensor itself (Vela 5.1 for the U55) is the same
     * memory */
    bool fast_alias = op->in[3] == op->in[2];
    /* one arena for every tensor with an offline offset; scratch_fast
     * (input 3) is the driver's separate fast memory, as when ethosu_init
     * is given one (docs/ethos-u.md 9.3) */
    size_t arena_size = 0;
    for (int k = 2; k < n_io; k++) {
        if (k == 3 && !fast_alias)
            continue;
        int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (ti < 0)
            continue;
        const graph_tensor *t = &g->tensors[ti];
        if (t->arena_offset >= 0 && (size_t)t->arena_offset + t->nbytes > arena_size)
            arena_size = (size_t)t->arena_offset + t->nbytes;
    }
    uint8_t *arena = NULL;
    if (arena_size) {
        arena = calloc(1, arena_size);
        if (!arena)
            return npuc_errf(err, NPUC_E_NOMEM, "ethos-u op: out of memory for a %zu byte arena",
                             arena_size);
    }
    const graph_tensor *ft = &g->tensors[op->in[3]];
    uint8_t *fast = calloc(1, ft->nbytes ? ft->nbytes : 1);
    if (!fast) {
        free(arena);
        return npuc_errf(err, NPUC_E_NOMEM, "ethos-u op: out of memory for fast scratch");
    }
    sim_npu_unmap_all(npu);
    uint64_t bus_of[64];
    int nwin = 0;
    uint64_t payload_bus = 0, arena_bus = 0;
    const graph_tensor *pt = &g->tensors[op->in[0]];
#define MAP(host, size, wr, busvar)                                                      \
    do {                                                                                  \
        if ((size) > BUS_STEP || nwin >= SIM_MAX_WINDOWS) {                               \
            rc = npuc_errf(err, NPUC_E_UNSUPPORTED,                                       \
                           "ethos-u op: %zu bytes or %d buffers exceed the host NPU map", \
                           (size_t)(size), nwin + 1);                                     \
            goto done;                                                                    \
        }                                                                                 \
        busvar = BUS_BASE + BUS_STEP * (uint64_t)nwin++;                                  \
        if ((rc = sim_npu_map(npu, busvar, (void *)(host), (size), (wr), err)))           \
            goto done;                                                                    \
    } while (0)
    MAP(pt->data, pt->nbytes, false, payload_bus);
    if (arena)
        MAP(arena, arena_size, true, arena_bus);
    /* base_addr[k-1] = tensor k for k >= 1 (inputs), then the outputs */
    uint64_t basep[EU_N_REGIONS] = {0};
    for (int k = 1; k < n_io && k <= EU_N_REGIONS; k++) {
        int32_t ti = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        uint64_t b = 0;
        if (ti >= 0) {
            const graph_tensor *t = &g->tensors[ti];
            if (arena && t->arena_offset >= 0 && (k != 3 || fast_alias)) {
                b = arena_bus + (uint64_t)t->arena_offset;
            } else if (t->nbytes) {
                void *host = t->data ? (void *)t->data : k == 3 ? fast : data[k];
                MAP(host, t->nbytes, !t->data, b);
            }
        }
        basep[k - 1] = b;
        (void)bus_of;
    }
    /* The arena's state left by the ethos-u ops before this one: Vela's
     * operators share one arena (its scratch tensor covers it), and one
     * may leave results there for a later one without listing them as
     * outputs, or write a part of a tensor another one completes
     * (docs/ethos-u.md 10). data[2] (the scratch tensor's memory) carries
     * it from op to op; the first op that uses the scratch tensor starts
     * from zeros. */
    void *store = data[2];
    if (store && arena && scratch->arena_offset >= 0 && !scratch->data) {
        if (first_scratch_user(g, op))
            memset(store, 0, scratch->nbytes);
        memcpy(arena + scratch->arena_offset, store, scratch->nbytes);
    }
    /* outputs an earlier ethos-u op already wrote part of */
    for (int k = 0; k < op->n_out && arena; k++) {
        int32_t ti = op->out[k];
        if (ti < 0) continue;
        const graph_tensor *t = &g->tensors[ti];
        if (t->arena_offset >= 0 && t->producer >= 0 && &g->ops[t->producer] != op && data[op->n_in + k])
            memcpy(arena + t->arena_offset, data[op->n_in + k], t->nbytes);
    }
    /* inputs into the arena */
    for (int k = 4; k < op->n_in; k++) {
        int32_t ti = op->in[k];
        if (ti < 0 || !arena) continue;
        const graph_tensor *t = &g->tensors[ti];
        if (t->arena_offset >= 0)
            memcpy(arena + t->arena_offset, t->data ? t->data : data[k], t->nbytes);
    }
    /* program the NPU as the driver does */
    uint64_t q = payload_bus + c.stream_offset;
    sim_npu_write(npu, EU_REG_QBASE, (uint32_t)q);
    sim_npu_write(npu, EU_REG_QBASE_HI, (uint32_t)(q >> 32));
    sim_npu_write(npu, EU_REG_QSIZE, (uint32_t)c.stream_size);
    for (int i = 0; i < EU_N_REGIONS; i++) {
        sim_npu_write(npu, EU_REG_BASEP_LO(i), (uint32_t)basep[i]);
        sim_npu_write(npu, EU_REG_BASEP_HI(i), (uint32_t)(basep[i] >> 32));
    }
    uint32_t cmd = sim_npu_read(npu, EU_REG_CMD) & EU_CMD_Q_MASK;
    sim_npu_write(npu, EU_REG_CMD, cmd | EU_CMD_START);
    uint32_t st = sim_npu_read(npu, EU_REG_STATUS);
    sim_npu_write(npu, EU_REG_CMD, cmd | EU_CMD_CLEAR_IRQ);   /* the IRQ handler's clear */
    if ((st & EU_STATUS_ERRORS) || !(st & EU_STATUS_CMD_END_REACHED)) {
        rc = npuc_errf(err, NPUC_E_RUNTIME, "NPU stopped with STATUS 0x%08x: %s", st,
                       sim_npu_error(npu));
        goto done;
    }
    for (int k = 0; k < op->n_out; k++) {
        int32_t ti = op->out[k];
        if (ti < 0 || !arena) continue;
        const graph_tensor *t = &g->tensors[ti];
        if (t->arena_offset >= 0)
            memcpy(data[op->n_in + k], arena + t->arena_offset, t->nbytes);
    }
    if (store && arena && scratch->arena_offset >= 0 && !scratch->data)
        memcpy(store, arena + scratch->arena_offset, scratch->nbytes);
    rc = NPUC_OK;
done:
#undef MAP
    sim_npu_unmap_all(npu);
    free(arena);
    free(fast);
    return rc;
}

int interp_run_ethosu(sim_npu *npu, interp *ip, const graph_op *op, npuc_err *err)
{
    const graph *g = interp_graph(ip);
    int n = op->n_in + op->n_out;
    void **data = malloc(sizeof *data * (size_t)(n ? n : 1));
    if (!data)
        return npuc_errf(err, NPUC_E_NOMEM, "ethos-u op: out of memory for %d tensors", n);
    for (int k = 0; k < n; k++) {
        int32_t t = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        data[k] = t < 0 ? NULL : g->tensors[t].data ? (void *)g->tensors[t].data : interp_tensor_mut(ip, t);
    }
    int rc = interp_run_ethosu_op(npu, g, op, data, err);
    free(data);
    return rc;
}
