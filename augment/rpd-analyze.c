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

#include "check.h"
#include "namelist.h"
#include "opclass.h"
#include "progress.h"
#include "rpd.h"
#include "opt.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define DONE_TAG "ext_analysis::done"

/* ------------------------------------------------------------ rules */

enum { R_SYNC_MEMCPY, R_DEVICE_SYNC, R_STARVATION, R_LOW_UTIL, R_TINY_STORM,
       R_LAUNCH_BOUND, NRULES };

typedef struct rule {
  const char *name, *severity;
  double threshold;
  const char *unit;     /* of the threshold */
  const char *value_unit;   /* of the value of a finding */
  double window_us;     /* 0 = none */
  int64_t min_count;
  const char *description, *advice;
} rule;

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

typedef struct opts {
  rule rules[NRULES];
  double kernel_wait_us;
  /* results for the summary */
  int64_t ngpus, nkernels, nlaunch_bound, nqueue_points, nmemcpy, nfindings;
  int64_t idle_ns, host_ns, kwait_ns, other_ns, busy_ns;
  int64_t findings[NRULES];
} opts;

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

/* ------------------------------------------------------------ op table */

/* temp.an_op: one row per op with its class, name, communication flag and
 * the api call that launched it (earliest linked call). */
static int build_op_table(rpd *r)
{
  const char *cls = rpd_opclass_select();
  if (!cls)
    return rpd_seterr(RPD_ERR, "the opClass view is missing");
  int rc = rpd_exec(r,
    "DROP TABLE IF EXISTS temp.an_launch; DROP TABLE IF EXISTS temp.an_op;"
    "DROP TABLE IF EXISTS temp.an_k; DROP TABLE IF EXISTS temp.an_kc;"
    "DROP TABLE IF EXISTS temp.an_p; DROP TABLE IF EXISTS temp.an_shared;"
    "CREATE TEMP TABLE an_shared (api_id INTEGER PRIMARY KEY);"
    "INSERT INTO an_shared SELECT api_id FROM rocpd_api_ops GROUP BY api_id"
    " HAVING count(*) > 1;"
    "CREATE TEMP TABLE an_launch (op_id INTEGER PRIMARY KEY, launch INTEGER,"
    " api_end INTEGER, tid INTEGER, own INTEGER);"
    "INSERT INTO an_launch SELECT X.op_id, min(A.start), A.\"end\", A.tid,"
    " A.id NOT IN (SELECT api_id FROM an_shared)"
    "  AND coalesce(N.string NOT GLOB '*GraphLaunch*', 1)"
    " FROM rocpd_api_ops X JOIN rocpd_api A ON A.id = X.api_id"
    " LEFT JOIN rocpd_string N ON N.id = A.apiName_id GROUP BY X.op_id;");
  if (!rc)
    rc = rpd_execf(r,
      "CREATE TEMP TABLE an_op AS SELECT O.id AS id, O.gpuId AS gpu,"
      " O.queueId AS queue, O.start AS s, O.\"end\" AS e,"
      " coalesce(C.class, 'other') AS cls, O.description_id AS did,"
      " T.string AS optype, L.launch AS launch, L.api_end AS api_end, L.own AS own,"
      " (lower(D.string) GLOB '*[nr]ccl*' OR lower(D.string) GLOB '*all[_]reduce*'"
      "  OR lower(D.string) GLOB '*allreduce*' OR lower(D.string) GLOB '*all[_]gather*'"
      "  OR lower(D.string) GLOB '*allgather*' OR lower(D.string) GLOB '*reduce[_]scatter*'"
      "  OR lower(D.string) GLOB '*reducescatter*' OR lower(D.string) GLOB '*alltoall*'"
      "  OR D.string GLOB '*cross_device_reduce*') AS comm"
      " FROM rocpd_op O LEFT JOIN (%s) C ON C.opType_id = O.opType_id"
      " LEFT JOIN rocpd_string D ON D.id = O.description_id"
      " LEFT JOIN rocpd_string T ON T.id = O.opType_id"
      " LEFT JOIN an_launch L ON L.op_id = O.id;", cls);
  return rc;
}

/* ------------------------------------------------------------ findings */

typedef struct finder {
  rpd *r;
  opts *o;
  sqlite3_stmt *ins;
} finder;

static int add_finding(finder *f, int k, int64_t gpu, int64_t start, int64_t end,
                       int64_t count, double value, const char *detail)
{
  sqlite3_stmt *st = f->ins;
  const rule *ru = &f->o->rules[k];
  int s;
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, ru->name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, ru->severity, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, gpu);
  sqlite3_bind_int64(st, 4, start);
  sqlite3_bind_int64(st, 5, end);
  sqlite3_bind_int64(st, 6, count);
  sqlite3_bind_double(st, 7, value);
  sqlite3_bind_text(st, 8, ru->value_unit, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 9, detail, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 10, ru->advice, -1, SQLITE_STATIC);
  s = rpd_step(f->r, st);
  return s < 0 ? -s : RPD_OK;
}

/* ------------------------------------------------------------ GPU sweep */

/* A union of intervals fed in start order: total covered length. */
typedef struct uni {
  int on;
  int64_t s, e, total;
} uni;

static void uni_add(uni *u, int64_t s, int64_t e)
{
  if (u->on && s <= u->e) {
    if (e > u->e)
      u->e = e;
    return;
  }
  if (u->on)
    u->total += u->e - u->s;
  u->on = 1;
  u->s = s;
  u->e = e;
}

static int64_t uni_end(uni *u)
{
  if (u->on)
    u->total += u->e - u->s;
  u->on = 0;
  return u->total;
}

/* A run of consecutive kernels that satisfy a rule. */
typedef struct run {
  int64_t n, s, e;
  double sum;
} run;

typedef struct gpu_state {
  int64_t gpu, first, last;
  uni busy, kern, comm, comp, copy;
  int64_t host, kwait, other, gaps;
  /* low-utilization windows */
  int64_t ws, wbusy;
  run low;
  run tiny, lb;
} gpu_state;

static int run_flush(finder *f, run *ru, int k, int64_t gpu, const char *what)
{
  int rc = RPD_OK;
  const rule *rl = &f->o->rules[k];
  if (ru->n && ru->n >= rl->min_count) {
    char detail[160];
    snprintf(detail, sizeof detail, "%lld consecutive %s", (long long)ru->n, what);
    rc = add_finding(f, k, gpu, ru->s, ru->e, ru->n, ru->sum / (double)ru->n, detail);
    f->o->findings[k]++;
  }
  memset(ru, 0, sizeof *ru);
  return rc;
}

static void run_add(run *ru, int64_t s, int64_t e, double v)
{
  if (!ru->n)
    ru->s = s;
  ru->n++;
  if (e > ru->e)
    ru->e = e;
  ru->sum += v;
}

/* One finished window [ws, ws+len) busy `busy` ns. */
static int window_done(finder *f, gpu_state *g, int64_t len, int64_t busy)
{
  const rule *rl = &f->o->rules[R_LOW_UTIL];
  double pct = 100.0 * (double)busy / (double)len;
  if (pct < rl->threshold) {
    run_add(&g->low, g->ws, g->ws + len, pct);
    return RPD_OK;
  }
  return run_flush(f, &g->low, R_LOW_UTIL, g->gpu, "low-utilization windows");
}

/* Account a busy interval [a, b) (a closed union interval, in order) to the
 * fixed windows of the rule low_utilization. */
static int windows_feed(finder *f, gpu_state *g, int64_t a, int64_t b)
{
  int64_t w = (int64_t)(f->o->rules[R_LOW_UTIL].window_us * 1000);
  int rc = RPD_OK;
  if (w <= 0)
    return RPD_OK;
  if (a >= g->ws + w) {
    /* close the current window, then every whole empty window before a at
     * once (a gap of years is one step, not billions) */
    rc = window_done(f, g, w, g->wbusy);
    g->ws += w;
    g->wbusy = 0;
    int64_t k = (a - g->ws) / w;
    if (!rc && k > 0) {
      if (0 < f->o->rules[R_LOW_UTIL].threshold) {
        if (!g->low.n)
          g->low.s = g->ws;
        g->low.n += k;
        g->low.e = g->ws + k * w;
      } else {
        rc = run_flush(f, &g->low, R_LOW_UTIL, g->gpu, "low-utilization windows");
      }
      g->ws += k * w;
    }
  }
  while (!rc && b >= g->ws + w) {
    int64_t from = a > g->ws ? a : g->ws;
    if (from < g->ws + w)
      g->wbusy += g->ws + w - from;
    rc = window_done(f, g, w, g->wbusy);
    g->ws += w;
    g->wbusy = 0;
  }
  if (b > g->ws)
    g->wbusy += b - (a > g->ws ? a : g->ws);
  return rc;
}

/* A gap [g0, g1) between busy intervals; launch = when the op that ends it
 * was launched (-1 unknown). */
static int gap(finder *f, gpu_state *g, int64_t g0, int64_t g1, int64_t launch)
{
  int64_t len = g1 - g0;
  g->gaps++;
  if (launch >= 0 && launch > g0)
    g->host += len;
  else if (launch >= 0 && (double)len <= f->o->kernel_wait_us * 1000)
    g->kwait += len;
  else
    g->other += len;
  if ((double)len > f->o->rules[R_STARVATION].threshold * 1000) {
    char detail[160];
    snprintf(detail, sizeof detail, "GPU %lld idle for %.3f ms", (long long)g->gpu,
             (double)len / 1e6);
    f->o->findings[R_STARVATION]++;
    return add_finding(f, R_STARVATION, g->gpu, g0, g1, 1, (double)len / 1e3, detail);
  }
  return RPD_OK;
}

static int gpu_finish(finder *f, gpu_state *g, sqlite3_stmt *ins_idle, sqlite3_stmt *ov)
{
  int rc = RPD_OK, s;
  if (g->busy.on)
    rc = windows_feed(f, g, g->busy.s, g->busy.e);
  if (!rc)
    rc = run_flush(f, &g->low, R_LOW_UTIL, g->gpu, "low-utilization windows");
  if (!rc)
    rc = run_flush(f, &g->tiny, R_TINY_STORM, g->gpu, "tiny kernels");
  if (!rc)
    rc = run_flush(f, &g->lb, R_LAUNCH_BOUND, g->gpu, "launch-bound kernels");
  int64_t busy = uni_end(&g->busy), kern = uni_end(&g->kern), comm = uni_end(&g->comm);
  int64_t comp = uni_end(&g->comp), copy = uni_end(&g->copy);
  int64_t span = g->last - g->first, idle = span - busy;
  int64_t overlap = comm + comp - kern;
  if (rc)
    return rc;
  sqlite3_reset(ins_idle);
  sqlite3_bind_int64(ins_idle, 1, g->gpu);
  sqlite3_bind_int64(ins_idle, 2, span);
  sqlite3_bind_int64(ins_idle, 3, busy);
  sqlite3_bind_int64(ins_idle, 4, idle);
  sqlite3_bind_int64(ins_idle, 5, g->host);
  sqlite3_bind_int64(ins_idle, 6, g->kwait);
  sqlite3_bind_int64(ins_idle, 7, g->other);
  sqlite3_bind_int64(ins_idle, 8, g->gaps);
  if ((s = rpd_step(f->r, ins_idle)) < 0)
    return -s;
  sqlite3_reset(ov);
  sqlite3_bind_int64(ov, 1, g->gpu);
  sqlite3_bind_int64(ov, 2, comm);
  sqlite3_bind_int64(ov, 3, comp);
  sqlite3_bind_int64(ov, 4, overlap);
  sqlite3_bind_int64(ov, 5, comm - overlap);
  sqlite3_bind_int64(ov, 6, copy);
  sqlite3_bind_int64(ov, 7, busy - kern);
  if ((s = rpd_step(f->r, ov)) < 0)
    return -s;
  f->o->ngpus++;
  f->o->busy_ns += busy;
  f->o->idle_ns += idle;
  f->o->host_ns += g->host;
  f->o->kwait_ns += g->kwait;
  f->o->other_ns += g->other;
  return RPD_OK;
}

/* One GPU-work op, in (gpu, start) order. */
static int gpu_op(finder *f, gpu_state *g, sqlite3_stmt *st)
{
  int64_t s = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
  int kernel = strcmp((const char *)sqlite3_column_text(st, 3), "kernel") == 0;
  int comm = sqlite3_column_int(st, 4);
  int has_api = sqlite3_column_type(st, 5) != SQLITE_NULL &&
                sqlite3_column_type(st, 6) != SQLITE_NULL;
  int64_t launch = has_api ? sqlite3_column_int64(st, 5) : -1;
  int64_t api_end = has_api ? sqlite3_column_int64(st, 6) : -1;
  int own = has_api && sqlite3_column_int(st, 7);
  /* the GPU had nothing queued when this op was launched: it waited for
   * the host (or this is its first work) */
  int starved = !g->busy.on || (s > g->busy.e && launch > g->busy.e);
  int rc = RPD_OK;

  if (g->busy.on && s > g->busy.e) {
    rc = windows_feed(f, g, g->busy.s, g->busy.e);
    if (!rc)
      rc = gap(f, g, g->busy.e, s, launch);
  }
  if (rc)
    return rc;
  if (e > g->last)
    g->last = e;
  uni_add(&g->busy, s, e);
  uni_add(kernel ? &g->kern : &g->copy, s, e);
  if (kernel)
    uni_add(comm ? &g->comm : &g->comp, s, e);
  if (!kernel)
    return RPD_OK;
  /* runs of tiny and of launch-bound kernels */
  if ((double)(e - s) < f->o->rules[R_TINY_STORM].threshold * 1000)
    run_add(&g->tiny, s, e, (double)(e - s) / 1e3);
  else
    rc = run_flush(f, &g->tiny, R_TINY_STORM, g->gpu, "tiny kernels");
  /* launch-bound: a kernel of its own launch call (not one of the many a
   * graph launch replays) that the GPU waited for and ran in less time
   * than that call took */
  if (!rc && own && starved &&
      (double)(e - s) + f->o->rules[R_LAUNCH_BOUND].threshold < (double)(api_end - launch))
    run_add(&g->lb, s, e, (double)(e - s) / 1e3);
  else if (!rc)
    rc = run_flush(f, &g->lb, R_LAUNCH_BOUND, g->gpu, "launch-bound kernels");
  return rc;
}

/* Stream the GPU work of every GPU in start order: idle breakdown, overlap,
 * and the findings starvation, low_utilization, tiny_kernel_storm and
 * launch_bound.  Memory is one state per GPU at a time. */
static int sweep(finder *f)
{
  sqlite3_stmt *st = NULL, *idle = NULL, *ov = NULL;
  gpu_state g;
  int have = 0, s;
  int rc = rpd_prepare(f->r,
    "SELECT gpu, s, e, cls, comm, launch, api_end, own FROM an_op"
    " WHERE cls IN ('kernel', 'copy') ORDER BY gpu, s, e", &st);
  if (!rc)
    rc = rpd_prepare(f->r, "INSERT INTO ext_analysis_idle VALUES (?,?,?,?,?,?,?,?)", &idle);
  if (!rc)
    rc = rpd_prepare(f->r, "INSERT INTO ext_analysis_overlap VALUES (?,?,?,?,?,?,?)", &ov);
  while (!rc && (s = rpd_step(f->r, st)) == SQLITE_ROW) {
    int64_t gpu = sqlite3_column_int64(st, 0);
    if (have && gpu != g.gpu) {
      rc = gpu_finish(f, &g, idle, ov);
      have = 0;
    }
    if (!rc && !have) {
      memset(&g, 0, sizeof g);
      g.gpu = gpu;
      g.first = g.last = g.ws = sqlite3_column_int64(st, 1);
      have = 1;
    }
    if (!rc)
      rc = gpu_op(f, &g, st);
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc && have)
    rc = gpu_finish(f, &g, idle, ov);
  sqlite3_finalize(st);
  sqlite3_finalize(idle);
  sqlite3_finalize(ov);
  return rc;
}

/* ------------------------------------------------------------ SQL parts */

/* Per kernel (description id): nearest-rank median ((n+1)/2) and p95
 * ((95n+99)/100) of each metric over the dispatches that have it; one
 * sorted pass per metric on integer keys (no window buffers whole
 * partitions), so memory stays within SQLite's cache. */
static const char launch_sql[] =
  "CREATE TEMP TABLE an_k AS SELECT did, CASE WHEN own THEN api_end - launch END AS api,"
  " s - launch AS delay,"
  " e - s AS gpu FROM an_op WHERE cls = 'kernel';"
  "CREATE INDEX temp.an_k_did ON an_k (did, gpu);"
  "CREATE TEMP TABLE an_kc AS SELECT did, count(*) AS n, count(api) AS na, count(delay) AS nd,"
  " avg(api) AS am, max(api) AS ax, avg(delay) AS dm, max(delay) AS dx,"
  " avg(gpu) AS gm, max(gpu) AS gx, sum(gpu) AS gs FROM an_k GROUP BY did;"
  "CREATE TEMP TABLE an_p (did INTEGER, metric INTEGER, med INTEGER, p95 INTEGER,"
  " PRIMARY KEY (did, metric));"
  "INSERT INTO an_p SELECT did, 0, max(CASE WHEN r = (n + 1) / 2 THEN v END),"
  " max(CASE WHEN r = (95 * n + 99) / 100 THEN v END) FROM (SELECT k.did, k.api AS v,"
  " c.na AS n, row_number() OVER (PARTITION BY k.did ORDER BY k.api) AS r"
  " FROM an_k k JOIN an_kc c ON c.did = k.did WHERE k.api IS NOT NULL) GROUP BY did;"
  "INSERT INTO an_p SELECT did, 1, max(CASE WHEN r = (n + 1) / 2 THEN v END),"
  " max(CASE WHEN r = (95 * n + 99) / 100 THEN v END) FROM (SELECT k.did, k.delay AS v,"
  " c.nd AS n, row_number() OVER (PARTITION BY k.did ORDER BY k.delay) AS r"
  " FROM an_k k JOIN an_kc c ON c.did = k.did WHERE k.delay IS NOT NULL) GROUP BY did;"
  "INSERT INTO an_p SELECT did, 2, max(CASE WHEN r = (n + 1) / 2 THEN v END),"
  " max(CASE WHEN r = (95 * n + 99) / 100 THEN v END) FROM (SELECT k.did, k.gpu AS v,"
  " c.n AS n, row_number() OVER (PARTITION BY k.did ORDER BY k.gpu) AS r"
  " FROM an_k k JOIN an_kc c ON c.did = k.did) GROUP BY did;"
  "INSERT INTO ext_analysis_launch SELECT coalesce(S.string, ''), c.n,"
  " c.am, pa.med, pa.p95, c.ax, c.dm, pd.med, pd.p95, c.dx, c.gm, pg.med, pg.p95, c.gx,"
  " (SELECT count(*) FROM an_k k WHERE k.did = c.did AND k.gpu > 3 * pg.med),"
  " coalesce(c.gm < c.am, 0)"
  " FROM an_kc c LEFT JOIN rocpd_string S ON S.id = c.did"
  " LEFT JOIN an_p pa ON pa.did = c.did AND pa.metric = 0"
  " LEFT JOIN an_p pd ON pd.did = c.did AND pd.metric = 1"
  " JOIN an_p pg ON pg.did = c.did AND pg.metric = 2"
  " ORDER BY c.gs DESC, S.string;";

/* Depth changes at each launch (+1; the op start when it has no api or
 * starts first) and end (-1), summed per queue and time. */
static const char queue_sql[] =
  "INSERT INTO ext_analysis_queue_depth"
  " SELECT gpu, queue, t, sum(sum(d)) OVER (PARTITION BY gpu, queue ORDER BY t)"
  " FROM (SELECT gpu, queue, min(coalesce(launch, s), s) AS t, 1 AS d FROM an_op"
  "  UNION ALL SELECT gpu, queue, e, -1 FROM an_op)"
  " GROUP BY gpu, queue, t ORDER BY gpu, queue, t;";

static const char memcpy_sql[] =
  "INSERT INTO ext_analysis_memcpy"
  " WITH c AS (SELECT CASE"
  "   WHEN O.optype GLOB '*HostToDevice*' THEN 'HtoD'"
  "   WHEN O.optype GLOB '*DeviceToHost*' THEN 'DtoH'"
  "   WHEN O.optype GLOB '*DeviceToDevice*' THEN 'DtoD'"
  "   WHEN O.optype GLOB '*HostToHost*' THEN 'HtoH'"
  "   WHEN C.kind = 1 THEN 'HtoD' WHEN C.kind = 2 THEN 'DtoH'"
  "   WHEN C.kind = 3 THEN 'DtoD' WHEN C.kind = 0 THEN 'HtoH' ELSE 'other' END AS dir,"
  "   C.size AS size, O.e - O.s AS dur"
  "   FROM rocpd_copyapi C JOIN rocpd_api_ops X ON X.api_id = C.api_ptr_id"
  "   JOIN an_op O ON O.id = X.op_id WHERE O.cls = 'copy'),"
  " b AS (SELECT dir, CASE WHEN size < 4096 THEN 1 WHEN size < 65536 THEN 2"
  "   WHEN size < 1048576 THEN 3 WHEN size < 16777216 THEN 4 ELSE 5 END AS bk,"
  "   size, dur FROM c)"
  " SELECT dir, CASE bk WHEN 1 THEN '<4KB' WHEN 2 THEN '4KB-64KB'"
  "   WHEN 3 THEN '64KB-1MB' WHEN 4 THEN '1MB-16MB' ELSE '>=16MB' END,"
  "  count(*), sum(size), sum(dur), CASE WHEN sum(dur) > 0"
  "   THEN 1.0 * sum(size) / sum(dur) END"
  " FROM b GROUP BY dir, bk ORDER BY dir, bk;";

/* Findings from api calls: ?1 rule, ?2 severity, ?3 min_count, ?4 advice,
 * ?5 the unit of the value. */
static const char sync_memcpy_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, NULL, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5, S.string || ': ' || count(*) || ' calls', ?4"
  " FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id"
  " WHERE (S.string GLOB 'hipMemcpy*' OR S.string GLOB 'hipMemset*'"
  "  OR S.string GLOB 'cudaMemcpy*' OR S.string GLOB 'cudaMemset*')"
  "  AND S.string NOT GLOB '*Async*'"
  " GROUP BY S.string HAVING count(*) >= ?3 ORDER BY min(A.start);";

static const char device_sync_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, A.tid, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5,"
  "  'thread ' || A.tid || ': ' || count(*) || ' device synchronizations', ?4"
  " FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id"
  " WHERE S.string IN ('hipDeviceSynchronize', 'cudaDeviceSynchronize')"
  " GROUP BY A.tid HAVING count(*) >= ?3 ORDER BY min(A.start);";

static int api_rule(rpd *r, opts *o, int k, const char *sql)
{
  sqlite3_stmt *st = NULL;
  const rule *ru = &o->rules[k];
  int rc = rpd_prepare(r, sql, &st), s;
  if (rc)
    return rc;
  sqlite3_bind_text(st, 1, ru->name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, ru->severity, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, ru->min_count);
  sqlite3_bind_text(st, 4, ru->advice, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, ru->value_unit, -1, SQLITE_STATIC);
  if ((s = rpd_step(r, st)) < 0)
    rc = -s;
  o->findings[k] += sqlite3_changes(r->db);
  sqlite3_finalize(st);
  return rc;
}

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
  finder f = {r, o, NULL};
  char params[96];
  /* sorts spill to temp files beyond this: memory stays flat in trace size */
  int rc = rpd_exec(r, "PRAGMA cache_size=-16384; PRAGMA temp.cache_size=-16384");
  if (!rc)
    rc = check_tables(r);
  if (!rc)
    rc = rpd_view_install(r, "analysis");
  rpd_progress_sql_total(r, "ops", rpd_progress_rows_of(r, op_tables));
  if (!rc)
    rc = build_op_table(r);
  if (!rc)
    rc = write_rules(r, o);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO ext_analysis_findings (rule, severity, gpuId,"
                        " start_ns, end_ns, count, value, value_unit, detail, advice)"
                        " VALUES (?,?,?,?,?,?,?,?,?,?)", &f.ins);
  rpd_progress_sql_total(r, "idle gaps", rpd_progress_rows_of(r, gap_tables));
  if (!rc)
    rc = api_rule(r, o, R_SYNC_MEMCPY, sync_memcpy_sql);
  if (!rc)
    rc = api_rule(r, o, R_DEVICE_SYNC, device_sync_sql);
  if (!rc)
    rc = sweep(&f);
  sqlite3_finalize(f.ins);
  rpd_progress_sql_total(r, "kernel statistics", rpd_progress_rows_of(r, stats_tables));
  if (!rc)
    rc = rpd_exec(r, launch_sql);
  rpd_progress_sql_total(r, "queue depth", rpd_progress_rows_of(r, queue_tables));
  if (!rc)
    rc = rpd_exec(r, queue_sql);
  if (!rc)
    rc = rpd_exec(r, memcpy_sql);
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
    rc = rpd_exec(r, "DROP TABLE temp.an_op; DROP TABLE temp.an_launch; DROP TABLE temp.an_k;"
                     " DROP TABLE temp.an_kc; DROP TABLE temp.an_p; DROP TABLE temp.an_shared;");
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
