/* rpd-merge - N per-rank RPD traces -> one multi-node trace.
 *
 * Ranks are kept apart with the RPD strides (pid/tid + rank*pid_stride,
 * gpuId/queueId/device + rank*gpu_stride, as the napi/nop views expect),
 * strings are deduplicated, ids are shifted, clocks are aligned, and each
 * rank is recorded in rocpd_metadata and the table rpd_rank.  Derived ext_*
 * tables are not copied (re-run the augmenters on the result).  The output
 * is built in ONE transaction in a temp file renamed into place at the end;
 * rows stream through prepared statements, so memory does not grow with the
 * traces and time is linear in the total rows.  See docs/rpd-merge.md. */
#include "rpd.h"
#include "opt.h"
#include "check.h"
#include "ranks.h"
#include "strictint.h"
#include "util/num.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const rpd_help help = {
  .usage = "usage: rpd-merge [OPTIONS] -o OUT.rpd RANK0.rpd RANK1.rpd ...",
  .about =
    "Merge per-rank RPD traces (.rpd or .rpd.gz; rocprofv3 outputs: convert\n"
    "each with rpd-import first) into one multi-node trace.",
  .quiet = "no summary on stderr",
  .notes =
    "Rank numbers: the inputs' metadata tag 'rank' when every input has a\n"
    "distinct one, else the position on the command line (0, 1, ...).\n"
    "Example: rpd-merge -o job.rpd rank*.rpd && raptor job.rpd --by-rank\n",
};

enum { ALIGN_NONE, ALIGN_META, ALIGN_COLLECTIVE };

typedef struct src {
  const char *path;
  rpd *r;
  int64_t rank;
  char *host;
  int64_t pid;             /* smallest pid of its api rows (0: none) */
  int64_t meta_offset;     /* clock_offset_ns tag */
  int64_t first_coll;      /* start of its first collective kernel, or -1 */
  int64_t shift;           /* ns added to its timestamps */
  int64_t t_min, t_max;    /* smallest start, largest end (api, op, monitor);
                            * t_max < t_min: no rows */
  int64_t n_api, n_op;
} src;

typedef struct offset_opt {
  int64_t rank, ns;
} offset_opt;

typedef struct merge {
  src *in;
  int n;
  int align;
  offset_opt *offs;
  int noffs;
  int schema;
  int64_t pid_stride, gpu_stride;
  int64_t empty_s, empty_u;  /* ids of '' in rocpd_string / rocpd_ustring:
                                what a dangling string reference becomes */
  rpd *out;
} merge;

/* The tables copied, in an order where every reference points backwards. */
static const char *const tables[] = {
  "rocpd_api", "rocpd_op", "rocpd_api_ops", "rocpd_kernelapi",
  "rocpd_copyapi", "rocpd_monitor", "rocpd_counter", "rocpd_stackframe",
};

/* Columns that refer to rocpd_string ids. */
static const char *const string_cols[] = {
  "apiName_id", "category_id", "domain_id", "description_id", "opType_id",
  "kernelName_id", "name_id",
};

static int in_list(const char *s, const char *const *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, list[i]) == 0)
      return 1;
  return 0;
}

/* ------------------------------------------------------------ options */

static int on_offset(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  merge *m = ctx;
  const char *eq = strchr(v, '=');
  char rank[32];
  offset_opt o;
  (void)name;
  if (!eq || eq == v || (size_t)(eq - v) >= sizeof rank) {
    snprintf(msg, msgsz, "--offset: expected R=NS, got '%s'", v);
    return 2;
  }
  memcpy(rank, v, (size_t)(eq - v));
  rank[eq - v] = 0;
  if (rpd_parse_i64(rank, &o.rank) || o.rank < 0 || rpd_parse_i64(eq + 1, &o.ns)) {
    snprintf(msg, msgsz, "--offset: expected R=NS (integers), got '%s'", v);
    return 2;
  }
  m->offs = rpd_xrealloc(m->offs, (size_t)(m->noffs + 1) * sizeof *m->offs);
  m->offs[m->noffs++] = o;
  return 0;
}

static int on_align(void *ctx, const char *name, const char *v, char *msg, size_t msgsz)
{
  static const char *const names[] = { "none", "meta", "collective" };
  static const int aligns[] = { ALIGN_NONE, ALIGN_META, ALIGN_COLLECTIVE };
  merge *m = ctx;
  (void)name;
  for (int k = 0; k < 3; k++)
    if (!strcmp(v, names[k])) {
      m->align = aligns[k];
      return 0;
    }
  snprintf(msg, msgsz, "--align: '%s' is not none, meta or collective", v);
  return 2;
}

static int parse_args(merge *m, int argc, char **argv, const char **out,
                      int *force, int *quiet)
{
  const rpd_opt opts[] = {
    RPD_OPT_STRING("-o|--output", out, .arg = "FILE",
                   .help = "the merged trace (schema of the inputs; .gz compresses)"),
    RPD_OPT_CALL("--align", on_align, m, .arg = "MODE",
                 .help = "clock alignment (default meta):\n"
                         "  none        keep every timestamp as it is\n"
                         "  meta        add each input's metadata tag\n"
                         "              clock_offset_ns (if present)\n"
                         "  collective  shift each rank so that its first\n"
                         "              collective kernel starts when the\n"
                         "              lowest rank's does"),
    RPD_OPT_CALL("--offset", on_offset, m, .arg = "R=NS",
                 .help = "add NS nanoseconds (may be negative) to rank R's timestamps, on "
                         "top of --align; repeatable"),
    RPD_OPT_FLAG("--force", force, .help = "replace an existing OUT"),
    RPD_OPT_END(),
  };
  int rc;
  if (rpd_cli_init_opts(argc, argv, &help, opts))
    return -1;
  m->align = ALIGN_META;
  if ((rc = rpd_cli_options(opts, 0, &argc, argv)))
    return rc;
  *quiet = rpd_quiet;
  m->in = rpd_xcalloc((size_t)argc + 1, sizeof *m->in);
  for (int i = 0; i < argc; i++)
    m->in[m->n++].path = argv[i];
  if (!*out)
    return rpd_usage_error("no output file (-o OUT.rpd)");
  if (!**out)
    return rpd_usage_error("empty output file name");
  if (m->n == 0)
    return rpd_usage_error("no input traces");
  return 0;
}

/* ------------------------------------------------------------ inputs */

/* Integer value of metadata tag: RPD_OK, RPD_ENOTFOUND when absent, or
 * RPD_EPARSE ("metadata clock_offset_ns: '1e3' is not an integer"). */
static int meta_int(rpd *r, const char *tag, int64_t *v)
{
  char *s = NULL;
  int rc = rpd_meta_get(r, tag, &s);
  if (rc)
    return rc;
  if (rpd_int_text(s, strlen(s), v))
    rc = rpd_seterr(RPD_EPARSE, "metadata %s: %s", tag, rpd_errmsg());
  free(s);
  return rc;
}

/* s->t_min/t_max: the span of the start/end values the clock shift moves
 * (rocpd_api and rocpd_op, checked sane; rocpd_monitor's integer ones). */
static int time_span(src *s)
{
  rpd_buf sql = {0};
  int rc;
  rpd_buf_puts(&sql, "SELECT min(s), max(e) FROM (SELECT min(start) s, max(\"end\") e"
               " FROM rocpd_api UNION ALL SELECT min(start), max(\"end\") FROM rocpd_op");
  if (rpd_table_exists(s->r, "rocpd_monitor"))
    rpd_buf_puts(&sql, " UNION ALL SELECT min(start), max(\"end\") FROM rocpd_monitor"
                 " WHERE typeof(start) = 'integer' AND typeof(\"end\") = 'integer'");
  rpd_buf_puts(&sql, ")");
  sqlite3_stmt *st = NULL;
  s->t_min = 0;
  s->t_max = -1;          /* no rows: nothing to move */
  rc = rpd_prepare(s->r, sql.s, &st);
  if (!rc) {
    int r = rpd_step(s->r, st);
    if (r == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
      s->t_min = sqlite3_column_int64(st, 0);
      s->t_max = sqlite3_column_int64(st, 1);
    } else if (r < 0)
      rc = -r;
  }
  sqlite3_finalize(st);
  rpd_buf_free(&sql);
  return rc;
}

/* Read what the merge needs to know about one opened input. */
static int survey(merge *m, src *s)
{
  char *cond = rpd_collective_condition("S.string"), *sql;
  int64_t v;
  int rc;

  if (rpd_meta_get(s->r, "hostname", &s->host) == RPD_ENOTFOUND &&
      rpd_meta_get(s->r, "host", &s->host) == RPD_ENOTFOUND)
    s->host = NULL;
  if (!s->host)
    s->host = rpd_xstrdup("");
  rpd_clearerr();
  /* rows the shift would move to a wrong number are refused first */
  rc = rpd_check_trace(s->r);
  s->meta_offset = 0;
  if (!rc && m->align == ALIGN_META &&
      (rc = meta_int(s->r, "clock_offset_ns", &s->meta_offset)) == RPD_ENOTFOUND)
    rc = RPD_OK;
  if (!rc)
    rc = time_span(s);
  if (!rc)
    rc = rpd_query_int64(s->r, "SELECT coalesce(min(pid), 0) FROM rocpd_api", &s->pid);
  if (!rc)
    rc = rpd_query_int64(s->r, "SELECT count(*) FROM rocpd_api", &s->n_api);
  if (!rc)
    rc = rpd_query_int64(s->r, "SELECT count(*) FROM rocpd_op", &s->n_op);
  if (!rc)
    rc = rpd_query_int64(s->r, "SELECT coalesce(max(max(abs(pid)), max(abs(tid))), 0)"
                         " FROM rocpd_api", &v);
  if (!rc && v >= m->pid_stride)
    rc = rpd_seterr(RPD_ERANGE, "pid/tid %" PRId64 " does not fit the pid_stride %"
                    PRId64, v, m->pid_stride);
  if (!rc)
    rc = rpd_query_int64(s->r, "SELECT coalesce(max(max(abs(gpuId)), max(abs(queueId))),"
                         " 0) FROM rocpd_op", &v);
  if (!rc && v >= m->gpu_stride)
    rc = rpd_seterr(RPD_ERANGE, "gpuId/queueId %" PRId64 " does not fit the "
                    "gpu_stride %" PRId64, v, m->gpu_stride);
  s->first_coll = -1;
  sql = rpd_xasprintf("SELECT min(O.start) FROM rocpd_op O WHERE O.description_id"
                      " IN (SELECT S.id FROM rocpd_string S WHERE %s)", cond);
  if (!rc && m->align == ALIGN_COLLECTIVE) {
    rc = rpd_query_int64(s->r, sql, &s->first_coll);
    if (rc == RPD_ENOTFOUND) {
      s->first_coll = -1;
      rc = RPD_OK;
    }
  }
  free(sql);
  free(cond);
  return rc;
}

/* Ranks from the 'rank' tags when every input has a distinct one.  A rank
 * whose strides would leave the sane ranges (gpuId + R*gpu_stride past
 * 2^31-1, pid + R*pid_stride past int64) is refused: 1 after the message. */
static int assign_ranks(merge *m)
{
  int tagged = 1;
  for (int i = 0; i < m->n && tagged; i++) {
    if (meta_int(m->in[i].r, "rank", &m->in[i].rank) || m->in[i].rank < 0)
      tagged = 0;
    for (int j = 0; j < i && tagged; j++)
      if (m->in[j].rank == m->in[i].rank)
        tagged = 0;
  }
  rpd_clearerr();
  if (!tagged)
    for (int i = 0; i < m->n; i++)
      m->in[i].rank = i;
  /* every gpuId of an input is < gpu_stride (survey): rank R's land in
   * R*gpu_stride .. (R+1)*gpu_stride - 1, which must stay < 2^31 */
  int64_t max_rank = RPD_GPU_LIMIT / m->gpu_stride - 1;
  for (int i = 0; i < m->n; i++)
    if (m->in[i].rank > max_rank)
      return rpd_fail("cannot merge '%s': its metadata rank %" PRId64 " is beyond"
                      " %" PRId64 " (gpuId + rank * %" PRId64 " must stay below 2^31)",
                      m->in[i].path, m->in[i].rank, max_rank, m->gpu_stride);
  return 0;
}

/* Clock shift of every input from --align and --offset. */
static int assign_shifts(merge *m)
{
  const src *ref = NULL;
  for (int i = 0; i < m->n; i++)
    if (m->in[i].first_coll >= 0 && (!ref || m->in[i].rank < ref->rank))
      ref = &m->in[i];
  for (int i = 0; i < m->n; i++) {
    src *s = &m->in[i];
    if (m->align == ALIGN_META)
      s->shift = s->meta_offset;
    else if (m->align == ALIGN_COLLECTIVE) {
      if (s->first_coll < 0)
        return rpd_fail("--align collective: '%s' has no collective kernel", s->path);
      s->shift = ref->first_coll - s->first_coll;
    }
    for (int k = 0; k < m->noffs; k++)
      if (m->offs[k].rank == s->rank && !rpd_ns_add(s->shift, m->offs[k].ns, &s->shift))
        return rpd_fail("cannot merge '%s': its clock shift overflows", s->path);
    /* the shifted times must stay sane (0 .. 2^62): a wrapped or huge
     * start would be written as a wrong number (or turn into a REAL) */
    int64_t lo, hi;
    if (s->t_max >= s->t_min &&
        (!rpd_ns_add(s->t_min, s->shift, &lo) || !rpd_ns_add(s->t_max, s->shift, &hi) ||
         !rpd_ns_sane(lo) || !rpd_ns_sane(hi)))
      return rpd_fail("cannot merge '%s': a clock shift of %" PRId64 " ns (%s) moves its"
                      " times %" PRId64 " .. %" PRId64 " outside 0 .. 2^62 ns", s->path,
                      s->shift, m->align == ALIGN_META && s->shift == s->meta_offset ?
                      "metadata clock_offset_ns" : "--align/--offset", s->t_min, s->t_max);
  }
  for (int k = 0; k < m->noffs; k++) {
    int found = 0;
    for (int i = 0; i < m->n; i++)
      found |= m->in[i].rank == m->offs[k].rank;
    if (!found)
      return rpd_usage_error("--offset: there is no rank %" PRId64, m->offs[k].rank);
  }
  return 0;
}

/* Open and check every input before anything is written. */
static int open_inputs(merge *m)
{
  for (int i = 0; i < m->n; i++) {
    src *s = &m->in[i];
    if (rpd_open_or_report(&s->r, s->path, NULL, RPD_READ))
      return 1;
    if (rpd_profile(s->r, RPD_OPEN_SIDE))
      return rpd_fail("cannot read '%s': %s", s->path, rpd_errmsg());
    if (i == 0)
      m->schema = rpd_schema(s->r);
    else if (rpd_schema(s->r) != m->schema)
      return rpd_fail("cannot merge '%s' (schema v%d) with '%s' (schema v%d)",
                      s->path, rpd_schema(s->r), m->in[0].path, m->schema);
    if (survey(m, s))
      return rpd_fail("cannot read '%s': %s", s->path, rpd_errmsg());
    sqlite3_db_release_memory(rpd_db(s->r));
  }
  if (assign_ranks(m))
    return 1;
  return assign_shifts(m);
}

/* ------------------------------------------------------------ copying */

/* Stream every row of `select` (on the input) into `insert` (on the
 * output), one bound value per column. */
static int pump(merge *m, src *s, const char *select, const char *insert)
{
  sqlite3_stmt *rd = NULL, *wr = NULL;
  int rc = rpd_prepare(s->r, select, &rd), st;
  if (!rc)
    rc = rpd_prepare(m->out, insert, &wr);
  while (!rc && (st = rpd_step(s->r, rd)) == SQLITE_ROW) {
    int nc = sqlite3_column_count(rd);
    for (int c = 0; c < nc; c++)
      sqlite3_bind_value(wr, c + 1, sqlite3_column_value(rd, c));
    st = rpd_step(m->out, wr);
    if (st < 0)
      rc = -st;
    sqlite3_reset(wr);
  }
  if (!rc && st < 0)
    rc = -st;
  sqlite3_finalize(rd);
  sqlite3_finalize(wr);
  return rc;
}

/* Copy a string table of the input into the output's table of the same
 * name, adding only strings it lacks, and fill temp.MAP(old, new). */
static int copy_strings(merge *m, src *s, const char *table, const char *map)
{
  char *sel = sqlite3_mprintf("SELECT id, string FROM \"%w\"", table);
  int rc = rpd_exec(m->out, "DELETE FROM temp.stage");
  if (!rc)
    rc = pump(m, s, sel, "INSERT INTO temp.stage(id, string) VALUES (?, ?)");
  if (!rc)
    rc = rpd_execf(m->out, "INSERT INTO main.\"%w\"(string) SELECT DISTINCT string"
                   " FROM temp.stage T WHERE NOT EXISTS (SELECT 1 FROM main.\"%w\" M"
                   " WHERE M.string = T.string)", table, table);
  if (!rc)
    rc = rpd_execf(m->out, "DELETE FROM temp.\"%w\"; INSERT INTO temp.\"%w\"(old, new)"
                   " SELECT T.id, (SELECT min(M.id) FROM main.\"%w\" M WHERE"
                   " M.string = T.string) FROM temp.stage T", map, map, table);
  sqlite3_free(sel);
  return rc;
}

/* Amount added to the id column of `table` for this input: 0 for the
 * first rows, else past the output's largest id. */
static int id_offset(merge *m, src *s, const char *table, int64_t *off)
{
  char *q = sqlite3_mprintf("SELECT max(id) FROM main.\"%w\"", table);
  char *qi = sqlite3_mprintf("SELECT min(id) FROM \"%w\"", table);
  int64_t hi = 0, lo = 0;
  int rc = rpd_query_int64(m->out, q, &hi);
  if (rc == RPD_ENOTFOUND) {
    hi = 0;
    rc = RPD_OK;
  }
  if (!rc)
    rc = rpd_query_int64(s->r, qi, &lo);
  if (rc == RPD_ENOTFOUND) {
    lo = 1;
    rc = RPD_OK;
  }
  *off = hi == 0 && lo > 0 ? 0 : hi - lo + 1;
  sqlite3_free(q);
  sqlite3_free(qi);
  return rc;
}

typedef struct offsets {
  int64_t api, op, self;
} offsets;

/* The input's expression and the output's placeholder for one column. */
static void column_sql(merge *m, src *s, const offsets *o, const char *col,
                       rpd_buf *sel, rpd_buf *val)
{
  static const char *const gpu_cols[] = {"gpuId", "queueId", "deviceId",
                                         "dstDevice", "srcDevice"};
  char *q = sqlite3_mprintf("\"%w\"", col);
  char *smap = rpd_xasprintf("coalesce((SELECT new FROM temp.smap WHERE old = ?),"
                             " %" PRId64 ")", m->empty_s);
  char *umap = rpd_xasprintf("coalesce((SELECT new FROM temp.umap WHERE old = ?),"
                             " %" PRId64 ")", m->empty_u);
  int64_t add = 0;
  const char *v = "?";

  if (!strcmp(col, "id"))
    add = o->self;
  else if (!strcmp(col, "pid") || !strcmp(col, "tid"))
    add = s->rank * m->pid_stride;
  else if (in_list(col, gpu_cols, 5))
    add = s->rank * m->gpu_stride;
  else if (!strcmp(col, "start") || !strcmp(col, "end"))
    add = s->shift;
  else if (!strcmp(col, "api_id") || !strcmp(col, "api_ptr_id"))
    add = o->api;
  else if (!strcmp(col, "op_id"))
    add = o->op;
  else if (in_list(col, string_cols, sizeof string_cols / sizeof *string_cols))
    v = smap;
  else if (!strcmp(col, "args_id"))
    v = m->schema == 3 ? umap : smap;
  if (add)
    rpd_buf_printf(sel, "%s%s + %" PRId64, sel->len ? ", " : "", q, add);
  else
    rpd_buf_printf(sel, "%s%s", sel->len ? ", " : "", q);
  rpd_buf_printf(val, "%s%s", val->len ? ", " : "", v);
  sqlite3_free(q);
  free(smap);
  free(umap);
}

/* Copy one table of the input (skipped when the input lacks it). */
static int copy_table(merge *m, src *s, offsets *o, const char *table)
{
  rpd_buf sel = {0}, val = {0}, cols = {0};
  sqlite3_stmt *info = NULL;
  char *q = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", table);
  char *select = NULL, *insert = NULL;
  int rc = RPD_OK, st;

  if (!rpd_table_exists(s->r, table))
    goto cleanup;
  if (rpd_column_exists(m->out, table, "id"))
    rc = id_offset(m, s, table, &o->self);
  if (!rc)
    rc = rpd_prepare(m->out, q, &info);
  while (!rc && (st = rpd_step(m->out, info)) == SQLITE_ROW) {
    const char *col = (const char *)sqlite3_column_text(info, 0);
    char *qc = sqlite3_mprintf("\"%w\"", col);
    if (!rpd_column_exists(s->r, table, col))
      rc = rpd_seterr(RPD_ENOTRPD, "table %s has no column %s", table, col);
    column_sql(m, s, o, col, &sel, &val);
    rpd_buf_printf(&cols, "%s%s", cols.len ? ", " : "", qc);
    sqlite3_free(qc);
  }
  if (!rc && st < 0)
    rc = -st;
  if (!rc) {
    select = sqlite3_mprintf("SELECT %s FROM \"%w\"", sel.s, table);
    insert = sqlite3_mprintf("INSERT INTO main.\"%w\"(%s) VALUES (%s)", table,
                             cols.s, val.s);
    rc = pump(m, s, select, insert);
  }
  if (!strcmp(table, "rocpd_api"))
    o->api = o->self;
  if (!strcmp(table, "rocpd_op"))
    o->op = o->self;
cleanup:
  sqlite3_finalize(info);
  sqlite3_free(q);
  sqlite3_free(select);
  sqlite3_free(insert);
  rpd_buf_free(&sel);
  rpd_buf_free(&val);
  rpd_buf_free(&cols);
  return rc;
}

/* The rank's row in rpd_rank and its rocpd_metadata tags. */
static int record_rank(merge *m, src *s)
{
  char tag[64], num[32];
  int rc = rpd_execf(m->out, "INSERT INTO rpd_rank(rank, host, pid, file, "
                     "clock_shift_ns, pid_base, gpu_base, api_rows, op_rows) VALUES "
                     "(%lld, %Q, %lld, %Q, %lld, %lld, %lld, %lld, %lld)",
                     (long long)s->rank, s->host, (long long)s->pid, s->path,
                     (long long)s->shift, (long long)(s->rank * m->pid_stride),
                     (long long)(s->rank * m->gpu_stride), (long long)s->n_api,
                     (long long)s->n_op);
  struct { const char *what; const char *value; } kv[] = {
    {"file", s->path}, {"host", s->host}, {"pid", NULL}, {"clock_shift_ns", NULL},
  };
  for (size_t i = 0; !rc && i < sizeof kv / sizeof *kv; i++) {
    const char *v = kv[i].value;
    if (!v) {
      snprintf(num, sizeof num, "%" PRId64, i == 2 ? s->pid : s->shift);
      v = num;
    }
    snprintf(tag, sizeof tag, "rank.%" PRId64 ".%s", s->rank, kv[i].what);
    rc = rpd_meta_set(m->out, tag, v);
  }
  return rc;
}

static int merge_one(merge *m, src *s)
{
  offsets o = {0, 0, 0};
  int rc = copy_strings(m, s, "rocpd_string", "smap");
  if (!rc && m->schema == 3)
    rc = copy_strings(m, s, "rocpd_ustring", "umap");
  for (size_t t = 0; !rc && t < sizeof tables / sizeof *tables; t++)
    rc = copy_table(m, s, &o, tables[t]);
  if (!rc)
    rc = record_rank(m, s);
  return rc;
}

static int merge_all(merge *m)
{
  const char *align[] = {"none", "meta", "collective"};
  char num[32];
  int rc = rpd_exec(m->out,
      "CREATE TEMP TABLE stage(id INTEGER PRIMARY KEY, string TEXT);"
      "CREATE TEMP TABLE smap(old INTEGER PRIMARY KEY, new INTEGER);"
      "CREATE TEMP TABLE umap(old INTEGER PRIMARY KEY, new INTEGER);"
      "CREATE TABLE rpd_rank(rank INTEGER PRIMARY KEY, host TEXT, pid INTEGER,"
      " file TEXT, clock_shift_ns INTEGER, pid_base INTEGER, gpu_base INTEGER,"
      " api_rows INTEGER, op_rows INTEGER);"
      "INSERT INTO main.rocpd_string(string) VALUES ('')");
  if (!rc)
    rc = rpd_query_int64(m->out, "SELECT min(id) FROM rocpd_string WHERE string = ''",
                         &m->empty_s);
  m->empty_u = m->empty_s;
  if (!rc && m->schema == 3)
    rc = rpd_exec(m->out, "INSERT INTO main.rocpd_ustring(string) VALUES ('')");
  if (!rc && m->schema == 3)
    rc = rpd_query_int64(m->out, "SELECT min(id) FROM rocpd_ustring WHERE string = ''",
                         &m->empty_u);
  for (int i = 0; !rc && i < m->n; i++) {
    rpd_progress("merging", i, m->n);
    rc = merge_one(m, &m->in[i]);
    /* memory stays flat in the number of ranks: drop its page cache */
    sqlite3_db_release_memory(rpd_db(m->in[i].r));
  }
  rpd_progress("merging", m->n, m->n);
  snprintf(num, sizeof num, "%d", m->n);
  if (!rc)
    rc = rpd_meta_set(m->out, "merge::ranks", num);
  if (!rc)
    rc = rpd_meta_set(m->out, "merge::align", align[m->align]);
  if (!rc)
    rc = rpd_exec(m->out, "DROP TABLE temp.stage; DROP TABLE temp.smap;"
                  " DROP TABLE temp.umap");
  return rc;
}

/* ------------------------------------------------------------ main */

/* Create OUT with rpd_create (a temp file next to its target, removed on
 * failure, exit or a fatal signal; bulk-load settings), fill it in one
 * transaction and publish it (gzip'd for OUT.gz). */
static int write_output(merge *m, const char *out, int force)
{
  rpd_create_opts o = { .schema = m->schema, .input = m->in[0].path, .force = force };
  int rc;
  if (rpd_create(&m->out, out, &o))
    return rpd_fail("cannot create '%s': %s", out, rpd_errmsg());
  rc = rpd_begin(m->out);
  if (!rc)
    rc = merge_all(m);
  if (!rc)
    rc = rpd_commit(m->out);
  else
    rpd_rollback(m->out);
  if (rc) {
    rpd_fail("cannot merge into '%s': %s", out, rpd_errmsg());
    rpd_close(m->out, 0);
  } else if (rpd_close(m->out, 1)) {
    rc = rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  }
  m->out = NULL;
  return rc ? 1 : 0;
}

static void summary(const merge *m, const char *out)
{
  int64_t api = 0, op = 0;
  for (int i = 0; i < m->n; i++) {
    api += m->in[i].n_api;
    op += m->in[i].n_op;
  }
  fprintf(stderr, "%s: %d ranks -> %s: %" PRId64 " api, %" PRId64 " op rows\n",
          rpd_progname, m->n, out, api, op);
  for (int i = 0; i < m->n; i++)
    fprintf(stderr, "  rank %-5" PRId64 " %-12s pid %-8" PRId64 " shift %+" PRId64
            " ns  %s\n", m->in[i].rank, m->in[i].host, m->in[i].pid,
            m->in[i].shift, m->in[i].path);
}

int main(int argc, char **argv)
{
  merge m;
  const char *out = NULL;
  int force = 0, quiet = 0, rc;

  memset(&m, 0, sizeof m);
  m.pid_stride = 10000000;
  m.gpu_stride = 1000;
  rc = parse_args(&m, argc, argv, &out, &force, &quiet);
  if (rc < 0) {
    free(m.in);
    return rpd_cli_status();
  }
  for (int i = 0; !rc && i < m.n; i++)
    if (rpd_output_check(out, m.in[i].path, NULL))
      rc = rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (!rc && !force && !access(out, F_OK))
    rc = rpd_fail("'%s' exists; use --force to replace it", out);
  if (!rc)
    rc = open_inputs(&m);
  if (!rc)
    rc = write_output(&m, out, force);
  if (!rc && !quiet)
    summary(&m, out);
  for (int i = 0; i < m.n; i++) {
    if (m.in[i].r)
      rpd_close(m.in[i].r, 0);
    free(m.in[i].host);
  }
  free(m.in);
  free(m.offs);
  return rc ? (rc == 2 ? 2 : 1) : 0;
}
