/* sheets.c - SELECT results into xlsx sheets.  See sheets.h.  The cells go
 * through the one table writer (workbook.h): safe text, number formats by
 * column name, fitted widths, a frozen header with a filter. */
#include "sheets.h"
#include "workbook.h"

/* One cell of the current row from column c of st. */
static void put_cell(rpd_wb_sheet *s, sqlite3_stmt *st, int c)
{
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_INTEGER: rpd_wb_int(s, sqlite3_column_int64(st, c)); break;
  case SQLITE_FLOAT: rpd_wb_num(s, sqlite3_column_double(st, c)); break;
  case SQLITE_NULL: rpd_wb_null(s); break;
  default: rpd_wb_str(s, (const char *)sqlite3_column_text(st, c)); break;
  }
}

/* One sheet from one statement; RPD_OK or an error. */
static int write_sheet(rpd_wb *w, sqlite3 *db, const char *name, const char *sql)
{
  sqlite3_stmt *st = NULL;
  rpd_wb_sheet s;
  const char **cols;
  int rc, step = SQLITE_DONE, nc;

  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "%s: %s", sql, sqlite3_errmsg(db));
  nc = sqlite3_column_count(st);
  cols = rpd_xcalloc((size_t)(nc ? nc : 1), sizeof *cols);
  for (int c = 0; c < nc; c++)
    cols[c] = sqlite3_column_name(st, c);
  rc = rpd_wb_begin(w, &s, name, nc, cols, NULL);
  s.no_labels = 1;
  while (!rc && !s.full && (step = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < nc; c++)
      put_cell(&s, st, c);
    rpd_wb_endrow(&s);
  }
  if (!rc && !s.full && step != SQLITE_DONE)
    rc = rpd_seterr(RPD_ESQL, "%s: %s", sql, sqlite3_errmsg(db));
  if (rpd_wb_end(&s) != RPD_OK && !rc)
    rc = RPD_EIO;
  free(cols);
  sqlite3_finalize(st);
  return rc;
}

int rpd_sheets_write(const char *path, const char *input, sqlite3 *db, int n,
                     const char *const *names, const char *const *sql)
{
  rpd_wb w;
  int rc = rpd_wb_open(&w, path, input);
  if (rc)
    return rc;
  for (int i = 0; !rc && i < n; i++)
    rc = write_sheet(&w, db, names[i], sql[i]);
  return rpd_wb_close(&w, rc);
}
