/* opt.c - rpd_opt_parse, the declarative option table (opt.h). */
#include "rpd.h"
#include "opt.h"
#include "timeopt.h"
#include "util/num.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options every table has: -q/--quiet; --help/-h/--version were
 * answered by rpd_cli_init before any parsing. */
static const rpd_opt builtin[] = {
  RPD_OPT_FLAG("-q|--quiet", &rpd_quiet),
  RPD_OPT_CALL0("-h|--help|--version", NULL, NULL),
  RPD_OPT_END(),
};

static int say(char *msg, size_t msgsz, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(char *msg, size_t msgsz, int rc, const char *fmt, ...)
{
  va_list ap;

  if (msg && msgsz) {
    va_start(ap, fmt);
    vsnprintf(msg, msgsz, fmt, ap);
    va_end(ap);
  }
  return rc;
}

/* 1 when name (len bytes) is one of the '|'-separated spellings. */
static int has_name(const char *names, const char *name, size_t len)
{
  for (const char *p = names; p && *p;) {
    const char *e = strchr(p, '|');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == len && memcmp(p, name, len) == 0) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* 1 when names holds the one-letter spelling "-c". */
static int has_short(const char *names, char c)
{
  char s[3] = { '-', c, 0 };
  return c && c != '-' && has_name(names, s, 2);
}

static int takes_value(const rpd_opt *o)
{
  return o->kind != RPD_OPTK_FLAG && (o->kind != RPD_OPTK_CALL0 || o->ival);
}

/* The entry spelled name[0 .. len) in opts (or a table it includes). */
static const rpd_opt *find(const rpd_opt *opts, const char *name, size_t len)
{
  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    if (o->kind == RPD_OPTK_TABLE) {
      const rpd_opt *hit = find(o->value, name, len);
      if (hit) return hit;
    } else if (has_name(o->names, name, len)) {
      return o;
    }
  }
  return NULL;
}

/* The entry with the one-letter spelling "-c" that takes a value (for the
 * glued form -cVALUE). */
static const rpd_opt *find_short(const rpd_opt *opts, char c)
{
  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    if (o->kind == RPD_OPTK_TABLE) {
      const rpd_opt *hit = find_short(o->value, c);
      if (hit) return hit;
    } else if (takes_value(o) && has_short(o->names, c)) {
      return o;
    }
  }
  return NULL;
}

static int bad_value(const rpd_opt *o, const char *name, const char *v, const char *why,
                     char *msg, size_t msgsz)
{
  if (o->bad) {
    /* the tool's own wording: a format with one %s, the value */
    if (msg && msgsz) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      snprintf(msg, msgsz, o->bad, v);
#pragma GCC diagnostic pop
    }
    return RPD_OPT_EBADVAL;
  }
  return say(msg, msgsz, RPD_OPT_EBADVAL, "option '%s': %s", name, why);
}

/* Store value v (NULL for FLAG / CALL0) of the entry o spelled name. */
static int store(const rpd_opt *o, const char *name, const char *v, char *msg, size_t msgsz)
{
  char why[256];
  int64_t n;

  switch (o->kind) {
  case RPD_OPTK_FLAG:
    *(int *)o->value = o->ival;
    return 0;
  case RPD_OPTK_INT:
  case RPD_OPTK_I64: {
    int64_t lo = o->lo, hi = o->hi;
    if (lo == hi) {
      lo = o->kind == RPD_OPTK_INT ? INT32_MIN : INT64_MIN;
      hi = o->kind == RPD_OPTK_INT ? INT32_MAX : INT64_MAX;
    }
    if (rpd_parse_i64_range(v, lo, hi, &n) != RPD_OK) {
      snprintf(why, sizeof why, "'%s' is not a number in %lld..%lld", v, (long long)lo,
               (long long)hi);
      return bad_value(o, name, v, why, msg, msgsz);
    }
    if (o->kind == RPD_OPTK_INT) *(int *)o->value = (int)n;
    else *(int64_t *)o->value = n;
    return 0;
  }
  case RPD_OPTK_SIZE:
    if (rpd_parse_size(v, &n) != RPD_OK) {
      snprintf(why, sizeof why, "'%s' is not a size like 500M or 2G", v);
      return bad_value(o, name, v, why, msg, msgsz);
    }
    *(int64_t *)o->value = n;
    return 0;
  case RPD_OPTK_DOUBLE: {
    char *end;
    errno = 0;
    double d = *v ? strtod(v, &end) : 0;
    int ok = *v && !*end && errno != ERANGE && isfinite(d);
    if (ok && o->lo < o->hi) ok = d >= (double)o->lo && d <= (double)o->hi;
    if (!ok) {
      if (o->lo < o->hi)
        snprintf(why, sizeof why, "'%s' is not a number in %lld..%lld", v,
                 (long long)o->lo, (long long)o->hi);
      else
        snprintf(why, sizeof why, "'%s' is not a number", v);
      return bad_value(o, name, v, why, msg, msgsz);
    }
    *(double *)o->value = d;
    return 0;
  }
  case RPD_OPTK_STRING:
    *(const char **)o->value = v;
    return 0;
  case RPD_OPTK_TIME: {
    int64_t ns;
    if (rpd_timeopt_resolve_mode(v, o->ival, 0, 0, &ns) != RPD_OK)
      return bad_value(o, name, v, rpd_errmsg(), msg, msgsz);
    *(const char **)o->value = v;
    return 0;
  }
  case RPD_OPTK_LIST: {
    rpd_opt_list *l = o->value;
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 8;
      l->v = rpd_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = v;
    return 0;
  }
  case RPD_OPTK_CALL:
  case RPD_OPTK_CALL0:
    if (!o->fn) return 0;   /* an option answered elsewhere (--help) */
    if (msg && msgsz) msg[0] = 0;
    if (o->fn(o->ctx, name, v, msg, msgsz) == 0) return 0;
    if (msg && msgsz && !msg[0]) {
      if (v) say(msg, msgsz, 0, "bad value '%s' for option '%s'", v, name);
      else say(msg, msgsz, 0, "bad option '%s'", name);
    }
    return RPD_OPT_EBADVAL;
  }
  return say(msg, msgsz, RPD_OPT_EUNKNOWN, "unknown option '%s'", name);
}

int rpd_opt_parse(const rpd_opt *opts, int flags, int argc, char **argv, char *msg,
                  size_t msgsz)
{
  rpd_opt both[] = { RPD_OPT_TABLE(opts), RPD_OPT_TABLE(builtin), RPD_OPT_END() };
  int npos = 0, rest = 0;

  if (msg && msgsz) msg[0] = 0;
  for (int i = 1; i < argc; i++) {
    char *a = argv[i];
    if (rest || a[0] != '-' || a[1] == 0) {
      argv[npos++] = a;
      if (flags & RPD_OPT_STOP_AT_ARG) rest = 1;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      rest = 1;
      continue;
    }
    const rpd_opt *o = find(both, a, strlen(a));
    const char *v = NULL;
    char name[128];
    snprintf(name, sizeof name, "%s", a);
    if (!o && a[1] == '-' && strchr(a, '=')) {
      /* --name=value */
      size_t len = (size_t)(strchr(a, '=') - a);
      o = find(both, a, len);
      if (o) {
        snprintf(name, sizeof name, "%.*s", (int)len, a);
        if (!takes_value(o))
          return say(msg, msgsz, RPD_OPT_ENOVAL, "option '%s' takes no value", name);
        v = a + len + 1;
      }
    } else if (!o && a[1] != '-' && a[2]) {
      /* -cVALUE */
      o = find_short(both, a[1]);
      if (o) {
        snprintf(name, sizeof name, "-%c", a[1]);
        v = a + 2;
      }
    }
    if (!o) {
      if (flags & RPD_OPT_KEEP_UNKNOWN) {
        argv[npos++] = a;
        continue;
      }
      return say(msg, msgsz, RPD_OPT_EUNKNOWN, "unknown option '%s'", a);
    }
    if (o->kind == RPD_OPTK_PAIR) {
      /* two values: the first may come with '=' */
      int need = v ? 1 : 2;
      if (i + need >= argc)
        return say(msg, msgsz, RPD_OPT_ENEEDVAL, "option '%s' needs %s", name,
                   o->need ? o->need : "two values");
      const char **two = o->value;
      two[0] = v ? v : argv[++i];
      two[1] = argv[++i];
      if (o->fn && o->fn(o->ctx, name, two[0], msg, msgsz) != 0) {
        if (msg && msgsz && !msg[0]) say(msg, msgsz, 0, "bad option '%s'", name);
        return RPD_OPT_EBADVAL;
      }
      continue;
    }
    if (!v && o->kind == RPD_OPTK_CALL0 && o->ival) {
      /* an optional value: the next argument unless it is an option */
      const char *n = i + 1 < argc ? argv[i + 1] : NULL;
      if (n && strcmp(n, "--") != 0 && !find(both, n, strlen(n))) v = argv[++i];
    } else if (!v && takes_value(o)) {
      if (i + 1 >= argc)
        return say(msg, msgsz, RPD_OPT_ENEEDVAL, "option '%s' needs %s", name,
                   o->need ? o->need : "a value");
      v = argv[++i];
    }
    int rc = store(o, name, v, msg, msgsz);
    if (rc) return rc;
  }
  if (npos < argc) argv[npos] = NULL;
  return npos;
}

void rpd_opt_list_free(rpd_opt_list *l)
{
  if (!l) return;
  free(l->v);
  l->v = NULL;
  l->n = l->cap = 0;
}

int rpd_opt_peek(const rpd_opt *opts, int argc, char **argv, char *msg, size_t msgsz)
{
  char **copy = rpd_xmalloc(((size_t)argc + 1) * sizeof *copy);
  memcpy(copy, argv, (size_t)argc * sizeof *copy);
  copy[argc] = NULL;
  int n = rpd_opt_parse(opts, RPD_OPT_KEEP_UNKNOWN, argc, copy, msg, msgsz);
  free(copy);
  return n < 0 ? n : 0;
}
