/* opmerge.c - raptor: ops into (gpu, start, id) order by merging the
 * sorted runs the table order already holds (see opmerge.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opmerge.h"
#include "rpd.h"
#include "util/heap.h"

#define BLOCK 256                /* ops per block: 8 KB */

typedef struct run {
  int32_t gpu;
  int64_t tail_start, tail_id;   /* the last op added */
  int64_t nrec;
  oprec *buf;                    /* BLOCK ops: written, then read back */
  size_t nbuf, pos;
  int64_t *blocks;               /* file offsets of its blocks, in order */
  size_t nblocks, capblocks, next;
} run;

static int rec_less(const oprec *a, const oprec *b)
{
  if (a->gpu != b->gpu) return a->gpu < b->gpu;
  if (a->start != b->start) return a->start < b->start;
  return a->id < b->id;
}

/* The merge's heap holds run indices (ctx: the runs), the run whose
 * current op comes first on top. */
static int run_before(const int *a, const int *b, void *ctx)
{
  const run *runs = ctx, *x = &runs[*a], *y = &runs[*b];
  return rec_less(&x->buf[x->pos], &y->buf[y->pos]);
}
RPD_HEAP_DEFINE(runheap, int, run_before)

typedef struct gpuent {
  int32_t gpu;
  int last;                      /* run of the previous op of this GPU */
} gpuent;

struct opmerge {
  run *runs;
  int nruns, capruns;
  gpuent *gpus;
  int ngpus, capgpus, lastgpu;
  FILE *tmp;
  int64_t off;                   /* end of the temp file */
  int64_t count;
  int reading;
  runheap heap;
};

opmerge *opmerge_new(void)
{
  opmerge *m = rpd_xcalloc(1, sizeof *m);
  m->lastgpu = -1;
  return m;
}

int opmerge_runs(const opmerge *m)
{
  return m->nruns;
}

int64_t opmerge_count(const opmerge *m)
{
  return m->count;
}

void opmerge_free(opmerge *m)
{
  if (!m) return;
  for (int i = 0; i < m->nruns; i++) {
    free(m->runs[i].buf);
    free(m->runs[i].blocks);
  }
  free(m->runs);
  free(m->gpus);
  runheap_free(&m->heap);
  if (m->tmp) fclose(m->tmp);
  free(m);
}

/* Write the run's buffered ops as its next block. */
static int run_flush(opmerge *m, run *r)
{
  if (!r->nbuf) return RPD_OK;
  if (!m->tmp && !(m->tmp = rpd_scratch_file()))
    return rpd_seterr(RPD_EIO, "cannot create a temp file: %s", strerror(errno));
  const char *p = (const char *)r->buf;
  size_t left = r->nbuf * sizeof *r->buf;
  int64_t at = m->off;
  while (left) {
    ssize_t w = pwrite(fileno(m->tmp), p, left, (off_t)at);
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return rpd_seterr(RPD_EIO, "cannot write a temp file: %s",
                        w < 0 ? strerror(errno) : "disk full");
    }
    p += w;
    at += w;
    left -= (size_t)w;
  }
  if (r->nblocks == r->capblocks) {
    r->capblocks = r->capblocks ? 2 * r->capblocks : 16;
    r->blocks = rpd_xrealloc(r->blocks, r->capblocks * sizeof *r->blocks);
  }
  r->blocks[r->nblocks++] = m->off;
  m->off = at;
  r->nbuf = 0;
  return RPD_OK;
}

/* 1 when the op may follow the run's last op: (start, id) grows. */
static int fits(const run *r, const oprec *o)
{
  return o->start > r->tail_start || (o->start == r->tail_start && o->id > r->tail_id);
}

static gpuent *gpu_entry(opmerge *m, int32_t gpu)
{
  if (m->lastgpu >= 0 && m->gpus[m->lastgpu].gpu == gpu) return &m->gpus[m->lastgpu];
  for (int i = 0; i < m->ngpus; i++)
    if (m->gpus[i].gpu == gpu) {
      m->lastgpu = i;
      return &m->gpus[i];
    }
  if (m->ngpus == m->capgpus) {
    m->capgpus = m->capgpus ? 2 * m->capgpus : 8;
    m->gpus = rpd_xrealloc(m->gpus, (size_t)m->capgpus * sizeof *m->gpus);
  }
  m->lastgpu = m->ngpus;
  m->gpus[m->ngpus] = (gpuent){.gpu = gpu, .last = -1};
  return &m->gpus[m->ngpus++];
}

/* The run the op goes to: the GPU's last run when it fits, else the run of
 * the GPU with the largest tail it fits (runs stay tight), else a new one;
 * -1 when that would exceed OPMERGE_MAX_RUNS. */
static int pick_run(opmerge *m, gpuent *g, const oprec *o)
{
  if (g->last >= 0 && fits(&m->runs[g->last], o)) return g->last;
  int best = -1;
  for (int i = 0; i < m->nruns; i++) {
    const run *r = &m->runs[i];
    if (r->gpu != o->gpu || !fits(r, o)) continue;
    if (best < 0 || r->tail_start > m->runs[best].tail_start ||
        (r->tail_start == m->runs[best].tail_start && r->tail_id > m->runs[best].tail_id))
      best = i;
  }
  if (best >= 0) return best;
  if (m->nruns == OPMERGE_MAX_RUNS) return -1;
  if (m->nruns == m->capruns) {
    m->capruns = m->capruns ? 2 * m->capruns : 16;
    m->runs = rpd_xrealloc(m->runs, (size_t)m->capruns * sizeof *m->runs);
  }
  run *r = &m->runs[m->nruns];
  memset(r, 0, sizeof *r);
  r->gpu = o->gpu;
  r->buf = rpd_xmalloc(BLOCK * sizeof *r->buf);
  return m->nruns++;
}

int opmerge_add(opmerge *m, const oprec *o)
{
  gpuent *g = gpu_entry(m, o->gpu);
  int i = pick_run(m, g, o);
  if (i < 0)
    return rpd_seterr(RPD_ERANGE, "the ops need more than %d sorted runs", OPMERGE_MAX_RUNS);
  run *r = &m->runs[i];
  g->last = i;
  if (r->nbuf == BLOCK) {
    int rc = run_flush(m, r);
    if (rc != RPD_OK) return rc;
  }
  r->buf[r->nbuf++] = *o;
  r->tail_start = o->start;
  r->tail_id = o->id;
  r->nrec++;
  m->count++;
  return RPD_OK;
}

/* ------------------------------------------------------------ merging */

/* Read the run's next block into its buffer; 1, 0 at its end, or -RPD_EIO. */
static int run_load(opmerge *m, run *r)
{
  if (r->next == r->nblocks) return 0;
  int64_t first = (int64_t)r->next * BLOCK;
  size_t cnt = (size_t)(r->nrec - first < BLOCK ? r->nrec - first : BLOCK);
  char *p = (char *)r->buf;
  size_t left = cnt * sizeof *r->buf;
  int64_t at = r->blocks[r->next++];
  while (left) {
    ssize_t n = pread(fileno(m->tmp), p, left, (off_t)at);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return -rpd_seterr(RPD_EIO, "cannot read a temp file: %s",
                         n < 0 ? strerror(errno) : "short file");
    }
    p += n;
    at += n;
    left -= (size_t)n;
  }
  r->nbuf = cnt;
  r->pos = 0;
  return 1;
}

/* Flush every run's last block and load every run's first one. */
static int start_reading(opmerge *m)
{
  m->reading = 1;
  m->heap.cap = (size_t)(m->nruns ? m->nruns : 1);
  m->heap.v = rpd_xmalloc(m->heap.cap * sizeof *m->heap.v);
  for (int i = 0; i < m->nruns; i++) {
    int rc = run_flush(m, &m->runs[i]);
    if (rc != RPD_OK) return -rc;
  }
  for (int i = 0; i < m->nruns; i++) {
    int s = run_load(m, &m->runs[i]);
    if (s < 0) return s;
    if (s) m->heap.v[m->heap.n++] = i;
  }
  m->heap.ctx = m->runs;
  runheap_heapify(&m->heap);
  return 0;
}

int opmerge_next(opmerge *m, oprec *o)
{
  if (!m->reading) {
    int s = start_reading(m);
    if (s < 0) return s;
  }
  if (!m->heap.n) return 0;
  run *r = &m->runs[m->heap.v[0]];
  *o = r->buf[r->pos++];
  if (r->pos == r->nbuf) {
    int s = run_load(m, r);
    if (s < 0) return s;
    if (!s) m->heap.v[0] = m->heap.v[--m->heap.n];
  }
  if (m->heap.n > 1) runheap_sift_down(&m->heap, 0);
  return 1;
}
