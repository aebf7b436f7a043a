/* What the single-operator NPU differential tests (test_cc_prelu, _reduce,
 * _sqdiff, _matmul, _argmax) share: one configuration compiled for a
 * variant, every command stream hazard-checked, input draws compared byte
 * for byte with the reference interpreter, and the tally; a random scale
 * on a log scale; a shape as text. */
#ifndef NPUC_CC_SINGLE_OP_H
#define NPUC_CC_SINGLE_OP_H

#include "cc_hazard.h"
#include "cc_test_npu.h"

#include <math.h>

typedef struct cc_single_stats {
    int configs, npu, cpu, failed, draws;
} cc_single_stats;

/* One configuration's run: the shared input patterns, and the test's own
 * fill (NULL: patterns for every input) with its configuration. */
typedef struct cc_single_run {
    cc_pat_ctx p;             /* first: cc_fill_patterns takes the run */
    eu_variant variant;
    const void *cfg;
    cc_fill_fn fill;          /* called with the cc_single_run */
} cc_single_run;

static inline void cc_single_fill(void *user, npuc_rng *r, int d, int32_t k, uint8_t *buf, size_t n)
{
    cc_single_run *x = user;
    if (x->fill) x->fill(x, r, d, k, buf, n);
    else cc_fill_patterns(&x->p, r, d, k, buf, n);
}

static inline bool cc_single_hazards(void *user, const cc_model *cm)
{
    cc_single_run *x = user;
    return cc_hazard_model(cm, x->variant, x->p.cs);
}

/* Compiles src (freed here) for v with opt, checks the placement (expect_npu:
 * 1 NPU, 0 CPU with `why` in the reason, -1 either) and n_draws input draws,
 * and counts the outcome in st. The test's fill gets the run (cfg: its
 * configuration). True when the outcome is as expected. */
static inline bool cc_single_run_op(const char *cs, graph *src, graph_dtype dt, eu_variant v, cc_options opt,
                                    uint64_t seed, int n_draws, int expect_npu, const char *why,
                                    const char *verbose_env, cc_fill_fn fill, const void *cfg,
                                    cc_single_stats *st)
{
    cc_single_run x = {{dt, cs, seed, 0}, v, cfg, fill};
    cc_draws d = {.n_draws = n_draws, .seed = seed, .fill = cc_single_fill, .diff = cc_diff_elements, .user = &x,
                  .runs = &st->draws};
    int placed;
    st->configs++;
    int res = cc_check_single_op(cs, src, v, opt, expect_npu, why, verbose_env, cc_single_hazards, &d, &placed);
    graph_free(src);
    placed == 1 ? st->npu++ : st->cpu++;
    bool ok = cc_single_ok(res, expect_npu);
    if (!ok) st->failed++;
    return ok;
}

/* A scale drawn uniformly on a log scale between lo and hi. */
static inline float cc_rand_log_scale(npuc_rng *r, double lo, double hi)
{
    double l = log(lo), h = log(hi);
    return (float)exp(l + (h - l) * npuc_rng_unit(r));
}

/* "[d0,d1,...]" into buf; the characters written (as snprintf counts). */
static inline size_t cc_shape_str(char *buf, size_t size, const int32_t *s, int32_t rank)
{
    size_t o = (size_t)snprintf(buf, size, "[");
    for (int32_t d = 0; d < rank && o < size; d++) o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", s[d]);
    if (o < size) o += (size_t)snprintf(buf + o, size - o, "]");
    return o;
}

#endif
