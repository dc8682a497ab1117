/* callstack.c - build ext_callstack (see callstack.h, docs/rpd-callstack.md).
 *
 * One streaming pass over the api calls sorted by (start, end DESC, id),
 * all threads interleaved: each (pid, tid) keeps only its open frames, found
 * through a small hash table.  Ends are not in the stream: before a call
 * starts, every open frame of its thread whose end is <= that start is
 * closed, earliest end first (the innermost first on equal ends).  Memory is
 * the open frames of all threads, not the trace.
 *
 * Sorting by start first (not pid, tid, start) lets SQLite's sorter compare
 * mostly on one integer; the gpu time per call is summed once into a temp
 * table keyed by api id, so the join is a rowid lookup.
 */
#include <stdlib.h>
#include <string.h>

#include "callstack.h"

static const char table_sql[] =
    "CREATE TABLE IF NOT EXISTS \"ext_callstack\" ("
    "\"id\" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "
    "\"parent_id\" integer NOT NULL REFERENCES \"rocpd_api\" (\"id\") "
    "DEFERRABLE INITIALLY DEFERRED, "
    "\"child_id\" integer NOT NULL REFERENCES \"rocpd_api\" (\"id\") "
    "DEFERRABLE INITIALLY DEFERRED, "
    "\"depth\" integer NOT NULL, "
    "\"cpu_time\" integer NOT NULL DEFAULT 0, "
    "\"gpu_time\" integer NOT NULL DEFAULT 0)";

static const char drop_sql[] =
    "DROP VIEW IF EXISTS callStack_inclusive;"
    "DROP VIEW IF EXISTS callStack_exclusive;"
    "DROP VIEW IF EXISTS callStack_inclusive_name;"
    "DROP VIEW IF EXISTS callStack_exclusive_name;"
    "DROP TABLE IF EXISTS ext_callstack;";

static const char gpu_sql[] =
    "DROP TABLE IF EXISTS temp._rpd_gpu_time;"
    "CREATE TEMP TABLE _rpd_gpu_time(api_id INTEGER PRIMARY KEY, "
    "gpu_time INTEGER NOT NULL);"
    "INSERT INTO temp._rpd_gpu_time SELECT A.api_id, sum(B.end - B.start) "
    "FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id "
    "GROUP BY A.api_id ORDER BY A.api_id;";

static const char read_sql[] =
    "SELECT X.pid, X.tid, X.id, X.start, X.end, G.gpu_time "
    "FROM rocpd_api X LEFT JOIN temp._rpd_gpu_time G ON G.api_id = X.id "
    "ORDER BY X.start, X.end DESC, X.id";

/* Rows go in BATCH at a time through one multi-row INSERT: a statement
 * per row would pay the statement overhead (and AUTOINCREMENT's
 * sqlite_sequence update) per row.  The tail goes through the 1-row one.
 * SQLite numbers the rows: an explicit id costs a uniqueness seek each. */
#define BATCH 128
#define NCOLS 5
static const char insert_head[] =
    "INSERT INTO ext_callstack(parent_id, child_id, depth, cpu_time, "
    "gpu_time) VALUES ";

typedef struct frame {
  int64_t id, start, end, gpu, child_cpu;
} frame;

typedef struct thread {
  int64_t pid, tid;
  int used, depth, cap;
  frame *stack;
} thread;

typedef struct walker {
  rpd *r;
  sqlite3_stmt *ins_batch, *ins_one;
  int64_t pend[BATCH * NCOLS];
  int npend;
  thread *threads;        /* open-addressing table, cap a power of two */
  size_t nthreads, cap;
  rpd_callstack_stats st;
} walker;

static int prepare_insert(rpd *r, int rows, sqlite3_stmt **st) {
  rpd_buf b = {0};
  rpd_buf_puts(&b, insert_head);
  for (int i = 0; i < rows; i++)
    rpd_buf_puts(&b, i ? ",(?,?,?,?,?)" : "(?,?,?,?,?)");
  int rc = rpd_prepare(r, b.s, st);
  rpd_buf_free(&b);
  return rc;
}

/* Insert `rows` pending rows starting at pending row `from` with s. */
static int insert_rows(walker *w, sqlite3_stmt *s, int rows, int from) {
  for (int i = 0; i < rows * NCOLS; i++)
    sqlite3_bind_int64(s, i + 1, w->pend[from * NCOLS + i]);
  int rc = rpd_step(w->r, s);
  sqlite3_reset(s);
  return rc < 0 ? -rc : RPD_OK;
}

/* Write every pending row. */
static int flush(walker *w) {
  int rc = RPD_OK;
  if (w->npend == BATCH)
    rc = insert_rows(w, w->ins_batch, BATCH, 0);
  else
    for (int i = 0; i < w->npend && rc == RPD_OK; i++)
      rc = insert_rows(w, w->ins_one, 1, i);
  w->npend = 0;
  return rc;
}

static int emit(walker *w, int64_t parent, int64_t child, int64_t depth,
                int64_t cpu, int64_t gpu) {
  int64_t *p = &w->pend[w->npend++ * NCOLS];
  p[0] = parent, p[1] = child, p[2] = depth, p[3] = cpu, p[4] = gpu;
  w->st.rows++;
  return w->npend == BATCH ? flush(w) : RPD_OK;
}

static size_t thread_slot(const thread *tab, size_t cap, int64_t pid,
                          int64_t tid) {
  uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ULL ^
               (uint64_t)tid * 0xc2b2ae3d27d4eb4fULL;
  size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);
  while (tab[i].used && (tab[i].pid != pid || tab[i].tid != tid))
    i = (i + 1) & (cap - 1);
  return i;
}

/* The thread (pid, tid), created on first sight. */
static thread *thread_get(walker *w, int64_t pid, int64_t tid) {
  if (2 * (w->nthreads + 1) > w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    thread *tab = rpd_xcalloc(cap, sizeof *tab);
    for (size_t i = 0; i < w->cap; i++)
      if (w->threads[i].used)
        tab[thread_slot(tab, cap, w->threads[i].pid, w->threads[i].tid)] =
            w->threads[i];
    free(w->threads);
    w->threads = tab, w->cap = cap;
  }
  thread *t = &w->threads[thread_slot(w->threads, w->cap, pid, tid)];
  if (!t->used) {
    *t = (thread){.pid = pid, .tid = tid, .used = 1};
    w->nthreads++;
  }
  return t;
}

/* Close the frame at index k: its row, then one per frame below it. */
static int close_frame(walker *w, thread *t, int k) {
  frame f = t->stack[k];
  int64_t cpu = f.end - f.start - f.child_cpu;
  int rc = emit(w, f.id, f.id, 0, cpu, f.gpu);
  for (int j = k - 1; j >= 0 && rc == RPD_OK; j--) {
    t->stack[j].child_cpu += cpu;
    rc = emit(w, t->stack[j].id, f.id, k - j, cpu, f.gpu);
  }
  memmove(&t->stack[k], &t->stack[k + 1],
          (size_t)(t->depth - k - 1) * sizeof(frame));
  t->depth--;
  return rc;
}

/* Close every open frame of t whose end is <= time, earliest end first; on
 * equal ends the frame nearer the top (the inner one) first. */
static int close_until(walker *w, thread *t, int64_t time) {
  int rc = RPD_OK;
  while (t->depth > 0 && rc == RPD_OK) {
    int k = t->depth - 1;
    for (int j = k - 1; j >= 0; j--)
      if (t->stack[j].end < t->stack[k].end) k = j;
    if (t->stack[k].end > time) break;
    rc = close_frame(w, t, k);
  }
  return rc;
}

static int push(walker *w, thread *t, const frame *f) {
  if (t->depth > 0 && f->end > t->stack[t->depth - 1].end) w->st.overlaps++;
  if (t->depth == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->stack = rpd_xrealloc(t->stack, (size_t)t->cap * sizeof(frame));
  }
  t->stack[t->depth++] = *f;
  if (t->depth > w->st.max_depth) w->st.max_depth = t->depth;
  /* a zero-length (or inverted) call starts and ends in place */
  if (f->end <= f->start) return close_frame(w, t, t->depth - 1);
  return RPD_OK;
}

static int walk(walker *w) {
  sqlite3_stmt *rd = NULL;
  int s = SQLITE_DONE;
  int rc = rpd_exec(w->r, gpu_sql);
  if (rc == RPD_OK) rc = rpd_prepare(w->r, read_sql, &rd);
  if (rc == RPD_OK) rc = prepare_insert(w->r, BATCH, &w->ins_batch);
  if (rc == RPD_OK) rc = prepare_insert(w->r, 1, &w->ins_one);
  while (rc == RPD_OK && (s = rpd_step(w->r, rd)) == SQLITE_ROW) {
    thread *t = thread_get(w, sqlite3_column_int64(rd, 0),
                           sqlite3_column_int64(rd, 1));
    frame f = {sqlite3_column_int64(rd, 2), sqlite3_column_int64(rd, 3),
               sqlite3_column_int64(rd, 4), sqlite3_column_int64(rd, 5), 0};
    rc = close_until(w, t, f.start);
    if (rc == RPD_OK) rc = push(w, t, &f);
    if ((++w->st.calls & 0xffff) == 0)
      rpd_progress("call stack", w->st.calls, -1);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  for (size_t i = 0; i < w->cap && rc == RPD_OK; i++)
    if (w->threads[i].used) rc = close_until(w, &w->threads[i], INT64_MAX);
  if (rc == RPD_OK) rc = flush(w);
  if (w->st.calls >= 0x10000) rpd_progress("call stack", -1, -1);
  w->st.threads = (int64_t)w->nthreads;
  sqlite3_finalize(rd);
  sqlite3_finalize(w->ins_batch);
  sqlite3_finalize(w->ins_one);
  if (rc == RPD_OK) rc = rpd_exec(w->r, "DROP TABLE temp._rpd_gpu_time");
  return rc;
}

int rpd_callstack_drop(rpd *r) {
  int rc = rpd_exec(r, drop_sql);
  if (rc == RPD_OK) rc = rpd_meta_clear(r, RPD_CALLSTACK_TABLE_TAG);
  if (rc == RPD_OK) rc = rpd_meta_clear(r, RPD_CALLSTACK_DONE_TAG);
  return rc;
}

int rpd_callstack_present(rpd *r) {
  char *v = NULL;
  int have = rpd_meta_get(r, RPD_CALLSTACK_DONE_TAG, &v) == RPD_OK &&
             rpd_table_exists(r, "ext_callstack");
  free(v);
  return have;
}

int rpd_callstack_build(rpd *r, rpd_callstack_stats *st) {
  walker w = {.r = r};
  int rc = rpd_exec(r, drop_sql);
  if (rc == RPD_OK) rc = rpd_exec(r, table_sql);
  if (rc == RPD_OK) rc = walk(&w);
  /* the *_name views read the utility view `api`; add it if missing */
  if (rc == RPD_OK && !rpd_table_exists(r, "api") &&
      rpd_view_sql("api", r->schema))
    rc = rpd_view_install(r, "api");
  if (rc == RPD_OK) rc = rpd_view_install(r, "callstack");
  if (rc == RPD_OK) rc = rpd_meta_set(r, RPD_CALLSTACK_TABLE_TAG, "True");
  for (size_t i = 0; i < w.cap; i++) free(w.threads[i].stack);
  free(w.threads);
  if (st) *st = w.st;
  return rc;
}
