/* test_progress.c - the one progress-line format (rpd_progress_format),
 * the workbook column kinds (rpd_wb_kind_of), -q / --version handling. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"
#include "version.h"
#include "workbook.h"
#include "internal.h"   /* white-box: a handle over an in-memory database */

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

/* Run fn with stderr going to a temp file; its content (caller frees). */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
  char path[] = "/tmp/test_progress.XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  char *text = calloc(1, 1 << 16);
  assert_true(fd >= 0 && saved >= 0 && text);
  fflush(stderr);
  dup2(fd, 2);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, text, (1 << 16) - 1);
  assert_true(n >= 0);
  close(fd);
  unlink(path);
  return text;
}

/* A phase over a 200000-row table scanned twice by one statement. */
static void scan_phase(void *arg)
{
  rpd *r = arg;
  int64_t n = 0;
  static const char *const twice[] = {"t", "t", NULL};
  rpd_progress_sql_total(r, "scan", rpd_progress_rows_of(r, twice));
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM t A WHERE A.x % 7 = 1"
                                      " UNION ALL SELECT count(*) FROM t B WHERE B.x % 5 = 1",
                                   &n), RPD_OK);
  rpd_progress_end();
}

static void copy_lines(void *arg)
{
  (void)arg;
  for (int64_t i = 1; i <= 4; i++)
    rpd_progress_bytes("copying", i * 1000000, 8000000);
  rpd_progress_end();
  rpd_progress_end();   /* twice: nothing more */
}

/* The phase line counts the rows SQLite scans (full-scan steps) against
 * the known total and ends at 100% with a newline; a bytes line is shown
 * in MB and rpd_progress_end finishes it at its total. */
static void test_sql_phase_and_bytes(void **state)
{
  sqlite3 *db = NULL;
  rpd r;
  (void)state;
  setenv("RPD_PROGRESS", "1", 1);      /* read once, at the first use */
  setenv("RPD_PROGRESS_MS", "0", 1);
  rpd_quiet = 0;
  rpd_progname = "rpd-t";
  assert_int_equal(rpd_progress_on(), 1);
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  memset(&r, 0, sizeof r);
  r.db = db;
  assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, x);"
                                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1"
                                    " FROM n WHERE i < 200000) INSERT INTO t SELECT i, i FROM n",
                                NULL, NULL, NULL), SQLITE_OK);
  char *out = capture_stderr(scan_phase, &r);
  /* intermediate lines below the total, then the finished line */
  assert_non_null(strstr(out, "\rrpd-t: scan: "));
  assert_non_null(strstr(out, "rpd-t: scan: 400000/400000 rows (100%)"));
  assert_null(strstr(out, "(99%)\n"));
  assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);   /* one line */
  int between = 0;           /* prints with 0 < done < total: rows counted */
  for (const char *p = strstr(out, "scan: "); p; p = strstr(p + 1, "scan: ")) {
    long long d = -1, t = -1;
    if (sscanf(p, "scan: %lld/%lld", &d, &t) == 2 && t == 400000 && d > 0 && d < t)
      between++;
  }
  assert_true(between >= 1);
  free(out);
  out = capture_stderr(copy_lines, NULL);
  assert_non_null(strstr(out, "rpd-t: copying: 4.0/8.0 MB (50%)"));
  assert_non_null(strstr(out, "rpd-t: copying: 8.0/8.0 MB (100%)"));
  assert_int_equal(out[strlen(out) - 1], '\n');
  free(out);
  rpd_quiet = 1;                       /* -q: nothing at all */
  out = capture_stderr(copy_lines, NULL);
  assert_string_equal(out, "");
  free(out);
  rpd_quiet = 0;
  sqlite3_close(db);
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
    cmocka_unit_test(test_sql_phase_and_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
