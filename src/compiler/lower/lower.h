/* Internal to compiler/: what the lowering files share (cc_lower.c, and one
 * file per complex op such as cc_softmax.c). */
#ifndef NPUC_CC_LOWER_H
#define NPUC_CC_LOWER_H

#include "../cc.h"

typedef struct lower_ctx {
    cc_model *m;
    const graph *g;
    cc_epoch *e;              /* the open HW epoch */
    int32_t op_index;         /* graph op being lowered */
    char *why;                /* reason buffer of the current op */
} lower_ctx;

/* Records why the op stays on the CPU; returns 1 (not an error). */
int cc_cpu(lower_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends a zeroed NPU op to the epoch (defaults: 1x1 kernel, stride 1,
 * no LUT, clamp to int16 range). NULL on out of memory (err set). */
eu_op *cc_new_eu(lower_ctx *c, npuc_err *err);
/* A feature map covering a whole graph tensor viewed as h x w x c NHWC. */
void cc_fm_whole(const lower_ctx *c, int32_t tensor, uint32_t h, uint32_t w, uint32_t ch,
                 eu_fm *fm);
/* An arena buffer of `size` bytes live only while the current op runs
 * (intermediates of multi-op lowerings such as softmax). Returns the
 * buffer index for eu_fm.buf, -1 on out of memory. */
int32_t cc_temp_buf(lower_ctx *c, uint64_t size, npuc_err *err);
/* Adds (or finds an identical) LUT in the epoch's constants: 256 bytes
 * (int8), 1024 (int32) or 2048 (int16). */
int cc_add_lut(lower_ctx *c, const void *table, uint64_t size, int32_t *index, npuc_err *err);
/* An int8 LUT op on its feature maps: ADD of scalar 0 in identity scaling
 * (zero points 0), so the LUT `lut` sees the raw input value. */
void cc_lut_op(eu_op *o, int32_t lut);
/* Block config + SHRAM layout of an op whose geometry is set. */
int cc_choose_block(lower_ctx *c, eu_op *o, npuc_err *err);
/* TFLite (m, shift) -> NPU (scale, shift) in TFL rounding / the int16x8
 * NATURAL form (ethos-u.md 5.6). False when out of range. */
bool cc_hw_scale_tfl(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs);
bool cc_hw_scale_natural16(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs);

/* Operands and quantization. */
const graph_tensor *cc_tin(const lower_ctx *c, const graph_op *op, int i);
const graph_tensor *cc_tout(const lower_ctx *c, const graph_op *op, int i);
bool cc_npu_dtype(graph_dtype d);         /* int8 or int16 */
bool cc_has_q1(const graph_tensor *t);    /* a usable per-tensor scale */
int32_t cc_zp(const graph_tensor *t);
/* Fused activation: whether the NPU clamp expresses it, and the clamp. */
bool cc_act_ok(int32_t act);
void cc_set_act(eu_op *o, const graph_tensor *out, int32_t act);
/* TFLite padding (SAME/VALID) -> explicit before/after amounts. */
int cc_pad_of(int32_t padding, int32_t in, int32_t filter, int32_t stride, int32_t dil,
              int32_t out, int32_t *before, int32_t *after);

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
} wop;


/* Weights, scales and the output stage of a CONV/DEPTHWISE eu_op whose
 * geometry and block are set (may split it into output-channel chunks).
 * 0 done, 1 CPU (reason set), else error. */
int cc_encode_weighted(lower_ctx *c, eu_op *o, const wop *p, npuc_err *err);

/* Complex ops, each in its own file: 0 lowered, 1 CPU (reason set), else error. */
int cc_lower_softmax(lower_ctx *c, const graph_op *op, npuc_err *err);
int cc_lower_pad(lower_ctx *c, const graph_op *op, npuc_err *err);        /* cc_pad.c */
/* PAD folding (cc_pad.c): called by lower_conv_like once the IFM and the
 * padding of a CONV/DEPTHWISE eu_op are set. When the conv's input is a PAD
 * that cc_lower_pad folded (no NPU ops), the op reads the PAD's input with
 * the PAD's padding added to its own. */
void cc_pad_fold(lower_ctx *c, const graph_op *op, eu_op *o);
int cc_lower_concat(lower_ctx *c, const graph_op *op, npuc_err *err);     /* cc_concat.c */
int cc_lower_tconv(lower_ctx *c, const graph_op *op, npuc_err *err);      /* cc_tconv.c */
int cc_lower_mean(lower_ctx *c, const graph_op *op, npuc_err *err);       /* cc_mean.c */
int cc_lower_resize(lower_ctx *c, const graph_op *op, npuc_err *err);     /* cc_resize.c */
int cc_lower_transpose(lower_ctx *c, const graph_op *op, npuc_err *err);  /* cc_transpose.c */
/* Strided copies (cc_transpose.c): output element (i_0, .., i_{rank-1}) of
 * tensor tout, written contiguously, is element base + sum(i_d * is[d]) of
 * tensor tin (extents n, signed element strides is), as 1x1 MAX pools over
 * one tap with strided IFM/OFM addressing, at most CC_COPY_MAX_OPS of them.
 * 0 lowered, 1 CPU (reason set), else error. */
#define CC_COPY_MAX_AXES 6
#define CC_COPY_MAX_OPS 64
int cc_strided_copy(lower_ctx *c, int32_t tin, int32_t tout, int32_t rank, const int64_t *n,
                    const int64_t *is, int64_t base, npuc_err *err);
/* int16 pointwise ops (TANH, LOGISTIC, LEAKY_RELU, RELU*, QUANTIZE with an
 * int16 side), cc_act16.c: which ones it takes, and their lowering. */
bool cc_is_lut16_op(const lower_ctx *c, const graph_op *op);
int cc_lower_act16(lower_ctx *c, const graph_op *op, npuc_err *err);

#endif
