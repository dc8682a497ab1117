/* test_strtab.c - string interning over rocpd_string / rocpd_ustring. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_fixture.h"

typedef fx_trace fx;

static int setup2(void **state) { return fx_trace_setup(state, fx_v2_ddl, RPD_WRITE); }
static int setup3(void **state) { return fx_trace_setup(state, fx_v3_ddl, RPD_WRITE); }
static int setup2ro(void **state) { return fx_trace_setup(state, fx_v2_ddl, RPD_READ); }

static int64_t count(fx *f, const char *table)
{
  int64_t n = -1;
  char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", table);

  rpd_query_int64(f->r, sql, &n);
  sqlite3_free(sql);
  return n;
}

static void test_bad_table(void **state)
{
  fx *f = *state;
  rpd_strtab *t = (rpd_strtab *)1;

  assert_int_equal(rpd_strtab_open(f->r, "rocpd_api", &t), RPD_ERR);
  assert_null(t);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string; DROP TABLE x", &t), RPD_ERR);
  /* v2 has no rocpd_ustring */
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_ustring", &t), RPD_ENOTRPD);
  assert_null(t);
}

static void test_find_and_insert(void **state)
{
  fx *f = *state;
  rpd_strtab *t;
  int64_t id = 0, id2 = 0;

  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  assert_int_equal(rpd_strtab_find(t, "hipLaunchKernel", &id), RPD_OK);
  assert_int_equal(id, 2);
  assert_int_equal(rpd_strtab_find(t, "", &id), RPD_OK);
  assert_int_equal(id, 1);
  assert_int_equal(rpd_strtab_find(t, "HIPLAUNCHKERNEL", &id), RPD_ENOTFOUND);
  assert_int_equal(rpd_strtab_find(t, "new one", &id), RPD_ENOTFOUND);
  assert_int_equal(count(f, "rocpd_string"), 5);
  /* insert */
  assert_int_equal(rpd_strtab_id(t, "new one", &id), RPD_OK);
  assert_int_equal(id, 6);
  assert_int_equal(count(f, "rocpd_string"), 6);
  assert_int_equal(rpd_strtab_id(t, "new one", &id2), RPD_OK);
  assert_int_equal(id2, 6);
  assert_int_equal(rpd_strtab_find(t, "new one", &id2), RPD_OK);
  assert_int_equal(id2, 6);
  assert_int_equal(count(f, "rocpd_string"), 6);
  /* existing strings are never re-inserted */
  assert_int_equal(rpd_strtab_id(t, "gemm_kernel", &id), RPD_OK);
  assert_int_equal(id, 4);
  assert_int_equal(count(f, "rocpd_string"), 6);
  /* awkward text round-trips */
  const char *odd = "it's \"quoted\" | a = b; DROP TABLE x; -- \xc3\xa9\xe2\x82\xac";
  assert_int_equal(rpd_strtab_id(t, odd, &id), RPD_OK);
  sqlite3_stmt *st;
  assert_int_equal(rpd_prepare(f->r, "SELECT string FROM rocpd_string WHERE id = ?", &st), RPD_OK);
  sqlite3_bind_int64(st, 1, id);
  assert_int_equal(rpd_step(f->r, st), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(st, 0), odd);
  sqlite3_finalize(st);
  /* a prefix or extension of a cached string is a different string */
  assert_int_equal(rpd_strtab_find(t, "new on", &id), RPD_ENOTFOUND);
  assert_int_equal(rpd_strtab_find(t, "new one!", &id), RPD_ENOTFOUND);
  rpd_strtab_free(t);
  assert_int_equal(rpd_commit(f->r), RPD_OK);
  assert_int_equal(fx_q(f->path, "SELECT id FROM rocpd_string WHERE string = 'new one'"), 6);
}

static void test_cache_is_used(void **state)
{
  fx *f = *state;
  rpd_strtab *t;
  int64_t id = 0;

  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  assert_int_equal(rpd_strtab_find(t, "KernelExecution", &id), RPD_OK);
  assert_int_equal(id, 3);
  /* behind the table's back: the cached answer stays */
  assert_int_equal(rpd_exec(f->r, "UPDATE rocpd_string SET string = 'other' WHERE id = 3"), RPD_OK);
  assert_int_equal(rpd_strtab_find(t, "KernelExecution", &id), RPD_OK);
  assert_int_equal(id, 3);
  /* but an untouched string is looked up in the database */
  assert_int_equal(rpd_strtab_find(t, "other", &id), RPD_OK);
  assert_int_equal(id, 3);
  rpd_strtab_free(t);
}

static void test_many_strings(void **state)
{
  fx *f = *state;
  rpd_strtab *t, *t2;
  int64_t id = 0, first = 0;
  char s[64];

  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  for (int i = 0; i < 30000; i++) {
    snprintf(s, sizeof s, "kernel_%d<float, %d>", i, i % 7);
    assert_int_equal(rpd_strtab_id(t, s, &id), RPD_OK);
    if (i == 0) first = id;
    assert_int_equal(id, first + i);
  }
  /* all again: no new rows */
  for (int i = 0; i < 30000; i += 3) {
    snprintf(s, sizeof s, "kernel_%d<float, %d>", i, i % 7);
    assert_int_equal(rpd_strtab_id(t, s, &id), RPD_OK);
    assert_int_equal(id, first + i);
  }
  assert_int_equal(count(f, "rocpd_string"), 5 + 30000);
  /* a fresh table finds them through the database */
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t2), RPD_OK);
  snprintf(s, sizeof s, "kernel_%d<float, %d>", 12345, 12345 % 7);
  assert_int_equal(rpd_strtab_find(t2, s, &id), RPD_OK);
  assert_int_equal(id, first + 12345);
  rpd_strtab_free(t2);
  rpd_strtab_free(t);
  assert_int_equal(rpd_commit(f->r), RPD_OK);
}

static void test_no_index_and_duplicates(void **state)
{
  fx *f = *state;
  rpd_strtab *t;
  int64_t id = 0;

  /* duplicates: the smallest id wins, with and without the index */
  assert_int_equal(rpd_exec(f->r, "INSERT INTO rocpd_string(id, string) VALUES (20, 'dup'), "
                                  "(10, 'dup'), (30, 'dup')"), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  assert_int_equal(rpd_strtab_find(t, "dup", &id), RPD_OK);
  assert_int_equal(id, 10);
  rpd_strtab_free(t);
  assert_int_equal(rpd_exec(f->r, "DROP INDEX rocpd_strin_string_c7b9cd_idx"), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  assert_int_equal(rpd_strtab_find(t, "dup", &id), RPD_OK);
  assert_int_equal(id, 10);
  assert_int_equal(rpd_strtab_find(t, "gemm_kernel", &id), RPD_OK);
  assert_int_equal(id, 4);
  assert_int_equal(rpd_strtab_find(t, "absent", &id), RPD_ENOTFOUND);
  assert_int_equal(rpd_strtab_id(t, "absent", &id), RPD_OK);
  assert_int_equal(id, 31);
  assert_int_equal(rpd_strtab_find(t, "absent", &id), RPD_OK);
  assert_int_equal(id, 31);
  rpd_strtab_free(t);
}

static void test_ustring_v3(void **state)
{
  fx *f = *state;
  rpd_strtab *u, *s;
  int64_t id = 0;

  assert_string_equal(rpd_args_table(f->r), "rocpd_ustring");
  assert_int_equal(rpd_strtab_open(f->r, rpd_args_table(f->r), &u), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &s), RPD_OK);
  assert_int_equal(rpd_strtab_find(u, "stream = 0x1", &id), RPD_OK);
  assert_int_equal(id, 5);
  assert_int_equal(rpd_strtab_find(s, "stream = 0x1", &id), RPD_ENOTFOUND);
  assert_int_equal(rpd_strtab_id(u, "size = 4096", &id), RPD_OK);
  assert_int_equal(id, 6);
  assert_int_equal(count(f, "rocpd_ustring"), 3);
  assert_int_equal(count(f, "rocpd_string"), 6);
  rpd_strtab_free(u);
  rpd_strtab_free(s);
  rpd_strtab_free(NULL);
}

static void test_read_only(void **state)
{
  fx *f = *state;
  rpd_strtab *t;
  int64_t id = 0;

  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  assert_int_equal(rpd_strtab_find(t, "gemm_kernel", &id), RPD_OK);
  assert_int_equal(id, 4);
  assert_int_equal(rpd_strtab_id(t, "gemm_kernel", &id), RPD_OK);
  assert_int_equal(rpd_strtab_id(t, "brand new", &id), RPD_EROFS);
  assert_int_equal(rpd_strtab_find(t, "brand new", &id), RPD_ENOTFOUND);
  rpd_strtab_free(t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_bad_table, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_find_and_insert, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_cache_is_used, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_many_strings, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_no_index_and_duplicates, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_ustring_v3, setup3, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_read_only, setup2ro, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
