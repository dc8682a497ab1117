/* links: raptor */
/* test_opmerge.c - raptor's run merger (raptor/opmerge.c), linked from
 * libraptor.a: ops come back in (gpu, start, id) order with every field
 * intact, late rows open new runs, too many runs is RPD_ERANGE, and a
 * trace big enough to spill its runs to the temp file merges exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rpd.h"
#include "opmerge.h"

static void test_empty(void **state)
{
  (void)state;
  opmerge *m = opmerge_new();
  oprec o;
  assert_non_null(m);
  assert_int_equal(opmerge_next(m, &o), 0);
  assert_int_equal(opmerge_runs(m), 0);
  assert_int_equal(opmerge_count(m), 0);
  opmerge_free(m);
  opmerge_free(NULL);
}

static void test_order(void **state)
{
  (void)state;
  /* table order: GPU 1 and 0 interleaved, two late rows, a start tie */
  static const oprec in[] = {
    {.id = 1, .start = 5, .end = 6, .kern = 11, .gpu = 1},
    {.id = 2, .start = 10, .end = 15, .kern = 12, .gpu = 0},
    {.id = 3, .start = 3, .end = 4, .kern = 13, .gpu = 0},     /* late */
    {.id = 4, .start = 10, .end = 12, .kern = 14, .gpu = 0},   /* tie with id 2 */
    {.id = 5, .start = 1, .end = 9, .kern = 15, .gpu = 1},     /* late */
    {.id = 6, .start = 20, .end = 21, .kern = 16, .gpu = 1},
  };
  static const int64_t want_id[] = {3, 2, 4, 5, 1, 6};
  opmerge *m = opmerge_new();
  for (size_t i = 0; i < sizeof in / sizeof *in; i++)
    assert_int_equal(opmerge_add(m, &in[i]), RPD_OK);
  assert_int_equal(opmerge_count(m), 6);
  /* one run per GPU, plus one for each late row */
  assert_int_equal(opmerge_runs(m), 4);
  oprec o;
  for (size_t i = 0; i < sizeof want_id / sizeof *want_id; i++) {
    assert_int_equal(opmerge_next(m, &o), 1);
    const oprec *w = &in[want_id[i] - 1];
    assert_int_equal(o.id, w->id);
    assert_int_equal(o.start, w->start);
    assert_int_equal(o.end, w->end);
    assert_int_equal(o.kern, w->kern);
    assert_int_equal(o.gpu, w->gpu);
  }
  assert_int_equal(opmerge_next(m, &o), 0);
  opmerge_free(m);
}

/* Every op earlier than the one before on one GPU: a run each, and the
 * one past OPMERGE_MAX_RUNS is refused. */
static void test_too_many_runs(void **state)
{
  (void)state;
  opmerge *m = opmerge_new();
  int rc = RPD_OK;
  int64_t i;
  for (i = 0; i < OPMERGE_MAX_RUNS + 10 && rc == RPD_OK; i++) {
    oprec o = {.id = i + 1, .start = 100000 - i, .end = 100000 - i, .gpu = 0};
    rc = opmerge_add(m, &o);
  }
  assert_int_equal(rc, RPD_ERANGE);
  assert_int_equal(i, OPMERGE_MAX_RUNS + 1);
  assert_int_equal(opmerge_runs(m), OPMERGE_MAX_RUNS);
  opmerge_free(m);
}

/* 400000 ops on 4 GPUs, every 997th row 50 ns late on its GPU: merged in
 * order, each id once (their sum), with the runs spilled in blocks. */
static void test_big(void **state)
{
  (void)state;
  enum { N = 400000 };
  opmerge *m = opmerge_new();
  int64_t clock[4] = {0};
  for (int64_t i = 0; i < N; i++) {
    int32_t gpu = (int32_t)(i % 4);
    clock[gpu] += 10;
    oprec o = {.id = i + 1, .start = clock[gpu] - (i % 997 == 0 ? 50 : 0), .gpu = gpu,
               .kern = (int32_t)(i % 7)};
    o.end = o.start + 3;
    assert_int_equal(opmerge_add(m, &o), RPD_OK);
  }
  assert_int_equal(opmerge_count(m), N);
  assert_true(opmerge_runs(m) >= 5 && opmerge_runs(m) <= OPMERGE_MAX_RUNS);
  oprec prev = {0}, o;
  int64_t n = 0, idsum = 0;
  int s;
  while ((s = opmerge_next(m, &o)) == 1) {
    if (n)
      assert_true(o.gpu > prev.gpu ||
                  (o.gpu == prev.gpu && (o.start > prev.start ||
                                         (o.start == prev.start && o.id > prev.id))));
    assert_int_equal(o.gpu, (o.id - 1) % 4);
    assert_int_equal(o.kern, (o.id - 1) % 7);
    assert_int_equal(o.end, o.start + 3);
    idsum += o.id;
    prev = o;
    n++;
  }
  assert_int_equal(s, 0);
  assert_int_equal(n, N);
  assert_int_equal(idsum, (int64_t)N * (N + 1) / 2);
  opmerge_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_empty),
    cmocka_unit_test(test_order),
    cmocka_unit_test(test_too_many_runs),
    cmocka_unit_test(test_big),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
