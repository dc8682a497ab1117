/* test_progress.c - the one progress-line format (rpd_progress_format),
 * the workbook column kinds (rpd_wb_kind_of), -q / --version handling. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"
#include "version.h"
#include "workbook.h"

static void test_rows_known_total(void **state)
{
  char b[256];
  (void)state;
  /* 1.2M of 3M rows after 1.5 s: 800k rows/s, 1.8M left -> ETA 2s (2.25 s
   * rounded) */
  rpd_progress_format(b, sizeof b, "ops", "rows", 1200000, 3000000, 1500);
  assert_string_equal(b, "ops: 1200000/3000000 rows (40%), 800k rows/s, ETA 2s");
}

static void test_minutes_eta(void **state)
{
  char b[256];
  (void)state;
  /* 100 of 1000 after 20 s: 5/s, 900 left -> 180 s */
  rpd_progress_format(b, sizeof b, "calls", "rows", 100, 1000, 20000);
  assert_string_equal(b, "calls: 100/1000 rows (10%), 5 rows/s, ETA 3m00s");
}

static void test_finished_has_no_eta(void **state)
{
  char b[256];
  (void)state;
  rpd_progress_format(b, sizeof b, "ops", "rows", 500, 500, 250);
  assert_string_equal(b, "ops: 500/500 rows (100%), 2000 rows/s");
}

static void test_unknown_total(void **state)
{
  char b[256];
  (void)state;
  rpd_progress_format(b, sizeof b, "call stack", "rows", 2500000, -1, 1000);
  assert_string_equal(b, "call stack: 2500000 rows, 2.5M rows/s");
  rpd_progress_format(b, sizeof b, "call stack", "rows", -1, -1, 1000);
  assert_string_equal(b, "call stack: done");
}

static void test_bytes_in_mb(void **state)
{
  char b[256];
  (void)state;
  /* 50 MB of 200 MB after 2 s: 25 MB/s, ETA 6s */
  rpd_progress_format(b, sizeof b, "read", "bytes", 50000000, 200000000, 2000);
  assert_string_equal(b, "read: 50.0/200.0 MB (25%), 25 MB/s, ETA 6s");
}

static void test_first_call_no_rate(void **state)
{
  char b[256];
  (void)state;
  rpd_progress_format(b, sizeof b, "ops", "rows", 0, 10, 0);
  assert_string_equal(b, "ops: 0/10 rows (0%)");
}

static void test_wb_kinds(void **state)
{
  (void)state;
  assert_int_equal(rpd_wb_kind_of("total_us"), RPD_WB_US);
  assert_int_equal(rpd_wb_kind_of("time_ms"), RPD_WB_MS);
  assert_int_equal(rpd_wb_kind_of("First_ms"), RPD_WB_MS);
  assert_int_equal(rpd_wb_kind_of("percent"), RPD_WB_PCT);
  assert_int_equal(rpd_wb_kind_of("VarTotal_pct"), RPD_WB_PCT);
  assert_int_equal(rpd_wb_kind_of("PctTotal"), RPD_WB_PCT);
  assert_int_equal(rpd_wb_kind_of("count"), RPD_WB_INT);
  assert_int_equal(rpd_wb_kind_of("TotalCalls"), RPD_WB_INT);
  assert_int_equal(rpd_wb_kind_of("duration_ns"), RPD_WB_INT);
  assert_int_equal(rpd_wb_kind_of("gpuId"), RPD_WB_ID);
  assert_int_equal(rpd_wb_kind_of("op_id"), RPD_WB_ID);
  assert_int_equal(rpd_wb_kind_of("name"), RPD_WB_TEXT);
  assert_int_equal(rpd_wb_kind_of("category"), RPD_WB_TEXT);
}

static void test_cli_quiet_and_version(void **state)
{
  char *quiet[] = { "/usr/bin/rpd-x", "a.rpd", "--quiet", NULL };
  char *after[] = { "rpd-y", "--", "-q", NULL };
  (void)state;
  rpd_quiet = 0;
  assert_int_equal(rpd_cli_init(3, quiet, "usage"), 0);
  assert_int_equal(rpd_quiet, 1);
  assert_string_equal(rpd_progname, "rpd-x");
  rpd_quiet = 0;
  assert_int_equal(rpd_cli_init(3, after, "usage"), 0);   /* a file named -q */
  assert_int_equal(rpd_quiet, 0);
  assert_true(rpd_cli_quiet_opt("-q"));
  assert_true(rpd_cli_quiet_opt("--quiet"));
  assert_false(rpd_cli_quiet_opt("-qq"));
  assert_false(rpd_cli_quiet_opt(NULL));
  assert_string_equal(rpd_version(), RPDTOOLS_VERSION);   /* the one source */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rows_known_total),
    cmocka_unit_test(test_minutes_eta),
    cmocka_unit_test(test_finished_has_no_eta),
    cmocka_unit_test(test_unknown_total),
    cmocka_unit_test(test_bytes_in_mb),
    cmocka_unit_test(test_first_call_no_rate),
    cmocka_unit_test(test_wb_kinds),
    cmocka_unit_test(test_cli_quiet_and_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
