/* collect.c - raptor --report: one scan of rocpd_op in table order that
 * keeps nothing per op: the GPUs, the kernel names with their count, sum,
 * min and max (all and short dispatches), the range of the short durations,
 * the top-K dispatches in a K-element heap, and the intervals of GPU work
 * handed to the sorters of order.c; then the trace's total time (rocprofv3
 * init..fini when recorded, else the span). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "intscan.h"
#include "opclass.h"


/* qsort that accepts an empty or NULL array (qsort(NULL, 0) is undefined). */
void report_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
  if (base && n > 1)
    qsort(base, n, size, cmp);
}

/* *cat = category name of a kernel (last matching category, else
 * _Other; static string owned by c).  RPD_OK or the error of a search
 * PCRE2 could not finish (category_match). */
static int category_of(const cats *c, const char *name, const char **cat, int *comm)
{
  int hit, rc = category_match(c->r, c->n, name, &hit);
  *comm = hit >= 0 && hit == c->comm;
  *cat = hit >= 0 ? c->r[hit].name : "_Other";
  return rc;
}

/* Free what d holds (see internal.h). */
void report_data_free(report_data *d)
{
  for (int i = 0; i < d->nnames; i++)
    free(d->names[i].name);
  free(d->names);
  idm_free(&d->nameidx);
  free(d->gpus);
  kdheap_free(&d->top);
  ivsort_free(d->bygpu);
  ivsort_free(d->bystart);
  kdsort_free(d->kds);
  free(d->gspan);
  memset(d, 0, sizeof *d);
}

static int lookup_string(rpd *r, sqlite3_stmt *st, int64_t id, char **out)
{
  sqlite3_bind_int64(st, 1, id);
  int s = rpd_step(r, st), rc = RPD_OK;
  if (s == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    *out = rpd_xstrdup(t ? (const char *)t : "");
  } else if (s == SQLITE_DONE)
    *out = rpd_xstrdup("");
  else
    rc = -s;
  sqlite3_reset(st);
  return rc;
}

static void add_gpu(report_data *d, int g)
{
  for (int i = 0; i < d->ngpus; i++)
    if (d->gpus[i] == g)
      return;
  d->gpus = rpd_xrealloc(d->gpus, (d->ngpus + 1) * sizeof *d->gpus);
  d->gpus[d->ngpus++] = g;
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* ------------------------------------------------------------ top K */

/* Rank order of the kernel_details rows: longer first, then earlier. */
int report_cmp_top(const void *a, const void *b)
{
  const kd *x = *(kd *const *)a, *y = *(kd *const *)b;
  int64_t dx = x->end - x->start, dy = y->end - y->start;
  if (dx != dy)
    return dx < dy ? 1 : -1;
  return (x->start > y->start) - (x->start < y->start);
}

/* Offer dispatch x to the top-K heap, whose root is the lowest-ranked of
 * those kept (d->topk 0: keep every dispatch). */
static void top_push(report_data *d, const kd *x)
{
  if (d->topk && d->top.n == d->topk) {
    if (kd_ranks_after(&d->top.v[0], x, NULL))
      kdheap_replace_top(&d->top, *x);
    return;
  }
  kdheap_push(&d->top, *x);
}

/* The kept dispatches in rank order (see internal.h). */
const kd **report_top(const report_data *d, size_t *n)
{
  const kd **top = rpd_xmalloc((d->top.n ? d->top.n : 1) * sizeof *top);
  for (size_t i = 0; i < d->top.n; i++)
    top[i] = &d->top.v[i];
  report_sort(top, d->top.n, sizeof *top, report_cmp_top);
  *n = d->top.n;
  return top;
}

/* ------------------------------------------------------------ the scan */

/* The names[] index of kernel name sid, looked up (and categorized) the
 * first time: RPD_OK or an error. */
static int name_index(rpd *r, sqlite3_stmt *str, const cats *c, report_data *d,
                      int64_t sid, int *ni)
{
  int64_t *slot = idm_ref(&d->nameidx, sid);
  if (*slot < 0) {
    if (d->nnames == d->capnames) {
      d->capnames = d->capnames ? 2 * d->capnames : 256;
      d->names = rpd_xrealloc(d->names, d->capnames * sizeof *d->names);
    }
    kname *kn = &d->names[d->nnames];
    memset(kn, 0, sizeof *kn);
    kn->sid = sid;
    int rc = lookup_string(r, str, sid, &kn->name);
    if (rc)
      return rc;
    *slot = d->nnames++;
    if ((rc = category_of(c, kn->name, &kn->cat, &kn->comm)))
      return rc;
  }
  *ni = (int)*slot;
  return RPD_OK;
}

/* Count kernel dispatch x (of name x->name) into its name's statistics,
 * the short range, the top K and the kernel sorter.  RPD_OK or the
 * sorter's error. */
static int add_kernel(report_data *d, const kd *x)
{
  kname *k = &d->names[x->name];
  int64_t dur = x->end - x->start;
  if (!k->count || dur < k->min)
    k->min = dur;
  if (!k->count || dur > k->max)
    k->max = dur;
  k->count++;
  k->sum += dur;
  d->nk++;
  d->ksum += dur;
  if (dur < d->lim) {
    double us = dur / 1e3;
    if (us < d->slo) d->slo = us;
    if (us > d->shi) d->shi = us;
    k->scount++;
    k->ssum += dur;
    d->nshort++;
  }
  top_push(d, x);
  return kdsort_add(d->kds, x->name, dur);
}

/* One op of GPU work: its GPU, its kernel statistics, its interval into
 * the sorters. */
static int add_work(rpd *r, sqlite3_stmt *str, const cats *c, report_data *d,
                    int64_t id, int64_t desc, int cls, iv *v)
{
  int rc = RPD_OK;
  add_gpu(d, v->gpu);
  v->flag = IV_COPY;
  if (cls == RPD_OPCLASS_KERNEL) {
    kd x = {.op = id, .start = v->start, .end = v->end, .gpu = v->gpu};
    if ((rc = name_index(r, str, c, d, desc, &x.name)))
      return rc;
    v->flag = d->names[x.name].comm ? IV_COMM : IV_COMPUTE;
    if ((rc = add_kernel(d, &x)))
      return rc;
  }
  d->niv++;
  rc = ivsort_add(d->bygpu, id, v);
  if (!rc && d->bystart)
    rc = ivsort_add(d->bystart, id, v);
  return rc;
}

/* The ops as sqlite3_column_int64 gives each value (rpd_intscan: a batch
 * per step, or the table's pages read directly); the trace check has
 * passed, so the times are integers. */
enum { OP_ID, OP_GPU, OP_START, OP_END, OP_DESC, OP_TYPE, OP_NCOLS };
static const char ops_sql[] =
  "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, id, gpuId, start, end, description_id, opType_id)";

static int scan(rpd *r, const ropts *o, const cats *c, report_data *d)
{
  sqlite3_stmt *str = NULL;
  rpd_intscan ops;
  const int64_t *op = NULL;
  unsigned ints = 0;
  const rpd_opclass_map *ocm = rpd_opclass_now(r);
  int rc = ocm ? RPD_OK : RPD_ESQL, s = 0;
  d->first = INT64_MAX;
  d->last = INT64_MIN;
  memset(&ops, 0, sizeof ops);
  if (!rc)
    rc = rpd_intscan_open(r, &ops, ops_sql, OP_NCOLS, 0);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &str);
  while (!rc && (s = rpd_intscan_row(r, &ops, &op, &ints)) == 1) {
    iv v = {.start = op[OP_START], .end = op[OP_END], .gpu = (int)op[OP_GPU]};
    int cls = rpd_opclass_of(ocm, op[OP_TYPE]);
    if (v.start < o->lo || v.start >= o->hi)   /* --steady-state */
      continue;
    if (v.start < d->first)
      d->first = v.start;
    if (v.end > d->last)
      d->last = v.end;
    if (!(RPD_OPCLASS_GPU_WORK & RPD_OPCLASS_BIT(cls)) || v.end < v.start)
      continue;
    if (o->gpu >= 0 && v.gpu != o->gpu)
      continue;
    rc = add_work(r, str, c, d, op[OP_ID], op[OP_DESC], cls, &v);
  }
  if (!rc && s < 0)
    rc = -s;
  rpd_intscan_close(&ops);
  sqlite3_finalize(str);
  return rc;
}

/* The total time: rocprofv3 init..fini when the trace has it, else the
 * span of the ops. */
static void total_time(rpd *r, report_data *d)
{
  char *init = NULL, *fini = NULL;
  d->total_ns = d->last - d->first;
  if (!rpd_meta_get(r, "rocprofv3::init_time", &init) &&
      !rpd_meta_get(r, "rocprofv3::fini_time", &fini)) {
    int64_t a = strtoll(init, NULL, 10), b = strtoll(fini, NULL, 10);
    if (b > a) {
      d->total_ns = b - a;
      d->total_from_meta = 1;
    }
  }
  free(init);
  free(fini);
  rpd_clearerr();
}

/* The short-kernel threshold in ns (see internal.h). */
int64_t report_threshold_ns(const ropts *o)
{
  double ns = o->threshold_us * 1e3;
  return ns >= 9e18 ? INT64_MAX : (int64_t)ceil(ns);
}

/* Up to this many rows in rocpd_op the ops are kept in memory (about 88
 * bytes each at the peak: under 25 MB), which is faster on small traces;
 * beyond it they stream, so memory stays flat at any size. */
#define REPORT_MEMORY_OPS 262144

/* ORDER_* from $RPDTOOLS_RAPTOR_REPORT (docs/report.md "Memory"), else
 * by the size of rocpd_op (max(rowid): no scan). */
static int order_mode(rpd *r)
{
  const char *v = getenv("RPDTOOLS_RAPTOR_REPORT");
  int64_t n = -1;
  if (v && !strcmp(v, "sql"))
    return ORDER_SQL;
  if (v && !strcmp(v, "memory"))
    return ORDER_MEMORY;
  if (v && !strcmp(v, "merge"))
    return ORDER_MERGE;
  if (rpd_query_int64(r, "SELECT coalesce(max(rowid), 0) FROM rocpd_op", &n) != RPD_OK) {
    rpd_clearerr();
    return ORDER_MERGE;
  }
  return n <= REPORT_MEMORY_OPS ? ORDER_MEMORY : ORDER_MERGE;
}

/* The scan (see internal.h). */
int report_collect(rpd *r, const ropts *o, const cats *c, report_data *d)
{
  d->mode = order_mode(r);
  d->lim = report_threshold_ns(o);
  d->slo = INFINITY;
  d->shi = -INFINITY;
  d->topk = o->topk > 0 ? (size_t)o->topk : 0;
  d->bygpu = ivsort_new(d->mode, 1);
  d->bystart = o->gpu >= 0 ? NULL : ivsort_new(d->mode, 0);
  d->kds = kdsort_new(d->mode);
  int rc = scan(r, o, c, d);
  if (rc)
    return rc;
  if (d->first > d->last)
    d->first = d->last = 0;
  report_sort(d->gpus, d->ngpus, sizeof *d->gpus, cmp_int);
  total_time(r, d);
  return RPD_OK;
}
