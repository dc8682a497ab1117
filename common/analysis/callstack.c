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

#include "callstack.h"
#include "check.h"
#include "progress.h"
#include "internal.h"

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

/* The gpu time of the calls: one row per linked op, in api_id order.  When
 * rocpd_api_ops is already in api_id order by rowid (tracers write the link
 * right after the call; checked first) this streams without a sort.  When
 * its op_ids also rise strictly (a tracer writes an op's link with the op)
 * and rocpd_op's id is its rowid, the links are merged with a scan of
 * rocpd_op in id order (gpu_links_sql, gpu_ops_sql) instead of a seek per
 * link, and that scan applies the trace check's rule to every op, so
 * rocpd_op needs no check scan of its own.  The first walk assumes that
 * order and checks it as the links stream by (no scan first); links out of
 * it stop the walk, which is rolled back and run again with their order
 * checked first (gpu_in_order), as a call out of order does. */
static const char gpu_order_sql[] = "SELECT api_id, op_id FROM rocpd_api_ops";
static const char gpu_links_sql[] = "SELECT api_id, op_id FROM rocpd_api_ops";
static const char gpu_ops_sql[] =
    "SELECT id, start, end, gpuId FROM rocpd_op ORDER BY id";
static const char op_rowid_sql[] =
    "SELECT count(*) = 1 AND max(name = 'id' AND upper(type) = 'INTEGER') "
    "FROM pragma_table_info('rocpd_op') WHERE pk > 0";
static const char gpu_stream_sql[] =
    "SELECT A.api_id, B.end - B.start FROM rocpd_api_ops A "
    "CROSS JOIN rocpd_op B ON B.id = A.op_id";
static const char gpu_stream_sort_sql[] =
    "SELECT A.api_id, B.end - B.start FROM rocpd_api_ops A "
    "CROSS JOIN rocpd_op B ON B.id = A.op_id ORDER BY A.api_id";
/* The fallback: the gpu time per call summed into a temp table keyed by api
 * id, one rowid lookup per call. */
static const char gpu_table_sql[] =
    "DROP TABLE IF EXISTS temp._rpd_gpu_time;"
    "CREATE TEMP TABLE _rpd_gpu_time(api_id INTEGER PRIMARY KEY, "
    "gpu_time INTEGER NOT NULL);"
    "INSERT INTO temp._rpd_gpu_time SELECT A.api_id, sum(B.end - B.start) "
    "FROM rocpd_api_ops A JOIN rocpd_op B ON B.id = A.op_id "
    "GROUP BY A.api_id ORDER BY A.api_id;";
static const char gpu_lookup_sql[] =
    "SELECT gpu_time FROM temp._rpd_gpu_time WHERE api_id = ?";

/* The calls in walking order, sorted by SQLite: only when rowid order is
 * too far from time order for the reorder buffer (see walk_reorder, 32 bytes
 * a call held, at most sort_max calls; 4x cheaper than SQLite's sorter
 * and linear when the calls come nearly in time order, as tracers write
 * them).  The sorter spills to temp files: memory stays bounded either
 * way. */
static const char read_sql[] =
    "SELECT pid, tid, id, start, end FROM rocpd_api "
    "ORDER BY start, end DESC, id";
static const char scan_sql[] = "SELECT pid, tid, id, start, end FROM rocpd_api";

/* Rows go in BATCH at a time through one INSERT ... SELECT from the
 * pending rows, which the walk's own virtual table (rows_module) shows to
 * SQLite: a statement per row would pay the statement overhead (and
 * AUTOINCREMENT's sqlite_sequence update) per row, and bound parameters
 * cost more than the insert itself.  SQLite numbers the rows: an explicit
 * id costs a uniqueness seek each. */
#define BATCH 2048
#define NCOLS 5
#define ROWS_VTAB "rpd_callstack_pending_rows_"
static const char insert_sql[] =
    "INSERT INTO ext_callstack(parent_id, child_id, depth, cpu_time, "
    "gpu_time) SELECT * FROM " ROWS_VTAB;

/* A thread's calls may come as a few runs each in time order (a Kineto
 * import stores a thread's ops, then its runtime calls): the reorder buffer
 * keeps up to RUNS queues per thread, and a call that would go more than
 * RUN_SHIFT calls back into every one of them starts another. */
#define RUNS 4
#define RUN_SHIFT 64

typedef struct frame {
  int64_t id, start, end, child_cpu;
} frame;

typedef struct thread {
  int64_t pid, tid;
  int64_t qi[RUNS];       /* walk_reorder: 1 + index of each of its queues, 0 = none */
  int used, depth, cap;
  int nested;             /* 1: the open frames' ends never rise from the
                             bottom up, so the top one ends first */
  frame *stack;
  int64_t *tags;          /* the visitor's tag of each open frame */
} thread;

/* The gpu time of each call, looked up when the call ends.  Calls end in
 * nearly api-id order (tracers number a call when it returns), so the op
 * stream, in api_id order, is merged in: entries are read ahead up to the
 * id asked for, kept sorted until asked for (each call ends once), and an
 * id the stream has passed without an entry has no ops.  If more than
 * gpu_max entries wait (ids far from time order), the rest of the run
 * looks them up in the temp table instead: memory stays bounded. */
static size_t gpu_max = 1 << 20;

void rpd_callstack_set_merge_limit(size_t entries) {
  gpu_max = entries ? entries : (size_t)1 << 20;
}

static size_t sort_max = (size_t)1 << 18;   /* 8 MB of calls held */

void rpd_callstack_set_sort_limit(size_t calls) {
  sort_max = calls ? calls : (size_t)1 << 18;
}

typedef struct gpu_entry {
  int64_t id, gpu;
  int taken;
} gpu_entry;

typedef struct gpu_src {
  sqlite3_stmt *stream, *lookup;
  int64_t next_id, next_gpu;  /* the stream's row read ahead */
  int more;                   /* next_* is valid */
  sqlite3_stmt *ops;          /* the merge with rocpd_op (NULL: stream joins) */
  int64_t op_id, op_gpu;      /* ops' current row */
  int ops_more;               /* op_* is valid */
  int check;                  /* apply the trace check's rule to each op */
  int ops_bad;                /* an op failed it */
  int ops_clean;              /* every op was read, checked and passed */
  int assumed;                /* merging without gpu_in_order's scan: */
  int64_t last_api, last_op;  /* the last link, to check the order */
  int redo;                   /* a link out of order: walk again */
  gpu_entry *e;               /* read-ahead entries, ascending id */
  size_t head, n, cap;        /* live range e[head..n) */
} gpu_src;

typedef struct walker {
  rpd *r;
  gpu_src gpu;
  sqlite3_stmt *ins;
  int64_t pend[BATCH * NCOLS];
  int npend;
  thread *threads;        /* open-addressing table, cap a power of two */
  size_t nthreads, cap;
  rpd_callstack_stats st;
  int64_t progress_total; /* api rows, for the progress line (-1 unknown) */
  int check;              /* apply rpd_check_trace's rule to the calls read */
  int ops_clean;          /* the walk's merge checked every op of rocpd_op */
  int gpu_checked;        /* check the op links' order before merging */
  const rpd_callstack_visitor *vis;  /* NULL: write ext_callstack */
} walker;

/* The virtual table ROWS_VTAB: the walker's pending rows (an eponymous
 * table, registered for the walk with the walker as its data). */
typedef struct rows_vtab {
  sqlite3_vtab base;
  const walker *w;
} rows_vtab;

typedef struct rows_cursor {
  sqlite3_vtab_cursor base;
  int i;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(
      db, "CREATE TABLE x(parent_id, child_id, depth, cpu_time, gpu_time)");
  if (rc != SQLITE_OK) return rc;
  rows_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->w = aux;
  *out = &v->base;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *ii) {
  (void)v;
  ii->estimatedCost = BATCH;
  ii->estimatedRows = BATCH;
  return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  rows_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *str, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)str, (void)argc, (void)argv;
  ((rows_cursor *)c)->i = 0;
  return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c) {
  ((rows_cursor *)c)->i++;
  return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c) {
  return ((rows_cursor *)c)->i >= ((rows_vtab *)c->pVtab)->w->npend;
}

static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col) {
  const walker *w = ((rows_vtab *)c->pVtab)->w;
  sqlite3_result_int64(ctx, w->pend[((rows_cursor *)c)->i * NCOLS + col]);
  return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid) {
  *rowid = ((rows_cursor *)c)->i;
  return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .xConnect = rows_connect,   /* no xCreate: eponymous only */
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xDestroy = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

/* Register ROWS_VTAB for w and prepare the insert from it. */
static int insert_open(walker *w) {
  if (sqlite3_create_module(w->r->db, ROWS_VTAB, &rows_module, w) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "cannot register the call stack's row source: %s",
                      sqlite3_errmsg(w->r->db));
  return rpd_prepare(w->r, insert_sql, &w->ins);
}

/* Finalize the insert and unregister ROWS_VTAB. */
static void insert_close(walker *w) {
  sqlite3_finalize(w->ins);
  w->ins = NULL;
  sqlite3_create_module(w->r->db, ROWS_VTAB, NULL, NULL);
}

/* Write every pending row. */
static int flush(walker *w) {
  int rc = RPD_OK;
  if (w->npend > 0) {
    int s = rpd_step(w->r, w->ins);
    sqlite3_reset(w->ins);
    if (s < 0) rc = -s;
  }
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

/* *sorted = 1 if rocpd_api_ops is in api_id order by rowid; *merge = 1
 * if its op_ids also rise strictly, all integers.  Only the first `rows`
 * links are read if rows >= 0. */
static int gpu_in_order(rpd *r, int *sorted, int *merge, int64_t rows) {
  sqlite3_stmt *st = NULL;
  int64_t last = INT64_MIN, last_op = INT64_MIN;
  int s = SQLITE_DONE, rc = rpd_prepare(r, gpu_order_sql, &st);
  *sorted = *merge = 1;
  while (rc == RPD_OK && rows-- != 0 && (s = rpd_step(r, st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0), op = sqlite3_column_int64(st, 1);
    if (id < last) {
      *sorted = *merge = 0;
      break;
    }
    if (*merge && (op <= last_op || sqlite3_column_type(st, 1) != SQLITE_INTEGER))
      *merge = 0;
    last = id, last_op = op;
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* Advance the merge's scan of rocpd_op by one row into op_*. */
static int ops_next(rpd *r, gpu_src *g) {
  int s = rpd_step(r, g->ops);
  if (s < 0) return -s;
  g->ops_more = s == SQLITE_ROW;
  if (g->ops_more) {
    sqlite3_stmt *o = g->ops;
    g->op_id = sqlite3_column_int64(o, 0);
    if (g->check && !rpd_check_row_ok(sqlite3_column_value(o, 1),
                                      sqlite3_column_value(o, 2),
                                      sqlite3_column_value(o, 3)))
      g->ops_bad = 1;   /* the message comes from the check's query */
    /* wraps instead of overflowing on a bad row (the run fails anyway) */
    g->op_gpu = (int64_t)((uint64_t)sqlite3_column_int64(o, 2) -
                          (uint64_t)sqlite3_column_int64(o, 1));
  }
  return RPD_OK;
}

/* Open the gpu stream: the merge when the links' order allows it, checked
 * first (checked) or as they stream (assumed: gpu_next sets redo). */
static int gpu_open(rpd *r, gpu_src *g, int check, int checked) {
  int sorted = 1, merge = 1, rc = RPD_OK;
  int64_t id_key = 0;   /* rocpd_op's key is its integer id */
  rc = rpd_query_int64(r, op_rowid_sql, &id_key);
  if (rc == RPD_OK && !(id_key == 1 && rpd_column_exists(r, "rocpd_op", "gpuId")))
    checked = 1, merge = 0;   /* the join: its stream needs the order known */
  /* links out of order are most often so from the start (a tracer that
   * writes them as ops complete): a look at the first ones spares most
   * such traces a walk run twice */
  if (rc == RPD_OK && !checked) rc = gpu_in_order(r, &sorted, &merge, 4096);
  if (rc == RPD_OK && !merge) checked = 1;
  if (rc == RPD_OK && checked) rc = gpu_in_order(r, &sorted, &merge, -1);
  merge = merge && id_key == 1;
  if (rc == RPD_OK && merge) {
    g->check = check;
    g->assumed = !checked;
    g->last_api = g->last_op = INT64_MIN;
    rc = rpd_prepare(r, gpu_links_sql, &g->stream);
    if (rc == RPD_OK) rc = rpd_prepare(r, gpu_ops_sql, &g->ops);
    if (rc == RPD_OK) rc = ops_next(r, g);
  } else if (rc == RPD_OK) {
    rc = rpd_prepare(r, sorted ? gpu_stream_sql : gpu_stream_sort_sql,
                     &g->stream);
  }
  g->more = 1;
  g->next_id = INT64_MIN;
  return rc;
}

/* After the walk: read the rest of rocpd_op through the check, and say
 * whether every op passed it (ops_clean). */
static int gpu_finish(rpd *r, gpu_src *g) {
  int rc = RPD_OK;
  while (rc == RPD_OK && g->ops && g->ops_more) rc = ops_next(r, g);
  g->ops_clean = rc == RPD_OK && g->ops && g->check && !g->ops_bad;
  return rc;
}

static void gpu_close(gpu_src *g) {
  sqlite3_finalize(g->stream);
  sqlite3_finalize(g->lookup);
  sqlite3_finalize(g->ops);
  free(g->e);
}

/* Advance the stream by one row into next_*.  Merging, a link whose op
 * is not in rocpd_op is skipped, as the join skips it. */
static int gpu_next(rpd *r, gpu_src *g) {
  for (;;) {
    int s = rpd_step(r, g->stream), rc = RPD_OK;
    if (s < 0) return -s;
    g->more = s == SQLITE_ROW;
    if (!g->more) return RPD_OK;
    g->next_id = sqlite3_column_int64(g->stream, 0);
    if (!g->ops) {
      g->next_gpu = sqlite3_column_int64(g->stream, 1);
      return RPD_OK;
    }
    int64_t op = sqlite3_column_int64(g->stream, 1);
    if (g->assumed) {   /* api_ids must not fall, op_ids must rise */
      if (g->next_id < g->last_api || op <= g->last_op ||
          sqlite3_column_type(g->stream, 1) != SQLITE_INTEGER) {
        g->redo = 1, g->more = 0;
        return RPD_OK;
      }
      g->last_api = g->next_id, g->last_op = op;
    }
    while (rc == RPD_OK && g->ops_more && g->op_id < op) rc = ops_next(r, g);
    if (rc != RPD_OK) return rc;
    if (g->ops_more && g->op_id == op) {
      g->next_gpu = g->op_gpu;
      return ops_next(r, g);
    }
  }
}

/* Append an entry: drop taken ones first, grow, or give up the merge. */
static int gpu_push(rpd *r, gpu_src *g, int64_t id, int64_t gpu) {
  if (g->n == g->cap) {
    size_t k = 0;
    for (size_t i = g->head; i < g->n; i++)
      if (!g->e[i].taken) g->e[k++] = g->e[i];
    g->head = 0, g->n = k;
    if (2 * k >= g->cap) {  /* still half full: grow */
      if (g->cap >= gpu_max) {  /* too far from time order: the table */
        int rc = rpd_exec(r, gpu_table_sql);
        if (rc == RPD_OK) rc = rpd_prepare(r, gpu_lookup_sql, &g->lookup);
        sqlite3_finalize(g->stream);
        sqlite3_finalize(g->ops);   /* rocpd_op is checked by its query */
        g->stream = g->ops = NULL, g->more = g->ops_more = 0;
        free(g->e);
        g->e = NULL, g->n = g->cap = g->head = 0;
        return rc;
      }
      g->cap = g->cap ? 2 * g->cap : gpu_max < 4096 ? gpu_max : 4096;
      g->e = rpd_xrealloc(g->e, g->cap * sizeof *g->e);
    }
  }
  g->e[g->n++] = (gpu_entry){id, gpu, 0};
  return RPD_OK;
}

/* The gpu time of api call `id` into *gpu (0 if it has no ops). */
static int gpu_get(rpd *r, gpu_src *g, int64_t id, int64_t *gpu) {
  int rc = RPD_OK;
  *gpu = 0;
  while (rc == RPD_OK && !g->lookup && g->more && g->next_id <= id) {
    int64_t eid = g->next_id, sum = 0;
    while (rc == RPD_OK && g->more && g->next_id == eid) {
      if (!rpd_ns_add(sum, g->next_gpu, &sum)) sum = INT64_MAX;   /* saturate */
      rc = gpu_next(r, g);
    }
    if (g->redo) return rc;   /* the walk stops and is run again */
    if (rc == RPD_OK) rc = gpu_push(r, g, eid, sum);
  }
  if (rc != RPD_OK) return rc;
  if (g->lookup) {
    sqlite3_bind_int64(g->lookup, 1, id);
    int s = rpd_step(r, g->lookup);
    if (s == SQLITE_ROW) *gpu = sqlite3_column_int64(g->lookup, 0);
    sqlite3_reset(g->lookup);
    return s < 0 ? -s : RPD_OK;
  }
  size_t lo = g->head, hi = g->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->e[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  if (lo < g->n && g->e[lo].id == id && !g->e[lo].taken) {
    *gpu = g->e[lo].gpu;
    g->e[lo].taken = 1;
  }
  while (g->head < g->n && g->e[g->head].taken) g->head++;
  return RPD_OK;
}

/* Close the frame at index k: its row, then one per frame below it (or,
 * with a visitor, one call of its close). */
static int close_frame(walker *w, thread *t, int k) {
  frame f = t->stack[k];
  int64_t cpu = f.end - f.start - f.child_cpu, gpu = 0;
  int rc = gpu_get(w->r, &w->gpu, f.id, &gpu);
  if (rc == RPD_OK && w->vis) {
    for (int j = k - 1; j >= 0; j--) t->stack[j].child_cpu += cpu;
    rc = w->vis->close(w->vis->arg, t->tags, k, gpu);
    w->st.rows += k + 1;
  } else if (rc == RPD_OK) {
    rc = emit(w, f.id, f.id, 0, cpu, gpu);
  }
  for (int j = k - 1; j >= 0 && rc == RPD_OK && !w->vis; j--) {
    t->stack[j].child_cpu += cpu;
    rc = emit(w, t->stack[j].id, f.id, k - j, cpu, gpu);
  }
  memmove(&t->stack[k], &t->stack[k + 1],
          (size_t)(t->depth - k - 1) * sizeof(frame));
  memmove(&t->tags[k], &t->tags[k + 1],
          (size_t)(t->depth - k - 1) * sizeof(int64_t));
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
static int step_call(walker *w, int64_t pid, int64_t tid, const frame *f) {
  thread *t = thread_get(w, pid, tid);
  int rc = close_until(w, t, f->start);
  if (rc == RPD_OK) rc = push(w, t, f);
  if ((++w->st.calls & 0xfff) == 0)
    rpd_progress("call stack", w->st.calls < w->progress_total ? w->st.calls
                 : w->progress_total - 1, w->progress_total);
  return rc;
}

typedef struct call {
  int64_t start, end, id;
  int32_t pid, tid;
} call;

/* Walking order: start, end DESC, id (ids are unique: a total order). */
static inline int call_less(const call *x, const call *y) {
  if (x->start != y->start) return x->start < y->start;
  if (x->end != y->end) return x->end > y->end;
  return x->id < y->id;
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
  return step_call(w, c->pid, c->tid, &f);
}

/* Feed every call to step_call in walking order, reading rocpd_api in
 * rowid order through the reorder buffer of at most sort_max calls
 * (tracers write a call when it ends: rowid order is time order but for
 * the calls open meanwhile).  *fallback = 1 (and the walk is partial) when
 * a call arrives after one that must follow it has been walked, a value
 * does not fit (a non-integer time, a 64-bit pid/tid), or the calls come so
 * far out of order that placing them would cost more than a sort: SQLite
 * must sort. */
static int walk_reorder(walker *w, int *fallback) {
  sqlite3_stmt *st = NULL;
  reorder o = {0};
  call last = {0};
  int have_last = 0, s = SQLITE_DONE;
  int64_t seen = 0;
  int rc = rpd_prepare(w->r, scan_sql, &st);
  *fallback = 0;
  while (rc == RPD_OK && !w->gpu.redo && (s = rpd_step(w->r, st)) == SQLITE_ROW) {
    int64_t pid = sqlite3_column_int64(st, 0), tid = sqlite3_column_int64(st, 1);
    if (pid != (int32_t)pid || tid != (int32_t)tid ||
        sqlite3_column_type(st, 3) != SQLITE_INTEGER ||
        sqlite3_column_type(st, 4) != SQLITE_INTEGER) {
      *fallback = 1;
      break;
    }
    call c = {sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
              sqlite3_column_int64(st, 2), (int32_t)pid, (int32_t)tid};
    /* the trace check's rule (check.h); the message comes from its query */
    if (w->check && !(rpd_ns_sane(c.start) && rpd_ns_sane(c.end) && c.end >= c.start)) {
      *fallback = 1;
      break;
    }
    if (have_last && call_less(&c, &last)) {
      *fallback = 1;
      break;
    }
    queue_insert(&o, reorder_queue(&o, thread_get(w, pid, tid), &c), &c);
    if (o.moved > 64 * ++seen + 4096) {   /* far from rowid order: sort */
      *fallback = 1;
      break;
    }
    if (o.held > sort_max) {
      last = reorder_pop(&o);
      have_last = 1;
      rc = step_held_call(w, &last);
    }
  }
  if (rc == RPD_OK && !*fallback && s < 0) rc = -s;
  sqlite3_finalize(st);
  while (rc == RPD_OK && !*fallback && !w->gpu.redo && o.held) {
    call c = reorder_pop(&o);
    rc = step_held_call(w, &c);
  }
  reorder_free(&o);
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
    rc = step_call(w, sqlite3_column_int64(rd, 0), sqlite3_column_int64(rd, 1),
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

/* One walk: through the reorder buffer (sql = 0; *fallback set when it
 * cannot, or when the op links are not in the order assumed: then
 * w->gpu_checked is set for the next walk) or SQLite's sort. */
static int walk_once(walker *w, int sql, int *fallback) {
  *fallback = 0;
  w->progress_total = rpd_progress_on() ? rpd_progress_rows_of(w->r, progress_tables) : -1;
  int rc = gpu_open(w->r, &w->gpu, w->check, sql || w->gpu_checked);
  if (rc == RPD_OK) rc = gpu_next(w->r, &w->gpu);
  if (rc == RPD_OK && !w->vis) rc = insert_open(w);
  if (rc == RPD_OK) rc = sql ? walk_sql(w) : walk_reorder(w, fallback);
  for (size_t i = 0; i < w->cap && rc == RPD_OK && !*fallback && !w->gpu.redo; i++)
    if (w->threads[i].used) rc = close_until(w, &w->threads[i], INT64_MAX);
  if (w->gpu.redo) *fallback = 1, w->gpu_checked = 1;
  if (rc == RPD_OK && !*fallback && !w->vis) rc = flush(w);
  if (rc == RPD_OK && !*fallback) rc = gpu_finish(w->r, &w->gpu);
  w->ops_clean = w->gpu.ops_clean;
  rpd_progress_end();
  w->st.threads = (int64_t)w->nthreads;
  if (!w->vis) insert_close(w);
  if (rc == RPD_OK && !*fallback && w->gpu.lookup) {
    w->st.gpu_fallback = 1;
    sqlite3_finalize(w->gpu.lookup);
    w->gpu.lookup = NULL;
    rc = rpd_exec(w->r, "DROP TABLE temp._rpd_gpu_time");
  }
  gpu_close(&w->gpu);
  return rc;
}

/* The walk inside a savepoint: when the heap cannot give walking order,
 * its partial rows are rolled back and SQLite sorts. */
static int walk(walker *w) {
  int fallback = 0;
  int rc = rpd_exec(w->r, "SAVEPOINT rpd_callstack_walk");
  if (rc != RPD_OK) return rc;
  rc = walk_once(w, 0, &fallback);
  /* the op links were not in the order the first walk assumed: again,
   * with their order checked first */
  if (rc == RPD_OK && fallback && w->gpu_checked) {
    rc = rpd_exec(w->r, "ROLLBACK TO rpd_callstack_walk");
    walker_reset(w);
    if (rc == RPD_OK) rc = walk_once(w, 0, &fallback);
  }
  /* the walk stopped early: the calls not read are checked by the query
   * (a bad row fails the build with its message) */
  if (rc == RPD_OK && fallback && w->check)
    rc = rpd_check_table(w->r, "rocpd_api", 0, NULL);
  if (rc == RPD_OK && fallback) {
    rc = rpd_exec(w->r, "ROLLBACK TO rpd_callstack_walk");
    walker_reset(w);
    if (rc == RPD_OK) rc = walk_once(w, 1, &fallback);
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
