/* test_opt.c - rpd_opt_parse: each kind of value, the spellings, "--",
 * positionals, ranges and the messages of a bad command line; argparse's
 * spellings (abbreviations, clusters, several values). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpd.h"
#include "opt.h"
#include "timeopt.h"

typedef struct vals {
  int flag, level, n;
  int64_t big, size;
  double ratio;
  const char *out, *start;
  rpd_opt_list names;
  int calls;
  char last[64];
} vals;

static int on_rule(void *ctx, const char *name, const char *value, char *msg, size_t msgsz)
{
  vals *v = ctx;
  (void)name;
  if (strchr(value, '=') == NULL) {
    snprintf(msg, msgsz, "bad --rule '%s': use NAME=VALUE", value);
    return 1;
  }
  v->calls++;
  snprintf(v->last, sizeof v->last, "%s", value);
  return 0;
}

static int on_reset(void *ctx, const char *name, const char *value, char *msg, size_t msgsz)
{
  vals *v = ctx;
  (void)msg, (void)msgsz;
  assert_null(value);
  assert_string_equal(name, "--reset");
  v->calls = 100;
  return 0;
}

/* The table of the tests, pointing into *v. */
#define TABLE(v)                                                                 \
  rpd_opt extra[] = { RPD_OPT_STRING("-o|--output", &(v)->out), RPD_OPT_END() }; \
  rpd_opt t[] = {                                                                \
    RPD_OPT_FLAG("-f|--force|--dryrun", &(v)->flag),                             \
    RPD_OPT_SET("--verbose", &(v)->level, 3),                                    \
    RPD_OPT_INT("-n|--top", &(v)->n, 1, 1000, NULL),                             \
    RPD_OPT_I64("--seed", &(v)->big, 0, 0, NULL),                                \
    RPD_OPT_SIZE("--max-size", &(v)->size, NULL),                                \
    RPD_OPT_DOUBLE("--ratio", &(v)->ratio, 0, 0, NULL),                          \
    RPD_OPT_TIME("--start", &(v)->start, RPD_TIMEOPT_DEFAULT),                   \
    RPD_OPT_LIST("--name", &(v)->names),                                         \
    RPD_OPT_CALL("--rule", on_rule, (v)),                                        \
    RPD_OPT_CALL0("--reset", on_reset, (v)),                                     \
    RPD_OPT_TABLE(extra),                                                        \
    RPD_OPT_END(),                                                               \
  }

static int parse(vals *v, char *msg, int argc, char **argv)
{
  TABLE(v);
  return rpd_opt_parse(t, 0, argc, argv, msg, 256);
}

static void test_kinds(void **state)
{
  (void)state;
  vals v = { 0 };
  char msg[256];
  char *argv[] = { "prog", "a.rpd", "--dryrun", "--verbose", "--top", "64",
                   "--seed=-9223372036854775808", "--max-size", "1.5K", "--ratio=0.25",
                   "--start", "-8ms", "--name", "x", "--name=y", "--rule", "k=1",
                   "-oOUT.rpd", "b.rpd", "-", "-q", NULL };
  int argc = (int)(sizeof argv / sizeof *argv) - 1;

  rpd_quiet = 0;
  assert_int_equal(parse(&v, msg, argc, argv), 3);
  assert_string_equal(argv[0], "a.rpd");
  assert_string_equal(argv[1], "b.rpd");
  assert_string_equal(argv[2], "-");
  assert_null(argv[3]);
  assert_int_equal(v.flag, 1);
  assert_int_equal(v.level, 3);
  assert_int_equal(v.n, 64);
  assert_int_equal(v.big, INT64_MIN);
  assert_int_equal(v.size, 1536);
  assert_true(v.ratio == 0.25);
  assert_string_equal(v.start, "-8ms");
  assert_int_equal(v.names.n, 2);
  assert_string_equal(v.names.v[0], "x");
  assert_string_equal(v.names.v[1], "y");
  assert_int_equal(v.calls, 1);
  assert_string_equal(v.last, "k=1");
  assert_string_equal(v.out, "OUT.rpd");
  assert_int_equal(rpd_quiet, 1);
  rpd_quiet = 0;
  rpd_opt_list_free(&v.names);
}

static void test_spellings(void **state)
{
  (void)state;
  vals v = { 0 };
  char msg[256];
  char *a1[] = { "prog", "--output", "x", "--top=7", "--reset", NULL };
  assert_int_equal(parse(&v, msg, 5, a1), 0);
  assert_string_equal(v.out, "x");
  assert_int_equal(v.n, 7);
  assert_int_equal(v.calls, 100);
  char *a2[] = { "prog", "-o", "--x", "-n", "1000", "--output=", NULL };
  assert_int_equal(parse(&v, msg, 6, a2), 0);
  assert_string_equal(v.out, "");   /* --output= gives the empty value */
  assert_int_equal(v.n, 1000);
  /* "--" ends the options: what follows is positional */
  char *a3[] = { "prog", "-f", "--", "--top", "-o", NULL };
  v.flag = 0;
  assert_int_equal(parse(&v, msg, 5, a3), 2);
  assert_int_equal(v.flag, 1);
  assert_string_equal(a3[0], "--top");
  assert_string_equal(a3[1], "-o");
}

static void test_errors(void **state)
{
  (void)state;
  vals v = { 0 };
  char msg[256];
  char *a1[] = { "prog", "--nope", NULL };
  assert_int_equal(parse(&v, msg, 2, a1), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '--nope'");
  char *a2[] = { "prog", "a", "--top", NULL };
  assert_int_equal(parse(&v, msg, 3, a2), RPD_OPT_ENEEDVAL);
  assert_string_equal(msg, "option '--top' needs a value");
  char *a3[] = { "prog", "--top", "0", NULL };
  assert_int_equal(parse(&v, msg, 3, a3), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "option '--top': '0' is not a number in 1..1000");
  char *a4[] = { "prog", "-n1001", NULL };
  assert_int_equal(parse(&v, msg, 2, a4), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "option '-n': '1001' is not a number in 1..1000");
  char *a5[] = { "prog", "--top=12x", NULL };
  assert_int_equal(parse(&v, msg, 2, a5), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "option '--top': '12x' is not a number in 1..1000");
  char *a6[] = { "prog", "--seed", "9223372036854775808", NULL };
  assert_int_equal(parse(&v, msg, 3, a6), RPD_OPT_EBADVAL);
  char *a7[] = { "prog", "--force=1", NULL };
  assert_int_equal(parse(&v, msg, 2, a7), RPD_OPT_ENOVAL);
  assert_string_equal(msg, "option '--force' takes no value");
  char *a8[] = { "prog", "--ratio", "nan", NULL };
  assert_int_equal(parse(&v, msg, 3, a8), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "option '--ratio': 'nan' is not a number");
  char *a9[] = { "prog", "--start", "12parsecs", NULL };
  assert_int_equal(parse(&v, msg, 3, a9), RPD_OPT_EBADVAL);
  assert_non_null(strstr(msg, "option '--start': "));
  char *a10[] = { "prog", "--rule", "k", NULL };
  assert_int_equal(parse(&v, msg, 3, a10), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "bad --rule 'k': use NAME=VALUE");
  char *a11[] = { "prog", "--max-size", "0", NULL };
  assert_int_equal(parse(&v, msg, 3, a11), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "option '--max-size': '0' is not a size like 500M or 2G");
  char *a12[] = { "prog", "-x", NULL };
  assert_int_equal(parse(&v, msg, 2, a12), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '-x'");
}

static void test_own_message(void **state)
{
  (void)state;
  int top = 5;
  char msg[256];
  rpd_opt t[] = {
    RPD_OPT_INT("--top", &top, 1, 1000, "--top must be a number from 1 to 1000, not '%s'"),
    RPD_OPT_END(),
  };
  char *a[] = { "prog", "--top", "-3", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 3, a, msg, sizeof msg), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "--top must be a number from 1 to 1000, not '-3'");
  assert_int_equal(top, 5);   /* untouched */
}

static void test_flags(void **state)
{
  (void)state;
  int f = 0;
  char msg[256];
  rpd_opt t[] = { RPD_OPT_FLAG("-f", &f), RPD_OPT_END() };
  /* a command word: what follows belongs to it */
  char *a1[] = { "prog", "-f", "start", "-f", "--x", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_STOP_AT_ARG, 5, a1, msg, sizeof msg), 3);
  assert_string_equal(a1[0], "start");
  assert_string_equal(a1[1], "-f");
  assert_string_equal(a1[2], "--x");
  /* unknown options kept for the caller */
  char *a2[] = { "prog", "-inf", "-f", "x", NULL };
  f = 0;
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_KEEP_UNKNOWN, 4, a2, msg, sizeof msg), 2);
  assert_int_equal(f, 1);
  assert_string_equal(a2[0], "-inf");
  assert_string_equal(a2[1], "x");
}

static int on_action(void *ctx, const char *name, const char *value, char *msg, size_t msgsz)
{
  char *got = ctx;
  (void)msg, (void)msgsz;
  snprintf(got, 64, "%s=%s", name, value ? value : "(none)");
  return 0;
}

static void test_pair_optval(void **state)
{
  (void)state;
  const char *pair[2] = { NULL, NULL };
  char got[64] = "", msg[256];
  int f = 0;
  rpd_opt t[] = {
    RPD_OPT_PAIR("--set", pair, NULL, NULL, "TAG and VALUE"),
    RPD_OPT_CALL_OPTVAL("--info", on_action, got),
    RPD_OPT_FLAG("--force", &f),
    RPD_OPT_END(),
  };
  char *a1[] = { "prog", "--set", "k", "v", "--info", "-x.rpd", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 6, a1, msg, sizeof msg), 0);
  assert_string_equal(pair[0], "k");
  assert_string_equal(pair[1], "v");
  assert_string_equal(got, "--info=-x.rpd");
  /* the optional value is not taken when it is an option of the table */
  char *a2[] = { "prog", "--info", "--force", "--set=a", "b", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 5, a2, msg, sizeof msg), 0);
  assert_string_equal(got, "--info=(none)");
  assert_int_equal(f, 1);
  assert_string_equal(pair[0], "a");
  assert_string_equal(pair[1], "b");
  char *a3[] = { "prog", "--set", "k", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 3, a3, msg, sizeof msg), RPD_OPT_ENEEDVAL);
  assert_string_equal(msg, "option '--set' needs TAG and VALUE");
}

/* Abbreviated long names (RPD_OPT_ABBREV): a unique prefix, aliases of one
 * entry are one, an exact name wins, the message names the option in full;
 * names outside the abbreviable table must be whole. */
static void test_abbrev(void **state)
{
  (void)state;
  int var = 0, seq = 0, keep = 0, raw = 0;
  int64_t len = -1;
  char msg[256];
  rpd_opt inner[] = {
    RPD_OPT_FLAG("-v|--variability", &var),
    RPD_OPT_FLAG("-k|--kernelseq|--top", &seq),
    RPD_OPT_I64("--kernelseq-len|--prekernel-seq", &len, 0, 1000, NULL),
    RPD_OPT_FLAG("--keep", &keep),
    RPD_OPT_END(),
  };
  rpd_opt t[] = { RPD_OPT_ABBREV(inner), RPD_OPT_FLAG("--csv-raw", &raw), RPD_OPT_END() };
  char *a1[] = { "prog", "--var", "--to", "--prek", "7", "f", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 6, a1, msg, sizeof msg), 1);
  assert_int_equal(var, 1);
  assert_int_equal(seq, 1);
  assert_int_equal(len, 7);
  assert_string_equal(a1[0], "f");
  /* the exact name, though it is a prefix of another; then --name=value */
  seq = 0;
  char *a2[] = { "prog", "--kernelseq", "--kernelseq-l=3", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 3, a2, msg, sizeof msg), 0);
  assert_int_equal(seq, 1);
  assert_int_equal(len, 3);
  char *a3[] = { "prog", "--ke", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a3, msg, sizeof msg), RPD_OPT_EAMBIG);
  assert_string_equal(msg, "ambiguous option '--ke'");
  char *a4[] = { "prog", "--kernels=2", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a4, msg, sizeof msg), RPD_OPT_EAMBIG);
  assert_string_equal(msg, "ambiguous option '--kernels'");
  /* messages name the option in full */
  char *a5[] = { "prog", "--prekernel", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a5, msg, sizeof msg), RPD_OPT_ENEEDVAL);
  assert_string_equal(msg, "option '--prekernel-seq' needs a value");
  char *a6[] = { "prog", "--vari=1", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a6, msg, sizeof msg), RPD_OPT_ENOVAL);
  assert_string_equal(msg, "option '--variability' takes no value");
  /* outside the table: whole names only (--csv-raw, the built-in --quiet) */
  char *a7[] = { "prog", "--csv", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a7, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '--csv'");
  char *a8[] = { "prog", "--qui", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a8, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  /* a plain table takes no abbreviation */
  char *a9[] = { "prog", "--var", NULL };
  assert_int_equal(rpd_opt_parse(inner, 0, 2, a9, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '--var'");
}

/* Clustered one-letter flags (RPD_OPT_CLUSTER), a value letter ending the
 * cluster; without the flag a cluster is one unknown option. */
static void test_cluster(void **state)
{
  (void)state;
  int c = 0, v = 0, x = 0;
  const char *file = NULL;
  char msg[256];
  rpd_opt t[] = {
    RPD_OPT_FLAG("-c|--categorize", &c),
    RPD_OPT_FLAG("-v", &v),
    RPD_OPT_SET("-x", &x, 5),
    RPD_OPT_STRING("-C|--category-json", &file),
    RPD_OPT_END(),
  };
  char *a1[] = { "prog", "-cv", "t.rpd", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER, 3, a1, msg, sizeof msg), 1);
  assert_int_equal(c, 1);
  assert_int_equal(v, 1);
  assert_int_equal(x, 0);
  assert_string_equal(a1[0], "t.rpd");
  char *a2[] = { "prog", "-xC", "cats.json", "-vCa.json", "-C=b.json", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER, 5, a2, msg, sizeof msg), 0);
  assert_int_equal(x, 5);
  assert_string_equal(file, "b.json");
  char *a3[] = { "prog", "-xvCa.json", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER, 2, a3, msg, sizeof msg), 0);
  assert_string_equal(file, "a.json");
  char *a4[] = { "prog", "-cxC", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER, 2, a4, msg, sizeof msg), RPD_OPT_ENEEDVAL);
  assert_string_equal(msg, "option '-C' needs a value");
  /* an unknown letter is named; the built-in -q is not clustered */
  char *a5[] = { "prog", "-cwv", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER, 2, a5, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '-w'");
  char *a6[] = { "prog", "-cq", NULL };
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER, 2, a6, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '-q'");
  /* kept as it is when its first letter is unknown */
  char *a7[] = { "prog", "-inf", "-cv", NULL };
  c = v = 0;
  assert_int_equal(rpd_opt_parse(t, RPD_OPT_CLUSTER | RPD_OPT_KEEP_UNKNOWN, 3, a7, msg,
                                 sizeof msg), 1);
  assert_string_equal(a7[0], "-inf");
  assert_int_equal(c + v, 2);
  /* without RPD_OPT_CLUSTER: one option, unknown */
  char *a8[] = { "prog", "-cv", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a8, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "unknown option '-cv'");
}

/* Several values (RPD_OPTK_INTS): every following integer, stopping at the
 * first other argument; each use replaces; range and missing value. */
static void test_ints(void **state)
{
  (void)state;
  rpd_opt_ints g = {0};
  int f = 0;
  char msg[256];
  rpd_opt t[] = {
    RPD_OPT_INTS("--gaps", &g, 1, 1000000, "bad --gaps value '%s' (positive us)"),
    RPD_OPT_FLAG("-f", &f),
    RPD_OPT_END(),
  };
  char *a1[] = { "prog", "--gaps", "10", "100", "1000", "t.rpd", "-f", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 7, a1, msg, sizeof msg), 1);
  assert_int_equal(g.n, 3);
  assert_int_equal(g.v[0], 10);
  assert_int_equal(g.v[1], 100);
  assert_int_equal(g.v[2], 1000);
  assert_string_equal(a1[0], "t.rpd");
  assert_int_equal(f, 1);
  /* '=' gives the first value; a later use replaces the values */
  char *a2[] = { "prog", "--gaps=5", "7", "-f", "--gaps", "3", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 6, a2, msg, sizeof msg), 0);
  assert_int_equal(g.n, 1);
  assert_int_equal(g.v[0], 3);
  /* a negative integer is a value, checked against the range */
  char *a3[] = { "prog", "--gaps", "10", "-5", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 4, a3, msg, sizeof msg), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "bad --gaps value '-5' (positive us)");
  char *a4[] = { "prog", "--gaps", "t.rpd", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 3, a4, msg, sizeof msg), RPD_OPT_ENEEDVAL);
  assert_string_equal(msg, "option '--gaps' needs at least one value");
  char *a5[] = { "prog", "--gaps", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a5, msg, sizeof msg), RPD_OPT_ENEEDVAL);
  char *a6[] = { "prog", "--gaps=x", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a6, msg, sizeof msg), RPD_OPT_EBADVAL);
  assert_string_equal(msg, "bad --gaps value 'x' (positive us)");
  rpd_opt_ints_free(&g);
  assert_null(g.v);
  assert_int_equal(g.n, 0);
}

/* The text rpd_opt_help writes for h and t (caller frees), *rc its code. */
static char *help_text(const rpd_help *h, const rpd_opt *t, int *rc)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  *rc = rpd_opt_help(f, h, t);
  fclose(f);
  return buf;
}

/* --help is generated from the table: names, value names, alignment,
 * wrapping, headings, included tables, hidden entries and aliases. */
static void test_help(void **state)
{
  (void)state;
  int flag = 0, n = 0;
  const char *out = NULL;
  const rpd_opt inner[] = {
    RPD_OPT_FLAG("--dry-run|--dryrun", &flag, .help = "print what would change"),
    RPD_OPT_END(),
  };
  const rpd_opt t[] = {
    RPD_OPT_FILE("-o|--output", &out, .arg = "OUT", .help = "write to OUT"),
    RPD_OPT_INT("--top", &n, 1, 9, NULL, .help = "keep the N biggest"),
    RPD_OPT_TABLE(inner),
    RPD_OPT_GROUP("Rare:"),
    RPD_OPT_STRING("--a-very-long-option-name", &out, .arg = "NAME",
                   .help = "a help line long enough to be wrapped at the eightieth column "
                           "by the generator\n  - and an indented item"),
    RPD_OPT_FLAG("--old", &flag, .hidden = 1),
    RPD_OPT_END(),
  };
  const rpd_help h = { .usage = "usage: prog FILE [-o OUT]", .about = "Does a thing.",
                       .notes = "Exit codes: 0 ok, 1 failure, 2 usage.\n",
                       .quiet = "no summary" };
  int rc;
  char *text = help_text(&h, t, &rc);
  assert_int_equal(rc, RPD_OK);
  assert_string_equal(text,
    "usage: prog FILE [-o OUT]\n"
    "\n"
    "Does a thing.\n"
    "\n"
    "    -o, --output OUT      write to OUT\n"
    "    --top N               keep the N biggest\n"
    "    --dry-run             print what would change\n"
    "\n"
    "Rare:\n"
    "    --a-very-long-option-name NAME\n"
    "                          a help line long enough to be wrapped at the\n"
    "                          eightieth column by the generator\n"
    "                            - and an indented item\n"
    "\n"
    "    -q, --quiet           no summary\n"
    "    -h, --help            this text\n"
    "    --version             print the version\n"
    "\n"
    "Exit codes: 0 ok, 1 failure, 2 usage.\n");
  free(text);

  /* every spelling, the shown ones first */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(rpd_opt_list_names(f, t), RPD_OK);
  fclose(f);
  assert_string_equal(buf, "-o\n--output\n--top\n--dry-run\n--a-very-long-option-name\n"
                           "-q\n--quiet\n-h\n--help\n--version\nhidden:\n--dryrun\n--old\n");
  free(buf);
}

/* An option without help text is a bug the generator refuses, naming it. */
static void test_help_missing(void **state)
{
  (void)state;
  int flag = 0;
  const rpd_opt inner[] = {
    RPD_OPT_FLAG("--undocumented", &flag),
    RPD_OPT_END(),
  };
  const rpd_opt t[] = {
    RPD_OPT_FLAG("--fine", &flag, .help = "documented"),
    RPD_OPT_TABLE(inner),
    RPD_OPT_END(),
  };
  const rpd_help h = { .usage = "usage: prog" };
  int rc;
  char *text = help_text(&h, t, &rc);
  assert_int_equal(rc, RPD_ERR);
  assert_string_equal(rpd_errmsg(), "option '--undocumented' has no help text in its table");
  free(text);
  rpd_clearerr();
}

/* The options of another mode: listed by --help, refused with a reason. */
static void test_only_with(void **state)
{
  (void)state;
  int flag = 0, gpu = 0;
  char msg[256];
  const rpd_opt other[] = {
    RPD_OPT_INT("--gpu", &gpu, 0, 9, NULL, .help = "GPU N"),
    RPD_OPT_END(),
  };
  const rpd_opt t[] = {
    RPD_OPT_FLAG("--fine", &flag, .help = "documented"),
    RPD_OPT_ONLY_WITH(other, "goes with --waterfall"),
    RPD_OPT_END(),
  };
  char *a1[] = { "prog", "--fine", "--gpu", "3", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 4, a1, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "option '--gpu' goes with --waterfall");
  assert_int_equal(gpu, 0);
  char *a2[] = { "prog", "--gpu=3", NULL };
  assert_int_equal(rpd_opt_parse(t, 0, 2, a2, msg, sizeof msg), RPD_OPT_EUNKNOWN);
  assert_string_equal(msg, "option '--gpu' goes with --waterfall");
  /* the mode's own table parses it */
  char *a3[] = { "prog", "--gpu", "3", NULL };
  assert_int_equal(rpd_opt_parse(other, 0, 3, a3, msg, sizeof msg), 0);
  assert_int_equal(gpu, 3);
  const rpd_help h = { .usage = "usage: prog" };
  int rc;
  char *text = help_text(&h, t, &rc);
  assert_int_equal(rc, RPD_OK);
  assert_non_null(strstr(text, "\n    --gpu N               GPU N\n"));
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_kinds),
    cmocka_unit_test(test_spellings),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_own_message),
    cmocka_unit_test(test_flags),
    cmocka_unit_test(test_pair_optval),
    cmocka_unit_test(test_abbrev),
    cmocka_unit_test(test_cluster),
    cmocka_unit_test(test_ints),
    cmocka_unit_test(test_help),
    cmocka_unit_test(test_help_missing),
    cmocka_unit_test(test_only_with),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
