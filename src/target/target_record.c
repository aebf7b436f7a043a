/* target_record: where a compiled model keeps the target it was compiled
 * for, and reading it back (the record's text format is in
 * target_json.c). The NPRT container holds it as a string (header
 * target_off, include/npurt/npurt_format.h); an NPRL file wraps an NPRT
 * container (its "model" pool); NAME_npu.tflite has it as the metadata
 * entry "npuc_target". */
#include "target_int.h"

#include "npurt/npurt_format.h"
#include "npurt/reloc_format.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

#define HF(f) rd32(data + offsetof(npurt_header, f))

/* An NPRT container at data[0..size). */
static void find_nprt(const uint8_t *data, size_t size, target_found *out)
{
    if (size < sizeof(npurt_header) || rd32(data) != NPURT_MAGIC ||
        rd16(data + offsetof(npurt_header, version_major)) != NPURT_VERSION_MAJOR)
        return;
    uint32_t n = HF(size);
    if (n > size || n < sizeof(npurt_header)) return;
    out->npu_config = HF(npu_config);
    uint32_t so = HF(strings_off), ss = HF(strings_size), to = HF(target_off);
    if ((uint64_t)so + ss > n || to == 0 || to == NPURT_NO_NAME || to >= ss) return;
    const char *s = (const char *)data + so + to;
    const void *nul = memchr(s, 0, ss - to);
    if (!nul) return;
    out->record = s;
    out->record_len = (size_t)((const char *)nul - s);
}

void target_find_in_compiled(const uint8_t *data, size_t size, target_found *out)
{
    memset(out, 0, sizeof *out);
    if (!data || size < 4) return;
    uint32_t magic = rd32(data);
    if (magic == NPURT_MAGIC) {
        find_nprt(data, size, out);
        return;
    }
    if (magic != NPURL_MAGIC || size < sizeof(npurl_header)) return;
    uint32_t npu_config = rd32(data + offsetof(npurl_header, npu_config));
    uint32_t n_pools = rd32(data + offsetof(npurl_header, n_pools));
    uint32_t pools_off = rd32(data + offsetof(npurl_header, pools_off));
    if (n_pools > NPURL_MAX_POOLS || (uint64_t)pools_off + (uint64_t)n_pools * sizeof(npurl_pool) > size) return;
    for (uint32_t i = 0; i < n_pools; i++) {
        const uint8_t *p = data + pools_off + i * sizeof(npurl_pool);
        if (p[offsetof(npurl_pool, kind)] != NPURL_K_MODEL) continue;
        uint32_t off = rd32(p + offsetof(npurl_pool, file_off)), len = rd32(p + offsetof(npurl_pool, file_size));
        if ((uint64_t)off + len <= size) find_nprt(data + off, len, out);
        break;
    }
    out->npu_config = npu_config;
}

void target_find_in_tflite(const tfl_model *tm, target_found *out)
{
    memset(out, 0, sizeof *out);
    for (int32_t i = 0; tm && i < tm->n_metadata; i++) {
        const tfl_metadata *md = &tm->metadata[i];
        if (!md->name || strcmp(md->name, TARGET_RECORD_METADATA) != 0) continue;
        if (md->buffer >= (uint32_t)tm->n_buffers) return;
        const tfl_buffer *b = &tm->buffers[md->buffer];
        if (!b->data) return;
        const void *nul = memchr(b->data, 0, b->size);
        out->record = (const char *)b->data;
        out->record_len = nul ? (size_t)((const uint8_t *)nul - b->data) : b->size;
        return;
    }
}

int target_found_parse(const target_found *f, const char *source, target_desc *recorded, bool *have_record,
                       eu_variant *variant, bool *have_variant, npuc_err *err)
{
    *have_record = *have_variant = false;
    if (f->npu_config) {
        if (sim_variant_from_config(f->npu_config, variant, err))
            return npuc_err_prefix(err, "%s: NPU configuration 0x%08x", source, (unsigned)f->npu_config);
        *have_variant = true;
    }
    if (f->record) {
        char where[300];
        snprintf(where, sizeof where, "%s: target record", source);
        int rc = target_record_parse(f->record, f->record_len, where, recorded, err);
        if (rc) {
            if (err) err->code = NPUC_E_FORMAT;   /* a bad file, whatever the check */
            return NPUC_E_FORMAT;
        }
        *have_record = true;
    }
    return NPUC_OK;
}
