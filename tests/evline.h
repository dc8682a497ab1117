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

/* A slice for bind_points: its track (k1, k2) and [ts, end] in ns. */
typedef struct bspan { long long k1, k2, ts, end; } bspan;
/* A flow point on track (k1, k2) at ts; bind_points sets bound to the
 * start of the deepest slice of its track that contains ts (the slice a
 * flow end point binds to, as Perfetto: "s", "f" with bp e, flow_ids on a
 * slice's begin), or to BP_LOOSE when none does. */
typedef struct bpoint { long long k1, k2, ts, bound; size_t idx; } bpoint;
#define BP_LOOSE (-1LL - 0x7fffffffffffffffLL)

static int bkey_cmp(long long a1, long long a2, long long b1, long long b2) {
  if (a1 != b1) return a1 < b1 ? -1 : 1;
  return a2 < b2 ? -1 : a2 > b2;
}
static int bspan_cmp(const void *pa, const void *pb) {
  const bspan *a = pa, *b = pb;
  int k = bkey_cmp(a->k1, a->k2, b->k1, b->k2);
  if (k) return k;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->end > b->end ? -1 : a->end < b->end;   /* the parent first */
}
static int bpoint_cmp(const void *pa, const void *pb) {
  const bpoint *a = pa, *b = pb;
  int k = bkey_cmp(a->k1, a->k2, b->k1, b->k2);
  return k ? k : (a->ts > b->ts) - (a->ts < b->ts);
}

/* Bind every point (sorted in place, as the spans) with one sweep per
 * track: a stack of the slices open at the point.  Returns the number of
 * loose points (idx: the caller's, kept). */
static long long bind_points(bspan *sp, size_t ns, bpoint *pt, size_t np) {
  size_t i = 0, depth = 0, *stack = malloc((ns + 1) * sizeof *stack);
  long long loose = 0;
  if (!stack) { fputs(EVLINE_PROG ": out of memory\n", stderr); exit(2); }
  if (ns) qsort(sp, ns, sizeof *sp, bspan_cmp);
  if (np) qsort(pt, np, sizeof *pt, bpoint_cmp);
  for (size_t j = 0; j < np; j++) {
    bpoint *p = &pt[j];
    while (i < ns && (bkey_cmp(sp[i].k1, sp[i].k2, p->k1, p->k2) < 0 ||
                      (!bkey_cmp(sp[i].k1, sp[i].k2, p->k1, p->k2) && sp[i].ts <= p->ts))) {
      if (depth && bkey_cmp(sp[stack[depth - 1]].k1, sp[stack[depth - 1]].k2, sp[i].k1, sp[i].k2))
        depth = 0;
      while (depth && sp[stack[depth - 1]].end < sp[i].ts) depth--;
      stack[depth++] = i++;
    }
    if (depth && bkey_cmp(sp[stack[depth - 1]].k1, sp[stack[depth - 1]].k2, p->k1, p->k2))
      depth = 0;
    while (depth && sp[stack[depth - 1]].end < p->ts) depth--;
    p->bound = depth ? sp[stack[depth - 1]].ts : BP_LOOSE;
    loose += !depth;
  }
  free(stack);
  return loose;
}

#endif

#ifndef EVLINE_FLOW
#define EVLINE_FLOW
/* "TS" of a bound point (or "loose@TS") into out. */
static const char *bound_text(long long bound, long long ts, char *out, size_t n) {
  if (bound == BP_LOOSE) snprintf(out, n, "loose@%lld", ts);
  else snprintf(out, n, "%lld", bound);
  return out;
}
#endif
