/* test_sql.c - statement helpers, error messages, transactions, the error
 * buffer, rpd_buf, the embedded views. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_fixture.h"

typedef fx_trace fx;

static int setup_v(void **state, const char *ddl)
{
  setenv("RPD_BUSY_TIMEOUT_MS", "100", 1);
  return fx_trace_setup(state, ddl, RPD_WRITE);
}

static int setup2(void **state) { return setup_v(state, fx_v2_ddl); }
static int setup3(void **state) { return setup_v(state, fx_v3_ddl); }

static void test_exec_multi(void **state)
{
  fx *f = *state;
  int64_t n = 0;

  assert_int_equal(rpd_exec(f->r, "CREATE TABLE a(x); INSERT INTO a VALUES (1), (2);\n"
                                  "-- a comment\n INSERT INTO a SELECT x + 10 FROM a; "),
                   RPD_OK);
  assert_int_equal(rpd_query_int64(f->r, "SELECT sum(x) FROM a", &n), RPD_OK);
  assert_int_equal(n, 1 + 2 + 11 + 12);
  /* a statement returning rows is run to completion */
  assert_int_equal(rpd_exec(f->r, "SELECT * FROM a; DELETE FROM a WHERE x > 10"), RPD_OK);
  assert_int_equal(rpd_query_int64(f->r, "SELECT count(*) FROM a", &n), RPD_OK);
  assert_int_equal(n, 2);
  assert_int_equal(rpd_exec(f->r, ""), RPD_OK);
  assert_int_equal(rpd_exec(f->r, "  ;  "), RPD_OK);
}

static void test_exec_error_message(void **state)
{
  fx *f = *state;
  int64_t n = 0;

  /* the failing statement is named, not the whole text */
  assert_int_equal(rpd_exec(f->r, "CREATE TABLE b(x); SELECT * FROM nope; CREATE TABLE c(x)"),
                   RPD_ESQL);
  assert_string_equal(rpd_errmsg(), "SQL error: no such table: nope in: SELECT * FROM nope; "
                                    "CREATE TABLE c(x)");
  assert_int_equal(rpd_table_exists(f->r, "b"), 1);
  assert_int_equal(rpd_table_exists(f->r, "c"), 0);
  /* runtime error in step */
  assert_int_equal(rpd_exec(f->r, "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES (1);"), RPD_OK);
  assert_int_equal(rpd_exec(f->r, "INSERT INTO u VALUES (1)"), RPD_ESQL);
  assert_string_equal(rpd_errmsg(), "SQL error: UNIQUE constraint failed: u.x in: "
                                    "INSERT INTO u VALUES (1)");
  /* long statements are cut at 200 characters */
  rpd_buf b = { 0 };
  rpd_buf_puts(&b, "SELECT nosuchcolumn");
  for (int i = 0; i < 100; i++) rpd_buf_printf(&b, ", %d", i);
  assert_int_equal(rpd_exec(f->r, b.s), RPD_ESQL);
  const char *m = rpd_errmsg(), *in = strstr(m, " in: ");
  assert_non_null(in);
  assert_int_equal(strncmp(in + 5, b.s, 200), 0);
  assert_string_equal(in + 5 + 200, "...");
  assert_non_null(strstr(m, "no such column: nosuchcolumn"));
  rpd_buf_free(&b);
  /* rpd_query_int64 failures */
  assert_int_equal(rpd_query_int64(f->r, "SELECT x FROM u WHERE x = 5", &n), RPD_ENOTFOUND);
  assert_int_equal(rpd_query_int64(f->r, "SELECT NULL", &n), RPD_ENOTFOUND);
  assert_int_equal(rpd_query_int64(f->r, "SELECT * FROM missing", &n), RPD_ESQL);
  assert_int_equal(rpd_query_int64(f->r, "SELECT 1 << 40", &n), RPD_OK);
  assert_int_equal(n, (int64_t)1 << 40);
}

static void test_execf_quoting(void **state)
{
  fx *f = *state;
  const char *hostile = "x\"; DROP TABLE rocpd_api; --";
  const char *val = "it's; DELETE FROM rocpd_api";
  sqlite3_stmt *st;
  int64_t n = 0;

  assert_int_equal(rpd_execf(f->r, "CREATE TABLE \"%w\"(v)", hostile), RPD_OK);
  assert_int_equal(rpd_execf(f->r, "INSERT INTO \"%w\" VALUES (%Q)", hostile, val), RPD_OK);
  assert_int_equal(rpd_table_exists(f->r, hostile), 1);
  assert_int_equal(rpd_query_int64(f->r, "SELECT count(*) FROM rocpd_api", &n), RPD_OK);
  assert_int_equal(n, 2);
  assert_int_equal(rpd_prepare(f->r, "SELECT v FROM \"x\"\"; DROP TABLE rocpd_api; --\"", &st),
                   RPD_OK);
  assert_int_equal(rpd_step(f->r, st), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(st, 0), val);
  assert_int_equal(rpd_step(f->r, st), SQLITE_DONE);
  sqlite3_finalize(st);
  assert_int_equal(rpd_execf(f->r, "SELECT * FROM \"%w\"", "none"), RPD_ESQL);
  assert_non_null(strstr(rpd_errmsg(), "no such table: none"));
}

static void test_prepare_step(void **state)
{
  fx *f = *state;
  sqlite3_stmt *st = (sqlite3_stmt *)1;
  int s, rows = 0, rc = RPD_OK;

  assert_int_equal(rpd_prepare(f->r, "SELEC 1", &st), RPD_ESQL);
  assert_null(st);
  assert_string_equal(rpd_errmsg(), "SQL error: near \"SELEC\": syntax error in: SELEC 1");
  assert_int_equal(rpd_prepare(f->r, "SELECT id FROM rocpd_api ORDER BY id", &st), RPD_OK);
  while ((s = rpd_step(f->r, st)) == SQLITE_ROW) rows++;
  if (s < 0) rc = -s;
  assert_int_equal(rc, RPD_OK);
  assert_int_equal(s, SQLITE_DONE);
  assert_int_equal(rows, 2);
  sqlite3_finalize(st);
  /* runtime failure: negative status, message with the statement */
  assert_int_equal(rpd_exec(f->r, "CREATE TABLE n(x NOT NULL)"), RPD_OK);
  assert_int_equal(rpd_prepare(f->r, "INSERT INTO n VALUES (NULL)", &st), RPD_OK);
  assert_int_equal(rpd_step(f->r, st), -RPD_ESQL);
  assert_string_equal(rpd_errmsg(), "SQL error: NOT NULL constraint failed: n.x in: "
                                    "INSERT INTO n VALUES (NULL)");
  sqlite3_finalize(st);
}

static void test_exists(void **state)
{
  fx *f = *state;

  assert_int_equal(rpd_table_exists(f->r, "rocpd_api"), 1);
  assert_int_equal(rpd_table_exists(f->r, "ROCPD_API"), 1);
  assert_int_equal(rpd_table_exists(f->r, "rocpd_ap"), 0);
  assert_int_equal(rpd_table_exists(f->r, "rocpd_api' OR '1'='1"), 0);
  assert_int_equal(rpd_exec(f->r, "CREATE VIEW vv AS SELECT 1; CREATE TEMP TABLE tt(x)"), RPD_OK);
  assert_int_equal(rpd_table_exists(f->r, "vv"), 1);
  assert_int_equal(rpd_table_exists(f->r, "tt"), 1);
  assert_int_equal(rpd_column_exists(f->r, "rocpd_api", "apiName_id"), 1);
  assert_int_equal(rpd_column_exists(f->r, "rocpd_api", "APINAME_ID"), 1);
  assert_int_equal(rpd_column_exists(f->r, "rocpd_api", "domain_id"), 0);
  assert_int_equal(rpd_column_exists(f->r, "rocpd_op", "completionSignal"), 1);
  assert_int_equal(rpd_column_exists(f->r, "nope", "id"), 0);
}

/* rpd_plan_sorts: a sort by the rowid or an index's key is none, by
 * another column is one; a query that does not prepare is its error. */
static void test_plan_sorts(void **state)
{
  fx *f = *state;
  int sorts = -1;

  assert_int_equal(rpd_plan_sorts(f->r, "SELECT id FROM rocpd_api ORDER BY id", &sorts), RPD_OK);
  assert_int_equal(sorts, 0);
  assert_int_equal(rpd_plan_sorts(f->r, "SELECT id FROM rocpd_api ORDER BY start", &sorts), RPD_OK);
  assert_int_equal(sorts, 1);
  assert_int_equal(rpd_plan_sorts(f->r, "SELECT tid, count(*) FROM rocpd_api GROUP BY tid", &sorts),
                   RPD_OK);
  assert_int_equal(sorts, 1);
  assert_int_equal(rpd_exec(f->r, "CREATE INDEX api_start ON rocpd_api(start)"), RPD_OK);
  assert_int_equal(rpd_plan_sorts(f->r, "SELECT id FROM rocpd_api ORDER BY start", &sorts), RPD_OK);
  assert_int_equal(sorts, 0);
  assert_int_not_equal(rpd_plan_sorts(f->r, "SELECT nope FROM rocpd_api", &sorts), RPD_OK);
  assert_int_equal(sorts, 0);
}

static void test_transactions(void **state)
{
  fx *f = *state;
  int64_t n = 0;
  sqlite3 *other = NULL;

  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_begin(f->r), RPD_ESQL);     /* no nesting */
  assert_int_equal(rpd_exec(f->r, "DELETE FROM rocpd_api"), RPD_OK);
  rpd_seterr(RPD_ERR, "keep me");
  rpd_rollback(f->r);
  assert_string_equal(rpd_errmsg(), "keep me");
  assert_int_equal(rpd_query_int64(f->r, "SELECT count(*) FROM rocpd_api", &n), RPD_OK);
  assert_int_equal(n, 2);
  rpd_rollback(f->r);                                 /* harmless without one */
  assert_int_equal(rpd_commit(f->r), RPD_ERR);

  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_exec(f->r, "DELETE FROM rocpd_api WHERE id = 1"), RPD_OK);
  assert_int_equal(rpd_commit(f->r), RPD_OK);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_api"), 1);

  /* another writer: BEGIN IMMEDIATE times out with EBUSY */
  assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
  assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(rpd_begin(f->r), RPD_EBUSY);
  assert_string_equal(rpd_errmsg(), "database is locked");
  sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(other);
  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_commit(f->r), RPD_OK);
}

static void test_errbuf_and_buf(void **state)
{
  (void)state;
  rpd_buf b = { 0 };
  char *s;

  assert_int_equal(rpd_seterr(RPD_EPARSE, "bad unit '%s'", "parsec"), RPD_EPARSE);
  assert_string_equal(rpd_errmsg(), "bad unit 'parsec'");
  /* formatting from the current message itself */
  rpd_seterr(RPD_ERR, "outer: %s", rpd_errmsg());
  assert_string_equal(rpd_errmsg(), "outer: bad unit 'parsec'");
  rpd_clearerr();
  assert_string_equal(rpd_errmsg(), "");
  /* overlong messages are cut, not overflowed */
  char big[5000];
  memset(big, 'y', sizeof big - 1);
  big[sizeof big - 1] = 0;
  rpd_seterr(RPD_ERR, "%s", big);
  assert_true(strlen(rpd_errmsg()) > 1000 && strlen(rpd_errmsg()) < sizeof big);

  rpd_buf_puts(&b, "abc");
  rpd_buf_add(&b, "defgh", 2);
  rpd_buf_printf(&b, "-%d-%s", 42, "x");
  assert_string_equal(b.s, "abcde-42-x");
  assert_int_equal(b.len, 10);
  rpd_buf_reset(&b);
  assert_int_equal(b.len, 0);
  assert_string_equal(b.s, "");
  for (int i = 0; i < 10000; i++) rpd_buf_printf(&b, "%04d", i % 10000);
  assert_int_equal(b.len, 40000);
  assert_int_equal(strncmp(b.s + 39996, "9999", 4), 0);
  rpd_buf_printf(&b, "%s", "");
  assert_int_equal(b.len, 40000);
  rpd_buf_free(&b);
  assert_null(b.s);
  s = rpd_xasprintf("%s=%lld", "n", 1234567890123LL);
  assert_string_equal(s, "n=1234567890123");
  free(s);
  s = rpd_xstrdup("");
  assert_string_equal(s, "");
  free(s);
}

static void test_views(void **state)
{
  fx *f = *state;
  const char *const *names = rpd_view_names();
  int n = 0, v2 = 0;

  assert_non_null(names);
  for (; names[n]; n++) {
    const char *name = names[n];
    size_t len = strlen(name);
    if (len > 3 && strcmp(name + len - 3, ".v2") == 0) {
      char base[256];
      snprintf(base, sizeof base, "%.*s", (int)(len - 3), name);
      assert_non_null(rpd_view_sql(base, 3));
      /* schema 2 prefers NAME.v2 */
      assert_ptr_equal(rpd_view_sql(base, 2), rpd_view_sql(name, 3));
      assert_ptr_not_equal(rpd_view_sql(base, 3), rpd_view_sql(name, 3));
      v2++;
    } else {
      assert_non_null(rpd_view_sql(name, 3));
    }
  }
  assert_true(n > 0);
  assert_ptr_equal(rpd_view_names(), names);
  assert_null(rpd_view_sql("no-such-view", 3));
  assert_null(rpd_view_sql("no-such-view", 2));
  assert_int_equal(rpd_view_install(f->r, "no-such-view"), RPD_ENOTFOUND);
  (void)v2;
}

/* The api view works on both schemas (installed from the embedded text). */
static void test_api_view_installs(void **state)
{
  fx *f = *state;
  int64_t n = 0;

  if (!rpd_view_sql("api", rpd_schema(f->r))) skip();
  assert_int_equal(rpd_exec(f->r, "DROP VIEW IF EXISTS api"), RPD_OK);
  assert_int_equal(rpd_view_install(f->r, "api"), RPD_OK);
  assert_int_equal(rpd_query_int64(f->r, "SELECT count(*) FROM api WHERE apiName = "
                                         "'hipLaunchKernel'", &n), RPD_OK);
  assert_int_equal(n, rpd_schema(f->r) == 2 ? 2 : 3);
  assert_int_equal(rpd_query_int64(f->r, "SELECT count(*) FROM api WHERE args = "
                                         "'stream = 0x1'", &n), RPD_OK);
  assert_int_equal(n, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_exec_multi, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_exec_error_message, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_execf_quoting, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_prepare_step, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_exists, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_plan_sorts, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_transactions, setup2, fx_trace_teardown),
    cmocka_unit_test(test_errbuf_and_buf),
    cmocka_unit_test_setup_teardown(test_views, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_api_view_installs, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_api_view_installs, setup3, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
