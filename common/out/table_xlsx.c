/* table_xlsx.c - a table as a formatted xlsx sheet (common/workbook.h:
 * number formats by column name, fitted widths, frozen header, filter).
 * See table.h. */
#include <stdio.h>
#include <stdlib.h>

#include "table.h"
#include "workbook.h"

#define XLSX_EXACT_INT ((int64_t)1 << 53)   /* larger integers lose digits */

/* An integer cell; beyond 2^53 (absolute ns timestamps) as text so that
 * no digit is lost. */
static void put_int(rpd_wb_sheet *ws, int64_t v)
{
  char big[32];
  if (v > XLSX_EXACT_INT || v < -XLSX_EXACT_INT) {
    snprintf(big, sizeof big, "%lld", (long long)v);
    rpd_wb_str(ws, big);
  } else
    rpd_wb_int(ws, v);
}

/* A query table's sheet: the rows straight from SQLite. */
static int query_sheet(const rpd_table *t, rpd_wb *w, rpd_wb_sheet *ws, int labels)
{
  sqlite3_stmt *st;
  const char **cols;
  int rc = rpd_table_prepare(t, &st), step = SQLITE_DONE, nc, end;
  if (rc)
    return rc;
  nc = sqlite3_column_count(st);
  cols = rpd_xcalloc((size_t)(nc ? nc : 1), sizeof *cols);
  for (int c = 0; c < nc; c++)
    cols[c] = sqlite3_column_name(st, c);
  rc = rpd_wb_begin(w, ws, t->name, nc, cols, NULL);
  ws->no_labels = !labels;
  while (!rc && !ws->full &&
         (step = t->r ? rpd_step(t->r, st) : sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < nc; c++)
      switch (sqlite3_column_type(st, c)) {
      case SQLITE_INTEGER: put_int(ws, sqlite3_column_int64(st, c)); break;
      case SQLITE_FLOAT: rpd_wb_num(ws, sqlite3_column_double(st, c)); break;
      case SQLITE_NULL: rpd_wb_null(ws); break;
      default: rpd_wb_str(ws, (const char *)sqlite3_column_text(st, c)); break;
      }
    rpd_wb_endrow(ws);
  }
  if (!rc && !ws->full && step < 0)
    rc = -step;
  else if (!rc && !ws->full && step != SQLITE_DONE)
    rc = rpd_seterr(RPD_ESQL, "%s: %s", t->sql, sqlite3_errmsg(t->db));
  end = rpd_wb_end(ws);   /* always: it frees what ws holds */
  free(cols);
  sqlite3_finalize(st);
  return rc ? rc : end;
}

/* One sheet; labels: the hidden chart-label column (see workbook.h). */
static int sheet(const rpd_table *t, rpd_wb *w, rpd_wb_sheet *ws, int labels)
{
  if (t->sql)
    return query_sheet(t, w, ws, labels);
  int rc = rpd_wb_begin(w, ws, t->name, t->ncols, t->cols, NULL);
  ws->no_labels = !labels;
  for (size_t r = 0; !rc && r < t->nrows; r++) {
    for (int k = 0; k < t->ncols; k++) {
      const rpd_cell *c = rpd_table_cell(t, r, k);
      if (c->t == RPD_CELL_INT)
        put_int(ws, c->i);
      else if (c->t == RPD_CELL_DBL)
        rpd_wb_num(ws, c->d);
      else if (c->t == RPD_CELL_STR)
        rpd_wb_str(ws, c->s);
      else
        rpd_wb_null(ws);
    }
    rpd_wb_endrow(ws);
  }
  int end = rpd_wb_end(ws);   /* always: it frees what ws holds */
  return rc ? rc : end;
}

/* One sheet with its chart labels (see table.h). */
int rpd_table_sheet(const rpd_table *t, struct rpd_wb *w, struct rpd_wb_sheet *ws)
{
  return sheet(t, w, ws, 1);
}

/* A whole workbook (see table.h). */
int rpd_tables_xlsx(const rpd_tables *ts, const char *path, const char *input,
                    const char *title, const char *const *info, int ninfo,
                    int (*charts)(struct rpd_wb *w, const rpd_tables *ts,
                                  const struct rpd_wb_sheet *ws, void *ctx),
                    void *ctx)
{
  rpd_wb w;
  rpd_wb_sheet *ws;
  int rc = rpd_wb_open(&w, path, input);
  if (rc)
    return rc;
  ws = rpd_xcalloc((size_t)(ts->n ? ts->n : 1), sizeof *ws);
  if (info)
    rc = rpd_wb_info(&w, title, info, ninfo);
  for (int i = 0; i < ts->n && !rc; i++)
    rc = sheet(&ts->t[i], &w, &ws[i], charts != NULL);
  if (!rc && charts)
    rc = charts(&w, ts, ws, ctx);
  free(ws);
  return rpd_wb_close(&w, rc);
}
