/* perfcoll.c - raptor --report's coll_analysis sheet: the NCCL/RCCL
 * collectives of a Kineto import (kernels whose args name a "Collective
 * name") grouped as TraceLens's per-rank collective summary (same sheet
 * and column names), with the algorithm and bus bandwidth of each group
 * and the bus bandwidth's share of the GPU's link peak.
 * See docs/report.md "Performance-model sheets". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "perfmodel.h"

#define NKEY 11   /* rank .. stream: the group */

static const char *const coll_cols[] = {
  "rank", "Process Group Name", "Process Group Ranks", "Collective name", "Group size",
  "dtype", "In msg nelems", "Out msg nelems", "In split size", "Out split size", "stream",
  "In msg size (MB)_first", "Out msg size (MB)_first", "dur_sum", "dur_mean", "dur_std",
  "dur_min", "dur_max", "operation_count", "Full msg size (MB)", "algo bw (GB/s)_mean",
  "bus bw (GB/s)_mean", "bus bw (% of link peak)_mean"
};

static const char coll_sql[] =
  "SELECT coalesce((SELECT json_extract(value, '$.rank') FROM rocpd_metadata"
  "   WHERE tag = 'kineto::distributedInfo'), 0),"
  " json_extract(args, '$.\"Process Group Name\"'),"
  " json_extract(args, '$.\"Process Group Ranks\"'),"
  " json_extract(args, '$.\"Collective name\"'), json_extract(args, '$.\"Group size\"'),"
  " json_extract(args, '$.dtype'), json_extract(args, '$.\"In msg nelems\"'),"
  " json_extract(args, '$.\"Out msg nelems\"'), json_extract(args, '$.\"In split size\"'),"
  " json_extract(args, '$.\"Out split size\"'), json_extract(args, '$.stream'),"
  " end - start"
  " FROM ext_kineto_event WHERE cat = 'kernel'"
  " AND json_extract(args, '$.\"Collective name\"') IS NOT NULL"
  " ORDER BY 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, start";

/* Bytes per element of a collective's dtype (PyTorch's scalar type names
 * as the profiler writes them); 0 if unknown. */
static int coll_bpe(const char *t)
{
  static const struct { const char *name; int bytes; } tab[] = {
    {"Float", 4}, {"Double", 8}, {"Half", 2}, {"BFloat16", 2}, {"Long", 8}, {"Int", 4},
    {"Short", 2}, {"Char", 1}, {"Byte", 1}, {"Bool", 1}, {"Float8_e4m3fn", 1},
    {"Float8_e5m2", 1}, {"Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1},
  };
  for (size_t i = 0; t && i < sizeof tab / sizeof *tab; i++)
    if (!strcmp(t, tab[i].name))
      return tab[i].bytes;
  return 0;
}

/* The bus bandwidth factor of a collective of n ranks (NCCL's
 * performance notes; TraceLens's): 0 when not known. */
static double bus_factor(const char *c, double n)
{
  if (!c || n <= 0)
    return 0;
  if (!strcmp(c, "allreduce"))
    return 2 * (n - 1) / n;
  if (!strcmp(c, "reducescatter") || !strcmp(c, "allgather") || !strcmp(c, "alltoall") ||
      !strcmp(c, "all_to_all") || !strcmp(c, "_reduce_scatter_base") ||
      !strcmp(c, "_allgather_base"))
    return (n - 1) / n;
  if (!strcmp(c, "broadcast") || !strcmp(c, "reduce"))
    return 1;
  return 0;
}

/* The GPU's link peak in GB/s (10^9 bytes) one way, 0 if unknown: the one
 * rpd-perfmodel recorded when it ran (its --arch, --arch-file or device
 * name), else the built-in arch of the trace's device name. */
static double link_peak(rpd *r)
{
  char *v = NULL;
  double gbs = 0;
  if (rpd_meta_get(r, "PerfModel::arch", &v) == RPD_OK) {
    free(v);
    v = NULL;
    if (rpd_meta_get(r, "PerfModel::link_gbs", &v) == RPD_OK)
      gbs = strtod(v, NULL);
  } else if (rpd_meta_get(r, "kineto::gpu.0.name", &v) == RPD_OK) {
    const rpd_perf_arch *a = rpd_perf_arch_find(v);
    gbs = a ? a->link_gbs : 0;
  }
  free(v);
  return isfinite(gbs) && gbs > 0 ? gbs : 0;
}

/* One group being summed. */
typedef struct cgroup {
  sqlite3_value *key[NKEY];   /* copies of the first row's key values */
  int64_t n;
  double sum, mean, m2, min, max, alg, algn;
  double in_mb, out_mb, full_mb;
  const char *cname;
  double gsize;
} cgroup;

/* 1 if row st has the key of g. */
static int same_key(const cgroup *g, sqlite3_stmt *st)
{
  for (int k = 0; k < NKEY; k++) {
    const unsigned char *a = sqlite3_value_text(g->key[k]);
    const unsigned char *b = sqlite3_column_text(st, k);
    if ((a == NULL) != (b == NULL) || (a && strcmp((const char *)a, (const char *)b)))
      return 0;
  }
  return 1;
}

/* A key value: integers as integers, the rest as text. */
static void t_val(table *t, sqlite3_value *v)
{
  if (sqlite3_value_type(v) == SQLITE_INTEGER)
    t_int(t, sqlite3_value_int64(v));
  else if (sqlite3_value_type(v) == SQLITE_NULL)
    t_null(t);
  else
    t_str(t, (const char *)sqlite3_value_text(v));
}

/* Write g's row into t and free its key values. */
static void emit(table *t, cgroup *g, double link_gbs)
{
  for (int k = 0; k < NKEY; k++)
    t_val(t, g->key[k]);
  t_dbl(t, g->in_mb, -1);
  t_dbl(t, g->out_mb, -1);
  t_dbl(t, g->sum, -1);
  t_dbl(t, g->mean, -1);
  t_dbl(t, g->n > 1 ? sqrt(g->m2 / (double)(g->n - 1)) : NAN, -1);
  t_dbl(t, g->min, -1);
  t_dbl(t, g->max, -1);
  t_int(t, g->n);
  t_dbl(t, g->full_mb, -1);
  double alg = g->algn > 0 ? g->alg / g->algn : NAN, f = bus_factor(g->cname, g->gsize);
  t_dbl(t, alg, -1);
  double bus = f > 0 ? alg * f : NAN;
  t_dbl(t, bus, -1);
  /* bus bw is in GB of 2^30 bytes (TraceLens's), the peak in 10^9 */
  t_dbl(t, link_gbs > 0 ? 100 * bus * 1073741824.0 / (link_gbs * 1e9) : NAN, -1);
  for (int k = 0; k < NKEY; k++)
    sqlite3_value_free(g->key[k]);
}

/* Rows of t in dur_sum descending order (TraceLens's), stable. */
static const table *sort_tab;
static int cmp_rows(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  double dx = t_num(t_cell(sort_tab, x, 13)), dy = t_num(t_cell(sort_tab, y, 13));
  if (dx != dy)
    return dx > dy ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Append coll_analysis when a Kineto import has collectives (see
 * internal.h). */
int report_coll_table(rpd *r, report *rep)
{
  sqlite3_stmt *st = NULL;
  cgroup g = {0};
  table raw;
  int rc, s = SQLITE_DONE, open = 0;
  double link_gbs;
  if (!rpd_table_exists(r, "ext_kineto_event"))
    return RPD_OK;
  link_gbs = link_peak(r);
  rc = rpd_prepare(r, coll_sql, &st);
  t_init(&raw, "coll_analysis", (int)(sizeof coll_cols / sizeof *coll_cols), coll_cols, NULL);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    double us = (double)sqlite3_column_int64(st, NKEY) / 1e3;
    if (!open || !same_key(&g, st)) {
      if (open)
        emit(&raw, &g, link_gbs);
      memset(&g, 0, sizeof g);
      for (int k = 0; k < NKEY; k++)
        g.key[k] = sqlite3_value_dup(sqlite3_column_value(st, k));
      int bpe = coll_bpe((const char *)sqlite3_value_text(g.key[5]));
      double in = sqlite3_value_double(g.key[6]), out = sqlite3_value_double(g.key[7]);
      g.cname = (const char *)sqlite3_value_text(g.key[3]);
      g.gsize = sqlite3_value_double(g.key[4]);
      g.in_mb = bpe && sqlite3_value_type(g.key[6]) != SQLITE_NULL ? in * bpe / 1048576.0 : NAN;
      g.out_mb = bpe && sqlite3_value_type(g.key[7]) != SQLITE_NULL ? out * bpe / 1048576.0 : NAN;
      /* the whole message: the output of an allgather, else the input */
      g.full_mb = g.cname && !strcmp(g.cname, "allgather") ? g.out_mb : g.in_mb;
      g.min = INFINITY;
      g.max = -INFINITY;
      open = 1;
    }
    double d = us - g.mean;
    g.n++;
    g.mean += d / (double)g.n;
    g.m2 += d * (us - g.mean);
    g.sum += us;
    g.min = fmin(g.min, us);
    g.max = fmax(g.max, us);
    if (us > 0 && isfinite(g.full_mb)) {
      g.alg += g.full_mb / 1024 / (us / 1e6);   /* GB/s, GB = 2^30 bytes as TraceLens */
      g.algn++;
    }
  }
  if (open)
    emit(&raw, &g, link_gbs);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  if (!rc && raw.nrows) {
    size_t *ord = rpd_xcalloc(raw.nrows, sizeof *ord);
    table *t = report_add(rep);
    for (size_t i = 0; i < raw.nrows; i++)
      ord[i] = i;
    sort_tab = &raw;
    report_sort(ord, raw.nrows, sizeof *ord, cmp_rows);
    t_init(t, "coll_analysis", raw.ncols, coll_cols, NULL);
    for (size_t i = 0; i < raw.nrows; i++)
      for (int k = 0; k < raw.ncols; k++) {
        const cell *c = t_cell(&raw, ord[i], k);
        if (c->t == C_INT)
          t_int(t, c->i);
        else if (c->t == C_DBL)
          t_dbl(t, c->d, c->digits);
        else if (c->t == C_STR)
          t_str(t, c->s);
        else
          t_null(t);
      }
    free(ord);
  }
  t_free(&raw);
  return rc;
}
