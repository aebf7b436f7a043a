/* cc_reblock: every NPU op's block chosen again once the storage formats
 * (cc_layout) and cascade bands (cc_cascade) are known; cc_reblock_placed:
 * once more on a U65 with a fast pool, after the placement (cc_allocate),
 * with each operand where it was placed. The lowering chose
 * each block for whole NHWC tensors; NHCWB16 bursts and band heights change
 * what is fastest. A CONV / DEPTHWISE keeps its block depth, which its
 * weight stream is encoded for (docs/ethos-u.md 6.2); an op whose new request
 * finds no block keeps the one it has. */
#include "cc.h"

#include <string.h>

void cc_reblock(cc_model *m)
{
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) {
            eu_op *o = &e->ops[k];
            eu_block_req r;
            cc_block_req(m->opt.sys.variant, o, &r);
            r.ifm_format = o->ifm.format;
            r.ofm_format = o->ofm.format;
            /* a weight stream is encoded for its block depth */
            if (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) r.fixed_d = o->blk.d;
            /* weights streamed from flash: re-reading them costs more */
            if (o->wbuf < 0 && o->w_len) r.weight_cost = cc_weight_cost(&m->opt);
            eu_block b;
            npuc_err e2 = {0};
            if (cc_block_choose_kept(m, &r, &b, &e2) == NPUC_OK) o->blk = b;
        }
    }
}


void cc_placed_req(const cc_model *m, const eu_op *o, eu_block_req *r, uint8_t reg[4])
{
    reg[0] = cc_buf_region(m, o->ifm.buf);
    reg[1] = o->ifm2_tensor ? cc_buf_region(m, o->ifm2.buf) : 0;
    reg[2] = cc_buf_region(m, o->ofm.buf);
    reg[3] = cc_buf_region(m, o->wbuf);
    cc_block_req(m->opt.sys.variant, o, r);
    r->ifm_format = o->ifm.format;
    r->ofm_format = o->ofm.format;
    if (o->kind == SIM_K_CONV || o->kind == SIM_K_DEPTHWISE) r->fixed_d = o->blk.d;
    if (o->wbuf < 0 && o->w_len) r->weight_cost = cc_weight_cost(&m->opt);
}

bool cc_reblock_placed_op(cc_model *m, eu_op *o)
{
    eu_block_req r;
    uint8_t reg[4];
    cc_placed_req(m, o, &r, reg);
    uint8_t ri = reg[0], r2 = reg[1], ro = reg[2], rw = reg[3];
    eu_block keep = o->blk;
    bool changed = false;
    uint64_t best = cc_op_cycles_at(m, o, ri, r2, ro, rw);
    for (int t = 0; t < 2; t++) {
        r.sram_only = t == 1;
        eu_block b;
        npuc_err e2 = {0};
        if (cc_block_choose_kept(m, &r, &b, &e2) != NPUC_OK) continue;
        o->blk = b;
        uint64_t c = cc_op_cycles_at(m, o, ri, r2, ro, rw);
        if (c < best) {
            best = c;
            keep = b;
            changed = true;
        }
    }
    o->blk = keep;
    return changed;
}

bool cc_reblock_placed(cc_model *m)
{
    bool changed = false;
    if (m->opt.optimise != CC_OPT_PERFORMANCE || !cc_fast_bytes(&m->opt)) return false;
    for (int32_t i = 0; i < m->n_epochs; i++) {
        cc_epoch *e = &m->epochs[i];
        for (int32_t k = 0; e->kind == CC_EPOCH_HW && k < e->n_eu; k++) changed |= cc_reblock_placed_op(m, &e->ops[k]);
    }
    return changed;
}
