/* Every TFLite tensor type imports (graph_dtype, element sizes, int4 packed
 * two per byte, string/resource/variant as raw bytes); an op on a type the
 * reference kernels do not run gives one error naming the op, the operator,
 * the tensor and the type at interp_create, and the same as its CPU reason
 * at compile; inspect reads such models (NPUC_BIN). */
#include "test.h"
#include "../src/graph/graph.h"
#include "../src/interp/interp.h"
#include "test_model.h"

#include <stdint.h>
#include <unistd.h>

typedef struct tcase {
    graph_dtype dt;
    const char *name;
    size_t const_bytes;   /* bytes of the 5-element constant (string: raw) */
} tcase;

/* x[2,3] (model input) -> RESHAPE -> y[3,2] (model output); plus an unused
 * 5-element constant c of the same type. Written and read back as TFLite. */
static graph *roundtrip(const tcase *c, uint8_t **file, size_t *file_size)
{
    graph *g = graph_new("types");
    int32_t s23[2] = {2, 3}, s32[2] = {3, 2}, s5[1] = {5}, s2[1] = {2};
    int32_t x = graph_add_tensor(g, "x", c->dt, 2, s23, NULL);
    int32_t y = graph_add_tensor(g, "y", c->dt, 2, s32, NULL);
    int32_t shape[2] = {3, 2};
    int32_t sh = graph_add_tensor(g, "shape", GRAPH_I32, 1, s2, shape);
    uint8_t raw[128];
    for (size_t i = 0; i < sizeof raw; i++) raw[i] = (uint8_t)(i * 7 + 1);
    int32_t k = graph_add_tensor(g, "c", c->dt, 1, s5, graph_dtype_fixed(c->dt) ? raw : NULL);
    if (!graph_dtype_fixed(c->dt)) {
        g->tensors[k].data = npuc_arena_memdup(&g->arena, raw, c->const_bytes);
        g->tensors[k].nbytes = c->const_bytes;
    }
    tfl_options o;
    tfl_options_default(&o);
    int32_t ins[2] = {x, sh};
    graph_add_op(g, TFL_OP_RESHAPE, &o, 2, ins, 1, &y);
    graph_set_io(g, 1, &x, 1, &y);
    tfl_model *m = NULL;
    npuc_err e = {0};
    graph *h = NULL;
    *file = NULL;
    CHECK_EQ_INT(graph_export(g, &m, &e), 0);
    if (m && tfl_write(m, file, file_size, &e) == 0) {
        tfl_model *r = NULL;
        CHECK_EQ_INT(tfl_read(*file, *file_size, &r, &e), 0);
        if (r) {
            int rc = graph_import(r, &h, &e);
            if (rc) fprintf(stderr, "%s: %s\n", c->name, e.msg);
            CHECK_EQ_INT(rc, 0);
        }
        tfl_model_free(r);
    }
    tfl_model_free(m);
    graph_free(g);
    return h;
}

static void check_cli(const char *npuc, const char *dir, const tcase *c, const uint8_t *file, size_t size)
{
    char path[256], cmd[2400], out[4096];
    snprintf(path, sizeof path, "%s/%s.tflite", dir, c->name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(file, 1, size, f);
    fclose(f);
    /* inspect reads it and names the type */
    snprintf(cmd, sizeof cmd, "'%s' inspect '%s' 2>&1", npuc, path);
    size_t n = 0;
    int rc = t_sh(cmd, out, sizeof out, &n);
    CHECK_EQ_INT(rc, 0);
    CHECK_STR_CONTAINS(out, c->name);
    /* run: one line naming op, operator, tensor and type; exit 1 */
    snprintf(cmd, sizeof cmd, "'%s' run '%s' --random-input 2>&1", npuc, path);
    rc = t_sh(cmd, out, sizeof out, &n);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    char want[160];
    snprintf(want, sizeof want, "op 0 (RESHAPE): input 0 is tensor 0 ('x') of type %s", c->name);
    CHECK_STR_CONTAINS(out, want);
    size_t lines = 0;
    for (size_t i = 0; i < n; i++) lines += out[i] == '\n';
    CHECK_EQ_INT(lines, 1);
    /* compile: the op stays on the CPU with that reason; no model whose CPU
     * op nothing runs is written */
    char od[300];
    snprintf(od, sizeof od, "%s/out_%s", dir, c->name);
    snprintf(cmd, sizeof cmd, "'%s' compile '%s' -o '%s' 2>&1", npuc, path, od);
    rc = t_sh(cmd, out, sizeof out, &n);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    char reason[200];
    snprintf(reason, sizeof reason, "op 0 RESHAPE: input 0 is tensor 0 ('x') of type %s, which", c->name);
    CHECK_STR_CONTAINS(out, reason);
    /* the npuc runtime's format carries prepared CPU ops: refused, nothing written */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'; '%s' compile '%s' -o '%s' --output-format bin 2>&1", od, npuc, path, od);
    rc = t_sh(cmd, out, sizeof out, &n);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    CHECK_STR_CONTAINS(out, want);
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -q .", od);
    CHECK(system(cmd) != 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", od, path);
    if (!getenv("KEEP_TYPES") && system(cmd)) {}
}

int main(void)
{
    static const tcase cases[] = {
        {GRAPH_F16, "float16", 10},   {GRAPH_F64, "float64", 40},
        {GRAPH_C64, "complex64", 40}, {GRAPH_C128, "complex128", 80}, {GRAPH_I4, "int4", 3},
        {GRAPH_STRING, "string", 33}, {GRAPH_RESOURCE, "resource", 20}, {GRAPH_VARIANT, "variant", 0},
    };
    /* sizes */
    CHECK_EQ_INT(graph_dtype_nbytes(GRAPH_I4, 5), 3);
    CHECK_EQ_INT(graph_dtype_nbytes(GRAPH_I4, 6), 3);
    CHECK_EQ_INT(graph_dtype_nbytes(GRAPH_F16, 5), 10);
    CHECK_EQ_INT(graph_dtype_nbytes(GRAPH_C128, 2), 32);
    CHECK_EQ_INT(graph_dtype_nbytes(GRAPH_STRING, 5), 0);
    CHECK(!graph_dtype_fixed(GRAPH_STRING) && graph_dtype_fixed(GRAPH_I4));
    CHECK(graph_dtype_valid(TFL_INT4) && !graph_dtype_valid(18) && !graph_dtype_valid(-1));
    CHECK(interp_dtype_runs(GRAPH_U16) && !interp_dtype_runs(GRAPH_F16));
    /* uint64: the signal library's filter bank writes it (views move it) */
    CHECK(interp_dtype_runs(GRAPH_U64));
    /* half precision conversions used for printing and random inputs */
    CHECK(graph_half_to_float(0x3c00) == 1.0f && graph_half_to_float(0xc000) == -2.0f);
    CHECK(graph_half_to_float(0x0001) == 5.9604644775390625e-8f);
    CHECK_EQ_INT(graph_float_to_half(1.0f), 0x3c00);
    CHECK_EQ_INT(graph_float_to_half(65520.0f), 0x7c00);
    CHECK_EQ_INT(graph_float_to_half(5.9604644775390625e-8f), 0x0001);
    for (uint32_t h = 0; h < 0x7c00; h++) CHECK_EQ_INT(graph_float_to_half(graph_half_to_float((uint16_t)h)), h);

    const char *npuc = getenv("NPUC_BIN");
    char dir[] = "/tmp/npuc_types_XXXXXX";
    bool have_dir = npuc && mkdtemp(dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tcase *c = &cases[i];
        uint8_t *file = NULL;
        size_t size = 0;
        graph *g = roundtrip(c, &file, &size);
        if (!g) {
            free(file);
            continue;
        }
        CHECK_EQ_INT(g->tensors[0].dtype, c->dt);
        CHECK(strcmp(graph_dtype_name(g->tensors[0].dtype), c->name) == 0);
        CHECK_EQ_INT(g->tensors[0].nbytes, graph_dtype_nbytes(c->dt, 6));
        CHECK_EQ_INT(g->tensors[3].nbytes, c->const_bytes);
        if (c->const_bytes) CHECK(g->tensors[3].data && ((const uint8_t *)g->tensors[3].data)[1] == 8);

        /* interp_create: one error naming op, operator, tensor and type */
        interp *ip = NULL;
        npuc_err e = {0};
        CHECK_EQ_INT(interp_create(g, NULL, &ip, &e), NPUC_E_UNSUPPORTED);
        char want[160];
        snprintf(want, sizeof want,
                 "op 0 (RESHAPE): input 0 is tensor 0 ('x') of type %s, which the reference kernels do not run",
                 c->name);
        CHECK_STR_CONTAINS(e.msg, want);
        CHECK(!strchr(e.msg, '\n'));
        char why[200];
        CHECK(!interp_op_supported(g, &g->ops[0], why, sizeof why));
        CHECK_STR_CONTAINS(why, "tensor 0 ('x') of type");

        /* compile: a CPU op whose reason names the tensor and type */
        cc_options co;
        npuc_err ce;
        cc_model *cm = t_compile(g, EU_U55_256, &co, &ce, c->name);
        if (cm) {
            CHECK(!cm->ops[0].npu);
            CHECK_STR_CONTAINS(cm->ops[0].why, c->name);
            CHECK_STR_CONTAINS(cm->ops[0].why, "tensor 0 ('x')");
        }
        cc_model_free(cm);
        if (have_dir) check_cli(npuc, dir, c, file, size);
        free(file);
        graph_free(g);
    }
    if (have_dir) rmdir(dir);
    TEST_MAIN_END();
}
