/* calls.c - rpd-analyze's SQL over api calls: the memcpy buckets (the
 * sizes of rocpd_copyapi joined to their copies' GPU time) and the
 * findings sync_memcpy and device_sync. */
#include "analyze.h"

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

/* Findings from api calls (the names matched once, in rocpd_string; each
 * call is one integer test): ?1 rule, ?2 severity, ?3 min_count, ?4 advice,
 * ?5 the unit of the value. */
static const char sync_memcpy_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, NULL, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5, S.string || ': ' || count(*) || ' calls', ?4"
  " FROM rocpd_api A JOIN rocpd_string S ON S.id = A.apiName_id"
  " WHERE A.apiName_id IN (SELECT id FROM rocpd_string"
  "  WHERE (string GLOB 'hipMemcpy*' OR string GLOB 'hipMemset*'"
  "   OR string GLOB 'cudaMemcpy*' OR string GLOB 'cudaMemset*')"
  "  AND string NOT GLOB '*Async*')"
  " GROUP BY S.string HAVING count(*) >= ?3 ORDER BY min(A.start);";

static const char device_sync_sql[] =
  "INSERT INTO ext_analysis_findings (rule, severity, gpuId, tid, start_ns, end_ns,"
  " count, value, value_unit, detail, advice)"
  " SELECT ?1, ?2, NULL, A.tid, min(A.start), max(A.\"end\"), count(*),"
  "  sum(A.\"end\" - A.start) / 1e3, ?5,"
  "  'thread ' || A.tid || ': ' || count(*) || ' device synchronizations', ?4"
  " FROM rocpd_api A"
  " WHERE A.apiName_id IN (SELECT id FROM rocpd_string"
  "  WHERE string IN ('hipDeviceSynchronize', 'cudaDeviceSynchronize'))"
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

