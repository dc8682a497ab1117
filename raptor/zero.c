/* zero.c - raptor's time zero (zero.h): one scan of rocpd_api in C for
 * the first start, the last end and the folded row check, in a helper
 * thread while the engine reads the ops (load.c). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "zero.h"


static const char api_sql[] = "SELECT start, \"end\" FROM rocpd_api";

static void api_scan_reset(api_scan *a)
{
  memset(&a->chk, 0, sizeof a->chk);
  a->lo = INT64_MAX;
  a->hi = INT64_MIN;
  a->done = 0;
}

/* Fold one row (start, end) of rocpd_api into a. */
static void api_row(api_scan *a, sqlite3_value *vs, sqlite3_value *ve)
{
  rpd_check_values(&a->chk, vs, ve, NULL);
  int64_t s = sqlite3_value_int64(vs), e = sqlite3_value_int64(ve);
  if (s < a->lo) a->lo = s;
  if (e > a->hi) a->hi = e;
}

/* The aggregate step of the helper thread's query: the rows reach C
 * inside SQLite's own loop, without a sqlite3_step and column calls per
 * row (a third less CPU than stepping through the rows). */
static void api_agg_step(sqlite3_context *ctx, int n, sqlite3_value **v)
{
  (void)n;
  api_row(sqlite3_user_data(ctx), v[0], v[1]);
}

static void api_agg_final(sqlite3_context *ctx)
{
  sqlite3_result_null(ctx);
}

/* The helper thread: plain SQLite calls only (the common layer's error
 * state is shared between threads) on a connection of its own.  A failure
 * leaves a->done 0; the engine's thread then scans again on its own
 * connection, which reports the error as it always did. */
static void *api_thread(void *arg)
{
  api_scan *a = arg;
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int s = SQLITE_ERROR;
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (a->uri ? SQLITE_OPEN_URI : 0);
  if (rpd_sqlite_open(a->path, &db, flags) == SQLITE_OK &&
      rpd_db_profile(db, RPD_OPEN_SIDE) == SQLITE_OK &&
      sqlite3_create_function(db, "rptr_api_row", 2, SQLITE_UTF8, a, NULL, api_agg_step,
                              api_agg_final) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT rptr_api_row(start, \"end\") FROM rocpd_api", -1, &st,
                         NULL) == SQLITE_OK &&
      (s = sqlite3_step(st)) == SQLITE_ROW)
    s = sqlite3_step(st);
  a->done = s == SQLITE_DONE;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return NULL;
}

/* Start the scan in a helper thread; 0 when it could not start (the scan
 * then runs in api_span). */
int api_scan_start(raptor *R, api_scan *a)
{
  a->uri = rpd_uri(R->r) != NULL;
  a->path = a->uri ? rpd_uri(R->r) : rpd_work_path(R->r);
  api_scan_reset(a);
  a->threaded = a->path && pthread_create(&a->tid, NULL, api_thread, a) == 0;
  return a->threaded;
}

/* R->res.first_abs, R->res.last_abs = the first API start and the last API end;
 * *have = 0 when there are none.  Without R->fold an aggregate query (the
 * caller checked the trace); with it the scan above (joined when it runs
 * in its thread), its verdict into R->fold->api.  RPD_OK or an error. */
int api_span(raptor *R, int *have, api_scan *a)
{
  sqlite3_stmt *st = NULL;
  int rc = RPD_OK, s = 0;
  *have = 0;
  if (!R->fold) {
    rc = rpd_prepare(R->r, "SELECT min(start), max(\"end\") FROM rocpd_api", &st);
    s = rc == RPD_OK ? rpd_step(R->r, st) : 0;
    if (s == SQLITE_ROW) {
      *have = sqlite3_column_type(st, 0) != SQLITE_NULL;
      R->res.first_abs = sqlite3_column_int64(st, 0);
      R->res.last_abs = sqlite3_column_int64(st, 1);
    }
  } else {
    if (a->threaded) pthread_join(a->tid, NULL);
    a->threaded = 0;
    if (!a->done) {
      api_scan_reset(a);
      rc = rpd_prepare(R->r, api_sql, &st);
      while (rc == RPD_OK && (s = rpd_step(R->r, st)) == SQLITE_ROW)
        api_row(a, sqlite3_column_value(st, 0), sqlite3_column_value(st, 1));
      a->done = rc == RPD_OK && s == SQLITE_DONE;
    }
    if (a->done) {
      R->fold->api = a->chk;
      R->fold->api_done = 1;
      *have = a->lo != INT64_MAX;
      R->res.first_abs = a->lo;
      R->res.last_abs = a->hi;
    }
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}
