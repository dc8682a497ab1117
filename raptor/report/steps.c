/* steps.c - raptor --report's steps tables (common/analysis/steps.h): one row per
 * step and the steady-state summary; with --steady-state the window that
 * every other table of the report then covers.  See docs/steps.md. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "steps.h"

static const char *const step_cols[] = {
  "step", "start_ms", "dur_ms", "gpu_busy_ms", "idle_ms", "kernels", "steady"
};
static const char *const step_types[] = {
  "INTEGER", "REAL", "REAL", "REAL", "REAL", "INTEGER", "INTEGER"
};
static const char *const sum_cols[] = {
  "source", "steps", "warmup_steps", "steady_steps", "median_ms", "p10_ms", "p90_ms",
  "spread_pct", "kernels_per_step"
};
static const char *const sum_types[] = {
  "TEXT", "INTEGER", "INTEGER", "INTEGER", "REAL", "REAL", "REAL", "REAL", "INTEGER"
};

/* ns as ms with 6 decimals: every ns shows. */
static void t_ms(table *t, int64_t ns)
{
  t_dbl(t, (double)ns / 1e6, 6);
}

/* 1 if name is one of the steps table names. */
int report_steps_name(const char *name)
{
  return name && (!strcmp(name, "steps") || !strcmp(name, "steps_summary"));
}

/* Find the steps of r for o (see internal.h); with o->steady the window
 * [first steady step's start, last steady step's end) goes to o->lo/hi. */
int report_find_steps(rpd *r, ropts *o, rpd_steps *st)
{
  int64_t med, p10, p90;
  int rc = rpd_steps_find(r, o->step_marker, o->gpu, st);
  if (rc)
    return rc;
  size_t steady = rpd_steps_steady(st, &med, &p10, &p90);
  if (!o->steady)
    return RPD_OK;
  if (!steady)
    return rpd_seterr(RPD_ENOTFOUND, "--steady-state: no steps found (%s)",
                      o->step_marker ? "no marker matches --step-marker"
                                     : "no ProfilerStep#N markers and no period in the"
                                       " kernel sequence");
  o->lo = INT64_MAX;
  o->hi = INT64_MIN;
  for (size_t i = 0; i < st->n; i++)
    if (!st->s[i].warmup) {
      o->lo = st->s[i].start < o->lo ? st->s[i].start : o->lo;
      o->hi = st->s[i].end > o->hi ? st->s[i].end : o->hi;
    }
  return RPD_OK;
}

/* Append the steps and steps_summary tables to rep (none without steps);
 * st's steady state is the one report_find_steps found. */
void report_step_tables(rpd_steps *st, report *rep)
{
  if (!st->n)
    return;
  table *t = report_add(rep);
  t_init(t, "steps", 7, step_cols, step_types);
  for (size_t i = 0; i < st->n; i++) {
    const rpd_step_row *s = &st->s[i];
    t_int(t, s->step);
    t_ms(t, s->start - st->origin);
    t_ms(t, s->end - s->start);
    t_ms(t, s->busy);
    t_ms(t, s->end - s->start - s->busy);
    t_int(t, s->kernels);
    t_int(t, !s->warmup);
  }
  int64_t med = st->median, p10 = st->p10, p90 = st->p90;   /* report_find_steps' */
  size_t steady = st->steady;
  t = report_add(rep);
  t_init(t, "steps_summary", 9, sum_cols, sum_types);
  t_str(t, st->source == RPD_STEPS_MARKERS ? "markers" : "kernel period");
  t_int(t, (int64_t)st->n);
  t_int(t, (int64_t)(st->n - steady));
  t_int(t, (int64_t)steady);
  t_ms(t, med);
  t_ms(t, p10);
  t_ms(t, p90);
  if (med > 0)
    t_dbl(t, 100.0 * (double)(p90 - p10) / (double)med, 3);
  else
    t_null(t);
  if (st->source == RPD_STEPS_PERIOD)
    t_int(t, st->period);
  else
    t_null(t);
}
