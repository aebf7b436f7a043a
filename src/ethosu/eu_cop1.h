/* eu_cop1.h: the driver payload ("COP1") that carries a command stream to
 * the Ethos-U driver: its one definition, writer and parser
 * (docs/ethos-u.md 9.1). Freestanding (no libc).
 *
 * Little-endian 32-bit words: the magic, then driver actions, each
 * [7:0] action, [15:8] extra, [31:16] param. */
#ifndef NPUC_ETHOSU_EU_COP1_H
#define NPUC_ETHOSU_EU_COP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EU_COP1_MAGIC 0x31504F43u      /* 'C','O','P','1' */

/* Driver actions. */
enum {
    EU_COP1_RESERVED = 0,
    EU_COP1_OPTIMIZER_CONFIG = 1,      /* + CONFIG word + ID word */
    EU_COP1_COMMAND_STREAM = 2,        /* + the stream's words */
    EU_COP1_READ_APB = 3,
    EU_COP1_DUMP_SHRAM = 4,
    EU_COP1_NOP = 5
};

enum {
    EU_COP1_CONFIG_WORDS = 3,          /* OPTIMIZER_CONFIG with its two words */
    EU_COP1_ALIGN = 16,                /* payload and stream alignment in memory */
    EU_COP1_CONFIG_REL = 0,            /* the OPTIMIZER_CONFIG version Vela writes: 0.1 */
    EU_COP1_CONFIG_PATCH = 1
};
#define EU_COP1_MAX_STREAM_WORDS 0xFFFFFFu   /* 24-bit length */

static inline unsigned eu_cop1_action(uint32_t w) { return w & 0xFFu; }
static inline unsigned eu_cop1_param(uint32_t w) { return w >> 16; }
/* OPTIMIZER_CONFIG param: [3:0] rel, [7:4] patch; the rest 0. */
static inline unsigned eu_cop1_config_rel(unsigned param) { return param & 0xFu; }
static inline unsigned eu_cop1_config_patch(unsigned param) { return (param >> 4) & 0xFu; }
static inline bool eu_cop1_config_reserved(unsigned param) { return (param >> 8) != 0; }
static inline uint32_t eu_cop1_config_action(unsigned rel, unsigned patch)
{
    return EU_COP1_OPTIMIZER_CONFIG | ((rel & 0xFu) | (patch & 0xFu) << 4) << 16;
}
/* COMMAND_STREAM length in words: [15:8] << 16 | param. */
static inline size_t eu_cop1_stream_words(uint32_t w) { return (size_t)((w >> 8) & 0xFFu) << 16 | (w >> 16); }
static inline uint32_t eu_cop1_stream_action(size_t words)
{
    return EU_COP1_COMMAND_STREAM | (uint32_t)((words >> 16) & 0xFFu) << 8 |
           (uint32_t)(words & 0xFFFFu) << 16;
}

/* ------------------------------------------------------------ writer */

/* Words of the payload eu_cop1_write makes for a stream of n words. */
size_t eu_cop1_words(size_t n);
/* Vela's payload: magic, OPTIMIZER_CONFIG (config, id), NOPs so that the
 * stream starts at a multiple of 16 bytes, COMMAND_STREAM, the stream.
 * out holds eu_cop1_words(n) words; returns that count. n must not exceed
 * EU_COP1_MAX_STREAM_WORDS. */
size_t eu_cop1_write(uint32_t *out, uint32_t config, uint32_t id, const uint32_t *stream, size_t n);
/* The words before the stream alone (eu_cop1_words(0) of them, returned),
 * for a writer that puts the n stream words right after them itself. */
size_t eu_cop1_write_head(uint32_t *out, uint32_t config, uint32_t id, size_t n);

/* ------------------------------------------------------------ parser */

typedef enum eu_cop1_status {
    EU_COP1_OK = 0,
    EU_COP1_E_SIZE,                    /* size not a multiple of 4 */
    EU_COP1_E_SHORT,                   /* no room for the magic */
    EU_COP1_E_MAGIC,
    EU_COP1_E_CONFIG_TRUNCATED,
    EU_COP1_E_CONFIG_TWICE,
    EU_COP1_E_STREAM_TWICE,            /* only one COMMAND_STREAM is supported */
    EU_COP1_E_STREAM_PAST_END,
    EU_COP1_E_STREAM_EMPTY,
    EU_COP1_E_ACTION_UNSUPPORTED,      /* RESERVED, READ_APB, DUMP_SHRAM */
    EU_COP1_E_ACTION_UNKNOWN,
    EU_COP1_E_NO_STREAM
} eu_cop1_status;

typedef struct eu_cop1 {
    bool has_config;                   /* OPTIMIZER_CONFIG present */
    unsigned config_param;             /* its param (version) */
    uint32_t config, id;               /* the CONFIG and ID words it expects */
    size_t config_offset;              /* its byte offset */
    unsigned n_nops;
    size_t stream_offset;              /* byte offset of the command stream */
    size_t stream_words;
    /* on an error: byte offset of the action at fault and its word (the
     * first word for SIZE, SHORT, NO_STREAM) */
    size_t err_offset;
    uint32_t err_word;
} eu_cop1;

/* Walks the payload: the magic, then every action. Accepts one
 * COMMAND_STREAM and at most one OPTIMIZER_CONFIG (whose version the
 * caller judges). */
eu_cop1_status eu_cop1_parse(const uint8_t *data, size_t size, eu_cop1 *out);

#endif /* NPUC_ETHOSU_EU_COP1_H */
