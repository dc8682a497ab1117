/* waterfall.c - rpd-diff --waterfall A B: the change of the GPU span from A
 * to B as a sum of exclusive parts (kernel categories by priority,
 * communication not hidden behind compute, copies, idle by cause), each
 * part's change largest first, the kernels behind each category's change,
 * and the check that the parts add up to the span's change to the ns.
 * The split itself is common/analysis/waterfall.c; this file reads the traces,
 * builds the table and hands it to the common writers (common/out/table.h:
 * text, CSV, JSON, Markdown, the HTML page with the waterfall chart of its
 * own, xlsx).  See docs/rpd-diff.md "Waterfall". */
#include "rpd.h"
#include "catfile.h"
#include "opclass.h"
#include "opt.h"
#include "ranks.h"
#include "table.h"
#include "textcut.h"
#include "textsafe.h"
#include "util/num.h"
#include "waterfall.h"
#include "wfmode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_TABLE, F_CSV, F_JSON, F_MD, F_HTML };

typedef struct wside {
  const char *path;
  rpd *r;
  int64_t rank;            /* -1: all */
  rpd_wf w;
  rpd_i64map cat;          /* description id -> category + 1 (0: none) */
} wside;

typedef struct wopts {
  wside s[2];
  int fmt;
  int64_t gpu;             /* -1: all GPUs */
  int64_t top;             /* kernels shown per part */
  int64_t width;           /* table width; -1: the terminal's */
  double kwait_us;
  const char *catjson;
  const char *xlsx;
  category *cats;
  int ncats;
  const char **catnames;
  sqlite3 *mem;
} wopts;

int diff_waterfall_wanted(int argc, char **argv)
{
  int wanted = 0;
  const rpd_opt opts[] = { RPD_OPT_FLAG("--waterfall", &wanted), RPD_OPT_END() };

  rpd_opt_peek(opts, argc, argv, NULL, 0);
  return wanted;
}

static int parse_format(const char *v, int *fmt)
{
  static const char *const names[] = {"table", "csv", "json", "md", "html"};
  for (int i = 0; v && i < 5; i++)
    if (!strcmp(v, names[i])) {
      *fmt = i;
      return 0;
    }
  if (v && !strcmp(v, "markdown")) {
    *fmt = F_MD;
    return 0;
  }
  return -1;
}

static int format_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  if (parse_format(v, ctx) == 0)
    return 0;
  snprintf(msg, msgsz, "%s: expected table, csv, json, md or html", name);
  return -1;
}

static int catjson_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  (void)name;
  if (!*v) {
    snprintf(msg, msgsz, "--category-json needs a file name");
    return -1;
  }
  *(const char **)ctx = v;
  return 0;
}

/* The options of the waterfall run (one a process): the values of the
 * options only it takes go here, so that their table is static and
 * rpd-diff's --help lists it (diff_waterfall_opts). */
static wopts wf;
static int wf_flag;
static const rpd_opt only_opts[] = {
  RPD_OPT_FLAG("--waterfall", &wf_flag,
               .help = "the change of the GPU span (first to last GPU op) from A to B as a "
                       "sum of exclusive parts: raptor's kernel categories (when several run "
                       "at once the later category of the file wins), other kernels, "
                       "communication not hidden behind compute, copies, and idle as "
                       "rpd-analyze splits it (host_wait, kernel_wait, other); largest change "
                       "first, each category with its top N kernels (--top, default 3; 0 = "
                       "all), and the check line 'sum of parts = span change'.  All GPUs form "
                       "one span (a moment counts once, for the highest part running on any "
                       "GPU).  --rank-a/--rank-b, --xlsx, -q, --width, --csv-raw apply; -f "
                       "also takes md (Markdown for a PR comment) and html (a page with an "
                       "SVG waterfall chart)"),
  RPD_OPT_I64("--gpu", &wf.gpu, 0, INT64_MAX, "--gpu: '%s' is not a GPU id",
              .help = "GPU N of both traces"),
  RPD_OPT_CALL("--category-json", catjson_opt, &wf.catjson, .arg = "F",
               .help = "raptor's kernel categories from F (as raptor --category-json)"),
  RPD_OPT_DOUBLE("--kernel-wait-us", &wf.kwait_us, 0, 1000000000000000,
                 "--kernel-wait-us: '%s' is not a number >= 0",
                 .help = "an idle gap of at most X us between queued work is kernel_wait "
                         "(default 50, as rpd-analyze)"),
  RPD_OPT_END(),
};
const rpd_opt *const diff_waterfall_opts = only_opts;

static int parse_args(wopts *o, int argc, char **argv)
{
  const rpd_opt opts[] = {
    RPD_OPT_TABLE(only_opts),
    DIFF_OPTS_RANKS(o),
    /* kernels shown per part: its own bound (the per-key diff's --top
     * counts rows) */
    RPD_OPT_I64("--top", &o->top, 0, 1000000, "--top: '%s' is not a count"),
    RPD_OPT_CALL("-f|--format", format_opt, &o->fmt),
    DIFF_OPTS_OUTPUT(o),
    RPD_OPT_END(),
  };
  char msg[1024];
  int n;

  o->s[0].rank = o->s[1].rank = -1;
  o->gpu = -1;
  o->top = 3;
  o->width = -1;
  o->kwait_us = 50;
  n = rpd_opt_parse(opts, 0, argc, argv, msg, sizeof msg);
  if (n == RPD_OPT_EUNKNOWN) {
    /* the options of the per-key diff, or none at all: one message */
    const char *q = strchr(msg, '\''), *e = strrchr(msg, '\'');
    return rpd_usage_error("--waterfall: option '%.*s' does not apply (see --help)",
                           q && e > q ? (int)(e - q - 1) : 0, q ? q + 1 : "");
  }
  if (n < 0)
    return rpd_usage_error("%s", msg);
  if (n > 2)
    return rpd_usage_error("too many arguments: need exactly A and B");
  if (n < 2)
    return rpd_usage_error("need two traces: A.rpd B.rpd");
  o->s[0].path = argv[0];
  o->s[1].path = argv[1];
  return 0;
}

/* ------------------------------------------------------------ one side */

/* The GPU work of side s in start order: start, end, is_kernel, name id,
 * launch (start of the earliest linked api call, as rpd-analyze).  A new
 * string the caller frees. */
static char *ops_sql(const wopts *o, const wside *s)
{
  char *rank = NULL, *cond;
  if (s->rank >= 0) {
    char *g = rpd_rank_of_gpu(s->r, "O.gpuId");
    rank = rpd_xasprintf(" AND %s = %" PRId64, g, s->rank);
    free(g);
  }
  cond = o->gpu >= 0 ? rpd_xasprintf("%s AND O.gpuId = %" PRId64, rank ? rank : "", o->gpu)
                     : rpd_xstrdup(rank ? rank : "");
  char *sql = rpd_xasprintf(
      "SELECT O.start, O.\"end\", C.class = 'kernel', O.description_id, L.launch"
      " FROM rocpd_op O JOIN (%s) C ON C.opType_id = O.opType_id"
      " LEFT JOIN (SELECT X.op_id AS op_id, min(A.start) AS launch FROM rocpd_api_ops X"
      "  JOIN rocpd_api A ON A.id = X.api_id GROUP BY X.op_id) L ON L.op_id = O.id"
      " WHERE C.class IN ('kernel', 'copy')%s ORDER BY O.start, O.\"end\", O.id",
      rpd_opclass_select(), cond);
  free(rank);
  free(cond);
  return sql;
}

/* The text of name id `id` into *out (NULL when there is none). */
static int name_of(wside *s, sqlite3_stmt *st, int64_t id, const char **out)
{
  int step;
  *out = NULL;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, id);
  step = rpd_step(s->r, st);
  if (step < 0)
    return -step;
  if (step == SQLITE_ROW)
    *out = (const char *)sqlite3_column_text(st, 0);
  return RPD_OK;
}

/* The category of name id `did` (cached per id): -1 for none. */
static int category_of(wopts *o, wside *s, sqlite3_stmt *names, int64_t did, int *cat)
{
  int64_t v;
  const char *name;
  int rc;
  if (rpd_i64map_get(&s->cat, did, &v)) {
    *cat = (int)v - 1;
    return RPD_OK;
  }
  if ((rc = name_of(s, names, did, &name)))
    return rc;
  *cat = -1;
  if (name && (rc = category_match(o->cats, o->ncats, name, cat)))
    return rc;
  rpd_i64map_put(&s->cat, did, *cat + 1);
  return RPD_OK;
}

/* The part a kernel of category cat wins time in. */
static int kernel_part(const rpd_wf *w, int cat)
{
  if (cat >= 0 && cat == w->comm)
    return RPD_WF_COMM;
  return RPD_WF_CAT0 + (cat >= 0 ? cat : w->ncat);
}

/* Sweep side k and store its parts and per-kernel totals in o->mem. */
static int read_side(wopts *o, int k)
{
  static const char *const scanned[] = {"rocpd_op", "rocpd_api_ops", NULL};
  wside *s = &o->s[k];
  sqlite3_stmt *st = NULL, *names = NULL, *ins = NULL;
  char *sql = ops_sql(o, s);
  int rc, step = SQLITE_DONE;

  rpd_wf_init(&s->w, o->ncats, category_comm_index(o->cats, o->ncats), o->kwait_us);
  rpd_progress_sql_total(s->r, k ? "trace B" : "trace A",
                         rpd_progress_rows_of(s->r, scanned));
  rc = rpd_prepare(s->r, sql, &st);
  if (!rc)
    rc = rpd_prepare(s->r, "SELECT string FROM rocpd_string WHERE id = ?", &names);
  while (!rc && (step = rpd_step(s->r, st)) == SQLITE_ROW) {
    int kernel = sqlite3_column_int(st, 2), cat = -1;
    int64_t did = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
                                                            : sqlite3_column_int64(st, 3);
    int64_t launch = sqlite3_column_type(st, 4) == SQLITE_NULL
                         ? -1 : sqlite3_column_int64(st, 4);
    if (kernel && did >= 0)
      rc = category_of(o, s, names, did, &cat);
    if (!rc)
      rc = rpd_wf_op(&s->w, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                     kernel ? RPD_WF_OP_KERNEL : RPD_WF_OP_COPY, cat, did, launch);
  }
  if (!rc && step < 0)
    rc = -step;
  rpd_progress_end();
  rpd_wf_finish(&s->w);

  /* the parts, then the kernels: name text, the part it won time in */
  if (!rc && sqlite3_prepare_v2(o->mem, "INSERT INTO part(side, part, ns) VALUES (?, ?, ?)",
                                -1, &ins, NULL) != SQLITE_OK)
    rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  for (int p = 0; !rc && p < rpd_wf_nparts(&s->w); p++) {
    sqlite3_reset(ins);
    sqlite3_bind_int(ins, 1, k);
    sqlite3_bind_text(ins, 2, rpd_wf_part_name(&s->w, p, o->catnames), -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 3, s->w.part_ns[p]);
    if (sqlite3_step(ins) != SQLITE_DONE)
      rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  }
  sqlite3_finalize(ins);
  ins = NULL;
  if (!rc && sqlite3_prepare_v2(o->mem, "INSERT INTO kern(side, part, name, ns)"
                                " VALUES (?, ?, ?, ?) ON CONFLICT(side, part, name)"
                                " DO UPDATE SET ns = ns + excluded.ns", -1, &ins,
                                NULL) != SQLITE_OK)
    rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  for (size_t i = 0; !rc && i < s->w.nkeys; i++) {
    int64_t did = s->w.key_id[i], c = 0;
    const char *name = NULL;
    rpd_i64map_get(&s->cat, did, &c);
    if (did >= 0)
      rc = name_of(s, names, did, &name);
    sqlite3_reset(ins);
    sqlite3_bind_int(ins, 1, k);
    sqlite3_bind_text(ins, 2, rpd_wf_part_name(&s->w, kernel_part(&s->w, (int)c - 1),
                                               o->catnames), -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, name ? name : "(no name)", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 4, s->w.key_ns[i]);
    if (!rc && sqlite3_step(ins) != SQLITE_DONE)
      rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  }
  sqlite3_finalize(ins);
  sqlite3_finalize(names);
  sqlite3_finalize(st);
  free(sql);
  return rc;
}

/* ------------------------------------------------------------ result */

static int mem_exec(wopts *o, const char *sql)
{
  if (sqlite3_exec(o->mem, sql, NULL, NULL, NULL) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  return RPD_OK;
}

/* One row of table wf (kernel NULL for a part's own row). */
static int add_row(wopts *o, sqlite3_stmt *ins, const char *kind, const char *part,
                   const char *kernel, int64_t a, int64_t b)
{
  sqlite3_reset(ins);
  sqlite3_bind_text(ins, 1, kind, -1, SQLITE_STATIC);
  sqlite3_bind_text(ins, 2, part, -1, SQLITE_TRANSIENT);
  if (kernel)
    sqlite3_bind_text(ins, 3, kernel, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(ins, 3);
  sqlite3_bind_int64(ins, 4, a);
  sqlite3_bind_int64(ins, 5, b);
  if (sqlite3_step(ins) != SQLITE_DONE)
    return rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  return RPD_OK;
}

/* Fill table wf: the span row, each part (largest |change| first) with
 * its top kernels and one row for the rest of its kernels, and the check
 * row.  *sum = the sum of the parts' changes. */
static int build_rows(wopts *o, int64_t *sum)
{
  sqlite3_stmt *parts = NULL, *kern = NULL, *ins = NULL;
  int rc = RPD_OK, step;
  int64_t span[2] = {rpd_wf_span(&o->s[0].w), rpd_wf_span(&o->s[1].w)}, sa = 0, sb = 0;

  *sum = 0;
  if (sqlite3_prepare_v2(o->mem,
        "SELECT part, a, b FROM (SELECT part, sum(CASE side WHEN 0 THEN ns ELSE 0 END) a,"
        " sum(CASE side WHEN 1 THEN ns ELSE 0 END) b FROM part GROUP BY part)"
        " WHERE a <> 0 OR b <> 0 ORDER BY abs(b - a) DESC, part", -1, &parts,
        NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(o->mem,
        "SELECT name, a, b FROM (SELECT name, sum(CASE side WHEN 0 THEN ns ELSE 0 END) a,"
        " sum(CASE side WHEN 1 THEN ns ELSE 0 END) b FROM kern WHERE part = ?"
        " GROUP BY name) ORDER BY abs(b - a) DESC, name", -1, &kern, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(o->mem,
        "INSERT INTO wf(kind, part, kernel, a_ns, b_ns) VALUES (?, ?, ?, ?, ?)", -1,
        &ins, NULL) != SQLITE_OK)
    rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  if (!rc)
    rc = add_row(o, ins, "span", "GPU span", NULL, span[0], span[1]);
  while (!rc && (step = sqlite3_step(parts)) == SQLITE_ROW) {
    const char *part = (const char *)sqlite3_column_text(parts, 0);
    int64_t a = sqlite3_column_int64(parts, 1), b = sqlite3_column_int64(parts, 2);
    int64_t ka = 0, kb = 0, n = 0, more = 0;
    sa += a;
    sb += b;
    rc = add_row(o, ins, "part", part, NULL, a, b);
    sqlite3_reset(kern);
    sqlite3_bind_text(kern, 1, part, -1, SQLITE_TRANSIENT);
    while (!rc && (step = sqlite3_step(kern)) == SQLITE_ROW) {
      int64_t x = sqlite3_column_int64(kern, 1), y = sqlite3_column_int64(kern, 2);
      if (o->top == 0 || n < o->top) {
        rc = add_row(o, ins, "kernel", part, (const char *)sqlite3_column_text(kern, 0), x, y);
        n++;
      } else {
        more++;
      }
      ka += x;
      kb += y;
    }
    if (!rc && step != SQLITE_DONE)
      rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
    if (!rc && more) {
      char label[64];
      snprintf(label, sizeof label, "(%" PRId64 " more kernel%s)", more,
               more == 1 ? "" : "s");
      /* the rest, so that a part's kernel rows add up to the part */
      int64_t ra = ka, rb = kb;
      sqlite3_reset(kern);
      for (int64_t i = 0; i < n && sqlite3_step(kern) == SQLITE_ROW; i++) {
        ra -= sqlite3_column_int64(kern, 1);
        rb -= sqlite3_column_int64(kern, 2);
      }
      rc = add_row(o, ins, "kernel", part, label, ra, rb);
    }
    step = SQLITE_ROW;
  }
  if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
    rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  if (!rc)
    rc = add_row(o, ins, "check", "sum of parts", NULL, sa, sb);
  sqlite3_finalize(parts);
  sqlite3_finalize(kern);
  sqlite3_finalize(ins);
  *sum = (sb - sa);
  /* exact by construction: each side's parts add up to its span */
  if (!rc && (sa != span[0] || sb != span[1]))
    rc = rpd_seterr(RPD_ERR, "internal error: parts %" PRId64 "/%" PRId64 " ns do not add"
                    " up to the spans %" PRId64 "/%" PRId64 " ns", sa, sb, span[0],
                    span[1]);
  return rc;
}

/* n with thousands separators and a sign: "+12,345,678". */
static const char *grouped(char *buf, size_t size, int64_t n, int sign)
{
  char digits[32], *p = buf;
  uint64_t u = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
  int len = snprintf(digits, sizeof digits, "%" PRIu64, u);
  if (n < 0)
    *p++ = '-';
  else if (sign)
    *p++ = n > 0 ? '+' : ' ';
  for (int i = 0; i < len && (size_t)(p - buf) + 2 < size; i++) {
    if (i && (len - i) % 3 == 0)
      *p++ = ',';
    *p++ = digits[i];
  }
  *p = 0;
  if (sign && n == 0)
    memmove(buf, buf + 1, strlen(buf));   /* "0", not " 0" */
  return buf;
}

/* The check: the parts' changes add up to the span's change (one line,
 * no newline, into buf). */
static const char *check_text(char *buf, size_t size, int64_t sum, int64_t change)
{
  char a[40], b[40];
  snprintf(buf, size, "sum of parts = span change: %s ns%s%s", grouped(a, sizeof a, sum, 1),
           sum == change ? "" : " != ", sum == change ? "" : grouped(b, sizeof b, change, 1));
  return buf;
}

/* rows of wf in order: the table every writer shows */
static const char rows_sql[] =
  "SELECT kind, part, kernel, a_ns, b_ns, b_ns - a_ns AS delta_ns,"
  " CASE WHEN a_ns > 0 THEN round(100.0 * (b_ns - a_ns) / a_ns, 2) END AS pct_change"
  " FROM wf ORDER BY seq";

static const char *ms(char *buf, size_t size, int64_t ns, int sign)
{
  snprintf(buf, size, sign ? "%+.3f" : "%.3f", (double)ns / 1e6);
  if (sign && ns == 0)
    snprintf(buf, size, "0.000");
  return buf;
}

/* The waterfall as one reads it in a PR comment: one column of parts with
 * their kernels indented under them (names cut to 90 characters), times in
 * ms and the change in ns with separators; no check row (the check line
 * follows the table).  Built from the rows of table wf into *t. */
static int reading_table(wopts *o, rpd_table *t)
{
  static const char *const cols[] = {"part", "A (ms)", "B (ms)", "change (ms)",
                                     "change (ns)"};
  sqlite3_stmt *st = NULL;
  char x[40];
  rpd_buf name = {0}, cut = {0};
  rpd_table_init(t, "waterfall", 5, cols, NULL);
  if (sqlite3_prepare_v2(o->mem, rows_sql, -1, &st, NULL) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(o->mem));
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *kind = (const char *)sqlite3_column_text(st, 0);
    int64_t a = sqlite3_column_int64(st, 3), b = sqlite3_column_int64(st, 4);
    if (!strcmp(kind, "check"))
      continue;
    if (!strcmp(kind, "kernel")) {
      rpd_buf_reset(&name);
      rpd_buf_printf(&name, "  ↳ %s",
                   rpd_text_cut(&cut, (const char *)sqlite3_column_text(st, 2), 90));
      rpd_table_str(t, name.s);
    } else {
      rpd_table_str(t, (const char *)sqlite3_column_text(st, 1));
    }
    rpd_table_str(t, ms(x, sizeof x, a, 0));
    rpd_table_str(t, ms(x, sizeof x, b, 0));
    rpd_table_str(t, ms(x, sizeof x, b - a, 1));
    rpd_table_str(t, grouped(x, sizeof x, b - a, 1));
  }
  rpd_buf_free(&name);
  rpd_buf_free(&cut);
  sqlite3_finalize(st);
  return RPD_OK;
}

static int write_md(wopts *o, int64_t sum, int64_t change)
{
  rpd_table t;
  char line[128];
  int rc = reading_table(o, &t);
  fputs("### GPU time waterfall\n\nA: ", stdout);
  rpd_md_text(stdout, o->s[0].path);
  fputs(", B: ", stdout);
  rpd_md_text(stdout, o->s[1].path);
  fputs("\n\n", stdout);
  if (!rc)
    rc = rpd_table_md(&t, stdout, 0);
  if (!rc)
    printf("\n%s\n", check_text(line, sizeof line, sum, change));
  rpd_table_free(&t);
  return rc;
}

/* One bar of the chart: the running total moves from v0 to v1. */
typedef struct bar {
  const char *label;
  int64_t v0, v1;
  int total;
} bar;

#define CHART_ROW 26
#define CHART_LEFT 260
#define CHART_PLOT 560
#define CHART_TOP 30

/* The waterfall chart, a chart of the page: A's span, a bar per part
 * from the running total by its change, B's span. */
static void svg_chart(rpd_html *h, const bar *bars, int n)
{
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  const int row = CHART_ROW, left = CHART_LEFT, plot = CHART_PLOT, top = CHART_TOP;
  FILE *f = h->f;
  for (int i = 0; i < n; i++) {
    int64_t a = bars[i].total ? bars[i].v1 : bars[i].v0, b = bars[i].v1;
    if (a < lo) lo = a;
    if (b < lo) lo = b;
    if (a > hi) hi = a;
    if (b > hi) hi = b;
  }
  /* the axis starts near the smallest total, not at 0, or changes of a few
   * percent would not show: the span bars are cut on the left */
  int64_t pad = (hi - lo) / 8 + 1;
  lo = lo - pad > 0 ? lo - pad : 0;
  hi += pad;
  double scale = (double)plot / (double)(hi - lo);
  rpd_html_chart_begin(h, "GPU span from A to B", left + plot + 130, top + n * row + 40);
  fprintf(f, "<text x=\"%d\" y=\"18\" fill=\"#555\">axis from %.3f ms to %.3f ms</text>\n",
          left, (double)lo / 1e6, (double)hi / 1e6);
  for (int i = 0; i < n; i++) {
    const bar *b = &bars[i];
    int64_t x0 = b->total ? lo : (b->v0 < b->v1 ? b->v0 : b->v1);
    int64_t x1 = b->total ? b->v1 : (b->v0 < b->v1 ? b->v1 : b->v0);
    double px = left + (double)(x0 - lo) * scale, pw = (double)(x1 - x0) * scale;
    const char *color = b->total ? "#5b6b7f" : b->v1 > b->v0 ? "#d1495b" : "#2e933c";
    char d[40], t[40];
    int y = top + i * row;
    rpd_buf c = {0};
    if (pw < 1)
      pw = 1;
    fputs("<g><title>", f);
    rpd_html_text(h, b->label);
    fprintf(f, ": %s ms</title>\n", b->total ? ms(t, sizeof t, b->v1, 0)
                                             : ms(t, sizeof t, b->v1 - b->v0, 1));
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 16);
    rpd_html_text(h, rpd_text_cut(&c, b->label, 36));
    rpd_buf_free(&c);
    fprintf(f, "</text>\n<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
            "fill=\"%s\"/>\n", px, y + 3, pw, row - 6, color);
    if (i + 1 < n)   /* the connector to the next bar */
      fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#999\" "
              "stroke-dasharray=\"2,2\"/>\n", left + (double)(b->v1 - lo) * scale,
              left + (double)(b->v1 - lo) * scale, y + row - 3, y + row + 3);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s</text></g>\n", px + pw + 4, y + 16,
            b->total ? ms(d, sizeof d, b->v1, 0) : ms(d, sizeof d, b->v1 - b->v0, 1));
  }
  fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left,
          left + plot, top + n * row + 4, top + n * row + 4);
  fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">ms; red: B slower, green: B faster"
          "</text>\n", left, top + n * row + 22);
  rpd_html_chart_end(h);
}

/* The page: the two traces, the chart, the check, the table. */
static int write_html(wopts *o, const rpd_table *wf, int64_t sum, int64_t change)
{
  const char *info[] = {"A", o->s[0].path, "B", o->s[1].path};
  rpd_table t;
  rpd_html h;
  bar *bars = NULL;
  int n = 0, rc;
  int64_t run = 0;
  char line[128], *note;

  /* the bars: A's span, each part's change, B's span */
  if ((rc = rpd_table_from_query(&t, wf)))
    return rc;
  bars = rpd_xcalloc(t.nrows + 2, sizeof *bars);
  for (size_t r = 0; r < t.nrows; r++) {
    const char *kind = rpd_table_cell(&t, r, 0)->s;
    int64_t a = rpd_table_cell(&t, r, 3)->i, b = rpd_table_cell(&t, r, 4)->i;
    if (!strcmp(kind, "span")) {
      bars[n++] = (bar){"A: GPU span", 0, a, 1};
      run = a;
    } else if (!strcmp(kind, "part")) {
      bars[n++] = (bar){rpd_table_cell(&t, r, 1)->s, run, run + (b - a), 0};
      run += b - a;
    }
  }
  if (n)
    bars[n++] = (bar){"B: GPU span", 0, run, 1};
  rpd_html_begin_file(&h, stdout, "GPU time waterfall", info, 2);
  svg_chart(&h, bars, n);
  note = rpd_xasprintf("%s. Parts are exclusive: at each moment the GPU time goes to one"
                       " part (docs/rpd-diff.md \"Waterfall\"), so they add up to the span.",
                       check_text(line, sizeof line, sum, change));
  rpd_html_section(&h, "Check", note);
  free(note);
  rpd_html_table(&h, &t);
  free(bars);
  rc = rpd_html_end(&h, RPD_OK);
  rpd_table_free(&t);
  return rc;
}

static int write_out(wopts *o, int64_t sum, int64_t change)
{
  rpd_tables ts = {0};
  rpd_table *wf = rpd_tables_add(&ts);
  char line[128];
  int rc = RPD_OK;
  rpd_table_query(wf, "waterfall", NULL, o->mem, rows_sql);
  if (o->fmt == F_MD) {
    rc = write_md(o, sum, change);
  } else if (o->fmt == F_HTML) {
    rc = write_html(o, wf, sum, change);
  } else {
    rc = rpd_table_write(wf, stdout, o->fmt == F_CSV ? RPD_FMT_CSV
                         : o->fmt == F_JSON ? RPD_FMT_JSON : RPD_FMT_TABLE,
                         o->width >= 0 ? (size_t)o->width
                                       : rpd_term_width(1, RPD_TEXT_DEFAULT_WIDTH));
    if (!rc && o->fmt == F_TABLE)
      printf("%s\n", check_text(line, sizeof line, sum, change));
  }
  if (!rc && o->xlsx) {
    /* the same rows, and a sheet saying which trace is A and which is B */
    char *sides = sqlite3_mprintf("SELECT 'A' AS side, %Q AS trace, 'a_ns' AS columns"
                                  " UNION ALL SELECT 'B', %Q, 'b_ns; delta_ns = B - A'",
                                  o->s[0].path, o->s[1].path);
    if (!sides) {
      rc = rpd_seterr(RPD_ENOMEM, "out of memory");
    } else {
      rpd_table_query(rpd_tables_add(&ts), "traces", NULL, o->mem, sides);
      rc = rpd_tables_xlsx(&ts, o->xlsx, o->s[1].path, NULL, NULL, 0, NULL, NULL);
    }
    sqlite3_free(sides);
  }
  rpd_tables_free(&ts);
  return rc;
}

int diff_waterfall_main(int argc, char **argv)
{
  wopts o;
  int rc;
  int64_t sum = 0;

  memset(&wf, 0, sizeof wf);
  if ((rc = parse_args(&wf, argc, argv)))
    return rc;
  o = wf;
  if (diff_check_xlsx(o.xlsx, o.s[0].path, o.s[1].path))
    return 1;
  if (category_load_or_builtin(&o.cats, &o.ncats, o.catjson))
    rc = rpd_fail("%s", rpd_errmsg());
  if (!rc) {
    o.catnames = rpd_xcalloc((size_t)o.ncats + 1, sizeof *o.catnames);
    for (int i = 0; i < o.ncats; i++)
      o.catnames[i] = o.cats[i].name;
  }
  for (int k = 0; k < 2 && !rc; k++)
    rc = diff_open_trace(&o.s[k].r, o.s[k].path);
  if (!rc && (sqlite3_open("", &o.mem) != SQLITE_OK ||
              rpd_db_profile(o.mem, RPD_OPEN_SCAN) != SQLITE_OK ||
              mem_exec(&o, "CREATE TABLE part(side INTEGER, part TEXT, ns INTEGER,"
                       " PRIMARY KEY (side, part));"
                       "CREATE TABLE kern(side INTEGER, part TEXT, name TEXT, ns INTEGER,"
                       " PRIMARY KEY (side, part, name));"
                       "CREATE TABLE wf(seq INTEGER PRIMARY KEY, kind TEXT, part TEXT,"
                       " kernel TEXT, a_ns INTEGER, b_ns INTEGER)")))
    rc = rpd_fail("cannot create the work table: %s", o.mem ? sqlite3_errmsg(o.mem) : "");
  for (int k = 0; k < 2 && !rc; k++)
    if (read_side(&o, k))
      rc = rpd_fail("cannot read '%s': %s", o.s[k].path, rpd_errmsg());
  if (!rc && build_rows(&o, &sum))
    rc = rpd_fail("%s", rpd_errmsg());
  if (!rc && write_out(&o, sum, rpd_wf_span(&o.s[1].w) - rpd_wf_span(&o.s[0].w)))
    rc = rpd_fail("%s", rpd_errmsg());
  if (!rc && rpd_finish_stdout())
    rc = rpd_fail("%s", rpd_errmsg());
  sqlite3_close(o.mem);
  for (int k = 0; k < 2; k++) {
    rpd_wf_free(&o.s[k].w);
    rpd_i64map_free(&o.s[k].cat);
    if (o.s[k].r)
      rpd_close(o.s[k].r, 0);
  }
  free(o.catnames);
  category_list_free(o.cats, o.ncats);
  return rc ? 1 : 0;
}
