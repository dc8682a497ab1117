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
  RPD_OPT_CALL0("-h|--help", NULL, NULL),
  RPD_OPT_CALL0("--version", NULL, NULL),
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

/* The entry spelled name[0 .. len) in opts (or a table it includes); when
 * found through a table of RPD_OPT_ONLY_WITH, *refused = its reason. */
static const rpd_opt *find_in(const rpd_opt *opts, const char *name, size_t len,
                              const char **refused)
{
  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    if (o->kind == RPD_OPTK_TABLE) {
      const rpd_opt *hit = find_in(o->value, name, len, refused);
      if (hit) {
        if (o->need && refused && !*refused) *refused = o->need;
        return hit;
      }
    } else if (has_name(o->names, name, len)) {
      return o;
    }
  }
  return NULL;
}

static const rpd_opt *find(const rpd_opt *opts, const char *name, size_t len)
{
  return find_in(opts, name, len, NULL);
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

/* The spelling of names that starts with the long name name[0 .. len) and
 * is longer (an abbreviation of it), or NULL; *n = its length. */
static const char *long_prefix(const char *names, const char *name, size_t len, size_t *n)
{
  for (const char *p = names; p && *p;) {
    const char *e = strchr(p, '|');
    *n = e ? (size_t)(e - p) : strlen(p);
    if (*n > len && p[1] == '-' && memcmp(p, name, len) == 0) return p;
    p = e ? e + 1 : NULL;
  }
  return NULL;
}

/* The entries of the RPD_OPT_ABBREV tables in opts (on: opts is one) with
 * a long name that name[0 .. len) abbreviates: returns how many, *hit =
 * the last and full its spelling (at most fullsz bytes). */
static int find_abbrev(const rpd_opt *opts, int on, const char *name, size_t len,
                       const rpd_opt **hit, char *full, size_t fullsz)
{
  int count = 0;
  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    size_t n;
    const char *p;
    if (o->kind == RPD_OPTK_TABLE) {
      count += find_abbrev(o->value, on || o->ival, name, len, hit, full, fullsz);
    } else if (on && (p = long_prefix(o->names, name, len, &n))) {
      count++;
      *hit = o;
      snprintf(full, fullsz, "%.*s", (int)n, p);
    }
  }
  return count;
}

/* The entry of opts (not the built-in ones) with the one-letter spelling
 * "-c", whatever its kind (a letter of a cluster). */
static const rpd_opt *find_letter(const rpd_opt *opts, char c)
{
  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    if (o->kind == RPD_OPTK_TABLE) {
      const rpd_opt *hit = find_letter(o->value, c);
      if (hit) return hit;
    } else if (has_short(o->names, c)) {
      return o;
    }
  }
  return NULL;
}

/* 1 when s reads as an integer (a further value of an RPD_OPTK_INTS). */
static int is_int(const char *s)
{
  int64_t x;
  return rpd_parse_i64(s, &x) == RPD_OK;
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
  case RPD_OPTK_INTS: {
    rpd_opt_ints *l = o->value;
    int64_t lo = o->lo == o->hi ? INT64_MIN : o->lo, hi = o->lo == o->hi ? INT64_MAX : o->hi;
    if (rpd_parse_i64_range(v, lo, hi, &n) != RPD_OK) {
      snprintf(why, sizeof why, "'%s' is not a number in %lld..%lld", v, (long long)lo,
               (long long)hi);
      return bad_value(o, name, v, why, msg, msgsz);
    }
    if (l->n == l->cap) {
      l->cap = l->cap ? 2 * l->cap : 8;
      l->v = rpd_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = n;
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
    const char *refused = NULL;
    const rpd_opt *o = find_in(both, a, strlen(a), &refused);
    const char *v = NULL;
    char name[128];
    snprintf(name, sizeof name, "%s", a);
    if (!o && a[1] == '-') {
      /* --name=value, or an abbreviated --name[=value] */
      const char *eq = strchr(a, '=');
      size_t len = eq ? (size_t)(eq - a) : strlen(a);
      if (eq && (o = find_in(both, a, len, &refused))) snprintf(name, sizeof name, "%.*s", (int)len, a);
      if (!o && find_abbrev(both, 0, a, len, &o, name, sizeof name) > 1)
        return say(msg, msgsz, RPD_OPT_EAMBIG, "ambiguous option '%.*s'", (int)len, a);
      if (o && eq) {
        if (!takes_value(o))
          return say(msg, msgsz, RPD_OPT_ENOVAL, "option '%s' takes no value", name);
        v = eq + 1;
      }
    } else if (!o && a[2] && (flags & RPD_OPT_CLUSTER)) {
      /* -cv: flags, up to a letter that takes a value (the rest, or the
       * next argument) */
      for (const char *p = a + 1; *p && !o; p++) {
        const rpd_opt *l = find_letter(opts, *p);
        if (!l && p == a + 1 && (flags & RPD_OPT_KEEP_UNKNOWN)) break;
        if (!l) return say(msg, msgsz, RPD_OPT_EUNKNOWN, "unknown option '-%c'", *p);
        snprintf(name, sizeof name, "-%c", *p);
        if (takes_value(l)) {
          o = l;
          if (p[1]) v = p[1] == '=' ? p + 2 : p + 1;
        } else {
          int rc = store(l, name, NULL, msg, msgsz);
          if (rc) return rc;
          if (!p[1]) break;
        }
      }
      if (!o && find_letter(opts, a[1])) continue;   /* all flags */
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
    if (refused)
      return say(msg, msgsz, RPD_OPT_EUNKNOWN, "option '%s' %s", name, refused);
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
    if (o->kind == RPD_OPTK_INTS) {
      /* one value or more: each use replaces the values before */
      ((rpd_opt_ints *)o->value)->n = 0;
      if (!v && (i + 1 >= argc || !is_int(argv[i + 1])))
        return say(msg, msgsz, RPD_OPT_ENEEDVAL, "option '%s' needs %s", name,
                   o->need ? o->need : "at least one value");
      for (v = v ? v : argv[++i];; v = argv[++i]) {
        int rc = store(o, name, v, msg, msgsz);
        if (rc) return rc;
        if (i + 1 >= argc || !is_int(argv[i + 1])) break;
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

void rpd_opt_ints_free(rpd_opt_ints *l)
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

/* ------------------------------------------------------------ --help */

#define HELP_INDENT 4    /* options start here, as in git */
#define HELP_COL 26      /* help starts here */
#define HELP_WIDTH 80    /* and wraps before this */

/* The spelling of names --help shows: the first one-letter spelling and
 * the first long one ("-o, --output"); into buf. */
static void shown_names(const char *names, char *buf, size_t bufsz)
{
  const char *shrt = NULL, *lng = NULL;
  size_t ns = 0, nl = 0;

  for (const char *p = names; p && *p;) {
    const char *e = strchr(p, '|');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 2 && p[0] == '-' && p[1] != '-' && !shrt) shrt = p, ns = n;
    else if (n > 2 && !lng) lng = p, nl = n;
    p = e ? e + 1 : NULL;
  }
  if (shrt && lng) snprintf(buf, bufsz, "%.*s, %.*s", (int)ns, shrt, (int)nl, lng);
  else if (shrt) snprintf(buf, bufsz, "%.*s", (int)ns, shrt);
  else snprintf(buf, bufsz, "%.*s", (int)nl, lng ? lng : "");
}

/* The name of an entry's value in --help ("" when it takes none). */
static const char *arg_name(const rpd_opt *o)
{
  if (o->arg) return o->arg;
  switch (o->kind) {
  case RPD_OPTK_INT:
  case RPD_OPTK_I64: return "N";
  case RPD_OPTK_SIZE: return "SIZE";
  case RPD_OPTK_DOUBLE: return "X";
  case RPD_OPTK_STRING: return o->need && strstr(o->need, "file") ? "FILE" : "TEXT";
  case RPD_OPTK_TIME: return "T";
  case RPD_OPTK_LIST:
  case RPD_OPTK_CALL: return "VALUE";
  case RPD_OPTK_CALL0: return o->ival ? "[VALUE]" : "";
  case RPD_OPTK_PAIR: return "NAME VALUE";
  }
  return "";
}

/* Write text from column col (the cursor is there), wrapped before
 * HELP_WIDTH with continuation lines at column col; '\n' breaks a line
 * (the spaces after it are kept: an indented list stays indented). */
static void put_wrapped(FILE *f, const char *text, int col)

{
  int at = col;

  for (const char *p = text; *p;) {
    if (*p == '\n') {
      fprintf(f, "\n%*s", col, "");
      at = col;
      p++;
      while (*p == ' ') fputc(*p++, f), at++;
      continue;
    }
    if (*p == ' ' && at > col) {
      /* spaces between words: break (dropping them) when the next word
       * does not fit */
      size_t sp = strspn(p, " ");
      size_t w = strcspn(p + sp, " \n");
      if (w && at + (int)(sp + w) > HELP_WIDTH - 1) {
        fprintf(f, "\n%*s", col, "");
        at = col;
        p += sp;
        continue;
      }
    }
    fputc(*p++, f);
    at++;
  }
  fputc('\n', f);
}

/* One option's lines. */
static void put_option(FILE *f, const char *names, const char *arg, const char *help)
{
  char shown[160];
  int n;

  shown_names(names, shown, sizeof shown);
  n = fprintf(f, "%*s%s%s%s", HELP_INDENT, "", shown, *arg ? " " : "", arg);
  if (n < 0) return;
  if (n + 2 > HELP_COL) {
    fputc('\n', f);
    n = 0;
  }
  fprintf(f, "%*s", HELP_COL - n, "");
  put_wrapped(f, help, HELP_COL);
}

/* Every entry of opts and of its included tables, in order: RPD_OK or
 * RPD_ERR at an entry without help.  *groups counts the headings. */
/* The option lines of opts and its tables; *groups counts the headings,
 * *lines is set once anything is written (a heading first in the list
 * needs no blank line before it: the one after the about text is there). */
static int put_options(FILE *f, const rpd_opt *opts, int *groups, int *lines)
{
  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    if (o->kind == RPD_OPTK_TABLE) {
      int rc = put_options(f, o->value, groups, lines);
      if (rc) return rc;
    } else if (o->kind == RPD_OPTK_GROUP) {
      fprintf(f, "%s%s\n", *lines ? "\n" : "", o->help ? o->help : "");
      ++*groups;
      *lines = 1;
    } else if (!o->hidden) {
      if (!o->help || !*o->help)
        return rpd_seterr(RPD_ERR, "option '%s' has no help text in its table", o->names);
      put_option(f, o->names, arg_name(o), o->help);
      *lines = 1;
    }
  }
  return RPD_OK;
}

/* Write s, ending it with a newline when it has none. */
static void put_text(FILE *f, const char *s)
{
  size_t n = strlen(s);
  fputs(s, f);
  if (n && s[n - 1] != '\n') fputc('\n', f);
}

int rpd_opt_help(FILE *f, const rpd_help *h, const rpd_opt *opts)
{
  int rc, groups = 0, lines = 0;

  if (h && h->usage) put_text(f, h->usage);
  if (h && h->about && *h->about) {
    fputc('\n', f);
    put_text(f, h->about);
  }
  fputc('\n', f);
  if ((rc = put_options(f, opts, &groups, &lines))) return rc;
  /* after headings the common options stand apart, not under the last */
  if (groups) fputc('\n', f);
  put_option(f, "-q|--quiet", "", h && h->quiet ? h->quiet : "no progress line");
  put_option(f, "-h|--help", "", "this text");
  put_option(f, "--version", "", "print the version");
  if (h && h->notes && *h->notes) {
    fputc('\n', f);
    put_text(f, h->notes);
  }
  return ferror(f) ? rpd_seterr(RPD_EIO, "write error") : RPD_OK;
}

/* The spellings of opts, shown ones (hidden = 0) or hidden aliases (1). */
static void put_names(FILE *f, const rpd_opt *opts, int hidden)
{
  char shown[160];

  for (const rpd_opt *o = opts; o && o->kind != RPD_OPTK_END; o++) {
    if (o->kind == RPD_OPTK_TABLE) {
      put_names(f, o->value, hidden);
      continue;
    }
    if (o->kind == RPD_OPTK_GROUP || !o->names) continue;
    shown_names(o->names, shown, sizeof shown);
    for (const char *p = o->names; *p;) {
      const char *e = strchr(p, '|');
      int n = e ? (int)(e - p) : (int)strlen(p);
      /* a spelling is shown when --help prints it: "-o" in "-o, --output" */
      int is_shown = 0;
      if (!o->hidden) {
        for (const char *s = shown; (s = strstr(s, "-")) != NULL;) {
          size_t k = strcspn(s, ", ");
          if ((int)k == n && memcmp(s, p, k) == 0) is_shown = 1;
          s += k;
        }
      }
      if (is_shown != hidden) fprintf(f, "%.*s\n", n, p);
      if (!e) break;
      p = e + 1;
    }
  }
}

int rpd_opt_list_names(FILE *f, const rpd_opt *opts)
{
  rpd_opt all[] = { RPD_OPT_TABLE(opts), RPD_OPT_TABLE(builtin), RPD_OPT_END() };
  put_names(f, all, 0);
  fputs("hidden:\n", f);
  put_names(f, all, 1);
  return ferror(f) ? rpd_seterr(RPD_EIO, "write error") : RPD_OK;
}
