/* xlsxfile.h - an xlsx workbook written the way every named output is:
 * into a temp file next to its path, renamed into place only when complete,
 * never over the trace itself, a device or a directory (rpd_outfile).
 * Used by raptor -x (raptor.c) and raptor --report --xlsx (report.c). */
#ifndef RAPTOR_XLSXFILE_H
#define RAPTOR_XLSXFILE_H

#include <xlsxwriter.h>

#include "rpd.h"

typedef struct xlsxfile {
  rpd_outfile of;
  lxw_workbook *wb;   /* add the sheets to this one */
  const char *path;   /* not owned */
} xlsxfile;

/* Start the workbook for `path` (`input`: the trace it must not replace).
 * Returns RPD_OK, or an error code with "cannot write 'PATH': why" or
 * "cannot create 'PATH'" in rpd_errmsg() (nothing is left behind). */
int xlsxfile_begin(xlsxfile *x, const char *path, const char *input);

/* Close the workbook and, when rc is RPD_OK and it was written whole,
 * rename it into place; otherwise remove the temp file.  Returns rc, or
 * the error of the close/rename ("cannot write 'PATH': why"). */
int xlsxfile_end(xlsxfile *x, int rc);

#endif
