/* schema.c - create the RPD tables of a new trace and (re)install the
 * utility views.  The SQL text lives in views/ (schema.sql, schema.v2.sql,
 * api.sql, ...) and is embedded at build time; see docs/schema.md. */
#include "rpd.h"
#include "internal.h"
#include "schema.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The utility views, in install order (none depends on another; api and op
 * first reads naturally in sqlite_master). */
const char *const rpd_utility_views[] = {
  "opClass", "api", "op", "busy", "top", "ktop", "kernel", "copy", "copyop",
  "stackframe", "napi", "nop", NULL,
};

/* Map an SQLite result code to an RPD status. */
static int status_of(int sqlite_rc)
{
  switch (sqlite_rc & 0xff) {
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return RPD_EBUSY;
  case SQLITE_READONLY:
  case SQLITE_CANTOPEN:
    return RPD_EROFS;
  case SQLITE_NOMEM:
    return RPD_ENOMEM;
  case SQLITE_IOERR:
  case SQLITE_FULL:
    return RPD_EIO;
  default:
    return RPD_ESQL;
  }
}

/* Run sql (one or more statements); on failure record "what: errmsg". */
static int run(sqlite3 *db, const char *what, const char *sql)
{
  int src = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (src == SQLITE_OK)
    return RPD_OK;
  return rpd_seterr(status_of(sqlite3_extended_errcode(db)), "%s: %s", what,
                    sqlite3_errmsg(db));
}

/* 1 if `SELECT * FROM name` compiles (the view's base tables and columns
 * exist), else 0. */
static int view_usable(sqlite3 *db, const char *name)
{
  sqlite3_stmt *st = NULL;
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 0", name);
  int ok;
  if (!sql)
    return 0;
  ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return ok;
}

/* Install one view inside its own savepoint (see schema.h).  A view whose
 * base tables are missing (rocpd_stackframe on v2 traces) or whose name is
 * taken by a table is skipped: any old view of that name is dropped and
 * RPD_ENOTFOUND returned.  Locks, I/O errors and missing SQL text are
 * failures. */
static int install_view(sqlite3 *db, const char *name, int schema)
{
  const char *sql = rpd_view_sql(name, schema);
  int rc, src;
  char *drop, why[512];

  if (!sql)
    return rpd_seterr(RPD_ERR, "no embedded SQL for view '%s'", name);
  rc = run(db, "savepoint", "SAVEPOINT rpd_view");
  if (rc)
    return rc;
  src = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (src == SQLITE_OK && view_usable(db, name))
    return run(db, "release", "RELEASE rpd_view");
  if (src != SQLITE_OK && status_of(sqlite3_extended_errcode(db)) != RPD_ESQL) {
    rc = rpd_seterr(status_of(sqlite3_extended_errcode(db)), "view %s: %s",
                    name, sqlite3_errmsg(db));
    sqlite3_exec(db, "ROLLBACK TO rpd_view; RELEASE rpd_view", NULL, NULL, NULL);
    return rc;
  }
  /* Unusable here: undo, then make sure no broken view of that name stays. */
  snprintf(why, sizeof why, "view %s not installed: %s", name,
           src != SQLITE_OK ? sqlite3_errmsg(db) : "its base tables are missing");
  if (src == SQLITE_OK) {        /* the prepare failure names the table */
    sqlite3_stmt *st = NULL;
    char *q = sqlite3_mprintf("SELECT * FROM \"%w\"", name);
    if (q && sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
      snprintf(why, sizeof why, "view %s not installed: %s", name,
               sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_free(q);
  }
  rc = run(db, "rollback", "ROLLBACK TO rpd_view; RELEASE rpd_view");
  if (rc)
    return rc;
  drop = sqlite3_mprintf("DROP VIEW IF EXISTS \"%w\"", name);
  if (!drop)
    return rpd_seterr(RPD_ENOMEM, "out of memory");
  src = sqlite3_exec(db, drop, NULL, NULL, NULL);
  sqlite3_free(drop);
  if (src != SQLITE_OK && status_of(sqlite3_extended_errcode(db)) != RPD_ESQL)
    return rpd_seterr(status_of(sqlite3_extended_errcode(db)), "view %s: %s",
                      name, sqlite3_errmsg(db));
  return rpd_seterr(RPD_ENOTFOUND, "%s", why);  /* a table: left alone */
}

/* See schema.h. */
int rpd_schema_install_view(rpd *r, const char *name)
{
  return install_view(r->db, name, r->schema == 2 ? 2 : 3);
}

/* Drop and recreate the utility views for r->schema, each verified against
 * the trace; views whose base tables are missing are left out (callers list
 * what exists with rpd_table_exists).  Runs inside a savepoint, so it is
 * atomic inside or outside the caller's transaction. */
int rpd_schema_install_views(rpd *r)
{
  int schema = r->schema == 2 ? 2 : 3;
  int rc = run(r->db, "savepoint", "SAVEPOINT rpd_views");
  for (int i = 0; rc == RPD_OK && rpd_utility_views[i]; i++) {
    rc = install_view(r->db, rpd_utility_views[i], schema);
    if (rc == RPD_ENOTFOUND)
      rc = RPD_OK;                    /* left out; callers can list them */
  }
  if (rc == RPD_OK)
    return run(r->db, "release", "RELEASE rpd_views");
  sqlite3_exec(r->db, "ROLLBACK TO rpd_views; RELEASE rpd_views", NULL, NULL,
               NULL);
  return rc;
}

/* Create tables, indexes, metadata rows and views of schema r->schema (3 if
 * unset) in the empty database r.  Atomic (one savepoint). */
int rpd_schema_create(rpd *r)
{
  const char *sql;
  int rc;

  if (r->schema != 2)
    r->schema = 3;
  sql = rpd_view_sql("schema", r->schema);
  if (!sql)
    return rpd_seterr(RPD_ERR, "no embedded schema v%d", r->schema);
  rc = run(r->db, "savepoint", "SAVEPOINT rpd_create");
  if (rc)
    return rc;
  rc = run(r->db, "create tables", sql);
  if (rc == RPD_OK)
    rc = rpd_schema_install_views(r);
  if (rc == RPD_OK)
    return run(r->db, "release", "RELEASE rpd_create");
  sqlite3_exec(r->db, "ROLLBACK TO rpd_create; RELEASE rpd_create", NULL, NULL,
               NULL);
  return rc;
}

/* See schema.h. */
int rpd_output_target(const char *path, char **out)
{
  return rpd_output_check(path, NULL, out);
}
