/* perf.c - raptor --report's performance-model sheets, from the ext_perf_op
 * table rpd-perfmodel writes (docs/rpd-perfmodel.md): one sheet per
 * category with TraceLens's sheet name, column names and values (GEMM,
 * SDPA_fwd, BinaryElementwise, ...: op name + "param: X" columns, then
 * GFLOPS_first ... name_count, UID_first) plus our % of peak and roofline
 * columns; perf_roofline, every op group across the categories ranked by
 * the time it loses against the roofline (the chart's data, perfchart.c);
 * and perf_peaks, the roofs of the trace's arch.  No sheet when the trace
 * has no ext_perf_op.  See docs/report.md "Performance-model sheets". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The columns after a sheet's params: TraceLens's (those we compute), then
 * ours. */
#define PERF_TAIL                                                              \
  "GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first", "TB/s_mean",    \
  "TB/s_median", "TB/s_std", "TB/s_min", "TB/s_max", "TFLOPS/s_mean",          \
  "TFLOPS/s_median", "TFLOPS/s_std", "TFLOPS/s_min", "TFLOPS/s_max",           \
  "Compute Spec", "Input Dims_first", "Input type_first",                      \
  "Input Strides_first", "Concrete Inputs_first", "Kernel Time (µs)_mean",     \
  "Kernel Time (µs)_median", "Kernel Time (µs)_std", "Kernel Time (µs)_min",   \
  "Kernel Time (µs)_max", "Kernel Time (µs)_sum", "name_count", "UID_first",   \
  "pct_peak_compute_mean", "pct_peak_bw_mean", "bound", "roofline_us_sum",     \
  "lost_us_sum"
#define NTAIL 31

static const char *const gemm_cols[] = {
  "name", "param: B", "param: M", "param: N", "param: K", "param: bias",
  "param: stride_A", "param: stride_B", "param: dtype_A_B", PERF_TAIL
};
static const char *const sdpa_cols[] = {
  "name", "param: B", "param: N_Q", "param: H_Q", "param: N_KV", "param: H_KV",
  "param: d_h_qk", "param: d_h_v", "param: dropout", "param: causal",
  "param: flash_impl", "param: dtype_A_B", PERF_TAIL
};
static const char *const binary_cols[] = {
  "name", "param: shape_in1", "param: shape_in2", "param: dtype_in1_in2_out",
  "param: stride_input1", "param: stride_input2", "param: stride_output", PERF_TAIL
};
static const char *const unary_cols[] = {
  "name", "param: op_shape", "param: dtype_in_out", "param: stride_input",
  "param: stride_output", PERF_TAIL
};

static const char *const sdpa_bwd_cols[] = {
  "name", "param: B", "param: N_Q", "param: H_Q", "param: N_KV", "param: H_KV",
  "param: d_h_qk", "param: d_h_v", "param: dropout", "param: causal",
  "param: flash_impl", "param: dtype_A_B", PERF_TAIL
};
static const char *const norm_cols[] = {
  "name", "param: op_shape", "param: dtype_in_out", "param: stride_input",
  "param: stride_output", "param: num_channels", "param: has_bias", "param: is_affine",
  "param: is_training", "param: output_mask", PERF_TAIL
};
static const char *const reduce_cols[] = {
  "name", "param: num_input_elems", "param: num_output_elems", "param: dtype_in_out",
  "param: reduce_type", PERF_TAIL
};
static const char *const conv_cols[] = {
  "name", "param: convNd", "param: input_shape", "param: filter_shape",
  "param: dtype_input_weight", "param: input_stride", "param: weight_stride",
  "param: bias", "param: stride", "param: padding", "param: dilation",
  "param: transposed_conv", "param: output_padding", "param: groups", PERF_TAIL
};

#define NCOLS(a) ((int)(sizeof a / sizeof *a))

/* ext_perf_op's category = the sheet's name, its columns. */
static const struct sheet {
  const char *name;
  const char *const *cols;
  int ncols;
} sheets[] = {
  {"GEMM", gemm_cols, NCOLS(gemm_cols)},
  {"SDPA_fwd", sdpa_cols, NCOLS(sdpa_cols)},
  {"BinaryElementwise", binary_cols, NCOLS(binary_cols)},
  {"UnaryElementwise", unary_cols, NCOLS(unary_cols)},
  {"SDPA_bwd", sdpa_bwd_cols, NCOLS(sdpa_bwd_cols)},
  {"Normalization", norm_cols, NCOLS(norm_cols)},
  {"Reduce_fwd", reduce_cols, NCOLS(reduce_cols)},
  {"CONV_fwd", conv_cols, NCOLS(conv_cols)},
  {"CONV_bwd", conv_cols, NCOLS(conv_cols)},
};
#define NSHEETS (sizeof sheets / sizeof *sheets)

static const char *const roof_cols[] = {
  "name", "category", "params", "Compute Spec", "name_count", "FLOPS/Byte",
  "TFLOPS/s", "TB/s", "Kernel Time (µs)_sum", "roofline_us_sum", "lost_us_sum",
  "lost_pct", "bound", "pct_peak_compute", "pct_peak_bw"
};
static const char *const roof_types[] = {
  "TEXT", "TEXT", "TEXT", "TEXT", "INTEGER", "REAL", "REAL", "REAL", "REAL", "REAL",
  "REAL", "REAL", "TEXT", "REAL", "REAL"
};
static const char *const peak_cols[] = { "arch", "Compute Spec", "peak_tflops", "hbm_tbs",
                                         "ridge_flops_per_byte" };
static const char *const peak_types[] = { "TEXT", "TEXT", "REAL", "REAL", "REAL" };

/* 1 if name is one of the performance-model table names. */
int report_perf_name(const char *name)
{
  for (size_t k = 0; name && k < NSHEETS; k++)
    if (!strcmp(name, sheets[k].name))
      return 1;
  return name && (!strcmp(name, "perf_roofline") || !strcmp(name, "perf_peaks") ||
                  !strcmp(name, "coll_analysis"));
}

/* ------------------------------------------------------------ statistics */

/* Values of one group: mean, median, sample std (NaN for one value, as
 * pandas), min, max, sum. */
typedef struct vstat {
  double mean, median, std, min, max, sum;
} vstat;

typedef struct dvec {
  double *v;
  size_t n, cap;
} dvec;

static void dv_push(dvec *d, double x)
{
  if (d->n == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 16;
    d->v = rpd_xrealloc(d->v, d->cap * sizeof *d->v);
  }
  d->v[d->n++] = x;
}

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Statistics of the finite values of d (all NaN when none); sorts d. */
static vstat dv_stat(dvec *d)
{
  vstat s = { NAN, NAN, NAN, NAN, NAN, 0 };
  size_t n = 0;
  for (size_t i = 0; i < d->n; i++)
    if (isfinite(d->v[i]))
      d->v[n++] = d->v[i];
  if (!n)
    return s;
  report_sort(d->v, n, sizeof *d->v, cmp_dbl);
  for (size_t i = 0; i < n; i++)
    s.sum += d->v[i];
  s.mean = s.sum / (double)n;
  s.min = d->v[0];
  s.max = d->v[n - 1];
  s.median = n % 2 ? d->v[n / 2] : (d->v[n / 2 - 1] + d->v[n / 2]) / 2;
  if (n > 1) {
    double ss = 0;
    for (size_t i = 0; i < n; i++)
      ss += (d->v[i] - s.mean) * (d->v[i] - s.mean);
    s.std = sqrt(ss / (double)(n - 1));
  }
  return s;
}

/* ------------------------------------------------------------ groups */

/* One op group (name + params) of one category. */
typedef struct group {
  char *name, *params, *spec, *bound, *first[4];  /* first: the Input args */
  double flops, bytes, fpb;   /* of the first instance (-1/NaN: unknown) */
  vstat tb, tf, kus, pc, pb;
  double roof_us, lost_us, flops_sum, bytes_sum;
  int64_t count, uid;
  const char *cat;
} group;

typedef struct gvec {
  group *g;
  size_t n, cap;
} gvec;

static void group_free(group *g)
{
  free(g->name);
  free(g->params);
  free(g->spec);
  free(g->bound);
  for (int i = 0; i < 4; i++)
    free(g->first[i]);
}

static char *dup_col(sqlite3_stmt *st, int k)
{
  const unsigned char *s = sqlite3_column_text(st, k);
  return s ? rpd_xstrdup((const char *)s) : NULL;
}

static double col_num(sqlite3_stmt *st, int k)
{
  return sqlite3_column_type(st, k) == SQLITE_NULL ? NAN : sqlite3_column_double(st, k);
}

/* A JSON array (compact, as json_extract returns it) as Python prints the
 * list: ", " between items, strings in single quotes; TraceLens's
 * "Input Dims_first" ... columns are these texts.  Caller frees. */
static char *py_list(const char *json)
{
  rpd_buf b = {0};
  char *s;
  if (!json)
    return NULL;
  for (const char *p = json; *p; p++) {
    if (*p == '"') {
      rpd_buf_puts(&b, "'");
      for (p++; *p && *p != '"'; p++) {
        char c[3] = { 0 };
        if (*p == '\\' && p[1]) {
          p++;
          c[0] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else
          c[0] = *p;
        if (c[0] == '\'' || c[0] == '\\') {
          c[1] = c[0];
          c[0] = '\\';
        }
        rpd_buf_puts(&b, c);
      }
      rpd_buf_puts(&b, "'");
      if (!*p)
        break;
    } else if (*p == ',') {
      rpd_buf_puts(&b, ", ");
      while (p[1] == ' ')
        p++;
    }
    else
      rpd_buf_printf(&b, "%c", *p);
  }
  s = rpd_xstrdup(b.s ? b.s : "");
  rpd_buf_free(&b);
  return s;
}

/* The innermost modelled ops that ran kernels (perf_op_summary's rows),
 * in group order, with the first instance's profiler args: an autograd
 * marker's sizes, joined here; a Kineto import's args, read afterwards for
 * the first op of each group only (kineto_first_args).  A join with the
 * events would make SQLite build an automatic index of every event's args
 * (ext_kineto_event has no index on api_id), and json_extract parses the
 * whole args object of each row. */
#define GROUPS_HEAD                                                              \
  "SELECT P.category, P.name, coalesce(P.params, ''), P.spec, P.flops, P.bytes," \
  " P.flops_per_byte, P.kernel_ns, P.tflops_s, P.tb_s, P.pct_peak_compute,"      \
  " P.pct_peak_bw, P.bound, P.roofline_ns, P.lost_ns, P.api_id, "
#define GROUPS_TAIL                                                    \
  " WHERE P.category != 'none' AND P.outer = 0 AND P.kernels > 0"      \
  " ORDER BY P.category, P.name, P.params, P.api_id"
static const char groups_kineto_sql[] = GROUPS_HEAD
  "NULL, NULL, NULL, NULL FROM ext_perf_op P" GROUPS_TAIL;
static const char groups_autograd_sql[] = GROUPS_HEAD
  "nullif(A.sizes, ''), NULL, NULL, NULL"
  " FROM ext_perf_op P LEFT JOIN ext_autogradapi A ON A.api_ptr_id = P.api_id"
  GROUPS_TAIL;

static const char op_events_sql[] =
  "SELECT api_id, json_extract(args, '$.\"Input Dims\"'), json_extract(args, '$.\"Input type\"'),"
  " json_extract(args, '$.\"Input Strides\"'),"
  " json_extract(args, '$.\"Concrete Inputs\"') FROM ext_kineto_event WHERE id = ?1";
static const char op_event_ids_sql[] =
  "SELECT api_id, id FROM ext_kineto_event WHERE cat = 'cpu_op' AND api_id IS NOT NULL";

enum { V_TB, V_TF, V_K, V_PC, V_PB, NV };

/* Close the group g: statistics of its instances' values v[]. */
static void group_close(group *g, dvec *v)
{
  g->tb = dv_stat(&v[V_TB]);
  g->tf = dv_stat(&v[V_TF]);
  g->kus = dv_stat(&v[V_K]);
  g->pc = dv_stat(&v[V_PC]);
  g->pb = dv_stat(&v[V_PB]);
  for (int i = 0; i < NV; i++)
    v[i].n = 0;
}

/* The first instance's args of each group of gv, from a Kineto import's
 * events: one scan of the cpu_op events' ids, then each first op's event
 * by id.  A group whose op has no event keeps NULL args. */
static int kineto_first_args(rpd *r, gvec *gv)
{
  sqlite3_stmt *ids = NULL, *ev = NULL;
  rpd_i64map want = {0};
  size_t left = gv->n;
  int rc = rpd_prepare(r, op_event_ids_sql, &ids), s = SQLITE_DONE;
  if (!rc)
    rc = rpd_prepare(r, op_events_sql, &ev);
  for (size_t i = 0; i < gv->n; i++)
    rpd_i64map_put(&want, gv->g[i].uid, (int64_t)i);
  while (!rc && left && (s = rpd_step(r, ids)) == SQLITE_ROW) {
    int64_t gi;
    if (!rpd_i64map_get(&want, sqlite3_column_int64(ids, 0), &gi) || gi < 0)
      continue;
    rpd_i64map_put(&want, sqlite3_column_int64(ids, 0), -1);   /* the first event wins */
    left--;
    sqlite3_bind_int64(ev, 1, sqlite3_column_int64(ids, 1));
    int es = rpd_step(r, ev);
    if (es < 0)
      rc = -es;
    for (int k = 0; es == SQLITE_ROW && k < 4; k++)
      gv->g[gi].first[k] = py_list((const char *)sqlite3_column_text(ev, 1 + k));
    sqlite3_reset(ev);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(ids);
  sqlite3_finalize(ev);
  rpd_i64map_free(&want);
  return rc;
}

/* Read every group of ext_perf_op into *gv (category, name, params order). */
static int read_groups(rpd *r, gvec *gv)
{
  sqlite3_stmt *st = NULL;
  dvec v[NV] = {{0}};
  group *g = NULL;
  int kineto = rpd_table_exists(r, "ext_kineto_event");
  int rc = rpd_prepare(r, kineto ? groups_kineto_sql : groups_autograd_sql, &st);
  int s = SQLITE_DONE;
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *cat = (const char *)sqlite3_column_text(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *params = (const char *)sqlite3_column_text(st, 2);
    const struct sheet *sh = NULL;
    for (size_t k = 0; k < NSHEETS; k++)
      if (cat && !strcmp(cat, sheets[k].name))
        sh = &sheets[k];
    if (!sh || !name || !params)
      continue;   /* a category without a sheet yet */
    if (!g || strcmp(g->cat, sh->name) || strcmp(g->name, name) || strcmp(g->params, params)) {
      if (g)
        group_close(g, v);
      if (gv->n == gv->cap) {
        gv->cap = gv->cap ? 2 * gv->cap : 32;
        gv->g = rpd_xrealloc(gv->g, gv->cap * sizeof *gv->g);
      }
      g = &gv->g[gv->n++];
      memset(g, 0, sizeof *g);
      g->cat = sh->name;
      g->name = rpd_xstrdup(name);
      g->params = rpd_xstrdup(params);
      g->spec = dup_col(st, 3);
      g->bound = dup_col(st, 12);
      g->flops = col_num(st, 4);
      g->bytes = col_num(st, 5);
      g->fpb = col_num(st, 6);
      g->uid = sqlite3_column_int64(st, 15);
      for (int i = 0; !kineto && i < 4; i++)
        g->first[i] = py_list((const char *)sqlite3_column_text(st, 16 + i));
    }
    double kns = col_num(st, 7);
    g->count++;
    dv_push(&v[V_K], kns / 1e3);
    dv_push(&v[V_TF], col_num(st, 8));
    dv_push(&v[V_TB], col_num(st, 9));
    dv_push(&v[V_PC], col_num(st, 10));
    dv_push(&v[V_PB], col_num(st, 11));
    g->roof_us += col_num(st, 13) / 1e3;
    g->lost_us += col_num(st, 14) / 1e3;
    g->flops_sum += col_num(st, 4);
    g->bytes_sum += col_num(st, 5);
  }
  if (g)
    group_close(g, v);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  for (int i = 0; i < NV; i++)
    free(v[i].v);
  if (!rc && kineto && gv->n)
    rc = kineto_first_args(r, gv);
  return rc;
}

/* ------------------------------------------------------------ sheets */

/* A real parameter as Python prints it (the shortest text that reads back
 * the same, "0.0" for a whole number): TraceLens's key text. */
static void t_py_float(table *t, double v)
{
  char b[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(b, sizeof b, "%.*g", prec, v);
    if (strtod(b, NULL) == v)
      break;
  }
  if (!strpbrk(b, ".eninf"))
    strcat(b, ".0");
  t_str(t, b);
}

/* The value of params' key as TraceLens writes it: integers, reals,
 * True/False, texts; NULL when absent. */
static void t_param(table *t, rpd *r, sqlite3_stmt *st, const char *params, const char *key)
{
  int rc;
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, params, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
  rc = rpd_step(r, st);
  if (rc != SQLITE_ROW) {
    t_null(t);
    return;
  }
  const char *type = (const char *)sqlite3_column_text(st, 1);
  if (!type || !strcmp(type, "null"))
    t_null(t);
  else if (!strcmp(type, "true") || !strcmp(type, "false"))
    t_str(t, !strcmp(type, "true") ? "True" : "False");
  else if (!strcmp(type, "integer"))
    t_int(t, sqlite3_column_int64(st, 0));
  else if (!strcmp(type, "real"))
    t_py_float(t, sqlite3_column_double(st, 0));
  else
    t_str(t, (const char *)sqlite3_column_text(st, 0));
}

static void t_stat(table *t, const vstat *s, int with_sum)
{
  t_dbl(t, s->mean, -1);
  t_dbl(t, s->median, -1);
  t_dbl(t, s->std, -1);
  t_dbl(t, s->min, -1);
  t_dbl(t, s->max, -1);
  if (with_sum)
    t_dbl(t, s->sum, -1);
}

/* A figure, NULL when unknown (NaN or negative). */
static void t_pos(table *t, double v, double scale)
{
  if (isfinite(v) && v >= 0)
    t_dbl(t, v / scale, -1);
  else
    t_null(t);
}

/* Kernel time sum descending (TraceLens's order), then name, params. */
static int cmp_time(const void *a, const void *b)
{
  const group *x = *(group *const *)a, *y = *(group *const *)b;
  int c;
  if (x->kus.sum != y->kus.sum)
    return x->kus.sum > y->kus.sum ? -1 : 1;
  if ((c = strcmp(x->name, y->name)))
    return c;
  return strcmp(x->params, y->params);
}

/* Lost time descending, then kernel time descending. */
static int cmp_lost(const void *a, const void *b)
{
  const group *x = *(group *const *)a, *y = *(group *const *)b;
  double lx = isfinite(x->lost_us) ? x->lost_us : -INFINITY;
  double ly = isfinite(y->lost_us) ? y->lost_us : -INFINITY;
  if (lx != ly)
    return lx > ly ? -1 : 1;
  return cmp_time(a, b);
}

/* One category's sheet from its groups g[0..n) (sorted here). */
static int sheet_table(rpd *r, const struct sheet *sh, group **g, size_t n, report *rep)
{
  sqlite3_stmt *st = NULL;
  int np = sh->ncols - 1 - NTAIL;
  int rc = rpd_prepare(r, "SELECT json_extract(?1, '$.\"' || ?2 || '\"'),"
                          " json_type(?1, '$.\"' || ?2 || '\"')", &st);
  if (rc)
    return rc;
  report_sort(g, n, sizeof *g, cmp_time);
  table *t = report_add(rep);
  t_init(t, sh->name, sh->ncols, sh->cols, NULL);
  for (size_t i = 0; i < n; i++) {
    const group *x = g[i];
    t_str(t, x->name);
    for (int k = 0; k < np; k++)
      t_param(t, r, st, x->params, sh->cols[1 + k] + strlen("param: "));
    t_pos(t, x->flops, 1e9);
    t_pos(t, x->bytes, 1048576.0);
    t_pos(t, x->fpb, 1);
    t_stat(t, &x->tb, 0);
    t_stat(t, &x->tf, 0);
    t_str(t, x->spec);
    for (int k = 0; k < 4; k++)
      if (x->first[k])
        t_str(t, x->first[k]);
      else
        t_null(t);
    t_stat(t, &x->kus, 1);
    t_int(t, x->count);
    t_int(t, x->uid);
    t_dbl(t, x->pc.mean, -1);
    t_dbl(t, x->pb.mean, -1);
    if (x->bound)
      t_str(t, x->bound);
    else
      t_null(t);
    t_dbl(t, x->roof_us, -1);
    t_dbl(t, x->lost_us, -1);
  }
  sqlite3_finalize(st);
  return RPD_OK;
}

/* perf_roofline: every group, the most time lost first. */
static void roofline_table(group **g, size_t n, report *rep)
{
  double total = 0;
  for (size_t i = 0; i < n; i++)
    total += g[i]->kus.sum;
  report_sort(g, n, sizeof *g, cmp_lost);
  table *t = report_add(rep);
  t_init(t, "perf_roofline", NCOLS(roof_cols), roof_cols, roof_types);
  for (size_t i = 0; i < n; i++) {
    const group *x = g[i];
    double ks = x->kus.sum;
    t_str(t, x->name);
    t_str(t, x->cat);
    t_str(t, x->params);
    t_str(t, x->spec);
    t_int(t, x->count);
    t_pos(t, x->fpb, 1);
    /* achieved over the group: all its FLOPs / all its kernel time */
    t_pos(t, ks > 0 && x->flops_sum >= 0 ? x->flops_sum / ks / 1e6 : NAN, 1);
    t_pos(t, ks > 0 && x->bytes_sum >= 0 ? x->bytes_sum / ks / 1e6 : NAN, 1);
    t_dbl(t, ks, 3);
    t_dbl(t, x->roof_us, 3);
    t_dbl(t, x->lost_us, 3);
    t_dbl(t, total > 0 && isfinite(x->lost_us) ? 100 * x->lost_us / total : NAN, 3);
    if (x->bound)
      t_str(t, x->bound);
    else
      t_null(t);
    t_dbl(t, ks > 0 && isfinite(x->pc.mean) ? x->pc.mean : NAN, 3);
    t_dbl(t, ks > 0 && isfinite(x->pb.mean) ? x->pb.mean : NAN, 3);
  }
}

/* perf_peaks: per compute spec of the modelled ops, the peak the model
 * used (tflops_s * 100 / pct_peak_compute: also an --arch-file's) and the
 * HBM bandwidth; none when the model had no peaks. */
static int peaks_table(rpd *r, report *rep)
{
  static const char sql[] =
    "SELECT (SELECT value FROM rocpd_metadata WHERE tag = 'PerfModel::arch'), spec,"
    " avg(100 * tflops_s / pct_peak_compute), avg(100 * tb_s / pct_peak_bw)"
    " FROM ext_perf_op WHERE pct_peak_compute > 0 AND pct_peak_bw > 0"
    " AND category != 'none' GROUP BY spec ORDER BY spec";
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st), s = SQLITE_DONE;
  table *t = NULL;
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    double peak = sqlite3_column_double(st, 2), bw = sqlite3_column_double(st, 3);
    if (!t) {
      t = report_add(rep);
      t_init(t, "perf_peaks", NCOLS(peak_cols), peak_cols, peak_types);
    }
    t_str(t, (const char *)sqlite3_column_text(st, 0));
    t_str(t, (const char *)sqlite3_column_text(st, 1));
    /* the model's peaks are datasheet figures: 4 decimals undo the
     * round trip through the stored percentages */
    t_dbl(t, round(peak * 1e4) / 1e4, -1);
    t_dbl(t, round(bw * 1e4) / 1e4, -1);
    t_dbl(t, bw > 0 ? round(peak * 1e4) / 1e4 / (round(bw * 1e4) / 1e4) : NAN, 3);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* Append the performance-model tables (see internal.h). */
int report_perf_tables(rpd *r, report *rep)
{
  gvec gv = {0};
  group **all;
  int rc;
  if (!rpd_table_exists(r, "ext_perf_op") ||
      (!rpd_table_exists(r, "ext_kineto_event") && !rpd_table_exists(r, "ext_autogradapi")))
    return RPD_OK;
  rc = read_groups(r, &gv);
  all = rpd_xcalloc(gv.n ? gv.n : 1, sizeof *all);
  for (size_t i = 0; i < gv.n; i++)
    all[i] = &gv.g[i];
  /* groups are in category order: one sheet per run of a category, in
   * the sheets' order */
  for (size_t k = 0; !rc && k < NSHEETS; k++) {
    size_t a = 0, n = 0;
    while (a < gv.n && gv.g[a].cat != sheets[k].name)
      a++;
    while (a + n < gv.n && gv.g[a + n].cat == sheets[k].name)
      n++;
    if (n) {
      group **sub = rpd_xcalloc(n, sizeof *sub);
      for (size_t i = 0; i < n; i++)
        sub[i] = &gv.g[a + i];
      rc = sheet_table(r, &sheets[k], sub, n, rep);
      free(sub);
    }
  }
  if (!rc && gv.n)
    roofline_table(all, gv.n, rep);
  if (!rc && gv.n)
    rc = peaks_table(r, rep);
  free(all);
  for (size_t i = 0; i < gv.n; i++)
    group_free(&gv.g[i]);
  free(gv.g);
  return rc;
}
