/* test_augment.c - rpd_augment_main with a tiny fake augmenter: argument
 * handling, done-tag idempotence, --force, -o, failures leaving the file
 * byte-identical; the CLI message helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>

#include "core_fixture.h"
#include "opt.h"

static const char usage[] =
    "usage: rpd-fake FILE [-o OUT] [--force] [--fail] [--value N] [--no-tag]\n"
    "Adds ext_fake to an RPD trace.\n";

typedef struct {
  int fail, value, no_tag, drops, builds;
} fake_ctx;

static int fake_drop(rpd *r, void *ctx)
{
  ((fake_ctx *)ctx)->drops++;
  return rpd_exec(r, "DROP TABLE IF EXISTS ext_fake");
}

static int fake_build(rpd *r, void *ctx)
{
  fake_ctx *c = ctx;
  int rc;

  c->builds++;
  rc = rpd_execf(r, "CREATE TABLE ext_fake AS SELECT id, %d AS v FROM rocpd_api", c->value);
  if (!rc && c->fail) rc = rpd_exec(r, "INSERT INTO no_such_table VALUES (1)");
  if (!rc && !c->no_tag) rc = rpd_meta_set(r, "Fake::Generated", "True");
  return rc;
}

typedef struct {
  char *dir, *path, *orig;
  fake_ctx ctx;
  rpd_augment a;
  rpd_opt opts[4];
  char out[8192], err[8192];
} fx;

static int setup(void **state)
{
  fx *f = rpd_xcalloc(1, sizeof *f);

  f->dir = fx_mkdtemp();
  f->path = fx_path(f->dir, "t.rpd");
  f->orig = fx_path(f->dir, "orig.rpd");
  if (fx_make_db(f->path, fx_v2_ddl) != 0) return -1;
  fx_copy(f->path, f->orig);
  f->a.usage = usage;
  f->a.what = "the fake table";
  f->a.done_tag = "Fake::Generated";
  /* the fake tool's options, a table pointing into its context */
  const rpd_opt opts[] = {
    RPD_OPT_FLAG("--fail", &f->ctx.fail),
    RPD_OPT_FLAG("--no-tag", &f->ctx.no_tag),
    RPD_OPT_INT("--value", &f->ctx.value, 0, 0, NULL),
    RPD_OPT_END(),
  };
  memcpy(f->opts, opts, sizeof opts);
  f->a.opts = f->opts;
  f->a.drop = fake_drop;
  f->a.build = fake_build;
  f->a.ctx = &f->ctx;
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  fx *f = *state;

  fx_rm_tree(f->dir);
  free(f->dir);
  free(f->path);
  free(f->orig);
  free(f);
  return 0;
}

/* Capture fd 1 or 2 into buf while running the driver. */
static int capture_begin(int fd, const char *file)
{
  int saved = dup(fd), t = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

  fflush(NULL);
  dup2(t, fd);
  close(t);
  return saved;
}

static void capture_end(int fd, int saved, const char *file, char *buf, size_t cap)
{
  size_t n = 0;
  char *s;

  fflush(NULL);
  dup2(saved, fd);
  close(saved);
  s = fx_slurp(file, &n);
  if (n >= cap) n = cap - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  free(s);
  unlink(file);
}

/* Run the driver with a NULL-terminated argument list after "rpd-fake". */
static int run(fx *f, ...)
{
  char *argv[32];
  int argc = 0, rc;
  va_list ap;
  char *fo = fx_path(f->dir, "stdout"), *fe = fx_path(f->dir, "stderr");

  argv[argc++] = "/usr/local/bin/rpd-fake";
  va_start(ap, f);
  for (char *s; (s = va_arg(ap, char *)) && argc < 31;) argv[argc++] = s;
  va_end(ap);
  argv[argc] = NULL;
  f->ctx.fail = f->ctx.no_tag = 0;
  int so = capture_begin(1, fo), se = capture_begin(2, fe);
  rc = rpd_augment_main(&f->a, argc, argv);
  capture_end(2, se, fe, f->err, sizeof f->err);
  capture_end(1, so, fo, f->out, sizeof f->out);
  free(fo);
  free(fe);
  return rc;
}

static void test_usage(void **state)
{
  fx *f = *state;

  assert_int_equal(run(f, "--help", NULL), 0);
  assert_string_equal(f->out, usage);
  assert_string_equal(f->err, "");
  assert_int_equal(run(f, f->path, "-h", NULL), 0);
  assert_string_equal(f->out, usage);
  assert_int_equal(run(f, NULL), 2);
  assert_string_equal(f->err, "rpd-fake: missing FILE\nTry 'rpd-fake --help'.\n");
  assert_int_equal(run(f, f->path, "--bogus", NULL), 2);
  assert_string_equal(f->err, "rpd-fake: unknown option '--bogus'\nTry 'rpd-fake --help'.\n");
  assert_int_equal(run(f, f->path, "other.rpd", NULL), 2);
  assert_non_null(strstr(f->err, "unexpected argument 'other.rpd'"));
  assert_int_equal(run(f, f->path, "-o", NULL), 2);
  assert_int_equal(run(f, f->path, "--value", NULL), 2);
  assert_non_null(strstr(f->err, "needs a value"));
  assert_int_equal(f->ctx.builds, 0);
  assert_true(fx_same_bytes(f->path, f->orig));
  assert_string_equal(rpd_progname, "rpd-fake");
}

static void test_build_once(void **state)
{
  fx *f = *state;
  char *done_msg = rpd_xasprintf("rpd-fake: '%s' already has the fake table; nothing to do "
                                 "(use --force to rebuild)\n", f->path);

  assert_int_equal(run(f, "--value", "7", f->path, NULL), 0);
  assert_string_equal(f->err, "");
  assert_int_equal(f->ctx.builds, 1);
  assert_int_equal(f->ctx.drops, 0);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_fake WHERE v = 7"), 2);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_metadata WHERE tag = "
                                 "'Fake::Generated'"), 1);
  fx_copy(f->path, f->orig);
  /* again: nothing to do, file untouched */
  assert_int_equal(run(f, f->path, NULL), 0);
  assert_string_equal(f->err, done_msg);
  assert_int_equal(f->ctx.builds, 1);
  assert_true(fx_same_bytes(f->path, f->orig));
  /* --force rebuilds without duplicating */
  assert_int_equal(run(f, f->path, "--force", "--value", "9", NULL), 0);
  assert_int_equal(f->ctx.builds, 2);
  assert_int_equal(f->ctx.drops, 1);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_fake"), 2);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM ext_fake WHERE v = 9"), 2);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_metadata WHERE tag = "
                                 "'Fake::Generated'"), 1);
  free(done_msg);
}

static void test_output_copy(void **state)
{
  fx *f = *state;
  char *out = fx_path(f->dir, "out.rpd"), *out2 = fx_path(f->dir, "out2.rpd"),
       *out3 = fx_path(f->dir, "out3.rpd.gz"), *plain = fx_path(f->dir, "p.rpd");
  char *opt = rpd_xasprintf("-o%s", out2), *opt3 = rpd_xasprintf("--output=%s", out3);

  assert_int_equal(run(f, f->path, "-o", out, NULL), 0);
  assert_true(fx_same_bytes(f->path, f->orig));
  assert_int_equal(fx_q(out, "SELECT count(*) FROM ext_fake"), 2);
  /* already done: OUT is still made, as an unchanged copy */
  assert_int_equal(run(f, out, opt, NULL), 0);
  assert_non_null(strstr(f->err, "already has the fake table"));
  assert_true(fx_same_bytes(out, out2));
  assert_int_equal(run(f, "--output", out2, "--force", out, NULL), 0);
  assert_int_equal(fx_q(out2, "SELECT count(*) FROM ext_fake"), 2);
  /* compressed output */
  assert_int_equal(run(f, opt3, f->path, NULL), 0);
  assert_int_equal(fx_gunzip(out3, plain), 0);
  assert_int_equal(fx_q(plain, "SELECT count(*) FROM ext_fake"), 2);
  assert_true(fx_same_bytes(f->path, f->orig));
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);
  free(out);
  free(out2);
  free(out3);
  free(plain);
  free(opt);
  free(opt3);
}

static void test_failure_leaves_file(void **state)
{
  fx *f = *state;
  char *gz = fx_path(f->dir, "t.rpd.gz"), *gzorig = fx_path(f->dir, "gzorig"),
       *out = fx_path(f->dir, "out.rpd"), *missing = fx_path(f->dir, "missing.rpd");
  char *want;

  assert_int_equal(run(f, f->path, "--fail", NULL), 1);
  want = rpd_xasprintf("rpd-fake: '%s': SQL error: no such table: no_such_table in: "
                       "INSERT INTO no_such_table VALUES (1)\n", f->path);
  assert_string_equal(f->err, want);
  free(want);
  assert_true(fx_same_bytes(f->path, f->orig));
  /* -o: no OUT on failure */
  assert_int_equal(run(f, f->path, "--fail", "-o", out, NULL), 1);
  assert_int_equal(access(out, F_OK), -1);
  /* gz in place */
  fx_gzip(f->path, gz, 0);
  fx_copy(gz, gzorig);
  assert_int_equal(run(f, gz, "--fail", NULL), 1);
  assert_true(fx_same_bytes(gz, gzorig));
  assert_int_equal(fx_count(f->dir, "rpdtools-"), 0);
  /* then success on the gz, and the done check on the rewritten gz */
  assert_int_equal(run(f, gz, NULL), 0);
  assert_false(fx_same_bytes(gz, gzorig));
  assert_int_equal(run(f, gz, NULL), 0);
  assert_non_null(strstr(f->err, "already has"));
  /* open failures */
  assert_int_equal(run(f, missing, NULL), 1);
  want = rpd_xasprintf("rpd-fake: cannot open '%s': no such file\n", missing);
  assert_string_equal(f->err, want);
  free(want);
  chmod(f->path, 0444);
  assert_int_equal(run(f, f->path, NULL), 1);
  want = rpd_xasprintf("rpd-fake: cannot open '%s': read-only file\n", f->path);
  assert_string_equal(f->err, want);
  free(want);
  assert_true(fx_same_bytes(f->path, f->orig));
  free(gz);
  free(gzorig);
  free(out);
  free(missing);
}

static void test_tag_safety_net(void **state)
{
  fx *f = *state;

  assert_int_equal(run(f, f->path, "--no-tag", NULL), 0);
  assert_int_equal(fx_q(f->path, "SELECT count(*) FROM rocpd_metadata WHERE tag = "
                                 "'Fake::Generated' AND value = 'True'"), 1);
  assert_int_equal(run(f, f->path, NULL), 0);
  assert_non_null(strstr(f->err, "already has"));
  assert_int_equal(f->ctx.builds, 1);
}

static void test_cli_helpers(void **state)
{
  fx *f = *state;
  char *fe = fx_path(f->dir, "err");
  char *argv[] = { "bin/rpd-x", "a", "--", "--help", NULL };
  int se;

  assert_int_equal(rpd_cli_init(4, argv, usage), 0);   /* --help after -- is a file */
  assert_string_equal(rpd_progname, "rpd-x");
  se = capture_begin(2, fe);
  assert_int_equal(rpd_fail("cannot open '%s': %s", "x.rpd", "not an SQLite database"), 1);
  assert_int_equal(rpd_usage_error("bad value '%s'", "zz"), 2);
  capture_end(2, se, fe, f->err, sizeof f->err);
  assert_string_equal(f->err, "rpd-x: cannot open 'x.rpd': not an SQLite database\n"
                              "rpd-x: bad value 'zz'\nTry 'rpd-x --help'.\n");
  free(fe);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
    cmocka_unit_test_setup_teardown(test_build_once, setup, teardown),
    cmocka_unit_test_setup_teardown(test_output_copy, setup, teardown),
    cmocka_unit_test_setup_teardown(test_failure_leaves_file, setup, teardown),
    cmocka_unit_test_setup_teardown(test_tag_safety_net, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cli_helpers, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
