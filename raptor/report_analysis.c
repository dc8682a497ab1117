/* report_analysis.c - the rpd-analyze sheets of raptor --report: each
 * ext_analysis_* table (or summary view) the trace holds becomes a sheet of
 * the --xlsx workbook and a file of the --csv-dir directory.  The full
 * queue-depth series stays in the trace (and in rpd2tracing's counter);
 * the report carries its per-queue summary. */
#include <stdlib.h>
#include <string.h>

#include "report_analysis.h"
#include "textsafe.h"

/* sheet name, SQL (a present table is checked by its first FROM name) */
static const struct {
  const char *sheet, *table, *sql;
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

static rpd *trace;

void report_analysis_attach(rpd *r)
{
  trace = r;
}

/* Integers beyond 2^53 (absolute ns timestamps) lose digits as doubles:
 * they are written as text. */
static void xlsx_cell(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                      sqlite3_stmt *st, int i, rpd_buf *b)
{
  switch (sqlite3_column_type(st, i)) {
  case SQLITE_INTEGER: {
    sqlite3_int64 v = sqlite3_column_int64(st, i);
    if (v > ((sqlite3_int64)1 << 53) || v < -((sqlite3_int64)1 << 53))
      worksheet_write_string(ws, row, col, (const char *)sqlite3_column_text(st, i), NULL);
    else
      worksheet_write_number(ws, row, col, (double)v, NULL);
    break;
  }
  case SQLITE_FLOAT:
    worksheet_write_number(ws, row, col, sqlite3_column_double(st, i), NULL);
    break;
  case SQLITE_NULL:
    break;
  default:
    worksheet_write_string(ws, row, col,
        rpd_text_safe_str(b, (const char *)sqlite3_column_text(st, i), RPD_TEXT_XLSX), NULL);
  }
}

static int sheet_xlsx(lxw_workbook *wb, lxw_format *bold, size_t k)
{
  sqlite3_stmt *st = NULL;
  rpd_buf b = {0};
  lxw_row_t row = 1;
  int rc = rpd_prepare(trace, sheets[k].sql, &st), s = SQLITE_DONE;
  lxw_worksheet *ws = rc ? NULL : workbook_add_worksheet(wb, sheets[k].sheet);
  if (!rc && !ws)
    rc = rpd_seterr(RPD_EIO, "xlsx: cannot add sheet '%s'", sheets[k].sheet);
  for (int i = 0; !rc && i < sqlite3_column_count(st); i++)
    worksheet_write_string(ws, 0, (lxw_col_t)i, sqlite3_column_name(st, i), bold);
  while (!rc && row < 1048576 && (s = rpd_step(trace, st)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); i++)
      xlsx_cell(ws, row, (lxw_col_t)i, st, i, &b);
    row++;
  }
  if (!rc && s < 0)
    rc = -s;
  rpd_buf_free(&b);
  sqlite3_finalize(st);
  return rc;
}

int report_analysis_xlsx(lxw_workbook *wb, lxw_format *bold)
{
  int rc = RPD_OK;
  for (size_t k = 0; trace && !rc && k < NSHEETS; k++)
    if (rpd_table_exists(trace, sheets[k].table))
      rc = sheet_xlsx(wb, bold, k);
  return rc;
}

static int sheet_csv(const char *dir, const char *input, size_t k)
{
  char *p = rpd_xasprintf("%s/%s.csv", dir, sheets[k].sheet);
  sqlite3_stmt *st = NULL;
  rpd_outfile of;
  int rc = rpd_outfile_begin(&of, p, input);
  if (rc) {
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  } else if ((rc = rpd_prepare(trace, sheets[k].sql, &st)) ||
             (rc = rpd_out_stmt(trace, st, of.fp, RPD_FMT_CSV))) {
    rpd_outfile_abort(&of);
  } else if (ferror(of.fp)) {
    rpd_outfile_abort(&of);
    rc = rpd_seterr(RPD_EIO, "cannot write '%s'", p);
  } else if ((rc = rpd_outfile_commit(&of))) {
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  }
  sqlite3_finalize(st);
  free(p);
  return rc;
}

int report_analysis_csv(const char *dir, const char *input)
{
  int rc = RPD_OK;
  for (size_t k = 0; trace && !rc && k < NSHEETS; k++)
    if (rpd_table_exists(trace, sheets[k].table))
      rc = sheet_csv(dir, input, k);
  return rc;
}
