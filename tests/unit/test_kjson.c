/* links: rpd-import */
/* test_kjson.c - rpd-import's streaming JSON reader (tools/rpd-import/kjson.c),
 * linked from the tool's library: the exact callback sequence for escapes,
 * UTF-16 surrogates, numbers and literals, the same sequence whatever the
 * chunking (tokens cut at every possible byte), and each error status with
 * its offset and message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rpd.h"
#include "kjson.h"

/* The callbacks write one event per token into log:
 * { } [ ] K(key) S(string) N(number text) T F Z; bytes outside
 * printable ASCII (and the parentheses' own backslash) as \xHH. */
typedef struct rec {
  char log[8192];
  size_t len;
  int cancel_at;            /* cancel (return 0) at this event number, 1-based; 0 never */
  int events;
} rec;

static int put(rec *r, const char *ev, const unsigned char *s, size_t n)
{
  size_t room = sizeof r->log - r->len;
  int w = snprintf(r->log + r->len, room, "%s%s", r->len ? " " : "", ev);
  r->len += (size_t)w;
  if (s) {
    for (size_t i = 0; i < n; i++) {
      room = sizeof r->log - r->len;
      if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
        w = snprintf(r->log + r->len, room, "%c", s[i]);
      else
        w = snprintf(r->log + r->len, room, "\\x%02X", s[i]);
      r->len += (size_t)w;
    }
    room = sizeof r->log - r->len;
    r->len += (size_t)snprintf(r->log + r->len, room, ")");
  }
  assert_true(r->len < sizeof r->log - 16);
  return ++r->events != r->cancel_at;
}

static int cb_null(void *c) { return put(c, "Z", NULL, 0); }
static int cb_bool(void *c, int b) { return put(c, b ? "T" : "F", NULL, 0); }
static int cb_number(void *c, const char *s, size_t n) { return put(c, "N(", (const unsigned char *)s, n); }
static int cb_string(void *c, const unsigned char *s, size_t n) { return put(c, "S(", s, n); }
static int cb_start_map(void *c) { return put(c, "{", NULL, 0); }
static int cb_key(void *c, const unsigned char *s, size_t n) { return put(c, "K(", s, n); }
static int cb_end_map(void *c) { return put(c, "}", NULL, 0); }
static int cb_start_array(void *c) { return put(c, "[", NULL, 0); }
static int cb_end_array(void *c) { return put(c, "]", NULL, 0); }

static const yajl_callbacks cbs = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array,
};

/* The input in chunks of at most `chunk` bytes; fails at `fail_at` bytes. */
typedef struct src {
  const char *text;
  size_t len, off, chunk;
  size_t fail_at;           /* 0: never */
  unsigned char buf[4096];  /* a copy per chunk: the reader must not keep pointers into it */
} src;

static int rd(void *ctx, const unsigned char **buf, uint64_t fed)
{
  src *s = ctx;
  assert_int_equal(fed, s->off);
  if (s->fail_at && s->off >= s->fail_at)
    return -1;
  size_t n = s->len - s->off;
  if (n > s->chunk)
    n = s->chunk;
  if (n > sizeof s->buf)
    n = sizeof s->buf;
  memcpy(s->buf, s->text + s->off, n);
  memset(s->buf + n, 0xAA, sizeof s->buf - n);    /* no reading past the chunk */
  s->off += n;
  *buf = s->buf;
  return (int)n;
}

/* Parse text in chunks of `chunk` bytes into r; the KJ_* status. */
static int parse(const char *text, size_t len, size_t chunk, rec *r, uint64_t *at, const char **msg)
{
  static src s;
  memset(&s, 0, sizeof s);
  s.text = text;
  s.len = len;
  s.chunk = chunk;
  int cancel = r->cancel_at;
  memset(r, 0, sizeof *r);
  r->cancel_at = cancel;
  return kjson_run(&cbs, r, rd, &s, at, msg);
}

/* text gives status want and exactly the events `log`, for every chunk
 * size from 1 byte to the whole text: a token cut anywhere reads the same. */
static void expect(const char *text, int want, const char *log)
{
  size_t len = strlen(text);
  for (size_t chunk = 1; chunk <= len + 1; chunk++) {
    rec r = {0};
    uint64_t at = 0;
    const char *msg = NULL;
    int rc = parse(text, len, chunk, &r, &at, &msg);
    if (rc != want || strcmp(r.log, log) != 0)
      fail_msg("input %s, chunk %zu: status %d (want %d), events\n  got  '%s'\n  want '%s'",
               text, chunk, rc, want, r.log, log);
    if (rc == KJ_OK)
      assert_int_equal(at, len);
  }
}

static void test_values(void **state)
{
  (void)state;
  expect("{\"a\":[1,-2.5e+3,true,false,null],\"b\":{},\"c\":[]}", KJ_OK,
         "{ K(a) [ N(1) N(-2.5e+3) T F Z ] K(b) { } K(c) [ ] }");
  expect(" \t\r\n[ {} , [[]] , \"\" ]\n ", KJ_OK, "[ { } [ [ ] ] S() ]");
  /* long blank runs (pretty-printed traces), cut at every chunk size */
  expect("{\n                                    \"a\":\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t[\r\n"
         "       1,                    2   \n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n ]\n}      "
         "                                         ", KJ_OK, "{ K(a) [ N(1) N(2) ] }");
  /* numbers are handed over as their text */
  expect("[0,-0,12.50,1E5,-1e-7,0.0e0,123456789012345678901234567890]", KJ_OK,
         "[ N(0) N(-0) N(12.50) N(1E5) N(-1e-7) N(0.0e0) N(123456789012345678901234567890) ]");
  /* a top-level scalar ends at the end of the input */
  expect("42", KJ_OK, "N(42)");
  expect("-7.25e3", KJ_OK, "N(-7.25e3)");
  expect("true", KJ_OK, "T");
  expect("null ", KJ_OK, "Z");
  expect("\"x\"", KJ_OK, "S(x)");
  /* empty input: no value, no error (as an empty file) */
  expect("", KJ_OK, "");
}

static void test_escapes(void **state)
{
  (void)state;
  expect("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"]", KJ_OK,
         "[ S(a\"b\\x5Cc/d\\x08\\x0C\\x0A\\x0D\\x09) ]");
  /* an escaped key, and a key in the window next to an escaped value */
  expect("{\"k\\u0041\":\"v\\u0042\",\"plain\":\"\\n\"}", KJ_OK, "{ K(kA) S(vB) K(plain) S(\\x0A) }");
  /* \u escapes as UTF-8: 2 and 3 bytes, upper- and lower-case hex */
  expect("\"\\u00e9\\u20AC\\u0000\"", KJ_OK, "S(\\xC3\\xA9\\xE2\\x82\\xAC\\x00)");
  /* a surrogate pair is one 4-byte character */
  expect("\"<\\ud83d\\ude00>\"", KJ_OK, "S(<\\xF0\\x9F\\x98\\x80>)");
  /* a high surrogate alone is '?' (as yajl 2.1); a low one alone its 3 bytes */
  expect("\"\\ud800x\"", KJ_OK, "S(?x)");
  expect("\"\\ud800\"", KJ_OK, "S(?)");
  expect("\"\\udc00\"", KJ_OK, "S(\\xED\\xB0\\x80)");
  /* non-ASCII bytes pass through untouched (not checked for UTF-8) */
  expect("\"\xc3\xa9\xff\"", KJ_OK, "S(\\xC3\\xA9\\xFF)");
}

/* A string longer than a chunk, with its only escape at the end, in
 * chunks of 1000: read through the window growing, decoded once. */
static void test_long_string(void **state)
{
  (void)state;
  static char text[6100], want[6200];
  size_t n = 0;
  text[n++] = '[';
  text[n++] = '"';
  for (int i = 0; i < 6000; i++)
    text[n++] = (char)('a' + i % 26);
  memcpy(text + n, "\\t\"]", 5);
  n += 4;
  size_t w = (size_t)snprintf(want, sizeof want, "[ S(");
  for (int i = 0; i < 6000; i++)
    want[w++] = (char)('a' + i % 26);
  memcpy(want + w, "\\x09) ]", 8);
  size_t chunks[] = {1000, 7, 4096};
  for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
    rec r = {0};
    uint64_t at = 0;
    const char *msg = NULL;
    assert_int_equal(parse(text, n, chunks[i], &r, &at, &msg), KJ_OK);
    assert_string_equal(r.log, want);
    assert_int_equal(at, n);
  }
}

/* text (in chunks of 1 and whole) fails with status want at offset want_at
 * with message want_msg (NULL: none); events before it are `log`. */
static void expect_err(const char *text, int want, uint64_t want_at, const char *want_msg,
                       const char *log)
{
  size_t len = strlen(text), chunks[] = {1, 3, len + 1};
  for (size_t i = 0; i < 3; i++) {
    rec r = {0};
    uint64_t at = 99999;
    const char *msg = NULL;
    int rc = parse(text, len, chunks[i], &r, &at, &msg);
    if (rc != want || at != want_at || strcmp(r.log, log) != 0 ||
        (want_msg ? !msg || strcmp(msg, want_msg) : msg != NULL))
      fail_msg("input %s, chunk %zu: status %d at %llu msg '%s' events '%s'; want %d at %llu '%s' '%s'",
               text, chunks[i], rc, (unsigned long long)at, msg ? msg : "(none)", r.log, want,
               (unsigned long long)want_at, want_msg ? want_msg : "(none)", log);
  }
}

static void test_errors(void **state)
{
  (void)state;
  expect_err("{\"a\":", KJ_TRUNCATED, 5, NULL, "{ K(a)");
  expect_err("[1, \"ab", KJ_TRUNCATED, 7, NULL, "[ N(1)");
  expect_err("tru", KJ_MALFORMED, 0, "an invalid literal (not true, false or null)", "");
  expect_err("{\"a\" 1}", KJ_MALFORMED, 5, "an object key without ':' after it", "{ K(a)");
  expect_err("{1:2}", KJ_MALFORMED, 1, "an object key that is not a string", "{");
  expect_err("[1 2]", KJ_MALFORMED, 3, "expected ',' or ']' after an array element", "[ N(1)");
  expect_err("{\"a\":1]", KJ_MALFORMED, 6, "expected ',' or '}' after an object member", "{ K(a) N(1)");
  expect_err("[1] x", KJ_MALFORMED, 4, "more text after the JSON value", "[ N(1) ]");
  expect_err("[1,]", KJ_MALFORMED, 3, "a value expected here", "[ N(1)");
  /* a control character among blanks ends them */
  expect_err("[1,                        \v    2]", KJ_MALFORMED, 27, "a value expected here",
             "[ N(1)");
  /* a leading zero ends the number; the next digit is a second token */
  expect_err("[01]", KJ_MALFORMED, 2, "expected ',' or ']' after an array element", "[ N(0)");
  expect_err("[-]", KJ_MALFORMED, 1, "a number without a digit after its minus sign", "[");
  expect_err("[1.]", KJ_MALFORMED, 1, "a number without a digit after its decimal point", "[");
  expect_err("[1e+]", KJ_MALFORMED, 1, "a number without a digit in its exponent", "[");
  expect_err("[\"a\tb\"]", KJ_MALFORMED, 1, "a control character inside a string (escape it)", "[");
  expect_err("[\"\\x\"]", KJ_MALFORMED, 1, "an invalid escape in a string", "[");
  expect_err("[\"\\u12g4\"]", KJ_MALFORMED, 1, "a \\u escape without 4 hex digits", "[");
}

/* A callback returning 0 stops the parse at the end of its token. */
static void test_cancel(void **state)
{
  (void)state;
  const char *text = "{\"a\":[10,200],\"b\":3}";
  for (size_t chunk = 1; chunk <= strlen(text); chunk++) {
    rec r = {0};
    r.cancel_at = 4;        /* { K(a) [ N(10) */
    uint64_t at = 0;
    const char *msg = NULL;
    assert_int_equal(parse(text, strlen(text), chunk, &r, &at, &msg), KJ_CANCELED);
    assert_string_equal(r.log, "{ K(a) [ N(10)");
    assert_int_equal(at, 8);
  }
}

/* The source failing: KJ_READ, after the events of what was read. */
static void test_read_error(void **state)
{
  (void)state;
  static src s;
  const char *text = "[1,2,3]";
  memset(&s, 0, sizeof s);
  s.text = text;
  s.len = strlen(text);
  s.chunk = 2;
  s.fail_at = 4;
  rec r = {0};
  uint64_t at = 0;
  const char *msg = NULL;
  assert_int_equal(kjson_run(&cbs, &r, rd, &s, &at, &msg), KJ_READ);
  assert_string_equal(r.log, "[ N(1)");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_escapes),
    cmocka_unit_test(test_long_string),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_cancel),
    cmocka_unit_test(test_read_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
