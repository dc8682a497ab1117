/* xlsxfile.c - xlsx workbooks through a temp file, with safe cells and
 * one-line errors.  See xlsxfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "textsafe.h"
#include "xlsxfile.h"

/* libxlsxwriter prints "[ERROR] ..." lines of its own on stderr when it
 * fails; the tool reports the failure itself in one line.  Point fd 2 at
 * /dev/null around such calls: returns the saved descriptor for quiet_end,
 * or -1 (then nothing was changed). */
static int quiet_begin(void)
{
  int saved, null;

  fflush(stderr);
  saved = dup(STDERR_FILENO);
  if (saved < 0)
    return -1;
  null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, STDERR_FILENO) < 0) {
    if (null >= 0)
      close(null);
    close(saved);
    return -1;
  }
  close(null);
  return saved;
}

static void quiet_end(int saved)
{
  if (saved < 0)
    return;
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
}

/* Start the workbook for path (see xlsxfile.h). */
int xlsxfile_begin(xlsxfile *x, const char *path, const char *input)
{
  const char *tmpdir = getenv("TMPDIR");
  lxw_workbook_options opt = {0};
  int rc = rpd_outfile_begin(&x->of, path, input), quiet;

  x->wb = NULL;
  x->path = path;
  if (rc)
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  fclose(x->of.fp);             /* libxlsxwriter writes the temp by name */
  x->of.fp = NULL;
  if (tmpdir && *tmpdir)
    opt.tmpdir = (char *)tmpdir;
  quiet = quiet_begin();
  x->wb = workbook_new_opt(x->of.tmp, &opt);
  quiet_end(quiet);
  if (!x->wb) {
    rpd_outfile_abort(&x->of);
    return rpd_seterr(RPD_EIO, "cannot create '%s'", path);
  }
  return RPD_OK;
}

/* Close, then commit or remove the temp file (see xlsxfile.h). */
int xlsxfile_end(xlsxfile *x, int rc)
{
  int quiet = quiet_begin(), err;
  lxw_error e;

  errno = 0;
  e = workbook_close(x->wb);
  err = errno;
  quiet_end(quiet);
  x->wb = NULL;
  if (!rc && e != LXW_NO_ERROR) {
    const char *why = lxw_strerror(e);
    int n = (int)strlen(why);
    if (n > 0 && why[n - 1] == '.')   /* "...file." then ": errno text" */
      n--;
    rc = rpd_seterr(RPD_EIO, "cannot write '%s': %.*s%s%s", x->path, n, why,
                    err ? ": " : "", err ? strerror(err) : "");
  }
  if (rc)
    rpd_outfile_abort(&x->of);
  else if ((rc = rpd_outfile_commit(&x->of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", x->path, rpd_errmsg());
  return rc;
}

/* A string cell made safe for xlsx (see xlsxfile.h). */
lxw_error xlsxfile_write_string(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                const char *s, lxw_format *format)
{
  rpd_buf b = {0};
  lxw_error e;

  if (!s)
    return LXW_NO_ERROR;
  e = worksheet_write_string(ws, row, col, rpd_text_safe_str(&b, s, RPD_TEXT_XLSX),
                             format);
  rpd_buf_free(&b);
  return e;
}

/* A number cell; non-finite values as text (see xlsxfile.h). */
lxw_error xlsxfile_write_number(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                double v, lxw_format *format)
{
  if (isfinite(v))
    return worksheet_write_number(ws, row, col, v, format);
  return worksheet_write_string(ws, row, col,
                                isnan(v) ? "nan" : v < 0 ? "-inf" : "inf", format);
}
