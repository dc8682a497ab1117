/* links: rpd-import */
/* rpd-diff - compare two runs (or two ranks, or two merged traces): per
 * kernel, kernel sequence, category and UserMarker, calls, total and mean
 * time, delta and % change, added and removed rows, sorted by impact on
 * the total time.  Each side is aggregated by SQL on its own trace (read
 * only); the per-key results meet in a private temp database where one
 * FULL OUTER JOIN pairs them.  Memory stays flat (small page caches).
 * See docs/rpd-diff.md. */
#include "rpd.h"
#include "opt.h"
#include "opclass.h"
#include "ranks.h"
#include "table.h"
#include "util/num.h"
#include "textcut.h"
#include "wfmode.h"
#include "readdirect.h"   /* rpd-import's rocprofv3 reader */

#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const rpd_help help = {
  .usage = "usage: rpd-diff [OPTIONS] A.rpd B.rpd\n"
           "       rpd-diff --waterfall [--gpu N] [--top N] [--category-json F]\n"
           "                [--kernel-wait-us X] [-f table|csv|json|md|html] A.rpd B.rpd",
  .about =
    "Compare two traces (two runs, two ranks, or two merged traces): per\n"
    "kernel, kernel sequence (previous kernel -> kernel on the same GPU),\n"
    "category (op class: kernel, copy, barrier, other) and UserMarker text:\n"
    "calls, total and mean time, delta and % change of B against A, and\n"
    "whether the row was added (only in B) or removed (only in A); sorted by\n"
    "|delta| (the impact on the total time), largest first.",
  .notes =
    "Columns: level, name, calls_a, calls_b, total_a_us, total_b_us,\n"
    "mean_a_us, mean_b_us, delta_us (total_b - total_a), pct_change (NULL when\n"
    "A has none), status (added, removed, changed, same).\n"
    "Example: rpd-diff --by kernel base.rpd new.rpd\n",
};

enum { L_KERNEL = 1, L_SEQUENCE = 2, L_CATEGORY = 4, L_MARKER = 8 };

typedef struct side {
  const char *path;
  rpd *r;
  int64_t rank;            /* -1: all */
} side;

typedef struct diff {
  side s[2];
  unsigned levels;
  int64_t top;
  rpd_fmt fmt;
  int64_t width;           /* table width; -1: the terminal's */
  const char *xlsx;
  sqlite3 *mem;
} diff;

static int parse_levels(const char *v, unsigned *levels)
{
  static const char *const names[] = {"kernel", "sequence", "category", "marker"};
  char buf[128], *save = NULL;
  *levels = 0;
  if (!v || strlen(v) >= sizeof buf)
    return -1;
  strcpy(buf, v);
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int i = 0; i < 4; i++)
      if (!strcmp(t, names[i])) {
        *levels |= 1u << i;
        found = 1;
      }
    if (!found)
      return -1;
  }
  return *levels ? 0 : -1;
}

static int by_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  (void)name;
  if (parse_levels(v, ctx) == 0)
    return 0;
  snprintf(msg, msgsz, "--by: expected kernel,sequence,category,marker, got '%s'", v);
  return -1;
}

static int format_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  if (rpd_fmt_parse(v, ctx) == 0)
    return 0;
  snprintf(msg, msgsz, "%s: expected table, csv or json", name);
  return -1;
}

/* Answer --help, read the options of the per-key diff: 0, the exit code
 * of a usage error, -1 after --help or --version, or -2 when argv asks for
 * the waterfall (diff_waterfall_main reads it). */
static int parse_args(diff *d, int argc, char **argv)
{
  const rpd_opt opts[] = {
    RPD_OPT_CALL("--by", by_opt, &d->levels, .arg = "LEVELS",
                 .help = "comma-separated subset of kernel,sequence,category,marker "
                         "(default: all four)"),
    DIFF_OPTS_RANKS(d),
    RPD_OPT_I64("--top", &d->top, 0, INT64_MAX, "--top: '%s' is not a count",
                .help = "only the N rows of largest impact (0 = all; default)"),
    RPD_OPT_CALL("-f|--format", format_opt, &d->fmt, .arg = "FMT",
                 .help = "table (default), csv or json on stdout"),
    DIFF_OPTS_OUTPUT(d),
    RPD_OPT_GROUP("The waterfall (rpd-diff --waterfall ... A.rpd B.rpd):"),
    RPD_OPT_ONLY_WITH(diff_waterfall_opts, "goes with --waterfall"),
    RPD_OPT_END(),
  };
  int rc;

  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return -1;
  if (diff_waterfall_wanted(argc, argv))
    return -2;

  d->levels = L_KERNEL | L_SEQUENCE | L_CATEGORY | L_MARKER;
  d->s[0].rank = d->s[1].rank = -1;
  d->fmt = RPD_FMT_TABLE;
  d->width = -1;
  if ((rc = rpd_cli_options(opts, 0, &argc, argv)))
    return rc;
  if (argc > 2)
    return rpd_usage_error("too many arguments: need exactly A and B");
  if (argc < 2)
    return rpd_usage_error("need two traces: A.rpd B.rpd");
  d->s[0].path = argv[0];
  d->s[1].path = argv[1];
  return 0;
}

/* ------------------------------------------------------------ one side */

/* The aggregate query of one level on one side: rows (name, calls,
 * total_ns).  A new string the caller frees. */
static char *level_sql(const side *s, unsigned level)
{
  char *kern = rpd_opclass_condition("O.opType_id",
                                     RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL));
  char *gpurank = rpd_rank_of_gpu(s->r, "O.gpuId");
  char *oprank = s->rank >= 0 ? rpd_xasprintf(" AND %s = %" PRId64, gpurank, s->rank)
                              : rpd_xstrdup("");
  char *apirank = s->rank >= 0
      ? rpd_xasprintf(" AND A.pid / %" PRId64 " = %" PRId64, rpd_pid_stride(s->r),
                      s->rank)
      : rpd_xstrdup("");
  char *sql = NULL;

  if (level == L_KERNEL)
    sql = rpd_xasprintf("SELECT S.string, count(*), sum(O.\"end\" - O.start) FROM "
                        "rocpd_op O JOIN rocpd_string S ON S.id = O.description_id "
                        "WHERE %s%s GROUP BY S.string", kern, oprank);
  else if (level == L_SEQUENCE)
    sql = rpd_xasprintf("SELECT prev || ' -> ' || cur, count(*), sum(dur) FROM "
                        "(SELECT S.string AS cur, O.\"end\" - O.start AS dur, "
                        "lag(S.string) OVER (PARTITION BY O.gpuId ORDER BY O.start, "
                        "O.id) AS prev FROM rocpd_op O JOIN rocpd_string S ON "
                        "S.id = O.description_id WHERE %s%s) WHERE prev IS NOT NULL "
                        "GROUP BY 1", kern, oprank);
  else if (level == L_CATEGORY)
    sql = rpd_xasprintf("SELECT C.class, count(*), sum(O.\"end\" - O.start) FROM "
                        "rocpd_op O JOIN (%s) C ON C.opType_id = O.opType_id "
                        "WHERE 1%s GROUP BY C.class", rpd_opclass_select(), oprank);
  else
    /* CROSS JOIN: one scan of rocpd_api (else SQLite may walk the string
     * index and scan rocpd_api once per string) */
    sql = rpd_xasprintf("SELECT G.string, count(*), sum(A.\"end\" - A.start) FROM "
                        "rocpd_api A CROSS JOIN %s G ON G.id = A.args_id WHERE "
                        "A.apiName_id IN (SELECT id FROM rocpd_string WHERE string = "
                        "'UserMarker')%s GROUP BY G.string", rpd_args_table(s->r),
                        apirank);
  free(kern);
  free(gpurank);
  free(oprank);
  free(apirank);
  return sql;
}

/* The progress line of side k (common/trace/progress.h): the rows its levels
 * scan, rocpd_op and rocpd_api_ops once per op level and rocpd_api for the
 * markers. */
static void progress_phase(diff *d, int k)
{
  static const char *const op[] = {"rocpd_op", "rocpd_api_ops", NULL};
  static const char *const api[] = {"rocpd_api", NULL};
  int64_t n = rpd_progress_rows_of(d->s[k].r, op), total = 0;
  if (d->levels & L_KERNEL) total += n;
  if (d->levels & L_SEQUENCE) total += n;
  if (d->levels & L_CATEGORY) total += n;
  if (d->levels & L_MARKER) total += rpd_progress_rows_of(d->s[k].r, api);
  rpd_progress_sql_total(d->s[k].r, k ? "trace B" : "trace A", total);
}

/* Aggregate every chosen level of side k into mem.agg0 or agg1. */
static int aggregate(diff *d, int k)
{
  static const unsigned levels[] = {L_KERNEL, L_SEQUENCE, L_CATEGORY, L_MARKER};
  static const char *const names[] = {"kernel", "sequence", "category", "marker"};
  side *s = &d->s[k];
  sqlite3_stmt *ins = NULL;
  int rc = RPD_OK;

  if (sqlite3_prepare_v2(d->mem, k ? "INSERT INTO agg1(level, name, calls, total)"
                         " VALUES (?, ?, ?, ?)" : "INSERT INTO agg0(level, name, calls,"
                         " total) VALUES (?, ?, ?, ?)", -1, &ins, NULL) != SQLITE_OK)
    return rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(d->mem));
  progress_phase(d, k);
  for (int l = 0; !rc && l < 4; l++) {
    sqlite3_stmt *st = NULL;
    char *sql;
    int step;
    if (!(d->levels & levels[l]))
      continue;
    sql = level_sql(s, levels[l]);
    rc = rpd_prepare(s->r, sql, &st);
    while (!rc && (step = rpd_step(s->r, st)) == SQLITE_ROW) {
      sqlite3_bind_text(ins, 1, names[l], -1, SQLITE_STATIC);
      sqlite3_bind_value(ins, 2, sqlite3_column_value(st, 0));
      sqlite3_bind_int64(ins, 3, sqlite3_column_int64(st, 1));
      sqlite3_bind_int64(ins, 4, sqlite3_column_int64(st, 2));
      if (sqlite3_step(ins) != SQLITE_DONE)
        rc = rpd_seterr(RPD_ESQL, "%s", sqlite3_errmsg(d->mem));
      sqlite3_reset(ins);
    }
    if (!rc && step < 0)
      rc = -step;
    sqlite3_finalize(st);
    free(sql);
  }
  rpd_progress_end();
  sqlite3_finalize(ins);
  return rc;
}

/* ------------------------------------------------------------ result */

/* The joined, sorted result (a new string the caller frees). */
static char *result_sql(const diff *d)
{
  char limit[48] = "";
  if (d->top > 0)
    snprintf(limit, sizeof limit, " LIMIT %" PRId64, d->top);
  return rpd_xasprintf(
      "SELECT level, name, calls_a, calls_b, round(ta / 1000.0, 3) AS total_a_us,"
      " round(tb / 1000.0, 3) AS total_b_us,"
      " CASE WHEN calls_a > 0 THEN round(ta / 1000.0 / calls_a, 3) END AS mean_a_us,"
      " CASE WHEN calls_b > 0 THEN round(tb / 1000.0 / calls_b, 3) END AS mean_b_us,"
      " round((tb - ta) / 1000.0, 3) AS delta_us,"
      " CASE WHEN ta > 0 THEN round(100.0 * (tb - ta) / ta, 2) END AS pct_change,"
      " CASE WHEN calls_a = 0 THEN 'added' WHEN calls_b = 0 THEN 'removed'"
      " WHEN ta = tb AND calls_a = calls_b THEN 'same' ELSE 'changed' END AS status"
      " FROM (SELECT coalesce(A.level, B.level) AS level,"
      " coalesce(A.name, B.name) AS name, coalesce(A.calls, 0) AS calls_a,"
      " coalesce(B.calls, 0) AS calls_b, coalesce(A.total, 0) AS ta,"
      " coalesce(B.total, 0) AS tb"
      " FROM agg0 A FULL OUTER JOIN agg1 B ON A.level = B.level AND A.name = B.name)"
      " ORDER BY abs(tb - ta) DESC, level, name%s", limit);
}

/* The result through the common table writers: stdout, then --xlsx with
 * a second sheet that says which trace is A and which is B.  Both are
 * query tables: the rows stream from the work database. */
static int print_result(diff *d)
{
  char *sql = result_sql(d), *sides = NULL;
  rpd_tables ts = {0};
  int rc;
  rpd_table_query(rpd_tables_add(&ts), "diff", NULL, d->mem, sql);
  rc = rpd_table_write(&ts.t[0], stdout, d->fmt,
                       d->width >= 0 ? (size_t)d->width
                                     : rpd_term_width(1, RPD_TEXT_DEFAULT_WIDTH));
  if (!rc && d->xlsx) {
    sides = sqlite3_mprintf(
        "SELECT 'A' AS side, %Q AS trace, 'calls_a, total_a_us, mean_a_us' AS columns"
        " UNION ALL SELECT 'B', %Q, 'calls_b, total_b_us, mean_b_us;"
        " delta_us = B - A, pct_change = (B - A) / A'", d->s[0].path, d->s[1].path);
    if (!sides)
      rc = rpd_seterr(RPD_ENOMEM, "out of memory");
    else {
      rpd_table_query(rpd_tables_add(&ts), "traces", NULL, d->mem, sides);
      rc = rpd_tables_xlsx(&ts, d->xlsx, d->s[1].path, NULL, NULL, 0, NULL, NULL);
    }
  }
  rpd_tables_free(&ts);
  sqlite3_free(sides);
  free(sql);
  return rc;
}

int main(int argc, char **argv)
{
  diff d;
  int rc;

  /* rocprofv3 databases and Kineto traces are compared as they are (both
   * modes): every row rpd-import writes */
  static const rpdi_direct direct = { .lean = 0 };
  rpd_set_import_reader(rpdi_direct_read, (void *)&direct);
  memset(&d, 0, sizeof d);
  if ((rc = parse_args(&d, argc, argv)) == -2)
    return diff_waterfall_main(argc, argv);
  if (rc)
    return rc < 0 ? rpd_cli_status() : rc;
  if (diff_check_xlsx(d.xlsx, d.s[0].path, d.s[1].path))
    return 1;
  for (int k = 0; k < 2 && !rc; k++)
    rc = diff_open_trace(&d.s[k].r, d.s[k].path);
  /* "": a private temp database on disk (pages cached up to the profile's cache),
   * so many distinct keys (marker texts) do not grow the memory */
  if (!rc && (sqlite3_open("", &d.mem) != SQLITE_OK ||
              rpd_db_profile(d.mem, RPD_OPEN_SCAN) != SQLITE_OK ||
              sqlite3_exec(d.mem, "CREATE TABLE agg0(level TEXT, name TEXT,"
                           " calls INTEGER, total INTEGER, PRIMARY KEY (level, name));"
                           " CREATE TABLE agg1(level TEXT, name TEXT, calls INTEGER,"
                           " total INTEGER, PRIMARY KEY (level, name))", NULL, NULL,
                           NULL) != SQLITE_OK))
    rc = rpd_fail("cannot create the work table: %s", sqlite3_errmsg(d.mem));
  for (int k = 0; k < 2 && !rc; k++)
    if (aggregate(&d, k))
      rc = rpd_fail("cannot read '%s': %s", d.s[k].path, rpd_errmsg());
  if (!rc && print_result(&d))
    rc = rpd_fail("%s", rpd_errmsg());
  if (!rc && rpd_finish_stdout())
    rc = rpd_fail("%s", rpd_errmsg());
  sqlite3_close(d.mem);
  for (int k = 0; k < 2; k++)
    if (d.s[k].r)
      rpd_close(d.s[k].r, 0);
  return rc ? 1 : 0;
}
