/* output.c - raptor: table/csv/json sinks (sink.h), traces, --save, xlsx,
 * printing; the pretty kernelseq table is pretty.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xlsxwriter.h>

#include "catfile.h"
#include "rpd.h"
#include "report.h"
#include "textcut.h"
#include "raptor.h"
#include "version.h"
#include "table.h"
#include "workbook.h"
#include "sink.h"


/* ------------------------------------------------------------ output sinks */

/* The columns a text table on stdout may take (--width; by default the
 * terminal's when stdout is one); 0: no limit (files, pipes, tests). */
size_t table_width(const raptor *R, FILE *f, const char *ws)
{
  if (ws || R->fmt != RPD_FMT_TABLE || f != stdout)
    return 0;
  return R->width >= 0 ? (size_t)R->width : rpd_term_width(1, 0);
}

/* A table to f (text: at most width columns, rpd_out_fit; 0 no limit) or
 * to sheet ws of k->wb. */
void sk_begin_w(sink *k, raptor *R, FILE *f, const char *ws, int ncols,
                const char *const *names, size_t width)
{
  rpd_wb *wb = k->wb;
  memset(k, 0, sizeof *k);
  k->wb = wb;
  k->ws = ws;
  if (ws) {
    rpd_tstream_sheet(&k->s, ws, ncols, names, wb, &k->sh);   /* a failure: sk_end fails */
    k->row = 1;
    k->digits = -1;
  } else {
    rpd_tstream_out(&k->s, NULL, ncols, names, f, R->fmt, width);
    k->table = R->fmt == RPD_FMT_TABLE;
    k->digits = k->table ? R->float_digits : -1;
  }
}

void sk_begin(sink *k, raptor *R, FILE *f, const char *ws, int ncols,
              const char *const *names)
{
  sk_begin_w(k, R, f, ws, ncols, names, table_width(R, f, ws));
}

void sk_str(sink *k, const char *s)
{
  if (s) rpd_table_str(&k->s.t, s);
  else rpd_table_null(&k->s.t);
}

void sk_int(sink *k, int64_t v)
{
  rpd_table_int(&k->s.t, v);
}

void sk_dbl(sink *k, double v)
{
  if (!isfinite(v)) {  /* NaN or Inf: never a number in any output */
    if (k->table) rpd_table_str(&k->s.t, "NaN");
    else rpd_table_null(&k->s.t);
    return;
  }
  rpd_table_dbl(&k->s.t, v, k->digits);
}

void sk_endrow(sink *k)
{
  rpd_tstream_endrow(&k->s);
  if (k->ws) k->row++;
}

int sk_end(sink *k)
{
  return rpd_tstream_end(&k->s) == RPD_OK ? 0 : 1;
}

/* Python "{:.1%}" */
void fmt_pct1(char *b, size_t n, double v)
{
  if (isnan(v)) snprintf(b, n, "nan%%");
  else snprintf(b, n, "%.1f%%", v * 100.0);
}

static int emit_timestamps(raptor *R, sink *k, FILE *f, const char *ws)
{
  static const char *const cols[] = {"first_abs_ns", "last_abs_ns",
                                     "roi_start_ns", "roi_end_ns"};
  sk_begin(k, R, f, ws, 4, cols);
  sk_int(k, R->first_abs);
  sk_int(k, R->last_abs);
  sk_int(k, R->roi_s);
  sk_int(k, R->roi_e);
  sk_endrow(k);
  return sk_end(k);
}

static int emit_category(raptor *R, sink *k, FILE *f, const char *ws)
{
  static const char *const cols[] = {"Category", "UniqKernels", "TotalCalls",
                                     "TotalDur_ms", "VarSum_ms", "AvgDur_us", "Pct"};
  sk_begin(k, R, f, ws, 7, cols);
  for (size_t i = 0; i < R->ncrows; i++) {
    catrow *c = &R->crows[i];
    sk_str(k, c->name);
    sk_int(k, c->uniq);
    sk_int(k, c->calls);
    sk_dbl(k, c->dur / 1e6);
    sk_dbl(k, c->varsum / 1e6);
    sk_dbl(k, c->avg_us);
    sk_dbl(k, c->pct);
    sk_endrow(k);
  }
  return sk_end(k);
}

static int emit_variability(raptor *R, sink *k, FILE *f, const char *ws)
{
  static const char *const cols[] = {"Name", "Var_us", "VarPct"};
  char b[64];
  sk_begin(k, R, f, ws, 3, cols);
  sk_str(k, "by_comm");
  sk_dbl(k, R->var_comm / 1000.0);
  fmt_pct1(b, sizeof b, R->var_comm / R->total_ns);
  if (ws) sk_dbl(k, R->var_comm / R->total_ns * 100.0);   /* xlsx: a number */
  else sk_str(k, b);
  sk_endrow(k);
  sk_str(k, "by_non_comm");
  sk_dbl(k, R->var_other / 1000.0);
  fmt_pct1(b, sizeof b, R->var_other / R->total_ns);
  if (ws) sk_dbl(k, R->var_other / R->total_ns * 100.0);
  else sk_str(k, b);
  sk_endrow(k);
  return sk_end(k);
}

static int emit_gpu(raptor *R, sink *k, FILE *f, const char *ws)
{
  static const char *const cols[] = {"gpuId", "PreGap_ms", "Duration_ms", "Idle_pct",
                                     "LeadingIdle_ms", "TrailingIdle_ms"};
  sk_begin(k, R, f, ws, 6, cols);
  for (size_t i = 0; i < R->ngrows; i++) {
    gpurow *g = &R->grows[i];
    sk_int(k, g->gpu);
    sk_dbl(k, g->pregap / 1e6);
    sk_dbl(k, g->dur / 1e6);
    sk_dbl(k, g->idle_pct);
    sk_dbl(k, g->lead / 1e6);
    sk_dbl(k, g->trail / 1e6);
    sk_endrow(k);
  }
  return sk_end(k);
}

static const char *const kernelseq_tail[] = {
  "category", "calls", "outliers", "start_min_ns", "start_max_ns",
  "pregap_sum_ns", "pregap_min_ns", "pregap_mean_ns", "pregap_std_ns",
  "pregap_max_ns", "dur_sum_ns", "dur_min_ns", "dur_mean_ns", "dur_std_ns",
  "dur_max_ns", "pct_total", "varsum_ns"};

/* The rows of the full kernelseq table (csv/json/xlsx and --save). */
static void kernelseq_rows(raptor *R, sink *k)
{
  int w = R->seqlen + 1;
  for (size_t i = 0; i < R->nrows; i++) {
    krow *x = &R->rows[i];
    sk_int(k, (int64_t)i);
    for (int j = 0; j < w; j++) {
      if (x->key >= 0) sk_str(k, R->names[R->keyk[(size_t)x->key * w + j]]);
      else sk_str(k, j ? NULL : x->label);
    }
    sk_str(k, R->catname[x->cat]);
    sk_int(k, x->calls);
    if (x->outliers >= 0) sk_int(k, x->outliers); else sk_dbl(k, NAN);
    sk_int(k, x->smin);
    sk_int(k, x->smax);
    sk_dbl(k, x->pg_sum);
    sk_dbl(k, x->pg_min);
    sk_dbl(k, x->pg_mean);
    sk_dbl(k, x->pg_std);
    sk_dbl(k, x->pg_max);
    sk_dbl(k, x->d_sum);
    sk_dbl(k, x->d_min);
    sk_dbl(k, x->d_mean);
    sk_dbl(k, x->d_std);
    sk_dbl(k, x->d_max);
    sk_dbl(k, x->pct);
    sk_dbl(k, x->varsum);
    sk_endrow(k);
  }
}

/* The full kernelseq table (csv/json/xlsx). */
static int emit_kernelseq(raptor *R, sink *k, FILE *f, const char *ws)
{
  int w = R->seqlen + 1;
  int nt = (int)(sizeof kernelseq_tail / sizeof *kernelseq_tail);
  const char **cols = rpd_xmalloc((1 + w + nt) * sizeof *cols);
  char **kn = rpd_xmalloc(w * sizeof *kn);
  cols[0] = "rank";
  for (int j = 0; j < w; j++) {
    kn[j] = j ? rpd_xasprintf("kernel_%d", j) : rpd_xstrdup("kernel");
    cols[1 + j] = kn[j];
  }
  for (int j = 0; j < nt; j++) cols[1 + w + j] = kernelseq_tail[j];
  sk_begin(k, R, f, ws, 1 + w + nt, cols);
  kernelseq_rows(R, k);
  int rc = sk_end(k);
  for (int j = 0; j < w; j++) free(kn[j]);
  free(kn);
  free(cols);
  return rc;
}

/* "%8d.%06d" of the reference's pretty_ts */
static void pretty_ts(char *b, size_t n, int64_t ts)
{
  int64_t ms = ts >= 0 ? ts / 1000000 : -((-ts + 999999) / 1000000);
  snprintf(b, n, "%8" PRId64 ".%06" PRId64, ms, ts - ms * 1000000);
}

static const char *const optrace_cols[] = {
  "op_id", "gpuId", "sequenceId", "start_ns", "end_ns", "duration_ns",
  "pregap_ns", "kernel", "duration_zscore", "outlier"};

static void trace_line(raptor *R, FILE *f, sink *k, const op *o)
{
  const char *name = R->names[o->kern];
  int out = op_outlier(R, o);
  if (k) {
    sk_int(k, o->id);
    sk_int(k, o->gpu);
    sk_int(k, o->seq);
    sk_int(k, o->start);
    sk_int(k, o->end);
    sk_int(k, op_dur(o));
    if (o->pregap >= 0) sk_int(k, o->pregap); else sk_dbl(k, NAN);
    sk_str(k, name);
    sk_dbl(k, op_zscore(R, o));
    sk_int(k, out);
    sk_endrow(k);
    return;
  }
  char s[32], e[32];
  pretty_ts(s, sizeof s, o->start);
  pretty_ts(e, sizeof e, o->end);
  int width = R->op_width > 0 ? R->op_width : INT32_MAX;
  fprintf(f, "%d.%08d %9.1f %13s %13s %6.1f %5s %30.*s\n", o->gpu, o->seq,
          o->pregap >= 0 ? (double)o->pregap / 1000.0 : NAN, s, e,
          (double)op_dur(o) / 1000.0, out ? "OUTLR " : "      ", width, name);
}

/* Write the n ops of ops[] (or, ops NULL, every op through an opiter) as a
 * trace; 1 on a write or temp file read error. */
static int emit_trace(raptor *R, FILE *f, rpd_wb *wb, const char *ws, const op *ops,
                      size_t n, int text)
{
  sink k = { .wb = wb };
  opiter *it = ops ? NULL : opiter_new(R);
  const op *o;
  int rc;
#define NEXT_OP() (it ? opiter_next(it) : i < n ? &ops[i] : NULL)
  size_t i = 0;
  if (text && !ws) {
    fprintf(f, "%10s %9s %13s %13s %10s %5s %s\n", "GPU.Seq_Id", "PreGap_us",
            "Start_ms", "End_ms", "Dur_us", "Outlr?", "Kernel");
    for (; (o = NEXT_OP()); i++) trace_line(R, f, NULL, o);
    rc = ferror(f) ? 1 : 0;
  } else {
    sk_begin(&k, R, f, ws, 10, optrace_cols);
    if (!ws) k.digits = -1;
    for (; (o = NEXT_OP()); i++) {
      if (ws && k.sh.full) break;  /* xlsx row limit */
      trace_line(R, f, &k, o);
    }
    rc = sk_end(&k);
  }
#undef NEXT_OP
  opiter_free(it);
  return rc || R->spill_failed ? 1 : 0;
}

/* ------------------------------------------------------------ --save */

/* A sink into the trace table `name` (common/out/table.h's streamed table:
 * created with types[], one INSERT per row; NaN and Inf are NULL). */
static void sk_begin_save(sink *k, raptor *R, const char *name, int ncols,
                          const char *const *names, const char *const *types)
{
  memset(k, 0, sizeof *k);
  rpd_tstream_save(&k->s, R->r, name, ncols, names, types);   /* a failure: sk_end */
  k->digits = -1;
}

static int save_ops(raptor *R)
{
  static const char *const types[] = {"INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER",
                                      "INTEGER", "INTEGER", "TEXT", "REAL", "INTEGER"};
  sink k;
  opiter *it = opiter_new(R);
  sk_begin_save(&k, R, "ext_raptor_op", 10, optrace_cols, types);
  for (const op *o; !k.s.rc && (o = opiter_next(it));)
    trace_line(R, NULL, &k, o);
  opiter_free(it);
  if (sk_end(&k))
    return RPD_ESQL;
  if (R->spill_failed)
    return rpd_seterr(RPD_EIO, "cannot read the ops back from a temp file");
  return RPD_OK;
}

/* ext_raptor_kernelseq: the rows of the csv/json kernelseq table. */
static int save_kernelseq(raptor *R)
{
  int w = R->seqlen + 1, nt = 17;
  const char **cols = rpd_xmalloc((size_t)(1 + w + nt) * sizeof *cols);
  const char **types = rpd_xmalloc((size_t)(1 + w + nt) * sizeof *types);
  char **kn = rpd_xmalloc((size_t)w * sizeof *kn);
  sink k;
  int rc, c = 0;
  static const char *const tail_types[] = {
    "TEXT", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "REAL", "REAL", "REAL", "REAL",
    "REAL", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL"};
  cols[c] = "rank";
  types[c++] = "INTEGER";
  for (int j = 0; j < w; j++, c++) {
    kn[j] = j ? rpd_xasprintf("kernel_%d", j) : rpd_xstrdup("kernel");
    cols[c] = kn[j];
    types[c] = "TEXT";
  }
  for (int j = 0; j < nt; j++, c++) {
    cols[c] = kernelseq_tail[j];
    types[c] = tail_types[j];
  }
  sk_begin_save(&k, R, "ext_raptor_kernelseq", c, cols, types);
  kernelseq_rows(R, &k);
  rc = sk_end(&k) ? RPD_ESQL : RPD_OK;
  for (int j = 0; j < w; j++)
    free(kn[j]);
  free(kn);
  free(cols);
  free(types);
  return rc;
}

/* ext_raptor_category, _variability, _gpu: the printed tables' rows in
 * the stored units (ns, percent as numbers). */
static int save_small(raptor *R)
{
  static const char *const ccols[] = {"category", "uniq_kernels", "total_calls",
                                      "total_dur_ns", "varsum_ns", "avg_dur_us", "pct"};
  static const char *const ctypes[] = {"TEXT", "INTEGER", "INTEGER", "REAL", "REAL",
                                       "REAL", "REAL"};
  static const char *const vcols[] = {"name", "var_us", "var_pct"};
  static const char *const vtypes[] = {"TEXT", "REAL", "REAL"};
  static const char *const gcols[] = {"gpuId", "pregap_ns", "duration_ns", "idle_pct",
                                      "leading_idle_ns", "trailing_idle_ns"};
  static const char *const gtypes[] = {"INTEGER", "REAL", "REAL", "REAL", "REAL", "REAL"};
  sink k;
  int err;

  sk_begin_save(&k, R, "ext_raptor_category", 7, ccols, ctypes);
  for (size_t i = 0; i < R->ncrows; i++) {
    catrow *x = &R->crows[i];
    sk_str(&k, x->name);
    sk_int(&k, x->uniq);
    sk_int(&k, x->calls);
    sk_dbl(&k, x->dur);
    sk_dbl(&k, x->varsum);
    sk_dbl(&k, x->avg_us);
    sk_dbl(&k, x->pct);
    sk_endrow(&k);
  }
  err = sk_end(&k);

  sk_begin_save(&k, R, "ext_raptor_variability", 3, vcols, vtypes);
  for (int i = 0; i < 2; i++) {
    double v = i ? R->var_other : R->var_comm;
    sk_str(&k, i ? "by_non_comm" : "by_comm");
    sk_dbl(&k, v / 1000.0);
    sk_dbl(&k, v / R->total_ns * 100.0);
    sk_endrow(&k);
  }
  err |= sk_end(&k);

  sk_begin_save(&k, R, "ext_raptor_gpu", 6, gcols, gtypes);
  for (size_t i = 0; i < R->ngrows; i++) {
    gpurow *g = &R->grows[i];
    sk_int(&k, g->gpu);
    sk_dbl(&k, g->pregap);
    sk_dbl(&k, g->dur);
    sk_dbl(&k, g->idle_pct);
    sk_dbl(&k, g->lead);
    sk_dbl(&k, g->trail);
    sk_endrow(&k);
  }
  err |= sk_end(&k);
  return err ? RPD_ESQL : RPD_OK;
}

/* --save: the tables as ext_raptor_* in the trace, one transaction. */
int save_results(raptor *R)
{
  rpd *r = R->r;
  int rc = rpd_begin(r);
  if (rc != RPD_OK) return rc;
  rc = save_ops(R);
  if (rc == RPD_OK) rc = save_kernelseq(R);
  if (rc == RPD_OK) rc = save_small(R);
  if (rc == RPD_OK) {
    char v[64];
    struct { const char *tag; int64_t val; } m[] = {
      {"raptor_first_abs_ns", R->first_abs}, {"raptor_last_abs_ns", R->last_abs},
      {"raptor_roi_start_ns", R->roi_s}, {"raptor_roi_end_ns", R->roi_e},
    };
    for (size_t i = 0; rc == RPD_OK && i < sizeof m / sizeof *m; i++) {
      snprintf(v, sizeof v, "%" PRId64, m[i].val);
      rc = rpd_meta_set(r, m[i].tag, v);
    }
    if (rc == RPD_OK)
      rc = rpd_meta_set(r, "raptor_options", R->optstr.s ? R->optstr.s : "");
  }
  if (rc == RPD_OK) rc = rpd_commit(r);
  if (rc != RPD_OK) rpd_rollback(r);
  return rc;
}

/* ------------------------------------------------------------ xlsx */

static char *xls_path(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  return rpd_xasprintf("%.*s.xlsx", (int)keep, path);
}

/* The first sheet of -x: trace, ROI, options, units. */
static int xls_info(raptor *R, rpd_wb *w)
{
  char roi[160];
  snprintf(roi, sizeof roi, "%.3f ms .. %.3f ms after the first op (%lld .. %lld ns)",
           (double)(R->roi_s - R->first_abs) / 1e6, (double)(R->roi_e - R->first_abs) / 1e6,
           (long long)R->roi_s, (long long)R->roi_e);
  const char *kv[] = {
    "trace", R->path,
    "ROI", roi,
    "options", R->optstr.s ? R->optstr.s : "(none)",
    "units", "*_ms: milliseconds, *_us: microseconds (3 decimals), *_ns: nanoseconds, "
             "*pct* / Pct*: percent 0..100, counts: integers",
    "tool", "raptor (rpdtools " RPDTOOLS_VERSION ")",
  };
  return rpd_wb_info(w, "raptor -x", kv, (int)(sizeof kv / sizeof *kv / 2)) ? 1 : 0;
}

/* A chart next to the table the sink k just wrote (n rows; n < 0: all,
 * as a pie when axis is NULL). */
static int xls_chart(rpd_wb *w, const sink *k, int n, int cat_col, int val_col,
                     const char *title, const char *axis)
{
  int rows = k->row - 1;
  if (n < 0 || n > rows) n = rows;
  if (!k->ws) return 1;
  if (!axis) return rpd_wb_pie(w, &k->sh, 1, n, cat_col, val_col, title) ? 1 : 0;
  return rpd_wb_bar(w, &k->sh, n, cat_col, val_col, title, axis) ? 1 : 0;
}

/* -x: the workbook FILE.xlsx, built in a temp file next to it and renamed
 * into place (never over the trace itself, a device or a directory). */
int write_xls(raptor *R)
{
  char *path = xls_path(R->path);
  rpd_wb w;
  int rc = 0;
  if (rpd_wb_open(&w, path, R->path) != RPD_OK) {
    rc = rpd_fail("%s", rpd_errmsg());
    free(path);
    return rc;
  }
  fprintf(stderr, "info: writing xls file '%s'\n", path);
  sink k = { .wb = &w };
  int err;
  err = xls_info(R, &w);
  if (!err) err = emit_kernelseq(R, &k, NULL, "kernelseq");
  if (!err) err = emit_pretty(R, &k, NULL, "pretty kernelseq", -1);
  if (!err) err = xls_chart(&w, &k, R->nrows < 15 ? (int)R->nrows : 15, 0, 11,
                            "Top kernel sequences by share of GPU time", "%");
  if (!err) err = emit_category(R, &k, NULL, "category");
  if (!err) err = xls_chart(&w, &k, -1, 0, 3, "GPU time by category (ms)", NULL);
  if (!err) err = emit_variability(R, &k, NULL, "variability");
  if (!err && R->xls_op_trace) {
    if (R->n >= 1048576)
      fprintf(stderr, "%s: warning: op trace truncated to the xlsx limit of 1048575 rows\n",
              rpd_progname);
    err = emit_trace(R, NULL, &w, "op trace", NULL, 0, 0);
  }
  if (rpd_wb_close(&w, err ? RPD_EIO : RPD_OK) != RPD_OK)
    rc = rpd_fail("%s", rpd_errmsg());
  free(path);
  return rc;
}

/* Refuse the named outputs before any work: --op-trace-file and -x's
 * workbook must not be the trace itself, a device or a directory.  Returns
 * the exit code (0, or 1 after reporting). */
int check_outputs(raptor *R)
{
  if ((R->op_trace || R->have_instance) && R->op_file &&
      rpd_output_check(R->op_file, R->path, NULL) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", R->op_file, rpd_errmsg());
  if (R->write_xls) {
    char *path = xls_path(R->path);
    int rc = 0;
    if (rpd_output_check(path, R->path, NULL) != RPD_OK)
      rc = rpd_fail("cannot write '%s': %s", path, rpd_errmsg());
    free(path);
    return rc;
  }
  return 0;
}

/* ------------------------------------------------------------ printing */

/* Duration ascending, then trace order (seq within a GPU). */
static int op_dur_cmp(const void *a, const void *b)
{
  const op *x = a, *y = b;
  int64_t dx = op_dur(x), dy = op_dur(y);
  if (dx != dy) return dx < dy ? -1 : 1;
  if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The kernelseq row that --instance-trace names, or NULL (message printed). */
krow *instance_row(raptor *R)
{
  int64_t i = R->instance;
  if (i < 0) i += (int64_t)R->nrows;
  if (i < 0 || i >= (int64_t)R->nrows) {
    rpd_fail("--instance-trace %" PRId64 ": the kernelseq table has %zu rows",
             R->instance, R->nrows);
    return NULL;
  }
  if (R->rows[i].key < 0) {
    rpd_fail("--instance-trace %" PRId64 ": row '%s' is an idle-gap row, not a kernel",
             R->instance, R->rows[i].label);
    return NULL;
  }
  return &R->rows[i];
}

/* The ops of the -i row by duration (a copy of just those ops). */
static int instance_trace(raptor *R, FILE *f)
{
  krow *x = instance_row(R);
  if (!x) return 1;
  op *sel = NULL;
  size_t n = 0, cap = 0;
  opiter *it = opiter_new(R);
  for (const op *o; (o = opiter_next(it));) {
    if (o->key != x->key) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      sel = rpd_xrealloc(sel, cap * sizeof *sel);
    }
    sel[n++] = *o;
  }
  opiter_free(it);
  static const op none;
  if (n > 1) qsort(sel, n, sizeof *sel, op_dur_cmp);
  int rc = R->spill_failed ? 1 : emit_trace(R, f, NULL, NULL, sel ? sel : &none, n,
                                            R->fmt == RPD_FMT_TABLE);
  free(sel);
  return rc;
}

/* The tables and traces asked for, on stdout (or --op-trace-file). */
/* The tables selected for output, in print order; *n of them.  A trace
 * written to --op-trace-file is not counted (it has its own file). */
int stdout_tables(const raptor *R, const char **names, int *n)
{
  int k = 0;
  if (R->categorize) names[k++] = "categories";
  if (R->variability) names[k++] = "variability";
  if (R->gpu_summary) names[k++] = "gpus";
  if (R->kernelseq) names[k++] = "kernelseq";
  if (R->op_trace && !R->op_file) names[k++] = "op_trace";
  if (R->have_instance && !R->op_file) names[k++] = "instances";
  *n = k;
  return k;
}

typedef int (*emit_fn)(raptor *, sink *, FILE *, const char *);

/* Write one table as CSV to DIR/NAME.csv through a temp file renamed into
 * place.  0 or an exit code (message printed). */
static int csv_file(raptor *R, const char *name, emit_fn emit, int trace)
{
  char *path = rpd_xasprintf("%s/%s.csv", R->csv_dir, name);
  rpd_outfile of = {0};
  sink k = {0};
  int rc;
  if (rpd_outfile_begin(&of, path, R->path) != RPD_OK) {
    rc = rpd_fail("cannot write '%s': %s", path, rpd_errmsg());
    free(path);
    return rc;
  }
  rpd_fmt saved = R->fmt;
  R->fmt = RPD_FMT_CSV;
  if (trace == 1) rc = emit_trace(R, of.fp, NULL, NULL, NULL, 0, 0);
  else if (trace == 2) rc = instance_trace(R, of.fp);
  else rc = emit(R, &k, of.fp, NULL);
  R->fmt = saved;
  if (rc || ferror(of.fp)) {
    rpd_outfile_abort(&of);
    rc = rpd_fail("cannot write '%s'", path);
  } else if (rpd_outfile_commit(&of) != RPD_OK) {
    rc = rpd_fail("cannot write '%s': %s", path, rpd_errmsg());
  }
  free(path);
  return rc;
}

/* --csv-dir DIR: one CSV file per selected table (DIR/categories.csv,
 * variability.csv, gpus.csv, kernelseq.csv, op_trace.csv, instances.csv),
 * never a mixed stream.  0 or an exit code. */
int write_csv_dir(raptor *R)
{
  int rc = 0;
  if (mkdir(R->csv_dir, 0777) && errno != EEXIST)
    return rpd_fail("cannot create '%s': %s", R->csv_dir, strerror(errno));
  if (!rc && R->categorize) rc = csv_file(R, "categories", emit_category, 0);
  if (!rc && R->variability) rc = csv_file(R, "variability", emit_variability, 0);
  if (!rc && R->gpu_summary) rc = csv_file(R, "gpus", emit_gpu, 0);
  if (!rc && R->kernelseq) rc = csv_file(R, "kernelseq", emit_kernelseq, 0);
  if (!rc && R->op_trace && !R->op_file) rc = csv_file(R, "op_trace", NULL, 1);
  if (!rc && R->have_instance && !R->op_file) rc = csv_file(R, "instances", NULL, 2);
  return rc;
}

int print_all(raptor *R)
{
  FILE *out = stdout;
  sink k = {0};
  int rc = 0, json = R->fmt == RPD_FMT_JSON, table = R->fmt == RPD_FMT_TABLE;
  int first = 1;
#define SECTION(title, key)                                        \
  do {                                                             \
    if (table) printf("\n%s\n", title);                            \
    else if (json) printf("%s\"%s\": ", first ? "{" : ",\n", key); \
    else if (!first) printf("\n");                                 \
    first = 0;                                                     \
  } while (0)
  if (table && !rpd_quiet) {   /* -q: the tables only */
    char b[32];
    printf("    Timestamps :\n");
    pretty_ts(b, sizeof b, 0);
    printf("      first    : %s ms\n", b);
    pretty_ts(b, sizeof b, R->last_abs - R->first_abs);
    printf("      last     : %s ms\n", b);
    pretty_ts(b, sizeof b, R->roi_s);
    printf("      roi_start: %s ms\n", b);
    pretty_ts(b, sizeof b, R->roi_e);
    printf("      roi_end  : %s ms\n", b);
    pretty_ts(b, sizeof b, R->roi_e - R->roi_s);
    printf("      roi_dur  : %s ms\n", b);
  } else if (json) {
    SECTION("", "timestamps");
    rc |= emit_timestamps(R, &k, out, NULL);
  }
  if (R->categorize) {
    SECTION("Categories:", "categories");
    rc |= emit_category(R, &k, out, NULL);
  }
  if (R->variability) {
    SECTION("Variability:", "variability");
    rc |= emit_variability(R, &k, out, NULL);
  }
  if (R->gpu_summary) {
    SECTION("GPUs:", "gpus");
    rc |= emit_gpu(R, &k, out, NULL);
  }
  if (R->kernelseq) {
    SECTION("Top Kernels:", "kernelseq");
    if (table) {
      rc |= emit_pretty(R, &k, out, NULL, R->display_rows);
      if (R->display_rows >= 0 && R->nrows > (size_t)R->display_rows)
        printf("... %zu more rows (--display-rows)\n", R->nrows - (size_t)R->display_rows);
    } else {
      rc |= emit_kernelseq(R, &k, out, NULL);
    }
  }
  FILE *tf = out;
  rpd_outfile of = {0};
  int to_file = (R->op_trace || R->have_instance) && R->op_file;
  if (to_file) {
    /* a temp file next to it, renamed into place when complete: a failure
     * or a kill leaves the previous file as it was */
    if (rpd_outfile_begin(&of, R->op_file, R->path) != RPD_OK)
      return rpd_fail("cannot write '%s': %s", R->op_file, rpd_errmsg());
    fprintf(stderr, "info: writing results to %s\n", R->op_file);
    tf = of.fp;
  }
  if (R->op_trace) {
    if (!to_file && !table) SECTION("", "op_trace");
    rc |= emit_trace(R, tf, NULL, NULL, NULL, 0, table);
  }
  if (R->have_instance) {
    if (!to_file && !table) SECTION("", "instances");
    int e = instance_trace(R, tf);
    if (e) {
      if (to_file) rpd_outfile_abort(&of);
      if (json && !first) printf("[]}\n");
      return e;
    }
  }
  if (to_file) {
    if (rc || ferror(tf)) {
      rpd_outfile_abort(&of);
      rc |= rpd_fail("cannot write '%s'", R->op_file);
    } else if (rpd_outfile_commit(&of) != RPD_OK) {
      rc |= rpd_fail("cannot write '%s': %s", R->op_file, rpd_errmsg());
    }
  }
  if (json && !first) printf("}\n");
#undef SECTION
  if (rpd_finish_stdout() != RPD_OK)
    return rpd_fail("%s", rpd_errmsg());
  return rc ? 1 : 0;
}
