#include "tracing.h"

/* Direct writes of OUT: its bytes go from the sink's buffers to the disk
 * with O_DIRECT, never through the page cache.  The kernel's copy of every
 * byte into new page-cache pages (and dropping them again behind, see
 * sink_writeback) was a fifth of a JSON run's CPU time; a direct write of
 * the same 512 MB costs a tenth of that system time.  A direct write waits
 * for the disk, so one thread writes while the worker formats the next
 * buffer (two buffers: the one being filled, the one being written).  A
 * direct write starts at an aligned file offset, from an aligned buffer,
 * with an aligned length: the sink hands over whole DIRECT_ALIGN blocks and
 * keeps the rest for the next buffer (sink.c).  A file that refuses a
 * direct write (EINVAL) gets the same bytes through the page cache. */

struct dio {
  int fd;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *buf;            /* being written (busy) */
  size_t n, cap;        /* bytes to write; every buffer's size */
  char *spare;          /* written: the sink's next buffer */
  int busy, quit;
  int err;              /* errno of the first failed write */
};

/* An aligned buffer of cap bytes (free() frees it); NULL when none. */
char *dio_alloc(size_t cap) {
  void *p;
  return posix_memalign(&p, DIRECT_ALIGN, cap) == 0 ? p : NULL;
}

/* Write all n bytes at p to fd; a refused direct write goes again through
 * the page cache (O_DIRECT off for the rest of the file).  0 or an errno. */
static int write_direct(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EINVAL) {
      int fl = fcntl(fd, F_GETFL);
      if (fl < 0 || !(fl & O_DIRECT) || fcntl(fd, F_SETFL, fl & ~O_DIRECT) != 0) return EINVAL;
      continue;
    }
    if (w <= 0) return w < 0 ? errno : ENOSPC;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static void *dio_main(void *arg) {
  dio *d = arg;
  pthread_mutex_lock(&d->mu);
  for (;;) {
    while (!d->busy && !d->quit) pthread_cond_wait(&d->cv, &d->mu);
    if (!d->busy) break;   /* quit and nothing handed over */
    char *p = d->buf;
    size_t n = d->n;
    int failed = d->err != 0;
    pthread_mutex_unlock(&d->mu);
    int e = failed ? 0 : write_direct(d->fd, p, n);
    pthread_mutex_lock(&d->mu);
    if (e && !d->err) d->err = e;
    d->spare = p;
    d->busy = 0;
    pthread_cond_broadcast(&d->cv);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

dio *dio_start(int fd, size_t cap) {
  int fl = fcntl(fd, F_GETFL);
  dio *d;
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) != 0) return NULL;
  d = rpd_xcalloc(1, sizeof *d);
  d->fd = fd;
  d->cap = cap;
  d->spare = dio_alloc(cap);   /* with the sink's: the two buffers */
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  if (!d->spare || pthread_create(&d->th, NULL, dio_main, d) != 0) {
    pthread_mutex_destroy(&d->mu);
    pthread_cond_destroy(&d->cv);
    free(d->spare);
    free(d);
    fcntl(fd, F_SETFL, fl);
    return NULL;
  }
  return d;
}

char *dio_swap(dio *d, char *buf, size_t n, int *err) {
  char *next;
  pthread_mutex_lock(&d->mu);
  while (d->busy) pthread_cond_wait(&d->cv, &d->mu);
  next = d->spare;
  d->spare = NULL;
  d->buf = buf;
  d->n = n;
  d->busy = 1;
  if (d->err && !*err) *err = d->err;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  return next;   /* never NULL: the buffer written before, or the first spare */
}

int dio_stop(dio *d) {
  int err;
  if (!d) return 0;
  pthread_mutex_lock(&d->mu);
  d->quit = 1;
  pthread_cond_broadcast(&d->cv);
  pthread_mutex_unlock(&d->mu);
  pthread_join(d->th, NULL);
  err = d->err;
  int fl = fcntl(d->fd, F_GETFL);
  if (fl >= 0 && (fl & O_DIRECT)) fcntl(d->fd, F_SETFL, fl & ~O_DIRECT);
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->cv);
  free(d->spare);
  free(d);
  return err;
}
