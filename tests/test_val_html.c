/* validate/val_html: the HTML report of a synthetic val_report built by
 * hand: every section, one bar per op and one rectangle per buffer, the
 * verdicts, escaping of every string from the report, nothing loaded from
 * elsewhere, and the edge cases (no ops, no buffers, NULL arrays, all-zero
 * cycles, odd bytes in names). With NPUC_HTML_OUT set, the synthetic page
 * is also written there, with NPUC_HTML_OUT_EMPTY the empty report's
 * (test_val_html_chromium.sh renders them). */
#include "test.h"

#include "validate/validate.h"

#include <math.h>
#include <stdint.h>

#define EVIL "<script>&\"'"
#define EVIL_ESC "&lt;script&gt;&amp;&quot;&#39;"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + k, needle)) n++;
    return n;
}

/* Well-formedness a test can check without a parser: tags are balanced
 * for the elements the writer opens and closes. */
static void check_balanced(const char *html, const char *tag)
{
    char open1[32], open2[32], close[32];
    snprintf(open1, sizeof open1, "<%s>", tag);
    snprintf(open2, sizeof open2, "<%s ", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    size_t o = count(html, open1) + count(html, open2), c = count(html, close);
    if (o != c) fprintf(stderr, "tag %s: %zu opened, %zu closed\n", tag, o, c);
    CHECK_EQ_INT(o, c);
}

static void check_common(const char *html)
{
    CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    CHECK_STR_CONTAINS(html, "<meta charset=\"utf-8\">");
    CHECK(strstr(html, "</html>\n") != NULL && strlen(strstr(html, "</html>\n")) == 8);
    static const char *const ids[] = {"id=\"summary\"", "id=\"outputs\"", "id=\"cycle-chart\"",
                                      "id=\"memory-timeline\"", "id=\"partition\"", "id=\"render-check\""};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) CHECK_EQ_INT(count(html, ids[i]), 1);
    CHECK_EQ_INT(count(html, "<section"), 5);
    CHECK_EQ_INT(count(html, "<svg class=\"chart\""), 2);
    /* nothing from elsewhere */
    CHECK(strstr(html, "http://") == NULL);
    CHECK(strstr(html, "https://") == NULL);
    CHECK(strstr(html, " src=") == NULL);
    CHECK(strstr(html, " href=") == NULL);
    CHECK(strstr(html, "url(") == NULL);
    CHECK(strstr(html, "@import") == NULL);
    CHECK(strstr(html, "<link") == NULL);
    CHECK(strstr(html, "<img") == NULL);
    CHECK(strstr(html, "<iframe") == NULL);
    /* one script: the self-check at the end of the body */
    CHECK_EQ_INT(count(html, "<script"), 1);
    CHECK_EQ_INT(count(html, "</script>"), 1);
    const char *sc = strstr(html, "<script>");
    CHECK(sc && strstr(sc, "</script>\n</body>") != NULL);
    CHECK(sc && strstr(html, "id=\"render-check\"") < sc);
    static const char *const tags[] = {"section", "table", "thead", "tbody", "tr", "svg", "g", "title", "text",
                                       "style", "header", "main", "footer", "p", "dl", "div", "td", "th"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) check_balanced(html, tags[i]);
    /* C-locale numbers, no non-finite doubles in coordinates */
    CHECK(strstr(html, "=\"nan") == NULL && strstr(html, "=\"inf") == NULL && strstr(html, "=\"-nan") == NULL);
    CHECK(strstr(html, "NaN") == NULL);
}

/* For test_val_html_chromium.sh: the page at path (if set). */
static void write_page(const char *path, const char *html)
{
    if (!path || !*path) return;
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK_EQ_INT(fwrite(html, 1, strlen(html), f), strlen(html));
    CHECK_EQ_INT(fclose(f), 0);
}

static void set_str(char *dst, size_t size, const char *s)
{
    snprintf(dst, size, "%s", s);
}

#define SET(field, s) set_str((field), sizeof(field), (s))

static void full_report(val_report *r, val_output *outs, val_op *ops, val_epoch *eps, val_buffer *bufs,
                        uint64_t *live)
{
    memset(r, 0, sizeof *r);
    SET(r->model, "model " EVIL ".tflite");
    SET(r->target, "ethos-u55-128");
    SET(r->system, "Ethos_U55_High_End_Embedded");
    r->core_clock_hz = 500e6;
    r->macs_per_cycle = 256;
    r->n_sets = 3;
    r->compiled_here = true;
    r->op_detail = true;
    SET(r->note, "note " EVIL);
    r->tolerance = 1;
    r->pass = true;
    r->bit_exact = false;

    /* outputs: one bit-exact classifier, one within the tolerance */
    memset(outs, 0, 2 * sizeof *outs);
    outs[0].index = 0;
    outs[0].tensor = 7;
    SET(outs[0].name, "scores " EVIL);
    outs[0].dtype = GRAPH_I8;
    outs[0].scale = 1.0 / 256;
    outs[0].zero_point = -128;
    outs[0].q = (val_metrics){.n = 30, .n_diff = 0, .bit_exact = true, .first_diff = -1, .cosine = 1};
    outs[0].deq = outs[0].q;
    outs[0].classifier = true;
    outs[0].top1_agree = 3;
    outs[0].top1_n = 3;
    outs[0].has_float = true;
    outs[0].float_deployed = (val_metrics){.n = 30, .n_diff = 12, .max_abs = 0.0078125, .mae = 0.002,
                                           .rmse = 0.003, .cosine = 0.99991, .l2_rel = 0.01};
    outs[0].float_reference = outs[0].float_deployed;
    outs[0].pass = true;
    outs[1].index = 1;
    outs[1].tensor = 9;
    SET(outs[1].name, "boxes");
    outs[1].dtype = GRAPH_I16;
    outs[1].q = (val_metrics){.n = 64, .n_diff = 2, .bit_exact = false, .first_diff = 17, .max_abs = 1,
                              .mae = 0.03125, .rmse = 0.1767767, .cosine = 0.999871, .l2_rel = INFINITY};
    outs[1].pass = true;
    r->outputs = outs;
    r->n_outputs = 2;

    /* 5 ops in 3 epochs: HW (0-1), SW (2), HW (3-4) */
    static const char *const types[5] = {"CONV_2D", "DEPTHWISE_CONV_2D", "SOFTMAX", "ADD", "FULLY_CONNECTED"};
    memset(ops, 0, 5 * sizeof *ops);
    for (int i = 0; i < 5; i++) {
        val_op *o = &ops[i];
        o->index = i;
        SET(o->type, types[i]);
        snprintf(o->name, sizeof o->name, "t%d", i);
        o->epoch = i < 2 ? 0 : i == 2 ? 1 : 2;
        o->kind = i == 2 ? NPURT_EPOCH_SW : NPURT_EPOCH_HW;
        o->n_npu_ops = i == 2 ? 0 : 1;
        o->macs = i == 2 ? 0 : 10000u * (uint64_t)(i + 1);
        o->npu_cycles = i == 2 ? 0 : 2000u * (uint64_t)(i + 1);
        o->est_cycles = i == 2 ? 0 : 1900u * (uint64_t)(i + 1);
        o->cpu_ns = i == 2 ? 12500 : 0;
        o->bytes_read[VAL_MEM_PARAMS] = 100u * (uint64_t)i;
        o->bytes_read[VAL_MEM_ACTIVATIONS] = 1000;
        o->bytes_written[VAL_MEM_ACTIVATIONS] = 500;
        o->mac_util = i == 2 ? 0 : 0.5;
    }
    SET(ops[2].name, "softmax " EVIL);
    SET(ops[2].why, "int16 softmax " EVIL " is not supported on the NPU");
    r->ops = ops;
    r->n_ops = 5;

    memset(eps, 0, 3 * sizeof *eps);
    eps[0] = (val_epoch){.kind = NPURT_EPOCH_HW, .first_op = 0, .n_ops = 2, .npu_cycles = 6000, .est_cycles = 5700,
                         .macs = 30000};
    SET(eps[0].work, "command stream 1234 B");
    eps[1] = (val_epoch){.kind = NPURT_EPOCH_SW, .first_op = 2, .n_ops = 1, .cpu_ns = 12500};
    SET(eps[1].work, "k_softmax " EVIL);
    eps[2] = (val_epoch){.kind = NPURT_EPOCH_HW, .first_op = 3, .n_ops = 2, .npu_cycles = 18000, .est_cycles = 17100,
                         .macs = 90000};
    SET(eps[2].work, "command stream 800 B");
    r->epochs = eps;
    r->n_epochs = 3;

    memset(bufs, 0, 4 * sizeof *bufs);
    bufs[0] = (val_buffer){.tensor = 0, .pool = VAL_MEM_ACTIVATIONS, .offset = 0, .size = 4096, .first_op = 0,
                           .last_op = 0};
    SET(bufs[0].name, "input");
    bufs[1] = (val_buffer){.tensor = 1, .pool = VAL_MEM_ACTIVATIONS, .offset = 4096, .size = 8192, .first_op = 0,
                           .last_op = 2};
    SET(bufs[1].name, "buf " EVIL);
    bufs[2] = (val_buffer){.tensor = -1, .pool = VAL_MEM_ACTIVATIONS, .offset = 0, .size = 2048, .first_op = 2,
                           .last_op = 4};
    SET(bufs[2].name, "scratch");
    bufs[3] = (val_buffer){.tensor = 3, .pool = VAL_MEM_ACTIVATIONS, .offset = 2048, .size = 0, .first_op = 3,
                           .last_op = 3};
    SET(bufs[3].name, "empty");
    r->buffers = bufs;
    r->n_buffers = 4;

    static const uint64_t lv[5] = {12288, 8192, 10240, 2048, 2048};
    memcpy(live, lv, sizeof lv);
    r->live = live;

    SET(r->pools[VAL_MEM_PARAMS].name, "Dram");
    r->pools[VAL_MEM_PARAMS].used = 20000;
    SET(r->pools[VAL_MEM_ACTIVATIONS].name, "Sram");
    r->pools[VAL_MEM_ACTIVATIONS].size = 1 << 20;
    r->pools[VAL_MEM_ACTIVATIONS].used = 12288;
    r->pools[VAL_MEM_ACTIVATIONS].peak = 12288;
    r->macs = 120000;
    r->npu_cycles = 24000;
    r->est_cycles = 22800;
    r->cpu_ns = 12500;
    r->npu_s = 24000 / 500e6;
    r->inferences_per_s = 1 / (r->npu_s + 12500e-9);
    r->n_npu_ops_graph = 4;
    r->n_cpu_ops_graph = 1;
}

static void test_full(void)
{
    val_report r;
    val_output outs[2];
    val_op ops[5];
    val_epoch eps[3];
    val_buffer bufs[4];
    uint64_t live[5];
    full_report(&r, outs, ops, eps, bufs, live);
    char *html = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_report_html(&r, &html, &err), NPUC_OK);
    if (!html) return;
    check_common(html);
    CHECK_EQ_INT(count(html, "class=\"op-bar\""), 5);
    CHECK_EQ_INT(count(html, "class=\"buffer\""), 4);
    CHECK_EQ_INT(count(html, "class=\"output-row\""), 2);
    CHECK_EQ_INT(count(html, "class=\"op-row\""), 5);
    CHECK_EQ_INT(count(html, "class=\"epoch-row\""), 3);
    CHECK_EQ_INT(count(html, "class=\"col hw\""), 4);
    CHECK_EQ_INT(count(html, "class=\"col sw\""), 1);
    CHECK_EQ_INT(count(html, "class=\"live-line\""), 2);   /* the legend's and the line */
    CHECK_STR_CONTAINS(html, "<path class=\"live-line\"");
    CHECK_STR_CONTAINS(html, "class=\"peak-line\"");
    CHECK_STR_CONTAINS(html, "data-op-bars=\"5\" data-buffers=\"4\" data-charts=\"2\"");
    /* verdicts: output 0 bit-exact, output 1 not (within the tolerance) */
    CHECK_STR_CONTAINS(html, "<td class=\"pass\">bit-exact</td>");
    CHECK_STR_CONTAINS(html, "<td class=\"warn\">NOT bit-exact</td>");
    CHECK_STR_CONTAINS(html, ">PASS<");
    CHECK_STR_CONTAINS(html, "<span class=\"badge fail\">NOT bit-exact</span>");
    CHECK_STR_CONTAINS(html, "2/64");
    CHECK_STR_CONTAINS(html, "0/30");
    CHECK_STR_CONTAINS(html, "3/3");                 /* top-1 */
    CHECK_STR_CONTAINS(html, "<td class=\"num\">inf</td>");   /* l2_rel */
    CHECK_STR_CONTAINS(html, "0.99991");             /* float twin cosine */
    CHECK_STR_CONTAINS(html, "within 1");
    /* totals, clock, pools */
    CHECK_STR_CONTAINS(html, "120000");
    CHECK_STR_CONTAINS(html, "24000");
    CHECK_STR_CONTAINS(html, "22800");
    CHECK_STR_CONTAINS(html, "500 MHz");
    CHECK_STR_CONTAINS(html, "0.048 ms");            /* NPU time */
    CHECK_STR_CONTAINS(html, "0.0125 ms");            /* host CPU time, 12.5 us */
    CHECK_STR_CONTAINS(html, "Sram");
    CHECK_STR_CONTAINS(html, "Dram");
    CHECK_STR_CONTAINS(html, "<td class=\"cpu\">CPU</td>");
    CHECK_STR_CONTAINS(html, "<td class=\"npu\">NPU</td>");
    CHECK_STR_CONTAINS(html, "50.0 %");
    /* CPU op: 12.5 us at 500 MHz = 6250 cycles, in its tooltip */
    CHECK_STR_CONTAINS(html, "= 6250 NPU cycles");
    CHECK_STR_CONTAINS(html, "cycles: 10000 (estimate 9500)");
    /* escaping: every string from the report */
    CHECK(strstr(html, EVIL) == NULL);
    CHECK(strstr(html, "<script>&") == NULL);
    CHECK(strstr(html, "&\"") == NULL);
    CHECK_STR_CONTAINS(html, "model " EVIL_ESC ".tflite");
    CHECK_STR_CONTAINS(html, "note " EVIL_ESC);
    CHECK_STR_CONTAINS(html, "scores " EVIL_ESC);
    CHECK_STR_CONTAINS(html, "softmax " EVIL_ESC);
    CHECK_STR_CONTAINS(html, "int16 softmax " EVIL_ESC " is not supported");
    CHECK_STR_CONTAINS(html, "k_softmax " EVIL_ESC);
    CHECK_STR_CONTAINS(html, "buf " EVIL_ESC);
    CHECK(count(html, EVIL_ESC) >= 10);

    write_page(getenv("NPUC_HTML_OUT"), html);
    free(html);

    /* the same report failing, bit-exact required */
    r.tolerance = -1;
    r.pass = false;
    outs[1].pass = false;
    CHECK_EQ_INT(val_report_html(&r, &html, &err), NPUC_OK);
    if (html) {
        CHECK_STR_CONTAINS(html, ">FAIL<");
        CHECK_STR_CONTAINS(html, "<td class=\"fail\">NOT bit-exact</td>");
        CHECK(strstr(html, "within 1") == NULL);
        CHECK(strstr(html, "<th>tolerance</th>") == NULL);
        free(html);
    }
}

/* Nothing at all: no ops, buffers, epochs, outputs, live; NULL arrays. */
static void test_empty(void)
{
    val_report r;
    memset(&r, 0, sizeof r);
    r.tolerance = -1;
    char *html = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_report_html(&r, &html, &err), NPUC_OK);
    if (!html) return;
    check_common(html);
    CHECK_EQ_INT(count(html, "class=\"op-bar\""), 0);
    CHECK_EQ_INT(count(html, "class=\"buffer\""), 0);
    CHECK_EQ_INT(count(html, "class=\"output-row\""), 0);
    CHECK_STR_CONTAINS(html, "no ops");
    CHECK_STR_CONTAINS(html, "no buffers in the memory plan");
    CHECK_STR_CONTAINS(html, "data-op-bars=\"0\" data-buffers=\"0\"");
    CHECK_STR_CONTAINS(html, "unknown");   /* clock */
    write_page(getenv("NPUC_HTML_OUT_EMPTY"), html);
    free(html);

    /* counts without their arrays are taken as 0 */
    r.n_ops = 4;
    r.n_buffers = 3;
    r.n_epochs = 2;
    r.n_outputs = 1;
    CHECK_EQ_INT(val_report_html(&r, &html, &err), NPUC_OK);
    if (!html) return;
    check_common(html);
    CHECK_EQ_INT(count(html, "class=\"op-bar\""), 0);
    CHECK_STR_CONTAINS(html, "data-op-bars=\"0\" data-buffers=\"0\"");
    free(html);

    CHECK_EQ_INT(val_report_html(NULL, &html, &err), NPUC_E_USAGE);
    CHECK_EQ_INT(val_report_html(&r, NULL, &err), NPUC_E_USAGE);
}

/* Ops whose cycles are all zero, buffers of size 0, odd ranges, buffers in
 * other pools, no live array, no clock, non-finite metrics, bad UTF-8. */
static void test_edges(void)
{
    val_report r;
    val_op ops[3];
    val_buffer bufs[4];
    val_output out;
    memset(&r, 0, sizeof r);
    memset(ops, 0, sizeof ops);
    memset(bufs, 0, sizeof bufs);
    memset(&out, 0, sizeof out);
    r.tolerance = -1;
    for (int i = 0; i < 3; i++) {
        ops[i].index = i;
        ops[i].kind = i == 1 ? NPURT_EPOCH_HYBRID : NPURT_EPOCH_HW;
        SET(ops[i].type, "RESHAPE");
        ops[i].cpu_ns = i == 1 ? 1000 : 0;   /* no clock: cannot convert */
        ops[i].mac_util = NAN;
    }
    /* invalid UTF-8 and a control character in a name; a full field
     * without its NUL */
    SET(ops[0].name, "bad \xC3\x28 \xED\xA0\x80 ctl\x01 ok \xC3\xA9");
    memset(ops[2].name, 'x', sizeof ops[2].name);
    r.ops = ops;
    r.n_ops = 3;
    bufs[0] = (val_buffer){.tensor = 0, .pool = VAL_MEM_ACTIVATIONS, .size = 0, .first_op = 2, .last_op = 0};
    bufs[1] = (val_buffer){.tensor = 1, .pool = VAL_MEM_FAST, .offset = 64, .size = 64, .first_op = -5,
                           .last_op = 99};
    bufs[2] = (val_buffer){.tensor = 2, .pool = 42, .offset = 0, .size = 10, .first_op = 1, .last_op = 1};
    bufs[3] = (val_buffer){.tensor = 3, .pool = VAL_MEM_ACTIVATIONS, .offset = UINT64_MAX / 2, .size = 1,
                           .first_op = 0, .last_op = 0};
    memset(bufs[2].name, 'y', sizeof bufs[2].name);
    r.buffers = bufs;
    r.n_buffers = 4;
    out.q = (val_metrics){.n = 1, .n_diff = 1, .max_abs = NAN, .mae = INFINITY, .rmse = -INFINITY, .cosine = NAN,
                          .l2_rel = INFINITY, .first_diff = 0};
    out.dtype = (graph_dtype)77;
    r.outputs = &out;
    r.n_outputs = 1;
    r.npu_s = NAN;
    r.inferences_per_s = INFINITY;
    r.core_clock_hz = NAN;
    char *html = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_report_html(&r, &html, &err), NPUC_OK);
    if (!html) return;
    check_common(html);
    CHECK_EQ_INT(count(html, "class=\"op-bar\""), 3);
    CHECK_EQ_INT(count(html, "class=\"buffer\""), 4);
    CHECK_EQ_INT(count(html, "<g class=\"panel\""), 2);   /* activations and fast */
    CHECK_STR_CONTAINS(html, "every op has zero cycles");
    CHECK_STR_CONTAINS(html, "class=\"col sw hybrid\"");
    CHECK_STR_CONTAINS(html, "bad &#xFFFD;( &#xFFFD;&#xFFFD;&#xFFFD; ctl&#xFFFD; ok \xC3\xA9");
    CHECK(strstr(html, "\xC3\x28") == NULL);
    CHECK(strstr(html, "\x01") == NULL);
    char xs[65];
    memset(xs, 'x', 64);
    xs[64] = '\0';
    CHECK_STR_CONTAINS(html, xs);
    CHECK(strstr(html, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") == NULL);
    CHECK_STR_CONTAINS(html, "NOT bit-exact");
    CHECK_STR_CONTAINS(html, "<td class=\"num\">nan</td>");
    CHECK_STR_CONTAINS(html, "<td class=\"num\">-inf</td>");
    /* no zero-width or negative boxes for the clamped ranges */
    CHECK(strstr(html, "width=\"-") == NULL);
    CHECK(strstr(html, "height=\"-") == NULL);
    free(html);
}

/* Many ops: the chart widens (and scrolls) rather than squeezing bars. */
static void test_many(void)
{
    enum { N = 600 };
    val_report r;
    memset(&r, 0, sizeof r);
    val_op *ops = calloc(N, sizeof *ops);
    uint64_t *live = calloc(N, sizeof *live);
    val_buffer *bufs = calloc(N, sizeof *bufs);
    CHECK(ops && live && bufs);
    if (!ops || !live || !bufs) {
        free(ops);
        free(live);
        free(bufs);
        return;
    }
    for (int i = 0; i < N; i++) {
        ops[i].index = i;
        ops[i].kind = i % 7 ? NPURT_EPOCH_HW : NPURT_EPOCH_SW;
        SET(ops[i].type, "CONV_2D");
        snprintf(ops[i].name, sizeof ops[i].name, "op_%d", i);
        ops[i].npu_cycles = (uint64_t)(i * 37 % 1000) * 1000;
        ops[i].cpu_ns = 5000;
        live[i] = (uint64_t)(i % 50) * 1024;
        bufs[i] = (val_buffer){.tensor = i, .pool = VAL_MEM_ACTIVATIONS, .offset = (uint64_t)(i % 50) * 1024,
                               .size = 1024, .first_op = i, .last_op = i + 3};
        snprintf(bufs[i].name, sizeof bufs[i].name, "tensor_%d", i);
    }
    r.ops = ops;
    r.n_ops = N;
    r.buffers = bufs;
    r.n_buffers = N;
    r.live = live;
    r.core_clock_hz = 1e9;
    r.tolerance = -1;
    char *html = NULL;
    npuc_err err = {0};
    CHECK_EQ_INT(val_report_html(&r, &html, &err), NPUC_OK);
    if (html) {
        check_common(html);
        CHECK_EQ_INT(count(html, "class=\"op-bar\""), N);
        CHECK_EQ_INT(count(html, "class=\"buffer\""), N);
        CHECK_EQ_INT(count(html, "class=\"op-row\""), N);
        free(html);
    }
    free(ops);
    free(live);
    free(bufs);
}

int main(void)
{
    test_full();
    test_empty();
    test_edges();
    test_many();
    TEST_MAIN_END();
}
