/* eu_weights: MLW weight-stream encoder, weight reordering, scale/bias
 * records, Vela's scale quantisation and traversal heuristic.
 * Facts: docs/ethos-u.md 5.6, 6.2, 6.3, 7. Encoder choices: docs/weights.md.
 *
 * The encoder works in four steps, driven by bit counts:
 *   1. section plan (plan_section): zero-run mode on or off, the palette
 *      and DIROFS, chosen from the histogram of sign-magnitude codes;
 *   2. slice plan (plan_slices): a dynamic programme over blocks of
 *      EU_BLOCK coded values picks each slice's Rice / truncated /
 *      uncompressed weight parameter and zero-run parameter, paying a slice
 *      header for every change; then the section's exact size in bits;
 *   3. sections (plan_sections): the whole stream is planned as one
 *      section; where per-unit estimates say that switching zero runs on
 *      and off pays, the stream is cut into sections planned by 1 and 2
 *      each, kept if the stream gets smaller;
 *   4. writing (put_slice): the chunk interleaving of docs/ethos-u.md 6.3, in the
 *      order the decoder (sim_mlw_decode) reads it.
 * Speed matters (the whole compiler has a few milliseconds for a model):
 * the passes over the weights avoid data-dependent branches (histogram,
 * index table, zero-run split, bit writer), the planning works on
 * histograms and block sums, and symbols are appended whole from tables. */
#include "eu_weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ constants */

enum {
    EU_MAX_SLICE = 32768,  /* SLICELEN is 15 bits, value count - 1 */
    EU_MAX_PAL = 32,       /* PALSIZE 5 bits, k + 1 entries */
    EU_MAX_DIROFS = 31,    /* DIROFS 5 bits */
    /* Largest coded index we emit. The bitstream could carry more (Rice
     * quotient <= 31 with k = 5 allows 1023) but Vela keeps every index
     * within 9 bits, which suggests the hardware's index path is 9 bits
     * wide; we stay inside what is known to work. */
    EU_MAX_INDEX = 511,
    EU_BLOCK = 256,        /* granularity of the slice-parameter search */
    EU_SLICE_HDR = 23,     /* ZDIV 3 + SLICELEN 15 + WDIV 3 + WTRUNC 1 + NEWPAL 1 */
    EU_PAL_HDR = 13,       /* DIROFS 5 + PALSIZE 5 + PALBITS 3 */
    EU_N_HEAVY = 4,        /* costly codes tried as extra palette entries */
    EU_N_HOLE_D = 4,       /* DIROFS candidates after holes that are tried */
    EU_SEC_UNIT = 256,     /* granularity of the section search (values) */
    /* a new section in the search: slice and palette headers, a few
     * palette entries, chunk padding */
    EU_SEC_COST = EU_SLICE_HDR + EU_PAL_HDR + 8 + 12
};

/* Weight-parameter configurations of one slice: Rice k = 0..5, truncated
 * Rice k = 0..5, uncompressed. Zero-run configurations are ZDIV 0..3. */
enum { W_RICE = 0, W_TRUNC = 6, W_UNC = 12, W_NCFG = 13, Z_NCFG = 4 };

#define EU_INF ((uint64_t)1 << 50)

static inline unsigned bit_length(unsigned x)
{
#if defined(__GNUC__)
    return x ? 32 - (unsigned)__builtin_clz(x) : 0;
#else
    unsigned n = 0;
    while (x >> n) n++;
    return n;
#endif
}

/* Bits set in 6 bits. */
static const uint8_t POPCOUNT6[64] = {
    0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
    1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6};

/* Bits set in a 12-bit chunk, one lookup (the table by the preprocessor:
 * each doubling appends the counts plus one). */
#define EU_P2(n) n, n + 1, n + 1, n + 2
#define EU_P4(n) EU_P2(n), EU_P2(n + 1), EU_P2(n + 1), EU_P2(n + 2)
#define EU_P6(n) EU_P4(n), EU_P4(n + 1), EU_P4(n + 1), EU_P4(n + 2)
#define EU_P8(n) EU_P6(n), EU_P6(n + 1), EU_P6(n + 1), EU_P6(n + 2)
#define EU_P10(n) EU_P8(n), EU_P8(n + 1), EU_P8(n + 1), EU_P8(n + 2)
static const uint8_t POPCOUNT12[4096] = {EU_P10(0), EU_P10(1), EU_P10(1), EU_P10(2)};
#undef EU_P10
#undef EU_P8
#undef EU_P6
#undef EU_P4
#undef EU_P2

static inline unsigned popcount12(uint32_t x)
{
    return POPCOUNT12[x & 0xFFF];
}

/* --------------------------------------------------------- section plan */

/* Histogram of the sign-magnitude codes one section codes as values. */
typedef struct eu_hist {
    uint32_t f[512];
    uint32_t suffix[513];      /* suffix[t] = number of values with code >= t */
    unsigned maxcode;
    uint64_t n;
    uint16_t heavy[EU_N_HEAVY]; /* codes with the largest f * code */
    unsigned n_heavy;
} eu_hist;

static void hist_finish(eu_hist *h)
{
    unsigned top = 511;
    while (top >= 4 && !(h->f[top] | h->f[top - 1] | h->f[top - 2] | h->f[top - 3])) top -= 4;
    while (top > 0 && !h->f[top]) top--;
    h->maxcode = top;
    for (unsigned t = top + 1; t <= 512; t++) h->suffix[t] = 0;
    for (unsigned t = top + 1; t-- > 0;) h->suffix[t] = h->suffix[t + 1] + h->f[t];
    h->n = h->suffix[0];
    /* heavy codes: where moving a code into the palette saves the most */
    h->n_heavy = 0;
    uint64_t hw[EU_N_HEAVY] = {0};
    for (unsigned x = 1; x <= top; x++) {
        uint64_t w = (uint64_t)h->f[x] * x;
        if (w <= hw[EU_N_HEAVY - 1]) continue;
        unsigned j = h->n_heavy < EU_N_HEAVY ? h->n_heavy++ : EU_N_HEAVY - 1;
        while (j > 0 && hw[j - 1] < w) {
            hw[j] = hw[j - 1];
            h->heavy[j] = h->heavy[j - 1];
            j--;
        }
        hw[j] = w;
        h->heavy[j] = (uint16_t)x;
    }
}

/* The same histogram with code 0 taken out (zero-run mode; 0 is no heavy
 * code and only suffix[0] counts it). */
static void hist_drop_zero(eu_hist *h)
{
    h->n -= h->f[0];
    h->suffix[0] = h->suffix[1];
    h->f[0] = 0;
}

/* One way to map codes to coded indices: `pal` (sorted by falling
 * frequency) at indices 0..palsize-1, every other code x >= dirofs at
 * x - dirofs + palsize. */
typedef struct eu_palette {
    unsigned palsize;          /* entries written: 0 or 2..32 */
    unsigned dirofs, palbits;
    uint16_t pal[EU_MAX_PAL];
    unsigned ub;               /* uncompressed index width */
    unsigned max_index;        /* largest index any coded value gets */
    /* Uncompressed slices allowed: without a palette (ub = PALBITS covers
     * every index), or when every coded value is in the palette. Vela
     * never mixes palette-width uncompressed indices with direct codes, so
     * neither do we (what the hardware does with them is unverified). */
    bool unc_ok;
} eu_palette;

/* Inserts code c into pal[0..n) kept in falling frequency, rising code. */
static void pal_insert(const eu_hist *h, uint16_t *pal, unsigned n, uint16_t c)
{
    unsigned j = n;
    while (j > 0 && (h->f[pal[j - 1]] < h->f[c] ||
                     (h->f[pal[j - 1]] == h->f[c] && pal[j - 1] > c))) {
        pal[j] = pal[j - 1];
        j--;
    }
    pal[j] = c;
}

/* p from sorted codes plus extra codes; a palette of one entry cannot be
 * expressed (PALSIZE 0 means none), so code 1 ("minus zero"), which no
 * weight has, is added as a second entry. */
static void palette_set(const eu_hist *h, eu_palette *p, const uint16_t *sorted, unsigned n,
                        const uint16_t *extra, unsigned n_extra, unsigned dirofs)
{
    memcpy(p->pal, sorted, n * sizeof *sorted);
    for (unsigned e = 0; e < n_extra; e++) pal_insert(h, p->pal, n++, extra[e]);
    if (n == 1) p->pal[n++] = 1;
    p->palsize = n;
    p->dirofs = dirofs;
}

/* Estimated bits of a whole section coded with palette p under its best
 * single weight configuration (*cfg), trying Rice parameters k_lo..k_hi.
 * `extra` lists the palette codes at or above DIROFS (they leave the direct
 * range). EU_INF if not representable. Fills p's palbits, ub, max_index. */
static uint64_t palette_cost(const eu_hist *h, eu_palette *p, const uint16_t *extra,
                             unsigned n_extra, unsigned k_lo, unsigned k_hi, unsigned *cfg)
{
    const unsigned P = p->palsize, D = p->dirofs;
    const int s = (int)P - (int)D;
    /* largest direct code (codes in the palette are not direct) */
    int maxdir = -1;
    for (int x = (int)h->maxcode; x >= (int)D; x--) {
        if (!h->f[x]) continue;
        bool in_pal = false;
        for (unsigned e = 0; e < n_extra; e++) in_pal |= extra[e] == x;
        if (!in_pal) { maxdir = x; break; }
    }
    unsigned max_index = P ? P - 1 : 0;
    if (maxdir >= 0) {
        if (maxdir + s > EU_MAX_INDEX) return EU_INF;
        if ((unsigned)(maxdir + s) > max_index) max_index = (unsigned)(maxdir + s);
    }
    p->max_index = max_index;
    unsigned maxpal = 0;
    for (unsigned j = 0; j < P; j++) maxpal = p->pal[j] > maxpal ? p->pal[j] : maxpal;
    p->palbits = P ? bit_length(maxpal) : bit_length(max_index);
    if (p->palbits < 2) p->palbits = 2;
    p->ub = P ? bit_length(P - 1) : p->palbits;
    p->unc_ok = P == 0 || maxdir < 0;

    uint64_t best = EU_INF;
    for (unsigned k = k_lo; k <= k_hi; k++) {
        if ((max_index >> k) > 31) continue;
        /* Rice: sum (q + 1 + k); truncated: sum (1 + k + (q > 0)) */
        uint64_t rice = (uint64_t)(1 + k) * h->n, trunc = rice;
        for (unsigned j = (1u << k); j < P; j++) {
            uint32_t fj = h->f[p->pal[j]];
            rice += (uint64_t)fj * (j >> k);
            trunc += fj;
        }
        if (maxdir >= 0) {
            /* every code x >= D at index x + s (>= 0), via suffix counts:
             *   sum_x f(x) floor((x + s) / 2^k) = sum_{m>=1} #(x >= m 2^k - s)
             * then the palette codes among them are taken out again */
            for (int m = 1;; m++) {
                int t = m * (1 << k) - s;
                if (t > (int)h->maxcode) break;
                rice += h->suffix[t < (int)D ? D : (unsigned)t];
            }
            int t = (1 << k) - s;
            trunc += t > (int)h->maxcode ? 0 : h->suffix[t < (int)D ? D : (unsigned)t];
            for (unsigned e = 0; e < n_extra; e++) {
                unsigned x = extra[e];
                rice -= (uint64_t)h->f[x] * (unsigned)(((int)x + s) >> k);
                trunc -= (uint64_t)h->f[x] * ((((int)x + s) >> k) != 0);
            }
        }
        if (rice < best) { best = rice; *cfg = W_RICE + k; }
        if ((max_index >> k) <= 2 && trunc < best) { best = trunc; *cfg = W_TRUNC + k; }
    }
    if (p->unc_ok) {
        uint64_t unc = (uint64_t)p->ub * h->n;
        if (unc < best) { best = unc; *cfg = W_UNC; }
    }
    if (best >= EU_INF) return EU_INF;
    return best + EU_PAL_HDR + (uint64_t)P * p->palbits;
}

/* The best palette found so far while trying candidates. */
typedef struct eu_pal_search {
    const eu_hist *h;
    unsigned k_lo, k_hi;       /* Rice parameters costed */
    eu_palette best;
    unsigned best_cfg;
    uint64_t best_cost;
} eu_pal_search;

/* Costs one candidate (sorted codes below DIROFS plus extra codes at or
 * above it) and keeps it if it is the best so far; returns its cost. */
static uint64_t try_palette(eu_pal_search *ps, const uint16_t *sorted, unsigned n,
                            const uint16_t *extra, unsigned n_extra, unsigned dirofs)
{
    eu_palette p;
    unsigned cfg = 0;
    if (n + n_extra == 0) {
        p.palsize = 0;
        p.dirofs = dirofs;
    } else {
        palette_set(ps->h, &p, sorted, n, extra, n_extra, dirofs);
    }
    uint64_t c = palette_cost(ps->h, &p, extra, n_extra, ps->k_lo, ps->k_hi, &cfg);
    if (c < ps->best_cost) {
        ps->best_cost = c;
        ps->best = p;
        ps->best_cfg = cfg;
    }
    return c;
}

/* Up to EU_N_HEAVY costly codes at or above d, in falling order of cost. */
static unsigned heavy_extras(const eu_hist *h, unsigned d, uint16_t *extra)
{
    unsigned n = 0;
    for (unsigned i = 0; i < h->n_heavy; i++)
        if (h->heavy[i] >= d) extra[n++] = h->heavy[i];
    return n;
}

/* All used codes if there are at most 32, else the 8 most frequent; by
 * falling frequency then rising code. Returns how many. */
static unsigned top_codes(const eu_hist *h, uint16_t *top)
{
    unsigned distinct = 0;
    for (unsigned x = 0; x <= h->maxcode; x++) distinct += h->f[x] != 0;
    const unsigned want = distinct <= EU_MAX_PAL ? EU_MAX_PAL : 8;
    unsigned nt = 0;
    for (unsigned x = 0; x <= h->maxcode; x++) {
        if (!h->f[x]) continue;
        if (nt == want) {
            if (h->f[x] <= h->f[top[want - 1]]) continue;
            nt--;
        }
        pal_insert(h, top, nt++, (uint16_t)x);
    }
    return nt;
}

/* Chooses the palette for a histogram among:
 *   (a) "hole" palettes: DIROFS D just after a run of unused codes and every
 *       used code below D in the palette: the direct range then starts at
 *       index |palette| instead of D, i.e. shifts down by the number of
 *       unused codes below D (code 1, "minus zero", is always unused; in
 *       zero-run mode so is 0). D = 0, the first EU_N_HOLE_D - 1 such D
 *       and the D that puts every code in the palette are tried, each also
 *       with up to EU_N_HEAVY costly codes (e.g. the +-127 clipping spikes
 *       of int8 weights) moved into the palette;
 *   (b) frequency palettes: the 2 and 8 most frequent codes, and all
 *       codes if there are at most 32; DIROFS at the first code left.
 * Each candidate is costed exactly (up to padding) with its best single
 * weight parameter. */
static uint64_t plan_palette(const eu_hist *h, eu_palette *best, unsigned *best_cfg)
{
    eu_pal_search ps = {h, 0, 5, {0}, 0, EU_INF};
    uint16_t extra[EU_MAX_PAL];

    /* (a) */
    uint16_t below[EU_MAX_PAL];
    unsigned nf = 0, n_tried = 0;
    for (unsigned D = 0; D <= EU_MAX_DIROFS; D++) {
        if (D == 1) {
            /* palettes move indices by little: after the plain mapping
             * (D = 0, no palette) only Rice parameters next to its best
             * one are worth costing */
            unsigned kb = ps.best_cfg == W_UNC ? 5 : ps.best_cfg % 6;
            ps.k_lo = kb ? kb - 1 : 0;
            ps.k_hi = kb < 5 ? kb + 1 : 5;
        }
        if (D > 0 && h->f[D - 1]) {
            if (nf == EU_MAX_PAL) break;
            pal_insert(h, below, nf++, (uint16_t)(D - 1));
        }
        bool all_in = D > h->maxcode;
        bool after_hole = D == 0 || (!h->f[D - 1] && (h->f[D] || D == EU_MAX_DIROFS));
        if (n_tried == EU_N_HOLE_D && h->maxcode >= EU_MAX_DIROFS) break;   /* nothing left */
        if (!(after_hole && n_tried < EU_N_HOLE_D) && !all_in) continue;
        n_tried++;
        /* costly codes one by one while they help */
        uint64_t c = try_palette(&ps, below, nf, NULL, 0, D);
        unsigned ne = heavy_extras(h, D, extra);
        for (unsigned e = 1; e <= ne && nf + e <= EU_MAX_PAL; e++) {
            uint64_t ce = try_palette(&ps, below, nf, extra, e, D);
            if (ce >= c) break;
            c = ce;
        }
        if (all_in) break;
    }

    /* (b) */
    uint16_t top[EU_MAX_PAL];
    unsigned nt = top_codes(h, top);
    uint8_t rank[512];            /* 1 + rank among the top codes, 0 if not there */
    memset(rank, 0, h->maxcode + 1);
    for (unsigned j = 0; j < nt; j++) rank[top[j]] = (uint8_t)(j + 1);
    static const unsigned sizes[] = {2, 8};
    const unsigned n_sizes = sizeof sizes / sizeof sizes[0];
    for (unsigned si = 0; si <= n_sizes; si++) {
        unsigned P = si < n_sizes ? sizes[si] : nt;   /* last: all codes if they fit */
        if (P > nt || P < 2) continue;
        if (si == n_sizes) {
            bool all = true;      /* every used code among the top ones? */
            for (unsigned x = 0; x <= h->maxcode && all; x++) all = !h->f[x] || rank[x];
            if (!all || P == 2 || P == 8) continue;
        }
        /* DIROFS: the first used code not in the palette (capped) */
        unsigned D = 0;
        while (D <= h->maxcode && (!h->f[D] || (rank[D] && rank[D] <= P))) D++;
        if (D > EU_MAX_DIROFS) D = EU_MAX_DIROFS;
        unsigned ne = 0, nb = 0;
        uint16_t sorted[EU_MAX_PAL];
        for (unsigned j = 0; j < P; j++) {
            if (top[j] >= D) extra[ne++] = top[j];
            else sorted[nb++] = top[j];
        }
        try_palette(&ps, sorted, nb, extra, ne, D);
    }
    *best = ps.best;
    *best_cfg = ps.best_cfg;
    return ps.best_cost;
}

/* ----------------------------------------------------------- slice plan */

typedef struct eu_slice {
    size_t start, n;           /* coded values [start, start + n) */
    uint8_t wcfg, zdiv;
} eu_slice;

typedef struct eu_plan {
    bool zero_runs;
    eu_palette pal;
    uint16_t *idx;             /* coded values' indices */
    size_t n_vals;
    uint32_t *runs;            /* zero runs: runs[j] before value j, runs[n_vals] after the last */
    eu_slice *slices;
    size_t n_slices;
    uint64_t bits;             /* exact bits of the section: headers, palette, bodies */
} eu_plan;

/* A section: values [start, start + n) of the stream and their plan. */
typedef struct eu_section {
    size_t start, n;
    eu_plan pl;
} eu_section;

/* Bits of n coded values with Rice parameter cfg (or uncompressed: ub bits
 * each, 0 if not allowed) given the sums of their quotients; EU_INF if some
 * index is too large for it. */
static uint64_t wcfg_cost(const uint64_t *sumq, uint64_t n, unsigned max_index, unsigned cfg,
                          unsigned ub)
{
    if (cfg == W_UNC) return ub ? (uint64_t)ub * n : EU_INF;
    unsigned k = cfg % 6;
    if ((max_index >> k) > 31) return EU_INF;
    return sumq[k] + (uint64_t)(1 + k) * n;
}

/* Costs of every weight configuration for the coded values [lo, hi);
 * ub: uncompressed width, 0 if uncompressed slices are not allowed.
 * pos[k] = sum of idx >> (k + 1), k = 0..5: a Rice-k value of quotient q
 * takes q/2 + 1 unary positions, which fixes the chunk padding. */
static void block_wcost(const uint16_t *idx, size_t lo, size_t hi, unsigned ub, uint64_t *wc,
                        uint32_t *pos)
{
    /* plain sums and the maximum, vectorised by the compiler: in 16-bit
     * lanes over runs of 128 values (128 * 511 fits) */
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0;
    uint16_t m = 0;
    for (size_t at = lo; at < hi; at += 128) {
        size_t end = hi - at < 128 ? hi : at + 128;
        uint16_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0;
        for (size_t i = at; i < end; i++) {
            uint16_t x = idx[i];
            t0 = (uint16_t)(t0 + x);
            t1 = (uint16_t)(t1 + (x >> 1));
            t2 = (uint16_t)(t2 + (x >> 2));
            t3 = (uint16_t)(t3 + (x >> 3));
            t4 = (uint16_t)(t4 + (x >> 4));
            t5 = (uint16_t)(t5 + (x >> 5));
            t6 = (uint16_t)(t6 + (x >> 6));
            m = x > m ? x : m;
        }
        s0 += t0; s1 += t1; s2 += t2; s3 += t3; s4 += t4; s5 += t5; s6 += t6;
    }
    const uint64_t sumq[6] = {s0, s1, s2, s3, s4, s5};
    pos[0] = s1; pos[1] = s2; pos[2] = s3; pos[3] = s4; pos[4] = s5; pos[5] = s6;
    /* the Rice limit (q <= 31) depends only on the maximum's bit length */
    unsigned mx = (1u << bit_length(m)) - 1;
    /* the truncated mode (all quotients <= 2) differs from Rice only at the
     * smallest such k, by one bit per quotient equal to 2; it needs the
     * exact maximum, which only small indices can allow */
    unsigned kt = 6;
    uint64_t q2 = 0;
    if (m < 128) {                /* a quotient bound of 2 may hold */
        for (kt = 0; (m >> kt) > 2;) kt++;
        if (kt < 6 && (m >> kt) == 2)
            for (size_t i = lo; i < hi; i++) q2 += (idx[i] >> kt) == 2;
        else
            kt = 6;      /* quotients <= 1: truncated = Rice */
    }
    for (unsigned c = 0; c < W_NCFG; c++) {
        if (c >= W_TRUNC && c < W_UNC)
            wc[c] = c - W_TRUNC == kt ? wcfg_cost(sumq, hi - lo, 2u << kt, W_RICE + kt, ub) - q2
                                      : EU_INF;
        else
            wc[c] = wcfg_cost(sumq, hi - lo, mx, c, ub);
    }
}

/* Costs of ZDIV 0..3 for the runs [lo, hi): sum (q + 1 + z). The sums fit
 * 32 bits (vectorised): runs count zeros among at most 2^31 values. */
static void block_zcost(const uint32_t *runs, size_t lo, size_t hi, uint64_t *zc)
{
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = lo; i < hi; i++) {
        uint32_t r = runs[i];
        s0 += r; s1 += r >> 1; s2 += r >> 2; s3 += r >> 3;
    }
    uint64_t n = hi - lo;
    zc[0] = (uint64_t)s0 + n; zc[1] = (uint64_t)s1 + 2 * n; zc[2] = (uint64_t)s2 + 3 * n;
    zc[3] = (uint64_t)s3 + 4 * n;
}

/* Positions that fill the last chunk of a unary stream of `pos` positions. */
static inline uint64_t chunk_pad(uint64_t pos, unsigned len)
{
    return (len - pos % len) % len;
}

/* Per-block figures of plan_slices, kept for the exact bit count. */
typedef struct eu_blk {
    uint32_t wpos[6];          /* sum of idx >> (k + 1) */
    uint64_t zc[Z_NCFG];       /* run bits at ZDIV z: sum (r >> z) + (1 + z) runs */
    uint32_t nv, nr;           /* coded values, runs */
} eu_blk;

/* Exact bits of a slice made of blocks [b0, b1) in configuration st: its
 * header and body (the palette is the section's); `sum` is the sum of the
 * blocks' costs, exact but for the chunk padding of the unary streams:
 * Rice weights take n + sum q/2 positions, truncated ones n, uncompressed
 * ones none; runs take sum (r >> z) + runs positions (docs/ethos-u.md 6.3). */
static uint64_t slice_bits(const eu_blk *bk, size_t b0, size_t b1, unsigned wcfg, bool zr,
                           unsigned z, uint64_t sum)
{
    uint64_t n = 0, wp = 0, zp = 0;
    for (size_t b = b0; b < b1; b++) {
        n += bk[b].nv;
        if (wcfg < W_TRUNC) wp += bk[b].wpos[wcfg];
        if (zr) zp += bk[b].zc[z] - (uint64_t)z * bk[b].nr;
    }
    uint64_t bits = EU_SLICE_HDR + sum;
    if (wcfg < W_TRUNC) bits += chunk_pad(n + wp, 12);
    else if (wcfg < W_UNC) bits += chunk_pad(n, 12);
    if (zr) bits += chunk_pad(zp, z < 3 ? 12 : 8);
    return bits;
}

/* Picks slice boundaries and parameters: per block of EU_BLOCK coded values
 * the exact cost of every configuration, then the cheapest path through the
 * blocks where changing configuration costs a slice header. Sets pl->bits
 * to the section's exact size in bits (headers, palette, bodies). */
static int plan_slices(eu_plan *pl, npuc_err *err)
{
    const size_t nv = pl->n_vals, nb = (nv + EU_BLOCK - 1) / EU_BLOCK;
    const unsigned nz = pl->zero_runs ? Z_NCFG : 1, ns = W_NCFG * nz;
    /* a new slice: its header and, on average, half a chunk of padding for
     * the weight and the zero-run unary streams */
    const uint64_t switch_cost = EU_SLICE_HDR + 6 + (pl->zero_runs ? 6 : 0);
    uint64_t *cost = malloc(2 * ns * sizeof *cost);
    uint8_t *sw = malloc(nb * ns);            /* 1: a slice starts at this block */
    uint8_t *from = malloc(nb);               /* cheapest state of the previous block */
    uint64_t *bc = malloc(nb * ns * sizeof *bc);
    eu_blk *bk = malloc(nb * sizeof *bk);
    if (!cost || !sw || !from || !bc || !bk) {
        free(cost); free(sw); free(from); free(bc); free(bk);
        return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory planning %zu blocks", nb);
    }
    /* block costs (runs: block 0 also carries the run before value 0) */
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * EU_BLOCK, hi = lo + EU_BLOCK < nv ? lo + EU_BLOCK : nv;
        uint64_t wc[W_NCFG];
        eu_blk *k = &bk[b];
        memset(k->zc, 0, sizeof k->zc);
        block_wcost(pl->idx, lo, hi, pl->pal.unc_ok ? pl->pal.ub : 0, wc, k->wpos);
        k->nv = (uint32_t)(hi - lo);
        k->nr = 0;
        if (pl->zero_runs) {
            block_zcost(pl->runs, b ? lo + 1 : 0, hi + 1, k->zc);
            k->nr = (uint32_t)(hi + 1 - (b ? lo + 1 : 0));
        }
        for (unsigned w = 0; w < W_NCFG; w++)
            for (unsigned z = 0; z < nz; z++)
                bc[b * ns + w * nz + z] = wc[w] >= EU_INF ? EU_INF : wc[w] + k->zc[z];
    }
    /* dynamic programme */
    uint64_t *cur = cost, *prev = cost + ns;
    for (unsigned s = 0; s < ns; s++) {
        cur[s] = bc[s];
        sw[s] = 1;
    }
    from[0] = 0;
    for (size_t b = 1; b < nb; b++) {
        uint64_t *t = prev;
        prev = cur;
        cur = t;
        unsigned m = 0;
        for (unsigned s = 1; s < ns; s++) m = prev[s] < prev[m] ? s : m;
        from[b] = (uint8_t)m;
        const uint64_t change = prev[m] + switch_cost;
        for (unsigned s = 0; s < ns; s++) {
            uint64_t stay = prev[s], c = bc[b * ns + s];
            sw[b * ns + s] = change < stay;
            uint64_t v = (change < stay ? change : stay) + c;
            cur[s] = v > EU_INF ? EU_INF : v;
        }
    }
    unsigned s = 0;
    for (unsigned t = 1; t < ns; t++) s = cur[t] < cur[s] ? t : s;
    /* backtrack: count the slices, then fill them in from the end, cutting
     * slices longer than 32768 values (at most one cut per 128 blocks) */
    size_t n_sl = 0;
    unsigned st = s;
    for (size_t b = nb; b-- > 0;)
        if (sw[b * ns + st]) {
            n_sl++;
            st = b ? from[b] : st;
        }
    const size_t per = EU_MAX_SLICE / EU_BLOCK;          /* blocks of a full slice */
    size_t cap = n_sl + nb / per + 1;
    pl->slices = malloc(cap * sizeof *pl->slices);
    if (!pl->slices) {
        free(cost); free(sw); free(from); free(bc); free(bk);
        return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory");
    }
    size_t out = cap, end = nb;
    uint64_t bits = EU_PAL_HDR + (uint64_t)pl->pal.palsize * pl->pal.palbits;
    st = s;
    for (size_t b = nb; b-- > 0;) {
        if (!sw[b * ns + st]) continue;
        const unsigned wcfg = st / nz, z = st % nz;
        /* blocks [b, end) in pieces of at most `per` blocks, last first */
        for (size_t pe = end; pe > b;) {
            size_t pb = pe - b > per ? pe - ((pe - b - 1) % per + 1) : b;
            uint64_t sum = 0;
            for (size_t q = pb; q < pe; q++) sum += bc[q * ns + st];
            bits += slice_bits(bk, pb, pe, wcfg, pl->zero_runs, z, sum);
            eu_slice *piece = &pl->slices[--out];
            piece->start = pb * EU_BLOCK;
            piece->n = (pe * EU_BLOCK < nv ? pe * EU_BLOCK : nv) - pb * EU_BLOCK;
            piece->wcfg = (uint8_t)wcfg;
            piece->zdiv = (uint8_t)z;
            pe = pb;
        }
        end = b;
        st = b ? from[b] : st;
    }
    memmove(pl->slices, pl->slices + out, (cap - out) * sizeof *pl->slices);
    pl->n_slices = cap - out;
    pl->bits = bits;
    free(cost); free(sw); free(from); free(bc); free(bk);
    return NPUC_OK;
}

/* ------------------------------------------------------------- writing */

typedef struct eu_bitw {
    uint8_t *p;                /* where the next 64 bits go */
    uint64_t acc;              /* pending bits, LSB first */
    unsigned n;                /* number of pending bits (< 8 between calls) */
} eu_bitw;

/* Stores 64 bits little-endian (one store on little-endian hosts). */
static inline void store_le64(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &x, 8);
#else
    for (int b = 0; b < 8; b++) p[b] = (uint8_t)(x >> (8 * b));
#endif
}

/* Appends the low nbits (<= 56) of v; v has no bits above them. Branch-free
 * (the flush is data-dependent and would mispredict): the pending bits are
 * always stored as a 64-bit word, and the whole bytes among them kept. The
 * buffer needs 8 bytes of slack after the stream. Hot loops work on a local
 * copy of the writer so that its fields stay in registers. */
static inline void bw_put(eu_bitw *w, uint64_t v, unsigned nbits)
{
    w->acc |= v << w->n;
    w->n += nbits;
    store_le64(w->p, w->acc);
    w->p += w->n >> 3;
    w->acc >>= w->n & 56;
    w->n &= 7;
}

/* Up to 64 bits, as two puts of at most 32 bits. */
static inline void bw_put64(eu_bitw *w, uint64_t v, unsigned nbits)
{
    unsigned lo = nbits >> 1;
    bw_put(w, v & (((uint64_t)1 << lo) - 1), lo);
    bw_put(w, v >> lo, nbits - lo);
}

/* The nu (<= 24) bits u, then the nr (<= 60) bits r: two puts. */
static inline void bw_put_ur(eu_bitw *w, uint64_t u, unsigned nu, uint64_t r, unsigned nr)
{
    unsigned tot = nu + nr, n1 = tot < 48 ? tot : 48;      /* n1 >= nu */
    bw_put(w, (u | r << nu) & (((uint64_t)1 << n1) - 1), n1);
    bw_put(w, r >> (n1 - nu), tot - n1);
}

/* One chunk of a unary stream (weights or zero runs), as the decoder reads
 * it: the unary bits, and the remainders of the symbols that complete in it
 * (written one chunk later). */
typedef struct eu_chunk {
    uint32_t u0, u1;           /* weights: WUNARY0, WUNARY1; runs: ZUNARY in u0 */
    unsigned n_u1;
    uint64_t rem;              /* remainders, packed LSB first */
    unsigned rem_bits;
    size_t first, count;       /* uncompressed weights: the values of the chunk */
    unsigned done;             /* symbols completed, padding positions included */
} eu_chunk;

/* Weight symbols (two-bit unary, Rice or truncated). Whole symbols are
 * appended to pending bits: WUNARY0 positions, WUNARY1 bits and remainders;
 * a chunk is cut off the front once 12 positions are known. A position
 * completes its symbol unless it is a code-2 position of a non-truncated
 * symbol, i.e. has a WUNARY1 bit of 1, so a chunk completes
 * 12 - popcount(its WUNARY1 bits) symbols (padding included), and symbols
 * complete in order: their remainders are the front of the pending ones.
 * Pending remainders never exceed 12 symbols (60 bits): appending stops at
 * the first symbol reaching past the chunk, which then leaves at most 11
 * completions in it. */
typedef struct eu_wgen {
    const uint16_t *idx;
    size_t next, count;        /* next value to append, number of values */
    unsigned k;
    bool trunc;
    uint64_t u0, u1, rem;      /* pending WUNARY0 positions / WUNARY1 bits / remainders */
    unsigned n0, n1, nrem;
} eu_wgen;

/* The positions of a Rice quotient q <= 31: q/2 code-2 positions, then
 * one of code q&1. WUNARY0 pattern (a bit per position), WUNARY1 bits (one
 * per set WUNARY0 bit), and their counts. */
typedef struct eu_qpat {
    uint16_t u0, u1;
    uint16_t npos, nu1;        /* 16-bit: an 8-byte entry indexes in one step */
} eu_qpat;
#define EU_QPAT(q) {(uint16_t)(((1u << ((q) >> 1)) - 1) | ((q) & 1u) << ((q) >> 1)), \
                    (uint16_t)((1u << ((q) >> 1)) - 1), (uint16_t)(((q) >> 1) + 1),  \
                    (uint16_t)(((q) >> 1) + ((q) & 1))}
static const eu_qpat QPAT[32] = {
    EU_QPAT(0),  EU_QPAT(1),  EU_QPAT(2),  EU_QPAT(3),  EU_QPAT(4),  EU_QPAT(5),  EU_QPAT(6),
    EU_QPAT(7),  EU_QPAT(8),  EU_QPAT(9),  EU_QPAT(10), EU_QPAT(11), EU_QPAT(12), EU_QPAT(13),
    EU_QPAT(14), EU_QPAT(15), EU_QPAT(16), EU_QPAT(17), EU_QPAT(18), EU_QPAT(19), EU_QPAT(20),
    EU_QPAT(21), EU_QPAT(22), EU_QPAT(23), EU_QPAT(24), EU_QPAT(25), EU_QPAT(26), EU_QPAT(27),
    EU_QPAT(28), EU_QPAT(29), EU_QPAT(30), EU_QPAT(31)};
#undef EU_QPAT
/* QPAT's u0 in the low half, u1 in the high half (rice_body's accumulator). */
#define EU_QP64(q) (((1ull << ((q) >> 1)) - 1) | (uint64_t)((q) & 1u) << ((q) >> 1) | \
                    ((1ull << ((q) >> 1)) - 1) << 32)
#define EU_QP64X4(q) EU_QP64(q), EU_QP64(q + 1), EU_QP64(q + 2), EU_QP64(q + 3)
static const uint64_t QPAT64[32] = {EU_QP64X4(0),  EU_QP64X4(4),  EU_QP64X4(8),  EU_QP64X4(12),
                                    EU_QP64X4(16), EU_QP64X4(20), EU_QP64X4(24), EU_QP64X4(28)};
#undef EU_QP64X4
#undef EU_QP64

static inline void wgen_chunk(eu_wgen *g, eu_chunk *c)
{
    const unsigned k = g->k;
    const uint32_t mask = (1u << k) - 1;
    const uint16_t *idx = g->idx;
    const size_t count = g->count;
    uint64_t u0 = g->u0, u1 = g->u1, rem = g->rem;
    unsigned n0 = g->n0, n1 = g->n1, nrem = g->nrem;
    size_t next = g->next;
    if (g->trunc) {
        for (; n0 < 12 && next < count; next++) {   /* one position: code q */
            uint32_t x = idx[next], q = x >> k;
            u0 |= (uint64_t)(q != 0) << n0;
            u1 |= (uint64_t)(q == 2) << n1;
            rem |= (uint64_t)(x & mask) << nrem;
            n0++;
            n1 += q != 0;
            nrem += k;
        }
    } else {
        for (; n0 < 12 && next < count; next++) {
            uint32_t x = idx[next];
            const eu_qpat *qp = &QPAT[x >> k];
            u0 |= (uint64_t)qp->u0 << n0;
            u1 |= (uint64_t)qp->u1 << n1;
            rem |= (uint64_t)(x & mask) << nrem;
            n0 += qp->npos;
            n1 += qp->nu1;
            nrem += k;
        }
    }
    g->next = next;
    unsigned pad = n0 < 12 ? 12 - n0 : 0;
    c->u0 = (uint32_t)u0 & 0xFFF;
    c->n_u1 = popcount12(c->u0);
    c->u1 = (uint32_t)u1 & ((1u << c->n_u1) - 1);
    c->done = g->trunc ? 12 : 12 - popcount12(c->u1);
    unsigned rb = (c->done - pad) * k;
    c->rem = rem & (((uint64_t)1 << rb) - 1);
    c->rem_bits = rb;
    g->rem = rem >> rb;
    g->nrem = nrem - rb;
    g->u0 = u0 >> 12;
    g->n0 = n0 - 12 + pad;
    g->u1 = u1 >> c->n_u1;
    g->n1 = n1 - c->n_u1;
}

/* Uncompressed chunk: every position is one value (or padding). */
static inline void wgen_plain(eu_wgen *g, unsigned len, eu_chunk *c)
{
    c->first = g->next;
    c->count = g->count - g->next < len ? g->count - g->next : len;
    g->next += c->count;
    c->done = len;
}

/* COMPRESS6[m][v]: the bits of v at the set bits of m, packed down in
 * order (bits of v outside m are dropped). Generated by the preprocessor:
 * bit i of m, when set, moves bit i of v to the number of set bits of m
 * below i. */
#define EU_PC6(m) (((m) & 1) + ((m) >> 1 & 1) + ((m) >> 2 & 1) + ((m) >> 3 & 1) + \
                   ((m) >> 4 & 1) + ((m) >> 5 & 1))
#define EU_CB(m, v, i) (((m) >> (i) & 1) ? ((v) >> (i) & 1) << EU_PC6((m) & ((1 << (i)) - 1)) : 0)
#define EU_C6(m, v) (uint8_t)(EU_CB(m, v, 0) | EU_CB(m, v, 1) | EU_CB(m, v, 2) | \
                              EU_CB(m, v, 3) | EU_CB(m, v, 4) | EU_CB(m, v, 5))
#define EU_C8(m, v) EU_C6(m, v), EU_C6(m, v + 1), EU_C6(m, v + 2), EU_C6(m, v + 3), \
                    EU_C6(m, v + 4), EU_C6(m, v + 5), EU_C6(m, v + 6), EU_C6(m, v + 7)
#define EU_CROW(m) {EU_C8(m, 0), EU_C8(m, 8), EU_C8(m, 16), EU_C8(m, 24), \
                    EU_C8(m, 32), EU_C8(m, 40), EU_C8(m, 48), EU_C8(m, 56)}
#define EU_CROW8(m) EU_CROW(m), EU_CROW(m + 1), EU_CROW(m + 2), EU_CROW(m + 3), \
                    EU_CROW(m + 4), EU_CROW(m + 5), EU_CROW(m + 6), EU_CROW(m + 7)
static const uint8_t COMPRESS6[64][64] = {EU_CROW8(0),  EU_CROW8(8),  EU_CROW8(16),
                                          EU_CROW8(24), EU_CROW8(32), EU_CROW8(40),
                                          EU_CROW8(48), EU_CROW8(56)};
#undef EU_CROW8
#undef EU_CROW
#undef EU_C8
#undef EU_C6
#undef EU_CB
#undef EU_PC6


/* Rice body (no zero runs, not truncated): weight chunks back to back,
 * each followed by the remainders of the chunk before, until every value
 * has completed; then the last chunk's remainders. This is wgen_chunk
 * spelled out with its state in locals, for the bulk of real weights, with
 * one accumulator for the positions: WUNARY0 bits (QPAT's u0) in its low
 * half, code-2 positions (QPAT's u1) in its high half (one shift per value
 * instead of two; pending
 * positions stay below 28: appending stops at 12 and a symbol takes at most
 * 16). A chunk's WUNARY1 bits are its code-2 bits at its WUNARY0 positions,
 * packed (COMPRESS6). Remainders queue up in rq by constant shifts (below).
 * k is a constant in each caller (rice_body). */
static inline void rice_body_k(eu_bitw *wp, const uint16_t *idx, size_t n, const unsigned k)
{
    eu_bitw w = *wp;
    uint64_t prev_rem = 0;
    unsigned prev_bits = 0;
    /* remainders as a queue entering at the top by constant shifts: the
     * nrem pending bits are the top nrem bits of rq, the oldest lowest
     * (LSB first, as they are written; at most 12 symbols, 60 bits) */
    uint64_t pos = 0, rq = 0;
    unsigned n0 = 0, nrem = 0;
    size_t next = 0;
    /* one value's positions and remainder appended */
#define EU_RICE_APPEND()                                              \
    do {                                                              \
        uint32_t x = idx[next];                                       \
        uint32_t q = x >> k;                                          \
        pos |= QPAT64[q] << n0;                                       \
        if (k) rq = rq >> k | (uint64_t)x << (64 - k);                \
        n0 += (q >> 1) + 1;                                           \
    } while (0)
    for (size_t done = 0; done < n;) {
        /* a value takes at least one position: with 12 values left the
         * chunk fills before they run out, and only n0 needs checking */
        size_t from = next;
        if (n - next >= 12)
            for (; n0 < 12; next++) EU_RICE_APPEND();
        else
            for (; n0 < 12 && next < n; next++) EU_RICE_APPEND();
        nrem += (unsigned)(next - from) * k;
        unsigned pad = n0 < 12 ? 12 - n0 : 0;
        uint32_t c0 = (uint32_t)pos & 0xFFF, c2 = (uint32_t)(pos >> 32) & 0xFFF;
        unsigned n_u1 = popcount12(c0);
        uint32_t c1 = COMPRESS6[c0 & 63][c2 & 63] |
                      (uint32_t)COMPRESS6[c0 >> 6][c2 >> 6] << POPCOUNT6[c0 & 63];
        unsigned completed = 12 - popcount12(c2);
        /* WUNARY0, WUNARY1, then WREMAIN of the chunk before */
        bw_put_ur(&w, c0 | c1 << 12, 12 + n_u1, prev_rem, prev_bits);
        unsigned rb = (completed - pad) * k;
        /* the oldest rb pending bits (two shifts: nrem may be 0) */
        prev_rem = (rq >> 1 >> (63 - nrem)) & (((uint64_t)1 << rb) - 1);
        prev_bits = rb;
        nrem -= rb;
        pos = (pos >> 12 & 0xFFFFF) | (pos >> 44) << 32;
        n0 = n0 - 12 + pad;
        done += completed;
    }
#undef EU_RICE_APPEND
    bw_put64(&w, prev_rem, prev_bits);
    *wp = w;
}

/* rice_body_k with k as a constant (shifts by immediates). */
static void rice_body(eu_bitw *w, const uint16_t *idx, size_t n, unsigned k)
{
    switch (k) {
    case 0: rice_body_k(w, idx, n, 0); break;
    case 1: rice_body_k(w, idx, n, 1); break;
    case 2: rice_body_k(w, idx, n, 2); break;
    case 3: rice_body_k(w, idx, n, 3); break;
    case 4: rice_body_k(w, idx, n, 4); break;
    default: rice_body_k(w, idx, n, 5); break;
    }
}

/* Body of a slice without zero runs, Rice or truncated, through the
 * generic generator: the truncated bodies (rare), and the reference that
 * the tests hold rice_body to (the same bits). */
static void wgen_body(eu_bitw *wp, const uint16_t *idx, size_t n, unsigned k, bool trunc)
{
    eu_bitw w = *wp;
    uint64_t prev_rem = 0;
    unsigned prev_bits = 0;
    eu_wgen g;
    memset(&g, 0, sizeof g);
    g.idx = idx;
    g.count = n;
    g.k = k;
    g.trunc = trunc;
    for (size_t done = 0; done < n;) {
        eu_chunk c;
        wgen_chunk(&g, &c);
        bw_put_ur(&w, c.u0 | c.u1 << 12, 12 + c.n_u1, prev_rem, prev_bits);
        prev_rem = c.rem;
        prev_bits = c.rem_bits;
        done += c.done;
    }
    bw_put64(&w, prev_rem, prev_bits);
    *wp = w;
}

/* Body of a slice without zero runs, Rice or truncated. */
static void put_rice_body(eu_bitw *w, const uint16_t *idx, size_t n, unsigned k, bool trunc)
{
    if (trunc) wgen_body(w, idx, n, k, true);
    else rice_body(w, idx, n, k);
}

/* The low `bits` (<= 9) bits of each of count indices, in order. */
static void put_plain(eu_bitw *w, const uint16_t *idx, size_t count, unsigned bits)
{
    const uint32_t mask = (1u << bits) - 1;
    size_t i = 0;
    for (; i + 6 <= count; i += 6) {  /* 6 x 9 bits fit one put */
        uint64_t v = 0;
        for (unsigned j = 0; j < 6; j++) v |= (uint64_t)(idx[i + j] & mask) << (j * bits);
        bw_put(w, v, 6 * bits);
    }
    for (; i < count; i++) bw_put(w, idx[i] & mask, bits);
}

/* Zero runs: plain unary, a run may span many chunks. */
typedef struct eu_zgen {
    const uint32_t *runs;
    size_t next, count;
    unsigned z;
    bool busy;
    uint32_t ones, rem;        /* the run being emitted */
} eu_zgen;

static void zgen_chunk(eu_zgen *g, unsigned len, eu_chunk *c)
{
    unsigned pos = 0;
    c->u0 = 0;
    c->rem = 0;
    c->rem_bits = c->done = 0;
    while (pos < len) {
        if (!g->busy) {
            if (g->next == g->count) {   /* padding: code 0, no remainder */
                c->done += len - pos;
                return;
            }
            uint32_t r = g->runs[g->next++];
            g->ones = r >> g->z;
            g->rem = r & ((1u << g->z) - 1);
            g->busy = true;
        }
        unsigned avail = len - pos;
        if (g->ones >= avail) {
            c->u0 |= ((1u << avail) - 1) << pos;
            g->ones -= avail;
            return;
        }
        c->u0 |= ((1u << g->ones) - 1) << pos;
        pos += g->ones + 1;              /* the terminating 0 bit */
        c->rem |= (uint64_t)g->rem << c->rem_bits;
        c->rem_bits += g->z;
        c->done++;
        g->busy = false;
    }
}

/* Body of a zero-run slice: the weight and zero-run unary streams in
 * chunks, interleaved as the decoder reads them (docs/ethos-u.md 6.3): the
 * balance between completed weight and run symbols decides which streams
 * take part in an iteration, and remainders lag one chunk behind. */
static void put_zero_run_body(eu_bitw *wp, const uint16_t *idx, size_t n, const uint32_t *runs,
                              size_t n_runs, unsigned k, unsigned ub, bool unc, bool trunc,
                              unsigned z)
{
    const unsigned wlen = (unc && ub > 5) ? 8 : 12, zlen = z < 3 ? 12 : 8;
    eu_bitw w = *wp;
    eu_wgen wg;
    memset(&wg, 0, sizeof wg);
    wg.idx = idx;
    wg.count = n;
    wg.k = unc ? ub : k;
    wg.trunc = trunc;
    eu_zgen zg = {runs, 0, n_runs, z, false, 0, 0};
    eu_chunk cw = {0}, cz = {0}, pw = {0}, pz = {0};
    bool pw_on = false, pz_on = false;
    size_t wsym = 0, zsym = 0;
    for (;;) {
        int64_t bal = (int64_t)wsym - (int64_t)zsym;
        bool w_on = bal < 8 && wsym < n;
        bool z_on = bal >= 0 && zsym < n_runs;
        if (w_on) {
            if (unc) wgen_plain(&wg, wlen, &cw);
            else wgen_chunk(&wg, &cw);
        }
        if (z_on) zgen_chunk(&zg, zlen, &cz);
        if (w_on && !unc) bw_put(&w, cw.u0, 12);       /* WUNARY0 */
        if (z_on) bw_put(&w, cz.u0, zlen);             /* ZUNARY */
        if (w_on && !unc) bw_put(&w, cw.u1, cw.n_u1);  /* WUNARY1 */
        if (pw_on) {                                   /* WREMAIN */
            if (unc) put_plain(&w, idx + pw.first, pw.count, ub);
            else bw_put64(&w, pw.rem, pw.rem_bits);
        }
        if (pz_on) bw_put64(&w, pz.rem, pz.rem_bits);  /* ZREMAIN */
        if (!w_on && !z_on) break;
        if (w_on) wsym += cw.done;
        if (z_on) zsym += cz.done;
        pw_on = w_on;
        pz_on = z_on;
        pw = cw;
        pz = cz;
    }
    *wp = w;
}

/* Writes one slice: header, palette (first slice of the section), body. */
static void put_slice(eu_bitw *w, const eu_plan *pl, const eu_slice *sl, bool first)
{
    const eu_palette *p = &pl->pal;
    const bool zr = pl->zero_runs, unc = sl->wcfg == W_UNC;
    const bool trunc = sl->wcfg >= W_TRUNC && sl->wcfg < W_UNC;
    const unsigned k = sl->wcfg % 6;

    bw_put(w, zr ? sl->zdiv : 6, 3);           /* ZDIV (6: no zero runs) */
    bw_put(w, (uint32_t)(sl->n - 1), 15);      /* SLICELEN */
    bw_put(w, unc ? 7 : k, 3);                 /* WDIV (7: uncompressed) */
    bw_put(w, trunc, 1);                       /* WTRUNC */
    bw_put(w, first, 1);                       /* NEWPAL */
    if (first) {
        bw_put(w, p->dirofs, 5);
        bw_put(w, p->palsize ? p->palsize - 1 : 0, 5);
        bw_put(w, p->palbits - 2, 3);
        for (unsigned j = 0; j < p->palsize; j++) bw_put(w, p->pal[j], p->palbits);
    }

    const uint16_t *idx = pl->idx + sl->start;
    if (zr) {
        /* the first slice also carries the run before value 0 */
        const uint32_t *runs = pl->runs + sl->start + (first ? 0 : 1);
        put_zero_run_body(w, idx, sl->n, runs, sl->n + (first ? 1 : 0), k, p->ub, unc, trunc,
                          sl->zdiv);
    } else if (unc) {
        /* no unary bits at all: the remainders form the plain sequence */
        put_plain(w, idx, sl->n, p->ub);
    } else {
        put_rice_body(w, idx, sl->n, k, trunc);
    }
}

/* ------------------------------------------------------------- encoder */

/* Zero runs and the non-zero values (as v + 255) of a sequence, without
 * branches on the data: every step stores, and only a non-zero value
 * advances. runs[j] = zeros before non-zero value j, runs[nz] = zeros after
 * the last. Both arrays need room for nz + 1 entries. */
static void split_zero_runs(const int16_t *vals, size_t n, uint16_t *nzv, uint32_t *runs)
{
    size_t j = 0;
    uint32_t r = 0;
    for (size_t i = 0; i < n; i++) {
        int v = vals[i];
        uint32_t nonzero = v != 0;
        runs[j] = r;
        nzv[j] = (uint16_t)(v + 255);
        j += nonzero;
        r = (r + 1) & (nonzero - 1);
    }
    runs[j] = r;
}

/* The section: zero-run mode and palette with the smaller estimate. The
 * zero-run variant is only costed when zeros are common enough to pay for a
 * run symbol (at least 1 bit) per coded value. */
static int plan_section(eu_plan *pl, const int16_t *vals, size_t n, const uint32_t *fv,
                        npuc_err *err)
{
    eu_hist *h = malloc(sizeof *h);
    if (!h) return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory");
    /* value v + 255 -> sign-magnitude code: +a at 2a, -a at 2a + 1 */
    h->f[0] = fv[255];
    h->f[1] = 0;
    for (unsigned a = 1; a < 256; a++) {
        h->f[2 * a] = fv[255 + a];
        h->f[2 * a + 1] = fv[255 - a];
    }
    hist_finish(h);
    const size_t zeros = fv[255];
    unsigned cfg = 0;
    eu_palette pal;
    uint64_t cost_plain = plan_palette(h, &pal, &cfg);
    uint64_t cost_zr = EU_INF;
    eu_palette pal_zr;
    uint16_t *nzv = NULL;
    uint32_t *runs = NULL;
    size_t nz = n - zeros;
    if (zeros * 10 >= n) {
        nzv = malloc((nz + 1) * sizeof *nzv);
        runs = malloc((nz + 2) * sizeof *runs);
        if (!nzv || !runs) {
            free(h); free(nzv); free(runs);
            return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory (%zu weights)", n);
        }
        if (nz == 0) {
            /* all zeros: the section codes its first zero explicitly (a slice
             * is never empty), the rest is one run */
            nz = 1;
            nzv[0] = 255;
            runs[0] = 0;
            runs[1] = (uint32_t)(n - 1);
            h->f[0] = 1;
            hist_finish(h);
        } else {
            split_zero_runs(vals, n, nzv, runs);
            hist_drop_zero(h);
        }
        cost_zr = plan_palette(h, &pal_zr, &cfg);
        uint64_t zc[Z_NCFG];
        block_zcost(runs, 0, nz + 1, zc);
        uint64_t best_run = zc[0];
        for (unsigned z = 1; z < Z_NCFG; z++) best_run = zc[z] < best_run ? zc[z] : best_run;
        if (cost_zr < EU_INF) cost_zr += best_run;
    }
    free(h);
    if (cost_plain >= EU_INF && cost_zr >= EU_INF) {
        free(nzv);
        free(runs);
        return npuc_errf(err, NPUC_E_INVALID, "MLW encode: no palette fits (internal error)");
    }
    pl->zero_runs = cost_zr < cost_plain;
    pl->pal = pl->zero_runs ? pal_zr : pal;

    /* coded indices through a table indexed by v + 255 */
    const eu_palette *p = &pl->pal;
    uint16_t lut[511];
    const unsigned D = p->dirofs, P = p->palsize;
    for (unsigned a = 0; a < 256; a++)            /* +a: code 2a */
        lut[255 + a] = (uint16_t)(2 * a >= D ? 2 * a - D + P : 0);
    for (unsigned a = 1; a < 256; a++)            /* -a: code 2a + 1 */
        lut[255 - a] = (uint16_t)(2 * a + 1 >= D ? 2 * a + 1 - D + P : 0);
    for (unsigned j = p->palsize; j-- > 0;) {
        unsigned x = p->pal[j];
        if (x != 1) lut[(x & 1) ? 255 - (x >> 1) : 255 + (x >> 1)] = (uint16_t)j;
    }
    if (pl->zero_runs) {
        for (size_t j = 0; j < nz; j++) nzv[j] = lut[nzv[j]];
        pl->idx = nzv;
        pl->runs = runs;
        pl->n_vals = nz;
        return NPUC_OK;
    }
    free(nzv);
    free(runs);
    uint16_t *idx = malloc(n * sizeof *idx);
    if (!idx) return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory (%zu weights)", n);
    const uint16_t *l0 = lut + 255;   /* by value */
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint16_t a = l0[vals[i]], b = l0[vals[i + 1]], c = l0[vals[i + 2]], d = l0[vals[i + 3]];
        idx[i] = a;
        idx[i + 1] = b;
        idx[i + 2] = c;
        idx[i + 3] = d;
    }
    for (; i < n; i++) idx[i] = l0[vals[i]];
    pl->idx = idx;
    pl->n_vals = n;
    return NPUC_OK;
}

/* ------------------------------------------------------------ sections */

static void plan_free(eu_plan *pl)
{
    free(pl->idx);
    free(pl->runs);
    free(pl->slices);
    memset(pl, 0, sizeof *pl);
}

/* Plans the n values as one section, from their histogram fv (by v + 255). */
static int plan_range(const int16_t *vals, size_t n, const uint32_t *fv, eu_plan *pl,
                      npuc_err *err)
{
    memset(pl, 0, sizeof *pl);
    int rc = plan_section(pl, vals, n, fv, err);
    if (!rc) rc = plan_slices(pl, err);
    if (rc) plan_free(pl);
    return rc;
}

/* Bytes of a stream whose sections take `bits`: the end marker (3 bits),
 * 1 bits to the byte, 0xFF bytes to a multiple of 16. */
static size_t stream_bytes(uint64_t bits)
{
    return (size_t)(((bits + 3 + 7) / 8 + 15) / 16 * 16);
}

/* Adds the histogram (by v + 255) of n values to f. Long ranges count into
 * four interleaved copies so that runs of equal values do not serialise on
 * one counter. */
static void hist_add(const int16_t *vals, size_t n, uint32_t *f)
{
    size_t i = 0;
    uint32_t *f0 = f + 255;              /* by value */
    if (n >= 4096) {
        uint32_t g[3][512];
        memset(g, 0, sizeof g);
        uint32_t *g0 = g[0] + 255, *g1 = g[1] + 255, *g2 = g[2] + 255;
        for (; i + 4 <= n; i += 4) {
            f0[vals[i]]++;
            g0[vals[i + 1]]++;
            g1[vals[i + 2]]++;
            g2[vals[i + 3]]++;
        }
        for (unsigned o = 0; o < 511; o++) f[o] += g[0][o] + g[1][o] + g[2][o];
    }
    for (; i < n; i++) f0[vals[i]]++;
}

/* Estimated bits of one unit of EU_SEC_UNIT values (the last may be
 * shorter) in each zero-run mode, with its best Rice parameter and ZDIV
 * (slices may change them at no charge here): from sums over the unit of
 * the sign-magnitude codes sm >> k (no zero runs: index = sm, the plain or
 * "hole" mapping) and of (sm - 2) >> k over the non-zero values (zero
 * runs: index = sm - 2, as DIROFS 2 without a palette gives), the runs
 * costed as if the unit's zeros were spread evenly over them. Palettes are
 * left out: the exact plan of each section finds them. */
static void unit_costs(const int16_t *v, size_t n, uint64_t *plain, uint64_t *zr)
{
    uint32_t sp = 0, sz = 0, zeros = 0;
    uint16_t orp = 0, orz = 0;
    for (size_t at = 0; at < n; at += 128) {   /* 16-bit lanes: 128 * 511 fits */
        size_t end = n - at < 128 ? n : at + 128;
        uint16_t p = 0, z = 0, nz = 0;
        for (size_t i = at; i < end; i++) {
            /* all in 16 bits (8 lanes a vector): s is all ones for x < 0,
             * 2x ^ s is 2|x| - 1 there, and adding 2 gives 2|x| + 1 */
            uint16_t x = (uint16_t)v[i];
            uint16_t s = (uint16_t)-(uint16_t)(x >> 15);
            uint16_t sm = (uint16_t)(((uint16_t)(x << 1) ^ s) + (s & 2));
            uint16_t sq = (uint16_t)(sm > 2 ? sm - 2 : 0);
            p = (uint16_t)(p + sm);
            z = (uint16_t)(z + sq);
            nz = (uint16_t)(nz + (x == 0));
            orp |= sm;
            orz |= sq;
        }
        sp += p;
        sz += z;
        zeros += nz;
    }
    const uint64_t nnz = n - zeros;
    const unsigned mp = (1u << bit_length(orp)) - 1, mz = (1u << bit_length(orz)) - 1;
    /* uncompressed: PALBITS + 2 >= 2 bits a value */
    uint64_t bp = (uint64_t)(mp > 3 ? bit_length(mp) : 2) * n, bz = EU_INF;
    for (unsigned k = 0; k < 6; k++) {
        /* sum of x >> k from the sum of x: a remainder averages (2^k - 1) / 2 */
        uint64_t c = (uint64_t)(1 + k) * n, h = (uint64_t)n * ((1u << k) - 1) / 2;
        c += sp > h ? (sp - h) >> k : 0;
        if ((mp >> k) <= 31 && c < bp) bp = c;
        c = (uint64_t)(1 + k) * nnz;
        h = nnz * ((1u << k) - 1) / 2;
        c += sz > h ? (sz - h) >> k : 0;
        if ((mz >> k) <= 31 && c < bz) bz = c;
    }
    uint64_t rb = EU_INF;          /* a run after each value */
    for (unsigned z = 0; z < Z_NCFG; z++) {
        uint64_t c = nnz * (1 + z) + (zeros >> z);
        rb = c < rb ? c : rb;
    }
    *plain = bp;
    *zr = bz + rb;
}

/* Chooses the sections of a stream; `single` is the plan of the whole
 * stream as one section. Per unit of EU_SEC_UNIT values, unit_costs
 * estimates both zero-run modes; a dynamic programme over the units picks
 * the mode of each, paying EU_SEC_COST for every change. If that beats the
 * better mode for the whole stream, the runs of equal mode are planned
 * exactly as sections (zero-run mode, palette, slices each) and kept only if
 * the stream gets smaller. On success *sec / *n_sec hold the sections (each
 * owning its plan); 0 sections means: keep `single`. fv: the histogram of
 * all n values (by v + 255). */
static int plan_sections(const int16_t *vals, size_t n, const uint32_t *fv, const eu_plan *single,
                         unsigned max_sec, eu_section **sec, size_t *n_sec, npuc_err *err)
{
    *sec = NULL;
    *n_sec = 0;
    if (max_sec == 1 || n < 2 * EU_SEC_UNIT) return NPUC_OK;
    const size_t nu = (n + EU_SEC_UNIT - 1) / EU_SEC_UNIT;
    uint64_t *uc = malloc(2 * nu * sizeof *uc);
    uint8_t *sw = malloc(2 * nu);   /* 1: a section starts at this unit in this mode */
    if (!uc || !sw) {
        free(uc);
        free(sw);
        return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory");
    }
    uint64_t tot[2] = {0, 0}, cur[2];
    for (size_t u = 0; u < nu; u++) {
        size_t lo = u * EU_SEC_UNIT, hi = lo + EU_SEC_UNIT < n ? lo + EU_SEC_UNIT : n;
        unit_costs(vals + lo, hi - lo, &uc[2 * u], &uc[2 * u + 1]);
        tot[0] += uc[2 * u];
        tot[1] += uc[2 * u + 1];
        if (!u) {
            cur[0] = uc[0];
            cur[1] = uc[1];
            sw[0] = sw[1] = 1;
            continue;
        }
        uint64_t prev[2] = {cur[0], cur[1]};
        for (unsigned m = 0; m < 2; m++) {
            uint64_t stay = prev[m], change = prev[m ^ 1] + EU_SEC_COST;
            sw[2 * u + m] = change < stay;
            cur[m] = (change < stay ? change : stay) + uc[2 * u + m];
        }
    }
    const uint64_t whole = tot[0] < tot[1] ? tot[0] : tot[1];
    unsigned m = cur[1] < cur[0];
    int rc = NPUC_OK;
    if (cur[m] + EU_SEC_COST >= (whole < single->bits ? whole : single->bits)) goto done;
    /* the runs of equal mode, last first */
    size_t ns = 0;
    for (size_t u = nu; u-- > 0;)
        if (sw[2 * u + m]) {
            ns++;
            m ^= u ? 1 : 0;
        }
    if (max_sec && ns > max_sec) goto done;
    eu_section *s = calloc(ns, sizeof *s);
    if (!s) {
        rc = npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory");
        goto done;
    }
    m = cur[1] < cur[0];
    size_t k = ns, end = n;
    for (size_t u = nu; u-- > 0;)
        if (sw[2 * u + m]) {
            s[--k].start = u * EU_SEC_UNIT;
            s[k].n = end - s[k].start;
            end = s[k].start;
            m ^= u ? 1 : 0;
        }
    /* each section's histogram counted, but the largest's: the whole's
     * minus the others' (planned last) */
    size_t big = 0;
    for (k = 1; k < ns; k++) big = s[k].n > s[big].n ? k : big;
    uint32_t rest[512];
    memcpy(rest, fv, sizeof rest);
    uint64_t bits = 0;
    for (size_t j = 0; j < ns && !rc; j++) {
        k = j + 1 < ns ? (j < big ? j : j + 1) : big;
        uint32_t f[512];
        if (k != big) {
            memset(f, 0, sizeof f);
            hist_add(vals + s[k].start, s[k].n, f);
            for (unsigned o = 0; o < 511; o++) rest[o] -= f[o];
        }
        rc = plan_range(vals + s[k].start, s[k].n, k != big ? f : rest, &s[k].pl, err);
        bits += s[k].pl.bits;
    }
    if (!rc && stream_bytes(bits) < stream_bytes(single->bits)) {
        *sec = s;
        *n_sec = ns;
    } else {
        for (size_t j = 0; j < ns; j++) plan_free(&s[j].pl);
        free(s);
    }
done:
    free(uc);
    free(sw);
    return rc;
}

/* A stream's plan: its sections and their exact size in bytes. */
typedef struct mlw_plan {
    eu_section *sec;          /* [n_sec], malloc'd */
    size_t n_sec;
    eu_section one;           /* the whole as one section, while planning */
    size_t size;              /* bytes of the stream (stream_bytes) */
} mlw_plan;

static void mlw_plan_free(mlw_plan *mp)
{
    for (size_t k = 0; k < mp->n_sec; k++) plan_free(&mp->sec[k].pl);
    free(mp->sec);
    mp->sec = NULL;
    mp->n_sec = 0;
}

/* Steps 1-3: plans the stream of the n values (n >= 1) into *mp (its
 * exact size in mp->size), the histogram by v + 255 into fv_out. */
static int mlw_plan_make(const int16_t *vals, size_t n, unsigned max_sections, mlw_plan *mp,
                         uint32_t *fv_out, bool checked, npuc_err *err)
{
    memset(mp, 0, sizeof *mp);
    if (n > ((size_t)1 << 31))
        return npuc_errf(err, NPUC_E_INVALID, "MLW encode: %zu weights is too many", n);

    /* 1. range check (a min/max the compiler vectorises), then the
     * histogram by value */
    int16_t lo = 0, hi = 0;
    for (size_t i = 0; i < n && !checked; i++) {
        lo = vals[i] < lo ? vals[i] : lo;
        hi = vals[i] > hi ? vals[i] : hi;
    }
    if (lo < -255 || hi > 255) {
        size_t i = 0;
        while (vals[i] >= -255 && vals[i] <= 255) i++;
        return npuc_errf(err, NPUC_E_INVALID,
                         "MLW encode: weight %zu is %d, outside the 9-bit range -255..255", i,
                         vals[i]);
    }
    uint32_t fv[512];
    memset(fv, 0, sizeof fv);
    hist_add(vals, n, fv);
    if (fv_out) memcpy(fv_out, fv, sizeof fv);

    /* 2. the whole stream as one section (zero-run mode, palette, slices),
     * 3. other sections where they make the stream smaller */
    mp->one.start = 0;
    mp->one.n = n;
    int rc = plan_range(vals, n, fv, &mp->one.pl, err);
    if (rc) return rc;
    rc = plan_sections(vals, n, fv, &mp->one.pl, max_sections, &mp->sec, &mp->n_sec, err);
    if (rc) {
        plan_free(&mp->one.pl);
        return rc;
    }
    if (mp->n_sec) plan_free(&mp->one.pl);
    else {
        /* on the heap: a plan may be moved (the stream cache keeps it) */
        if (!(mp->sec = malloc(sizeof *mp->sec))) {
            plan_free(&mp->one.pl);
            return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory");
        }
        mp->sec[0] = mp->one;
        mp->n_sec = 1;
    }
    uint64_t bits = 0;
    for (size_t k = 0; k < mp->n_sec; k++) bits += mp->sec[k].pl.bits;
    mp->size = stream_bytes(bits);
    return NPUC_OK;
}

/* Step 4: writes the planned stream (mp->size bytes) to a new buffer. */
static int mlw_plan_write(const mlw_plan *mp, uint8_t **out, eu_mlw_stats *st, npuc_err *err)
{
    *out = NULL;
    uint64_t bits = 0;
    size_t n_slices = 0, size = mp->size;
    for (size_t k = 0; k < mp->n_sec; k++) {
        bits += mp->sec[k].pl.bits;
        n_slices += mp->sec[k].pl.n_slices;
    }
    /* the bit writer stores 4 bytes ahead; the slack per slice is there in
     * case the padding count were ever wrong (checked below) */
    uint8_t *buf = malloc(size + 4 * n_slices + 16);
    if (!buf) return npuc_errf(err, NPUC_E_NOMEM, "MLW encode: out of memory (%zu bytes)", size);
    eu_bitw w = {buf, 0, 0};
    for (size_t k = 0; k < mp->n_sec; k++)
        for (size_t s = 0; s < mp->sec[k].pl.n_slices; s++)
            put_slice(&w, &mp->sec[k].pl, &mp->sec[k].pl.slices[s], s == 0);
    bw_put(&w, 7, 3);              /* ZDIV 7: end of stream */
    size_t bytes = (size_t)(w.p - buf);
    for (unsigned b = 0; b < w.n; b += 8) buf[bytes++] = (uint8_t)(w.acc >> b);
    if (w.n & 7) buf[bytes - 1] |= (uint8_t)(0xFF << (w.n & 7));
    if (bytes > size) {        /* the plan's bit count is exact: cannot happen */
        free(buf);
        return npuc_errf(err, NPUC_E_INVALID,
                         "MLW encode: wrote %zu bytes, planned %zu (internal error)", bytes, size);
    }
    memset(buf + bytes, 0xFF, size - bytes);
    if (st) {
        st->sections = mp->n_sec;
        st->slices = n_slices;
        st->bits = bits;
        st->written_bits = (uint64_t)(w.p - buf) * 8 + w.n - 3;
    }
    *out = buf;
    return NPUC_OK;
}

/* eu_mlw_encode_ex; when fv_out is set, the histogram (by v + 255) of the
 * values the stream decodes to goes there (512 counts). `checked`: the
 * caller has checked that every value is within -255..255. */
static int mlw_encode(const int16_t *vals, size_t n, unsigned max_sections, uint8_t **out,
                      size_t *out_size, eu_mlw_stats *st, uint32_t *fv_out, bool checked,
                      npuc_err *err)
{
    static const int16_t one_zero[1] = {0};
    *out = NULL;
    *out_size = 0;
    if (st) memset(st, 0, sizeof *st);
    if (n == 0) {                 /* a stream is never empty */
        vals = one_zero;
        n = 1;
    }
    mlw_plan mp;
    int rc = mlw_plan_make(vals, n, max_sections, &mp, fv_out, checked, err);
    if (rc) return rc;
    rc = mlw_plan_write(&mp, out, st, err);
    if (!rc) *out_size = mp.size;
    mlw_plan_free(&mp);
    return rc;
}

int eu_mlw_encode(const int16_t *vals, size_t n, uint8_t **out, size_t *out_size, npuc_err *err)
{
    return mlw_encode(vals, n, 0, out, out_size, NULL, NULL, false, err);
}

int eu_mlw_encode_ex(const int16_t *vals, size_t n, unsigned max_sections, uint8_t **out,
                     size_t *out_size, eu_mlw_stats *st, npuc_err *err)
{
    return mlw_encode(vals, n, max_sections, out, out_size, st, NULL, false, err);
}

/* ------------------------------------------------------- op weights */

/* n times the Shannon entropy of a histogram of n values. */
static double entropy_of(const uint64_t *hist, int span, size_t n)
{
    double bits = 0;
    for (int k = 0; k < span; k++)
        if (hist[k]) bits -= (double)hist[k] * log2((double)hist[k] / (double)n);
    return bits;
}

/* eu_entropy_bits from the histogram (by v + 255) of the n values. */
static double entropy_of_fv(const uint32_t *fv, size_t n)
{
    uint64_t hist[511];
    for (int k = 0; k < 511; k++) hist[k] = fv[k];
    return entropy_of(hist, 511, n);
}

double eu_entropy_bits(const int16_t *vals, size_t n)
{
    static const int span = 511;
    uint64_t hist[511];
    memset(hist, 0, sizeof hist);
    if (n < 8192) {
        for (size_t i = 0; i < n; i++) {
            int v = vals[i] < -255 ? -255 : vals[i] > 255 ? 255 : vals[i];
            hist[v + 255]++;
        }
        return entropy_of(hist, span, n);
    }
    /* four histograms, merged: runs of one value (weights crowd around
     * zero) do not wait on the previous increment of the same count */
    uint32_t part[4][511];
    memset(part, 0, sizeof part);
    for (size_t i0 = 0; i0 < n; ) {
        size_t end = n - i0 > ((size_t)1 << 30) ? i0 + ((size_t)1 << 30) : n;   /* no 32-bit count overflows */
        size_t i = i0;
        for (; i + 4 <= end; i += 4)
            for (int k = 0; k < 4; k++) {
                int v = vals[i + k] < -255 ? -255 : vals[i + k] > 255 ? 255 : vals[i + k];
                part[k][v + 255]++;
            }
        for (; i < end; i++) {
            int v = vals[i] < -255 ? -255 : vals[i] > 255 ? 255 : vals[i];
            part[0][v + 255]++;
        }
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < span; j++) {
                hist[j] += part[k][j];
                part[k][j] = 0;
            }
        i0 = end;
    }
    return entropy_of(hist, span, n);
}

/* The values g's traversal reads from w (holes: zeros), range checked:
 * *seq malloc'd, *n of them (n >= 1). */
static int gather_seq(const sim_wgeom *g, const int16_t *w, int16_t **seq_out, size_t *n_out,
                      npuc_err *err)
{
    *seq_out = NULL;
    size_t n = sim_weight_traverse(g, NULL, 0);
    int16_t *seq = malloc((n ? n : 1) * sizeof *seq);
    if (!seq)
        return npuc_errf(err, NPUC_E_NOMEM, "weight encode: out of memory (%zu positions)", n);
    sim_weight_gather(g, w, seq);
    int16_t lo = 0, hi = 0;          /* range check, vectorised */
    for (size_t i = 0; i < n; i++) {
        lo = seq[i] < lo ? seq[i] : lo;
        hi = seq[i] > hi ? seq[i] : hi;
    }
    if (lo < -255 || hi > 255) {
        /* name the weight by its coordinates, not its stream position
         * (through the traversal's map, only here) */
        size_t i = 0;
        while (seq[i] >= -255 && seq[i] <= 255) i++;
        int v = seq[i];
        free(seq);
        int64_t *map = malloc(n * sizeof *map);
        if (!map)
            return npuc_errf(err, NPUC_E_INVALID, "weight encode: weight %d at position %zu "
                             "is outside -255..255", v, i);
        sim_weight_traverse(g, map, n);
        uint64_t x = (uint64_t)map[i], I = g->depthwise ? 1 : g->ifm_depth;
        free(map);
        return npuc_errf(err, NPUC_E_INVALID,
                         "weight encode: W[%llu][%llu][%llu][%llu] (index %llu) is %d, outside "
                         "-255..255", (unsigned long long)(x / I / g->kw / g->kh),
                         (unsigned long long)(x / I / g->kw % g->kh),
                         (unsigned long long)(x / I % g->kw), (unsigned long long)(x % I),
                         (unsigned long long)x, v);
    }
    if (!n) seq[n++] = 0;            /* a stream is never empty: one zero */
    *seq_out = seq;
    *n_out = n;
    return NPUC_OK;
}

int eu_encode_weights(const sim_wgeom *g, const int16_t *w, uint8_t **out, size_t *out_size,
                      npuc_err *err)
{
    int16_t *seq;
    size_t n;
    int rc = gather_seq(g, w, &seq, &n, err);
    if (rc) return rc;
    rc = mlw_encode(seq, n, 0, out, out_size, NULL, NULL, true, err);
    free(seq);
    if (rc) npuc_err_prefix(err, "OFM depth %u, kernel %ux%u", g->ofm_depth, g->kh, g->kw);
    return rc;
}

/* ------------------------------------------------------- stream cache */

/* One distinct stream: its plan until its bits are written, then its
 * bytes. Two streams are the same bytes exactly when they code the same
 * values (a stream decodes to its values), so the placeholder of a stream
 * not yet written stands for its bytes in every byte comparison. The
 * values themselves are not kept: the entry `src` gathers them again
 * where another stream's values hash alike. */
typedef struct wc_stream {
    size_t n;                 /* values coded (n >= 1) */
    uint64_t seq_hash;        /* their hash */
    int32_t src;              /* an entry whose geometry and weights read them */
    mlw_plan plan;            /* until written (plan.n_sec == 0 after) */
    uint8_t *out;             /* the bytes, once written; else NULL */
    size_t size;
    uint32_t *fv;             /* histogram (by v + 255) of the values the
                                 stream decodes to; NULL once bits is set */
    double bits;              /* their order-0 entropy, once asked for */
} wc_stream;

/* One geometry and weights, and the stream they encode to. */
typedef struct wc_entry {
    sim_wgeom g;
    size_t nw;
    int16_t *w;               /* the weights, to compare on a hash match */
    int32_t s;                /* the stream (-1: none, out of memory) */
} wc_entry;

struct eu_wcache {
    wc_entry *e;              /* [ix.n], capacity cap */
    int32_t cap;
    npuc_hindex ix;           /* hashes of geometry and weights */
    wc_stream *st;            /* [qx.n], capacity st_cap */
    int32_t st_cap;
    npuc_hindex qx;           /* hashes of the streams' values */
    npuc_hindex sx;           /* stream_key of streams [0, sx.n) (0 for one
                                 not written), added when asked (eu_wcache_entropy) */
    bool sx_broken;           /* out of memory adding to sx */
    bool lazy;                /* bits written by eu_wcache_fill only */
    uint8_t *ph;              /* the last placeholder handed out */
    size_t ph_cap;
    uint64_t tag;             /* the placeholders' tag */
};

/* The placeholder's 16-byte blocks: the cache's tag, the stream's index,
 * the block's index. The tag mixes the cache's address into a constant: a
 * model's own constants cannot be made to look like a placeholder. */
#define WC_TAG 0x9e3779b97f4a7c15ull

eu_wcache *eu_wcache_new(void)
{
    eu_wcache *c = calloc(1, sizeof(eu_wcache));
    if (c) {
        uintptr_t a = (uintptr_t)c;
        c->tag = npuc_hash(NPUC_HASH_INIT, &a, sizeof a) ^ WC_TAG;
    }
    return c;
}

void eu_wcache_set_lazy(eu_wcache *c, bool lazy)
{
    if (c) c->lazy = lazy;
}

void eu_wcache_free(eu_wcache *c)
{
    if (!c) return;
    for (int32_t i = 0; i < c->ix.n; i++) free(c->e[i].w);
    for (int32_t i = 0; i < c->qx.n; i++) {
        wc_stream *q = &c->st[i];
        mlw_plan_free(&q->plan);
        free(q->out);
        free(q->fv);
    }
    free(c->e);
    free(c->st);
    free(c->ph);
    npuc_hindex_free(&c->ix);
    npuc_hindex_free(&c->qx);
    npuc_hindex_free(&c->sx);
    free(c);
}

static bool same_geom(const sim_wgeom *a, const sim_wgeom *b)
{
    return a->ofm_depth == b->ofm_depth && a->ifm_depth == b->ifm_depth && a->kh == b->kh && a->kw == b->kw &&
           a->block_depth == b->block_depth && a->dil_x == b->dil_x && a->dil_y == b->dil_y &&
           a->ifm_bits == b->ifm_bits && a->ofm_ublock == b->ofm_ublock &&
           a->part_kernel_first == b->part_kernel_first && a->depthwise == b->depthwise;
}

/* The hash of the geometry's fields and the weights. */
static uint64_t wc_hash(const sim_wgeom *g, const int16_t *w, size_t nw)
{
    uint64_t f[7] = {g->ofm_depth, g->ifm_depth, g->kh, g->kw, g->block_depth,
                     (uint64_t)g->dil_x | (uint64_t)g->dil_y << 8 | (uint64_t)g->ifm_bits << 16 |
                         (uint64_t)g->ofm_ublock << 24 | (uint64_t)g->part_kernel_first << 32 |
                         (uint64_t)g->depthwise << 40,
                     nw};
    return npuc_hash(npuc_hash(NPUC_HASH_INIT, f, sizeof f), w, sizeof *w * nw);
}

/* Writes stream q's bits (from its plan) unless written. */
static int wc_write(wc_stream *q, npuc_err *err)
{
    if (q->out) return NPUC_OK;
    int rc = mlw_plan_write(&q->plan, &q->out, NULL, err);
    if (rc) return rc;
    mlw_plan_free(&q->plan);
    return NPUC_OK;
}

/* Block b of stream i's placeholder. */
static void wc_block(const eu_wcache *c, uint8_t *to, uint32_t i, size_t b)
{
    const uint64_t f[2] = {c->tag, (uint64_t)i | (uint64_t)b << 32};
    memcpy(to, f, 16);
}

/* Stream i's placeholder, in the cache's buffer (valid until the next
 * call). NULL: no memory. */
static const uint8_t *wc_placeholder(eu_wcache *c, int32_t i)
{
    size_t size = c->st[i].size;
    if (size > c->ph_cap) {
        uint8_t *p = realloc(c->ph, size);
        if (!p) return NULL;
        c->ph = p;
        c->ph_cap = size;
    }
    for (size_t b = 0; b < size / 16; b++) wc_block(c, c->ph + 16 * b, (uint32_t)i, b);
    return c->ph;
}

/* Whether stream q codes the values seq[0..n) (hash h): its source entry's
 * values gathered again and compared. */
static bool wc_codes(const eu_wcache *c, const wc_stream *q, const int16_t *seq, size_t n, uint64_t h)
{
    if (q->seq_hash != h || q->n != n) return false;
    const wc_entry *x = &c->e[q->src];
    int16_t *v;
    size_t nv;
    npuc_err e = {0};
    if (gather_seq(&x->g, x->w, &v, &nv, &e)) return false;   /* no memory: another stream */
    bool same = nv == n && !memcmp(v, seq, sizeof *seq * n);
    free(v);
    return same;
}

/* The stream of the values seq[0..n), entry k's: planned (and written
 * unless lazy) where not seen yet; -1 with err set. */
static int32_t wc_stream_of(eu_wcache *c, int32_t k, const int16_t *seq, size_t n, npuc_err *err)
{
    uint64_t h = npuc_hash(NPUC_HASH_INIT, seq, sizeof *seq * n) ^ n;
    for (int32_t i = npuc_hindex_first(&c->qx, h); i >= 0; i = npuc_hindex_next(&c->qx, i))
        if (wc_codes(c, &c->st[i], seq, n, h)) return i;
    if (c->qx.n == c->st_cap) {
        int32_t cap = c->st_cap ? 2 * c->st_cap : 64;
        wc_stream *st = realloc(c->st, sizeof *st * (size_t)cap);
        if (!st) {
            npuc_errf(err, NPUC_E_NOMEM, "weight encode: out of memory");
            return -1;
        }
        c->st = st;
        c->st_cap = cap;
    }
    wc_stream q;
    memset(&q, 0, sizeof q);
    q.n = n;
    q.seq_hash = h;
    q.src = k;
    q.bits = -1.0;
    uint32_t fv[512];
    int rc = mlw_plan_make(seq, n, 0, &q.plan, fv, true, err);
    q.size = q.plan.size;
    /* the histogram is kept only if there is memory for it (else the
     * entropy is not known here: eu_wcache_entropy says so) */
    if (!rc && (q.fv = malloc(sizeof fv))) memcpy(q.fv, fv, sizeof fv);
    if (!rc && !c->lazy) rc = wc_write(&q, err);
    if (!rc && !npuc_hindex_add(&c->qx, h)) rc = npuc_errf(err, NPUC_E_NOMEM, "weight encode: out of memory");
    if (rc) {
        mlw_plan_free(&q.plan);
        free(q.out);
        free(q.fv);
        return -1;
    }
    c->st[c->qx.n - 1] = q;
    return c->qx.n - 1;
}

int eu_encode_weights_cached(eu_wcache *c, const sim_wgeom *g, const int16_t *w, size_t nw, const uint8_t **out,
                             size_t *out_size, uint8_t **own, npuc_err *err)
{
    *own = NULL;
    if (!c) {
        int rc = eu_encode_weights(g, w, own, out_size, err);
        *out = *own;
        return rc;
    }
    uint64_t h = wc_hash(g, w, nw);
    int32_t s = -1;
    for (int32_t i = npuc_hindex_first(&c->ix, h); i >= 0 && s < 0; i = npuc_hindex_next(&c->ix, i)) {
        const wc_entry *x = &c->e[i];
        if (x->s >= 0 && x->nw == nw && same_geom(&x->g, g) && !memcmp(x->w, w, sizeof *w * nw)) s = x->s;
    }
    if (s < 0) {
        /* a new entry (its weights the source of its stream's values),
         * then its stream */
        if (c->ix.n == c->cap) {
            int32_t cap = c->cap ? 2 * c->cap : 64;
            wc_entry *e = realloc(c->e, sizeof *e * (size_t)cap);
            if (!e) return npuc_errf(err, NPUC_E_NOMEM, "weight encode: out of memory");
            c->e = e;
            c->cap = cap;
        }
        int32_t k = c->ix.n;
        int16_t *wk = malloc(sizeof *wk * nw + 1);
        if (!wk || !npuc_hindex_add(&c->ix, h)) {
            free(wk);
            return npuc_errf(err, NPUC_E_NOMEM, "weight encode: out of memory");
        }
        memcpy(wk, w, sizeof *w * nw);
        c->e[k] = (wc_entry){*g, nw, wk, -1};
        int16_t *seq;
        size_t n;
        int rc = gather_seq(g, w, &seq, &n, err);
        if (rc) return rc;
        s = wc_stream_of(c, k, seq, n, err);
        free(seq);
        if (s < 0) {
            npuc_err_prefix(err, "OFM depth %u, kernel %ux%u", g->ofm_depth, g->kh, g->kw);
            return err->code;
        }
        c->e[k].s = s;
    }
    wc_stream *q = &c->st[s];
    *out_size = q->size;
    *out = q->out ? q->out : wc_placeholder(c, s);
    if (!*out) return npuc_errf(err, NPUC_E_NOMEM, "weight encode: out of memory");
    return NPUC_OK;
}

int eu_wcache_fill(eu_wcache *c, uint8_t *b, uint64_t size, npuc_err *err)
{
    if (!c || !c->lazy) return NPUC_OK;
    for (uint64_t at = 0; at + 16 <= size; at += 16) {
        uint64_t f[2];
        memcpy(f, b + at, 16);
        if (f[0] != c->tag || f[1] >> 32 || (uint32_t)f[1] >= (uint32_t)c->qx.n) continue;
        uint32_t i = (uint32_t)f[1];
        wc_stream *q = &c->st[i];
        if (at + q->size > size) continue;
        /* the whole placeholder, or not one */
        bool same = true;
        uint8_t blk[16];
        for (size_t k = 1; k < q->size / 16 && same; k++) {
            wc_block(c, blk, i, k);
            same = !memcmp(b + at + 16 * k, blk, 16);
        }
        if (!same) continue;
        int rc = wc_write(q, err);
        if (rc) return rc;
        memcpy(b + at, q->out, q->size);
        at += q->size - 16;
    }
    return NPUC_OK;
}

/* The key of a stream in the cache's stream index: its length and its
 * first and last 64 bytes (streams of one op's weights encoded with other
 * geometries differ in length or in their first slice; a match is
 * compared whole). */
static uint64_t stream_key(const uint8_t *s, size_t len)
{
    uint64_t l = len;
    size_t n = len < 64 ? len : 64;
    uint64_t h = npuc_hash(NPUC_HASH_INIT, &l, sizeof l);
    h = npuc_hash(h, s, n);
    return npuc_hash(h, s + len - n, n);
}

bool eu_wcache_entropy(eu_wcache *c, const uint8_t *s, size_t len, double *bits)
{
    if (!c || !len) return false;
    /* index the streams added since the last call (one not written yet
     * is not found: the caller decodes) */
    while (!c->sx_broken && c->sx.n < c->qx.n) {
        const wc_stream *x = &c->st[c->sx.n];
        if (!npuc_hindex_add(&c->sx, x->out ? stream_key(x->out, x->size) : 0)) c->sx_broken = true;
    }
    if (c->sx_broken) return false;
    for (int32_t i = npuc_hindex_first(&c->sx, stream_key(s, len)); i >= 0; i = npuc_hindex_next(&c->sx, i)) {
        wc_stream *x = &c->st[i];
        if (!x->out || x->size != len || memcmp(x->out, s, len)) continue;
        if (x->fv) {
            /* the values' count: n, as the encoder counted them (one
             * zero for n == 0, as the stream decodes) */
            size_t n = 0;
            for (int v = 0; v < 511; v++) n += x->fv[v];
            x->bits = entropy_of_fv(x->fv, n);
            free(x->fv);
            x->fv = NULL;
        }
        if (x->bits < 0) continue;   /* no histogram was kept */
        *bits = x->bits;
        return true;
    }
    return false;
}

/* ------------------------------------------------------- scale records */

size_t eu_scale_stream_size(size_t n)
{
    return (n * 10 + 15) / 16 * 16;
}

int eu_encode_scales(const sim_scale_rec *recs, size_t n, uint8_t *out, npuc_err *err)
{
    const int64_t lim = (int64_t)1 << 39;
    for (size_t c = 0; c < n; c++) {
        if (recs[c].bias < -lim || recs[c].bias >= lim)
            return npuc_errf(err, NPUC_E_INVALID,
                             "scale records: channel %zu: bias %lld does not fit 40 bits", c,
                             (long long)recs[c].bias);
        if (recs[c].shift > 63)
            return npuc_errf(err, NPUC_E_INVALID, "scale records: channel %zu: shift %u > 63", c,
                             (unsigned)recs[c].shift);
    }
    for (size_t c = 0; c < n; c++) {
        uint8_t *r = out + c * 10;
        uint64_t b = (uint64_t)recs[c].bias;
        for (int k = 0; k < 5; k++) r[k] = (uint8_t)(b >> (8 * k));
        for (int k = 0; k < 4; k++) r[5 + k] = (uint8_t)(recs[c].scale >> (8 * k));
        r[9] = recs[c].shift;
    }
    memset(out + n * 10, 0, eu_scale_stream_size(n) - n * 10);
    return NPUC_OK;
}

/* ------------------------------------------------------- Vela heuristics */

void eu_quantise_scale(double r, uint32_t *m, uint8_t *s)
{
    /* Vela: significand, exponent = frexp(r); m = round_away_zero(f * 2^31)
     * (f * 2^31 < 2^31 is exact in a double, so adding 0.5 and truncating
     * rounds exactly); s = 31 - exponent; (0, 16) if s is outside 0..63.
     * frexp(0) = (0, 0) gives Vela (0, 31); negative or non-finite scales
     * have no record form and also give (0, 16). */
    *m = 0;
    *s = 16;
    if (!isfinite(r) || r < 0) return;
    int e = 0;
    double f = frexp(r, &e);
    int shift = 31 - e;
    if (shift < 0 || shift > 63) return;
    *m = (uint32_t)(f * 2147483648.0 + 0.5);
    *s = (uint8_t)shift;
}

bool eu_prefer_part_kernel_first(uint32_t ifm_depth, uint32_t kh, uint32_t kw, unsigned ifm_bits)
{
    /* Vela's weight_compressor.py, which sets the traversal of the weight
     * stream (and so the KERNEL_STRIDE bit): part-kernel-first when
     *   (I / round_up(I, 8)) * (k / round_up(k, 4 or 2)) >= I / round_up(I, 32 or 16)
     * (8-bit IFM vs other) or I <= 8, for a ConvolutionMxN. Evaluated in
     * double in Vela's order so that float rounding breaks near-ties the
     * same way. (architecture_allocator._choose_kernel_method has the same
     * formula with ">", but only picks the block config's IFM depth.)
     * Vela's FullyConnected ("VectorProduct") ops are always depth-first;
     * callers handle them. */
    if (ifm_depth <= 8) return true;
    const double I = ifm_depth, k = (double)kh * kw;
    const uint64_t kr = ifm_bits == 8 ? 4 : 2, ir = ifm_bits == 8 ? 32 : 16;
    const uint64_t i8 = ((uint64_t)ifm_depth + 7) / 8 * 8;
    const uint64_t kru = ((uint64_t)kh * kw + kr - 1) / kr * kr;
    const uint64_t iru = ((uint64_t)ifm_depth + ir - 1) / ir * ir;
    double depth_first = I / (double)iru;
    double part_kernel = (I / (double)i8) * (k / (double)kru);
    return part_kernel >= depth_first;
}
