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
#include "opt.h"
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

/* The options with a check of their own (opt.h callbacks, ctx = the run):
 * each writes its message into msg and returns 1 on a bad value. */
static int set_zscore(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  raptor *R = ctx;
  char *end;
  (void)name;
  R->opt.zthr = strtod(v, &end);   /* inf too: no op is an outlier */
  if (*v && !*end && !isnan(R->opt.zthr)) return 0;
  snprintf(msg, msgsz, "bad --zscore_threshold '%s'", v);
  return 1;
}

static int set_instance(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  raptor *R = ctx;
  (void)name;
  if (rpd_parse_i64(v, &R->opt.instance) == RPD_OK) {
    R->opt.have_instance = 1;
    return 0;
  }
  snprintf(msg, msgsz, "bad --instance-trace '%s'", v);
  return 1;
}

static int set_xls_op(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  raptor *R = ctx;
  (void)name, (void)v, (void)msg, (void)msgsz;
  R->opt.xls_op_trace = R->opt.write_xls = 1;
  return 0;
}

static int set_format(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  raptor *R = ctx;
  (void)name;
  if (rpd_fmt_parse(v, &R->opt.fmt) == RPD_OK) return 0;
  snprintf(msg, msgsz, "bad --format '%s' (table, csv, json)", v);
  return 1;
}

static int set_csv_dir(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  raptor *R = ctx;
  (void)name;
  if (*v) {
    R->opt.csv_dir = v;
    return 0;
  }
  snprintf(msg, msgsz, "empty --csv-dir");
  return 1;
}

static int int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The --gaps values, sorted and without repeats, as R->opt.gaps (none
 * given: NULL, make_gap_labels sets the default). */
static void set_gaps(raptor *R, const rpd_opt_ints *g)
{
  free(R->opt.gaps);
  R->opt.gaps = NULL;
  R->opt.ngaps = 0;
  if (!g->n) return;
  R->opt.gaps = rpd_xmalloc((size_t)g->n * sizeof *R->opt.gaps);
  for (int i = 0; i < g->n; i++) R->opt.gaps[i] = (int)g->v[i];   /* in 1 .. INT32_MAX / 2 */
  qsort(R->opt.gaps, (size_t)g->n, sizeof *R->opt.gaps, int_cmp);
  int k = 1;
  for (int j = 1; j < g->n; j++)
    if (R->opt.gaps[j] != R->opt.gaps[k - 1]) R->opt.gaps[k++] = R->opt.gaps[j];
  R->opt.ngaps = k;
}

/* The options as given, for the outputs (the info sheet, raptor_options):
 * every argument but the trace, "--" and the options that change no result
 * (-q, --quiet, --csv-raw). */
static void record_options(raptor *R, int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a == R->opt.path || (a[0] == '-' && a[1] == '-' && !a[2]) || rpd_cli_quiet_opt(a) ||
        rpd_cli_csv_raw_opt(a))
      continue;
    rpd_buf_printf(&R->opt.optstr, "%s%s", R->opt.optstr.len ? " " : "", a);
  }
}

/* A heap copy of the option rows t (size bytes): the tables are built on
 * the stack, with the addresses they store into. */
static rpd_opt *rows_dup(const rpd_opt *t, size_t size)
{
  rpd_opt *rows = rpd_xmalloc(size);
  memcpy(rows, t, size);
  return rows;
}

/* Classic raptor's option rows, storing into R and *gaps: the reference
 * raptor.py's argparse spellings (long names abbreviated to a unique prefix,
 * clustered one-letter flags, --gaps with several values).  The help text
 * of each row is classic raptor's --help (raptor.c). */
static rpd_opt *classic_rows(raptor *R, rpd_opt_ints *gaps)
{
  const rpd_opt t[] = {
    RPD_OPT_GROUP("Tables:"),
    RPD_OPT_FLAG("-c|--categorize", &R->opt.categorize, .help = "category table"),
    RPD_OPT_STRING("-C|--category-json", &R->opt.cat_file, .arg = "FILE",
                   .help = "categories: {\"NAME\": [\"regex\", ...], ...}; the LAST "
                           "matching category wins (default: built in, the same as "
                           "raptor/categories.json)"),
    /* ns per call: 0 .. 2^62 (a sane time; calls x N is bounded by the
     * categories' own durations after the analysis, latency_bound) */
    RPD_OPT_I64("-l|--category-latency-ns", &R->opt.latency_ns, 0, RPD_TIME_LIMIT - 1,
                "bad --category-latency-ns '%s' (ns per call, 0 .. 2^62)",
                .help = "move calls*N ns of every category to _Latency"),
    RPD_OPT_FLAG("-v|--variability", &R->opt.variability,
                 .help = "variability by communication (_COMM or _Collective) / "
                         "other kernels"),
    RPD_OPT_FLAG("-k|--kernelseq|--top", &R->opt.kernelseq,
                 .help = "kernel sequences sorted by total duration (also --top)"),
    RPD_OPT_INT("--kernelseq-len|--prekernel-seq", &R->opt.seqlen, 0, 1000,
                "bad --kernelseq-len '%s' (0..1000)",
                .help = "preceding kernels in a sequence key (default 2; 0 = kernel "
                        "name only; also --prekernel-seq N)"),
    RPD_OPT_INTS("--gaps", &gaps[0], 1, INT32_MAX / 2, "bad --gaps value '%s' (positive us)",
                 .arg = "US...",
                 .help = "idle-gap buckets in us (default 10 20 50 100 1000 10000 "
                         "100000)"),
    RPD_OPT_CALL("-z|--zscore_threshold|--zscore-threshold", set_zscore, R, .arg = "Z",
                 .help = "ops with |zscore| >= Z are outliers, left out of the "
                         "statistics (default -1 = off; also --zscore-threshold)"),
    RPD_OPT_FLAG("--gpu-summary", &R->opt.gpu_summary,
                 .help = "per-GPU busy, idle, leading/trailing idle"),
    RPD_OPT_GROUP("Traces:"),
    RPD_OPT_FLAG("-o|--op-trace", &R->opt.op_trace, .help = "one line per op"),
    RPD_OPT_STRING("--op-trace-file", &R->opt.op_file, .arg = "FILE",
                   .help = "write the op/instance trace to FILE"),
    RPD_OPT_INT("-W|--op-trace-cmd-width", &R->opt.op_width, 0, INT32_MAX,
                "bad --op-trace-cmd-width '%s'",
                .help = "kernel name width in traces (0 = all)"),
    RPD_OPT_CALL("-i|--instance-trace", set_instance, R, .arg = "N",
                 .help = "every op of kernelseq row N (negative: from the end), "
                         "sorted by duration"),
    RPD_OPT_GROUP("Region of interest (time 0 = first api start):"),
    RPD_OPT_STRING("-s|--roi-start", &R->opt.roi_start_s, .arg = "T",
                   .help = "123.45 (ms), 123.45ms, 123450ns, .12345s, +10ms, -8ms "
                           "(from the end), 50%, or a kernel regex (its first op's "
                           "start)"),
    RPD_OPT_STRING("-e|--roi-end", &R->opt.roi_end_s, .arg = "T",
                   .help = "the end, written as --roi-start"),
    RPD_OPT_FLAG("--auto-roi|--auto-roi-top", &R->opt.auto_roi,
                 .help = "ROI = first..last start of the hottest sequence (also "
                         "--auto-roi-top)"),
    RPD_OPT_FLAG("--roi-trim", &R->opt.roi_trim,
                 .help = "cut leading/trailing idle time (all GPUs busy)"),
    RPD_OPT_I64("--gpu-id", &R->opt.gpu_id, -1, INT32_MAX, "bad --gpu-id '%s'",
                .help = "only this GPU (default -1 = all)"),
    RPD_OPT_GROUP("Ops:"),
    RPD_OPT_FLAG("--reference-ops", &R->opt.reference_ops,
                 .help = "the reference raptor's ops instead: KernelExecution, Task, "
                         "CopyDeviceToDevice, named by description only, and its "
                         "tables, which leave out the first --kernelseq-len ops "
                         "(default: every op is counted)"),
    RPD_OPT_GROUP("Output:"),
    RPD_OPT_CALL("--format", set_format, R, .arg = "F",
                 .help = "table (default), csv or json; csv is ONE table per "
                         "stream: select one table"),
    RPD_OPT_CALL("--csv-dir", set_csv_dir, R, .arg = "DIR",
                 .help = "write DIR/<table>.csv, one file per selected table "
                         "(categories, variability, gpus, kernelseq, op_trace, "
                         "instances), no stdout"),
    RPD_OPT_INT("--display-cols", &R->opt.display_cols, 0, INT32_MAX,
                "bad --display-cols '%s'",
                .help = "width of kernel names in tables (default 60)"),
    RPD_OPT_INT("--width", &R->opt.width, 0, INT32_MAX,
                "bad --width '%s' (columns; 0 = no limit)",
                .help = "text tables at most N columns wide: kernel names cut first "
                        "(not below 24), then the least needed columns left out; 0 "
                        "= no limit (default: the terminal's width when stdout is a "
                        "terminal, else no limit)"),
    RPD_OPT_INT("--display-rows", &R->opt.display_rows, 0, INT32_MAX,
                "bad --display-rows '%s'", .help = "rows shown per table (default 500)"),
    RPD_OPT_INT("--float-digits", &R->opt.float_digits, 0, 17,
                "bad --float-digits '%s' (0..17)",
                .help = "digits after '.' in tables (default 1)"),
    RPD_OPT_FLAG("-x|--write-xls", &R->opt.write_xls,
                 .help = "write FILE.xlsx: info (trace, ROI, options, units), "
                         "kernelseq, pretty kernelseq, category, variability; "
                         "formatted numbers, fitted widths, frozen header, filter, "
                         "charts"),
    RPD_OPT_CALL0("--write-xls-op-trace", set_xls_op, R,
                  .help = "also the op trace (implies -x)"),
    RPD_OPT_FLAG("--save", &R->opt.save,
                 .help = "store the results as ext_raptor_* tables in the trace "
                         "(replaced on each run)"),
    RPD_OPT_END(),
  };
  return rows_dup(t, sizeof t);
}

rpd_opt *raptor_opt_table(raptor *R, rpd_opt_ints *gaps)
{
  /* --csv-raw as every tool's: whole, not abbreviated (--csv = --csv-dir) */
  const rpd_opt top[] = {
    RPD_OPT_ABBREV(classic_rows(R, gaps)),
    RPD_OPT_CSV_RAW(),
    RPD_OPT_END(),
  };
  return rows_dup(top, sizeof top);
}

void raptor_opt_table_free(rpd_opt *opts)
{
  if (!opts) return;
  free((void *)opts[0].value);
  free(opts);
}

int raptor_parse_args(raptor *R, int argc, char **argv)
{
  rpd_opt_ints gaps = {0};
  rpd_opt *opts = raptor_opt_table(R, &gaps);
  char msg[512];
  /* a copy: the parser moves the positionals to its front, and the
   * caller's argv (the library API's) stays as it was */
  char **av = rpd_xmalloc(((size_t)argc + 1) * sizeof *av);
  memcpy(av, argv, (size_t)argc * sizeof *av);
  av[argc] = NULL;
  int n = rpd_opt_parse(opts, RPD_OPT_CLUSTER, argc, av, msg, sizeof msg);
  int ret = 0;
  if (n < 0) ret = raptor_usage(R, "%s", msg);
  else if (n > 1) ret = raptor_usage(R, "unexpected argument '%s'", av[1]);
  else if (n == 0) ret = raptor_usage(R, "missing FILE");
  else R->opt.path = av[0];
  free(av);
  raptor_opt_table_free(opts);
  if (!ret) {
    set_gaps(R, &gaps);
    record_options(R, argc, argv);
  }
  rpd_opt_ints_free(&gaps);
  return ret;
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

