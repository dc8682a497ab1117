/* work.c - rpd-analyze's GPU work in the sweep's order, (gpu, start,
 * end, id): a tracer stores a GPU's ops nearly in start order (its queues
 * interleave a little), so each GPU's records are kept in a buffer of
 * their own, sorted when it fills, its first half written out (a sorted
 * run of that GPU, read back in turn) and the rest kept for the records
 * still to come.  As long as every record of a GPU comes after the last
 * one written out and no two are equal, the runs of each GPU follow each
 * other in order: no merge of runs, no sort of the whole.  Else (or past
 * WORK_PARTS GPUs) every record goes to the bounded sort (xsort.h), those
 * kept so far read back into it, and the order is that sort's as before. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"

#define WORK_PARTS 64
#define READ_RECS 1024           /* records read back at once */

/* (gpu, start, end, id) with a NULL gpu first: the sweep's order (ties
 * of start and end in op id order). */
static int work_cmp(const void *pa, const void *pb)
{
  const an_work *a = pa, *b = pb;
  int na = a->flags & AN_W_GPU_NULL, nb = b->flags & AN_W_GPU_NULL;
  if (na != nb)
    return na ? -1 : 1;
  if (!na && a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  if (a->s != b->s)
    return a->s < b->s ? -1 : 1;
  if (a->e != b->e)
    return a->e < b->e ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}
XSORT_DEFINE(work_sort, an_work, work_cmp)

/* One GPU's records (all of a NULL gpu are one part). */
typedef struct wpart {
  int null;
  int64_t gpu;
  an_work *buf;                /* kept, not yet written out */
  size_t n, alloc;
  an_work last;                /* the last one written out, when out */
  size_t out;                  /* records written out */
  off_t *runs;                 /* where each written run starts */
  size_t *run_n, nruns;
} wpart;

struct an_works {
  xsort *x;
  int sorting;                 /* every record goes to x */
  wpart p[WORK_PARTS];
  size_t np, hint, total;      /* parts; the last one used; records in all */
  int fd;                      /* the scratch file, -1 before a run */
  off_t size;
  size_t added, taken;
  /* reading: the parts in order, the one read, where in it */
  unsigned char order[WORK_PARTS];
  size_t next, run, in_run, at, rd;
  wpart *cur;
  an_work *rbuf;
};

int an_scratch_append(int *fd, off_t *size, const void *p, size_t len, off_t *at)
{
  if (*fd < 0 && (*fd = rpd_scratch_fd()) < 0)
    return rpd_seterr(RPD_EIO, "cannot create the analysis's scratch file: %s", strerror(errno));
  if (rpd_pwrite_full(*fd, p, len, *size))
    return rpd_seterr(RPD_EIO, "cannot write the analysis's scratch file: %s", strerror(errno));
  *at = *size;
  *size += (off_t)len;
  return RPD_OK;
}

int an_scratch_read(int fd, void *p, size_t len, off_t off)
{
  if (rpd_pread_full(fd, p, len, off))
    return rpd_seterr(RPD_EIO, "cannot read the analysis's scratch file: %s", strerror(errno));
  return RPD_OK;
}

an_works *an_works_new(size_t sort_bytes)
{
  an_works *q = rpd_xcalloc(1, sizeof *q);
  q->x = xsort_new(sizeof(an_work), work_cmp, work_sort, sort_bytes);
  xsort_set_merge(q->x, work_sort_merge);
  /* the parts' buffers take at most the sort's bytes together */
  q->total = xsort_cap_bytes(sort_bytes) / sizeof(an_work);
  if (q->total < 2 * WORK_PARTS)
    q->total = 2 * WORK_PARTS;
  q->fd = -1;
  return q;
}

void an_works_free(an_works *q)
{
  if (!q)
    return;
  xsort_free(q->x);
  for (size_t i = 0; i < q->np; i++) {
    free(q->p[i].buf);
    free(q->p[i].runs);
    free(q->p[i].run_n);
  }
  free(q->rbuf);
  if (q->fd >= 0)
    close(q->fd);
  free(q);
}

/* Every record of the parts into the sort, the parts let go. */
static int to_sort(an_works *q)
{
  int rc = RPD_OK;
  if (!q->rbuf && q->fd >= 0)
    q->rbuf = rpd_xmalloc(READ_RECS * sizeof *q->rbuf);
  q->sorting = 1;
  for (size_t i = 0; i < q->np; i++) {
    wpart *pt = &q->p[i];
    for (size_t k = 0; !rc && k < pt->nruns; k++)
      for (size_t at = 0; !rc && at < pt->run_n[k]; at += READ_RECS) {
        size_t m = pt->run_n[k] - at < READ_RECS ? pt->run_n[k] - at : READ_RECS;
        rc = an_scratch_read(q->fd, q->rbuf, m * sizeof *q->rbuf,
                          pt->runs[k] + (off_t)(at * sizeof *q->rbuf));
        for (size_t j = 0; !rc && j < m; j++)
          rc = xsort_add(q->x, &q->rbuf[j]);
      }
    for (size_t j = 0; !rc && j < pt->n; j++)
      rc = xsort_add(q->x, &pt->buf[j]);
    free(pt->buf);
    free(pt->runs);
    free(pt->run_n);
    memset(pt, 0, sizeof *pt);
  }
  q->np = 0;
  return rc;
}

/* Sort part pt's buffer and write out all but its last keep records;
 * *bad set when they do not follow the part's records written out, or
 * two are equal (then nothing is written). */
static int flush(an_works *q, wpart *pt, size_t keep, int *bad)
{
  size_t m = pt->n - keep;
  int rc;
  work_sort(pt->buf, pt->n);
  *bad = pt->out && work_cmp(&pt->last, &pt->buf[0]) >= 0;
  for (size_t i = 0; !*bad && i + 1 < pt->n && i < m; i++)
    *bad = work_cmp(&pt->buf[i], &pt->buf[i + 1]) >= 0;
  if (*bad || !m)
    return RPD_OK;
  pt->runs = rpd_xrealloc(pt->runs, (pt->nruns + 1) * sizeof *pt->runs);
  pt->run_n = rpd_xrealloc(pt->run_n, (pt->nruns + 1) * sizeof *pt->run_n);
  if ((rc = an_scratch_append(&q->fd, &q->size, pt->buf, m * sizeof *pt->buf, &pt->runs[pt->nruns])))
    return rc;
  pt->run_n[pt->nruns++] = m;
  pt->last = pt->buf[m - 1];
  pt->out += m;
  memmove(pt->buf, pt->buf + m, keep * sizeof *pt->buf);
  pt->n = keep;
  return RPD_OK;
}

/* A new part: the buffers of all shrink to the parts' share, each sorted
 * and written down to half of it when fuller. */
static int new_part(an_works *q, const an_work *w, size_t *at)
{
  size_t lim = q->total / (q->np + 1);
  int rc = RPD_OK, bad = 0;
  for (size_t i = 0; !rc && !bad && i < q->np; i++) {
    wpart *pt = &q->p[i];
    if (pt->n > lim)
      rc = flush(q, pt, lim / 2, &bad);
    if (!rc && !bad && pt->alloc > lim) {
      pt->alloc = lim;
      pt->buf = rpd_xrealloc(pt->buf, lim * sizeof *pt->buf);
    }
  }
  if (rc || bad)
    return rc ? rc : to_sort(q);
  q->p[q->np] = (wpart){.null = w->flags & AN_W_GPU_NULL ? 1 : 0, .gpu = w->gpu};
  *at = q->np++;
  return RPD_OK;
}

int an_works_add(an_works *q, const an_work *w)
{
  wpart *pt = &q->p[q->hint];
  int null = w->flags & AN_W_GPU_NULL ? 1 : 0, rc, bad = 0;
  size_t lim, i;
  q->added++;
  if (q->sorting)
    return xsort_add(q->x, w);
  if (!q->np || pt->null != null || (!null && pt->gpu != w->gpu)) {
    for (i = 0; i < q->np; i++)
      if (q->p[i].null == null && (null || q->p[i].gpu == w->gpu))
        break;
    if (i == q->np) {
      if (q->np == WORK_PARTS)
        rc = to_sort(q);
      else
        rc = new_part(q, w, &i);
      if (rc || q->sorting)
        return rc ? rc : xsort_add(q->x, w);
    }
    q->hint = i;
    pt = &q->p[i];
  }
  lim = q->total / q->np;
  if (pt->n == pt->alloc) {
    pt->alloc = pt->alloc ? 2 * pt->alloc : 64;
    if (pt->alloc > lim)
      pt->alloc = lim;
    pt->buf = rpd_xrealloc(pt->buf, pt->alloc * sizeof *pt->buf);
  }
  pt->buf[pt->n++] = *w;
  if (pt->n < lim)
    return RPD_OK;
  if ((rc = flush(q, pt, pt->n / 2, &bad)))
    return rc;
  return bad ? to_sort(q) : RPD_OK;
}

static int part_cmp(const void *pa, const void *pb)
{
  const wpart *a = pa, *b = pb;
  if (a->null != b->null)
    return a->null ? -1 : 1;
  if (!a->null && a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  return 0;
}

int an_works_done(an_works *q)
{
  int rc = RPD_OK, bad = 0;
  if (q->sorting)
    return xsort_done(q->x);
  /* each part's buffer sorted and checked; it stays in memory */
  for (size_t i = 0; !rc && !bad && i < q->np; i++) {
    wpart *pt = &q->p[i];
    if (!pt->n)
      continue;
    rc = flush(q, pt, pt->n, &bad);
    for (size_t j = 0; !rc && !bad && j + 1 < pt->n; j++)
      bad = work_cmp(&pt->buf[j], &pt->buf[j + 1]) >= 0;
  }
  if (!rc && bad && !(rc = to_sort(q)))
    return xsort_done(q->x);
  an_order_parts(q->order, q->np, q->p, sizeof *q->p, part_cmp);
  if (!q->rbuf && q->fd >= 0)
    q->rbuf = rpd_xmalloc(READ_RECS * sizeof *q->rbuf);
  return rc;
}

int an_works_next(an_works *q, const an_work **w)
{
  int rc;
  if (q->sorting) {
    const void *p;
    int got = an_next_shown(q->x, &p, "idle gaps");
    if (got > 0)
      *w = p;
    return got;
  }
  an_progress("idle gaps", q->taken, q->added);
  for (;;) {
    wpart *pt = q->cur;
    if (pt && q->at < q->rd) {
      /* the runs read back through rbuf, then the buffer in place */
      *w = q->run < pt->nruns ? &q->rbuf[q->at++] : &pt->buf[q->at++];
      q->taken++;
      return 1;
    }
    if (pt && q->run < pt->nruns && q->in_run == pt->run_n[q->run]) {
      q->run++;
      q->in_run = 0;
    }
    if (pt && q->run < pt->nruns) {
      size_t m = pt->run_n[q->run] - q->in_run;
      if (m > READ_RECS)
        m = READ_RECS;
      if ((rc = an_scratch_read(q->fd, q->rbuf, m * sizeof *q->rbuf,
                             pt->runs[q->run] + (off_t)(q->in_run * sizeof *q->rbuf))))
        return -rc;
      q->in_run += m;
      q->at = 0;
      q->rd = m;
      continue;
    }
    if (pt && q->run == pt->nruns) {
      /* the buffer, once */
      q->run++;
      q->at = 0;
      q->rd = pt->n;
      continue;
    }
    if (q->next == q->np)
      return 0;
    q->cur = &q->p[q->order[q->next++]];
    q->run = q->in_run = q->at = q->rd = 0;
  }
}
