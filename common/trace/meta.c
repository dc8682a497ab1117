/* meta.c - rocpd_metadata(id, tag, value) access. */
#include "rpd.h"

#include <string.h>

static const char meta_ddl[] =
    "CREATE TABLE IF NOT EXISTS \"rocpd_metadata\" (\"id\" integer NOT NULL PRIMARY KEY "
    "AUTOINCREMENT, \"tag\" varchar(4096) NOT NULL, \"value\" varchar(4096) NOT NULL)";

/* Run sql with up to two text parameters; *value (if not NULL) receives a
 * copy of the first column of the first row, or stays NULL. */
static int run(rpd *r, const char *sql, const char *a, const char *b, char **value)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st), s;

  if (rc) return rc;
  if (a) sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
  s = rpd_step(r, st);
  if (s < 0) rc = -s;
  else if (s == SQLITE_ROW && value && sqlite3_column_type(st, 0) != SQLITE_NULL)
    *value = rpd_xstrdup((const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return rc;
}

int rpd_meta_get(rpd *r, const char *tag, char **value)
{
  int rc;

  *value = NULL;
  if (!rpd_table_exists(r, "rocpd_metadata"))
    return rpd_seterr(RPD_ENOTFOUND, "no metadata '%s'", tag);
  rc = run(r, "SELECT value FROM rocpd_metadata WHERE tag = ?1 ORDER BY id LIMIT 1",
           tag, NULL, value);
  if (!rc && !*value) rc = rpd_seterr(RPD_ENOTFOUND, "no metadata '%s'", tag);
  return rc;
}

int rpd_meta_set(rpd *r, const char *tag, const char *value)
{
  int rc = rpd_exec(r, meta_ddl);

  if (!rc) rc = run(r, "DELETE FROM rocpd_metadata WHERE tag = ?1", tag, NULL, NULL);
  if (!rc) rc = run(r, "INSERT INTO rocpd_metadata(tag, value) VALUES (?1, ?2)", tag, value, NULL);
  return rc;
}

int rpd_meta_add(rpd *r, const char *tag, const char *value)
{
  int rc = rpd_exec(r, meta_ddl);

  if (!rc)
    rc = run(r, "INSERT INTO rocpd_metadata(tag, value) SELECT ?1, ?2 WHERE NOT EXISTS "
                "(SELECT 1 FROM rocpd_metadata WHERE tag = ?1 AND value = ?2)",
             tag, value, NULL);
  return rc;
}

int rpd_meta_clear(rpd *r, const char *tag)
{
  if (!rpd_table_exists(r, "rocpd_metadata")) return RPD_OK;
  return run(r, "DELETE FROM rocpd_metadata WHERE tag = ?1", tag, NULL, NULL);
}
