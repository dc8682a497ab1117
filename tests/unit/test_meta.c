/* test_meta.c - rocpd_metadata get/set/add/clear. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_fixture.h"

typedef fx_trace fx;

static int setup(void **state) { return fx_trace_setup(state, fx_v2_ddl, RPD_WRITE); }
static int setup_ro(void **state) { return fx_trace_setup(state, fx_v2_ddl, RPD_READ); }

static int64_t rows(fx *f, const char *tag)
{
  sqlite3_stmt *st;
  int64_t n = -1;

  if (rpd_prepare(f->r, "SELECT count(*) FROM rocpd_metadata WHERE tag = ?", &st)) return -1;
  sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
  if (rpd_step(f->r, st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

static void test_get(void **state)
{
  fx *f = *state;
  char *v = (char *)1;

  assert_int_equal(rpd_meta_get(f->r, "schema_version", &v), RPD_OK);
  assert_string_equal(v, "2");
  free(v);
  v = (char *)1;
  assert_int_equal(rpd_meta_get(f->r, "Callstack::Generated", &v), RPD_ENOTFOUND);
  assert_null(v);
  assert_int_equal(rpd_meta_get(f->r, "SCHEMA_VERSION", &v), RPD_ENOTFOUND);
}

static void test_set_add_clear(void **state)
{
  fx *f = *state;
  char *v = NULL;

  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_meta_add(f->r, "t", "a"), RPD_OK);
  assert_int_equal(rpd_meta_add(f->r, "t", "a"), RPD_OK);    /* exact pair: no duplicate */
  assert_int_equal(rows(f, "t"), 1);
  assert_int_equal(rpd_meta_add(f->r, "t", "b"), RPD_OK);
  assert_int_equal(rows(f, "t"), 2);
  assert_int_equal(rpd_meta_get(f->r, "t", &v), RPD_OK);
  assert_string_equal(v, "a");                              /* the first row */
  free(v);
  assert_int_equal(rpd_meta_set(f->r, "t", "c"), RPD_OK);
  assert_int_equal(rows(f, "t"), 1);
  assert_int_equal(rpd_meta_get(f->r, "t", &v), RPD_OK);
  assert_string_equal(v, "c");
  free(v);
  assert_int_equal(rpd_meta_set(f->r, "t", "c"), RPD_OK);
  assert_int_equal(rows(f, "t"), 1);
  /* hostile text is data */
  const char *h = "x'); DELETE FROM rocpd_metadata; --";
  assert_int_equal(rpd_meta_set(f->r, h, h), RPD_OK);
  assert_int_equal(rpd_meta_get(f->r, h, &v), RPD_OK);
  assert_string_equal(v, h);
  free(v);
  assert_int_equal(rows(f, "schema_version"), 1);
  assert_int_equal(rpd_meta_clear(f->r, "t"), RPD_OK);
  assert_int_equal(rows(f, "t"), 0);
  assert_int_equal(rpd_meta_clear(f->r, "t"), RPD_OK);
  assert_int_equal(rpd_meta_get(f->r, "t", &v), RPD_ENOTFOUND);
  assert_int_equal(rows(f, "schema_version"), 1);
  assert_int_equal(rpd_commit(f->r), RPD_OK);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_metadata"), 2);
}

static void test_missing_table(void **state)
{
  fx *f = *state;
  char *v = NULL;

  assert_int_equal(rpd_exec(f->r, "DROP TABLE rocpd_metadata"), RPD_OK);
  assert_int_equal(rpd_meta_get(f->r, "schema_version", &v), RPD_ENOTFOUND);
  assert_null(v);
  assert_int_equal(rpd_meta_clear(f->r, "x"), RPD_OK);
  assert_int_equal(rpd_table_exists(f->r, "rocpd_metadata"), 0);
  assert_int_equal(rpd_meta_set(f->r, "Graph::Generated", "True"), RPD_OK);
  assert_int_equal(rpd_column_exists(f->r, "rocpd_metadata", "value"), 1);
  assert_int_equal(rpd_meta_get(f->r, "Graph::Generated", &v), RPD_OK);
  assert_string_equal(v, "True");
  free(v);
  assert_int_equal(rpd_exec(f->r, "DROP TABLE rocpd_metadata"), RPD_OK);
  assert_int_equal(rpd_meta_add(f->r, "a", "b"), RPD_OK);
  assert_int_equal(rows(f, "a"), 1);
}

static void test_read_only(void **state)
{
  fx *f = *state;
  char *v = NULL;

  assert_int_equal(rpd_meta_get(f->r, "schema_version", &v), RPD_OK);
  assert_string_equal(v, "2");
  free(v);
  assert_int_equal(rpd_meta_set(f->r, "x", "y"), RPD_EROFS);
  assert_int_equal(rpd_meta_add(f->r, "x", "y"), RPD_EROFS);
  assert_int_equal(rpd_meta_clear(f->r, "schema_version"), RPD_EROFS);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_get, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_set_add_clear, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_missing_table, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_read_only, setup_ro, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
