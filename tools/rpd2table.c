/* links: rpd-import */
/* rpd2table - the reference's kernel summary table: per UserMarker range,
 * per GPU, per kernel name: calls, total/avg/min/max duration and the share
 * of the marker's GPU time, as CSV.  See docs/rpd2table.md. */
#include "opt.h"
#include "readdirect.h"   /* rpd-import's rocprofv3 reader */

static const rpd_help help = {
  .usage = "usage: rpd2table FILE.rpd [MARKER ...] OUT.csv",
  .about =
    "Summarise the ops launched inside UserMarker (roctx) ranges whose text is\n"
    "one of MARKER, per marker text, GPU and op name, into OUT.csv ('-' =\n"
    "stdout) with the reference's columns:\n"
    "  marker_name,gpuid,kernel_name,marker_count,kernel_count,total_dur,\n"
    "  avg_dur,min_dur,max_dur,kernel_percentage\n"
    "An op counts for a marker when the api call that launched it started\n"
    "inside the marker's range on the marker's thread.  One MARKER argument\n"
    "holding \"a, b\" names both (as the reference splits it).  Without MARKER\n"
    "the whole trace is one range, marker_name \"\".  kernel_percentage is the\n"
    "share of total_dur within (marker, gpu).  Durations in ns.  FILE is only\n"
    "read (the reference adds indexes to it).",
};

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "check.h"
#include "textsafe.h"

/* Python's repr of a float (what pandas writes): the fewest significant
 * digits that read back the same; fixed notation for exponents -4..15
 * (with ".0" when there is no fraction), else d.ddde+XX. */
static void py_float(FILE *o, double v)
{
  char b[64];
  int p;
  for (p = 1; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*e", p - 1, v);
    if (strtod(b, NULL) == v)
      break;
  }
  if (p > 17)
    p = 17;
  int e = atoi(strchr(b, 'e') + 1);
  if (v != v || v - v != 0) {           /* nan, inf */
    fputs(v != v ? "nan" : v > 0 ? "inf" : "-inf", o);
    return;
  }
  if (e < -4 || e >= 16) {
    /* Python: mantissa without trailing zeros, exponent at least 2 digits */
    fputs(b, o);
    return;
  }
  int dec = p - 1 - e;
  snprintf(b, sizeof b, "%.*f", dec > 0 ? dec : 0, v);
  fputs(b, o);
  if (dec <= 0)
    fputs(".0", o);
}

/* A CSV field quoted only when it must be (Python csv QUOTE_MINIMAL), a
 * formula-like name neutralised (rpd_csv_field). */
static void csv_field(FILE *o, const char *s)
{
  rpd_buf b = {0};
  rpd_csv_field(&b, s, 0);
  if (b.len)
    fwrite(b.s, 1, b.len, o);
  rpd_buf_free(&b);
}

/* The markers: a temp table of the UserMarker calls whose text is one of
 * names (none: one range over the whole trace). */
static int make_markers(rpd *r, char **names, int n)
{
  int rc = rpd_exec(r, "CREATE TEMP TABLE sel_marker (id INTEGER PRIMARY KEY, pid INTEGER,"
                    " tid INTEGER, name TEXT, start INTEGER, end INTEGER);"
                    " CREATE TEMP TABLE want_marker (name TEXT PRIMARY KEY)");
  sqlite3_stmt *st = NULL;
  if (!rc && !n)
    return rpd_exec(r, "INSERT INTO sel_marker SELECT NULL, pid, tid, '', min(start), max(end)"
                    " FROM rocpd_api GROUP BY pid, tid");
  if (!rc)
    rc = rpd_prepare(r, "INSERT OR IGNORE INTO want_marker VALUES (?)", &st);
  for (int i = 0; i < n && !rc; i++) {
    /* "a, b" in one argument names both (the reference's split) */
    char *copy = rpd_xstrdup(names[i]), *p = copy;
    while (p && !rc) {
      char *sep = strstr(p, ", ");
      if (sep)
        *sep = '\0';
      sqlite3_bind_text(st, 1, p, -1, SQLITE_TRANSIENT);
      int s = rpd_step(r, st);
      sqlite3_reset(st);
      if (s < 0)
        rc = -s;
      p = sep ? sep + 2 : NULL;
    }
    free(copy);
  }
  sqlite3_finalize(st);
  if (rc)
    return rc;
  const char *args = rpd_schema(r) == 3 ? "rocpd_ustring" : "rocpd_string";
  char *sql = sqlite3_mprintf(
    "INSERT INTO sel_marker SELECT A.id, A.pid, A.tid, G.string, A.start, A.end"
    " FROM rocpd_api A JOIN \"%w\" G ON G.id = A.args_id"
    " WHERE A.apiName_id IN (SELECT id FROM rocpd_string WHERE string = 'UserMarker')"
    " AND G.string IN (SELECT name FROM temp.want_marker)", args);
  rc = rpd_exec(r, sql);
  sqlite3_free(sql);
  return rc;
}

static const char table_sql[] =
  "WITH calls AS (SELECT M.id AS marker_id, M.name AS marker_name, B.id AS api_id"
  "  FROM temp.sel_marker M JOIN rocpd_api B ON B.pid = M.pid AND B.tid = M.tid"
  "  AND B.start BETWEEN M.start AND M.end),"
  " k AS (SELECT C.marker_name, C.marker_id, O.gpuId AS gpuid, O.description_id AS kid,"
  "  O.end - O.start AS dur FROM calls C JOIN rocpd_api_ops L ON L.api_id = C.api_id"
  "  JOIN rocpd_op O ON O.id = L.op_id),"
  " g AS (SELECT marker_name, gpuid, kid, count(DISTINCT marker_id) AS marker_count,"
  "  count(dur) AS kernel_count, sum(dur) AS total_dur, avg(dur) AS avg_dur,"
  "  min(dur) AS min_dur, max(dur) AS max_dur FROM k GROUP BY marker_name, gpuid, kid)"
  " SELECT g.marker_name, g.gpuid, S.string, g.marker_count, g.kernel_count, g.total_dur,"
  "  g.avg_dur, g.min_dur, g.max_dur,"
  "  g.total_dur * 100.0 / (SELECT sum(total_dur) FROM g AS h"
  "   WHERE h.marker_name = g.marker_name AND h.gpuid = g.gpuid)"
  " FROM g JOIN rocpd_string S ON S.id = g.kid"
  " ORDER BY g.marker_name, g.gpuid, g.total_dur DESC, S.string";

static int write_table(rpd *r, FILE *o, int64_t *rows)
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r, table_sql, &st), s = 0;
  if (!rc)
    fputs("marker_name,gpuid,kernel_name,marker_count,kernel_count,total_dur,avg_dur,"
          "min_dur,max_dur,kernel_percentage\n", o);
  while (!rc && (s = rpd_step(r, st)) == SQLITE_ROW) {
    csv_field(o, (const char *)sqlite3_column_text(st, 0));
    fprintf(o, ",%lld,", (long long)sqlite3_column_int64(st, 1));
    csv_field(o, (const char *)sqlite3_column_text(st, 2));
    for (int c = 3; c <= 5; c++)
      fprintf(o, ",%lld", (long long)sqlite3_column_int64(st, c));
    fputc(',', o);
    py_float(o, sqlite3_column_double(st, 6));
    fprintf(o, ",%lld,%lld,", (long long)sqlite3_column_int64(st, 7),
            (long long)sqlite3_column_int64(st, 8));
    py_float(o, sqlite3_column_double(st, 9));
    fputc('\n', o);
    (*rows)++;
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* The rows the summary's full scans read, for the progress line
 * (common/trace/progress.h). */
static const char *const progress_scans[] = {
  "rocpd_api", "rocpd_api_ops", "rocpd_op", NULL
};

int main(int argc, char **argv)
{
  const rpd_opt opts[] = {
    RPD_OPT_FLAG("--csv-raw", &rpd_csv_raw,
                 .help = "write a marker or kernel name that starts with = + - @ TAB or CR "
                         "as it is (by default it gets a leading ', as a spreadsheet would "
                         "run it as a formula)"),
    RPD_OPT_END(),
  };
  /* a rocprofv3 database or Kineto trace is read as it is: every row
   * rpd-import writes */
  static const rpdi_direct direct = { .lean = 0 };
  rpd_set_import_reader(rpdi_direct_read, (void *)&direct);
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return rpd_cli_status();
  int n = argc;
  if (rpd_cli_options(opts, 0, &n, argv))
    return 2;
  char **pos = rpd_xcalloc((size_t)argc, sizeof *pos);
  memcpy(pos, argv, (size_t)n * sizeof *pos);
  if (n < 2) {
    free(pos);
    return rpd_usage_error("need FILE.rpd and OUT.csv");
  }
  const char *path = pos[0], *out = pos[n - 1];
  int to_stdout = rpd_cli_is_stdout(out);
  if (!to_stdout && rpd_output_check(out, path, NULL)) {
    free(pos);
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  }
  rpd *r = NULL;
  if (rpd_open_or_report(&r, path, to_stdout ? NULL : out, RPD_READ) != RPD_OK) {
    free(pos);
    return 1;
  }
  rpd_outfile of = {0};
  FILE *o = stdout;
  int64_t rows = 0;
  /* a text or out-of-range timestamp would be summed as a wrong number
   * (its scans show their own progress phase, before the summary's) */
  int rc = rpd_check_trace(r);
  if (!rc)
    rpd_progress_sql_total(r, "ops", rpd_progress_rows_of(r, progress_scans));
  /* a 16 MB page cache; SQLite's sorter (the GROUP BY and
   * ORDER BY) sizes itself by it, so the peak stays flat in trace size */
  if (!rc)
    rc = rpd_profile(r, RPD_OPEN_UPDATE);
  if (!rc)
    rc = make_markers(r, pos + 1, n - 2);
  if (!rc && !to_stdout && !(rc = rpd_outfile_begin(&of, out, path)))
    o = of.fp;
  if (!rc)
    rc = write_table(r, o, &rows);
  rpd_progress_end();
  rpd_close(r, 0);
  free(pos);
  if (rc) {
    if (o != stdout)
      rpd_outfile_abort(&of);
    return rpd_fail("cannot summarise '%s': %s", path, rpd_errmsg());
  }
  if (!to_stdout) {
    if (rpd_outfile_commit(&of))
      return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    fprintf(stderr, "%s: %" PRId64 " rows to %s\n", rpd_progname, rows, out);
    return 0;
  }
  if (fflush(stdout) || ferror(stdout))
    return rpd_fail("cannot write to stdout");
  return 0;
}
