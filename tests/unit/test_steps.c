/* test_steps.c - rpd_steps_period (the kernel-sequence period) and
 * rpd_steps_steady (warm-up steps and the steady state). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "steps.h"

/* seq = prefix, then reps copies of body */
static size_t build(int64_t *seq, const int64_t *prefix, size_t np, const int64_t *body,
                    size_t nb, int reps)
{
  size_t n = 0;
  for (size_t i = 0; i < np; i++)
    seq[n++] = prefix[i];
  for (int r = 0; r < reps; r++)
    for (size_t i = 0; i < nb; i++)
      seq[n++] = body[i];
  return n;
}

static void test_period_plain(void **state)
{
  (void)state;
  int64_t seq[64], body[] = {7, 8, 9, 8};   /* 8 runs twice per step */
  size_t first = 99, n = build(seq, NULL, 0, body, 4, 5);
  assert_int_equal(rpd_steps_period(seq, n, &first), 4);
  assert_int_equal(first, 0);      /* 7 and 9 both qualify: 7 comes first */
}

static void test_period_warmup_prefix(void **state)
{
  (void)state;
  int64_t seq[64], pre[] = {1, 2, 9, 3}, body[] = {5, 6, 7};
  size_t first = 99, n = build(seq, pre, 4, body, 3, 6);
  assert_int_equal(rpd_steps_period(seq, n, &first), 3);
  assert_int_equal(first, 4);
}

static void test_period_longer_first_step(void **state)
{
  (void)state;
  /* the first iteration has two extra kernels (autotuning): its distance
   * is longer, the later ones are regular */
  int64_t seq[] = {5, 6, 40, 41, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7};
  size_t first = 99;
  assert_int_equal(rpd_steps_period(seq, sizeof seq / sizeof *seq, &first), 3);
  assert_int_equal(first, 0);
}

static void test_period_none(void **state)
{
  (void)state;
  int64_t two[] = {1, 2, 1, 2};          /* only 2 iterations */
  int64_t irregular[] = {1, 2, 1, 2, 2, 2, 2, 1, 3, 4, 5, 6, 7, 8, 1};
  size_t first = 99;
  assert_int_equal(rpd_steps_period(two, 4, &first), 0);
  assert_int_equal(rpd_steps_period(irregular, 15, &first), 0);
  assert_int_equal(rpd_steps_period(NULL, 0, &first), 0);
  assert_int_equal(first, 99);
}

/* The rule of steps.h written the plain way, every occurrence of every
 * name sorted: what the one-pass rpd_steps_period must agree with. */
typedef struct occ { int64_t name; size_t idx; } occ;

static int cmp_occ(const void *a, const void *b)
{
  const occ *x = a, *y = b;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int64_t period_sorted(const int64_t *seq, size_t n, size_t *first)
{
  occ *o = malloc((n ? n : 1) * sizeof *o);
  size_t bc = 0, bf = 0, bs = 0, bl = 0;
  for (size_t i = 0; i < n; i++) o[i] = (occ){ seq[i], i };
  qsort(o, n, sizeof *o, cmp_occ);
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && o[j].name == o[i].name; j++) {}
    size_t c = j - i, lo = (size_t)-1, hi = 0;
    if (c < 3) continue;
    for (size_t k = i + 2; k < j; k++) {
      size_t d = o[k].idx - o[k - 1].idx;
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    }
    size_t d0 = o[i + 1].idx - o[i].idx, span = o[j - 1].idx - o[i].idx + hi;
    if (hi * 10 <= lo * 11 && d0 * 10 >= lo * 9 && lo >= 2 && 2 * span >= n &&
        (!bc || c < bc || (c == bc && o[i].idx < bf))) {
      bc = c; bf = o[i].idx; bs = o[i + 1].idx; bl = o[j - 1].idx;
    }
  }
  free(o);
  if (!bc) return 0;
  *first = bf;
  return (int64_t)((bl - bs + (bc - 2) / 2) / (bc - 2));
}

/* Random sequences (periodic bodies with a warm-up prefix, noise and cut
 * ends, and plain noise over small and large alphabets; names as large
 * ids too): the same period and first kernel as the plain rule. */
static void test_period_agrees(void **state)
{
  (void)state;
  uint64_t x = 88172645463325252ull;
  int64_t *seq = malloc(4096 * sizeof *seq);
  int found = 0;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
  for (int t = 0; t < 3000; t++) {
    size_t n = 0, want = RND() % 4000, nb = 2 + RND() % 40, np = RND() % 10;
    int64_t body[64], alpha = 2 + (int64_t)(RND() % 50), scale = RND() % 2 ? 1 : 1000003;
    for (size_t i = 0; i < nb; i++) body[i] = (int64_t)(RND() % (uint64_t)alpha) * scale;
    for (size_t i = 0; i < np && n < want; i++) seq[n++] = (int64_t)(RND() % 97) * scale;
    int noise = (int)(RND() % 4);   /* 0: none; else 1 in 2^k^.. kernels replaced */
    while (n < want) {
      for (size_t i = 0; i < nb && n < want; i++) {
        int64_t v = body[i];
        if (t % 5 == 4 || (noise && RND() % (uint64_t)(20 * noise) == 0))
          v = (int64_t)(RND() % (uint64_t)alpha) * scale;
        seq[n++] = v;
      }
    }
    size_t f1 = 12345, f2 = 12345;
    int64_t a = period_sorted(seq, n, &f1), b = rpd_steps_period(seq, n, &f2);
    assert_int_equal(b, a);
    assert_int_equal(f2, f1);
    found += a > 0;
  }
#undef RND
  free(seq);
  assert_true(found > 500);   /* the periodic cases find their period */
}

static void test_steady(void **state)
{
  (void)state;
  rpd_step_row s[6] = {
    {.start = 0, .end = 3000}, {.start = 3000, .end = 4900},     /* warm-up */
    {.start = 5000, .end = 6000}, {.start = 6000, .end = 7100},
    {.start = 7100, .end = 8000}, {.start = 8000, .end = 9300},  /* 1300: +30%, kept */
  };
  rpd_steps st = {.s = s, .n = 6};
  int64_t med, p10, p90;
  assert_int_equal(rpd_steps_steady(&st, &med, &p10, &p90), 4);
  assert_int_equal(s[0].warmup, 1);
  assert_int_equal(s[1].warmup, 1);
  assert_int_equal(s[2].warmup + s[3].warmup + s[4].warmup + s[5].warmup, 0);
  assert_int_equal(med, 1000);     /* lower median of 900 1000 1100 1300 */
  assert_int_equal(p10, 900);
  assert_int_equal(p90, 1300);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_period_plain),
    cmocka_unit_test(test_period_warmup_prefix),
    cmocka_unit_test(test_period_longer_first_step),
    cmocka_unit_test(test_period_none),
    cmocka_unit_test(test_period_agrees),
    cmocka_unit_test(test_steady),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
