/* compiler/target_desc: targets, every built-in system (its sim_system equals
 * target_lookup_sim's), the example files in configs/, and one check per
 * kind of error in a JSON memory-pool file (with the exact message where
 * the position matters). */
#include "test.h"

#include "target/target.h"
#include "npurt/npurt.h"
#include "npurt/npurt_format.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>


/* A --system-config value alone (built-in name, SYSTEM:MODE or JSON file;
 * NULL = the default), as every command reads it. */
static int load_system(const char *spec, eu_variant v, target_desc *out, npuc_err *err)
{
    target_spec s = {.system_config = spec};
    return target_load(&s, v, out, err);
}

static const char *const SYS[] = {
    "Ethos_U55_Deep_Embedded", "Ethos_U55_High_End_Embedded", "Ethos_U65_Embedded",
    "Ethos_U65_Mid_End", "Ethos_U65_High_End", "Ethos_U65_Client_Server",
};
static const char *const MODE[] = {"Sram_Only",           "Shared_Sram",          "Dedicated_Sram",
                                   "Dedicated_Sram_256KB", "Dedicated_Sram_384KB", "Dedicated_Sram_512KB"};
#define N_MODE (sizeof MODE / sizeof MODE[0])
static const eu_variant ALL[] = {EU_U55_32, EU_U55_64, EU_U55_128, EU_U55_256, EU_U65_256, EU_U65_512};

#define CHECK_STR_EQ(a, b)                                                              \
    do {                                                                                \
        const char *a_ = (a), *b_ = (b);                                                \
        t_checks++;                                                                     \
        if (!a_ || strcmp(a_, b_) != 0) {                                               \
            t_failures++;                                                               \
            fprintf(stderr, "%s:%d: got \"%s\"\n  want \"%s\"\n", __FILE__, __LINE__,  \
                    a_ ? a_ : "(null)", b_);                                            \
        }                                                                               \
    } while (0)

static bool mem_eq(const sim_memory *a, const sim_memory *b)
{
    return a->name && b->name && strcmp(a->name, b->name) == 0 && a->clock_scale == b->clock_scale &&
           a->burst_bytes == b->burst_bytes && a->read_latency == b->read_latency &&
           a->write_latency == b->write_latency && a->width_bytes == b->width_bytes;
}

/* Same memories, clock and region ports (names of the systems aside). */
static bool sim_eq(const sim_system *a, const sim_system *b)
{
    if (a->core_clock_hz != b->core_clock_hz) return false;
    if (!mem_eq(&a->axi[0], &b->axi[0]) || !mem_eq(&a->axi[1], &b->axi[1])) return false;
    return memcmp(a->region_port, b->region_port, sizeof a->region_port) == 0;
}

static void test_targets(void)
{
    npuc_err err;
    for (size_t i = 0; i < sizeof ALL / sizeof ALL[0]; i++) {
        eu_variant v = EU_U55_32;
        const char *name = target_variant_name(ALL[i]);
        CHECK_EQ_INT(target_variant_parse(name, &v, &err), NPUC_OK);
        CHECK_EQ_INT(v, ALL[i]);
    }
    CHECK_STR_EQ(target_variant_name(EU_U55_128), "ethos-u55-128");
    CHECK_STR_EQ(target_variant_name(EU_U65_512), "ethos-u65-512");
    eu_variant v;
    CHECK_EQ_INT(target_variant_parse("Ethos-U65-256", &v, &err), NPUC_OK);   /* any letter case */
    CHECK_EQ_INT(v, EU_U65_256);
    CHECK_EQ_INT(target_variant_parse("ethos-u55-512", &v, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "unknown target 'ethos-u55-512' (valid: ethos-u55-32, ethos-u55-64, ethos-u55-128, "
                          "ethos-u55-256, ethos-u65-256, ethos-u65-512)");
    CHECK_EQ_INT(target_variant_parse(NULL, &v, &err), NPUC_E_USAGE);
}

static void check_builtin(const char *name, eu_variant v, const char *sys, const char *mode)
{
    npuc_err err;
    target_desc s;
    memset(&s, 0xA5, sizeof s);
    int rc = load_system(name, v, &s, &err);
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", name, err.msg);
        return;
    }
    char canon[64];
    snprintf(canon, sizeof canon, "%s:%s", sys, mode);
    CHECK_STR_EQ(s.name, canon);
    CHECK_EQ_INT(s.variant, v);
    sim_system ref;
    CHECK_EQ_INT(target_lookup_sim(sys, mode, &ref, &err), NPUC_OK);
    /* the sim_system derived from the pools is Vela's */
    t_checks++;
    if (!sim_eq(&s.sim, &ref)) {
        t_failures++;
        fprintf(stderr, "%s: sim_system differs from target_lookup_sim\n", name);
    }
    CHECK(strcmp(s.sim.name, ref.name) == 0);
    CHECK(s.core_clock_hz == ref.core_clock_hz);
    /* roles */
    CHECK(s.n_pools >= 1 && s.n_pools <= 2);
    CHECK(s.params_pool >= 0 && s.params_pool < s.n_pools);
    CHECK(s.act_pool >= 0 && s.act_pool < s.n_pools);
    CHECK(s.pools[s.act_pool].writable);
    CHECK_EQ_INT(s.pools[s.params_pool].axi_port, ref.region_port[0]);
    CHECK_EQ_INT(s.pools[s.act_pool].axi_port, ref.region_port[1]);
    CHECK_EQ_INT(s.pools[s.act_pool].size, 0);   /* Vela does not limit the arena */
    bool dedicated = strncmp(mode, "Dedicated", 9) == 0;
    if (dedicated) {
        CHECK(s.fast_pool >= 0);
        if (s.fast_pool >= 0) {
            const target_pool *f = &s.pools[s.fast_pool];
            /* Vela 5.1's vela.ini: Dedicated_Sram has no arena_cache_size
             * (no limit: the 40-bit address range), the others their size */
            uint64_t want = !strcmp(mode, "Dedicated_Sram")         ? TARGET_FAST_NO_LIMIT
                            : !strcmp(mode, "Dedicated_Sram_256KB") ? 256 * 1024
                            : !strcmp(mode, "Dedicated_Sram_384KB") ? 384 * 1024
                                                                    : 512 * 1024;
            CHECK_EQ_INT(f->size, want);
            CHECK_EQ_INT(f->axi_port, 0);
            CHECK_STR_EQ(f->memory, "Sram");
            CHECK_EQ_INT(f->use, TARGET_POOL_FAST);
            CHECK_EQ_INT(s.pools[s.act_pool].use, TARGET_POOL_PARAMS | TARGET_POOL_ACTIVATIONS);
            CHECK_STR_EQ(s.pools[s.act_pool].memory, "Dram");
        }
    } else {
        CHECK_EQ_INT(s.fast_pool, -1);
        CHECK(!s.pools[s.params_pool].writable);   /* Shared_Sram: the other memory is read-only */
        CHECK(s.params_pool != s.act_pool);
    }
    for (int i = 0; i < s.n_pools; i++) {
        CHECK(!s.pools[i].absolute && s.pools[i].offset == 0);
        CHECK(s.pools[i].memory != NULL);
    }
    /* copying by value keeps every name valid (static strings, arrays) */
    target_desc copy = s;
    memset(&s, 0, sizeof s);
    CHECK(copy.sim.axi[0].name && copy.sim.axi[1].name && copy.sim.name[0]);
}

static void test_builtins(void)
{
    npuc_err err;
    const char *const *names = target_builtin_names();
    size_t n = 0;
    while (names[n]) n++;
    CHECK_EQ_INT(n, 24);
    /* every SYSTEM:MODE that target_lookup_sim accepts is listed, and no other */
    size_t listed = 0;
    for (size_t si = 0; si < 6; si++) {
        for (size_t mi = 0; mi < N_MODE; mi++) {
            char name[80];
            snprintf(name, sizeof name, "%s:%s", SYS[si], MODE[mi]);
            bool in_list = false;
            for (size_t k = 0; k < n; k++)
                if (strcmp(names[k], name) == 0) in_list = true;
            sim_system ref;
            bool vela_ok = target_lookup_sim(SYS[si], MODE[mi], &ref, &err) == NPUC_OK;
            CHECK_EQ_INT(in_list, vela_ok);
            listed += in_list;
            bool u65 = si >= 2;
            for (size_t vi = 0; vi < 6; vi++) {
                eu_variant v = ALL[vi];
                if (in_list && eu_variant_is_u65(v) == u65) {
                    check_builtin(name, v, SYS[si], MODE[mi]);
                } else {
                    target_desc s;
                    CHECK_EQ_INT(load_system(name, v, &s, &err), NPUC_E_USAGE);
                }
            }
        }
    }
    CHECK_EQ_INT(listed, n);

    /* bare system names take the system's default mode */
    check_builtin("Ethos_U55_Deep_Embedded", EU_U55_64, "Ethos_U55_Deep_Embedded", "Shared_Sram");
    check_builtin("Ethos_U55_High_End_Embedded", EU_U55_128, "Ethos_U55_High_End_Embedded", "Shared_Sram");
    check_builtin("Ethos_U65_Embedded", EU_U65_256, "Ethos_U65_Embedded", "Shared_Sram");
    check_builtin("Ethos_U65_Mid_End", EU_U65_256, "Ethos_U65_Mid_End", "Dedicated_Sram");
    check_builtin("Ethos_U65_High_End", EU_U65_512, "Ethos_U65_High_End", "Dedicated_Sram");
    check_builtin("Ethos_U65_Client_Server", EU_U65_256, "Ethos_U65_Client_Server", "Dedicated_Sram");
    /* any letter case */
    check_builtin("ethos_u55_high_end_embedded:SRAM_ONLY", EU_U55_256, "Ethos_U55_High_End_Embedded", "Sram_Only");

    /* Sram_Only: constants on AXI1 as "OnChipFlash" with SRAM timing (Vela) */
    target_desc s;
    CHECK_EQ_INT(load_system("Ethos_U55_High_End_Embedded:Sram_Only", EU_U55_256, &s, &err), NPUC_OK);
    CHECK_STR_EQ(s.pools[s.params_pool].memory, "OnChipFlash");
    CHECK_EQ_INT(s.pools[s.params_pool].axi_port, 1);
    CHECK_EQ_INT(s.pools[s.params_pool].read_latency, 32);

    /* defaults */
    for (size_t vi = 0; vi < 6; vi++) {
        target_desc d, l;
        sim_system ref;
        CHECK_EQ_INT(target_default(ALL[vi], &d, &err), NPUC_OK);
        CHECK_EQ_INT(load_system(NULL, ALL[vi], &l, &err), NPUC_OK);
        target_default_sim(ALL[vi], &ref);
        CHECK(sim_eq(&d.sim, &ref));
        CHECK(sim_eq(&l.sim, &ref));
        CHECK_STR_EQ(d.name, eu_variant_is_u65(ALL[vi]) ? "Ethos_U65_High_End:Dedicated_Sram"
                                                         : "Ethos_U55_High_End_Embedded:Shared_Sram");
        CHECK_STR_EQ(d.sim.name, ref.name);
        CHECK_EQ_INT(d.fast_pool >= 0, eu_variant_is_u65(ALL[vi]));
        if (d.fast_pool >= 0) CHECK_EQ_INT(d.pools[d.fast_pool].size, TARGET_FAST_NO_LIMIT);
    }
    CHECK_EQ_INT(target_default((eu_variant)17, &s, &err), NPUC_E_USAGE);

    /* errors */
    CHECK_EQ_INT(load_system("Ethos_U65_High_End:Dedicated_Sram", EU_U55_256, &s, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "system 'Ethos_U65_High_End:Dedicated_Sram' is for an Ethos-U65, but the target is "
                          "ethos-u55-256 (choose one of the Ethos_U55_* systems)");
    CHECK_EQ_INT(load_system("Ethos_U55_High_End_Embedded", EU_U65_512, &s, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "system 'Ethos_U55_High_End_Embedded:Shared_Sram' is for an Ethos-U55, but the target "
                          "is ethos-u65-512 (choose one of the Ethos_U65_* systems)");
    CHECK_EQ_INT(load_system("Ethos_U65_Embedded:Dedicated_Sram", EU_U65_256, &s, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "'Ethos_U65_Embedded:Dedicated_Sram' is not a built-in system: Dedicated_Sram keeps the "
                          "tensor arena in DRAM on AXI1, but Ethos_U65_Embedded has flash there (Dedicated_Sram "
                          "needs Ethos_U65_Mid_End, Ethos_U65_High_End or Ethos_U65_Client_Server)");
    CHECK_EQ_INT(load_system("Ethos_U55_High_End_Embedded:Dedicated_Sram", EU_U55_256, &s, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "is not a built-in system");
    CHECK_EQ_INT(load_system("Ethos_U55_High_End_Embedded:Shared", EU_U55_256, &s, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "unknown memory mode 'Shared' in 'Ethos_U55_High_End_Embedded:Shared' (valid: "
                          "Sram_Only, Shared_Sram, Dedicated_Sram, Dedicated_Sram_256KB, Dedicated_Sram_384KB, "
                          "Dedicated_Sram_512KB)");
    CHECK_EQ_INT(load_system("Corstone_300", EU_U55_256, &s, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown system config 'Corstone_300': no such file, and not a built-in name (SYSTEM or "
                                "SYSTEM:MODE with SYSTEM one of Ethos_U55_Deep_Embedded");
    CHECK_EQ_INT(load_system("no/such/dir/sys.json", EU_U55_256, &s, &err), NPUC_E_IO);
    CHECK_STR_CONTAINS(err.msg, "no/such/dir/sys.json: cannot open");
    CHECK_EQ_INT(load_system("nosuchfile.json", EU_U55_256, &s, &err), NPUC_E_IO);
    CHECK_EQ_INT(load_system("x", (eu_variant)9, &s, &err), NPUC_E_USAGE);
}

/* ------------------------------------------------------------ files */

static const char *src_dir(char *buf, size_t size)
{
    const char *env = getenv("NPUC_SRC");
    if (env) return env;
    /* tests/test_cc_system.c -> the source root */
    snprintf(buf, size, "%s", __FILE__);
    char *slash = strrchr(buf, '/');
    if (slash) {
        *slash = 0;
        slash = strrchr(buf, '/');
        if (slash) *slash = 0;
        else snprintf(buf, size, ".");
    } else {
        snprintf(buf, size, "..");
    }
    return buf;
}

static void test_example_files(void)
{
    char root[512], path[600];
    npuc_err err;
    target_desc s;
    sim_system ref;
    const char *dir = src_dir(root, sizeof root);

    snprintf(path, sizeof path, "%s/configs/corstone-300-u55.json", dir);
    int rc = load_system(path, EU_U55_128, &s, &err);
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    if (!rc) {
        CHECK_STR_EQ(s.name, "Corstone-300 on MPS3 (AN552) with Ethos-U55 (example)");
        CHECK_EQ_INT(s.n_pools, 2);
        CHECK_EQ_INT(s.act_pool, 0);
        CHECK_EQ_INT(s.params_pool, 1);
        CHECK_EQ_INT(s.fast_pool, -1);
        CHECK_STR_EQ(s.pools[0].name, "isram");
        CHECK(s.pools[0].absolute && s.pools[0].offset == 0x31000000u && s.pools[0].size == 2u << 20);
        CHECK(!s.pools[1].absolute && s.pools[1].size == 32u << 20 && !s.pools[1].writable);
        CHECK_STR_EQ(s.sim.name, "custom");
        /* the same memories as Vela's Ethos_U55_High_End_Embedded with Shared_Sram */
        target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &ref, &err);
        CHECK(sim_eq(&s.sim, &ref));
    }
    CHECK_EQ_INT(load_system(path, EU_U55_32, &s, &err), NPUC_OK);
    /* a U55 file with a U65 target */
    CHECK_EQ_INT(load_system(path, EU_U65_256, &s, &err), NPUC_E_INVALID);
    char want[800];
    snprintf(want, sizeof want, "%s:4:13: target: the file describes an ethos-u55 system, but the target is "
                                "ethos-u65-256", path);
    CHECK_STR_EQ(err.msg, want);

    snprintf(path, sizeof path, "%s/configs/u65-dram-example.json", dir);
    for (int k = 0; k < 2; k++) {
        rc = load_system(path, k ? EU_U65_512 : EU_U65_256, &s, &err);
        CHECK_EQ_INT(rc, NPUC_OK);
        if (rc) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_EQ_INT(s.fast_pool, 0);
        CHECK_EQ_INT(s.act_pool, 1);
        CHECK_EQ_INT(s.params_pool, 1);
        CHECK_EQ_INT(s.pools[0].size, 384 * 1024);
        CHECK(s.pools[1].cacheable);
        CHECK(s.core_clock_hz == 1e9);
        target_lookup_sim("Ethos_U65_High_End", "Dedicated_Sram", &ref, &err);
        CHECK(sim_eq(&s.sim, &ref));
    }
    /* the U65 Dedicated_Sram file with a U55 target: a clear error */
    CHECK_EQ_INT(load_system(path, EU_U55_256, &s, &err), NPUC_E_INVALID);
    snprintf(want, sizeof want, "%s:4:13: target: the file describes an ethos-u65 system, but the target is "
                                "ethos-u55-256", path);
    CHECK_STR_EQ(err.msg, want);
}

/* A valid base document, one line per pool so columns are easy to read. */
static const char *BASE =
    "{\"name\": \"t\", \"core_clock_hz\": 5e8, \"pools\": [\n"
    "{\"name\": \"sram\", \"memory\": \"sram\", \"use\": \"activations\", \"rights\": \"rw\", \"size\": 0, "
    "\"axi_port\": 0, \"clock_ratio\": 1, \"byte_width\": 8, \"burst_bytes\": 32, \"read_latency\": 32, "
    "\"write_latency\": 32},\n"
    "{\"name\": \"flash\", \"memory\": \"offchip_flash\", \"use\": \"params\", \"rights\": \"r\", \"size\": 0, "
    "\"axi_port\": 1, \"clock_ratio\": 0.125, \"byte_width\": 8, \"burst_bytes\": 128, \"read_latency\": 64, "
    "\"write_latency\": 0}\n"
    "]}\n";

/* BASE with the first occurrence of `from` (after `skip` occurrences)
 * replaced by `to`. */
static char *edit(const char *doc, const char *from, const char *to, int skip)
{
    const char *at = strstr(doc, from);
    while (at && skip-- > 0) at = strstr(at + 1, from);
    if (!at) {
        fprintf(stderr, "test bug: '%s' not in document\n", from);
        abort();
    }
    size_t n = strlen(doc) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    size_t pre = (size_t)(at - doc);
    memcpy(out, doc, pre);
    strcpy(out + pre, to);
    strcat(out, at + strlen(from));
    return out;
}

static int parse_doc(const char *doc, eu_variant v, target_desc *s, npuc_err *err)
{
    memset(err, 0, sizeof *err);
    return target_parse_json(doc, strlen(doc), "t.json", v, s, err);
}

/* Expects an error whose message contains `want`, with the given code. */
static void expect(const char *doc, eu_variant v, int code, const char *want, int line)
{
    target_desc s;
    npuc_err err;
    int rc = parse_doc(doc, v, &s, &err);
    t_checks++;
    if (rc != code || !strstr(err.msg, want)) {
        t_failures++;
        fprintf(stderr, "%s:%d: got rc %d \"%s\"\n  want rc %d containing \"%s\"\n", __FILE__, line, rc, err.msg,
                code, want);
    }
}
#define EXPECT(doc, v, code, want) expect((doc), (v), (code), (want), __LINE__)

/* edit + expect + free */
#define EXPECT_EDIT(from, to, skip, v, code, want)          \
    do {                                                    \
        char *d_ = edit(BASE, (from), (to), (skip));        \
        EXPECT(d_, (v), (code), (want));                    \
        free(d_);                                           \
    } while (0)

static void test_base_and_values(void)
{
    target_desc s;
    npuc_err err;
    int rc = parse_doc(BASE, EU_U55_256, &s, &err);
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    sim_system ref;
    target_lookup_sim("Ethos_U55_High_End_Embedded", "Shared_Sram", &ref, &err);
    CHECK(sim_eq(&s.sim, &ref));
    CHECK_STR_EQ(s.name, "t");
    CHECK_STR_EQ(s.sim.name, "custom");
    CHECK_STR_EQ(s.pools[0].memory, "Sram");
    CHECK_STR_EQ(s.pools[1].memory, "OffChipFlash");

    /* size spellings */
    static const struct { const char *text; uint64_t bytes; } SIZES[] = {
        {"4096", 4096}, {"\"4096\"", 4096}, {"\"512KB\"", 512 * 1024}, {"\"512kib\"", 512 * 1024},
        {"\"2 MiB\"", 2u << 20}, {"\"2MB\"", 2u << 20}, {"\"1GB\"", 1u << 30}, {"\"64B\"", 64},
        {"\"0x80000\"", 0x80000}, {"\"0X1F\"", 31}, {"1e6", 1000000}, {"\"4GiB\"", 4ull << 30},
    };
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        char to[64];
        snprintf(to, sizeof to, "\"size\": %s,", SIZES[i].text);
        char *d = edit(BASE, "\"size\": 0,", to, 0);
        rc = parse_doc(d, EU_U55_256, &s, &err);
        CHECK_EQ_INT(rc, NPUC_OK);
        if (rc) fprintf(stderr, "  %s: %s\n", SIZES[i].text, err.msg);
        else CHECK_EQ_INT(s.pools[0].size, SIZES[i].bytes);
        free(d);
    }
    /* core_clock_mhz */
    char *d = edit(BASE, "\"core_clock_hz\": 5e8", "\"core_clock_mhz\": 250", 0);
    CHECK_EQ_INT(parse_doc(d, EU_U55_256, &s, &err), NPUC_OK);
    CHECK(s.core_clock_hz == 250e6);
    CHECK(s.sim.core_clock_hz == 250e6);
    free(d);
    /* absolute pools; 40-bit addresses on U65 */
    d = edit(BASE, "\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"0x20000000\", \"size\": \"1MB\",", 0);
    CHECK_EQ_INT(parse_doc(d, EU_U55_256, &s, &err), NPUC_OK);
    CHECK(s.pools[0].absolute && s.pools[0].offset == 0x20000000u);
    free(d);
    d = edit(BASE, "\"size\": 0,", "\"mode\": \"absolute\", \"offset\": 1099510579200, \"size\": \"1MB\",", 0);
    CHECK_EQ_INT(parse_doc(d, EU_U65_256, &s, &err), NPUC_OK);   /* 2^40 - 1 MiB */
    free(d);
    /* optional keys */
    d = edit(BASE, "\"size\": 0,", "\"size\": 0, \"cacheable\": true, \"priority\": -3, \"description\": \"d\",", 0);
    CHECK_EQ_INT(parse_doc(d, EU_U55_256, &s, &err), NPUC_OK);
    CHECK(s.pools[0].cacheable && s.pools[0].priority == -3);
    free(d);
    d = edit(BASE, "{\"name\": \"t\",", "{\"name\": \"t\", \"description\": \"x\", \"target\": \"ethos-u55-128\",", 0);
    CHECK_EQ_INT(parse_doc(d, EU_U55_128, &s, &err), NPUC_OK);
    free(d);

    /* one mixed pool: both roles, every region on its port */
    d = edit(BASE, "\"use\": \"activations\"", "\"use\": \"mixed\"", 0);
    char *d2 = edit(d, "\"use\": \"params\", \"rights\": \"r\"", "\"use\": \"mixed\", \"rights\": \"rw\"", 0);
    CHECK_EQ_INT(parse_doc(d2, EU_U55_256, &s, &err), NPUC_OK);
    CHECK_EQ_INT(s.params_pool, 0);
    CHECK_EQ_INT(s.act_pool, 0);
    for (int r = 0; r < 8; r++) CHECK_EQ_INT(s.sim.region_port[r], 0);
    CHECK(mem_eq(&s.sim.axi[1], &s.sim.axi[0]));   /* the unused port copies the used one */
    free(d);
    free(d2);

    /* priority picks among candidates; ties go to the first */
    d = edit(BASE, "\"use\": \"params\", \"rights\": \"r\"", "\"use\": \"mixed\", \"rights\": \"rw\"", 0);
    CHECK_EQ_INT(parse_doc(d, EU_U55_256, &s, &err), NPUC_OK);
    CHECK_EQ_INT(s.act_pool, 0);
    CHECK_EQ_INT(s.params_pool, 1);
    d2 = edit(d, "\"size\": 0,", "\"size\": 0, \"priority\": -1,", 1);
    CHECK_EQ_INT(parse_doc(d2, EU_U55_256, &s, &err), NPUC_OK);
    CHECK_EQ_INT(s.act_pool, 1);
    CHECK_EQ_INT(s.sim.region_port[1], 1);
    free(d);
    free(d2);

    /* a fast pool on U65: region 2 on its port */
    d = edit(BASE, "\"use\": \"activations\", \"rights\": \"rw\", \"size\": 0",
             "\"use\": \"fast\", \"rights\": \"rw\", \"size\": \"256KB\"", 0);
    d2 = edit(d, "\"use\": \"params\", \"rights\": \"r\"", "\"use\": \"mixed\", \"rights\": \"rw\"", 0);
    CHECK_EQ_INT(parse_doc(d2, EU_U65_256, &s, &err), NPUC_OK);
    CHECK_EQ_INT(s.fast_pool, 0);
    CHECK_EQ_INT(s.sim.region_port[0], 1);
    CHECK_EQ_INT(s.sim.region_port[1], 1);
    CHECK_EQ_INT(s.sim.region_port[2], 0);
    /* ... and on U55: refused */
    EXPECT(d2, EU_U55_256, NPUC_E_INVALID,
           "t.json:2:43: pools[0].use: a separate \"fast\" pool (Vela's Dedicated_Sram spilling) needs an "
           "Ethos-U65, but the target is ethos-u55-256; on Ethos-U55 give that memory \"use\": \"activations\" "
           "instead");
    free(d);
    free(d2);
}

static void test_errors(void)
{
    const eu_variant V = EU_U55_256;
    /* syntax errors come from the reader, with the source name */
    EXPECT_EDIT("\"size\": 0,", "\"size\": 0,,", 0, V, NPUC_E_FORMAT, "t.json:2:84: expected a string key, found ','");
    EXPECT_EDIT("\"size\": 0,", "\"size\": 0, \"size\": 1,", 0, V, NPUC_E_FORMAT,
                "t.json:2:85: duplicate key \"size\" (first at 2:74)");
    EXPECT("", V, NPUC_E_FORMAT, "t.json:1:1: expected a value, found end of input");
    EXPECT("[]", V, NPUC_E_INVALID, "t.json:1:1: top level: expected an object, got an array");
    EXPECT("{\"name\": \"t\"} x", V, NPUC_E_FORMAT, "t.json:1:15: unexpected 'x' after the JSON value");

    /* unknown keys, with their path */
    EXPECT_EDIT("{\"name\": \"t\",", "{\"name\": \"t\", \"colour\": 1,", 0, V, NPUC_E_INVALID,
                "t.json:1:15: colour: unknown key (valid keys: name, description, target, core_clock_hz, "
                "core_clock_mhz, pools)");
    EXPECT_EDIT("\"size\": 0,", "\"sizee\": 0,", 1, V, NPUC_E_INVALID,
                "t.json:3:78: pools[1].sizee: unknown key (valid keys: name, description, memory, use, rights, "
                "mode, offset, size, axi_port, clock_ratio, byte_width, burst_bytes, read_latency, "
                "write_latency, cacheable, priority)");
    EXPECT_EDIT("\"size\": 0,", "\"throughput\": \"HIGH\", \"size\": 0,", 0, V, NPUC_E_INVALID,
                "pools[0].throughput: unknown key");

    /* missing keys */
    EXPECT_EDIT("\"byte_width\": 8, ", "", 1, V, NPUC_E_INVALID, "t.json:3:1: pools[1]: missing key \"byte_width\"");
    EXPECT_EDIT("\"write_latency\": 32", "\"priority\": 0", 0, V, NPUC_E_INVALID,
                "pools[0]: missing key \"write_latency\"");
    EXPECT_EDIT("\"name\": \"t\", ", "", 0, V, NPUC_E_INVALID, "t.json:1:1: top level: missing key \"name\"");
    EXPECT_EDIT("\"core_clock_hz\": 5e8, ", "", 0, V, NPUC_E_INVALID,
                "top level: missing key \"core_clock_hz\" (or \"core_clock_mhz\")");
    EXPECT("{\"name\": \"t\", \"core_clock_hz\": 1e9}", V, NPUC_E_INVALID, "top level: missing key \"pools\"");
    EXPECT_EDIT("\"core_clock_hz\": 5e8", "\"core_clock_hz\": 5e8, \"core_clock_mhz\": 500", 0, V, NPUC_E_INVALID,
                "t.json:1:55: core_clock_mhz: give core_clock_hz or core_clock_mhz, not both");

    /* wrong types */
    EXPECT_EDIT("\"size\": 0,", "\"size\": [1],", 1, V, NPUC_E_INVALID,
                "t.json:3:86: pools[1].size: expected a number of bytes or a string such as \"512KB\" or "
                "\"0x80000\", got an array");
    EXPECT_EDIT("\"axi_port\": 0", "\"axi_port\": \"0\"", 0, V, NPUC_E_INVALID,
                "pools[0].axi_port: expected a number, got \"0\"");
    EXPECT_EDIT("\"size\": 0,", "\"size\": 0, \"cacheable\": 1,", 0, V, NPUC_E_INVALID,
                "pools[0].cacheable: expected true or false, got 1");
    EXPECT_EDIT("{\"name\": \"t\"", "{\"name\": 5", 0, V, NPUC_E_INVALID, "t.json:1:10: name: expected a string, got 5");
    EXPECT_EDIT("\"pools\": [", "\"pools\": {\"a\": [", 0, V, NPUC_E_FORMAT, "expected ',' or '}'");
    EXPECT("{\"name\": \"t\", \"core_clock_hz\": 1e9, \"pools\": {}}", V, NPUC_E_INVALID,
           "t.json:1:46: pools: expected an array, got an object");
    EXPECT("{\"name\": \"t\", \"core_clock_hz\": 1e9, \"pools\": [1]}", V, NPUC_E_INVALID,
           "t.json:1:47: pools[0]: expected an object, got 1");
    EXPECT_EDIT("\"core_clock_hz\": 5e8", "\"core_clock_hz\": \"500MHz\"", 0, V, NPUC_E_INVALID,
                "core_clock_hz: expected a number, got \"500MHz\"");
    EXPECT_EDIT("\"size\": 0,", "\"size\": 0, \"description\": null,", 0, V, NPUC_E_INVALID,
                "pools[0].description: expected a string, got null");

    /* ranges and values */
    EXPECT_EDIT("\"axi_port\": 0", "\"axi_port\": 2", 0, V, NPUC_E_INVALID,
                "pools[0].axi_port: must be between 0 and 1, got 2");
    EXPECT_EDIT("\"clock_ratio\": 1", "\"clock_ratio\": 0", 0, V, NPUC_E_INVALID,
                "pools[0].clock_ratio: must be greater than 0 and at most 16, got 0");
    EXPECT_EDIT("\"clock_ratio\": 1", "\"clock_ratio\": 17", 0, V, NPUC_E_INVALID, "at most 16, got 17");
    EXPECT_EDIT("\"byte_width\": 8", "\"byte_width\": 1.5", 0, V, NPUC_E_INVALID,
                "pools[0].byte_width: expected a whole number, got 1.5");
    EXPECT_EDIT("\"burst_bytes\": 32", "\"burst_bytes\": 0", 0, V, NPUC_E_INVALID,
                "pools[0].burst_bytes: must be between 1 and 4096, got 0");
    EXPECT_EDIT("\"read_latency\": 32", "\"read_latency\": 1e300", 0, V, NPUC_E_INVALID,
                "pools[0].read_latency: 1e300 is too large");
    EXPECT_EDIT("\"read_latency\": 32", "\"read_latency\": 99999999999999999999", 0, V, NPUC_E_INVALID,
                "pools[0].read_latency: 99999999999999999999 is too large");
    EXPECT_EDIT("\"read_latency\": 32", "\"read_latency\": -1", 0, V, NPUC_E_INVALID,
                "pools[0].read_latency: must be between 0 and 1000000, got -1");
    EXPECT_EDIT("\"size\": 0,", "\"size\": -1,", 0, V, NPUC_E_INVALID, "pools[0].size: must not be negative, got -1");
    EXPECT_EDIT("\"size\": 0,", "\"size\": 1.5,", 0, V, NPUC_E_INVALID, "pools[0].size: expected a whole number, got 1.5");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \"12XB\",", 0, V, NPUC_E_INVALID,
                "pools[0].size: unknown unit in \"12XB\" (use B, KB, KiB, MB, MiB, GB or GiB; K = 1024)");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \"0x\",", 0, V, NPUC_E_INVALID,
                "pools[0].size: expected a number of bytes or a string such as \"512KB\" or \"0x80000\", got \"0x\"");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \"0x10KB\",", 0, V, NPUC_E_INVALID, "got \"0x10KB\"");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \" 12\",", 0, V, NPUC_E_INVALID, "got \" 12\"");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \"99999999999999999999\",", 0, V, NPUC_E_INVALID,
                "pools[0].size: \"99999999999999999999\" is too large");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \"20000000000GiB\",", 0, V, NPUC_E_INVALID, "is too large");
    EXPECT_EDIT("\"size\": 0,", "\"size\": 1e30,", 0, V, NPUC_E_INVALID, "pools[0].size: 1e30 is too large");
    EXPECT_EDIT("\"size\": 0,", "\"size\": \"8GiB\",", 0, V, NPUC_E_INVALID,
                "pools[0].size: 0x200000000 bytes is more than the ethos-u55-256 can address (32-bit addresses)");
    {
        char *d = edit(BASE, "\"size\": 0,", "\"size\": \"8GiB\",", 0);
        target_desc s;
        npuc_err err;
        CHECK_EQ_INT(parse_doc(d, EU_U65_256, &s, &err), NPUC_OK);   /* 40-bit on U65 */
        free(d);
    }
    EXPECT_EDIT("\"core_clock_hz\": 5e8", "\"core_clock_hz\": -5", 0, V, NPUC_E_INVALID,
                "core_clock_hz: must be greater than 0 and at most 1e+10, got -5");
    EXPECT_EDIT("\"core_clock_hz\": 5e8", "\"core_clock_mhz\": 0", 0, V, NPUC_E_INVALID,
                "core_clock_mhz: must be greater than 0 and at most 10000, got 0");

    /* enumerations */
    EXPECT_EDIT("\"use\": \"activations\"", "\"use\": \"weights\"", 0, V, NPUC_E_INVALID,
                "pools[0].use: expected one of \"params\", \"activations\", \"mixed\", \"fast\", got \"weights\"");
    EXPECT_EDIT("\"rights\": \"rw\"", "\"rights\": \"RW\"", 0, V, NPUC_E_INVALID,
                "pools[0].rights: expected one of \"r\", \"rw\", got \"RW\"");
    EXPECT_EDIT("\"memory\": \"offchip_flash\"", "\"memory\": \"flash\"", 0, V, NPUC_E_INVALID,
                "pools[1].memory: expected one of \"sram\", \"dram\", \"onchip_flash\", \"offchip_flash\", "
                "got \"flash\"");
    EXPECT_EDIT("\"size\": 0,", "\"mode\": \"fixed\", \"size\": 0,", 0, V, NPUC_E_INVALID,
                "pools[0].mode: expected one of \"relative\", \"absolute\", got \"fixed\"");
    /* names */
    EXPECT_EDIT("{\"name\": \"sram\"", "{\"name\": \"my sram\"", 0, V, NPUC_E_INVALID,
                "t.json:2:10: pools[0].name: expected 1 to 31 letters, digits, '_', '-' or '.', got \"my sram\"");
    EXPECT_EDIT("{\"name\": \"sram\"", "{\"name\": \"\"", 0, V, NPUC_E_INVALID, "pools[0].name: expected 1 to 31");
    EXPECT_EDIT("{\"name\": \"sram\"", "{\"name\": \"abcdefghijabcdefghijabcdefghijab\"", 0, V, NPUC_E_INVALID,
                "pools[0].name: expected 1 to 31");
    EXPECT_EDIT("{\"name\": \"t\"", "{\"name\": \"a\\nb\"", 0, V, NPUC_E_INVALID,
                "name: expected 1 to 63 characters without control characters, got \"a?b\"");
    EXPECT_EDIT("{\"name\": \"flash\"", "{\"name\": \"sram\"", 0, V, NPUC_E_INVALID,
                "t.json:3:10: pools[1].name: \"sram\" is already the name of pools[0]");

    /* rights, absolute and relative pools */
    EXPECT_EDIT("\"rights\": \"rw\"", "\"rights\": \"r\"", 0, V, NPUC_E_INVALID,
                "t.json:2:68: pools[0].rights: a pool with \"use\": \"activations\" is written, so it needs \"rw\"");
    EXPECT_EDIT("\"size\": 0,", "\"mode\": \"absolute\", \"size\": 0,", 0, V, NPUC_E_INVALID,
                "pools[0].size: an absolute pool needs its size (0 = unlimited is only for relative pools)");
    EXPECT_EDIT("\"size\": 0,", "\"mode\": \"absolute\", \"size\": 4096,", 0, V, NPUC_E_INVALID,
                "t.json:2:1: pools[0]: missing key \"offset\" (required with \"mode\": \"absolute\")");
    EXPECT_EDIT("\"size\": 0,", "\"offset\": 0, \"size\": 0,", 0, V, NPUC_E_INVALID,
                "pools[0].offset: only allowed with \"mode\": \"absolute\" (a relative pool is placed by the "
                "application)");
    EXPECT_EDIT("\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"0xFFFFF000\", \"size\": \"1MB\",", 0, V,
                NPUC_E_INVALID, "pools[0].offset: 0xfffff000 + 0x100000 bytes ends beyond the 32-bit address space "
                                "of the ethos-u55-256");
    EXPECT_EDIT("\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"1MB\", \"size\": 16,", 0, V, NPUC_E_INVALID,
                "pools[0].offset: expected a number or a string such as \"0x20000000\", got \"1MB\"");
    EXPECT_EDIT("\"size\": 0,", "\"mode\": \"absolute\", \"offset\": true, \"size\": 16,", 0, V, NPUC_E_INVALID,
                "pools[0].offset: expected a number or a string such as \"0x20000000\", got true");
    {
        char *d = edit(BASE, "\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"0x1000\", \"size\": \"8KB\",", 0);
        char *d2 = edit(d, "\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"0x2000\", \"size\": 16,", 0);
        EXPECT(d2, V, NPUC_E_INVALID,
               "pools[1].offset: 0x2000..0x200f overlaps pools[0] \"sram\" at 0x1000..0x2fff");
        free(d2);
        d2 = edit(d, "\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"0x3000\", \"size\": 16,", 0);
        target_desc s;
        npuc_err err;
        CHECK_EQ_INT(parse_doc(d2, V, &s, &err), NPUC_OK);   /* adjacent is fine */
        free(d2);
        free(d);
    }

    /* roles */
    EXPECT_EDIT("\"use\": \"params\", \"rights\": \"r\"", "\"use\": \"activations\", \"rights\": \"rw\"", 0, V,
                NPUC_E_INVALID, "t.json:1:46: pools: no pool can hold the parameters (give one pool \"use\": "
                                "\"params\" or \"mixed\")");
    EXPECT_EDIT("\"use\": \"activations\"", "\"use\": \"params\"", 0, V, NPUC_E_INVALID,
                "pools: no pool can hold the activations (give one pool \"use\": \"activations\" or \"mixed\")");
    EXPECT_EDIT("\"use\": \"activations\", \"rights\": \"rw\", \"size\": 0",
                "\"use\": \"fast\", \"rights\": \"rw\", \"size\": 0", 0, EU_U65_256, NPUC_E_INVALID,
                "pools[0].size: a fast pool needs its size (it is a hard limit, like Vela's arena_cache_size)");
    /* two used pools on one port must describe one memory */
    EXPECT_EDIT("\"axi_port\": 1", "\"axi_port\": 0", 0, V, NPUC_E_INVALID,
                "t.json:3:29: pools[1]: \"flash\" (params) and \"sram\" (activations) are both on AXI0 but differ "
                "in memory; the cycle model has one memory per AXI port, so make them equal or move one to the "
                "other port");
    {
        char *d = edit(BASE, "\"axi_port\": 1, \"clock_ratio\": 0.125", "\"axi_port\": 0, \"clock_ratio\": 0.125", 0);
        char *d2 = edit(d, "\"memory\": \"offchip_flash\"", "\"memory\": \"sram\"", 0);
        EXPECT(d2, V, NPUC_E_INVALID, "t.json:3:110: pools[1]: \"flash\" (params) and \"sram\" (activations) are "
                                      "both on AXI0 but differ in clock_ratio");
        free(d);
        free(d2);
    }

    /* target */
    EXPECT_EDIT("{\"name\": \"t\",", "{\"name\": \"t\", \"target\": \"ethos-u65-256\",", 0, V, NPUC_E_INVALID,
                "t.json:1:25: target: the file describes an ethos-u65-256 system, but the target is ethos-u55-256");
    EXPECT_EDIT("{\"name\": \"t\",", "{\"name\": \"t\", \"target\": \"ethos-u55-128\",", 0, V, NPUC_E_INVALID,
                "target: the file describes an ethos-u55-128 system, but the target is ethos-u55-256");
    EXPECT_EDIT("{\"name\": \"t\",", "{\"name\": \"t\", \"target\": \"ethos-u85\",", 0, V, NPUC_E_INVALID,
                "target: unknown target \"ethos-u85\" (valid: ethos-u55, ethos-u65, ethos-u55-32, ethos-u55-64, "
                "ethos-u55-128, ethos-u55-256, ethos-u65-256, ethos-u65-512)");
    EXPECT_EDIT("{\"name\": \"t\",", "{\"name\": \"t\", \"target\": 55,", 0, V, NPUC_E_INVALID,
                "target: expected a string, got 55");

    /* pool count */
    EXPECT("{\"name\": \"t\", \"core_clock_hz\": 1e9, \"pools\": []}", V, NPUC_E_INVALID,
           "pools: expected 1 to 8 pools, got 0");
    {
        const char *pool = "{\"name\": \"p%d\", \"memory\": \"sram\", \"use\": \"mixed\", \"rights\": \"rw\", "
                           "\"size\": 0, \"axi_port\": 0, \"clock_ratio\": 1, \"byte_width\": 8, "
                           "\"burst_bytes\": 32, \"read_latency\": 32, \"write_latency\": 32}";
        char doc[4096];
        for (int n = 8; n <= 9; n++) {
            size_t o = (size_t)snprintf(doc, sizeof doc, "{\"name\": \"t\", \"core_clock_hz\": 1e9, \"pools\": [");
            for (int i = 0; i < n; i++) {
                if (i) doc[o++] = ',';
                o += (size_t)snprintf(doc + o, sizeof doc - o, pool, i);
            }
            snprintf(doc + o, sizeof doc - o, "]}");
            target_desc s;
            npuc_err err;
            if (n == 8) {
                CHECK_EQ_INT(parse_doc(doc, V, &s, &err), NPUC_OK);
                CHECK_EQ_INT(s.n_pools, 8);
            } else {
                EXPECT(doc, V, NPUC_E_INVALID, "pools: expected 1 to 8 pools, got 9");
            }
        }
    }

    /* size of the file */
    {
        size_t n = (1u << 20) + 10;
        char *big = malloc(n);
        memset(big, ' ', n);
        memcpy(big, BASE, strlen(BASE));
        target_desc s;
        npuc_err err;
        CHECK_EQ_INT(target_parse_json(big, n, "big.json", V, &s, &err), NPUC_E_FORMAT);
        CHECK_STR_EQ(err.msg, "big.json: 1048586 bytes, more than the limit of 1048576 for this file");
        free(big);
    }
    /* arguments */
    {
        target_desc s;
        npuc_err err;
        CHECK_EQ_INT(target_parse_json(NULL, 3, "x", V, &s, &err), NPUC_E_USAGE);
        CHECK_EQ_INT(target_parse_json(BASE, strlen(BASE), NULL, (eu_variant)-1, &s, &err), NPUC_E_USAGE);
        /* no source name: "<system>" */
        CHECK_EQ_INT(target_parse_json("[", 1, NULL, V, &s, &err), NPUC_E_FORMAT);
        CHECK_STR_EQ(err.msg, "<system>:1:2: expected a value, found end of input");
    }
}

/* A file on disk that is also a (bad) system: errors carry its path. */
static void test_file_errors(void)
{
    char path[] = "/tmp/npuc_test_cc_system_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    fputs("{\n  \"name\": \"x\",\n  \"core_clock_hz\": 1e9,\n  \"pools\": [\n    {\"name\": \"m\", \"size\": \"1XB\"}\n  ]\n}\n", f);
    fclose(f);
    target_desc s;
    npuc_err err;
    CHECK_EQ_INT(load_system(path, EU_U55_256, &s, &err), NPUC_E_INVALID);
    char want[300];
    snprintf(want, sizeof want, "%s:5:5: pools[0]: missing key \"memory\"", path);
    CHECK_STR_EQ(err.msg, want);
    remove(path);
}

/* ------------------------------------------------------ the grammar */

static int load3(const char *config, const char *sys, const char *mode, eu_variant v, target_desc *t,
                 npuc_err *err)
{
    target_spec s = {.config = config, .system_config = sys, .memory_mode = mode};
    memset(err, 0, sizeof *err);
    return target_load(&s, v, t, err);
}

/* Same description: names, roles, every pool field, the sim_system. */
static bool desc_eq(const target_desc *a, const target_desc *b)
{
    if (strcmp(a->name, b->name) || a->variant != b->variant || a->core_clock_hz != b->core_clock_hz ||
        a->n_pools != b->n_pools || a->params_pool != b->params_pool || a->act_pool != b->act_pool ||
        a->fast_pool != b->fast_pool || strcmp(a->system_config, b->system_config) ||
        strcmp(a->memory_mode, b->memory_mode) || strcmp(a->sim.name, b->sim.name) || !sim_eq(&a->sim, &b->sim))
        return false;
    for (int i = 0; i < a->n_pools; i++) {
        const target_pool *p = &a->pools[i], *q = &b->pools[i];
        if (strcmp(p->name, q->name) || p->use != q->use || p->writable != q->writable ||
            p->absolute != q->absolute || p->offset != q->offset || p->size != q->size ||
            p->axi_port != q->axi_port || p->clock_ratio != q->clock_ratio || p->byte_width != q->byte_width ||
            p->burst_bytes != q->burst_bytes || p->read_latency != q->read_latency ||
            p->write_latency != q->write_latency || p->cacheable != q->cacheable || p->priority != q->priority ||
            strcmp(p->memory, q->memory))
            return false;
    }
    return true;
}

static void test_grammar(void)
{
    npuc_err err;
    target_desc a, b;
    /* SYSTEM:MODE = SYSTEM with --memory-mode MODE = target_builtin */
    CHECK_EQ_INT(load3(NULL, "Ethos_U65_Mid_End:Shared_Sram", NULL, EU_U65_256, &a, &err), NPUC_OK);
    CHECK_EQ_INT(load3(NULL, "Ethos_U65_Mid_End", "Shared_Sram", EU_U65_256, &b, &err), NPUC_OK);
    CHECK(desc_eq(&a, &b));
    CHECK_EQ_INT(target_builtin("ethos_u65_mid_end", "shared_sram", EU_U65_256, &b, &err), NPUC_OK);
    CHECK(desc_eq(&a, &b));
    CHECK_STR_EQ(a.system_config, "Ethos_U65_Mid_End");
    CHECK_STR_EQ(a.memory_mode, "Shared_Sram");
    /* --memory-mode alone: the variant's default system config */
    CHECK_EQ_INT(load3(NULL, NULL, "Sram_Only", EU_U55_64, &a, &err), NPUC_OK);
    CHECK_STR_EQ(a.name, "Ethos_U55_High_End_Embedded:Sram_Only");
    CHECK_EQ_INT(load3(NULL, NULL, "Dedicated_Sram_512KB", EU_U65_512, &a, &err), NPUC_OK);
    CHECK_STR_EQ(a.name, "Ethos_U65_High_End:Dedicated_Sram_512KB");
    /* nothing: the default */
    CHECK_EQ_INT(load3(NULL, NULL, NULL, EU_U65_256, &a, &err), NPUC_OK);
    CHECK_EQ_INT(target_default(EU_U65_256, &b, &err), NPUC_OK);
    CHECK(desc_eq(&a, &b));
    CHECK_EQ_INT(target_load(NULL, EU_U65_256, &a, &err), NPUC_OK);
    CHECK(desc_eq(&a, &b));
    /* a bare system takes its default mode: Dedicated_Sram where AXI1 is
     * Dram on an Ethos-U65, Shared_Sram elsewhere (the bug of `run`: one
     * rule now, whatever the command) */
    CHECK_EQ_INT(load3(NULL, "Ethos_U65_Embedded", NULL, EU_U65_256, &a, &err), NPUC_OK);
    CHECK_STR_EQ(a.name, "Ethos_U65_Embedded:Shared_Sram");
    /* errors */
    CHECK_EQ_INT(load3(NULL, "Ethos_U65_Mid_End:Shared_Sram", "Sram_Only", EU_U65_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "'Ethos_U65_Mid_End:Shared_Sram' names a memory mode, and --memory-mode gives another: "
                          "give the memory mode once");
    CHECK_EQ_INT(load3(NULL, "Ethos_U65_Mid_End", "Nope", EU_U65_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "unknown memory mode 'Nope' in 'Ethos_U65_Mid_End:Nope' (valid: Sram_Only, Shared_Sram, "
                          "Dedicated_Sram, Dedicated_Sram_256KB, Dedicated_Sram_384KB, Dedicated_Sram_512KB)");
    CHECK_EQ_INT(load3(NULL, NULL, "Nope", EU_U55_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown memory mode 'Nope'");
    CHECK_EQ_INT(load3(NULL, "Bogus", NULL, EU_U55_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown system config 'Bogus'");
    CHECK_EQ_INT(load3(NULL, "cfg/vela.ini", NULL, EU_U55_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "'cfg/vela.ini' is a Vela configuration file: give it with --config and name its section "
                          "with --system-config (and --memory-mode)");
    CHECK_EQ_INT(load3("x.ini", "board.json", NULL, EU_U55_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "names a JSON file, but --config gives a vela.ini");
    CHECK_EQ_INT(load3(NULL, "", NULL, EU_U55_256, &a, &err), NPUC_E_USAGE);
    CHECK_EQ_INT(load3(NULL, NULL, NULL, (eu_variant)7, &a, &err), NPUC_E_USAGE);
    /* --memory-mode with a JSON file */
    char root[512], path[600];
    snprintf(path, sizeof path, "%s/configs/corstone-300-u55.json", src_dir(root, sizeof root));
    CHECK_EQ_INT(load3(NULL, path, NULL, EU_U55_256, &a, &err), NPUC_OK);
    CHECK_STR_EQ(a.system_config, "");
    CHECK_EQ_INT(load3(NULL, path, "Shared_Sram", EU_U55_256, &a, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "--memory-mode applies to built-in and vela.ini systems");
    /* a --config file that is not there */
    CHECK_EQ_INT(load3("/no/such/vela.ini", NULL, NULL, EU_U55_256, &a, &err), NPUC_E_IO);
    CHECK_STR_CONTAINS(err.msg, "/no/such/vela.ini");
}

/* -------------------------------------------------------------- vela.ini */

static int ini(const char *text, const char *sys, const char *mode, eu_variant v, target_desc *t, npuc_err *err)
{
    memset(err, 0, sizeof *err);
    return target_parse_ini(text, strlen(text), "v.ini", sys, mode, v, t, err);
}

static void test_vela_ini_reference(void)
{
    const char *shared = getenv("NPUC_SHARED");
    if (!shared) {
        printf("SKIP vela.ini: shared folder absent (set NPUC_SHARED)\n");
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/oracle/vela.ini", shared);
    uint8_t *data;
    size_t size;
    npuc_err err;
    int rc = npuc_read_file(path, &data, &size, &err);
    CHECK_EQ_INT(rc, NPUC_OK);
    if (rc) return;
    const char *text = (const char *)data;
    /* Arm's file gives exactly the built-ins, for every SYSTEM:MODE and
     * variant of the system's family */
    int same = 0;
    for (size_t si = 0; si < 6; si++)
        for (size_t mi = 0; mi < N_MODE; mi++)
            for (size_t vi = 0; vi < 6; vi++) {
                target_desc a, b;
                npuc_err e1, e2;
                int ra = target_builtin(SYS[si], MODE[mi], ALL[vi], &a, &e1);
                int rb = target_parse_ini(text, size, path, SYS[si], MODE[mi], ALL[vi], &b, &e2);
                CHECK_EQ_INT(ra == NPUC_OK, rb == NPUC_OK);
                if (ra || rb) continue;
                same++;
                t_checks++;
                if (!desc_eq(&a, &b)) {
                    t_failures++;
                    fprintf(stderr, "vela.ini %s:%s on %s differs from the built-in\n", SYS[si], MODE[mi],
                            target_variant_name(ALL[vi]));
                }
            }
    CHECK_EQ_INT(same, 4 * 4 + 20 * 2);   /* 4 U55 names on 4 variants, 20 U65 names on 2 */
    /* the defaults: no names = the variant's default system and its mode */
    for (size_t vi = 0; vi < 6; vi++) {
        target_desc a, b;
        CHECK_EQ_INT(target_parse_ini(text, size, path, NULL, NULL, ALL[vi], &a, &err), NPUC_OK);
        CHECK_EQ_INT(target_default(ALL[vi], &b, &err), NPUC_OK);
        CHECK(desc_eq(&a, &b));
    }
    /* its other memory modes: arena_cache_size through inheritance */
    target_desc t;
    CHECK_EQ_INT(target_parse_ini(text, size, path, "Ethos_U65_High_End", "Dedicated_Sram_256KB", EU_U65_256, &t,
                                  &err), NPUC_OK);
    CHECK(t.fast_pool >= 0 && t.pools[t.fast_pool].size == 256 * 1024);
    CHECK_EQ_INT(target_parse_ini(text, size, path, "Ethos_U65_Client_Server", "Dedicated_Sram_384KB", EU_U65_512,
                                  &t, &err), NPUC_OK);
    CHECK(t.fast_pool >= 0 && t.pools[t.fast_pool].size == 384 * 1024);
    CHECK_STR_EQ(t.name, "Ethos_U65_Client_Server:Dedicated_Sram_384KB");
    /* the Ethos-U85 sections are read (and checked), but not for these NPUs */
    CHECK_EQ_INT(target_parse_ini(text, size, path, "Ethos_U85_SYS_DRAM_High", "Shared_Sram", EU_U55_256, &t, &err),
                 NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "system 'Ethos_U85_SYS_DRAM_High:Shared_Sram' is for an Ethos-U85, which npuc does not "
                          "compile for (choose one of the Ethos_U55_* systems)");
    /* the same through target_load (--config) */
    target_desc a;
    CHECK_EQ_INT(load3(path, "Ethos_U55_Deep_Embedded:Sram_Only", NULL, EU_U55_32, &a, &err), NPUC_OK);
    CHECK_EQ_INT(target_builtin("Ethos_U55_Deep_Embedded", "Sram_Only", EU_U55_32, &t, &err), NPUC_OK);
    CHECK(desc_eq(&a, &t));
    CHECK_EQ_INT(load3(path, "Ethos_U55_Deep_Embedded", "Nope", EU_U55_32, &a, &err), NPUC_E_USAGE);
    char want[900];
    snprintf(want, sizeof want, "%s: no section [Memory_Mode.Nope] (memory modes in the file: Sram_Only, "
             "Shared_Sram, Dedicated_Sram, Dedicated_Sram_256KB, Dedicated_Sram_384KB, Dedicated_Sram_512KB)", path);
    CHECK_STR_EQ(err.msg, want);
    free(data);
}

/* A small file: a base system, one that inherits it and changes the DRAM,
 * one more level, and modes with inheritance. */
static const char *INI =
    "; a test\n"
    "# another comment\n"
    "[System_Config.Base]\n"
    "core_clock = 500e6\n"
    "axi0_port = Sram\n"
    "axi1_port = Dram\n"
    "Sram_clock_scale = 1.0\n"
    "Sram_burst_length = 32\n"
    "Sram_read_latency = 32\n"
    "Sram_write_latency = 32\n"
    "Dram_clock_scale = 0.5\n"
    "Dram_burst_length = 128\n"
    "Dram_read_latency = 500\n"
    "Dram_write_latency = 250\n"
    "\n"
    "[System_Config.Fast_Dram]\n"
    "inherit=System_Config.Base\n"
    "dram_clock_scale: 0.75\n"
    "\n"
    "[System_Config.Faster]\n"
    "inherit=System_Config.Fast_Dram\n"
    "core_clock=1e9\n"
    "Sram_max_reads=16\n"
    "\n"
    "[Memory_Mode.Dedicated]\n"
    "const_mem_area=Axi1\n"
    "arena_mem_area=Axi1\n"
    "cache_mem_area=Axi0\n"
    "\n"
    "[Memory_Mode.Dedicated_1MB]\n"
    "inherit=Memory_Mode.Dedicated\n"
    "arena_cache_size=1048576\n"
    "\n"
    "[Memory_Mode.Shared_256KB]\n"
    "const_mem_area=Axi1\n"
    "arena_mem_area=Axi0\n"
    "cache_mem_area=Axi0\n"
    "arena_cache_size=262144\n";

static void test_vela_ini_inheritance(void)
{
    npuc_err err;
    target_desc t;
    CHECK_EQ_INT(ini(INI, "Faster", "Dedicated_1MB", EU_U65_256, &t, &err), NPUC_OK);
    if (err.msg[0]) fprintf(stderr, "  %s\n", err.msg);
    CHECK_STR_EQ(t.name, "Faster:Dedicated_1MB");
    CHECK_STR_EQ(t.sim.name, "Faster");
    CHECK(t.core_clock_hz == 1e9);                        /* its own */
    CHECK_EQ_INT(t.n_pools, 2);
    CHECK(t.fast_pool == 0 && t.pools[0].size == 1048576);  /* Dedicated_1MB's own, Dedicated's ports */
    CHECK(t.pools[1].clock_ratio == 0.75);                  /* Fast_Dram's (the key in another case) */
    CHECK_EQ_INT(t.pools[1].read_latency, 500);             /* Base's */
    CHECK_EQ_INT(t.pools[1].byte_width, 16);                /* the U65's AXI width */
    CHECK_STR_EQ(t.pools[1].memory, "Dram");
    /* the parent keeps its values */
    CHECK_EQ_INT(ini(INI, "Base", "Dedicated", EU_U65_256, &t, &err), NPUC_OK);
    CHECK(t.core_clock_hz == 500e6 && t.pools[1].clock_ratio == 0.5);
    CHECK_EQ_INT(t.pools[0].size, TARGET_FAST_NO_LIMIT);     /* no arena_cache_size: no limit, as Vela */
    /* no mode given: Dedicated_Sram is the default on a U65 with DRAM, and this file has none */
    CHECK_EQ_INT(ini(INI, "Base", NULL, EU_U65_256, &t, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "v.ini: no section [Memory_Mode.Dedicated_Sram] (memory modes in the file: Dedicated, "
                          "Dedicated_1MB, Shared_256KB)");
    /* no system given: the variant's default name */
    CHECK_EQ_INT(ini(INI, NULL, "Dedicated", EU_U65_256, &t, &err), NPUC_E_USAGE);
    CHECK_STR_EQ(err.msg, "v.ini: no section [System_Config.Ethos_U65_High_End] (the default for ethos-u65-256) "
                          "(system configs in the file: Base, Fast_Dram, Faster)");
    /* arena_cache_size without spilling limits the arena */
    CHECK_EQ_INT(ini(INI, "Base", "Shared_256KB", EU_U55_128, &t, &err), NPUC_OK);
    CHECK_EQ_INT(t.pools[t.act_pool].size, 262144);
    CHECK_EQ_INT(t.fast_pool, -1);
    CHECK_EQ_INT(t.pools[t.act_pool].byte_width, 8);
    /* spilling needs an Ethos-U65 */
    CHECK_EQ_INT(ini(INI, "Base", "Dedicated", EU_U55_128, &t, &err), NPUC_E_INVALID);
    CHECK_STR_EQ(err.msg, "v.ini:25: [Memory_Mode.Dedicated]: the cache (AXI0) is apart from the tensor arena (AXI1): "
                          "Vela's spilling, which needs an Ethos-U65, but the target is ethos-u55-128");
    /* a record of an ini system carries the names and replays exactly */
    CHECK_EQ_INT(ini(INI, "Faster", "Dedicated_1MB", EU_U65_512, &t, &err), NPUC_OK);
    char *text;
    size_t len;
    CHECK_EQ_INT(target_record_write(&t, &text, &len, &err), NPUC_OK);
    target_desc r;
    CHECK_EQ_INT(target_record_parse(text, len, "rec", &r, &err), NPUC_OK);
    CHECK(desc_eq(&t, &r));
    free(text);
}

/* One check per kind of malformed file: the exact message, naming the
 * file, the line and the key. */
static void test_vela_ini_errors(void)
{
    static const struct {
        const char *text, *sys, *mode;
        int code;
        const char *msg;
    } CASES[] = {
        {"[Foo.Bar]\n", "S", "M", NPUC_E_INVALID,
         "v.ini:1: [Foo.Bar]: unknown section (npuc reads [System_Config.NAME] and [Memory_Mode.NAME])"},
        {"[DEFAULT]\nx=1\n", "S", "M", NPUC_E_INVALID,
         "v.ini:1: [DEFAULT]: unknown section (npuc reads [System_Config.NAME] and [Memory_Mode.NAME])"},
        {"[System_Config.]\n", "S", "M", NPUC_E_INVALID,
         "v.ini:1: [System_Config.]: the name after 'System_Config.' must be 1 to 63 characters without spaces or ':'"},
        {"[System_Config.A:B]\n", "S", "M", NPUC_E_INVALID,
         "v.ini:1: [System_Config.A:B]: the name after 'System_Config.' must be 1 to 63 characters without spaces "
         "or ':'"},
        {"\n[System_Config.S\n", "S", "M", NPUC_E_INVALID, "v.ini:2: section header without its ']': '[System_Config.S'"},
        {"[System_Config.S]\n[Memory_Mode.M]\n[System_Config.S]\n", "S", "M", NPUC_E_INVALID,
         "v.ini:3: [System_Config.S]: duplicate section (first at line 1)"},
        {"core_clock=1\n", "S", "M", NPUC_E_INVALID, "v.ini:1: key 'core_clock' outside a section"},
        {"[System_Config.S]\n=1\n", "S", "M", NPUC_E_INVALID, "v.ini:2: missing key before '='"},
        {"[System_Config.S]\nhello\n", "S", "M", NPUC_E_INVALID, "v.ini:2: expected [section] or key=value, got 'hello'"},
        {"[System_Config.S]\ncore_clok=1e9\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] core_clok: unknown key (valid: core_clock, axi0_port, axi1_port, inherit, and "
         "MEM_clock_scale, MEM_burst_length, MEM_read_latency, MEM_write_latency, MEM_max_reads, MEM_max_writes, "
         "MEM_ports_used with MEM one of Sram, Dram, OnChipFlash, OffChipFlash)"},
        {"[System_Config.S]\nFlash_clock_scale=1\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] Flash_clock_scale: unknown key"},
        {"[Memory_Mode.M]\ncore_clock=1\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.M] core_clock: unknown key (valid: const_mem_area, arena_mem_area, cache_mem_area, "
         "arena_cache_size, inherit)"},
        {"[System_Config.S]\ncore_clock=1e9\n\nCore_Clock=2e9\n", "S", "M", NPUC_E_INVALID,
         "v.ini:4: [System_Config.S] Core_Clock: duplicate key (first at line 2)"},
        {"[System_Config.S]\ncore_clock=fast\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] core_clock: expected a number of Hz greater than 0 and at most 1e10, got 'fast'"},
        {"[System_Config.S]\ncore_clock=500e6 ; MHz\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] core_clock: expected a number of Hz greater than 0 and at most 1e10, got "
         "'500e6 ; MHz'"},
        {"[System_Config.S]\ncore_clock=-1\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] core_clock: expected a number of Hz greater than 0"},
        {"[System_Config.S]\nDram_clock_scale=nan\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] Dram_clock_scale: expected a number greater than 0 and at most 16, got 'nan'"},
        {"[System_Config.S]\nSram_burst_length=32.0\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] Sram_burst_length: expected a whole number from 1 to 4096, got '32.0'"},
        {"[System_Config.S]\nOffChipFlash_read_latency=0x40\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] OffChipFlash_read_latency: expected a whole number from 0 to 1000000, got '0x40'"},
        {"[System_Config.S]\naxi1_port=Flash\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [System_Config.S] axi1_port: expected Sram, Dram, OnChipFlash or OffChipFlash, got 'Flash'"},
        {"[Memory_Mode.M]\narena_mem_area=Axi2\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.M] arena_mem_area: expected Axi0 or Axi1, got 'Axi2'"},
        {"[Memory_Mode.M]\narena_cache_size=256KB\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.M] arena_cache_size: expected a whole number of bytes from 1 to 1099511627776, got "
         "'256KB'"},
        {"[Memory_Mode.M]\ninherit=Memory_Mode.Z\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.M] inherit: no section [Memory_Mode.Z] in the file"},
        {"[Memory_Mode.M]\ninherit=Shared_Sram\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.M] inherit: no section [Shared_Sram] in the file"},
        {"[System_Config.S]\n[Memory_Mode.M]\ninherit=System_Config.S\n", "S", "M", NPUC_E_INVALID,
         "v.ini:3: [Memory_Mode.M] inherit: [System_Config.S] is a System_Config section; a Memory_Mode section "
         "can only inherit another Memory_Mode section"},
        {"[Memory_Mode.M]\ninherit=Memory_Mode.M\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.M] inherit: inheritance loop [Memory_Mode.M] -> [Memory_Mode.M]"},
        {"[Memory_Mode.A]\ninherit=Memory_Mode.B\n[Memory_Mode.B]\ninherit=Memory_Mode.C\n[Memory_Mode.C]\n"
         "inherit=Memory_Mode.A\n", "S", "M", NPUC_E_INVALID,
         "v.ini:2: [Memory_Mode.A] inherit: inheritance loop [Memory_Mode.A] -> [Memory_Mode.B] -> [Memory_Mode.C] -> "
         "[Memory_Mode.A]"},
        /* the selection */
        {"[System_Config.S]\n", "T", "M", NPUC_E_USAGE, "v.ini: no section [System_Config.T] (system configs in the file: S)"},
        {"[System_Config.S]\ncore_clock=1e9\n", "S", "M", NPUC_E_INVALID,
         "v.ini:1: [System_Config.S]: missing key 'axi0_port'"},
        {"[System_Config.S]\ncore_clock=1e9\naxi0_port=Sram\naxi1_port=OffChipFlash\nSram_clock_scale=1\n"
         "Sram_burst_length=32\nSram_read_latency=32\nSram_write_latency=32\n[Memory_Mode.M]\n", "S", "M",
         NPUC_E_INVALID, "v.ini:1: [System_Config.S]: missing key 'OffChipFlash_clock_scale' (AXI1 is OffChipFlash)"},
        {"[System_Config.S]\ncore_clock=1e9\naxi0_port=Sram\naxi1_port=Sram\nSram_clock_scale=1\n"
         "Sram_burst_length=32\nSram_read_latency=32\nSram_write_latency=32\n[Memory_Mode.M]\nconst_mem_area=Axi0\n",
         "S", "M", NPUC_E_INVALID, "v.ini:9: [Memory_Mode.M]: missing key 'arena_mem_area'"},
        {"[System_Config.S]\ncore_clock=1e9\naxi0_port=Sram\naxi1_port=Sram\nSram_clock_scale=1\n"
         "Sram_burst_length=32\nSram_read_latency=32\nSram_write_latency=32\n[Memory_Mode.M]\nconst_mem_area=Axi1\n"
         "arena_mem_area=Axi0\ncache_mem_area=Axi0\n", "S", "M", NPUC_E_INVALID,
         "v.ini: memory mode M puts constants on AXI1, which is Sram in S; constants need Dram or flash"},
        {"[System_Config.S]\ncore_clock=1e9\naxi0_port=OffChipFlash\naxi1_port=Sram\nOffChipFlash_clock_scale=1\n"
         "OffChipFlash_burst_length=32\nOffChipFlash_read_latency=32\nOffChipFlash_write_latency=32\n"
         "Sram_clock_scale=1\nSram_burst_length=32\nSram_read_latency=32\nSram_write_latency=32\n[Memory_Mode.M]\n"
         "const_mem_area=Axi0\narena_mem_area=Axi0\ncache_mem_area=Axi1\n", "S", "M", NPUC_E_INVALID,
         "v.ini: memory mode M puts the tensor arena on AXI0, which is OffChipFlash in S; the arena needs Sram or Dram"},
        {"[System_Config.S]\ncore_clock=1e9\naxi0_port=Dram\naxi1_port=OffChipFlash\nOffChipFlash_clock_scale=1\n"
         "OffChipFlash_burst_length=32\nOffChipFlash_read_latency=32\nOffChipFlash_write_latency=32\n"
         "Dram_clock_scale=1\nDram_burst_length=32\nDram_read_latency=32\nDram_write_latency=32\n[Memory_Mode.M]\n"
         "const_mem_area=Axi1\narena_mem_area=Axi0\ncache_mem_area=Axi0\n", "S", "M", NPUC_E_INVALID,
         "v.ini: memory mode M puts the cache on AXI0, which is Dram in S; the cache needs Sram"},
        {"[System_Config.S]\x00\n", "S", "M", NPUC_E_FORMAT, "v.ini: not a text file (it holds a NUL byte)"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        target_desc t;
        npuc_err err;
        memset(&err, 0, sizeof err);
        size_t n = strlen(CASES[i].text);
        if (strstr(CASES[i].msg, "NUL")) n += 2;   /* the text holds a NUL */
        int rc = target_parse_ini(CASES[i].text, n, "v.ini", CASES[i].sys, CASES[i].mode, EU_U65_256, &t, &err);
        t_checks++;
        if (rc != CASES[i].code || strncmp(err.msg, CASES[i].msg, strlen(CASES[i].msg)) != 0) {
            t_failures++;
            fprintf(stderr, "ini case %zu: got rc %d \"%s\"\n  want rc %d \"%s\"\n", i, rc, err.msg, CASES[i].code,
                    CASES[i].msg);
        }
    }
    /* a file that is not there, through --config, and a big one */
    target_desc t;
    npuc_err err;
    size_t n = (1u << 20) + 1;
    char *big = malloc(n);
    memset(big, ';', n);
    CHECK_EQ_INT(target_parse_ini(big, n, "big.ini", NULL, NULL, EU_U55_256, &t, &err), NPUC_E_FORMAT);
    CHECK_STR_EQ(err.msg, "big.ini: 1048577 bytes, more than the limit of 1048576 for this file");
    free(big);
    CHECK_EQ_INT(target_parse_ini(NULL, 1, "x", NULL, NULL, EU_U55_256, &t, &err), NPUC_E_USAGE);
    /* CRLF line ends, a UTF-8 byte order mark, ':' as the separator */
    const char *crlf = "\xEF\xBB\xBF[System_Config.S]\r\ncore_clock: 1e9\r\naxi0_port=Sram\r\naxi1_port=Dram\r\n"
                       "Sram_clock_scale=1\r\nSram_burst_length=32\r\nSram_read_latency=32\r\nSram_write_latency=32\r\n"
                       "Dram_clock_scale=1\r\nDram_burst_length=32\r\nDram_read_latency=32\r\nDram_write_latency=32\r\n"
                       "[Memory_Mode.M]\r\nconst_mem_area=axi1\r\narena_mem_area=AXI0\r\ncache_mem_area=Axi0\r\n";
    CHECK_EQ_INT(ini(crlf, "S", "M", EU_U55_256, &t, &err), NPUC_OK);
    if (err.msg[0]) fprintf(stderr, "  %s\n", err.msg);
}

/* ------------------------------------------------------------ records */

static void test_records(void)
{
    npuc_err err;
    /* every built-in and every variant round-trips exactly */
    for (size_t k = 0; k < 18; k++) {
        const char *name = target_builtin_names()[k];
        for (size_t vi = 0; vi < 6; vi++) {
            target_desc t, r;
            if (load3(NULL, name, NULL, ALL[vi], &t, &err)) continue;
            char *text;
            size_t len;
            CHECK_EQ_INT(target_record_write(&t, &text, &len, &err), NPUC_OK);
            CHECK_EQ_INT(strlen(text), len);
            CHECK(!strchr(text, '\n'));
            CHECK_EQ_INT(target_record_parse(text, len, "rec", &r, &err), NPUC_OK);
            t_checks++;
            if (!desc_eq(&t, &r)) {
                t_failures++;
                fprintf(stderr, "record of %s on %s does not replay: %s\n", name, target_variant_name(ALL[vi]), text);
            }
            free(text);
        }
    }
    /* the default's record, exactly (docs/system-config.md shows it) */
    target_desc t, r;
    CHECK_EQ_INT(target_default(EU_U55_256, &t, &err), NPUC_OK);
    char *text;
    size_t len;
    CHECK_EQ_INT(target_record_write(&t, &text, &len, &err), NPUC_OK);
    CHECK_STR_EQ(text, "{\"npuc_target\":1,\"name\":\"Ethos_U55_High_End_Embedded:Shared_Sram\",\"target\":"
                       "\"ethos-u55-256\",\"system_config\":\"Ethos_U55_High_End_Embedded\",\"memory_mode\":"
                       "\"Shared_Sram\",\"core_clock_hz\":500000000,\"pools\":[{\"name\":\"sram\",\"memory\":\"sram\","
                       "\"use\":\"activations\",\"rights\":\"rw\",\"size\":0,\"axi_port\":0,\"clock_ratio\":1,"
                       "\"byte_width\":8,\"burst_bytes\":32,\"read_latency\":32,\"write_latency\":32},{\"name\":"
                       "\"flash\",\"memory\":\"offchip_flash\",\"use\":\"params\",\"rights\":\"r\",\"size\":0,"
                       "\"axi_port\":1,\"clock_ratio\":0.125,\"byte_width\":8,\"burst_bytes\":128,\"read_latency\":64,"
                       "\"write_latency\":0}]}");
    free(text);
    /* a JSON file with absolute, cacheable and prioritised pools */
    char root[512], path[600];
    snprintf(path, sizeof path, "%s/configs/u65-dram-example.json", src_dir(root, sizeof root));
    CHECK_EQ_INT(load3(NULL, path, NULL, EU_U65_512, &t, &err), NPUC_OK);
    char *d = edit(BASE, "\"size\": 0,", "\"mode\": \"absolute\", \"offset\": \"0x20000000\", \"size\": \"1MB\", "
                   "\"priority\": -2, \"cacheable\": true,", 0);
    target_desc j;
    CHECK_EQ_INT(parse_doc(d, EU_U55_64, &j, &err), NPUC_OK);
    free(d);
    const target_desc *files[2] = {&t, &j};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(target_record_write(files[k], &text, &len, &err), NPUC_OK);
        CHECK(!strstr(text, "system_config"));
        CHECK_EQ_INT(target_record_parse(text, len, "rec", &r, &err), NPUC_OK);
        CHECK(desc_eq(files[k], &r));
        CHECK_STR_EQ(r.sim.name, "custom");
        free(text);
    }
    /* errors: the record's own keys and checks */
    static const struct { const char *text, *msg; } BAD[] = {
        {"{\"name\":\"x\",\"target\":\"ethos-u55-256\",\"core_clock_hz\":1e9,\"pools\":[]}",
         "rec:1:1: top level: missing key \"npuc_target\""},
        {"{\"npuc_target\":2,\"name\":\"x\",\"target\":\"ethos-u55-256\",\"core_clock_hz\":1e9,\"pools\":[]}",
         "rec:1:16: npuc_target: record version 2 is not supported (this npuc reads version 1)"},
        {"{\"npuc_target\":1,\"name\":\"x\",\"core_clock_hz\":1e9,\"pools\":[]}",
         "rec:1:1: top level: missing key \"target\""},
        {"{\"npuc_target\":1,\"name\":\"x\",\"target\":\"ethos-u55\",\"core_clock_hz\":1e9,\"pools\":[]}",
         "rec:1:38: target: unknown target \"ethos-u55\" (valid: ethos-u55-32,"},
        {"{\"npuc_target\":1,\"name\":\"x\",\"target\":\"ethos-u55-256\",\"system_config\":\"S\",\"core_clock_hz\":1e9,"
         "\"pools\":[]}", "rec:1:1: top level: \"system_config\" and \"memory_mode\" go together"},
        {"{\"npuc_target\":1,\"name\":\"x\",\"target\":\"ethos-u55-256\",\"core_clock_hz\":1e9,\"pools\":[],\"x\":1}",
         "rec:1:85: x: unknown key (valid keys: name, description, target, core_clock_hz, core_clock_mhz, pools, "
         "npuc_target, system_config, memory_mode)"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        memset(&err, 0, sizeof err);
        int rc = target_record_parse(BAD[i].text, strlen(BAD[i].text), "rec", &r, &err);
        t_checks++;
        if (rc == NPUC_OK || strncmp(err.msg, BAD[i].msg, strlen(BAD[i].msg)) != 0) {
            t_failures++;
            fprintf(stderr, "record case %zu: got rc %d \"%s\"\n  want \"%s\"\n", i, rc, err.msg, BAD[i].msg);
        }
    }
    /* the record's keys are not a file's */
    EXPECT("{\"npuc_target\": 1, \"name\": \"t\"}", EU_U55_256, NPUC_E_INVALID, "npuc_target: unknown key");
}

/* Finding the record in a compiled model without loading it. */
static void test_find(void)
{
    static const char REC[] = "{\"npuc_target\":1}";
    _Alignas(16) uint8_t blob[256];
    memset(blob, 0, sizeof blob);
    npurt_header *h = (npurt_header *)blob;
    h->magic = NPURT_MAGIC;
    h->version_major = NPURT_VERSION_MAJOR;
    h->version_minor = NPURT_VERSION_MINOR;
    h->size = sizeof blob;
    h->npu_config = 0x00001807u;
    h->strings_off = 96;
    h->strings_size = 1 + sizeof REC;
    memcpy(blob + 97, REC, sizeof REC);
    h->target_off = 1;
    target_found f;
    target_find_in_compiled(blob, sizeof blob, &f);
    CHECK(f.record && f.record_len == strlen(REC) && !memcmp(f.record, REC, f.record_len));
    CHECK_EQ_INT(f.npu_config, 0x00001807u);
    /* none, or out of bounds: nothing, never a read outside */
    h->target_off = 0;
    target_find_in_compiled(blob, sizeof blob, &f);
    CHECK(!f.record && f.npu_config == 0x00001807u);
    h->target_off = h->strings_size;
    target_find_in_compiled(blob, sizeof blob, &f);
    CHECK(!f.record);
    h->target_off = 1;
    blob[96 + h->strings_size - 1] = 'x';   /* no NUL before the end of the table */
    target_find_in_compiled(blob, sizeof blob, &f);
    CHECK(!f.record);
    blob[96 + h->strings_size - 1] = 0;
    target_find_in_compiled(blob, 95, &f);
    CHECK(!f.record && !f.npu_config);
    h->strings_size = 200;
    target_find_in_compiled(blob, sizeof blob, &f);
    CHECK(!f.record);
    /* parsing what was found: a bad record names the file */
    h->strings_size = 1 + sizeof REC;
    target_find_in_compiled(blob, sizeof blob, &f);
    target_desc rec;
    bool have_rec, have_var;
    eu_variant v;
    npuc_err err;
    CHECK_EQ_INT(target_found_parse(&f, "m.nprt", &rec, &have_rec, &v, &have_var, &err), NPUC_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "m.nprt: target record:1:1: top level: missing key \"target\"");
    f.record = NULL;
    CHECK_EQ_INT(target_found_parse(&f, "m.nprt", &rec, &have_rec, &v, &have_var, &err), NPUC_OK);
    CHECK(!have_rec && have_var && v == EU_U55_128);
    f.npu_config = 0x00000003u;   /* 8 MACs: no such NPU */
    CHECK(target_found_parse(&f, "m.nprt", &rec, &have_rec, &v, &have_var, &err) != NPUC_OK);
    CHECK_STR_CONTAINS(err.msg, "m.nprt: NPU configuration 0x00000003");
    target_find_in_compiled(NULL, 0, &f);
    CHECK(!f.record);
    target_find_in_tflite(NULL, &f);
    CHECK(!f.record);

    /* the runtime's loader skips the record but keeps it inside the
     * string table (header byte 76) */
    h->npu_config = 0;
    h->strings_size = 1 + sizeof REC;
    blob[96 + h->strings_size - 1] = 0;
    static const uint32_t offs[] = {1, 0, NPURT_NO_NAME, 1 + sizeof REC, 1000};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        h->target_off = offs[i];
        h->crc32 = npurt_format_crc32(blob + 16, h->size - 16);
        npurt_model m;
        npurt_error e;
        memset(&e, 0, sizeof e);
        int rc = npurt_model_load(&m, blob, sizeof blob, &e);
        if (i < 3) {
            CHECK_EQ_INT(rc, NPURT_OK);
        } else {
            CHECK_EQ_INT(rc, NPURT_E_FORMAT);
            CHECK_EQ_INT(e.offset, 76);
            CHECK_STR_CONTAINS(e.what ? e.what : "", "target record outside the string table");
        }
    }
}

/* ------------------------------------------------------- the one rule */

static void test_resolve(void)
{
    npuc_err err;
    target_desc t, rec, def;
    eu_variant u65 = EU_U65_256, u55 = EU_U55_128;
    /* nothing: ethos-u55-256 with its default */
    CHECK_EQ_INT(target_resolve(NULL, NULL, NULL, &t, &err), NPUC_OK);
    CHECK_EQ_INT(target_default(EU_U55_256, &def, &err), NPUC_OK);
    CHECK(desc_eq(&t, &def));
    /* the model's NPU */
    CHECK_EQ_INT(target_resolve(NULL, NULL, &u65, &t, &err), NPUC_OK);
    CHECK_EQ_INT(target_default(EU_U65_256, &def, &err), NPUC_OK);
    CHECK(desc_eq(&t, &def));
    /* the record wins over the defaults */
    CHECK_EQ_INT(load3(NULL, "Ethos_U65_Mid_End:Sram_Only", NULL, EU_U65_256, &rec, &err), NPUC_OK);
    CHECK_EQ_INT(target_resolve(NULL, &rec, &u65, &t, &err), NPUC_OK);
    CHECK(desc_eq(&t, &rec));
    target_spec none = {0};
    CHECK_EQ_INT(target_resolve(&none, &rec, NULL, &t, &err), NPUC_OK);
    CHECK(desc_eq(&t, &rec));
    /* another variant of the same family keeps the recorded system */
    target_spec s512 = {.target = "ethos-u65-512"};
    CHECK_EQ_INT(target_resolve(&s512, &rec, &u65, &t, &err), NPUC_OK);
    CHECK_EQ_INT(t.variant, EU_U65_512);
    CHECK_STR_EQ(t.name, "Ethos_U65_Mid_End:Sram_Only");
    /* another family: that variant's default */
    target_spec s55 = {.target = "ethos-u55-64"};
    CHECK_EQ_INT(target_resolve(&s55, &rec, &u65, &t, &err), NPUC_OK);
    CHECK_EQ_INT(target_default(EU_U55_64, &def, &err), NPUC_OK);
    CHECK(desc_eq(&t, &def));
    /* flags override the record: the system, or only the mode */
    target_spec sys = {.system_config = "Ethos_U65_Embedded"};
    CHECK_EQ_INT(target_resolve(&sys, &rec, &u65, &t, &err), NPUC_OK);
    CHECK_STR_EQ(t.name, "Ethos_U65_Embedded:Shared_Sram");
    CHECK_EQ_INT(t.variant, EU_U65_256);
    target_spec mode = {.memory_mode = "Shared_Sram"};
    CHECK_EQ_INT(target_resolve(&mode, &rec, &u65, &t, &err), NPUC_OK);
    CHECK_STR_EQ(t.name, "Ethos_U65_High_End:Shared_Sram");
    /* a record that disagrees with the command streams */
    CHECK_EQ_INT(target_resolve(NULL, &rec, &u55, &t, &err), NPUC_E_FORMAT);
    CHECK_STR_EQ(err.msg, "the model's target record says ethos-u65-256, but its command streams are for "
                          "ethos-u55-128");
    target_spec bad = {.target = "ethos-u75"};
    CHECK_EQ_INT(target_resolve(&bad, NULL, NULL, &t, &err), NPUC_E_USAGE);
    CHECK_STR_CONTAINS(err.msg, "unknown target 'ethos-u75'");
    /* the default's cycle-model view */
    sim_system ss;
    target_default_sim(EU_U65_512, &ss);
    CHECK_EQ_INT(target_default(EU_U65_512, &def, &err), NPUC_OK);
    CHECK(sim_eq(&ss, &def.sim));
    target_default_sim((eu_variant)11, &ss);
    CHECK_EQ_INT(ss.core_clock_hz, 0);
}

int main(void)
{
    test_targets();
    test_builtins();
    test_example_files();
    test_base_and_values();
    test_errors();
    test_file_errors();
    test_grammar();
    test_vela_ini_reference();
    test_vela_ini_inheritance();
    test_vela_ini_errors();
    test_records();
    test_find();
    test_resolve();
    TEST_MAIN_END();
}
