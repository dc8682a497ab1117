/* analysis.c - the queue-depth counter of rpd-analyze: when the trace has
 * ext_analysis_queue_depth (written by rpd-analyze), one counter series
 * "AnalysisQueueDepth q<queueId>" per GPU queue, on the GPU's process. */
#include "tracing.h"

#include <stdio.h>

/* Emit every ext_analysis_queue_depth point in [lo, hi]; RPD_OK when the
 * table is absent. */
int emit_analysis(conv *c) {
  sqlite3_stmt *st = NULL;
  int s = SQLITE_DONE, rc;
  char name[64];
  if (!rpd_table_exists(c->r, "ext_analysis_queue_depth")) return RPD_OK;
  rc = conv_prepare(c, &st,
      "SELECT gpuId, queueId, time_ns, depth FROM ext_analysis_queue_depth"
      " WHERE time_ns BETWEEN ?1 AND ?2 ORDER BY gpuId, queueId, time_ns");
  while (rc == RPD_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    snprintf(name, sizeof name, "AnalysisQueueDepth q%lld", (long long)sqlite3_column_int64(st, 1));
    counter_point(c, "analysis", sqlite3_column_int64(st, 0), name, sqlite3_column_int64(st, 2),
                  "depth", 1, sqlite3_column_int64(st, 3), 0);
  }
  if (rc == RPD_OK && s != SQLITE_DONE) rc = cerr(c->err, s == SQLITE_BUSY || s == SQLITE_LOCKED ? RPD_EBUSY : RPD_ESQL,
                  "%s", sqlite3_errmsg(c->db));
  sqlite3_finalize(st);
  return rc;
}
