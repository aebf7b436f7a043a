/* eu_weights: the constant data of one NPU kernel operation in the form the
 * hardware reads it: weights reordered into the traversal order and MLW
 * compressed (docs/ethos-u.md 6.2, 6.3), and the 10-byte per-channel
 * bias/scale records (docs/ethos-u.md 7). Host-only, part of compiler/ethosu. */
#ifndef NPUC_EU_WEIGHTS_H
#define NPUC_EU_WEIGHTS_H

#include "util/util.h"
#include "sim/sim.h"

/* Compresses a sequence of signed 9-bit values (-255..255) into one MLW
 * stream: sections, palettes, zero runs and Rice parameters chosen to make
 * the stream small, then the end marker and 0xFF padding to a multiple of 16
 * bytes. *out is malloc'd (caller frees). Values outside -255..255 give
 * NPUC_E_INVALID naming the index. n == 0 encodes one explicit zero (a
 * stream is never empty). Decodes with sim_mlw_decode to exactly `vals`
 * (plus the zero when n == 0). */
int eu_mlw_encode(const int16_t *vals, size_t n, uint8_t **out, size_t *out_size,
                  npuc_err *err);

/* What eu_mlw_encode_ex chose (for tests and benchmarks). */
typedef struct eu_mlw_stats {
    size_t sections, slices;
    uint64_t bits;             /* the plan's exact bit count of the sections */
    uint64_t written_bits;     /* what the writer wrote before the end marker */
} eu_mlw_stats;

/* eu_mlw_encode with at most max_sections sections (0: as many as pay, what
 * eu_mlw_encode does; 1: the whole stream as one section). st may be NULL. */
int eu_mlw_encode_ex(const int16_t *vals, size_t n, unsigned max_sections, uint8_t **out,
                     size_t *out_size, eu_mlw_stats *st, npuc_err *err);

/* The order-0 entropy of n values in -255..255, in bits: n times the
 * Shannon entropy of their histogram. No coder that codes each value on
 * its own from one fixed table can go below it; the measure of
 * what an encoder leaves on the table. 0 for n == 0. */
double eu_entropy_bits(const int16_t *vals, size_t n);

/* Reorders the weights of one op into the traversal of g (sim_weight_traverse)
 * and compresses them. w holds W[o][ky][kx][i] (depthwise: W[o][ky][kx]),
 * o < g->ofm_depth, already minus the weight zero point (and flipped for
 * transpose conv). Holes of the traversal are zeros. */
int eu_encode_weights(const sim_wgeom *g, const int16_t *w, uint8_t **out,
                      size_t *out_size, npuc_err *err);

/* A cache of encoded weight streams keyed by their geometry and weights
 * (the unrolled ops of an LSTM share one weight tensor; the schedule
 * search lowers a model more than once): eu_encode_weights_cached gives
 * the bytes eu_encode_weights would, encoding only what it has not seen.
 * w holds nw weights (all that g's traversal reads). A NULL cache encodes
 * every time. *out: the stream, the cache's (valid while the cache is)
 * unless *own is set, then the caller's to free (*own == *out). */
typedef struct eu_wcache eu_wcache;
eu_wcache *eu_wcache_new(void);
void eu_wcache_free(eu_wcache *c);
int eu_encode_weights_cached(eu_wcache *c, const sim_wgeom *g, const int16_t *w, size_t nw,
                             const uint8_t **out, size_t *out_size, uint8_t **own, npuc_err *err);

/* Weight sources: the weights of an op as the lowering derives them
 * from a constant tensor, kept by the cache once per content for all the
 * compiles it serves (each lowers the same tensors; its chunks and blocks
 * differ). The source's key is desc[0..desc_len) (how the data is read)
 * and data[0..data_len) (the bytes read), compared whole. *src: the
 * source; *w is NULL when the cache has it (its weights:
 * eu_wcache_source_weights), else the new source's nw weights, which the
 * caller fills at once. c must not be NULL. */
int eu_wcache_source(eu_wcache *c, const void *desc, size_t desc_len, const void *data, size_t data_len,
                     size_t nw, int32_t *src, int16_t **w, npuc_err *err);
const int16_t *eu_wcache_source_weights(const eu_wcache *c, int32_t src);
/* The stream of weights [at, at + nw) of source src in geometry g (what
 * eu_encode_weights_cached gives for them), keyed by the source and the
 * range: no weight is read, hashed or copied when the cache has it.
 * *stream: its index in the cache, *size its bytes; eu_wcache_copy puts
 * them (or, in a lazy cache, the placeholder standing for them) at `to`. */
int eu_wcache_stream_src(eu_wcache *c, const sim_wgeom *g, int32_t src, size_t at, size_t nw,
                         int32_t *stream, size_t *size, npuc_err *err);
void eu_wcache_copy(const eu_wcache *c, int32_t stream, uint8_t *to);
/* Whether the bytes at `at` start and end as eu_wcache_copy puts them
 * there for `stream`: in a lazy cache its placeholder's first and last
 * blocks (each names the cache, the stream and the block's place in it:
 * bytes written over from the start or the end no longer match), else all
 * of its bits. */
bool eu_wcache_copy_ends(const eu_wcache *c, int32_t stream, const uint8_t *at);

/* A lazy cache writes no stream's bits when it is encoded: *out of
 * eu_encode_weights_cached is then a placeholder of the stream's exact
 * size (its plan's), which stands for the stream in every byte
 * comparison (two placeholders are the same bytes exactly when the
 * streams are: both code the same values); eu_wcache_fill replaces each
 * placeholder in b[0..size) (16-byte aligned) by the stream's bytes,
 * writing each stream's bits once. The schedule search keeps only one of
 * the compiles it weighs: only its streams are written. A cache is
 * eager (writes at once) until set lazy. A placeholder is in the cache's
 * buffer: valid until the next call (copy it at once). The cache keeps a
 * plan per stream not written, not the values. */
void eu_wcache_set_lazy(eu_wcache *c, bool lazy);
int eu_wcache_fill(eu_wcache *c, uint8_t *b, uint64_t size, npuc_err *err);

/* The order-0 entropy (eu_entropy_bits, the same double) of the values a
 * stream of len bytes at s decodes to, when the cache holds a stream
 * encoded with exactly these bytes: counted from the values the encoder
 * coded, which the stream decodes to, so no decode is needed. false if
 * the cache has no such stream (or no memory to tell): decode it then. */
bool eu_wcache_entropy(eu_wcache *c, const uint8_t *s, size_t len, double *bits);

/* Writes n 10-byte records (40-bit bias, 32-bit scale, 6-bit shift) then
 * zeros up to eu_scale_stream_size(n). Bias outside 40 bits or shift > 63
 * give NPUC_E_INVALID naming the channel; out is then untouched. */
size_t eu_scale_stream_size(size_t n);
int eu_encode_scales(const sim_scale_rec *recs, size_t n, uint8_t *out, npuc_err *err);

/* Vela's quantise_scale (docs/ethos-u.md 5.6): r = f*2^e with f in [0.5,1);
 * m = round_half_away(f*2^31), s = 31 - e; (0, 16) when s is outside 0..63
 * or r == 0. m may be 2^31. */
void eu_quantise_scale(double r, uint32_t *m, uint8_t *s);

/* Whether Vela's heuristic would choose part-kernel-first traversal for an
 * op with ifm_depth I, kernel kh x kw and ifm_bits (docs/ethos-u.md 6.2 notes). */
bool eu_prefer_part_kernel_first(uint32_t ifm_depth, uint32_t kh, uint32_t kw, unsigned ifm_bits);

#endif
