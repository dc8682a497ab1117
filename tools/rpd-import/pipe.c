/* pipe.c - rpd-import: the writer thread.  The reading thread parses the
 * input and fills the writer's 64-row batches (writer.c); each full batch
 * is copied into a job (about 0.5 MB of cells), and full jobs go through a
 * ring of NJOBS to a second thread that binds and steps the INSERTs.  Jobs
 * run in the order they were handed over, so every table gets its rows in
 * the same order (and the same ids) as on one thread.  The reading thread
 * uses the output connection itself only while the pipe is paused
 * (pipe_pause: the ring drained, the writer thread waiting), e.g. to
 * intern a new string; SQLite runs in single-thread mode, the hand-over
 * under the mutex orders the two threads' uses of it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"
#include "import.h"
#include "pipe.h"

enum {
  NJOBS = 3,                /* ring: one being filled, up to two queued */
  JOB_CELLS = 1 << 16,      /* a job is handed over past this many cells */
  JOB_TXT = 1 << 18,        /* ... or this many bytes of text cells */
};

/* One batch's rows inside a job. */
typedef struct jrows {
  batch *b;                 /* NULL: a call (fn on the text at txt) */
  pipe_fn fn;
  int rows;
  size_t cell, txt;         /* offsets of its cells / text in the job */
} jrows;

typedef struct job {
  jrows *e;
  int ne, cape;
  int64_t *iv;
  int *toff;
  size_t ncell, capcell;
  rpd_buf txt;
} job;

typedef struct pipest {
  struct wpipe hook;        /* first: m->pipe points here */
  imp *m;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t work, done_cv;
  job jobs[NJOBS];
  uint64_t posted, done;    /* jobs handed over / written; slot = n % NJOBS */
  int quit, drop;           /* stop when drained / drop what is queued */
  int rc;                   /* the writer thread's first failure */
  char msg[1024];           /* ... and its message (rpd_errmsg is per thread) */
} pipest;

static void job_reset(job *j)
{
  j->ne = 0;
  j->ncell = 0;
  rpd_buf_reset(&j->txt);
}

static void job_free(job *j)
{
  free(j->e);
  free(j->iv);
  free(j->toff);
  rpd_buf_free(&j->txt);
  memset(j, 0, sizeof *j);
}

/* Write a job's rows (writer thread). */
static int job_run(imp *m, const job *j)
{
  int rc = RPD_OK;
  for (int i = 0; i < j->ne && !rc; i++) {
    const jrows *e = &j->e[i];
    if (!e->b) {
      rc = e->fn(m, j->txt.s + e->txt);
      continue;
    }
    rc = w_rows(m, e->b, e->rows, j->iv + e->cell, j->toff + e->cell,
                j->txt.s ? j->txt.s + e->txt : NULL);
  }
  return rc;
}

static void *writer_main(void *arg)
{
  pipest *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->done == p->posted && !p->quit)
      pthread_cond_wait(&p->work, &p->mu);
    if (p->done == p->posted)
      break;
    job *j = &p->jobs[p->done % NJOBS];
    int skip = p->rc || p->drop, rc = RPD_OK;
    pthread_mutex_unlock(&p->mu);
    if (!skip)
      rc = job_run(p->m, j);
    job_reset(j);
    pthread_mutex_lock(&p->mu);
    if (rc && !p->rc) {
      p->rc = rc;
      snprintf(p->msg, sizeof p->msg, "%s", rpd_errmsg());
    }
    p->done++;
    pthread_cond_signal(&p->done_cv);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* The writer thread's first failure (p->mu held): its code, with its
 * message made this thread's last error. */
static int writer_rc(pipest *p)
{
  return p->rc ? rpd_seterr(p->rc, "%s", p->msg) : RPD_OK;
}

/* Hand the job being filled over; wait until the next slot is free. */
static int post(pipest *p)
{
  pthread_mutex_lock(&p->mu);
  p->posted++;
  pthread_cond_signal(&p->work);
  while (p->posted - p->done >= NJOBS)
    pthread_cond_wait(&p->done_cv, &p->mu);
  int rc = writer_rc(p);
  pthread_mutex_unlock(&p->mu);
  return rc;
}

/* Hand over what was collected and wait until all of it is written. */
static int drain(pipest *p)
{
  if (p->jobs[p->posted % NJOBS].ne)
    post(p);
  pthread_mutex_lock(&p->mu);
  while (p->done != p->posted)
    pthread_cond_wait(&p->done_cv, &p->mu);
  int rc = writer_rc(p);
  pthread_mutex_unlock(&p->mu);
  return rc;
}

/* Threads wanted: RPDTOOLS_IMPORT_THREADS (1 = none), else by CPUs online. */
static int want_thread(void)
{
  const char *e = getenv("RPDTOOLS_IMPORT_THREADS");
  if (e && *e)
    return atoi(e) != 1;
  return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

static int hook_pause(imp *m)
{
  pipest *p = (pipest *)m->pipe;
  return p->hook.paused++ ? RPD_OK : drain(p);
}

static void hook_resume(imp *m)
{
  if (m->pipe->paused)
    m->pipe->paused--;
}

/* A new entry at the end of job j. */
static jrows *job_entry(job *j)
{
  if (j->ne == j->cape) {
    j->cape = j->cape ? 2 * j->cape : 256;
    j->e = rpd_xrealloc(j->e, (size_t)j->cape * sizeof *j->e);
  }
  jrows *e = &j->e[j->ne++];
  memset(e, 0, sizeof *e);
  return e;
}

/* Hand the job over when it is full enough. */
static int job_full(pipest *p, const job *j)
{
  if (j->ncell >= JOB_CELLS || j->txt.len >= JOB_TXT)
    return post(p);
  return RPD_OK;   /* a writer failure shows at the next post or drain */
}

static int hook_call(imp *m, pipe_fn fn, const void *data, size_t n)
{
  static const char pad[16];
  pipest *p = (pipest *)m->pipe;
  job *j = &p->jobs[p->posted % NJOBS];
  if (j->txt.len % 16)   /* the copy is read as the caller's struct */
    rpd_buf_add(&j->txt, pad, 16 - j->txt.len % 16);
  jrows *e = job_entry(j);
  e->fn = fn;
  e->txt = j->txt.len;
  rpd_buf_add(&j->txt, data, n);
  return job_full(p, j);
}

static int hook_take(imp *m, batch *b)
{
  pipest *p = (pipest *)m->pipe;
  job *j = &p->jobs[p->posted % NJOBS];
  size_t cells = (size_t)b->n * (size_t)b->ncols;
  if (j->ncell + cells > j->capcell) {
    j->capcell = j->capcell ? 2 * j->capcell : JOB_CELLS + 1024;
    while (j->capcell < j->ncell + cells)
      j->capcell *= 2;
    j->iv = rpd_xrealloc(j->iv, j->capcell * sizeof *j->iv);
    j->toff = rpd_xrealloc(j->toff, j->capcell * sizeof *j->toff);
  }
  jrows *e = job_entry(j);
  e->b = b;
  e->rows = b->n;
  e->cell = j->ncell;
  e->txt = j->txt.len;
  memcpy(j->iv + j->ncell, b->iv, cells * sizeof *b->iv);
  memcpy(j->toff + j->ncell, b->toff, cells * sizeof *b->toff);
  j->ncell += cells;
  if (b->txt.len)
    rpd_buf_add(&j->txt, b->txt.s, b->txt.len);
  b->n = 0;
  rpd_buf_reset(&b->txt);
  return job_full(p, j);
}

/* Free p and its jobs (its thread, if any, joined). */
static void pipest_free(pipest *p)
{
  for (int i = 0; i < NJOBS; i++)
    job_free(&p->jobs[i]);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done_cv);
  free(p);
}

int pipe_begin(imp *m)
{
  if (m->pipe || !want_thread())
    return RPD_OK;
  pipest *p = rpd_xcalloc(1, sizeof *p);
  p->hook.take = hook_take;
  p->hook.pause = hook_pause;
  p->hook.resume = hook_resume;
  p->hook.call = hook_call;
  p->m = m;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done_cv, NULL);
  if (pthread_create(&p->th, NULL, writer_main, p)) {
    pipest_free(p);   /* no thread: stay on this one */
    return RPD_OK;
  }
  m->pipe = &p->hook;
  return RPD_OK;
}

int pipe_end(imp *m, int rc)
{
  pipest *p = (pipest *)m->pipe;
  if (!p)
    return rc;
  int wrc = rc ? RPD_OK : drain(p);
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  p->drop = 1;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->th, NULL);
  pipest_free(p);
  m->pipe = NULL;
  return rc ? rc : wrc;
}
