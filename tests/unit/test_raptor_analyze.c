/* links: raptor */
/* test_raptor_analyze.c - raptor's analysis (raptor/analyze.c, linked from
 * libraptor.a) over a hand-made op array: PreGaps and sequence numbers per
 * GPU, sequence keys with the "(trace start)" pad (or the reference's
 * first ops left out), each kernelseq row's exact statistics, the idle-gap
 * buckets (lo, hi] in us, VarSum, categories and GPU rows, and -z: the
 * zscore and the outliers left out of the statistics. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpd.h"
#include "raptor.h"

typedef struct opdef {
  int32_t gpu;
  int64_t start, end;
  const char *name;
} opdef;

/* Two GPUs, in (gpu, start) order; ns.  GPU 0: gemm 0-1000, add
 * 3000-4000 (PreGap 2000), gemm 4000-6000 (0), gemm 56000-59000 (50000).
 * GPU 1: add 100-600 (first: no PreGap), add 700-2200 (100). */
static const opdef two_gpus[] = {
  {0, 0, 1000, "Cijk_gemm"},  {0, 3000, 4000, "add"}, {0, 4000, 6000, "Cijk_gemm"},
  {0, 56000, 59000, "Cijk_gemm"}, {1, 100, 600, "add"}, {1, 700, 2200, "add"},
};

/* A run over ops[0 .. n) with the built-in categories, default gaps, the
 * ROI 0 .. 60000 ns; seqlen and zthr as given; analyzed. */
static void run(raptor *R, const opdef *ops, size_t n, int seqlen, double zthr, int reference)
{
  raptor_init(R);
  R->opt.seqlen = seqlen;
  R->opt.zthr = zthr;
  R->opt.reference_ops = reference;
  make_gap_labels(R);
  assert_int_equal(categories_load(R), 0);
  R->res.ops = rpd_xcalloc(n, sizeof *R->res.ops);
  R->res.n = R->res.cap = n;
  for (size_t i = 0; i < n; i++)
    R->res.ops[i] = (op){.id = (int64_t)i + 1, .start = ops[i].start, .end = ops[i].end,
                         .gpu = ops[i].gpu, .kern = name_intern(R, ops[i].name)};
  R->res.roi_s = 0;
  R->res.roi_e = 60000;
  analyze(R);
}

static const krow *row_named(const raptor *R, const char *label)
{
  for (size_t i = 0; i < R->res.nrows; i++)
    if (!strcmp(R->res.rows[i].label, label)) return &R->res.rows[i];
  fail_msg("no row '%s'", label);
  return NULL;
}

static void test_rows(void **state)
{
  (void)state;
  raptor R;
  run(&R, two_gpus, 6, 0, -1, 0);
  /* PreGap: -1 first of its GPU, else start - the latest end so far */
  const int64_t pregap[] = {-1, 2000, 0, 50000, -1, 100};
  const int32_t seq[] = {1, 2, 3, 4, 1, 2};
  for (int i = 0; i < 6; i++) {
    assert_int_equal(R.res.ops[i].pregap, pregap[i]);
    assert_int_equal(R.res.ops[i].seq, seq[i]);
  }
  /* --kernelseq-len 0: one key per name */
  assert_int_equal(R.res.nkeys, 2);
  assert_int_equal(R.res.ops[0].key, R.res.ops[3].key);
  assert_int_equal(R.res.ops[1].key, R.res.ops[5].key);

  /* rows by duration: the 50 us gap bucket, gemm, add, the <=10 us bucket */
  assert_int_equal(R.res.nrows, 4);
  assert_string_equal(R.res.rows[0].label, "GAP 20us-50us");
  assert_string_equal(R.res.rows[1].label, "Cijk_gemm");
  assert_string_equal(R.res.rows[2].label, "add");
  assert_string_equal(R.res.rows[3].label, "GAP <=10us");
  const krow *g = row_named(&R, "Cijk_gemm");
  assert_int_equal(g->calls, 3);
  assert_int_equal(g->outliers, 0);
  assert_true(g->d_sum == 6000 && g->d_min == 1000 && g->d_max == 3000 && g->d_mean == 2000);
  assert_true(g->d_std == 1000);                         /* sample std of 1000, 2000, 3000 */
  assert_true(g->pg_sum == 50000 && g->pg_min == 0 && g->pg_max == 50000);
  assert_true(g->pg_mean == 25000);                      /* the first op has no PreGap */
  assert_int_equal(g->smin, 0);
  assert_int_equal(g->smax, 56000);
  assert_true(g->varsum == 3000);                        /* (2000 - 1000) x 3 */
  assert_string_equal(R.res.catname[g->cat], "GEMM");
  const krow *a = row_named(&R, "add");
  assert_true(a->d_sum == 3000 && a->d_mean == 1000 && a->varsum == 1500);
  assert_true(a->pg_sum == 2100 && a->pg_mean == 1050);
  assert_int_equal(a->cat, R.res.cat_other);
  /* a key's PreGap sum picks its bucket: 50000 ns in (20, 50] us */
  const krow *b50 = row_named(&R, "GAP 20us-50us");
  assert_int_equal(b50->key, -1);
  assert_int_equal(b50->cat, 0);
  assert_int_equal(b50->calls, 3);
  assert_int_equal(b50->outliers, -1);
  assert_true(b50->d_sum == 50000 && b50->d_min == 0 && b50->d_max == 50000);
  assert_true(b50->d_mean == 25000);
  assert_true(isnan(b50->varsum) && isnan(b50->pg_sum));
  const krow *b10 = row_named(&R, "GAP <=10us");
  assert_true(b10->d_sum == 2100 && b10->d_min == 100 && b10->d_max == 2000);
  assert_true(R.res.total_ns == 61100);
  assert_true(g->pct == 6000.0 / 61100.0 * 100.0);
  assert_true(R.res.var_other == 4500 && R.res.var_comm == 0);

  /* categories by duration; idle = both buckets */
  assert_int_equal(R.res.ncrows, 3);
  assert_string_equal(R.res.crows[0].name, "_GPU_Idle");
  assert_int_equal(R.res.crows[0].uniq, 2);
  assert_int_equal(R.res.crows[0].calls, 6);
  assert_true(R.res.crows[0].dur == 52100);
  assert_string_equal(R.res.crows[1].name, "GEMM");
  assert_true(R.res.crows[1].avg_us == 2.0 && R.res.crows[1].varsum == 3000);
  assert_string_equal(R.res.crows[2].name, "_Other");
  assert_true(R.res.crows[2].dur == 3000);

  /* GPU rows: busy, idle, margins to the ROI */
  assert_int_equal(R.res.ngrows, 2);
  assert_int_equal(R.res.grows[0].gpu, 0);
  assert_true(R.res.grows[0].pregap == 52000 && R.res.grows[0].dur == 7000);
  assert_true(R.res.grows[0].lead == 0 && R.res.grows[0].trail == 1000);
  assert_true(R.res.grows[0].idle_pct == 52000.0 / 59000.0 * 100.0);
  assert_true(R.res.grows[1].pregap == 100 && R.res.grows[1].dur == 2000);
  assert_true(R.res.grows[1].lead == 100 && R.res.grows[1].trail == 57800);
  raptor_free(&R);
}

/* -z: population zscore within the key; |z| >= Z is an outlier, left out
 * of the row's statistics and counted in its outliers column. */
static void test_zscore(void **state)
{
  (void)state;
  raptor R;
  run(&R, two_gpus, 6, 0, 1.2, 0);
  /* gemm 1000, 2000, 3000: mean 2000, population std 1000 * sqrt(2/3) */
  assert_true(fabs(op_zscore(&R, &R.res.ops[0]) + sqrt(1.5)) < 1e-12);
  assert_true(op_zscore(&R, &R.res.ops[2]) == 0);
  assert_true(fabs(op_zscore(&R, &R.res.ops[3]) - sqrt(1.5)) < 1e-12);
  assert_int_equal(op_outlier(&R, &R.res.ops[0]), 1);
  assert_int_equal(op_outlier(&R, &R.res.ops[2]), 0);
  assert_int_equal(op_outlier(&R, &R.res.ops[3]), 1);
  const krow *g = row_named(&R, "Cijk_gemm");
  assert_int_equal(g->calls, 1);
  assert_int_equal(g->outliers, 2);
  assert_true(g->d_sum == 2000 && isnan(g->d_std));
  /* the kept op's PreGap is 0: no bucket for gemm any more */
  for (size_t i = 0; i < R.res.nrows; i++) assert_string_not_equal(R.res.rows[i].label, "GAP 20us-50us");
  raptor_free(&R);
  /* -z off: never an outlier; a one-op key has zscore 0 */
  run(&R, two_gpus, 1, 0, -1, 0);
  assert_true(op_zscore(&R, &R.res.ops[0]) == 0);
  assert_int_equal(op_outlier(&R, &R.res.ops[0]), 0);
  assert_int_equal(op_dur(&(op){.start = 10, .end = 5}), 0);
  raptor_free(&R);
}

/* Sequence keys of --kernelseq-len 1: (kernel, predecessor), the first op
 * padded with "(trace start)"; --reference-ops leaves it out instead. */
static void test_keys(void **state)
{
  (void)state;
  static const opdef abab[] = {
    {0, 0, 10, "A"}, {0, 20, 30, "B"}, {0, 40, 50, "A"}, {0, 60, 70, "B"}, {0, 80, 90, "A"},
  };
  raptor R;
  run(&R, abab, 5, 1, -1, 0);
  assert_int_equal(R.res.nkeys, 3);   /* (A, start) (B, A) (A, B) */
  assert_int_equal(R.res.ops[1].key, R.res.ops[3].key);
  assert_int_equal(R.res.ops[2].key, R.res.ops[4].key);
  assert_int_not_equal(R.res.ops[0].key, R.res.ops[2].key);
  int32_t k0 = R.res.ops[0].key;
  assert_string_equal(R.res.names[R.res.keyk[k0 * 2]], "A");
  assert_string_equal(R.res.names[R.res.keyk[k0 * 2 + 1]], "(trace start)");
  const krow *ab = NULL;
  for (size_t i = 0; i < R.res.nrows; i++)
    if (R.res.rows[i].key == R.res.ops[2].key) ab = &R.res.rows[i];
  assert_non_null(ab);
  assert_int_equal(ab->calls, 2);
  assert_true(ab->pg_sum == 20 && ab->d_sum == 20);
  raptor_free(&R);
  run(&R, abab, 5, 1, -1, 1);
  assert_int_equal(R.res.ops[0].key, -1);
  assert_int_equal(R.res.nkeys, 2);
  int64_t calls = 0;
  for (size_t i = 0; i < R.res.nrows; i++)
    if (R.res.rows[i].key >= 0) calls += R.res.rows[i].calls;
  assert_int_equal(calls, 4);
  raptor_free(&R);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rows),
    cmocka_unit_test(test_zscore),
    cmocka_unit_test(test_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
