/* test_strtab_cached.c - rpd_strtab_cached: the cache-only lookup
 * rpd-import's parsing thread uses while its writer thread owns the
 * connection (never a query, never an insert, never a message). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core_fixture.h"

typedef fx_trace fx;

static int setup2(void **state) { return fx_trace_setup(state, fx_v2_ddl, RPD_WRITE); }

static int64_t strings(fx *f)
{
  int64_t n = -1;
  rpd_query_int64(f->r, "SELECT count(*) FROM rocpd_string", &n);
  return n;
}

/* Indexed table: only what was looked up or inserted is cached. */
static void test_cached_only(void **state)
{
  fx *f = *state;
  rpd_strtab *t;
  int64_t id = -1;

  assert_int_equal(rpd_begin(f->r), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  rpd_seterr(RPD_ERR, "sentinel");
  /* in the table, not yet in the cache: not found, no message, no query */
  assert_int_equal(rpd_strtab_cached(t, "hipLaunchKernel", &id), RPD_ENOTFOUND);
  assert_int_equal(id, -1);
  assert_string_equal(rpd_errmsg(), "sentinel");
  assert_int_equal(rpd_strtab_find(t, "hipLaunchKernel", &id), RPD_OK);
  assert_int_equal(id, 2);
  id = -1;
  assert_int_equal(rpd_strtab_cached(t, "hipLaunchKernel", &id), RPD_OK);
  assert_int_equal(id, 2);
  /* absent everywhere: not found and never inserted */
  assert_int_equal(rpd_strtab_cached(t, "new one", &id), RPD_ENOTFOUND);
  assert_int_equal(strings(f), 5);
  assert_int_equal(rpd_strtab_id(t, "new one", &id), RPD_OK);
  assert_int_equal(id, 6);
  id = -1;
  assert_int_equal(rpd_strtab_cached(t, "new one", &id), RPD_OK);
  assert_int_equal(id, 6);
  /* a prefix or an extension of a cached string is another string */
  assert_int_equal(rpd_strtab_cached(t, "new on", &id), RPD_ENOTFOUND);
  assert_int_equal(rpd_strtab_cached(t, "new one!", &id), RPD_ENOTFOUND);
  assert_int_equal(strings(f), 6);
  assert_string_equal(rpd_errmsg(), "sentinel");
  rpd_strtab_free(t);
  assert_int_equal(rpd_commit(f->r), RPD_OK);
}

/* Without an index the whole table is read at open: all of it is cached. */
static void test_cached_without_index(void **state)
{
  fx *f = *state;
  rpd_strtab *t;
  int64_t id = -1;

  assert_int_equal(rpd_exec(f->r, "DROP INDEX rocpd_strin_string_c7b9cd_idx"), RPD_OK);
  assert_int_equal(rpd_strtab_open(f->r, "rocpd_string", &t), RPD_OK);
  assert_int_equal(rpd_strtab_cached(t, "gemm_kernel", &id), RPD_OK);
  assert_int_equal(id, 4);
  assert_int_equal(rpd_strtab_cached(t, "", &id), RPD_OK);
  assert_int_equal(id, 1);
  assert_int_equal(rpd_strtab_cached(t, "GEMM_KERNEL", &id), RPD_ENOTFOUND);
  rpd_strtab_free(t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_cached_only, setup2, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_cached_without_index, setup2, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
