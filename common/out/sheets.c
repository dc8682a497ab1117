/* sheets.c - SELECT results into xlsx sheets: query tables through the one
 * table path (common/out/table.h).  See sheets.h. */
#include "sheets.h"
#include "table.h"

int rpd_sheets_write(const char *path, const char *input, sqlite3 *db, int n,
                     const char *const *names, const char *const *sql)
{
  rpd_tables ts = {0};
  int rc;
  for (int i = 0; i < n; i++)
    rpd_table_query(rpd_tables_add(&ts), names[i], NULL, db, sql[i]);
  rc = rpd_tables_xlsx(&ts, path, input, NULL, NULL, 0, NULL, NULL);
  rpd_tables_free(&ts);
  return rc;
}
