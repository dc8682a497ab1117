/* create.c - the one way to make a trace (rpd_create) and the open
 * profiles: the connection settings every tool gets from here instead of
 * its own pragmas. */
#include "rpd.h"
#include "internal.h"

#include <stdio.h>

/* One line of pragmas per profile (rpd.h says what each is for).  The
 * cache sizes are in KiB (negative cache_size). */
static const char *const profile_sql[] = {
  [RPD_OPEN_DEFAULT] = "PRAGMA cache_size = -65536",
  [RPD_OPEN_SCAN] = "PRAGMA cache_size = -4096; PRAGMA temp_store = FILE;"
                    " PRAGMA temp.cache_size = -4096",
  [RPD_OPEN_SIDE] = "PRAGMA cache_size = -2048",
  [RPD_OPEN_UPDATE] = "PRAGMA cache_size = -16384",
  [RPD_OPEN_SORT] = "PRAGMA cache_size = -16384; PRAGMA temp.cache_size = -16384",
  /* a private new file renamed into place only when complete: nothing to
   * sync; the journal stays in memory because a tool may roll back to a
   * savepoint (rpd-import re-reads regions sorted), and it holds only the
   * few pages that existed before (new pages are not journalled) */
  [RPD_OPEN_BULK] = "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;"
                    " PRAGMA foreign_keys = OFF; PRAGMA cache_size = -16384;"
                    " PRAGMA temp_store = FILE; PRAGMA temp.cache_size = -4096",
};

int rpd_db_profile(sqlite3 *db, int profile)
{
  if (profile < 0 || profile >= (int)(sizeof profile_sql / sizeof profile_sql[0]))
    return SQLITE_MISUSE;
  return sqlite3_exec(db, profile_sql[profile], NULL, NULL, NULL);
}

int rpd_profile(rpd *r, int profile)
{
  if (profile < 0 || profile >= (int)(sizeof profile_sql / sizeof profile_sql[0]))
    return rpd_seterr(RPD_ERR, "unknown open profile %d", profile);
  return rpd_exec(r, profile_sql[profile]);
}

/* The tables, indexes and views of r->schema, in one transaction. */
static int install_schema(rpd *r)
{
  int rc = rpd_begin(r);

  if (!rc) rc = rpd_schema_create(r);
  if (!rc) rc = rpd_commit(r);
  return rc;
}

/* The end of a create: rc == RPD_OK hands r to the caller in *out; an
 * error closes r (its temp file removed) and returns rc with the message
 * of the failure, not of the close. */
static int hand_over(rpd *r, int rc, rpd **out)
{
  if (rc) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", rpd_errmsg());
    rpd_close(r, 0);
    return rpd_seterr(rc, "%s", msg);
  }
  *out = r;
  return RPD_OK;
}

int rpd_create(rpd **out, const char *path, const rpd_create_opts *o)
{
  static const rpd_create_opts defaults;
  rpd *r = NULL;
  int rc;

  if (!o) o = &defaults;
  *out = NULL;
  if (o->schema != 0 && o->schema != 2 && o->schema != 3 && o->schema != RPD_SCHEMA_NONE)
    return rpd_seterr(RPD_ERR, "cannot create schema %d", o->schema);
  if ((rc = rpd__create_file(&r, path, o->input, o->force))) return rc;
  /* before the first table: the page size of an empty file can change;
   * and before the profile, whose cache size SQLite turns into a number of
   * pages of the page size then in force */
  if (o->page_size) rc = rpd_execf(r, "PRAGMA page_size = %d", o->page_size);
  if (!rc) rc = rpd_profile(r, RPD_OPEN_BULK);
  if (o->schema == RPD_SCHEMA_NONE) {
    r->schema = 0;
  } else {
    r->schema = o->schema == 2 ? 2 : 3;
    if (!rc) rc = install_schema(r);
  }
  return hand_over(r, rc, out);
}

/* The page cache of a trace in memory (KiB): a trace up to this size never
 * touches the disk (the 38,000-dispatch rocprofv3 database read lean: 10 MB). */
#define RPD_MEMORY_TRACE_KIB "65536"

int rpd_create_memory(rpd **out, const char *path)
{
  rpd *r = rpd_xcalloc(1, sizeof *r);
  int rc = RPD_OK, src;

  *out = NULL;
  rpd_clearerr();
  r->lock_fd = -1;
  r->flags = RPD_WRITE | RPD_CREATE;
  r->path = rpd_xstrdup(path ? path : "");
  /* SQLite's private temporary database (the empty name): its pages stay
   * in the page cache, and only past the cache size below do they go to
   * an unnamed file in $TMPDIR (deleted by SQLite, even on a crash), so
   * memory stays flat for a big trace.  (A named memdb that a second
   * connection could share costs a mutex per page access: 8% of raptor
   * --report.) */
  src = rpd_sqlite_open("", &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (src != SQLITE_OK) {
    rc = rpd__sqlerr(r->db, src, NULL);
    if (rc == RPD_ESQL) rc = rpd_seterr(RPD_EIO, "cannot open memory: %s", sqlite3_errstr(src));
  }
  if (!rc) {
    sqlite3_extended_result_codes(r->db, 0);
    r->schema = 3;
    rc = rpd_profile(r, RPD_OPEN_BULK);
  }
  if (!rc) rc = rpd_exec(r, "PRAGMA cache_size = -" RPD_MEMORY_TRACE_KIB);
  if (!rc) rc = install_schema(r);
  return hand_over(r, rc, out);
}
