#include "tracing.h"

static inline int cmp_rows(const lrec *a, const lrec *b) {
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if ((a->queue < 0) != (b->queue < 0)) return a->queue < 0 ? -1 : 1;
  if (a->e != b->e) return a->e > b->e ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return a->aux < b->aux ? -1 : a->aux > b->aux;
}

int lrec_cmp(const lrec *a, const lrec *b) { return cmp_rows(a, b); }

/* Merge sort of v[0..n) (tmp: room for n / 2 rows).  Launch rows come
 * nearly in order (two threads' calls interleave, markers arrive at their
 * end): halves already in order cost one comparison, and the comparison is
 * inlined (qsort called it through a pointer). */
static void merge_sort(lrec *v, lrec *tmp, size_t n) {
  if (n <= 16) {   /* insertion sort */
    for (size_t i = 1; i < n; i++) {
      lrec x = v[i];
      size_t j = i;
      for (; j && cmp_rows(&v[j - 1], &x) > 0; j--) v[j] = v[j - 1];
      v[j] = x;
    }
    return;
  }
  size_t h = n / 2, i = 0, j = h, k = 0;
  merge_sort(v, tmp, h);
  merge_sort(v + h, tmp, n - h);
  if (cmp_rows(&v[h - 1], &v[h]) <= 0) return;
  memcpy(tmp, v, h * sizeof *v);
  while (i < h && j < n) v[k++] = cmp_rows(&v[j], &tmp[i]) < 0 ? v[j++] : tmp[i++];
  memcpy(v + k, tmp + i, (h - i) * sizeof *v);   /* what is left of v[j..n) is in place */
}

/* Sort v[0..n) with tmp (room for n rows).  The rows come as one ascending
 * stream with some rows behind it (the markers, stored at their end, come
 * after the calls inside them): the stream is kept in place, the rows
 * behind it go to tmp and are sorted the same way (with v's free tail as
 * their scratch), and the two are merged from the back.  When most rows
 * are behind, a plain merge sort does better. */
static void sort_rows(lrec *v, lrec *tmp, size_t n) {
  size_t k = 0, r = 0;
  if (n <= 16) {
    merge_sort(v, tmp, n);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (!k || cmp_rows(&v[k - 1], &v[i]) <= 0) v[k++] = v[i];
    else tmp[r++] = v[i];
  }
  if (!r) return;
  if (r > k) {   /* undo: the kept rows and then the others, then sort them all */
    memcpy(v + k, tmp, r * sizeof *v);
    merge_sort(v, tmp, n);
    return;
  }
  sort_rows(tmp, v + k, r);
  size_t w = n;
  while (r) {
    if (k && cmp_rows(&v[k - 1], &tmp[r - 1]) > 0) v[--w] = v[--k];
    else v[--w] = tmp[--r];
  }
}

/* Sort the in-memory chunk; one comparison per row when it is in order
 * already.  cmp_rows is a total order, so any correct sort gives the same
 * rows. */
static void sort_chunk(sorter *so) {
  size_t i = 1;
  while (i < so->n && cmp_rows(&so->v[i - 1], &so->v[i]) <= 0) i++;
  if (i == so->n) return;
  lrec *tmp = rpd_xmalloc(so->n * sizeof *tmp);
  sort_rows(so->v, tmp, so->n);
  free(tmp);
}

void sorter_init(sorter *so, char *err) {
  const char *env = getenv("RPD2TRACING_MEM_MAX");
  size_t bytes = env ? (size_t)strtoull(env, NULL, 10) : SORT_MEM;
  memset(so, 0, sizeof *so);
  so->err = err;
  so->cap = bytes / sizeof(lrec);
  if (so->cap < 2) so->cap = 2;
  so->fd = -1;
}

/* Write buf fully at off; RPD_OK or RPD_EIO. */
static int pwrite_all(char *err, int fd, const void *buf, size_t n, off_t off) {
  const char *p = buf;
  while (n) {
    ssize_t w = pwrite(fd, p, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return cerr(err, RPD_EIO, "temp file: %s", w < 0 ? strerror(errno) : "short write");
    p += w;
    n -= (size_t)w;
    off += w;
  }
  return RPD_OK;
}

/* ---------------------------------------------------- encoded runs */

static unsigned char *put_varint(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* A signed difference, zigzag-coded (small either way: few bytes). */
static unsigned char *put_delta(unsigned char *p, int64_t a, int64_t b) {
  uint64_t d = (uint64_t)a - (uint64_t)b;
  return put_varint(p, (d << 1) ^ (uint64_t)-(int64_t)(d >> 63));
}

/* Row r after row prev; at most LREC_MAX bytes. */
static unsigned char *put_row(unsigned char *p, const lrec *r, const lrec *prev) {
  p = put_delta(p, r->ts, prev->ts);
  p = put_delta(p, r->e, r->ts);
  p = put_delta(p, r->id, prev->id);
  p = put_delta(p, r->aux, prev->aux);
  p = put_delta(p, r->ostart, r->ts);
  p = put_delta(p, r->oend, r->ostart);
  p = put_varint(p, (uint32_t)r->thread);
  return put_varint(p, (uint32_t)(r->queue + 1));
}

/* A varint at *p, or 0 with *bad set when it runs past end. */
static uint64_t get_varint(const unsigned char **p, const unsigned char *end, int *bad) {
  uint64_t v = 0;
  for (unsigned sh = 0; *p < end && sh < 64; sh += 7) {
    unsigned char b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) return v;
  }
  *bad = 1;
  return 0;
}

static int64_t get_delta(const unsigned char **p, const unsigned char *end, int *bad, int64_t base) {
  uint64_t z = get_varint(p, end, bad);
  return (int64_t)((uint64_t)base + ((z >> 1) ^ (uint64_t)-(int64_t)(z & 1)));
}

/* The row after prev at *p (before end); 0 when the bytes are cut. */
static int get_row(const unsigned char **p, const unsigned char *end, lrec *r, const lrec *prev) {
  int bad = 0;
  r->ts = get_delta(p, end, &bad, prev->ts);
  r->e = get_delta(p, end, &bad, r->ts);
  r->id = get_delta(p, end, &bad, prev->id);
  r->aux = get_delta(p, end, &bad, prev->aux);
  r->ostart = get_delta(p, end, &bad, r->ts);
  r->oend = get_delta(p, end, &bad, r->ostart);
  r->thread = (int32_t)(uint32_t)get_varint(p, end, &bad);
  r->queue = (int32_t)((uint32_t)get_varint(p, end, &bad) - 1);
  return !bad;
}

/* Sort the chunk and append it to the temp file as a new run, encoded. */
static int sorter_spill(sorter *so) {
  int rc = RPD_OK;
  off_t start = so->fsize;
  if (so->fd < 0 && (so->fd = rpd_scratch_fd()) < 0)
    return cerr(so->err, RPD_EIO, "cannot create a temp file: %s", strerror(errno));
  sort_chunk(so);
  unsigned char *buf = rpd_xmalloc(RUN_BYTES + LREC_MAX), *p = buf;
  lrec prev = {0};
  for (size_t i = 0; i < so->n && rc == RPD_OK; i++) {
    p = put_row(p, &so->v[i], &prev);
    prev = so->v[i];
    if ((size_t)(p - buf) >= RUN_BYTES || i + 1 == so->n) {
      rc = pwrite_all(so->err, so->fd, buf, (size_t)(p - buf), so->fsize);
      so->fsize += p - buf;
      p = buf;
    }
  }
  free(buf);
  if (rc != RPD_OK) return rc;
  if (so->nruns == so->runcap) {
    so->runcap = so->runcap ? so->runcap * 2 : 16;
    so->runs = rpd_xrealloc(so->runs, so->runcap * sizeof *so->runs);
  }
  so->runs[so->nruns++] = (run){.off = start, .end = so->fsize, .left = so->n};
  so->n = 0;
  return RPD_OK;
}

int sorter_add(sorter *so, const lrec *r) {
  if (so->n == so->cap) {
    int rc = so->n ? sorter_spill(so) : RPD_OK;
    if (rc != RPD_OK) return rc;
    if (!so->v) so->v = rpd_xmalloc(so->cap * sizeof *so->v);
  }
  if (!so->v) so->v = rpd_xmalloc((so->cap < 4096 ? so->cap : 4096) * sizeof *so->v);
  so->v[so->n++] = *r;
  /* grow the first chunk gradually so small traces stay small */
  if (so->n == 4096 && so->cap > 4096) so->v = rpd_xrealloc(so->v, so->cap * sizeof *so->v);
  return RPD_OK;
}

/* Keep at least LREC_MAX bytes (or the rest of the run) unread in r->buf:
 * move the unread tail to the front and read more; RPD_OK or RPD_EIO. */
static int run_fill(sorter *so, run *r) {
  size_t have = r->blen - r->bpos;
  if (have >= LREC_MAX || r->off == r->end) return RPD_OK;
  memmove(r->buf, r->buf + r->bpos, have);
  r->bpos = 0;
  r->blen = have;
  size_t want = RUN_BYTES + LREC_MAX - have;
  if ((off_t)want > r->end - r->off) want = (size_t)(r->end - r->off);
  while (want) {
    ssize_t g = pread(so->fd, r->buf + r->blen, want, r->off);
    if (g < 0 && errno == EINTR) continue;
    if (g <= 0) return cerr(so->err, RPD_EIO, "temp file: %s", g < 0 ? strerror(errno) : "short read");
    r->blen += (size_t)g;
    r->off += g;
    want -= (size_t)g;
  }
  return RPD_OK;
}

/* The current row of run i, or NULL when it is exhausted (RPD_EIO in *rc on
 * a read failure or a cut row). */
static const lrec *run_head(sorter *so, run *r, int *rc) {
  if (r->pos < r->n) return &r->win[r->pos];
  if (!r->left) return NULL;
  size_t want = r->left < RUN_WINDOW ? r->left : RUN_WINDOW;
  if (!r->buf) r->buf = rpd_xmalloc(RUN_BYTES + LREC_MAX);
  for (size_t i = 0; i < want; i++) {
    if ((*rc = run_fill(so, r)) != RPD_OK) return NULL;
    const unsigned char *p = r->buf + r->bpos;
    if (!get_row(&p, r->buf + r->blen, &r->win[i], &r->prev)) {
      *rc = cerr(so->err, RPD_EIO, "temp file: a cut row");
      return NULL;
    }
    r->prev = r->win[i];
    r->bpos = (size_t)(p - r->buf);
  }
  r->left -= want;
  r->pos = 0;
  r->n = want;
  return r->win;
}

static int run_less(sorter *so, size_t a, size_t b) {
  run *ra = &so->runs[a], *rb = &so->runs[b];
  return cmp_rows(&ra->win[ra->pos], &rb->win[rb->pos]) < 0;
}

/* Sift run heap[k] down. */
static void run_sift(sorter *so, size_t k) {
  size_t top = so->heap[k];
  for (;;) {
    size_t ch = 2 * k + 1;
    if (ch >= so->nh) break;
    if (ch + 1 < so->nh && run_less(so, so->heap[ch + 1], so->heap[ch])) ch++;
    if (!run_less(so, so->heap[ch], top)) break;
    so->heap[k] = so->heap[ch];
    k = ch;
  }
  so->heap[k] = top;
}

/* Sort what is left in memory and get ready to read every row in order. */
int sorter_begin(sorter *so) {
  int rc = RPD_OK;
  sort_chunk(so);
  so->pos = 0;
  if (!so->nruns) return RPD_OK;
  /* the in-memory chunk is one more run, already loaded */
  if (so->nruns == so->runcap) so->runs = rpd_xrealloc(so->runs, ++so->runcap * sizeof *so->runs);
  for (size_t i = 0; i < so->nruns; i++) so->runs[i].win = rpd_xmalloc(RUN_WINDOW * sizeof(lrec));
  so->runs[so->nruns++] = (run){.win = so->v, .n = so->n};
  so->v = NULL;
  so->n = 0;
  so->heap = rpd_xmalloc(so->nruns * sizeof *so->heap);
  for (size_t i = 0; i < so->nruns && rc == RPD_OK; i++)
    if (run_head(so, &so->runs[i], &rc)) so->heap[so->nh++] = i;
  for (size_t k = so->nh; k-- > 0;) run_sift(so, k);
  return rc;
}

/* The next row in order, NULL at the end (or on a read error: *rc).  The
 * row stays valid until the next call. */
const lrec *sorter_next(sorter *so, int *rc) {
  if (!so->heap) return so->pos < so->n ? &so->v[so->pos++] : NULL;
  if (!so->nh) return NULL;
  run *r = &so->runs[so->heap[0]];
  so->cur = r->win[r->pos++];
  if (!run_head(so, r, rc)) {
    if (*rc != RPD_OK) return NULL;
    so->heap[0] = so->heap[--so->nh];
  }
  if (so->nh) run_sift(so, 0);
  return &so->cur;
}

void sorter_free(sorter *so) {
  if (so->fd >= 0) close(so->fd);
  free(so->v);
  if (so->heap)   /* the last run's window was v */
    for (size_t i = 0; i < so->nruns; i++) free(so->runs[i].win);
  for (size_t i = 0; i < so->nruns; i++) free(so->runs[i].buf);
  free(so->runs);
  free(so->heap);
  memset(so, 0, sizeof *so);
  so->fd = -1;
}
