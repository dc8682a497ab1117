/* internal.h - what the files of raptor --report share (raptor/report/):
 *   options.c   usage text and the command line (ropts)
 *   collect.c   one scan of rocpd_op into memory (report_data)
 *   tables.c    the TraceLens tables computed from report_data
 *   table.c     the in-memory table (cells) and tables read from SQL
 *   analysis.c  the rpd-analyze tables (ext_analysis_*) as report tables
 *   ranks.c     the cross-rank tables of raptor --by-rank (byrank.c)
 *   text.c      stdout (table/CSV/JSON), --csv-dir and --save
 *   xlsx.c      the --xlsx workbook and its charts
 *   html.c      the --html page and its SVG charts
 *   main.c      raptor_report_main: the run in order
 * See docs/report.md. */
#ifndef RAPTOR_REPORT_INTERNAL_H
#define RAPTOR_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../catfile.h"
#include "../report.h"
#include "rpd.h"

/* ------------------------------------------------------------ options */

typedef struct ropts {
  const char *path, *xlsx, *csv_dir, *cat_json, *only, *html;
  double threshold_us;
  int bins, topk, gpu, save, quiet, util_bins, topk_set, details;
  int64_t rank_top;          /* rows of the cross-rank top-N tables */
  rpd_fmt fmt;
} ropts;

/* Parse argv into *o.  Returns 0, or 2 after printing the usage error. */
int report_parse_opts(int argc, char **argv, ropts *o);

/* ------------------------------------------------------------ tables */

/* A computed report table, kept in memory until written. */
enum { C_NULL, C_INT, C_DBL, C_STR };

typedef struct cell {
  int t, digits;             /* digits after '.' of a C_DBL; -1 exact */
  int64_t i;
  double d;
  char *s;
} cell;

typedef struct table {
  const char *name;          /* sheet / csv / ext_report_<name>; static */
  int ncols;
  const char *const *cols;
  const char *const *types;  /* SQL column types (core tables only) */
  char **own_cols;           /* column names owned by a table read from SQL */
  cell *c;
  size_t nrows, cap;         /* cells used = nrows * ncols + col */
  int col;
} table;

/* The core tables in report order, then the two chart-only tables; the
 * optional tables (analysis, cross-rank) follow from NT_ALL on. */
enum { T_TIMELINE, T_SUMMARY, T_CATEGORY, T_DETAILS, T_SHORT, T_HIST, NT,
       T_UTIL = NT, T_GAPS, NT_ALL };

/* The cell at row r, column k of t. */
static inline const cell *t_cell(const table *t, size_t r, int k)
{
  return &t->c[r * (size_t)t->ncols + (size_t)k];
}

/* Start t empty (cols/types are static arrays, not copied). */
void t_init(table *t, const char *name, int ncols, const char *const *cols,
            const char *const *types);
/* Append one cell to the current row (rows fill left to right). */
void t_int(table *t, int64_t v);
void t_null(table *t);
void t_str(table *t, const char *s);          /* copied; NULL -> "" */
void t_dbl(table *t, double v, int digits);   /* non-finite -> NULL */
/* Numeric value of a cell (C_INT or C_DBL), NaN otherwise. */
double t_num(const cell *c);
/* Column index of `col` in t, -1 when absent. */
int t_col(const table *t, const char *col);
/* Free what t holds (t itself is the caller's). */
void t_free(table *t);
/* Run `sql` on r and keep its whole result as table `name` (static
 * string): column names from the statement, integers as C_INT, reals as
 * C_DBL printed exactly, text as C_STR.  Returns RPD_OK or an error. */
int t_from_sql(table *t, rpd *r, const char *name, const char *sql);

/* The report: the core tables t[0..NT_ALL) and n - NT_ALL optional ones. */
typedef struct report {
  table *t;
  int n, cap;
} report;

/* A new empty optional table at the end of rep (zeroed; fill it with
 * t_init or t_from_sql). */
table *report_add(report *rep);
/* The table called name, NULL when the report has none. */
const table *report_find(const report *rep, const char *name);
/* 1 when t goes to stdout, CSV, xlsx and HTML as a table (the chart-only
 * utilization/idle_gaps tables only go to xlsx and HTML). */
int report_is_listed(int index);
void report_free(report *rep);

/* ------------------------------------------------------------ data */

enum { IV_COMPUTE = 1, IV_COMM = 2, IV_COPY = 4 };

typedef struct iv {
  int64_t start, end;
  int gpu, flag;
} iv;

typedef struct kd {
  int64_t op, start, end;
  int name, gpu;
} kd;

typedef struct kname {
  int64_t sid;
  char *name;
  const char *cat;
  int comm;
} kname;

/* The categories: --category-json or the built-in rule set, the same rules
 * and matcher as raptor's tables (catfile.h). */
typedef struct cats {
  category *r;
  int n;
  int comm;     /* the communication category (_COMM/_Collective), -1 none */
} cats;

/* What one scan of rocpd_op keeps: GPU work intervals, kernel dispatches
 * and their names. */
typedef struct report_data {
  iv *iv;
  size_t niv, capiv;
  kd *k;
  size_t nk, capk;
  kname *names;
  int nnames, capnames;
  int *gpus;
  int ngpus;
  int64_t first, last;        /* span over every op */
  int64_t total_ns;           /* init..fini or span */
  int total_from_meta;
} report_data;

/* Scan rocpd_op of r into d (GPU work of o->gpu or all GPUs), intervals
 * sorted by start.  Returns RPD_OK or an error code. */
int report_collect(rpd *r, const ropts *o, const cats *c, report_data *d);
void report_data_free(report_data *d);

/* Small int64 -> int map (open addressing). */
typedef struct idmap {
  int64_t *key;
  int *val;
  size_t n, cap;
} idmap;
/* The slot of key k, inserted with value -1 when new. */
int *idm_ref(idmap *m, int64_t k);
/* Value for k, or -1. */
int idm_get(const idmap *m, int64_t k);
void idm_free(idmap *m);

/* qsort that accepts an empty or NULL array. */
void report_sort(void *base, size_t n, size_t size,
                 int (*cmp)(const void *, const void *));

/* Compute the core tables t[0..NT_ALL) from d (kernel_details reads the
 * launch geometry from r).  Returns RPD_OK or an error code. */
int report_core_tables(rpd *r, const report_data *d, const ropts *o, table *t);

/* ------------------------------------------------------------ optional */

/* Append the rpd-analyze tables the trace holds (analysis_*); none when
 * rpd-analyze has not run.  Returns RPD_OK or an error code. */
int report_analysis_tables(rpd *r, report *rep);
/* 1 if name is one of the analysis_* table names. */
int report_analysis_name(const char *name);

/* Append the cross-rank tables of raptor --by-rank (byrank_*) when the
 * trace holds more than one rank; *nranks gets the number of ranks.
 * Returns RPD_OK or an error code. */
int report_rank_tables(rpd *r, const cats *c, const ropts *o, report *rep, int *nranks);
/* 1 if name is one of the byrank_* table names. */
int report_rank_name(const char *name);

/* ------------------------------------------------------------ writers */

/* stdout in o->fmt: every listed table (or only o->only). */
int report_stdout(const report *rep, const ropts *o);
/* DIR/<table>.csv for every listed table, each atomically (never over
 * `input`). */
int report_csvs(const report *rep, const char *dir, const char *input);
/* Refuse before the work a DIR/<table>.csv that is the trace, a device or
 * a directory. */
int report_check_csvs(const report *rep, const char *dir, const char *input);
/* ext_report_* tables of the core tables into r, one transaction. */
int report_save(rpd *r, const report *rep, const ropts *o);
/* --xlsx path: an info sheet (info: n key/value pairs), a sheet per table,
 * charts.  Temp file renamed into place, never over `input`. */
int report_xlsx(const report *rep, const char *path, const char *input,
                const char *const *info, int n);
/* --html path: one self-contained page (same contract as report_xlsx). */
int report_html(const report *rep, const char *const *info, int n, const char *path,
                const char *input);

#endif
