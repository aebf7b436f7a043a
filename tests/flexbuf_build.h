/* Test helper: builds a FlexBuffer root map of scalars by hand (keys with
 * 1-byte offsets, elements of one byte width), the layout flexbuffers.h
 * writes, so tests can feed the reader known and damaged buffers. */
#ifndef NPUC_TEST_FLEXBUF_BUILD_H
#define NPUC_TEST_FLEXBUF_BUILD_H

#include <stdint.h>
#include <string.h>

typedef struct fb_ent {
    const char *key;
    uint8_t type;  /* FLEXBUF_* */
    uint64_t bits; /* raw little-endian value of the element width */
} fb_ent;

static inline uint64_t fb_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Map of n entries with element width w (1, 2, 4 or 8); returns the length. */
static inline size_t fb_build(uint8_t *buf, const fb_ent *e, int n, uint32_t w)
{
    size_t pos = 0, koff[32];
    for (int i = 0; i < n; i++) {
        koff[i] = pos;
        size_t l = strlen(e[i].key) + 1;
        memcpy(buf + pos, e[i].key, l);
        pos += l;
    }
    buf[pos++] = (uint8_t)n; /* keys vector size, width 1 */
    const size_t kv = pos;
    for (int i = 0; i < n; i++, pos++) buf[pos] = (uint8_t)(pos - koff[i]);
    while (pos % w) buf[pos++] = 0;
    const uint64_t hdr[3] = {0, 1, (uint64_t)n};
    for (int s = 0; s < 3; s++) {
        uint64_t v = s == 0 ? (uint64_t)(pos - kv) : hdr[s];
        for (uint32_t b = 0; b < w; b++) buf[pos++] = (uint8_t)(v >> (8 * b));
    }
    const size_t data = pos;
    for (int i = 0; i < n; i++)
        for (uint32_t b = 0; b < w; b++) buf[pos++] = (uint8_t)(e[i].bits >> (8 * b));
    const uint8_t lw = w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
    for (int i = 0; i < n; i++) buf[pos++] = (uint8_t)(e[i].type << 2 | lw);
    buf[pos] = (uint8_t)(pos - data); /* root offset, width 1 */
    pos++;
    buf[pos++] = (uint8_t)(9u << 2 | lw); /* MAP */
    buf[pos++] = 1;
    return pos;
}

#endif
