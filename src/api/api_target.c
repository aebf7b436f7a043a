/* The API's errors (one last error per thread) and the target spec:
 * npuc_target_spec strings -> NPU variant, the cycle model's system and
 * the compiler's system. */
#include "api_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void api_target_spec(const npuc_target_spec *t, target_spec *out)
{
    memset(out, 0, sizeof *out);
    if (!t) return;
    out->target = t->npu;
    out->config = t->config;
    out->system_config = t->system_config;
    out->memory_mode = t->memory_mode;
}

int api_resolve_target(npuc_model *m, const target_found *found, const eu_variant *stream_variant,
                       npuc_err *err)
{
    target_spec spec;
    api_target_spec(m->open_spec, &spec);
    target_desc rec;
    bool have_rec = false, have_var = false;
    eu_variant v;
    int rc;
    if (found && (rc = target_found_parse(found, m->name ? m->name : "model", &rec, &have_rec, &v, &have_var, err)))
        return rc;
    if (!have_var && stream_variant) {
        v = *stream_variant;
        have_var = true;
    }
    return target_resolve(&spec, have_rec ? &rec : NULL, have_var ? &v : NULL, &m->target, err);
}

int npuc_target_check(const npuc_target_spec *t)
{
    npuc_err err = {0};
    target_spec spec;
    api_target_spec(t, &spec);
    target_desc d;
    int rc = target_resolve(&spec, NULL, NULL, &d, &err);
    return api_result(rc, &err);
}
