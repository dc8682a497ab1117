/* test_time.c - rpd_time_parse / rpd_time_resolve. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"
#include "timeopt.h"

static rpd_time parse_ok(const char *s, const char *unit)
{
  rpd_time t;
  int rc = rpd_time_parse(s, unit, &t);
  if (rc != RPD_OK)
    fail_msg("'%s' (%s): %s", s, unit ? unit : "NULL", rpd_errmsg());
  return t;
}

static void test_bare_default_units(void **state)
{
  rpd_time t;
  (void)state;
  t = parse_ok("123.45", "ns");
  assert_int_equal(t.kind, RPD_TIME_BARE);
  assert_true(t.ns == 123.45);
  assert_int_equal(t.had_unit, 0);
  t = parse_ok("123.45", "us");
  assert_true(t.ns == 123450.0);
  t = parse_ok("123.45", "ms");
  assert_true(t.ns == 123450000.0);
  t = parse_ok("123.45", "s");
  assert_true(t.ns == 123450000000.0);
  t = parse_ok("123.45", NULL);
  assert_true(t.ns == 123.45);
  t = parse_ok("7", "ms");
  assert_true(t.ns == 7e6);
}

static void test_units(void **state)
{
  rpd_time t;
  (void)state;
  t = parse_ok("123.45ms", "s");
  assert_int_equal(t.kind, RPD_TIME_BARE);
  assert_int_equal(t.had_unit, 1);
  assert_true(t.ns == 123450000.0);
  t = parse_ok("123450ns", "s");
  assert_true(t.ns == 123450.0);
  /* ".12345s" is 123.45 ms exactly, not 123449999.99999999 */
  t = parse_ok(".12345s", "ns");
  assert_true(t.ns == 123450000.0);
  assert_int_equal((int64_t)t.ns, 123450000);
  t = parse_ok("10sec", "ns");
  assert_true(t.ns == 1e10);
  t = parse_ok("2 us", "ns");
  assert_true(t.ns == 2000.0);
  t = parse_ok("3usec", "ns");
  assert_true(t.ns == 3000.0);
  t = parse_ok("4msec", "ns");
  assert_true(t.ns == 4e6);
  t = parse_ok("5nsec", "s");
  assert_true(t.ns == 5.0);
  t = parse_ok("1.5e3us", "ns");
  assert_true(t.ns == 1.5e6);
  t = parse_ok("0.1s", "ns");
  assert_true(t.ns == 1e8);
}

static void test_signs_and_pct(void **state)
{
  rpd_time t;
  (void)state;
  t = parse_ok("+10ms", "ns");
  assert_int_equal(t.kind, RPD_TIME_PLUS);
  assert_true(t.ns == 1e7);
  t = parse_ok("-8ms", "ns");
  assert_int_equal(t.kind, RPD_TIME_MINUS);
  assert_true(t.ns == 8e6);
  t = parse_ok("-300", "ms");
  assert_int_equal(t.kind, RPD_TIME_MINUS);
  assert_true(t.ns == 3e8);
  t = parse_ok("50%", "ns");
  assert_int_equal(t.kind, RPD_TIME_PCT);
  assert_true(t.pct == 50.0);
  t = parse_ok("12.5%", "ms");
  assert_true(t.pct == 12.5);
  t = parse_ok("100%", "ms");
  assert_true(t.pct == 100.0);
}

static void expect_error(const char *s, const char *unit, const char *in_msg)
{
  rpd_time t;
  rpd_clearerr();
  if (rpd_time_parse(s, unit, &t) != RPD_EPARSE)
    fail_msg("'%s' parsed but should not", s ? s : "NULL");
  if (!strstr(rpd_errmsg(), in_msg))
    fail_msg("'%s': message '%s' lacks '%s'", s ? s : "NULL", rpd_errmsg(), in_msg);
}

static void test_errors(void **state)
{
  (void)state;
  expect_error("10parsecs", "ns", "unknown unit 'parsecs'");
  expect_error("abc", "ns", "bad time 'abc'");
  expect_error("%", "ns", "bad time '%'");
  expect_error("", "ns", "empty");
  expect_error(NULL, "ns", "empty");
  expect_error("-", "ns", "bad time");
  expect_error(".", "ns", "bad time");
  expect_error("150%", "ns", "0..100");
  expect_error("+5%", "ns", "no sign");
  expect_error("5%x", "ns", "after");
  expect_error("5", "furlongs", "unknown time unit 'furlongs'");
  expect_error("1ms2", "ns", "unknown unit");
}

static void test_resolve(void **state)
{
  rpd_time t;
  const int64_t first = 1000000000, last = 3000000000;
  (void)state;
  t = parse_ok("5ms", "ns");
  assert_int_equal(rpd_time_resolve(&t, first, first, last), 1005000000);
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), 5000000);
  t = parse_ok("123.45", "ns");  /* rounds to the nearest ns */
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), 123);
  t = parse_ok("123.5", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), 124);
  t = parse_ok("+10ms", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), 1010000000);
  t = parse_ok("-8ms", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), 2992000000);
  t = parse_ok("50%", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), 2000000000);
  t = parse_ok("0%", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), first);
  t = parse_ok("100%", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, first, last), last);
  t = parse_ok("20%", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, 10, 20), 12);
  /* a real epoch-ns timestamp keeps full precision */
  t = parse_ok("+1ns", "ns");
  assert_int_equal(rpd_time_resolve(&t, 0, INT64_C(1732170000123456789),
                                    INT64_C(1732170009000000000)),
                   INT64_C(1732170000123456790));
}

/* beyond +-2^63 ns: parse refuses, the checked resolver refuses, the
 * unchecked one saturates; never a wrapped value */
static void test_range(void **state)
{
  static const char *const bad[] = {
    "1e999ms", "-1e999ms", "+1e999ms", "1e30", "99999999999999999999",
    "-9223372036854775808", "9223372036854775808", "1e999%",
  };
  rpd_time t;
  int64_t v = 5;
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (rpd_time_parse(bad[i], "ns", &t) != RPD_EPARSE)
      fail_msg("'%s' accepted", bad[i]);
  t = parse_ok("+9223372036s", "ns");
  assert_int_equal(rpd_time_resolve_checked(&t, 0, INT64_MAX - 5, INT64_MAX, &v), RPD_EPARSE);
  assert_int_equal(v, 5);
  assert_true(rpd_time_resolve(&t, 0, INT64_MAX - 5, INT64_MAX) == INT64_MAX);
  t = parse_ok("-9223372036s", "ns");
  assert_int_equal(rpd_time_resolve_checked(&t, 0, INT64_MIN + 5, INT64_MIN + 9, &v), RPD_EPARSE);
  assert_true(rpd_time_resolve(&t, 0, INT64_MIN + 5, INT64_MIN + 9) == INT64_MIN);
  t = parse_ok("100%", "ns");
  assert_int_equal(rpd_time_resolve_checked(&t, 0, 0, INT64_C(1) << 62, &v), RPD_OK);
  assert_true(v == INT64_C(1) << 62);
  /* a span beyond 2^63 ns (INT64_MIN .. INT64_MAX) is refused, not wrapped */
  assert_int_equal(rpd_time_resolve_checked(&t, 0, INT64_MIN, INT64_MAX, &v), RPD_EPARSE);
  t = parse_ok("50%", "ns");   /* floor toward the start, as the reference */
  assert_int_equal(rpd_time_resolve_checked(&t, 0, 0, 3, &v), RPD_OK);
  assert_int_equal(v, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bare_default_units),
    cmocka_unit_test(test_units),
    cmocka_unit_test(test_signs_and_pct),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_resolve),
    cmocka_unit_test(test_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
