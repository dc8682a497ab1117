/* workbook.c - formatted xlsx tables and charts; see workbook.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "textsafe.h"
#include "textcut.h"
#include "workbook.h"

static const char *const num_format[RPD_WB_NKINDS] = {
  [RPD_WB_TEXT] = NULL,
  [RPD_WB_INT] = "#,##0",
  [RPD_WB_ID] = "0",
  [RPD_WB_US] = "#,##0.000",
  [RPD_WB_MS] = "#,##0.000",
  [RPD_WB_PCT] = "0.00\"%\"",
  [RPD_WB_FRAC] = "0.00%",
  [RPD_WB_NUM] = "#,##0.000",
};

/* libxlsxwriter prints "[ERROR] ..." lines of its own on stderr when it
 * fails; the tool reports the failure itself in one line.  Point fd 2 at
 * /dev/null around such calls: returns the saved descriptor for quiet_end,
 * or -1 (then nothing was changed). */
static int quiet_begin(void)
{
  int saved, null;

  fflush(stderr);
  saved = dup(STDERR_FILENO);
  if (saved < 0)
    return -1;
  null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0 || dup2(null, STDERR_FILENO) < 0) {
    if (null >= 0)
      close(null);
    close(saved);
    return -1;
  }
  close(null);
  return saved;
}

static void quiet_end(int saved)
{
  if (saved < 0)
    return;
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
}

/* The formats of w->wb. */
static void make_formats(rpd_wb *w)
{
  lxw_workbook *wb = w->wb;
  w->head = workbook_add_format(wb);
  format_set_bold(w->head);
  format_set_bottom(w->head, LXW_BORDER_THIN);
  format_set_bg_color(w->head, 0xDDE5F0);
  w->key = workbook_add_format(wb);
  format_set_bold(w->key);
  for (int k = 0; k < RPD_WB_NKINDS; k++) {
    if (!num_format[k])
      continue;
    w->fmt[k] = workbook_add_format(wb);
    format_set_num_format(w->fmt[k], num_format[k]);
  }
}

/* Start the workbook (see workbook.h). */
int rpd_wb_open(rpd_wb *w, const char *path, const char *input)
{
  const char *tmpdir = getenv("TMPDIR");
  lxw_workbook_options opt = {0};
  int rc, quiet;

  memset(w, 0, sizeof *w);
  w->path = path;
  if ((rc = rpd_outfile_begin(&w->of, path, input)))
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  fclose(w->of.fp);             /* libxlsxwriter writes the temp by name */
  w->of.fp = NULL;
  if (tmpdir && *tmpdir)
    opt.tmpdir = (char *)tmpdir;
  quiet = quiet_begin();
  w->wb = workbook_new_opt(w->of.tmp, &opt);
  quiet_end(quiet);
  if (!w->wb) {
    rpd_outfile_abort(&w->of);
    return rpd_seterr(RPD_EIO, "cannot create '%s'", path);
  }
  make_formats(w);
  return RPD_OK;
}

/* Close, then commit or remove the temp file (see workbook.h). */
int rpd_wb_close(rpd_wb *w, int rc)
{
  int quiet = quiet_begin(), err;
  lxw_error e;

  errno = 0;
  e = workbook_close(w->wb);
  err = errno;
  quiet_end(quiet);
  w->wb = NULL;
  if (!rc && e != LXW_NO_ERROR) {
    const char *why = lxw_strerror(e);
    int n = (int)strlen(why);
    if (n > 0 && why[n - 1] == '.')   /* "...file." then ": errno text" */
      n--;
    rc = rpd_seterr(RPD_EIO, "cannot write '%s': %.*s%s%s", w->path, n, why,
                    err ? ": " : "", err ? strerror(err) : "");
  }
  if (rc)
    rpd_outfile_abort(&w->of);
  else if ((rc = rpd_outfile_commit(&w->of)))
    rc = rpd_seterr(rc, "cannot write '%s': %s", w->path, rpd_errmsg());
  return rc;
}

/* Characters of UTF-8 text s (continuation bytes not counted). */
static size_t text_width(const char *s)
{
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* How wide a number shows in its format: digits, separators, decimals. */
static size_t num_width(double v, rpd_wb_kind k)
{
  char b[64];
  size_t n;
  double a = fabs(v);
  int dec = k == RPD_WB_INT || k == RPD_WB_ID ? 0 : k == RPD_WB_PCT || k == RPD_WB_FRAC ? 2 : 3;
  if (k == RPD_WB_FRAC)
    a *= 100;
  snprintf(b, sizeof b, "%.0f", floor(a));
  n = strlen(b);
  if (k != RPD_WB_ID && k != RPD_WB_PCT && k != RPD_WB_FRAC)
    n += (n - 1) / 3;          /* thousands separators */
  n += dec ? (size_t)dec + 1 : 0;
  n += v < 0;
  n += k == RPD_WB_FRAC;
  return n;
}

static void grow(rpd_wb_sheet *s, int col, size_t chars)
{
  if (col < s->ncols && (double)chars > s->width[col])
    s->width[col] = (double)chars;
}

static lxw_error put_string(lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *v,
                            lxw_format *f)
{
  rpd_buf b = {0};
  lxw_error e = worksheet_write_string(ws, r, c, rpd_text_safe_str(&b, v, RPD_TEXT_XLSX), f);
  rpd_buf_free(&b);
  return e;
}

/* The first sheet (see workbook.h). */
int rpd_wb_info(rpd_wb *w, const char *title, const char *const *kv, int n)
{
  lxw_worksheet *ws = workbook_add_worksheet(w->wb, "info");
  size_t kw = 10, vw = 20;
  lxw_row_t r = 2;

  if (!ws)
    return rpd_seterr(RPD_EIO, "xlsx: cannot add sheet 'info'");
  put_string(ws, 0, 0, title ? title : "rpdtools", w->key);
  for (int i = 0; i < n; i++) {
    const char *k = kv[2 * i], *v = kv[2 * i + 1];
    if (!k || !v)
      continue;
    put_string(ws, r, 0, k, w->key);
    put_string(ws, r, 1, v, NULL);
    if (text_width(k) > kw) kw = text_width(k);
    if (text_width(v) > vw) vw = text_width(v);
    r++;
  }
  worksheet_set_landscape(ws);
  worksheet_fit_to_pages(ws, 1, 0);
  worksheet_set_column(ws, 0, 0, (double)kw + 2, NULL);
  worksheet_set_column(ws, 1, 1, (double)(vw > 100 ? 100 : vw) + 2, NULL);
  return RPD_OK;
}

static int has(const char *s, const char *part) { return strstr(s, part) != NULL; }

static int ends(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The kind a header name implies (see workbook.h). */
rpd_wb_kind rpd_wb_kind_of(const char *name)
{
  char l[64];
  size_t i;
  for (i = 0; name[i] && i + 1 < sizeof l; i++)
    l[i] = (char)tolower((unsigned char)name[i]);
  l[i] = 0;
  if (ends(l, "_us") || ends(l, "(us)") || ends(l, "_usec") || !strcmp(l, "us"))
    return RPD_WB_US;
  if (ends(l, "_ms") || ends(l, "(ms)") || !strcmp(l, "ms"))
    return RPD_WB_MS;
  if (has(l, "percent") || has(l, "pct") || ends(l, "%") || ends(l, "(%)"))
    return RPD_WB_PCT;
  if (!strcmp(l, "gpuid") || !strcmp(l, "gpu") || ends(l, "id") || !strcmp(l, "pid") ||
      !strcmp(l, "tid") || has(l, "queue") || !strcmp(l, "stream") || !strcmp(l, "rank") ||
      !strcmp(l, "bin") || ends(l, "_id"))
    return RPD_WB_ID;
  if (has(l, "count") || has(l, "calls") || !strcmp(l, "kernels") || ends(l, "_ns") ||
      !strcmp(l, "ns") || has(l, "bytes") || !strcmp(l, "n") || has(l, "grid") ||
      has(l, "block") || has(l, "workgroup") || has(l, "lds") || has(l, "scratch") ||
      has(l, "vgpr") || has(l, "sgpr"))
    return RPD_WB_INT;
  return RPD_WB_TEXT;
}

/* Start a sheet (see workbook.h). */
int rpd_wb_begin(rpd_wb *w, rpd_wb_sheet *s, const char *name, int ncols,
                 const char *const *names, const rpd_wb_kind *kinds)
{
  memset(s, 0, sizeof *s);
  s->w = w;
  s->name = name;
  s->ncols = ncols;
  s->row = 1;
  s->ws = workbook_add_worksheet(w->wb, name);
  s->kind = rpd_xcalloc((size_t)(ncols ? ncols : 1), sizeof *s->kind);
  s->width = rpd_xcalloc((size_t)(ncols ? ncols : 1), sizeof *s->width);
  if (!s->ws) {   /* writes become no-ops; rpd_wb_end frees and fails */
    s->full = 1;
    return rpd_seterr(RPD_EIO, "xlsx: cannot add sheet '%s'", name);
  }
  for (int k = 0; k < ncols; k++) {
    s->kind[k] = kinds ? kinds[k] : rpd_wb_kind_of(names[k]);
    put_string(s->ws, 0, (lxw_col_t)k, names[k], w->head);
    grow(s, k, text_width(names[k]) + 3);   /* bold + the filter button */
  }
  return RPD_OK;
}

/* The hidden column that holds the chart labels of the first rows (kernel
 * names cut to RPD_WB_LABEL_MAX characters, so a bar chart keeps its plot
 * area). */
static lxw_col_t label_col(const rpd_wb_sheet *s)
{
  return (lxw_col_t)(s->ncols + 40);
}

/* "ROW. v" with v cut to RPD_WB_LABEL_MAX characters in the middle
 * (rpd_text_cut: head ... tail, so kernels of one family differ) into the
 * label column: the rank ties a bar to its table row. */
static void put_label(rpd_wb_sheet *s, const char *v)
{
  rpd_buf cut = {0}, label = {0};
  rpd_buf_printf(&label, "%u. %s", (unsigned)s->row, rpd_text_cut(&cut, v, RPD_WB_LABEL_MAX));
  put_string(s->ws, s->row, label_col(s), label.s, NULL);
  rpd_buf_free(&cut);
  rpd_buf_free(&label);
  s->labels = 1;
}

void rpd_wb_str(rpd_wb_sheet *s, const char *v)
{
  if (v && *v && !s->full && s->col < s->ncols) {
    put_string(s->ws, s->row, (lxw_col_t)s->col, v, NULL);
    grow(s, s->col, text_width(v));
    if (s->col == 0 && s->row <= RPD_WB_LABEL_ROWS && !s->no_labels)
      put_label(s, v);
  }
  s->col++;
}

void rpd_wb_num(rpd_wb_sheet *s, double v)
{
  if (isfinite(v) && !s->full && s->col < s->ncols) {
    rpd_wb_kind k = s->kind[s->col] == RPD_WB_TEXT ? RPD_WB_NUM : s->kind[s->col];
    worksheet_write_number(s->ws, s->row, (lxw_col_t)s->col, v, s->w->fmt[k]);
    grow(s, s->col, num_width(v, k));
  }
  s->col++;
}

void rpd_wb_int(rpd_wb_sheet *s, int64_t v)
{
  if (!s->full && s->col < s->ncols) {
    rpd_wb_kind k = s->kind[s->col] == RPD_WB_TEXT ? RPD_WB_INT : s->kind[s->col];
    worksheet_write_number(s->ws, s->row, (lxw_col_t)s->col, (double)v, s->w->fmt[k]);
    grow(s, s->col, num_width((double)v, k));
  }
  s->col++;
}

void rpd_wb_null(rpd_wb_sheet *s)
{
  s->col++;
}

void rpd_wb_endrow(rpd_wb_sheet *s)
{
  s->col = 0;
  if (s->full)
    return;
  if (s->row >= RPD_WB_MAX_ROWS)
    s->full = 1;
  else
    s->row++;
}

/* Widths, frozen header, autofilter (see workbook.h). */
int rpd_wb_end(rpd_wb_sheet *s)
{
  lxw_row_t last = s->row > 1 ? s->row - 1 : 0;
  int rc = RPD_OK;
  if (!s->ws) {
    free(s->kind);
    free(s->width);
    s->kind = NULL;
    s->width = NULL;
    return rpd_seterr(RPD_EIO, "xlsx: cannot add sheet '%s'", s->name);
  }
  for (int k = 0; k < s->ncols; k++) {
    double wdt = s->width[k] + 1;
    if (wdt > RPD_WB_MAX_WIDTH) wdt = RPD_WB_MAX_WIDTH;
    if (wdt < 6) wdt = 6;
    worksheet_set_column(s->ws, (lxw_col_t)k, (lxw_col_t)k, wdt,
                         s->kind[k] == RPD_WB_TEXT ? NULL : s->w->fmt[s->kind[k]]);
  }
  if (s->labels) {
    lxw_row_col_options hide = { .hidden = 1 };
    worksheet_set_column_opt(s->ws, label_col(s), label_col(s), 8, NULL, &hide);
  }
  worksheet_freeze_panes(s->ws, 1, 0);
  /* printed / rendered to PDF: landscape, the table one page wide, the
   * header row on every page */
  worksheet_set_landscape(s->ws);
  worksheet_fit_to_pages(s->ws, 1, 0);
  worksheet_repeat_rows(s->ws, 0, 0);
  if (s->ncols > 0 && worksheet_autofilter(s->ws, 0, 0, last, (lxw_col_t)(s->ncols - 1)))
    rc = rpd_seterr(RPD_EIO, "xlsx: cannot set the filter of sheet '%s'", s->name);
  free(s->kind);
  free(s->width);
  s->kind = NULL;
  s->width = NULL;
  return rc;
}

/* A chart of type `type` with one series over src's rows, inserted right
 * of the table on src's own sheet. */
static int chart(rpd_wb *w, const rpd_wb_sheet *src, uint8_t type, int first, int nrows,
                 int cat_col, int val_col, const char *title, const char *axis)
{
  lxw_chart *c;
  lxw_chart_series *se;
  lxw_chart_options opt = {0};
  if (nrows <= 0 || !src->ws)
    return RPD_OK;
  c = workbook_add_chart(w->wb, type);
  if (!c)
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", src->name);
  se = chart_add_series(c, NULL, NULL);
  if (!se)
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", src->name);
  if (cat_col == 0 && src->labels && first + nrows - 1 <= RPD_WB_LABEL_ROWS) {
    chart_series_set_categories(se, src->name, (lxw_row_t)first, label_col(src),
                                (lxw_row_t)(first + nrows - 1), label_col(src));
    chart_show_hidden_data(c);
  } else
    chart_series_set_categories(se, src->name, (lxw_row_t)first, (lxw_col_t)cat_col,
                                (lxw_row_t)(first + nrows - 1), (lxw_col_t)cat_col);
  chart_series_set_values(se, src->name, (lxw_row_t)first, (lxw_col_t)val_col,
                          (lxw_row_t)(first + nrows - 1), (lxw_col_t)val_col);
  chart_title_set_name(c, title);
  if (type != LXW_CHART_PIE) {
    chart_legend_set_position(c, LXW_CHART_LEGEND_NONE);
    /* a bar chart's x_axis is its value axis (libxlsxwriter) */
    if (axis)
      chart_axis_set_name(type == LXW_CHART_BAR ? c->x_axis : c->y_axis, axis);
    if (type == LXW_CHART_BAR)
      chart_axis_set_reverse(c->y_axis);   /* the first row (biggest) on top */
  }
  opt.x_scale = 1.6;
  opt.y_scale = type == LXW_CHART_BAR && nrows > 10 ? 1.0 + nrows / 20.0 : 1.2;
  if (worksheet_insert_chart_opt(src->ws, 1, (lxw_col_t)(src->ncols + 1), c, &opt))
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", src->name);
  return RPD_OK;
}

int rpd_wb_bar(rpd_wb *w, const rpd_wb_sheet *src, int nrows, int cat_col, int val_col,
               const char *title, const char *axis)
{
  return chart(w, src, LXW_CHART_BAR, 1, nrows, cat_col, val_col, title, axis);
}

int rpd_wb_col(rpd_wb *w, const rpd_wb_sheet *src, int nrows, int cat_col, int val_col,
               const char *title, const char *axis)
{
  return chart(w, src, LXW_CHART_COLUMN, 1, nrows, cat_col, val_col, title, axis);
}

int rpd_wb_pie(rpd_wb *w, const rpd_wb_sheet *src, int first, int nrows, int cat_col,
               int val_col, const char *title)
{
  return chart(w, src, LXW_CHART_PIE, first, nrows, cat_col, val_col, title, NULL);
}

int rpd_wb_line(rpd_wb *w, const rpd_wb_sheet *src, int nrows, int x_col, int val_col,
                const char *title, const char *axis)
{
  return chart(w, src, LXW_CHART_LINE, 1, nrows, x_col, val_col, title, axis);
}
