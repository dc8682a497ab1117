#include "tracing.h"

/* ------------------------------------------------------------ launch pass */

/* The rows of the launch pass go through an external sort (bounded memory);
 * then one pass in time order keeps, per thread, the open UserMarker ranges
 * and the GPU frame being built from the ops launched under the innermost
 * one, and per GPU the queue depth. */
int launch_add(conv *c, const lrec *r) { return sorter_add(c->launches, r); }

typedef struct marker {
  int64_t id, end, args_id;
} marker;

typedef struct gpu_frame {
  int active;
  size_t thread;        /* its thread's index (its label cursor) */
  int64_t marker_id, args_id;
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

/* Cursors on the args table for the marker frame labels: the rows with id
 * >= ?1 in id order.  A thread's frames come in time order and their
 * markers' args ids mostly ascend: its cursor steps forward (up to
 * LABEL_STEPS rows) instead of a look-up from the root per frame, and is
 * bound again only when the id is behind it or far ahead.  Threads
 * interleave in time, so each has a cursor of its own (thread index modulo
 * LABEL_CURSORS; the statements are made on first use). */
#define LABEL_STEPS 64
#define LABEL_CURSORS 16

typedef struct label_cursor {
  sqlite3_stmt *look;
  int64_t at;           /* look is on this row (on) */
  int on;
} label_cursor;

/* Move cursor k onto args row id: 1 when it is there, 0 when no row has
 * that id, -1 on error (in c->err). */
static int label_seek(conv *c, size_t k, int64_t id) {
  label_cursor *l = &c->labels[k % LABEL_CURSORS];
  int s = SQLITE_ROW, steps = 0;
  if (!l->look && conv_prepare(c, &l->look, "SELECT id, string FROM \"%w\" WHERE id >= ?1 ORDER BY id") != RPD_OK)
    return -1;
  if (!l->on || l->at > id || id - l->at > LABEL_STEPS) {
    sqlite3_reset(l->look);
    sqlite3_bind_int64(l->look, 1, id);
    l->on = 0;
    s = sqlite3_step(l->look);
  } else if (l->at == id) {
    return 1;
  } else {
    s = sqlite3_step(l->look);
  }
  for (;;) {
    if (s != SQLITE_ROW) {
      l->on = 0;
      if (s == SQLITE_DONE) return 0;
      cerr(c->err, RPD_ESQL, "%s: %s", sqlite3_sql(l->look), sqlite3_errmsg(c->db));
      return -1;
    }
    l->on = 1;
    l->at = sqlite3_column_int64(l->look, 0);
    if (l->at >= id) return l->at == id;
    if (++steps > LABEL_STEPS) return label_seek(c, k, id);   /* rebinds: the id is behind it */
    s = sqlite3_step(l->look);
  }
}

/* Write the frame once per GPU queue it touched, named by its marker label. */
static int frame_emit(conv *c, gpu_frame *f) {
  char desc[64];
  const char *name = "";
  size_t nlen = 0;
  int k;
  if (!f->active) return RPD_OK;
  f->active = 0;
  if ((k = label_seek(c, f->thread, f->args_id)) < 0) return RPD_ESQL;
  if (k) {
    sqlite3_stmt *look = c->labels[f->thread % LABEL_CURSORS].look;
    name = col_text(look, 1);
    nlen = (size_t)sqlite3_column_bytes(look, 1);
  }
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
  f->args_id = m->args_id;
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
  for (size_t i = 0; i < c->threads.n; i++) p.threads[i].frame.thread = i;
  label_cursor labels[LABEL_CURSORS] = {{0}};
  c->labels = labels;
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
  for (size_t i = 0; i < LABEL_CURSORS; i++) sqlite3_finalize(labels[i].look);
  c->labels = NULL;
  free(p.threads);
  free(p.gq);
  free(p.queue_gpu);
  return rc;
}
