/* sink.h - classic raptor's table destinations (output.c), shared with
 * the pretty kernelseq table (pretty.c).  Private to bin/raptor. */
#ifndef RAPTOR_SINK_H
#define RAPTOR_SINK_H

#include <stdio.h>

#include "raptor.h"
#include "table.h"
#include "workbook.h"

/* A table destination: a streamed table (common/out/table.h) to an rpd_out
 * writer or to an xlsx sheet of wb (formatted by common/workbook).  The
 * cells a format shows differ (digits, NaN) and are chosen here; the
 * writing is the common writers'. */
typedef struct sink {
  rpd_tstream s;
  rpd_wb *wb;        /* -x's workbook for a sheet; set before sk_begin */
  const char *ws;
  rpd_wb_sheet sh;
  int row;           /* next sheet row (1 = first below the header) */
  int digits;        /* table format digits; -1 exact */
  int table;         /* text table: NaN shown as NaN */
} sink;

/* The columns a text table on stdout may take (--width; by default the
 * terminal's when stdout is one); 0: no limit (files, pipes, tests, sheets
 * ws, CSV/JSON). */
size_t table_width(const raptor *R, FILE *f, const char *ws);
/* Start k: a table to f in R's format (text: at most width columns,
 * rpd_out_fit; 0 no limit), or, ws != NULL, the sheet ws of k->wb. */
void sk_begin_w(sink *k, raptor *R, FILE *f, const char *ws, int ncols,
                const char *const *names, size_t width);
/* sk_begin_w with table_width(R, f, ws). */
void sk_begin(sink *k, raptor *R, FILE *f, const char *ws, int ncols,
              const char *const *names);
/* Cells of the current row (s NULL: a NULL cell; v non-finite: "NaN" in a
 * text table, NULL elsewhere), the row's end, the table's end (0 ok, 1
 * failure). */
void sk_str(sink *k, const char *s);
void sk_int(sink *k, int64_t v);
void sk_dbl(sink *k, double v);
void sk_endrow(sink *k);
int sk_end(sink *k);
/* v as Python's "{:.1%}" into b. */
void fmt_pct1(char *b, size_t n, double v);

/* pretty.c: the pretty kernelseq table (text tables and xlsx sheet ws) of
 * the first limit rows (-1: all); 0 ok, 1 failure. */
int emit_pretty(raptor *R, sink *k, FILE *f, const char *ws, int limit);

#endif
