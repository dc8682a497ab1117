/* test_textsafe.c - rpd_text_safe for every output kind: invalid UTF-8,
 * control characters, escapes, the xlsx length limit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "textsafe.h"

#define FFFD "\xEF\xBF\xBD"

/* The safe text of the len bytes at s as a new string (caller frees). */
static char *safe_n(const char *s, size_t len, rpd_text_kind kind)
{
  rpd_buf b = {0};
  rpd_text_safe_n(&b, s, len, kind);
  return b.s;
}

static void expect(const char *in, rpd_text_kind kind, const char *want)
{
  char *got = safe_n(in, strlen(in), kind);
  assert_string_equal(got, want);
  free(got);
}

/* Invalid UTF-8: every kind replaces each maximal invalid subpart by one
 * U+FFFD and passes valid text through. */
static void test_invalid_utf8(void **state)
{
  static const struct { const char *in, *out; } cases[] = {
    {"caf\xc3\xa9", "caf\xc3\xa9"},
    {"\xff", FFFD},
    {"a\xc3", "a" FFFD},                       /* truncated 2-byte */
    {"\xe2\x82x", FFFD "x"},                   /* truncated 3-byte: one U+FFFD */
    {"\xc0\xaf", FFFD FFFD},                   /* overlong lead byte */
    {"\xed\xa0\x80", FFFD FFFD FFFD},          /* surrogate */
    {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD}, /* above U+10FFFF */
    {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},  /* U+1F600 */
    {"\x80\x80", FFFD FFFD},                   /* lone continuations */
  };
  rpd_text_kind kinds[] = {RPD_TEXT_PLAIN, RPD_TEXT_CSV, RPD_TEXT_JSON,
                           RPD_TEXT_HTML, RPD_TEXT_XLSX};
  (void)state;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      char *got = safe_n(cases[i].in, strlen(cases[i].in), kinds[k]);
      assert_string_equal(got, cases[i].out);
      assert_true(rpd_utf8_valid(got, strlen(got)));
      free(got);
    }
  assert_false(rpd_utf8_valid("\xe2\x82", 2));
  assert_true(rpd_utf8_valid("", 0));
}

static void test_kinds(void **state)
{
  const char *in = "a\"b\\c<d>&'\x01\t\n\r\x7f" "e";
  (void)state;
  expect(in, RPD_TEXT_PLAIN, "a\"b\\c<d>&'     e");
  expect(in, RPD_TEXT_CSV, in);
  expect(in, RPD_TEXT_JSON, "a\\\"b\\\\c<d>&'\\u0001\\t\\n\\r\x7f" "e");
  expect(in, RPD_TEXT_HTML, "a&quot;b\\c&lt;d&gt;&amp;&#39;" FFFD "\t\n\r\x7f" "e");
  expect(in, RPD_TEXT_XLSX, "a\"b\\c<d>&'" FFFD "\t\n\r\x7f" "e");
  /* XML also forbids U+FFFE and U+FFFF */
  expect("x\xef\xbf\xbe\xef\xbf\xbfy", RPD_TEXT_XLSX, "x" FFFD FFFD "y");
  expect("\b\f\x1f", RPD_TEXT_JSON, "\\b\\f\\u001f");
  /* a terminal table: bidi controls (RLO U+202E, LRI U+2066, RLM U+200F)
   * would reorder the columns after a name; C1 U+009B is CSI */
  expect("k\xe2\x80\xae" "evil\xe2\x81\xa6x\xe2\x80\x8fy\xc2\x9bz\xc2\xa0", RPD_TEXT_PLAIN,
         "k" FFFD "evil" FFFD "x" FFFD "y z\xc2\xa0");
  expect("k\xe2\x80\xae" "evil", RPD_TEXT_CSV, "k\xe2\x80\xae" "evil");   /* data, not display */
}

/* A counted string may hold NULs: a control character like the others. */
static void test_nul(void **state)
{
  char *got;
  (void)state;
  got = safe_n("a\0b", 3, RPD_TEXT_JSON);
  assert_string_equal(got, "a\\u0000b");
  free(got);
  got = safe_n("a\0b", 3, RPD_TEXT_XLSX);
  assert_string_equal(got, "a" FFFD "b");
  free(got);
  got = safe_n("a\0b", 3, RPD_TEXT_CSV);
  assert_string_equal(got, "a" FFFD "b");
  free(got);
  got = safe_n(NULL, 5, RPD_TEXT_CSV);
  assert_string_equal(got, "");
  free(got);
}

/* xlsx cells hold at most 32767 UTF-16 units: cut at a character. */
static void test_xlsx_limit(void **state)
{
  size_t n = 40000;
  char *s = malloc(4 * n + 1), *got;
  (void)state;
  memset(s, 'x', n);
  s[n] = '\0';
  got = safe_n(s, n, RPD_TEXT_XLSX);
  assert_int_equal(strlen(got), RPD_XLSX_CELL_MAX);
  free(got);
  /* 4-byte characters count twice: 16383 fit (32766 units) */
  for (size_t i = 0; i < n; i++)
    memcpy(s + 4 * i, "\xf0\x9f\x98\x80", 4);
  s[4 * n] = '\0';
  got = safe_n(s, 4 * n, RPD_TEXT_XLSX);
  assert_int_equal(strlen(got), 4 * 16383);
  assert_true(rpd_utf8_valid(got, strlen(got)));
  free(got);
  /* 16383 emoji (32766 units), then an ASCII run: only its first byte fits */
  for (size_t i = 0; i < 16383; i++)
    memcpy(s + 4 * i, "\xf0\x9f\x98\x80", 4);
  memcpy(s + 4 * 16383, "abc", 4);
  got = safe_n(s, strlen(s), RPD_TEXT_XLSX);
  assert_int_equal(strlen(got), 4 * 16383 + 1);
  assert_int_equal(got[4 * 16383], 'a');
  free(got);
  /* an ASCII run, then a 4-byte character that would pass the limit */
  memset(s, 'z', RPD_XLSX_CELL_MAX - 1);
  memcpy(s + RPD_XLSX_CELL_MAX - 1, "\xf0\x9f\x98\x80", 5);
  got = safe_n(s, strlen(s), RPD_TEXT_XLSX);
  assert_int_equal(strlen(got), RPD_XLSX_CELL_MAX - 1);
  free(got);
  /* exactly at the limit: unchanged, no copy */
  memset(s, 'y', RPD_XLSX_CELL_MAX);
  s[RPD_XLSX_CELL_MAX] = '\0';
  {
    rpd_buf b = {0};
    assert_ptr_equal(rpd_text_safe_str(&b, s, RPD_TEXT_XLSX), s);
    s[RPD_XLSX_CELL_MAX] = 'y';
    s[RPD_XLSX_CELL_MAX + 1] = '\0';
    assert_int_equal(strlen(rpd_text_safe_str(&b, s, RPD_TEXT_XLSX)), RPD_XLSX_CELL_MAX);
    rpd_buf_free(&b);
  }
  /* other kinds never cut */
  got = safe_n(s, strlen(s), RPD_TEXT_CSV);
  assert_int_equal(strlen(got), RPD_XLSX_CELL_MAX + 1);
  free(got);
  free(s);
}

/* rpd_text_safe_str: the input itself when safe, else the buffer. */
static void test_safe_str(void **state)
{
  rpd_buf b = {0};
  const char *ok = "plain text", *r;
  (void)state;
  assert_ptr_equal(rpd_text_safe_str(&b, ok, RPD_TEXT_CSV), ok);
  assert_null(rpd_text_safe_str(&b, NULL, RPD_TEXT_CSV));
  r = rpd_text_safe_str(&b, "bad\xff", RPD_TEXT_CSV);
  assert_ptr_equal(r, b.s);
  assert_string_equal(r, "bad" FFFD);
  r = rpd_text_safe_str(&b, "<", RPD_TEXT_HTML);   /* buffer reset first */
  assert_string_equal(r, "&lt;");
  rpd_buf_free(&b);
}

/* The writers of out.c: CSV and table never pass invalid UTF-8. */
static void test_writers(void **state)
{
  const char *names[] = {"n\xff"};
  rpd_fmt fmts[] = {RPD_FMT_CSV, RPD_FMT_TABLE, RPD_FMT_JSON};
  const char *want[] = {
    "n" FFFD "\r\n\"a" FFFD ",b\"\r\n",
    "n" FFFD "\n----\na" FFFD ",b\n",
    "[\n{\"n" FFFD "\": \"a" FFFD ",b\"}\n]\n",
  };
  (void)state;
  for (int i = 0; i < 3; i++) {
    char buf[256] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    rpd_out *o = rpd_out_new(f, fmts[i], 1, names);
    rpd_out_str(o, "a\xc3,b");
    rpd_out_endrow(o);
    assert_int_equal(rpd_out_end(o), RPD_OK);
    fclose(f);
    assert_string_equal(buf, want[i]);
  }
}

/* Every bidi control is found, and nothing next to them is. */
static void test_bidi_control(void **state)
{
  (void)state;
  static const char *yes[] = {"\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\xaa", "\xe2\x80\xae",
                              "\xe2\x81\xa6", "\xe2\x81\xa9x"};
  static const char *no[] = {"\xe2\x80\x8d", "\xe2\x80\x90", "\xe2\x80\xa9", "\xe2\x80\xaf",
                             "\xe2\x81\xa5", "\xe2\x81\xaa", "\xe2\x80\xa6", "abc", ""};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    assert_int_equal(rpd_utf8_is_bidi_control(yes[i], strlen(yes[i])), 1);
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    assert_int_equal(rpd_utf8_is_bidi_control(no[i], strlen(no[i])), 0);
  assert_int_equal(rpd_utf8_is_bidi_control("\xe2\x80\xae", 2), 0);  /* cut short */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_invalid_utf8),
    cmocka_unit_test(test_kinds),
    cmocka_unit_test(test_nul),
    cmocka_unit_test(test_xlsx_limit),
    cmocka_unit_test(test_safe_str),
    cmocka_unit_test(test_writers),
    cmocka_unit_test(test_bidi_control),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
