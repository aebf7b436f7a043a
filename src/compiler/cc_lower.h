/* Internal to compiler/: what the lowering files share (cc_lower.c, and one
 * file per complex op such as cc_softmax.c). */
#ifndef NPUC_CC_LOWER_H
#define NPUC_CC_LOWER_H

#include "cc.h"

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
/* Block config + SHRAM layout of an op whose geometry is set. */
int cc_choose_block(lower_ctx *c, eu_op *o, npuc_err *err);
/* TFLite (m, shift) -> NPU (scale, shift) in TFL rounding / the int16x8
 * NATURAL form (ethos-u.md 5.6). False when out of range. */
bool cc_hw_scale_tfl(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs);
bool cc_hw_scale_natural16(int32_t m, int32_t shift, uint32_t *hm, uint8_t *hs);

/* Complex ops, each in its own file: 0 lowered, 1 CPU (reason set), else error. */
int cc_lower_softmax(lower_ctx *c, const graph_op *op, npuc_err *err);

#endif
