/* sim_cmd: COP1 payload, command-stream decoder + checks, register state,
 * trace formatter, all over the command table of src/ethosu/eu_cmd.h (the
 * encodings) and eu_cop1 (the payload). Facts: docs/ethos-u.md sections 1.3,
 * 1.5, 2, 3, 9.1. */
#include "sim/sim.h"

const char *sim_op_kind_name(sim_op_kind kind, unsigned mode)
{
    switch (kind) {
    case SIM_K_CONV: return "CONV";
    case SIM_K_DEPTHWISE: return "DEPTHWISE";
    case SIM_K_POOL:
        /* the table's MAX / AVERAGE read as operations */
        return mode == EU_POOL_MAX ? "MAX_POOL" : mode == EU_POOL_AVERAGE ? "AVERAGE_POOL"
               : mode == EU_POOL_REDUCE_SUM ? "REDUCE_SUM" : "POOL";
    case SIM_K_ELEMENTWISE: {
        const char *n = eu_field_value_name(eu_cmd_field(eu_cmd_find(EU_OP_ELEMENTWISE), EU_F_VALUE), mode);
        return n ? n : "ELEMENTWISE";
    }
    default: return "DMA";
    }
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- variants */

int sim_variant_from_config(uint32_t config, eu_variant *out, npuc_err *err)
{
    if (!eu_variant_from_config(config, out)) return NPUC_OK;
    return npuc_errf(err, NPUC_E_UNSUPPORTED,
                     "CONFIG word 0x%08x: product %u with 2^%u MACs/cycle is not an Ethos-U55/U65 "
                     "configuration", config, (unsigned)EU_CONFIG_PRODUCT(config),
                     (unsigned)EU_CONFIG_MACS_LOG2(config));
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---------------------------------------------------------- COP1 payload */

#define COP1_AT "COP1 payload byte 0x%zx: "

static int cop1_error(const eu_cop1 *p, eu_cop1_status st, size_t size, npuc_err *err)
{
    size_t pos = p->err_offset;
    uint32_t w = p->err_word;
    switch (st) {
    case EU_COP1_E_SIZE:
        return npuc_errf(err, NPUC_E_FORMAT, "COP1 payload: size %zu is not a multiple of 4", size);
    case EU_COP1_E_SHORT:
        return npuc_errf(err, NPUC_E_FORMAT, "COP1 payload: %zu bytes, too short for the magic", size);
    case EU_COP1_E_MAGIC:
        return npuc_errf(err, NPUC_E_FORMAT, "COP1 payload byte 0x0: bad magic 0x%08x (expected 0x%08x 'COP1')",
                         w, EU_COP1_MAGIC);
    case EU_COP1_E_CONFIG_TRUNCATED:
        return npuc_errf(err, NPUC_E_FORMAT, COP1_AT "OPTIMIZER_CONFIG truncated (needs %d bytes, %zu left)",
                         pos, 4 * EU_COP1_CONFIG_WORDS, size - pos);
    case EU_COP1_E_CONFIG_TWICE:
        return npuc_errf(err, NPUC_E_FORMAT, COP1_AT "second OPTIMIZER_CONFIG", pos);
    case EU_COP1_E_STREAM_TWICE:
        return npuc_errf(err, NPUC_E_UNSUPPORTED, COP1_AT "second COMMAND_STREAM (only one supported)", pos);
    case EU_COP1_E_STREAM_PAST_END:
        return npuc_errf(err, NPUC_E_FORMAT, COP1_AT "COMMAND_STREAM of %zu words (%zu bytes) runs past the "
                         "payload end (%zu bytes left)", pos, p->stream_words, p->stream_words * 4,
                         size - pos - 4);
    case EU_COP1_E_STREAM_EMPTY:
        return npuc_errf(err, NPUC_E_FORMAT, COP1_AT "empty COMMAND_STREAM", pos);
    case EU_COP1_E_ACTION_UNSUPPORTED: {
        unsigned a = eu_cop1_action(w);
        return npuc_errf(err, NPUC_E_UNSUPPORTED, COP1_AT "driver action %s (word 0x%08x) not supported", pos,
                         a == EU_COP1_RESERVED ? "RESERVED" : a == EU_COP1_READ_APB ? "READ_APB" : "DUMP_SHRAM", w);
    }
    case EU_COP1_E_ACTION_UNKNOWN:
        return npuc_errf(err, NPUC_E_FORMAT, COP1_AT "unknown driver action %u (word 0x%08x)", pos,
                         eu_cop1_action(w), w);
    case EU_COP1_E_NO_STREAM:
    default:
        return npuc_errf(err, NPUC_E_FORMAT, "COP1 payload: no COMMAND_STREAM in %zu bytes", size);
    }
}

int sim_cop1_parse(const uint8_t *data, size_t size, sim_cop1 *out, npuc_err *err)
{
    memset(out, 0, sizeof *out);
    eu_cop1 p;
    eu_cop1_status st = eu_cop1_parse(data, size, &p);
    /* the OPTIMIZER_CONFIG version: rel 0 only (an error before a later one) */
    if (p.has_config && (st == EU_COP1_OK || p.config_offset < p.err_offset) &&
        (eu_cop1_config_rel(p.config_param) != EU_COP1_CONFIG_REL ||
         eu_cop1_config_reserved(p.config_param)))
        return npuc_errf(err, NPUC_E_UNSUPPORTED,
                         COP1_AT "OPTIMIZER_CONFIG version rel %u patch %u (param 0x%04x) not supported "
                         "(expected rel %d)", p.config_offset, eu_cop1_config_rel(p.config_param),
                         eu_cop1_config_patch(p.config_param), p.config_param, EU_COP1_CONFIG_REL);
    if (st) return cop1_error(&p, st, size, err);
    out->has_config = p.has_config;
    out->config_rel = eu_cop1_config_rel(p.config_param);
    out->config_patch = eu_cop1_config_patch(p.config_param);
    out->config = p.config;
    out->id = p.id;
    out->n_nops = p.n_nops;
    out->stream = data + p.stream_offset;
    out->stream_offset = p.stream_offset;
    out->stream_size = p.stream_words * 4;
    return NPUC_OK;
}

/* ------------------------------------------------------------- checks */

#define BAD(...) npuc_errf(err, NPUC_E_FORMAT, __VA_ARGS__)

static const char *product_name(unsigned av) { return av == EU_AV_U65 ? "U65" : "U55"; }

/* The message for a field (or reserved bits) eu_cmd_check refused. */
static int field_error(const sim_cmd *c, eu_variant v, eu_check k, const eu_field *f, uint64_t raw,
                       const char *where, npuc_err *err)
{
    unsigned long long r = raw;
    switch (k) {
    case EU_BAD_RESERVED:
        if (raw & 0xFFFFFFFFull << 32 || !c->is_cmd1)
            return BAD("%s: reserved param bits 0x%04x set (param 0x%04x)", where,
                       (unsigned)(c->is_cmd1 ? raw >> 32 : raw), c->param);
        return BAD("%s: reserved payload bits 0x%08x set (payload 0x%08x)", where, (unsigned)raw, c->payload);
    case EU_BAD_FIELD_VARIANT:
        return BAD("%s: %s is %s-only, not valid on %s (param 0x%04x)", where, f->what,
                   product_name(f->avail), eu_variant_name(v), c->param);
    case EU_BAD_ADDR_HI:
        return BAD("%s: param 0x%04x must be 0 on %s (32-bit addresses)", where, c->param,
                   eu_variant_name(v));
    case EU_BAD_STRIDE_HI:
        return BAD("%s: param 0x%04x with payload 0x%08x: a stride on %s is 32-bit, bits 39:32 (the "
                   "param's low byte) must repeat bit 31 (0x00, or 0xff for a negative stride)", where,
                   c->param, c->payload, eu_variant_name(v));
    case EU_BAD_RANGE:
        if (f->flags & EU_FL_RANGE_MSG)
            return BAD("%s: %s %llu out of range 0-%llu (param 0x%04x)", where, f->what, r,
                       (unsigned long long)eu_field_max(f, v), c->param);
        return BAD("%s: %s %llu out of range (max %llu)", where, f->what, r,
                   (unsigned long long)eu_field_max(f, v));
    case EU_BAD_BANK:
        return BAD("%s: SHRAM bank %llu out of range (%s has %u banks)", where, r, eu_variant_name(v),
                   eu_variant_shram_banks(v));
    case EU_BAD_VALUE:
        return BAD("%s: %s %llu is reserved (param 0x%04x)", where, f->what, r, c->param);
    case EU_BAD_UNSUPPORTED:
        return BAD("%s: %s %s is not supported (param 0x%04x)", where, eu_field_value_name(f, raw), f->what,
                   c->param);
    case EU_BAD_VALUE_VARIANT: {
        const eu_value_name *n = NULL;
        for (unsigned i = 0; i < f->n_values; i++)
            if (f->values[i].raw == raw) n = &f->values[i];
        return BAD("%s: %s %s is %s-only, not valid on %s (param 0x%04x)", where, n ? n->name : "?", f->what,
                   n && (n->flags & EU_V_U65) ? "U65" : "U55", eu_variant_name(v), c->param);
    }
    case EU_BAD_ALIGN:
        return BAD("%s: 0x%llx is not a multiple of %u", where, r, f->align);
    case EU_OK:
    default:
        return NPUC_OK;
    }
}

int sim_cmd_decode(const uint8_t *stream, size_t size, size_t offset, eu_variant variant,
                   sim_cmd *cmd, npuc_err *err)
{
    return sim_cmd_decode_memo(stream, size, offset, variant, cmd, NULL, err);
}

int sim_cmd_decode_memo(const uint8_t *stream, size_t size, size_t offset, eu_variant variant,
                        sim_cmd *cmd, sim_check_memo *memo, npuc_err *err)
{
    memset(cmd, 0, sizeof *cmd);
    if (offset % 4 || size % 4)
        return npuc_errf(err, NPUC_E_USAGE, "command stream: offset %zu / size %zu not word aligned",
                         offset, size);
    if (offset + 4 > size)
        return BAD("command stream byte 0x%04zx: past the end of the stream (%zu bytes)", offset,
                   size);
    uint32_t w0 = rd32(stream + offset);
    cmd->offset = offset;
    cmd->word0 = w0;
    cmd->code = eu_word_code(w0);
    cmd->opcode = (uint16_t)eu_code_opcode(cmd->code);
    cmd->param = eu_word_param(w0);
    unsigned kind = eu_code_control(cmd->code);
    if (kind > 1)
        return BAD("command stream byte 0x%04zx: word 0x%08x: reserved control bits %u (bits 15:14)",
                   offset, w0, kind);
    if (cmd->code & EU_CODE_RESERVED_MASK)
        return BAD("command stream byte 0x%04zx: word 0x%08x: reserved bits 13:10 set", offset, w0);
    cmd->is_cmd1 = kind == 1;
    const eu_cmd_info *ci = eu_cmd_find(cmd->code);
    if (!ci)
        return BAD("command stream byte 0x%04zx: unknown %s opcode 0x%03x (word 0x%08x)", offset,
                   cmd->is_cmd1 ? "cmd1" : "cmd0", cmd->opcode, w0);
    cmd->name = ci->name;
    cmd->info = ci;
    if (cmd->is_cmd1) {
        if (offset + 8 > size)
            return BAD("command stream byte 0x%04zx: %s: truncated, payload word missing at the end "
                       "of the stream (%zu bytes)", offset, ci->name, size);
        cmd->payload = rd32(stream + offset + 4);
    }
    cmd->operand = eu_operand(w0, cmd->payload);
    if (!eu_cmd_available(ci, variant))
        return BAD("command stream byte 0x%04zx: %s is %s-only, not valid on %s", offset, ci->name,
                   product_name(ci->avail), eu_variant_name(variant));
    uint16_t code1 = (uint16_t)(((unsigned)cmd->is_cmd1 << 10 | cmd->opcode) + 1);
    size_t at = 0;
    if (memo) {
        if (memo->variant != variant) {
            memset(memo->code1, 0, sizeof memo->code1);
            memo->variant = variant;
        }
        uint64_t h = (cmd->operand ^ (uint64_t)code1 << 40) * 0x9E3779B97F4A7C15u;
        at = (size_t)(h >> 51) & (SIM_CHECK_MEMO_SIZE - 1);
        if (memo->code1[at] == code1 && memo->operand[at] == cmd->operand) return NPUC_OK;
    }
    const eu_field *f;
    uint64_t raw;
    eu_check k = eu_cmd_check(ci, cmd->operand, variant, &f, &raw);
    if (k == EU_OK) {
        if (memo) {
            memo->code1[at] = code1;
            memo->operand[at] = cmd->operand;
        }
        return NPUC_OK;
    }
    char where[96];
    snprintf(where, sizeof where, "command stream byte 0x%04zx: %s", offset, ci->name);
    return field_error(cmd, variant, k, f, raw, where, err);
}

int sim_stream_decode(const uint8_t *stream, size_t size, eu_variant variant, sim_cmd **cmds,
                      size_t *n_cmds, npuc_err *err)
{
    *cmds = NULL;
    *n_cmds = 0;
    if (size % 4)
        return BAD("command stream: size %zu is not a multiple of 4", size);
    if (size == 0) return BAD("command stream: empty");
    sim_cmd *arr = malloc((size / 4) * sizeof *arr);
    if (!arr) return npuc_errf(err, NPUC_E_NOMEM, "command stream: out of memory");
    size_t n = 0, pos = 0;
    bool stopped = false;
    while (pos < size) {
        if (stopped) {
            free(arr);
            return BAD("command stream byte 0x%04zx: command after NPU_OP_STOP", pos);
        }
        int rc = sim_cmd_decode(stream, size, pos, variant, &arr[n], err);
        if (rc) { free(arr); return rc; }
        if (arr[n].code == EU_OP_STOP) stopped = true;
        pos += arr[n].is_cmd1 ? 8 : 4;
        n++;
    }
    if (!stopped) {
        free(arr);
        return BAD("command stream byte 0x%04zx: stream ends without NPU_OP_STOP", size);
    }
    *cmds = arr;
    *n_cmds = n;
    return NPUC_OK;
}

/* ------------------------------------------------------------ state */

void sim_state_reset(sim_state *s) { memset(s, 0, sizeof *s); }

int32_t sim_fm_zero_point(const sim_fm *fm)
{
    return fm->is_signed ? (int32_t)(int16_t)fm->zero_point_raw : (int32_t)fm->zero_point_raw;
}

bool sim_state_written(const sim_state *s, uint16_t code)
{
    unsigned k = eu_code_is_cmd1(code), op = eu_code_opcode(code);
    return (s->written[k][op / 32] >> (op % 32)) & 1;
}

/* A field's value in a decoded command (0 if it has none). */
static int64_t fval(const sim_cmd *c, eu_fid id)
{
    const eu_field *f = eu_cmd_field(c->info, id);
    return f ? eu_field_value(f, eu_field_raw(f, c->operand)) : 0;
}

static void set_precision(sim_fm *fm, const sim_cmd *c)
{
    fm->precision = c->param;
    fm->is_signed = fval(c, EU_F_SIGNED);
    fm->bits = (uint8_t)fval(c, EU_F_BITS);
    fm->format = (uint8_t)fval(c, EU_F_FORMAT);
    fm->scale_mode = (uint8_t)fval(c, EU_F_SCALE_MODE);   /* IFM2: none, 0 */
    fm->round_mode = (uint8_t)fval(c, EU_F_ROUND);
}

static void set_region(uint8_t *region, bool *custom_dma, const sim_cmd *c)
{
    *region = (uint8_t)fval(c, EU_F_REGION);
    *custom_dma = fval(c, EU_F_CUSTOM_DMA);
}

sim_cmd_value sim_cmd_value_of(const sim_cmd *c)
{
    /* one-field registers: the value (M1 registers +1, 40-bit addresses),
     * its field looked up once */
    sim_cmd_value x = {0, 0};
    const eu_field *vf = c->info ? eu_cmd_field(c->info, EU_F_VALUE) : NULL;
    if (vf) {
        x.raw = eu_field_raw(vf, c->operand);
        x.value = (uint64_t)eu_field_value(vf, x.raw);
    }
    return x;
}

void sim_state_apply(sim_state *s, const sim_cmd *c, eu_variant variant)
{
    (void)variant;   /* the decoder has checked the command for it */
    sim_state_apply_value(s, c, sim_cmd_value_of(c));
}

void sim_state_apply_value(sim_state *s, const sim_cmd *c, sim_cmd_value x)
{
    {
        unsigned k = c->is_cmd1, op = c->opcode;
        s->written[k][op / 32] |= 1u << (op % 32);
    }
    if (!c->info) return;
    uint64_t v = x.value;
    uint16_t raw16 = (uint16_t)x.raw;
    switch (c->code) {
    case EU_SET_IFM_PAD_TOP: s->pad_top = (uint8_t)v; break;
    case EU_SET_IFM_PAD_LEFT: s->pad_left = (uint8_t)v; break;
    case EU_SET_IFM_PAD_RIGHT: s->pad_right = (uint8_t)v; break;
    case EU_SET_IFM_PAD_BOTTOM: s->pad_bottom = (uint8_t)v; break;
    case EU_SET_IFM_DEPTH_M1: s->ifm.depth = (uint32_t)v; break;
    case EU_SET_IFM_PRECISION: set_precision(&s->ifm, c); break;
    case EU_SET_IFM_UPSCALE: s->upscale = (uint8_t)v; break;
    case EU_SET_IFM_ZERO_POINT: s->ifm.zero_point_raw = raw16; break;
    case EU_SET_IFM_WIDTH0_M1: s->ifm.width0 = (uint32_t)v; break;
    case EU_SET_IFM_HEIGHT0_M1: s->ifm.height0 = (uint32_t)v; break;
    case EU_SET_IFM_HEIGHT1_M1: s->ifm.height1 = (uint32_t)v; break;
    case EU_SET_IFM_IB_END: s->ifm.ib = (uint8_t)v; break;
    case EU_SET_IFM_REGION: set_region(&s->ifm.region, &s->ifm.custom_dma, c); break;
    case EU_SET_OFM_WIDTH_M1: s->ofm.width = (uint32_t)v; break;
    case EU_SET_OFM_HEIGHT_M1: s->ofm.height = (uint32_t)v; break;
    case EU_SET_OFM_DEPTH_M1: s->ofm.depth = (uint32_t)v; break;
    case EU_SET_OFM_PRECISION: set_precision(&s->ofm, c); break;
    case EU_SET_OFM_BLK_WIDTH_M1: s->blk_width = (uint32_t)v; break;
    case EU_SET_OFM_BLK_HEIGHT_M1: s->blk_height = (uint32_t)v; break;
    case EU_SET_OFM_BLK_DEPTH_M1: s->blk_depth = (uint32_t)v; break;
    case EU_SET_OFM_ZERO_POINT: s->ofm.zero_point_raw = raw16; break;
    case EU_SET_OFM_WIDTH0_M1: s->ofm.width0 = (uint32_t)v; break;
    case EU_SET_OFM_HEIGHT0_M1: s->ofm.height0 = (uint32_t)v; break;
    case EU_SET_OFM_HEIGHT1_M1: s->ofm.height1 = (uint32_t)v; break;
    case EU_SET_OFM_REGION: set_region(&s->ofm.region, &s->ofm.custom_dma, c); break;
    case EU_SET_KERNEL_WIDTH_M1: s->kernel_width = (uint32_t)v; break;
    case EU_SET_KERNEL_HEIGHT_M1: s->kernel_height = (uint32_t)v; break;
    case EU_SET_KERNEL_STRIDE:
        s->kernel_stride_raw = c->param;
        s->stride_x = (uint8_t)fval(c, EU_F_STRIDE_X);
        s->stride_y = (uint8_t)fval(c, EU_F_STRIDE_Y);
        s->part_kernel_first = fval(c, EU_F_WEIGHT_ORDER) == EU_PART_KERNEL_FIRST;
        s->dilation_x = (uint8_t)fval(c, EU_F_DILATION_X);
        s->dilation_y = (uint8_t)fval(c, EU_F_DILATION_Y);
        s->decomp_4x4 = fval(c, EU_F_DECOMPOSITION);
        break;
    case EU_SET_PARALLEL_MODE: s->parallel_mode = (uint8_t)v; break;
    case EU_SET_ACC_FORMAT: s->acc_format = (uint8_t)v; break;
    case EU_SET_ACTIVATION:
        s->activation_raw = c->param;
        s->act_func = (uint8_t)fval(c, EU_F_FUNCTION);
        s->act_clip = (uint8_t)fval(c, EU_F_CLIP);
        break;
    case EU_SET_ACTIVATION_MIN: s->act_min = (int16_t)v; break;
    case EU_SET_ACTIVATION_MAX: s->act_max = (int16_t)v; break;
    case EU_SET_WEIGHT_REGION: set_region(&s->weight_region, &s->weight_custom_dma, c); break;
    case EU_SET_SCALE_REGION: set_region(&s->scale_region, &s->scale_custom_dma, c); break;
    case EU_SET_AB_START: s->ab_start = (uint8_t)v; break;
    case EU_SET_BLOCKDEP: s->blockdep = (uint8_t)v; break;
    case EU_SET_DMA0_SRC_REGION:
        s->dma.src_region_raw = c->param;
        s->dma.src_region = (uint8_t)fval(c, EU_F_REGION);
        s->dma.src_internal = fval(c, EU_F_INTERNAL);
        s->dma.src_stride_mode = (uint8_t)fval(c, EU_F_STRIDE_MODE);
        break;
    case EU_SET_DMA0_DST_REGION:
        s->dma.dst_region_raw = c->param;
        s->dma.dst_region = (uint8_t)fval(c, EU_F_REGION);
        s->dma.dst_internal = fval(c, EU_F_INTERNAL);
        s->dma.dst_stride_mode = (uint8_t)fval(c, EU_F_STRIDE_MODE);
        break;
    case EU_SET_DMA0_SIZE0: s->dma.size0 = (uint16_t)v; break;
    case EU_SET_DMA0_SIZE1: s->dma.size1 = (uint16_t)v; break;
    case EU_SET_IFM2_BROADCAST:
        s->ifm2_broadcast_raw = c->param;
        s->bcast_h = fval(c, EU_F_BCAST_H);
        s->bcast_w = fval(c, EU_F_BCAST_W);
        s->bcast_c = fval(c, EU_F_BCAST_C);
        s->ifm2_first = fval(c, EU_F_IFM2_FIRST);
        s->ifm2_scalar = fval(c, EU_F_SCALAR);
        break;
    case EU_SET_IFM2_SCALAR: s->ifm2_scalar_raw = raw16; break;
    case EU_SET_IFM2_PRECISION: set_precision(&s->ifm2, c); break;
    case EU_SET_IFM2_ZERO_POINT: s->ifm2.zero_point_raw = raw16; break;
    case EU_SET_IFM2_WIDTH0_M1: s->ifm2.width0 = (uint32_t)v; break;
    case EU_SET_IFM2_HEIGHT0_M1: s->ifm2.height0 = (uint32_t)v; break;
    case EU_SET_IFM2_HEIGHT1_M1: s->ifm2.height1 = (uint32_t)v; break;
    case EU_SET_IFM2_IB_START: s->ifm2.ib = (uint8_t)v; break;
    case EU_SET_IFM2_REGION: set_region(&s->ifm2.region, &s->ifm2.custom_dma, c); break;
    /* cmd1 */
    case EU_SET_IFM_BASE0: case EU_SET_IFM_BASE1: case EU_SET_IFM_BASE2: case EU_SET_IFM_BASE3:
        s->ifm.base[c->code - EU_SET_IFM_BASE0] = v; break;
    case EU_SET_IFM_STRIDE_X: s->ifm.stride_x = (int64_t)v; break;
    case EU_SET_IFM_STRIDE_Y: s->ifm.stride_y = (int64_t)v; break;
    case EU_SET_IFM_STRIDE_C: s->ifm.stride_c = (int64_t)v; break;
    case EU_SET_OFM_BASE0: case EU_SET_OFM_BASE1: case EU_SET_OFM_BASE2: case EU_SET_OFM_BASE3:
        s->ofm.base[c->code - EU_SET_OFM_BASE0] = v; break;
    case EU_SET_OFM_STRIDE_X: s->ofm.stride_x = (int64_t)v; break;
    case EU_SET_OFM_STRIDE_Y: s->ofm.stride_y = (int64_t)v; break;
    case EU_SET_OFM_STRIDE_C: s->ofm.stride_c = (int64_t)v; break;
    case EU_SET_WEIGHT_BASE: s->weight_base[0] = v; break;
    case EU_SET_WEIGHT_LENGTH: s->weight_length[0] = v; break;
    case EU_SET_SCALE_BASE: s->scale_base[0] = v; break;
    case EU_SET_SCALE_LENGTH: s->scale_length[0] = v; break;
    case EU_SET_WEIGHT1_BASE: s->weight_base[1] = v; break;
    case EU_SET_WEIGHT1_LENGTH: s->weight_length[1] = v; break;
    case EU_SET_SCALE1_BASE: s->scale_base[1] = v; break;
    case EU_SET_SCALE1_LENGTH: s->scale_length[1] = v; break;
    case EU_SET_OFM_SCALE:
        s->ofm_scale = (uint32_t)fval(c, EU_F_SCALE);
        s->ofm_shift = (uint8_t)fval(c, EU_F_SHIFT);
        break;
    case EU_SET_OPA_SCALE:
        s->opa_scale = (uint32_t)fval(c, EU_F_SCALE);
        s->opa_shift = (uint8_t)fval(c, EU_F_SHIFT);
        break;
    case EU_SET_OPB_SCALE: s->opb_scale = (uint32_t)fval(c, EU_F_SCALE); break;
    case EU_SET_DMA0_SRC: s->dma.src = v; break;
    case EU_SET_DMA0_DST: s->dma.dst = v; break;
    case EU_SET_DMA0_LEN: s->dma.len = v; break;
    case EU_SET_DMA0_SKIP0: s->dma.skip0 = v; break;
    case EU_SET_DMA0_SKIP1: s->dma.skip1 = v; break;
    case EU_SET_IFM2_BASE0: case EU_SET_IFM2_BASE1: case EU_SET_IFM2_BASE2: case EU_SET_IFM2_BASE3:
        s->ifm2.base[c->code - EU_SET_IFM2_BASE0] = v; break;
    case EU_SET_IFM2_STRIDE_X: s->ifm2.stride_x = (int64_t)v; break;
    case EU_SET_IFM2_STRIDE_Y: s->ifm2.stride_y = (int64_t)v; break;
    case EU_SET_IFM2_STRIDE_C: s->ifm2.stride_c = (int64_t)v; break;
    default:
        if (c->code >= EU_SET_USER_DEFINED0 && c->code < EU_SET_USER_DEFINED0 + EU_N_USER_DEFINED)
            s->user_defined[c->code - EU_SET_USER_DEFINED0] = c->payload;
        break; /* operations: no register effect */
    }
}

/* ------------------------------------------------------------ trace */

/* The fields of a command as the table labels them: "s8 NHWC scale_mode=0
 * round=TFL", "stride=1x2 dilation=1x1 depth_first decomp=8x8". */
static void describe(const sim_cmd *c, char *d, size_t n)
{
    size_t k = 0;
    d[0] = 0;
    for (unsigned i = 0; c->info && i < c->info->n_fields && k < n; i++) {
        const eu_field *f = &c->info->fields[i];
        uint64_t raw = eu_field_raw(f, c->operand);
        const char *name = f->n_values && !(f->flags & EU_FL_NUM) ? eu_field_value_name(f, raw) : NULL;
        if (name && !*name) continue;   /* a clear flag: nothing to show */
        char v[64];
        if (name) {
            snprintf(v, sizeof v, "%s", name);
        } else if (f->kind == EU_K_STRIDE && eu_field_value(f, raw) < 0) {
            snprintf(v, sizeof v, "%lld (0x%010llx)", (long long)eu_field_value(f, raw), (unsigned long long)raw);
        } else if (f->kind == EU_K_SINT) {
            snprintf(v, sizeof v, "%lld (0x%04llx)", (long long)eu_field_value(f, raw), (unsigned long long)raw);
        } else if (f->flags & EU_FL_HEX) {
            int digits = f->max <= 0xFFFF ? 4 : raw > 0xFFFFFFFFu ? 10 : 8;
            snprintf(v, sizeof v, "0x%0*llx (%llu)", digits, (unsigned long long)raw, (unsigned long long)raw);
        } else {
            snprintf(v, sizeof v, "%lld", (long long)eu_field_value(f, raw));
        }
        int w = snprintf(d + k, n - k, "%s%s", k ? f->label : f->label + (f->label[0] == ' '), v);
        if (w < 0) break;
        k += (size_t)w;
    }
    if (!d[0] && c->info && c->info->n_fields) snprintf(d, n, "none");
}

int sim_cmd_format(const sim_cmd *c, char *buf, size_t size)
{
    char d[128];
    describe(c, d, sizeof d);
    char words[24];
    if (c->is_cmd1) snprintf(words, sizeof words, "%08x %08x", c->word0, c->payload);
    else snprintf(words, sizeof words, "%08x", c->word0);
    return snprintf(buf, size, "0x%04zx  %-17s  %s %-26s %s", c->offset, words,
                    c->is_cmd1 ? "cmd1" : "cmd0", c->name ? c->name : "?", d);
}
