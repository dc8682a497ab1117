/* health.c - the trace-health checks (health.h, docs/rpd-health.md).
 *
 * Each check is data: a query giving the count and a query giving the
 * first offending case in words.  "%K" in a query stands for the
 * condition selecting GPU work (kernels and copies, the opClass view) on
 * the column O.opType_id, "%N" for kernels only, "%R" for the rank of
 * O.gpuId in a merged trace (ranks.h); nothing else is pasted into the SQL.  The checks only read. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/map.h"
#include "health.h"
#include "health_int.h"
#include "intscan.h"
#include "opclass.h"
#include "ranks.h"

struct gpu_scan;

typedef struct check_def {
  const char *name;
  const char *meaning;
  const char *count_sql;    /* one integer */
  const char *example_sql;  /* one text, or no row */
  /* a faster way to the same count (NULL: count_sql); USE_SQL when the
   * data needs count_sql after all */
  int (*count_fn)(rpd *r, const char *const sub[3], struct gpu_scan *g, int64_t *n);
} check_def;

/* An op on a queue "overlaps" when it starts before an op queued before it
 * (by start, then id) on the same gpuId+queueId has ended: an in-order
 * queue runs one op at a time.  prev_end is the latest end so far. */
#define QUEUE_ORDER \
  "(SELECT O.id, O.gpuId, O.queueId, O.start, O.end, max(O.end) OVER w AS prev_end" \
  "  FROM rocpd_op O WHERE %K" \
  "  WINDOW w AS (PARTITION BY O.gpuId, O.queueId ORDER BY O.start, O.id" \
  "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))"

/* The ops and calls some link names (a list SQLite builds once per query,
 * not a look-up per row: rocpd_api_ops has no index on either column). */
#define LINKED_OPS "(SELECT op_id FROM rocpd_api_ops WHERE op_id IS NOT NULL)"
#define LINKED_APIS "(SELECT api_id FROM rocpd_api_ops WHERE api_id IS NOT NULL)"

/* Stream captures: from each Begin*Capture call to the next End*Capture
 * call of its thread.  A launch inside one is recorded into a graph and
 * runs later (as the graph's Task ops), so it has no op of its own.  The
 * calls are picked by name id from lists SQLite builds once (a join with
 * rocpd_string looked up every call's name: 0.15 instead of 0.05 CPU s on
 * a 1M-call trace). */
#define CAPTURES \
  "WITH cap AS (SELECT pid, tid, start, is_begin, lead(start) OVER" \
  "  (PARTITION BY pid, tid ORDER BY start, id) AS next_start FROM" \
  "  (SELECT A.id, A.pid, A.tid, A.start," \
  "   A.apiName_id IN " BEGIN_CAPTURE_NAMES " AS is_begin" \
  "   FROM rocpd_api A WHERE A.apiName_id IN " \
  CAPTURE_CALL_NAMES "))" \
  " , capture AS (SELECT pid, tid, start, coalesce(next_start, 9223372036854775807) AS end" \
  "  FROM cap WHERE is_begin) "
#define UNLINKED_LAUNCH \
  "A.apiName_id IN " LAUNCH_NAMES " AND A.id NOT IN " LINKED_APIS \
  " AND NOT EXISTS (SELECT 1 FROM capture C WHERE C.pid = A.pid AND C.tid = A.tid" \
  "  AND A.start BETWEEN C.start AND C.end)"

/* The counts of queue_overlap and duplicate_op from one ordered read of
 * the GPU ops (by gpuId, queueId, start, id), made once per run:
 *  - overlaps: per queue, the ops whose start is before the latest end of
 *    the ops before them (what the window of QUEUE_ORDER gives, at a
 *    quarter of its cost);
 *  - dups: per (gpuId, queueId, start), the ops whose (end, description_id)
 *    an earlier op of the same start has (the GROUP BY's sum of n - 1).
 * Values that are not integers are left to the SQL (USE_SQL), which
 * compares them as SQLite does. */
enum { USE_SQL = -1 };   /* a count_fn's "run count_sql instead" */

/* The ids the links name, as two id sets read from one scan of
 * rocpd_api_ops, and the SQL function rpd_linked(which, id) (which 0: an
 * op id, 1: an api id) that the count queries call instead of "NOT IN
 * LINKED_OPS / LINKED_APIS", for which SQLite builds an index of every
 * link per query.  Ids past IDSET_MAX, a value neither an integer nor
 * NULL, or a failed read: no function, and the queries with NOT IN run
 * instead. */
typedef struct linked {
  idset ids[2];
  int use;                  /* 1 the sets are read and the function set */
} linked;

static void linked_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
  const linked *l = sqlite3_user_data(cx);
  int which = sqlite3_value_int(argv[0]) != 0, hit = 0;
  (void)argc;
  if (sqlite3_value_type(argv[1]) == SQLITE_INTEGER)
    hit = rpd__idset_has(&l->ids[which], sqlite3_value_int64(argv[1]));
  sqlite3_result_int(cx, hit);
}

/* Read the sets and set the function; l->use = 0 when they cannot serve. */
static void linked_read(rpd *r, linked *l)
{
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0;
  int opened = !rpd_intscan_open(r, &sc, "SELECT 1 FROM rocpd_api_ops WHERE rpd_intscan(?1,"
                                 " op_id, api_id, op_id IS NULL, api_id IS NULL)", 4, 3u);
  int s = 0, ok = opened;
  while (ok && (s = rpd_intscan_row(r, &sc, &v, &ints)) == 1)
    for (int c = 0; c < 2 && ok; c++) {
      if (ints & 1u << c)
        ok = rpd__idset_add(&l->ids[c], v[c]);
      else   /* NULL is left out by both; any other value to the SQL, which */
        ok = v[2 + c] != 0;   /* compares it with the column's affinity */
    }
  if (opened)
    rpd_intscan_close(&sc);
  ok = ok && s == 0 &&
       sqlite3_create_function(rpd_db(r), "rpd_linked", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                               l, linked_fn, NULL, NULL) == SQLITE_OK;
  rpd_clearerr();
  l->use = ok;
}

static void linked_free(rpd *r, linked *l)
{
  if (l->use)
    sqlite3_create_function(rpd_db(r), "rpd_linked", 2, SQLITE_UTF8, NULL, NULL, NULL, NULL);
  rpd__idset_free(&l->ids[0]);
  rpd__idset_free(&l->ids[1]);
  l->use = 0;
}

typedef struct gpu_scan {
  int state;                 /* 0 not read, 1 read, USE_SQL */
  int64_t overlaps, dups;
  /* the checks that read the same rows, counted in one query each: the
   * links (op_before_launch, dangling_link) and the ops (outside_span,
   * op_without_launch, zero_length_kernel, unnamed_kernel) */
  int links_read, ops_read, ops_tried;   /* ops_tried: the pass in C ran */
  int64_t before, dangling;
  int64_t outside, unlaunched, zero_len, unnamed;
  int linked_tried;          /* lk read (or found unusable) */
  linked lk;
} gpu_scan;

/* The op row gpuId, queueId, start, end, description_id into op[]: RPD_OK,
 * or USE_SQL when a value is not an integer. */
static int op_row(sqlite3_stmt *st, int64_t op[5])
{
  for (int c = 0; c < 5; c++) {
    if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
      return USE_SQL;
    op[c] = sqlite3_column_int64(st, c);
  }
  return RPD_OK;
}

/* RPD_HEALTH_SQL=1 in the environment: the checks' SQL alone, no pass in
 * C (the tests and fuzz_trace compare the two). */
static int sql_only(void)
{
  const char *env = getenv("RPD_HEALTH_SQL");
  return env && !strcmp(env, "1");
}

static void linked_tried(rpd *r, gpu_scan *g)
{
  if (!g->linked_tried) {
    linked_read(r, &g->lk);
    g->linked_tried = 1;
  }
}

/* Once per run, when the links' sets serve: the op counts and the queue
 * counts from one read of the ops in C (health_ops.c), which leaves the
 * SQL nothing to do; what it cannot count stays to the SQL below. */
static int ops_in_c(rpd *r, gpu_scan *g)
{
  if (g->ops_tried)
    return RPD_OK;
  g->ops_tried = 1;
  linked_tried(r, g);
  if (!g->lk.use || sql_only())
    return RPD_OK;
  ops_counts c;
  int done = 0, rc = rpd__health_ops_pass(r, &g->lk.ids[0], &c, &done);
  if (rc || !done)
    return rc;
  g->outside = c.outside;
  g->unlaunched = c.unlaunched;
  g->zero_len = c.zero_len;
  g->unnamed = c.unnamed;
  g->ops_read = 1;
  if (c.queues_done) {
    g->overlaps = c.overlaps;
    g->dups = c.dups;
    g->state = 1;
  }
  return RPD_OK;
}

/* The queue counts from the GPU ops read by st (gpuId, queueId, start,
 * end, description_id) into w: RPD_OK (w->sorted 0 when a queue came out
 * of order), USE_SQL when a value is not an integer, or an error. */
static int queue_walk(rpd *r, sqlite3_stmt *st, qwalk *w)
{
  int64_t op[5];
  int rc = RPD_OK, s = 0;
  while ((s = rpd_step(r, st)) == SQLITE_ROW && w->sorted)
    if ((rc = op_row(st, op)) || !rpd__qwalk_add(w, op))
      break;
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rpd__qwalk_finish(w);
  return rc;
}

/* The queue counts: from the ops in rowid order when each queue's ops
 * come in (start, id) order already (tracers and rpd-import write a
 * queue's ops as they ran), else from them sorted by SQLite. */
static int gpu_scan_read(rpd *r, const char *gpu_work, gpu_scan *g)
{
  static const char *const order[2] = { "O.id", "O.gpuId, O.queueId, O.start, O.id" };
  int rc = RPD_OK;
  for (int k = 0; k < 2 && !g->state; k++) {
    char *sql = sqlite3_mprintf("SELECT O.gpuId, O.queueId, O.start, O.end, O.description_id"
                                " FROM rocpd_op O WHERE %s ORDER BY %s", gpu_work, order[k]);
    sqlite3_stmt *st = NULL;
    qwalk w;
    rpd__qwalk_init(&w);
    rc = sql ? rpd_prepare(r, sql, &st) : RPD_ENOMEM;
    if (!rc)
      rc = queue_walk(r, st, &w);
    if (!rc && w.sorted) {
      g->overlaps = w.overlaps;
      g->dups = w.dups;
      g->state = 1;
    }
    rpd__qwalk_free(&w);
    sqlite3_finalize(st);
    sqlite3_free(sql);
    if (rc == USE_SQL)
      g->state = USE_SQL;
    if (rc)
      break;
  }
  return rc == USE_SQL ? USE_SQL : rc;
}

static int queue_overlaps(rpd *r, const char *const sub[3], gpu_scan *g, int64_t *n)
{
  int rc = ops_in_c(r, g);
  if (rc)
    return rc;
  rc = g->state ? (g->state == USE_SQL ? USE_SQL : RPD_OK) : gpu_scan_read(r, sub[0], g);
  *n = g->overlaps;
  return rc;
}

static int duplicate_ops(rpd *r, const char *const sub[3], gpu_scan *g, int64_t *n)
{
  int rc = ops_in_c(r, g);
  if (rc)
    return rc;
  rc = g->state ? (g->state == USE_SQL ? USE_SQL : RPD_OK) : gpu_scan_read(r, sub[0], g);
  *n = g->dups;
  return rc;
}

/* op_before_launch and dangling_link in one pass over the links: a link
 * whose api or op row is missing has NULL for it (the ids are primary
 * keys: one row or none), and a NULL start compares to nothing, as in
 * the inner join of op_before_launch's own query. */
static const char links_sql[] =
  "SELECT count(CASE WHEN O.start < A.start THEN 1 END),"
  " count(CASE WHEN A.id IS NULL OR O.id IS NULL THEN 1 END)"
  " FROM rocpd_api_ops L LEFT JOIN rocpd_api A ON A.id = L.api_id"
  " LEFT JOIN rocpd_op O ON O.id = L.op_id";

/* outside_span, op_without_launch, zero_length_kernel and unnamed_kernel
 * in one pass over the ops: each count's own condition in a CASE (the
 * name's join is a primary-key look-up: one row or none per op). */
#define OPS_SQL(UNLINKED) \
  "WITH s AS (SELECT min(start) AS lo, max(end) AS hi FROM rocpd_api)" \
  " SELECT count(CASE WHEN s.lo IS NOT NULL" \
  "   AND (O.start < s.lo - 1000000000 OR O.end > s.hi + 1000000000) THEN 1 END)," \
  " count(CASE WHEN %K AND " UNLINKED " THEN 1 END)," \
  " count(CASE WHEN %N AND O.end = O.start THEN 1 END)," \
  " count(CASE WHEN %N AND (S.string IS NULL OR S.string = '') THEN 1 END)" \
  " FROM s, rocpd_op O LEFT JOIN rocpd_string S ON S.id = O.description_id"
static const char ops_sql[] = OPS_SQL("O.id NOT IN " LINKED_OPS);
static const char ops_sql_fn[] = OPS_SQL("NOT rpd_linked(0, O.id)");

static char *expand(const char *q, const char *const sub[3]);

/* Run links_sql or ops_sql once per run (which: 0 links, 1 ops). */
static int shared_counts(rpd *r, const char *const sub[3], gpu_scan *g, int which)
{
  int rc = which ? ops_in_c(r, g) : RPD_OK;
  if (rc || (which ? g->ops_read : g->links_read))
    return rc;
  if (which)
    linked_tried(r, g);
  char *sql = expand(!which ? links_sql : g->lk.use ? ops_sql_fn : ops_sql, sub);
  sqlite3_stmt *st = NULL;
  int s = 0;
  rc = rpd_prepare(r, sql, &st);
  free(sql);
  if (!rc && (s = rpd_step(r, st)) < 0)
    rc = -s;
  if (!rc && s == SQLITE_ROW && !which) {
    g->before = sqlite3_column_int64(st, 0);
    g->dangling = sqlite3_column_int64(st, 1);
    g->links_read = 1;
  } else if (!rc && s == SQLITE_ROW) {
    g->outside = sqlite3_column_int64(st, 0);
    g->unlaunched = sqlite3_column_int64(st, 1);
    g->zero_len = sqlite3_column_int64(st, 2);
    g->unnamed = sqlite3_column_int64(st, 3);
    g->ops_read = 1;
  } else if (!rc) {
    rc = USE_SQL;   /* no row: not expected of an aggregate */
  }
  sqlite3_finalize(st);
  return rc;
}

#define SHARED_COUNT(fn, which, field) \
  static int fn(rpd *r, const char *const sub[3], gpu_scan *g, int64_t *n) \
  { \
    int rc = shared_counts(r, sub, g, which); \
    *n = rc ? 0 : g->field; \
    return rc; \
  }
/* launch_without_op's count with rpd_linked for "A.id NOT IN LINKED_APIS"
 * (the same query otherwise). */
static int unlinked_launches(rpd *r, const char *const sub[3], gpu_scan *g, int64_t *n)
{
  (void)sub;
  linked_tried(r, g);
  if (!g->lk.use)
    return USE_SQL;
  /* one read of the calls in C when the values allow */
  int done = 0, rc = RPD_OK;
  if (!sql_only() && ((rc = rpd__health_launches_pass(r, &g->lk.ids[1], n, &done)) || done))
    return rc;
  /* no Begin*Capture name: no capture, and no scan of the calls for one */
  int64_t caps = 1;
  rc = rpd_query_int64(r, "SELECT EXISTS " BEGIN_CAPTURE_NAMES, &caps);
  if (rc)
    return rc;
  if (!caps)
    return rpd_query_int64(r, "SELECT count(*) FROM rocpd_api A WHERE"
                           " A.apiName_id IN " LAUNCH_NAMES " AND NOT rpd_linked(1, A.id)", n);
  return rpd_query_int64(r, CAPTURES "SELECT count(*) FROM rocpd_api A WHERE"
                         " A.apiName_id IN " LAUNCH_NAMES " AND NOT rpd_linked(1, A.id)"
                         " AND NOT EXISTS (SELECT 1 FROM capture C WHERE C.pid = A.pid"
                         "  AND C.tid = A.tid AND A.start BETWEEN C.start AND C.end)", n);
}

SHARED_COUNT(op_before_launch, 0, before)
SHARED_COUNT(dangling_links, 0, dangling)
SHARED_COUNT(outside_span, 1, outside)
SHARED_COUNT(op_without_launch, 1, unlaunched)
SHARED_COUNT(zero_length_kernels, 1, zero_len)
SHARED_COUNT(unnamed_kernels, 1, unnamed)

static const check_def checks[] = {
  { "bad_timestamp",
    "start/end not integers, outside 0..2^62 ns, or end before start",
    NULL, NULL, NULL },   /* rpd_check_table */
  { "queue_overlap",
    "ops on one gpuId+queueId overlap: an in-order queue cannot run two at once",
    "SELECT count(*) FROM " QUEUE_ORDER " WHERE start < prev_end",
    "SELECT printf('largest: op %%d (gpu %%d queue %%d) starts %%d ns before an earlier op"
    " on its queue ends', id, gpuId, queueId, prev_end - start)"
    " FROM " QUEUE_ORDER " WHERE start < prev_end ORDER BY prev_end - start DESC, id LIMIT 1",
    queue_overlaps },
  { "op_before_launch",
    "an op starts before the api call that launched it",
    "SELECT count(*) FROM rocpd_api_ops L JOIN rocpd_api A ON A.id = L.api_id"
    " JOIN rocpd_op O ON O.id = L.op_id WHERE O.start < A.start",
    "SELECT printf('op %%d starts %%d ns before its call %%d (%%s)', O.id,"
    " A.start - O.start, A.id, coalesce(S.string, '?'))"
    " FROM rocpd_api_ops L JOIN rocpd_api A ON A.id = L.api_id"
    " JOIN rocpd_op O ON O.id = L.op_id LEFT JOIN rocpd_string S ON S.id = A.apiName_id"
    " WHERE O.start < A.start ORDER BY L.id LIMIT 1", op_before_launch },
  { "dangling_link",
    "rocpd_api_ops rows whose api or op row is missing",
    "SELECT count(*) FROM rocpd_api_ops L WHERE NOT EXISTS"
    " (SELECT 1 FROM rocpd_api A WHERE A.id = L.api_id)"
    " OR NOT EXISTS (SELECT 1 FROM rocpd_op O WHERE O.id = L.op_id)",
    "SELECT printf('rocpd_api_ops row %%d: %%s', L.id,"
    " CASE WHEN NOT EXISTS (SELECT 1 FROM rocpd_api A WHERE A.id = L.api_id)"
    " THEN printf('api %%s is missing', L.api_id) ELSE printf('op %%s is missing', L.op_id) END)"
    " FROM rocpd_api_ops L WHERE NOT EXISTS"
    " (SELECT 1 FROM rocpd_api A WHERE A.id = L.api_id)"
    " OR NOT EXISTS (SELECT 1 FROM rocpd_op O WHERE O.id = L.op_id) ORDER BY L.id LIMIT 1", dangling_links },
  { "outside_span",
    "ops more than 1 s outside the span of the api calls: two clock domains",
    "WITH s AS (SELECT min(start) AS lo, max(end) AS hi FROM rocpd_api)"
    " SELECT count(*) FROM rocpd_op O, s WHERE s.lo IS NOT NULL"
    " AND (O.start < s.lo - 1000000000 OR O.end > s.hi + 1000000000)",
    "WITH s AS (SELECT min(start) AS lo, max(end) AS hi FROM rocpd_api)"
    " SELECT printf('op %%d %%s', O.id, CASE WHEN O.start < s.lo - 1000000000"
    " THEN printf('starts %%.3f s before the first api call', (s.lo - O.start) / 1e9)"
    " ELSE printf('ends %%.3f s after the last api call', (O.end - s.hi) / 1e9) END)"
    " FROM rocpd_op O, s WHERE s.lo IS NOT NULL"
    " AND (O.start < s.lo - 1000000000 OR O.end > s.hi + 1000000000) ORDER BY O.id LIMIT 1", outside_span },
  { "op_without_launch",
    "GPU ops (kernels, copies) no api call is linked to: launch records dropped",
    "SELECT count(*) FROM rocpd_op O WHERE %K"
    " AND O.id NOT IN " LINKED_OPS,
    "SELECT printf('op %%d (gpu %%d queue %%d) %%s', O.id, O.gpuId, O.queueId,"
    " coalesce(S.string, '?')) FROM rocpd_op O LEFT JOIN rocpd_string S ON S.id = O.description_id"
    " WHERE %K AND O.id NOT IN " LINKED_OPS
    " ORDER BY O.id LIMIT 1", op_without_launch },
  { "launch_without_op",
    "kernel launch calls with no op linked: GPU records dropped",
    CAPTURES "SELECT count(*) FROM rocpd_api A WHERE " UNLINKED_LAUNCH,
    CAPTURES "SELECT printf('call %%d (%%s, pid %%d tid %%d)', A.id, S.string, A.pid, A.tid)"
    " FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id"
    " WHERE " UNLINKED_LAUNCH " ORDER BY A.id LIMIT 1", unlinked_launches },
  { "zero_length_kernel",
    "kernels with end = start: no duration was recorded",
    "SELECT count(*) FROM rocpd_op O WHERE %N AND O.end = O.start",
    "SELECT printf('op %%d (gpu %%d) %%s', O.id, O.gpuId, coalesce(S.string, '?'))"
    " FROM rocpd_op O LEFT JOIN rocpd_string S ON S.id = O.description_id"
    " WHERE %N AND O.end = O.start ORDER BY O.id LIMIT 1", zero_length_kernels },
  { "unnamed_kernel",
    "kernels whose name is empty or missing from rocpd_string",
    "SELECT count(*) FROM rocpd_op O LEFT JOIN rocpd_string S ON S.id = O.description_id"
    " WHERE %N AND (S.string IS NULL OR S.string = '')",
    "SELECT printf('op %%d (gpu %%d queue %%d), description_id %%s', O.id, O.gpuId,"
    " O.queueId, O.description_id) FROM rocpd_op O"
    " LEFT JOIN rocpd_string S ON S.id = O.description_id"
    " WHERE %N AND (S.string IS NULL OR S.string = '') ORDER BY O.id LIMIT 1", unnamed_kernels },
  { "duplicate_op",
    "ops recorded twice (same GPU, queue, start, end and name)",
    "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM rocpd_op O WHERE %K"
    " GROUP BY O.gpuId, O.queueId, O.start, O.end, O.description_id HAVING n > 1)",
    "SELECT printf('%%d copies of op %%d (gpu %%d queue %%d, start %%d)', n, id, gpuId,"
    " queueId, start) FROM (SELECT count(*) AS n, min(O.id) AS id, O.gpuId, O.queueId,"
    " O.start FROM rocpd_op O WHERE %K"
    " GROUP BY O.gpuId, O.queueId, O.start, O.end, O.description_id HAVING n > 1)"
    " ORDER BY id LIMIT 1", duplicate_ops },
  { "rank_clock_skew",
    "a merged trace's ranks start their GPU work more than 1 s apart: clocks not aligned",
    "WITH f AS (SELECT min(O.start) AS t FROM rocpd_op O JOIN rpd_rank R"
    " ON %R = R.rank GROUP BY R.rank), m AS (SELECT min(t) AS lo FROM f)"
    " SELECT count(*) FROM f, m WHERE f.t > m.lo + 1000000000",
    "WITH f AS (SELECT R.rank AS rank, min(O.start) AS t FROM rocpd_op O JOIN rpd_rank R"
    " ON %R = R.rank GROUP BY R.rank), m AS (SELECT min(t) AS lo FROM f)"
    " SELECT printf('rank %%d starts %%.3f s after the first rank', rank, (t - m.lo) / 1e9)"
    " FROM f, m WHERE f.t > m.lo + 1000000000 ORDER BY t DESC LIMIT 1", NULL },
};

enum { NCHECKS = (int)(sizeof checks / sizeof checks[0]) };

/* The text of q with %K / %N / %R replaced by sub[0..2] (the GPU-work and
 * kernel conditions, the rank expression) and %% by %; new memory. */
static char *expand(const char *q, const char *const sub[3])
{
  rpd_buf b = {0};
  for (const char *p = q; *p; p++) {
    const char *k = p[0] == '%' && p[1] ? strchr("KNR", p[1]) : NULL;
    if (k) {
      rpd_buf_puts(&b, sub[k - "KNR"]);
      p++;
    } else if (p[0] == '%' && p[1] == '%') {
      rpd_buf_add(&b, "%", 1);
      p++;
    } else {
      rpd_buf_add(&b, p, 1);
    }
  }
  rpd_buf_add(&b, "", 1);
  return b.s;
}

/* Run one query that gives a single value: its integer in *n, or its text
 * (new memory) in *text.  No row: *n = 0 / *text = "". */
static int one_value(rpd *r, const char *sql, int64_t *n, char **text)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st), s = 0;
  if (!rc && (s = rpd_step(r, st)) < 0)
    rc = -s;
  if (!rc && n)
    *n = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  if (!rc && text) {
    const char *t = s == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    *text = rpd_xstrdup(t ? t : "");
  }
  sqlite3_finalize(st);
  return rc;
}

/* bad_timestamp: the shared value check of both tables, as counts. */
static int bad_timestamps(rpd *r, rpd_health_row *row)
{
  static const char *const tables[] = { "rocpd_api", "rocpd_op" };
  char *first = NULL;
  for (int i = 0; i < 2; i++) {
    int64_t bad = 0;
    int rc = rpd_check_table(r, tables[i], i == 1, &bad);
    if (rc && rc != RPD_ERANGE) {
      free(first);
      return rc;
    }
    row->count += bad;
    if (rc == RPD_ERANGE && !first)
      first = rpd_xstrdup(rpd_errmsg());
  }
  rpd_clearerr();
  row->example = first ? first : rpd_xstrdup("");
  return RPD_OK;
}

/* The check needs rpd_rank (a merged trace); elsewhere it finds nothing. */
static int applies(rpd *r, const check_def *c)
{
  if (!strcmp(c->name, "rank_clock_skew"))
    return rpd_table_exists(r, "rpd_rank") == 1;
  return 1;
}

/* Run every check (health.h). */
int rpd_health_run(rpd *r, rpd_health *out)
{
  char *sub[3] = { NULL, NULL, NULL };
  int rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_GPU_WORK, &sub[0]);
  if (!rc)
    rc = rpd_opclass_condition_now(r, "O.opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL),
                                   &sub[1]);
  if (!rc)
    sub[2] = rpd_rank_of_gpu(r, "O.gpuId");
  gpu_scan scan = {0};

  out->row = rpd_xcalloc(NCHECKS, sizeof *out->row);
  out->n = 0;
  for (int i = 0; i < NCHECKS && !rc; i++) {
    rpd_health_row *row = &out->row[out->n++];
    row->check = checks[i].name;
    row->meaning = checks[i].meaning;
    if (!checks[i].count_sql) {
      rc = bad_timestamps(r, row);
      continue;
    }
    if (!applies(r, &checks[i])) {
      row->example = rpd_xstrdup("");
      continue;
    }
    rc = checks[i].count_fn ? checks[i].count_fn(r, (const char *const *)sub, &scan, &row->count)
                            : USE_SQL;
    if (rc == USE_SQL) {
      char *cq = expand(checks[i].count_sql, (const char *const *)sub);
      rc = one_value(r, cq, &row->count, NULL);
      free(cq);
    }
    if (!rc && row->count) {
      char *eq = expand(checks[i].example_sql, (const char *const *)sub);
      rc = one_value(r, eq, NULL, &row->example);
      free(eq);
    } else if (!rc) {
      row->example = rpd_xstrdup("");
    }
  }
  linked_free(r, &scan.lk);
  for (int i = 0; i < 3; i++)
    free(sub[i]);
  if (rc)
    rpd_health_free(out);
  return rc;
}

/* Free the rows (health.h). */
void rpd_health_free(rpd_health *h)
{
  for (int i = 0; i < h->n; i++)
    free(h->row[i].example);
  free(h->row);
  h->row = NULL;
  h->n = 0;
}

/* Count the non-zero checks (health.h). */
int rpd_health_failed(const rpd_health *h)
{
  int n = 0;
  for (int i = 0; i < h->n; i++)
    n += h->row[i].count != 0;
  return n;
}
