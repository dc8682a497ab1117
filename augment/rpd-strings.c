/* rpd-strings - drop unreferenced and duplicate strings, remap references. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-strings FILE [-o OUT] [--dedupe] [--clean-autograd] [--vacuum]",
  .about =
    "Tidy the string tables of an RPD trace (rocpd_string, and rocpd_ustring\n"
    "on schema 3) in one transaction.  Every column that references a string\n"
    "table is found (the well-known ones, foreign keys declared in the\n"
    "schema, and pairs declared in rocpd_metadata 'references::rocpd_string.id')\n"
    "and remapped; ids of the strings kept do not change.",
  .notes =
    "Without an action it only reports what --dedupe would remove.\n"
    "Prints one line: rows removed and string bytes saved per table (and the\n"
    "file size before and after with --vacuum).\n"
    "Example: rpd-strings trace.rpd --clean-autograd --vacuum\n",
};

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpd.h"
#include "opt.h"

typedef struct opts {
  const char *file, *out;
  int dedupe, clean, vacuum;
} opts;

typedef struct ref {
  char *table, *col;
} ref;

typedef struct refs {
  ref *v;
  int n, cap;
} refs;

typedef struct result {
  int64_t removed, bytes, merged, cleaned;
} result;

static void refs_free(refs *l) {
  for (int i = 0; i < l->n; i++) free(l->v[i].table), free(l->v[i].col);
  free(l->v);
  l->v = NULL, l->n = l->cap = 0;
}

/* Add (table, col) if both exist and it is not listed yet. */
static void refs_add(rpd *r, refs *l, const char *table, const char *col) {
  if (!rpd_table_exists(r, table) || !rpd_column_exists(r, table, col)) return;
  for (int i = 0; i < l->n; i++)
    if (!strcasecmp(l->v[i].table, table) && !strcasecmp(l->v[i].col, col))
      return;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->v = rpd_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
  }
  l->v[l->n++] = (ref){rpd_xstrdup(table), rpd_xstrdup(col)};
}

/* The next quoted token of s ("..." or '...') into a new string; *s moves
 * past it.  NULL when there is none. */
static char *quoted(const char **s) {
  const char *p = strpbrk(*s, "\"'");
  if (!p) return NULL;
  const char *e = strchr(p + 1, *p);
  if (!e) return NULL;
  char *t = rpd_xmalloc((size_t)(e - p));
  memcpy(t, p + 1, (size_t)(e - p - 1));
  t[e - p - 1] = 0;
  *s = e + 1;
  return t;
}

/* Pairs declared as rocpd_metadata tag 'references::TABLE.id', value
 * '("table", "column")'. */
static int refs_from_metadata(rpd *r, refs *l, const char *strtab) {
  sqlite3_stmt *st = NULL;
  char *tag;
  int rc, s = SQLITE_DONE;
  /* older tracers wrote no rocpd_metadata: then nothing is declared */
  if (!rpd_table_exists(r, "rocpd_metadata")) return RPD_OK;
  tag = rpd_xasprintf("references::%s.id", strtab);
  rc = rpd_prepare(r, "SELECT value FROM rocpd_metadata WHERE tag = ?1", &st);
  if (rc == RPD_OK) sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char *t = v ? quoted(&v) : NULL, *c = t ? quoted(&v) : NULL;
    if (t && c) refs_add(r, l, t, c);
    free(t), free(c);
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  free(tag);
  return rc;
}

/* Columns declared REFERENCES strtab(id) anywhere in the schema. */
static int refs_from_schema(rpd *r, refs *l, const char *strtab) {
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(r,
      "SELECT m.name, f.\"from\" FROM sqlite_master m, "
      "pragma_foreign_key_list(m.name) f WHERE m.type = 'table' "
      "AND f.\"table\" = ?1 COLLATE NOCASE ORDER BY m.name, f.id", &st), s;
  if (rc == RPD_OK) sqlite3_bind_text(st, 1, strtab, -1, SQLITE_STATIC);
  while (rc == RPD_OK && (s = rpd_step(r, st)) == SQLITE_ROW)
    refs_add(r, l, (const char *)sqlite3_column_text(st, 0),
             (const char *)sqlite3_column_text(st, 1));
  if (rc == RPD_OK && s < 0) rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* Every column referencing strtab on this trace. */
static int collect_refs(rpd *r, const char *strtab, refs *l) {
  static const char *const names[][2] = {
      {"rocpd_op", "description_id"}, {"rocpd_op", "opType_id"},
      {"rocpd_api", "domain_id"},     {"rocpd_api", "category_id"},
      {"rocpd_api", "apiName_id"},    {"rocpd_kernelapi", "kernelName_id"},
      {"rocpd_stackframe", "name_id"}, {"rocpd_counter", "name_id"},
  };
  if (!strcmp(strtab, rpd_args_table(r))) refs_add(r, l, "rocpd_api", "args_id");
  if (!strcmp(strtab, "rocpd_string"))
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      refs_add(r, l, names[i][0], names[i][1]);
  int rc = refs_from_schema(r, l, strtab);
  if (rc == RPD_OK) rc = refs_from_metadata(r, l, strtab);
  return rc;
}

/* "SELECT c FROM t UNION SELECT ..." over every reference; caller frees. */
static char *used_sql(const refs *l) {
  rpd_buf b = {0};
  for (int i = 0; i < l->n; i++) {
    char *q = sqlite3_mprintf("%sSELECT \"%w\" FROM \"%w\"", i ? " UNION " : "",
                              l->v[i].col, l->v[i].table);
    rpd_buf_puts(&b, q);
    sqlite3_free(q);
  }
  if (!l->n) rpd_buf_puts(&b, "SELECT NULL WHERE 0");
  return b.s;
}

/* Two integers of a one-row query built with sqlite3_mprintf. */
static int query2(rpd *r, char *sql, int64_t *a, int64_t *b) {
  sqlite3_stmt *st = NULL;
  int rc = sql ? rpd_prepare(r, sql, &st) : RPD_ENOMEM;
  sqlite3_free(sql);
  if (rc == RPD_OK) {
    int s = rpd_step(r, st);
    if (s == SQLITE_ROW) {
      *a = sqlite3_column_int64(st, 0);
      *b = sqlite3_column_int64(st, 1);
    } else if (s < 0) {
      rc = -s;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* What --dedupe removes: rows other than the first of each distinct string
 * that something references. */
static int measure(rpd *r, const char *t, const char *used, result *res) {
  return query2(r, sqlite3_mprintf(
      "SELECT count(*), ifnull(sum(length(CAST(string AS BLOB))), 0) FROM \"%w\" "
      "WHERE id NOT IN (SELECT min(id) FROM \"%w\" WHERE id IN (%s) "
      "GROUP BY string)", t, t, used), &res->removed, &res->bytes);
}

/* Cut the autograd tails off every string of t (reference order). */
static int clean_autograd(rpd *r, const char *t, result *res) {
  static const char *const tails[] = {", seq", ", op_id", ", sizes",
                                      ", input_op_ids"};
  int rc = RPD_OK;
  for (size_t i = 0; i < 4 && rc == RPD_OK; i++) {
    rc = rpd_execf(r, "UPDATE \"%w\" SET string = substr(string, 1, "
                   "instr(string, %Q) - 1) WHERE instr(string, %Q) > 0",
                   t, tails[i], tails[i]);
    res->cleaned += sqlite3_changes(rpd_db(r));
  }
  return rc;
}

/* Merge duplicates of t into their lowest id, then delete what nothing
 * references. */
static int dedupe(rpd *r, const char *t, const refs *l, const char *used,
                  result *res) {
  int rc = rpd_exec(r, "DROP TABLE IF EXISTS temp._rpd_strmap;"
                       "CREATE TEMP TABLE _rpd_strmap(old INTEGER PRIMARY KEY, "
                       "new INTEGER NOT NULL)");
  if (rc == RPD_OK)
    rc = rpd_execf(r, "INSERT INTO temp._rpd_strmap SELECT id, keep FROM "
                   "(SELECT id, min(id) OVER (PARTITION BY string) AS keep "
                   "FROM \"%w\") WHERE id <> keep", t);
  if (rc == RPD_OK) res->merged = sqlite3_changes(rpd_db(r));
  for (int i = 0; i < l->n && rc == RPD_OK && res->merged; i++)
    rc = rpd_execf(r, "UPDATE \"%w\" SET \"%w\" = (SELECT new FROM "
                   "temp._rpd_strmap WHERE old = \"%w\") WHERE \"%w\" IN "
                   "(SELECT old FROM temp._rpd_strmap)",
                   l->v[i].table, l->v[i].col, l->v[i].col, l->v[i].col);
  if (rc == RPD_OK) rc = measure(r, t, used, res);
  if (rc == RPD_OK)
    rc = rpd_execf(r, "DELETE FROM \"%w\" WHERE id NOT IN (%s)", t, used);
  if (rc == RPD_OK) rc = rpd_exec(r, "DROP TABLE temp._rpd_strmap");
  return rc;
}

/* One string table: clean, dedupe (or just measure), print its part. */
/* The progress line of one string table (common/trace/progress.h): the rows its
 * statements scan, every referencing column's table twice and the string
 * table three times (duplicates, remap, delete). */
static void progress_phase(rpd *r, const char *t, const refs *l) {
  int64_t n = 0;
  if (!rpd_progress_on()) return;
  for (size_t i = 0; i < (size_t)l->n; i++) {
    const char *one[] = {l->v[i].table, NULL};
    n += 2 * rpd_progress_rows_of(r, one);
  }
  const char *self[] = {t, t, t, NULL};
  rpd_progress_sql_total(r, t, n + rpd_progress_rows_of(r, self));
}

static int one_table(rpd *r, const opts *o, const char *t, rpd_buf *msg) {
  refs l = {0};
  result res = {0};
  char *used = NULL;
  int rc = collect_refs(r, t, &l);
  if (rc == RPD_OK) used = used_sql(&l);
  if (rc == RPD_OK) progress_phase(r, t, &l);
  if (rc == RPD_OK && o->clean && !strcmp(t, rpd_args_table(r)))
    rc = clean_autograd(r, t, &res);
  if (rc == RPD_OK)
    rc = o->dedupe ? dedupe(r, t, &l, used, &res) : measure(r, t, used, &res);
  if (rc == RPD_OK) {
    rpd_buf_printf(msg, "%s%s: %s %" PRId64 " rows, %" PRId64 " string bytes",
                   msg->len ? "; " : "", t, o->dedupe ? "removed" : "would remove",
                   res.removed, res.bytes);
    if (res.merged) rpd_buf_printf(msg, " (%" PRId64 " duplicates merged)", res.merged);
    if (res.cleaned) rpd_buf_printf(msg, ", %" PRId64 " autograd tails cut", res.cleaned);
  }
  rpd_progress_end();
  free(used);
  refs_free(&l);
  return rc;
}

static int file_bytes(rpd *r, int64_t *n) {
  int64_t pages = 0, size = 0;
  int rc = rpd_query_int64(r, "PRAGMA page_count", &pages);
  if (rc == RPD_OK) rc = rpd_query_int64(r, "PRAGMA page_size", &size);
  *n = pages * size;
  return rc;
}

static int parse(int argc, char **argv, opts *o) {
  int clean_only = 0;
  const rpd_opt table[] = {
    RPD_OPT_FLAG("--dedupe", &o->dedupe,
                 .help = "merge duplicate strings (the lowest id is kept) and delete "
                         "strings nothing references"),
    RPD_OPT_FLAG("--clean-autograd|--clean_autograd", &clean_only,
                 .help = "first cut the tails ', seq', ', op_id', ', sizes',\n', input_op_ids' "
                         "off the api args strings (then dedupe); ext_autogradapi "
                         "keeps the parsed fields"),
    RPD_OPT_FLAG("--vacuum", &o->vacuum, .help = "VACUUM afterwards so the file shrinks"),
    RPD_OPT_FILE("-o|--output", &o->out, .arg = "OUT",
                 .help = "write the result to OUT instead of FILE"),
    RPD_OPT_END(),
  };
  if (rpd_cli_init_opts(argc, argv, &help, table)) return -1;
  int rc = rpd_cli_options(table, 0, &argc, argv);
  if (rc) return rc;
  if (clean_only) o->clean = o->dedupe = 1;   /* cleaning ends with a dedupe */
  return rpd_cli_one_file(argc, argv, &o->file, o->out);
}

/* The changes are committed; a failed VACUUM (rpd_vacuum leaves the
 * committed file as it was) only costs the compaction: say so and go on. */
static void vacuum(rpd *r, const opts *o) {
  static const char *const tables[] = {
    "rocpd_api", "rocpd_api_ops", "rocpd_op", "rocpd_kernelapi", "rocpd_copyapi",
    "rocpd_stackframe", "rocpd_monitor", "rocpd_string", "rocpd_ustring", NULL};
  rpd_progress_sql_ops(r, "vacuum", rpd_progress_rows_of(r, tables), 5);
  int rc = rpd_vacuum(r);
  rpd_progress_end();
  if (rc != RPD_OK)
    rpd_note("warning: '%s': strings tidied, but VACUUM failed (%s); "
             "the file was not compacted", o->file, rpd_errmsg());
}

int main(int argc, char **argv) {
  opts o = {0};
  rpd *r = NULL;
  rpd_buf msg = {0};
  int64_t before = 0, after = 0;
  int rc, write;
  /* one thread, one connection: skip SQLite's mutexes (~9% of the run) */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  if ((rc = parse(argc, argv, &o))) return rc < 0 ? rpd_cli_status() : rc;
  write = o.dedupe || o.vacuum || o.out;
  if (rpd_open_or_report(&r, o.file, o.out, write ? RPD_WRITE : RPD_READ)) return 1;
  /* a 16 MB page cache; SQLite's sorter (the window over the
   * strings) and VACUUM's copy size themselves by it, so the peak stays
   * flat in trace size */
  rc = rpd_profile(r, RPD_OPEN_UPDATE);
  if (rc == RPD_OK && write) rc = rpd_begin(r);
  if (rc == RPD_OK) rc = file_bytes(r, &before);
  if (rc == RPD_OK) rc = one_table(r, &o, "rocpd_string", &msg);
  if (rc == RPD_OK && rpd_schema(r) == 3 && rpd_table_exists(r, "rocpd_ustring"))
    rc = one_table(r, &o, "rocpd_ustring", &msg);
  if (rc == RPD_OK && o.dedupe) rc = rpd_record_version(r);
  if (rc == RPD_OK && write) rc = rpd_commit(r);
  if (rc == RPD_OK && o.vacuum) vacuum(r, &o);
  if (rc == RPD_OK) rc = file_bytes(r, &after);
  if (rc == RPD_OK && o.vacuum)
    rpd_buf_printf(&msg, "; file %" PRId64 " -> %" PRId64 " bytes", before, after);
  if (rc != RPD_OK) {
    rpd_buf_free(&msg);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", rpd_errmsg());
    if (write) rpd_rollback(r);
    rpd_close(r, 0);
    return rpd_fail("'%s': %s", o.file, msg);
  }
  if ((rc = rpd_close(r, write))) {
    rpd_buf_free(&msg);
    return rpd_fail("'%s': %s", o.file, rpd_errmsg());
  }
  printf("%s: %s%s\n", rpd_progname, msg.s,
         o.dedupe || o.vacuum ? "" : " (run with --dedupe to remove them)");
  rpd_buf_free(&msg);
  if (!write) return rpd_finish_stdout() ? rpd_fail("%s", rpd_errmsg()) : 0;
  return rpd_fail_committed(o.out ? o.out : o.file);
}
