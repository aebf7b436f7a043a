/* npuc run on a compiled model (.nprt, _rel.bin): what it prints beyond
 * the outputs. The run itself (runtime, ethos-u driver, virtual NPU) is
 * the host API's (src/api/). */
#include "cli_run_int.h"

#include <stdio.h>

void cli_print_compiled(const char *path, const npuc_model *m, const npuc_model_info *info)
{
    (void)m;
    printf("model %s (%s): %u epochs (%u HW, %u CPU) on the npuc runtime, activations %llu bytes\n", path,
           info->name, info->n_epochs, info->n_hw_epochs, info->n_epochs - info->n_hw_epochs,
           (unsigned long long)info->activations_size);
    if (info->form == NPUC_FORM_RELOC)
        printf("installed %s mode%s: %u bytes of exec RAM, %u relocations\n",
               info->install == NPUC_INSTALL_COPY ? "COPY" : "XIP", info->install_clear ? " + CLEAR" : "",
               info->exec_ram_used, info->n_relocs);
}

static const char *epoch_kind(npuc_epoch_kind k)
{
    return k == NPUC_EPOCH_HW ? "HW" : k == NPUC_EPOCH_SW ? "SW" : "HYBRID";
}

void cli_print_epoch_profile(const npuc_model *m)
{
    const npuc_profile *p;
    if (npuc_get_profile(m, &p)) return;
    printf("\nepoch  kind    work                 graph ops   pre us     run us    post us   NPU cycles  estimate\n");
    uint64_t tot_npu = 0, tot_est = 0;
    double tot_cpu = 0;
    for (uint32_t i = 0; i < npuc_epoch_count(m) && i < p->n_epochs; i++) {
        npuc_epoch_info e;
        npuc_epoch_info_get(m, i, &e);
        const npuc_epoch_profile *ep = &p->epochs[i];
        char work[32], ops[32], est[24] = "";
        if (e.kind == NPUC_EPOCH_HW) snprintf(work, sizeof work, "command stream %uB", e.cmd_size);
        else snprintf(work, sizeof work, "%s", e.kernel ? e.kernel : "?");
        snprintf(ops, sizeof ops, e.n_ops > 1 ? "%u-%u" : "%u", e.first_op, e.first_op + e.n_ops - 1);
        if (e.kind == NPUC_EPOCH_HW) {
            snprintf(est, sizeof est, "%u", e.est_cycles);
            tot_npu += ep->npu_cycles;
            tot_est += e.est_cycles;
        } else {
            tot_cpu += (double)ep->run_ns / 1e3;
        }
        printf("%5u  %-6s  %-20s %-10s %8.1f %10.1f %10.1f %12llu %9s\n", i, epoch_kind(e.kind), work, ops,
               (double)ep->pre_ns / 1e3, (double)ep->run_ns / 1e3, (double)ep->post_ns / 1e3,
               (unsigned long long)ep->npu_cycles, est);
    }
    printf("total: NPU %llu cycles (compiler estimate %llu), CPU kernels %.1f us on this host\n",
           (unsigned long long)tot_npu, (unsigned long long)tot_est, tot_cpu);
}
