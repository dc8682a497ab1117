/* test_util_num.c - rpd_parse_i64, rpd_parse_i64_range, rpd_parse_size. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rpd.h"
#include "util/num.h"

static void test_i64(void **state)
{
  (void)state;
  int64_t v = 0;

  assert_int_equal(rpd_parse_i64("42", &v), RPD_OK);
  assert_int_equal(v, 42);
  assert_int_equal(rpd_parse_i64("-7", &v), RPD_OK);
  assert_int_equal(v, -7);
  assert_int_equal(rpd_parse_i64("+3", &v), RPD_OK);
  assert_int_equal(v, 3);
  assert_int_equal(rpd_parse_i64("9223372036854775807", &v), RPD_OK);
  assert_int_equal(v, INT64_MAX);
  assert_int_equal(rpd_parse_i64("-9223372036854775808", &v), RPD_OK);
  assert_int_equal(v, INT64_MIN);
  v = 5;
  assert_int_equal(rpd_parse_i64("", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_i64(NULL, &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_i64("12x", &v), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "'12x'"));
  assert_int_equal(rpd_parse_i64("x", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_i64("1.5", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_i64("3 ", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_i64("9223372036854775808", &v), RPD_ERANGE);
  assert_int_equal(v, 5);                       /* untouched on failure */
}

static void test_i64_range(void **state)
{
  (void)state;
  int64_t v = 0;

  assert_int_equal(rpd_parse_i64_range("64", 1, 64, &v), RPD_OK);
  assert_int_equal(v, 64);
  assert_int_equal(rpd_parse_i64_range("65", 1, 64, &v), RPD_ERANGE);
  assert_non_null(strstr(rpd_errmsg(), "1..64"));
  assert_int_equal(rpd_parse_i64_range("0", 1, 64, &v), RPD_ERANGE);
  assert_int_equal(rpd_parse_i64_range("6a", 1, 64, &v), RPD_EPARSE);
  assert_int_equal(v, 64);
}

static void test_size(void **state)
{
  (void)state;
  int64_t v = 0;

  assert_int_equal(rpd_parse_size("123", &v), RPD_OK);
  assert_int_equal(v, 123);
  assert_int_equal(rpd_parse_size("64K", &v), RPD_OK);
  assert_int_equal(v, 65536);
  assert_int_equal(rpd_parse_size("64kb", &v), RPD_OK);
  assert_int_equal(v, 65536);
  assert_int_equal(rpd_parse_size("1.5K", &v), RPD_OK);
  assert_int_equal(v, 1536);
  assert_int_equal(rpd_parse_size("2M", &v), RPD_OK);
  assert_int_equal(v, 2 << 20);
  assert_int_equal(rpd_parse_size("1.5G", &v), RPD_OK);
  assert_int_equal(v, INT64_C(3) << 29);
  assert_int_equal(rpd_parse_size("7B", &v), RPD_OK);
  assert_int_equal(v, 7);
  v = 9;
  assert_int_equal(rpd_parse_size("0", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_size("-1K", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_size("0.5", &v), RPD_EPARSE);   /* under a byte */
  assert_int_equal(rpd_parse_size("3T", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_size("3KBx", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_size("", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_size("1e30", &v), RPD_EPARSE);
  assert_int_equal(rpd_parse_size("nan", &v), RPD_EPARSE);
  assert_int_equal(v, 9);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_i64),
    cmocka_unit_test(test_i64_range),
    cmocka_unit_test(test_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
