/* eu_cop1: the COP1 payload writer and parser (docs/ethos-u.md 9.1).
 * Freestanding. */
#include "ethosu/eu_cop1.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Words in front of the stream: magic, OPTIMIZER_CONFIG, NOPs, the
 * COMMAND_STREAM action; the stream then starts 16-byte aligned. */
static size_t head_words(void)
{
    size_t k = 1 + EU_COP1_CONFIG_WORDS;
    while ((k + 1) % (EU_COP1_ALIGN / 4)) k++;
    return k + 1;
}

size_t eu_cop1_words(size_t n) { return head_words() + n; }

size_t eu_cop1_write_head(uint32_t *out, uint32_t config, uint32_t id, size_t n)
{
    size_t k = 0, head = head_words();
    out[k++] = EU_COP1_MAGIC;
    out[k++] = eu_cop1_config_action(EU_COP1_CONFIG_REL, EU_COP1_CONFIG_PATCH);
    out[k++] = config;
    out[k++] = id;
    while (k + 1 < head) out[k++] = EU_COP1_NOP;
    out[k++] = eu_cop1_stream_action(n);
    return k;
}

size_t eu_cop1_write(uint32_t *out, uint32_t config, uint32_t id, const uint32_t *stream, size_t n)
{
    size_t k = eu_cop1_write_head(out, config, id, n);
    for (size_t i = 0; i < n; i++) out[k++] = stream[i];
    return k;
}

static eu_cop1_status fail(eu_cop1 *out, eu_cop1_status st, size_t pos, uint32_t w)
{
    out->err_offset = pos;
    out->err_word = w;
    return st;
}

eu_cop1_status eu_cop1_parse(const uint8_t *data, size_t size, eu_cop1 *out)
{
    /* field by field: no memset, so that the driver needs nothing from libc */
    out->has_config = false;
    out->config_param = 0;
    out->config = out->id = 0;
    out->config_offset = 0;
    out->n_nops = 0;
    out->stream_offset = out->stream_words = 0;
    out->err_offset = 0;
    out->err_word = 0;
    if (size % 4) return fail(out, EU_COP1_E_SIZE, 0, 0);
    if (size < 4) return fail(out, EU_COP1_E_SHORT, 0, 0);
    uint32_t magic = rd32(data);
    if (magic != EU_COP1_MAGIC) return fail(out, EU_COP1_E_MAGIC, 0, magic);
    bool have_stream = false;
    size_t pos = 4;
    while (pos < size) {
        uint32_t w = rd32(data + pos);
        switch (eu_cop1_action(w)) {
        case EU_COP1_OPTIMIZER_CONFIG:
            if (size - pos < 4 * EU_COP1_CONFIG_WORDS)
                return fail(out, EU_COP1_E_CONFIG_TRUNCATED, pos, w);
            if (out->has_config) return fail(out, EU_COP1_E_CONFIG_TWICE, pos, w);
            out->has_config = true;
            out->config_param = eu_cop1_param(w);
            out->config_offset = pos;
            out->config = rd32(data + pos + 4);
            out->id = rd32(data + pos + 8);
            pos += 4 * EU_COP1_CONFIG_WORDS;
            break;
        case EU_COP1_COMMAND_STREAM: {
            size_t words = eu_cop1_stream_words(w);
            if (have_stream) return fail(out, EU_COP1_E_STREAM_TWICE, pos, w);
            if (words > (size - pos - 4) / 4) {
                out->stream_words = words;
                return fail(out, EU_COP1_E_STREAM_PAST_END, pos, w);
            }
            if (words == 0) return fail(out, EU_COP1_E_STREAM_EMPTY, pos, w);
            have_stream = true;
            out->stream_offset = pos + 4;
            out->stream_words = words;
            pos += 4 + 4 * words;
            break;
        }
        case EU_COP1_NOP:
            out->n_nops++;
            pos += 4;
            break;
        case EU_COP1_RESERVED:
        case EU_COP1_READ_APB:
        case EU_COP1_DUMP_SHRAM:
            return fail(out, EU_COP1_E_ACTION_UNSUPPORTED, pos, w);
        default:
            return fail(out, EU_COP1_E_ACTION_UNKNOWN, pos, w);
        }
    }
    if (!have_stream) return fail(out, EU_COP1_E_NO_STREAM, size, 0);
    return EU_COP1_OK;
}
