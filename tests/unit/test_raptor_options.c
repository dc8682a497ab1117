/* links: raptor */
/* test_raptor_options.c - classic raptor's command line (raptor/options.c,
 * linked from libraptor.a): what raptor_parse_args stores for the spellings
 * of the reference's argparse (prefixes, clusters, several --gaps values),
 * the one-line message and usage mark of each bad command line, the
 * options recorded for the outputs, and the gap rows' labels
 * (make_gap_labels). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rpd.h"
#include "raptor.h"

/* Parse the NULL-ended arguments (after the program name) into *R, fresh;
 * returns raptor_parse_args's code. */
static int parse(raptor *R, ...)
{
  char *argv[64];
  int argc = 0;
  va_list ap;
  argv[argc++] = "raptor";
  va_start(ap, R);
  for (char *a; (a = va_arg(ap, char *)) != NULL;) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  char *copy[64];
  memcpy(copy, argv, sizeof argv);
  raptor_init(R);
  int rc = raptor_parse_args(R, argc, argv);
  /* the caller's argv is left as it was */
  for (int i = 0; i <= argc; i++) assert_ptr_equal(argv[i], copy[i]);
  return rc;
}

static void test_defaults(void **state)
{
  (void)state;
  raptor R;
  assert_int_equal(parse(&R, "t.rpd", NULL), 0);
  assert_string_equal(R.opt.path, "t.rpd");
  assert_int_equal(R.opt.seqlen, 2);
  assert_true(R.opt.zthr == -1);
  assert_int_equal(R.opt.gpu_id, -1);
  assert_int_equal(R.opt.display_cols, 60);
  assert_int_equal(R.opt.display_rows, 500);
  assert_int_equal(R.opt.float_digits, 1);
  assert_int_equal(R.opt.width, -1);
  assert_int_equal(R.opt.fmt, RPD_FMT_TABLE);
  assert_int_equal(R.opt.categorize + R.opt.kernelseq + R.opt.variability, 0);
  assert_null(R.opt.gaps);
  assert_null(R.opt.optstr.s);
  assert_null(R.err);
  /* the default buckets and their labels */
  make_gap_labels(&R);
  assert_int_equal(R.opt.ngaps, 7);
  assert_int_equal(R.opt.gaps[6], 100000);
  assert_string_equal(R.opt.gap_labels[0], "GAP <=10us");
  assert_string_equal(R.opt.gap_labels[3], "GAP 50us-100us");
  assert_string_equal(R.opt.gap_labels[7], "GAP >100000us");
  raptor_free(&R);
}

/* Every option's value, long and short, in the spellings argparse takes. */
static void test_values(void **state)
{
  (void)state;
  raptor R;
  assert_int_equal(parse(&R, "-cvk", "-C", "cats.json", "-l100", "--kernelseq-len=0", "-z",
                         "2.5", "-o", "--op-trace-file", "ops.txt", "-W", "80", "-i", "-1",
                         "-s", "-8ms", "-e=90%", "--auto-roi", "--roi-trim", "--gpu-id", "3",
                         "--display-cols", "20", "--display-rows", "7", "--float-digits", "3",
                         "--write-xls-op-trace", "--format", "json", "--save", "--gpu-summary",
                         "--reference-ops", "--csv-dir", "out", "--width", "0", "t.rpd", NULL),
                   0);
  assert_int_equal(R.opt.categorize, 1);
  assert_int_equal(R.opt.variability, 1);
  assert_int_equal(R.opt.kernelseq, 1);
  assert_string_equal(R.opt.cat_file, "cats.json");
  assert_int_equal(R.opt.latency_ns, 100);
  assert_int_equal(R.opt.seqlen, 0);
  assert_true(R.opt.zthr == 2.5);
  assert_int_equal(R.opt.op_trace, 1);
  assert_string_equal(R.opt.op_file, "ops.txt");
  assert_int_equal(R.opt.op_width, 80);
  assert_int_equal(R.opt.have_instance, 1);
  assert_int_equal(R.opt.instance, -1);
  assert_string_equal(R.opt.roi_start_s, "-8ms");
  assert_string_equal(R.opt.roi_end_s, "90%");
  assert_int_equal(R.opt.auto_roi, 1);
  assert_int_equal(R.opt.roi_trim, 1);
  assert_int_equal(R.opt.gpu_id, 3);
  assert_int_equal(R.opt.display_cols, 20);
  assert_int_equal(R.opt.display_rows, 7);
  assert_int_equal(R.opt.float_digits, 3);
  assert_int_equal(R.opt.write_xls, 1);
  assert_int_equal(R.opt.xls_op_trace, 1);
  assert_int_equal(R.opt.fmt, RPD_FMT_JSON);
  assert_int_equal(R.opt.save, 1);
  assert_int_equal(R.opt.gpu_summary, 1);
  assert_int_equal(R.opt.reference_ops, 1);
  assert_string_equal(R.opt.csv_dir, "out");
  assert_int_equal(R.opt.width, 0);
  assert_string_equal(R.opt.path, "t.rpd");
  raptor_free(&R);
}

/* The reference's names and unique prefixes; -x alone is only the xlsx. */
static void test_aliases(void **state)
{
  (void)state;
  raptor R;
  assert_int_equal(parse(&R, "--top", "--prekernel-seq", "5", "--zscore-threshold", "3",
                         "--auto-roi-top", "t.rpd", "-x", NULL), 0);
  assert_int_equal(R.opt.kernelseq, 1);
  assert_int_equal(R.opt.seqlen, 5);
  assert_true(R.opt.zthr == 3);
  assert_int_equal(R.opt.auto_roi, 1);
  assert_int_equal(R.opt.write_xls, 1);
  assert_int_equal(R.opt.xls_op_trace, 0);
  raptor_free(&R);
  assert_int_equal(parse(&R, "--var", "--categori", "--prek=4", "--zscore_t", "1", "--ref",
                         "--op-trace-c", "9", "--csv", "d", "t.rpd", NULL), 0);
  assert_int_equal(R.opt.variability, 1);
  assert_int_equal(R.opt.categorize, 1);
  assert_int_equal(R.opt.seqlen, 4);
  assert_true(R.opt.zthr == 1);
  assert_int_equal(R.opt.reference_ops, 1);
  assert_int_equal(R.opt.op_width, 9);
  assert_string_equal(R.opt.csv_dir, "d");   /* --csv-raw must be whole */
  raptor_free(&R);
  /* inf is a threshold no op reaches */
  assert_int_equal(parse(&R, "t.rpd", "-z", "inf", NULL), 0);
  assert_true(R.opt.zthr > 1e308);
  raptor_free(&R);
}

/* --gaps: every following integer, the trace after them positional;
 * sorted, repeats dropped; a later --gaps replaces; labels follow. */
static void test_gaps(void **state)
{
  (void)state;
  raptor R;
  assert_int_equal(parse(&R, "--gaps", "1000", "10", "1000", "50", "t.rpd", "-k", NULL), 0);
  assert_string_equal(R.opt.path, "t.rpd");
  assert_int_equal(R.opt.ngaps, 3);
  assert_int_equal(R.opt.gaps[0], 10);
  assert_int_equal(R.opt.gaps[1], 50);
  assert_int_equal(R.opt.gaps[2], 1000);
  make_gap_labels(&R);
  assert_string_equal(R.opt.gap_labels[0], "GAP <=10us");
  assert_string_equal(R.opt.gap_labels[1], "GAP 10us-50us");
  assert_string_equal(R.opt.gap_labels[2], "GAP 50us-1000us");
  assert_string_equal(R.opt.gap_labels[3], "GAP >1000us");
  assert_string_equal(R.opt.optstr.s, "--gaps 1000 10 1000 50 -k");
  raptor_free(&R);
  assert_int_equal(parse(&R, "t.rpd", "--gaps=7", "3", "--gaps", "100", NULL), 0);
  assert_int_equal(R.opt.ngaps, 1);
  assert_int_equal(R.opt.gaps[0], 100);
  make_gap_labels(&R);
  assert_string_equal(R.opt.gap_labels[0], "GAP <=100us");
  assert_string_equal(R.opt.gap_labels[1], "GAP >100us");
  raptor_free(&R);
  /* the largest bucket */
  assert_int_equal(parse(&R, "t.rpd", "--gaps", "1073741823", NULL), 0);
  assert_int_equal(R.opt.gaps[0], 1073741823);
  raptor_free(&R);
}

/* What the outputs record: options and values as given, not the trace,
 * "--", -q, --quiet or --csv-raw. */
static void test_recorded(void **state)
{
  (void)state;
  raptor R;
  assert_int_equal(parse(&R, "--save", "-q", "-kz", "3", "--csv-raw", "--quiet",
                         "--kernelseq-len=1", "-s", "10%", "--", "t.rpd", NULL), 0);
  assert_string_equal(R.opt.optstr.s, "--save -kz 3 --kernelseq-len=1 -s 10%");
  assert_string_equal(R.opt.path, "t.rpd");
  raptor_free(&R);
  /* after "--" an option-like name is the trace */
  assert_int_equal(parse(&R, "-c", "--", "-k", NULL), 0);
  assert_string_equal(R.opt.path, "-k");
  assert_int_equal(R.opt.kernelseq, 0);
  assert_string_equal(R.opt.optstr.s, "-c");
  raptor_free(&R);
}

/* One bad command line: exit code 2, marked as a usage error, one line. */
static void bad(const char *want, ...)
{
  char *argv[64];
  int argc = 0;
  va_list ap;
  argv[argc++] = "raptor";
  va_start(ap, want);
  for (char *a; (a = va_arg(ap, char *)) != NULL;) argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  raptor R;
  raptor_init(&R);
  assert_int_equal(raptor_parse_args(&R, argc, argv), 2);
  assert_int_equal(R.err_usage, 1);
  assert_non_null(R.err);
  assert_string_equal(R.err, want);
  raptor_free(&R);
}

static void test_errors(void **state)
{
  (void)state;
  bad("missing FILE", "-c", NULL);
  bad("missing FILE", NULL);
  bad("unexpected argument 'b.rpd'", "a.rpd", "b.rpd", NULL);
  bad("unknown option '--bogus'", "t.rpd", "--bogus", NULL);
  bad("unknown option '--bogus=1'", "t.rpd", "--bogus=1", NULL);
  bad("unknown option '-w'", "t.rpd", "-w", NULL);
  bad("unknown option '-w'", "t.rpd", "-cwv", NULL);
  bad("unknown option '-q'", "t.rpd", "-cq", NULL);
  bad("unknown option '--qu'", "t.rpd", "--qu", NULL);
  bad("ambiguous option '--ke'", "t.rpd", "--ke", NULL);
  bad("ambiguous option '--categ'", "t.rpd", "--categ", NULL);
  bad("ambiguous option '--write'", "t.rpd", "--write=1", NULL);
  bad("option '--variability' takes no value", "t.rpd", "--var=1", NULL);
  bad("option '--categorize' takes no value", "t.rpd", "--categorize=yes", NULL);
  bad("option '--prekernel-seq' needs a value", "t.rpd", "--prekernel", NULL);
  bad("option '-C' needs a value", "t.rpd", "-C", NULL);
  bad("option '-z' needs a value", "t.rpd", "-kz", NULL);
  bad("bad --kernelseq-len '1001' (0..1000)", "t.rpd", "--kernelseq-len", "1001", NULL);
  bad("bad --kernelseq-len '-1' (0..1000)", "t.rpd", "--prekernel-seq=-1", NULL);
  bad("bad --category-latency-ns '-1' (ns per call, 0 .. 2^62)", "t.rpd", "-l", "-1", NULL);
  bad("bad --category-latency-ns '4611686018427387904' (ns per call, 0 .. 2^62)", "t.rpd",
      "-l", "4611686018427387904", NULL);
  bad("bad --zscore_threshold 'abc'", "t.rpd", "-z", "abc", NULL);
  bad("bad --zscore_threshold 'nan'", "t.rpd", "-znan", NULL);
  bad("bad --zscore_threshold ''", "t.rpd", "-z=", NULL);
  bad("bad --op-trace-cmd-width '-3'", "t.rpd", "-W", "-3", NULL);
  bad("bad --instance-trace 'x'", "t.rpd", "-i", "x", NULL);
  bad("bad --gpu-id '-2'", "t.rpd", "--gpu-id", "-2", NULL);
  bad("bad --gpu-id '2147483648'", "t.rpd", "--gpu-id", "2147483648", NULL);
  bad("bad --display-cols 'x'", "t.rpd", "--display-cols", "x", NULL);
  bad("bad --display-rows '-1'", "t.rpd", "--display-rows=-1", NULL);
  bad("bad --float-digits '18' (0..17)", "t.rpd", "--float-digits", "18", NULL);
  bad("bad --format 'xml' (table, csv, json)", "t.rpd", "--format", "xml", NULL);
  bad("empty --csv-dir", "t.rpd", "--csv-dir=", NULL);
  bad("bad --width '-1' (columns; 0 = no limit)", "t.rpd", "--width", "-1", NULL);
  bad("option '--gaps' needs at least one value", "t.rpd", "--gaps", "-c", NULL);
  bad("option '--gaps' needs at least one value", "t.rpd", "--gaps", NULL);
  bad("bad --gaps value '-5' (positive us)", "t.rpd", "--gaps", "10", "-5", NULL);
  bad("bad --gaps value '0' (positive us)", "t.rpd", "--gaps=0", NULL);
  bad("bad --gaps value '1073741824' (positive us)", "t.rpd", "--gaps", "1073741824", NULL);
  /* the first bad argument is the one named */
  bad("unknown option '--x'", "t.rpd", "--x", "--y", NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_aliases),
    cmocka_unit_test(test_gaps),
    cmocka_unit_test(test_recorded),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
