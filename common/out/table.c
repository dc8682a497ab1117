/* table.c - the in-memory table: cells appended row by row, tables read
 * whole from an SQL query, and lists of tables.  See table.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "table.h"

/* Start t empty (see table.h). */
void rpd_table_init(rpd_table *t, const char *name, int ncols, const char *const *cols,
                    const char *const *types)
{
  memset(t, 0, sizeof *t);
  t->name = name;
  t->ncols = ncols;
  t->cols = cols;
  t->types = types;
}

static rpd_cell *next_cell(rpd_table *t)
{
  size_t at = t->nrows * (size_t)t->ncols + (size_t)t->col;
  if (at >= t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->c = rpd_xrealloc(t->c, t->cap * sizeof *t->c);
  }
  rpd_cell *c = &t->c[at];
  memset(c, 0, sizeof *c);
  if (++t->col == t->ncols) {
    t->col = 0;
    t->nrows++;
  }
  return c;
}

/* Cell appenders (see table.h). */
void rpd_table_int(rpd_table *t, int64_t v)
{
  rpd_cell *c = next_cell(t);
  c->t = RPD_CELL_INT;
  c->i = v;
}

void rpd_table_null(rpd_table *t)
{
  next_cell(t)->t = RPD_CELL_NULL;
}

void rpd_table_str(rpd_table *t, const char *s)
{
  rpd_cell *c = next_cell(t);
  c->t = RPD_CELL_STR;
  c->s = rpd_xstrdup(s ? s : "");
}

void rpd_table_dbl(rpd_table *t, double v, int digits)
{
  rpd_cell *c = next_cell(t);
  if (!isfinite(v)) {
    c->t = RPD_CELL_NULL;
    return;
  }
  c->t = RPD_CELL_DBL;
  c->d = v;
  c->digits = digits;
}

/* Numeric value of a cell (see table.h). */
double rpd_cell_num(const rpd_cell *c)
{
  return c->t == RPD_CELL_INT ? (double)c->i : c->t == RPD_CELL_DBL ? c->d : NAN;
}

/* Column index by name (see table.h). */
int rpd_table_col(const rpd_table *t, const char *col)
{
  for (int k = 0; t && k < t->ncols; k++)
    if (!strcmp(t->cols[k], col))
      return k;
  return -1;
}

/* Free the cells and owned column names (see table.h). */
void rpd_table_free(rpd_table *t)
{
  size_t n = t->nrows * (size_t)t->ncols + (size_t)t->col;
  for (size_t i = 0; i < n; i++)
    if (t->c[i].t == RPD_CELL_STR)
      free(t->c[i].s);
  free(t->c);
  t->c = NULL;
  if (t->own_cols) {
    for (int k = 0; k < t->ncols; k++)
      free(t->own_cols[k]);
    free(t->own_cols);
    t->own_cols = NULL;
  }
}

/* Every row of st into the empty table t (r: rpd_step, or NULL); st is
 * finalized. */
static int from_stmt(rpd_table *t, rpd *r, sqlite3_stmt *st)
{
  int rc = RPD_OK, s = SQLITE_DONE;
  t->ncols = sqlite3_column_count(st);
  t->own_cols = rpd_xcalloc((size_t)(t->ncols ? t->ncols : 1), sizeof *t->own_cols);
  for (int k = 0; k < t->ncols; k++) {
    const char *c = sqlite3_column_name(st, k);
    t->own_cols[k] = rpd_xstrdup(c ? c : "");
  }
  t->cols = (const char *const *)t->own_cols;
  while (t->ncols && (s = r ? rpd_step(r, st) : sqlite3_step(st)) == SQLITE_ROW)
    for (int k = 0; k < t->ncols; k++)
      switch (sqlite3_column_type(st, k)) {
      case SQLITE_INTEGER: rpd_table_int(t, sqlite3_column_int64(st, k)); break;
      case SQLITE_FLOAT: rpd_table_dbl(t, sqlite3_column_double(st, k), -1); break;
      case SQLITE_NULL: rpd_table_null(t); break;
      default: rpd_table_str(t, (const char *)sqlite3_column_text(st, k)); break;
      }
  if (s < 0)
    rc = -s;
  else if (s != SQLITE_ROW && s != SQLITE_DONE)
    rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errstr(s));
  sqlite3_finalize(st);
  return rc;
}

/* A whole query result as a table (see table.h). */
int rpd_table_from_sql(rpd_table *t, rpd *r, const char *name, const char *sql)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st);
  memset(t, 0, sizeof *t);
  t->name = name;
  if (rc)
    return rc;
  return from_stmt(t, r, st);
}

/* A query table (see table.h). */
void rpd_table_query(rpd_table *t, const char *name, rpd *r, sqlite3 *db, const char *sql)
{
  memset(t, 0, sizeof *t);
  t->name = name;
  t->r = r;
  t->db = db;
  t->sql = sql;
}

/* Its statement (see table.h). */
int rpd_table_prepare(const rpd_table *t, sqlite3_stmt **st)
{
  *st = NULL;
  if (sqlite3_prepare_v2(t->db, t->sql, -1, st, NULL) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "%s: %s", t->sql, sqlite3_errmsg(t->db));
  return RPD_OK;
}

/* A query table's rows in memory (for the writers that need every row
 * first: HTML).  Internal to common/ (table_html.c). */
int rpd__table_load(const rpd_table *q, rpd_table *t)
{
  sqlite3_stmt *st;
  int rc = rpd_table_prepare(q, &st);
  memset(t, 0, sizeof *t);
  t->name = q->name;
  t->flags = q->flags;
  if (rc)
    return rc;
  return from_stmt(t, q->r, st);
}

/* A query table's rows for a producer (see table.h). */
int rpd_table_from_query(rpd_table *t, const rpd_table *q)
{
  return rpd__table_load(q, t);
}

/* A new table at the end of ts (see table.h). */
rpd_table *rpd_tables_add(rpd_tables *ts)
{
  if (ts->n == ts->cap) {
    ts->cap = ts->cap ? 2 * ts->cap : 24;
    ts->t = rpd_xrealloc(ts->t, (size_t)ts->cap * sizeof *ts->t);
  }
  rpd_table *t = &ts->t[ts->n++];
  memset(t, 0, sizeof *t);
  return t;
}

/* The table called name (see table.h). */
const rpd_table *rpd_tables_find(const rpd_tables *ts, const char *name)
{
  for (int i = 0; i < ts->n; i++)
    if (ts->t[i].name && !strcmp(ts->t[i].name, name))
      return &ts->t[i];
  return NULL;
}

void rpd_tables_free(rpd_tables *ts)
{
  for (int i = 0; i < ts->n; i++)
    rpd_table_free(&ts->t[i]);
  free(ts->t);
  memset(ts, 0, sizeof *ts);
}
