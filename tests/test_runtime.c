/* The runtime end to end: models compiled by npuc (cc_compile + emit_npurt)
 * are loaded by npurt, run through the ethos-u driver on virtual NPUs and
 * the prepared CPU kernels, and every output is compared byte for byte with
 * the reference interpreter on the source model. Also: corrupt blobs and
 * bad memory are rejected with the right status and location; serial and
 * epoch-level multi-model scheduling (a high-priority model gets the NPU at
 * the next epoch boundary of a long low-priority one).
 *
 * Environment: NPUC_RUNTIME_GENMODELS (default 200; fewer under sanitizers). */
#include "test.h"
#include "../src/kernels/k_op.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/interp/interp.h"
#include "../src/sim/sim.h"
#include "../src/driver/host/ethosu_host.h"
#include "../src/runtime/host/npurt_host.h"
#include "test_host_npus.h"
#include "../tools/genmodel/genmodel.h"
#include "npurt/npurt.h"
#include "npurt/npurt_osal.h"

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define T_SLOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define T_SLOW 1
#endif
#endif
#ifndef T_SLOW
#define T_SLOW 0
#endif


static void *alloc16(size_t n)
{
    size_t sz = (n + 15) / 16 * 16;
    void *p = aligned_alloc(16, sz ? sz : 16);
    if (p) memset(p, 0xA5, sz ? sz : 16); /* garbage: the runtime must not rely on zeroed memory */
    return p;
}

static int compile_blob(const graph *g, eu_variant v, bool size_opt, uint8_t **blob, size_t *n, npuc_err *err)
{
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    opt.optimise = size_opt ? CC_OPT_SIZE : CC_OPT_PERFORMANCE;
    int rc = target_default(v, &opt.sys, err);
    if (rc) return rc;
    cc_model *cm = NULL;
    if ((rc = cc_compile(g, &opt, &cm, err))) return rc;
    uint8_t *b = NULL;
    rc = emit_npurt(cm, g->name ? g->name : "model", &b, n, err);
    cc_model_free(cm);
    if (rc) return rc;
    /* the runtime needs the blob 16-byte aligned */
    *blob = alloc16(*n);
    memcpy(*blob, b, *n);
    free(b);
    return NPUC_OK;
}

static void fill_random(npuc_rng *r, uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++) d[i] = (uint8_t)npuc_rng_range(r, 0, 255);
}

/* A loaded, initialised, mapped instance with its memory. */
typedef struct rt {
    npurt_model m;
    npurt_instance inst;
    uint8_t *act, *state, *fast;
    uint8_t *saved_in[16];    /* inputs as they were before the run */
    uint32_t saved_n[16];
} rt;

static int rt_open(rt *r, const uint8_t *blob, size_t n, struct ethosu_driver *drv, npurt_error *e)
{
    memset(r, 0, sizeof *r);
    int rc = npurt_model_load(&r->m, blob, n, e);
    if (rc) return rc;
    uint32_t an = npurt_model_pool_size(&r->m, NPURT_POOL_ACTIVATIONS);
    uint32_t sn = npurt_model_pool_size(&r->m, NPURT_POOL_STATE);
    r->act = alloc16(an);
    uint32_t fn = npurt_model_pool_size(&r->m, NPURT_POOL_FAST);
    r->state = alloc16(sn);
    r->fast = fn ? alloc16(fn) : NULL;   /* the model's fast scratch pool, if any */
    npurt_memory mem = {.activations = r->act, .activations_size = an, .state = r->state, .state_size = sn,
                        .fast = r->fast, .fast_size = fn};
    if ((rc = npurt_init(&r->inst, &r->m, &mem, e))) return rc;
    r->inst.drv = drv;
    npuc_err err = {0};
    if (drv && npurt_host_map(&r->inst, &err)) {
        fprintf(stderr, "map: %s\n", err.msg);
        return NPURT_E_MEMORY;
    }
    return NPURT_OK;
}

static void rt_close(rt *r)
{
    if (r->inst.model) npurt_host_unmap(&r->inst);
    for (int i = 0; i < 16; i++) free(r->saved_in[i]);
    free(r->act);
    free(r->state);
    free(r->fast);
    memset(r, 0, sizeof *r);
}

/* Keeps the inputs as they are before a run (the run may reuse their bytes). */
static void save_inputs(rt *r)
{
    for (uint32_t i = 0; i < npurt_model_n_inputs(&r->m) && i < 16; i++) {
        const void *d = npurt_input(&r->inst, i, &r->saved_n[i]);
        free(r->saved_in[i]);
        r->saved_in[i] = malloc(r->saved_n[i] + 1);
        memcpy(r->saved_in[i], d, r->saved_n[i]);
    }
}

/* Reference outputs of g for the saved inputs (save_inputs). 0 ok, 1 the
 * reference rejects the input (skip), -1 error. */
static int compare_with_reference(const graph *g, rt *r, const char *what)
{
    interp *ip = NULL;
    npuc_err err = {0};
    interp_options io;
    memset(&io, 0, sizeof io);
    if (interp_create(g, &io, &ip, &err)) {
        fprintf(stderr, "%s: interp_create: %s\n", what, err.msg);
        return -1;
    }
    for (int32_t i = 0; i < g->n_inputs; i++) {
        if (interp_set_input(ip, i, r->saved_in[i], r->saved_n[i], &err)) {
            fprintf(stderr, "%s: set_input: %s\n", what, err.msg);
            interp_free(ip);
            return -1;
        }
    }
    if (interp_invoke(ip, &err)) {
        interp_free(ip);
        return 1;
    }
    int bad = 0;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        size_t rn;
        const uint8_t *ref = interp_output(ip, i, &rn);
        uint32_t n;
        const uint8_t *got = npurt_output(&r->inst, (uint32_t)i, &n);
        if (n != rn || memcmp(ref, got, n)) {
            size_t k = 0;
            while (k < n && k < rn && ref[k] == got[k]) k++;
            fprintf(stderr, "%s: output %d differs at byte %zu of %zu (runtime %d, reference %d)\n", what, i, k, rn,
                    k < n ? got[k] : -1, k < rn ? ref[k] : -1);
            bad = 1;
        }
    }
    interp_free(ip);
    return bad ? -1 : 0;
}

/* Runs a blob with random inputs and compares with the reference. */
static int check_blob(const graph *g, const uint8_t *blob, size_t n, eu_variant v, uint64_t seed, bool poll,
                      const char *what, long *hw_epochs, long *sw_epochs)
{
    rt r;
    npurt_error e = {0};
    if (rt_open(&r, blob, n, driver_for(v), &e)) {
        char msg[256];
        npurt_host_error_text(&r.m, &e, msg, sizeof msg);
        fprintf(stderr, "%s: open: %s\n", what, msg);
        rt_close(&r);
        return -1;
    }
    r.inst.wait = poll ? NPURT_WAIT_POLL : NPURT_WAIT_IRQ;
    npurt_epoch_profile prof[256];
    r.inst.profile = prof;
    r.inst.profile_cap = 256;
    npuc_rng rng;
    npuc_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < npurt_model_n_inputs(&r.m); i++) {
        uint32_t sz;
        uint8_t *d = npurt_input(&r.inst, i, &sz);
        fill_random(&rng, d, sz);
        /* float inputs: keep them finite and small */
        if (npurt_model_input(&r.m, i)->dtype == NPURT_DT_FLOAT32)
            for (uint32_t k = 0; k + 4 <= sz; k += 4) {
                float f = (float)npuc_rng_range(&rng, -1000, 1000) / 1000.0f;
                memcpy(d + k, &f, 4);
            }
    }
    save_inputs(&r);
    int rc = npurt_run(&r.inst);
    if (rc) {
        char msg[256], npu[256] = "";
        npurt_host_error_text(&r.m, &r.inst.err, msg, sizeof msg);
        ethosu_host_npu_error(npus[v], npu, sizeof npu);
        /* a CPU kernel may reject a random draw the reference rejects too */
        int ref = compare_with_reference(g, &r, what);
        rt_close(&r);
        if (rc == NPURT_E_KERNEL && ref == 1) return 1;
        fprintf(stderr, "%s: run: %s %s\n", what, msg, npu);
        return -1;
    }
    for (uint32_t i = 0; i < r.m.h->n_epochs && i < 256; i++) {
        if (r.m.epochs[i].kind == NPURT_EPOCH_HW) {
            (*hw_epochs)++;
            if (!prof[i].npu_cycles) {
                fprintf(stderr, "%s: HW epoch %u: PMU cycle count 0\n", what, i);
                rc = -1;
            }
        } else {
            (*sw_epochs)++;
        }
    }
    int cmp = compare_with_reference(g, &r, what);
    rt_close(&r);
    return rc ? rc : cmp;
}

/* ------------------------------------------------------- real models */

static int list_models(const char *dir, char names[][512], int max)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        size_t l = strlen(de->d_name);
        if (l > 7 && !strcmp(de->d_name + l - 7, ".tflite") && !strstr(de->d_name, "_vela"))
            snprintf(names[n++], 512, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    return n;
}

static void test_models(void)
{
    char buf[512];
    const char *root = t_shared("models/tflm/person_detect.tflite", buf, sizeof buf);
    if (!root) {
        printf("skip: ../shared models not found\n");
        return;
    }
    static char files[256][512];
    int n = 0;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/models/tflm", getenv("NPUC_SHARED") ? getenv("NPUC_SHARED") : "../shared");
    n = list_models(dir, files, 256);
    static const char *sub[] = {"add", "conv", "leaky_relu", "pad", "quantize", "strided_slice", "sub", "transpose_conv"};
    for (size_t s = 0; s < sizeof sub / sizeof sub[0]; s++) {
        char d2[600];
        snprintf(d2, sizeof d2, "%s/seanet/%s", dir, sub[s]);
        n += list_models(d2, files + n, 256 - n);
    }
    static const eu_variant vs[] = {EU_U55_128, EU_U65_256, EU_U55_64, EU_U55_256, EU_U65_512, EU_U55_32};
    int models = 0, runs = 0, fails = 0;
    long hw = 0, sw = 0;
    for (int i = 0; i < n; i++) {
        tfl_model *tm = NULL;
        graph *g = NULL;
        npuc_err err = {0};
        if (tfl_read_file(files[i], &tm, &err) || graph_import(tm, &g, &err)) {
            fprintf(stderr, "%s: %s\n", files[i], err.msg);
            fails++;
            tfl_model_free(tm);
            continue;
        }
        models++;
        int n_var = T_SLOW ? 1 : 2;
        for (int k = 0; k < n_var; k++) {
            eu_variant v = vs[(i + k) % 6];
            uint8_t *blob = NULL;
            size_t bn = 0;
            if (compile_blob(g, v, (i + k) % 4 == 3, &blob, &bn, &err)) {
                fprintf(stderr, "%s (%s): compile: %s\n", files[i], eu_variant_name(v), err.msg);
                fails++;
                continue;
            }
            char what[700];
            snprintf(what, sizeof what, "%.600s (%s)", files[i], eu_variant_name(v));
            int rc = check_blob(g, blob, bn, v, (uint64_t)i * 7 + (uint64_t)k, (i + k) % 2 == 1, what, &hw, &sw);
            if (rc < 0) fails++;
            runs++;
            free(blob);
        }
        graph_free(g);
        tfl_model_free(tm);
    }
    printf("shared models: %d models, %d runs, %ld HW and %ld CPU epochs, %d failures\n", models, runs, hw, sw, fails);
    CHECK(models > 100);
    CHECK(sw > 0 && hw > 0);
    CHECK_EQ_INT(fails, 0);
}

/* ------------------------------------------------------- generated models */

/* Appends a BROADCAST_TO its own shape (a copy with no NPU form) after the model's first
 * output, so that generated models also run CPU epochs after HW ones (the
 * compiler puts every op genmodel draws on the NPU). 0 on success. */
static int add_cpu_tail(graph *g)
{
    if (g->n_outputs < 1 || g->n_outputs > 16 || g->n_inputs > 16) return -1;
    int32_t ins[16], outs[16], shape[8];
    memcpy(ins, g->inputs, sizeof(int32_t) * (size_t)g->n_inputs);
    memcpy(outs, g->outputs, sizeof(int32_t) * (size_t)g->n_outputs);
    const graph_tensor *t = &g->tensors[outs[0]];
    graph_dtype dt = t->dtype;
    int32_t rank = t->rank;
    if (rank < 1 || rank > 5) return -1;
    memcpy(shape, t->shape, sizeof(int32_t) * (size_t)rank);
    float scale = t->q.n >= 1 ? t->q.scale[0] : 0.0f;
    int64_t zp = t->q.n >= 1 ? t->q.zero_point[0] : 0;
    bool quant = t->q.n >= 1;
    int32_t ax = graph_add_tensor(g, "cpu_tail_shape", GRAPH_I32, 1, &rank, shape);
    int32_t y = graph_add_tensor(g, "cpu_tail", dt, rank, shape, NULL);
    if (ax < 0 || y < 0 || (quant && graph_set_quant(g, y, 1, &scale, &zp, 0))) return -1;
    tfl_options o;
    memset(&o, 0, sizeof o);
    int32_t in2[2] = {outs[0], ax};
    if (graph_add_op(g, TFL_OP_BROADCAST_TO, &o, 2, in2, 1, &y) < 0) return -1;
    outs[0] = y;
    return graph_set_io(g, g->n_inputs, ins, g->n_outputs, outs) ? -1 : 0;
}

static void test_genmodels(void)
{
    long count = T_SLOW ? 40 : 200;
    const char *env = getenv("NPUC_RUNTIME_GENMODELS");
    if (env && *env) count = strtol(env, NULL, 0);
    static const eu_variant vs[] = {EU_U55_32, EU_U55_64, EU_U55_128, EU_U55_256, EU_U65_256, EU_U65_512};
    int built = 0, skipped = 0, fails = 0, draws_skipped = 0;
    long hw = 0, sw = 0;
    for (long s = 1; s <= count; s++) {
        genmodel_config cfg;
        genmodel_config_default(&cfg);
        cfg.int16 = (s & 1) != 0;
        graph *g = NULL;
        npuc_err err = {0};
        if (genmodel_build((uint64_t)s + 5000, &cfg, &g, &err)) {
            skipped++;
            continue;
        }
        if (s % 3 == 0 && add_cpu_tail(g)) {
            fprintf(stderr, "genmodel seed %ld: adding the CPU tail failed\n", s + 5000);
            fails++;
            graph_free(g);
            continue;
        }
        eu_variant v = vs[s % 6];
        uint8_t *blob = NULL;
        size_t bn = 0;
        if (compile_blob(g, v, s % 5 == 0, &blob, &bn, &err)) {
            /* the compiler must not reject what the reference accepts */
            interp *ip = NULL;
            interp_options io;
            memset(&io, 0, sizeof io);
            npuc_err e2 = {0};
            if (interp_create(g, &io, &ip, &e2) == 0) {
                fprintf(stderr, "genmodel seed %ld (%s): compile: %s\n", s + 5000, eu_variant_name(v), err.msg);
                fails++;
            } else {
                skipped++;
            }
            interp_free(ip);
            graph_free(g);
            continue;
        }
        built++;
        char what[128];
        snprintf(what, sizeof what, "genmodel seed %ld (%s)", s + 5000, eu_variant_name(v));
        for (int d = 0; d < 2; d++) {
            int rc = check_blob(g, blob, bn, v, (uint64_t)s * 31 + (uint64_t)d, d == 1, what, &hw, &sw);
            if (rc < 0) fails++;
            if (rc > 0) draws_skipped++;
        }
        free(blob);
        graph_free(g);
    }
    printf("generated models: %d run, %d skipped (reference rejects), %d draws skipped, %ld HW and %ld CPU epochs, "
           "%d failures\n", built, skipped, draws_skipped, hw, sw, fails);
    CHECK(built > count / 2);
    CHECK(sw > 0);
    CHECK_EQ_INT(fails, 0);
}

/* ------------------------------------------------------- bad blobs and memory */

static uint8_t *load_and_compile(const char *rel, eu_variant v, graph **gout, tfl_model **tmout, size_t *n)
{
    char buf[512];
    const char *path = t_shared(rel, buf, sizeof buf);
    if (!path) return NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, tmout, &err) || graph_import(*tmout, gout, &err)) return NULL;
    uint8_t *blob = NULL;
    if (compile_blob(*gout, v, false, &blob, n, &err)) {
        fprintf(stderr, "%s: %s\n", rel, err.msg);
        return NULL;
    }
    return blob;
}

static void fix_crc(uint8_t *blob)
{
    npurt_header *h = (npurt_header *)blob;
    h->crc32 = emit_crc32(blob + 16, h->size - 16);
}

static int load_status(const uint8_t *blob, size_t n, npurt_error *e)
{
    npurt_model m;
    return npurt_model_load(&m, blob, n, e);
}

static void test_bad_blobs(void)
{
    graph *g = NULL;
    tfl_model *tm = NULL;
    size_t n = 0;
    uint8_t *blob = load_and_compile("models/tflm/person_detect.tflite", EU_U55_128, &g, &tm, &n);
    if (!blob) {
        printf("skip: person_detect not found\n");
        return;
    }
    uint8_t *b = alloc16(n);
    npurt_error e = {0};
    memcpy(b, blob, n);
    CHECK_EQ_INT(load_status(b, n, &e), NPURT_OK);
    const npurt_header *h0 = (const npurt_header *)blob;

    /* truncation anywhere */
    int trunc_ok = 0;
    for (size_t k = 0; k < n; k += (k < 4096 ? 1 : 997))
        trunc_ok += load_status(b, k, &e) != NPURT_OK;
    CHECK(trunc_ok > 0);
    for (size_t k = 0; k < n; k += (k < 4096 ? 1 : 997)) {
        int rc = load_status(b, k, &e);
        if (rc == NPURT_OK) {
            fprintf(stderr, "truncated to %zu bytes loads\n", k);
            CHECK(0);
            break;
        }
    }
    /* any flipped bit: the checksum (or the header) catches it */
    int flips = 0, caught = 0;
    for (size_t k = 0; k < n; k += (k < 2048 ? 1 : 61)) {
        if (k == 6 || k == 7) continue; /* minor version: readers accept any */
        b[k] ^= 0x10;
        flips++;
        caught += load_status(b, n, &e) != NPURT_OK;
        b[k] ^= 0x10;
    }
    CHECK_EQ_INT(caught, flips);
    b[20] ^= 1; /* npu_id: covered by the CRC */
    CHECK_EQ_INT(load_status(b, n, &e), NPURT_E_CRC);
    CHECK_EQ_INT(e.offset, 12);
    b[20] ^= 1;

    /* fields changed with a valid checksum: each gives its own error */
    struct {
        size_t at;
        uint32_t value;
        int code;
        const char *what;
    } cases[] = {
        {0, 0x12345678, NPURT_E_FORMAT, "bad magic"},
        {4, 2, NPURT_E_VERSION, "major version"},
        {48, 0xFFFFFF00u, NPURT_E_FORMAT, "pool table outside"},
        {52, 3, NPURT_E_FORMAT, "tensor table outside"},
        {56, h0->size, NPURT_E_FORMAT, "epoch table outside"},
        {68, h0->size - 4, NPURT_E_FORMAT, "string table outside"},
        {h0->pools_off + 4, 9, NPURT_E_FORMAT, "unknown pool kind"},
        {h0->pools_off + 8, 8, NPURT_E_FORMAT, "params pool data outside"},
        {h0->tensors_off + 0, 7, NPURT_E_FORMAT, "tensor pool index"},
        {h0->tensors_off + 4, 0x7FFFFFF0u, NPURT_E_FORMAT, "tensor lies outside its pool"},
        {h0->tensors_off + 8, 5, NPURT_E_FORMAT, "does not match its shape"},
        {h0->tensors_off + 20, 0xFFFFFFFFu, NPURT_E_FORMAT, "negative tensor dimension"},
        {h0->epochs_off + 0, 9, NPURT_E_FORMAT, "unknown epoch kind"},
        {h0->epochs_off + 12, 8, NPURT_E_FORMAT, "command payload"},
        {h0->epochs_off + 16, 0x7FFFFFF0u, NPURT_E_FORMAT, "command payload"},
        {h0->epochs_off + 20, 4, NPURT_E_FORMAT, "constants outside"},
        {h0->io_off, 9999, NPURT_E_FORMAT, "is not a tensor"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(b, blob, n);
        uint32_t v = cases[c].value;
        if (cases[c].at == 0 || cases[c].at + 4 <= n) memcpy(b + cases[c].at, &v, 4);
        if (cases[c].at >= 16) fix_crc(b);
        else if (cases[c].at == 4) {
            uint16_t major = 2;
            memcpy(b, blob, n);
            memcpy(b + 4, &major, 2);
            fix_crc(b);
        }
        int rc = load_status(b, n, &e);
        if (rc != cases[c].code || !e.what || !strstr(e.what, cases[c].what)) {
            fprintf(stderr, "case %zu (byte %zu = 0x%x): got %d '%s', want %d '%s'\n", c, cases[c].at, v, rc,
                    e.what ? e.what : "", cases[c].code, cases[c].what);
            CHECK(0);
        }
        if (cases[c].at >= 48) CHECK(e.offset >= 48);
    }
    /* misaligned blob */
    memcpy(b, blob, n);
    uint8_t *mis = alloc16(n + 16);
    memcpy(mis + 4, blob, n);
    CHECK_EQ_INT(load_status(mis + 4, n, &e), NPURT_E_ARG);
    free(mis);

    /* memory */
    npurt_model m;
    npurt_instance inst;
    CHECK_EQ_INT(npurt_model_load(&m, b, n, &e), NPURT_OK);
    uint32_t an = npurt_model_pool_size(&m, NPURT_POOL_ACTIVATIONS);
    uint8_t *act = alloc16(an + 64);
    npurt_memory mem = {.activations = NULL, .activations_size = an};
    CHECK_EQ_INT(npurt_init(&inst, &m, &mem, &e), NPURT_E_MEMORY);
    CHECK_STR_CONTAINS(e.what, "no memory");
    mem.activations = act;
    mem.activations_size = an - 16;
    CHECK_EQ_INT(npurt_init(&inst, &m, &mem, &e), NPURT_E_MEMORY);
    CHECK_STR_CONTAINS(e.what, "smaller");
    mem.activations = act + 4;
    mem.activations_size = an;
    CHECK_EQ_INT(npurt_init(&inst, &m, &mem, &e), NPURT_E_MEMORY);
    CHECK_STR_CONTAINS(e.what, "aligned");
    mem.activations = act;
    mem.params = act + 16; /* a params copy overlapping the activations */
    CHECK_EQ_INT(npurt_init(&inst, &m, &mem, &e), NPURT_E_MEMORY);
    CHECK_STR_CONTAINS(e.what, "overlap");
    free(act);

    /* a broken command stream: the NPU reports it, the epoch is named, and
     * the NPU works again for the next run */
    memcpy(b, blob, n);
    {
        rt r;
        npurt_header *h = (npurt_header *)b;
        npurt_epoch_rec *ep = (npurt_epoch_rec *)(b + h->epochs_off);
        npurt_pool_rec *pools = (npurt_pool_rec *)(b + h->pools_off);
        uint32_t magic_at = pools[0].data_off + ep[0].cmd_off;
        b[magic_at] ^= 0xFF; /* COP1 magic */
        fix_crc(b);
        CHECK_EQ_INT(rt_open(&r, b, n, driver_for(EU_U55_128), &e), NPURT_OK);
        CHECK_EQ_INT(npurt_run(&r.inst), NPURT_E_NPU);
        CHECK_EQ_INT(r.inst.err.epoch, 0);
        rt_close(&r);
        long hw = 0, sw = 0;
        CHECK_EQ_INT(check_blob(g, blob, n, EU_U55_128, 3, false, "person_detect after a failed run", &hw, &sw), 0);
    }
    /* compiled for U65-256, run on a U55-128: the driver refuses the payload */
    {
        uint8_t *b65 = NULL;
        size_t n65 = 0;
        npuc_err err = {0};
        CHECK_EQ_INT(compile_blob(g, EU_U65_256, false, &b65, &n65, &err), 0);
        rt r;
        CHECK_EQ_INT(rt_open(&r, b65, n65, driver_for(EU_U55_128), &e), NPURT_OK);
        CHECK_EQ_INT(npurt_run(&r.inst), NPURT_E_NPU);
        rt_close(&r);
        free(b65);
    }
    free(b);
    free(blob);
    graph_free(g);
    tfl_model_free(tm);
}

/* A CPU epoch with a corrupt kernel blob or kind fails cleanly. */
static void test_bad_kernel(void)
{
    graph *g = NULL;
    tfl_model *tm = NULL;
    size_t n = 0;
    /* the keyword model's SVDF ops stay on the CPU */
    uint8_t *blob = load_and_compile("models/tflm/keyword_scrambled_8bit.tflite", EU_U55_128, &g, &tm, &n);
    if (!blob) {
        printf("skip: keyword_scrambled_8bit not found\n");
        return;
    }
    npurt_header *h = (npurt_header *)blob;
    npurt_epoch_rec *ep = (npurt_epoch_rec *)(blob + h->epochs_off);
    int sw = -1;
    for (uint32_t i = 0; i < h->n_epochs; i++)
        if (ep[i].kind != NPURT_EPOCH_HW) sw = (int)i;
    CHECK(sw >= 0);
    if (sw >= 0) {
        npurt_error e = {0};
        rt r;
        uint32_t saved = ep[sw].kernel;
        ep[sw].kernel = 60000; /* unknown kind */
        fix_crc(blob);
        CHECK_EQ_INT(rt_open(&r, blob, n, driver_for(EU_U55_128), &e), NPURT_OK);
        CHECK_EQ_INT(npurt_run(&r.inst), NPURT_E_KERNEL);
        CHECK_EQ_INT(r.inst.err.epoch, sw);
        rt_close(&r);
        ep[sw].kernel = saved;
        fix_crc(blob);
        /* a kernel table (npurt_instance.kernels) without the epoch's
         * family fails that epoch with a clear message; the model's own
         * families run it */
        CHECK_EQ_INT(rt_open(&r, blob, n, driver_for(EU_U55_128), &e), NPURT_OK);
        static npurt_kernel_fn table[K_OP_FAM_COUNT];
        memcpy(table, k_op_all_families, sizeof table);
        uint32_t fam = k_op_family(ep[sw].kernel);
        table[fam] = NULL;
        r.inst.kernels = table;
        CHECK_EQ_INT(npurt_run(&r.inst), NPURT_E_KERNEL);
        CHECK(strstr(r.inst.err.what ? r.inst.err.what : "", "kernel table") != NULL);
        table[fam] = k_op_all_families[fam];
        CHECK_EQ_INT(npurt_run(&r.inst), NPURT_OK);
        rt_close(&r);
        ep[sw].params_size = 4; /* truncated parameters */
        fix_crc(blob);
        CHECK_EQ_INT(rt_open(&r, blob, n, driver_for(EU_U55_128), &e), NPURT_OK);
        CHECK_EQ_INT(npurt_run(&r.inst), NPURT_E_KERNEL);
        rt_close(&r);
    }
    free(blob);
    graph_free(g);
    tfl_model_free(tm);
}

/* Two instances of a model whose state only CPU ops use (keyword_scrambled:
 * seven SVDF states, in the state pool) share one activation area under the
 * serial scheduler: the model is not flagged NPURT_F_ARENA_STATE, and each
 * instance's state carries from run to run on its own. Runs alternate
 * between the two with different inputs; every output equals a reference
 * interpreter of its own that has run the same inputs in order (its state
 * carried the same way). */
static void test_serial_state(void)
{
    graph *g = NULL;
    tfl_model *tm = NULL;
    size_t n = 0;
    uint8_t *blob = load_and_compile("models/tflm/keyword_scrambled_8bit.tflite", EU_U55_128, &g, &tm, &n);
    if (!blob) {
        printf("skip: keyword_scrambled_8bit not found\n");
        return;
    }
    npurt_error e = {0};
    CHECK_EQ_INT(((const npurt_header *)blob)->flags & NPURT_F_ARENA_STATE, 0);
    rt r[2];
    memset(r, 0, sizeof r);
    uint8_t *shared = NULL, *st[2] = {NULL, NULL};
    interp *ip[2] = {NULL, NULL};
    CHECK_EQ_INT(npurt_model_load(&r[0].m, blob, n, &e), 0);
    r[1].m = r[0].m;
    uint32_t an = npurt_model_pool_size(&r[0].m, NPURT_POOL_ACTIVATIONS);
    uint32_t sn = npurt_model_pool_size(&r[0].m, NPURT_POOL_STATE);
    CHECK(sn >= 5120);   /* the seven states, 4 x 512 + 3 x 1024 bytes */
    shared = alloc16(an);
    npuc_err err = {0};
    interp_options io;
    memset(&io, 0, sizeof io);
    for (int i = 0; i < 2; i++) {
        st[i] = alloc16(sn);
        npurt_memory mem = {.activations = shared, .activations_size = an, .state = st[i], .state_size = sn};
        CHECK_EQ_INT(npurt_init(&r[i].inst, &r[i].m, &mem, &e), 0);
        r[i].inst.drv = driver_for(EU_U55_128);
        CHECK_EQ_INT(npurt_host_map(&r[i].inst, &err), 0);
        CHECK_EQ_INT(interp_create(g, &io, &ip[i], &err), 0);
    }
    npurt_sched s;
    CHECK_EQ_INT(npurt_sched_init(&s, NPURT_SCHED_SERIAL, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r[0].inst, 1, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r[1].inst, 2, &e), 0);
    npuc_rng rng;
    npuc_rng_seed(&rng, 2027);
    int bad = 0, runs = 0, states = 0;
    for (int k = 0; k < 10 && ip[0] && ip[1]; k++) {
        int i = k % 3 == 2 ? 1 : k % 2;   /* 0 1 1 1 0 1 0 1 1 1: runs in a row, and interleaved */
        uint32_t sz;
        uint8_t *d = npurt_input(&r[i].inst, 0, &sz);
        fill_random(&rng, d, sz);
        if (interp_set_input(ip[i], 0, d, sz, &err) || interp_invoke(ip[i], &err)) {
            fprintf(stderr, "serial state: reference: %s\n", err.msg);
            bad++;
            break;
        }
        if (npurt_run(&r[i].inst)) {
            bad++;
            break;
        }
        runs++;
        /* the state itself (the outputs of random inputs barely move): each
         * variable in the state pool as the reference holds it (the
         * model's variables have no names: found by size and quantization,
         * which tell its seven apart) */
        const npurt_model *mm = &r[i].m;
        for (uint32_t t = 0; t < mm->h->n_tensors; t++) {
            const npurt_tensor_rec *tr = &mm->tensors[t];
            if (!(tr->flags & NPURT_T_VARIABLE)) continue;
            CHECK(mm->pools[tr->pool].kind == NPURT_POOL_STATE);
            int32_t gt = -1;
            for (int32_t u = 0; u < g->n_tensors && gt < 0; u++) {
                const graph_tensor *x = &g->tensors[u];
                if (x->is_variable && x->nbytes == tr->size && x->q.n > 0 && x->q.scale[0] == tr->scale &&
                    x->q.zero_point[0] == tr->zero_point)
                    gt = u;
            }
            const uint8_t *want = gt >= 0 ? interp_tensor_data(ip[i], gt) : NULL;
            if (!want || memcmp(want, r[i].inst.base[tr->pool] + tr->offset, tr->size)) {
                fprintf(stderr, "serial state: run %d (instance %d) state tensor %u differs from the reference\n", k,
                        i, t);
                bad++;
            }
            states++;
        }
        for (int32_t o = 0; o < g->n_outputs; o++) {
            size_t rn;
            const uint8_t *ref = interp_output(ip[i], o, &rn);
            uint32_t got_n;
            const uint8_t *got = npurt_output(&r[i].inst, (uint32_t)o, &got_n);
            if (got_n != rn || memcmp(ref, got, rn)) {
                fprintf(stderr, "serial state: run %d (instance %d) output %d differs from the reference\n", k, i,
                        o);
                bad++;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(runs, 10);
    CHECK_EQ_INT(states, 70);   /* seven variables a run */
    npurt_sched_deinit(&s);
    for (int i = 0; i < 2; i++) {
        if (r[i].inst.model) npurt_host_unmap(&r[i].inst);
        interp_free(ip[i]);
        free(st[i]);
    }
    free(shared);
    free(blob);
    graph_free(g);
    tfl_model_free(tm);
}

/* A U65 model with a fast scratch pool: npurt_init refuses it without fast
 * memory (NULL would mean the activation pool, which the model's region 2
 * addresses do not fit), and runs with it. */
static void test_fast_pool(void)
{
    graph *g = NULL;
    tfl_model *tm = NULL;
    size_t n = 0;
    uint8_t *blob = load_and_compile("models/tflm/person_detect.tflite", EU_U65_256, &g, &tm, &n);
    if (!blob) {
        printf("skip: person_detect not found\n");
        return;
    }
    npurt_error e = {0};
    npurt_model m;
    CHECK_EQ_INT(npurt_model_load(&m, blob, n, &e), NPURT_OK);
    uint32_t an = npurt_model_pool_size(&m, NPURT_POOL_ACTIVATIONS);
    uint32_t fn = npurt_model_pool_size(&m, NPURT_POOL_FAST);
    CHECK(fn > 0);
    uint8_t *act = alloc16(an);
    npurt_instance inst;
    npurt_memory mem = {.activations = act, .activations_size = an};
    CHECK_EQ_INT(npurt_init(&inst, &m, &mem, &e), NPURT_E_MEMORY);
    uint8_t *fast = alloc16(fn);
    mem.fast = fast;
    mem.fast_size = fn - 16;
    CHECK_EQ_INT(npurt_init(&inst, &m, &mem, &e), NPURT_E_MEMORY);
    free(fast);
    free(act);
    rt r;
    CHECK_EQ_INT(rt_open(&r, blob, n, driver_for(EU_U65_256), &e), NPURT_OK);
    CHECK_EQ_INT(npurt_run(&r.inst), NPURT_OK);
    rt_close(&r);
    free(blob);
    graph_free(g);
    tfl_model_free(tm);
}

/* ------------------------------------------------------- several models */

static void test_serial(void)
{
    graph *g1 = NULL, *g2 = NULL;
    tfl_model *t1 = NULL, *t2 = NULL;
    size_t n1 = 0, n2 = 0;
    uint8_t *b1 = load_and_compile("models/tflm/person_detect.tflite", EU_U55_128, &g1, &t1, &n1);
    uint8_t *b2 = load_and_compile("models/tflm/micro_speech_quantized.tflite", EU_U55_128, &g2, &t2, &n2);
    if (!b1 || !b2) {
        printf("skip: models not found\n");
        return;
    }
    npurt_error e = {0};
    npurt_model m1, m2;
    CHECK_EQ_INT(npurt_model_load(&m1, b1, n1, &e), 0);
    CHECK_EQ_INT(npurt_model_load(&m2, b2, n2, &e), 0);
    uint32_t a1 = npurt_model_pool_size(&m1, NPURT_POOL_ACTIVATIONS), a2 = npurt_model_pool_size(&m2, NPURT_POOL_ACTIVATIONS);
    uint32_t an = a1 > a2 ? a1 : a2;
    uint8_t *shared = alloc16(an);
    uint8_t *s1 = alloc16(npurt_model_pool_size(&m1, NPURT_POOL_STATE));
    uint8_t *s2 = alloc16(npurt_model_pool_size(&m2, NPURT_POOL_STATE));
    npurt_memory mem1 = {.activations = shared, .activations_size = an, .state = s1,
                         .state_size = npurt_model_pool_size(&m1, NPURT_POOL_STATE)};
    npurt_memory mem2 = {.activations = shared, .activations_size = an, .state = s2,
                         .state_size = npurt_model_pool_size(&m2, NPURT_POOL_STATE)};
    rt r1, r2;
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    r1.m = m1;
    r2.m = m2;
    CHECK_EQ_INT(npurt_init(&r1.inst, &r1.m, &mem1, &e), 0);
    CHECK_EQ_INT(npurt_init(&r2.inst, &r2.m, &mem2, &e), 0);
    r1.inst.drv = r2.inst.drv = driver_for(EU_U55_128);
    npuc_err err = {0};
    CHECK_EQ_INT(npurt_host_map(&r1.inst, &err), 0);
    CHECK_EQ_INT(npurt_host_map(&r2.inst, &err), 0);
    npurt_sched s;
    CHECK_EQ_INT(npurt_sched_init(&s, NPURT_SCHED_SERIAL, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r1.inst, 1, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r2.inst, 2, &e), 0);
    if (e.code) fprintf(stderr, "attach: %s\n", e.what ? e.what : "(no text)");
    CHECK_EQ_INT(npurt_sched_attach(&s, &r2.inst, 2, &e), NPURT_E_BUSY);
    npuc_rng rng;
    npuc_rng_seed(&rng, 77);
    int bad = 0;
    for (int k = 0; k < 6; k++) {
        rt *r = k % 2 ? &r2 : &r1;
        const graph *g = k % 2 ? g2 : g1;
        uint32_t sz;
        uint8_t *d = npurt_input(&r->inst, 0, &sz);
        fill_random(&rng, d, sz);
        save_inputs(r);
        if (npurt_run(&r->inst)) bad++;
        else if (compare_with_reference(g, r, "serial") != 0) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(s.grants, 6);
    /* a model that keeps state in its activations may not share them */
    npurt_instance r3;
    uint8_t *b3 = alloc16(n2);
    memcpy(b3, b2, n2);
    ((npurt_header *)b3)->flags |= NPURT_F_ARENA_STATE;
    fix_crc(b3);
    npurt_model m3;
    CHECK_EQ_INT(npurt_model_load(&m3, b3, n2, &e), 0);
    CHECK_EQ_INT(npurt_init(&r3, &m3, &mem2, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r3, 0, &e), NPURT_E_MEMORY);
    npurt_sched_deinit(&s);
    /* epoch-level mode refuses overlapping activation areas */
    CHECK_EQ_INT(npurt_sched_init(&s, NPURT_SCHED_EPOCH, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r1.inst, 1, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&s, &r2.inst, 2, &e), NPURT_E_MEMORY);
    CHECK_STR_CONTAINS(e.what, "overlap");
    npurt_sched_deinit(&s);
    npurt_host_unmap(&r1.inst);
    npurt_host_unmap(&r2.inst);
    for (int i = 0; i < 16; i++) {
        free(r1.saved_in[i]);
        free(r2.saved_in[i]);
    }
    free(b3);
    free(shared);
    free(s1);
    free(s2);
    free(b1);
    free(b2);
    graph_free(g1);
    graph_free(g2);
    tfl_model_free(t1);
    tfl_model_free(t2);
}

/* Epoch level: a low-priority model with many HW epochs runs on one
 * thread; while it holds the NPU, a high-priority model (and a
 * medium-priority one before it) asks for the NPU. When the low-priority
 * epoch ends, the NPU goes to the high-priority model, then the medium one,
 * before the low one gets another epoch. */

/* A copy of a blob whose epoch table is the original one repeated `times`
 * times (appended at the end; the other tables stay where they are). */
static uint8_t *repeat_epochs(const uint8_t *blob, size_t n, uint32_t times, size_t *out_n)
{
    const npurt_header *h = (const npurt_header *)blob;
    size_t et = (size_t)h->n_epochs * sizeof(npurt_epoch_rec);
    size_t nn = (n + et * times + 15) / 16 * 16;
    uint8_t *b = alloc16(nn);
    memset(b, 0, nn);
    memcpy(b, blob, n);
    for (uint32_t k = 0; k < times; k++) memcpy(b + n + k * et, blob + h->epochs_off, et);
    npurt_header *nh = (npurt_header *)b;
    nh->epochs_off = (uint32_t)n;
    nh->n_epochs = (uint16_t)(h->n_epochs * times);
    nh->size = (uint32_t)nn;
    fix_crc(b);
    *out_n = nn;
    return b;
}

typedef struct prio_test {
    rt low, mid, high;
    npurt_sched sched;
    void *start_sem;          /* given when the others should start */
    uint32_t trigger_epoch;
    volatile int triggered;
    int order[3], n_order;    /* first HW epochs of high (2) and mid (1), and low's next (0) */
    pthread_mutex_t lock;
    uint32_t low_begins;      /* low's HW epochs started */
    uint32_t low_epochs_at_request, low_epochs_at_high;
} prio_test;

static prio_test *pt;

void ethosu_inference_begin(struct ethosu_driver *drv, void *user_arg);
void ethosu_inference_begin(struct ethosu_driver *drv, void *user_arg)
{
    (void)drv;
    if (!pt) return;
    npurt_instance *inst = user_arg;
    pthread_mutex_lock(&pt->lock);
    if (inst == &pt->low.inst) pt->low_begins++;
    bool trig = inst == &pt->low.inst && !pt->triggered && pt->low_begins == pt->trigger_epoch;
    if (trig) {
        pt->triggered = 1;
        pt->low_epochs_at_request = pt->low_begins;
    }
    if (pt->triggered == 2 && pt->n_order < 3) {
        int who = inst == &pt->high.inst ? 2 : inst == &pt->mid.inst ? 1 : 0;
        bool seen = false;
        for (int i = 0; i < pt->n_order; i++) seen |= pt->order[i] == who;
        if (!seen) pt->order[pt->n_order++] = who;
        if (who == 2) pt->low_epochs_at_high = pt->low_begins;
    }
    pthread_mutex_unlock(&pt->lock);
    if (!trig) return;
    /* low holds the NPU now: let mid, then high, queue up behind it */
    npurt_osal_sem_give(pt->start_sem);
    for (;;) {
        npurt_osal_mutex_lock(pt->sched.lock);
        bool both = pt->mid.inst.sched_waiting && pt->high.inst.sched_waiting;
        npurt_osal_mutex_unlock(pt->sched.lock);
        if (both) break;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&pt->lock);
    pt->triggered = 2;
    pthread_mutex_unlock(&pt->lock);
}

static void *run_thread(void *arg)
{
    rt *r = arg;
    intptr_t rc = npurt_run(&r->inst);
    return (void *)rc;
}

static void *mid_high_thread(void *arg)
{
    (void)arg;
    npurt_osal_sem_take(pt->start_sem);
    pthread_t tm, th;
    pthread_create(&tm, NULL, run_thread, &pt->mid);
    /* mid queues first; high after it */
    for (;;) {
        npurt_osal_mutex_lock(pt->sched.lock);
        bool w = pt->mid.inst.sched_waiting;
        npurt_osal_mutex_unlock(pt->sched.lock);
        if (w) break;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    pthread_create(&th, NULL, run_thread, &pt->high);
    void *r1, *r2;
    pthread_join(tm, &r1);
    pthread_join(th, &r2);
    return (void *)((intptr_t)r1 | (intptr_t)r2);
}

static void test_epoch_level(void)
{
    graph *g1 = NULL, *g2 = NULL;
    tfl_model *t1 = NULL, *t2 = NULL;
    size_t n1 = 0, n2 = 0, nl = 0;
    uint8_t *b1 = load_and_compile("models/tflm/person_detect.tflite", EU_U55_256, &g1, &t1, &n1);
    uint8_t *b2 = load_and_compile("models/tflm/keyword_scrambled_8bit.tflite", EU_U55_256, &g2, &t2, &n2);
    if (!b1 || !b2) {
        printf("skip: models not found\n");
        return;
    }
    uint8_t *bl = repeat_epochs(b1, n1, 12, &nl);
    static prio_test p;
    memset(&p, 0, sizeof p);
    pthread_mutex_init(&p.lock, NULL);
    p.start_sem = npurt_osal_sem_create();
    p.trigger_epoch = 5;
    struct ethosu_driver *drv = driver_for(EU_U55_256);
    npurt_error e = {0};
    CHECK_EQ_INT(rt_open(&p.low, bl, nl, drv, &e), 0);
    CHECK_EQ_INT(rt_open(&p.mid, b2, n2, drv, &e), 0);
    CHECK_EQ_INT(rt_open(&p.high, b1, n1, drv, &e), 0);
    CHECK_EQ_INT(npurt_sched_init(&p.sched, NPURT_SCHED_EPOCH, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&p.sched, &p.low.inst, 0, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&p.sched, &p.mid.inst, 5, &e), 0);
    CHECK_EQ_INT(npurt_sched_attach(&p.sched, &p.high.inst, 9, &e), 0);
    npuc_rng rng;
    npuc_rng_seed(&rng, 5);
    rt *all[3] = {&p.low, &p.mid, &p.high};
    for (int i = 0; i < 3; i++) {
        uint32_t sz;
        uint8_t *d = npurt_input(&all[i]->inst, 0, &sz);
        fill_random(&rng, d, sz);
        save_inputs(all[i]);
    }
    pt = &p;
    pthread_t tl, tmh;
    pthread_create(&tmh, NULL, mid_high_thread, NULL);
    pthread_create(&tl, NULL, run_thread, &p.low);
    void *rl, *rmh;
    pthread_join(tl, &rl);
    pthread_join(tmh, &rmh);
    pt = NULL;
    CHECK_EQ_INT((intptr_t)rl, 0);
    CHECK_EQ_INT((intptr_t)rmh, 0);
    CHECK_EQ_INT(p.triggered, 2);
    /* high got the NPU right after the epoch low was running, then mid */
    CHECK_EQ_INT(p.n_order, 3);
    CHECK_EQ_INT(p.order[0], 2);
    CHECK_EQ_INT(p.order[1], 1);
    CHECK_EQ_INT(p.high.inst.sched_max_passed, 0);
    /* no low-priority epoch started between the request and the grant */
    CHECK_EQ_INT(p.low_epochs_at_high, p.low_epochs_at_request);
    CHECK(p.sched.handovers >= 2);
    printf("epoch level: high-priority request during low's HW epoch %u, served before low's next; handovers %u\n",
           p.low_epochs_at_request, p.sched.handovers);
    CHECK_EQ_INT(compare_with_reference(g1, &p.high, "high"), 0);
    CHECK_EQ_INT(compare_with_reference(g2, &p.mid, "mid"), 0);
    /* (low ran person_detect 12 times over: its input bytes are reused by
     * then, so there is no reference to compare it with) */
    npurt_sched_deinit(&p.sched);
    rt_close(&p.low);
    rt_close(&p.mid);
    rt_close(&p.high);
    npurt_osal_sem_destroy(p.start_sem);
    pthread_mutex_destroy(&p.lock);
    free(bl);
    free(b1);
    free(b2);
    graph_free(g1);
    graph_free(g2);
    tfl_model_free(t1);
    tfl_model_free(t2);
}

int main(void)
{
    test_bad_blobs();
    test_bad_kernel();
    test_fast_pool();
    test_serial();
    test_serial_state();
    test_epoch_level();
    test_models();
    test_genmodels();
    free_drivers();
    TEST_MAIN_END();
}
