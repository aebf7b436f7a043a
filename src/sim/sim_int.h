/* sim_int.h: internal interfaces between the executor (sim_exec.c) and the
 * register file (sim_npu.c). Not part of the public surface. */
#ifndef NPUC_SIM_INT_H
#define NPUC_SIM_INT_H

#include "sim/sim.h"

/* Grow-only scratch buffer. */
typedef struct sim_buf {
    void *p;
    size_t cap;
} sim_buf;

enum { SIM_BUF_IN, SIM_BUF_IN2, SIM_BUF_W, SIM_BUF_ACC, SIM_BUF_PATCH, SIM_BUF_MAP, SIM_BUF_WPAR, SIM_N_BUF };

/* Decoded weights of one stream, kept across runs: decoding MLW dominates
 * small networks otherwise. Keyed by the stream bytes and the geometry. */
typedef struct sim_wentry {
    uint64_t hash;
    size_t len;
    sim_wgeom geom;
    uint8_t *bytes;           /* copy of the stream (exact match check) */
    int16_t *dense;           /* W[o][ky][kx][i] (depthwise: transposed W[ky][kx][o]) */
    size_t n_dense;
    int32_t max_abs;          /* largest |weight| */
} sim_wentry;

#define SIM_WCACHE_SIZE 256
/* Default per-operation work limit: far above any real network layer
 * (a 224x224x64 3x3x64 conv is 1.8e9), about a minute of host time. */
#define SIM_DEFAULT_MAX_WORK 1e11

typedef struct sim_ctx {
    eu_variant variant;
    const sim_window *win;
    size_t n_win;
    const uint64_t *basep;    /* [8] */
    uint8_t *shram;           /* one SHRAM (LUTs are the only functional use) */
    size_t shram_size;
    sim_buf buf[SIM_N_BUF];
    sim_wentry wcache[SIM_WCACHE_SIZE];
    uint64_t max_work;        /* per-operation work limit, 0 = SIM_DEFAULT_MAX_WORK */
    /* fault channel of the last error (STATUS.faulting_channel) and kind */
    int fault;                /* SIM_FAULT_* */
} sim_ctx;

enum { SIM_FAULT_NONE, SIM_FAULT_CMD, SIM_FAULT_BUS, SIM_FAULT_WD };

void sim_ctx_init(sim_ctx *c, eu_variant v, uint8_t *shram, size_t shram_size);
void sim_ctx_free(sim_ctx *c);

/* Executes one NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE/DMA_START with the
 * register state s. Errors say what is wrong (without the command offset;
 * the caller prefixes it) and set c->fault. */
int sim_exec_op(sim_ctx *c, const sim_state *s, const sim_cmd *op, npuc_err *err);

#endif
