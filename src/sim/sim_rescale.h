/* sim_rescale.h: the NPU output stage's 64-bit x 32-bit rescale
 * (docs/ethos-u.md 5.6) without a 128-bit integer type, so that the virtual NPU
 * also builds for 32-bit targets (the QEMU Cortex-M55 example builds it
 * into the firmware). Where the compiler has __int128, sim_rescale is the
 * direct form and tests/test_sim_rescale.c checks the two agree. */
#ifndef NPUC_SIM_RESCALE_H
#define NPUC_SIM_RESCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "ethosu/eu_cmd.h"   /* EU_ROUND_* */

/* A 128-bit two's complement value as two halves. */
typedef struct sim_i128 {
    uint64_t hi, lo;
} sim_i128;

static inline sim_i128 sim_i128_from_i64(int64_t v)
{
    sim_i128 r = { v < 0 ? UINT64_MAX : 0, (uint64_t)v };
    return r;
}

static inline bool sim_i128_is_neg(sim_i128 x)
{
    return (x.hi >> 63) != 0;
}

static inline sim_i128 sim_i128_negate(sim_i128 x)
{
    sim_i128 r;
    r.lo = ~x.lo + 1u;
    r.hi = ~x.hi + (r.lo == 0);
    return r;
}

static inline sim_i128 sim_i128_add(sim_i128 x, sim_i128 y)
{
    sim_i128 r;
    r.lo = x.lo + y.lo;
    r.hi = x.hi + y.hi + (r.lo < x.lo);
    return r;
}

/* a * m, exact (|a * m| < 2^96). */
static inline sim_i128 sim_i128_mul(int64_t a, uint32_t m)
{
    uint64_t mag = a < 0 ? 0u - (uint64_t)a : (uint64_t)a;
    uint64_t p0 = (mag & 0xFFFFFFFFu) * m;
    uint64_t p1 = (mag >> 32) * m;
    sim_i128 r;
    r.lo = p0 + (p1 << 32);
    r.hi = (p1 >> 32) + (r.lo < p0);
    return a < 0 ? sim_i128_negate(r) : r;
}

/* Arithmetic shift right by 1..63. */
static inline sim_i128 sim_i128_sar(sim_i128 x, unsigned s)
{
    sim_i128 r;
    r.lo = (x.lo >> s) | (x.hi << (64 - s));
    r.hi = sim_i128_is_neg(x) ? ~(~x.hi >> s) : x.hi >> s;
    return r;
}

/* Saturated to int64. */
static inline int64_t sim_i128_sat64(sim_i128 x)
{
    if (x.hi == 0 && x.lo <= (uint64_t)INT64_MAX) return (int64_t)x.lo;
    if (x.hi == UINT64_MAX && x.lo > (uint64_t)INT64_MAX) return -(int64_t)(~x.lo) - 1;
    return sim_i128_is_neg(x) ? INT64_MIN : INT64_MAX;
}

/* R_mode(acc, m, s): acc * m shifted right by s (0..63) with the rounding
 * of `round` (0 TFL: half away from zero adjusted by 2^30 when s > 31 as
 * the hardware does, 1 TRUNCATE toward zero, 2 NATURAL: half up), then
 * saturated to int64. */
static inline int64_t sim_rescale_portable(int64_t acc, uint32_t m, unsigned s, unsigned round)
{
    sim_i128 p = sim_i128_mul(acc, m);
    if (s == 0) return sim_i128_sat64(p);
    if (round == EU_ROUND_TRUNCATE) {
        if (!sim_i128_is_neg(p)) return sim_i128_sat64(sim_i128_sar(p, s));
        return sim_i128_sat64(sim_i128_negate(sim_i128_sar(sim_i128_negate(p), s)));
    }
    int64_t add = (int64_t)1 << (s - 1);
    if (round == EU_ROUND_TFL && s > 31) add += acc >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
    return sim_i128_sat64(sim_i128_sar(sim_i128_add(p, sim_i128_from_i64(add)), s));
}

#if defined(__SIZEOF_INT128__) && !defined(SIM_NO_INT128)
static inline int64_t sim_rescale_int128(int64_t acc, uint32_t m, unsigned s, unsigned round)
{
    __int128 p = (__int128)acc * m;
    __int128 r;
    if (s == 0) {
        r = p;
    } else if (round == EU_ROUND_TRUNCATE) {
        __int128 d = (__int128)1 << s;
        r = p >= 0 ? p / d : -((-p) / d);
    } else {
        __int128 add = (__int128)1 << (s - 1);
        if (round == EU_ROUND_TFL && s > 31) add += acc >= 0 ? ((__int128)1 << 30) : -((__int128)1 << 30);
        r = (p + add) >> s;
    }
    if (r > INT64_MAX) return INT64_MAX;
    if (r < INT64_MIN) return INT64_MIN;
    return (int64_t)r;
}
#define SIM_HAVE_INT128 1
#define sim_rescale_wide sim_rescale_int128
#else
#define SIM_HAVE_INT128 0
#define sim_rescale_wide sim_rescale_portable
#endif

/* R_mode as above, in 64-bit arithmetic where that is exact: |acc| < 2^30
 * and s < 63 keep |acc * m| below 2^62 and the rounding term below 2^62,
 * so neither the product nor the sum leaves int64 and nothing saturates
 * (an activation's or a requantization's input, a pool's sum); wider
 * accumulators take the 128-bit form. The same result for every input
 * (test_sim_rescale). */
static inline int64_t sim_rescale_fast(int64_t acc, uint32_t m, unsigned s, unsigned round)
{
    if (acc >= -((int64_t)1 << 30) && acc < ((int64_t)1 << 30) && s < 63) {
        int64_t p = acc * (int64_t)m;
        if (s == 0) return p;
        if (round == EU_ROUND_TRUNCATE) return p >= 0 ? p >> s : -((-p) >> s);
        int64_t add = (int64_t)1 << (s - 1);
        if (round == EU_ROUND_TFL && s > 31) add += acc >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
        return (p + add) >> s;
    }
    return sim_rescale_wide(acc, m, s, round);
}
#define sim_rescale sim_rescale_fast

/* a * 2^sh for sh in 0..63, saturated to int64. */
static inline int64_t sim_shl_sat(int64_t a, unsigned sh)
{
    if (a > (INT64_MAX >> sh)) return INT64_MAX;
    if (a < (INT64_MIN >> sh)) return INT64_MIN;
    return (int64_t)((uint64_t)a << sh);
}

#endif
