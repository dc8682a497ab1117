/* idle.c - idle_definitions: the idle time of each GPU by each definition
 * the tools use, side by side, so that one is never read for another:
 *   idle_run_*       the report's gpu_timeline idle: the whole run
 *                    (total_time: rocprofv3 init..fini, else the span of
 *                    every op) minus the GPU's busy time;
 *   idle_ops_span_*  the gaps between the GPU's own work, from its first op
 *                    start to its last op end: raptor's _GPU_Idle (per GPU,
 *                    the ROI being the whole trace) and rpd-analyze's
 *                    idle_ns;
 *   rpd_analyze_idle_ms  the idle_ns rpd-analyze stored (analysis_idle),
 *                    NULL when it has not run. */
#include <math.h>
#include <string.h>

#include "internal.h"

static const char *const idle_cols[] = {
  "gpuId", "run_ms", "idle_run_ms", "idle_run_pct", "ops_span_ms", "idle_ops_span_ms",
  "idle_ops_span_pct", "rpd_analyze_idle_ms"};
static const char *const idle_types[] = {
  "INTEGER", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL"};

/* rpd-analyze's idle_ns of gpu from the analysis_idle table a (NAN: none). */
static double analysis_idle(const table *a, int gpu)
{
  int g = a ? t_col(a, "gpuId") : -1, k = a ? t_col(a, "idle_ns") : -1;
  for (size_t r = 0; g >= 0 && k >= 0 && r < a->nrows; r++)
    if (t_num(t_cell(a, r, g)) == (double)gpu)
      return t_num(t_cell(a, r, k));
  return NAN;
}

static double pct(int64_t part, int64_t whole)
{
  return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

/* See internal.h. */
void report_idle_table(const report_data *d, report *rep)
{
  const table *a = report_find(rep, "analysis_idle");
  table *t = report_add(rep);
  t_init(t, "idle_definitions", 8, idle_cols, idle_types);
  for (int g = 0; d->gspan && g < d->ngpus; g++) {
    const int64_t *x = &d->gspan[3 * (size_t)g];
    if (x[1] < x[0])
      continue;   /* no work on this GPU */
    int64_t run = d->total_ns, busy = x[2], span = x[1] - x[0];
    int64_t idle_run = run > busy ? run - busy : 0, idle_span = span > busy ? span - busy : 0;
    double ai = analysis_idle(a, d->gpus[g]);
    t_int(t, d->gpus[g]);
    t_dbl(t, (double)run / 1e6, 6);
    t_dbl(t, (double)idle_run / 1e6, 6);
    t_dbl(t, pct(idle_run, run), 4);
    t_dbl(t, (double)span / 1e6, 6);
    t_dbl(t, (double)idle_span / 1e6, 6);
    t_dbl(t, pct(idle_span, span), 4);
    if (isnan(ai))
      t_null(t);
    else
      t_dbl(t, ai / 1e6, 6);
  }
}
