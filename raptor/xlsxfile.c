/* xlsxfile.c - xlsx workbooks through a temp file.  See xlsxfile.h. */
#include <stdio.h>

#include "xlsxfile.h"

int xlsxfile_begin(xlsxfile *x, const char *path, const char *input)
{
  int rc = rpd_outfile_begin(&x->of, path, input);
  x->wb = NULL;
  x->path = path;
  if (rc)
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  fclose(x->of.fp);             /* libxlsxwriter writes the temp by name */
  x->of.fp = NULL;
  x->wb = workbook_new(x->of.tmp);
  if (!x->wb) {
    rpd_outfile_abort(&x->of);
    return rpd_seterr(RPD_EIO, "cannot create '%s'", path);
  }
  return RPD_OK;
}

int xlsxfile_end(xlsxfile *x, int rc)
{
  lxw_error e = workbook_close(x->wb);
  x->wb = NULL;
  if (!rc && e != LXW_NO_ERROR)
    rc = rpd_seterr(RPD_EIO, "cannot write '%s': %s", x->path, lxw_strerror(e));
  if (rc)
    rpd_outfile_abort(&x->of);
  else if ((rc = rpd_outfile_commit(&x->of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", x->path, rpd_errmsg());
  return rc;
}
