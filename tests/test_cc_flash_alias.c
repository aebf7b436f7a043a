/* Aliases in an epoch's flash (cc_flash_alias, lower/lower_weights.c): a
 * weight stream the epoch's flash already holds is not written again
 * before cc_share_flash stores each stream once; its range is an alias of
 * the earlier copy, read through cc_flash_seg / cc_flash_view. Pinned here:
 *  - on a hand-built epoch: the runs cc_flash_seg gives (inside an alias at
 *    its source, outside in place, never across an edge), a view inside an
 *    alias at its source with nothing written, a view across an edge
 *    writing out the aliases it touches and no other, cc_flash_rewind
 *    dropping the aliases past the cut and cc_flash_write_aliases the rest;
 *  - on armkws_basic_lstm_s_int8 (ethos-u55-128 and ethos-u65-256; its
 *    unrolled steps share one recurrent weight tensor, each with scale
 *    records of its own): the lowering with the weight cache leaves
 *    aliases, each of a stream written earlier in the same flash, and its
 *    flash read through them is byte for byte the flash of the lowering
 *    without a cache (which writes every stream); written out, the same
 *    bytes in place; cc_share_flash on both gives the same shared flash
 *    and offsets, and leaves no alias. */
#include "test.h"
#include "cc_test_npu.h"
#include "../src/compiler/ethosu/eu_weights.h"
#include "../src/compiler/lower/lower.h"
#include "cc_sched_test.h"

#include <string.h>

static uint8_t pat(uint64_t i)
{
    return (uint8_t)(i * 131u + (i >> 8) * 7u + 1u);
}

/* 64 KiB of flash: pat at every offset outside two aliases of the 8 KiB
 * and the 4 KiB at 4096, at 20000 and at 40000 (built through
 * cc_flash_room and cc_flash_alias_add). False: not built (CHECKed). */
static bool build(cc_epoch *e)
{
    static const uint64_t items[][2] = {{20000, 0}, {8192, 4096}, {11808, 0}, {4096, 4096}, {21440, 0}};
    npuc_err err = {0};
    memset(e, 0, sizeof *e);
    for (size_t k = 0; k < sizeof items / sizeof items[0]; k++) {
        uint64_t off = 0, at = e->flash_size;
        if (items[k][1]) {
            CHECK_EQ_INT(cc_flash_alias_add(e, items[k][0], items[k][1], &off, &err), 0);
        } else {
            uint8_t *p = cc_flash_room(e, items[k][0], &off, &err);
            CHECK(p != NULL);
            if (!p) return false;
            for (uint64_t i = 0; i < items[k][0]; i++) p[i] = pat(off + i);
        }
        CHECK_EQ_INT(off, at);
    }
    CHECK_EQ_INT(e->flash_size, 65536);
    CHECK_EQ_INT(e->n_alias, 2);
    CHECK_EQ_INT(cc_flash_alias_bytes(e), 12288);
    return e->flash_size == 65536 && e->n_alias == 2;
}

static void test_hand_built(void)
{
    cc_epoch e;
    if (!build(&e)) goto out;
    /* memory holds the bytes outside the aliases alone */
    CHECK(e.flash_cap >= 65536 - 12288);
    const uint8_t *p = NULL;
    static const uint64_t runs[][3] = {{0, 20000, 0}, {20000, 8192, 4096}, {28192, 11808, 20000},
                                       {40000, 4096, 4096}, {44096, 65536 - 44096, 31808}};
    uint64_t at = 0;
    bool bytes = true;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        uint64_t k = cc_flash_seg(&e, at, 65536, &p);
        CHECK_EQ_INT(at, runs[r][0]);
        CHECK_EQ_INT(k, runs[r][1]);
        CHECK(p == e.flash + runs[r][2]);
        for (uint64_t i = 0; i < k; i++) bytes &= p[i] == pat(r % 2 ? 4096 + i : at + i);
        at += k;
    }
    CHECK(bytes);
    CHECK_EQ_INT(cc_flash_seg(&e, 65536, 65536, &p), 0);
    /* from inside an alias, and bounded by the end asked */
    CHECK_EQ_INT(cc_flash_seg(&e, 20100, 65536, &p), 8092);
    CHECK(p == e.flash + 4196);
    CHECK_EQ_INT(cc_flash_seg(&e, 30000, 30500, &p), 500);
    CHECK(p == e.flash + 21808);
    CHECK_EQ_INT(cc_flash_seg(&e, 41000, 42000, &p), 1000);
    CHECK(p == e.flash + 5096);
    /* a view in one run, or none */
    CHECK(cc_flash_view(&e, 21000, 22000) == e.flash + 5096);
    CHECK(cc_flash_view(&e, 50000, 50016) == e.flash + 37712);
    CHECK(cc_flash_view(&e, 27000, 30000) == NULL);
    CHECK(cc_flash_view(&e, 5, 5) == NULL);
    /* an alias of bytes that are not all outside the aliases, or not
     * before the end: refused */
    npuc_err err = {0};
    uint64_t off = 0;
    CHECK_EQ_INT(cc_flash_alias_add(&e, 4096, 24000, &off, &err), NPUC_E_INVALID);
    CHECK_STR_CONTAINS(err.msg, "internal: alias of flash bytes [24000, 28096) at 65536");
    CHECK_EQ_INT(cc_flash_alias_add(&e, 4096, 64000, &off, &err), NPUC_E_INVALID);
    CHECK_EQ_INT(e.n_alias, 2);
    /* a cut inside the second alias keeps its first bytes; at its start it goes */
    cc_flash_rewind(&e, 42000);
    CHECK_EQ_INT(e.n_alias, 2);
    CHECK_EQ_INT(cc_flash_alias_bytes(&e), 8192 + 2000);
    CHECK_EQ_INT(cc_flash_seg(&e, 40000, 65536, &p), 2000);
    CHECK(p == e.flash + 4096);
    cc_flash_rewind(&e, 40000);
    CHECK_EQ_INT(e.n_alias, 1);
    CHECK_EQ_INT(cc_flash_alias_bytes(&e), 8192);
    CHECK_EQ_INT(e.flash_size, 40000);
    /* room after a cut: in memory right after the bytes kept */
    uint8_t *q = cc_flash_room(&e, 32, &off, &err);
    CHECK_EQ_INT(off, 40000);
    CHECK(q == e.flash + 40000 - 8192);
out:
    free(e.flash);
    free(e.alias);
    /* written out: every byte at its offset */
    if (!build(&e)) goto out2;
    CHECK(cc_flash_write_aliases(&e));
    CHECK_EQ_INT(e.n_alias, 0);
    CHECK_EQ_INT(cc_flash_alias_bytes(&e), 0);
    CHECK(e.flash_cap >= 65536);
    bytes = true;
    for (uint64_t i = 0; i < 65536; i++) {
        bool in1 = i >= 20000 && i < 28192, in2 = i >= 40000 && i < 44096;
        bytes &= e.flash[i] == pat(in1 ? 4096 + i - 20000 : in2 ? 4096 + i - 40000 : i);
    }
    CHECK(bytes);
out2:
    free(e.flash);
    free(e.alias);
}

static void model_free(cc_model *m)
{
    if (!m) return;
    m->wcache = NULL;
    cc_model_free(m);
}

/* Whether a's flash read through its aliases is b's (which has none). */
static bool same_flash(const cc_model *a, const cc_model *b)
{
    if (a->n_epochs != b->n_epochs) return false;
    for (int32_t i = 0; i < a->n_epochs; i++) {
        const cc_epoch *x = &a->epochs[i], *y = &b->epochs[i];
        if (x->flash_size != y->flash_size || y->n_alias) return false;
        const uint8_t *p;
        for (uint64_t at = 0, k; at < x->flash_size; at += k) {
            k = cc_flash_seg(x, at, x->flash_size, &p);
            if (!k || memcmp(p, y->flash + at, (size_t)k)) return false;
        }
    }
    return true;
}

static void test_lstm(eu_variant v)
{
    const char *rel = "models/zoo/armkws_basic_lstm_s_int8.tflite";
    tfl_model *tm = NULL;
    graph *g = NULL;
    int loaded = cc_load_shared(rel, &tm, &g);
    if (!loaded) return;
    CHECK(loaded > 0 && g);
    if (!g) goto out;
    eu_wcache *wc = eu_wcache_new();
    CHECK(wc != NULL);
    cc_options opt;
    memset(&opt, 0, sizeof opt);
    cc_model *plain = lowered_with(rel, g, v, opt, NULL), *al = lowered_with(rel, g, v, opt, wc),
             *al2 = lowered_with(rel, g, v, opt, wc);
    if (!plain || !al || !al2) goto done;
    int32_t n_alias = 0;
    uint64_t bytes = 0;
    bool sound = true;
    for (int32_t i = 0; i < al->n_epochs; i++) {
        const cc_epoch *e = &al->epochs[i];
        n_alias += e->n_alias;
        for (int32_t k = 0; k < e->n_alias; k++) {
            const cc_flash_alias *a = &e->alias[k];
            bytes += a->len;
            /* in order, apart, each of bytes written earlier (no alias
             * among them), the whole of one op's weight stream */
            sound &= a->src + a->len <= a->off && a->off + a->len <= e->flash_size;
            sound &= !k || e->alias[k - 1].off + e->alias[k - 1].len <= a->off;
            const uint8_t *p;
            sound &= cc_flash_seg(e, a->src, a->src + a->len, &p) == a->len && p == e->flash + a->mem;
            bool addressed = false;
            for (int32_t j = 0; j < e->n_eu; j++)
                addressed |= e->ops[j].w_off == a->off && ((e->ops[j].w_len + 15) & ~(uint64_t)15) == a->len;
            sound &= addressed;
        }
    }
    printf("%s %s: %d aliases, %llu bytes held once\n", rel, target_variant_name(v), n_alias,
           (unsigned long long)bytes);
    CHECK(n_alias > 0);
    CHECK(sound);
    CHECK(same_flash(al, plain));
    /* written out: the same bytes in place */
    for (int32_t i = 0; i < al2->n_epochs; i++) cc_flash_write_aliases(&al2->epochs[i]);
    CHECK(same_flash(al2, plain));
    /* shared: the same flash and offsets, no alias left */
    bool sh_a = false, sh_p = false;
    npuc_err err = {0};
    CHECK_EQ_INT(cc_share_flash(al, &sh_a, &err), 0);
    CHECK_EQ_INT(cc_share_flash(plain, &sh_p, &err), 0);
    CHECK(sh_a && sh_p);
    CHECK(same_flash(al, plain));
    bool offs = al->n_epochs == plain->n_epochs;
    for (int32_t i = 0; offs && i < al->n_epochs; i++) {
        const cc_epoch *x = &al->epochs[i], *y = &plain->epochs[i];
        offs &= x->n_alias == 0 && x->n_eu == y->n_eu && x->flash_shared == y->flash_shared;
        for (int32_t j = 0; offs && j < x->n_eu; j++)
            offs &= x->ops[j].w_off == y->ops[j].w_off && x->ops[j].s_off == y->ops[j].s_off;
    }
    CHECK(offs);
done:
    model_free(plain);
    model_free(al);
    model_free(al2);
    eu_wcache_free(wc);
out:
    graph_free(g);
    tfl_model_free(tm);
}

int main(void)
{
    (void)env_long;
    (void)variants;
    test_hand_built();
    test_lstm(EU_U55_128);
    test_lstm(EU_U65_256);
    TEST_MAIN_END();
}
