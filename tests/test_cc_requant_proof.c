/* The short proof of an int16 QUANTIZE on the NPU (src/compiler/lower/
 * lower_lut.c, cc_requant_ends) held to the full one: over random
 * quantizations, the reference kernel (k_requant_s16_s8 / _s16_s16, what
 * the interpreter runs) is compared with the NPU's output stage
 * (docs/ethos-u.md 5.6: clamp(R_TFL(x - zi, M, 31 - shift) + zo), written
 * out here on its own) at all 65536 int16 inputs, and at the points
 * cc_requant_ends gives alone; the two verdicts must be the same whenever
 * the short proof answers (it defers where the reference is not known to
 * be non-decreasing: a left shift that wraps 32 bits, a zero point that
 * does).
 *
 * The points must be the input range's ends and every maximal run of the
 * NPU's stage (sorted, distinct, at most two per run), with the NPU's
 * value at each; and where the short proof answers, the reference and the
 * NPU's stage must both be non-decreasing over all inputs (what it stands
 * on).
 *
 * Three kinds of configuration:
 *  - scales:  random input and output scales (ratios 2^-40 .. 2^24: a
 *             flushed multiplier, right and left shifts, left shifts that
 *             wrap) and zero points (some at the type's ends);
 *  - raw:     any multiplier in [0, 2^31) and shift -31..16, which no scale
 *             gives (TFLite's multipliers are in [2^30, 2^31));
 *  - altered: the reference with a multiplier off by +-1 or +-2^j, so that
 *             the two differ at a few inputs or none: the cases the NPU
 *             path must reject, found by the short proof as by the full.
 *
 * Environment: NPUC_REQUANT_CONFIGS (configurations, default 1500),
 * NPUC_REQUANT_SEED (seed, default 1). */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/kernels/k_activation.h"
#include "../src/sim/sim_rescale.h"

#include <math.h>
#include <stdint.h>

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* The NPU's stage for input x (TFL rounding, docs/ethos-u.md 5.6). */
static int32_t npu_at(int32_t mult, int32_t shift, int32_t zi, int32_t zo, int32_t lo, int32_t hi, int32_t x)
{
    uint32_t m = mult ? (uint32_t)mult : 0;
    unsigned s = mult ? (unsigned)(31 - shift) : 0;
    int64_t v = sim_rescale((int64_t)x - zi, m, s, EU_ROUND_TFL) + zo;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

typedef struct stats {
    long configs, short_ok, short_bad, deferred, full_bad, points;
} stats;

static int32_t rand_zp(npuc_rng *r, int32_t lo, int32_t hi)
{
    int k = (int)npuc_rng_range(r, 0, 9);
    if (k == 0) return lo;
    if (k == 1) return hi;
    if (k <= 5) return (int32_t)npuc_rng_range(r, lo > -8 ? lo : -8, hi < 8 ? hi : 8);
    return (int32_t)npuc_rng_range(r, lo, hi);
}

/* One configuration: the NPU's (mult, shift) against the reference's
 * (rmult, shift) (the same unless altered). */
static void run(int32_t mult, int32_t rmult, int32_t shift, int32_t zi, int32_t zo, bool out16, int32_t *ref,
                int32_t *x, int32_t *y, int16_t *in, void *out, stats *st, long cfg)
{
    int32_t lo = out16 ? INT16_MIN : INT8_MIN, hi = out16 ? INT16_MAX : INT8_MAX;
    k_requant_params p = {.input_zero_point = zi, .output_zero_point = zo, .mult = rmult, .shift = shift};
    int rc = out16 ? k_requant_s16_s16(&p, in, out, 65536) : k_requant_s16_s8(&p, in, out, 65536);
    CHECK_EQ_INT(rc, K_OK);
    for (int32_t i = 0; i < 65536; i++) ref[i] = out16 ? ((int16_t *)out)[i] : ((int8_t *)out)[i];
    /* the full proof */
    int32_t bad = INT32_MIN;
    for (int32_t i = 0; i < 65536 && bad == INT32_MIN; i++)
        if (ref[i] != npu_at(mult, shift, zi, zo, lo, hi, i - 32768)) bad = i - 32768;
    st->configs++;
    st->full_bad += bad != INT32_MIN;
    /* the short one */
    int32_t k = cc_requant_ends(mult, shift, zi, zo, lo, hi, x, y);
    if (k < 0) {
        st->deferred++;
        return;
    }
    CHECK(k >= 2 && k <= 65536);
    if (k < 2 || k > 65536) return;
    st->points += k;
    CHECK_EQ_INT(x[0], INT16_MIN);
    CHECK_EQ_INT(x[k - 1], INT16_MAX);
    bool shape_ok = true, agree = true;
    for (int32_t i = 0; i < k; i++) {
        shape_ok &= y[i] == npu_at(mult, shift, zi, zo, lo, hi, x[i]);
        if (i) shape_ok &= x[i] > x[i - 1];
        agree &= ref[x[i] + 32768] == y[i];
    }
    /* a run [x[i], x[i + 1]] where y holds, or a new value starting at x[i + 1] */
    for (int32_t i = 0; i + 1 < k; i++) {
        bool same_run = y[i] == y[i + 1];
        if (same_run && i + 2 < k) shape_ok &= y[i + 2] != y[i + 1];   /* two points a run */
        if (!same_run) shape_ok &= npu_at(mult, shift, zi, zo, lo, hi, x[i + 1] - 1) == y[i] && x[i + 1] - 1 == x[i];
    }
    CHECK(shape_ok);
    /* what the proof stands on: where it answers, both sides are
     * non-decreasing over the whole range */
    bool up = true;
    int32_t prev = npu_at(mult, shift, zi, zo, lo, hi, INT16_MIN);
    for (int32_t i = 1; i < 65536; i++) {
        int32_t g = npu_at(mult, shift, zi, zo, lo, hi, i - 32768);
        up &= ref[i] >= ref[i - 1] && g >= prev;
        prev = g;
    }
    CHECK(up);
    CHECK(agree == (bad == INT32_MIN));
    if (agree != (bad == INT32_MIN))
        fprintf(stderr, "FAIL config %ld: mult %d (reference %d) shift %d zi %d zo %d int%d: full %s (input %d), "
                        "short %s\n", cfg, (int)mult, (int)rmult, (int)shift, (int)zi, (int)zo, out16 ? 16 : 8,
                bad == INT32_MIN ? "equal" : "differs", (int)bad, agree ? "equal" : "differs");
    st->short_ok += agree;
    st->short_bad += !agree;
}

int main(void)
{
    long n = env_long("NPUC_REQUANT_CONFIGS", 1500);
    npuc_rng r;
    npuc_rng_seed(&r, (uint64_t)env_long("NPUC_REQUANT_SEED", 1));
    int32_t *ref = malloc(65536 * sizeof *ref), *x = malloc(65536 * sizeof *x), *y = malloc(65536 * sizeof *y);
    int16_t *in = malloc(65536 * sizeof *in);
    int32_t *out = malloc(65536 * sizeof *out);
    if (!ref || !x || !y || !in || !out) return 1;
    for (int32_t i = 0; i < 65536; i++) in[i] = (int16_t)(i - 32768);
    stats st = {0};
    for (long cfg = 0; cfg < n; cfg++) {
        bool out16 = npuc_rng_range(&r, 0, 1);
        int32_t zi = rand_zp(&r, INT16_MIN, INT16_MAX);
        int32_t zo = out16 ? rand_zp(&r, INT16_MIN, INT16_MAX) : rand_zp(&r, INT8_MIN, INT8_MAX);
        int kind = (int)(cfg % 3);
        int32_t mult, shift;
        if (kind == 0) {
            /* scales, as k_requant_prepare turns them into (M, shift) */
            float is = (float)exp2(-20.0 + 16.0 * npuc_rng_unit(&r));
            float os = (float)(is / exp2(-40.0 + 64.0 * npuc_rng_unit(&r)));
            k_requant_params p;
            k_requant_prepare(is, zi, os, zo, &p);
            mult = p.mult;
            shift = p.shift;
            if (shift > 31 || shift < -31) continue;   /* the reference rejects it */
        } else {
            mult = (int32_t)npuc_rng_range(&r, 0, INT32_MAX);
            if (npuc_rng_range(&r, 0, 3) == 0) mult >>= npuc_rng_range(&r, 1, 30);
            shift = (int32_t)npuc_rng_range(&r, -31, 16);
        }
        int32_t rmult = mult;
        if (kind == 2) {
            int64_t d = npuc_rng_range(&r, 0, 1) ? 1 : (int64_t)1 << npuc_rng_range(&r, 1, 20);
            int64_t v = mult + (npuc_rng_range(&r, 0, 1) ? d : -d);
            if (v < 0 || v > INT32_MAX) v = mult;
            rmult = (int32_t)v;
        }
        run(mult, rmult, shift, zi, zo, out16, ref, x, y, in, out, &st, cfg);
    }
    printf("%ld configurations: short proof %ld equal, %ld differing, %ld deferred; full proof %ld differing; "
           "%.1f points per short proof\n", st.configs, st.short_ok, st.short_bad, st.deferred, st.full_bad,
           st.short_ok + st.short_bad ? (double)st.points / (double)(st.short_ok + st.short_bad) : 0.0);
    /* every outcome met */
    CHECK(st.short_ok > 0);
    CHECK(st.short_bad > 0);
    CHECK(st.deferred > 0);
    free(ref);
    free(x);
    free(y);
    free(in);
    free(out);
    TEST_MAIN_END();
}
