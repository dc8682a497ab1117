/* db.c - rpd-import: a rocprofv3 SQLite database (rocprofiler-sdk rocpd
 * schema), read only. */
#include <string.h>

#include "rpd.h"
#include "import.h"

/* ------------------------------------------------------------ rocprofv3 db */

static int64_t col_i64(sqlite3_stmt *st, int i) { return sqlite3_column_int64(st, i); }
static const char *col_txt(sqlite3_stmt *st, int i)
{
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

/* A GPU index column: NULL (no such agent) is -1. */
static int64_t col_gpu(sqlite3_stmt *st, int i)
{
  return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : col_i64(st, i);
}

/* Run `sql` on the input database and hand each row to row(m, st). */
static int db_each(imp *m, rpd *in, const char *sql, int (*row)(imp *m, sqlite3_stmt *st))
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(in, sql, &st), s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW)
    rc = row(m, st);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

static const char db_kernels_sql[] =
  "SELECT (SELECT CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END "
  "          FROM rocpd_info_agent A WHERE A.id = K.agent_id AND A.guid = K.guid),"
  "       K.queue_id, K.dispatch_id, K.start, K.end, E.stack_id, K.stream_id,"
  "       K.grid_size_x, K.grid_size_y, K.grid_size_z,"
  "       K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,"
  "       K.group_segment_size, K.private_segment_size,"
  "       coalesce(nullif(CASE WHEN json_valid(S.extdata) THEN"
  "         json_extract(S.extdata, '$.truncated_kernel_name') END, ''),"
  "         nullif(S.display_name, ''), S.kernel_name, ''),"
  "       coalesce(nullif(S.display_name, ''), S.kernel_name, '')"
  "  FROM rocpd_kernel_dispatch K"
  "  LEFT JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
  "  LEFT JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid"
  " ORDER BY K.guid, K.id";

static int db_kernel_row(imp *m, sqlite3_stmt *st)
{
  kern k = {0};
  int rc;
  count_read(m, "kernel_dispatch", 1);
  k.gpu = col_gpu(st, 0);
  k.queue = col_i64(st, 1);
  k.seq = col_i64(st, 2);
  k.start = col_i64(st, 3);
  k.end = col_i64(st, 4);
  k.corr = col_i64(st, 5);
  k.stream = col_i64(st, 6);
  for (int i = 0; i < 3; i++) {
    k.grid[i] = col_i64(st, 7 + i);
    k.wg[i] = col_i64(st, 10 + i);
  }
  k.lds = col_i64(st, 13);
  k.scratch = col_i64(st, 14);
  rc = sid(m, col_txt(st, m->full_names ? 16 : 15), &k.desc_id);
  if (!rc)
    rc = sid(m, col_txt(st, 16), &k.name_id);
  if (!rc)
    rc = w_kernel(m, &k);
  return rc;
}

static const char db_regions_sql[] =
  "SELECT E.stack_id, coalesce(P.pid, 0), coalesce(T.tid, 0), R.start, R.end,"
  "       coalesce(N.string, ''), coalesce(C.string, ''),"
  "       (SELECT group_concat(a, ' | ') FROM (SELECT name || '=' ||"
  "          coalesce(value, '') AS a FROM rocpd_arg G"
  "          WHERE G.event_id = R.event_id AND G.guid = R.guid ORDER BY position))"
  "  FROM rocpd_region R"
  "  LEFT JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid"
  "  LEFT JOIN rocpd_string N ON N.id = R.name_id AND N.guid = R.guid"
  "  LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid"
  "  LEFT JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid"
  "  LEFT JOIN rocpd_info_thread T ON T.id = R.tid AND T.guid = R.guid"
  " ORDER BY R.guid, R.id";

static const char *db_domain(const char *cat, const char **kind)
{
  if (!strncmp(cat, "HIP", 3)) { *kind = "hip_api"; return "HIP"; }
  if (!strncmp(cat, "HSA", 3)) { *kind = "hsa_api"; return "HSA"; }
  if (!strncmp(cat, "MARKER", 6)) { *kind = "marker_api"; return "ROCTX"; }
  if (!strncmp(cat, "RCCL", 4)) { *kind = "rccl_api"; return "RCCL"; }
  *kind = "region"; return cat;
}

static int db_region_row(imp *m, sqlite3_stmt *st)
{
  apirec a = {0};
  const char *kind;
  a.corr = col_i64(st, 0);
  a.pid = col_i64(st, 1);
  a.tid = col_i64(st, 2);
  a.start = col_i64(st, 3);
  a.end = col_i64(st, 4);
  a.name = col_txt(st, 5);
  a.category = col_txt(st, 6);
  a.args = col_txt(st, 7);
  a.domain = db_domain(a.category, &kind);
  if (!strcmp(kind, "marker_api")) {
    a.args = a.name;
    a.name = "UserMarker";
  }
  count_read(m, kind, 1);
  return w_api(m, &a);
}

static const char db_copies_sql[] =
  "SELECT coalesce(N.string, ''),"
  "  (SELECT CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END"
  "     FROM rocpd_info_agent A WHERE A.id = M.src_agent_id AND A.guid = M.guid),"
  "  (SELECT CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END"
  "     FROM rocpd_info_agent A WHERE A.id = M.dst_agent_id AND A.guid = M.guid),"
  "  M.start, M.end, E.stack_id, M.size, coalesce(M.stream_id, 0)"
  "  FROM rocpd_memory_copy M"
  "  LEFT JOIN rocpd_string N ON N.id = M.name_id AND N.guid = M.guid"
  "  LEFT JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid"
  " ORDER BY M.guid, M.id";

static int db_copy_row(imp *m, sqlite3_stmt *st)
{
  copyrec c = {0};
  count_read(m, "memory_copy", 1);
  c.kind = copy_kind(col_txt(st, 0));
  c.src_gpu = col_gpu(st, 1);
  c.dst_gpu = col_gpu(st, 2);
  c.start = col_i64(st, 3);
  c.end = col_i64(st, 4);
  c.corr = col_i64(st, 5);
  c.bytes = col_i64(st, 6);
  c.stream = col_i64(st, 7);
  return w_copy(m, &c);
}

static const char db_meta_sql[] =
  "SELECT P.pid, P.init, P.fini, P.command, N.hostname"
  "  FROM rocpd_info_process P LEFT JOIN rocpd_info_node N"
  "    ON N.id = P.nid AND N.guid = P.guid ORDER BY P.guid, P.id";

static int db_meta_row(imp *m, sqlite3_stmt *st)
{
  int rc;
  w_meta_time(m, col_i64(st, 1), col_i64(st, 2));
  rc = w_meta_int(m, "rocprofv3::pid", col_i64(st, 0));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::hostname", col_txt(st, 4));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::command", col_txt(st, 3));
  return rc;
}

int import_db(imp *m, const char *path)
{
  rpd *in = NULL;
  int rc = rpd_open(&in, path, NULL, RPD_READ | RPD_ANYDB);
  if (rc)
    return rc;
  static const char *const need[] = {
    "rocpd_kernel_dispatch", "rocpd_region", "rocpd_memory_copy", "rocpd_event",
    "rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol",
    "rocpd_info_process", "rocpd_info_thread", "rocpd_arg", NULL
  };
  for (int i = 0; need[i] && !rc; i++)
    if (!rpd_table_exists(in, need[i]))
      rc = rpd_seterr(RPD_ENOTRPD, "not a rocprofv3 database: no table or view '%s'",
                      need[i]);
  if (!rc)
    rc = db_each(m, in, db_meta_sql, db_meta_row);
  if (!rc)
    rc = db_each(m, in, db_kernels_sql, db_kernel_row);
  if (!rc)
    rc = db_each(m, in, db_regions_sql, db_region_row);
  if (!rc)
    rc = db_each(m, in, db_copies_sql, db_copy_row);
  rpd_close(in, 0);
  return rc;
}
