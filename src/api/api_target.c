/* The API's errors (one last error per thread) and the target spec:
 * npuc_target_spec strings -> NPU variant, the cycle model's system and
 * the compiler's system. */
#include "api_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ errors */

_Static_assert((int)NPUC_STATUS_FORMAT == (int)NPUC_E_FORMAT && (int)NPUC_STATUS_INVALID == (int)NPUC_E_INVALID &&
                   (int)NPUC_STATUS_UNSUPPORTED == (int)NPUC_E_UNSUPPORTED && (int)NPUC_STATUS_IO == (int)NPUC_E_IO &&
                   (int)NPUC_STATUS_NOMEM == (int)NPUC_E_NOMEM && (int)NPUC_STATUS_USAGE == (int)NPUC_E_USAGE &&
                   (int)NPUC_STATUS_RUNTIME == (int)NPUC_E_RUNTIME,
               "npuc_status mirrors the npuc_err codes");

static _Thread_local npuc_err last;

int api_result(int rc, const npuc_err *err)
{
    if (rc == NPUC_OK) {
        last.code = NPUC_OK;
        last.msg[0] = 0;
        return NPUC_OK;
    }
    last.code = rc;
    snprintf(last.msg, sizeof last.msg, "%s", err && err->msg[0] ? err->msg : npuc_err_code_name(rc));
    return rc;
}

int api_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    last.code = NPUC_E_USAGE;
    vsnprintf(last.msg, sizeof last.msg, fmt, ap);
    va_end(ap);
    return NPUC_E_USAGE;
}

const char *npuc_last_error(void) { return last.msg; }

int npuc_last_err(npuc_err *err)
{
    if (err) *err = last;
    return last.code;
}

const char *npuc_status_name(int status)
{
    switch (status) {
    case NPUC_STATUS_OK: return "ok";
    case NPUC_STATUS_FORMAT: return "format";
    case NPUC_STATUS_INVALID: return "invalid";
    case NPUC_STATUS_UNSUPPORTED: return "unsupported";
    case NPUC_STATUS_IO: return "io";
    case NPUC_STATUS_NOMEM: return "nomem";
    case NPUC_STATUS_USAGE: return "usage";
    case NPUC_STATUS_RUNTIME: return "runtime";
    }
    return "unknown";
}

/* ------------------------------------------------------------------ target */

int api_target_npu(const npuc_target_spec *t, bool *have, sim_variant *v, npuc_err *err)
{
    *have = false;
    if (!t) return NPUC_OK;
    /* target room: a vela.ini (config) is read by the target parser (src/target/) once it lands */
    if (t->config)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s: vela.ini configurations are not supported yet", t->config);
    if (!t->npu) return NPUC_OK;
    int rc = cc_target_parse(t->npu, v, err);
    if (!rc) *have = true;
    return rc;
}

/* A system config that only the compiler's reader knows: "SYSTEM:MODE" or
 * a JSON file (the cycle model's lookup takes bare built-in names). */
static bool cc_spec(const char *s)
{
    return strchr(s, ':') || strchr(s, '/') || strstr(s, ".json") || access(s, F_OK) == 0;
}

/* target room: the system resolution below uses today's functions (the
 * cycle model's sim_system_lookup for built-in names, cc_system_load for
 * "SYSTEM:MODE" and files) until the target parser replaces them. */
int api_target_system(const char *system_config, const char *memory_mode, sim_variant v, sim_system *out,
                      npuc_err *err)
{
    if (!system_config && !memory_mode) {
        sim_system_default(v, out);
        return NPUC_OK;
    }
    if (system_config && !memory_mode && cc_spec(system_config)) {
        cc_system cs;
        int rc = cc_system_load(system_config, v, &cs, err);
        if (rc) return rc;
        *out = cs.sim;
        return NPUC_OK;
    }
    sim_system def;
    sim_system_default(v, &def);
    return sim_system_lookup(system_config ? system_config : def.name,
                             memory_mode ? memory_mode : (sim_variant_is_u65(v) ? "Dedicated_Sram" : "Shared_Sram"),
                             out, err);
}

int api_target_cc_system(const char *system_config, const char *memory_mode, sim_variant v, cc_system *out,
                         npuc_err *err)
{
    if (!memory_mode) return system_config ? cc_system_load(system_config, v, out, err) : cc_system_default(v, out, err);
    sim_system def;
    sim_system_default(v, &def);
    char spec[256];
    snprintf(spec, sizeof spec, "%s:%s", system_config ? system_config : def.name, memory_mode);
    return cc_system_load(spec, v, out, err);
}

int npuc_target_check(const npuc_target_spec *t)
{
    npuc_err err = {0};
    bool have;
    sim_variant v = SIM_U55_256;
    int rc = api_target_npu(t, &have, &v, &err);
    if (!rc && t && (t->system_config || t->memory_mode)) {
        sim_system s;
        rc = api_target_system(t->system_config, t->memory_mode, v, &s, &err);
    }
    return api_result(rc, &err);
}
