/* table.h - the one table path: an in-memory table of typed cells, a list
 * of tables, and one writer per output format.
 *
 * A producer (raptor --report's builders, raptor --by-rank, rpd-diff)
 * appends cells row by row (rpd_table_int/dbl/str/null) or keeps a whole
 * query result (rpd_table_from_sql); the writers know nothing of what a
 * table means:
 *   stdout       rpd_tables_stdout   aligned text (fitted to a width),
 *                                    CSV, or one JSON object of tables
 *   one table    rpd_table_write     any rpd_fmt to a FILE
 *   --csv-dir    rpd_tables_csv_dir  DIR/<name>.csv each written atomically
 *                (rpd_tables_csv_check refuses them before the work)
 *   ext_ tables  rpd_table_save      CREATE TABLE + INSERT into a trace
 *   xlsx         rpd_table_sheet     one formatted sheet (common/workbook.h)
 *   HTML         rpd_html_*          a self-contained page: tables, charts
 *   Markdown     rpd_table_md        a GitHub-flavoured Markdown table
 * Full names go to CSV, JSON, xlsx, HTML and the trace; only the aligned
 * text table cuts them (common/textcut.h).  Nothing here prints except the
 * stdout writer's table text; functions return RPD_OK or an error code
 * with rpd_errmsg() set. */
#ifndef RPD_TABLE_H
#define RPD_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rpd.h"

enum { RPD_CELL_NULL, RPD_CELL_INT, RPD_CELL_DBL, RPD_CELL_STR };

/* One cell: t is RPD_CELL_*; digits after '.' of a DBL (-1: exact). */
typedef struct rpd_cell {
  int t, digits;
  int64_t i;
  double d;
  char *s;                   /* owned */
} rpd_cell;

/* Not on stdout unless named (--table NAME): a table a chart draws. */
#define RPD_TABLE_CHART_ONLY 1

typedef struct rpd_table {
  const char *name;          /* sheet / csv / ext_ name; not owned */
  int ncols;
  const char *const *cols;   /* not owned (or own_cols) */
  const char *const *types;  /* SQL column types for rpd_table_save; NULL: none */
  char **own_cols;           /* column names owned by a table read from SQL */
  rpd_cell *c;
  size_t nrows, cap;         /* cells used = nrows * ncols + col */
  int col;
  int flags;                 /* RPD_TABLE_* */
  /* A query table (rpd_table_query): its rows are read from sql on db
   * each time a writer writes it, so memory stays flat in the row count;
   * cols and c are unused. */
  rpd *r;                    /* NULL, or the trace db belongs to (its
                                rpd_step: interrupts, messages) */
  sqlite3 *db;
  const char *sql;           /* not owned */
} rpd_table;

/* A list of tables (an output in order). */
typedef struct rpd_tables {
  rpd_table *t;
  int n, cap;
} rpd_tables;

/* The cell at row r, column k of t. */
static inline const rpd_cell *rpd_table_cell(const rpd_table *t, size_t r, int k)
{
  return &t->c[r * (size_t)t->ncols + (size_t)k];
}

/* Start t empty (cols/types are the caller's arrays, not copied). */
void rpd_table_init(rpd_table *t, const char *name, int ncols, const char *const *cols,
                    const char *const *types);
/* Append one cell to the current row (rows fill left to right). */
void rpd_table_int(rpd_table *t, int64_t v);
void rpd_table_null(rpd_table *t);
void rpd_table_str(rpd_table *t, const char *s);          /* copied; NULL -> "" */
void rpd_table_dbl(rpd_table *t, double v, int digits);   /* non-finite -> NULL */
/* Numeric value of a cell (INT or DBL), NaN otherwise. */
double rpd_cell_num(const rpd_cell *c);
/* Column index of `col` in t (t may be NULL), -1 when absent. */
int rpd_table_col(const rpd_table *t, const char *col);
/* Free what t holds (t itself is the caller's). */
void rpd_table_free(rpd_table *t);
/* Run `sql` on r and keep its whole result as table `name` (not copied):
 * column names from the statement, integers as INT, reals as DBL printed
 * exactly, text as STR.  Returns RPD_OK or an error. */
int rpd_table_from_sql(rpd_table *t, rpd *r, const char *name, const char *sql);

/* t as a query table `name`: `sql` on db (r: the trace of db, or NULL
 * for a database of the tool's own).  Nothing is run until a writer
 * writes t; every writer runs sql again (sql and name are not copied). */
void rpd_table_query(rpd_table *t, const char *name, rpd *r, sqlite3 *db, const char *sql);
/* The rows of query table q read into the empty table t (name and flags
 * of q), for a producer that needs them itself (a chart's bars).  RPD_OK
 * or RPD_ESQL; free t with rpd_table_free either way. */
int rpd_table_from_query(rpd_table *t, const rpd_table *q);
/* Prepare a query table's statement into *st.  RPD_OK or RPD_ESQL with
 * "SQL: why" in rpd_errmsg(). */
int rpd_table_prepare(const rpd_table *t, sqlite3_stmt **st);

/* A new zeroed table at the end of ts (fill it with rpd_table_init or
 * rpd_table_from_sql).  The pointer holds until the next add. */
rpd_table *rpd_tables_add(rpd_tables *ts);
/* The table called name, NULL when ts has none. */
const rpd_table *rpd_tables_find(const rpd_tables *ts, const char *name);
/* Free every table and the list. */
void rpd_tables_free(rpd_tables *ts);

/* ------------------------------------------------------------ writers */

/* t to f in fmt (rpd_out: aligned text, CSV, JSON array, ...).  width > 0:
 * the text table is fitted to width columns, long names cut in the middle
 * where they differ from the others (rpd_out_fit); 0: no limit.  Other
 * formats carry the full text.  Returns RPD_OK or an error. */
int rpd_table_write(const rpd_table *t, FILE *f, rpd_fmt fmt, size_t width);

/* t as a GitHub-flavoured Markdown table to f: a header row of the column
 * names, columns whose cells are all numbers (or text that reads as one,
 * "+2,000,000") aligned right, text cells made safe (RPD_TEXT_PLAIN) with
 * | \ ` * _ < escaped and leading blanks kept as &nbsp; (an indented row
 * stays indented), NULL cells empty.  width > 0: text cells cut in the
 * middle to width characters (rpd_text_cut); 0: full text.  rpd_table_write
 * with RPD_FMT_MD writes the full text.  RPD_OK or RPD_EIO. */
int rpd_table_md(const rpd_table *t, FILE *f, size_t width);
/* s (NULL: "") as Markdown text to f, escaped as rpd_table_md's cells:
 * a line of one's own around a table (a title, a note). */
void rpd_md_text(FILE *f, const char *s);

/* The tables to stdout in fmt: text tables each under "# name", separated
 * by an empty line; Markdown tables each under "### name"; CSV tables one
 * after another; JSON one object {"name": [rows], ...}.  only != NULL: just the table of that name (any
 * flags); else every table but RPD_TABLE_CHART_ONLY ones.  width as
 * rpd_table_write.  Ends with rpd_finish_stdout (a closed pipe is not an
 * error). */
int rpd_tables_stdout(const rpd_tables *ts, rpd_fmt fmt, const char *only, size_t width);

/* DIR/<name>.csv for every table of ts (made with mkdir when missing), each
 * written to a temp file and renamed into place, never over `input`. */
int rpd_tables_csv_dir(const rpd_tables *ts, const char *dir, const char *input);
/* Before the work: refuse a DIR/<name>.csv that would be the trace
 * `input`, a device or a directory ("cannot write 'P': why"). */
int rpd_tables_csv_check(const rpd_tables *ts, const char *dir, const char *input);

/* t as the trace table `name` (dropped first when present) with t's column
 * types (t->types; NULL: no declared types), inside the caller's
 * transaction.  A query table on r's own database: CREATE TABLE AS its
 * query (the rows never leave SQLite). */
int rpd_table_save(const rpd_table *t, rpd *r, const char *name);

struct rpd_wb;              /* common/workbook.h */
struct rpd_wb_sheet;

/* t as one formatted sheet of workbook w (common/workbook.h); ws is the
 * sheet for charts drawn afterwards.  Integers beyond 2^53 are written as
 * text (no digit lost). */
int rpd_table_sheet(const rpd_table *t, struct rpd_wb *w, struct rpd_wb_sheet *ws);

/* The workbook `path` (never over `input`): an info sheet "title" with
 * ninfo key/value pairs (info NULL: none), one sheet per table of ts in
 * order, then charts(w, ts, ws, ctx) (may be NULL) with ws[i] the sheet of
 * ts->t[i] (without charts the sheets carry no hidden label column).  Written whole or not at all (rpd_wb_open/rpd_wb_close). */
int rpd_tables_xlsx(const rpd_tables *ts, const char *path, const char *input,
                    const char *title, const char *const *info, int ninfo,
                    int (*charts)(struct rpd_wb *w, const rpd_tables *ts,
                                  const struct rpd_wb_sheet *ws, void *ctx),
                    void *ctx);

/* ------------------------------------------------------------ streamed */

/* A streamed table: cells are appended to t with rpd_table_int/dbl/str/
 * null as in any table, and each rpd_tstream_endrow() hands the completed
 * rows to the one writer the stream was started for, then empties t; so a
 * table of millions of rows (raptor's op trace) keeps memory flat. */
typedef struct rpd_tstream {
  rpd_table t;                 /* the row being filled */
  rpd_out *o;                  /* text/CSV/JSON writer, or NULL */
  struct rpd_wb_sheet *ws;     /* xlsx sheet (the caller's), or NULL */
  rpd *r;                      /* trace table target, or NULL */
  sqlite3_stmt *ins;           /* its INSERT */
  size_t rows;                 /* rows written */
  int rc;
} rpd_tstream;

/* A stream to f in fmt (as rpd_table_write: width fits the text table;
 * RPD_FMT_MD cannot stream: its alignment needs every row first, and
 * the stream fails). */
int rpd_tstream_out(rpd_tstream *s, const char *name, int ncols, const char *const *cols,
                    FILE *f, rpd_fmt fmt, size_t width);
/* A stream to a new sheet `name` of workbook w; ws is the caller's sheet
 * (its `full` says the xlsx row limit was reached: further rows are
 * dropped; charts read it after the end).  RPD_OK or an error, which
 * rpd_tstream_end returns again (end the stream anyway). */
int rpd_tstream_sheet(rpd_tstream *s, const char *name, int ncols, const char *const *cols,
                      struct rpd_wb *w, struct rpd_wb_sheet *ws);
/* A stream into the trace table `name` of r (dropped first when present)
 * with column types types[] (NULL: none), inside the caller's
 * transaction.  RPD_OK or an error, which rpd_tstream_end returns again. */
int rpd_tstream_save(rpd_tstream *s, rpd *r, const char *name, int ncols,
                     const char *const *cols, const char *const *types);
/* Write the rows completed in s->t and empty it. */
void rpd_tstream_endrow(rpd_tstream *s);
/* Write what is left, finish the writer (the text table prints here), free.
 * RPD_OK or the first error. */
int rpd_tstream_end(rpd_tstream *s);

/* ------------------------------------------------------------ HTML */

#define RPD_HTML_NCOLORS 8

/* A page being written. */
typedef struct rpd_html {
  rpd_outfile of;
  FILE *f;                   /* write custom SVG here (between chart_begin/end) */
  rpd_buf b;                 /* scratch of rpd_html_text */
  const char *path;          /* not owned; NULL: the caller's stream */
} rpd_html;

/* Start the page `path` (never over `input`): the title as <title> and
 * <h1>, the n key/value pairs of info (NULL values skipped) as a table.
 * Returns RPD_OK or an error; after an error nothing is to be ended. */
int rpd_html_begin(rpd_html *h, const char *path, const char *input, const char *title,
                   const char *const *info, int n);
/* The same page written to the caller's stream f (stdout) as it goes:
 * no temp file; rpd_html_end only checks f for write errors (f stays
 * open). */
void rpd_html_begin_file(rpd_html *h, FILE *f, const char *title, const char *const *info,
                         int n);
/* A heading (<h2>) and an optional note: the program's own HTML text. */
void rpd_html_section(rpd_html *h, const char *heading, const char *note);
/* The box that lays charts out in a grid: charts go between these two. */
void rpd_html_charts_begin(rpd_html *h);
void rpd_html_charts_end(rpd_html *h);
/* Table t: its name as a heading (an anchor), a filter box, a table
 * sortable by a click on a header; at most 10000 rows shown. */
void rpd_html_table(rpd_html *h, const rpd_table *t);
/* Horizontal bars of the first n rows of t (t may be NULL: nothing): the
 * label from column lc (a number shows as prefix and the number), the
 * value from vc; labels cut to 40 characters in the middle. */
void rpd_html_bars(rpd_html *h, const rpd_table *t, int lc, int vc, int n,
                   const char *title, const char *unit, const char *prefix);
/* Vertical columns (histograms): every row of t, label lc, value vc. */
void rpd_html_columns(rpd_html *h, const rpd_table *t, int lc, int vc, const char *title,
                      const char *xunit);
/* A chart of one's own: an SVG box w x ht under title; write the SVG to
 * h->f, texts through rpd_html_text, colours from rpd_html_color. */
void rpd_html_chart_begin(rpd_html *h, const char *title, int w, int ht);
void rpd_html_chart_end(rpd_html *h);
/* s (NULL: "") made safe for HTML (entities, valid UTF-8) to the page. */
void rpd_html_text(rpd_html *h, const char *s);
/* Colour i (mod RPD_HTML_NCOLORS) of the page's palette, "#rrggbb". */
const char *rpd_html_color(int i);
/* v as a chart shows it: no decimals from 100, 2 from 1, else 3. */
void rpd_html_num(char *o, size_t n, double v);
/* Finish the page (the sort/filter script) and rename it into place when
 * rc is RPD_OK and it was written whole; else remove it.  Returns rc or
 * the write error as one line. */
int rpd_html_end(rpd_html *h, int rc);

#endif
