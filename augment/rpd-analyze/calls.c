/* calls.c - rpd-analyze's api calls: the one scan of rocpd_api (the trace
 * check's rule on every call, the calls of the sync rules kept), the
 * findings sync_memcpy and device_sync, and the memcpy buckets (the sizes
 * of rocpd_copyapi joined to their copies' GPU time). */
#include "analyze.h"
#include "check.h"
#include "util/map.h"

#include <string.h>

static const char memcpy_sql[] =
  "INSERT INTO ext_analysis_memcpy"
  " WITH c AS (SELECT CASE"
  "   WHEN O.optype GLOB '*HostToDevice*' THEN 'HtoD'"
  "   WHEN O.optype GLOB '*DeviceToHost*' THEN 'DtoH'"
  "   WHEN O.optype GLOB '*DeviceToDevice*' THEN 'DtoD'"
  "   WHEN O.optype GLOB '*HostToHost*' THEN 'HtoH'"
  "   WHEN C.kind = 1 THEN 'HtoD' WHEN C.kind = 2 THEN 'DtoH'"
  "   WHEN C.kind = 3 THEN 'DtoD' WHEN C.kind = 0 THEN 'HtoH' ELSE 'other' END AS dir,"
  "   C.size AS size, O.e - O.s AS dur"
  "   FROM rocpd_copyapi C JOIN rocpd_api_ops X ON X.api_id = C.api_ptr_id"
  "   JOIN (SELECT P.id, P.s, P.e, T.string AS optype FROM an_copy P"
  "    LEFT JOIN rocpd_string T ON T.id = P.type) O ON O.id = X.op_id),"
  " b AS (SELECT dir, CASE WHEN size < 4096 THEN 1 WHEN size < 65536 THEN 2"
  "   WHEN size < 1048576 THEN 3 WHEN size < 16777216 THEN 4 ELSE 5 END AS bk,"
  "   size, dur FROM c)"
  " SELECT dir, CASE bk WHEN 1 THEN '<4KB' WHEN 2 THEN '4KB-64KB'"
  "   WHEN 3 THEN '64KB-1MB' WHEN 4 THEN '1MB-16MB' ELSE '>=16MB' END,"
  "  count(*), sum(size), sum(dur), CASE WHEN sum(dur) > 0"
  "   THEN 1.0 * sum(size) / sum(dur) END"
  " FROM b GROUP BY dir, bk ORDER BY dir, bk;";

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

int an_scan_calls(rpd *r)
{
  sqlite3_stmt *names = NULL, *st = NULL, *ins = NULL;
  rpd_i64map kind_of;
  rpd_check_rows bad;
  int rc, s = 0;
  memset(&kind_of, 0, sizeof kind_of);
  memset(&bad, 0, sizeof bad);
  rc = rpd_exec(r, sync_table_sql);
  if (!rc)
    rc = rpd_prepare(r, sync_names_sql, &names);
  while (!rc && (s = rpd_step(r, names)) == SQLITE_ROW)
    rpd_i64map_put(&kind_of, sqlite3_column_int64(names, 0), sqlite3_column_int64(names, 1));
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rc = rpd_prepare(r, "INSERT INTO an_sync VALUES (?,?,?,?,?)", &ins);
  if (!rc)
    rc = rpd_prepare(r, "SELECT start, \"end\", apiName_id, tid FROM rocpd_api", &st);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    sqlite3_value *name = sqlite3_column_value(st, 2);
    int64_t before = bad.bad, kind;
    /* the trace check's rule (check.h), every call: a bad one is counted
     * for the message, and its values go nowhere */
    rpd_check_values(&bad, sqlite3_column_value(st, 0), sqlite3_column_value(st, 1), NULL);
    /* a name id matches only as an integer, as IN (SELECT id ...) does */
    if (bad.bad != before || sqlite3_value_type(name) != SQLITE_INTEGER ||
        !rpd_i64map_get(&kind_of, sqlite3_value_int64(name), &kind))
      continue;
    sqlite3_reset(ins);
    sqlite3_bind_int64(ins, 1, kind);
    for (int i = 0; i < 4; i++)
      sqlite3_bind_value(ins, i + 2, sqlite3_column_value(st, i));
    if ((s = rpd_step(r, ins)) < 0)
      rc = -s;
  }
  if (!rc && s < 0)
    rc = -s;
  if (!rc)
    rc = rpd_check_rows_result(&bad, "rocpd_api");
  sqlite3_finalize(names);
  sqlite3_finalize(st);
  sqlite3_finalize(ins);
  rpd_i64map_free(&kind_of);
  return rc;
}

/* Findings from the calls an_scan_calls kept: ?1 rule, ?2 severity, ?3
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

int an_memcpy(rpd *r)
{
  return rpd_exec(r, memcpy_sql);
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

