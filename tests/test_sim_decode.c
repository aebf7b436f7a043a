/* Virtual NPU, first layer: COP1 payload, command-stream decoder, register
 * state, MLW weight streams and scale records, on Vela-compiled models and on
 * synthetic error cases. */
#include "test.h"

#include "sim/sim.h"
#include "tflite/tflite.h"

#include <dirent.h>
#include <stdint.h>

/* ---------------------------------------------------------- helpers */

static void put32(uint8_t *p, uint32_t w)
{
    p[0] = (uint8_t)w; p[1] = (uint8_t)(w >> 8); p[2] = (uint8_t)(w >> 16); p[3] = (uint8_t)(w >> 24);
}

static size_t words_to_bytes(const uint32_t *w, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) put32(out + 4 * i, w[i]);
    return 4 * n;
}

/* Decodes a synthetic stream and returns the error code; message in err. */
static int decode_words(const uint32_t *w, size_t n, eu_variant v, npuc_err *err)
{
    uint8_t buf[256];
    size_t size = words_to_bytes(w, n, buf);
    sim_cmd *cmds = NULL;
    size_t nc = 0;
    int rc = sim_stream_decode(buf, size, v, &cmds, &nc, err);
    free(cmds);
    return rc;
}

/* Bit writer for synthetic MLW streams. */
typedef struct bw { uint8_t b[4096]; size_t pos; } bw;
static void bw_put(bw *w, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, w->pos++)
        if ((v >> i) & 1) w->b[w->pos >> 3] |= (uint8_t)(1u << (w->pos & 7));
}

/* The "simplest valid encoding" of docs/ethos-u.md 6.3: one uncompressed slice of
 * 9-bit sign-magnitude codes, end marker, 0xFF padding to 16 bytes. */
static size_t mlw_encode_plain(const int16_t *w, size_t n, uint8_t *out)
{
    bw b;
    memset(&b, 0, sizeof b);
    bw_put(&b, 6, 3);                /* ZDIV: no zero runs */
    bw_put(&b, (uint32_t)(n - 1), 15);
    bw_put(&b, 7, 3);                /* WDIV: uncompressed */
    bw_put(&b, 0, 1);                /* WTRUNC */
    bw_put(&b, 1, 1);                /* NEWPAL */
    bw_put(&b, 0, 5);                /* DIROFS */
    bw_put(&b, 0, 5);                /* PALSIZE: none */
    bw_put(&b, 7, 3);                /* PALBITS: 9-bit codes */
    for (size_t i = 0; i < n; i++) {
        int x = w[i];
        bw_put(&b, (uint32_t)(x < 0 ? 2 * -x + 1 : 2 * x), 9);
    }
    bw_put(&b, 7, 3);                /* end marker */
    while (b.pos & 7) bw_put(&b, 1, 1);
    size_t bytes = b.pos >> 3;
    while (bytes % 16) b.b[bytes++] = 0xFF;
    memcpy(out, b.b, bytes);
    return bytes;
}

/* ----------------------------------------------------- model walking */

typedef struct stats {
    size_t n_cmds, n_cmd0, n_cmd1;
    size_t conv, dw, pool[3], elt[10], dma, dma_wait, kernel_wait, stop;
    size_t weight_streams, weights, scale_records;
} stats;

static size_t tensor_bytes(const tfl_tensor *t)
{
    size_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= (size_t)(t->shape[i] > 0 ? t->shape[i] : 0);
    return n * (tfl_type_size(t->type) ? tfl_type_size(t->type) : 1);
}

typedef struct region { uint8_t *d; size_t size; } region;

static bool in_range(const region *r, uint64_t off, uint64_t len)
{
    return r->d && off <= r->size && len <= r->size - off;
}

/* first62: optional expected table check (person_detect only). */
typedef struct exp_cmd { uint32_t off, w0, payload; int cmd1; const char *name; } exp_cmd;
static const exp_cmd FIRST62[] = {
#include "sim_first62.inc"
};

static bool walk_op(const char *what, const tfl_model *m, const tfl_operator *op, int variant_want,
                    stats *st, bool check_first62)
{
    const tfl_subgraph *sg = &m->subgraphs[0];
    npuc_err err = {0};
    char line[256];
    bool ok = true;
    if (op->n_inputs < 4) { fprintf(stderr, "%s: ethos-u op with %d inputs\n", what, op->n_inputs); return false; }
    const tfl_tensor *tcs = &sg->tensors[op->inputs[0]];
    const tfl_tensor *tfl = &sg->tensors[op->inputs[1]];
    const tfl_buffer *bcs = &m->buffers[tcs->buffer], *bfl = &m->buffers[tfl->buffer];
    sim_cop1 cop;
    if (sim_cop1_parse(bcs->data, bcs->size, &cop, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        return false;
    }
    CHECK(cop.has_config);
    CHECK(cop.stream_offset % 16 == 0);
    eu_variant v;
    if (sim_variant_from_config(cop.config, &v, &err)) { fprintf(stderr, "%s: %s\n", what, err.msg); return false; }
    if (variant_want >= 0 && (int)v != variant_want) {
        fprintf(stderr, "%s: CONFIG 0x%08x is %s, expected %s\n", what, cop.config,
                eu_variant_name(v), eu_variant_name((eu_variant)variant_want));
        ok = false;
    }
    sim_cmd *cmds = NULL;
    size_t n = 0;
    if (sim_stream_decode(cop.stream, cop.stream_size, v, &cmds, &n, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        return false;
    }
    if (check_first62) {
        size_t ne = sizeof FIRST62 / sizeof FIRST62[0];
        CHECK_EQ_INT(ne, 62);
        CHECK(n >= ne);
        for (size_t i = 0; i < ne && i < n; i++) {
            const exp_cmd *e = &FIRST62[i];
            bool same = cmds[i].offset == e->off && cmds[i].word0 == e->w0 &&
                        cmds[i].payload == e->payload && cmds[i].is_cmd1 == (e->cmd1 != 0) &&
                        strcmp(cmds[i].name, e->name) == 0 &&
                        cmds[i].param == (e->w0 >> 16) && cmds[i].opcode == (e->w0 & 0x3FF);
            CHECK(same);
            if (!same) {
                sim_cmd_format(&cmds[i], line, sizeof line);
                fprintf(stderr, "  command %zu: got %s, expected %s at 0x%x\n", i, line, e->name, e->off);
            }
        }
        sim_cmd_format(&cmds[0], line, sizeof line);
        CHECK_STR_CONTAINS(line, "0x0000  00000130           cmd0 NPU_SET_DMA0_SRC_REGION");
        sim_cmd_format(&cmds[7], line, sizeof line);   /* IFM_BASE0 */
        CHECK_STR_CONTAINS(line, "0x0028  00004000 00000000  cmd1 NPU_SET_IFM_BASE0");
        sim_cmd_format(&cmds[19], line, sizeof line);  /* IFM_PRECISION */
        CHECK_STR_CONTAINS(line, "NPU_SET_IFM_PRECISION      s8 NHWC scale_mode=0 round=TFL");
        sim_cmd_format(&cmds[43], line, sizeof line);  /* KERNEL_STRIDE */
        CHECK_STR_CONTAINS(line, "stride=1x2 dilation=1x1 part_kernel_first");
    }

    /* memory: region 0 = flash, 1 = scratch, 2 = scratch_fast */
    region reg[8];
    memset(reg, 0, sizeof reg);
    reg[0].d = bfl->data;
    reg[0].size = bfl->size;
    for (int k = 1; k <= 2; k++) {
        reg[k].size = tensor_bytes(&sg->tensors[op->inputs[k + 1]]);
        reg[k].d = calloc(reg[k].size ? reg[k].size : 1, 1);
    }
    sim_state s;
    sim_state_reset(&s);
    for (size_t i = 0; i < n && ok; i++) {
        const sim_cmd *c = &cmds[i];
        st->n_cmds++;
        if (c->is_cmd1) st->n_cmd1++; else st->n_cmd0++;
        sim_state_apply(&s, c, v);
        switch (c->code) {
        case EU_OP_STOP: st->stop++; break;
        case EU_OP_DMA_WAIT: st->dma_wait++; break;
        case EU_OP_KERNEL_WAIT: st->kernel_wait++; break;
        case EU_OP_POOL: st->pool[c->param]++; break;
        case EU_OP_ELEMENTWISE: st->elt[c->param]++; break;
        case EU_OP_DMA_START: {
            st->dma++;
            const sim_dma *d = &s.dma;
            if (d->src_internal || !in_range(&reg[d->src_region], d->src, d->len)) {
                fprintf(stderr, "%s: DMA at 0x%zx: source region %u [0x%llx,+0x%llx) outside\n", what,
                        c->offset, d->src_region, (unsigned long long)d->src, (unsigned long long)d->len);
                ok = false;
                break;
            }
            if (!d->dst_internal) {
                if (!in_range(&reg[d->dst_region], d->dst, d->len)) {
                    fprintf(stderr, "%s: DMA at 0x%zx: destination outside region %u\n", what,
                            c->offset, d->dst_region);
                    ok = false;
                    break;
                }
                memmove(reg[d->dst_region].d + d->dst, reg[d->src_region].d + d->src, d->len);
            }
            break;
        }
        case EU_OP_CONV: case EU_OP_DEPTHWISE: {
            bool dw = c->code == EU_OP_DEPTHWISE;
            if (dw) st->dw++; else st->conv++;
            const region *wr = &reg[s.weight_region], *sr = &reg[s.scale_region];
            if (!in_range(wr, s.weight_base[0], s.weight_length[0]) ||
                !in_range(sr, s.scale_base[0], s.scale_length[0])) {
                fprintf(stderr, "%s: op at 0x%zx: weight/scale stream outside its region\n", what,
                        c->offset);
                ok = false;
                break;
            }
            int16_t *w = NULL;
            sim_mlw_info info;
            if (sim_mlw_decode(wr->d + s.weight_base[0], s.weight_length[0], 0, &w, &info, &err)) {
                fprintf(stderr, "%s: op at 0x%zx: %s\n", what, c->offset, err.msg);
                ok = false;
                break;
            }
            st->weight_streams++;
            st->weights += info.n_weights;
            CHECK_EQ_INT((info.end_byte + 15) / 16 * 16, s.weight_length[0]);
            CHECK_EQ_INT(info.n_end_markers >= 1, 1);
            sim_wgeom g;
            if (sim_wgeom_from_state(&s, v, dw, &g, &err)) {
                fprintf(stderr, "%s: %s\n", what, err.msg);
                ok = false;
            } else {
                size_t expect = sim_weight_traverse(&g, NULL, 0);
                if (expect != info.n_weights) {
                    fprintf(stderr, "%s: op at 0x%zx: %zu weights decoded, geometry implies %zu\n",
                            what, c->offset, info.n_weights, expect);
                    ok = false;
                }
                /* padding slots of the traversal hold zero */
                int64_t *map = malloc(expect * sizeof *map);
                sim_weight_traverse(&g, map, expect);
                size_t bad = 0;
                for (size_t k = 0; k < expect && k < info.n_weights; k++)
                    if (map[k] < 0 && w[k] != 0) bad++;
                CHECK_EQ_INT(bad, 0);
                /* a shorter map gets the same first positions and nothing past them */
                size_t part = expect * 2 / 3 + 1;
                int64_t *pre = malloc((expect + 1) * sizeof *pre);
                if (map && pre) {
                    for (size_t k = 0; k <= expect; k++) pre[k] = INT64_MIN;
                    CHECK_EQ_INT(sim_weight_traverse(&g, pre, part), expect);
                    size_t differ = 0;
                    for (size_t k = 0; k < part && k < expect; k++) differ += pre[k] != map[k];
                    for (size_t k = part; k <= expect; k++) differ += pre[k] != INT64_MIN;
                    CHECK_EQ_INT(differ, 0);
                }
                free(pre);
                free(map);
            }
            free(w);
            size_t nch = s.ofm.depth;
            CHECK_EQ_INT(s.scale_length[0], (nch * 10 + 15) / 16 * 16);
            sim_scale_rec *rec = calloc(nch, sizeof *rec);
            if (sim_scale_parse(sr->d + s.scale_base[0], s.scale_length[0], nch, rec, &err)) {
                fprintf(stderr, "%s: op at 0x%zx: %s\n", what, c->offset, err.msg);
                ok = false;
            }
            st->scale_records += nch;
            free(rec);
            break;
        }
        default: break;
        }
    }
    for (int k = 1; k <= 2; k++) free(reg[k].d);
    free(cmds);
    return ok;
}

/* Walks every ethos-u op of a model; returns the number of ops (-1 on error). */
static int walk_model(const char *path, int variant_want, stats *st, bool first62)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return -1;
    }
    int nops = 0;
    bool ok = true;
    for (int g = 0; g < m->n_subgraphs && g < 1; g++)
        for (int i = 0; i < m->subgraphs[g].n_operators; i++) {
            const tfl_operator *op = &m->subgraphs[g].operators[i];
            const tfl_opcode *oc = &m->opcodes[op->opcode_index];
            if (!oc->custom_code || strcmp(oc->custom_code, "ethos-u") != 0) continue;
            char what[600];
            snprintf(what, sizeof what, "%s op %d", path, i);
            if (!walk_op(what, m, op, variant_want, st, first62 && nops == 0)) ok = false;
            nops++;
        }
    tfl_model_free(m);
    return ok ? nops : -1;
}

static void walk_dir(const char *dir, int variant, int *n_models, int *n_ops)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t l = strlen(e->d_name);
        if (l > 7 && strcmp(e->d_name + l - 7, ".tflite") == 0) {
            stats st;
            memset(&st, 0, sizeof st);
            int k = walk_model(path, variant, &st, false);
            CHECK(k >= 0);
            if (k < 0) fprintf(stderr, "  failed: %s\n", path);
            else { (*n_models)++; *n_ops += k; }
        } else {
            walk_dir(path, variant, n_models, n_ops);
        }
    }
    closedir(d);
}

/* ----------------------------------------------------- synthetic cases */

static void test_errors(void)
{
    npuc_err err = {0};
    /* truncated cmd1 at the end */
    uint32_t t1[] = {0x0001010f, 0x00004000};
    CHECK(decode_words(t1, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0004");
    CHECK_STR_CONTAINS(err.msg, "NPU_SET_IFM_BASE0: truncated");
    /* unknown opcode */
    uint32_t t2[] = {0x00000130, 0x00000004, 0xffff0000};
    CHECK(decode_words(t2, 3, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0004: unknown cmd0 opcode 0x004");
    uint32_t t2b[] = {0x00000130, 0x00004077, 0, 0xffff0000};
    CHECK(decode_words(t2b, 4, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0004: unknown cmd1 opcode 0x077");
    uint32_t t2c[] = {0x00008130};
    CHECK(decode_words(t2c, 1, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "reserved control bits 2");
    /* U65 commands on U55 */
    uint32_t t3[] = {0x00000130, 0x00000123, 0xffff0000};
    CHECK(decode_words(t3, 3, EU_U55_256, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0004: NPU_SET_PARALLEL_MODE is U65-only, not valid on U55-256");
    CHECK(decode_words(t3, 3, EU_U65_256, &err) == NPUC_OK);
    uint32_t t3b[] = {0x00004091, 0x00000010, 0xffff0000};
    CHECK(decode_words(t3b, 3, EU_U55_64, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0000: NPU_SET_WEIGHT1_LENGTH is U65-only");
    uint32_t t3c[] = {0x000040a0, 0x00000010, 0xffff0000};
    CHECK(decode_words(t3c, 3, EU_U65_512, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "NPU_SET_USER_DEFINED0 is U55-only");
    uint32_t t3d[] = {0x02000130, 0xffff0000}; /* 2D DMA stride mode */
    CHECK(decode_words(t3d, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "2D stride mode is U65-only");
    CHECK(decode_words(t3d, 2, EU_U65_256, &err) == NPUC_OK);
    uint32_t t3e[] = {0x00014000, 0x100, 0xffff0000}; /* 40-bit address on U55 */
    CHECK(decode_words(t3e, 3, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "must be 0 on U55-128");
    CHECK(decode_words(t3e, 3, EU_U65_256, &err) == NPUC_OK);
    /* region out of range */
    uint32_t t4[] = {0x00000100, 0x00000101, 0x0009010f, 0xffff0000};
    CHECK(decode_words(t4, 4, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0008: NPU_SET_IFM_REGION: region 9 out of range 0-7");
    uint32_t t4b[] = {0x80010128, 0xffff0000}; /* custom DMA bit on U65 */
    CHECK(decode_words(t4b, 2, EU_U65_256, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "custom DMA bit 15 is U55-only");
    CHECK(decode_words(t4b, 2, EU_U55_256, &err) == NPUC_OK);
    /* other field checks */
    uint32_t t5[] = {0x00800100, 0xffff0000}; /* pad top 128 */
    CHECK(decode_words(t5, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "NPU_SET_IFM_PAD_TOP: padding 128 out of range (max 127)");
    uint32_t t5b[] = {0x00800102, 0xffff0000}; /* pad right 128 is fine */
    CHECK(decode_words(t5b, 2, EU_U55_128, &err) == NPUC_OK);
    uint32_t t6[] = {0x00020105, 0xffff0000}; /* IFM precision reserved bit 1 */
    CHECK(decode_words(t6, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "NPU_SET_IFM_PRECISION: reserved param bits 0x0002");
    uint32_t t6b[] = {0x000c0105, 0xffff0000}; /* 64-bit IFM */
    CHECK(decode_words(t6b, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "64-bit precision");
    uint32_t t6c[] = {0xc0000114, 0xffff0000}; /* round mode 3 */
    CHECK(decode_words(t6c, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "round mode 3 is reserved");
    uint32_t t7[] = {0x00400115, 0xffff0000}; /* block width-1 64 */
    CHECK(decode_words(t7, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "NPU_SET_OFM_BLK_WIDTH_M1: block width-1 64 out of range (max 63)");
    uint32_t t7b[] = {0x00200116, 0xffff0000};
    CHECK(decode_words(t7b, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "block height-1 32 out of range (max 31)");
    uint32_t t8[] = {0x001a010d, 0xffff0000}; /* IB_END 26 > 24 banks of U55-128 */
    CHECK(decode_words(t8, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "SHRAM bank 26 out of range (U55-128 has 24 banks)");
    uint32_t t9[] = {0x00040012, 0xffff0000}; /* kernel wait 4 */
    CHECK(decode_words(t9, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "kernel wait count 4 out of range");
    uint32_t t10[] = {0x000a0006, 0xffff0000}; /* elementwise mode 10 */
    CHECK(decode_words(t10, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "elementwise mode 10 out of range");
    uint32_t t11[] = {0x00010125, 0xffff0000}; /* activation function 1 */
    CHECK(decode_words(t11, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "activation function 1 is reserved");
    uint32_t t12[] = {0x00004020, 0x00000008, 0xffff0000}; /* weight base not 16-aligned */
    CHECK(decode_words(t12, 3, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "NPU_SET_WEIGHT_BASE: 0x8 is not a multiple of 16");
    uint32_t t13[] = {0x00404024, 0x1234, 0xffff0000}; /* shift 64 */
    CHECK(decode_words(t13, 3, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "shift 64 out of range");
    uint32_t t14[] = {0x0001010f};           /* no STOP */
    CHECK(decode_words(t14, 1, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "without NPU_OP_STOP");
    uint32_t t15[] = {0xffff0000, 0x0001010f}; /* command after STOP */
    CHECK(decode_words(t15, 2, EU_U55_128, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x0004: command after NPU_OP_STOP");

    /* state tracking */
    uint32_t st[] = {0x0001010f, 0x00074000, 0x12345670, 0x02450122, 0xffff0109, 0x00010105,
                     0x00000180, 0x00c10180, 0xffff0000};
    uint8_t buf[64];
    size_t size = words_to_bytes(st, sizeof st / sizeof st[0], buf);
    sim_cmd *cmds;
    size_t n;
    CHECK(sim_stream_decode(buf, size, EU_U65_256, &cmds, &n, &err) == NPUC_OK);
    if (n == 8) {
        sim_state s;
        sim_state_reset(&s);
        for (size_t i = 0; i < n; i++) sim_state_apply(&s, &cmds[i], EU_U65_256);
        CHECK_EQ_INT(s.ifm.region, 1);
        CHECK(s.ifm.base[0] == 0x0712345670ull);
        CHECK_EQ_INT(s.stride_x, 4);   /* param 0x0245: bit0 = 1, bit6 = 1 -> stride-1 = 3 */
        CHECK_EQ_INT(s.stride_y, 3);   /* bit1 = 0, bit9 = 1 -> stride-1 = 2 */
        CHECK_EQ_INT(s.part_kernel_first, 1);
        CHECK_EQ_INT(s.dilation_x, 1);
        CHECK_EQ_INT(s.dilation_y, 1);
        CHECK_EQ_INT(sim_fm_zero_point(&s.ifm), -1);
        CHECK_EQ_INT(s.ifm.bits, 8);
        CHECK_EQ_INT(s.ifm.is_signed, 1);
        CHECK_EQ_INT(s.bcast_h, 1);
        CHECK_EQ_INT(s.ifm2_scalar, 1);
        CHECK_EQ_INT(s.ifm2_first, 1);
        CHECK(sim_state_written(&s, EU_SET_IFM_BASE0));
        CHECK(!sim_state_written(&s, EU_SET_IFM_BASE1));
    } else {
        CHECK_EQ_INT(n, 8);
    }
    free(cmds);
}

static void test_cop1(void)
{
    npuc_err err = {0};
    uint32_t p[] = {EU_COP1_MAGIC, 0x00100001, 0x00003008, 0x10060000, 5, 5, 5,
                    0x00020002, 0x0001010f, 0xffff0000};
    uint8_t buf[64];
    size_t size = words_to_bytes(p, 10, buf);
    sim_cop1 c;
    CHECK(sim_cop1_parse(buf, size, &c, &err) == NPUC_OK);
    CHECK_EQ_INT(c.stream_offset, 32);
    CHECK_EQ_INT(c.stream_size, 8);
    CHECK_EQ_INT(c.n_nops, 3);
    CHECK_EQ_INT(c.config, 0x3008);
    CHECK_EQ_INT(c.config_patch, 1);
    eu_variant v;
    CHECK(sim_variant_from_config(c.config, &v, &err) == NPUC_OK && v == EU_U55_256);
    CHECK(sim_variant_from_config(0x10006009, &v, &err) == NPUC_OK && v == EU_U65_512);
    CHECK(sim_variant_from_config(0x20003008, &v, &err) != NPUC_OK);
    for (int k = EU_U55_32; k <= EU_U65_512; k++)
        CHECK(sim_variant_from_config(eu_variant_config_word((eu_variant)k), &v, &err) == NPUC_OK &&
              (int)v == k);
    /* bad magic */
    put32(buf, 0x31504F44);
    CHECK(sim_cop1_parse(buf, size, &c, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "bad magic 0x31504f44");
    put32(buf, EU_COP1_MAGIC);
    /* bad version */
    put32(buf + 4, 0x00010001);
    CHECK(sim_cop1_parse(buf, size, &c, &err) == NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "byte 0x4: OPTIMIZER_CONFIG version rel 1");
    put32(buf + 4, 0x00100001);
    /* stream length past the end */
    put32(buf + 28, 0x00030002);
    CHECK(sim_cop1_parse(buf, size, &c, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x1c: COMMAND_STREAM of 3 words (12 bytes) runs past the payload end (8 bytes left)");
    put32(buf + 28, 0x00020002);
    /* truncated config, odd size, unknown action */
    CHECK(sim_cop1_parse(buf, 12, &c, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "OPTIMIZER_CONFIG truncated");
    CHECK(sim_cop1_parse(buf, size - 2, &c, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "not a multiple of 4");
    put32(buf + 16, 0x00000009);
    CHECK(sim_cop1_parse(buf, size, &c, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "byte 0x10: unknown driver action 9");
    put32(buf + 16, 0x00000003);
    CHECK(sim_cop1_parse(buf, size, &c, &err) == NPUC_E_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "READ_APB");
    CHECK(sim_cop1_parse(buf, 16, &c, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "no COMMAND_STREAM");
}

static void test_mlw_synthetic(void)
{
    npuc_err err = {0};
    int16_t w[100];
    for (int i = 0; i < 100; i++) w[i] = (int16_t)((i * 37) % 511 - 255);
    uint8_t s[512];
    size_t n = mlw_encode_plain(w, 100, s);
    int16_t *out = NULL;
    sim_mlw_info info;
    CHECK(sim_mlw_decode(s, n, 0, &out, &info, &err) == NPUC_OK);
    CHECK_EQ_INT(info.n_weights, 100);
    CHECK_EQ_INT(info.n_slices, 1);
    CHECK_EQ_INT((info.end_byte + 15) / 16 * 16, n);
    CHECK(out && memcmp(out, w, sizeof w) == 0);
    free(out);
    /* truncated: cut inside the values */
    CHECK(sim_mlw_decode(s, 40, 0, &out, &info, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "MLW stream bit 315 (byte 39): truncated reading WREMAIN (9 bits, stream is 40 bytes");
    CHECK(out == NULL);
    /* invalid ZDIV 4 in the first header */
    uint8_t z[16];
    memset(z, 0xFF, sizeof z);
    z[0] = 0x04;
    CHECK(sim_mlw_decode(z, 16, 0, &out, &info, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "MLW stream bit 3 (byte 0), slice 0 at bit 0: invalid ZDIV 4");
    /* continuation slice without a palette after the end marker */
    uint8_t c2[32];
    memcpy(c2, s, 16);
    size_t pos_end;
    {
        bw b;
        memset(&b, 0, sizeof b);
        bw_put(&b, 7, 3); while (b.pos & 7) bw_put(&b, 1, 1);  /* end marker */
        bw_put(&b, 6, 3); bw_put(&b, 0, 15); bw_put(&b, 7, 3); bw_put(&b, 0, 1); bw_put(&b, 0, 1);
        pos_end = 8;
        memcpy(c2, b.b, 16);
    }
    CHECK(sim_mlw_decode(c2, 16, 0, &out, &info, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "slice 0 at bit 8: first slice of a section must have NEWPAL = 1");
    (void)pos_end;
    /* no end marker */
    CHECK(sim_mlw_decode(s, 0, 0, &out, &info, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "without an end marker");
    /* weight cap */
    CHECK(sim_mlw_decode(s, n, 50, &out, &info, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "more than 50 weights");

    /* scale records */
    uint8_t r[32];
    memset(r, 0, sizeof r);
    r[0] = 0xFE; r[1] = 0xFF; r[2] = 0xFF; r[3] = 0xFF; r[4] = 0xFF;   /* bias -2 */
    r[5] = 0xE5; r[6] = 0x38; r[7] = 0x8E; r[8] = 0xE3; r[9] = 37;     /* scale, shift */
    r[10] = 0x00; r[11] = 0x00; r[12] = 0x00; r[13] = 0x00; r[14] = 0x80; /* bias -2^39 */
    r[19] = 63;
    sim_scale_rec rec[2];
    CHECK(sim_scale_parse(r, 32, 2, rec, &err) == NPUC_OK);
    CHECK_EQ_INT(rec[0].bias, -2);
    CHECK(rec[0].scale == 0xE38E38E5u);
    CHECK_EQ_INT(rec[0].shift, 37);
    CHECK_EQ_INT(rec[1].bias, -(1LL << 39));
    CHECK_EQ_INT(rec[1].shift, 63);
    r[19] = 0x40;
    CHECK(sim_scale_parse(r, 32, 2, rec, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "scale stream byte 19 (channel 1)");
    r[19] = 0;
    r[25] = 1;
    CHECK(sim_scale_parse(r, 32, 2, rec, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "scale stream byte 25: padding");
    CHECK(sim_scale_parse(r, 16, 2, rec, &err) == NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "2 channels need 20 bytes, stream has 16");

    /* traversal: 1x1 conv, 8 in, 8 out, depth-first pads the IFM block to 32 */
    sim_wgeom g = {8, 8, 1, 1, 8, 1, 1, 8, 8, false, false};
    CHECK_EQ_INT(sim_weight_traverse(&g, NULL, 0), 8 * 32);
    g.part_kernel_first = true; /* PKF: kernel elements rounded up to 4 */
    CHECK_EQ_INT(sim_weight_traverse(&g, NULL, 0), 8 * 8 * 4);
    sim_wgeom gd = {16, 16, 3, 3, 16, 1, 1, 8, 8, false, true}; /* depthwise 3x3 */
    CHECK_EQ_INT(sim_weight_traverse(&gd, NULL, 0), 16 * 12);
    int64_t map[192];
    sim_weight_traverse(&gd, map, 192);
    CHECK_EQ_INT(map[0], 0);         /* o 0, ky 0, kx 0 */
    CHECK_EQ_INT(map[1], 9);         /* o 1 */
    CHECK_EQ_INT(map[8], 1);         /* e 1: o 0, kx 1 */
    CHECK_EQ_INT(map[9 * 8], -1);    /* e 9: padding */
    /* a map one position short is walked position by position: both walks
     * give the same map (400 random geometries, every mode) */
    uint32_t seed = 12345;
    for (int t = 0; t < 400; t++) {
        uint32_t rr[10];
        for (int k = 0; k < 10; k++) rr[k] = (seed = seed * 1103515245u + 12345u) >> 8;
        sim_wgeom x = {1 + rr[0] % 70, 1 + rr[1] % 90, 1 + rr[2] % 7, 1 + rr[3] % 11, rr[4] % 5 ? 8 * (1 + rr[4] % 9) : 0,
                       (uint8_t)(1 + rr[5] % 3), (uint8_t)(1 + rr[6] % 2), (uint8_t)(rr[7] % 2 ? 16 : 8),
                       (uint8_t)(rr[8] % 2 ? 4 : 8), (rr[9] & 1) != 0, (rr[9] & 2) != 0};
        if (rr[9] & 4) x.block_depth = 1 + rr[4] % 40;   /* not a multiple of the micro-block */
        size_t nn = sim_weight_traverse(&x, NULL, 0);
        int64_t *a = malloc((nn + 1) * sizeof *a), *b = malloc((nn + 1) * sizeof *b);
        sim_weight_traverse(&x, a, nn);
        b[nn - 1] = -7;
        CHECK_EQ_INT(sim_weight_traverse(&x, b, nn - 1), nn);
        CHECK_EQ_INT(b[nn - 1], -7);
        CHECK_EQ_INT(memcmp(a, b, (nn - 1) * sizeof *a), 0);
        free(a);
        free(b);
    }
}

/* The first MLW stream of person_detect, corrupted. */
static void test_mlw_corrupt(const char *path)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &m, &err)) return;
    const tfl_subgraph *sg = &m->subgraphs[0];
    const tfl_operator *op = &sg->operators[0];
    const tfl_buffer *fl = &m->buffers[sg->tensors[op->inputs[1]].buffer];
    /* layer 0: DMA from flash 0x6fa0, 80 B of scale records then 144 B MLW */
    if (fl->size >= 0x6fa0 + 224) {
        const uint8_t *ws = fl->data + 0x6fa0 + 80;
        int16_t *out = NULL;
        sim_mlw_info info;
        CHECK(sim_mlw_decode(ws, 144, 0, &out, &info, &err) == NPUC_OK);
        CHECK_EQ_INT(info.n_weights, 512);
        free(out);
        uint8_t bad[144];
        memcpy(bad, ws, 144);
        bad[0] = (uint8_t)((bad[0] & ~7) | 5); /* ZDIV 5 */
        CHECK(sim_mlw_decode(bad, 144, 0, &out, &info, &err) == NPUC_E_FORMAT);
        CHECK_STR_CONTAINS(err.msg, "bit 3 (byte 0), slice 0 at bit 0: invalid ZDIV 5");
        CHECK(sim_mlw_decode(ws, 20, 0, &out, &info, &err) == NPUC_E_FORMAT);
        CHECK_STR_CONTAINS(err.msg, "truncated reading");
        CHECK_STR_CONTAINS(err.msg, "stream is 20 bytes");
        /* flip every byte in turn: must never crash, and either decode or
         * report an MLW error */
        int n_err = 0;
        for (int i = 0; i < 144; i++) {
            memcpy(bad, ws, 144);
            bad[i] ^= 0x5A;
            int rc = sim_mlw_decode(bad, 144, 0, &out, &info, &err);
            if (rc) { n_err++; CHECK_STR_CONTAINS(err.msg, "MLW stream"); }
            free(out);
        }
        CHECK(n_err > 0);
    }
    tfl_model_free(m);
}

/* The whole decoded listing of person_detect_vela against the independent
 * decoder's listing in ../shared/docs/person_detect_vela.cmds.txt: same
 * number of commands, and per command the same byte offset, words and
 * command name. */
static void test_listing(const char *model, const char *listing)
{
    tfl_model *m = NULL;
    npuc_err err = {0};
    CHECK(tfl_read_file(model, &m, &err) == NPUC_OK);
    if (!m) return;
    const tfl_operator *op = &m->subgraphs[0].operators[0];
    const tfl_tensor *t = &m->subgraphs[0].tensors[op->inputs[0]];
    const tfl_buffer *b = &m->buffers[t->buffer];
    sim_cop1 c;
    sim_cmd *cmds = NULL;
    size_t n = 0;
    CHECK(sim_cop1_parse(b->data, b->size, &c, &err) == NPUC_OK);
    CHECK(sim_stream_decode(c.stream, c.stream_size, EU_U55_256, &cmds, &n, &err) == NPUC_OK);
    FILE *f = fopen(listing, "r");
    CHECK(f != NULL);
    size_t k = 0;
    int mismatches = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned off, w0, w1;
        char name[64];
        if (line[0] == '#' || line[0] == '\n') continue;
        int got = sscanf(line, "%x: %8x %8x %63s", &off, &w0, &w1, name);
        bool two = got == 4 && strlen(line) > 17 && line[17] != ' ';
        if (!two) {
            got = sscanf(line, "%x: %8x %63s", &off, &w0, name);
            if (got != 3) continue;
            w1 = 0;
        }
        if (k >= n) { k++; continue; }
        const sim_cmd *x = &cmds[k++];
        size_t ln = strlen(x->name), lm = strlen(name);
        bool name_ok = ln >= lm && strcmp(x->name + ln - lm, name) == 0;
        if (x->offset != off || x->word0 != w0 || x->is_cmd1 != two || (two && x->payload != w1) ||
            !name_ok) {
            if (mismatches++ < 5)
                fprintf(stderr, "listing line %zu: ours 0x%04zx %08x %s, theirs 0x%04x %08x %s\n", k,
                        x->offset, x->word0, x->name, off, w0, name);
        }
    }
    if (f) fclose(f);
    CHECK_EQ_INT(k, n);
    CHECK_EQ_INT(n, 1393);
    CHECK_EQ_INT(mismatches, 0);
    free(cmds);
    tfl_model_free(m);
}

int main(void)
{
    test_errors();
    test_cop1();
    test_mlw_synthetic();

    char buf[1024];
    const char *pd = t_shared("models/tflm/person_detect_vela.tflite", buf, sizeof buf);
    if (!pd) {
        printf("SKIP model checks: shared folder absent (set NPUC_SHARED)\n");
        TEST_MAIN_END();
    }
    char lbuf[1024];
    const char *lst = t_shared("docs/person_detect_vela.cmds.txt", lbuf, sizeof lbuf);
    if (lst) test_listing(pd, lst);
    else printf("SKIP listing check: person_detect_vela.cmds.txt absent\n");
    stats st;
    memset(&st, 0, sizeof st);
    CHECK_EQ_INT(walk_model(pd, EU_U55_256, &st, true), 1);
    CHECK_EQ_INT(st.n_cmds, 1393);
    CHECK_EQ_INT(st.n_cmd0, 752);
    CHECK_EQ_INT(st.n_cmd1, 641);
    CHECK_EQ_INT(st.conv, 32);
    CHECK_EQ_INT(st.dw, 23);
    CHECK_EQ_INT(st.pool[0], 1);
    CHECK_EQ_INT(st.pool[1], 1);
    CHECK_EQ_INT(st.pool[2], 1);
    CHECK_EQ_INT(st.elt[0], 12); /* MUL */
    CHECK_EQ_INT(st.elt[1], 5);  /* ADD */
    CHECK_EQ_INT(st.elt[2], 7);  /* SUB */
    CHECK_EQ_INT(st.elt[3] + st.elt[4] + st.elt[5] + st.elt[6], 0);
    CHECK_EQ_INT(st.elt[7], 1);  /* CLZ */
    CHECK_EQ_INT(st.elt[8], 2);  /* SHR */
    CHECK_EQ_INT(st.elt[9], 2);  /* SHL */
    CHECK_EQ_INT(st.dma, 55);
    CHECK_EQ_INT(st.dma_wait, 55);
    CHECK_EQ_INT(st.kernel_wait, 38);
    CHECK_EQ_INT(st.stop, 1);
    CHECK_EQ_INT(st.weight_streams, 55);
    CHECK_EQ_INT(st.scale_records, 2738);
    test_mlw_corrupt(pd);

    static const struct { const char *dir; eu_variant v; } cfg[] = {
        {"models/vela/u55-128", EU_U55_128}, {"models/vela/u65-256", EU_U65_256}};
    for (size_t k = 0; k < 2; k++) {
        char dir[1024];
        const char *base = getenv("NPUC_SHARED");
        snprintf(dir, sizeof dir, "%s/%s", base ? base : "../shared", cfg[k].dir);
        int n_models = 0, n_ops = 0;
        walk_dir(dir, (int)cfg[k].v, &n_models, &n_ops);
        printf("%s: %d models, %d ethos-u ops decoded\n", cfg[k].dir, n_models, n_ops);
        CHECK(n_models > 0);
    }
    TEST_MAIN_END();
}
