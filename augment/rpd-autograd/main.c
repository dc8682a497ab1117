/* links: rpd-import */
/* rpd-autograd - add the PyTorch autograd subclass table ext_autogradapi. */
#include "opt.h"

static const rpd_help help = {
  .usage = "usage: rpd-autograd FILE [-o OUT] [--skip-callstacks] [--force]",
  .about =
    "Parse the UserMarker ranges PyTorch's emit_nvtx() writes\n"
    "  NAME, seq = N, op_id = N, sizes = S, input_op_ids = I\n"
    "  NAME, op_id = N, sizes = S, input_op_ids = I\n"
    "  NAME, seq = N, op_id = N\n"
    "  NAME, op_id = N\n"
    "into the table ext_autogradapi(api_ptr_id, autogradName_id, seq, op_id,\n"
    "sizes, input_op_ids) (missing fields are '') with the view autograd, in\n"
    "one transaction.  The calls stay UserMarker.  Unless --skip-callstacks, the\n"
    "call stack is built too (or reused when the trace has one) and the views\n"
    "_callstack_autograd_kernel, _callstack_autograd_kernel_exclusive,\n"
    "_autogradKernel and autogradKernel(autogradName, kernelName, sizes, calls,\n"
    "avg_gpu, total_gpu) are added.",
  .notes =
    "Prints one summary line, with the number of marker calls that carry\n"
    "autograd fields but match none of the forms.\n"
    "Example: rpd-autograd trace.rpd && sqlite3 trace.rpd \\\n"
    "  'select * from autogradKernel order by total_gpu desc limit 10'\n",
};

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "autograd_parse.h"
#include "callstack.h"
#include "check.h"
#include "rpd.h"
#include "opt.h"
#include "readdirect.h"  /* -o OUT from a rocprofv3 database or Kineto trace */

#define TABLE_TAG "Autograd::Table"
#define DONE_TAG "Autograd::Generated"
#define REF_TAG "references::rocpd_string.id"
#define REF_VALUE "(\"ext_autogradapi\", \"autogradName_id\")"

static const char table_sql[] =
    "CREATE TABLE IF NOT EXISTS \"ext_autogradapi\" ("
    "\"api_ptr_id\" integer NOT NULL PRIMARY KEY REFERENCES \"rocpd_api\" "
    "(\"id\") DEFERRABLE INITIALLY DEFERRED, "
    "\"autogradName_id\" integer NOT NULL REFERENCES \"rocpd_string\" (\"id\") "
    "DEFERRABLE INITIALLY DEFERRED, "
    "\"seq\" integer NOT NULL, \"op_id\" integer NOT NULL, "
    "\"sizes\" varchar(4096) NOT NULL, "
    "\"input_op_ids\" varchar(4096) NOT NULL);"
    "CREATE VIEW IF NOT EXISTS \"autograd\" AS SELECT B.id, pid, tid, start, "
    "end, C.string AS autogradName, seq, op_id, sizes, input_op_ids FROM "
    "ext_autogradapi A JOIN rocpd_api B ON B.id = A.api_ptr_id JOIN "
    "rocpd_string C ON C.id = A.autogradName_id;";

static const char drop_sql[] =
    "DROP VIEW IF EXISTS autogradKernel;"
    "DROP VIEW IF EXISTS _autogradKernel;"
    "DROP VIEW IF EXISTS _callstack_autograd_kernel_exclusive;"
    "DROP VIEW IF EXISTS _callstack_autograd_kernel;"
    "DROP VIEW IF EXISTS autograd;"
    "DROP TABLE IF EXISTS ext_autogradapi;";

/* The marker calls; those carrying autograd fields (case-sensitive, like
 * the patterns that parse them) are picked in C: one pass over the text
 * instead of SQLite's instr() four times. */
static const char select_fmt[] =
    "SELECT A.id, S.string FROM rocpd_api A JOIN \"%w\" S ON S.id = A.args_id "
    "WHERE A.apiName_id IN (SELECT id FROM rocpd_string "
    "WHERE string = 'UserMarker') ORDER BY A.id";
/* The same when 'UserMarker' has one id (as always but in a hand-merged
 * trace), bound as ?1: a comparison per call instead of a look-up in the
 * subquery's temporary index. */
static const char select_one_fmt[] =
    "SELECT A.id, S.string FROM rocpd_api A JOIN \"%w\" S ON S.id = A.args_id "
    "WHERE A.apiName_id = ?1 ORDER BY A.id";

/* Rows are inserted BATCH at a time through one multi-row statement (the
 * per-statement overhead dominates one-row INSERTs); the tail one by one. */
#define BATCH 256
static const char insert_head[] =
    "INSERT INTO ext_autogradapi(api_ptr_id, autogradName_id, seq, op_id, "
    "sizes, input_op_ids) VALUES ";

typedef struct ctx {
  int skip_callstacks, built;
  int64_t markers, rows, unmatched, first_unmatched;
  const char *callstack;  /* "built", "reused", "skipped" */
  int counted;            /* old_rows is known */
  int64_t old_rows;       /* rows of an existing ext_autogradapi */
  rpd_callstack_stats cs;
} ctx;

/* The columns of ext_autogradapi as table_sql creates them. */
static const char *const table_cols[] = {
    "api_ptr_id", "autogradName_id", "seq", "op_id", "sizes", "input_op_ids",
    NULL};

/* Drop our table and views (never a table of another shape), after
 * counting the rows it had (c->old_rows, the first time). */
static int drop(rpd *r, void *vc) {
  ctx *c = vc;
  int rc = rpd_check_owned(r, "ext_autogradapi", table_cols);
  if (rc == RPD_OK && !c->counted && rpd_table_exists(r, "ext_autogradapi"))
    rc = rpd_query_int64(r, "SELECT count(*) FROM ext_autogradapi", &c->old_rows);
  c->counted = 1;
  if (rc == RPD_OK) rc = rpd_exec(r, drop_sql);
  if (rc == RPD_OK) rc = rpd_meta_clear(r, TABLE_TAG);
  if (rc == RPD_OK) rc = rpd_meta_clear(r, DONE_TAG);
  if (rc == RPD_OK && rpd_table_exists(r, "rocpd_metadata"))
    rc = rpd_execf(r, "DELETE FROM rocpd_metadata WHERE tag = %Q AND value = %Q",
                   REF_TAG, REF_VALUE);
  return rc;
}

typedef struct pending {
  int64_t api_id, name_id;
  size_t off[4], len[4];   /* seq, op_id, sizes, input_op_ids in text */
} pending;

typedef struct batch {
  rpd *r;
  sqlite3_stmt *many, *one;
  pending rows[BATCH];
  int n;
  rpd_buf text;            /* the pending rows' field texts */
} batch;

static int prepare_insert(rpd *r, int rows, sqlite3_stmt **st) {
  rpd_buf b = {0};
  rpd_buf_puts(&b, insert_head);
  for (int i = 0; i < rows; i++) rpd_buf_puts(&b, i ? ",(?,?,?,?,?,?)" : "(?,?,?,?,?,?)");
  int rc = rpd_prepare(r, b.s, st);
  rpd_buf_free(&b);
  return rc;
}

/* The value of a run of n <= 18 decimal digits. */
static int64_t digits_value(const char *t, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) v = 10 * v + (t[i] - '0');
  return v;
}

/* Insert `rows` pending rows from index `from` with statement s.  seq and
 * op_id are digit runs (or ''): bound as integers when they surely fit,
 * else as text, which the integer columns' affinity converts like the
 * reference's bound text (and keeps ''). */
static int insert_rows(batch *b, sqlite3_stmt *s, int rows, int from) {
  for (int i = 0; i < rows; i++) {
    const pending *p = &b->rows[from + i];
    sqlite3_bind_int64(s, 6 * i + 1, p->api_id);
    sqlite3_bind_int64(s, 6 * i + 2, p->name_id);
    for (int k = 0; k < 4; k++) {
      const char *t = b->text.s ? b->text.s + p->off[k] : "";
      if (k < 2 && p->len[k] > 0 && p->len[k] <= 18)  /* digits: fits */
        sqlite3_bind_int64(s, 6 * i + 3 + k, digits_value(t, p->len[k]));
      else
        sqlite3_bind_text(s, 6 * i + 3 + k, t, (int)p->len[k], SQLITE_STATIC);
    }
  }
  int rc = rpd_step(b->r, s);
  sqlite3_reset(s);
  return rc < 0 ? -rc : RPD_OK;
}

static int flush(batch *b) {
  int rc = RPD_OK;
  if (b->n == BATCH)
    rc = insert_rows(b, b->many, BATCH, 0);
  else
    for (int i = 0; i < b->n && rc == RPD_OK; i++) rc = insert_rows(b, b->one, 1, i);
  b->n = 0;
  rpd_buf_reset(&b->text);
  return rc;
}

/* The autograd names seen last, by a hash of their bytes: a model's few
 * hundred op names repeat on every step, so most markers find theirs here
 * instead of copying it for the interning table's look-up. */
#define NAME_SLOTS 512
typedef struct name_slot {
  char *s;                 /* NULL: empty */
  size_t n;
  int64_t id;
} name_slot;

static size_t name_hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull ^ n;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return (size_t)(h ^ h >> 29) & (NAME_SLOTS - 1);
}

/* The rocpd_string id of the n bytes at s (interned when new). */
static int name_id(name_slot *cache, rpd_strtab *names, const char *s, size_t n, int64_t *id) {
  name_slot *e = &cache[name_hash(s, n)];
  if (e->s && e->n == n && !memcmp(e->s, s, n)) {
    *id = e->id;
    return RPD_OK;
  }
  char *name = rpd_xmalloc(n + 1);
  memcpy(name, s, n);
  name[n] = 0;
  int rc = rpd_strtab_id(names, name, id);
  if (rc != RPD_OK) {
    free(name);
    return rc;
  }
  free(e->s);
  *e = (name_slot){name, n, *id};
  return RPD_OK;
}

/* Queue one parsed marker; autogradName interned in rocpd_string. */
static int add_row(batch *b, rpd_strtab *names, name_slot *cache, int64_t api_id,
                   const rpd_autograd_fields *f) {
  const rpd_span *sp[4] = {&f->seq, &f->op_id, &f->sizes, &f->input_op_ids};
  pending *p = &b->rows[b->n];
  int rc = name_id(cache, names, f->name.p, f->name.n, &p->name_id);
  if (rc != RPD_OK) return rc;
  p->api_id = api_id;
  for (int k = 0; k < 4; k++) {
    p->off[k] = b->text.len;
    p->len[k] = sp[k]->n;
    rpd_buf_add(&b->text, sp[k]->p, sp[k]->n);
  }
  return ++b->n == BATCH ? flush(b) : RPD_OK;
}

static int fill(rpd *r, ctx *c) {
  sqlite3_stmt *sel = NULL;
  batch b = {.r = r};
  rpd_strtab *names = NULL;
  rpd_autograd_parser *parser = NULL;
  name_slot *cache = rpd_xcalloc(NAME_SLOTS, sizeof *cache);
  int64_t nmarker = 0, marker = 0;
  int rc = rpd_query_int64(r, "SELECT count(*) FROM rocpd_string WHERE string = 'UserMarker'",
                           &nmarker);
  if (rc == RPD_OK && nmarker == 1)
    rc = rpd_query_int64(r, "SELECT id FROM rocpd_string WHERE string = 'UserMarker'", &marker);
  char *sql = rc != RPD_OK ? NULL
              : sqlite3_mprintf(nmarker == 1 ? select_one_fmt : select_fmt, rpd_args_table(r));
  if (rc == RPD_OK) rc = sql ? rpd_prepare(r, sql, &sel) : RPD_ENOMEM;
  if (rc == RPD_OK && nmarker == 1) sqlite3_bind_int64(sel, 1, marker);
  int s = SQLITE_DONE;
  sqlite3_free(sql);
  if (rc == RPD_OK) rc = prepare_insert(r, BATCH, &b.many);
  if (rc == RPD_OK) rc = prepare_insert(r, 1, &b.one);
  if (rc == RPD_OK) rc = rpd_strtab_open(r, "rocpd_string", &names);
  if (rc == RPD_OK) rc = rpd_autograd_parser_new(&parser);
  while (rc == RPD_OK && (s = rpd_step(r, sel)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(sel, 0);
    const char *text = (const char *)sqlite3_column_text(sel, 1);
    size_t len = (size_t)sqlite3_column_bytes(sel, 1);
    rpd_autograd_fields f;
    if (!text || !rpd_autograd_candidate_n(text, len)) continue;
    c->markers++;
    if (rpd_autograd_parse(parser, text, len, &f)) {
      rc = add_row(&b, names, cache, id, &f);
      c->rows++;
    } else if (c->unmatched++ == 0) {
      c->first_unmatched = id;
    }
  }
  if (rc == RPD_OK && s < 0) rc = -s;
  if (rc == RPD_OK) rc = flush(&b);
  rpd_autograd_parser_free(parser);
  for (size_t i = 0; i < NAME_SLOTS; i++) free(cache[i].s);
  free(cache);
  rpd_strtab_free(names);
  sqlite3_finalize(b.many);
  sqlite3_finalize(b.one);
  rpd_buf_free(&b.text);
  sqlite3_finalize(sel);
  return rc;
}

/* The call stack: reuse a complete one, else build it. */
static int callstack(rpd *r, ctx *c) {
  if (rpd_callstack_present(r)) {
    c->callstack = "reused";
    return RPD_OK;
  }
  c->callstack = "built";
  int rc = rpd_callstack_build(r, &c->cs);
  if (rc == RPD_OK) rc = rpd_meta_set(r, RPD_CALLSTACK_DONE_TAG, "True");
  return rc;
}

static int build(rpd *r, void *vc) {
  ctx *c = vc;
  /* the trace check (the driver leaves it to us): folded into the call
   * stack's scans when one is built, else its own scans first */
  int rc = c->skip_callstacks || rpd_callstack_present(r) ? rpd_check_trace(r) : RPD_OK;
  if (rc == RPD_OK) rc = drop(r, c);  /* leftovers of an interrupted reference run */
  if (rc == RPD_OK) rc = rpd_exec(r, table_sql);
  if (rc == RPD_OK) rc = rpd_meta_add(r, REF_TAG, REF_VALUE);
  if (rc == RPD_OK) rc = rpd_meta_set(r, TABLE_TAG, "True");
  rpd_progress_sql(r, "markers", "rocpd_api");
  if (rc == RPD_OK) rc = fill(r, c);
  rpd_progress_end();
  /* --force on a trace whose markers were cleaned (rpd-strings
   * --clean-autograd) would replace the rows by fewer: keep them */
  if (rc == RPD_OK && c->rows < c->old_rows)
    rc = rpd_seterr(RPD_ERR, "the markers yield %" PRId64 " autograd rows but "
                    "ext_autogradapi has %" PRId64 " (markers cleaned with rpd-strings "
                    "--clean-autograd?); the existing rows are kept", c->rows,
                    c->old_rows);
  c->callstack = "skipped";
  if (rc == RPD_OK && !c->skip_callstacks) rc = callstack(r, c);
  if (rc == RPD_OK && !c->skip_callstacks)
    rc = rpd_view_install(r, "autograd");
  if (rc == RPD_OK) rc = rpd_meta_set(r, DONE_TAG, "True");
  c->built = rc == RPD_OK;
  return rc;
}

static void summary(void *vc) {
  const ctx *c = vc;
  if (!c->built) return;
  printf("%s: %" PRId64 " autograd markers, %" PRId64 " rows, %" PRId64
         " unmatched",
         rpd_progname, c->markers, c->rows, c->unmatched);
  if (c->unmatched) printf(" (first: api id %" PRId64 ")", c->first_unmatched);
  printf("; call stack %s", c->callstack);
  if (strcmp(c->callstack, "built") == 0)
    printf(" (%" PRId64 " rows, %" PRId64 " overlapping calls)", c->cs.rows,
           c->cs.overlaps);
  printf("\n");
}

int main(int argc, char **argv) {
  rpd_set_import_reader(rpdi_direct_read, NULL);
  ctx c = {0};
  const rpd_opt opts[] = {
      RPD_OPT_FLAG("--skip-callstacks|--skip_callstacks", &c.skip_callstacks,
                   .help = "no call stack and no autogradKernel views"),
      RPD_OPT_END(),
  };
  const rpd_augment a = {
      .help = &help,
      .what = "autograd data",
      .done_tag = DONE_TAG,
      .opts = opts,
      .drop = drop,
      .build = build,
      .ctx = &c,
      .summary = summary,
      .checks_itself = 1,
  };
  return rpd_augment_main(&a, argc, argv);
}
