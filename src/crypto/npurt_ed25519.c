/* npurt: Ed25519 signatures as specified in RFC 8032 section 5.1 (pure
 * Ed25519: no prehash, no context). Written for clarity rather than speed:
 *
 *   - field elements mod p = 2^255 - 19 are 8 little-endian 32-bit limbs
 *     holding any value in [0, 2^256) congruent to the element; the carry
 *     out of bit 256 is folded back in as 38, since 2^256 = 2 * 2^255 = 38
 *     (mod p). Products use 32x32->64-bit multiplies only, which suits
 *     Cortex-M as well as a PC. Values are fully reduced only when encoded.
 *   - points are in extended coordinates (X:Y:Z:T), x = X/Z, y = Y/Z,
 *     xy = T/Z, with the addition and doubling formulas of RFC 8032 5.1.4.
 *   - scalars mod L are reduced by plain binary long division (shift in one
 *     bit, subtract L if possible), which is short and obviously correct.
 *
 * Secret-dependent work (key derivation, signing) is branch-free and uses
 * no secret-indexed memory; verification touches public data only.
 * Freestanding: no allocation, no stdio; stack use is around 2 KiB. */
#include "npurt/npurt_crypto.h"

#include <string.h>

/* ---- helpers ---------------------------------------------------------- */

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Clears secrets; volatile so the stores are not optimised away. */
static void wipe(void *p, size_t n)
{
    volatile uint8_t *b = (volatile uint8_t *)p;
    while (n--) *b++ = 0;
}

/* Adds a small x to the 256-bit number r; returns the carry out (0 or 1). */
static uint32_t add_small(uint32_t r[8], uint32_t x)
{
    uint64_t t = x;
    for (int i = 0; i < 8; i++) {
        t += r[i];
        r[i] = (uint32_t)t;
        t >>= 32;
    }
    return (uint32_t)t;
}

/* Subtracts a small x from r; returns the borrow out (0 or 1). */
static uint32_t sub_small(uint32_t r[8], uint32_t x)
{
    uint32_t borrow = x;
    for (int i = 0; i < 8; i++) {
        uint64_t d = (uint64_t)r[i] - borrow;
        r[i] = (uint32_t)d;
        borrow = (uint32_t)(d >> 63);
    }
    return borrow;
}

/* ---- field arithmetic mod p = 2^255 - 19 ------------------------------ */

typedef struct {
    uint32_t v[8];   /* value = sum v[i] * 2^(32 i), any value < 2^256 */
} fe;

static const fe fe_zero = {{0}};
static const fe fe_one = {{1}};

/* d = -121665 / 121666 mod p, the curve constant, and 2d. */
static const fe fe_d = {{0x135978a3u, 0x75eb4dcau, 0x4141d8abu, 0x00700a4du,
                         0x7779e898u, 0x8cc74079u, 0x2b6ffe73u, 0x52036ceeu}};
static const fe fe_2d = {{0x26b2f159u, 0xebd69b94u, 0x8283b156u, 0x00e0149au,
                          0xeef3d130u, 0x198e80f2u, 0x56dffce7u, 0x2406d9dcu}};
/* sqrt(-1) = 2^((p-1)/4) mod p. */
static const fe fe_sqrtm1 = {{0x4a0ea0b0u, 0xc4ee1b27u, 0xad2fe478u, 0x2f431806u,
                              0x3dfbd7a7u, 0x2b4d0099u, 0x4fc1df0bu, 0x2b832480u}};

/* Exponents, as 256-bit little-endian limbs: p - 2 (inverse, by Fermat) and
 * (p - 5) / 8 (square root, RFC 8032 5.1.3 step 3). */
static const uint32_t exp_p_minus_2[8] = {0xffffffebu, 0xffffffffu, 0xffffffffu,
                                          0xffffffffu, 0xffffffffu, 0xffffffffu,
                                          0xffffffffu, 0x7fffffffu};
static const uint32_t exp_p_minus_5_div_8[8] = {0xfffffffdu, 0xffffffffu, 0xffffffffu,
                                                0xffffffffu, 0xffffffffu, 0xffffffffu,
                                                0xffffffffu, 0x0fffffffu};

/* A carry out of bit 256 is worth 38. Folding it can carry again only when
 * the result wrapped to a tiny value, so a second fold always ends it. */
static void fe_fold_carry(uint32_t r[8], uint32_t carry)
{
    carry = add_small(r, 38u * carry);
    (void)add_small(r, 38u * carry);
}

static void fe_add(fe *h, const fe *f, const fe *g)
{
    uint64_t t = 0;
    for (int i = 0; i < 8; i++) {
        t += (uint64_t)f->v[i] + g->v[i];
        h->v[i] = (uint32_t)t;
        t >>= 32;
    }
    fe_fold_carry(h->v, (uint32_t)t);
}

/* A borrow out of bit 256 means we computed value + 2^256, i.e. 38 too
 * much: take 38 off (twice at most, as for the carry in addition). */
static void fe_sub(fe *h, const fe *f, const fe *g)
{
    uint32_t borrow = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t d = (uint64_t)f->v[i] - g->v[i] - borrow;
        h->v[i] = (uint32_t)d;
        borrow = (uint32_t)(d >> 63);
    }
    borrow = sub_small(h->v, 38u * borrow);
    (void)sub_small(h->v, 38u * borrow);
}

static void fe_neg(fe *h, const fe *f)
{
    fe_sub(h, &fe_zero, f);
}

/* Schoolbook 256x256 -> 512-bit product, then the high half times 38 is
 * added to the low half (2^256 = 38 mod p). h may alias f or g. */
static void fe_mul(fe *h, const fe *f, const fe *g)
{
    uint32_t r[16] = {0};
    for (int i = 0; i < 8; i++) {
        uint64_t t = 0;
        for (int j = 0; j < 8; j++) {
            /* At most (2^32-1)^2 + 2 (2^32-1) = 2^64 - 1: no overflow. */
            t += (uint64_t)f->v[i] * g->v[j] + r[i + j];
            r[i + j] = (uint32_t)t;
            t >>= 32;
        }
        r[i + 8] = (uint32_t)t;
    }
    uint64_t t = 0;
    for (int i = 0; i < 8; i++) {
        t += (uint64_t)r[i + 8] * 38u + r[i];
        h->v[i] = (uint32_t)t;
        t >>= 32;
    }
    fe_fold_carry(h->v, (uint32_t)t);
}

static void fe_sq(fe *h, const fe *f)
{
    fe_mul(h, f, f);
}

/* h = a^e for a public 256-bit exponent e (left-to-right binary method). */
static void fe_pow(fe *h, const fe *a, const uint32_t e[8])
{
    fe base = *a, acc = fe_one;
    for (int i = 255; i >= 0; i--) {
        fe_sq(&acc, &acc);
        if ((e[i / 32] >> (i % 32)) & 1u) fe_mul(&acc, &acc, &base);
    }
    *h = acc;
}

static void fe_invert(fe *h, const fe *a)
{
    fe_pow(h, a, exp_p_minus_2);
}

/* Constant-time: f = g when bit is 1, unchanged when 0. */
static void fe_cmov(fe *f, const fe *g, uint32_t bit)
{
    uint32_t mask = 0u - bit;
    for (int i = 0; i < 8; i++) f->v[i] ^= mask & (f->v[i] ^ g->v[i]);
}

/* Bit 255 is ignored, as RFC 8032 5.1.3 takes y from the low 255 bits. */
static void fe_frombytes(fe *h, const uint8_t s[32])
{
    for (int i = 0; i < 8; i++) h->v[i] = load_le32(s + 4 * i);
    h->v[7] &= 0x7fffffffu;
}

/* Canonical little-endian encoding of the value reduced into [0, p). */
static void fe_tobytes(uint8_t s[32], const fe *f)
{
    uint32_t t[8], u[8];
    memcpy(t, f->v, sizeof t);
    /* Bit 255 is worth 19 (2^255 = 19 mod p); two folds leave t < 2^255. */
    for (int k = 0; k < 2; k++) {
        uint32_t top = t[7] >> 31;
        t[7] &= 0x7fffffffu;
        (void)add_small(t, 19u * top);
    }
    /* t >= p exactly when t + 19 reaches 2^255; then t - p = t + 19 - 2^255. */
    memcpy(u, t, sizeof u);
    (void)add_small(u, 19u);
    uint32_t ge_p = u[7] >> 31;
    u[7] &= 0x7fffffffu;
    uint32_t mask = 0u - ge_p;
    for (int i = 0; i < 8; i++) store_le32(s + 4 * i, (t[i] & ~mask) | (u[i] & mask));
}

static int fe_iszero(const fe *f)
{
    uint8_t s[32];
    static const uint8_t zero[32];
    fe_tobytes(s, f);
    return npurt_ct_equal(s, zero, 32);
}

static int fe_equal(const fe *f, const fe *g)
{
    fe d;
    fe_sub(&d, f, g);
    return fe_iszero(&d);
}

/* The "sign" of x in RFC 8032: the low bit of its canonical encoding. */
static uint32_t fe_parity(const fe *f)
{
    uint8_t s[32];
    fe_tobytes(s, f);
    return s[0] & 1u;
}

/* ---- points on -x^2 + y^2 = 1 + d x^2 y^2 ------------------------------ */

typedef struct {
    fe X, Y, Z, T;
} ge;

static void ge_identity(ge *p)
{
    p->X = fe_zero;
    p->Y = fe_one;
    p->Z = fe_one;
    p->T = fe_zero;
}

/* RFC 8032 5.1.4 addition; complete, so it is also valid for p == q. */
static void ge_add(ge *r, const ge *p, const ge *q)
{
    fe a, b, c, d, e, f, g, h, t;
    fe_sub(&a, &p->Y, &p->X);
    fe_sub(&t, &q->Y, &q->X);
    fe_mul(&a, &a, &t);
    fe_add(&b, &p->Y, &p->X);
    fe_add(&t, &q->Y, &q->X);
    fe_mul(&b, &b, &t);
    fe_mul(&c, &p->T, &fe_2d);
    fe_mul(&c, &c, &q->T);
    fe_mul(&d, &p->Z, &q->Z);
    fe_add(&d, &d, &d);
    fe_sub(&e, &b, &a);
    fe_sub(&f, &d, &c);
    fe_add(&g, &d, &c);
    fe_add(&h, &b, &a);
    fe_mul(&r->X, &e, &f);
    fe_mul(&r->Y, &g, &h);
    fe_mul(&r->T, &e, &h);
    fe_mul(&r->Z, &f, &g);
}

/* RFC 8032 5.1.4 doubling. */
static void ge_dbl(ge *r, const ge *p)
{
    fe a, b, c, e, f, g, h, t;
    fe_sq(&a, &p->X);
    fe_sq(&b, &p->Y);
    fe_sq(&c, &p->Z);
    fe_add(&c, &c, &c);
    fe_add(&h, &a, &b);
    fe_add(&t, &p->X, &p->Y);
    fe_sq(&t, &t);
    fe_sub(&e, &h, &t);
    fe_sub(&g, &a, &b);
    fe_add(&f, &c, &g);
    fe_mul(&r->X, &e, &f);
    fe_mul(&r->Y, &g, &h);
    fe_mul(&r->T, &e, &h);
    fe_mul(&r->Z, &f, &g);
}

static void ge_neg(ge *r, const ge *p)
{
    fe_neg(&r->X, &p->X);
    r->Y = p->Y;
    r->Z = p->Z;
    fe_neg(&r->T, &p->T);
}

static void ge_cmov(ge *p, const ge *q, uint32_t bit)
{
    fe_cmov(&p->X, &q->X, bit);
    fe_cmov(&p->Y, &q->Y, bit);
    fe_cmov(&p->Z, &q->Z, bit);
    fe_cmov(&p->T, &q->T, bit);
}

/* r = [s]p for a 256-bit little-endian scalar s. Always double and add,
 * keeping the sum by a masked move, so timing does not depend on s. */
static void ge_scalarmult(ge *r, const ge *p, const uint8_t s[32])
{
    ge q, sum;
    ge_identity(&q);
    for (int i = 255; i >= 0; i--) {
        uint32_t bit = (uint32_t)(s[i / 8] >> (i % 8)) & 1u;
        ge_dbl(&q, &q);
        ge_add(&sum, &q, p);
        ge_cmov(&q, &sum, bit);
    }
    *r = q;
    wipe(&sum, sizeof sum);
}

/* RFC 8032 5.1.2: y, with the parity of x in bit 255. */
static void ge_tobytes(uint8_t s[32], const ge *p)
{
    fe zi, x, y;
    fe_invert(&zi, &p->Z);
    fe_mul(&x, &p->X, &zi);
    fe_mul(&y, &p->Y, &zi);
    fe_tobytes(s, &y);
    s[31] = (uint8_t)(s[31] | (fe_parity(&x) << 7));
}

/* RFC 8032 5.1.3. Returns 0 on success, -1 when s is not the canonical
 * encoding of a curve point. */
static int ge_frombytes(ge *p, const uint8_t s[32])
{
    fe y, u, v, x, t;
    uint8_t chk[32];
    uint32_t sign = s[31] >> 7;

    fe_frombytes(&y, s);
    /* Step 1: y must be < p, i.e. re-encode to the same 255 bits. */
    fe_tobytes(chk, &y);
    chk[31] = (uint8_t)(chk[31] | (sign << 7));
    if (!npurt_ct_equal(chk, s, 32)) return -1;

    /* Step 2: x^2 = u / v with u = y^2 - 1, v = d y^2 + 1. */
    fe_sq(&u, &y);
    fe_mul(&v, &u, &fe_d);
    fe_sub(&u, &u, &fe_one);
    fe_add(&v, &v, &fe_one);

    /* Step 3: candidate x = u v^3 (u v^7)^((p-5)/8). */
    fe v3, v7;
    fe_sq(&v3, &v);
    fe_mul(&v3, &v3, &v);           /* v^3 */
    fe_sq(&v7, &v3);
    fe_mul(&v7, &v7, &v);           /* v^7 */
    fe_mul(&t, &u, &v7);
    fe_pow(&t, &t, exp_p_minus_5_div_8);
    fe_mul(&x, &u, &v3);
    fe_mul(&x, &x, &t);

    /* Step 4: v x^2 = u: done; = -u: multiply by sqrt(-1); else no root. */
    fe vx2, neg_u;
    fe_sq(&vx2, &x);
    fe_mul(&vx2, &vx2, &v);
    fe_neg(&neg_u, &u);
    if (fe_equal(&vx2, &neg_u)) {
        fe_mul(&x, &x, &fe_sqrtm1);
    } else if (!fe_equal(&vx2, &u)) {
        return -1;
    }
    if (fe_iszero(&x) && sign) return -1;   /* x = 0 has no negative */
    if (fe_parity(&x) != sign) fe_neg(&x, &x);

    p->X = x;
    p->Y = y;
    p->Z = fe_one;
    fe_mul(&p->T, &x, &y);
    return 0;
}

/* The base point B: y = 4/5 with even x, whose encoding is 0x58 followed
 * by 31 bytes of 0x66 (RFC 8032 5.1). Decoding it costs one square root
 * but saves writing out its coordinates. */
static void ge_base(ge *b)
{
    uint8_t enc[32];
    memset(enc, 0x66, sizeof enc);
    enc[0] = 0x58;
    (void)ge_frombytes(b, enc);
}

/* ---- scalars mod L = 2^252 + 27742317777372353535851937790883648493 --- */

static const uint32_t sc_L[8] = {0x5cf5d3edu, 0x5812631au, 0xa2f79cd6u, 0x14def9deu,
                                 0x00000000u, 0x00000000u, 0x00000000u, 0x10000000u};

/* r = a - L; returns the borrow (1 when a < L). */
static uint32_t sc_sub_L(uint32_t r[8], const uint32_t a[8])
{
    uint32_t borrow = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t d = (uint64_t)a[i] - sc_L[i] - borrow;
        r[i] = (uint32_t)d;
        borrow = (uint32_t)(d >> 63);
    }
    return borrow;
}

/* out = x mod L for a 512-bit little-endian x (16 limbs). Binary long
 * division: r stays below L, so 2r + 1 < 2L < 2^254 always fits and one
 * conditional subtraction per bit keeps it below L. Constant time. */
static void sc_reduce(uint8_t out[32], const uint32_t x[16])
{
    uint32_t r[8] = {0}, t[8];
    for (int i = 511; i >= 0; i--) {
        for (int j = 7; j > 0; j--) r[j] = (r[j] << 1) | (r[j - 1] >> 31);
        r[0] = (r[0] << 1) | ((x[i / 32] >> (i % 32)) & 1u);
        uint32_t keep = 0u - sc_sub_L(t, r);   /* all ones when r < L */
        for (int j = 0; j < 8; j++) r[j] = (r[j] & keep) | (t[j] & ~keep);
    }
    for (int i = 0; i < 8; i++) store_le32(out + 4 * i, r[i]);
    wipe(r, sizeof r);
    wipe(t, sizeof t);
}

/* out = SHA-512 digest, read as a little-endian integer, mod L. */
static void sc_reduce_digest(uint8_t out[32], const uint8_t h[64])
{
    uint32_t x[16];
    for (int i = 0; i < 16; i++) x[i] = load_le32(h + 4 * i);
    sc_reduce(out, x);
    wipe(x, sizeof x);
}

/* out = (a * b + c) mod L. Callers pass a, c < L < 2^253 and b < 2^255, so
 * a * b + c < 2^509 fits the 512-bit intermediate. */
static void sc_muladd(uint8_t out[32], const uint8_t a[32], const uint8_t b[32],
                      const uint8_t c[32])
{
    uint32_t x[16] = {0}, av[8], bv[8];
    for (int i = 0; i < 8; i++) {
        av[i] = load_le32(a + 4 * i);
        bv[i] = load_le32(b + 4 * i);
        x[i] = load_le32(c + 4 * i);
    }
    for (int i = 0; i < 8; i++) {
        uint64_t t = 0;
        for (int j = 0; j < 8; j++) {
            t += (uint64_t)av[i] * bv[j] + x[i + j];
            x[i + j] = (uint32_t)t;
            t >>= 32;
        }
        /* Propagate the row's carry; it stops within the 16 limbs. */
        for (int k = i + 8; k < 16; k++) {
            t += x[k];
            x[k] = (uint32_t)t;
            t >>= 32;
        }
    }
    sc_reduce(out, x);
    wipe(x, sizeof x);
    wipe(av, sizeof av);
    wipe(bv, sizeof bv);
}

/* 1 when the 32-byte little-endian s is below L (RFC 8032 5.1.7 step 1). */
static int sc_is_canonical(const uint8_t s[32])
{
    uint32_t v[8], t[8];
    for (int i = 0; i < 8; i++) v[i] = load_le32(s + 4 * i);
    return (int)sc_sub_L(t, v);
}

/* ---- Ed25519 ---------------------------------------------------------- */

/* RFC 8032 5.1.5: the secret scalar a (clamped low half of SHA-512(seed)),
 * the nonce prefix (high half) and the public key encoding [a]B. */
static void expand_seed(const uint8_t seed[32], uint8_t a[32], uint8_t prefix[32],
                        uint8_t pub[32])
{
    uint8_t h[64];
    ge b, p;
    npurt_sha512(seed, 32, h);
    memcpy(a, h, 32);
    memcpy(prefix, h + 32, 32);
    a[0] &= 0xf8;    /* multiple of the cofactor 8 */
    a[31] &= 0x7f;
    a[31] |= 0x40;   /* top bit 254 set */
    ge_base(&b);
    ge_scalarmult(&p, &b, a);
    ge_tobytes(pub, &p);
    wipe(h, sizeof h);
    wipe(&p, sizeof p);
}

void npurt_ed25519_public_key(const uint8_t seed[32], uint8_t pub[32])
{
    uint8_t a[32], prefix[32];
    expand_seed(seed, a, prefix, pub);
    wipe(a, sizeof a);
    wipe(prefix, sizeof prefix);
}

/* k = SHA-512(R || A || M) mod L (RFC 8032 5.1.6 step 4, 5.1.7 step 2). */
static void challenge(uint8_t k[32], const uint8_t r_enc[32], const uint8_t pub[32],
                      const uint8_t *msg, size_t n)
{
    npurt_sha512_ctx c;
    uint8_t h[64];
    npurt_sha512_init(&c);
    npurt_sha512_update(&c, r_enc, 32);
    npurt_sha512_update(&c, pub, 32);
    npurt_sha512_update(&c, msg, n);
    npurt_sha512_final(&c, h);
    sc_reduce_digest(k, h);
}

/* RFC 8032 5.1.6. */
void npurt_ed25519_sign(uint8_t sig[64], const uint8_t *msg, size_t n,
                        const uint8_t seed[32])
{
    uint8_t a[32], prefix[32], pub[32], r[32], k[32], h[64];
    npurt_sha512_ctx c;
    ge b, rp;

    expand_seed(seed, a, prefix, pub);

    /* Step 2: deterministic nonce r = SHA-512(prefix || M) mod L. */
    npurt_sha512_init(&c);
    npurt_sha512_update(&c, prefix, 32);
    npurt_sha512_update(&c, msg, n);
    npurt_sha512_final(&c, h);
    sc_reduce_digest(r, h);

    /* Step 3: R = [r]B. */
    ge_base(&b);
    ge_scalarmult(&rp, &b, r);
    ge_tobytes(sig, &rp);

    /* Steps 4-5: S = (r + k a) mod L. */
    challenge(k, sig, pub, msg, n);
    sc_muladd(sig + 32, k, a, r);

    wipe(a, sizeof a);
    wipe(prefix, sizeof prefix);
    wipe(r, sizeof r);
    wipe(h, sizeof h);
    wipe(&rp, sizeof rp);
}

/* RFC 8032 5.1.7, cofactorless: valid when [S]B - [k]A encodes to R. A
 * computed point always has a canonical encoding, so an R that does not
 * decode (or decodes only non-canonically) can never match. */
int npurt_ed25519_verify(const uint8_t sig[64], const uint8_t *msg, size_t n,
                         const uint8_t pub[32])
{
    ge a, b, sb, ka;
    uint8_t k[32], check[32];

    if (!sc_is_canonical(sig + 32)) return -1;
    if (ge_frombytes(&a, pub) != 0) return -1;

    challenge(k, sig, pub, msg, n);
    ge_base(&b);
    ge_scalarmult(&sb, &b, sig + 32);
    ge_neg(&a, &a);
    ge_scalarmult(&ka, &a, k);
    ge_add(&sb, &sb, &ka);
    ge_tobytes(check, &sb);
    return npurt_ct_equal(check, sig, 32) ? 0 : -1;
}
