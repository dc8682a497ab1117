/* table_stream.c - a streamed table: each row goes to its writer as soon
 * as it is complete, so a table of millions of rows (raptor's op trace)
 * keeps memory flat.  See table.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "workbook.h"

#define XLSX_EXACT_INT ((int64_t)1 << 53)   /* larger integers lose digits */

/* Start s as an empty row buffer of ncols columns. */
static void start(rpd_tstream *s, const char *name, int ncols, const char *const *cols)
{
  memset(s, 0, sizeof *s);
  rpd_table_init(&s->t, name, ncols, cols, NULL);
}

/* A stream to f (see table.h). */
int rpd_tstream_out(rpd_tstream *s, const char *name, int ncols, const char *const *cols,
                    FILE *f, rpd_fmt fmt, size_t width)
{
  start(s, name, ncols, cols);
  if (fmt == RPD_FMT_MD)
    return s->rc = rpd_seterr(RPD_ERR, "%s: a Markdown table cannot be streamed", name);
  s->o = rpd_out_new(f, fmt, ncols, cols);
  if (fmt == RPD_FMT_TABLE)
    rpd_out_fit(s->o, width);
  return RPD_OK;
}

/* A stream to a sheet (see table.h). */
int rpd_tstream_sheet(rpd_tstream *s, const char *name, int ncols, const char *const *cols,
                      struct rpd_wb *w, struct rpd_wb_sheet *ws)
{
  start(s, name, ncols, cols);
  s->ws = ws;
  s->rc = rpd_wb_begin(w, ws, name, ncols, cols, NULL);   /* a failure: _end fails */
  return s->rc;
}

/* A stream into a trace table (see table.h). */
int rpd_tstream_save(rpd_tstream *s, rpd *r, const char *name, int ncols,
                     const char *const *cols, const char *const *types)
{
  rpd_table shape;
  start(s, name, ncols, cols);
  s->r = r;
  rpd_table_init(&shape, name, ncols, cols, types);
  s->rc = rpd_table_save(&shape, r, name);   /* drop, create: no rows */
  if (!s->rc) {
    rpd_buf sql = {0};
    char *q = sqlite3_mprintf("INSERT INTO \"%w\" VALUES (", name);
    rpd_buf_puts(&sql, q);
    sqlite3_free(q);
    for (int k = 0; k < ncols; k++)
      rpd_buf_puts(&sql, k ? ",?" : "?");
    rpd_buf_puts(&sql, ")");
    s->rc = rpd_prepare(r, sql.s, &s->ins);
    rpd_buf_free(&sql);
  }
  return s->rc;
}

/* One complete row of s->t into the trace table. */
static void insert_row(rpd_tstream *s, size_t r)
{
  int st;
  if (s->rc)
    return;
  for (int k = 0; k < s->t.ncols; k++) {
    const rpd_cell *c = rpd_table_cell(&s->t, r, k);
    if (c->t == RPD_CELL_INT)
      sqlite3_bind_int64(s->ins, k + 1, c->i);
    else if (c->t == RPD_CELL_DBL)
      sqlite3_bind_double(s->ins, k + 1, c->d);
    else if (c->t == RPD_CELL_STR)
      sqlite3_bind_text(s->ins, k + 1, c->s, -1, SQLITE_STATIC);
    else
      sqlite3_bind_null(s->ins, k + 1);
  }
  st = rpd_step(s->r, s->ins);
  if (st != SQLITE_DONE)
    s->rc = st < 0 ? -st : RPD_ESQL;
  sqlite3_reset(s->ins);
}

/* One complete row of s->t to the writer. */
static void put_row(rpd_tstream *s, size_t r)
{
  char big[32];
  if (s->r) {
    insert_row(s, r);
    return;
  }
  for (int k = 0; k < s->t.ncols; k++) {
    const rpd_cell *c = rpd_table_cell(&s->t, r, k);
    if (s->o) {
      switch (c->t) {
      case RPD_CELL_INT: rpd_out_int(s->o, c->i); break;
      case RPD_CELL_DBL: rpd_out_double(s->o, c->d, c->digits); break;
      case RPD_CELL_STR: rpd_out_str(s->o, c->s); break;
      default: rpd_out_null(s->o); break;
      }
    } else if (c->t == RPD_CELL_INT && (c->i > XLSX_EXACT_INT || c->i < -XLSX_EXACT_INT)) {
      snprintf(big, sizeof big, "%lld", (long long)c->i);   /* no digit lost */
      rpd_wb_str(s->ws, big);
    } else if (c->t == RPD_CELL_INT)
      rpd_wb_int(s->ws, c->i);
    else if (c->t == RPD_CELL_DBL)
      rpd_wb_num(s->ws, c->d);
    else if (c->t == RPD_CELL_STR)
      rpd_wb_str(s->ws, c->s);
    else
      rpd_wb_null(s->ws);
  }
  if (s->o)
    rpd_out_endrow(s->o);
  else if (s->ws)
    rpd_wb_endrow(s->ws);
}

/* The rows completed so far go out; the buffer is emptied (see table.h). */
void rpd_tstream_endrow(rpd_tstream *s)
{
  size_t n = s->t.nrows * (size_t)s->t.ncols + (size_t)s->t.col;
  for (size_t r = 0; r < s->t.nrows; r++)
    put_row(s, r);
  s->rows += s->t.nrows;
  for (size_t i = 0; i < n; i++)
    if (s->t.c[i].t == RPD_CELL_STR)
      free(s->t.c[i].s);
  s->t.nrows = 0;
  s->t.col = 0;
}

/* Finish (see table.h). */
int rpd_tstream_end(rpd_tstream *s)
{
  int rc = s->rc;
  rpd_tstream_endrow(s);
  if (s->o) {
    int e = rpd_out_end(s->o);
    if (!rc)
      rc = e;
  } else if (s->ws) {
    int e = rpd_wb_end(s->ws);
    if (!rc)
      rc = e;
  } else if (s->r) {
    sqlite3_finalize(s->ins);
    s->ins = NULL;
    rc = s->rc;
  }
  rpd_table_free(&s->t);
  s->o = NULL;
  s->ws = NULL;
  return rc;
}
