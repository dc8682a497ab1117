/* harden.c - a trace is a file from a stranger, and an SQLite file carries
 * code as well as data: triggers that fire on our writes, views and virtual
 * tables where tables belong, planner statistics that steer every query.
 * Every connection to a trace is hardened here, and what rpd_open reads
 * before trusting a file is checked here (docs/common.md "Untrusted
 * traces"). */
#include "rpd.h"
#include "internal.h"

#include <inttypes.h>
#include <string.h>

int rpd__sqlerr(sqlite3 *db, int src, const char *sql);   /* sql.c */

/* Set one sqlite3_db_config switch and read it back: 1 when it holds. */
static int set_switch(sqlite3 *db, int op, int on)
{
  int now = -1;

  return sqlite3_db_config(db, op, on, &now) == SQLITE_OK && now == on;
}

int rpd_db_harden(sqlite3 *db)
{
  if (!db) return SQLITE_MISUSE;
  /* triggers of the file never fire on our writes (TEMP ones, which only
   * the program itself can create, still would) */
  if (!set_switch(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0) ||
      /* views, triggers and indexes of the file may only call functions
       * marked innocuous, and use no virtual table that is not */
      !set_switch(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0) ||
      /* no writable_schema, no writes to sqlite_dbpage or shadow tables */
      !set_switch(db, SQLITE_DBCONFIG_DEFENSIVE, 1) ||
      /* foreign key actions (ON DELETE CASCADE ...) stay off */
      !set_switch(db, SQLITE_DBCONFIG_ENABLE_FKEY, 0) ||
      !set_switch(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0))
    return SQLITE_ERROR;
  /* a cell pointer past its page fails as a corrupt database instead of
   * being decoded from bytes beyond the page buffer (a different garbage
   * row on each read); scans cost the same within noise */
  return sqlite3_exec(db, "PRAGMA cell_size_check = ON", NULL, NULL, NULL);
}

int rpd_sqlite_open(const char *path, sqlite3 **db, int flags)
{
  int src = sqlite3_open_v2(path, db, flags, NULL);

  if (src == SQLITE_OK) src = rpd_db_harden(*db);
  return src;
}

/* ------------------------------------------------------------ checks */

/* Declared in internal.h. */
int rpd__first_text(sqlite3 *db, const char *sql, const char *a, char *buf, size_t n)
{
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL), rc = RPD_OK;

  buf[0] = 0;
  if (src != SQLITE_OK) return rpd__sqlerr(db, src, sql);
  if (a) sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  src = sqlite3_step(st);
  if (src == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    snprintf(buf, n, "%s", t ? t : "");
  } else if (src != SQLITE_DONE) {
    rc = rpd__sqlerr(db, src, sql);
  }
  sqlite3_finalize(st);
  return rc;
}

/* Declared in internal.h. */
int rpd__first_int(sqlite3 *db, const char *sql, const char *a, int64_t *v)
{
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL), rc = RPD_OK;

  *v = 0;
  if (src == SQLITE_OK && a) sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
  if (src == SQLITE_OK) src = sqlite3_step(st);
  if (src == SQLITE_ROW) *v = sqlite3_column_int64(st, 0);
  else rc = rpd__sqlerr(db, src == SQLITE_DONE ? SQLITE_ERROR : src, sql);
  sqlite3_finalize(st);
  return rc;
}

/* Every rocpd_ object is an ordinary table with no generated column: a
 * view, a virtual table or a computed column in their place runs code of
 * the file's author on each read (a recursive view never ends). */
static int check_core_tables(sqlite3 *db)
{
  char what[512];
  int rc = rpd__first_text(db,
      "SELECT name || CASE WHEN type = 'view' THEN ' is a view'"
      " ELSE ' is a virtual table' END FROM sqlite_master"
      " WHERE name LIKE 'rocpd\\_%' ESCAPE '\\' AND (type = 'view' OR"
      " (type = 'table' AND sql LIKE 'CREATE VIRTUAL%')) ORDER BY name LIMIT 1",
      NULL, what, sizeof what);

  if (!rc && !what[0])
    rc = rpd__first_text(db,
        "SELECT m.name || '.' || x.name || ' is a generated column' FROM sqlite_master m,"
        " pragma_table_xinfo(m.name) x WHERE m.type = 'table' AND m.name LIKE 'rocpd\\_%'"
        " ESCAPE '\\' AND x.hidden IN (2, 3) ORDER BY m.name LIMIT 1",
        NULL, what, sizeof what);
  if (rc || !what[0]) return rc;
  return rpd_seterr(RPD_ENOTRPD, "not an RPD trace: %s, not a plain table (code of the "
                    "file's author would run on every read)", what);
}

/* sqlite_stat1's row counts against the real ones: SQLite plans every
 * query from them, and a file that claims a big table holds one row makes
 * joins scan it once per row (hours instead of a second).  The counts are
 * only read when the file has statistics at all. */
static int check_stat1(sqlite3 *db)
{
  static const char sql[] =
      "SELECT s.tbl, max(CAST(s.stat AS INTEGER)) FROM sqlite_stat1 s"
      " JOIN sqlite_master m ON m.type = 'table' AND m.name = s.tbl"
      "  AND m.sql NOT LIKE 'CREATE VIRTUAL%'"
      " WHERE s.idx IS NULL OR s.idx = s.tbl OR s.idx IN"
      "  (SELECT name FROM pragma_index_list(s.tbl) WHERE NOT partial)"
      " GROUP BY s.tbl ORDER BY s.tbl";
  sqlite3_stmt *st = NULL, *cnt = NULL;
  int rc = RPD_OK, src;
  char has[8];

  if ((rc = rpd__first_text(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                           "name = 'sqlite_stat1'", NULL, has, sizeof has)) || !has[0])
    return rc;
  src = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (src != SQLITE_OK) return rpd__sqlerr(db, src, sql);
  while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
    const char *tbl = (const char *)sqlite3_column_text(st, 0);
    int64_t claimed = sqlite3_column_int64(st, 1), real = 0;
    char *q = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", tbl ? tbl : "");
    if (!q) { rc = rpd_seterr(RPD_ENOMEM, "out of memory formatting SQL"); break; }
    src = sqlite3_prepare_v2(db, q, -1, &cnt, NULL);
    if (src == SQLITE_OK && (src = sqlite3_step(cnt)) == SQLITE_ROW) {
      real = sqlite3_column_int64(cnt, 0);
      src = SQLITE_OK;
    }
    if (src != SQLITE_OK) rc = rpd__sqlerr(db, src, q);
    sqlite3_finalize(cnt);
    cnt = NULL;
    sqlite3_free(q);
    /* stale statistics of a trace that lost rows since ANALYZE claim more
     * rows than there are: harmless.  Fewer than half is a lie (or a
     * trace that grew from nothing) and steers the planner wrong. */
    if (!rc && real > 64 && claimed < real / 2)
      rc = rpd_seterr(RPD_ENOTRPD, "planner statistics do not match the trace: "
                      "sqlite_stat1 says %s has %" PRId64 " row%s, it has %" PRId64 "; "
                      "remove them with sqlite3 FILE 'DROP TABLE sqlite_stat1' (or run "
                      "ANALYZE)", tbl, claimed, claimed == 1 ? "" : "s", real);
  }
  if (!rc && src != SQLITE_DONE && src != SQLITE_OK) rc = rpd__sqlerr(db, src, sql);
  sqlite3_finalize(st);
  return rc;
}

int rpd__check_untrusted(sqlite3 *db, int schema)
{
  int rc = schema ? check_core_tables(db) : RPD_OK;

  if (!rc) rc = check_stat1(db);
  return rc;
}
