/* budget.c - rpd-budget: check a trace against a small file of limits (a
 * performance budget for CI), measured on the tables of raptor --report so
 * a limit means exactly what the report shows.  One Markdown table out;
 * exit 0 all hold, 1 one is over (or measures nothing), 2 bad limits file
 * or usage.  See docs/rpd-budget.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "opt.h"
#include "table.h"

static const rpd_help help = {
  .usage = "usage: rpd-budget LIMITS TRACE [--category-json F] [--gpu-id N]\n"
           "                  [--step-marker REGEX] [--steady-state] [-q]",
  .about =
    "Check TRACE against the limits in the text file LIMITS, one per line\n"
    "('#' starts a comment):\n"
    "  kernel REGEX total_ms <= N     kernels whose name matches REGEX (PCRE2;\n"
    "  kernel REGEX mean_us <= N        \"double quotes\" for spaces): total / mean\n"
    "  category NAME pct <= N         share of kernel time (raptor's categories)\n"
    "  idle pct <= N                  GPU idle share of the run (all GPUs)\n"
    "  busy_ms >= N                   GPU busy time (all GPUs)\n"
    "  step median_ms <= N            median steady step (ProfilerStep#N markers,\n"
    "                                 --step-marker, or the kernel period)\n"
    "Any measure takes <= or >=.  The numbers are those of raptor --report\n"
    "(gpu_timeline, kernel_summary, category, steps_summary) with the same\n"
    "options.  Prints one Markdown table: limit, measured, ok/over.",
  .notes =
    "Exit status: 0 every limit holds, 1 one is over or measures nothing (a\n"
    "REGEX matching no kernel, no steps) or the trace cannot be read, 2 a bad\n"
    "LIMITS file (one line naming its line number) or usage.\n",
};

enum { M_KERNEL_TOTAL, M_KERNEL_MEAN, M_CATEGORY, M_IDLE, M_BUSY, M_STEP };

typedef struct limit {
  int measure, le;       /* le: "<=", else ">=" */
  char *arg;             /* REGEX or category NAME (owned) */
  rpd_regex *re;
  double bound;
  char *text;            /* the line as written, trimmed (owned) */
} limit;

typedef struct limits {
  limit *l;
  int n;
} limits;

static void limits_free(limits *ls)
{
  for (int i = 0; i < ls->n; i++) {
    free(ls->l[i].arg);
    free(ls->l[i].text);
    rpd_regex_free(ls->l[i].re);
  }
  free(ls->l);
}

/* The next word of *p (a "quoted" one may hold spaces; \" inside is a
 * quote) as new memory, or NULL at the end of the line. */
static char *word(char **p)
{
  char *s = *p;
  while (*s == ' ' || *s == '\t')
    s++;
  if (!*s)
    return NULL;
  rpd_buf b = {0};
  if (*s == '"') {
    for (s++; *s && *s != '"'; s++) {
      if (s[0] == '\\' && s[1] == '"')
        s++;
      rpd_buf_add(&b, s, 1);
    }
    if (*s != '"') {
      rpd_buf_free(&b);
      *p = s;
      return rpd_xstrdup("\"");     /* unclosed: caught as a bad line */
    }
    s++;
  } else {
    while (*s && *s != ' ' && *s != '\t')
      rpd_buf_add(&b, s++, 1);
  }
  rpd_buf_add(&b, "", 1);
  *p = s;
  return b.s;
}

/* Parse one line's words into *l: RPD_OK, or RPD_EPARSE with the reason. */
static int parse_line(char **w, int n, limit *l)
{
  static const struct { const char *w0, *w1; int measure, args; } forms[] = {
    {"kernel", "total_ms", M_KERNEL_TOTAL, 1}, {"kernel", "mean_us", M_KERNEL_MEAN, 1},
    {"category", "pct", M_CATEGORY, 1}, {"idle", "pct", M_IDLE, 0},
    {"busy_ms", NULL, M_BUSY, 0}, {"step", "median_ms", M_STEP, 0},
  };
  for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
    if (strcmp(w[0], forms[f].w0))
      continue;
    int k = 1 + forms[f].args;            /* index of the measure word */
    if (forms[f].w1 && (n <= k || strcmp(w[k], forms[f].w1)))
      continue;
    int op = forms[f].w1 ? k + 1 : 1;
    if (n != op + 2)
      return rpd_seterr(RPD_EPARSE, "expected '%s%s%s%s <= N' (or >=)", w[0],
                        forms[f].args ? " ARG" : "", forms[f].w1 ? " " : "",
                        forms[f].w1 ? forms[f].w1 : "");
    if (strcmp(w[op], "<=") && strcmp(w[op], ">="))
      return rpd_seterr(RPD_EPARSE, "'%s': the comparison is <= or >=", w[op]);
    char *end;
    errno = 0;
    double v = strtod(w[op + 1], &end);
    if (*end || end == w[op + 1] || errno || !isfinite(v))
      return rpd_seterr(RPD_EPARSE, "'%s' is not a number", w[op + 1]);
    l->measure = forms[f].measure;
    l->le = !strcmp(w[op], "<=");
    l->bound = v;
    if (forms[f].args) {
      l->arg = rpd_xstrdup(w[1]);
      if (forms[f].measure != M_CATEGORY && rpd_regex_compile(w[1], &l->re))
        return RPD_EPARSE;
    }
    return RPD_OK;
  }
  return rpd_seterr(RPD_EPARSE, "unknown limit '%s' (kernel, category, idle, busy_ms, step)",
                    w[0]);
}

/* Read the limits file: RPD_OK, or an error naming the file and line. */
static int read_limits(const char *path, limits *ls)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return rpd_seterr(RPD_ENOENT, "cannot open limits file '%s': %s", path, strerror(errno));
  /* a trace given first (rpd-budget TRACE LIMITS) reads as binary lines:
   * say which argument is which instead */
  int is_trace = 0;
  if (rpd_looks_like_trace(path, &is_trace) == RPD_OK && is_trace) {
    fclose(f);
    return rpd_seterr(RPD_EPARSE, "'%s' is a trace, not a limits file: the limits come first "
                      "(rpd-budget LIMITS TRACE)", path);
  }
  char *line = NULL;
  size_t cap = 0;
  int lineno = 0, rc = RPD_OK;
  while (!rc && getline(&line, &cap, f) >= 0) {
    lineno++;
    char *hash = strchr(line, '#'), *p = line;
    if (hash && (hash == line || hash[-1] == ' ' || hash[-1] == '\t'))
      *hash = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    char *w[8];
    int n = 0;
    for (char *x; n < 8 && (x = word(&p));)
      w[n++] = x;
    if (n == 8 || (n && !strcmp(w[n - 1], "\""))) {
      rc = rpd_seterr(RPD_EPARSE, n == 8 ? "too many words" : "unclosed quote");
    } else if (n) {
      ls->l = rpd_xrealloc(ls->l, (size_t)(ls->n + 1) * sizeof *ls->l);
      limit *l = &ls->l[ls->n++];
      memset(l, 0, sizeof *l);
      rc = parse_line(w, n, l);
      rpd_buf t = {0};
      for (int i = 0; i < n; i++)
        rpd_buf_printf(&t, "%s%s", i ? " " : "", w[i]);
      l->text = t.s;
    }
    if (rc)
      rc = rpd_seterr(RPD_EPARSE, "%s:%d: %s", path, lineno, rpd_errmsg());
    while (n > 0)
      free(w[--n]);
  }
  if (!rc && ferror(f))
    rc = rpd_seterr(RPD_EIO, "cannot read limits file '%s'", path);
  if (!rc && !ls->n)
    rc = rpd_seterr(RPD_EPARSE, "%s: no limits (one per line: kernel REGEX total_ms <= N, ...)",
                    path);
  free(line);
  fclose(f);
  return rc;
}

/* The value of column col in row r of t, NaN when absent. */
static double num(const table *t, size_t r, const char *col)
{
  int k = t ? t_col(t, col) : -1;
  return k < 0 || r >= t->nrows ? NAN : t_num(t_cell(t, r, k));
}

/* The row of t whose column col is the text s (an all-GPU row of
 * gpu_timeline: gpuId NULL), or -1. */
static ssize_t find_row(const table *t, const char *col, const char *s, int all_gpus)
{
  int k = t ? t_col(t, col) : -1, g = t ? t_col(t, "gpuId") : -1;
  for (size_t r = 0; k >= 0 && r < t->nrows; r++) {
    const cell *c = t_cell(t, r, k);
    if (c->t == C_STR && !strcmp(c->s, s) && (!all_gpus || g < 0 || t_cell(t, r, g)->t == C_NULL))
      return (ssize_t)r;
  }
  return -1;
}

/* Measure l on the report: *v, or NaN with *why (static text) when it
 * measures nothing. */
static double measure(const report_run *run, const limit *l, const char **why)
{
  const report *rep = &run->rep;
  const table *tl = report_find(rep, "gpu_timeline");
  *why = NULL;
  switch (l->measure) {
  case M_KERNEL_TOTAL:
  case M_KERNEL_MEAN: {
    const table *ks = report_find(rep, "kernel_summary");
    int kn = t_col(ks, "name");
    double total_us = 0, count = 0;
    for (size_t r = 0; r < ks->nrows; r++) {
      const cell *c = t_cell(ks, r, kn);
      int hit = c->t == C_STR ? rpd_regex_search(l->re, c->s) : 0;
      if (hit < 0) {      /* never "no match" for a search PCRE2 gave up */
        *why = "the regex could not finish on a kernel name";
        return NAN;
      }
      if (hit) {
        total_us += num(ks, r, "total_us");
        count += num(ks, r, "count");
      }
    }
    if (!count) {
      *why = "no kernel matches";
      return NAN;
    }
    return l->measure == M_KERNEL_TOTAL ? total_us / 1e3 : total_us / count;
  }
  case M_CATEGORY: {
    const table *ct = report_find(rep, "category");
    ssize_t r = find_row(ct, "category", l->arg, 0);
    return r < 0 ? 0 : num(ct, (size_t)r, "percent");
  }
  case M_IDLE: {
    ssize_t r = find_row(tl, "type", "idle", 1);
    return r < 0 ? NAN : num(tl, (size_t)r, "percent");
  }
  case M_BUSY: {
    ssize_t r = find_row(tl, "type", "busy_time", 1);
    return r < 0 ? NAN : num(tl, (size_t)r, "time_ms");
  }
  case M_STEP: {
    const table *ss = report_find(rep, "steps_summary");
    if (!ss || !ss->nrows) {
      *why = "no steps";
      return NAN;
    }
    return num(ss, 0, "median_ms");
  }
  }
  return NAN;
}

/* A category limit naming no category of the rule set is a bad file. */
static int check_categories(const report_run *run, const limits *ls, const char *path)
{
  for (int i = 0; i < ls->n; i++) {
    const limit *l = &ls->l[i];
    if (l->measure != M_CATEGORY || !strcmp(l->arg, "_Other"))
      continue;
    int known = 0;
    for (int k = 0; k < run->c.n; k++)
      known |= !strcmp(run->c.r[k].name, l->arg);
    if (!known)
      return rpd_seterr(RPD_EPARSE, "%s: '%s': unknown category '%s' (see raptor"
                        " --category-json)", path, l->text, l->arg);
  }
  return RPD_OK;
}

/* Evaluate into the table `limits` (limit, measured, result) and write it
 * with the common Markdown writer, then the closing line.  Returns the
 * number of limits not met, or -1 when stdout cannot be written. */
static int evaluate(const report_run *run, const limits *ls)
{
  static const char *const cols[] = { "limit", "measured", "result" };
  rpd_table t;
  int over = 0;
  rpd_table_init(&t, "limits", 3, cols, NULL);
  for (int i = 0; i < ls->n; i++) {
    const limit *l = &ls->l[i];
    const char *why;
    char num[128];
    double v = measure(run, l, &why);
    int ok = !isnan(v) && (l->le ? v <= l->bound : v >= l->bound);
    over += !ok;
    rpd_table_str(&t, l->text);
    if (isnan(v)) {   /* measured stays all numbers: the reason goes with the result */
      rpd_table_null(&t);
      snprintf(num, sizeof num, "over: %s", why ? why : "n/a");
      rpd_table_str(&t, num);
    } else {
      snprintf(num, sizeof num, "%.6g", v);
      rpd_table_str(&t, num);
      rpd_table_str(&t, ok ? "ok" : "over");
    }
  }
  int rc = rpd_table_md(&t, stdout, 0);
  rpd_table_free(&t);
  if (rc)
    return -1;
  printf("\n%d of %d limits hold%s\n", ls->n - over, ls->n, over ? "" : ": within budget");
  return over;
}

/* The report's options of rpd-budget, gathered in command-line order for
 * the report's own parser (the strings are argv's). */
typedef struct fwd {
  char **argv;
  int argc;
} fwd;

/* One forwarded option: its spelling for the report's parser. */
typedef struct fwd_name {
  fwd *f;
  const char *name;
} fwd_name;

static int fwd_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  fwd_name *fn = ctx;
  (void)name, (void)msg, (void)msgsz;
  fn->f->argv[fn->f->argc++] = (char *)fn->name;
  if (v)
    fn->f->argv[fn->f->argc++] = (char *)v;
  return 0;
}

/* Entry point of rpd-budget (raptor's main when invoked by that name). */
int raptor_budget_main(int argc, char **argv)
{
  report_run run;
  memset(&run, 0, sizeof run);
  /* the report's options through its own parser: the options plus TRACE */
  fwd f = { rpd_xcalloc((size_t)argc + 2, sizeof(char *)), 0 };
  f.argv[f.argc++] = argv[0];
  fwd_name fn[] = { {&f, "--category-json"}, {&f, "--gpu-id"}, {&f, "--step-marker"},
                    {&f, "--steady-state"} };
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--category-json", fwd_opt, &fn[0], .arg = "F",
                 .help = "raptor categories, as raptor --report --category-json"),
    RPD_OPT_CALL("--gpu-id", fwd_opt, &fn[1], .arg = "N", .help = "only GPU N"),
    RPD_OPT_CALL("--step-marker", fwd_opt, &fn[2], .arg = "REGEX",
                 .help = "the step markers (default ^ProfilerStep#[0-9]+$)"),
    RPD_OPT_CALL0("--steady-state", fwd_opt, &fn[3],
                  .help = "every measure covers only the steady steps"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, opts)) {
    free(f.argv);
    return rpd_cli_status();
  }
  int rc = rpd_cli_options(opts, 0, &argc, argv);
  if (!rc && argc > 2)
    rc = rpd_usage_error("unexpected argument '%s'", argv[2]);
  if (!rc && argc < 2)
    rc = rpd_usage_error("need LIMITS and TRACE");
  const char *pos[2] = { argv[0], argv[1] };
  if (!rc) {
    f.argv[f.argc++] = (char *)pos[1];
    rc = report_parse_opts(f.argc, f.argv, &run.o);
  }
  free(f.argv);
  if (rc)
    return rc;
  limits ls = {0};
  if (read_limits(pos[0], &ls)) {
    fprintf(stderr, "%s: %s\n", rpd_progname, rpd_errmsg());
    limits_free(&ls);
    return 2;
  }
  int ret = report_build(&run);
  if (!ret && check_categories(&run, &ls, pos[0])) {
    fprintf(stderr, "%s: %s\n", rpd_progname, rpd_errmsg());
    ret = 2;
  }
  if (!ret) {
    int over = evaluate(&run, &ls);
    ret = over ? 1 : 0;
    if (over < 0 || fflush(stdout) || ferror(stdout))
      ret = rpd_fail("cannot write to stdout");
  }
  report_run_free(&run, 0);
  limits_free(&ls);
  return ret;
}
