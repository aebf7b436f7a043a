/* libFuzzer target: prepared CPU ops (k_op_run) with a fuzzed kind, params
 * blob and tensor sizes. Every input must give K_OK, K_E_INVALID or
 * K_E_UNSUPPORTED, never a crash, hang, out-of-bounds access or sanitizer
 * report: the blob comes from a model file, so k_op_run must catch any
 * inconsistency between it and the tensors it is handed.
 *
 * Input layout (missing bytes read as 0):
 *   u16 kind (mod K_OP_KIND_END + 2, so unknown kinds occur too)
 *   u16 blob size, then the blob (copied to its own buffer of that size)
 *   u8 n_in (mod 9), u8 n_out (mod 9)
 *   u16 size of each input, then of each output (0xFFFF: NULL pointer)
 *   u16 scratch size
 *   rest      tensor contents, used cyclically to fill the inputs
 * A 64-byte persistent buffer and a 64-byte resource-variable area (zeroed)
 * go with every run (the state and control kinds use them).
 * Each tensor gets its own buffer of exactly its size, so any access past
 * what the sizes allow is caught by ASan. test_k_op writes seeds from real
 * models in this layout (NPUC_K_OP_CORPUS=dir). */
#include "../src/kernels/k_op.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
    const uint8_t *p;
    size_t n, pos;
} rd;

static uint8_t rd8(rd *r) { return r->pos < r->n ? r->p[r->pos++] : 0; }
static uint16_t rd16(rd *r)
{
    uint16_t v = rd8(r);
    return (uint16_t)(v | rd8(r) << 8);
}

#define MAX_T 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = {data, size, 0};
    const uint32_t kind = rd16(&r) % (K_OP_KIND_END + 2u);
    uint32_t blob_size = rd16(&r);
    if (blob_size > size - r.pos) blob_size = (uint32_t)(size - r.pos);
    uint8_t *blob = malloc(blob_size ? blob_size : 1);
    if (blob_size) memcpy(blob, data + r.pos, blob_size);
    r.pos += blob_size;
    const int32_t n_in = rd8(&r) % (MAX_T + 1), n_out = rd8(&r) % (MAX_T + 1);
    void *in[MAX_T] = {0}, *out[MAX_T] = {0};
    uint32_t in_size[MAX_T] = {0}, out_size[MAX_T] = {0};
    for (int32_t i = 0; i < n_in + n_out; i++) {
        const uint16_t s = rd16(&r);
        if (s == 0xFFFF) continue;
        if (i < n_in) {
            in[i] = malloc(s ? s : 1);
            in_size[i] = s;
        } else {
            out[i - n_in] = malloc(s ? s : 1);
            out_size[i - n_in] = s;
        }
    }
    const uint32_t scratch_size = rd16(&r);
    void *scratch = malloc(scratch_size ? scratch_size : 1);
    _Alignas(16) uint8_t persistent[64] = {0};
    /* the resource-variable area (k_op_control.h), its own buffer */
    const uint32_t vars_size = 64;
    uint8_t *vars = calloc(1, vars_size);
    const uint8_t *fill = data + r.pos;
    const size_t n_fill = r.pos < size ? size - r.pos : 0;
    size_t f = 0;
    for (int32_t i = 0; i < n_in; i++)
        for (uint32_t k = 0; in[i] && k < in_size[i]; k++, f++)
            ((uint8_t *)in[i])[k] = n_fill ? fill[f % n_fill] : (uint8_t)(k * 37u + 11u);
    for (int32_t i = 0; i < n_out; i++)
        if (out[i]) memset(out[i], 0xA5, out_size[i] ? out_size[i] : 1);
    const k_op_io io = {.in = in, .in_size = in_size, .n_in = n_in, .out = out, .out_size = out_size,
                        .n_out = n_out, .scratch = scratch, .scratch_size = scratch_size,
                        .persistent = persistent, .persistent_size = sizeof persistent, .vars = vars,
                        .vars_size = vars_size};
    const int rc = k_op_run(kind, blob, blob_size, &io);
    /* K_OP_NOT_READY: the op ran and ends the invocation (CIRCULAR_BUFFER) */
    if (rc != K_OK && rc != K_E_INVALID && rc != K_E_UNSUPPORTED && rc != K_OP_NOT_READY) abort();
    /* Validation alone agrees with the run about the blob. */
    if ((rc == K_OK || rc == K_OP_NOT_READY) && k_op_validate(kind, blob, blob_size) != K_OK) abort();
    for (int32_t i = 0; i < MAX_T; i++) {
        free(in[i]);
        free(out[i]);
    }
    free(scratch);
    free(vars);
    free(blob);
    return 0;
}
