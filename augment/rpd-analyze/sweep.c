/* sweep.c - rpd-analyze's one ordered pass over the GPU work of every GPU:
 * the idle breakdown, comm/compute overlap and the findings
 * gpu_starvation, low_utilization, tiny_kernel_storm and launch_bound. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "waterfall.h"

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
 * was launched (-1 unknown).  Its cause is the rule rpd-diff --waterfall
 * shares (rpd_idle_classify, docs/rpd-analyze.md "Idle-time breakdown"). */
static int gap(finder *f, gpu_state *g, int64_t g0, int64_t g1, int64_t launch)
{
  int64_t len = g1 - g0;
  g->gaps++;
  switch (rpd_idle_classify(g0, g1, launch, f->o->kernel_wait_us)) {
  case RPD_IDLE_HOST_WAIT: g->host += len; break;
  case RPD_IDLE_KERNEL_WAIT: g->kwait += len; break;
  default: g->other += len; break;
  }
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
static int gpu_op(finder *f, gpu_state *g, const an_work *w)
{
  int64_t s = w->s, e = w->e;
  int kernel = (w->flags & AN_W_KERNEL) != 0;
  int comm = (w->flags & AN_W_COMM) != 0;
  int has_api = (w->flags & AN_W_API) != 0;
  int64_t launch = has_api ? w->launch : -1;
  int64_t api_end = has_api ? w->api_end : -1;
  int own = has_api && (w->flags & AN_W_OWN);
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

/* Stream the GPU work of every GPU in start order (the op scan's sort):
 * idle breakdown, overlap, and the findings starvation, low_utilization,
 * tiny_kernel_storm and launch_bound.  Memory is one state per GPU at a
 * time. */
int an_sweep(rpd *r, opts *o, an_scan *sc)
{
  sqlite3_stmt *idle = NULL, *ov = NULL;
  finder fs = {r, o, NULL}, *f = &fs;
  const an_work *w;
  gpu_state g;
  int have = 0, got = 0;
  int rc = rpd_prepare(r, "INSERT INTO ext_analysis_findings (rule, severity, gpuId,"
                          " start_ns, end_ns, count, value, value_unit, detail, advice)"
                          " VALUES (?,?,?,?,?,?,?,?,?,?)", &f->ins);
  if (!rc)
    rc = rpd_prepare(f->r, "INSERT INTO ext_analysis_idle VALUES (?,?,?,?,?,?,?,?)", &idle);
  if (!rc)
    rc = rpd_prepare(f->r, "INSERT INTO ext_analysis_overlap VALUES (?,?,?,?,?,?,?)", &ov);
  while (!rc && (got = an_scan_work(sc, &w)) > 0) {
    if (have && w->gpu != g.gpu) {
      rc = gpu_finish(f, &g, idle, ov);
      have = 0;
    }
    if (!rc && !have) {
      memset(&g, 0, sizeof g);
      g.gpu = w->gpu;
      g.first = g.last = g.ws = w->s;
      have = 1;
    }
    if (!rc)
      rc = gpu_op(f, &g, w);
  }
  if (!rc && got < 0)
    rc = -got;
  if (!rc && have)
    rc = gpu_finish(f, &g, idle, ov);
  sqlite3_finalize(idle);
  sqlite3_finalize(ov);
  sqlite3_finalize(f->ins);
  return rc;
}
