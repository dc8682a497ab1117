/* test_rocprof_reader.c - rpd_set_import_reader and rpd_create_memory: a
 * registered reader is called for a read-only open of a rocprofv3
 * database or of a file that is not SQLite (writers, RPD_ANYDB keep the
 * rpd-import hint; a file the reader says is not its format, RPD_ENOTDB,
 * keeps the open's own message: rocprofv3 JSON its hint), its handle is
 * the open's, its failure the open's; the file is never changed and no
 * temp file is left. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core_fixture.h"

static int calls;
static const char *fail_with;

static int reader(const char *path, void *arg, rpd **out)
{
  int rc;

  char head[16] = {0};
  FILE *f = fopen(path, "rb");

  calls++;
  assert_string_equal((const char *)arg, "arg");
  if (f) {
    if (fread(head, 1, sizeof head - 1, f)) { /* what it holds is tested below */ }
    fclose(f);
  }
  /* the formats this reader reads: SQLite, and JSON starting {"traceEvents" */
  if (strncmp(head, "SQLite format 3", 15) && strncmp(head, "{\"traceEvents\"", 14))
    return RPD_ENOTDB;
  if (fail_with) return rpd_seterr(RPD_ENOTRPD, "%s", fail_with);
  if ((rc = rpd_create_memory(out, path))) return rc;
  return rpd_exec(*out, "INSERT INTO rocpd_string(string) VALUES ('from the reader')");
}

/* rpd_open(path, flags) fails with rc and a message holding msg; the file
 * is unchanged and dir/tmp hold what they held. */
static void expect_fail(const char *dir, const char *tmp, const char *path, int flags,
                        int rc, const char *msg)
{
  char *copy = fx_path(dir, "copy.before");
  int nd, nt;
  rpd *r = (rpd *)1;

  fx_copy(path, copy);
  nd = fx_entries(dir);
  nt = fx_entries(tmp);
  assert_int_equal(rpd_open(&r, path, NULL, flags), rc);
  assert_null(r);
  if (!strstr(rpd_errmsg(), msg)) fail_msg("'%s' lacks '%s'", rpd_errmsg(), msg);
  assert_true(fx_same_bytes(copy, path));
  assert_int_equal(fx_entries(dir), nd);
  assert_int_equal(fx_entries(tmp), nt);
  unlink(copy);
  free(copy);
}

static void test_reader_hook(void **state)
{
  char *dir = fx_mkdtemp(), *tmp = fx_path(dir, "tmp");
  char *p = fx_path(dir, "results.db"), *j = fx_path(dir, "x_results.json");
  char *k = fx_path(dir, "t.pt.trace.json");
  int64_t n = 0;
  rpd *r = NULL;
  (void)state;

  mkdir(tmp, 0700);
  setenv("TMPDIR", tmp, 1);
  assert_int_equal(fx_make_db(p, "CREATE TABLE rocpd_info_node_0a(id);"
                                 "CREATE TABLE rocpd_kernel_dispatch_0a(id);"), 0);
  fx_write(j, "{\"rocprofiler-sdk-tool\": []}\n", 29);
  /* no reader: today's hint */
  expect_fail(dir, tmp, p, RPD_READ, RPD_EROCPROF, "convert it with: rpd-import");
  rpd_set_import_reader(reader, "arg");
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ), RPD_OK);
  assert_int_equal(calls, 1);
  assert_string_equal(rpd_path(r), p);
  assert_null(rpd_work_path(r));
  assert_null(rpd_uri(r));
  assert_int_equal(rpd_schema(r), 3);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_string"
                                      " WHERE string = 'from the reader'", &n), RPD_OK);
  assert_int_equal(n, 1);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(fx_entries(tmp), 0);
  /* writers, RPD_ANYDB and JSON: not the reader's */
  expect_fail(dir, tmp, p, RPD_WRITE, RPD_EROCPROF, "convert it with: rpd-import");
  expect_fail(dir, tmp, j, RPD_READ, RPD_EROCPROF, "rocprofv3 JSON");
  assert_int_equal(calls, 2);   /* the reader was asked about the JSON: not its */
  assert_int_equal(rpd_open(&r, p, NULL, RPD_READ | RPD_ANYDB), RPD_OK);
  assert_int_equal(rpd_schema(r), 0);
  rpd_close(r, 0);
  assert_int_equal(calls, 2);
  /* a file that is not SQLite but one of the reader's formats: its trace */
  fx_write(k, "{\"traceEvents\": []}\n", 20);
  assert_int_equal(rpd_open(&r, k, NULL, RPD_READ), RPD_OK);
  assert_int_equal(calls, 3);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_string"
                                      " WHERE string = 'from the reader'", &n), RPD_OK);
  assert_int_equal(n, 1);
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  expect_fail(dir, tmp, k, RPD_WRITE, RPD_ENOTDB, "not an SQLite database");
  assert_int_equal(calls, 3);
  /* neither: the open's own message */
  fx_write(k, "hello\n", 6);
  expect_fail(dir, tmp, k, RPD_READ, RPD_ENOTDB, "not an SQLite database");
  assert_int_equal(calls, 4);
  calls = 1;
  /* its failure is the open's */
  fail_with = "incomplete rocprofv3 database: no table 'x'";
  expect_fail(dir, tmp, p, RPD_READ, RPD_ENOTRPD, "incomplete rocprofv3 database");
  assert_int_equal(calls, 2);
  fail_with = NULL;
  rpd_set_import_reader(NULL, NULL);
  expect_fail(dir, tmp, p, RPD_READ, RPD_EROCPROF, "convert it with: rpd-import");
  assert_int_equal(calls, 2);
  unsetenv("TMPDIR");
  fx_rm_tree(dir);
  free(dir);
  free(tmp);
  free(p);
  free(j);
  free(k);
}

/* rpd_create_memory: an empty schema-3 trace, writable, nothing on disk
 * for a small one; a big one spills to an unnamed file, none left. */
static void test_create_memory(void **state)
{
  char *dir = fx_mkdtemp();
  int64_t n = 0;
  rpd *r = NULL;
  (void)state;

  setenv("TMPDIR", dir, 1);
  assert_int_equal(rpd_create_memory(&r, "shown.db"), RPD_OK);
  assert_string_equal(rpd_path(r), "shown.db");
  assert_int_equal(rpd_schema(r), 3);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_op", &n), RPD_OK);
  assert_int_equal(n, 0);
  /* 100 MB of rows: past the 64 MiB cache */
  assert_int_equal(rpd_exec(r, "BEGIN; WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL"
                               " SELECT i + 1 FROM c WHERE i < 100000)"
                               " INSERT INTO rocpd_ustring(string) SELECT printf('%.1000d', i)"
                               " FROM c; COMMIT"), RPD_OK);
  assert_int_equal(rpd_query_int64(r, "SELECT count(*) FROM rocpd_ustring", &n), RPD_OK);
  assert_int_equal(n, 100000);
  assert_int_equal(fx_entries(dir), 0);     /* unnamed: unlinked at once */
  assert_int_equal(rpd_close(r, 0), RPD_OK);
  assert_int_equal(fx_entries(dir), 0);
  unsetenv("TMPDIR");
  fx_rm_tree(dir);
  free(dir);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reader_hook),
    cmocka_unit_test(test_create_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
