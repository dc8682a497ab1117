/* sheets.h - query results as an xlsx workbook: one sheet per SELECT, a
 * header row of column names, numbers as numbers.  A shorthand for query
 * tables (common/out/table.h) written by rpd_tables_xlsx, the one workbook
 * writer: temp file next to PATH, renamed when complete. */
#ifndef RPD_SHEETS_H
#define RPD_SHEETS_H

#include "rpd.h"

/* Run each of the n SELECTs `sql[i]` on db and write its rows to a sheet
 * named names[i] (at most 31 characters) of the workbook `path`; `input`
 * is the trace the workbook must not replace (may be NULL).  Returns RPD_OK
 * or an error with the message in rpd_errmsg(); nothing is left behind on
 * failure. */
int rpd_sheets_write(const char *path, const char *input, sqlite3 *db, int n,
                     const char *const *names, const char *const *sql);

#endif
