/* evline.h - the text buffer and the escape rule of the --events lines
 * that json_check and proto_check print: tests/tools/rpd2tracing.sh sorts
 * and compares the two outputs line by line, so both must escape alike.
 * Header-only (each checker is one program); define EVLINE_PROG, the
 * program's name for the out-of-memory message, before including it. */
#ifndef EVLINE_H
#define EVLINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable NUL-terminated text buffer; {0} is empty. */
typedef struct tbuf { char *p; size_t n, cap; } tbuf;

/* Append t[0..n) to b (exit 2 when out of memory). */
static void tbuf_add(tbuf *b, const char *t, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p) { fputs(EVLINE_PROG ": out of memory\n", stderr); exit(2); }
  }
  memcpy(b->p + b->n, t, n);
  b->n += n;
  b->p[b->n] = 0;
}

/* Append t[0..n) with tabs, newlines and backslashes escaped. */
static void tbuf_esc(tbuf *b, const char *t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = t[i];
    if (c == '\\') tbuf_add(b, "\\\\", 2);
    else if (c == '\t') tbuf_add(b, "\\t", 2);
    else if (c == '\n') tbuf_add(b, "\\n", 2);
    else tbuf_add(b, &c, 1);
  }
}

/* The args of an event line as compared: an event's only argument `desc`
 * that is empty or repeats the event's (escaped) name prints as nothing.
 * The protobuf does not write such an argument (docs/rpd2tracing.md,
 * "Perfetto protobuf"); the JSON does, as the reference does. */
static const char *evline_args(const char *name, const char *args) {
  size_t n = strlen(name);
  if (!strcmp(args, "desc=;")) return "";
  if (!strncmp(args, "desc=", 5) && !strncmp(args + 5, name, n) && !strcmp(args + 5 + n, ";"))
    return "";
  return args;
}

#endif
