/* validate: the HTML report, one self-contained page.
 *
 * Everything the page shows is in the file: inline CSS, inline SVG charts
 * drawn here, no fonts, images, scripts or styles from elsewhere, so it
 * opens offline and loads nothing. Sections (by id): summary, outputs,
 * cycle-chart (a bar per graph op), memory-timeline (the activation plan:
 * a rectangle per buffer over the ops where it lives, and the live bytes),
 * partition (per op and per epoch tables). A small inline script at the end
 * checks that the charts were laid out and writes the result into
 * <p id="render-check"> ("rendered: N op bars, M buffers, K charts" or
 * "render problem: ..."), so a test can prove a browser rendered the page.
 *
 * Every string from the report is HTML-escaped (& < > " ') and checked as
 * UTF-8 (bad bytes and control characters become U+FFFD). Numbers are
 * printf'd; the library never calls setlocale, so they are C-locale. */
#include "validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (n bytes available), 0 if
 * it is not one (overlong, surrogate, beyond U+10FFFF, truncated). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
        len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

/* Appends at most max bytes of s (stopping at a NUL), escaped for HTML
 * text and attribute values. */
static void hb_esc_n(npuc_sbuf *b, const char *s, size_t max)
{
    if (!s) return;
    size_t n = strnlen(s, max);
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0;   /* start of the bytes not yet appended */
    size_t i = 0;
    while (i < n) {
        unsigned c = u[i];
        const char *rep = NULL;
        size_t len = 1;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
                rep = "&#xFFFD;";
            } else if (c >= 0x80) {
                len = utf8_len(u + i, n - i);
                if (len == 0) {
                    rep = "&#xFFFD;";
                    len = 1;
                }
            }
        }
        if (rep) {
            npuc_sb_putn(b, s + run, i - run);
            npuc_sb_puts(b, rep);
            i += len;
            run = i;
        } else {
            i += len;
        }
    }
    npuc_sb_putn(b, s + run, n - run);
}

/* A fixed-size char array field of the report. */
#define HB_ESC(b, field) hb_esc_n((b), (field), sizeof(field))

/* At most max_chars characters of the field, cut at a character boundary,
 * "…" when cut; escaped. */
static void hb_esc_trunc(npuc_sbuf *b, const char *s, size_t size, size_t max_chars)
{
    size_t n = strnlen(s, size), i = 0, chars = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (i < n && chars < max_chars) {
        size_t len = u[i] >= 0x80 ? utf8_len(u + i, n - i) : 1;
        i += len ? len : 1;
        chars++;
    }
    hb_esc_n(b, s, i);
    if (i < n) npuc_sb_puts(b, "\xE2\x80\xA6");
}

/* Doubles: finite values with printf, the others spelled out. */
static void hb_g(npuc_sbuf *b, double v, int prec)
{
    if (isnan(v)) npuc_sb_puts(b, "nan");
    else if (isinf(v)) npuc_sb_puts(b, v > 0 ? "inf" : "-inf");
    else npuc_sb_printf(b, "%.*g", prec, v);
}

static void hb_f(npuc_sbuf *b, double v, int prec)
{
    if (isnan(v)) npuc_sb_puts(b, "nan");
    else if (isinf(v)) npuc_sb_puts(b, v > 0 ? "inf" : "-inf");
    else npuc_sb_printf(b, "%.*f", prec, v);
}

static void hb_u64(npuc_sbuf *b, uint64_t v)
{
    npuc_sb_printf(b, "%llu", (unsigned long long)v);
}

/* Bytes for people: "812 B", "12.5 KiB", "1.25 MiB". */
static void hb_bytes_h(npuc_sbuf *b, double v)
{
    if (!(v >= 0) || isinf(v)) hb_g(b, v, 4);
    else if (v < 1024) npuc_sb_printf(b, "%.0f B", v);
    else if (v < 1024.0 * 1024) npuc_sb_printf(b, "%.1f KiB", v / 1024);
    else if (v < 1024.0 * 1024 * 1024) npuc_sb_printf(b, "%.2f MiB", v / (1024.0 * 1024));
    else npuc_sb_printf(b, "%.2f GiB", v / (1024.0 * 1024 * 1024));
}

/* Axis labels: "0", "750", "1.5k", "2M", "3G"; bytes in binary units. */
static void hb_axis_si(npuc_sbuf *b, double v)
{
    if (v >= 1e9) npuc_sb_printf(b, "%.3gG", v / 1e9);
    else if (v >= 1e6) npuc_sb_printf(b, "%.3gM", v / 1e6);
    else if (v >= 1e3) npuc_sb_printf(b, "%.3gk", v / 1e3);
    else npuc_sb_printf(b, "%.3g", v);
}

static void hb_axis_bytes(npuc_sbuf *b, double v)
{
    if (v >= 1024.0 * 1024 * 1024) npuc_sb_printf(b, "%.3gG", v / (1024.0 * 1024 * 1024));
    else if (v >= 1024.0 * 1024) npuc_sb_printf(b, "%.3gM", v / (1024.0 * 1024));
    else if (v >= 1024) npuc_sb_printf(b, "%.3gK", v / 1024);
    else npuc_sb_printf(b, "%.0f", v);
}

/* Horizontal grid lines and y-axis labels at 0, step, .. nt*step of a
 * chart whose plot area starts at x = left, is `width` wide, and maps 0..top
 * onto base..base-height. */
static void hb_y_grid(npuc_sbuf *b, int nt, double step, double top, double base, double left, double width,
                      double height, void (*label)(npuc_sbuf *, double))
{
    for (int k = 0; k <= nt; k++) {
        double v = k * step, y = base - v / top * height;
        npuc_sb_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", left, y,
                       left + width, y);
        npuc_sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dy=\".32em\">", left - 6, y);
        label(b, v);
        npuc_sb_puts(b, "</text>");
    }
}

/* ------------------------------------------------------------- helpers */

static const char *kind_name(uint8_t kind)
{
    switch (kind) {
    case NPURT_EPOCH_HW: return "HW";
    case NPURT_EPOCH_SW: return "SW";
    case NPURT_EPOCH_HYBRID: return "hybrid";
    }
    return "?";
}

static bool clock_ok(const val_report *r)
{
    return isfinite(r->core_clock_hz) && r->core_clock_hz > 0;
}

/* The bar height of an op: measured NPU cycles (HW) or host CPU time as NPU
 * cycles at the core clock (SW, hybrid). */
static double op_cycles(const val_report *r, const val_op *o)
{
    if (o->kind == NPURT_EPOCH_HW) return (double)o->npu_cycles;
    if (!clock_ok(r) || !isfinite(o->cpu_ns) || o->cpu_ns <= 0) return 0;
    return o->cpu_ns * 1e-9 * r->core_clock_hz;
}

/* 1, 2, 5 x 10^k step giving about n intervals over [0, range]. */
static double nice_step(double range, int n)
{
    double raw = range / n;
    if (!(raw > 0) || !isfinite(raw)) return 1;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Power-of-two step (bytes) giving about n intervals over [0, range]. */
static double pow2_step(double range, int n)
{
    double raw = range / n;
    if (!(raw > 1) || !isfinite(raw)) return 1;
    return pow(2, ceil(log2(raw)));
}

/* Integer step for op-index ticks: at most ~max_labels labels. */
static int32_t index_step(int32_t n, int32_t max_labels)
{
    static const int32_t m[] = {1, 2, 5};
    for (int32_t p = 1; p <= 100000000; p *= 10) {
        for (int i = 0; i < 3; i++) {
            if (n / (m[i] * p) <= max_labels) return m[i] * p;
        }
    }
    return n > 0 ? n : 1;
}

/* The svg element of a chart: natural size W x H, scaled to the section
 * width within limits; wide charts keep their size and scroll. */
static void svg_open(npuc_sbuf *b, const char *id, const char *label, double w, double h)
{
    double min_w = w > 1100 ? w : 600;
    npuc_sb_printf(b,
              "<div class=\"chart-wrap\"><svg class=\"chart\" id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
              "height=\"%.0f\" style=\"min-width:%.0fpx;max-width:%.0fpx\" role=\"img\" aria-label=\"%s\">\n",
              id, w, h, w, h, min_w, w * 1.3 > min_w ? w * 1.3 : min_w, label);
}

static void svg_close(npuc_sbuf *b)
{
    npuc_sb_puts(b, "</svg></div>\n");
}

/* ------------------------------------------------------------ the style */

static const char css[] =
    ":root{--fg:#1b2430;--muted:#5b6675;--bg:#f4f6f9;--card:#fff;--line:#dfe3e9;--head:#f0f3f7;"
    "--hw:#2f6bd8;--sw:#e0871b;--hyb:#b9770e;--pass:#12733a;--pass-bg:#e2f3e8;--fail:#b71c1c;"
    "--fail-bg:#fde8e8;--warn:#8a5a00;--warn-bg:#fff3d6;--live:#c62828}\n"
    "*{box-sizing:border-box}\n"
    "html{-webkit-text-size-adjust:100%}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);"
    "font:14px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,\"Noto Sans\","
    "\"Liberation Sans\",sans-serif}\n"
    "header{background:#18212c;color:#fff;padding:18px 28px}\n"
    "header h1{margin:0;font-size:20px;font-weight:600;word-break:break-all}\n"
    "header .sub{color:#aeb9c6;font-size:13px;margin-top:2px}\n"
    "header .verdict{margin-top:10px;display:flex;gap:8px;flex-wrap:wrap}\n"
    "main{max-width:1320px;margin:0 auto;padding:20px 20px 8px}\n"
    "section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 20px;"
    "margin:0 0 18px;box-shadow:0 1px 2px rgba(16,24,40,.04)}\n"
    "h2{font-size:16px;margin:0 0 4px;font-weight:600}\n"
    "h3{font-size:12px;margin:18px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em;"
    "font-weight:600}\n"
    "p.lead{margin:0 0 12px;color:var(--muted);font-size:13px}\n"
    ".badge{display:inline-block;padding:2px 12px;border-radius:999px;font-weight:700;font-size:13px;"
    "letter-spacing:.02em}\n"
    ".pass{color:var(--pass);background:var(--pass-bg)}\n"
    ".fail{color:var(--fail);background:var(--fail-bg)}\n"
    ".warn{color:var(--warn);background:var(--warn-bg)}\n"
    ".kv{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:8px;margin:0}\n"
    ".kv div{border:1px solid var(--line);border-radius:6px;padding:7px 11px;min-width:0}\n"
    ".kv dt{color:var(--muted);font-size:12px}\n"
    ".kv dd{margin:0;font-size:15px;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}\n"
    ".kv dd small{font-weight:400;color:var(--muted);font-size:12px}\n"
    ".table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{padding:5px 9px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap;"
    "vertical-align:top}\n"
    "thead th{background:var(--head);font-weight:600;font-size:12px;color:#384352;white-space:normal;"
    "vertical-align:bottom}\n"
    "tbody tr:last-child td{border-bottom:0}\n"
    "tbody tr:nth-child(even){background:#fafbfc}\n"
    "tbody tr:hover{background:#eef4ff}\n"
    "th.num,td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.name{max-width:320px;overflow:hidden;text-overflow:ellipsis}\n"
    "td.why{white-space:normal;min-width:220px;max-width:420px;color:var(--muted)}\n"
    "td.npu{color:var(--hw);font-weight:600}\n"
    "td.cpu{color:var(--sw);font-weight:600}\n"
    "td.pass,td.fail,td.warn{font-weight:600}\n"
    "td.dim{color:#9aa4b1}\n"
    ".note{background:var(--warn-bg);color:var(--warn);border-radius:6px;padding:8px 12px;margin:12px 0 0;"
    "font-size:13px}\n"
    ".chart-wrap{overflow-x:auto;margin-top:6px}\n"
    "svg.chart{display:block;width:100%;height:auto}\n"
    "svg.chart text{font-family:inherit;font-size:11px;fill:var(--muted)}\n"
    "svg.chart text.title{font-size:12px;font-weight:600;fill:var(--fg)}\n"
    "svg.chart text.empty{font-size:14px;fill:#8a94a2}\n"
    "svg.chart text.buf-label{font-size:10px;fill:#1b2430;pointer-events:none}\n"
    ".grid{stroke:#e8ebf0;stroke-width:1}\n"
    ".axis{stroke:#8a94a2;stroke-width:1}\n"
    ".col .hit{fill:transparent}\n"
    ".col:hover .hit{fill:rgba(47,107,216,.07)}\n"
    ".hw .op-bar,.swatch.hw{fill:var(--hw)}\n"
    ".sw .op-bar,.swatch.sw{fill:var(--sw)}\n"
    ".sw.hybrid .op-bar{fill:var(--hyb)}\n"
    ".col:hover .op-bar{opacity:.8}\n"
    ".est-mark{stroke:#1b2430;stroke-width:2}\n"
    "rect.buffer{stroke:rgba(20,30,45,.45);stroke-width:.6;fill-opacity:.9}\n"
    "rect.buffer:hover{stroke:#000;stroke-width:1.6}\n"
    ".live-area{fill:rgba(198,40,40,.07);stroke:none}\n"
    ".live-line{fill:none;stroke:var(--live);stroke-width:2}\n"
    ".peak-line{stroke:var(--live);stroke-width:1;stroke-dasharray:6 4}\n"
    ".used-line{stroke:#5b6675;stroke-width:1;stroke-dasharray:2 3}\n"
    "footer{max-width:1320px;margin:0 auto;padding:0 20px 24px;color:var(--muted);font-size:12px}\n"
    "#render-check{margin:0;padding:4px 10px;border-radius:6px;display:inline-block}\n"
    "@media (max-width:640px){header{padding:14px 16px}main{padding:12px 8px}section{padding:12px}}\n"
    "@media print{body{background:#fff}section{break-inside:avoid;box-shadow:none}"
    ".chart-wrap,.table-wrap{overflow:visible}}\n";

/* ------------------------------------------------------------- summary */

static void kv_open(npuc_sbuf *b, const char *key)
{
    npuc_sb_printf(b, "<div><dt>%s</dt><dd>", key);
}

static void kv_close(npuc_sbuf *b)
{
    npuc_sb_puts(b, "</dd></div>\n");
}

static void section_summary(npuc_sbuf *b, const val_report *r)
{
    npuc_sb_puts(b, "<section id=\"summary\">\n<h2>Summary</h2>\n");
    npuc_sb_puts(b, "<p class=\"lead\">The deployed model (runtime, HW epochs on the virtual NPU) against the reference "
               "interpreter on the same inputs. Figures are per inference.</p>\n");
    npuc_sb_puts(b, "<dl class=\"kv\">\n");
    kv_open(b, "Result");
    npuc_sb_printf(b, "<span class=\"badge %s\">%s</span> <span class=\"badge %s\">%s</span>", r->pass ? "pass" : "fail",
              r->pass ? "PASS" : "FAIL", r->bit_exact ? "pass" : "fail",
              r->bit_exact ? "bit-exact" : "NOT bit-exact");
    kv_close(b);
    kv_open(b, "Model");
    HB_ESC(b, r->model);
    npuc_sb_printf(b, " <small>(%s)</small>", r->compiled_here ? "compiled here" : "prebuilt");
    kv_close(b);
    kv_open(b, "Target");
    HB_ESC(b, r->target);
    if (r->macs_per_cycle) npuc_sb_printf(b, " <small>%u MACs/cycle</small>", r->macs_per_cycle);
    kv_close(b);
    kv_open(b, "System config");
    HB_ESC(b, r->system);
    kv_close(b);
    kv_open(b, "Core clock");
    if (clock_ok(r)) {
        hb_f(b, r->core_clock_hz / 1e6, r->core_clock_hz / 1e6 == floor(r->core_clock_hz / 1e6) ? 0 : 3);
        npuc_sb_puts(b, " MHz");
    } else {
        npuc_sb_puts(b, "unknown");
    }
    kv_close(b);
    kv_open(b, "Input sets");
    npuc_sb_printf(b, "%d", r->n_sets);
    kv_close(b);
    kv_open(b, "Acceptance");
    if (r->tolerance >= 0) {
        npuc_sb_puts(b, "max |diff| &le; ");
        hb_g(b, r->tolerance, 6);
        npuc_sb_puts(b, " <small>stored units</small>");
    } else {
        npuc_sb_puts(b, "bit-exact");
    }
    kv_close(b);
    npuc_sb_puts(b, "</dl>\n<h3>Totals per inference</h3>\n<dl class=\"kv\">\n");
    kv_open(b, "MACs");
    hb_u64(b, r->macs);
    kv_close(b);
    kv_open(b, "NPU cycles (measured)");
    hb_u64(b, r->npu_cycles);
    kv_close(b);
    kv_open(b, "NPU cycles (compiler estimate)");
    hb_u64(b, r->est_cycles);
    if (r->est_cycles > 0 && r->npu_cycles > 0) {
        npuc_sb_puts(b, " <small>measured/estimate ");
        hb_f(b, (double)r->npu_cycles / (double)r->est_cycles, 3);
        npuc_sb_puts(b, "</small>");
    }
    kv_close(b);
    kv_open(b, "NPU time");
    hb_g(b, r->npu_s * 1e3, 4);
    npuc_sb_puts(b, " ms");
    if (clock_ok(r)) {
        npuc_sb_puts(b, " <small>at ");
        hb_g(b, r->core_clock_hz / 1e6, 6);
        npuc_sb_puts(b, " MHz</small>");
    }
    kv_close(b);
    kv_open(b, "Host CPU time (SW epochs)");
    hb_g(b, r->cpu_ns * 1e-6, 4);
    npuc_sb_puts(b, " ms");
    kv_close(b);
    kv_open(b, "Inferences/s");
    hb_f(b, r->inferences_per_s, r->inferences_per_s >= 100 ? 1 : 3);
    kv_close(b);
    kv_open(b, "Graph ops on NPU / CPU");
    npuc_sb_printf(b, "%d / %d", r->n_npu_ops_graph, r->n_cpu_ops_graph);
    kv_close(b);
    npuc_sb_puts(b, "</dl>\n");

    npuc_sb_puts(b, "<h3>Memory pools</h3>\n<div class=\"table-wrap\"><table class=\"pools\">\n"
               "<thead><tr><th>pool</th><th>name</th><th class=\"num\">size</th><th class=\"num\">used</th>"
               "<th class=\"num\">peak live</th></tr></thead>\n<tbody>\n");
    static const char *const role[VAL_N_MEM] = {"params", "activations", "fast"};
    for (int p = 0; p < VAL_N_MEM; p++) {
        const val_pool *pl = &r->pools[p];
        npuc_sb_printf(b, "<tr class=\"pool-row\"><td>%s</td><td>", role[p]);
        HB_ESC(b, pl->name);
        npuc_sb_puts(b, "</td><td class=\"num\">");
        if (pl->size) {
            hb_u64(b, pl->size);
            npuc_sb_puts(b, " B <small>(");
            hb_bytes_h(b, (double)pl->size);
            npuc_sb_puts(b, ")</small>");
        } else {
            npuc_sb_puts(b, "unbounded");
        }
        npuc_sb_puts(b, "</td><td class=\"num\">");
        hb_u64(b, pl->used);
        npuc_sb_puts(b, " B <small>(");
        hb_bytes_h(b, (double)pl->used);
        npuc_sb_puts(b, ")</small></td><td class=\"num\">");
        hb_u64(b, pl->peak);
        npuc_sb_puts(b, " B <small>(");
        hb_bytes_h(b, (double)pl->peak);
        npuc_sb_puts(b, ")</small></td></tr>\n");
    }
    npuc_sb_puts(b, "</tbody></table></div>\n");
    if (strnlen(r->note, sizeof r->note) > 0) {
        npuc_sb_puts(b, "<p class=\"note\">");
        HB_ESC(b, r->note);
        npuc_sb_puts(b, "</p>\n");
    }
    npuc_sb_puts(b, "</section>\n");
}

/* ------------------------------------------------------------- outputs */

static void metric_cell(npuc_sbuf *b, double v, int prec)
{
    npuc_sb_puts(b, "<td class=\"num\">");
    hb_g(b, v, prec);
    npuc_sb_puts(b, "</td>");
}

static void float_cell(npuc_sbuf *b, const val_metrics *m)
{
    npuc_sb_puts(b, "<td class=\"num\">max ");
    hb_g(b, m->max_abs, 4);
    npuc_sb_puts(b, "<br>RMSE ");
    hb_g(b, m->rmse, 4);
    npuc_sb_puts(b, "<br>cos ");
    hb_f(b, m->cosine, 6);
    npuc_sb_puts(b, "</td>");
}

static void section_outputs(npuc_sbuf *b, const val_report *r, const val_output *outs, int32_t n)
{
    bool any_deq = false, any_cls = false, any_float = false, tol = r->tolerance >= 0;
    for (int32_t i = 0; i < n; i++) {
        any_deq |= outs[i].scale > 0;
        any_cls |= outs[i].classifier;
        any_float |= outs[i].has_float;
    }
    npuc_sb_puts(b, "<section id=\"outputs\">\n<h2>Outputs</h2>\n");
    npuc_sb_puts(b, "<p class=\"lead\">Deployed against reference, element by element over all input sets, in stored "
               "(quantized) units unless noted. L2 rel = |deployed &minus; reference| / |reference|.");
    if (any_float)
        npuc_sb_puts(b, " Float twin columns: max |diff|, RMSE and cosine of the dequantized output against the "
                   "float32 network.");
    npuc_sb_puts(b, "</p>\n");
    if (n == 0) {
        npuc_sb_puts(b, "<p class=\"note\">The report has no outputs.</p>\n</section>\n");
        return;
    }
    npuc_sb_puts(b, "<div class=\"table-wrap\"><table>\n<thead><tr><th class=\"num\">#</th><th>name</th><th>dtype</th>"
               "<th>verdict</th><th class=\"num\">differing</th><th class=\"num\">max |diff|</th>"
               "<th class=\"num\">MAE</th><th class=\"num\">RMSE</th><th class=\"num\">cosine</th>"
               "<th class=\"num\">L2 rel</th>");
    if (any_deq) npuc_sb_puts(b, "<th class=\"num\">deq. max |diff|</th><th class=\"num\">deq. RMSE</th>");
    if (any_cls) npuc_sb_puts(b, "<th class=\"num\">top-1 agree</th>");
    if (any_float) npuc_sb_puts(b, "<th class=\"num\">deployed vs float</th><th class=\"num\">reference vs float</th>");
    if (tol) npuc_sb_puts(b, "<th>tolerance</th>");
    npuc_sb_puts(b, "</tr></thead>\n<tbody>\n");
    for (int32_t i = 0; i < n; i++) {
        const val_output *o = &outs[i];
        npuc_sb_printf(b, "<tr class=\"output-row\"><td class=\"num\">%d</td><td class=\"name\" title=\"", o->index);
        HB_ESC(b, o->name);
        npuc_sb_puts(b, "\">");
        HB_ESC(b, o->name);
        npuc_sb_printf(b, "</td><td>%s</td>", graph_dtype_name(o->dtype));
        const char *cls = o->q.bit_exact ? "pass" : o->pass ? "warn" : "fail";
        npuc_sb_printf(b, "<td class=\"%s\">%s</td>", cls, o->q.bit_exact ? "bit-exact" : "NOT bit-exact");
        npuc_sb_puts(b, "<td class=\"num\">");
        hb_u64(b, o->q.n_diff);
        npuc_sb_puts(b, "/");
        hb_u64(b, o->q.n);
        if (o->q.first_diff >= 0) npuc_sb_printf(b, " <small>first at %lld</small>", (long long)o->q.first_diff);
        npuc_sb_puts(b, "</td>");
        metric_cell(b, o->q.max_abs, 6);
        metric_cell(b, o->q.mae, 4);
        metric_cell(b, o->q.rmse, 4);
        npuc_sb_puts(b, "<td class=\"num\">");
        hb_f(b, o->q.cosine, 6);
        npuc_sb_puts(b, "</td>");
        metric_cell(b, o->q.l2_rel, 4);
        if (any_deq) {
            if (o->scale > 0) {
                metric_cell(b, o->deq.max_abs, 4);
                metric_cell(b, o->deq.rmse, 4);
            } else {
                npuc_sb_puts(b, "<td class=\"num dim\">&ndash;</td><td class=\"num dim\">&ndash;</td>");
            }
        }
        if (any_cls) {
            if (o->classifier) npuc_sb_printf(b, "<td class=\"num\">%d/%d</td>", o->top1_agree, o->top1_n);
            else npuc_sb_puts(b, "<td class=\"num dim\">&ndash;</td>");
        }
        if (any_float) {
            if (o->has_float) {
                float_cell(b, &o->float_deployed);
                float_cell(b, &o->float_reference);
            } else {
                npuc_sb_puts(b, "<td class=\"num dim\">&ndash;</td><td class=\"num dim\">&ndash;</td>");
            }
        }
        if (tol) {
            npuc_sb_printf(b, "<td class=\"%s\">%s ", o->pass ? "pass" : "fail", o->pass ? "within" : "exceeds");
            hb_g(b, r->tolerance, 6);
            npuc_sb_puts(b, "</td>");
        }
        npuc_sb_puts(b, "</tr>\n");
    }
    npuc_sb_puts(b, "</tbody></table></div>\n</section>\n");
}

/* --------------------------------------------------------- cycle chart */

static void op_title(npuc_sbuf *b, const val_report *r, const val_op *o, double cycles)
{
    npuc_sb_printf(b, "<title>op %d ", o->index);
    HB_ESC(b, o->type);
    npuc_sb_puts(b, " ");
    HB_ESC(b, o->name);
    npuc_sb_printf(b, "\n%s, epoch %d (%s)\n", o->kind == NPURT_EPOCH_HW ? "NPU" : "CPU", o->epoch, kind_name(o->kind));
    if (o->kind == NPURT_EPOCH_HW) {
        npuc_sb_printf(b, "cycles: %llu (estimate %llu)\n", (unsigned long long)o->npu_cycles,
                  (unsigned long long)o->est_cycles);
    } else {
        npuc_sb_puts(b, "host CPU time: ");
        hb_f(b, o->cpu_ns * 1e-3, 3);
        npuc_sb_puts(b, " us");
        if (clock_ok(r)) {
            npuc_sb_puts(b, " = ");
            hb_f(b, cycles, 0);
            npuc_sb_puts(b, " NPU cycles");
        }
        npuc_sb_puts(b, "\n");
    }
    npuc_sb_printf(b, "MACs: %llu\nutilisation: ", (unsigned long long)o->macs);
    hb_f(b, o->mac_util * 100, 1);
    npuc_sb_puts(b, " %</title>");
}

static void section_cycle_chart(npuc_sbuf *b, const val_report *r, const val_op *ops, int32_t n_ops)
{
    npuc_sb_puts(b, "<section id=\"cycle-chart\">\n<h2>Cycles per op</h2>\n");
    npuc_sb_puts(b, "<p class=\"lead\">One bar per graph op, in execution order: NPU cycles measured on the virtual NPU "
               "for ops in HW epochs; for CPU ops (SW and hybrid epochs) the host CPU time converted to NPU cycles "
               "at the core clock. The black tick is the compiler's estimate. Hover a bar for details.</p>\n");
    if (!r->op_detail && n_ops > 0)
        npuc_sb_printf(b, "<p class=\"note\">Per-op figures are not available for this model%s; bars may be zero or "
                     "approximate.</p>\n", r->note[0] ? " (see the note in the summary)" : "");
    bool any_hybrid = false, any_cpu = false;
    double ymax = 0;
    for (int32_t i = 0; i < n_ops; i++) {
        double v = op_cycles(r, &ops[i]);
        if (v > ymax) ymax = v;
        if (ops[i].kind == NPURT_EPOCH_HW && (double)ops[i].est_cycles > ymax) ymax = (double)ops[i].est_cycles;
        any_hybrid |= ops[i].kind == NPURT_EPOCH_HYBRID;
        any_cpu |= ops[i].kind != NPURT_EPOCH_HW;
    }
    bool all_zero = !(ymax > 0) || !isfinite(ymax);
    double step = nice_step(all_zero ? 1 : ymax, 5);
    double nt = all_zero ? 5 : ceil(ymax / step);
    if (nt < 1) nt = 1;
    double top = nt * step;

    const double ML = 70, MR = 16, MT = 44, MB = 50, PH = 260;
    int32_t ncols = n_ops > 0 ? n_ops : 1;
    double pw = (double)ncols * 7 > 900 ? (double)ncols * 7 : 900, bw = pw / ncols;
    double W = ML + pw + MR, H = MT + PH + MB, base = MT + PH;
    svg_open(b, "cycle-svg", "NPU cycles per graph op", W, H);

    /* legend */
    npuc_sb_printf(b, "<g class=\"legend\" transform=\"translate(%.0f 14)\">", ML);
    npuc_sb_puts(b, "<rect class=\"swatch hw\" x=\"0\" y=\"0\" width=\"12\" height=\"12\" rx=\"2\"/>"
               "<text x=\"18\" y=\"10\">NPU (HW epoch)</text>"
               "<rect class=\"swatch sw\" x=\"140\" y=\"0\" width=\"12\" height=\"12\" rx=\"2\"/>"
               "<text x=\"158\" y=\"10\">CPU (SW / hybrid epoch), host time as cycles</text>"
               "<line class=\"est-mark\" x1=\"440\" y1=\"6\" x2=\"456\" y2=\"6\"/>"
               "<text x=\"462\" y=\"10\">compiler estimate</text>");
    if (any_hybrid)
        npuc_sb_puts(b, "<g class=\"sw hybrid\"><rect class=\"swatch\" x=\"580\" y=\"0\" width=\"12\" height=\"12\" "
                   "rx=\"2\" style=\"fill:var(--hyb)\"/></g><text x=\"598\" y=\"10\">hybrid (data movement)</text>");
    npuc_sb_puts(b, "</g>\n");

    /* grid and y axis */
    npuc_sb_puts(b, "<g class=\"y-axis\">");
    hb_y_grid(b, (int)nt, step, top, base, ML, pw, PH, hb_axis_si);
    npuc_sb_puts(b, "</g>\n");

    /* bars */
    for (int32_t i = 0; i < n_ops; i++) {
        const val_op *o = &ops[i];
        double v = op_cycles(r, o);
        double h = all_zero ? 0 : v / top * PH;
        if (v > 0 && h < 1) h = 1;
        double x = ML + i * bw;
        const char *cls = o->kind == NPURT_EPOCH_HW ? "hw" : o->kind == NPURT_EPOCH_HYBRID ? "sw hybrid" : "sw";
        npuc_sb_printf(b, "<g class=\"col %s\"><rect class=\"hit\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\">",
                  cls, x, MT, bw, PH);
        op_title(b, r, o, v);
        double gap = bw >= 4 ? bw * 0.15 : 0;
        npuc_sb_printf(b, "</rect><rect class=\"op-bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">", x + gap,
                  base - h, bw - 2 * gap, h);
        op_title(b, r, o, v);
        npuc_sb_puts(b, "</rect>");
        if (o->kind == NPURT_EPOCH_HW && o->est_cycles > 0 && !all_zero) {
            double ye = base - (double)o->est_cycles / top * PH;
            npuc_sb_printf(b, "<line class=\"est-mark\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>", x + gap * 0.5,
                      ye, x + bw - gap * 0.5, ye);
        }
        npuc_sb_puts(b, "</g>\n");
    }

    /* x axis */
    npuc_sb_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, base, ML + pw, base);
    npuc_sb_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, MT, ML, base);
    int32_t ts = index_step(n_ops, 30);
    npuc_sb_puts(b, "<g class=\"x-axis\">");
    for (int32_t i = 0; i < n_ops; i += ts) {
        npuc_sb_printf(b, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>", ML + (i + 0.5) * bw, base + 15,
                  ops[i].index);
    }
    npuc_sb_puts(b, "</g>\n");
    npuc_sb_printf(b, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">graph op</text>\n", ML + pw / 2,
              H - 10);
    npuc_sb_printf(b,
              "<text class=\"title\" transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">"
              "cycles per inference</text>\n",
              MT + PH / 2);
    if (n_ops == 0)
        npuc_sb_printf(b, "<text class=\"empty\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no ops</text>\n",
                  ML + pw / 2, MT + PH / 2);
    else if (all_zero)
        npuc_sb_printf(b,
                  "<text class=\"empty\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">every op has zero "
                  "cycles</text>\n",
                  ML + pw / 2, MT + PH / 2);
    svg_close(b);
    if (any_cpu && !clock_ok(r))
        npuc_sb_puts(b, "<p class=\"note\">The core clock is unknown: CPU ops are drawn with zero height.</p>\n");
    npuc_sb_puts(b, "</section>\n");
}

/* ----------------------------------------------------- memory timeline */

static int buf_pool(const val_buffer *bf)
{
    return bf->pool >= 0 && bf->pool < VAL_N_MEM ? bf->pool : VAL_MEM_ACTIVATIONS;
}

static void buf_span(const val_buffer *bf, int32_t ncols, int32_t *f, int32_t *l)
{
    int32_t a = bf->first_op, z = bf->last_op;
    if (a < 0) a = 0;
    if (a > ncols - 1) a = ncols - 1;
    if (z < a) z = a;
    if (z > ncols - 1) z = ncols - 1;
    *f = a;
    *l = z;
}

static void section_memory(npuc_sbuf *b, const val_report *r, const val_op *ops, int32_t n_ops, const val_buffer *bufs,
                           int32_t n_bufs, const uint64_t *live)
{
    static const char *const role[VAL_N_MEM] = {"params", "activations", "fast"};
    npuc_sb_puts(b, "<section id=\"memory-timeline\">\n<h2>Memory timeline</h2>\n");
    npuc_sb_puts(b, "<p class=\"lead\">The memory plan over the graph: one rectangle per buffer, from the first to the "
               "last op where it is live (x) at its byte offset in the pool (y). The red line is the activation "
               "bytes live at each op, the dashed red line its peak, the dotted line the bytes the model "
               "reserves.</p>\n");
    int32_t ncols = n_ops > 0 ? n_ops : 1;
    int n_panels = 0, panel_pool[VAL_N_MEM];
    for (int p = 0; p < VAL_N_MEM; p++) {
        bool has = p == VAL_MEM_ACTIVATIONS && live && n_ops > 0;
        for (int32_t i = 0; i < n_bufs && !has; i++) has = buf_pool(&bufs[i]) == p;
        if (has) panel_pool[n_panels++] = p;
    }
    uint64_t live_peak = 0;
    for (int32_t i = 0; live && i < n_ops; i++)
        if (live[i] > live_peak) live_peak = live[i];

    const double ML = 70, MR = 16, MT = 66, MB = 40, PH = 230, GAP = 62;
    double pw = (double)ncols * 7 > 900 ? (double)ncols * 7 : 900, bw = pw / ncols;
    double W = ML + pw + MR;
    double H = n_panels ? MT + n_panels * PH + (n_panels - 1) * GAP + MB : 160;
    svg_open(b, "memory-svg", "memory plan over graph ops", W, H);
    npuc_sb_printf(b, "<g class=\"legend\" transform=\"translate(%.0f 14)\">", ML);
    npuc_sb_puts(b, "<rect x=\"0\" y=\"0\" width=\"6\" height=\"12\" fill=\"hsl(210,60%,72%)\"/>"
               "<rect x=\"6\" y=\"0\" width=\"6\" height=\"12\" fill=\"hsl(30,60%,72%)\"/>"
               "<text x=\"18\" y=\"10\">buffer (hover for tensor, size, offset)</text>"
               "<line class=\"live-line\" x1=\"250\" y1=\"6\" x2=\"270\" y2=\"6\"/>"
               "<text x=\"276\" y=\"10\">activation bytes live</text>"
               "<line class=\"peak-line\" x1=\"410\" y1=\"6\" x2=\"430\" y2=\"6\"/>"
               "<text x=\"436\" y=\"10\">peak</text>"
               "<line class=\"used-line\" x1=\"480\" y1=\"6\" x2=\"500\" y2=\"6\"/>"
               "<text x=\"506\" y=\"10\">reserved</text></g>\n");
    if (!n_panels) {
        npuc_sb_printf(b,
                  "<text class=\"empty\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no buffers in the memory "
                  "plan</text>\n",
                  W / 2, H / 2 + 10);
    }
    int32_t ts = index_step(ncols, 30);
    for (int k = 0; k < n_panels; k++) {
        int p = panel_pool[k];
        const val_pool *pl = &r->pools[p];
        double y0 = MT + k * (PH + GAP), base = y0 + PH;
        bool act = p == VAL_MEM_ACTIVATIONS;
        double ymax = (double)pl->used;
        for (int32_t i = 0; i < n_bufs; i++) {
            if (buf_pool(&bufs[i]) != p) continue;
            double e = (double)bufs[i].offset + (double)bufs[i].size;
            if (e > ymax) ymax = e;
        }
        uint64_t peak = act ? (live ? live_peak : pl->peak) : pl->peak;
        if ((double)peak > ymax) ymax = (double)peak;
        double step = pow2_step(ymax > 0 ? ymax : 1, 5);
        double nt = ymax > 0 ? ceil(ymax / step) : 1;
        if (nt < 1) nt = 1;
        double top = nt * step;

        npuc_sb_printf(b, "<g class=\"panel\" data-pool=\"%s\">\n", role[p]);
        npuc_sb_printf(b, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\">%s pool", ML, y0 - 10, role[p]);
        if (pl->name[0]) {
            npuc_sb_puts(b, " \xE2\x80\x9C");
            HB_ESC(b, pl->name);
            npuc_sb_puts(b, "\xE2\x80\x9D");
        }
        npuc_sb_puts(b, ": reserved ");
        hb_bytes_h(b, (double)pl->used);
        npuc_sb_puts(b, ", peak live ");
        hb_bytes_h(b, (double)peak);
        if (pl->size) {
            npuc_sb_puts(b, " of ");
            hb_bytes_h(b, (double)pl->size);
        }
        npuc_sb_puts(b, "</text>\n");
        hb_y_grid(b, (int)nt, step, top, base, ML, pw, PH, hb_axis_bytes);
        npuc_sb_puts(b, "\n");
        /* live bytes: area under the buffers, line over them */
        bool draw_live = act && live && n_ops > 0;
        if (draw_live) {
            npuc_sb_printf(b, "<path class=\"live-area\" d=\"M%.2f %.2f", ML, base);
            for (int32_t i = 0; i < n_ops; i++) {
                double y = base - (double)live[i] / top * PH;
                npuc_sb_printf(b, " V%.2f H%.2f", y, ML + (i + 1) * bw);
            }
            npuc_sb_printf(b, " V%.2f Z\"/>\n", base);
        }
        for (int32_t i = 0; i < n_bufs; i++) {
            const val_buffer *bf = &bufs[i];
            if (buf_pool(bf) != p) continue;
            int32_t f, l;
            buf_span(bf, ncols, &f, &l);
            double x = ML + f * bw, w = (l - f + 1) * bw;
            double h = (double)bf->size / top * PH;
            if (bf->size > 0 && h < 1) h = 1;
            double y = base - (double)bf->offset / top * PH - h;
            unsigned hue = (unsigned)(((uint64_t)i * 137u + 200u) % 360u);
            npuc_sb_printf(b,
                      "<rect class=\"buffer\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                      "fill=\"hsl(%u,62%%,72%%)\"><title>",
                      x, y, w, h, hue);
            HB_ESC(b, bf->name);
            if (bf->tensor >= 0) npuc_sb_printf(b, " (tensor %d)", bf->tensor);
            else npuc_sb_puts(b, " (op-internal)");
            npuc_sb_puts(b, "\nsize: ");
            hb_u64(b, bf->size);
            npuc_sb_puts(b, " B (");
            hb_bytes_h(b, (double)bf->size);
            npuc_sb_puts(b, ")\noffset: ");
            hb_u64(b, bf->offset);
            npuc_sb_printf(b, "\nlive: ops %d..%d</title></rect>\n", bf->first_op, bf->last_op);
            size_t chars = (size_t)(w / 6.2);
            if (chars >= 4 && h >= 13 && bf->name[0]) {
                npuc_sb_printf(b, "<text class=\"buf-label\" x=\"%.2f\" y=\"%.2f\">", x + 3, y + h / 2 + 3.5);
                hb_esc_trunc(b, bf->name, sizeof bf->name, chars - 1);
                npuc_sb_puts(b, "</text>\n");
            }
        }
        if (draw_live) {
            npuc_sb_printf(b, "<path class=\"live-line\" d=\"M%.2f %.2f", ML, base - (double)live[0] / top * PH);
            for (int32_t i = 0; i < n_ops; i++) {
                double y = base - (double)live[i] / top * PH;
                npuc_sb_printf(b, " V%.2f H%.2f", y, ML + (i + 1) * bw);
            }
            npuc_sb_puts(b, "\"><title>activation bytes live per op</title></path>\n");
        }
        if (pl->used > 0) {
            double y = base - (double)pl->used / top * PH;
            npuc_sb_printf(b, "<line class=\"used-line\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\"><title>reserved ",
                      ML, y, ML + pw, y);
            hb_u64(b, pl->used);
            npuc_sb_puts(b, " B</title></line>\n");
        }
        if (peak > 0) {
            double y = base - (double)peak / top * PH;
            npuc_sb_printf(b, "<line class=\"peak-line\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\"/>", ML, y, ML + pw,
                      y);
            npuc_sb_printf(b, "<text x=\"%.1f\" y=\"%.2f\" text-anchor=\"end\" style=\"fill:var(--live)\">peak ",
                      ML + pw - 4, y - 4);
            hb_u64(b, peak);
            npuc_sb_puts(b, " B</text>\n");
        }
        npuc_sb_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ML, base, ML + pw, base);
        npuc_sb_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, y0, ML, base);
        for (int32_t i = 0; i < ncols; i += ts) {
            npuc_sb_printf(b, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>", ML + (i + 0.5) * bw,
                      base + 15, i < n_ops ? ops[i].index : i);
        }
        npuc_sb_printf(b,
                  "\n<text class=\"title\" transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">"
                  "byte offset</text>\n</g>\n",
                  y0 + PH / 2);
    }
    if (n_panels)
        npuc_sb_printf(b, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">graph op</text>\n",
                  ML + pw / 2, H - 8);
    svg_close(b);
    if (!live && n_ops > 0) npuc_sb_puts(b, "<p class=\"note\">No per-op live byte counts in this report.</p>\n");
    npuc_sb_puts(b, "</section>\n");
}

/* ----------------------------------------------------------- partition */

static void section_partition(npuc_sbuf *b, const val_report *r, const val_op *ops, int32_t n_ops, const val_epoch *eps,
                              int32_t n_eps)
{
    npuc_sb_puts(b, "<section id=\"partition\">\n<h2>Partition and per-op profile</h2>\n");
    npuc_sb_printf(b,
              "<p class=\"lead\">%d graph ops on the NPU, %d on the CPU, in %d epochs. Bytes are per inference; "
              "utilisation = MACs / (NPU cycles &times; %u MACs per cycle).</p>\n",
              r->n_npu_ops_graph, r->n_cpu_ops_graph, n_eps, r->macs_per_cycle);
    npuc_sb_puts(b, "<h3>Ops</h3>\n");
    if (n_ops == 0) {
        npuc_sb_puts(b, "<p class=\"note\">The report has no ops.</p>\n");
    } else {
        npuc_sb_puts(b, "<div class=\"table-wrap\"><table>\n<thead><tr>"
                   "<th class=\"num\" rowspan=\"2\">#</th><th rowspan=\"2\">type</th><th rowspan=\"2\">name</th>"
                   "<th rowspan=\"2\">runs on</th><th class=\"num\" rowspan=\"2\">epoch</th>"
                   "<th rowspan=\"2\">kind</th><th rowspan=\"2\">why on the CPU</th>"
                   "<th class=\"num\" rowspan=\"2\">MACs</th><th class=\"num\" rowspan=\"2\">NPU cycles</th>"
                   "<th class=\"num\" rowspan=\"2\">est. cycles</th><th class=\"num\" rowspan=\"2\">CPU &micro;s</th>"
                   "<th colspan=\"2\">params</th><th colspan=\"2\">activations</th><th colspan=\"2\">fast</th>"
                   "<th class=\"num\" rowspan=\"2\">MAC util.</th></tr>\n<tr>"
                   "<th class=\"num\">read</th><th class=\"num\">written</th>"
                   "<th class=\"num\">read</th><th class=\"num\">written</th>"
                   "<th class=\"num\">read</th><th class=\"num\">written</th></tr></thead>\n<tbody>\n");
        for (int32_t i = 0; i < n_ops; i++) {
            const val_op *o = &ops[i];
            bool npu = o->kind == NPURT_EPOCH_HW;
            npuc_sb_printf(b, "<tr class=\"op-row\"><td class=\"num\">%d</td><td>", o->index);
            HB_ESC(b, o->type);
            npuc_sb_puts(b, "</td><td class=\"name\" title=\"");
            HB_ESC(b, o->name);
            npuc_sb_puts(b, "\">");
            HB_ESC(b, o->name);
            npuc_sb_printf(b, "</td><td class=\"%s\">%s</td><td class=\"num\">%d</td><td>%s</td><td class=\"why\">",
                      npu ? "npu" : "cpu", npu ? "NPU" : "CPU", o->epoch, kind_name(o->kind));
            if (!npu) HB_ESC(b, o->why);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_u64(b, o->macs);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            if (npu) hb_u64(b, o->npu_cycles);
            else npuc_sb_puts(b, "&ndash;");
            npuc_sb_puts(b, "</td><td class=\"num\">");
            if (npu) hb_u64(b, o->est_cycles);
            else npuc_sb_puts(b, "&ndash;");
            npuc_sb_puts(b, "</td><td class=\"num\">");
            if (!npu) hb_f(b, o->cpu_ns * 1e-3, 3);
            else npuc_sb_puts(b, "&ndash;");
            npuc_sb_puts(b, "</td>");
            for (int m = 0; m < VAL_N_MEM; m++) {
                npuc_sb_puts(b, "<td class=\"num\">");
                hb_u64(b, o->bytes_read[m]);
                npuc_sb_puts(b, "</td><td class=\"num\">");
                hb_u64(b, o->bytes_written[m]);
                npuc_sb_puts(b, "</td>");
            }
            npuc_sb_puts(b, "<td class=\"num\">");
            if (npu) {
                hb_f(b, o->mac_util * 100, 1);
                npuc_sb_puts(b, " %");
            } else {
                npuc_sb_puts(b, "&ndash;");
            }
            npuc_sb_puts(b, "</td></tr>\n");
        }
        npuc_sb_puts(b, "</tbody></table></div>\n");
    }
    npuc_sb_puts(b, "<h3>Epochs</h3>\n");
    if (n_eps == 0) {
        npuc_sb_puts(b, "<p class=\"note\">The report has no epochs.</p>\n");
    } else {
        npuc_sb_puts(b, "<div class=\"table-wrap\"><table>\n<thead><tr><th class=\"num\">#</th><th>kind</th>"
                   "<th>graph ops</th><th>work</th><th class=\"num\">NPU cycles</th><th class=\"num\">est. cycles</th>"
                   "<th class=\"num\">CPU &micro;s</th><th class=\"num\">MACs</th><th class=\"num\">bytes read</th>"
                   "<th class=\"num\">bytes written</th></tr></thead>\n<tbody>\n");
        for (int32_t i = 0; i < n_eps; i++) {
            const val_epoch *e = &eps[i];
            bool hw = e->kind == NPURT_EPOCH_HW;
            npuc_sb_printf(b, "<tr class=\"epoch-row\"><td class=\"num\">%d</td><td class=\"%s\">%s</td><td>", i,
                      hw ? "npu" : "cpu", kind_name(e->kind));
            if (e->n_ops <= 0) npuc_sb_puts(b, "none");
            else if (e->n_ops == 1) npuc_sb_printf(b, "%d", e->first_op);
            else npuc_sb_printf(b, "%d&ndash;%lld", e->first_op, (long long)e->first_op + e->n_ops - 1);
            npuc_sb_puts(b, "</td><td>");
            HB_ESC(b, e->work);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_u64(b, e->npu_cycles);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_u64(b, e->est_cycles);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_f(b, e->cpu_ns * 1e-3, 3);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_u64(b, e->macs);
            uint64_t rd = 0, wr = 0;
            for (int m = 0; m < VAL_N_MEM; m++) {
                rd += e->bytes_read[m];
                wr += e->bytes_written[m];
            }
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_u64(b, rd);
            npuc_sb_puts(b, "</td><td class=\"num\">");
            hb_u64(b, wr);
            npuc_sb_puts(b, "</td></tr>\n");
        }
        npuc_sb_puts(b, "</tbody></table></div>\n");
    }
    npuc_sb_puts(b, "</section>\n");
}

/* ---------------------------------------------------------- self-check */

/* Runs on load: counts the bars and buffers, checks every chart has a
 * non-empty box and that the counts are the ones written here. */
static const char self_check[] =
    "<script>\n"
    "(function(){\n"
    "  function run(){\n"
    "    var p=document.getElementById('render-check');\n"
    "    if(!p)return;\n"
    "    var bars=document.querySelectorAll('rect.op-bar').length;\n"
    "    var bufs=document.querySelectorAll('rect.buffer').length;\n"
    "    var svgs=document.querySelectorAll('svg.chart');\n"
    "    var bad=[];\n"
    "    for(var i=0;i<svgs.length;i++){\n"
    "      var r=svgs[i].getBoundingClientRect();\n"
    "      if(!(r.width>0&&r.height>0))bad.push((svgs[i].id||('chart '+i))+' has an empty box');\n"
    "    }\n"
    "    var want=[+p.getAttribute('data-op-bars'),+p.getAttribute('data-buffers'),+p.getAttribute('data-charts')];\n"
    "    if(bars!==want[0])bad.push(bars+' op bars, expected '+want[0]);\n"
    "    if(bufs!==want[1])bad.push(bufs+' buffers, expected '+want[1]);\n"
    "    if(svgs.length!==want[2])bad.push(svgs.length+' charts, expected '+want[2]);\n"
    "    p.textContent=bad.length?'render '+'problem: '+bad.join('; ')"
    ":'rendered: '+bars+' op bars, '+bufs+' buffers, '+svgs.length+' charts';\n"
    "    p.className=bad.length?'fail':'pass';\n"
    "  }\n"
    "  if(document.readyState==='complete')run();else window.addEventListener('load',run);\n"
    "})();\n"
    "</script>\n";

/* ---------------------------------------------------------------- page */

int val_report_html(const val_report *r, char **out, npuc_err *err)
{
    if (!r || !out) return npuc_errf(err, NPUC_E_USAGE, "val_report_html: NULL report or output");
    *out = NULL;
    /* Tolerate empty or missing arrays: a count without its array is 0. */
    int32_t n_out = r->outputs && r->n_outputs > 0 ? r->n_outputs : 0;
    int32_t n_ops = r->ops && r->n_ops > 0 ? r->n_ops : 0;
    int32_t n_eps = r->epochs && r->n_epochs > 0 ? r->n_epochs : 0;
    int32_t n_bufs = r->buffers && r->n_buffers > 0 ? r->n_buffers : 0;

    npuc_sbuf b = {0};
    npuc_sb_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"npuc validate\">\n<title>npuc validation: ");
    HB_ESC(&b, r->model);
    npuc_sb_printf(&b, " (%s)</title>\n<style>\n", r->pass ? "PASS" : "FAIL");
    npuc_sb_putn(&b, css, sizeof css - 1);
    npuc_sb_puts(&b, "</style>\n</head>\n<body>\n<header>\n<h1>Validation report: ");
    HB_ESC(&b, r->model);
    if (!r->model[0]) npuc_sb_puts(&b, "(unnamed model)");
    npuc_sb_puts(&b, "</h1>\n<div class=\"sub\">");
    if (r->target[0]) {
        HB_ESC(&b, r->target);
        npuc_sb_puts(&b, " &middot; ");
    }
    if (r->system[0]) {
        HB_ESC(&b, r->system);
        npuc_sb_puts(&b, " &middot; ");
    }
    npuc_sb_printf(&b, "%d input set%s &middot; npuc validate</div>\n", r->n_sets, r->n_sets == 1 ? "" : "s");
    npuc_sb_printf(&b, "<div class=\"verdict\"><span class=\"badge %s\">%s</span><span class=\"badge %s\">%s</span></div>\n",
              r->pass ? "pass" : "fail", r->pass ? "PASS" : "FAIL", r->bit_exact ? "pass" : "fail",
              r->bit_exact ? "bit-exact" : "NOT bit-exact");
    npuc_sb_puts(&b, "</header>\n<main>\n");

    section_summary(&b, r);
    section_outputs(&b, r, r->outputs, n_out);
    section_cycle_chart(&b, r, r->ops, n_ops);
    section_memory(&b, r, r->ops, n_ops, r->buffers, n_bufs, r->live);
    section_partition(&b, r, r->ops, n_ops, r->epochs, n_eps);

    npuc_sb_printf(&b,
              "</main>\n<footer>\n<p id=\"render-check\" data-op-bars=\"%d\" data-buffers=\"%d\" "
              "data-charts=\"2\">render check: not run (the page needs JavaScript for this line only)</p>\n"
              "</footer>\n",
              n_ops, n_bufs);
    npuc_sb_putn(&b, self_check, sizeof self_check - 1);
    npuc_sb_puts(&b, "</body>\n</html>\n");
    return npuc_sb_finish(&b, out, err);
}
