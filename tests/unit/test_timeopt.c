/* test_timeopt.c - rpd_timeopt_resolve (common/cli/timeopt.c): the one meaning
 * of a command-line time value (docs/time.md), the reference rpd2tracing's
 * absolute-us form behind RPD_TIMEOPT_ABS_US, and out-of-range values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"
#include "timeopt.h"

enum { FIRST = 5000000000LL, LAST = 5200000000LL };

static int64_t resolve_ok(const char *text)
{
  int64_t ns = -1;
  if (rpd_timeopt_resolve(text, FIRST, LAST, &ns) != RPD_OK)
    fail_msg("'%s': %s", text, rpd_errmsg());
  return ns;
}

static void test_bare_is_ms_from_start(void **state)
{
  (void)state;
  assert_int_equal(resolve_ok("100"), FIRST + 100000000);
  assert_int_equal(resolve_ok("1.5"), FIRST + 1500000);
  assert_int_equal(resolve_ok("0"), FIRST);
  assert_int_equal(resolve_ok("123.45"), FIRST + 123450000);
  assert_int_equal(resolve_ok(".12345s"), FIRST + 123450000);
}

static int64_t abs_us_ok(const char *text)
{
  int64_t ns = -1;
  if (rpd_timeopt_resolve_mode(text, RPD_TIMEOPT_ABS_US, FIRST, LAST, &ns) != RPD_OK)
    fail_msg("'%s': %s", text, rpd_errmsg());
  return ns;
}

static void test_abs_us_mode(void **state)
{
  (void)state;
  assert_int_equal(abs_us_ok("5000123"), 5000123000LL);   /* absolute us */
  assert_int_equal(abs_us_ok("1.5"), 1500);
  assert_int_equal(abs_us_ok("10ms"), FIRST + 10000000);  /* unit: from start */
  assert_int_equal(abs_us_ok("+2"), FIRST + 2000);        /* +T in us */
  assert_int_equal(abs_us_ok("-8ms"), LAST - 8000000);
  assert_int_equal(abs_us_ok("50%"), FIRST + 100000000);
}

static void test_out_of_range(void **state)
{
  static const char *const bad[] = {
    "-1e999ms", "+1e999ms", "1e30", "99999999999999999999", "-9223372036854775808",
    "9223372036854775808ns", "nan", "inf", "-inf", "NaN", "1e999%", "9223372036854.775808s",
  };
  int64_t ns = 77;
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (rpd_timeopt_resolve(bad[i], FIRST, LAST, &ns) != RPD_EPARSE)
      fail_msg("'%s' accepted as %lld", bad[i], (long long)ns);
    if (rpd_timeopt_resolve_mode(bad[i], RPD_TIMEOPT_ABS_US, FIRST, LAST, &ns) != RPD_EPARSE)
      fail_msg("'%s' accepted (abs us) as %lld", bad[i], (long long)ns);
    assert_int_equal(ns, 77);
    assert_null(strchr(rpd_errmsg(), '\n'));
  }
  /* fits as a value but not once added to the start: refused, not wrapped */
  assert_int_equal(rpd_timeopt_resolve("9223372036s", INT64_MAX - 10, INT64_MAX, &ns), RPD_EPARSE);
  assert_int_equal(rpd_timeopt_resolve("-9223372036s", INT64_MIN + 10, INT64_MIN + 20, &ns),
                   RPD_EPARSE);
  assert_int_equal(ns, 77);
  /* the largest magnitude below 2^63 that a double holds exactly */
  assert_int_equal(rpd_timeopt_resolve("9223372036854774784ns", 0, 0, &ns), RPD_OK);
  assert_true(ns == INT64_C(9223372036854774784));
  assert_int_equal(rpd_timeopt_resolve("-9223372036854774784ns", 0, 0, &ns), RPD_OK);
  assert_true(ns == -INT64_C(9223372036854774784));
}

static void test_unit_counts_from_first(void **state)
{
  (void)state;
  assert_int_equal(resolve_ok("10ms"), FIRST + 10000000);
  assert_int_equal(resolve_ok("250ns"), FIRST + 250);
  assert_int_equal(resolve_ok("3us"), FIRST + 3000);
  assert_int_equal(resolve_ok(".1s"), FIRST + 100000000);
}

static void test_signed_and_percent(void **state)
{
  (void)state;
  assert_int_equal(resolve_ok("+2ms"), FIRST + 2000000);
  assert_int_equal(resolve_ok("+2"), FIRST + 2000000);   /* bare: ms */
  assert_int_equal(resolve_ok("-8ms"), LAST - 8000000);
  assert_int_equal(resolve_ok("50%"), FIRST + 100000000);
  assert_int_equal(resolve_ok("100%"), LAST);
}

static void test_errors(void **state)
{
  int64_t ns = 77;
  (void)state;
  assert_int_equal(rpd_timeopt_resolve("", FIRST, LAST, &ns), RPD_EPARSE);
  assert_int_equal(rpd_timeopt_resolve("12parsecs", FIRST, LAST, &ns), RPD_EPARSE);
  assert_int_equal(rpd_timeopt_resolve("abc", FIRST, LAST, &ns), RPD_EPARSE);
  assert_true(strlen(rpd_errmsg()) > 0);
  assert_int_equal(ns, 77);   /* untouched */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bare_is_ms_from_start),
    cmocka_unit_test(test_abs_us_mode),
    cmocka_unit_test(test_out_of_range),
    cmocka_unit_test(test_unit_counts_from_first),
    cmocka_unit_test(test_signed_and_percent),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
