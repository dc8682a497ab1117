/* test_out_table.c - the aligned table writer with flat memory: rows past
 * RPD_OUT_SPILL_BYTES of cell text wait in an unnamed temp file in $TMPDIR
 * and print after the widths of every row are known.  Checks exact output
 * (a wide value arriving last, NULLs, UTF-8 widths), spilled output equal
 * to the in-memory output for many rows (push API and rpd_out_stmt), that
 * the spill really goes to a temp file in $TMPDIR and leaves no name
 * there, and that a missing $TMPDIR still gives the same table. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_fixture.h"

static char tmpdir[] = "/tmp/test_out_table-XXXXXX";

/* Number of entries (besides . and ..) in dir. */
static int dir_entries(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  assert_non_null(d);
  while ((e = readdir(d)))
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* Open descriptors of this process that name a file inside dir. */
static int fds_in(const char *dir)
{
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  char link[4096], path[300];
  size_t len = strlen(dir);
  int n = 0;
  if (!d)
    return -1;
  while ((e = readdir(d))) {
    ssize_t k;
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    k = readlink(path, link, sizeof link - 1);
    if (k <= 0)
      continue;
    link[k] = '\0';
    n += strncmp(link, dir, len) == 0 && link[len] == '/';
  }
  closedir(d);
  return n;
}

static int setup(void **state)
{
  (void)state;
  if (!mkdtemp(tmpdir))
    return -1;
  setenv("TMPDIR", tmpdir, 1);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  unsetenv("RPD_OUT_SPILL_BYTES");
  return rmdir(tmpdir);
}

/* The small table of the exact checks, with a spill threshold (NULL: the
 * default, all in memory). */
static char *small_table(const char *spill)
{
  FILE *f = tmpfile();
  const char *names[] = {"name", "n", "note"};
  char *text;
  if (spill)
    setenv("RPD_OUT_SPILL_BYTES", spill, 1);
  else
    unsetenv("RPD_OUT_SPILL_BYTES");
  rpd_out *o = rpd_out_new(f, RPD_FMT_TABLE, 3, names);
  rpd_out_str(o, "a");
  rpd_out_int(o, 1);
  rpd_out_null(o);
  rpd_out_endrow(o);
  rpd_out_str(o, "\xe6\x97\xa5\xe6\x9c\xac");      /* two CJK characters */
  rpd_out_int(o, 22);
  rpd_out_str(o, "x");
  rpd_out_endrow(o);
  rpd_out_endrow(o);                                /* all NULL */
  rpd_out_str(o, "caf\xc3\xa9 wide value");         /* widest, and last */
  rpd_out_int(o, 333);
  rpd_out_str(o, "z");
  rpd_out_endrow(o);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  fclose(f);
  return text;
}

static void test_exact_small(void **state)
{
  static const char want[] =
    "name               n  note\n"
    "---------------  ---  ----\n"
    "a                  1\n"
    "\xe6\x97\xa5\xe6\x9c\xac                22  x\n"
    "\n"
    "caf\xc3\xa9 wide value  333  z\n";
  const char *spills[] = {NULL, "1", "7", "40"};
  (void)state;
  for (size_t i = 0; i < sizeof spills / sizeof *spills; i++) {
    char *text = small_table(spills[i]);
    assert_string_equal(text, want);
    free(text);
  }
  assert_int_equal(dir_entries(tmpdir), 0);
}

/* A cell wider than the padding cap (512 characters) is printed whole on
 * its own line and pads no other row: a 100,000-character name used to
 * pad every row of the table to 100,000 blanks. */
static void test_pad_cap(void **state)
{
  const char *names[] = {"name", "n"};
  char *huge = rpd_xmalloc(100001), *text, *want;
  FILE *f = tmpfile();
  (void)state;
  memset(huge, 'k', 100000);
  huge[100000] = 0;
  rpd_out *o = rpd_out_new(f, RPD_FMT_TABLE, 2, names);
  rpd_out_str(o, "short");
  rpd_out_int(o, 1);
  rpd_out_endrow(o);
  rpd_out_str(o, huge);
  rpd_out_int(o, 22);
  rpd_out_endrow(o);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  want = rpd_xasprintf("name%508s   n\n%.512s  --\nshort%507s   1\n%s  22\n", "",
                       huge, "", huge);
  memset(want + 517, '-', 512);   /* the dashes: after "name...n\n" */
  assert_int_equal(strlen(text), strlen(want));
  assert_string_equal(text, want);
  free(want);
  free(text);
  free(huge);
  fclose(f);
}

/* A many-row table through the push API; row i's text is derived from i,
 * the widest cell of columns 0 and 2 comes in the last rows. */
static char *many_rows(int nrows, const char *spill, int *fds_while_open)
{
  FILE *f = tmpfile();
  const char *names[] = {"kernel", "calls", "mean_us", "note"};
  char name[64], *text;
  if (spill)
    setenv("RPD_OUT_SPILL_BYTES", spill, 1);
  else
    unsetenv("RPD_OUT_SPILL_BYTES");
  rpd_out *o = rpd_out_new(f, RPD_FMT_TABLE, 4, names);
  for (int i = 0; i < nrows; i++) {
    if (i == nrows - 1)
      snprintf(name, sizeof name, "k%d_\xc3\xa9\xc3\xa9\xc3\xa9_the_longest_name_of_all", i);
    else
      snprintf(name, sizeof name, i % 3 ? "k%d" : "k%d_\xe2\x82\xac", i);
    rpd_out_str(o, name);
    rpd_out_int(o, (int64_t)i * 7);
    if (i % 5 == 0)
      rpd_out_null(o);
    else
      rpd_out_double(o, i / 8.0, i == nrows - 2 ? 9 : 3);
    rpd_out_str(o, i % 11 ? "tab\there" : NULL);
    rpd_out_endrow(o);
  }
  if (fds_while_open)
    *fds_while_open = fds_in(tmpdir);
  assert_int_equal(rpd_out_end(o), RPD_OK);
  text = fx_stream_text(f);
  fclose(f);
  return text;
}

static int count_lines(const char *s)
{
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void test_many_rows_spilled(void **state)
{
  const int n = 60000;
  int fds = -1;
  char *mem, *spilled, *dashes;
  (void)state;

  mem = many_rows(n, NULL, NULL);
  assert_int_equal(count_lines(mem), n + 2);
  /* widths from the last rows: the name of row 59999 (34 code points),
   * calls 419993 (6), mean_us of row 59998 with 9 digits (14), the note
   * "tab here" (8) */
  assert_int_equal(strncmp(mem, "kernel", 6), 0);
  assert_int_equal(strspn(mem + 6, " "), 34 - 6 + 2 + 1);
  dashes = strchr(mem, '\n') + 1;
  assert_int_equal(strncmp(dashes,
    "----------------------------------  ------  --------------  --------\n",
    34 + 2 + 6 + 2 + 14 + 2 + 8 + 1), 0);
  assert_non_null(strstr(mem, "\nk59999_\xc3\xa9\xc3\xa9\xc3\xa9_the_longest_name_of_all"
                              "  419993        7499.875  tab here\n"));
  assert_non_null(strstr(mem, "\nk59998                              419986  7499.750000000"
                              "  tab here\n"));

  spilled = many_rows(n, "65536", &fds);
  assert_int_equal(fds, 1);                         /* one temp file, in TMPDIR */
  assert_int_equal(dir_entries(tmpdir), 0);         /* ... with no name */
  assert_int_equal(strlen(spilled), strlen(mem));
  assert_string_equal(spilled, mem);
  free(spilled);

  fds = -1;
  spilled = many_rows(n, NULL, &fds);
  assert_int_equal(fds, 0);                         /* below 4 MB: memory only */
  free(spilled);
  free(mem);
}

static void test_missing_tmpdir(void **state)
{
  const int n = 20000;
  char *mem, *spilled;
  int fds = -1;
  (void)state;
  mem = many_rows(n, NULL, NULL);
  setenv("TMPDIR", "/nonexistent/test_out_table", 1);
  spilled = many_rows(n, "1000", &fds);
  setenv("TMPDIR", tmpdir, 1);
  assert_int_equal(fds, 0);
  assert_string_equal(spilled, mem);
  free(spilled);
  free(mem);
}

/* rpd_out_stmt with a spill every few rows: the widest value is in the
 * last row of the statement, NULLs in between. */
static void test_stmt_spilled(void **state)
{
  sqlite3 *db;
  sqlite3_stmt *st;
  char *text[2];
  (void)state;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  for (int k = 0; k < 2; k++) {
    FILE *f = tmpfile();
    if (k)
      setenv("RPD_OUT_SPILL_BYTES", "300", 1);
    else
      unsetenv("RPD_OUT_SPILL_BYTES");
    assert_int_equal(sqlite3_prepare_v2(db,
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
      " SELECT i, CASE WHEN i % 4 THEN 'r' || i END AS label, i * 0.5 AS half,"
      " CASE WHEN i = 5000 THEN 'very ' || 'wide ' || 'last ' || 'value' END AS tail"
      " FROM n ORDER BY i", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(rpd_out_stmt(NULL, st, f, RPD_FMT_TABLE), RPD_OK);
    sqlite3_finalize(st);
    text[k] = fx_stream_text(f);
    fclose(f);
  }
  assert_string_equal(text[1], text[0]);
  assert_int_equal(count_lines(text[0]), 5002);
  {
    static const char head[] =
      "   i  label    half  tail\n"
      "----  -----  ------  --------------------\n"
      "   1  r1        0.5\n";
    assert_int_equal(strncmp(text[0], head, strlen(head)), 0);
  }
  assert_non_null(strstr(text[0], "\n5000         2500.0  very wide last value\n"));
  assert_non_null(strstr(text[0], "\n   4            2.0\n"));   /* NULL label */
  free(text[0]);
  free(text[1]);
  sqlite3_close(db);
  assert_int_equal(dir_entries(tmpdir), 0);
}

/* A spilled table written to a full device: RPD_EIO, no crash. */
static void test_spilled_write_error(void **state)
{
  FILE *f = fopen("/dev/full", "w");
  const char *names[] = {"a", "b"};
  (void)state;
  if (!f)
    skip();
  setenv("RPD_OUT_SPILL_BYTES", "100", 1);
  rpd_out *o = rpd_out_new(f, RPD_FMT_TABLE, 2, names);
  for (int i = 0; i < 10000; i++) {
    rpd_out_int(o, i);
    rpd_out_str(o, "text");
    rpd_out_endrow(o);
  }
  assert_int_equal(rpd_out_end(o), RPD_EIO);
  fclose(f);
  unsetenv("RPD_OUT_SPILL_BYTES");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_small),
    cmocka_unit_test(test_pad_cap),
    cmocka_unit_test(test_many_rows_spilled),
    cmocka_unit_test(test_missing_tmpdir),
    cmocka_unit_test(test_stmt_spilled),
    cmocka_unit_test(test_spilled_write_error),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
