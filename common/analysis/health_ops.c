/* health_ops.c - the trace-health checks that read every op, counted in
 * one read of rocpd_op in C (health_int.h): outside_span,
 * op_without_launch, zero_length_kernel and unnamed_kernel (health.c's
 * OPS_SQL, a join per op with rocpd_string and a function call per op)
 * and queue_overlap and duplicate_op (the queues walked in rowid order).
 * Only where the values are integers and the ids fit the sets, so that
 * every comparison is the one the SQL makes; anything else is left to the
 * SQL, which counts it as it always did. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "health_int.h"
#include "intscan.h"
#include "opclass.h"

/* ------------------------------------------------------------ id sets */

int rpd__idset_add(idset *s, int64_t v)
{
  if (v < 0 || v >= IDSET_MAX)
    return 0;
  if (v >= s->nbits) {
    int64_t n = s->nbits ? s->nbits : 4096;
    while (n <= v)
      n *= 2;
    s->bits = rpd_xrealloc(s->bits, (size_t)(n / 64) * sizeof(uint64_t));
    memset(s->bits + s->nbits / 64, 0, (size_t)((n - s->nbits) / 64) * sizeof(uint64_t));
    s->nbits = n;
  }
  s->bits[v / 64] |= 1ULL << (v % 64);
  return 1;
}

void rpd__idset_free(idset *s)
{
  free(s->bits);
  memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ queues */

typedef struct end_desc {
  int64_t end, desc;
} end_desc;

static int end_desc_cmp(const void *a, const void *b)
{
  const end_desc *x = a, *y = b;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return (x->desc > y->desc) - (x->desc < y->desc);
}

/* The duplicates among the n ops of one start (sorted here). */
static int64_t run_dups(end_desc *v, size_t n)
{
  int64_t d = 0;
  if (n < 2)
    return 0;
  qsort(v, n, sizeof *v, end_desc_cmp);
  for (size_t i = 1; i < n; i++)
    d += !end_desc_cmp(&v[i - 1], &v[i]);
  return d;
}

/* One queue's state as its ops are read in (start, id) order: the run of
 * ops sharing the last start (their ends and names) and the latest end. */
struct qstate {
  int64_t gpu, queue, start, prev_end, next;   /* next: chain in the map + 1 */
  end_desc *run;
  size_t nrun, cap;
};

static void run_add(qstate *x, int64_t end, int64_t desc)
{
  if (x->nrun == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 16;
    x->run = rpd_xrealloc(x->run, x->cap * sizeof *x->run);
  }
  x->run[x->nrun++] = (end_desc){ end, desc };
}

void rpd__qwalk_init(qwalk *w)
{
  memset(w, 0, sizeof *w);
  w->sorted = 1;
}

/* The queue of op (new when first seen: its first op counted). */
static qstate *queue_of(qwalk *w, const int64_t op[5], int *fresh)
{
  int64_t key = (int64_t)((uint64_t)op[0] * 0x9E3779B97F4A7C15ULL ^ (uint64_t)op[1]), e = 0;
  rpd_i64map_get(&w->first, key, &e);
  while (e && (w->qs[e - 1].gpu != op[0] || w->qs[e - 1].queue != op[1]))
    e = w->qs[e - 1].next;
  *fresh = !e;
  if (e)
    return &w->qs[e - 1];
  if (w->nq == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 16;
    w->qs = rpd_xrealloc(w->qs, w->cap * sizeof *w->qs);
  }
  int64_t head = 0;
  rpd_i64map_get(&w->first, key, &head);
  qstate *x = &w->qs[w->nq];
  *x = (qstate){ .gpu = op[0], .queue = op[1], .start = op[2], .prev_end = op[3], .next = head };
  run_add(x, op[3], op[4]);
  rpd_i64map_put(&w->first, key, (int64_t)++w->nq);
  return x;
}

int rpd__qwalk_add(qwalk *w, const int64_t op[5])
{
  int fresh;
  if (!w->sorted)
    return 0;
  qstate *x = queue_of(w, op, &fresh);
  if (fresh)
    return 1;
  if (op[2] < x->start) {
    w->sorted = 0;
    return 0;
  }
  /* a new start closes the run of the last one (its duplicates counted) */
  if (op[2] != x->start) {
    w->dups += run_dups(x->run, x->nrun);
    x->nrun = 0;
  }
  run_add(x, op[3], op[4]);
  x->start = op[2];
  w->overlaps += op[2] < x->prev_end;
  if (op[3] > x->prev_end)
    x->prev_end = op[3];
  return 1;
}

void rpd__qwalk_finish(qwalk *w)
{
  for (size_t i = 0; w->sorted && i < w->nq; i++) {
    w->dups += run_dups(w->qs[i].run, w->qs[i].nrun);
    w->qs[i].nrun = 0;
  }
}

void rpd__qwalk_free(qwalk *w)
{
  for (size_t i = 0; i < w->nq; i++)
    free(w->qs[i].run);
  free(w->qs);
  rpd_i64map_free(&w->first);
  memset(w, 0, sizeof *w);
}

/* ------------------------------------------------------------ the pass */

/* 1 when rocpd_string's id is its INTEGER PRIMARY KEY (one row or none
 * per op in the SQL's join), else 0. */
static int string_ids_unique(rpd *r)
{
  int64_t n = 0;
  if (rpd_query_int64(r, "SELECT count(*) = 1 AND sum(name = 'id' AND pk = 1"
                         " AND upper(type) = 'INTEGER') = 1"
                         " FROM pragma_table_info('rocpd_string') WHERE pk > 0", &n))
    return 0;
  return n == 1;
}

/* The string ids whose text is a name (the SQL's unnamed test is
 * "S.string IS NULL OR S.string = ''"): 1, or 0 when they cannot serve. */
static int named_read(rpd *r, idset *named)
{
  sqlite3_stmt *st = NULL;
  int s = 0, ok = string_ids_unique(r) &&
                  rpd_prepare(r, "SELECT id FROM rocpd_string"
                                 " WHERE NOT (string IS NULL OR string = '')", &st) == RPD_OK;
  while (ok && (s = rpd_step(r, st)) == SQLITE_ROW)
    ok = sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
         rpd__idset_add(named, sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  return ok && s == SQLITE_DONE;
}

/* The span test's bounds: min(start) - 1 s and max(end) + 1 s of rocpd_api
 * (*have 0 without calls): 1, or 0 when a value is not an integer or a
 * bound overflows (the SQL's arithmetic would turn real). */
static int span_read(rpd *r, int *have, int64_t *lo, int64_t *hi)
{
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  *have = 0;
  if (!rpd_check_span(r, "rocpd_api", have, &mn, &mx)) {   /* else the trace check's read */
    int s;
    if (rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, start, \"end\")",
                         2, 3u))
      return 0;
    while ((s = rpd_intscan_row(r, &sc, &v, &ints)) == 1 && (ints & 3u) == 3u) {
      mn = v[0] < mn ? v[0] : mn;
      mx = v[1] > mx ? v[1] : mx;
      *have = 1;
    }
    rpd_intscan_close(&sc);
    if (s != 0)   /* a value that is not an integer, or an error */
      return 0;
  }
  return !*have || (!__builtin_sub_overflow(mn, 1000000000, lo) &&
                    !__builtin_add_overflow(mx, 1000000000, hi));
}

enum { C_ID, C_GPU, C_QUEUE, C_START, C_END, C_DESC, C_TYPE, NCOLS };
#define MUST (1u << C_ID | 1u << C_START | 1u << C_END | 1u << C_TYPE)
#define GPU_MUST (1u << C_GPU | 1u << C_QUEUE | 1u << C_DESC)

static const char ops_sql[] =
  "SELECT 1 FROM rocpd_op WHERE rpd_intscan(?1, id, gpuId, queueId, start, \"end\","
  " description_id, opType_id) ORDER BY id";

/* The read of the ops into c and w: 1 counted, 0 the SQL's to do (a value
 * it cannot compare as the SQL does, a kernel or copy without an integer
 * gpuId, queueId or description_id (NULL included), or a read error). */
static int ops_read(rpd *r, const rpd_opclass_map *m, const idset *linked, const idset *named,
                    int span, int64_t lo, int64_t hi, ops_counts *c, qwalk *w)
{
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int s = 0, ok = 1, cls = 0;
  int64_t last_type = 0;
  int sorts = 1;   /* no rowid id: ORDER BY id sorts, and the scan refuses */
  if (rpd_plan_sorts(r, ops_sql, &sorts) || sorts ||
      rpd_intscan_open(r, &sc, ops_sql, NCOLS, (1u << NCOLS) - 1))
    return 0;
  for (int first = 1; ok && (s = rpd_intscan_row(r, &sc, &v, &ints)) == 1; first = 0) {
    if ((ints & MUST) != MUST) {
      ok = 0;
      break;
    }
    if (first || v[C_TYPE] != last_type) {
      cls = rpd_opclass_of(m, v[C_TYPE]);
      last_type = v[C_TYPE];
    }
    c->outside += span && (v[C_START] < lo || v[C_END] > hi);
    if (cls != RPD_OPCLASS_KERNEL && cls != RPD_OPCLASS_COPY)
      continue;
    if ((ints & GPU_MUST) != GPU_MUST) {
      ok = 0;
      break;
    }
    c->unlaunched += !rpd__idset_has(linked, v[C_ID]);
    int64_t op[5] = { v[C_GPU], v[C_QUEUE], v[C_START], v[C_END], v[C_DESC] };
    rpd__qwalk_add(w, op);
    if (cls != RPD_OPCLASS_KERNEL)
      continue;
    c->zero_len += v[C_END] == v[C_START];
    c->unnamed += !rpd__idset_has(named, v[C_DESC]);
  }
  rpd_intscan_close(&sc);
  if (s < 0)
    return 0;   /* the SQL meets the same error and reports it */
  return ok;
}

/* Count the ops (health_int.h). */
int rpd__health_ops_pass(rpd *r, const idset *linked_ops, ops_counts *c, int *done)
{
  idset named = {0};
  qwalk w;
  int64_t lo = 0, hi = 0;
  int span = 0, ok;
  const rpd_opclass_map *m = rpd_opclass_now(r);
  memset(c, 0, sizeof *c);
  *done = 0;
  rpd__qwalk_init(&w);
  ok = m && named_read(r, &named) && span_read(r, &span, &lo, &hi) &&
       ops_read(r, m, linked_ops, &named, span, lo, hi, c, &w) == 1;
  if (ok) {
    rpd__qwalk_finish(&w);
    c->queues_done = w.sorted;
    c->overlaps = w.overlaps;
    c->dups = w.dups;
  } else {
    memset(c, 0, sizeof *c);
  }
  rpd__qwalk_free(&w);
  rpd__idset_free(&named);
  rpd_clearerr();   /* whatever stopped the pass, the SQL meets it again */
  *done = ok;
  return RPD_OK;
}

/* ------------------------------------------------------------ launches */

/* The ids of the names query q (a parenthesized subquery of rocpd_string
 * ids) into *s: 1, or 0 when an id is not an integer the set holds. */
static int names_read(rpd *r, const char *q, idset *s)
{
  sqlite3_stmt *st = NULL;
  char *sql = rpd_xasprintf("SELECT id FROM %s", q);
  int n = 0, ok = rpd_prepare(r, sql, &st) == RPD_OK;
  free(sql);
  while (ok && (n = rpd_step(r, st)) == SQLITE_ROW)
    ok = sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
         rpd__idset_add(s, sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  return ok && n == SQLITE_DONE;
}

/* A call of a thread: a capture call (is_begin tells which) or an
 * unlinked launch. */
typedef struct tcall {
  int64_t pid, tid, start, id;
  int is_begin, pad;
} tcall;

static int tcall_cmp(const void *a, const void *b)
{
  const tcall *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

typedef struct tcalls {
  tcall *v;
  size_t n, cap;
} tcalls;

static void tcalls_add(tcalls *c, const tcall *t)
{
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->v = rpd_xrealloc(c->v, c->cap * sizeof *c->v);
  }
  c->v[c->n++] = *t;
}

/* The unlinked launches kept at most (32 MB); past them the SQL counts. */
enum { MAX_LAUNCHES = 1 << 20 };

/* The launches no capture holds: both lists sorted by thread, start, id;
 * a capture runs from its Begin call to the thread's next capture call
 * (the end of time without one), so on one thread each ends at or before
 * the next one starts and the last that starts at or before a launch is
 * the only one that can hold it. */
static int64_t count_free(tcalls *cap, tcalls *lau)
{
  int64_t n = 0;
  size_t k = 0, open = (size_t)-1;     /* the last Begin at or before */
  if (cap->n > 1)
    qsort(cap->v, cap->n, sizeof *cap->v, tcall_cmp);
  if (lau->n > 1)
    qsort(lau->v, lau->n, sizeof *lau->v, tcall_cmp);
  for (size_t i = 0; i < lau->n; i++) {
    const tcall *a = &lau->v[i];
    /* captures of earlier threads, or of this one starting by a->start */
    while (k < cap->n && (cap->v[k].pid < a->pid ||
                          (cap->v[k].pid == a->pid && (cap->v[k].tid < a->tid ||
                           (cap->v[k].tid == a->tid && cap->v[k].start <= a->start))))) {
      if (cap->v[k].is_begin)
        open = k;
      k++;
    }
    int held = 0;
    if (open != (size_t)-1 && cap->v[open].pid == a->pid && cap->v[open].tid == a->tid) {
      /* its end: the start of the thread's next capture call */
      size_t e = open + 1;
      held = e >= cap->n || cap->v[e].pid != a->pid || cap->v[e].tid != a->tid ||
             a->start <= cap->v[e].start;
    }
    n += !held;
  }
  return n;
}

/* Count the unlinked launches (health_int.h). */
int rpd__health_launches_pass(rpd *r, const idset *linked_apis, int64_t *n, int *done)
{
  enum { C_ID, C_PID, C_TID, C_START, C_NAME, NC };
  const unsigned all = (1u << NC) - 1;
  idset launch = {0}, begin = {0}, capture = {0};
  tcalls cap = {0}, lau = {0};
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int s = 0, ok = string_ids_unique(r) && names_read(r, LAUNCH_NAMES, &launch) &&
                  names_read(r, BEGIN_CAPTURE_NAMES, &begin) &&
                  names_read(r, CAPTURE_CALL_NAMES, &capture);
  *n = 0;
  if (ok && rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, id, pid,"
                             " tid, start, apiName_id)", NC, all))
    ok = 0;
  else if (ok) {
    while (ok && (s = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
      if (!(ints & 1u << C_NAME)) {
        ok = 0;
        break;
      }
      int is_cap = rpd__idset_has(&capture, v[C_NAME]);
      /* rpd_linked(1, A.id) is 0 for an id that is not an integer */
      int linked = (ints & 1u << C_ID) && rpd__idset_has(linked_apis, v[C_ID]);
      int is_launch = rpd__idset_has(&launch, v[C_NAME]) && !linked;
      if (!is_cap && !is_launch)
        continue;
      if ((ints & all) != all || (is_launch && lau.n == MAX_LAUNCHES)) {
        ok = 0;
        break;
      }
      tcall t = { .pid = v[C_PID], .tid = v[C_TID], .start = v[C_START], .id = v[C_ID],
                  .is_begin = rpd__idset_has(&begin, v[C_NAME]) };
      if (is_cap)
        tcalls_add(&cap, &t);
      if (is_launch)
        tcalls_add(&lau, &t);
    }
    rpd_intscan_close(&sc);
    ok = ok && s == 0;
  }
  if (ok)
    *n = count_free(&cap, &lau);
  free(cap.v);
  free(lau.v);
  rpd__idset_free(&launch);
  rpd__idset_free(&begin);
  rpd__idset_free(&capture);
  rpd_clearerr();   /* whatever stopped the pass, the SQL meets it again */
  *done = ok;
  return RPD_OK;
}
