/* test_args.c - rpd_args_parse/get/free on real tracer args text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"

static void test_two_pairs(void **state)
{
  rpd_args a;
  (void)state;
  assert_int_equal(rpd_args_parse("stream = 0x1 | mode = 0", &a), RPD_OK);
  assert_int_equal(a.n, 2);
  assert_string_equal(a.kv[0].key, "stream");
  assert_string_equal(a.kv[0].value, "0x1");
  assert_string_equal(a.kv[1].key, "mode");
  assert_string_equal(a.kv[1].value, "0");
  assert_string_equal(rpd_args_get(&a, "stream"), "0x1");
  assert_string_equal(rpd_args_get(&a, "mode"), "0");
  assert_null(rpd_args_get(&a, "Mode"));
  assert_null(rpd_args_get(&a, "size"));
  rpd_args_free(&a);
  assert_null(a.kv);
  assert_int_equal(a.n, 0);
}

static void test_quotes_trimmed(void **state)
{
  rpd_args a;
  (void)state;
  assert_int_equal(rpd_args_parse(" name = \"vllm::fwd\" |'k' = 'v w' | q = \"a'", &a), RPD_OK);
  assert_int_equal(a.n, 3);
  assert_string_equal(rpd_args_get(&a, "name"), "vllm::fwd");
  assert_string_equal(rpd_args_get(&a, "k"), "v w");
  /* mismatched quotes are kept */
  assert_string_equal(rpd_args_get(&a, "q"), "\"a'");
  rpd_args_free(&a);
  /* only one level of quotes */
  assert_int_equal(rpd_args_parse("x = \"'y'\"", &a), RPD_OK);
  assert_string_equal(rpd_args_get(&a, "x"), "'y'");
  rpd_args_free(&a);
}

static void test_value_with_equals(void **state)
{
  rpd_args a;
  (void)state;
  assert_int_equal(rpd_args_parse("expr = a=b==c | n = 1", &a), RPD_OK);
  assert_int_equal(a.n, 2);
  assert_string_equal(rpd_args_get(&a, "expr"), "a=b==c");
  assert_string_equal(rpd_args_get(&a, "n"), "1");
  rpd_args_free(&a);
}

static void test_empty_segments(void **state)
{
  rpd_args a;
  (void)state;
  assert_int_equal(rpd_args_parse("| a = 1 ||  | b = 2 |", &a), RPD_OK);
  assert_int_equal(a.n, 2);
  assert_string_equal(a.kv[0].key, "a");
  assert_string_equal(a.kv[1].key, "b");
  assert_string_equal(a.kv[1].value, "2");
  rpd_args_free(&a);
  assert_int_equal(rpd_args_parse("", &a), RPD_OK);
  assert_int_equal(a.n, 0);
  rpd_args_free(&a);
  assert_int_equal(rpd_args_parse(NULL, &a), RPD_OK);
  assert_int_equal(a.n, 0);
  assert_null(rpd_args_get(&a, "a"));
  rpd_args_free(&a);
  /* an empty value is kept */
  assert_int_equal(rpd_args_parse("dst = | size = 4096", &a), RPD_OK);
  assert_int_equal(a.n, 2);
  assert_string_equal(rpd_args_get(&a, "dst"), "");
  assert_string_equal(rpd_args_get(&a, "size"), "4096");
  rpd_args_free(&a);
}

static void test_no_equals(void **state)
{
  rpd_args a;
  (void)state;
  assert_int_equal(rpd_args_parse("  aten::mm  | k = v | 'quoted text'", &a), RPD_OK);
  assert_int_equal(a.n, 3);
  assert_string_equal(a.kv[0].key, "");
  assert_string_equal(a.kv[0].value, "aten::mm");
  assert_string_equal(a.kv[1].key, "k");
  assert_string_equal(a.kv[2].key, "");
  assert_string_equal(a.kv[2].value, "quoted text");
  assert_string_equal(rpd_args_get(&a, ""), "aten::mm");
  rpd_args_free(&a);
}

static void test_reparse_and_double_free(void **state)
{
  rpd_args a;
  (void)state;
  assert_int_equal(rpd_args_parse("a = 1", &a), RPD_OK);
  rpd_args_free(&a);
  assert_int_equal(rpd_args_parse("b = 2 | c=3", &a), RPD_OK);
  assert_int_equal(a.n, 2);
  assert_string_equal(rpd_args_get(&a, "c"), "3");
  assert_null(rpd_args_get(&a, "a"));
  rpd_args_free(&a);
  rpd_args_free(&a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_two_pairs),
    cmocka_unit_test(test_quotes_trimmed),
    cmocka_unit_test(test_value_with_equals),
    cmocka_unit_test(test_empty_segments),
    cmocka_unit_test(test_no_equals),
    cmocka_unit_test(test_reparse_and_double_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
