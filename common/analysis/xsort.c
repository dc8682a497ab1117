/* xsort.c - sort in bounded memory: sorted runs in a scratch file merged
 * back with a heap (xsort.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"
#include "util/heap.h"
#include "xsort.h"

#define READ_BYTES (64 * 1024)   /* read buffer of one run, at most */

/* One sorted run of the scratch file and its read position. */
typedef struct run {
  off_t pos, end;              /* next byte to read, end of the run */
  char *buf;
  size_t have, at;             /* bytes in buf, next record in buf */
} run;

typedef struct head {
  const char *rec;
  size_t run;
} head;

static int head_less(const head *a, const head *b, void *ctx)
{
  int c = ((xsort_cmp)ctx)(a->rec, b->rec);
  return c < 0 || (c == 0 && a->run < b->run);
}

RPD_HEAP_DEFINE(head_heap, head, head_less)

struct xsort {
  size_t rec, cap;             /* record size, records the buffer holds */
  xsort_cmp cmp;
  xsort_fn sort;
  char *buf;
  size_t n, next;              /* records in buf, next one to return */
  int fd;                      /* the scratch file, -1 before a spill */
  off_t size;
  run *runs;
  size_t nruns;
  head_heap heap;
  int merging;
  size_t read;                 /* bytes of a run's read buffer (records) */
  size_t added, taken;
};

size_t xsort_cap_bytes(size_t dflt)
{
  const char *e = getenv("RPD_ANALYZE_SORT_BYTES");
  char *end;
  unsigned long long v;
  if (!e || !*e || *e == '-')
    return dflt;
  errno = 0;
  v = strtoull(e, &end, 10);
  return errno || *end || v == 0 ? dflt : (size_t)v;
}

xsort *xsort_new(size_t rec, xsort_cmp cmp, xsort_fn sort, size_t cap)
{
  xsort *x = rpd_xcalloc(1, sizeof *x);
  x->rec = rec;
  x->cmp = cmp;
  x->sort = sort;
  x->cap = xsort_cap_bytes(cap) / rec;
  if (x->cap < 1)
    x->cap = 1;
  x->fd = -1;
  x->heap.ctx = (void *)cmp;
  return x;
}

static int io_error(const char *what)
{
  return rpd_seterr(RPD_EIO, "cannot %s the sort's scratch file: %s", what,
                    strerror(errno ? errno : EIO));
}

/* Sort the n records of the buffer. */
static void sort_buf(xsort *x)
{
  if (x->sort)
    x->sort(x->buf, x->n);
  else
    qsort(x->buf, x->n, x->rec, x->cmp);
}

/* Sort the buffer and append it to the scratch file as one run. */
static int spill(xsort *x)
{
  size_t len = x->n * x->rec;
  sort_buf(x);
  if (x->fd < 0 && (x->fd = rpd_scratch_fd()) < 0)
    return io_error("create");
  if (rpd_pwrite_full(x->fd, x->buf, len, x->size))
    return io_error("write");
  x->runs = rpd_xrealloc(x->runs, (x->nruns + 1) * sizeof *x->runs);
  memset(&x->runs[x->nruns], 0, sizeof *x->runs);
  x->runs[x->nruns].pos = x->size;
  x->runs[x->nruns].end = x->size + (off_t)len;
  x->nruns++;
  x->size += (off_t)len;
  x->n = 0;
  return RPD_OK;
}

int xsort_add(xsort *x, const void *rec)
{
  if (!x->buf)
    x->buf = rpd_xmalloc(x->cap * x->rec);
  if (x->n == x->cap) {
    int rc = spill(x);
    if (rc)
      return rc;
  }
  memcpy(x->buf + x->n * x->rec, rec, x->rec);
  x->n++;
  x->added++;
  return RPD_OK;
}

/* The next record of run k, reading on when its buffer is used up; NULL at
 * its end or on an error (*rc set). */
static const char *run_rec(xsort *x, size_t k, int *rc)
{
  run *ru = &x->runs[k];
  if (ru->at + x->rec > ru->have) {
    size_t want = x->read;
    if ((off_t)want > ru->end - ru->pos)
      want = (size_t)(ru->end - ru->pos);
    if (want == 0)
      return NULL;
    if (!ru->buf)
      ru->buf = rpd_xmalloc(x->read);
    if (rpd_pread_full(x->fd, ru->buf, want, ru->pos)) {
      *rc = io_error("read");
      return NULL;
    }
    ru->pos += (off_t)want;
    ru->have = want;
    ru->at = 0;
  }
  ru->at += x->rec;
  return ru->buf + ru->at - x->rec;
}

int xsort_done(xsort *x)
{
  int rc = RPD_OK;
  if (!x->nruns) {
    if (x->n)
      sort_buf(x);
    return RPD_OK;
  }
  /* spilled: the rest is one more run, and the buffer goes */
  if (x->n && (rc = spill(x)))
    return rc;
  free(x->buf);
  x->buf = NULL;
  x->merging = 1;
  /* the runs' read buffers together take at most the sort buffer's bytes
   * (whatever the number of runs), each at least one record */
  x->read = x->cap * x->rec / x->nruns;
  if (x->read > READ_BYTES)
    x->read = READ_BYTES;
  x->read = x->read / x->rec * x->rec;
  if (x->read < x->rec)
    x->read = x->rec;
  for (size_t k = 0; k < x->nruns; k++) {
    const char *r = run_rec(x, k, &rc);
    if (rc)
      return rc;
    if (r)
      head_heap_push(&x->heap, (head){r, k});
  }
  return RPD_OK;
}

int xsort_next(xsort *x, const void **rec)
{
  int rc = RPD_OK;
  if (!x->merging) {
    if (x->next >= x->n)
      return 0;
    *rec = x->buf + x->next++ * x->rec;
    x->taken++;
    return 1;
  }
  if (!x->heap.n)
    return 0;
  /* the record returned last time is still in its run's buffer: advance
   * that run now, before handing out the new top */
  if (x->next) {
    size_t k = x->heap.v[0].run;
    const char *r = run_rec(x, k, &rc);
    if (rc)
      return -rc;
    if (r)
      head_heap_replace_top(&x->heap, (head){r, k});
    else
      (void)head_heap_pop(&x->heap);
    if (!x->heap.n)
      return 0;
  }
  x->next = 1;
  *rec = x->heap.v[0].rec;
  x->taken++;
  return 1;
}

size_t xsort_runs(const xsort *x)
{
  return x->nruns;
}

size_t xsort_added(const xsort *x)
{
  return x->added;
}

size_t xsort_taken(const xsort *x)
{
  return x->taken;
}

void xsort_free(xsort *x)
{
  if (!x)
    return;
  free(x->buf);
  for (size_t k = 0; k < x->nruns; k++)
    free(x->runs[k].buf);
  free(x->runs);
  head_heap_free(&x->heap);
  if (x->fd >= 0)
    close(x->fd);
  free(x);
}
