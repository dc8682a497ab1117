/* rpd-analyze - why is the GPU idle: idle-time breakdown, launch statistics,
 * queue depth, comm/compute overlap, memcpy bandwidth and rule findings,
 * written into the trace as ext_analysis_* tables (views/analysis.sql). */
static const char usage[] =
"usage: rpd-analyze FILE [-o OUT] [--force] [--kernel-wait-us X]\n"
"                   [--rule NAME=VALUE ...]\n"
"\n"
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
"A summary is printed on stdout.\n"
"\n"
"  --kernel-wait-us X   an idle gap of at most X us between queued work is\n"
"                       kernel-wait (default 50)\n"
"  --rule NAME=VALUE    set the threshold of rule NAME (see\n"
"                       ext_analysis_rules; repeatable)\n"
"  -o OUT               write the result to OUT, leave FILE untouched\n"
"  --force              rebuild the analysis if FILE has one\n"
"\n"
"Works on schema v2 and v3 traces and rpd-import output; FILE may be .gz.\n"
"See docs/rpd-analyze.md.\n";

#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "check.h"
#include "namelist.h"
#include "progress.h"
#include "opt.h"
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

/* Parse our options before the driver opens anything: bad values are usage
 * errors (exit 2).  Returns 0 or the exit code. */
static int parse_options(opts *o, int argc, char **argv)
{
  const char *skip;
  const rpd_opt table[] = {
    RPD_OPT_CALL("--kernel-wait-us", on_kernel_wait, o),
    RPD_OPT_CALL("--rule", on_rule, o),
    RPD_OPT_STRING("-o|--output", &skip),
    RPD_OPT_END(),
  };
  char msg[512];
  memcpy(o->rules, default_rules, sizeof o->rules);
  o->kernel_wait_us = 50;
  if (rpd_opt_peek(table, argc, argv, msg, sizeof msg))
    return rpd_usage_error("%s", msg);
  return 0;
}

/* The options parse_options read: the augmenter driver steps over them. */
static const char *read_value;
static const rpd_opt read_before[] = {
  RPD_OPT_STRING("--kernel-wait-us|--rule", &read_value),
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

/* The rows the phases of the progress line scan (common/progress.h): each
 * statement's full scans, the temp tables counted as the rows they copy. */
static const char *const op_tables[] = {"rocpd_api_ops", "rocpd_op", "rocpd_op", NULL};
static const char *const gap_tables[] = {"rocpd_api", "rocpd_api", "rocpd_op", NULL};
static const char *const stats_tables[] = {"rocpd_op", "rocpd_op", "rocpd_op", "rocpd_op",
                                           "rocpd_op", NULL};
static const char *const queue_tables[] = {"rocpd_op", "rocpd_op", "rocpd_op", NULL};

static int build_analysis(rpd *r, void *ctx)
{
  opts *o = ctx;
  char params[96];
  /* sorts spill to temp files beyond this: memory stays flat in trace size */
  int rc = rpd_profile(r, RPD_OPEN_SORT);
  if (!rc)
    rc = check_tables(r);
  if (!rc)
    rc = rpd_view_install(r, "analysis");
  rpd_progress_sql_total(r, "ops", rpd_progress_rows_of(r, op_tables));
  if (!rc)
    rc = an_build_op_table(r);
  if (!rc)
    rc = write_rules(r, o);
  rpd_progress_sql_total(r, "idle gaps", rpd_progress_rows_of(r, gap_tables));
  if (!rc)
    rc = an_api_rule(r, o, R_SYNC_MEMCPY);
  if (!rc)
    rc = an_api_rule(r, o, R_DEVICE_SYNC);
  if (!rc)
    rc = an_sweep(r, o);
  rpd_progress_sql_total(r, "kernel statistics", rpd_progress_rows_of(r, stats_tables));
  if (!rc)
    rc = an_launch_stats(r);
  rpd_progress_sql_total(r, "queue depth", rpd_progress_rows_of(r, queue_tables));
  if (!rc)
    rc = an_queue_depth(r);
  if (!rc)
    rc = an_memcpy(r);
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
    rc = rpd_exec(r, "DROP TABLE temp.an_op; DROP TABLE temp.an_launch;"
                     " DROP TABLE temp.an_shared;");
  snprintf(params, sizeof params, "kernel_wait_us=%g", o->kernel_wait_us);
  if (!rc)
    rc = rpd_meta_set(r, DONE_TAG, params);
  return rc;
}

static double pct(int64_t part, int64_t whole)
{
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void summary(void *ctx)
{
  const opts *o = ctx;
  if (!o->ngpus)
    printf("%s: no GPU work (kernels or copies): no idle breakdown\n", rpd_progname);
  else
    printf("%s: %lld GPUs: busy %.3f ms, idle %.3f ms = host-wait %.3f ms (%.1f%%)"
         " + kernel-wait %.3f ms (%.1f%%) + other %.3f ms (%.1f%%)\n",
         rpd_progname, (long long)o->ngpus, (double)o->busy_ns / 1e6,
         (double)o->idle_ns / 1e6, (double)o->host_ns / 1e6, pct(o->host_ns, o->idle_ns),
         (double)o->kwait_ns / 1e6, pct(o->kwait_ns, o->idle_ns),
         (double)o->other_ns / 1e6, pct(o->other_ns, o->idle_ns));
  printf("%s: %lld kernels (%lld launch-bound), %lld queue-depth points,"
         " %lld memcpy buckets, %lld findings\n",
         rpd_progname, (long long)o->nkernels, (long long)o->nlaunch_bound,
         (long long)o->nqueue_points, (long long)o->nmemcpy, (long long)o->nfindings);
  for (int k = 0; k < NRULES; k++)
    if (o->findings[k])
      printf("  %-18s %-8s %5lld  %s\n", o->rules[k].name, o->rules[k].severity,
             (long long)o->findings[k], o->rules[k].advice);
}

int main(int argc, char **argv)
{
  opts o;
  int rc;

  memset(&o, 0, sizeof o);
  if (rpd_cli_init(argc, argv, usage))
    return rpd_cli_status();
  if ((rc = parse_options(&o, argc, argv)))
    return rc;
  rpd_augment a = {
    .usage = usage,
    .what = "the analysis",
    .done_tag = DONE_TAG,
    .opts = read_before,
    .drop = drop_analysis,
    .build = build_analysis,
    .ctx = &o,
    .summary = summary,
  };
  return rpd_augment_main(&a, argc, argv);
}
