/* info.c - rpd-schema --info: what a trace holds (schema, metadata, row
 * counts, GPUs, threads, time span, augmentations, views), read-only. */
#include "rpd.h"
#include "check.h"    /* rpd_check_table, rpd_ns_duration */
#include "schema.h"   /* rpd_utility_views, rpd_schema_install_view */
#include "rpd-schema.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

int schema_do_info(const opts *o)
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
      char *state = schema_view_state(in.r, rpd_utility_views[i]);
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
    return schema_report("read", o->file);
  return rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
}
