/* options.c - raptor --report: the usage text and the command line
 * (report options, TraceLens option and sheet names).  See docs/report.md. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/num.h"

const char raptor_report_usage[] =
"usage: raptor FILE --report [options]\n"
"\n"
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
"                    p10, p90 step time and their spread\n"
"\n"
"  --short-kernel-threshold-us X   short-kernel threshold (default 10)\n"
"  --histogram-bins N              bins of the histogram (default 100)\n"
"  --topk N                        kernel_details rows (default 20; 0 = all)\n"
"  --gpu-id N                      only GPU N\n"
"  --category-json F               raptor categories {\"name\": [regex..]} (last\n"
"                                  match wins; default: the built-in set that\n"
"                                  raptor -c uses, raptor/categories.json);\n"
"                                  _COMM (or _Collective) is communication\n"
"  --format table|csv|json         stdout format (default table); csv is one\n"
"                                  table per stream: name it with --table\n"
"  --table NAME                    print only that table (a name above)\n"
"  --width N                       the text tables at most N columns wide\n"
"                                  (default: the terminal's width; 160 when\n"
"                                  stdout is not a terminal; 0 = no limit):\n"
"                                  long names are cut in the middle; CSV,\n"
"                                  JSON, xlsx, HTML keep them whole\n"
"  --csv-dir D                     also write D/<table>.csv\n"
"  --xlsx F                        also write an Excel workbook: an info sheet,\n"
"                                  a sheet per table (formatted, frozen header,\n"
"                                  filter) with charts, plus utilization and\n"
"                                  idle_gaps sheets\n"
"  --html F                        also write one self-contained HTML page: SVG\n"
"                                  charts, sortable and filterable tables\n"
"  --util-bins N                   utilization-over-time bins (default 100)\n"
"  --rank-top N                    rows of byrank_kernels, _sequences and\n"
"                                  _collectives (default 50, as --by-rank\n"
"                                  --top; 0 = all)\n"
"  --step-marker REGEX             the step markers: UserMarker ranges whose\n"
"                                  text matches (default ^ProfilerStep#[0-9]+$)\n"
"  --steady-state                  every table covers only the steady steps\n"
"                                  (ops starting from the first steady step's\n"
"                                  start to the last one's end)\n"
"  --save                          store ext_report_* tables in FILE (one\n"
"                                  transaction; replaces an earlier report)\n"
"  -q, --quiet                     no stdout tables (with --save/--csv-dir/--xlsx/\n"
"                                  --html); no progress line\n"
"  --csv-raw                       CSV cells as they are (default: a text that\n"
"                                  starts with = + - @ TAB CR gets a leading ')\n"
"\n"
"TraceLens names are accepted too: --short_kernel_threshold_us X,\n"
"--output_xlsx_path F (= --xlsx), --output_csvs_dir D (= --csv-dir),\n"
"--topk_kernels N (= --topk), --kernel_details (kernel_details of every\n"
"dispatch: --topk 0), and for --table the sheet names\n"
"kernel_summary_by_category, short_kernels_summary, short_kernel_histogram.\n";


static int parse_num(const char *opt, const char *s, double lo, double *v)
{
  char *e;
  errno = 0;
  *v = s ? strtod(s, &e) : 0;
  if (!s || !*s || *e || errno || !isfinite(*v) || *v < lo)
    return rpd_usage_error("%s: bad value '%s'", opt, s ? s : "");
  return 0;
}

static int int_opt(const char *opt, const char *s, int lo, int hi, int *v)
{
  double x;
  if (parse_num(opt, s, lo, &x))
    return 2;
  if (x != floor(x) || x > hi)
    return rpd_usage_error("%s: bad value '%s'", opt, s);
  *v = (int)x;
  return 0;
}

/* TraceLens generate_perf_report_rocprof option names -> ours. */
static const char *tracelens_name(const char *a)
{
  static const char *const map[][2] = {
    {"--short_kernel_threshold_us", "--short-kernel-threshold-us"},
    {"--output_xlsx_path", "--xlsx"},
    {"--output_csvs_dir", "--csv-dir"},
    {"--topk_kernels", "--topk"},
  };
  for (size_t k = 0; k < sizeof map / sizeof *map; k++)
    if (!strcmp(a, map[k][0]))
      return map[k][1];
  return a;
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

/* Parse argv into *o (see internal.h). */
int report_parse_opts(int argc, char **argv, ropts *o)
{
  double v;
  memset(o, 0, sizeof *o);
  o->threshold_us = 10;
  o->bins = 100;
  o->topk = 20;
  o->gpu = -1;
  o->fmt = RPD_FMT_TABLE;
  o->util_bins = 100;
  o->rank_top = 50;      /* raptor --by-rank --top's default */
  o->lo = INT64_MIN;
  o->hi = INT64_MAX;
  o->width = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = tracelens_name(argv[i]), *val = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (!strcmp(a, "--report"))
      takes = 0;
    else if (!strcmp(a, "--kernel_details"))
      o->details = 1, takes = 0;
    else if (!strcmp(a, "--html"))
      o->html = val;
    else if (!strcmp(a, "--util-bins")) {
      if (int_opt(a, val, 1, 100000, &o->util_bins))
        return 2;
    }
    else if (!strcmp(a, "--save"))
      o->save = 1, takes = 0;
    else if (!strcmp(a, "--steady-state"))
      o->steady = 1, takes = 0;
    else if (!strcmp(a, "--step-marker"))
      o->step_marker = val;
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
      o->quiet = 1, takes = 0;
    else if (rpd_cli_csv_raw_opt(a))
      takes = 0;
    else if (!strcmp(a, "--short-kernel-threshold-us")) {
      if (parse_num(a, val, 0, &v))
        return 2;
      o->threshold_us = v;
    } else if (!strcmp(a, "--histogram-bins")) {
      if (int_opt(a, val, 1, 1000000, &o->bins))
        return 2;
    } else if (!strcmp(a, "--topk")) {
      if (int_opt(a, val, 0, 1000000000, &o->topk))
        return 2;
      o->topk_set = 1;
    } else if (!strcmp(a, "--gpu-id")) {
      if (int_opt(a, val, 0, 1000000000, &o->gpu))
        return 2;
    } else if (!strcmp(a, "--xlsx"))
      o->xlsx = val;
    else if (!strcmp(a, "--csv-dir"))
      o->csv_dir = val;
    else if (!strcmp(a, "--category-json"))
      o->cat_json = val;
    else if (!strcmp(a, "--table")) {
      val = tracelens_sheet(val);
      if (!known_table(val))
        return rpd_usage_error("--table: use gpu_timeline, kernel_summary, category,"
                               " kernel_details, short_kernels, short_histogram,"
                               " utilization, idle_gaps, idle_definitions, api_stats, steps,"
                               " steps_summary, analysis_*, byrank_*, the performance-model"
                               " sheets (GEMM, SDPA_fwd, ..., perf_roofline, perf_peaks) or the"
                               " TraceLens sheet names");
      o->only = val;
    } else if (!strcmp(a, "--width")) {
      if (!val || rpd_parse_i64_range(val, 0, INT64_MAX, &o->width))
        return rpd_usage_error("--width: '%s' is not a number of columns", val ? val : "");
    } else if (!strcmp(a, "--rank-top")) {
      int top;
      if (int_opt(a, val, 0, 1000000000, &top))
        return 2;
      o->rank_top = top;
    }
    else if (!strcmp(a, "--format")) {
      if (!val || rpd_fmt_parse(val, &o->fmt))
        return rpd_usage_error("--format: use table, csv or json");
    } else if (a[0] == '-' && a[1])
      return rpd_usage_error("--report: unknown option '%s'", a);
    else if (!o->path)
      o->path = a, takes = 0;
    else
      return rpd_usage_error("--report: unexpected argument '%s'", a);
    if (takes) {
      if (!val)
        return rpd_usage_error("%s needs a value", a);
      i++;
    }
  }
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

