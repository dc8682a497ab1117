/* db.c - rpd-import: a rocprofv3 SQLite database (rocprofiler-sdk "rocpd"
 * schema), opened read only and never modified.
 *
 * rocprofv3 writes one set of tables per process, suffixed with its guid
 * (rocpd_region_<guid>, ...), behind UNION ALL views (rocpd_region, ...).
 * Every query here runs on the physical per-guid tables, one guid at a
 * time, so each join is a primary-key lookup (O(log n)) and never a scan
 * through a compound view.  Region arguments are merged in one ordered pass:
 * regions and rocpd_arg rows are both read in event_id order and advanced
 * together (see db_regions), so the import is linear when the rows come in
 * that order (rocprofv3 writes them so) and O(n log n) otherwise, and
 * memory stays flat: the only per-guid state is the kernel symbol table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "import.h"
#include "kinds.h"   /* record-kind tables: db_kinds.c */
#include "pipe.h"    /* the writer thread, paused around savepoints */

/* The per-guid table set: name of table `base` for guid suffix `sfx`
 * ("" = the unsuffixed tables of a database without guids). */
static char *tname(const char *base, const char *sfx)
{
  return *sfx ? rpd_xasprintf("%s_%s", base, sfx) : rpd_xstrdup(base);
}

static int64_t col_i64(sqlite3_stmt *st, int i) { return sqlite3_column_int64(st, i); }

static const char *col_txt(sqlite3_stmt *st, int i)
{
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? (const char *)t : "";
}

/* A GPU index column: NULL (no such agent) is -1. */
static int64_t col_gpu(sqlite3_stmt *st, int i)
{
  return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : col_i64(st, i);
}

/* Prepare `fmt` on the input after substituting the guid's table names:
 * each %s in fmt... is replaced by quoted table names built from bases[]. */
static int db_prepare(rpd *in, const char *sfx, const char *fmt,
                      const char *const *bases, int nb, sqlite3_stmt **st)
{
  char *q[6] = {0};
  for (int i = 0; i < nb && i < 6; i++) {
    char *t = tname(bases[i], sfx);
    q[i] = sqlite3_mprintf("\"%w\"", t);
    free(t);
  }
  char *sql = sqlite3_mprintf(fmt, q[0], q[1], q[2], q[3], q[4], q[5]);
  for (int i = 0; i < 6; i++)
    sqlite3_free(q[i]);
  int rc = rpd_prepare(in, sql, st);
  sqlite3_free(sql);
  return rc;
}

/* ------------------------------------------------------------ id lookups */

/* A small table read by id through a prepared point query, each id once:
 * the strings, processes and threads a region names are few and repeat
 * on every row, so caching them saves joins per row.  Bounded: past
 * IDC_MAX entries the cache starts over (memory stays flat even when
 * every marker message is its own string). */
enum { IDC_MAX = 1 << 16 };

typedef struct idcache {
  sqlite3_stmt *q;          /* one row, one column for ?1 = id */
  imap idx;                 /* id -> index into txt/num */
  char **txt;               /* text value ("" for NULL) */
  int64_t *num;             /* integer value (dflt for NULL) */
  int64_t dflt;             /* the integer of a NULL id, value or row */
  int n, cap;
} idcache;

static void idc_clear(idcache *c)
{
  for (int i = 0; i < c->n; i++)
    free(c->txt[i]);
  imap_free(&c->idx);
  c->n = 0;
}

static void idc_free(idcache *c)
{
  idc_clear(c);
  sqlite3_finalize(c->q);
  free(c->txt);
  free(c->num);
  memset(c, 0, sizeof *c);
}

/* The cache's slot for id (read on first use); -1 on a failure. */
static int idc_get(rpd *in, idcache *c, int64_t id)
{
  int64_t i;
  if (imap_get(&c->idx, id, &i))
    return (int)i;
  if (c->n >= IDC_MAX)
    idc_clear(c);
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 64;
    c->txt = rpd_xrealloc(c->txt, c->cap * sizeof *c->txt);
    c->num = rpd_xrealloc(c->num, c->cap * sizeof *c->num);
  }
  sqlite3_bind_int64(c->q, 1, id);
  int st = rpd_step(in, c->q);
  if (st < 0) {
    sqlite3_reset(c->q);
    return -1;
  }
  c->txt[c->n] = rpd_xstrdup(st == SQLITE_ROW ? col_txt(c->q, 0) : "");
  c->num[c->n] = st == SQLITE_ROW && sqlite3_column_type(c->q, 0) != SQLITE_NULL
                 ? col_i64(c->q, 0) : c->dflt;
  sqlite3_reset(c->q);
  imap_put(&c->idx, id, c->n);
  return c->n++;
}

/* Text of id in c ("" for a NULL id or a missing row); NULL on a failure. */
static const char *idc_txt(rpd *in, idcache *c, sqlite3_stmt *st, int col)
{
  if (sqlite3_column_type(st, col) == SQLITE_NULL)
    return "";
  int i = idc_get(in, c, col_i64(st, col));
  return i < 0 ? NULL : c->txt[i];
}

/* Integer of id in c (c->dflt for a NULL id or value or a missing row);
 * *ok = 0 on a failure. */
static int64_t idc_num(rpd *in, idcache *c, sqlite3_stmt *st, int col, int *ok)
{
  if (sqlite3_column_type(st, col) == SQLITE_NULL)
    return c->dflt;
  int i = idc_get(in, c, col_i64(st, col));
  if (i < 0)
    *ok = 0;
  return i < 0 ? c->dflt : c->num[i];
}

/* ------------------------------------------------------------ symbols */

/* Kernel symbols of one guid: symbol id -> (description id, full name id). */
typedef struct symtab {
  imap idx;                 /* symbol id -> index into desc/full */
  int64_t *desc, *full;
  int n, cap;
} symtab;

static void symtab_free(symtab *s)
{
  imap_free(&s->idx);
  free(s->desc);
  free(s->full);
  memset(s, 0, sizeof *s);
}

static const char db_syms_sql[] =
  "SELECT S.id, coalesce(nullif(S.display_name, ''), S.kernel_name, ''),"
  "       CASE WHEN json_valid(S.extdata) THEN"
  "         json_extract(S.extdata, '$.truncated_kernel_name') END"
  "  FROM %s S";

static int db_symbols(imp *m, rpd *in, const char *sfx, symtab *sy)
{
  static const char *const t[] = { "rocpd_info_kernel_symbol" };
  sqlite3_stmt *st = NULL;
  int rc = db_prepare(in, sfx, db_syms_sql, t, 1, &st), s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW) {
    if (sy->n == sy->cap) {
      sy->cap = sy->cap ? 2 * sy->cap : 64;
      sy->desc = rpd_xrealloc(sy->desc, sy->cap * sizeof *sy->desc);
      sy->full = rpd_xrealloc(sy->full, sy->cap * sizeof *sy->full);
    }
    rc = w_kernel_name(m, col_txt(st, 1), col_txt(st, 2), &sy->desc[sy->n],
                       &sy->full[sy->n]);
    if (!rc)
      imap_put(&sy->idx, col_i64(st, 0), sy->n++);
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* ------------------------------------------------------------ dispatches */

/* The agent (GPU index or -1) by id in an idcache, not a join per row. */
static const char db_kernels_sql[] =
  "SELECT K.agent_id,"
  "       K.queue_id, K.dispatch_id, K.start, K.end, E.stack_id, K.stream_id,"
  "       K.grid_size_x, K.grid_size_y, K.grid_size_z,"
  "       K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,"
  "       K.group_segment_size, K.private_segment_size, K.kernel_id"
  "  FROM %s K"
  "  LEFT JOIN %s E ON E.id = K.event_id"
  " ORDER BY K.id";
static const char db_agent_sql[] =
  "SELECT CASE WHEN type = 'GPU' THEN type_index ELSE -1 END FROM %s WHERE id = ?1";

static int db_kernel_row(imp *m, rpd *in, sqlite3_stmt *st, const symtab *sy,
                         idcache *agents)
{
  kern k = {0};
  int64_t si;
  int rc = RPD_OK, ok = 1;
  count_read(m, "kernel_dispatch", 1);
  prog_add(m, 1);
  k.gpu = idc_num(in, agents, st, 0, &ok);
  if (!ok)
    return RPD_ESQL;
  k.queue = col_i64(st, 1);
  k.seq = col_i64(st, 2);
  if ((rc = db_time(st, 3, "rocpd_kernel_dispatch", &k.start)) ||
      (rc = db_time(st, 4, "rocpd_kernel_dispatch", &k.end)))
    return rc;
  k.corr = col_i64(st, 5);
  k.stream = col_i64(st, 6);
  for (int i = 0; i < 3; i++) {
    k.grid[i] = col_i64(st, 7 + i);
    k.wg[i] = col_i64(st, 10 + i);
  }
  k.lds = col_i64(st, 13);
  k.scratch = col_i64(st, 14);
  if (imap_get(&sy->idx, col_i64(st, 15), &si)) {
    k.desc_id = sy->desc[si];
    k.name_id = sy->full[si];
  } else {
    char b[48];
    snprintf(b, sizeof b, "unknown_kernel_%" PRId64, col_i64(st, 15));
    rc = w_kernel_name(m, b, b, &k.desc_id, &k.name_id);
  }
  return rc ? rc : w_kernel(m, &k);
}

static int db_kernels(imp *m, rpd *in, const char *sfx, const symtab *sy)
{
  static const char *const t[] = { "rocpd_kernel_dispatch", "rocpd_event" };
  static const char *const ta[] = { "rocpd_info_agent" };
  sqlite3_stmt *st = NULL;
  idcache agents;
  memset(&agents, 0, sizeof agents);
  agents.dflt = -1;
  int rc = db_prepare(in, sfx, db_kernels_sql, t, 2, &st), s = SQLITE_DONE;
  if (!rc)
    rc = db_prepare(in, sfx, db_agent_sql, ta, 1, &agents.q);
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW)
    rc = db_kernel_row(m, in, st, sy, &agents);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  idc_free(&agents);
  return rc;
}

/* ------------------------------------------------------------ regions */

/* Regions in event order, with everything but their arguments; names,
 * categories, processes and threads by id (looked up in idcaches). */
static const char db_regions_sql[] =
  "SELECT R.event_id, E.stack_id, R.pid, R.tid,"
  "       R.start, R.end, R.name_id, E.category_id"
  "  FROM %s R"
  "  LEFT JOIN %s E ON E.id = R.event_id"
  " ORDER BY %s";

/* The point queries of the region lookups: string, pid, tid by id. */
static const char *const db_lookup_sql[] = {
  "SELECT string FROM %s WHERE id = ?1",
  "SELECT pid FROM %s WHERE id = ?1",
  "SELECT tid FROM %s WHERE id = ?1" };
static const char *const db_lookup_tab[] = {
  "rocpd_string", "rocpd_info_process", "rocpd_info_thread" };

/* Arguments in the same event order. */
static const char db_args_sql[] =
  "SELECT event_id, name, value, position FROM %s"
  " WHERE event_id IS NOT NULL ORDER BY %s";

static const char *db_domain(const char *cat, const char **kind)
{
  if (!strncmp(cat, "HIP", 3)) { *kind = "hip_api"; return "HIP"; }
  if (!strncmp(cat, "HSA", 3)) { *kind = "hsa_api"; return "HSA"; }
  if (!strncmp(cat, "MARKER", 6)) { *kind = "marker_api"; return "ROCTX"; }
  if (!strncmp(cat, "RCCL", 4)) { *kind = "rccl_api"; return "RCCL"; }
  /* the CSV and JSON readers' domains */
  if (!strncmp(cat, "ROCDECODE", 9)) { *kind = "rocdecode_api"; return "ROCDECODE"; }
  if (!strncmp(cat, "ROCJPEG", 7)) { *kind = "rocjpeg_api"; return "ROCJPEG"; }
  *kind = "region"; return cat;
}

/* The merge of regions and args.  In the rowid-order pass (`check` set)
 * it watches that both really come in (event_id, position) order and
 * stops with `disorder` set at the first row that does not. */
typedef struct merge {
  sqlite3_stmt *st;         /* the args query */
  idcache str, proc, thr;   /* region lookups (db_lookup_sql) */
  rpd_buf name;             /* the current region's name */
  rpd *in;
  imp *m;                   /* progress: one row per arg read */
  int have;                 /* st holds a row */
  int64_t ev, pos;          /* its event id and position */
  int check, disorder;
  int64_t last_region_ev;
} merge;

static int arg_next(merge *a)
{
  int s = rpd_step(a->in, a->st);
  int64_t pe = a->ev, pp = a->pos;
  a->have = s == SQLITE_ROW;
  if (a->have) {
    prog_add(a->m, 1);
    a->ev = col_i64(a->st, 0);
    a->pos = col_i64(a->st, 3);
    if (a->check && (a->ev < pe || (a->ev == pe && a->pos < pp)))
      a->disorder = 1;
  }
  return s < 0 ? -s : RPD_OK;
}

/* Append the args of event ev to b ("name=value | ..."), advancing the
 * cursor past them (and past args of events that have no region). */
static int arg_collect(merge *a, int64_t ev, rpd_buf *b)
{
  int rc = RPD_OK;
  rpd_buf_reset(b);
  rpd_buf_add(b, "", 0);
  while (!rc && !a->disorder && a->have && a->ev < ev)
    rc = arg_next(a);
  while (!rc && !a->disorder && a->have && a->ev == ev) {
    if (b->len)
      rpd_buf_add(b, " | ", 3);
    const char *k = col_txt(a->st, 1);
    rpd_buf_add(b, k, (size_t)sqlite3_column_bytes(a->st, 1));
    rpd_buf_add(b, "=", 1);
    k = col_txt(a->st, 2);
    rpd_buf_add(b, k, (size_t)sqlite3_column_bytes(a->st, 2));
    rc = arg_next(a);
  }
  return rc;
}

static int db_region_row(imp *m, sqlite3_stmt *st, merge *mg)
{
  apirec a = {0};
  const char *kind;
  int rc = RPD_OK;
  prog_add(m, 1);
  rpd_buf_reset(&m->args);
  rpd_buf_add(&m->args, "", 0);
  if (!m->lean && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    int64_t ev = col_i64(st, 0);
    if (mg->check && ev < mg->last_region_ev)
      mg->disorder = 1;
    mg->last_region_ev = ev;
    rc = arg_collect(mg, ev, &m->args);
  }
  if (rc || mg->disorder)
    return rc;
  int ok = 1;
  a.corr = col_i64(st, 1);
  a.pid = idc_num(mg->in, &mg->proc, st, 2, &ok);
  a.tid = idc_num(mg->in, &mg->thr, st, 3, &ok);
  if ((rc = db_time(st, 4, "rocpd_region", &a.start)) ||
      (rc = db_time(st, 5, "rocpd_region", &a.end)))
    return rc;
  a.name = idc_txt(mg->in, &mg->str, st, 6);
  /* the name's slot may move when the category is read: copy it */
  if (a.name) {
    rpd_buf_reset(&mg->name);
    rpd_buf_puts(&mg->name, a.name);
    a.name = mg->name.s ? mg->name.s : "";
  }
  a.category = idc_txt(mg->in, &mg->str, st, 7);
  if (!ok || !a.name || !a.category)
    return RPD_ESQL;
  a.args = m->args.s;
  a.domain = db_domain(a.category, &kind);
  if (!strcmp(kind, "marker_api")) {
    a.args = a.name;
    a.name = "UserMarker";
  }
  count_read(m, kind, 1);
  return w_api(m, &a);
}

/* One pass over the regions of a guid: in rowid order (rowid = 1, which
 * sets *disorder and stops if the rows are not in event order) or sorted
 * by event id by SQLite (rowid = 0). */
static int db_regions_pass(imp *m, rpd *in, const char *sfx, int rowid, int *disorder)
{
  static const char *const t[] = { "rocpd_region", "rocpd_event" };
  static const char *const ta[] = { "rocpd_arg" };
  sqlite3_stmt *st = NULL;
  merge mg;
  memset(&mg, 0, sizeof mg);
  mg.in = in;
  mg.m = m;
  mg.ev = mg.pos = mg.last_region_ev = INT64_MIN;
  mg.check = rowid;
  char *rsql = sqlite3_mprintf(db_regions_sql, "%s", "%s",
                               rowid ? "R.id" : "R.event_id, R.id");
  char *asql = sqlite3_mprintf(db_args_sql, "%s", rowid ? "id" : "event_id, position, id");
  int rc = db_prepare(in, sfx, rsql, t, 2, &st), s = SQLITE_DONE;
  if (!rc && !m->lean)
    rc = db_prepare(in, sfx, asql, ta, 1, &mg.st);
  idcache *lk[] = { &mg.str, &mg.proc, &mg.thr };
  for (int i = 0; i < 3 && !rc; i++)
    rc = db_prepare(in, sfx, db_lookup_sql[i], &db_lookup_tab[i], 1, &lk[i]->q);
  sqlite3_free(rsql);
  sqlite3_free(asql);
  if (!rc && mg.st)
    rc = arg_next(&mg);
  while (!rc && !mg.disorder && (s = rpd_step(in, st)) == SQLITE_ROW)
    rc = db_region_row(m, st, &mg);
  if (!rc && s < 0)
    rc = -s;
  /* args left over after the last region must be in order too */
  while (!rc && rowid && !mg.disorder && mg.have)
    rc = arg_next(&mg);
  sqlite3_finalize(st);
  sqlite3_finalize(mg.st);
  for (int i = 0; i < 3; i++)
    idc_free(lk[i]);
  rpd_buf_free(&mg.name);
  if (disorder)
    *disorder = mg.disorder;
  return rc;
}

/* What a region pass changes in the writer, to undo a pass. */
typedef struct region_undo {
  int64_t n_api, n_dup_api, max_api, next_ustr, prog_done;
  kindcount kinds[32];
  int nkinds;
} region_undo;

/* The regions of a guid.  rocprofv3 writes regions and args in event
 * order, so the first pass reads both in rowid order (no sort) and merges
 * them; should a row come out of order, that pass is rolled back (a
 * savepoint in the output) and the regions are read again sorted. */
static int db_regions(imp *m, rpd *in, const char *sfx)
{
  region_undo u;
  int disorder = 0;
  /* the writer thread (pipe.c) idle while the savepoint is opened and
   * the counters it adds to (n_api, n_dup_api) are read */
  int rc = pipe_pause(m);
  if (!rc)
    rc = w_flush(m);
  if (!rc)
    rc = rpd_exec(m->r, "SAVEPOINT rpd_import_regions");
  u.n_api = m->n_api;
  u.n_dup_api = m->n_dup_api;
  u.max_api = m->max_api;
  u.next_ustr = m->next_ustr;
  u.prog_done = m->prog_done;
  memcpy(u.kinds, m->kinds, sizeof u.kinds);
  u.nkinds = m->nkinds;
  pipe_resume(m);
  if (rc)
    return rc;
  rc = db_regions_pass(m, in, sfx, 1, &disorder);
  if (!rc && disorder) {
    /* what was handed over is written (and undone with the rest) */
    rc = pipe_pause(m);
    w_discard(m);
    if (!rc)
      rc = rpd_exec(m->r, "ROLLBACK TO rpd_import_regions");
    m->n_api = u.n_api;
    m->n_dup_api = u.n_dup_api;
    m->max_api = u.max_api;
    m->next_ustr = u.next_ustr;
    prog_at(m, u.prog_done);
    memcpy(m->kinds, u.kinds, sizeof u.kinds);
    m->nkinds = u.nkinds;
    m->n_sorted_guids++;
    if (!rc)
      rc = w_strings_reload(m);
    pipe_resume(m);
    if (!rc)
      rc = db_regions_pass(m, in, sfx, 0, NULL);
  }
  int prc = pipe_pause(m);
  if (!rc)
    rc = prc;
  if (!rc)
    rc = w_flush(m);
  if (!rc)
    rc = rpd_exec(m->r, "RELEASE rpd_import_regions");
  pipe_resume(m);
  return rc;
}

/* ------------------------------------------------------------ copies */

static const char db_copies_sql[] =
  "SELECT coalesce(N.string, ''),"
  "  CASE WHEN S.type = 'GPU' THEN S.type_index ELSE -1 END,"
  "  CASE WHEN D.type = 'GPU' THEN D.type_index ELSE -1 END,"
  "  M.start, M.end, E.stack_id, M.size, coalesce(M.stream_id, 0)"
  "  FROM %s M"
  "  LEFT JOIN %s N ON N.id = M.name_id"
  "  LEFT JOIN %s E ON E.id = M.event_id"
  "  LEFT JOIN %s S ON S.id = M.src_agent_id"
  "  LEFT JOIN %s D ON D.id = M.dst_agent_id"
  " ORDER BY M.id";

static int db_copy_row(imp *m, sqlite3_stmt *st)
{
  copyrec c = {0};
  count_read(m, "memory_copy", 1);
  prog_add(m, 1);
  c.kind = copy_kind(col_txt(st, 0));
  c.src_gpu = col_gpu(st, 1);
  c.dst_gpu = col_gpu(st, 2);
  int rc;
  if ((rc = db_time(st, 3, "rocpd_memory_copy", &c.start)) ||
      (rc = db_time(st, 4, "rocpd_memory_copy", &c.end)))
    return rc;
  c.corr = col_i64(st, 5);
  c.bytes = col_i64(st, 6);
  c.stream = col_i64(st, 7);
  return w_copy(m, &c);
}

static int db_copies(imp *m, rpd *in, const char *sfx)
{
  static const char *const t[] = {
    "rocpd_memory_copy", "rocpd_string", "rocpd_event", "rocpd_info_agent",
    "rocpd_info_agent" };
  sqlite3_stmt *st = NULL;
  int rc = db_prepare(in, sfx, db_copies_sql, t, 5, &st), s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW)
    rc = db_copy_row(m, st);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* ------------------------------------------------------------ metadata */

static const char db_meta_sql[] =
  "SELECT P.pid, P.init, P.fini, P.command, N.hostname"
  "  FROM %s P LEFT JOIN %s N ON N.id = P.nid ORDER BY P.id";

static int db_meta(imp *m, rpd *in, const char *sfx)
{
  static const char *const t[] = { "rocpd_info_process", "rocpd_info_node" };
  sqlite3_stmt *st = NULL;
  int rc = db_prepare(in, sfx, db_meta_sql, t, 2, &st), s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW) {
    w_meta_time(m, col_i64(st, 1), col_i64(st, 2));
    rc = w_meta_int(m, "rocprofv3::pid", col_i64(st, 0));
    if (!rc)
      rc = w_meta_add(m, "rocprofv3::hostname", col_txt(st, 4));
    if (!rc)
      rc = w_meta_add(m, "rocprofv3::command", col_txt(st, 3));
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* ------------------------------------------------------------ driver */

static const char *const db_need[] = {
  "rocpd_kernel_dispatch", "rocpd_region", "rocpd_memory_copy", "rocpd_event",
  "rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol",
  "rocpd_info_process", "rocpd_info_node", "rocpd_info_thread", "rocpd_arg", NULL
};

/* 1 if sqlite_master has a table (not a view) named name. */
static int is_table(rpd *in, const char *name)
{
  sqlite3_stmt *st = NULL;
  int yes = 0;
  if (!rpd_prepare(in, "SELECT 1 FROM sqlite_master WHERE type = 'table'"
                   " AND name = ?1", &st)) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    yes = rpd_step(in, st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return yes;
}

/* The guid suffixes of the per-guid table sets, in sqlite_master order
 * (the order rocprofv3 created them); "" when the tables carry no suffix.
 * *out is a NULL-terminated array the caller frees with free_list(). */
static int db_guids(rpd *in, char ***out)
{
  sqlite3_stmt *st = NULL;
  char **v = NULL;
  int n = 0, s = SQLITE_DONE;
  int rc = rpd_prepare(in, "SELECT substr(name, 14) FROM sqlite_master"
                       " WHERE type = 'table' AND name LIKE 'rocpd\\_region\\_%' ESCAPE '\\'"
                       " ORDER BY rowid", &st);
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW) {
    v = rpd_xrealloc(v, (n + 2) * sizeof *v);
    v[n++] = rpd_xstrdup(col_txt(st, 0));
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  if (!rc && !n && is_table(in, "rocpd_region")) {
    v = rpd_xrealloc(v, 2 * sizeof *v);
    v[n++] = rpd_xstrdup("");
  }
  if (v)
    v[n] = NULL;
  *out = v;
  return rc;
}

static void free_list(char **v)
{
  for (int i = 0; v && v[i]; i++)
    free(v[i]);
  free(v);
}

/* Check that guid sfx has every table the import reads. */
static int db_check_guid(rpd *in, const char *sfx)
{
  for (int i = 0; db_need[i]; i++) {
    char *t = tname(db_need[i], sfx);
    int ok = is_table(in, t);
    int rc = ok ? RPD_OK : rpd_seterr(RPD_ENOTRPD, "not a rocprofv3 database: "
                                      "no table '%s'", t);
    free(t);
    if (rc)
      return rc;
  }
  return RPD_OK;
}

/* One guid: metadata, symbols, dispatches, regions, copies. */
static int db_import_guid(imp *m, rpd *in, const char *sfx)
{
  symtab sy;
  memset(&sy, 0, sizeof sy);
  new_section(m);
  int rc = db_meta(m, in, sfx);
  if (!rc)
    rc = db_symbols(m, in, sfx, &sy);
  if (!rc)
    rc = db_kinds_begin(m, in, sfx);
  if (!rc)
    rc = db_kernels(m, in, sfx, &sy);
  if (!rc)
    rc = db_regions(m, in, sfx);
  if (!rc)
    rc = db_copies(m, in, sfx);
  if (!rc && !m->lean)
    rc = db_kinds(m, in, sfx);
  symtab_free(&sy);
  return rc;
}

/* Input rows the import reads (regions, args, dispatches, copies) over
 * every guid, by the largest rowid of each table (no scan); -1 if a
 * query fails. */
static int64_t db_total_rows(rpd *in, char **guids)
{
  static const char *const tabs[] = {
    "rocpd_region", "rocpd_arg", "rocpd_kernel_dispatch", "rocpd_memory_copy" };
  int64_t total = 0;
  for (int g = 0; guids[g]; g++)
    for (size_t t = 0; t < sizeof tabs / sizeof tabs[0]; t++) {
      sqlite3_stmt *st = NULL;
      const char *const one[] = { tabs[t] };
      int rc = db_prepare(in, guids[g], "SELECT coalesce(max(rowid), 0) FROM %s",
                          one, 1, &st);
      if (!rc && rpd_step(in, st) == SQLITE_ROW)
        total += sqlite3_column_int64(st, 0);
      else
        total = -1;
      sqlite3_finalize(st);
      if (total < 0) {
        rpd_clearerr();
        return -1;
      }
    }
  return total;
}

int import_db_handle(imp *m, rpd *in)
{
  char **guids = NULL;
  int rc = RPD_OK;
  if (!rpd_table_exists(in, "rocpd_kernel_dispatch") && rpd_table_exists(in, "rocpd_op") &&
      rpd_table_exists(in, "rocpd_api"))
    return rpd_seterr(RPD_ENOTRPD, "not a rocprofv3 database: it is an RPD trace "
                      "already (every rpdtools program reads it as it is)");
  for (int i = 0; db_need[i] && !rc; i++)
    if (!rpd_table_exists(in, db_need[i]))
      rc = rpd_seterr(RPD_ENOTRPD, "not a rocprofv3 database: no table or view '%s'",
                      db_need[i]);
  if (!rc)
    rc = db_guids(in, &guids);
  if (!rc && !guids)
    rc = rpd_seterr(RPD_ENOTRPD, "not a rocprofv3 database: no rocpd_region table");
  for (int i = 0; !rc && guids[i]; i++)
    rc = db_check_guid(in, guids[i]);
  /* progress in input rows: the total costs a max(rowid) per table, so
   * it is only asked when a line can show */
  if (!rc)
    prog_begin(m, "reading database", 0, prog_live() ? db_total_rows(in, guids) : -1);
  for (int i = 0; !rc && guids[i]; i++)
    rc = db_import_guid(m, in, guids[i]);
  prog_end(m);
  free_list(guids);
  return rc;
}

int import_db(imp *m, const char *path)
{
  rpd *in = NULL;
  int rc = rpd_open(&in, path, NULL, RPD_READ | RPD_ANYDB);
  if (rc)
    return rc;
  /* a streaming read: a small page cache keeps the peak RSS low */
  rc = rpd_profile(in, RPD_OPEN_SCAN);
  if (!rc && v1_is_db(in)) {
    prog_begin(m, "importing", 0, -1);   /* rows written */
    m->prog_rows = 1;
    rc = import_v1_db(m, in);
    prog_end(m);
  }
  else if (!rc)
    rc = import_db_handle(m, in);
  rpd_close(in, 0);
  return rc;
}
