/* links: raptor */
/* test_raptor_load.c - raptor's load step (raptor/load.c setup_roi, linked
 * from libraptor.a) on a tiny hand-made trace: time zero (the first api
 * start, or the first op start when rocpd_api is empty), which ops are GPU
 * work (kernels and copies, not barriers), their names (the description,
 * or the opType when it is ''), the (gpu, start, id) order and the times
 * made relative, --roi-start/--roi-end (bounds inclusive, a kernel regex
 * bound), --gpu-id, and the messages of a trace without GPU work, a GPU
 * that is not there and a ROI outside the trace.  Every load path gives
 * the same ops: the scan and merge (library: ops kept), the streamed run
 * (temp file), SQLite sorting ($RPDTOOLS_RAPTOR_LOAD=sql) and the library's
 * folded check with the api scan in a helper thread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core_fixture.h"
#include "raptor.h"

/* Strings: 1 '', 3 KernelExecution, 4 gemm_kernel, 6 add_kernel,
 * 7 CopyHostToDevice, 8 BarrierAnd.  rocpd_api: first start 1000, last end
 * 20000 (time zero 1000, span 19000 ns).  rocpd_op in id order, not sorted
 * by GPU (the merge's runs):
 *   1 gpu 0  2500- 4000 gemm_kernel      -> 1500-3000
 *   2 gpu 1  3000- 3800 add_kernel       -> 2000-2800
 *   3 gpu 0  4000- 5000 '' CopyHostToDevice -> 3000-4000
 *   4 gpu 0  6000- 6100 '' BarrierAnd    (not GPU work: left out)
 *   5 gpu 1  9000-12000 gemm_kernel      -> 8000-11000
 *   6 gpu 0  7000- 9500 add_kernel       -> 6000-8500 */
#define STRINGS                                                                    \
  "INSERT INTO rocpd_string(id, string) VALUES (1, ''), (2, 'hipLaunchKernel'),"   \
  " (3, 'KernelExecution'), (4, 'gemm_kernel'), (5, 'stream = 0x1'),"              \
  " (6, 'add_kernel'), (7, 'CopyHostToDevice'), (8, 'BarrierAnd');"

static const char tables[] = FX_V2_TABLES STRINGS;

#define API_ROWS                                                                   \
  "INSERT INTO rocpd_api VALUES (1, 100, 101, 1000, 2000, 2, 5), (2, 100, 101, 2900, 3100, 2, 5),"\
  " (3, 100, 101, 3900, 4100, 2, 5), (4, 100, 101, 6900, 7100, 2, 5),"             \
  " (5, 100, 101, 8900, 20000, 2, 5);"

#define OP_ROWS                                                                    \
  "INSERT INTO rocpd_op VALUES (1, 0, 0, 0, '', 2500, 4000, 4, 3),"                \
  " (2, 1, 0, 0, '', 3000, 3800, 6, 3), (3, 0, 0, 1, '', 4000, 5000, 1, 7),"       \
  " (4, 0, 0, 2, '', 6000, 6100, 1, 8), (5, 1, 0, 1, '', 9000, 12000, 4, 3),"      \
  " (6, 0, 0, 3, '', 7000, 9500, 6, 3);"                                          \
  "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (1, 1), (2, 2), (3, 3), (4, 6), (5, 5);"

typedef struct want {
  int64_t id;
  int32_t gpu;
  int64_t start, end;
  const char *name;
} want;

/* All GPU work, in (gpu, start, id) order, times relative to 1000. */
static const want all_ops[] = {
    {1, 0, 1500, 3000, "gemm_kernel"}, {3, 0, 3000, 4000, "CopyHostToDevice"},
    {6, 0, 6000, 8500, "add_kernel"},  {2, 1, 2000, 2800, "add_kernel"},
    {5, 1, 8000, 11000, "gemm_kernel"},
};

/* The load paths. */
enum { KEEP, STREAM, SQLSORT, FOLD };

typedef struct run {
  raptor R;
  rpd *r;
  fold_check fold;
} run;

/* One setup_roi over path with the ROI bounds (NULL: none) and --gpu-id
 * (-1 all) by the given path; returns setup_roi's code. */
static int load(run *u, const char *path, int how, const char *rs, const char *re, int64_t gpu)
{
  memset(u, 0, sizeof *u);
  raptor_init(&u->R);
  make_gap_labels(&u->R);
  assert_int_equal(categories_load(&u->R), 0);
  u->R.opt.path = path;
  u->R.opt.roi_start_s = rs;
  u->R.opt.roi_end_s = re;
  u->R.opt.gpu_id = gpu;
  u->R.keep_ops = how != STREAM;
  if (how == FOLD) u->R.fold = &u->fold;
  if (how == SQLSORT) setenv("RPDTOOLS_RAPTOR_LOAD", "sql", 1);
  assert_int_equal(rpd_open(&u->r, path, NULL, RPD_READ), RPD_OK);
  u->R.r = u->r;
  int ret = setup_roi(&u->R);
  unsetenv("RPDTOOLS_RAPTOR_LOAD");
  return ret;
}

static void unload(run *u)
{
  raptor_free(&u->R);
  rpd_close(u->r, 0);
}

/* The loaded ops (R->ops, or the temp file of a streamed run) equal w[0 .. n). */
static void expect_ops(run *u, const want *w, size_t n)
{
  assert_int_equal(u->R.res.n, n);
  opiter *it = opiter_new(&u->R);
  for (size_t i = 0; i < n; i++) {
    const op *o = opiter_next(it);
    assert_non_null(o);
    assert_int_equal(o->id, w[i].id);
    assert_int_equal(o->gpu, w[i].gpu);
    assert_int_equal(o->start, w[i].start);
    assert_int_equal(o->end, w[i].end);
    assert_string_equal(u->R.res.names[o->kern], w[i].name);
  }
  assert_null(opiter_next(it));
  assert_int_equal(u->R.spill_failed, 0);
  opiter_free(it);
}

static char *make_trace(fx_trace *f, const char *name, const char *rows)
{
  char *p = fx_path(f->dir, name);
  char *sql = rpd_xasprintf("%s%s", tables, rows);
  assert_int_equal(fx_make_db(p, sql), 0);
  free(sql);
  return p;
}

static int setup(void **state)
{
  return fx_trace_setup(state, NULL, 0);
}

static void test_whole_trace(void **state)
{
  fx_trace *f = *state;
  char *p = make_trace(f, "a.rpd", API_ROWS OP_ROWS);
  for (int how = KEEP; how <= FOLD; how++) {
    run u;
    assert_int_equal(load(&u, p, how, NULL, NULL, -1), 0);
    assert_int_equal(u.R.res.first_abs, 1000);
    assert_int_equal(u.R.res.last_abs, 20000);
    assert_int_equal(u.R.res.roi_s, 0);
    assert_int_equal(u.R.res.roi_e, 19000);
    expect_ops(&u, all_ops, 5);
    assert_true(how == STREAM ? u.R.res.ops == NULL : u.R.res.ops != NULL);
    unload(&u);
  }
  free(p);
}

static void test_roi(void **state)
{
  fx_trace *f = *state;
  char *p = make_trace(f, "a.rpd", API_ROWS OP_ROWS);
  /* start in [3000, 6000] ns from time zero, bounds included: ops 3 and 6
   * on GPU 0; op 2 (2000) before, op 5 (8000) after */
  const want roi[] = {{3, 0, 3000, 4000, "CopyHostToDevice"}, {6, 0, 6000, 8500, "add_kernel"}};
  for (int how = KEEP; how <= FOLD; how++) {
    run u;
    assert_int_equal(load(&u, p, how, "3us", "0.006", -1), 0);
    assert_int_equal(u.R.res.roi_s, 3000);
    assert_int_equal(u.R.res.roi_e, 6000);
    expect_ops(&u, roi, 2);
    unload(&u);
  }
  /* a kernel regex: the ROI starts at the first add_kernel (2000 ns, GPU 1) */
  const want from_add[] = {{3, 0, 3000, 4000, "CopyHostToDevice"},
                           {6, 0, 6000, 8500, "add_kernel"},
                           {2, 1, 2000, 2800, "add_kernel"},
                           {5, 1, 8000, 11000, "gemm_kernel"}};
  run u;
  assert_int_equal(load(&u, p, KEEP, "^add", NULL, -1), 0);
  assert_int_equal(u.R.res.roi_s, 2000);
  assert_int_equal(u.R.res.roi_e, 19000);
  expect_ops(&u, from_add, 4);
  unload(&u);
  /* --gpu-id 1 */
  assert_int_equal(load(&u, p, KEEP, NULL, NULL, 1), 0);
  expect_ops(&u, all_ops + 3, 2);
  unload(&u);
  free(p);
}

/* rocpd_api empty: time zero is the first op start (2500, any op), the end
 * the last op end (12000). */
static void test_no_api(void **state)
{
  fx_trace *f = *state;
  char *p = make_trace(f, "b.rpd", OP_ROWS);
  run u;
  assert_int_equal(load(&u, p, KEEP, NULL, NULL, -1), 0);
  assert_int_equal(u.R.res.first_abs, 2500);
  assert_int_equal(u.R.res.last_abs, 12000);
  const want w[] = {{1, 0, 0, 1500, "gemm_kernel"},
                    {3, 0, 1500, 2500, "CopyHostToDevice"},
                    {6, 0, 4500, 7000, "add_kernel"},
                    {2, 1, 500, 1300, "add_kernel"},
                    {5, 1, 6500, 9500, "gemm_kernel"}};
  expect_ops(&u, w, 5);
  unload(&u);
  free(p);
}

static void expect_fail(const char *path, const char *rs, const char *re,
                        int64_t gpu, int code, const char *msg_fmt)
{
  run u;
  char *msg = rpd_xasprintf(msg_fmt, path);
  assert_int_equal(load(&u, path, KEEP, rs, re, gpu), code);
  assert_non_null(u.R.err);
  assert_string_equal(u.R.err, msg);
  assert_int_equal(u.R.res.n, 0);
  free(msg);
  unload(&u);
}

static void test_errors(void **state)
{
  fx_trace *f = *state;
  /* only a barrier: no GPU work */
  char *p = make_trace(f, "c.rpd", API_ROWS
                       "INSERT INTO rocpd_op VALUES (4, 0, 0, 2, '', 6000, 6100, 1, 8);");
  expect_fail(p, NULL, NULL, -1, 1, "'%s' has no kernels or copies (GPU work)");
  free(p);
  p = make_trace(f, "d.rpd", "");
  expect_fail(p, NULL, NULL, -1, 1, "'%s' has no api and no op rows");
  free(p);
  p = make_trace(f, "a.rpd", API_ROWS OP_ROWS);
  expect_fail(p, NULL, NULL, 5, 1,
              "'%s' has no kernels or copies on GPU 5 (GPUs present: 0, 1)");
  /* between two ops: [8600, 8700] ns holds no op start */
  expect_fail(p, "8.6us", "8.7us", -1, 1,
              "'%s': no kernels or copies in the ROI 0.008600 .. 0.008700 ms");
  expect_fail(p, "20us", NULL, -1, 1,
              "ROI start 0.020000 ms is outside the trace (0 .. 0.019000 ms)");
  expect_fail(p, "6us", "3us", -1, 1, "ROI start 0.006000 ms is after ROI end 0.003000 ms");
  expect_fail(p, "^nosuch", NULL, -1, 1, "ROI start: no op matches kernel regex '^nosuch'");
  free(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_whole_trace, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_roi, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_no_api, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_errors, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
