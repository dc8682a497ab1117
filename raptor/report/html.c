/* html.c - raptor --report --html FILE: one self-contained page (no network,
 * no external script or font) with inline SVG charts and sortable,
 * filterable tables, the page a team shares: the core report, then the
 * rpd-analyze tables (with the idle breakdown chart) and the cross-rank
 * tables (with per-rank and imbalance charts) when the trace has them.
 * See docs/report.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textcut.h"
#include "internal.h"
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

static const char *const palette[] = {
  "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#9d755d"
};

/* Write s made safe for HTML (entities, valid UTF-8). */
static void put(FILE *f, rpd_buf *b, const char *s)
{
  fputs(rpd_text_safe_str(b, s ? s : "", RPD_TEXT_HTML), f);
}

/* A chart label: at most LABEL_MAX characters, cut in the middle
 * (rpd_text_cut: head ... tail) so kernels of one family differ. */
static void put_label(FILE *f, rpd_buf *b, const char *s)
{
  rpd_buf cut = {0};
  put(f, b, rpd_text_cut(&cut, s, LABEL_MAX));
  rpd_buf_free(&cut);
}

static void fmt_num(char *o, size_t n, double v)
{
  if (fabs(v) >= 100) snprintf(o, n, "%.0f", v);
  else if (fabs(v) >= 1) snprintf(o, n, "%.2f", v);
  else snprintf(o, n, "%.3f", v);
}

static void chart_begin(FILE *f, rpd_buf *b, const char *title, int w, int h)
{
  fputs("<div class=\"chart\"><h3>", f);
  put(f, b, title);
  fprintf(f, "</h3><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h, w, h);
}

static void chart_end(FILE *f)
{
  fputs("</svg></div>\n", f);
}

/* The label of a chart row: the text of c, or prefix and the number. */
static const char *row_label(const cell *c, const char *prefix, char *buf, size_t n)
{
  if (c->t == C_STR)
    return c->s;
  if (c->t == C_INT)
    snprintf(buf, n, "%s%lld", prefix, (long long)c->i);
  else
    snprintf(buf, n, "%s", prefix);
  return buf;
}

/* Horizontal bars: label from column lc (numbers as "rank N" style with
 * prefix), value from vc, first n rows. */
static void bars_p(FILE *f, rpd_buf *b, const table *t, int lc, int vc, int n,
                   const char *title, const char *unit, const char *prefix)
{
  int rows = !t ? 0 : (int)t->nrows < n ? (int)t->nrows : n, lw = 300, bw = 200, rh = 18;
  double max = 0;
  char v[32];
  char lab[64];
  if (!t || rows <= 0 || lc < 0 || vc < 0)
    return;
  for (int r = 0; r < rows; r++) {
    double x = t_num(t_cell(t, (size_t)r, vc));
    if (isfinite(x) && x > max) max = x;
  }
  chart_begin(f, b, title, lw + bw + 80, rows * rh + 8);
  for (int r = 0; r < rows; r++) {
    const char *l = row_label(t_cell(t, (size_t)r, lc), prefix, lab, sizeof lab);
    double x = t_num(t_cell(t, (size_t)r, vc));
    double w = max > 0 && isfinite(x) ? x / max * bw : 0;
    int y = r * rh + 4;
    fprintf(f, "<g><title>");
    put(f, b, l);
    fmt_num(v, sizeof v, isfinite(x) ? x : 0);
    fprintf(f, ": %s %s</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", v, unit,
            lw - 6, y + 12);
    put_label(f, b, l);
    fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
            "<text x=\"%.1f\" y=\"%d\">%s</text></g>\n", lw, y, w, rh - 4,
            palette[0], lw + w + 4, y + 12, v);
  }
  chart_end(f);
}

static void bars(FILE *f, rpd_buf *b, const table *t, int lc, int vc, int n,
                 const char *title, const char *unit)
{
  bars_p(f, b, t, lc, vc, n, title, unit, "");
}

/* Vertical columns (histograms): label column lc, count column vc. */
static void columns(FILE *f, rpd_buf *b, const table *t, int lc, int vc, const char *title,
                    const char *xunit)
{
  int n = (int)t->nrows, W = 560, H = 220, left = 50, bottom = 40;
  double max = 0, cw;
  char v[32];
  if (n <= 0)
    return;
  for (int r = 0; r < n; r++) {
    double x = t_num(t_cell(t, (size_t)r, vc));
    if (isfinite(x) && x > max) max = x;
  }
  cw = (double)(W - left - 10) / n;
  chart_begin(f, b, title, W, H);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", left,
          H - bottom, W - 10, H - bottom);
  fmt_num(v, sizeof v, max);
  fprintf(f, "<text x=\"%d\" y=\"14\" text-anchor=\"end\">%s</text>\n", left - 4, v);
  for (int r = 0; r < n; r++) {
    const cell *c = t_cell(t, (size_t)r, lc);
    double x = t_num(t_cell(t, (size_t)r, vc));
    double h = max > 0 && isfinite(x) ? x / max * (H - bottom - 20) : 0;
    char lab[64];
    if (c->t == C_STR)
      snprintf(lab, sizeof lab, "%s", c->s);
    else
      fmt_num(lab, sizeof lab, t_num(c));
    fmt_num(v, sizeof v, isfinite(x) ? x : 0);
    fprintf(f, "<g><title>");
    put(f, b, lab);
    fprintf(f, " %s: %s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"%s\"/></g>\n", xunit, v, left + r * cw + cw * 0.1, H - bottom - h,
            cw * 0.8 > 1 ? cw * 0.8 : 1, h, palette[1]);
    if (n <= 12 || r % (n / 10 + 1) == 0) {
      fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", left + r * cw + cw / 2,
              H - bottom + 14);
      put(f, b, lab);
      fputs("</text>\n", f);
    }
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", W / 2, H - 6, xunit);
  chart_end(f);
}

/* Utilization over time: a step line, each bin level from its start
 * (column 0, ms) to its end (column 2), y = column 1 (%); the axis ends at
 * the last bin's end, the span's end. */
static void util_line(FILE *f, rpd_buf *b, const table *t)
{
  int n = (int)t->nrows, W = 560, H = 220, left = 40, bottom = 30;
  double xmax;
  if (n <= 0)
    return;
  xmax = t_num(t_cell(t, (size_t)n - 1, t->ncols > 2 ? 2 : 0));
  if (!(xmax > 0)) xmax = 1;
  chart_begin(f, b, "GPU utilization over time (busy %, all GPUs)", W, H);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
          "<text x=\"%d\" y=\"24\" text-anchor=\"end\">100%%</text>"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0%%</text>\n",
          left, H - bottom, W - 10, H - bottom, left - 4, left - 4, H - bottom);
  fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", palette[0]);
  for (int r = 0; r < n; r++) {
    double x = t_num(t_cell(t, (size_t)r, 0)), y = t_num(t_cell(t, (size_t)r, 1));
    double x2 = t->ncols > 2 ? t_num(t_cell(t, (size_t)r, 2)) : x;
    if (!isfinite(y)) y = 0;
    fprintf(f, "%.1f,%.1f %.1f,%.1f ", left + x / xmax * (W - left - 10),
            (H - bottom) - y / 100.0 * (H - bottom - 20), left + x2 / xmax * (W - left - 10),
            (H - bottom) - y / 100.0 * (H - bottom - 20));
  }
  fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the first op (ms,"
          " 0 .. %.3f)</text>\n", W / 2, H - 6, xmax);
  chart_end(f);
}

/* GPU time breakdown: one stacked bar per gpu_timeline block (8 rows:
 * rows 4..7 are idle, computation, exposed_comm, exposed_memcpy, which add
 * up to total_time). */
static void breakdown(FILE *f, rpd_buf *b, const table *t)
{
  int blocks = (int)t->nrows / 8, W = 560, left = 80, bw = W - left - 20, rh = 26;
  static const int part[] = { 5, 6, 7, 4 };
  if (blocks <= 0)
    return;
  chart_begin(f, b, "GPU time breakdown (share of total_time)", W, blocks * rh + 40);
  for (int k = 0; k < blocks; k++) {
    const cell *g = t_cell(t, (size_t)k * 8, 0);
    double x = left, total = t_num(t_cell(t, (size_t)k * 8, 2));
    char lab[32];
    if (g->t == C_NULL) snprintf(lab, sizeof lab, "all GPUs");
    else snprintf(lab, sizeof lab, "GPU %lld", (long long)g->i);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 6,
            k * rh + 17, lab);
    for (int p = 0; p < 4; p++) {
      size_t r = (size_t)k * 8 + (size_t)part[p];
      double ms = t_num(t_cell(t, r, 2)), w = total > 0 && isfinite(ms) ? ms / total * bw : 0;
      const cell *name = t_cell(t, r, 1);
      fprintf(f, "<g><title>%s: %.3f ms (%.1f%%)</title><rect x=\"%.1f\" y=\"%d\" "
              "width=\"%.1f\" height=\"%d\" fill=\"%s\"/></g>\n", name->s, ms,
              total > 0 ? ms / total * 100 : 0, x, k * rh + 4, w, rh - 8,
              palette[p == 3 ? 7 : p]);
      x += w;
    }
  }
  for (int p = 0; p < 4; p++)
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\">%s</text>\n", left + p * 120, blocks * rh + 14,
            palette[p == 3 ? 7 : p], left + p * 120 + 14, blocks * rh + 23,
            t_cell(t, (size_t)part[p], 1)->s);
  chart_end(f);
}

/* One table: a filter box and a sortable table (numbers carry data-v). */
static void html_table(FILE *f, rpd_buf *b, const table *t)
{
  size_t rows = t->nrows < HTML_MAX_ROWS ? t->nrows : HTML_MAX_ROWS;
  fprintf(f, "<h2 id=\"%s\">%s</h2>\n", t->name, t->name);
  fprintf(f, "<input class=\"filter\" id=\"f-t-%s\" placeholder=\"filter %s rows\">", t->name,
          t->name);
  fprintf(f, " <span class=\"note\">%zu rows%s; click a header to sort</span>\n", t->nrows,
          rows < t->nrows ? " (the first 10000 shown; all in --xlsx/--csv-dir)" : "");
  fprintf(f, "<div class=\"wrap\"><table class=\"data\" id=\"t-%s\"><thead><tr>", t->name);
  for (int k = 0; k < t->ncols; k++) {
    fputs("<th>", f);
    put(f, b, t->cols[k]);
    fputs("</th>", f);
  }
  fputs("</tr></thead><tbody>\n", f);
  for (size_t r = 0; r < rows; r++) {
    fputs("<tr>", f);
    for (int k = 0; k < t->ncols; k++) {
      const cell *c = t_cell(t, r, k);
      if (c->t == C_INT)
        fprintf(f, "<td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)c->i,
                (long long)c->i);
      else if (c->t == C_DBL)
        fprintf(f, "<td class=\"n\" data-v=\"%.17g\">%.*f</td>", c->d,
                c->digits > 3 ? 3 : c->digits < 0 ? 3 : c->digits, c->d);
      else if (c->t == C_STR) {
        fputs("<td class=\"s\" title=\"", f);
        put(f, b, c->s);
        fputs("\">", f);
        put(f, b, c->s);
        fputs("</td>", f);
      } else
        fputs("<td></td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
}

/* rpd-analyze's idle breakdown: one stacked bar per GPU of busy,
 * host_wait, kernel_wait and other, which add up to the GPU's span. */
static void idle_breakdown(FILE *f, rpd_buf *b, const table *t)
{
  static const char *const part[] = { "busy_ns", "host_wait_ns", "kernel_wait_ns", "other_ns" };
  static const int color[] = { 2, 1, 3, 7 };
  int k[4], g = t_col(t, "gpuId"), span = t_col(t, "span_ns");
  int rows = t ? (int)t->nrows : 0, W = 560, left = 80, bw = W - left - 20, rh = 26;
  for (int p = 0; p < 4; p++)
    if ((k[p] = t_col(t, part[p])) < 0)
      return;
  if (rows <= 0 || g < 0 || span < 0)
    return;
  chart_begin(f, b, "Why is the GPU idle? (rpd-analyze: share of each GPU's span)", W,
              rows * rh + 40);
  for (int r = 0; r < rows; r++) {
    double x = left, total = t_num(t_cell(t, (size_t)r, span));
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">GPU %lld</text>\n", left - 6,
            r * rh + 17, (long long)t_num(t_cell(t, (size_t)r, g)));
    for (int p = 0; p < 4; p++) {
      double ns = t_num(t_cell(t, (size_t)r, k[p]));
      double w = total > 0 && isfinite(ns) ? ns / total * bw : 0;
      fprintf(f, "<g><title>%s: %.3f ms (%.1f%%)</title><rect x=\"%.1f\" y=\"%d\" "
              "width=\"%.1f\" height=\"%d\" fill=\"%s\"/></g>\n", part[p], ns / 1e6,
              total > 0 ? ns / total * 100 : 0, x, r * rh + 4, w, rh - 8, palette[color[p]]);
      x += w;
    }
  }
  for (int p = 0; p < 4; p++)
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\">%s</text>\n", left + p * 120, rows * rh + 14,
            palette[color[p]], left + p * 120 + 14, rows * rh + 23, part[p]);
  chart_end(f);
}

/* A section of optional tables (names starting with prefix): a heading,
 * its charts, its tables. */
static void section(FILE *f, rpd_buf *b, const report *rep, const char *prefix,
                    const char *heading, const char *note)
{
  int any = 0;
  for (int i = NT_ALL; i < rep->n; i++)
    any |= !strncmp(rep->t[i].name, prefix, strlen(prefix));
  if (!any)
    return;
  fprintf(f, "<h2>%s</h2>\n<p class=\"note\">%s</p>\n<div class=\"charts\">\n", heading,
          note);
  if (!strcmp(prefix, "analysis_"))
    idle_breakdown(f, b, report_find(rep, "analysis_idle"));
  else if (!strcmp(prefix, "steps")) {
    const table *st = report_find(rep, "steps");
    bars_p(f, b, st, 0, t_col(st, "dur_ms"), 64, "Step time (ms)", "ms", "step ");
    bars_p(f, b, st, 0, t_col(st, "idle_ms"), 64, "GPU idle time per step (ms)", "ms",
           "step ");
  } else {
    const table *rk = report_find(rep, "byrank_ranks");
    const table *kn = report_find(rep, "byrank_kernels");
    const table *st = report_find(rep, "byrank_stragglers");
    bars_p(f, b, rk, 0, t_col(rk, "busy_us"), 64, "GPU busy time per rank (us)", "us",
           "rank ");
    bars_p(f, b, kn, 0, t_col(kn, "imbalance"), 15,
           "Kernel imbalance across ranks (max/mean)", "x", "");
    bars_p(f, b, st, 0, t_col(st, "times_last"), 64,
           "Times a rank arrives last at a collective", "times", "rank ");
  }
  fputs("</div>\n", f);
  for (int i = NT_ALL; i < rep->n; i++)
    if (!strncmp(rep->t[i].name, prefix, strlen(prefix)))
      html_table(f, b, &rep->t[i]);
}

/* The page (see internal.h). */
int report_html(const report *rep, const char *const *info, int n, const char *path,
                const char *input)
{
  const table *t = rep->t;
  rpd_outfile of;
  rpd_buf b = {0}, title = {0};
  FILE *f;
  int rc = rpd_outfile_begin(&of, path, input);
  if (rc)
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  f = of.fp;
  rpd_buf_printf(&title, "raptor report: %s", n > 0 && info[1] ? info[1] : "");
  fprintf(f, page_head, rpd_text_safe_str(&b, title.s, RPD_TEXT_HTML));
  fputs("<h1>", f);
  put(f, &b, title.s);
  fputs("</h1>\n<table class=\"info\">\n", f);
  for (int i = 0; i < n; i++) {
    if (!info[2 * i] || !info[2 * i + 1])
      continue;
    fputs("<tr><td>", f);
    put(f, &b, info[2 * i]);
    fputs("</td><td>", f);
    put(f, &b, info[2 * i + 1]);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n<h2>Charts</h2>\n<div class=\"charts\">\n", f);
  breakdown(f, &b, &t[T_TIMELINE]);
  bars(f, &b, &t[T_SUMMARY], 0, 2, 15, "Top kernels by total time (us)", "us");
  bars(f, &b, &t[T_CATEGORY], 0, 3, 20, "Kernel time by category (ms)", "ms");
  columns(f, &b, &t[T_HIST], 0, 2, "Short-kernel durations (kernels per bin)", "us");
  columns(f, &b, &t[T_GAPS], 0, 1, "Idle gaps between one GPU's work (gaps)", "gap length");
  util_line(f, &b, &t[T_UTIL]);
  fputs("</div>\n", f);
  for (int i = 0; i < NT_ALL; i++)
    html_table(f, &b, &t[i]);
  static const char *const more[] = {"idle_definitions", "api_stats"};
  for (size_t k = 0; k < sizeof more / sizeof *more; k++)
    if (report_find(rep, more[k]))
      html_table(f, &b, report_find(rep, more[k]));
  section(f, &b, rep, "analysis_", "Why is the GPU idle? (rpd-analyze)",
          "The ext_analysis_* tables of the trace, as rpd-analyze wrote them.");
  section(f, &b, rep, "steps", "Steps",
          "One row per step (ProfilerStep#N markers, --step-marker, or the period of"
          " the kernel sequence); steady = not a leading warm-up step.");
  section(f, &b, rep, "byrank_", "Across ranks (raptor --by-rank)",
          "Rank = gpuId / gpu_stride; imbalance = max/mean over ranks.");
  report_perf_html(f, rep);   /* perfchart.c; then the sheets of perf.c */
  for (int i = NT_ALL; i < rep->n; i++)
    if (report_perf_name(rep->t[i].name))
      html_table(f, &b, &rep->t[i]);
  fputs(page_script, f);
  fputs("</body></html>\n", f);
  rpd_buf_free(&b);
  rpd_buf_free(&title);
  if (ferror(f)) {
    rpd_outfile_abort(&of);
    return rpd_seterr(RPD_EIO, "cannot write '%s'", path);
  }
  if ((rc = rpd_outfile_commit(&of)))
    return rpd_seterr(rc, "cannot write '%s': %s", path, rpd_errmsg());
  return RPD_OK;
}
