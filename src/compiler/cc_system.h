/* cc_system: the target system a model is compiled for: NPU variant, core
 * clock, and memory pools (in the style of ST's memory-pool descriptors),
 * read from a JSON file or chosen by a built-in name. Host-only. */
#ifndef NPUC_CC_SYSTEM_H
#define NPUC_CC_SYSTEM_H

#include "../util/util.h"
#include "../sim/sim.h"

#define CC_MAX_POOLS 8

/* What a pool may hold. */
enum {
    CC_POOL_PARAMS = 1u << 0,      /* weights, scales, LUTs, command streams */
    CC_POOL_ACTIVATIONS = 1u << 1, /* feature maps (the arena) */
    CC_POOL_FAST = 1u << 2,        /* fast scratch (U65 Dedicated_Sram "cache") */
};

typedef struct cc_pool {
    char name[32];
    uint32_t use;            /* CC_POOL_* bits */
    bool writable;           /* rights: "rw" vs "r" */
    bool absolute;           /* offset is an absolute bus address (else relative: 0) */
    uint64_t offset;         /* base address (absolute pools) */
    uint64_t size;           /* bytes available to the model; 0 = unlimited */
    int axi_port;            /* 0 or 1: NPU port the memory sits on */
    double clock_ratio;      /* memory clock / NPU core clock */
    unsigned byte_width;     /* bytes per memory clock */
    unsigned burst_bytes;    /* burst length */
    unsigned read_latency, write_latency;   /* cycles, as in Vela's vela.ini: the cycle
                                             * model adds them to NPU core cycles */
    bool cacheable;
    int priority;            /* lower = preferred (for each role), ties: first */
    /* added: the kind of memory, a static string ("Sram", "Dram",
     * "OnChipFlash", "OffChipFlash"); also the sim_memory name */
    const char *memory;
} cc_pool;

typedef struct cc_system {
    char name[64];
    sim_variant variant;
    double core_clock_hz;
    cc_pool pools[CC_MAX_POOLS];
    int n_pools;
    int params_pool;         /* index of the pool holding params (flash) */
    int act_pool;            /* index of the pool holding the arena */
    int fast_pool;           /* index of the fast scratch pool, -1 if none */
    sim_system sim;          /* the same system for the cycle model. Its names are
                              * static strings: sim.name is the Vela system config
                              * for built-ins and "custom" for files (the file's
                              * name is in cc_system.name), so cc_system may be
                              * copied by value. */
} cc_system;

/* Parses a target name: "ethos-u55-32|64|128|256", "ethos-u65-256|512".
 * Error names the valid choices. */
int cc_target_parse(const char *name, sim_variant *out, npuc_err *err);
const char *cc_target_name(sim_variant v);   /* "ethos-u55-256", ... */

/* Default system for a variant: U55 = Ethos_U55_High_End_Embedded with
 * Shared_Sram, U65 = Ethos_U65_High_End with Dedicated_Sram. */
int cc_system_default(sim_variant v, cc_system *out, npuc_err *err);

/* `spec` is a built-in name (see cc_system_names) or a path to a JSON
 * memory-pool file (docs/system-config.md). Checks the file completely:
 * errors name the key path (e.g. "pools[2].size") and what is wrong.
 * Built-in names are "SYSTEM:MODE" (Vela's system config and memory mode)
 * or a bare "SYSTEM" (its default mode), matched case-insensitively; a
 * built-in name wins over a file of the same name. NULL = the default. */
int cc_system_load(const char *spec, sim_variant v, cc_system *out, npuc_err *err);

/* added: the same for a JSON document in memory (text[0..size), need not be
 * NUL-terminated); `source` names it in messages (NULL = "<system>"). */
int cc_system_parse(const char *text, size_t size, const char *source, sim_variant v,
                    cc_system *out, npuc_err *err);

/* NULL-terminated list of built-in names. */
const char *const *cc_system_names(void);

#endif
