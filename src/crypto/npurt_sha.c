/* npurt: SHA-256 and SHA-512 as specified in FIPS 180-4 (sections 4.1.2,
 * 4.1.3, 4.2.2, 4.2.3, 5.1, 5.3.3, 5.3.5, 6.2 and 6.4), plus a
 * constant-time byte compare. Straightforward block-at-a-time code written
 * for clarity; words are loaded and stored big-endian byte by byte, so the
 * code works on any host endianness and alignment. Freestanding. */
#include "npurt/npurt_crypto.h"

#include <string.h>

/* ---- SHA-256 ---------------------------------------------------------- */

/* FIPS 180-4 4.2.2: first 32 bits of the fractional parts of the cube roots
 * of the first 64 primes. */
static const uint32_t k256[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u,
    0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
    0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
    0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u,
    0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u,
    0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u,
    0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
    0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

/* FIPS 180-4 5.3.3: square roots of the first 8 primes. */
static const uint32_t h256_init[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
    0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

static uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32u - n));
}

static uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
           (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* FIPS 180-4 6.2.2: one 512-bit block. */
static void sha256_block(uint32_t h[8], const uint8_t *blk)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = load_be32(blk + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ror32(w[t - 15], 7) ^ ror32(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = ror32(w[t - 2], 17) ^ ror32(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    uint32_t e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        /* T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t], T2 = Sigma0(a) + Maj(a, b, c). */
        uint32_t t1 = hh + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
                      k256[t] + w[t];
        uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void npurt_sha256_init(npurt_sha256_ctx *c)
{
    memcpy(c->h, h256_init, sizeof c->h);
    c->len = 0;
}

void npurt_sha256_update(npurt_sha256_ctx *c, const void *p, size_t n)
{
    const uint8_t *in = (const uint8_t *)p;
    while (n > 0) {
        size_t fill = (size_t)(c->len % 64u);
        size_t take = 64u - fill < n ? 64u - fill : n;
        if (fill == 0 && n >= 64) {
            /* Whole block straight from the input: no copy needed. */
            sha256_block(c->h, in);
            take = 64;
        } else {
            memcpy(c->buf + fill, in, take);
            if (fill + take == 64) sha256_block(c->h, c->buf);
        }
        c->len += take;
        in += take;
        n -= take;
    }
}

/* FIPS 180-4 5.1.1: 0x80, zeros, then the bit length as a 64-bit word. */
void npurt_sha256_final(npurt_sha256_ctx *c, uint8_t out[32])
{
    uint64_t bits = c->len * 8u;
    size_t fill = (size_t)(c->len % 64u);
    c->buf[fill++] = 0x80;
    if (fill > 56) {
        memset(c->buf + fill, 0, 64 - fill);
        sha256_block(c->h, c->buf);
        fill = 0;
    }
    memset(c->buf + fill, 0, 56 - fill);
    store_be32(c->buf + 56, (uint32_t)(bits >> 32));
    store_be32(c->buf + 60, (uint32_t)bits);
    sha256_block(c->h, c->buf);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, c->h[i]);
    memset(c, 0, sizeof *c);
}

void npurt_sha256(const void *p, size_t n, uint8_t out[32])
{
    npurt_sha256_ctx c;
    npurt_sha256_init(&c);
    npurt_sha256_update(&c, p, n);
    npurt_sha256_final(&c, out);
}

/* ---- SHA-512 ---------------------------------------------------------- */

/* FIPS 180-4 4.2.3: first 64 bits of the fractional parts of the cube roots
 * of the first 80 primes. */
static const uint64_t k512[80] = {
    UINT64_C(0x428a2f98d728ae22), UINT64_C(0x7137449123ef65cd),
    UINT64_C(0xb5c0fbcfec4d3b2f), UINT64_C(0xe9b5dba58189dbbc),
    UINT64_C(0x3956c25bf348b538), UINT64_C(0x59f111f1b605d019),
    UINT64_C(0x923f82a4af194f9b), UINT64_C(0xab1c5ed5da6d8118),
    UINT64_C(0xd807aa98a3030242), UINT64_C(0x12835b0145706fbe),
    UINT64_C(0x243185be4ee4b28c), UINT64_C(0x550c7dc3d5ffb4e2),
    UINT64_C(0x72be5d74f27b896f), UINT64_C(0x80deb1fe3b1696b1),
    UINT64_C(0x9bdc06a725c71235), UINT64_C(0xc19bf174cf692694),
    UINT64_C(0xe49b69c19ef14ad2), UINT64_C(0xefbe4786384f25e3),
    UINT64_C(0x0fc19dc68b8cd5b5), UINT64_C(0x240ca1cc77ac9c65),
    UINT64_C(0x2de92c6f592b0275), UINT64_C(0x4a7484aa6ea6e483),
    UINT64_C(0x5cb0a9dcbd41fbd4), UINT64_C(0x76f988da831153b5),
    UINT64_C(0x983e5152ee66dfab), UINT64_C(0xa831c66d2db43210),
    UINT64_C(0xb00327c898fb213f), UINT64_C(0xbf597fc7beef0ee4),
    UINT64_C(0xc6e00bf33da88fc2), UINT64_C(0xd5a79147930aa725),
    UINT64_C(0x06ca6351e003826f), UINT64_C(0x142929670a0e6e70),
    UINT64_C(0x27b70a8546d22ffc), UINT64_C(0x2e1b21385c26c926),
    UINT64_C(0x4d2c6dfc5ac42aed), UINT64_C(0x53380d139d95b3df),
    UINT64_C(0x650a73548baf63de), UINT64_C(0x766a0abb3c77b2a8),
    UINT64_C(0x81c2c92e47edaee6), UINT64_C(0x92722c851482353b),
    UINT64_C(0xa2bfe8a14cf10364), UINT64_C(0xa81a664bbc423001),
    UINT64_C(0xc24b8b70d0f89791), UINT64_C(0xc76c51a30654be30),
    UINT64_C(0xd192e819d6ef5218), UINT64_C(0xd69906245565a910),
    UINT64_C(0xf40e35855771202a), UINT64_C(0x106aa07032bbd1b8),
    UINT64_C(0x19a4c116b8d2d0c8), UINT64_C(0x1e376c085141ab53),
    UINT64_C(0x2748774cdf8eeb99), UINT64_C(0x34b0bcb5e19b48a8),
    UINT64_C(0x391c0cb3c5c95a63), UINT64_C(0x4ed8aa4ae3418acb),
    UINT64_C(0x5b9cca4f7763e373), UINT64_C(0x682e6ff3d6b2b8a3),
    UINT64_C(0x748f82ee5defb2fc), UINT64_C(0x78a5636f43172f60),
    UINT64_C(0x84c87814a1f0ab72), UINT64_C(0x8cc702081a6439ec),
    UINT64_C(0x90befffa23631e28), UINT64_C(0xa4506cebde82bde9),
    UINT64_C(0xbef9a3f7b2c67915), UINT64_C(0xc67178f2e372532b),
    UINT64_C(0xca273eceea26619c), UINT64_C(0xd186b8c721c0c207),
    UINT64_C(0xeada7dd6cde0eb1e), UINT64_C(0xf57d4f7fee6ed178),
    UINT64_C(0x06f067aa72176fba), UINT64_C(0x0a637dc5a2c898a6),
    UINT64_C(0x113f9804bef90dae), UINT64_C(0x1b710b35131c471b),
    UINT64_C(0x28db77f523047d84), UINT64_C(0x32caab7b40c72493),
    UINT64_C(0x3c9ebe0a15c9bebc), UINT64_C(0x431d67c49c100d4c),
    UINT64_C(0x4cc5d4becb3e42b6), UINT64_C(0x597f299cfc657e2a),
    UINT64_C(0x5fcb6fab3ad6faec), UINT64_C(0x6c44198c4a475817),
};

/* FIPS 180-4 5.3.5: square roots of the first 8 primes, 64 bits. */
static const uint64_t h512_init[8] = {
    UINT64_C(0x6a09e667f3bcc908), UINT64_C(0xbb67ae8584caa73b),
    UINT64_C(0x3c6ef372fe94f82b), UINT64_C(0xa54ff53a5f1d36f1),
    UINT64_C(0x510e527fade682d1), UINT64_C(0x9b05688c2b3e6c1f),
    UINT64_C(0x1f83d9abfb41bd6b), UINT64_C(0x5be0cd19137e2179),
};

static uint64_t ror64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64u - n));
}

static uint64_t load_be64(const uint8_t *p)
{
    return ((uint64_t)load_be32(p) << 32) | load_be32(p + 4);
}

static void store_be64(uint8_t *p, uint64_t v)
{
    store_be32(p, (uint32_t)(v >> 32));
    store_be32(p + 4, (uint32_t)v);
}

/* FIPS 180-4 6.4.2: one 1024-bit block. */
static void sha512_block(uint64_t h[8], const uint8_t *blk)
{
    uint64_t w[80];
    for (int t = 0; t < 16; t++) w[t] = load_be64(blk + 8 * t);
    for (int t = 16; t < 80; t++) {
        uint64_t s0 = ror64(w[t - 15], 1) ^ ror64(w[t - 15], 8) ^ (w[t - 15] >> 7);
        uint64_t s1 = ror64(w[t - 2], 19) ^ ror64(w[t - 2], 61) ^ (w[t - 2] >> 6);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint64_t a = h[0], b = h[1], c = h[2], d = h[3];
    uint64_t e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 80; t++) {
        /* T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t], T2 = Sigma0(a) + Maj(a, b, c). */
        uint64_t t1 = hh + (ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41)) + ((e & f) ^ (~e & g)) +
                      k512[t] + w[t];
        uint64_t t2 = (ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void npurt_sha512_init(npurt_sha512_ctx *c)
{
    memcpy(c->h, h512_init, sizeof c->h);
    c->len = 0;
}

void npurt_sha512_update(npurt_sha512_ctx *c, const void *p, size_t n)
{
    const uint8_t *in = (const uint8_t *)p;
    while (n > 0) {
        size_t fill = (size_t)(c->len % 128u);
        size_t take = 128u - fill < n ? 128u - fill : n;
        if (fill == 0 && n >= 128) {
            /* Whole block straight from the input: no copy needed. */
            sha512_block(c->h, in);
            take = 128;
        } else {
            memcpy(c->buf + fill, in, take);
            if (fill + take == 128) sha512_block(c->h, c->buf);
        }
        c->len += take;
        in += take;
        n -= take;
    }
}

/* FIPS 180-4 5.1.2: 0x80, zeros, then the bit length as a 128-bit word. */
void npurt_sha512_final(npurt_sha512_ctx *c, uint8_t out[64])
{
    size_t fill = (size_t)(c->len % 128u);
    c->buf[fill++] = 0x80;
    if (fill > 112) {
        memset(c->buf + fill, 0, 128 - fill);
        sha512_block(c->h, c->buf);
        fill = 0;
    }
    memset(c->buf + fill, 0, 112 - fill);
    store_be64(c->buf + 112, c->len >> 61);  /* high word of len * 8 */
    store_be64(c->buf + 120, c->len << 3);
    sha512_block(c->h, c->buf);
    for (int i = 0; i < 8; i++) store_be64(out + 8 * i, c->h[i]);
    memset(c, 0, sizeof *c);
}

void npurt_sha512(const void *p, size_t n, uint8_t out[64])
{
    npurt_sha512_ctx c;
    npurt_sha512_init(&c);
    npurt_sha512_update(&c, p, n);
    npurt_sha512_final(&c, out);
}

/* ---- constant-time compare -------------------------------------------- */

int npurt_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = (const volatile uint8_t *)a;
    const volatile uint8_t *y = (const volatile uint8_t *)b;
    uint32_t diff = 0;
    for (size_t i = 0; i < n; i++) diff |= (uint32_t)(x[i] ^ y[i]);
    /* diff is 0..255: (diff - 1) >> 8 is all ones exactly when diff == 0. */
    return (int)(((diff - 1u) >> 8) & 1u);
}
