/* writer.c - rpd-import: the RPD writer every reader feeds (ops, api calls,
 * links, kernel/copy details, metadata). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpd.h"
#include "import.h"
#include "check.h"
#include "pipe.h"
#include "strictint.h"

void count_read(imp *m, const char *kind, int handled)
{
  for (int i = 0; i < m->nkinds; i++)
    if (!strcmp(m->kinds[i].name, kind)) {
      m->kinds[i].n++;
      return;
    }
  if (m->nkinds < (int)(sizeof m->kinds / sizeof m->kinds[0])) {
    kindcount *k = &m->kinds[m->nkinds++];
    snprintf(k->name, sizeof k->name, "%s", kind);
    k->n = 1;
    k->handled = handled;
  }
}

/* ------------------------------------------------------------ progress */

int prog_live(void)
{
  return !rpd_quiet && isatty(2);
}

void prog_begin(imp *m, const char *what, int bytes, int64_t total)
{
  m->prog_what = what;
  m->prog_done = 0;
  m->prog_total = total;
  /* rpd_progress reads the clock: call it every 1 MiB or 4096 rows */
  m->prog_step = bytes ? 1 << 20 : 4096;
  m->prog_next = m->prog_step;
  rpd_progress_unit(bytes ? "bytes" : "rows");
  rpd_progress(what, 0, total < 0 ? -1 : total > 0 ? total : 1);  /* starts the clock */
}

void prog_at(imp *m, int64_t done)
{
  m->prog_done = done;
  m->prog_next = done + m->prog_step;
  if (!m->prog_what)
    return;
  if (m->prog_total < 0)
    rpd_progress(m->prog_what, done, -1);
  else if (done < m->prog_total)   /* done == total would end the line */
    rpd_progress(m->prog_what, done, m->prog_total);
}

void prog_end(imp *m)
{
  if (!m->prog_what)
    return;
  if (m->prog_total < 0)
    rpd_progress(m->prog_what, -1, -1);
  else
    rpd_progress(m->prog_what, m->prog_total, m->prog_total);
  m->prog_what = NULL;
  m->prog_rows = 0;
  rpd_progress_unit("rows");
}

/* Step an insert statement once and reset it. */
static int run(imp *m, sqlite3_stmt *st)
{
  int s = rpd_step(m->r, st);
  sqlite3_reset(st);
  return s == SQLITE_DONE ? RPD_OK : (s < 0 ? -s : RPD_ESQL);
}

/* ------------------------------------------------------------ batches */

/* Rows of one table are collected and inserted BATCH_ROWS at a time with
 * one multi-row INSERT: the per-statement cost of SQLite (and the
 * AUTOINCREMENT bookkeeping) is paid once per batch, not once per row.
 * Ids the readers need at once (ops, args strings) are assigned here. */
enum { BATCH_ROWS = 64 };

static int batch_open(imp *m, batch *b, const char *head, int ncols,
                      int64_t *inserted, int64_t *ignored)
{
  rpd_buf sql = {0};
  memset(b, 0, sizeof *b);
  b->ncols = ncols;
  b->inserted = inserted;
  b->ignored = ignored;
  b->iv = rpd_xcalloc((size_t)BATCH_ROWS * ncols, sizeof *b->iv);
  b->toff = rpd_xcalloc((size_t)BATCH_ROWS * ncols, sizeof *b->toff);
  rpd_buf_puts(&sql, head);
  rpd_buf_puts(&sql, " VALUES ");
  for (int r = 0; r < BATCH_ROWS; r++) {
    rpd_buf_puts(&sql, r ? ",(" : "(");
    for (int c = 0; c < ncols; c++)
      rpd_buf_puts(&sql, c ? ",?" : "?");
    rpd_buf_puts(&sql, ")");
    if (!r) {
      int rc = rpd_prepare(m->r, sql.s, &b->one);
      if (rc) {
        rpd_buf_free(&sql);
        return rc;
      }
    }
  }
  int rc = rpd_prepare(m->r, sql.s, &b->many);
  rpd_buf_free(&sql);
  return rc;
}

static void batch_close(batch *b)
{
  sqlite3_finalize(b->one);
  sqlite3_finalize(b->many);
  free(b->iv);
  free(b->toff);
  rpd_buf_free(&b->txt);
  memset(b, 0, sizeof *b);
}

static void batch_int(batch *b, int col, int64_t v)
{
  int i = b->n * b->ncols + col;
  b->iv[i] = v;
  b->toff[i] = -1;
}

static void batch_text(batch *b, int col, const char *s)
{
  int i = b->n * b->ncols + col;
  b->toff[i] = (int)b->txt.len;
  rpd_buf_add(&b->txt, s, strlen(s) + 1);
}

/* Bind row r of the cells iv/toff/txt (ncols a row) into st at parameter
 * offset base. */
static void bind_row(sqlite3_stmt *st, int ncols, const int64_t *iv,
                     const int *toff, const char *txt, int r, int base)
{
  for (int c = 0; c < ncols; c++) {
    int i = r * ncols + c;
    if (toff[i] < 0)
      sqlite3_bind_int64(st, base + c + 1, iv[i]);
    else
      sqlite3_bind_text(st, base + c + 1, txt + toff[i], -1, SQLITE_STATIC);
  }
}

int w_rows(imp *m, batch *b, int rows, const int64_t *iv, const int *toff,
           const char *txt)
{
  int rc = RPD_OK;
  int64_t done = 0;
  if (rows == BATCH_ROWS) {
    for (int r = 0; r < rows; r++)
      bind_row(b->many, b->ncols, iv, toff, txt, r, r * b->ncols);
    rc = run(m, b->many);
    done = sqlite3_changes(rpd_db(m->r));
  } else {
    for (int r = 0; r < rows && !rc; r++) {
      bind_row(b->one, b->ncols, iv, toff, txt, r, 0);
      rc = run(m, b->one);
      done += sqlite3_changes(rpd_db(m->r));
    }
  }
  if (rc)
    return rc;
  if (b->inserted)
    *b->inserted += done;
  if (b->ignored)
    *b->ignored += rows - done;
  return RPD_OK;
}

/* Insert the collected rows. */
static int batch_flush(imp *m, batch *b)
{
  int rows = b->n;
  if (!rows)
    return RPD_OK;
  int rc = w_rows(m, b, rows, b->iv, b->toff, b->txt.s);
  b->n = 0;
  rpd_buf_reset(&b->txt);
  return rc;
}

/* The current row is complete. */
static int batch_row(imp *m, batch *b)
{
  if (++b->n < BATCH_ROWS)
    return RPD_OK;
  return pipe_on(m) ? m->pipe->take(m, b) : batch_flush(m, b);
}

int w_flush(imp *m)
{
  batch *all[] = { &m->b_uarg, &m->b_op, &m->b_api, &m->b_apiop, &m->b_kapi, &m->b_capi };
  int rc = pipe_pause(m);
  for (size_t i = 0; i < sizeof all / sizeof all[0] && !rc; i++)
    if (all[i]->ncols)
      rc = batch_flush(m, all[i]);
  pipe_resume(m);
  return rc;
}

void w_discard(imp *m)
{
  batch *all[] = { &m->b_uarg, &m->b_op, &m->b_api, &m->b_apiop, &m->b_kapi, &m->b_capi };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    all[i]->n = 0;
    rpd_buf_reset(&all[i]->txt);
  }
}

int w_strings_reload(imp *m)
{
  if (m->str)
    rpd_strtab_free(m->str);
  m->str = NULL;
  return rpd_strtab_open(m->r, "rocpd_string", &m->str);
}

int w_prepare(imp *m)
{
  int rc = rpd_strtab_open(m->r, "rocpd_string", &m->str);
  /* api args are one rocpd_ustring row per call (never interned: memory
   * stays flat); its string index is rebuilt once at the end (main.c) */
  if (!rc)
    rc = rpd_exec(m->r, "DROP INDEX IF EXISTS rocpd_ustri_string_84d4a7_idx;"
                  " CREATE TABLE IF NOT EXISTS ext_kernel_name ("
                  " name_id INTEGER NOT NULL PRIMARY KEY REFERENCES rocpd_string(id),"
                  " short_name_id INTEGER NOT NULL REFERENCES rocpd_string(id))");
  if (!rc)
    rc = rpd_query_int64(m->r, "SELECT min(id) FROM rocpd_ustring WHERE string = ''",
                         &m->empty_args);
  if (rc == RPD_ENOTFOUND)
    rc = rpd_exec(m->r, "INSERT INTO rocpd_ustring(string) VALUES ('')");
  if (!rc && !m->empty_args)
    rc = rpd_query_int64(m->r, "SELECT min(id) FROM rocpd_ustring WHERE string = ''",
                         &m->empty_args);
  if (!rc)
    rc = rpd_query_int64(m->r, "SELECT coalesce(max(id), 0) + 1 FROM rocpd_ustring",
                         &m->next_ustr);
  if (!rc)
    rc = rpd_query_int64(m->r, "SELECT coalesce(max(id), 0) + 1 FROM rocpd_op",
                         &m->next_op);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT OR IGNORE INTO ext_kernel_name(name_id, "
                     "short_name_id) VALUES (?,?)", &m->kname);
  if (!rc)
    rc = batch_open(m, &m->b_uarg, "INSERT INTO rocpd_ustring(id, string)", 2, NULL, NULL);
  if (!rc)
    rc = batch_open(m, &m->b_op, "INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, "
                    "start, end, description_id, opType_id)", 8, &m->n_op, NULL);
  if (!rc)
    rc = batch_open(m, &m->b_api, "INSERT OR IGNORE INTO rocpd_api(id, pid, tid, start, "
                    "end, apiName_id, category_id, domain_id, args_id)", 9,
                    &m->n_api, &m->n_dup_api);
  if (!rc)
    rc = batch_open(m, &m->b_apiop, "INSERT INTO rocpd_api_ops(api_id, op_id)", 2,
                    &m->n_apiop, NULL);
  if (!rc)
    rc = batch_open(m, &m->b_kapi, "INSERT OR IGNORE INTO rocpd_kernelapi(api_ptr_id, "
                    "stream, gridX, gridY, gridZ, workgroupX, workgroupY, "
                    "workgroupZ, groupSegmentSize, privateSegmentSize, "
                    "kernelName_id)", 11, &m->n_kapi, NULL);
  if (!rc)
    rc = batch_open(m, &m->b_capi, "INSERT OR IGNORE INTO rocpd_copyapi(api_ptr_id, "
                    "stream, size, width, height, kind, dst, src, dstDevice, "
                    "srcDevice, sync, pinned)", 12, &m->n_capi, NULL);
  return rc;
}

void w_finalize(imp *m)
{
  sqlite3_finalize(m->kname);
  m->kname = NULL;
  batch_close(&m->b_uarg);
  batch_close(&m->b_op);
  batch_close(&m->b_api);
  batch_close(&m->b_apiop);
  batch_close(&m->b_kapi);
  batch_close(&m->b_capi);
  if (m->str)
    rpd_strtab_free(m->str);
  m->str = NULL;
  imap_free(&m->kname_seen);
  imap_free(&m->disp_op);
  w_ext_finalize(m);
  rpd_buf_free(&m->args);
}

int w_string_id(imp *m, const char *s, int64_t *id)
{
  if (!s)
    s = "";
  if (!pipe_on(m))
    return rpd_strtab_id(m->str, s, id);
  /* the writer thread has the connection: the cache, or pause it */
  if (rpd_strtab_cached(m->str, s, id) == RPD_OK)
    return RPD_OK;
  int rc = pipe_pause(m);
  if (!rc)
    rc = rpd_strtab_id(m->str, s, id);
  pipe_resume(m);
  return rc;
}

/* The rocpd_ustring id of an api call's args: a new row unless empty. */
static int w_args(imp *m, const char *args, int64_t *id)
{
  if (!args || !*args) {
    *id = m->empty_args;
    return RPD_OK;
  }
  *id = m->next_ustr++;
  batch_int(&m->b_uarg, 0, *id);
  batch_text(&m->b_uarg, 1, args);
  return batch_row(m, &m->b_uarg);
}

int w_kernel_name(imp *m, const char *full, const char *short_name,
                  int64_t *desc_id, int64_t *name_id)
{
  int64_t short_id, seen;
  if (!full || !*full)
    full = short_name ? short_name : "";   /* only a short name is known */
  if (!short_name || !*short_name)
    short_name = full;
  int rc = w_string_id(m, full, name_id);
  short_id = *name_id;
  if (!rc && short_name != full && strcmp(short_name, full))
    rc = w_string_id(m, short_name, &short_id);
  if (rc)
    return rc;
  *desc_id = m->truncated_names ? short_id : *name_id;
  if (imap_get(&m->kname_seen, *name_id, &seen))
    return RPD_OK;
  imap_put(&m->kname_seen, *name_id, 1);
  m->n_kname++;
  if (strchr(full, '('))
    m->n_kname_sig++;
  if ((rc = pipe_pause(m)) == RPD_OK) {
    sqlite3_bind_int64(m->kname, 1, *name_id);
    sqlite3_bind_int64(m->kname, 2, short_id);
    rc = run(m, m->kname);
  }
  pipe_resume(m);
  return rc;
}

/* 1 if a row with these times passes rpd_check_trace's range checks
 * (main.c skips that scan when every row passed). */
static int row_sane(int64_t start, int64_t end)
{
  return start >= 0 && end >= start && end < RPD_TIME_LIMIT;
}

/* An op row; *op_id receives its id. */
int w_op(imp *m, int64_t gpu, int64_t queue, int64_t seq, int64_t start,
         int64_t end, int64_t desc_id, const char *optype, int64_t *op_id)
{
  int64_t t;
  int rc = w_string_id(m, optype, &t);
  if (rc)
    return rc;
  batch *b = &m->b_op;
  if (m->prog_rows)
    prog_add(m, 1);
  if (!row_sane(start, end) || gpu < 0 || gpu >= RPD_GPU_LIMIT)
    m->n_bad_rows++;
  *op_id = m->next_op++;
  m->last_op = *op_id;
  batch_int(b, 0, *op_id);
  batch_int(b, 1, gpu);
  batch_int(b, 2, queue);
  batch_int(b, 3, seq);
  batch_int(b, 4, start);
  batch_int(b, 5, end);
  batch_int(b, 6, desc_id);
  batch_int(b, 7, t);
  return batch_row(m, b);
}

/* Link op to the api call with correlation id corr (0 = none). */
int w_link(imp *m, int64_t corr, int64_t op_id, int64_t *api_id)
{
  *api_id = 0;
  if (corr <= 0) {
    m->n_nolink++;
    return RPD_OK;
  }
  *api_id = m->api_base + corr;
  if (*api_id > m->max_api)
    m->max_api = *api_id;
  batch_int(&m->b_apiop, 0, *api_id);
  batch_int(&m->b_apiop, 1, op_id);
  return batch_row(m, &m->b_apiop);
}

/* "0x1f" for a stream handle. */
static void hexstr(char *b, size_t n, int64_t v)
{
  static const char hx[] = "0123456789abcdef";
  char t[20];
  int k = 0;
  uint64_t u = (uint64_t)v;
  do {
    t[k++] = hx[u & 15];
    u >>= 4;
  } while (u);
  if ((size_t)k + 3 > n) {
    snprintf(b, n, "0x");
    return;
  }
  b[0] = '0';
  b[1] = 'x';
  for (int i = 0; i < k; i++)
    b[2 + i] = t[k - 1 - i];
  b[2 + k] = '\0';
}

int w_kernel(imp *m, const kern *k)
{
  int64_t op_id, api_id;
  int rc = w_op(m, k->gpu, k->queue, k->seq, k->start, k->end, k->desc_id,
                "KernelExecution", &op_id);
  if (!rc && m->want_disp)
    imap_put(&m->disp_op, k->seq, op_id);
  if (!rc)
    rc = w_link(m, k->corr, op_id, &api_id);
  if (rc || !api_id)
    return rc;
  char sb[32];
  batch *b = &m->b_kapi;
  hexstr(sb, sizeof sb, k->stream);
  batch_int(b, 0, api_id);
  batch_text(b, 1, sb);
  for (int i = 0; i < 3; i++) {
    batch_int(b, 2 + i, k->grid[i]);
    batch_int(b, 5 + i, k->wg[i]);
  }
  batch_int(b, 8, k->lds);
  batch_int(b, 9, k->scratch);
  batch_int(b, 10, k->name_id);
  return batch_row(m, b);
}

/* Copy direction from a rocprofiler name ("MEMORY_COPY_HOST_TO_DEVICE",
 * "HOST_TO_DEVICE", "H2D"...): 0 H2H, 1 H2D, 2 D2H, 3 D2D (hipMemcpyKind);
 * -1 unknown. */
int copy_kind(const char *s)
{
  if (!s)
    return -1;
  if (strstr(s, "HOST_TO_HOST") || strstr(s, "HostToHost"))
    return 0;
  if (strstr(s, "HOST_TO_DEVICE") || strstr(s, "HostToDevice"))
    return 1;
  if (strstr(s, "DEVICE_TO_HOST") || strstr(s, "DeviceToHost"))
    return 2;
  if (strstr(s, "DEVICE_TO_DEVICE") || strstr(s, "DeviceToDevice") ||
      strstr(s, "PEER"))
    return 3;
  return -1;
}

static const char *const copy_optype[] = {
  "CopyHostToHost", "CopyHostToDevice", "CopyDeviceToHost", "CopyDeviceToDevice"
};

int w_copy(imp *m, const copyrec *c)
{
  int64_t op_id, api_id, empty;
  int kind = c->kind < 0 ? 3 : c->kind;
  int64_t gpu = kind == 1 ? c->dst_gpu : c->src_gpu;
  if (gpu < 0)
    gpu = c->dst_gpu >= 0 ? c->dst_gpu : (c->src_gpu >= 0 ? c->src_gpu : 0);
  int rc = w_string_id(m, "", &empty);
  if (!rc)
    rc = w_op(m, gpu, c->queue, 0, c->start, c->end, empty,
              c->optype ? c->optype : c->kind < 0 ? "Memcpy" : copy_optype[kind],
              &op_id);
  if (!rc)
    rc = w_link(m, c->corr, op_id, &api_id);
  if (rc || !api_id)
    return rc;
  char sb[32];
  batch *b = &m->b_capi;
  hexstr(sb, sizeof sb, c->stream);
  batch_int(b, 0, api_id);
  batch_text(b, 1, sb);
  batch_int(b, 2, c->bytes);
  batch_int(b, 3, 0);
  batch_int(b, 4, 0);
  batch_int(b, 5, c->kind < 0 ? 0 : c->kind);
  batch_text(b, 6, "");
  batch_text(b, 7, "");
  batch_int(b, 8, c->dst_gpu);
  batch_int(b, 9, c->src_gpu);
  batch_int(b, 10, 0);
  batch_int(b, 11, 0);
  return batch_row(m, b);
}

int w_api(imp *m, const apirec *a)
{
  int64_t name, cat, dom, args;
  int64_t id = a->corr > 0 ? m->api_base + a->corr : m->max_api + 1;
  int rc = w_string_id(m, a->name, &name);
  if (!rc)
    rc = w_string_id(m, a->category, &cat);
  if (!rc)
    rc = w_string_id(m, a->domain, &dom);
  if (!rc)
    rc = w_args(m, a->args, &args);
  if (rc)
    return rc;
  if (id > m->max_api)
    m->max_api = id;
  if (!row_sane(a->start, a->end))
    m->n_bad_rows++;
  if (m->prog_rows)
    prog_add(m, 1);
  batch *b = &m->b_api;
  batch_int(b, 0, id);
  batch_int(b, 1, a->pid);
  batch_int(b, 2, a->tid);
  batch_int(b, 3, a->start);
  batch_int(b, 4, a->end);
  batch_int(b, 5, name);
  batch_int(b, 6, cat);
  batch_int(b, 7, dom);
  batch_int(b, 8, args);
  return batch_row(m, b);
}

/* Start a new process section: correlation ids restart per process, so
 * later sections are shifted past every id used so far. */
void new_section(imp *m)
{
  m->api_base = m->max_api;
  m->pid = 0;
}

int w_meta_time(imp *m, int64_t init, int64_t fini)
{
  if (init > 0 && (!m->init_time || init < m->init_time))
    m->init_time = init;
  if (fini > 0 && fini > m->fini_time)
    m->fini_time = fini;
  return RPD_OK;
}

int w_meta_add(imp *m, const char *tag, const char *value)
{
  if (!value || !*value)
    return RPD_OK;
  int rc = pipe_pause(m);
  if (!rc)
    rc = rpd_meta_add(m->r, tag, value);
  pipe_resume(m);
  return rc;
}

int w_meta_int(imp *m, const char *tag, int64_t v)
{
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  return w_meta_add(m, tag, b);
}

/* The trace's closing rows: times, source, kernel naming; the args index. */
int w_finish(imp *m)
{
  int rc = RPD_OK;
  if (m->init_time)
    rc = w_meta_int(m, "rocprofv3::init_time", m->init_time);
  if (!rc && m->fini_time)
    rc = w_meta_int(m, "rocprofv3::fini_time", m->fini_time);
  if (!rc)
    rc = rpd_meta_set(m->r, "rpd-import::source", m->input);
  /* how kernels are named: raptor says so when the names are short */
  if (!rc && m->n_kname)
    rc = rpd_meta_set(m->r, "rpd-import::kernel_names",
                      m->short_only ? "truncated-only" :
                      m->truncated_names ? "truncated" : "full");
  if (!rc)
    rc = rpd_exec(m->r, "CREATE INDEX IF NOT EXISTS rocpd_ustri_string_84d4a7_idx"
                  " ON rocpd_ustring (string)");
  return rc;
}

int db_time(sqlite3_stmt *st, int i, const char *table, int64_t *out)
{
  if (rpd_int_value(sqlite3_column_value(st, i), out))
    return rpd_seterr(RPD_EPARSE, "%s.%s: %s", table, sqlite3_column_name(st, i),
                      rpd_errmsg());
  return RPD_OK;
}
