/* eu_variant: the variant rows of eu_variant.h and lookups over them.
 * Freestanding. */
#include "ethosu/eu_variant.h"

#include <stddef.h>

#define EU_BRACE_(...) {__VA_ARGS__}
#define EU_VARIANT_ROW_(id_, target_, name_, prod, macs_, cores_, banks, rsv, ofm_ub, ifm_ub, axi, \
                        addr, dma, config_, gran, out, act)                                       \
    {.variant = EU_##id_, .target = target_, .name = name_, .product = EU_PRODUCT_##prod,          \
     .macs = macs_, .cores = cores_, .shram_banks = banks, .reserved_banks = rsv,                 \
     .ofm_ublock = EU_BRACE_ ofm_ub, .ifm_ublock = EU_BRACE_ ifm_ub, .axi_bits = axi,             \
     .addr_bits = addr, .max_dma = dma, .config = config_, .id = EU_ID_VELA,                      \
     .granules = EU_BRACE_ gran, .out_cpe = EU_BRACE_ out, .act_cpe = EU_BRACE_ act},

static const eu_variant_info ROWS[] = {EU_VARIANT_ROWS(EU_VARIANT_ROW_)};

_Static_assert(sizeof ROWS / sizeof ROWS[0] == EU_N_VARIANTS, "one row per variant");

const eu_variant_info *eu_variant_get(eu_variant v)
{
    return (unsigned)v < EU_N_VARIANTS ? &ROWS[v] : NULL;
}

const char *eu_variant_name(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    return r ? r->name : "?";
}

const char *eu_variant_target(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    return r ? r->target : "unknown";
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

int eu_variant_by_target(const char *target, eu_variant *out)
{
    for (unsigned i = 0; target && i < EU_N_VARIANTS; i++) {
        const char *a = target, *b = ROWS[i].target;
        while (*a && lower(*a) == *b) a++, b++;
        if (!*a && !*b) {
            *out = ROWS[i].variant;
            return 0;
        }
    }
    return -1;
}

int eu_variant_from_config(uint32_t config, eu_variant *out)
{
    for (unsigned i = 0; i < EU_N_VARIANTS; i++) {
        if (EU_CONFIG_PRODUCT(config) == EU_CONFIG_PRODUCT(ROWS[i].config) &&
            EU_CONFIG_MACS_LOG2(config) == EU_CONFIG_MACS_LOG2(ROWS[i].config)) {
            *out = ROWS[i].variant;
            return 0;
        }
    }
    return -1;
}

bool eu_variant_is_u65(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    return r && r->product == EU_PRODUCT_U65;
}

unsigned eu_variant_shram_banks(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    return r ? r->shram_banks : 0;
}

unsigned eu_variant_ofm_ublock_depth(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    return r ? r->ofm_ublock[2] : 0;
}

uint32_t eu_variant_config_word(eu_variant v)
{
    const eu_variant_info *r = eu_variant_get(v);
    return r ? r->config : 0;
}
