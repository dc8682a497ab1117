/* check.c - one cheap query per table that finds rows whose start, end
 * (and gpuId) are of the wrong type or outside the sane range. */
#include "check.h"
#include "intscan.h"
#include "progress.h"

#include <inttypes.h>
#include <string.h>
#include "internal.h"

/* Counts per class, in the order of the query's columns. */
enum { START_TYPE, END_TYPE, START_RANGE, END_RANGE, ORDER, GPU_BAD, NCLASS };

static const char query_fmt[] =
    "SELECT count(*),"
    " sum(typeof(start) != 'integer'), sum(typeof(\"end\") != 'integer'),"
    " sum(typeof(start) = 'integer' AND (start < 0 OR start >= ?1)),"
    " sum(typeof(\"end\") = 'integer' AND (\"end\" < 0 OR \"end\" >= ?1)),"
    " sum(typeof(start) = 'integer' AND typeof(\"end\") = 'integer'"
    "     AND \"end\" < start),"
    " %s,"
    " sum(NOT (typeof(start) = 'integer' AND typeof(\"end\") = 'integer'"
    "     AND start >= 0 AND \"end\" >= start AND \"end\" < ?1%s))"
    " FROM \"%w\"";

static const char gpu_expr[] =
    "sum(typeof(gpuId) != 'integer' OR gpuId < 0 OR gpuId >= ?2)";
static const char gpu_ok[] =
    " AND typeof(gpuId) = 'integer' AND gpuId >= 0 AND gpuId < ?2";

/* The message for the first class with bad rows ("1 row is", "3 rows
 * are"). */
static int report(const char *table, const int64_t *n)
{
  static const char *const what[NCLASS][2] = {
    { "start: 1 row is not an integer", "start: %" PRId64 " rows are not integers" },
    { "end: 1 row is not an integer", "end: %" PRId64 " rows are not integers" },
    { "start: 1 row outside", "start: %" PRId64 " rows outside" },
    { "end: 1 row outside", "end: %" PRId64 " rows outside" },
    { "end: 1 row ends before it starts", "end: %" PRId64 " rows end before they start" },
    { "gpuId: 1 row is not an integer", "gpuId: %" PRId64 " rows are not integers" },
  };
  static const char *const tail[NCLASS] = {
    " (text, real, blob or null)", " (text, real, blob or null)", " 0 .. 2^62 ns",
    " 0 .. 2^62 ns", "", " in 0 .. 2^31-1",
  };
  char msg[160];

  for (int k = 0; k < NCLASS; k++) {
    if (n[k] <= 0) continue;
    snprintf(msg, sizeof msg, what[k][n[k] > 1], n[k]);
    return rpd_seterr(RPD_ERANGE, "%s.%s%s; fix or delete %s", table, msg, tail[k],
                      n[k] > 1 ? "those rows" : "it");
  }
  return RPD_OK;
}

/* The fast pass: the rows read in C (rpd_intscan: a batch per step, or
 * the table's pages read directly), each passing when its start, end
 * (and gpuId) are stored as integers with 0 <= start <= end < 2^62 (and
 * 0 <= gpuId < 2^31), stopping at the first that does not: an expression
 * per row in SQL cost SQLite's evaluation 2.5x the scan.  Stricter than
 * the classes of query_fmt (a real with no fraction fails here), never
 * looser, so a miss only sends the table to the full count; used only when
 * every checked column has INTEGER affinity, which stores such a real as an
 * integer. */
static const char fast_fmt[] = "SELECT 1 FROM \"%w\" WHERE rpd_intscan(?1, start, \"end\"%s)";

/* 1 if the columns start, end (and gpuId when gpu) of table are declared
 * with INTEGER affinity (a type name containing "INT"). */
static int integer_affinity(rpd *r, const char *table, int gpu)
{
  sqlite3_stmt *st = NULL;
  int64_t n = 0;

  if (rpd_prepare(r, "SELECT count(*) FROM pragma_table_info(?1) WHERE"
                     " (lower(name) IN ('start', 'end') OR (?2 AND lower(name) = 'gpuid'))"
                     " AND upper(type) LIKE '%INT%'", &st) != RPD_OK)
    return 0;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 2, gpu);
  if (rpd_step(r, st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n == 2 + (gpu != 0);
}

static int span_slot(const char *table);

/* RPD_OK with *clean = 1 when the fast pass finds no bad row. */
static int fast_clean(rpd *r, const char *table, int gpu, int *clean)
{
  rpd_intscan sc;
  const int64_t *v = NULL;
  unsigned ints = 0, all = gpu ? 7u : 3u;
  char *sql;
  int rc, s;

  *clean = 0;
  if (!integer_affinity(r, table, gpu)) return RPD_OK;
  sql = sqlite3_mprintf(fast_fmt, table, gpu ? ", gpuId" : "");
  if (!sql) return rpd_seterr(RPD_ENOMEM, "out of memory formatting SQL");
  rc = rpd_intscan_open(r, &sc, sql, gpu ? 3 : 2, all);
  sqlite3_free(sql);
  if (rc) return rc;
  int64_t lo = INT64_MAX, hi = INT64_MIN;   /* kept for rpd_check_span */
  while ((s = rpd_intscan_row(r, &sc, &v, &ints)) == 1) {
    if ((ints & all) != all || v[0] < 0 || v[1] < v[0] || v[1] >= RPD_TIME_LIMIT ||
        (gpu && (v[2] < 0 || v[2] >= RPD_GPU_LIMIT)))
      break;
    lo = v[0] < lo ? v[0] : lo;
    hi = v[1] > hi ? v[1] : hi;
  }
  int t = span_slot(table);
  if (s == 0 && t >= 0) {
    r->span_lo[t] = lo;
    r->span_hi[t] = hi;
    r->span_at[t] = sqlite3_total_changes64(r->db) + 1;
  }
  if (s == 0) *clean = 1;
  else if (s < 0) rc = -s;
  rpd_intscan_close(&sc);
  return rc;
}

/* The slot of r->span_* for table, or -1 (see internal.h). */
static int span_slot(const char *table)
{
  return !strcmp(table, "rocpd_api") ? 0 : !strcmp(table, "rocpd_op") ? 1 : -1;
}

int rpd_check_span(rpd *r, const char *table, int *have, int64_t *lo, int64_t *hi)
{
  int t = span_slot(table);
  if (t < 0 || !r->span_at[t] || r->span_at[t] - 1 != sqlite3_total_changes64(r->db))
    return 0;
  *have = r->span_lo[t] <= r->span_hi[t];
  *lo = r->span_lo[t];
  *hi = r->span_hi[t];
  return 1;
}

/* The slot of r->clean_at for table (with gpu), or NULL: only the two
 * tables every tool checks keep their verdict (a tool and the code it
 * calls often check the same table twice, a scan each). */
static long long *clean_slot(rpd *r, const char *table, int gpu)
{
  int t = !strcmp(table, "rocpd_api") ? 0 : !strcmp(table, "rocpd_op") ? 2 : -1;
  return t < 0 ? NULL : &r->clean_at[t + (gpu != 0)];
}

int rpd_check_table(rpd *r, const char *table, int gpu, int64_t *bad)
{
  int64_t n[NCLASS] = { 0 }, rows = 0;
  sqlite3_stmt *st = NULL;
  char *sql;
  int rc, s;

  if (bad) *bad = 0;
  if (!rpd_table_exists(r, table)) return RPD_OK;
  if (gpu && !rpd_column_exists(r, table, "gpuId")) gpu = 0;
  long long *slot = clean_slot(r, table, gpu);
  long long now = sqlite3_total_changes64(r->db);
  if (slot && *slot && *slot - 1 == now) return RPD_OK;
  int clean = 0;
  if ((rc = fast_clean(r, table, gpu, &clean)) || clean) {
    if (!rc && slot) *slot = now + 1;
    return rc;
  }
  sql = sqlite3_mprintf(query_fmt, gpu ? gpu_expr : "0", gpu ? gpu_ok : "", table);
  if (!sql) return rpd_seterr(RPD_ENOMEM, "out of memory formatting SQL");
  rc = rpd_prepare(r, sql, &st);
  sqlite3_free(sql);
  if (rc) return rc;
  sqlite3_bind_int64(st, 1, RPD_TIME_LIMIT);
  sqlite3_bind_int64(st, 2, RPD_GPU_LIMIT);
  s = rpd_step(r, st);
  if (s == SQLITE_ROW) {
    for (int k = 0; k < NCLASS; k++) n[k] = sqlite3_column_int64(st, k + 1);
    rows = sqlite3_column_int64(st, NCLASS + 1);
  } else if (s < 0) {
    rc = -s;
  }
  sqlite3_finalize(st);
  if (rc) return rc;
  if (bad) *bad = rows;
  rc = report(table, n);
  if (!rc && slot) *slot = now + 1;
  return rc;
}

_Static_assert(sizeof ((rpd_check_rows *)0)->n / sizeof (int64_t) == NCLASS,
               "rpd_check_rows.n has a slot per class");

/* The classes (bit k = class k) of one row's start, end and (with_gpu)
 * gpuId, given as whether each is an INTEGER and its value (looked at only
 * when it is); 0 for a sane row.  The one definition behind
 * rpd_check_values, rpd_check_row_ok and rpd_check_ints_ok
 * (rpd_check_table's SQL asks the same of every row). */
static unsigned classes(int si, int64_t s, int ei, int64_t e, int with_gpu, int gi, int64_t g)
{
  unsigned k = 0;

  if (with_gpu) k |= (unsigned)!(gi && g >= 0 && g < RPD_GPU_LIMIT) << GPU_BAD;
  if (si && ei && rpd_ns_sane(s) && rpd_ns_sane(e) && e >= s) return k;   /* the common case */
  k |= (unsigned)!si << START_TYPE;
  k |= (unsigned)!ei << END_TYPE;
  k |= (unsigned)(si && !rpd_ns_sane(s)) << START_RANGE;
  k |= (unsigned)(ei && !rpd_ns_sane(e)) << END_RANGE;
  k |= (unsigned)(si && ei && e < s) << ORDER;
  return k;
}

static unsigned row_classes(sqlite3_value *start, sqlite3_value *end, sqlite3_value *gpu)
{
  int si = sqlite3_value_type(start) == SQLITE_INTEGER;   /* the type first: */
  int ei = sqlite3_value_type(end) == SQLITE_INTEGER;     /* reading converts */
  int gi = gpu && sqlite3_value_type(gpu) == SQLITE_INTEGER;
  return classes(si, si ? sqlite3_value_int64(start) : 0, ei, ei ? sqlite3_value_int64(end) : 0,
                 gpu != NULL, gi, gi ? sqlite3_value_int64(gpu) : 0);
}

/* Count a row of classes k (0: a good row) into c. */
static void count_row(rpd_check_rows *c, unsigned k)
{
  if (!k) return;
  for (int i = 0; i < NCLASS; i++)
    c->n[i] += (k >> i) & 1;
  c->bad++;
}

void rpd_check_values(rpd_check_rows *c, sqlite3_value *start, sqlite3_value *end,
                      sqlite3_value *gpu)
{
  count_row(c, row_classes(start, end, gpu));
}

void rpd_check_ints(rpd_check_rows *c, int64_t start, int64_t end, int64_t gpu, unsigned ints)
{
  count_row(c, classes(!!(ints & RPD_CHECK_START_INT), start, !!(ints & RPD_CHECK_END_INT), end,
                       !!(ints & RPD_CHECK_WITH_GPU), !!(ints & RPD_CHECK_GPU_INT), gpu));
}

int rpd_check_row_ok(sqlite3_value *start, sqlite3_value *end, sqlite3_value *gpu)
{
  return row_classes(start, end, gpu) == 0;
}

int rpd_check_ints_ok(int64_t start, int64_t end, int64_t gpu, unsigned ints)
{
  return classes(!!(ints & RPD_CHECK_START_INT), start, !!(ints & RPD_CHECK_END_INT), end,
                 !!(ints & RPD_CHECK_WITH_GPU), !!(ints & RPD_CHECK_GPU_INT), gpu) == 0;
}

int rpd_check_rows_result(const rpd_check_rows *c, const char *table)
{
  return c->bad ? report(table, c->n) : RPD_OK;
}

static const char *const checked_tables[] = { "rocpd_api", "rocpd_op", NULL };

/* Whether this handle passed rpd_check_trace with no change since: the
 * driver and the call stack builder both check, and the second scan is
 * skipped.  The verdict lives in the handle (r->checked_at), so a new
 * connection never inherits an old one's, whatever address it gets. */
static int still_passed(const rpd *r)
{
  return r->checked_at && sqlite3_total_changes64(r->db) == r->checked_at - 1;
}

/* The page cache of the check's scans (KiB, as a negative cache_size):
 * each table is read once, so a big cache buys nothing, and SQLite keeps
 * a full cache allocated after the scan (64 MB by default) for the tool
 * that runs next. */
#define CHECK_CACHE_KIB 4096

/* *prev = the main database's cache_size; then set the small one. */
static int small_cache(rpd *r, int64_t *prev)
{
  sqlite3_stmt *st = NULL;
  int rc, s;

  if ((rc = rpd_prepare(r, "PRAGMA main.cache_size", &st))) return rc;
  s = rpd_step(r, st);
  if (s == SQLITE_ROW) *prev = sqlite3_column_int64(st, 0);
  else rc = s < 0 ? -s : rpd_seterr(RPD_ESQL, "PRAGMA cache_size returned no row");
  sqlite3_finalize(st);
  if (rc) return rc;
  /* Only ever shrink: a caller that chose a smaller cache keeps it. */
  if (*prev < 0 ? -*prev <= CHECK_CACHE_KIB : *prev * 4 <= CHECK_CACHE_KIB) return RPD_OK;
  return rpd_execf(r, "PRAGMA main.cache_size = -%d", CHECK_CACHE_KIB);
}

void rpd_check_mark_passed(rpd *r)
{
  long long now = sqlite3_total_changes64(r->db);

  r->checked_at = now + 1;
  for (int i = 0; i < 4; i++)
    r->clean_at[i] = now + 1;
}

int rpd_check_passed(const rpd *r)
{
  return still_passed(r);
}

int rpd_check_trace(rpd *r)
{
  int64_t prev = 0;
  int rc, rc2;

  if (still_passed(r)) return RPD_OK;
  if ((rc = small_cache(r, &prev))) return rc;
  rpd_progress_sql_total(r, "checking times", rpd_progress_rows_of(r, checked_tables));
  rc = rpd_check_table(r, "rocpd_api", 0, NULL);
  if (!rc) rc = rpd_check_table(r, "rocpd_op", 1, NULL);
  rpd_progress_end();
  /* Growing the cache back allocates nothing until pages are read. */
  rc2 = rpd_execf(r, "PRAGMA main.cache_size = %lld", (long long)prev);
  if (!rc) rc = rc2;
  r->checked_at = rc ? 0 : sqlite3_total_changes64(r->db) + 1;
  return rc;
}

int rpd_check_owned(rpd *r, const char *table, const char *const *cols)
{
  sqlite3_stmt *st = NULL;
  rpd_buf have = { 0 }, want = { 0 };
  int rc, s, is_table = 0;

  if (!rpd_table_exists(r, table)) return RPD_OK;
  rc = rpd_prepare(r, "SELECT type = 'table' FROM sqlite_master WHERE name = ?1 "
                      "COLLATE NOCASE", &st);
  if (!rc) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if ((s = rpd_step(r, st)) == SQLITE_ROW) is_table = sqlite3_column_int(st, 0);
    else if (s < 0) rc = -s;
  }
  sqlite3_finalize(st);
  st = NULL;
  if (!rc && !is_table)
    return rpd_seterr(RPD_EEXIST, "%s exists and is not a table; it was not written by "
                      "rpdtools: rename or drop it yourself", table);
  if (!rc) rc = rpd_prepare(r, "SELECT lower(name) FROM pragma_table_info(?1) ORDER BY cid", &st);
  if (!rc) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while ((s = rpd_step(r, st)) == SQLITE_ROW) {
      if (have.len) rpd_buf_puts(&have, ", ");
      rpd_buf_puts(&have, (const char *)sqlite3_column_text(st, 0));
    }
    if (s < 0) rc = -s;
  }
  sqlite3_finalize(st);
  for (int i = 0; cols[i]; i++) {
    char *low = sqlite3_mprintf("%s%s", i ? ", " : "", cols[i]);
    for (char *p = low; p && *p; p++)
      if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    if (low) rpd_buf_puts(&want, low);
    sqlite3_free(low);
  }
  if (!rc && strcmp(have.s ? have.s : "", want.s ? want.s : "") != 0)
    rc = rpd_seterr(RPD_EEXIST, "table %s exists with other columns (%s); it was not "
                    "written by rpdtools: rename or drop it yourself", table,
                    have.s ? have.s : "none");
  rpd_buf_free(&have);
  rpd_buf_free(&want);
  return rc;
}
