/* links: rpd-analyze */
/* test_analyze.c - rpd-analyze's two scans of the trace (an_calls over
 * rocpd_api, read as the op scan's links ask for calls and finished by
 * an_calls_finish; an_scan_ops over rocpd_op) apply the trace check's rule
 * to every row they read, so the augmenter driver runs no check scans of
 * its own: a bad call or op anywhere (linked or not, a sync call or not,
 * the links in op order or not) fails the scan with exactly
 * rpd_check_table's code and message; the calls of the sync rules are
 * kept for them.  And the radix sort of one word a record (the kernels'
 * values) against qsort, and the GPU work's runs packed and read back,
 * its buffers merged with the records they kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze.h"
#include "check.h"
#include "core_fixture.h"

/* fx_v3_ddl (3 calls, 1 op, 1 link) plus two unlinked ops (a kernel and a
 * copy), calls of the sync rules' names and a second link */
static const char extra_sql[] =
    "INSERT INTO rocpd_string(id, string) VALUES (8, 'hipMemcpy'), (9, 'hipDeviceSynchronize'),"
    " (10, 'hipMemcpyAsync'), (11, 'CopyHostToDevice');"
    "INSERT INTO rocpd_api VALUES (4, 100, 101, 5000, 5100, 8, 7, 6, 1),"
    " (5, 100, 101, 5200, 5300, 8, 7, 6, 1), (6, 100, 103, 5400, 5500, 9, 7, 6, 1),"
    " (7, 100, 101, 5600, 5700, 10, 7, 6, 1);"
    "INSERT INTO rocpd_op VALUES (2, 0, 0, 1, 4000, 5000, 4, 3), (3, 1, 0, 2, 6000, 6500, 1, 11);"
    "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (2, 2);";

static int setup(void **state)
{
  if (fx_trace_setup(state, fx_v3_ddl, RPD_WRITE)) return -1;
  return rpd_exec(((fx_trace *)*state)->r, extra_sql) == RPD_OK ? 0 : -1;
}

/* The op scan's verdict: its code, with its message in msg (the calls'
 * scan opened for its links; its own verdict not asked). */
static int scan_ops(rpd *r, char *msg, size_t n)
{
  an_scan *sc = NULL;
  an_calls *calls = NULL;
  int rc = an_calls_open(r, &calls);
  if (!rc)
    rc = an_scan_ops(r, calls, &sc);
  snprintf(msg, n, "%s", rc ? rpd_errmsg() : "");
  an_scan_free(sc);
  an_calls_free(calls);
  return rc;
}

/* The calls' verdict: the op scan (which reads the calls its links ask
 * for), then an_calls_finish. */
static int scan_calls(rpd *r)
{
  an_scan *sc = NULL;
  an_calls *calls = NULL;
  int rc = an_calls_open(r, &calls);
  if (!rc)
    rc = an_scan_ops(r, calls, &sc);
  if (!rc || rc == RPD_ERANGE)
    rc = an_calls_finish(calls);
  an_scan_free(sc);
  an_calls_free(calls);
  return rc;
}

/* rpd_check_table's message for table (RPD_ERANGE expected). */
static void table_msg(rpd *r, const char *table, int gpu, char *msg, size_t n)
{
  assert_int_equal(rpd_check_table(r, table, gpu, NULL), RPD_ERANGE);
  snprintf(msg, n, "%s", rpd_errmsg());
}

static void test_clean(void **state)
{
  rpd *r = ((fx_trace *)*state)->r;
  char msg[512];
  int64_t n = 0;
  assert_int_equal(scan_ops(r, msg, sizeof msg), RPD_OK);
  assert_int_equal(scan_calls(r), RPD_OK);
  /* the sync rules' calls: two hipMemcpy (kind 1), one device sync (kind
   * 2), not the Async one */
  assert_int_equal(rpd_query_int64(r, "SELECT sum(kind * 10 + (apiName_id = 8)) FROM an_sync",
                                   &n), RPD_OK);
  assert_int_equal(n, 11 + 11 + 20);
}

static void test_bad_calls(void **state)
{
  rpd *r = ((fx_trace *)*state)->r;
  char want[512];
  /* an unlinked call that no rule reads */
  assert_int_equal(rpd_exec(r, "UPDATE rocpd_api SET start = 'later' WHERE id = 3"), RPD_OK);
  table_msg(r, "rocpd_api", 0, want, sizeof want);
  assert_string_equal(want, "rocpd_api.start: 1 row is not an integer (text, real, blob or "
                            "null); fix or delete it");
  assert_int_equal(scan_calls(r), RPD_ERANGE);
  assert_string_equal(rpd_errmsg(), want);
  /* the last call and a sync call: ends before it starts, counted */
  assert_int_equal(rpd_exec(r, "UPDATE rocpd_api SET start = 3100 WHERE id = 3;"
                               " UPDATE rocpd_api SET \"end\" = start - 5 WHERE id IN (4, 7)"),
                   RPD_OK);
  table_msg(r, "rocpd_api", 0, want, sizeof want);
  assert_string_equal(want, "rocpd_api.end: 2 rows end before they start; fix or delete those "
                            "rows");
  assert_int_equal(scan_calls(r), RPD_ERANGE);
  assert_string_equal(rpd_errmsg(), want);
}

/* The ops' verdict on both paths: the links in op order (merged with the
 * ops) and out of it (temp.an_launch). */
static void bad_ops(rpd *r, const char *update, const char *expected)
{
  char want[512], got[512];
  assert_int_equal(rpd_exec(r, update), RPD_OK);
  table_msg(r, "rocpd_op", 1, want, sizeof want);
  assert_string_equal(want, expected);
  assert_int_equal(scan_ops(r, got, sizeof got), RPD_ERANGE);
  assert_string_equal(got, want);
  assert_int_equal(rpd_exec(r, "DELETE FROM rocpd_api_ops; INSERT INTO rocpd_api_ops(api_id, op_id)"
                               " VALUES (2, 2), (1, 1)"), RPD_OK);
  assert_int_equal(scan_ops(r, got, sizeof got), RPD_ERANGE);
  assert_string_equal(got, want);
}

static void test_bad_gpu(void **state)
{
  /* the two unlinked ops, the last a copy */
  bad_ops(((fx_trace *)*state)->r, "UPDATE rocpd_op SET gpuId = -1 WHERE id IN (2, 3)",
          "rocpd_op.gpuId: 2 rows are not integers in 0 .. 2^31-1; fix or delete those rows");
}

static void test_bad_times(void **state)
{
  bad_ops(((fx_trace *)*state)->r,
          "UPDATE rocpd_op SET start = -9223372036854775808 WHERE id = 1;"
          " UPDATE rocpd_op SET \"end\" = 4611686018427387904 WHERE id = 3",
          "rocpd_op.start: 1 row outside 0 .. 2^62 ns; fix or delete it");
}

static int word_cmp(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

/* n words of shape `shape` radix-sorted as one word a record: qsort's
 * order.  Shapes: 0 anything, 1 a small key over a value of a few bytes
 * (the kernels' words: bits the records share in between), 2 only the top
 * bit differs, 3 all equal, 4 one bit here and there in every digit. */
static void radix_check(size_t n, int shape)
{
  static const uint64_t flip[1] = {0};
  uint64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b), s = 5;
  for (size_t i = 0; i < n; i++) {
    uint64_t v;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    v = s ^ s >> 29;
    a[i] = shape == 0 ? v
         : shape == 1 ? (v >> 58) << 44 | ((uint64_t)1 << 43) | (v & 0x3fffffff)
         : shape == 2 ? (v & 1) << 63 | 12345
         : shape == 3 ? 77
         : (uint64_t)1 << (v % 64) | (uint64_t)1 << (v >> 58);
  }
  memcpy(b, a, n * sizeof *a);
  an_radix_words(a, n, 1, flip);
  qsort(b, n, sizeof *b, word_cmp);
  assert_memory_equal(a, b, n * sizeof *a);
  free(a);
  free(b);
}

/* The radix sort of one word a record passes over the bits that differ
 * only, up to 11 at a time from the lowest such bit. */
static void test_radix_one_word(void **state)
{
  (void)state;
  for (int shape = 0; shape < 5; shape++) {
    radix_check(100000, shape);
    radix_check(3, shape);
    radix_check(1, shape);
  }
  radix_check(0, 0);
}

/* q's records, in order, are want[0..n); q is freed and the sort size
 * the test set is unset. */
static void expect_works(an_works *q, const an_work *want, size_t n)
{
  const an_work *w;
  size_t got = 0;
  int r;
  while ((r = an_works_next(q, &w)) > 0) {
    assert_true(got < n);
    assert_memory_equal(w, &want[got], sizeof *w);
    got++;
  }
  assert_int_equal(r, 0);
  assert_int_equal(got, n);
  an_works_free(q);
  unsetenv("RPD_ANALYZE_SORT_BYTES");
}

/* The GPU work kept per GPU with its runs written out packed: records of
 * two GPUs and of a NULL gpu, each GPU's in start order, numbers at the
 * ends of their range (differences that wrap, launch times far from the
 * start, ends before starts, the pad), come back whole in (gpu, start)
 * order.  The buffers of 200 records write runs of 100. */
static void test_work_packed(void **state)
{
  enum { N = 3000 };
  an_work *in = calloc(N, sizeof *in), *want = calloc(N, sizeof *want);
  an_works *q;
  uint64_t s = 17;
  int64_t t[3] = {INT64_MIN / 2, INT64_MIN + 1, 1000};
  size_t nw = 0;
  (void)state;
  setenv("RPD_ANALYZE_SORT_BYTES", "11200", 1);   /* 200 records */
  q = an_works_new(8u << 20);
  for (size_t i = 0; i < N; i++) {
    an_work *x = &in[i];
    int g;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    g = (int)(s >> 62) % 3;
    x->gpu = g == 0 ? INT64_MAX : g == 1 ? -7 : 0;
    x->flags = g == 2 ? AN_W_GPU_NULL : AN_W_KERNEL;
    /* steps of up to 2^20, and of 2^58 now and then: a GPU's span stays
     * below 2^62 (about 20 such steps a GPU) */
    t[g] += (int64_t)(s >> 3 & ((1ULL << 20) - 1)) + 1 + (i % 150 ? 0 : (int64_t)1 << 58);
    x->s = t[g];
    x->e = i % 5 ? x->s + (int64_t)(s >> 40) : (int64_t)(s ^ 0x8000000000000000ULL);
    if (i % 3) {
      x->flags |= AN_W_API | (i % 2 ? AN_W_OWN : 0);
      /* wrapping as the packing's differences do (no signed overflow) */
      x->launch = i % 11 ? (int64_t)((uint64_t)x->s - (s >> 30)) : INT64_MIN;
      x->api_end = i % 13 ? (int64_t)((uint64_t)x->launch + 99) : INT64_MAX;
    }
    x->id = i % 17 ? (int64_t)(s >> 1) : INT64_MIN + (int64_t)i;
    x->pad = (int32_t)(i % 4);
    assert_int_equal(an_works_add(q, x), RPD_OK);
  }
  assert_int_equal(an_works_done(q), RPD_OK);
  assert_int_equal(an_works_sorting(q), 0);
  /* the NULL gpu first, then -7, then INT64_MAX; each in the order added */
  for (int g = 2; g >= 0; g--)
    for (size_t i = 0; i < N; i++)
      if ((in[i].flags & AN_W_GPU_NULL ? 2 : in[i].gpu == -7 ? 1 : 0) == g)
        want[nw++] = in[i];
  assert_int_equal(nw, N);
  expect_works(q, want, N);
  free(in);
  free(want);
}

static int work_order(const void *pa, const void *pb)
{
  const an_work *a = pa, *b = pb;
  if (a->s != b->s)
    return a->s < b->s ? -1 : 1;
  if (a->e != b->e)
    return a->e < b->e ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* One GPU's records a few places out of start order (never before one a
 * flush wrote out): each flush sorts the new records and merges them into
 * the ones the last flush kept; (start, end, id) order comes back. */
static void test_work_nearly_sorted(void **state)
{
  enum { N = 5000 };
  an_work *in = calloc(N, sizeof *in);
  an_works *q;
  uint64_t s = 23;
  (void)state;
  setenv("RPD_ANALYZE_SORT_BYTES", "11200", 1);   /* 200 records */
  q = an_works_new(8u << 20);
  for (size_t i = 0; i < N; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    in[i].gpu = 3;
    in[i].flags = AN_W_KERNEL;
    in[i].s = 10 * (int64_t)i + (int64_t)(s >> 58);   /* up to 6 places back */
    in[i].e = in[i].s + (int64_t)(s >> 50 & 7);
    in[i].id = (int64_t)(i * 7919 % N);
    assert_int_equal(an_works_add(q, &in[i]), RPD_OK);
  }
  assert_int_equal(an_works_done(q), RPD_OK);
  assert_int_equal(an_works_sorting(q), 0);
  qsort(in, N, sizeof *in, work_order);
  expect_works(q, in, N);
  free(in);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_clean, setup, fx_trace_teardown),
    cmocka_unit_test(test_radix_one_word),
    cmocka_unit_test(test_work_packed),
    cmocka_unit_test(test_work_nearly_sorted),
    cmocka_unit_test_setup_teardown(test_bad_calls, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_bad_gpu, setup, fx_trace_teardown),
    cmocka_unit_test_setup_teardown(test_bad_times, setup, fx_trace_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
