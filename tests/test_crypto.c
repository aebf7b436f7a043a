/* Tests for npurt_crypto: SHA-256/SHA-512 against the FIPS 180-4 examples
 * (NIST CSRC example values), Ed25519 against RFC 8032 section 7.1, then
 * negative tests (every single-bit change of signature, message and public
 * key; S + L; undecodable and non-canonical keys) and a randomized
 * sign/verify self-consistency run. Prints one line per failed check. */
#include "npurt/npurt_crypto.h"

#include "test.h"

#include <stdarg.h>

/* A failed check names itself in printf style. */
static void check(int ok, const char *fmt, ...)
{
    t_checks++;
    if (ok) return;
    t_failures++;
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes hex into out (at most cap bytes); returns the byte count. */
static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
    size_t n = strlen(hex) / 2;
    if (n > cap || strlen(hex) % 2) {
        fprintf(stderr, "bad test hex (%zu chars)\n", strlen(hex));
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fprintf(stderr, "bad test hex digit\n");
            exit(2);
        }
        out[i] = (uint8_t)(hi * 16 + lo);
    }
    return n;
}

static int eq_hex(const uint8_t *got, size_t n, const char *hex)
{
    uint8_t want[128];
    return unhex(want, sizeof want, hex) == n && memcmp(got, want, n) == 0;
}

/* ---- SHA -------------------------------------------------------------- */

static const char MSG448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char MSG896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                             "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

static const struct {
    const char *name, *msg, *sha256, *sha512;
} sha_vectors[] = {
    {"abc", "abc",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
    {"empty", "",
     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
    {"448-bit", MSG448,
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
     "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
     "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"},
    {"896-bit", MSG896,
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
     "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
};

static void test_sha_vectors(void)
{
    for (size_t v = 0; v < sizeof sha_vectors / sizeof sha_vectors[0]; v++) {
        const char *m = sha_vectors[v].msg;
        size_t n = strlen(m);
        uint8_t d256[32], d512[64];
        npurt_sha256(m, n, d256);
        npurt_sha512(m, n, d512);
        check(eq_hex(d256, 32, sha_vectors[v].sha256), "SHA-256(%s)", sha_vectors[v].name);
        check(eq_hex(d512, 64, sha_vectors[v].sha512), "SHA-512(%s)", sha_vectors[v].name);

        /* Every split point through the incremental API gives the same. */
        for (size_t cut = 0; cut <= n; cut++) {
            npurt_sha256_ctx c256;
            npurt_sha512_ctx c512;
            npurt_sha256_init(&c256);
            npurt_sha256_update(&c256, m, cut);
            npurt_sha256_update(&c256, m + cut, n - cut);
            npurt_sha256_final(&c256, d256);
            npurt_sha512_init(&c512);
            npurt_sha512_update(&c512, m, cut);
            npurt_sha512_update(&c512, m + cut, n - cut);
            npurt_sha512_final(&c512, d512);
            check(eq_hex(d256, 32, sha_vectors[v].sha256), "SHA-256(%s) split at %zu",
                  sha_vectors[v].name, cut);
            check(eq_hex(d512, 64, sha_vectors[v].sha512), "SHA-512(%s) split at %zu",
                  sha_vectors[v].name, cut);
        }
    }
}

/* One million 'a', fed in chunks of odd, varying sizes. */
static void test_sha_million(void)
{
    static const size_t chunks[] = {1, 3, 63, 65, 127, 129, 1001, 7};
    uint8_t buf[1001];
    memset(buf, 'a', sizeof buf);
    npurt_sha256_ctx c256;
    npurt_sha512_ctx c512;
    npurt_sha256_init(&c256);
    npurt_sha512_init(&c512);
    size_t left = 1000000;
    for (size_t i = 0; left > 0; i++) {
        size_t k = chunks[i % (sizeof chunks / sizeof chunks[0])];
        if (k > left) k = left;
        npurt_sha256_update(&c256, buf, k);
        npurt_sha512_update(&c512, buf, k);
        left -= k;
    }
    uint8_t d256[32], d512[64];
    npurt_sha256_final(&c256, d256);
    npurt_sha512_final(&c512, d512);
    check(eq_hex(d256, 32, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
          "SHA-256(million a)");
    check(eq_hex(d512, 64,
                 "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                 "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
          "SHA-512(million a)");
}

/* ---- Ed25519: RFC 8032 section 7.1 ------------------------------------ */

static const char MSG1024[] =
    "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98"
    "fa6e264bf09efe12ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d8"
    "79de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d"
    "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc"
    "1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4fe"
    "ba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e"
    "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbef"
    "efd75499da96bd68a8a97b928a8bbc103b6621fcde2beca1231d206be6cd9ec7"
    "aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1"
    "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2"
    "d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24"
    "554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270"
    "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc"
    "2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2cf65bd92dd597b07"
    "07e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
    "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51a"
    "ddd3b75a2b1ae0784504df543af8969be3ea7082ff7fc9888c144da2af58429e"
    "c96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7"
    "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c"
    "42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8"
    "ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df"
    "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08"
    "d78ff4ef5d63653a65040cf9bfd4aca7984a74d37145986780fc0b16ac451649"
    "de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4"
    "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a3"
    "2ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e"
    "6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f"
    "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b5"
    "0d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d90d11faa933a15ef1"
    "369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
    "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c"
    "0618983f8741c5ef68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0";

static const struct {
    const char *name, *seed, *pub, *msg, *sig;
} rfc_vectors[] = {
    {"TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
     "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
    {"TEST 1024", "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
     "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e", MSG1024,
     "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350"
     "aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"},
    {"TEST SHA(abc)", "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
     "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"},
};

static void test_rfc8032(void)
{
    for (size_t v = 0; v < sizeof rfc_vectors / sizeof rfc_vectors[0]; v++) {
        const char *name = rfc_vectors[v].name;
        uint8_t seed[32], pub[32], sig[64], msg[1024];
        uint8_t got_pub[32], got_sig[64];
        unhex(seed, sizeof seed, rfc_vectors[v].seed);
        unhex(pub, sizeof pub, rfc_vectors[v].pub);
        unhex(sig, sizeof sig, rfc_vectors[v].sig);
        size_t n = unhex(msg, sizeof msg, rfc_vectors[v].msg);

        npurt_ed25519_public_key(seed, got_pub);
        check(memcmp(got_pub, pub, 32) == 0, "%s: public key from seed", name);
        npurt_ed25519_sign(got_sig, msg, n, seed);
        check(memcmp(got_sig, sig, 64) == 0, "%s: signature bytes", name);
        check(npurt_ed25519_verify(sig, msg, n, pub) == 0, "%s: verify", name);
    }
    /* The SHA(abc) vector's message is SHA-512("abc"). */
    uint8_t d[64];
    npurt_sha512("abc", 3, d);
    check(eq_hex(d, 64, rfc_vectors[4].msg), "TEST SHA(abc): message is SHA-512(abc)");
    check(strlen(MSG1024) == 2 * 1023, "TEST 1024: message is 1023 bytes");
}

/* ---- Ed25519: rejections ---------------------------------------------- */

static void test_bit_flips(void)
{
    /* TEST 3: a short message (2 bytes). */
    uint8_t pub[32], sig[64], msg[2];
    unhex(pub, sizeof pub, rfc_vectors[2].pub);
    unhex(sig, sizeof sig, rfc_vectors[2].sig);
    unhex(msg, sizeof msg, rfc_vectors[2].msg);

    for (int b = 0; b < 64 * 8; b++) {
        sig[b / 8] ^= (uint8_t)(1u << (b % 8));
        check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0,
              "signature bit %d flipped: accepted", b);
        sig[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    for (int b = 0; b < (int)sizeof msg * 8; b++) {
        msg[b / 8] ^= (uint8_t)(1u << (b % 8));
        check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0,
              "message bit %d flipped: accepted", b);
        msg[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    for (int b = 0; b < 32 * 8; b++) {
        pub[b / 8] ^= (uint8_t)(1u << (b % 8));
        check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0,
              "public key bit %d flipped: accepted", b);
        pub[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
    /* Shorter and longer messages. */
    check(npurt_ed25519_verify(sig, msg, 1, pub) != 0, "truncated message accepted");
    check(npurt_ed25519_verify(sig, msg, 0, pub) != 0, "empty message accepted");
    check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) == 0, "flips were not undone");
}

/* S + L is the same scalar mod L, so only the S < L rule rejects it. */
static void test_s_plus_l(void)
{
    static const uint8_t L[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58,
                                  0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                                  0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0x10};
    for (size_t v = 0; v < sizeof rfc_vectors / sizeof rfc_vectors[0]; v++) {
        uint8_t pub[32], sig[64], msg[1024];
        unhex(pub, sizeof pub, rfc_vectors[v].pub);
        unhex(sig, sizeof sig, rfc_vectors[v].sig);
        size_t n = unhex(msg, sizeof msg, rfc_vectors[v].msg);
        unsigned carry = 0;
        for (int i = 0; i < 32; i++) {
            carry += (unsigned)sig[32 + i] + L[i];
            sig[32 + i] = (uint8_t)carry;
            carry >>= 8;
        }
        check(carry == 0, "%s: S + L fits 256 bits", rfc_vectors[v].name);
        check(npurt_ed25519_verify(sig, msg, n, pub) != 0, "%s: S + L accepted",
              rfc_vectors[v].name);
        /* S = L exactly is also out of range. */
        memcpy(sig + 32, L, 32);
        check(npurt_ed25519_verify(sig, msg, n, pub) != 0, "%s: S = L accepted",
              rfc_vectors[v].name);
    }
}

static void test_bad_keys(void)
{
    uint8_t sig[64], msg[2], pub[32];
    unhex(sig, sizeof sig, rfc_vectors[2].sig);
    unhex(msg, sizeof msg, rfc_vectors[2].msg);

    /* y = 2: (y^2 - 1) / (d y^2 + 1) is not a square mod p. */
    memset(pub, 0, sizeof pub);
    pub[0] = 2;
    check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0, "undecodable key y=2 accepted");
    /* y = p + 1: y >= p is a non-canonical encoding (of y = 1). */
    memset(pub, 0xff, sizeof pub);
    pub[0] = 0xee;
    pub[31] = 0x7f;
    check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0, "non-canonical key y=p+1 accepted");
    /* y = 1 with the sign bit set: x = 0 has no negative. */
    memset(pub, 0, sizeof pub);
    pub[0] = 1;
    pub[31] = 0x80;
    check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0, "key -0 accepted");
    /* All-ones: y = 2^255 - 1 >= p. */
    memset(pub, 0xff, sizeof pub);
    check(npurt_ed25519_verify(sig, msg, sizeof msg, pub) != 0, "key 0xff..ff accepted");
}

/* ---- randomized self-consistency -------------------------------------- */

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t xorshift64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void rand_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(xorshift64() >> 56);
}

static void test_random(void)
{
    for (int it = 0; it < 200; it++) {
        uint8_t seed[32], pub[32], sig[64], msg[300];
        size_t n = (size_t)(xorshift64() % (sizeof msg + 1));
        rand_bytes(seed, sizeof seed);
        rand_bytes(msg, n);
        npurt_ed25519_public_key(seed, pub);
        npurt_ed25519_sign(sig, msg, n, seed);
        check(npurt_ed25519_verify(sig, msg, n, pub) == 0, "random %d: verify", it);

        /* One random bit of signature, public key or message. */
        size_t bits = (64 + 32 + n) * 8;
        size_t b = (size_t)(xorshift64() % bits);
        uint8_t *p = b < 512 ? sig + b / 8 : b < 768 ? pub + (b - 512) / 8 : msg + (b - 768) / 8;
        *p ^= (uint8_t)(1u << (b % 8));
        check(npurt_ed25519_verify(sig, msg, n, pub) != 0, "random %d: bit %zu flipped accepted",
              it, b);
    }
}

static void test_ct_equal(void)
{
    uint8_t a[40], b[40];
    memset(a, 0x5a, sizeof a);
    memset(b, 0x5a, sizeof b);
    check(npurt_ct_equal(a, b, sizeof a) == 1, "ct_equal on equal buffers");
    check(npurt_ct_equal(a, b, 0) == 1, "ct_equal on empty buffers");
    for (size_t i = 0; i < sizeof a; i++) {
        b[i] ^= 0x80;
        check(npurt_ct_equal(a, b, sizeof a) == 0, "ct_equal missed byte %zu", i);
        b[i] ^= 0x81;
        check(npurt_ct_equal(a, b, sizeof a) == 0, "ct_equal missed byte %zu low bit", i);
        b[i] ^= 0x01;
    }
}

int main(void)
{
    test_sha_vectors();
    test_sha_million();
    test_rfc8032();
    test_bit_flips();
    test_s_plus_l();
    test_bad_keys();
    test_random();
    test_ct_equal();
    TEST_MAIN_END();
}
