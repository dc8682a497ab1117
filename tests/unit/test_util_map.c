/* test_util_map.c - rpd_i64map, the shared int64 -> int64 hash map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rpd.h"
#include "util/map.h"

static void test_empty(void **state)
{
  (void)state;
  rpd_i64map m = {0};
  int64_t v = 99;

  assert_int_equal(rpd_i64map_get(&m, 0, &v), 0);
  assert_int_equal(rpd_i64map_get(&m, INT64_MIN, &v), 0);
  assert_int_equal(v, 99);
  assert_int_equal(rpd_i64map_count(&m), 0);
  rpd_i64map_free(&m);
}

static void test_ref_inserts_default_once(void **state)
{
  (void)state;
  rpd_i64map m = {0};
  int found = -1;
  int64_t *p = rpd_i64map_ref(&m, 7, -2, &found);

  assert_int_equal(found, 0);
  assert_int_equal(*p, -2);
  *p = 40;
  p = rpd_i64map_ref(&m, 7, -2, &found);
  assert_int_equal(found, 1);
  assert_int_equal(*p, 40);
  assert_int_equal(rpd_i64map_count(&m), 1);
  rpd_i64map_free(&m);
}

/* The sentinel key of empty slots and the extremes are ordinary keys. */
static void test_extreme_keys(void **state)
{
  (void)state;
  rpd_i64map m = {0};
  int64_t v = 0;

  rpd_i64map_put(&m, INT64_MIN, 1);
  rpd_i64map_put(&m, INT64_MAX, 2);
  rpd_i64map_put(&m, 0, 3);
  rpd_i64map_put(&m, -1, 4);
  assert_int_equal(rpd_i64map_count(&m), 4);
  assert_int_equal(rpd_i64map_get(&m, INT64_MIN, &v), 1);
  assert_int_equal(v, 1);
  assert_int_equal(rpd_i64map_get(&m, INT64_MAX, &v), 1);
  assert_int_equal(v, 2);
  assert_int_equal(rpd_i64map_get(&m, 0, &v), 1);
  assert_int_equal(v, 3);
  assert_int_equal(rpd_i64map_get(&m, -1, &v), 1);
  assert_int_equal(v, 4);
  rpd_i64map_put(&m, INT64_MIN, 5);           /* overwrite, not a new key */
  assert_int_equal(rpd_i64map_count(&m), 4);
  assert_int_equal(rpd_i64map_get(&m, INT64_MIN, &v), 1);
  assert_int_equal(v, 5);
  rpd_i64map_free(&m);
}

/* Many keys through many rehashes, in patterns that defeat weak hashes
 * (strides of 2^20 and 2^32, which a low-bit mask would pile up). */
static void test_many_keys(void **state)
{
  (void)state;
  rpd_i64map m = {0};
  const int64_t strides[] = { 1, 1 << 20, INT64_C(1) << 32, -3 };
  const int n = 50000;
  int64_t v;
#define KEY(s, i) (INT64_C(1000000000000000) * (s) + strides[s] * (i))

  for (int s = 0; s < 4; s++)
    for (int i = 0; i < n; i++)
      rpd_i64map_put(&m, KEY(s, i), i * 10 + s);
  /* each stride's keys lie in their own range: 4n distinct keys */
  assert_int_equal(rpd_i64map_count(&m), 4 * n);
  for (int s = 0; s < 4; s++)
    for (int i = 0; i < n; i++) {
      assert_int_equal(rpd_i64map_get(&m, KEY(s, i), &v), 1);
      assert_int_equal(v, i * 10 + s);
    }
  assert_int_equal(rpd_i64map_get(&m, INT64_C(7) << 40, NULL), 0);
  assert_true(m.cap >= 2 * m.n);
  rpd_i64map_clear(&m);
  assert_int_equal(rpd_i64map_count(&m), 0);
  assert_int_equal(rpd_i64map_get(&m, 1, NULL), 0);
  rpd_i64map_put(&m, 1, 11);
  assert_int_equal(rpd_i64map_get(&m, 1, &v), 1);
  assert_int_equal(v, 11);
  rpd_i64map_free(&m);
  assert_null(m.slot);
  assert_int_equal(m.n, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_empty),
    cmocka_unit_test(test_ref_inserts_default_once),
    cmocka_unit_test(test_extreme_keys),
    cmocka_unit_test(test_many_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
