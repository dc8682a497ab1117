/* callstack.c - build ext_callstack (see callstack.h, docs/rpd-callstack.md).
 *
 * One streaming pass: the api calls arrive sorted by (pid, tid, start,
 * end DESC, id) with their gpu time attached; each thread keeps only its
 * open frames.  Ends are not in the stream: before a call starts, every open
 * frame whose end is <= that start is closed, earliest end first (the
 * innermost first on equal ends).  Memory is the deepest stack, not the
 * trace.
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

/* gpu time per call: the ops are summed per api_id once (SQLite materializes
 * the grouped subquery with an index), then joined to the sorted calls. */
static const char read_sql[] =
    "SELECT X.pid, X.tid, X.id, X.start, X.end, Y.gpu_time "
    "FROM rocpd_api X LEFT JOIN ("
    "SELECT A.api_id AS api_id, sum(B.end - B.start) AS gpu_time "
    "FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id "
    "GROUP BY A.api_id) Y ON Y.api_id = X.id "
    "ORDER BY X.pid, X.tid, X.start, X.end DESC, X.id";

/* Rows go in BATCH at a time through one multi-row INSERT: a statement
 * per row would pay the statement overhead (and AUTOINCREMENT's
 * sqlite_sequence update) per row.  The tail goes through the 1-row one. */
#define BATCH 128
#define NCOLS 6
static const char insert_head[] =
    "INSERT INTO ext_callstack(id, parent_id, child_id, depth, cpu_time, "
    "gpu_time) VALUES ";

typedef struct frame {
  int64_t id, start, end, gpu, child_cpu;
} frame;

typedef struct walker {
  rpd *r;
  sqlite3_stmt *ins_batch, *ins_one;
  int64_t pend[BATCH * NCOLS];
  int npend;
  frame *stack;
  int depth, cap;
  int64_t next_id;
  rpd_callstack_stats st;
} walker;

const char *rpd_callstack_read_sql(void) { return read_sql; }

static int prepare_insert(rpd *r, int rows, sqlite3_stmt **st) {
  rpd_buf b = {0};
  rpd_buf_puts(&b, insert_head);
  for (int i = 0; i < rows; i++) rpd_buf_puts(&b, i ? ",(?,?,?,?,?,?)" : "(?,?,?,?,?,?)");
  int rc = rpd_prepare(r, b.s, st);
  rpd_buf_free(&b);
  return rc;
}

/* Insert the first `rows` pending rows with statement s. */
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
  if (w->npend == BATCH) rc = insert_rows(w, w->ins_batch, BATCH, 0);
  else
    for (int i = 0; i < w->npend && rc == RPD_OK; i++)
      rc = insert_rows(w, w->ins_one, 1, i);
  w->npend = 0;
  return rc;
}

static int emit(walker *w, int64_t parent, int64_t child, int64_t depth,
                int64_t cpu, int64_t gpu) {
  int64_t *p = &w->pend[w->npend++ * NCOLS];
  p[0] = w->next_id++, p[1] = parent, p[2] = child, p[3] = depth;
  p[4] = cpu, p[5] = gpu;
  w->st.rows++;
  return w->npend == BATCH ? flush(w) : RPD_OK;
}

/* Close the frame at index k: its row, then one per frame below it. */
static int close_frame(walker *w, int k) {
  frame f = w->stack[k];
  int64_t cpu = f.end - f.start - f.child_cpu;
  int rc = emit(w, f.id, f.id, 0, cpu, f.gpu);
  for (int j = k - 1; j >= 0 && rc == RPD_OK; j--) {
    w->stack[j].child_cpu += cpu;
    rc = emit(w, w->stack[j].id, f.id, k - j, cpu, f.gpu);
  }
  memmove(&w->stack[k], &w->stack[k + 1],
          (size_t)(w->depth - k - 1) * sizeof(frame));
  w->depth--;
  return rc;
}

/* Close every open frame whose end is <= t, earliest end first; on equal
 * ends the frame nearer the top (the inner one) first. */
static int close_until(walker *w, int64_t t) {
  int rc = RPD_OK;
  while (w->depth > 0 && rc == RPD_OK) {
    int k = w->depth - 1;
    for (int j = k - 1; j >= 0; j--)
      if (w->stack[j].end < w->stack[k].end) k = j;
    if (w->stack[k].end > t) break;
    rc = close_frame(w, k);
  }
  return rc;
}

static int push(walker *w, int64_t id, int64_t start, int64_t end,
                int64_t gpu) {
  if (w->depth > 0 && end > w->stack[w->depth - 1].end) w->st.overlaps++;
  if (w->depth == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 64;
    w->stack = rpd_xrealloc(w->stack, (size_t)w->cap * sizeof(frame));
  }
  w->stack[w->depth++] = (frame){id, start, end, gpu, 0};
  if (w->depth > w->st.max_depth) w->st.max_depth = w->depth;
  /* a zero-length (or inverted) call starts and ends in place */
  if (end <= start) return close_frame(w, w->depth - 1);
  return RPD_OK;
}

static int walk(walker *w) {
  sqlite3_stmt *rd = NULL;
  int64_t pid = 0, tid = 0;
  int first = 1, s;
  int rc = rpd_prepare(w->r, read_sql, &rd);
  if (rc == RPD_OK) rc = prepare_insert(w->r, BATCH, &w->ins_batch);
  if (rc == RPD_OK) rc = prepare_insert(w->r, 1, &w->ins_one);
  while (rc == RPD_OK && (s = rpd_step(w->r, rd)) == SQLITE_ROW) {
    int64_t p = sqlite3_column_int64(rd, 0), t = sqlite3_column_int64(rd, 1);
    int64_t start = sqlite3_column_int64(rd, 3);
    if (first || p != pid || t != tid) {
      rc = close_until(w, INT64_MAX);
      pid = p, tid = t, first = 0;
      w->st.threads++;
    }
    if (rc == RPD_OK) rc = close_until(w, start);
    if (rc == RPD_OK)
      rc = push(w, sqlite3_column_int64(rd, 2), start,
                sqlite3_column_int64(rd, 4), sqlite3_column_int64(rd, 5));
    w->st.calls++;
    if ((w->st.calls & 0xffff) == 0) rpd_progress("call stack", w->st.calls, -1);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  if (rc == RPD_OK) rc = close_until(w, INT64_MAX);
  if (rc == RPD_OK) rc = flush(w);
  if (w->st.calls >= 0x10000) rpd_progress("call stack", -1, -1);
  sqlite3_finalize(rd);
  sqlite3_finalize(w->ins_batch);
  sqlite3_finalize(w->ins_one);
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
  walker w = {.r = r, .next_id = 1};
  int rc = rpd_exec(r, drop_sql);
  if (rc == RPD_OK) rc = rpd_exec(r, table_sql);
  if (rc == RPD_OK) rc = walk(&w);
  /* the *_name views read the utility view `api`; add it if missing */
  if (rc == RPD_OK && !rpd_table_exists(r, "api") &&
      rpd_view_sql("api", r->schema))
    rc = rpd_view_install(r, "api");
  if (rc == RPD_OK) rc = rpd_view_install(r, "callstack");
  if (rc == RPD_OK) rc = rpd_meta_set(r, RPD_CALLSTACK_TABLE_TAG, "True");
  free(w.stack);
  if (st) *st = w.st;
  return rc;
}
