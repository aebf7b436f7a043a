/* eu_variant.h: the Ethos-U NPU variants, one row each: the only place
 * that says what a U55-128 or a U65-512 is (docs/ethos-u.md 1.1-1.3, 1.6).
 * Freestanding (no libc). */
#ifndef NPUC_ETHOSU_EU_VARIANT_H
#define NPUC_ETHOSU_EU_VARIANT_H

#include <stdbool.h>
#include <stdint.h>

#include "ethosu/eu_regs.h"

/* The table. Adding a variant is adding one row; everything else (the enum
 * below, lookups by name and CONFIG word, the compiler's targets, the
 * simulator's NPUs) follows from it. Columns:
 *   id       enum constant EU_<id>
 *   target   the name `npuc compile --target` takes
 *   name     short name in messages
 *   prod     CONFIG.product (EU_PRODUCT_<prod>)
 *   macs     MACs/cycle, all cores (1.1)
 *   cores    NPU cores (PARALLEL_MODE max = cores - 1)
 *   banks    1 KiB SHRAM banks per core (1.2)
 *   rsv      banks reserved at the top even without a LUT (1.1)
 *   ofm_ub   OFM micro-block (W, H, D), per core
 *   ifm_ub   IFM micro-block (W, H, D)
 *   axi      AXI data width in bits; addr: address bits (1.1, 1.5)
 *   dma      DMA jobs Vela lets be outstanding (1.1)
 *   config   the CONFIG word (1.3)
 *   gran     SHRAM granules in banks: IFM8, IFM16, IFM8 elementwise,
 *            IFM16 elementwise, IFM32, ACC16, ACC32, ACC40 (1.2)
 *   out_cpe  Vela's output cycles per element [0..7] (1.6)
 *   act_cpe  Vela's activation cycles per element [0..2] (1.6)
 * (The ID word is the same for every row: arch 1.0.6, EU_ID_VELA.) */
/* clang-format off */
#define EU_VARIANT_ROWS(X)                                                                        \
/*  id       target           name       prod macs cores banks rsv ofm_ub   ifm_ub   axi  addr dma config       */ \
  X(U55_32,  "ethos-u55-32",  "U55-32",  U55, 32,  1,    16,   0,  (1,1,4), (1,1,8), 64,  32,  1,  0x00001005u,   \
    (2,2,2,2,4,4,4,4),     (2, 3, 3, 3, 4, 6, 1, 2),                                   (1, 1, 0))         \
  X(U55_64,  "ethos-u55-64",  "U55-64",  U55, 64,  1,    16,   0,  (1,1,8), (1,1,8), 64,  32,  1,  0x00001006u,   \
    (2,2,2,2,4,4,4,8),     (1, 1.5, 1.5, 1.5, 2, 3, 0.5, 1),                           (1, 1, 0))         \
  X(U55_128, "ethos-u55-128", "U55-128", U55, 128, 1,    24,   2,  (2,1,8), (2,1,8), 64,  32,  1,  0x00001807u,   \
    (4,4,4,4,8,4,8,12),    (0.75, 1.25, 0.75, 0.75, 1, 1.5, 0.25, 0.5),                (1, 0.5, 0))       \
  X(U55_256, "ethos-u55-256", "U55-256", U55, 256, 1,    48,   2,  (2,2,8), (2,2,8), 64,  32,  1,  0x00003008u,   \
    (8,8,8,8,16,8,16,20),  (0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25),         (1, 0.25, 0))      \
  X(U65_256, "ethos-u65-256", "U65-256", U65, 256, 1,    48,   2,  (2,2,8), (2,2,8), 128, 40,  2,  0x10003008u,   \
    (8,8,8,8,16,8,16,20),  (0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25),         (1, 0.25, 0))      \
  X(U65_512, "ethos-u65-512", "U65-512", U65, 512, 2,    48,   2,  (2,2,8), (2,2,8), 128, 40,  2,  0x10006009u,   \
    (8,8,8,8,16,8,16,20),  (0.3125, 0.5625, 0.25, 0.1875, 0.25, 0.375, 0.0625, 0.125), (0.5, 0.125, 0))
/* clang-format on */

/* The ID word Vela writes (architecture 1.0.6) and the virtual NPU reports. */
#define EU_ID_VELA EU_ID_WORD(1, 0, 6)

/* Every target name as one string literal, each after ", ":
 * ", ethos-u55-32, ethos-u55-64, ..." (for messages: skip the first two). */
#define EU_VARIANT_TARGET_(id, target, ...) ", " target
#define EU_VARIANT_TARGETS EU_VARIANT_ROWS(EU_VARIANT_TARGET_)

#define EU_VARIANT_ENUM_(id, ...) EU_##id,
#define EU_VARIANT_COUNT_(...) +1
typedef enum eu_variant { EU_VARIANT_ROWS(EU_VARIANT_ENUM_) } eu_variant;
enum { EU_N_VARIANTS = 0 EU_VARIANT_ROWS(EU_VARIANT_COUNT_) };

typedef struct eu_variant_info {
    eu_variant variant;
    const char *target;        /* "ethos-u55-128" */
    const char *name;          /* "U55-128" */
    uint8_t product;           /* EU_PRODUCT_U55 / EU_PRODUCT_U65 */
    uint16_t macs;             /* MACs per cycle, all cores */
    uint8_t cores;
    uint8_t shram_banks;       /* 1 KiB banks per core */
    uint8_t reserved_banks;    /* kept free at the top even without a LUT */
    uint8_t ofm_ublock[3];     /* W, H, D */
    uint8_t ifm_ublock[3];
    uint8_t axi_bits;          /* AXI data width */
    uint8_t addr_bits;         /* 32 (U55) or 40 (U65) */
    uint8_t max_dma;           /* outstanding DMA jobs */
    uint32_t config;           /* CONFIG word */
    uint32_t id;               /* ID word */
    uint8_t granules[8];       /* SHRAM granules (see the table) */
    double out_cpe[8];         /* output cycles per element */
    double act_cpe[3];         /* activation cycles per element */
} eu_variant_info;

/* The row of a variant; NULL if v is not one. */
const eu_variant_info *eu_variant_get(eu_variant v);

/* Short name "U55-128" ("?" if unknown) and target name "ethos-u55-128"
 * ("unknown"). */
const char *eu_variant_name(eu_variant v);
const char *eu_variant_target(eu_variant v);

/* Variant from a target name, ASCII case ignored: 0, or -1 if none. */
int eu_variant_by_target(const char *target, eu_variant *out);

/* Variant from a CONFIG word: product [31:28] and MACs [3:0] must match a
 * row (command stream version, SHRAM size and custom DMA are not what
 * makes a variant). 0, or -1 if none. */
int eu_variant_from_config(uint32_t config, eu_variant *out);

/* Shorthands on the row (false / 0 if v is not a variant). */
bool eu_variant_is_u65(eu_variant v);
unsigned eu_variant_shram_banks(eu_variant v);
unsigned eu_variant_ofm_ublock_depth(eu_variant v);
uint32_t eu_variant_config_word(eu_variant v);

#endif /* NPUC_ETHOSU_EU_VARIANT_H */
