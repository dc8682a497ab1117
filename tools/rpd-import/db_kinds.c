/* db_kinds.c - rpd-import: the rocprofv3 database tables, into
 * the same tables as the CSV and JSON readers:
 *   rocpd_pmc_event + rocpd_info_pmc  -> rocpd_counter (one row per dispatch
 *       and counter name: the instances summed, as the database's own
 *       counters_collection view does), on the dispatch's op.  One ordered
 *       merge (db_counters): pmc rows in rowid order against the dispatches
 *       in rowid order, both in event order as rocprofv3 writes them; the
 *       dispatch of rank r got op id jk_op_base + r, so no op is read back
 *       and the only state is the counters of one event.  Rows out of event
 *       order roll the merge back and take the sorted path (db_counters_sorted).
 *   rocpd_memory_allocate, level REAL/VIRTUAL -> ext_memory_allocation
 *   rocpd_memory_allocate, level SCRATCH      -> ext_scratch_memory
 * Per guid, on its physical tables, after its kernel dispatches. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "kinds.h"
#include "pipe.h"    /* the writer thread, paused around savepoints */

/* "<base>_<sfx>" quoted for SQL (sfx "" = the unsuffixed table); caller
 * sqlite3_free()s. */
static char *qtab(const char *base, const char *sfx)
{
  return *sfx ? sqlite3_mprintf("\"%w_%w\"", base, sfx) : sqlite3_mprintf("\"%w\"", base);
}

/* 1 if the guid has table base (a database from an older rocprofv3 may
 * lack the pmc or allocation tables). */
static int has_table(rpd *in, const char *base, const char *sfx)
{
  char *t = *sfx ? sqlite3_mprintf("%s_%s", base, sfx) : sqlite3_mprintf("%s", base);
  int yes = t && rpd_table_exists(in, t);
  sqlite3_free(t);
  return yes;
}

int db_kinds_begin(imp *m, rpd *in, const char *sfx)
{
  (void)in;
  (void)sfx;
  m->jk_op_base = m->next_op;       /* the guid's ops get ids from here */
  return RPD_OK;
}

/* ------------------------------------------------------------ counters, sorted */

/* The path for rows out of event order: SQLite joins the pmc rows to
 * their dispatches (automatic indexes) and groups them; the ops of the
 * dispatches that have counters are read back from OUT. */

/* The dispatches that have pmc events, as keys of *want. */
static const char pmc_disp_sql[] =
  "SELECT DISTINCT K.dispatch_id FROM %s P JOIN %s K ON K.event_id = P.event_id";

/* m->disp_op for the dispatches in want only: memory follows the counter
 * rows, not the trace (the guid's ops are read back from OUT by id). */
static int db_disp_ops(imp *m, const imap *want)
{
  sqlite3_stmt *st = NULL;
  int64_t kexec = 0;
  int rc = w_flush(m), s = SQLITE_DONE;
  if (!rc)
    rc = w_string_id(m, "KernelExecution", &kexec);
  if (!rc)
    rc = rpd_prepare(m->r, "SELECT id, sequenceId FROM rocpd_op WHERE id >= ?1"
                     " AND opType_id = ?2 ORDER BY id", &st);
  if (!rc) {
    sqlite3_bind_int64(st, 1, m->jk_op_base);
    sqlite3_bind_int64(st, 2, kexec);
  }
  while (!rc && (s = rpd_step(m->r, st)) == SQLITE_ROW) {
    int64_t seq = sqlite3_column_int64(st, 1), x;
    if (imap_get(want, seq, &x) && !imap_get(&m->disp_op, seq, &x))
      imap_put(&m->disp_op, seq, sqlite3_column_int64(st, 0));
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

/* Run fmt (two or three %s: the pmc, info_pmc / dispatch tables). */
static int db_query(rpd *in, const char *sfx, const char *fmt, const char *const *bases,
                    int nb, sqlite3_stmt **st)
{
  char *t[3] = {0};
  for (int i = 0; i < nb; i++)
    t[i] = qtab(bases[i], sfx);
  char *sql = sqlite3_mprintf(fmt, t[0], t[1], t[2]);
  int rc = sql ? rpd_prepare(in, sql, st) : RPD_ENOMEM;
  sqlite3_free(sql);
  for (int i = 0; i < 3; i++)
    sqlite3_free(t[i]);
  return rc;
}

/* Counter values per (dispatch event, counter name), in the order rocprofv3
 * wrote them; K.dispatch_id is NULL for an event that is not a dispatch. */
static const char pmc_sql[] =
  "SELECT K.dispatch_id, I.name, sum(P.value), count(*)"
  "  FROM %s P JOIN %s I ON I.id = P.pmc_id"
  "  LEFT JOIN %s K ON K.event_id = P.event_id"
  " GROUP BY P.event_id, I.name ORDER BY min(P.id)";

static int db_counters_sorted(imp *m, rpd *in, const char *sfx)
{
  static const char *const dt[] = { "rocpd_pmc_event", "rocpd_kernel_dispatch" };
  static const char *const ct[] = { "rocpd_pmc_event", "rocpd_info_pmc", "rocpd_kernel_dispatch" };
  sqlite3_stmt *st = NULL;
  imap want = {0};
  int rc = db_query(in, sfx, pmc_disp_sql, dt, 2, &st), s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW)
    imap_put(&want, sqlite3_column_int64(st, 0), 1);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  st = NULL;
  if (!rc && want.n)
    rc = db_disp_ops(m, &want);
  imap_free(&want);
  if (!rc)
    rc = db_query(in, sfx, pmc_sql, ct, 3, &st);
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW) {
    int64_t op_id, n = sqlite3_column_int64(st, 3);
    for (int64_t i = 0; i < n; i++)
      count_read(m, "pmc_event", 1);
    if (sqlite3_column_type(st, 0) == SQLITE_NULL ||
        !imap_get(&m->disp_op, sqlite3_column_int64(st, 0), &op_id)) {
      m->n_jk_orphan += n;  /* not a dispatch's event: nothing to hang it on */
      continue;
    }
    const unsigned char *name = sqlite3_column_text(st, 1);
    rc = w_counter(m, op_id, name ? (const char *)name : "", sqlite3_column_double(st, 2));
  }
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  imap_free(&m->disp_op);
  return rc;
}

/* ------------------------------------------------------------ counters */

/* pmc rows in rowid order (P drives the join: CROSS JOIN keeps it outer),
 * and the event of each dispatch in rowid order (its rank = its op). */
static const char pmc_rows_sql[] =
  "SELECT P.event_id, I.name, P.value FROM %s P CROSS JOIN %s I ON I.id = P.pmc_id"
  " ORDER BY P.id";
static const char disp_ev_sql[] = "SELECT event_id FROM %s ORDER BY id";

/* One counter name of the event being merged: its instances summed. */
typedef struct pmcgrp {
  rpd_buf name;
  int null_name;            /* I.name is NULL (a group of its own, written "") */
  double sum;               /* in row order, NULL values skipped, as sum() */
} pmcgrp;

typedef struct pmcmerge {
  imp *m;
  rpd *in;
  sqlite3_stmt *p, *k;      /* pmc_rows_sql, disp_ev_sql */
  int k_have;               /* k holds a dispatch with an event */
  int64_t k_ev, k_rank;     /* its event id and rank (-1 before the first) */
  int have_ev;              /* an event's counters are being summed */
  int64_t ev, ev_rows;      /* that event and its pmc row count */
  pmcgrp *g;                /* its counter names in first-row order */
  int ng, cap, last;        /* last = the group the previous row went to */
  int64_t nread, norphan;
  int disorder;
  counter_batch out;        /* the counter rows on their way to OUT */
} pmcmerge;

/* Next dispatch that has an event; sets disorder unless the events grow. */
static int pm_k_next(pmcmerge *a)
{
  int s;
  while ((s = rpd_step(a->in, a->k)) == SQLITE_ROW) {
    a->k_rank++;
    if (sqlite3_column_type(a->k, 0) == SQLITE_NULL)
      continue;
    int64_t ev = sqlite3_column_int64(a->k, 0);
    if (a->k_have && ev <= a->k_ev)
      a->disorder = 1;
    a->k_ev = ev;
    a->k_have = 1;
    return RPD_OK;
  }
  a->k_have = 0;
  return s < 0 ? -s : RPD_OK;
}

/* Write the summed counters of the current event on its dispatch's op, or
 * count them as orphans when no dispatch has that event. */
static int pm_flush(pmcmerge *a)
{
  int rc = RPD_OK;
  if (!a->have_ev)
    return RPD_OK;
  while (!rc && !a->disorder && a->k_have && a->k_ev < a->ev)
    rc = pm_k_next(a);
  if (rc || a->disorder)
    return rc;
  if (a->k_have && a->k_ev == a->ev) {
    int64_t op = a->m->jk_op_base + a->k_rank;
    for (int i = 0; i < a->ng && !rc; i++)
      rc = w_counter_add(a->m, &a->out, op, a->g[i].name.s, a->g[i].sum);
  }
  else
    a->norphan += a->ev_rows;
  a->have_ev = 0;
  a->ng = 0;
  a->ev_rows = 0;
  return rc;
}

/* The group of the current row's counter name (new at the end if unseen). */
static pmcgrp *pm_group(pmcmerge *a, const char *name)
{
  int null_name = !name;
  if (!name)
    name = "";
  for (int j = 0; j < a->ng; j++) {
    int i = (a->last + j) % a->ng;   /* names repeat in the same order */
    if (a->g[i].null_name == null_name && !strcmp(a->g[i].name.s, name)) {
      a->last = i;
      return &a->g[i];
    }
  }
  if (a->ng == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 8;
    a->g = rpd_xrealloc(a->g, a->cap * sizeof *a->g);
    memset(a->g + a->ng, 0, (a->cap - a->ng) * sizeof *a->g);
  }
  pmcgrp *g = &a->g[a->ng];
  a->last = a->ng++;
  rpd_buf_reset(&g->name);
  rpd_buf_puts(&g->name, name);
  if (!g->name.s)
    rpd_buf_add(&g->name, "", 0);
  g->null_name = null_name;
  g->sum = 0;
  return g;
}

/* One pmc row: a new event flushes the previous one. */
static int pm_row(pmcmerge *a)
{
  sqlite3_stmt *st = a->p;
  int rc = RPD_OK;
  a->nread++;
  if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
    a->norphan++;              /* on no event: nothing to hang it on */
    return RPD_OK;
  }
  int64_t ev = sqlite3_column_int64(st, 0);
  if (!a->have_ev || ev != a->ev) {
    if (a->have_ev && ev < a->ev) {
      a->disorder = 1;
      return RPD_OK;
    }
    rc = pm_flush(a);
    if (rc || a->disorder)
      return rc;
    a->have_ev = 1;
    a->ev = ev;
  }
  a->ev_rows++;
  pmcgrp *g = pm_group(a, (const char *)sqlite3_column_text(st, 1));
  if (sqlite3_column_type(st, 2) != SQLITE_NULL)
    g->sum += sqlite3_column_double(st, 2);
  return RPD_OK;
}

/* The merge; *disorder set (and the rows written so far to be rolled back)
 * when either side is not in event order. */
static int db_counters_merge(imp *m, rpd *in, const char *sfx, int *disorder)
{
  static const char *const pt[] = { "rocpd_pmc_event", "rocpd_info_pmc" };
  static const char *const kt[] = { "rocpd_kernel_dispatch" };
  pmcmerge a;
  memset(&a, 0, sizeof a);
  a.m = m;
  a.in = in;
  a.k_rank = -1;
  int rc = db_query(in, sfx, pmc_rows_sql, pt, 2, &a.p), s = SQLITE_DONE;
  if (!rc)
    rc = db_query(in, sfx, disp_ev_sql, kt, 1, &a.k);
  if (!rc)
    rc = pm_k_next(&a);
  while (!rc && !a.disorder && (s = rpd_step(in, a.p)) == SQLITE_ROW)
    rc = pm_row(&a);
  if (!rc && s < 0)
    rc = -s;
  if (!rc && !a.disorder)
    rc = pm_flush(&a);
  if (!rc && !a.disorder)
    rc = w_counter_flush(m, &a.out);
  if (!rc && !a.disorder) {
    for (int64_t i = 0; i < a.nread; i++)
      count_read(m, "pmc_event", 1);
    m->n_jk_orphan += a.norphan;
  }
  sqlite3_finalize(a.p);
  sqlite3_finalize(a.k);
  w_counter_batch_free(m, &a.out);
  for (int i = 0; i < a.cap; i++)
    rpd_buf_free(&a.g[i].name);
  free(a.g);
  *disorder = a.disorder;
  return rc;
}

/* Counters of a guid: the merge inside a savepoint of the output; should
 * a row come out of event order, it is rolled back (the counter rows and
 * names it wrote) and db_counters_sorted does it with SQLite's joins. */
static int db_counters(imp *m, rpd *in, const char *sfx)
{
  int64_t n_counter;
  int disorder = 0;
  /* the savepoint and the counter count with the writer thread paused;
   * the merge's rows go to it (w_counter_flush) */
  int rc = pipe_pause(m);
  if (!rc)
    rc = w_flush(m);
  if (!rc)
    rc = rpd_exec(m->r, "SAVEPOINT rpd_import_counters");
  n_counter = m->n_counter;
  pipe_resume(m);
  if (!rc)
    rc = db_counters_merge(m, in, sfx, &disorder);
  int prc = pipe_pause(m);   /* until the end: the rest runs here */
  if (!rc)
    rc = prc;
  if (!rc && disorder) {
    w_discard(m);
    rc = rpd_exec(m->r, "ROLLBACK TO rpd_import_counters");
    w_ext_finalize(m);      /* the counter view may be gone: made again */
    m->n_counter = n_counter;
    if (!rc)
      rc = w_strings_reload(m);
    if (!rc)
      rc = db_counters_sorted(m, in, sfx);
  }
  if (!rc)
    rc = rpd_exec(m->r, "RELEASE rpd_import_counters");
  pipe_resume(m);
  return rc;
}

/* Allocation events with their agent, thread and correlation (stack) id. */
static const char alloc_sql[] =
  "SELECT coalesce(M.type, ''), coalesce(M.level, ''),"
  "  CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END,"
  "  CASE WHEN A.id IS NULL THEN '' ELSE 'Agent ' || A.logical_index END,"
  "  M.size, M.address, coalesce(E.stack_id, 0), M.start, M.end,"
  "  coalesce(M.queue_id, 0), coalesce(T.tid, 0),"
  "  CASE WHEN json_valid(M.extdata) THEN coalesce(json_extract(M.extdata, '$.flags'), 0)"
  "       ELSE 0 END"
  "  FROM %s M LEFT JOIN %s A ON A.id = M.agent_id"
  "  LEFT JOIN %s E ON E.id = M.event_id LEFT JOIN %s T ON T.id = M.tid"
  " ORDER BY M.id";

/* rocprofv3's operation name for a database type (and level). */
static const char *alloc_op(const char *type, const char *level, char *buf, size_t n)
{
  static const char *const map[][3] = {
    { "SCRATCH", "ALLOC", "SCRATCH_MEMORY_ALLOC" },
    { "SCRATCH", "FREE", "SCRATCH_MEMORY_FREE" },
    { "SCRATCH", "RECLAIM", "SCRATCH_MEMORY_ASYNC_RECLAIM" },
    { "VIRTUAL", "ALLOC", "MEMORY_ALLOCATION_VMEM_ALLOCATE" },
    { "VIRTUAL", "FREE", "MEMORY_ALLOCATION_VMEM_FREE" },
    { "", "ALLOC", "MEMORY_ALLOCATION_ALLOCATE" },
    { "", "FREE", "MEMORY_ALLOCATION_FREE" },
  };
  int scratch = !strcmp(level, "SCRATCH"), virt = !strcmp(level, "VIRTUAL");
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    int lv = !strcmp(map[i][0], "SCRATCH") ? scratch : !strcmp(map[i][0], "VIRTUAL") ? virt
                                                     : !scratch && !virt;
    if (lv && !strcmp(type, map[i][1]))
      return map[i][2];
  }
  snprintf(buf, n, "%s_%s", scratch ? "SCRATCH_MEMORY" : "MEMORY_ALLOCATION", type);
  return buf;
}

static int db_alloc_row(imp *m, sqlite3_stmt *st)
{
  char ob[48], addr[32];
  const char *type = (const char *)sqlite3_column_text(st, 0);
  const char *level = (const char *)sqlite3_column_text(st, 1);
  const char *op = alloc_op(type ? type : "", level ? level : "", ob, sizeof ob);
  const char *agent = (const char *)sqlite3_column_text(st, 3);
  if (level && !strcmp(level, "SCRATCH")) {
    count_read(m, "scratch_memory", 1);
    scratchrec r = { op, agent, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 9),
                     sqlite3_column_int64(st, 10), sqlite3_column_int64(st, 11),
                     sqlite3_column_int64(st, 7), sqlite3_column_int64(st, 8) };
    return w_scratch(m, &r);
  }
  count_read(m, "memory_allocation", 1);
  snprintf(addr, sizeof addr, "0x%016" PRIx64, (uint64_t)sqlite3_column_int64(st, 5));
  allocrec r = { op, agent, addr, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 4),
                 sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 7),
                 sqlite3_column_int64(st, 8) };
  return w_alloc(m, &r);
}

static int db_allocs(imp *m, rpd *in, const char *sfx)
{
  char *t[4] = { qtab("rocpd_memory_allocate", sfx), qtab("rocpd_info_agent", sfx),
                 qtab("rocpd_event", sfx), qtab("rocpd_info_thread", sfx) };
  char *sql = sqlite3_mprintf(alloc_sql, t[0], t[1], t[2], t[3]);
  sqlite3_stmt *st = NULL;
  int rc = sql ? rpd_prepare(in, sql, &st) : RPD_ENOMEM, s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW)
    rc = db_alloc_row(m, st);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  for (int i = 0; i < 4; i++)
    sqlite3_free(t[i]);
  return rc;
}

int db_kinds(imp *m, rpd *in, const char *sfx)
{
  int rc = RPD_OK;
  if (has_table(in, "rocpd_pmc_event", sfx) && has_table(in, "rocpd_info_pmc", sfx))
    rc = db_counters(m, in, sfx);
  /* allocation rows are inserted here (ext.c): the writer thread waits */
  if (!rc && has_table(in, "rocpd_memory_allocate", sfx)) {
    rc = pipe_pause(m);
    if (!rc)
      rc = db_allocs(m, in, sfx);
    pipe_resume(m);
  }
  return rc;
}
