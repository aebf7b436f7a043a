/* Internal to compiler/: what the lowering files (src/compiler/lower/)
 * share.
 *
 *   lower.c           cc_lower: buffers, epochs, and the dispatch of each
 *                     graph op through the op tables below
 *   lower_toolkit.c   the helpers every lowering uses (reasons, operands,
 *                     NPU ops, feature maps, constants, blocks, scales,
 *                     reference tables)
 *   lower_weights.c   weights, scale records and output-channel chunks of
 *                     CONV / DEPTHWISE ops
 *   lower_<family>.c  one file per op family, each exporting its table
 *
 * A lowering returns 0 (the op is on the NPU: its eu_ops are appended to the
 * open epoch), 1 (a CPU op: cc_cpu set the reason) or an NPUC_E_* error. For
 * a CPU op the driver drops the eu_ops the lowering appended; constants,
 * LUTs and scratch buffers it added stay unless the lowering takes them
 * back itself. */
#ifndef NPUC_LOWER_H
#define NPUC_LOWER_H

#include "compiler/cc.h"
#include "compiler/cc_range.h"

typedef struct lower_ctx {
    cc_model *m;
    const graph *g;
    cc_epoch *e;              /* the open HW epoch */
    int32_t op_index;         /* graph op being lowered */
    char *why;                /* reason buffer of the current op */
    const cc_range *range;    /* value range of every tensor (cc_range.h) */
    struct cc_share_ix *share; /* owned: the open epoch's ops by their constants
                                  (lower_weights.c), NULL until needed */
    struct cc_blk_memo *blocks; /* owned: cc_choose_block's answers by request
                                   (lower_toolkit.c), NULL until needed */
    struct cc_ref_memo *refs; /* owned: cc_reference_all's answers by op and
                                 quantization (lower_toolkit.c), NULL: none */
    const int32_t *readers;   /* per graph tensor: the op inputs reading it
                                 (counted once per lowering), NULL: none */
    const uint64_t *const_rest; /* per graph op i: the constant input bytes of
                                   ops i.. (cc_flash_reserve), NULL: none */
} lower_ctx;

/* Frees lower_ctx.share. */
void cc_share_ix_free(struct cc_share_ix *s);
/* Frees lower_ctx.blocks. */
void cc_blk_memo_free(struct cc_blk_memo *b);
/* The answers of the lowering's exactness checks that are functions of a
 * few integers alone (key[0] names the check; lower_lstm.c), kept with
 * lower_ctx.refs: get is true (val filled) when key was put before. */
bool cc_check_get(const lower_ctx *c, const int32_t key[3], int32_t val[4]);
void cc_check_put(const lower_ctx *c, const int32_t key[3], const int32_t val[4]);
/* Values of the lowering's pure functions by a key of bytes (everything
 * the value is a function of), kept with lower_ctx.refs for all the
 * search's compiles: get is true (val filled) when key was put before
 * with a value of vs bytes; put keeps nothing when out of memory. */
bool cc_blob_get(const lower_ctx *c, const void *key, size_t ks, void *val, size_t vs);
void cc_blob_put(const lower_ctx *c, const void *key, size_t ks, const void *val, size_t vs);
/* The op inputs reading tensor t: from lower_ctx.readers, else counted. */
int32_t cc_readers(const lower_ctx *c, int32_t t);

/* The size of a reason buffer (cc_op_info.why). */
#define CC_WHY_SIZE sizeof(((cc_op_info *)0)->why)

/* The largest extent (height, width, depth) of one NPU op's feature map. */
#define CC_DIM_MAX 65536

/* ------------------------------------------------------------ op tables */

typedef int (*lower_fn)(lower_ctx *c, const graph_op *op, npuc_err *err);

typedef struct lower_impl {
    int32_t opcode;           /* TFL_OP_* */
    lower_fn lower;
} lower_impl;

/* Defines `const lower_impl *fn(int32_t *count)` returning the array `table`. */
#define LOWER_OPS_TABLE(fn, table)                          \
    const lower_impl *fn(int32_t *count)                    \
    {                                                       \
        *count = (int32_t)(sizeof table / sizeof table[0]); \
        return table;                                       \
    }

/* One table per family file; an opcode in none of them stays on the CPU. */
const lower_impl *lower_ops_conv(int32_t *count);        /* CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV */
const lower_impl *lower_ops_pool(int32_t *count);        /* MAX_POOL_2D, AVERAGE_POOL_2D, MEAN */
const lower_impl *lower_ops_elementwise(int32_t *count); /* ADD, SUB, MUL, MINIMUM, MAXIMUM */
const lower_impl *lower_ops_lut(int32_t *count);         /* pointwise: int8 LUTs, int16 forms */
const lower_impl *lower_ops_quantize(int32_t *count);    /* QUANTIZE with a uint8 side (others: lut) */
const lower_impl *lower_ops_softmax(int32_t *count);     /* SOFTMAX */
const lower_impl *lower_ops_shape(int32_t *count);       /* SLICE, STRIDED_SLICE, TRANSPOSE */
const lower_impl *lower_ops_pad(int32_t *count);         /* PAD, PADV2 */
const lower_impl *lower_ops_concat(int32_t *count);      /* CONCATENATION */
const lower_impl *lower_ops_resize(int32_t *count);      /* RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR */
const lower_impl *lower_ops_gather(int32_t *count);      /* TILE, REVERSE_V2, MIRROR_PAD */
const lower_impl *lower_ops_prelu(int32_t *count);       /* PRELU */
const lower_impl *lower_ops_lstm(int32_t *count);        /* UNIDIRECTIONAL_SEQUENCE_LSTM */

/* ------------------------------------------------ toolkit (lower_toolkit.c) */

/* Records why the op stays on the CPU; returns 1 (not an error). */
int cc_cpu(lower_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* For pure checks: formats the reason into why (unless why is NULL) and
 * returns false. */
bool cc_reason(char *why, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Operands and quantization. */
const graph_tensor *cc_tin(const lower_ctx *c, const graph_op *op, int i);
const graph_tensor *cc_tout(const lower_ctx *c, const graph_op *op, int i);
bool cc_npu_dtype(graph_dtype d);         /* int8 or int16 */
bool cc_has_q1(const graph_tensor *t);    /* a usable per-tensor scale */
int32_t cc_zp(const graph_tensor *t);
/* A tensor shape collapsed to NPU h x w x c (leading dims folded into h);
 * false when an extent is 0 or above 65536. */
bool cc_hwc_of(const graph_tensor *t, uint32_t *h, uint32_t *w, uint32_t *ch);
/* n elements as a dense h x w x 16 view (h the divisor of n / 16 nearest its
 * square root); false when 16 does not divide n or no side fits 65536. */
bool cc_dense_view(uint64_t n, uint32_t *h, uint32_t *w, uint32_t *ch);

/* Makes room for one more element in a realloc'd array of *cap entries
 * holding n; false on out of memory (err set). */
bool cc_grow(void **arr, int32_t *cap, int32_t n, size_t elem, npuc_err *err);
/* Whether graph tensor t's buffer certainly stays in the arena while the
 * current op runs: through the views sharing it, t is a graph input or
 * state, or the output of an op that is not an NPU op of the open epoch
 * (lower.c; the allocator may put any other buffer in the fast pool). */
bool cc_arena_bound(const lower_ctx *c, int32_t t);
/* A new arena buffer of `size` bytes, not yet placed (tensor -1: a temp). */
cc_buf *cc_new_buf(cc_model *m, uint64_t size, int32_t tensor, npuc_err *err);
/* An arena buffer of `size` bytes live only while the current op runs
 * (intermediates of multi-op lowerings such as softmax). Returns the
 * buffer index for eu_fm.buf, -1 on out of memory. */
int32_t cc_temp_buf(lower_ctx *c, uint64_t size, npuc_err *err);

/* A zeroed NPU op with the defaults: 1x1 kernel, stride 1, dilation 1, no
 * LUT, no weight copy, clamp to the int16 range, src_op the current op. */
void cc_eu_init(const lower_ctx *c, eu_op *o);
/* Appends such an op to the epoch. NULL on out of memory (err set). */
eu_op *cc_new_eu(lower_ctx *c, npuc_err *err);
/* A new ELEMENTWISE MAX or MIN (mode 4 / 3) of a and b into out on raw
 * values: zero points 0, scale 1, the clamp the type's range. */
eu_op *cc_raw_minmax(lower_ctx *c, uint8_t mode, const eu_fm *a, const eu_fm *b, const eu_fm *out, npuc_err *err);

/* A dense NHWC feature map h x w x ch of `bits`-bit signed elements at
 * byte `off` of buffer `buf` (-1: the epoch's flash). */
void cc_fm_dense(eu_fm *fm, int32_t buf, uint64_t off, uint32_t h, uint32_t w, uint32_t ch,
                 uint8_t bits, int32_t zp);
/* A feature map covering a whole graph tensor viewed as h x w x c NHWC. */
void cc_fm_whole(const lower_ctx *c, int32_t tensor, uint32_t h, uint32_t w, uint32_t ch,
                 eu_fm *fm);

/* A raw copy on the op's feature maps: a 1x1 MAX pool over one tap (the
 * value itself), no rescale, the full clamp of `bits`-bit values; the zero
 * points are the caller's. */
void cc_copy_op(eu_op *o, unsigned bits);
/* A raw copy of signed `bits`-bit values, zero points 0, on the op's
 * feature maps, in the form with fewer estimated cycles: cc_copy_op's
 * pool, or an elementwise MAX with the type's smallest value (a pool
 * spends 4 cycles per micro-block whatever its depth, an elementwise op a
 * fraction of a cycle per element: the MAX wins on shallow copies, e.g.
 * a depth-1 transpose), then its block as cc_block_or_cpu. */
int cc_copy_block(lower_ctx *c, eu_op *o, unsigned bits, npuc_err *err);

/* Adds (or finds an identical) LUT in the epoch's constants: 256 bytes
 * (int8), 1024 (int32) or 2048 (int16). */
int cc_add_lut(lower_ctx *c, const void *table, uint64_t size, int32_t *index, npuc_err *err);
/* An int8 LUT op on its feature maps: ADD of scalar 0 in identity scaling
 * (zero points 0), so the LUT `lut` sees the raw input value. */
void cc_lut_op(eu_op *o, int32_t lut);
/* Runs `op` alone on the reference interpreter over every value of its
 * input type: input 0 becomes a 1x1x1xn tensor (n = 65536 for an int16
 * `in`, else 256) holding -n/2 .. n/2 - 1 with in's quantization, the
 * output 1x1x1xn of out's type and quantization; further inputs are op's
 * own (constants). y[i] gets the output for input value i - n/2. A
 * function of op (its code, version and options) and of in's and out's
 * types and quantizations alone where op has one input: those answers
 * are kept in c->refs (an unrolled LSTM asks the same few hundreds of
 * times). */
int cc_reference_all(const lower_ctx *c, const graph_op *op, const graph_tensor *in,
                     const graph_tensor *out, int32_t *y, npuc_err *err);
/* The same for the k input values x[0..k) (1..65536 of in's type) alone:
 * y[i] gets the output for x[i] (not kept). */
int cc_reference_at(const lower_ctx *c, const graph_op *op, const graph_tensor *in, const graph_tensor *out,
                    const int32_t *x, int32_t k, int32_t *y, npuc_err *err);
/* The same for an int8 op over C channels whose further inputs broadcast
 * along the channels (a PRELU alpha): x is [1, 1, 256, C] with value
 * i - 128 across row i; y[i * C + c] is the output at (i, c). */
int cc_reference_grid(const lower_ctx *c, const graph_op *op, const graph_tensor *in,
                      const graph_tensor *out, int32_t C, int32_t *y, npuc_err *err);

/* Block config + SHRAM layout of an op whose geometry is set. */
int cc_choose_block(lower_ctx *c, eu_op *o, npuc_err *err);
/* The same, with a geometry no block takes turned into a CPU op (the
 * block search's reason): 0, 1 or an error. */
int cc_block_or_cpu(lower_ctx *c, eu_op *o, npuc_err *err);

/* TFLite (m, shift) -> NPU (scale, shift) in TFL rounding / the int16x8
 * NATURAL form (docs/ethos-u.md 5.6). False when out of range. */
bool cc_hw_scale_tfl(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs);
bool cc_hw_scale_natural16(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs);
/* Fused activation: whether the NPU clamp expresses it, and the clamp. */
bool cc_act_ok(int32_t act);
void cc_set_act(eu_op *o, const graph_tensor *out, int32_t act);
/* The output stage of an op without per-channel records: OFM_SCALE
 * (scale, shift) in global scale mode (docs/ethos-u.md 5.6), round mode
 * `round` (0 TFL, 1 TRUNCATE, 2 NATURAL). */
void cc_global_scale(eu_op *o, uint32_t scale, uint8_t shift, uint8_t round);
/* A clamp to the whole range of a signed `bits`-bit (8 or 16) OFM. */
void cc_type_clamp(eu_op *o, uint8_t bits);
/* TFLite padding (SAME/VALID) -> explicit before/after amounts. */
int cc_pad_of(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dil,
              int32_t out, int32_t *before, int32_t *after);

/* A QUANTIZE int8 -> uint8 fused into the output stage of the NPU ops of
 * its input's producer (lower_lut.c): ref[i] is its output byte (read as
 * int8) for input i - 128; where it adds 128 over the producer's clamp,
 * the producer's ops write the uint8 output. 0 (fused), 1 (not: reason in
 * why). */
int cc_fuse_u8(lower_ctx *c, const graph_op *op, const int32_t *ref, char *why, size_t why_size);
/* An int32 MINIMUM / MAXIMUM with a constant scalar that starts a chain
 * of such clamps ending in a CAST to int8 / int16 (the ops right after
 * it), fused into the output stage of its input's producer, which then
 * writes the CAST's output (lower_lut.c). The later ops of the chain are
 * marked fused (cc_op_info.fused_into) and lower to nothing. 0 (fused), 1
 * (not: reason in why). */
int cc_fuse_narrow(lower_ctx *c, const graph_op *op, char *why, size_t why_size);
/* An int8 / int16 MINIMUM / MAXIMUM of its input's producer's output and a
 * constant scalar (clip_by_value), fused into that producer's output stage
 * as a clamp (lower_lut.c). 0 (fused), 1 (not: reason in why) or an
 * error. */
int cc_fuse_clip(lower_ctx *c, const graph_op *op, char *why, size_t why_size, npuc_err *err);

/* --------------------------------------------- weights (lower_weights.c) */

/* Depthwise with a multiplier above 1 on up to this many input channels runs
 * as a dense CONV (C times the MACs, the zero weights compress to runs). */
#define CC_DW_DENSE_MAX_DEPTH 64

/* A weighted op (CONV / DEPTHWISE) as the weight encoder sees it. */
typedef struct wop {
    const graph_tensor *in, *w, *bias, *out;
    uint32_t O, I, kh, kw;
    bool depthwise;
    const int8_t *wdata;      /* layout given by `layout` */
    int layout;               /* 0 OHWI (conv/fc), 1 1HWO (depthwise), 2 1HWO as conv with I=1,
                                 3 OHWI turned 180 degrees (transpose conv),
                                 4 1HWO depthwise with multiplier O/I as a
                                 dense conv (zero off its input channel) */
    int32_t wzp;              /* per-tensor weight zero point (FC) */
    bool fc_float_product;    /* FC per-tensor: scale product in float */
    /* A fixed output stage instead of the quantization's (ops that are no
     * TFLite convolution, e.g. a resize's taps): every channel gets scale
     * (fixed_m, fixed_s), bias 0, round mode fixed_round; the weights'
     * quantization is not read (wzp still applies). */
    bool fixed_scale;
    uint32_t fixed_m;
    uint8_t fixed_s, fixed_round;
} wop;

/* The scale record (multiplier, shift, 40-bit bias) of every output channel
 * of p into recs (NULL: only the check); false with the reason in why
 * (unless NULL) when the NPU cannot express one. */
bool cc_weighted_scales(const wop *p, sim_scale_rec *recs, char *why, size_t why_size);
/* Whether weights are worth copying from the params pool before use: when
 * the params memory is slower than the memory the copy goes to (the fast
 * scratch when the system has one apart from the arena, else the arena) and
 * the goal is performance (the copy overlaps the previous op). */
bool cc_buffer_weights(const lower_ctx *c);
/* cc_flash_add without the copy: room for `size` bytes appended to the
 * epoch's flash (the gaps zeroed), *off its offset; the caller fills it
 * at once (the pointer moves with the next add). NULL with err set. */
uint8_t *cc_flash_room(cc_epoch *e, uint64_t size, uint64_t *off, npuc_err *err);
/* Drops e's constants from `size` on (and the aliases among them). */
void cc_flash_rewind(cc_epoch *e, uint64_t size);
/* Memory for e's flash up to offset `end` (past every alias): false with
 * err set. */
bool cc_flash_mem(cc_epoch *e, uint64_t end, npuc_err *err);
/* An alias (cc_flash_alias) of the `size` bytes at flash offset src (and
 * their padding: outside every alias), appended to e's flash like
 * cc_flash_room's room, *off its offset; no memory taken but for the
 * alignment before it (lower_weights.c). */
int cc_flash_alias_add(cc_epoch *e, uint64_t size, uint64_t src, uint64_t *off, npuc_err *err);
/* Makes room in the open epoch's flash, before an op that may add up to
 * `need` bytes of constants does, for what the rest of the graph's
 * constants will take too (one allocation instead of growing step by
 * step and copying the constants each time). Only a capacity: nothing
 * fails (cc_flash_room grows as before). */
void cc_flash_reserve(lower_ctx *c, uint64_t need);
/* Whether cc_encode_weighted splits p into output-channel chunks (copies
 * made, more raw weight bytes than cc_options.chunk_bytes). */
bool cc_weights_chunked(const lower_ctx *c, const wop *p);
/* Weights, scales and the output stage of a CONV/DEPTHWISE eu_op whose
 * geometry and block are set (may split it into output-channel chunks).
 * 0 done, 1 CPU (reason set), else error. */
int cc_encode_weighted(lower_ctx *c, eu_op *o, const wop *p, npuc_err *err);

/* ------------------------------------------- shared between op families */

/* A CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED in its NPU form
 * (lower_conv.c): the weighted op, the kind and, for convolutions, the
 * geometry. */
typedef struct conv_plan {
    wop p;
    sim_op_kind kind;
    bool fc;
    uint32_t batches;                 /* FULLY_CONNECTED: input rows */
    int32_t H, W, C, OH, OW, OC;      /* convolutions: */
    int32_t sx, sy, dx, dy;           /* stride, dilation */
    int32_t pt, pb, pl, pr;           /* padding top, bottom, left, right */
} conv_plan;
/* Whether the op takes the NPU form, checked without touching the epoch
 * (the reason in why unless NULL); the per-channel scales
 * (cc_weighted_scales) and the block are checked when it is emitted. */
bool cc_conv_plan(const lower_ctx *c, const graph_op *op, conv_plan *pl, char *why, size_t why_size);
/* The eu_op of a planned convolution as lower_conv.c emits it, short of
 * the PAD folding, block, weights and output stage. */
void cc_conv_fill(const lower_ctx *c, const graph_op *op, const conv_plan *pl, eu_op *o);

/* PAD folding (lower_pad.c): called by the conv lowering once the IFM and
 * the padding of a CONV/DEPTHWISE eu_op are set. When the conv's input is a
 * PAD that was folded (no NPU ops), the op reads the PAD's input with the
 * PAD's padding added to its own. */
void cc_pad_fold(lower_ctx *c, const graph_op *op, eu_op *o);
/* Whether graph op pi is a PAD that folds into the conv after it (the
 * decision lower_pad.c takes, a pure function of the graph). */
bool cc_pad_folds(lower_ctx *c, int32_t pi);
/* Whether the conv lowering certainly puts CONV_2D / DEPTHWISE_CONV_2D
 * `conv` on the NPU in its plain form (strides up to 3; the checks
 * lower_conv.c and cc_encode_weighted make: plan, per-channel scales,
 * block); pl receives the plan. Shared by the folds that must know it
 * before the conv is lowered (PAD, uint8 QUANTIZE). */
bool cc_conv_takes(lower_ctx *c, const graph_op *conv, conv_plan *pl);

/* uint8 QUANTIZE at the model's input (lower_quantize.c): whether graph
 * op qi, a QUANTIZE uint8 -> int8 subtracting 128 (the same real values),
 * folds into the conv that reads it, directly or through a folded PAD:
 * then it has no NPU op, its output shares its input's buffer
 * (cc_quant_share) and the conv reads the uint8 bytes with the zero point
 * 128 higher (cc_quant_fold, called by the conv lowering after
 * cc_pad_fold). ref: the QUANTIZE's output for every input byte
 * (cc_reference_all's order). */
bool cc_quant_folds(lower_ctx *c, int32_t qi, const int32_t *ref);
void cc_quant_fold(lower_ctx *c, const graph_op *op, eu_op *o);
/* cc_quant_folds_taken: cc.h. */

/* Strided copies (lower_shape.c): output element (i_0, .., i_{rank-1}) of
 * tensor tout, written contiguously, is element base + sum(i_d * is[d]) of
 * tensor tin (extents n, signed element strides is), as 1x1 MAX pools over
 * one tap with strided IFM/OFM addressing, at most CC_COPY_MAX_OPS of them.
 * 0 lowered, 1 CPU (reason set), else error. */
#define CC_COPY_MAX_AXES 6
#define CC_COPY_MAX_OPS 64
int cc_strided_copy(lower_ctx *c, int32_t tin, int32_t tout, int32_t rank, const int64_t *n,
                    const int64_t *is, int64_t base, npuc_err *err);
/* The same into part of tout: output element (i_d) is element
 * obase + sum(i_d * os[d]) (os positive). */
int cc_strided_copy_to(lower_ctx *c, int32_t tin, int32_t tout, int32_t rank, const int64_t *n,
                       const int64_t *is, int64_t base, const int64_t *os, int64_t obase, npuc_err *err);

/* Where a CONCATENATION input goes in the output (lower_concat.c; also
 * used by cc_concat.c's in-place pass): its extent (the input viewed so),
 * and the slice of the output viewed as N x H x W x C (o[4]) on axis `ax`
 * from `start`. False when it is too large for one NPU op. */
typedef struct cc_concat_slice {
    uint32_t h, w, c;         /* extent (the input viewed so, and the slice) */
    uint64_t off;             /* output byte offset */
    uint32_t c0;              /* output first channel */
    uint64_t osx, osy;        /* output strides */
    uint32_t full_w, full_c;
    bool flex;
} cc_concat_slice;
bool cc_concat_slice_at(const int32_t o[4], int ax, uint32_t start, uint32_t len, uint64_t es,
                        cc_concat_slice *s);

#endif
