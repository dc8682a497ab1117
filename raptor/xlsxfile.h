/* xlsxfile.h - an xlsx workbook written the way every named output is:
 * into a temp file next to its path, renamed into place only when complete,
 * never over the trace itself, a device or a directory (rpd_outfile).
 * Used by raptor -x (raptor.c) and raptor --report --xlsx (report.c).
 *
 * Every string cell goes through xlsxfile_write_string(): trace names may
 * hold invalid UTF-8, control characters XML forbids, or more than the
 * 32767 characters a cell holds, and a workbook with any of them does not
 * open.  Including this header routes worksheet_write_string() there, so
 * no caller can write a raw trace string by accident; non-finite numbers
 * (which Excel rejects) go through xlsxfile_write_number() the same way.
 * libxlsxwriter's own "[ERROR]" lines never reach stderr: a failure is the
 * one line xlsxfile_end() returns. */
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
 * libxlsxwriter's temp files go to $TMPDIR when it is set.
 * Returns RPD_OK, or an error code with "cannot write 'PATH': why" or
 * "cannot create 'PATH'" in rpd_errmsg() (nothing is left behind). */
int xlsxfile_begin(xlsxfile *x, const char *path, const char *input);

/* Close the workbook and, when rc is RPD_OK and it was written whole,
 * rename it into place; otherwise remove the temp file.  Returns rc, or
 * the error of the close/rename as one line ("cannot write 'PATH': why").
 * Nothing is printed. */
int xlsxfile_end(xlsxfile *x, int rc);

/* worksheet_write_string() with s made safe for xlsx first (valid UTF-8,
 * no XML-illegal characters, cut to 32767 UTF-16 units; common/textsafe.h).
 * NULL s writes nothing.  Returns libxlsxwriter's status. */
lxw_error xlsxfile_write_string(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                const char *s, lxw_format *format);

/* worksheet_write_number(), except NaN and infinities (no xlsx number can
 * hold them) are written as the strings "nan", "inf", "-inf". */
lxw_error xlsxfile_write_number(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col,
                                double v, lxw_format *format);

#endif
