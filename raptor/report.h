/* report.h - raptor --report: the TraceLens-style rocprofv3 report computed
 * from any RPD trace (raptor/report.c), and its HTML page (raptor/html.c). */
#ifndef RAPTOR_REPORT_H
#define RAPTOR_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* Entry point used by raptor's main() when "--report" is among the
 * arguments: parses the whole command line itself (FILE, --report and the
 * report's options) and returns the process exit code (0, 1, 2). */
int raptor_report_main(int argc, char **argv);

/* The report's usage text (raptor --report --help; raptor --help shows it
 * after its own). */
extern const char raptor_report_usage[];

/* A computed report table, kept in memory until written. */
enum { C_NULL, C_INT, C_DBL, C_STR };

typedef struct cell {
  int t, digits;
  int64_t i;
  double d;
  char *s;
} cell;

typedef struct table {
  const char *name;          /* sheet / csv / ext_report_<name> */
  int ncols;
  const char *const *cols;
  const char *const *types;  /* SQL column types */
  cell *c;
  size_t nrows, cap;         /* cells used = nrows * ncols + col */
  int col;
} table;

/* The tables in report order, and the two chart-only tables. */
enum { T_TIMELINE, T_SUMMARY, T_CATEGORY, T_DETAILS, T_SHORT, T_HIST, NT,
       T_UTIL = NT, T_GAPS, NT_ALL };

/* The cell at row r, column k of t. */
static inline const cell *t_cell(const table *t, size_t r, int k)
{
  return &t->c[r * (size_t)t->ncols + (size_t)k];
}

/* Numeric value of a cell (C_INT or C_DBL), NaN otherwise. */
double t_num(const cell *c);

/* Write the self-contained HTML page of t[0..NT_ALL) to path (temp file
 * next to it, renamed into place; never over `input`).  info holds n
 * key/value pairs (info[2i], info[2i+1]) shown at the top.  Returns RPD_OK
 * or an error code with "cannot write 'PATH': why" in rpd_errmsg(). */
int report_html(const table *t, const char *const *info, int n, const char *path,
                const char *input);

#endif
