/* calls.c - rpd-analyze's api calls: the one scan of rocpd_api (the trace
 * check's rule on every call, the calls of the sync rules kept), the
 * findings sync_memcpy and device_sync, and the memcpy buckets (the sizes
 * of rocpd_copyapi joined to their copies' GPU time). */
#include "analyze.h"
#include "check.h"
#include "intscan.h"
#include "progress.h"
#include "util/map.h"

#include <stdlib.h>
#include <string.h>

/* The memcpy buckets: each copy's size (rocpd_copyapi, by its call) and
 * GPU time (temp.an_copy), through the links (LINKS_ALL: every link of
 * rocpd_api_ops probing rocpd_copyapi's index; LINKS_COPIES: the copies'
 * links, in the same order, when the op scan kept them in
 * temp.an_copylink), the rows in the same order either way. */
#define LINKS_ALL "rocpd_copyapi C JOIN rocpd_api_ops X ON X.api_id = C.api_ptr_id JOIN"
#define LINKS_COPIES \
  "an_copylink X CROSS JOIN rocpd_copyapi C ON X.api_id = C.api_ptr_id CROSS JOIN"
/* Each copy as (dir, size, dur), in the links' order. */
#define MEMCPY_ROWS(LINKS)                                                     \
  " WITH c AS (SELECT CASE"                                                   \
  "   WHEN O.optype GLOB '*HostToDevice*' THEN 'HtoD'"                        \
  "   WHEN O.optype GLOB '*DeviceToHost*' THEN 'DtoH'"                        \
  "   WHEN O.optype GLOB '*DeviceToDevice*' THEN 'DtoD'"                      \
  "   WHEN O.optype GLOB '*HostToHost*' THEN 'HtoH'"                          \
  "   WHEN C.kind = 1 THEN 'HtoD' WHEN C.kind = 2 THEN 'DtoH'"                \
  "   WHEN C.kind = 3 THEN 'DtoD' WHEN C.kind = 0 THEN 'HtoH' ELSE 'other' END AS dir," \
  "   C.size AS size, O.e - O.s AS dur"                                       \
  "   FROM " LINKS " (SELECT P.id, P.s, P.e, T.string AS optype FROM an_copy P" \
  "    LEFT JOIN rocpd_string T ON T.id = P.type) O ON O.id = X.op_id)"
/* The buckets' definition: the SQL sums them (a GROUP BY: SQLite's sorter
 * holds every copy, up to the cache size, before it spills) when a size
 * or a duration is not an integer; else memcpy_in_c sums them from
 * MEMCPY_READ in one pass, the same rows and values. */
#define MEMCPY_SQL(LINKS)                                                      \
  "INSERT INTO ext_analysis_memcpy" MEMCPY_ROWS(LINKS) ","                     \
  " b AS (SELECT dir, CASE WHEN size < 4096 THEN 1 WHEN size < 65536 THEN 2"  \
  "   WHEN size < 1048576 THEN 3 WHEN size < 16777216 THEN 4 ELSE 5 END AS bk," \
  "   size, dur FROM c)"                                                      \
  " SELECT dir, CASE bk WHEN 1 THEN '<4KB' WHEN 2 THEN '4KB-64KB'"            \
  "   WHEN 3 THEN '64KB-1MB' WHEN 4 THEN '1MB-16MB' ELSE '>=16MB' END,"       \
  "  count(*), sum(size), sum(dur), CASE WHEN sum(dur) > 0"                   \
  "   THEN 1.0 * sum(size) / sum(dur) END"                                    \
  " FROM b GROUP BY dir, bk ORDER BY dir, bk;"
#define MEMCPY_READ(LINKS) MEMCPY_ROWS(LINKS) " SELECT dir, size, dur FROM c"

/* The names of the sync rules' calls, matched once in rocpd_string: kind
 * 1 a synchronous hipMemcpy/hipMemset (and cuda; not *Async*), kind 2 a
 * device synchronize. */
static const char sync_names_sql[] =
  "SELECT id, CASE WHEN string IN ('hipDeviceSynchronize', 'cudaDeviceSynchronize')"
  "  THEN 2 ELSE 1 END FROM rocpd_string"
  " WHERE ((string GLOB 'hipMemcpy*' OR string GLOB 'hipMemset*'"
  "   OR string GLOB 'cudaMemcpy*' OR string GLOB 'cudaMemset*')"
  "  AND string NOT GLOB '*Async*')"
  " OR string IN ('hipDeviceSynchronize', 'cudaDeviceSynchronize')";

static const char sync_table_sql[] =
  "DROP TABLE IF EXISTS temp.an_sync;"
  "CREATE TEMP TABLE an_sync (kind INTEGER, start, \"end\", apiName_id, tid);";

/* The one scan of rocpd_api: its columns (intscan.h), the ones whose type
 * is looked at. */
enum { C_ID, C_START, C_END, C_NAME, C_TID, NCOLS };
static const char calls_sql[] =
  "SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, id, start, \"end\", apiName_id, tid)";
/* the same in id order, when that needs no sort (ids_in_order) */
static const char calls_by_id_sql[] =
  "SELECT 1 FROM rocpd_api WHERE rpd_intscan(?1, id, start, \"end\", apiName_id, tid)"
  " ORDER BY id";
#define CALLS_TYPED (1u << C_ID | 1u << C_START | 1u << C_END | 1u << C_NAME | 1u << C_TID)

/* The calls of the last WINDOW rows read, in id order: links (in op
 * order, as tracers write them) ask for calls a little behind the scan
 * (memory flat in trace size: 32 bytes a call); a call behind the window
 * is found by its id (a b-tree seek), as the join did for every link. */
#define WINDOW (1u << 16)

typedef struct wcall {
  int64_t id, start, end, name;  /* name: an INTEGER (else looked up again) */
} wcall;
#define NAME_NOT_INT INT64_MIN    /* wcall.name of a call whose apiName_id is not an INTEGER */

struct an_calls {
  rpd *r;
  rpd_intscan sc;
  int done;                      /* every call read */
  int windowed;                  /* the window is in use (ids unique, read in id order) */
  wcall *win;                    /* a ring of WINDOW calls: head the oldest, n held */
  size_t head, n;
  rpd_i64map kind_of, graph;     /* name id -> sync kind; name id -> graph launch */
  rpd_check_rows bad;
  sqlite3_stmt *ins, *seek, *str, *tid;
};

/* 1 when rocpd_api's id is its only primary-key column (ids are unique:
 * a call found in the window is the only one of its id) and its rows can
 * be read in id order without a sort (id is the rowid or an index's key):
 * every call of an id up to the last one read has been read. */
static int ids_in_order(rpd *r, int *rc)
{
  int64_t one = 0;
  int sorts = 0;
  *rc = rpd_query_int64(r, "SELECT count(*) = 1 AND sum(name = 'id' COLLATE NOCASE) = 1"
                        " FROM pragma_table_info('rocpd_api') WHERE pk > 0", &one);
  if (*rc || !one)
    return 0;
  *rc = rpd_plan_sorts(r, "SELECT id, start, \"end\", apiName_id, tid FROM rocpd_api ORDER BY id",
                       &sorts);
  return !*rc && !sorts;
}

int an_calls_open(rpd *r, an_calls **out)
{
  an_calls *c = rpd_xcalloc(1, sizeof *c);
  sqlite3_stmt *names = NULL;
  int rc, s = 0;
  c->r = r;
  *out = c;
  rc = rpd_exec(r, sync_table_sql);
  if (!rc)
    rc = rpd_prepare(r, sync_names_sql, &names);
  while (!rc && (s = rpd_step(r, names)) == SQLITE_ROW)
    rpd_i64map_put(&c->kind_of, sqlite3_column_int64(names, 0), sqlite3_column_int64(names, 1));
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(names);
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_sync VALUES (?,?,?,?,?)", &c->ins);
  if (!rc)
    rc = rpd_prepare(r, "SELECT id, start, \"end\", apiName_id FROM rocpd_api WHERE id = ?",
                     &c->seek);
  if (!rc)
    rc = rpd_prepare(r, "SELECT string FROM rocpd_string WHERE id = ?", &c->str);
  if (!rc)
    c->windowed = ids_in_order(r, &rc);
  if (!rc && c->windowed)
    c->win = rpd_xmalloc(WINDOW * sizeof *c->win);
  if (!rc)
    rc = rpd_intscan_open(r, &c->sc, c->windowed ? calls_by_id_sql : calls_sql, NCOLS,
                          CALLS_TYPED | RPD_INTSCAN_UNCHANGED);
  return rc;
}

/* A kept sync call's tid as it is stored (the scan read it as an int64):
 * its row again when it is not an INTEGER. */
static int bind_tid(an_calls *c, const int64_t *v, unsigned ints)
{
  int s;
  if (ints & 1u << C_TID)
    return sqlite3_bind_int64(c->ins, 5, v[C_TID]) == SQLITE_OK ? RPD_OK
           : rpd_seterr(RPD_ESQL, "SQL: %s", sqlite3_errmsg(rpd_db(c->r)));
  if (!c->tid && (s = rpd_prepare(c->r, "SELECT tid FROM rocpd_api WHERE id = ?", &c->tid)))
    return s;
  sqlite3_reset(c->tid);
  sqlite3_bind_int64(c->tid, 1, v[C_ID]);
  if ((s = rpd_step(c->r, c->tid)) < 0)
    return -s;
  if (s == SQLITE_ROW)
    sqlite3_bind_value(c->ins, 5, sqlite3_column_value(c->tid, 0));
  else
    sqlite3_bind_null(c->ins, 5);
  return RPD_OK;
}

/* One call of the scan: the trace check's rule (check.h) -- a bad call is
 * counted for the message, and its values go nowhere -- then kept in
 * temp.an_sync when a sync rule reads it, and in the window. */
static int take_call(an_calls *c, const int64_t *v, unsigned ints)
{
  int64_t before = c->bad.bad, kind;
  int rc = RPD_OK, s;
  rpd_check_ints(&c->bad, v[C_START], v[C_END], 0,
                 (ints & 1u << C_START ? RPD_CHECK_START_INT : 0) |
                 (ints & 1u << C_END ? RPD_CHECK_END_INT : 0));
  if (c->bad.bad != before)
    return RPD_OK;
  /* a name id matches only as an integer, as IN (SELECT id ...) does */
  if ((ints & 1u << C_NAME) && rpd_i64map_get(&c->kind_of, v[C_NAME], &kind)) {
    sqlite3_reset(c->ins);
    sqlite3_bind_int64(c->ins, 1, kind);
    sqlite3_bind_int64(c->ins, 2, v[C_START]);
    sqlite3_bind_int64(c->ins, 3, v[C_END]);
    sqlite3_bind_int64(c->ins, 4, v[C_NAME]);
    if ((rc = bind_tid(c, v, ints)))
      return rc;
    if ((s = rpd_step(c->r, c->ins)) < 0)
      return -s;
  }
  if (c->windowed) {
    wcall *w;
    /* read in id order (ids_in_order): an id that is not an INTEGER (a
     * real may equal an integer id) or does not go up turns the window
     * off, and every call is found by its id from here (the ones found
     * in it so far were right: every id up to the last was read) */
    if (!(ints & 1u << C_ID) || (c->n && v[C_ID] <= c->win[(c->head + c->n - 1) % WINDOW].id)) {
      c->windowed = 0;
      return RPD_OK;
    }
    if (c->n == WINDOW)
      c->head = (c->head + 1) % WINDOW, c->n--;
    w = &c->win[(c->head + c->n++) % WINDOW];
    w->id = v[C_ID];
    w->start = v[C_START];
    w->end = v[C_END];
    w->name = ints & 1u << C_NAME ? v[C_NAME] : NAME_NOT_INT;
  }
  return RPD_OK;
}

/* The next call of the scan: 1, 0 at the end, or minus an error. */
static int read_call(an_calls *c)
{
  const int64_t *v = NULL;
  unsigned ints = 0;
  int got, rc;
  if (c->done)
    return 0;
  if ((got = rpd_intscan_row(c->r, &c->sc, &v, &ints)) <= 0) {
    c->done = got == 0;
    return got;
  }
  return (rc = take_call(c, v, ints)) ? -rc : 1;
}

int an_calls_finish(an_calls *c)
{
  int got;
  while ((got = read_call(c)) > 0)
    ;
  if (got < 0)
    return -got;
  return rpd_check_rows_result(&c->bad, "rocpd_api");
}

/* Is the call named by string id `name` a graph launch (GLOB
 * '*GraphLaunch*'; no such string: not one)?  Looked up once per name. */
static int is_graph_launch(const char *name)
{
  return strstr(name, "GraphLaunch") != NULL;
}

static int graph_launch(an_calls *c, int64_t id, int *rc)
{
  return an_string_flag(&c->graph, c->str, id, is_graph_launch, rc);
}

int an_calls_resolve(an_calls *c, sqlite3_stmt *st, an_call *out)
{
  int rc = RPD_OK, s, found = 0;
  while (!rc && (s = rpd_step(c->r, st)) == SQLITE_ROW) {
    int64_t start = sqlite3_column_int64(st, 1);
    if (found && start >= out->start)
      continue;
    found = 1;
    out->id = sqlite3_column_int64(st, 0);
    out->start = start;
    out->end = sqlite3_column_int64(st, 2);
    /* a NULL name is no graph launch; another value is read as an id */
    out->graph = sqlite3_column_type(st, 3) != SQLITE_NULL &&
                 graph_launch(c, sqlite3_column_int64(st, 3), &rc);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_reset(st);
  return rc ? -rc : found;
}

/* Where call id is in the window (its ids go up): its index from head,
 * or n when it is not there. */
static size_t win_find(const an_calls *c, int64_t id)
{
  size_t lo = 0, hi = c->n, p = (size_t)(id - c->win[c->head].id);
  if (p < c->n && c->win[(c->head + p) % WINDOW].id == id)
    return p;   /* dense ids: where it would be */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t m = c->win[(c->head + mid) % WINDOW].id;
    if (m == id)
      return mid;
    if (m < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return c->n;
}

int an_calls_find(an_calls *c, int64_t id, an_call *out)
{
  int got = 1, rc = RPD_OK;
  while (c->windowed && got > 0 && (!c->n || c->win[(c->head + c->n - 1) % WINDOW].id < id))
    got = read_call(c);
  if (got < 0)
    return got;
  if (c->windowed && c->n && id >= c->win[c->head].id) {
    size_t p = win_find(c, id);
    const wcall *w = &c->win[(c->head + p) % WINDOW];
    if (p == c->n)
      return 0;   /* between calls read: there is none */
    if (w->name != NAME_NOT_INT) {
      out->id = id;
      out->start = w->start;
      out->end = w->end;
      out->graph = graph_launch(c, w->name, &rc);
      return rc ? -rc : 1;
    }
  }
  sqlite3_bind_int64(c->seek, 1, id);
  return an_calls_resolve(c, c->seek, out);
}

int an_calls_in_id_order(const an_calls *c)
{
  return c->windowed;
}

void an_calls_free(an_calls *c)
{
  if (!c)
    return;
  rpd_intscan_close(&c->sc);
  sqlite3_finalize(c->ins);
  sqlite3_finalize(c->seek);
  sqlite3_finalize(c->str);
  sqlite3_finalize(c->tid);
  rpd_i64map_free(&c->kind_of);
  rpd_i64map_free(&c->graph);
  free(c->win);
  free(c);
}

/* Findings from the calls an_calls kept: ?1 rule, ?2 severity, ?3
 * min_count, ?4 advice, ?5 the unit of the value. */
static const char sync_memcpy_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, NULL, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5, S.string || ': ' || count(*) || ' calls', ?4"
  " FROM an_sync A JOIN rocpd_string S ON S.id = A.apiName_id WHERE A.kind = 1"
  " GROUP BY S.string HAVING count(*) >= ?3 ORDER BY min(A.start);";

static const char device_sync_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, A.tid, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5,"
  "  'thread ' || A.tid || ': ' || count(*) || ' device synchronizations', ?4"
  " FROM an_sync A WHERE A.kind = 2"
  " GROUP BY A.tid HAVING count(*) >= ?3 ORDER BY min(A.start);";

/* The buckets in MEMCPY_SQL's order: directions as BINARY sorts them. */
static const char *const memcpy_dirs[] = {"DtoD", "DtoH", "HtoD", "HtoH", "other"};
static const char *const memcpy_buckets[] = {"<4KB", "4KB-64KB", "64KB-1MB", "1MB-16MB",
                                             ">=16MB"};

typedef struct mbucket {
  int64_t n, bytes, ns;
} mbucket;

/* One copy of MEMCPY_READ's row st into g: 1, or 0 when only the SQL can
 * sum it (a size or duration that is not an integer, a sum past int64). */
static int memcpy_add(sqlite3_stmt *st, mbucket g[5][5])
{
  const char *dir = (const char *)sqlite3_column_text(st, 0);
  int d = 0;
  while (d < 5 && (!dir || strcmp(dir, memcpy_dirs[d])))
    d++;
  if (d == 5 || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
      sqlite3_column_type(st, 2) != SQLITE_INTEGER)
    return 0;
  int64_t size = sqlite3_column_int64(st, 1), dur = sqlite3_column_int64(st, 2);
  int k = size < 4096 ? 0 : size < 65536 ? 1 : size < 1048576 ? 2 : size < 16777216 ? 3 : 4;
  mbucket *b = &g[d][k];
  b->n++;
  return !__builtin_add_overflow(b->bytes, size, &b->bytes) &&
         !__builtin_add_overflow(b->ns, dur, &b->ns);
}

/* The buckets summed in C from one read of the copies (no sort): *done
 * 1 and ext_analysis_memcpy written, or 0 and nothing written when the
 * SQL must sum them.  RPD_OK or an error. */
static int memcpy_in_c(rpd *r, const char *read_sql, int *done)
{
  mbucket g[5][5];
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, read_sql, &st), s = 0, ok = 1;
  memset(g, 0, sizeof g);
  *done = 0;
  while (!rc && ok && (s = rpd_step(r, st)) == SQLITE_ROW)
    ok = memcpy_add(st, g);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  st = NULL;
  if (rc || !ok)
    return rc;
  rc = rpd_prepare(r, "INSERT INTO ext_analysis_memcpy VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &st);
  for (int d = 0; !rc && d < 5; d++)
    for (int k = 0; !rc && k < 5; k++) {
      const mbucket *b = &g[d][k];
      if (!b->n)
        continue;
      sqlite3_reset(st);
      sqlite3_bind_text(st, 1, memcpy_dirs[d], -1, SQLITE_STATIC);
      sqlite3_bind_text(st, 2, memcpy_buckets[k], -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, 3, b->n);
      sqlite3_bind_int64(st, 4, b->bytes);
      sqlite3_bind_int64(st, 5, b->ns);
      if (b->ns > 0)   /* 1.0 * sum(size) / sum(dur) */
        sqlite3_bind_double(st, 6, (double)b->bytes / (double)b->ns);
      else
        sqlite3_bind_null(st, 6);
      if ((s = rpd_step(r, st)) < 0)
        rc = -s;
    }
  sqlite3_finalize(st);
  *done = !rc;
  return rc;
}

int an_memcpy(rpd *r, int copy_links)
{
  static const char *const tables[] = {"rocpd_api_ops", NULL};
  int done = 0, rc;
  rpd_progress_sql_total(r, "memcpy", copy_links ? 0 : rpd_progress_rows_of(r, tables));
  rc = memcpy_in_c(r, copy_links ? MEMCPY_READ(LINKS_COPIES) : MEMCPY_READ(LINKS_ALL), &done);
  if (rc || done)
    return rc;
  return rpd_exec(r, copy_links ? MEMCPY_SQL(LINKS_COPIES) : MEMCPY_SQL(LINKS_ALL));
}

int an_api_rule(rpd *r, opts *o, int k)
{
  sqlite3_stmt *st = NULL;
  const rule *ru = &o->rules[k];
  int rc = rpd_prepare(r, k == R_SYNC_MEMCPY ? sync_memcpy_sql : device_sync_sql, &st), s;
  if (rc)
    return rc;
  sqlite3_bind_text(st, 1, ru->name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, ru->severity, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, ru->min_count);
  sqlite3_bind_text(st, 4, ru->advice, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, ru->value_unit, -1, SQLITE_STATIC);
  if ((s = rpd_step(r, st)) < 0)
    rc = -s;
  o->findings[k] += sqlite3_changes(rpd_db(r));
  sqlite3_finalize(st);
  return rc;
}

