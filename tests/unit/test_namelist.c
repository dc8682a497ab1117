/* test_namelist.c - rpd_namelist_split and
 * rpd_exec_in_names (common/analysis/namelist.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_fixture.h"
#include "namelist.h"

static void test_split(void **state)
{
  char **v = NULL;
  size_t n = 0;
  (void)state;
  rpd_namelist_split(" A, B ,C,, ,\tD\t", &v, &n);
  assert_int_equal(n, 4);
  assert_string_equal(v[0], "A");
  assert_string_equal(v[1], "B");
  assert_string_equal(v[2], "C");
  assert_string_equal(v[3], "D");
  rpd_namelist_split("E", &v, &n);   /* appends */
  rpd_namelist_split(" , ", &v, &n); /* nothing */
  assert_int_equal(n, 5);
  assert_string_equal(v[4], "E");
  rpd_namelist_free(v, n);
}

static void test_exec_in_names(void **state)
{
  const char *const names[] = {"hipLaunchKernel", "no'such\"name", "KernelExecution"};
  int64_t n = -1;
  (void)state;
  assert_int_equal(fx_trace_setup(state, fx_v2_ddl, RPD_WRITE), 0);
  fx_trace *f = *state;
  assert_int_equal(rpd_exec(f->r, "CREATE TEMP TABLE t(id INTEGER)"), RPD_OK);
  assert_int_equal(rpd_exec_in_names(f->r, "INSERT INTO t SELECT id FROM rocpd_string "
                                     "WHERE id IN (SELECT id FROM rocpd_string WHERE string IN (",
                                     names, 3), RPD_OK);
  assert_int_equal(rpd_query_int64(f->r, "SELECT sum(id) FROM t", &n), RPD_OK);
  assert_int_equal(n, 2 + 3);
  assert_int_equal(rpd_exec_in_names(f->r, "INSERT INTO no_such SELECT 1 WHERE 1 IN ((",
                                     names, 1), RPD_ESQL);
  fx_trace_teardown(state);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_split),
    cmocka_unit_test(test_exec_in_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
