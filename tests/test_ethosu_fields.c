/* The command table of src/ethosu/eu_cmd.h, walked field by field: every
 * field of every command, on every variant that has it, over its allowed
 * values (every listed value, or the edges of its range), goes
 *   pack (EU_PACK) -> words -> the simulator's decoder (sim_cmd_decode) ->
 *   its register state (sim_state_apply) -> unpack
 * and comes back with the same value, the same name, in the state member
 * the executor reads; the values just outside are refused by the decoder.
 * Plus: the table's shape (sorted, unique codes and names), the typed
 * packers, and the COP1 writer against both parsers. */
#include "test.h"
#include "../src/ethosu/eu_cmd.h"
#include "../src/ethosu/eu_cop1.h"
#include "../src/sim/sim.h"

static const char *vname(eu_variant v) { return eu_variant_name(v); }

/* The words of one command as stream bytes. */
static size_t to_bytes(uint16_t code, uint64_t operand, uint8_t *b)
{
    uint32_t w[2];
    unsigned n = eu_cmd_words(code, operand, w);
    for (unsigned i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) b[4 * i + (unsigned)k] = (uint8_t)(w[i] >> (8 * k));
    return 4 * n;
}

static int decode(uint16_t code, uint64_t operand, eu_variant v, sim_cmd *c, npuc_err *e)
{
    uint8_t b[8];
    size_t n = to_bytes(code, operand, b);
    return sim_cmd_decode(b, n, 0, v, c, e);
}

/* Where sim_state_apply put field `id` of command `code`, as the field's
 * value; *known = false for what the state does not keep (operations). */
static int64_t state_value(const sim_state *s, const eu_cmd_info *c, const eu_field *f, uint64_t operand,
                           bool *known)
{
    *known = true;
    const sim_fm *fm = NULL;
    switch (c->code) {
    case EU_SET_IFM_PRECISION: case EU_SET_IFM_ZERO_POINT: case EU_SET_IFM_WIDTH0_M1:
    case EU_SET_IFM_HEIGHT0_M1: case EU_SET_IFM_HEIGHT1_M1: case EU_SET_IFM_IB_END:
    case EU_SET_IFM_REGION: case EU_SET_IFM_DEPTH_M1:
        fm = &s->ifm; break;
    case EU_SET_OFM_PRECISION: case EU_SET_OFM_ZERO_POINT: case EU_SET_OFM_WIDTH0_M1:
    case EU_SET_OFM_HEIGHT0_M1: case EU_SET_OFM_HEIGHT1_M1: case EU_SET_OFM_REGION:
    case EU_SET_OFM_WIDTH_M1: case EU_SET_OFM_HEIGHT_M1: case EU_SET_OFM_DEPTH_M1:
        fm = &s->ofm; break;
    case EU_SET_IFM2_PRECISION: case EU_SET_IFM2_ZERO_POINT: case EU_SET_IFM2_WIDTH0_M1:
    case EU_SET_IFM2_HEIGHT0_M1: case EU_SET_IFM2_HEIGHT1_M1: case EU_SET_IFM2_IB_START:
    case EU_SET_IFM2_REGION:
        fm = &s->ifm2; break;
    default: break;
    }
    switch (c->code) {
    case EU_SET_IFM_PAD_TOP: return s->pad_top;
    case EU_SET_IFM_PAD_LEFT: return s->pad_left;
    case EU_SET_IFM_PAD_RIGHT: return s->pad_right;
    case EU_SET_IFM_PAD_BOTTOM: return s->pad_bottom;
    case EU_SET_IFM_DEPTH_M1: return s->ifm.depth;
    case EU_SET_IFM_PRECISION: case EU_SET_OFM_PRECISION: case EU_SET_IFM2_PRECISION:
        switch (f->id) {
        case EU_F_SIGNED: return fm->is_signed;
        case EU_F_BITS: return fm->bits;
        case EU_F_FORMAT: return fm->format;
        case EU_F_SCALE_MODE: return fm->scale_mode;
        case EU_F_ROUND: return fm->round_mode;
        default: break;
        }
        break;
    case EU_SET_IFM_UPSCALE: return s->upscale;
    case EU_SET_IFM_ZERO_POINT: case EU_SET_OFM_ZERO_POINT: case EU_SET_IFM2_ZERO_POINT:
        return (int16_t)fm->zero_point_raw;
    case EU_SET_IFM_WIDTH0_M1: case EU_SET_OFM_WIDTH0_M1: case EU_SET_IFM2_WIDTH0_M1: return fm->width0;
    case EU_SET_IFM_HEIGHT0_M1: case EU_SET_OFM_HEIGHT0_M1: case EU_SET_IFM2_HEIGHT0_M1: return fm->height0;
    case EU_SET_IFM_HEIGHT1_M1: case EU_SET_OFM_HEIGHT1_M1: case EU_SET_IFM2_HEIGHT1_M1: return fm->height1;
    case EU_SET_IFM_IB_END: case EU_SET_IFM2_IB_START: return fm->ib;
    case EU_SET_IFM_REGION: case EU_SET_OFM_REGION: case EU_SET_IFM2_REGION:
        return f->id == EU_F_REGION ? fm->region : fm->custom_dma;
    case EU_SET_OFM_WIDTH_M1: return s->ofm.width;
    case EU_SET_OFM_HEIGHT_M1: return s->ofm.height;
    case EU_SET_OFM_DEPTH_M1: return s->ofm.depth;
    case EU_SET_OFM_BLK_WIDTH_M1: return s->blk_width;
    case EU_SET_OFM_BLK_HEIGHT_M1: return s->blk_height;
    case EU_SET_OFM_BLK_DEPTH_M1: return s->blk_depth;
    case EU_SET_KERNEL_WIDTH_M1: return s->kernel_width;
    case EU_SET_KERNEL_HEIGHT_M1: return s->kernel_height;
    case EU_SET_KERNEL_STRIDE:
        switch (f->id) {
        case EU_F_STRIDE_X: return s->stride_x;
        case EU_F_STRIDE_Y: return s->stride_y;
        case EU_F_DILATION_X: return s->dilation_x;
        case EU_F_DILATION_Y: return s->dilation_y;
        case EU_F_WEIGHT_ORDER: return s->part_kernel_first ? EU_PART_KERNEL_FIRST : EU_DEPTH_FIRST;
        case EU_F_DECOMPOSITION: return s->decomp_4x4;
        default: break;
        }
        break;
    case EU_SET_PARALLEL_MODE: return s->parallel_mode;
    case EU_SET_ACC_FORMAT: return s->acc_format;
    case EU_SET_ACTIVATION: return f->id == EU_F_FUNCTION ? s->act_func : s->act_clip;
    case EU_SET_ACTIVATION_MIN: return s->act_min;
    case EU_SET_ACTIVATION_MAX: return s->act_max;
    case EU_SET_WEIGHT_REGION: return f->id == EU_F_REGION ? s->weight_region : s->weight_custom_dma;
    case EU_SET_SCALE_REGION: return f->id == EU_F_REGION ? s->scale_region : s->scale_custom_dma;
    case EU_SET_AB_START: return s->ab_start;
    case EU_SET_BLOCKDEP: return s->blockdep;
    case EU_SET_DMA0_SRC_REGION: case EU_SET_DMA0_DST_REGION: {
        bool src = c->code == EU_SET_DMA0_SRC_REGION;
        switch (f->id) {
        case EU_F_REGION: return src ? s->dma.src_region : s->dma.dst_region;
        case EU_F_INTERNAL: return src ? s->dma.src_internal : s->dma.dst_internal;
        case EU_F_STRIDE_MODE: return src ? s->dma.src_stride_mode : s->dma.dst_stride_mode;
        default:   /* kept only in the raw param */
            return eu_field_value(f, eu_field_raw(f, src ? s->dma.src_region_raw : s->dma.dst_region_raw));
        }
    }
    case EU_SET_DMA0_SIZE0: return s->dma.size0;
    case EU_SET_DMA0_SIZE1: return s->dma.size1;
    case EU_SET_IFM2_BROADCAST:
        switch (f->id) {
        case EU_F_BCAST_H: return s->bcast_h;
        case EU_F_BCAST_W: return s->bcast_w;
        case EU_F_BCAST_C: return s->bcast_c;
        case EU_F_IFM2_FIRST: return s->ifm2_first;
        case EU_F_SCALAR: return s->ifm2_scalar;
        default: break;
        }
        break;
    case EU_SET_IFM2_SCALAR: return (int16_t)s->ifm2_scalar_raw;
    case EU_SET_IFM_BASE0: case EU_SET_IFM_BASE1: case EU_SET_IFM_BASE2: case EU_SET_IFM_BASE3:
        return (int64_t)s->ifm.base[c->code - EU_SET_IFM_BASE0];
    case EU_SET_OFM_BASE0: case EU_SET_OFM_BASE1: case EU_SET_OFM_BASE2: case EU_SET_OFM_BASE3:
        return (int64_t)s->ofm.base[c->code - EU_SET_OFM_BASE0];
    case EU_SET_IFM2_BASE0: case EU_SET_IFM2_BASE1: case EU_SET_IFM2_BASE2: case EU_SET_IFM2_BASE3:
        return (int64_t)s->ifm2.base[c->code - EU_SET_IFM2_BASE0];
    case EU_SET_IFM_STRIDE_X: return (int64_t)s->ifm.stride_x;
    case EU_SET_IFM_STRIDE_Y: return (int64_t)s->ifm.stride_y;
    case EU_SET_IFM_STRIDE_C: return (int64_t)s->ifm.stride_c;
    case EU_SET_OFM_STRIDE_X: return (int64_t)s->ofm.stride_x;
    case EU_SET_OFM_STRIDE_Y: return (int64_t)s->ofm.stride_y;
    case EU_SET_OFM_STRIDE_C: return (int64_t)s->ofm.stride_c;
    case EU_SET_IFM2_STRIDE_X: return (int64_t)s->ifm2.stride_x;
    case EU_SET_IFM2_STRIDE_Y: return (int64_t)s->ifm2.stride_y;
    case EU_SET_IFM2_STRIDE_C: return (int64_t)s->ifm2.stride_c;
    case EU_SET_WEIGHT_BASE: return (int64_t)s->weight_base[0];
    case EU_SET_WEIGHT_LENGTH: return (int64_t)s->weight_length[0];
    case EU_SET_SCALE_BASE: return (int64_t)s->scale_base[0];
    case EU_SET_SCALE_LENGTH: return (int64_t)s->scale_length[0];
    case EU_SET_WEIGHT1_BASE: return (int64_t)s->weight_base[1];
    case EU_SET_WEIGHT1_LENGTH: return (int64_t)s->weight_length[1];
    case EU_SET_SCALE1_BASE: return (int64_t)s->scale_base[1];
    case EU_SET_SCALE1_LENGTH: return (int64_t)s->scale_length[1];
    case EU_SET_OFM_SCALE: return f->id == EU_F_SCALE ? s->ofm_scale : s->ofm_shift;
    case EU_SET_OPA_SCALE: return f->id == EU_F_SCALE ? s->opa_scale : s->opa_shift;
    case EU_SET_OPB_SCALE: return s->opb_scale;
    case EU_SET_DMA0_SRC: return (int64_t)s->dma.src;
    case EU_SET_DMA0_DST: return (int64_t)s->dma.dst;
    case EU_SET_DMA0_LEN: return (int64_t)s->dma.len;
    case EU_SET_DMA0_SKIP0: return (int64_t)s->dma.skip0;
    case EU_SET_DMA0_SKIP1: return (int64_t)s->dma.skip1;
    default:
        if (c->code >= EU_SET_USER_DEFINED0 && c->code < EU_SET_USER_DEFINED0 + EU_N_USER_DEFINED)
            /* the payload word; the param is not kept */
            return (int64_t)(s->user_defined[c->code - EU_SET_USER_DEFINED0] | (operand >> 32) << 32);
        break;
    }
    *known = false;
    return 0;
}

/* One valid value of one field: pack, decode, apply, unpack. */
static void round_trip(const eu_cmd_info *c, const eu_field *f, uint64_t raw, eu_variant v)
{
    int64_t value = eu_field_value(f, raw);
    CHECK_EQ_INT(eu_field_encode(f, value), raw);
    eu_fv fv = {f->id, value};
    uint64_t operand = eu_pack(c->code, 1, &fv);
    CHECK_EQ_INT(eu_field_raw(f, operand), raw);
    sim_cmd cmd;
    npuc_err e = {0};
    int rc = decode(c->code, operand, v, &cmd, &e);
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) {
        fprintf(stderr, "  %s.%s raw %llu on %s: %s\n", c->name, f->name, (unsigned long long)raw, vname(v),
                e.msg);
        return;
    }
    CHECK_EQ_INT(cmd.code, c->code);
    CHECK(cmd.info == c);
    CHECK(strcmp(cmd.name, c->name) == 0);
    CHECK_EQ_INT(cmd.operand, operand);
    CHECK_EQ_INT(cmd.is_cmd1, eu_code_is_cmd1(c->code));
    /* every field reads back: this one its value, the others 0 raw */
    for (unsigned i = 0; i < c->n_fields; i++) {
        const eu_field *g = &c->fields[i];
        CHECK_EQ_INT(eu_field_raw(g, cmd.operand), g == f ? raw : 0);
    }
    CHECK_EQ_INT(eu_unpack(c->code, (eu_fid)f->id, cmd.operand), value);
    /* the register state keeps it where the executor reads it */
    sim_state st;
    sim_state_reset(&st);
    sim_state_apply(&st, &cmd, v);
    CHECK(sim_state_written(&st, c->code));
    bool known;
    int64_t got = state_value(&st, c, f, operand, &known);
    if (known) {
        CHECK_EQ_INT(got, value);
        if (got != value)
            fprintf(stderr, "  %s.%s = %lld on %s: state has %lld\n", c->name, f->name, (long long)value,
                    vname(v), (long long)got);
    }
    /* names: the field by its name, the value by its name, in the trace */
    if (c->n_fields) {
        CHECK(eu_cmd_field_named(c, f->name) == f);
        CHECK(eu_cmd_field(c, (eu_fid)f->id) == f);
    }
    const char *name = eu_field_value_name(f, raw);
    char line[200];
    sim_cmd_format(&cmd, line, sizeof line);
    CHECK_STR_CONTAINS(line, c->name);
    if (name) {
        uint64_t back = ~0ull;
        CHECK_EQ_INT(eu_field_value_by_name(f, name, &back), 0);
        CHECK_EQ_INT(back, raw);
        if (*name && !(f->flags & EU_FL_NUM)) CHECK_STR_CONTAINS(line, name);
    }
}

/* A value the decoder must refuse on v. */
static void refused(const eu_cmd_info *c, uint64_t operand, eu_variant v, const char *why)
{
    sim_cmd cmd;
    npuc_err e = {0};
    int rc = decode(c->code, operand, v, &cmd, &e);
    CHECK_EQ_INT(rc, NPUC_E_FORMAT);
    if (rc != NPUC_E_FORMAT)
        fprintf(stderr, "  %s operand 0x%llx on %s (%s) was accepted\n", c->name, (unsigned long long)operand,
                vname(v), why);
    else
        CHECK_STR_CONTAINS(e.msg, c->name);
}

static bool field_here(const eu_field *f, eu_variant v)
{
    return f->avail == EU_AV_ALL || (f->avail == EU_AV_U65) == eu_variant_is_u65(v);
}

static int n_values_tried;

static void test_field(const eu_cmd_info *c, const eu_field *f, eu_variant v)
{
    unsigned total = f->width + f->width_hi;
    uint64_t all = total >= 64 ? ~0ull : (1ull << total) - 1;
    if (!field_here(f, v)) {
        round_trip(c, f, 0, v);
        refused(c, eu_field_set_raw(f, 0, 1), v, "field of the other product");
        return;
    }
    if (f->flags & EU_FL_LIST) {
        for (unsigned i = 0; i < f->n_values; i++) {
            const eu_value_name *n = &f->values[i];
            bool ok = !(n->flags & EU_V_UNSUPPORTED) &&
                      !((n->flags & EU_V_U65) && !eu_variant_is_u65(v)) &&
                      !((n->flags & EU_V_U55) && eu_variant_is_u65(v));
            if (ok) round_trip(c, f, n->raw, v), n_values_tried++;
            else refused(c, eu_field_set_raw(f, 0, n->raw), v, n->name);
        }
        /* every other raw value is reserved */
        for (uint64_t raw = 0; raw <= all && total <= 8; raw++)
            if (!eu_field_value_name(f, raw)) refused(c, eu_field_set_raw(f, 0, raw), v, "reserved value");
        return;
    }
    uint64_t max = eu_field_max(f, v), step = f->align ? f->align : 1;
    CHECK(max <= all);
    uint64_t edges[] = {0, step, max / 2, max - 1, max};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        uint64_t raw = edges[i] / step * step;
        if (raw > max) continue;
        round_trip(c, f, raw, v);
        n_values_tried++;
    }
    if (max < all) refused(c, eu_field_set_raw(f, 0, max + 1), v, "above the maximum");
    if (f->align) refused(c, eu_field_set_raw(f, 0, f->align / 2), v, "misaligned");
}

static void test_table(void)
{
    int n_fields = 0;
    for (size_t i = 0; i < eu_n_cmds; i++) {
        const eu_cmd_info *c = &eu_cmds[i];
        if (i) CHECK(eu_cmds[i - 1].code < c->code);   /* sorted, unique */
        CHECK(eu_cmd_find(c->code) == c);
        CHECK(strcmp(eu_cmd_name(c->code), c->name) == 0);
        CHECK(!strncmp(c->name, eu_code_opcode(c->code) < 0x100 && !eu_code_is_cmd1(c->code) ? "NPU_OP_" : "NPU_SET_", 7));
        CHECK_EQ_INT(c->code & EU_CODE_RESERVED_MASK, 0);
        for (size_t j = 0; j < i; j++) CHECK(strcmp(eu_cmds[j].name, c->name) != 0);
        uint64_t covered = 0;
        for (unsigned k = 0; k < c->n_fields; k++) {
            const eu_field *f = &c->fields[k];
            n_fields++;
            CHECK(f->name && f->what && f->label);
            CHECK(f->width > 0);
            CHECK(f->shift + f->width <= (eu_code_is_cmd1(c->code) ? 48 : 16));
            uint64_t m = ((1ull << f->width) - 1) << f->shift;
            if (f->width_hi) m |= ((1ull << f->width_hi) - 1) << f->shift_hi;
            CHECK_EQ_INT(covered & m, 0);   /* fields do not overlap */
            covered |= m;
            for (unsigned j = 0; j < k; j++) {
                CHECK(strcmp(c->fields[j].name, f->name) != 0);
                CHECK(c->fields[j].id != f->id);
            }
            for (unsigned j = 0; j < f->n_values; j++)
                for (unsigned q = 0; q < j; q++) {
                    CHECK(f->values[q].raw != f->values[j].raw);
                    CHECK(!*f->values[j].name || strcmp(f->values[q].name, f->values[j].name) != 0);
                }
        }
        CHECK_EQ_INT(covered & eu_cmd_reserved_bits(c), 0);
    }
    /* no code outside the table decodes */
    int found = 0;
    for (uint32_t code = 0; code < 0x10000; code++) found += eu_cmd_find((uint16_t)code) != NULL;
    CHECK_EQ_INT(found, (long long)eu_n_cmds);
    printf("%zu commands, %d fields\n", eu_n_cmds, n_fields);
}

static void test_round_trips(void)
{
    for (size_t i = 0; i < eu_n_cmds; i++) {
        const eu_cmd_info *c = &eu_cmds[i];
        for (int vi = 0; vi < EU_N_VARIANTS; vi++) {
            eu_variant v = (eu_variant)vi;
            if (!eu_cmd_available(c, v)) {
                refused(c, 0, v, "command of the other product");
                continue;
            }
            for (unsigned k = 0; k < c->n_fields; k++) test_field(c, &c->fields[k], v);
            /* a command without fields carries 0 */
            if (!c->n_fields) round_trip(c, &(eu_field){.name = "", .what = "", .label = ""}, 0, v);
            /* reserved bits, one at a time */
            uint64_t res = eu_cmd_reserved_bits(c);
            for (int b = 0; b < 48; b++)
                if (res >> b & 1) refused(c, 1ull << b, v, "reserved bit");
        }
    }
    printf("%d field values round-tripped\n", n_values_tried);
}

/* The typed packers are the generic pack of the same values. */
static void test_packers(void)
{
    static const uint16_t prec[] = {EU_SET_IFM_PRECISION, EU_SET_OFM_PRECISION, EU_SET_IFM2_PRECISION};
    for (int i = 0; i < 3; i++)
        for (unsigned bits = 8; bits <= 32; bits *= 2) {
            uint64_t op = eu_pack_precision(prec[i], true, bits, EU_FMT_NHCWB16, 1, EU_ROUND_NATURAL);
            CHECK_EQ_INT(eu_unpack(prec[i], EU_F_BITS, op), bits);
            CHECK_EQ_INT(eu_unpack(prec[i], EU_F_SIGNED, op), 1);
            CHECK_EQ_INT(eu_unpack(prec[i], EU_F_FORMAT, op), EU_FMT_NHCWB16);
            CHECK_EQ_INT(eu_unpack(prec[i], EU_F_ROUND, op), prec[i] == EU_SET_IFM2_PRECISION ? 0 : EU_ROUND_NATURAL);
        }
    for (unsigned sx = 1; sx <= 4; sx++)
        for (unsigned sy = 1; sy <= 4; sy++) {
            uint64_t op = eu_pack_kernel_stride(sx, sy, 2, 1, true);
            CHECK_EQ_INT(eu_unpack(EU_SET_KERNEL_STRIDE, EU_F_STRIDE_X, op), sx);
            CHECK_EQ_INT(eu_unpack(EU_SET_KERNEL_STRIDE, EU_F_STRIDE_Y, op), sy);
            CHECK_EQ_INT(eu_unpack(EU_SET_KERNEL_STRIDE, EU_F_DILATION_X, op), 2);
            CHECK_EQ_INT(eu_unpack(EU_SET_KERNEL_STRIDE, EU_F_DILATION_Y, op), 1);
            CHECK_EQ_INT(eu_unpack(EU_SET_KERNEL_STRIDE, EU_F_WEIGHT_ORDER, op), EU_PART_KERNEL_FIRST);
        }
    /* the one in person_detect's stream (docs/ethos-u.md 11.2): stride 1x2, part-kernel-first */
    CHECK_EQ_INT(eu_pack_kernel_stride(1, 2, 1, 1, true), 0x0006);
    uint64_t a = eu_pack_activation(EU_ACT_LUT0 + 5, EU_CLIP_INT16);
    CHECK_EQ_INT(eu_unpack(EU_SET_ACTIVATION, EU_F_FUNCTION, a), EU_ACT_LUT0 + 5);
    CHECK_EQ_INT(eu_unpack(EU_SET_ACTIVATION, EU_F_CLIP, a), EU_CLIP_INT16);
    uint64_t b = eu_pack_broadcast(true, false, true, true, false);
    CHECK_EQ_INT(eu_unpack(EU_SET_IFM2_BROADCAST, EU_F_BCAST_H, b) + eu_unpack(EU_SET_IFM2_BROADCAST, EU_F_BCAST_C, b) +
                     eu_unpack(EU_SET_IFM2_BROADCAST, EU_F_IFM2_FIRST, b), 3);
    CHECK_EQ_INT(eu_unpack(EU_SET_IFM2_BROADCAST, EU_F_BCAST_W, b) + eu_unpack(EU_SET_IFM2_BROADCAST, EU_F_SCALAR, b), 0);
    CHECK_EQ_INT(eu_unpack(EU_SET_OFM_REGION, EU_F_REGION, eu_pack_region(EU_SET_OFM_REGION, 6)), 6);
    uint64_t d = eu_pack_dma_region(EU_SET_DMA0_DST_REGION, 3, true, EU_DMA_1D);
    CHECK_EQ_INT(d, 0x103);   /* what Vela writes for a LUT load (2.3) */
    CHECK(eu_param_dma_internal((uint16_t)d) && eu_param_region((uint16_t)d) == 3);
    uint64_t s = eu_pack_scale(EU_SET_OFM_SCALE, 0xE38E38E5u, 37);
    CHECK_EQ_INT(eu_unpack(EU_SET_OFM_SCALE, EU_F_SCALE, s), 0xE38E38E5u);
    CHECK_EQ_INT(eu_unpack(EU_SET_OFM_SCALE, EU_F_SHIFT, s), 37);
    CHECK_EQ_INT(eu_pack1(EU_SET_IFM_DEPTH_M1, 16), 15);
    CHECK_EQ_INT(eu_pack1(EU_SET_IFM_ZERO_POINT, -3), 0xFFFD);
    CHECK_EQ_INT(eu_unpack(EU_SET_IFM_ZERO_POINT, EU_F_VALUE, 0xFFFD), -3);
    CHECK_EQ_INT(eu_pack1(EU_SET_IFM_BASE0, 0x12345678ABull), 0x12345678ABull);
    /* a word round trip: word0 = param << 16 | code */
    uint32_t w[2];
    CHECK_EQ_INT(eu_cmd_words(EU_OP_STOP, 0xFFFF, w), 1);
    CHECK_EQ_INT(w[0], 0xFFFF0000u);
    CHECK_EQ_INT(eu_cmd_words(EU_SET_IFM_BASE1, 0x12345678ABull, w), 2);
    CHECK_EQ_INT(w[0], 0x00124001u);
    CHECK_EQ_INT(w[1], 0x345678ABu);
    CHECK_EQ_INT(eu_operand(w[0], w[1]), 0x12345678ABull);
}

/* eu_cop1_write's payload through eu_cop1_parse and sim_cop1_parse. */
static void test_cop1(void)
{
    for (size_t n = 1; n <= 9; n++) {
        uint32_t stream[9];
        for (size_t i = 0; i < n; i++) stream[i] = (uint32_t)(0x1000 + i);
        uint32_t p[32];
        size_t words = eu_cop1_write(p, eu_variant_config_word(EU_U55_128), EU_ID_VELA, stream, n);
        CHECK_EQ_INT(words, eu_cop1_words(n));
        CHECK_EQ_INT(p[0], EU_COP1_MAGIC);
        uint8_t b[128];
        for (size_t i = 0; i < words; i++)
            for (int k = 0; k < 4; k++) b[4 * i + (size_t)k] = (uint8_t)(p[i] >> (8 * k));
        eu_cop1 c;
        CHECK_EQ_INT(eu_cop1_parse(b, 4 * words, &c), EU_COP1_OK);
        CHECK(c.has_config);
        CHECK_EQ_INT(eu_cop1_config_rel(c.config_param), EU_COP1_CONFIG_REL);
        CHECK_EQ_INT(eu_cop1_config_patch(c.config_param), EU_COP1_CONFIG_PATCH);
        CHECK_EQ_INT(c.config, eu_variant_config_word(EU_U55_128));
        CHECK_EQ_INT(c.id, EU_ID_VELA);
        CHECK_EQ_INT(c.stream_words, n);
        CHECK_EQ_INT(c.stream_offset % EU_COP1_ALIGN, 0);
        CHECK_EQ_INT(c.stream_offset, 32);   /* Vela: 3 NOPs, stream at byte 32 (9.1) */
        for (size_t i = 0; i < n; i++) CHECK_EQ_INT(p[c.stream_offset / 4 + i], stream[i]);
        sim_cop1 sc;
        npuc_err e = {0};
        CHECK_EQ_INT(sim_cop1_parse(b, 4 * words, &sc, &e), NPUC_OK);
        CHECK_EQ_INT(sc.stream_size, 4 * n);
        CHECK(sc.stream == b + 32);
        CHECK_EQ_INT(sc.n_nops, 3);
        /* cut short: the stream runs past the end */
        CHECK_EQ_INT(eu_cop1_parse(b, 4 * words - 4, &c), EU_COP1_E_STREAM_PAST_END);
        /* the first word is the magic */
        b[0] ^= 1;
        CHECK_EQ_INT(eu_cop1_parse(b, 4 * words, &c), EU_COP1_E_MAGIC);
    }
}

int main(void)
{
    test_table();
    test_round_trips();
    test_packers();
    test_cop1();
    TEST_MAIN_END();
}
