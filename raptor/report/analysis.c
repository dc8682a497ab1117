/* analysis.c - the rpd-analyze tables of raptor --report: each
 * ext_analysis_* table (or summary view) the trace holds becomes a report
 * table analysis_<name>, written to every format (stdout, CSV, xlsx, HTML)
 * with the values exactly as stored.  The full queue-depth series stays in
 * the trace (and in rpd2tracing's counter); the report carries its
 * per-queue summary (the ext_analysis_queue view). */
#include <string.h>

#include "internal.h"

/* report table, trace table, SQL */
static const struct {
  const char *name, *table, *sql;
} sheets[] = {
  {"analysis_idle", "ext_analysis_idle",
   "SELECT * FROM ext_analysis_idle ORDER BY gpuId"},
  {"analysis_launch", "ext_analysis_launch", "SELECT * FROM ext_analysis_launch"},
  {"analysis_queue", "ext_analysis_queue",
   "SELECT * FROM ext_analysis_queue ORDER BY gpuId, queueId"},
  {"analysis_overlap", "ext_analysis_overlap",
   "SELECT * FROM ext_analysis_overlap ORDER BY gpuId"},
  {"analysis_memcpy", "ext_analysis_memcpy", "SELECT * FROM ext_analysis_memcpy"},
  {"analysis_findings", "ext_analysis_findings",
   "SELECT * FROM ext_analysis_findings ORDER BY id"},
  {"analysis_rules", "ext_analysis_rules", "SELECT * FROM ext_analysis_rules"},
};
#define NSHEETS (sizeof sheets / sizeof *sheets)

/* 1 if name is an analysis table name (see internal.h). */
int report_analysis_name(const char *name)
{
  for (size_t k = 0; k < NSHEETS; k++)
    if (!strcmp(name, sheets[k].name))
      return 1;
  return 0;
}

/* The present ext_analysis_* tables as report tables (see internal.h). */
int report_analysis_tables(rpd *r, report *rep)
{
  int rc = RPD_OK;
  for (size_t k = 0; !rc && k < NSHEETS; k++)
    if (rpd_table_exists(r, sheets[k].table))
      rc = t_from_sql(report_add(rep), r, sheets[k].name, sheets[k].sql);
  return rc;
}
