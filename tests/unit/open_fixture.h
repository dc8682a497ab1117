/* open_fixture.h - the fixture of the rpd_open tests (test_open.c,
 * test_untrusted.c): a scratch directory and $TMPDIR per test, and
 * expect_fail, which holds an open that must fail to its status and
 * message with the file byte-identical and no temp file anywhere. */
#ifndef OPEN_FIXTURE_H
#define OPEN_FIXTURE_H

#include "core_fixture.h"

typedef struct {
  char *dir;      /* scratch dir for the test's files */
  char *tmp;      /* $TMPDIR during the test */
} fx;

static int setup(void **state)
{
  fx *f = rpd_xcalloc(1, sizeof *f);

  unsetenv("TMPDIR");
  f->dir = fx_mkdtemp();
  f->tmp = fx_path(f->dir, "tmpdir");
  mkdir(f->tmp, 0700);
  setenv("TMPDIR", f->tmp, 1);
  setenv("RPD_BUSY_TIMEOUT_MS", "100", 1);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  fx *f = *state;

  fx_rm_tree(f->dir);
  free(f->dir);
  free(f->tmp);
  free(f);
  unsetenv("TMPDIR");
  return 0;
}

/* Open must fail with rc and a message containing msg; the file stays
 * byte-identical and no temp file appears anywhere. */
static void expect_fail(fx *f, const char *path, const char *out, int flags, int rc,
                        const char *msg)
{
  char *before = fx_path(f->dir, "before.copy");
  struct stat st;
  int existed = stat(path, &st) == 0 && S_ISREG(st.st_mode);
  int n_tmp = fx_entries(f->tmp), n_dir = fx_entries(f->dir);
  rpd *r = (rpd *)1;

  if (existed) fx_copy(path, before);
  assert_int_equal(rpd_open(&r, path, out, flags), rc);
  assert_null(r);
  if (!strstr(rpd_errmsg(), msg)) fail_msg("message '%s' lacks '%s'", rpd_errmsg(), msg);
  if (existed) assert_true(fx_same_bytes(path, before));
  unlink(before);
  assert_int_equal(fx_entries(f->tmp), n_tmp);
  assert_int_equal(fx_entries(f->dir), n_dir);
  free(before);
}

#endif
