#include "tracing.h"

/* ------------------------------------------------------------ launch pass */

/* The rows of the launch pass go through an external sort (bounded memory);
 * then one pass in time order keeps, per thread, the open UserMarker ranges
 * and the GPU frame being built from the ops launched under the innermost
 * one, and per GPU the queue depth. */
int launch_add(conv *c, const lrec *r) { return sorter_add(c->launches, r); }

typedef struct marker {
  int64_t id, end, label;
} marker;

typedef struct gpu_frame {
  int active;
  int64_t marker_id, label;   /* the marker's label in A's labelstore */
  int64_t start, end, ops;
  int32_t *queues;      /* indexes in conv.queues */
  size_t nqueues, cap;
} gpu_frame;

typedef struct thread_state {
  marker *stack;
  size_t depth, cap;
  gpu_frame frame;
} thread_state;

/* Per GPU QueueDepth/Idle state: +1 at each launching api's start, -1 at
 * the op's end (ops kept by their start), as the reference.  Pending op ends
 * wait in a min-heap (its size is the queue depth, not the trace size);
 * ends strictly before a launch are applied first, so ties put +1 first. */
typedef struct gpu_queue {
  int64_t gpu, depth, idle;
  i64heap ends;
} gpu_queue;

typedef struct launch_pass {
  conv *c;
  thread_state *threads;    /* by conv.threads index */
  gpu_queue *gq;            /* by conv.gpus index */
  int32_t *queue_gpu;       /* conv.queues index -> gq index */
} launch_pass;

/* ------------------------------------------------------------ labels */

void labels_init(labelstore *ls, char *err) {
  memset(ls, 0, sizeof *ls);
  ls->err = err;
  ls->fd = -1;
}

/* Write the n bytes at p to the file at off; RPD_OK or RPD_EIO. */
static int labels_write(labelstore *ls, const char *p, size_t n, off_t off) {
  while (n) {
    ssize_t w = pwrite(ls->fd, p, n, off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return cerr(ls->err, RPD_EIO, "temp file: %s", w < 0 ? strerror(errno) : "short write");
    p += w;
    off += w;
    n -= (size_t)w;
  }
  return RPD_OK;
}

int labels_flush(labelstore *ls) {
  int rc = ls->len ? labels_write(ls, ls->buf, ls->len, ls->size - (off_t)ls->len) : RPD_OK;
  ls->len = 0;
  return rc;
}

int labels_put(labelstore *ls, const char *s, size_t n, int64_t *off) {
  uint32_t len = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
  int rc;
  if (ls->fd < 0) {
    if ((ls->fd = rpd_scratch_fd()) < 0)
      return cerr(ls->err, RPD_EIO, "cannot create a temp file: %s", strerror(errno));
    ls->buf = rpd_xmalloc(LABEL_BUF);
  }
  if (ls->len + sizeof len + len + 1 > LABEL_BUF && (rc = labels_flush(ls)) != RPD_OK) return rc;
  *off = ls->size;
  memcpy(ls->buf + ls->len, &len, sizeof len);
  ls->len += sizeof len;
  ls->size += (off_t)sizeof len;
  if (ls->len + len + 1 > LABEL_BUF) {   /* a long label: written from where it is */
    if ((rc = labels_flush(ls)) != RPD_OK) return rc;
    if ((rc = labels_write(ls, s, len, ls->size)) == RPD_OK)
      rc = labels_write(ls, "", 1, ls->size + (off_t)len);
    ls->size += (off_t)len + 1;
    return rc;
  }
  memcpy(ls->buf + ls->len, s, len);
  ls->buf[ls->len + len] = '\0';
  ls->len += len + 1;
  ls->size += (off_t)len + 1;
  return RPD_OK;
}

/* pread n bytes at off into dst; RPD_OK or RPD_EIO. */
static int labels_read(labelstore *ls, char *dst, size_t n, off_t off) {
  while (n) {
    ssize_t g = pread(ls->fd, dst, n, off);
    if (g < 0 && errno == EINTR) continue;
    if (g <= 0) return cerr(ls->err, RPD_EIO, "temp file: %s", g < 0 ? strerror(errno) : "short read");
    dst += g;
    off += g;
    n -= (size_t)g;
  }
  return RPD_OK;
}

/* The window holds [off, off + n) (n <= LABEL_WINDOW) after this. */
static int labels_window(labelstore *ls, off_t off, size_t n) {
  if (off >= ls->woff && off + (off_t)n <= ls->woff + (off_t)ls->wlen) return RPD_OK;
  if (!ls->win) ls->win = rpd_xmalloc(LABEL_WINDOW);
  size_t want = LABEL_WINDOW;
  if ((off_t)want > ls->size - off) want = (size_t)(ls->size - off);
  if (want < n) return cerr(ls->err, RPD_EIO, "temp file: a cut label");
  ls->woff = off;
  ls->wlen = 0;
  int rc = labels_read(ls, ls->win, want, off);
  if (rc == RPD_OK) ls->wlen = want;
  return rc;
}

int labels_get(labelstore *ls, int64_t off, const char **s, size_t *n) {
  uint32_t len;
  int rc;
  if (ls->fd < 0 || off < 0 || off + (int64_t)sizeof len > (int64_t)ls->size)
    return cerr(ls->err, RPD_EIO, "temp file: no label at %lld", (long long)off);
  if ((rc = labels_window(ls, off, sizeof len)) != RPD_OK) return rc;
  memcpy(&len, ls->win + (off - ls->woff), sizeof len);
  off += (int64_t)sizeof len;
  if ((size_t)len + 1 <= LABEL_WINDOW) {
    if ((rc = labels_window(ls, off, (size_t)len + 1)) != RPD_OK) return rc;
    *s = ls->win + (off - ls->woff);
  } else {
    if ((size_t)len + 1 > ls->bigcap) {
      free(ls->big);
      ls->bigcap = (size_t)len + 1;
      ls->big = rpd_xmalloc(ls->bigcap);
    }
    if ((rc = labels_read(ls, ls->big, (size_t)len + 1, off)) != RPD_OK) return rc;
    *s = ls->big;
  }
  *n = len;
  return RPD_OK;
}

void labels_free(labelstore *ls) {
  if (ls->fd >= 0) close(ls->fd);
  free(ls->buf);
  free(ls->win);
  free(ls->big);
  labels_init(ls, ls->err);
}

/* Write the frame once per GPU queue it touched, named by its marker label. */
static int frame_emit(conv *c, gpu_frame *f) {
  char desc[64];
  const char *name = "";
  size_t nlen = 0;
  int rc;
  if (!f->active) return RPD_OK;
  f->active = 0;
  if ((rc = labels_get(c->peer->marks, f->label, &name, &nlen)) != RPD_OK) return rc;
  memcpy(desc, "UserMarker frame: ", 18);
  memcpy(w_i64(desc + 18, f->ops), " ops", 5);
  txt label = txt_s(name, nlen);
  arg a = {"desc", txt_z(desc), 0, 0};
  for (size_t i = 0; i < f->nqueues; i++) {
    size_t q = (size_t)f->queues[i];
    const track_info *t = layout_place(&c->lay, TRACK_FRAME, c->queues.a[q], c->queues.b[q],
                                       f->start - 1000, f->end);
    c->w->slice(c, "marker_frame", t, label, f->start - 1000, f->end - f->start + 1000, &a, 0);
    c->n_frame++;
  }
  f->nqueues = 0;
  return RPD_OK;
}

static void frame_add_queue(gpu_frame *f, int32_t q) {
  for (size_t i = 0; i < f->nqueues; i++)
    if (f->queues[i] == q) return;
  if (f->nqueues == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 4;
    f->queues = rpd_xrealloc(f->queues, f->cap * sizeof *f->queues);
  }
  f->queues[f->nqueues++] = q;
}

#define FRAME_JOIN_NS 200000   /* ops closer than 200 us join one frame */

/* An op launched by thread t: extend the current frame when it belongs to
 * the same marker and touches it, else write the frame and start anew. */
static int frame_op(conv *c, thread_state *t, int32_t queue, int64_t start, int64_t end) {
  marker *m;
  gpu_frame *f = &t->frame;
  int rc;
  if (!t->depth) return RPD_OK;
  m = &t->stack[t->depth - 1];
  if (f->active && f->marker_id == m->id &&
      (llabs(start - f->end) < FRAME_JOIN_NS || llabs(f->start - end) < FRAME_JOIN_NS)) {
    if (start < f->start) f->start = start;
    if (end > f->end) f->end = end;
    frame_add_queue(f, queue);
    f->ops++;
    return RPD_OK;
  }
  if ((rc = frame_emit(c, f)) != RPD_OK) return rc;
  f->active = 1;
  f->marker_id = m->id;
  f->label = m->label;
  f->start = start;
  f->end = end;
  f->ops = 1;
  frame_add_queue(f, queue);
  return RPD_OK;
}

/* Close the markers of t that ended at or before ts (ends sort before
 * starts and launches at the same time). */
static void markers_expire(thread_state *t, int64_t ts) {
  size_t k = 0;
  for (size_t i = 0; i < t->depth; i++)
    if (t->stack[i].end > ts) t->stack[k++] = t->stack[i];
  t->depth = k;
}

static void marker_push(thread_state *t, marker m) {
  if (t->depth == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 8;
    t->stack = rpd_xrealloc(t->stack, t->cap * sizeof *t->stack);
  }
  t->stack[t->depth++] = m;
}

static void queue_step(conv *c, gpu_queue *q, int64_t ts, int d) {
  if (q->idle && d > 0) {
    q->idle = 0;
    counter_point(c, "queue", q->gpu, "Idle", ts, "idle", 1, 0, 0);
  }
  if (q->depth == 1 && d < 0) {
    q->idle = 1;
    counter_point(c, "queue", q->gpu, "Idle", ts, "idle", 1, 1, 0);
  }
  q->depth += d;
  counter_point(c, "queue", q->gpu, "QueueDepth", ts, "depth", 1, q->depth, 0);
}

/* Apply the pending op ends of q that are before `before` (all with all=1). */
static void queue_drain(conv *c, gpu_queue *q, int64_t before, int all) {
  while (q->ends.n && (all || q->ends.v[0] < before)) queue_step(c, q, i64heap_pop(&q->ends), -1);
}

/* One row, in time order: a marker opens on its thread; a launch moves its
 * GPU's queue counters (kept by op start) and its thread's marker frame
 * (kept by api start). */
static int launch_row(launch_pass *p, const lrec *l) {
  conv *c = p->c;
  thread_state *t = &p->threads[l->thread];
  markers_expire(t, l->ts);
  if (l->queue < 0) {
    marker_push(t, (marker){l->id, l->e, l->aux});
    return RPD_OK;
  }
  if (IN_WINDOW(c, l->ostart)) {
    gpu_queue *q = &p->gq[p->queue_gpu[l->queue]];
    queue_drain(c, q, l->ts, 0);
    queue_step(c, q, l->ts, 1);
    i64heap_push(&q->ends, l->oend);
  }
  if (!IN_WINDOW(c, l->ts)) return RPD_OK;
  return frame_op(c, t, l->queue, l->ostart, l->oend);
}

static int64_t *gpu_find(int64_t *gpus, size_t n, int64_t gpu) {
  return bsearch(&gpu, gpus, n, sizeof *gpus, i64_qcmp);
}

/* The launch pass over the sorted rows, then the last frame of every
 * thread and the counters' final points. */
int emit_launches(conv *c) {
  launch_pass p = {.c = c};
  int rc;
  /* A's rows (markers, the launches of the in-order links), their thread
   * and queue indexes moved to B's maps, are merged with B's launches */
  job_wait(c->job, 2);
  conv *a = c->peer;
  a->launches->err = c->err;   /* A is done with it */
  int32_t *tmap = rpd_xmalloc((a->threads.n ? a->threads.n : 1) * sizeof *tmap);
  int32_t *qmap = rpd_xmalloc((a->queues.n ? a->queues.n : 1) * sizeof *qmap);
  for (size_t i = 0; i < a->threads.n; i++)
    tmap[i] = (int32_t)pair_get(&c->threads, a->threads.a[i], a->threads.b[i]);
  for (size_t i = 0; i < a->queues.n; i++)
    qmap[i] = (int32_t)pair_get(&c->queues, a->queues.a[i], a->queues.b[i]);
  p.gq = rpd_xcalloc(c->ngpus ? c->ngpus : 1, sizeof *p.gq);
  p.queue_gpu = rpd_xcalloc(c->queues.n ? c->queues.n : 1, sizeof *p.queue_gpu);
  for (size_t i = 0; i < c->ngpus; i++) {
    p.gq[i].gpu = c->gpus[i];
    p.gq[i].idle = 1;
  }
  for (size_t i = 0; i < c->queues.n; i++) {
    int64_t *g = gpu_find(c->gpus, c->ngpus, c->queues.a[i]);
    p.queue_gpu[i] = g ? (int32_t)(g - c->gpus) : 0;
  }
  p.threads = rpd_xcalloc(c->threads.n ? c->threads.n : 1, sizeof *p.threads);
  c->peer->marks->err = c->err;   /* A is done with it */
  rc = sorter_begin(a->launches);
  if (rc == RPD_OK) rc = sorter_begin(c->launches);
  const lrec *m = rc == RPD_OK ? sorter_next(a->launches, &rc) : NULL;
  const lrec *l = rc == RPD_OK ? sorter_next(c->launches, &rc) : NULL;
  while (rc == RPD_OK && (m || l)) {
    if (m && (!l || lrec_cmp(m, l) < 0)) {
      lrec r = *m;
      r.thread = tmap[r.thread];
      if (r.queue >= 0) r.queue = qmap[r.queue];
      rc = launch_row(&p, &r);
      if (rc == RPD_OK) m = sorter_next(a->launches, &rc);
    } else {
      rc = launch_row(&p, l);
      if (rc == RPD_OK) l = sorter_next(c->launches, &rc);
    }
  }
  free(tmap);
  free(qmap);
  /* The reference drops each thread's last frame; write it. */
  for (size_t i = 0; i < c->threads.n; i++) {
    thread_state *t = &p.threads[i];
    if (rc == RPD_OK) rc = frame_emit(c, &t->frame);
    free(t->frame.queues);
    free(t->stack);
  }
  c->t_end = c->peer->t_end;
  for (size_t i = 0; i < c->ngpus; i++) {
    gpu_queue *q = &p.gq[i];
    if (rc == RPD_OK) {
      queue_drain(c, q, 0, 1);
      if (c->t_end > 0) {
        counter_point(c, "queue", q->gpu, "Idle", c->t_end, "idle", 1, q->idle, 0);
        counter_point(c, "queue", q->gpu, "QueueDepth", c->t_end, "depth", 1, q->depth, 0);
      }
    }
    i64heap_free(&q->ends);
  }
  free(p.threads);
  free(p.gq);
  free(p.queue_gpu);
  return rc;
}
