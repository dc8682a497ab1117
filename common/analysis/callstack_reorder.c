/* callstack_reorder.c - the call-stack walk's reorder buffer (see
 * callstack_int.h): rocpd_api read in rowid order, walked in time order. */
#include <stdlib.h>
#include <string.h>

#include "callstack_int.h"
#include "check.h"
#include "intscan.h"
#include "xsort.h"

/* rocpd_api in rowid order, a batch at a time (intscan.h) */
static const char scan_sql[] =
    "SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, pid, tid, id, start, end)";
enum { PID, TID, ID, START, END };

/* The calls held: 2^15 (1 MB) per thread seen so far, at least 2^18 (8
 * MB) and at most 2^19 (16 MB; with the queues' slack up to 64 MB beside
 * SQLite's 64 MB page cache, within the 128 MB the tools keep to; 2^20
 * took a 64-thread trace to 150 MB, where the C sort's fallback keeps it
 * bounded).  Each thread holds the calls inside the range it has open (a
 * caller comes after its callees), so the buffer needed grows with the
 * threads, not with the trace; sort_max, when tests set it, instead. */
static size_t sort_max;

void rpd_callstack_set_sort_limit(size_t calls) { sort_max = calls; }

static size_t hold_limit(const walker *w) {
  size_t per_thread = w->nthreads << 15;
  if (sort_max) return sort_max;
  return per_thread < (size_t)1 << 18 ? (size_t)1 << 18
       : per_thread > (size_t)1 << 19 ? (size_t)1 << 19 : per_thread;
}

typedef struct call {
  int64_t start, end, id;
  int32_t pid, tid;
} call;

/* Walking order: start, end DESC, id (ids are unique: a total order);
 * < 0, 0, > 0 as qsort's. */
static inline int walk_cmp(int64_t as, int64_t ae, int64_t ai, int64_t bs, int64_t be,
                           int64_t bi) {
  if (as != bs) return as < bs ? -1 : 1;
  if (ae != be) return ae > be ? -1 : 1;
  return ai < bi ? -1 : ai > bi;
}

static inline int call_less(const call *x, const call *y) {
  return walk_cmp(x->start, x->end, x->id, y->start, y->end, y->id) < 0;
}

/* Open the scan of rocpd_api in rowid order. */
static int calls_open(walker *w, rpd_intscan *sc) {
  return rpd_intscan_open(w->r, sc, scan_sql, 5, 1u << START | 1u << END | RPD_INTSCAN_UNCHANGED);
}

/* 1 when row v of that scan is a call the walks in C take: integer times
 * (else SQLite compares them) passing the trace check's rule when the walk
 * checks (check.h; else the message comes from its query). */
static int walkable(const walker *w, const int64_t *v, unsigned ints) {
  return (ints & (1u << START | 1u << END)) == (1u << START | 1u << END) &&
         (!w->check || (rpd_ns_sane(v[START]) && rpd_ns_sane(v[END]) && v[END] >= v[START]));
}

/* The reorder buffer: the calls read but not walked, in queues of up to
 * RUNS per thread, each kept in walking order (a ring: walked from the
 * front, inserted from the back), and a min-heap of the non-empty queues
 * by their front call.  Walking the smallest front walks the smallest call
 * held, in the order SQLite's sort gives.  A tracer writes a thread's calls
 * when they end: a call goes in at the back, a caller just before its own
 * callees, found by a scan back over them (a call tree's size, not the
 * buffer's); a call far back in every queue of its thread opens another
 * (reorder_queue). */
typedef struct queue {
  call *v;
  size_t head, n, cap;  /* calls v[head .. head + n) */
  size_t hpos;          /* index in the heap of queues; SIZE_MAX if not in it */
} queue;

typedef struct reorder {
  queue *q;             /* up to RUNS per thread, in order of creation */
  size_t nq, capq;
  size_t *heap;         /* indexes into q, min-heap by front call */
  size_t nheap;
  size_t held;          /* calls in all queues */
  int64_t moved;        /* calls shifted by insertions, against worst cases */
} reorder;

static inline const call *front(const reorder *o, size_t qi) {
  return &o->q[qi].v[o->q[qi].head];
}

static void heap_set(reorder *o, size_t i, size_t qi) {
  o->heap[i] = qi;
  o->q[qi].hpos = i;
}

static void heap_up(reorder *o, size_t i) {
  size_t qi = o->heap[i];
  while (i > 0 && call_less(front(o, qi), front(o, o->heap[(i - 1) / 2]))) {
    heap_set(o, i, o->heap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  heap_set(o, i, qi);
}

static void heap_down(reorder *o, size_t i) {
  size_t qi = o->heap[i];
  for (;;) {
    size_t k = 2 * i + 1;
    if (k >= o->nheap) break;
    if (k + 1 < o->nheap && call_less(front(o, o->heap[k + 1]), front(o, o->heap[k]))) k++;
    if (!call_less(front(o, o->heap[k]), front(o, qi))) break;
    heap_set(o, i, o->heap[k]);
    i = k;
  }
  heap_set(o, i, qi);
}

/* Put c into queue qi at its place in walking order. */
static void queue_insert(reorder *o, size_t qi, const call *c) {
  queue *q = &o->q[qi];
  if (q->head + q->n == q->cap) {
    if (q->head >= q->cap / 2 && q->head > 0) {  /* room at the front: slide */
      memmove(q->v, q->v + q->head, q->n * sizeof *q->v);
      q->head = 0;
    } else {
      q->cap = q->cap ? 2 * q->cap : 256;
      q->v = rpd_xrealloc(q->v, q->cap * sizeof *q->v);
    }
  }
  call *b = q->v + q->head;
  size_t at = q->n;
  while (at > 0 && call_less(c, &b[at - 1])) at--;
  if (at < q->n) {
    memmove(&b[at + 1], &b[at], (q->n - at) * sizeof *b);
    o->moved += (int64_t)(q->n - at);
  }
  b[at] = *c;
  q->n++;
  o->held++;
  if (q->hpos == SIZE_MAX) {  /* the heap has room for every queue */
    o->heap[o->nheap] = qi;
    q->hpos = o->nheap++;
    heap_up(o, q->hpos);
  } else if (at == 0) {
    heap_up(o, q->hpos);
  }
}

/* Take the smallest call held (o->held > 0). */
static call reorder_pop(reorder *o) {
  size_t qi = o->heap[0];
  queue *q = &o->q[qi];
  call c = q->v[q->head++];
  q->n--;
  o->held--;
  /* a queue much emptier than its buffer gives half back: all buffers
   * stay within about 4x the calls held (2^18 at most), whichever queues
   * held them before, so memory is flat in the trace's length */
  if (q->cap > 1024 && q->n < q->cap / 4) {
    memmove(q->v, q->v + q->head, q->n * sizeof *q->v);
    q->head = 0;
    q->cap /= 2;
    q->v = rpd_xrealloc(q->v, q->cap * sizeof *q->v);
  }
  if (q->n == 0) {
    q->head = 0;
    q->hpos = SIZE_MAX;
    if (--o->nheap > 0) {
      heap_set(o, 0, o->heap[o->nheap]);
      heap_down(o, 0);
    }
  } else {
    heap_down(o, 0);
  }
  return c;
}

/* How many calls of queue qi c must go before, counted up to cap + 1. */
static size_t queue_depth(const reorder *o, size_t qi, const call *c, size_t cap) {
  const queue *q = &o->q[qi];
  const call *b = q->v + q->head;
  size_t k = 0;
  while (k < q->n && k <= cap && call_less(c, &b[q->n - 1 - k])) k++;
  return k;
}

/* The queue of thread t for call c: the first of its queues where c goes
 * at the back, else the one where it goes least far back if that is at
 * most RUN_SHIFT calls, else a new queue while t has fewer than RUNS, else
 * that least far one (queues created on demand, their indexes kept in t). */
static size_t reorder_queue(reorder *o, thread *t, const call *c) {
  size_t best = 0, best_k = SIZE_MAX;
  int r;
  /* first a queue c extends at the back (one compare each): a call of the
   * second run would otherwise count its depth in the first, up to
   * RUN_SHIFT compares */
  for (r = 0; r < RUNS && t->qi[r]; r++) {
    const queue *q = &o->q[t->qi[r] - 1];
    if (q->n == 0 || !call_less(c, &q->v[q->head + q->n - 1]))
      return (size_t)t->qi[r] - 1;
  }
  for (r = 0; r < RUNS && t->qi[r]; r++) {
    size_t qi = (size_t)t->qi[r] - 1, k = queue_depth(o, qi, c, RUN_SHIFT);
    if (k == 0) return qi;
    if (k < best_k) best = qi, best_k = k;
  }
  if (best_k <= RUN_SHIFT || r == RUNS) return best;
  if (o->nq == o->capq) {
    o->capq = o->capq ? 2 * o->capq : 16;
    o->q = rpd_xrealloc(o->q, o->capq * sizeof *o->q);
    o->heap = rpd_xrealloc(o->heap, o->capq * sizeof *o->heap);
  }
  o->q[o->nq] = (queue){.hpos = SIZE_MAX};
  t->qi[r] = (int64_t)++o->nq;
  return o->nq - 1;
}

static void reorder_free(reorder *o) {
  for (size_t i = 0; i < o->nq; i++) free(o->q[i].v);
  free(o->q);
  free(o->heap);
}

static int step_held_call(walker *w, const call *c) {
  frame f = {c->id, c->start, c->end, 0};
  return cs_step_call(w, c->pid, c->tid, &f);
}

/* Feed every call to step_call in walking order, reading rocpd_api in
 * rowid order through the reorder buffer of at most hold_limit calls
 * (tracers write a call when it ends: rowid order is time order but for
 * the calls open meanwhile).  *fallback = 1 (and the walk is partial) when
 * a call arrives after one that must follow it has been walked, a value
 * does not fit (a non-integer time, a 64-bit pid/tid), or the calls come so
 * far out of order that placing them would cost more than a sort: SQLite
 * must sort. */
int cs_walk_reorder(walker *w, int *fallback) {
  rpd_intscan sc;
  reorder o = {0};
  call last = {0};
  int have_last = 0, more = 0;
  int64_t seen = 0;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int rc = calls_open(w, &sc);
  *fallback = 0;
  while (rc == RPD_OK && !w->gpu.redo && (more = rpd_intscan_row(w->r, &sc, &v, &ints)) > 0) {
    int64_t pid = v[PID], tid = v[TID];
    if (pid != (int32_t)pid || tid != (int32_t)tid || !walkable(w, v, ints)) {
      *fallback = 1;
      break;
    }
    call c = {v[START], v[END], v[ID], (int32_t)pid, (int32_t)tid};
    if (have_last && call_less(&c, &last)) {
      *fallback = 1;
      break;
    }
    queue_insert(&o, reorder_queue(&o, cs_thread_get(w, pid, tid), &c), &c);
    if (o.moved > 64 * ++seen + 4096) {   /* far from rowid order: sort */
      *fallback = 1;
      break;
    }
    if (o.held > hold_limit(w)) {
      last = reorder_pop(&o);
      have_last = 1;
      rc = step_held_call(w, &last);
    }
  }
  if (rc == RPD_OK && !*fallback && more < 0) rc = -more;
  rpd_intscan_close(&sc);
  while (rc == RPD_OK && !*fallback && !w->gpu.redo && o.held) {
    call c = reorder_pop(&o);
    rc = step_held_call(w, &c);
  }
  reorder_free(&o);
  return rc;
}

/* ------------------------------------------------------------ sorted walk */

/* When the reorder buffer cannot give walking order (a caller held back
 * past the buffer, as when many threads each keep a long range open), the
 * calls are sorted in C in bounded memory (xsort.h: a buffer of
 * SORT_BYTES, sorted runs spilled to a scratch file and merged), in the
 * order of SQLite's `ORDER BY start, end DESC, id` (ids are unique: one
 * order).  Only integers: a call whose start or end is not one, or that
 * fails the trace check, leaves the sort to SQLite. */
enum { SORT_BYTES = 16 << 20 };

static int sql_only;   /* tests: skip the C sort */

void rpd_callstack_set_sql_sort(int on) { sql_only = on; }

int cs_sql_sort_only(void) { return sql_only; }

typedef struct scall {
  int64_t start, end, id, pid, tid;
} scall;

static inline int scall_cmp(const void *pa, const void *pb) {
  const scall *a = pa, *b = pb;
  return walk_cmp(a->start, a->end, a->id, b->start, b->end, b->id);
}

XSORT_DEFINE(scall_sort, scall, scall_cmp)

int cs_walk_sorted(walker *w, int *fallback) {
  rpd_intscan sc;
  const int64_t *v = NULL;
  const void *p = NULL;
  unsigned ints = 0;
  int more = 0, got;
  xsort *x = NULL;
  int rc = calls_open(w, &sc);

  if (rc == RPD_OK) {
    x = xsort_new(sizeof(scall), scall_cmp, scall_sort, SORT_BYTES);
    xsort_set_merge(x, scall_sort_merge);
  }
  *fallback = 0;
  while (rc == RPD_OK && (more = rpd_intscan_row(w->r, &sc, &v, &ints)) > 0) {
    if (!walkable(w, v, ints)) {
      *fallback = 1;
      break;
    }
    scall c = {v[START], v[END], v[ID], v[PID], v[TID]};
    rc = xsort_add(x, &c);
  }
  if (rc == RPD_OK && !*fallback && more < 0) rc = -more;
  rpd_intscan_close(&sc);
  if (rc == RPD_OK && !*fallback) rc = xsort_done(x);
  while (rc == RPD_OK && !*fallback && !w->gpu.redo && (got = xsort_next(x, &p)) != 0) {
    if (got < 0) {
      rc = -got;
      break;
    }
    const scall *c = p;
    frame f = {c->id, c->start, c->end, 0};
    rc = cs_step_call(w, c->pid, c->tid, &f);
  }
  xsort_free(x);
  return rc;
}
