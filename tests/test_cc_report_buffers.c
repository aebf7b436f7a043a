/* Every byte of the memory plan accounted for in the JSON report
 * (emit_report.c, "buffers"): every zoo model and every TFLite Micro model
 * of the shared folder is compiled for the Ethos-U55-128 and the
 * Ethos-U65-256 (which has a fast pool apart from the arena), and from the
 * report as a user reads it: each buffer lies inside its pool, no two
 * buffers of a pool whose live ranges overlap share a byte (but for a CPU
 * QUANTIZE's output written over its input from the first byte, listed
 * as `written_over`, the two live together only at that op), and each
 * pool's peak (used_bytes) is the end of one of its buffers (no bytes of
 * the peak left unexplained), and every buffer the compiler placed is
 * listed. Skips with a message when the shared folder
 * is absent. */
#include "test.h"
#include "../src/compiler/cc.h"
#include "../src/emit/emit.h"
#include "../src/tflite/tflite.h"
#include "../src/util/json.h"

#include <dirent.h>
#include <stdint.h>


typedef struct rbuf {
    int64_t lo, hi, from, to;
    int64_t index, over;      /* over: `written_over`, -1 none */
    int32_t pool;
} rbuf;

/* Whether w is written over r (a CPU QUANTIZE's output over its input):
 * from r's first byte, no larger, the two live together only at the step
 * w begins (the op reading r and writing w). */
static bool written_over(const rbuf *w, const rbuf *r)
{
    return w->over >= 0 && w->over == r->index && w->lo == r->lo && w->hi <= r->hi && r->to == w->from &&
           r->from < w->from;
}

static int64_t num(const npuc_json *o, const char *key, bool *ok)
{
    const npuc_json *v = npuc_json_get(o, key);
    if (!v || v->type != NPUC_JSON_NUMBER || !v->is_int) {
        *ok = false;
        return 0;
    }
    return v->integer;
}

/* Checks one report; `what` names the model and target in messages. */
static void check_report(const char *json, size_t len, const char *what, int32_t n_placed)
{
    npuc_arena a;
    npuc_arena_init(&a);
    npuc_err err = {0};
    const npuc_json *root = NULL;
    int rc = npuc_json_parse(json, len, NULL, &a, &root, &err);
    CHECK_EQ_INT(rc, 0);
    const npuc_json *pools = root ? npuc_json_get(root, "pools") : NULL;
    const npuc_json *bufs = root ? npuc_json_get(root, "buffers") : NULL;
    CHECK(pools && pools->type == NPUC_JSON_ARRAY && bufs && bufs->type == NPUC_JSON_ARRAY);
    if (rc || !pools || !bufs || pools->type != NPUC_JSON_ARRAY || bufs->type != NPUC_JSON_ARRAY) {
        fprintf(stderr, "  %s: no pools/buffers in the report\n", what);
        npuc_arena_free(&a);
        return;
    }
    size_t n = bufs->n;
    int32_t listed = 0;
    for (size_t i = 0; i < n; i++) {
        bool f = true;
        listed += num(bufs->items[i], "index", &f) >= 0;
    }
    CHECK_EQ_INT(listed, n_placed);   /* every buffer the compiler placed */
    rbuf *b = calloc(n + 1, sizeof *b);
    int64_t *top = calloc(pools->n + 1, sizeof *top);
    CHECK(b && top);
    bool ok = b && top;
    for (size_t i = 0; ok && i < n; i++) {
        const npuc_json *x = bufs->items[i];
        const npuc_json *pn = npuc_json_get(x, "pool");
        b[i].pool = -1;
        for (size_t p = 0; pn && pn->type == NPUC_JSON_STRING && p < pools->n; p++) {
            const npuc_json *nm = npuc_json_get(pools->items[p], "name");
            if (nm && nm->type == NPUC_JSON_STRING && !strcmp(nm->str, pn->str)) b[i].pool = (int32_t)p;
        }
        bool f = true;
        b[i].lo = num(x, "offset", &f);
        b[i].hi = b[i].lo + num(x, "bytes", &f);
        b[i].from = num(x, "live_from_step", &f);
        b[i].to = num(x, "live_to_step", &f);
        b[i].index = num(x, "index", &f);
        bool has_over = npuc_json_get(x, "written_over") != NULL;
        b[i].over = has_over ? num(x, "written_over", &f) : -1;
        CHECK(f && b[i].pool >= 0);
        if (!f || b[i].pool < 0) {
            fprintf(stderr, "  %s: buffer %zu malformed\n", what, i);
            ok = false;
            break;
        }
        bool in = npuc_json_get(pools->items[b[i].pool], "size") != NULL;
        int64_t size = num(pools->items[b[i].pool], "size", &in);
        CHECK(b[i].lo >= 0 && b[i].hi > b[i].lo && b[i].from <= b[i].to && (!size || b[i].hi <= size));
        if (!(b[i].lo >= 0 && b[i].hi > b[i].lo && (!size || b[i].hi <= size)))
            fprintf(stderr, "  %s: buffer %zu [%lld, %lld) outside its pool (%lld bytes)\n", what, i,
                    (long long)b[i].lo, (long long)b[i].hi, (long long)size);
        if (b[i].hi > top[b[i].pool]) top[b[i].pool] = b[i].hi;
    }
    for (size_t i = 0; ok && i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (b[i].pool != b[j].pool || b[i].to < b[j].from || b[j].to < b[i].from) continue;
            bool apart = b[i].hi <= b[j].lo || b[j].hi <= b[i].lo || written_over(&b[i], &b[j]) ||
                         written_over(&b[j], &b[i]);
            CHECK(apart);
            if (!apart)
                fprintf(stderr, "  %s: buffers %zu [%lld, %lld) steps %lld..%lld and %zu [%lld, %lld) steps %lld..%lld overlap\n",
                        what, i, (long long)b[i].lo, (long long)b[i].hi, (long long)b[i].from, (long long)b[i].to, j,
                        (long long)b[j].lo, (long long)b[j].hi, (long long)b[j].from, (long long)b[j].to);
        }
    for (size_t p = 0; ok && p < pools->n; p++) {
        const npuc_json *h = npuc_json_get(pools->items[p], "holds");
        if (!h || h->type != NPUC_JSON_STRING ||
            (!strstr(h->str, "activations") && !strstr(h->str, "fast") && !strstr(h->str, "state")))
            continue;
        bool f = true;
        int64_t used = num(pools->items[p], "used_bytes", &f);
        CHECK(f);
        CHECK_EQ_INT(used, top[p]);
        if (used != top[p])
            fprintf(stderr, "  %s: pool %zu peak %lld, buffers end at %lld\n", what, p, (long long)used,
                    (long long)top[p]);
    }
    free(b);
    free(top);
    npuc_arena_free(&a);
}

static int compiled = 0;

static void check_model(const char *path, const char *name)
{
    tfl_model *tm = NULL;
    graph *g = NULL;
    npuc_err err = {0};
    if (tfl_read_file(path, &tm, &err) || graph_import(tm, &g, &err)) {
        printf("skip %s: %s\n", name, err.msg);
        tfl_model_free(tm);
        return;
    }
    static const eu_variant vs[] = {EU_U55_128, EU_U65_256};
    /* as compiled by default, for size (other weight copies), and with
     * every chain cascaded (rolling buffers) */
    static const cc_options os[] = {{.optimise = CC_OPT_PERFORMANCE},
                                    {.optimise = CC_OPT_SIZE},
                                    {.cascade = CC_CASCADE_ALL}};
    static const char *const on[] = {"", " --optimise size", " (every chain cascaded)"};
    for (size_t k = 0; k < 3 * sizeof vs / sizeof *vs; k++) {
        cc_model *cm = NULL;
        npuc_err e2 = {0};
        char what[512];
        snprintf(what, sizeof what, "%s for %s%s", name, target_variant_name(vs[k % 2]), on[k / 2]);
        cc_options opt = os[k / 2];
        if (target_default(vs[k % 2], &opt.sys, &e2) || cc_compile(g, &opt, &cm, &e2)) {
            /* a legacy uint8 model the reference kernels do not run */
            bool legacy = strstr(e2.msg, "legacy") != NULL;
            CHECK(legacy);
            printf("%s %s: %s\n", legacy ? "skip" : "FAIL", what, e2.msg);
            continue;
        }
        char *json = NULL;
        size_t len = 0;
        CHECK_EQ_INT(emit_report_json_text(cm, name, &json, &len, &e2), 0);
        int32_t placed = 0;
        for (int32_t b = 0; b < cm->n_bufs; b++) placed += cm->bufs[b].size > 0;
        if (json) check_report(json, len, what, placed);
        /* the state kept across invocations: keyword_scrambled's seven SVDF
         * states, 4 x 512 + 3 x 1024 bytes, which only CPU ops use: in the
         * state pool, none in the arena */
        if (!strcmp(name, "keyword_scrambled_8bit.tflite")) {
            CHECK_EQ_INT(cc_state_bytes(cm), 0);
            CHECK_EQ_INT(cm->state_size, 5120);
            CHECK(json && strstr(json, "\"state_bytes\": 0,") && strstr(json, "\"state_pool_bytes\": 5120,"));
            int32_t vars = 0;
            for (int32_t t = 0; t < cm->g->n_tensors; t++) {
                if (!cm->g->tensors[t].is_variable) continue;
                vars++;
                CHECK(cm->buf_of[t] >= 0 && cm->bufs[cm->buf_of[t]].pool == CC_IN_STATE);
            }
            CHECK_EQ_INT(vars, 7);
        }
        compiled++;
        free(json);
        cc_model_free(cm);
    }
    graph_free(g);
    tfl_model_free(tm);
}

static void check_dir(const char *rel)
{
    char rl[256], buf[1024];
    snprintf(rl, sizeof rl, "%s/LICENSE", rel);
    const char *lic = t_shared(rl, buf, sizeof buf);
    if (!lic) {
        printf("skip %s: the shared folder is absent\n", rel);
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%.*s", (int)(strlen(lic) - strlen("/LICENSE")), lic);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t l = strlen(e->d_name);
        if (l > 7 && !strcmp(e->d_name + l - 7, ".tflite")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    /* in name order, for a stable log */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_model(path, names[i]);
        free(names[i]);
    }
}

int main(void)
{
    check_dir("models/zoo");
    check_dir("models/tflm");
    printf("%d compiled models checked\n", compiled);
    TEST_MAIN_END();
}
