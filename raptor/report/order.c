/* order.c - raptor --report: the intervals of GPU work and the kernel
 * dispatches back in the order the tables need, without keeping them in
 * memory:
 *   - intervals in (gpu, start) order, or start order over every GPU: the
 *     scan hands them in table order to raptor's run merger (opmerge.h:
 *     a temp file and a block per sorted run); a table in no order (more
 *     than OPMERGE_MAX_RUNS runs) or mode ORDER_SQL reads them again from
 *     a query that SQLite sorts on disk;
 *   - kernel dispatches in (name, duration) order: the scan hands them to
 *     a bounded sort in C (xsort.h: a 16 MB buffer, sorted runs spilled
 *     to a scratch file and merged); mode ORDER_SQL reads them again from
 *     a query SQLite sorts on disk (temp_store FILE, the small page cache).
 * Mode ORDER_MEMORY keeps everything in arrays sorted by qsort: the old
 * path, which the tests compare with the others. */
#include <stdlib.h>
#include <string.h>

#include "../opmerge.h"
#include "internal.h"
#include "opclass.h"
#include "xsort.h"

struct ivsort {
  int mode, by_gpu, reading;
  opmerge *m;                 /* ORDER_MERGE while the table has order */
  iv *a;                      /* ORDER_MEMORY */
  size_t n, cap, pos;
  sqlite3_stmt *st;           /* read sorted by SQLite */
  rpd_opclass_map ocm;
  int have_ocm;
};

/* A new sorter (see internal.h); freed with ivsort_free. */
ivsort *ivsort_new(int mode, int by_gpu)
{
  ivsort *s = rpd_xcalloc(1, sizeof *s);
  s->mode = mode;
  s->by_gpu = by_gpu;
  if (mode == ORDER_MERGE)
    s->m = opmerge_new();
  return s;
}

/* Free s, its merger, temp file and statement.  NULL is fine. */
void ivsort_free(ivsort *s)
{
  if (!s)
    return;
  opmerge_free(s->m);
  free(s->a);
  sqlite3_finalize(s->st);
  if (s->have_ocm)
    rpd_opclass_free(&s->ocm);
  free(s);
}

/* One interval in scan order (see internal.h). */
int ivsort_add(ivsort *s, int64_t id, const iv *v)
{
  if (s->mode == ORDER_MEMORY) {
    if (s->n == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 4096;
      s->a = rpd_xrealloc(s->a, s->cap * sizeof *s->a);
    }
    s->a[s->n++] = *v;
    return RPD_OK;
  }
  if (!s->m)
    return RPD_OK;            /* SQLite sorts when reading */
  oprec o = {.id = id, .start = v->start, .end = v->end, .kern = v->flag,
             .gpu = s->by_gpu ? v->gpu : 0};
  int rc = opmerge_add(s->m, &o);
  if (rc == RPD_ERANGE) {     /* no order to merge: SQLite sorts */
    rpd_clearerr();
    opmerge_free(s->m);
    s->m = NULL;
    rc = RPD_OK;
  }
  return rc;
}

static int cmp_gpu_start(const void *a, const void *b)
{
  const iv *x = a, *y = b;
  if (x->gpu != y->gpu)
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
  return (x->start > y->start) - (x->start < y->start);
}

static int cmp_start(const void *a, const void *b)
{
  const iv *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* The query that reads the intervals sorted by SQLite. */
static int prepare_sorted(ivsort *s, rpd *r, const ropts *o)
{
  char *cond = NULL;
  int rc = rpd_opclass_condition_now(r, "opType_id", RPD_OPCLASS_GPU_WORK, &cond);
  if (rc)
    return rc;
  char *sql = rpd_xasprintf("SELECT gpuId, start, \"end\", opType_id, description_id"
                            " FROM rocpd_op WHERE %s AND \"end\" >= start%s"
                            " AND start >= ?2 AND start < ?3 ORDER BY %s",
                            cond, o->gpu >= 0 ? " AND gpuId = ?1" : "",
                            s->by_gpu ? "gpuId, start, id" : "start, id");
  rc = rpd_opclass_load(r, &s->ocm);
  s->have_ocm = !rc;
  if (!rc)
    rc = rpd_prepare(r, sql, &s->st);
  if (!rc && o->gpu >= 0)
    sqlite3_bind_int(s->st, 1, o->gpu);
  if (!rc) {
    sqlite3_bind_int64(s->st, 2, o->lo);
    sqlite3_bind_int64(s->st, 3, o->hi);
  }
  free(sql);
  free(cond);
  return rc;
}

/* The next row of the sorted query as an interval, classified as the scan
 * did: 1, 0 at the end, or -rc. */
static int next_sorted(ivsort *s, rpd *r, const report_data *d, iv *v)
{
  for (;;) {
    int t = rpd_step(r, s->st);
    if (t != SQLITE_ROW)
      return t == SQLITE_DONE ? 0 : t;
    int cls = rpd_opclass_of(&s->ocm, sqlite3_column_int64(s->st, 3));
    if (!(RPD_OPCLASS_GPU_WORK & RPD_OPCLASS_BIT(cls)))
      continue;
    v->gpu = sqlite3_column_int(s->st, 0);
    v->start = sqlite3_column_int64(s->st, 1);
    v->end = sqlite3_column_int64(s->st, 2);
    v->flag = IV_COPY;
    if (cls == RPD_OPCLASS_KERNEL) {
      int ni = idm_get(&d->nameidx, sqlite3_column_int64(s->st, 4));
      if (ni < 0)
        return -rpd_seterr(RPD_ERR, "rocpd_op changed while it was read");
      v->flag = d->names[ni].comm ? IV_COMM : IV_COMPUTE;
    }
    return 1;
  }
}

/* The next interval in order (see internal.h); gpu is -1 in start order. */
int ivsort_next(ivsort *s, rpd *r, const report_data *d, const ropts *o, iv *v)
{
  int rc = 1;
  if (!s->reading) {
    s->reading = 1;
    if (s->mode == ORDER_MEMORY)
      report_sort(s->a, s->n, sizeof *s->a, s->by_gpu ? cmp_gpu_start : cmp_start);
    else if (!s->m && (rc = prepare_sorted(s, r, o)))
      return -rc;
  }
  if (s->mode == ORDER_MEMORY) {
    if (s->pos == s->n)
      return 0;
    *v = s->a[s->pos++];
  } else if (s->m) {
    oprec x;
    if ((rc = opmerge_next(s->m, &x)) != 1)
      return rc;
    *v = (iv){.start = x.start, .end = x.end, .gpu = x.gpu, .flag = x.kern};
  } else if ((rc = next_sorted(s, r, d, v)) != 1)
    return rc;
  if (!s->by_gpu)
    v->gpu = -1;              /* the same in every mode */
  return 1;
}

/* ------------------------------------------------------------ kernels */

/* A dispatch as the sorts keep it: its name (index into d->names) and
 * duration, no padding (the bounded sort copies records whole). */
typedef struct dn {
  int64_t dur;
  int32_t name, pad;
} dn;

/* The bytes of the bounded sort's buffer: a million dispatches sort in
 * memory, larger traces spill runs. */
#define KD_SORT_BYTES ((size_t)16 << 20)

struct kdsort {
  int mode, reading;
  dn *a;                      /* ORDER_MEMORY */
  size_t n, cap, pos;
  xsort *x;                   /* ORDER_MERGE */
  sqlite3_stmt *st;           /* ORDER_SQL */
};

/* (name, duration) order: inlined into the sort of each buffer, through
 * a pointer for qsort and the merge of runs. */
static inline int dn_cmp(const dn *x, const dn *y)
{
  if (x->name != y->name)
    return (x->name > y->name) - (x->name < y->name);
  return (x->dur > y->dur) - (x->dur < y->dur);
}

static int cmp_dn(const void *a, const void *b)
{
  return dn_cmp(a, b);
}

XSORT_DEFINE(sort_dn, dn, dn_cmp)

/* A new kernel sorter (see internal.h); freed with kdsort_free. */
kdsort *kdsort_new(int mode)
{
  kdsort *s = rpd_xcalloc(1, sizeof *s);
  s->mode = mode;
  if (mode == ORDER_MERGE) {
    s->x = xsort_new(sizeof(dn), cmp_dn, sort_dn, KD_SORT_BYTES);
    xsort_set_merge(s->x, sort_dn_merge);
  }
  return s;
}

/* Free s, its sort (and scratch file) and its statement.  NULL is fine. */
void kdsort_free(kdsort *s)
{
  if (!s)
    return;
  free(s->a);
  xsort_free(s->x);
  sqlite3_finalize(s->st);
  free(s);
}

/* One dispatch in scan order (see internal.h). */
int kdsort_add(kdsort *s, int name, int64_t dur)
{
  dn v = {.dur = dur, .name = name};
  if (s->mode == ORDER_MERGE)
    return xsort_add(s->x, &v);
  if (s->mode != ORDER_MEMORY)
    return RPD_OK;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4096;
    s->a = rpd_xrealloc(s->a, s->cap * sizeof *s->a);
  }
  s->a[s->n++] = v;
  return RPD_OK;
}

/* The kernels sorted by SQLite: CAST(description_id AS INTEGER) is the
 * value sqlite3_column_int64 gave the scan, so each name is one run. */
static int prepare_kernels(kdsort *s, rpd *r, const ropts *o)
{
  char *cond = NULL;
  int rc = rpd_opclass_condition_now(r, "opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL),
                                     &cond);
  if (rc)
    return rc;
  char *sql = rpd_xasprintf("SELECT CAST(description_id AS INTEGER) AS k, \"end\" - start AS d"
                            " FROM rocpd_op WHERE %s AND \"end\" >= start%s"
                            " AND start >= ?2 AND start < ?3 ORDER BY k, d",
                            cond, o->gpu >= 0 ? " AND gpuId = ?1" : "");
  rc = rpd_prepare(r, sql, &s->st);
  if (!rc && o->gpu >= 0)
    sqlite3_bind_int(s->st, 1, o->gpu);
  if (!rc) {
    sqlite3_bind_int64(s->st, 2, o->lo);
    sqlite3_bind_int64(s->st, 3, o->hi);
  }
  free(sql);
  free(cond);
  return rc;
}

/* The next dispatch in (name, duration) order (see internal.h). */
int kdsort_next(kdsort *s, rpd *r, const report_data *d, const ropts *o, int *name,
                int64_t *dur)
{
  int rc = RPD_OK;
  if (!s->reading) {
    s->reading = 1;
    if (s->mode == ORDER_MEMORY)
      report_sort(s->a, s->n, sizeof *s->a, cmp_dn);
    else if (s->mode == ORDER_MERGE)
      rc = xsort_done(s->x);
    else
      rc = prepare_kernels(s, r, o);
    if (rc)
      return -rc;
  }
  if (s->mode == ORDER_MERGE) {
    const void *p;
    if ((rc = xsort_next(s->x, &p)) != 1)
      return rc;
    *name = ((const dn *)p)->name;
    *dur = ((const dn *)p)->dur;
    return 1;
  }
  if (s->mode == ORDER_MEMORY) {
    if (s->pos == s->n)
      return 0;
    *name = s->a[s->pos].name;
    *dur = s->a[s->pos++].dur;
    return 1;
  }
  int t = rpd_step(r, s->st);
  if (t != SQLITE_ROW)
    return t == SQLITE_DONE ? 0 : t;
  if ((*name = idm_get(&d->nameidx, sqlite3_column_int64(s->st, 0))) < 0)
    return -rpd_seterr(RPD_ERR, "rocpd_op changed while it was read");
  *dur = sqlite3_column_int64(s->st, 1);
  return 1;
}
