/* upgrade.c - rpd-schema --upgrade: a schema 2 trace converted to schema
 * 3 in one transaction, rows and view results preserved. */
#include "rpd.h"
#include "schema.h"   /* rpd_utility_views, rpd_schema_install_view */
#include "rpd-schema.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The v2 columns the upgrade knows how to carry over. */
static const char *const v2_api_cols[] = {
  "id", "pid", "tid", "start", "end", "apiName_id", "args_id", NULL };
static const char *const v2_op_cols[] = {
  "id", "gpuId", "queueId", "sequenceId", "completionSignal", "start", "end",
  "description_id", "opType_id", NULL };

/* RPD_OK if `table` has only the columns in `known`; else a reason. */
static int only_columns(rpd *r, const char *table, const char *const *known)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, "SELECT name FROM pragma_table_info(?)", &st), s;
  if (rc)
    return rc;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *c = (const char *)sqlite3_column_text(st, 0);
    int ok = 0;
    for (int i = 0; known[i]; i++)
      ok |= sqlite3_stricmp(c, known[i]) == 0;
    if (!ok)
      rc = rpd_seterr(RPD_ENOTRPD, "%s has an unexpected column '%s'; "
                      "not upgrading", table, c);
  }
  if (rc == RPD_OK && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* The CREATE TABLE text of `table` in the v3 schema (new string, caller
 * frees), read from a scratch in-memory database built from views/schema.sql
 * so that the text is exactly the one --create writes. */
static int v3_table_sql(const char *table, char **out)
{
  sqlite3 *mem = NULL;
  sqlite3_stmt *st = NULL;
  int rc = RPD_OK;

  *out = NULL;
  if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
      sqlite3_exec(mem, rpd_view_sql("schema", 3), NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(mem, "SELECT sql FROM sqlite_master WHERE name = ?", -1,
                         &st, NULL) != SQLITE_OK)
    rc = rpd_seterr(RPD_ERR, "embedded v3 schema: %s", sqlite3_errmsg(mem));
  if (rc == RPD_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      *out = rpd_xstrdup((const char *)sqlite3_column_text(st, 0));
    else
      rc = rpd_seterr(RPD_ERR, "embedded v3 schema has no %s", table);
  }
  sqlite3_finalize(st);
  sqlite3_close(mem);
  return rc;
}

/* Views, and the indexes/triggers of the two rebuilt tables, are saved,
 * dropped, and recreated after the rebuild (utility views from views/). */
static int save_and_drop(rpd *r, rpd_buf *views, rpd_buf *after)
{
  sqlite3_stmt *st = NULL;
  rpd_buf drops = {0};
  int rc = rpd_prepare(r, "SELECT type, name, tbl_name, sql FROM sqlite_master "
                       "WHERE sql IS NOT NULL AND (type = 'view' OR (type IN "
                       "('index', 'trigger') AND tbl_name IN ('rocpd_api', "
                       "'rocpd_op'))) ORDER BY rowid", &st), s;
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *type = (const char *)sqlite3_column_text(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *sql = (const char *)sqlite3_column_text(st, 3);
    int utility = 0;
    for (int i = 0; rpd_utility_views[i]; i++)
      utility |= sqlite3_stricmp(name, rpd_utility_views[i]) == 0;
    if (strcmp(type, "view") == 0) {
      char *d = sqlite3_mprintf("DROP VIEW \"%w\";\n", name);
      rpd_buf_puts(&drops, d);
      sqlite3_free(d);
      if (!utility) {
        rpd_buf_puts(views, sql);
        rpd_buf_puts(views, ";\n");
      }
    } else {
      rpd_buf_puts(after, sql);   /* dropped with its table */
      rpd_buf_puts(after, ";\n");
    }
  }
  if (rc == RPD_OK && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  if (rc == RPD_OK && drops.len)
    rc = rpd_exec(r, drops.s);
  rpd_buf_free(&drops);
  return rc;
}

/* Args strings to rocpd_ustring: a temp map old args_id -> new id ("" -> the
 * ustring id of "", normally 1; a dangling id -> -old so joins still drop
 * that row, as before). */
static int move_args(rpd *r)
{
  int64_t base = 0, empty = 0;
  int rc = rpd_exec(r,
      "CREATE TEMP TABLE rpd_args_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
      "INSERT INTO rocpd_ustring (id, string) SELECT 1, '' WHERE NOT EXISTS "
      "  (SELECT 1 FROM rocpd_ustring WHERE id = 1);"
      "INSERT INTO rocpd_ustring (string) SELECT '' WHERE NOT EXISTS "
      "  (SELECT 1 FROM rocpd_ustring WHERE string = '');");
  if (rc == RPD_OK)
    rc = rpd_query_int64(r, "SELECT id FROM rocpd_ustring WHERE string = '' "
                         "ORDER BY id LIMIT 1", &empty);
  if (rc == RPD_OK)
    rc = rpd_query_int64(r, "SELECT max(id) FROM rocpd_ustring", &base);
  if (rc == RPD_OK)
    rc = rpd_execf(r,
      "INSERT INTO rpd_args_map (old, new) "
      "  SELECT a.args_id, CASE WHEN s.id IS NULL THEN -a.args_id "
      "    WHEN s.string = '' THEN %lld ELSE 0 END "
      "  FROM (SELECT DISTINCT args_id FROM rocpd_api) a "
      "  LEFT JOIN rocpd_string s ON s.id = a.args_id;"
      "UPDATE rpd_args_map SET new = %lld + rn FROM "
      "  (SELECT old AS o, row_number() OVER (ORDER BY old) AS rn "
      "   FROM rpd_args_map WHERE new = 0) WHERE old = o;"
      "INSERT INTO rocpd_ustring (id, string) SELECT m.new, s.string "
      "  FROM rpd_args_map m JOIN rocpd_string s ON s.id = m.old "
      "  WHERE m.new > %lld ORDER BY m.new;",
      (long long)empty, (long long)base, (long long)base);
  return rc;
}

/* Rebuild rocpd_api and rocpd_op with the v3 column layout. */
static int rebuild_tables(rpd *r, int keep_signal)
{
  char *api_sql = NULL, *op_sql = NULL;
  int64_t api_seq = 0, op_seq = 0;
  int rc = v3_table_sql("rocpd_api", &api_sql);

  if (rc == RPD_OK && !keep_signal)
    rc = v3_table_sql("rocpd_op", &op_sql);
  if (rc == RPD_OK && rpd_table_exists(r, "sqlite_sequence")) {
    rpd_query_int64(r, "SELECT seq FROM sqlite_sequence WHERE name = 'rocpd_api'", &api_seq);
    rpd_query_int64(r, "SELECT seq FROM sqlite_sequence WHERE name = 'rocpd_op'", &op_seq);
    rpd_clearerr();
  }
  if (rc == RPD_OK)
    rc = rpd_exec(r, "ALTER TABLE rocpd_api RENAME TO rpd_old_api");
  if (rc == RPD_OK)
    rc = rpd_exec(r, api_sql);
  if (rc == RPD_OK)
    rc = rpd_exec(r,
      "INSERT INTO rocpd_api (id, pid, tid, start, \"end\", apiName_id, "
      "  category_id, domain_id, args_id) "
      "SELECT a.id, a.pid, a.tid, a.start, a.\"end\", a.apiName_id, 1, 1, m.new "
      "  FROM rpd_old_api a JOIN rpd_args_map m ON m.old = a.args_id ORDER BY a.id;"
      "DROP TABLE rpd_old_api;");
  if (rc == RPD_OK && op_sql)
    rc = rpd_exec(r, "ALTER TABLE rocpd_op RENAME TO rpd_old_op");
  if (rc == RPD_OK && op_sql)
    rc = rpd_exec(r, op_sql);
  if (rc == RPD_OK && op_sql)
    rc = rpd_exec(r,
      "INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, start, \"end\", "
      "  description_id, opType_id) "
      "SELECT id, gpuId, queueId, sequenceId, start, \"end\", description_id, "
      "  opType_id FROM rpd_old_op ORDER BY id;"
      "DROP TABLE rpd_old_op;");
  if (rc == RPD_OK && api_seq)
    rc = rpd_execf(r, "UPDATE sqlite_sequence SET seq = %lld WHERE name = "
                   "'rocpd_api' AND seq < %lld", (long long)api_seq, (long long)api_seq);
  if (rc == RPD_OK && op_seq)
    rc = rpd_execf(r, "UPDATE sqlite_sequence SET seq = %lld WHERE name = "
                   "'rocpd_op' AND seq < %lld", (long long)op_seq, (long long)op_seq);
  free(api_sql);
  free(op_sql);
  return rc;
}

/* "" must be rocpd_string id 1 for the new domain/category columns; when
 * it is not (a foreign v2 file), use whichever id holds "" (or add it). */
static int empty_string_id(rpd *r)
{
  int64_t id = 0;
  int rc = rpd_query_int64(r, "SELECT id FROM rocpd_string WHERE string = '' "
                           "ORDER BY id LIMIT 1", &id);
  if (rc == RPD_ENOTFOUND) {
    rc = rpd_exec(r, "INSERT INTO rocpd_string (string) VALUES ('')");
    if (rc == RPD_OK)
      rc = rpd_query_int64(r, "SELECT last_insert_rowid()", &id);
  }
  if (rc == RPD_OK && id != 1)
    rc = rpd_execf(r, "UPDATE rocpd_api SET domain_id = %lld, category_id = %lld",
                   (long long)id, (long long)id);
  return rc;
}

/* Set metadata tag to value unless the trace has it already. */
static int meta_default(rpd *r, const char *tag, const char *value)
{
  char *old = NULL;
  int rc = rpd_meta_get(r, tag, &old);
  free(old);
  if (rc == RPD_ENOTFOUND)
    return rpd_meta_set(r, tag, value);
  return rc;
}

/* Row counts of rocpd_api and rocpd_op. */
static int base_counts(rpd *r, int64_t *api, int64_t *op)
{
  int rc = rpd_query_int64(r, "SELECT count(*) FROM rocpd_api", api);
  if (rc == RPD_OK)
    rc = rpd_query_int64(r, "SELECT count(*) FROM rocpd_op", op);
  return rc;
}

static int upgrade(rpd *r, int *kept_signal)
{
  rpd_buf views = {0}, after = {0};
  int64_t signals = 0, api0 = 0, op0 = 0, api1 = 0, op1 = 0;
  int rc = only_columns(r, "rocpd_api", v2_api_cols);

  if (rc == RPD_OK)
    rc = only_columns(r, "rocpd_op", v2_op_cols);
  if (rc == RPD_OK && rpd_column_exists(r, "rocpd_op", "completionSignal"))
    rc = rpd_query_int64(r, "SELECT count(*) FROM rocpd_op WHERE "
                         "coalesce(completionSignal, '') <> ''", &signals);
  *kept_signal = signals > 0 || !rpd_column_exists(r, "rocpd_op", "completionSignal");
  if (rc == RPD_OK)
    rc = base_counts(r, &api0, &op0);
  if (rc == RPD_OK)
    rc = rpd_exec(r, "PRAGMA legacy_alter_table = ON");
  if (rc == RPD_OK)
    rc = save_and_drop(r, &views, &after);
  if (rc == RPD_OK)   /* missing v3 tables and indexes; existing ones stay */
    rc = rpd_exec(r, rpd_table_exists(r, "rocpd_metadata")
                  ? "CREATE TEMP TABLE rpd_keep_meta AS SELECT id FROM rocpd_metadata"
                  : "CREATE TEMP TABLE rpd_keep_meta (id INTEGER)");
  if (rc == RPD_OK)
    rc = rpd_exec(r, rpd_view_sql("schema", 3));
  if (rc == RPD_OK)   /* schema.sql appended the v3 metadata rows: redo them */
    rc = rpd_exec(r,
      "DELETE FROM rocpd_metadata WHERE id NOT IN (SELECT id FROM rpd_keep_meta);"
      "DROP TABLE rpd_keep_meta;");
  if (rc == RPD_OK)
    rc = move_args(r);
  if (rc == RPD_OK)
    rc = rebuild_tables(r, *kept_signal);
  if (rc == RPD_OK)
    rc = base_counts(r, &api1, &op1);
  if (rc == RPD_OK && (api1 != api0 || op1 != op0))   /* never commit a loss */
    rc = rpd_seterr(RPD_ERR, "row counts changed (api %lld -> %lld, op %lld -> "
                    "%lld); nothing written", (long long)api0, (long long)api1,
                    (long long)op0, (long long)op1);
  if (rc == RPD_OK)
    rc = empty_string_id(r);
  if (rc == RPD_OK && after.len)
    rc = rpd_exec(r, after.s);
  if (rc == RPD_OK)
    rc = rpd_exec(r, "DROP TABLE rpd_args_map; PRAGMA legacy_alter_table = OFF");
  if (rc == RPD_OK)
    rc = rpd_meta_set(r, "schema_version", "3");
  if (rc == RPD_OK)
    rc = meta_default(r, "gpu_stride", "1000");
  if (rc == RPD_OK)
    rc = meta_default(r, "pid_stride", "10000000");
  if (rc == RPD_OK) {
    rpd_set_schema(r, 3);
    rc = rpd_schema_install_views(r);
  }
  if (rc == RPD_OK && views.len)
    rc = rpd_exec(r, views.s);
  rpd_buf_free(&views);
  rpd_buf_free(&after);
  return rc;
}

/* The rows the upgrade's full scans read (the args moved, then both
 * tables rebuilt and counted), for the progress line (common/trace/progress.h). */
static const char *const upgrade_scans[] = {
  "rocpd_api", "rocpd_api", "rocpd_api", "rocpd_op", "rocpd_op", NULL
};

int schema_do_upgrade(const opts *o)
{
  rpd *r = NULL;
  const char *dest = o->out ? o->out : o->file;
  int rc, kept = 0;

  if (rpd_open_or_report(&r, o->file, o->out, RPD_WRITE))
    return 1;
  if (rpd_schema(r) == 3) {
    printf("rpd-schema: '%s' is already schema 3; nothing to do\n", o->file);
    rc = rpd_close(r, o->out != NULL);   /* -o: still produce OUT */
    if (rc) return schema_report("write", dest);
    return o->out ? rpd_fail_committed(dest)
                  : rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
  }
  /* a 16 MB page cache; SQLite's sorter (the rebuilt tables'
   * indexes) sizes itself by it, so the peak stays flat in trace size */
  rc = rpd_profile(r, RPD_OPEN_UPDATE);
  if (rc == RPD_OK)
    rc = rpd_begin(r);
  rpd_progress_sql_total(r, "upgrading", rpd_progress_rows_of(r, upgrade_scans));
  if (rc == RPD_OK)
    rc = upgrade(r, &kept);
  rpd_progress_end();
  if (rc == RPD_OK)
    rc = rpd_commit(r);
  if (rc) {
    rpd_close(r, 0);
    return schema_report("upgrade", o->file);
  }
  if (rpd_close(r, 1))
    return schema_report("write", dest);
  printf("rpd-schema: upgraded '%s' to schema 3%s\n", dest,
         kept ? " (rocpd_op keeps its non-empty completionSignal column)" : "");
  return rpd_fail_committed(dest);
}
