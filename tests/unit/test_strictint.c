/* test_strictint.c - the importers' strict integer reader: every text that
 * is not exactly a decimal int64, and every SQLite value that is not an
 * INTEGER, is refused with a message; the rest is read exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"
#include "strictint.h"

static void good(const char *s, int64_t want)
{
  int64_t v = 12345;
  assert_int_equal(rpd_int_text(s, strlen(s), &v), RPD_OK);
  assert_true(v == want);
}

static void bad(const char *s, const char *msg_part)
{
  int64_t v = 12345;
  assert_int_equal(rpd_int_text(s, strlen(s), &v), RPD_EPARSE);
  assert_true(v == 12345);                 /* untouched */
  assert_non_null(strstr(rpd_errmsg(), msg_part));
}

static void test_text(void **state)
{
  (void)state;
  good("0", 0);
  good("-0", 0);
  good("63857982592000", INT64_C(63857982592000));
  good("007", 7);
  good("9223372036854775807", INT64_MAX);
  good("-9223372036854775808", INT64_MIN);
  bad("9223372036854775808", "beyond the 64-bit integer range");
  bad("-9223372036854775809", "beyond the 64-bit integer range");
  bad("18446744073709551616", "beyond");
  bad("99999999999999999999999", "beyond");
  bad("6.3857982592e13", "'6.3857982592e13' is not an integer");
  bad("1e400", "not an integer");
  bad("1e3", "not an integer");
  bad("1.0", "not an integer");
  bad("true", "not an integer");
  bad("", "empty");
  bad("-", "not an integer");
  bad("+5", "not an integer");
  bad(" 5", "not an integer");
  bad("5 ", "not an integer");
  bad("0x10", "not an integer");
  bad("12a", "not an integer");
  bad("99999999999999999999x", "not an integer");  /* junk wins over range */
  /* a length, not a NUL: "12" out of "123" */
  int64_t v = 0;
  assert_int_equal(rpd_int_text("123", 2, &v), RPD_OK);
  assert_true(v == 12);
  /* a long value is shown cut */
  char big[200];
  memset(big, '7', sizeof big - 2);
  big[sizeof big - 2] = 'x';
  big[sizeof big - 1] = 0;
  bad(big, "...' is not an integer");
  assert_true(strlen(rpd_errmsg()) < 100);
}

/* Each storage class of SQLite through rpd_int_value. */
static void test_value(void **state)
{
  (void)state;
  sqlite3 *db;
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT 1700000000000000, -5, 1.5e15,"
                                      " '123', x'0102', NULL, 2.0", -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  int64_t v = 0;
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 0), &v), RPD_OK);
  assert_true(v == INT64_C(1700000000000000));
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 1), &v), RPD_OK);
  assert_true(v == -5);
  v = 42;
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 2), &v), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "real value 1500000000000000 is not an integer"));
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 3), &v), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "text value '123'"));
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 4), &v), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "blob of 2 bytes"));
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 5), &v), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "null"));
  assert_int_equal(rpd_int_value(sqlite3_column_value(st, 6), &v), RPD_EPARSE);
  assert_true(v == 42);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_text),
    cmocka_unit_test(test_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
