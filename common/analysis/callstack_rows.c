/* callstack_rows.c - ext_callstack's rows for the call-stack walk (see
 * callstack_int.h): batched through the walk's own virtual table. */
#include <string.h>

#include "callstack_int.h"

#define ROWS_VTAB "rpd_callstack_pending_rows_"
static const char insert_sql[] =
    "INSERT INTO ext_callstack(parent_id, child_id, depth, cpu_time, "
    "gpu_time) SELECT * FROM " ROWS_VTAB;

/* The virtual table ROWS_VTAB: the walker's pending rows (an eponymous
 * table, registered for the walk with the walker as its data). */
typedef struct rows_vtab {
  sqlite3_vtab base;
  const walker *w;
} rows_vtab;

typedef struct rows_cursor {
  sqlite3_vtab_cursor base;
  int i;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(
      db, "CREATE TABLE x(parent_id, child_id, depth, cpu_time, gpu_time)");
  if (rc != SQLITE_OK) return rc;
  rows_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->w = aux;
  *out = &v->base;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *ii) {
  (void)v;
  ii->estimatedCost = BATCH;
  ii->estimatedRows = BATCH;
  return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  rows_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *str, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)str, (void)argc, (void)argv;
  ((rows_cursor *)c)->i = 0;
  return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c) {
  ((rows_cursor *)c)->i++;
  return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c) {
  return ((rows_cursor *)c)->i >= ((rows_vtab *)c->pVtab)->w->npend;
}

static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col) {
  const walker *w = ((rows_vtab *)c->pVtab)->w;
  sqlite3_result_int64(ctx, w->pend[((rows_cursor *)c)->i * NCOLS + col]);
  return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid) {
  *rowid = ((rows_cursor *)c)->i;
  return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .xConnect = rows_connect,   /* no xCreate: eponymous only */
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xDestroy = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

/* Register ROWS_VTAB for w and prepare the insert from it. */
int cs_insert_open(walker *w) {
  if (sqlite3_create_module(w->r->db, ROWS_VTAB, &rows_module, w) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "cannot register the call stack's row source: %s",
                      sqlite3_errmsg(w->r->db));
  return rpd_prepare(w->r, insert_sql, &w->ins);
}

/* Finalize the insert and unregister ROWS_VTAB. */
void cs_insert_close(walker *w) {
  sqlite3_finalize(w->ins);
  w->ins = NULL;
  sqlite3_create_module(w->r->db, ROWS_VTAB, NULL, NULL);
}

/* Write every pending row. */
int cs_flush(walker *w) {
  int rc = RPD_OK;
  if (w->npend > 0) {
    int s = rpd_step(w->r, w->ins);
    sqlite3_reset(w->ins);
    if (s < 0) rc = -s;
  }
  w->npend = 0;
  return rc;
}

int cs_emit(walker *w, int64_t parent, int64_t child, int64_t depth,
                int64_t cpu, int64_t gpu) {
  int64_t *p = &w->pend[w->npend++ * NCOLS];
  p[0] = parent, p[1] = child, p[2] = depth, p[3] = cpu, p[4] = gpu;
  w->st.rows++;
  return w->npend == BATCH ? cs_flush(w) : RPD_OK;
}
