/* libFuzzer target: the JSON reader and writer, and target_desc's checks of a
 * memory-pool file, on arbitrary bytes. Any input must end in a result or
 * an error message, never in a crash, hang or sanitizer report. Oracles:
 *   - what the reader accepts, the writer writes back (compact and
 *     indented), the reader accepts that again, and writing it once more
 *     gives the same text;
 *   - an error message is a non-empty line with a position;
 *   - a system target_parse_json accepts is self-consistent (roles point at
 *     pools that can hold them, regions on ports 0/1, pools within the
 *     address space).
 * Seeds: the example files in configs/ (tools/run_fuzz.sh). */
#include "../src/util/json.h"
#include "../src/target/target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_doc(const npuc_json *v, int indent)
{
    npuc_json_writer w;
    npuc_err err;
    char *text = NULL;
    npuc_json_writer_init(&w, indent);
    npuc_json_write_value(&w, v);
    if (npuc_json_writer_finish(&w, &text, NULL, &err) != NPUC_OK) {
        fprintf(stderr, "writer failed on a parsed document: %s\n", err.msg);
        abort();
    }
    return text;
}

static void round_trip(const npuc_json *v, int indent)
{
    npuc_arena a;
    npuc_err err;
    npuc_arena_init(&a);
    char *t1 = write_doc(v, indent);
    const npuc_json *v2;
    npuc_json_opts opts = {.max_depth = NPUC_JSON_DEPTH_LIMIT};
    if (npuc_json_parse(t1, strlen(t1), &opts, &a, &v2, &err) != NPUC_OK) {
        fprintf(stderr, "reader refused the writer's output: %s\n%s\n", err.msg, t1);
        abort();
    }
    char *t2 = write_doc(v2, indent);
    if (strcmp(t1, t2) != 0) {
        fprintf(stderr, "write/read/write differs:\n%s\n%s\n", t1, t2);
        abort();
    }
    free(t1);
    free(t2);
    npuc_arena_free(&a);
}

static void check_message(const npuc_err *err)
{
    if (!err->msg[0] || strchr(err->msg, '\n')) {
        fprintf(stderr, "bad error message: \"%s\"\n", err->msg);
        abort();
    }
}

static void check_system(const target_desc *s)
{
    bool ok = s->n_pools >= 1 && s->n_pools <= TARGET_MAX_POOLS && s->params_pool >= 0 &&
              s->params_pool < s->n_pools && s->act_pool >= 0 && s->act_pool < s->n_pools &&
              s->fast_pool < s->n_pools && s->core_clock_hz > 0;
    ok = ok && (s->pools[s->params_pool].use & TARGET_POOL_PARAMS) && (s->pools[s->act_pool].use & TARGET_POOL_ACTIVATIONS) &&
         s->pools[s->act_pool].writable;
    if (ok && s->fast_pool >= 0) ok = (s->pools[s->fast_pool].use & TARGET_POOL_FAST) && eu_variant_is_u65(s->variant);
    uint64_t limit = eu_variant_is_u65(s->variant) ? 1ull << 40 : 1ull << 32;
    for (int i = 0; ok && i < s->n_pools; i++) {
        const target_pool *p = &s->pools[i];
        ok = p->name[0] && p->memory && (p->axi_port == 0 || p->axi_port == 1) && p->size <= limit &&
             (!p->absolute || (p->size > 0 && p->offset < limit && p->size <= limit - p->offset));
    }
    for (int r = 0; ok && r < 8; r++) ok = s->sim.region_port[r] <= 1;
    ok = ok && s->sim.axi[0].name && s->sim.axi[1].name && s->sim.name[0];
    if (!ok) {
        fprintf(stderr, "inconsistent system accepted: %s\n", s->name);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    npuc_arena a;
    npuc_err err;
    npuc_arena_init(&a);
    const npuc_json *v;
    if (npuc_json_parse(text, size, NULL, &a, &v, &err) == NPUC_OK) {
        round_trip(v, 0);
        round_trip(v, 2);
    } else {
        check_message(&err);
    }
    npuc_arena_free(&a);

    /* the variant from the input's length, so every variant is reached */
    target_desc s;
    eu_variant var = (eu_variant)(size % 6);
    if (target_parse_json(text, size, "fuzz.json", var, &s, &err) == NPUC_OK) check_system(&s);
    else check_message(&err);
    return 0;
}
