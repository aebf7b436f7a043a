/* util/json: the strict reader (valid documents, positions, every error
 * with its exact message) and the writer (escaping, numbers, layout,
 * misuse, round trips). */
#include "test.h"

#include "util/json.h"

#include <math.h>
#include <stdint.h>

static npuc_arena A;

/* Parses text (with explicit size, so NULs can be tested). */
static const npuc_json *parse_n(const char *text, size_t n, const npuc_json_opts *opts, npuc_err *err)
{
    const npuc_json *v = NULL;
    memset(err, 0, sizeof *err);
    if (npuc_json_parse(text, n, opts, &A, &v, err) != NPUC_OK) return NULL;
    return v;
}

static const npuc_json *parse(const char *text)
{
    npuc_err err;
    const npuc_json *v = parse_n(text, strlen(text), NULL, &err);
    if (!v) fprintf(stderr, "unexpected parse error for %s: %s\n", text, err.msg);
    return v;
}

/* Expects the exact error message (and NPUC_E_FORMAT). */
#define CHECK_ERR_N(text, n, want)                                                      \
    do {                                                                                \
        npuc_err e_;                                                                    \
        const npuc_json *v_ = parse_n((text), (n), NULL, &e_);                          \
        CHECK(v_ == NULL);                                                              \
        CHECK_EQ_INT(e_.code, NPUC_E_FORMAT);                                           \
        t_checks++;                                                                     \
        if (strcmp(e_.msg, (want)) != 0) {                                              \
            t_failures++;                                                               \
            fprintf(stderr, "%s:%d: error for input %s\n  got:  %s\n  want: %s\n",      \
                    __FILE__, __LINE__, #text, e_.msg, (want));                         \
        }                                                                               \
    } while (0)
#define CHECK_ERR(text, want) CHECK_ERR_N((text), strlen(text), (want))

#define CHECK_STR_EQ(a, b)                                                              \
    do {                                                                                \
        const char *a_ = (a), *b_ = (b);                                                \
        t_checks++;                                                                     \
        if (!a_ || strcmp(a_, b_) != 0) {                                               \
            t_failures++;                                                               \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__,     \
                    a_ ? a_ : "(null)", b_);                                            \
        }                                                                               \
    } while (0)

static void test_valid(void)
{
    const npuc_json *v = parse("{\"a\": 1, \"b\": [true, false, null], \"c\": {\"d\": \"x\"}, \"e\": []}");
    CHECK(v && v->type == NPUC_JSON_OBJECT);
    if (!v) return;
    CHECK_EQ_INT(v->n, 4);
    CHECK_STR_EQ(v->members[0].key, "a");
    const npuc_json *a = npuc_json_get(v, "a");
    CHECK(a && a->type == NPUC_JSON_NUMBER && a->is_int && a->integer == 1 && a->number == 1.0);
    const npuc_json *b = npuc_json_get(v, "b");
    CHECK(b && b->type == NPUC_JSON_ARRAY && b->n == 3);
    if (b && b->n == 3) {
        CHECK(b->items[0]->type == NPUC_JSON_BOOL && b->items[0]->boolean);
        CHECK(b->items[1]->type == NPUC_JSON_BOOL && !b->items[1]->boolean);
        CHECK(b->items[2]->type == NPUC_JSON_NULL);
    }
    const npuc_json *d = npuc_json_get(npuc_json_get(v, "c"), "d");
    CHECK(d && d->type == NPUC_JSON_STRING && d->len == 1);
    if (d) CHECK_STR_EQ(d->str, "x");
    const npuc_json *e = npuc_json_get(v, "e");
    CHECK(e && e->type == NPUC_JSON_ARRAY && e->n == 0);
    CHECK(npuc_json_get(v, "zz") == NULL);
    CHECK(npuc_json_get(b, "a") == NULL);   /* not an object */

    /* top-level scalars, whitespace, empty containers */
    v = parse(" \t\r\n 42 \n");
    CHECK(v && v->type == NPUC_JSON_NUMBER && v->integer == 42);
    v = parse("\"s\"");
    CHECK(v && v->type == NPUC_JSON_STRING);
    v = parse("null");
    CHECK(v && v->type == NPUC_JSON_NULL);
    v = parse("{}");
    CHECK(v && v->type == NPUC_JSON_OBJECT && v->n == 0);
    v = parse("[[[]]]");
    CHECK(v && v->n == 1 && v->items[0]->n == 1 && v->items[0]->items[0]->n == 0);
    /* the same key in different objects is fine */
    CHECK(parse("[{\"a\": 1}, {\"a\": 2}]") != NULL);
    /* a UTF-8 byte order mark is skipped */
    v = parse("\xEF\xBB\xBF[1]");
    CHECK(v && v->type == NPUC_JSON_ARRAY);

    CHECK_STR_EQ(npuc_json_type_name(NPUC_JSON_OBJECT), "object");
    CHECK_STR_EQ(npuc_json_type_name(NPUC_JSON_BOOL), "boolean");
}

static void test_positions(void)
{
    const npuc_json *v = parse("{\n  \"a\": 1,\n  \"b\": [2,\n\t3]\n}");
    CHECK(v != NULL);
    if (!v) return;
    CHECK_EQ_INT(v->line, 1);
    CHECK_EQ_INT(v->col, 1);
    CHECK_EQ_INT(v->members[0].line, 2);
    CHECK_EQ_INT(v->members[0].col, 3);
    const npuc_json *a = npuc_json_get(v, "a"), *b = npuc_json_get(v, "b");
    CHECK_EQ_INT(a->line, 2);
    CHECK_EQ_INT(a->col, 8);
    CHECK_EQ_INT(b->line, 3);
    CHECK_EQ_INT(b->col, 8);
    CHECK_EQ_INT(b->items[0]->col, 9);
    CHECK_EQ_INT(b->items[1]->line, 4);
    CHECK_EQ_INT(b->items[1]->col, 2);   /* a tab is one column */
    /* a multi-byte character is one column */
    v = parse("[\"\xC3\xA9\xE2\x82\xAC\", 7]");
    CHECK(v && v->items[1]->col == 8);
}

static void test_numbers(void)
{
    const npuc_json *v = parse("[0, -0, 1.5, -1.5e3, 1E+2, 2e-2, 9223372036854775807, -9223372036854775808, "
                               "9223372036854775808, 123456789012345678901234567890, 1e308, 1e-400, "
                               "0.000000000000000000000000000000000000001]");
    CHECK(v && v->n == 13);
    if (!v || v->n != 13) return;
    const npuc_json *const *it = v->items;
    CHECK(it[0]->is_int && it[0]->integer == 0);
    CHECK(it[1]->is_int && it[1]->integer == 0 && it[1]->number == 0.0);
    CHECK(!it[2]->is_int && it[2]->number == 1.5);
    CHECK(!it[3]->is_int && it[3]->number == -1500.0);
    CHECK(!it[4]->is_int && it[4]->number == 100.0);
    CHECK(it[5]->number == 0.02);
    CHECK(it[6]->is_int && it[6]->integer == INT64_MAX);
    CHECK(it[7]->is_int && it[7]->integer == INT64_MIN);
    CHECK(!it[8]->is_int && it[8]->number == 9223372036854775808.0);
    CHECK(!it[9]->is_int && fabs(it[9]->number - 1.2345678901234568e29) < 1e14);
    CHECK(it[10]->number == 1e308);
    CHECK(it[11]->number == 0.0);   /* underflow is fine */
    CHECK(it[12]->number == 1e-39);
    /* the literal is kept */
    CHECK_STR_EQ(it[4]->str, "1E+2");
    CHECK_EQ_INT(it[4]->len, 4);

    CHECK_ERR("1e400", "1:1: number out of range: 1e400");
    CHECK_ERR("[-1e999]", "1:2: number out of range: -1e999");
    CHECK_ERR("-", "1:2: invalid number: expected a digit after '-'");
    CHECK_ERR("-a", "1:2: invalid number: expected a digit after '-'");
    CHECK_ERR("01", "1:1: invalid number: leading zeros are not allowed");
    CHECK_ERR("[-012]", "1:2: invalid number: leading zeros are not allowed");
    CHECK_ERR("1.", "1:3: invalid number: expected a digit after '.'");
    CHECK_ERR("1.e5", "1:3: invalid number: expected a digit after '.'");
    CHECK_ERR("1e", "1:3: invalid number: expected a digit in the exponent");
    CHECK_ERR("1e+", "1:4: invalid number: expected a digit in the exponent");
    CHECK_ERR("+1", "1:1: expected a value, found '+'");
    CHECK_ERR(".5", "1:1: expected a value, found '.'");
    CHECK_ERR("0x10", "1:2: unexpected 'x' after the JSON value");
    CHECK_ERR("NaN", "1:1: expected a value, found 'N'");
    CHECK_ERR("[Infinity]", "1:2: expected a value, found 'I'");
}

static void test_strings(void)
{
    const npuc_json *v = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
    CHECK(v && v->len == 12);
    if (v) CHECK(memcmp(v->str, "a\"b\\c/d\b\f\n\r\t", 13) == 0);
    v = parse("\"\\u0041\\u00e9\\u20AC\\uD83D\\uDE00\\u007f\"");
    CHECK(v != NULL);
    if (v) CHECK_STR_EQ(v->str, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F");
    v = parse("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\"");   /* raw UTF-8 up to U+10FFFF */
    CHECK(v && v->len == 13);
    v = parse("\"\"");
    CHECK(v && v->len == 0 && v->str && v->str[0] == 0);

    CHECK_ERR("\"abc", "1:1: unterminated string");
    CHECK_ERR("[\"abc\\", "1:2: unterminated string");
    CHECK_ERR("\"a\nb\"", "1:3: control character 0x0A in string (write it as an escape such as \\n)");
    CHECK_ERR("\"a\tb\"", "1:3: control character 0x09 in string (write it as an escape such as \\n)");
    CHECK_ERR("\"\\x\"", "1:2: invalid escape '\\x' in string");
    CHECK_ERR("\"\\U0041\"", "1:2: invalid escape '\\U' in string");
    CHECK_ERR("\"\\u12G4\"", "1:2: invalid \\u escape: expected 4 hex digits");
    CHECK_ERR("\"\\u12\"", "1:2: invalid \\u escape: expected 4 hex digits");
    CHECK_ERR("\"ab\\uD800\"", "1:4: invalid \\u escape: unpaired surrogate \\uD800");
    CHECK_ERR("\"\\uDC00\"", "1:2: invalid \\u escape: unpaired surrogate \\uDC00");
    CHECK_ERR("\"\\uD800\\u0041\"", "1:2: invalid \\u escape: unpaired surrogate \\uD800");
    CHECK_ERR("\"\\uD800\\uZZZZ\"", "1:2: invalid \\u escape: expected 4 hex digits");
    CHECK_ERR("\"\\u0000\"", "1:2: \\u0000 is not allowed in strings");
    CHECK_ERR("\"\xFF\"", "1:2: invalid UTF-8 in string");
    CHECK_ERR("\"x\xC0\xAF\"", "1:3: invalid UTF-8 in string");          /* overlong '/' */
    CHECK_ERR("\"\xED\xA0\x80\"", "1:2: invalid UTF-8 in string");        /* encoded surrogate */
    CHECK_ERR("\"\xE2\x82\"", "1:2: invalid UTF-8 in string");            /* truncated */
    CHECK_ERR("\"\xF4\x90\x80\x80\"", "1:2: invalid UTF-8 in string");    /* above U+10FFFF */
    CHECK_ERR("\"\x80\"", "1:2: invalid UTF-8 in string");                /* lone continuation */
    CHECK_ERR("'a'", "1:1: expected a value, found a single quote (strings must use double quotes)");
}

static void test_structure_errors(void)
{
    CHECK_ERR("", "1:1: expected a value, found end of input");
    CHECK_ERR("   \n  ", "2:3: expected a value, found end of input");
    CHECK_ERR("[1,]", "1:3: trailing comma before ']'");
    CHECK_ERR("{\"a\":1,}", "1:7: trailing comma before '}'");
    CHECK_ERR("[1 2]", "1:4: expected ',' or ']' after array element, found '2'");
    CHECK_ERR("[1", "1:3: expected ',' or ']' after array element, found end of input");
    CHECK_ERR("[", "1:2: expected a value, found end of input");
    CHECK_ERR("{\"a\" 1}", "1:6: expected ':' after object key, found '1'");
    CHECK_ERR("{\"a\":1 \"b\":2}", "1:8: expected ',' or '}' after object member, found '\"'");
    CHECK_ERR("{\"a\":", "1:6: expected a value, found end of input");
    CHECK_ERR("{a:1}", "1:2: expected a string key, found 'a'");
    CHECK_ERR("{'a':1}", "1:2: expected a string key, found a single quote (strings must use double quotes)");
    CHECK_ERR("{1:1}", "1:2: expected a string key, found '1'");
    CHECK_ERR("{", "1:2: expected a string key, found end of input");
    CHECK_ERR("[1] x", "1:5: unexpected 'x' after the JSON value");
    CHECK_ERR("{} {}", "1:4: unexpected '{' after the JSON value");
    CHECK_ERR("1 2", "1:3: unexpected '2' after the JSON value");
    CHECK_ERR("[1]]", "1:4: unexpected ']' after the JSON value");
    CHECK_ERR("// c\n1", "1:1: expected a value, found '/' (comments are not allowed in JSON)");
    CHECK_ERR("[1, /* c */ 2]", "1:5: expected a value, found '/' (comments are not allowed in JSON)");
    CHECK_ERR("[tru]", "1:2: invalid literal: expected 'true'");
    CHECK_ERR("nul", "1:1: invalid literal: expected 'null'");
    CHECK_ERR("[False]", "1:2: expected a value, found 'F'");
    CHECK_ERR("truex", "1:5: unexpected 'x' after the JSON value");
    CHECK_ERR_N("[\0]", 3, "1:2: expected a value, found byte 0x00");
    CHECK_ERR_N("[1]\0", 4, "1:4: unexpected byte 0x00 after the JSON value");
    CHECK_ERR("\xEF\xBB\xBF", "1:1: expected a value, found end of input");
    CHECK_ERR("[\xC3\xA9]", "1:2: expected a value, found byte 0xC3");
    /* multi-line: position of the second comma */
    CHECK_ERR("{\n  \"a\": [1,\n    2,,\n  ]\n}", "3:7: expected a value, found ','");
    /* columns count characters, not bytes */
    CHECK_ERR("[\"\xC3\xA9\", x]", "1:7: expected a value, found 'x'");
    /* CRLF line ends */
    CHECK_ERR("[1,\r\n x]", "2:2: expected a value, found 'x'");
}

static void test_duplicates(void)
{
    CHECK_ERR("{\"a\":1,\"b\":2,\"a\":3}", "1:14: duplicate key \"a\" (first at 1:2)");
    /* the earliest repetition in document order is reported */
    CHECK_ERR("{\"b\":1,\"a\":1,\"b\":2,\"a\":2}", "1:14: duplicate key \"b\" (first at 1:2)");
    CHECK_ERR("{\n \"x\": {\"k\": 1,\n  \"k\": 2}}", "3:3: duplicate key \"k\" (first at 2:8)");
    /* keys compare after decoding */
    CHECK_ERR("{\"A\":1,\"\\u0041\":2}", "1:8: duplicate key \"A\" (first at 1:2)");
    /* control characters in the key are shown as '?' */
    CHECK_ERR("{\"a\\nb\":1,\"a\\nb\":2}", "1:11: duplicate key \"a?b\" (first at 1:2)");
    /* many keys: still found (sorted check) */
    char big[80000];
    size_t o = 0;
    big[o++] = '{';
    for (int i = 0; i < 5000; i++) o += (size_t)snprintf(big + o, sizeof big - o, "\"k%d\":%d,", i, i);
    o += (size_t)snprintf(big + o, sizeof big - o, "\"k4321\":0}");
    npuc_err err;
    CHECK(parse_n(big, o, NULL, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "duplicate key \"k4321\"");
    big[o - 8] = 'z';   /* "z4321": now unique */
    CHECK(parse_n(big, o, NULL, &err) != NULL);
}

static void test_depth_and_limits(void)
{
    char buf[400];
    /* 64 levels: fine; 65: refused at the 65th bracket */
    memset(buf, '[', 64);
    memset(buf + 64, ']', 64);
    npuc_err err;
    CHECK(parse_n(buf, 128, NULL, &err) != NULL);
    memset(buf, '[', 65);
    memset(buf + 65, ']', 65);
    CHECK_ERR_N(buf, 130, "1:65: nesting deeper than 64 levels");
    /* objects count too */
    npuc_json_opts o = {.max_depth = 3};
    CHECK(parse_n("{\"a\":{\"b\":[]}}", 14, &o, &err) != NULL);
    CHECK(parse_n("{\"a\":{\"b\":[{}]}}", 16, &o, &err) == NULL);
    CHECK_STR_EQ(err.msg, "1:12: nesting deeper than 3 levels");
    /* a huge nesting attempt fails fast, without deep recursion */
    size_t n = 1000000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    CHECK(parse_n(deep, n, NULL, &err) == NULL);
    CHECK_STR_EQ(err.msg, "1:65: nesting deeper than 64 levels");
    o.max_depth = 100000;   /* capped at NPUC_JSON_DEPTH_LIMIT */
    CHECK(parse_n(deep, n, &o, &err) == NULL);
    CHECK_STR_EQ(err.msg, "1:257: nesting deeper than 256 levels");
    free(deep);
    /* size limit and the source name */
    npuc_json_opts s = {.source = "cfg.json", .max_size = 4};
    CHECK(parse_n("[1,2,3]", 7, &s, &err) == NULL);
    CHECK_STR_EQ(err.msg, "cfg.json: 7 bytes, more than the limit of 4 for this file");
    s.max_size = 0;
    CHECK(parse_n("[1,,3]", 6, &s, &err) == NULL);
    CHECK_STR_EQ(err.msg, "cfg.json:1:4: expected a value, found ','");
    CHECK_EQ_INT(err.code, NPUC_E_FORMAT);
    /* bad arguments */
    const npuc_json *v;
    CHECK_EQ_INT(npuc_json_parse("1", 1, NULL, NULL, &v, &err), NPUC_E_USAGE);
    CHECK_EQ_INT(npuc_json_parse(NULL, 1, NULL, &A, &v, &err), NPUC_E_USAGE);
    /* a buffer that is not NUL-terminated: only `size` bytes are read */
    CHECK(parse_n("[12]garbage", 4, NULL, &err) != NULL);
}

/* Writes with `w` and returns the text (malloc'd) or NULL with err. */
static char *finish(npuc_json_writer *w, npuc_err *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(err, 0, sizeof *err);
    if (npuc_json_writer_finish(w, &text, &len, err)) return NULL;
    if (text && strlen(text) != len) {
        t_failures++;
        fprintf(stderr, "writer length mismatch\n");
    }
    return text;
}

static void test_writer(void)
{
    npuc_json_writer w;
    npuc_err err;
    npuc_json_writer_init(&w, 0);
    npuc_json_write_object_begin(&w);
    npuc_json_write_key(&w, "name");
    npuc_json_write_string(&w, "a\"b\\c\n\t\x01\x7F\xC3\xA9");
    npuc_json_write_key(&w, "n");
    npuc_json_write_int(&w, -42);
    npuc_json_write_key(&w, "u");
    npuc_json_write_uint(&w, UINT64_MAX);
    npuc_json_write_key(&w, "d");
    npuc_json_write_array_begin(&w);
    npuc_json_write_double(&w, 0.1);
    npuc_json_write_double(&w, 3.0);
    npuc_json_write_double(&w, 1e300);
    npuc_json_write_double(&w, -0.0);
    npuc_json_write_double(&w, NAN);
    npuc_json_write_double(&w, INFINITY);
    npuc_json_write_double(&w, 1.0 / 3.0);
    npuc_json_write_array_end(&w);
    npuc_json_write_key(&w, "e");
    npuc_json_write_array_begin(&w);
    npuc_json_write_array_end(&w);
    npuc_json_write_key(&w, "o");
    npuc_json_write_object_begin(&w);
    npuc_json_write_object_end(&w);
    npuc_json_write_key(&w, "b");
    npuc_json_write_bool(&w, true);
    npuc_json_write_key(&w, "z");
    npuc_json_write_null(&w);
    npuc_json_write_key(&w, "s");
    npuc_json_write_string(&w, NULL);
    npuc_json_write_key(&w, "bad");
    npuc_json_write_string_n(&w, "x\xFFy\xE2\x82", 5);   /* invalid UTF-8 -> U+FFFD */
    npuc_json_write_object_end(&w);
    char *t = finish(&w, &err);
    CHECK_STR_EQ(t, "{\"name\":\"a\\\"b\\\\c\\n\\t\\u0001\x7F\xC3\xA9\",\"n\":-42,\"u\":18446744073709551615,"
                    "\"d\":[0.1,3,1e+300,-0,null,null,0.3333333333333333],\"e\":[],\"o\":{},\"b\":true,"
                    "\"z\":null,\"s\":null,\"bad\":\"x\xEF\xBF\xBDy\xEF\xBF\xBD\xEF\xBF\xBD\"}");
    /* what the writer writes, the reader reads */
    if (t) {
        const npuc_json *v = parse(t);
        CHECK(v && v->type == NPUC_JSON_OBJECT && v->n == 10);
        const npuc_json *d = npuc_json_get(v, "d");
        CHECK(d && d->n == 7 && d->items[0]->number == 0.1 && d->items[6]->number == 1.0 / 3.0);
        const npuc_json *nm = npuc_json_get(v, "name");
        CHECK(nm && strcmp(nm->str, "a\"b\\c\n\t\x01\x7F\xC3\xA9") == 0);
    }
    free(t);

    /* pretty layout */
    npuc_json_writer_init(&w, 2);
    npuc_json_write_object_begin(&w);
    npuc_json_write_key(&w, "a");
    npuc_json_write_array_begin(&w);
    npuc_json_write_int(&w, 1);
    npuc_json_write_object_begin(&w);
    npuc_json_write_key(&w, "k");
    npuc_json_write_string(&w, "v");
    npuc_json_write_object_end(&w);
    npuc_json_write_array_end(&w);
    npuc_json_write_key(&w, "e");
    npuc_json_write_object_begin(&w);
    npuc_json_write_object_end(&w);
    npuc_json_write_object_end(&w);
    t = finish(&w, &err);
    CHECK_STR_EQ(t, "{\n  \"a\": [\n    1,\n    {\n      \"k\": \"v\"\n    }\n  ],\n  \"e\": {}\n}\n");
    free(t);

    /* indentation deeper than the writer's run of spaces (20 levels of 7) */
    npuc_json_writer_init(&w, 7);
    for (int d = 0; d < 20; d++) npuc_json_write_array_begin(&w);
    npuc_json_write_int(&w, 5);
    for (int d = 0; d < 20; d++) npuc_json_write_array_end(&w);
    t = finish(&w, &err);
    {
        char want[4096];
        size_t at = 0;
        for (int d = 0; d < 20; d++) {
            want[at++] = '[';
            want[at++] = '\n';
            for (int i = 0; i < 7 * (d + 1); i++) want[at++] = ' ';
        }
        want[at++] = '5';
        for (int d = 19; d >= 0; d--) {
            want[at++] = '\n';
            for (int i = 0; i < 7 * d; i++) want[at++] = ' ';
            want[at++] = ']';
        }
        want[at++] = '\n';
        want[at] = 0;
        CHECK_STR_EQ(t, want);
    }
    free(t);

    /* a top-level scalar */
    npuc_json_writer_init(&w, 0);
    npuc_json_write_string(&w, "x");
    t = finish(&w, &err);
    CHECK_STR_EQ(t, "\"x\"");
    free(t);
}

static void check_misuse(void (*fn)(npuc_json_writer *), const char *want)
{
    npuc_json_writer w;
    npuc_err err;
    npuc_json_writer_init(&w, 0);
    fn(&w);
    char *t = finish(&w, &err);
    CHECK(t == NULL);
    CHECK_EQ_INT(err.code, NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, want);
    free(t);
}

static void m_nokey(npuc_json_writer *w) { npuc_json_write_object_begin(w); npuc_json_write_int(w, 1); npuc_json_write_object_end(w); }
static void m_keyarr(npuc_json_writer *w) { npuc_json_write_array_begin(w); npuc_json_write_key(w, "k"); npuc_json_write_array_end(w); }
static void m_keytop(npuc_json_writer *w) { npuc_json_write_key(w, "k"); }
static void m_twokeys(npuc_json_writer *w) { npuc_json_write_object_begin(w); npuc_json_write_key(w, "a"); npuc_json_write_key(w, "b"); }
static void m_dangling(npuc_json_writer *w) { npuc_json_write_object_begin(w); npuc_json_write_key(w, "a"); npuc_json_write_object_end(w); }
static void m_unclosed(npuc_json_writer *w) { npuc_json_write_object_begin(w); }
static void m_unclosed_a(npuc_json_writer *w) { npuc_json_write_array_begin(w); npuc_json_write_array_begin(w); npuc_json_write_array_end(w); }
static void m_nothing(npuc_json_writer *w) { (void)w; }
static void m_two(npuc_json_writer *w) { npuc_json_write_int(w, 1); npuc_json_write_int(w, 2); }
static void m_mismatch(npuc_json_writer *w) { npuc_json_write_array_begin(w); npuc_json_write_object_end(w); }
static void m_extra_end(npuc_json_writer *w) { npuc_json_write_array_begin(w); npuc_json_write_array_end(w); npuc_json_write_array_end(w); }
static void m_deep(npuc_json_writer *w) { for (int i = 0; i < NPUC_JSON_DEPTH_LIMIT + 1; i++) npuc_json_write_array_begin(w); }

static void test_writer_misuse(void)
{
    check_misuse(m_nokey, "JSON writer: an object member without a key");
    check_misuse(m_keyarr, "JSON writer: a key outside an object");
    check_misuse(m_keytop, "JSON writer: a key outside an object");
    check_misuse(m_twokeys, "JSON writer: two keys in a row");
    check_misuse(m_dangling, "JSON writer: a key without a value at the end of an object");
    check_misuse(m_unclosed, "JSON writer: an object is not closed");
    check_misuse(m_unclosed_a, "JSON writer: an array is not closed");
    check_misuse(m_nothing, "JSON writer: no value was written");
    check_misuse(m_two, "JSON writer: a second value at the top level");
    check_misuse(m_mismatch, "JSON writer: object end without a matching begin");
    check_misuse(m_extra_end, "JSON writer: array end without a matching begin");
    check_misuse(m_deep, "JSON writer: nesting deeper than the writer's limit");
}

/* parse -> write -> parse -> write gives the same text twice, compact and
 * pretty */
static void test_round_trip(void)
{
    const char *docs[] = {
        ("{\"name\": \"x\", \"pools\": [{\"size\": \"2MB\", \"n\": 1.50, \"e\": 1E+2, \"z\": -0},"
         " {\"a\": [], \"b\": {}, \"c\": [null, true, false]}], \"u\": \"\\u00e9\\uD83D\\uDE00\\n\\u001f\"}"),
        "[]", "0", "\"\"", "[[[[[[[[[[1]]]]]]]]]]",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        for (int indent = 0; indent <= 4; indent += 4) {
            const npuc_json *v = parse(docs[i]);
            CHECK(v != NULL);
            if (!v) continue;
            npuc_json_writer w;
            npuc_err err;
            npuc_json_writer_init(&w, indent);
            npuc_json_write_value(&w, v);
            char *t1 = finish(&w, &err);
            CHECK(t1 != NULL);
            const npuc_json *v2 = t1 ? parse(t1) : NULL;
            CHECK(v2 != NULL);
            npuc_json_writer_init(&w, indent);
            if (v2) npuc_json_write_value(&w, v2);
            char *t2 = finish(&w, &err);
            CHECK(t1 && t2 && strcmp(t1, t2) == 0);
            if (i == 0 && indent == 0)
                CHECK_STR_EQ(t1, "{\"name\":\"x\",\"pools\":[{\"size\":\"2MB\",\"n\":1.50,\"e\":1E+2,\"z\":-0},"
                                 "{\"a\":[],\"b\":{},\"c\":[null,true,false]}],"
                                 "\"u\":\"\xC3\xA9\xF0\x9F\x98\x80\\n\\u001F\"}");
            free(t1);
            free(t2);
        }
    }
    /* a large document */
    npuc_json_writer w;
    npuc_err err;
    npuc_json_writer_init(&w, 0);
    npuc_json_write_array_begin(&w);
    for (int i = 0; i < 20000; i++) npuc_json_write_int(&w, i * 7919);
    npuc_json_write_array_end(&w);
    char *t = finish(&w, &err);
    const npuc_json *v = t ? parse(t) : NULL;
    CHECK(v && v->n == 20000 && v->items[19999]->integer == 19999LL * 7919);
    free(t);
}

int main(void)
{
    npuc_arena_init(&A);
    test_valid();
    test_positions();
    test_numbers();
    test_strings();
    test_structure_errors();
    test_duplicates();
    test_depth_and_limits();
    test_writer();
    test_writer_misuse();
    test_round_trip();
    npuc_arena_free(&A);
    TEST_MAIN_END();
}
