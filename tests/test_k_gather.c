/* Gather family kernels (k_op_gather.h) and their interpreter bindings:
 * hand-worked cases (TILE has no TFLite Micro golden), run-time checks of
 * computed indices / shapes / paddings, damaged blobs, wrong tensor sizes,
 * and the types TFLite Micro rejects. */
#include "test.h"
#include "k_op_test.h"

#include <stdint.h>
#include <string.h>

/* ---- k_op_run helpers ---------------------------------------------------------- */

typedef struct tio {
    void *in[4];
    uint32_t in_size[4];
    void *out[1];
    uint32_t out_size[1];
} tio;

/* Runs kind on t's first n_in inputs and its output. */
static int trun(uint32_t kind, const void *blob, uint32_t size, const tio *t, int32_t n_in)
{
    return kt_run(kind, blob, size, n_in, t->in, t->in_size, t->out[0], t->out_size[0]);
}

#define SET_IN(t, i, p, n) ((t).in[i] = (void *)(p), (t).in_size[i] = (uint32_t)(n))
#define SET_OUT(t, p, n) ((t).out[0] = (void *)(p), (t).out_size[0] = (uint32_t)(n))

/* ---- TILE (hand-worked) -------------------------------------------------------- */

static void test_tile(void)
{
    /* int8 [2,3] x [2,2] -> [4,6] */
    k_op_tile_blob b = {.rank = 2, .in_dims = {2, 3}, .out_dims = {4, 6}, .shape_width = 4};
    const int8_t in[6] = {1, 2, 3, 4, 5, 6};
    const int32_t mult[2] = {2, 2};
    int8_t out[24];
    tio t;
    SET_IN(t, 0, in, sizeof in);
    SET_IN(t, 1, mult, sizeof mult);
    SET_OUT(t, out, sizeof out);
    CHECK_EQ_INT(trun(K_OP_TILE_X8, &b, sizeof b, &t, 2), K_OK);
    const int8_t want[24] = {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6};
    CHECK(memcmp(out, want, sizeof want) == 0);

    /* float32 [1,2,1] x [2,1,3] -> [2,2,3] */
    k_op_tile_blob b3 = {.rank = 3, .in_dims = {1, 2, 1}, .out_dims = {2, 2, 3}, .shape_width = 8};
    const float fin[2] = {1.5f, -2.0f};
    const int64_t m3[3] = {2, 1, 3};
    float fout[12];
    SET_IN(t, 0, fin, sizeof fin);
    SET_IN(t, 1, m3, sizeof m3);
    SET_OUT(t, fout, sizeof fout);
    CHECK_EQ_INT(trun(K_OP_TILE_X32, &b3, sizeof b3, &t, 2), K_OK);
    const float fw[12] = {1.5f, 1.5f, 1.5f, -2.0f, -2.0f, -2.0f, 1.5f, 1.5f, 1.5f, -2.0f, -2.0f, -2.0f};
    CHECK(memcmp(fout, fw, sizeof fw) == 0);

    /* int16 [3] x [2] -> [6]; int64 [2] x [1] -> [2] */
    k_op_tile_blob b1 = {.rank = 1, .in_dims = {3}, .out_dims = {6}, .shape_width = 4};
    const int16_t sin_[3] = {-1, 7, 300};
    const int32_t m1[1] = {2};
    int16_t sout[6];
    SET_IN(t, 0, sin_, sizeof sin_);
    SET_IN(t, 1, m1, sizeof m1);
    SET_OUT(t, sout, sizeof sout);
    CHECK_EQ_INT(trun(K_OP_TILE_X16, &b1, sizeof b1, &t, 2), K_OK);
    const int16_t sw[6] = {-1, 7, 300, -1, 7, 300};
    CHECK(memcmp(sout, sw, sizeof sw) == 0);
    k_op_tile_blob b64 = {.rank = 1, .in_dims = {2}, .out_dims = {2}, .shape_width = 4};
    const int64_t lin[2] = {INT64_MIN, 42};
    const int32_t one[1] = {1};
    int64_t lout[2];
    SET_IN(t, 0, lin, sizeof lin);
    SET_IN(t, 1, one, sizeof one);
    SET_OUT(t, lout, sizeof lout);
    CHECK_EQ_INT(trun(K_OP_TILE_X64, &b64, sizeof b64, &t, 2), K_OK);
    CHECK(lout[0] == INT64_MIN && lout[1] == 42);

    /* computed multiples that disagree with the static output shape */
    const int32_t bad[2] = {2, 3};
    SET_IN(t, 0, in, sizeof in);
    SET_IN(t, 1, bad, sizeof bad);
    SET_OUT(t, out, sizeof out);
    CHECK_EQ_INT(trun(K_OP_TILE_X8, &b, sizeof b, &t, 2), K_E_INVALID);
    const int32_t neg[2] = {-2, 2};
    SET_IN(t, 1, neg, sizeof neg);
    CHECK_EQ_INT(trun(K_OP_TILE_X8, &b, sizeof b, &t, 2), K_E_INVALID);
    /* an output not a multiple of the input is a corrupt blob */
    k_op_tile_blob bb = b;
    bb.out_dims[1] = 5;
    CHECK_EQ_INT(k_op_validate(K_OP_TILE_X8, &bb, sizeof bb), K_E_INVALID);
}

/* ---- run-time index checks ------------------------------------------------------- */

static void test_gather_indices(void)
{
    /* params [3,2] float, axis 0, indices [2] */
    k_op_gather_blob b = {.batch = 1, .outer = 1, .axis_size = 3, .coord = 2, .inner = 2};
    const float par[6] = {0, 1, 2, 3, 4, 5};
    int32_t idx[2] = {2, 0};
    float out[4];
    tio t;
    SET_IN(t, 0, par, sizeof par);
    SET_IN(t, 1, idx, sizeof idx);
    SET_OUT(t, out, sizeof out);
    CHECK_EQ_INT(trun(K_OP_GATHER_X32, &b, sizeof b, &t, 2), K_OK);
    CHECK(out[0] == 4 && out[1] == 5 && out[2] == 0 && out[3] == 1);
    idx[1] = 3;
    CHECK_EQ_INT(trun(K_OP_GATHER_X32, &b, sizeof b, &t, 2), K_E_INVALID);
    idx[1] = -1;
    CHECK_EQ_INT(trun(K_OP_GATHER_X32, &b, sizeof b, &t, 2), K_E_INVALID);
    idx[1] = INT32_MIN;
    CHECK_EQ_INT(trun(K_OP_GATHER_X32, &b, sizeof b, &t, 2), K_E_INVALID);

    /* GATHER_ND params [2,3] int8, indices [2,2] */
    k_op_gather_nd_blob nb = {.n_slices = 2, .nd = 2, .slice_size = 1, .params_count = 6, .dims = {2, 3},
                              .stride = {3, 1}};
    const int8_t p8[6] = {10, 11, 12, 13, 14, 15};
    int32_t ni[4] = {1, 2, 0, 1};
    int8_t o8[2];
    SET_IN(t, 0, p8, sizeof p8);
    SET_IN(t, 1, ni, sizeof ni);
    SET_OUT(t, o8, sizeof o8);
    CHECK_EQ_INT(trun(K_OP_GATHER_ND_X8, &nb, sizeof nb, &t, 2), K_OK);
    CHECK(o8[0] == 15 && o8[1] == 11);
    ni[3] = 3; /* inner component past its dim (flat offset still inside) */
    CHECK_EQ_INT(trun(K_OP_GATHER_ND_X8, &nb, sizeof nb, &t, 2), K_E_INVALID);
    ni[3] = 1, ni[0] = -1;
    CHECK_EQ_INT(trun(K_OP_GATHER_ND_X8, &nb, sizeof nb, &t, 2), K_E_INVALID);
    /* strides that reach past params are a corrupt blob */
    k_op_gather_nd_blob nb2 = nb;
    nb2.stride[0] = 4;
    CHECK_EQ_INT(k_op_validate(K_OP_GATHER_ND_X8, &nb2, sizeof nb2), K_E_INVALID);

    /* EMBEDDING_LOOKUP int8 -> float, table [2,2] scale 0.5 */
    k_op_embedding_blob eb = {.n_ids = 2, .rows = 2, .cols = 2, .scale = 0.5f};
    int32_t ids[2] = {1, 0};
    const int8_t tab[4] = {-4, 3, 100, -128};
    float eo[4];
    SET_IN(t, 0, ids, sizeof ids);
    SET_IN(t, 1, tab, sizeof tab);
    SET_OUT(t, eo, sizeof eo);
    CHECK_EQ_INT(trun(K_OP_EMBEDDING_LOOKUP_S8_F32, &eb, sizeof eb, &t, 2), K_OK);
    CHECK(eo[0] == 50.0f && eo[1] == -64.0f && eo[2] == -2.0f && eo[3] == 1.5f);
    ids[0] = 2;
    CHECK_EQ_INT(trun(K_OP_EMBEDDING_LOOKUP_S8_F32, &eb, sizeof eb, &t, 2), K_E_INVALID);
}

static void test_reverse_axes(void)
{
    /* int16 [2,3] */
    k_op_reverse_blob b = {.rank = 2, .dims = {2, 3}, .n_axes = 1};
    const int16_t in[6] = {1, 2, 3, 4, 5, 6};
    int32_t ax[2] = {-1, 0};
    int16_t out[6];
    tio t;
    SET_IN(t, 0, in, sizeof in);
    SET_IN(t, 1, ax, sizeof ax);
    SET_OUT(t, out, sizeof out);
    CHECK_EQ_INT(trun(K_OP_REVERSE_X16, &b, sizeof b, &t, 2), K_OK);
    const int16_t w1[6] = {3, 2, 1, 6, 5, 4};
    CHECK(memcmp(out, w1, sizeof w1) == 0);
    b.n_axes = 2; /* {-1, 0}: both axes */
    CHECK_EQ_INT(trun(K_OP_REVERSE_X16, &b, sizeof b, &t, 2), K_OK);
    const int16_t w2[6] = {6, 5, 4, 3, 2, 1};
    CHECK(memcmp(out, w2, sizeof w2) == 0);
    ax[1] = 1; /* repeated axis */
    CHECK_EQ_INT(trun(K_OP_REVERSE_X16, &b, sizeof b, &t, 2), K_E_INVALID);
    ax[1] = 2; /* out of range */
    CHECK_EQ_INT(trun(K_OP_REVERSE_X16, &b, sizeof b, &t, 2), K_E_INVALID);
    /* non-contiguous axes of a rank-3 tensor (TFLite Micro rejects them) */
    k_op_reverse_blob b3 = {.rank = 3, .dims = {1, 2, 3}, .n_axes = 2};
    const int32_t ax3[2] = {0, 2};
    SET_IN(t, 1, ax3, sizeof ax3);
    CHECK_EQ_INT(trun(K_OP_REVERSE_X16, &b3, sizeof b3, &t, 2), K_E_INVALID);
}

static void test_shapes_at_run_time(void)
{
    tio t;
    /* FILL: dims computed at run time must equal the static shape */
    k_op_fill_blob fb = {.rank = 2, .dims = {2, 3}, .dims_width = 4};
    int32_t dims[2] = {2, 3};
    const int8_t v = -7;
    int8_t out[6];
    SET_IN(t, 0, dims, sizeof dims);
    SET_IN(t, 1, &v, 1);
    SET_OUT(t, out, sizeof out);
    CHECK_EQ_INT(trun(K_OP_FILL_X8, &fb, sizeof fb, &t, 2), K_OK);
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(out[i], -7);
    dims[1] = 4;
    CHECK_EQ_INT(trun(K_OP_FILL_X8, &fb, sizeof fb, &t, 2), K_E_INVALID);

    /* BROADCAST_TO [2,1] -> [2,3] with a computed shape */
    k_op_bcast_to_blob bb = {.rank = 2, .in_dims = {2, 1}, .out_dims = {2, 3}, .shape_width = 8};
    const int8_t bi[2] = {5, -5};
    int64_t shp[2] = {2, 3};
    SET_IN(t, 0, bi, sizeof bi);
    SET_IN(t, 1, shp, sizeof shp);
    CHECK_EQ_INT(trun(K_OP_BROADCAST_TO_X8, &bb, sizeof bb, &t, 2), K_OK);
    const int8_t bw[6] = {5, 5, 5, -5, -5, -5};
    CHECK(memcmp(out, bw, sizeof bw) == 0);
    shp[0] = 1;
    CHECK_EQ_INT(trun(K_OP_BROADCAST_TO_X8, &bb, sizeof bb, &t, 2), K_E_INVALID);

    /* BROADCAST_ARGS [2,1,3] with [4,1]: [2,4,3]; [2,3] with [4] fails */
    k_op_bcast_args_blob ab = {.n1 = 3, .n2 = 2};
    int32_t s1[3] = {2, 1, 3}, s2[2] = {4, 1}, so[3];
    SET_IN(t, 0, s1, sizeof s1);
    SET_IN(t, 1, s2, sizeof s2);
    SET_OUT(t, so, sizeof so);
    CHECK_EQ_INT(trun(K_OP_BROADCAST_ARGS_I32, &ab, sizeof ab, &t, 2), K_OK);
    CHECK(so[0] == 2 && so[1] == 4 && so[2] == 3);
    s2[1] = 2;
    CHECK_EQ_INT(trun(K_OP_BROADCAST_ARGS_I32, &ab, sizeof ab, &t, 2), K_E_INVALID);

    /* MIRROR_PAD REFLECT [3] with paddings [2,1] -> [6]: c b | a b c | b */
    k_op_mirror_pad_blob mb = {.rank = 1, .in_dims = {3}, .out_dims = {6}, .offset = 1, .pad_width = 4};
    const float mi[3] = {1, 2, 3};
    int32_t pads[2] = {2, 1};
    float mo[6];
    SET_IN(t, 0, mi, sizeof mi);
    SET_IN(t, 1, pads, sizeof pads);
    SET_OUT(t, mo, sizeof mo);
    CHECK_EQ_INT(trun(K_OP_MIRROR_PAD_X32, &mb, sizeof mb, &t, 2), K_OK);
    const float mw[6] = {3, 2, 1, 2, 3, 2};
    CHECK(memcmp(mo, mw, sizeof mw) == 0);
    pads[0] = 1, pads[1] = 2; /* same total: [b | a b c | b a] */
    CHECK_EQ_INT(trun(K_OP_MIRROR_PAD_X32, &mb, sizeof mb, &t, 2), K_OK);
    const float mw2[6] = {2, 1, 2, 3, 2, 1};
    CHECK(memcmp(mo, mw2, sizeof mw2) == 0);
    pads[0] = 3, pads[1] = 0; /* REFLECT cannot pad 3 before a dim of 3 */
    CHECK_EQ_INT(trun(K_OP_MIRROR_PAD_X32, &mb, sizeof mb, &t, 2), K_E_INVALID);
    pads[0] = 2, pads[1] = 2; /* total disagrees with the output */
    CHECK_EQ_INT(trun(K_OP_MIRROR_PAD_X32, &mb, sizeof mb, &t, 2), K_E_INVALID);
    pads[0] = -1, pads[1] = 4;
    CHECK_EQ_INT(trun(K_OP_MIRROR_PAD_X32, &mb, sizeof mb, &t, 2), K_E_INVALID);

    /* SPACE_TO_BATCH_ND int8 [1,2,2,1] block [2,2] -> [4,1,1,1]; then a
     * block that does not fit the static shapes */
    k_op_s2b_blob sb = {.rank = 4, .in_dims = {1, 2, 2, 1}, .out_dims = {4, 1, 1, 1}, .pad_value = 0};
    const int8_t si[4] = {1, 2, 3, 4};
    int32_t blk[2] = {2, 2};
    const int32_t crp[4] = {0, 0, 0, 0};
    int8_t sout[4];
    SET_IN(t, 0, si, sizeof si);
    SET_IN(t, 1, blk, sizeof blk);
    SET_IN(t, 2, crp, sizeof crp);
    SET_OUT(t, sout, sizeof sout);
    CHECK_EQ_INT(trun(K_OP_SPACE_TO_BATCH_X8, &sb, sizeof sb, &t, 3), K_OK);
    CHECK(sout[0] == 1 && sout[1] == 2 && sout[2] == 3 && sout[3] == 4);
    blk[1] = 1;
    CHECK_EQ_INT(trun(K_OP_SPACE_TO_BATCH_X8, &sb, sizeof sb, &t, 3), K_E_INVALID);
    blk[1] = 0;
    CHECK_EQ_INT(trun(K_OP_SPACE_TO_BATCH_X8, &sb, sizeof sb, &t, 3), K_E_INVALID);
    /* and back: BATCH_TO_SPACE_ND */
    k_op_s2b_blob bs = {.rank = 4, .in_dims = {4, 1, 1, 1}, .out_dims = {1, 2, 2, 1}, .pad_value = 0};
    blk[1] = 2;
    int8_t back[4];
    SET_IN(t, 0, sout, sizeof sout);
    SET_OUT(t, back, sizeof back);
    CHECK_EQ_INT(trun(K_OP_BATCH_TO_SPACE_X8, &bs, sizeof bs, &t, 3), K_OK);
    CHECK(memcmp(back, si, 4) == 0);
}

/* ---- damaged blobs and wrong tensor sizes ------------------------------------------- */

typedef struct fcase {
    uint32_t kind;
    const void *blob;
    uint32_t size;
    int32_t n_in;
    const void *in[3];
    uint32_t in_size[3];
    uint32_t out_size;
} fcase;

/* Runs with heap copies of exactly the given sizes so that ASan sees any
 * access outside them. */
static int run_exact(const fcase *c, const void *blob)
{
    tio t;
    void *bufs[4] = {0};
    for (int32_t i = 0; i < c->n_in; i++) {
        bufs[i] = malloc(c->in_size[i] ? c->in_size[i] : 1);
        memcpy(bufs[i], c->in[i], c->in_size[i]);
        SET_IN(t, i, bufs[i], c->in_size[i]);
    }
    bufs[3] = malloc(c->out_size ? c->out_size : 1);
    SET_OUT(t, bufs[3], c->out_size);
    int rc = trun(c->kind, blob, c->size, &t, c->n_in);
    for (int i = 0; i < 4; i++) free(bufs[i]);
    return rc;
}

static void test_damage(void)
{
    static const int32_t hostile[] = {-1, 0, 1, 2, 3, 7, 64, 1 << 20, INT32_MAX, INT32_MIN, 0x7f7f7f7f};
    const int8_t d8[64] = {1, 2, 3, 4, 5, 6, 7, 8};
    const int32_t i0[8] = {0, 1, 0, 1, 1, 0, 1, 1};
    const int32_t two[4] = {2, 2, 2, 2};
    const int32_t zero4[4] = {0, 0, 0, 0};
    k_op_shape_blob shb = {.n = 3, .v = {1, 2, 3}};
    k_op_fill_blob fb = {.rank = 2, .dims = {2, 2}, .dims_width = 4};
    k_op_bcast_to_blob bb = {.rank = 2, .in_dims = {1, 2}, .out_dims = {2, 2}, .shape_width = 4};
    k_op_tile_blob tb = {.rank = 2, .in_dims = {1, 2}, .out_dims = {2, 2}, .shape_width = 4};
    k_op_bcast_args_blob ab = {.n1 = 2, .n2 = 2};
    k_op_gather_blob gb = {.batch = 1, .outer = 2, .axis_size = 2, .coord = 2, .inner = 2};
    k_op_gather_nd_blob nb = {.n_slices = 2, .nd = 1, .slice_size = 2, .params_count = 4, .dims = {2}, .stride = {2}};
    k_op_embedding_blob eb = {.n_ids = 2, .rows = 2, .cols = 2, .scale = 1.0f};
    k_op_reverse_blob rb = {.rank = 2, .dims = {2, 2}, .n_axes = 1};
    k_op_mirror_pad_blob mb = {.rank = 1, .in_dims = {2}, .out_dims = {4}, .offset = 0, .pad_width = 4};
    k_op_d2s_blob db = {.batch = 1, .height = 1, .width = 1, .depth = 4, .block = 2};
    k_op_d2s_blob sdb = {.batch = 1, .height = 2, .width = 2, .depth = 1, .block = 2};
    k_op_s2b_blob s2b = {.rank = 4, .in_dims = {1, 2, 2, 1}, .out_dims = {4, 1, 1, 1}, .pad_value = 0};
    k_op_s2b_blob b2s = {.rank = 4, .in_dims = {4, 1, 1, 1}, .out_dims = {1, 2, 2, 1}, .pad_value = 0};
    const fcase cases[] = {
        {K_OP_SHAPE_I32, &shb, sizeof shb, 1, {d8}, {6}, 12},
        {K_OP_FILL_X8, &fb, sizeof fb, 2, {two, d8}, {8, 1}, 4},
        {K_OP_BROADCAST_TO_X8, &bb, sizeof bb, 2, {d8, two}, {2, 8}, 4},
        {K_OP_TILE_X8, &tb, sizeof tb, 2, {d8, (const int32_t[]){2, 1}}, {2, 8}, 4},
        {K_OP_BROADCAST_ARGS_I32, &ab, sizeof ab, 2, {two, two}, {8, 8}, 8},
        {K_OP_GATHER_X8, &gb, sizeof gb, 2, {d8, i0}, {8, 8}, 8},
        {K_OP_GATHER_ND_X8, &nb, sizeof nb, 2, {d8, i0}, {4, 8}, 4},
        {K_OP_EMBEDDING_LOOKUP_X8, &eb, sizeof eb, 2, {i0, d8}, {8, 4}, 4},
        {K_OP_EMBEDDING_LOOKUP_S8_F32, &eb, sizeof eb, 2, {i0, d8}, {8, 4}, 16},
        {K_OP_REVERSE_X8, &rb, sizeof rb, 2, {d8, i0}, {4, 4}, 4},
        {K_OP_MIRROR_PAD_X8, &mb, sizeof mb, 2, {d8, (const int32_t[]){1, 1}}, {2, 8}, 4},
        {K_OP_DEPTH_TO_SPACE_X8, &db, sizeof db, 1, {d8}, {4}, 4},
        {K_OP_SPACE_TO_DEPTH_X8, &sdb, sizeof sdb, 1, {d8}, {4}, 4},
        {K_OP_SPACE_TO_BATCH_X8, &s2b, sizeof s2b, 3, {d8, two, zero4}, {4, 8, 16}, 4},
        {K_OP_BATCH_TO_SPACE_X8, &b2s, sizeof b2s, 3, {d8, two, zero4}, {4, 8, 16}, 4},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const fcase *fc = &cases[c];
        /* the intact case runs */
        CHECK_EQ_INT(k_op_validate(fc->kind, fc->blob, fc->size), K_OK);
        int rc = run_exact(fc, fc->blob);
        if (rc != K_OK) fprintf(stderr, "case %zu (kind %u) rc %d\n", c, fc->kind, rc);
        CHECK_EQ_INT(rc, K_OK);
        /* a short blob is invalid */
        CHECK_EQ_INT(k_op_validate(fc->kind, fc->blob, fc->size - 4), K_E_INVALID);
        /* an output or input one byte short is invalid */
        fcase s = *fc;
        s.out_size = fc->out_size - 1;
        CHECK_EQ_INT(run_exact(&s, fc->blob), K_E_INVALID);
        for (int32_t i = 0; i < fc->n_in; i++) {
            s = *fc;
            if (!s.in_size[i]) continue;
            s.in_size[i]--;
            /* SHAPE does not read its input */
            if (fc->kind != K_OP_SHAPE_I32) CHECK_EQ_INT(run_exact(&s, fc->blob), K_E_INVALID);
        }
        /* every field set to hostile values: invalid, or runs inside the
         * tensors (ASan checks) */
        uint8_t blob[128];
        for (uint32_t off = 0; off + 4 <= fc->size; off += 4)
            for (size_t h = 0; h < sizeof hostile / sizeof hostile[0]; h++) {
                memcpy(blob, fc->blob, fc->size);
                memcpy(blob + off, &hostile[h], 4);
                if (k_op_validate(fc->kind, blob, fc->size) == K_OK) (void)run_exact(fc, blob);
            }
    }
    /* an unknown kind of the family */
    CHECK(k_op_validate(K_OP_GATHER_LAST, &gb, sizeof gb) != K_OK);
}

/* ---- interpreter bindings ------------------------------------------------------------- */

static int prepare1(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in, const int32_t *in, int32_t out,
                    npuc_err *e, interp **ipp)
{
    kt_op1(g, opcode, opt, n_in, in, out);
    return kt_create(g, ipp, e);
}

/* Preparing g (in[] -> out) fails, the message naming needle (and needle2
 * unless NULL); frees g. */
static void expect_reject(graph *g, int32_t opcode, const tfl_options *opt, int32_t n_in, const int32_t *in,
                          int32_t out, const char *needle, const char *needle2)
{
    npuc_err e;
    interp *ip = NULL;
    int rc = prepare1(g, opcode, opt, n_in, in, out, &e, &ip);
    CHECK(rc != 0);
    CHECK_STR_CONTAINS(e.msg, needle);
    if (needle2) CHECK_STR_CONTAINS(e.msg, needle2);
    if (!rc) interp_free(ip);
    graph_free(g);
}

static void test_interp_rejects(void)
{
    tfl_options opt;
    tfl_options_default(&opt);
    {
        /* GATHER int16 params: TFLite Micro supports float32 and int8 */
        graph *g = graph_new("g");
        const int32_t sp[2] = {4, 3}, si[1] = {2}, so[2] = {2, 3};
        int32_t p = graph_add_tensor(g, "params", GRAPH_I16, 2, sp, NULL);
        int32_t i = graph_add_tensor(g, "idx", GRAPH_I32, 1, si, NULL);
        int32_t o = graph_add_tensor(g, "out", GRAPH_I16, 2, so, NULL);
        const int32_t in[2] = {p, i};
        expect_reject(g, TFL_OP_GATHER, &opt, 2, in, o, "int16", "TFLite Micro supports float32, int8");
    }
    {
        /* SHAPE with an int64 output */
        graph *g = graph_new("s");
        const int32_t si[2] = {2, 3}, so[1] = {2};
        int32_t x = graph_add_tensor(g, "x", GRAPH_F32, 2, si, NULL);
        int32_t o = graph_add_tensor(g, "out", GRAPH_I64, 1, so, NULL);
        expect_reject(g, TFL_OP_SHAPE, &opt, 1, &x, o, "int32 only", NULL);
    }
    {
        /* MIRROR_PAD int16 */
        graph *g = graph_new("m");
        const int32_t si[1] = {3}, sp[2] = {1, 2}, so[1] = {5};
        const int32_t pads[2] = {1, 1};
        int32_t x = graph_add_tensor(g, "x", GRAPH_I16, 1, si, NULL);
        int32_t p = graph_add_tensor(g, "pads", GRAPH_I32, 2, sp, pads);
        int32_t o = graph_add_tensor(g, "out", GRAPH_I16, 1, so, NULL);
        const int32_t in[2] = {x, p};
        expect_reject(g, TFL_OP_MIRROR_PAD, &opt, 2, in, o, "int16", NULL);
    }
    {
        /* REVERSE_V2 with constant non-contiguous axes */
        graph *g = graph_new("r");
        const int32_t si[3] = {2, 2, 2}, sa[1] = {2};
        const int32_t axes[2] = {0, 2};
        int32_t x = graph_add_tensor(g, "x", GRAPH_F32, 3, si, NULL);
        int32_t a = graph_add_tensor(g, "axes", GRAPH_I32, 1, sa, axes);
        int32_t o = graph_add_tensor(g, "out", GRAPH_F32, 3, si, NULL);
        const int32_t in[2] = {x, a};
        expect_reject(g, TFL_OP_REVERSE_V2, &opt, 2, in, o, "contiguous", NULL);
    }
    {
        /* EMBEDDING_LOOKUP hybrid with a non-zero zero point */
        graph *g = graph_new("e");
        const int32_t si[1] = {2}, sv[2] = {3, 2}, so[2] = {2, 2};
        static const int8_t tab[6] = {0};
        int32_t i = graph_add_tensor(g, "ids", GRAPH_I32, 1, si, NULL);
        int32_t v = graph_add_tensor(g, "value", GRAPH_I8, 2, sv, tab);
        const float sc = 0.5f;
        const int64_t zp = 3;
        graph_set_quant(g, v, 1, &sc, &zp, 0);
        int32_t o = graph_add_tensor(g, "out", GRAPH_F32, 2, so, NULL);
        const int32_t in[2] = {i, v};
        expect_reject(g, TFL_OP_EMBEDDING_LOOKUP, &opt, 2, in, o, "zero point", NULL);
    }
    {
        /* FILL with constant dims that disagree with the output */
        graph *g = graph_new("f");
        const int32_t sd[1] = {2}, so[2] = {2, 3};
        const int32_t dims[2] = {2, 4};
        int32_t d = graph_add_tensor(g, "dims", GRAPH_I32, 1, sd, dims);
        int32_t v = graph_add_tensor(g, "value", GRAPH_F32, 0, NULL, NULL);
        int32_t o = graph_add_tensor(g, "out", GRAPH_F32, 2, so, NULL);
        const int32_t in[2] = {d, v};
        expect_reject(g, TFL_OP_FILL, &opt, 2, in, o, "does not match", NULL);
    }
}

static void test_interp_runtime_shapes(void)
{
    /* FILL with dims as a graph input: checked at run time */
    tfl_options opt;
    tfl_options_default(&opt);
    npuc_err e = {0};
    interp *ip = NULL;
    graph *g = graph_new("f");
    const int32_t sd[1] = {2}, so[2] = {2, 3};
    int32_t d = graph_add_tensor(g, "dims", GRAPH_I64, 1, sd, NULL);
    int32_t v = graph_add_tensor(g, "value", GRAPH_I32, 0, NULL, NULL);
    int32_t o = graph_add_tensor(g, "out", GRAPH_I32, 2, so, NULL);
    const int32_t in[2] = {d, v};
    CHECK_EQ_INT(prepare1(g, TFL_OP_FILL, &opt, 2, in, o, &e, &ip), 0);
    if (ip) {
        int64_t dims[2] = {2, 3};
        const int32_t val = -123456;
        CHECK_EQ_INT(interp_set_input(ip, 0, dims, sizeof dims, &e), 0);
        CHECK_EQ_INT(interp_set_input(ip, 1, &val, sizeof val, &e), 0);
        CHECK_EQ_INT(interp_invoke(ip, &e), 0);
        size_t n = 0;
        const int32_t *out = interp_output(ip, 0, &n);
        CHECK_EQ_INT(n, 24);
        for (int i = 0; i < 6; i++) CHECK_EQ_INT(out[i], -123456);
        dims[0] = 3;
        CHECK_EQ_INT(interp_set_input(ip, 0, dims, sizeof dims, &e), 0);
        CHECK(interp_invoke(ip, &e) != 0);
        interp_free(ip);
    }
    graph_free(g);

    /* GATHER int8 with axis -1 and 2-d indices through the interpreter */
    g = graph_new("g");
    const int32_t sp[2] = {2, 3}, si[2] = {2, 2}, sgo[3] = {2, 2, 2};
    int32_t p = graph_add_tensor(g, "params", GRAPH_I8, 2, sp, NULL);
    int32_t i = graph_add_tensor(g, "idx", GRAPH_I32, 2, si, NULL);
    o = graph_add_tensor(g, "out", GRAPH_I8, 3, sgo, NULL);
    opt.axis = -1;
    const int32_t gin[2] = {p, i};
    CHECK_EQ_INT(prepare1(g, TFL_OP_GATHER, &opt, 2, gin, o, &e, &ip), 0);
    if (ip) {
        const int8_t par[6] = {1, 2, 3, 4, 5, 6};
        int32_t idx[4] = {2, 0, 1, 1};
        CHECK_EQ_INT(interp_set_input(ip, 0, par, sizeof par, &e), 0);
        CHECK_EQ_INT(interp_set_input(ip, 1, idx, sizeof idx, &e), 0);
        CHECK_EQ_INT(interp_invoke(ip, &e), 0);
        size_t n = 0;
        const int8_t *out = interp_output(ip, 0, &n);
        const int8_t want[8] = {3, 1, 2, 2, 6, 4, 5, 5};
        CHECK(n == 8 && memcmp(out, want, 8) == 0);
        idx[2] = 3;
        CHECK_EQ_INT(interp_set_input(ip, 1, idx, sizeof idx, &e), 0);
        CHECK(interp_invoke(ip, &e) != 0);
        interp_free(ip);
    }
    graph_free(g);
}

int main(void)
{
    test_tile();
    test_gather_indices();
    test_reverse_axes();
    test_shapes_at_run_time();
    test_damage();
    test_interp_rejects();
    test_interp_runtime_shapes();
    TEST_MAIN_END();
}
