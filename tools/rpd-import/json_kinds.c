/* json_kinds.c - rpd-import: the rocprofv3 JSON record kinds,
 * into the same tables as the CSV reader:
 *   counters (the section's counter list)  -> counter id -> name
 *   callback_records.counter_collection    -> rocpd_counter (+ the view)
 *   buffer_records.memory_allocation       -> ext_memory_allocation
 *   buffer_records.scratch_memory          -> ext_scratch_memory
 *   buffer_records.rocdecode_api / rocjpeg_api -> rocpd_api (ROCDECODE, ROCJPEG)
 * rocprofv3 writes callback_records before buffer_records, so a counter
 * record comes before the kernel dispatch it belongs to: its values wait in
 * a temp table of OUT (not in memory) until the section's dispatches were
 * read, then join their ops by dispatch id like the CSV path; a dispatch
 * the kernel trace lacks gets its op from the counter record. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "kinds.h"
#include "strictint.h"

typedef struct jkstate {
  imap node;                /* agent handle -> logical_node_id */
  imap cidx;                /* counter id handle -> index into names */
  char **names;
  int nnames, cap;
  sqlite3_stmt *put;        /* INSERT INTO temp.jk_pending */
  int64_t pending;          /* rows waiting */
} jkstate;

/* Pending counter values: the dispatch as the counter record describes it. */
static const char jk_pending_ddl[] =
  "CREATE TEMP TABLE IF NOT EXISTS jk_pending (seq, corr, gpu, queue, start,"
  " end, g0, g1, g2, w0, w1, w2, lds, scr, desc_id, name_id, counter TEXT,"
  " value REAL)";

static jkstate *jk_state(imp *m)
{
  if (!m->jk)
    m->jk = rpd_xcalloc(1, sizeof *m->jk);
  return m->jk;
}

/* The value of the first field named key, or NULL. */
static const char *jk_get(const jk_access *a, void *ctx, const char *key)
{
  const char *k, *v;
  for (int i = 0; a->field(ctx, i, &k, &v); i++)
    if (!strcmp(k, key))
      return v;
  return NULL;
}

/* An integer field (0 when absent), or a required one (the timestamps of
 * a row of rocpd_op/rocpd_api; the ext tables' rows may lack them). */
static int64_t jk_int(const jk_access *a, void *ctx, const char *key)
{
  return a->integer(ctx, key, 0);
}
static int64_t jk_time(const jk_access *a, void *ctx, const char *key)
{
  return a->integer(ctx, key, INT64_MIN);
}

/* The operation name of the record (strings.buffer_records), or
 * "operation_N" in buf. */
static const char *jk_opname(const jk_access *a, void *ctx, char *buf, size_t n)
{
  int64_t kind = jk_int(a, ctx, "kind"), op = jk_int(a, ctx, "operation");
  const char *s = a->op_name(ctx, kind, op);
  if (s)
    return s;
  snprintf(buf, n, "operation_%" PRId64, op);
  return buf;
}

int jk_agent(imp *m, const jk_access *a, void *ctx)
{
  imap_put(&jk_state(m)->node, jk_int(a, ctx, "id.handle"),
           jk_int(a, ctx, "logical_node_id"));
  return RPD_OK;
}

/* "Agent <logical_node_id>" of an agent handle, as the CSV writes it (the
 * handle itself when the agents list did not name it). */
static const char *jk_agent_text(imp *m, int64_t h, char *buf, size_t n)
{
  int64_t node;
  if (imap_get(&jk_state(m)->node, h, &node))
    snprintf(buf, n, "Agent %" PRId64, node);
  else
    snprintf(buf, n, "%" PRId64, h);
  return buf;
}

/* counters[]: remember the name of each counter id. */
static int jk_counter_info(imp *m, const jk_access *a, void *ctx)
{
  jkstate *s = jk_state(m);
  const char *name = jk_get(a, ctx, "name");
  if (!name || !*name)
    return RPD_OK;
  if (s->nnames == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->names = rpd_xrealloc(s->names, s->cap * sizeof *s->names);
  }
  s->names[s->nnames] = rpd_xstrdup(name);
  imap_put(&s->cidx, jk_int(a, ctx, "id.handle"), s->nnames++);
  return RPD_OK;
}

static const char *jk_counter_name(jkstate *s, int64_t id, char *buf, size_t n)
{
  int64_t i;
  if (imap_get(&s->cidx, id, &i))
    return s->names[i];
  snprintf(buf, n, "counter_%" PRId64, id);
  return buf;
}

/* One counter value waiting for its dispatch's op. */
static int jk_hold(imp *m, const kern *k, const char *counter, double value)
{
  jkstate *s = jk_state(m);
  int rc = RPD_OK;
  if (!s->put) {
    rc = rpd_exec(m->r, jk_pending_ddl);
    if (!rc)
      rc = rpd_prepare(m->r, "INSERT INTO temp.jk_pending VALUES"
                       " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s->put);
    if (rc)
      return rc;
  }
  const int64_t v[16] = { k->seq, k->corr, k->gpu, k->queue, k->start, k->end,
                          k->grid[0], k->grid[1], k->grid[2], k->wg[0], k->wg[1],
                          k->wg[2], k->lds, k->scratch, k->desc_id, k->name_id };
  for (int i = 0; i < 16; i++)
    sqlite3_bind_int64(s->put, i + 1, v[i]);
  sqlite3_bind_text(s->put, 17, counter, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s->put, 18, value);
  int st = rpd_step(m->r, s->put);
  sqlite3_reset(s->put);
  if (st < 0)
    return -st;
  s->pending++;
  return RPD_OK;
}

/* A per-record sum: rocprofv3 writes one value per counter instance
 * (dimension); its CSV and database views sum them per counter name. */
typedef struct csum {
  char *name;
  double v;
} csum;

/* callback_records.counter_collection: the dispatch and its values. */
static int jk_counter_record(imp *m, const jk_access *a, void *ctx)
{
  jkstate *s = jk_state(m);
  static const char P[] = "dispatch_data.dispatch_info.";
  char key[96], nb[64];
  kern k = {0};
  csum *sum = NULL;
  int nsum = 0, rc = RPD_OK;
#define DI(f) (snprintf(key, sizeof key, "%s%s", P, f), jk_int(a, ctx, key))
  k.gpu = a->gpu(ctx, DI("agent_id.handle"));
  k.queue = DI("queue_id.handle");
  k.seq = DI("dispatch_id");
  k.grid[0] = DI("grid_size.x");
  k.grid[1] = DI("grid_size.y");
  k.grid[2] = DI("grid_size.z");
  k.wg[0] = DI("workgroup_size.x");
  k.wg[1] = DI("workgroup_size.y");
  k.wg[2] = DI("workgroup_size.z");
  k.lds = DI("group_segment_size");
  k.scratch = DI("private_segment_size");
  int64_t kid = DI("kernel_id");
#undef DI
  k.corr = jk_int(a, ctx, "dispatch_data.correlation_id.internal");
  k.start = jk_time(a, ctx, "dispatch_data.start_timestamp");
  k.end = jk_time(a, ctx, "dispatch_data.end_timestamp");
  rc = a->sym(ctx, kid, &k.desc_id, &k.name_id);
  /* records[]: counter_id.handle and value alternate, in order */
  const char *kk, *v;
  int64_t cid = 0;
  int have = 0;
  for (int i = 0; !rc && a->field(ctx, i, &kk, &v); i++) {
    if (!strcmp(kk, "records.counter_id.handle")) {
      if ((rc = rpd_int_text(v, strlen(v), &cid)))
        rc = rpd_seterr(RPD_EPARSE, "counter_collection record: field '%s': %s", kk,
                        rpd_errmsg());
      have = 1;
      continue;
    }
    if (strcmp(kk, "records.value") || !have)
      continue;
    const char *name = jk_counter_name(s, cid, nb, sizeof nb);
    int j = 0;
    while (j < nsum && strcmp(sum[j].name, name))
      j++;
    if (j == nsum) {
      sum = rpd_xrealloc(sum, (nsum + 1) * sizeof *sum);
      sum[nsum].name = rpd_xstrdup(name);
      sum[nsum++].v = 0;
    }
    sum[j].v += strtod(v, NULL);
    have = 0;
  }
  for (int j = 0; j < nsum && !rc; j++)
    rc = jk_hold(m, &k, sum[j].name, sum[j].v);
  for (int j = 0; j < nsum; j++)
    free(sum[j].name);
  free(sum);
  m->want_disp = 1;        /* the kernel dispatches that follow fill disp_op */
  return rc;
}

static int jk_alloc(imp *m, const jk_access *a, void *ctx)
{
  allocrec r = {0};
  char ob[40], ab[32];
  int64_t h = jk_int(a, ctx, "agent_id.handle");
  r.operation = jk_opname(a, ctx, ob, sizeof ob);
  r.agent = jk_agent_text(m, h, ab, sizeof ab);
  r.gpu = a->gpu(ctx, h);
  r.size = jk_int(a, ctx, "allocation_size");
  r.address = jk_get(a, ctx, "address");
  r.corr = jk_int(a, ctx, "correlation_id.internal");
  r.start = jk_int(a, ctx, "start_timestamp");
  r.end = jk_int(a, ctx, "end_timestamp");
  return w_alloc(m, &r);
}

static int jk_scratch(imp *m, const jk_access *a, void *ctx)
{
  scratchrec r = {0};
  char ob[40], ab[32];
  int64_t h = jk_int(a, ctx, "agent_id.handle");
  r.operation = jk_opname(a, ctx, ob, sizeof ob);
  r.agent = jk_agent_text(m, h, ab, sizeof ab);
  r.gpu = a->gpu(ctx, h);
  r.queue = jk_int(a, ctx, "queue_id.handle");
  r.tid = jk_int(a, ctx, "thread_id");
  r.flags = jk_int(a, ctx, "flags");
  r.start = jk_int(a, ctx, "start_timestamp");
  r.end = jk_int(a, ctx, "end_timestamp");
  return w_scratch(m, &r);
}

/* rocdecode_api / rocjpeg_api: api calls like hip_api. */
static int jk_api(imp *m, const jk_access *a, void *ctx, const char *domain)
{
  apirec r = {0};
  char ob[40];
  const char *k, *v;
  rpd_buf *b = &m->args;
  rpd_buf_reset(b);
  rpd_buf_add(b, "", 0);
  for (int i = 0; a->field(ctx, i, &k, &v); i++)
    if (!strncmp(k, "args.", 5))
      rpd_buf_printf(b, "%s%s=%s", b->len ? " | " : "", k + 5, v);
  r.corr = jk_int(a, ctx, "correlation_id.internal");
  r.pid = m->pid;
  r.tid = jk_int(a, ctx, "thread_id");
  r.start = jk_time(a, ctx, "start_timestamp");
  r.end = jk_time(a, ctx, "end_timestamp");
  r.domain = domain;
  r.category = a->kind_name(ctx, jk_int(a, ctx, "kind"));
  r.name = jk_opname(a, ctx, ob, sizeof ob);
  r.args = b->s;
  return w_api(m, &r);
}

int jk_record(imp *m, const char *section, const jk_access *a, void *ctx, int *rc)
{
  if (!strcmp(section, "counters")) {
    *rc = jk_counter_info(m, a, ctx);
    return 1;
  }
  int (*fn)(imp *, const jk_access *, void *) =
    !strcmp(section, "counter_collection") ? jk_counter_record :
    !strcmp(section, "memory_allocation") ? jk_alloc :
    !strcmp(section, "scratch_memory") ? jk_scratch : NULL;
  const char *dom = !strcmp(section, "rocdecode_api") ? "ROCDECODE" :
                    !strcmp(section, "rocjpeg_api") ? "ROCJPEG" : NULL;
  if (!fn && !dom)
    return 0;
  count_read(m, section, 1);
  *rc = fn ? fn(m, a, ctx) : jk_api(m, a, ctx, dom);
  return 1;
}

int jk_flush(imp *m)
{
  jkstate *s = m->jk;
  sqlite3_stmt *st = NULL;
  int rc = RPD_OK, r = SQLITE_DONE;
  if (!s || !s->pending)
    return RPD_OK;
  rc = rpd_prepare(m->r, "SELECT * FROM temp.jk_pending ORDER BY rowid", &st);
  while (!rc && (r = rpd_step(m->r, st)) == SQLITE_ROW) {
    kern k = {0};
    int64_t *f[16] = { &k.seq, &k.corr, &k.gpu, &k.queue, &k.start, &k.end,
                       &k.grid[0], &k.grid[1], &k.grid[2], &k.wg[0], &k.wg[1],
                       &k.wg[2], &k.lds, &k.scratch, &k.desc_id, &k.name_id };
    int64_t op_id;
    for (int i = 0; i < 16; i++)
      *f[i] = sqlite3_column_int64(st, i);
    rc = w_counter_op(m, k.seq, &k, &op_id);
    if (!rc)
      rc = w_counter(m, op_id, (const char *)sqlite3_column_text(st, 16),
                     sqlite3_column_double(st, 17));
  }
  if (!rc && r < 0)
    rc = -r;
  sqlite3_finalize(st);
  if (!rc)
    rc = rpd_exec(m->r, "DELETE FROM temp.jk_pending");
  s->pending = 0;
  imap_free(&m->disp_op);   /* dispatch ids are per process */
  m->want_disp = 0;
  return rc;
}

void jk_free(imp *m)
{
  jkstate *s = m->jk;
  if (!s)
    return;
  sqlite3_finalize(s->put);
  for (int i = 0; i < s->nnames; i++)
    free(s->names[i]);
  free(s->names);
  imap_free(&s->cidx);
  imap_free(&s->node);
  free(s);
  m->jk = NULL;
}
