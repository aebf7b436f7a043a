/* Internal to src/target: Vela's model of a system (what a [System_Config]
 * and a [Memory_Mode] section say) and the step every source ends in. */
#ifndef NPUC_TARGET_INT_H
#define NPUC_TARGET_INT_H

#include "target.h"
#include "util/json.h"

/* "ethos-u55-32, ..., ethos-u65-512": every variant, from the table */
#define TARGET_LIST (&EU_VARIANT_TARGETS[2])

/* Vela's memory areas. */
enum { TM_SRAM, TM_DRAM, TM_ONCHIP_FLASH, TM_OFFCHIP_FLASH, TM_N };
extern const char *const TARGET_MEM_VELA[TM_N];   /* "Sram", "Dram", "OnChipFlash", "OffChipFlash" */
extern const char *const TARGET_MEM_JSON[TM_N];   /* "sram", "dram", "onchip_flash", "offchip_flash" */

typedef struct vela_timing {
    double clock_scale;
    unsigned burst_length, read_latency, write_latency;
    /* read and checked, not modelled by the cycle model (0: not given) */
    unsigned max_reads, max_writes, ports_used;
} vela_timing;

/* A [System_Config.NAME] section. */
typedef struct vela_system {
    char name[TARGET_NAME_MAX];
    double core_clock;
    int axi[2];                   /* TM_* on AXI0, AXI1 */
    vela_timing mem[TM_N];        /* meaningful for the memories on a port */
} vela_system;

/* A [Memory_Mode.NAME] section. */
typedef struct vela_mode {
    char name[TARGET_NAME_MAX];
    int const_port, arena_port, cache_port;   /* 0 or 1 */
    uint64_t arena_cache_size;                /* 0: not given */
} vela_mode;


/* The variant's default system config name. */
const char *target_default_system_name(eu_variant v);
/* The default memory mode name of a system for a variant. */
const char *target_default_mode_name(const vela_system *s, eu_variant v);
/* "system 'S:M' is for an Ethos-U65, but the target is ..." when the name
 * says which NPU a system is for (Ethos_U55_*, Ethos_U65_*, Ethos_U85_*)
 * and v is another; else 0. */
int target_check_family(const char *system, const char *mode, eu_variant v, npuc_err *err);
/* Builds the description of a system with a memory mode for a variant.
 * Vela's rules: constants in SRAM with everything on one port move to the
 * other port as OnChipFlash with SRAM timing; constants need Dram or flash,
 * the arena Sram or Dram, the cache Sram. Errors: NPUC_E_INVALID. */
int target_from_vela(const vela_system *s, const vela_mode *m, eu_variant v, target_desc *out, npuc_err *err);
/* 55, 65 or 85 when a system config's name says which Ethos-U it is for
 * (Ethos_U55_*, ...), else 0. */
int target_name_family(const char *system);
/* The NPU's AXI data width in bytes: 8 on Ethos-U55, 16 on Ethos-U65. */
unsigned target_axi_bytes(eu_variant v);

/* Where messages about a JSON document point (the source name and the
 * nodes of its pools); all NULL for descriptions built from Vela names. */
typedef struct target_ld {
    const char *source;
    npuc_err *err;
    eu_variant v;
    const npuc_json *pools_node;
    const npuc_json *pool_node[TARGET_MAX_POOLS];
    bool record;              /* a compiled model's record, not a file */
} target_ld;

/* Checks across pools, picks the roles and derives the sim_system (named
 * sim_name). */
int target_finish(target_desc *s, const char *sim_name, const target_ld *c);

/* "params", "activations", "mixed", "fast" */
const char *target_use_name(uint32_t use);

/* ASCII case-insensitive equality of s[0..n) and the C string t. */
bool target_ieq_n(const char *s, size_t n, const char *t);
bool target_ieq(const char *s, const char *t);

#endif
