/* apistats.c - the HIP API summary of raptor --report: the rows of
 * `raptor --format api-stats` (kstats.c computes them) as the report table
 * api_stats, durations in us. */
#include <string.h>

#include "../kstats.h"
#include "internal.h"

static const char *const api_cols[] = { "name", "calls", "total_us", "mean_us", "percent",
                                        "min_us", "max_us", "std_us" };
static const char *const api_types[] = { "TEXT", "INTEGER", "REAL", "REAL", "REAL",
                                         "REAL", "REAL", "REAL" };

/* One api-stats row into the table ctx. */
static int api_row(void *ctx, const kstats_row *row)
{
  table *t = ctx;
  t_str(t, row->name);
  t_int(t, row->calls);
  t_dbl(t, (double)row->total / 1e3, 3);
  t_dbl(t, row->mean / 1e3, 3);
  t_dbl(t, row->pct, 4);
  t_dbl(t, (double)row->min / 1e3, 3);
  t_dbl(t, (double)row->max / 1e3, 3);
  t_dbl(t, row->std / 1e3, 3);
  return RPD_OK;
}

/* 1 if name is the api summary's table name (see internal.h). */
int report_api_name(const char *name)
{
  return !strcmp(name, "api_stats");
}

/* The api_stats table when the trace has HIP api calls (see internal.h). */
int report_api_tables(rpd *r, report *rep)
{
  table t;
  memset(&t, 0, sizeof t);
  t_init(&t, "api_stats", 8, api_cols, api_types);
  int rc = raptor_api_stats(r, "HIP", api_row, &t);
  if (rc || !t.nrows) {
    t_free(&t);
    return rc;
  }
  *report_add(rep) = t;
  return RPD_OK;
}
