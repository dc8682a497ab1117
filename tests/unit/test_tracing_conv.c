/* links: rpd2tracing */
/* test_tracing_conv.c - rpd2tracing's internals that work on a conv or on
 * the launch rows (tools/rpd2tracing/, linked from its library): the args
 * text cache (argtext.c) over a tiny args table -- the forward cursor, a
 * jump that re-seeks, a step back served by a point look-up, missing ids,
 * a NULL string, a non-integer id, and two ids sharing one cache slot --
 * and the external sort of launch rows (sort.c): a hand-ordered handful in
 * memory, and 20000 rows through 200 spilled runs (RPD2TRACING_MEM_MAX)
 * against qsort with the documented order written out here again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core_fixture.h"
#include "tracing.h"

/* ------------------------------------------------------------ argtext */

/* Args table: ids 1..100 "s<id>" except 50 (no row) and 60 (a NULL
 * string); 2904 "mate"; 7000 "far" (7000 & 4095 = 2904: the same cache
 * slot as 2904). */
static void make_args(const char *path)
{
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db,
                                "CREATE TABLE rocpd_string (id integer PRIMARY KEY, string varchar);"
                                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                                " WHERE i < 100) INSERT INTO rocpd_string SELECT i, 's' || i"
                                " FROM n WHERE i <> 50;"
                                "UPDATE rocpd_string SET string = NULL WHERE id = 60;"
                                "INSERT INTO rocpd_string VALUES (2904, 'mate'), (7000, 'far');",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(db);
}

typedef struct argfix {
  conv c;
  argtext a;
  sqlite3_stmt *val;   /* SELECT ?1: the sqlite3_value handed to argtext_get */
} argfix;

/* argtext_get of the integer k (or of text when text is not NULL) gives
 * want (NULL: no text). */
static void expect_arg(argfix *x, int64_t k, const char *text, const char *want)
{
  const char *s = (const char *)"unset";
  size_t n = 99;
  sqlite3_reset(x->val);
  if (text) sqlite3_bind_text(x->val, 1, text, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_int64(x->val, 1, k);
  assert_int_equal(sqlite3_step(x->val), SQLITE_ROW);
  assert_int_equal(argtext_get(&x->c, &x->a, sqlite3_column_value(x->val, 0), &s, &n), RPD_OK);
  if (!want) {
    assert_null(s);
    assert_int_equal(n, 0);
  } else {
    assert_non_null(s);
    assert_int_equal(n, strlen(want));
    assert_string_equal(s, want);
  }
}

static void test_argtext(void **state)
{
  fx_trace *f = *state;
  argfix *x = rpd_xcalloc(1, sizeof *x);
  make_args(f->path);
  assert_int_equal(sqlite3_open_v2(f->path, &x->c.db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  x->c.args_table = "rocpd_string";
  assert_int_equal(sqlite3_prepare_v2(x->c.db, "SELECT ?1", -1, &x->val, NULL), SQLITE_OK);
  assert_int_equal(argtext_open(&x->c, &x->a), RPD_OK);

  expect_arg(x, 1, NULL, "s1");      /* the first seek */
  expect_arg(x, 2, NULL, "s2");      /* one step */
  expect_arg(x, 2, NULL, "s2");      /* the cursor's own row again */
  expect_arg(x, 1, NULL, "s1");      /* back: point look-up */
  for (int64_t k = 3; k <= 40; k++) {   /* stepping forward */
    char w[16];
    snprintf(w, sizeof w, "s%lld", (long long)k);
    expect_arg(x, k, NULL, w);
  }
  expect_arg(x, 50, NULL, NULL);     /* no row: the cursor lands on 51 */
  expect_arg(x, 51, NULL, "s51");
  expect_arg(x, 60, NULL, NULL);     /* a NULL string */
  expect_arg(x, 61, NULL, "s61");
  expect_arg(x, 0, "5", NULL);       /* not an integer: no text */
  expect_arg(x, 60, NULL, NULL);     /* back to the NULL string: look-up */
  expect_arg(x, 7000, NULL, "far");  /* a long jump: re-seek */
  expect_arg(x, 2904, NULL, "mate"); /* back: look-up, cached in slot 2904 */
  expect_arg(x, 8000, NULL, NULL);   /* past the end */
  expect_arg(x, 7000, NULL, "far");  /* slot 2904 holds 2904: look up again */
  expect_arg(x, 2904, NULL, "mate");
  expect_arg(x, 0, NULL, NULL);
  expect_arg(x, -5, NULL, NULL);
  expect_arg(x, 99, NULL, "s99");

  argtext_close(&x->a);
  sqlite3_finalize(x->val);
  sqlite3_close(x->c.db);
  free(x);
}

/* ------------------------------------------------------------ sort */

/* The launch rows' order (tracing.h lrec): ts, markers (queue < 0) first,
 * e descending, id, aux -- written here again, not lrec_cmp. */
static int want_cmp(const void *pa, const void *pb)
{
  const lrec *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  int ma = a->queue < 0, mb = b->queue < 0;
  if (ma != mb) return ma ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return (a->aux > b->aux) - (a->aux < b->aux);
}

static void expect_same(const lrec *got, const lrec *w)
{
  assert_non_null(got);
  assert_int_equal(got->ts, w->ts);
  assert_int_equal(got->e, w->e);
  assert_int_equal(got->id, w->id);
  assert_int_equal(got->aux, w->aux);
  assert_int_equal(got->ostart, w->ostart);
  assert_int_equal(got->oend, w->oend);
  assert_int_equal(got->thread, w->thread);
  assert_int_equal(got->queue, w->queue);
}

static void test_sort_small(void **state)
{
  (void)state;
  char err[ERR_MAX] = "";
  /* given out of order; the order: ts 5 marker e 9, ts 5 marker e 3,
   * ts 5 launch id 1, ts 5 launch id 2 aux 1, ts 5 launch id 2 aux 4,
   * ts 7 launch */
  const lrec in[] = {
      {.ts = 7, .id = 9, .aux = 0, .ostart = 70, .oend = 80, .thread = 1, .queue = 0},
      {.ts = 5, .id = 2, .aux = 4, .ostart = 50, .oend = 60, .thread = 0, .queue = 1},
      {.ts = 5, .e = 3, .id = 3, .aux = 11, .thread = 2, .queue = -1},
      {.ts = 5, .id = 1, .aux = 8, .ostart = -5, .oend = 6, .thread = 0, .queue = 2},
      {.ts = 5, .e = 9, .id = 4, .aux = 12, .thread = 2, .queue = -1},
      {.ts = 5, .id = 2, .aux = 1, .ostart = 51, .oend = 61, .thread = 0, .queue = 1},
  };
  const int order[] = {4, 2, 3, 5, 1, 0};
  sorter so;
  int rc = RPD_OK;
  sorter_init(&so, err);
  for (int i = 0; i < 6; i++) assert_int_equal(sorter_add(&so, &in[i]), RPD_OK);
  assert_int_equal(sorter_begin(&so), RPD_OK);
  assert_int_equal(so.nruns, 0);   /* all in memory */
  for (int i = 0; i < 6; i++) expect_same(sorter_next(&so, &rc), &in[order[i]]);
  assert_null(sorter_next(&so, &rc));
  assert_int_equal(rc, RPD_OK);
  sorter_free(&so);
  /* no rows at all */
  sorter_init(&so, err);
  assert_int_equal(sorter_begin(&so), RPD_OK);
  assert_null(sorter_next(&so, &rc));
  sorter_free(&so);
}

static uint64_t rnd_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state;
}

static void test_sort_spilled(void **state)
{
  (void)state;
  enum { N = 20000 };
  char err[ERR_MAX] = "";
  lrec *v = rpd_xcalloc(N, sizeof *v);
  /* many ties in ts, e and id (the later keys decide), times going
   * backwards and jumping far (the deltas of the runs' encoding), aux
   * unique and reaching both ends of int64 */
  for (size_t i = 0; i < N; i++) {
    lrec *r = &v[i];
    r->ts = (int64_t)(rnd() % 500) * 1000 - 100000 + (i % 97 == 0 ? (int64_t)1 << 50 : 0);
    r->queue = (int32_t)(rnd() % 4) - 1;
    r->e = r->queue < 0 ? (int64_t)(rnd() % 4) * 5000 : 0;
    r->id = (int64_t)(rnd() % 50);
    r->aux = (int64_t)i * 7919 - 50000000;
    r->ostart = (int64_t)(rnd() >> 2) - ((int64_t)1 << 60);
    r->oend = r->ostart + (int64_t)(rnd() % 100000);
    r->thread = (int32_t)(rnd() % 7);
  }
  v[0].aux = INT64_MIN;
  v[1].aux = INT64_MAX;
  setenv("RPD2TRACING_MEM_MAX", "5600", 1);   /* 100 rows a chunk */
  sorter so;
  int rc = RPD_OK;
  sorter_init(&so, err);
  unsetenv("RPD2TRACING_MEM_MAX");
  for (size_t i = 0; i < N; i++) assert_int_equal(sorter_add(&so, &v[i]), RPD_OK);
  assert_int_equal(sorter_begin(&so), RPD_OK);
  assert_true(so.nruns >= N / 100);   /* the spilled runs and the last chunk */
  qsort(v, N, sizeof *v, want_cmp);
  for (size_t i = 0; i < N; i++) expect_same(sorter_next(&so, &rc), &v[i]);
  assert_null(sorter_next(&so, &rc));
  assert_int_equal(rc, RPD_OK);
  assert_string_equal(err, "");
  sorter_free(&so);
  free(v);
}

static int setup(void **state)
{
  return fx_trace_setup(state, NULL, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_argtext, setup, fx_trace_teardown),
    cmocka_unit_test(test_sort_small),
    cmocka_unit_test(test_sort_spilled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
