/* internal.h - what the files of raptor --report share (raptor/report/):
 *   options.c   usage text and the command line (ropts)
 *   collect.c   one scan of rocpd_op: statistics, top-K, intervals to sort
 *   order.c     intervals and kernels back in order (merged, SQL, memory)
 *   tables.c    the TraceLens tables from the collected data and the passes
 *   analysis.c  the rpd-analyze tables (ext_analysis_*) as report tables
 *   ranks.c     the cross-rank tables of raptor --by-rank (byrank.c)
 *   apistats.c  the HIP API summary (raptor --format api-stats, kstats.c)
 *   idle.c      the idle time by each definition, side by side
 *   perf.c      the performance-model sheets (rpd-perfmodel's ext_perf_op)
 *   perfchart.c their roofline chart (HTML SVG, xlsx scatter)
 *   perfcoll.c  coll_analysis: the collectives' algorithm and bus bandwidth
 *   text.c      stdout (table/CSV/JSON), --csv-dir and --save (common/out/table.h)
 *   xlsx.c      the --xlsx workbook's charts (sheets: common/out/table_xlsx.c)
 *   html.c      the --html page's sections and report charts (common/out/table_html.c)
 *   main.c      raptor_report_main: the run in order
 * See docs/report.md. */
#ifndef RAPTOR_REPORT_INTERNAL_H
#define RAPTOR_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "catfile.h"
#include "../report.h"
#include "rpd.h"
#include "steps.h"
#include "table.h"
#include "util/heap.h"
#include "util/map.h"

/* ------------------------------------------------------------ options */

typedef struct ropts {
  const char *path, *xlsx, *csv_dir, *cat_json, *only, *html;
  double threshold_us;
  int bins, topk, gpu, save, quiet, util_bins, topk_set, details;
  int64_t rank_top;          /* rows of the cross-rank top-N tables */
  int64_t width;             /* text tables' width (--width); -1: the terminal's */
  const char *step_marker;   /* --step-marker REGEX (NULL: ProfilerStep#N) */
  int steady;                /* --steady-state */
  int64_t lo, hi;            /* ops starting in [lo, hi) count (--steady-state;
                                else INT64_MIN..INT64_MAX) */
  rpd_fmt fmt;
} ropts;

/* Answer --help / --version (returns -1: exit with rpd_cli_status()), else
 * parse argv into *o.  Returns 0, or 2 after printing the usage error. */
int report_parse_opts(int argc, char **argv, ropts *o);

/* ------------------------------------------------------------ tables */

/* The report's tables are common/out/table.h's tables; the names below are
 * the report's builder API (t_init, t_int, ..., report_add), kept so that
 * a new table file reads like the others.  Writers: common/table*.c. */
enum { C_NULL = RPD_CELL_NULL, C_INT = RPD_CELL_INT, C_DBL = RPD_CELL_DBL,
       C_STR = RPD_CELL_STR };

typedef rpd_cell cell;
typedef rpd_table table;

/* The core tables in report order, then the two chart-only tables; the
 * optional tables (analysis, cross-rank) follow from NT_ALL on. */
enum { T_TIMELINE, T_SUMMARY, T_CATEGORY, T_DETAILS, T_SHORT, T_HIST, NT,
       T_UTIL = NT, T_GAPS, NT_ALL };

/* The cell at row r, column k of t. */
static inline const cell *t_cell(const table *t, size_t r, int k)
{
  return rpd_table_cell(t, r, k);
}

/* Start t empty (cols/types are static arrays, not copied). */
static inline void t_init(table *t, const char *name, int ncols, const char *const *cols,
                          const char *const *types)
{
  rpd_table_init(t, name, ncols, cols, types);
}
/* Append one cell to the current row (rows fill left to right). */
static inline void t_int(table *t, int64_t v) { rpd_table_int(t, v); }
static inline void t_null(table *t) { rpd_table_null(t); }
/* copied; NULL -> "" */
static inline void t_str(table *t, const char *s) { rpd_table_str(t, s); }
/* non-finite -> NULL */
static inline void t_dbl(table *t, double v, int digits) { rpd_table_dbl(t, v, digits); }
/* Numeric value of a cell (C_INT or C_DBL), NaN otherwise. */
static inline double t_num(const cell *c) { return rpd_cell_num(c); }
/* Column index of `col` in t, -1 when absent. */
static inline int t_col(const table *t, const char *col) { return rpd_table_col(t, col); }
/* Free what t holds (t itself is the caller's). */
static inline void t_free(table *t) { rpd_table_free(t); }
/* Run `sql` on r and keep its whole result as table `name` (static
 * string): column names from the statement, integers as C_INT, reals as
 * C_DBL printed exactly, text as C_STR.  Returns RPD_OK or an error. */
static inline int t_from_sql(table *t, rpd *r, const char *name, const char *sql)
{
  return rpd_table_from_sql(t, r, name, sql);
}

/* The report: the core tables t[0..NT_ALL) and n - NT_ALL optional ones.
 * Every table appended goes to every output (stdout, --csv-dir, --xlsx,
 * --html) with no writer to edit. */
typedef rpd_tables report;

/* A new empty optional table at the end of rep (zeroed; fill it with
 * t_init or t_from_sql). */
static inline table *report_add(report *rep) { return rpd_tables_add(rep); }
/* The table called name, NULL when the report has none. */
static inline const table *report_find(const report *rep, const char *name)
{
  return rpd_tables_find(rep, name);
}
static inline void report_free(report *rep) { rpd_tables_free(rep); }

/* ------------------------------------------------------------ data */

/* Small int64 -> int map: common/util's map, values >= 0, -1 = absent. */
typedef rpd_i64map idmap;
/* The slot of key k, inserted with value -1 when new. */
static inline int64_t *idm_ref(idmap *m, int64_t k) { return rpd_i64map_ref(m, k, -1, NULL); }
/* Value for k, or -1. */
static inline int idm_get(const idmap *m, int64_t k)
{
  int64_t v;
  return rpd_i64map_get(m, k, &v) ? (int)v : -1;
}
static inline void idm_free(idmap *m) { rpd_i64map_free(m); }

enum { IV_COMPUTE = 1, IV_COMM = 2, IV_COPY = 4 };

/* One interval of GPU work. */
typedef struct iv {
  int64_t start, end;
  int gpu, flag;
} iv;

/* One kernel dispatch (the top-K heap keeps a few). */
typedef struct kd {
  int64_t op, start, end;
  int name, gpu;
} kd;

/* qsort comparator of kd pointers in kernel_details order: longer first,
 * then earlier start. */
int report_cmp_top(const void *a, const void *b);

/* The top-K heap keeps the lowest-ranked kept dispatch on top. */
static inline int kd_ranks_after(const kd *x, const kd *y, void *ctx)
{
  (void)ctx;
  return report_cmp_top(&y, &x) < 0;
}
RPD_HEAP_DEFINE(kdheap, kd, kd_ranks_after)

/* A kernel name (one per description_id) and its statistics: count, sum,
 * min and max of every dispatch and count and sum of the short ones from
 * the scan; median and std from the pass in (description_id, duration)
 * order (report_kernel_pass). */
typedef struct kname {
  int64_t sid;
  char *name;
  const char *cat;
  int comm;
  int64_t count, sum, min, max;
  int64_t scount, ssum;
  double median, std;
} kname;

/* The categories: --category-json or the built-in rule set, the same rules
 * and matcher as raptor's tables (catfile.h). */
typedef struct cats {
  category *r;
  int n;
  int comm;     /* the communication category (_COMM/_Collective), -1 none */
} cats;

/* How the ordered passes get their ops ($RPDTOOLS_RAPTOR_REPORT): merge
 * the sorted runs of the table order (default; SQLite sorts when the table
 * has no order), "sql" SQLite always sorts, "memory" every op in an array
 * (the old path, for the tests that compare them). */
enum { ORDER_MERGE, ORDER_SQL, ORDER_MEMORY };

typedef struct ivsort ivsort;     /* order.c */
typedef struct kdsort kdsort;

/* What the scan of rocpd_op keeps -- nothing per op: the GPUs, the kernel
 * names with their statistics, the top-K dispatches, and the intervals
 * handed to the two sorters (by GPU, then start; by start over all GPUs)
 * that the ordered passes of tables.c read back. */
typedef struct report_data {
  kname *names;
  int nnames, capnames;
  idmap nameidx;              /* description_id -> names[] */
  int *gpus;                  /* sorted */
  int ngpus;
  int64_t first, last;        /* span over every op */
  int64_t total_ns;           /* init..fini or span */
  int total_from_meta;
  int64_t niv, nk;            /* GPU work intervals, kernel dispatches */
  int64_t ksum;               /* summed kernel time (ns) */
  int64_t lim;                /* short-kernel threshold (ns) */
  int64_t nshort;             /* short dispatches, their range in us: */
  double slo, shi;
  kdheap top;                 /* top-K heap (topk 0: every dispatch) */
  size_t topk;
  int mode;                   /* ORDER_* */
  ivsort *bygpu, *bystart;    /* bystart NULL with --gpu-id */
  kdsort *kds;
  int64_t *gspan;             /* per GPU (d->gpus order): first op start, last
                               * op end, busy (union) ns; after the passes */
} report_data;

/* The short-kernel threshold of o in ns (INT64_MAX: every kernel). */
int64_t report_threshold_ns(const ropts *o);
/* The top-K dispatches the scan kept, as a new array of pointers into d
 * in kernel_details order (caller frees the array); *n of them. */
const kd **report_top(const report_data *d, size_t *n);

/* Scan rocpd_op of r into d (GPU work of o->gpu or all GPUs): every
 * statistic that needs no order, the top-K dispatches, and the intervals
 * into d's sorters.  Returns RPD_OK or an error code. */
int report_collect(rpd *r, const ropts *o, const cats *c, report_data *d);
void report_data_free(report_data *d);

/* One computation of the report, for its outputs (main.c) or for the
 * limits of rpd-budget (budget.c). */
typedef struct report_run {
  ropts o;                   /* parsed by the caller */
  cats c;
  report_data d;
  report rep;                /* every table: core, steps, optional groups */
  rpd_steps steps;
  rpd *r;                    /* the open trace */
  char health[512];          /* the non-zero trace-health checks, or "" */
  int nranks;
} report_run;
/* Open run->o.path and compute every table into run (the trace stays
 * open for --save).  On failure prints the one line and returns 1, else 0.
 * Free with report_run_free (also after a failure). */
int report_build(report_run *run);
/* Close the trace (committing when commit is 1) and free run; returns 1
 * when the commit failed (message printed), else 0. */
int report_run_free(report_run *run, int commit);

/* ------------------------------------------------------------ order.c */

/* A sorter of intervals into (gpu, start) order (by_gpu) or start order
 * over every GPU, in mode ORDER_*; the caller frees it with ivsort_free. */
ivsort *ivsort_new(int mode, int by_gpu);
/* Hand it interval v of op id (scan order).  RPD_OK or an error (temp
 * file); a table in no order makes it read the ops sorted by SQLite later. */
int ivsort_add(ivsort *s, int64_t id, const iv *v);
/* The next interval in order into *v (v->gpu is -1 in start order): 1, 0
 * at the end, or -rc.  r, d and o are for reading the ops again sorted by
 * SQLite (d's names give kernels their flag).  Only one pass. */
int ivsort_next(ivsort *s, rpd *r, const report_data *d, const ropts *o, iv *v);
void ivsort_free(ivsort *s);

/* The kernel dispatches in (name, duration) order: kdsort_add hands
 * (name, duration) pairs to a bounded sort in C (xsort.h) in mode
 * ORDER_MERGE, keeps them for qsort in mode ORDER_MEMORY, and drops them
 * in mode ORDER_SQL, where SQLite sorts a second read of the kernels (on
 * disk) by (description_id, duration). */
kdsort *kdsort_new(int mode);
/* RPD_OK, or an error of the bounded sort's scratch file (message set). */
int kdsort_add(kdsort *s, int name, int64_t dur);
/* The next dispatch into *name (index into d->names) and *dur: 1, 0 at the
 * end, or -rc.  Only one pass. */
int kdsort_next(kdsort *s, rpd *r, const report_data *d, const ropts *o, int *name,
                int64_t *dur);
void kdsort_free(kdsort *s);

/* qsort that accepts an empty or NULL array. */
void report_sort(void *base, size_t n, size_t size,
                 int (*cmp)(const void *, const void *));

/* Compute the core tables t[0..NT_ALL) from d: the passes over d's sorted
 * intervals and kernels (each read once), kernel_details' launch geometry
 * from r.  Returns RPD_OK or an error code. */
int report_core_tables(rpd *r, report_data *d, const ropts *o, table *t);

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

/* The steps of the trace (steps.c, common/analysis/steps.h): report_find_steps
 * finds them (and with o->steady sets the window o->lo/hi, an error when
 * there are no steps); report_step_tables appends the steps and
 * steps_summary tables (none without steps). */
int report_find_steps(rpd *r, ropts *o, rpd_steps *st);
void report_step_tables(rpd_steps *st, report *rep);
/* 1 if name is steps or steps_summary. */
int report_steps_name(const char *name);

/* Append the HIP API summary api_stats (the rows of raptor --format
 * api-stats, apistats.c) when the trace has HIP api calls.  Returns RPD_OK
 * or an error code. */
int report_api_tables(rpd *r, report *rep);
/* 1 if name is the api summary's table name. */
int report_api_name(const char *name);

/* Append idle_definitions: per GPU the idle time by each tool's definition
 * side by side (the whole run as gpu_timeline, the ops' span as raptor's
 * _GPU_Idle, rpd-analyze's stored idle_ns when rep has analysis_idle),
 * from d's per-GPU spans (idle.c). */
void report_idle_table(const report_data *d, report *rep);

/* Append the performance-model tables when the trace has rpd-perfmodel's
 * ext_perf_op (perf.c): a sheet per category with TraceLens's sheet and
 * column names (GEMM, SDPA_fwd, ...), perf_roofline (every op group, the
 * most time lost against the roofline first) and perf_peaks (the roofs).
 * Returns RPD_OK or an error code. */
int report_perf_tables(rpd *r, report *rep);
/* 1 if name is one of the performance-model table names (coll_analysis
 * too). */
int report_perf_name(const char *name);
/* Append coll_analysis (perfcoll.c) when a Kineto import has NCCL/RCCL
 * collectives: TraceLens's per-rank collective summary with algorithm and
 * bus bandwidth.  Returns RPD_OK or an error code. */
int report_coll_table(rpd *r, report *rep);

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

/* The roofline chart of rep's perf_roofline and perf_peaks (perfchart.c):
 * an HTML section (heading, SVG chart) written to f, nothing without
 * perf_roofline; and the workbook's scatter chart next to the
 * perf_roofline sheet ws (its extra columns written there). */
void report_perf_html(FILE *f, const report *rep);
struct rpd_wb;
struct rpd_wb_sheet;
int report_perf_xlsx(struct rpd_wb *w, const table *t, const report *rep,
                     const struct rpd_wb_sheet *ws);

#endif
