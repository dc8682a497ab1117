#include "tracing.h"

/* The sink: events are formatted into one big buffer; full buffers go out
 * with write(2), or to a compressor thread for .gz (gzpipe: one buffer is
 * compressed while the next fills). */

/* ------------------------------------------------------------ gzpipe */

struct gzpipe {
  gzFile gz;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *job;            /* a full buffer waiting or being compressed */
  size_t joblen, jobcap;
  int has_job, quit;
  char *spare;          /* a compressed buffer, free for the next swap */
  size_t sparecap;
  int failed, err;
};

static void *gzpipe_main(void *arg) {
  gzpipe *g = arg;
  pthread_mutex_lock(&g->mu);
  for (;;) {
    while (!g->has_job && !g->quit) pthread_cond_wait(&g->cv, &g->mu);
    if (!g->has_job) break;
    char *buf = g->job;
    size_t n = g->joblen;
    int failed = g->failed;
    pthread_mutex_unlock(&g->mu);
    int err = 0;
    if (!failed && gzwrite(g->gz, buf, (unsigned)n) != (int)n) err = errno ? errno : EIO;
    pthread_mutex_lock(&g->mu);
    if (err && !g->failed) {
      g->failed = 1;
      g->err = err;
    }
    free(g->spare);   /* at most one spare: keep the newest */
    g->spare = g->job;
    g->sparecap = g->jobcap;
    g->job = NULL;
    g->has_job = 0;
    pthread_cond_broadcast(&g->cv);
  }
  pthread_mutex_unlock(&g->mu);
  return NULL;
}

gzpipe *gzpipe_open(int fd, const char *mode) {
  gzFile gz = gzdopen(fd, mode);
  if (!gz) return NULL;
  gzbuffer(gz, 256 * 1024);
  gzpipe *g = rpd_xcalloc(1, sizeof *g);
  g->gz = gz;
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  if (pthread_create(&g->th, NULL, gzpipe_main, g) != 0) {
    gzclose(gz);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
    return NULL;
  }
  return g;
}

char *gzpipe_swap(gzpipe *g, char *buf, size_t n, size_t *cap) {
  char *next;
  pthread_mutex_lock(&g->mu);
  while (g->has_job) pthread_cond_wait(&g->cv, &g->mu);
  g->job = buf;
  g->joblen = n;
  g->jobcap = *cap;
  g->has_job = 1;
  next = g->spare;
  if (next) *cap = g->sparecap;
  g->spare = NULL;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  return next ? next : rpd_xmalloc(*cap);
}

int gzpipe_failed(gzpipe *g, int *err) {
  pthread_mutex_lock(&g->mu);
  int f = g->failed;
  if (f && !*err) *err = g->err;
  pthread_mutex_unlock(&g->mu);
  return f;
}

int gzpipe_close(gzpipe *g, int *err) {
  int failed;
  pthread_mutex_lock(&g->mu);
  g->quit = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  pthread_join(g->th, NULL);
  failed = g->failed;
  if (failed && !*err) *err = g->err;
  if (gzclose(g->gz) != Z_OK) {
    if (!failed && !*err) *err = errno ? errno : EIO;
    failed = 1;
  }
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
  free(g->spare);
  free(g);
  return failed ? -1 : 0;
}

/* ------------------------------------------------------------ sink */

/* Start the disk writes of what OUT got since the last call, once that is
 * WRITEBACK bytes: the commit's fsync then finds little left to write
 * instead of the whole file (0.2 s for 500 MB), and the disk works while
 * the events are formatted.  Asynchronous; errors show at the fsync. */
void sink_writeback(sink *s) {
  off_t end;
  if (s->wb < 0 || (end = lseek(s->fd, 0, SEEK_CUR)) < s->wb + WRITEBACK) return;
  sync_file_range(s->fd, s->wb, end - s->wb, SYNC_FILE_RANGE_WRITE);
  s->wb = end;
}

void sink_flush(sink *s) {
  char *p = s->buf;
  size_t n = s->len;
  s->len = 0;
  if (!n || s->failed) return;
  s->total += (int64_t)n;
  if (s->gz) {   /* the compressor thread takes the buffer, we get another */
    size_t cap = s->cap;
    s->buf = gzpipe_swap(s->gz, s->buf, n, &cap);
    s->cap = cap;
    if (gzpipe_failed(s->gz, &s->err)) s->failed = 1;
    return;
  }
  /* Allocating the file 64 MB ahead saves the filesystem a block
   * reservation per page; close_sink cuts the file to its length. */
  if (s->prealloc >= 0 && s->pos + (off_t)n > s->alloc) {
    if (fallocate(s->fd, 0, s->alloc, PREALLOC) == 0) {
      s->alloc += PREALLOC;
      s->prealloc = 1;
    } else {
      s->prealloc = -1;
    }
  }
  s->pos += (off_t)n;
  while (n) {
    ssize_t w = write(s->fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      s->failed = 1;
      s->err = w < 0 ? errno : ENOSPC;
      return;
    }
    p += w;
    n -= (size_t)w;
    if (s->notify) job_wrote(s->notify, (size_t)w);
  }
  sink_writeback(s);
}

/* Append raw text (the array's brackets). */
void sink_raw(sink *s, const char *t) {
  size_t n = strlen(t);
  if (s->len + n > s->cap) sink_flush(s);
  memcpy(s->buf + s->len, t, n);
  s->len += n;
}

