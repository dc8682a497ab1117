/* test_check_rows.c - common/trace/check.c rpd_check_values: the trace check row
 * by row (what raptor's library API folds into its own scans) must give
 * exactly rpd_check_table's verdict: code, message and bad-row count, for
 * every class of garbage, mixed classes, and columns without INTEGER
 * affinity; rpd_check_ints_ok on the same rows read by rpd_intscan gives
 * rpd_check_row_ok's verdict, and rpd_check_ints folded over them counts
 * what rpd_check_values counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "core_fixture.h"
#include "intscan.h"

typedef fx_trace fx;

/* start/end/gpuId without NOT NULL, so that NULL fits; t_loose has no type
 * on "end" (BLOB affinity: an integral real stays a real) */
static const char loose_ddl[] =
    "CREATE TABLE rocpd_metadata (id integer PRIMARY KEY, tag, value);"
    "CREATE TABLE rocpd_string (id integer PRIMARY KEY, string);"
    "CREATE TABLE rocpd_api (id integer PRIMARY KEY, pid, tid, start integer, end integer,"
    " apiName_id, args_id);"
    "CREATE TABLE rocpd_op (id integer PRIMARY KEY, gpuId integer, queueId, sequenceId,"
    " completionSignal, start integer, end integer, description_id, opType_id);"
    "CREATE TABLE rocpd_api_ops (id integer PRIMARY KEY, api_id, op_id);"
    "CREATE TABLE t_loose (id integer PRIMARY KEY, gpuId, start integer, \"end\");"
    "INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel');"
    "INSERT INTO rocpd_api VALUES (1, 1, 1, 1000, 2000, 2, 1), (2, 1, 1, 3000, 3500, 2, 1),"
    " (3, 1, 1, 4000, 4500, 2, 1);"
    "INSERT INTO rocpd_op VALUES (1, 0, 0, 0, '', 2500, 4000, 1, 1), (2, 1, 0, 1, '', 4000, 5000, 1, 1),"
    " (3, 2, 0, 2, '', 5000, 6000, 1, 1);"
    "INSERT INTO t_loose VALUES (1, 0, 1000, 2000), (2, 1, 1500, 2500);";

static int setup(void **state) { return fx_trace_setup(state, loose_ddl, RPD_WRITE); }

/* Fold the check over every row of table (gpu: with gpuId) as a caller of
 * rpd_check_values does; *bad = its bad-row count; returns its code, the
 * message in rpd_errmsg(). */
static int fold(rpd *r, const char *table, int gpu, int64_t *bad)
{
  rpd_check_rows c, ci;
  sqlite3_stmt *st = NULL;
  char *sql = sqlite3_mprintf("SELECT start, \"end\", gpuId FROM \"%w\" ORDER BY id", table);

  memset(&c, 0, sizeof c);
  memset(&ci, 0, sizeof ci);
  assert_non_null(sql);
  assert_int_equal(rpd_prepare(r, sql, &st), RPD_OK);
  sqlite3_free(sql);
  /* and the verdict on the same rows read as integers (rpd_intscan) */
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  sql = sqlite3_mprintf("SELECT 1 FROM \"%w\" WHERE rpd_intscan(?1, start, \"end\", gpuId)"
                        " ORDER BY id", table);
  assert_int_equal(rpd_intscan_open(r, &sc, sql, 3, 7), RPD_OK);
  sqlite3_free(sql);
  while (rpd_step(r, st) == SQLITE_ROW) {
    int64_t before = c.bad;
    sqlite3_value *g = gpu ? sqlite3_column_value(st, 2) : NULL;
    int ok = rpd_check_row_ok(sqlite3_column_value(st, 0), sqlite3_column_value(st, 1), g);
    rpd_check_values(&c, sqlite3_column_value(st, 0), sqlite3_column_value(st, 1), g);
    assert_int_equal(ok, c.bad == before);   /* the one-row verdict agrees */
    assert_int_equal(rpd_intscan_row(r, &sc, &v, &ints), 1);
    assert_int_equal(rpd_check_ints_ok(v[0], v[1], v[2], ints | (gpu ? RPD_CHECK_WITH_GPU : 0)),
                     ok);
    rpd_check_ints(&ci, v[0], v[1], v[2], ints | (gpu ? RPD_CHECK_WITH_GPU : 0));
  }
  /* the same counts, class by class */
  assert_int_equal(ci.bad, c.bad);
  for (int k = 0; k < 6; k++)
    assert_int_equal(ci.n[k], c.n[k]);
  assert_int_equal(rpd_intscan_row(r, &sc, &v, &ints), 0);
  rpd_intscan_close(&sc);
  sqlite3_finalize(st);
  *bad = c.bad;
  return rpd_check_rows_result(&c, table);
}

/* Both verdicts on table (with and without the gpuId check) are equal;
 * the table-scan message is expected_msg (NULL: clean), with expected_bad
 * bad rows (gpu check on). */
static void same_verdict(rpd *r, const char *table, const char *expected_msg,
                         int64_t expected_bad)
{
  for (int gpu = 1; gpu >= 0; gpu--) {
    int64_t bad_table = -1, bad_rows = -1;
    char msg[512];
    int rc_table = rpd_check_table(r, table, gpu, &bad_table);
    snprintf(msg, sizeof msg, "%s", rc_table ? rpd_errmsg() : "");
    rpd_clearerr();
    int rc_rows = fold(r, table, gpu, &bad_rows);
    assert_int_equal(rc_rows, rc_table);
    assert_int_equal(bad_rows, bad_table);
    if (rc_rows) assert_string_equal(rpd_errmsg(), msg);
    if (gpu) {
      assert_int_equal(rc_table, expected_msg ? RPD_ERANGE : RPD_OK);
      if (expected_msg) assert_string_equal(msg, expected_msg);
      assert_int_equal(bad_table, expected_bad);
    }
  }
}

static void test_clean(void **state)
{
  fx *f = *state;
  same_verdict(f->r, "rocpd_op", NULL, 0);
  same_verdict(f->r, "t_loose", NULL, 0);
}

/* Each class of garbage, and mixes of them: the same code, message and
 * count as the table scan. */
static void test_classes_match_table_check(void **state)
{
  fx *f = *state;
  static const struct { const char *sql, *msg; int64_t bad; } cases[] = {
    { "UPDATE rocpd_op SET start = 'soon' WHERE id IN (1, 2)",
      "rocpd_op.start: 2 rows are not integers (text, real, blob or null); fix or delete those rows", 2 },
    { "UPDATE rocpd_op SET end = 2000.5 WHERE id = 1",
      "rocpd_op.end: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE rocpd_op SET start = x'00ff' WHERE id = 3",
      "rocpd_op.start: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = NULL WHERE id = 2",
      "rocpd_op.end: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE rocpd_op SET start = -9223372036854775807 - 1 WHERE id = 1",
      "rocpd_op.start: 1 row outside 0 .. 2^62 ns; fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = 4611686018427387904 WHERE id = 3",   /* 2^62: just out */
      "rocpd_op.end: 1 row outside 0 .. 2^62 ns; fix or delete it", 1 },
    { "UPDATE rocpd_op SET end = 4611686018427387903 WHERE id = 3",   /* 2^62 - 1: fine */
      NULL, 0 },
    { "UPDATE rocpd_op SET end = start - 1 WHERE id IN (1, 2, 3)",
      "rocpd_op.end: 3 rows end before they start; fix or delete those rows", 3 },
    { "UPDATE rocpd_op SET gpuId = 9223372036854775807 WHERE id = 2",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET gpuId = 2147483648 WHERE id = 2",          /* 2^31: just out */
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET gpuId = 2147483647 WHERE id = 2", NULL, 0 },
    { "UPDATE rocpd_op SET gpuId = -1 WHERE id = 2",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET gpuId = '0' WHERE id = 2", NULL, 0 },   /* affinity: stays 0 */
    { "UPDATE rocpd_op SET gpuId = 'zero' WHERE id = 2",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    { "UPDATE rocpd_op SET gpuId = NULL WHERE id = 1",
      "rocpd_op.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
    /* mixes: the first class names the message, every bad row counts once */
    { "UPDATE rocpd_op SET gpuId = -1 WHERE id = 1; UPDATE rocpd_op SET end = 'x' WHERE id = 1;"
      " UPDATE rocpd_op SET end = start - 1 WHERE id = 3",
      "rocpd_op.end: 1 row is not an integer (text, real, blob or null); fix or delete it", 2 },
    { "UPDATE rocpd_op SET start = -5 WHERE id = 2; UPDATE rocpd_op SET gpuId = 'g' WHERE id = 3",
      "rocpd_op.start: 1 row outside 0 .. 2^62 ns; fix or delete it", 2 },
    /* no INTEGER affinity: an integral real is still a real */
    { "UPDATE t_loose SET \"end\" = 2000.0 WHERE id = 1",
      "t_loose.end: 1 row is not an integer (text, real, blob or null); fix or delete it", 1 },
    { "UPDATE t_loose SET gpuId = 1.0 WHERE id = 2",
      "t_loose.gpuId: 1 row is not an integer in 0 .. 2^31-1; fix or delete it", 1 },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *table = strstr(cases[i].sql, "t_loose") ? "t_loose" : "rocpd_op";
    assert_int_equal(rpd_begin(f->r), RPD_OK);
    assert_int_equal(rpd_exec(f->r, cases[i].sql), RPD_OK);
    same_verdict(f->r, table, cases[i].msg, cases[i].bad);
    rpd_rollback(f->r);
  }
}

/* No row at all: clean, no count. */
static void test_empty(void **state)
{
  fx *f = *state;
  assert_int_equal(rpd_exec(f->r, "DELETE FROM rocpd_op"), RPD_OK);
  same_verdict(f->r, "rocpd_op", NULL, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_clean, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_classes_match_table_check, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_empty, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
