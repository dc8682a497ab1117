/* test_regex.c - rpd_regex_* with Python re.search semantics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"

static int matches(const char *pat, const char *subject)
{
  rpd_regex *re = NULL;
  int m;
  if (rpd_regex_compile(pat, &re) != RPD_OK)
    fail_msg("'%s' did not compile: %s", pat, rpd_errmsg());
  m = rpd_regex_search(re, subject);
  rpd_regex_free(re);
  return m;
}

static void test_anchored_prefix(void **state)
{
  (void)state;
  assert_true(matches("^Cijk_", "Cijk_Alik_Bljk_HHS_BH_MT256x256x64_MI32x32x8x1"));
  assert_false(matches("^Cijk_", "void Cijk_Alik"));
  assert_false(matches("^Cijk_", "cijk_alik"));
}

static void test_search_anywhere(void **state)
{
  (void)state;
  /* re.search, not re.match: found in the middle */
  assert_true(matches("paged_attention*", "void vllm::paged_attention_v1_kernel<float>"));
  assert_true(matches("paged_attention*", "paged_attentio"));  /* n* may be empty */
  assert_false(matches("paged_attention*", "paged_atten"));
  assert_true(matches("vllm::.*", "void vllm::rms_norm_kernel<c10::Half>"));
  assert_false(matches("vllm::.*", "void at::native::vectorized_elementwise_kernel"));
}

static void test_dot_star_namespace(void **state)
{
  (void)state;
  assert_true(matches("^.* at::", "void at::native::(anonymous namespace)::cunn_SoftMaxForward"));
  assert_false(matches("^.* at::", "at::native::foo"));  /* needs the space */
  assert_true(matches("^.* at::", "x at::y"));
}

static void test_null_and_utf8(void **state)
{
  rpd_regex *re = NULL;
  (void)state;
  assert_int_equal(rpd_regex_compile("k.l", &re), RPD_OK);
  assert_false(rpd_regex_search(re, NULL));
  assert_false(rpd_regex_search(NULL, "kxl"));
  /* '.' matches one code point, not one byte */
  assert_true(rpd_regex_search(re, "k\xc3\xa9l"));
  /* an invalid UTF-8 subject is searched, not an error */
  assert_true(rpd_regex_search(re, "\xff\xfe kxl"));
  assert_false(rpd_regex_search(re, "\xff\xfe kx"));
  rpd_regex_free(re);
  rpd_regex_free(NULL);
  /* Unicode-aware \w like Python 3 */
  assert_true(matches("^\\w+$", "gr\xc3\xb6\xc3\x9f" "e"));
}

static void test_python_syntax(void **state)
{
  (void)state;
  assert_true(matches("(?P<ns>vllm)::(?P=ns)", "vllm::vllm"));
  assert_true(matches("kernel\\Z", "my_kernel"));
  assert_false(matches("kernel\\Z", "my_kernel\n"));  /* Python \Z: very end */
  assert_true(matches("kernel$", "my_kernel\n"));     /* $ allows a final \n */
  assert_true(matches("^ab{,2}c$", "ac"));
  assert_true(matches("^ab{,2}c$", "abbc"));
  assert_false(matches("^ab{,2}c$", "abbbc"));
  assert_true(matches("[{,]", ","));
  assert_true(matches("\\d+", "x\xd9\xa3"));  /* ARABIC-INDIC DIGIT THREE */
}

static void test_invalid(void **state)
{
  rpd_regex *re = (rpd_regex *)&re;
  (void)state;
  assert_int_equal(rpd_regex_compile("(", &re), RPD_EPARSE);
  assert_null(re);
  assert_non_null(strstr(rpd_errmsg(), "at offset 1"));
  assert_non_null(strstr(rpd_errmsg(), "missing closing parenthesis"));
  assert_int_equal(rpd_regex_compile("ab[c", &re), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "at offset 4"));
  /* offsets are in the user's pattern even after {,n} translation */
  assert_int_equal(rpd_regex_compile("a{,2}b)", &re), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "at offset 6"));
  assert_int_equal(rpd_regex_compile("*x", &re), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "at offset 0"));
  assert_int_equal(rpd_regex_compile(NULL, &re), RPD_EPARSE);
}

static void test_many_searches(void **state)
{
  rpd_regex *re = NULL;
  int n = 0;
  char s[64];
  (void)state;
  assert_int_equal(rpd_regex_compile("_(17|42)$", &re), RPD_OK);
  for (int i = 0; i < 1000; i++) {
    snprintf(s, sizeof s, "kernel_%d", i);
    n += rpd_regex_search(re, s);
  }
  assert_int_equal(n, 2);
  rpd_regex_free(re);
}

/* A search PCRE2 cannot finish is never "no match": deep backtracking
 * that overflows PCRE2's default 32 KiB JIT stack is retried with a larger
 * one (the right answer), a search over the match limit is an error. */
static void test_unfinished_search(void **state)
{
  char name[2100];
  rpd_regex *re = NULL;
  (void)state;
  memset(name, 'a', 2000);
  strcpy(name + 2000, "_Cijk_MT64");
  assert_int_equal(matches("(.|\\n)*Cijk", name), 1);
  strcpy(name + 2000, "_Dijk_MT64");
  assert_int_equal(matches("(.|\\n)*Cijk", name), 0);

  memset(name, 'a', 46);
  strcpy(name + 46, "!b");          /* 2^46 ways to fail: over the limit */
  assert_int_equal(rpd_regex_compile("^(a|aa)*b", &re), RPD_OK);
  assert_int_equal(rpd_regex_search(re, name), -RPD_ERANGE);
  assert_string_equal(rpd_errmsg(), "match limit exceeded on a subject of 48 bytes");
  assert_int_equal(rpd_regex_search(re, "aab"), 1);   /* the regex is still usable */
  rpd_regex_free(re);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_anchored_prefix),
    cmocka_unit_test(test_search_anywhere),
    cmocka_unit_test(test_dot_star_namespace),
    cmocka_unit_test(test_null_and_utf8),
    cmocka_unit_test(test_python_syntax),
    cmocka_unit_test(test_invalid),
    cmocka_unit_test(test_many_searches),
    cmocka_unit_test(test_unfinished_search),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
