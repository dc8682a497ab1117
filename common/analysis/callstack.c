/* callstack.c - build ext_callstack (see callstack.h, docs/rpd-callstack.md).
 *
 * One streaming pass over the api calls sorted by (start, end DESC, id),
 * all threads interleaved: each (pid, tid) keeps only its open frames, found
 * through a small hash table.  Ends are not in the stream: before a call
 * starts, every open frame of its thread whose end is <= that start is
 * closed, earliest end first (the innermost first on equal ends).  Memory is
 * the open frames of all threads, not the trace.
 *
 * The calls come in rowid order through a reorder buffer (walk_reorder: a
 * queue per thread, merged): linear and flat in memory when each thread's
 * calls come nearly in time order or in completion order, as tracers write
 * them; otherwise the partial walk is rolled back to a savepoint and SQLite
 * sorts.  Sorting by start first (not pid, tid, start) lets SQLite's sorter
 * compare mostly on one integer.  The gpu time of a call is fetched when it ends, by
 * merging the op links in api_id order (see gpu_src): no join, no temp table
 * unless the ids are far from time order.
 */
#include <stdlib.h>
#include <string.h>

#include "callstack_int.h"
#include "check.h"
#include "progress.h"

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

/* The calls in walking order, sorted by SQLite: only when rowid order is
 * too far from time order for the reorder buffer (see walk_reorder, 32 bytes
 * a call held, at most sort_max calls; 4x cheaper than SQLite's sorter
 * and linear when the calls come nearly in time order, as tracers write
 * them).  The sorter spills to temp files: memory stays bounded either
 * way. */
static const char read_sql[] =
    "SELECT pid, tid, id, start, end FROM rocpd_api "
    "ORDER BY start, end DESC, id";

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
thread *cs_thread_get(walker *w, int64_t pid, int64_t tid) {
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

/* Close the frame at index k: its row, then one per frame below it (or,
 * with a visitor, one call of its close). */
static int close_frame(walker *w, thread *t, int k) {
  frame f = t->stack[k];
  int64_t cpu = f.end - f.start - f.child_cpu, gpu = 0;
  int rc = cs_gpu_get(w->r, &w->gpu, f.id, &gpu);
  if (rc == RPD_OK && w->vis) {
    for (int j = k - 1; j >= 0; j--) t->stack[j].child_cpu += cpu;
    rc = w->vis->close(w->vis->arg, t->tags, k, gpu);
    w->st.rows += k + 1;
  } else if (rc == RPD_OK) {
    rc = cs_emit(w, f.id, f.id, 0, cpu, gpu);
  }
  for (int j = k - 1; j >= 0 && rc == RPD_OK && !w->vis; j--) {
    t->stack[j].child_cpu += cpu;
    rc = cs_emit(w, t->stack[j].id, f.id, k - j, cpu, gpu);
  }
  if (k < t->depth - 1) {   /* not the top one: an overlapping call */
    memmove(&t->stack[k], &t->stack[k + 1],
            (size_t)(t->depth - k - 1) * sizeof(frame));
    memmove(&t->tags[k], &t->tags[k + 1],
            (size_t)(t->depth - k - 1) * sizeof(int64_t));
  }
  t->depth--;
  return rc;
}

/* 1 if no open frame of t ends after the one below it. */
static int ends_nested(const thread *t) {
  for (int j = 1; j < t->depth; j++)
    if (t->stack[j].end > t->stack[j - 1].end) return 0;
  return 1;
}

/* Close every open frame of t whose end is <= time, earliest end first; on
 * equal ends the frame nearer the top (the inner one) first. */
static int close_until(walker *w, thread *t, int64_t time) {
  int rc = RPD_OK;
  while (t->depth > 0 && rc == RPD_OK) {
    int k = t->depth - 1;
    if (!t->nested)
      for (int j = k - 1; j >= 0; j--)
        if (t->stack[j].end < t->stack[k].end) k = j;
    if (t->stack[k].end > time) break;
    rc = close_frame(w, t, k);
    if (!t->nested) t->nested = ends_nested(t);
  }
  return rc;
}

static int push(walker *w, thread *t, const frame *f) {
  if (t->depth > 0 && f->end > t->stack[t->depth - 1].end) {
    w->st.overlaps++;
    t->nested = 0;
  } else if (t->depth == 0) {
    t->nested = 1;
  }
  if (t->depth == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->stack = rpd_xrealloc(t->stack, (size_t)t->cap * sizeof(frame));
    t->tags = rpd_xrealloc(t->tags, (size_t)t->cap * sizeof(int64_t));
  }
  t->tags[t->depth] = w->vis ? w->vis->tag(w->vis->arg, f->id) : -1;
  t->stack[t->depth++] = *f;
  if (t->depth > w->st.max_depth) w->st.max_depth = t->depth;
  /* a zero-length (or inverted) call starts and ends in place */
  if (f->end <= f->start) return close_frame(w, t, t->depth - 1);
  return RPD_OK;
}

/* One call, in walking order: close what ended before it, push it. */
int cs_step_call(walker *w, int64_t pid, int64_t tid, const frame *f) {
  thread *t = cs_thread_get(w, pid, tid);
  int rc = close_until(w, t, f->start);
  if (rc == RPD_OK) rc = push(w, t, f);
  if ((++w->st.calls & 0xfff) == 0)
    rpd_progress("call stack", w->st.calls < w->progress_total ? w->st.calls
                 : w->progress_total - 1, w->progress_total);
  return rc;
}

/* Feed every call to step_call in walking order, sorted by SQLite (its
 * sorter spills to temp files: memory stays bounded). */
static int walk_sql(walker *w) {
  sqlite3_stmt *rd = NULL;
  int s = SQLITE_DONE;
  w->st.sql_sort = 1;
  int rc = rpd_prepare(w->r, read_sql, &rd);
  while (rc == RPD_OK && (s = rpd_step(w->r, rd)) == SQLITE_ROW) {
    frame f = {sqlite3_column_int64(rd, 2), sqlite3_column_int64(rd, 3),
               sqlite3_column_int64(rd, 4), 0};
    rc = cs_step_call(w, sqlite3_column_int64(rd, 0), sqlite3_column_int64(rd, 1),
                   &f);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(rd);
  return rc;
}

/* Forget every open frame, pending row and count (before a second walk). */
static void walker_reset(walker *w) {
  for (size_t i = 0; i < w->cap; i++) {
    free(w->threads[i].stack);
    free(w->threads[i].tags);
  }
  if (w->vis && w->vis->reset) w->vis->reset(w->vis->arg);
  free(w->threads);
  w->threads = NULL, w->nthreads = w->cap = 0;
  w->npend = 0;
  w->gpu = (gpu_src){0};
  w->st = (rpd_callstack_stats){0};
}

static const char *const progress_tables[] = {"rocpd_api", NULL};

/* One walk: through the reorder buffer (how = WALK_REORDER; *fallback set
 * when it cannot, or when the op links are not in the order assumed: then
 * w->gpu_checked is set for the next walk), sorted in C (WALK_SORTED;
 * *fallback set when a value needs SQLite's comparison) or by SQLite. */
enum { WALK_REORDER, WALK_SORTED, WALK_SQL };

static int walk_once(walker *w, int how, int *fallback) {
  int sql = how == WALK_SQL;
  *fallback = 0;
  w->progress_total = rpd_progress_on() ? rpd_progress_rows_of(w->r, progress_tables) : -1;
  int rc = cs_gpu_open(w->r, &w->gpu, w->check, sql || w->gpu_checked);
  if (rc == RPD_OK) rc = cs_gpu_next(w->r, &w->gpu);
  if (rc == RPD_OK && !w->vis) rc = cs_insert_open(w);
  if (rc == RPD_OK)
    rc = sql ? walk_sql(w) : how == WALK_SORTED ? cs_walk_sorted(w, fallback)
                                                : cs_walk_reorder(w, fallback);
  for (size_t i = 0; i < w->cap && rc == RPD_OK && !*fallback && !w->gpu.redo; i++)
    if (w->threads[i].used) rc = close_until(w, &w->threads[i], INT64_MAX);
  if (w->gpu.redo) *fallback = 1, w->gpu_checked = 1;
  if (rc == RPD_OK && !*fallback && !w->vis) rc = cs_flush(w);
  if (rc == RPD_OK && !*fallback) rc = cs_gpu_finish(w->r, &w->gpu);
  w->ops_clean = w->gpu.ops_clean;
  rpd_progress_end();
  w->st.threads = (int64_t)w->nthreads;
  if (!w->vis) cs_insert_close(w);
  if (rc == RPD_OK && !*fallback && w->gpu.lookup) {
    w->st.gpu_fallback = 1;
    sqlite3_finalize(w->gpu.lookup);
    w->gpu.lookup = NULL;
    rc = rpd_exec(w->r, "DROP TABLE temp._rpd_gpu_time");
  }
  cs_gpu_close(&w->gpu);
  return rc;
}

/* The walk inside a savepoint: when the heap cannot give walking order,
 * its partial rows are rolled back and the calls are sorted, in C when
 * their times are integers, else by SQLite. */
static int walk(walker *w) {
  int fallback = 0;
  int rc = rpd_exec(w->r, "SAVEPOINT rpd_callstack_walk");
  if (rc != RPD_OK) return rc;
  rc = walk_once(w, WALK_REORDER, &fallback);
  /* the op links were not in the order the first walk assumed: again,
   * with their order checked first */
  if (rc == RPD_OK && fallback && w->gpu_checked) {
    rc = rpd_exec(w->r, "ROLLBACK TO rpd_callstack_walk");
    walker_reset(w);
    if (rc == RPD_OK) rc = walk_once(w, WALK_REORDER, &fallback);
  }
  if (rc == RPD_OK && fallback && !cs_sql_sort_only()) {
    rc = rpd_exec(w->r, "ROLLBACK TO rpd_callstack_walk");
    walker_reset(w);
    if (rc == RPD_OK) rc = walk_once(w, WALK_SORTED, &fallback);
    if (rc == RPD_OK && !fallback) w->st.c_sort = 1;
  }
  /* the walk stopped early: the calls not read are checked by the query
   * (a bad row fails the build with its message) */
  if (rc == RPD_OK && fallback && w->check)
    rc = rpd_check_table(w->r, "rocpd_api", 0, NULL);
  if (rc == RPD_OK && fallback) {
    rc = rpd_exec(w->r, "ROLLBACK TO rpd_callstack_walk");
    walker_reset(w);
    if (rc == RPD_OK) rc = walk_once(w, WALK_SQL, &fallback);
  }
  int rel = rpd_exec(w->r, "RELEASE rpd_callstack_walk");
  return rc != RPD_OK ? rc : rel;
}

int rpd_callstack_drop(rpd *r) {
  int rc = rpd_callstack_owned(r);
  if (rc == RPD_OK) rc = rpd_exec(r, drop_sql);
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

/* The columns of ext_callstack as table_sql creates them. */
static const char *const callstack_cols[] = {
    "id", "parent_id", "child_id", "depth", "cpu_time", "gpu_time", NULL};

int rpd_callstack_owned(rpd *r) {
  return rpd_check_owned(r, "ext_callstack", callstack_cols);
}

/* The walk and, unless this handle passed the trace check or the walk's
 * merge with rocpd_op found every op sane, the check of rocpd_op that
 * follows it (its message, if an op is bad). */
static int walk_checked(walker *w) {
  int rc = walk(w);
  if (rc == RPD_OK && w->check && !w->ops_clean) {   /* shown as the trace check's phase */
    static const char *const op_table[] = {"rocpd_op", NULL};
    rpd_progress_sql_total(w->r, "checking times", rpd_progress_rows_of(w->r, op_table));
    rc = rpd_check_table(w->r, "rocpd_op", 1, NULL);
    rpd_progress_end();
  }
  return rc;
}

static void walker_free(walker *w) {
  for (size_t i = 0; i < w->cap; i++) {
    free(w->threads[i].stack);
    free(w->threads[i].tags);
  }
  free(w->threads);
}

int rpd_callstack_visit(rpd *r, const rpd_callstack_visitor *v,
                        rpd_callstack_stats *st) {
  walker w = {.r = r, .check = !rpd_check_passed(r), .vis = v};
  int rc = walk_checked(&w);
  walker_free(&w);
  if (st) *st = w.st;
  return rc;
}

int rpd_callstack_build(rpd *r, rpd_callstack_stats *st) {
  /* garbage timestamps would become negative times and absurd depths:
   * unless this handle passed the trace check, rocpd_api's half of it is
   * folded into the walk's scan and rocpd_op's half follows (its message
   * second, as in rpd_check_trace); a user's own ext_callstack is never
   * dropped */
  walker w = {.r = r, .check = !rpd_check_passed(r)};
  int rc = rpd_callstack_owned(r);
  if (rc == RPD_OK) rc = rpd_exec(r, drop_sql);
  if (rc == RPD_OK) rc = rpd_exec(r, table_sql);
  if (rc == RPD_OK) rc = walk_checked(&w);
  /* the *_name views read the utility view `api`; add it if missing */
  if (rc == RPD_OK && !rpd_table_exists(r, "api") &&
      rpd_view_sql("api", r->schema))
    rc = rpd_view_install(r, "api");
  if (rc == RPD_OK) rc = rpd_view_install(r, "callstack");
  if (rc == RPD_OK) rc = rpd_meta_set(r, RPD_CALLSTACK_TABLE_TAG, "True");
  walker_free(&w);
  if (st) *st = w.st;
  return rc;
}
