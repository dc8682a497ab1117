/* perfchart.c - the roofline chart of raptor --report's performance-model
 * tables (perf.c): log-log, FLOPs/byte against achieved TFLOP/s, one point
 * per op group sized by its kernel time, and the roofs of the trace's arch
 * (perf_peaks: min(peak, bandwidth x intensity) per compute spec).  As SVG
 * in the HTML page (no script) and as a scatter chart in the workbook. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "internal.h"
#include "textsafe.h"
#include "workbook.h"

static const char *const colors[] = {
  "#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d", "#eeca3b"
};

/* The columns of perf_roofline and perf_peaks the charts read. */
typedef struct rcols {
  int name, cat, spec, fpb, tf, ks, lost;
} rcols;

static int roof_cols(const table *t, rcols *c)
{
  c->name = t_col(t, "name");
  c->cat = t_col(t, "category");
  c->spec = t_col(t, "Compute Spec");
  c->fpb = t_col(t, "FLOPS/Byte");
  c->tf = t_col(t, "TFLOPS/s");
  c->ks = t_col(t, "Kernel Time (µs)_sum");
  c->lost = t_col(t, "lost_us_sum");
  return c->name >= 0 && c->cat >= 0 && c->fpb >= 0 && c->tf >= 0 && c->ks >= 0 &&
         c->lost >= 0;
}

static const char *cell_str(const table *t, size_t r, int k)
{
  const cell *c = t_cell(t, r, k);
  return c->t == C_STR ? c->s : "";
}

/* A row's point: 1 when both coordinates are > 0 (a log axis has no 0). */
static int point(const table *t, size_t r, const rcols *c, double *x, double *y)
{
  *x = t_num(t_cell(t, r, c->fpb));
  *y = t_num(t_cell(t, r, c->tf));
  return isfinite(*x) && isfinite(*y) && *x > 0 && *y > 0;
}

/* The distinct categories in row order, for the colours (at most 8). */
static int cat_index(const table *t, const rcols *c, size_t r, const char **cats, int *n)
{
  const char *s = cell_str(t, r, c->cat);
  for (int i = 0; i < *n; i++)
    if (!strcmp(cats[i], s))
      return i;
  if (*n < 8)
    cats[(*n)++] = s;
  return *n - 1;
}

/* ------------------------------------------------------------ HTML */

typedef struct axes {
  double lx0, lx1, ly0, ly1;   /* log10 range */
  int W, H, left, right, top, bottom;
} axes;

static double ax_x(const axes *a, double x)
{
  return a->left + (log10(x) - a->lx0) / (a->lx1 - a->lx0) * (a->W - a->left - a->right);
}

static double ax_y(const axes *a, double y)
{
  return a->H - a->bottom - (log10(y) - a->ly0) / (a->ly1 - a->ly0) * (a->H - a->top - a->bottom);
}

static void put(FILE *f, rpd_buf *b, const char *s)
{
  fputs(rpd_text_safe_str(b, s ? s : "", RPD_TEXT_HTML), f);
}

/* A decade's label: 0.001 ... 1000, then 1e4. */
static void decade(char *o, size_t n, int k)
{
  if (k >= -3 && k <= 4)
    snprintf(o, n, "%g", pow(10, k));
  else
    snprintf(o, n, "1e%d", k);
}

typedef struct byk {
  double k;
  size_t r;
} byk;

static int cmp_byk(const void *a, const void *b)
{
  const byk *x = a, *y = b;
  if (x->k != y->k)
    return x->k > y->k ? -1 : 1;
  return x->r < y->r ? -1 : x->r > y->r;
}

/* The page's section (see internal.h). */
void report_perf_html(FILE *f, const report *rep)
{
  const table *t = report_find(rep, "perf_roofline"), *pk = report_find(rep, "perf_peaks");
  rcols c;
  rpd_buf b = {0};
  axes a = { .W = 620, .H = 400, .left = 64, .right = 20, .top = 16, .bottom = 44 };
  double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, kmax = 0, x, y;
  const char *cats[8];
  int ncat = 0, npts = 0;
  if (!t && report_find(rep, "coll_analysis")) {
    fputs("<h2 id=\"perf\">Collectives</h2>\n<p class=\"note\">The NCCL/RCCL "
          "collectives by process group, collective and message size, with their "
          "algorithm and bus bandwidth (coll_analysis).</p>\n", f);
    return;
  }
  if (!t || !roof_cols(t, &c))
    return;
  for (size_t r = 0; r < t->nrows; r++)
    if (point(t, r, &c, &x, &y)) {
      double k = t_num(t_cell(t, r, c.ks));
      xmin = fmin(xmin, x); xmax = fmax(xmax, x);
      ymin = fmin(ymin, y); ymax = fmax(ymax, y);
      if (isfinite(k) && k > kmax) kmax = k;
      npts++;
    }
  for (size_t r = 0; pk && r < pk->nrows; r++) {
    double p = t_num(t_cell(pk, r, 2)), ridge = t_num(t_cell(pk, r, 4));
    if (isfinite(p) && p > 0) ymax = fmax(ymax, p);
    if (isfinite(ridge) && ridge > 0) xmax = fmax(xmax, ridge * 4);
  }
  fputs("<h2 id=\"perf\">Performance model (rpd-perfmodel)</h2>\n<p class=\"note\">"
        "Each op group (name + parameters) against the roofline of the trace's GPU: "
        "FLOPs per byte moved against the TFLOP/s it achieved (all its FLOPs / all its "
        "kernel time), the point's area its kernel time. perf_roofline lists the groups "
        "by the time they lose against the roofline: what to fix first. The per-category "
        "sheets have TraceLens's names and columns.</p>\n<div class=\"charts\">\n", f);
  if (!npts) {
    fputs("<p class=\"note\">No op group has both FLOPs and bytes: no roofline "
          "chart.</p></div>\n", f);
    return;
  }
  a.lx0 = floor(log10(xmin));
  a.lx1 = ceil(log10(xmax));
  a.ly0 = floor(log10(ymin));
  a.ly1 = ceil(log10(ymax * 1.5));
  if (a.lx1 <= a.lx0) a.lx1 = a.lx0 + 1;
  if (a.ly1 <= a.ly0) a.ly1 = a.ly0 + 1;
  fputs("<div class=\"chart\"><h3>Roofline", f);
  if (pk && pk->nrows) {
    fputs(" of ", f);
    put(f, &b, cell_str(pk, 0, 0));
  }
  fprintf(f, " (log-log)</h3><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", a.W, a.H + 40, a.W,
          a.H + 40);
  /* decades */
  for (int k = (int)a.lx0; k <= (int)a.lx1; k++) {
    char l[16];
    double px = ax_x(&a, pow(10, k));
    decade(l, sizeof l, k);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e3e7ee\"/>"
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", px, a.top, px,
            a.H - a.bottom, px, a.H - a.bottom + 14, l);
  }
  for (int k = (int)a.ly0; k <= (int)a.ly1; k++) {
    char l[16];
    double py = ax_y(&a, pow(10, k));
    decade(l, sizeof l, k);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", a.left, py,
            a.W - a.right, py, a.left - 4, py + 4, l);
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">FLOPs / byte</text>\n"
          "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">"
          "TFLOP/s</text>\n", (a.W + a.left) / 2, a.H - a.bottom + 32,
          (a.H - a.bottom + a.top) / 2, (a.H - a.bottom + a.top) / 2);
  /* roofs: bandwidth x intensity up to the ridge, then the peak; specs
   * with the same peak share one line */
  for (size_t r = 0; pk && r < pk->nrows; r++) {
    double p = t_num(t_cell(pk, r, 2)), bw = t_num(t_cell(pk, r, 3));
    double x0 = pow(10, a.lx0), x1 = pow(10, a.lx1), ridge = p / bw;
    size_t same = 0;
    rpd_buf lab = {0};
    if (!(p > 0 && bw > 0))
      continue;
    while (same < r && !(t_num(t_cell(pk, same, 2)) == p && t_num(t_cell(pk, same, 3)) == bw))
      same++;
    if (same < r)
      continue;   /* drawn with an earlier spec */
    for (size_t q = r; q < pk->nrows; q++)
      if (t_num(t_cell(pk, q, 2)) == p && t_num(t_cell(pk, q, 3)) == bw)
        rpd_buf_printf(&lab, "%s%s", lab.s ? ", " : "", cell_str(pk, q, 1));
    rpd_buf_printf(&lab, ": %.1f TFLOP/s", p);
    double xs = fmax(x0, pow(10, a.ly0) / bw);   /* where the slope enters the plot */
    double xr = ridge < x1 ? ridge : x1, yr = ridge < x1 ? p : bw * x1;
    fputs("<g><title>", f);
    put(f, &b, lab.s);
    fprintf(f, ", %.2f TB/s, ridge %.1f FLOPs/byte</title><polyline fill=\"none\" "
            "stroke=\"#555\" stroke-dasharray=\"5 3\" points=\"%.1f,%.1f %.1f,%.1f "
            "%.1f,%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", bw, ridge,
            ax_x(&a, xs), ax_y(&a, bw * xs), ax_x(&a, xr), ax_y(&a, yr), ax_x(&a, x1),
            ax_y(&a, yr), ax_x(&a, xr) - 4, ax_y(&a, yr) - 4);
    put(f, &b, lab.s);
    fputs("</text></g>\n", f);
    rpd_buf_free(&lab);
  }
  /* points, the largest first so that small ones stay visible; the
   * colours by category in table order */
  byk *ord = rpd_xcalloc(t->nrows ? t->nrows : 1, sizeof *ord);
  for (size_t r = 0; r < t->nrows; r++) {
    double k = t_num(t_cell(t, r, c.ks));
    ord[r].k = isfinite(k) ? k : 0;
    ord[r].r = r;
    cat_index(t, &c, r, cats, &ncat);
  }
  report_sort(ord, t->nrows, sizeof *ord, cmp_byk);
  for (size_t i = 0; i < t->nrows; i++) {
    char v[160];
    size_t r = ord[i].r;
    if (!point(t, r, &c, &x, &y))
      continue;
    double k = t_num(t_cell(t, r, c.ks)), lost = t_num(t_cell(t, r, c.lost));
    double rad = 3 + 15 * sqrt(kmax > 0 && isfinite(k) ? k / kmax : 0);
    int ci = cat_index(t, &c, r, cats, &ncat);
    fputs("<g><title>", f);
    put(f, &b, cell_str(t, r, c.name));
    fputs(" ", f);
    put(f, &b, cell_str(t, r, t_col(t, "params") >= 0 ? t_col(t, "params") : c.name));
    snprintf(v, sizeof v, "\n%.3f us, %.1f TFLOP/s, %.2f FLOPs/byte, lost %.3f us", k, y, x,
             isfinite(lost) ? lost : 0);
    put(f, &b, v);
    fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
            "fill-opacity=\"0.55\" stroke=\"%s\"/></g>\n", ax_x(&a, x), ax_y(&a, y), rad,
            colors[ci < 0 ? 0 : ci], colors[ci < 0 ? 0 : ci]);
  }
  free(ord);
  for (int i = 0; i < ncat; i++) {
    fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
            a.left + 8 + (i % 4) * 140, a.H + 6 + (i / 4) * 16, colors[i],
            a.left + 16 + (i % 4) * 140, a.H + 10 + (i / 4) * 16);
    put(f, &b, cats[i]);
    fputs("</text>\n", f);
  }
  fputs("</svg></div>\n</div>\n", f);
  rpd_buf_free(&b);
}

/* ------------------------------------------------------------ workbook */

#define XCOL(t) ((lxw_col_t)((t)->ncols + 42))   /* after the hidden label column */
enum { SIZES = 3 };

/* The workbook's chart (see internal.h): hidden columns after the table
 * hold x, y per size class (a point's y only in its class's column, so
 * each class is one series with its marker size) and each roof's 3
 * points; a scatter chart with log axes reads them. */
int report_perf_xlsx(struct rpd_wb *w, const table *t, const report *rep,
                     const struct rpd_wb_sheet *ws)
{
  static const int msize[SIZES] = { 12, 8, 5 };
  static const lxw_color_t mcolor[SIZES] = { 0xE45756, 0xF58518, 0x4C78A8 };
  static const char *const sname[SIZES] = {
    "groups >= 10% of the largest time", "1-10%", "< 1%"
  };
  const table *pk = report_find(rep, "perf_peaks");
  rcols c;
  double kmax = 0, x, y, xmin = INFINITY, xmax = 0;
  int n = (int)t->nrows, any = 0;
  lxw_col_t xc = XCOL(t);
  lxw_chart *ch;
  lxw_chart_options opt = {0};
  lxw_row_col_options hide = { .hidden = 1 };
  if (!ws->ws || n <= 0 || !roof_cols(t, &c))
    return RPD_OK;
  for (int r = 0; r < n; r++) {
    double k = t_num(t_cell(t, (size_t)r, c.ks));
    if (isfinite(k) && k > kmax) kmax = k;
  }
  worksheet_write_string(ws->ws, 0, xc, "chart: FLOPS/Byte", NULL);
  for (int s = 0; s < SIZES; s++)
    worksheet_write_string(ws->ws, 0, xc + 1 + (lxw_col_t)s, sname[s], NULL);
  for (int r = 0; r < n; r++) {
    if (!point(t, (size_t)r, &c, &x, &y))
      continue;
    double k = t_num(t_cell(t, (size_t)r, c.ks)), share = kmax > 0 ? k / kmax : 0;
    int s = share >= 0.1 ? 0 : share >= 0.01 ? 1 : 2;
    worksheet_write_number(ws->ws, (lxw_row_t)r + 1, xc, x, NULL);
    worksheet_write_number(ws->ws, (lxw_row_t)r + 1, xc + 1 + (lxw_col_t)s, y, NULL);
    xmin = fmin(xmin, x);
    xmax = fmax(xmax, x);
    any = 1;
  }
  if (!any)
    return RPD_OK;
  ch = workbook_add_chart(w->wb, LXW_CHART_SCATTER);
  if (!ch)
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
  for (int s = 0; s < SIZES; s++) {
    lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
    if (!se)
      return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
    chart_series_set_categories(se, t->name, 1, xc, (lxw_row_t)n, xc);
    chart_series_set_values(se, t->name, 1, xc + 1 + (lxw_col_t)s, (lxw_row_t)n,
                            xc + 1 + (lxw_col_t)s);
    chart_series_set_name(se, sname[s]);
    chart_series_set_marker_type(se, LXW_CHART_MARKER_CIRCLE);
    chart_series_set_marker_size(se, (uint8_t)msize[s]);
    lxw_chart_fill fill = { .color = mcolor[s] };
    chart_series_set_marker_fill(se, &fill);
  }
  /* roofs: 3 points each (slope start, ridge, right end) */
  double x0 = pow(10, floor(log10(xmin))), x1 = pow(10, ceil(log10(xmax)));
  for (size_t r = 0; pk && r < pk->nrows; r++) {
    double p = t_num(t_cell(pk, r, 2)), bw = t_num(t_cell(pk, r, 3));
    lxw_col_t rc = xc + 1 + SIZES + 2 * (lxw_col_t)r;
    if (!(p > 0 && bw > 0))
      continue;
    double ridge = p / bw, right = fmax(x1, ridge * 4);
    double px[3] = { x0, ridge, right }, py[3] = { bw * x0, p, p };
    char nm[64];
    snprintf(nm, sizeof nm, "roof %s", cell_str(pk, r, 1));
    worksheet_write_string(ws->ws, 0, rc, nm, NULL);
    for (int i = 0; i < 3; i++) {
      worksheet_write_number(ws->ws, (lxw_row_t)i + 1, rc, px[i], NULL);
      worksheet_write_number(ws->ws, (lxw_row_t)i + 1, rc + 1, py[i], NULL);
    }
    lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
    if (!se)
      return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
    chart_series_set_categories(se, t->name, 1, rc, 3, rc);
    chart_series_set_values(se, t->name, 1, rc + 1, 3, rc + 1);
    chart_series_set_name(se, nm);
    chart_series_set_marker_type(se, LXW_CHART_MARKER_NONE);
    lxw_chart_line line = { .color = 0x555555, .width = 1.25,
                            .dash_type = LXW_CHART_LINE_DASH_DASH };
    chart_series_set_line(se, &line);
  }
  worksheet_set_column_opt(ws->ws, xc, xc + 1 + SIZES + 2 * 8, 8, NULL, &hide);
  chart_title_set_name(ch, "Roofline: op groups (marker size ~ kernel time)");
  chart_axis_set_name(ch->x_axis, "FLOPs / byte");
  chart_axis_set_name(ch->y_axis, "TFLOP/s");
  chart_axis_set_log_base(ch->x_axis, 10);
  chart_axis_set_log_base(ch->y_axis, 10);
  chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM);
  opt.x_scale = 1.8;
  opt.y_scale = 1.6;
  if (worksheet_insert_chart_opt(ws->ws, 1, (lxw_col_t)(t->ncols + 1), ch, &opt))
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
  return RPD_OK;
}
