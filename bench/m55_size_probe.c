/* Size probe (MCU build only; linked, never run): the smallest bare-metal
 * program that loads and runs a compiled model with the runtime and drives
 * an Ethos-U through the driver's MMIO backend. tools/bench_m55_size.sh
 * reads its link map and reports how many bytes of flash and static RAM
 * libethosu_driver.a and libnpurt.a put into it. The CPU kernels are left
 * out on purpose (k_op_run_table below stands in for libnpurt_kernels.a): their
 * size depends on which ops a model runs on the CPU. */
#include <stddef.h>
#include <stdint.h>

#include "ethosu_driver.h"
#include "npurt/npurt.h"
#include "npurt/reloc.h"
#include "kernels/k_op.h"

int k_op_run_table(const k_op_family_fn *table, uint32_t kind, const void *params, uint32_t params_size,
                   const k_op_io *io)
{
    (void)table; (void)kind; (void)params; (void)params_size; (void)io;
    return 0;
}

uint32_t k_op_family(uint32_t kind)
{
    return kind;
}

const char *k_op_name(uint32_t kind)
{
    (void)kind;
    return "";
}

int k_op_is_data_movement(uint32_t kind)
{
    return kind == 0;
}

void Reset_Handler(void);
int main(void);

static struct ethosu_driver drv;
static uint8_t arena[1024] __attribute__((aligned(16)));
extern const uint8_t probe_blob[];
__attribute__((aligned(16))) const uint8_t probe_blob[16];

#if PROBE_RELOC
/* A loadable model installed from flash (signature checked) and run. */
static npurt_reloc_instance ri;
static const uint8_t probe_key[32];

int main(void)
{
    npurt_error e;
    if (ethosu_init(&drv, (void *)0x50004000u, NULL, 0, 1, 1)) return 1;
    npurt_reloc_config cfg = { .exec_ram = arena, .exec_ram_size = sizeof arena,
                               .mode = NPURT_RELOC_COPY | NPURT_RELOC_CLEAR, .public_key = probe_key };
    if (npurt_reloc_install(probe_blob, sizeof probe_blob, &cfg, &ri, &e)) return 2;
    ri.rt.drv = &drv;
    uint8_t *in = npurt_reloc_input(&ri, 0, NULL);
    if (in) in[0] = 1;
    int rc = npurt_reloc_run(&ri);
    const uint8_t *out = npurt_reloc_output(&ri, 0, NULL);
    return rc ? 4 : out ? out[0] : 0;
}
#else
static npurt_model model;
static npurt_instance inst;

int main(void)
{
    npurt_error e;
    if (ethosu_init(&drv, (void *)0x50004000u, NULL, 0, 1, 1)) return 1;
    if (npurt_model_load(&model, probe_blob, sizeof probe_blob, &e)) return 2;
    npurt_memory mem = { .activations = arena, .activations_size = sizeof arena };
    if (npurt_init(&inst, &model, &mem, &e)) return 3;
    inst.drv = &drv;
    uint8_t *in = npurt_input(&inst, 0, NULL);
    if (in) in[0] = 1;
    int rc = npurt_run(&inst);
    const uint8_t *out = npurt_output(&inst, 0, NULL);
    return rc ? 4 : out ? out[0] : 0;
}
#endif

void Reset_Handler(void)
{
    main();
    for (;;) {
    }
}

static void npu_irq(void)
{
    ethosu_irq_handler(&drv);
}

/* Reset and the NPU's interrupt (external IRQ 0 here). */
__attribute__((section(".vectors"), used)) void (*const probe_vectors[17])(void) = {
    [1] = Reset_Handler, [16] = npu_irq
};
