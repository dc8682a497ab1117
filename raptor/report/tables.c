/* tables.c - raptor --report: the TraceLens tables (gpu_timeline,
 * kernel_summary, category, kernel_details, short_kernels, short_histogram)
 * and the chart-only utilization and idle_gaps tables, computed from the
 * collected report_data and three passes over what order.c reads back in
 * order: the intervals by (gpu, start) (per-GPU unions, busy runs,
 * utilization, idle gaps), by start over all GPUs (the all-GPU unions), and
 * the kernels by (name, duration) (exact medians, std, the histogram).  Every duration is kept in integer ns and printed
 * in the unit its column name says (time_ms, *_us); unions of intervals are
 * exact integer sums. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "intscan.h"

/* The union of intervals that arrive in start order: its length so far
 * and the run it is extending. */
typedef struct uacc {
  int64_t tot, cs, ce;
  int open;
} uacc;

/* Add [s, e].  1 when that closed a run: the run is in *rs, *re. */
static int ua_add(uacc *u, int64_t s, int64_t e, int64_t *rs, int64_t *re)
{
  if (u->open && s <= u->ce) {
    if (e > u->ce)
      u->ce = e;
    return 0;
  }
  int closed = u->open;
  if (closed) {
    *rs = u->cs, *re = u->ce;
    u->tot += u->ce - u->cs;
  }
  u->cs = s, u->ce = e, u->open = 1;
  return closed;
}

/* Close the last run: 1 and the run in *rs, *re, or 0 when there is none. */
static int ua_end(uacc *u, int64_t *rs, int64_t *re)
{
  if (!u->open)
    return 0;
  *rs = u->cs, *re = u->ce;
  u->tot += u->ce - u->cs;
  u->open = 0;
  return 1;
}

/* The four unions of gpu_timeline: kernels, copies, both (the busy runs),
 * computation. */
enum { U_KERNEL, U_COPY, U_BUSY, U_COMP, NU };
static const int u_mask[NU] = { IV_COMPUTE | IV_COMM, IV_COPY,
                                IV_COMPUTE | IV_COMM | IV_COPY, IV_COMPUTE };

/* The union lengths of one GPU or of all of them. */
typedef struct tlvals {
  int64_t u[NU];
} tlvals;

/* ------------------------------------------------------------ the tables */

static int changed(void)
{
  return rpd_seterr(RPD_ERR, "rocpd_op changed while it was read");
}

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

/* gpu_timeline from the unions of all GPUs (all) and of each (per). */
static void gpu_timeline(const report_data *d, const ropts *o, const tlvals *all,
                         const tlvals *per, table *t)
{
  t_init(t, "gpu_timeline", 4, tl_cols, tl_types);
  int n = d->ngpus;
  for (int g = -1; g < n; g++) {
    int gpu = g < 0 ? -1 : d->gpus[g];
    if (g < 0 && o->gpu >= 0)
      continue;
    const tlvals *x = g < 0 ? all : &per[g];
    int64_t total = d->total_ns;
    int64_t K = x->u[U_KERNEL], M = x->u[U_COPY], B = x->u[U_BUSY], C = x->u[U_COMP];
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

/* Per-name statistics of every dispatch (shorts 0) or of the short ones,
 * in names[] order, then sorted by total desc.  Returns a new array (caller
 * frees); *n rows. */
static agg *aggregate(const report_data *d, int shorts, size_t *n)
{
  agg *a = rpd_xmalloc((d->nnames ? (size_t)d->nnames : 1) * sizeof *a);
  size_t na = 0;
  for (int i = 0; i < d->nnames; i++) {
    const kname *k = &d->names[i];
    if (!(shorts ? k->scount : k->count))
      continue;
    agg *g = &a[na++];
    memset(g, 0, sizeof *g);
    g->name = i;
    g->count = shorts ? k->scount : k->count;
    g->sum = shorts ? k->ssum : k->sum;
    g->min = k->min;
    g->max = k->max;
    g->mean = (double)g->sum / (double)g->count;
    g->median = k->median;
    g->std = k->std;
  }
  agg_names = d->names;
  report_sort(a, na, sizeof *a, cmp_agg);
  *n = na;
  return a;
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
  int64_t total = d->ksum;
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

static void short_kernels(const report_data *d, table *t)
{
  size_t n;
  agg *a = aggregate(d, 1, &n);
  int64_t total = d->ksum;
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

/* ------------------------------------------------------------ histogram */

/* numpy.histogram semantics: bins equal-width bins over [min, max] of the
 * short durations (us, known from the scan), the last bin closed; min ==
 * max widens by 0.5.  Counted in the kernel pass. */
typedef struct hist {
  int bins;
  double lo, hi;
  double *edge;
  int64_t *cnt;               /* NULL: no short kernels */
} hist;

static void hist_init(hist *h, const report_data *d, const ropts *o)
{
  memset(h, 0, sizeof *h);
  if (!d->nshort)
    return;
  h->lo = d->slo;
  h->hi = d->shi;
  if (h->lo == h->hi)
    h->lo -= 0.5, h->hi += 0.5;
  h->bins = o->bins;
  h->cnt = rpd_xcalloc(h->bins, sizeof *h->cnt);
  h->edge = rpd_xmalloc((h->bins + 1) * sizeof *h->edge);
  for (int b = 0; b <= h->bins; b++)
    h->edge[b] = h->lo + (h->hi - h->lo) * b / h->bins;
  h->edge[h->bins] = h->hi;
}

/* Count one short duration (ns). */
static void hist_add(hist *h, int64_t dur)
{
  double us = dur / 1e3;
  int bins = h->bins;
  int b = (int)((us - h->lo) / (h->hi - h->lo) * bins);
  if (b >= bins) b = bins - 1;
  if (b < 0) b = 0;
  if (us < h->edge[b] && b > 0) b--;
  else if (b < bins - 1 && us >= h->edge[b + 1]) b++;
  h->cnt[b]++;
}

static const char *const h_cols[] = { "bin_start_us", "bin_end_us", "count" };
static const char *const h_types[] = { "REAL", "REAL", "INTEGER" };

static void short_histogram(const hist *h, table *t)
{
  t_init(t, "short_histogram", 3, h_cols, h_types);
  for (int b = 0; h->cnt && b < h->bins; b++) {
    t_dbl(t, h->edge[b], 6);
    t_dbl(t, h->edge[b + 1], 6);
    t_int(t, h->cnt[b]);
  }
}

/* ------------------------------------------------------------ kernel pass */

/* The dispatches of one name as they arrive in duration order. */
typedef struct kgroup {
  int name;
  int64_t seen, lo, hi;       /* lo, hi: the middle durations */
  double mean, ss;
} kgroup;

/* The median and sample std of a finished name; its dispatches must be
 * those the scan counted. */
static int group_done(report_data *d, const kgroup *g)
{
  kname *k = &d->names[g->name];
  if (g->seen != k->count)
    return changed();
  k->median = k->count % 2 ? (double)g->hi : ((double)g->lo + (double)g->hi) / 2.0;
  k->std = k->count > 1 ? sqrt(g->ss / (double)(k->count - 1)) : NAN;
  return RPD_OK;
}

/* One pass over the kernels in (name, duration) order: exact medians,
 * the std summed in ascending order, and the short-duration histogram. */
static int kernel_pass(rpd *r, report_data *d, const ropts *o, hist *h)
{
  kgroup g = {.name = -1};
  int64_t n = 0, dur;
  int name, s, rc = RPD_OK;
  while ((s = kdsort_next(d->kds, r, d, o, &name, &dur)) == 1) {
    const kname *k = &d->names[name];
    if (name != g.name) {
      if (g.name >= 0 && (rc = group_done(d, &g)))
        return rc;
      g = (kgroup){.name = name, .mean = (double)k->sum / (double)k->count};
    }
    if (g.seen == k->count / 2 - 1)
      g.lo = dur;
    if (g.seen == k->count / 2)
      g.hi = dur;
    double e = (double)dur - g.mean;
    g.ss += e * e;
    g.seen++;
    n++;
    if (dur < d->lim && h->cnt)
      hist_add(h, dur);
  }
  if (s < 0)
    return -s;
  if (g.name >= 0 && (rc = group_done(d, &g)))
    return rc;
  return n == d->nk ? RPD_OK : changed();
}

/* ------------------------------------------------------------ chart tables */

typedef struct utilacc {
  int64_t first, width;
  int bins;
  double *busy;     /* ns busy per bin, summed over GPUs; NULL: no table */
} utilacc;

/* utilization: the span of all ops in `bins` equal bins. */
static void util_init(utilacc *u, const report_data *d, const ropts *o)
{
  int64_t span = d->last - d->first;
  *u = (utilacc){ d->first, 0, o->util_bins, NULL };
  if (span <= 0 || d->ngpus <= 0)
    return;
  u->width = (span + u->bins - 1) / u->bins;
  if (u->width < 1)
    u->width = 1;
  u->bins = (int)((span + u->width - 1) / u->width);
  u->busy = rpd_xcalloc((size_t)u->bins, sizeof *u->busy);
}

/* Add a busy run [s, e] to the bins it covers (runs arrive by GPU, then
 * start: the order of these floating-point sums is fixed). */
static void util_add(utilacc *u, int64_t s, int64_t e)
{
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

static const char *const ut_cols[] = { "time_ms", "busy_percent", "end_ms" };
static const char *const ut_types[] = { "REAL", "REAL", "REAL" };

/* busy_percent = busy GPU time in the bin / (bin width x GPUs) x 100; a
 * bin is [time_ms, end_ms) since the first op (the last ends at the span's
 * end, so a chart's axis can reach it). */
static void utilization(const report_data *d, const utilacc *u, table *t)
{
  t_init(t, "utilization", 3, ut_cols, ut_types);
  for (int b = 0; u->busy && b < u->bins; b++) {
    int64_t lo = u->first + (int64_t)b * u->width, hi = lo + u->width;
    if (hi > d->last)
      hi = d->last;
    t_dbl(t, (double)(lo - d->first) / 1e6, 6);
    t_dbl(t, hi > lo ? 100.0 * u->busy[b] / ((double)(hi - lo) * d->ngpus) : 0, 4);
    t_dbl(t, (double)(hi - d->first) / 1e6, 6);
  }
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

/* The gap before busy run [s, e] of gpu (runs arrive by GPU, then start). */
static void gap_add(gapacc *g, int gpu, int64_t s, int64_t e)
{
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
static void idle_gaps(const gapacc *g, table *t)
{
  t_init(t, "idle_gaps", 3, gap_cols, gap_types);
  for (int b = 0; b < GAP_BINS; b++) {
    t_str(t, gap_label[b]);
    t_int(t, g->count[b]);
    t_dbl(t, g->sum[b] / 1e6, 6);
  }
}

/* ------------------------------------------------------------ interval passes */

/* What the busy runs of the (gpu, start) pass feed. */
typedef struct runsink {
  utilacc u;
  gapacc g;
} runsink;

static void busy_run(runsink *k, int gpu, int64_t s, int64_t e)
{
  if (k->u.busy)
    util_add(&k->u, s, e);
  gap_add(&k->g, gpu, s, e);
}

/* Close the unions of one GPU into *t (its last busy run into k). */
static void gpu_done(int gpu, uacc *a, tlvals *t, runsink *k)
{
  for (int i = 0; i < NU; i++) {
    int64_t rs, re;
    if (ua_end(&a[i], &rs, &re) && i == U_BUSY)
      busy_run(k, gpu, rs, re);
    t->u[i] = a[i].tot;
  }
}

/* The first start, last end and busy union of GPU index g into d->gspan. */
static void span_note(report_data *d, int g, int64_t s, int64_t e)
{
  int64_t *x = &d->gspan[3 * (size_t)g];
  if (s < x[0]) x[0] = s;
  if (e > x[1]) x[1] = e;
}

/* The pass over the intervals in (gpu, start) order: per GPU (d->gpus
 * order) the four unions into per[], the busy runs into k. */
static int gpu_pass(rpd *r, report_data *d, const ropts *o, tlvals *per, runsink *k)
{
  uacc a[NU];
  int cur = -1, s;
  iv v;
  memset(a, 0, sizeof a);
  while ((s = ivsort_next(d->bygpu, r, d, o, &v)) == 1) {
    if (cur < 0 || v.gpu != d->gpus[cur]) {
      if (cur >= 0)
        gpu_done(d->gpus[cur], a, &per[cur], k);
      do
        cur++;
      while (cur < d->ngpus && d->gpus[cur] != v.gpu);
      if (cur == d->ngpus)
        return changed();
      memset(a, 0, sizeof a);
    }
    for (int i = 0; i < NU; i++) {
      int64_t rs, re;
      if ((v.flag & u_mask[i]) && ua_add(&a[i], v.start, v.end, &rs, &re) && i == U_BUSY)
        busy_run(k, v.gpu, rs, re);
    }
    span_note(d, cur, v.start, v.end);
  }
  if (s < 0)
    return -s;
  if (cur >= 0)
    gpu_done(d->gpus[cur], a, &per[cur], k);
  return RPD_OK;
}

/* The pass over the intervals of every GPU in start order: the four
 * unions over all GPUs into *all. */
static int all_pass(rpd *r, const report_data *d, const ropts *o, tlvals *all)
{
  uacc a[NU];
  int64_t rs, re;
  int s;
  iv v;
  memset(a, 0, sizeof a);
  while ((s = ivsort_next(d->bystart, r, d, o, &v)) == 1)
    for (int i = 0; i < NU; i++)
      if (v.flag & u_mask[i])
        ua_add(&a[i], v.start, v.end, &rs, &re);
  if (s < 0)
    return -s;
  for (int i = 0; i < NU; i++) {
    ua_end(&a[i], &rs, &re);
    all->u[i] = a[i].tot;
  }
  return RPD_OK;
}

/* ------------------------------------------------------------ kernel_details */

static const char *const kdt_cols[] = {
  "name", "duration_us", "gpuId", "queueId", "sequenceId", "start", "stream",
  "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "lds_bytes",
  "scratch_bytes", "category"
};
static const char *const kdt_types[] = {
  "TEXT", "REAL", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT", "INTEGER",
  "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT"
};

/* The top K dispatches by duration (kept by the scan), with launch
 * geometry from rocpd_kernelapi (one scan of rocpd_api_ops, then
 * primary-key lookups). */
static int kernel_details(rpd *r, const report_data *d, table *t)
{
  size_t k;
  const kd **top = report_top(d, &k);
  int64_t *api = rpd_xcalloc(k ? k : 1, sizeof *api);
  idmap want = {0};
  sqlite3_stmt *ka = NULL, *op = NULL;
  int rc = RPD_OK, s = SQLITE_DONE;
  t_init(t, "kernel_details", 16, kdt_cols, kdt_types);
  for (size_t i = 0; i < k; i++)
    *idm_ref(&want, top[i]->op) = (int)i;
  if (k) {   /* the links as sqlite3_column_int64 gives them, in one read */
    rpd_intscan sc;
    const int64_t *v = NULL;
    unsigned ints = 0;
    int t = 0;
    rc = rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_api_ops WHERE rpd_intscan(?1, op_id,"
                          " api_id)", 2, 0);
    while (!rc && (t = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
      int ix = idm_get(&want, v[0]);
      if (ix >= 0 && !api[ix])
        api[ix] = v[1];
    }
    if (!rc) {
      rpd_intscan_close(&sc);
      if (t < 0)
        rc = -t;
    }
  }
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
  sqlite3_finalize(ka);
  sqlite3_finalize(op);
  idm_free(&want);
  free(top);
  free(api);
  return rc;
}

/* ------------------------------------------------------------ all of them */

/* The tables from the passes' results. */
static int fill_tables(rpd *r, const report_data *d, const ropts *o, const tlvals *all,
                       const tlvals *per, const hist *h, const runsink *k, table *t)
{
  size_t nagg;
  agg *a = aggregate(d, 0, &nagg);
  gpu_timeline(d, o, all, per, &t[T_TIMELINE]);
  kernel_summary(d, a, nagg, &t[T_SUMMARY]);
  by_category(d, a, nagg, &t[T_CATEGORY]);
  free(a);
  short_kernels(d, &t[T_SHORT]);
  short_histogram(h, &t[T_HIST]);
  utilization(d, &k->u, &t[T_UTIL]);
  idle_gaps(&k->g, &t[T_GAPS]);
  return kernel_details(r, d, &t[T_DETAILS]);
}

/* Every core table (see internal.h). */
int report_core_tables(rpd *r, report_data *d, const ropts *o, table *t)
{
  tlvals all, *per = rpd_xcalloc(d->ngpus ? (size_t)d->ngpus : 1, sizeof *per);
  runsink k = {.g = { -1, INT64_MAX, {0}, {0} }};
  hist h;
  memset(&all, 0, sizeof all);
  util_init(&k.u, d, o);
  hist_init(&h, d, o);
  free(d->gspan);
  d->gspan = rpd_xmalloc((d->ngpus ? (size_t)d->ngpus : 1) * 3 * sizeof *d->gspan);
  for (int g = 0; g < d->ngpus; g++) {
    d->gspan[3 * g] = INT64_MAX;
    d->gspan[3 * g + 1] = INT64_MIN;
    d->gspan[3 * g + 2] = 0;
  }
  int rc = gpu_pass(r, d, o, per, &k);
  for (int g = 0; !rc && g < d->ngpus; g++)
    d->gspan[3 * g + 2] = per[g].u[U_BUSY];
  if (!rc && d->bystart)
    rc = all_pass(r, d, o, &all);
  if (!rc)
    rc = kernel_pass(r, d, o, &h);
  ivsort_free(d->bygpu);      /* read: their temp files and statements go */
  ivsort_free(d->bystart);
  kdsort_free(d->kds);
  d->bygpu = d->bystart = NULL;
  d->kds = NULL;
  if (!rc)
    rc = fill_tables(r, d, o, &all, per, &h, &k, t);
  free(per);
  free(k.u.busy);
  free(h.cnt);
  free(h.edge);
  return rc;
}
