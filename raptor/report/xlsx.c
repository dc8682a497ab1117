/* xlsx.c - raptor --report --xlsx F: an info sheet, a formatted sheet per
 * table (common/out/table_xlsx.c: frozen header, filter) and the report's
 * charts next to their tables; the rpd-analyze and cross-rank sheets
 * follow the core ones, and any other table appended gets its sheet. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#include "internal.h"
#include "workbook.h"

/* utilization: busy % over time as straight lines through each bin's
 * start (x = time_ms), the x axis from 0 to the last bin's end_ms (the
 * span's end) rather than to the last bin's start. */
static int util_chart(rpd_wb *w, const table *t, const rpd_wb_sheet *ws)
{
  int n = (int)t->nrows, e = t_col(t, "end_ms");
  lxw_chart *c;
  lxw_chart_series *se;
  lxw_chart_options opt = {0};
  if (n <= 0 || !ws->ws)
    return RPD_OK;
  c = workbook_add_chart(w->wb, LXW_CHART_SCATTER_STRAIGHT);
  se = c ? chart_add_series(c, NULL, NULL) : NULL;
  if (!se)
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
  chart_series_set_categories(se, t->name, 1, 0, (lxw_row_t)n, 0);
  chart_series_set_values(se, t->name, 1, 1, (lxw_row_t)n, 1);
  chart_title_set_name(c, "GPU utilization over time");
  chart_legend_set_position(c, LXW_CHART_LEGEND_NONE);
  chart_axis_set_name(c->x_axis, "time since the first op (ms)");
  chart_axis_set_name(c->y_axis, "busy %");
  chart_axis_set_min(c->x_axis, 0);
  if (e >= 0 && isfinite(t_num(t_cell(t, (size_t)n - 1, e))))
    chart_axis_set_max(c->x_axis, t_num(t_cell(t, (size_t)n - 1, e)));
  opt.x_scale = 1.6;
  opt.y_scale = 1.2;
  if (worksheet_insert_chart_opt(ws->ws, 1, (lxw_col_t)(t->ncols + 1), c, &opt))
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
  return RPD_OK;
}

/* The charts of the core tables, next to their tables. */
static int core_charts(rpd_wb *w, const table *t, const rpd_wb_sheet *ws)
{
  int rc = RPD_OK;
  int top = t[T_SUMMARY].nrows < 15 ? (int)t[T_SUMMARY].nrows : 15;
  /* rows 5..8 of a GPU block: idle, computation, exposed_comm,
   * exposed_memcpy - they add up to total_time */
  if (t[T_TIMELINE].nrows >= 8)
    rc = rpd_wb_pie(w, &ws[T_TIMELINE], 5, 4, 1, 2,
                    "GPU time breakdown (ms)");
  if (!rc)
    rc = rpd_wb_bar(w, &ws[T_SUMMARY], top, 0, 2, "Top kernels by total time", "us");
  if (!rc)
    rc = rpd_wb_bar(w, &ws[T_CATEGORY], (int)t[T_CATEGORY].nrows, 0, 3,
                    "Kernel time by category", "ms");
  if (!rc)
    rc = rpd_wb_col(w, &ws[T_HIST], (int)t[T_HIST].nrows, 0, 2,
                    "Short-kernel durations (us)", "kernels");
  if (!rc)
    rc = rpd_wb_col(w, &ws[T_GAPS], (int)t[T_GAPS].nrows, 0, 1, "Idle gaps between GPU work",
                    "gaps");
  if (!rc)
    rc = util_chart(w, &t[T_UTIL], &ws[T_UTIL]);
  return rc;
}

/* analysis_idle: a stacked bar per GPU of host_wait, kernel_wait and other
 * (ns), which add up to the GPU's idle time. */
static int idle_chart(rpd_wb *w, const table *t, const rpd_wb_sheet *ws)
{
  static const char *const part[] = { "host_wait_ns", "kernel_wait_ns", "other_ns" };
  int g = t_col(t, "gpuId"), n = (int)t->nrows;
  lxw_chart *c;
  lxw_chart_options opt = {0};
  if (g < 0 || n <= 0 || !ws->ws)
    return RPD_OK;
  c = workbook_add_chart(w->wb, LXW_CHART_BAR_STACKED);
  if (!c)
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
  for (int p = 0; p < 3; p++) {
    int k = t_col(t, part[p]);
    lxw_chart_series *se = k < 0 ? NULL : chart_add_series(c, NULL, NULL);
    if (!se)
      continue;
    chart_series_set_categories(se, t->name, 1, (lxw_col_t)g, (lxw_row_t)n, (lxw_col_t)g);
    chart_series_set_values(se, t->name, 1, (lxw_col_t)k, (lxw_row_t)n, (lxw_col_t)k);
    chart_series_set_name_range(se, t->name, 0, (lxw_col_t)k);
  }
  chart_title_set_name(c, "GPU idle time breakdown (ns)");
  chart_axis_set_name(c->y_axis, "gpuId");
  chart_legend_set_position(c, LXW_CHART_LEGEND_BOTTOM);
  opt.x_scale = 1.6;
  opt.y_scale = 1.2;
  if (worksheet_insert_chart_opt(ws->ws, (lxw_row_t)n + 3, 0, c, &opt))
    return rpd_seterr(RPD_EIO, "xlsx: cannot add a chart to '%s'", t->name);
  return RPD_OK;
}

/* Charts of the optional tables: the idle breakdown, the roofline, and the
 * cross-rank kernel imbalance. */
static int extra_chart(rpd_wb *w, const table *t, const report *rep, const rpd_wb_sheet *ws)
{
  if (!strcmp(t->name, "analysis_idle"))
    return idle_chart(w, t, ws);
  if (!strcmp(t->name, "perf_roofline"))
    return report_perf_xlsx(w, t, rep, ws);
  if (!strcmp(t->name, "byrank_kernels") && t_col(t, "imbalance") >= 0)
    return rpd_wb_bar(w, ws, t->nrows < 15 ? (int)t->nrows : 15, 0, t_col(t, "imbalance"),
                      "Kernel imbalance across ranks (max/mean)", "max/mean");
  if (!strcmp(t->name, "byrank_ranks") && t_col(t, "busy_us") >= 0)
    return rpd_wb_col(w, ws, (int)t->nrows, 0, t_col(t, "busy_us"), "GPU busy time per rank",
                      "us");
  return RPD_OK;
}

/* Every chart of the workbook, after its sheets are written. */
static int charts(rpd_wb *w, const rpd_tables *rep, const rpd_wb_sheet *ws, void *ctx)
{
  int rc = core_charts(w, rep->t, ws);
  (void)ctx;
  for (int i = NT_ALL; i < rep->n && !rc; i++)
    rc = extra_chart(w, &rep->t[i], rep, &ws[i]);
  return rc;
}

/* --xlsx (see internal.h). */
int report_xlsx(const report *rep, const char *path, const char *input,
                const char *const *info, int n)
{
  return rpd_tables_xlsx(rep, path, input, "raptor --report", info, n, charts, NULL);
}
