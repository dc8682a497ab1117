/* links: rpd-deserialize */
/* test_deser.c - rpd_deser_parse: serialized s_api/s_op markers, defaults,
 * and every kind of hostile field refused with its reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "deser.h"

static void test_fields(void **state)
{
  rpd_deser d;
  (void)state;
  assert_int_equal(rpd_deser_parse("s_op = K | gpuId = 3 | queueId = 2 | sequenceId = 7 | "
                                   "start = 100 | end = 250 | completionSignal = 0x1",
                                   10, 20, &d), RPD_OK);
  assert_null(d.api);
  assert_string_equal(d.op, "K");
  assert_int_equal(d.gpu_id, 3);
  assert_int_equal(d.queue_id, 2);
  assert_int_equal(d.sequence_id, 7);
  assert_int_equal(d.start, 100);
  assert_int_equal(d.end, 250);
  assert_string_equal(d.signal, "0x1");
  rpd_deser_free(&d);

  /* defaults: ids 0, times the marker's */
  assert_int_equal(rpd_deser_parse("s_api = A | s_op = B", 10, 20, &d), RPD_OK);
  assert_string_equal(d.api, "A");
  assert_string_equal(d.op, "B");
  assert_int_equal(d.gpu_id + d.queue_id + d.sequence_id, 0);
  assert_int_equal(d.start, 10);
  assert_int_equal(d.end, 20);
  assert_null(d.signal);
  rpd_deser_free(&d);

  /* not a serialized marker: nothing to do, whatever else it says */
  assert_int_equal(rpd_deser_parse("gpuId = junk", -5, -9, &d), RPD_OK);
  assert_null(d.api);
  assert_null(d.op);
  rpd_deser_free(&d);
  assert_int_equal(rpd_deser_parse(NULL, 0, 0, &d), RPD_OK);
  assert_null(d.op);
  rpd_deser_free(&d);
  rpd_deser_free(&d);   /* twice is fine */
}

static void test_hostile(void **state)
{
  static const struct { const char *text; const char *why; } cases[] = {
    {"s_op = K | gpuId = 1e20", "gpuId '1e20' is not an integer in 0..2147483647"},
    {"s_op = K | start = Inf", "start 'Inf' is not an integer"},
    {"s_op = K | end = 'nan'", "end 'nan' is not an integer"},
    {"s_op = K | queueId = 0x10", "queueId '0x10' is not"},
    {"s_op = K | start = 30 | end = 29", "end 29 is before start 30"},
    {"s_op = K | start = 30", "end 20 is before start 30"},   /* marker's end */
    {"s_op = ", "empty s_op name"},
    {"s_api = '' | s_op = K", "empty s_api name"},
    {"s_op = K | sequenceId = -1", "sequenceId '-1' is not"},
    {"s_op = K | sequenceId = +1", "sequenceId '+1' is not"},
    {"s_op = K | gpuId = 2147483648", "gpuId '2147483648' is not"},
    {"s_op = K | start = 99999999999999999999", "start '99999999999999999999' is not"},
    {"s_op = K | end = 4611686018427387904", "end '4611686018427387904' is not"},
    {"s_op = K | gpuId = 1.0", "gpuId '1.0' is not"},
    {"s_op = K | gpuId = ", "gpuId '' is not"},
    {"s_op = K | gpuId = 1\n2", "gpuId '1 2' is not"},   /* message on one line */
    {"s_op = K | gpuId = 12345678901234567890123456789012345678901234567890",
     "gpuId '1234567890123456789012345678901234567890...' is not"},
  };
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    rpd_deser d;
    int rc = rpd_deser_parse(cases[i].text, 10, 20, &d);
    if (rc != RPD_EPARSE || !strstr(rpd_errmsg(), cases[i].why))
      fail_msg("case %zu [%s]: rc %d, message [%s]", i, cases[i].text, rc, rpd_errmsg());
    rpd_deser_free(&d);
  }
  /* extremes that are fine */
  {
    rpd_deser d;
    assert_int_equal(rpd_deser_parse("s_op = K | sequenceId = 9223372036854775807 | "
                                     "start = 0 | end = 4611686018427387903", 10, 20, &d), RPD_OK);
    assert_int_equal(d.sequence_id, INT64_MAX);
    assert_int_equal(d.end, RPD_DESER_TIME_MAX);
    rpd_deser_free(&d);
    /* the marker's own times are checked too */
    assert_int_equal(rpd_deser_parse("s_api = A", 20, 10, &d), RPD_EPARSE);
    rpd_deser_free(&d);
    assert_int_equal(rpd_deser_parse("s_op = A | start = 1 | end = 2", INT64_MIN, 10, &d),
                     RPD_EPARSE);
    rpd_deser_free(&d);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fields),
    cmocka_unit_test(test_hostile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
