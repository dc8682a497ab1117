/* sql.c - statement helpers: every failure becomes an rpd status with a
 * message carrying sqlite3_errmsg() and the statement text. */
#include "rpd.h"
#include "internal.h"

#include <string.h>

/* Declared in internal.h. */
int rpd__sqlerr(sqlite3 *db, int src, const char *sql)
{
  int prim = src & 0xff;

  if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
    return rpd_seterr(RPD_EBUSY, "database is locked");
  if (prim == SQLITE_NOMEM)
    return rpd_seterr(RPD_ENOMEM, "out of memory in SQLite");
  if (prim == SQLITE_NOTADB)
    return rpd_seterr(RPD_ENOTDB, "not an SQLite database");
  if (prim == SQLITE_CORRUPT)
    return rpd_seterr(RPD_ENOTDB, "corrupt SQLite database (%s)",
                      db ? sqlite3_errmsg(db) : sqlite3_errstr(src));
  if (prim == SQLITE_FULL)
    return rpd_seterr(RPD_EIO, "disk full");
  if (prim == SQLITE_IOERR)
    return rpd_seterr(RPD_EIO, "I/O error (%s)",
                      db ? sqlite3_errmsg(db) : sqlite3_errstr(src));
  if (prim == SQLITE_READONLY && db && sqlite3_extended_errcode(db) == SQLITE_READONLY_DBMOVED)
    return rpd_seterr(RPD_EBUSY, "the file was replaced while this program worked on it "
                      "(by a concurrent rpd-trim or VACUUM); nothing was written, run "
                      "it again");
  if (prim == SQLITE_READONLY)
    return rpd_seterr(RPD_EROFS, "read-only database (%s)",
                      db ? sqlite3_errmsg(db) : sqlite3_errstr(src));
  const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(src);
  char brief[204];
  size_t n = 0;
  if (!sql) sql = "";
  /* the statement on one line: whitespace runs become one space */
  for (; *sql && n < 200; sql++) {
    int space = *sql == ' ' || *sql == '\n' || *sql == '\t' || *sql == '\r';
    if (space && (n == 0 || brief[n - 1] == ' ')) continue;
    brief[n++] = space ? ' ' : *sql;
  }
  brief[n] = 0;
  return rpd_seterr(RPD_ESQL, "SQL error: %s in: %s%s", msg, brief, *sql ? "..." : "");
}

int rpd_prepare(rpd *r, const char *sql, sqlite3_stmt **st)
{
  int src = sqlite3_prepare_v2(r->db, sql, -1, st, NULL);

  if (src != SQLITE_OK) {
    *st = NULL;
    return rpd__sqlerr(r->db, src, sql);
  }
  if (!*st) return rpd_seterr(RPD_ESQL, "SQL error: empty statement");
  return RPD_OK;
}

int rpd_step(rpd *r, sqlite3_stmt *st)
{
  int src = sqlite3_step(st);

  if (src == SQLITE_ROW || src == SQLITE_DONE) return src;
  return -rpd__sqlerr(r ? r->db : sqlite3_db_handle(st), src, sqlite3_sql(st));
}

/* Run every statement of sql in turn, so that a failure names the very
 * statement that failed. */
static int exec_all(sqlite3 *db, const char *sql)
{
  const char *tail = sql;

  while (tail && *tail) {
    sqlite3_stmt *st = NULL;
    const char *start = tail;
    int src = sqlite3_prepare_v2(db, start, -1, &st, &tail);
    if (src != SQLITE_OK) return rpd__sqlerr(db, src, start);
    if (!st) continue;              /* whitespace or comment */
    while ((src = sqlite3_step(st)) == SQLITE_ROW)
      ;
    if (src != SQLITE_DONE) {
      int rc = rpd__sqlerr(db, src, sqlite3_sql(st));
      sqlite3_finalize(st);
      return rc;
    }
    sqlite3_finalize(st);
  }
  return RPD_OK;
}

int rpd_exec(rpd *r, const char *sql)
{
  return exec_all(r->db, sql);
}

int rpd_execf(rpd *r, const char *fmt, ...)
{
  va_list ap;
  char *sql;
  int rc;

  va_start(ap, fmt);
  sql = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  if (!sql) return rpd_seterr(RPD_ENOMEM, "out of memory formatting SQL");
  rc = exec_all(r->db, sql);
  sqlite3_free(sql);
  return rc;
}

int rpd_query_int64(rpd *r, const char *sql, int64_t *out)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st);
  int s;

  if (rc) return rc;
  s = rpd_step(r, st);
  if (s < 0) rc = -s;
  else if (s == SQLITE_DONE || sqlite3_column_type(st, 0) == SQLITE_NULL)
    rc = rpd_seterr(RPD_ENOTFOUND, "no value from: %.200s", sql);
  else
    *out = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return rc;
}

int rpd_plan_sorts(rpd *r, const char *sql, int *sorts)
{
  sqlite3_stmt *st = NULL;
  char *q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
  int rc, s = 0;

  *sorts = 0;
  if (!q) return rpd_seterr(RPD_ENOMEM, "out of memory");
  rc = rpd_prepare(r, q, &st);
  sqlite3_free(q);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 3);
    if (d && strstr(d, "TEMP B-TREE")) *sorts = 1;
  }
  if (!rc && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* 1 if the query with one text parameter (and optionally a second) yields a
 * row; 0 otherwise (errors count as "no"). */
static int exists2(sqlite3 *db, const char *sql, const char *a, const char *b)
{
  sqlite3_stmt *st = NULL;
  int found = 0;

  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return 0;
  sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
  found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

int rpd_table_exists(rpd *r, const char *name)
{
  return exists2(r->db,
                 "SELECT 1 FROM sqlite_master WHERE type IN ('table','view')"
                 " AND name = ?1 COLLATE NOCASE UNION ALL "
                 "SELECT 1 FROM sqlite_temp_master WHERE type IN "
                 "('table','view') AND name = ?1 COLLATE NOCASE",
                 name, NULL);
}

int rpd_column_exists(rpd *r, const char *table, const char *col)
{
  return exists2(r->db,
                 "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 "
                 "COLLATE NOCASE",
                 table, col);
}

int rpd_file_moved(rpd *r)
{
  int moved = 0;

  if (sqlite3_file_control(r->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
    return 0;
  return moved != 0;
}

int rpd_begin(rpd *r)
{
  return exec_all(r->db, "BEGIN IMMEDIATE");
}

int rpd_commit(rpd *r)
{
  if (sqlite3_get_autocommit(r->db))
    return rpd_seterr(RPD_ERR, "commit without a transaction");
  return exec_all(r->db, "COMMIT");
}

/* Roll back if a transaction is open; keeps the current error message. */
void rpd_rollback(rpd *r)
{
  if (r && r->db && !sqlite3_get_autocommit(r->db))
    sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
}
