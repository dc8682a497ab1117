/* html.c - raptor --report --html FILE: one self-contained page written
 * through the common HTML writer (common/out/table_html.c): the report's
 * charts, the core tables, then the rpd-analyze tables (with the idle
 * breakdown chart), the steps and the cross-rank tables (with per-rank
 * and imbalance charts) when the trace has them, and after them every
 * other table the report holds, so that a new table shows on the page
 * with no edit here.  See docs/report.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Utilization over time: a step line, each bin level from its start
 * (column 0, ms) to its end (column 2), y = column 1 (%); the axis ends at
 * the last bin's end, the span's end. */
static void util_line(rpd_html *h, const table *t)
{
  FILE *f = h->f;
  int n = (int)t->nrows, W = 560, H = 220, left = 40, bottom = 30;
  double xmax;
  if (n <= 0)
    return;
  xmax = t_num(t_cell(t, (size_t)n - 1, t->ncols > 2 ? 2 : 0));
  if (!(xmax > 0)) xmax = 1;
  rpd_html_chart_begin(h, "GPU utilization over time (busy %, all GPUs)", W, H);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
          "<text x=\"%d\" y=\"24\" text-anchor=\"end\">100%%</text>"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0%%</text>\n",
          left, H - bottom, W - 10, H - bottom, left - 4, left - 4, H - bottom);
  fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", rpd_html_color(0));
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
  rpd_html_chart_end(h);
}

/* GPU time breakdown: one stacked bar per gpu_timeline block (8 rows:
 * rows 4..7 are idle, computation, exposed_comm, exposed_memcpy, which add
 * up to total_time). */
static void breakdown(rpd_html *h, const table *t)
{
  FILE *f = h->f;
  int blocks = (int)t->nrows / 8, W = 560, left = 80, bw = W - left - 20, rh = 26;
  static const int part[] = { 5, 6, 7, 4 };
  if (blocks <= 0)
    return;
  rpd_html_chart_begin(h, "GPU time breakdown (share of total_time)", W, blocks * rh + 40);
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
              rpd_html_color(p == 3 ? 7 : p));
      x += w;
    }
  }
  for (int p = 0; p < 4; p++)
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\">%s</text>\n", left + p * 120, blocks * rh + 14,
            rpd_html_color(p == 3 ? 7 : p), left + p * 120 + 14, blocks * rh + 23,
            t_cell(t, (size_t)part[p], 1)->s);
  rpd_html_chart_end(h);
}

/* rpd-analyze's idle breakdown: one stacked bar per GPU of busy,
 * host_wait, kernel_wait and other, which add up to the GPU's span. */
static void idle_breakdown(rpd_html *h, const table *t)
{
  FILE *f = h->f;
  static const char *const part[] = { "busy_ns", "host_wait_ns", "kernel_wait_ns", "other_ns" };
  static const int color[] = { 2, 1, 3, 7 };
  int k[4], g = t_col(t, "gpuId"), span = t_col(t, "span_ns");
  int rows = t ? (int)t->nrows : 0, W = 560, left = 80, bw = W - left - 20, rh = 26;
  for (int p = 0; p < 4; p++)
    if ((k[p] = t_col(t, part[p])) < 0)
      return;
  if (rows <= 0 || g < 0 || span < 0)
    return;
  rpd_html_chart_begin(h, "Why is the GPU idle? (rpd-analyze: share of each GPU's span)", W,
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
              total > 0 ? ns / total * 100 : 0, x, r * rh + 4, w, rh - 8, rpd_html_color(color[p]));
      x += w;
    }
  }
  for (int p = 0; p < 4; p++)
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\">%s</text>\n", left + p * 120, rows * rh + 14,
            rpd_html_color(color[p]), left + p * 120 + 14, rows * rh + 23, part[p]);
  rpd_html_chart_end(h);
}

/* A section of optional tables (names starting with prefix): a heading,
 * its charts, its tables (marked in shown[]). */
static void section(rpd_html *h, const report *rep, char *shown, const char *prefix,
                    const char *heading, const char *note)
{
  int any = 0;
  for (int i = NT_ALL; i < rep->n; i++)
    any |= !strncmp(rep->t[i].name, prefix, strlen(prefix));
  if (!any)
    return;
  rpd_html_section(h, heading, note);
  rpd_html_charts_begin(h);
  if (!strcmp(prefix, "analysis_"))
    idle_breakdown(h, report_find(rep, "analysis_idle"));
  else if (!strcmp(prefix, "steps")) {
    const table *st = report_find(rep, "steps");
    rpd_html_bars(h, st, 0, t_col(st, "dur_ms"), 64, "Step time (ms)", "ms", "step ");
    rpd_html_bars(h, st, 0, t_col(st, "idle_ms"), 64, "GPU idle time per step (ms)", "ms",
                  "step ");
  } else {
    const table *rk = report_find(rep, "byrank_ranks");
    const table *kn = report_find(rep, "byrank_kernels");
    const table *st = report_find(rep, "byrank_stragglers");
    rpd_html_bars(h, rk, 0, t_col(rk, "busy_us"), 64, "GPU busy time per rank (us)", "us",
                  "rank ");
    rpd_html_bars(h, kn, 0, t_col(kn, "imbalance"), 15,
                  "Kernel imbalance across ranks (max/mean)", "x", "");
    rpd_html_bars(h, st, 0, t_col(st, "times_last"), 64,
                  "Times a rank arrives last at a collective", "times", "rank ");
  }
  rpd_html_charts_end(h);
  for (int i = NT_ALL; i < rep->n; i++)
    if (!shown[i] && !strncmp(rep->t[i].name, prefix, strlen(prefix))) {
      rpd_html_table(h, &rep->t[i]);
      shown[i] = 1;
    }
}

/* Table `name` when the report has it and it is not on the page yet. */
static void named(rpd_html *h, const report *rep, char *shown, const char *name)
{
  for (int i = NT_ALL; i < rep->n; i++)
    if (!shown[i] && !strcmp(rep->t[i].name, name)) {
      rpd_html_table(h, &rep->t[i]);
      shown[i] = 1;
    }
}

/* The page (see internal.h). */
int report_html(const report *rep, const char *const *info, int n, const char *path,
                const char *input)
{
  const table *t = rep->t;
  rpd_html h;
  rpd_buf title = {0};
  char *shown;
  int rc;
  rpd_buf_printf(&title, "raptor report: %s", n > 0 && info[1] ? info[1] : "");
  rc = rpd_html_begin(&h, path, input, title.s, info, n);
  rpd_buf_free(&title);
  if (rc)
    return rc;
  shown = rpd_xcalloc((size_t)rep->n + 1, 1);
  rpd_html_section(&h, "Charts", NULL);
  rpd_html_charts_begin(&h);
  breakdown(&h, &t[T_TIMELINE]);
  rpd_html_bars(&h, &t[T_SUMMARY], 0, 2, 15, "Top kernels by total time (us)", "us", "");
  rpd_html_bars(&h, &t[T_CATEGORY], 0, 3, 20, "Kernel time by category (ms)", "ms", "");
  rpd_html_columns(&h, &t[T_HIST], 0, 2, "Short-kernel durations (kernels per bin)", "us");
  rpd_html_columns(&h, &t[T_GAPS], 0, 1, "Idle gaps between one GPU's work (gaps)",
                   "gap length");
  util_line(&h, &t[T_UTIL]);
  rpd_html_charts_end(&h);
  for (int i = 0; i < NT_ALL; i++) {
    rpd_html_table(&h, &t[i]);
    shown[i] = 1;
  }
  named(&h, rep, shown, "idle_definitions");
  named(&h, rep, shown, "api_stats");
  section(&h, rep, shown, "analysis_", "Why is the GPU idle? (rpd-analyze)",
          "The ext_analysis_* tables of the trace, as rpd-analyze wrote them.");
  section(&h, rep, shown, "steps", "Steps",
          "One row per step (ProfilerStep#N markers, --step-marker, or the period of"
          " the kernel sequence); steady = not a leading warm-up step.");
  section(&h, rep, shown, "byrank_", "Across ranks (raptor --by-rank)",
          "Rank = gpuId / gpu_stride; imbalance = max/mean over ranks.");
  report_perf_html(h.f, rep);   /* perfchart.c; then the sheets of perf.c */
  for (int i = NT_ALL; i < rep->n; i++)   /* any other table, in report order */
    if (!shown[i])
      rpd_html_table(&h, &rep->t[i]);
  free(shown);
  return rpd_html_end(&h, RPD_OK);
}
