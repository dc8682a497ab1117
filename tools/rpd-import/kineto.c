/* kineto.c - rpd-import: PyTorch profiler (Kineto) traces, the chrome-trace
 * JSON torch.profiler writes (*.pt.trace.json[.gz]: traceEvents,
 * deviceProperties, distributedInfo, baseTimeNanoseconds ...), streamed
 * through yajl with the bytes from jsonfile.c; memory flat in the number of
 * events (one event's fields at a time).
 *
 * Mapping (docs/rpd-import.md has the table):
 *  - "kernel" events -> KernelExecution ops (args.device -> gpuId,
 *    args.stream -> queueId, grid/block -> rocpd_kernelapi); "gpu_memcpy"
 *    -> Copy* ops, "gpu_memset" -> FillBuffer ops (rocpd_copyapi: bytes);
 *  - "cuda_runtime" / "cuda_driver" (and "cuda_sync") -> rocpd_api rows
 *    whose id is 2 x args.correlation, so every GPU event with the same
 *    correlation links to its call through rocpd_api_ops without a lookup
 *    table (the ac2g flow pairs carry the same id);
 *  - "cpu_op", "user_annotation", "python_function" -> UserMarker rows on
 *    odd ids (never a runtime call's); a cpu_op's args are in the autograd
 *    form rpd-autograd parses (NAME, seq = S, op_id = E, sizes = DIMS,
 *    input_op_ids = []); every such event's whole args object is kept as
 *    JSON in ext_kineto_event (input types, strides, concrete inputs,
 *    collective parameters), as are "gpu_user_annotation" ranges, instant
 *    events and the args of collective kernels;
 *  - top-level keys -> rocpd_metadata (kineto::KEY as JSON text; rank,
 *    world_size, the devices and clock_offset_ns = baseTimeNanoseconds).
 * Times: Kineto writes microseconds with three decimals; they are read as
 * decimal text into exact nanoseconds (no floating point). */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl_parse.h>

#include "rpd.h"
#include "import.h"
#include "jsonread.h"
#include "pipe.h"

enum {
  KMAXD = 64,               /* deepest nesting accepted */
  KARGS = 64,               /* args keys remembered per event */
  KTEXT_MAX = 16 << 20,     /* one event's name or args text at most */
  KMETA_MAX = 4 << 20,      /* one top-level value kept as metadata */
};

/* Where the parser is. */
enum { P_NONE, P_TOP, P_EVENTS, P_EVENT, P_ARGS, P_META, P_SKIP };

/* A top-level key of an event (the few that matter). */
enum { F_OTHER, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, F_ARGS };

/* One args key of the current event and where its value's text is. */
typedef struct karg {
  char key[40];
  size_t klen, off, len;
  int str;                  /* the value is a string (text without quotes) */
} karg;

/* The event being read. */
typedef struct kev {
  char ph[8], cat[32];
  rpd_buf name;
  char pid[32], tid[32], ts[48], dur[48];
  int has_ts, has_dur, ts_str, dur_str, has_name;
  rpd_buf args;             /* the args object as JSON text */
  int lite;                 /* args kept as bare values only (see args_lite) */
  karg a[KARGS];
  int na;
} kev;

typedef struct kstate {
  imp *m;
  int rc;
  int depth;
  int role[KMAXD + 2];
  char is_map[KMAXD + 2];
  int field;                /* F_* of the event key just read */
  int need_comma[KMAXD + 2];   /* serializing: an element came before */
  char topkey[64];
  int serial_base;          /* depth at which serialization started */
  rpd_buf *out;             /* serialization target (args or meta) */
  int argkey;               /* index into ev.a of the args key being read, -1 */
  int saw_events;
  kev ev;
  rpd_buf meta;
  rpd_buf text;             /* scratch: the marker args */
  int64_t nev;              /* events read */
  int64_t next_marker;      /* odd api ids of markers */
  int64_t ext_id;
  sqlite3_stmt *st_ext;     /* used on the writer thread only */
  int64_t n_ext, n_flow;
} kstate;

/* ------------------------------------------------------------ numbers */

/* Exact nanoseconds of a decimal number of microseconds ("1419247333430.849",
 * "12", "5e-3", "-0.5"): RPD_OK and *ns, or RPD_EPARSE for anything else
 * (empty, a sign alone, letters, overflow).  Digits past the nanosecond
 * are rounded half away from zero, from the text itself. */
static int us_to_ns(const char *s, int64_t *ns)
{
  char dig[40];             /* significant digits, leading zeros dropped */
  int nd = 0, nfrac = 0, neg = 0, any = 0, exp = 0;
  const char *p = s;
  if (*p == '-')
    neg = *p++ == '-';
  for (; *p >= '0' && *p <= '9'; p++, any = 1)
    if (nd || *p != '0') {
      if (nd == (int)sizeof dig)
        return RPD_EPARSE;
      dig[nd++] = *p;
    }
  if (*p == '.') {
    p++;
    for (; *p >= '0' && *p <= '9'; p++, any = 1) {
      if (nd == (int)sizeof dig)
        return RPD_EPARSE;
      if (nd || *p != '0')
        dig[nd++] = *p;
      nfrac++;
    }
  }
  if (!any)
    return RPD_EPARSE;
  if (*p == 'e' || *p == 'E') {
    int eneg = 0, en = 0;
    p++;
    if (*p == '-' || *p == '+')
      eneg = *p++ == '-';
    if (*p < '0' || *p > '9')
      return RPD_EPARSE;
    for (; *p >= '0' && *p <= '9'; p++)
      if (en < 1000)
        en = en * 10 + (*p - '0');
    exp = eneg ? -en : en;
  }
  if (*p)
    return RPD_EPARSE;
  /* the value is dig x 10^(exp - nfrac) us = dig x 10^(sc) ns */
  int sc = exp - nfrac + 3;
  int keep = sc >= 0 ? nd : nd + sc;    /* digits above the nanosecond */
  uint64_t v = 0;
  for (int i = 0; i < keep; i++) {
    if (v > ((uint64_t)INT64_MAX - 9) / 10)
      return RPD_EPARSE;
    v = v * 10 + (uint64_t)(dig[i] - '0');
  }
  for (int i = 0; sc > 0 && i < sc && v; i++) {
    if (v > (uint64_t)INT64_MAX / 10)
      return RPD_EPARSE;
    v *= 10;
  }
  if (keep >= 0 && keep < nd && dig[keep] >= '5')
    v++;    /* half away from zero, on the first digit dropped */
  *ns = neg ? -(int64_t)v : (int64_t)v;
  return RPD_OK;
}

/* A plain decimal integer (optionally negative, at most 18 digits): 1 and
 * *v, else 0. */
static int int_of(const char *s, size_t n, int64_t *v)
{
  size_t i = 0;
  int neg = 0;
  uint64_t x = 0;
  if (i < n && s[i] == '-') {
    neg = 1;
    i++;
  }
  if (i == n || n - i > 18)
    return 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return 0;
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  *v = neg ? -(int64_t)x : (int64_t)x;
  return 1;
}

/* Append n bytes to b: in place while they fit (the common case: the
 * buffers are reused event after event), else through rpd_buf_add. */
static inline void put(rpd_buf *b, const char *s, size_t n)
{
  if (b->s && b->len + n < b->cap) {
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
  } else
    rpd_buf_add(b, s, n);
}

/* ------------------------------------------------------------ args */

static const karg *arg_find(const kev *e, const char *key)
{
  size_t n = strlen(key);
  for (int i = 0; i < e->na; i++)
    if (e->a[i].klen == n && !memcmp(e->a[i].key, key, n))
      return &e->a[i];
  return NULL;
}

/* The integer value of args key, or dflt. */
static int64_t arg_int(const kev *e, const char *key, int64_t dflt)
{
  const karg *a = arg_find(e, key);
  int64_t v;
  if (a && !a->str && int_of(e->args.s + a->off, a->len, &v))
    return v;
  return dflt;
}

/* "[564, 1, 1]" -> v[0..3) (missing members 1). */
static void arg_dim3(const kev *e, const char *key, int64_t v[3])
{
  const karg *a = arg_find(e, key);
  v[0] = v[1] = v[2] = 0;
  if (!a || a->str)
    return;
  const char *p = e->args.s + a->off, *end = p + a->len;
  int k = 0;
  while (p < end && k < 3) {
    while (p < end && (*p < '0' || *p > '9') && *p != '-')
      p++;
    const char *q = p;
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '-'))
      q++;
    if (q > p && int_of(p, (size_t)(q - p), &v[k]))
      k++;
    p = q;
  }
}

/* ------------------------------------------------------------ JSON text */

/* 1 if one of the 8 bytes of w needs escaping in JSON: below 0x20, '"'
 * or '\\' (the classic has-zero-byte / has-less-than word tests). */
static inline int word_needs_esc(uint64_t w)
{
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  uint64_t lt = (w - ones * 0x20) & ~w;
  return ((((q - ones) & ~q) | ((b - ones) & ~b) | lt) & high) != 0;
}

/* s[0..n) as a JSON string body. */
static void esc(rpd_buf *b, const unsigned char *s, size_t n)
{
  static const char hx[] = "0123456789abcdef";
  size_t i = 0, run = 0;
  for (;;) {
    /* 8 plain bytes at a time: most strings need no escape at all */
    while (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if (word_needs_esc(w))
        break;
      i += 8;
    }
    if (i >= n)
      break;
    unsigned char c = s[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      i++;
      continue;
    }
    put(b, (const char *)s + run, i - run);
    run = ++i;
    if (c == '"' || c == '\\') {
      char t[2] = { '\\', (char)c };
      put(b, t, 2);
    } else {
      char t[6] = { '\\', 'u', '0', '0', hx[c >> 4], hx[c & 15] };
      put(b, t, 6);
    }
  }
  put(b, (const char *)s + run, n - run);
}

/* Before a value (or key) at the current depth of the serialization. */
static void ser_sep(kstate *k)
{
  int d = k->depth;
  if (k->is_map[d])
    return;                 /* a map's separator came with its key */
  if (k->need_comma[d])
    put(k->out, ", ", 2);
  k->need_comma[d] = 1;
}

/* ------------------------------------------------------------ writing */

static const char ext_ddl[] =
  "CREATE TABLE IF NOT EXISTS ext_kineto_event ("
  " id INTEGER PRIMARY KEY, cat TEXT NOT NULL, name TEXT NOT NULL,"
  " pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL,"
  " end INTEGER NOT NULL, api_id INTEGER, op_id INTEGER, args TEXT NOT NULL);"
  "CREATE VIEW IF NOT EXISTS kineto_op_args AS SELECT api_id, name,"
  " json_extract(args, '$.\"External id\"') AS external_id,"
  " json_extract(args, '$.\"Sequence number\"') AS seq,"
  " json_extract(args, '$.\"Input Dims\"') AS input_dims,"
  " json_extract(args, '$.\"Input type\"') AS input_types,"
  " json_extract(args, '$.\"Input Strides\"') AS input_strides,"
  " json_extract(args, '$.\"Concrete Inputs\"') AS concrete_inputs,"
  " start, end FROM ext_kineto_event WHERE cat = 'cpu_op';"
  "CREATE VIEW IF NOT EXISTS kineto_collective AS SELECT id, cat, name, api_id, op_id,"
  " pid, tid, start, end,"
  " json_extract(args, '$.\"Collective name\"') AS collective,"
  " json_extract(args, '$.\"Group size\"') AS group_size,"
  " json_extract(args, '$.dtype') AS dtype,"
  " json_extract(args, '$.\"In msg nelems\"') AS in_nelems,"
  " json_extract(args, '$.\"Out msg nelems\"') AS out_nelems,"
  " json_extract(args, '$.\"Process Group Name\"') AS pg_name,"
  " json_extract(args, '$.\"Process Group Description\"') AS pg_desc,"
  " json_extract(args, '$.\"Process Group Ranks\"') AS pg_ranks"
  " FROM ext_kineto_event WHERE json_extract(args, '$.\"Collective name\"') IS NOT NULL"
  " OR name = 'record_param_comms';";

/* An ext_kineto_event row as handed to the writer thread: the fixed part,
 * then cat, name and args as NUL-terminated texts. */
typedef struct extrow {
  kstate *k;
  int64_t id, pid, tid, start, end, api_id, op_id;
  size_t ncat, nname, nargs;
} extrow;

/* Insert one ext_kineto_event row (on the writer thread, or here). */
static int ext_insert(imp *m, const void *data)
{
  const extrow *r = data;
  kstate *k = r->k;
  const char *t = (const char *)(r + 1);
  int rc = RPD_OK;
  if (!k->st_ext)
    rc = rpd_prepare(m->r, "INSERT INTO ext_kineto_event(id, cat, name, pid, tid,"
                     " start, end, api_id, op_id, args) VALUES (?,?,?,?,?,?,?,?,?,?)",
                     &k->st_ext);
  if (rc)
    return rc;
  sqlite3_stmt *st = k->st_ext;
  sqlite3_bind_int64(st, 1, r->id);
  sqlite3_bind_text(st, 2, t, (int)r->ncat, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, t + r->ncat + 1, (int)r->nname, SQLITE_STATIC);
  sqlite3_bind_int64(st, 4, r->pid);
  sqlite3_bind_int64(st, 5, r->tid);
  sqlite3_bind_int64(st, 6, r->start);
  sqlite3_bind_int64(st, 7, r->end);
  if (r->api_id > 0)
    sqlite3_bind_int64(st, 8, r->api_id);
  else
    sqlite3_bind_null(st, 8);
  if (r->op_id > 0)
    sqlite3_bind_int64(st, 9, r->op_id);
  else
    sqlite3_bind_null(st, 9);
  sqlite3_bind_text(st, 10, t + r->ncat + r->nname + 2, (int)r->nargs, SQLITE_STATIC);
  int s = rpd_step(m->r, st);
  sqlite3_reset(st);
  return s < 0 ? -s : RPD_OK;
}

static int w_ext(kstate *k, int64_t pid, int64_t tid, int64_t start, int64_t end,
                 int64_t api_id, int64_t op_id)
{
  kev *e = &k->ev;
  extrow r = { k, ++k->ext_id, pid, tid, start, end, api_id, op_id,
               strlen(e->cat), e->name.len, e->args.len };
  size_t n = sizeof r + r.ncat + r.nname + r.nargs + 3;
  rpd_buf *b = &k->text;
  rpd_buf_reset(b);
  rpd_buf_add(b, (const char *)&r, sizeof r);
  rpd_buf_add(b, e->cat, r.ncat + 1);
  rpd_buf_add(b, e->name.s ? e->name.s : "", r.nname);
  rpd_buf_add(b, "", 1);
  rpd_buf_add(b, e->args.s ? e->args.s : "", r.nargs);
  rpd_buf_add(b, "", 1);
  k->n_ext++;
  return pipe_call(k->m, ext_insert, b->s, n);
}

/* pid / tid: a number, or a label ("Spans") -> 0. */
static int64_t lane_id(const char *s)
{
  int64_t v;
  return int_of(s, strlen(s), &v) ? v : 0;
}

static int is_collective_kernel(const char *name)
{
  return strstr(name, "nccl") || strstr(name, "rccl") || strstr(name, "Nccl") ||
         strstr(name, "NCCL") || strstr(name, "RCCL");
}

/* Copy direction from a Kineto memcpy name ("Memcpy HtoD (Pageable ->
 * Device)"): 0 H2H, 1 H2D, 2 D2H, 3 D2D, -1 unknown. */
static int memcpy_kind(const char *s)
{
  if (strstr(s, "HtoD"))
    return 1;
  if (strstr(s, "DtoH"))
    return 2;
  if (strstr(s, "DtoD") || strstr(s, "PtoP"))
    return 3;
  if (strstr(s, "HtoH"))
    return 0;
  return -1;
}

/* The autograd text of a cpu_op (docs/rpd-autograd.md's four forms). */
static const char *autograd_text(kstate *k, int64_t op_id)
{
  kev *e = &k->ev;
  rpd_buf *b = &k->text;
  int64_t seq = arg_int(e, "Sequence number", -1);
  const karg *dims = arg_find(e, "Input Dims");
  rpd_buf_reset(b);
  rpd_buf_add(b, e->name.s ? e->name.s : "", e->name.len);
  if (seq >= 0)
    rpd_buf_printf(b, ", seq = %" PRId64, seq);
  rpd_buf_printf(b, ", op_id = %" PRId64, op_id);
  if (dims && !dims->str) {
    rpd_buf_puts(b, ", sizes = ");
    rpd_buf_add(b, e->args.s + dims->off, dims->len);
    rpd_buf_puts(b, ", input_op_ids = []");
  }
  return b->s;
}

static int ev_fail(kstate *k, const char *what)
{
  return rpd_seterr(RPD_EPARSE, "event %" PRId64 " ('%.60s'): %s", k->nev,
                    k->ev.name.s ? k->ev.name.s : "", what);
}

/* ts and dur of an X event in ns (dur: 0 for instants). */
static int ev_times(kstate *k, int need_dur, int64_t *start, int64_t *end)
{
  kev *e = &k->ev;
  int64_t dur = 0;
  if (!e->has_ts)
    return ev_fail(k, "no 'ts'");
  if (e->ts_str || us_to_ns(e->ts, start))
    return ev_fail(k, "'ts' is not a number of microseconds");
  if (need_dur) {
    if (!e->has_dur)
      return ev_fail(k, "no 'dur'");
    if (e->dur_str || us_to_ns(e->dur, &dur))
      return ev_fail(k, "'dur' is not a number of microseconds");
    if (dur < 0)
      return ev_fail(k, "negative 'dur'");
  }
  if (*start < 0 || *start >= ((int64_t)1 << 62) - dur)
    return ev_fail(k, "'ts' out of range");
  *end = *start + dur;
  return RPD_OK;
}

static int ev_kernel(kstate *k, int64_t start, int64_t end)
{
  kev *e = &k->ev;
  kern r = {0};
  r.gpu = arg_int(e, "device", 0);
  r.queue = arg_int(e, "stream", 0);
  r.stream = r.queue;
  r.start = start;
  r.end = end;
  int64_t corr = arg_int(e, "correlation", 0);
  r.corr = corr > 0 ? 2 * corr : 0;
  arg_dim3(e, "grid", r.grid);
  arg_dim3(e, "block", r.wg);
  r.lds = arg_int(e, "shared memory", 0);
  int rc = w_kernel_name(k->m, e->name.s ? e->name.s : "", NULL, &r.desc_id, &r.name_id);
  if (!rc)
    rc = w_kernel(k->m, &r);
  if (!rc && (is_collective_kernel(e->name.s ? e->name.s : "") ||
              (!e->lite && arg_find(e, "Collective name"))))
    rc = w_ext(k, r.gpu, r.queue, start, end, 0, k->m->last_op);
  return rc;
}

static int ev_copy(kstate *k, int64_t start, int64_t end, int memset)
{
  kev *e = &k->ev;
  copyrec c = {0};
  int64_t dev = arg_int(e, "device", 0);
  c.kind = memset ? 3 : memcpy_kind(e->name.s ? e->name.s : "");
  c.src_gpu = c.kind == 2 || c.kind == 3 ? dev : -1;
  c.dst_gpu = c.kind == 1 || c.kind == 3 ? dev : -1;
  if (c.kind < 0)
    c.src_gpu = c.dst_gpu = dev;
  c.start = start;
  c.end = end;
  int64_t corr = arg_int(e, "correlation", 0);
  c.corr = corr > 0 ? 2 * corr : 0;
  c.bytes = arg_int(e, "bytes", 0);
  c.stream = arg_int(e, "stream", 0);
  c.queue = c.stream;
  c.optype = memset ? "FillBuffer" : NULL;
  return w_copy(k->m, &c);
}

static int ev_api(kstate *k, int64_t start, int64_t end)
{
  kev *e = &k->ev;
  apirec a = {0};
  /* a cuda_sync event repeats the correlation of its runtime call */
  int64_t corr = strcmp(e->cat, "cuda_sync") ? arg_int(e, "correlation", 0) : 0;
  const char *nm = e->name.s ? e->name.s : "";
  a.corr = corr > 0 ? 2 * corr : (k->next_marker += 2);
  a.pid = lane_id(e->pid);
  a.tid = lane_id(e->tid);
  a.start = start;
  a.end = end;
  a.domain = !strncmp(nm, "hip", 3) || !strncmp(nm, "hsa", 3) ? "HIP" : "CUDA";
  a.category = e->cat;
  a.name = nm;
  /* Kineto's runtime args are cbid and correlation (= id / 2): not kept */
  a.args = "";
  return w_api(k->m, &a);
}

/* cpu_op, user_annotation: a UserMarker on an odd id; python_function:
 * a call named by the function (few distinct names: interned). */
static int ev_marker(kstate *k, int64_t start, int64_t end)
{
  kev *e = &k->ev;
  apirec a = {0};
  int cpu_op = !strcmp(e->cat, "cpu_op");
  int python = !cpu_op && !strcmp(e->cat, "python_function");
  a.corr = k->next_marker += 2;
  a.pid = lane_id(e->pid);
  a.tid = lane_id(e->tid);
  a.start = start;
  a.end = end;
  a.domain = python ? "PYTHON" : "KINETO";
  a.category = e->cat;
  a.name = python ? e->name.s : "UserMarker";
  a.args = cpu_op ? autograd_text(k, arg_int(e, "External id", a.corr))
                  : python ? "" : e->name.s;
  int rc = w_api(k->m, &a);
  if (!rc && (cpu_op || !strcmp(e->cat, "user_annotation")) && e->args.len > 2)
    rc = w_ext(k, a.pid, a.tid, start, end, a.corr, 0);
  return rc;
}

/* The event just closed. */
static int ev_end(kstate *k)
{
  kev *e = &k->ev;
  imp *m = k->m;
  int64_t start = 0, end = 0;
  int rc = RPD_OK;
  if (!strcmp(e->ph, "X")) {
    const char *c = e->cat;
    int kind = !strcmp(c, "kernel") ? 1 : !strcmp(c, "gpu_memcpy") ? 2 :
               !strcmp(c, "gpu_memset") ? 3 :
               !strcmp(c, "cuda_runtime") || !strcmp(c, "cuda_driver") ||
               !strcmp(c, "cuda_sync") ? 4 :
               !strcmp(c, "cpu_op") || !strcmp(c, "user_annotation") ||
               !strcmp(c, "python_function") ? 5 :
               !strcmp(c, "gpu_user_annotation") ? 6 : 0;
    if (!kind) {
      /* named by its cat in the summary when that is one plain word */
      int plain = *c != '\0';
      for (const char *p = c; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || *p == '_';
      count_read(m, plain ? c : "X (other cat)", 0);
      return RPD_OK;
    }
    if ((rc = ev_times(k, 1, &start, &end)))
      return rc;
    count_read(m, c, 1);
    switch (kind) {
    case 1: return ev_kernel(k, start, end);
    case 2: return ev_copy(k, start, end, 0);
    case 3: return ev_copy(k, start, end, 1);
    case 4: return ev_api(k, start, end);
    case 5: return ev_marker(k, start, end);
    default:
      return w_ext(k, arg_int(e, "device", lane_id(e->pid)),
                   arg_int(e, "stream", lane_id(e->tid)), start, end, 0, 0);
    }
  }
  if (!strcmp(e->ph, "s") || !strcmp(e->ph, "f")) {
    /* flow ends: their id is the correlation both ends carry in args */
    int ac2g = !strcmp(e->cat, "ac2g") || !strcmp(e->cat, "async_cpu_to_gpu");
    count_read(m, ac2g ? "ac2g flow" : "other flow", ac2g);
    return RPD_OK;
  }
  if (!strcmp(e->ph, "i") || !strcmp(e->ph, "I")) {
    if (!e->cat[0]) {
      count_read(m, "instant (no cat)", 0);
      return RPD_OK;
    }
    if ((rc = ev_times(k, 0, &start, &end)))
      return rc;
    count_read(m, "instant", 1);
    return w_ext(k, lane_id(e->pid), lane_id(e->tid), start, end, 0, 0);
  }
  count_read(m, !strcmp(e->ph, "M") ? "M (metadata event)" : "other event", 0);
  return RPD_OK;
}

/* A top-level value closed (or a scalar one read): metadata. */
static int meta_end(kstate *k)
{
  imp *m = k->m;
  char tag[96];
  const char *key = k->topkey, *v = k->meta.s ? k->meta.s : "";
  int rc = RPD_OK;
  if (!strcmp(key, "baseTimeNanoseconds") && k->meta.len > 0 && k->meta.len <= 19 &&
      strspn(v, "0123456789") == k->meta.len) {
    /* absolute ns = start + base: rpd-merge's --align meta shift */
    rc = w_meta_add(m, "clock_offset_ns", v);
  }
  snprintf(tag, sizeof tag, "kineto::%s", key);
  if (!rc)
    rc = w_meta_add(m, tag, v);
  return rc;
}

/* ------------------------------------------------------------ callbacks */

static int fail(kstate *k, int rc)
{
  k->rc = rc;
  return 0;
}

/* The role of a container opened inside the current one. */
static int child_role(kstate *k)
{
  int d = k->depth, pr = d ? k->role[d] : P_NONE;
  switch (pr) {
  case P_NONE: return d ? P_SKIP : P_TOP;
  case P_TOP:
    if (!strcmp(k->topkey, "traceEvents")) {
      k->saw_events = 1;
      return P_EVENTS;
    }
    return P_META;
  case P_EVENTS: return P_EVENT;
  case P_EVENT:
    /* a python_function's args (its python ids) are not kept: skipped
     * unread (Kineto writes cat before args) */
    return k->field == F_ARGS && strcmp(k->ev.cat, "python_function") ? P_ARGS : P_SKIP;
  case P_ARGS: case P_META: return pr;
  default: return P_SKIP;
  }
}

static void ev_reset(kev *e)
{
  e->ph[0] = e->cat[0] = e->pid[0] = e->tid[0] = '\0';
  rpd_buf_reset(&e->name);
  rpd_buf_add(&e->name, "", 0);
  e->has_ts = e->has_dur = e->ts_str = e->dur_str = e->has_name = e->lite = 0;
  rpd_buf_reset(&e->args);
  e->na = 0;
}

/* 1 if only the values of this event's args are read (no JSON text is
 * kept): runtime calls, copies and kernels other than collectives, whose
 * args become columns.  Kineto writes cat and name before args; without
 * them the args are kept whole. */
static int args_lite(const kev *e)
{
  const char *c = e->cat;
  if (!strcmp(c, "kernel"))
    return e->has_name && !is_collective_kernel(e->name.s);
  return !strcmp(c, "cuda_runtime") || !strcmp(c, "cuda_driver") ||
         !strcmp(c, "gpu_memcpy") || !strcmp(c, "gpu_memset") || !strcmp(c, "cuda_sync");
}

static int open_c(kstate *k, int is_map)
{
  int role = child_role(k);
  if (k->depth >= KMAXD)
    return fail(k, rpd_seterr(RPD_EPARSE, "JSON nested deeper than %d levels", KMAXD));
  if (k->depth == 0 && !is_map)
    return fail(k, rpd_seterr(RPD_EPARSE, "not a Kineto trace: the JSON is an array,"
                              " not an object with 'traceEvents'"));
  if (role == P_EVENTS && is_map)
    role = P_SKIP;
  if (role == P_EVENT && !is_map)
    role = P_SKIP;
  if (role == P_ARGS || role == P_META) {
    if (k->out && k->depth > k->serial_base)
      ser_sep(k);
    else {
      /* the start of an args object or a top-level value */
      k->out = role == P_ARGS ? &k->ev.args : &k->meta;
      rpd_buf_reset(k->out);
      k->serial_base = k->depth;
      if (role == P_ARGS)
        k->ev.lite = is_map && args_lite(&k->ev);
    }
    put(k->out, is_map ? "{" : "[", 1);
    if (k->out->len > (role == P_ARGS ? KTEXT_MAX : KMETA_MAX))
      return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": args longer than"
                                " 16 MiB", k->nev));
  }
  k->depth++;
  k->role[k->depth] = role;
  k->is_map[k->depth] = (char)is_map;
  k->need_comma[k->depth] = 0;
  if (role == P_EVENT) {
    ev_reset(&k->ev);
    k->argkey = -1;
    k->nev++;               /* messages name the event 1, 2, ... */
  }
  return 1;
}

static int close_c(kstate *k)
{
  int d = k->depth, role = k->role[d];
  int rc = RPD_OK;
  if (role == P_ARGS || role == P_META) {
    put(k->out, k->is_map[d] ? "}" : "]", 1);
    if (d - 1 == k->serial_base + 1 && role == P_ARGS && k->argkey >= 0) {
      /* a nested value of an args key ends */
      karg *a = &k->ev.a[k->argkey];
      a->len = k->out->len - a->off;
      k->argkey = -1;
    }
    if (d - 1 == k->serial_base) {
      k->out = NULL;
      if (role == P_META)
        rc = meta_end(k);
    }
  } else if (role == P_EVENT)
    rc = ev_end(k);
  k->depth--;
  if (rc)
    return fail(k, rc);
  return 1;
}

static int cb_start_map(void *ctx) { return open_c(ctx, 1); }
static int cb_end_map(void *ctx) { return close_c(ctx); }
static int cb_start_array(void *ctx) { return open_c(ctx, 0); }
static int cb_end_array(void *ctx) { return close_c(ctx); }

static int cb_key(void *ctx, const unsigned char *s, size_t len)
{
  kstate *k = ctx;
  int role = k->role[k->depth];
  if (role == P_TOP) {
    size_t n = len < sizeof k->topkey - 1 ? len : sizeof k->topkey - 1;
    memcpy(k->topkey, s, n);
    k->topkey[n] = '\0';
    return 1;
  }
  if (role == P_EVENT) {
    k->field = F_OTHER;
    if (len == 2 && !memcmp(s, "ph", 2)) k->field = F_PH;
    else if (len == 3 && !memcmp(s, "cat", 3)) k->field = F_CAT;
    else if (len == 4 && !memcmp(s, "name", 4)) k->field = F_NAME;
    else if (len == 3 && !memcmp(s, "pid", 3)) k->field = F_PID;
    else if (len == 3 && !memcmp(s, "tid", 3)) k->field = F_TID;
    else if (len == 2 && !memcmp(s, "ts", 2)) k->field = F_TS;
    else if (len == 3 && !memcmp(s, "dur", 3)) k->field = F_DUR;
    else if (len == 4 && !memcmp(s, "args", 4)) k->field = F_ARGS;
    return 1;
  }
  if (role == P_ARGS && k->ev.lite && k->depth == k->serial_base + 1) {
    /* only where the value will be */
    karg *a = &k->ev.a[k->ev.na];
    k->argkey = -1;
    if (k->ev.na < KARGS && len < sizeof a->key) {
      memcpy(a->key, s, len);
      a->key[len] = '\0';
      a->klen = len;
      a->off = k->out->len;
      a->len = 0;
      a->str = 0;
      k->argkey = k->ev.na++;
    }
    return 1;
  }
  if (role == P_ARGS || role == P_META) {
    rpd_buf *o = k->out;
    int d = k->depth;
    if (k->need_comma[d])
      put(o, ", ", 2);
    k->need_comma[d] = 1;
    put(o, "\"", 1);
    esc(o, s, len);
    put(o, "\": ", 3);
    if (role == P_ARGS && d == k->serial_base + 1) {
      k->argkey = -1;
      if (k->ev.na < KARGS && len < sizeof k->ev.a[0].key) {
        karg *a = &k->ev.a[k->ev.na];
        memcpy(a->key, s, len);
        a->key[len] = '\0';
        a->klen = len;
        a->off = o->len;
        a->len = 0;
        a->str = 0;
        k->argkey = k->ev.na++;
      }
    }
  }
  return 1;
}

/* A scalar: text s (numbers, literals) or a string (is_str). */
static int scalar(kstate *k, const char *s, size_t len, int is_str)
{
  int role = k->role[k->depth];
  if (role == P_EVENT) {
    kev *e = &k->ev;
    char *dst = NULL;
    size_t cap = 0;
    switch (k->field) {
    case F_PH: dst = e->ph; cap = sizeof e->ph; break;
    case F_CAT: dst = e->cat; cap = sizeof e->cat; break;
    case F_PID: dst = e->pid; cap = sizeof e->pid; break;
    case F_TID: dst = e->tid; cap = sizeof e->tid; break;
    case F_TS: dst = e->ts; cap = sizeof e->ts; e->has_ts = 1; e->ts_str = is_str; break;
    case F_DUR: dst = e->dur; cap = sizeof e->dur; e->has_dur = 1; e->dur_str = is_str; break;
    case F_NAME:
      if (len > KTEXT_MAX)
        return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": name longer than"
                                  " 16 MiB", k->nev));
      rpd_buf_reset(&e->name);
      rpd_buf_add(&e->name, s, len);
      e->has_name = 1;
      return 1;
    default: return 1;
    }
    if (len >= cap) {
      if (k->field == F_TS || k->field == F_DUR)
        return fail(k, ev_fail(k, k->field == F_TS ? "'ts' is not a number of microseconds"
                                                   : "'dur' is not a number of microseconds"));
      len = cap - 1;    /* a long cat/ph/pid/tid: kept cut */
    }
    memcpy(dst, s, len);
    dst[len] = '\0';
    return 1;
  }
  if (role == P_TOP) {
    /* a top-level scalar: its text is the metadata value */
    rpd_buf_reset(&k->meta);
    rpd_buf_add(&k->meta, s, len);
    int rc = meta_end(k);
    return rc ? fail(k, rc) : 1;
  }
  if (role == P_ARGS || role == P_META) {
    rpd_buf *o = k->out;
    if (k->ev.lite && k->depth == k->serial_base + 1) {
      /* a bare value: no quotes, no escapes */
      size_t at = o->len;
      put(o, s, len);
      if (k->argkey >= 0) {
        karg *a = &k->ev.a[k->argkey];
        a->off = at;
        a->len = len;
        a->str = is_str;
        k->argkey = -1;
      }
      if (o->len > KTEXT_MAX)
        return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": args longer than"
                                  " 16 MiB", k->nev));
      return 1;
    }
    ser_sep(k);
    size_t at = o->len;
    if (is_str) {
      put(o, "\"", 1);
      esc(o, (const unsigned char *)s, len);
      put(o, "\"", 1);
    } else
      put(o, s, len);
    if (role == P_ARGS && k->depth == k->serial_base + 1 && k->argkey >= 0) {
      karg *a = &k->ev.a[k->argkey];
      if (is_str) {
        /* the text without quotes (escaped only if it needed escapes) */
        a->off = at + 1;
        a->len = o->len - at - 2;
        a->str = 1;
      } else {
        a->off = at;
        a->len = o->len - at;
      }
      k->argkey = -1;
    }
    if (o->len > KTEXT_MAX)
      return fail(k, rpd_seterr(RPD_EPARSE, "event %" PRId64 ": args longer than"
                                " 16 MiB", k->nev));
  }
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
  return scalar(ctx, (const char *)s, len, 1);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
  return scalar(ctx, s, len, 0);
}

static int cb_bool(void *ctx, int b)
{
  return scalar(ctx, b ? "true" : "false", b ? 4 : 5, 0);
}

static int cb_null(void *ctx)
{
  return scalar(ctx, "null", 4, 0);
}

static const yajl_callbacks kcb = {
  cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_key, cb_end_map, cb_start_array, cb_end_array
};

/* ------------------------------------------------------------ the run */

/* Devices and ranks from the metadata kept as JSON (SQLite's json1):
 * kineto::gpu.N.name / .cus / .memory, rank, world_size. */
static int meta_derived(imp *m)
{
  static const char sql[] =
    "INSERT INTO rocpd_metadata(tag, value)"
    " SELECT 'kineto::gpu.' || json_extract(D.value, '$.id') || '.' || F.k,"
    "   json_extract(D.value, '$.' || F.f)"
    " FROM rocpd_metadata M, json_each(M.value) D,"
    "  (SELECT 'name' AS k, 'name' AS f UNION ALL SELECT 'cus', 'numSms'"
    "   UNION ALL SELECT 'memory', 'totalGlobalMem') F"
    " WHERE M.tag = 'kineto::deviceProperties' AND json_valid(M.value)"
    "  AND json_type(M.value) = 'array' AND json_type(D.value) = 'object'"
    "  AND json_extract(D.value, '$.' || F.f) IS NOT NULL;"
    "INSERT INTO rocpd_metadata(tag, value)"
    " SELECT F.tag, json_extract(M.value, '$.' || F.f)"
    " FROM rocpd_metadata M, (SELECT 'rank' AS tag, 'rank' AS f"
    "  UNION ALL SELECT 'world_size', 'world_size'"
    "  UNION ALL SELECT 'kineto::backend', 'backend') F"
    " WHERE M.tag = 'kineto::distributedInfo' AND json_valid(M.value)"
    "  AND json_type(M.value) = 'object'"
    "  AND json_extract(M.value, '$.' || F.f) IS NOT NULL;";
  int rc = pipe_pause(m);
  if (!rc)
    rc = rpd_exec(m->r, sql);
  pipe_resume(m);
  return rc;
}

/* Parse the stream from rd into m (the Kineto counterpart of json_run). */
static int kineto_run(imp *m, json_read_fn rd, void *ctx)
{
  kstate *k = rpd_xcalloc(1, sizeof *k);
  k->m = m;
  k->next_marker = -1;
  k->argkey = -1;
  yajl_handle h = yajl_alloc(&kcb, NULL, k);
  yajl_config(h, yajl_dont_validate_strings, 1);
  const unsigned char *buf = NULL;
  uint64_t fed = 0;
  int rc, n;
  yajl_status st;

  rc = pipe_pause(m);
  if (!rc)
    rc = rpd_exec(m->r, ext_ddl);
  pipe_resume(m);
  if (rc)
    goto cleanup;
  while ((n = rd(ctx, &buf, fed)) > 0) {
    st = yajl_parse(h, buf, (size_t)n);
    if (st != yajl_status_ok) {
      size_t at = yajl_get_bytes_consumed(h);
      if (st == yajl_status_client_canceled) {
        rc = k->rc ? k->rc : RPD_ERR;
        if (rc == RPD_EPARSE || rc == RPD_ERR)
          rc = rpd_seterr(RPD_EPARSE, "at byte %" PRIu64 ": %s", fed + at, rpd_errmsg());
      } else {
        unsigned char *msg = yajl_get_error(h, 0, buf, (size_t)n);
        char one[200];
        snprintf(one, sizeof one, "%s", msg ? (char *)msg : "parse error");
        one[strcspn(one, "\n")] = '\0';
        if (msg)
          yajl_free_error(h, msg);
        rc = rpd_seterr(RPD_EPARSE, "malformed JSON at byte %" PRIu64 ": %s",
                        fed + at, one);
      }
      goto cleanup;
    }
    fed += (uint64_t)n;
  }
  if (n < 0) {
    rc = RPD_EGZIP;
    goto cleanup;
  }
  st = yajl_complete_parse(h);
  if (st == yajl_status_client_canceled) {
    rc = k->rc ? k->rc : RPD_ERR;
    goto cleanup;
  }
  if (st != yajl_status_ok) {
    rc = rpd_seterr(RPD_EPARSE, "truncated JSON: input ends at byte %" PRIu64
                    " inside an open %s", fed,
                    k->depth > 0 && k->is_map[k->depth] ? "object" : "array");
    goto cleanup;
  }
  if (!fed) {
    rc = rpd_seterr(RPD_EPARSE, "empty file");
    goto cleanup;
  }
  if (!k->saw_events) {
    rc = rpd_seterr(RPD_EPARSE, "not a Kineto trace: no 'traceEvents' array");
    goto cleanup;
  }
  rc = meta_derived(m);
  if (!rc)
    rc = w_meta_add(m, "rpd-import::format", "kineto");

cleanup:
  /* the writer thread may still hold ext rows that use k's statement */
  {
    int prc = pipe_pause(m);
    if (!rc)
      rc = prc;
    sqlite3_finalize(k->st_ext);
    pipe_resume(m);
  }
  yajl_free(h);
  rpd_buf_free(&k->ev.name);
  rpd_buf_free(&k->ev.args);
  rpd_buf_free(&k->meta);
  rpd_buf_free(&k->text);
  free(k);
  return rc;
}

int import_kineto(imp *m, const char *path)
{
  return import_json_with(m, path, kineto_run);
}

/* A memory buffer being read (the fuzz entry). */
typedef struct kmem {
  const unsigned char *p;
  size_t left;
} kmem;

static int kmem_read(void *ctx, const unsigned char **buf, uint64_t fed)
{
  kmem *b = ctx;
  (void)fed;
  size_t n = b->left < (1 << 16) ? b->left : (1 << 16);
  *buf = b->p;
  b->p += n;
  b->left -= n;
  return (int)n;
}

int import_kineto_buf(imp *m, const void *data, size_t n)
{
  kmem b = { data, n };
  return kineto_run(m, kmem_read, &b);
}

/* Kineto's marks in the first bytes of a JSON text. */
int kineto_is_text(const char *h, size_t n)
{
  static const char *const marks[] = {
    "\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"",
    "\"baseTimeNanoseconds\"", "\"cat\": \"cpu_op\"", "\"cat\":\"cpu_op\"",
    "\"cat\": \"kernel\"", "\"cat\":\"kernel\"", "\"cat\": \"cuda_runtime\"",
    "\"cat\":\"cuda_runtime\"", "\"cat\": \"python_function\"",
    "\"cat\":\"python_function\"", "\"cat\": \"user_annotation\"",
    "\"cat\":\"user_annotation\"",
  };
  if (memmem(h, n, "\"rocprofiler-sdk-tool\"", 22))
    return 0;
  for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
    if (memmem(h, n, marks[i], strlen(marks[i])))
      return 1;
  return 0;
}
