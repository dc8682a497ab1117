/* text.c - raptor --report's text outputs: stdout as aligned tables, CSV
 * or one JSON object of tables; --csv-dir (a file per table); --save
 * (ext_report_* tables in the trace). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "textcut.h"

#define TABLE_TEXT_MAX 100

/* For the aligned text table only: long kernel names are cut in the
 * middle (rpd_text_cut: head ... tail, at UTF-8 character boundaries) so
 * the columns stay readable and kernels of one family stay apart.  CSV,
 * JSON, xlsx and --save carry the full text. */
static void out_text(rpd_out *o, rpd_fmt fmt, const char *s)
{
  rpd_buf b = {0};
  rpd_out_str(o, fmt == RPD_FMT_TABLE ? rpd_text_cut(&b, s, TABLE_TEXT_MAX) : s);
  rpd_buf_free(&b);
}

static int t_write(const table *t, FILE *f, rpd_fmt fmt)
{
  rpd_out *o = rpd_out_new(f, fmt, t->ncols, t->cols);
  for (size_t r = 0; r < t->nrows; r++) {
    for (int k = 0; k < t->ncols; k++) {
      const cell *c = &t->c[r * t->ncols + k];
      switch (c->t) {
      case C_INT: rpd_out_int(o, c->i); break;
      case C_DBL: rpd_out_double(o, c->d, c->digits); break;
      case C_STR: out_text(o, fmt, c->s); break;
      default: rpd_out_null(o); break;
      }
    }
    rpd_out_endrow(o);
  }
  return rpd_out_end(o);
}

/* D/<table>.csv, written to a temp file next to it and renamed into place
 * (never over the trace `input`, a device or a directory). */
static int t_csv(const table *t, const char *dir, const char *input)
{
  char *p = rpd_xasprintf("%s/%s.csv", dir, t->name);
  rpd_outfile of;
  int rc = rpd_outfile_begin(&of, p, input);
  if (rc)
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  else if ((rc = t_write(t, of.fp, RPD_FMT_CSV)) || ferror(of.fp)) {
    rpd_outfile_abort(&of);
    rc = rpd_seterr(RPD_EIO, "cannot write '%s'", p);
  } else if ((rc = rpd_outfile_commit(&of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
  free(p);
  return rc;
}

/* One table as a formatted sheet (common/workbook.h); *ws gets the sheet
 * for the charts. */

static int t_save(const table *t, rpd *r)
{
  rpd_buf sql = {0};
  sqlite3_stmt *st = NULL;
  int rc;
  char *name = rpd_xasprintf("ext_report_%s", t->name);
  rc = rpd_execf(r, "DROP TABLE IF EXISTS \"%w\"", name);
  rpd_buf_printf(&sql, "CREATE TABLE \"%s\" (", name);
  for (int k = 0; k < t->ncols; k++)
    rpd_buf_printf(&sql, "%s\"%s\" %s", k ? ", " : "", t->cols[k], t->types[k]);
  rpd_buf_puts(&sql, ")");
  if (!rc)
    rc = rpd_exec(r, sql.s);
  rpd_buf_reset(&sql);
  rpd_buf_printf(&sql, "INSERT INTO \"%s\" VALUES (", name);
  for (int k = 0; k < t->ncols; k++)
    rpd_buf_puts(&sql, k ? ",?" : "?");
  rpd_buf_puts(&sql, ")");
  if (!rc)
    rc = rpd_prepare(r, sql.s, &st);
  for (size_t row = 0; row < t->nrows && !rc; row++) {
    for (int k = 0; k < t->ncols; k++) {
      const cell *c = &t->c[row * t->ncols + k];
      if (c->t == C_INT)
        sqlite3_bind_int64(st, k + 1, c->i);
      else if (c->t == C_DBL)
        sqlite3_bind_double(st, k + 1, c->d);
      else if (c->t == C_STR)
        sqlite3_bind_text(st, k + 1, c->s, -1, SQLITE_STATIC);
      else
        sqlite3_bind_null(st, k + 1);
    }
    int s = rpd_step(r, st);
    if (s != SQLITE_DONE)
      rc = s < 0 ? -s : RPD_ESQL;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  rpd_buf_free(&sql);
  free(name);
  return rc;
}


/* stdout (see internal.h). */
int report_stdout(const report *rep, const ropts *o)
{
  int rc = RPD_OK;
  if (o->fmt == RPD_FMT_JSON)
    fputs("{\n", stdout);
  for (int i = 0, n = 0; i < rep->n && !rc; i++) {
    const table *t = &rep->t[i];
    if (o->only ? strcmp(o->only, t->name) != 0 : !report_is_listed(i))
      continue;
    if (o->fmt == RPD_FMT_JSON)
      printf("%s\"%s\": ", n++ ? ",\n" : "", t->name);
    else if (o->fmt == RPD_FMT_TABLE)
      printf("%s# %s\n", n++ ? "\n" : "", t->name);
    fflush(stdout);
    rc = t_write(t, stdout, o->fmt);
  }
  if (o->fmt == RPD_FMT_JSON)
    fputs("}\n", stdout);
  if (!rc)
    rc = rpd_finish_stdout();
  return rc;
}

/* --csv-dir (see internal.h). */
int report_csvs(const report *rep, const char *dir, const char *input)
{
  if (mkdir(dir, 0777) && errno != EEXIST)
    return rpd_seterr(RPD_EIO, "cannot create '%s': %s", dir, strerror(errno));
  int rc = RPD_OK;
  for (int i = 0; i < rep->n && !rc; i++)
    if (report_is_written(i))
      rc = t_csv(&rep->t[i], dir, input);
  return rc;
}

/* Refuse the CSV files before the work (see internal.h). */
int report_check_csvs(const report *rep, const char *dir, const char *input)
{
  struct stat sb;
  int rc = RPD_OK;
  if (stat(dir, &sb) != 0)
    return RPD_OK;
  for (int i = 0; i < rep->n && !rc; i++) {
    if (!report_is_written(i))
      continue;
    char *p = rpd_xasprintf("%s/%s.csv", dir, rep->t[i].name);
    if ((rc = rpd_output_check(p, input, NULL)))
      rc = rpd_seterr(rc, "cannot write '%s': %s", p, rpd_errmsg());
    free(p);
  }
  return rc;
}

/* --save: the core tables but kernel_details (see internal.h). */
int report_save(rpd *r, const report *rep, const ropts *o)
{
  int rc = rpd_begin(r);
  for (int i = 0; i < NT && !rc; i++)
    if (i != T_DETAILS)
      rc = t_save(&rep->t[i], r);
  if (!rc) {
    char b[128];
    snprintf(b, sizeof b, "threshold_us=%g bins=%d gpu=%d", o->threshold_us,
             o->bins, o->gpu);
    rc = rpd_meta_set(r, "ext_report::params", b);
  }
  if (!rc)
    rc = rpd_commit(r);
  else
    rpd_rollback(r);
  return rc;
}
