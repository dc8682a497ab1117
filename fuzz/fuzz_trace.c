/* fuzz_trace - a small in-memory RPD trace (schema v2 or v3) whose every
 * column gets values from the input: NULLs, integers up to INT64_MIN/MAX,
 * reals, text (invalid UTF-8 included), blobs, and runs of increasing
 * timestamps so that calls nest.  Then the readers of common/ run on it:
 * schema detection and value checks, the call stack builder
 * (common/analysis/callstack.c) and subclass tables of the first strings as event
 * names (common/analysis/subclass.c), inside a transaction that is rolled back, the
 * utility views streamed through the table/CSV/JSON writers (common/out/out.c),
 * metadata and string lookups, the trace-health checks twice: counted in
 * C where the values allow (health_ops.c) and by their SQL alone
 * (RPD_HEALTH_SQL=1), which must give the same counts.
 * Any result is fine; a crash, a leak, undefined behaviour or two health
 * counts that differ is not. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "callstack.h"
#include "fuzz_input.h"
#include "health.h"
#include "rpd.h"
#include "internal.h"   /* white-box: the handle is filled by hand (path, flags) */
#include "subclass.h"
#if __has_include("check.h")   /* the value checks of rpd_open-level users */
#include "check.h"
#define HAVE_CHECK_H 1
#endif

/* The tables filled, in order (referenced ids are small, so joins hit). */
static const char *const tables[] = {
  "rocpd_string", "rocpd_ustring", "rocpd_api", "rocpd_op", "rocpd_api_ops",
  "rocpd_kernelapi", "rocpd_copyapi", "rocpd_metadata",
};

/* The views read after the build. */
static const char *const views[] = {
  "api", "op", "busy", "top", "ktop", "kernel", "copy", "copyop", "stackframe",
};

typedef struct gen {
  fz f;
  int64_t clock;   /* the running timestamp of kind 8 */
} gen;

/* Bind one value chosen by the input to parameter i of st. */
static void bind_value(gen *g, sqlite3_stmt *st, int i)
{
  static const int64_t extremes[] = {
    INT64_MIN, INT64_MAX, -1, 0, (int64_t)1 << 62, INT64_MIN + 1, INT64_MAX - 1,
    1700000000000000000LL,
  };
  size_t len;
  const char *s;

  switch (fz_byte(&g->f) % 10) {
  case 0:
    sqlite3_bind_null(st, i);
    break;
  case 1:
    sqlite3_bind_int64(st, i, fz_byte(&g->f));
    break;
  case 2:
    sqlite3_bind_int64(st, i, (int16_t)fz_bits(&g->f, 2));
    break;
  case 3:
    sqlite3_bind_int64(st, i, (int64_t)fz_bits(&g->f, 8));
    break;
  case 4:
    sqlite3_bind_int64(st, i, extremes[fz_byte(&g->f) % 8]);
    break;
  case 5: {
    uint64_t bits = fz_bits(&g->f, 8);
    double d;
    memcpy(&d, &bits, sizeof d);
    sqlite3_bind_double(st, i, d);
    break;
  }
  case 6:
    s = fz_bytes(&g->f, 64, &len);
    sqlite3_bind_text(st, i, s, (int)len, SQLITE_TRANSIENT);
    break;
  case 7:
    s = fz_bytes(&g->f, 16, &len);
    sqlite3_bind_blob(st, i, s, (int)len, SQLITE_TRANSIENT);
    break;
  case 8:
    g->clock += (int64_t)fz_byte(&g->f) - 16;
    sqlite3_bind_int64(st, i, g->clock);
    break;
  default:
    sqlite3_bind_int64(st, i, 1 + fz_byte(&g->f) % 8);
  }
}

/* Insert up to 15 rows into table, every column from the input. */
static void fill(sqlite3 *db, gen *g, const char *table)
{
  sqlite3_stmt *st = NULL;
  char *sql;
  int ncols = 0, nrows = (int)(fz_byte(&g->f) % 16);
  sqlite3_str *cols = sqlite3_str_new(db), *qs = sqlite3_str_new(db);
  char *c, *q;

  sql = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", table);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW) {
      sqlite3_str_appendf(cols, "%s\"%w\"", ncols ? ", " : "", sqlite3_column_text(st, 0));
      sqlite3_str_appendf(qs, "%s?", ncols ? ", " : "");
      ncols++;
    }
  sqlite3_finalize(st);
  sqlite3_free(sql);
  c = sqlite3_str_finish(cols);
  q = sqlite3_str_finish(qs);
  sql = sqlite3_mprintf("INSERT OR IGNORE INTO \"%w\" (%s) VALUES (%s)", table, c, q);
  if (ncols && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
    for (int r = 0; r < nrows && g->f.n; r++) {
      for (int i = 1; i <= ncols; i++)
        bind_value(g, st, i);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
  }
  sqlite3_free(sql);
  sqlite3_free(c);
  sqlite3_free(q);
}

/* Stream SELECT * FROM view through a writer of format fmt into out. */
static void read_view(rpd *r, const char *view, FILE *out, rpd_fmt fmt)
{
  sqlite3_stmt *st = NULL;
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" LIMIT 200", view);

  if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) == SQLITE_OK)
    rpd_out_stmt(r, st, out, fmt);
  sqlite3_finalize(st);
  sqlite3_free(sql);
}

/* A fresh in-memory database holding an empty trace of the schema: a copy
 * (backup API) of a template made once per schema, much faster than
 * running the DDL and installing the views every time. */
static sqlite3 *fresh_trace(int schema)
{
  static sqlite3 *tmpl[2];
  sqlite3 **t = &tmpl[schema == 2], *db = NULL;
  sqlite3_backup *b;

  if (!*t) {
    rpd r = {0};
    char path[] = "template.rpd";
    if (sqlite3_open(":memory:", &r.db) != SQLITE_OK)
      fz_fail("cannot open an in-memory database", NULL);
    r.schema = schema;
    r.path = path;
    if (rpd_schema_create(&r) != RPD_OK)   /* the embedded schema always installs */
      fz_fail("rpd_schema_create failed", rpd_errmsg());
    *t = r.db;
  }
  if (sqlite3_open(":memory:", &db) != SQLITE_OK || !(b = sqlite3_backup_init(db, "main", *t, "main")))
    fz_fail("cannot copy the template trace", NULL);
  sqlite3_backup_step(b, -1);
  if (sqlite3_backup_finish(b) != SQLITE_OK)
    fz_fail("cannot copy the template trace", sqlite3_errmsg(db));
  return db;
}

/* Subclass tables (base api and op) whose events are the first strings of
 * the trace, in the caller's transaction. */
static void subclasses(rpd *r)
{
  static const char *const types[] = {"size", "integer", NULL};
  sqlite3_stmt *st = NULL;
  char *names[4];
  size_t n = 0;

  if (sqlite3_prepare_v2(r->db, "SELECT string FROM rocpd_string ORDER BY id LIMIT 4", -1,
                         &st, NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW && n < 4)
      names[n++] = rpd_xstrdup((const char *)sqlite3_column_text(st, 0) ?
                               (const char *)sqlite3_column_text(st, 0) : "");
  sqlite3_finalize(st);
  for (int i = 0; i < 2; i++) {
    rpd_subclass sc = {i ? "op" : "api", "fuzz", (const char *const *)names, n, types, NULL};
    int64_t rows;
    rpd_subclass_build(r, &sc, &rows);
  }
  while (n)
    free(names[--n]);
}

/* The health checks counted in C and by the SQL alone: the same counts (or
 * the same error). */
static void health_agree(rpd *r)
{
  rpd_health a = {0}, b = {0};
  unsetenv("RPD_HEALTH_SQL");
  int ra = rpd_health_run(r, &a);
  rpd_clearerr();
  setenv("RPD_HEALTH_SQL", "1", 1);
  int rb = rpd_health_run(r, &b);
  rpd_clearerr();
  unsetenv("RPD_HEALTH_SQL");
  if (ra != rb)
    fz_fail("health: the C counts and the SQL end differently", NULL);
  for (int i = 0; !ra && i < a.n && i < b.n; i++)
    if (a.row[i].count != b.row[i].count)
      fz_fail("health: a count in C differs from its SQL", a.row[i].check);
  if (!ra)
    rpd_health_free(&a);
  if (!rb)
    rpd_health_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static FILE *devnull;
  gen g = {{data, size}, 1000};
  rpd r = {0};
  char path[] = "fuzz.rpd", *v = NULL;
  rpd_strtab *t = NULL;
  int64_t id;

  if (!devnull && !(devnull = fopen("/dev/null", "w")))
    fz_fail("cannot open /dev/null", NULL);
  r.schema = fz_byte(&g.f) & 1 ? 2 : 3;
  r.db = fresh_trace(r.schema);
  r.path = path;
  r.flags = RPD_WRITE;
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
    fill(r.db, &g, tables[i]);

  /* what rpd_open checks */
  r.schema = rpd_detect_schema(r.db, NULL);
  if (r.schema) {
    rpd_callstack_stats cs;
#ifdef HAVE_CHECK_H
    rpd_check_trace(&r);
#endif
    if (rpd_begin(&r) == RPD_OK) {
      /* one input in two with a reorder buffer of 2 calls, so the walk
       * pops early and its fallbacks (the C sort, SQLite's) run too */
      rpd_callstack_set_sort_limit(size & 1 ? 2 : 0);
      rpd_callstack_build(&r, &cs);
      rpd_callstack_set_sort_limit(0);
      subclasses(&r);
      rpd_rollback(&r);
    }
    health_agree(&r);
    for (size_t i = 0; i < sizeof views / sizeof *views; i++)
      read_view(&r, views[i], devnull, (rpd_fmt)((i + size) % 3));
    if (rpd_meta_get(&r, "schema_version", &v) == RPD_OK)
      free(v);
    if (rpd_strtab_open(&r, "rocpd_string", &t) == RPD_OK) {
      rpd_strtab_find(t, "UserMarker", &id);
      rpd_strtab_free(t);
    }
  }
  rpd__opclass_drop(&r);   /* what rpd_close frees of a handle */
  sqlite3_close(r.db);
  return 0;
}
