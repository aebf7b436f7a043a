/* Coral's PosenetDecoderOp (k_posenet.c, ops_custom.c): six decoder inputs
 * of the zoo PoseNet's size (23x31, its quantization), random maps and maps
 * with blobs of high scores, decoded by the kernel, by the reference
 * interpreter and by a compiled model on the runtime; the expected figures
 * (pose count, pose scores' bits, FNV-1a 64 of the keypoint and keypoint
 * score outputs) are Coral's decoder's (google-coral/edgetpu's
 * posenet_decoder.cc built with GCC's standard library) for these inputs.
 * Then the blob checks, the binding's errors, and the output shapes the
 * importer gives the zoo model's decoder (its file leaves them empty). */
#include "test.h"
#include "k_op_test.h"
#include "flexbuf_build.h"
#include "../include/npuc/npuc.h"
#include "../src/tflite/flexbuf.h"
#include "../src/tflite/tflite.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define H 23
#define W 31
#define D 10
#define NHM (H * W * 17)
#define NSO (H * W * 34)
#define NMO (H * W * 64)

static const k_op_posenet_blob base = {H, W, D, 16, 0.5f, 20.0f, {0, 0, 0}, {0.0894176885f, 0.722414017f, 1.48163044f},
                                       {180, 134, 118}, 0};

/* Case k: odd, random maps; even, heatmaps in 0..120 with 20 blobs of 5x5
 * cells in 230..255 on every channel; random offsets. */
static void gen(int k, uint8_t *hm, uint8_t *so, uint8_t *mo)
{
    npuc_rng r;
    npuc_rng_seed(&r, 7000 + (uint64_t)k);
    for (int i = 0; i < NHM; i++) hm[i] = (uint8_t)npuc_rng_range(&r, 0, k % 2 ? 255 : 120);
    if (k % 2 == 0)
        for (int b = 0; b < 20; b++) {
            const int cy = (int)npuc_rng_range(&r, 0, H - 1), cx = (int)npuc_rng_range(&r, 0, W - 1);
            for (int y = cy - 2; y <= cy + 2; y++)
                for (int x = cx - 2; x <= cx + 2; x++)
                    if (y >= 0 && y < H && x >= 0 && x < W)
                        for (int c = 0; c < 17; c++) hm[(y * W + x) * 17 + c] = (uint8_t)npuc_rng_range(&r, 230, 255);
        }
    for (int i = 0; i < NSO; i++) so[i] = (uint8_t)npuc_rng_range(&r, 0, 255);
    for (int i = 0; i < NMO; i++) mo[i] = (uint8_t)npuc_rng_range(&r, 0, 255);
}

/* Coral's decoder on these inputs. */
static const struct {
    int count;
    uint64_t kp, kps;
    uint32_t ps[8];
} want[6] = {
    {1, 0x8ef9a11df80fa3b0ull, 0xbf302a5b3cb9a6e5ull, {0x3f06cc38}},
    {8, 0x650806d6f45436c5ull, 0x88ed66b71e95109aull,
     {0x3f51d68b, 0x3f4236cf, 0x3f3407c9, 0x3f185e2b, 0x3f072416, 0x3f06f5dd, 0x3f06386a, 0x3f0362e8}},
    {0, 0x2cfe148635d86d65ull, 0x8966aa25ccf8e45ull, {0}},
    {7, 0xc9bab597a598afcaull, 0xa67bb9380caea997ull,
     {0x3f238e69, 0x3f223ac8, 0x3f1ef06d, 0x3f1a6c5d, 0x3f08180a, 0x3f072893, 0x3f03a964}},
    {0, 0x2cfe148635d86d65ull, 0x8966aa25ccf8e45ull, {0}},
    {8, 0xc983b886c6a32ccaull, 0x32be0505429479d5ull,
     {0x3f5feee4, 0x3f32b4c4, 0x3f1a628a, 0x3f15630e, 0x3f0b8ee7, 0x3f088cda, 0x3f07ac3b, 0x3f0052e8}},
};

static uint64_t fnv(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

typedef struct outs {
    float kp[D * 17 * 2], kps[D * 17], ps[D], n;
} outs;

static void check_outs(const outs *o, int k, const char *what)
{
    const int c = want[k - 1].count;
    if ((int)o->n != c) fprintf(stderr, "%s case %d: %g poses, Coral %d\n", what, k, (double)o->n, c);
    CHECK_EQ_INT((int)o->n, c);
    CHECK(fnv(o->kp, sizeof o->kp) == want[k - 1].kp);
    CHECK(fnv(o->kps, sizeof o->kps) == want[k - 1].kps);
    for (int i = 0; i < D; i++) {
        uint32_t u;
        memcpy(&u, &o->ps[i], 4);
        CHECK_EQ_INT(u, i < c ? want[k - 1].ps[i] : 0);
    }
}

static int run_kernel(const k_op_posenet_blob *b, uint8_t *hm, uint8_t *so, uint8_t *mo, outs *o)
{
    void *in[3] = {hm, so, mo}, *out[4] = {o->kp, o->kps, o->ps, &o->n};
    const uint32_t isz[3] = {NHM, NSO, NMO}, osz[4] = {sizeof o->kp, sizeof o->kps, sizeof o->ps, 4};
    const uint64_t ss = k_posenet_scratch_bytes(b);
    void *scratch = malloc(ss ? ss : 1);
    k_op_io io = {.in = in, .in_size = isz, .n_in = 3, .out = out, .out_size = osz, .n_out = 4, .scratch = scratch,
                  .scratch_size = (uint32_t)ss};
    const int rc = k_op_run(K_OP_POSENET_DECODER, b, sizeof *b, &io);
    free(scratch);
    return rc;
}

/* The decoder alone as a graph: three uint8 inputs, four float outputs. */
static graph *decoder_graph(const uint8_t *opts, uint32_t n_opts, graph_dtype hm_type, int32_t out0_rank)
{
    graph *g = graph_new("posenet_decoder");
    const int32_t shm[4] = {1, H, W, 17}, sso[4] = {1, H, W, 34}, smo[4] = {1, H, W, 64};
    int32_t in[3], out[4];
    in[0] = kt_tensor(g, "heatmaps", hm_type, 4, shm, NULL, base.scale[0], base.zero_point[0]);
    in[1] = kt_tensor(g, "short_offsets", GRAPH_U8, 4, sso, NULL, base.scale[1], base.zero_point[1]);
    in[2] = kt_tensor(g, "mid_offsets", GRAPH_U8, 4, smo, NULL, base.scale[2], base.zero_point[2]);
    const int32_t s0[4] = {1, D, 17, 2}, s1[3] = {1, D, 17}, s2[2] = {1, D}, s3[1] = {1};
    out[0] = kt_tensor(g, "poses", GRAPH_F32, out0_rank, s0, NULL, 0, 0);
    out[1] = kt_tensor(g, "poses:1", GRAPH_F32, 3, s1, NULL, 0, 0);
    out[2] = kt_tensor(g, "poses:2", GRAPH_F32, 2, s2, NULL, 0, 0);
    out[3] = kt_tensor(g, "poses:3", GRAPH_F32, 1, s3, NULL, 0, 0);
    const int32_t oi = graph_add_op(g, TFL_OP_CUSTOM, NULL, 3, in, 4, out);
    g->ops[oi].custom_code = npuc_arena_strdup(&g->arena, "PosenetDecoderOp");
    if (n_opts) {
        g->ops[oi].custom_options = npuc_arena_memdup(&g->arena, opts, n_opts);
        g->ops[oi].n_custom_options = n_opts;
    }
    graph_set_io(g, 3, in, 4, out);
    return g;
}

static size_t decoder_opts(uint8_t *buf, int64_t max_det)
{
    const fb_ent e[4] = {{"max_detections", FLEXBUF_INT, (uint64_t)max_det},
                         {"nms_radius", FLEXBUF_FLOAT, fb_f32(20.0f)},
                         {"score_threshold", FLEXBUF_FLOAT, fb_f32(0.5f)},
                         {"stride", FLEXBUF_INT, 16}};
    return fb_build(buf, e, 4, 4);
}

static void test_cases(void)
{
    static uint8_t hm[NHM], so[NSO], mo[NMO];
    uint8_t opts[256];
    const size_t no = decoder_opts(opts, D);
    /* the same graph as a TFLite file, compiled for the runtime (a model
     * of one CPU op) */
    graph *g = decoder_graph(opts, (uint32_t)no, GRAPH_U8, 4);
    tfl_model *tm = NULL;
    uint8_t *file = NULL;
    size_t file_size = 0;
    npuc_err e = {0};
    CHECK_EQ_INT(graph_export(g, &tm, &e), 0);
    if (tm) CHECK_EQ_INT(tfl_write(tm, &file, &file_size, &e), 0);
    tfl_model_free(tm);
    npuc_compile_options co;
    memset(&co, 0, sizeof co);
    co.formats = NPUC_FORMAT_NPRT;
    npuc_compiled *c = NULL;
    npuc_model *rt = NULL;
    if (file && npuc_compile_memory(file, file_size, &co, &c) == NPUC_STATUS_OK) {
        for (size_t i = 0; i < npuc_compiled_file_count(c); i++) {
            npuc_output_file f;
            npuc_compiled_file(c, i, &f);
            if (strstr(f.name, ".nprt")) CHECK_EQ_INT(npuc_model_open_memory(f.data, f.size, NULL, NULL, &rt), 0);
        }
    } else {
        fprintf(stderr, "compile: %s\n", npuc_last_error());
    }
    CHECK(rt != NULL);
    interp *ip = NULL;
    CHECK_EQ_INT(interp_create(g, NULL, &ip, &e), NPUC_OK);
    for (int k = 1; k <= 6; k++) {
        gen(k, hm, so, mo);
        outs o;
        memset(&o, 0x55, sizeof o);
        CHECK_EQ_INT(run_kernel(&base, hm, so, mo, &o), K_OK);
        check_outs(&o, k, "kernel");
        if (ip) {
            memset(&o, 0x55, sizeof o);
            CHECK(!interp_set_input(ip, 0, hm, NHM, &e) && !interp_set_input(ip, 1, so, NSO, &e) &&
                  !interp_set_input(ip, 2, mo, NMO, &e) && !interp_invoke(ip, &e));
            memcpy(o.kp, interp_output(ip, 0, NULL), sizeof o.kp);
            memcpy(o.kps, interp_output(ip, 1, NULL), sizeof o.kps);
            memcpy(o.ps, interp_output(ip, 2, NULL), sizeof o.ps);
            memcpy(&o.n, interp_output(ip, 3, NULL), 4);
            check_outs(&o, k, "interpreter");
        }
        if (rt) {
            memset(&o, 0x55, sizeof o);
            CHECK(!npuc_set_input(rt, 0, hm, NHM) && !npuc_set_input(rt, 1, so, NSO) &&
                  !npuc_set_input(rt, 2, mo, NMO) && !npuc_run(rt, NULL));
            CHECK(!npuc_get_output(rt, 0, o.kp, sizeof o.kp) && !npuc_get_output(rt, 1, o.kps, sizeof o.kps) &&
                  !npuc_get_output(rt, 2, o.ps, sizeof o.ps) && !npuc_get_output(rt, 3, &o.n, 4));
            check_outs(&o, k, "runtime");
        }
    }
    interp_free(ip);
    npuc_model_close(&rt);
    npuc_compiled_free(&c);
    free(file);
    graph_free(g);
}

static void test_blob(void)
{
    CHECK_EQ_INT(k_op_validate(K_OP_POSENET_DECODER, &base, sizeof base), K_OK);
    CHECK_EQ_INT(k_op_validate(K_OP_POSENET_DECODER, &base, sizeof base - 4), K_E_INVALID);
    k_op_posenet_blob b = base;
    b.zero_point[1] = 256;
    CHECK_EQ_INT(k_op_validate(K_OP_POSENET_DECODER, &b, sizeof b), K_E_INVALID);
    b = base;
    b.type[2] = 2;
    CHECK_EQ_INT(k_op_validate(K_OP_POSENET_DECODER, &b, sizeof b), K_E_INVALID);
    b = base;
    b.stride = 0;
    CHECK_EQ_INT(k_op_validate(K_OP_POSENET_DECODER, &b, sizeof b), K_E_INVALID);
    /* outputs shorter than max_detections say */
    static uint8_t hm[NHM], so[NSO], mo[NMO];
    outs o;
    b = base;
    b.max_detections = D + 1;
    CHECK_EQ_INT(run_kernel(&b, hm, so, mo, &o), K_E_INVALID);
}

static void expect_create(graph *g, int want_rc, const char *msg)
{
    npuc_err e = {0};
    CHECK_EQ_INT(kt_try_create(g, &e), want_rc);
    if (msg) CHECK_STR_CONTAINS(e.msg, msg);
    graph_free(g);
}

static void test_errors(void)
{
    uint8_t opts[256];
    const size_t no = decoder_opts(opts, D);
    expect_create(decoder_graph(opts, (uint32_t)no, GRAPH_U8, 4), NPUC_OK, NULL);
    expect_create(decoder_graph(opts, (uint32_t)no, GRAPH_I8, 4), NPUC_E_UNSUPPORTED,
                  "heatmaps 'heatmaps' is int8; Coral's kernel takes uint8 or float32");
    expect_create(decoder_graph(NULL, 0, GRAPH_U8, 4), NPUC_E_INVALID, "custom_options are missing");
    expect_create(decoder_graph(opts, (uint32_t)no, GRAPH_U8, 3), NPUC_E_INVALID, "poses");
    const size_t n0 = decoder_opts(opts, 0);
    expect_create(decoder_graph(opts, (uint32_t)n0, GRAPH_U8, 4), NPUC_E_INVALID, "max_detections 0 is outside 1..1000");
}

/* The zoo model's decoder outputs are shapeless in its file (the importer
 * leaves them so); interp_infer_shapes gives them the shapes the
 * decoder's binding declares from its max_detections (20). */
static void test_import_shapes(void)
{
    char path[1024];
    if (!t_shared("models/zoo/coral_posenet_mnv1_075_353_481_int8_decoder.tflite", path, sizeof path)) {
        printf("skip: shared zoo model coral_posenet_mnv1_075_353_481_int8_decoder absent\n");
        return;
    }
    tfl_model *tm = NULL;
    graph *g = NULL;
    npuc_err e = {0};
    CHECK(tfl_read_file(path, &tm, &e) == 0 && graph_import(tm, &g, &e) == 0);
    if (g) {
        CHECK_EQ_INT(g->n_outputs, 4);
        CHECK(g->tensors[g->outputs[0]].rank == 0 && g->tensors[g->outputs[3]].rank == 0);
        interp_infer_shapes(g);
        const graph_tensor *t0 = &g->tensors[g->outputs[0]], *t3 = &g->tensors[g->outputs[3]];
        CHECK(t0->rank == 4 && t0->shape[1] == 20 && t0->shape[2] == 17 && t0->shape[3] == 2 && t0->nbytes == 2720);
        CHECK(t3->rank == 1 && t3->shape[0] == 1 && t3->nbytes == 4);
        /* and the whole model prepares on the reference interpreter */
        interp *ip = NULL;
        CHECK_EQ_INT(interp_create(g, NULL, &ip, &e), NPUC_OK);
        interp_free(ip);
    }
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    test_cases();
    test_blob();
    test_errors();
    test_import_shapes();
    TEST_MAIN_END();
}
