/* test_rawscan.c - common/trace/rawscan.c, rpd_intscan's direct reader of
 * a table's pages: wherever it serves a scan, the rows, their order,
 * values and INTEGER bits equal the SQL path's (RPD_RAWSCAN=0); every
 * value SQLite converts (reals, texts, blobs, overflowing records, short
 * records of a column with a default) comes through SQLite; a query,
 * table or file it cannot read exactly (a covering index, REAL affinity,
 * WITHOUT ROWID, a view, a temp table of the name, WAL, auto-vacuum, a
 * database in memory, a table changed in the open transaction) runs the
 * SQL path; a primary key that is no rowid alias is read from the record; a page it refuses mid-scan hands over to the SQL path, whose
 * first rows must be the ones already returned. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "core_fixture.h"
#include "intscan.h"
#include "internal.h"   /* white-box: the progress phase's count */
#include "progress.h"

typedef struct {
  char *dir, *path;
  sqlite3 *db;
  rpd *r;
} fx;

typedef struct {
  int64_t n;
  int64_t *v;
  uint16_t *ints;
  int end;        /* rpd_intscan_row's last return */
  int used;       /* the direct reader served it */
} rows;

/* 20000 rows over a few levels of pages; values of every serial type;
 * every 997th row a text too long for its page */
static const char ddl[] =
    "CREATE TABLE t (id INTEGER PRIMARY KEY, a integer, b, c, d);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
    " INSERT INTO t SELECT i * 3, (i - 10000) * CASE i % 6 WHEN 0 THEN 1 WHEN 1 THEN 300"
    "  WHEN 2 THEN 70000 WHEN 3 THEN 9000000 WHEN 4 THEN 1 << 40 ELSE 1 << 52 END,"
    " CASE i % 9 WHEN 0 THEN NULL WHEN 1 THEN 0 WHEN 2 THEN 1 WHEN 3 THEN i + 0.5"
    "  WHEN 4 THEN '12abc' WHEN 5 THEN x'0102' WHEN 6 THEN 1e300 WHEN 7 THEN '-7' ELSE -i END,"
    " CASE WHEN i % 997 = 0 THEN printf('%.*c', 9000, 'x') ELSE i END, i % 2 FROM n;";

static int setup(void **state)
{
  fx *f = calloc(1, sizeof *f);

  f->dir = fx_mkdtemp();
  f->path = fx_path(f->dir, "t.db");
  if (fx_make_db(f->path, ddl) != 0 || sqlite3_open(f->path, &f->db) != SQLITE_OK) return -1;
  f->r = rpd_attach(f->db, 0, 0);
  *state = f;
  return f->r ? 0 : -1;
}

static int teardown(void **state)
{
  fx *f = *state;

  rpd_detach(f->r);
  sqlite3_close(f->db);
  fx_rm_tree(f->dir);
  free(f->dir);
  free(f->path);
  free(f);
  unsetenv("RPD_RAWSCAN");
  return 0;
}

static void exec(fx *f, const char *sql)
{
  char *err = NULL;
  if (sqlite3_exec(f->db, sql, NULL, NULL, &err) != SQLITE_OK) fail_msg("%s: %s", sql, err);
}

static void scan(fx *f, const char *sql, int ncols, unsigned typed, int raw, rows *o)
{
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  size_t cap = 1024;

  setenv("RPD_RAWSCAN", raw ? "1" : "0", 1);
  memset(o, 0, sizeof *o);
  o->v = malloc(cap * (size_t)ncols * sizeof *o->v);
  o->ints = malloc(cap * sizeof *o->ints);
  assert_int_equal(rpd_intscan_open(f->r, &sc, sql, ncols, typed), RPD_OK);
  while ((o->end = rpd_intscan_row(f->r, &sc, &v, &ints)) == 1) {
    if ((size_t)o->n == cap) {
      cap *= 2;
      o->v = realloc(o->v, cap * (size_t)ncols * sizeof *o->v);
      o->ints = realloc(o->ints, cap * sizeof *o->ints);
    }
    memcpy(o->v + o->n * ncols, v, (size_t)ncols * sizeof *v);
    o->ints[o->n++] = (uint16_t)ints;
  }
  o->used = sc.raw_used;
  rpd_intscan_close(&sc);
}

/* The scan both ways: equal rows; returns whether the reader served it. */
static int same_both_ways(fx *f, const char *sql, int ncols, unsigned typed, int64_t want_rows)
{
  rows a, b;

  scan(f, sql, ncols, typed, 0, &a);
  scan(f, sql, ncols, typed, 1, &b);
  assert_false(a.used);
  assert_int_equal(a.end, 0);
  assert_int_equal(b.end, 0);
  assert_int_equal(a.n, want_rows);
  assert_int_equal(b.n, a.n);
  for (int64_t i = 0; i < a.n; i++) {
    assert_int_equal(a.ints[i], b.ints[i]);
    for (int c = 0; c < ncols; c++) assert_int_equal(a.v[i * ncols + c], b.v[i * ncols + c]);
  }
  free(a.v);
  free(a.ints);
  free(b.v);
  free(b.ints);
  return b.used;
}

/* Every serial type, the rowid and its alias, IS NULL, ORDER BY the
 * alias, records on overflow pages: read directly, as SQLite reads them. */
static void test_values(void **state)
{
  fx *f = *state;

  assert_true(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, id, a, b, c, d, rowid,"
                             " b IS NULL, id IS NULL, \"c\")", 9, 0x1ff, 20000));
  assert_true(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, b, id) ORDER BY id", 2, 1,
                             20000));
  assert_true(same_both_ways(f, "select 1 from t where rpd_intscan(?1, oid, _rowid_, c)", 3, 7,
                             20000));
  /* the INTEGER bits only of the columns asked for */
  assert_true(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, a, b)", 2, 2, 20000));
  exec(f, "CREATE TABLE empty (id INTEGER PRIMARY KEY, a);");
  assert_true(same_both_ways(f, "SELECT 1 FROM empty WHERE rpd_intscan(?1, a)", 1, 1, 0));
}

/* ALTER TABLE ADD COLUMN leaves the old records short: a column with a
 * default reads it (through SQLite), one without reads NULL. */
static void test_short_records(void **state)
{
  fx *f = *state;

  exec(f, "ALTER TABLE t ADD COLUMN e DEFAULT 7; ALTER TABLE t ADD COLUMN g;"
          "UPDATE t SET e = 5, g = 6 WHERE id % 10 = 0;");
  assert_true(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, e, g, e IS NULL, id)", 4,
                             0xf, 20000));
}

/* What the reader must leave to SQLite. */
static void test_sql_path(void **state)
{
  fx *f = *state;

  /* a REAL column's integers read as reals */
  exec(f, "CREATE TABLE r (id INTEGER PRIMARY KEY, x REAL, y FLOATING);"
          "INSERT INTO r(x, y) SELECT a, a FROM t;");
  assert_false(same_both_ways(f, "SELECT 1 FROM r WHERE rpd_intscan(?1, x)", 1, 1, 20000));
  assert_false(same_both_ways(f, "SELECT 1 FROM r WHERE rpd_intscan(?1, y)", 1, 1, 20000));
  /* but whether one is NULL is not a conversion */
  assert_true(same_both_ways(f, "SELECT 1 FROM r WHERE rpd_intscan(?1, x IS NULL, id)", 2, 3,
                             20000));
  /* a covering index is read in its order */
  exec(f, "CREATE INDEX t_d ON t(d, a);");
  assert_false(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, d, a)", 2, 3, 20000));
  assert_false(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, d, a) ORDER BY d", 2, 3,
                              20000));
  /* WITHOUT ROWID, a view */
  exec(f, "CREATE TABLE w (k INTEGER PRIMARY KEY, a) WITHOUT ROWID;"
          "INSERT INTO w SELECT id, a FROM t; CREATE VIEW v AS SELECT id, a FROM t;");
  assert_false(same_both_ways(f, "SELECT 1 FROM w WHERE rpd_intscan(?1, k, a)", 2, 3, 20000));
  assert_false(same_both_ways(f, "SELECT 1 FROM v WHERE rpd_intscan(?1, id, a)", 2, 3, 20000));
  /* primary keys that are no rowid alias (the key is in the record) */
  exec(f, "CREATE TABLE p1 (id INTEGER PRIMARY KEY DESC, a);"
          "CREATE TABLE p2 (id int PRIMARY KEY, a);"
          "INSERT INTO p1 SELECT 100000 - id, a FROM t; INSERT INTO p2 SELECT 100000 - id, a FROM t;");
  assert_true(same_both_ways(f, "SELECT 1 FROM p1 WHERE rpd_intscan(?1, id, a, rowid)", 3, 7,
                             20000));
  assert_true(same_both_ways(f, "SELECT 1 FROM p2 WHERE rpd_intscan(?1, id, a, rowid)", 3, 7,
                             20000));
  /* where the key's index covers the query, it is scanned in key order */
  assert_false(same_both_ways(f, "SELECT 1 FROM p1 WHERE rpd_intscan(?1, id, rowid)", 2, 3,
                              20000));
  /* a temp table of the name is what the query reads */
  exec(f, "CREATE TEMP TABLE p2 (id INTEGER PRIMARY KEY, a); INSERT INTO temp.p2 VALUES (1, 2);");
  assert_false(same_both_ways(f, "SELECT 1 FROM p2 WHERE rpd_intscan(?1, id, a)", 2, 3, 1));
  /* unordered scans reversed */
  exec(f, "PRAGMA reverse_unordered_selects = 1;");
  assert_false(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, id)", 1, 1, 20000));
  exec(f, "PRAGMA reverse_unordered_selects = 0;");
  /* a column not in the table: SQLite's error */
  rpd_intscan sc;
  assert_int_equal(rpd_intscan_open(f->r, &sc, "SELECT 1 FROM t WHERE rpd_intscan(?1, nosuch)", 1,
                                    1), RPD_ESQL);
}

/* The file is the connection's view only of a table unchanged in the open
 * transaction, and never in WAL mode. */
static void test_consistency(void **state)
{
  fx *f = *state;
  rows a;

  exec(f, "BEGIN; UPDATE t SET a = -a;");
  /* changed: the SQL path, with the new values */
  assert_false(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 1, 20000));
  scan(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 1, 1, &a);
  assert_int_equal(a.v[0], -(1 - 10000) * 300);
  free(a.v);
  free(a.ints);
  /* unchanged, as the caller says: the file */
  exec(f, "CREATE TABLE u (id INTEGER PRIMARY KEY, a); INSERT INTO u SELECT id, a FROM t;");
  exec(f, "CREATE TABLE x (a); COMMIT; BEGIN; INSERT INTO x VALUES (1);");
  assert_false(same_both_ways(f, "SELECT 1 FROM u WHERE rpd_intscan(?1, a)", 1, 1, 20000));
  assert_true(same_both_ways(f, "SELECT 1 FROM u WHERE rpd_intscan(?1, a)", 1,
                             1 | RPD_INTSCAN_UNCHANGED, 20000));
  /* WAL: the committed change is in the -wal file, not yet in the file */
  exec(f, "COMMIT; PRAGMA journal_mode = wal; PRAGMA wal_autocheckpoint = 0;"
          "UPDATE u SET a = a + 1;");
  assert_false(same_both_ways(f, "SELECT 1 FROM u WHERE rpd_intscan(?1, a)", 1, 1, 20000));
  exec(f, "PRAGMA journal_mode = delete;");
  assert_true(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 1, 20000));
  /* RPD_RAWSCAN=0 */
  scan(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 1, 0, &a);
  assert_false(a.used);
  free(a.v);
  free(a.ints);
}

/* Files whose pages are not simply the table's: in memory, a temporary
 * database, auto-vacuum (pages move at commit). */
static void test_files(void **state)
{
  fx *f = *state;
  static const char *const names[] = { ":memory:", "", NULL };
  rows a;

  for (int k = 0; k < 3; k++) {
    fx g = { NULL, NULL, NULL, NULL };
    char *p = k < 2 ? NULL : fx_path(f->dir, "av.db");
    assert_int_equal(sqlite3_open(k < 2 ? names[k] : p, &g.db), SQLITE_OK);
    g.r = rpd_attach(g.db, 0, 0);
    exec(&g, "PRAGMA auto_vacuum = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, a);"
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
             " INSERT INTO t SELECT i, i * 7 FROM n;");
    scan(&g, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 1, 1, &a);
    assert_int_equal(a.end, 0);
    assert_int_equal(a.n, 5000);
    assert_int_equal(a.v[4999], 35000);
    assert_false(a.used);
    free(a.v);
    free(a.ints);
    rpd_detach(g.r);
    sqlite3_close(g.db);
    free(p);
  }
}

/* A WAL file opened immutable reports another journal mode: its header
 * says WAL, and the SQL path reads it. */
static void test_immutable_wal(void **state)
{
  fx *f = *state;
  fx g = { NULL, NULL, NULL, NULL };
  char *uri = sqlite3_mprintf("file:%s?immutable=1", f->path);
  rows a;

  exec(f, "PRAGMA journal_mode = wal;");
  assert_int_equal(sqlite3_open_v2(uri, &g.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
                   SQLITE_OK);
  g.r = rpd_attach(g.db, 0, 0);
  scan(&g, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 1, 1, &a);
  assert_int_equal(a.end, 0);
  assert_int_equal(a.n, 20000);
  assert_false(a.used);
  free(a.v);
  free(a.ints);
  rpd_detach(g.r);
  sqlite3_close(g.db);
  sqlite3_free(uri);
}

/* Page number of table t's leaf k (in key order), through dbstat. */
static int64_t leaf_page(fx *f, int k)
{
  sqlite3_stmt *st = NULL;
  int64_t p = 0;

  assert_int_equal(sqlite3_prepare_v2(f->db, "SELECT pageno FROM dbstat WHERE name = 't' AND"
                                      " pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET ?1",
                                      -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_int(st, 1, k);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  p = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return p;
}

static void poke(fx *f, int64_t page, int at, const void *bytes, size_t n)
{
  int fd = open(f->path, O_RDWR);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, bytes, n, (page - 1) * 4096 + at), (ssize_t)n);
  close(fd);
}

/* The fixture's connection closed (nothing cached), the file patched by
 * poke when bytes is not NULL, and opened again. */
static void reopen(fx *f, int64_t page, int at, const void *bytes, size_t n)
{
  sqlite3_close(f->db);
  rpd_detach(f->r);
  if (bytes) poke(f, page, at, bytes, n);
  assert_int_equal(sqlite3_open(f->path, &f->db), SQLITE_OK);
  f->r = rpd_attach(f->db, 0, 0);
}

/* A leaf the reader refuses (its content area starts after a cell, which
 * SQLite does not look at when it reads) far into the scan: the SQL path
 * takes over and the rows are all there; if the rows already returned are
 * not the SQL path's (the file changed under the scan), an error. */
static void test_handover(void **state)
{
  fx *f = *state;
  int64_t p = leaf_page(f, 40);
  unsigned char far[2] = { 0x0f, 0xf0 };
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int rc;

  reopen(f, p, 5, far, 2);
  assert_true(same_both_ways(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, id, a, b, c)", 4, 0xf,
                             20000));
  /* the first batch read (by a new connection: nothing cached), then a
   * row of it changed in the file */
  int64_t first = leaf_page(f, 0);
  reopen(f, 0, 0, NULL, 0);
  setenv("RPD_RAWSCAN", "1", 1);
  assert_int_equal(rpd_intscan_open(f->r, &sc, "SELECT 1 FROM t WHERE rpd_intscan(?1, id, d)", 2, 3),
                   RPD_OK);
  assert_int_equal(rpd_intscan_row(f->r, &sc, &v, &ints), 1);
  assert_true(sc.raw_used);
  unsigned char b[4096];
  int fd = open(f->path, O_RDWR);
  assert_int_equal(pread(fd, b, sizeof b, (first - 1) * 4096), 4096);
  /* the first cell (payload size and rowid 3: a byte each), its record's
   * header: its size, then the types; d's, the last, is 9 (the constant 1) */
  int hdr = (b[8] << 8 | b[9]) + 2;
  assert_int_equal(b[hdr + b[hdr] - 1], 9);
  b[hdr + b[hdr] - 1] = 8;
  assert_int_equal(pwrite(fd, b, sizeof b, (first - 1) * 4096), 4096);
  close(fd);
  while ((rc = rpd_intscan_row(f->r, &sc, &v, &ints)) == 1) {}
  assert_int_equal(rc, -RPD_ENOTDB);
  assert_non_null(strstr(rpd_errmsg(), "reads differently"));
  rpd_intscan_close(&sc);
}

/* The same hand over inside a progress phase: the rows the reader read
 * before it are read again by SQLite, and counted once (the line would
 * otherwise reach the total with rows still to read). */
static void test_handover_progress(void **state)
{
  fx *f = *state;
  int64_t p = leaf_page(f, 40), read = 0;
  unsigned char far[2] = { 0x0f, 0xf0 };
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int rc, err = dup(2), null = open("/dev/null", O_WRONLY);

  reopen(f, p, 5, far, 2);
  setenv("RPD_RAWSCAN", "1", 1);
  setenv("RPD_PROGRESS", "1", 1);
  setenv("RPD_PROGRESS_MS", "0", 1);
  assert_true(err >= 0 && null >= 0);
  dup2(null, 2);   /* the line itself is progress.c's test's */
  rpd_progress_sql_total(f->r, "rows", 20000);
  assert_int_equal(rpd_intscan_open(f->r, &sc, "SELECT 1 FROM t WHERE rpd_intscan(?1, id, a)", 2, 3),
                   RPD_OK);
  while ((rc = rpd_intscan_row(f->r, &sc, &v, &ints)) == 1) read++;
  int64_t counted = rpd__progress_done();
  int used = sc.raw_used;
  rpd_intscan_close(&sc);
  rpd_progress_end();
  dup2(err, 2);
  close(err);
  close(null);
  unsetenv("RPD_PROGRESS");
  unsetenv("RPD_PROGRESS_MS");
  assert_int_equal(rc, 0);
  assert_int_equal(read, 20000);
  assert_true(used);
  /* SQLite's rows are counted every 20000 of its steps: most of them, and
   * never more than it read */
  assert_true(counted > 10000);
  assert_true(counted <= 20000);
}

/* Damage the reader refuses from the start (a loop, a page of another
 * kind) and SQLite reports: both fail, neither crashes. */
static void test_damage(void **state)
{
  fx *f = *state;
  int64_t p = leaf_page(f, 3);
  unsigned char index_leaf = 10;
  rows a, b;

  reopen(f, p, 0, &index_leaf, 1);
  scan(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, id, a)", 2, 3, 0, &a);
  scan(f, "SELECT 1 FROM t WHERE rpd_intscan(?1, id, a)", 2, 3, 1, &b);
  assert_true(a.end < 0);
  assert_int_equal(b.end, a.end);
  assert_true(b.used);
  free(a.v);
  free(a.ints);
  free(b.v);
  free(b.ints);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_values, setup, teardown),
    cmocka_unit_test_setup_teardown(test_short_records, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sql_path, setup, teardown),
    cmocka_unit_test_setup_teardown(test_consistency, setup, teardown),
    cmocka_unit_test_setup_teardown(test_files, setup, teardown),
    cmocka_unit_test_setup_teardown(test_immutable_wal, setup, teardown),
    cmocka_unit_test_setup_teardown(test_handover, setup, teardown),
    cmocka_unit_test_setup_teardown(test_handover_progress, setup, teardown),
    cmocka_unit_test_setup_teardown(test_damage, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
