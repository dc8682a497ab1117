/* rpd-autograd-summary - one self-contained HTML page summarizing GPU time
 * per PyTorch autograd operator, from the autogradKernel data that
 * rpd-autograd adds to a trace.  See docs/rpd-autograd-summary.md. */
#include "opclass.h"
#include "rpd.h"
#include "opt.h"
#include "textsafe.h"
#include "timeopt.h"
#include "util/num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const rpd_help help = {
  .usage = "usage: rpd-autograd-summary FILE[.gz] OUT.html [--start T] [--end T] [--top N]",
  .about =
    "Write one self-contained HTML page (no network access, no external files)\n"
    "from the autogradKernel data of FILE (run 'rpd-autograd FILE' first): a bar\n"
    "chart of the operators with the most GPU time, a table per operator, and a\n"
    "table of the kernels each operator launched with their tensor sizes, calls,\n"
    "average and total GPU time.  Tables sort by clicking a column header and\n"
    "filter with the search box (also from the URL: page.html#q=aten::mm).",
  .notes =
    "--start T, --end T: count only kernels launched in [start, end]: a bare\n"
    "number is ms from the first api call, or with a unit (ns, us, ms, s); +T\n"
    "from the first api call, -T back from the last api end, N% of the span\n"
    "(docs/time.md).  A window outside the trace is an error.\n",
};

/* ------------------------------------------------------------ escaping */

/* Append at most max characters of s (max < 0: all) to b as HTML text or
 * attribute content by the common text rules (textsafe.h RPD_TEXT_HTML: & < >
 * " ' escaped, invalid UTF-8 and control characters replaced by U+FFFD),
 * "..." appended when cut. */
static void html(rpd_buf *b, const char *s, long max) {
  if (max < 0) {
    rpd_text_safe(b, s, RPD_TEXT_HTML);
    return;
  }
  rpd_buf t = {0};
  rpd_text_safe(&t, s, RPD_TEXT_CSV);      /* valid UTF-8 first, to count characters */
  size_t i = 0;
  for (long chars = 0; i < t.len && chars < max; chars++)
    for (i++; i < t.len && ((unsigned char)t.s[i] & 0xC0) == 0x80; i++)
      ;
  rpd_text_safe_n(b, t.s, i, RPD_TEXT_HTML);
  if (i < t.len) rpd_buf_puts(b, "\xE2\x80\xA6");
  rpd_buf_free(&t);
}

/* ns as microseconds with three decimals. */
static void put_us(rpd_buf *b, double ns) {
  rpd_buf_printf(b, "%.3f", ns / 1000.0);
}

/* ------------------------------------------------------------ page */

static const char page_style[] =
"<style>\n"
"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\n"
"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
".meta{color:#555}\n"
"table{border-collapse:collapse;margin-top:.5em}\n"
"th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\n"
"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
"th{background:#eee;cursor:pointer;user-select:none;position:sticky;top:0}\n"
"th.asc::after{content:\" \\25B2\"}th.desc::after{content:\" \\25BC\"}\n"
"td.k{max-width:48em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\n"
"td.s{max-width:24em;overflow-wrap:anywhere;font-family:monospace;font-size:12px}\n"
"tr:hover td{background:#f5f8ff}\n"
"input{font-size:1em;padding:3px 6px;width:24em}\n"
"svg text{font:12px system-ui,sans-serif}\n"
"</style>\n";

/* Sort on header click (numbers by data-v), filter rows by the search box,
 * initial state from location.hash (q=TEXT, sort=TABLE.COLUMN[.asc]). */
static const char page_script[] =
"(function(){\n"
"var q=document.getElementById('q');\n"
"function rows(t){return Array.prototype.slice.call(t.tBodies[0].rows);}\n"
"function val(r,i,num){var c=r.cells[i];return num?parseFloat(c.getAttribute('data-v')):c.textContent.toLowerCase();}\n"
"function sortBy(t,i,asc){var th=t.tHead.rows[0].cells,num=th[i].className.indexOf('n')>=0;\n"
" var rs=rows(t);rs.sort(function(a,b){var x=val(a,i,num),y=val(b,i,num);var d=x<y?-1:x>y?1:0;return asc?d:-d;});\n"
" for(var k=0;k<th.length;k++){th[k].classList.remove('asc','desc');th[k].removeAttribute('aria-sort');}\n"
" th[i].classList.add(asc?'asc':'desc');th[i].setAttribute('aria-sort',asc?'ascending':'descending');\n"
" var tb=t.tBodies[0];rs.forEach(function(r){tb.appendChild(r);});}\n"
"function filter(){var s=q.value.toLowerCase();\n"
" document.querySelectorAll('table.data').forEach(function(t){var n=0,rs=rows(t);\n"
"  rs.forEach(function(r){var hit=!s||r.textContent.toLowerCase().indexOf(s)>=0;r.hidden=!hit;if(hit)n++;});\n"
"  document.getElementById(t.id+'-shown').textContent='Showing '+n+' of '+rs.length+' rows';});}\n"
"document.querySelectorAll('table.data').forEach(function(t){var th=t.tHead.rows[0].cells;\n"
" for(var i=0;i<th.length;i++)(function(i){th[i].addEventListener('click',function(){\n"
"  sortBy(t,i,!th[i].classList.contains('asc')&&(th[i].classList.contains('desc')||th[i].className.indexOf('n')<0));});})(i);});\n"
"q.addEventListener('input',filter);\n"
"location.hash.replace(/^#/,'').split('&').forEach(function(kv){var p=kv.split('=');if(p.length<2)return;\n"
" var v=decodeURIComponent(p.slice(1).join('='));\n"
" if(p[0]==='q')q.value=v;\n"
" if(p[0]==='sort'){var a=v.split('.'),t=document.getElementById(a[0]);if(t)sortBy(t,parseInt(a[1],10),a[2]==='asc');}});\n"
"filter();\n"
"})();\n";

typedef struct summary {
  rpd *r;
  const char *in;
  int ranged;
  int64_t lo, hi;
  int top;
  rpd_buf page;
  double total_gpu;
  int64_t nops, nrows, ncalls;
  int64_t trace_kernels, trace_kernel_ns;  /* ops of class kernel (window) */
} summary;

/* The autogradKernel rows (optionally only kernels launched in [lo, hi]),
 * computed once into the temp table temp.ag_rows(autogradName, kernelName,
 * sizes, calls, avg_gpu, total_gpu) that every part of the page reads. */
static const char rows_all[] =
    "CREATE TEMP TABLE ag_rows AS SELECT autogradName, kernelName, sizes, calls,"
    " avg_gpu, total_gpu FROM autogradKernel";
static const char rows_window[] =
    "CREATE TEMP TABLE ag_rows AS SELECT B.string AS autogradName, C.string AS kernelName,"
    " X.sizes AS sizes, count(*) AS calls, avg(X.gpu_time) AS avg_gpu,"
    " sum(X.gpu_time) AS total_gpu FROM _callstack_autograd_kernel_exclusive X"
    " JOIN rocpd_api A ON A.id = X.child_id"
    " JOIN rocpd_string B ON B.id = X.autogradName_id"
    " JOIN rocpd_string C ON C.id = X.kernelName_id"
    " WHERE A.start BETWEEN ?1 AND ?2"
    " GROUP BY X.autogradName_id, X.kernelName_id, X.sizes";

/* The rows the page's full scans read (the call stack under the autograd
 * view, then the kernel ops of the trace), for the progress line
 * (common/trace/progress.h). */
static const char *const progress_scans[] = {"ext_callstack", "rocpd_op", "rocpd_kernelapi",
                                             NULL};

static int materialize(summary *s) {
  sqlite3_stmt *st = NULL;
  int v, rc = rpd_prepare(s->r, s->ranged ? rows_window : rows_all, &st);
  if (rc == RPD_OK && s->ranged) {
    sqlite3_bind_int64(st, 1, s->lo);
    sqlite3_bind_int64(st, 2, s->hi);
  }
  if (rc == RPD_OK && (v = rpd_step(s->r, st)) < 0) rc = -v;
  sqlite3_finalize(st);
  return rc;
}

static int summary_prepare(summary *s, const char *sql, sqlite3_stmt **st) {
  return rpd_prepare(s->r, sql, st);
}

static const char op_query[] =
    "SELECT autogradName, count(DISTINCT kernelName), sum(calls), sum(total_gpu)"
    " FROM temp.ag_rows GROUP BY autogradName ORDER BY 4 DESC, 1";

/* Count and summed duration of the trace's kernel ops (class 'kernel' of
 * views/opClass.sql: KernelExecution, graph-replayed Task, ...) that start
 * in the window: the denominator that shows what autograd did not cover. */
static int trace_kernels(summary *s) {
  sqlite3_stmt *st = NULL;
  char *cond = rpd_opclass_condition("opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL));
  char *sql = rpd_xasprintf("SELECT count(*), total(max(\"end\" - start, 0)) FROM rocpd_op"
                            " WHERE %s AND start BETWEEN ?1 AND ?2", cond);
  int v, rc = summary_prepare(s, sql, &st);
  free(cond);
  free(sql);
  if (rc == RPD_OK) {
    sqlite3_bind_int64(st, 1, s->ranged ? s->lo : INT64_MIN);
    sqlite3_bind_int64(st, 2, s->ranged ? s->hi : INT64_MAX);
    if ((v = rpd_step(s->r, st)) != SQLITE_ROW) rc = v < 0 ? -v : RPD_ERR;
  }
  if (rc == RPD_OK) {
    s->trace_kernels = sqlite3_column_int64(st, 0);
    s->trace_kernel_ns = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  return rc;
}

static int totals(summary *s) {
  sqlite3_stmt *st = NULL;
  int v, rc = summary_prepare(s, "SELECT count(*), count(DISTINCT autogradName), sum(calls),"
                      " sum(total_gpu) FROM temp.ag_rows", &st);
  if (rc == RPD_OK && (v = rpd_step(s->r, st)) != SQLITE_ROW) rc = v < 0 ? -v : RPD_ERR;
  if (rc == RPD_OK) {
    s->nrows = sqlite3_column_int64(st, 0);
    s->nops = sqlite3_column_int64(st, 1);
    s->ncalls = sqlite3_column_int64(st, 2);
    s->total_gpu = sqlite3_column_double(st, 3);
  }
  sqlite3_finalize(st);
  return rc;
}

#define BAR_H 22
#define LABEL_W 300
#define BAR_W 560

static int chart(summary *s) {
  sqlite3_stmt *st = NULL;
  rpd_buf *b = &s->page;
  double max = 0;
  int v, i = 0, n = (int)(s->nops < s->top ? s->nops : s->top);
  char *tail = rpd_xasprintf("%s LIMIT %d", op_query, s->top);
  int rc = summary_prepare(s, tail, &st);
  free(tail);
  rpd_buf_printf(b, "<h2>Top %d operators by GPU time</h2>\n", n);
  rpd_buf_printf(b, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
                 " height=\"%d\" role=\"img\" aria-label=\"GPU time per operator\">\n",
                 LABEL_W + BAR_W + 140, n * BAR_H + 4);
  while (rc == RPD_OK && (v = rpd_step(s->r, st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    double gpu = sqlite3_column_double(st, 3);
    double w, pct = s->total_gpu > 0 ? 100.0 * gpu / s->total_gpu : 0;
    if (i == 0) max = gpu > 0 ? gpu : 1;
    w = gpu > 0 ? BAR_W * gpu / max : 0;
    rpd_buf_printf(b, "<g class=\"bar\"><title>");
    html(b, name, -1);
    rpd_buf_printf(b, ": %.3f us (%.1f%%)</title>", gpu / 1000.0, pct);
    rpd_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 6,
                   i * BAR_H + 16);
    html(b, name, 40);
    rpd_buf_printf(b, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                   " fill=\"#4a7fc1\"/>", LABEL_W, i * BAR_H + 3, w, BAR_H - 6);
    rpd_buf_printf(b, "<text x=\"%.1f\" y=\"%d\">%.1f us (%.1f%%)</text></g>\n",
                   LABEL_W + w + 6, i * BAR_H + 16, gpu / 1000.0, pct);
    i++;
  }
  if (rc == RPD_OK && v < 0) rc = -v;
  sqlite3_finalize(st);
  rpd_buf_puts(b, "</svg>\n");
  return rc;
}

static void table_head(rpd_buf *b, const char *id, const char *title,
                       const char *const *cols, int ncols) {
  rpd_buf_printf(b, "<h2>%s</h2>\n<p><span id=\"%s-shown\"></span></p>\n", title, id);
  rpd_buf_printf(b, "<table class=\"data\" id=\"%s\"><thead><tr>", id);
  for (int i = 0; i < ncols; i++) {
    /* a leading '#' marks a numeric column */
    int num = cols[i][0] == '#';
    rpd_buf_printf(b, "<th%s>%s</th>", num ? " class=\"n\"" : "", cols[i] + num);
  }
  rpd_buf_puts(b, "</tr></thead><tbody>\n");
}

static void num_cell(rpd_buf *b, double v, int us) {
  rpd_buf_printf(b, "<td class=\"n\" data-v=\"%.17g\">", v);
  if (us) put_us(b, v);
  else rpd_buf_printf(b, "%.0f", v);
  rpd_buf_puts(b, "</td>");
}

static int op_table(summary *s) {
  static const char *const cols[] = {"Autograd operator", "#Kernels", "#Calls",
                                     "#Total GPU (us)", "#Avg GPU per call (us)",
                                     "#Share of GPU (%)"};
  sqlite3_stmt *st = NULL;
  rpd_buf *b = &s->page;
  int v, rc = summary_prepare(s, op_query, &st);
  table_head(b, "ops", "Operators", cols, 6);
  while (rc == RPD_OK && (v = rpd_step(s->r, st)) == SQLITE_ROW) {
    double calls = sqlite3_column_double(st, 2), gpu = sqlite3_column_double(st, 3);
    double pct = s->total_gpu > 0 ? 100.0 * gpu / s->total_gpu : 0;
    rpd_buf_puts(b, "<tr><td>");
    html(b, (const char *)sqlite3_column_text(st, 0), -1);
    rpd_buf_puts(b, "</td>");
    num_cell(b, sqlite3_column_double(st, 1), 0);
    num_cell(b, calls, 0);
    num_cell(b, gpu, 1);
    num_cell(b, calls > 0 ? gpu / calls : 0, 1);
    rpd_buf_printf(b, "<td class=\"n\" data-v=\"%.17g\">%.2f</td></tr>\n", pct, pct);
  }
  if (rc == RPD_OK && v < 0) rc = -v;
  sqlite3_finalize(st);
  rpd_buf_puts(b, "</tbody></table>\n");
  return rc;
}

static int kernel_table(summary *s) {
  static const char *const cols[] = {"Autograd operator", "Kernel", "Sizes", "#Calls",
                                     "#Avg GPU (us)", "#Total GPU (us)"};
  sqlite3_stmt *st = NULL;
  rpd_buf *b = &s->page;
  int v, rc = summary_prepare(s, "SELECT autogradName, kernelName, sizes, calls, avg_gpu, total_gpu"
                      " FROM temp.ag_rows ORDER BY total_gpu DESC, 1, 2, 3", &st);
  table_head(b, "kernels", "Kernels by operator", cols, 6);
  while (rc == RPD_OK && (v = rpd_step(s->r, st)) == SQLITE_ROW) {
    const char *kernel = (const char *)sqlite3_column_text(st, 1);
    rpd_buf_puts(b, "<tr><td>");
    html(b, (const char *)sqlite3_column_text(st, 0), -1);
    rpd_buf_puts(b, "</td><td class=\"k\" title=\"");
    html(b, kernel, -1);
    rpd_buf_puts(b, "\">");
    html(b, kernel, -1);
    rpd_buf_puts(b, "</td><td class=\"s\">");
    html(b, (const char *)sqlite3_column_text(st, 2), -1);
    rpd_buf_puts(b, "</td>");
    num_cell(b, sqlite3_column_double(st, 3), 0);
    num_cell(b, sqlite3_column_double(st, 4), 1);
    num_cell(b, sqlite3_column_double(st, 5), 1);
    rpd_buf_puts(b, "</tr>\n");
  }
  if (rc == RPD_OK && v < 0) rc = -v;
  sqlite3_finalize(st);
  rpd_buf_puts(b, "</tbody></table>\n");
  return rc;
}

/* The Content-Security-Policy allows exactly one script: page_script, by
 * its SHA-256 (base64), so the page needs no random nonce and the same
 * trace and options always give a byte-identical file.  Changing
 * page_script means recomputing this (tests/tools/rpd-autograd-summary.sh
 * checks it against the script in the page). */
static const char script_hash[] = "sha256-VJEf1V+Z5YIrdqtVdgZvpgMkqHl+TyjecXpUGwt6rMo=";

static int build_page(summary *s) {
  rpd_buf *b = &s->page;
  int rc;
  rpd_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
                 " style-src 'unsafe-inline'; script-src '%s'\">\n<title>", script_hash);
  html(b, s->in, -1);
  rpd_buf_puts(b, ": kernels by autograd operator</title>\n");
  rpd_buf_puts(b, page_style);
  rpd_buf_puts(b, "</head><body>\n<h1>Kernels by autograd operator</h1>\n<p class=\"meta\">Trace ");
  html(b, s->in, -1);
  if (s->ranged) rpd_buf_printf(b, ", kernels launched in [%.3f us, %.3f us]",
                                s->lo / 1000.0, s->hi / 1000.0);
  rpd_buf_printf(b, ": <span id=\"nops\">%lld</span> operators, <span id=\"nrows\">%lld</span>"
                 " (operator, kernel, sizes) rows, %lld kernel calls, total GPU time %.3f us.</p>\n",
                 (long long)s->nops, (long long)s->nrows, (long long)s->ncalls,
                 s->total_gpu / 1000.0);
  rpd_buf_printf(b, "<p class=\"meta\">Kernel ops in the trace%s (class kernel: KernelExecution,"
                 " graph-replayed Task, ...): <span id=\"tkernels\">%lld</span>, GPU time"
                 " <span id=\"tkernel_us\">%.3f</span> us; not attributed to an autograd"
                 " operator (graph replays, kernels outside operators): <span id=\"unattr_us\">"
                 "%.3f</span> us.</p>\n", s->ranged ? " that start in the window" : "",
                 (long long)s->trace_kernels, s->trace_kernel_ns / 1000.0,
                 s->trace_kernel_ns > s->total_gpu ? (s->trace_kernel_ns - s->total_gpu) / 1000.0 : 0.0);
  rc = chart(s);
  if (rc == RPD_OK)
    rpd_buf_puts(b, "<p><label>Filter rows: <input id=\"q\" type=\"search\""
                    " placeholder=\"operator, kernel or sizes\"></label></p>\n");
  if (rc == RPD_OK) rc = op_table(s);
  if (rc == RPD_OK) rc = kernel_table(s);
  rpd_buf_printf(b, "<script>%s</script>\n</body></html>\n", page_script);
  return rc;
}

/* ------------------------------------------------------------ driver */

/* Write the page to `path` atomically (a temp next to it, renamed into
 * place): a failure or a kill leaves the previous file as it was.  Returns
 * the exit code (0, or 1 after reporting). */
static int write_file(const char *path, const char *input, const rpd_buf *b) {
  rpd_outfile of;
  int ok;
  if (rpd_outfile_begin(&of, path, input) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", path, rpd_errmsg());
  ok = fwrite(b->s, 1, b->len, of.fp) == b->len;
  if (!ok) {
    rpd_outfile_abort(&of);
    return rpd_fail("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
  }
  if (rpd_outfile_commit(&of) != RPD_OK)
    return rpd_fail("cannot write '%s': %s", path, rpd_errmsg());
  return 0;
}

/* --start/--end: the common time values (rpd_timeopt_resolve, docs/time.md);
 * a window that misses the trace's api span is an error, not the whole trace. */
static int parse_window(summary *s, const char *start, const char *end) {
  const char *text[2] = {start, end};
  int64_t first = 0, last = 0, *dst[2] = {&s->lo, &s->hi};
  int rc = rpd_query_int64(s->r, "SELECT min(start) FROM rocpd_api", &first);
  if (rc == RPD_OK) rc = rpd_query_int64(s->r, "SELECT max(end) FROM rocpd_api", &last);
  if (rc != RPD_OK) return rpd_fail("cannot read '%s': %s", s->in, rpd_errmsg());
  s->lo = INT64_MIN;
  s->hi = INT64_MAX;
  for (int i = 0; i < 2; i++) {
    if (!text[i]) continue;
    if (rpd_timeopt_resolve(text[i], first, last, dst[i]) != RPD_OK)
      return rpd_usage_error("%s: %s", i ? "--end" : "--start", rpd_errmsg());
  }
  if (s->lo > s->hi) return rpd_usage_error("--start is after --end");
  if (s->lo > last || s->hi < first)
    return rpd_fail("the window [%.6f ms, %.6f ms] is outside the trace (0 .. %.6f ms"
                    " from the first api call)",
                    s->lo == INT64_MIN ? -INFINITY : (double)(s->lo - first) / 1e6,
                    s->hi == INT64_MAX ? INFINITY : (double)(s->hi - first) / 1e6,
                    (double)(last - first) / 1e6);
  return 0;
}

int main(int argc, char **argv) {
  summary s = {0};
  const char *out = NULL, *start = NULL, *end = NULL;
  int ret = 1;

  s.top = 20;
  const rpd_opt opts[] = {
    RPD_OPT_STRING("--start", &start, .arg = "T",
                   .help = "count only kernels launched from T (see below)"),
    RPD_OPT_STRING("--end", &end, .arg = "T", .help = "and up to T"),
    RPD_OPT_INT("--top", &s.top, 1, 1000, "--top must be a number from 1 to 1000, not '%s'",
                .help = "operators in the bar chart (default 20)"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, opts)) return rpd_cli_status();
  int rc = rpd_cli_options(opts, 0, &argc, argv);
  if (rc) return rc;
  if (argc > 2) return rpd_usage_error("unexpected argument '%s'", argv[2]);
  s.in = argc > 0 ? argv[0] : NULL;
  out = argc > 1 ? argv[1] : NULL;
  if (!s.in || !out) return rpd_usage_error("need FILE and OUT.html");
  if (rpd_open_or_report(&s.r, s.in, NULL, RPD_READ | RPD_CHECKED) != RPD_OK) return 1;
  /* a 16 MB page cache; SQLite's sorter (the autogradKernel
   * view's GROUP BY) sizes itself by it, so the peak stays flat */
  if (rpd_profile(s.r, RPD_OPEN_UPDATE) != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", s.in, rpd_errmsg());
    goto done;
  }
  /* refuse OUT before the work: the input itself, a device, a directory */
  if (rpd_output_check(out, s.in, NULL) != RPD_OK) {
    ret = rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    goto done;
  }
  if (!rpd_table_exists(s.r, "autogradKernel") ||
      (start || end ? !rpd_table_exists(s.r, "_callstack_autograd_kernel_exclusive") : 0)) {
    ret = rpd_fail("'%s' has no autograd data; run 'rpd-autograd %s' first", s.in, s.in);
    goto done;
  }
  /* the autogradKernel view reads these tables; a missing one would only
   * show up as an SQL error */
  if (!rpd_table_exists(s.r, "ext_callstack") || !rpd_table_exists(s.r, "ext_autogradapi")) {
    ret = rpd_fail("'%s' has no autograd data; run 'rpd-autograd %s' first", s.in, s.in);
    goto done;
  }
  if (!rpd_table_exists(s.r, "rocpd_kernelapi")) {
    ret = rpd_fail("'%s' has no rocpd_kernelapi table: no kernel launches to attribute"
                   " to autograd operators", s.in);
    goto done;
  }
  if (start || end) {
    s.ranged = 1;
    if ((ret = parse_window(&s, start, end))) goto done;
  }
  rpd_progress_sql_total(s.r, "operators", rpd_progress_rows_of(s.r, progress_scans));
  int bad = materialize(&s) != RPD_OK || totals(&s) != RPD_OK || trace_kernels(&s) != RPD_OK;
  rpd_progress_end();
  if (bad) {
    ret = rpd_fail("cannot read '%s': %s", s.in, rpd_errmsg());
    goto done;
  }
  if (s.nrows == 0) {
    ret = rpd_fail(s.ranged ? "'%s' has no autograd kernels in that window"
                            : "'%s' has no autograd kernels (its UserMarker ranges carry no"
                              " autograd args: record with torch.autograd.profiler.emit_nvtx)",
                   s.in);
    goto done;
  }
  if (build_page(&s) != RPD_OK) {
    ret = rpd_fail("cannot read '%s': %s", s.in, rpd_errmsg());
    goto done;
  }
  ret = write_file(out, s.in, &s.page);
  if (!ret)
    printf("%s: %lld operators, %lld (operator, kernel, sizes) rows\n", out,
           (long long)s.nops, (long long)s.nrows);
  if (!ret && rpd_finish_stdout() != RPD_OK)
    ret = rpd_fail("%s", rpd_errmsg());
done:
  rpd_buf_free(&s.page);
  rpd_close(s.r, 0);
  return ret;
}
