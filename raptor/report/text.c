/* text.c - raptor --report's text outputs through the common writers
 * (common/out/table.h): stdout as aligned tables, CSV or one JSON object of
 * tables; --csv-dir (a file per table); --save (ext_report_* tables in the
 * trace). */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "textcut.h"

/* stdout (see internal.h): the chart tables (utilization, idle_gaps) only
 * by --table NAME; text tables fitted to --width or the terminal. */
int report_stdout(const report *rep, const ropts *o)
{
  size_t width = o->width >= 0 ? (size_t)o->width
                               : rpd_term_width(1, RPD_TEXT_DEFAULT_WIDTH);
  return rpd_tables_stdout(rep, o->fmt, o->only, width);
}

/* --csv-dir (see internal.h). */
int report_csvs(const report *rep, const char *dir, const char *input)
{
  return rpd_tables_csv_dir(rep, dir, input);
}

/* Refuse the CSV files before the work (see internal.h). */
int report_check_csvs(const report *rep, const char *dir, const char *input)
{
  return rpd_tables_csv_check(rep, dir, input);
}

/* --save: the core tables but kernel_details (see internal.h). */
int report_save(rpd *r, const report *rep, const ropts *o)
{
  int rc = rpd_begin(r);
  for (int i = 0; i < NT && !rc; i++)
    if (i != T_DETAILS) {
      char *name = rpd_xasprintf("ext_report_%s", rep->t[i].name);
      rc = rpd_table_save(&rep->t[i], r, name);
      free(name);
    }
  if (!rc) {
    char b[128];
    snprintf(b, sizeof b, "threshold_us=%g bins=%d gpu=%d", o->threshold_us,
             o->bins, o->gpu);
    rc = rpd_meta_set(r, "ext_report::params", b);
  }
  if (!rc)
    rc = rpd_commit(r);
  else
    rpd_rollback(r);
  return rc;
}
