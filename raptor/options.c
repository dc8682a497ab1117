/* options.c - raptor's engine: the options (raptor's command line, which the
 * library API takes too), the state's defaults and end, and the engine's
 * one-line message (raptor_fail).  Nothing here prints. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catfile.h"
#include "rpd.h"
#include "raptor.h"
#include "util/num.h"

/* ------------------------------------------------------------ messages */

/* Append the message of fmt, ap to R->err as one line (control characters
 * escaped as rpd_fail does, so the text is the same wherever it is shown). */
static void add_line(raptor *R, const char *fmt, va_list ap)
{
  rpd_buf b = {0};
  char *text = NULL;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n >= 0) {
    text = rpd_xmalloc((size_t)n + 1);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
  }
  if (R->err) rpd_buf_printf(&b, "%s\n", R->err);
  for (const char *s = text ? text : fmt; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n') rpd_buf_puts(&b, "\\n");
    else if (c == '\r') rpd_buf_puts(&b, "\\r");
    else if (c == '\t') rpd_buf_puts(&b, "\\t");
    else if (c < 0x20 || c == 0x7f) rpd_buf_printf(&b, "\\x%02x", c);
    else rpd_buf_add(&b, s, 1);
  }
  free(text);
  free(R->err);
  R->err = rpd_xstrdup(b.len ? b.s : "");
  rpd_buf_free(&b);
}

int raptor_fail(raptor *R, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  add_line(R, fmt, ap);
  va_end(ap);
  return code;
}

int raptor_usage(raptor *R, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  add_line(R, fmt, ap);
  va_end(ap);
  R->err_usage = 1;
  return 2;
}

void raptor_clear_err(raptor *R)
{
  free(R->err);
  R->err = NULL;
  R->err_usage = 0;
}

static const int default_gaps[] = {10, 20, 50, 100, 1000, 10000, 100000};


/* ------------------------------------------------------------ options */

enum {
  O_CAT = 1, O_CATJSON, O_LAT, O_VAR, O_KSEQ, O_KSEQLEN, O_GAPS, O_Z, O_OPTRACE,
  O_OPFILE, O_WIDTH, O_INST, O_RSTART, O_REND, O_AUTO, O_TRIM, O_GPU, O_DCOLS,
  O_DROWS, O_FDIG, O_XLS, O_XLSOP, O_FORMAT, O_SAVE, O_GPUSUM, O_REFOPS, O_CSVDIR, O_TWIDTH,
};

static const struct opt {
  const char *name;
  char shrt;
  int arg;
  int id;
} opts[] = {
  {"categorize", 'c', 0, O_CAT}, {"category-json", 'C', 1, O_CATJSON},
  {"category-latency-ns", 'l', 1, O_LAT}, {"variability", 'v', 0, O_VAR},
  {"kernelseq", 'k', 0, O_KSEQ}, {"top", 0, 0, O_KSEQ}, {"kernelseq-len", 0, 1, O_KSEQLEN},
  {"prekernel-seq", 0, 1, O_KSEQLEN}, {"gaps", 0, 2, O_GAPS},
  {"zscore_threshold", 'z', 1, O_Z}, {"zscore-threshold", 0, 1, O_Z},
  {"op-trace", 'o', 0, O_OPTRACE}, {"op-trace-file", 0, 1, O_OPFILE},
  {"op-trace-cmd-width", 'W', 1, O_WIDTH}, {"instance-trace", 'i', 1, O_INST},
  {"roi-start", 's', 1, O_RSTART}, {"roi-end", 'e', 1, O_REND},
  {"auto-roi-top", 0, 0, O_AUTO}, {"auto-roi", 0, 0, O_AUTO}, {"roi-trim", 0, 0, O_TRIM},
  {"gpu-id", 0, 1, O_GPU}, {"display-cols", 0, 1, O_DCOLS},
  {"display-rows", 0, 1, O_DROWS}, {"float-digits", 0, 1, O_FDIG},
  {"write-xls", 'x', 0, O_XLS}, {"write-xls-op-trace", 0, 0, O_XLSOP},
  {"format", 0, 1, O_FORMAT}, {"save", 0, 0, O_SAVE},
  {"gpu-summary", 0, 0, O_GPUSUM}, {"reference-ops", 0, 0, O_REFOPS},
  {"csv-dir", 0, 1, O_CSVDIR}, {"width", 0, 1, O_TWIDTH},
};
#define NOPTS ((int)(sizeof opts / sizeof *opts))

static int parse_int(const char *s, int *v, int lo)
{
  int64_t x;
  if (rpd_parse_i64_range(s, lo, INT32_MAX, &x)) return -1;
  *v = (int)x;
  return 0;
}

static int int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int apply_opt(raptor *R, const struct opt *o, const char *val)
{
  int64_t x;
  switch (o->id) {
  case O_CAT: R->opt.categorize = 1; break;
  case O_CATJSON: R->opt.cat_file = val; break;
  case O_LAT:
    /* ns per call: 0 .. 2^62 (a sane time; calls x N is bounded by the
     * categories' own durations after the analysis, latency_bound) */
    if (rpd_parse_i64(val, &R->opt.latency_ns) || R->opt.latency_ns < 0 ||
        R->opt.latency_ns >= RPD_TIME_LIMIT)
      return raptor_usage(R, "bad --category-latency-ns '%s' (ns per call, 0 .. 2^62)", val);
    break;
  case O_VAR: R->opt.variability = 1; break;
  case O_KSEQ: R->opt.kernelseq = 1; break;
  case O_KSEQLEN:
    if (parse_int(val, &R->opt.seqlen, 0) || R->opt.seqlen > 1000)
      return raptor_usage(R, "bad --kernelseq-len '%s' (0..1000)", val);
    break;
  case O_Z: {
    char *end;
    R->opt.zthr = strtod(val, &end);
    if (!*val || *end || isnan(R->opt.zthr))
      return raptor_usage(R, "bad --zscore_threshold '%s'", val);
    break;
  }
  case O_OPTRACE: R->opt.op_trace = 1; break;
  case O_OPFILE: R->opt.op_file = val; break;
  case O_WIDTH:
    if (parse_int(val, &R->opt.op_width, 0))
      return raptor_usage(R, "bad --op-trace-cmd-width '%s'", val);
    break;
  case O_INST:
    if (rpd_parse_i64(val, &R->opt.instance))
      return raptor_usage(R, "bad --instance-trace '%s'", val);
    R->opt.have_instance = 1;
    break;
  case O_RSTART: R->opt.roi_start_s = val; break;
  case O_REND: R->opt.roi_end_s = val; break;
  case O_AUTO: R->opt.auto_roi = 1; break;
  case O_TRIM: R->opt.roi_trim = 1; break;
  case O_GPU:
    if (rpd_parse_i64(val, &x) || x < -1 || x > INT32_MAX)
      return raptor_usage(R, "bad --gpu-id '%s'", val);
    R->opt.gpu_id = x;
    break;
  case O_DCOLS:
    if (parse_int(val, &R->opt.display_cols, 0))
      return raptor_usage(R, "bad --display-cols '%s'", val);
    break;
  case O_DROWS:
    if (parse_int(val, &R->opt.display_rows, 0))
      return raptor_usage(R, "bad --display-rows '%s'", val);
    break;
  case O_FDIG:
    if (parse_int(val, &R->opt.float_digits, 0) || R->opt.float_digits > 17)
      return raptor_usage(R, "bad --float-digits '%s' (0..17)", val);
    break;
  case O_XLS: R->opt.write_xls = 1; break;
  case O_XLSOP: R->opt.xls_op_trace = R->opt.write_xls = 1; break;
  case O_FORMAT:
    if (rpd_fmt_parse(val, &R->opt.fmt) != RPD_OK)
      return raptor_usage(R, "bad --format '%s' (table, csv, json)", val);
    break;
  case O_SAVE: R->opt.save = 1; break;
  case O_GPUSUM: R->opt.gpu_summary = 1; break;
  case O_REFOPS: R->opt.reference_ops = 1; break;
  case O_CSVDIR:
    if (!*val) return raptor_usage(R, "empty --csv-dir");
    R->opt.csv_dir = val;
    break;
  case O_TWIDTH:
    if (parse_int(val, &R->opt.width, 0))
      return raptor_usage(R, "bad --width '%s' (columns; 0 = no limit)", val);
    break;
  }
  return 0;
}

static const struct opt *find_long(const char *name, size_t len, int *ambiguous)
{
  const struct opt *hit = NULL;
  *ambiguous = 0;
  for (int i = 0; i < NOPTS; i++)
    if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
      return &opts[i];
  for (int i = 0; i < NOPTS; i++) {
    if (strncmp(opts[i].name, name, len) != 0) continue;
    if (hit && hit->id != opts[i].id) { *ambiguous = 1; return NULL; }
    hit = &opts[i];
  }
  return hit;
}

/* --gaps takes one or more integers */
static int take_gaps(raptor *R, int argc, char **argv, int *i, const char *first)
{
  free(R->opt.gaps);
  R->opt.gaps = NULL;
  R->opt.ngaps = 0;
  int64_t x;
  const char *v = first;
  for (;;) {
    if (!v) {
      if (*i + 1 >= argc || rpd_parse_i64(argv[*i + 1], &x)) break;
      v = argv[++*i];
    }
    if (rpd_parse_i64(v, &x) || x <= 0 || x > INT32_MAX / 2)
      return raptor_usage(R, "bad --gaps value '%s' (positive us)", v);
    R->opt.gaps = rpd_xrealloc(R->opt.gaps, (R->opt.ngaps + 1) * sizeof *R->opt.gaps);
    R->opt.gaps[R->opt.ngaps++] = (int)x;
    v = NULL;
  }
  if (!R->opt.ngaps) return raptor_usage(R, "--gaps needs at least one value");
  qsort(R->opt.gaps, R->opt.ngaps, sizeof *R->opt.gaps, int_cmp);
  int k = 1;
  for (int j = 1; j < R->opt.ngaps; j++)
    if (R->opt.gaps[j] != R->opt.gaps[k - 1]) R->opt.gaps[k++] = R->opt.gaps[j];
  R->opt.ngaps = k;
  return 0;
}

int raptor_parse_args(raptor *R, int argc, char **argv)
{
  int nomore = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!nomore && strcmp(a, "--") == 0) { nomore = 1; continue; }
    if (!nomore && rpd_cli_quiet_opt(a)) continue;   /* rpd_cli_init set rpd_quiet */
    if (!nomore && rpd_cli_csv_raw_opt(a)) continue;
    if (nomore || a[0] != '-' || a[1] == 0) {
      if (R->opt.path) return raptor_usage(R, "unexpected argument '%s'", a);
      R->opt.path = a;
      continue;
    }
    rpd_buf_printf(&R->opt.optstr, "%s%s", R->opt.optstr.len ? " " : "", a);
    if (a[1] == '-') {
      const char *eq = strchr(a + 2, '=');
      size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
      int amb;
      const struct opt *o = find_long(a + 2, len, &amb);
      if (amb) return raptor_usage(R, "ambiguous option '%.*s'", (int)len + 2, a);
      if (!o) return raptor_usage(R, "unknown option '%.*s'", (int)len + 2, a);
      if (o->arg == 0) {
        if (eq) return raptor_usage(R, "option '--%s' takes no value", o->name);
        if (apply_opt(R, o, NULL)) return 2;
      } else if (o->arg == 2) {
        int rc = take_gaps(R, argc, argv, &i, eq ? eq + 1 : NULL);
        if (rc) return rc;
      } else {
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
          if (i + 1 >= argc) return raptor_usage(R, "option '--%s' needs a value", o->name);
          v = argv[++i];
          rpd_buf_printf(&R->opt.optstr, " %s", v);
        }
        if (apply_opt(R, o, v)) return 2;
      }
      continue;
    }
    for (const char *p = a + 1; *p; p++) {
      const struct opt *o = NULL;
      for (int j = 0; j < NOPTS; j++)
        if (opts[j].shrt == *p) o = &opts[j];
      if (!o) return raptor_usage(R, "unknown option '-%c'", *p);
      if (!o->arg) {
        if (apply_opt(R, o, NULL)) return 2;
        continue;
      }
      const char *v = p[1] ? p + 1 : NULL;
      if (v && *v == '=') v++;
      if (!v) {
        if (i + 1 >= argc) return raptor_usage(R, "option '-%c' needs a value", *p);
        v = argv[++i];
        rpd_buf_printf(&R->opt.optstr, " %s", v);
      }
      if (apply_opt(R, o, v)) return 2;
      break;
    }
  }
  if (!R->opt.path) return raptor_usage(R, "missing FILE");
  return 0;
}

/* ------------------------------------------------------------ state */

/* The option defaults (no gaps yet: make_gap_labels sets them). */
void raptor_init(raptor *R)
{
  memset(R, 0, sizeof *R);
  R->opt.seqlen = 2;
  R->opt.zthr = -1;
  R->opt.gpu_id = -1;
  R->opt.display_cols = 60;
  R->opt.width = -1;
  R->opt.display_rows = 500;
  R->opt.float_digits = 1;
  R->opt.fmt = RPD_FMT_TABLE;
}

void raptor_free(raptor *R)
{
  category_list_free(R->res.cats, R->res.ncats);
  free(R->res.catname);
  for (size_t i = 0; i < R->res.nnames; i++) free(R->res.names[i]);
  free(R->res.names);
  free(R->res.name_cat);
  free(R->cat_error);
  free(R->name_slots.v);
  free(R->res.ops);
  if (R->opfile) fclose(R->opfile);
  R->opfile = NULL;
  free(R->stream.ring);
  free(R->stream.t);
  free(R->res.keyk);
  free(R->res.ks);
  free(R->key_slots.v);
  free(R->res.rows);
  if (R->opt.gap_labels)
    for (int i = 0; i <= R->opt.ngaps; i++) free(R->opt.gap_labels[i]);
  free(R->opt.gap_labels);
  free(R->res.crows);
  free(R->res.grows);
  free(R->opt.gaps);
  rpd_buf_free(&R->opt.optstr);
  free(R->err);
}

/* The default --gaps when none were given, then the gap row labels. */
void make_gap_labels(raptor *R)
{
  if (!R->opt.gaps) {
    R->opt.ngaps = (int)(sizeof default_gaps / sizeof *default_gaps);
    R->opt.gaps = rpd_xmalloc(sizeof default_gaps);
    memcpy(R->opt.gaps, default_gaps, sizeof default_gaps);
  }
  int n = R->opt.ngaps;
  R->opt.gap_labels = rpd_xcalloc(n + 1, sizeof *R->opt.gap_labels);
  R->opt.gap_labels[0] = rpd_xasprintf("GAP <=%dus", R->opt.gaps[0]);
  for (int i = 1; i < n; i++)
    R->opt.gap_labels[i] = rpd_xasprintf("GAP %dus-%dus", R->opt.gaps[i - 1], R->opt.gaps[i]);
  R->opt.gap_labels[n] = rpd_xasprintf("GAP >%dus", R->opt.gaps[n - 1]);
}

