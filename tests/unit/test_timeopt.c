/* test_timeopt.c - rpd_timeopt_resolve (common/timeopt.c): the --start/--end
 * convention of rpd2tracing and rpd-autograd-summary. */
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

static void test_bare_is_absolute_us(void **state)
{
  (void)state;
  assert_int_equal(resolve_ok("5000123"), 5000123000LL);
  assert_int_equal(resolve_ok("1.5"), 1500);
  assert_int_equal(resolve_ok("0"), 0);
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
  assert_int_equal(resolve_ok("+2"), FIRST + 2000);   /* bare: us */
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
    cmocka_unit_test(test_bare_is_absolute_us),
    cmocka_unit_test(test_unit_counts_from_first),
    cmocka_unit_test(test_signed_and_percent),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
