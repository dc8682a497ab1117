/* pipe.h - rpd-import: the writer thread (pipe.c).  While a pipe runs,
 * full 64-row batches are handed to a second thread that binds and steps
 * their INSERTs; the reading thread touches the output connection only
 * while the pipe is paused (drained, the writer thread idle).  Internal.
 *
 * The writer and the readers reach the pipe only through the hooks below
 * (m->pipe, NULL when none runs), so they link without pipe.c (the fuzz
 * targets); main.c starts and stops it. */
#ifndef RPD_IMPORT_PIPE_H
#define RPD_IMPORT_PIPE_H

#include "import.h"

/* Work run on the writer thread in order with the batches: fn(m, data)
 * on a copy of the caller's data (db_kinds.c's counter rows). */
typedef int (*pipe_fn)(imp *m, const void *data);

/* The head of pipe.c's state: what writer.c and the readers call. */
struct wpipe {
  /* hand the batch's collected rows to the writer thread (the batch is
   * empty afterwards); the writer thread's first failure, or RPD_OK */
  int (*take)(imp *m, batch *b);
  /* wait until everything handed over is written; the connection is this
   * thread's until the matching resume (nestable); first failure or OK */
  int (*pause)(imp *m);
  void (*resume)(imp *m);
  /* queue fn on a copy of n bytes of data (16-byte aligned in the job);
   * the writer thread's first failure, or RPD_OK */
  int (*call)(imp *m, pipe_fn fn, const void *data, size_t n);
  int paused;               /* pause depth */
};

/* 1 if batches go to the writer thread now (a pipe runs, not paused). */
static inline int pipe_on(const imp *m)
{
  return m->pipe && !m->pipe->paused;
}

/* pause / resume when a pipe runs; RPD_OK and nothing otherwise */
static inline int pipe_pause(imp *m)
{
  return m->pipe ? m->pipe->pause(m) : RPD_OK;
}

static inline void pipe_resume(imp *m)
{
  if (m->pipe)
    m->pipe->resume(m);
}

/* fn(m, data) on the writer thread after everything handed over so far
 * (data copied: the caller may reuse it at once), or right here when no
 * pipe runs or it is paused.  fn's failure shows here (no pipe) or at a
 * later hand-over or pause. */
static inline int pipe_call(imp *m, pipe_fn fn, const void *data, size_t n)
{
  return pipe_on(m) ? m->pipe->call(m, fn, data, n) : fn(m, data);
}

/* (pipe.c) Start the writer thread on m unless RPDTOOLS_IMPORT_THREADS=1
 * or one CPU is online (then everything stays on the calling thread, as
 * before; RPD_OK either way). */
int pipe_begin(imp *m);
/* (pipe.c) Stop it: with rc == RPD_OK every handed-over batch is written
 * first, otherwise they are dropped.  Returns rc, or the writer thread's
 * first failure (its message set) when rc was RPD_OK.  Safe without one. */
int pipe_end(imp *m, int rc);

/* (writer.c) Bind and step `rows` rows of table b's INSERT from the cells
 * iv/toff/txt (a batch's layout), adding to b's counters. */
int w_rows(imp *m, batch *b, int rows, const int64_t *iv, const int *toff,
           const char *txt);

#endif
