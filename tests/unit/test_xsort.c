/* test_xsort.c - the sort of fixed-size records in bounded memory
 * (common/analysis/xsort.c): in memory and spilled to runs, records at
 * the edges of their words, the buffer size tests set, and the merge of
 * the runs (its tree of losers, with the comparison through the sorter's
 * pointer, inlined by XSORT_MERGE_DEFINE, or of words held in the tree). */
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
static size_t sort_and_check_merge(size_t n, size_t cap, xsort_fn fn, xsort_merge_fn merge)
{
  static const uint64_t edge[5] = {0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
  rec3 *in = malloc(n * sizeof *in);
  xsort *x = xsort_new(sizeof(rec3), rec3_cmp, fn, cap);
  uint64_t s = 7;
  size_t got = 0, runs;
  const void *p;
  int r;
  if (merge)
    xsort_set_merge(x, merge);
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

static size_t sort_and_check(size_t n, size_t cap, xsort_fn fn)
{
  return sort_and_check_merge(n, cap, fn, NULL);
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

/* The runs merged with the comparison inlined (XSORT_DEFINE's NAME_merge)
 * give what the merge through the pointer gives: many runs, runs of one
 * record, a number of runs that is not a power of two, two runs (the
 * fewest a spill makes: the buffer's last records are one more). */
static void test_merge_typed(void **state)
{
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  assert_int_equal(sort_and_check_merge(5003, 240, rec3_sort, rec3_sort_merge), 501);
  assert_int_equal(sort_and_check_merge(7, 24, rec3_sort, rec3_sort_merge), 7);
  assert_int_equal(sort_and_check_merge(30, 240, rec3_sort, rec3_sort_merge), 3);
  assert_int_equal(sort_and_check_merge(11, 240, NULL, rec3_sort_merge), 2);
  /* in memory the merge is not used */
  assert_int_equal(sort_and_check_merge(5000, 1 << 20, rec3_sort, rec3_sort_merge), 0);
}

/* A record whose order is its key only: the sequence number tells which
 * run it was written in. */
typedef struct keyed {
  uint32_t key, seq;
} keyed;

static size_t ncmp;          /* comparisons counted by keyed_cmp */

static int keyed_cmp(const void *pa, const void *pb)
{
  const keyed *a = pa, *b = pb;
  ncmp++;
  return a->key < b->key ? -1 : a->key > b->key;
}
XSORT_MERGE_DEFINE(keyed_merge, keyed, keyed_cmp)

/* n records of keys below nkeys in runs of run records, merged with merge
 * (NULL: through the pointer): keys in order, equal keys in the order of
 * their runs; the comparisons of the merge (after xsort_done) into *cmps
 * and the stream into out (n records). */
static void keyed_merge_check(size_t n, size_t run, uint32_t nkeys, xsort_merge_fn merge,
                              size_t *cmps, keyed *out)
{
  xsort *x = xsort_new(sizeof(keyed), keyed_cmp, NULL, run * sizeof(keyed));
  uint64_t s = 11;
  const void *p;
  size_t got = 0;
  int r;
  if (merge)
    xsort_set_merge(x, merge);
  for (size_t i = 0; i < n; i++) {
    keyed k = {(uint32_t)(rnd(&s) >> 33) % nkeys, (uint32_t)i};
    assert_int_equal(xsort_add(x, &k), RPD_OK);
  }
  assert_int_equal(xsort_done(x), RPD_OK);
  assert_int_equal(xsort_runs(x), (n + run - 1) / run);
  ncmp = 0;
  while ((r = xsort_next(x, &p)) > 0) {
    const keyed *k = p;
    assert_true(got < n);
    if (got) {
      assert_true(out[got - 1].key <= k->key);
      if (out[got - 1].key == k->key)
        assert_true(out[got - 1].seq / run <= k->seq / run);
    }
    out[got++] = *k;
  }
  assert_int_equal(r, 0);
  assert_int_equal(got, n);
  /* at the end it stays at the end */
  assert_int_equal(xsort_next(x, &p), 0);
  *cmps = ncmp;
  xsort_free(x);
}

/* Equal keys across runs come out in run order, the same stream through
 * either merge; the inlined merge compares at most once a level of the
 * tree a record (a heap compared twice a level, through the pointer). */
static void test_merge_ties(void **state)
{
  enum { N = 20000, RUN = 100 };     /* 200 runs: 8 levels */
  keyed *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  size_t ca, cb;
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  keyed_merge_check(N, RUN, 7, NULL, &ca, a);
  keyed_merge_check(N, RUN, 7, keyed_merge, &cb, b);
  assert_memory_equal(a, b, N * sizeof *a);
  assert_true(ca <= (size_t)N * 8);
  assert_true(cb <= (size_t)N * 8);
  /* all keys equal: the runs one after the other, in the order added */
  keyed_merge_check(N, RUN, 1, keyed_merge, &cb, b);
  for (size_t i = 0; i < N; i++)
    assert_int_equal(b[i].seq / RUN, i / RUN);
  /* runs of one record: the order added among equal keys */
  keyed_merge_check(999, 1, 3, keyed_merge, &cb, b);
  for (size_t i = 1; i < 999; i++)
    assert_true(b[i - 1].key < b[i].key || b[i - 1].seq < b[i].seq);
  free(a);
  free(b);
}

static int u64_cmp(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

/* n words (from a few values when few, the largest word among them) in
 * runs of run words, merged as words: the qsort order, every one. */
static void words_check(size_t n, size_t run, int few)
{
  static const uint64_t some[4] = {0, 5, UINT64_MAX - 1, UINT64_MAX};
  uint64_t *in = malloc((n + 1) * sizeof *in), s = 3;
  xsort *x = xsort_new(sizeof(uint64_t), u64_cmp, NULL, run * sizeof(uint64_t));
  const void *p;
  size_t got = 0;
  int r;
  xsort_set_words(x);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = rnd(&s);
    in[i] = few ? some[(v >> 40) % 4] : v % 5 ? v : UINT64_MAX;
    assert_int_equal(xsort_add(x, &in[i]), RPD_OK);
  }
  assert_int_equal(xsort_done(x), RPD_OK);
  assert_int_equal(xsort_runs(x), n > run ? (n + run - 1) / run : 0);
  qsort(in, n, sizeof *in, u64_cmp);
  while ((r = xsort_next(x, &p)) > 0) {
    assert_true(got < n);
    assert_true(*(const uint64_t *)p == in[got]);
    got++;
  }
  assert_int_equal(r, 0);
  assert_int_equal(got, n);
  assert_int_equal(xsort_next(x, &p), 0);
  xsort_free(x);
  free(in);
}

/* The merge of words (xsort_set_words): the word of each run in the
 * tree; a run at its end orders after the largest word, which still
 * comes out (every one of many runs'); runs of one word; one buffer. */
static void test_merge_words(void **state)
{
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  words_check(5003, 10, 0);
  words_check(5003, 10, 1);
  words_check(333, 1, 1);
  words_check(333, 1, 0);
  words_check(21, 2, 1);
  words_check(1000, 4096, 0);
}

/* Runs of words go to the scratch file packed: sorted words close to each
 * other take a byte each (the first of a run its whole value: 10 bytes
 * for the largest), and come back whole. */
static void test_words_packed(void **state)
{
  enum { N = 100000, RUN = 1000 };
  xsort *x = xsort_new(sizeof(uint64_t), u64_cmp, NULL, RUN * sizeof(uint64_t));
  uint64_t s = 9, sum = 0, got_sum = 0, prev = 0;
  const void *p;
  size_t got = 0;
  int r;
  (void)state;
  unsetenv("RPD_ANALYZE_SORT_BYTES");
  xsort_set_words(x);
  for (size_t i = 0; i < N; i++) {
    uint64_t v = UINT64_MAX - (rnd(&s) >> 50);   /* 2^14 values at the top */
    sum += v;
    assert_int_equal(xsort_add(x, &v), RPD_OK);
  }
  assert_int_equal(xsort_done(x), RPD_OK);
  assert_int_equal(xsort_runs(x), N / RUN);
  /* 1000 words over 2^14 values: steps below 128, a byte each */
  assert_true(xsort_scratch_bytes(x) <= (size_t)N + (N / RUN) * 10);
  while ((r = xsort_next(x, &p)) > 0) {
    uint64_t v = *(const uint64_t *)p;
    assert_true(v >= prev);
    prev = v;
    got_sum += v;
    got++;
  }
  assert_int_equal(r, 0);
  assert_int_equal(got, N);
  assert_true(got_sum == sum);
  xsort_free(x);
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
    cmocka_unit_test(test_merge_typed),
    cmocka_unit_test(test_merge_ties),
    cmocka_unit_test(test_merge_words),
    cmocka_unit_test(test_words_packed),
    cmocka_unit_test(test_cap_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
