/* rpd-schema - create, describe, repair and upgrade RPD traces.
 * See docs/rpd-schema.md and docs/schema.md. */
#include "rpd.h"
#include "opt.h"
#include "check.h"
#include "schema.h"   /* rpd_utility_views, rpd_schema_install_view */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const rpd_help help = {
  .usage = "usage: rpd-schema --create FILE [--schema 2|3] [--force]\n"
           "       rpd-schema --print [--schema 2|3]\n"
           "       rpd-schema --info FILE [--format table|csv|json]\n"
           "       rpd-schema --views FILE [-o OUT] [--force]\n"
           "       rpd-schema --upgrade FILE [-o OUT]",
  .about = "Create, describe, repair or upgrade the schema of an RPD trace.",
  .notes =
    "Exit: 0 ok (also: nothing to do), 1 failure, 2 usage.\n"
    "Environment: RPD_BUSY_TIMEOUT_MS (default 5000) for locked files.\n",
};


typedef struct opts {
  const char *action;   /* "create", "print", "info", "views", "upgrade" */
  const char *file, *out;
  int schema, force;
  rpd_fmt fmt;
} opts;

/* ------------------------------------------------------------ helpers */

/* Report a failure of an operation on `path` as one line; returns 1. */
static int report(const char *what, const char *path)
{
  return rpd_fail("cannot %s '%s': %s", what, path, rpd_errmsg());
}

/* State of a view: "ok", "missing", or "broken: REASON" (a new string the
 * caller frees). */
static char *view_state(rpd *r, const char *name)
{
  sqlite3_stmt *st = NULL;
  char *sql, *state;
  int src;

  if (!rpd_table_exists(r, name))
    return rpd_xstrdup("missing");
  sql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 0", name);
  src = sqlite3_prepare_v2(rpd_db(r), sql, -1, &st, NULL);
  state = src == SQLITE_OK ? rpd_xstrdup("ok")
                           : rpd_xasprintf("broken: %s", sqlite3_errmsg(rpd_db(r)));
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return state;
}

/* Reinstall the utility views that are missing or broken (all with
 * force); *changed counts the views (re)installed. */
static int repair_views(rpd *r, int force, int *changed)
{
  int rc = RPD_OK;
  *changed = 0;
  for (int i = 0; rc == RPD_OK && rpd_utility_views[i]; i++) {
    char *s = view_state(r, rpd_utility_views[i]);
    int ok = strcmp(s, "ok") == 0;
    free(s);
    if (ok && !force)
      continue;
    rc = rpd_schema_install_view(r, rpd_utility_views[i]);
    if (rc == RPD_OK)
      (*changed)++;
    else if (rc == RPD_ENOTFOUND)
      rc = RPD_OK;
  }
  return rc;
}

/* One line on stdout naming the views that could not be installed. */
static void say_skipped(rpd *r, const char *file)
{
  rpd_buf b = {0};
  int n = 0;
  for (int i = 0; rpd_utility_views[i]; i++) {
    if (rpd_table_exists(r, rpd_utility_views[i]))
      n++;
    else
      rpd_buf_printf(&b, "%s%s", b.len ? ", " : "", rpd_utility_views[i]);
  }
  printf("rpd-schema: '%s': %d utility views installed%s%s%s\n", file, n,
         b.len ? " (left out, base tables missing: " : "", b.len ? b.s : "",
         b.len ? ")" : "");
  rpd_buf_free(&b);
}

/* ------------------------------------------------------------ --create */

/* --create: rpd_create builds the new trace in a temp file next to FILE's
 * target (symlinks followed, a device, fifo or directory refused) and
 * rpd_close renames it over it only once complete (gzip'd for FILE.gz), so
 * an existing FILE (--force) is replaced atomically and a failure or kill
 * leaves it as it was. */
static int do_create(const opts *o)
{
  rpd *r = NULL;
  rpd_create_opts co = { .schema = o->schema, .force = o->force };
  struct stat sb;
  char *target = NULL;
  int rc = rpd_output_check(o->file, NULL, &target);

  if (rc)
    return report("create", o->file);
  rc = stat(target, &sb) == 0 && sb.st_size > 0 && !o->force;
  free(target);
  if (rc)
    return rpd_fail("cannot create '%s': file exists and is not empty (use --force to"
                    " replace it)", o->file);
  if (rpd_create(&r, o->file, &co) || rpd_close(r, 1))
    return report("create", o->file);
  printf("rpd-schema: created '%s' (schema %d)\n", o->file, o->schema);
  return rpd_fail_committed(o->file);
}

/* ------------------------------------------------------------ --print */

/* The DDL, then each utility view that works on that layout (tried on a
 * scratch in-memory database, so stackframe is left out for v2). */
static int do_print(const opts *o)
{
  sqlite3 *db = NULL;
  rpd *mem = NULL;
  const char *sql = rpd_view_sql("schema", o->schema);
  int rc = RPD_OK;

  if (!sql)
    return rpd_fail("no embedded schema %d", o->schema);
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    rc = rpd_seterr(RPD_ENOMEM, "cannot open an in-memory database");
  else
    mem = rpd_attach(db, o->schema, RPD_WRITE);
  if (rc == RPD_OK)
    rc = rpd_exec(mem, sql);
  if (rc == RPD_OK)
    rc = rpd_schema_install_views(mem);
  if (rc == RPD_OK) {
    fputs(sql, stdout);
    for (int i = 0; rpd_utility_views[i]; i++)
      if (rpd_table_exists(mem, rpd_utility_views[i]))
        printf("\n%s", rpd_view_sql(rpd_utility_views[i], o->schema));
  }
  rpd_detach(mem);
  sqlite3_close(db);
  if (rc)
    return rpd_fail("cannot build the schema: %s", rpd_errmsg());
  return rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
}

/* ------------------------------------------------------------ --info */

typedef struct info {
  rpd *r;
  rpd_out *out;
} info;

static void kv_str(info *in, const char *key, const char *value)
{
  rpd_out_str(in->out, key);
  rpd_out_str(in->out, value);
  rpd_out_endrow(in->out);
}

static void kv_int(info *in, const char *key, int64_t value)
{
  rpd_out_str(in->out, key);
  rpd_out_int(in->out, value);
  rpd_out_endrow(in->out);
}

/* Metadata rows, in id order. */
static int info_metadata(info *in)
{
  sqlite3_stmt *st = NULL;
  int rc, s;
  if (!rpd_table_exists(in->r, "rocpd_metadata"))
    return RPD_OK;
  rc = rpd_prepare(in->r, "SELECT tag, value FROM rocpd_metadata ORDER BY id", &st);
  while (rc == RPD_OK && (s = rpd_step(in->r, st)) == SQLITE_ROW) {
    char *key = rpd_xasprintf("metadata:%s", (const char *)sqlite3_column_text(st, 0));
    kv_str(in, key, (const char *)sqlite3_column_text(st, 1));
    free(key);
  }
  if (rc == RPD_OK && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* Row count of every table; ext_* tables also listed as augmentations. */
static int info_tables(info *in, rpd_buf *ext)
{
  sqlite3_stmt *st = NULL;
  int rc, s;
  rc = rpd_prepare(in->r, "SELECT name FROM sqlite_master WHERE type = 'table' "
                   "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name", &st);
  while (rc == RPD_OK && (s = rpd_step(in->r, st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", name);
    char *key = rpd_xasprintf("rows:%s", name);
    int64_t n = 0;
    rc = rpd_query_int64(in->r, sql, &n);
    sqlite3_free(sql);
    if (rc == RPD_OK)
      kv_int(in, key, n);
    free(key);
    if (strncmp(name, "ext_", 4) == 0)
      rpd_buf_printf(ext, "%s%s", ext->len ? ", " : "", name);
  }
  if (rc == RPD_OK && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* A row whose start and end are sane (see check.h): 0 <= start <= end <
 * 2^62, both integers. */
#define SANE_ROW "typeof(start) = 'integer' AND typeof(\"end\") = 'integer' AND " \
                 "start >= 0 AND \"end\" >= start AND \"end\" < 4611686018427387904"

/* GPUs (one pass over rocpd_op), threads and processes (one pass over
 * rocpd_api), and the time span of both, over sane rows; rows with garbage
 * values are reported as bad_rows:TABLE. */
static int info_activity(info *in)
{
  sqlite3_stmt *st = NULL;
  int rc, s, ngpu = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  rpd_buf ids = {0};

  int64_t bad_api = 0, bad_op = 0;

  /* rows with garbage times (rpd_check_table) are left out and counted */
  rc = rpd_check_table(in->r, "rocpd_op", 1, &bad_op);
  if (rc == RPD_ERANGE) {
    kv_str(in, "bad_rows:rocpd_op", rpd_errmsg());
    rc = RPD_OK;
  }
  if (rc == RPD_OK) rc = rpd_check_table(in->r, "rocpd_api", 0, &bad_api);
  if (rc == RPD_ERANGE) {
    kv_str(in, "bad_rows:rocpd_api", rpd_errmsg());
    rc = RPD_OK;
  }
  if (rc == RPD_OK)
    rc = rpd_prepare(in->r, "SELECT gpuId, count(*), min(start), max(\"end\") "
                     "FROM rocpd_op WHERE " SANE_ROW " AND typeof(gpuId) = 'integer' "
                     "AND gpuId >= 0 AND gpuId < 2147483648 GROUP BY gpuId ORDER BY gpuId",
                     &st);
  while (rc == RPD_OK && (s = rpd_step(in->r, st)) == SQLITE_ROW) {
    ngpu++;
    rpd_buf_printf(&ids, "%s%lld", ids.len ? "," : "", sqlite3_column_int64(st, 0));
    if (sqlite3_column_int64(st, 2) < lo) lo = sqlite3_column_int64(st, 2);
    if (sqlite3_column_int64(st, 3) > hi) hi = sqlite3_column_int64(st, 3);
  }
  if (rc == RPD_OK && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  st = NULL;
  if (rc == RPD_OK) {
    kv_int(in, "gpus", ngpu);
    kv_str(in, "gpu_ids", ids.len ? ids.s : "");
    if (ngpu) {
      kv_int(in, "op_start_ns", lo);
      kv_int(in, "op_end_ns", hi);
    }
    rc = rpd_prepare(in->r, "SELECT count(DISTINCT pid), count(DISTINCT "
                     "pid * 4294967296 + tid), min(start), max(\"end\"), count(*) "
                     "FROM rocpd_api WHERE " SANE_ROW, &st);
  }
  if (rc == RPD_OK && (s = rpd_step(in->r, st)) == SQLITE_ROW) {
    kv_int(in, "processes", sqlite3_column_int64(st, 0));
    kv_int(in, "threads", sqlite3_column_int64(st, 1));
    if (sqlite3_column_int64(st, 4) > 0) {
      kv_int(in, "api_start_ns", sqlite3_column_int64(st, 2));
      kv_int(in, "api_end_ns", sqlite3_column_int64(st, 3));
      if (sqlite3_column_int64(st, 2) < lo) lo = sqlite3_column_int64(st, 2);
      if (sqlite3_column_int64(st, 3) > hi) hi = sqlite3_column_int64(st, 3);
    }
  } else if (rc == RPD_OK && s < 0) {
    rc = -s;
  }
  sqlite3_finalize(st);
  if (rc == RPD_OK && hi >= lo) {
    char secs[64];
    int64_t span = rpd_ns_duration(lo, hi);
    kv_int(in, "span_ns", span);
    snprintf(secs, sizeof secs, "%.6f", (double)span / 1e9);
    kv_str(in, "span_s", secs);
  }
  rpd_buf_free(&ids);
  return rc;
}

/* Augmentation tags: metadata tags with "::" (Autograd::Table, ...). */
static int info_tags(info *in, rpd_buf *tags)
{
  sqlite3_stmt *st = NULL;
  int rc, s;
  if (!rpd_table_exists(in->r, "rocpd_metadata"))
    return RPD_OK;
  rc = rpd_prepare(in->r, "SELECT DISTINCT tag FROM rocpd_metadata WHERE "
                   "instr(tag, '::') > 0 AND tag NOT LIKE 'resourceLock::%' AND "
                   "tag NOT LIKE 'references::%' ORDER BY tag", &st);
  while (rc == RPD_OK && (s = rpd_step(in->r, st)) == SQLITE_ROW)
    rpd_buf_printf(tags, "%s%s", tags->len ? ", " : "",
                   (const char *)sqlite3_column_text(st, 0));
  if (rc == RPD_OK && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

static int do_info(const opts *o)
{
  static const char *const cols[] = {"key", "value"};
  info in = {0};
  rpd_buf ext = {0}, tags = {0};
  int rc;

  if (rpd_open_or_report(&in.r, o->file, NULL, RPD_READ))
    return 1;
  in.out = rpd_out_new(stdout, o->fmt, 2, cols);
  kv_str(&in, "file", o->file);
  kv_int(&in, "schema", rpd_schema(in.r));
  rc = info_metadata(&in);
  if (rc == RPD_OK)
    rc = info_tables(&in, &ext);
  if (rc == RPD_OK)
    rc = info_activity(&in);
  if (rc == RPD_OK)
    rc = info_tags(&in, &tags);
  if (rc == RPD_OK) {
    kv_str(&in, "augmentations", ext.len ? ext.s : "");
    kv_str(&in, "augmentation_tags", tags.len ? tags.s : "");
    for (int i = 0; rpd_utility_views[i]; i++) {
      char *key = rpd_xasprintf("view:%s", rpd_utility_views[i]);
      char *state = view_state(in.r, rpd_utility_views[i]);
      kv_str(&in, key, state);
      free(key);
      free(state);
    }
  }
  if (rpd_out_end(in.out) != RPD_OK && rc == RPD_OK)
    rc = rpd_seterr(RPD_EIO, "write error on stdout");
  rpd_buf_free(&ext);
  rpd_buf_free(&tags);
  rpd_close(in.r, 0);
  if (rc)
    return report("read", o->file);
  return rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
}

/* ------------------------------------------------------------ --views */

static int do_views(const opts *o)
{
  rpd *r = NULL;
  int rc, changed = 0;

  if (rpd_open_or_report(&r, o->file, o->out, RPD_WRITE))
    return 1;
  rc = rpd_begin(r);
  if (rc == RPD_OK)
    rc = repair_views(r, o->force, &changed);
  if (rc == RPD_OK && changed == 0) {
    rpd_rollback(r);
    printf("rpd-schema: '%s': no view is missing or broken; nothing to do\n",
           o->file);
    rc = rpd_close(r, o->out != NULL);   /* -o: still produce OUT */
    if (rc) return report("write", o->out);
    return o->out ? rpd_fail_committed(o->out)
                  : rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
  }
  if (rc == RPD_OK)
    rc = rpd_commit(r);
  if (rc) {
    rpd_close(r, 0);
    return report("update", o->file);
  }
  say_skipped(r, o->out ? o->out : o->file);
  if (rpd_close(r, 1))
    return report("write", o->out ? o->out : o->file);
  return rpd_fail_committed(o->out ? o->out : o->file);
}

/* ------------------------------------------------------------ --upgrade */

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

static int do_upgrade(const opts *o)
{
  rpd *r = NULL;
  const char *dest = o->out ? o->out : o->file;
  int rc, kept = 0;

  if (rpd_open_or_report(&r, o->file, o->out, RPD_WRITE))
    return 1;
  if (rpd_schema(r) == 3) {
    printf("rpd-schema: '%s' is already schema 3; nothing to do\n", o->file);
    rc = rpd_close(r, o->out != NULL);   /* -o: still produce OUT */
    if (rc) return report("write", dest);
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
    return report("upgrade", o->file);
  }
  if (rpd_close(r, 1))
    return report("write", dest);
  printf("rpd-schema: upgraded '%s' to schema 3%s\n", dest,
         kept ? " (rocpd_op keeps its non-empty completionSignal column)" : "");
  return rpd_fail_committed(dest);
}

/* ------------------------------------------------------------ main */

/* FILE follows its action (--info FILE, also a name with a leading dash) or
 * comes as the one operand anywhere else (--views --force FILE, -- FILE). */
static int set_file(opts *o, const char *f, char *msg, size_t msgsz)
{
  if (o->file) {
    snprintf(msg, msgsz, "unexpected argument '%s' (FILE is '%s')", f, o->file);
    return 2;
  }
  o->file = f;
  return 0;
}

/* --create, --info, --views, --upgrade [FILE]; --print */
static int on_action(void *ctx, const char *name, const char *file, char *msg, size_t msgsz)
{
  static const char *const actions[] = {"create", "info", "views", "upgrade", "print"};
  opts *o = ctx;
  if (o->action) {
    snprintf(msg, msgsz, "--%s and --%s cannot be combined", o->action, name + 2);
    return 2;
  }
  for (int k = 0; k < 5; k++)   /* name lives only during the call */
    if (!strcmp(name + 2, actions[k])) o->action = actions[k];
  return file ? set_file(o, file, msg, msgsz) : 0;
}

static int on_schema(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  opts *o = ctx;
  (void)name;
  if (strcmp(v, "2") && strcmp(v, "3")) {
    snprintf(msg, msgsz, "--schema must be 2 or 3");
    return 2;
  }
  o->schema = v[0] - '0';
  return 0;
}

static int on_format(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  opts *o = ctx;
  (void)name;
  if (rpd_fmt_parse(v, &o->fmt)) {
    snprintf(msg, msgsz, "--format must be table, csv or json");
    return 2;
  }
  return 0;
}

static int parse_args(opts *o, int argc, char **argv)
{
  const rpd_opt table[] = {
    RPD_OPT_CALL_OPTVAL("--create", on_action, o, .arg = "FILE",
                        .help = "write an empty trace ready for rpd_tracer to append to: "
                                "every RPD table, the string indexes, metadata "
                                "(schema_version, gpu_stride, pid_stride) and the utility "
                                "views. Refuses an existing non-empty FILE unless --force."),
    RPD_OPT_CALL0("--print", on_action, o,
                  .help = "print the DDL and the view definitions (default v3)"),
    RPD_OPT_CALL_OPTVAL("--info", on_action, o, .arg = "FILE",
                        .help = "schema version, metadata, row count of every table, GPUs, "
                                "threads, time span, augmentations (ext_* tables) and the "
                                "state of every utility view; read-only, .gz is fine"),
    RPD_OPT_CALL_OPTVAL("--views", on_action, o, .arg = "FILE",
                        .help = "reinstall the utility views that are missing or broken "
                                "(--force: all of them); views whose base tables are absent "
                                "(stackframe on v2) are left out and reported"),
    RPD_OPT_CALL_OPTVAL("--upgrade", on_action, o, .arg = "FILE",
                        .help = "convert a schema 2 trace to schema 3 in one transaction: "
                                "rocpd_api gets domain/category ('' as v2 has none), args "
                                "move to rocpd_ustring, rocpd_op loses the empty "
                                "completionSignal column, missing v3 tables are added, "
                                "schema_version=3, views reinstalled. Rows and view results "
                                "are preserved."),
    RPD_OPT_FILE("-o|--output", &o->out, .arg = "OUT",
                 .help = "with --views/--upgrade: write the result to OUT and leave FILE "
                         "untouched (OUT may end in .gz)"),
    RPD_OPT_CALL("--schema", on_schema, o, .arg = "2|3",
                 .help = "layout for --create/--print (default 3)"),
    RPD_OPT_CALL("--format", on_format, o, .arg = "F",
                 .help = "--info output: table (default), csv or json"),
    RPD_OPT_FLAG("--force", &o->force,
                 .help = "--create: over an existing non-empty FILE; --views: all views"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, table))
    return -1;
  char msg[512];
  int rc = 0;
  o->schema = 3;
  o->fmt = RPD_FMT_TABLE;
  if ((rc = rpd_cli_options(table, 0, &argc, argv)))
    return rc;
  for (int i = 0; i < argc && !rc; i++)
    if (set_file(o, argv[i], msg, sizeof msg))
      return rpd_usage_error("%s", msg);
  if (rc)
    return rc;
  if (!o->action)
    return rpd_usage_error("nothing to do: give --create, --print, --info, "
                           "--views or --upgrade");
  if (o->out && strcmp(o->action, "views") && strcmp(o->action, "upgrade"))
    return rpd_usage_error("-o only goes with --views or --upgrade");
  if (o->out && !*o->out)
    return rpd_usage_error("empty output file name");
  if (strcmp(o->action, "print") && !o->file)
    return rpd_usage_error("--%s needs a FILE", o->action);
  if (!strcmp(o->action, "print") && o->file)
    return rpd_usage_error("--print takes no FILE ('%s')", o->file);
  if (o->file && !*o->file)
    return rpd_usage_error("empty file name");
  return 0;
}

int main(int argc, char **argv)
{
  opts o = {0};
  int rc;

  if ((rc = parse_args(&o, argc, argv)) != 0)
    return rc < 0 ? rpd_cli_status() : rc;
  if (!strcmp(o.action, "create"))
    return do_create(&o);
  if (!strcmp(o.action, "print"))
    return do_print(&o);
  if (!strcmp(o.action, "info"))
    return do_info(&o);
  if (!strcmp(o.action, "views"))
    return do_views(&o);
  return do_upgrade(&o);
}
