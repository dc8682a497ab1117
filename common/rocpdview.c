/* rocpdview.c - read a rocprofv3 database (rocprofiler-sdk "rocpd"
 * schema) in place, as an RPD trace, with no copy: TEMP views named like
 * the RPD tables (rocpd_op, rocpd_api, ...) over the database's per-guid
 * tables, and small TEMP tables for what needs new ids (the strings, the
 * maps from the database's ids to them, the metadata).  Everything lives
 * in the connection's temp schema; the file is opened read only and never
 * changes.  The mapping is rpd-import's (tools/rpd-import/db.c): an api row
 * per region with id = its correlation id, an op per kernel dispatch then
 * per memory copy, linked by correlation id, marker names as the args of
 * a "UserMarker" call.  Used by rpd_open for readers only (internal to
 * common/). */
#include "rpd.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The adapter's statements.  "@name" stands for the database's table
 * rocpd_name of the one guid (main."rocpd_name_<guid>"). */
static const char *const adapt_sql[] = {
  /* every string the views name, each text once (rpd-import interns them) */
  "CREATE TEMP TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL UNIQUE)",
  "INSERT OR IGNORE INTO temp.rocpd_string(string) VALUES ('KernelExecution'), ('UserMarker'),"
  " ('HIP'), ('HSA'), ('ROCTX'), ('RCCL'), ('ROCDECODE'), ('ROCJPEG'), (''), ('CopyHostToHost'),"
  " ('CopyHostToDevice'), ('CopyDeviceToHost'), ('CopyDeviceToDevice')",
  "INSERT OR IGNORE INTO temp.rocpd_string(string) SELECT coalesce(string, '') FROM @string",
  "INSERT OR IGNORE INTO temp.rocpd_string(string)"
  " SELECT coalesce(nullif(display_name, ''), kernel_name, '') FROM @info_kernel_symbol",
  /* the database's string id -> ours; kernel symbol id -> ours */
  "CREATE TEMP TABLE rpdx_smap(id INTEGER PRIMARY KEY, sid INTEGER NOT NULL)",
  "INSERT INTO temp.rpdx_smap SELECT S.id, T.id FROM @string S"
  " JOIN temp.rocpd_string T ON T.string = coalesce(S.string, '')",
  "CREATE TEMP TABLE rpdx_kmap(id INTEGER PRIMARY KEY, sid INTEGER NOT NULL)",
  "INSERT INTO temp.rpdx_kmap SELECT K.id, T.id FROM @info_kernel_symbol K"
  " JOIN temp.rocpd_string T ON T.string = coalesce(nullif(K.display_name, ''), K.kernel_name, '')",
  /* a category string id -> the domain rpd-import gives it, marker or not */
  "CREATE TEMP TABLE rpdx_cat(id INTEGER PRIMARY KEY, dom INTEGER NOT NULL, marker INTEGER NOT NULL)",
  "INSERT INTO temp.rpdx_cat SELECT S.id, T.id, S.string LIKE 'MARKER%' FROM @string S"
  " JOIN temp.rocpd_string T ON T.string = CASE"
  "  WHEN S.string LIKE 'HIP%' THEN 'HIP' WHEN S.string LIKE 'HSA%' THEN 'HSA'"
  "  WHEN S.string LIKE 'MARKER%' THEN 'ROCTX' WHEN S.string LIKE 'RCCL%' THEN 'RCCL'"
  "  WHEN S.string LIKE 'ROCDECODE%' THEN 'ROCDECODE' WHEN S.string LIKE 'ROCJPEG%' THEN 'ROCJPEG'"
  "  ELSE coalesce(S.string, '') END",
  /* a copy name string id -> its op type and hipMemcpyKind */
  "CREATE TEMP TABLE rpdx_copy(id INTEGER PRIMARY KEY, optype INTEGER NOT NULL, kind INTEGER NOT NULL)",
  "INSERT INTO temp.rpdx_copy SELECT X.id, T.id, X.kind FROM (SELECT id, CASE"
  "  WHEN string LIKE '%HOST_TO_HOST%' THEN 0 WHEN string LIKE '%HOST_TO_DEVICE%' THEN 1"
  "  WHEN string LIKE '%DEVICE_TO_HOST%' THEN 2 ELSE 3 END AS kind FROM @string) X"
  " JOIN temp.rocpd_string T ON T.string = CASE X.kind WHEN 0 THEN 'CopyHostToHost'"
  "  WHEN 1 THEN 'CopyHostToDevice' WHEN 2 THEN 'CopyDeviceToHost' ELSE 'CopyDeviceToDevice' END",
  "CREATE TEMP TABLE rpdx_const(kexec INTEGER, umark INTEGER, empty INTEGER, nkern INTEGER)",
  "INSERT INTO temp.rpdx_const SELECT"
  " (SELECT id FROM temp.rocpd_string WHERE string = 'KernelExecution'),"
  " (SELECT id FROM temp.rocpd_string WHERE string = 'UserMarker'),"
  " (SELECT id FROM temp.rocpd_string WHERE string = ''),"
  " (SELECT coalesce(max(id), 0) FROM @kernel_dispatch)",
  /* correlation id -> the api row (the region) it names: the one copy of
   * per-row data, one integer pair per region, so that a join on
   * rocpd_api.id (the region's rowid) and on the links stays a lookup */
  "CREATE TEMP TABLE rpdx_corr(corr INTEGER PRIMARY KEY, api INTEGER NOT NULL)",
  "INSERT OR IGNORE INTO temp.rpdx_corr SELECT E.stack_id, R.id FROM @region R"
  " JOIN @event E ON E.id = R.event_id WHERE E.stack_id > 0 ORDER BY R.id",
  /* the GPU index of an agent (-1: not a GPU) */
  "CREATE TEMP VIEW rpdx_gpu AS SELECT id, CASE WHEN type = 'GPU' THEN type_index ELSE -1 END"
  " AS gpu FROM @info_agent",
  "CREATE TEMP VIEW rocpd_op(id, gpuId, queueId, sequenceId, start, \"end\", description_id,"
  " opType_id) AS"
  " SELECT K.id, coalesce((SELECT gpu FROM temp.rpdx_gpu G WHERE G.id = K.agent_id), -1),"
  "  K.queue_id, K.dispatch_id, K.start, K.end, M.sid, C.kexec"
  "  FROM @kernel_dispatch K JOIN temp.rpdx_kmap M ON M.id = K.kernel_id, temp.rpdx_const C"
  " UNION ALL"
  " SELECT C.nkern + P.id, CASE WHEN Y.kind = 1 THEN coalesce(D.gpu, S.gpu, 0)"
  "  ELSE coalesce(S.gpu, D.gpu, 0) END, 0, 0, P.start, P.end, C.empty, Y.optype"
  "  FROM @memory_copy P JOIN temp.rpdx_copy Y ON Y.id = P.name_id, temp.rpdx_const C"
  "  LEFT JOIN temp.rpdx_gpu S ON S.id = P.src_agent_id AND S.gpu >= 0"
  "  LEFT JOIN temp.rpdx_gpu D ON D.id = P.dst_agent_id AND D.gpu >= 0",
  "CREATE TEMP VIEW rocpd_api_ops(id, api_id, op_id) AS"
  " SELECT K.id, X.api, K.id FROM @kernel_dispatch K JOIN @event E ON E.id = K.event_id"
  "  JOIN temp.rpdx_corr X ON X.corr = E.stack_id"
  " UNION ALL"
  " SELECT C.nkern + P.id, X.api, C.nkern + P.id FROM temp.rpdx_const C, @memory_copy P"
  "  JOIN @event E ON E.id = P.event_id JOIN temp.rpdx_corr X ON X.corr = E.stack_id",
  "CREATE TEMP VIEW rocpd_api(id, pid, tid, start, \"end\", apiName_id, category_id, domain_id,"
  " args_id) AS"
  " SELECT R.id,"
  "  (SELECT pid FROM @info_process WHERE id = R.pid),"
  "  (SELECT tid FROM @info_thread WHERE id = R.tid), R.start, R.end,"
  "  CASE WHEN X.marker THEN C.umark ELSE N.sid END, Y.sid, X.dom,"
  "  CASE WHEN X.marker THEN N.sid ELSE C.empty END"
  "  FROM @region R JOIN @event E ON E.id = R.event_id"
  "  JOIN temp.rpdx_smap N ON N.id = R.name_id JOIN temp.rpdx_smap Y ON Y.id = E.category_id"
  "  JOIN temp.rpdx_cat X ON X.id = E.category_id, temp.rpdx_const C",
  /* the argument strings: a marker's text is its name; a region's
   * arguments (rocpd_arg) are not shown -- joining them to every region
   * costs more than the whole report (rpd-import copies them) */
  "CREATE TEMP VIEW rocpd_ustring(id, string) AS SELECT id, string FROM temp.rocpd_string",
  "CREATE TEMP VIEW rocpd_kernelapi(api_ptr_id, stream, gridX, gridY, gridZ, workgroupX,"
  " workgroupY, workgroupZ, groupSegmentSize, privateSegmentSize, kernelName_id) AS"
  " SELECT X.api, printf('0x%x', coalesce(K.stream_id, 0)), K.grid_size_x, K.grid_size_y,"
  "  K.grid_size_z, K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,"
  "  K.group_segment_size, K.private_segment_size, M.sid"
  "  FROM @kernel_dispatch K JOIN @event E ON E.id = K.event_id"
  "  JOIN temp.rpdx_corr X ON X.corr = E.stack_id JOIN temp.rpdx_kmap M ON M.id = K.kernel_id",
  "CREATE TEMP VIEW rocpd_copyapi(api_ptr_id, stream, size, width, height, kind, dst, src,"
  " dstDevice, srcDevice, sync, pinned) AS"
  " SELECT X.api, printf('0x%x', coalesce(P.stream_id, 0)), P.size, 0, 0, Y.kind, '', '',"
  "  coalesce(D.gpu, -1), coalesce(S.gpu, -1), 0, 0"
  "  FROM @memory_copy P JOIN @event E ON E.id = P.event_id"
  "  JOIN temp.rpdx_corr X ON X.corr = E.stack_id JOIN temp.rpdx_copy Y ON Y.id = P.name_id"
  "  LEFT JOIN temp.rpdx_gpu S ON S.id = P.src_agent_id"
  "  LEFT JOIN temp.rpdx_gpu D ON D.id = P.dst_agent_id",
  "CREATE TEMP VIEW rocpd_monitor(id, deviceType, deviceId, monitorType, start, \"end\", value)"
  " AS SELECT 0, '', 0, '', 0, 0, '' WHERE 0",
  "CREATE TEMP TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL)",
  "INSERT INTO temp.rocpd_metadata(tag, value) VALUES ('schema_version', '3'),"
  " ('rpd::rocprofv3_view', '1')",
  "INSERT INTO temp.rocpd_metadata(tag, value) SELECT tag, value FROM (SELECT P.id AS o,"
  "  'rocprofv3::pid' AS tag, P.pid AS value FROM @info_process P"
  " UNION ALL SELECT P.id, 'rocprofv3::hostname', N.hostname FROM @info_process P"
  "  JOIN @info_node N ON N.id = P.nid"
  " UNION ALL SELECT P.id, 'rocprofv3::command', P.command FROM @info_process P"
  " UNION ALL SELECT P.id, 'rocprofv3::init_time', P.init FROM @info_process P"
  " UNION ALL SELECT P.id, 'rocprofv3::fini_time', P.fini FROM @info_process P) ORDER BY o",
  NULL
};

/* sql with every "@name" replaced by main."rocpd_name<sfx>"; caller
 * sqlite3_free()s. */
static char *expand(const char *sql, const char *sfx)
{
  rpd_buf b = { 0 };
  char *out;

  for (const char *p = sql; *p;) {
    if (*p != '@') {
      const char *q = strchr(p, '@');
      size_t n = q ? (size_t)(q - p) : strlen(p);
      rpd_buf_add(&b, p, n);
      p += n;
      continue;
    }
    size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
    char *name = sqlite3_mprintf("main.\"rocpd_%.*w%w\"", (int)n, p + 1, sfx);
    rpd_buf_puts(&b, name);
    sqlite3_free(name);
    p += 1 + n;
  }
  out = sqlite3_mprintf("%s", b.s ? b.s : "");
  free(b.s);
  return out;
}

/* The one guid's table suffix ("_<guid>", or "" for unsuffixed tables) in
 * sfx; RPD_EROCPROF when the database holds several processes (guids). */
static int one_guid(sqlite3 *db, char *sfx, size_t n)
{
  static const char sql[] =
      "SELECT substr(name, 13) FROM sqlite_master WHERE type = 'table' AND"
      " (name = 'rocpd_region' OR name LIKE 'rocpd\\_region\\_%' ESCAPE '\\') LIMIT 2";
  sqlite3_stmt *st = NULL;
  int src = sqlite3_prepare_v2(db, sql, -1, &st, NULL), rows = 0;

  if (src != SQLITE_OK) return rpd__sqlerr(db, src, sql);
  while ((src = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    if (!rows++) snprintf(sfx, n, "%s", t ? (const char *)t : "");
  }
  sqlite3_finalize(st);
  if (src != SQLITE_DONE) return rpd__sqlerr(db, src, sql);
  if (rows != 1)
    return rpd_seterr(RPD_EROCPROF, "a rocprofv3 database%s, not an RPD trace; convert it "
                      "with rpd-import", rows ? " of several processes" : "");
  return RPD_OK;
}

int rpd__rocprof_view(sqlite3 *db)
{
  char sfx[256];
  int rc = one_guid(db, sfx, sizeof sfx);

  /* the open profiles set temp_store = FILE, and a change of temp_store
   * drops every TEMP object: set it first */
  if (!rc && sqlite3_exec(db, "PRAGMA temp_store = FILE", NULL, NULL, NULL) != SQLITE_OK)
    rc = rpd__sqlerr(db, sqlite3_errcode(db), "PRAGMA temp_store");

  for (int i = 0; !rc && adapt_sql[i]; i++) {
    char *sql = expand(adapt_sql[i], sfx);
    char *err = NULL;
    int src = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (src != SQLITE_OK)
      rc = rpd_seterr(RPD_EROCPROF, "a rocprofv3 database this tool cannot read in place (%s);"
                      " convert it with rpd-import", err ? err : sqlite3_errstr(src));
    sqlite3_free(err);
    sqlite3_free(sql);
  }
  return rc;
}
