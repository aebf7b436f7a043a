/* tflite/flexbuf: the FlexBuffer reader on hand-built, truncated and
 * damaged buffers. */
#include "test.h"
#include "flexbuf_build.h"
#include "tflite/flexbuf.h"

static const fb_ent ents[] = {
    {"a_int", FLEXBUF_INT, (uint64_t)(int64_t)-7},
    {"b_float", FLEXBUF_FLOAT, 0},
    {"c_bool", FLEXBUF_BOOL, 1},
    {"d_uint", FLEXBUF_UINT, 300},
    {"e_null", FLEXBUF_NULL, 0},
};

static size_t make(uint8_t *buf, uint32_t w)
{
    fb_ent e[5];
    memcpy(e, ents, sizeof e);
    if (w == 4) e[1].bits = fb_f32(0.25f);
    else if (w == 8) {
        double d = 0.25;
        memcpy(&e[1].bits, &d, 8);
    } else {
        e[1].bits = 3; /* 1 and 2 byte floats are read as int8 / int16 */
    }
    if (w == 1) e[3].bits = 200;
    return fb_build(buf, e, 5, w);
}

static void test_read(void)
{
    const uint32_t widths[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        const uint32_t w = widths[k];
        uint8_t buf[256];
        size_t len = make(buf, w);
        flexbuf_map m;
        npuc_err err = {0};
        CHECK_EQ_INT(flexbuf_root_map(buf, len, &m, &err), NPUC_OK);
        CHECK_EQ_INT(m.size, 5);
        CHECK_EQ_INT(m.width, w);
        int64_t i = 0;
        float f = 0;
        bool b = false, found = false;
        CHECK_EQ_INT(flexbuf_get_int(&m, "a_int", &i, &found, &err), NPUC_OK);
        CHECK(found && i == -7);
        CHECK_EQ_INT(flexbuf_get_float(&m, "b_float", &f, &found, &err), NPUC_OK);
        CHECK(found && f == (w >= 4 ? 0.25f : 3.0f));
        CHECK_EQ_INT(flexbuf_get_int(&m, "b_float", &i, &found, &err), NPUC_OK); /* truncates */
        CHECK(found && i == (w >= 4 ? 0 : 3));
        CHECK_EQ_INT(flexbuf_get_bool(&m, "c_bool", &b, &found, &err), NPUC_OK);
        CHECK(found && b);
        CHECK_EQ_INT(flexbuf_get_float(&m, "a_int", &f, &found, &err), NPUC_OK);
        CHECK(found && f == -7.0f);
        CHECK_EQ_INT(flexbuf_get_int(&m, "d_uint", &i, &found, &err), NPUC_OK);
        CHECK(found && i == (w == 1 ? 200 : 300));
        i = 42;
        CHECK_EQ_INT(flexbuf_get_int(&m, "e_null", &i, &found, &err), NPUC_OK);
        CHECK(!found && i == 42);
        CHECK_EQ_INT(flexbuf_get_int(&m, "missing", &i, &found, &err), NPUC_OK);
        CHECK(!found && i == 42);
        CHECK_EQ_INT(flexbuf_get_int(&m, "a_in", &i, &found, &err), NPUC_OK); /* prefix is not a match */
        CHECK(!found);
        /* element 0 raw (TFLM's FlexbufferWrapper::ElementAsInt32) */
        CHECK_EQ_INT(flexbuf_elem_raw_int(&m, 0, &i, &err), NPUC_OK);
        CHECK_EQ_INT(i, -7);
        CHECK(flexbuf_elem_raw_int(&m, 5, &i, &err) != NPUC_OK);
        CHECK_STR_CONTAINS(err.msg, "element 5");
    }
}

static void test_indirect_and_bool_float(void)
{
    /* an indirect float: a 4-byte float stored before the map, the element
     * an offset to it */
    uint8_t buf[64];
    memset(buf, 0, sizeof buf);
    float v = 1.5f;
    memcpy(buf, &v, 4);
    size_t pos = 4;
    memcpy(buf + pos, "k", 2);
    const size_t koff = pos;
    pos += 2;
    buf[pos++] = 1;
    const size_t kv = pos;
    buf[pos] = (uint8_t)(pos - koff);
    pos++;
    buf[pos] = (uint8_t)(pos - kv); /* width 1 map header: keys offset, keys width, size */
    pos++;
    buf[pos++] = 1;
    buf[pos++] = 1;
    const size_t data = pos;
    buf[pos] = (uint8_t)(pos - 0); /* offset back to the float at 0 */
    pos++;
    buf[pos++] = (uint8_t)(FLEXBUF_INDIRECT_FLOAT << 2 | 2); /* child width 4 */
    buf[pos] = (uint8_t)(pos - data);
    pos++;
    buf[pos++] = 9u << 2;
    buf[pos++] = 1;
    flexbuf_map m;
    npuc_err err = {0};
    CHECK_EQ_INT(flexbuf_root_map(buf, pos, &m, &err), NPUC_OK);
    float f = 0;
    bool found = false, b = true;
    CHECK_EQ_INT(flexbuf_get_float(&m, "k", &f, &found, &err), NPUC_OK);
    CHECK(found && f == 1.5f);
    CHECK_EQ_INT(flexbuf_get_bool(&m, "k", &b, &found, &err), NPUC_OK);
    CHECK(found && b);

    /* a float 0.5 read as bool: AsBool truncates to an integer first */
    fb_ent e[1] = {{"x", FLEXBUF_FLOAT, fb_f32(0.5f)}};
    size_t len = fb_build(buf, e, 1, 4);
    CHECK_EQ_INT(flexbuf_root_map(buf, len, &m, &err), NPUC_OK);
    CHECK_EQ_INT(flexbuf_get_bool(&m, "x", &b, &found, &err), NPUC_OK);
    CHECK(found && !b);
}

static void test_errors(void)
{
    uint8_t buf[256];
    size_t len = make(buf, 4);
    flexbuf_map m;
    npuc_err err = {0};

    CHECK(flexbuf_root_map(buf, 2, &m, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "too short");

    uint8_t bad[256];
    memcpy(bad, buf, len);
    bad[len - 1] = 3; /* root width 3 */
    CHECK(flexbuf_root_map(bad, len, &m, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "root byte width 3");

    memcpy(bad, buf, len);
    bad[len - 2] = (uint8_t)(FLEXBUF_INT << 2); /* root is an int */
    CHECK(flexbuf_root_map(bad, len, &m, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "expected a map");

    memcpy(bad, buf, len);
    bad[len - 3] = 250; /* root offset before the buffer start */
    CHECK(flexbuf_root_map(bad, len, &m, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "byte offset");

    /* a huge element count */
    CHECK_EQ_INT(flexbuf_root_map(buf, len, &m, &err), NPUC_OK);
    memcpy(bad, buf, len);
    bad[m.data - 4] = 0xff;
    bad[m.data - 1] = 0x7f;
    CHECK(flexbuf_root_map(bad, len, &m, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "past the end");

    /* a key offset pointing before the buffer */
    CHECK_EQ_INT(flexbuf_root_map(buf, len, &m, &err), NPUC_OK);
    memcpy(bad, buf, len);
    bad[m.keys + 1] = 200;
    flexbuf_map mb;
    CHECK_EQ_INT(flexbuf_root_map(bad, len, &mb, &err), NPUC_OK);
    int64_t i;
    bool found;
    CHECK(flexbuf_get_int(&mb, "zzz", &i, &found, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "key 1");

    /* a string value where a scalar is wanted: the error names the key */
    memcpy(bad, buf, len);
    bad[m.data + m.size * m.width + 2] = (uint8_t)(FLEXBUF_STRING << 2);
    CHECK_EQ_INT(flexbuf_root_map(bad, len, &mb, &err), NPUC_OK);
    bool bv;
    CHECK(flexbuf_get_bool(&mb, "c_bool", &bv, &found, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "'c_bool'");

    /* an indirect value whose offset leaves the buffer */
    memcpy(bad, buf, len);
    bad[m.data + m.size * m.width + 0] = (uint8_t)(FLEXBUF_INDIRECT_INT << 2 | 2);
    bad[m.data] = 0xff;
    bad[m.data + 3] = 0x7f;
    CHECK_EQ_INT(flexbuf_root_map(bad, len, &mb, &err), NPUC_OK);
    CHECK(flexbuf_get_int(&mb, "a_int", &i, &found, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "'a_int'");
    CHECK_STR_CONTAINS(err.msg, "byte offset");

    /* a key without its terminating NUL (the buffer cut inside it) */
    static const uint8_t cut[] = {'a', 'b'};
    CHECK(flexbuf_root_map(cut, sizeof cut, &m, &err) != NPUC_OK);
}

/* Every truncation and every single-byte change: the reader may accept or
 * refuse but never reads outside the buffer (run under ASan). The buffer
 * is copied to a heap block of exactly its length so any overread is
 * caught. */
static void poke(const uint8_t *src, size_t len)
{
    uint8_t *b = malloc(len ? len : 1);
    memcpy(b, src, len);
    flexbuf_map m;
    npuc_err err = {0};
    if (flexbuf_root_map(b, len, &m, &err) == NPUC_OK) {
        int64_t i;
        float f;
        bool v, found;
        for (int k = 0; k < 6; k++) {
            const char *key = k < 5 ? ents[k].key : "nope";
            (void)flexbuf_get_int(&m, key, &i, &found, &err);
            (void)flexbuf_get_float(&m, key, &f, &found, &err);
            (void)flexbuf_get_bool(&m, key, &v, &found, &err);
        }
        (void)flexbuf_elem_raw_int(&m, 0, &i, &err);
    }
    free(b);
}

static void test_fuzz(void)
{
    const uint32_t widths[] = {1, 4, 8};
    for (int k = 0; k < 3; k++) {
        uint8_t buf[256], bad[256];
        size_t len = make(buf, widths[k]);
        for (size_t l = 0; l <= len; l++) poke(buf + (len - l), l); /* suffixes: the root is at the end */
        for (size_t l = 0; l <= len; l++) poke(buf, l);              /* prefixes */
        for (size_t p = 0; p < len; p++)
            for (int v = 0; v < 256; v++) {
                memcpy(bad, buf, len);
                bad[p] = (uint8_t)v;
                poke(bad, len);
            }
    }
    CHECK(1);
}

int main(void)
{
    test_read();
    test_indirect_and_bool_float();
    test_errors();
    test_fuzz();
    TEST_MAIN_END();
}
