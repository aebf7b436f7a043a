/* compiler: TFLite graph -> compiled model for an Ethos-U55/U65.
 *
 * Passes (each in its own file): lower/ (legalize + partition: every op
 * becomes NPU operations or stays a CPU op, with the reason), cc_concat.c
 * (concatenation inputs written in place into their slices), cc_alloc.c
 * (live ranges -> arena offsets), ethosu/eu_gen.c (block configs, weights,
 * scales, LUTs, command streams). The result, cc_model, is what src/emit/
 * writes as TFLite, C sources and reports. The searching passes save and
 * restore the choices they make as one value, cc_sched (cc_sched.c).
 * Host-only. */
#ifndef NPUC_CC_H
#define NPUC_CC_H

#include "graph/graph.h"
#include "target/target.h"
#include "ethosu/eu_block.h"

typedef enum cc_optimise { CC_OPT_PERFORMANCE = 0, CC_OPT_SIZE = 1 } cc_optimise;

/* Cascading (cc_cascade.c): chains of NPU ops run band by band through
 * rolling buffers so that their intermediates never exist whole. AUTO
 * cascades the chains that hold the arena's peak; ALL every chain it can
 * (for tests); OFF none. */
typedef enum cc_cascade_mode { CC_CASCADE_AUTO = 0, CC_CASCADE_OFF = 1, CC_CASCADE_ALL = 2 } cc_cascade_mode;

/* Bands a cascade's last op's output rows are cut into, about (cc_cascade.c):
 * the default, and the finer cut the schedule search also weighs (smaller
 * rolling buffers, more band ops). */
#define CC_CASCADE_BANDS 6
#define CC_CASCADE_BANDS_FINE 10

/* One cascade choice: the chain of `n` NPU ops whose first is graph op
 * `head`'s (its last NPU op: after a prologue of copies, cc_cascade.c) and
 * the next n - 1 NPU ops of its epoch, run band by band, the last op's
 * rows cut into about `bands` bands. A choice the compiler records names
 * the count it used; 0 (a caller's choice) means the model's
 * (cc_options.cascade_bands). */
typedef struct cc_cascade_in { int32_t head, n, bands; } cc_cascade_in;

/* CONCATENATION inputs written in place into their slices of the output
 * (cc_concat.c): AUTO where that does not grow the arena, ALL wherever it
 * is legal (for tests), OFF never (one copy per input). */
typedef enum cc_concat_mode { CC_CONCAT_AUTO = 0, CC_CONCAT_OFF = 1, CC_CONCAT_ALL = 2 } cc_concat_mode;

/* One in-place concatenation choice: input `in` (its index among the
 * CONCATENATION's inputs) of graph op `op` is written straight into its
 * slice of the output's buffer (cc_concat.c). */
typedef struct cc_concat_in { int32_t op, in; } cc_concat_in;

/* How much the weight prefetch (cc_prefetch.c) may grow the arena's peak
 * with --optimise performance, in percent of the peak without it. */
#define CC_HEADROOM_DEFAULT 20

typedef struct cc_options {
    target_desc sys;            /* target NPU and memories */
    cc_optimise optimise;
    cc_cascade_mode cascade;
    cc_concat_mode concat;
    /* concat_given (concat not OFF): the inputs written in place are
     * concat_in, applied in this order to the lowered program
     * (cc_concat_apply), no search; cascade_given (cascade not OFF): the
     * chains cascaded are cascade_in (cc_cascade_apply). The modes stay
     * what they were for the rest of the compiler (lowering, the schedule
     * search). Tests: a pass's choices applied to a fresh lowering. */
    bool concat_given, cascade_given;
    const cc_concat_in *concat_in;
    int32_t n_concat_in;
    const cc_cascade_in *cascade_in;
    int32_t n_cascade_in;
    int32_t prefetch_headroom;   /* percent; 0 = CC_HEADROOM_DEFAULT, < 0 = none */
    bool no_fold;             /* keep ops on constants (cc_fold.c off) */
    bool no_inplace;          /* no elementwise op writes over its IFM (cc_alloc.c; tests) */
    bool no_compact;          /* the picked schedule keeps the allocator's
                                 placement (cc_compact.c off; tests) */
    bool no_order;            /* ops in the graph's order (cc_order.c off; tests) */
    bool no_stage;            /* no input copied into the fast pool before the
                                 op that reads it (lower.c; tests) */
    bool no_drop_waiting;     /* the picked schedule keeps the read-once copies
                                 its ops wait for (cc_prefetch.c drop_waiting;
                                 tests) */
    bool no_lean;             /* no lean step: the default keeps the rule's
                                 pick (cc_sched_lean; tests of the passes
                                 that weigh the fastest schedule) */
    bool no_once_hide;        /* a weight copy read once never counts its DMA
                                 hidden behind the ops before the op before
                                 its user (cc_alloc.c choose_fast; tests) */
    bool no_scale_copies;     /* no op streaming its weights from flash reads
                                 its scale records from a copy in the fast
                                 pool (cc_alloc.c cc_scale_copies; tests) */
    bool graph_order;         /* the graph's op order, views still moved
                                 (cc_compile's comparison, cc_order.c) */
    bool eager_weights;       /* every weight stream's bits written when it is
                                 encoded, not only the kept schedule's
                                 (cc.c weights_fill; tests: the same bytes) */
    /* --arena-cache-size: the most SRAM (cc_sram_bytes) the schedule may
     * take; 0 = no limit. The compiler picks the fewest cycles under it
     * (cc.c, the schedule search), or fails naming the least it needs.
     * With a fast pool apart from the arena (U65 Dedicated_Sram) it is
     * also that pool's size (Vela's arena_cache_size; cc_compile sets it,
     * a JSON file's pool at most its own size). */
    uint64_t sram_limit;
    /* Schedule knobs the search sets (cc.c; 0 / false from callers):
     * raw weight bytes per chunk op of a buffered conv (0: CC_CHUNK_DEFAULT),
     * and whether no weight is copied into SRAM (every op streams its
     * weights from flash, as with --optimise size). */
    uint32_t chunk_bytes;
    bool stream_weights;
    /* bands a cascade cuts its last op's rows into (0: CC_CASCADE_BANDS;
     * the search also weighs CC_CASCADE_BANDS_FINE, cc.c) */
    uint32_t cascade_bands;
    /* cc_place_weights drops weight copies one graph op at a time and keeps
     * the step cc_sched_pick prefers (set by the search on the schedule it
     * starts from) */
    bool weight_search;
    /* with weight_search: both headrooms' first placements, copies
     * dropped one by one only after one of them that takes fewer NPU
     * cycles than drop_cycles (0: none) */
    bool weight_headrooms;
    uint64_t drop_cycles;
    /* cc_prefetch.c also weighs the plans whose moved copies keep clear of
     * the operands of the op before their DMA (set by cc_place_weights on
     * the point it picked) */
    bool prefetch_busy;
    /* cc_place_weights does not place its pick again with those plans
     * (tests compare both) */
    bool no_prefetch_polish;
    /* lower_lstm.c: where an LSTM runs one time step per input FC, the
     * other of its two forms (the search weighs both; cc.c) */
    bool lstm_alt;
    /* > 0: the compile fails once its constants alone (cc_const_bytes)
     * take more flash, before the weights are placed: a try of the search
     * that would be no candidate (cc.c) */
    uint64_t flash_cap;
} cc_options;

/* Raw weight bytes per NPU op above which a buffered conv is split along
 * its output channels (lower/lower_weights.c). */
#define CC_CHUNK_DEFAULT 8192u
/* The chunks the schedule search also weighs where a fast pool is apart
 * from the arena (cc.c). */
#define CC_CHUNK_FAST 32768u
/* Where the arena is the SRAM, the bigger chunks' schedule is placed under
 * this many percent more SRAM than the first schedule's and weighed once
 * compacted, within the first schedule's SRAM (cc.c). */
#define CC_CHUNK_ROOM 10u

/* ------------------------------------------------------------ NPU ops */

/* One feature map as an NPU operation sees it (docs/ethos-u.md 3.1, 4). */
typedef struct eu_fm {
    int32_t buf;              /* arena buffer (cc_buf index); -1 = constant in flash */
    uint64_t off;             /* byte offset inside the buffer (or the flash area) */
    uint32_t h, w, c;         /* extent the op reads/writes */
    uint32_t c0;              /* first channel (a depth slice of the stored tensor) */
    uint32_t full_w, full_c;  /* stored tensor's width and depth (0: = w, c) */
    uint64_t sx, sy, sc;      /* byte strides */
    uint8_t bits;             /* 8, 16, 32 */
    bool is_signed;
    uint8_t format;           /* 0 NHWC, 1 NHCWB16 */
    int32_t zp;
    /* a rolling buffer's wrap (docs/ethos-u.md 4.3): rows >= tile_h come from
     * byte offset tile_off2 of the buffer (tile 2); 0 = one tile */
    uint32_t tile_h;
    uint64_t tile_off2;
} eu_fm;

typedef struct eu_op {
    sim_op_kind kind;         /* SIM_K_CONV, _DEPTHWISE, _POOL, _ELEMENTWISE */
    uint8_t mode;             /* pool / elementwise mode */
    eu_fm ifm, ifm2, ofm;
    bool ifm2_tensor;         /* binary elementwise with a tensor IFM2 */
    bool ifm2_scalar;         /* binary elementwise with IFM2_SCALAR */
    int32_t scalar;           /* IFM2_SCALAR value */
    bool bcast_h, bcast_w, bcast_c, reversed;
    /* kernel */
    uint32_t kh, kw;          /* undilated */
    uint8_t stride_x, stride_y, dil_x, dil_y;
    uint8_t pad_t, pad_l, pad_b, pad_r;
    uint8_t upscale;
    bool pkf;                 /* part-kernel-first weight order */
    /* constants (offsets into the epoch's flash area): scale records at
     * s_off, the weight stream right after them at w_off */
    uint64_t w_off, w_len, s_off, s_len;
    /* U65-512 dual-core mode (docs/ethos-u.md 6.4): core 0 takes the OFM
     * channels 2j (the streams above), core 1 the channels 2j+1 with its
     * own scale records and weight stream, stored right after core 0's */
    bool dual;
    uint64_t w1_off, w1_len, s1_off, s1_len;
    int32_t wbuf;             /* arena buffer the constants are DMA'd into before
                                 the op (scales at 0, weights at eu_wcopy_w_at:
                                 s_len rounded up to 16; in flash the two may
                                 lie apart, cc_share_flash), -1 = the op reads
                                 them from flash. (Dual core: the constants
                                 as one block, as stored.) */
    /* output stage */
    uint8_t ofm_scale_mode;   /* 0 per-channel records, 1 OFM_SCALE */
    uint32_t ofm_scale; uint8_t ofm_shift;
    uint8_t round;            /* 0 TFL, 1 TRUNCATE, 2 NATURAL */
    bool has_opab;            /* OPA/OPB scale written (ADD/SUB) */
    uint8_t ifm_scale_mode;
    uint32_t opa_scale; uint8_t opa_shift; uint32_t opb_scale;
    int32_t act_min, act_max;
    uint8_t act_func;         /* 0 clamp, 3 tanh, 4 sigmoid, 16+n LUT n */
    uint8_t act_clip;
    int32_t lut;              /* LUT index in the epoch (-1 none) */
    eu_block blk;
    int32_t src_op;           /* graph op this came from */
    uint64_t cycles;          /* cycle model: this op alone, and its weight */
    uint64_t dma_cycles;      /* DMA (0 none), from the last estimate */
    bool flex;                /* its feature maps may be stored NHCWB16 (the
                                 lowering addresses them only as whole tensors
                                 or channel slices) */
} eu_op;

/* Where the weight stream starts in a (single-core) op's weight copy: after
 * its scale records, 16-byte aligned, as the lowering stores them. */
static inline uint64_t eu_wcopy_w_at(const eu_op *o)
{
    return (o->s_len + 15) & ~(uint64_t)15;
}

/* Whether op o's weight copy holds its scale records only (cc_scale_copies):
 * the op reads them from the copy and its weight stream from flash. */
static inline bool eu_wcopy_scales_only(const eu_op *o, uint64_t copy_size)
{
    return !o->dual && o->w_len && copy_size == eu_wcopy_w_at(o);
}

/* A LUT in flash (256 B int8, 1 KiB int32, 2 KiB int16). */
typedef struct eu_lut {
    uint64_t off, size;
    uint8_t slot;             /* first 256-byte slot in the LUT banks */
} eu_lut;

/* ------------------------------------------------------- compiled model */

/* Pools a buffer may live in: the activation arena (region 1), the fast
 * scratch (region 2; only temps, when the system has a fast pool distinct
 * from the activation pool) or the state pool: variable tensors only CPU
 * ops read and write (SVDF state), kept across invocations apart from the
 * arena (no NPU op addresses them; cc_allocate, place_state). */
enum { CC_IN_ARENA = 0, CC_IN_FAST = 1, CC_IN_STATE = 2 };

/* A region of the arena: one or more graph tensors sharing bytes (a reshape
 * aliases its input). */
typedef struct cc_buf {
    uint64_t size;            /* bytes */
    int32_t first, last;      /* op positions where it is written first / read last */
    int64_t offset;           /* offset in its pool (after allocation) */
    uint8_t pool;             /* CC_IN_ARENA, CC_IN_FAST or CC_IN_STATE (set by cc_allocate) */
    int32_t tensor;           /* a representative graph tensor (for names), -1 temp */
    bool temp;                /* an op's internal buffer, live only at that op */
    bool brick;               /* stored NHCWB16 (docs/ethos-u.md 4.2) */
    bool wcopy;               /* an op's weight copy, filled by DMA (eu_op.wbuf) */
    bool roll;                /* a cascade's rolling buffer (cc_cascade.c) */
    int32_t over;             /* > 0: buffer over - 1 is the input a CPU
                                 op writes this one over, from its first
                                 byte (cc_alloc.c, cpu_inplace_pairs): placed
                                 at that buffer's offset, the two live at the
                                 same time at that op's step; 0: none */
    bool reload;              /* a weight copy of constants other ops of the
                                 stream also use, loaded for its own ops only
                                 (live eu_first..eu_last; cc_place_weights) */
    int32_t epoch;            /* >= 0: live over NPU ops eu_first..eu_last of
                                 that epoch instead of whole graph ops */
    int32_t eu_first, eu_last;
    int32_t op;               /* temp with epoch < 0: the graph op it lives in */
} cc_buf;

typedef enum cc_epoch_kind { CC_EPOCH_HW, CC_EPOCH_SW } cc_epoch_kind;

/* A range of an epoch's flash that takes no memory: a repeat of the weight
 * stream (and its padding) at src, stored earlier in the same flash (an
 * unrolled LSTM's steps share one weight tensor, each with scale records
 * of its own, so share_consts cannot point them at one copy until
 * cc_share_flash stores each stream once). The flash's offsets count it
 * (the layout is as if it were there); its memory holds the bytes outside
 * the aliases, in order, without gaps: read through cc_flash_seg. */
typedef struct cc_flash_alias {
    uint64_t off, len;        /* the range, in the flash's offsets */
    uint64_t src;             /* the copy's offset (outside every alias) */
    uint64_t mem;             /* where the copy is in memory (e.flash + mem) */
    uint64_t below;           /* the lengths of the aliases before this one */
} cc_flash_alias;

typedef struct cc_epoch {
    cc_epoch_kind kind;
    int32_t first_op, n_ops;  /* range of graph ops (SW: one op) */
    /* HW */
    eu_op *ops; int32_t n_eu, cap_eu;
    eu_lut *luts; int32_t n_luts;
    uint8_t *flash; uint64_t flash_size, flash_cap;   /* weights, scales, LUTs
                                 (flash_size counts the aliases' bytes,
                                 flash_cap the memory at flash) */
    cc_flash_alias *alias;    /* owned, in order of off, none overlapping, each
                                 src an offset outside them: the repeats the
                                 flash holds once (until cc_share_flash, which
                                 stores each stream once; none after) */
    int32_t n_alias, cap_alias;
    int32_t flash_shared;     /* > 0: the epoch has no flash of its own and
                                 addresses that of epoch flash_shared - 1,
                                 which holds the constants of both
                                 (cc_share_flash); 0: its own */
    uint8_t *payload; uint64_t payload_size;          /* COP1 blob */
    int32_t *inputs; int32_t n_inputs;    /* graph tensors read from outside */
    int32_t *outputs; int32_t n_outputs;  /* graph tensors used outside */
    uint64_t cycles;          /* cycle-model estimate of the stream */
    int32_t *dma_op; int32_t n_dma;   /* the op each DMA of the stream feeds */
    double *w_bits;           /* owned, [n_eu]: the order-0 entropy (bits) of
                                 the values each NPU op's weight stream(s)
                                 decode to, for the report; set on the model
                                 cc_compile returns (NULL before) */
} cc_epoch;

/* The NPU op (index in e->ops, -1 none) that the next kernel op or, with
 * dma_start, DMA start of e's stream belongs to: the kernel ops in order,
 * a DMA to the op it feeds (dma_op). *kernel and *dma count them, from 0
 * at the stream's start. */
static inline int32_t cc_record_eu(const cc_epoch *e, bool dma_start, int32_t *kernel, int32_t *dma)
{
    int32_t k = dma_start ? (*dma < e->n_dma ? e->dma_op[(*dma)++] : e->n_eu) : (*kernel)++;
    return k < e->n_eu ? k : -1;
}

/* Per graph op: where it runs and why. */
typedef struct cc_op_info {
    bool npu;
    char why[160];            /* reason when on the CPU */
    int32_t epoch;
    int32_t first_eu, n_eu;   /* NPU ops within the epoch (in a cascade the
                                 ops of its members interleave: eu_op.src_op
                                 says whose each one is) */
    int32_t cascade;          /* first graph op of its cascade, -1 none */
    int32_t cascade_ops;      /* on that first op: NPU ops of the cascade */
    int32_t fused_into;       /* >= 0: an activation the output stage of this
                                 op's NPU ops applies (no NPU op of its own;
                                 its input shares its output's buffer), -1 none */
    bool cpu_in_place;        /* a CPU op whose kernel may write its output
                                 over its input 0 (interp_op_in_place: set by
                                 cc_lower; cc_alloc.c, cpu_inplace_pairs) */
    int32_t folded_into;      /* >= 0: a PAD or uint8 QUANTIZE whose work that
                                 later conv's NPU ops do (its padding, its zero
                                 point; no NPU op of its own), -1 none */
    uint64_t macs;
    uint64_t cycles;          /* NPU cycles (sum over its NPU ops) */
    uint64_t bytes_read[3];   /* by region: 0 params (flash), 1 arena, 2 fast */
    uint64_t bytes_written[3];
} cc_op_info;

/* An op constant folding evaluated at compile time (cc_fold.c). */
typedef struct cc_folded {
    int32_t op;               /* op index in the source graph */
    int32_t opcode;
    char op_name[32];
    int32_t tensor;           /* its (first) output, source graph index */
    char tensor_name[96];
    int32_t n_out;
} cc_folded;

/* A CALL_ONCE of the deployed graph and whether its initialiser was
 * evaluated at compile time (cc_fold_once, cc_fold.c). Folded: the npuc
 * runtime outputs (NPRT, C array, loadable) drop its epoch and start the
 * variable area at m->vars_init; _npu.tflite keeps it (TFLite Micro gives
 * a resource variable a value only by running ASSIGN_VARIABLE). */
typedef struct cc_once {
    int32_t op;               /* op index in m->g */
    int32_t src_op;           /* op index in the source graph (reports) */
    int32_t init_subgraph;
    bool folded;
    int32_t n_vars;           /* folded: variables it gives a value */
    uint64_t bytes;           /* their value bytes */
    int32_t vars[8];          /* the first of them (graph_model res index) */
    char why[192];            /* not folded: the reason */
} cc_once;

typedef struct cc_model {
    const graph *g;           /* the deployed graph: the source graph (not
                                 owned), or folded_g when ops were folded */
    const graph *src;         /* the source graph (not owned) */
    graph *folded_g;          /* owned: the source without its folded ops
                                 (their outputs constants), NULL if none */
    cc_folded *folded; int32_t n_folded;
    cc_once *once; int32_t n_once;   /* the CALL_ONCE ops of m->g (cc_fold_once) */
    uint8_t *vars_init;       /* with a folded CALL_ONCE: the variable area after
                                 the folded initialisers ran on a zeroed area
                                 (graph_model vars_size bytes), else NULL */
    size_t vars_init_size;
    cc_options opt;
    cc_op_info *ops;          /* [g->n_ops] */
    int32_t *buf_of;          /* [g->n_tensors] buffer of each tensor, -1 constants */
    cc_buf *bufs; int32_t n_bufs, cap_bufs;
    cc_epoch *epochs; int32_t n_epochs, cap_epochs;
    /* the concatenation inputs written in place, in the order they were
     * applied to the lowered program (cc_concat.c): the choices the rewrite
     * of the op lists and buf_of is a function of */
    cc_concat_in *concat_in; int32_t n_concat_in, cap_concat_in;
    /* the chains cascaded, in the order they were applied (cc_cascade.c) */
    cc_cascade_in *cascade_in; int32_t n_cascade_in, cap_cascade_in;
    uint64_t arena_size;      /* peak activation bytes */
    uint64_t fast_size;       /* peak of the fast scratch pool (0: unused) */
    uint64_t state_size;      /* the CC_IN_STATE buffers' bytes (0: none) */
    uint64_t flash_size;      /* sum of the epochs' flash + payloads */
    uint64_t stream_size;     /* of which the payloads (command streams) */
    uint64_t weight_bytes;    /* the weight streams, each once */
    double weight_bits;       /* their values' order-0 entropy (cc_epoch.w_bits) */
    uint64_t npu_cycles;
    uint64_t fastest_cycles,  /* the weight search's fastest point (its   */
             fastest_sram;    /* SRAM as cc_sram_bytes), 0: no search     */
    double compile_seconds;
    struct eu_wcache *wcache; /* encoded weight streams (not owned; NULL:
                                 none), shared by the search's compiles */
    struct cc_costs *costs;   /* owned: the cycles of lone NPU op records
                                 (cc_alloc.c), NULL: none */
    struct cc_gencache *gen;  /* owned: the last epochs generated and
                                 estimated (cc.c), NULL: none */
    struct eu_genmemo *eu_memo; /* owned: the register operands eu_generate
                                 worked out, kept while m->gen is set
                                 (eu_gen.c), NULL: none */
    struct cc_pfmemo *pfmemo; /* owned: the prefetch plans picked before, by
                                 their inputs (cc_prefetch.c), NULL: none */
    struct cc_order_memo *order_memo; /* cc_order's answer on the folded or
                                 unfolded graph (cc_order.c; not owned,
                                 NULL: none), shared by the search's compiles */
    struct cc_ref_memo *refs; /* the reference's value maps of one-input ops
                                 (lower_toolkit.c; not owned, NULL: each
                                 lowering keeps its own), shared by the
                                 search's compiles */
    bool lstm_forms;          /* an LSTM was lowered where opt.lstm_alt chooses its form */
    bool qfold_off;           /* lowering: no uint8 QUANTIZE folded into the
                                 conv reading it (set when a conv did not
                                 take one: lower_quantize.c) */
    bool reordered;           /* cc_order changed the op order */
    uint64_t order_peak[2];   /* then the peaks of live bytes (cc_order_peak)
                                 of the graph's order and of the new one */
} cc_model;

/* The command-stream region an operand at buffer b is in (docs/ethos-u.md
 * 9.3): 0 the params (b < 0: a constant in the flash tensor), 1 the arena,
 * 2 the fast scratch. */
static inline uint8_t cc_buf_region(const cc_model *m, int32_t b)
{
    return b < 0 ? 0 : m->bufs[b].pool == CC_IN_FAST ? 2 : 1;
}

/* Whether graph tensor t is the input of an activation fused into its
 * producer (cc_op_info.fused_into): it shares the activation output's
 * buffer and is never written as itself. */
bool cc_fused_tensor(const cc_model *m, int32_t t);

/* The op of m->g that source op src_op became; -1 when it was folded. */
int32_t cc_op_of_source(const cc_model *m, int32_t src_op);

/* Constant folding (cc_fold.c): *out is g without the ops it evaluated
 * (NULL when none folds; then g is deployed as it is); *list (malloc'd)
 * names them. */
int cc_fold(const graph *g, graph **out, cc_folded **list, int32_t *n_list, npuc_err *err);
/* g with its ops in the order `order` (a permutation of its op indices),
 * each op keeping its source op index (cc_fold.c). */
int cc_graph_reorder(const graph *g, const int32_t *order, graph **out, npuc_err *err);

/* The op order pass (cc_order.c), between folding and lowering. The peak
 * of live activation bytes of g's ops run in the order `order` (a view's
 * output shares its input's bytes, as the memory plan does). */
uint64_t cc_order_peak(const graph *g, const int32_t *order);
/* Fills order[g->n_ops] with the order of least peak among g's own and a
 * few schedules that run each op late, just before its first consumer; ops
 * with side effects or state stay where they are and nothing moves across
 * them. Ties keep g's order. Returns whether the order differs from g's. */
bool cc_order_plan(const graph *g, int32_t *order);
/* Runs cc_order_plan on m->g; when the order changes, m->g (and
 * m->folded_g, which owns it) becomes the graph in that order. */
int cc_order(cc_model *m, npuc_err *err);
/* After lowering: a view left alone on the CPU (no NPU op to join) whose
 * producer runs on the NPU moves right after that producer, so it joins
 * the producer's HW epoch. Fills order and returns whether any moved. */
bool cc_order_views_plan(const cc_model *m, int32_t *order);

/* CALL_ONCE folding (cc_fold.c), once m's epochs exist: fills m->once and,
 * when an initialiser is a pure function of constants that runs before any
 * other use of the variables, m->vars_init. */
int cc_fold_once(cc_model *m, npuc_err *err);
/* The entry of m->once for op op of m->g when it was folded, else NULL. */
const cc_once *cc_once_folded(const cc_model *m, int32_t op);

/* Compiles a graph. The graph must outlive the model. Errors name the op or
 * tensor; unsupported ops are not errors (they run on the CPU), except a
 * legacy uint8 op (asymmetric uint8 of TFLite 1.x) left on the CPU that the
 * reference kernels do not run: it runs nowhere, so compiling fails with
 * one line naming it and suggesting int8 re-quantization. */
int cc_compile(const graph *g, const cc_options *opt, cc_model **out, npuc_err *err);
void cc_model_free(cc_model *m);
/* The cycle model's price of lone op records, each worked out once per
 * model (the passes re-place and re-price the same ops many times). */
struct cc_costs *cc_costs_new(void);
void cc_costs_free(struct cc_costs *c);
/* The last epochs cc_generate_all made, by everything they were made from. */
struct cc_gencache *cc_gencache_new(void);
void cc_gencache_free(struct cc_gencache *c);
/* The prefetch plans cc_prefetch picked, by the state they were picked
 * from (cc_prefetch.c). */
struct cc_pfmemo *cc_pfmemo_new(void);
void cc_pfmemo_free(struct cc_pfmemo *c);
/* cc_order's plan and peaks, kept by the search's compiles (cc_order.c):
 * a function of the graph it runs on alone. */
struct cc_order_memo *cc_order_memo_new(void);
void cc_order_memo_free(struct cc_order_memo *o);
/* The reference's value maps by op and quantization (lower_toolkit.c). */
struct cc_ref_memo *cc_ref_memo_new(void);
void cc_ref_memo_free(struct cc_ref_memo *r);

/* The allocation timeline (cc_buf first/last): graph op `op` takes
 * cc_op_steps steps (one per NPU op, at least one); cc_step_op maps a step
 * back to its graph op (before the first: 0; past the end: the last op). */
int32_t cc_op_steps(const cc_model *m, int32_t op);
int32_t cc_step_op(const cc_model *m, int32_t step);
/* Bytes of the arena that hold variable tensors (state kept across
 * invocations that NPU ops read or write: an LSTM on the NPU): persistent,
 * live over the whole inference. Variables only CPU ops touch are in the
 * state pool instead (cc_model.state_size). Vela's SRAM figure leaves both
 * out (TFLite Micro keeps them in its own arena). */
uint64_t cc_state_bytes(const cc_model *m);

/* ------------------------------------------------------------ schedule */

/* A schedule (cc_sched.c): the choices the passes make over the lowered
 * program, as one value that can be taken from a model, kept, copied,
 * compared and applied back. The passes search by trying a choice on the
 * model and putting the schedule they started from back when it does not
 * pay (cc_concat.c, cc_cascade.c, cc_prefetch.c); every such save and
 * restore is a cc_sched. A schedule holds some of these parts:
 *   CC_SCHED_PLACE   per buffer its place (pool, offset) and the step its
 *                    live range starts at (eu_first, first: where a weight
 *                    copy's DMA is issued), and the pools' peaks: what
 *                    cc_prefetch chooses;
 *   CC_SCHED_BUFS    every buffer's whole record (sizes: weight copies
 *                    dropped, feature maps with no bytes of their own;
 *                    live ranges; places) and the pools' peaks (it holds
 *                    PLACE's choices too: taken with both, it is BUFS);
 *                    with WEIGHTS, applying it drops the weight copies
 *                    made since (cc_scale_copies'), which no tensor names;
 *   CC_SCHED_WEIGHTS per NPU op of the HW epochs its weight copy (wbuf,
 *                    -1: streamed from flash) and block config;
 *   CC_SCHED_CONCAT  the concatenation inputs written in place
 *                    (cc_model.concat_in): what cc_concat_place chooses.
 *                    Applied alone to a model whose own choices are a
 *                    prefix of them, it applies the rest to the program
 *                    (cc_concat_apply); any other model's it refuses;
 *   CC_SCHED_CASCADE the chains cascaded (cc_model.cascade_in): what
 *                    cc_cascade chooses; applied alone, as CONCAT
 *                    (cc_cascade_apply, after CONCAT's);
 *   CC_SCHED_PROGRAM the NPU op lists of the HW epochs, the graph ops'
 *                    records (first_eu, n_eu, cascade bands) and buf_of:
 *                    the rewrite of CONCAT's and CASCADE's choices
 *                    (slices and copies removed; band ops and rolling
 *                    buffers), and with it those choices: taking it also
 *                    takes CC_SCHED_BUFS, CC_SCHED_CONCAT and
 *                    CC_SCHED_CASCADE, and applying it drops the buffers
 *                    made since.
 * A schedule applies to the model it was taken from (the same deployed
 * graph, epochs and buffer count; with CC_SCHED_PROGRAM, or BUFS and
 * WEIGHTS, at least as many buffers), or cc_sched_apply refuses it and changes nothing (a
 * CC_SCHED_CONCAT or CC_SCHED_CASCADE choice that does not apply: those
 * before it stay applied). Zeroed (cc_sched s = {0}) it holds nothing; cc_sched_free
 * frees it. */
enum {
    CC_SCHED_PLACE = 1u,
    CC_SCHED_BUFS = 2u,
    CC_SCHED_WEIGHTS = 4u,
    CC_SCHED_PROGRAM = 8u,
    CC_SCHED_CONCAT = 16u,
    CC_SCHED_CASCADE = 32u
};

/* A buffer's place and DMA issue point (CC_SCHED_PLACE). */
typedef struct cc_sched_place {
    int64_t offset;
    int32_t eu_first, first;
    int32_t over;             /* cc_buf.over */
    uint8_t pool;
} cc_sched_place;

typedef struct cc_sched {
    unsigned parts;           /* CC_SCHED_* it holds (0: none) */
    const graph *g;           /* the deployed graph it is a schedule of (not owned) */
    int32_t n_ops, n_tensors, n_epochs;
    int32_t n_bufs;
    cc_sched_place *place;    /* [n_bufs] (PLACE) */
    cc_buf *bufs;             /* [n_bufs] (BUFS): the buffers as taken */
    uint64_t arena_size, fast_size;
    int32_t *n_eu;            /* [n_epochs] (WEIGHTS, PROGRAM): NPU ops per
                                 epoch (0 for SW epochs, -1: an epoch the
                                 schedule does not hold, cc_sched_take_epoch) */
    int32_t n_eu_all;         /* their sum */
    int32_t *wbuf;            /* [n_eu_all] (WEIGHTS): per NPU op, epoch order */
    eu_block *blk;
    eu_op *eu;                /* [n_eu_all] (PROGRAM): the NPU ops */
    cc_op_info *ops;          /* [n_ops] (PROGRAM) */
    int32_t *buf_of;          /* [n_tensors] (PROGRAM) */
    cc_concat_in *concat_in;  /* [n_concat_in] (CONCAT) */
    int32_t n_concat_in;
    cc_cascade_in *cascade_in; /* [n_cascade_in] (CASCADE) */
    int32_t n_cascade_in;
    /* room held by each array (a schedule taken again reuses it) */
    int32_t cap_place, cap_bufs, cap_n_eu, cap_wbuf, cap_blk, cap_eu, cap_ops, cap_buf_of, cap_concat_in,
        cap_cascade_in;
} cc_sched;

/* Takes the parts `parts` of m's schedule into s (its room reused). */
int cc_sched_take(const cc_model *m, unsigned parts, cc_sched *s, npuc_err *err);
/* cc_sched_take with the NPU ops (WEIGHTS, PROGRAM) of epoch `epoch` alone
 * (-1: all): applied, it leaves the other epochs' op lists as they are
 * (a pass that rewrites one epoch saves only that one). */
int cc_sched_take_epoch(const cc_model *m, unsigned parts, int32_t epoch, cc_sched *s, npuc_err *err);
/* Puts the parts s holds back into m; NPUC_E_INVALID (m unchanged) when
 * s is of another model or of another shape of this one. */
int cc_sched_apply(cc_model *m, const cc_sched *s, npuc_err *err);
/* *dst becomes a copy of src (dst's room reused). */
int cc_sched_copy(cc_sched *dst, const cc_sched *src, npuc_err *err);
void cc_sched_free(cc_sched *s);
/* Whether a and b hold the same parts with the same choices (field by
 * field; of a CC_SCHED_PLACE part the fields it applies). */
bool cc_sched_equal(const cc_sched *a, const cc_sched *b);
/* Whether m's schedule is s's, on the parts s holds. */
bool cc_sched_matches(const cc_model *m, const cc_sched *s);

/* Passes (internal to compiler/, in pipeline order). */
int cc_lower(cc_model *m, npuc_err *err);
/* After cc_lower: whether every uint8 QUANTIZE folded into the conv that
 * reads it (lower/lower_quantize.c) was taken by that conv, an NPU op
 * reading the uint8 bytes; false: the model is lowered again with
 * cc_model.qfold_off. */
bool cc_quant_folds_taken(const cc_model *m);
/* cc_concat.c: chooses the concatenation inputs written in place and
 * applies them (with opt.concat_given: applies opt.concat_in). */
int cc_concat_place(cc_model *m, npuc_err *err);
/* Applies the choices c[0..n) in order to m, a lowered program with the
 * choices m->concat_in applied (none: as lowered): each input's copy is
 * removed, the feature maps on its buffer are rewritten to address its
 * slice of the output's buffer, and the choice is appended to
 * m->concat_in. The rewrite is a function of the program and the choices
 * alone. NPUC_E_INVALID when a choice cannot be applied (not a CONCATENATION
 * input, placed already, or its conditions do not hold: cc_concat.c); the
 * choices before it stay applied. */
int cc_concat_apply(cc_model *m, const cc_concat_in *c, int32_t n, npuc_err *err);
int cc_layout(cc_model *m, npuc_err *err);
/* cc_cascade.c: chooses the chains cascaded and applies them (with
 * opt.cascade_given: applies opt.cascade_in). */
int cc_cascade(cc_model *m, npuc_err *err);
/* Finer cascade bands where they may lower m's SRAM (cc.c weighs them
 * then): the chains with a rolling buffer live at the step with the most
 * bytes in the SRAM pools (as cc_sram_bytes counts them) take
 * CC_CASCADE_BANDS_FINE bands, each such buffer forecast at
 * CC_CASCADE_BANDS / CC_CASCADE_BANDS_FINE of its bytes, then those at the
 * step that holds the most after that cut, and so on; where the most bytes
 * live at one step then drop by more than CC_CASCADE_FINE_GAIN percent,
 * out[0..n) gets m's choices with those counts and n is returned (0: not
 * forecast to pay; out holds room for m->n_cascade_in). */
#define CC_CASCADE_FINE_GAIN 5
int32_t cc_cascade_finer(const cc_model *m, cc_cascade_in *out);
/* Applies the cascade choices c[0..n) in order to m (laid out, with the
 * choices m->cascade_in applied): each chain's ops are rewritten into band
 * ops through rolling buffers (new buffers), the op records get their
 * cascade, and the choice is appended to m->cascade_in. A function of the
 * program and the choices alone. NPUC_E_INVALID when a choice does not
 * apply (its ops are not a chain that qualifies, or it has no band
 * schedule); the choices before it stay applied. */
int cc_cascade_apply(cc_model *m, const cc_cascade_in *c, int32_t n, npuc_err *err);
/* Chooses every NPU op's block again once storage formats (cc_layout) and
 * cascade bands are known; CONV/DEPTHWISE keep their block depth, which
 * their weight streams are encoded for (cc_reblock.c). */
void cc_reblock(cc_model *m);
/* With a fast pool apart from the arena (U65 Dedicated_Sram) and
 * --optimise performance, on the final placement: each NPU op keeps, of
 * its block, the block the chooser gives and the one it gives for
 * operands all in SRAM (eu_block_req.sram_only), the one with the fewest
 * cycles with its operands where they were placed (cc_op_cycles_at); a
 * CONV / DEPTHWISE keeps its depth (cc_reblock.c). True when a block
 * changed (the streams are to be generated again). */
bool cc_reblock_placed(cc_model *m);
/* cc_reblock_placed for op o of m alone; returns whether its block changed. */
bool cc_reblock_placed_op(cc_model *m, eu_op *o);
/* The last placement step on a U65 with a fast pool (cc_alloc.c): an op
 * that streams its weights from flash and loses the flash's latency on its
 * scale records gets a copy of those records alone in the fast pool, its
 * DMA behind the op before, and its block chosen again for it
 * (cc_reblock_placed_op); kept per epoch where the streams get faster.
 * Regenerates the streams it changes. */
int cc_scale_copies(cc_model *m, npuc_err *err);
/* What cc_reblock_placed asks the block chooser for op o of m (its
 * request: the op's formats, a CONV / DEPTHWISE's depth kept, the weight
 * cost where it streams) and the regions it prices it at (reg: IFM, IFM2
 * (0 none), OFM, weights), for cc_op_cycles_at. */
void cc_placed_req(const cc_model *m, const eu_op *o, eu_block_req *r, uint8_t reg[4]);
/* The short proof of an int16 -> int8 / int16 QUANTIZE on the NPU
 * (lower/lower_lut.c): for TFLite's (mult, shift) (k_requant_prepare), the
 * zero points zi, zo and the output type's range [lo, hi], the points x
 * (room for 65536) where the reference must give y, the NPU's answers, for
 * the two to agree at every int16 input; returns their count, or -1 where
 * the reference is not known to be non-decreasing (the full comparison
 * decides). */
int32_t cc_requant_ends(int32_t mult, int32_t shift, int32_t zi, int32_t zo, int32_t lo, int32_t hi, int32_t *x,
                        int32_t *y);
/* The block request of an NPU op as the lowering makes it (whole NHWC
 * tensors; lower/lower_toolkit.c). */
void cc_block_req(eu_variant v, const eu_op *o, eu_block_req *r);
/* eu_block_choose, its answers kept with m->refs by request (a function
 * of the request alone; r zeroed beyond its fields, as cc_block_req leaves
 * it, so that its bytes are the key): the search's compiles ask cc_reblock
 * and cc_reblock_placed's few requests thousands of times. */
int cc_block_choose_kept(const cc_model *m, const eu_block_req *r, eu_block *out, npuc_err *err);
/* eu_block_choose_cycles, kept so with the cycles (the memo of the
 * lowering's copies, lower_toolkit.c copy_cycles): the conv fold choices
 * (lower_conv.c conv_cycles). */
int cc_block_cycles_kept(const cc_model *m, const eu_block_req *r, eu_block *out, uint64_t *cycles, npuc_err *err);
int cc_allocate(cc_model *m, npuc_err *err);
/* While on (with m->costs), cc_allocate keeps its last placements by
 * what it reads that the weight placement search changes (every buffer
 * but its outputs: range, place, pool; each NPU op's weight copy and
 * block) and gives a placement seen before from there; off frees them.
 * For cc_place_weights only: its trials change nothing else that
 * cc_allocate reads. */
void cc_alloc_memo(cc_model *m, bool on);
/* A timeline index of buffers (cc_alloc.c): the steps are cut into blocks
 * and each buffer added is listed in every block of the range it was added
 * with (in the first as starting there, in the others as running into
 * them), so that the buffers live near a range are found without a scan
 * of all of them. A query gives each buffer listed in a block that steps
 * first..last touch, once, into out (room for n_bufs): a superset of those
 * whose added range meets first..last, for the caller to filter (in no
 * order the callers may rely on). */
typedef struct cc_timeline {
    int32_t n_blocks;
    int32_t *head;            /* [n_blocks] first entry of the buffers whose
                                 added range starts in the block, -1 none */
    int32_t *cross;           /* [n_blocks] first entry of those whose range
                                 runs into the block from an earlier one
                                 (within head's allocation) */
    int32_t *ent_buf, *ent_next;
    int32_t n_ent, cap_ent;
    uint32_t *seen;           /* [n_bufs] stamp of the last query that met it */
    uint32_t stamp;
} cc_timeline;
/* The placement of pool's buffers among idx[0..n) (in that order) as
 * cc_allocate makes it, by its placement index, or (plain) by a scan of
 * every buffer placed before; returns the pool's peak (UINT64_MAX: out of
 * memory). For tests: the two must agree to the byte. */
uint64_t cc_place_pool(cc_model *m, const int32_t *idx, int32_t n, uint8_t pool, bool plain);
/* The last placement of a compile (cc_compact.c): each pool's buffers
 * placed again in other orders, kept where the pool gets smaller at no
 * more NPU cycles (the streams generated again, m->stream_size and
 * m->flash_size counting them as they then are). Where the model's SRAM
 * (cc_sram_bytes) is over limit (0: none), the search goes on longer, and
 * a placement that brings it under is kept whatever its cycles. */
int cc_compact(cc_model *m, uint64_t limit, npuc_err *err);
/* A byte range [lo, hi) of a pool; cc_sort_spans orders n of them by lo
 * (the order of equal lo unspecified). */
typedef struct cc_span { uint64_t lo, hi; } cc_span;
void cc_sort_spans(cc_span *a, size_t n);
bool cc_tl_init(cc_timeline *t, const cc_model *m);   /* false: out of memory */
void cc_tl_free(cc_timeline *t);
bool cc_tl_add(cc_timeline *t, int32_t b, int32_t first, int32_t last);   /* false: out of memory */
int32_t cc_tl_query(cc_timeline *t, int32_t first, int32_t last, int32_t *out);
/* After cc_allocate: the NPU ops' cycles summed, each op costed alone by
 * the cycle model with its operands where they were placed (no DMA, no
 * overlap): what the placement costs, for passes that weigh one against
 * another (cc_alloc.c). 0 when out of memory. */
uint64_t cc_placed_cycles(const cc_model *m);
/* cc_placed_cycles of the model as the cc_allocate just before left it
 * (the choice of the fast pool works it out as it goes; worked out again
 * where it did not). Only right after cc_allocate. */
uint64_t cc_allocated_cycles(const cc_model *m);
/* The cycles of NPU op o alone (the cycle model's max of compute and
 * memory, no DMA) with its IFM, IFM2 and OFM in regions ifm_r, ifm2_r and
 * ofm_r and its constants in w_r (0 the params, 1 the arena, 2 the fast
 * pool), on m's variant and system (cc_alloc.c). */
uint64_t cc_op_cycles_at(const cc_model *m, const eu_op *o, uint8_t ifm_r, uint8_t ifm2_r, uint8_t ofm_r,
                         uint8_t w_r);
/* The command stream of HW epoch e (eu_gen.c). While m->gen is set (the
 * schedule search), the register operands it works out are kept in
 * m->eu_memo by what each is a function of, for the next streams: the
 * same bytes. */
int eu_generate(cc_model *m, cc_epoch *e, npuc_err *err);
/* The stream's op segments as eu_generate wrote them, for the cycle
 * estimate (cc.c, estimate), which would otherwise find them by reading the
 * stream's words again: segment k runs from the end of segment k - 1 (the
 * stream's start) to op record k's command (a kernel op or DMA start)
 * inclusive. For each: its end (a byte offset in the stream), its commands,
 * and the words of the commands the estimate does not skip (sim_cmd_role
 * other than SIM_ROLE_SKIP), in order; ok false where the estimate's scan
 * would give up on it (more than max_cmds commands, or more than max_words
 * such words, the caller's limits). The arrays are the caller's, kept
 * between streams (oom: they could not grow, nothing is to be read). */
typedef struct eu_seg { uint32_t end, kw, nk, ncmd; bool ok; } eu_seg;
typedef struct eu_segs {
    uint32_t max_words, max_cmds;
    eu_seg *seg; size_t n, cap;
    uint32_t *kw; size_t n_kw, cap_kw;
    uint32_t nk, n1;          /* the segment being written: its words
                                 noted, its cmd1 commands */
    bool oom;
} eu_segs;
/* eu_generate, the segments into *sg (NULL: none). */
int eu_generate_segs(cc_model *m, cc_epoch *e, eu_segs *sg, npuc_err *err);
void eu_genmemo_free(struct eu_genmemo *g);
int cc_prefetch(cc_model *m, npuc_err *err);
/* cc_prefetch, and weight copies only where they pay: the copies of ops that
 * read each weight byte once are dropped (the op streams them from flash)
 * unless that costs cycles (cc_prefetch.c). */
int cc_place_weights(cc_model *m, npuc_err *err);
/* One flash for the HW epochs when that saves bytes: the constants of every
 * epoch in one area, each range the ops address as a whole stored once
 * (an unrolled LSTM's steps share one weight stream); the first epoch with
 * constants keeps it, the others point at it (cc_epoch.flash_shared) and
 * their ops' offsets are moved. *shared: whether it was done (the streams
 * must be generated again). (lower/lower_weights.c) */
int cc_share_flash(cc_model *m, bool *shared, npuc_err *err);
/* The flash bytes the HW epochs' constants take once cc_share_flash has
 * run (no command stream): what the weights' placement leaves as it is, so
 * after lowering it is a floor of the model's flash. 0: not known (out of
 * memory, or a dual-core op, whose constants are laid out by its copy).
 * (lower/lower_weights.c) */
uint64_t cc_const_bytes(cc_model *m);
/* The bytes of e's flash at offset off, up to end: *p points at the
 * longest run from off that lies wholly inside one alias (read at its
 * source) or wholly outside every alias; returns its length (0 when off >=
 * end). */
uint64_t cc_flash_seg(const cc_epoch *e, uint64_t off, uint64_t end, const uint8_t **p);
/* Bytes [lo, hi) of e's flash in one piece (cc_flash_seg's first run when
 * it covers them), else NULL (also when hi <= lo). */
const uint8_t *cc_flash_view(const cc_epoch *e, uint64_t lo, uint64_t hi);
/* Every alias of e written out: its flash then holds all of its bytes at
 * their offsets. False: out of memory (e as it was). */
bool cc_flash_write_aliases(cc_epoch *e);
/* The lengths of e's aliases together: its memory holds flash_size less
 * these bytes. */
static inline uint64_t cc_flash_alias_bytes(const cc_epoch *e)
{
    return e->n_alias ? e->alias[e->n_alias - 1].below + e->alias[e->n_alias - 1].len : 0;
}
/* The epoch whose flash e addresses (e itself unless it shares one). */
static inline const cc_epoch *cc_flash_epoch(const cc_model *m, const cc_epoch *e)
{
    return e->flash_shared > 0 ? &m->epochs[e->flash_shared - 1] : e;
}
/* SRAM as Vela's arena cache counts it: the fast pool, plus the arena
 * when its pool is SRAM (U55 Shared_Sram: the arena alone). */
uint64_t cc_sram_bytes(const cc_model *m);
/* How many times slower the params memory (weights streamed from flash)
 * reads than the arena's: eu_block_req.weight_cost (1 when not slower). */
double cc_weight_cost(const cc_options *o);
/* One schedule's figures, for the search's rule (cc.c). */
typedef struct cc_sched_point { uint64_t cycles, sram; } cc_sched_point;
/* Cycles within this fraction of the fewest count as as fast: the least
 * SRAM among them is taken ("negligible" loss, 1 / CC_CYCLE_SLACK). */
#define CC_CYCLE_SLACK 100u
/* The schedule the search takes among n (n > 0): with a limit, among those
 * under it (if none, the least SRAM); the fewest cycles C, then the least
 * SRAM among those within C / CC_CYCLE_SLACK of C, then the fewest
 * cycles. Never one another beats on both figures. */
int32_t cc_sched_pick(const cc_sched_point *p, int32_t n, uint64_t limit);
/* cc_sched_pick with the band C / slack instead (a wider one: the leanest
 * point near the fewest cycles). */
int32_t cc_sched_pick_within(const cc_sched_point *p, int32_t n, uint64_t limit, uint64_t slack);
/* The lean default (no --arena-cache-size): from the rule's pick (C0
 * cycles in S0 bytes of SRAM as cc_sram_bytes counts it) the search halves
 * the SRAM while a point in S bytes takes at most
 * C0 * (1 + log2(S0 / S) / CC_LEAN_PER_HALVING) cycles (5% per halving),
 * and takes the leanest such point (cc_sched_lean). Up to CC_LEAN_PROBES
 * compiles, only where the pick takes at least CC_LEAN_POOL_MIN bytes
 * (below, a halving saves at most 16 KiB, and a probe costs as much
 * compile time as on a large model: armkws_basic_lstm_s_int8 ethos-u55,
 * 42 -> 65 ms for no point taken, Vela 5.1's 60). */
#define CC_LEAN_PER_HALVING 20u
#define CC_LEAN_PROBES 6
/* Rounds of compiles of the leanest point under its own SRAM (cc.c), and
 * the prefetch headroom they also weigh. */
#define CC_LEAN_SETTLE 2
#define CC_LEAN_HEADROOM 100
#define CC_LEAN_POOL_MIN 32768u
/* The point of p[n] the lean rule takes from p[from]: the least SRAM
 * whose cycles are within the rule's allowance of p[from]'s (p[from]
 * itself where none is). */
int32_t cc_sched_lean(const cc_sched_point *p, int32_t n, int32_t from);
/* Whether the arena counts in cc_sram_bytes (its pool is SRAM). */
bool cc_arena_is_sram(const cc_options *o);
/* The bytes of the fast scratch pool apart from the arena (U65
 * Dedicated_Sram) that buffers may take: its size rounded down to the
 * buffers' 16-byte alignment; 0: no such pool, or one too small to hold a
 * buffer (then everything is in the arena). */
uint64_t cc_fast_bytes(const cc_options *o);
/* Whether the fast pool will likely hold buffer b (a feature map): a temp,
 * or a tensor that is no graph input, output or state, of at most a quarter
 * of the pool; false without a fast pool. The lowering prices such an op's
 * block for SRAM alone (lower_toolkit.c). */
bool cc_likely_fast(const cc_model *m, int32_t b);

/* Generates and estimates every HW epoch's stream (cc.c), for cc_prefetch
 * to compare schedules. */
int cc_generate_all(cc_model *m, npuc_err *err);

/* The CONCATENATION output whose buffer graph tensor t is written into in
 * place, as a slice of it (cc_concat_place); -1 when t has its own bytes. */
int32_t cc_concat_slice_of(const cc_model *m, int32_t t);
/* cc_concat_slice_of of every graph tensor into cat[m->g->n_tensors] in
 * one pass over the ops. */
void cc_concat_slice_index(const cc_model *m, int32_t *cat);

/* Appends bytes to an epoch's flash, 16-byte aligned; returns the offset
 * via *off (lower/lower_toolkit.c). */
int cc_flash_add(cc_epoch *e, const void *data, uint64_t size, uint64_t *off, npuc_err *err);

#endif
