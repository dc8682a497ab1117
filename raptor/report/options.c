/* options.c - raptor --report: the usage text and the command line
 * (report options, TraceLens option and sheet names).  See docs/report.md. */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "opt.h"
#include "util/num.h"

static const rpd_help help = {
  .usage = "usage: raptor FILE --report [options]",
  .about =
    "The TraceLens-style rocprofv3 report, from any RPD trace (see rpd-import\n"
    "for rocprofv3 JSON/CSV/database input):\n"
    "  gpu_timeline      per GPU and for all GPUs (gpuId empty): total_time,\n"
    "                    kernel, memory, busy_time, idle, computation,\n"
    "                    exposed_comm, exposed_memcpy (time_ms, percent)\n"
    "  kernel_summary    per kernel name: count, total/mean/median/std/min/max\n"
    "                    in us, percent, cumulative_percent, category\n"
    "  category          per category: kernels, count, total_ms, percent, ...\n"
    "  kernel_details    the top K dispatches by duration with grid/block\n"
    "  short_kernels     kernels shorter than the threshold, per name\n"
    "  short_histogram   histogram of the short kernels' durations (us)\n"
    "  analysis_*        the rpd-analyze tables when the trace has them: idle,\n"
    "                    launch, queue, overlap, memcpy, findings, rules\n"
    "  byrank_*          on a trace of several ranks (rpd-merge): the tables of\n"
    "                    raptor --by-rank: ranks, categories, kernels, sequences,\n"
    "                    collectives, stragglers\n"
    "  steps             one row per step (ProfilerStep#N markers, --step-marker,\n"
    "                    else the period of the kernel sequence): step, start_ms,\n"
    "                    dur_ms, gpu_busy_ms, idle_ms, kernels, steady\n"
    "  steps_summary     the steady state: steps, warm-up steps left out, median,\n"
    "                    p10, p90 step time and their spread",
  .quiet = "no stdout tables (with --save/--csv-dir/--xlsx/--html); no progress line",
  .notes =
    "TraceLens names are accepted too: --short_kernel_threshold_us X,\n"
    "--output_xlsx_path F (= --xlsx), --output_csvs_dir D (= --csv-dir),\n"
    "--topk_kernels N (= --topk), --kernel_details (kernel_details of every\n"
    "dispatch: --topk 0), and for --table the sheet names\n"
    "kernel_summary_by_category, short_kernels_summary, short_kernel_histogram.\n",
};

/* A number option: its name in messages (ours, also when the TraceLens
 * spelling was used), where it goes, and its range. */
typedef struct numopt {
  const char *name;
  double lo, hi;
  int *ival;             /* an integer option, else dval */
  double *dval;
  int *set;              /* when not NULL: set to 1 */
} numopt;

/* The value of a numopt: a number (strtod's spellings, "1e3" too) at
 * least lo; an integer option also integral and at most hi. */
static int num_opt(void *ctx, const char *name, const char *s, char *msg, size_t msgsz)
{
  const numopt *n = ctx;
  char *e;
  double v;
  (void)name;
  errno = 0;
  v = strtod(s, &e);
  if (!*s || *e || errno || !isfinite(v) || v < n->lo ||
      (n->ival && (v != floor(v) || v > n->hi))) {
    snprintf(msg, msgsz, "%s: bad value '%s'", n->name, s);
    return -1;
  }
  if (n->ival)
    *n->ival = (int)v;
  else
    *n->dval = v;
  if (n->set)
    *n->set = 1;
  return 0;
}

/* TraceLens sheet names -> our table names (others unchanged; NULL stays). */
static const char *tracelens_sheet(const char *v)
{
  static const char *const map[][2] = {
    {"kernel_summary_by_category", "category"},
    {"short_kernels_summary", "short_kernels"},
    {"short_kernel_histogram", "short_histogram"},
  };
  for (size_t k = 0; v && k < sizeof map / sizeof *map; k++)
    if (!strcmp(v, map[k][0]))
      return map[k][1];
  return v;
}

/* 1 if v names a table the report can print (--table). */
static int known_table(const char *v)
{
  static const char *const names[] = {"gpu_timeline", "kernel_summary", "category",
                                      "kernel_details", "short_kernels", "short_histogram",
                                      "utilization", "idle_gaps", "idle_definitions"};
  for (size_t k = 0; v && k < sizeof names / sizeof *names; k++)
    if (!strcmp(v, names[k]))
      return 1;
  return v && (report_analysis_name(v) || report_rank_name(v) || report_steps_name(v) ||
               report_api_name(v) || report_perf_name(v));
}

static int table_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  (void)name;
  v = tracelens_sheet(v);
  if (!known_table(v)) {
    snprintf(msg, msgsz, "--table: use gpu_timeline, kernel_summary, category,"
             " kernel_details, short_kernels, short_histogram,"
             " utilization, idle_gaps, idle_definitions, api_stats, steps,"
             " steps_summary, analysis_*, byrank_*, the performance-model"
             " sheets (GEMM, SDPA_fwd, ..., perf_roofline, perf_peaks) or the"
             " TraceLens sheet names");
    return -1;
  }
  *(const char **)ctx = v;
  return 0;
}

static int format_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  (void)name;
  if (rpd_fmt_parse(v, ctx) == 0)
    return 0;
  snprintf(msg, msgsz, "--format: use table, csv or json");
  return -1;
}

/* Answer --help / --version (-1: exit with rpd_cli_status()), else parse
 * argv into *o (see internal.h): 0 or the usage exit code.  argv itself
 * is left as it is (the report's info sheet shows the command line). */
int report_parse_opts(int argc, char **argv, ropts *o)
{
  int report = 0, rank_top = 50;   /* raptor --by-rank --top's default */
  memset(o, 0, sizeof *o);
  o->threshold_us = 10;
  o->bins = 100;
  o->topk = 20;
  o->gpu = -1;
  o->fmt = RPD_FMT_TABLE;
  o->util_bins = 100;
  o->lo = INT64_MIN;
  o->hi = INT64_MAX;
  o->width = -1;
  numopt nums[] = {
    { "--util-bins", 1, 100000, &o->util_bins, NULL, NULL },
    { "--short-kernel-threshold-us", 0, 0, NULL, &o->threshold_us, NULL },
    { "--histogram-bins", 1, 1000000, &o->bins, NULL, NULL },
    { "--topk", 0, 1000000000, &o->topk, NULL, &o->topk_set },
    { "--gpu-id", 0, 1000000000, &o->gpu, NULL, NULL },
    { "--rank-top", 0, 1000000000, &rank_top, NULL, NULL },
  };
  /* the TraceLens generate_perf_report_rocprof names are aliases */
  const rpd_opt opts[] = {
    RPD_OPT_FLAG("--report", &report,
                 .help = "this report (`raptor report FILE` is the same)"),
    RPD_OPT_CALL("--short-kernel-threshold-us|--short_kernel_threshold_us", num_opt, &nums[1],
                 .arg = "X", .help = "short-kernel threshold (default 10)"),
    RPD_OPT_CALL("--histogram-bins", num_opt, &nums[2], .arg = "N",
                 .help = "bins of the histogram (default 100)"),
    RPD_OPT_CALL("--topk|--topk_kernels", num_opt, &nums[3], .arg = "N",
                 .help = "kernel_details rows (default 20; 0 = all)"),
    RPD_OPT_FLAG("--kernel_details", &o->details, .hidden = 1),
    RPD_OPT_CALL("--gpu-id", num_opt, &nums[4], .arg = "N", .help = "only GPU N"),
    RPD_OPT_STRING("--category-json", &o->cat_json, .arg = "F",
                   .help = "raptor categories {\"name\": [regex..]} (last match wins; "
                           "default: the built-in set that raptor -c uses, "
                           "raptor/categories.json); _COMM (or _Collective) is "
                           "communication"),
    RPD_OPT_CALL("--format", format_opt, &o->fmt, .arg = "table|csv|json",
                 .help = "stdout format (default table); csv is one table per stream: name "
                         "it with --table"),
    RPD_OPT_CALL("--table", table_opt, &o->only, .arg = "NAME",
                 .help = "print only that table (a name above)"),
    RPD_OPT_I64("--width", &o->width, 0, INT64_MAX, "--width: '%s' is not a number of columns",
                .help = "the text tables at most N columns wide (default: the terminal's "
                        "width; 160 when stdout is not a terminal; 0 = no limit): long names "
                        "are cut in the middle; CSV, JSON, xlsx, HTML keep them whole"),
    RPD_OPT_STRING("--csv-dir|--output_csvs_dir", &o->csv_dir, .arg = "D",
                   .help = "also write D/<table>.csv"),
    RPD_OPT_STRING("--xlsx|--output_xlsx_path", &o->xlsx, .arg = "F",
                   .help = "also write an Excel workbook: an info sheet, a sheet per table "
                           "(formatted, frozen header, filter) with charts, plus utilization "
                           "and idle_gaps sheets"),
    RPD_OPT_STRING("--html", &o->html, .arg = "F",
                   .help = "also write one self-contained HTML page: SVG charts, sortable "
                           "and filterable tables"),
    RPD_OPT_CALL("--util-bins", num_opt, &nums[0], .arg = "N",
                 .help = "utilization-over-time bins (default 100)"),
    RPD_OPT_CALL("--rank-top", num_opt, &nums[5], .arg = "N",
                 .help = "rows of byrank_kernels, _sequences and _collectives (default 50, "
                         "as --by-rank --top; 0 = all)"),
    RPD_OPT_STRING("--step-marker", &o->step_marker, .arg = "REGEX",
                   .help = "the step markers: UserMarker ranges whose text matches (default "
                           "^ProfilerStep#[0-9]+$)"),
    RPD_OPT_FLAG("--steady-state", &o->steady,
                 .help = "every table covers only the steady steps (ops starting from the "
                         "first steady step's start to the last one's end)"),
    RPD_OPT_FLAG("--save", &o->save,
                 .help = "store ext_report_* tables in FILE (one transaction; replaces an "
                         "earlier report)"),
    /* the report's own -q (no stdout tables): help.quiet says it */
    RPD_OPT_FLAG("-q|--quiet", &o->quiet, .hidden = 1),
    RPD_OPT_CSV_RAW(),
    RPD_OPT_END(),
  };
  char msg[1024];
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return -1;
  char **args = rpd_xcalloc((size_t)argc + 1, sizeof *args);
  memcpy(args, argv, (size_t)argc * sizeof *args);
  int n = rpd_opt_parse(opts, 0, argc, args, msg, sizeof msg);
  o->path = n >= 1 ? args[0] : NULL;
  const char *extra = n > 1 ? args[1] : NULL;
  free(args);
  o->rank_top = rank_top;
  if (n < 0)
    return rpd_usage_error(n == RPD_OPT_EUNKNOWN ? "--report: %s" : "%s", msg);
  if (extra)
    return rpd_usage_error("--report: unexpected argument '%s'", extra);
  if (!o->path)
    return rpd_usage_error("--report needs a trace FILE");
  if (o->details && !o->topk_set)
    o->topk = 0;    /* TraceLens --kernel_details: every dispatch */
  if (o->fmt == RPD_FMT_CSV && !o->quiet && !o->only)
    return rpd_usage_error("--report --format csv writes one table per stream: name it"
                           " with --table NAME, or write one file per table with"
                           " --csv-dir D -q");
  return 0;
}
