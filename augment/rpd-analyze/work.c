/* work.c - rpd-analyze's GPU work in the sweep's order, (gpu, start,
 * end, id): a tracer stores a GPU's ops nearly in start order (its queues
 * interleave a little), so each GPU's records are kept in a buffer of
 * their own, sorted when it fills, its first half written out (a sorted
 * run of that GPU, read back in turn) and the rest kept for the records
 * still to come.  As long as every record of a GPU comes after the last
 * one written out and no two are equal, the runs of each GPU follow each
 * other in order: no merge of runs, no sort of the whole.  Runs are
 * written packed (wrun).  Else (or past
 * WORK_PARTS GPUs) every record goes to the bounded sort (xsort.h), those
 * kept so far read back into it, and the order is that sort's as before. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"

#define WORK_PARTS 64
#define READ_RECS 1024           /* records read back at once */
#define WFIELDS 7                /* the numbers of a record packed */
#define PACK_BYTES (64 * 1024)   /* packed bytes written at once */

/* A run written out, packed: each record as WFIELDS numbers, each the
 * difference of a field from what the run or the record itself predicts
 * (zigzagged: small either way), in as many bytes as the run's largest
 * needs: the GPU's ops sorted by start differ from each other by little,
 * so a record takes about 17 bytes, not 56 (the scratch file was the
 * tool's biggest write). */
typedef struct wrun {
  off_t at;                    /* where it starts in the scratch file */
  size_t n, width;             /* records; bytes a record */
  int64_t gpu, s, id;          /* its first record's */
  unsigned char w[WFIELDS];    /* bytes of each number */
} wrun;

static uint64_t zig(uint64_t d)
{
  return d << 1 ^ ((uint64_t)0 - (d >> 63));
}

static uint64_t unzig(uint64_t u)
{
  return u >> 1 ^ ((uint64_t)0 - (u & 1));
}

static uint64_t sub(int64_t a, int64_t b)
{
  return (uint64_t)a - (uint64_t)b;
}

static int64_t add(int64_t a, uint64_t d)
{
  return (int64_t)((uint64_t)a + d);
}

/* The numbers of record r in run ru: the gpu, start and id from the run's
 * first, the end from the start, the launch and its call's end from the
 * start when it has a call (else they are 0), the flags and pad. */
static void wrun_numbers(const wrun *ru, const an_work *r, uint64_t u[WFIELDS])
{
  int64_t ref = r->flags & AN_W_API ? r->s : 0;
  u[0] = zig(sub(r->gpu, ru->gpu));
  u[1] = zig(sub(r->s, ru->s));
  u[2] = zig(sub(r->e, r->s));
  u[3] = zig(sub(r->launch, ref));
  u[4] = zig(sub(r->api_end, ref));
  u[5] = zig(sub(r->id, ru->id));
  u[6] = (uint64_t)(uint32_t)r->flags | (uint64_t)(uint32_t)r->pad << 32;
}

/* The low bytes of v at p, 8 bytes stored (the caller's buffer has room
 * past its end: the next number overwrites the rest), and the 8 bytes at
 * p as a number (masked by the caller). */
static void put8(unsigned char *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, 8);
#else
  for (int b = 0; b < 8; b++)
    p[b] = (unsigned char)(v >> 8 * b);
#endif
}

static uint64_t get8(const unsigned char *p)
{
  uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(&v, p, 8);
#else
  for (int b = 0; b < 8; b++)
    v |= (uint64_t)p[b] << 8 * b;
#endif
  return v;
}

static const uint64_t low_bytes[9] = {0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff,
                                      0xffffffffffff, 0xffffffffffffff, UINT64_MAX};

/* The record packed at p in run ru into *r (8 bytes readable past the
 * record's end). */
static void wrun_unpack(const wrun *ru, const unsigned char *p, an_work *r)
{
  uint64_t u[WFIELDS];
  int64_t ref;
  for (int f = 0; f < WFIELDS; f++) {
    u[f] = get8(p) & low_bytes[ru->w[f]];
    p += ru->w[f];
  }
  r->flags = (int32_t)(uint32_t)u[6];
  r->pad = (int32_t)(uint32_t)(u[6] >> 32);
  r->gpu = add(ru->gpu, unzig(u[0]));
  r->s = add(ru->s, unzig(u[1]));
  r->e = add(r->s, unzig(u[2]));
  ref = r->flags & AN_W_API ? r->s : 0;
  r->launch = add(ref, unzig(u[3]));
  r->api_end = add(ref, unzig(u[4]));
  r->id = add(ru->id, unzig(u[5]));
}


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
  size_t sorted;               /* buf's first records in order (kept) */
  an_work last;                /* the last one written out, when out */
  size_t out;                  /* records written out */
  wrun *runs;                  /* the runs written out, packed */
  size_t nruns;
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
  unsigned char *pbuf;         /* packed bytes of rbuf's records */
  unsigned char *pack;         /* packed bytes of a run before they are written */
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

int an_works_sorting(const an_works *q)
{
  return q->sorting;
}

void an_works_free(an_works *q)
{
  if (!q)
    return;
  xsort_free(q->x);
  for (size_t i = 0; i < q->np; i++) {
    free(q->p[i].buf);
    free(q->p[i].runs);
  }
  free(q->rbuf);
  free(q->pbuf);
  free(q->pack);
  if (q->fd >= 0)
    close(q->fd);
  free(q);
}

/* The n records at buf packed as run ru (its widths from the largest
 * number of each field) and appended to the scratch file through q->pack. */
static int wrun_write(an_works *q, wrun *ru, const an_work *buf, size_t n)
{
  uint64_t any[WFIELDS] = {0}, u[WFIELDS];
  size_t o = 0;
  off_t at;
  int rc = RPD_OK;
  ru->gpu = buf[0].gpu;
  ru->s = buf[0].s;
  ru->id = buf[0].id;
  ru->n = n;
  ru->at = q->size;
  for (size_t i = 0; i < n; i++) {
    wrun_numbers(ru, &buf[i], u);
    for (int f = 0; f < WFIELDS; f++)
      any[f] |= u[f];
  }
  ru->width = 0;
  for (int f = 0; f < WFIELDS; f++) {
    int b = 0;
    while (b < 8 && any[f] >> 8 * b)
      b++;
    ru->w[f] = (unsigned char)b;
    ru->width += (size_t)b;
  }
  if (!q->pack)
    q->pack = rpd_xmalloc(PACK_BYTES + 8 * WFIELDS);
  for (size_t i = 0; !rc && i < n; i++) {
    wrun_numbers(ru, &buf[i], u);
    for (int f = 0; f < WFIELDS; f++) {
      put8(q->pack + o, u[f]);
      o += ru->w[f];
    }
    if (o >= PACK_BYTES || (i + 1 == n && o))
      rc = an_scratch_append(&q->fd, &q->size, q->pack, o, &at), o = 0;
  }
  return rc;
}

/* Records [from, from + m) of run ru (m <= READ_RECS) into q->rbuf. */
static int read_run(an_works *q, const wrun *ru, size_t from, size_t m)
{
  int rc;
  if (!q->rbuf) {
    q->rbuf = rpd_xmalloc(READ_RECS * sizeof *q->rbuf);
    q->pbuf = rpd_xmalloc(READ_RECS * sizeof *q->rbuf + 8);
  }
  if ((rc = an_scratch_read(q->fd, q->pbuf, m * ru->width, ru->at + (off_t)(from * ru->width))))
    return rc;
  for (size_t j = 0; j < m; j++)
    wrun_unpack(ru, q->pbuf + j * ru->width, &q->rbuf[j]);
  return RPD_OK;
}

/* Every record of the parts into the sort, the parts let go. */
static int to_sort(an_works *q)
{
  int rc = RPD_OK;
  q->sorting = 1;
  for (size_t i = 0; i < q->np; i++) {
    wpart *pt = &q->p[i];
    for (size_t k = 0; !rc && k < pt->nruns; k++)
      for (size_t at = 0; !rc && at < pt->runs[k].n; at += READ_RECS) {
        size_t m = pt->runs[k].n - at < READ_RECS ? pt->runs[k].n - at : READ_RECS;
        rc = read_run(q, &pt->runs[k], at, m);
        for (size_t j = 0; !rc && j < m; j++)
          rc = xsort_add(q->x, &q->rbuf[j]);
      }
    for (size_t j = 0; !rc && j < pt->n; j++)
      rc = xsort_add(q->x, &pt->buf[j]);
    free(pt->buf);
    free(pt->runs);
    memset(pt, 0, sizeof *pt);
  }
  q->np = 0;
  return rc;
}

/* Part pt's buffer in order: the records after the first pt->sorted
 * (which are, the ones a flush kept) sorted, then merged into them from
 * where the first of them goes (a GPU's records come nearly in order, so
 * few of the kept ones are passed over: no sort of the whole again). */
static void part_sort(wpart *pt)
{
  an_work *a = pt->buf, *tmp;
  size_t k = pt->sorted, n = pt->n, lo = 0, hi = k, i, j, o;
  if (k >= n) {
    pt->sorted = n;
    return;
  }
  work_sort(a + k, n - k);
  pt->sorted = n;
  if (!k || work_cmp(&a[k - 1], &a[k]) <= 0)
    return;
  /* the first kept record after a[k]: the kept ones before it stay */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (work_cmp(&a[mid], &a[k]) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  tmp = rpd_xmalloc((k - lo) * sizeof *tmp);
  memcpy(tmp, a + lo, (k - lo) * sizeof *tmp);
  for (i = 0, j = k, o = lo; i < k - lo && j < n;)
    a[o++] = work_cmp(&a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
  while (i < k - lo)
    a[o++] = tmp[i++];
  free(tmp);
}

/* Sort part pt's buffer and write out all but its last keep records;
 * *bad set when they do not follow the part's records written out, or
 * two are equal (then nothing is written). */
static int flush(an_works *q, wpart *pt, size_t keep, int *bad)
{
  size_t m = pt->n - keep;
  int rc;
  part_sort(pt);
  *bad = pt->out && work_cmp(&pt->last, &pt->buf[0]) >= 0;
  for (size_t i = 0; !*bad && i + 1 < pt->n && i < m; i++)
    *bad = work_cmp(&pt->buf[i], &pt->buf[i + 1]) >= 0;
  if (*bad || !m)
    return RPD_OK;
  pt->runs = rpd_xrealloc(pt->runs, (pt->nruns + 1) * sizeof *pt->runs);
  if ((rc = wrun_write(q, &pt->runs[pt->nruns], pt->buf, m)))
    return rc;
  pt->nruns++;
  pt->last = pt->buf[m - 1];
  pt->out += m;
  memmove(pt->buf, pt->buf + m, keep * sizeof *pt->buf);
  pt->n = keep;
  pt->sorted = keep;
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
    if (pt && q->run < pt->nruns && q->in_run == pt->runs[q->run].n) {
      q->run++;
      q->in_run = 0;
    }
    if (pt && q->run < pt->nruns) {
      size_t m = pt->runs[q->run].n - q->in_run;
      if (m > READ_RECS)
        m = READ_RECS;
      if ((rc = read_run(q, &pt->runs[q->run], q->in_run, m)))
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
