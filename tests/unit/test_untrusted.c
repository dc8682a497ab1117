/* test_untrusted.c - rpd_open on a file from a stranger: code of the
 * file's author never runs (triggers, views and virtual tables in place of
 * tables, lying planner statistics, gzip bombs), and a writer never builds
 * on damaged pages (the page walk of common/trace/pages.c and its
 * quick_check fallback). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>

#include "core_fixture.h"
#include "open_fixture.h"
#include "internal.h"


/* fx_v2_ddl plus sql, in path. */
static void make_v2(const char *path, const char *sql)
{
  assert_int_equal(fx_make_db(path, fx_v2_ddl), 0);
  assert_int_equal(fx_make_db(path, sql), 0);
}

/* An FTS5 and an R-tree table keep prepared statements of their own on the
 * connection: rpd_close must leave them to SQLite (finalizing every
 * statement of the connection freed those twice: abort or worse). */
static void test_close_with_virtual_tables(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "fts.rpd");
  sqlite3_stmt *st = NULL;
  rpd *r;

  make_v2(p, "CREATE VIRTUAL TABLE notes USING fts5(body);"
             "INSERT INTO notes VALUES ('hello kernel'), ('other');"
             "CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1);"
             "INSERT INTO boxes VALUES (1, 0, 10), (2, 5, 20);");
  for (int flags = RPD_READ; flags <= RPD_WRITE; flags++) {
    assert_int_equal(rpd_open(&r, p, NULL, flags), RPD_OK);
    assert_int_equal(rpd_prepare(r, "SELECT (SELECT count(*) FROM notes WHERE notes MATCH"
                                    " 'hello'), (SELECT count(*) FROM boxes WHERE x1 > 12)",
                                 &st), RPD_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    assert_int_equal(sqlite3_column_int(st, 1), 1);
    sqlite3_finalize(st);
    if (flags == RPD_WRITE) {
      assert_int_equal(rpd_exec(r, "BEGIN; INSERT INTO notes VALUES ('hello again');"
                                   "INSERT INTO boxes VALUES (3, 1, 30)"), RPD_OK);
    } else {
      /* a statement left running at close is stopped, not freed twice */
      assert_int_equal(rpd_prepare(r, "SELECT rowid FROM notes WHERE notes MATCH 'hello'", &st),
                       RPD_OK);
      assert_int_equal(sqlite3_step(st), SQLITE_ROW);
      sqlite3_finalize(st);
    }
    assert_int_equal(rpd_close(r, 1), RPD_OK);
  }
  assert_int_equal(fx_q(p, "SELECT count(*) FROM notes WHERE notes MATCH 'hello'"), 2);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM boxes"), 3);
  free(p);
}

/* Triggers of the file never fire on our writes; the connection is
 * defensive and does not trust the schema. */
static void test_planted_triggers(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "trig.rpd");
  rpd *r;
  int v = -1;

  make_v2(p, "CREATE TRIGGER evil AFTER INSERT ON rocpd_metadata BEGIN"
             " DELETE FROM rocpd_op; DELETE FROM rocpd_api; END;"
             "CREATE TRIGGER times10 AFTER UPDATE ON rocpd_op BEGIN"
             " UPDATE rocpd_op SET \"end\" = start + (\"end\" - start) * 10 WHERE id = new.id; END;"
             "CREATE TABLE victim(x); INSERT INTO victim VALUES (1);"
             "CREATE TRIGGER wipe BEFORE DELETE ON rocpd_api_ops BEGIN DELETE FROM victim; END;");
  int64_t api = fx_q(p, "SELECT count(*) FROM rocpd_api"), ops = fx_q(p, "SELECT count(*) FROM rocpd_op");
  int64_t dur = fx_q(p, "SELECT sum(\"end\" - start) FROM rocpd_op");
  assert_true(api > 0 && ops > 0);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(sqlite3_db_config(rpd_db(r), SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &v), SQLITE_OK);
  assert_int_equal(v, 0);
  assert_int_equal(sqlite3_db_config(rpd_db(r), SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &v), SQLITE_OK);
  assert_int_equal(v, 0);
  assert_int_equal(sqlite3_db_config(rpd_db(r), SQLITE_DBCONFIG_DEFENSIVE, -1, &v), SQLITE_OK);
  assert_int_equal(v, 1);
  assert_int_equal(rpd_exec(r, "BEGIN; INSERT INTO rocpd_metadata(tag, value) VALUES ('a', 'b');"
                               "UPDATE rocpd_op SET \"end\" = \"end\" + 1;"
                               "DELETE FROM rocpd_api_ops WHERE api_id = 999"), RPD_OK);
  /* defensive: the schema cannot be edited behind SQLite's back */
  assert_int_not_equal(rpd_exec(r, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET"
                                   " sql = 'x' WHERE name = 'victim'"), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_api"), api);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_op"), ops);
  assert_int_equal(fx_q(p, "SELECT sum(\"end\" - start) FROM rocpd_op"), dur + ops);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM victim"), 1);
  assert_int_equal(fx_q(p, "SELECT count(*) FROM rocpd_metadata WHERE tag = 'a'"), 1);
  free(p);
}

/* A rocpd_ table that is a view (here an endless recursive one), a virtual
 * table or has a generated column is refused at open, before any query of
 * the tool runs into it; the message names the object. */
static void test_core_views_refused(void **state)
{
  fx *f = *state;
  static const struct { const char *sql, *msg; } cases[] = {
    { "ALTER TABLE rocpd_op RENAME TO op_data;"
      "CREATE VIEW rocpd_op AS SELECT * FROM op_data", "rocpd_op is a view" },
    { "DROP TABLE rocpd_api_ops; CREATE VIEW rocpd_api_ops AS WITH RECURSIVE n(i) AS"
      " (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS id, i AS api_id, i AS op_id FROM n",
      "rocpd_api_ops is a view" },
    { "DROP TABLE rocpd_string; CREATE VIRTUAL TABLE rocpd_string USING fts5(id, string)",
      "rocpd_string is a virtual table" },
    { "CREATE TABLE rocpd_monitor(id INTEGER PRIMARY KEY, v INTEGER,"
      " w AS (length(printf('%.*c', 100000000, 'x'))))", "rocpd_monitor.w is a generated column" },
  };
  char *p = fx_path(f->dir, "view.rpd");

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unlink(p);
    make_v2(p, cases[i].sql);
    for (int flags = RPD_READ; flags <= RPD_WRITE; flags++)
      expect_fail(f, p, NULL, flags, RPD_ENOTRPD, cases[i].msg);
  }
  free(p);
}

/* 200 strings, then ANALYZE: true statistics are fine; planted ones that
 * make the planner scan a big table once per row are refused. */
static void test_planted_stat1(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "stat.rpd");
  rpd *r;

  make_v2(p, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)"
             " INSERT INTO rocpd_string(string) SELECT 'k' || i FROM n; ANALYZE");
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  /* stale statistics of a trace that lost rows claim more: harmless */
  assert_int_equal(fx_make_db(p, "DELETE FROM rocpd_string WHERE id > 150"), 0);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  assert_int_equal(fx_make_db(p, "UPDATE sqlite_stat1 SET stat = '1 1'"), 0);
  for (int flags = RPD_READ; flags <= RPD_WRITE; flags++)
    expect_fail(f, p, NULL, flags, RPD_ENOTRPD,
                "sqlite_stat1 says rocpd_string has 1 row, it has 150");
  free(p);
}

/* gzip `parts` (file, or NULL for `zeros` zero bytes) into one .gz. */
static void gzip_parts(const char *dst, const char *src, int64_t zeros)
{
  gzFile g = gzopen(dst, "wb1");
  size_t n = 0;
  char *b = src ? fx_slurp(src, &n) : NULL, *z = calloc(1, 1 << 20);

  assert_non_null(g);
  if (b) assert_int_equal(gzwrite(g, b, (unsigned)n), (int)n);
  for (int64_t left = zeros; left > 0; left -= 1 << 20)
    assert_true(gzwrite(g, z, left < (1 << 20) ? (unsigned)left : 1u << 20) > 0);
  assert_int_equal(gzclose(g), Z_OK);
  free(b);
  free(z);
}

/* A .gz is checked as it inflates: the SQLite header first, the inflate
 * ratio (a gzip bomb never fills $TMPDIR), nothing after the stream. */
static void test_gzip_untrusted(void **state)
{
  fx *f = *state;
  char *v2 = fx_path(f->dir, "v2.rpd"), *gz = fx_path(f->dir, "t.rpd.gz"),
       *two = fx_path(f->dir, "two.rpd.gz");
  size_t n;
  char *b;
  rpd *r;

  assert_int_equal(fx_make_db(v2, fx_v2_ddl), 0);
  /* trailing garbage after a valid stream */
  fx_gzip(v2, gz, 0);
  b = fx_slurp(gz, &n);
  b = realloc(b, n + 7);
  memcpy(b + n, "garbage", 7);
  fx_write(gz, b, n + 7);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "data after the end of the gzip stream (7 bytes)");
  expect_fail(f, gz, NULL, RPD_WRITE, RPD_EGZIP, "data after the end of the gzip stream");
  /* two members (cat a.gz b.gz) are one valid stream */
  fx_write(two, b, n);
  b = realloc(b, 2 * n);
  memcpy(b + n, b, n);
  fx_write(two, b, 2 * n);
  free(b);
  assert_int_equal(rpd_open(&r, two, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  /* 100 MB of zeros: not SQLite, refused at its first bytes */
  unlink(gz);
  gzip_parts(gz, NULL, (int64_t)100 << 20);
  expect_fail(f, gz, NULL, RPD_READ, RPD_ENOTDB, "the gzip data holds something else");
  /* a trace followed by 100 MB of zeros: the ratio cap */
  unlink(gz);
  gzip_parts(gz, v2, (int64_t)100 << 20);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "gzip bomb");
  expect_fail(f, gz, NULL, RPD_WRITE, RPD_EGZIP, "gzip bomb");
  /* a header that claims 4 GiB in a few kilobytes: refused before it
   * inflates further */
  b = fx_slurp(v2, &n);
  b[28] = 0; b[29] = 0x10; b[30] = 0; b[31] = 0;       /* 1 Mi pages */
  b[16] = 0x10; b[17] = 0;                              /* of 4096 bytes */
  fx_write(v2, b, n);
  free(b);
  unlink(gz);
  fx_gzip(v2, gz, 0);
  expect_fail(f, gz, NULL, RPD_READ, RPD_EGZIP, "gzip bomb");
  free(v2);
  free(gz);
  free(two);
}

/* A v2 trace in path with a 2000-row table filler on 4096-byte pages;
 * returns the number of filler's last leaf page. */
static int make_filler_trace(const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int page;

  make_v2(path, "PRAGMA page_size = 4096; VACUUM; CREATE TABLE filler(x);"
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
                " INSERT INTO filler SELECT randomblob(100) FROM n");
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT max(pageno) FROM dbstat WHERE name = 'filler'"
                                          " AND pagetype = 'leaf'", -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  page = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  assert_true(page > 2);
  return page;
}

/* A writer never builds on a file with corrupt pages; a reader may read
 * what is intact. */
static void test_writer_integrity(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "bad.rpd"), *out = fx_path(f->dir, "o.rpd");
  int page = make_filler_trace(p);
  rpd *r;

  /* overwrite a leaf page of filler with garbage */
  size_t n;
  char *b = fx_slurp(p, &n);
  memset(b + (size_t)(page - 1) * 4096, 'Z', 4096);
  fx_write(p, b, n);
  free(b);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "corrupt SQLite database");
  expect_fail(f, p, out, RPD_WRITE, RPD_ENOTDB, "corrupt SQLite database");
  free(p);
  free(out);
}

/* A reader on a leaf page whose cell pointer was patched past the page's
 * end: SQLite would decode the cell from bytes beyond its page buffer,
 * a different garbage row on every read.  With rpd_db_harden's
 * cell_size_check the scan fails as a corrupt database instead. */
static void test_reader_cell_offset(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "cell.rpd");
  sqlite3_stmt *st = NULL;
  int page, src;
  size_t n;
  char *b;
  rpd *r;

  page = make_filler_trace(p);
  b = fx_slurp(p, &n);
  /* a table leaf's header is 8 bytes; its first cell pointer follows */
  assert_int_equal((unsigned char)b[(size_t)(page - 1) * 4096], 0x0d);
  b[(size_t)(page - 1) * 4096 + 8] = (char)0x20; /* 8192 */
  b[(size_t)(page - 1) * 4096 + 9] = (char)0x00;
  fx_write(p, b, n);
  free(b);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  assert_int_equal(sqlite3_prepare_v2(rpd_db(r), "SELECT total(length(x)) FROM filler", -1, &st,
                                      NULL), SQLITE_OK);
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
  }
  assert_int_equal(src, SQLITE_CORRUPT);
  sqlite3_finalize(st);
  rpd_close(r, 0);
  free(p);
}

/* A v2 trace with a 2000-row filler table, a dropped 2000-row table on the
 * freelist (a trunk page listing its leaves), in path; returns its bytes
 * (*n long, caller frees). */
static char *make_freelist_trace(const char *path, size_t *n)
{
  make_v2(path, "PRAGMA page_size = 4096; VACUUM; CREATE TABLE filler(x); CREATE TABLE gone(x);"
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
                " INSERT INTO filler SELECT randomblob(100) FROM n;"
                "INSERT INTO gone SELECT x FROM filler; DROP TABLE gone");
  return fx_slurp(path, n);
}

static uint32_t get_be32(const char *b)
{
  const unsigned char *u = (const unsigned char *)b;
  return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static void put_be32(char *b, uint32_t v)
{
  b[0] = (char)(v >> 24);
  b[1] = (char)(v >> 16);
  b[2] = (char)(v >> 8);
  b[3] = (char)v;
}

/* The page walk that replaced quick_check for writers: a freelist that
 * lists a live page (the write that would land on another table), pages
 * nobody owns, a freelist count that lies, an interior page that does not
 * parse: each refused, the file byte-identical.  The intact file opens. */
static void test_writer_page_walk(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "fl.rpd"), *good = fx_path(f->dir, "good.rpd");
  size_t n;
  char *b = make_freelist_trace(p, &n);
  uint32_t trunk = get_be32(b + 32), free_n = get_be32(b + 36), leaf;
  char *t;
  rpd *r;

  assert_true(trunk > 1);
  assert_true(free_n > 10);
  fx_copy(p, good);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  rpd_close(r, 0);

  /* a freelist leaf pointing at page 2 (sqlite_master's, or a table's) */
  t = b + (size_t)(trunk - 1) * 4096;
  leaf = get_be32(t + 8);
  assert_true(leaf > 2);
  put_be32(t + 8, 2);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "page 2 is on the freelist and in use");
  put_be32(t + 8, leaf);

  /* the header forgets the freelist: its pages belong to nobody */
  put_be32(b + 32, 0);
  put_be32(b + 36, 0);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "is never used");
  /* a reader still reads what is intact */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  rpd_close(r, 0);
  put_be32(b + 32, trunk);

  /* the header's count does not match the list */
  put_be32(b + 36, free_n + 1);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "the header says");
  put_be32(b + 36, free_n);

  /* a trunk page listing more pages than it can hold */
  put_be32(t + 4, 5000);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "listing too many pages");
  put_be32(t + 4, free_n - 1);

  /* a freelist that loops back on its own trunk */
  put_be32(t, trunk);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "is on the freelist and in use");
  put_be32(t, 0);

  /* restored: the same bytes as the intact file, which opens */
  fx_write(p, b, n);
  assert_true(fx_same_bytes(p, good));
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  rpd_close(r, 0);
  free(b);
  free(p);
  free(good);
}

/* The first page dbstat lists for sql (a query on dbstat, one column),
 * in the intact file path. */
static int page_of(const char *path, const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int page = 0;

  assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  if (sqlite3_step(st) == SQLITE_ROW) page = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  assert_true(page > 1);
  return page;
}

static unsigned get_be16(const char *b)
{
  return (unsigned)(unsigned char)b[0] << 8 | (unsigned char)b[1];
}

/* The b-tree part of the walk: pointers that make a page belong twice,
 * point out of the file or into a b-tree of the other kind, cells that do
 * not fit in their page; each refused, the file byte-identical.  The
 * trace: filler (2,000 rows: an interior page over leaves) with an index,
 * and big, whose rows overflow. */
static void test_writer_btree_walk(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "bt.rpd"), *good = fx_path(f->dir, "good.rpd");
  size_t n;
  char *b, *pg;
  int inner, leaf, ileaf, bigleaf, first_ovfl, hits = 0;
  uint32_t keep;
  unsigned ncell, at;
  rpd *r;

  make_v2(p, "PRAGMA page_size = 4096; VACUUM; CREATE TABLE filler(x);"
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
             " INSERT INTO filler SELECT randomblob(100) FROM n;"
             "CREATE INDEX filler_x ON filler(x);"
             "CREATE TABLE big(x);"
             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5)"
             " INSERT INTO big SELECT randomblob(9000) FROM n;");
  inner = page_of(p, "SELECT pageno FROM dbstat WHERE name = 'filler' AND pagetype = 'internal'");
  leaf = page_of(p, "SELECT pageno FROM dbstat WHERE name = 'filler' AND pagetype = 'leaf'");
  ileaf = page_of(p, "SELECT pageno FROM dbstat WHERE name = 'filler_x' AND pagetype = 'leaf'");
  bigleaf = page_of(p, "SELECT pageno FROM dbstat WHERE name = 'big' AND pagetype = 'leaf'");
  first_ovfl = page_of(p, "SELECT pageno FROM dbstat WHERE name = 'big' AND pagetype = "
                          "'overflow' ORDER BY path LIMIT 1");
  b = fx_slurp(p, &n);
  fx_copy(p, good);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  rpd_close(r, 0);

  /* the interior page's right child made the page itself: a loop */
  pg = b + (size_t)(inner - 1) * 4096;
  assert_int_equal((unsigned char)pg[0], 5);
  keep = get_be32(pg + 8);
  put_be32(pg + 8, (uint32_t)inner);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "is used twice");
  /* ... a page past the end of the file */
  put_be32(pg + 8, (uint32_t)(n / 4096 + 7));
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "is past the end of the file");
  /* ... a page of the index: a b-tree of the other kind (and that
   * index's root no longer reaches it twice: the first claim wins) */
  put_be32(pg + 8, (uint32_t)ileaf);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "corrupt SQLite database (page");
  put_be32(pg + 8, keep);

  /* a leaf whose type byte says index leaf, under a table's interior */
  pg = b + (size_t)(leaf - 1) * 4096;
  assert_int_equal((unsigned char)pg[0], 13);
  pg[0] = 10;
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "is in a b-tree of the other kind");
  pg[0] = 99;
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "does not parse");
  pg[0] = 13;
  /* more cells than the page holds; a cell past the usable bytes */
  ncell = get_be16(pg + 3);
  pg[3] = 0x7f;
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "does not parse");
  pg[3] = (char)(ncell >> 8);
  at = get_be16(pg + 8);
  pg[8] = (char)0x0f;
  pg[9] = (char)0xfe;
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "does not parse");
  /* ... or inside the page's own header */
  pg[8] = 0;
  pg[9] = 2;
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "does not parse");
  pg[8] = (char)(at >> 8);
  pg[9] = (char)at;

  /* big's first overflow pointer aimed at filler's leaf: that page would
   * be freed with big's row, under filler's feet */
  pg = b + (size_t)(bigleaf - 1) * 4096;
  for (size_t i = 0; i + 4 <= 4096; i++) {
    if (get_be32(pg + i) == (uint32_t)first_ovfl) {
      put_be32(pg + i, (uint32_t)leaf);
      hits++;
      break;
    }
  }
  assert_int_equal(hits, 1);
  fx_write(p, b, n);
  expect_fail(f, p, NULL, RPD_WRITE, RPD_ENOTDB, "is used twice");
  free(b);

  /* the intact file still opens */
  fx_copy(good, p);
  assert_int_equal(rpd_open(&r, p, NULL, RPD_WRITE), RPD_OK);
  rpd_close(r, 0);
  free(p);
  free(good);
}

/* Intact files of every layout the walk must read without a false alarm:
 * page sizes from 512 to 65536 bytes, bytes reserved at the end of each
 * page, payloads that overflow from table leaves and from index leaves
 * and interior index cells (on 512-byte pages an index cell keeps at most
 * 102 bytes: a payload of one varint byte may overflow), a WITHOUT ROWID
 * table, FTS5's shadow tables, and freeblocks left by deleted rows. */
static void test_writer_walk_intact_layouts(void **state)
{
  static const char content[] =
    "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c); CREATE INDEX tb ON t(b);"
    "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID;"
    "CREATE VIRTUAL TABLE f USING fts5(body); CREATE TABLE big(x);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
    " INSERT INTO t SELECT i, printf('%.*c', i % 300, 'x'), randomblob(i % 50) FROM n;"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600)"
    " INSERT INTO w SELECT printf('%0*d', 100 + i % 900, i), randomblob(i % 700) FROM n;"
    "INSERT INTO f SELECT b FROM t WHERE a < 500;"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)"
    " INSERT INTO big SELECT randomblob(i * 9000) FROM n;"
    "DELETE FROM t WHERE a % 7 = 0; DELETE FROM big WHERE rowid % 3 = 0;";
  static const int sizes[] = { 512, 1024, 4096, 65536 };
  fx *f = *state;
  char *p = fx_path(f->dir, "lay.rpd");

  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    for (int reserve = 0; reserve <= 32; reserve += 32) {
      char pragma[96];
      sqlite3 *db = NULL;
      rpd *r;

      unlink(p);
      assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
      snprintf(pragma, sizeof pragma, "PRAGMA page_size = %d; VACUUM;", sizes[i]);
      int set = reserve;   /* the call writes the old value back */
      assert_int_equal(sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &set),
                       SQLITE_OK);
      assert_int_equal(sqlite3_exec(db, pragma, NULL, NULL, NULL), SQLITE_OK);
      assert_int_equal(sqlite3_exec(db, fx_v2_ddl, NULL, NULL, NULL), SQLITE_OK);
      assert_int_equal(sqlite3_exec(db, "PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL),
                       SQLITE_OK);
      assert_int_equal(sqlite3_exec(db, content, NULL, NULL, NULL), SQLITE_OK);
      assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
      sqlite3_close(db);
      if (rpd_open(&r, p, NULL, RPD_WRITE) != RPD_OK)
        fail_msg("page size %d, %d reserved: %s", sizes[i], reserve, rpd_errmsg());
      rpd_close(r, 0);
    }
  }
  free(p);
}

/* A trace of sql (after fx_v2_ddl) in path opens for writing intact;
 * with garbage over its last page the open fails with msg. */
static void expect_last_page_refused(fx *f, const char *path, const char *sql, const char *msg)
{
  size_t n;
  char *b;
  rpd *r;

  make_v2(path, sql);
  assert_int_equal(rpd_open(&r, path, NULL, RPD_WRITE), RPD_OK);
  rpd_close(r, 0);
  b = fx_slurp(path, &n);
  memset(b + n - 4096, 'Z', 4096);
  fx_write(path, b, n);
  expect_fail(f, path, NULL, RPD_WRITE, RPD_ENOTDB, msg);
  free(b);
  unlink(path);
}

/* The walk reads the file itself: a file object named dbstat changes
 * nothing (it once hid SQLite's page table behind the author's rows; its
 * root is the last page).  Where the walk cannot see the whole file, the
 * full quick_check runs: an auto-vacuum file, with its pointer-map
 * pages. */
static void test_writer_check_fallbacks(void **state)
{
  fx *f = *state;
  char *p = fx_path(f->dir, "ds.rpd");

  expect_last_page_refused(f, p, "PRAGMA page_size = 4096; VACUUM; CREATE TABLE filler(x);"
                           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                           " WHERE i < 2000) INSERT INTO filler SELECT randomblob(100) FROM n;"
                           "CREATE TABLE DBSTAT(pageno, pagetype)", "does not parse");
  expect_last_page_refused(f, p, "PRAGMA page_size = 4096; PRAGMA auto_vacuum = FULL; VACUUM;"
                           "CREATE TABLE filler(x);"
                           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                           " WHERE i < 2000) INSERT INTO filler SELECT randomblob(100) FROM n;",
                           "quick_check");
  free(p);
}

int main(void)
{
  fx_default_signals();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_close_with_virtual_tables, setup, teardown),
    cmocka_unit_test_setup_teardown(test_planted_triggers, setup, teardown),
    cmocka_unit_test_setup_teardown(test_core_views_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_planted_stat1, setup, teardown),
    cmocka_unit_test_setup_teardown(test_gzip_untrusted, setup, teardown),
    cmocka_unit_test_setup_teardown(test_writer_integrity, setup, teardown),
    cmocka_unit_test_setup_teardown(test_reader_cell_offset, setup, teardown),
    cmocka_unit_test_setup_teardown(test_writer_page_walk, setup, teardown),
    cmocka_unit_test_setup_teardown(test_writer_btree_walk, setup, teardown),
    cmocka_unit_test_setup_teardown(test_writer_walk_intact_layouts, setup, teardown),
    cmocka_unit_test_setup_teardown(test_writer_check_fallbacks, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
