/* test_schema.c - rpd_schema_create, rpd_schema_install_views and
 * rpd_schema_install_view (common/trace/schema.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core_fixture.h"
#include "schema.h"

/* f->path is created by each test (create()); f->r stays NULL. */
typedef fx_trace fx;

static int setup(void **state) { return fx_trace_setup(state, NULL, 0); }

/* Create a trace of `schema` at f->path through rpd_open(RPD_CREATE). */
static void create(fx *f, int schema)
{
  rpd *r = NULL;
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE | RPD_CREATE), RPD_OK);
  rpd_set_schema(r, schema);
  assert_int_equal(rpd_begin(r), RPD_OK);
  assert_int_equal(rpd_schema_create(r), RPD_OK);
  assert_int_equal(rpd_commit(r), RPD_OK);
  assert_int_equal(rpd_close(r, 1), RPD_OK);
}

static int64_t count(fx *f, const char *type)
{
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_master WHERE type = '%s' "
           "AND name NOT LIKE 'sqlite%%'", type);
  return fx_q(f->path, sql);
}

static void test_create_v3(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  create(f, 3);
  assert_int_equal(count(f, "table"), 11);
  assert_int_equal(count(f, "view"), 12);  /* with opClass */
  assert_int_equal(count(f, "index"), 2);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_metadata"), 3);
  assert_int_equal(fx_q(f->path, "SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride'"), 1000);
  assert_int_equal(fx_q(f->path, "SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride'"), 10000000);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM pragma_table_info('rocpd_api')"), 9);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 3);
  rpd_close(r, 0);
}

static void test_create_v2(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  create(f, 2);
  assert_int_equal(count(f, "table"), 8);
  assert_int_equal(count(f, "view"), 11);   /* no stackframe on v2; with opClass */
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM sqlite_master WHERE name = 'stackframe'"), 0);
  assert_int_equal(fx_q(f->path, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'"), 2);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM pragma_table_info('rocpd_op') "
                                 "WHERE name = 'completionSignal'"), 1);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_schema(r), 2);
  rpd_close(r, 0);
}

/* Views give the right rows on both layouts. */
static void test_views_content(void **state)
{
  fx *f = *state;
  static const int schemas[] = {2, 3};
  for (int i = 0; i < 2; i++) {
    unlink(f->path);
    create(f, schemas[i]);
    assert_int_equal(fx_make_db(f->path, schemas[i] == 3
      ? "INSERT INTO rocpd_string (id, string) VALUES (1, ''), (2, 'hipLaunchKernel'), "
        "  (3, 'hip'), (4, 'k1'), (5, 'KernelExecution');"
        "INSERT INTO rocpd_ustring (id, string) VALUES (1, ''), (2, 'a = 1');"
        "INSERT INTO rocpd_api VALUES (1, 7, 8, 100, 200, 2, 1, 3, 2);"
      : "INSERT INTO rocpd_string (id, string) VALUES (1, ''), (2, 'hipLaunchKernel'), "
        "  (3, 'a = 1'), (4, 'k1'), (5, 'KernelExecution');"
        "INSERT INTO rocpd_api VALUES (1, 7, 8, 100, 200, 2, 3);"), 0);
    assert_int_equal(fx_make_db(f->path, schemas[i] == 3
      ? "INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, start, \"end\", "
        "  description_id, opType_id) VALUES (1, 0, 0, 0, 300, 700, 4, 5);"
      : "INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, completionSignal, "
        "  start, \"end\", description_id, opType_id) VALUES (1, 0, 0, 0, '', 300, 700, 4, 5);"), 0);
    assert_int_equal(fx_make_db(f->path,
        "INSERT INTO rocpd_kernelapi VALUES (1, '0x0', 1, 1, 1, 64, 1, 1, 0, 0, 4);"
        "INSERT INTO rocpd_api_ops (api_id, op_id) VALUES (1, 1);"), 0);
    assert_int_equal(fx_q(f->path, "SELECT count(*) FROM api WHERE apiName = "
                                   "'hipLaunchKernel' AND args = 'a = 1'"), 1);
    assert_int_equal(fx_q(f->path, "SELECT duration FROM kernel WHERE kernelName = 'k1'"), 400);
    assert_int_equal(fx_q(f->path, "SELECT TotalCalls FROM ktop WHERE Name = 'k1'"), 1);
    assert_int_equal(fx_q(f->path, "SELECT GpuTime FROM busy"), 400);
    assert_int_equal(fx_q(f->path, "SELECT node FROM napi"), 0);
    assert_int_equal(fx_q(f->path, "SELECT gpuId FROM nop"), 0);
  }
  /* stackframe (v3 only): frame names resolved through rocpd_string */
  assert_int_equal(fx_make_db(f->path,
      "INSERT INTO rocpd_string (id, string) VALUES (6, 'main');"
      "INSERT INTO rocpd_stackframe (api_ptr_id, depth, name_id) VALUES (1, 0, 6);"), 0);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM stackframe WHERE id = 1 AND "
                                 "apiName = 'hipLaunchKernel' AND depth = 0 AND name = 'main'"), 1);
}

/* Reinstalling is idempotent; a table named like a view is left alone. */
static void test_install_twice_and_table_name(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  create(f, 3);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_schema_install_views(r), RPD_OK);
  assert_int_equal(rpd_schema_install_views(r), RPD_OK);
  assert_int_equal(rpd_exec(r, "DROP VIEW nop; CREATE TABLE nop (x); INSERT INTO nop VALUES (5)"), RPD_OK);
  assert_int_equal(rpd_schema_install_view(r, "nop"), RPD_ENOTFOUND);
  assert_int_equal(rpd_schema_install_views(r), RPD_OK);
  rpd_close(r, 1);
  assert_int_equal(count(f, "view"), 11);
  assert_int_equal(fx_q(f->path, "SELECT x FROM nop"), 5);
}

/* A broken view (base table dropped) is replaced by nothing, not kept. */
static void test_missing_base_table(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  create(f, 3);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_exec(r, "DROP TABLE rocpd_stackframe"), RPD_OK);
  assert_int_equal(rpd_schema_install_view(r, "stackframe"), RPD_ENOTFOUND);
  assert_non_null(strstr(rpd_errmsg(), "rocpd_stackframe"));
  assert_int_equal(rpd_table_exists(r, "stackframe"), 0);
  assert_int_equal(rpd_schema_install_view(r, "no-such-view"), RPD_ERR);
  rpd_close(r, 1);
}

/* Another connection holds the write lock: RPD_EBUSY, nothing changed. */
static void test_locked(void **state)
{
  fx *f = *state;
  rpd *r = NULL;
  sqlite3 *other = NULL;
  create(f, 3);
  assert_int_equal(rpd_open(&r, f->path, NULL, RPD_WRITE), RPD_OK);
  sqlite3_busy_timeout(rpd_db(r), 50);
  assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
  assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(rpd_schema_install_views(r), RPD_EBUSY);
  sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(other);
  rpd_close(r, 0);
  assert_int_equal(count(f, "view"), 12);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_create_v3, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_create_v2, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_views_content, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_install_twice_and_table_name, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_missing_base_table, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_locked, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
