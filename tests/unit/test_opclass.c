/* test_opclass.c - the one op classification (common/trace/opclass.c over
 * views/opClass.sql): every opType the writers use, the SQL condition, the
 * GPU list, and that a read-only trace is classified without being changed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core_fixture.h"
#include "opclass.h"
#include "rpd.h"

/* One op of each opType below, on GPU (id % 3) * 2: 0, 2, 4. */
static const struct { const char *type; int cls; } types[] = {
  {"KernelExecution", RPD_OPCLASS_KERNEL}, {"Task", RPD_OPCLASS_KERNEL},
  {"NativeKernel", RPD_OPCLASS_KERNEL}, {"KERNEL_DISPATCH", RPD_OPCLASS_KERNEL},
  {"CopyHostToDevice", RPD_OPCLASS_COPY}, {"CopyDeviceToHost", RPD_OPCLASS_COPY},
  {"CopyDeviceToDevice", RPD_OPCLASS_COPY}, {"CopyHostToHost", RPD_OPCLASS_COPY},
  {"CopyDeviceToHost2D", RPD_OPCLASS_COPY}, {"FillBuffer", RPD_OPCLASS_COPY},
  {"MEMORY_COPY_HOST_TO_DEVICE", RPD_OPCLASS_COPY}, {"MemcpyAsync", RPD_OPCLASS_COPY},
  {"Marker", RPD_OPCLASS_BARRIER}, {"BarrierAnd", RPD_OPCLASS_BARRIER},
  {"MarkerWait", RPD_OPCLASS_BARRIER},
  {"MapBuffer", RPD_OPCLASS_OTHER}, {"UnmapMemObject", RPD_OPCLASS_OTHER},
  {"CopyImage", RPD_OPCLASS_COPY}, {"Copier", RPD_OPCLASS_OTHER},  /* Copy* only */
  {"KernelExecutionX", RPD_OPCLASS_OTHER}, {"task", RPD_OPCLASS_OTHER},
};
#define NTYPES ((int)(sizeof types / sizeof *types))

static int setup(void **state)
{
  if (fx_trace_setup(state, NULL, 0))
    return -1;
  fx_trace *f = *state;
  rpd_buf sql = {0};
  rpd_buf_puts(&sql, fx_v3_ddl);
  for (int i = 0; i < NTYPES; i++) {
    char *q = sqlite3_mprintf("INSERT INTO rocpd_string(id, string) VALUES (%d, %Q);"
                              "INSERT INTO rocpd_op VALUES (%d, %d, 0, 0, %d, %d, 4, %d);",
                              100 + i, types[i].type, 10 + i, (i % 3) * 2, 10000 + i * 100,
                              10050 + i * 100, 100 + i);
    rpd_buf_puts(&sql, q);
    sqlite3_free(q);
  }
  int rc = fx_make_db(f->path, sql.s);
  rpd_buf_free(&sql);
  if (rc || rpd_open(&f->r, f->path, NULL, RPD_READ) != RPD_OK)
    return -1;
  return 0;
}

static void test_every_type(void **state)
{
  fx_trace *f = *state;
  rpd_opclass_map m;
  assert_int_equal(rpd_opclass_load(f->r, &m), RPD_OK);
  /* the fixture's own KernelExecution (id 3) plus the 21 above */
  assert_int_equal(m.n, NTYPES + 1);
  assert_int_equal(rpd_opclass_of(&m, 3), RPD_OPCLASS_KERNEL);
  for (int i = 0; i < NTYPES; i++)
    if (rpd_opclass_of(&m, 100 + i) != types[i].cls)
      fail_msg("%s: class %s, want %s", types[i].type,
               rpd_opclass_name(rpd_opclass_of(&m, 100 + i)), rpd_opclass_name(types[i].cls));
  assert_int_equal(rpd_opclass_of(&m, 99999), RPD_OPCLASS_OTHER);   /* unknown id */
  assert_true(rpd_opclass_in(&m, 100, RPD_OPCLASS_GPU_WORK));          /* kernel */
  assert_true(rpd_opclass_in(&m, 104, RPD_OPCLASS_GPU_WORK));          /* copy */
  assert_false(rpd_opclass_in(&m, 112, RPD_OPCLASS_GPU_WORK));         /* marker */
  assert_false(rpd_opclass_in(&m, 115, RPD_OPCLASS_GPU_WORK));         /* other */
  rpd_opclass_free(&m);
  assert_int_equal(m.n, 0);
  assert_null(m.id);
}

/* One id at a time (rpd_opclass_prepare_one, no op scan): the map's class
 * for every type; "other" for a string that is no op's type and for no
 * string at all. */
static void test_one_id(void **state)
{
  fx_trace *f = *state;
  sqlite3_stmt *st = NULL;
  assert_int_equal(rpd_opclass_prepare_one(rpd_db(f->r), &st), RPD_OK);
  assert_int_equal(rpd_opclass_one(st, 3), RPD_OPCLASS_KERNEL);
  for (int i = 0; i < NTYPES; i++)
    if (rpd_opclass_one(st, 100 + i) != types[i].cls)
      fail_msg("%s: class %s, want %s", types[i].type,
               rpd_opclass_name(rpd_opclass_one(st, 100 + i)), rpd_opclass_name(types[i].cls));
  assert_int_equal(rpd_opclass_one(st, 99999), RPD_OPCLASS_OTHER);
  assert_int_equal(fx_make_db(f->path, "INSERT INTO rocpd_string(id, string) VALUES (500, 'CopyBuffer')"), 0);
  assert_int_equal(rpd_opclass_one(st, 500), RPD_OPCLASS_COPY);   /* the rule, whatever uses it */
  sqlite3_finalize(st);
}

static void test_condition_and_view_agree(void **state)
{
  fx_trace *f = *state;
  char *cond = rpd_opclass_condition("opType_id", RPD_OPCLASS_GPU_WORK);
  char *sql = rpd_xasprintf("SELECT count(*) FROM rocpd_op WHERE %s", cond);
  int64_t n = -1;
  /* 1 fixture kernel + 4 kernels + 9 copies */
  assert_int_equal(rpd_query_int64(f->r, sql, &n), RPD_OK);
  assert_int_equal(n, 14);
  free(cond);
  free(sql);
  cond = rpd_opclass_condition("opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_BARRIER));
  sql = rpd_xasprintf("SELECT count(*) FROM rocpd_op WHERE %s", cond);
  assert_int_equal(rpd_query_int64(f->r, sql, &n), RPD_OK);
  assert_int_equal(n, 3);
  free(cond);
  free(sql);
  cond = rpd_opclass_condition("opType_id", 0);   /* nothing selected */
  assert_string_equal(cond, "0");
  free(cond);
  /* the view text installed by hand gives the same classes */
  assert_int_equal(fx_make_db(f->path, rpd_view_sql("opClass", 3)), 0);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM opClass WHERE class = 'kernel'"), 5);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM opClass WHERE class = 'copy'"), 9);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM opClass WHERE class = 'barrier'"), 3);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM opClass WHERE class = 'other'"), 5);
}

/* count of rocpd_op rows matching cond(mask) on r */
static int64_t count_where(rpd *r, const char *cond)
{
  char *sql = rpd_xasprintf("SELECT count(*) FROM rocpd_op WHERE %s", cond);
  int64_t n = -1;
  assert_int_equal(rpd_query_int64(r, sql, &n), RPD_OK);
  free(sql);
  return n;
}

/* The list form (rpd_opclass_condition_now) selects the same ops as the
 * subquery for every mask, and is read again once the connection has
 * changed the file (a new opType is classified). */
static void test_condition_now(void **state)
{
  fx_trace *f = *state;
  rpd *w = NULL;
  assert_int_equal(rpd_open(&w, f->path, NULL, RPD_WRITE), RPD_OK);
  for (int pass = 0; pass < 2; pass++) {
    for (unsigned mask = 0; mask < 16; mask++) {
      char *sub = rpd_opclass_condition("opType_id", mask), *now = NULL;
      assert_int_equal(rpd_opclass_condition_now(w, "opType_id", mask, &now), RPD_OK);
      assert_non_null(strstr(now, "opType_id IN ("));
      assert_int_equal(count_where(w, now), count_where(w, sub));
      free(sub);
      free(now);
    }
    char *now = NULL;
    assert_int_equal(rpd_opclass_condition_now(w, "opType_id", RPD_OPCLASS_GPU_WORK, &now),
                     RPD_OK);
    assert_int_equal(count_where(w, now), pass ? 15 : 14);
    free(now);
    if (pass)
      break;
    /* a copy of a type no op had: the cached list must not miss it */
    int rc = rpd_exec(w, "INSERT INTO rocpd_string(id, string) VALUES (600, 'CopyBuffer');"
                              "INSERT INTO rocpd_op VALUES (600, 0, 0, 0, 1, 2, 4, 600)");
    if (rc)
      fail_msg("%s", rpd_errmsg());
  }
  rpd_close(w, 0);
}

static void test_gpus(void **state)
{
  fx_trace *f = *state;
  char *list = NULL;
  assert_int_equal(rpd_opclass_gpus(f->r, RPD_OPCLASS_GPU_WORK, &list), RPD_OK);
  assert_string_equal(list, "0, 2, 4");
  free(list);
  /* barriers sit on GPUs 0 (Marker, i 12) and 2 (BarrierAnd i 13, MarkerWait i 14: 4, 0) */
  assert_int_equal(rpd_opclass_gpus(f->r, RPD_OPCLASS_BIT(RPD_OPCLASS_BARRIER), &list), RPD_OK);
  assert_string_equal(list, "0, 2, 4");
  free(list);
  assert_int_equal(rpd_opclass_gpus(f->r, 0, &list), RPD_OK);
  assert_string_equal(list, "");
  free(list);
}

static void test_read_only_untouched(void **state)
{
  fx_trace *f = *state;
  rpd_opclass_map m;
  int64_t views = fx_q(f->path, "SELECT count(*) FROM sqlite_master WHERE type = 'view'");
  assert_int_equal(rpd_opclass_load(f->r, &m), RPD_OK);
  rpd_opclass_free(&m);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM sqlite_master WHERE type = 'view'"), views);
  assert_int_equal(views, 0);   /* the view is not created on a reader */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_every_type, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_one_id, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_condition_and_view_agree, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_condition_now, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_gpus, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_read_only_untouched, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
