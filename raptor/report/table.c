/* table.c - raptor --report's in-memory tables: cells appended row by row,
 * tables read whole from an SQL query, and the report's list of tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* qsort that accepts an empty or NULL array (qsort(NULL, 0) is undefined). */
void report_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
  if (base && n > 1)
    qsort(base, n, size, cmp);
}

/* Start t empty (see internal.h). */
void t_init(table *t, const char *name, int ncols, const char *const *cols,
            const char *const *types)
{
  memset(t, 0, sizeof *t);
  t->name = name;
  t->ncols = ncols;
  t->cols = cols;
  t->types = types;
}

static cell *t_next(table *t)
{
  size_t at = t->nrows * (size_t)t->ncols + (size_t)t->col;
  if (at >= t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->c = rpd_xrealloc(t->c, t->cap * sizeof *t->c);
  }
  cell *c = &t->c[at];
  memset(c, 0, sizeof *c);
  if (++t->col == t->ncols) {
    t->col = 0;
    t->nrows++;
  }
  return c;
}

/* Cell appenders (see internal.h). */
void t_int(table *t, int64_t v) { cell *c = t_next(t); c->t = C_INT; c->i = v; }
void t_null(table *t) { t_next(t)->t = C_NULL; }

void t_str(table *t, const char *s)
{
  cell *c = t_next(t);
  c->t = C_STR;
  c->s = rpd_xstrdup(s ? s : "");
}

void t_dbl(table *t, double v, int digits)
{
  cell *c = t_next(t);
  if (!isfinite(v)) {
    c->t = C_NULL;
    return;
  }
  c->t = C_DBL;
  c->d = v;
  c->digits = digits;
}

/* Numeric value of a cell (see internal.h). */
double t_num(const cell *c)
{
  return c->t == C_INT ? (double)c->i : c->t == C_DBL ? c->d : NAN;
}

/* Column index by name (see internal.h). */
int t_col(const table *t, const char *col)
{
  for (int k = 0; t && k < t->ncols; k++)
    if (!strcmp(t->cols[k], col))
      return k;
  return -1;
}

/* Free the cells and owned column names (see internal.h). */
void t_free(table *t)
{
  size_t n = t->nrows * (size_t)t->ncols + (size_t)t->col;
  for (size_t i = 0; i < n; i++)
    if (t->c[i].t == C_STR)
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

/* A whole query result as a table (see internal.h). */
int t_from_sql(table *t, rpd *r, const char *name, const char *sql)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st), s = SQLITE_DONE;
  memset(t, 0, sizeof *t);
  t->name = name;
  if (rc)
    return rc;
  t->ncols = sqlite3_column_count(st);
  t->own_cols = rpd_xcalloc((size_t)(t->ncols ? t->ncols : 1), sizeof *t->own_cols);
  for (int k = 0; k < t->ncols; k++) {
    const char *c = sqlite3_column_name(st, k);
    t->own_cols[k] = rpd_xstrdup(c ? c : "");
  }
  t->cols = (const char *const *)t->own_cols;
  while (t->ncols && (s = rpd_step(r, st)) == SQLITE_ROW)
    for (int k = 0; k < t->ncols; k++)
      switch (sqlite3_column_type(st, k)) {
      case SQLITE_INTEGER: t_int(t, sqlite3_column_int64(st, k)); break;
      case SQLITE_FLOAT: t_dbl(t, sqlite3_column_double(st, k), -1); break;
      case SQLITE_NULL: t_null(t); break;
      default: t_str(t, (const char *)sqlite3_column_text(st, k)); break;
      }
  if (s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* A new optional table (see internal.h). */
table *report_add(report *rep)
{
  if (rep->n == rep->cap) {
    rep->cap = rep->cap ? 2 * rep->cap : NT_ALL + 16;
    rep->t = rpd_xrealloc(rep->t, (size_t)rep->cap * sizeof *rep->t);
  }
  table *t = &rep->t[rep->n++];
  memset(t, 0, sizeof *t);
  return t;
}

/* The table called name (see internal.h). */
const table *report_find(const report *rep, const char *name)
{
  for (int i = 0; i < rep->n; i++)
    if (rep->t[i].name && !strcmp(rep->t[i].name, name))
      return &rep->t[i];
  return NULL;
}

/* Listed tables (see internal.h). */
int report_is_listed(int index)
{
  return index < NT || index >= NT_ALL;
}

/* See internal.h. */
int report_is_written(int index)
{
  (void)index;
  return 1;
}

void report_free(report *rep)
{
  for (int i = 0; i < rep->n; i++)
    t_free(&rep->t[i]);
  free(rep->t);
  memset(rep, 0, sizeof *rep);
}
