/* Internal to tflite/: which field of which builtin-options table maps to
 * which member of tfl_options. Shared by reader and writer so both agree. */
#ifndef NPUC_TFL_OPTIONS_DESC_H
#define NPUC_TFL_OPTIONS_DESC_H

#include "tflite.h"

typedef enum { TFL_F_I8, TFL_F_BOOL, TFL_F_I32, TFL_F_F32, TFL_F_VEC_I32, TFL_F_STR } tfl_field_kind;
/* TFL_F_STR: a char * member, NULL when the field is absent. */

typedef struct tfl_field_desc {
    uint8_t table;          /* TFL_OPT_* */
    uint8_t id;             /* field id within the table */
    uint8_t kind;           /* tfl_field_kind */
    const char *name;       /* schema field name, for messages */
    size_t off;             /* offsetof(tfl_options, member) */
    size_t count_off;       /* VEC: offsetof count member */
    size_t has_off;         /* VEC: offsetof has-flag member */
} tfl_field_desc;

/* All descriptors of one table, in field-id order; *n = 0 for a known table
 * without fields. Returns NULL if the table is not known to npuc. */
const tfl_field_desc *tfl_options_fields(int table, int32_t *n);
/* Table name for messages ("Conv2DOptions"). */
const char *tfl_options_table_name(int table);

#endif
