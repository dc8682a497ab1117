/* writer.c - rpd-import: the RPD writer every reader feeds (ops, api calls,
 * links, kernel/copy details, metadata) and the small int64 map. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpd.h"
#include "import.h"

static size_t imap_slot(const imap *m, int64_t k)
{
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 17) & (m->cap - 1);
  while (m->used[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

void imap_put(imap *m, int64_t k, int64_t v)
{
  if (2 * (m->n + 1) > m->cap) {
    imap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->keys = rpd_xcalloc(m->cap, sizeof *m->keys);
    m->vals = rpd_xcalloc(m->cap, sizeof *m->vals);
    m->used = rpd_xcalloc(m->cap, 1);
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
      if (old.used[i])
        imap_put(m, old.keys[i], old.vals[i]);
    free(old.keys); free(old.vals); free(old.used);
  }
  size_t i = imap_slot(m, k);
  if (!m->used[i]) {
    m->used[i] = 1;
    m->keys[i] = k;
    m->n++;
  }
  m->vals[i] = v;
}

/* 1 and *v if present, else 0. */
int imap_get(const imap *m, int64_t k, int64_t *v)
{
  if (!m->cap)
    return 0;
  size_t i = imap_slot(m, k);
  if (!m->used[i])
    return 0;
  *v = m->vals[i];
  return 1;
}

void imap_free(imap *m)
{
  free(m->keys); free(m->vals); free(m->used);
  memset(m, 0, sizeof *m);
}



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

/* Step an insert statement once and reset it. */
static int run(imp *m, sqlite3_stmt *st)
{
  int s = rpd_step(m->r, st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return s == SQLITE_DONE ? RPD_OK : (s < 0 ? -s : RPD_ESQL);
}

int w_prepare(imp *m)
{
  int rc = rpd_strtab_open(m->r, "rocpd_string", &m->str);
  /* api args are one rocpd_ustring row per call (never interned: memory
   * stays flat); its string index is rebuilt once by w_finish */
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
    rc = rpd_prepare(m->r, "INSERT INTO rocpd_ustring(string) VALUES (?)", &m->uarg);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT OR IGNORE INTO ext_kernel_name(name_id, "
                     "short_name_id) VALUES (?,?)", &m->kname);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT INTO rocpd_op(gpuId, queueId, sequenceId, "
                     "start, end, description_id, opType_id) "
                     "VALUES (?,?,?,?,?,?,?)", &m->op);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT OR IGNORE INTO rocpd_api(id, pid, tid, start, "
                     "end, apiName_id, category_id, domain_id, args_id) "
                     "VALUES (?,?,?,?,?,?,?,?,?)", &m->api);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?,?)",
                     &m->apiop);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT OR IGNORE INTO rocpd_kernelapi(api_ptr_id, "
                     "stream, gridX, gridY, gridZ, workgroupX, workgroupY, "
                     "workgroupZ, groupSegmentSize, privateSegmentSize, "
                     "kernelName_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)", &m->kapi);
  if (!rc)
    rc = rpd_prepare(m->r, "INSERT OR IGNORE INTO rocpd_copyapi(api_ptr_id, "
                     "stream, size, width, height, kind, dst, src, dstDevice, "
                     "srcDevice, sync, pinned) VALUES (?,?,?,0,0,?,?,?,?,?,?,0)",
                     &m->capi);
  return rc;
}

void w_finalize(imp *m)
{
  sqlite3_finalize(m->op);
  sqlite3_finalize(m->api);
  sqlite3_finalize(m->apiop);
  sqlite3_finalize(m->kapi);
  sqlite3_finalize(m->capi);
  sqlite3_finalize(m->uarg);
  sqlite3_finalize(m->kname);
  m->op = m->api = m->apiop = m->kapi = m->capi = m->uarg = m->kname = NULL;
  if (m->str)
    rpd_strtab_free(m->str);
  m->str = NULL;
  imap_free(&m->kname_seen);
  rpd_buf_free(&m->args);
}

int sid(imp *m, const char *s, int64_t *id)
{
  return rpd_strtab_id(m->str, s ? s : "", id);
}

/* The rocpd_ustring id of an api call's args: a new row unless empty. */
static int w_args(imp *m, const char *args, int64_t *id)
{
  if (!args || !*args) {
    *id = m->empty_args;
    return RPD_OK;
  }
  sqlite3_bind_text(m->uarg, 1, args, -1, SQLITE_STATIC);
  int rc = run(m, m->uarg);
  if (!rc)
    *id = sqlite3_last_insert_rowid(m->r->db);
  return rc;
}

int w_kernel_name(imp *m, const char *full, const char *short_name,
                  int64_t *desc_id, int64_t *name_id)
{
  int64_t short_id, seen;
  if (!short_name || !*short_name)
    short_name = full;
  int rc = sid(m, full, name_id);
  if (!rc)
    rc = sid(m, short_name, &short_id);
  if (rc)
    return rc;
  *desc_id = m->truncated_names ? short_id : *name_id;
  if (imap_get(&m->kname_seen, *name_id, &seen))
    return RPD_OK;
  imap_put(&m->kname_seen, *name_id, 1);
  m->n_kname++;
  if (strchr(full, '('))
    m->n_kname_sig++;
  sqlite3_bind_int64(m->kname, 1, *name_id);
  sqlite3_bind_int64(m->kname, 2, short_id);
  return run(m, m->kname);
}

/* An op row; *op_id receives its id. */
int w_op(imp *m, int64_t gpu, int64_t queue, int64_t seq, int64_t start,
                int64_t end, int64_t desc_id, const char *optype, int64_t *op_id)
{
  int64_t t;
  int rc = sid(m, optype, &t);
  if (rc)
    return rc;
  sqlite3_bind_int64(m->op, 1, gpu);
  sqlite3_bind_int64(m->op, 2, queue);
  sqlite3_bind_int64(m->op, 3, seq);
  sqlite3_bind_int64(m->op, 4, start);
  sqlite3_bind_int64(m->op, 5, end);
  sqlite3_bind_int64(m->op, 6, desc_id);
  sqlite3_bind_int64(m->op, 7, t);
  rc = run(m, m->op);
  if (!rc) {
    *op_id = sqlite3_last_insert_rowid(m->r->db);
    m->n_op++;
  }
  return rc;
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
  sqlite3_bind_int64(m->apiop, 1, *api_id);
  sqlite3_bind_int64(m->apiop, 2, op_id);
  int rc = run(m, m->apiop);
  if (!rc)
    m->n_apiop++;
  return rc;
}

static void hexstr(char *b, size_t n, int64_t v)
{
  snprintf(b, n, "0x%" PRIx64, (uint64_t)v);
}

int w_kernel(imp *m, const kern *k)
{
  int64_t op_id, api_id;
  int rc = w_op(m, k->gpu, k->queue, k->seq, k->start, k->end, k->desc_id,
                "KernelExecution", &op_id);
  if (!rc)
    rc = w_link(m, k->corr, op_id, &api_id);
  if (rc || !api_id)
    return rc;
  char sb[32];
  hexstr(sb, sizeof sb, k->stream);
  sqlite3_bind_int64(m->kapi, 1, api_id);
  sqlite3_bind_text(m->kapi, 2, sb, -1, SQLITE_TRANSIENT);
  for (int i = 0; i < 3; i++) {
    sqlite3_bind_int64(m->kapi, 3 + i, k->grid[i]);
    sqlite3_bind_int64(m->kapi, 6 + i, k->wg[i]);
  }
  sqlite3_bind_int64(m->kapi, 9, k->lds);
  sqlite3_bind_int64(m->kapi, 10, k->scratch);
  sqlite3_bind_int64(m->kapi, 11, k->name_id);
  rc = run(m, m->kapi);
  if (!rc)
    m->n_kapi += sqlite3_changes(m->r->db);
  return rc;
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
  int rc = sid(m, "", &empty);
  if (!rc)
    rc = w_op(m, gpu, 0, 0, c->start, c->end, empty,
              c->kind < 0 ? "Memcpy" : copy_optype[kind], &op_id);
  if (!rc)
    rc = w_link(m, c->corr, op_id, &api_id);
  if (rc || !api_id)
    return rc;
  char sb[32];
  hexstr(sb, sizeof sb, c->stream);
  sqlite3_bind_int64(m->capi, 1, api_id);
  sqlite3_bind_text(m->capi, 2, sb, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(m->capi, 3, c->bytes);
  sqlite3_bind_int(m->capi, 4, c->kind < 0 ? 0 : c->kind);
  sqlite3_bind_text(m->capi, 5, "", -1, SQLITE_STATIC);
  sqlite3_bind_text(m->capi, 6, "", -1, SQLITE_STATIC);
  sqlite3_bind_int64(m->capi, 7, c->dst_gpu);
  sqlite3_bind_int64(m->capi, 8, c->src_gpu);
  sqlite3_bind_int(m->capi, 9, 0);
  rc = run(m, m->capi);
  if (!rc)
    m->n_capi += sqlite3_changes(m->r->db);
  return rc;
}

int w_api(imp *m, const apirec *a)
{
  int64_t name, cat, dom, args;
  int64_t id = a->corr > 0 ? m->api_base + a->corr : m->max_api + 1;
  int rc = sid(m, a->name, &name);
  if (!rc)
    rc = sid(m, a->category, &cat);
  if (!rc)
    rc = sid(m, a->domain, &dom);
  if (!rc)
    rc = w_args(m, a->args, &args);
  if (rc)
    return rc;
  if (id > m->max_api)
    m->max_api = id;
  sqlite3_bind_int64(m->api, 1, id);
  sqlite3_bind_int64(m->api, 2, a->pid);
  sqlite3_bind_int64(m->api, 3, a->tid);
  sqlite3_bind_int64(m->api, 4, a->start);
  sqlite3_bind_int64(m->api, 5, a->end);
  sqlite3_bind_int64(m->api, 6, name);
  sqlite3_bind_int64(m->api, 7, cat);
  sqlite3_bind_int64(m->api, 8, dom);
  sqlite3_bind_int64(m->api, 9, args);
  rc = run(m, m->api);
  if (!rc) {
    if (sqlite3_changes(m->r->db))
      m->n_api++;
    else
      m->n_dup_api++;
  }
  return rc;
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
  return rpd_meta_add(m->r, tag, value);
}

int w_meta_int(imp *m, const char *tag, int64_t v)
{
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  return rpd_meta_add(m->r, tag, b);
}
