/* test_ranks.c - common/analysis/ranks.c (collective kernel names, strides and the
 * rank expression of merged traces) and query tables (common/out/table.h:
 * SELECTs into an xlsx workbook, written whole or not at all). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core_fixture.h"
#include "ranks.h"
#include "rpd.h"
#include "sheets.h"
#include "table.h"

static int setup(void **state)
{
  return fx_trace_setup(state, fx_v3_ddl, RPD_READ);
}

/* Rows of `sql` on r whose first column is an integer 1. */
static int64_t count_true(rpd *r, const char *cond, const char *const *names, int n)
{
  int64_t hits = 0;
  for (int i = 0; i < n; i++) {
    char *sql = sqlite3_mprintf("SELECT %s FROM (SELECT %Q AS name)", cond, names[i]);
    int64_t v = -1;
    assert_int_equal(rpd_query_int64(r, sql, &v), RPD_OK);
    hits += v;
    sqlite3_free(sql);
  }
  return hits;
}

static void test_collective_names(void **state)
{
  fx_trace *f = *state;
  static const char *const yes[] = {
    "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
    "ncclKernel_AllReduce_RING_LL_Sum_float", "RCCL_ALLGATHER", "my_all_reduce",
    "void vllm::cross_device_reduce_1stage<c10::Half, 8>(vllm::RankData*)",
    "ReduceScatter_kernel", "AllToAll_v", "broadcast_kernel",
  };
  static const char *const no[] = {
    "Cijk_Alik_Bljk_HHS_BH_MT256x256x64", "attn_fwd", "reduce_kernel<512>",
    "void at::native::elementwise_kernel", "", "gather_topk",
  };
  char *cond = rpd_collective_condition("name");
  assert_int_equal(count_true(f->r, cond, yes, 8), 8);
  assert_int_equal(count_true(f->r, cond, no, 6), 0);
  free(cond);
}

static void test_strides_default_and_tagged(void **state)
{
  fx_trace *f = *state;
  char *e;
  int64_t v = 0;
  /* the fixture has no stride tags: the RPD defaults */
  assert_int_equal(rpd_gpu_stride(f->r), 1000);
  assert_int_equal(rpd_pid_stride(f->r), 10000000);
  e = rpd_rank_of_gpu(f->r, "3007");
  assert_string_equal(e, "((3007) / 1000)");
  char *sql = rpd_xasprintf("SELECT %s", e);
  assert_int_equal(rpd_query_int64(f->r, sql, &v), RPD_OK);
  assert_int_equal(v, 3);
  free(sql);
  free(e);
  rpd_close(f->r, 0);
  f->r = NULL;
  /* tagged strides win; a bad tag falls back to the default */
  rpd *w;
  assert_int_equal(rpd_open(&w, f->path, NULL, RPD_WRITE), RPD_OK);
  assert_int_equal(rpd_meta_set(w, "gpu_stride", "64"), RPD_OK);
  assert_int_equal(rpd_meta_set(w, "pid_stride", "not a number"), RPD_OK);
  assert_int_equal(rpd_gpu_stride(w), 64);
  assert_int_equal(rpd_pid_stride(w), 10000000);
  assert_int_equal(rpd_close(w, 1), RPD_OK);
}

static void test_no_metadata_table(void **state)
{
  fx_trace *f = *state;
  rpd_close(f->r, 0);
  f->r = NULL;
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_metadata"), 1);
  fx_make_db(f->path, "DROP TABLE rocpd_metadata");
  assert_int_equal(rpd_open(&f->r, f->path, NULL, RPD_READ), RPD_OK);
  assert_int_equal(rpd_gpu_stride(f->r), 1000);
  assert_int_equal(rpd_pid_stride(f->r), 10000000);
}

/* Query tables (common/out/table.h) as sheets of one workbook, as raptor
 * --by-rank --xlsx and rpd-diff --xlsx write them. */
static int sheets_write(const char *path, const char *input, fx_trace *f, int n,
                        const char *const *names, const char *const *sqls)
{
  rpd_tables ts = {0};
  int rc;
  for (int i = 0; i < n; i++)
    rpd_table_query(rpd_tables_add(&ts), names[i], f->r, rpd_db(f->r), sqls[i]);
  rc = rpd_tables_xlsx(&ts, path, input, NULL, NULL, 0, NULL, NULL);
  rpd_tables_free(&ts);
  return rc;
}

/* rpd_sheets_write, the shorthand over query tables, writes the same. */
static void test_sheets_shorthand(void **state)
{
  fx_trace *f = *state;
  char *xlsx = fx_path(f->dir, "short.xlsx");
  const char *names[] = {"ops"};
  const char *sqls[] = {"SELECT id, gpuId, start FROM rocpd_op ORDER BY id"};
  const char *bad[] = {"SELECT nope FROM rocpd_op"};
  assert_int_equal(rpd_sheets_write(xlsx, f->path, rpd_db(f->r), 1, names, sqls), RPD_OK);
  assert_int_equal(access(xlsx, F_OK), 0);
  assert_int_equal(rpd_sheets_write(xlsx, f->path, rpd_db(f->r), 1, names, bad), RPD_ESQL);
  assert_int_equal(access(xlsx, F_OK), 0);   /* the earlier workbook stays */
  free(xlsx);
}

static void test_sheets_written_whole(void **state)
{
  fx_trace *f = *state;
  char *xlsx = fx_path(f->dir, "out.xlsx");
  const char *names[] = {"ops", "strings"};
  const char *sqls[] = {"SELECT id, gpuId, start FROM rocpd_op ORDER BY id",
                        "SELECT id, string FROM rocpd_string ORDER BY id"};
  size_t len = 0;
  char *data;

  assert_int_equal(sheets_write(xlsx, f->path, f, 2, names, sqls), RPD_OK);
  data = fx_slurp(xlsx, &len);
  assert_non_null(data);
  assert_true(len > 1000);
  assert_memory_equal(data, "PK", 2);            /* a zip */
  free(data);
  /* nothing but the workbook in the directory: no temp file left */
  assert_int_equal(fx_count(f->dir, ".out.xlsx"), 0);

  /* a failing SELECT: an error, no workbook, no temp file */
  const char *bad[] = {"SELECT nope FROM rocpd_op"};
  char *xlsx2 = fx_path(f->dir, "bad.xlsx");
  assert_int_equal(sheets_write(xlsx2, f->path, f, 1, names, bad), RPD_ESQL);
  assert_non_null(strstr(rpd_errmsg(), "no such column"));
  assert_int_equal(access(xlsx2, F_OK), -1);
  assert_int_equal(fx_count(f->dir, ".bad.xlsx"), 0);
  /* never over the trace itself */
  assert_int_not_equal(sheets_write(f->path, f->path, f, 1, names, sqls), RPD_OK);
  assert_non_null(strstr(rpd_errmsg(), "input"));
  free(xlsx);
  free(xlsx2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_collective_names, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_strides_default_and_tagged, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_no_metadata_table, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_sheets_written_whole, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_sheets_shorthand, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
