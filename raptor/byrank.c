/* byrank.c - raptor --by-rank: cross-rank analysis of a merged trace
 * (rpd-merge): per-rank category, kernel and kernel-sequence tables side by
 * side with their imbalance (max/mean over ranks) and slowest rank, and
 * collective stragglers (per collective: start skew and the rank that
 * arrives last; per rank: how often it is last).  A rank is gpuId /
 * gpu_stride (docs/rpd-merge.md).  The work is SQL over the trace into a
 * few small TEMP tables of per-key totals (never one row per op), so
 * memory stays flat; the tables go to stdout (table/CSV/JSON), a CSV
 * folder, an xlsx workbook, or ext_byrank_* tables (--save).
 * See docs/scale-out.md "raptor --by-rank". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byrank.h"
#include "catfile.h"
#include "opclass.h"
#include "opt.h"
#include "ranks.h"
#include "rpd.h"
#include "table.h"
#include "textcut.h"
#include "util/num.h"

static const rpd_help help = {
  .usage = "usage: raptor FILE[.gz] --by-rank [options]",
  .about =
    "Cross-rank analysis of a merged multi-rank trace (rpd-merge; rank =\n"
    "gpuId / gpu_stride; an unmerged trace is rank 0).  Tables:\n"
    "  ranks        per rank: GPUs, ops, busy time, span\n"
    "  categories   per category (raptor's categories) and rank: total time,\n"
    "               mean, max, slowest rank, imbalance = max/mean\n"
    "  kernels      the same per kernel name\n"
    "  sequences    the same per kernel sequence (previous kernel -> kernel\n"
    "               on the same GPU): the slowest rank per sequence\n"
    "  collectives  per collective (the k-th collective kernel of each rank on\n"
    "               the same local GPU): start skew and the rank that is last\n"
    "  stragglers   per rank: collectives, times last, mean/max lateness",
};

enum { T_RANKS, T_CATS, T_KERNELS, T_SEQS, T_COLLS, T_STRAG, T_N };
const char *const byrank_table_names[BYRANK_NT] = {
  "ranks", "categories", "kernels", "sequences", "collectives", "stragglers",
};
#define table_names byrank_table_names

typedef struct byrank {
  const char *path, *cat_file, *csv_dir, *xlsx;
  int table;               /* -1: all */
  int save;
  int64_t top;
  int64_t width;           /* -1: the terminal's */
  rpd_fmt fmt;
  rpd *r;
  int64_t *ranks;
  int nranks;
  char *sql[T_N];
} byrank;

/* ------------------------------------------------------------ options */

static int table_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  int *table = ctx;
  (void)name;
  *table = -1;
  for (int t = 0; t < T_N; t++)
    if (!strcmp(v, table_names[t]))
      *table = t;
  if (*table >= 0)
    return 0;
  snprintf(msg, msgsz, "--table: '%s' is not ranks, categories, kernels, "
           "sequences, collectives or stragglers", v);
  return -1;
}

static int format_opt(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  (void)name;
  if (rpd_fmt_parse(v, ctx) == 0)
    return 0;
  snprintf(msg, msgsz, "--format: expected table, csv or json");
  return -1;
}

static int parse_args(byrank *b, int argc, char **argv)
{
  int mode = 0;
  const rpd_opt opts[] = {
    RPD_OPT_FLAG("--by-rank", &mode,
                 .help = "this analysis (`raptor by-rank FILE` is the same)"),
    RPD_OPT_STRING("-C|--category-json", &b->cat_file, .arg = "FILE",
                   .help = "categories (as raptor -C; default built in)"),
    RPD_OPT_I64("--top", &b->top, 0, INT64_MAX, "--top: '%s' is not a count",
                .help = "rows of kernels/sequences/collectives (default 50; 0 = all)"),
    RPD_OPT_CALL("--table", table_opt, &b->table, .arg = "NAME", .help = "only this table"),
    RPD_OPT_I64("--width", &b->width, 0, INT64_MAX, "--width: '%s' is not a number of columns",
                .help = "text tables at most N columns wide (default: the terminal's width; "
                        "160 when stdout is not a terminal; 0 = no limit): long names are cut "
                        "in the middle; CSV, JSON, xlsx keep them whole"),
    RPD_OPT_CALL("--format", format_opt, &b->fmt, .arg = "F",
                 .help = "table (default), csv (needs --table) or json (one object of tables)"),
    RPD_OPT_STRING("--csv-dir", &b->csv_dir, .arg = "DIR",
                   .help = "write DIR/<table>.csv for every table, no stdout"),
    RPD_OPT_STRING("--xlsx", &b->xlsx, .arg = "FILE",
                   .help = "write every table as a sheet of FILE"),
    RPD_OPT_FLAG("--save", &b->save,
                 .help = "store the tables as ext_byrank_<table> in the trace (replaced on "
                         "each run, one transaction)"),
    RPD_OPT_CSV_RAW(),
    RPD_OPT_END(),
  };
  char msg[1024];
  int n;

  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return -1;

  b->table = -1;
  b->top = 50;
  b->width = -1;
  b->fmt = RPD_FMT_TABLE;
  n = rpd_opt_parse(opts, 0, argc, argv, msg, sizeof msg);
  if (n == RPD_OPT_EUNKNOWN)
    return rpd_usage_error("%s (with --by-rank)", msg);
  if (n < 0)
    return rpd_usage_error("%s", msg);
  if (n > 1)
    return rpd_usage_error("unexpected argument '%s'", argv[1]);
  if (n < 1)
    return rpd_usage_error("no trace file");
  b->path = argv[0];
  if (b->fmt == RPD_FMT_CSV && b->table < 0 && !b->csv_dir)
    return rpd_usage_error("--format csv writes one table: choose it with --table "
                           "NAME, or use --csv-dir DIR");
  return 0;
}

/* ------------------------------------------------------------ work tables */

/* Per (kernel name, rank) totals, the names' categories, the kernel
 * sequences and the collective instances, as TEMP tables. */
static int build_temp(byrank *b, const category *cats, int ncats)
{
  char *work = rpd_opclass_condition("O.opType_id", RPD_OPCLASS_GPU_WORK);
  char *kern = rpd_opclass_condition("O.opType_id", RPD_OPCLASS_BIT(RPD_OPCLASS_KERNEL));
  char *rank = rpd_rank_of_gpu(b->r, "O.gpuId");
  char *coll = rpd_collective_condition("S.string");
  sqlite3_stmt *names = NULL, *ins = NULL;
  int rc, st = SQLITE_DONE;

  rc = rpd_profile(b->r, RPD_OPEN_SCAN);
  if (!rc)
    rc = rpd_execf(b->r,
      "CREATE TEMP TABLE br_kr AS SELECT O.description_id AS sid, O.opType_id AS tid,"
      " %s AS rank, count(*) AS calls, sum(O.\"end\" - O.start) AS total,"
      " min(O.start) AS first, max(O.\"end\") AS last, count(DISTINCT O.gpuId) AS gpus"
      " FROM rocpd_op O WHERE %s GROUP BY 1, 2, 3;"
      "CREATE TEMP TABLE br_name AS SELECT DISTINCT K.sid, K.tid,"
      " coalesce(nullif(S.string, ''), T.string) AS name, '' AS category"
      " FROM br_kr K JOIN rocpd_string S ON S.id = K.sid"
      " JOIN rocpd_string T ON T.id = K.tid;"
      /* by string id (small sort keys); named when printed */
      "CREATE TEMP TABLE br_seq AS SELECT prev, cur, rank,"
      " count(*) AS calls, sum(dur) AS total FROM (SELECT O.description_id AS cur,"
      " O.\"end\" - O.start AS dur, %s AS rank, lag(O.description_id) OVER"
      " (PARTITION BY O.gpuId ORDER BY O.start, O.id) AS prev FROM rocpd_op O"
      " WHERE %s) WHERE prev IS NOT NULL GROUP BY 1, 2, 3;"
      "CREATE TEMP TABLE br_coll AS SELECT rank, lgpu, row_number() OVER"
      " (PARTITION BY rank, lgpu ORDER BY start, id) AS idx, name, start FROM"
      " (SELECT O.id, O.start, S.string AS name, %s AS rank, O.gpuId %% %lld"
      " AS lgpu FROM rocpd_op O JOIN rocpd_string S ON"
      " S.id = O.description_id WHERE %s AND O.description_id IN"
      " (SELECT S.id FROM rocpd_string S WHERE %s));"
      "CREATE INDEX temp.br_coll_at ON br_coll(lgpu, idx, start);"
      "CREATE TEMP TABLE br_inst AS SELECT lgpu, idx, count(*) AS nranks,"
      " min(start) AS first, max(start) - min(start) AS skew FROM br_coll"
      " GROUP BY lgpu, idx HAVING count(*) > 1;",
      rank, work, rank, kern, rank, (long long)rpd_gpu_stride(b->r), kern, coll);
  if (!rc)
    rc = rpd_prepare(b->r, "SELECT rowid, name FROM temp.br_name", &names);
  if (!rc)
    rc = rpd_prepare(b->r, "UPDATE temp.br_name SET category = ? WHERE rowid = ?", &ins);
  while (!rc && (st = rpd_step(b->r, names)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(names, 1);
    int c;
    if ((rc = category_match(cats, ncats, name ? name : "", &c)))
      break;
    sqlite3_bind_text(ins, 1, c >= 0 ? cats[c].name : "_Other", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(ins, 2, sqlite3_column_int64(names, 0));
    st = rpd_step(b->r, ins);
    sqlite3_reset(ins);
    if (st < 0)
      rc = -st;
  }
  if (!rc && st < 0)
    rc = -st;
  sqlite3_finalize(names);
  sqlite3_finalize(ins);
  free(work);
  free(kern);
  free(rank);
  free(coll);
  return rc;
}

/* The sorted distinct ranks of the trace's GPU work. */
static int load_ranks(byrank *b)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(b->r, "SELECT DISTINCT rank FROM temp.br_kr ORDER BY 1", &st), s;
  while (!rc && (s = rpd_step(b->r, st)) == SQLITE_ROW) {
    b->ranks = rpd_xrealloc(b->ranks, (size_t)(b->nranks + 1) * sizeof *b->ranks);
    b->ranks[b->nranks++] = sqlite3_column_int64(st, 0);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  if (!rc && b->nranks == 0)
    rc = rpd_seterr(RPD_ENOTFOUND, "no kernels or copies");
  return rc;
}

/* ------------------------------------------------------------ the tables */

/* Side-by-side SELECT over a source of (key, rank, calls, total) rows. */
static char *pivot_sql(const byrank *b, const char *keycol, const char *source)
{
  rpd_buf s = {0};
  rpd_buf_printf(&s, "SELECT key AS \"%s\", sum(calls) AS calls,"
                 " round(sum(total) / 1000.0, 3) AS total_us", keycol);
  for (int i = 0; i < b->nranks; i++)
    rpd_buf_printf(&s, ", round(sum(CASE WHEN rank = %" PRId64 " THEN total END)"
                   " / 1000.0, 3) AS \"rank%" PRId64 "_us\"", b->ranks[i], b->ranks[i]);
  rpd_buf_printf(&s, ", round(sum(total) / 1000.0 / %d, 3) AS mean_us,"
                 " round(max(total) / 1000.0, 3) AS max_us, rank AS slowest_rank,"
                 " round(max(total) * %d.0 / nullif(sum(total), 0), 3) AS imbalance"
                 " FROM (%s) GROUP BY key ORDER BY sum(total) DESC, key",
                 b->nranks, b->nranks, source);
  if (b->top > 0 && strcmp(keycol, "category"))
    rpd_buf_printf(&s, " LIMIT %" PRId64, b->top);
  return s.s;
}

static void make_sql(byrank *b)
{
  char limit[40] = "";
  if (b->top > 0)
    snprintf(limit, sizeof limit, " LIMIT %" PRId64, b->top);
  b->sql[T_RANKS] = rpd_xasprintf(
      "SELECT K.rank, %s AS host, max(K.gpus) AS gpus, sum(K.calls) AS ops,"
      " round(sum(K.total) / 1000.0, 3) AS busy_us,"
      " round((max(K.last) - min(K.first)) / 1000.0, 3) AS span_us"
      " FROM temp.br_kr K GROUP BY K.rank ORDER BY K.rank",
      rpd_table_exists(b->r, "rpd_rank") && rpd_column_exists(b->r, "rpd_rank", "host")
          ? "(SELECT host FROM rpd_rank WHERE rpd_rank.rank = K.rank)" : "''");
  b->sql[T_CATS] = pivot_sql(b, "category",
      "SELECT N.category AS key, K.rank, sum(K.calls) AS calls, sum(K.total) AS total"
      " FROM temp.br_kr K JOIN temp.br_name N ON N.sid = K.sid AND N.tid = K.tid"
      " GROUP BY 1, 2");
  b->sql[T_KERNELS] = pivot_sql(b, "kernel",
      "SELECT N.name AS key, K.rank, sum(K.calls) AS calls, sum(K.total) AS total"
      " FROM temp.br_kr K JOIN temp.br_name N ON N.sid = K.sid AND N.tid = K.tid"
      " GROUP BY 1, 2");
  b->sql[T_SEQS] = pivot_sql(b, "sequence",
      "SELECT P.string || ' -> ' || C.string AS key, Q.rank, sum(Q.calls) AS calls,"
      " sum(Q.total) AS total FROM temp.br_seq Q JOIN rocpd_string P ON P.id = Q.prev"
      " JOIN rocpd_string C ON C.id = Q.cur GROUP BY 1, 2");
  b->sql[T_COLLS] = rpd_xasprintf(
      "SELECT I.lgpu AS local_gpu, I.idx AS collective, (SELECT C.name FROM"
      " temp.br_coll C WHERE C.lgpu = I.lgpu AND C.idx = I.idx ORDER BY C.rank"
      " LIMIT 1) AS kernel, I.nranks AS ranks,"
      " round((I.first - (SELECT min(start) FROM rocpd_op)) / 1e6, 6) AS start_ms,"
      " round(I.skew / 1000.0, 3) AS skew_us, CASE WHEN I.skew > 0 THEN"
      " (SELECT C.rank FROM temp.br_coll C WHERE C.lgpu = I.lgpu AND C.idx = I.idx"
      " ORDER BY C.start DESC, C.rank LIMIT 1) END AS last_rank"
      " FROM temp.br_inst I ORDER BY I.skew DESC, I.lgpu, I.idx%s", limit);
  b->sql[T_STRAG] = rpd_xstrdup(
      "SELECT C.rank, count(*) AS collectives,"
      " sum(I.skew > 0 AND C.start = I.first + I.skew) AS times_last,"
      " round(avg(C.start - I.first) / 1000.0, 3) AS mean_late_us,"
      " round(max(C.start - I.first) / 1000.0, 3) AS max_late_us"
      " FROM temp.br_coll C JOIN temp.br_inst I ON I.lgpu = C.lgpu AND I.idx = C.idx"
      " GROUP BY C.rank ORDER BY times_last DESC, mean_late_us DESC, C.rank");
}

/* The tables' SQL over the TEMP tables of r (see byrank.h). */
int byrank_compute(rpd *r, const category *cats, int ncats, int64_t top, byrank_sql *out)
{
  byrank b;
  int rc;
  memset(&b, 0, sizeof b);
  memset(out, 0, sizeof *out);
  b.r = r;
  b.top = top;
  rc = build_temp(&b, cats, ncats);
  if (!rc)
    rc = load_ranks(&b);
  if (!rc) {
    make_sql(&b);
    out->nranks = b.nranks;
    for (int t = 0; t < T_N; t++)
      out->sql[t] = b.sql[t];
  }
  free(b.ranks);
  return rc;
}

/* Free the SQL texts (see byrank.h). */
void byrank_sql_free(byrank_sql *s)
{
  for (int t = 0; t < BYRANK_NT; t++)
    free(s->sql[t]);
  memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ output */

/* The six tables as query tables over the trace (their rows stay in
 * SQLite until a writer reads them). */
static void make_tables(byrank *b, rpd_tables *ts)
{
  for (int t = 0; t < T_N; t++)
    rpd_table_query(rpd_tables_add(ts), table_names[t], b->r, rpd_db(b->r), b->sql[t]);
}

/* stdout through the common writer; one table in JSON (--table) is its
 * bare array, as documented. */
static int print_stdout(byrank *b, const rpd_tables *ts)
{
  if (b->table >= 0 && b->fmt == RPD_FMT_JSON) {
    int rc = rpd_table_write(&ts->t[b->table], stdout, b->fmt, 0);
    return rc ? rc : rpd_finish_stdout();
  }
  size_t width = b->width >= 0 ? (size_t)b->width
                               : rpd_term_width(1, RPD_TEXT_DEFAULT_WIDTH);
  return rpd_tables_stdout(ts, b->fmt, b->table >= 0 ? table_names[b->table] : NULL, width);
}

/* ext_byrank_<table> in the trace, replaced, in one transaction. */
static int save_tables(byrank *b, const rpd_tables *ts)
{
  int rc = rpd_begin(b->r);
  for (int t = 0; !rc && t < T_N; t++) {
    char *name = rpd_xasprintf("ext_byrank_%s", table_names[t]);
    rc = rpd_table_save(&ts->t[t], b->r, name);
    free(name);
  }
  if (!rc)
    rc = rpd_meta_set(b->r, "raptor::byrank", "ext_byrank_*");
  if (!rc)
    rc = rpd_commit(b->r);
  else
    rpd_rollback(b->r);
  return rc;
}

int raptor_byrank_main(int argc, char **argv)
{
  byrank b;
  rpd_tables ts = {0};
  category *cats = NULL;
  int ncats = 0, ret = 0, saved = 0;

  memset(&b, 0, sizeof b);
  if ((ret = parse_args(&b, argc, argv)))
    return ret < 0 ? rpd_cli_status() : ret;
  if (b.xlsx && rpd_output_check(b.xlsx, b.path, NULL))
    return rpd_fail("cannot write '%s': %s", b.xlsx, rpd_errmsg());
  if (category_load_or_builtin(&cats, &ncats, b.cat_file)) {
    ret = rpd_fail("%s", rpd_errmsg());
    goto done;
  }
  if (rpd_open_or_report(&b.r, b.path, NULL, b.save ? RPD_WRITE : RPD_READ)) {
    ret = 1;
    goto done;
  }
  byrank_sql bs;
  if (byrank_compute(b.r, cats, ncats, b.top, &bs)) {
    ret = rpd_fail("cannot analyse '%s': %s", b.path, rpd_errmsg());
    goto done;
  }
  b.nranks = bs.nranks;
  for (int t = 0; t < T_N; t++)
    b.sql[t] = bs.sql[t];
  make_tables(&b, &ts);
  if (b.save) {
    if (save_tables(&b, &ts)) {
      ret = rpd_fail("cannot save results into '%s': %s", b.path, rpd_errmsg());
      goto done;
    }
    saved = 1;
  }
  if (b.xlsx && rpd_tables_xlsx(&ts, b.xlsx, b.path, NULL, NULL, 0, NULL, NULL)) {
    ret = rpd_fail("%s", rpd_errmsg());
    goto done;
  }
  if (b.csv_dir ? rpd_tables_csv_dir(&ts, b.csv_dir, b.path) : print_stdout(&b, &ts))
    ret = rpd_fail("%s", rpd_errmsg());
done:
  rpd_tables_free(&ts);
  if (b.r && rpd_close(b.r, saved) && saved && !ret)
    ret = rpd_fail("cannot write '%s': %s", b.path, rpd_errmsg());
  for (int t = 0; t < T_N; t++)
    free(b.sql[t]);
  free(b.ranks);
  category_list_free(cats, ncats);
  return ret;
}
