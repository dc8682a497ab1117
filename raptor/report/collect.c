/* collect.c - raptor --report: one scan of rocpd_op into memory (GPU work
 * intervals, kernel dispatches with their name and category), and the
 * trace's total time (rocprofv3 init..fini when recorded, else the span). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "opclass.h"

/* Category name of a kernel (last matching category, else _Other).
 * Static string owned by c. */
static const char *category_of(const cats *c, const char *name, int *comm)
{
  int hit = category_match(c->r, c->n, name);
  *comm = hit >= 0 && hit == c->comm;
  return hit >= 0 ? c->r[hit].name : "_Other";
}


/* Free what d holds (see internal.h). */
void report_data_free(report_data *d)
{
  free(d->iv);
  free(d->k);
  for (int i = 0; i < d->nnames; i++)
    free(d->names[i].name);
  free(d->names);
  free(d->gpus);
  memset(d, 0, sizeof *d);
}

static size_t idm_slot(const idmap *m, int64_t k)
{
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 20) & (m->cap - 1);
  while (m->val[i] >= 0 && m->key[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

/* Slot of k (see internal.h). */
int *idm_ref(idmap *m, int64_t k)
{
  if (2 * (m->n + 1) > m->cap) {
    idmap o = *m;
    m->cap = o.cap ? 2 * o.cap : 256;
    m->key = rpd_xcalloc(m->cap, sizeof *m->key);
    m->val = rpd_xmalloc(m->cap * sizeof *m->val);
    for (size_t i = 0; i < m->cap; i++)
      m->val[i] = -1;
    m->n = 0;
    for (size_t i = 0; i < o.cap; i++)
      if (o.val[i] >= 0) {
        size_t s = idm_slot(m, o.key[i]);
        m->key[s] = o.key[i];
        m->val[s] = o.val[i];
        m->n++;
      }
    free(o.key);
    free(o.val);
  }
  size_t s = idm_slot(m, k);
  if (m->val[s] < 0) {
    m->key[s] = k;
    m->n++;
  }
  return &m->val[s];
}

/* Value for k, or -1. */
int idm_get(const idmap *m, int64_t k)
{
  return m->cap ? m->val[idm_slot(m, k)] : -1;
}

/* Free the map (see internal.h). */
void idm_free(idmap *m)
{
  free(m->key);
  free(m->val);
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

static int load(rpd *r, const ropts *o, const cats *c, report_data *d)
{
  sqlite3_stmt *ops = NULL, *str = NULL;
  idmap nameidx = {0};
  rpd_opclass_map ocm;
  int rc, s = SQLITE_DONE;
  d->first = INT64_MAX;
  d->last = INT64_MIN;
  rc = rpd_opclass_load(r, &ocm);
  if (!rc)
    rc = rpd_prepare(r, "SELECT id, gpuId, start, end, description_id, opType_id "
                   "FROM rocpd_op", &ops);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &str);
  while (!rc && (s = rpd_step(r, ops)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(ops, 2), end = sqlite3_column_int64(ops, 3);
    int gpu = sqlite3_column_int(ops, 1);
    int cls = rpd_opclass_of(&ocm, sqlite3_column_int64(ops, 5));
    if (start < d->first)
      d->first = start;
    if (end > d->last)
      d->last = end;
    if (!(RPD_OPCLASS_GPU_WORK & RPD_OPCLASS_BIT(cls)) || end < start)
      continue;
    if (o->gpu >= 0 && gpu != o->gpu)
      continue;
    add_gpu(d, gpu);
    int flag = IV_COPY;
    if (cls == RPD_OPCLASS_KERNEL) {
      int *ni = idm_ref(&nameidx, sqlite3_column_int64(ops, 4));
      if (*ni < 0) {
        if (d->nnames == d->capnames) {
          d->capnames = d->capnames ? 2 * d->capnames : 256;
          d->names = rpd_xrealloc(d->names, d->capnames * sizeof *d->names);
        }
        kname *kn = &d->names[d->nnames];
        memset(kn, 0, sizeof *kn);
        kn->sid = sqlite3_column_int64(ops, 4);
        rc = lookup_string(r, str, kn->sid, &kn->name);
        if (rc)
          break;
        kn->cat = category_of(c, kn->name, &kn->comm);
        *ni = d->nnames++;
      }
      flag = d->names[*ni].comm ? IV_COMM : IV_COMPUTE;
      if (d->nk == d->capk) {
        d->capk = d->capk ? 2 * d->capk : 4096;
        d->k = rpd_xrealloc(d->k, d->capk * sizeof *d->k);
      }
      kd *k = &d->k[d->nk++];
      k->op = sqlite3_column_int64(ops, 0);
      k->start = start;
      k->end = end;
      k->name = *ni;
      k->gpu = gpu;
    }
    if (d->niv == d->capiv) {
      d->capiv = d->capiv ? 2 * d->capiv : 4096;
      d->iv = rpd_xrealloc(d->iv, d->capiv * sizeof *d->iv);
    }
    iv *v = &d->iv[d->niv++];
    v->start = start;
    v->end = end;
    v->gpu = gpu;
    v->flag = flag;
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(ops);
  sqlite3_finalize(str);
  rpd_opclass_free(&ocm);
  idm_free(&nameidx);
  if (rc)
    return rc;
  if (d->first > d->last)
    d->first = d->last = 0;
  report_sort(d->gpus, d->ngpus, sizeof *d->gpus, cmp_int);

  /* total time: rocprofv3 init..fini when the trace has it */
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
  return RPD_OK;
}

static int cmp_iv(const void *a, const void *b)
{
  const iv *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Scan, then sort the intervals by start (see internal.h). */
int report_collect(rpd *r, const ropts *o, const cats *c, report_data *d)
{
  int rc = load(r, o, c, d);
  if (!rc)
    report_sort(d->iv, d->niv, sizeof *d->iv, cmp_iv);
  return rc;
}
