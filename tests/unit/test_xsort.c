/* test_xsort.c - the sort of fixed-size records in bounded memory
 * (common/analysis/xsort.c): in memory and spilled to runs, records at
 * the edges of their words, and the buffer size tests set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpd.h"
#include "xsort.h"

typedef struct rec3 {
  uint64_t w[3];
} rec3;

static int rec3_cmp(const void *pa, const void *pb)
{
  const rec3 *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->w[i] != b->w[i])
      return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}
XSORT_DEFINE(rec3_sort, rec3, rec3_cmp)

static uint64_t rnd(uint64_t *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s;
}

/* n records, words drawn from the edges (0, 1, 2^63 - 1, 2^63,
 * 2^64 - 1) and from everywhere, sorted through an xsort of cap bytes
 * (the environment's buffer when set): the same records as qsort gives,
 * in order; returns the runs written. */
static size_t sort_and_check(size_t n, size_t cap, xsort_fn fn)
{
  static const uint64_t edge[5] = {0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
  rec3 *in = malloc(n * sizeof *in);
  xsort *x = xsort_new(sizeof(rec3), rec3_cmp, fn, cap);
  uint64_t s = 7;
  size_t got = 0, runs;
  const void *p;
  int r;
  for (size_t i = 0; i < n; i++) {
    for (int w = 0; w < 3; w++) {
      uint64_t v = rnd(&s);
      in[i].w[w] = v % 3 ? edge[(v >> 8) % 5] : v;
    }
    assert_int_equal(xsort_add(x, &in[i]), RPD_OK);
  }
  assert_int_equal(xsort_done(x), RPD_OK);
  qsort(in, n, sizeof *in, rec3_cmp);
  while ((r = xsort_next(x, &p)) > 0) {
    assert_true(got < n);
    assert_memory_equal(p, &in[got], sizeof *in);
    got++;
  }
  assert_int_equal(r, 0);
  assert_int_equal(got, n);
  assert_int_equal(xsort_added(x), n);
  assert_int_equal(xsort_taken(x), n);
  runs = xsort_runs(x);
  xsort_free(x);
  free(in);
  return runs;
}

static void test_in_memory(void **state)
{
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  assert_int_equal(sort_and_check(5000, 1 << 20, rec3_sort), 0);
  assert_int_equal(sort_and_check(5000, 1 << 20, NULL), 0);
  assert_int_equal(sort_and_check(0, 1 << 20, rec3_sort), 0);
}

static void test_spilled(void **state)
{
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  /* 24-byte records in 240 bytes: runs of 10 */
  assert_int_equal(sort_and_check(5003, 240, rec3_sort), 501);
  /* the environment's buffer wins over the caller's: runs of one record */
  setenv("RPD_ANALYZE_SORT_BYTES", "24", 1);
  assert_int_equal(sort_and_check(300, 1 << 20, rec3_sort), 300);
  unsetenv("RPD_ANALYZE_SORT_BYTES");
}

static void test_cap_bytes(void **state)
{
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  assert_int_equal(xsort_cap_bytes(8u << 20), 8u << 20);
  setenv("RPD_ANALYZE_SORT_BYTES", "3000", 1);
  assert_int_equal(xsort_cap_bytes(8u << 20), 3000);
  /* not a positive integer: the caller's */
  setenv("RPD_ANALYZE_SORT_BYTES", "0", 1);
  assert_int_equal(xsort_cap_bytes(4096), 4096);
  setenv("RPD_ANALYZE_SORT_BYTES", "-5", 1);
  assert_int_equal(xsort_cap_bytes(4096), 4096);
  setenv("RPD_ANALYZE_SORT_BYTES", "12k", 1);
  assert_int_equal(xsort_cap_bytes(4096), 4096);
  setenv("RPD_ANALYZE_SORT_BYTES", "", 1);
  assert_int_equal(xsort_cap_bytes(4096), 4096);
  unsetenv("RPD_ANALYZE_SORT_BYTES");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_in_memory),
    cmocka_unit_test(test_spilled),
    cmocka_unit_test(test_cap_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
