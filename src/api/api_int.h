/* Internal to src/api/: the handles' contents and the helpers the API's
 * files share. */
#ifndef NPUC_API_INT_H
#define NPUC_API_INT_H

#include "api.h"
#include "compiler/cc.h"
#include "interp/interp.h"
#include "driver/host/ethosu_host.h"
#include "npurt/npurt.h"
#include "npurt/reloc.h"

/* ------------------------------------------------------------------ errors */

/* Records err as this thread's last error and returns its code; with
 * rc == NPUC_OK clears it. */
int api_result(int rc, const npuc_err *err);
/* Records a usage error (printf-style) and returns NPUC_STATUS_USAGE. */
int api_usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ------------------------------------------------------------------ target */

/* The API's target spec as the target room's (the same four strings). */
void api_target_spec(const npuc_target_spec *t, target_spec *out);
/* The one rule (target_resolve) for a model being opened: the caller's
 * spec (m->open_spec), what the model's bytes say (its record and the NPU
 * its command streams need; NULL: nothing). Fills m->target. */
int api_resolve_target(npuc_model *m, const target_found *found, const eu_variant *stream_variant,
                       npuc_err *err);

/* --------------------------------------------------------------------- model */

/* An input or output. */
typedef struct api_io {
    npuc_tensor_info info;
    float scale;              /* compiled models: the record's quantization */
    int64_t zero_point;
    uint8_t *value;           /* input: the value set (NULL: not set yet) */
} api_io;

struct npuc_model {
    npuc_form form;
    char *name;                       /* message prefix; NULL: none */
    /* target */
    const npuc_target_spec *open_spec; /* the caller's, during open only */
    target_desc target;               /* resolved at open (api_resolve_target) */
    bool have_sys;                    /* npuc_open_system */
    sim_system given_sys;
    eu_variant given_variant;
    char npu_name[32];                /* "ethos-u55-128" once the NPU exists */
    char sys_name[64];                /* the system config the NPU runs (a copy) */
    double core_clock_hz;
    uint32_t macs_per_cycle;
    /* TFLite */
    tfl_model *tm;
    graph *g;
    interp *ip;
    sim_npu *npu;
    uint32_t n_ethosu;
    uint64_t ethosu_cs_bytes;  /* TFLite: the ethos-u ops' command streams */
    bool keep_tensors;
    /* compiled models */
    uint8_t *blob, *params;           /* 16-byte aligned copies */
    size_t blob_size, params_size;
    npurt_model model;
    npurt_instance inst;
    npurt_reloc_instance *ri;
    npurt_model *mp;                  /* &model or &ri->model */
    npurt_instance *rt;               /* &inst or &ri->rt */
    uint8_t *exec_ram, *act, *state, *fast;
    ethosu_host_npu *hnpu;
    struct ethosu_driver drv;
    bool drv_up, mapped;
    npurt_epoch_profile *rprof;       /* [n_epochs + 1] */
    /* inputs and outputs */
    uint32_t n_in, n_out;
    api_io *in, *out;
    /* the run */
    const npuc_run_options *run;      /* during npuc_run */
    bool ran, ready;
    /* the profile */
    npuc_profile prof;
    npuc_stream_profile *streams;
    size_t cap_streams;
    npuc_npu_op *ops;
    size_t n_ops, cap_ops;
    npuc_epoch_profile *eprof;
};

/* The virtual NPU's system: the one given at open (npuc_open_system) when
 * it is for the resolved target's NPU, else the resolved target's. */
void api_model_system(const npuc_model *m, sim_system *out);
/* Notes the NPU the model runs on (npuc_model_info). */
void api_note_npu(npuc_model *m, eu_variant v, const sim_system *sys);

/* 16-byte aligned zeroed memory of at least n bytes (at least 16). */
void *api_alloc16(size_t n);
/* "NAME: " prefixes for messages ("" when the model has no name). */
int api_prefix(const npuc_model *m, npuc_err *err);

/* Opening (api_tflite.c / api_compiled.c): fill the model from m->blob. */
int api_open_tflite(npuc_model *m, const npuc_open_options *o, npuc_err *err);
int api_open_compiled(npuc_model *m, const npuc_open_options *o, const char *path, npuc_err *err);
void api_close_tflite(npuc_model *m);
void api_close_compiled(npuc_model *m);
int api_run_tflite(npuc_model *m, npuc_err *err);
int api_run_compiled(npuc_model *m, npuc_err *err);

/* Profile records (api_profile.c). */
void api_profile_reset(npuc_model *m);
/* Appends the stream the NPU just ran (its operation records). */
int api_profile_stream(npuc_model *m, int32_t index, sim_npu *npu, bool read_pmu);
/* Sets up the PMU as an application does: cycle counter and four events. */
void api_pmu_setup(sim_npu *npu);

/* Trace: forwards a command line to the run's callback. */
void api_trace_line(void *user, const char *line);
void api_event(npuc_model *m, npuc_event_kind kind, int32_t index);

#endif
