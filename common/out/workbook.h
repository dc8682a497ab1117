/* workbook.h - the one xlsx table writer behind every workbook rpdtools
 * writes (raptor -x, raptor --report --xlsx, raptor --by-rank --xlsx,
 * rpd-diff --xlsx).
 *
 * A sheet is a table: a bold header row, frozen, with an autofilter; each
 * column has a kind that picks its number format (µs with 3 decimals,
 * percent, integers with thousands separators, ...) and its width is fitted
 * to the longest cell (capped at RPD_WB_MAX_WIDTH characters).  Strings are
 * made safe for xlsx (common/out/textsafe.h); NaN/inf become empty cells.
 * rpd_wb_info() writes the first sheet: which trace, ROI, options, units.
 * rpd_wb_bar()/rpd_wb_pie()/rpd_wb_line() add a libxlsxwriter chart next to
 * a table, reading its cells.
 *
 * rpd_wb_open() starts a workbook the way every named output is written:
 * into a temp file next to its path, renamed into place by rpd_wb_close()
 * only when complete, never over the trace itself, a device or a directory
 * (rpd_outfile); libxlsxwriter's own temp files go to $TMPDIR when it is
 * set, and its "[ERROR]" lines never reach stderr (a failure is one line
 * in rpd_errmsg(), with the errno detail when there is one).
 * Nothing is printed; functions return RPD_OK or an error code with
 * rpd_errmsg() set. */
#ifndef RPD_WORKBOOK_H
#define RPD_WORKBOOK_H

#include <xlsxwriter.h>

#include "rpd.h"

#define RPD_WB_MAX_WIDTH 60   /* characters: long kernel names are cut on screen */
#define RPD_WB_MAX_ROWS 1048575
#define RPD_WB_LABEL_ROWS 30  /* first rows whose column-0 text is a chart label */
#define RPD_WB_LABEL_MAX 40   /* characters of a chart label */

typedef enum {
  RPD_WB_TEXT,    /* string, left aligned */
  RPD_WB_INT,     /* integer, "#,##0" */
  RPD_WB_ID,      /* integer without separators (ids, GPU numbers) */
  RPD_WB_US,      /* microseconds, "#,##0.000" */
  RPD_WB_MS,      /* milliseconds, "#,##0.000" */
  RPD_WB_PCT,     /* a value already in percent (17.6 = 17.6%), "0.00" */
  RPD_WB_FRAC,    /* a fraction shown as percent (0.176 -> 17.60%), "0.00%" */
  RPD_WB_NUM,     /* other numbers, "#,##0.000" */
  RPD_WB_NKINDS
} rpd_wb_kind;

/* One workbook and its formats. */
typedef struct rpd_wb {
  lxw_workbook *wb;
  rpd_outfile of;                   /* the temp file of rpd_wb_open */
  const char *path;                 /* not owned */
  lxw_format *head;                 /* bold, bottom border */
  lxw_format *fmt[RPD_WB_NKINDS];   /* per column kind */
  lxw_format *key;                  /* bold, for the info sheet */
} rpd_wb;

/* One table being written. */
typedef struct rpd_wb_sheet {
  rpd_wb *w;
  lxw_worksheet *ws;
  const char *name;       /* sheet name (not owned) */
  int ncols, col;
  lxw_row_t row;          /* next data row (1 = first below the header) */
  rpd_wb_kind *kind;      /* owned */
  double *width;          /* owned: widest cell per column, characters */
  int full;               /* the xlsx row limit was reached */
  int labels;             /* the hidden chart-label column was written */
  int no_labels;          /* set after begin: a sheet no chart reads needs no label column */
} rpd_wb_sheet;

/* Start the workbook `path` (`input`: the trace it must not replace; may
 * be NULL) with its formats.  Returns RPD_OK, or an error code with
 * "cannot write 'PATH': why" or "cannot create 'PATH'" in rpd_errmsg()
 * (nothing is left behind, nothing to close). */
int rpd_wb_open(rpd_wb *w, const char *path, const char *input);

/* Close the workbook and, when rc is RPD_OK and it was written whole,
 * rename it into place; otherwise remove the temp file.  Returns rc, or
 * the error of the close/rename as one line ("cannot write 'PATH': why:
 * errno text"). */
int rpd_wb_close(rpd_wb *w, int rc);

/* The first sheet "info": a title line, then one "key | value" row per
 * pair of kv (n pairs: kv[2*i] key, kv[2*i+1] value; NULL values skipped).
 * Call it before any other sheet so that it comes first. */
int rpd_wb_info(rpd_wb *w, const char *title, const char *const *kv, int n);

/* Start a sheet `name` (at most 31 characters, see libxlsxwriter) with the
 * header names[] and kinds[] (NULL kinds: guessed from the names, see
 * rpd_wb_kind_of).  Returns RPD_OK or RPD_EIO; after a failure the cell
 * calls do nothing and rpd_wb_end() returns the error again (s must still
 * be ended, it holds memory). */
int rpd_wb_begin(rpd_wb *w, rpd_wb_sheet *s, const char *name, int ncols,
                 const char *const *names, const rpd_wb_kind *kinds);

/* The column kind a header name implies: *_us/_us suffix -> US, time_ms /
 * *_ms -> MS, percent / *pct* / *_percent -> PCT, count/calls/kernels/
 * *_ns/bin* -> INT, id-like names (gpuId, *id, pid, tid, queue*) -> ID,
 * else TEXT (numbers written to a TEXT column get NUM). */
rpd_wb_kind rpd_wb_kind_of(const char *name);

/* Cells of the current row, left to right.  rpd_wb_num writes NaN/inf as
 * an empty cell.  rpd_wb_str(NULL) is an empty cell. */
void rpd_wb_str(rpd_wb_sheet *s, const char *v);
void rpd_wb_num(rpd_wb_sheet *s, double v);
void rpd_wb_int(rpd_wb_sheet *s, int64_t v);
void rpd_wb_null(rpd_wb_sheet *s);
/* End the row.  Rows past the xlsx limit are dropped (s->full is set). */
void rpd_wb_endrow(rpd_wb_sheet *s);

/* Finish the sheet: column widths fitted to the content (capped), header
 * frozen, autofilter over the table.  Frees what s holds. */
int rpd_wb_end(rpd_wb_sheet *s);

/* Charts over a finished sheet's rows 1..nrows (categories from column
 * cat_col, values from val_col), inserted at cell (at_row, at_col) of
 * sheet `into` (NULL: the table's own sheet, right of the table).
 * rpd_wb_bar: horizontal bars (top-N tables); rpd_wb_col: vertical columns
 * (histograms); rpd_wb_pie: shares; rpd_wb_line: a series over x.
 * Returns RPD_OK, or RPD_EIO when libxlsxwriter refused the chart. */
int rpd_wb_bar(rpd_wb *w, const rpd_wb_sheet *src, int nrows, int cat_col, int val_col,
               const char *title, const char *axis);
int rpd_wb_col(rpd_wb *w, const rpd_wb_sheet *src, int nrows, int cat_col, int val_col,
               const char *title, const char *axis);
int rpd_wb_pie(rpd_wb *w, const rpd_wb_sheet *src, int first, int nrows, int cat_col,
               int val_col, const char *title);
int rpd_wb_line(rpd_wb *w, const rpd_wb_sheet *src, int nrows, int x_col, int val_col,
                const char *title, const char *axis);

#endif
