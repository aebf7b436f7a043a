/* QEMU mps3-an547 example: runs a compiled model through the npuc runtime
 * on a Cortex-M55. CPU epochs run on the M55; NPU epochs go through the
 * ethos-u driver to a virtual Ethos-U built into the firmware (the driver's
 * host device backend over the simulator, without threads: the NPU runs
 * inside the driver's CMD register write and calls its IRQ handler).
 *
 * Output (semihosting): a banner, the model, each input's bytes as hex
 * (a deterministic pattern), one line per epoch, each output's bytes as hex,
 * then "ok". Exit status 0; 1 with an "error:" line if the model or a run
 * fails; 2 if the virtual NPU cannot be set up. Without a model
 * (NPUC_EXAMPLE_MODEL_C unset) it only reports the NPU.
 *
 * With a loadable model image linked in (NPUC_EXAMPLE_RELOC_BIN, the same
 * model as NAME_rel.bin), it then installs that image from memory in XIP
 * and in COPY + CLEAR mode, runs it on the same inputs and prints
 * "reloc MODE: N output bytes identical to the built-in model". */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "semihost.h"
#include "ethosu_driver.h"
#include "driver/host/ethosu_host.h"
#include "npurt/npurt.h"
#include "npurt/reloc.h"
#include "kernels/k_op.h"

#if EXAMPLE_HAVE_MODEL
#include "example_model.h"
#endif

enum { EXIT_OK = 0, EXIT_RUN = 1, EXIT_SETUP = 2 };

/* The driver's diagnostics hook: errors and warnings to the console. */
void ethosu_log_hook(struct ethosu_driver *drv, enum ethosu_log_level level, const char *msg,
                     uint64_t value)
{
    (void)drv;
    if (level > ETHOSU_LOG_WARN) return;
    sh_puts(level == ETHOSU_LOG_ERR ? "ethosu error: " : "ethosu warning: ");
    sh_puts(msg);
    sh_puts(" (");
    sh_put_hex32((uint32_t)value);
    sh_puts(")\n");
}

/* ------------------------------------------------------- virtual NPU */

#if defined(ETHOSU65)
#define EXAMPLE_VARIANT (ETHOSU_MACS == 512 ? EU_U65_512 : EU_U65_256)
#else
#define EXAMPLE_VARIANT                                                                \
    (ETHOSU_MACS == 32 ? EU_U55_32 : ETHOSU_MACS == 64 ? EU_U55_64                   \
                                    : ETHOSU_MACS == 128 ? EU_U55_128 : EU_U55_256)
#endif

static struct ethosu_driver npu_driver;
static ethosu_host_npu *vnpu;

static int npu_setup(void)
{
    npuc_err err;
    if (ethosu_host_npu_create(EXAMPLE_VARIANT, NULL, &vnpu, &err)) {
        sh_puts("error: virtual NPU: ");
        sh_puts(err.msg);
        sh_puts("\n");
        return -1;
    }
    if (ethosu_host_driver_init(&npu_driver, vnpu, NULL, 0)) {
        sh_puts("error: ethosu_init failed\n");
        return -1;
    }
    struct ethosu_hw_info hw;
    ethosu_get_hw_info(&npu_driver, &hw);
    sh_puts("NPU: virtual Ethos-U");
    sh_puts(hw.version.product_major == 1 ? "65" : "55");
    sh_puts(", ");
    sh_put_u32(1u << hw.cfg.macs_per_cc);
    sh_puts(" MACs/cycle, arch ");
    sh_put_u32(hw.version.arch_major_rev);
    sh_puts(".");
    sh_put_u32(hw.version.arch_minor_rev);
    sh_puts(".");
    sh_put_u32(hw.version.arch_patch_rev);
    sh_puts("\n");
    return 0;
}

#if EXAMPLE_HAVE_MODEL
/* ---------------------------------------------------------------- model */

/* ------------------------------------------------------------- output */

static void put_hex_line(const uint8_t *p, uint32_t n)
{
    static const char digits[] = "0123456789abcdef";
    char line[2 * 32 + 1];
    for (uint32_t j = 0; j < n; j++) {
        line[2 * j] = digits[p[j] >> 4];
        line[2 * j + 1] = digits[p[j] & 15];
    }
    line[2 * n] = '\n';
    sh_write(line, 2 * n + 1);
}

/* "WHAT K: N bytes" and the bytes as hex, 32 a line. */
static void print_bytes(const char *what, uint32_t index, const uint8_t *p, uint32_t n)
{
    sh_puts(what);
    sh_puts(" ");
    sh_put_u32(index);
    sh_puts(": ");
    sh_put_u32(n);
    sh_puts(" bytes\n");
    for (uint32_t i = 0; i < n; i += 32) put_hex_line(p + i, n - i < 32 ? n - i : 32);
}

/* Lets the virtual NPU reach [p, p + n) (a real NPU reaches all memory). */
static int npu_map(const void *p, uint32_t n, bool writable)
{
    if (!p || !n) return 0;
    npuc_err err;
    if (ethosu_host_map((void *)(uintptr_t)p, n, writable, &err)) {
        sh_puts("error: mapping memory for the virtual NPU: ");
        sh_puts(err.msg);
        sh_puts("\n");
        return -1;
    }
    return 0;
}


/* Static pools, sized by the header npuc wrote (+16 so that a size of 0
 * still gives an array). */
static uint8_t activations[EXAMPLE_ACTIVATIONS_SIZE + 16] __attribute__((aligned(16)));
static uint8_t state[EXAMPLE_STATE_SIZE + 16] __attribute__((aligned(16)));
/* the fast scratch pool of a model compiled for an Ethos-U65 with
 * Dedicated_Sram (size 0 otherwise) */
static uint8_t fast[EXAMPLE_FAST_SIZE + 16] __attribute__((aligned(16)));

#define MAX_EPOCHS 256
static npurt_epoch_profile profile[MAX_EPOCHS];

/* Byte i of input k: a fixed pseudo-random pattern (Knuth's multiplicative
 * hash), the same on every run. tests/test_qemu_example.sh feeds the
 * printed bytes to `npuc run` on the host and compares the outputs. */
static uint8_t pattern_byte(uint32_t k, uint32_t i)
{
    return (uint8_t)(((i + 1u) * 2654435761u + k * 40503u) >> 24);
}

static void print_error(const npurt_model *m, const npurt_error *e)
{
    sh_puts("error: ");
    sh_puts(e->what ? e->what : "(no message)");
    sh_puts(" [");
    sh_puts(npurt_status_name(e->code));
    if (e->epoch >= 0) {
        sh_puts(", epoch ");
        sh_put_i32(e->epoch);
        if (m && m->epochs && (uint32_t)e->epoch < m->h->n_epochs) {
            const npurt_epoch_rec *r = &m->epochs[e->epoch];
            sh_puts(r->kind == NPURT_EPOCH_HW ? " (HW)" : " (CPU)");
        }
    }
    if (e->index >= 0) {
        sh_puts(", index ");
        sh_put_i32(e->index);
    }
    if (e->offset) {
        sh_puts(", model byte ");
        sh_put_hex32(e->offset);
    }
    if (e->detail) {
        sh_puts(", detail ");
        sh_put_i32(e->detail);
    }
    sh_puts("]\n");
    if (e->code == NPURT_E_NPU && vnpu) {
        char msg[256];
        ethosu_host_npu_error(vnpu, msg, sizeof msg);
        if (msg[0]) {
            sh_puts("virtual NPU: ");
            sh_puts(msg);
            sh_puts("\n");
        }
    }
}

static const char *epoch_kind(uint8_t kind)
{
    return kind == NPURT_EPOCH_HW ? "HW " : kind == NPURT_EPOCH_SW ? "SW " : "HYB";
}

#if EXAMPLE_HAVE_RELOC
/* ---------------------------------------------------- loadable model */

extern const uint8_t example_reloc[], example_reloc_end[];

/* The RAM an application sets aside for models it installs at run time. */
#define EXEC_RAM_SIZE (1024u * 1024u)
static uint8_t exec_ram[EXEC_RAM_SIZE] __attribute__((aligned(16), section(".sram_bss")));

/* Installs the linked-in image with `mode`, runs it on the inputs the
 * built-in model had, and compares the outputs with the built-in model's. */
static int run_reloc(npurt_instance *builtin, uint32_t mode, const char *mode_name)
{
    static npurt_reloc_instance ri;
    npurt_reloc_info info;
    npurt_error e;
    uint32_t size = (uint32_t)(example_reloc_end - example_reloc);
    if (npurt_reloc_get_info(example_reloc, size, &info, &e)) {
        print_error(NULL, &e);
        return -1;
    }
    uint32_t need = (mode & 0xFFu) == NPURT_RELOC_COPY ? info.ram_copy : info.ram_xip;
    sh_puts("reloc ");
    sh_puts(mode_name);
    sh_puts(": ");
    sh_puts(info.name);
    sh_puts(" for ");
    sh_puts(npurt_reloc_npu_name(info.npu_config));
    sh_puts(", file ");
    sh_put_u32(info.file_size);
    sh_puts(" B, exec RAM ");
    sh_put_u32(need);
    sh_puts(" B, ");
    sh_put_u32(info.n_relocs);
    sh_puts(" relocations\n");
    npurt_reloc_config cfg = {.exec_ram = exec_ram, .exec_ram_size = EXEC_RAM_SIZE, .mode = mode};
    if (npurt_reloc_install(example_reloc, size, &cfg, &ri, &e)) {
        print_error(NULL, &e);
        return -1;
    }
    /* the NPU reads the image in place (XIP) and everything in exec RAM */
    static bool mapped;
    if (!mapped) {
        if (npu_map(example_reloc, size, false) || npu_map(exec_ram, EXEC_RAM_SIZE, true)) return -1;
        mapped = true;
    }
    ri.rt.drv = &npu_driver;
    /* the image is the built-in model in loadable form: the same kernels (a
     * firmware installing models it does not know would name
     * k_op_all_families, every kernel) */
    ri.rt.kernels = EXAMPLE_ALL_KERNELS ? k_op_all_families : EXAMPLE_KERNELS;
    for (uint32_t k = 0; k < npurt_reloc_n_inputs(&ri); k++) {
        uint32_t n = 0, nb = 0;
        uint8_t *p = npurt_reloc_input(&ri, k, &n);
        const uint8_t *b = npurt_input(builtin, k, &nb);
        if (!p || !b || n != nb) {
            sh_puts("error: loadable model inputs differ from the built-in model's\n");
            return -1;
        }
        for (uint32_t i = 0; i < n; i++) p[i] = pattern_byte(k, i);
    }
    if (npurt_reloc_run(&ri)) {
        print_error(&ri.model, &ri.rt.err);
        return -1;
    }
    uint32_t total = 0;
    for (uint32_t k = 0; k < npurt_reloc_n_outputs(&ri); k++) {
        uint32_t n = 0, nb = 0;
        const uint8_t *p = npurt_reloc_output(&ri, k, &n);
        const uint8_t *b = npurt_output(builtin, k, &nb);
        if (!p || !b || n != nb || memcmp(p, b, n)) {
            sh_puts("error: loadable model output ");
            sh_put_u32(k);
            sh_puts(" differs from the built-in model's\n");
            return -1;
        }
        total += n;
    }
    sh_puts("reloc ");
    sh_puts(mode_name);
    sh_puts(": ");
    sh_put_u32(total);
    sh_puts(" output bytes identical to the built-in model\n");
    npurt_reloc_uninstall(&ri);
    return 0;
}
#endif

static int run_model(void)
{
    static npurt_model model;
    static npurt_instance inst;
    npurt_error e;
    if (npurt_model_load(&model, EXAMPLE_MODEL_DATA, EXAMPLE_MODEL_SIZE, &e)) {
        print_error(NULL, &e);
        return EXIT_RUN;
    }
    uint32_t n_hw = 0;
    for (uint32_t i = 0; i < model.h->n_epochs; i++) n_hw += model.epochs[i].kind == NPURT_EPOCH_HW;
    sh_puts("model ");
    sh_puts(npurt_model_name(&model));
    sh_puts(": ");
    sh_put_u32(model.size);
    sh_puts(" bytes, ");
    sh_put_u32(model.h->n_epochs);
    sh_puts(" epochs (");
    sh_put_u32(n_hw);
    sh_puts(" NPU, ");
    sh_put_u32(model.h->n_epochs - n_hw);
    sh_puts(" CPU), activations ");
    sh_put_u32(npurt_model_pool_size(&model, NPURT_POOL_ACTIVATIONS));
    sh_puts(" B, state ");
    sh_put_u32(npurt_model_pool_size(&model, NPURT_POOL_STATE));
    sh_puts(" B\n");

    npurt_memory mem = { .params = NULL,
                         .activations = activations, .activations_size = sizeof activations,
                         .state = state, .state_size = sizeof state,
                         .fast = EXAMPLE_FAST_SIZE ? fast : NULL, .fast_size = sizeof fast };
    if (npurt_init(&inst, &model, &mem, &e)) {
        print_error(&model, &e);
        return EXIT_RUN;
    }
    inst.drv = &npu_driver;
    inst.kernels = EXAMPLE_ALL_KERNELS ? k_op_all_families : EXAMPLE_KERNELS;   /* the model's: only its kernels link */
    inst.profile = profile;
    inst.profile_cap = MAX_EPOCHS;

    /* What the NPU reads and writes: the blob (command streams and
     * constants, used in place) and the read-write pools. */
    if (npu_map(model.blob, model.size, false) || npu_map(activations, sizeof activations, true) ||
        npu_map(state, sizeof state, true) || (EXAMPLE_FAST_SIZE && npu_map(fast, sizeof fast, true)))
        return EXIT_SETUP;

    for (uint32_t k = 0; k < npurt_model_n_inputs(&model); k++) {
        uint32_t n = 0;
        uint8_t *p = npurt_input(&inst, k, &n);
        if (!p) {
            sh_puts("error: no input buffer\n");
            return EXIT_RUN;
        }
        for (uint32_t i = 0; i < n; i++) p[i] = pattern_byte(k, i);
        print_bytes("input", k, p, n);
    }

    if (npurt_run(&inst)) {
        print_error(&model, &inst.err);
        return EXIT_RUN;
    }

    uint32_t n_prof = inst.epochs_done < MAX_EPOCHS ? inst.epochs_done : MAX_EPOCHS;
    for (uint32_t i = 0; i < n_prof; i++) {
        const npurt_epoch_profile *p = &profile[i];
        sh_puts("epoch ");
        sh_put_u32(i);
        sh_puts(" ");
        sh_puts(epoch_kind(p->kind));
        if (p->kind == NPURT_EPOCH_HW) {
            sh_puts(" NPU cycles ");
            sh_put_u32((uint32_t)p->npu_cycles);
        } else {
            const char *name = k_op_name(p->kernel);
            sh_puts(" ");
            sh_puts(name ? name : "?");
        }
        sh_puts("\n");
    }

    for (uint32_t k = 0; k < npurt_model_n_outputs(&model); k++) {
        uint32_t n = 0;
        const uint8_t *p = npurt_output(&inst, k, &n);
        if (!p) {
            sh_puts("error: no output buffer\n");
            return EXIT_RUN;
        }
        print_bytes("output", k, p, n);
    }
#if EXAMPLE_HAVE_RELOC
    if (run_reloc(&inst, NPURT_RELOC_XIP, "XIP") || run_reloc(&inst, NPURT_RELOC_COPY | NPURT_RELOC_CLEAR, "COPY"))
        return EXIT_RUN;
#endif
    return EXIT_OK;
}
#endif

int main(void)
{
    sh_puts("npuc qemu-m55 example: " ETHOSU_TARGET_NPU_CONFIG "\n");
    if (npu_setup()) return EXIT_SETUP;
#if EXAMPLE_HAVE_MODEL
    int rc = run_model();
    if (rc) return rc;
#else
    sh_puts("no model built in (configure with -DNPUC_EXAMPLE_MODEL_C=...)\n");
#endif
    sh_puts("ok\n");
    return EXIT_OK;
}
