/* tables.c - raptor --report: the TraceLens tables (gpu_timeline,
 * kernel_summary, category, kernel_details, short_kernels, short_histogram)
 * and the chart-only utilization and idle_gaps tables, computed from the
 * collected report_data.  Every duration is kept in integer ns and printed
 * in the unit its column name says (time_ms, *_us); unions of intervals are
 * exact integer sums. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Length of the union of intervals with (flag & mask) on gpu (-1 = all);
 * iv sorted by start. */
static int64_t union_len(const report_data *d, int mask, int gpu)
{
  int64_t tot = 0, cs = 0, ce = 0;
  int open = 0;
  for (size_t i = 0; i < d->niv; i++) {
    const iv *v = &d->iv[i];
    if (!(v->flag & mask) || (gpu >= 0 && v->gpu != gpu))
      continue;
    if (!open) {
      cs = v->start, ce = v->end, open = 1;
    } else if (v->start <= ce) {
      if (v->end > ce)
        ce = v->end;
    } else {
      tot += ce - cs;
      cs = v->start, ce = v->end;
    }
  }
  if (open)
    tot += ce - cs;
  return tot;
}

/* ------------------------------------------------------------ the tables */

static const char *const tl_cols[] = { "gpuId", "type", "time_ms", "percent" };
static const char *const tl_types[] = { "INTEGER", "TEXT", "REAL", "REAL" };

static void tl_row(table *t, int gpu, const char *type, int64_t ns, int64_t total)
{
  if (gpu >= 0)
    t_int(t, gpu);
  else
    t_null(t);
  t_str(t, type);
  t_dbl(t, ns / 1e6, 6);
  t_dbl(t, total > 0 ? 100.0 * (double)ns / (double)total : NAN, 4);
}

static void gpu_timeline(const report_data *d, const ropts *o, table *t)
{
  t_init(t, "gpu_timeline", 4, tl_cols, tl_types);
  int n = d->ngpus;
  for (int g = -1; g < n; g++) {
    int gpu = g < 0 ? -1 : d->gpus[g];
    if (g < 0 && o->gpu >= 0)
      continue;
    int64_t total = d->total_ns;
    int64_t K = union_len(d, IV_COMPUTE | IV_COMM, gpu);
    int64_t M = union_len(d, IV_COPY, gpu);
    int64_t B = union_len(d, IV_COMPUTE | IV_COMM | IV_COPY, gpu);
    int64_t C = union_len(d, IV_COMPUTE, gpu);
    tl_row(t, gpu, "total_time", total, total);
    tl_row(t, gpu, "kernel", K, total);
    tl_row(t, gpu, "memory", M, total);
    tl_row(t, gpu, "busy_time", B, total);
    tl_row(t, gpu, "idle", total > B ? total - B : 0, total);
    tl_row(t, gpu, "computation", C, total);
    tl_row(t, gpu, "exposed_comm", K - C, total);
    tl_row(t, gpu, "exposed_memcpy", B - K, total);
  }
}

typedef struct dn {
  int name;
  int64_t dur;
} dn;

static int cmp_dn(const void *a, const void *b)
{
  const dn *x = a, *y = b;
  if (x->name != y->name)
    return (x->name > y->name) - (x->name < y->name);
  return (x->dur > y->dur) - (x->dur < y->dur);
}

typedef struct agg {
  int name;
  int64_t count, sum, min, max;
  double mean, median, std;
} agg;

static const kname *agg_names;   /* names for cmp_agg's tie-break */

static int cmp_agg(const void *a, const void *b)
{
  const agg *x = a, *y = b;
  if (x->sum != y->sum)
    return x->sum < y->sum ? 1 : -1;
  return strcmp(agg_names[x->name].name, agg_names[y->name].name);
}

/* Per-name statistics over kernels with dur < limit (INT64_MAX = all).
 * Returns a new array sorted by total desc (caller frees); *n rows. */
static agg *aggregate(const report_data *d, int64_t limit, size_t *n)
{
  dn *v = rpd_xmalloc((d->nk ? d->nk : 1) * sizeof *v);
  size_t m = 0;
  for (size_t i = 0; i < d->nk; i++) {
    int64_t dur = d->k[i].end - d->k[i].start;
    if (dur < limit)
      v[m].name = d->k[i].name, v[m].dur = dur, m++;
  }
  report_sort(v, m, sizeof *v, cmp_dn);
  agg *a = rpd_xmalloc((m ? m : 1) * sizeof *a);
  size_t na = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    agg *g = &a[na++];
    memset(g, 0, sizeof *g);
    g->name = v[i].name;
    while (j < m && v[j].name == v[i].name)
      g->sum += v[j++].dur;
    g->count = (int64_t)(j - i);
    g->min = v[i].dur;
    g->max = v[j - 1].dur;
    g->mean = (double)g->sum / (double)g->count;
    size_t h = (j - i) / 2;
    g->median = (j - i) % 2 ? (double)v[i + h].dur
                            : ((double)v[i + h - 1].dur + (double)v[i + h].dur) / 2.0;
    if (g->count > 1) {
      double ss = 0;
      for (size_t k = i; k < j; k++) {
        double e = (double)v[k].dur - g->mean;
        ss += e * e;
      }
      g->std = sqrt(ss / (double)(g->count - 1));
    } else
      g->std = NAN;
    i = j;
  }
  free(v);
  agg_names = d->names;
  report_sort(a, na, sizeof *a, cmp_agg);
  *n = na;
  return a;
}

static int64_t kernel_sum(const report_data *d)
{
  int64_t s = 0;
  for (size_t i = 0; i < d->nk; i++)
    s += d->k[i].end - d->k[i].start;
  return s;
}

static const char *const ks_cols[] = {
  "name", "count", "total_us", "mean_us", "median_us", "std_us", "min_us",
  "max_us", "percent", "cumulative_percent", "category"
};
static const char *const ks_types[] = {
  "TEXT", "INTEGER", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL", "REAL",
  "REAL", "TEXT"
};

static void kernel_summary(const report_data *d, const agg *a, size_t n, table *t)
{
  int64_t total = kernel_sum(d);
  double cum = 0;
  t_init(t, "kernel_summary", 11, ks_cols, ks_types);
  for (size_t i = 0; i < n; i++) {
    double pct = total > 0 ? 100.0 * (double)a[i].sum / (double)total : NAN;
    cum += pct;
    t_str(t, d->names[a[i].name].name);
    t_int(t, a[i].count);
    t_dbl(t, a[i].sum / 1e3, 3);
    t_dbl(t, a[i].mean / 1e3, 3);
    t_dbl(t, a[i].median / 1e3, 3);
    t_dbl(t, a[i].std / 1e3, 3);
    t_dbl(t, a[i].min / 1e3, 3);
    t_dbl(t, a[i].max / 1e3, 3);
    t_dbl(t, pct, 4);
    t_dbl(t, cum, 4);
    t_str(t, d->names[a[i].name].cat);
  }
}

static const char *const cat_cols[] = {
  "category", "kernels", "count", "total_ms", "percent", "cumulative_percent"
};
static const char *const cat_types[] = {
  "TEXT", "INTEGER", "INTEGER", "REAL", "REAL", "REAL"
};

typedef struct catagg {
  const char *cat;
  int64_t kernels, count, sum;
} catagg;

static int cmp_cat(const void *a, const void *b)
{
  const catagg *x = a, *y = b;
  if (x->sum != y->sum)
    return x->sum < y->sum ? 1 : -1;
  return strcmp(x->cat, y->cat);
}

static void by_category(const report_data *d, const agg *a, size_t n, table *t)
{
  catagg *c = rpd_xcalloc(n ? n : 1, sizeof *c);
  size_t nc = 0;
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const char *cat = d->names[a[i].name].cat;
    size_t k = 0;
    while (k < nc && strcmp(c[k].cat, cat))
      k++;
    if (k == nc)
      c[nc++].cat = cat;
    c[k].kernels++;
    c[k].count += a[i].count;
    c[k].sum += a[i].sum;
    total += a[i].sum;
  }
  report_sort(c, nc, sizeof *c, cmp_cat);
  t_init(t, "category", 6, cat_cols, cat_types);
  double cum = 0;
  for (size_t k = 0; k < nc; k++) {
    double pct = total > 0 ? 100.0 * (double)c[k].sum / (double)total : NAN;
    cum += pct;
    t_str(t, c[k].cat);
    t_int(t, c[k].kernels);
    t_int(t, c[k].count);
    t_dbl(t, c[k].sum / 1e6, 6);
    t_dbl(t, pct, 4);
    t_dbl(t, cum, 4);
  }
  free(c);
}

static const char *const sk_cols[] = {
  "name", "count", "total_us", "mean_us", "percent_of_kernel_time", "category"
};
static const char *const sk_types[] = { "TEXT", "INTEGER", "REAL", "REAL", "REAL", "TEXT" };

static int64_t threshold_ns(const ropts *o)
{
  double ns = o->threshold_us * 1e3;
  return ns >= 9e18 ? INT64_MAX : (int64_t)ceil(ns);
}

static void short_kernels(const report_data *d, const ropts *o, table *t)
{
  size_t n;
  agg *a = aggregate(d, threshold_ns(o), &n);
  int64_t total = kernel_sum(d);
  t_init(t, "short_kernels", 6, sk_cols, sk_types);
  for (size_t i = 0; i < n; i++) {
    t_str(t, d->names[a[i].name].name);
    t_int(t, a[i].count);
    t_dbl(t, a[i].sum / 1e3, 3);
    t_dbl(t, a[i].mean / 1e3, 3);
    t_dbl(t, total > 0 ? 100.0 * (double)a[i].sum / (double)total : NAN, 4);
    t_str(t, d->names[a[i].name].cat);
  }
  free(a);
}

static const char *const h_cols[] = { "bin_start_us", "bin_end_us", "count" };
static const char *const h_types[] = { "REAL", "REAL", "INTEGER" };

/* numpy.histogram semantics: bins equal-width bins over [min, max] of the
 * short durations (us), the last bin closed; min == max widens by 0.5. */
static void short_histogram(const report_data *d, const ropts *o, table *t)
{
  int64_t lim = threshold_ns(o);
  double lo = INFINITY, hi = -INFINITY;
  size_t n = 0;
  t_init(t, "short_histogram", 3, h_cols, h_types);
  for (size_t i = 0; i < d->nk; i++) {
    int64_t dur = d->k[i].end - d->k[i].start;
    if (dur >= lim)
      continue;
    double us = dur / 1e3;
    if (us < lo) lo = us;
    if (us > hi) hi = us;
    n++;
  }
  if (!n)
    return;
  if (lo == hi)
    lo -= 0.5, hi += 0.5;
  int bins = o->bins;
  int64_t *cnt = rpd_xcalloc(bins, sizeof *cnt);
  double *edge = rpd_xmalloc((bins + 1) * sizeof *edge);
  for (int b = 0; b <= bins; b++)
    edge[b] = lo + (hi - lo) * b / bins;
  edge[bins] = hi;
  for (size_t i = 0; i < d->nk; i++) {
    int64_t dur = d->k[i].end - d->k[i].start;
    if (dur >= lim)
      continue;
    double us = dur / 1e3;
    int b = (int)((us - lo) / (hi - lo) * bins);
    if (b >= bins) b = bins - 1;
    if (b < 0) b = 0;
    if (us < edge[b] && b > 0) b--;
    else if (b < bins - 1 && us >= edge[b + 1]) b++;
    cnt[b]++;
  }
  for (int b = 0; b < bins; b++) {
    t_dbl(t, edge[b], 6);
    t_dbl(t, edge[b + 1], 6);
    t_int(t, cnt[b]);
  }
  free(cnt);
  free(edge);
}

/* ------------------------------------------------------------ chart tables */

/* Call fn(ctx, gpu, start, end) for each merged busy interval (kernels and
 * copies) of each GPU, in start order per GPU. */
static void busy_runs(const report_data *d, void (*fn)(void *, int, int64_t, int64_t), void *ctx)
{
  for (int g = 0; g < d->ngpus; g++) {
    int gpu = d->gpus[g], open = 0;
    int64_t cs = 0, ce = 0;
    for (size_t i = 0; i < d->niv; i++) {
      const iv *v = &d->iv[i];
      if (v->gpu != gpu)
        continue;
      if (open && v->start <= ce) {
        if (v->end > ce)
          ce = v->end;
        continue;
      }
      if (open)
        fn(ctx, gpu, cs, ce);
      cs = v->start, ce = v->end, open = 1;
    }
    if (open)
      fn(ctx, gpu, cs, ce);
  }
}

typedef struct utilacc {
  int64_t first, width;
  int bins;
  double *busy;     /* ns busy per bin, summed over GPUs */
} utilacc;

static void util_add(void *ctx, int gpu, int64_t s, int64_t e)
{
  utilacc *u = ctx;
  (void)gpu;
  int64_t b = (s - u->first) / u->width;
  for (; b < u->bins; b++) {
    int64_t lo = u->first + b * u->width, hi = lo + u->width;
    if (lo >= e)
      break;
    int64_t a = s > lo ? s : lo, z = e < hi ? e : hi;
    if (z > a)
      u->busy[b] += (double)(z - a);
  }
}

static const char *const ut_cols[] = { "time_ms", "busy_percent" };
static const char *const ut_types[] = { "REAL", "REAL" };

/* utilization: the span of all ops in `bins` equal bins; busy_percent =
 * busy GPU time in the bin / (bin width x GPUs) x 100. */
static void utilization(const report_data *d, const ropts *o, table *t)
{
  utilacc u = { d->first, 0, o->util_bins, NULL };
  int64_t span = d->last - d->first;
  t_init(t, "utilization", 2, ut_cols, ut_types);
  if (span <= 0 || d->ngpus <= 0)
    return;
  u.width = (span + u.bins - 1) / u.bins;
  if (u.width < 1)
    u.width = 1;
  u.bins = (int)((span + u.width - 1) / u.width);
  u.busy = rpd_xcalloc((size_t)u.bins, sizeof *u.busy);
  busy_runs(d, util_add, &u);
  for (int b = 0; b < u.bins; b++) {
    int64_t lo = u.first + (int64_t)b * u.width, hi = lo + u.width;
    if (hi > d->last)
      hi = d->last;
    t_dbl(t, (double)(lo - d->first) / 1e6, 6);
    t_dbl(t, hi > lo ? 100.0 * u.busy[b] / ((double)(hi - lo) * d->ngpus) : 0, 4);
  }
  free(u.busy);
}

#define GAP_BINS 7
static const char *const gap_label[GAP_BINS] = {
  "<1 us", "1-10 us", "10-100 us", "0.1-1 ms", "1-10 ms", "10-100 ms", ">=100 ms"
};

typedef struct gapacc {
  int gpu;
  int64_t prev;
  int64_t count[GAP_BINS], sum[GAP_BINS];
} gapacc;

static void gap_add(void *ctx, int gpu, int64_t s, int64_t e)
{
  gapacc *g = ctx;
  if (gpu == g->gpu && s > g->prev) {
    int64_t gap = s - g->prev, lim = 1000;
    int b = 0;
    while (b < GAP_BINS - 1 && gap >= lim)
      b++, lim *= 10;
    g->count[b]++;
    g->sum[b] += gap;
  }
  g->gpu = gpu;
  g->prev = e;
}

static const char *const gap_cols[] = { "gap", "count", "total_ms" };
static const char *const gap_types[] = { "TEXT", "INTEGER", "REAL" };

/* idle_gaps: the idle gaps between one GPU's busy intervals, in decades. */
static void idle_gaps(const report_data *d, table *t)
{
  gapacc g = { -1, INT64_MAX, {0}, {0} };
  t_init(t, "idle_gaps", 3, gap_cols, gap_types);
  busy_runs(d, gap_add, &g);
  for (int b = 0; b < GAP_BINS; b++) {
    t_str(t, gap_label[b]);
    t_int(t, g.count[b]);
    t_dbl(t, g.sum[b] / 1e6, 6);
  }
}

static const char *const kdt_cols[] = {
  "name", "duration_us", "gpuId", "queueId", "sequenceId", "start", "stream",
  "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "lds_bytes",
  "scratch_bytes", "category"
};
static const char *const kdt_types[] = {
  "TEXT", "REAL", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT", "INTEGER",
  "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT"
};

static int cmp_kd_dur(const void *a, const void *b)
{
  const kd *x = *(kd *const *)a, *y = *(kd *const *)b;
  int64_t dx = x->end - x->start, dy = y->end - y->start;
  if (dx != dy)
    return dx < dy ? 1 : -1;
  return (x->start > y->start) - (x->start < y->start);
}

static int kd_before(const kd *x, const kd *y)   /* x ranks before y */
{
  return cmp_kd_dur(&x, &y) < 0;
}

static void heap_down(kd **h, size_t n, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, w = i;
    if (l < n && kd_before(h[w], h[l])) w = l;
    if (r < n && kd_before(h[w], h[r])) w = r;
    if (w == i)
      return;
    kd *x = h[i]; h[i] = h[w]; h[w] = x;
    i = w;
  }
}

/* top[0..k) = the k highest-ranked dispatches in rank order, O(n log k):
 * a heap whose root is the lowest-ranked of the k kept so far. */
static void select_top(const report_data *d, kd **top, size_t k)
{
  size_t n = 0;
  if (!k)
    return;
  for (size_t i = 0; i < d->nk; i++) {
    kd *x = &d->k[i];
    if (n < k) {
      top[n++] = x;
      for (size_t c = n - 1; c > 0;) {          /* sift up */
        size_t p = (c - 1) / 2;
        if (!kd_before(top[p], top[c]))
          break;
        kd *t = top[p]; top[p] = top[c]; top[c] = t;
        c = p;
      }
    } else if (kd_before(x, top[0])) {
      top[0] = x;
      heap_down(top, k, 0);
    }
  }
  report_sort(top, n, sizeof *top, cmp_kd_dur);
}

/* Top K dispatches by duration, with launch geometry from rocpd_kernelapi
 * (one scan of rocpd_api_ops, then primary-key lookups). */
static int kernel_details(rpd *r, const report_data *d, const ropts *o, table *t)
{
  size_t k = o->topk > 0 && (size_t)o->topk < d->nk ? (size_t)o->topk : d->nk;
  kd **top = rpd_xmalloc((k ? k : 1) * sizeof *top);
  int64_t *api = rpd_xcalloc(k ? k : 1, sizeof *api);
  idmap want = {0};
  sqlite3_stmt *ao = NULL, *ka = NULL, *op = NULL;
  int rc = RPD_OK, s = SQLITE_DONE;
  t_init(t, "kernel_details", 16, kdt_cols, kdt_types);
  select_top(d, top, k);
  for (size_t i = 0; i < k; i++)
    *idm_ref(&want, top[i]->op) = (int)i;
  if (k)
    rc = rpd_prepare(r, "SELECT op_id, api_id FROM rocpd_api_ops", &ao);
  while (!rc && k && (s = rpd_step(r, ao)) == SQLITE_ROW) {
    int ix = idm_get(&want, sqlite3_column_int64(ao, 0));
    if (ix >= 0 && !api[ix])
      api[ix] = sqlite3_column_int64(ao, 1);
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc && k)
    rc = rpd_prepare(r, "SELECT stream, gridX, gridY, gridZ, workgroupX, workgroupY,"
                     " workgroupZ, groupSegmentSize, privateSegmentSize"
                     " FROM rocpd_kernelapi WHERE api_ptr_id = ?", &ka);
  if (!rc && k)
    rc = rpd_prepare(r, "SELECT queueId, sequenceId FROM rocpd_op WHERE id = ?", &op);
  for (size_t i = 0; i < k && !rc; i++) {
    const kd *x = top[i];
    t_str(t, d->names[x->name].name);
    t_dbl(t, (x->end - x->start) / 1e3, 3);
    t_int(t, x->gpu);
    sqlite3_bind_int64(op, 1, x->op);
    s = rpd_step(r, op);
    if (s == SQLITE_ROW) {
      t_int(t, sqlite3_column_int64(op, 0));
      t_int(t, sqlite3_column_int64(op, 1));
    } else {
      t_null(t);
      t_null(t);
    }
    sqlite3_reset(op);
    t_int(t, x->start);
    sqlite3_bind_int64(ka, 1, api[i]);
    s = api[i] ? rpd_step(r, ka) : SQLITE_DONE;
    for (int c = 0; c < 9; c++) {
      if (s != SQLITE_ROW || sqlite3_column_type(ka, c) == SQLITE_NULL)
        t_null(t);
      else if (c == 0)
        t_str(t, (const char *)sqlite3_column_text(ka, 0));
      else
        t_int(t, sqlite3_column_int64(ka, c));
    }
    sqlite3_reset(ka);
    if (s < 0)
      rc = -s;
    t_str(t, d->names[x->name].cat);
  }
  sqlite3_finalize(ao);
  sqlite3_finalize(ka);
  sqlite3_finalize(op);
  idm_free(&want);
  free(top);
  free(api);
  return rc;
}


/* Every core table (see internal.h). */
int report_core_tables(rpd *r, const report_data *d, const ropts *o, table *t)
{
  size_t nagg;
  agg *all = aggregate(d, INT64_MAX, &nagg);
  gpu_timeline(d, o, &t[T_TIMELINE]);
  kernel_summary(d, all, nagg, &t[T_SUMMARY]);
  by_category(d, all, nagg, &t[T_CATEGORY]);
  free(all);
  short_kernels(d, o, &t[T_SHORT]);
  short_histogram(d, o, &t[T_HIST]);
  utilization(d, o, &t[T_UTIL]);
  idle_gaps(d, &t[T_GAPS]);
  return kernel_details(r, d, o, &t[T_DETAILS]);
}
