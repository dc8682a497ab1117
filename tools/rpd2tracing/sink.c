#include "tracing.h"

/* The sink: events are formatted into one big buffer; full buffers go out
 * with write(2), or for .gz to the compressor threads (gzpipe). */

/* ------------------------------------------------------------ gzpipe */

/* Parallel gzip, as pigz does: each full buffer is a chunk compressed on its
 * own (raw deflate primed with the last 32 KB of the chunk before, ending
 * with a sync flush on a byte boundary) by one of GZ_THREADS threads; the
 * chunks are written in order between one gzip header and trailer (CRC-32
 * combined, length), so the file is one ordinary gzip member, readable by
 * every gzip reader.  The sink's buffer is handed over, not copied. */
#define GZ_THREADS_MAX 4
#define GZ_SLOTS 8            /* chunks in flight */
#define GZ_DICT 32768

typedef struct gzslot {
  char *in;                   /* the chunk (a sink buffer) */
  size_t inlen, incap;
  unsigned char dict[GZ_DICT];
  size_t dictlen;
  unsigned char *out;         /* its compressed bytes */
  size_t outlen, outcap;
  uLong crc;
  int state;                  /* 0 free, 1 queued, 2 compressing, 3 compressed */
} gzslot;

struct gzpipe {
  int fd;
  int level;
  pthread_t th[GZ_THREADS_MAX];
  int nth;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  gzslot slot[GZ_SLOTS];
  uint64_t next_in;           /* sequence number of the next chunk handed in */
  uint64_t next_job;          /* the next queued chunk to compress */
  uint64_t next_out;          /* the next chunk to write */
  uLong crc;                  /* of everything written so far */
  uint64_t total;             /* input bytes, for the trailer */
  unsigned char last[GZ_DICT];/* the end of the last chunk handed in */
  size_t lastlen;
  char *spare;                /* free buffers handed back to the sink */
  size_t sparecap;
  int quit, failed, err;
};

static int write_all(int fd, const void *p, size_t n) {
  const char *q = p;
  while (n) {
    ssize_t w = write(fd, q, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : ENOSPC;
    q += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Compress slot x (unlocked); 0 or an errno. */
static int gz_compress(gzpipe *g, gzslot *x, z_stream *z) {
  size_t bound = deflateBound(z, (uLong)x->inlen) + 64;
  if (x->outcap < bound) {
    free(x->out);
    x->outcap = bound;
    x->out = rpd_xmalloc(bound);
  }
  if (deflateReset(z) != Z_OK) return EIO;
  if (x->dictlen && deflateSetDictionary(z, x->dict, (uInt)x->dictlen) != Z_OK) return EIO;
  z->next_in = (Bytef *)x->in;
  z->avail_in = (uInt)x->inlen;
  z->next_out = x->out;
  z->avail_out = (uInt)x->outcap;
  if (deflate(z, Z_SYNC_FLUSH) != Z_OK || z->avail_in || !z->avail_out) return EIO;
  x->outlen = x->outcap - z->avail_out;
  x->crc = crc32(0L, (const Bytef *)x->in, (uInt)x->inlen);
  (void)g;
  return 0;
}

/* Write the compressed chunks that are next in order (locked). */
static void gz_drain(gzpipe *g) {
  for (;;) {
    gzslot *x = &g->slot[g->next_out % GZ_SLOTS];
    if (g->next_out == g->next_in || x->state != 3) return;
    if (!g->failed) {
      int e = write_all(g->fd, x->out, x->outlen);
      if (e) {
        g->failed = 1;
        g->err = e;
      }
    }
    g->crc = crc32_combine(g->crc, x->crc, (z_off_t)x->inlen);
    g->total += x->inlen;
    if (!g->spare) {   /* keep one buffer for the sink, free the rest */
      g->spare = x->in;
      g->sparecap = x->incap;
    } else {
      free(x->in);
    }
    x->in = NULL;
    x->state = 0;
    g->next_out++;
    pthread_cond_broadcast(&g->cv);
  }
}

static void *gz_main(void *arg) {
  gzpipe *g = arg;
  z_stream z;
  memset(&z, 0, sizeof z);
  int zok = deflateInit2(&z, g->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  pthread_mutex_lock(&g->mu);
  for (;;) {
    while (!g->quit && (g->next_job == g->next_in ||
                        g->slot[g->next_job % GZ_SLOTS].state != 1))
      pthread_cond_wait(&g->cv, &g->mu);
    if (g->next_job == g->next_in) break;   /* quit and nothing queued */
    gzslot *x = &g->slot[g->next_job++ % GZ_SLOTS];
    x->state = 2;
    pthread_mutex_unlock(&g->mu);
    int e = zok ? gz_compress(g, x, &z) : ENOMEM;
    pthread_mutex_lock(&g->mu);
    if (e && !g->failed) {
      g->failed = 1;
      g->err = e;
    }
    x->state = 3;
    gz_drain(g);
  }
  pthread_mutex_unlock(&g->mu);
  if (zok) deflateEnd(&z);
  return NULL;
}

gzpipe *gzpipe_open(int fd, int level) {
  static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  gzpipe *g;
  if (write_all(fd, header, sizeof header)) return NULL;
  g = rpd_xcalloc(1, sizeof *g);
  g->fd = fd;
  g->level = level;
  g->crc = crc32(0L, Z_NULL, 0);
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  /* one thread per CPU (the formatting thread mostly waits for them) */
  int want = cpus < 1 ? 1 : cpus > GZ_THREADS_MAX ? GZ_THREADS_MAX : (int)cpus;
  for (g->nth = 0; g->nth < want; g->nth++)
    if (pthread_create(&g->th[g->nth], NULL, gz_main, g) != 0) break;
  if (!g->nth) {
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
  gzslot *x = &g->slot[g->next_in % GZ_SLOTS];
  while (x->state != 0) pthread_cond_wait(&g->cv, &g->mu);
  x->in = buf;
  x->inlen = n;
  x->incap = *cap;
  memcpy(x->dict, g->last, g->lastlen);
  x->dictlen = g->lastlen;
  /* the dictionary of the next chunk: the last 32 KB so far */
  if (n >= GZ_DICT) {
    memcpy(g->last, buf + n - GZ_DICT, GZ_DICT);
    g->lastlen = GZ_DICT;
  } else {
    size_t keep = g->lastlen + n > GZ_DICT ? GZ_DICT - n : g->lastlen;
    memmove(g->last, g->last + g->lastlen - keep, keep);
    memcpy(g->last + keep, buf, n);
    g->lastlen = keep + n;
  }
  x->state = 1;
  g->next_in++;
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
  /* an empty final block (BFINAL, fixed Huffman, end of block), then the
   * trailer: CRC-32 and length, little-endian */
  unsigned char tail[10] = {0x03, 0x00};
  int failed;
  pthread_mutex_lock(&g->mu);
  g->quit = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  for (int i = 0; i < g->nth; i++) pthread_join(g->th[i], NULL);
  for (int i = 0; i < 4; i++) {
    tail[2 + i] = (unsigned char)(g->crc >> (8 * i));
    tail[6 + i] = (unsigned char)(g->total >> (8 * i));
  }
  if (!g->failed && g->next_out != g->next_in) {   /* cannot happen: every chunk written */
    g->failed = 1;
    g->err = EIO;
  }
  if (!g->failed) {
    int e = write_all(g->fd, tail, sizeof tail);
    if (e) {
      g->failed = 1;
      g->err = e;
    }
  }
  failed = g->failed;
  if (failed && !*err) *err = g->err;
  if (close(g->fd) != 0 && !failed) {
    failed = 1;
    if (!*err) *err = errno;
  }
  for (int i = 0; i < GZ_SLOTS; i++) {
    free(g->slot[i].in);
    free(g->slot[i].out);
  }
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
  free(g->spare);
  free(g);
  return failed ? -1 : 0;
}

/* ------------------------------------------------------------ sink */

/* Start the disk writes of what OUT got since the last call, once that is
 * WRITEBACK bytes: the commit's fsync (RPD_SYNC=1) then finds little left
 * to write instead of the whole file (0.2 s for 500 MB), and the disk works
 * while the events are formatted.  Asynchronous; errors show at the fsync,
 * or in the kernel's log without it (as for any unsynced write).
 * What was sent two windows back is on the disk by now (waited for, should
 * it not be) and leaves the page cache: OUT keeps ~32 MB of it instead of
 * every byte, and the next writes reuse the pages just freed.  New pages
 * are what cost: on the build VM, whose free memory goes back to the host,
 * a 2.2 GB JSON spent 3.9 s of sys time in the kernel's copy without this
 * and 1.0 s with it (as dd's oflag=nocache, for a stream nobody rereads
 * at once). */
void sink_writeback(sink *s) {
  off_t end;
  if (s->dio || s->wb < 0 || (end = lseek(s->fd, 0, SEEK_CUR)) < s->wb + WRITEBACK) return;
  sync_file_range(s->fd, s->wb, end - s->wb, SYNC_FILE_RANGE_WRITE);
  if (s->wb - WRITEBACK > s->dropped) {
    off_t n = s->wb - WRITEBACK - s->dropped;
    sync_file_range(s->fd, s->dropped, n,
                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    posix_fadvise(s->fd, s->dropped, n, POSIX_FADV_DONTNEED);
    s->dropped += n;
  }
  s->wb = end;
}

void sink_try_direct(sink *s) {
  const char *env = getenv("RPD2TRACING_DIRECT");
  char *buf;
  if (s->gz || s->prealloc != 0 || s->len || (env && !strcmp(env, "0"))) return;
  if (!(buf = dio_alloc(s->cap))) return;
  if (!(s->dio = dio_start(s->fd, s->cap))) {
    free(buf);
    return;
  }
  free(s->buf);
  s->buf = buf;
}

/* Allocate OUT's blocks ahead of n more bytes: a block reservation per
 * page saved; close_sink cuts the file to its length. */
static void sink_prealloc(sink *s, size_t n) {
  if (s->prealloc >= 0 && s->pos + (off_t)n > s->alloc) {
    if (fallocate(s->fd, 0, s->alloc, PREALLOC) == 0) {
      s->alloc += PREALLOC;
      s->prealloc = 1;
    } else {
      s->prealloc = -1;
    }
  }
  s->pos += (off_t)n;
}

/* Direct mode: hand the whole blocks of the buffer to the writer thread
 * (direct.c) and go on in the buffer it wrote before, the rest (under
 * DIRECT_ALIGN bytes) copied to its start. */
static void direct_spill(sink *s) {
  char tail[DIRECT_ALIGN];
  size_t n = s->len & ~(DIRECT_ALIGN - 1), r = s->len - n;
  if (!n || s->failed) return;
  s->total += (int64_t)n;
  sink_prealloc(s, n);
  memcpy(tail, s->buf + n, r);
  s->buf = dio_swap(s->dio, s->buf, n, &s->err);
  memcpy(s->buf, tail, r);
  s->len = r;
  if (s->err) s->failed = 1;
}

/* Wait for the writer thread's last write and stop it: OUT goes through
 * the page cache again, its writeback from here (sink_writeback). */
static void direct_end(sink *s) {
  int e = dio_stop(s->dio);
  s->dio = NULL;
  if (e && !s->failed) {
    s->failed = 1;
    s->err = e;
  }
  s->wb = s->dropped = lseek(s->fd, 0, SEEK_CUR);
  if (s->wb < 0) s->wb = s->dropped = 0;
}

int sink_copy_from(sink *s, int from, off_t *off, size_t n) {
  while (n) {
    sink_reserve(s, DIRECT_ALIGN);
    size_t room = s->cap - s->len;
    ssize_t k = pread(from, s->buf + s->len, room < n ? room : n, *off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    s->len += (size_t)k;
    s->total -= k;   /* counted by the sink that wrote them */
    *off += k;
    n -= (size_t)k;
  }
  return 0;
}

void sink_stop(sink *s) {
  if (s->dio) direct_end(s);
}

void sink_reserve(sink *s, size_t need) {
  if (s->len + need <= s->cap) return;
  if (s->dio) {
    direct_spill(s);
    if (s->len + need <= s->cap) return;
  }
  sink_flush(s);
  if (need > s->cap) {
    s->cap = need;
    s->buf = rpd_xrealloc(s->buf, s->cap);
  }
}

void sink_flush(sink *s) {
  char *p;
  size_t n;
  if (s->dio) {   /* the whole blocks directly, the tail through the cache */
    direct_spill(s);
    direct_end(s);
  }
  p = s->buf;
  n = s->len;
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
  sink_prealloc(s, n);
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

void sink_pass(sink *from, sink *to) {
  if (!from->dio || from->failed || from->prealloc != 1 || to->fd != from->fd || to->gz ||
      to->len || from->len > to->cap) {
    sink_flush(from);
    to->wb = from->wb;
    to->dropped = from->dropped;
    return;
  }
  char *buf = to->buf;   /* to takes from's aligned buffers and its writer */
  size_t cap = to->cap;
  to->buf = from->buf;
  to->cap = from->cap;
  to->len = from->len;
  from->buf = buf;
  from->cap = cap;
  from->len = 0;
  to->dio = from->dio;
  from->dio = NULL;
  to->prealloc = from->prealloc;
  to->alloc = from->alloc;
  to->pos = from->pos;
  to->wb = from->wb;
  to->dropped = from->dropped;
}

/* Append raw text (the array's brackets). */
void sink_raw(sink *s, const char *t) {
  size_t n = strlen(t);
  sink_reserve(s, n);
  memcpy(s->buf + s->len, t, n);
  s->len += n;
}

