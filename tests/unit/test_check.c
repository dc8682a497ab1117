/* test_check.c - common/trace/check.c: value checks of start/end/gpuId per table
 * (types, range, order), ownership of ext_* tables by shape, and the
 * checked ns arithmetic of check.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "core_fixture.h"

typedef fx_trace fx;

/* The v2 fixture without NOT NULL on rocpd_api/rocpd_op, so that NULL fits
 * in start/end. */
static const char loose_ddl[] =
    "CREATE TABLE rocpd_metadata (id integer PRIMARY KEY, tag, value);"
    "CREATE TABLE rocpd_string (id integer PRIMARY KEY, string);"
    "CREATE TABLE rocpd_api (id integer PRIMARY KEY, pid, tid, start integer, end integer,"
    " apiName_id, args_id);"
    "CREATE TABLE rocpd_op (id integer PRIMARY KEY, gpuId integer, queueId, sequenceId,"
    " completionSignal, start integer, end integer, description_id, opType_id);"
    "CREATE TABLE rocpd_api_ops (id integer PRIMARY KEY, api_id, op_id);"
    "INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel');"
    "INSERT INTO rocpd_api VALUES (1, 1, 1, 1000, 2000, 2, 1), (2, 1, 1, 3000, 3500, 2, 1),"
    " (3, 1, 1, 4000, 4500, 2, 1);"
    "INSERT INTO rocpd_op VALUES (1, 0, 0, 0, '', 2500, 4000, 1, 1), (2, 1, 0, 1, '', 4000, 5000, 1, 1),"
    " (3, 2, 0, 2, '', 5000, 6000, 1, 1);"
    "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (2, 2), (3, 3);";

static int setup(void **state) { return fx_trace_setup(state, loose_ddl, RPD_WRITE); }

static void test_clean_trace(void **state)
{
  fx *f = *state;
  int64_t bad = -1;

  assert_int_equal(rpd_check_trace(f->r), RPD_OK);
  assert_int_equal(rpd_check_table(f->r, "rocpd_op", 1, &bad), RPD_OK);
  assert_int_equal(bad, 0);
  /* an absent table is fine */
  assert_int_equal(rpd_check_table(f->r, "no_such_table", 0, &bad), RPD_OK);
  assert_int_equal(bad, 0);
}

/* The clean read keeps each table's span for rpd_check_span until the
 * connection writes; a table with a bad row, an empty one, another table
 * or a write give none. */
static void test_check_span(void **state)
{
  fx *f = *state;
  int have = -1;
  int64_t lo = 0, hi = 0, bad = 0;

  assert_int_equal(rpd_check_span(f->r, "rocpd_api", &have, &lo, &hi), 0);   /* not read */
  assert_int_equal(rpd_check_table(f->r, "rocpd_api", 0, &bad), RPD_OK);
  assert_int_equal(rpd_check_span(f->r, "rocpd_api", &have, &lo, &hi), 1);
  assert_int_equal(have, 1);
  assert_int_equal(lo, 1000);
  assert_int_equal(hi, 4500);
  assert_int_equal(rpd_check_table(f->r, "rocpd_op", 1, &bad), RPD_OK);
  assert_int_equal(rpd_check_span(f->r, "rocpd_op", &have, &lo, &hi), 1);
  assert_int_equal(lo, 2500);
  assert_int_equal(hi, 6000);
  assert_int_equal(rpd_check_span(f->r, "rocpd_api_ops", &have, &lo, &hi), 0);
  /* a write: read again */
  assert_int_equal(rpd_exec(f->r, "UPDATE rocpd_api SET start = 500 WHERE id = 2"), RPD_OK);
  assert_int_equal(rpd_check_span(f->r, "rocpd_api", &have, &lo, &hi), 0);
  assert_int_equal(rpd_check_table(f->r, "rocpd_api", 0, &bad), RPD_OK);
  assert_int_equal(rpd_check_span(f->r, "rocpd_api", &have, &lo, &hi), 1);
  assert_int_equal(lo, 500);
  /* a bad row: no span */
  assert_int_equal(rpd_exec(f->r, "UPDATE rocpd_op SET end = 'x' WHERE id = 3"), RPD_OK);
  assert_int_equal(rpd_check_table(f->r, "rocpd_op", 0, &bad), RPD_ERANGE);
  rpd_clearerr();
  assert_int_equal(rpd_check_span(f->r, "rocpd_op", &have, &lo, &hi), 0);
  /* an empty table */
  assert_int_equal(rpd_exec(f->r, "DELETE FROM rocpd_api"), RPD_OK);
  assert_int_equal(rpd_check_table(f->r, "rocpd_api", 0, &bad), RPD_OK);
  assert_int_equal(rpd_check_span(f->r, "rocpd_api", &have, &lo, &hi), 1);
  assert_int_equal(have, 0);
}

/* A verdict belongs to one handle: reopening the same path after another
 * connection wrote garbage into it checks again, even when the new handle
 * (or its connection) lands at the freed one's address. */
static void test_verdict_per_handle(void **state)
{
  fx *f = *state;

  assert_int_equal(rpd_check_trace(f->r), RPD_OK);
  assert_int_equal(rpd_close(f->r, 0), RPD_OK);
  f->r = NULL;
  assert_int_equal(fx_make_db(f->path, "UPDATE rocpd_op SET start = 'later' WHERE id = 2"), 0);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(rpd_open(&f->r, f->path, NULL, RPD_READ), RPD_OK);
    assert_int_equal(rpd_check_trace(f->r), RPD_ERANGE);
    assert_int_equal(rpd_close(f->r, 0), RPD_OK);
    f->r = NULL;
  }
}

/* Each class of garbage: the exact message, the row count. */
static void test_garbage_classes(void **state)
{
  fx *f = *state;
  static const struct { const char *sql, *msg; int64_t bad; } cases[] = {
    { "UPDATE rocpd_api SET start = 'soon' WHERE id IN (1, 2)",
      "rocpd_api.start: 2 rows are not integers (text, real, blob or null); fix or delete those rows", 2 },
    { "UPDATE rocpd_api SET end = 2000.5 WHERE id = 1",
      "rocpd_api.end: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE rocpd_op SET start = x'00ff' WHERE id = 3",
      "rocpd_op.start: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = NULL WHERE id = 2",
      "rocpd_op.end: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE rocpd_op SET start = -9223372036854775807 - 1 WHERE id = 1",
      "rocpd_op.start: 1 row outside 0 .. 2^62 ns; fix or delete it", 1 },
    { "UPDATE rocpd_api SET end = 9223372036854775807 WHERE id = 3",
      "rocpd_api.end: 1 row outside 0 .. 2^62 ns; fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = 4611686018427387904 WHERE id = 3",   /* 2^62: just out */
      "rocpd_op.end: 1 row outside 0 .. 2^62 ns; fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = start - 1 WHERE id IN (1, 2, 3)",
      "rocpd_op.end: 3 rows end before they start; fix or delete those rows", 3 },
    { "UPDATE rocpd_op SET gpuId = 9223372036854775807 WHERE id = 2",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET gpuId = -1 WHERE id = 2",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET gpuId = '0' WHERE id = 2",    /* integer affinity: stays 0 */
      NULL, 0 },
    { "UPDATE rocpd_op SET gpuId = 'zero' WHERE id = 2",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = 4611686018427387903 WHERE id = 3",   /* 2^62 - 1: fine */
      NULL, 0 },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t bad = -1;
    const char *table = strstr(cases[i].sql, "rocpd_op") ? "rocpd_op" : "rocpd_api";
    assert_int_equal(rpd_begin(f->r), RPD_OK);
    assert_int_equal(rpd_exec(f->r, cases[i].sql), RPD_OK);
    int rc = rpd_check_trace(f->r);
    if (!cases[i].msg) {
      assert_int_equal(rc, RPD_OK);
    } else {
      assert_int_equal(rc, RPD_ERANGE);
      assert_string_equal(rpd_errmsg(), cases[i].msg);
    }
    rpd_check_table(f->r, table, 1, &bad);
    assert_int_equal(bad, cases[i].bad);
    rpd_rollback(f->r);
  }
}

/* The main database's cache_size as PRAGMA reports it. */
static int64_t cache_size(rpd *r)
{
  int64_t v = 0;
  assert_int_equal(rpd_query_int64(r, "PRAGMA main.cache_size", &v), RPD_OK);
  return v;
}

/* Statements the connection runs whose SQL contains "cache_size" while a
 * trace callback is on, joined by '|'. */
static char pragmas[512];

static int trace_cb(unsigned what, void *ctx, void *p, void *x)
{
  (void)what, (void)ctx, (void)x;
  const char *sql = sqlite3_sql((sqlite3_stmt *)p);
  if (sql && strstr(sql, "cache_size") && strlen(pragmas) + strlen(sql) + 2 < sizeof pragmas) {
    if (*pragmas) strcat(pragmas, "|");
    strcat(pragmas, sql);
  }
  return 0;
}

/* the check scans with a 4 MB page cache and gives the caller
 * back its own cache_size after, passed or failed; a smaller cache is
 * never grown. */
static void test_check_cache(void **state)
{
  fx *f = *state;

  assert_int_equal(cache_size(f->r), -65536);   /* what rpd_open sets */
  *pragmas = 0;
  sqlite3_trace_v2(rpd_db(f->r), SQLITE_TRACE_STMT, trace_cb, NULL);
  assert_int_equal(rpd_check_trace(f->r), RPD_OK);
  sqlite3_trace_v2(rpd_db(f->r), 0, NULL, NULL);
  assert_string_equal(pragmas, "PRAGMA main.cache_size|PRAGMA main.cache_size = -4096|"
                               "PRAGMA main.cache_size = -65536");
  assert_int_equal(cache_size(f->r), -65536);
  /* a caller's smaller cache (in KiB or in pages) is kept as it is */
  assert_int_equal(rpd_exec(f->r, "PRAGMA cache_size = -1024; UPDATE rocpd_api SET pid = 2"),
                   RPD_OK);
  assert_int_equal(rpd_check_trace(f->r), RPD_OK);
  assert_int_equal(cache_size(f->r), -1024);
  assert_int_equal(rpd_exec(f->r, "PRAGMA cache_size = 100; UPDATE rocpd_api SET pid = 3"),
                   RPD_OK);
  assert_int_equal(rpd_check_trace(f->r), RPD_OK);
  assert_int_equal(cache_size(f->r), 100);
  /* a failed check restores it too */
  assert_int_equal(rpd_exec(f->r, "PRAGMA cache_size = 5000;"
                                  " UPDATE rocpd_op SET start = 'x' WHERE id = 1"), RPD_OK);
  assert_int_equal(rpd_check_trace(f->r), RPD_ERANGE);
  assert_int_equal(cache_size(f->r), 5000);
}

/* *bad counts rows, not findings: a row bad in two columns counts once. */
static void test_bad_counts_rows(void **state)
{
  fx *f = *state;
  int64_t bad = -1;

  assert_int_equal(rpd_exec(f->r, "UPDATE rocpd_op SET start = 'x', end = NULL, gpuId = -5 "
                                  "WHERE id = 1; UPDATE rocpd_op SET gpuId = 1e20 WHERE id = 3"),
                   RPD_OK);
  assert_int_equal(rpd_check_table(f->r, "rocpd_op", 1, &bad), RPD_ERANGE);
  assert_int_equal(bad, 2);
  /* the first class wins the message */
  assert_non_null(strstr(rpd_errmsg(), "rocpd_op.start: 1 row is not an integer"));
  /* without the gpu check, only row 1 */
  assert_int_equal(rpd_check_table(f->r, "rocpd_op", 0, &bad), RPD_ERANGE);
  assert_int_equal(bad, 1);
}

/* A column without INTEGER affinity keeps an integral real (2000.0) as a
 * real: the fast pass cannot tell it from an integer, so the full check
 * runs and finds it. */
static void test_untyped_columns(void **state)
{
  fx *f = *state;
  int64_t bad = -1;

  assert_int_equal(rpd_exec(f->r, "CREATE TABLE t_loose(start integer, \"end\");"
                                  "INSERT INTO t_loose VALUES (1000, 2000), (1500, 2500)"),
                   RPD_OK);
  assert_int_equal(rpd_check_table(f->r, "t_loose", 0, &bad), RPD_OK);
  assert_int_equal(bad, 0);
  assert_int_equal(rpd_exec(f->r, "UPDATE t_loose SET \"end\" = 2000.0 WHERE start = 1000"),
                   RPD_OK);
  assert_int_equal(rpd_check_table(f->r, "t_loose", 0, &bad), RPD_ERANGE);
  assert_int_equal(bad, 1);
  assert_string_equal(rpd_errmsg(), "t_loose.end: 1 row is not an integer (text, real, blob "
                                    "or null); fix or delete it");
}

static void test_owned(void **state)
{
  fx *f = *state;
  static const char *const cols[] = { "id", "parent_id", "child_id", NULL };

  assert_int_equal(rpd_check_owned(f->r, "ext_x", cols), RPD_OK);   /* absent */
  assert_int_equal(rpd_exec(f->r, "CREATE TABLE ext_x(ID integer, Parent_Id, child_id)"), RPD_OK);
  assert_int_equal(rpd_check_owned(f->r, "ext_x", cols), RPD_OK);   /* case-blind */
  assert_int_equal(rpd_exec(f->r, "DROP TABLE ext_x; CREATE TABLE ext_x(id, child_id, parent_id)"),
                   RPD_OK);
  assert_int_equal(rpd_check_owned(f->r, "ext_x", cols), RPD_EEXIST);
  assert_string_equal(rpd_errmsg(), "table ext_x exists with other columns (id, child_id, "
                                    "parent_id); it was not written by rpdtools: rename or "
                                    "drop it yourself");
  assert_int_equal(rpd_exec(f->r, "DROP TABLE ext_x; CREATE TABLE ext_x(id, parent_id, child_id, more)"),
                   RPD_OK);
  assert_int_equal(rpd_check_owned(f->r, "ext_x", cols), RPD_EEXIST);
  assert_int_equal(rpd_exec(f->r, "DROP TABLE ext_x; CREATE VIEW ext_x AS SELECT 1 AS id"), RPD_OK);
  assert_int_equal(rpd_check_owned(f->r, "ext_x", cols), RPD_EEXIST);
  assert_non_null(strstr(rpd_errmsg(), "is not a table"));
}

static void test_ns_arith(void **state)
{
  int64_t v = 7;
  (void)state;

  assert_int_equal(rpd_ns_add(1, 2, &v), 1);
  assert_int_equal(v, 3);
  assert_int_equal(rpd_ns_add(INT64_MAX, 1, &v), 0);
  assert_int_equal(v, 3);                                 /* untouched */
  assert_int_equal(rpd_ns_sub(INT64_MIN, 1, &v), 0);
  assert_int_equal(rpd_ns_sub(0, INT64_MIN, &v), 0);
  assert_int_equal(rpd_ns_sub(10, 4, &v), 1);
  assert_int_equal(v, 6);
  assert_int_equal(rpd_ns_duration(100, 250), 150);
  assert_int_equal(rpd_ns_duration(250, 100), 0);         /* never negative */
  assert_int_equal(rpd_ns_duration(INT64_MIN, INT64_MAX), 0);   /* would overflow */
  assert_int_equal(rpd_ns_duration(0, RPD_TIME_LIMIT - 1), RPD_TIME_LIMIT - 1);
  assert_int_equal(rpd_ns_sane(0), 1);
  assert_int_equal(rpd_ns_sane(RPD_TIME_LIMIT - 1), 1);
  assert_int_equal(rpd_ns_sane(RPD_TIME_LIMIT), 0);
  assert_int_equal(rpd_ns_sane(-1), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_clean_trace, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_check_span, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_garbage_classes, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_verdict_per_handle, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_bad_counts_rows, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_check_cache, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_untyped_columns, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_owned, setup, fx_trace_teardown),
    cmocka_unit_test(test_ns_arith),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
