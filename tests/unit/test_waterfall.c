/* test_waterfall.c - the exclusive split of a GPU span (rpd_wf_*) and the
 * idle-gap rule shared with rpd-analyze (rpd_idle_classify), on hand-built
 * intervals with exact expected ns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rpd.h"
#include "waterfall.h"

enum { K = RPD_WF_OP_KERNEL, C = RPD_WF_OP_COPY };
/* three categories: 0 "A", 1 "COMM" (the communication one), 2 "B";
 * priority B > A > other kernels > communication > copy */
enum { CAT_A = 0, CAT_COMM = 1, CAT_B = 2, NCAT = 3 };
#define PART(c) (RPD_WF_CAT0 + (c))
#define OTHERK (RPD_WF_CAT0 + NCAT)

static int64_t parts_sum(const rpd_wf *w)
{
  int64_t s = 0;
  for (int p = 0; p < rpd_wf_nparts(w); p++)
    s += w->part_ns[p];
  return s;
}

static void test_idle_classify(void **state)
{
  (void)state;
  /* launched after the gap began: host wait, whatever the length */
  assert_int_equal(rpd_idle_classify(100, 200, 101, 50), RPD_IDLE_HOST_WAIT);
  assert_int_equal(rpd_idle_classify(100, 900000, 150, 50), RPD_IDLE_HOST_WAIT);
  /* launched at or before the gap's start: kernel wait up to 50 us */
  assert_int_equal(rpd_idle_classify(100, 50100, 100, 50), RPD_IDLE_KERNEL_WAIT);
  assert_int_equal(rpd_idle_classify(100, 50101, 100, 50), RPD_IDLE_OTHER);
  assert_int_equal(rpd_idle_classify(100, 150, 0, 0.05), RPD_IDLE_KERNEL_WAIT);
  assert_int_equal(rpd_idle_classify(100, 151, 0, 0.05), RPD_IDLE_OTHER);
  /* no launching call known: other */
  assert_int_equal(rpd_idle_classify(100, 110, -1, 50), RPD_IDLE_OTHER);
}

static void test_priority_overlap(void **state)
{
  (void)state;
  rpd_wf w;
  rpd_wf_init(&w, NCAT, CAT_COMM, 50);
  /* copy 0-100, A 10-60 (key 1), B 30-50 (key 2), comm 40-120 (key 3),
   * other kernel 110-130 (key 4) */
  assert_int_equal(rpd_wf_op(&w, 0, 100, C, -1, -1, -1), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 10, 60, K, CAT_A, 1, 0), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 30, 50, K, CAT_B, 2, 0), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 40, 120, K, CAT_COMM, 3, 0), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 110, 130, K, -1, 4, 0), RPD_OK);
  rpd_wf_finish(&w);
  assert_int_equal(rpd_wf_span(&w), 130);
  /* copy 0-10; A 10-30 and 50-60; B 30-50; comm hidden to 60, exposed
   * 60-110 (the copy under it does not count); other kernels 110-130 */
  assert_int_equal(w.part_ns[RPD_WF_COPY], 10);
  assert_int_equal(w.part_ns[PART(CAT_A)], 30);
  assert_int_equal(w.part_ns[PART(CAT_B)], 20);
  assert_int_equal(w.part_ns[RPD_WF_COMM], 50);
  assert_int_equal(w.part_ns[OTHERK], 20);
  assert_int_equal(w.part_ns[RPD_WF_HOST_WAIT] + w.part_ns[RPD_WF_KERNEL_WAIT] +
                   w.part_ns[RPD_WF_IDLE_OTHER], 0);
  assert_int_equal(parts_sum(&w), 130);
  assert_int_equal(rpd_wf_key_ns(&w, 1), 30);
  assert_int_equal(rpd_wf_key_ns(&w, 2), 20);
  assert_int_equal(rpd_wf_key_ns(&w, 3), 50);
  assert_int_equal(rpd_wf_key_ns(&w, 4), 20);
  assert_int_equal(rpd_wf_key_ns(&w, 99), 0);
  rpd_wf_free(&w);
}

static void test_gaps_by_cause(void **state)
{
  (void)state;
  rpd_wf w;
  rpd_wf_init(&w, NCAT, CAT_COMM, 50);
  /* kernel 1000-2000; gap 2000-3000 ended by an op launched at 2500
   * (host wait); gap 4000-4040 ended by one launched at 1500 (kernel wait,
   * 40 ns); gap 5000-100000 launched at 1600 (other, long); gap
   * 101000-101010 with no launch known (other) */
  assert_int_equal(rpd_wf_op(&w, 1000, 2000, K, CAT_A, 7, 900), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 3000, 4000, K, CAT_A, 7, 2500), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 4040, 5000, C, -1, -1, 1500), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 100000, 101000, K, -1, 8, 1600), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 101010, 101020, K, CAT_B, 9, -1), RPD_OK);
  rpd_wf_finish(&w);
  assert_int_equal(rpd_wf_span(&w), 100020);
  assert_int_equal(w.part_ns[RPD_WF_HOST_WAIT], 1000);
  assert_int_equal(w.part_ns[RPD_WF_KERNEL_WAIT], 40);
  assert_int_equal(w.part_ns[RPD_WF_IDLE_OTHER], 95000 + 10);
  assert_int_equal(w.part_ns[PART(CAT_A)], 2000);
  assert_int_equal(w.part_ns[RPD_WF_COPY], 960);
  assert_int_equal(w.part_ns[OTHERK], 1000);
  assert_int_equal(w.part_ns[PART(CAT_B)], 10);
  assert_int_equal(w.gaps, 4);
  assert_int_equal(parts_sum(&w), 100020);
  assert_int_equal(rpd_wf_key_ns(&w, 7), 2000);
  rpd_wf_free(&w);
}

static void test_ties_nesting_zero(void **state)
{
  (void)state;
  rpd_wf w;
  rpd_wf_init(&w, NCAT, CAT_COMM, 50);
  /* two A kernels start together: the first fed gets the shared time;
   * a nested A kernel inside gets nothing (the earlier start wins); a
   * zero-length op after a gap ends that gap and starts no busy time */
  assert_int_equal(rpd_wf_op(&w, 0, 100, K, CAT_A, 1, 0), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 0, 150, K, CAT_A, 2, 0), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 20, 30, K, CAT_A, 3, 0), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 200, 200, K, CAT_A, 4, 190), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 210, 220, K, CAT_A, 5, 0), RPD_OK);
  rpd_wf_finish(&w);
  assert_int_equal(rpd_wf_key_ns(&w, 1), 100);
  assert_int_equal(rpd_wf_key_ns(&w, 2), 50);
  assert_int_equal(rpd_wf_key_ns(&w, 5), 10);
  assert_int_equal(rpd_wf_key_ns(&w, 3), 0);
  assert_int_equal(rpd_wf_key_ns(&w, 4), 0);
  assert_int_equal(w.part_ns[RPD_WF_HOST_WAIT], 50);     /* 150-200, launch 190 */
  assert_int_equal(w.part_ns[RPD_WF_KERNEL_WAIT], 10);   /* 200-210 */
  assert_int_equal(w.part_ns[PART(CAT_A)], 160);
  assert_int_equal(parts_sum(&w), rpd_wf_span(&w));
  assert_int_equal(rpd_wf_span(&w), 220);
  rpd_wf_free(&w);
}

static void test_order_and_empty(void **state)
{
  (void)state;
  rpd_wf w;
  rpd_wf_init(&w, NCAT, -1, 50);
  rpd_wf_finish(&w);
  assert_int_equal(rpd_wf_span(&w), 0);
  assert_int_equal(parts_sum(&w), 0);
  /* no communication category: a kernel of category 1 is a category */
  assert_int_equal(rpd_wf_op(&w, 10, 20, K, CAT_COMM, 1, -1), RPD_OK);
  /* an end before the start counts as zero length */
  assert_int_equal(rpd_wf_op(&w, 15, 5, K, CAT_A, 2, -1), RPD_OK);
  assert_int_equal(rpd_wf_op(&w, 12, 30, K, CAT_A, 2, -1), RPD_ERANGE);
  rpd_wf_finish(&w);
  assert_int_equal(w.part_ns[PART(CAT_COMM)], 10);
  assert_int_equal(w.part_ns[RPD_WF_COMM], 0);
  assert_int_equal(parts_sum(&w), 10);
  assert_string_equal(rpd_wf_part_name(&w, RPD_WF_HOST_WAIT, NULL), "idle: host_wait");
  const char *names[] = {"A", "COMM", "B"};
  assert_string_equal(rpd_wf_part_name(&w, PART(CAT_B), names), "B");
  assert_string_equal(rpd_wf_part_name(&w, OTHERK, names), "other kernels");
  rpd_wf_free(&w);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_idle_classify),
    cmocka_unit_test(test_priority_overlap),
    cmocka_unit_test(test_gaps_by_cause),
    cmocka_unit_test(test_ties_nesting_zero),
    cmocka_unit_test(test_order_and_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
