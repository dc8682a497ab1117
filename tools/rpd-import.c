/* rpd-import.c - convert rocprofv3 output (JSON, CSV set, SQLite) to an RPD trace.
 *
 * The output is a new schema-v3 RPD written into a temporary file next to
 * OUT and renamed into place only after everything was written and
 * committed, so a failed or killed import never leaves a half-written OUT.
 * JSON is streamed with yajl (gzread chunks for .json.gz): memory stays flat
 * in the number of records.  See docs/rpd-import.md for the field mapping.
 */
static const char usage[] =
"usage: rpd-import INPUT OUT.rpd [--force] [--full-names] [-q]\n"
"\n"
"Write a new RPD trace (schema v3) from rocprofv3 output.  INPUT is one of:\n"
"  NAME_results.json[.gz]   rocprofiler-sdk-tool JSON (streamed, flat memory)\n"
"  a CSV set                a directory, a file prefix (out/1234_) or one of\n"
"                           its files (out/1234_kernel_trace.csv): kernel_trace,\n"
"                           hip_api_trace, hsa_api_trace, marker_api_trace,\n"
"                           rccl_api_trace, memory_copy_trace, agent_info\n"
"  NAME_results.db          rocprofv3 SQLite database (rocprofiler-sdk rocpd)\n"
"\n"
"  --force        replace OUT.rpd if it exists (default: refuse)\n"
"  --full-names   op description = full demangled kernel name (default: the\n"
"                 truncated name, as TraceLens reports kernels)\n"
"  -q, --quiet    do not print the summary\n"
"\n"
"Kernel dispatches become rocpd_op 'KernelExecution' rows, memory copies\n"
"Copy* rows, API records rocpd_api rows linked through rocpd_api_ops by\n"
"correlation id (rocpd_api.id = correlation id).  A summary of records\n"
"read per kind and rows written per table goes to stderr.\n";

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl_parse.h>
#include <zlib.h>

#include "rpd.h"

/* ------------------------------------------------------------ small maps */

/* Open-addressing hash map int64 -> int64 (value), grows by doubling. */
typedef struct imap {
  int64_t *keys, *vals;
  unsigned char *used;
  size_t cap, n;
} imap;

static size_t imap_slot(const imap *m, int64_t k)
{
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 17) & (m->cap - 1);
  while (m->used[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static void imap_put(imap *m, int64_t k, int64_t v)
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
static int imap_get(const imap *m, int64_t k, int64_t *v)
{
  if (!m->cap)
    return 0;
  size_t i = imap_slot(m, k);
  if (!m->used[i])
    return 0;
  *v = m->vals[i];
  return 1;
}

static void imap_free(imap *m)
{
  free(m->keys); free(m->vals); free(m->used);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ the writer */

/* What was read, by record kind (for the summary). */
typedef struct kindcount {
  char name[48];
  int64_t n;
  int handled;
} kindcount;

typedef struct imp {
  rpd *r;
  const char *input;
  rpd_strtab *str, *ustr;
  sqlite3_stmt *op, *api, *apiop, *kapi, *capi;
  int full_names;
  int64_t api_base;         /* added to correlation ids of this section */
  int64_t max_api;          /* largest api id written or referenced */
  int64_t pid;              /* process of the current section */
  kindcount kinds[32];
  int nkinds;
  int64_t n_op, n_api, n_apiop, n_kapi, n_capi, n_dup_api, n_nolink;
  int64_t init_time, fini_time;   /* min init / max fini over sections */
  rpd_buf args;             /* scratch */
} imp;

static void count_read(imp *m, const char *kind, int handled)
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

static int w_prepare(imp *m)
{
  int rc = rpd_strtab_open(m->r, "rocpd_string", &m->str);
  if (!rc)
    rc = rpd_strtab_open(m->r, "rocpd_ustring", &m->ustr);
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

static void w_finalize(imp *m)
{
  sqlite3_finalize(m->op);
  sqlite3_finalize(m->api);
  sqlite3_finalize(m->apiop);
  sqlite3_finalize(m->kapi);
  sqlite3_finalize(m->capi);
  m->op = m->api = m->apiop = m->kapi = m->capi = NULL;
  if (m->str)
    rpd_strtab_free(m->str);
  if (m->ustr)
    rpd_strtab_free(m->ustr);
  m->str = m->ustr = NULL;
  rpd_buf_free(&m->args);
}

static int sid(imp *m, const char *s, int64_t *id)
{
  return rpd_strtab_id(m->str, s ? s : "", id);
}

/* An op row; *op_id receives its id. */
static int w_op(imp *m, int64_t gpu, int64_t queue, int64_t seq, int64_t start,
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
static int w_link(imp *m, int64_t corr, int64_t op_id, int64_t *api_id)
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

typedef struct kern {
  int64_t gpu, queue, seq, start, end, corr, stream;
  int64_t grid[3], wg[3], lds, scratch;
  int64_t desc_id, name_id;
} kern;

static int w_kernel(imp *m, const kern *k)
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
static int copy_kind(const char *s)
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

typedef struct copyrec {
  int kind;                 /* copy_kind() */
  int64_t src_gpu, dst_gpu; /* -1 = host / unknown */
  int64_t start, end, corr, bytes, stream;
} copyrec;

static int w_copy(imp *m, const copyrec *c)
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

typedef struct apirec {
  int64_t corr, pid, tid, start, end;
  const char *domain, *category, *name, *args;
} apirec;

static int w_api(imp *m, const apirec *a)
{
  int64_t name, cat, dom, args;
  int64_t id = a->corr > 0 ? m->api_base + a->corr : m->max_api + 1;
  int rc = sid(m, a->name, &name);
  if (!rc)
    rc = sid(m, a->category, &cat);
  if (!rc)
    rc = sid(m, a->domain, &dom);
  if (!rc)
    rc = rpd_strtab_id(m->ustr, a->args ? a->args : "", &args);
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
static void new_section(imp *m)
{
  m->api_base = m->max_api;
  m->pid = 0;
}

static int w_meta_time(imp *m, int64_t init, int64_t fini)
{
  if (init > 0 && (!m->init_time || init < m->init_time))
    m->init_time = init;
  if (fini > 0 && fini > m->fini_time)
    m->fini_time = fini;
  return RPD_OK;
}

static int w_meta_add(imp *m, const char *tag, const char *value)
{
  if (!value || !*value)
    return RPD_OK;
  return rpd_meta_add(m->r, tag, value);
}

static int w_meta_int(imp *m, const char *tag, int64_t v)
{
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  return rpd_meta_add(m->r, tag, b);
}

/* ------------------------------------------------------------ JSON input */

enum { R_NONE, R_TOP, R_TOOL, R_SECTION, R_STRINGS, R_BUFREC, R_AGENTS,
       R_SYMS, R_KINDNAMES, R_MARKERSTR, R_RECARR, R_RECORD, R_INREC };
enum { RK_META = 1, RK_AGENT, RK_SYM, RK_KIND, RK_MARKER, RK_BUF };

#define JMAXD 64
#define JKEY 96

typedef struct jfield {
  char key[128];
  rpd_buf val;
  int n;        /* values appended (arrays) */
} jfield;

typedef struct ksym {
  char *short_name, *full_name;
  int64_t short_id, full_id;   /* interned lazily; -1 = not yet */
} ksym;

typedef struct kindnames {
  char *name;
  char **ops;
  int nops;
} kindnames;

typedef struct jstate {
  imp *m;
  int rc;                          /* first failure (callbacks abort) */
  int depth;
  char is_map[JMAXD + 1];
  int role[JMAXD + 1];
  char key[JMAXD + 1][JKEY];
  int rec_depth, rec_kind;
  char recarr[48];                 /* buffer_records key of the current array */
  jfield *f;
  int nf, capf, hint;
  int saw_tool;
  /* per-section tables */
  imap agents;                     /* agent handle -> gpu index (or -1) */
  imap symidx;                     /* kernel_id -> index into syms */
  ksym *syms;
  int nsyms, capsyms;
  kindnames *kn;
  int nkn, capkn;
  imap markmsg;                    /* correlation id -> index into markers */
  char **markers;
  int nmarkers, capmarkers;
} jstate;

static void js_clear_section(jstate *j)
{
  imap_free(&j->agents);
  imap_free(&j->symidx);
  for (int i = 0; i < j->nsyms; i++) {
    free(j->syms[i].short_name);
    free(j->syms[i].full_name);
  }
  free(j->syms);
  j->syms = NULL;
  j->nsyms = j->capsyms = 0;
  for (int i = 0; i < j->nkn; i++) {
    free(j->kn[i].name);
    for (int k = 0; k < j->kn[i].nops; k++)
      free(j->kn[i].ops[k]);
    free(j->kn[i].ops);
  }
  free(j->kn);
  j->kn = NULL;
  j->nkn = j->capkn = 0;
  imap_free(&j->markmsg);
  for (int i = 0; i < j->nmarkers; i++)
    free(j->markers[i]);
  free(j->markers);
  j->markers = NULL;
  j->nmarkers = j->capmarkers = 0;
}

/* The field named key, or NULL.  Records of one kind list their fields in
 * the same order, so the search starts after the last hit. */
static jfield *jf_find(jstate *j, const char *key)
{
  for (int n = 0, i = j->hint; n < j->nf; n++, i++) {
    if (i >= j->nf)
      i = 0;
    if (!strcmp(j->f[i].key, key)) {
      j->hint = i + 1;
      return &j->f[i];
    }
  }
  return NULL;
}

static const char *jstr(jstate *j, const char *key)
{
  jfield *f = jf_find(j, key);
  return f ? f->val.s : NULL;
}

static int64_t jint(jstate *j, const char *key, int64_t dflt)
{
  const char *s = jstr(j, key);
  if (!s || !*s)
    return dflt;
  return strtoll(s, NULL, 10);
}

/* The flattened key of a scalar at the current position inside a record:
 * map keys from the record down, joined with '.'; arrays add nothing. */
static void jflatkey(jstate *j, char *out, size_t n)
{
  size_t len = 0;
  for (int d = j->rec_depth; d <= j->depth; d++) {
    if (!j->is_map[d])
      continue;
    size_t k = strlen(j->key[d]);
    if (len + k + 2 > n)
      break;
    if (len)
      out[len++] = '.';
    memcpy(out + len, j->key[d], k);
    len += k;
  }
  out[len] = '\0';
}

static void jrec_value(jstate *j, const char *s, size_t len)
{
  char key[128];
  jflatkey(j, key, sizeof key);
  /* a repeated key is an array element: it is the newest field */
  jfield *f = j->nf && !strcmp(j->f[j->nf - 1].key, key) ? &j->f[j->nf - 1] : NULL;
  if (!f) {
    if (j->nf == j->capf) {
      j->capf = j->capf ? 2 * j->capf : 32;
      j->f = rpd_xrealloc(j->f, j->capf * sizeof *j->f);
      memset(j->f + j->nf, 0, (j->capf - j->nf) * sizeof *j->f);
    }
    f = &j->f[j->nf++];
    memcpy(f->key, key, strlen(key) + 1);
    rpd_buf_reset(&f->val);
    f->n = 0;
  }
  if (f->n++)
    rpd_buf_add(&f->val, "\x1f", 1);
  rpd_buf_add(&f->val, s, len);
}

static ksym *sym_of(jstate *j, int64_t kernel_id)
{
  int64_t i;
  return imap_get(&j->symidx, kernel_id, &i) ? &j->syms[i] : NULL;
}

static int sym_ids(jstate *j, int64_t kernel_id, int64_t *desc, int64_t *full)
{
  imp *m = j->m;
  ksym *k = sym_of(j, kernel_id);
  int rc = RPD_OK;
  if (!k) {
    char b[48];
    snprintf(b, sizeof b, "unknown_kernel_%" PRId64, kernel_id);
    rc = sid(m, b, desc);
    *full = *desc;
    return rc;
  }
  if (k->short_id < 0)
    rc = sid(m, k->short_name, &k->short_id);
  if (!rc && k->full_id < 0)
    rc = sid(m, k->full_name, &k->full_id);
  *desc = m->full_names ? k->full_id : k->short_id;
  *full = k->full_id;
  return rc;
}

static const char *first_nonempty(const char *a, const char *b, const char *c)
{
  if (a && *a)
    return a;
  if (b && *b)
    return b;
  return c ? c : "";
}

static int64_t agent_gpu(jstate *j, int64_t handle)
{
  int64_t g;
  return imap_get(&j->agents, handle, &g) ? g : -1;
}

/* Name of operation op of buffer kind k (strings.buffer_records), or NULL. */
static const char *op_name(jstate *j, int64_t k, int64_t op)
{
  if (k < 0 || k >= j->nkn || op < 0 || op >= j->kn[k].nops)
    return NULL;
  return j->kn[k].ops[op];
}

static const char *kind_name(jstate *j, int64_t k)
{
  return k >= 0 && k < j->nkn ? j->kn[k].name : NULL;
}

static int rec_kernel(jstate *j)
{
  kern k = {0};
  int64_t kid = jint(j, "dispatch_info.kernel_id", -1);
  k.gpu = agent_gpu(j, jint(j, "dispatch_info.agent_id.handle", -1));
  k.queue = jint(j, "dispatch_info.queue_id.handle", 0);
  k.seq = jint(j, "dispatch_info.dispatch_id", 0);
  k.start = jint(j, "start_timestamp", 0);
  k.end = jint(j, "end_timestamp", 0);
  k.corr = jint(j, "correlation_id.internal", 0);
  k.stream = jint(j, "stream_id.handle", 0);
  k.grid[0] = jint(j, "dispatch_info.grid_size.x", 0);
  k.grid[1] = jint(j, "dispatch_info.grid_size.y", 0);
  k.grid[2] = jint(j, "dispatch_info.grid_size.z", 0);
  k.wg[0] = jint(j, "dispatch_info.workgroup_size.x", 0);
  k.wg[1] = jint(j, "dispatch_info.workgroup_size.y", 0);
  k.wg[2] = jint(j, "dispatch_info.workgroup_size.z", 0);
  k.lds = jint(j, "dispatch_info.group_segment_size", 0);
  k.scratch = jint(j, "dispatch_info.private_segment_size", 0);
  int rc = sym_ids(j, kid, &k.desc_id, &k.name_id);
  return rc ? rc : w_kernel(j->m, &k);
}

static int rec_copy(jstate *j)
{
  copyrec c = {0};
  int64_t kind = jint(j, "kind", -1), op = jint(j, "operation", -1);
  const char *nm = op_name(j, kind, op);
  c.kind = copy_kind(nm);
  if (c.kind < 0 && op >= 1 && op <= 4)
    c.kind = (int)op - 1;       /* rocprofiler enum order: H2H H2D D2H D2D */
  c.src_gpu = agent_gpu(j, jint(j, "src_agent_id.handle", -1));
  c.dst_gpu = agent_gpu(j, jint(j, "dst_agent_id.handle", -1));
  c.start = jint(j, "start_timestamp", 0);
  c.end = jint(j, "end_timestamp", 0);
  c.corr = jint(j, "correlation_id.internal", 0);
  c.bytes = jint(j, "bytes", 0);
  c.stream = jint(j, "stream_id.handle", 0);
  return w_copy(j->m, &c);
}

/* "name=value | name=value" from the record's args.* fields. */
static const char *rec_args(jstate *j)
{
  rpd_buf *b = &j->m->args;
  rpd_buf_reset(b);
  rpd_buf_add(b, "", 0);
  for (int i = 0; i < j->nf; i++) {
    const char *k = j->f[i].key;
    if (strncmp(k, "args.", 5))
      continue;
    if (b->len)
      rpd_buf_puts(b, " | ");
    rpd_buf_printf(b, "%s=%s", k + 5, j->f[i].val.s ? j->f[i].val.s : "");
  }
  return b->s;
}

static int rec_api(jstate *j, const char *section)
{
  apirec a = {0};
  char opb[32];
  int64_t kind = jint(j, "kind", -1), op = jint(j, "operation", -1);
  const char *nm = op_name(j, kind, op);
  if (!nm) {
    snprintf(opb, sizeof opb, "operation_%" PRId64, op);
    nm = opb;
  }
  a.corr = jint(j, "correlation_id.internal", 0);
  a.pid = j->m->pid;
  a.tid = jint(j, "thread_id", 0);
  a.start = jint(j, "start_timestamp", 0);
  a.end = jint(j, "end_timestamp", 0);
  a.category = kind_name(j, kind);
  a.name = nm;
  a.args = rec_args(j);
  if (!strcmp(section, "hip_api"))
    a.domain = "HIP";
  else if (!strcmp(section, "hsa_api"))
    a.domain = "HSA";
  else if (!strcmp(section, "rccl_api"))
    a.domain = "RCCL";
  else {
    int64_t mi;
    a.domain = "ROCTX";
    a.name = "UserMarker";
    if (imap_get(&j->markmsg, a.corr, &mi))
      a.args = j->markers[mi];
    else if (!*a.args)
      a.args = nm;
  }
  return w_api(j->m, &a);
}

static int rec_meta(jstate *j)
{
  imp *m = j->m;
  m->pid = jint(j, "pid", 0);
  int64_t init = jint(j, "init_time", 0), fini = jint(j, "fini_time", 0);
  w_meta_time(m, init, fini);
  jfield *cmd = jf_find(j, "command");
  if (cmd && cmd->val.s)
    for (char *p = cmd->val.s; *p; p++)
      if (*p == '\x1f')
        *p = ' ';
  int rc = w_meta_int(m, "rocprofv3::pid", m->pid);
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::hostname", jstr(j, "node.hostname"));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::command", cmd ? cmd->val.s : NULL);
  return rc;
}

static void rec_agent(jstate *j)
{
  int64_t h = jint(j, "id.handle", -1);
  int64_t type = jint(j, "type", 0);
  imap_put(&j->agents, h, type == 2 ? jint(j, "logical_node_type_id", 0) : -1);
}

static char *xstrdup0(const char *s)
{
  return rpd_xstrdup(s ? s : "");
}

static void rec_sym(jstate *j)
{
  if (j->nsyms == j->capsyms) {
    j->capsyms = j->capsyms ? 2 * j->capsyms : 256;
    j->syms = rpd_xrealloc(j->syms, j->capsyms * sizeof *j->syms);
  }
  ksym *k = &j->syms[j->nsyms];
  const char *tr = jstr(j, "truncated_kernel_name");
  const char *fo = jstr(j, "formatted_kernel_name");
  const char *kn = jstr(j, "kernel_name");
  k->short_name = xstrdup0(first_nonempty(tr, fo, kn));
  k->full_name = xstrdup0(first_nonempty(fo, jstr(j, "demangled_kernel_name"), kn));
  k->short_id = k->full_id = -1;
  imap_put(&j->symidx, jint(j, "kernel_id", -1), j->nsyms++);
}

static void rec_kindnames(jstate *j)
{
  if (j->nkn == j->capkn) {
    j->capkn = j->capkn ? 2 * j->capkn : 32;
    j->kn = rpd_xrealloc(j->kn, j->capkn * sizeof *j->kn);
  }
  kindnames *k = &j->kn[j->nkn++];
  k->name = xstrdup0(jstr(j, "kind"));
  k->ops = NULL;
  k->nops = 0;
  jfield *f = jf_find(j, "operations");
  if (!f || !f->n)
    return;
  k->ops = rpd_xcalloc(f->n, sizeof *k->ops);
  char *p = f->val.s;
  for (int i = 0; i < f->n && p; i++) {
    char *e = strchr(p, '\x1f');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    k->ops[i] = rpd_xmalloc(len + 1);
    memcpy(k->ops[i], p, len);
    k->ops[i][len] = '\0';
    k->nops++;
    p = e ? e + 1 : NULL;
  }
}

static void rec_marker(jstate *j)
{
  const char *key = jstr(j, "key"), *val = jstr(j, "value");
  if (!key || !val)
    return;
  if (j->nmarkers == j->capmarkers) {
    j->capmarkers = j->capmarkers ? 2 * j->capmarkers : 64;
    j->markers = rpd_xrealloc(j->markers, j->capmarkers * sizeof *j->markers);
  }
  j->markers[j->nmarkers] = rpd_xstrdup(val);
  imap_put(&j->markmsg, strtoll(key, NULL, 10), j->nmarkers++);
}

static int rec_end(jstate *j)
{
  const char *s = j->recarr;
  switch (j->rec_kind) {
  case RK_META: return rec_meta(j);
  case RK_AGENT: rec_agent(j); return RPD_OK;
  case RK_SYM: rec_sym(j); return RPD_OK;
  case RK_KIND: rec_kindnames(j); return RPD_OK;
  case RK_MARKER: rec_marker(j); return RPD_OK;
  default: break;
  }
  if (!strcmp(s, "kernel_dispatch")) {
    count_read(j->m, s, 1);
    return rec_kernel(j);
  }
  if (!strcmp(s, "memory_copy")) {
    count_read(j->m, s, 1);
    return rec_copy(j);
  }
  if (!strcmp(s, "hip_api") || !strcmp(s, "hsa_api") || !strcmp(s, "marker_api") ||
      !strcmp(s, "rccl_api")) {
    count_read(j->m, s, 1);
    return rec_api(j, s);
  }
  count_read(j->m, s, 0);
  return RPD_OK;
}

/* Role of a container opened at depth d+1 inside the container at d. */
static int child_role(jstate *j, int is_map, int *rec_kind)
{
  int d = j->depth, pr = d ? j->role[d] : R_NONE;
  const char *k = d && j->is_map[d] ? j->key[d] : "";
  *rec_kind = 0;
  if (j->rec_depth)
    return R_INREC;
  switch (pr) {
  case R_NONE: return is_map ? R_TOP : R_NONE;
  case R_TOP:
    if (!is_map && !strcmp(k, "rocprofiler-sdk-tool")) {
      j->saw_tool = 1;
      return R_TOOL;
    }
    return R_NONE;
  case R_TOOL: return is_map ? R_SECTION : R_NONE;
  case R_SECTION:
    if (is_map && !strcmp(k, "metadata")) { *rec_kind = RK_META; return R_RECORD; }
    if (is_map && !strcmp(k, "strings")) return R_STRINGS;
    if (is_map && !strcmp(k, "buffer_records")) return R_BUFREC;
    if (!is_map && !strcmp(k, "agents")) return R_AGENTS;
    if (!is_map && !strcmp(k, "kernel_symbols")) return R_SYMS;
    return R_NONE;
  case R_STRINGS:
    if (!is_map && !strcmp(k, "buffer_records")) return R_KINDNAMES;
    if (!is_map && !strcmp(k, "marker_api")) return R_MARKERSTR;
    return R_NONE;
  case R_BUFREC:
    if (!is_map) {
      snprintf(j->recarr, sizeof j->recarr, "%s", k);
      return R_RECARR;
    }
    return R_NONE;
  case R_AGENTS: *rec_kind = RK_AGENT; return is_map ? R_RECORD : R_NONE;
  case R_SYMS: *rec_kind = RK_SYM; return is_map ? R_RECORD : R_NONE;
  case R_KINDNAMES: *rec_kind = RK_KIND; return is_map ? R_RECORD : R_NONE;
  case R_MARKERSTR: *rec_kind = RK_MARKER; return is_map ? R_RECORD : R_NONE;
  case R_RECARR: *rec_kind = RK_BUF; return is_map ? R_RECORD : R_NONE;
  default: return R_NONE;
  }
}

static int j_open(jstate *j, int is_map)
{
  int rk;
  int role = child_role(j, is_map, &rk);
  if (j->depth >= JMAXD) {
    j->rc = rpd_seterr(RPD_EPARSE, "JSON nested deeper than %d levels", JMAXD);
    return 0;
  }
  j->depth++;
  j->is_map[j->depth] = (char)is_map;
  j->role[j->depth] = role;
  j->key[j->depth][0] = '\0';
  if (role == R_SECTION) {
    js_clear_section(j);
    new_section(j->m);
  }
  if (role == R_RECORD) {
    j->rec_depth = j->depth;
    j->rec_kind = rk;
    j->nf = 0;
  }
  return 1;
}

static int j_close(jstate *j)
{
  int rc = RPD_OK;
  if (j->rec_depth && j->depth == j->rec_depth) {
    rc = rec_end(j);
    j->rec_depth = 0;
  }
  j->depth--;
  if (rc) {
    j->rc = rc;
    return 0;
  }
  return 1;
}

static int cb_start_map(void *ctx) { return j_open(ctx, 1); }
static int cb_end_map(void *ctx) { return j_close(ctx); }
static int cb_start_array(void *ctx) { return j_open(ctx, 0); }
static int cb_end_array(void *ctx) { return j_close(ctx); }

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
  jstate *j = ctx;
  if (len >= JKEY)
    len = JKEY - 1;
  memcpy(j->key[j->depth], s, len);
  j->key[j->depth][len] = '\0';
  return 1;
}

static int scalar(jstate *j, const char *s, size_t len)
{
  if (j->rec_depth)
    jrec_value(j, s, len);
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
  return scalar(ctx, (const char *)s, len);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
  return scalar(ctx, s, len);
}

static int cb_bool(void *ctx, int b)
{
  return scalar(ctx, b ? "1" : "0", 1);
}

static int cb_null(void *ctx)
{
  return scalar(ctx, "", 0);
}

static const yajl_callbacks jcb = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array
};

/* One line from yajl's error text (it carries a context excerpt). */
static void yajl_msg(yajl_handle h, const unsigned char *chunk, size_t len,
                     char *out, size_t n)
{
  unsigned char *e = yajl_get_error(h, 0, chunk, len);
  snprintf(out, n, "%s", e ? (char *)e : "parse error");
  if (e)
    yajl_free_error(h, e);
  out[strcspn(out, "\n")] = '\0';
}

static int import_json(imp *m, const char *path)
{
  jstate j;
  memset(&j, 0, sizeof j);
  j.m = m;
  gzFile gz = gzopen(path, "rb");
  if (!gz)
    return rpd_seterr(RPD_EIO, "cannot read: %s", strerror(errno));
  gzbuffer(gz, 1 << 17);
  yajl_handle h = yajl_alloc(&jcb, NULL, &j);
  yajl_config(h, yajl_dont_validate_strings, 1);
  enum { CHUNK = 1 << 16 };
  unsigned char *buf = rpd_xmalloc(CHUNK);
  uint64_t fed = 0, lines = 1;
  int rc = RPD_OK, n;
  yajl_status st = yajl_status_ok;
  char msg[256];

  while ((n = gzread(gz, buf, CHUNK)) > 0) {
    st = yajl_parse(h, buf, (size_t)n);
    if (st != yajl_status_ok) {
      size_t at = yajl_get_bytes_consumed(h);
      for (size_t i = 0; i < at && i < (size_t)n; i++)
        lines += buf[i] == '\n';
      if (st == yajl_status_client_canceled) {
        rc = j.rc ? j.rc : RPD_ERR;
        if (rc == RPD_EPARSE || rc == RPD_ERR)
          rc = rpd_seterr(RPD_EPARSE, "at byte %" PRIu64 " (line %" PRIu64 "): %s",
                          fed + at, lines, rpd_errmsg());
      } else {
        yajl_msg(h, buf, (size_t)n, msg, sizeof msg);
        rc = rpd_seterr(RPD_EPARSE, "malformed JSON at byte %" PRIu64
                        " (line %" PRIu64 "): %s", fed + at, lines, msg);
      }
      goto cleanup;
    }
    for (int i = 0; i < n; i++)
      lines += buf[i] == '\n';
    fed += (uint64_t)n;
  }
  int zerr = Z_OK;
  const char *zmsg = gzerror(gz, &zerr);
  if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
    rc = rpd_seterr(RPD_EGZIP, "corrupt or truncated gzip stream after %" PRIu64
                    " bytes: %s", fed, zmsg ? zmsg : "read error");
    goto cleanup;
  }
  st = yajl_complete_parse(h);
  if (st != yajl_status_ok) {
    if (st == yajl_status_client_canceled) {
      rc = j.rc ? j.rc : RPD_ERR;
    } else {
      yajl_msg(h, NULL, 0, msg, sizeof msg);
      rc = rpd_seterr(RPD_EPARSE, "truncated JSON: input ends at byte %" PRIu64
                      " (line %" PRIu64 ") inside an open %s", fed, lines,
                      j.depth > 0 && j.is_map[j.depth] ? "object" : "array");
    }
    goto cleanup;
  }
  if (!fed) {
    rc = rpd_seterr(RPD_EPARSE, "empty file");
    goto cleanup;
  }
  if (!j.saw_tool)
    rc = rpd_seterr(RPD_EPARSE, "not a rocprofv3 JSON: no 'rocprofiler-sdk-tool' key");

cleanup:
  yajl_free(h);
  gzclose(gz);
  free(buf);
  js_clear_section(&j);
  for (int i = 0; i < j.capf; i++)
    rpd_buf_free(&j.f[i].val);
  free(j.f);
  return rc;
}

/* ------------------------------------------------------------ CSV input */

typedef struct csv {
  FILE *f;
  const char *path;
  int64_t line;         /* line of the current record's start */
  int64_t nextline;
  rpd_buf *fld;
  int nfld, capfld;
  char **hdr;
  int nhdr;
} csv;

/* Read one RFC 4180 record into c->fld; 1 = got one, 0 = EOF, -1 = error. */
static int csv_next(csv *c)
{
  int ch, inq = 0, any = 0;
  c->nfld = 0;
  c->line = c->nextline;
  for (;;) {
    if (c->nfld == c->capfld) {
      c->capfld = c->capfld ? 2 * c->capfld : 32;
      c->fld = rpd_xrealloc(c->fld, c->capfld * sizeof *c->fld);
      memset(c->fld + c->nfld, 0, (c->capfld - c->nfld) * sizeof *c->fld);
    }
    rpd_buf *b = &c->fld[c->nfld];
    rpd_buf_reset(b);
    rpd_buf_add(b, "", 0);
    for (;;) {
      ch = getc_unlocked(c->f);
      if (ch == EOF) {
        if (inq)
          return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": unterminated quoted "
                            "field at end of file", c->path, c->line), -1;
        if (!any && !c->nfld && !b->len)
          return 0;
        c->nfld++;
        return 1;
      }
      any = 1;
      if (inq) {
        if (ch == '"') {
          int nx = getc_unlocked(c->f);
          if (nx == '"') {
            rpd_buf_add(b, "\"", 1);
            continue;
          }
          inq = 0;
          if (nx == EOF)
            continue;
          ch = nx;
        } else {
          if (ch == '\n')
            c->nextline++;
          char cc = (char)ch;
          rpd_buf_add(b, &cc, 1);
          continue;
        }
      }
      if (ch == '"' && !b->len) {
        inq = 1;
        continue;
      }
      if (ch == ',')
        break;
      if (ch == '\r')
        continue;
      if (ch == '\n') {
        c->nextline++;
        c->nfld++;
        return 1;
      }
      char cc = (char)ch;
      rpd_buf_add(b, &cc, 1);
    }
    c->nfld++;
  }
}

static void csv_close(csv *c)
{
  if (c->f)
    fclose(c->f);
  for (int i = 0; i < c->capfld; i++)
    rpd_buf_free(&c->fld[i]);
  free(c->fld);
  for (int i = 0; i < c->nhdr; i++)
    free(c->hdr[i]);
  free(c->hdr);
  memset(c, 0, sizeof *c);
}

static int csv_open(csv *c, const char *path)
{
  memset(c, 0, sizeof *c);
  c->path = path;
  c->nextline = 1;
  c->f = fopen(path, "r");
  if (!c->f)
    return rpd_seterr(RPD_EIO, "cannot read '%s': %s", path, strerror(errno));
  int g = csv_next(c);
  if (g < 0)
    return RPD_EPARSE;
  if (g == 0)
    return rpd_seterr(RPD_EPARSE, "%s: empty file (no header line)", path);
  c->nhdr = c->nfld;
  c->hdr = rpd_xcalloc(c->nhdr, sizeof *c->hdr);
  for (int i = 0; i < c->nhdr; i++)
    c->hdr[i] = rpd_xstrdup(c->fld[i].s);
  return RPD_OK;
}

/* Column index of the first of the '|'-separated names, or -1. */
static int csv_col(const csv *c, const char *names)
{
  const char *p = names;
  while (*p) {
    size_t len = strcspn(p, "|");
    for (int i = 0; i < c->nhdr; i++)
      if (strlen(c->hdr[i]) == len && !strncasecmp(c->hdr[i], p, len))
        return i;
    p += len;
    if (*p)
      p++;
  }
  return -1;
}

static const char *cval(const csv *c, int col)
{
  return col >= 0 && col < c->nfld ? c->fld[col].s : "";
}

/* Integer field; "Agent 3" style values give their trailing number. */
static int cint(const csv *c, int col, int64_t *v)
{
  const char *s = cval(c, col), *p = s;
  char *e;
  *v = 0;
  if (col < 0 || !*s)
    return RPD_OK;
  while (*p && !isdigit((unsigned char)*p) && *p != '-')
    p++;
  errno = 0;
  *v = strtoll(p, &e, 10);
  while (*e == ' ')
    e++;
  if (p == e || errno || *e)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": column '%s': not a "
                      "number: '%.40s'", c->path, c->line, c->hdr[col], s);
  return RPD_OK;
}

static int need_cols(const csv *c, const char *const *names, int *cols, int n)
{
  for (int i = 0; i < n; i++) {
    int optional = names[i][0] == '?';
    cols[i] = csv_col(c, names[i] + optional);
    if (cols[i] < 0 && !optional)
      return rpd_seterr(RPD_EPARSE, "%s: missing column '%s'", c->path, names[i]);
  }
  return RPD_OK;
}

static int check_width(const csv *c)
{
  if (c->nfld != c->nhdr)
    return rpd_seterr(RPD_EPARSE, "%s: line %" PRId64 ": %d fields, header has %d",
                      c->path, c->line, c->nfld, c->nhdr);
  return RPD_OK;
}

/* CSV agent numbers -> gpu index. */
typedef struct agentmap {
  imap gpu;        /* agent number -> gpu index, -1 = CPU */
  int known;
} agentmap;

static int csv_agent_info(const char *path, agentmap *am)
{
  csv c;
  int rc = csv_open(&c, path), g;
  int col_node = -1, col_type = -1, col_tidx = -1;
  if (!rc) {
    col_node = csv_col(&c, "Logical_Node_Id|Node_Id");
    col_type = csv_col(&c, "Agent_Type|Type");
    col_tidx = csv_col(&c, "Logical_Node_Type_Id");
    if (col_node < 0 || col_type < 0)
      rc = rpd_seterr(RPD_EPARSE, "%s: missing Logical_Node_Id/Agent_Type", path);
  }
  while (!rc && (g = csv_next(&c)) > 0) {
    int64_t node, tidx = 0;
    rc = cint(&c, col_node, &node);
    if (!rc && col_tidx >= 0)
      rc = cint(&c, col_tidx, &tidx);
    if (!rc)
      imap_put(&am->gpu, node, strstr(cval(&c, col_type), "GPU") ? tidx : -1);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  if (!rc)
    am->known = 1;
  csv_close(&c);
  return rc;
}

/* Without agent_info.csv: GPU agents are the agents that ran kernels,
 * numbered 0.. in ascending agent order. */
static int csv_agent_scan(char **files, int n, agentmap *am)
{
  int64_t ids[256];
  int nids = 0, rc = RPD_OK, g;
  for (int i = 0; i < n && !rc; i++) {
    csv c;
    rc = csv_open(&c, files[i]);
    int col = rc ? -1 : csv_col(&c, "Agent_Id");
    while (!rc && col >= 0 && (g = csv_next(&c)) > 0) {
      int64_t a;
      rc = cint(&c, col, &a);
      int seen = 0;
      for (int k = 0; k < nids; k++)
        seen |= ids[k] == a;
      if (!rc && !seen && nids < 256)
        ids[nids++] = a;
    }
    csv_close(&c);
  }
  for (int i = 0; i < nids; i++) {
    int rank = 0;
    for (int k = 0; k < nids; k++)
      rank += ids[k] < ids[i];
    imap_put(&am->gpu, ids[i], rank);
  }
  return rc;
}

static int64_t csv_gpu(const agentmap *am, int64_t agent)
{
  int64_t g;
  return imap_get(&am->gpu, agent, &g) ? g : -1;
}

/* One record of a CSV section; col[] are the indexes of its column names. */
typedef int (*csv_row_fn)(imp *m, const csv *c, const int *col, const void *arg);

enum { CSV_MAXCOLS = 16 };

/* Read every record of the CSV file `path`, which must have the columns
 * `names` (n <= CSV_MAXCOLS, see need_cols): count it as `kind`, check its
 * width and hand it to row(m, c, col, arg). */
static int csv_each(imp *m, const char *path, const char *kind,
                    const char *const *names, int n, csv_row_fn row, const void *arg)
{
  int col[CSV_MAXCOLS], g = 0;
  csv c;
  int rc = csv_open(&c, path);
  if (!rc)
    rc = need_cols(&c, names, col, n);
  while (!rc && (g = csv_next(&c)) > 0) {
    count_read(m, kind, 1);
    rc = check_width(&c);
    if (!rc)
      rc = row(m, &c, col, arg);
  }
  if (!rc && g < 0)
    rc = RPD_EPARSE;
  csv_close(&c);
  return rc;
}

static const char *const csv_kernel_cols[] = {
  "Agent_Id", "?Queue_Id", "?Stream_Id", "?Dispatch_Id", "Kernel_Name",
  "Correlation_Id", "Start_Timestamp", "End_Timestamp",
  "?LDS_Block_Size|Group_Segment_Size|LDS_Size", "?Scratch_Size|Private_Segment_Size",
  "?Workgroup_Size_X", "?Workgroup_Size_Y", "?Workgroup_Size_Z",
  "?Grid_Size_X", "?Grid_Size_Y", "?Grid_Size_Z"
};
enum { NKERNEL_COLS = sizeof csv_kernel_cols / sizeof csv_kernel_cols[0] };

static int csv_kernel_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  kern k = {0};
  int64_t v[NKERNEL_COLS];
  int rc = RPD_OK;
  for (int i = 0; i < NKERNEL_COLS && !rc; i++)
    rc = i == 4 ? RPD_OK : cint(c, col[i], &v[i]);
  if (rc)
    return rc;
  k.gpu = csv_gpu(am, v[0]);
  k.queue = v[1];
  k.stream = v[2];
  k.seq = v[3];
  k.corr = v[5];
  k.start = v[6];
  k.end = v[7];
  k.lds = v[8];
  k.scratch = v[9];
  for (int i = 0; i < 3; i++) {
    k.wg[i] = v[10 + i];
    k.grid[i] = v[13 + i];
  }
  rc = sid(m, cval(c, col[4]), &k.desc_id);
  k.name_id = k.desc_id;
  if (!rc)
    rc = w_kernel(m, &k);
  return rc;
}

static int csv_kernels(imp *m, const char *path, const agentmap *am)
{
  return csv_each(m, path, "kernel_dispatch", csv_kernel_cols, NKERNEL_COLS,
                  csv_kernel_row, am);
}

static const char *const csv_api_cols[] = {
  "?Domain", "Function", "?Process_Id", "Thread_Id", "Correlation_Id",
  "Start_Timestamp", "End_Timestamp", "?Args|Arguments"
};

/* What the api rows of one CSV file are. */
typedef struct apisrc {
  const char *domain;
  int marker;          /* marker_api: the Function column is the message */
} apisrc;

static int csv_api_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const apisrc *src = arg;
  apirec a = {0};
  int rc = cint(c, col[2], &a.pid);
  if (!rc) rc = cint(c, col[3], &a.tid);
  if (!rc) rc = cint(c, col[4], &a.corr);
  if (!rc) rc = cint(c, col[5], &a.start);
  if (!rc) rc = cint(c, col[6], &a.end);
  if (rc)
    return rc;
  a.domain = src->domain;
  a.category = cval(c, col[0]);
  a.name = src->marker ? "UserMarker" : cval(c, col[1]);
  a.args = src->marker ? cval(c, col[1]) : cval(c, col[7]);
  return w_api(m, &a);
}

static int csv_apis(imp *m, const char *path, const char *kind, const char *domain)
{
  apisrc src = {domain, !strcmp(kind, "marker_api")};
  return csv_each(m, path, kind, csv_api_cols,
                  sizeof csv_api_cols / sizeof csv_api_cols[0], csv_api_row, &src);
}

static const char *const csv_copy_cols[] = {
  "?Direction|Operation", "Source_Agent_Id|Src_Agent_Id",
  "Destination_Agent_Id|Dst_Agent_Id", "Correlation_Id", "Start_Timestamp",
  "End_Timestamp", "?Size|Bytes|Copy_Bytes", "?Stream_Id"
};

static int csv_copy_row(imp *m, const csv *c, const int *col, const void *arg)
{
  const agentmap *am = arg;
  copyrec cp = {0};
  int64_t src, dst;
  int rc = cint(c, col[1], &src);
  if (!rc) rc = cint(c, col[2], &dst);
  if (!rc) rc = cint(c, col[3], &cp.corr);
  if (!rc) rc = cint(c, col[4], &cp.start);
  if (!rc) rc = cint(c, col[5], &cp.end);
  if (!rc) rc = cint(c, col[6], &cp.bytes);
  if (!rc) rc = cint(c, col[7], &cp.stream);
  if (rc)
    return rc;
  cp.kind = copy_kind(cval(c, col[0]));
  cp.src_gpu = csv_gpu(am, src);
  cp.dst_gpu = csv_gpu(am, dst);
  return w_copy(m, &cp);
}

static int csv_copies(imp *m, const char *path, const agentmap *am)
{
  return csv_each(m, path, "memory_copy", csv_copy_cols,
                  sizeof csv_copy_cols / sizeof csv_copy_cols[0], csv_copy_row, am);
}

typedef struct csvset {
  char **f[8];
  int n[8];
} csvset;

static const char *const csv_suffix[8] = {
  "kernel_trace.csv", "hip_api_trace.csv", "hsa_api_trace.csv",
  "marker_api_trace.csv", "rccl_api_trace.csv", "memory_copy_trace.csv",
  "agent_info.csv", NULL
};

static void set_add(csvset *s, int k, const char *path)
{
  s->f[k] = rpd_xrealloc(s->f[k], (s->n[k] + 1) * sizeof *s->f[k]);
  s->f[k][s->n[k]++] = rpd_xstrdup(path);
}

static int endswith(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int is_file(const char *p)
{
  struct stat sb;
  return !stat(p, &sb) && S_ISREG(sb.st_mode);
}

static int strcmp_p(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect the CSV files of a directory or of a prefix; 0 files = not CSV. */
static int csv_collect(const char *input, csvset *s)
{
  struct stat sb;
  int total = 0;
  if (!stat(input, &sb) && S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(input);
    struct dirent *e;
    if (!d)
      return 0;
    while ((e = readdir(d))) {
      for (int k = 0; csv_suffix[k]; k++)
        if (endswith(e->d_name, csv_suffix[k])) {
          char *p = rpd_xasprintf("%s/%s", input, e->d_name);
          set_add(s, k, p);
          free(p);
          total++;
          break;
        }
    }
    closedir(d);
  } else {
    char *prefix = rpd_xstrdup(input);
    for (int k = 0; csv_suffix[k]; k++)
      if (endswith(prefix, csv_suffix[k])) {
        prefix[strlen(prefix) - strlen(csv_suffix[k])] = '\0';
        break;
      }
    for (int k = 0; csv_suffix[k]; k++) {
      char *p = rpd_xasprintf("%s%s", prefix, csv_suffix[k]);
      char *q = rpd_xasprintf("%s_%s", prefix, csv_suffix[k]);
      if (is_file(p)) {
        set_add(s, k, p);
        total++;
      } else if (is_file(q)) {
        set_add(s, k, q);
        total++;
      }
      free(p);
      free(q);
    }
    free(prefix);
  }
  for (int k = 0; csv_suffix[k]; k++)
    if (s->n[k] > 1)
      qsort(s->f[k], s->n[k], sizeof *s->f[k], strcmp_p);
  return total;
}

static void set_free(csvset *s)
{
  for (int k = 0; k < 8; k++) {
    for (int i = 0; i < s->n[k]; i++)
      free(s->f[k][i]);
    free(s->f[k]);
  }
}

static int import_csv(imp *m, csvset *s)
{
  agentmap am;
  int rc = RPD_OK;
  memset(&am, 0, sizeof am);
  if (!s->n[0] && !s->n[1] && !s->n[2] && !s->n[3] && !s->n[4] && !s->n[5])
    return rpd_seterr(RPD_EPARSE, "no rocprofv3 *_trace.csv files found");
  for (int i = 0; i < s->n[6] && !rc; i++)
    rc = csv_agent_info(s->f[6][i], &am);
  if (!rc && !am.known)
    rc = csv_agent_scan(s->f[0], s->n[0], &am);
  static const char *const dom[] = { NULL, "HIP", "HSA", "ROCTX", "RCCL" };
  static const char *const kind[] = { NULL, "hip_api", "hsa_api", "marker_api",
                                      "rccl_api" };
  for (int i = 0; i < s->n[0] && !rc; i++)
    rc = csv_kernels(m, s->f[0][i], &am);
  for (int k = 1; k <= 4; k++)
    for (int i = 0; i < s->n[k] && !rc; i++)
      rc = csv_apis(m, s->f[k][i], kind[k], dom[k]);
  for (int i = 0; i < s->n[5] && !rc; i++)
    rc = csv_copies(m, s->f[5][i], &am);
  imap_free(&am.gpu);
  return rc;
}

/* ------------------------------------------------------------ rocprofv3 db */

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

/* Run `sql` on the input database and hand each row to row(m, st). */
static int db_each(imp *m, rpd *in, const char *sql, int (*row)(imp *m, sqlite3_stmt *st))
{
  sqlite3_stmt *st = NULL;
  int rc = rpd_prepare(in, sql, &st), s = SQLITE_DONE;
  while (!rc && (s = rpd_step(in, st)) == SQLITE_ROW)
    rc = row(m, st);
  if (!rc && s < 0)
    rc = -s;
  sqlite3_finalize(st);
  return rc;
}

static const char db_kernels_sql[] =
  "SELECT (SELECT CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END "
  "          FROM rocpd_info_agent A WHERE A.id = K.agent_id AND A.guid = K.guid),"
  "       K.queue_id, K.dispatch_id, K.start, K.end, E.stack_id, K.stream_id,"
  "       K.grid_size_x, K.grid_size_y, K.grid_size_z,"
  "       K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,"
  "       K.group_segment_size, K.private_segment_size,"
  "       coalesce(nullif(CASE WHEN json_valid(S.extdata) THEN"
  "         json_extract(S.extdata, '$.truncated_kernel_name') END, ''),"
  "         nullif(S.display_name, ''), S.kernel_name, ''),"
  "       coalesce(nullif(S.display_name, ''), S.kernel_name, '')"
  "  FROM rocpd_kernel_dispatch K"
  "  LEFT JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
  "  LEFT JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid"
  " ORDER BY K.guid, K.id";

static int db_kernel_row(imp *m, sqlite3_stmt *st)
{
  kern k = {0};
  int rc;
  count_read(m, "kernel_dispatch", 1);
  k.gpu = col_gpu(st, 0);
  k.queue = col_i64(st, 1);
  k.seq = col_i64(st, 2);
  k.start = col_i64(st, 3);
  k.end = col_i64(st, 4);
  k.corr = col_i64(st, 5);
  k.stream = col_i64(st, 6);
  for (int i = 0; i < 3; i++) {
    k.grid[i] = col_i64(st, 7 + i);
    k.wg[i] = col_i64(st, 10 + i);
  }
  k.lds = col_i64(st, 13);
  k.scratch = col_i64(st, 14);
  rc = sid(m, col_txt(st, m->full_names ? 16 : 15), &k.desc_id);
  if (!rc)
    rc = sid(m, col_txt(st, 16), &k.name_id);
  if (!rc)
    rc = w_kernel(m, &k);
  return rc;
}

static const char db_regions_sql[] =
  "SELECT E.stack_id, coalesce(P.pid, 0), coalesce(T.tid, 0), R.start, R.end,"
  "       coalesce(N.string, ''), coalesce(C.string, ''),"
  "       (SELECT group_concat(a, ' | ') FROM (SELECT name || '=' ||"
  "          coalesce(value, '') AS a FROM rocpd_arg G"
  "          WHERE G.event_id = R.event_id AND G.guid = R.guid ORDER BY position))"
  "  FROM rocpd_region R"
  "  LEFT JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid"
  "  LEFT JOIN rocpd_string N ON N.id = R.name_id AND N.guid = R.guid"
  "  LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid"
  "  LEFT JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid"
  "  LEFT JOIN rocpd_info_thread T ON T.id = R.tid AND T.guid = R.guid"
  " ORDER BY R.guid, R.id";

static const char *db_domain(const char *cat, const char **kind)
{
  if (!strncmp(cat, "HIP", 3)) { *kind = "hip_api"; return "HIP"; }
  if (!strncmp(cat, "HSA", 3)) { *kind = "hsa_api"; return "HSA"; }
  if (!strncmp(cat, "MARKER", 6)) { *kind = "marker_api"; return "ROCTX"; }
  if (!strncmp(cat, "RCCL", 4)) { *kind = "rccl_api"; return "RCCL"; }
  *kind = "region"; return cat;
}

static int db_region_row(imp *m, sqlite3_stmt *st)
{
  apirec a = {0};
  const char *kind;
  a.corr = col_i64(st, 0);
  a.pid = col_i64(st, 1);
  a.tid = col_i64(st, 2);
  a.start = col_i64(st, 3);
  a.end = col_i64(st, 4);
  a.name = col_txt(st, 5);
  a.category = col_txt(st, 6);
  a.args = col_txt(st, 7);
  a.domain = db_domain(a.category, &kind);
  if (!strcmp(kind, "marker_api")) {
    a.args = a.name;
    a.name = "UserMarker";
  }
  count_read(m, kind, 1);
  return w_api(m, &a);
}

static const char db_copies_sql[] =
  "SELECT coalesce(N.string, ''),"
  "  (SELECT CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END"
  "     FROM rocpd_info_agent A WHERE A.id = M.src_agent_id AND A.guid = M.guid),"
  "  (SELECT CASE WHEN A.type = 'GPU' THEN A.type_index ELSE -1 END"
  "     FROM rocpd_info_agent A WHERE A.id = M.dst_agent_id AND A.guid = M.guid),"
  "  M.start, M.end, E.stack_id, M.size, coalesce(M.stream_id, 0)"
  "  FROM rocpd_memory_copy M"
  "  LEFT JOIN rocpd_string N ON N.id = M.name_id AND N.guid = M.guid"
  "  LEFT JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid"
  " ORDER BY M.guid, M.id";

static int db_copy_row(imp *m, sqlite3_stmt *st)
{
  copyrec c = {0};
  count_read(m, "memory_copy", 1);
  c.kind = copy_kind(col_txt(st, 0));
  c.src_gpu = col_gpu(st, 1);
  c.dst_gpu = col_gpu(st, 2);
  c.start = col_i64(st, 3);
  c.end = col_i64(st, 4);
  c.corr = col_i64(st, 5);
  c.bytes = col_i64(st, 6);
  c.stream = col_i64(st, 7);
  return w_copy(m, &c);
}

static const char db_meta_sql[] =
  "SELECT P.pid, P.init, P.fini, P.command, N.hostname"
  "  FROM rocpd_info_process P LEFT JOIN rocpd_info_node N"
  "    ON N.id = P.nid AND N.guid = P.guid ORDER BY P.guid, P.id";

static int db_meta_row(imp *m, sqlite3_stmt *st)
{
  int rc;
  w_meta_time(m, col_i64(st, 1), col_i64(st, 2));
  rc = w_meta_int(m, "rocprofv3::pid", col_i64(st, 0));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::hostname", col_txt(st, 4));
  if (!rc)
    rc = w_meta_add(m, "rocprofv3::command", col_txt(st, 3));
  return rc;
}

static int import_db(imp *m, const char *path)
{
  rpd *in = NULL;
  int rc = rpd_open(&in, path, NULL, RPD_READ | RPD_ANYDB);
  if (rc)
    return rc;
  static const char *const need[] = {
    "rocpd_kernel_dispatch", "rocpd_region", "rocpd_memory_copy", "rocpd_event",
    "rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol",
    "rocpd_info_process", "rocpd_info_thread", "rocpd_arg", NULL
  };
  for (int i = 0; need[i] && !rc; i++)
    if (!rpd_table_exists(in, need[i]))
      rc = rpd_seterr(RPD_ENOTRPD, "not a rocprofv3 database: no table or view '%s'",
                      need[i]);
  if (!rc)
    rc = db_each(m, in, db_meta_sql, db_meta_row);
  if (!rc)
    rc = db_each(m, in, db_kernels_sql, db_kernel_row);
  if (!rc)
    rc = db_each(m, in, db_regions_sql, db_region_row);
  if (!rc)
    rc = db_each(m, in, db_copies_sql, db_copy_row);
  rpd_close(in, 0);
  return rc;
}

/* ------------------------------------------------------------ driver */

enum { IN_JSON, IN_CSV, IN_DB };

/* What INPUT is; fills s for CSV. */
static int detect(const char *input, csvset *s, int *kind)
{
  struct stat sb;
  if (!stat(input, &sb) && S_ISREG(sb.st_mode)) {
    unsigned char h[16] = {0};
    FILE *f = fopen(input, "rb");
    if (!f)
      return rpd_seterr(RPD_EIO, "%s", strerror(errno));
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n == 16 && !memcmp(h, "SQLite format 3", 16)) {
      *kind = IN_DB;
      return RPD_OK;
    }
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) {
      /* a gzip'd database (rpd_open decompresses it) or gzip'd JSON */
      unsigned char z[16] = {0};
      gzFile gz = gzopen(input, "rb");
      int zn = gz ? gzread(gz, z, sizeof z) : -1;
      if (gz)
        gzclose(gz);
      *kind = zn == 16 && !memcmp(z, "SQLite format 3", 16) ? IN_DB : IN_JSON;
      return RPD_OK;
    }
    size_t i = 0;
    if (n >= 3 && h[0] == 0xef && h[1] == 0xbb && h[2] == 0xbf)
      i = 3;
    while (i < n && isspace(h[i]))
      i++;
    if (i < n && (h[i] == '{' || h[i] == '[')) {
      *kind = IN_JSON;
      return RPD_OK;
    }
    if (!n && (endswith(input, ".json") || endswith(input, ".json.gz")))
      return rpd_seterr(RPD_EPARSE, "empty file");
  }
  if (csv_collect(input, s) > 0) {
    *kind = IN_CSV;
    return RPD_OK;
  }
  if (stat(input, &sb))
    return rpd_seterr(RPD_ENOENT, "%s", strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return rpd_seterr(RPD_EPARSE, "no rocprofv3 *_trace.csv files in directory");
  if (!sb.st_size)
    return rpd_seterr(RPD_EPARSE, "empty file");
  return rpd_seterr(RPD_EPARSE, "not a rocprofv3 JSON, CSV set or database");
}

/* The temp file OUT is built in (rpd_outfile: next to OUT, removed by
 * common/ on exit or a fatal signal); its journal is ours to remove. */
static char *tmp_path;

static void on_signal(int sig)
{
  if (tmp_path) {
    size_t n = strlen(tmp_path);
    char j[4096];
    if (n + 9 < sizeof j) {
      memcpy(j, tmp_path, n);
      memcpy(j + n, "-journal", 9);
      unlink(j);
    }
    unlink(tmp_path);
  }
  rpd_cleanup_temps();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void summary(const imp *m, const char *out, int64_t linked)
{
  fprintf(stderr, "%s: %s -> %s\n", rpd_progname, m->input, out);
  for (int i = 0; i < m->nkinds; i++)
    fprintf(stderr, "  read %-18s %10" PRId64 "%s\n", m->kinds[i].name,
            m->kinds[i].n, m->kinds[i].handled ? "" : "  (not imported)");
  fprintf(stderr, "  wrote rocpd_op        %10" PRId64 "\n", m->n_op);
  fprintf(stderr, "  wrote rocpd_api       %10" PRId64 "\n", m->n_api);
  fprintf(stderr, "  wrote rocpd_api_ops   %10" PRId64 "  (%" PRId64
          " linked to a traced api call)\n", m->n_apiop, linked);
  fprintf(stderr, "  wrote rocpd_kernelapi %10" PRId64 "\n", m->n_kapi);
  fprintf(stderr, "  wrote rocpd_copyapi   %10" PRId64 "\n", m->n_capi);
  if (m->n_dup_api)
    fprintf(stderr, "  skipped %" PRId64 " api records with a duplicate correlation id\n",
            m->n_dup_api);
  if (m->n_nolink)
    fprintf(stderr, "  %" PRId64 " ops carry no correlation id (not linked)\n",
            m->n_nolink);
}

static int finish(imp *m)
{
  int rc = RPD_OK;
  if (m->init_time)
    rc = w_meta_int(m, "rocprofv3::init_time", m->init_time);
  if (!rc && m->fini_time)
    rc = w_meta_int(m, "rocprofv3::fini_time", m->fini_time);
  if (!rc)
    rc = rpd_meta_set(m->r, "rpd-import::source", m->input);
  return rc;
}

int main(int argc, char **argv)
{
  const char *in = NULL, *out = NULL;
  int force = 0, quiet = 0, full = 0, kind = 0, rc;
  csvset set;
  rpd_outfile of = {0};
  imp m;

  if (rpd_cli_init(argc, argv, usage))
    return 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--force"))
      force = 1;
    else if (!strcmp(argv[i], "--full-names"))
      full = 1;
    else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
      quiet = 1;
    else if (argv[i][0] == '-' && argv[i][1])
      return rpd_usage_error("unknown option '%s'", argv[i]);
    else if (!in)
      in = argv[i];
    else if (!out)
      out = argv[i];
    else
      return rpd_usage_error("too many arguments");
  }
  if (!in || !out)
    return rpd_usage_error("need INPUT and OUT.rpd");
  if (endswith(out, ".gz"))
    return rpd_usage_error("'%s': write an uncompressed .rpd (gzip it afterwards)", out);
  /* never the input itself, a device, a fifo or a directory */
  if (rpd_output_check(out, in, NULL))
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  if (!force && !access(out, F_OK))
    return rpd_fail("'%s' exists; use --force to replace it", out);

  memset(&set, 0, sizeof set);
  memset(&m, 0, sizeof m);
  m.input = in;
  m.full_names = full;
  if ((rc = detect(in, &set, &kind))) {
    set_free(&set);
    return rpd_fail("cannot import '%s': %s", in, rpd_errmsg());
  }

  /* a temp file next to OUT's target (symlinks followed), written by
   * SQLite and renamed into place by rpd_outfile_commit */
  if (rpd_outfile_begin(&of, out, in)) {
    set_free(&set);
    return rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
  }
  fclose(of.fp);
  of.fp = NULL;
  tmp_path = of.tmp;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGHUP, on_signal);

  rc = rpd_open(&m.r, tmp_path, NULL, RPD_WRITE | RPD_CREATE);
  if (rc) {
    rpd_fail("cannot create '%s': %s", out, rpd_errmsg());
    goto fail_noclose;
  }
  m.r->schema = 3;
  rc = rpd_schema_create(m.r);
  /* a private new file that is renamed into place only on success: no
   * journal or syncs needed (a failure deletes it) */
  if (!rc)
    rc = rpd_exec(m.r, "PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF;"
                  " PRAGMA synchronous = OFF; PRAGMA cache_size = -65536");
  if (!rc)
    rc = rpd_begin(m.r);
  if (!rc)
    rc = w_prepare(&m);
  if (!rc) {
    if (kind == IN_JSON)
      rc = import_json(&m, in);
    else if (kind == IN_CSV)
      rc = import_csv(&m, &set);
    else
      rc = import_db(&m, in);
  }
  if (!rc)
    rc = finish(&m);
  w_finalize(&m);
  if (rc) {
    rpd_fail("cannot import '%s': %s", in, rpd_errmsg());
    goto fail;
  }
  int64_t linked = 0;
  rc = rpd_commit(m.r);
  if (!rc && !quiet)
    rc = rpd_query_int64(m.r, "SELECT count(*) FROM rocpd_api_ops A"
                         " JOIN rocpd_api B ON B.id = A.api_id", &linked);
  if (rc) {
    rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    goto fail;
  }
  rc = rpd_close(m.r, 1);
  m.r = NULL;
  if (rc) {
    rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    goto fail_noclose;
  }
  tmp_path = NULL;
  if (rpd_outfile_commit(&of)) {
    rpd_fail("cannot write '%s': %s", out, rpd_errmsg());
    set_free(&set);
    return 1;
  }
  if (!quiet)
    summary(&m, out, linked);
  set_free(&set);
  return 0;

fail:
  if (m.r) {
    rpd_rollback(m.r);
    rpd_close(m.r, 0);
  }
fail_noclose:
  w_finalize(&m);
  {
    char *jn = rpd_xasprintf("%s-journal", of.tmp);
    unlink(jn);
    free(jn);
  }
  tmp_path = NULL;
  rpd_outfile_abort(&of);
  set_free(&set);
  return 1;
}
