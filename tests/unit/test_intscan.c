/* test_intscan.c - common/trace/intscan.c: a query's integer rows a batch
 * at a time equal the rows stepped one by one (values, INTEGER bits,
 * order), across batch boundaries and on an empty table; a query that
 * sorts is refused instead of returning its rows in scan order; two
 * handles over one connection scan side by side. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core_fixture.h"
#include "intscan.h"

typedef fx_trace fx;

/* 2500 rows (two full batches and a part): a, b integers (b falls as the
 * rowid rises), c sometimes a real, a text or NULL */
static const char ddl[] =
    "CREATE TABLE rocpd_metadata (id integer PRIMARY KEY, tag, value);"
    "CREATE TABLE t (id integer PRIMARY KEY, a integer, b integer, c);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)"
    " INSERT INTO t SELECT i, i * 1000003, 5000 - i, CASE i % 7 WHEN 0 THEN i + 0.5"
    " WHEN 1 THEN 'x' || i WHEN 2 THEN NULL ELSE -i END FROM n;"
    "CREATE TABLE empty (id integer PRIMARY KEY, a integer);";

static int setup(void **state) { return fx_trace_setup(state, ddl, RPD_ANYDB); }

static void test_rows_equal_stepped(void **state)
{
  fx *f = *state;
  sqlite3_stmt *st = NULL;
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int64_t rows = 0, batches = 0;

  assert_int_equal(rpd_prepare(f->r, "SELECT a, b, c, id FROM t", &st), RPD_OK);
  assert_int_equal(rpd_intscan_open(f->r, &sc, "SELECT 1 FROM t WHERE rpd_intscan(?1, a, b, c, id)",
                                    4, 0xf), RPD_OK);
  while (rpd_step(f->r, st) == SQLITE_ROW) {
    if (sc.pos == sc.n) batches++;
    assert_int_equal(rpd_intscan_row(f->r, &sc, &v, &ints), 1);
    for (int c = 0; c < 4; c++) {
      assert_int_equal(!!(ints & (1u << c)), sqlite3_column_type(st, c) == SQLITE_INTEGER);
      assert_int_equal(v[c], sqlite3_column_int64(st, c));
    }
    rows++;
  }
  assert_int_equal(rpd_intscan_row(f->r, &sc, &v, &ints), 0);
  assert_int_equal(rpd_intscan_row(f->r, &sc, &v, &ints), 0);   /* stays at the end */
  assert_int_equal(rows, 2500);
  assert_int_equal(batches, (2500 + RPD_INTSCAN_ROWS - 1) / RPD_INTSCAN_ROWS);
  sqlite3_finalize(st);
  rpd_intscan_close(&sc);

  /* ORDER BY the rowid is read in that order: no sort */
  assert_int_equal(rpd_intscan_open(f->r, &sc,
                                    "SELECT 1 FROM t WHERE rpd_intscan(?1, id, c) ORDER BY id", 2, 0),
                   RPD_OK);
  for (rows = 0; rpd_intscan_row(f->r, &sc, &v, &ints) == 1; rows++) {
    assert_int_equal(v[0], rows + 1);
    assert_int_equal(ints, 0);   /* no type asked for */
  }
  assert_int_equal(rows, 2500);
  rpd_intscan_close(&sc);

  /* no rows */
  assert_int_equal(rpd_intscan_open(f->r, &sc, "SELECT 1 FROM empty WHERE rpd_intscan(?1, a)", 1, 1),
                   RPD_OK);
  assert_int_equal(rpd_intscan_row(f->r, &sc, &v, &ints), 0);
  rpd_intscan_close(&sc);
}

/* A sort would hand the rows over in scan order: refused, whether the
 * rows fit in one batch (the sort is seen) or not (a full batch that was
 * never returned). */
static void test_sort_refused(void **state)
{
  fx *f = *state;
  static const char *const sorted[] = {
    "SELECT 1 FROM t WHERE rpd_intscan(?1, id) ORDER BY b",
    "SELECT 1 FROM t WHERE id < 100 AND rpd_intscan(?1, id) ORDER BY b",
  };
  for (size_t i = 0; i < sizeof sorted / sizeof sorted[0]; i++) {
    rpd_intscan sc;
    const int64_t *v = NULL;
    unsigned ints = 0;
    int rc = 1;
    assert_int_equal(rpd_intscan_open(f->r, &sc, sorted[i], 1, 0), RPD_OK);
    while ((rc = rpd_intscan_row(f->r, &sc, &v, &ints)) == 1) {}
    assert_int_equal(rc, -RPD_ESQL);
    assert_non_null(strstr(rpd_errmsg(), "rpd_intscan"));
    rpd_intscan_close(&sc);
  }
  /* and a wrong column count */
  rpd_intscan sc;
  assert_int_equal(rpd_intscan_open(f->r, &sc, "SELECT 1 FROM t WHERE rpd_intscan(?1, id)", 0, 0),
                   RPD_ERR);
}

/* A second handle over the same connection, while the first one's scan
 * runs: the function is there already, and both scans read their rows. */
static void test_two_handles(void **state)
{
  fx *f = *state;
  rpd_intscan a, b;
  const int64_t *v = NULL;
  unsigned ints = 0;
  rpd *r2 = rpd_attach(rpd_db(f->r), rpd_schema(f->r), 0);

  assert_non_null(r2);
  assert_int_equal(rpd_intscan_open(f->r, &a, "SELECT 1 FROM t WHERE rpd_intscan(?1, id)", 1, 0),
                   RPD_OK);
  assert_int_equal(rpd_intscan_row(f->r, &a, &v, &ints), 1);   /* a's statement runs */
  assert_int_equal(rpd_intscan_open(r2, &b, "SELECT 1 FROM t WHERE rpd_intscan(?1, a)", 1, 0),
                   RPD_OK);
  assert_int_equal(rpd_intscan_row(r2, &b, &v, &ints), 1);
  assert_int_equal(v[0], 1000003);
  assert_int_equal(rpd_intscan_row(f->r, &a, &v, &ints), 1);
  assert_int_equal(v[0], 2);
  rpd_intscan_close(&b);
  rpd_intscan_close(&a);
  rpd_detach(r2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_rows_equal_stepped, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_sort_refused, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_two_handles, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
