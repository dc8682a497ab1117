/* sheets.c - SELECT results into xlsx sheets.  See sheets.h. */
#include "sheets.h"

#include <xlsxwriter.h>

/* One sheet from one statement; RPD_OK or an error. */
static int write_sheet(lxw_workbook *wb, sqlite3 *db, const char *name,
                       const char *sql)
{
  lxw_worksheet *ws = workbook_add_worksheet(wb, name);
  sqlite3_stmt *st = NULL;
  int rc = RPD_OK, s, nc;
  lxw_row_t row = 1;

  if (!ws)
    return rpd_seterr(RPD_EIO, "cannot add sheet '%s'", name);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "%s: %s", sql, sqlite3_errmsg(db));
  nc = sqlite3_column_count(st);
  for (int c = 0; c < nc; c++)
    worksheet_write_string(ws, 0, (lxw_col_t)c, sqlite3_column_name(st, c), NULL);
  while ((s = sqlite3_step(st)) == SQLITE_ROW && row < LXW_ROW_MAX) {
    for (int c = 0; c < nc; c++) {
      int t = sqlite3_column_type(st, c);
      if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
        worksheet_write_number(ws, row, (lxw_col_t)c, sqlite3_column_double(st, c), NULL);
      else if (t != SQLITE_NULL)
        worksheet_write_string(ws, row, (lxw_col_t)c,
                               (const char *)sqlite3_column_text(st, c), NULL);
    }
    row++;
  }
  if (s != SQLITE_ROW && s != SQLITE_DONE)
    rc = rpd_seterr(RPD_ESQL, "%s: %s", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

int rpd_sheets_write(const char *path, const char *input, sqlite3 *db, int n,
                     const char *const *names, const char *const *sql)
{
  rpd_outfile of;
  lxw_workbook *wb;
  lxw_error e;
  int rc = rpd_outfile_begin(&of, path, input);
  if (rc)
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  fclose(of.fp);               /* libxlsxwriter writes the temp by name */
  of.fp = NULL;
  wb = workbook_new(of.tmp);
  if (!wb) {
    rpd_outfile_abort(&of);
    return rpd_seterr(RPD_EIO, "cannot create '%s'", path);
  }
  for (int i = 0; !rc && i < n; i++)
    rc = write_sheet(wb, db, names[i], sql[i]);
  e = workbook_close(wb);
  if (!rc && e != LXW_NO_ERROR)
    rc = rpd_seterr(RPD_EIO, "cannot write '%s': %s", path, lxw_strerror(e));
  if (rc)
    rpd_outfile_abort(&of);
  else if ((rc = rpd_outfile_commit(&of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  return rc;
}
