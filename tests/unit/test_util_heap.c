/* test_util_heap.c - RPD_HEAP_DEFINE, the shared binary min-heap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rpd.h"
#include "util/heap.h"

static int i64_less(const int64_t *a, const int64_t *b, void *ctx)
{
  (void)ctx;
  return *a < *b;
}
RPD_HEAP_DEFINE(i64heap, int64_t, i64_less)

/* A heap of indices ordered by a table the context points at (a k-way
 * merge's cursors). */
static int by_table(const int *a, const int *b, void *ctx)
{
  const int64_t *t = ctx;
  return t[*a] != t[*b] ? t[*a] < t[*b] : *a < *b;
}
RPD_HEAP_DEFINE(ixheap, int, by_table)

static uint64_t rnd(uint64_t *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

static void test_sorts(void **state)
{
  (void)state;
  i64heap h = {0};
  uint64_t seed = 5;
  int64_t prev, x;
  int64_t sum_in = 0, sum_out = 0;

  for (int i = 0; i < 10000; i++) {
    x = (int64_t)(rnd(&seed) % 1000) - 500;      /* many duplicates */
    sum_in += x;
    i64heap_push(&h, x);
  }
  assert_int_equal(h.n, 10000);
  prev = INT64_MIN;
  while (h.n) {
    x = i64heap_pop(&h);
    assert_true(x >= prev);
    sum_out += x;
    prev = x;
  }
  assert_int_equal(sum_in, sum_out);
  i64heap_free(&h);
  assert_null(h.v);
}

static void test_interleaved(void **state)
{
  (void)state;
  i64heap h = {0};

  i64heap_push(&h, 5);
  i64heap_push(&h, 3);
  assert_int_equal(i64heap_pop(&h), 3);
  i64heap_push(&h, 4);
  i64heap_push(&h, 9);
  assert_int_equal(h.v[0], 4);
  assert_int_equal(i64heap_pop(&h), 4);
  assert_int_equal(i64heap_pop(&h), 5);
  assert_int_equal(i64heap_pop(&h), 9);
  assert_int_equal(h.n, 0);
  i64heap_free(&h);
}

/* Top-K: keep the 3 largest of a stream in a min-heap, evicting the root. */
static void test_replace_top(void **state)
{
  (void)state;
  i64heap h = {0};
  const int64_t in[] = { 4, 17, 2, 99, 23, 8, 42, 1 };

  for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
    if (h.n < 3)
      i64heap_push(&h, in[i]);
    else if (in[i] > h.v[0])
      i64heap_replace_top(&h, in[i]);
  }
  assert_int_equal(i64heap_pop(&h), 23);
  assert_int_equal(i64heap_pop(&h), 42);
  assert_int_equal(i64heap_pop(&h), 99);
  i64heap_free(&h);
}

/* heapify over filled storage, context-ordered, ties broken by index. */
static void test_heapify_ctx(void **state)
{
  (void)state;
  int64_t key[] = { 30, 10, 20, 10, 0, 30 };
  const int want[] = { 4, 1, 3, 2, 0, 5 };
  ixheap h = {0};

  h.ctx = key;
  h.cap = 6;
  h.v = rpd_xmalloc(h.cap * sizeof *h.v);
  for (int i = 0; i < 6; i++)
    h.v[h.n++] = i;
  ixheap_heapify(&h);
  for (int i = 0; i < 6; i++)
    assert_int_equal(ixheap_pop(&h), want[i]);
  ixheap_free(&h);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sorts),
    cmocka_unit_test(test_interleaved),
    cmocka_unit_test(test_replace_top),
    cmocka_unit_test(test_heapify_ctx),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
