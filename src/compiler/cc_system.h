/* cc_system: the compiler's names for the target description, which lives
 * in src/target/target.h (variant, clock, memory pools, the cycle model's
 * view; built-in names, JSON pool files, vela.ini, and the record a
 * compiled model carries). Aliases only, kept so that the compiler's passes
 * and existing callers read as before: no logic here. New code uses the
 * target_* names. */
#ifndef NPUC_CC_SYSTEM_H
#define NPUC_CC_SYSTEM_H

#include "../target/target.h"

#define CC_MAX_POOLS TARGET_MAX_POOLS
#define CC_POOL_PARAMS TARGET_POOL_PARAMS
#define CC_POOL_ACTIVATIONS TARGET_POOL_ACTIVATIONS
#define CC_POOL_FAST TARGET_POOL_FAST

typedef target_pool cc_pool;
typedef target_desc cc_system;

/* = target_variant_parse / target_variant_name / target_default */
static inline int cc_target_parse(const char *name, sim_variant *out, npuc_err *err)
{
    return target_variant_parse(name, out, err);
}
static inline const char *cc_target_name(sim_variant v) { return target_variant_name(v); }
static inline int cc_system_default(sim_variant v, cc_system *out, npuc_err *err)
{
    return target_default(v, out, err);
}
/* A --system-config value alone (built-in name, SYSTEM:MODE or JSON file;
 * NULL = the default): target_load. */
static inline int cc_system_load(const char *spec, sim_variant v, cc_system *out, npuc_err *err)
{
    target_spec s = {.system_config = spec};
    return target_load(&s, v, out, err);
}

#endif
