/* links: rpd-import */
/* rpd-analyze - why is the GPU idle: idle-time breakdown, launch statistics,
 * queue depth, comm/compute overlap, memcpy bandwidth and rule findings,
 * written into the trace as ext_analysis_* tables (views/analysis.sql). */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-analyze FILE [-o OUT] [--force] [--kernel-wait-us X]\n"
           "                   [--rule NAME=VALUE ...] [-f FMT]",
  .about =
    "Analyse why the GPUs are idle and write the results into FILE:\n"
    "  ext_analysis_idle         per GPU: span, busy, idle = host_wait +\n"
    "                            kernel_wait + other (ns)\n"
    "  ext_analysis_launch       per kernel: api duration, launch delay, GPU\n"
    "                            duration (mean, median, p95, max), outliers,\n"
    "                            launch_bound\n"
    "  ext_analysis_queue_depth  per GPU queue: ops launched and not finished\n"
    "  ext_analysis_overlap      per GPU: communication overlapped by compute\n"
    "                            and exposed; copies not overlapped by kernels\n"
    "  ext_analysis_memcpy       memcpy bandwidth by direction and size bucket\n"
    "  ext_analysis_rules        the rules of the findings and their thresholds\n"
    "  ext_analysis_findings     one row per hit: rule, severity, time range,\n"
    "                            count, value (in the unit value_unit says),\n"
    "                            advice\n"
    "A summary is printed on stdout.",
  .notes =
    "Works on schema v2 and v3 traces and rpd-import output; FILE may be .gz.\n"
    "See docs/rpd-analyze.md.\n",
};

#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "check.h"
#include "namelist.h"
#include "progress.h"
#include "opt.h"
#include "table.h"
#include "textcut.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */
#define DONE_TAG "ext_analysis::done"

/* ------------------------------------------------------------ rules */

/* The rules, as data: written to ext_analysis_rules and read by the
 * detectors (thresholds may be changed with --rule NAME=VALUE). */
static const rule default_rules[NRULES] = {
  {"sync_memcpy", "warning", 0, "calls", "us total call time", 0, 1,
   "synchronous hipMemcpy/hipMemset calls (not *Async)",
   "use hipMemcpyAsync/hipMemsetAsync on a stream with pinned host memory"},
  {"device_sync", "warning", 0, "calls", "us total call time", 0, 10,
   "hipDeviceSynchronize called at least min_count times by one thread",
   "synchronize a stream or an event instead of the whole device, outside loops"},
  {"gpu_starvation", "warning", 1000, "us", "us idle", 0, 1,
   "a GPU idle gap longer than threshold",
   "the GPU waits for the host: overlap host work, prefetch, use graphs"},
  {"low_utilization", "info", 50, "percent busy", "percent busy (mean)", 10000, 1,
   "consecutive windows of window_us where the GPU is busy below threshold",
   "batch more work per launch or run independent work concurrently"},
  {"tiny_kernel_storm", "info", 10, "us", "us per kernel (mean)", 0, 100,
   "at least min_count consecutive kernels each shorter than threshold",
   "fuse small kernels or capture them in a HIP graph"},
  {"launch_bound", "info", 0, "ns", "us per kernel (mean)", 0, 50,
   "at least min_count consecutive kernels whose GPU time is below their "
   "launch api time",
   "the launch overhead dominates: fuse kernels or use HIP graphs"},
};

/* ------------------------------------------------------------ options */

static int parse_number(const char *s, double *v)
{
  char *end;
  double d = strtod(s, &end);
  if (end == s || *end || !(d >= 0) || d > 1e15)
    return 0;
  *v = d;
  return 1;
}

static int on_rule(void *ctx, const char *name, const char *spec, char *msg, size_t msgsz)
{
  opts *o = ctx;
  const char *eq = strchr(spec, '=');
  double v;
  (void)name;
  if (!eq || !parse_number(eq + 1, &v)) {
    snprintf(msg, msgsz, "bad --rule '%s': use NAME=VALUE (a number >= 0)", spec);
    return 2;
  }
  for (int k = 0; k < NRULES; k++)
    if (strlen(o->rules[k].name) == (size_t)(eq - spec) &&
        strncmp(o->rules[k].name, spec, (size_t)(eq - spec)) == 0) {
      o->rules[k].threshold = v;
      return 0;
    }
  snprintf(msg, msgsz, "bad --rule '%s': unknown rule (see docs/rpd-analyze.md)", spec);
  return 2;
}

static int on_kernel_wait(void *ctx, const char *name, const char *val, char *msg,
                          size_t msgsz)
{
  opts *o = ctx;
  (void)name;
  if (parse_number(val, &o->kernel_wait_us))
    return 0;
  snprintf(msg, msgsz, "bad --kernel-wait-us '%s': use a number >= 0", val);
  return 2;
}

/* --format: text (-1, today's lines) or a table format. */
static int on_format(void *ctx, const char *name, const char *val, char *msg, size_t msgsz)
{
  int *fmt = ctx;
  rpd_fmt f;
  (void)name;
  if (strcmp(val, "text") == 0)
    *fmt = -1;
  else if (strcmp(val, "md") == 0)
    *fmt = RPD_FMT_MD;
  else if (rpd_fmt_parse(val, &f) == RPD_OK)
    *fmt = (int)f;
  else {
    snprintf(msg, msgsz, "bad --format '%s': use text, table, csv, json or md", val);
    return 2;
  }
  return 0;
}

/* Parse our options before the driver opens anything: bad values are usage
 * errors (exit 2).  Returns 0 or the exit code. */
static int parse_options(opts *o, int argc, char **argv)
{
  const char *skip;
  const rpd_opt table[] = {
    RPD_OPT_CALL("--kernel-wait-us", on_kernel_wait, o),
    RPD_OPT_CALL("--rule", on_rule, o),
    RPD_OPT_CALL("-f|--format", on_format, &o->format),
    RPD_OPT_STRING("-o|--output", &skip),
    RPD_OPT_END(),
  };
  char msg[512];
  memcpy(o->rules, default_rules, sizeof o->rules);
  o->kernel_wait_us = 50;
  o->format = -1;
  if (rpd_opt_peek(table, argc, argv, msg, sizeof msg))
    return rpd_usage_error("%s", msg);
  return 0;
}

/* The options parse_options read: the augmenter driver steps over them. */
static const char *read_value;
static const rpd_opt read_before[] = {
  RPD_OPT_STRING("-f|--format", &read_value, .arg = "FMT",
                 .help = "the summary as text (default: two lines and the rules that "
                         "fired), or as two tables, summary and findings: table, csv, "
                         "json or md"),
  RPD_OPT_STRING("--kernel-wait-us", &read_value, .arg = "X",
                 .help = "an idle gap of at most X us between queued work is kernel-wait "
                         "(default 50)"),
  RPD_OPT_STRING("--rule", &read_value, .arg = "NAME=VALUE",
                 .help = "set the threshold of rule NAME (see ext_analysis_rules; "
                         "repeatable)"),
  RPD_OPT_END(),
};

static int write_rules(rpd *r, const opts *o)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, "INSERT INTO ext_analysis_rules VALUES (?,?,?,?,?,?,?,?)", &st);
  for (int k = 0; !rc && k < NRULES; k++) {
    const rule *ru = &o->rules[k];
    int s;
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, ru->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, ru->severity, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 3, ru->threshold);
    sqlite3_bind_text(st, 4, ru->unit, -1, SQLITE_STATIC);
    if (ru->window_us > 0)
      sqlite3_bind_double(st, 5, ru->window_us);
    else
      sqlite3_bind_null(st, 5);
    sqlite3_bind_int64(st, 6, ru->min_count);
    sqlite3_bind_text(st, 7, ru->description, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, ru->advice, -1, SQLITE_STATIC);
    if ((s = rpd_step(r, st)) < 0)
      rc = -s;
  }
  sqlite3_finalize(st);
  return rc;
}

/* The columns of each table of views/analysis.sql: a table of that name
 * with other columns is the user's, never dropped (rpd_check_owned). */
static const char *const rules_cols[] = {"rule", "severity", "threshold", "unit",
  "window_us", "min_count", "description", "advice", NULL};
static const char *const idle_cols[] = {"gpuId", "span_ns", "busy_ns", "idle_ns",
  "host_wait_ns", "kernel_wait_ns", "other_ns", "gaps", NULL};
static const char *const launch_cols[] = {"kernel", "count", "api_mean_ns",
  "api_median_ns", "api_p95_ns", "api_max_ns", "delay_mean_ns", "delay_median_ns",
  "delay_p95_ns", "delay_max_ns", "gpu_mean_ns", "gpu_median_ns", "gpu_p95_ns",
  "gpu_max_ns", "outliers", "launch_bound", NULL};
static const char *const queue_cols[] = {"gpuId", "queueId", "time_ns", "depth", NULL};
static const char *const overlap_cols[] = {"gpuId", "comm_ns", "compute_ns",
  "overlap_ns", "exposed_comm_ns", "copy_ns", "exposed_copy_ns", NULL};
static const char *const memcpy_cols[] = {"direction", "size_bucket", "count", "bytes",
  "gpu_ns", "gbps", NULL};
static const char *const findings_cols[] = {"id", "rule", "severity", "gpuId", "tid",
  "start_ns", "end_ns", "count", "value", "value_unit", "detail", "advice", NULL};
/* the findings table of the versions before value_unit: rebuilt by --force */
static const char *const findings_cols_v1[] = {"id", "rule", "severity", "gpuId", "tid",
  "start_ns", "end_ns", "count", "value", "detail", "advice", NULL};
static const struct {
  const char *table;
  const char *const *cols;
} owned[] = {
  {"ext_analysis_rules", rules_cols}, {"ext_analysis_idle", idle_cols},
  {"ext_analysis_launch", launch_cols}, {"ext_analysis_queue_depth", queue_cols},
  {"ext_analysis_overlap", overlap_cols}, {"ext_analysis_memcpy", memcpy_cols},
  {"ext_analysis_findings", findings_cols},
};

static int check_tables(rpd *r)
{
  int rc = RPD_OK;
  for (size_t k = 0; !rc && k < N(owned); k++) {
    rc = rpd_check_owned(r, owned[k].table, owned[k].cols);
    if (rc && owned[k].cols == findings_cols &&
        rpd_check_owned(r, owned[k].table, findings_cols_v1) == RPD_OK)
      rc = RPD_OK;
  }
  return rc;
}

/* ------------------------------------------------------------ driver */

static int drop_analysis(rpd *r, void *ctx)
{
  (void)ctx;
  return rpd_meta_clear(r, DONE_TAG);
}

/* The rows the phases of the progress line scan (common/trace/progress.h): each
 * statement's full scans, the temp tables counted as the rows they copy.
 * The links are read once, along the ops (tables.c); a trace whose call
 * ids come out of order reads them a second time for its GROUP BY and
 * shows 99% for that scan. */
static const char *const scan_tables[] = {"rocpd_api", "rocpd_api_ops", "rocpd_op", NULL};

/* The build reads before it writes: the scans of rocpd_api and rocpd_op
 * apply the trace check's rule (check.h) to every row, in that order (the
 * message of rpd_check_trace: rocpd_api's first), so a bad trace is
 * refused before the first ext_analysis_* table is made. */
static int build_analysis(rpd *r, void *ctx)
{
  opts *o = ctx;
  an_scan *sc = NULL;
  an_calls *calls = NULL;
  char params[96];
  /* sorts spill to temp files beyond this: memory stays flat in trace size */
  int rc = rpd_profile(r, RPD_OPEN_SORT);
  if (!rc)
    rc = check_tables(r);
  rpd_progress_sql_total(r, "api calls and ops", rpd_progress_rows_of(r, scan_tables));
  if (!rc)
    rc = an_calls_open(r, &calls);
  if (!rc)
    rc = an_scan_ops(r, calls, &sc);
  /* the calls the links did not ask for; a bad call's message before a
   * bad op's, as rpd_check_trace gives them */
  if (calls && (!rc || rc == RPD_ERANGE)) {
    int crc = an_calls_finish(calls);
    if (crc)
      rc = crc;
  }
  an_calls_free(calls);
  /* the sweep, the statistics and the queue depth merge their sorts in C:
   * progress over the sorted records (rpd_progress) */
  rpd_progress_end();
  if (!rc)
    rc = rpd_view_install(r, "analysis");
  if (!rc)
    rc = write_rules(r, o);
  if (!rc)
    rc = an_api_rule(r, o, R_SYNC_MEMCPY);
  if (!rc)
    rc = an_api_rule(r, o, R_DEVICE_SYNC);
  if (!rc)
    rc = an_sweep(r, o, sc);
  if (!rc)
    rc = an_launch_stats(r, sc);
  if (!rc)
    rc = an_queue_depth(r, sc);
  if (!rc)
    rc = an_memcpy(r, an_scan_copy_links(sc));
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_analysis_launch", &o->nkernels);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_analysis_launch WHERE launch_bound",
                         &o->nlaunch_bound);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_analysis_queue_depth",
                         &o->nqueue_points);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_analysis_memcpy", &o->nmemcpy);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_analysis_findings", &o->nfindings);
  if (!rc)
    rc = rpd_exec(r, "DROP TABLE temp.an_copy; DROP TABLE IF EXISTS temp.an_launch;"
                     " DROP TABLE temp.an_shared; DROP TABLE temp.an_sync;"
                     " DROP TABLE temp.an_copylink;");
  an_scan_free(sc);
  snprintf(params, sizeof params, "kernel_wait_us=%g", o->kernel_wait_us);
  if (!rc)
    rc = rpd_meta_set(r, DONE_TAG, params);
  return rc;
}

static double pct(int64_t part, int64_t whole)
{
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* The summary as two tables: `summary` (one row: the idle breakdown of
 * every GPU together, in ns and percent of idle, and the row counts of the
 * tables written; the idle columns NULL without GPU work) and `findings`
 * (one row per rule that fired). */
static const char *const summary_cols[] = {"gpus", "busy_ns", "idle_ns", "host_wait_ns",
  "host_wait_pct", "kernel_wait_ns", "kernel_wait_pct", "other_ns", "other_pct", "kernels",
  "launch_bound", "queue_depth_points", "memcpy_buckets", "findings"};
static const char *const fired_cols[] = {"rule", "severity", "count", "advice"};
enum { S_GPUS, S_BUSY, S_IDLE, S_HOST, S_HOST_PCT, S_KWAIT, S_KWAIT_PCT, S_OTHER,
       S_OTHER_PCT, S_KERNELS, S_LB, S_QUEUE, S_MEMCPY, S_FINDINGS };

static void summary_tables(const opts *o, rpd_tables *ts)
{
  rpd_table *t = rpd_tables_add(ts);
  const int64_t part[3] = {o->host_ns, o->kwait_ns, o->other_ns};
  rpd_table_init(t, "summary", (int)N(summary_cols), summary_cols, NULL);
  rpd_table_int(t, o->ngpus);
  if (o->ngpus) {
    rpd_table_int(t, o->busy_ns);
    rpd_table_int(t, o->idle_ns);
    for (int k = 0; k < 3; k++) {
      rpd_table_int(t, part[k]);
      rpd_table_dbl(t, pct(part[k], o->idle_ns), 1);
    }
  } else {
    for (int k = S_BUSY; k <= S_OTHER_PCT; k++)
      rpd_table_null(t);
  }
  rpd_table_int(t, o->nkernels);
  rpd_table_int(t, o->nlaunch_bound);
  rpd_table_int(t, o->nqueue_points);
  rpd_table_int(t, o->nmemcpy);
  rpd_table_int(t, o->nfindings);
  t = rpd_tables_add(ts);
  rpd_table_init(t, "findings", (int)N(fired_cols), fired_cols, NULL);
  for (int k = 0; k < NRULES; k++)
    if (o->findings[k]) {
      rpd_table_str(t, o->rules[k].name);
      rpd_table_str(t, o->rules[k].severity);
      rpd_table_int(t, o->findings[k]);
      rpd_table_str(t, o->rules[k].advice);
    }
}

/* The text summary: the two tables as two lines and a line per rule that
 * fired (ms from the ns cells). */
static void summary_text(const rpd_tables *ts)
{
  const rpd_table *s = &ts->t[0], *f = &ts->t[1];
#define I(k) ((long long)rpd_table_cell(s, 0, (k))->i)
#define MS(k) ((double)rpd_table_cell(s, 0, (k))->i / 1e6)
#define D(k) (rpd_table_cell(s, 0, (k))->d)
  if (!I(S_GPUS))
    printf("%s: no GPU work (kernels or copies): no idle breakdown\n", rpd_progname);
  else
    printf("%s: %lld GPUs: busy %.3f ms, idle %.3f ms = host-wait %.3f ms (%.1f%%)"
         " + kernel-wait %.3f ms (%.1f%%) + other %.3f ms (%.1f%%)\n",
         rpd_progname, I(S_GPUS), MS(S_BUSY), MS(S_IDLE), MS(S_HOST), D(S_HOST_PCT),
         MS(S_KWAIT), D(S_KWAIT_PCT), MS(S_OTHER), D(S_OTHER_PCT));
  printf("%s: %lld kernels (%lld launch-bound), %lld queue-depth points,"
         " %lld memcpy buckets, %lld findings\n",
         rpd_progname, I(S_KERNELS), I(S_LB), I(S_QUEUE), I(S_MEMCPY), I(S_FINDINGS));
  for (size_t r = 0; r < f->nrows; r++)
    printf("  %-18s %-8s %5lld  %s\n", rpd_table_cell(f, r, 0)->s,
           rpd_table_cell(f, r, 1)->s, (long long)rpd_table_cell(f, r, 2)->i,
           rpd_table_cell(f, r, 3)->s);
#undef I
#undef MS
#undef D
}

static void summary(void *ctx)
{
  const opts *o = ctx;
  rpd_tables ts = {0};
  summary_tables(o, &ts);
  if (o->format < 0)
    summary_text(&ts);
  else
    (void)rpd_tables_stdout(&ts, (rpd_fmt)o->format, NULL,
                            rpd_term_width(1, RPD_TEXT_DEFAULT_WIDTH));
  rpd_tables_free(&ts);
}

int main(int argc, char **argv)
{
  rpd_set_import_reader(rpdi_direct_read, NULL);
  opts o;
  int rc;

  memset(&o, 0, sizeof o);
  rpd_augment a = {
    .help = &help,
    .what = "the analysis",
    .done_tag = DONE_TAG,
    .opts = read_before,
    .drop = drop_analysis,
    .build = build_analysis,
    .ctx = &o,
    .summary = summary,
    .checks_itself = 1,   /* in the scans of rocpd_api and rocpd_op */
  };
  if (rpd_augment_init(&a, argc, argv))
    return rpd_cli_status();
  if ((rc = parse_options(&o, argc, argv)))
    return rc;
  return rpd_augment_main(&a, argc, argv);
}
