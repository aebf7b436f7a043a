/* Internal to emit/: what the writers share. */
#ifndef NPUC_EMIT_INT_H
#define NPUC_EMIT_INT_H

#include <stdbool.h>
#include <stddef.h>

/* A growable string for text reports; oom set once an allocation failed
 * (later appends do nothing). p is malloc'd. */
typedef struct emit_sbuf {
    char *p;
    size_t n, cap;
    bool oom;
} emit_sbuf;

void emit_sb_printf(emit_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
