/* jsonfile.c - rpd-import: the bytes of a rocprofv3 JSON file (.json or
 * .json.gz) for the parser (json.c).  zlib's gzread reads both (plain
 * files pass through unchanged).  When the writer thread runs (pipe.c),
 * a third thread reads and inflates ahead into a ring of RA_N buffers, so
 * the parsing thread only parses; otherwise the parser reads itself.
 * Progress counts bytes of the file (compressed bytes for .gz). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "rpd.h"
#include "import.h"
#include "jsonread.h"

enum {
  RA_SZ = 1 << 18,          /* a read: >= the gzbuffer, so zlib reads (or
                               inflates) into it directly */
  RA_N = 4,                 /* buffers of the read-ahead ring */
};

/* One buffer of the ring: n bytes (0 = end, -1 = error) read up to the
 * file offset off. */
typedef struct rabuf {
  unsigned char *p;
  int n;
  int64_t off;
} rabuf;

typedef struct jfile {
  gzFile gz;
  imp *m;
  char zmsg[160];           /* a read error (the reading side's words) */
  /* read-ahead (threaded) */
  int threaded;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  rabuf b[RA_N];
  uint64_t filled, used;    /* buffers read / handed to the parser */
  int stop;
} jfile;

/* Read the next chunk into b (either thread): n bytes, 0, or -1 with
 * the reason in f->zmsg. */
static void read_chunk(jfile *f, rabuf *b)
{
  int zerr = Z_OK;
  b->n = gzread(f->gz, b->p, RA_SZ);
  if (b->n > 0) {
    b->off = (int64_t)gzoffset(f->gz);
    return;
  }
  const char *zmsg = gzerror(f->gz, &zerr);
  if (b->n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
    snprintf(f->zmsg, sizeof f->zmsg, "%s", zmsg && *zmsg ? zmsg : "read error");
    b->n = -1;
  } else
    b->n = 0;
}

/* A chunk handed to the parser: progress, or the error line. */
static int give(jfile *f, const rabuf *b, const unsigned char **buf, uint64_t fed)
{
  if (b->n > 0) {
    prog_at(f->m, b->off);
    *buf = b->p;
    return b->n;
  }
  if (b->n < 0)
    rpd_seterr(RPD_EGZIP, "corrupt or truncated gzip stream after %" PRIu64
               " bytes: %s", fed, f->zmsg);
  return b->n;
}

/* One thread: read into the first buffer. */
static int read_direct(void *ctx, const unsigned char **buf, uint64_t fed)
{
  jfile *f = ctx;
  read_chunk(f, &f->b[0]);
  return give(f, &f->b[0], buf, fed);
}

static void *reader_main(void *arg)
{
  jfile *f = arg;
  pthread_mutex_lock(&f->mu);
  for (;;) {
    while (f->filled - f->used >= RA_N && !f->stop)
      pthread_cond_wait(&f->cv, &f->mu);
    if (f->stop)
      break;
    rabuf *b = &f->b[f->filled % RA_N];
    pthread_mutex_unlock(&f->mu);
    read_chunk(f, b);
    pthread_mutex_lock(&f->mu);
    f->filled++;
    pthread_cond_broadcast(&f->cv);
    if (b->n <= 0)
      break;            /* the end, or an error: the parser stops there */
  }
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

/* Threaded: give back the buffer the parser had, take the next one. */
static int read_ahead(void *ctx, const unsigned char **buf, uint64_t fed)
{
  jfile *f = ctx;
  pthread_mutex_lock(&f->mu);
  if (*buf) {           /* the previous chunk is parsed: its buffer is free */
    f->used++;
    pthread_cond_broadcast(&f->cv);
  }
  while (f->filled == f->used)
    pthread_cond_wait(&f->cv, &f->mu);
  rabuf *b = &f->b[f->used % RA_N];
  pthread_mutex_unlock(&f->mu);
  int n = give(f, b, buf, fed);
  if (n <= 0)
    *buf = NULL;        /* not a chunk: nothing to give back */
  return n;
}

int import_json(imp *m, const char *path)
{
  return import_json_with(m, path, json_run);
}

int import_json_with(imp *m, const char *path, json_run_fn run)
{
  struct stat sb;
  jfile f;
  memset(&f, 0, sizeof f);
  f.m = m;
  if (!(f.gz = gzopen(path, "rb")))
    return rpd_seterr(RPD_EIO, "cannot read: %s", strerror(errno));
  gzbuffer(f.gz, 1 << 17);
  /* read ahead on a thread when the writer has one (pipe.c) */
  int nb = m->pipe ? RA_N : 1;
  for (int i = 0; i < nb; i++)
    f.b[i].p = rpd_xmalloc(RA_SZ);
  if (m->pipe) {
    pthread_mutex_init(&f.mu, NULL);
    pthread_cond_init(&f.cv, NULL);
    f.threaded = !pthread_create(&f.th, NULL, reader_main, &f);
    if (!f.threaded) {
      pthread_mutex_destroy(&f.mu);
      pthread_cond_destroy(&f.cv);
    }
  }
  prog_begin(m, "reading JSON", 1, stat(path, &sb) ? -1 : (int64_t)sb.st_size);
  int rc = run(m, f.threaded ? read_ahead : read_direct, &f);
  prog_end(m);
  if (f.threaded) {
    pthread_mutex_lock(&f.mu);
    f.stop = 1;
    pthread_cond_broadcast(&f.cv);
    pthread_mutex_unlock(&f.mu);
    pthread_join(f.th, NULL);
    pthread_mutex_destroy(&f.mu);
    pthread_cond_destroy(&f.cv);
  }
  for (int i = 0; i < nb; i++)
    free(f.b[i].p);
  gzclose(f.gz);
  return rc;
}
