/* table_sql.c - a table written into a trace as an ext_ table (raptor
 * --report --save).  See table.h. */
#include <stdlib.h>

#include "table.h"
#include "internal.h"

/* CREATE TABLE + INSERT (see table.h). */
int rpd_table_save(const rpd_table *t, rpd *r, const char *name)
{
  rpd_buf sql = {0};
  sqlite3_stmt *st = NULL;
  int rc;
  if (t->sql && t->db == r->db)   /* the rows never leave SQLite */
    return rpd_execf(r, "DROP TABLE IF EXISTS main.\"%w\"; CREATE TABLE main.\"%w\" AS %s",
                     name, name, t->sql);
  if (t->sql)
    return rpd_seterr(RPD_ERR, "table %s: a query of another database", t->name);
  rc = rpd_execf(r, "DROP TABLE IF EXISTS \"%w\"", name);
  char *q = sqlite3_mprintf("CREATE TABLE \"%w\" (", name);
  rpd_buf_puts(&sql, q);
  sqlite3_free(q);
  for (int k = 0; k < t->ncols; k++) {
    q = sqlite3_mprintf("%s\"%w\"%s%s", k ? ", " : "", t->cols[k], t->types ? " " : "",
                        t->types ? t->types[k] : "");
    rpd_buf_puts(&sql, q);
    sqlite3_free(q);
  }
  rpd_buf_puts(&sql, ")");
  if (!rc)
    rc = rpd_exec(r, sql.s);
  rpd_buf_reset(&sql);
  q = sqlite3_mprintf("INSERT INTO \"%w\" VALUES (", name);
  rpd_buf_puts(&sql, q);
  sqlite3_free(q);
  for (int k = 0; k < t->ncols; k++)
    rpd_buf_puts(&sql, k ? ",?" : "?");
  rpd_buf_puts(&sql, ")");
  if (!rc)
    rc = rpd_prepare(r, sql.s, &st);
  for (size_t row = 0; row < t->nrows && !rc; row++) {
    for (int k = 0; k < t->ncols; k++) {
      const rpd_cell *c = rpd_table_cell(t, row, k);
      if (c->t == RPD_CELL_INT)
        sqlite3_bind_int64(st, k + 1, c->i);
      else if (c->t == RPD_CELL_DBL)
        sqlite3_bind_double(st, k + 1, c->d);
      else if (c->t == RPD_CELL_STR)
        sqlite3_bind_text(st, k + 1, c->s, -1, SQLITE_STATIC);
      else
        sqlite3_bind_null(st, k + 1);
    }
    int s = rpd_step(r, st);
    if (s != SQLITE_DONE)
      rc = s < 0 ? -s : RPD_ESQL;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  rpd_buf_free(&sql);
  return rc;
}
