/* target: the one description of the system a model is compiled for and
 * run on (host room). See docs/system-config.md.
 *
 * A target is an NPU variant, its core clock and the memories on its two
 * AXI ports with their timings, seen as memory pools (what may hold the
 * parameters, the tensor arena, the fast scratch), plus the same system as
 * the cycle model consumes it (sim_system). It comes from one of:
 *   - a built-in name: Vela's system configs and memory modes, "SYSTEM" or
 *     "SYSTEM:MODE";
 *   - a JSON memory-pool file;
 *   - a Vela configuration file (vela.ini) with a [System_Config.NAME] and a
 *     [Memory_Mode.NAME] section;
 *   - the record a compiled model carries (target_record_*).
 * Every command resolves its target with target_resolve: one parser, one
 * defaulting rule. Library code: never prints or exits. */
#ifndef NPUC_TARGET_H
#define NPUC_TARGET_H

#include "util/util.h"
#include "sim/sim.h"
#include "tflite/tflite.h"

#define TARGET_MAX_POOLS 8
#define TARGET_NAME_MAX 64          /* names, NUL included */

/* What a pool may hold. */
enum {
    TARGET_POOL_PARAMS = 1u << 0,      /* weights, scales, LUTs, command streams */
    TARGET_POOL_ACTIVATIONS = 1u << 1, /* feature maps (the arena) */
    TARGET_POOL_FAST = 1u << 2,        /* fast scratch (U65 Dedicated_Sram "cache") */
};

/* The size of the fast pool of a spilling memory mode without
 * arena_cache_size (Vela 5.1's Dedicated_Sram): no limit, which Vela takes
 * as the Ethos-U65's 40-bit address range (docs/ethos-u.md 1.4). */
#define TARGET_FAST_NO_LIMIT ((uint64_t)1 << 40)

typedef struct target_pool {
    char name[32];
    uint32_t use;            /* TARGET_POOL_* bits */
    bool writable;           /* rights: "rw" vs "r" */
    bool absolute;           /* offset is an absolute bus address (else relative: 0) */
    uint64_t offset;         /* base address (absolute pools) */
    uint64_t size;           /* bytes available to the model; 0 = unlimited (a
                                fast pool: TARGET_FAST_NO_LIMIT) */
    int axi_port;            /* 0 or 1: NPU port the memory sits on */
    double clock_ratio;      /* memory clock / NPU core clock */
    unsigned byte_width;     /* bytes per memory clock */
    unsigned burst_bytes;    /* burst length */
    unsigned read_latency, write_latency;   /* cycles, as in Vela's vela.ini: the cycle
                                             * model adds them to NPU core cycles */
    bool cacheable;
    int priority;            /* lower = preferred (for each role), ties: first */
    /* the kind of memory, a static string ("Sram", "Dram", "OnChipFlash",
     * "OffChipFlash"); also the sim_memory name */
    const char *memory;
} target_pool;

typedef struct target_desc {
    char name[TARGET_NAME_MAX];   /* "SYSTEM:MODE", or a JSON file's "name" */
    eu_variant variant;
    double core_clock_hz;
    target_pool pools[TARGET_MAX_POOLS];
    int n_pools;
    int params_pool;         /* index of the pool holding params (flash) */
    int act_pool;            /* index of the pool holding the arena */
    int fast_pool;           /* index of the fast scratch pool, -1 if none */
    /* Vela's names when the system came from them (built-in or vela.ini),
     * else "" (a JSON file) */
    char system_config[TARGET_NAME_MAX];
    char memory_mode[TARGET_NAME_MAX];
    /* The same system for the cycle model: sim.name is the system config
     * (or "custom" for a JSON file). Everything is held by value, so a
     * target_desc may be copied. */
    sim_system sim;
} target_desc;

/* ------------------------------------------------------------- variants */

/* "ethos-u55-32|64|128|256", "ethos-u65-256|512", any letter case. The
 * error names the valid choices. */
int target_variant_parse(const char *name, eu_variant *out, npuc_err *err);
const char *target_variant_name(eu_variant v);   /* "ethos-u55-256", ... */
bool target_variant_valid(eu_variant v);

/* ------------------------------------------------------- the one rule */

/* What the user asked for; NULL members were not given. */
typedef struct target_spec {
    const char *target;          /* --target / --npu / --accelerator-config */
    const char *config;          /* --config FILE.ini (Vela's format) */
    const char *system_config;   /* --system-config: built-in name, SYSTEM:MODE,
                                    a JSON file, or (with config) a section */
    const char *memory_mode;     /* --memory-mode */
} target_spec;

/* The default target of a variant: Ethos_U55_High_End_Embedded:Shared_Sram
 * for U55, Ethos_U65_High_End:Dedicated_Sram for U65 (as Vela). */
int target_default(eu_variant v, target_desc *out, npuc_err *err);
/* Its cycle-model view (cannot fail for a valid variant; an invalid one
 * gives a zeroed system). */
void target_default_sim(eu_variant v, sim_system *out);

/* The system part of a spec for a known variant (spec->target is ignored):
 *   - system_config names a JSON file (a path, or *.json): the file; then
 *     memory_mode may not be given;
 *   - with config: the [System_Config.S] and [Memory_Mode.M] sections of
 *     that vela.ini;
 *   - else a built-in system.
 * "S:M" in system_config is the same as S with memory_mode M. A missing
 * system config is the variant's default one; a missing memory mode is the
 * system's default mode: Dedicated_Sram on an Ethos-U65 whose AXI1 memory
 * is Dram, else Shared_Sram. spec NULL or empty: target_default. */
int target_load(const target_spec *spec, eu_variant v, target_desc *out, npuc_err *err);

/* The one defaulting rule every command uses.
 *   variant: spec->target, else the recorded target's, else model_variant
 *            (the NPU the model's command streams need), else ethos-u55-256;
 *   system:  given in spec (system_config, memory_mode or config):
 *            target_load; else the recorded system when it is for the same
 *            NPU family as the variant; else the variant's default.
 * recorded and model_variant may be NULL. A record whose variant disagrees
 * with model_variant is an error (NPUC_E_FORMAT). */
int target_resolve(const target_spec *spec, const target_desc *recorded, const eu_variant *model_variant,
                   target_desc *out, npuc_err *err);

/* ------------------------------------------------------------- sources */

/* Built-in SYSTEM with MODE (NULL: the system's default mode), any letter
 * case. NPUC_E_USAGE for names that are not built in or do not fit v. */
int target_builtin(const char *system, const char *mode, eu_variant v, target_desc *out, npuc_err *err);
/* NULL-terminated list of every built-in "SYSTEM:MODE". */
const char *const *target_builtin_names(void);
/* The cycle-model view of a built-in system config and memory mode (exact
 * spelling), for the system's own NPU family (AXI width 8 bytes for the
 * Ethos_U55_* systems, 16 for the Ethos_U65_* ones). NPUC_E_INVALID for an
 * unknown name or a mode the system cannot take (e.g. an arena in flash). */
int target_lookup_sim(const char *system_config, const char *memory_mode, sim_system *out, npuc_err *err);

/* A JSON memory-pool document (text[0..size), need not be NUL-terminated);
 * `source` names it in messages (NULL = "<system>"). Checks everything:
 * errors name the key path and line:column. */
int target_parse_json(const char *text, size_t size, const char *source, eu_variant v, target_desc *out,
                      npuc_err *err);

/* A Vela configuration file (text[0..size)); `source` names it in
 * messages. The whole file is checked (sections, keys, values, inheritance);
 * then system (NULL: the variant's default system config name) and mode
 * (NULL: the system's default mode) are looked up. Errors name the file, the
 * line and the key. */
int target_parse_ini(const char *text, size_t size, const char *source, const char *system, const char *mode,
                     eu_variant v, target_desc *out, npuc_err *err);

/* ------------------------------------------------- the recorded target */

/* A compiled model carries the target it was compiled for as a "record":
 * one line of JSON in the memory-pool format plus "npuc_target" (the
 * record's version, 1), "target" (the exact variant) and, for Vela names,
 * "system_config" and "memory_mode". It sits in the NPRT container's string
 * table (header target_off) and, in NAME_npu.tflite, in the metadata entry
 * "npuc_target" (docs/system-config.md, "The recorded target"). */
#define TARGET_RECORD_VERSION 1
#define TARGET_RECORD_METADATA "npuc_target"

/* *text: malloc'd, NUL-terminated (caller frees); *len excludes the NUL. */
int target_record_write(const target_desc *t, char **text, size_t *len, npuc_err *err);
/* Parses a record (text[0..len)); `source` names it in messages. */
int target_record_parse(const char *text, size_t len, const char *source, target_desc *out, npuc_err *err);

/* What a compiled model file says about its target, found without loading
 * it: the record (or NULL) and the NPU CONFIG word its command streams need
 * (0: none, or not known). Reads NPRT containers and NPRL files; bounds
 * are checked, anything malformed simply gives nothing. */
typedef struct target_found {
    const char *record;       /* points into the data; not NUL-terminated */
    size_t record_len;
    uint32_t npu_config;
} target_found;
void target_find_in_compiled(const uint8_t *data, size_t size, target_found *out);
/* The same for a TFLite model (the "npuc_target" metadata entry; CONFIG is
 * not read here). */
void target_find_in_tflite(const tfl_model *tm, target_found *out);

/* The record found (if any) and parsed, and the model's variant from the
 * CONFIG word (if any): the inputs target_resolve takes. *have_record and
 * *have_variant say what was found. A malformed record or CONFIG word is an
 * error naming `source`. */
int target_found_parse(const target_found *f, const char *source, target_desc *recorded, bool *have_record,
                       eu_variant *variant, bool *have_variant, npuc_err *err);

#endif
