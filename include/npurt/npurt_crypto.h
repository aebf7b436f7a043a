/* npurt crypto: the hashes and signature check the runtime uses to verify
 * runtime-loadable model files.
 *   - SHA-256 and SHA-512 (FIPS 180-4), incremental and one-shot;
 *   - Ed25519 (RFC 8032, pure variant: no prehash, no context) verification,
 *     plus key derivation and signing for host-side tools.
 * Freestanding: no allocation, no stdio; stack use is well under 4 KiB.
 * The context types are npurt_sha256_ctx / npurt_sha512_ctx (struct tags
 * npurt_sha256 / npurt_sha512): a typedef cannot share its name with the
 * one-shot functions npurt_sha256() / npurt_sha512().
 * Signing and key derivation run in constant time with respect to the seed;
 * verification only handles public data and need not. */
#ifndef NPURT_CRYPTO_H
#define NPURT_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npurt_sha256 {
    uint32_t h[8];       /* chaining state */
    uint64_t len;        /* bytes hashed so far */
    uint8_t buf[64];     /* partial block; len % 64 bytes are valid */
} npurt_sha256_ctx;

void npurt_sha256_init(npurt_sha256_ctx *c);
void npurt_sha256_update(npurt_sha256_ctx *c, const void *p, size_t n);
/* Writes the digest and wipes the context (init it again to reuse). */
void npurt_sha256_final(npurt_sha256_ctx *c, uint8_t out[32]);
void npurt_sha256(const void *p, size_t n, uint8_t out[32]);

typedef struct npurt_sha512 {
    uint64_t h[8];       /* chaining state */
    uint64_t len;        /* bytes hashed so far (messages < 2^64 bytes) */
    uint8_t buf[128];    /* partial block; len % 128 bytes are valid */
} npurt_sha512_ctx;

void npurt_sha512_init(npurt_sha512_ctx *c);
void npurt_sha512_update(npurt_sha512_ctx *c, const void *p, size_t n);
/* Writes the digest and wipes the context (init it again to reuse). */
void npurt_sha512_final(npurt_sha512_ctx *c, uint8_t out[64]);
void npurt_sha512(const void *p, size_t n, uint8_t out[64]);

/* Returns 0 when sig is a valid Ed25519 signature of msg[0..n) under pub,
 * non-zero otherwise. Rejects S >= L and public keys that do not decode
 * (including non-canonical y >= p). Cofactorless: accepts exactly when the
 * encoding of [S]B - [k]A equals the R half of the signature, which also
 * rejects R encodings that do not decode canonically. */
int npurt_ed25519_verify(const uint8_t sig[64], const uint8_t *msg, size_t n,
                         const uint8_t pub[32]);

/* Host-side helpers (RFC 8032 section 5.1.5 and 5.1.6). */
void npurt_ed25519_public_key(const uint8_t seed[32], uint8_t pub[32]);
void npurt_ed25519_sign(uint8_t sig[64], const uint8_t *msg, size_t n,
                        const uint8_t seed[32]);

/* 1 when a[0..n) == b[0..n), else 0; time depends only on n. */
int npurt_ct_equal(const void *a, const void *b, size_t n);

#ifdef __cplusplus
}
#endif

#endif
