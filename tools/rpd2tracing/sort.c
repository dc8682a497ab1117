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

/* Sort the in-memory chunk; one comparison per row when it is in order
 * already.  cmp_rows is a total order, so any correct sort gives the same
 * rows. */
static void sort_chunk(sorter *so) {
  size_t i = 1;
  while (i < so->n && cmp_rows(&so->v[i - 1], &so->v[i]) <= 0) i++;
  if (i == so->n) return;
  lrec *tmp = rpd_xmalloc((so->n / 2 + 1) * sizeof *tmp);
  merge_sort(so->v, tmp, so->n);
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

/* Sort the chunk and move it to the temp file as a new run. */
static int sorter_spill(sorter *so) {
  int rc;
  if (so->fd < 0) {
    const char *dir = getenv("TMPDIR");
    char *path = rpd_xasprintf("%s/rpdtools-XXXXXX", dir && *dir ? dir : "/tmp");
    so->fd = mkstemp(path);
    if (so->fd >= 0) unlink(path);
    free(path);
    if (so->fd < 0) return cerr(so->err, RPD_EIO, "cannot create a temp file: %s", strerror(errno));
  }
  sort_chunk(so);
  if ((rc = pwrite_all(so->err, so->fd, so->v, so->n * sizeof *so->v, so->fsize)) != RPD_OK) return rc;
  if (so->nruns == so->runcap) {
    so->runcap = so->runcap ? so->runcap * 2 : 16;
    so->runs = rpd_xrealloc(so->runs, so->runcap * sizeof *so->runs);
  }
  so->runs[so->nruns++] = (run){.off = so->fsize, .left = so->n};
  so->fsize += (off_t)(so->n * sizeof *so->v);
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

/* The current row of run i, or NULL when it is exhausted (RPD_EIO in *rc on
 * a read failure). */
static const lrec *run_head(sorter *so, run *r, int *rc) {
  if (r->pos < r->n) return &r->win[r->pos];
  if (!r->left) return NULL;
  size_t want = r->left < RUN_WINDOW ? r->left : RUN_WINDOW;
  size_t bytes = want * sizeof(lrec), got = 0;
  while (got < bytes) {
    ssize_t g = pread(so->fd, (char *)r->win + got, bytes - got, r->off + (off_t)got);
    if (g < 0 && errno == EINTR) continue;
    if (g <= 0) {
      *rc = cerr(so->err, RPD_EIO, "temp file: %s", g < 0 ? strerror(errno) : "short read");
      return NULL;
    }
    got += (size_t)g;
  }
  r->off += (off_t)bytes;
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
  free(so->runs);
  free(so->heap);
  memset(so, 0, sizeof *so);
  so->fd = -1;
}
