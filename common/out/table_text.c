/* table_text.c - tables as text: one table to a FILE in any rpd_fmt,
 * the tables of an output to stdout, and --csv-dir (a CSV file per
 * table).  See table.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "table.h"

/* One table (see table.h). */
int rpd_table_write(const rpd_table *t, FILE *f, rpd_fmt fmt, size_t width)
{
  if (fmt == RPD_FMT_MD)
    return rpd_table_md(t, f, 0);
  if (t->sql) {   /* a query table: its rows straight from SQLite */
    sqlite3_stmt *st;
    int rc = rpd_table_prepare(t, &st);
    if (!rc)
      rc = rpd_out_stmt_fit(t->r, st, f, fmt, fmt == RPD_FMT_TABLE ? width : 0);
    sqlite3_finalize(st);
    return rc;
  }
  rpd_out *o = rpd_out_new(f, fmt, t->ncols, t->cols);
  if (fmt == RPD_FMT_TABLE)
    rpd_out_fit(o, width);
  for (size_t r = 0; r < t->nrows; r++) {
    for (int k = 0; k < t->ncols; k++) {
      const rpd_cell *c = rpd_table_cell(t, r, k);
      switch (c->t) {
      case RPD_CELL_INT: rpd_out_int(o, c->i); break;
      case RPD_CELL_DBL: rpd_out_double(o, c->d, c->digits); break;
      case RPD_CELL_STR: rpd_out_str(o, c->s); break;
      default: rpd_out_null(o); break;
      }
    }
    rpd_out_endrow(o);
  }
  return rpd_out_end(o);
}

/* stdout (see table.h). */
int rpd_tables_stdout(const rpd_tables *ts, rpd_fmt fmt, const char *only, size_t width)
{
  int rc = RPD_OK;
  if (fmt == RPD_FMT_JSON)
    fputs("{\n", stdout);
  for (int i = 0, n = 0; i < ts->n && !rc; i++) {
    const rpd_table *t = &ts->t[i];
    if (only ? strcmp(only, t->name) != 0 : (t->flags & RPD_TABLE_CHART_ONLY) != 0)
      continue;
    if (fmt == RPD_FMT_JSON)
      printf("%s\"%s\": ", n++ ? ",\n" : "", t->name);
    else if (fmt == RPD_FMT_TABLE)
      printf("%s# %s\n", n++ ? "\n" : "", t->name);
    else if (fmt == RPD_FMT_MD)
      printf("%s### %s\n\n", n++ ? "\n" : "", t->name);
    fflush(stdout);
    rc = rpd_table_write(t, stdout, fmt, width);
  }
  if (fmt == RPD_FMT_JSON)
    fputs("}\n", stdout);
  if (!rc)
    rc = rpd_finish_stdout();
  return rc;
}

/* D/<table>.csv, written to a temp file next to it and renamed into place
 * (never over the trace `input`, a device or a directory). */
static int csv_file(const rpd_table *t, const char *dir, const char *input)
{
  char *p = rpd_xasprintf("%s/%s.csv", dir, t->name);
  rpd_outfile of;
  int rc = rpd_outfile_begin(&of, p, input);
  if (rc)
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  else if ((rc = rpd_table_write(t, of.fp, RPD_FMT_CSV, 0)) || ferror(of.fp)) {
    rpd_outfile_abort(&of);
    rc = rpd_seterr(RPD_EIO, "cannot write '%s'", p);
  } else if ((rc = rpd_outfile_commit(&of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  free(p);
  return rc;
}

/* --csv-dir (see table.h). */
int rpd_tables_csv_dir(const rpd_tables *ts, const char *dir, const char *input)
{
  if (mkdir(dir, 0777) && errno != EEXIST)
    return rpd_seterr(RPD_EIO, "cannot create '%s': %s", dir, strerror(errno));
  int rc = RPD_OK;
  for (int i = 0; i < ts->n && !rc; i++)
    rc = csv_file(&ts->t[i], dir, input);
  return rc;
}

/* Refuse the CSV files before the work (see table.h). */
int rpd_tables_csv_check(const rpd_tables *ts, const char *dir, const char *input)
{
  struct stat sb;
  int rc = RPD_OK;
  if (stat(dir, &sb) != 0)
    return RPD_OK;
  for (int i = 0; i < ts->n && !rc; i++) {
    char *p = rpd_xasprintf("%s/%s.csv", dir, ts->t[i].name);
    if ((rc = rpd_output_check(p, input, NULL)))
      rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
    free(p);
  }
  return rc;
}
