/* ext.c - rpd-import: the record kinds beyond ops and api calls:
 * counter values (rocpd_counter), memory allocations and scratch memory
 * events (ext_memory_allocation, ext_scratch_memory).  The statements and
 * tables are made on first use, so a trace without them gets no empty
 * tables.  The statements here run on the calling thread: each public
 * function pauses the writer thread (pipe.c) while it uses the output
 * (a no-op when none runs or the caller paused it already). */
#include <string.h>

#include "rpd.h"
#include "import.h"
#include "kinds.h"
#include "pipe.h"    /* these rows are inserted with the writer thread paused */

static const char ext_alloc_ddl[] =
  "CREATE TABLE IF NOT EXISTS ext_memory_allocation ("
  " id INTEGER PRIMARY KEY, operation TEXT NOT NULL, gpuId INTEGER NOT NULL,"
  " agent TEXT NOT NULL, size INTEGER NOT NULL, address TEXT NOT NULL,"
  " api_id INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL)";

static const char ext_scratch_ddl[] =
  "CREATE TABLE IF NOT EXISTS ext_scratch_memory ("
  " id INTEGER PRIMARY KEY, operation TEXT NOT NULL, gpuId INTEGER NOT NULL,"
  " agent TEXT NOT NULL, queueId INTEGER NOT NULL, tid INTEGER NOT NULL,"
  " flags INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL)";

/* The counter view: one row per (op, counter). */
static const char counter_view[] =
  "CREATE VIEW IF NOT EXISTS counter AS SELECT C.op_id, O.gpuId, O.queueId,"
  " O.sequenceId AS dispatch, D.string AS kernelName, N.string AS counter,"
  " C.value, O.start, O.end"
  " FROM rocpd_counter C JOIN rocpd_op O ON O.id = C.op_id"
  " JOIN rocpd_string D ON D.id = O.description_id"
  " JOIN rocpd_string N ON N.id = C.name_id";

/* Prepare *st once (running ddl first when given). */
static int ext_stmt(imp *m, sqlite3_stmt **st, const char *ddl, const char *sql)
{
  int rc = RPD_OK;
  if (*st)
    return RPD_OK;
  if (ddl)
    rc = rpd_exec(m->r, ddl);
  if (!rc)
    rc = rpd_prepare(m->r, sql, st);
  return rc;
}

/* Step an insert and reset it. */
static int ext_run(imp *m, sqlite3_stmt *st, int64_t *count)
{
  int s = rpd_step(m->r, st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (s < 0)
    return -s;
  (*count)++;
  return RPD_OK;
}

static int counter_one(imp *m, int64_t op_id, const char *name, double value)
{
  int64_t nid;
  int rc = ext_stmt(m, &m->st_counter, counter_view,
                    "INSERT INTO rocpd_counter(value, op_id, name_id) VALUES (?,?,?)");
  if (!rc)
    rc = w_string_id(m, name, &nid);
  if (rc)
    return rc;
  sqlite3_bind_double(m->st_counter, 1, value);
  sqlite3_bind_int64(m->st_counter, 2, op_id);
  sqlite3_bind_int64(m->st_counter, 3, nid);
  return ext_run(m, m->st_counter, &m->n_counter);
}

/* Bind row i of b at parameter offset base of st. */
static void counter_bind(sqlite3_stmt *st, const counter_batch *b, int i, int base)
{
  sqlite3_bind_double(st, base + 1, b->value[i]);
  sqlite3_bind_int64(st, base + 2, b->op[i]);
  sqlite3_bind_int64(st, base + 3, b->name[i]);
}

/* Insert the rows of a copy of a counter_batch (on the writer thread when
 * one runs: pipe_call). */
static int counter_write(imp *m, const void *data)
{
  const counter_batch *b = data;
  int rc = RPD_OK;
  if (b->n == COUNTER_BATCH) {
    for (int i = 0; i < b->n; i++)
      counter_bind(b->many, b, i, 3 * i);
    int s = rpd_step(m->r, b->many);
    sqlite3_reset(b->many);
    rc = s < 0 ? -s : RPD_OK;
    if (!rc)
      m->n_counter += b->n;
  } else
    for (int i = 0; i < b->n && !rc; i++) {
      counter_bind(m->st_counter, b, i, 0);
      rc = ext_run(m, m->st_counter, &m->n_counter);
    }
  return rc;
}

/* Prepare b's COUNTER_BATCH-row insert (writer thread paused). */
static int counter_many(imp *m, counter_batch *b)
{
  rpd_buf sql = {0};
  rpd_buf_puts(&sql, "INSERT INTO rocpd_counter(value, op_id, name_id) VALUES (?,?,?)");
  for (int i = 1; i < COUNTER_BATCH; i++)
    rpd_buf_puts(&sql, ",(?,?,?)");
  int rc = rpd_prepare(m->r, sql.s, &b->many);
  rpd_buf_free(&sql);
  return rc;
}

int w_counter_op(imp *m, int64_t dispatch, const kern *k, int64_t *op_id)
{
  if (imap_get(&m->disp_op, dispatch, op_id))
    return RPD_OK;
  int want = m->want_disp, rc;
  m->want_disp = 1;
  rc = w_kernel(m, k);
  m->want_disp = want;
  if (rc)
    return rc;
  m->n_counter_op++;
  *op_id = m->last_op;
  return RPD_OK;
}

static int alloc_row(imp *m, const allocrec *a)
{
  int rc = ext_stmt(m, &m->st_alloc, ext_alloc_ddl,
                    "INSERT INTO ext_memory_allocation(operation, gpuId, agent, size,"
                    " address, api_id, start, end) VALUES (?,?,?,?,?,?,?,?)");
  if (rc)
    return rc;
  sqlite3_stmt *st = m->st_alloc;
  sqlite3_bind_text(st, 1, a->operation ? a->operation : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 2, a->gpu);
  sqlite3_bind_text(st, 3, a->agent ? a->agent : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, a->size);
  sqlite3_bind_text(st, 5, a->address ? a->address : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 6, a->corr > 0 ? m->api_base + a->corr : 0);
  sqlite3_bind_int64(st, 7, a->start);
  sqlite3_bind_int64(st, 8, a->end);
  return ext_run(m, st, &m->n_alloc);
}

static int scratch_row(imp *m, const scratchrec *s)
{
  int rc = ext_stmt(m, &m->st_scratch, ext_scratch_ddl,
                    "INSERT INTO ext_scratch_memory(operation, gpuId, agent, queueId,"
                    " tid, flags, start, end) VALUES (?,?,?,?,?,?,?,?)");
  if (rc)
    return rc;
  sqlite3_stmt *st = m->st_scratch;
  sqlite3_bind_text(st, 1, s->operation ? s->operation : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 2, s->gpu);
  sqlite3_bind_text(st, 3, s->agent ? s->agent : "", -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, s->queue);
  sqlite3_bind_int64(st, 5, s->tid);
  sqlite3_bind_int64(st, 6, s->flags);
  sqlite3_bind_int64(st, 7, s->start);
  sqlite3_bind_int64(st, 8, s->end);
  return ext_run(m, st, &m->n_scratch);
}

void w_ext_finalize(imp *m)
{
  sqlite3_finalize(m->st_counter);
  sqlite3_finalize(m->st_alloc);
  sqlite3_finalize(m->st_scratch);
  m->st_counter = m->st_alloc = m->st_scratch = NULL;
}

/* ------------------------------------------------------------ public:
 * each runs its row(s) with the writer thread paused */

int w_counter(imp *m, int64_t op_id, const char *name, double value)
{
  int rc = pipe_pause(m);
  if (!rc)
    rc = counter_one(m, op_id, name, value);
  pipe_resume(m);
  return rc;
}

/* The statements are made with the writer thread paused (once); the
 * rows themselves go to it in order with the batches (pipe_call). */
int w_counter_add(imp *m, counter_batch *b, int64_t op_id, const char *name, double value)
{
  int64_t nid;
  int rc = RPD_OK;
  /* the view and the single-row insert are made now, where w_counter
   * would make them: the same schema order */
  if (!m->st_counter) {
    rc = pipe_pause(m);
    if (!rc)
      rc = ext_stmt(m, &m->st_counter, counter_view,
                    "INSERT INTO rocpd_counter(value, op_id, name_id) VALUES (?,?,?)");
    pipe_resume(m);
  }
  if (!rc)
    rc = w_string_id(m, name, &nid);
  if (rc)
    return rc;
  b->op[b->n] = op_id;
  b->name[b->n] = nid;
  b->value[b->n] = value;
  return ++b->n == COUNTER_BATCH ? w_counter_flush(m, b) : RPD_OK;
}

int w_counter_flush(imp *m, counter_batch *b)
{
  int rc = RPD_OK;
  if (!b->n)
    return RPD_OK;
  if (b->n == COUNTER_BATCH && !b->many) {
    rc = pipe_pause(m);
    if (!rc)
      rc = counter_many(m, b);
    pipe_resume(m);
  }
  if (!rc)
    rc = pipe_call(m, counter_write, b, sizeof *b);
  b->n = 0;
  return rc;
}

void w_counter_batch_free(imp *m, counter_batch *b)
{
  /* the writer thread may still hold a copy that uses b->many */
  pipe_pause(m);
  sqlite3_finalize(b->many);
  pipe_resume(m);
  b->many = NULL;
  b->n = 0;
}

int w_alloc(imp *m, const allocrec *a)
{
  int rc = pipe_pause(m);
  if (!rc)
    rc = alloc_row(m, a);
  pipe_resume(m);
  return rc;
}

int w_scratch(imp *m, const scratchrec *s)
{
  int rc = pipe_pause(m);
  if (!rc)
    rc = scratch_row(m, s);
  pipe_resume(m);
  return rc;
}
