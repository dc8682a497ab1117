/* test_steps.c - rpd_steps_period (the kernel-sequence period) and
 * rpd_steps_steady (warm-up steps and the steady state). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
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
    cmocka_unit_test(test_steady),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
