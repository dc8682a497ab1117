/* table_html.c - tables and charts as one self-contained HTML page (no
 * network, no external script or font): inline SVG charts, sortable and
 * filterable tables.  See table.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "table.h"
#include "textcut.h"
#include "textsafe.h"

#define HTML_MAX_ROWS 10000   /* rows per table on the page (all in xlsx/csv) */
#define LABEL_MAX 40          /* characters of a chart label (full text in <title>) */

static const char page_head[] =
"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
"<title>%s</title>\n<style>\n"
"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 24px 40px;color:#1d2430}\n"
"h1{font-size:22px;margin:18px 0 6px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #d5dbe3}\n"
"table.info td{padding:1px 12px 1px 0;vertical-align:top}table.info td:first-child{font-weight:600}\n"
".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}\n"
".chart{border:1px solid #d5dbe3;border-radius:6px;padding:8px}\n"
".chart h3{font-size:14px;margin:0 0 4px}\n"
"svg text{font:11px system-ui,sans-serif;fill:#1d2430}\n"
"table.data{border-collapse:collapse;font-size:12px}\n"
"table.data th{background:#dde5f0;position:sticky;top:0;cursor:pointer;text-align:left;padding:3px 6px;white-space:nowrap}\n"
"table.data th.asc::after{content:' \\25B2'}table.data th.desc::after{content:' \\25BC'}\n"
"table.data td{padding:2px 6px;border-bottom:1px solid #eef1f5}\n"
"table.data td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
"table.data td.s{max-width:640px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\n"
".wrap{max-height:480px;overflow:auto;border:1px solid #d5dbe3}\n"
"input.filter{margin:4px 0;padding:3px 6px;width:320px}\n"
".note{color:#667;font-size:12px}\n"
"</style></head><body>\n";

/* Sort by a click on a header (numbers by data-v), filter by the box. */
static const char page_script[] =
"<script>\n"
"document.querySelectorAll('table.data').forEach(function(t){\n"
" var tb=t.tBodies[0];\n"
" t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){\n"
"  var asc=!th.classList.contains('asc');\n"
"  t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc')});\n"
"  th.classList.add(asc?'asc':'desc');\n"
"  var rows=Array.prototype.slice.call(tb.rows);\n"
"  rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];\n"
"   var u=x.getAttribute('data-v'),v=y.getAttribute('data-v'),r;\n"
"   if(u!==null&&v!==null)r=parseFloat(u)-parseFloat(v);\n"
"   else if(u!==null)r=-1;else if(v!==null)r=1;\n"
"   else r=x.textContent.localeCompare(y.textContent);\n"
"   return asc?r:-r;});\n"
"  rows.forEach(function(r){tb.appendChild(r)});});});\n"
" var f=document.getElementById('f-'+t.id);\n"
" if(f)f.addEventListener('input',function(){var q=f.value.toLowerCase();\n"
"  Array.prototype.forEach.call(tb.rows,function(r){\n"
"   r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});});\n"
"});\n"
"</script>\n";

static const char *const palette[RPD_HTML_NCOLORS] = {
  "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#9d755d"
};

/* Colour i of the page's palette (see table.h). */
const char *rpd_html_color(int i)
{
  return palette[((unsigned)i) % RPD_HTML_NCOLORS];
}

/* s made safe for HTML (see table.h). */
void rpd_html_text(rpd_html *h, const char *s)
{
  fputs(rpd_text_safe_str(&h->b, s ? s : "", RPD_TEXT_HTML), h->f);
}

/* A chart label: at most LABEL_MAX characters, cut in the middle
 * (rpd_text_cut: head ... tail) so kernels of one family differ. */
static void put_label(rpd_html *h, const char *s)
{
  rpd_buf cut = {0};
  rpd_html_text(h, rpd_text_cut(&cut, s, LABEL_MAX));
  rpd_buf_free(&cut);
}

/* A number as a chart shows it (see table.h). */
void rpd_html_num(char *o, size_t n, double v)
{
  if (fabs(v) >= 100) snprintf(o, n, "%.0f", v);
  else if (fabs(v) >= 1) snprintf(o, n, "%.2f", v);
  else snprintf(o, n, "%.3f", v);
}

/* An SVG chart box (see table.h). */
void rpd_html_chart_begin(rpd_html *h, const char *title, int w, int ht)
{
  fputs("<div class=\"chart\"><h3>", h->f);
  rpd_html_text(h, title);
  fprintf(h->f, "</h3><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" role=\"img\">\n", w, ht, w, ht);
}

void rpd_html_chart_end(rpd_html *h)
{
  fputs("</svg></div>\n", h->f);
}

/* The label of a chart row: the text of c, or prefix and the number. */
static const char *row_label(const rpd_cell *c, const char *prefix, char *buf, size_t n)
{
  if (c->t == RPD_CELL_STR)
    return c->s;
  if (c->t == RPD_CELL_INT)
    snprintf(buf, n, "%s%lld", prefix, (long long)c->i);
  else
    snprintf(buf, n, "%s", prefix);
  return buf;
}

/* Horizontal bars (see table.h). */
void rpd_html_bars(rpd_html *h, const rpd_table *t, int lc, int vc, int n,
                   const char *title, const char *unit, const char *prefix)
{
  FILE *f = h->f;
  int rows = !t ? 0 : (int)t->nrows < n ? (int)t->nrows : n, lw = 300, bw = 200, rh = 18;
  double max = 0;
  char v[32];
  char lab[64];
  if (!t || rows <= 0 || lc < 0 || vc < 0)
    return;
  for (int r = 0; r < rows; r++) {
    double x = rpd_cell_num(rpd_table_cell(t, (size_t)r, vc));
    if (isfinite(x) && x > max) max = x;
  }
  rpd_html_chart_begin(h, title, lw + bw + 80, rows * rh + 8);
  for (int r = 0; r < rows; r++) {
    const char *l = row_label(rpd_table_cell(t, (size_t)r, lc), prefix, lab, sizeof lab);
    double x = rpd_cell_num(rpd_table_cell(t, (size_t)r, vc));
    double w = max > 0 && isfinite(x) ? x / max * bw : 0;
    int y = r * rh + 4;
    fprintf(f, "<g><title>");
    rpd_html_text(h, l);
    rpd_html_num(v, sizeof v, isfinite(x) ? x : 0);
    fprintf(f, ": %s %s</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", v, unit,
            lw - 6, y + 12);
    put_label(h, l);
    fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
            "<text x=\"%.1f\" y=\"%d\">%s</text></g>\n", lw, y, w, rh - 4,
            palette[0], lw + w + 4, y + 12, v);
  }
  rpd_html_chart_end(h);
}

/* Vertical columns (see table.h). */
void rpd_html_columns(rpd_html *h, const rpd_table *t, int lc, int vc, const char *title,
                      const char *xunit)
{
  FILE *f = h->f;
  int n = (int)t->nrows, W = 560, H = 220, left = 50, bottom = 40;
  double max = 0, cw;
  char v[32];
  if (n <= 0)
    return;
  for (int r = 0; r < n; r++) {
    double x = rpd_cell_num(rpd_table_cell(t, (size_t)r, vc));
    if (isfinite(x) && x > max) max = x;
  }
  cw = (double)(W - left - 10) / n;
  rpd_html_chart_begin(h, title, W, H);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", left,
          H - bottom, W - 10, H - bottom);
  rpd_html_num(v, sizeof v, max);
  fprintf(f, "<text x=\"%d\" y=\"14\" text-anchor=\"end\">%s</text>\n", left - 4, v);
  for (int r = 0; r < n; r++) {
    const rpd_cell *c = rpd_table_cell(t, (size_t)r, lc);
    double x = rpd_cell_num(rpd_table_cell(t, (size_t)r, vc));
    double ht = max > 0 && isfinite(x) ? x / max * (H - bottom - 20) : 0;
    char lab[64];
    if (c->t == RPD_CELL_STR)
      snprintf(lab, sizeof lab, "%s", c->s);
    else
      rpd_html_num(lab, sizeof lab, rpd_cell_num(c));
    rpd_html_num(v, sizeof v, isfinite(x) ? x : 0);
    fprintf(f, "<g><title>");
    rpd_html_text(h, lab);
    fprintf(f, " %s: %s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"%s\"/></g>\n", xunit, v, left + r * cw + cw * 0.1, H - bottom - ht,
            cw * 0.8 > 1 ? cw * 0.8 : 1, ht, palette[1]);
    if (n <= 12 || r % (n / 10 + 1) == 0) {
      fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", left + r * cw + cw / 2,
              H - bottom + 14);
      rpd_html_text(h, lab);
      fputs("</text>\n", f);
    }
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", W / 2, H - 6, xunit);
  rpd_html_chart_end(h);
}

/* One table: a filter box and a sortable table (see table.h). */
void rpd_html_table(rpd_html *h, const rpd_table *t)
{
  FILE *f = h->f;
  if (t->sql) {   /* a query table: its rows in memory for the page */
    rpd_table m;
    if (rpd__table_load(t, &m) == RPD_OK)
      rpd_html_table(h, &m);
    rpd_table_free(&m);
    return;
  }
  size_t rows = t->nrows < HTML_MAX_ROWS ? t->nrows : HTML_MAX_ROWS;
  fprintf(f, "<h2 id=\"%s\">%s</h2>\n", t->name, t->name);
  fprintf(f, "<input class=\"filter\" id=\"f-t-%s\" placeholder=\"filter %s rows\">", t->name,
          t->name);
  fprintf(f, " <span class=\"note\">%zu rows%s; click a header to sort</span>\n", t->nrows,
          rows < t->nrows ? " (the first 10000 shown; all in --xlsx/--csv-dir)" : "");
  fprintf(f, "<div class=\"wrap\"><table class=\"data\" id=\"t-%s\"><thead><tr>", t->name);
  for (int k = 0; k < t->ncols; k++) {
    fputs("<th>", f);
    rpd_html_text(h, t->cols[k]);
    fputs("</th>", f);
  }
  fputs("</tr></thead><tbody>\n", f);
  for (size_t r = 0; r < rows; r++) {
    fputs("<tr>", f);
    for (int k = 0; k < t->ncols; k++) {
      const rpd_cell *c = rpd_table_cell(t, r, k);
      if (c->t == RPD_CELL_INT)
        fprintf(f, "<td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)c->i,
                (long long)c->i);
      else if (c->t == RPD_CELL_DBL)
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%.*f</td>", c->d,
                c->digits > 3 ? 3 : c->digits < 0 ? 3 : c->digits, c->d);
      else if (c->t == RPD_CELL_STR) {
        fputs("<td class=\"s\" title=\"", f);
        rpd_html_text(h, c->s);
        fputs("\">", f);
        rpd_html_text(h, c->s);
        fputs("</td>", f);
      } else
        fputs("<td></td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
}

/* The head of the page, its title and the info table. */
static void page_begin(rpd_html *h, const char *title, const char *const *info, int n)
{
  fprintf(h->f, page_head, rpd_text_safe_str(&h->b, title, RPD_TEXT_HTML));
  fputs("<h1>", h->f);
  rpd_html_text(h, title);
  fputs("</h1>\n<table class=\"info\">\n", h->f);
  for (int i = 0; i < n; i++) {
    if (!info[2 * i] || !info[2 * i + 1])
      continue;
    fputs("<tr><td>", h->f);
    rpd_html_text(h, info[2 * i]);
    fputs("</td><td>", h->f);
    rpd_html_text(h, info[2 * i + 1]);
    fputs("</td></tr>\n", h->f);
  }
  fputs("</table>\n", h->f);
}

/* The page's start (see table.h). */
int rpd_html_begin(rpd_html *h, const char *path, const char *input, const char *title,
                   const char *const *info, int n)
{
  int rc;
  memset(h, 0, sizeof *h);
  h->path = path;
  if ((rc = rpd_outfile_begin(&h->of, path, input)))
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  h->f = h->of.fp;
  page_begin(h, title, info, n);
  return RPD_OK;
}

/* The page to the caller's stream (see table.h). */
void rpd_html_begin_file(rpd_html *h, FILE *f, const char *title, const char *const *info,
                         int n)
{
  memset(h, 0, sizeof *h);
  h->f = f;
  page_begin(h, title, info, n);
}

/* A heading and the charts box (see table.h). */
void rpd_html_section(rpd_html *h, const char *heading, const char *note)
{
  fprintf(h->f, "<h2>%s</h2>\n", heading);
  if (note)
    fprintf(h->f, "<p class=\"note\">%s</p>\n", note);
}

void rpd_html_charts_begin(rpd_html *h)
{
  fputs("<div class=\"charts\">\n", h->f);
}

void rpd_html_charts_end(rpd_html *h)
{
  fputs("</div>\n", h->f);
}

/* The page's end, committed or removed (see table.h). */
int rpd_html_end(rpd_html *h, int rc)
{
  int err;
  fputs(page_script, h->f);
  fputs("</body></html>\n", h->f);
  rpd_buf_free(&h->b);
  err = ferror(h->f);
  if (!h->path)   /* the caller's stream: nothing to commit */
    return rc ? rc : err ? rpd_seterr(RPD_EIO, "write error") : RPD_OK;
  if (rc || err) {
    rpd_outfile_abort(&h->of);
    return rc ? rc : rpd_seterr(RPD_EIO, "cannot write '%s'", h->path);
  }
  if ((rc = rpd_outfile_commit(&h->of)))
    return rpd_seterr(rc, "cannot write '%s': %s", h->path, rpd_errmsg());
  return RPD_OK;
}
