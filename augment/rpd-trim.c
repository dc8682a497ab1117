/* rpd-trim - remove everything outside a time range from an RPD trace. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rpd.h"
#include "opt.h"
#include "timeopt.h"

static const rpd_help help = {
  .usage = "usage: rpd-trim FILE [-o OUT] [--start T] [--end T] [--dry-run]",
  .about =
    "Keep only the api calls that start inside [start, end], the ops, links\n"
    "and subclass rows that belong to them and the monitor samples inside the\n"
    "range; drop strings nothing refers to any more, then VACUUM.  Prints the\n"
    "range and the row counts before and after.",
  .quiet = "no summary (a --dry-run still prints its answer)",
  .notes =
    "Times (default: the first api start / the last api end; docs/time.md):\n"
    "  200                a bare number is ms from the first api call\n"
    "  +200ms, 200ms      from the first api call (units ns, us, ms, s)\n"
    "  -50ms              back from the last api end (write --start=-50ms)\n"
    "  25%                a fraction of the trace's span\n"
    "A range reaching outside the trace is an error.\n"
    "\n"
    "See docs/rpd-trim.md.\n",
};


typedef struct opts {
  const char *file, *out, *start, *end;
  int dry_run;
} opts;

/* Tables whose row counts we print. */
static const char *const counted[] = {
  "rocpd_api", "rocpd_op", "rocpd_api_ops", "rocpd_kernelapi", "rocpd_copyapi",
  "rocpd_monitor", "rocpd_string", "rocpd_ustring",
};
#define NCOUNTED (sizeof counted / sizeof *counted)

/* String references every RPD writer uses (some traces do not declare
 * them as foreign keys). */
static const char *const string_users[][2] = {
  {"rocpd_op", "description_id"}, {"rocpd_op", "opType_id"},
  {"rocpd_api", "domain_id"}, {"rocpd_api", "category_id"},
  {"rocpd_api", "apiName_id"}, {"rocpd_kernelapi", "kernelName_id"},
  {"rocpd_stackframe", "name_id"}, {"rocpd_counter", "name_id"},
};

/* Returns 0, -1 after --help or --version, or the exit code (2) after a
 * usage message. */
static int parse_args(opts *o, int argc, char **argv)
{
  const rpd_opt table[] = {
    RPD_OPT_FILE("-o|--output", &o->out, .arg = "OUT",
                 .help = "write the trimmed trace to OUT, leave FILE untouched"),
    RPD_OPT_STRING("--start", &o->start, .arg = "T",
                   .help = "keep from T (default: the first api start)"),
    RPD_OPT_STRING("--end", &o->end, .arg = "T",
                   .help = "keep up to T (default: the last api end)"),
    RPD_OPT_FLAG("--dry-run|--dryrun", &o->dry_run,
                 .help = "print the range and what would be removed; write nothing"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, table)) return -1;
  int rc = rpd_cli_options(table, 0, &argc, argv);
  return rc ? rc : rpd_cli_one_file(argc, argv, &o->file, o->out);
}

/* Resolve one time option (absent: dflt) with the common resolver
 * (common/cli/timeopt.h, docs/time.md): a bare number is ms from the first api
 * call; units, +T, -T from the last api end, N%; beyond 2^63 ns refused. */
static int resolve_time(const char *text, int64_t dflt, int64_t first, int64_t last,
                        int64_t *out)
{
  if (!text) {
    *out = dflt;
    return RPD_OK;
  }
  return rpd_timeopt_resolve(text, first, last, out);
}

/* 1 if text is absent or a valid time, else 0 with the reason set. */
static int time_ok(const char *text)
{
  int64_t ns;
  return !text || rpd_timeopt_resolve(text, 0, 0, &ns) == RPD_OK;
}

/* Run sql with ?1 = start, ?2 = end bound. */
static int exec_range(rpd *r, const char *sql, int64_t start, int64_t end)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, sql, &st), s;
  if (!rc) {
    sqlite3_bind_int64(st, 1, start);
    sqlite3_bind_int64(st, 2, end);
    if ((s = rpd_step(r, st)) < 0)
      rc = -s;
  }
  sqlite3_finalize(st);
  return rc;
}

static int64_t count_range(rpd *r, const char *sql, int64_t start, int64_t end)
{
  sqlite3_stmt *st = NULL;
  int64_t n = -1;
  if (rpd_prepare(r, sql, &st) == RPD_OK) {
    sqlite3_bind_int64(st, 1, start);
    sqlite3_bind_int64(st, 2, end);
    if (rpd_step(r, st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return n;
}

static void count_tables(rpd *r, int64_t *n)
{
  for (size_t i = 0; i < NCOUNTED; i++) {
    char *sql;
    n[i] = -1;
    if (!rpd_table_exists(r, counted[i]))
      continue;
    sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", counted[i]);
    rpd_query_int64(r, sql, &n[i]);
    sqlite3_free(sql);
  }
  n[NCOUNTED] = -1;
  rpd_query_int64(r, "SELECT page_count * page_size FROM pragma_page_count, "
                     "pragma_page_size", &n[NCOUNTED]);
}

#define TRIM_USER_TABLES \
  "m.name NOT LIKE 'sqlite_%' AND m.name NOT IN ('rocpd_api', 'rocpd_op', " \
  "'rocpd_api_ops', 'rocpd_string', 'rocpd_ustring', 'rocpd_metadata')"

/* Every user table with a column pointing at parent.id: declared foreign
 * keys, plus the conventional <kind>_ptr_id columns.  Calls fn for each
 * (table, column) until it fails. */
static int for_each_reference(rpd *r, const char *parent, const char *ptr_col,
                              int (*fn)(rpd *, const char *, const char *, void *),
                              void *arg)
{
  sqlite3_stmt *st = NULL;
  rpd_buf list = {0};
  int rc, s = SQLITE_DONE;

  rc = rpd_prepare(r,
    "SELECT m.name, f.\"from\" FROM sqlite_master m "
    "  JOIN pragma_foreign_key_list(m.name) f "
    " WHERE m.type = 'table' AND " TRIM_USER_TABLES
    "   AND f.\"table\" = ?1 COLLATE NOCASE AND (f.\"to\" IS NULL OR f.\"to\" = 'id') "
    "UNION SELECT m.name, p.name FROM sqlite_master m "
    "  JOIN pragma_table_info(m.name) p "
    " WHERE m.type = 'table' AND " TRIM_USER_TABLES " AND p.name = ?2 COLLATE NOCASE "
    "ORDER BY 1, 2", &st);
  if (!rc) {
    sqlite3_bind_text(st, 1, parent, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, ptr_col ? ptr_col : "", -1, SQLITE_STATIC);
  }
  /* collect first: fn writes to the tables we are reading the schema of */
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0);
    const char *c = (const char *)sqlite3_column_text(st, 1);
    rpd_buf_add(&list, t, strlen(t) + 1);
    rpd_buf_add(&list, c, strlen(c) + 1);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  for (size_t off = 0; !rc && off < list.len; ) {
    const char *t = list.s + off, *c = t + strlen(t) + 1;
    off = (size_t)(c + strlen(c) + 1 - list.s);
    rc = fn(r, t, c, arg);
  }
  rpd_buf_free(&list);
  return rc;
}

static int delete_orphans(rpd *r, const char *table, const char *col, void *parent)
{
  return rpd_execf(r, "DELETE FROM \"%w\" WHERE \"%w\" NOT IN (SELECT id FROM \"%w\")",
                   table, col, (const char *)parent);
}

/* Append "SELECT col FROM table" terms of the string users of `strtab`. */
typedef struct users { rpd_buf sql; int n; } users;

static int add_user(rpd *r, const char *table, const char *col, void *arg)
{
  users *u = arg;
  char *term;
  if (!rpd_column_exists(r, table, col))
    return RPD_OK;
  term = sqlite3_mprintf("%s SELECT \"%w\" FROM \"%w\"", u->n ? " UNION" : "", col, table);
  rpd_buf_puts(&u->sql, term);
  sqlite3_free(term);
  u->n++;
  return RPD_OK;
}

/* Parse a metadata value ("table", "column") into two new strings. */
static int parse_ref(const char *v, char **table, char **col)
{
  char *out[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    const char *q = strpbrk(v, "\"'"), *e;
    if (!q || !(e = strchr(q + 1, *q)))
      break;
    out[k] = rpd_xasprintf("%.*s", (int)(e - q - 1), q + 1);
    v = e + 1;
  }
  if (!out[1]) {
    free(out[0]);
    return 0;
  }
  *table = out[0];
  *col = out[1];
  return 1;
}

/* Delete the strings of `strtab` that no known column refers to (the empty
 * string is always kept). */
static int clean_strings(rpd *r, const char *strtab)
{
  users u = {{0}, 0};
  sqlite3_stmt *st = NULL;
  int rc = RPD_OK, s = SQLITE_DONE;

  if (!rpd_table_exists(r, strtab))
    return RPD_OK;
  if (strcmp(rpd_args_table(r), strtab) == 0)
    add_user(r, "rocpd_api", "args_id", &u);
  if (strcmp(strtab, "rocpd_string") == 0) {
    for (size_t i = 0; i < sizeof string_users / sizeof *string_users; i++)
      if (rpd_table_exists(r, string_users[i][0]))
        add_user(r, string_users[i][0], string_users[i][1], &u);
    /* older tracers wrote no rocpd_metadata: then nothing is declared */
    if (rpd_table_exists(r, "rocpd_metadata"))
      rc = rpd_prepare(r, "SELECT value FROM rocpd_metadata "
                          "WHERE tag = 'references::rocpd_string.id'", &st);
    while (!rc && st && (s = rpd_step(r, st)) == SQLITE_ROW) {
      char *t, *c;
      if (parse_ref((const char *)sqlite3_column_text(st, 0), &t, &c)) {
        if (rpd_table_exists(r, t))
          add_user(r, t, c, &u);
        free(t);
        free(c);
      }
    }
    if (!rc && s < 0)
      rc = -s;
    sqlite3_finalize(st);
  }
  if (!rc)
    rc = for_each_reference(r, strtab, NULL, add_user, &u);
  if (!rc) {
    char *sql = sqlite3_mprintf("DELETE FROM \"%w\" WHERE string != ''%s%s%s", strtab,
                                u.n ? " AND id NOT IN (" : "", u.n ? u.sql.s : "",
                                u.n ? ")" : "");
    rc = rpd_exec(r, sql);
    sqlite3_free(sql);
  }
  rpd_buf_free(&u.sql);
  return rc;
}

/* Results computed over the whole trace -- raptor's per-op gaps and
 * z-scores, sequences, categories, idle time; rpd-analyze's spans, queue
 * depths and findings; rpd-stackframe's per-call stacks and their sums --
 * cannot be trimmed into right ones: they are dropped with their views and
 * metadata (so that the tool runs again instead of saying it is done), and
 * named.  A table is dropped only when its columns are the ones the tool
 * writes (as rpd_check_owned decides): a user's table of the same name is
 * kept.  The column lists are those of raptor/output.c, raptor/report/
 * tables.c, views/analysis.sql and augment/rpd-stackframe.c; the trim test
 * runs each tool and checks its tables go. */
static const char *const raptor_op_cols[] = {"op_id", "gpuId", "sequenceId", "start_ns",
  "end_ns", "duration_ns", "pregap_ns", "kernel", "duration_zscore", "outlier", NULL};
static const char *const raptor_cat_cols[] = {"category", "uniq_kernels", "total_calls",
  "total_dur_ns", "varsum_ns", "avg_dur_us", "pct", NULL};
static const char *const raptor_var_cols[] = {"name", "var_us", "var_pct", NULL};
static const char *const raptor_gpu_cols[] = {"gpuId", "pregap_ns", "duration_ns",
  "idle_pct", "leading_idle_ns", "trailing_idle_ns", NULL};
static const char *const report_tl_cols[] = {"gpuId", "type", "time_ms", "percent", NULL};
static const char *const report_ks_cols[] = {"name", "count", "total_us", "mean_us",
  "median_us", "std_us", "min_us", "max_us", "percent", "cumulative_percent", "category",
  NULL};
static const char *const report_cat_cols[] = {"category", "kernels", "count", "total_ms",
  "percent", "cumulative_percent", NULL};
static const char *const report_sk_cols[] = {"name", "count", "total_us", "mean_us",
  "percent_of_kernel_time", "category", NULL};
static const char *const report_hist_cols[] = {"bin_start_us", "bin_end_us", "count", NULL};
static const char *const report_ut_cols[] = {"time_ms", "busy_percent", NULL};
static const char *const report_gap_cols[] = {"gap", "count", "total_ms", NULL};
static const char *const an_rules_cols[] = {"rule", "severity", "threshold", "unit",
  "window_us", "min_count", "description", "advice", NULL};
static const char *const an_idle_cols[] = {"gpuId", "span_ns", "busy_ns", "idle_ns",
  "host_wait_ns", "kernel_wait_ns", "other_ns", "gaps", NULL};
static const char *const an_launch_cols[] = {"kernel", "count", "api_mean_ns",
  "api_median_ns", "api_p95_ns", "api_max_ns", "delay_mean_ns", "delay_median_ns",
  "delay_p95_ns", "delay_max_ns", "gpu_mean_ns", "gpu_median_ns", "gpu_p95_ns",
  "gpu_max_ns", "outliers", "launch_bound", NULL};
static const char *const an_queue_cols[] = {"gpuId", "queueId", "time_ns", "depth", NULL};
static const char *const an_overlap_cols[] = {"gpuId", "comm_ns", "compute_ns",
  "overlap_ns", "exposed_comm_ns", "copy_ns", "exposed_copy_ns", NULL};
static const char *const an_memcpy_cols[] = {"direction", "size_bucket", "count", "bytes",
  "gpu_ns", "gbps", NULL};
static const char *const an_findings_cols[] = {"id", "rule", "severity", "gpuId", "tid",
  "start_ns", "end_ns", "count", "value", "value_unit", "detail", "advice", NULL};
/* the findings of an rpd-analyze from before value_unit (it still reads
 * and rebuilds them) */
static const char *const an_findings_old_cols[] = {"id", "rule", "severity", "gpuId", "tid",
  "start_ns", "end_ns", "count", "value", "detail", "advice", NULL};
static const char *const sf_stack_cols[] = {"id", "string", NULL};
static const char *const sf_call_cols[] = {"api_id", "stack_id", "leaf_id", "cpu_time",
  "gpu_time", NULL};

/* Tables whose middle columns depend on the run: raptor's kernelseq has
 * one kernel_N per sequence position, --by-rank's pivots one rankN_us per
 * rank.  cols = head columns, NULL, the varying columns' printf pattern
 * (one int), NULL, tail columns, NULL. */
static const char *const raptor_seq_cols[] = {"rank", "kernel", NULL, "kernel_%d", NULL,
  "category", "calls", "outliers", "start_min_ns", "start_max_ns", "pregap_sum_ns",
  "pregap_min_ns", "pregap_mean_ns", "pregap_std_ns", "pregap_max_ns", "dur_sum_ns",
  "dur_min_ns", "dur_mean_ns", "dur_std_ns", "dur_max_ns", "pct_total", "varsum_ns", NULL};
#define PIVOT(key) {key, "calls", "total_us", NULL, "rank%d_us", NULL, "mean_us", \
                    "max_us", "slowest_rank", "imbalance", NULL}
static const char *const byrank_cat_cols[] = PIVOT("category");
static const char *const byrank_kern_cols[] = PIVOT("kernel");
static const char *const byrank_seq_cols[] = PIVOT("sequence");
static const char *const byrank_ranks_cols[] = {"rank", "host", "gpus", "ops", "busy_us",
  "span_us", NULL};
static const char *const byrank_coll_cols[] = {"local_gpu", "collective", "kernel", "ranks",
  "start_ms", "skew_us", "last_rank", NULL};
static const char *const byrank_strag_cols[] = {"rank", "collectives", "times_last",
  "mean_late_us", "max_late_us", NULL};

typedef struct result_table {
  const char *name;
  const char *const *cols;
  int varying;                       /* cols has the head/pattern/tail form */
} result_table;
typedef struct result_group {
  const char *rerun;                 /* what writes them again */
  result_table tables[8];
  const char *views[6];
  const char *tags;                  /* DELETE FROM rocpd_metadata WHERE ... */
} result_group;

static const result_group result_groups[] = {
  {"raptor --save",
   {{"ext_raptor_category", raptor_cat_cols, 0}, {"ext_raptor_gpu", raptor_gpu_cols, 0},
    {"ext_raptor_kernelseq", raptor_seq_cols, 1}, {"ext_raptor_op", raptor_op_cols, 0},
    {"ext_raptor_variability", raptor_var_cols, 0}},
   {NULL},
   "tag IN ('raptor_first_abs_ns', 'raptor_last_abs_ns', 'raptor_roi_start_ns',"
   " 'raptor_roi_end_ns', 'raptor_options')"},
  {"raptor --report --save",
   {{"ext_report_category", report_cat_cols, 0}, {"ext_report_gpu_timeline", report_tl_cols, 0},
    {"ext_report_idle_gaps", report_gap_cols, 0}, {"ext_report_kernel_summary", report_ks_cols, 0},
    {"ext_report_short_histogram", report_hist_cols, 0},
    {"ext_report_short_kernels", report_sk_cols, 0},
    {"ext_report_utilization", report_ut_cols, 0}},
   {NULL},
   "tag = 'ext_report::params'"},
  {"rpd-analyze",
   {{"ext_analysis_findings", an_findings_cols, 0}, {"ext_analysis_idle", an_idle_cols, 0},
    {"ext_analysis_launch", an_launch_cols, 0}, {"ext_analysis_memcpy", an_memcpy_cols, 0},
    {"ext_analysis_overlap", an_overlap_cols, 0}, {"ext_analysis_queue_depth", an_queue_cols, 0},
    {"ext_analysis_rules", an_rules_cols, 0}, {"ext_analysis_findings", an_findings_old_cols, 0}},
   {"ext_analysis_idle_pct", "ext_analysis_queue", NULL},
   "tag = 'ext_analysis::done'"},
  {"raptor --by-rank --save",
   {{"ext_byrank_categories", byrank_cat_cols, 1},
    {"ext_byrank_collectives", byrank_coll_cols, 0},
    {"ext_byrank_kernels", byrank_kern_cols, 1}, {"ext_byrank_ranks", byrank_ranks_cols, 0},
    {"ext_byrank_sequences", byrank_seq_cols, 1},
    {"ext_byrank_stragglers", byrank_strag_cols, 0}},
   {NULL},
   "tag = 'raptor::byrank'"},
  {"rpd-stackframe",
   {{"ext_stackframe_call", sf_call_cols, 0}, {"ext_stackframe_stack", sf_stack_cols, 0}},
   {"stackframe_top", "stackframe_site_inclusive", "stackframe_site", "stackframe_stack",
    "stackframe_frame", NULL},
   "tag = 'rpd-stackframe::done'"},
};

/* 1 if table `t` has the head columns, then any number of
 * the varying ones numbered from 1 (kernel_1 ..) or any numbers (rank0_us,
 * rank3_us ..), then the tail columns (names compared without case). */
static int varying_owned(rpd *r, const result_table *t)
{
  const char *const *head = t->cols, *pat, *const *tail;
  sqlite3_stmt *st = NULL;
  int ok = 1, n = 0, s, have = 0, cap = 0;
  char **names = NULL;

  for (tail = head; *tail; tail++) {}
  pat = tail[1];
  tail += 3;
  if (rpd_prepare(r, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", &st)) {
    rpd_clearerr();
    return 0;
  }
  sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
  while ((s = rpd_step(r, st)) == SQLITE_ROW && have < 8192) {
    if (have == cap)
      names = rpd_xrealloc(names, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *names);
    names[have++] = rpd_xstrdup((const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  for (int k = 0; head[k]; k++, n++)
    ok = ok && n < have && sqlite3_stricmp(names[n], head[k]) == 0;
  int ntail = 0;
  while (tail[ntail]) ntail++;
  for (int v = 1; ok && n < have - ntail; v++, n++) {
    char want[32];
    int num;
    if (strstr(pat, "kernel_")) {
      snprintf(want, sizeof want, pat, v);
      ok = sqlite3_stricmp(names[n], want) == 0;
    } else {          /* rank%d_us: the ranks of the trace, any numbers */
      char end[8] = "";
      ok = sscanf(names[n], "rank%d%7s", &num, end) == 2 && strcmp(end, "_us") == 0;
    }
  }
  for (int k = 0; ok && tail[k]; k++, n++)
    ok = n < have && sqlite3_stricmp(names[n], tail[k]) == 0;
  ok = ok && n == have && s == SQLITE_DONE;
  for (int k = 0; k < have; k++)
    free(names[k]);
  free(names);
  rpd_clearerr();
  return ok;
}

/* 1 if `t` exists as the table its tool writes (columns and all). */
static int result_owned(rpd *r, const result_table *t)
{
  int rc, is_table = 0;
  if (!rpd_table_exists(r, t->name))
    return 0;
  if (!t->varying) {
    rc = rpd_check_owned(r, t->name, t->cols);
    rpd_clearerr();
    return rc == RPD_OK;
  }
  char *sql = sqlite3_mprintf("SELECT type = 'table' FROM sqlite_master WHERE name = %Q",
                              t->name);
  int64_t v = 0;
  if (rpd_query_int64(r, sql, &v) == RPD_OK)
    is_table = v == 1;
  sqlite3_free(sql);
  rpd_clearerr();
  return is_table && varying_owned(r, t);
}

/* Drop the result tables that are ours, with their group's views and
 * metadata; *dropped gets their names, ", "-separated, *rerun the tools
 * that write them. */
static int drop_results(rpd *r, rpd_buf *dropped, rpd_buf *rerun)
{
  int rc = RPD_OK;

  for (size_t g = 0; !rc && g < sizeof result_groups / sizeof *result_groups; g++) {
    const result_group *grp = &result_groups[g];
    int any = 0;
    for (const result_table *t = grp->tables; !rc && t->name; t++) {
      if (!result_owned(r, t))
        continue;
      rc = rpd_execf(r, "DROP TABLE \"%w\"", t->name);
      rpd_buf_printf(dropped, "%s%s", dropped->len ? ", " : "", t->name);
      any = 1;
    }
    if (!any)
      continue;
    rpd_buf_printf(rerun, "%s%s", rerun->len ? ", " : "", grp->rerun);
    for (int v = 0; !rc && grp->views[v]; v++)
      rc = rpd_execf(r, "DROP VIEW IF EXISTS \"%w\"", grp->views[v]);
    if (!rc && rpd_table_exists(r, "rocpd_metadata"))
      rc = rpd_execf(r, "DELETE FROM rocpd_metadata WHERE %s", grp->tags);
  }
  return rc;
}

/* The rows the progress line counts (common/trace/progress.h): the full scans
 * of the trim (about every table twice: the deletes, then the string
 * references) and the rows VACUUM copies (every table once). */
static const char *const trim_scans[] = {
  "rocpd_api", "rocpd_api_ops", "rocpd_op", "rocpd_kernelapi", "rocpd_copyapi",
  "rocpd_stackframe", "rocpd_monitor", "rocpd_string", "rocpd_ustring",
  "rocpd_api", "rocpd_api_ops", "rocpd_op", "rocpd_kernelapi", "rocpd_copyapi",
  "rocpd_stackframe", "rocpd_monitor", "rocpd_string", "rocpd_ustring", NULL
};
static const char *const vacuum_scans[] = {
  "rocpd_api", "rocpd_api_ops", "rocpd_op", "rocpd_kernelapi", "rocpd_copyapi",
  "rocpd_stackframe", "rocpd_monitor", "rocpd_string", "rocpd_ustring", NULL
};

static int trim(rpd *r, int64_t start, int64_t end, rpd_buf *dropped, rpd_buf *rerun)
{
  int rc;

  rc = drop_results(r, dropped, rerun);
  if (!rc)
    rc = exec_range(r, "DELETE FROM rocpd_api WHERE start < ?1 OR start > ?2", start, end);
  if (!rc)
    rc = rpd_exec(r,
      "DROP TABLE IF EXISTS temp.rpd_trim_dead_op;"
      "CREATE TABLE temp.rpd_trim_dead_op(id INTEGER PRIMARY KEY);"
      "INSERT OR IGNORE INTO temp.rpd_trim_dead_op SELECT op_id FROM rocpd_api_ops "
      " WHERE api_id NOT IN (SELECT id FROM rocpd_api);"
      "DELETE FROM rocpd_api_ops WHERE api_id NOT IN (SELECT id FROM rocpd_api);");
  if (!rc)   /* ops of removed calls, and unlinked ops outside the range */
    rc = exec_range(r, "DELETE FROM rocpd_op WHERE id NOT IN (SELECT op_id FROM rocpd_api_ops)"
                       " AND (id IN (SELECT id FROM temp.rpd_trim_dead_op)"
                       "      OR start < ?1 OR start > ?2)", start, end);
  if (!rc)
    rc = rpd_exec(r, "DELETE FROM rocpd_api_ops WHERE op_id NOT IN (SELECT id FROM rocpd_op);"
                     "DROP TABLE temp.rpd_trim_dead_op;");
  if (!rc)
    rc = for_each_reference(r, "rocpd_api", "api_ptr_id", delete_orphans, "rocpd_api");
  if (!rc)
    rc = for_each_reference(r, "rocpd_op", "op_ptr_id", delete_orphans, "rocpd_op");
  if (!rc && rpd_table_exists(r, "rocpd_monitor"))
    rc = exec_range(r, "DELETE FROM rocpd_monitor WHERE start < ?1 OR start > ?2", start, end);
  if (!rc)
    rc = clean_strings(r, "rocpd_string");
  if (!rc)
    rc = clean_strings(r, "rocpd_ustring");
  return rc;
}

static void print_counts(const int64_t *before, const int64_t *after)
{
  printf("%-16s %14s %14s\n", "", "before", after ? "after" : "");
  for (size_t i = 0; i <= NCOUNTED; i++) {
    if (before[i] < 0)
      continue;
    printf("%-16s %14lld", i < NCOUNTED ? counted[i] : "database bytes", (long long)before[i]);
    if (after)
      printf(" %14lld", (long long)after[i]);
    printf("\n");
  }
}

int main(int argc, char **argv)
{
  opts o = {0};
  rpd *r = NULL;
  int64_t first, last, start, end, before[NCOUNTED + 1], after[NCOUNTED + 1];
  rpd_buf dropped = {0}, rerun = {0};
  int rc;

  if ((rc = parse_args(&o, argc, argv)))
    return rc < 0 ? rpd_cli_status() : rc;
  if (!time_ok(o.start) || !time_ok(o.end))
    return rpd_usage_error("%s", rpd_errmsg());
  if (rpd_open_or_report(&r, o.file, o.dry_run ? NULL : o.out,
                         o.dry_run ? RPD_READ : RPD_WRITE))
    return 1;
  /* garbage timestamps would wrap the range arithmetic: refuse them */
  rc = rpd_check_trace(r);
  /* a 16 MB page cache (SQLite's sorter and VACUUM's copy take
   * the same again each) keeps the peak flat in trace size */
  if (!rc)
    rc = rpd_profile(r, RPD_OPEN_UPDATE);
  if (!rc)
    rc = rpd_query_int64(r, "SELECT min(start) FROM rocpd_api", &first);
  if (rc == RPD_ENOTFOUND)
    rc = rpd_seterr(RPD_ERR, "the trace has no api calls");
  if (!rc)
    rc = rpd_query_int64(r, "SELECT max(\"end\") FROM rocpd_api", &last);
  if (!rc)
    rc = resolve_time(o.start, first, first, last, &start);
  if (!rc)
    rc = resolve_time(o.end, last, first, last, &end);
  if (!rc && (start < first || start > last || end < first || end > last))
    rc = rpd_seterr(RPD_ERANGE, "range %lld..%lld ns is outside the trace (%lld..%lld ns)",
                    (long long)start, (long long)end, (long long)first, (long long)last);
  if (!rc && start > end)
    rc = rpd_seterr(RPD_ERANGE, "range start %lld ns is after its end %lld ns",
                    (long long)start, (long long)end);
  if (!rc && count_range(r, "SELECT count(*) FROM rocpd_api WHERE start >= ?1 "
                              "AND start <= ?2", start, end) == 0)
    rc = rpd_seterr(RPD_ERANGE, "no api call starts in %lld..%lld ns; the result would "
                    "be empty", (long long)start, (long long)end);
  if (rc)
    goto fail;

  if (!rpd_quiet || o.dry_run) {   /* -q drops the summary, not a dry run's answer */
    printf("trace: %lld .. %lld ns (%.6f s)\n", (long long)first, (long long)last,
           (double)(last - first) / 1e9);
    printf("range: %lld .. %lld ns (+%.6f s .. +%.6f s, %.6f s)\n", (long long)start,
           (long long)end, (double)(start - first) / 1e9, (double)(end - first) / 1e9,
           (double)(end - start) / 1e9);
  }
  count_tables(r, before);
  if (o.dry_run) {
    int64_t napi = count_range(r, "SELECT count(*) FROM rocpd_api WHERE start < ?1 OR start > ?2",
                               start, end);
    int64_t nop = count_range(r, "SELECT count(DISTINCT B.op_id) FROM rocpd_api A JOIN "
                                 "rocpd_api_ops B ON B.api_id = A.id "
                                 "WHERE A.start < ?1 OR A.start > ?2", start, end);
    print_counts(before, NULL);
    printf("dry run: would remove %lld of %lld api calls and about %lld of %lld ops; "
           "nothing written\n", (long long)napi, (long long)before[0], (long long)nop,
           (long long)before[1]);
    rpd_close(r, 0);
    return rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
  }
  /* a stdout that cannot be written fails the run before anything changes */
  rc = rpd_finish_stdout();
  if (!rc)
    rc = rpd_begin(r);
  rpd_progress_sql_total(r, "trimming", rpd_progress_rows_of(r, trim_scans));
  if (!rc)
    rc = trim(r, start, end, &dropped, &rerun);
  rpd_progress_end();
  if (!rc)
    rc = rpd_record_version(r);
  if (!rc)
    rc = rpd_commit(r);
  if (rc)
    goto fail;
  /* committed: a failed VACUUM leaves the trimmed file as it is (see
   * rpd_vacuum), so it only costs the compaction */
  rpd_progress_sql_ops(r, "vacuum", rpd_progress_rows_of(r, vacuum_scans), 5);
  if (rpd_vacuum(r) != RPD_OK)
    rpd_note("warning: '%s': trimmed, but VACUUM failed (%s); the file was "
             "not compacted", o.file, rpd_errmsg());
  rpd_progress_end();
  count_tables(r, after);
  if (!rpd_quiet)
    print_counts(before, after);
  if (dropped.len && !rpd_quiet)
    printf("dropped results of the untrimmed trace (run %s again): %s\n", rerun.s,
           dropped.s);
  rpd_buf_free(&dropped);
  rpd_buf_free(&rerun);
  if ((rc = rpd_close(r, 1))) {
    r = NULL;
    goto fail;
  }
  return rpd_fail_committed(o.out ? o.out : o.file);

fail:;
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", rpd_errmsg());
  rpd_buf_free(&dropped);
  rpd_buf_free(&rerun);
  if (r) {
    rpd_rollback(r);
    rpd_close(r, 0);
  }
  return rpd_fail("'%s': %s", o.file, msg);
}
